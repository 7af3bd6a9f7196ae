"""NoisyGradientDescent: accountant calibration checked independently, noise scale, utility."""

from __future__ import annotations

import math

import dp_accounting
import numpy as np
import pytest
from scipy.stats import chi2
from sklearn.linear_model import LogisticRegression
from sklearn.utils.estimator_checks import parametrize_with_checks

from dpconvex import NoisyGradientDescent
from dpconvex.errors import DataValidationError, ParameterError
from dpconvex.noisy_gd import (
    calibrate_noise_multiplier,
    gaussian_composition_epsilon,
    gdp_epsilon,
)

CASES = [(1.0, 1e-5, 1), (0.1, 1.0 / 70_000**2, 100), (0.5, 1e-6, 300), (0.01, 1e-8, 1000)]


def _classic_rdp_epsilon(z: float, T: int, delta: float) -> float:
    """Mironov 2017, Prop. 3 with the Gaussian's RDP Tα/(2z²), optimized over real α > 1."""
    L = math.log(1.0 / delta)
    return T / (2 * z * z) + math.sqrt(2 * T * L) / z


def test_gdp_second_opinion_matches_analytic_gaussian():
    # Independent implementations: ours (GDP closed form) vs dp_accounting's analytic
    # Gaussian mechanism (Balle & Wang 2018); T steps of z equal one step of z/sqrt(T).
    for sigma, delta in [(0.7, 1e-5), (5.0, 1e-5), (40.0, 1e-10)]:
        ref = dp_accounting.get_epsilon_gaussian(sigma, delta)
        assert gdp_epsilon(sigma, 1, delta) == pytest.approx(ref, rel=1e-6)
        assert gdp_epsilon(sigma * 10, 100, delta) == pytest.approx(ref, rel=1e-6)


@pytest.mark.parametrize("epsilon,delta,T", CASES)
def test_calibration_is_sound_and_tight(epsilon, delta, T):
    z_rdp, e_rdp = calibrate_noise_multiplier(epsilon, delta, T, "rdp")
    z_pld, e_pld = calibrate_noise_multiplier(epsilon, delta, T, "pld")
    for z, e in [(z_rdp, e_rdp), (z_pld, e_pld)]:
        assert e <= epsilon
        # soundness against the exact privacy curve of T Gaussian steps (GDP, mu = sqrt(T)/z)
        assert gdp_epsilon(z, T, delta) <= epsilon
    # PLD is tight (pessimistic discretization 1e-4): within 1% of the exact curve
    assert gdp_epsilon(z_pld, T, delta) >= 0.99 * epsilon
    # RDP is conservative, but not by more than 15% in z here
    assert z_pld <= z_rdp <= 1.15 * z_pld
    # and never worse than the textbook RDP conversion (closed form)
    assert e_rdp <= _classic_rdp_epsilon(z_rdp, T, delta) + 1e-12
    # bisection precision: a 0.1% smaller multiplier overspends
    assert gaussian_composition_epsilon(z_rdp * 0.999, T, delta, "rdp") > epsilon


def test_calibration_single_step_against_analytic_sigma():
    # T = 1: the smallest std for sensitivity 1 is the analytic Gaussian mechanism's sigma
    # (dp_accounting.get_sigma_gaussian, Balle & Wang 2018); PLD must reproduce it.
    for eps, delta in [(1.0, 1e-5), (0.1, 1e-6)]:
        sigma = dp_accounting.get_sigma_gaussian(eps, delta)
        z_pld, _ = calibrate_noise_multiplier(eps, delta, 1, "pld")
        z_rdp, _ = calibrate_noise_multiplier(eps, delta, 1, "rdp")
        assert z_pld == pytest.approx(sigma, rel=5e-3) and z_pld >= sigma * (1 - 1e-6)
        assert z_rdp >= sigma


@pytest.mark.parametrize("accounting", ["rdp", "pld"])
def test_noise_actually_added_has_the_certified_std(accounting):
    # Zero features and no intercept: every gradient is 0, so with one step, eta = 1 and a
    # huge ball, coef_ = -noise, p i.i.d. N(0, s²) with s = z * 2C/n. The sample variance
    # gives (p-1) S²/s² ~ chi²(p-1); two-sided bounds at total false-alarm rate 1e-6.
    n, p, C, eps, delta = 10, 4000, 0.5, 1.0, 1e-5
    X = np.zeros((n, p))
    y = np.array([0, 1] * (n // 2))
    est = NoisyGradientDescent(epsilon=eps, delta=delta, steps=1, radius=1e9, learning_rate=1.0,
                               clip=C, fit_intercept=False, accounting=accounting,
                               random_state=11).fit(X, y)
    z = est.noise_multiplier_
    s = z * 2 * C / n
    assert est.noise_std_ == pytest.approx(s)
    # independent: T = 1 must need at least the analytic-Gaussian sigma (sensitivity 2C/n)
    assert s >= dp_accounting.get_sigma_gaussian(eps, delta) * 2 * C / n * (1 - 1e-6)
    stat = (p - 1) * np.var(est.coef_, ddof=1) / s**2
    assert chi2.ppf(0.5e-6, p - 1) < stat < chi2.ppf(1 - 0.5e-6, p - 1)
    assert abs(np.mean(est.coef_)) < 6 * s / math.sqrt(p)


def _logloss(theta, X, y):
    m = y * (X @ theta)
    return float(np.mean(np.logaddexp(0, -m)))


def test_huge_epsilon_approaches_nonprivate_optimum():
    rng = np.random.default_rng(0)
    n, d = 2000, 5
    X = rng.normal(size=(n, d))
    X /= np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1.0) * 1.0
    w = np.array([1.5, -2.0, 0.5, 0.0, 1.0])
    y = np.where(rng.uniform(size=n) < 1 / (1 + np.exp(-(X @ w + 0.3))), 1, -1)
    ref = LogisticRegression(C=1e8, tol=1e-10, max_iter=10_000).fit(X, y)
    theta_star = np.r_[ref.coef_[0], ref.intercept_]
    Xa = np.hstack([X, np.ones((n, 1))])
    f_star = _logloss(theta_star, Xa, y)
    assert np.linalg.norm(theta_star) < 10
    # clip = 2 > sqrt(2) = Lipschitz bound: clipping never acts, so GD minimizes the loss
    est = NoisyGradientDescent(epsilon=1e7, delta=1e-5, steps=3000, radius=10.0,
                               learning_rate=2.0, clip=2.0, random_state=0).fit(X, y)
    theta = np.r_[est.coef_[0], est.intercept_]
    assert _logloss(theta, Xa, y) - f_star < 2e-5
    assert np.mean(est.predict(X) == ref.predict(X)) > 0.98
    assert "never active" in est.certificate_.conditions[0].detail


def test_projection_keeps_parameters_in_the_ball():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 3)) / 3
    y = (X[:, 0] > 0).astype(int)
    est = NoisyGradientDescent(epsilon=0.5, delta=1e-5, steps=50, radius=0.3, learning_rate=5.0,
                               random_state=0).fit(X, y)
    assert np.linalg.norm(np.r_[est.coef_[0], est.intercept_]) <= 0.3 + 1e-12


