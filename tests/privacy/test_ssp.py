"""Sufficient-statistics perturbation
(docs/privacy/sufficient_statistics.md#privacy-sufficient-statistics): sensitivities and
exact privacy loss.

Three checks of every constant in the noise scales:

* the derivation (privacy-ssp-sensitivities): each stated sensitivity is an upper bound on
  the replace-one change over a dense grid of records in one and two dimensions, and is
  attained (to 1e-9) there;
* the exact privacy loss (privacy-ssp-calibration) of the released statistics at neighbouring data sets built
  from corners of the record domain: for the pure form the supremum over outputs of the
  log density ratio, Σ_j β_j ‖f_j(D) − f_j(D′)‖ with the rates of the mechanism's own
  calibration, at most ε (and above ε/2, above 0.999ε where the joint bound is attained:
  the check can fail); for the Gaussian form the hockey-stick divergence of the scaled
  pair, computed from the closed form and by numerical integration, at most δ;
* the audit through the estimator: tests/audit/test_audit_ssp.py.

All tests are deterministic (fixed grids and seeds).
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
import pytest
from scipy import integrate
from scipy.stats import norm

from dpconvex import Budget, release
from dpconvex.data.sufficient import sufficient_statistics
from dpconvex.errors import ParameterError, PrivacyError
from dpconvex.objectives import Logistic
from dpconvex.privacy.mechanisms import get_mechanism
from dpconvex.privacy.mechanisms.ssp import (
    RIDGE_STEPS,
    TOTAL_SENSITIVITY,
    cross_sensitivity,
    estimated_risk,
    gram_sensitivity,
    joint_sensitivity,
    noise_norm_bound,
    ridge_candidates,
    ridge_solution,
    risk_noise,
    select_ridge,
    statistics_of,
)
from dpconvex.privacy.noise import norm_gamma
from dpconvex.templates import LinearERMTemplate
from dpconvex.templates.statistics import SufficientStatisticsTemplate, zero_statistics


def _template(X: np.ndarray, u: np.ndarray, q: float, s: float | None,
              ridge: float | None = None) -> SufficientStatisticsTemplate:
    p = X.shape[1] + (s is not None)
    bound = math.hypot(q, s) if s is not None else q
    free = None if s is None else X.shape[1]  # the intercept column: the label sum is released
    return SufficientStatisticsTemplate(sufficient_statistics(X, u, q, s), X.shape[0], p, bound,
                                        ridge=ridge, free=free, free_value=s)


def _records(d: int, q: float) -> list[np.ndarray]:
    """A grid of rows of norm <= q: the circle (or the two ends) and 0."""
    if d == 1:
        return [np.array([v]) for v in (-q, -q / 2, 0.0, q / 2, q)]
    angles = np.linspace(0.0, 2 * math.pi, 24, endpoint=False)
    return [q * np.array([math.cos(a), math.sin(a)]) for a in angles] + [np.zeros(2)]


@functools.cache
def _corner_statistics(d: int, q: float, s: float | None) -> tuple[dict, ...]:
    """The statistics of three fixed records with the first replaced by each corner of the
    domain (a row of the grid, a label ±1): every pair of them is a pair of neighbours."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(3, d))
    X *= q / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), q)
    u = np.array([1.0, -0.5, 0.25])
    # the public facts (parts, free column, s) as a calibration reads them: the run's own
    facts = get_mechanism("gaussian_ssp").calibrate(_template_of(d, q, s, None),
                                                    Budget(1.0, 1e-5)).extra
    return tuple(statistics_of(_template(np.vstack([x, X[1:]]), np.concatenate([[lab], u[1:]]),
                                         q, s), facts)
                 for x in _records(d, q) for lab in (-1.0, 1.0))


def _neighbours(d: int, q: float, s: float | None):
    """(f(D), f(D′)) for every pair of neighbours of :func:`_corner_statistics`."""
    return itertools.product(_corner_statistics(d, q, s), repeat=2)


@functools.cache
def _distances(d: int, q: float, s: float | None) -> tuple[dict[str, float], ...]:
    """‖f_j(D) − f_j(D′)‖ of each statistic j for every pair of :func:`_neighbours`, in its
    order: one norm per pair and statistic, shared by the checks that read them."""
    return tuple({part: float(np.linalg.norm(np.asarray(a[part]) - np.asarray(b[part]))) for part in a}
                 for a, b in _neighbours(d, q, s))


def _template_of(d: int, q: float, s: float | None, ridge: float | None
                 ) -> SufficientStatisticsTemplate:
    """A template of the case's public shape (what the calibration reads)."""
    p = d + (s is not None)
    bound = math.hypot(q, s) if s is not None else q
    return SufficientStatisticsTemplate(zero_statistics(p), 3, p, bound, ridge=ridge,
                                        free=None if s is None else d, free_value=s)


CASES = [(1, 1.0, 1.0), (1, 2.0, 0.5), (2, 1.0, 1.0), (2, 1.0, None), (2, 0.7, None)]


