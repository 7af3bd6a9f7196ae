"""NoisyGradientDescent: accountant calibration checked independently, noise scale, utility."""

from __future__ import annotations

import math
import warnings

import dp_accounting
import numpy as np
import pytest
from _helpers import traced_peak
from scipy.stats import chi2, norm
from sklearn.linear_model import LogisticRegression
from sklearn.utils.estimator_checks import parametrize_with_checks

from dpconvex import NoisyGradientDescent
from dpconvex.errors import ParameterError
from dpconvex.privacy.accounting.gaussian import (
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
    # the exact curve's z: feasible by the closed form δ(ε; μ) of μ-GDP at μ = sqrt(T)/z, within
    # 1e-8 of the root (a z 1e-8 smaller overspends), and below PLD's pessimistic one by < 1e-5
    z_gdp, e_gdp = calibrate_noise_multiplier(epsilon, delta, T, "gdp")
    for z, feasible in ((z_gdp, True), (z_gdp * (1 - 1e-8), False)):
        mu = math.sqrt(T) / z
        gdp_delta = norm.cdf(-epsilon / mu + mu / 2) - math.exp(epsilon) * norm.cdf(-epsilon / mu - mu / 2)
        assert bool(gdp_delta <= delta) is feasible, (z, gdp_delta, delta)
    assert e_gdp <= epsilon and z_gdp <= z_pld <= z_gdp * (1 + 1e-5)


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
    # The loss is a mean over rows, so GD's gap after T steps at this step size does not grow
    # with n: at T = 3000 it is 2.4e-6 on these 500 rows (2.3e-6 on 2000), below 2e-5 by 8x.
    rng = np.random.default_rng(0)
    n, d = 500, 5
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
    # epsilon = 1e7 is beyond the PLD grid's limit (a named error): RDP accounting
    est = NoisyGradientDescent(epsilon=1e7, delta=1e-5, steps=3000, radius=10.0,
                               learning_rate=2.0, clip=2.0, accounting="rdp", average="all",
                               random_state=0).fit(X, y)
    theta = np.r_[est.coef_[0], est.intercept_]
    assert _logloss(theta, Xa, y) - f_star < 2e-5
    assert np.mean(est.predict(X) == ref.predict(X)) > 0.98
    # the stated Lipschitz bound |l'|max q~ = 1 * ||[x, 1]|| <= sqrt(2), below the clip 2: the
    # certificate's quantities state both numbers (C >= the bound: the clip never acts), and its
    # per-example clipping condition holds, enforced by dpconvex
    stated = est.certificate_.quantities
    lipschitz = stated["stated Lipschitz bound |l'|max q~"]
    assert lipschitz == pytest.approx(np.sqrt(2.0), rel=1e-12)
    assert stated["clip C"] == 2.0 and stated["clip C"] >= lipschitz
    clipping = next(c for c in est.certificate_.conditions if c.name == "per-example clipping")
    assert (clipping.holds, clipping.how) == (True, "enforced by dpconvex")


def test_projection_keeps_parameters_in_the_ball():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 3)) / 3
    y = (X[:, 0] > 0).astype(int)
    est = NoisyGradientDescent(epsilon=0.5, delta=1e-5, steps=50, radius=0.3, learning_rate=5.0,
                               random_state=0).fit(X, y)
    assert np.linalg.norm(np.r_[est.coef_[0], est.intercept_]) <= 0.3 + 1e-12


@pytest.mark.slow
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
    three = NoisyGradientDescent(**kw).fit(X, np.arange(400) % 3)  # one-vs-rest (privacy-one-vs-rest)
    assert three.coef_.shape == (3, X.shape[1])


