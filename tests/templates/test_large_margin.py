"""Large-margin Gaussian classifier: backends agree, constants hold, the verifier refuses.

Oracles: an independent CVXPY formulation solved by Clarabel and SCS (objective
to 1e-6 relative), finite differences of the NumPy objective (gradient and
Hessian), closed-form bounds (docs/privacy/large_margin.md#privacy-large-margin), and a seeded KS test on the
noise norm with a stated false-alarm rate.
"""

from __future__ import annotations

import math

import cvxpy as cp
import numpy as np
import pytest
from _helpers import patch_noise, release_template
from scipy import stats

from dpconvex.errors import DataValidationError, PrivacyError, SolverError
from dpconvex.objectives.losses import HuberHinge, Logistic, Loss
from dpconvex.privacy.budget import Budget
from dpconvex.privacy.mechanisms import MECHANISMS
from dpconvex.privacy.verify import verify
from dpconvex.solvers import ClarabelBackend, PolishedBackend, ProjectedGradient, solve
from dpconvex.solvers.registry import SolveResult, SolveStatus
from dpconvex.templates import TEMPLATES
from dpconvex.templates.large_margin import (
    RESIDUAL_TOL,
    LargeMarginGaussianTemplate,
    MatrixTerm,
    augment_and_scale,
    psi_frobenius,
)


def _data(n=150, d=3, C=2, seed=0):
    rng = np.random.default_rng(seed)
    mu = rng.normal(size=(C, d))
    y = np.arange(n) % C
    X = 0.5 * mu[y] + 0.4 * rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    return X, y


def _template(n=150, d=3, C=2, K=1, seed=0, lam=2e-2, gamma=1e-2, **kw):
    X, y = _data(n, d, C, seed)
    comp = np.random.default_rng(seed + 1).integers(0, K, n)
    return LargeMarginGaussianTemplate(augment_and_scale(X, 1.0), y, comp, n_classes=C,
                                       n_components=K, lam=lam, gamma=gamma, **kw)


def _sym_noise(shape, scale, seed):
    b = np.random.default_rng(seed).normal(size=shape) * scale
    return 0.5 * (b + np.swapaxes(b, -1, -2))


def _sym_basis(D):
    """Orthonormal basis of S^D: E_ii and (E_ij + E_ji)/sqrt 2."""
    out = []
    for i in range(D):
        for j in range(i, D):
            E = np.zeros((D, D))
            if i == j:
                E[i, i] = 1.0
            else:
                E[i, j] = E[j, i] = 1 / math.sqrt(2)
            out.append(E)
    return out


def _block_basis(C, K, D):
    basis = []
    for c in range(C):
        for m in range(K):
            for E in _sym_basis(D):
                V = np.zeros((C, K, D, D))
                V[c, m] = E
                basis.append(V)
    return basis


# ----------------------------------------------------------------- backends


@pytest.mark.slow
@pytest.mark.parametrize("C,K", [(2, 1), (3, 1), (2, 2), (3, 2)])
def test_native_clarabel_scs_objectives_agree(C, K):
    t = _template(n=120 + 30 * C, d=3, C=C, K=K, seed=C + 10 * K)
    b = _sym_noise(t.noise_shape, 2.0, seed=7)
    nat = solve(t, b, 0.0, solver="native")
    assert nat.status == SolveStatus.OPTIMAL and nat.residual <= RESIDUAL_TOL
    for s in ("clarabel", "scs"):
        r = solve(t, b, 0.0, solver=s)
        assert r.x is not None, s
        # the CVXPY formulation (half-vectorized margins, cp.huber, log_sum_exp) and the
        # NumPy objective are independent codes: they must agree at the CVXPY point
        assert r.info["cvxpy_objective"] == pytest.approx(r.objective, rel=1e-6, abs=1e-9), s
        assert r.objective == pytest.approx(nat.objective, rel=1e-6), s
        # strong convexity: ||Phi - Phi*||^2 <= 2 (J(Phi) - J*) / mu
        gap = max(r.objective - nat.objective, 0.0)
        assert np.linalg.norm(r.x - nat.x) <= math.sqrt(2 * gap / t.lam) + 1e-3, s
    # the native solution is the minimizer: no feasible solver found a lower objective
    assert nat.objective <= solve(t, b, 0.0, solver="clarabel").objective + 1e-9


