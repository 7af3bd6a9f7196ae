"""Kinks of a stated loss smoothed by the loss compiler (dpconvex.objectives.atoms.smooth_kinks).

Each smoothed kink must keep the stated loss's slope bound, have the curvature its slope jump
/ (2h) derived from its atoms, stay within the stated gap of the stated loss, and be the
Huber hinge of CMS eq. 35 for the hinge, whose privacy loss tests/privacy/test_slack_exact.py
computes exactly and whose release the audits test. Deterministic: grids, no randomness.
"""

from __future__ import annotations

import pickle
import warnings

import cvxpy as cp
import numpy as np
import pytest

import dpconvex as dp
from dpconvex.errors import ParameterError, PrivacyError
from dpconvex.objectives import HuberHinge, Loss, Pinball
from dpconvex.objectives.atoms import smooth_kinks
from dpconvex.privacy.certificate import LossSmoothing, MechanismChoice, SmoothingRule
from dpconvex.privacy.rules.noise_level import (
    MARGIN_SMOOTHING_MIN,
    REGRESSION_SMOOTHING_MAX,
    resolve_smoothing,
)

LABELS = (0.0, 10.0)
#: The losses of the issue, stated in one line each: (name, fn, kind, slope of the stated loss).
STATED = [
    ("hinge", lambda m: cp.pos(1 - m), "margin", 1.0),
    ("absolute", lambda z, y: cp.abs(z - y), "regression", 1.0),
    ("pinball", lambda z, y: cp.maximum(0.8 * (y - z), -0.2 * (y - z)), "regression", 0.8),
    ("eps_insensitive", lambda z, y: cp.pos(cp.abs(z - y) - 0.1), "regression", 1.0),
]
#: Predictions (and labels) the numeric checks read: around every kink and far out.
Z = np.concatenate([np.linspace(-20, 30, 50001), [-1e6, 1e6]])


def _loss(fn, kind, smoothing):
    return Loss.from_cvxpy(fn, kind=kind, label_range=LABELS if kind == "regression" else None,
                           smoothing=smoothing)


@pytest.mark.parametrize("name,fn,kind,slope", STATED, ids=[s[0] for s in STATED])
@pytest.mark.parametrize("h", [0.05, 0.5, 2.0])
def test_smoothed_loss_keeps_the_slope_and_stays_within_its_gap(name, fn, kind, slope, h):
    stated, smoothed = _loss(fn, kind, None), _loss(fn, kind, h)
    assert stated.has_kinks and stated.curvature == np.inf
    assert smoothed.deriv_bound == pytest.approx(slope, rel=1e-12)  # the kink's slope bound
    assert np.isfinite(smoothed.curvature)
    for y in ((None,) if kind == "margin" else (0.0, 3.0, 10.0)):
        args = () if y is None else (np.full(Z.shape, y),)
        v, d1, d2 = smoothed.value(Z, *args), smoothed.deriv(Z, *args), smoothed.deriv2(Z, *args)
        gap = np.max(np.abs(v - stated.value(Z, *args)))
        assert gap <= smoothed.smoothed_kinks.gap * (1 + 1e-9)   # the stated bound holds
        if smoothed.smoothed_kinks.kinks == 1:  # one kink: the bound is reached at the kink
            assert gap >= smoothed.smoothed_kinks.gap * (1 - 1e-3)
        assert np.max(np.abs(d1)) <= smoothed.deriv_bound * (1 + 1e-12)
        assert np.max(d2) <= smoothed.curvature * (1 + 1e-12) and np.min(d2) >= 0


