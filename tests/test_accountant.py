"""BudgetAccountant: composed totals, overspending, parallel blocks, estimator wiring."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone

from dpconvex import BudgetAccountant, BudgetError, Certificate, NoisyGradientDescent
from dpconvex.accountant import charge, check_budget
from dpconvex.errors import ParameterError


def test_sequential_totals_and_exact_exhaustion():
    acc = BudgetAccountant(epsilon=1.0, delta=1e-5)
    for i in range(10):
        acc.spend(0.1, 1e-6, label=f"q{i}")
    e, d = acc.spent
    assert e == pytest.approx(1.0, abs=1e-15)
    assert d == pytest.approx(1e-5, rel=1e-12)
    assert acc.remaining[0] == pytest.approx(0.0, abs=1e-15)
    assert [s.label for s in acc.spends] == [f"q{i}" for i in range(10)]
    with pytest.raises(BudgetError, match="Remaining"):
        acc.spend(1e-3, label="one too many")
    assert len(acc.spends) == 10  # the refused spend is not recorded


def test_overspend_epsilon_and_delta_separately():
    acc = BudgetAccountant(epsilon=1.0, delta=1e-6)
    acc.spend(0.6)
    with pytest.raises(BudgetError, match=r"epsilon=1\.2"):
        acc.check(0.6)
    with pytest.raises(BudgetError):
        acc.spend(0.1, 2e-6)  # epsilon fits, delta does not
    acc.spend(0.4, 1e-6)
    assert acc.spent == pytest.approx((1.0, 1e-6))


def test_parallel_block_composes_by_max():
    acc = BudgetAccountant(epsilon=2.0, delta=1e-4)
    acc.spend(0.2, 1e-6, label="before")
    with acc.parallel():
        acc.spend(0.5, 1e-5, label="part A")
        acc.spend(0.3, 3e-5, label="part B")
        acc.spend(0.4, 0.0, label="part C")
    acc.spend(0.1, label="after")
    e, d = acc.spent
    assert e == pytest.approx(0.2 + 0.5 + 0.1)
    assert d == pytest.approx(1e-6 + 3e-5)
    groups = [s.group for s in acc.spends]
    assert groups == [None, 0, 0, 0, None]
    with acc.parallel():  # a second block is its own group
        acc.spend(0.7)
        acc.spend(0.7)
    assert acc.spent[0] == pytest.approx(1.5)


def test_check_inside_parallel_uses_max():
    acc = BudgetAccountant(epsilon=1.0)
    acc.spend(0.5)
    with acc.parallel():
        acc.spend(0.5)
        acc.spend(0.5)  # max stays 0.5: total 1.0
        with pytest.raises(BudgetError, match="parallel"):
            acc.spend(0.6)
    assert acc.spent[0] == pytest.approx(1.0)


def test_parallel_blocks_do_not_nest_and_close_on_error():
    acc = BudgetAccountant(epsilon=1.0)
    with acc.parallel(), pytest.raises(ParameterError, match="nested"):
        with acc.parallel():
            pass
    with pytest.raises(RuntimeError), acc.parallel():
        acc.spend(0.25)
        raise RuntimeError("boom")
    acc.spend(0.25)  # sequential again after the block closed on the error
    assert acc.spent[0] == pytest.approx(0.5)
    assert acc.spends[-1].group is None


@pytest.mark.parametrize("kwargs", [{"epsilon": -1.0}, {"epsilon": 0.0}, {"epsilon": "1"},
                                    {"epsilon": 1.0, "delta": 1.0},
                                    {"epsilon": 1.0, "delta": -1e-9}])
def test_invalid_budget(kwargs):
    with pytest.raises(ParameterError):
        BudgetAccountant(**kwargs)


def test_invalid_spend_and_budget_is_read_only():
    acc = BudgetAccountant(epsilon=1.0)
    with pytest.raises(ParameterError):
        acc.spend(-0.1)
    with pytest.raises(ParameterError):
        acc.spend(0.1, 2.0)
    with pytest.raises(AttributeError):
        acc.epsilon = 5.0  # type: ignore[misc]


def test_unlimited_budget_is_explicit():
    acc = BudgetAccountant(epsilon=math.inf, delta=0.5)
    acc.spend(1e9)
    acc.spend(math.inf, label="non-private baseline")
    assert math.isinf(acc.spent[0])
    with pytest.raises(TypeError):
        BudgetAccountant()  # type: ignore[call-arg]  # no default budget


def test_copies_share_the_ledger():
    acc = BudgetAccountant(epsilon=1.0)
    assert copy.copy(acc) is acc
    assert copy.deepcopy(acc) is acc
    est = NoisyGradientDescent(epsilon=0.5, delta=1e-6, steps=5, radius=1.0, accountant=acc)
    assert clone(est).accountant is acc


def test_charge_and_check_budget_helpers():
    check_budget(None, 1e9)
    charge(None, Certificate("x", 1.0, 1.0), "x")
    with pytest.raises(ParameterError, match="BudgetAccountant or None"):
        check_budget({"epsilon": 1}, 0.1)
    acc = BudgetAccountant(epsilon=1.0, delta=1e-6)
    check_budget(acc, 1.0, 1e-6)
    with pytest.raises(BudgetError):
        check_budget(acc, 1.1)
    charge(acc, Certificate("m", epsilon_requested=0.5, epsilon=0.4, delta=1e-7), "model")
    assert acc.spent == pytest.approx((0.4, 1e-7))
    assert acc.spends[0].label == "model"
    nonprivate = Certificate("baseline", math.inf, math.inf, private=False)
    with pytest.raises(BudgetError):
        charge(acc, nonprivate, "baseline")


def test_estimator_is_refused_before_fitting():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3)) / 3
    y = (X[:, 0] > 0).astype(int)
    acc = BudgetAccountant(epsilon=1.0, delta=2e-6)
    for _ in range(2):
        NoisyGradientDescent(epsilon=0.5, delta=1e-6, steps=5, radius=1.0, random_state=0,
                             accountant=acc).fit(X, y)
    assert acc.spent[0] == pytest.approx(1.0, rel=1e-5)
    assert acc.spent[1] == pytest.approx(2e-6)
    est = NoisyGradientDescent(epsilon=0.01, delta=1e-9, steps=5, radius=1.0, accountant=acc)
    with pytest.raises(BudgetError):
        est.fit(X, y)
    assert not hasattr(est, "coef_")
    assert len(acc.spends) == 2


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(min_value=0.0, max_value=0.5, allow_nan=False), max_size=30),
       st.floats(min_value=0.1, max_value=3.0))
def test_ledger_never_exceeds_budget(spends, budget):
    acc = BudgetAccountant(epsilon=budget)
    accepted = []
    for e in spends:
        try:
            acc.spend(e)
            accepted.append(e)
        except BudgetError:
            pass
    assert acc.spent[0] == pytest.approx(math.fsum(accepted), abs=1e-12)
    assert acc.spent[0] <= budget * (1 + 1e-9) + 1e-15


def test_linear_estimators_spend_from_the_ledger():
    """Every private linear estimator checks before the fit and is charged after it."""
    import numpy as np

    import dpconvex as dp

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3)) / 3
    y = (X[:, 0] > 0).astype(int)
    acc = dp.BudgetAccountant(epsilon=1.0)
    dp.PrivateLogisticRegression(epsilon=0.4, accountant=acc, random_state=0).fit(X, y)
    dp.PrivateHuberSVM(epsilon=0.5, mechanism="output", accountant=acc, random_state=0).fit(X, y)
    assert acc.spent[0] == pytest.approx(0.9)
    late = dp.PrivateLogisticRegression(epsilon=0.2, accountant=acc, random_state=0)
    with pytest.raises(dp.BudgetError):
        late.fit(X, y)
    assert not hasattr(late, "coef_")
    assert acc.spent[0] == pytest.approx(0.9)
    with pytest.raises(dp.BudgetError):  # a non-private fit would spend epsilon = inf
        dp.PrivateLogisticRegression(mechanism="none", accountant=acc).fit(X, y)
