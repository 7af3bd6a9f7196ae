"""NoisyGradientDescent and PrivateGaussianCentroid warn, before the release, when the public
noise ratio says the model is likely no better than the majority class
(dpconvex.privacy.rules.noise_level, docs/privacy/tuning_gd_ledger.md#privacy-noise-warning-gd-centroids).

The ratios read public quantities only (n from the shape of X, p or d, the size C of the
label set, ε, δ, the calibration): these tests check their closed forms, that two data
sets with the same n, p, C and ε give the same ratio (and that the ratio moves with n, so
the check can fail), that each warning fires on the side of its threshold on the splits of
benchmarks/only_epsilon_defaults.py (the measured cases of
privacy-noise-warning-gd-centroids: scikit-learn breast cancer, 398 training rows, noisy
GD ρ_GD = 0.96 at ε = 0.1 (warns) and 0.12 at ε = 1 (does not); wine, 124 rows, centroids
ρ_cent = 1.49 at ε = 0.1 (warns) and 0.18 at ε = 1 (does not); noisy GD one-vs-rest on
wine 0.86 at ε = 1 (does not) and on digits 2.6 at ε = 1 (warns)), the message, and that
the one-vs-rest fit warns once. ``release`` is replaced by a stub that raises, so no model
is trained (the warning must come before it). All deterministic.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from sklearn.model_selection import train_test_split

import dpconvex as dp
from dpconvex.datasets import load_sklearn
from dpconvex.errors import PrivacyWarning
from dpconvex.estimators import centroids as centroids_module
from dpconvex.estimators import noisy_gd as noisy_gd_module
from dpconvex.privacy.accounting.analytic_gaussian import analytic_gaussian_sigma
from dpconvex.privacy.rules.noise_level import (
    CENTROID_NOISE_RATIO,
    GD_NOISE_RATIO,
    estimator_noise_dominance,
    noise_ratio,
)


def estimator_gd_noise_ratio(est, X, C=2):
    """(ρ_GD, template, mechanism, budget) of one binary model at X's shape and C classes."""
    return estimator_noise_dominance(est, X, n_classes=C)


def _split(name):
    X, y = load_sklearn(name)
    strat = y if name == "breast_cancer" else None
    Xtr, _, ytr, _ = train_test_split(X, y, test_size=0.3, random_state=0, stratify=strat)
    return Xtr, ytr


@pytest.fixture(scope="module")
def cancer():
    return _split("breast_cancer")


@pytest.fixture(scope="module")
def wine():
    return _split("wine")


class _Stop(Exception):
    pass


@pytest.fixture
def no_release(monkeypatch):
    """Replace the release pipeline both estimators' fits call (``_release_checked``) by a stub
    that raises: nothing is trained."""
    def stop(*args, **kwargs):
        raise _Stop

    monkeypatch.setattr(noisy_gd_module, "_release_checked", stop)
    monkeypatch.setattr(centroids_module, "_release_checked", stop)


