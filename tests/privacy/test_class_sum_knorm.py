"""The K-norm mechanism "knorm_sum" on the class sums and counts
(docs/privacy/large_margin.md#privacy-class-centroids).

Exact checks of the privacy loss of the implemented density on tiny neighbouring data
sets (every kind of neighbour), statistical checks of the sampler (KS tests at level
ALPHA = 1e-3 with fixed seeds: a correct sampler fails a given seed with probability
1e-3, and the same seed always gives the same outcome) and audits with a stated
false-alarm rate. Each check has a mutant that it rejects.
"""

from __future__ import annotations

import dataclasses
import math
import warnings

import numpy as np
import pytest
from scipy import integrate, stats

import dpconvex as dp
from dpconvex.audit import EstimatorMechanism, audit
from dpconvex.errors import ParameterError, PrivacyWarning
from dpconvex.estimators.centroids import CENTROID_MENU, ClassSumTemplate
from dpconvex.estimators.linear import LINEAR_MENU
from dpconvex.privacy.budget import Budget
from dpconvex.privacy.mechanisms import MECHANISMS, build_mechanism
from dpconvex.privacy.mechanisms.gaussian import (
    KNORM_COUNT_WEIGHT,
    ClassSumKNorm,
    class_sum_block_sensitivity,
    class_sum_sensitivity,
    class_sums,
)
from dpconvex.privacy.noise import NormGamma, norm_gamma, snap_grid
from dpconvex.privacy.release import release

ALPHA = 1e-3
W = KNORM_COUNT_WEIGHT


def _block_norm(V: np.ndarray) -> float:
    """‖V‖_{1,2} = Σ_c ‖V_c‖₂ (rows = class blocks)."""
    return float(np.linalg.norm(V, axis=1).sum())


def _V(U, y, C=3, w=W) -> np.ndarray:
    U = np.asarray(U, float).reshape(-1, 2)
    return class_sums(ClassSumTemplate(U, np.asarray(y, dtype=np.int64), C), w)


# ------------------------------------------------------------ registry, calibration
def test_registered_for_the_centroid_kind_and_calibrated_from_public_constants():
    assert MECHANISMS["knorm_sum"] is ClassSumKNorm
    assert ClassSumKNorm.pure is True and "knorm_sum" in CENTROID_MENU.offered
    mech = build_mechanism("knorm_sum", "test", CENTROID_MENU)
    assert mech.count_weight == W == 0.5
    with pytest.raises(ParameterError):
        build_mechanism("knorm_sum", "test", LINEAR_MENU)
    t = ClassSumTemplate(np.eye(4)[:, :3], np.array([0, 1, 2, 0]), 3)
    cal = release(t, "knorm_sum", Budget(1.5), dry_run=True).calibration
    assert cal.sensitivity == pytest.approx(2 * math.sqrt(1 + W * W)) == math.sqrt(5.0)
    assert cal.noise_rate == pytest.approx(1.5 / math.sqrt(5.0))
    assert mech.noise_law(cal).coordinate_scale((3, 4)) == pytest.approx(math.sqrt(4) / cal.noise_rate)
    assert cal.noise_shape == (3, 4) and mech.placement == "sum"  # the C (d + 1) sums and counts
    assert cal.expected_sq_norm == pytest.approx(12 * 5 / cal.noise_rate**2)  # C k (k + 1)/β²
    assert cal.coordinate_scale == pytest.approx(2.0 / cal.noise_rate)
    with pytest.raises(ParameterError, match="pure"):
        release(t, "knorm_sum", Budget(1.0, 1e-5), dry_run=True)
    cert = release(t, "knorm_sum", Budget(1.5), dry_run=True).certificate
    assert (cert.epsilon, cert.delta) == (1.5, 0.0)
    assert cert.quantities["sensitivity in sum_c ||V_c||"] == cal.sensitivity
    law = next(c.detail for c in cert.conditions if c.name == "noise calibration")
    assert "Gamma(4, 1/beta)" in law  # rows of d + 1 = 4 entries, as the calibration read d


# --------------------------------------------------------------- sensitivity
def _replace(rng, U, y, kind):
    """A neighbour of (U, y): record 0 replaced by a record of the given kind."""
    u = rng.normal(size=2)
    u /= np.linalg.norm(u) * (1.0 if rng.random() < 0.5 else rng.uniform(1, 4))
    U2, y2 = U.copy(), y.copy()
    U2[0] = u
    if kind == "same class":
        return U2, y2
    if kind == "class change":
        y2[0] = (y[0] + rng.integers(1, 3)) % 3
        return U2, y2
    return U[1:], y[1:]  # label outside the set: the record contributes nothing


