"""A prediction call checks its rows once, under the name of the estimator and method the user called.

scikit-learn's convention: one "X does not have valid feature names" warning per call, naming the
estimator called; dpconvex's: every refusal starts with "<Estimator>.<method>:". Models that hold
probabilities also give their logarithm (``predict_log_proba``), as their scikit-learn
counterparts do. Deterministic checks on fixed seeds (no false-alarm rate to state).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.metrics import check_scoring
from sklearn.utils.validation import check_is_fitted

import dpconvex as dp
from dpconvex.estimators.front_door import ConstantClassifier, ConstantRegressor

RNG = np.random.default_rng(0)
X = 0.4 * RNG.normal(size=(300, 4))
Y3 = np.digitize(X[:, 0] - X[:, 1], [-0.2, 0.2])
FRAME = pd.DataFrame(X, columns=["a", "b", "c", "d"])
KW = dict(epsilon=5.0, random_state=0)
RANGES = [(-2.0, 2.0)] * 4

CLASSIFIERS = {
    "logistic": lambda: dp.PrivateLogisticRegression(classes=[0, 1, 2], **KW),
    "huber binary": lambda: dp.PrivateHuberSVM(classes=[0, 1], **KW),
    "noisy gd": lambda: dp.NoisyGradientDescent(classes=[0, 1, 2], delta=1e-5, **KW),
    "naive bayes": lambda: dp.PrivateGaussianNB(classes=[0, 1, 2], feature_range=RANGES, **KW),
    "centroids": lambda: dp.PrivateGaussianCentroid(classes=[0, 1, 2], **KW),
    "large margin": lambda: dp.PrivateLargeMarginGaussian(classes=[0, 1, 2], **KW),
    "front door": lambda: dp.PrivateClassifier(classes=[0, 1, 2], **KW),
    "search": lambda: dp.PrivateGridSearch(dp.PrivateGaussianNB(feature_range=RANGES),
                                           {"var_floor": [0.03, 0.1]}, epsilon=5.0, classes=[0, 1, 2],
                                           random_state=0),
}
REGRESSORS = {
    "linear regressor": lambda: dp.PrivateLinearRegressor(label_range=(-2, 2), **KW),
    "front door regressor": lambda: dp.PrivateRegressor(label_range=(-2, 2), **KW),
}


def _labels(name):
    return (Y3 > 0).astype(int) if name == "huber binary" else Y3


@pytest.fixture(scope="module")
def fitted():
    """Every model fitted on the frame (so it holds ``feature_names_in_``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        models = {name: make().fit(FRAME, _labels(name)) for name, make in CLASSIFIERS.items()}
        models.update({name: make().fit(FRAME, X[:, 0]) for name, make in REGRESSORS.items()})
    return models


def _methods(model):
    methods = ["predict", "predict_proba", "predict_log_proba", "decision_function", "class_scores"]
    return [m for m in methods if hasattr(model, m)]


@pytest.mark.parametrize("name", [*CLASSIFIERS, *REGRESSORS])
def test_an_array_passed_to_a_model_fitted_on_names_is_warned_about_once_by_its_name(fitted, name):
    model = fitted[name]
    y = X[:5, 0] if name in REGRESSORS else _labels(name)[:5]
    calls = [(m, (X[:5],)) for m in _methods(model)] + [("score", (X[:5], y))]
    for method, args in calls:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            getattr(model, method)(*args)
        texts = [str(w.message) for w in caught if "feature names" in str(w.message)]
        assert len(texts) == 1, (method, texts)
        assert f"but {type(model).__name__} was fitted" in texts[0], (method, texts)


@pytest.mark.parametrize("name", [*CLASSIFIERS, *REGRESSORS])
def test_a_refusal_of_bad_rows_names_the_estimator_and_method_called(fitted, name):
    model = fitted[name]
    bad = X[:2].copy()
    bad[0, 0] = np.nan
    y = X[:2, 0] if name in REGRESSORS else _labels(name)[:2]
    calls = [(m, (bad,)) for m in _methods(model)] + [("score", (bad, y))]
    for method, args in calls:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(dp.DPConvexError) as caught:
                getattr(model, method)(*args)
        assert str(caught.value).startswith(f"{type(model).__name__}.{method}:"), (method, str(caught.value))


def test_a_schema_front_door_signs_its_encoders_refusals_and_keeps_their_text():
    table = pd.DataFrame({"age": np.random.default_rng(1).uniform(18, 90, 300)})
    schema = dp.PublicSchema({"age": dp.Numeric(18, 100)})
    labels = (table["age"] > 50).astype(int)
    model = dp.PrivateClassifier(classes=[0, 1], schema=schema, **KW).fit(table, labels)
    for method in ("predict", "predict_proba", "predict_log_proba", "decision_function", "score"):
        args = (table.head(2).to_numpy(), labels[:2]) if method == "score" else (table.head(2).to_numpy(),)
        signed = rf"^PrivateClassifier\.{method} \(PublicEncoder\.transform\):"
        with pytest.raises(dp.DPConvexError, match=signed), pytest.warns(UserWarning, match="feature names"):
            getattr(model, method)(*args)
    on_rows = dp.PrivateClassifier(classes=[0, 1], schema=schema, **KW).fit(table.to_numpy(), labels)
    with pytest.raises(dp.DPConvexError, match=r"^PrivateClassifier\.predict \(PublicEncoder\.transform\): .*"
                                               "Rows a PublicEncoder made"):
        on_rows.predict(np.zeros((2, 2)))  # the encoder's advice names the encoder


def test_a_search_over_a_pipeline_on_the_table_checks_the_names_and_signs_its_steps_refusals():
    """The search checks X's names (a Pipeline's step need not: a FunctionTransformer reads any
    frame); an array warns by the search's name first (the Pipeline's step warns again)."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    pipe = make_pipeline(FunctionTransformer(np.asarray), dp.PrivateLogisticRegression())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search = dp.PrivateGridSearch(pipe, {"privatelogisticregression__lam": [0.01, 0.1]}, epsilon=5.0,
                                      classes=[0, 1, 2], random_state=0,
                                      vouch="preprocessing").fit(FRAME, Y3)
    for method in ("predict", "predict_proba", "predict_log_proba", "decision_function"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            getattr(search, method)(FRAME.head(5))
            getattr(search, method)(X[:5])
        named = [str(w.message) for w in caught if "feature names" in str(w.message)]
        assert named and "but PrivateGridSearch was fitted" in named[0], (method, named)
        with pytest.raises(dp.DataValidationError, match=rf"^PrivateGridSearch\.{method}: The feature names"):
            getattr(search, method)(FRAME[["b", "a", "c", "d"]].head(2))
        bad = FRAME.head(2).copy()
        bad.iloc[0, 0] = np.nan
        with pytest.raises(dp.DPConvexError, match=rf"^PrivateGridSearch\.{method}\b"):
            getattr(search, method)(bad)


@pytest.mark.parametrize("name", list(CLASSIFIERS))
def test_log_probabilities_are_those_of_predict_proba_with_predicts_argmax(fitted, name):
    model = fitted[name]
    rows = np.vstack([X[:50], 1e3 * X[:3]])  # far rows too
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        proba, log_proba = model.predict_proba(rows), model.predict_log_proba(rows)
        predicted = model.predict(rows)
    assert log_proba.shape == proba.shape
    # the two are computed in different orders: equal to a few ulps of 1 where the probability is not tiny
    assert np.allclose(np.exp(log_proba), proba, rtol=1e-9, atol=1e-12)
    assert np.array_equal(model.classes_[np.argmax(log_proba, axis=1)], predicted)
    assert np.array_equal(model.classes_[np.argmax(proba, axis=1)], predicted)
    if name in ("logistic", "huber binary", "noisy gd", "naive bayes", "centroids", "large margin"):
        assert np.isfinite(log_proba).all()  # computed in log space: no -inf where proba underflows


def test_a_released_constant_reads_its_parameters_and_passes_scikit_learns_validators():
    rows = np.zeros((3, 2))
    model = ConstantClassifier("b", ["a", "b", "c"], 2)
    assert model.predict(rows).tolist() == ["b"] * 3
    model.set_params(constant="c")
    assert model.predict(rows).tolist() == ["c"] * 3 == clone(model).predict(rows).tolist()
    assert model.predict_proba(rows)[0].tolist() == [0.0, 0.0, 1.0]
    assert model.predict_log_proba(rows)[0].tolist() == [-np.inf, -np.inf, 0.0]
    check_is_fitted(model)
    assert check_scoring(model)(model, rows, ["c", "a", "c"]) == pytest.approx(2 / 3)
    assert clone(model).fit(rows, ["a", "a", "a"]).predict(rows[:1]).tolist() == ["c"]  # nothing learned
    with pytest.raises(dp.DataValidationError, match="ConstantClassifier is expecting 2 features"):
        model.fit(np.zeros((3, 5)))
    with pytest.raises(dp.ParameterError, match=r"^ConstantClassifier\.predict_proba: constant='z' is not"):
        model.set_params(constant="z").predict_proba(rows)
    regressor = ConstantRegressor(2.0, 2).set_params(constant=5.0)
    assert regressor.predict(rows).tolist() == [5.0] * 3 and regressor.constant_ == 5.0
    check_is_fitted(regressor)


def test_a_row_whose_every_one_vs_rest_score_overflows_gets_uniform_probabilities_not_nan():
    from scipy.optimize import linprog

    rng = np.random.default_rng(0)
    rows, labels = rng.normal(size=(200, 5)), rng.integers(0, 3, 200)
    model = dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1, 2], random_state=0).fit(rows, labels)
    # a finite row on which every class score is below -3 per unit, scaled to the float maximum: all -inf
    direction = linprog(np.zeros(5), A_ub=model.coef_, b_ub=-3 * np.ones(3), bounds=[(-1, 1)] * 5).x
    row = (direction / np.abs(direction).max() * np.finfo(float).max)[None, :]
    with np.errstate(all="ignore"):
        assert np.isneginf(model.decision_function(row)).all()
        proba, log_proba = model.predict_proba(row), model.predict_log_proba(row)
    assert np.allclose(proba, 1 / 3) and np.allclose(log_proba, -np.log(3))
    assert model.classes_[np.argmax(proba, axis=1)] == model.predict(row)


def test_probabilities_of_huge_nearly_equal_scores_still_sum_to_one():
    """Scores of -4.8e17 that differ by less than their ulp: log-sum-exp taken after the row's maximum is
    subtracted (before it, s - (s + log 2) rounds to 0 and every probability to 1)."""
    rows = np.random.default_rng(0).normal(size=(12, 3)) / 3
    model = dp.PrivateLargeMarginGaussian(data_norm=2**31, classes=[0, 1], random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(rows, np.array([0, 1] * 6))
    assert np.abs(model.decision_function(rows)).max() < 1e-3 * np.abs(model.class_scores(rows)).min()
    assert np.allclose(model.predict_proba(rows).sum(axis=1), 1.0)
    assert np.allclose(np.exp(model.predict_log_proba(rows)).sum(axis=1), 1.0)
