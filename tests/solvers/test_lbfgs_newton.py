"""Native linear-ERM solver: sparse products, Hessian-vector products, Newton-CG, warm starts.

Oracles: the dense NumPy formulas (gradient and Hessian of the template written
out independently), central finite differences, and the CVXPY + Clarabel solve.
"""

import numpy as np
import pytest

from dpconvex.objectives.losses import HuberHinge, Logistic, SmoothHinge
from dpconvex.solvers import lbfgs_newton, solve
from dpconvex.templates.linear_erm import LinearERMTemplate

LOSSES = [Logistic(), HuberHinge(0.5), SmoothHinge(0.5)]


def _sparse_data(n=3000, p=60, density=0.08, seed=0):
    """One-hot-like rows: few non-zeros per row, norm <= 1."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) * (rng.uniform(size=(n, p)) < density)
    X[:, -1] = 1.0  # a constant column, as with an intercept
    X /= np.linalg.norm(X, axis=1)[:, None]
    y = np.where(X @ rng.normal(size=p) + 0.2 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


def _dense_reference(loss, X, y, w, b, reg):
    """J, ∇J and ∇²J written out with dense arrays, independently of the template."""
    n = len(y)
    m = y * (X @ w)
    J = np.mean(loss.value(m)) + 0.5 * reg * w @ w + b @ w / n
    g = X.T @ (y * loss.deriv(m)) / n + reg * w + b / n
    H = X.T @ (X * loss.deriv2(m)[:, None]) / n + reg * np.eye(len(w))
    return J, g, H


@pytest.mark.parametrize("loss", LOSSES, ids=lambda lo: lo.name)
def test_sparse_products_match_dense_formulas(loss):
    X, y = _sparse_data()
    t = LinearERMTemplate(loss, 1e-3, 1.0, X, y)
    assert t.sparse, "8% non-zero rows must take the sparse path"
    rng = np.random.default_rng(1)
    w, b, v = rng.normal(size=(3, X.shape[1]))
    J, g, H = _dense_reference(loss, X, y, w, b, 2e-3)
    Jt, gt = t.objective(w, b, 1e-3)  # extra_reg Δ = 1e-3: Λ + Δ = 2e-3
    assert Jt == pytest.approx(J, rel=1e-12)
    np.testing.assert_allclose(gt, g, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(t.hessian(w, 1e-3), H, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(t.hessp(w, 1e-3)(v), H @ v, rtol=1e-10, atol=1e-14)


def test_dense_data_stays_dense():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 40))
    X /= np.linalg.norm(X, axis=1)[:, None]
    t = LinearERMTemplate(Logistic(), 1e-2, 1.0, X, np.sign(X[:, 0]) + (X[:, 0] == 0))
    assert not t.sparse


@pytest.mark.parametrize("loss", [Logistic(), SmoothHinge(0.5)], ids=lambda lo: lo.name)
def test_hessp_is_the_derivative_of_the_gradient(loss):
    """Central finite differences of ∇J along v (C² losses; error O(h²) ≈ 1e-10)."""
    X, y = _sparse_data(n=500, p=20, density=0.3)
    t = LinearERMTemplate(loss, 1e-2, 1.0, X, y)
    rng = np.random.default_rng(2)
    w, b, v = rng.normal(size=(3, X.shape[1]))
    h = 1e-5
    fd = (t.objective(w + h * v, b, 0.0)[1] - t.objective(w - h * v, b, 0.0)[1]) / (2 * h)
    np.testing.assert_allclose(t.hessp(w, 0.0)(v), fd, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("loss", LOSSES, ids=lambda lo: lo.name)
def test_newton_cg_path_reaches_the_cvxpy_minimizer(monkeypatch, loss):
    """Above the dense-Hessian size the polish is Newton-CG on Hessian-vector products."""
    monkeypatch.setattr(lbfgs_newton, "_DENSE_HESSIAN_MAX_P", 10)
    X, y = _sparse_data(n=1500, p=40, density=0.2)
    t = LinearERMTemplate(loss, 1e-4, 1.0, X, y)
    b = np.random.default_rng(3).normal(size=X.shape[1])
    r = solve(t, b, 0.0)
    assert r.info["method"].endswith("Newton-CG polish")
    assert r.info["newton_steps"] >= 1
    assert r.residual <= 1e-8
    if loss.has_cvxpy:
        ref = solve(t, b, 0.0, solver="clarabel")
        # both within residual/μ of the exact minimizer; Clarabel's residual is ~1e-8
        assert np.max(np.abs(r.x - ref.x)) <= 2 * max(ref.residual, r.residual) / 1e-4 + 1e-9


def test_newton_cg_never_needs_the_dense_hessian(monkeypatch):
    monkeypatch.setattr(lbfgs_newton, "_DENSE_HESSIAN_MAX_P", 10)
    X, y = _sparse_data(n=800, p=30, density=0.3)
    t = LinearERMTemplate(Logistic(), 1e-4, 1.0, X, y)

    def boom(*a, **k):
        raise AssertionError("dense Hessian formed above _DENSE_HESSIAN_MAX_P")

    monkeypatch.setattr(t, "hessian", boom)
    assert solve(t, np.ones(30), 0.0).residual <= 1e-8


def test_warm_start_at_the_minimizer_takes_no_iteration_and_does_not_alias():
    X, y = _sparse_data(n=800, p=30)
    t = LinearERMTemplate(Logistic(), 1e-2, 1.0, X, y)
    b = np.ones(30)
    r = solve(t, b, 0.0)
    x0 = r.x.copy()
    again = solve(t, b, 0.0, warm_start=x0)
    assert again.iterations == 0 and again.residual == pytest.approx(r.residual)
    again.x[0] += 1.0
    assert x0[0] == r.x[0], "the solver returned the caller's warm-start array"


def test_warm_start_elsewhere_reaches_the_same_minimizer():
    X, y = _sparse_data(n=800, p=30)
    t = LinearERMTemplate(HuberHinge(0.5), 1e-2, 1.0, X, y)
    b = np.ones(30)
    cold = solve(t, b, 0.0)
    warm = solve(t, b, 0.0, warm_start=np.full(30, 5.0))
    assert warm.residual <= 1e-8
    assert np.max(np.abs(warm.x - cold.x)) <= 2e-8 / 1e-2


def test_a_capped_solve_reports_inaccurate():
    """A cap that stops the solve early gives INACCURATE, never OPTIMAL."""
    X, y = _sparse_data(n=800, p=30)
    t = LinearERMTemplate(Logistic(), 1e-4, 1.0, X, y)
    r = lbfgs_newton.LbfgsNewton().solve(t, np.ones(30), max_iter=2)
    assert r.status.value == "inaccurate" and r.residual > 1e-8


@pytest.mark.parametrize("solver", ["clarabel", "scs"])
def test_cvxpy_backends_accept_the_sparse_rows(solver):
    """The CVXPY problem is built on the same (CSR) matrix as the native products."""
    X, y = _sparse_data(n=2000, p=40, density=0.1)
    t = LinearERMTemplate(HuberHinge(0.5), 1e-2, 1.0, X, y)
    assert t.sparse
    b = np.ones(40)
    native, other = solve(t, b, 0.0), solve(t, b, 0.0, solver=solver)
    assert other.residual <= 1e-6
    assert np.max(np.abs(native.x - other.x)) <= 2 * max(native.residual, other.residual) / 1e-2


def test_each_product_reads_the_rows_once(monkeypatch):
    """The gradient is Xᵀℓ′(Xw) in one pass over the rows (the two products fused per block), the
    Hessian at the point of the last gradient reuses its margins, and a Hessian-vector
    product is one fused pass too."""
    X, y = _sparse_data(n=5000, p=10, density=0.5)
    t = LinearERMTemplate(Logistic(), 1e-2, 1.0, X, y)
    calls = []
    for name in ("matvec", "rmatvec", "matvec_rmatvec", "weighted_gram"):
        inner = getattr(t._ops, name)
        monkeypatch.setattr(t._ops, name, lambda *a, _f=inner, _n=name: calls.append(_n) or _f(*a))
    w, v = np.full(10, 0.3), np.ones(10)
    val, grad = t.objective(w)
    H = t.hessian(w.copy())
    Hv = t.hessp(w)(v)
    assert calls == ["matvec_rmatvec", "weighted_gram", "matvec_rmatvec"]
    ref_val, ref_grad, ref_H = _dense_reference(Logistic(), X, y, w, np.zeros(10), 1e-2)
    np.testing.assert_allclose([val, *grad], [ref_val, *ref_grad], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(H, ref_H, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(Hv, ref_H @ v, rtol=1e-12, atol=1e-14)


def _many_rows(n=4000, p=5, seed=0):
    """Dense rows of norm <= 1, n >= 800 p: the template offers its sampled Hessian."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = np.where(X @ rng.normal(size=p) + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


