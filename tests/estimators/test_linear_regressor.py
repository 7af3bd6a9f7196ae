"""Private linear regression: losses of the prediction, stated in CVXPY or shipped.

The regression form of objective perturbation ([KST] Section 3: a convex loss ℓ(z, y) of the
prediction, rank-one per-record Hessians) is checked by an exact privacy-loss computation on
tiny one-dimensional problems, where the released θ has a density in closed form
(docs/privacy/user_objectives.md#privacy-prediction-losses); the estimator by its
certificate, its label maps and a utility check on synthetic data.
"""

from __future__ import annotations

import math
import warnings

import cvxpy as cp
import numpy as np
import pytest

import dpconvex as dp
from dpconvex.errors import DataValidationError, ParameterError, PrivacyError
from dpconvex.objectives import HuberRegression, L1Ball, Loss, Pinball
from dpconvex.privacy.certificate import LabelSource, ParameterSet
from dpconvex.privacy.mechanisms import Calibration, get_mechanism
from dpconvex.templates import LinearERMTemplate


def _table(n=3000, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) / (2 * np.sqrt(d))
    y = 50 + 30 * X @ np.linspace(1, -1, d) * np.sqrt(d) + 5 * rng.normal(size=n)
    return X, y


# ------------------------------------------------- exact privacy loss, one dimension
def _released_log_density(template: LinearERMTemplate, cal: Calibration, theta: np.ndarray,
                          X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """log f(θ) of objective perturbation's output in one dimension, up to a shared constant.

    θ minimizes J(θ) + (Δ/2)θ² + bθ/n, so b = B(θ) = −n(J′(θ) + Δθ), and with b of density
    (β/2)exp(−β|b|): f(θ) = (β/2) exp(−β|B(θ)|) |B′(θ)|, B′(θ) = −n(J″(θ) + Δ).

    J′ + Δθ and J″ + Δ on every θ at once from the template's loss, ℓ′ and ℓ″ at the margins
    x_i θ (the rows of ``X``, labels ``y``): (1/n) Σ_i x_i ℓ′ + (Λ + Δ)θ and
    (1/n) Σ_i x_i² ℓ″ + Λ + Δ, the sums over the rows in order. They are the template's
    ``objective`` and ``hessian`` (checked on every 20th θ, every θ where some ℓ″ ≠ 0, and the
    last two).
    """
    n, delta, beta = template.n, cal.extra_strong_convexity, cal.noise_rate
    reg = template.regularizer.lam + float(delta)
    x = X[:, 0]
    margins = x[:, None] * theta[None, :]  # (rows, θ)
    d1 = template.loss.value_and_deriv(margins, y[:, None])[1]
    d2 = template.loss.deriv2(margins, y[:, None])
    r, c = d1[0] * x[0], d2[0] * x[0] * x[0]
    for i in range(1, x.size):
        r, c = r + d1[i] * x[i], c + d2[i] * x[i] * x[i]
    grad, hess = r / n + reg * theta, c / n + reg
    curved = np.flatnonzero(np.any(d2 != 0, axis=0)).tolist()
    for i in sorted({*range(0, theta.size, 20), *curved, theta.size - 2, theta.size - 1}):
        t = np.array([theta[i]])
        assert template.objective(t, None, delta)[1][0] == pytest.approx(grad[i], rel=1e-12, abs=1e-12)
        assert template.hessian(t, delta)[0, 0] == pytest.approx(hess[i], rel=1e-12, abs=1e-12)
    return -beta * np.abs(n * grad) + np.log(n * hess)


@pytest.mark.parametrize("loss", [
    pytest.param(HuberRegression(0.5, (-1.0, 1.0)), id="huber"),
    pytest.param(Pinball(0.8, (-1.0, 1.0), smoothing=0.2), id="pinball"),
    pytest.param(Loss.from_cvxpy(lambda z, y: cp.huber(z - y, 0.5), kind="regression",
                                 label_range=(-1.0, 1.0)), id="from_cvxpy"),
    # log cosh: slopes [0, 2] − 1 cancel to the derived |ℓ'| <= 1
    pytest.param(Loss.from_cvxpy(lambda z, y: cp.logistic(2 * (z - y)) - (z - y), kind="regression",
                                 label_range=(-1.0, 1.0)), id="log_cosh", marks=pytest.mark.slow)])
@pytest.mark.parametrize("points", [401, pytest.param(4001, marks=pytest.mark.slow)])
def test_exact_privacy_loss_of_regression_objective_perturbation_is_at_most_epsilon(loss, points):
    # the density ratio on a grid of released θ: 401 points (spacing 0.2) in the fast suite,
    # 4001 (spacing 0.02) marked slow
    eps = 1.0
    X = np.array([[0.3], [-0.7], [1.0]])
    y = np.array([0.2, -0.5, 0.9])
    worst = -np.inf
    theta = np.concatenate([np.linspace(-40, 40, points), [-1e4, 1e4]])
    # the table, its calibration and its density are the same against every neighbour
    a = LinearERMTemplate(loss, 0.05, 1.0, X, y)
    cal = get_mechanism("objective").calibrate(a, dp.Budget(eps))
    log_density_a = _released_log_density(a, cal, theta, X, y)
    # replace the last record by each extreme of the public record domain
    for x_new, y_new in [(-1.0, -1.0), (-1.0, 1.0), (1.0, -1.0), (0.0, 1.0), (1.0, 1.0)]:
        X2, y2 = X.copy(), y.copy()
        X2[-1, 0], y2[-1] = x_new, y_new
        b = LinearERMTemplate(loss, 0.05, 1.0, X2, y2)
        assert cal == get_mechanism("objective").calibrate(b, dp.Budget(eps))  # public only
        ratio = log_density_a - _released_log_density(b, cal, theta, X2, y2)
        worst = max(worst, float(np.max(np.abs(ratio))))
    assert worst <= eps * (1 + 1e-9), worst
    assert worst > 0.3 * eps, worst  # the neighbours are far apart: the check can fail


# --------------------------------------------------------------------- the estimator
def test_huber_regression_in_cvxpy_releases_a_useful_model_with_its_certificate():
    X, y = _table()
    Xte, yte = _table(seed=1)
    huber = Loss.from_cvxpy(lambda z, y: cp.huber(z - y, 0.5) / 1.0, kind="regression",
                            name="my_huber", label_range=(-1.0, 1.0))
    scores = []
    for seed in range(3):
        reg = dp.PrivateLinearRegressor(loss=huber, epsilon=2.0, label_range=(-50, 150),
                                        random_state=seed).fit(X, y)
        scores.append(reg.score(Xte, yte))
    # non-private R² of this table is about 0.9; the release at ε = 2 on 3,000 rows is far
    # above the constant (R² 0) on every seed
    assert min(scores) > 0.3, scores
    cert = reg.certificate_
    hows = {c.name: c.how for c in cert.conditions}
    assert hows["|ℓ'| bound"] == "derived on all of ℝ from the CVXPY form's atoms"
    assert "labels in the label range" in hows
    assert cert.label_source == LabelSource("label_range", label_range=(-50, 150))
    assert cert.epsilon <= 2.0


def test_predictions_are_in_the_label_units_and_range():
    X, y = _table(n=500)
    reg = dp.PrivateLinearRegressor(mechanism="none", label_range=(-50, 150), lam=1e-4).fit(X, y)
    pred = reg.predict(X)
    assert np.all((pred >= -50) & (pred <= 150))
    assert reg.score(X, y) > 0.8   # the non-private fit of the same objective
    assert reg.coef_.shape == (4,) and isinstance(reg.intercept_, float)


def test_labels_outside_the_range_are_clipped_and_counted_in_the_diagnostics_only():
    """Whether some label is outside label_range is a fact one record switches: no message."""
    X, y = _table(n=300)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with dp.collect_diagnostics() as diag:
            reg = dp.PrivateLinearRegressor(label_range=(40, 60), random_state=0).fit(X, y)
    assert not [w for w in caught if "label_range" in str(w.message)]
    clipped = diag.note("labels clipped")
    assert clipped.n == 300 and clipped.count == int(np.sum((y < 40) | (y > 60))) > 0
    assert reg.certificate_.label_source.label_range == (40, 60)


def test_the_squared_loss_is_refused_with_the_reason():
    X, y = _table(n=300)
    with pytest.raises(PrivacyError, match="unbounded slope on ℝ.*cp.huber\\(z - y, M\\).*"
                       "squared loss of a regression, PrivateLinearRegression"):
        dp.PrivateLinearRegressor(loss="squared", label_range=(-50, 150)).fit(X, y)


def _pinball(z, y, tau=0.8):  # module level: a model holding it pickles
    return cp.maximum(tau * (y - z), (tau - 1) * (y - z))


def test_a_callable_loss_may_have_further_parameters_with_defaults_or_be_a_partial():
    import functools
    import pickle

    X, y = _table(n=300)
    kw = dict(epsilon=2.0, label_range=(-50, 150), random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)
        fits = [dp.PrivateLinearRegressor(loss=loss, **kw).fit(X, y)
                for loss in (_pinball, functools.partial(_pinball, tau=0.8),
                             lambda z, y: _pinball(z, y))]
    # the same loss stated three ways: the same release (the same seed and the same smoothed loss)
    np.testing.assert_array_equal(fits[0].coef_, fits[1].coef_)
    np.testing.assert_array_equal(fits[0].coef_, fits[2].coef_)
    assert pickle.loads(pickle.dumps(fits[1])).predict(X[:3]).shape == (3,)

    def needs_three(z, y, tau):
        return _pinball(z, y, tau)

    for loss in (needs_three, lambda z: cp.abs(z), lambda z, y, *, tau: _pinball(z, y, tau)):
        with pytest.raises(ParameterError, match=r"cannot be called with 2 positional argument"):
            dp.PrivateLinearRegressor(loss=loss, **kw).fit(X, y)


@pytest.mark.parametrize("label_range", [(-1e308, 1e308), (0, 1e101), (1.0, 1.0 + 1e-110),
                                         (2, 1), (0, math.inf), "wide", ("0", "100"),
                                         {0: 1, 1: 2}, {0, 100},  # a dict's keys, a set: no (lo, hi)
                                         (True, 5), (0, np.True_)])  # a bool is not a number here
def test_a_label_range_out_of_limits_is_refused_by_name(label_range):
    """Not a misleading complaint about the labels: the range itself, with its limits."""
    X, y = _table(n=50)
    for est in (dp.PrivateLinearRegressor, dp.PrivateRegressor):
        with pytest.raises(ParameterError, match=r"label_range.*1e100"):
            est(epsilon=1.0, label_range=label_range).fit(X, y)


@pytest.mark.parametrize("est", [dp.PrivateLinearRegressor, dp.PrivateHuberRegressor,
                                 dp.PrivateQuantileRegressor, dp.PrivateLinearRegression,
                                 dp.PrivateRegressor])
def test_a_label_range_left_out_is_the_unit_range_and_says_so(est):
    """label_range=None fits on (-1, 1) and warns with a text no label changes; a given range
    does not warn."""
    X, y = _table(n=400)
    said = []
    for labels in (y, np.clip((y - 50) / 100, -1, 1)):  # labels far outside, and inside
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model = est(epsilon=1.0, random_state=0).fit(X, labels)
        said.append([str(w.message) for w in caught if "label_range was not given" in str(w.message)])
        assert model._label_bounds() == (-1.0, 1.0)
        assert np.all(np.abs(model.predict(X[:20])) <= 1.0)
    assert len(said[0]) >= 1 and said[0] == said[1]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est(epsilon=1.0, label_range=(-50, 150), random_state=0).fit(X, y)
    assert not any("label_range was not given" in str(w.message) for w in caught)


def test_a_loss_on_another_scale_is_refused():
    X, y = _table(n=300)
    raw = Loss.from_cvxpy(lambda z, y: cp.huber(z - y, 5.0), kind="regression",
                          label_range=(0.0, 100.0))
    with pytest.raises(ParameterError, match="label_range=\\(-1, 1\\)"):
        dp.PrivateLinearRegressor(loss=raw, label_range=(-50, 150)).fit(X, y)


def test_quantile_regression_orders_its_quantiles():
    X, y = _table(n=4000)
    low = dp.PrivateLinearRegressor(loss="pinball", quantile=0.1, epsilon=5.0,
                                    label_range=(-50, 150), random_state=0).fit(X, y)
    high = dp.PrivateLinearRegressor(loss="pinball", quantile=0.9, epsilon=5.0,
                                     label_range=(-50, 150), random_state=0).fit(X, y)
    share_below = [float(np.mean(y <= m.predict(X))) for m in (low, high)]
    assert share_below[0] < 0.4 < 0.6 < share_below[1], share_below


def test_labels_that_are_not_numbers_are_refused_by_name():
    """Text is refused in every container (an object array or a pandas Series of numeric
    strings was parsed, so one record's spelling decided the refusal); two columns by shape."""
    import pandas as pd

    X, _ = _table(n=12)
    text = np.array(["1"] * 11 + ["a"])
    for y in (text, np.array(["1"] * 12), np.array(["1"] * 12, dtype=object), pd.Series(["1"] * 12)):
        with pytest.raises(DataValidationError, match="y must hold numbers"):
            dp.PrivateLinearRegressor(label_range=(0, 1)).fit(X, y)
    with pytest.raises(DataValidationError, match=r"y must be 1-D.*shape \(12, 2\)"):
        dp.PrivateLinearRegressor(label_range=(0, 1)).fit(X, np.zeros((12, 2)))


def test_a_template_refuses_labels_outside_the_losss_range():
    X, y = _table(n=50)
    with pytest.raises(DataValidationError, match="label_range"):
        LinearERMTemplate(HuberRegression(0.5, (-1.0, 1.0)), 0.1, 1.0, X, y)


def test_certify_before_data_states_the_plan():
    reg = dp.PrivateLinearRegressor(epsilon=1.0, label_range=(0, 10))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cert = reg.certify(n=1000, n_classes=1, n_features=5)
    assert cert.epsilon <= 1.0 and cert.loss == "huber_regression"


def test_labels_none_masked_or_a_column_follow_scikit_learn():
    from sklearn.exceptions import DataConversionWarning

    X, y = _table(n=60)
    make = lambda: dp.PrivateLinearRegressor(label_range=(-50, 150), random_state=0)  # noqa: E731
    with pytest.raises(DataValidationError, match="requires y to be passed, but the target y is None"):
        make().fit(X, None)
    with pytest.raises(DataValidationError, match="masked array with masked entries"):
        make().fit(X, np.ma.masked_array(y, mask=np.arange(60) == 3))
    with pytest.warns(DataConversionWarning, match="column-vector y"):
        column = make().fit(X, y[:, None])
    np.testing.assert_array_equal(column.coef_, make().fit(X, y).coef_)


def test_labels_at_the_ends_of_an_inexact_range_map_inside_the_unit_range():
    # (2y - lo - hi)/(hi - lo) at y = hi = log(18823) rounds to 1 + 2**-52 in floating point
    lo, hi = math.log(326.0), math.log(18823.0)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2)) / 3
    y = np.r_[np.full(20, hi), np.full(20, lo)]
    reg = dp.PrivateLinearRegressor(epsilon=1.0, label_range=(lo, hi), random_state=0).fit(X, y)
    assert np.all((reg.predict(X) >= lo) & (reg.predict(X) <= hi))


