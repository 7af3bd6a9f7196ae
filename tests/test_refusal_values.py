"""A refusal of a parameter shows what was passed, never the user's data.

An array passed where a parameter belongs (``classes=y``, ``epsilon=X[:, 0]``) is most likely a
slice of the data set; its refusal names the parameter and what to pass, and describes the
value by type, shape and dtype only (:func:`dpconvex._validation.describe_value`). The
arrays below hold planted values (123.456, 789.0) that no part of a message may show in any
of NumPy's or pandas' print forms. What a user types (a scalar, a short list of labels) is
still shown, so ``classes=[0, 1, 1]`` says which label repeats.
"""

from __future__ import annotations

import array
import collections
import re

import numpy as np
import pandas as pd
import pytest

import dpconvex as dp
from dpconvex._validation import SHOWN_ITEMS, check_random_state, describe_value
from dpconvex.audit.adapters import LinearERMMechanism
from dpconvex.audit.runner import audit
from dpconvex.data.encoder import encode
from dpconvex.data.row_scaling import check_row_norm
from dpconvex.data.schema import PublicSchema
from dpconvex.errors import DataValidationError, ParameterError
from dpconvex.estimators.selection.random import Repetitions
from dpconvex.objectives import Logistic
from dpconvex.privacy.budget import split_budget
from dpconvex.privacy.mechanisms.noisy_gd import NoisyGD
from dpconvex.templates import LinearERMTemplate

#: Every print form of the planted values: repr in fixed or scientific notation.
PLANTED_FORMS = ("123.456", "1.23456", "789", "7.89")

_RNG = np.random.default_rng(0)
X = _RNG.uniform(-0.5, 0.5, size=(30, 3))
X[:, 0] = 123.456
X[0] = [789.0, 123.456, 0.25]
Y = np.tile([0, 1], 15)
#: Labels of a regression, each a planted value.
Y_REAL = np.full(30, 123.456)
#: An int label set (as y) with a planted label: repeated labels, long.
Y_PLANTED = np.r_[Y, 789]
#: A valid label set of more than SHOWN_ITEMS distinct ints, one of them planted.
LABELS = np.r_[789, np.arange(11)]

def _template() -> LinearERMTemplate:
    """A template on rows of norm 1 (the planted rows are not: a release of them is refused
    before its arguments are read)."""
    rows = X / np.linalg.norm(X, axis=1, keepdims=True)
    return LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=rows, y=2 * Y - 1)