def test_the_smoothed_hinge_is_the_huber_hinge_of_cms():
    """pos_h(1 − m) = CMS eq. 35 (HuberHinge), against its closed form: 0 for m > 1 + h,
    (1 + h − m)²/(4h) for |1 − m| <= h, 1 − m below; ℓ' and ℓ'' piece by piece."""
    for h in (0.1, 0.5, 1.0):
        smoothed, huber = _loss(lambda m: cp.pos(1 - m), "margin", h), HuberHinge(h=h)
        s = 1.0 - Z
        mid = np.abs(s) <= h
        value = np.where(s > h, s, np.where(s < -h, 0.0, (s + h) ** 2 / (4 * h)))
        deriv = -np.where(s > h, 1.0, np.where(s < -h, 0.0, (s + h) / (2 * h)))
        for loss in (smoothed, huber):
            assert (loss.deriv_bound, loss.curvature) == (1.0, 1.0 / (2 * h))
            np.testing.assert_allclose(loss.value(Z), value, rtol=1e-12, atol=1e-12)
            # the compiled form folds its constants (1 + h, the factor 1/(4h)): a few ulps apart
            np.testing.assert_allclose(loss.deriv(Z), deriv, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(loss.deriv2(Z), np.where(mid, 1.0 / (2 * h), 0.0), rtol=1e-12)
        assert smoothed.smoothed_kinks.gap == h / 4  # (1 + h − 1)²/(4h) at the kink


def test_pinball_is_the_huberized_quantile_loss():
    """Pinball(τ, h): ρ_τ(y − z) for |z − y| >= h, (1 − 2τ)r/2 + r²/(4h) + h/4 within."""
    y = np.linspace(-1.0, 1.0, Z.size)
    r = Z - y
    for tau, h in ((0.1, 0.05), (0.5, 0.1), (0.9, 0.3)):
        loss = Pinball(tau, smoothing=h)
        inside = np.abs(r) <= h
        value = np.where(inside, (1 - 2 * tau) * r / 2 + r * r / (4 * h) + h / 4,
                         np.maximum(tau * -r, (tau - 1) * -r))
        np.testing.assert_allclose(loss.value(Z, y), value, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(loss.deriv(Z, y), (1 - 2 * tau) / 2 + np.clip(r / h, -1, 1) / 2,
                                   rtol=1e-12, atol=1e-12)
        assert np.array_equal(loss.deriv2(Z, y), np.where(inside, 1 / (2 * h), 0.0))
        # the derivation rounds outward: a few ulps above the exact bounds, never below them
        exact = (max(tau, 1 - tau), 1 / (2 * h))
        assert (loss.deriv_bound, loss.curvature) == pytest.approx(exact, rel=1e-14)
        assert loss.deriv_bound >= exact[0] and loss.curvature >= exact[1]


def test_shipped_compiled_losses_pickle_as_their_parameters():
    for loss in (HuberHinge(0.3), Pinball(0.2, (0.0, 4.0), smoothing=0.5), Pinball(0.7)):
        again = pickle.loads(pickle.dumps(loss))
        assert type(again) is type(loss) and again.params() == loss.params()
        args = () if loss.kind == "margin" else (np.full(Z.size, 0.5),)
        assert np.array_equal(again.value(Z, *args), loss.value(Z, *args))
    assert Pinball(0.7).smoothing_unresolved is False
    assert Pinball(0.7, smoothing="auto").smoothing_unresolved


def test_curvature_is_the_slope_jump_over_2h():
    for fn, kind, jump in [(lambda m: cp.pos(1 - m), "margin", 1.0),
                           (lambda z, y: cp.abs(z - y), "regression", 2.0),
                           (lambda z, y: cp.maximum(0.8 * (y - z), -0.2 * (y - z)), "regression",
                            1.0)]:
        for h in (0.25, 1.0):
            assert _loss(fn, kind, h).curvature == pytest.approx(jump / (2 * h), rel=1e-12)


def test_smoothed_forms_are_dcp_convex_and_agree():
    for name, fn, kind, _ in STATED:
        loss = _loss(fn, kind, 0.5)
        z = cp.Variable(3)
        expr = loss.cvxpy_expr(z, np.array([0.0, 2.0, 5.0])) if kind == "regression" \
            else loss.cvxpy_expr(z)
        assert expr.is_convex(), name
        point = np.array([-1.0, 0.95, 7.0])
        z.value = point
        args = () if kind == "margin" else (np.array([0.0, 2.0, 5.0]),)
        np.testing.assert_allclose(np.asarray(expr.value), loss.value(point, *args), rtol=1e-12)


def test_a_kink_without_an_affine_piece_is_refused_by_name():
    m = cp.Variable()
    with pytest.raises(ParameterError, match="no affine piece"):
        smooth_kinks(cp.maximum(cp.pos(m), cp.pos(-2 * m - 1)), 0.5)


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), True, "wide", [0.5]])
def test_a_bad_smoothing_is_refused_by_name(bad):
    with pytest.raises(ParameterError, match="'smoothing' parameter of Loss.from_cvxpy"):
        Loss.from_cvxpy(lambda m: cp.pos(1 - m), smoothing=bad)