@pytest.mark.parametrize("mechanism", ["objective", "output"])
def test_an_unbounded_slope_is_refused_by_name_without_numpy_warnings(mechanism):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3)) / 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no divide-by-zero on the way
        with pytest.raises(dp.PrivacyError, match="unbounded slope"):
            dp.PrivateLinearRegressor(loss="squared", mechanism=mechanism,
                                      label_range=(-3.0, 3.0)).fit(X, X[:, 0])


# ------------------------------------------------------------- the labels' private centre
def test_exact_privacy_loss_of_the_centre_then_the_model_is_at_most_epsilon():
    # label_center="auto": c = mean of the unit labels + Laplace(2/(n eps_c)) on the grid of c,
    # then objective perturbation on the labels mapped around c (a per-record map given c). The
    # joint density of (c, θ) factors, so the privacy loss at (c, θ) is the mean's log-ratio
    # at c plus the model's at θ given c; its worst over the grids must be <= eps_c + eps_m.
    eps_c, eps_m, lo, hi = 0.1, 0.9, 0.0, 10.0
    X = np.array([[0.3], [-0.7], [1.0]])
    y = np.array([1.0, 2.5, 9.5])
    loss = HuberRegression(0.25, (-1.0, 1.0))
    theta = np.concatenate([np.linspace(-40, 40, 401), [-1e4, 1e4]])
    centres = np.linspace(-1.0, 1.0, 9)

    def unit(labels, c):  # the estimator's map around the centre c (unit scale)
        return np.clip((2 * np.clip(labels, lo, hi) - 2 * (lo + hi) / 2 - (hi - lo) * c) / (hi - lo), -1, 1)

    worst = -np.inf
    for x_new, y_new in [(-1.0, lo), (1.0, hi), (0.0, hi), (1.0, lo)]:
        X2, y2 = X.copy(), y.copy()
        X2[-1, 0], y2[-1] = x_new, y_new
        n = y.size
        mean_a, mean_b = unit(y, 0.0).mean(), unit(y2, 0.0).mean()
        for c in centres:
            log_c = -(eps_c * n / 2) * (np.abs(c - mean_a) - np.abs(c - mean_b))
            a = LinearERMTemplate(loss, 0.05, 1.0, X, unit(y, c))
            b = LinearERMTemplate(loss, 0.05, 1.0, X2, unit(y2, c))
            cal = get_mechanism("objective").calibrate(a, dp.Budget(eps_m))
            ratio = (_released_log_density(a, cal, theta, X, unit(y, c))
                     - _released_log_density(b, cal, theta, X2, unit(y2, c)))
            worst = max(worst, float(np.max(np.abs(log_c + ratio))))
    assert worst <= (eps_c + eps_m) * (1 + 1e-9), worst
    assert worst > 0.3 * (eps_c + eps_m), worst  # the neighbours are far apart: the check can fail


