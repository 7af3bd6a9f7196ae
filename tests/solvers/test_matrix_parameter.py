"""A user template whose parameter is a matrix, W of shape (d, C), through every native path.

Oracles: SciPy's BFGS on the same objective written flat, CVXPY + Clarabel on the template's
own CVXPY form, and the error bound of strong convexity. For a μ-strongly convex J,
||θ − θ*|| <= ||∇J(θ)||/μ, so two points with residuals r₁, r₂ lie within (r₁ + r₂)/μ of
each other; over a convex set the natural residual bounds it as (1 + L)/μ · r
(``docs/privacy/large_margin.md#privacy-lm-solver-accuracy``). The tests compare within
these bounds computed from the residuals each solve reports, never bit for bit. The
template asserts that every call reaches it in the space's shape (a flat θ or v would
fail the test).
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest
from _multinomial_template import BallMultinomialTemplate, MultinomialTemplate, multinomial_data
from scipy.optimize import minimize

import dpconvex as dp
from dpconvex.solvers import LbfgsNewton, ProjectedGradient, get_backend, solve
from dpconvex.solvers.lbfgs_newton import NATIVE_TOL_FACTOR
from dpconvex.templates.base import missing_members

D, C, LAM, EXTRA = 3, 3, 0.1, 0.05
#: The user template's G and Hessian constants are probed, not verified, and its objective is
#: the user's code (a probe refutes it, never proves it): the caller vouches.
VOUCH = ("grad_bound", "hessian", "objective", "template_conditions")


def _template(cls=MultinomialTemplate, **kw):
    X, y = multinomial_data(n=60, d=D, C=C)
    return cls(X, y, C, LAM, **kw)


def _noise(seed=1):
    return np.random.default_rng(seed).normal(size=(D, C))


class ProductsOnly(MultinomialTemplate):
    """No dense Hessian: the native solver polishes with Newton-CG on ``hessp``."""

    capabilities = MultinomialTemplate.capabilities - {"hessian"}


def test_the_fixture_meets_the_contract():
    for t in (_template(), _template(ProductsOnly), _template(BallMultinomialTemplate, radius=1.0)):
        assert missing_members(t) == []
        assert t.space.shape == (D, C) and t.space.dimension == D * C


def test_native_releases_a_matrix_parameter():
    t = _template()
    assert isinstance(get_backend(None, t), LbfgsNewton)
    for solver in ("native", None):
        with dp.collect_diagnostics() as diag:
            rel = dp.release(t, "objective", dp.Budget(1.0), backend=solver, vouch=VOUCH)
        assert rel.theta.shape == (D, C) and np.all(np.isfinite(rel.theta))
        assert rel.certificate.all_hold
        assert len(diag) == 1
        assert diag[0].solver == "native"
        assert diag[0].residual <= t.residual_tol
    out = dp.release(t, "output", dp.Budget(1.0),
                     vouch=("grad_bound", "objective", "template_conditions"))
    assert out.theta.shape == (D, C)


@pytest.mark.parametrize("cls, method", [(MultinomialTemplate, "L-BFGS-B + Newton polish"),
                                         (ProductsOnly, "L-BFGS-B + Newton-CG polish")])
def test_native_agrees_with_scipy_on_the_flat_objective(cls, method):
    t, b = _template(cls), _noise()
    res = solve(t, b, EXTRA, solver="native")
    assert res.info["method"] == method
    assert res.x.shape == (D, C) and res.status.name == "OPTIMAL"
    assert res.residual <= t.residual_tol * NATIVE_TOL_FACTOR
    assert res.residual == pytest.approx(t.residual(res.x, b, EXTRA), rel=1e-12)

    def flat(w):  # the same J, written flat for SciPy
        value, grad = t.objective(w.reshape(D, C), b, EXTRA)
        return value, grad.ravel()

    ref = minimize(flat, np.zeros(D * C), jac=True, method="BFGS", options={"gtol": 1e-10})
    ref_x = ref.x.reshape(D, C)
    bound = (res.residual + t.residual(ref_x, b, EXTRA)) / (LAM + EXTRA)
    assert bound < 1e-7  # both solves are tight: the comparison below means something
    assert np.linalg.norm(res.x - ref_x) <= bound + 1e-12


def test_native_agrees_with_clarabel_on_the_cvxpy_form():
    t, b = _template(), _noise(2)
    native = solve(t, b, EXTRA, solver="native")
    clarabel = solve(t, b, EXTRA, solver="clarabel")
    assert clarabel.x.shape == native.x.shape == (D, C)
    assert clarabel.residual <= t.residual_tol
    bound = (native.residual + clarabel.residual) / (LAM + EXTRA)
    assert np.linalg.norm(native.x - clarabel.x) <= bound + 1e-12


def test_native_warm_starts_in_the_space_shape_or_flat():
    t, b = _template(), _noise(3)
    cold = solve(t, b, 0.0, solver="native")
    for start in (cold.x, cold.x.ravel()):
        warm = solve(t, b, 0.0, solver="native", warm_start=start)
        assert warm.x.shape == (D, C) and warm.iterations == 0
        np.testing.assert_array_equal(warm.x, cold.x)


def test_projected_gradient_solves_a_matrix_parameter_over_a_ball():
    loose = _template()
    b = 20.0 * _noise(4)
    free = solve(loose, b, 0.0, solver="native")
    radius = 0.5 * float(np.linalg.norm(free.x))  # the constraint is active
    t = _template(BallMultinomialTemplate, radius=radius)
    assert isinstance(get_backend(None, t), ProjectedGradient)
    res = solve(t, b, 0.0, solver="native")
    assert res.x.shape == (D, C) and res.status.name == "OPTIMAL"
    assert float(np.linalg.norm(res.x)) == pytest.approx(radius, rel=1e-9)
    # Clarabel on the CVXPY form with the ball as a constraint; the natural residual bounds
    # each point's distance to W* by (1 + L)/μ · r
    form = loose.cvxpy_problem()
    loose.cvxpy_set(b, 0.0)
    cp.Problem(form["problem"].objective, [cp.norm(form["W"], "fro") <= radius]).solve(
        solver=cp.CLARABEL)
    ref = t.space.project(form["W"].value)
    bound = (1.0 + t.lipschitz_bound(0.0)) / LAM * (res.residual + t.residual(ref, b))
    assert bound < 1e-4
    assert np.linalg.norm(res.x - ref) <= bound + 1e-12
