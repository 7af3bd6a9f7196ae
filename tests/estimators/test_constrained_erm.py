"""Constrained private ERM: a public convex set on the coefficients, honoured by every backend.

Objective perturbation over a closed convex set is Kifer, Smith & Thakurta (COLT 2012): for
a loss of rank-one per-record Hessians the calibration of the unconstrained case holds. The
exact privacy-loss check below computes, in one dimension over θ >= 0, the released law —
a density on θ > 0 and a point mass at the boundary θ = 0 — for neighbouring datasets
(docs/privacy/user_objectives.md#privacy-constraints).
"""

from __future__ import annotations

import warnings

import cvxpy as cp
import numpy as np
import pytest
import scipy.sparse as sp

import dpconvex as dp
from dpconvex.errors import ParameterError, PrivacyError, SolverError
from dpconvex.objectives import CVXPYSet, HuberRegression, L2Ball, Logistic, NonNegative
from dpconvex.privacy.certificate import ParameterSet
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
    # the unconstrained fit on these data (either mechanism) has a coefficient below 0 and
    # a norm above 4, eight times the ball's radius: outside both sets
    X, y = _binary(n=400)
    fits = [dp.PrivateLogisticRegression(epsilon=2.0, mechanism=mechanism, classes=[0, 1],
                                         constraints=constraints, solver=solver,
                                         random_state=0).fit(X, y)
            for solver in ("native", "clarabel")]
    for model in fits:
        assert inside(model.coef_[0])
        assert any(c.name == "parameter set" for c in model.certificate_.conditions)
        assert model.certificate_.line(ParameterSet) is not None  # the KST line over the set
    # the same noise: the two solves reach the same minimizer, within the accuracy both
    # certify (residual <= 1e-6 gives ||θ − θ*|| <= (1 + L) res/μ, a few 1e-5 here)
    np.testing.assert_allclose(fits[0].coef_, fits[1].coef_, atol=1e-3)


def test_native_projected_newton_and_clarabel_agree_over_a_set_stated_in_cvxpy():
    # the unconstrained fit on these data has w[0] - w[1] above 5: the set binds
    X, y = _binary(n=400)
    fits = [dp.PrivateLogisticRegression(epsilon=2.0, mechanism="objective", classes=[0, 1],
                                         constraints=lambda w: [w[0] - w[1] <= 4, w[2] >= 0],
                                         solver=solver, random_state=0).fit(X, y)
            for solver in ("native", "clarabel")]
    for model in fits:
        assert model.coef_[0][0] - model.coef_[0][1] <= 4 + _FEASIBLE
        assert model.coef_[0][2] >= -_FEASIBLE
    assert fits[0].certificate_.solver["backend"] == "native"
    # the same noise: the same minimizer over the set, within what both accuracy checks
    # (natural residual <= 1e-6) leave, under 1e-3 here
    np.testing.assert_allclose(fits[0].coef_, fits[1].coef_, atol=1e-3)


@pytest.mark.parametrize("solver", [None, "auto"])
def test_a_set_stated_in_cvxpy_goes_to_the_native_solver_without_a_cost_warning(solver):
    X, y = _binary(n=200)
    with warnings.catch_warnings():
        warnings.simplefilter("error", dp.SolverCostWarning)
        model = dp.PrivateLogisticRegression(classes=[0, 1], solver=solver, random_state=0,
                                             constraints=lambda w: [w[0] + w[1] <= 1]).fit(X, y)
    assert model.coef_[0][0] + model.coef_[0][1] <= 1 + _FEASIBLE
    assert model.certificate_.solver["backend"] == "native"


def test_the_certificate_of_a_native_fit_names_the_set_and_the_projection_accuracy():
    X, y = _binary(n=300, d=3)
    model = dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1], random_state=0,
                                         constraints=_POLYHEDRON[0]).fit(X, y)
    stated = [c.detail for c in model.certificate_.conditions if c.name == "parameter set"]
    assert len(stated) == 1 and "@ w[0:3] <=" in stated[0]
    assert "projection solved by SCS to residuals <= 1e-11" in stated[0]
    assert "counted as a distance of 1e-09" in stated[0]
    stated_set = model.certificate_.line(ParameterSet)
    # the slack the set declares, copied as it is (not computed): 1e-9 up to rounding
    assert not stated_set.exact_projection and stated_set.projection_tol == pytest.approx(1e-9)