def _far_from_the_middle(n=120, d=8, seed=0):
    """Labels of mean 20 on a public range [0, 100] (middle 50), little signal: noise dominates."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) / (2 * np.sqrt(d))
    return X, 20 + 10 * X[:, 0] + 3 * rng.normal(size=n)


def test_where_the_noise_dominates_the_fit_releases_the_labels_mean_first_and_composes():
    X, y = _far_from_the_middle()
    reg = dp.PrivateLinearRegressor(epsilon=1.0, label_range=(0, 100), random_state=0)
    plan = reg.plan(120, n_features=8)
    assert plan.parts == {"label center": dp.Budget(0.1), "model": dp.Budget(0.9)}
    reg.fit(X, y)
    cert = reg.certificate_
    assert cert.epsilon == pytest.approx(1.0) and cert.quantities["label center share"] == 0.1
    assert {c.name: c.holds for c in cert.conditions} == {"epsilon accounting": True}
    mean_part, model_part = cert.parts  # sequential: the label center, then the model
    assert mean_part.epsilon + model_part.epsilon == pytest.approx(cert.epsilon, rel=1e-12)
    assert mean_part.mechanism.startswith("Laplace mechanism on the mean of the labels")
    assert mean_part.epsilon == pytest.approx(0.1) and mean_part.quantities["mean sensitivity"] == 2 / 120
    assert model_part.epsilon == pytest.approx(0.9) and model_part.lam_rule.reference_norm == 0.5
    assert cert.label_source.label_range == (0, 100)
    dry = dp.PrivateLinearRegressor(epsilon=1.0, label_range=(0, 100)).certify(n=120, n_features=8)
    assert [p.epsilon for p in dry.parts] == pytest.approx([0.1, 0.9])
    on_data = dp.PrivateLinearRegressor(epsilon=1.0, label_range=(0, 100)).certify(X, y)
    assert [p.epsilon for p in on_data.parts] == pytest.approx([0.1, 0.9])


def test_a_large_penalty_shrinks_to_the_released_mean_not_to_the_middle_of_the_range():
    # Λ = 1e4: the model is its intercept; centred at the released mean (r = 800/9 < 100;
    # Laplace scale 2/(n eps_c) = 0.025 on the unit scale, 1.25 in the labels' units: off by
    # more than 10 with probability e^-8) it predicts near 20; at the middle of the range, 50.
    X, y = _far_from_the_middle(n=800)
    preds = {}
    for center in ("auto", "range"):
        reg = dp.PrivateLinearRegressor(epsilon=1.0, lam=1e4, label_range=(0, 100), label_center=center,
                                        random_state=1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", dp.PrivacyWarning)
            preds[center] = float(np.mean(reg.fit(X, y).predict(X)))
    assert abs(preds["auto"] - 20) < 10 and abs(preds["range"] - 50) < 1, preds


def test_a_given_centre_maps_the_labels_around_it_and_is_checked_against_the_range():
    X, y = _far_from_the_middle()
    reg = dp.PrivateLinearRegressor(epsilon=1.0, label_range=(0, 100), label_center=20.0)
    np.testing.assert_allclose(reg._unit_labels(np.array([0.0, 20.0, 70.0, 150.0]), 4, "t"),
                               [-0.4, 0.0, 1.0, 1.0])
    assert reg.plan(120, n_features=8).parts == {}  # a public centre: no release, the model's budget
    fitted = reg.set_params(random_state=0).fit(X, y)
    assert fitted.certificate_.lam_rule.reference_norm == 0.5
    for bad in (101.0, -1.0, "mean", float("nan")):
        with pytest.raises(ParameterError, match="label_center"):
            dp.PrivateLinearRegressor(label_range=(0, 100), label_center=bad).fit(X, y)


def test_no_centre_is_released_with_many_records_per_coordinate_or_rows_left_out():
    from dpconvex._validation import NoiseSource
    from dpconvex.estimators.base import NO_CONTEXT, fit_with

    X, y = _table(n=3000)  # r = 3000/5 = 600 >= 100
    auto = dp.PrivateLinearRegressor(epsilon=1.0, label_range=(0, 100), random_state=3).fit(X, y)
    middle = dp.PrivateLinearRegressor(epsilon=1.0, label_range=(0, 100), label_center="range",
                                       random_state=3).fit(X, y)
    assert auto.certificate_.parts == [] and np.array_equal(auto.coef_, middle.coef_)
    X, y = _far_from_the_middle()
    left_out = np.arange(120) >= 100
    held = fit_with(dp.PrivateLinearRegressor(epsilon=1.0, label_range=(0, 100)), X, y,
                    NO_CONTEXT.inner(NoiseSource(np.random.default_rng(0), seeded=True), excluding=left_out))
    assert held.certificate_.parts == []  # the mean would read the rows left out


def test_prepare_refuses_the_plan_of_a_centre_released_in_fit():
    X, y = _far_from_the_middle()
    reg = dp.PrivateLinearRegressor(epsilon=1.0, label_range=(0, 100))
    with pytest.raises(ParameterError, match="label_center='auto' releases the labels' mean"):
        reg.prepare(X, y, reg.plan(120, n_features=8))


def test_the_front_doors_learner_keeps_the_middle_of_the_range():
    # PrivateRegressor's safeguard releases the mean itself and guards its learner
    learner = dp.PrivateRegressor(label_range=(0, 100))._make("objective", 0.5)
    assert learner.label_center == "range"


def test_a_sweep_fits_each_centred_model_with_its_centre():
    from dpconvex.estimators.sweep import epsilon_sweep

    X, y = _far_from_the_middle()
    sweep = epsilon_sweep(dp.PrivateLinearRegressor(label_range=(0, 100)), X, y, [0.5, 1.0], runs=1,
                          random_state=0)
    for fits, eps in zip(sweep.estimators, (0.5, 1.0), strict=True):
        assert [p.epsilon for p in fits[0].certificate_.parts] == pytest.approx([0.1 * eps, 0.9 * eps])


@pytest.mark.parametrize("label_range, label", [((-0.7, 0.9), 0.9), ((0.1, 0.7), 0.1)])
def test_a_centre_released_at_an_end_of_the_range_stays_inside_it(label_range, label):
    # every label at one end: the released mean is clipped to ±1 in most draws, and
    # (lo + hi)/2 ± (hi − lo)/2 leaves these ranges by an ulp in floating point
    X = np.random.default_rng(0).normal(size=(10, 2)) / 4
    for seed in range(10):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", dp.PrivacyWarning)
            reg = dp.PrivateLinearRegressor(label_range=label_range, random_state=seed)
            reg.fit(X, np.full(10, label))
        assert len(reg.certificate_.parts) == 2


@pytest.mark.parametrize("label_range", [(-1e-100, 1e-100), (0.0, 1e-100)])
def test_a_centre_of_a_label_range_near_zero_is_fitted_as_certified(label_range):
    """A label range allowed by its rule (hi - lo >= 1e-100) whose middle, or released centre, is a
    label below 1e-100 in magnitude: the fit releases what certify states (the centre is a label,
    not a calibration constant), and a given centre that small is taken."""
    X = np.random.default_rng(0).normal(size=(200, 2)) / 3
    lo, hi = label_range
    y = np.linspace(lo, hi, 200)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)
        for seed in range(3):
            reg = dp.PrivateLinearRegressor(label_range=label_range, random_state=seed).fit(X, y)
            assert str(reg.certify(X, y)).splitlines()[:2] == str(reg.certificate_).splitlines()[:2]
            assert len(reg.certificate_.parts) == 2 and lo <= reg.intercept_ <= hi
        given = dp.PrivateLinearRegressor(label_range=label_range, label_center=0.25 * hi + 0.75 * lo,
                                          random_state=0).fit(X, y)
        assert np.all((lo <= given.predict(X)) & (given.predict(X) <= hi))


def test_a_numeric_centre_with_a_private_label_range_is_refused_before_any_label_is_read():
    X, _ = _far_from_the_middle()
    labels = np.full(120, np.nan)  # a label read would be refused as not finite
    with pytest.raises(ParameterError, match="'label_center' parameter .* label_range='private'"):
        dp.PrivateLinearRegressor(label_range="private", label_center=0.5).fit(X, labels)


def test_the_rows_are_checked_before_the_centre_reads_a_label():
    X, y = _far_from_the_middle()
    with pytest.raises(DataValidationError, match="Complex data not supported in X"):
        dp.PrivateLinearRegressor(label_range=(0, 100)).fit(X.astype(complex), y.astype(complex))


def test_the_centre_reads_labels_clipped_to_the_range():
    # a label far outside the range counts as the range's end: the same draws give the same model
    X, y = _far_from_the_middle()
    far, end = y.copy(), y.copy()
    far[0], end[0] = 1e9, 100.0
    fits = [dp.PrivateLinearRegressor(label_range=(0, 100), random_state=5).fit(X, labels)
            for labels in (far, end)]
    assert fits[0].intercept_ == fits[1].intercept_ and np.array_equal(fits[0].coef_, fits[1].coef_)


def test_the_centre_is_released_below_a_hundred_records_per_coordinate_only():
    from dpconvex.privacy.rules.noise_level import label_center_share

    assert label_center_share(500, 5, 1.0) == 0.0 and label_center_share(499, 5, 1.0) == 0.1
    with_range = dp.PrivateLinearRegressor(label_range="private").plan(2000, n_features=30)
    assert sum(b.epsilon for b in with_range.parts.values()) == pytest.approx(1.0)


@pytest.mark.parametrize("est", [dp.PrivateLinearRegressor, dp.PrivateHuberRegressor,
                                 dp.PrivateQuantileRegressor])
@pytest.mark.parametrize("shape", [{"n": "a", "n_features": 3}, {"n": float("nan"), "n_features": 3},
                                   {"n": 500, "n_features": math.inf}, {"n": [500], "n_features": 3}])
def test_certify_refuses_a_shape_that_is_not_ints_by_name(est, shape):
    with pytest.raises(ParameterError, match=r"argument of Private\w+\.certify must be an int"):
        est(label_range=(0, 100)).certify(**shape)


def test_a_constraint_set_is_stated_on_the_scale_the_loss_reads():
    """The certificate's set is on θ, the unit label scale: the caller's set divided by half the
    width of the label_range the same certificate states."""
    X, y = _table(n=200)
    est = dp.PrivateHuberRegressor(label_range=(0, 100), constraints=lambda w: [cp.norm(w, 1) <= 0.5],
                                   random_state=0).fit(X, 50 + 20 * X[:, 0])
    def certificates(cert):
        return [cert, *(c for part in cert.parts for c in certificates(part))]

    (solved,) = [c for c in certificates(est.certificate_) if c.line(ParameterSet) is not None]
    assert [c.name for c in solved.conditions].count("parameter set") == 1
    half_width = (solved.label_source.label_range[1] - solved.label_source.label_range[0]) / 2
    assert solved.line(ParameterSet).statement == L1Ball(0.5 / half_width, range(4)).describe()
    assert np.abs(est.coef_).sum() <= 0.5 * (1 + 1e-6)


@pytest.mark.parametrize("params", [{"data_norm": 1e60}, {"intercept_scaling": 1e60}])
def test_a_norm_bound_whose_rule_lam_leaves_float64_is_refused_naming_the_rows_scale(params):
    """The rule's Λ grows with the norm bound's square; past the regularizer's 1e100 the refusal
    names data_norm and intercept_scaling, not an internal regularizer's lam."""
    X, y = _table(n=300)
    est = dp.PrivateLinearRegressor(label_range=(-50, 150), **params)
    for call in (lambda: est.fit(X, y), lambda: est.certify(n=300, n_features=X.shape[1])):
        with pytest.raises(dp.ParameterError, match=r"PrivateLinearRegressor.fit: lam='auto' gives .*"
                           r"data_norm.*intercept_scaling"):
            call()


