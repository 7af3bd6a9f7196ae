"""Labels, label sets and random states of exact built-in or NumPy types only.

A label object of the user's own class is refused by name (or, under
``unknown_labels="ignore"``, left outside the set unread) before any label is compared: its
``__eq__``, ``__hash__``, ``__lt__`` or ``__float__`` could make one record's label change how
every other record's label is read. The counters below show no method of such a label is
called on any entry point.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import dpconvex as dp
from dpconvex._validation import check_random_state
from dpconvex.data.validation import (
    check_classes,
    check_labels,
    check_numeric_labels,
    encode_labels,
)


class Label:
    """A user's label whose comparisons, hash and float are counted; one label, ``wild``,
    equals every other."""

    calls = 0

    def __init__(self, value: int, wild: bool = False):
        self.value, self.wild = value, wild

    def _count(self) -> None:
        type(self).calls += 1

    def __eq__(self, other):
        self._count()
        return self.wild or getattr(other, "wild", False) or self is other

    def __ne__(self, other):
        self._count()
        return not self.__eq__(other)

    def __hash__(self):
        self._count()
        return hash(("Label", self.value))

    def __lt__(self, other):
        self._count()
        return self.value < other.value

    def __gt__(self, other):
        self._count()
        return self.value > other.value

    def __float__(self):
        self._count()
        return float(self.value)


A, B = Label(-1), Label(1)
WILD = Label(0, wild=True)


def _data(n: int = 40):
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(n, 3)) / np.sqrt(3)
    signs = X[:, 0] > 0
    return X, signs


@pytest.fixture(autouse=True)
def _counted():
    Label.calls = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the small-n utility warnings of the fits
        yield
    assert Label.calls == 0, f"a label's own method was called {Label.calls} times"


def _user_labels(signs: np.ndarray) -> np.ndarray:
    y = np.array([B if s else A for s in signs], dtype=object)
    y[0] = WILD  # one record's label that equals every label
    return y


ESTIMATORS = {
    "logistic": lambda **kw: dp.PrivateLogisticRegression(random_state=0, **kw),
    "front door": lambda **kw: dp.PrivateClassifier(random_state=0, **kw),
    "naive Bayes": lambda **kw: dp.PrivateGaussianNB(random_state=0, **kw),
    "grid": lambda **kw: dp.PrivateGridSearch(
        dp.PrivateLogisticRegression(), {"lam": [0.1, 1.0]}, epsilon=1.0, random_state=0, **kw),
}


@pytest.mark.parametrize("make", ESTIMATORS.values(), ids=ESTIMATORS.keys())
def test_labels_of_a_users_class_are_refused_by_name_unread(make):
    X, signs = _data()
    with pytest.raises(dp.DataTypeError, match=r"y holds labels of type Label; a label must "
                       r"be a str, int, float, bool, Decimal, Fraction or a NumPy scalar"):
        make(classes=[0, 1]).fit(X, _user_labels(signs))


@pytest.mark.parametrize("make", ESTIMATORS.values(), ids=ESTIMATORS.keys())
def test_a_label_set_of_a_users_class_is_refused_by_name_unread(make):
    X, signs = _data()
    with pytest.raises(dp.ParameterError, match=r"has a label of type Label; a label must be"):
        make(classes=[A, B]).fit(X, signs.astype(int))


def test_under_ignore_a_users_label_is_outside_the_set_unread():
    """Under unknown_labels="ignore" no label's value is refused: each of a user's class
    matches no class (its row zeroed) and its methods are never called."""
    _, signs = _data()
    y = _user_labels(signs)
    y[1:] = signs[1:].astype(int)  # one record of a user's class among ints
    labels = encode_labels(check_labels(y, len(y), "Doc.fit", classes=[0, 1],
                                        unknown_labels="ignore"),
                           [0, 1], "Doc.fit", unknown_labels="ignore")
    assert labels.outside.tolist() == [True] + [False] * (len(y) - 1)
    assert labels.index[1:].tolist() == signs[1:].astype(int).tolist()


def test_a_sequence_label_is_outside_the_set_without_hashing_its_entries():
    """A tuple's hash would call its entries' own: a tuple label is in no set, unread."""
    y = np.empty(3, dtype=object)
    y[:] = [(A,), 1, 0]
    labels = encode_labels(y, [0, 1], "Doc.fit", unknown_labels="ignore")
    assert labels.outside.tolist() == [True, False, False]


BUILT_IN = [
    pd.Series(["a", "b", "a"], dtype="string"),
    pd.Categorical(["a", "b", "a"], categories=["a", "b"]),
    pd.Series(pd.Categorical([1, 0, 1])),
    np.array(["a", "b", "a"], dtype=object),
    [np.int64(1), 0, True],
    np.array([np.str_("a"), "b", "a"], dtype=object),
]


def test_only_labels_of_other_types_than_built_in_numpy_and_pandas_ones_are_refused():
    """pandas' strings and categoricals, str in object arrays, NumPy scalars and bools are
    read as labels (and as a label set); a user's label among them is refused unread."""
    for y in BUILT_IN:
        checked = check_labels(y, 3, "Doc.fit")
        issued = dp.data.validation.LabelWarning(issued=True)
        assert len(encode_labels(checked, None, "Doc.fit", warning=issued).classes) == 2
    assert check_classes([np.int64(1), 0], "Doc.fit").tolist() == [0, 1]
    assert check_classes(["b", np.str_("a")], "Doc.fit").tolist() == ["a", "b"]
    with pytest.raises(dp.DataTypeError, match=r"y holds labels of type Label"):
        check_labels(np.array(["a", "b", WILD], dtype=object), 3, "Doc.fit")