def _noise_warnings(est, X, y):
    """The 'noise is large' PrivacyWarning messages of ``est.fit(X, y)`` up to the release."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(_Stop):
            est.fit(X, y)
    return [str(w.message) for w in caught if issubclass(w.category, PrivacyWarning)
            and "noise is large" in str(w.message)]


def _centroid_ratio(est, X, y, norm=False):
    plan = est.plan_for(X, y)
    template = est.prepare(X, y, plan).template
    return noise_ratio("centroid", template, plan.mechanism, plan.budget, n=X.shape[0], norm=norm)


# ------------------------------------------------------------------ closed forms
def test_centroid_ratio_is_sigma_c_over_n(wine):
    X, y = wine
    n, C, d = X.shape[0], 3, X.shape[1]
    sigma = analytic_gaussian_sigma(0.5, min(1e-5, 1.0 / n**2), 2.0)
    est = dp.PrivateGaussianCentroid(epsilon=0.5, mechanism="gaussian")  # delta: the public rule
    assert _centroid_ratio(est, X, y) == pytest.approx(sigma * C / n, rel=1e-9)
    assert _centroid_ratio(est, X, y, norm=True) == pytest.approx(sigma * C * math.sqrt(d) / n,
                                                                  rel=1e-9)
    # pure ε: the norm-Gamma per-coordinate scale √(C(d + 1)) Δ/ε
    ng = dp.PrivateGaussianCentroid(epsilon=0.5, mechanism="norm_gamma_sum")
    assert _centroid_ratio(ng, X, y) == pytest.approx(
        math.sqrt(C * (d + 1)) * 2.0 / 0.5 * C / n, rel=1e-9)


def test_gd_ratio_is_rho0_times_half_the_classes(cancer, wine):
    X, y = cancer
    est = dp.NoisyGradientDescent(epsilon=0.3)
    rho, template, mech, budget = estimator_gd_noise_ratio(est, X)
    assert rho == pytest.approx(noise_ratio("linear", template, mech, budget), rel=1e-12)
    # one-vs-rest over C = 3: one binary model at ε/3, times C/2
    Xw, _ = wine
    rho3, t3, _, b3 = estimator_gd_noise_ratio(est, Xw, 3)
    assert b3.epsilon == pytest.approx(0.1)
    sub = dp.NoisyGradientDescent(epsilon=b3.epsilon, classes=[0, 1])
    sub_mech = sub.plan(Xw.shape[0], 2, Xw.shape[1]).mechanism
    assert rho3 == pytest.approx(1.5 * noise_ratio("linear", t3, sub_mech, b3), rel=1e-12)


# ------------------------------------------------------------- public inputs only
@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:.*scaled down to it:dpconvex.errors.PrivacyWarning")
def test_ratios_read_only_public_quantities(cancer, wine):
    rng = np.random.default_rng(0)
    for X, y in (cancer, wine):
        X2 = rng.uniform(-3.0, 3.0, size=X.shape)  # other values, same n and p
        y2 = np.sort(y)  # other labels: same label set, but sorted
        y2[: len(y2) // 2] = y2[0]  # and very different class counts
        C = np.unique(y).size
        gd = dp.NoisyGradientDescent(epsilon=0.5)
        assert estimator_gd_noise_ratio(gd, X, C)[0] == estimator_gd_noise_ratio(gd, X2, C)[0]
        cen = dp.PrivateGaussianCentroid(epsilon=0.5)
        assert _centroid_ratio(cen, X, y) == _centroid_ratio(cen, X2, y2)
        # but n is read: half the rows, a larger ratio (a constant ratio would pass above)
        h = X.shape[0] // 2
        assert _centroid_ratio(cen, X[:h], y[:h]) > _centroid_ratio(cen, X, y)
        assert estimator_gd_noise_ratio(gd, X[:h], C)[0] > estimator_gd_noise_ratio(gd, X, C)[0]


def test_fit_warns_the_same_for_the_same_public_quantities(cancer, no_release):
    X, y = cancer
    X2 = np.random.default_rng(1).normal(size=X.shape)
    m1 = _noise_warnings(dp.NoisyGradientDescent(epsilon=0.1), X, y)
    m2 = _noise_warnings(dp.NoisyGradientDescent(epsilon=0.1), X2, 1 - y)
    assert m1 and m1 == m2


# ------------------------------------------------------------ both sides, message
@pytest.mark.parametrize("epsilon, warns", [(0.1, True), (1.0, False)])
def test_gd_binary_fires_on_the_right_side(cancer, no_release, epsilon, warns):
    X, y = cancer
    est = dp.NoisyGradientDescent(epsilon=epsilon, random_state=0)
    assert (estimator_gd_noise_ratio(est, X)[0] > GD_NOISE_RATIO) is warns
    msgs = _noise_warnings(est, X, y)
    assert len(msgs) == int(warns)
    if warns:
        assert "NoisyGradientDescent: at epsilon = 0.1" in msgs[0]
        for part in ("n = 398 rows", "p = 31 parameters", "larger epsilon", "more rows",
                     "PrivateGaussianCentroid", "privacy-noise-warning-gd-centroids",
                     f"threshold {GD_NOISE_RATIO:g}"):
            assert part in msgs[0]


@pytest.mark.parametrize("name, epsilon, warns", [("wine", 1.0, False), ("digits", 1.0, True),
                                                  ("wine", 0.1, True)])
def test_gd_one_vs_rest_warns_once_on_the_right_side(no_release, name, epsilon, warns):
    X, y = _split(name)
    C = np.unique(y).size
    est = dp.NoisyGradientDescent(epsilon=epsilon, random_state=0)
    assert (estimator_gd_noise_ratio(est, X, C)[0] > GD_NOISE_RATIO) is warns
    msgs = _noise_warnings(est, X, y)  # the first binary fit reaches the stub
    assert len(msgs) == int(warns)  # the binary model's own warning is folded in
    if warns:
        assert f"each of the {C} one-vs-rest models" in msgs[0]


@pytest.mark.parametrize("epsilon, warns", [(0.1, True), (1.0, False)])
def test_centroid_fires_on_the_right_side(wine, no_release, epsilon, warns):
    X, y = wine
    est = dp.PrivateGaussianCentroid(epsilon=epsilon, mechanism="gaussian", random_state=0)
    assert (_centroid_ratio(est, X, y) > CENTROID_NOISE_RATIO) is warns
    msgs = _noise_warnings(est, X, y)
    assert len(msgs) == int(warns)
    if warns:
        for part in ("PrivateGaussianCentroid: at epsilon = 0.1", "n/C = 124/3", "d = 13",
                     "larger epsilon", "more rows", "privacy-noise-warning-gd-centroids"):
            assert part in msgs[0]
        assert "mechanism='gaussian'" not in msgs[0]  # already the Gaussian mechanism


def test_centroid_pure_epsilon_message_suggests_the_gaussian_mechanism(wine, no_release):
    X, y = wine
    msgs = _noise_warnings(dp.PrivateGaussianCentroid(epsilon=0.1, mechanism="norm_gamma_sum"),
                           X, y)
    assert len(msgs) == 1 and "delta > 0 (mechanism='auto' then takes the Gaussian form" in msgs[0]


def test_centroid_warning_on_a_real_fit(wine):
    X, y = wine
    with pytest.warns(PrivacyWarning, match="noise is large"):
        dp.PrivateGaussianCentroid(epsilon=0.1, random_state=0).fit(X, y)