# ----------------------------------------------------------------- the derivation
@pytest.mark.parametrize("d, q, s", CASES)
def test_each_sensitivity_bounds_the_replace_one_change_and_is_attained(d, q, s):
    qt = math.hypot(q, s) if s is not None else q
    worst = {"gram": 0.0, "cross": 0.0}
    for dist in _distances(d, q, s):
        for part in dist:  # the label sum too, with an intercept column
            worst[part] = max(worst.get(part, 0.0), dist[part])
    stated = {"gram": gram_sensitivity(qt), "cross": cross_sensitivity(qt), "total": TOTAL_SENSITIVITY}
    for part in worst:
        assert worst[part] <= stated[part] * (1 + 1e-12), part
    # the Gram and cross bounds are attained: orthogonal rows of norm q~ (two dimensions, or
    # x = ±q beside the intercept column s = q), and one row with its label flipped
    assert worst["cross"] == pytest.approx(stated["cross"], rel=1e-9)
    assert ("total" in worst) == (s is not None)
    if s is not None:  # a label flipped moves the sum by 2
        assert worst["total"] == pytest.approx(stated["total"], rel=1e-9)
    if s is None or s == q:
        assert worst["gram"] == pytest.approx(stated["gram"], rel=1e-9)


@pytest.mark.parametrize("d, q, s", CASES)
def test_the_joint_bounds_hold_over_the_grid(d, q, s):
    """Σ_j (‖Δf_j‖/Δ_j)² <= 25/16 and Σ_j ‖Δf_j‖/Δ_j <= G₂ for (A, b), + 1 with the label sum."""
    qt = math.hypot(q, s) if s is not None else q
    sens = {"gram": gram_sensitivity(qt), "cross": cross_sensitivity(qt), "total": TOTAL_SENSITIVITY}
    for parts in [("gram", "cross"), *([("gram", "cross", "total")] if s is not None else [])]:
        l1 = l2 = 0.0
        for dist in _distances(d, q, s):
            r = [dist[k] / sens[k] for k in parts]
            l1, l2 = max(l1, sum(r)), max(l2, math.sqrt(sum(v * v for v in r)))
        assert l1 <= joint_sensitivity(parts, "l1") * (1 + 1e-12)
        assert l2 <= joint_sensitivity(parts, "l2") * (1 + 1e-12)
    # the constants: 8c^2 + c - 1 = 0 at the maximum of sqrt(1 - c^2) + sqrt((1 + c)/2)
    c = np.linspace(0.0, 1.0, 100001)
    assert joint_sensitivity(("gram", "cross"), "l1") == pytest.approx(
        float(np.max(np.sqrt(1 - c**2) + np.sqrt((1 + c) / 2))), abs=1e-9)
    assert joint_sensitivity(("gram", "cross"), "l2") ** 2 == pytest.approx(
        float(np.max(1 - c**2 + (1 + c) / 2)), abs=1e-9)


# ---------------------------------------------------------- the exact privacy loss
def _pure_loss(cal, dist: dict[str, float]) -> float:
    """sup over outputs of ln p_D(o)/p_D′(o) = Σ_j β_j ‖f_j(D) − f_j(D′)‖ (norm-based densities),
    from the distances ‖f_j(D) − f_j(D′)‖ of the pair (:func:`_distances`)."""
    return sum(rate * dist[part] for part, rate in cal.extra["noise rate"].items())


@pytest.mark.parametrize("d, q, s", CASES)
@pytest.mark.parametrize("ridge", [None, 2.0])
def test_exact_privacy_loss_of_the_pure_release_is_at_most_epsilon(d, q, s, ridge):
    budget = Budget(1.0)
    cal = get_mechanism("ssp").calibrate(_template_of(d, q, s, ridge), budget)
    assert ("total" in cal.extra["noise rate"]) == (s is not None)  # the label sum, covered
    worst = max(_pure_loss(cal, dist) for dist in _distances(d, q, s))
    assert worst <= budget.epsilon * (1 + 1e-12)
    assert worst > 0.5 * budget.epsilon  # the check can fail: the loss reaches most of epsilon
    if d == 2:  # and the joint bound G is attained on the circle
        assert worst > 0.999 * budget.epsilon