def test_auto_is_native_and_agrees_with_a_polished_clarabel_solve():
    t = _template(n=200, d=3, C=3, K=2, seed=3)
    b = _sym_noise(t.noise_shape, 2.0, seed=1)
    r = solve(t, b, 0.0, solver="auto")
    assert r.solver == "native" and r.residual <= RESIDUAL_TOL
    polished = PolishedBackend(ClarabelBackend(), ProjectedGradient()).solve(t, b, 0.0)
    assert polished.solver in ("clarabel", "clarabel+native")
    assert polished.residual <= RESIDUAL_TOL
    assert polished.objective == pytest.approx(r.objective, rel=1e-8)


def test_zero_noise_equals_nonprivate_minimizer():
    t = _template(n=160, d=3, C=3, K=1, seed=4)
    none = solve(t, None, 0.0, solver="native")
    zero = solve(t, np.zeros(t.noise_shape), 0.0, solver="native")
    clar = solve(t, None, 0.0, solver="clarabel")
    assert np.max(np.abs(none.x - zero.x)) < 1e-10
    assert zero.objective == pytest.approx(clar.objective, rel=1e-7)
    # the residual is the stationarity of the non-private problem at the released point
    assert t.residual(zero.x) <= RESIDUAL_TOL


def test_extra_term_and_user_loss_agree_across_backends():
    term = psi_frobenius(0.05, d=3)
    t = _template(n=150, d=3, C=2, K=2, seed=5, loss=Logistic(), extra_terms=[term])
    conds = t.conditions(MECHANISMS["objective"].needs)
    assert any("psi_frobenius" in c.name for c in conds)
    b = _sym_noise(t.noise_shape, 1.0, seed=2)
    nat = solve(t, b, 0.3, solver="native")
    clar = solve(t, b, 0.3, solver="clarabel")
    assert clar.objective == pytest.approx(nat.objective, rel=1e-6)
    # the term changes the solution (it is really in both objectives)
    plain = solve(_template(n=150, d=3, C=2, K=2, seed=5, loss=Logistic()), b, 0.3,
                  solver="native")
    assert np.linalg.norm(plain.x - nat.x) > 1e-3


def test_numpy_gradient_matches_finite_differences():
    t = _template(n=40, d=2, C=3, K=2, seed=6, extra_terms=[psi_frobenius(0.1, d=2)])
    rng = np.random.default_rng(0)
    W = rng.normal(size=t.noise_shape)
    Phi = W @ np.swapaxes(W, -1, -2)
    b = _sym_noise(t.noise_shape, 1.0, seed=3)
    _, g = t.objective(Phi, b, 0.2)
    for V in _block_basis(t.C, t.K, t.D)[::3]:
        fd = (t.objective(Phi + 1e-6 * V, b, 0.2)[0]
              - t.objective(Phi - 1e-6 * V, b, 0.2)[0]) / 2e-6
        assert fd == pytest.approx(float(np.vdot(g, V)), abs=1e-6)


# -------------------------------------------------------- privacy constants


@pytest.mark.slow
@pytest.mark.parametrize("C", [2, 3, 5])
@pytest.mark.parametrize("K", [1, 2, 3])
def test_per_record_gradient_norm_never_exceeds_G_and_approaches_it(C, K):
    """||∇_Φ L_i|| <= sqrt(C(C-1)) for ||z|| = 1, at random Φ; and the bound is tight.

    The gradient used is the template's; at 3 of the trial points per setting it
    is checked against central finite differences of the loss value.
    """
    rng = np.random.default_rng(100 * C + K)
    D = 3
    G = None
    best = 0.0
    for trial in range(300):
        z = rng.standard_normal(D)
        z /= np.linalg.norm(z)
        y = int(rng.integers(C))
        t = LargeMarginGaussianTemplate(z[None], np.array([y]), np.array([rng.integers(K)]),
                                        n_classes=C, n_components=K, lam=0.0)
        G = t.privacy_constants().grad_bound
        W = rng.standard_normal((C, K, D, D))
        Phi = (W @ np.swapaxes(W, -1, -2)) * 10 ** rng.uniform(-2, 3, size=(C, K, 1, 1))
        _, g = t.data_loss(Phi)
        nrm = float(np.linalg.norm(g))
        assert nrm <= G * (1 + 1e-12)
        best = max(best, nrm)
        if trial < 3:
            basis = _block_basis(C, K, D)
            hstep = 1e-6 * max(1.0, float(np.max(np.abs(Phi))))
            fd = np.array([(t.data_loss(Phi + hstep * V)[0] - t.data_loss(Phi - hstep * V)[0])
                           / (2 * hstep) for V in basis])
            coords = np.array([np.vdot(g, V) for V in basis])
            assert np.allclose(fd, coords, atol=1e-5)
    assert G == pytest.approx(math.sqrt(C * (C - 1)))
    assert best >= 0.99 * G