#: (parameter named in the message, the call that must be refused).
CASES = {
    "classes=y": ("classes", lambda: dp.PrivateLogisticRegression(classes=Y_PLANTED).fit(X, Y)),
    "classes=X": ("classes", lambda: dp.PrivateLogisticRegression(classes=X).fit(X, Y)),
    "classes=X[:, 0]": ("classes",
                        lambda: dp.PrivateLogisticRegression(classes=X[:, 0]).fit(X, Y)),
    "classes=Series": ("classes", lambda: dp.PrivateLogisticRegression(
        classes=pd.Series(X[:, 0])).fit(X, Y)),
    "PublicSchema(df)": ("columns", lambda: PublicSchema(pd.DataFrame(X, columns=list("abc")))),
    "GaussianNB feature_range=X[0]": ("feature_range", lambda: dp.PrivateGaussianNB(
        classes=[0, 1], feature_range=X[0]).fit(X, Y)),
    "Classifier feature_range=X": ("feature_range", lambda: dp.PrivateClassifier(
        classes=[0, 1], feature_range=X).fit(X, Y)),
    "epsilon=X[:, 0]": ("epsilon", lambda: dp.PrivateLogisticRegression(
        classes=[0, 1], epsilon=X[:, 0]).fit(X, Y)),
    "lam=X": ("lam", lambda: dp.PrivateLogisticRegression(classes=[0, 1], lam=X).fit(X, Y)),
    "data_norm=X[0]": ("data_norm", lambda: dp.PrivateLogisticRegression(
        classes=[0, 1], data_norm=X[0]).fit(X, Y)),
    "random_state=X": ("random_state", lambda: dp.PrivateLogisticRegression(
        classes=[0, 1], random_state=X).fit(X, Y)),
    "constraints=X": ("constraints", lambda: dp.PrivateLogisticRegression(
        classes=[0, 1], constraints=X).fit(X, Y)),
    "Budget(X[:, 0])": ("epsilon", lambda: dp.Budget(X[:, 0])),
    "BudgetAccountant(X)": ("epsilon", lambda: dp.BudgetAccountant(X)),
    "NoisyGradientDescent radius=X": ("radius", lambda: dp.NoisyGradientDescent(
        classes=[0, 1], radius=X).fit(X, Y)),
    "RandomFourierFeatures gamma=X": ("gamma",
                                      lambda: dp.RandomFourierFeatures(gamma=X).fit(X)),
    "feature_weights=-X[0]": ("feature_weights", lambda: dp.PrivateLargeMarginGaussian(
        classes=[0, 1], feature_weights=-X[0]).fit(X, Y)),
    "feature_weights=X": ("feature_weights", lambda: dp.PrivateLargeMarginGaussian(
        classes=[0, 1], feature_weights=X).fit(X, Y)),
    "label_range=y": ("label_range", lambda: dp.PrivateLinearRegression(
        label_range=Y_REAL).fit(X, Y_REAL)),
    "label_center=y": ("label_center", lambda: dp.PrivateLinearRegressor(
        label_range=(-1, 1), label_center=Y_REAL).fit(X, Y_REAL)),
    "priors=y": ("priors", lambda: dp.PrivateGaussianCentroid(
        classes=[0, 1], priors=Y_REAL).fit(X, Y)),
    "check_random_state(X)": ("random_state", lambda: check_random_state(X, "demo")),
    "PrivateGridSearch(est, X)": ("param_grid", lambda: dp.PrivateGridSearch(
        dp.PrivateLogisticRegression(classes=[0, 1]), X, epsilon=1).fit(X, Y)),
    "PrivateGridSearch lam=X": ("param_grid", lambda: dp.PrivateGridSearch(
        dp.PrivateLogisticRegression(classes=[0, 1]), {"lam": X}, epsilon=1).fit(X, Y)),
    "PrivateRandomSearch lam=X": ("param_grid", lambda: dp.PrivateRandomSearch(
        dp.PrivateLogisticRegression(classes=[0, 1]), {"lam": X}, epsilon=1).fit(X, Y)),
    "param_grid='auto' classes=labels": ("param_grid", lambda: dp.PrivateGridSearch(
        dp.PrivateLogisticRegression(classes=LABELS), "auto", epsilon=1).fit(X, Y)),
    "search classes=labels": ("classes", lambda: dp.PrivateGridSearch(
        dp.PrivateLogisticRegression(classes=[0, 1]), {"lam": [0.1]}, epsilon=1,
        classes=LABELS).fit(X, Y)),
    "search estimator classes=labels": ("classes", lambda: dp.PrivateGridSearch(
        dp.PrivateLogisticRegression(classes=LABELS), {"lam": [0.1]}, epsilon=1,
        classes=[0, 1]).fit(X, Y)),
    "Repetitions mean=array": ("mean", lambda: Repetitions.with_mean(
        "geometric", np.array(-789.0))),
    "Centroid priors=-X[0, :2]": ("priors", lambda: dp.PrivateGaussianCentroid(
        classes=[0, 1], priors=-X[0, :2]).fit(X, Y)),
    "GaussianNB priors=-X[0, :2]": ("priors", lambda: dp.PrivateGaussianNB(
        classes=[0, 1], priors=-X[0, :2]).fit(X, Y)),
    "epsilon_sweep epsilons=-X[:, 0]": ("epsilons", lambda: dp.epsilon_sweep(
        dp.PrivateLogisticRegression(classes=[0, 1]), X, Y, epsilons=-X[:, 0])),
    "epsilon_sweep epsilons=0-d array": ("epsilons", lambda: dp.epsilon_sweep(
        dp.PrivateLogisticRegression(classes=[0, 1]), X, Y, epsilons=np.array(-789.0))),
    "mechanism=X": ("mechanism", lambda: dp.PrivateLogisticRegression(
        classes=[0, 1], mechanism=X).fit(X, Y)),
    "Centroid mechanism=X": ("mechanism", lambda: dp.PrivateGaussianCentroid(
        classes=[0, 1], mechanism=X).fit(X, Y)),
    "Repetitions kind=X[0]": ("kind", lambda: Repetitions.with_mean(X[0], 10.0)),
    "NoisyGD average=X": ("average", lambda: NoisyGD(average=X)),
    "LinearERMMechanism loss=X": ("loss", lambda: LinearERMMechanism(
        X, epsilon=1, mechanism="output", lam=0.1)),
    "check_row_norm(X)": ("row_norm", lambda: check_row_norm(X, "demo")),
    "accountant=X[:, 0]": ("accountant", lambda: dp.PrivateLogisticRegression(
        classes=[0, 1], accountant=X[:, 0]).fit(X, Y)),
    "plan(n=X[:, 0])": ("n", lambda: dp.PrivateLogisticRegression(classes=[0, 1]).plan(
        n=X[:, 0], n_features=3)),
    "plan(n_classes=X[:, 0])": ("n_classes", lambda: dp.PrivateLogisticRegression().plan(
        n=40, n_classes=X[:, 0], n_features=3)),
    "plan(n_classes=X[:, 0]) with classes": ("n_classes", lambda: dp.PrivateLogisticRegression(
        classes=[0, 1]).plan(n=40, n_classes=X[:2, 0], n_features=3)),
    "regressor plan(n_classes=X[:, 0])": ("n_classes", lambda: dp.PrivateLinearRegressor(
        label_range=(-1, 1)).plan(n=40, n_classes=X[:, 0], n_features=3)),
    "certify(n=Series)": ("n", lambda: dp.PrivateLinearRegressor(label_range=(-1, 1)).certify(
        n=pd.Series(X[:, 0]), n_features=3)),
    "certify(n_features=list(X[:, 0]))": ("n_features", lambda: dp.PrivateLogisticRegression(
        classes=[0, 1]).certify(n=40, n_features=list(X[:, 0]))),
    "lam=list(X[0])": ("lam", lambda: dp.PrivateLogisticRegression(
        classes=[0, 1], lam=list(X[0])).fit(X, Y)),
    "data_norm=tuple(X[0])": ("data_norm", lambda: dp.PrivateLogisticRegression(
        classes=[0, 1], data_norm=tuple(X[0])).fit(X, Y)),
    "epsilon=DataFrame with a dtype column": ("epsilon", lambda: dp.PrivateLogisticRegression(
        classes=[0, 1], epsilon=pd.DataFrame({"dtype": X[:3, 0]})).fit(X, Y)),
    "release backend=X[:, 0]": ("backend", lambda: dp.release(
        _template(), "objective", dp.Budget(1.0), backend=X[:, 0])),
    "release vouch=X[:, 0]": ("vouch", lambda: dp.release(
        _template(), "objective", dp.Budget(1.0), vouch=X[:, 0])),
    "release vouch_unused=list(X[:, 0])": ("vouch_unused", lambda: dp.release(
        _template(), "objective", dp.Budget(1.0), vouch_unused=list(X[:, 0]))),
    "certify unknown_labels=X[:, 0]": ("unknown_labels", lambda: dp.PrivateLogisticRegression(
        classes=[0, 1], unknown_labels=X[:, 0]).certify(X, Y)),
    "release mechanism=X": ("mechanism", lambda: dp.release(_template(), X, dp.Budget(1.0))),
    "from_ranges(X[:, 0])": ("ranges", lambda: PublicSchema.from_ranges(X[:, 0])),
    "from_ranges(list(X[:, 0]))": ("ranges", lambda: PublicSchema.from_ranges(list(X[:, 0]))),
    "from_ranges(X)": ("ranges", lambda: PublicSchema.from_ranges(X)),
}


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_a_refusal_names_the_parameter_and_shows_no_planted_value(case):
    name, call = CASES[case]
    with pytest.raises(ParameterError) as info:
        call()
    message = str(info.value)
    assert f"'{name}'" in message
    assert re.search("must|class labels are|list each class once", message)  # what to pass
    shown = [form for form in PLANTED_FORMS if form in message]
    assert not shown, f"{case}: the message shows {shown}: {message}"
    assert "array(" not in message and len(message) < 1000


