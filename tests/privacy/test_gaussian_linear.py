"""Gaussian (ε, δ) mechanisms of the linear learners
(docs/privacy/gaussian_linear.md#privacy-gaussian-linear).

(a) σ never below the analytic-Gaussian σ for the same sensitivity; the closed form of (★) for
    k <= 2 equals its χ_k integral;
(b) exact privacy profile of the ideal gaussian_objective mechanism on 1-D and 2-D
    linear ERM (density of θ by change of variables, hockey-stick divergence by
    quadrature) <= the claimed δ, and a σ/2 mutant exceeds it.
Estimator-level checks are in tests/estimators/test_gaussian_linear_estimators.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate

from dpconvex.estimators.linear import LINEAR_MENU
from dpconvex.objectives.losses import get_loss
from dpconvex.privacy.accounting.analytic_gaussian import analytic_gaussian_sigma
from dpconvex.privacy.accounting.objective_gaussian import objective_gaussian_delta
from dpconvex.privacy.budget import Budget
from dpconvex.privacy.mechanisms import MECHANISMS, build_mechanism
from dpconvex.privacy.mechanisms.base import OUTPUT_SOLVE_MARGIN
from dpconvex.privacy.mechanisms.gaussian_linear import (
    calibrate_gaussian_objective,
    calibrate_gaussian_output,
)
from dpconvex.templates.linear_erm import LinearERMTemplate

# ------------------------------------------------------------------ (a) σ vs analytic


@pytest.mark.parametrize("eps", [0.05, 0.1, 0.5, 1.0, 3.0])
@pytest.mark.parametrize("delta", [1e-10, 1e-6, 1e-3])
def test_objective_sigma_never_below_analytic(eps, delta):
    """(★) with k = 2 and any slack: σ >= Balle–Wang's σ for S = 2G (χ_2 dominates N(0,1))."""
    for lam in (1e-6, 1e-4, 1e-2, 1.0):  # slack from ε/2 (Δ branch) down to ~0
        consts = LinearERMTemplate(get_loss("logistic"), lam, 1.5, np.ones((3, 2)) / 2,
                                   np.array([1.0, -1.0, 1.0])).privacy_constants()
        cal = calibrate_gaussian_objective(eps, delta, 1000, consts, 2)
        S = 2.0 * consts.grad_bound
        assert cal.sensitivity == S
        assert cal.slack <= eps / 2.0 * (1 + 1e-9)
        assert cal.extra["noise std"] >= analytic_gaussian_sigma(eps, delta, S)
        assert cal.extra["delta at sigma"] <= delta


@pytest.mark.parametrize("k", [1, 2])
def test_closed_form_profile_is_the_chi_integral(k):
    """(★) for k <= 2 is computed in closed form, its rounding added. Against E[(1 − e^{c − aR})₊],
    R ~ χ_k, by quadrature of a positive integrand (error ~1e-12 relative): within 1e-7 relative over
    100 random (ε, σ, S, ε_J) with δ from 1 down to 1e-250, and never below it (beyond the quadrature's
    1e-10) over 60 points where ε − ε_J is 1e-12 to 1e-6 and r0 2 to 7, where normal tails nearly cancel."""
    pdf = {1: lambda r: math.sqrt(2 / math.pi) * math.exp(-r * r / 2),
           2: lambda r: r * math.exp(-r * r / 2)}[k]
    assert integrate.quad(pdf, 0, np.inf)[0] == pytest.approx(1.0, rel=1e-12)

    def profile(eps, sigma, S, slack):
        a = S / sigma
        c = eps - slack - a * a / 2
        r0 = max(c / a, 0.0)
        return integrate.quad(lambda r, c, a: -math.expm1(c - a * r) * pdf(r), r0, r0 + 60.0, args=(c, a),
                              epsabs=0.0, epsrel=1e-13, limit=400)[0]

    rng = np.random.default_rng(20261127)
    ordinary = [(eps, 10 ** rng.uniform(-1.5, 2), 10 ** rng.uniform(-1, 1), rng.uniform(0, 0.6) * eps)
                for eps in 10 ** rng.uniform(-2, 1.5, size=100)] + [(1.0, 1e-3, 1.0, 0.0)]
    for case in ordinary:
        want = profile(*case)
        got = objective_gaussian_delta(case[0], case[1], case[2], k, case[3])
        assert isinstance(got, float) and 0.0 <= got <= 1.0
        if want > 1e-250:
            assert got == pytest.approx(want, rel=1e-7), case
    for gap in 10 ** rng.uniform(-12, -6, size=60):  # ε − ε_J, σ for a = S/σ << r0 = (ε − ε_J)/a − a/2
        eps = float(rng.choice([gap, 1.0]))
        case = (eps, 10 ** rng.uniform(0.3, 0.85) / gap, 1.0, eps - gap)
        want = profile(*case)
        assert objective_gaussian_delta(case[0], case[1], case[2], k, case[3]) >= want * (1 - 1e-10), case


