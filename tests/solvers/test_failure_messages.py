"""A refused solve names the other backends that can solve the template, never the one that failed.

Failures are forced with ``max_iter=1`` (no backend reaches the residual tolerance 1e-6 from
zero in one iteration on these problems) or by a solver that raises. The oracle for what
may be named is the registry itself: ``suitable_backends(template)`` minus the solvers that
ran. The messages carry no statistic of the data: the residual a refused solve reached goes
to ``collect_diagnostics`` only.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from _helpers import syntax_nodes
from _multinomial_template import MultinomialTemplate, multinomial_data

import dpconvex as dp
from dpconvex.solvers import ClarabelBackend, LbfgsNewton, PolishedBackend, suitable_backends

ADVICE = re.compile(r"solver='(\w+)'")
#: The user template's G and Hessian constants are probed, not verified, and its objective is
#: the user's code (a probe refutes it, never proves it): the caller vouches.
VOUCH = ("grad_bound", "hessian", "objective", "template_conditions")


def _template(cls=MultinomialTemplate):
    X, y = multinomial_data(n=60, d=3, C=3)
    return cls(X, y, 3, 0.1)


class NativeOnly(MultinomialTemplate):
    """No CVXPY form: the native solver is the one registered backend that fits."""

    capabilities = MultinomialTemplate.capabilities - {"cvxpy"}


def _refusal(template, backend, **kw):
    with dp.collect_diagnostics() as diag, pytest.raises(dp.SolverError) as err:
        dp.release(template, "objective", dp.Budget(1.0), backend=backend, rng=0, vouch=VOUCH, **kw)
    return str(err.value), diag


@pytest.mark.parametrize("failing", ["native", "clarabel", "scs"])
def test_a_capped_solve_names_the_other_backends(failing):
    t = _template()
    message, diag = _refusal(t, failing, max_iter=1)
    assert f"the solve by '{failing}' did not reach" in message
    named = ADVICE.findall(message)
    assert failing not in named
    assert named == [name for name in suitable_backends(t) if name != failing]
    # the residual reached is the data holder's, not the message's
    reached = diag[-1].residual
    assert reached > t.residual_tol
    assert f"{reached:g}" not in message and f"{reached:.2e}" not in message
    assert repr(reached) not in message


def test_the_auto_choice_is_not_recommended_after_it_failed():
    t = _template()
    message, _ = _refusal(t, None, max_iter=1)
    assert "the solve by 'native' did not reach" in message
    assert ADVICE.findall(message) == ["clarabel", "scs"]


def test_no_other_backend_is_said_so():
    t = _template(NativeOnly)
    assert suitable_backends(t) == ["native"]
    message, _ = _refusal(t, "native", max_iter=1)
    assert ADVICE.findall(message) == []
    assert "No other registered backend can solve this template" in message
    assert "max_iter" in message and "larger lam" in message


def test_a_failed_polished_solve_names_neither_solver_it_ran():
    t = _template()
    message, _ = _refusal(t, PolishedBackend(ClarabelBackend(), LbfgsNewton()), max_iter=1)
    assert "the solve by 'clarabel+native' did not reach" in message
    assert ADVICE.findall(message) == ["scs"]


def test_a_solver_exception_names_the_other_backends(monkeypatch):
    def raises(self, template, b, extra_reg, *, warm_start=None, max_iter=None):
        raise ValueError("singular matrix")

    monkeypatch.setattr(LbfgsNewton, "solve", raises)
    t = _template()
    message, diag = _refusal(t, "native")
    assert message.startswith("release: the solve failed, so nothing is released")
    # the solver's own text may quote the data: the data holder's channel only
    assert "singular matrix" not in message
    assert diag.note("the solve failed").what == "the solve failed: ValueError: singular matrix"
    assert ADVICE.findall(message) == ["clarabel", "scs"]
    message, _ = _refusal(t, PolishedBackend(ClarabelBackend(), LbfgsNewton()), max_iter=1)
    assert ADVICE.findall(message) == ["scs"]
    message, _ = _refusal(_template(NativeOnly), "native")
    assert "No other registered backend can solve this template" in message


def _code_strings(path):
    """The string constants of a module's code (f-string parts included), docstrings left out."""
    nodes = syntax_nodes(path)
    docstrings = {id(node.body[0].value) for node in nodes
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef
                                | ast.AsyncFunctionDef)
                  and node.body and isinstance(node.body[0], ast.Expr)}
    return [node.value for node in nodes if isinstance(node, ast.Constant)
            and isinstance(node.value, str) and id(node) not in docstrings]


def test_no_message_in_the_package_recommends_a_fixed_backend():
    """Every "Try solver=..." is built from the registry (retry_advice), none is written out."""
    package = Path(dp.__file__).resolve().parent
    fixed = [f"{path.relative_to(package)}: {text!r}" for path in sorted(package.rglob("*.py"))
             for text in _code_strings(path) if re.search(r"[Tt]ry solver=", text)]
    assert fixed == []


def test_a_refused_solve_opens_with_the_call_the_user_made():
    """release, an estimator's fit and fit_prepared, a front door and a search: each refusal opens
    with the public call (a search's with the candidate's grid values), never with the mechanism
    that ran the solve; the rest of the text is the same."""
    message, _ = _refusal(_template(), "native", max_iter=1)
    assert message.startswith("release: the solve by 'native' did not reach")
    X, y = multinomial_data(n=60, d=3, C=2)
    est = dp.PrivateLogisticRegression(classes=[0, 1], max_iter=1, random_state=0)
    plan = est.plan(60, 2, 3)
    calls = {"PrivateLogisticRegression.fit": lambda: est.fit(X, y),
             "PrivateLogisticRegression.fit_prepared":
                 lambda: est.fit_prepared(est.prepare(X, y, plan), plan),
             "PrivateGridSearch.fit: candidate lam=0.1": lambda: dp.PrivateGridSearch(
                 est, {"lam": [0.1, 1.0]}, epsilon=1.0, random_state=0).fit(X, y)}
    for caller, call in calls.items():
        with pytest.raises(dp.SolverError) as err:
            call()
        text = str(err.value)
        assert text.startswith(f"{caller}: the solve by '") and ".run" not in text, text
