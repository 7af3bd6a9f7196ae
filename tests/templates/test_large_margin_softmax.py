"""Softmax large-margin template, Gaussian objective perturbation and the PSD shift.

docs/privacy/large_margin_softmax.md#privacy-large-margin-softmax. Every random draw is
seeded, so each test is deterministic; the Monte Carlo checks state their false-alarm
rate.

The exact privacy loss of the ideal mechanism is computed by an independent
implementation (Newton's method in the orthonormal coordinates of the symmetric
blocks, analytic Hessians), not by the template's own code.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import logsumexp, softmax

from dpconvex.data.preprocess import augment_and_scale, clip_rows
from dpconvex.errors import DataValidationError, ParameterError, PrivacyError, SolverError
from dpconvex.estimators.large_margin.estimator import PrivateLargeMarginGaussian
from dpconvex.estimators.large_margin.learners import AUTO_LAM_KAPPA, auto_lam
from dpconvex.privacy.accounting.analytic_gaussian import (
    analytic_gaussian_delta,
    analytic_gaussian_sigma,
)
from dpconvex.privacy.accounting.objective_gaussian import (
    objective_gaussian_delta,
    objective_gaussian_sigma,
    softmax_objective_delta,
    softmax_objective_sigma,
)
from dpconvex.privacy.budget import Budget
from dpconvex.privacy.mechanisms import get_mechanism
from dpconvex.privacy.mechanisms.base import jacobian_slack
from dpconvex.privacy.release import release
from dpconvex.solvers import solve
from dpconvex.templates.large_margin_softmax import LargeMarginSoftmaxTemplate
from dpconvex.templates.parameterizations import psd_shift


# ------------------------------------------------------------ orthonormal coordinates
def hvec(M: np.ndarray) -> np.ndarray:
    """Coordinates of a symmetric matrix in {E_ii, (E_ij + E_ji)/√2}: an isometry."""
    iu = np.triu_indices(M.shape[-1], 1)
    return np.concatenate([np.diagonal(M, axis1=-2, axis2=-1),
                           math.sqrt(2.0) * M[..., iu[0], iu[1]]], axis=-1)


def unhvec(v: np.ndarray, D: int) -> np.ndarray:
    M = np.zeros(v.shape[:-1] + (D, D))
    iu = np.triu_indices(D, 1)
    M[..., np.arange(D), np.arange(D)] = v[..., :D]
    M[..., iu[0], iu[1]] = v[..., D:] / math.sqrt(2.0)
    M[..., iu[1], iu[0]] = v[..., D:] / math.sqrt(2.0)
    return M


def record_grad(theta: np.ndarray, u: np.ndarray, y: int) -> np.ndarray:
    """∇ℓ for one record: (e_y − p) ⊗ u, theta of shape (C, m), u = hvec(zzᵀ)."""
    p = softmax(-(theta @ u))
    g = -p
    g[y] += 1.0
    return np.outer(g, u)


def record_hess(theta: np.ndarray, u: np.ndarray) -> np.ndarray:
    p = softmax(-(theta @ u))
    return np.kron(np.diag(p) - np.outer(p, p), np.outer(u, u))


def random_unit_z(rng: np.random.Generator, D: int, norm: float | None = None) -> np.ndarray:
    z = rng.standard_normal(D)
    return z / np.linalg.norm(z) * (rng.uniform(0, 1) if norm is None else norm)


# ----------------------------------------------------------- privacy-softmax-constants declared constants
@pytest.mark.parametrize("C", [2, 3, 5])
def test_per_record_gradient_and_hessian_within_declared_constants(C):
    """300 random (Φ, z, y): ||∇ℓ|| <= G = √2, Hessian PSD, rank <= C − 1, λ_max <= 1/2,
    trace <= T = 1 − 1/C; the bounds are approached (G) and attained (T at Φ = 0, ||z|| = 1)."""
    rng = np.random.default_rng(C)
    D = 3
    t = LargeMarginSoftmaxTemplate(np.eye(D)[:C % D + 1][:1] * 0.5, np.array([0]), n_classes=C,
                                   lam=0.0)
    k = t.privacy_constants()
    assert k.grad_bound == math.sqrt(2) and k.hessian_rank == C - 1
    assert k.hessian_trace_bound == pytest.approx(1 - 1 / C) and k.hessian_term_bound == 0.5
    gmax = tmax = 0.0
    for it in range(300):
        z = random_unit_z(rng, D, 1.0 if it % 3 == 0 else None)
        theta = rng.standard_normal((C, D * (D + 1) // 2)) * (10.0 if it % 2 else 1.0)
        y = int(rng.integers(C))
        u = hvec(np.outer(z, z))
        g = record_grad(theta, u, y)
        gmax = max(gmax, float(np.linalg.norm(g)))
        H = record_hess(theta, u)
        w = np.linalg.eigvalsh(H)
        assert w.min() >= -1e-12
        assert np.sum(w > 1e-10) <= C - 1
        assert w.max() <= 0.5 + 1e-12
        tmax = max(tmax, float(np.trace(H)))
        assert np.trace(H) <= (1 - 1 / C) + 1e-12
    assert gmax <= math.sqrt(2) + 1e-12 and gmax > 0.95 * math.sqrt(2)
    u = hvec(np.outer(np.eye(D)[0], np.eye(D)[0]))
    assert np.trace(record_hess(np.zeros((C, u.size)), u)) == pytest.approx(1 - 1 / C)


def test_template_gradient_and_hessp_match_finite_differences():
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, size=(40, 3))
    t = LargeMarginSoftmaxTemplate(augment_and_scale(X, 2.0), rng.integers(0, 4, 40),
                                   n_classes=4, lam=0.3)
    th = rng.standard_normal(t.space.shape)
    th = t.space.project(th)
    V = t.space.project(rng.standard_normal(t.space.shape))
    b = t.space.project_noise(rng.standard_normal(t.noise_shape))
    e = 1e-6
    f, g = t.objective(th, b, 0.1)
    fd = (t.objective(th + e * V, b, 0.1)[0] - t.objective(th - e * V, b, 0.1)[0]) / (2 * e)
    assert fd == pytest.approx(float(np.vdot(g, V)), rel=1e-6, abs=1e-9)
    hv = t.hessp(th, 0.1)(V)
    fdh = (t.objective(th + e * V, b, 0.1)[1] - t.objective(th - e * V, b, 0.1)[1]) / (2 * e)
    assert np.linalg.norm(hv - fdh) <= 1e-6 * max(1.0, np.linalg.norm(hv))


@pytest.mark.parametrize("C", [3, 4])
def test_gradient_differences_of_one_pair_span_2_C_minus_1_dimensions(C):
    """v(θ) = ∇ℓ(θ; z, y) − ∇ℓ(θ; z', y') over many θ: rank exactly 2(C − 1) (k is tight)."""
    rng = np.random.default_rng(C)
    D = 3
    z, zp = random_unit_z(rng, D, 1.0), random_unit_z(rng, D, 1.0)
    u, up = hvec(np.outer(z, z)), hvec(np.outer(zp, zp))
    V = np.array([(record_grad(th, u, 0) - record_grad(th, up, 1)).ravel()
                  for th in rng.standard_normal((200, C, u.size)) * 3])
    s = np.linalg.svd(V, compute_uv=False)
    assert np.sum(s > 1e-9 * s[0]) == 2 * (C - 1)
    t = LargeMarginSoftmaxTemplate(np.outer(np.ones(2), z) * 0.5, np.array([0, 1]),
                                   n_classes=C, lam=1.0)
    assert t.gradient_difference_rank == 2 * (C - 1)


# ------------------------------------------------ privacy-softmax-gaussian-objective
# exact loss of the ideal mechanism
class TinyProblem:
    """J_D(θ) = (1/n) Σ ℓ + (μ/2)||θ||², θ ∈ R^{C × m} in orthonormal coordinates."""

    def __init__(self, Z: np.ndarray, y: np.ndarray, C: int, mu: float):
        self.U = np.array([hvec(np.outer(z, z)) for z in Z])
        self.y, self.C, self.mu, self.n = y, C, mu, len(y)

    def grad(self, th: np.ndarray) -> np.ndarray:
        g = sum(record_grad(th, u, int(y)) for u, y in zip(self.U, self.y, strict=True))
        return g / self.n + self.mu * th

    def hess(self, th: np.ndarray) -> np.ndarray:
        H = sum(record_hess(th, u) for u in self.U) / self.n
        return H + self.mu * np.eye(H.shape[0])

    def value(self, th: np.ndarray, b: np.ndarray) -> float:
        A = self.U @ th.T
        lv = logsumexp(-A, axis=1) + A[np.arange(self.n), self.y]
        return float(np.mean(lv) + 0.5 * self.mu * np.sum(th * th) + np.sum(b * th) / self.n)

    def argmin(self, b: np.ndarray) -> np.ndarray:
        th = np.zeros_like(b)
        tol = 1e-11 * (1.0 + np.linalg.norm(b) / self.n)
        for _ in range(200):
            g = (self.grad(th) + b / self.n).ravel()
            if np.linalg.norm(g) < tol:
                return th
            step = np.linalg.solve(self.hess(th), g).reshape(th.shape)
            s = 1.0
            f0 = self.value(th, b)
            while self.value(th - s * step, b) > f0 + 1e-12 * abs(f0) and s > 1e-8:
                s *= 0.5
            th = th - s * step
        raise AssertionError("Newton did not converge")


def privacy_losses(P: TinyProblem, Pp: TinyProblem, sigma: float, draws: int, seed: int
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exact L(θ) = log φ(b)/φ(b') + log det H_D/det H_D' at θ ~ M(D); also log-det part, R."""
    rng = np.random.default_rng(seed)
    m = P.U.shape[1]
    # the subspace V holding every gradient difference of this pair (privacy-softmax-gaussian-objective)
    basis = []
    for c in range(P.C - 1):
        for u in (P.U[-1], Pp.U[-1]):
            e = np.zeros((P.C, m))
            e[c], e[P.C - 1] = u, -u
            basis.append(e.ravel())
    Q, _ = np.linalg.qr(np.array(basis).T)
    L, LJ, R, W = [], [], [], []
    yy, yp = int(P.y[-1]), int(Pp.y[-1])
    for _ in range(draws):
        b = rng.normal(0.0, sigma, size=(P.C, m))
        th = P.argmin(b)
        bp = -P.n * Pp.grad(th)
        ld = np.linalg.slogdet(P.hess(th))[1] - np.linalg.slogdet(Pp.hess(th))[1]
        LJ.append(ld)
        L.append((np.sum(bp * bp) - np.sum(b * b)) / (2 * sigma**2) + ld)
        R.append(np.linalg.norm(Q.T @ b.ravel()) / sigma)
        beta, betap = b @ P.U[-1] / sigma, b @ Pp.U[-1] / sigma  # ⟨b_c, U⟩/σ, ⟨b_c, U'⟩/σ
        m1 = max(0.0, max(beta[yy] - beta[c] for c in range(P.C) if c != yy))
        m2 = max(0.0, max(betap[c] - betap[yp] for c in range(P.C) if c != yp))
        W.append(m1 + m2)
    privacy_losses.W = np.array(W)  # the statistic of the softmax bound (privacy-softmax-gaussian-objective)
    return np.array(L), np.array(LJ), np.array(R)