def test_profile_bounds_at_extreme_sigma():
    """No noise difference to hide (σ = ∞ or past 1e154, where a rounding bound could read ∞ · 0) gives
    δ = 0; a σ whose square underflows gives δ = 1, not a ZeroDivisionError; results are floats."""
    from dpconvex.privacy.accounting.objective_gaussian import softmax_objective_delta

    for sigma in (1e154, 1e200, math.inf):
        assert [objective_gaussian_delta(1.0, sigma, 1.0, k) for k in (1, 2, 3)] == [0.0, 0.0, 0.0]
        assert softmax_objective_delta(1.0, sigma, 3) == 0.0
    assert softmax_objective_delta(1.0, 1e-170, 3) == 1.0
    assert type(objective_gaussian_delta(1.0, np.float64(3.0), np.float64(2.0), 2)) is float


@pytest.mark.parametrize("eps,delta", [(0.1, 1e-9), (1.0, 1e-5), (4.0, 1e-3)])
def test_output_sigma_is_analytic_for_argmin_sensitivity(eps, delta):
    t = LinearERMTemplate(get_loss("huber", h=0.5), 0.01, 2.0, np.ones((5, 3)) / 3,
                          np.ones(5))
    cal = calibrate_gaussian_output(eps, delta, 400, t.privacy_constants())
    # 2G(1 + κ)/(nΛ), G = |ℓ'| q = 2: the solved point's sensitivity
    S = 2.0 * 2.0 * (1 + OUTPUT_SOLVE_MARGIN) / (400 * 0.01)
    assert cal.sensitivity == pytest.approx(S, rel=1e-12)
    assert cal.extra["noise std"] == pytest.approx(analytic_gaussian_sigma(eps, delta, S),
                                                   rel=1e-12)


def test_amp_cover_sigma_is_analytic_for_twice_the_distance_bound():
    t = LinearERMTemplate(get_loss("logistic"), 0.05, 1.0, np.eye(4), np.ones(4))
    mech = build_mechanism("gaussian_objective", "test", LINEAR_MENU, optimality_tol=1e-5)
    assert mech.name == "gaussian_amp"
    cal = mech.calibrate(t, Budget(1.0, 1e-6))
    main, cover = cal.extra["main"], cal.extra["cover"]
    assert main.epsilon + cover.epsilon <= 1.0 and main.delta + cover.delta <= 1e-6
    rho = 1e-5 / (0.05 + cal.extra_strong_convexity)
    assert cal.extra["noise std"] >= analytic_gaussian_sigma(cover.epsilon, cover.delta, 2 * rho)


@pytest.mark.parametrize("n", [569, 1000, 3220])
def test_the_calibration_line_reads_true_as_printed(n):
    """The certificate prints the δ the calibration reaches and the δ asked with the same
    precision, so that a δ at sigma just below δ = 1/n² never prints above it."""
    t = LinearERMTemplate(get_loss("logistic"), 0.05, 1.0, np.eye(4), np.ones(4))
    mech = build_mechanism("gaussian_objective", "test", LINEAR_MENU)
    budget = Budget(1.0, 1.0 / n**2)
    cal = mech.calibrate(t, budget)
    [line] = [c.detail for c in mech.certificate(t, budget, cal, []).conditions
              if c.name == "noise calibration"]
    printed = [float(x) for x in line.split("<=")[1:]]
    assert printed == sorted(printed), line