def test_a_projection_that_cannot_reach_the_tolerance_releases_nothing(monkeypatch):
    # a projection counted at 1e-5 (above the release's 1e-6): no solve can pass the check
    X, y = _binary(n=300, d=3)
    monkeypatch.setattr(CVXPYSet, "projection_tol", 1e-5)
    ledger = dp.BudgetAccountant(epsilon=2.0)
    for solver in ("native", "clarabel"):
        model = dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1], random_state=0,
                                             solver=solver, accountant=ledger,
                                             constraints=_POLYHEDRON[0])
        with pytest.raises(SolverError, match="did not reach the tolerance 1e-06"):
            model.fit(X, y)
        assert not hasattr(model, "coef_")
    # the projection is of the noisy objective's solution: a refusal after the noise is
    # charged, each fit's epsilon (docs/privacy/messages.md#privacy-refusal-charge)
    assert ledger.spent == (2.0, 0.0)


def test_a_projection_scs_leaves_unsolved_releases_nothing(monkeypatch):
    # SCS capped at 2 iterations: no projection ends "solved", and the fit refuses
    import dpconvex.objectives.sets as sets

    X, y = _binary(n=300, d=3)
    monkeypatch.setattr(sets, "PROJECTION_MAX_ITERS", 2)
    model = dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1], random_state=0,
                                         constraints=_POLYHEDRON[0])
    with pytest.raises((SolverError, PrivacyError), match="nothing is released|no model is released"):
        model.fit(X, y)
    assert not hasattr(model, "coef_")


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
@pytest.mark.parametrize("points", [300, pytest.param(3000, marks=pytest.mark.slow)])
def test_exact_privacy_loss_over_the_orthant_is_at_most_epsilon(loss, points):
    # the density ratio on a geometric grid of released θ > 0 (300 points in the fast suite,
    # 3000 marked slow) and the ratio of the masses at θ = 0
    eps = 1.0
    regression = loss.kind == "regression"
    X = np.array([[0.3], [-0.7], [1.0]])
    y = np.array([0.2, -0.5, 0.9]) if regression else np.array([1.0, -1.0, 1.0])
    theta = np.concatenate([np.geomspace(1e-8, 40, points), [1e4]])
    worst = 0.0
    # the table, its calibration and its law are the same against every neighbour
    a = LinearERMTemplate(loss, 0.05, 1.0, X, y, constraint_set=NonNegative())
    cal = get_mechanism("objective").calibrate(a, dp.Budget(eps))
    da, ma = _boundary_law(a, cal, theta)
    corners = [(-1.0, -1.0), (-1.0, 1.0), (1.0, -1.0), (1.0, 1.0), (0.0, 1.0)]
    for x_new, y_new in corners:
        X2, y2 = X.copy(), y.copy()
        X2[-1, 0], y2[-1] = x_new, y_new
        b = LinearERMTemplate(loss, 0.05, 1.0, X2, y2, constraint_set=NonNegative())
        db, mb = _boundary_law(b, cal, theta)
        worst = max(worst, float(np.max(np.abs(da - db))), abs(ma - mb))
    assert worst <= eps * (1 + 1e-9), worst
    assert worst > 0.3 * eps, worst


def test_a_template_over_a_ball_releases_inside_it_with_native_projected_gradient():
    X, y = _binary(n=400)
    signs = np.where(y == 1, 1.0, -1.0)
    t = LinearERMTemplate(Logistic(), 0.1, 1.0, X, signs, constraint_set=L2Ball(0.5))
    rel = dp.release(t, "output", dp.Budget(1.0), rng=0)
    assert np.linalg.norm(rel.theta) <= 0.5 + 1e-9     # the noisy output, projected
    assert "projection" in t.capabilities and "smooth" not in t.capabilities


# ---------------------------------------------------------------- sets stated in CVXPY only
#: A polyhedron (a matrix: not recognized) and the ball ∩ orthant (two sets on the same
#: coordinates: not recognized), on d = 3 coefficients.
_A = np.array([[1.0, 1.0, 0.0], [0.0, -1.0, 1.0], [-1.0, 0.0, 0.0]])
_B = np.array([0.3, 0.2, 0.1])
_POLYHEDRON = (lambda w: [_A @ w <= _B], lambda c: _A @ c - _B)
_BALL_ORTHANT = (lambda w: [cp.norm(w, 2) <= 0.5, w >= 0],
                 lambda c: np.append(-c, np.linalg.norm(c) - 0.5))
