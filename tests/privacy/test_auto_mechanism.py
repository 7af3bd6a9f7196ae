"""mechanism="auto": one rule, by δ and the estimator's menu, stated in the certificate."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dpconvex as dp
from dpconvex.estimators.centroids import CENTROID_MENU
from dpconvex.estimators.large_margin.learners import LARGE_MARGIN_MENU
from dpconvex.estimators.linear import LINEAR_MENU
from dpconvex.estimators.ssp import SSP_MENU
from dpconvex.privacy.certificate import MechanismChoice
from dpconvex.privacy.mechanisms.base import resolve_mechanism
from dpconvex.privacy.rules.large_margin import centroids_preferred

MENUS = {"linear": LINEAR_MENU, "large margin": LARGE_MARGIN_MENU, "centroid": CENTROID_MENU,
         "ssp": SSP_MENU, "naive Bayes": dp.PrivateGaussianNB.mechanism_menu}


@pytest.mark.parametrize("family", sorted(MENUS))
@pytest.mark.parametrize("delta", [None, 0, 0.0, 1e-6, 0.5])
def test_the_rule_reads_only_delta(family, delta):
    got = resolve_mechanism("auto", delta, MENUS[family].auto)
    pure, approximate = MENUS[family].auto
    assert got.name == (approximate if delta else pure)
    assert (got.reason.mechanism, got.reason.because) == (
        got.name, "delta > 0" if delta else "delta = 0")


def test_a_named_mechanism_is_returned_as_given():
    assert resolve_mechanism("output", 1e-6, LINEAR_MENU.auto) == ("output", None)
    assert resolve_mechanism("auto", 1e-6, None) == ("auto", None)


def test_every_auto_mechanism_is_on_its_menu():
    for family, menu in MENUS.items():
        for name in menu.auto:
            assert name in menu.offered, (family, name)


def test_every_estimator_with_a_mechanism_parameter_has_a_menu():
    for name in dp.__all__:
        cls = getattr(dp, name)
        if isinstance(cls, type) and "mechanism" in getattr(cls, "_parameter_constraints", {}):
            if name in ("PrivateClassifier", "PrivateRegressor"):  # the front doors choose learners
                continue
            assert isinstance(getattr(cls, "mechanism_menu", None), dp.privacy.mechanisms.MechanismMenu), name


def _binary(n=200, seed=0, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return X, (X[:, 0] > 0).astype(int)


LINEAR_CLASSIFIERS = [dp.PrivateLogisticRegression, dp.PrivateHuberSVM, dp.PrivateLinearClassifier]


@pytest.mark.parametrize("cls", LINEAR_CLASSIFIERS)
def test_delta_selects_the_gaussian_form_where_its_bound_is_lower(cls):
    """Many rows and coordinates: δ > 0 buys the Gaussian objective perturbation."""
    X, y = _binary(4000, d=60)
    pure = cls(epsilon=1.0, classes=[0, 1], random_state=0).fit(X, y)
    approx = cls(epsilon=1.0, delta=1e-6, classes=[0, 1], random_state=0).fit(X, y)
    assert pure.certificate_.delta == 0 and approx.certificate_.delta == pytest.approx(1e-6)
    assert pure.certificate_.mechanism_name == "objective"
    assert approx.certificate_.mechanism_name == "gaussian_objective"
    chose = approx.certificate_.line(MechanismChoice)
    assert (chose.mechanism, chose.because) == ("gaussian_objective", "bound")
    assert chose.bound <= chose.other_bound and not chose.pure
    chose = pure.certificate_.line(MechanismChoice)
    assert (chose.mechanism, chose.because) == ("objective", "delta = 0")


@pytest.mark.parametrize("cls", LINEAR_CLASSIFIERS)
def test_delta_leaves_the_pure_form_where_its_bound_is_lower(cls):
    """Few coordinates: the pure form's norm-Gamma noise is the smaller; δ is not spent."""
    X, y = _binary()
    pure = cls(epsilon=1.0, classes=[0, 1], random_state=0).fit(X, y)
    kept = cls(epsilon=1.0, delta=1e-6, classes=[0, 1], random_state=0).fit(X, y)
    assert kept.certificate_.delta == 0 and kept.certificate_.mechanism_name == "objective"
    chose = kept.certificate_.line(MechanismChoice)  # "bound": delta > 0 was given
    assert (chose.mechanism, chose.because, chose.pure) == ("objective", "bound", True)
    assert chose.bound <= chose.other_bound
    np.testing.assert_allclose(kept.coef_, pure.coef_, rtol=1e-12, atol=1e-12)  # the same release