def test_registry_flags():
    for name in ("gaussian_objective", "gaussian_output", "gaussian_amp"):
        assert MECHANISMS[name].pure is False and MECHANISMS[name].private
    assert MECHANISMS["gaussian_output"].adds_output_noise
    assert build_mechanism("objective", "t", LINEAR_MENU, optimality_tol=1e-5).name == "amp"


# ------------------------------------------------------- (b) exact privacy profile


def _density_parts(X, y, loss, mu, thetas):
    """b_D(θ) = −n ∇(J_D + Δ/2‖θ‖²)(θ) and log|det ∂b/∂θ| on a batch of θ (rows)."""
    n = X.shape[0]
    M = (X * y[:, None]) @ thetas.T  # margins, (n, m)
    d1 = loss.value_and_deriv(M)[1]
    d2 = loss.deriv2(M)
    grad = ((X * y[:, None]).T @ d1).T / n + mu * thetas  # (m, p)
    p = X.shape[1]
    H = np.einsum("im,ij,ik->mjk", d2, X, X) / n + mu * np.eye(p)  # (m, p, p)
    return -n * grad, np.linalg.slogdet(n * H)[1]


def _log_density(X, y, loss, mu, sigma, thetas):
    b, logdet = _density_parts(X, y, loss, mu, thetas)
    p = X.shape[1]
    return (-0.5 * np.sum(b * b, axis=1) / sigma**2 - p * math.log(sigma)
            - 0.5 * p * math.log(2 * math.pi) + logdet)


def _hockey_stick(D, Dp, loss, lam, eps, sigma, delta_reg, grid_axes):
    """δ(ε) = ∫ (p_D − e^ε p_D′)₊ dθ by the trapezoid rule on a tensor grid, and ∫ p_D."""
    mu = lam + delta_reg
    mesh = np.meshgrid(*grid_axes, indexing="ij")
    thetas = np.stack([m.ravel() for m in mesh], axis=1)
    lpD = _log_density(*D, loss, mu, sigma, thetas)
    lpDp = _log_density(*Dp, loss, mu, sigma, thetas)
    f = np.exp(lpD) * -np.expm1(np.minimum(eps + lpDp - lpD, 0.0))  # (p_D − e^ε p_D′)₊
    shape = tuple(a.size for a in grid_axes)

    def integrate(v):
        v = v.reshape(shape)
        for ax in reversed(grid_axes):
            v = np.trapezoid(v, ax, axis=-1)
        return float(v)
    return integrate(f), integrate(np.exp(lpD))


def _calibrated(loss, lam, X, eps, delta, q):
    t = LinearERMTemplate(loss, lam, q, X, np.ones(X.shape[0]))
    k = min(2, X.shape[1])
    cal = calibrate_gaussian_objective(eps, delta, X.shape[0], t.privacy_constants(), k)
    return cal


def _grid(center, half, m):
    return [np.linspace(c - half, c + half, m) for c in center]


def _theta_center(D, loss, mu, steps=100):
    """The unperturbed minimizer (the density's centre): the iterate after ``steps`` Newton steps
    from 0.

    A step is a function of the iterate alone, so once an iterate repeats an earlier one bit for
    bit, the sequence cycles from there on and the last iterate is read off the cycle (a fixed
    point is a cycle of length 1)."""
    X, y = D
    th = np.zeros(X.shape[1])
    path, seen = [th], {th.tobytes(): 0}
    for k in range(1, steps + 1):
        b, _ = _density_parts(X, y, loss, mu, th[None, :])
        g = -b[0] / X.shape[0]
        M = (X * y[:, None]) @ th
        H = (X.T * loss.deriv2(M)) @ X / X.shape[0] + mu * np.eye(X.shape[1])
        th = th - np.linalg.solve(H, g)
        first = seen.setdefault(th.tobytes(), k)
        if first < k:  # iterate k is iterate `first`: a cycle of length k − first
            return path[first + (steps - first) % (k - first)]
        path.append(th)
    return th


