"""Component assignment: public rules read no data, DP k-means is calibrated and composes."""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import numpy as np
import pytest

from dpconvex import Certificate, PrivateLargeMarginGaussian
from dpconvex.errors import DataValidationError, ParameterError, PrivacyError, PrivacyWarning
from dpconvex.estimators.large_margin.components import (
    PUBLIC_CENTER_SEED,
    assign_components,
    dp_kmeans,
    public_centers,
)
from dpconvex.estimators.large_margin.learners import OBJECTIVE, compose_planned
from dpconvex.privacy.budget import Budget
from dpconvex.privacy.mechanisms.kmeans import DPKMeans
from dpconvex.privacy.noise import Laplace, Noise
from dpconvex.templates.statistics import KMeansTemplate, assign_nearest


def _blobs(n=600, d=2, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    m = (np.arange(n) // 2) % 2
    centers = np.array([[[0.5, 0.5], [-0.5, -0.5]], [[0.5, -0.5], [-0.5, 0.5]]])
    X = centers[y, m] + 0.05 * rng.normal(size=(n, d))
    return X, y, m, centers


def test_public_centers_are_data_independent_and_in_the_ball():
    a = public_centers(3, 2, 4, 2.0)
    b = public_centers(3, 2, 4, 2.0, seed=PUBLIC_CENTER_SEED)
    assert np.array_equal(a, b)
    assert a.shape == (3, 2, 4)
    assert np.all(np.linalg.norm(a, axis=-1) <= 2.0)


def test_public_centers_are_not_a_learners_stream():
    """A learner seeded with the public seed draws its noise from default_rng(seed): were the
    released centres drawn there too, anyone could rebuild that noise."""
    directions = public_centers(3, 2, 4, 1.0)
    directions /= np.linalg.norm(directions, axis=-1, keepdims=True)
    learners = np.random.default_rng(PUBLIC_CENTER_SEED).standard_normal((3, 2, 4))
    learners /= np.linalg.norm(learners, axis=-1, keepdims=True)
    assert not np.allclose(directions, learners)


def test_nearest_center_reads_only_the_record():
    """Changing other records never changes record i's component."""
    X, y, _, _ = _blobs(50)
    ctr = public_centers(2, 2, 2, 1.0)
    m = assign_nearest(X, y, ctr)
    X2 = X.copy()
    X2[1:] = np.random.default_rng(9).normal(size=X2[1:].shape)
    assert assign_nearest(X2, y, ctr)[0] == m[0]
    res = assign_components(None, X, y, 2, 2, data_norm=1.0)
    assert res.private and res.epsilon == 0.0 and np.array_equal(res.components, m)


def test_dp_kmeans_recovers_separated_clusters_with_large_epsilon():
    X, y, m, centers = _blobs()
    ctr, cert = dp_kmeans(X, y, 2, 2, epsilon=200.0, data_norm=1.0, n_iter=5,
                          init_centers=centers + 0.2, random_state=0)
    assert cert.epsilon == pytest.approx(200.0) and cert.private
    err = np.linalg.norm(ctr - centers, axis=-1).max()
    assert err < 0.05


def test_dp_kmeans_certificate_lists_the_checked_row_norm_and_the_computed_epsilon():
    """The k-means step's certificate carries its template's checked row-norm condition, and
    its composition line states the calibration's computed ε, not the request (a calibration
    whose ε differs from the request tells the two apart)."""
    X, y, _, centers = _blobs(n=40)
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    _, cert = dp_kmeans(X, y, 2, 2, epsilon=0.3, data_norm=1.0, n_iter=3,
                        init_centers=centers, random_state=0)
    (row,) = [c for c in cert.conditions if c.name == "row norm bound"]
    assert row.holds and row.how == "checked on every row"
    mech = DPKMeans()
    template = KMeansTemplate(X, y, 2, 2, data_norm=1.0, n_iter=3, init_centers=centers)
    budget = Budget(0.3)
    cal = dataclasses.replace(mech.calibrate(template, budget), epsilon=0.25)
    cert = mech.certificate(template, budget, cal, mech.conditions(template, budget))
    (comp,) = [c for c in cert.conditions if c.name == "composition"]
    assert comp.detail.endswith("= 0.25") and cert.epsilon == 0.25


def kmeans_overshoot(cases: int) -> tuple[float, float, int]:
    """Over ``cases`` seeded random (ε, share a, T, d), the certificate the estimator composes:
    a dp_kmeans ``PrivateLargeMarginGaussian``'s plan splits ε (``plan.parts``), and
    ``compose_planned`` composes the k-means step's dry-run certificate with an objective
    certificate at the plan's objective share (the most the objective's certificate can state:
    its release refuses more). Returns the largest exact excess of the k-means parts
    T·(ε_cnt + ε_sum), read from the k-means certificate, plus the objective's ε over ε
    (``fractions.Fraction`` of the floats), relative to ε and in ulps of ε, and the number of
    cases whose composition refuses (its floating-point sum above ε)."""
    rng = np.random.default_rng(0)
    worst = worst_ulps = -1.0
    float_over = 0
    for _ in range(cases):
        eps = float(10 ** rng.uniform(-3, 2))
        frac = float(rng.uniform(0.01, 0.99))
        T, d = int(rng.integers(1, 50)), int(rng.integers(1, 60))
        est = PrivateLargeMarginGaussian(
            epsilon=eps, lam=1.0, n_components=2, component_assignment="dp_kmeans",
            kmeans_epsilon_fraction=frac, kmeans_iter=T)
        plan = est.plan(100, 3, d)
        share = plan.parts[OBJECTIVE].epsilon
        objective = Certificate("objective perturbation", epsilon_requested=share, epsilon=share)
        try:
            composed = compose_planned(est, plan, objective)
        except PrivacyError:
            float_over += 1
            continue
        kmeans, obj = composed.parts
        q = kmeans.quantities
        exact = q["iterations"] * (Fraction(q["epsilon counts (per iteration)"])
                                   + Fraction(q["epsilon sums (per iteration)"]))
        over = exact + Fraction(obj.epsilon) - Fraction(eps)
        worst = max(worst, float(over / Fraction(eps)))
        worst_ulps = max(worst_ulps, float(over / Fraction(math.ulp(eps))))
        float_over += composed.epsilon > eps
    return worst, worst_ulps, float_over


def test_dp_kmeans_split_exceeds_the_request_by_under_two_ulps_exactly():
    """The estimator's split, as its certificate composes it: the parts, added in floating
    point, never exceed ε; their exact sum exceeds it by less than 2 ulps of ε, the bound
    derived in docs/privacy/large_margin.md#privacy-lm-mixture-budget (0.78 ulps measured on
    these 600 seeded cases)."""
    _, worst_ulps, float_over = kmeans_overshoot(600)
    assert float_over == 0
    assert worst_ulps < 2.0


def test_dp_kmeans_noise_scale_matches_the_certificate():
    """One cluster per class, d = 1, one iteration: class 0's released center is
    (S + v)/(N + l) with S = 0.5 N, v ~ density exp(-β|v|) (variance 2/β²) and
    l ~ Laplace(2/ε_cnt) (variance 8/ε_cnt²), so center - 0.5 ≈ (v - l/2)/N with
    standard deviation sqrt(2/β² + 2/ε_cnt²)/N. The sample standard deviation of
    400 seeded draws must be within 25 % of it (about 4.5 standard errors for these
    Laplace tails: false-alarm rate below 1e-4); a mechanism with half or twice the
    noise fails."""
    N = 999
    X = np.full((N + 1, 1), 0.5)
    y = np.zeros(N + 1, dtype=int)
    y[-1] = 1
    eps = 1.0
    devs = []
    cert = None
    for seed in range(400):
        ctr, cert = dp_kmeans(X, y, 2, 1, epsilon=eps, data_norm=1.0, n_iter=1,
                              init_centers=np.zeros((2, 1, 1)), random_state=seed)
        devs.append(ctr[0, 0, 0] - 0.5)
    eps_cnt = cert.quantities["epsilon counts (per iteration)"]
    beta = cert.quantities["sum noise rate beta (per cell)"]
    assert eps_cnt == pytest.approx(eps / 2)  # 1/(1 + sqrt(d)) with d = 1
    assert beta == pytest.approx((eps - eps_cnt) / 2)  # ε_sum / (2q)
    expected = math.sqrt(2 / beta**2 + 2 / eps_cnt**2) / N
    assert np.std(devs) == pytest.approx(expected, rel=0.25)


def test_dp_kmeans_count_noise_is_the_certificate_s_laplace(monkeypatch):
    """The count noise on its own, as the run draws it: every noisy count of every
    iteration is recorded at :meth:`Noise.add` (the law it is drawn from, the exact count and
    the released one). The law of the counts is Laplace(2/ε_cnt), L1 sensitivity 2 over the
    ε of the counts the certificate states, and the 2000 drawn deviations (20 seeds, 25
    iterations, 4 cells; the snap to the law's grid moves each by at most 2^-21 of the scale)
    have a mean absolute value within 10 % of that scale: |l| ~ Exponential(b), so the mean
    of 2000 has standard error b/sqrt(2000) and 10 % is 4.47 of them (Gamma(2000) tails:
    false-alarm rate below 1e-5). Half or twice the count noise fails both."""
    drawn, add = [], Noise.add

    def recording(law, value, rng, *, shape=None):
        out = add(law, value, rng, shape=shape)
        if isinstance(law, Laplace):  # the counts (the sums are norm-Gamma)
            drawn.append((law, np.asarray(out) - np.asarray(value, dtype=float)))
        return out

    monkeypatch.setattr(Noise, "add", recording)
    X, y, _, centers = _blobs(200)
    for seed in range(20):
        _, cert = dp_kmeans(X, y, 2, 2, epsilon=1.0, data_norm=1.0, n_iter=25,
                            init_centers=centers, random_state=seed)
    scale = 2.0 / cert.quantities["epsilon counts (per iteration)"]
    assert len(drawn) == 20 * 25
    assert all(law == Laplace(scale) for law, _ in drawn)  # the law the run draws from
    deviations = np.concatenate([dev.ravel() for _, dev in drawn])
    assert deviations.size == 2000
    assert np.mean(np.abs(deviations)) == pytest.approx(scale, rel=0.10)


def test_assign_components_validates():
    X, y, _, _ = _blobs(20)
    with pytest.raises(ParameterError, match="component_assignment"):
        assign_components("kmeans", X, y, 2, 2, data_norm=1.0)
    with pytest.raises(ParameterError, match="centers"):
        assign_components(None, X, y, 2, 2, data_norm=1.0, centers=np.zeros((2, 3, 2)))


def test_gmm_nonprivate_warns_and_is_flagged():
    X, y, m, _ = _blobs(200)
    with pytest.warns(PrivacyWarning, match="NOT covered"):
        res = assign_components("gmm_nonprivate", X, y, 2, 2, data_norm=1.0, random_state=0)
    assert not res.private and "NON-PRIVATE" in res.description
    few = np.r_[np.zeros(197, dtype=int), np.ones(3, dtype=int)]  # class 1 below K = 5
    with pytest.warns(PrivacyWarning), pytest.raises(DataValidationError, match="fewer n_components"):
        assign_components("gmm_nonprivate", X, few, 2, 5, data_norm=1.0, random_state=0)


def test_k_equals_one_is_trivial_and_free():
    X, y, _, _ = _blobs(20)
    res = assign_components("dp_kmeans", X, y, 2, 1, data_norm=1.0, epsilon=0.5)
    assert res.epsilon == 0.0 and np.all(res.components == 0)


def test_dp_kmeans_leaves_out_the_records_the_fit_leaves_out():
    """unknown_labels="ignore": records with a label outside classes= are in no k-means count or sum,
    so every class's centers_ (noiseless k-means, exact) are those of the fit without them.
    The loss sets only the row map the k-means reads (softmax: rows scaled to norm 1); what is
    left out is decided for every loss alike."""
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(36, 2)) * 0.3 + 0.6, rng.integers(0, 3, 36)
    X_out, y_out = np.vstack([X, rng.normal(size=(12, 2))]), np.r_[y, np.full(12, 7)]
    kw = dict(epsilon=1.0, classes=[0, 1, 2], random_state=0, loss="softmax", n_components=2,
              component_assignment="dp_kmeans", unknown_labels="ignore", mechanism="none", solver="native")
    a = PrivateLargeMarginGaussian(**kw).fit(X, y)
    b = PrivateLargeMarginGaussian(**kw).fit(X_out, y_out)
    assert np.array_equal(a.centers_, b.centers_)