@pytest.mark.parametrize("kind,bound", [("same class", 2.0),
                                        ("class change", 2 * math.sqrt(1 + W * W)),
                                        ("outside the label set", math.sqrt(1 + W * W))])
def test_block_sensitivity_bounds_every_neighbour_and_is_attained(kind, bound):
    rng = np.random.default_rng(0)
    U = rng.normal(size=(9, 2))
    U /= np.linalg.norm(U, axis=1, keepdims=True) * rng.uniform(1, 2, size=(9, 1))
    U[0] = [1.0, 0.0]
    y = np.arange(9) % 3
    base = _V(U, y)
    worst = max(_block_norm(_V(*_replace(rng, U, y, kind)) - base) for _ in range(1000))
    assert worst <= bound + 1e-12
    assert class_sum_block_sensitivity(1.0, W) == pytest.approx(2 * math.sqrt(1 + W * W))
    # attained: u' = -u in the same class; a unit u' in another class; u dropped
    U2, y2 = U.copy(), y.copy()
    if kind == "same class":
        U2[0] = -U[0]
    elif kind == "class change":
        U2[0], y2[0] = [0.0, 1.0], 1
    else:
        U2, y2 = U[1:], y[1:]
    assert _block_norm(_V(U2, y2) - base) == pytest.approx(bound, rel=1e-12)


# ------------------------------------------------------- exact privacy loss
def _log_ratio(mech, cal, v, V, Vp):
    """ln f_D(v)/f_D′(v) of the implemented density (the mechanism's own log_density)."""
    return mech.log_density(cal, v - V) - mech.log_density(cal, v - Vp)


def _tiny(kind):
    """A tiny data set and its worst neighbour of the given kind (3 classes, d = 2)."""
    U = np.array([[1.0, 0.0], [0.0, 1.0], [-0.6, 0.8], [0.3, -0.4]])
    y = np.array([0, 1, 2, 0])
    U2, y2 = U.copy(), y.copy()
    if kind == "same class":
        U2[0] = [-1.0, 0.0]
    elif kind == "class change":
        U2[0], y2[0] = [-1.0, 0.0], 1
    else:
        U2, y2 = U[1:], y[1:]
    return ClassSumTemplate(U, y, 3), ClassSumTemplate(U2, y2, 3)


@pytest.mark.parametrize("eps", [pytest.param(0.1, marks=pytest.mark.slow), 1.0,
                                 pytest.param(4.0, marks=pytest.mark.slow)])
@pytest.mark.parametrize("kind,tight", [("same class", False), ("class change", True),
                                        ("outside the label set", False)])
def test_exact_privacy_loss_is_at_most_epsilon_and_tight(eps, kind, tight):
    mech = ClassSumKNorm()
    t, tp = _tiny(kind)
    cal = mech.calibrate(t, Budget(eps))
    assert mech.calibrate(tp, Budget(eps)) == cal  # public constants only
    V, Vp = class_sums(t, mech.count_weight), class_sums(tp, mech.count_weight)
    rng = np.random.default_rng(1)
    scale = mech.noise_law(cal).coordinate_scale(V.shape)
    losses = []
    for s in (0.01, 0.3, 1.0, 3.0):  # random outputs at several distances, both centres
        for centre in (V, Vp):
            v = centre + s * scale * rng.standard_normal((250, *V.shape))
            losses += [_log_ratio(mech, cal, x, V, Vp) for x in v]
            losses += [-_log_ratio(mech, cal, x, V, Vp) for x in v]  # the reverse order
    # the supremum: v = V + t (V − V′), t >= 0, where each row meets the triangle inequality
    # with equality; its value is β ‖V − V′‖_{1,2}
    sup = cal.noise_rate * _block_norm(V - Vp)
    along = [_log_ratio(mech, cal, V + t_ * (V - Vp), V, Vp) for t_ in (0.0, 0.5, 3.0, 1e3)]
    assert max(losses) <= sup + 1e-9 and max(along) <= sup + 1e-9
    assert along == pytest.approx([sup] * 4, rel=1e-9)
    assert sup <= eps * (1 + 1e-12)
    if tight:
        assert sup == pytest.approx(eps, rel=1e-12)
    else:
        assert sup < 0.9 * eps
    # a mutant calibrated with the L2 sensitivity of the two L2 mechanisms exceeds epsilon
    l2 = class_sum_sensitivity(1.0, mech.count_weight)
    mutant_sup = (eps / l2) * _block_norm(V - Vp)
    assert (mutant_sup > eps * 1.1) == tight