#: A solver's point meets its constraints within its feasibility tolerance (relative 1e-9
#: to 1e-10 for SCS and Clarabel, on coefficients and noisy outputs of norm < 100 here).
_FEASIBLE = 1e-7


def _ball_orthant_projection(x):
    """Π onto {||w|| <= 0.5} ∩ {w >= 0}: for a cone K and a ball at its apex, Π_B(Π_K(x))."""
    v = np.maximum(x, 0.0)
    return v * min(1.0, 0.5 / max(np.linalg.norm(v), 1e-300))


@pytest.mark.parametrize("stated", [_POLYHEDRON, _BALL_ORTHANT], ids=["A w <= b", "ball and orthant"])
def test_the_cvxpy_backends_honour_any_dcp_set(stated):
    # the unconstrained fit on these data misses both sets by more than 3
    constraints, slack = stated
    X, y = _binary(n=400, d=3)
    fits = [dp.PrivateLogisticRegression(epsilon=2.0, mechanism="objective", classes=[0, 1],
                                         constraints=constraints, solver=solver,
                                         random_state=0).fit(X, y)
            for solver in ("clarabel", "scs")]
    for model in fits:
        assert np.all(slack(model.coef_[0]) <= _FEASIBLE)
        assert not model.certificate_.line(ParameterSet).exact_projection  # a CVXPY set
    # the same noise: both reach the minimizer over the set, within what the residual check
    # <= 1e-6 leaves (|| . || <= (1 + L)/μ · 1e-6, under 1e-3 here)
    np.testing.assert_allclose(fits[0].coef_, fits[1].coef_, atol=1e-3)


@pytest.mark.parametrize("mechanism, delta", [("output", 0.0), ("gaussian_output", 1e-6)])
def test_output_perturbation_over_a_set_stated_in_cvxpy_is_refused(mechanism, delta):
    # no residual bounds the distance to the minimizer over the set: the noise covers no solve
    X, y = _binary(n=200, d=3)
    model = dp.PrivateLogisticRegression(epsilon=1.0, delta=delta, mechanism=mechanism,
                                         classes=[0, 1], constraints=_POLYHEDRON[0],
                                         random_state=0)
    with pytest.raises(dp.PrivacyError, match="Use objective perturbation"):
        model.fit(X, y)
    assert not hasattr(model, "coef_")


def test_the_certificate_states_the_cvxpy_set():
    X, y = _binary(n=300, d=3)
    model = dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1], solver="clarabel",
                                         constraints=_POLYHEDRON[0], random_state=0).fit(X, y)
    cert = model.certificate_
    stated = [c.detail for c in cert.conditions if c.name == "parameter set"]
    assert len(stated) == 1 and "stated in CVXPY" in stated[0] and "@ w[0:3] <=" in stated[0]
    assert not cert.line(ParameterSet).exact_projection
    solve = [c.detail for c in cert.conditions if c.name == "accurate solve"]
    assert "uncovered gap is not stated" in solve[0]


def test_the_projection_onto_a_cvxpy_set_matches_the_closed_form():
    w = cp.Variable(4)
    s = CVXPYSet(_BALL_ORTHANT[0](w), w)
    rng = np.random.default_rng(3)
    for x in [rng.normal(size=4) * scale for scale in (0.01, 1.0, 100.0)]:
        # SCS to 1e-11 (its residuals): within 1e-7 of the exact point at these scales
        np.testing.assert_allclose(s.project(x), _ball_orthant_projection(x), atol=1e-7)
    assert not s.exact_projection and s.contains(np.array([0.3, 0.0, 0.2, 0.1]))


def test_a_failed_projection_refuses_with_one_text_whatever_the_solvers_statuses(monkeypatch):
    # the accuracy check projects theta - grad J(theta), a point read from the data: how the
    # projection's solve ends must not reach the text (docs/privacy/messages.md, SolverError)
    import dpconvex.objectives.sets as sets

    class Unsolved:
        def __init__(self, status):
            self.status = status

        def solve(self, warm_start=False):
            return {"x": np.zeros(3), "info": {"status": self.status, "iter": 7}}

    w = cp.Variable(2)
    s = CVXPYSet([w[0] + 2 * w[1] <= 1, w >= -5], w)
    texts = []
    for outcome in ("solved_inaccurate", "infeasible"):
        monkeypatch.setattr(sets.CompiledSetQP, "_solver",
                            lambda self, P, c, outcome=outcome: Unsolved(outcome))
        s._qp = None
        with dp.collect_diagnostics() as diag, pytest.raises(SolverError) as caught:
            s.project(np.array([3.0, 4.0]))
        texts.append(str(caught.value))
        assert outcome not in texts[-1]
        assert outcome in diag.note("projection: SCS status").what
    assert texts[0] == texts[1] and "collect_diagnostics" in texts[0]