@pytest.mark.slow
@pytest.mark.parametrize("C,K", [(2, 1), (3, 1), (2, 2), (3, 2), (2, 3)])
def test_per_record_hessian_rank_and_trace_within_declared_constants(C, K):
    """The slack r log(1 + T/(r nμ)) needs H_i PSD, rank(H_i) <= r and tr(H_i) <= T
    (privacy-jacobian-slack, privacy-lm-jacobian-slack)."""
    rng = np.random.default_rng(7 * C + K)
    D, h = 3, 0.5
    max_trace = 0.0
    for _ in range(20):
        z = rng.standard_normal(D)
        z /= np.linalg.norm(z)
        t = LargeMarginGaussianTemplate(z[None], np.array([0]), np.array([0]), n_classes=C,
                                        n_components=K, lam=0.0, loss=HuberHinge(h))
        consts = t.privacy_constants()
        W = rng.standard_normal((C, K, D, D))
        # scale so that the margins fall in the quadratic part of the Huber hinge often
        Phi = (W @ np.swapaxes(W, -1, -2)) * rng.uniform(0.05, 1.0, size=(C, K, 1, 1))
        Bm = np.array([V.ravel() for V in _block_basis(C, K, D)])  # (p, C K D^2)
        eps = 1e-6
        cols = [(t.data_loss(Phi + eps * v.reshape(Phi.shape))[1]
                 - t.data_loss(Phi - eps * v.reshape(Phi.shape))[1]).ravel() / (2 * eps)
                for v in Bm]
        H = Bm @ np.array(cols).T
        H = 0.5 * (H + H.T)
        w = np.linalg.eigvalsh(H)
        assert w.min() >= -1e-6, "per-record Hessian must be PSD"
        assert int(np.sum(w > 1e-6)) <= consts.hessian_rank
        assert w.sum() <= consts.hessian_rank * consts.hessian_term_bound + 1e-6
        # the sharper trace bound of privacy-lm-jacobian-slack: (C - 1)(2c + L (1 -
        # 1/K)) with c = 1/(2h), L = 1
        assert w.sum() <= (C - 1) * (1 / h + (1 - 1 / K)) + 1e-6
        assert w.sum() <= consts.hessian_trace_bound + 1e-6  # the declared T (privacy-jacobian-slack)
        max_trace = max(max_trace, float(w.sum()))
    # the trials reach the curvature (the test could fail): a K = 1 term attains 2c = 1/h
    assert max_trace >= 0.75 / h


def test_declared_constants():
    t = _template(n=100, d=4, C=3, K=2, seed=1, loss=HuberHinge(0.25))
    k = t.privacy_constants()
    assert k.grad_bound == pytest.approx(math.sqrt(6))
    assert k.hessian_rank == 4
    assert k.hessian_term_bound == pytest.approx(max(2 * 2.0, 0.5))
    assert k.hessian_trace_bound == pytest.approx(2 * (2 * 2.0 + 1.0 * (1 - 1 / 2)))
    assert k.strong_convexity == pytest.approx(t.lam)
    assert k.dimension == 3 * 2 * 5 * 6 // 2
    assert t.noise_shape == (3, 2, 5, 5) and t.noise_symmetric
    assert TEMPLATES[t.name] is LargeMarginGaussianTemplate