@pytest.mark.parametrize("k", [1, 2, 5, 14])
def test_log_density_integrates_to_one(k):
    # ∫ f = ∫_0^∞ |S^{k−1}| r^{k−1} f(r e_1) dr, |S^{k−1}| = 2 π^{k/2} / Γ(k/2)
    mech = ClassSumKNorm()
    t = ClassSumTemplate(np.zeros((2, k - 1)), np.array([0, 0]), 1)
    cal = mech.calibrate(t, Budget(0.7))
    area = 2 * math.pi ** (k / 2) / math.gamma(k / 2)

    def radial(r):
        b = np.zeros((1, k))
        b[0, 0] = r
        return area * r ** (k - 1) * math.exp(mech.log_density(cal, b))

    total, err = integrate.quad(radial, 0, np.inf, limit=200)
    assert total == pytest.approx(1.0, abs=1e-7) and err < 1e-7
    # two rows: the product of the rows' densities
    b = np.array([[0.3] * k, [-1.2] * k])
    assert mech.log_density(cal, b) == pytest.approx(
        mech.log_density(cal, b[:1]) + mech.log_density(cal, b[1:]), rel=1e-12)


# --------------------------------------------------------------- the sampler
def _direction_pvalue(rows: np.ndarray, seed: int) -> float:
    """KS p-value of the directions' projection on a fixed random unit vector.

    For a uniform direction on S^{k−1}, (⟨θ, e⟩ + 1)/2 ~ Beta((k−1)/2, (k−1)/2).
    """
    k = rows.shape[1]
    e = np.random.default_rng(seed).standard_normal(k)
    e /= np.linalg.norm(e)
    t = rows @ e / np.linalg.norm(rows, axis=1)
    a = (k - 1) / 2
    return stats.kstest((t + 1) / 2, stats.beta(a, a).cdf).pvalue