@pytest.mark.parametrize("make", [lambda w: HuberHinge(w), lambda w: dp.objectives.SmoothHinge(w),
                                  lambda w: dp.objectives.HuberRegression(w)])
def test_a_shipped_loss_takes_the_half_widths_of_a_smoothing(make):
    """h (M) within SMOOTHING_LIMITS: at 1e-12 the loss is a kink to float64, and one record
    could switch whether a solve meets its residual; at 1e8 its values fail their slopes."""
    for width in (1e-12, 1e8):
        with pytest.raises(ParameterError, match=r"\[1e-06, 1e\+06\]"):
            make(width)
    assert make(1e-6).curvature > 0 and make(1e6).curvature > 0


def test_a_smooth_loss_is_not_changed():
    h = 0.5
    cms = Loss.from_cvxpy(lambda m: cp.huber(cp.pos(1 + h - m), 2 * h) / (4 * h), smoothing=0.1)
    assert not cms.has_kinks and cms.smoothed_kinks is None and cms.curvature == 1.0


def test_the_rule_reads_public_quantities_and_narrows_with_more_data():
    hinge = _loss(lambda m: cp.pos(1 - m), "margin", "auto")
    budget = dp.Budget(1.0)
    widths = [resolve_smoothing(hinge, "auto", "objective", n, budget, 1.0, 10)[0].smoothed_kinks.h
              for n in (300, 3000, 30000)]
    assert widths == sorted(widths, reverse=True) and widths[0] > widths[-1]
    again = resolve_smoothing(hinge, "auto", "objective", 3000, budget, 1.0, 10)[0].smoothed_kinks.h
    assert again == widths[1]
    logistic = Loss.from_cvxpy(lambda m: cp.logistic(-m))
    assert resolve_smoothing(logistic, "auto", "objective", 300, budget, 1.0, 10) == (logistic, None)




def test_a_margin_loss_is_smoothed_at_least_at_the_huber_svm_width():
    # the bound alone prefers h = 0.0562 for the hinge at 200,000 rows, p = 21, epsilon = 1
    hinge = _loss(lambda m: cp.pos(1 - m), "margin", "auto")
    h = resolve_smoothing(hinge, "auto", "objective", 200000, dp.Budget(1.0), np.sqrt(2.0), 21)[0]
    assert h.smoothed_kinks.h == MARGIN_SMOOTHING_MIN == dp.PrivateHuberSVM().h
    assert h.curvature == pytest.approx(1.0 / (2.0 * MARGIN_SMOOTHING_MIN), rel=1e-12)

@pytest.mark.parametrize("n, p", [(300, 21), (6045, 3), (100000, 11)])
def test_a_regression_loss_is_smoothed_within_the_cap_of_its_label_range(n, p):
    # uncapped, the rule picks h = 0.356 on the unit scale at n = 6045, p = 3, epsilon = 1
    pinball = Loss.from_cvxpy(STATED[2][1], kind="regression", label_range=(-1.0, 1.0))
    budget = dp.Budget(1.0)
    h = resolve_smoothing(pinball, "auto", "objective", n, budget, np.sqrt(2.0), p)[0].smoothed_kinks.h
    assert 0.0 < h <= REGRESSION_SMOOTHING_MAX * 2.0


def test_the_smoothed_pinball_keeps_the_coverage_of_its_quantile_on_narrow_residuals():
    # residuals of sd 0.05 on a range of width 1 (0.1 on the unit scale): with h searched up to
    # 10 times the range the rule picks a wide h and the smoothed 0.8-quantile covers 0.986 of
    # the held-out labels (noise seeds 0-3); within the cap 0.821-0.825. The coverage of 3,000
    # held-out labels has sd 0.0073 about its expectation: 0.85 is 3.4 sd above 0.825, a
    # false-alarm rate below 1e-3 at these fixed seeds
    rng = np.random.default_rng(7)
    X = rng.normal(size=(9000, 3)) / 4
    y = 0.5 + 0.2 * X[:, 0] + 0.05 * rng.normal(size=9000)
    reg = dp.PrivateLinearRegressor(loss=STATED[2][1], label_range=(0.0, 1.0), epsilon=1.0,
                                    random_state=0).fit(X[:6000], y[:6000])
    assert 0.75 <= float(np.mean(y[6000:] <= reg.predict(X[6000:]))) <= 0.85