@pytest.mark.parametrize("fractions", [X, X[:, 0], list(X[:, 0])], ids=["2-D", "1-D", "list"])
def test_split_budget_describes_its_fractions(fractions):
    with pytest.raises(ParameterError, match="split_budget: the fractions must") as info:
        split_budget(dp.Budget(1.0), fractions)
    message = str(info.value)
    assert not [form for form in PLANTED_FORMS if form in message], message


def test_a_short_list_the_user_typed_is_still_shown():
    with pytest.raises(ParameterError, match=r"repeated labels; .* Got \[0, 1, 1\] instead"):
        dp.PrivateLogisticRegression(classes=[0, 1, 1]).fit(X, Y)
    with pytest.raises(ParameterError, match=r"Got -1 instead"):
        dp.PrivateLogisticRegression(classes=[0, 1], epsilon=-1)._validate_params()


def test_from_ranges_shows_the_pair_the_user_typed():
    with pytest.raises(ParameterError, match=r"range of 'x1' must .* Got \(5, 2\) instead"):
        PublicSchema.from_ranges([(0, 1), (5, 2)])


@pytest.mark.parametrize("value, expected", [
    (np.zeros((2, 3)), "an array of shape (2, 3) and dtype float64"),
    (pd.DataFrame(np.zeros((4, 2))), "a DataFrame of shape (4, 2)"),
    (pd.Series([1.5, 2.5]), "a Series of shape (2,) and dtype float64"),
    (list(range(SHOWN_ITEMS + 1)), f"a list of length {SHOWN_ITEMS + 1} holding int"),
    ((np.zeros(2), np.ones(2)), "a tuple of length 2 holding ndarray"),
    ({"a": np.zeros(2)}, "a dict of length 1 holding ndarray, str"),
    (list(range(SHOWN_ITEMS)), repr(list(range(SHOWN_ITEMS)))),
    ((0, 1.5), "(0, 1.5)"),
    ("auto", "'auto'"),
    (None, "None"),
    (np.float64(0.5), "np.float64(0.5)"),
    (list(np.array([789.0, 0.25])), "a list of length 2 holding float64"),
    (tuple(np.array([789, 1])), "a tuple of length 2 holding int64"),
    ({"a": np.float64(789.0)}, "a dict of length 1 holding float64, str"),
    (pd.DataFrame({"dtype": [789.0, 123.456], "b": [1, 2]}), "a DataFrame of shape (2, 2)"),
    (pd.Categorical(["a", "b"]), "a Categorical of shape (2,) and dtype category"),
    (collections.deque([789.0, 0.25]), "a deque of length 2 holding float"),
    (array.array("d", [789.0]), "an array of length 1 holding float"),
    ({"a": 789.0}.values(), "a dict_values of length 1 holding float"),
    ((v for v in (789.0,)), "a generator"),
    (range(3), "range(0, 3)"),
])
def test_describe_value(value, expected):
    assert describe_value(value) == expected


