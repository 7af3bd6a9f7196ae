"""Linear ERM: backends agree, the ε = ∞ limit, and no release from a bad solve."""

import numpy as np
import pytest
from _helpers import patch_noise
from sklearn.linear_model import LogisticRegression

import dpconvex as dp
from dpconvex.errors import DataValidationError
from dpconvex.objectives.losses import HuberHinge, Logistic, SmoothHinge
from dpconvex.solvers import LbfgsNewton, solve
from dpconvex.solvers.registry import SolveResult, SolveStatus
from dpconvex.templates.linear_erm import LinearERMTemplate


def _data(n=300, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    w = rng.normal(size=d)
    y = np.where(X @ w + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


@pytest.mark.parametrize("loss", [Logistic(), HuberHinge(0.5), HuberHinge(0.1)])
def test_backends_agree_to_1e5(loss):
    X, y = _data()
    t = LinearERMTemplate(loss, 1e-2, 1.0, X, y)
    b = np.random.default_rng(3).normal(size=X.shape[1])
    sols = {s: solve(t, b, 0.0, solver=s) for s in ("native", "clarabel", "scs")}
    ref = sols["native"].x
    for s, r in sols.items():
        assert r.residual < 1e-6, s
        assert np.max(np.abs(r.x - ref)) < 1e-5, s
        assert r.objective == pytest.approx(sols["native"].objective, rel=1e-7)


def test_zero_noise_equals_nonprivate_minimizer_and_sklearn():
    """ε = ∞ limit: with b = 0 objective perturbation solves the non-private problem.

    Oracle: scikit-learn's LogisticRegression with C = 1/(nΛ) and the intercept as a
    (penalized) column minimizes the same objective scaled by 1/Λ.
    """
    X, y = _data(n=400, d=5, seed=1)
    n, lam = X.shape[0], 1e-2
    t = LinearERMTemplate(Logistic(), lam, 1.0, X, y)
    w_native = solve(t, np.zeros(5), 0.0, solver="native").x
    w_clar = solve(t, None, 0.0, solver="clarabel").x
    sk = LogisticRegression(C=1 / (n * lam), fit_intercept=False, tol=1e-12, max_iter=10000)
    w_sk = sk.fit(X, y).coef_[0]
    assert np.max(np.abs(w_native - w_sk)) < 1e-5
    assert np.max(np.abs(w_clar - w_sk)) < 1e-5


def test_estimator_none_equals_objective_with_zero_noise(monkeypatch):
    X, y = _data(seed=2)
    ref = dp.PrivateLogisticRegression(mechanism="none", lam=1e-2).fit(X, y)
    patch_noise(monkeypatch, lambda shape, beta, rng, symmetric=False: np.zeros(shape))
    m = dp.PrivateLogisticRegression(mechanism="objective", epsilon=50.0, lam=1e-2,
                                     random_state=0).fit(X, y)
    assert m.certificate_.quantities["extra regularization Delta"] == 0
    assert np.allclose(m.coef_, ref.coef_, atol=1e-7)
    assert not ref.certificate_.private and m.certificate_.private


def test_smooth_hinge_native_matches_direct_minimization():
    X, y = _data(seed=4)
    t = LinearERMTemplate(SmoothHinge(0.5), 1e-2, 1.0, X, y)
    r = solve(t, None, 0.0, solver="native")
    from scipy.optimize import minimize
    ref = minimize(lambda w: t.objective(w, np.zeros(6), 0.0)[0], np.zeros(6), method="Nelder-Mead",
                   options={"xatol": 1e-10, "fatol": 1e-14, "maxiter": 40000, "maxfev": 40000})
    assert r.objective <= ref.fun + 1e-10
    with pytest.raises(dp.ParameterError, match="native"):
        dp.PrivateHuberSVM(loss="smooth_hinge", solver="clarabel", random_state=0).fit(X, y)


@pytest.mark.parametrize("status,residual", [
    (SolveStatus.FAILED, np.inf), (SolveStatus.INACCURATE, 1e-2), (SolveStatus.MAX_ITERATIONS, 1e-3),
])
def test_no_release_from_failed_or_inaccurate_solve(monkeypatch, status, residual):
    X, y = _data()

    def bad_solve(self, template, b, extra_reg, *, warm_start=None, max_iter=None):
        return SolveResult(np.zeros(template.p), status, 0.0, residual, "native")

    monkeypatch.setattr(LbfgsNewton, "solve", bad_solve)
    for mech in ("objective", "output", "none"):
        est = dp.PrivateLogisticRegression(mechanism=mech, random_state=0)
        with pytest.raises(dp.SolverError, match="no model is released"):
            est.fit(X, y)
        assert not hasattr(est, "coef_")


def test_labels_of_any_type_and_api():
    X, y = _data(seed=5)
    ys = np.where(y > 0, "spam", "ham")
    m = dp.PrivateHuberSVM(epsilon=2.0, random_state=0).fit(X, ys)
    assert set(m.predict(X)) <= {"spam", "ham"}
    assert list(m.classes_) == ["ham", "spam"]
    assert m.coef_.shape == (1, 6) and m.intercept_.shape == (1,)
    assert 0 <= m.score(X, ys) <= 1
    assert m.get_params()["epsilon"] == 2.0
    m.set_params(epsilon=0.5)
    assert m.epsilon == 0.5
    assert m.certificate_.epsilon <= 2.0
    d = m.certificate_.to_dict()
    assert d["epsilon"] <= 2.0 and d["conditions"]
    assert m.certificate_.mechanism_name == "objective"


def test_certificate_never_above_request_across_regimes():
    X, y = _data(n=50, seed=6)
    for eps in (0.01, 0.1, 1.0, 10.0):
        for lam in (1e-4, 1e-2, 1.0):
            for mech in ("objective", "output"):
                m = dp.PrivateLogisticRegression(epsilon=eps, lam=lam, mechanism=mech,
                                                 random_state=0).fit(X, y)
                assert m.certificate_.epsilon <= eps
                assert m.certificate_.all_hold


def test_private_fit_is_random_unless_seeded():
    X, y = _data(seed=7)
    a = dp.PrivateLogisticRegression(random_state=3).fit(X, y).coef_
    b = dp.PrivateLogisticRegression(random_state=3).fit(X, y).coef_
    c = dp.PrivateLogisticRegression().fit(X, y).coef_
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_clipping_uses_public_bound_only():
    X, y = _data(seed=8)
    X2 = X.copy()
    X2[0] *= 1000  # one huge row: it is clipped, the others are untouched
    t1 = dp.PrivateLogisticRegression(mechanism="none").fit(X, y)
    t2 = dp.PrivateLogisticRegression(mechanism="none").fit(X2, y)
    # row 0 had norm <= 1 in X and is clipped back to norm 1 along the same direction in X2
    assert np.linalg.norm(t1.coef_ - t2.coef_) < 0.5
    # the noise calibration reads only public constants: the huge row changes nothing in it
    # (private fits: a non-private certificate has no quantities to compare)
    t1 = dp.PrivateLogisticRegression(random_state=0).fit(X, y)
    t2 = dp.PrivateLogisticRegression(random_state=0).fit(X2, y)
    assert t1.certificate_.quantities and t2.certificate_.quantities
    assert t1.certificate_.quantities == t2.certificate_.quantities


def test_new_noise_resolves_the_same_compiled_problem():
    """The noise is a cvxpy.Parameter: a new draw changes the solution, not the problem object."""
    X, y = _data(seed=9)
    t = LinearERMTemplate(Logistic(), 1e-2, 1.0, X, y)
    r1 = solve(t, np.ones(6), 0.0, solver="clarabel")
    prob = t.cvxpy_problem()["problem"]
    r2 = solve(t, -np.ones(6), 0.5, solver="clarabel")
    assert t.cvxpy_problem()["problem"] is prob
    assert prob.is_dpp()
    assert np.linalg.norm(r1.x - r2.x) > 1e-3
    for b, extra, r in ((np.ones(6), 0.0, r1), (-np.ones(6), 0.5, r2)):
        assert np.linalg.norm(t.objective(r.x, b, extra)[1]) < 1e-6


@pytest.mark.parametrize("case", ["no rows", "1-D rows", "one label short", "text rows", "NaN row",
                                  "NaN label", "text labels"])
def test_rows_and_labels_a_user_gives_the_template_are_checked_before_any_noise(case):
    """The low-level path (docs/guide/custom_objective.md) refuses bad input by name, as the
    estimators do, not with a ZeroDivisionError, a raw ValueError or a misleading solve failure."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.25, 0.25, (20, 3))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    X, y = {"no rows": (X[:0], y[:0]), "1-D rows": (X[:, 0], y), "one label short": (X, y[:-1]),
            "text rows": (X.astype(str), y), "NaN row": (np.where(X > 0.2, np.nan, X), y),
            "NaN label": (X, np.where(y > 0, np.nan, y)), "text labels": (X, y.astype(str))}[case]
    with pytest.raises(DataValidationError, match=r"LinearERMTemplate.__init__: (X|y) "):
        LinearERMTemplate(Logistic(), 0.1, 1.0, X, y)


def test_labels_held_as_objects_that_are_numbers_are_taken():
    """A label column of object dtype (Decimal, numbers in a pandas object column) reads as
    floats, as the estimators take it."""
    from decimal import Decimal

    rng = np.random.default_rng(0)
    X = rng.uniform(-0.25, 0.25, (20, 3))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    labels = np.array([Decimal(int(v)) for v in y], dtype=object)
    template = LinearERMTemplate(Logistic(), 0.1, 1.0, X, labels)
    assert np.array_equal(template.y, y)


def test_labels_changed_after_an_estimators_template_is_built_are_refused_at_release():
    """The template an estimator builds over its signed rows checks its labels at release
    (before any noise), as a template built from a caller's rows does."""
    rng = np.random.default_rng(3)
    X = rng.uniform(-0.5, 0.5, (60, 3))
    est = dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1], random_state=0)
    template = est.prepare(X, (X[:, 0] > 0).astype(int), est._plan(60, 2, 3)).template
    template.y = 10 * template.y
    with pytest.raises(DataValidationError, match=r"\{-1, \+1\}"):
        dp.release(template, "objective", dp.Budget(1.0), dry_run=True)


@pytest.mark.parametrize("loss", [None, "logistic"])
def test_a_loss_that_is_not_a_loss_is_refused_by_name(loss):
    X, y = _data(n=20, d=3)
    with pytest.raises(dp.errors.ParameterError, match=r"'loss' argument of LinearERMTemplate"
                                                       r"\.__init__ must be a Loss"):
        LinearERMTemplate(loss, 0.1, 1.0, X, y)
    with pytest.raises(dp.errors.ParameterError, match=r"LinearERMTemplate\.of_problem must be"):
        LinearERMTemplate.of_problem(loss, 0.1, 1.0, n=20, p=3)