def test_the_pure_density_ratio_at_drawn_outputs_is_at_most_its_supremum():
    """ln p_D(o) − ln p_D′(o) evaluated at outputs drawn from the calibrated noise, for the
    worst pair of the grid: never above the supremum, which is at most ε."""
    budget = Budget(1.0)
    cal = get_mechanism("ssp").calibrate(_template_of(1, 1.0, 1.0, None), budget)
    losses = [_pure_loss(cal, dist) for dist in _distances(1, 1.0, 1.0)]
    worst = losses.index(max(losses))  # the first pair of the largest loss
    a, b = list(_neighbours(1, 1.0, 1.0))[worst]
    rates = cal.extra["noise rate"]
    fa = {part: np.asarray(a[part]) for part in rates}
    rng = np.random.default_rng(1)
    outs = {part: [] for part in rates}  # the 2000 outputs of each statistic, drawn in turn
    for _ in range(2000):
        for part, rate in rates.items():
            shape = fa[part].shape
            noise = (rng.laplace(0.0, 1.0 / rate, size=shape)
                     if part == "total"
                     else norm_gamma(shape, rate, rng, symmetric=part == "gram"))
            outs[part].append(fa[part] + noise)
    # the log density ratio of each output: Σ_j β_j (‖o_j − f_j(D′)‖ − ‖o_j − f_j(D)‖), the
    # norms of all outputs at once (one row per output)
    ratios = 0.0
    for part, rate in rates.items():
        out = np.array(outs[part]).reshape(2000, -1)
        ratios = ratios + rate * (np.linalg.norm(out - np.ravel(b[part]), axis=1)
                                  - np.linalg.norm(out - fa[part].ravel(), axis=1))
    assert float(np.max(ratios)) <= losses[worst] * (1 + 1e-12) <= budget.epsilon


def _gaussian_delta(mu: float, epsilon: float) -> float:
    """δ(ε) of N(μ, 1) against N(0, 1): the closed form of Balle & Wang (2018), Thm. 8."""
    return float(norm.cdf(-epsilon / mu + mu / 2) - math.exp(epsilon) * norm.cdf(-epsilon / mu - mu / 2))


_SQRT_2PI = np.sqrt(2 * np.pi)


def _phi(x: float) -> float:
    """The standard normal density at a point, in the operations of ``scipy.stats.norm.pdf``
    (exp(−x²/2)/√(2π): the same bits) without its per-call argument checks."""
    return np.exp(-(x * x) / 2.0) / _SQRT_2PI


def _hockey_stick(mu: float, epsilon: float) -> float:
    """∫ max(0, φ(x − μ) − e^ε φ(x)) dx by quadrature: the same δ(ε) independently."""
    e_eps = math.exp(epsilon)

    def gap(x: float) -> float:
        return max(0.0, _phi(x - mu) - e_eps * _phi(x))

    cut = epsilon / mu + mu / 2  # the density ratio exceeds e^ε beyond this point
    return float(integrate.quad(gap, cut, cut + 40.0, epsabs=1e-14, epsrel=1e-10, limit=200)[0])


@pytest.mark.parametrize("d, q, s", CASES)
@pytest.mark.parametrize("ridge", [None, 2.0])
def test_exact_privacy_loss_of_the_gaussian_release_is_at_most_delta(d, q, s, ridge):
    budget = Budget(1.0, 1e-5)
    cal = get_mechanism("gaussian_ssp").calibrate(_template_of(d, q, s, ridge), budget)
    worst = 0.0
    for dist in _distances(d, q, s):
        mu_sq = sum(dist[part] ** 2 / sigma**2 for part, sigma in cal.extra["noise std"].items())
        worst = max(worst, math.sqrt(mu_sq))
    delta = _gaussian_delta(worst, budget.epsilon)
    assert delta <= budget.delta
    assert _hockey_stick(worst, budget.epsilon) == pytest.approx(delta, rel=1e-6, abs=1e-15)
    # and the calibration is not loose: the worst scaled shift is most of 1/sigma_unit, all of
    # it where the joint bound 5/4 is attained (rows at cos = 1/4, the circle's 75 degrees)
    assert worst >= 0.6 / cal.extra["unit sigma"]
    if d == 2:
        assert worst >= 0.999 / cal.extra["unit sigma"]


# ---------------------------------------------------------------- post-processing
def test_ridge_solution_with_a_public_diagonal_shrinks_towards_the_centre():
    """With the intercept's public entry n·s² and a centre c, θ minimizes
    ‖X̃θ − u‖² + λ‖θ − c e_s‖² (exact statistics); a large λ returns θ ≈ c e_s: a model
    whose coefficients the noise forces to 0 predicts the released mean, not the midpoint."""
    rng = np.random.default_rng(3)
    X = np.column_stack([rng.uniform(-0.5, 0.5, size=(50, 2)), np.full(50, 0.5)])
    u = np.clip(-0.6 + X[:, 0] + 0.1 * rng.normal(size=50), -1, 1)
    A, b, centre = X.T @ X, X.T @ u, float(u.mean()) / 0.5
    for lam in (0.5, 1e6):
        start = np.array([0.0, 0.0, centre])
        expected = start + np.linalg.solve(A + lam * np.eye(3), b - A @ start)
        got = ridge_solution(A, b, lam, free=2, free_diagonal=50 * 0.25, centre=centre)
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)
    assert float(got[2]) * 0.5 == pytest.approx(float(u.mean()), abs=1e-4)
    assert float(np.max(np.abs(got[:2]))) < 1e-4


def test_ridge_solution_is_the_ridge_regression_of_the_statistics():
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(50, 3))
    A, b = Z.T @ Z, Z.T @ rng.normal(size=50)
    np.testing.assert_allclose(ridge_solution(A, b, 2.0), np.linalg.solve(A + 2 * np.eye(3), b))
    # a non-PSD noisy matrix: its negative eigenvalues are set to 0 before the ridge
    M = np.diag([4.0, -3.0, 1.0])
    np.testing.assert_allclose(ridge_solution(M, np.ones(3), 1.0), [0.2, 1.0, 0.5])