@pytest.mark.parametrize("n, d", [(200, 3), (2000, 10), (5000, 30), (40000, 100)])
@pytest.mark.parametrize("delta", [1e-3, 1e-8])
def test_the_choice_is_the_lower_of_the_two_rules_bounds(n, d, delta):
    from dpconvex.privacy.rules.noise_level import form_bounds

    est = dp.PrivateLogisticRegression(epsilon=1.0, delta=delta)
    plan = est.plan(n, 2, d)
    q, p = plan.options["norm bound q~"], d + 1
    bounds = {}
    for name in ("objective", "gaussian_objective"):
        other = dp.PrivateLogisticRegression(epsilon=1.0, delta=delta if name != "objective" else 0.0,
                                             mechanism=name).plan(n, 2, d)
        bounds[name] = form_bounds(other.lam, [(name, other.budget)], n, q, p,
                                   other.loss)[0]  # at the Λ the explicit mechanism's plan took
    assert plan.mechanism.name == min(bounds, key=bounds.get)
    assert plan.budget.delta == (delta if plan.mechanism.name == "gaussian_objective" else 0.0)


def test_delta_alone_works_on_every_estimator():
    """Every public estimator with a ``delta`` fits with only epsilon and delta set."""
    X, y = _binary(300)
    rng = np.random.default_rng(1)
    y3 = rng.integers(0, 3, size=300)
    for cls, labels in [(dp.PrivateLogisticRegression, y), (dp.PrivateHuberSVM, y),
                        (dp.PrivateLinearClassifier, y), (dp.PrivateLargeMarginGaussian, y3),
                        (dp.PrivateGaussianCentroid, y3), (dp.NoisyGradientDescent, y),
                        (dp.PrivateClassifier, y3), (dp.PrivateClassifier, y)]:
        classes = sorted(set(labels.tolist()))
        with warnings.catch_warnings():
            # the noise warnings (privacy-noise-warning-linear)
            warnings.simplefilter("ignore", dp.PrivacyWarning)
            est = cls(epsilon=1.0, delta=1e-5, classes=classes, random_state=0).fit(X, labels)
        # 300 rows x 3 features: the linear learners' pure form has the lower bound, and a
        # two-class front door then spends no delta (it buys its Huber SVM nothing)
        unused = cls in LINEAR_CLASSIFIERS or (cls is dp.PrivateClassifier and labels is y)
        assert est.certificate_.delta == (0.0 if unused else pytest.approx(1e-5)), cls.__name__
        assert est.certificate_.epsilon <= 1.0 + 1e-12



@pytest.mark.parametrize("delta", ["1e-6", True, [1e-6], float("nan"), 1.5])
def test_a_delta_that_is_not_a_probability_is_refused_by_name(delta):
    """Where a caller hands the rule a δ no estimator checked, or makes the Budget a budget
    hold takes."""
    with pytest.raises(dp.ParameterError, match="'delta' parameter of resolve_mechanism"):
        resolve_mechanism("auto", delta, LINEAR_MENU.auto)
    with pytest.raises(dp.ParameterError, match="'delta' parameter of Budget"):
        resolve_mechanism("auto", dp.Budget(1.0, delta), LINEAR_MENU.auto)
    with pytest.raises(dp.ParameterError, match="'delta' parameter of delta_rows_note"):
        dp.privacy.budget.delta_rows_note(delta, 100)
    with pytest.raises(dp.ParameterError, match="'delta' parameter of centroids_preferred"):
        centroids_preferred(1257, 10, 64, 1.0, delta)