@pytest.mark.parametrize("constraints,message", [
    (lambda w: [w >= cp.Parameter(3, value=np.zeros(3))], "holds a cvxpy.Parameter"),
    (lambda w: [cp.norm(w, 2) >= 1], "does not follow CVXPY's DCP rules"),
    (lambda w: [w >= 1, cp.sum(w) <= 0], "found no point in the set"),
    (lambda w: [cp.Variable(3) >= w], "not on the parameter variable alone"),
    (lambda w: [], "must return a CVXPY constraint or a non-empty list"),
    # DCP by CVXPY's reckoning, but compiled with integer variables a cone solver drops
    (lambda w: [cp.FiniteSet(w, [-1.0, 0.0, 1.0])], "is a cvxpy FiniteSet, which a parameter "
                                                     "set does not hold"),
    (lambda w: [cp.FiniteSet(w[0], [-1.0, 1.0]), w <= 5], "is a cvxpy FiniteSet"),
    (lambda w: [cp.transforms.indicator([cp.FiniteSet(w, [-1.0, 1.0])]) <= 0],
     "holds cvxpy's indicator, which carries constraints of its own"),
    # a variable with attributes the compile would drop (or hold apart from the set stated)
    (lambda w: [w == cp.Variable(3, boolean=True)], "not on the parameter variable alone"),
    (lambda w: [w == cp.Variable(3, integer=True)], "not on the parameter variable alone"),
    (lambda w: [w == cp.Variable(3, bounds=[0, 1])], "not on the parameter variable alone"),
    (lambda w: [w == cp.Variable(3, nonneg=True)], "not on the parameter variable alone"),
], ids=["parameter", "not DCP", "infeasible", "other variable", "empty", "finite set",
        "finite set and a box", "indicator of a finite set", "boolean variable",
        "integer variable", "bounded variable", "nonneg variable"])
def test_a_cvxpy_set_that_cannot_be_checked_or_is_empty_is_refused(constraints, message):
    X, y = _binary(n=100, d=3)
    with pytest.raises(ParameterError, match=message):
        dp.PrivateLogisticRegression(classes=[0, 1], solver="clarabel",
                                     constraints=constraints).certify(X, y)


@pytest.mark.parametrize("constraints,message", [
    (lambda w: [w >= -1, w <= np.nan], r"'[^']* <= nan' holds a NaN constant"),
    (lambda w: [w >= np.array([0.0, np.nan, 0.0])], r"'\[ 0. nan 0.\] <= [^']*' holds a NaN constant"),
    (lambda w: [w >= -1, cp.sum(w) * 1e308 <= 1], r"'Sum[^']* \* 1e\+308 <= 1.0' holds a constant too large "
                                                  "for float64 arithmetic"),
    (lambda w: [cp.norm(w * 1e200, 2) <= 1], r"'PnormApprox[^']*' holds a constant too large for float64"),
], ids=["NaN bound", "NaN in an array", "overflowing factor", "factor above the root of the float range"])
@pytest.mark.parametrize("model", [
    dp.PrivateLogisticRegression(classes=[0, 1], solver="clarabel"),
    dp.PrivateHuberRegressor(label_range=(0, 10), solver="clarabel"),
], ids=["classifier", "regressor"])
def test_a_cvxpy_set_with_a_constant_that_is_not_a_float64_number_is_refused(constraints, message, model,
                                                                          capfd):
    X, y = _binary(n=100, d=3)
    for call in ("fit", "certify"):
        with pytest.raises(ParameterError, match="^CVXPYSet.__init__: the constraint " + message):
            getattr(model.set_params(constraints=constraints), call)(X, y)
    assert capfd.readouterr() == ("", "")  # nothing printed by a solver


