"""The forms X, y and a label set take through validation: read as they are where they are
already what a fit reads (a float64 ndarray, a set of ints or strings), converted once
otherwise, with the same refusals either way."""

from __future__ import annotations

import numpy as np
import pytest

from dpconvex.data.validation import check_array, check_classes, check_numeric_labels
from dpconvex.errors import DataValidationError, ParameterError


@pytest.mark.parametrize("order", ["C", "F"])
def test_a_float64_array_is_the_checked_rows_themselves(order):
    X = np.asarray(np.arange(12.0).reshape(4, 3), order=order)
    assert check_array(X, "Doc.fit") is X
    y = X[:, 0]
    assert check_numeric_labels(y, 4, "Doc.fit") is y


class _Rows(np.ndarray):
    """A float64 array of another class: read as a plain array on the user's memory."""


@pytest.mark.parametrize("given", [np.arange(6.0, dtype=np.float32).reshape(3, 2),
                                   np.arange(6).reshape(3, 2), [[0, 1.0], [2, 3], [4, 5]],
                                   np.arange(6.0).reshape(3, 2).view(_Rows)])
def test_other_dense_forms_are_read_once_as_float64(given):
    A = check_array(given, "Doc.fit")
    assert type(A) is np.ndarray and A.dtype == np.float64
    assert np.array_equal(A, np.arange(6.0).reshape(3, 2))
    if isinstance(given, np.ndarray) and given.dtype == np.float64:
        assert np.shares_memory(A, given)


def test_a_float64_array_with_masked_entries_is_refused_as_any_masked_array():
    X = np.ma.masked_array(np.ones((3, 2)), mask=[[0, 1], [0, 0], [0, 0]])
    with pytest.raises(DataValidationError, match="masked"):
        check_array(X, "Doc.fit")


@pytest.mark.parametrize("plain, looked_at", [([1, 0], [np.float64(1.0), 0]),
                                              (["b", "a"], [np.str_("b"), "a"]),
                                              ([True, 2], [np.float32(1.0), 2])])
def test_a_set_of_ints_or_strings_is_checked_as_a_set_looked_at_label_by_label(plain, looked_at):
    """The sorted set is the same whether or not a label of another type made the check look
    at each label; a repeated label (1 and 1.0) and mixed kinds are refused on either path."""
    assert check_classes(plain, "Doc.fit").tolist() == check_classes(looked_at, "Doc.fit").tolist()
    for repeated in ([1, 1, 2], [1, 1.0, 2]):
        with pytest.raises(ParameterError, match="repeated labels"):
            check_classes(repeated, "Doc.fit")
    for mixed in ([0, "a"], [0.0, "a"]):
        with pytest.raises(ParameterError, match="mixes label types"):
            check_classes(mixed, "Doc.fit")


@pytest.mark.skipif(np.finfo(np.longdouble).max <= np.finfo(np.float64).max,
                    reason="long double is float64 on this platform")
def test_labels_beyond_float64_are_refused_by_name():
    with pytest.raises(DataValidationError, match="too large for float64"):
        check_numeric_labels(np.array([1, np.longdouble("1e4000")]), 2, "Doc.fit")


def test_labels_other_than_float64_are_read_once_as_floats_or_refused_by_name():
    with pytest.raises(DataValidationError, match="must hold numbers"):
        check_numeric_labels(np.array(["1", "2"], dtype=object), 2, "Doc.fit")
    values = check_numeric_labels(np.array([1, 2], dtype=np.int8), 2, "Doc.fit")
    assert values.dtype == np.float64 and values.tolist() == [1.0, 2.0]