@pytest.mark.parametrize("loss", LOSSES, ids=lambda lo: lo.name)
def test_the_sampled_hessian_is_that_of_every_kth_row(loss):
    X, y = _many_rows()
    t = LinearERMTemplate(loss, 1e-3, 1.0, X, y)
    assert "sampled_hessian" in t.capabilities
    w = np.random.default_rng(1).normal(size=5)
    Xs, ys = X[::8], y[::8]  # n // (100 p) = 8 rows apart
    m = ys * (Xs @ w)
    ref = Xs.T @ (Xs * loss.deriv2(m)[:, None]) / len(ys) + 3e-3 * np.eye(5)
    np.testing.assert_allclose(t.sampled_hessian(w, 2e-3), ref, rtol=1e-12, atol=1e-15)
    bound = loss.curvature * Xs.T @ Xs / len(ys) + 3e-3 * np.eye(5)
    np.testing.assert_allclose(t.sampled_hessian(w, 2e-3, bound=True), bound, rtol=1e-12)


def test_few_rows_per_coefficient_offer_no_sampled_hessian():
    X, y = _many_rows(n=3000)  # 3000 // (100 p) = 6 < 8: a full Gram costs little here
    assert "sampled_hessian" not in LinearERMTemplate(Logistic(), 1e-3, 1.0, X, y).capabilities


