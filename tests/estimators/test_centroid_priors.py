"""Class priors and the within-class variance of PrivateGaussianCentroid
(docs/privacy/large_margin.md#privacy-centroid-priors).

The decision rule is argmin_c ‖u − μ_c‖² − 2σ̂² log π_c, the Bayes rule of
u | c ~ N(μ_c, σ̂²I) with priors π; σ̂² and the empirical priors are functions of the
released class sums and counts. Statistical assertions use fixed seeds; each states its
margin in standard errors.
"""

from __future__ import annotations

import math
import pickle
import warnings

import numpy as np
import pytest
from scipy.stats import norm

import dpconvex as dp
from dpconvex.errors import ParameterError, PrivacyWarning
from dpconvex.estimators.centroids import WITHIN_FLOOR, prior_penalty, within_class_variance
from dpconvex.estimators.large_margin.centroid import phi_from_means
from dpconvex.privacy.certificate import MechanismChoice
from dpconvex.privacy.mechanisms.gaussian import KNORM_COUNT_WEIGHT

#: The synthetic model: u | c ~ N(μ_c, s²I_d), ‖μ_c‖² = A2, d s² = 1 − A2 (so E‖u‖² = 1 and
#: unit rows change little), priors (0.85, 0.15), μ_0 ⟂ μ_1.
D, A2, PI1 = 40, 0.1, 0.15


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        yield


def _imbalanced(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < PI1).astype(int)
    mu = np.zeros((2, D))
    mu[0, 0] = mu[1, 1] = math.sqrt(A2)
    return mu[y] + math.sqrt((1 - A2) / D) * rng.normal(size=(n, D)), y


def _bayes_accuracy() -> float:
    """Accuracy of the Bayes rule of the synthetic model (a threshold on the mean difference)."""
    dist, s = math.sqrt(2 * A2), math.sqrt((1 - A2) / D)
    shift = s * s * math.log((1 - PI1) / PI1) / dist
    return float((1 - PI1) * norm.cdf(dist / (2 * s) + shift / s)
                 + PI1 * norm.cdf(dist / (2 * s) - shift / s))