#: Every regressor with a plan; a private label range and a centre released first included.
REGRESSORS = {
    "linear": lambda: dp.PrivateLinearRegressor(label_range=(-1, 1)),
    "private label range": lambda: dp.PrivateLinearRegressor(label_range="private"),
    "label_center='auto'": lambda: dp.PrivateLinearRegressor(label_range=(-2, 2),
                                                             label_center="auto"),
    "Huber": lambda: dp.PrivateHuberRegressor(label_range=(-1, 1)),
    "SSP": lambda: dp.PrivateLinearRegression(label_range=(-1, 1)),
    "front door": lambda: dp.PrivateRegressor(label_range=(-1, 1)),
}


@pytest.mark.parametrize("kind", list(REGRESSORS), ids=list(REGRESSORS))
def test_a_regressor_refuses_an_n_classes_other_than_none_or_one(kind):
    """A regressor has no label set: n_classes=2 is refused by plan and certify, in their
    names, as is True (not an int); None and 1 plan the same single output."""
    est = REGRESSORS[kind]()
    for n_classes in (2, 0, True, 1.0):
        with pytest.raises(ParameterError, match=rf"'n_classes' argument of "
                           rf"{type(est).__name__}\.plan must be None or 1: a regressor has no "
                           r"label set"):
            est.plan(1000, n_classes, 3)
        with pytest.raises(ParameterError, match=rf"'n_classes' argument of "
                           rf"{type(est).__name__}\.certify must be None or 1"):
            est.certify(n=1000, n_classes=n_classes, n_features=3)
    assert est.plan(1000, 1, 3) == est.plan(1000, None, 3)
    assert est.plan(1000, np.int64(1), 3).n_classes == 1
    assert (est.certify(n=1000, n_classes=1, n_features=3).epsilon
            == est.certify(n=1000, n_features=3).epsilon)


@pytest.mark.parametrize("make", [
    lambda: dp.PrivateLinearRegressor(label_range=(0, 1)),
    lambda: dp.PrivateHuberRegressor(label_range=(0, 1)),
], ids=["linear", "Huber"])
def test_certify_of_a_released_centre_refuses_an_n_classes_other_than_none_or_one(make):
    """Where label_center='auto' releases the labels' centre (n = 100, the noise dominates),
    certify checks n_classes as plan does: None or 1, anything else refused by name."""
    est = make()
    certificate = est.certify(n=100, n_features=3)
    # the centre's path is the one checked: its first part releases the labels' mean
    assert "mean of the labels" in certificate.parts[0].mechanism
    for n_classes in (-2, 0, 2.0, 5, 7, 10**9, np.True_):
        with pytest.raises(ParameterError, match=rf"'n_classes' argument of "
                           rf"{type(est).__name__}\.certify must be None or 1"):
            est.certify(n=100, n_classes=n_classes, n_features=3)
    assert ([part.mechanism for part in est.certify(n=100, n_classes=1, n_features=3).parts]
            == [part.mechanism for part in certificate.parts])