def adversarial_pairs(C: int):
    """(Z, y) of D and of D': the same x with another label; z ⊥ z'; z' = −z; a zero row."""
    rng = np.random.default_rng(10 + C)
    base = np.array([random_unit_z(rng, 2) for _ in range(3)])
    yb = rng.integers(0, C, 3)
    e0, e1 = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    return [
        ((np.vstack([base, e0]), np.r_[yb, 0]), (np.vstack([base, e0]), np.r_[yb, 1])),
        ((np.vstack([base, e0]), np.r_[yb, 0]), (np.vstack([base, e1]), np.r_[yb, C - 1])),
        ((np.vstack([base, e1]), np.r_[yb, 1]), (np.vstack([base, -e1]), np.r_[yb, 2])),
        ((np.vstack([base, e0 * 0.7]), np.r_[yb, 2]), (np.vstack([base, 0 * e0]), np.r_[yb, 0])),
    ]


@pytest.mark.slow
@pytest.mark.parametrize("C", [3, 4])
def test_exact_privacy_loss_never_exceeds_the_bound(C):
    """Pointwise, exactly: L(θ) <= ε_J + aR + a²/2 and the log-det part <= ε_J
    (privacy-softmax-gaussian-objective), on adversarial pairs incl. the same x with two
    labels, at n = 4 (slack ~ 0.3 of ε = 1)."""
    mu, eps, delta = 0.5, 1.0, 0.05
    for (Z, y), (Zp, yp) in adversarial_pairs(C):
        P, Pp = TinyProblem(Z, y, C, mu), TinyProblem(Zp, yp, C, mu)
        T, r, n = 1 - 1 / C, C - 1, len(y)
        eps_j = jacobian_slack(n, mu, T, r)
        S = 2 * math.sqrt(2)
        sigma = objective_gaussian_sigma(eps, delta, S, 2 * (C - 1), eps_j)
        L, LJ, R = privacy_losses(P, Pp, sigma, 25, seed=C)
        a = S / sigma
        assert np.all(LJ <= eps_j + 1e-10)
        assert np.all(L <= eps_j + a * R + a * a / 2 + 1e-9)
        # the softmax bound: L <= ε_J + S²/(2σ²) + W/σ, W = M1 + M2 (pointwise)
        assert np.all(L <= eps_j + 4.0 / sigma**2 + privacy_losses.W / sigma + 1e-9)


