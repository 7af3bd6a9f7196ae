"""The per-record maps of dpconvex.data.preprocess refuse bad rows and constants by name, in
the estimators' words, with a message that says what to change and quotes no entry."""
from __future__ import annotations

from decimal import Decimal

import numpy as np
import pytest
import scipy.sparse as sp

from dpconvex.data.preprocess import add_intercept, augment_and_scale, clip_dense_rows, clip_rows
from dpconvex.errors import DataTypeError, DataValidationError, ParameterError

#: An entry no message may quote (its digits would be a data value in a message).
SECRET = 0.7310585

# name, function, its constant's argument name
MAPS = [("clip_rows", clip_rows, "bound"), ("clip_dense_rows", clip_dense_rows, "bound"),
        ("add_intercept", add_intercept, "value"),
        ("augment_and_scale", augment_and_scale, "data_norm")]

# refusal kind, rows, exception, what the message says to change
ROWS = [
    ("text", [["SECRETZ", str(SECRET)], ["1", "2"]], DataTypeError, "convert numeric columns"),
    ("object", np.array([[object(), SECRET]], dtype=object), DataTypeError,
     "Encode categorical columns"),
    ("ragged", [[SECRET, 1.0], [2.0]], DataTypeError, "2-D array of numbers"),
    ("complex", np.array([[SECRET + 1j, 1.0]]), DataValidationError, "pass real numbers"),
    ("NaN", [[np.nan, SECRET]], DataValidationError, "Impute or drop"),
    ("inf", [[np.inf, SECRET]], DataValidationError, "Impute or drop"),
    ("beyond float64", [[10**400, SECRET]], DataValidationError, "rescale that column"),
    ("1-D", np.array([SECRET, 2.0]), DataValidationError, r"X.reshape\(-1, 1\)"),
    ("a list of no columns", [[]], DataValidationError, "a minimum of 1 is required"),
    ("None", None, DataValidationError, "pass a 2-D array of numbers"),
]


@pytest.mark.parametrize("kind, X, exc, fix", ROWS, ids=[r[0] for r in ROWS])
@pytest.mark.parametrize("name, f, _arg", MAPS, ids=[m[0] for m in MAPS])
def test_bad_rows_are_refused_by_name_quoting_no_entry(name, f, _arg, kind, X, exc, fix):
    with pytest.raises(exc, match=rf"^{name}: .*{fix}") as err:
        f(X, 1.0)
    assert str(SECRET)[2:] not in str(err.value) and "SECRETZ" not in str(err.value)


@pytest.mark.parametrize("name, f", [("clip_rows", clip_rows), ("add_intercept", add_intercept)])
def test_bad_sparse_rows_are_refused_as_dense_ones(name, f):
    with pytest.raises(DataValidationError, match=rf"^{name}: X contains NaN or infinite"):
        f(sp.csr_array(np.array([[np.nan, SECRET]])), 1.0)


@pytest.mark.parametrize("name, f", [("clip_dense_rows", clip_dense_rows),
                                     ("augment_and_scale", augment_and_scale)])
def test_sparse_rows_where_dense_ones_are_needed_are_refused_saying_how_to_densify(name, f):
    with pytest.raises(DataValidationError, match=rf"^{name}: got a sparse matrix .*toarray"):
        f(sp.csr_array(np.eye(2)), 1.0)


# refusal kind, constant
BAD_CONSTANTS = [("text", "1"), ("None", None), ("bool", True), ("NaN", float("nan")),
                 ("beyond float64", 10**400)]


@pytest.mark.parametrize("kind, value", BAD_CONSTANTS, ids=[c[0] for c in BAD_CONSTANTS])
@pytest.mark.parametrize("name, f, arg", MAPS, ids=[m[0] for m in MAPS])
def test_a_bad_constant_is_refused_by_name(name, f, arg, kind, value):
    with pytest.raises(ParameterError, match=rf"^The '{arg}' argument of {name} must be a "):
        f([[3.0, 4.0]], value)


@pytest.mark.parametrize("name, f, arg", [m for m in MAPS if m[2] != "value"],
                         ids=[m[0] for m in MAPS if m[2] != "value"])
def test_a_norm_bound_at_most_zero_is_refused(name, f, arg):
    """A negative bound would flip the rows' signs; a bound of 0 is no norm bound."""
    for value in (-1.0, 0.0):
        with pytest.raises(ParameterError, match=rf"'{arg}' argument of {name} .*\(0, inf\)"):
            f([[3.0, 4.0]], value)


def test_zero_rows_map_to_zero_rows_and_an_array_of_no_column_as_it_is():
    """A Dask chunk of a filtered array can hold no row, and every map runs on each chunk; a
    template of one class (ClassSumTemplate) has rows of no column."""
    Xc, k = clip_rows(np.empty((0, 2)), 1.0)
    assert Xc.shape == (0, 2) and k == 0
    assert clip_rows(sp.csr_array((0, 2)), 1.0)[0].shape == (0, 2)
    assert add_intercept(np.empty((0, 2))).shape == (0, 3)
    assert augment_and_scale(np.empty((0, 2)), 1.0).shape == (0, 3)
    assert clip_rows(np.zeros((2, 0)), 1.0)[0].shape == (2, 0)
    assert add_intercept(sp.csr_array((2, 0)), 0.5).toarray().tolist() == [[0.5], [0.5]]


def test_numbers_of_other_exact_types_are_read_as_floats():
    """Ints, bools in rows (as the estimators read them) and a Decimal constant are numbers:
    the maps take them as the float rows and float constant they stand for."""
    Xc, k = clip_rows([[3, 4], [0, 0]], Decimal("1"))
    assert k == 1 and Xc.dtype == np.float64
    np.testing.assert_allclose(Xc, [[0.6, 0.8], [0.0, 0.0]], rtol=1e-15)  # one rounding
    assert add_intercept(np.array([[True, False]]), 0).tolist() == [[1.0, 0.0, 0.0]]