def test_labels_of_any_type_and_reproducibility():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(400, 2)) / 2
    y = np.where(X[:, 0] + X[:, 1] > 0, "spam", "ham")
    kw = dict(epsilon=2.0, delta=1e-5, steps=100, radius=5.0)
    a = NoisyGradientDescent(**kw, random_state=3).fit(X, y)
    b = NoisyGradientDescent(**kw, random_state=3).fit(X, y)
    c = NoisyGradientDescent(**kw, random_state=4).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert not np.array_equal(a.coef_, c.coef_)
    assert set(a.predict(X)) <= {"spam", "ham"}
    assert a.score(X, y) > 0.8
    with pytest.raises(DataValidationError):
        NoisyGradientDescent(**kw).fit(X, np.arange(400) % 3)


def test_certificate_names_the_accountant():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 2)) / 2
    y = (X[:, 0] > 0).astype(int)
    for accounting, cls in [("rdp", "RdpAccountant"), ("pld", "PLDAccountant")]:
        est = NoisyGradientDescent(epsilon=0.5, delta=1e-6, steps=20, radius=1.0,
                                   accounting=accounting, random_state=0).fit(X, y)
        cert = est.certificate_
        assert cert.all_hold and cert.private
        assert cert.epsilon <= 0.5 and cert.delta == 1e-6
        assert cls in cert.quantities["accountant"]
        assert cert.quantities["noise multiplier z"] == est.noise_multiplier_
        assert cert.quantities["sensitivity 2C/n"] == pytest.approx(2 * 1.0 / 200)
        assert cert.quantities["exact epsilon (Gaussian DP)"] <= cert.epsilon


@pytest.mark.parametrize("bad", [{"epsilon": 0.0}, {"epsilon": -1}, {"delta": 0.0}, {"delta": 1.0},
                                 {"steps": 0}, {"steps": 2.5}, {"radius": 0}, {"clip": -1.0},
                                 {"learning_rate": 0.0}, {"accounting": "moments"},
                                 {"loss": "hinge"}, {"data_norm": 0.0},
                                 {"fit_intercept": "yes"}, {"random_state": -1}])
def test_parameter_validation(bad):
    kw = dict(epsilon=1.0, delta=1e-5, steps=5, radius=1.0)
    kw.update(bad)
    X = np.zeros((4, 2))
    y = np.array([0, 1, 0, 1])
    with pytest.raises(ParameterError):
        NoisyGradientDescent(**kw).fit(X, y)


def test_default_learning_rate_rule():
    from dpconvex.losses import get_loss
    from dpconvex.noisy_gd import default_learning_rate

    logistic = get_loss("logistic")  # c = 1/4; with ||x|| <= 1 and an intercept, L = 1/2
    q = math.sqrt(2.0)
    assert default_learning_rate(logistic, q, 50.0, 1000, 123, 1.0, 0.07) == pytest.approx(
        min(2.0, 50.0 / (0.07 * math.sqrt(1000 * 123))))
    assert default_learning_rate(logistic, q, 1e6, 10, 5, 1.0, 0.1) == pytest.approx(2.0)
    assert default_learning_rate(logistic, q, 1.0, 10, 5, 1.0, 0.0) == pytest.approx(2.0)

    class Rough(type(logistic)):
        curvature = math.inf

    assert default_learning_rate(Rough(), q, 2.0, 100, 3, 1.0, 0.5) == pytest.approx(
        2.0 / (10 * math.sqrt(1.0 + 3 * 0.25)))
    rng = np.random.default_rng(0)
    X = rng.normal(size=(500, 3)) / 3
    y = (X[:, 0] > 0).astype(int)
    est = NoisyGradientDescent(epsilon=1.0, delta=1e-6, steps=50, radius=5.0,
                               random_state=0).fit(X, y)
    assert est.learning_rate_ == pytest.approx(default_learning_rate(
        logistic, q, 5.0, 50, 4, 1.0, est.noise_std_))


@parametrize_with_checks([NoisyGradientDescent(epsilon=1.0, delta=1e-5, steps=50, radius=5.0,
                                               random_state=0)])
def test_sklearn_compatible(estimator, check):
    check(estimator)