def test_same_x_two_labels_exact_loss_is_a_gaussian_mechanism_within_delta():
    """The pair (z, y) ↔ (z, y'): v = (e_y − e_y') ⊗ zzᵀ does not depend on θ and the two
    Hessians coincide, so the exact loss is L = (2⟨b, v⟩ + ||v||²)/(2σ²) with ||v|| = √2||z||²:
    the Gaussian mechanism, whose exact δ(ε) is Balle & Wang's. Checked on sampled θ (the
    independent solver), then δ_exact(ε, σ, √2) <= δ at the calibrated σ."""
    C, mu, eps, delta = 3, 0.5, 1.0, 0.05
    (Z, y), (Zp, yp) = adversarial_pairs(C)[0]
    P, Pp = TinyProblem(Z, y, C, mu), TinyProblem(Zp, yp, C, mu)
    eps_j = jacobian_slack(4, mu, 1 - 1 / C, C - 1)
    sigma = objective_gaussian_sigma(eps, delta, 2 * math.sqrt(2), 2 * (C - 1), eps_j)
    rng = np.random.default_rng(3)
    v = np.zeros((C, P.U.shape[1]))
    v[y[-1]], v[yp[-1]] = P.U[-1], -P.U[-1]  # ∇ℓ(z, y) − ∇ℓ(z, y') = (e_y − e_y') ⊗ u
    for _ in range(10):
        b = rng.normal(0.0, sigma, size=v.shape)
        th = P.argmin(b)
        bp = -P.n * Pp.grad(th)
        assert np.allclose(bp - b, v, atol=1e-8)
        ld = np.linalg.slogdet(P.hess(th))[1] - np.linalg.slogdet(Pp.hess(th))[1]
        assert abs(ld) < 1e-10
    assert np.linalg.norm(v) == pytest.approx(math.sqrt(2))
    assert analytic_gaussian_delta(eps, sigma, math.sqrt(2)) <= delta
    assert analytic_gaussian_delta(eps, sigma, math.sqrt(2)) <= objective_gaussian_delta(
        eps, sigma, 2 * math.sqrt(2), 2 * (C - 1), eps_j)