@pytest.mark.parametrize("loss", LOSSES, ids=lambda lo: lo.name)
def test_sampled_newton_steps_reach_the_minimizer_of_the_full_objective(loss):
    """Directions from sampled Hessians, exact gradients: the stopping rule is unchanged."""
    X, y = _many_rows()
    t = LinearERMTemplate(loss, 1e-3, 1.0, X, y)
    b = np.random.default_rng(2).normal(size=5)
    r = solve(t, b, 0.0)
    assert r.info["sampled_newton_steps"] >= 1 and r.info["lbfgs_phases"] == 0
    assert r.residual <= 1e-8
    t.capabilities = t.capabilities - {"sampled_hessian"}
    ref = solve(t, b, 0.0)
    assert ref.info["sampled_newton_steps"] == 0
    assert np.max(np.abs(r.x - ref.x)) <= 2 * 1e-8 / 1e-3


def test_sampled_newton_hands_over_to_lbfgs_when_its_directions_fail(monkeypatch):
    """A sampled Hessian that gives no descent direction: L-BFGS and the polish finish."""
    X, y = _many_rows()
    t = LinearERMTemplate(Logistic(), 1e-3, 1.0, X, y)
    monkeypatch.setattr(t, "sampled_hessian", lambda w, extra_reg=0.0, bound=False: -np.eye(5))
    r = solve(t, np.ones(5), 0.0)
    assert r.info["sampled_newton_steps"] == 0 and r.info["lbfgs_phases"] >= 1
    assert r.residual <= 1e-8