def _table(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    return X, (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)


def test_the_hinge_in_one_line_fits_by_objective_perturbation():
    X, y = _table()
    hinge = Loss.from_cvxpy(lambda m: cp.pos(1 - m), name="hinge")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)
        model = dp.PrivateLinearClassifier(loss=hinge, epsilon=1.0, random_state=0,
                                           classes=[0, 1]).fit(X, y)
    cert = model.certificate_
    assert cert.epsilon <= 1.0 and cert.all_hold and cert.mechanism_name == "objective"
    h = model.certify(n=400, n_classes=2, n_features=5)
    assert (cert.line(LossSmoothing).loss, cert.line(LossSmoothing).kinks) == ("hinge", 1)
    rule = h.line(SmoothingRule)  # smoothing="auto": the half-width h by the public rule
    assert rule is not None and rule.h > 0 and rule.candidates > 1
    # the model is the rule's smoothed hinge, well above the majority class on its rows
    assert model.score(X, y) > max(y.mean(), 1 - y.mean()) + 0.1


@pytest.mark.parametrize("mechanism", ["objective", "output"])
def test_a_linear_estimator_refuses_an_unsmoothed_kink_with_the_way_out(mechanism):
    X, y = _table()
    hinge = Loss.from_cvxpy(lambda m: cp.pos(1 - m), smoothing=None)
    est = dp.PrivateLinearClassifier(loss=hinge, epsilon=1.0, mechanism=mechanism,
                                     random_state=0, classes=[0, 1])
    with pytest.raises(ParameterError, match=r"smoothing=None: no solver certifies.*for any "
                                             r"mechanism.*smoothing=\s?'auto'.*NoisyGradientDescent"):
        est.fit(X, y)
    template = dp.templates.LinearERMTemplate(hinge, 0.1, 1.0, X, np.where(y > 0, 1, -1))
    with pytest.raises(PrivacyError, match=r"smoothing=h"):
        dp.release(template, "objective", dp.Budget(1.0), rng=0)


def test_a_callable_loss_is_compiled_by_the_estimator():
    X, y = _table()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)
        stated = dp.PrivateLinearClassifier(loss=lambda m: cp.logistic(-m), epsilon=1.0,
                                            random_state=0, classes=[0, 1]).fit(X, y)
        shipped = dp.PrivateLogisticRegression(epsilon=1.0, random_state=0,
                                               classes=[0, 1]).fit(X, y)
    # the same loss, stated or shipped: the same Λ, the same noise (seed 0), and minimizers
    # each within residual/Λ <= 1e-8/Λ of the exact one (the native solver's stopping rule)
    lam = stated.certificate_.lam_rule.lam
    assert lam == shipped.certificate_.lam_rule.lam
    np.testing.assert_allclose(stated.coef_, shipped.coef_, rtol=0, atol=2 * 1e-8 / lam)


def test_a_callable_of_the_wrong_arity_is_refused_by_name():
    X, y = _table()
    with pytest.raises(ParameterError, match=r"fn\(m\) of the margin"):
        dp.PrivateLinearClassifier(loss=lambda z, y: cp.abs(z - y), epsilon=1.0).fit(X, y)


def test_the_logistic_loss_written_with_log_sum_exp_is_the_logistic_loss():
    """log(1 + exp(−m)) as cp.log_sum_exp(cp.hstack([0, -m])): one prediction per stack."""
    X, y = _table()
    stated = Loss.from_cvxpy(lambda m: cp.log_sum_exp(cp.hstack([0, -m])), name="lse")
    assert (stated.deriv_bound, stated.curvature) == (1.0, 0.25)   # Var of a Bernoulli <= 1/4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)
        fits = [dp.PrivateLinearClassifier(loss=loss, epsilon=1.0, random_state=0, classes=[0, 1],
                                           solver=solver).fit(X, y)
                for loss, solver in [(stated, None), (stated, "clarabel"), ("logistic", None)]]
    lam = fits[2].certificate_.lam_rule.lam
    # a release's residual is at most 1e-8 (native) or 1e-6 (the accuracy check of a CVXPY
    # backend), so each model is within residual/Λ of the same exact minimizer
    np.testing.assert_allclose(fits[0].coef_, fits[2].coef_, rtol=0, atol=2e-8 / lam)
    np.testing.assert_allclose(fits[1].coef_, fits[2].coef_, rtol=0, atol=2e-6 / lam)