@pytest.mark.parametrize("C", [3, 4])
def test_one_sided_jacobian_slack_is_attained(C):
    """Replacing a zero row by z = e_0 among zero rows, at Φ = 0: p is uniform, the record's
    Hessian has C − 1 equal eigenvalues 1/C, and log det(A + H)/det(A) equals the slack
    (C − 1) log(1 + T/((C − 1) n μ)) exactly (AM-GM is tight): a slack/2 mutant is caught."""
    n, mu = 5, 0.3
    Z = np.zeros((n, 2))
    Zp = Z.copy()
    Zp[-1] = [1.0, 0.0]
    y = np.zeros(n, dtype=int)
    P, Pp = TinyProblem(Zp, y, C, mu), TinyProblem(Z, y, C, mu)
    th = np.zeros((C, 3))
    ld = np.linalg.slogdet(P.hess(th))[1] - np.linalg.slogdet(Pp.hess(th))[1]
    assert ld == pytest.approx(jacobian_slack(n, mu, 1 - 1 / C, C - 1), rel=1e-10)
    assert ld > 0.5 * jacobian_slack(n, mu, 1 - 1 / C, C - 1) * 1.5


def test_released_noise_has_the_calibrated_sigma_and_a_half_sigma_mutant_is_caught():
    """b recovered from released minimizers (b = −n∇J(θ) without noise): 5 releases × 84
    orthonormal coordinates / σ are N(0, 1); their mean square lies in [0.75, 1.25] (5.4
    standard errors: false alarm < 1e-7); σ/2 noise (mean square 0.25) fails."""
    X, y = small_data(n=80, d=5, C=4)
    Z = augment_and_scale(clip_rows(X, 1.0)[0], 1.0)
    t = LargeMarginSoftmaxTemplate(Z, y, n_classes=4, lam=0.5)
    mech = get_mechanism("gaussian_objective_lm")
    sq = []
    for seed in range(5):
        rel = release(t, mech, Budget(2.0, 1e-5), None, seed)
        sigma = rel.calibration.extra["noise std"]
        B = (-t.n * t.objective(rel.theta, None, rel.calibration.extra_strong_convexity)[1]
             ).reshape(t.noise_shape)
        assert np.allclose(B, np.swapaxes(B, -1, -2), atol=1e-6)
        sq.append(hvec(B[:, 0]).ravel() / sigma)
    ms = float(np.mean(np.concatenate(sq) ** 2))
    assert 0.75 <= ms <= 1.25
    assert not 0.75 <= ms / 4 <= 1.25  # what the same check reports for σ/2 noise