def test_noise_norm_bound_follows_wang_2018_and_holds_for_the_gaussian_noise():
    """R = s √(p log(2p²/ρ)); the spectral norm of the calibrated symmetric Gaussian noise is
    below R in every one of 400 draws (P(above) <= ρ = 0.05 by the bound; the norm's mean is
    about 2s√(p/2), well below R: measured false alarm 0)."""
    s, p = 3.0, 4
    assert noise_norm_bound(s, p) == pytest.approx(s * math.sqrt(p * math.log(2 * p * p / 0.05)))
    law = get_mechanism("gaussian_ssp").noise_law(get_mechanism("gaussian_ssp").calibrate(
        _template_of(3, 1.0, 1.0, None), Budget(1.0, 1e-5)), "gram")
    rng = np.random.default_rng(4)
    norms = [np.linalg.norm(law.sample((p, p), rng), 2) for _ in range(400)]
    assert max(norms) < noise_norm_bound(law.sigma, p)
    # the pure form's norm-Gamma noise at its per-coordinate scale: above R in at most ρ of
    # 2,000 draws at p = 4 (measured 0.6 %; 2.2 % at p = 3, 5.2 % at p = 2: a scale there)
    pure = get_mechanism("ssp")
    cal = pure.calibrate(_template_of(3, 1.0, 1.0, None), Budget(1.0))
    bound = noise_norm_bound(pure.scales(cal)["gram"], p)
    above = [np.linalg.norm(pure.noise_law(cal, "gram").sample((p, p), rng), 2) > bound for _ in range(2000)]
    assert np.mean(above) <= 0.05