def test_a_regressors_labels_of_a_users_class_are_refused_unread():
    with pytest.raises(dp.DataTypeError, match=r"y holds labels of type Label"):
        check_numeric_labels(np.array([A, 1.0, 2.0], dtype=object), 3, "Doc.fit")
    X, _ = _data()
    y = np.array([Label(i) for i in range(len(X))], dtype=object)
    with pytest.raises(dp.DataTypeError, match=r"y holds labels of type Label"):
        dp.PrivateLinearRegression(random_state=0).fit(X, y)


class Drawn(np.random.Generator):
    """A Generator of the user's own, which could draw other noise than the calibration's."""


class Bits(np.random.PCG64):
    """A bit generator of the user's own."""


@pytest.mark.parametrize("given", [Drawn(np.random.PCG64(0)), np.random.Generator(Bits(0))],
                         ids=["Generator subclass", "bit generator subclass"])
def test_random_states_of_other_types_are_refused(given):
    """Exact types only; those documented are taken."""
    with pytest.raises(dp.ParameterError, match=r"'random_state' argument of Doc must be None"):
        check_random_state(given, "Doc")
    rng = np.random.default_rng(0)
    assert check_random_state(rng, "Doc") is rng
    assert isinstance(check_random_state(np.int64(3), "Doc"), np.random.Generator)
    assert isinstance(check_random_state(None, "Doc"), np.random.Generator)


def test_a_sweep_refuses_a_generator_subclass_before_reading_rows():
    class Rows:
        """Rows that fail the test when read."""

        def __array__(self, *args, **kwargs):
            raise AssertionError("the rows were read")

        shape = (40, 3)

    with pytest.raises(dp.ParameterError, match=r"random_state' argument of epsilon_sweep"):
        dp.epsilon_sweep(dp.PrivateLogisticRegression(classes=[0, 1]), Rows(), np.zeros(40),
                         [0.5, 1.0], random_state=Drawn(np.random.PCG64(0)))


class Ranges:
    """A feature_range whose __array__ widens at each call (the reads counted)."""

    def __init__(self):
        self.reads = 0

    def __array__(self, dtype=None, copy=None):
        self.reads += 1
        return np.array([-1.0, float(self.reads)], dtype=dtype)


def test_naive_bayes_reads_feature_range_once_and_states_what_it_applied():
    """One read per check of the parameters (a fit, a plan), and what that read gave is both
    the plan's public fact and the clipping prepare applies."""
    X, signs = _data()
    ranges = Ranges()
    model = dp.PrivateGaussianNB(feature_range=ranges, classes=[0, 1], random_state=0)
    model.fit(X, signs.astype(int))
    assert ranges.reads == 1
    plan = model.plan(len(X), 2, X.shape[1])  # checked again: read once more
    assert ranges.reads == 2 and plan.options["feature_range"] == (-1.0, 2.0)
    template = model.prepare(X, signs.astype(int), plan).template
    assert template.lo.tolist() == [-1.0] * 3 and template.hi.tolist() == [2.0] * 3
    assert ranges.reads == 2