@pytest.mark.slow
@pytest.mark.parametrize("C", [2, 3, 10])
def test_sigma_never_below_the_analytic_gaussian_sigma(C):
    S, k = 2 * math.sqrt(2), 2 * (C - 1)
    for eps in (0.1, 0.5, 1.0, 2.0, 8.0):
        for delta in (1e-3, 1e-5, 1e-9):
            for slack in (0.0, 0.2 * eps):
                s = objective_gaussian_sigma(eps, delta, S, k, slack)
                assert s >= analytic_gaussian_sigma(eps, delta, S) * (1 - 1e-9)
                assert objective_gaussian_delta(eps, s, S, k, slack) <= delta
                assert objective_gaussian_delta(eps, s / 2, S, k, slack) > delta


# ---------------------------------------------------------------- mechanism end to end
def small_data(n=60, d=3, C=3, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, C, n)
    X = rng.normal(size=(n, d)) * 0.3 + np.eye(C, d)[y] * 0.5
    return X, y


def test_gaussian_objective_release_certificate_and_noise_law():
    X, y = small_data()
    t = LargeMarginSoftmaxTemplate(augment_and_scale(np.clip(X, -1, 1) / 2, 1.0), y,
                                   n_classes=3, lam=0.05)
    mech = get_mechanism("gaussian_objective_lm")
    rel = release(t, mech, Budget(1.0, 1e-5), None, 0)
    cal = rel.calibration
    sigma = cal.extra["noise std"]
    eps_j = jacobian_slack(t.n, 0.05, 2 / 3, 2)
    assert cal.slack == pytest.approx(eps_j)
    assert cal.extra["k"] == 4 and cal.sensitivity == pytest.approx(2 * math.sqrt(2))
    s_star = objective_gaussian_sigma(1.0, 1e-5, 2 * math.sqrt(2), 4, eps_j)
    s_soft = softmax_objective_sigma(1.0, 1e-5, 3, eps_j)
    assert sigma == pytest.approx(min(s_star, s_soft)) and s_soft < s_star
    assert rel.certificate.epsilon <= 1.0 and rel.certificate.delta == 1e-5
    B = (-t.n * t.objective(rel.theta)[1]).reshape(t.noise_shape)  # b = −n∇J at the minimizer
    assert np.allclose(B, np.swapaxes(B, -1, -2), atol=1e-6)


def test_gaussian_noise_entries_have_the_symmetric_law():
    """The backends' project_noise of i.i.d. N(0, σ²) entries: diag var σ², off-diag σ²/2.
    KS-free check on 4000 draws: variances within 6 standard errors (false alarm < 1e-8)."""
    t = LargeMarginSoftmaxTemplate(np.full((2, 4), 0.4), np.array([0, 1]), n_classes=2, lam=1.0)
    rng = np.random.default_rng(3)
    B = np.array([t.space.project_noise(rng.normal(0, 2.0, t.noise_shape)).reshape(t.noise_shape)
                  for _ in range(4000)])
    dv = B[:, :, 0, np.arange(4), np.arange(4)].var()
    ov = B[:, :, 0, 0, 1].var()
    n_d, n_o = B[:, :, 0, np.arange(4), np.arange(4)].size, B[:, :, 0, 0, 1].size
    assert abs(dv - 4.0) < 6 * 4.0 * math.sqrt(2 / n_d)
    assert abs(ov - 2.0) < 6 * 2.0 * math.sqrt(2 / n_o)