def _risk_case(seed: int, p: int = 3, n: int = 400):
    """Exact statistics of a small well-conditioned regression (A = XᵀX, b = Xᵀu, Σu²)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) / math.sqrt(p)
    u = np.clip(X @ np.linspace(0.5, -0.5, p) + 0.3 * rng.normal(size=n), -1, 1)
    return X.T @ X, X.T @ u


@pytest.mark.parametrize("sigma_A, sigma_b, ridge", [(10.0, 10.0, 30.0), (20.0, 20.0, 60.0)])
def test_the_estimated_risk_corrects_the_plug_in_on_average(sigma_A, sigma_b, ridge):
    """Over 3000 draws of the package's symmetric Gaussian noise on A (σ_A per coordinate of
    the orthonormal basis) and of noise on b, at a fixed ridge (A's eigenvalues 120–137): the
    mean of estimated_risk − the true risk θᵀAθ − 2θᵀb is within 4 standard errors of 0
    (false alarm 6e-5 were the estimate unbiased; measured: within 1), while the plug-in
    alone is optimistic by more than 8 standard errors (measured: 21 and 35)."""
    A, b = _risk_case(0)
    p = len(b)
    rng = np.random.default_rng(1)
    gaps, plug_gaps = [], []
    for _ in range(3000):
        G = rng.normal(0.0, sigma_A, size=(p, p))
        noisy_A, noisy_b = A + 0.5 * (G + G.T), b + sigma_b * rng.normal(size=p)
        H = np.linalg.inv(noisy_A + ridge * np.eye(p))
        theta = H @ noisy_b
        true = float(theta @ A @ theta - 2 * theta @ b)
        follow = sigma_b**2 * float(np.trace(H))  # E[θᵀe] for θ = Hb̃
        gaps.append(estimated_risk(theta, noisy_A, noisy_b, H, sigma_A**2, follow) - true)
        plug_gaps.append(estimated_risk(theta, noisy_A, noisy_b, H, 0.0, 0.0) - true)
    se = float(np.std(gaps)) / math.sqrt(len(gaps))
    assert abs(float(np.mean(gaps))) < 4 * se
    assert float(np.mean(plug_gaps)) < -8 * float(np.std(plug_gaps)) / math.sqrt(len(gaps))


def test_risk_noise_is_the_spread_of_the_plug_in_difference():
    """The standard deviation over 4000 draws of the package's Gaussian noise of
    (θ₀ + Δ)ᵀÃ(θ₀ + Δ) − 2(θ₀ + Δ)ᵀb̃ − (θ₀ᵀÃθ₀ − 2θ₀ᵀb̃) at fixed Δ and θ₀ is within 5 % of
    risk_noise (its standard error is 1.1 %: false alarm < 1e-5), and a form without the θ₀
    term is off by more than 20 %: the check can fail."""
    rng = np.random.default_rng(5)
    p, sigma_A, sigma_b = 4, 3.0, 2.0
    step, start = np.array([0.5, -1.0, 0.3, 0.0]), np.array([0.0, 0.0, 0.0, 1.5])
    A, b = np.eye(p) * 50.0, np.ones(p)
    cal_noise = get_mechanism("gaussian_ssp")
    law = cal_noise.noise_law(cal_noise.calibrate(_template_of(3, 1.0, 1.0, None), Budget(1.0, 1e-5)), "gram")
    scale = sigma_A / law.sigma
    diffs = []
    for _ in range(4000):
        E, e = law.sample((p, p), rng) * scale, sigma_b * rng.normal(size=p)
        theta = start + step
        diffs.append(float(theta @ (A + E) @ theta - 2 * theta @ (b + e)
                           - (start @ (A + E) @ start - 2 * start @ (b + e))))
    spread = float(np.std(diffs))
    assert spread == pytest.approx(risk_noise(step, start, sigma_A**2, sigma_b**2), rel=0.05)
    assert abs(spread / risk_noise(step, 0 * start, sigma_A**2, sigma_b**2) - 1) > 0.2


def test_select_ridge_follows_the_noise():
    """Small noise: a small ridge and θ near the least-squares fit; noise on b far above the
    signal: λ = ∞, θ the centre; a candidate with M + λI not positive definite is skipped."""
    A, b = _risk_case(2)
    ls = np.linalg.solve(A, b)
    lam, theta = select_ridge(A, b, (1.0, 10.0, 1e4), 1e-4, 1e-4)
    assert lam == 1.0 and np.allclose(theta, ls, atol=0.01)
    assert select_ridge(A, b, (1.0, 10.0, 1e4), 1.0, 1e6) == (math.inf, pytest.approx(np.zeros(3)))



def test_the_margin_changes_the_choice():
    """A gain within half the noise's spread is not taken: the estimated risk of λ = 1 is −0.24,
    its noise 0.50, so λ = ∞ (θ = 0 without an intercept) is released."""
    A, b = np.diag([100.0, 100.0]), np.array([8.0, 0.0])
    cands = ridge_candidates(A, b, (1.0,), 0.0, 10.0)
    assert cands[1].risk == pytest.approx(-0.2436, abs=1e-3)
    assert cands[1].noise == pytest.approx(0.501, abs=1e-3)
    assert select_ridge(A, b, (1.0,), 0.0, 10.0) == (math.inf, pytest.approx(np.zeros(2)))
    assert select_ridge(A, 2 * b, (1.0,), 0.0, 10.0)[0] == 1.0  # a larger gain is taken


@pytest.mark.parametrize("ridge", [40.0, pytest.param(400.0, marks=pytest.mark.slow)])
def test_the_estimated_risk_with_an_intercept_counts_the_centre_s_noise(ridge):
    """With an intercept the centre θ₀ = b̃_s/(n s²) follows the noise as well. Over 3000
    draws (σ_A = σ_b = 10 on exact statistics of 400 rows, two features and s = 1), the mean
    of the estimated risk − the true risk is within 4 standard errors of 0 at λ = ∞ and at a
    finite λ (false alarm 6e-5 were it unbiased), while without the centre's term
    (var_free = 0) λ = ∞ is favoured by 2v_b/(n s²) = 0.5, more than 4 standard errors."""
    rng = np.random.default_rng(7)
    n, sigma = 400, 10.0
    X = np.column_stack([rng.normal(size=(n, 2)) / 2, np.ones(n)])
    u = np.clip(0.4 * X[:, 0] - 0.2 + 0.3 * rng.normal(size=n), -1, 1)
    A, b = X.T @ X, X.T @ u
    gaps = {"inf": [], "ridge": [], "inf_uncounted": []}
    for _ in range(3000):
        G = rng.normal(0.0, sigma, size=(3, 3))
        noisy_A, noisy_b = A + 0.5 * (G + G.T), b + sigma * rng.normal(size=3)
        kw = {"free": 2, "free_diagonal": float(n), "centre": float(noisy_b[2] / n)}
        cands = ridge_candidates(noisy_A, noisy_b, (ridge,), sigma**2, sigma**2, **kw)
        assert [c.ridge for c in cands] == [math.inf, ridge]
        for key, cand in (("inf", cands[0]), ("ridge", cands[1])):
            gaps[key].append(cand.risk - float(cand.theta @ A @ cand.theta - 2 * cand.theta @ b))
        bare = ridge_candidates(noisy_A, noisy_b, (), sigma**2, sigma**2, var_free=0.0, **kw)[0]
        gaps["inf_uncounted"].append(bare.risk - float(bare.theta @ A @ bare.theta - 2 * bare.theta @ b))
    se = {k: float(np.std(v)) / math.sqrt(len(v)) for k, v in gaps.items()}
    assert abs(float(np.mean(gaps["inf"]))) < 4 * se["inf"]
    assert abs(float(np.mean(gaps["ridge"]))) < 4 * se["ridge"]
    assert float(np.mean(gaps["inf_uncounted"])) < -4 * se["inf_uncounted"]


@pytest.mark.parametrize("name", ["ssp", "gaussian_ssp"])
def test_the_stated_variances_are_those_of_the_noise_draws(name):
    """variance(cal, part) against draws of noise_law (two features and an intercept column):
    on A the diagonal's and the off-diagonal's (half of it) variance and on b a coordinate's
    over 8,000 draws, on S over 20,000, within 10 % (the sample variances' standard errors are at
    most 2.1 %, measured: more than 4.5 standard errors, false alarm < 1e-5); unit divides the
    standard deviation."""
    mech = get_mechanism(name)
    template = _template_of(2, 1.0, 1.0, None)
    cal = mech.calibrate(template, Budget(1.0, 0.0 if name == "ssp" else 1e-5))
    rng = np.random.default_rng(8)
    draws = np.array([mech.noise_law(cal, "gram").sample((3, 3), rng) for _ in range(8000)])
    v = mech.variance(cal, "gram")
    assert float(np.var(draws[:, 0, 0])) == pytest.approx(v, rel=0.1)
    assert float(np.var(draws[:, 0, 1])) == pytest.approx(v / 2, rel=0.1)
    cross = np.array([mech.noise_law(cal, "cross").sample((3,), rng) for _ in range(8000)])
    assert float(np.var(cross[:, 0])) == pytest.approx(mech.variance(cal, "cross"), rel=0.1)
    assert mech.variance(cal, "gram", 4.0) == pytest.approx(v / 16)
    assert "total" in cal.extra["parts"]  # an intercept column (s = 1): S is released
    total = mech.noise_law(cal, "total").sample((20000,), rng)  # one coordinate: independent draws
    assert float(np.var(total)) == pytest.approx(mech.variance(cal, "total"), rel=0.1)


def test_the_chosen_theta_is_the_ridge_solution_at_the_chosen_ridge():
    """Over 200 random noisy systems, with a centred intercept, an unpenalised one and none,
    select_ridge's θ is ridge_solution's at the λ it chose (relative difference < 1e-9)."""
    rng = np.random.default_rng(9)
    for _ in range(200):
        p = int(rng.integers(2, 6))
        Z = rng.normal(size=(60, p))
        Z[:, -1] = 1.0
        gram = Z.T @ Z + rng.normal(0, 5, size=(p, p))
        cross = Z.T @ rng.normal(size=60) + rng.normal(0, 5, size=p)
        for kw in ({}, {"free": p - 1}, {"free": p - 1, "free_diagonal": 60.0,
                                         "centre": float(cross[-1] / 60)}):
            lam, theta = select_ridge(gram, cross, (0.5, 5.0, 50.0), 25.0, 25.0, **kw)
            if math.isfinite(lam):
                np.testing.assert_allclose(theta, ridge_solution(gram, cross, lam, **kw),
                                           rtol=1e-9, atol=1e-9)


def _direct_candidates(gram, cross, candidates, v_a, v_b, *, free=None, free_diagonal=None,
                       centre=0.0, var_free=None):
    """ridge_candidates' finite candidates from one solve and one explicit inverse of M + λD
    per λ (the documented formulas, privacy-ssp-release), and the largest condition number."""
    p = len(cross)
    e, V = np.linalg.eigh(gram)
    M = (V * np.maximum(e, 0.0)) @ V.T
    start, D = np.zeros(p), np.eye(p)
    centred = free_diagonal is not None
    v_s = v_b if var_free is None else var_free
    if centred:
        M[free, free], start[free] = free_diagonal, centre
    elif free is not None:
        D[free, free], start[free] = 0.0, cross[free] / M[free, free]
    origin = start if centred else np.zeros(p)
    out, worst = [], 1.0
    for lam in candidates:
        K = M + lam * D
        if np.linalg.eigvalsh(K)[0] <= 0:
            continue
        worst = max(worst, float(np.linalg.cond(K)))
        theta = origin + np.linalg.solve(K, cross - M @ origin)
        H = np.linalg.inv(K)
        F = v_b * np.trace(H)
        if free is not None:
            F += (v_s - v_b) * H[free, free] + (v_s * H[free, free] * lam / free_diagonal
                                                 if centred else 0.0)
        out.append((lam, theta, estimated_risk(theta, M, cross, H, v_a, F),
                    risk_noise(theta - start, start, v_a, v_b),
                    abs(theta @ M @ theta) + 2 * abs(theta @ cross) + 2 * abs(F)
                    + v_a * (theta @ H @ theta + np.trace(H) * theta @ theta)))
    return out, worst


@pytest.mark.parametrize("kind", ["none", "centred", "unpenalised"])
def test_each_candidate_equals_its_own_direct_solve(kind):
    """Each candidate of ridge_candidates (θ, estimated risk, noise spread; one
    eigendecomposition of M shifted by λ where the penalty is I) equals a direct solve and an
    explicit inverse of M + λD for that λ alone, on a noisy 6-feature system whose projection
    acts. Both are backward stable, so they differ by at most about p·κ·eps relative to the
    size of each term, κ the largest condition number of M + λD over the candidates: tolerance
    100·κ·eps (κ = 1.6e4, 1.7e4 and 237 here: 3.6e-10, 3.8e-10, 5.3e-12; measured differences
    at most 8.3e-13)."""
    rng = np.random.default_rng(13)
    p = 6
    Z = rng.normal(size=(40, p)) / 2
    Z[:, -1] = 0.5
    gram = Z.T @ Z + 0.5 * (lambda G: G + G.T)(rng.normal(0, 3.0, size=(p, p)))
    cross = Z.T @ np.clip(Z @ np.linspace(1, -1, p), -1, 1) + rng.normal(0, 3.0, size=p)
    assert np.linalg.eigvalsh(gram)[0] < 0  # the projection onto the PSD cone acts
    kw = {"none": {}, "unpenalised": {"free": p - 1},
          "centred": {"free": p - 1, "free_diagonal": 10.0, "centre": float(cross[-1] / 10.0),
                      "var_free": 4.0}}[kind]
    lams = (1e-3, 0.01, 0.1, 1.0, 10.0, 100.0)
    got = ridge_candidates(gram, cross, lams, 9.0, 9.0, **kw)
    expected, kappa = _direct_candidates(gram, cross, lams, 9.0, 9.0, **kw)
    tol = 100 * kappa * np.finfo(float).eps
    assert kappa > 10 and tol < 1e-8
    assert [c.ridge for c in got[1:]] == [lam for lam, *_ in expected] == list(lams)
    for cand, (_, theta, risk, noise, size) in zip(got[1:], expected, strict=True):
        np.testing.assert_allclose(cand.theta, theta, rtol=0,
                                   atol=tol * float(np.max(np.abs(theta))))
        assert abs(cand.risk - risk) <= tol * size
        assert cand.noise == pytest.approx(noise, rel=tol)


def test_a_candidate_whose_matrix_is_not_positive_definite_is_skipped():
    """M = [[100, 10], [10, a]] with the public intercept entry a = 0.01 is indefinite; at
    λ = 0.5 it stays so (det < 0) and the candidate is left out, at λ = 1 it is kept."""
    gram = np.array([[100.0, 10.0], [10.0, 1.0]])
    kw = {"free": 1, "free_diagonal": 0.01, "centre": 0.2}
    assert [c.ridge for c in ridge_candidates(gram, np.ones(2), (0.5, 1.0), 1e-6, 1e-6, **kw)] \
        == [math.inf, 1.0]


def _chosen_theta(noisy: dict, cal, n: int, q: float, s: float) -> tuple[np.ndarray, bool]:
    """The Gaussian form's θ for ``lam="auto"`` written out from the docs
    (privacy-ssp-release) in plain NumPy, and whether the centre was clipped."""
    sd = cal.extra["noise std"]
    v_a, v_b, v_t = sd["gram"] ** 2, sd["cross"] ** 2, (s * sd["total"]) ** 2
    p, a, k = len(noisy["cross"]), n * s * s, len(noisy["cross"]) - 1
    cross = np.array(noisy["cross"], dtype=float)
    cross[k] = (cross[k] / v_b + s * noisy["total"][0] / v_t) / (1 / v_b + 1 / v_t)
    v_s = 1 / (1 / v_b + 1 / v_t)
    raw = cross[k] / a
    start = np.zeros(p)
    start[k] = min(max(raw, -1 / s), 1 / s)
    e, V = np.linalg.eigh(noisy["gram"])
    M = (V * np.maximum(e, 0)) @ V.T
    M[k, k] = a
    R = sd["gram"] * math.sqrt(p * math.log(2 * p * p / 0.05))
    options = [(float(start @ M @ start - 2 * start @ cross + 2 * v_s / a), start)]
    for lam in sorted({max(2.0**j * R, sd["gram"]) for j in range(-6, 7)}):
        K = M + lam * np.eye(p)
        if np.linalg.eigvalsh(K)[0] <= 0:
            continue
        H = np.linalg.inv(K)
        theta = start + H @ (cross - M @ start)
        F = v_b * (np.trace(H) - H[k, k]) + v_s * H[k, k] * (1 + lam / a)
        risk = (theta @ M @ theta - 2 * theta @ cross + 2 * F
                + v_a * (theta @ H @ theta + np.trace(H) * theta @ theta))
        step, w = theta - start, theta + start
        noise = math.sqrt(4 * v_b * step @ step + v_a / 2 * ((step @ step) * (w @ w) + (step @ w) ** 2))
        options.append((float(risk + 0.5 * noise), theta))
    return min(options, key=lambda o: o[0])[1], abs(raw) > 1 / s


@pytest.mark.parametrize("epsilon, clipped", [(1.0, False), (0.02, True)])
def test_run_is_the_documented_choice_on_the_statistics_it_released(epsilon, clipped):
    """A seeded Gaussian release with q = 1.5 and s = 0.5 (noise scales on A, b and S all
    different) equals the choice written out from the docs on the statistics reproduced from
    the same generator; at ε = 0.02 the released mean leaves the range and is clipped."""
    rng = np.random.default_rng(10)
    X = rng.normal(size=(300, 2)) / 2
    template = _template(X, np.clip(0.3 + X @ [0.8, -0.4], -1, 1), 1.5, 0.5)
    mech = get_mechanism("gaussian_ssp")
    cal = mech.calibrate(template, Budget(epsilon, 1e-5))
    theta = mech.run(template, cal, None, np.random.default_rng(11))[0]
    stats, draw = statistics_of(template, cal.extra), np.random.default_rng(11)
    noisy = {part: mech.noise_law(cal, part).add(stats[part], draw) for part in cal.extra["parts"]}
    expected, was_clipped = _chosen_theta(noisy, cal, 300, 1.5, 0.5)
    assert was_clipped == clipped
    np.testing.assert_allclose(theta, expected, rtol=1e-9, atol=1e-12)


def test_each_candidate_s_risk_counts_how_theta_follows_the_released_b():
    """θ is affine in b̃ (the centre b̃_s/a included), so E[θᵀe] = Σ_i v_i ∂θ_i/∂b̃_i exactly;
    with the derivatives by finite differences of ridge_solution and M = Π₊(Ã) with the
    public entry a computed here, each candidate's risk is estimated_risk with that E[θᵀe]."""
    rng = np.random.default_rng(12)
    p, a, v_b, v_s, v_a = 4, 80.0, 25.0, 4.0, 9.0
    Z = rng.normal(size=(80, p))
    Z[:, -1] = 1.0
    gram = Z.T @ Z + 0.5 * (lambda G: G + G.T)(rng.normal(0, 3, size=(p, p)))
    cross = Z.T @ rng.normal(size=80) + 5.0
    e, V = np.linalg.eigh(gram)
    M = (V * np.maximum(e, 0)) @ V.T
    M[-1, -1] = a
    for cand in ridge_candidates(gram, cross, (2.0, 20.0, 200.0), v_a, v_b, free=p - 1,
                                 free_diagonal=a, centre=float(cross[-1] / a), var_free=v_s)[1:]:
        def theta_of(b, lam=cand.ridge):
            return ridge_solution(gram, b, lam, free=p - 1, free_diagonal=a, centre=float(b[-1] / a))
        follow = sum((v_s if i == p - 1 else v_b) * (theta_of(cross + np.eye(p)[i])[i] - theta_of(cross)[i])
                     for i in range(p))
        H = np.linalg.inv(M + cand.ridge * np.eye(p))
        assert cand.risk == pytest.approx(estimated_risk(cand.theta, M, cross, H, v_a, follow), rel=1e-9)


def test_the_candidates_are_public_and_above_the_noise_scale():
    template = _template_of(2, 1.0, 1.0, None)
    for name in ("ssp", "gaussian_ssp"):
        mech = get_mechanism(name)
        cal = mech.calibrate(template, Budget(1.0, 0.0 if name == "ssp" else 1e-5))
        scale = mech.scales(cal)["gram"]
        got = mech.ridge_grid(template, cal)
        assert min(got) >= scale and len(got) <= len(RIDGE_STEPS)
        assert max(got) == pytest.approx(RIDGE_STEPS[-1] * noise_norm_bound(scale, template.p))
    assert RIDGE_STEPS == tuple(2.0**k for k in range(-6, 7))  # as docs/privacy states


def test_the_noise_draws_have_the_calibrated_scales():
    """E‖E‖_F² of the Gaussian symmetric noise is σ² p(p+1)/2 (isotropic in the orthonormal
    basis) and an off-diagonal entry has variance σ²/2: over 4000 draws the estimates lie
    within 5 % and 10 % (5.5 and 4.5 standard errors: false alarm < 1e-5)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3)) / 2
    t = _template(X, np.clip(X[:, 0], -1, 1), 1.0, None)
    mech, budget = get_mechanism("gaussian_ssp"), Budget(1.0, 1e-5)
    cal = mech.calibrate(t, budget)
    sigma = cal.extra["noise std"]["gram"]
    draws = np.array([np.sum(mech.noise_law(cal, "gram").sample((3, 3), rng) ** 2) for _ in range(4000)])
    assert draws.mean() / (sigma**2 * 6) == pytest.approx(1.0, abs=0.05)
    off = np.array([mech.noise_law(cal, "gram").sample((3, 3), rng)[0, 1] for _ in range(4000)])
    assert off.var() / (sigma**2 / 2) == pytest.approx(1.0, abs=0.10)


# --------------------------------------------------------------------- refusals
def test_pure_refuses_delta_and_gaussian_needs_it():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 2)) / 2
    t = _template(X, np.zeros(20), 1.0, None)
    with pytest.raises(ParameterError, match="gaussian_ssp"):
        release(t, "ssp", Budget(1.0, 1e-5), rng=0)
    with pytest.raises(ParameterError, match="needs delta > 0"):
        release(t, "gaussian_ssp", Budget(1.0), rng=0)


def test_a_linear_erm_template_is_refused_by_name():
    X = np.eye(3)
    template = LinearERMTemplate(Logistic(), 0.1, 1.0, X, np.array([1.0, -1.0, 1.0]))
    with pytest.raises(PrivacyError, match="sufficient_statistics"):
        release(template, "ssp", Budget(1.0), rng=0)
