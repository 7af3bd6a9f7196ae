"""The composition rules' refusals (in the caller's name where one is given) and the rule for
private selection by random repetition (docs/privacy/tuning_gd_ledger.md#privacy-random-search)."""

from __future__ import annotations

import math

import pytest

from dpconvex import Certificate
from dpconvex.errors import ParameterError, PrivacyError
from dpconvex.privacy.composition import (
    compose_parallel,
    compose_repetitions,
    compose_sequential,
    compose_tuning,
)

BIG = Certificate("model", epsilon_requested=2.0, epsilon=2.0)
SELECT = Certificate("selection", epsilon_requested=1.0, epsilon=1.0)
TEXT = {"each_run": "its parts", "candidates": "a fixed list", "runs": "K hidden",
        "per_run": "checked after each run"}


@pytest.mark.parametrize("compose, rule", [
    (lambda **kw: compose_sequential([BIG], mechanism="m", epsilon_requested=1.0, **kw),
     "compose_sequential"),
    (lambda **kw: compose_parallel([BIG], mechanism="m", epsilon_requested=1.0, **kw),
     "compose_parallel"),
    (lambda **kw: compose_tuning([BIG], SELECT, mechanism="m", epsilon_requested=1.0,
                                 candidates="c", split="s", **kw), "compose_parallel"),
])
def test_a_refusal_opens_with_the_caller_then_the_rule(compose, rule):
    with pytest.raises(PrivacyError, match=f"^{rule}: the parts spend epsilon = 2,"):
        compose()
    with pytest.raises(PrivacyError, match=f"^Search.fit: {rule}: the parts spend epsilon = 2,"):
        compose(caller="Search.fit")


def _repeat(run, eta=1.0, epsilon_run=0.25, epsilon=1.0, **kw):
    return compose_repetitions(run, eta=eta, epsilon_run=epsilon_run, mechanism="best of K",
                               epsilon_requested=epsilon, **TEXT, **kw)


@pytest.mark.parametrize("eta, total", [(1.0, 0.75), (0.0, 0.5)])
def test_repetitions_cost_two_plus_eta_runs_and_state_the_theorems_conditions(eta, total):
    run = Certificate("one run", epsilon_requested=0.25, epsilon=0.25)
    best = _repeat(run, eta=eta)
    assert (best.epsilon, best.delta, best.private, best.parts) == (total, 0.0, True, [run])
    assert [c.name for c in best.conditions] == [
        "epsilon accounting", "candidates fixed before the data",
        "number of runs random and hidden", "uniform per-run bound"]
    assert best.conditions[0].detail.startswith(f"(2 + eta) * epsilon_1 = {2 + eta:g} * 0.25")


def test_repetitions_refuse_a_run_above_its_bound_a_total_above_the_request_and_other_laws():
    run = Certificate("one run", epsilon_requested=0.25, epsilon=0.25)
    with pytest.raises(PrivacyError, match=r"^S.fit: compose_repetitions: \(2 \+ eta\)"):
        _repeat(run, epsilon=0.7, caller="S.fit")
    with pytest.raises(PrivacyError, match="^compose_repetitions: the run spends epsilon = 0.25"):
        _repeat(run, epsilon_run=0.2)
    gaussian = Certificate("one run", epsilon_requested=0.25, epsilon=0.25, delta=1e-6)
    with pytest.raises(PrivacyError, match="delta = 1e-06, above the per-run bound"):
        _repeat(gaussian)
    with pytest.raises(ParameterError, match="'eta' argument of compose_repetitions"):
        _repeat(run, eta=0.5)


def test_repetitions_of_a_run_that_is_not_private_are_not_private():
    run = Certificate("one run", epsilon_requested=0.25, epsilon=math.inf, private=False)
    best = _repeat(run)
    assert not best.private and best.epsilon == math.inf