def test_gaussian_objective_refuses_the_constrained_template_and_pure_budgets():
    X, y = small_data()
    Z = augment_and_scale(np.clip(X, -1, 1) / 2, 1.0)
    tc = LargeMarginSoftmaxTemplate(Z, y, n_classes=3, lam=0.05, constrained=True)
    with pytest.raises(PrivacyError, match="unconstrained"):
        release(tc, "gaussian_objective_lm", Budget(1.0, 1e-5), None, 0)
    t = LargeMarginSoftmaxTemplate(Z, y, n_classes=3, lam=0.05)
    with pytest.raises(ParameterError, match="delta"):
        release(t, "gaussian_objective_lm", Budget(1.0), None, 0)
    with pytest.raises(DataValidationError, match="component index"):  # K = 2 needs m_i
        LargeMarginSoftmaxTemplate(Z, y, n_classes=3, lam=0.05, n_components=2)


def test_inaccurate_solve_is_not_released():
    X, y = small_data()
    t = LargeMarginSoftmaxTemplate(augment_and_scale(np.clip(X, -1, 1) / 2, 1.0), y,
                                   n_classes=3, lam=1e-3)
    with pytest.raises(SolverError):
        release(t, "gaussian_objective_lm", Budget(1.0, 1e-5), None, 0, max_iter=1)


# --------------------------------------------------------------- privacy-softmax-psd-shift the PSD shift
def test_psd_shift_makes_every_block_psd_and_changes_no_prediction():
    rng = np.random.default_rng(5)
    for _ in range(20):
        Phi = rng.standard_normal((4, 1, 5, 5))
        Phi = Phi + np.swapaxes(Phi, -1, -2)
        S, t = psd_shift(Phi)
        w = np.linalg.eigvalsh(S)
        assert w.min() >= -1e-10 and (t == 0 or w.min() <= 1e-10)  # the smallest shift
        Z = rng.standard_normal((200, 5)) * rng.uniform(0.1, 3, (200, 1))
        before = np.argmin(np.einsum("ij,cjk,ik->ic", Z, Phi[:, 0], Z), axis=1)
        after = np.argmin(np.einsum("ij,cjk,ik->ic", Z, S[:, 0], Z), axis=1)
        assert np.array_equal(before, after)


def test_estimator_softmax_gaussian_release_is_psd_and_predicts_like_the_minimizer():
    X, y = small_data(n=120)
    est = PrivateLargeMarginGaussian(loss="softmax", mechanism="gaussian_objective", lam=0.05,
                                     structure="full", epsilon=2.0, delta=1e-5,
                                     random_state=0, row_norm="none").fit(X, y)
    Phi = est.Phi_
    assert Phi.shape == (3, 1, 4, 4)
    assert np.linalg.eigvalsh(Phi).min() >= -1e-10
    # the unshifted minimizer with the same noise (same seed) predicts the same labels
    Z = augment_and_scale(clip_rows(X, 1.0)[0], 1.0)
    t = LargeMarginSoftmaxTemplate(Z, y, n_classes=3, lam=0.05, data_norm=1.0)
    raw = release(t, "gaussian_objective_lm", Budget(2.0, 1e-5), None, 0).theta
    Zt = t.Z  # z' = S z, the template's public feature map (privacy-softmax-feature-map)
    assert np.allclose(Zt, Z * t.scale) and np.linalg.norm(Zt, axis=1).max() <= 1 + 1e-12
    raw_pred = np.argmin(np.einsum("ij,cjk,ik->ic", Zt, raw.reshape(3, 4, 4), Zt), axis=1)
    assert np.array_equal(est.classes_[raw_pred], est.predict(X))
    assert any("common shift" in a for a in est.certificate_.assumptions)


# ------------------------------------------------------------ estimator options (privacy-softmax-lambda-rule)
def test_estimator_option_errors():
    X, y = small_data()
    with pytest.raises(ParameterError, match="unconstrained"):
        PrivateLargeMarginGaussian(loss="pairwise", mechanism="gaussian_objective").fit(X, y)
    with pytest.raises(ParameterError, match="unconstrained"):  # "auto" + delta: Gaussian
        PrivateLargeMarginGaussian(loss="pairwise", delta=1e-5).fit(X, y)
    with pytest.raises(ParameterError, match="delta"):
        PrivateLargeMarginGaussian(loss="softmax", mechanism="objective", delta=1e-5).fit(X, y)
    with pytest.raises(ParameterError, match="loss"):
        PrivateLargeMarginGaussian(loss="hinge").fit(X, y)
    with pytest.raises(ParameterError, match="lam"):
        PrivateLargeMarginGaussian(lam="big").fit(X, y)