@pytest.mark.parametrize("d,eps", [(2, 1.0), (13, 0.5), (64, 2.0)])
def test_rows_are_independent_norm_gamma_with_uniform_directions(d, eps):
    mech = ClassSumKNorm()
    t = ClassSumTemplate(np.zeros((2, d)), np.array([0, 1]), 2)
    cal = mech.calibrate(t, Budget(eps))
    n = 4000
    b = mech.noise_law(cal).sample((n, d + 1), np.random.default_rng(2))  # 4000 rows of one draw
    norms = np.linalg.norm(b, axis=1)
    law = stats.gamma(a=d + 1, scale=1 / cal.noise_rate)
    assert stats.kstest(norms, law.cdf).pvalue > ALPHA
    assert _direction_pvalue(b, seed=3) > ALPHA
    # independent rows: the correlation of consecutive rows' norms is within 4 / sqrt(n)
    # (two-sided false-alarm rate 6e-5 for independent rows)
    r = np.corrcoef(norms[:-1], norms[1:])[0, 1]
    assert abs(r) < 4 / math.sqrt(n)
    # power: the rows of one norm-Gamma draw on all C (d + 1) coordinates ("norm_gamma_sum",
    # C = 10) do not have this law, nor do rows drawn with the L2 mechanisms' rate
    joint = np.concatenate([norm_gamma((10, d + 1), cal.noise_rate, np.random.default_rng(s))
                            for s in range(n // 10)])
    assert stats.kstest(np.linalg.norm(joint, axis=1), law.cdf).pvalue < ALPHA
    l2_cal = dataclasses.replace(cal, noise_rate=eps / class_sum_sensitivity(1.0, W))
    l2_rows = mech.noise_law(l2_cal).sample((n, d + 1), np.random.default_rng(4))
    assert stats.kstest(np.linalg.norm(l2_rows, axis=1), law.cdf).pvalue < ALPHA


def test_release_is_the_snapped_sum_plus_the_noise():
    rng = np.random.default_rng(5)
    U = rng.normal(size=(40, 6))
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    t = ClassSumTemplate(U, np.arange(40) % 4, 4)
    mech = ClassSumKNorm()
    rel = release(t, mech, Budget(1.0), rng=np.random.default_rng(6))
    s = mech.noise_law(rel.calibration).coordinate_scale(rel.theta.shape)
    g = snap_grid(s)
    assert np.array_equal(rel.theta, np.round(rel.theta / g) * g)
    noise = mech.noise_law(rel.calibration).sample((4, 7), np.random.default_rng(6))  # the same stream
    # every entry below 2^33 g (2^12 to 2^13 noise scales), where the step is the grid g
    assert np.max(np.abs(class_sums(t, W) + noise)) < math.ldexp(g, 33)
    assert np.max(np.abs(rel.theta - (class_sums(t, W) + noise))) <= g / 2 + 1e-12


# ----------------------------------------------------------------- estimator
def _data(n=90, d=3, C=3, seed=0):
    rng = np.random.default_rng(seed)
    mu = rng.normal(size=(C, d))
    y = np.arange(n) % C
    X = 0.6 * mu[y] / np.linalg.norm(mu[y], axis=1, keepdims=True) + 0.2 * rng.normal(size=(n, d))
    return X / np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None], y


def test_the_estimator_runs_it_as_a_pure_mechanism():
    X, y = _data()
    kw = dict(mechanism="knorm_sum", epsilon=5.0, classes=[0, 1, 2], random_state=0)
    a = dp.PrivateGaussianCentroid(**kw).fit(X, y)
    b = dp.PrivateGaussianCentroid(delta=0.0, **kw).fit(X, y)  # "None or 0" for pure
    assert np.array_equal(a.means_, b.means_) and a.certificate_.delta == 0.0
    assert a.certificate_.epsilon == 5.0 and a.score(X, y) > 0.5
    with pytest.raises(ParameterError):
        dp.PrivateGaussianCentroid(mechanism="knorm_sum", delta=1e-5).fit(X, y)
    # the counts are read back with the mechanism's count weight (noise ~ 1e-3 at eps = 1e4)
    big = dp.PrivateGaussianCentroid(mechanism="knorm_sum", epsilon=1e4, classes=[0, 1, 2],
                                     random_state=0).fit(X, y)
    assert np.allclose(big.counts_, np.bincount(y), atol=0.05)


# --------------------------------------------------------------------- audits
def _pair():
    # the worst replacement: (1, 0) in class 0 becomes (-1, 0) in class 1, ||V − V′||_{1,2} = Δ
    X = np.array([[0.5, 0.5], [-0.5, 0.5], [0.0, -0.7], [0.2, 0.1], [1.0, 0.0]])
    y = np.array([0, 1, 2, 0, 0])
    Xp, yp = X.copy(), y.copy()
    Xp[-1], yp[-1] = [-1.0, 0.0], 1
    return (X, y), (Xp, yp)


def _release_run(mech):
    (X, y), (Xp, yp) = _pair()
    ts = {"D": ClassSumTemplate(X, y, 3), "Dp": ClassSumTemplate(Xp, yp, 3)}
    budget = Budget(1.0)

    vouch = () if type(mech).__module__.startswith("dpconvex.") else ("mechanism",)  # a mutant's own

    def run(key, rng):
        return release(ts[key], mech, budget, None, rng, vouch=vouch).theta.ravel()

    return run


def _likelihood_ratio():
    """The white-box statistic ln f_D(v)/f_D′(v) of the claimed density (the optimal test)."""
    (X, y), (Xp, yp) = _pair()
    mech = ClassSumKNorm()
    t, tp = ClassSumTemplate(X, y, 3), ClassSumTemplate(Xp, yp, 3)
    cal = mech.calibrate(t, Budget(1.0))
    V, Vp = class_sums(t, W), class_sums(tp, W)
    return lambda out: _log_ratio(mech, cal, out.reshape(V.shape), V, Vp)


@pytest.mark.slow
def test_audit_of_the_release_stays_below_the_claim():
    # 2,000 releases per data set, the likelihood-ratio statistic; the bound exceeds the
    # true epsilon with probability <= 5 % (confidence 0.95): a bound above the claimed
    # epsilon = 1 is a bug with false-alarm rate 5 %
    r = audit(_release_run(ClassSumKNorm()), "D", "Dp", n_runs=2000, confidence=0.95,
              random_state=7, statistic=_likelihood_ratio())
    assert r.epsilon_lower_bound <= 1.0, f"PRIVACY BUG? {r}"


@pytest.mark.slow
def test_audit_catches_a_quarter_noise_mutant():
    class QuarterNoise(ClassSumKNorm):  # a mutant: the library's certificate, noise / 4
        def noise_law(self, cal):
            return NormGamma(4 * cal.noise_rate, rows=True)

    r = audit(_release_run(QuarterNoise()), "D", "Dp", n_runs=2000, confidence=0.95,
              random_state=8, statistic=_likelihood_ratio())
    assert r.epsilon_lower_bound > 1.0, r


@pytest.mark.slow
def test_audit_through_the_estimator_stays_below_the_claim():
    # 2,000 fits per data set through PrivateGaussianCentroid.fit (means and counts as
    # released); false-alarm rate 5 % as above
    D, Dp = _pair()
    est = dp.PrivateGaussianCentroid(epsilon=1.0, mechanism="knorm_sum", classes=[0, 1, 2])
    mech = EstimatorMechanism(est, output=lambda m: np.concatenate([m.means_.ravel(), m.counts_]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        r = audit(mech, D, Dp, n_runs=2000, confidence=0.95, random_state=9)
    assert r.epsilon_lower_bound <= 1.0, f"PRIVACY BUG? {r}"