class _ShapeRaises:
    @property
    def shape(self):
        raise RuntimeError("no shape")


class _LongList(list):
    """A list whose copy would be noticed: describe_value reads its length, not its items."""

    def __iter__(self):
        raise AssertionError("iterated")


def test_describe_value_survives_a_shape_that_raises_and_reads_no_long_container():
    assert describe_value(_ShapeRaises()).startswith("<")
    long = _LongList(range(SHOWN_ITEMS + 1))
    assert describe_value(long) == f"a _LongList of length {SHOWN_ITEMS + 1}"


def test_describe_value_cuts_a_description_to_its_limit():
    wide = np.zeros((1,) * 20)
    assert len(describe_value(wide)) == 60 and describe_value(wide).endswith("...")


def test_describe_value_cuts_a_long_repr():
    text = describe_value("x" * 500)
    assert len(text) == 60 and text.endswith("...")


def test_the_dask_gram_refusal_does_not_format_the_rows():
    pytest.importorskip("dask.array")
    from dpconvex.data.dask_gram import DaskGram

    with pytest.raises(TypeError, match=r"needs a 2-D dask.array.Array; got ndarray of shape "
                                        r"\(30, 3\)") as info:
        DaskGram(X)
    message = str(info.value)
    assert not [form for form in PLANTED_FORMS if form in message], message