def test_lam_auto_is_public_and_respects_the_delta_branch():
    """Two data sets with the same n, C, d get the same lam; it is >= μ_half, the modulus at
    which the slack is ε/2, so the calibration adds no Δ."""
    (X1, y1), (X2, y2) = small_data(seed=1), small_data(seed=2)
    lams = []
    for X, y in ((X1, y1), (X2, y2)):
        est = PrivateLargeMarginGaussian(loss="softmax", mechanism="gaussian_objective",
                                         lam="auto", epsilon=0.5, delta=1e-5, random_state=0)
        cert = est.certify(X, y)
        lams.append(cert.quantities["strong convexity mu"])
        assert cert.quantities["extra regularization Delta"] == 0.0
        assert cert.quantities["jacobian slack"] <= 0.25 + 1e-12
    assert lams[0] == lams[1]
    t = LargeMarginSoftmaxTemplate(augment_and_scale(X1, 1.0), y1, n_classes=3, lam=1.0)
    mech = get_mechanism("gaussian_objective_lm")
    lam = auto_lam(t, mech, Budget(0.5, 1e-5))
    assert lam == pytest.approx(lams[0])
    ej = jacobian_slack(60, lam, 2 / 3, 2)
    sigma = min(objective_gaussian_sigma(0.5, 1e-5, 2 * math.sqrt(2), 4, ej),
                softmax_objective_sigma(0.5, 1e-5, 3, ej))
    assert lam == pytest.approx(max(1e-4, AUTO_LAM_KAPPA * sigma / 60), rel=2e-3)


def test_pure_objective_on_the_softmax_template_uses_the_trace_slack():
    X, y = small_data()
    cert = PrivateLargeMarginGaussian(loss="softmax", lam=0.05, epsilon=1.0).certify(X, y)
    assert cert.quantities["jacobian slack"] == pytest.approx(jacobian_slack(60, 0.05, 2 / 3, 2))
    assert cert.quantities["per-record gradient bound G"] == pytest.approx(math.sqrt(2))
    assert cert.delta == 0.0


def test_native_solve_reaches_the_residual_tolerance():
    X, y = small_data(n=200, d=5, C=4)
    t = LargeMarginSoftmaxTemplate(augment_and_scale(X, 2.0), y, n_classes=4, lam=1e-3)
    b = np.random.default_rng(0).normal(0, 10, t.noise_shape)
    res = solve(t, b, 0.0, solver="native")
    assert res.residual <= t.residual_tol
    assert t.residual(res.x, t.space.project_noise(b)) <= t.residual_tol


def test_feature_map_keeps_records_in_the_unit_ball_and_maps_phi_back():
    """z' = S z has ||z'|| <= 1 for every ||x|| <= q; SΦ'S scores z exactly as Φ' scores z'."""
    rng = np.random.default_rng(9)
    for q in (0.3, 1.0, 4.0):
        X = rng.normal(size=(50, 3))
        X *= q / np.linalg.norm(X, axis=1, keepdims=True) * rng.uniform(0, 1, (50, 1))
        X[0] *= q / np.linalg.norm(X[0])
        Z = augment_and_scale(X, q)
        t = LargeMarginSoftmaxTemplate(Z, rng.integers(0, 3, 50), n_classes=3, lam=1.0,
                                       data_norm=q)
        assert np.linalg.norm(t.Z, axis=1).max() <= 1 + 1e-12
        assert np.linalg.norm(t.Z[0]) == pytest.approx(1.0)
        th = t.space.project(rng.standard_normal(t.space.shape))
        Phi, _ = t.release_shift(th)
        a_template = t.space.forms(t.Z, th)
        a_release = np.einsum("ij,cjk,ik->ic", Z, Phi[:, 0], Z)
        assert np.array_equal(np.argmin(a_template, 1), np.argmin(a_release, 1))