@pytest.mark.slow
def test_noise_is_symmetric_per_block_with_gamma_norm(monkeypatch):
    """Through a template-level release, b has shape (C, K, D, D), symmetric blocks, and
    ||b|| ~ Gamma(p, 1/β) with p = C K D(D+1)/2 (KS test, false-alarm rate 1e-3)."""
    t = _template(n=100, d=2, C=3, K=2, seed=2)
    seen = []

    def fake_solve(self, template, b, extra_reg, *, warm_start=None, max_iter=None):
        seen.append(np.array(b))
        return SolveResult(np.zeros(t.noise_shape), SolveStatus.OPTIMAL, 0.0, 0.0, "fake")

    monkeypatch.setattr(ProjectedGradient, "solve", fake_solve)
    # the accuracy check reads the template's residual at the point: the fake point is accepted
    monkeypatch.setattr(type(t), "residual", lambda self, theta, b, extra_reg=0.0: 0.0)
    beta = None
    for seed in range(150):
        _, cert, _ = release_template(t, epsilon=2.0, mechanism="objective",
                                             solver="native", random_state=seed)
        beta = cert.quantities["noise rate beta"]
    B = np.array(seen)
    assert B.shape == (150, *t.noise_shape)
    assert np.allclose(B, np.swapaxes(B, -1, -2))
    p = t.dimension
    radii = np.linalg.norm(B.reshape(150, -1), axis=1) * beta
    assert stats.kstest(radii, stats.gamma(p).cdf).pvalue > 1e-3
    # a draw in all D^2 coordinates then symmetrized would have a different law
    assert stats.kstest(radii, stats.gamma(t.C * t.K * t.D**2).cdf).pvalue < 1e-3


def test_certificate_states_the_blocks_drawn_jointly():
    """The certificate's noise line says what is drawn: a distinct block per class and
    component, drawn jointly on the product of the symmetric subspaces of dimension p (one
    radius for all blocks, so not independent blocks)."""
    t = _template(n=40, d=2, C=3, K=2)
    cert, _ = verify(t, epsilon=1.0, mechanism="objective")
    (line,) = [a for a in cert.assumptions if a.startswith("noise:")]
    assert "per class and component" in line and "not one b shared by all classes" in line
    assert "drawn jointly" in line and "product of the symmetric subspaces" in line
    assert "independent" not in line
    assert line.endswith(f"= {t.dimension}")