# (loss, Λ, ε, δ, q, data) cases; the replaced record is the last row
_BASE_1D = np.array([[0.3], [-0.8], [1.0], [0.5], [-0.2]])


def _pairs_1d(q):
    X = np.vstack([_BASE_1D, [[q]]])
    y = np.array([1.0, 1.0, -1.0, 1.0, -1.0, 1.0])
    yield (X, y), (X, np.r_[y[:-1], -1.0])  # same x, flipped label
    Xp = np.vstack([_BASE_1D, [[-q]]])
    yield (X, y), (Xp, y)  # x -> -x, same label
    Xz = np.vstack([_BASE_1D, [[0.0]]])
    yield (X, y), (Xz, y)  # x -> 0 (a record outside the label set)


CASES_1D = [
    # huber, large Λ: the mass sits where ℓ' = −1 on both records: ‖v‖ = 2G, Jacobian ratio 1
    ("huber", 20.0, 1.0, 1e-3, 1.0),
    # logistic, small Λ: the slack matters
    ("logistic", 0.05, 1.0, 1e-3, 1.0),
    # Δ branch (slack > ε/2 at Λ): Δ > 0
    ("logistic", 1e-4, 0.5, 1e-2, 2.0),
    ("huber", 1.0, 1.0, 1e-3, 1.0),
]


@pytest.mark.parametrize("loss_name,lam,eps,delta,q", CASES_1D)
def test_exact_profile_1d_within_claim(loss_name, lam, eps, delta, q):
    loss = get_loss(loss_name, **({} if loss_name == "logistic" else {"h": 0.5}))
    X6 = np.vstack([_BASE_1D, [[q]]])
    cal = _calibrated(loss, lam, X6, eps, delta, q)
    sigma, dreg = cal.extra["noise std"], cal.extra_strong_convexity
    if lam == 1e-4:
        assert dreg > 0  # the Δ branch is exercised
    worst = 0.0
    for D, Dp in _pairs_1d(q):
        for A, B in ((D, Dp), (Dp, D)):
            mu = lam + dreg
            c = _theta_center(A, loss, mu)
            spread = 12.0 * sigma / (A[0].shape[0] * mu) + 1.0
            d, mass = _hockey_stick(A, B, loss, lam, cal.epsilon, sigma, dreg,
                                    _grid(c, spread, 20001))
            assert abs(mass - 1.0) < 1e-4  # Huber's kinks: the density jumps
            worst = max(worst, d)
            assert d <= delta * (1 + 1e-6) + abs(mass - 1.0), (d, delta)  # quadrature error
    if loss_name == "huber" and lam >= 10:  # ℓ′ = −1 on both records: ‖v‖ = 2G, near-tight
        assert worst > 0.05 * delta
    # (logistic: ℓ′(m) + ℓ′(−m) = −1, so in 1-D ‖v‖ <= G and δ is far below the claim)


@pytest.mark.parametrize("loss_name,lam,eps,delta,q", [CASES_1D[0]])
def test_exact_profile_1d_half_sigma_mutant_caught(loss_name, lam, eps, delta, q):
    loss = get_loss(loss_name, h=0.5)
    X6 = np.vstack([_BASE_1D, [[q]]])
    cal = _calibrated(loss, lam, X6, eps, delta, q)
    sigma, dreg = 0.5 * cal.extra["noise std"], cal.extra_strong_convexity
    D, Dp = next(_pairs_1d(q))  # flipped label
    mu = lam + dreg
    c = _theta_center(D, loss, mu)
    d, _ = _hockey_stick(D, Dp, loss, lam, cal.epsilon, sigma, dreg,
                         _grid(c, 12.0 * sigma / (6 * mu) + 1.0, 20001))
    assert d > 2.0 * delta


_BASE_2D = np.array([[0.3, 0.2], [-0.5, 0.4], [0.6, -0.6], [0.1, 0.7], [-0.4, -0.3]])