@pytest.mark.parametrize("C", [2, 3, 10])
def test_softmax_bound_sigma_is_feasible_and_above_the_exact_same_x_sigma(C):
    """σ₂ meets δ under its bound, σ₂/2 does not; σ₂ >= the exact σ of the same-x pair
    (a Gaussian mechanism with sensitivity √2, Balle–Wang), which any valid bound must give."""
    for eps in (0.5, 1.0, 2.0, 8.0):
        for delta in (1e-3, 1e-5, 1e-9):
            s = softmax_objective_sigma(eps, delta, C, 0.1 * eps)
            assert softmax_objective_delta(eps, s, C, 0.1 * eps) <= delta
            assert softmax_objective_delta(eps, s / 2, C, 0.1 * eps) > delta
            assert s >= analytic_gaussian_sigma(eps, delta, math.sqrt(2)) * (1 - 1e-9)


def test_softmax_bound_in_closed_form_is_its_integral():
    """δ of the softmax bound, computed in closed form, equals ∫_{t0}^∞ (e^{c − t/σ}/σ)
    min(1, 2(C − 1)Φ̄(t/(2√2))) dt by quadrature split where the minimum changes branch, to 1e-8
    relative (the quadrature's error ~1e-10), over 100 random (ε, σ, C, ε_J), σ from 3 to 10⁴ (where the
    integrand's mass is a few units wide at the start of a range of width ~σ); 1 when c <= 0. Where
    ε − ε_J is 1e-12 to 1e-6 (σ to 6·10⁷; the two normal tails nearly cancel): never below the integral,
    above it by at most 1 %."""
    from scipy import integrate
    from scipy.special import ndtr, ndtri

    def weighted_tail(t: float, c: float, sigma: float, m: int) -> float:
        return math.exp(c - t / sigma) / sigma * min(1.0, m * ndtr(-t / (2 * math.sqrt(2))))

    assert softmax_objective_delta(1.0, 2.0, 3) == 1.0  # c = 1 − 4/σ² = 0
    rng = np.random.default_rng(20261127)
    for i in range(100):
        C, eps, sigma = int(rng.integers(2, 12)), 10 ** rng.uniform(-2, 1.5), 10 ** rng.uniform(0.5, 4)
        gap = 10 ** rng.uniform(-12, -6) if i % 4 == 0 else rng.uniform(0.4, 1) * eps  # ε − ε_J
        if i % 4 == 0:  # σ for c = ε − ε_J − 4/σ² > 0
            sigma = 2 / math.sqrt(gap) * 10 ** rng.uniform(0.1, 1.5)
        slack = max(eps - gap, 0.0)
        c = eps - slack - 4.0 / sigma**2
        if c <= 0:
            assert softmax_objective_delta(eps, sigma, C, slack) == 1.0
            continue
        t0 = c * sigma
        u = max(t0, -2 * math.sqrt(2) * ndtri(1 / (2 * (C - 1))))
        want = sum(integrate.quad(weighted_tail, lo, hi, args=(c, sigma, 2 * (C - 1)), epsabs=0,
                                  epsrel=1e-12, limit=200)[0]
                   for lo, hi in ((t0, u), (u, u + 60.0), (u + 60.0, np.inf)))
        got = softmax_objective_delta(eps, sigma, C, slack)
        assert got >= want * (1 - 1e-10) and got == pytest.approx(want, rel=1e-8 if gap > 1e-6 else 1e-2), (
            C, eps, sigma, slack)


def test_sparse_rows_give_the_same_forms_and_adjoint():
    """Mostly-zero rows take the CSR path: the same numbers as the dense products."""
    rng = np.random.default_rng(11)
    Z = rng.normal(size=(300, 8)) * (rng.uniform(size=(300, 8)) < 0.1)
    Z[:, -1] = 0.3
    Z /= max(1.0, np.linalg.norm(Z, axis=1).max())
    t = LargeMarginSoftmaxTemplate(Z, rng.integers(0, 3, 300), n_classes=3, lam=1.0)
    assert t.space._csr(t.Z) is not None
    th = t.space.project(rng.standard_normal(t.space.shape))
    W = rng.normal(size=(300, 3))
    dense_forms = np.einsum("ij,cjk,ik->ic", Z, th.reshape(3, 8, 8), Z)
    assert np.allclose(t.space.forms(t.Z, th), dense_forms, rtol=1e-12, atol=1e-12)
    dense_adj = np.einsum("ic,ij,ik->cjk", W, Z, Z).ravel()
    assert np.allclose(t.space.adjoint(t.Z, W), dense_adj, rtol=1e-12, atol=1e-12)