def test_the_audit_refusal_of_a_mechanism_shows_no_planted_value():
    with pytest.raises(ParameterError, match="mechanism must be callable") as info:
        audit(X, X, X, n_runs=10)
    message = str(info.value)
    assert not [form for form in PLANTED_FORMS if form in message], message


class _Secret:
    """An entry whose conversion to float (or comparison) raises an error that quotes a value."""

    def __float__(self) -> float:
        raise ValueError("value 123.456 is secret")

    def __lt__(self, other: object) -> bool:
        raise TypeError("label 123.456 is secret")


#: Calls on the private path whose conversion of the user's values fails.
CONVERSIONS = {
    "fit X": lambda: dp.PrivateLogisticRegression(classes=[0, 1]).fit(
        np.array([[1.0, _Secret(), 2.0]] * 30, dtype=object), Y),
    "fit ragged X": lambda: dp.PrivateLogisticRegression(classes=[0, 1]).fit(
        [[1.0, 2.0], [1.0, 2.0, 3.0]] * 15, Y),
    "predict X": lambda: dp.PrivateLogisticRegression(classes=[0, 1], random_state=0).fit(
        np.full((30, 3), 0.1), Y).predict(np.array([[1.0, _Secret(), 2.0]] * 2, dtype=object)),
    "score sample_weight": lambda: dp.PrivateLogisticRegression(
        classes=[0, 1], random_state=0).fit(np.full((30, 3), 0.1), Y).score(
        np.full((30, 3), 0.1), Y, sample_weight=[_Secret()] * 30),
    "encoder ragged column": lambda: dp.PublicEncoder(PublicSchema({"a": dp.Numeric(0, 1)})).fit(
        {"a": [[1.0], [123.456, 2.0]]}),
    "encoder ragged rows": lambda: dp.PublicEncoder(PublicSchema.from_ranges([(0, 1)] * 2)).fit(
        [[1.0, 2.0], [123.456]]),
    "encode column": lambda: encode(PublicSchema({"a": dp.Numeric(0, 1)}),
                                       {"a": np.array([_Secret()] * 3, dtype=object)}),
}


@pytest.mark.filterwarnings("ignore::dpconvex.errors.PrivacyLeakWarning")  # classes=None
@pytest.mark.parametrize("case", list(CONVERSIONS), ids=list(CONVERSIONS))
def test_a_failed_conversion_names_the_exception_type_not_its_text(case):
    """The text of an exception raised while converting the user's X, y or weights (an entry's
    ``__float__`` or ``__lt__``, NumPy's reading of ragged rows) is not relayed: it can quote
    a value. The refusal names the exception's type."""
    with pytest.raises((DataValidationError, ParameterError)) as info:
        CONVERSIONS[case]()
    message = str(info.value)
    assert "secret" not in message and "inhomogeneous" not in message, message
    assert not [form for form in PLANTED_FORMS if form in message], message
    assert re.search(r"ValueError|TypeError", message), message


@pytest.mark.filterwarnings("ignore::dpconvex.errors.PrivacyLeakWarning")  # classes=None
def test_labels_of_a_users_class_are_refused_by_their_type_before_any_comparison():
    """A label whose ``__lt__`` raises is refused by its type's name, never compared."""
    with pytest.raises(DataValidationError, match=r"y holds labels of type _Secret") as info:
        dp.PrivateLogisticRegression().fit(
            np.full((2, 2), 0.1), np.array([_Secret(), _Secret()], dtype=object))
    assert "secret" not in str(info.value)
