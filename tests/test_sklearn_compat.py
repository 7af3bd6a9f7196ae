"""scikit-learn's estimator checks on the private classifiers and the regressors.

The non-private baselines (mechanism="none") and the private classifiers at ε = 1 pass
all of them. The private regressors fail only the accuracy check, which asks for
R² > 0.5 on 200 standardized rows (label_range (-1, 1) clips about 30% of their labels):
the ε = 1 noise dominates there (expected, not a bug).
"""

import numpy as np
import pytest
from sklearn.base import ClassifierMixin, RegressorMixin, is_classifier, is_regressor
from sklearn.utils.estimator_checks import parametrize_with_checks

import dpconvex as dp
from dpconvex.estimators.base import PrivateEstimator

#: Every public private estimator.
PRIVATE_ESTIMATORS = [obj for name in dp.__all__ if isinstance(obj := getattr(dp, name), type)
                      and issubclass(obj, PrivateEstimator)]


@pytest.mark.parametrize("cls", PRIVATE_ESTIMATORS, ids=lambda cls: cls.__name__)
def test_classifier_mixin_only_on_classifiers(cls):
    est = cls(epsilon=1.0)
    regressor = issubclass(cls, RegressorMixin)
    assert issubclass(cls, ClassifierMixin) is not regressor, [c.__name__ for c in cls.__mro__]
    assert (is_classifier(est), is_regressor(est)) == (not regressor, regressor)
    assert est.__sklearn_tags__().estimator_type == ("regressor" if regressor else "classifier")
    assert (est.__sklearn_tags__().classifier_tags is None) is regressor

#: A released model holds its parameters and public facts only (DESIGN.md §4): the
#: solver's iteration count depends on the data, so there is no ``n_iter_``.
NO_N_ITER = {"check_non_transformer_estimators_n_iter":
             "n_iter_ depends on the data and is not released (DESIGN.md §4)"}


#: check_regressors_train asks for R² > 0.5 on its 200 rows (the non-private fit reaches 0.61).
#: At ε = 1 output perturbation, the quantile loss with δ > 0, sufficient-statistics
#: perturbation, the front door and the
#: Huber loss with a given label_range (on these rows it spends a tenth of ε on the labels'
#: centre and shrinks harder towards it) fall below it; objective perturbation of the Huber
#: loss without one (the unit range, the regression loss's λ rule) passes.
NOISY_REGRESSOR = {"check_regressors_train":
                   "ε = 1 noise dominates on 200 rows; sklearn asks for R² > 0.5"}


def _expected_failures(est):
    # Every classifier, the output-perturbed Huber SVM included, passes sklearn's 83% bar in
    # check_classifiers_train at its defaults (lam="auto"), so no xfail remains for them.
    if isinstance(est, dp.PrivateRegressor):  # n_iter_ is not a front door's attribute
        return dict(NOISY_REGRESSOR)
    if isinstance(est, dp.PrivateGaussianNB):  # a closed form without max_iter: no n_iter_ check
        return {}
    if isinstance(est, dp.PrivateLinearRegression):  # a closed form: no solver, no n_iter_
        return dict(NOISY_REGRESSOR) if est.mechanism != "none" else {}
    if isinstance(est, dp.PrivateLinearRegressor) and est.mechanism != "none":
        passes = (est.mechanism == "auto" and not est.delta and est.label_range is None
                  and not isinstance(est, dp.PrivateQuantileRegressor))
        return {**NO_N_ITER, **({} if passes else NOISY_REGRESSOR)}
    return dict(NO_N_ITER)


@pytest.mark.slow
@parametrize_with_checks(
    [
        dp.PrivateLogisticRegression(mechanism="none"),
        dp.PrivateHuberSVM(mechanism="none"),
        dp.PrivateHuberSVM(mechanism="none", loss="smooth_hinge"),
        dp.PrivateLogisticRegression(epsilon=1.0, random_state=0),
        dp.PrivateHuberSVM(epsilon=1.0, mechanism="output", random_state=0),
        dp.PrivateHuberSVM(epsilon=1.0, random_state=0, row_norm="unit"),
        dp.PrivateLinearRegressor(mechanism="none"),
        dp.PrivateLinearRegressor(mechanism="none", loss="pinball"),
        dp.PrivateLinearRegressor(epsilon=1.0, random_state=0),
        dp.PrivateLinearRegressor(epsilon=1.0, mechanism="output", random_state=0),
        # a given label_range: where n·ε/(d + 1) < 100 the fit releases the labels' centre first
        dp.PrivateLinearRegressor(epsilon=1.0, label_range=(-3.0, 3.0), random_state=0),
        dp.PrivateHuberRegressor(mechanism="none"),
        dp.PrivateHuberRegressor(epsilon=1.0, random_state=0),
        dp.PrivateQuantileRegressor(mechanism="none"),
        dp.PrivateQuantileRegressor(epsilon=1.0, delta=1e-6, random_state=0),
        dp.PrivateLinearRegression(mechanism="none"),
        dp.PrivateLinearRegression(epsilon=1.0, random_state=0),
        dp.PrivateLinearRegression(epsilon=1.0, delta=1e-6, random_state=0),
        dp.PrivateRegressor(epsilon=1.0, random_state=0),
        dp.PrivateGaussianNB(epsilon=1.0, random_state=0),
        dp.PrivateGaussianNB(epsilon=1.0, delta=1e-6, random_state=0),
    ],
    expected_failed_checks=_expected_failures,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)



@pytest.mark.parametrize("make", [
    lambda c: dp.PrivateLogisticRegression(epsilon=5.0, classes=c, random_state=0),
    lambda c: dp.PrivateClassifier(epsilon=5.0, classes=c, random_state=0),
    lambda c: dp.PrivateGaussianCentroid(epsilon=5.0, classes=c, random_state=0),
    lambda c: dp.PrivateGaussianNB(epsilon=5.0, classes=c, random_state=0),
    lambda c: dp.PrivateLargeMarginGaussian(epsilon=5.0, classes=c, random_state=0),
    lambda c: dp.NoisyGradientDescent(epsilon=5.0, delta=1e-5, steps=20, classes=c, random_state=0),
], ids=["logistic", "front door", "centroids", "naive Bayes", "large margin", "noisy GD"])
def test_classes_declared_in_any_order_are_sorted_for_the_scorers(make):
    """scikit-learn's scorers read classes_[-1] as the positive class of roc_auc and the column
    order of log loss from a sorted classes_: an unsorted classes_ would invert the AUC of a good
    model. Sorted, the two orders give the same classes_ and the same model."""
    pd = pytest.importorskip("pandas")
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, (300, 3))
    y = np.where(X[:, 0] > 0, "yes", "no")
    fitted = [make(order).fit(X, y) for order in (["yes", "no"], ["no", "yes"])]
    fitted.append(make(None).fit(X, pd.Categorical(y, categories=["yes", "no"])))
    for model in fitted:
        assert model.classes_.tolist() == ["no", "yes"]
        assert roc_auc_score(y == "yes", model.predict_proba(X)[:, 1]) > 0.9
    assert np.array_equal(fitted[0].predict_proba(X), fitted[1].predict_proba(X))