def test_certificate_names_the_accountant():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 2)) / 2
    y = (X[:, 0] > 0).astype(int)
    for accounting, cls in [("rdp", "RdpAccountant"), ("pld", "PLDAccountant"), (None, "mu-GDP curve")]:
        chosen = {} if accounting is None else {"accounting": accounting}  # None: the default, "gdp"
        est = NoisyGradientDescent(epsilon=0.5, delta=1e-6, steps=20, radius=1.0, random_state=0,
                                   **chosen).fit(X, y)
        cert = est.certificate_
        assert cert.all_hold and cert.private
        assert cert.epsilon <= 0.5 and cert.delta == 1e-6
        assert cls in cert.quantities["accountant"]
        # the exact curve is a second opinion on an accountant, not on itself
        assert ("second opinion" in [c.name for c in cert.conditions]) is (accounting is not None)
        assert cert.quantities["noise multiplier z"] == est.noise_multiplier_
        assert cert.quantities["sensitivity 2C/n"] == pytest.approx(2 * est.clip_ / 200)
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
    from dpconvex.objectives.losses import get_loss
    from dpconvex.privacy.mechanisms.noisy_gd import default_learning_rate

    logistic = get_loss("logistic")  # c = 1/4; with ||x|| <= 1 and an intercept, L = 1/2
    q = math.sqrt(2.0)
    assert default_learning_rate(logistic, q, 50.0, 1000, 123, 1.0, 0.07) == pytest.approx(
        min(2.0, 50.0 / (0.07 * math.sqrt(1000 * 123))))
    assert default_learning_rate(logistic, q, 1e6, 10, 5, 1.0, 0.1) == pytest.approx(2.0)
    assert default_learning_rate(logistic, q, 1.0, 10, 5, 1.0, 0.0) == pytest.approx(2.0)
    assert default_learning_rate(logistic, q, 1e6, 10, 5, 1.0, 0.1, step_factor=2.0) == (
        pytest.approx(4.0))

    class Rough(type(logistic)):
        curvature = math.inf

    assert default_learning_rate(Rough(), q, 2.0, 100, 3, 1.0, 0.5) == pytest.approx(
        2.0 / (10 * math.sqrt(1.0 + 3 * 0.25)))
    rng = np.random.default_rng(0)
    X = rng.normal(size=(500, 3)) / 3
    y = (X[:, 0] > 0).astype(int)
    # explicit steps and radius, no learning rate: min(2/L, R/(s sqrt(Tp))) (2/L: the stability limit)
    for radius in [5.0, 0.05]:
        est = NoisyGradientDescent(epsilon=1.0, delta=1e-6, steps=50, radius=radius,
                                   random_state=0).fit(X, y)
        assert est.learning_rate_ == pytest.approx(default_learning_rate(
            logistic, q, radius, 50, 4, est.clip_, est.noise_std_, step_factor=2.0))
    assert est.learning_rate_ < 2.0  # the noise-balancing term binds for the small ball