def test_stated_losses_that_cannot_be_one_are_refused_by_name():
    p, other = cp.Parameter(value=2.0, name="p"), cp.Variable(name="w2")
    with pytest.raises(ParameterError, match="cp.Parameter p"):
        Loss.from_cvxpy(lambda m: cp.logistic(-p * m))
    with pytest.raises(ParameterError, match=r"variables other than its argument \(w2\)"):
        Loss.from_cvxpy(lambda m: cp.logistic(-m) + cp.square(other))
    assert Loss.from_cvxpy(lambda m: cp.logistic(-m) + 0 * cp.pos(m)).curvature == 0.25

    def raising(coef):
        raise KeyError("no such column")

    X, y = _table()
    with pytest.raises(ParameterError, match="the callable raised KeyError"):
        dp.PrivateLogisticRegression(epsilon=1.0, constraints=raising, classes=[0, 1]).fit(X, y)


def test_auto_with_delta_and_constraints_chooses_objective_perturbation():
    X, y = _table()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)
        model = dp.PrivateLogisticRegression(epsilon=1.0, delta=1e-5, random_state=0,
                                             constraints=lambda w: cp.norm(w, 2) <= 1,
                                             classes=[0, 1]).fit(X, y)
    cert = model.certificate_
    assert cert.mechanism.startswith("objective perturbation") and cert.delta == 0.0
    assert np.linalg.norm(model.coef_) <= 1 + 1e-9
    choice = cert.line(MechanismChoice)
    assert (choice.mechanism, choice.because, choice.instead) == (
        "objective", "constraints", "gaussian_objective")


def test_a_cvxpy_solve_is_announced_with_its_cost_before_it_starts():
    X, y = _table()
    kw = dict(epsilon=1.0, random_state=0, classes=[0, 1])
    cases = [(None, lambda c: cp.norm(c, "inf") + cp.norm(c, 1) <= 2, None),  # projected Newton
             ("clarabel", lambda c: cp.norm(c, 1) <= 1, "solves this problem too"),
             (None, lambda c: cp.norm(c, 1) <= 1, None)]
    for solver, constraints, said in cases:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model = dp.PrivateLogisticRegression(solver=solver, constraints=constraints,
                                                 **kw).fit(X, y)
        costs = [str(w.message) for w in caught if w.category is dp.SolverCostWarning]
        assert model.certificate_.all_hold
        if said is None:
            assert costs == [] and model.certificate_.solver["backend"] == "native"
        else:
            assert len(costs) == 1 and said in costs[0] and "n = 400 rows x p = 6" in costs[0]


def test_a_kinked_regression_loss_is_one_line_on_the_estimators_label_range():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(3000, 3)) / 2
    y = 50 + 20 * X[:, 0] - 20 * X[:, 1] + rng.normal(size=3000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)
        reg = dp.PrivateLinearRegressor(loss=lambda z, y: cp.abs(z - y), epsilon=2.0,
                                        label_range=(0, 100), random_state=0).fit(X, y)
    assert reg.certificate_.all_hold and reg.certificate_.epsilon <= 2.0
    assert reg.certificate_.line(LossSmoothing).kinks == 1
    # far better than the constant median on its rows (R² of the median is about 0)
    assert reg.score(X, y) > 0.5
    stated = Loss.from_cvxpy(lambda z, y: cp.abs(z - y), kind="regression", label_range=(0, 100))
    # a range on the loss in the labels' units is not the unit scale the loss is evaluated on:
    # refused, naming the loss stated without one (the range then stated on the estimator only)
    with pytest.raises(ParameterError, match=r"State the loss without label_range .*or pass the "
                                             "function itself"):
        dp.PrivateLinearRegressor(loss=stated, label_range=(0, 100)).fit(X, y)


@pytest.mark.parametrize("h", [1e-7, 1e7, 1e9])
def test_a_half_width_float64_cannot_check_is_refused_where_it_is_given(h):
    with pytest.raises(ParameterError, match=r"'smoothing' parameter of Loss.from_cvxpy .*1e-06, 1e\+06"):
        Loss.from_cvxpy(lambda m: cp.pos(1 - m), smoothing=h)
    for edge in (1e-6, 1e6):  # the limits themselves are accepted
        assert Loss.from_cvxpy(lambda m: cp.pos(1 - m), smoothing=edge).smoothed_kinks.h == edge