@pytest.mark.parametrize("model", [
    dp.PrivateLogisticRegression(epsilon=2.0, classes=[0, 1], random_state=0),
    dp.PrivateHuberRegressor(epsilon=2.0, label_range=(0, 10), random_state=0),
], ids=["classifier", "regressor"])
@pytest.mark.parametrize("sparse", [sp.csr_matrix, sp.csc_array])
def test_a_set_stated_with_a_scipy_sparse_matrix_is_the_set_of_its_dense_form(model, sparse):
    X, y = _binary(n=200, d=3)
    A = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0]])
    fits = [model.set_params(constraints=lambda w, A=A: [A @ w <= 0.1, cp.norm(A @ w, 2) <= 1])
            .fit(X, y).coef_ for A in (A, sparse(A))]
    assert np.all(A @ np.ravel(fits[1]) <= 0.1 + _FEASIBLE)
    np.testing.assert_allclose(fits[1], fits[0], atol=1e-6)


def test_gaussian_objective_and_approximate_minima_are_refused_over_a_cvxpy_set():
    X, y = _binary(n=200, d=3)
    with pytest.raises(PrivacyError, match="unconstrained minimizer"):
        dp.PrivateLogisticRegression(classes=[0, 1], delta=1e-5, mechanism="gaussian_objective",
                                     solver="clarabel", constraints=_POLYHEDRON[0]).certify(X, y)
    # approximate-minima perturbation covers a distance the residual must bound: here it
    # is measured with a solver's projection and bounds none
    with pytest.raises(PrivacyError, match="bounds no distance"):
        dp.PrivateLogisticRegression(classes=[0, 1], optimality_tol=1e-4, solver="clarabel",
                                     constraints=_POLYHEDRON[0]).certify(X, y)


def test_the_regressor_honours_a_cvxpy_set_in_the_labels_units():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 3)) / 2
    y = 50 + 20 * X[:, 0] - 20 * X[:, 1] + rng.normal(size=600)
    reg = dp.PrivateLinearRegressor(epsilon=2.0, label_range=(0, 100), random_state=0,
                                    solver="clarabel",
                                    constraints=lambda w: [cp.norm(w, 2) <= 10.0, w >= 0]).fit(X, y)
    assert np.linalg.norm(reg.coef_) <= 10.0 + _FEASIBLE * 100 and reg.coef_.min() >= -_FEASIBLE * 100


@pytest.mark.parametrize("loss", [Logistic(), HuberRegression(0.5, (-1.0, 1.0))],
                         ids=["logistic", "huber_regression"])
def test_exact_privacy_loss_of_projected_output_perturbation_is_at_most_epsilon(loss):
    # 1-D: the release is max(0, θ* + b), b Laplace of rate β (the norm-Gamma law at p = 1):
    # a density β/2·exp(-β|t - θ*|) on t > 0 and an atom 1/2·exp(-βθ*) at 0 (θ* >= 0)
    from dpconvex.solvers import solve

    eps = 1.0
    # records on the loss's flat-slope part, so replacing one moves θ* by most of 2G/(nΛ)
    X = np.array([[0.1], [0.1], [1.0]])
    y = np.ones(3)
    t = np.linspace(1e-9, 60.0, 6001)
    worst = 0.0
    for x_new, y_new in [(-1.0, -1.0), (-1.0, 1.0), (1.0, -1.0), (1.0, 1.0), (0.0, 1.0)]:
        X2, y2 = X.copy(), y.copy()
        X2[-1, 0], y2[-1] = x_new, y_new
        a = LinearERMTemplate(loss, 1.0, 1.0, X, y, constraint_set=NonNegative())
        b = LinearERMTemplate(loss, 1.0, 1.0, X2, y2, constraint_set=NonNegative())
        cal = get_mechanism("output").calibrate(a, dp.Budget(eps))
        beta = cal.noise_rate
        ta, tb = (float(solve(tm, None, solver="native").x[0]) for tm in (a, b))
        assert min(ta, tb) >= 0.0
        density = beta * np.abs(np.abs(t - tb) - np.abs(t - ta))
        atom = beta * abs(ta - tb)
        worst = max(worst, float(density.max()), atom)
    assert worst <= eps * (1 + 1e-9), worst
    assert worst > 0.25 * eps, worst  # the minimizers move: the check can fail


def test_a_cvxpy_backends_refusal_over_a_stated_set_names_the_native_solver_first():
    from dpconvex.solvers import retry_advice

    X, y = _binary(n=100, d=3)
    w = cp.Variable(3)
    t = LinearERMTemplate(Logistic(), 0.1, 1.0, X, np.where(y == 1, 1.0, -1.0),
                          constraint_set=CVXPYSet(_POLYHEDRON[0](w), w))
    for failed in ("clarabel", "scs"):
        assert retry_advice(t, failed).startswith("Try solver='native'")
