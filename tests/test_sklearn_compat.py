"""scikit-learn's estimator checks on every public estimator and transformer.

Each passes every check but those dpconvex.estimators.sklearn_checks declares with their reason
(privacy: no data-dependent n_iter_; a public schema: the fixed columns of the encoder whose
schema names them, checked besides the encoder with one declaration for every column). The
private regressors carry the poor_score tag, so their accuracy check asks for no R² bar. Seeded,
every fit is deterministic, so none carries the non_deterministic tag and the checks that refit
and compare run on each.
"""

import numpy as np
import pytest
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    RegressorMixin,
    clone,
    is_classifier,
    is_regressor,
)
from sklearn.pipeline import make_pipeline
from sklearn.utils import get_tags
from sklearn.utils.estimator_checks import check_estimator, parametrize_with_checks

import dpconvex as dp
from dpconvex.estimators.base import PrivateEstimator
from dpconvex.estimators.sklearn_checks import (
    EXPECTED_FAILED_CHECKS,
    checked_estimators,
    checked_name,
    expected_failed_checks,
)

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


CHECKED = checked_estimators()


def test_every_public_estimator_is_checked():
    public = {name for name in dp.__all__ if isinstance(obj := getattr(dp, name), type)
              and issubclass(obj, BaseEstimator)}
    assert {type(est).__name__ for est in CHECKED.values()} == public
    assert public <= set(CHECKED)  # each class under its own name, the encoder twice
    assert all(checked_name(est) == name for name, est in CHECKED.items())
    assert set(EXPECTED_FAILED_CHECKS) <= set(CHECKED)


#: The most expected failures each checked instance may declare: 3; none for the encoder with
#: one declaration for every column (it takes each table's width, and passes every check); 11 for
#: the encoder whose schema names its columns: the checks that fit rows of another width, each a
#: refusal a named schema must make.
DECLARED_LIMIT = {"PublicEncoder": 0, "PublicEncoder (named columns)": 11}


#: The searches fit a candidate per grid point in each check (their checks take ~2.5 s of ~6).
SLOW_CHECKS = ("PrivateGridSearch", "PrivateRandomSearch")


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=pytest.mark.slow) if name in SLOW_CHECKS else name
    for name in sorted(CHECKED)])
def test_check_estimator_fails_only_the_declared_checks(name):
    """Every check passes or is skipped but the declared ones, and each declared one fails
    (a check that came to pass is a declaration to remove)."""
    estimator = CHECKED[name]
    declared = expected_failed_checks(estimator)
    assert len(declared) <= DECLARED_LIMIT.get(name, 3), declared
    assert all(reason.strip() for reason in declared.values())
    results = check_estimator(estimator, expected_failed_checks=declared, on_fail=None)
    failed = [(r["check_name"], repr(r["exception"])[:300]) for r in results
              if r["status"] == "failed"]
    assert failed == []
    outcome = {r["check_name"]: r["status"] for r in results if r["expected_to_fail"]}
    assert outcome == dict.fromkeys(declared, "xfail")
    ran = {r["check_name"]: r["status"] for r in results}
    refits = [check for check in REFIT_CHECKS if check in ran]
    # the pipeline check runs on every estimator; the two invariance checks where it has a
    # method they compare (predict, transform, ...)
    assert refits[0] == "check_pipeline_consistency" and len(refits) in (1, 3), refits
    assert {ran[check] for check in refits} == {"passed"}, ran


#: The checks scikit-learn runs only on an estimator without the non_deterministic tag.
REFIT_CHECKS = ("check_pipeline_consistency", "check_methods_sample_order_invariance",
                "check_methods_subset_invariance")


def test_no_estimator_carries_the_non_deterministic_tag():
    """scikit-learn's tag means "not deterministic given a fixed random_state"; seeded, every
    fit is (test_a_seeded_fit_is_deterministic), so the refit checks run on every estimator."""
    assert [name for name, est in CHECKED.items() if get_tags(est).non_deterministic] == []


def test_a_search_is_as_deterministic_as_the_estimator_it_tunes():
    class Unseeded(dp.PrivateLogisticRegression):
        def __sklearn_tags__(self):
            tags = super().__sklearn_tags__()
            tags.non_deterministic = True
            return tags

    for search in (dp.PrivateGridSearch, dp.PrivateRandomSearch):
        assert not get_tags(search(dp.PrivateLogisticRegression(), param_grid={"lam": [0.1]},
                                   epsilon=1.0)).non_deterministic
        assert get_tags(search(Unseeded(), param_grid={"lam": [0.1]},
                               epsilon=1.0)).non_deterministic


#: Besides the checked instances, the options whose fit draws more than the output noise: the
#: front doors' safeguards, private k-means components, random features before a learner.
SEEDED_VARIANTS = {
    "PrivateClassifier(safeguard=True)": dp.PrivateClassifier(safeguard=True),
    "PrivateRegressor(safeguard=True)": dp.PrivateRegressor(safeguard=True),
    "PrivateLargeMarginGaussian(dp_kmeans)": dp.PrivateLargeMarginGaussian(
        n_components=2, component_assignment="dp_kmeans"),
    "RandomFourierFeatures + PrivateLogisticRegression": make_pipeline(
        dp.RandomFourierFeatures(n_components=20), dp.PrivateLogisticRegression()),
}


def _seeded(est, seed):
    """A clone of ``est`` with every ``random_state`` of it (a pipeline's steps') at ``seed``."""
    est = clone(est)
    keys = [key for key in est.get_params(deep=True) if key.rsplit("__", 1)[-1] == "random_state"]
    return est.set_params(**dict.fromkeys(keys, seed))


@pytest.mark.filterwarnings("ignore::dpconvex.errors.PrivacyWarning")  # label_range not given
@pytest.mark.parametrize("name", [*sorted(CHECKED), *SEEDED_VARIANTS])
def test_a_seeded_fit_is_deterministic(name):
    """Two fits with one random_state release the same model. Same data, same seed, one process:
    the fits are expected to agree exactly; rtol 1e-9 only forgives a change of summation order
    (~1e-16 relative per sum), far below the noise (relative ~1e-2 at these n and epsilon). A fit
    that drew from the OS despite its seed fails (scikit-learn's refit checks assume this)."""
    est = CHECKED.get(name, SEEDED_VARIANTS.get(name))
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, (120, 3))
    y = (3 * X[:, 0] - X[:, 1] if is_regressor(est)
         else np.where(X[:, 0] + 0.2 * rng.normal(size=120) > 0, 1, 0))
    first, second = (_seeded(est, 3).fit(X, y) for _ in range(2))
    methods = [m for m in ("predict", "predict_proba", "decision_function", "transform")
               if hasattr(first, m)]
    assert methods
    for method in methods:
        np.testing.assert_allclose(getattr(second, method)(X), getattr(first, method)(X),
                                   rtol=1e-9, atol=1e-12, err_msg=method)


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
    expected_failed_checks=expected_failed_checks,
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