def test_block_norms_share_the_radius_of_one_joint_draw():
    """The calibrated law draws all blocks at once: β‖b‖_F ~ Gamma(p) (KS test accepts,
    false-alarm rate 1e-3), while β‖b_0‖_F, the norm of one block of dimension p/2, fails a
    KS test against Gamma(p/2), the law of a block drawn on its own (at C = 2, K = 1, D = 3 the
    two laws are at KS distance 0.34, against a critical value 0.09 at level 1e-3 with 500
    draws: the test has power near 1)."""
    t = _template(n=40, d=2, C=2, K=1)
    cal = MECHANISMS["objective"]().calibrate(t, Budget(1.0))
    law, beta, p = cal.law(), float(cal.noise_rate), t.dimension
    rng = np.random.default_rng(0)
    B = np.array([law.sample(t.noise_shape, rng) for _ in range(500)]).reshape(500, 2, -1)
    block = np.linalg.norm(B, axis=2) * beta
    whole = np.sqrt((block**2).sum(axis=1))
    assert stats.kstest(whole, stats.gamma(p).cdf).pvalue > 1e-3
    assert stats.kstest(block[:, 0], stats.gamma(p // 2).cdf).pvalue < 1e-3


# ---------------------------------------------------------------- verifier


def test_verifier_rejects_lambda_zero():
    t = _template(lam=0.0)
    with pytest.raises(PrivacyError, match="trace term .* linear"):
        verify(t, epsilon=1.0, mechanism="objective")
    cert, cal = verify(t, epsilon=1.0, mechanism="none")  # non-private is allowed
    assert cal is None and not cert.private


class _NonConvexLoss(Loss):
    """ℓ(m) = sqrt(1 + m²) - |m|... concave-ish: its CVXPY form is not DCP-convex."""

    name = "nonconvex"
    deriv_bound = 1.0
    curvature = 1.0

    def value(self, m):
        return np.exp(-np.asarray(m, dtype=float) ** 2)

    def deriv(self, m):
        m = np.asarray(m, dtype=float)
        return -2 * m * np.exp(-m * m)

    def deriv2(self, m):
        m = np.asarray(m, dtype=float)
        return (4 * m * m - 2) * np.exp(-m * m)

    def cvxpy_expr(self, m):
        return -cp.square(m)


class _NonConvexNoCvxpy(_NonConvexLoss):
    name = "nonconvex_numpy"
    has_cvxpy = False


class _SteepHuber(HuberHinge):
    """Twice the Huber hinge, still declaring |ℓ'| <= 1."""

    name = "steep_huber"

    def value(self, m):
        return 2 * super().value(m)

    def deriv(self, m):
        return 2 * super().deriv(m)

    def deriv2(self, m):
        return 2 * super().deriv2(m)

    def cvxpy_expr(self, m):
        return 2 * super().cvxpy_expr(m)


class _SquareLoss(Loss):
    """(1 - m)²/4 clipped: convex but increasing for m > 1 (not allowed for K > 1)."""

    name = "square"
    deriv_bound = 1.0
    curvature = 0.5

    def value(self, m):
        m = np.asarray(m, dtype=float)
        return np.where(np.abs(1 - m) <= 2, (1 - m) ** 2 / 4, np.abs(1 - m) - 1)

    def deriv(self, m):
        m = np.asarray(m, dtype=float)
        return np.where(np.abs(1 - m) <= 2, -(1 - m) / 2, -np.sign(1 - m))

    def deriv2(self, m):
        m = np.asarray(m, dtype=float)
        return np.where(np.abs(1 - m) <= 2, 0.5, 0.0)

    def cvxpy_expr(self, m):
        return cp.huber(1 - m, 2) / 4


def test_verifier_rejects_nonconvex_user_loss_by_dcp():
    with pytest.raises(PrivacyError, match="DCP"):
        verify(_template(loss=_NonConvexLoss()), epsilon=1.0, mechanism="objective")


def test_verifier_rejects_nonconvex_user_loss_by_probe():
    with pytest.raises(PrivacyError, match="convexity"):
        verify(_template(loss=_NonConvexNoCvxpy()), epsilon=1.0, mechanism="objective")


def test_verifier_rejects_violated_derivative_bound():
    with pytest.raises(PrivacyError, match="derivative bound"):
        verify(_template(loss=_SteepHuber(0.5)), epsilon=1.0, mechanism="objective")


def test_verifier_rejects_increasing_loss_for_mixtures():
    # K = 1: margins are affine in Φ, a convex loss of any monotonicity is fine
    verify(_template(loss=_SquareLoss()), epsilon=1.0, mechanism="objective")
    with pytest.raises(PrivacyError):
        verify(_template(K=2, loss=_SquareLoss()), epsilon=1.0, mechanism="objective")


def test_verifier_checks_extra_terms():
    d = 3
    good = psi_frobenius(0.1, d)
    wrong_grad = MatrixTerm("wrong grad", good.cvxpy_fn, good.value_fn,
                            lambda P: 3 * good.grad_fn(P))
    with pytest.raises(PrivacyError, match="finite differences"):
        verify(_template(extra_terms=[wrong_grad]), epsilon=1.0, mechanism="objective")
    concave = MatrixTerm("concave", lambda Phi: -cp.sum_squares(Phi[0][0]),
                         lambda P: -float(np.sum(P[0, 0] ** 2)),
                         lambda P: np.concatenate([-2 * P[:1], 0 * P[1:]]))
    with pytest.raises(PrivacyError, match="DCP"):
        verify(_template(extra_terms=[concave]), epsilon=1.0, mechanism="objective")


def test_verifier_rejects_records_outside_unit_ball():
    X, y = _data(50, 2, 2)
    Z = np.hstack([X, np.ones((50, 1))])  # not scaled: ||z|| up to sqrt 2
    t = LargeMarginGaussianTemplate(Z, y, n_classes=2, lam=1e-2)
    with pytest.raises(PrivacyError, match="record norm"):
        verify(t, epsilon=1.0, mechanism="objective")


def test_no_release_from_inaccurate_solve(monkeypatch):
    t = _template()
    monkeypatch.setattr(ProjectedGradient, "solve", lambda self, tt, b, extra, **kw: SolveResult(
        np.zeros(t.noise_shape), SolveStatus.INACCURATE, 0.0, 10 * RESIDUAL_TOL, "fake"))
    with pytest.raises(SolverError, match="residual"):
        release_template(t, epsilon=1.0, mechanism="objective", solver="native",
                                random_state=0)


def test_template_input_validation():
    X, y = _data(30, 2, 2)
    Z = augment_and_scale(X, 1.0)
    with pytest.raises(DataValidationError):
        LargeMarginGaussianTemplate(Z, y + 5, n_classes=2, lam=1e-2)
    with pytest.raises(DataValidationError):
        LargeMarginGaussianTemplate(Z, y, np.full(30, 3), n_classes=2, n_components=2,
                                    lam=1e-2)


# ------------------------------------------------------- approximate minima


@pytest.mark.parametrize("C,K", [(2, 1), (3, 2)])
def test_distance_bound_holds_at_inexact_points(C, K):
    """||Φ − Φ*|| <= (1 + L)/μ · res(Φ) with L from public constants only (privacy-lm-solver-accuracy)."""
    t = _template(n=120, d=2, C=C, K=K, seed=11)
    b = _sym_noise(t.noise_shape, 2.0, seed=4)
    star = solve(t, b, 0.1, solver="native").x
    mu = t.lam + 0.1
    rng = np.random.default_rng(0)
    ratios = []
    for it in (1, 3, 10, 30):
        x = solve(t, b, 0.1, solver="native", max_iter=it).x
        for _ in range(3):
            W = rng.normal(size=t.noise_shape) * 10 ** rng.uniform(-4, -1)
            y = x + W @ np.swapaxes(W, -1, -2)
            dist = float(np.linalg.norm(y - star))
            bound = t.distance_bound(t.residual(y, b, 0.1), mu)
            assert dist <= bound * (1 + 1e-9)
            ratios.append(dist / bound)
    assert max(ratios) > 1e-3  # the bound is not vacuous by orders of magnitude


def test_amp_covers_an_inexact_native_solve(monkeypatch):
    import dpconvex as dp
    from dpconvex.errors import collect_diagnostics

    X, y = _data(200, 3, 2, seed=12)
    est = dp.PrivateLargeMarginGaussian(epsilon=2.0, solver="native", max_iter=3, loss="pairwise",
                                        lam=2e-2, random_state=0)
    with pytest.raises(SolverError, match="no model is released"):
        est.fit(X, y)
    assert not hasattr(est, "Phi_")
    draws = []

    def spy(shape, beta, rng, symmetric=False):
        draws.append((beta, symmetric))
        return real(shape, beta, rng, symmetric=symmetric)

    real = patch_noise(monkeypatch, spy)
    gamma = 5e-2
    est.set_params(optimality_tol=gamma, max_iter=60)
    with collect_diagnostics() as diag:
        est.fit(X, y)
    cert = est.certificate_
    main, cover = cert.parts
    assert diag[-1].residual <= gamma
    assert main.epsilon + cover.epsilon == cert.epsilon <= 2.0
    mu = main.quantities["strong convexity mu"] + main.quantities["extra regularization Delta"]
    L = mu + 2 * 1.0 * 2  # 2cC with c = 1/(2h) = 1, C = 2, K = 1
    assert draws[-1][0] == pytest.approx(cover.epsilon / (2 * (1 + L) / mu * gamma))
    assert all(sym for _, sym in draws)
    assert np.linalg.eigvalsh(est.Phi_).min() >= -1e-8  # projected after the cover


def test_parameterization_is_one_class_passed_to_the_template():
    """A form of Φ is one class: the template builds its space from it."""
    from dpconvex.templates.parameterizations import FullPSD

    built = []

    class Recorded(FullPSD):
        def __init__(self, C, K, D):
            built.append((C, K, D))
            super().__init__(C, K, D)

    t = _template(parameterization=Recorded)
    ref = _template()
    assert built == [(t.C, t.K, t.D)] and isinstance(t.space, Recorded)
    b = np.zeros(t.noise_shape)
    np.testing.assert_array_equal(solve(t, b, 0.0, solver="native").x,
                                  solve(ref, b, 0.0, solver="native").x)