def _pairs_2d(q):
    X = np.vstack([_BASE_2D, [[q, 0.0]]])
    y = np.array([1.0, -1.0, 1.0, 1.0, -1.0, 1.0])
    yield (X, y), (X, np.r_[y[:-1], -1.0])  # same x, flipped label
    Xo = np.vstack([_BASE_2D, [[0.0, q]]])
    yield (X, y), (Xo, np.r_[y[:-1], -1.0])  # orthogonal x′ and flipped label: k = 2


CASES_2D = [
    ("huber", 20.0, 1.0, 1e-3, 1.0),
    ("logistic", 0.1, 1.0, 1e-2, 1.0),
]


@pytest.mark.slow
@pytest.mark.parametrize("loss_name,lam,eps,delta,q", CASES_2D)
def test_exact_profile_2d_within_claim_and_mutant_caught(loss_name, lam, eps, delta, q):
    loss = get_loss(loss_name, **({} if loss_name == "logistic" else {"h": 0.5}))
    X6 = np.vstack([_BASE_2D, [[q, 0.0]]])
    cal = _calibrated(loss, lam, X6, eps, delta, q)
    assert cal.extra["k"] == 2
    sigma, dreg = cal.extra["noise std"], cal.extra_strong_convexity
    mu = lam + dreg
    for D, Dp in _pairs_2d(q):
        for A, B in ((D, Dp), (Dp, D)):
            c = _theta_center(A, loss, mu)
            half = 9.0 * sigma / (6 * mu) + 0.5
            d, mass = _hockey_stick(A, B, loss, lam, cal.epsilon, sigma, dreg,
                                    _grid(c, half, 301))
            assert abs(mass - 1.0) < 1e-4
            assert d <= delta * (1 + 1e-3), (d, delta)
    if loss_name == "huber":  # mutant: σ/2 on the flipped-label pair
        D, Dp = next(_pairs_2d(q))
        c = _theta_center(D, loss, mu)
        d, _ = _hockey_stick(D, Dp, loss, lam, cal.epsilon, 0.5 * sigma, dreg,
                             _grid(c, 9.0 * sigma / (12 * mu) + 0.5, 301))
        assert d > 2.0 * delta


def test_gaussian_linear_mechanisms_refuse_matrix_noise_templates():
    from dpconvex.errors import PrivacyError
    from dpconvex.privacy.release import release
    from dpconvex.templates import EuclideanSpace

    class MatrixNoise:  # the members of the template contract, with symmetric matrix noise
        name = "matrix template"
        kind = "large_margin"
        n = 10
        capabilities = frozenset()
        space = EuclideanSpace((1, 2, 2))
        residual_tol = 1e-6
        noise_symmetric = True
        noise_shape = (1, 2, 2)

        def conditions(self, needs):
            return []

        def assumptions(self, needs):
            return []

    for name in ("gaussian_objective", "gaussian_output"):
        with pytest.raises(PrivacyError, match="symmetric noise"):
            release(MatrixNoise(), name, Budget(1.0, 1e-6), dry_run=True)


@pytest.mark.parametrize("eps, delta", [(0.001, 1e-50), (0.01, 1e-5), (1e-4, 1e-3), (1.0, 1e-5),
                                        (50.0, 1e-5)])
def test_analytic_sigma_meets_delta_on_the_exact_curve_in_high_precision(eps, delta):
    """The calibrated σ's δ(ε) computed with 80 digits (mpmath, a dependency of dp-accounting) is
    at most the target: where Φ(a) and e^ε Φ(b) nearly cancel (small ε, tiny δ) the float
    difference alone lands up to 1e-8 of δ below the true curve, so the calibration reads the
    curve with its rounding bound."""
    import mpmath as mp

    s = analytic_gaussian_sigma(eps, delta, 1.0)
    with mp.workdps(80):
        e, x = mp.mpf(eps), mp.mpf(s)
        exact = mp.ncdf(1 / (2 * x) - e * x) - mp.exp(e) * mp.ncdf(-1 / (2 * x) - e * x)
        assert exact <= mp.mpf(delta)