def _three_classes(n: int = 150, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.choice(3, size=n, p=[0.6, 0.3, 0.1])
    X = 0.5 * np.eye(3, 4)[y] + 0.3 * rng.normal(size=(n, 4))
    return X, y


def _unit(X: np.ndarray) -> np.ndarray:
    nrm = np.linalg.norm(X, axis=1, keepdims=True)
    return np.divide(X, nrm, out=np.zeros_like(X), where=nrm > 0)


# ------------------------------------------------------------------- the decision rule
def test_uniform_priors_give_the_nearest_mean_and_the_release_does_not_depend_on_priors():
    X, y = _three_classes()
    kw = dict(epsilon=2.0, delta=1e-5, classes=[0, 1, 2], random_state=3)
    uni = dp.PrivateGaussianCentroid(priors="uniform", **kw).fit(X, y)
    emp = dp.PrivateGaussianCentroid(**kw).fit(X, y)  # "empirical" is the default
    for name in ("means_", "counts_"):  # priors are post-processing: same release
        assert np.array_equal(getattr(uni, name), getattr(emp, name))
    assert uni.within_class_var_ == emp.within_class_var_
    np.testing.assert_array_equal(uni.class_prior_, np.full(3, 1 / 3))
    Xt = np.random.default_rng(9).normal(size=(2000, 4))
    U, M = _unit(Xt), uni.means_
    d2 = ((U[:, None, :] - M[None]) ** 2).sum(axis=2)
    np.testing.assert_array_equal(uni.predict(Xt), uni.classes_[np.argmin(d2, axis=1)])
    np.testing.assert_allclose(uni.class_scores(Xt), -d2 / (2 * uni.within_class_var_),
                               rtol=1e-9, atol=1e-9)
    assert np.all(prior_penalty(uni.class_prior_, uni.within_class_var_) == 0.0)


def test_empirical_priors_beat_uniform_and_reach_the_bayes_rule():
    """Large ε on the synthetic model: uniform ≈ 0.932, Bayes 0.957 (analytic). With 10,000
    test rows the standard error of an accuracy is <= 0.0025, so the margins below are >= 4
    standard errors from the expected values (false alarm < 1e-4)."""
    X, y = _imbalanced(8000, 0)
    Xt, yt = _imbalanced(10000, 1)
    kw = dict(epsilon=1e3, delta=1e-6, classes=[0, 1], random_state=0)
    emp = dp.PrivateGaussianCentroid(**kw).fit(X, y)
    uni = dp.PrivateGaussianCentroid(priors="uniform", **kw).fit(X, y)
    acc_e, acc_u, bayes = emp.score(Xt, yt), uni.score(Xt, yt), _bayes_accuracy()
    assert bayes - acc_u > 0.02  # the priors matter in this model
    assert acc_e >= acc_u + 0.012
    assert acc_e >= bayes - 0.01
    assert emp.class_prior_[1] == pytest.approx(PI1, abs=0.02)
    assert emp.within_class_var_ == pytest.approx((1 - A2) / D, rel=0.03)  # the model's s²
    # temperature=None: predict_proba is the model's posterior
    U = _unit(Xt[:50])
    d2 = ((U[:, None, :] - emp.means_[None]) ** 2).sum(axis=2)
    logit = -d2 / (2 * emp.within_class_var_) + np.log(emp.class_prior_)
    post = np.exp(logit - logit.max(axis=1, keepdims=True))
    np.testing.assert_allclose(emp.predict_proba(Xt[:50]), post / post.sum(axis=1, keepdims=True),
                               rtol=1e-9, atol=1e-12)


def test_temperature_tempers_the_posterior_and_never_changes_predictions():
    X, y = _three_classes()
    kw = dict(epsilon=2.0, delta=1e-5, classes=[0, 1, 2], random_state=4)
    a = dp.PrivateGaussianCentroid(**kw).fit(X, y)
    b = dp.PrivateGaussianCentroid(temperature=0.05, **kw).fit(X, y)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    np.testing.assert_allclose(b.class_scores(X), a.class_scores(X) * a.within_class_var_ / 0.05,
                               rtol=1e-9)
    dec = a.decision_function(X)
    assert dec.shape == (len(X), 3)


def test_given_priors_are_normalized_and_used():
    X, y = _three_classes()
    m = dp.PrivateGaussianCentroid(epsilon=2.0, delta=1e-5, classes=[0, 1, 2], random_state=5,
                                   priors=[2.0, 1.0, 1.0]).fit(X, y)
    np.testing.assert_allclose(m.class_prior_, [0.5, 0.25, 0.25])
    a = 2 * m.within_class_var_ * math.log(2.0)  # 2 σ̂² (log π_max − log π_c)
    np.testing.assert_allclose(prior_penalty(m.class_prior_, m.within_class_var_), [0, a, a],
                               rtol=1e-12)


@pytest.mark.parametrize("make", [dp.PrivateGaussianCentroid, dp.PrivateGaussianNB])
def test_priors_near_the_float_range_give_what_their_ratios_give(make):
    """Priors of 1e308 each sum beyond float64: they are the uniform priors, not NaN."""
    X, y = _three_classes()
    kw = {"epsilon": 2.0, "classes": [0, 1, 2], "random_state": 5}
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        huge = make(priors=[1e308] * 3, **kw).fit(X, y)
        proba = huge.predict_proba(X)
    ones = make(priors=[1.0] * 3, **kw).fit(X, y)
    np.testing.assert_allclose(huge.class_prior_, [1 / 3] * 3, rtol=1e-15)
    np.testing.assert_allclose(proba, ones.predict_proba(X), rtol=1e-12)


@pytest.mark.parametrize(("priors", "match"), [
    ([0.5, 0.5], "one entry per class"),
    ([0.2, 0.3, 0.4, 0.1], "one entry per class"),
    ([0.5, 0.0, 0.5], "positive finite"),
    ([0.5, -0.1, 0.6], "positive finite"),
    ([0.5, float("nan"), 0.5], "positive finite"),
    ([[0.3, 0.3, 0.4]], "array-like of shape"),
    ("balanced", "must be one of"),
    (["a", "b", "c"], "array-like of shape"),
    (None, "array-like of shape"),
])
def test_bad_priors_are_refused_before_the_budget_is_spent(priors, match):
    X, y = _three_classes()
    acc = dp.BudgetAccountant(epsilon=5.0, delta=1e-3)
    est = dp.PrivateGaussianCentroid(epsilon=1.0, delta=1e-5, classes=[0, 1, 2], priors=priors,
                                     accountant=acc)
    with pytest.raises(ParameterError, match=match):
        est.fit(X, y)
    assert acc.spent == (0.0, 0.0)


# ------------------------------------------------------------- σ̂² from the release
def _hand_variance(m: dp.PrivateGaussianCentroid, energy: float, scale: float, w: float) -> float:
    """σ̂² recomputed from means_, counts_ and the public noise constants."""
    C, d = m.means_.shape
    f = max(1.0, scale / w)
    nf = np.maximum(m.counts_, f)
    assert np.all(np.linalg.norm(m.means_, axis=1) < 1.0)  # not projected: s̃_c = μ_c max(ñ_c, f)
    s = m.means_ * nf[:, None]
    mhat = np.clip((np.sum(s * s, axis=1) - energy) / nf**2, 0.0, 1.0)
    return max(1.0 - float((nf / nf.sum()) @ mhat), WITHIN_FLOOR) / d


@pytest.mark.parametrize("mechanism", ["gaussian", "norm_gamma_sum", "knorm_sum"])
def test_within_class_variance_matches_a_hand_computation(mechanism):
    X, y = _three_classes(n=600, seed=1)
    eps, C, d = 20.0, 3, 4
    delta = 1e-5 if mechanism == "gaussian" else None
    m = dp.PrivateGaussianCentroid(epsilon=eps, delta=delta, mechanism=mechanism,
                                   classes=[0, 1, 2], random_state=6).fit(X, y)
    if mechanism == "gaussian":  # N(0, σ²) on every entry: E‖b_c‖² = d σ²
        sigma = m.certificate_.quantities["noise std sigma"]
        energy, scale, w = d * sigma**2, sigma, 1.0
    elif mechanism == "norm_gamma_sum":  # ∝ exp(-β‖b‖) on R^p: E‖b‖² = p (p + 1)/β², isotropic
        beta, p = eps / 2.0, C * (d + 1)
        energy, scale, w = d * (p + 1) / beta**2, math.sqrt(p) / beta, 1.0
    else:  # one ∝ exp(-β‖b_c‖) row per class on R^k, k = d + 1: E‖b_c‖² = k (k + 1)/β²
        w = KNORM_COUNT_WEIGHT
        beta, k = eps / (2.0 * math.sqrt(1.0 + w * w)), d + 1
        energy, scale = d * (k + 1) / beta**2, math.sqrt(k) / beta
    assert m.within_class_var_ == pytest.approx(_hand_variance(m, energy, scale, w), rel=1e-9)


def test_within_class_variance_is_the_pooled_variance_without_noise():
    X, y = _three_classes(n=600, seed=2)
    m = dp.PrivateGaussianCentroid(epsilon=1e6, delta=1e-6, classes=[0, 1, 2],
                                   random_state=0).fit(X, y)
    U = _unit(X)
    mu = np.stack([U[y == c].mean(axis=0) for c in range(3)])
    pooled = np.mean(np.sum((U - mu[y]) ** 2, axis=1)) / U.shape[1]
    assert m.within_class_var_ == pytest.approx(pooled, rel=1e-4)


def test_within_class_variance_function_and_its_floor():
    V = np.array([[3.0, 4.0, 5.0], [0.0, 0.0, 5.0]])  # d = 2; class 0 mean (0.6, 0.8), n = 5 each
    assert within_class_variance(V, 1.0, 1.0, np.zeros(2)) == pytest.approx((1 - 0.5) / 2)
    # noise energy above the observed energy: m̂ = 0, W = 1
    assert within_class_variance(V, 1.0, 1.0, np.full(2, 1e3)) == pytest.approx(0.5)
    tight = np.array([[5.0, 0.0, 5.0], [-5.0, 0.0, 5.0]])  # every mean on the unit sphere
    assert within_class_variance(tight, 1.0, 1.0, np.zeros(2)) == WITHIN_FLOOR / 2


# --------------------------------------------------------------- what is stored
def test_the_model_holds_only_the_release_and_functions_of_it():
    X, y = _three_classes()
    Xp, yp = X.copy(), y.copy()
    Xp[-1], yp[-1] = -X[-1], (y[-1] + 1) % 3
    kw = dict(epsilon=1.0, classes=[0, 1, 2], random_state=8)
    a, b = (dp.PrivateGaussianCentroid(**kw).fit(*D) for D in ((X, y), (Xp, yp)))
    released = {"means_", "counts_", "class_prior_", "within_class_var_"}
    rest = [pickle.dumps({k: v for k, v in vars(m).items() if k not in released}) for m in (a, b)]
    assert rest[0] == rest[1]
    # the empirical priors are the released counts with the public floor f = max(1, s/w)
    # ("knorm_sum" at ε = 1, d = 4: β = ε/(2√(1 + w²)), s = √(d + 1)/β)
    w = KNORM_COUNT_WEIGHT
    f = max(1.0, math.sqrt(5) / (1.0 / (2 * math.sqrt(1 + w * w))) / w)
    nf = np.maximum(a.counts_, f)
    np.testing.assert_allclose(a.class_prior_, nf / nf.sum(), rtol=1e-12)
    blob = pickle.dumps(a)
    assert np.bincount(y, minlength=3).astype(float).tobytes() not in blob  # no true counts


# ----------------------------------------------------------- mechanism="auto"
def test_auto_mechanism_by_delta_and_its_certificate_line():
    X, y = _three_classes()
    pure = dp.PrivateGaussianCentroid(epsilon=1.0, classes=[0, 1, 2], random_state=0)
    plan = pure.plan(150, 3, 4)
    assert plan.mechanism.name == "knorm_sum" and plan.budget.delta == 0.0
    pure.fit(X, y)
    why = [a for a in pure.certificate_.lines if isinstance(a, MechanismChoice)]
    assert why == [MechanismChoice("knorm_sum", "delta = 0", why[0].why)] and why[0] in plan.notes
    gauss = dp.PrivateGaussianCentroid(epsilon=1.0, delta=1e-6, classes=[0, 1, 2],
                                       random_state=0).fit(X, y)
    assert gauss.certificate_.mechanism_name == "gaussian" and gauss.certificate_.delta == 1e-6
    rule = dp.PrivateGaussianCentroid(epsilon=1.0, mechanism="gaussian", classes=[0, 1, 2],
                                      random_state=0).fit(X, y)
    assert rule.certificate_.delta == min(1e-5, 1 / 150**2)
    assert rule.certificate_.line(MechanismChoice) is None


# ------------------------------------------------------- the large-margin form
def test_phi_with_priors_is_psd_and_gives_the_same_rule():
    X, y = _three_classes(n=300, seed=3)
    lm = dp.PrivateLargeMarginGaussian(mechanism="centroid", epsilon=3.0, delta=1e-5,
                                       classes=[0, 1, 2], random_state=2).fit(X, y)
    cent = dp.PrivateGaussianCentroid(epsilon=3.0, delta=1e-5, classes=[0, 1, 2],
                                      random_state=2).fit(X, y)
    pen = prior_penalty(cent.class_prior_, cent.within_class_var_)
    assert pen.min() == 0.0 and pen.max() > 0.0
    np.testing.assert_allclose(lm.Phi_, phi_from_means(cent.means_, 1.0, pen), rtol=0,
                               atol=1e-12)
    np.testing.assert_allclose(lm.Phi_ - phi_from_means(cent.means_, 1.0),
                               np.einsum("c,ij->cij", 2.0 * pen,
                                         np.diag([0, 0, 0, 0, 1.0]))[:, None], atol=1e-12)
    eig = np.linalg.eigvalsh(lm.Phi_[:, 0])
    assert eig.min() >= -1e-10 * eig.max()
    Xt = np.random.default_rng(4).normal(size=(500, 4))
    np.testing.assert_array_equal(lm.predict(Xt), cent.predict(Xt))
