"""Constrained private ERM: a public convex set on the coefficients, honoured by every backend.

Objective perturbation over a closed convex set is Kifer, Smith & Thakurta (COLT 2012): for
a loss of rank-one per-record Hessians the calibration of the unconstrained case holds. The
exact privacy-loss check below computes, in one dimension over θ >= 0, the released law —
a density on θ > 0 and a point mass at the boundary θ = 0 — for neighbouring datasets
(docs/privacy.md §15.5).
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest

import dpconvex as dp
from dpconvex.errors import ParameterError, PrivacyError
from dpconvex.objectives import HuberRegression, L2Ball, Logistic, NonNegative
from dpconvex.privacy.mechanisms import get_mechanism
from dpconvex.templates import LinearERMTemplate


def _binary(n=1500, d=4, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = (X[:, 0] - X[:, 1] + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X, y


@pytest.mark.parametrize("constraints,inside", [
    (lambda w: [w >= 0], lambda c: np.all(c >= -1e-9)),
    (lambda w: [cp.norm(w, 2) <= 0.5], lambda c: np.linalg.norm(c) <= 0.5 + 1e-9),
], ids=["orthant", "l2 ball"])
@pytest.mark.parametrize("mechanism", ["objective", "output"])
def test_native_and_clarabel_honour_the_set_and_agree(constraints, inside, mechanism):
    X, y = _binary()
    fits = [dp.PrivateLogisticRegression(epsilon=2.0, mechanism=mechanism, classes=[0, 1],
                                         constraints=constraints, solver=solver,
                                         random_state=0).fit(X, y)
            for solver in ("native", "clarabel")]
    for model in fits:
        assert inside(model.coef_[0])
        assert any(c.name == "parameter set" for c in model.certificate_.conditions)
        assert any("Kifer, Smith & Thakurta" in a for a in model.certificate_.assumptions)
    # the same noise: the two solves reach the same minimizer, within the accuracy both
    # certify (residual <= 1e-6 gives ||θ − θ*|| <= (1 + L) res/μ, a few 1e-5 here)
    np.testing.assert_allclose(fits[0].coef_, fits[1].coef_, atol=1e-3)


def test_a_set_the_solvers_cannot_project_onto_is_refused_by_name():
    X, y = _binary(n=200)
    with pytest.raises(ParameterError, match="must state a set the solvers can honour exactly"):
        dp.PrivateLogisticRegression(classes=[0, 1],
                                     constraints=lambda w: [w[0] + w[1] <= 1]).fit(X, y)


def test_gaussian_objective_perturbation_is_refused_over_a_set():
    X, y = _binary(n=200)
    with pytest.raises(PrivacyError, match="unconstrained minimizer"):
        dp.PrivateLogisticRegression(classes=[0, 1], delta=1e-5, mechanism="gaussian_objective",
                                     constraints=lambda w: [w >= 0]).certify(X, y)


def test_the_regressor_states_its_set_in_the_labels_units():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 3)) / 2
    y = 50 + 20 * X[:, 0] - 20 * X[:, 1] + rng.normal(size=3000)
    reg = dp.PrivateLinearRegressor(epsilon=2.0, label_range=(0, 100), random_state=0,
                                    constraints=lambda w: [cp.norm(w, 2) <= 10.0]).fit(X, y)
    assert np.linalg.norm(reg.coef_) <= 10.0 + 1e-6


def _boundary_law(template, cal, theta):
    """log density on θ > 0 and log mass at θ = 0 of objective perturbation over θ >= 0."""
    n, delta, beta = template.n, cal.extra_strong_convexity, cal.noise_rate
    dens = []
    for t in theta:
        grad = template.objective(np.array([t]), None, delta)[1][0]
        hess = template.hessian(np.array([t]), delta)[0, 0]
        dens.append(-beta * abs(n * grad) + np.log(n * hess))
    # θ = 0 is the minimizer iff J'(0) + b/n >= 0, i.e. b >= t0 = -n J'(0)
    t0 = -n * template.objective(np.zeros(1), None, delta)[1][0]
    mass = 0.5 * np.exp(-beta * t0) if t0 >= 0 else 1.0 - 0.5 * np.exp(beta * t0)
    return np.array(dens), np.log(mass)


@pytest.mark.parametrize("loss", [Logistic(), HuberRegression(0.5, (-1.0, 1.0))],
                         ids=["logistic", "huber_regression"])
def test_exact_privacy_loss_over_the_orthant_is_at_most_epsilon(loss):
    eps = 1.0
    regression = loss.kind == "regression"
    X = np.array([[0.3], [-0.7], [1.0]])
    y = np.array([0.2, -0.5, 0.9]) if regression else np.array([1.0, -1.0, 1.0])
    theta = np.concatenate([np.geomspace(1e-8, 40, 3000), [1e4]])
    worst = 0.0
    corners = [(-1.0, -1.0), (-1.0, 1.0), (1.0, -1.0), (1.0, 1.0), (0.0, 1.0)]
    for x_new, y_new in corners:
        X2, y2 = X.copy(), y.copy()
        X2[-1, 0], y2[-1] = x_new, y_new
        a = LinearERMTemplate(loss, 0.05, 1.0, X, y, constraint_set=NonNegative())
        b = LinearERMTemplate(loss, 0.05, 1.0, X2, y2, constraint_set=NonNegative())
        cal = get_mechanism("objective").calibrate(a, dp.Budget(eps))
        da, ma = _boundary_law(a, cal, theta)
        db, mb = _boundary_law(b, cal, theta)
        worst = max(worst, float(np.max(np.abs(da - db))), abs(ma - mb))
    assert worst <= eps * (1 + 1e-9), worst
    assert worst > 0.3 * eps


def test_a_template_over_a_ball_releases_inside_it_with_native_projected_gradient():
    X, y = _binary(n=400)
    signs = np.where(y == 1, 1.0, -1.0)
    t = LinearERMTemplate(Logistic(), 0.1, 1.0, X, signs, constraint_set=L2Ball(0.5))
    rel = dp.release(t, "output", dp.Budget(1.0), rng=0)
    assert np.linalg.norm(rel.theta) <= 0.5 + 1e-9     # the noisy output, projected
    assert "projection" in t.capabilities and "smooth" not in t.capabilities