# ---------------------------------------------- only epsilon: public default rules
def _separable(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Linearly separable with an offset (about 70 % positives); rows of norm <= 1."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    X /= np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1.0)
    y = (X @ np.array([1.0, -1.0, 0.5, 0.0, 0.0]) + 0.3 > 0).astype(int)
    return X, y


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_epsilon_only_beats_the_majority_class(seed):
    X, y = _separable(4000, seed)
    Xtr, ytr, Xte, yte = X[:3000], y[:3000], X[3000:], y[3000:]
    majority = max(yte.mean(), 1 - yte.mean())
    assert 0.6 < majority < 0.8
    est = NoisyGradientDescent(epsilon=1.0, random_state=seed).fit(Xtr, ytr)
    assert est.score(Xte, yte) > majority + 0.15
    assert est.delta_ == 1.0 / 3000**2 and est.certificate_.delta == est.delta_


def _rules(cert):
    """The noisy GD rules the certificate states, by setting."""
    from dpconvex.privacy.certificate import NoisyGDRule

    return {line.setting: line for line in cert.lines if isinstance(line, NoisyGDRule)}


def test_certificate_states_the_public_rules():
    from dpconvex.privacy.mechanisms.noisy_gd import DELTA_RULE, TRAVEL

    X, y = _separable(1000, 3)
    est = NoisyGradientDescent(epsilon=1.0, random_state=0).fit(X, y)
    cert = est.certificate_
    rules = _rules(cert)
    assert sorted(rules) == ["clip", "delta", "steps"]
    assert (rules["delta"].value, rules["delta"].n) == (est.delta_, 1000)
    assert str(rules["delta"]) == DELTA_RULE and DELTA_RULE in cert.assumptions
    assert [line["kind"] for line in cert.to_dict()["lines"]] == ["NoisyGDRule"] * 3
    assert (rules["clip"].value, rules["steps"].value) == (est.clip_, est.steps_)
    assert rules["clip"].q == pytest.approx(math.sqrt(2.0))  # q = 1 with the intercept column
    steps = rules["steps"]
    assert (steps.low, steps.high, steps.travel_factor) == (20, 1000, TRAVEL)
    assert steps.travel == pytest.approx(TRAVEL * 1000 * steps.mu / math.sqrt(2.0), rel=1e-12)
    # the radius and learning-rate rules read z: stated as text
    text = "\n".join(cert.assumptions)
    for line in [f"radius R = {est.radius_:.6g} by the public rule",
                 f"learning rate eta = {est.learning_rate_:.6g} by the public rule"]:
        assert line in text
    assert "average of the last" in cert.quantities["averaging"]
    assert cert.quantities["steps T"] == est.steps_ and cert.quantities["clip C"] == est.clip_
    assert est.clip_ == pytest.approx(0.5 * math.sqrt(2.0))  # |l'| <= 1, q~ = sqrt(1 + 1)
    dry = est.certify(X, y)
    assert dry.assumptions == cert.assumptions[:len(dry.assumptions)] and dry.lines == cert.lines
    # explicit values override every rule: none is listed
    est = NoisyGradientDescent(epsilon=1.0, delta=1e-6, steps=30, radius=3.0, clip=0.5,
                               learning_rate=1.0, average="all", random_state=0).fit(X, y)
    assert not _rules(est.certificate_)
    assert (est.steps_, est.radius_, est.clip_, est.learning_rate_, est.delta_) == (
        30, 3.0, 0.5, 1.0, 1e-6)
    assert est.certificate_.quantities["averaging"] == "the average of all T iterates"


@pytest.mark.parametrize("kwargs", [{}, {"clip": 0.3, "learning_rate": 0.5}, {"delta": 1e-4}])
def test_plan_states_the_resolved_steps_and_clip(kwargs):
    """plan() resolves T and C by their public rules: the numbers and lines the fit certifies."""
    X, y = _separable(300, 3)
    est = NoisyGradientDescent(epsilon=1.0, accounting="rdp", classes=[0, 1], random_state=0,
                               **kwargs)
    plan = est.plan(300, 2, 5)  # no data: n, the classes and the features only
    T, C = plan.options["steps"], plan.options["clip"]
    assert isinstance(T, int) and isinstance(C, float)
    assert f"steps = {T}" in str(plan)
    est.fit(X, y)
    assert (est.steps_, est.clip_) == (T, C)
    assert all(est.certificate_.states(note) for note in plan.notes)
    noted = {note.setting: note.value for note in plan.notes}
    assert noted == ({"steps": T} if "clip" in kwargs else {"clip": C, "steps": T})
    # the radius and learning-rate rules need z: stated as rules, not as numbers
    assert isinstance(plan.options["radius"], str)


def test_plan_keeps_explicit_steps_and_states_no_rule():
    plan = NoisyGradientDescent(epsilon=1.0, steps=30, clip=0.5, classes=[0, 1]).plan(300, 2, 5)
    assert (plan.options["steps"], plan.options["clip"]) == (30, 0.5)
    assert plan.notes == ()


def test_one_vs_rest_plan_resolves_each_runs_steps():
    """C runs with epsilon/C each: the steps of one run's rule, at that run's budget."""
    from dpconvex.objectives import Logistic
    from dpconvex.privacy.mechanisms.noisy_gd import clip_rule, steps_rule

    plan = NoisyGradientDescent(epsilon=1.0, classes=[0, 1, 2]).plan(1000, 3, 4)
    one = plan.sub_plans[0]
    q = math.sqrt(2.0)
    assert one.options["steps"] == steps_rule(Logistic(), 1000, q, one.budget,
                                              clip_rule(Logistic(), q)[0])[0]
    assert plan.options["steps"] == one.options["steps"]
    assert one.budget.delta == pytest.approx(1e-6) and plan.budget.delta == pytest.approx(3e-6)


@pytest.mark.slow
@pytest.mark.parametrize("n,epsilon", [(50, 0.1), (500, 1.0), (30_000, 0.1), (50_000, 1.0),
                                       (2_000, 4.0)])
def test_default_calibration_within_epsilon_exactly(n, epsilon):
    from dpconvex.objectives.losses import get_loss
    from dpconvex.privacy.budget import Budget
    from dpconvex.privacy.mechanisms.noisy_gd import (
        MAX_STEPS,
        MIN_STEPS,
        default_delta,
        default_settings,
    )

    delta = default_delta(n)
    st = default_settings(get_loss("logistic"), n, 105, math.sqrt(2.0), Budget(epsilon, delta))
    assert MIN_STEPS <= st.steps <= MAX_STEPS
    assert st.epsilon <= epsilon
    # the exact privacy curve of the T steps (GDP, mu = sqrt(T)/z) stays within the claim
    assert gdp_epsilon(st.noise_multiplier, st.steps, delta) <= epsilon
    assert st.noise_std == pytest.approx(st.noise_multiplier * 2 * st.clip / n)
    # the radius rule leaves the step at its cap 2/L (L = c q~^2 = 1/2)
    assert st.learning_rate == pytest.approx(4.0)


def test_iterate_averaging_is_exact():
    # zero features, no intercept: every gradient is 0 and theta_t = theta_{t-1} - eta * noise_t,
    # so the released average can be replayed from the seeded noise
    from dpconvex.privacy.noise import snap

    n, p, T = 10, 3, 5
    X, y = np.zeros((n, p)), np.array([0, 1] * 5)
    kw = dict(epsilon=1.0, delta=1e-5, steps=T, radius=1e9, learning_rate=1.0, clip=1.0,
              fit_intercept=False, random_state=7)
    last = NoisyGradientDescent(**kw).fit(X, y)
    full = NoisyGradientDescent(**kw, average="all").fit(X, y)
    rng, s = np.random.default_rng(7), last.noise_std_
    theta, iterates = np.zeros(p), []
    for _ in range(T):
        theta = theta - snap(rng.normal(0.0, s, size=p), s)
        iterates.append(theta)
    np.testing.assert_allclose(last.coef_[0], np.mean(iterates[2:], axis=0), rtol=1e-12)
    np.testing.assert_allclose(full.coef_[0], np.mean(iterates, axis=0), rtol=1e-12)
    with pytest.raises(ParameterError, match="'average'"):
        NoisyGradientDescent(**{**kw, "average": "first_half"}).fit(X, y)


def test_default_delta_is_charged_to_the_ledger():
    from dpconvex import BudgetAccountant

    X, y = _separable(200, 4)
    acc = BudgetAccountant(epsilon=1.0, delta=1e-3)
    NoisyGradientDescent(epsilon=0.5, steps=10, accountant=acc, random_state=0).fit(X, y)
    assert acc.spent[1] == pytest.approx(1.0 / 200**2)


# ------------------------------------------------------------------ predict_proba
def test_predict_proba_rows_sum_to_one_and_agree_with_predict():
    X, y = _separable(600, 5)
    labels = np.where(y == 1, "yes", "no")
    est = NoisyGradientDescent(epsilon=1.0, random_state=0).fit(X, labels)
    P = est.predict_proba(X)
    assert P.shape == (600, 2) and np.all((P >= 0) & (P <= 1))
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(est.classes_[P.argmax(axis=1)], est.predict(X))
    np.testing.assert_allclose(P[:, 1], 1 / (1 + np.exp(-est.decision_function(X))), rtol=1e-12)
    # huge scores do not overflow; a score that rounds sigma to 1/2 keeps argmax = predict
    big = NoisyGradientDescent(epsilon=1.0, random_state=0).fit(X * 1.0, labels)
    big.coef_, big.intercept_ = np.zeros_like(big.coef_), np.array([1e-300])
    assert big.predict(X[:1])[0] == big.classes_[big.predict_proba(X[:1]).argmax()]
    big.coef_ = np.full_like(big.coef_, 1e5)
    assert np.all(np.isfinite(big.predict_proba(X)))


@pytest.mark.parametrize("n_classes", [2, 3])
def test_large_margin_predict_proba(n_classes):
    from dpconvex import PrivateLargeMarginGaussian

    rng = np.random.default_rng(n_classes)
    centers = np.array([[0.5, 0.0], [-0.5, 0.2], [0.0, -0.5]])[:n_classes]
    y = np.repeat(np.arange(n_classes), 60)
    X = centers[y] + 0.1 * rng.normal(size=(len(y), 2))
    est = PrivateLargeMarginGaussian(epsilon=5.0, random_state=0).fit(X, y)
    P = est.predict_proba(X)
    assert P.shape == (len(y), n_classes)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(est.classes_[P.argmax(axis=1)], est.predict(X))
    S = est.class_scores(X)  # softmax of the scores: log-ratios equal score differences
    np.testing.assert_allclose(np.log(P[:, 1] / P[:, 0]), S[:, 1] - S[:, 0], atol=1e-9)


# --------------------------------------------------------------- calibration speed
def _plain_bisection(epsilon, delta, steps, accounting, rtol=1e-6):
    """A plain bisection on z that asks the accountant every question (the reference)."""
    def eps_of(z):
        return gaussian_composition_epsilon(z, steps, delta, accounting)

    hi = 1.0
    if accounting == "pld":
        hi = _plain_bisection(epsilon, delta, steps, "rdp", rtol=1e-3)[0]
    e_hi = eps_of(hi)
    while e_hi > epsilon:
        hi *= 2.0
        e_hi = eps_of(hi)
    lo = hi / 2.0
    while eps_of(lo) <= epsilon:
        hi, lo = lo, lo / 2.0
    e_hi = eps_of(hi)
    while hi - lo > rtol * hi:
        mid = 0.5 * (lo + hi)
        e_mid = eps_of(mid)
        if e_mid <= epsilon:
            hi, e_hi = mid, e_mid
        else:
            lo = mid
    return hi, e_hi


@pytest.mark.slow
@pytest.mark.parametrize("epsilon,delta,T", [(1.0, 1e-5, 20), (0.3, 1e-8, 7), (0.1, 4e-10, 300)])
@pytest.mark.parametrize("accounting", ["rdp", "pld"])
def test_fast_calibration_returns_the_same_multiplier_bit_for_bit(epsilon, delta, T, accounting):
    from dpconvex.privacy.accounting import gaussian

    gaussian._calibrate.cache_clear()
    assert calibrate_noise_multiplier(epsilon, delta, T, accounting) == (
        _plain_bisection(epsilon, delta, T, accounting))


@pytest.mark.slow
def test_pld_calibration_at_large_epsilon_finishes():
    # the plain bisection with PLD takes 77 s at epsilon = 20 and 284 s at epsilon = 50 (T = 1000);
    # T = 20 keeps this test fast (the timing is in the report, not here)
    from dpconvex.privacy.accounting.gaussian import gdp_mu

    # (the PLD grid, hence the time per accountant call, grows with mu = sqrt(T)/z, not with T)
    epsilon = 50.0
    z, e = calibrate_noise_multiplier(epsilon, 1e-5, 20, "pld")
    assert e <= epsilon and gdp_epsilon(z, 20, 1e-5) <= epsilon
    assert z >= math.sqrt(20) / gdp_mu(epsilon, 1e-5) * (1 - 1e-9)  # never below exact
    assert z <= math.sqrt(20) / gdp_mu(epsilon, 1e-5) * (1 + 1e-4)  # PLD is tight
    # beyond the PLD grid's limit: a named error that says what to change, no MemoryError
    with pytest.raises(ParameterError, match="accounting='gdp'"):
        calibrate_noise_multiplier(1e4, 1e-5, 100, "pld")


def test_gdp_mu_inverts_the_exact_curve():
    from dpconvex.privacy.accounting.gaussian import gdp_mu

    for epsilon, delta in [(0.01, 1e-10), (0.1, 4e-10), (1.0, 1e-5), (50.0, 1e-5), (1e6, 1e-6),
                           (1e8, 1e-6)]:
        mu = gdp_mu(epsilon, delta)
        assert gdp_epsilon(1.0 / mu, 1, delta) == pytest.approx(epsilon, rel=1e-8)


def _gdp_delta_exact(epsilon: float, mu: float) -> float:
    """δ(ε) of μ-GDP in 80 digits (mpmath, a dependency of dp-accounting): a reference with none
    of the package's forms or roundings, whose terms do not cancel at that precision here."""
    mp = pytest.importorskip("mpmath")
    with mp.workdps(80):
        eps, m = mp.mpf(epsilon), mp.mpf(mu)
        return float(mp.ncdf(-eps / m + m / 2) - mp.exp(eps) * mp.ncdf(-eps / m - m / 2))


@pytest.mark.parametrize("epsilon, mu", [
    (1e6, 8056.0), (1e8, 3e4), (4.8e5, 1000.0),  # μ² >> ε: δ ≈ 1
    (1e8, 14137.0), (1e8, 14137.871446725632), (3.8e8, 27537.833100823907),  # μ² ≈ 2ε, a ≈ -4 to -31
    (1.1e7, 4686.1), (7.246899e14, 38070697.67),  # a > 0 and a < 0 with e^ε past float64
    (1.5085996813877248e16, 173700842.1723618), (5.2766989876140883e17, 1027297326.7092617),  # a read to 1e-7
    (1e18, 1414213558.1082017), (1.6463544723069541e-15, 5.630594130187926e-16),  # the first form's δ is 0
    (0.01, 0.001), (0.0, 0.5), (2.0, 1e-3),  # μ² << ε: the quadrature
    (1.6620411655263455e-08, 1.020641349214202e-09),  # the first form's error beyond its old bound
    (0.0, 20.0), (2.301897997608742e-06, 6.06792198709627e-08)])  # δ at 1 and at 0
def test_gdp_delta_is_never_below_the_exact_curve_and_close_to_it(epsilon, mu):
    """Where e^ε overflows or rounds δ away (huge ε, μ² ≈ 2ε), where the first form's δ is 0 or
    negative, and where the terms cancel (μ² << ε): δ is stated from above, with no warning and
    no error, and within the rounding of a = -ε/μ + μ/2 (relative 2⁻⁵⁰ (ε/μ + μ/2)(|a| + 2)) and
    1e-6 of the curve in 80 digits."""
    from dpconvex.privacy.accounting import gaussian

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value = gaussian._gdp_delta(epsilon, mu)
    reference = _gdp_delta_exact(epsilon, mu)
    a = -epsilon / mu + mu / 2.0
    slack = 1e-6 + 2.0**-47 * (epsilon / mu + mu / 2.0) * (abs(a) + 2.0)
    assert reference <= value + 1e-300 and value <= min(reference * (1 + slack) + 1e-300, 1.0)


@pytest.mark.parametrize("epsilon, mu", [(8.511380382028912e33, 1.3047130245405624e17),
                                         (1e34, 1.4142135623730949e17),
                                         (3.1622776601683793e66, 2.5148668593658705e33),
                                         (1.0, 1.5e154), (0.0, 60.0), (3.5e307, 2.6e154)])
def test_gdp_delta_where_a_is_not_resolved_stays_above_the_curve(epsilon, mu):
    """At ε ≈ 1e34 and μ ≈ √(2ε), a = -ε/μ + μ/2 is read to about 2 in float64: the curve is read
    at an a above the true one (δ increases in a), so δ is stated from above, here as 1; and the
    quadrature meets no overflow where μ(a + z) rounds below 0."""
    from dpconvex.privacy.accounting import gaussian

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value = gaussian._gdp_delta(epsilon, mu)
    assert _gdp_delta_exact(epsilon, mu) <= value <= 1.0


def test_gdp_delta_integrates_where_its_two_terms_cancel(monkeypatch):
    """μ² << ε and δ far below both terms: neither closed form bounds its rounding within 1e-10
    of δ, so the quadrature runs, and agrees with the exact curve to that bound."""
    from dpconvex.privacy.accounting import gaussian

    calls = []
    quad = gaussian.integrate.quad
    monkeypatch.setattr(gaussian.integrate, "quad", lambda *a, **k: calls.append(1) or quad(*a, **k))
    value, reference = gaussian._gdp_delta(0.01, 0.001), _gdp_delta_exact(0.01, 0.001)
    assert calls, "the quadrature branch did not run"
    assert reference <= value <= reference * (1 + 1e-9)


@pytest.mark.parametrize("epsilon, mu", [(1e154, 1.0), (1e300, 1e-10), (1.0, 5e-324), (1e308, 1.4142e154)])
def test_gdp_delta_where_a_is_far_below_zero_is_zero_not_nan(epsilon, mu):
    """ε/μ overflows or a < -1e4 (δ < 1e-300): 0, with no warning; never a NaN, which a caller's
    max(0, ·) would turn into a false 0 where δ is 1."""
    from dpconvex.privacy.accounting import gaussian
    from dpconvex.privacy.accounting.analytic_gaussian import analytic_gaussian_delta

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert gaussian._gdp_delta(epsilon, mu) == 0.0
        assert analytic_gaussian_delta(1.0, 1e-155, 1.0) == 1.0  # μ = 1e155: δ(1) is 1


def test_calibrations_at_an_extreme_epsilon_raise_nothing():
    """ε = 1e18 (μ ≈ 1.4e9) and ε ≈ 1e-15 with δ = 1e-20: the first form's δ is 0 there; the
    calibrations return a multiplier (or σ) sound on the exact curve."""
    from dpconvex.privacy.accounting.analytic_gaussian import analytic_gaussian_sigma
    from dpconvex.privacy.accounting.gaussian import calibrate_noise_multiplier, gdp_mu

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mu = gdp_mu(1e18, 1e-5)
        sigma = analytic_gaussian_sigma(1.7782794100389227e-15, 1e-20, 1.0)
        z = calibrate_noise_multiplier(1e65, 1e-5, 100, "gdp")[0]
    assert z > 0
    assert _gdp_delta_exact(1e18, mu) <= 1e-5
    assert _gdp_delta_exact(1.7782794100389227e-15, 1.0 / sigma) <= 1e-20


def test_noisy_gd_at_a_huge_epsilon_calibrates_without_overflow():
    """The calibrated z is sound on the exact curve: δ(ε; √T/z) <= δ."""
    X = np.random.default_rng(0).uniform(-0.5, 0.5, (60, 3))
    y = (X @ [1.0, -1.0, 0.5] > 0).astype(int)
    for epsilon in (1e6, 1e7, 1e8):
        model = NoisyGradientDescent(epsilon=epsilon, delta=1e-6, steps=100, classes=[0, 1],
                                     accounting="gdp", random_state=0).fit(X, y)
        z = model.noise_multiplier_
        assert 0.0 < z and _gdp_delta_exact(epsilon, math.sqrt(100) / z) <= 1e-6


def test_steps_cap_from_the_public_shape():
    """T_max = min(10^6, max(1000, 10^11 // (n p))): never below the steps rule's clamp."""
    from dpconvex.privacy.mechanisms.noisy_gd import MAX_STEPS, max_steps

    assert max_steps(600, 6) == 10**6
    assert max_steps(70_000, 124) == 10**11 // (70_000 * 124) == 11_520
    assert max_steps(4_898_431, 121) == MAX_STEPS == 1000
    assert all(max_steps(n, p) >= MAX_STEPS for n in (2, 10**4, 10**9) for p in (1, 10**3, 10**6))


@pytest.mark.parametrize("steps", [10**9, 10**6 + 1, 10**400])
def test_steps_above_the_cap_refused_before_any_work(steps):
    """No hang: the refusal comes from the shape, before the data or the ledger are used."""
    import time

    from dpconvex import BudgetAccountant

    X = np.random.default_rng(0).normal(size=(600, 5)) / 3
    y = (X[:, 0] > 0).astype(int)
    acc = BudgetAccountant(epsilon=5.0, delta=1e-3)
    est = NoisyGradientDescent(epsilon=1.0, steps=steps, accountant=acc)
    t0 = time.monotonic()
    with pytest.raises(ParameterError, match=r"'steps' parameter .* int in \[1, 1,000,000\]"):
        est.fit(X, y)
    assert time.monotonic() - t0 < 5
    assert not hasattr(est, "coef_") and acc.spent == (0.0, 0.0) and acc.reserved == []
    est = NoisyGradientDescent(epsilon=1.0, steps=10**6, fit_intercept=False, random_state=0)
    with pytest.raises(ParameterError, match="11,520"):  # 70,000 x 124: the work bound
        est.fit(np.zeros((70_000, 124)), np.arange(70_000) % 2)


def test_mechanism_refuses_steps_above_the_cap():
    from dpconvex.privacy.budget import Budget
    from dpconvex.privacy.mechanisms.noisy_gd import NoisyGD

    class Shape:  # what calibrate reads of a template before the cap
        n, p = 70_000, 124

    with pytest.raises(ParameterError, match="above the cap 11,520"):
        NoisyGD(steps=11_521).calibrate(Shape(), Budget(1.0, 1e-6))


@pytest.mark.slow
@parametrize_with_checks([NoisyGradientDescent(epsilon=1.0, delta=1e-5, steps=50, radius=5.0,
                                               random_state=0)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def _labelled_copy_release(X: np.ndarray, y: np.ndarray, seed: int, **kw) -> np.ndarray:
    """The run on an explicit labelled, clipped copy of the rows (the array path of NoisyGD.run)."""
    from dpconvex import Budget, release
    from dpconvex.objectives import Logistic
    from dpconvex.privacy.mechanisms import get_mechanism
    from dpconvex.templates.statistics import EmpiricalRiskTemplate

    Xc = X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1.0)
    Xc = np.hstack([Xc, np.ones((len(y), 1))])
    template = EmpiricalRiskTemplate(Logistic(), math.sqrt(2.0), Xc, np.where(y == 1, 1.0, -1.0))
    mech = get_mechanism("noisy_gd", **kw)
    return release(template, mech, Budget(1.0, 1e-5), rng=seed).theta


def test_the_fit_reads_the_rows_in_place_and_releases_what_a_copy_would():
    """The template's rows are X itself (clip, intercept and labels as per-row factors)."""
    from dpconvex.data.operators import ScaledRows

    X, y = _separable(300, 5)
    X[:7] *= 3.0  # rows above the bound: clipped by their factor, not on a copy
    kw = dict(steps=25, clip=0.7, accounting="rdp")
    est = NoisyGradientDescent(epsilon=1.0, delta=1e-5, classes=[0, 1], random_state=4, **kw)
    prep = est.prepare(X, y, est.plan(300, 2, 5))
    assert isinstance(prep.template.X, ScaledRows) and np.shares_memory(prep.template.X.base.X, X)
    est.fit(X, y)
    theta = _labelled_copy_release(X, y, 4, **kw)
    np.testing.assert_allclose(est.coef_[0], theta[:5], rtol=1e-9, atol=1e-12)
    assert est.intercept_[0] == pytest.approx(theta[5], rel=1e-9, abs=1e-12)


def test_the_fit_holds_no_copy_of_the_rows():
    """Extra memory O(n + p): far below the 8 n p bytes of one copy of X."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20_000, 40)) / 8.0
    y = (X[:, 0] > 0).astype(int)
    est = NoisyGradientDescent(epsilon=1.0, delta=1e-5, steps=3, accounting="rdp", classes=[0, 1],
                               random_state=0)
    _, peak = traced_peak(lambda: est.fit(X, y))
    assert peak < 0.25 * X.nbytes, peak / X.nbytes


def test_steps_rule_is_the_measured_slope_with_the_cap():
    """T = ceil(1.3 c n mu) for the logistic loss (c = 1/4) in [20, 1000], c the curvature bound."""
    from dpconvex.objectives import HuberHinge, Logistic
    from dpconvex.privacy.accounting.gaussian import gdp_mu
    from dpconvex.privacy.budget import Budget
    from dpconvex.privacy.mechanisms.noisy_gd import clip_rule, steps_rule

    q = math.sqrt(2.0)
    C = clip_rule(Logistic(), q)[0]
    for n, eps, delta in [(1000, 1.0, 1e-6), (546, 0.5, 1.0 / 546**2), (5_000, 1.0, 1e-5)]:
        T, note = steps_rule(Logistic(), n, q, Budget(eps, delta), C)
        assert T == min(1000, max(20, math.ceil(0.325 * n * gdp_mu(eps, delta) * (1 - 1e-12))))
        assert (note.setting, note.value) == ("steps", T)
        assert note.mu == pytest.approx(gdp_mu(eps, delta), rel=1e-12)  # the same public mu
    assert steps_rule(Logistic(), 10**6, q, Budget(1.0, 1e-8), C)[0] == 1000  # the cap
    assert steps_rule(Logistic(), 50, q, Budget(0.1, 1e-4), C)[0] == 20  # the floor
    # the travel form carries the loss: Huber (h = 0.5, c = 1) takes 1.3 n mu
    T = steps_rule(HuberHinge(0.5), 300, q, Budget(1.0, 1e-5), clip_rule(HuberHinge(0.5), q)[0])[0]
    assert T == math.ceil(1.3 * 300 * gdp_mu(1.0, 1e-5) * (1 - 1e-12))


def test_a_row_enlarged_during_the_run_has_its_gradient_clipped_to_c(monkeypatch):
    """Each step clips a row's gradient by the row's norm as that step reads it: row 0 of norm
    1e-3 when the run starts, set to norm 1 after the first step (another thread writing X), at
    margin -5 in the second step (|l'| = 0.993), adds a gradient of norm C there, not 2C."""
    from dpconvex.objectives import Logistic
    from dpconvex.privacy.budget import Budget
    from dpconvex.privacy.mechanisms import get_mechanism, noisy_gd
    from dpconvex.templates.statistics import EmpiricalRiskTemplate

    n = 50
    X = np.zeros((n, 3))  # the zero rows add no gradient: a step's sum is row 0's gradient
    X[0] = [0.6e-3, 0.8e-3, 0.0]
    template = EmpiricalRiskTemplate(Logistic(), 1.0, X, np.ones(n))
    assert np.shares_memory(template.X, X)
    mech = get_mechanism("noisy_gd", steps=2, radius=10.0, accounting="rdp")
    cal = mech.calibrate(template, Budget(1.0, 1e-5))
    C, eta = cal.extra["clip"], cal.extra["learning rate"]
    target = np.array([-3.0, -4.0, 0.0])  # margin -5 on row 0 once it has norm 1
    sums = []

    class Writer:
        """The steps' noise: records each step's gradient sum; after the first step it sets
        X[0] to norm 1 and moves θ to ``target`` (no noise: the sum is read exactly)."""

        def __init__(self, std: float):
            pass

        def add(self, g: np.ndarray, rng: object) -> np.ndarray:
            sums.append(n * np.asarray(g))
            if len(sums) == 1:
                X[0] *= 1e3
                return -target / eta  # θ_1 = θ_0 - η (-target/η) = target
            return np.zeros_like(g)

    monkeypatch.setattr(noisy_gd, "Gaussian", Writer)
    mech.run(template, cal, None, np.random.default_rng(0))
    assert len(sums) == 2
    unclipped = 1.0 / (1.0 + math.exp(-5.0))  # |l'(-5)| ||r_0||: 0.993, about 2C
    assert unclipped > 1.9 * C
    # the clip binds: the sum is row 0's gradient scaled to norm C (rounding: 1e-12 relative)
    assert np.linalg.norm(sums[1]) == pytest.approx(C, rel=1e-12)
