"""Bad input to the data readers, the private bounds and their helpers is refused by a named
dpconvex exception that quotes no entry: neither the message nor any exception chained to it
(``__context__``, ``__cause__``) holds the sentinel values planted in the input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from _doubles import TEXT, refused

import dpconvex as dp
from dpconvex._validation import float_rows
from dpconvex.data import DenseRows, RangedRows, as_design, clip_rows, normalize_rows, row_blocks
from dpconvex.data.operators import CSRRows
from dpconvex.data.validation import check_array
from dpconvex.errors import DataTypeError, DataValidationError, ParameterError
from dpconvex.objectives import get_loss
from dpconvex.privacy import bounds
from dpconvex.runs import constant_r2, majority_error, warning_lines
from dpconvex.templates import RecordDomain
from dpconvex.templates.statistics import check_levels

TEXT_ROWS = [[TEXT, 0.7310585], [1.0, 2.0]]
RAGGED = [[0.7310585, 1.0], [2.0]]
OBJECTS = np.array([[object(), 0.7310585]], dtype=object)


@pytest.mark.parametrize("read", [as_design, DenseRows, lambda X: RangedRows(X, None),
                                  lambda X: float_rows(X, "demo")],
                         ids=["as_design", "DenseRows", "RangedRows", "float_rows"])
@pytest.mark.parametrize("rows", [TEXT_ROWS, RAGGED, OBJECTS, [[10**400, 0.7310585]]],
                         ids=["text", "ragged", "object", "huge int"])
def test_dense_rows_are_refused_quoting_no_entry(read, rows):
    refused(DataValidationError, read, rows)


def test_every_dense_reader_shares_one_check():
    """check_array, the public maps and the operators give one text after their names."""
    texts = {refused(DataTypeError, call, RAGGED).args[0].split(": ", 1)[1]
             for call in (lambda X: check_array(X, "demo"), lambda X: clip_rows(X, 1.0),
                          DenseRows, lambda X: normalize_rows(X))}
    assert len(texts) == 1


def test_sparse_operators_and_row_pointers_are_refused_by_name():
    refused(DataTypeError, CSRRows, TEXT)
    refused(DataValidationError, CSRRows, sp.csr_array(np.array([[0.7310585 + 1j, 1.0]])))
    for indptr in (TEXT, np.array([[0, 1]]), np.array([0.0, 1.0]), np.array([2, 1])):
        refused(DataValidationError, lambda p: list(row_blocks(p)), indptr)
    refused(ParameterError, lambda: list(row_blocks(np.array([0, 1]), max_entries=1.5)))


def test_ranged_rows_refuse_rows_and_ranges_of_the_wrong_form():
    refused(DataValidationError, RangedRows, np.ones(3), None)
    for ranges in (TEXT, [[0.0, 1.0]], [[1.0, 0.0], [0.0, 1.0]], [[10**400, 1.0]] * 2):
        refused(ParameterError, RangedRows, np.zeros((2, 2)), ranges)


@pytest.mark.parametrize("y", [[TEXT, "1"], RAGGED, np.array(0.7310585), [10**400]],
                         ids=["text", "ragged", "0-d", "huge int"])
def test_baselines_refuse_labels_quoting_none(y):
    refused(DataValidationError, constant_r2, y, [1.0, 2.0])
    refused(DataValidationError, constant_r2, [1.0, 2.0], y)
    if not isinstance(y, list):  # text and big ints are labels to majority_error
        refused(DataValidationError, majority_error, y, [1, 2])


def test_majority_error_refuses_labels_that_do_not_compare():
    refused(DataValidationError, majority_error, np.array([1, TEXT], dtype=object), [1])


@pytest.mark.parametrize("entries,fits,full_text", [
    (TEXT, 1, ""), ([{"message": TEXT}], 1, ""), ([], "1", ""), ([], 1, None)])
def test_warning_lines_refuse_what_they_cannot_read(entries, fits, full_text):
    refused(ParameterError, warning_lines, entries, fits, full_text)


VALUES = np.linspace(0.0, 1.0, 200)


@pytest.mark.parametrize("change", [
    {"n": TEXT}, {"n": 10**400}, {"budget": TEXT}, {"values": None},
    {"name": pd.Series([TEXT])}], ids=["n text", "n huge", "budget", "values None", "name"])
def test_release_range_refuses_its_arguments_by_name(change):
    kwargs = {"values": VALUES, "budget": dp.Budget(1.0), "rng": 0} | change
    refused(ParameterError, bounds.release_range, **kwargs)


def test_release_range_refuses_values_beyond_float64():
    refused(DataValidationError, bounds.release_range, [10**400] * 200, dp.Budget(1.0), rng=0)


@pytest.mark.parametrize("change", [{"n": TEXT}, {"budget": (0.7310585,)}, {"values": None}])
def test_release_vocabulary_refuses_its_arguments_by_name(change):
    kwargs = {"values": ["u", "v"] * 100, "budget": dp.Budget(1.0, 1e-4), "rng": 0} | change
    refused(ParameterError, bounds.release_vocabulary, **kwargs)


def test_budget_helpers_refuse_their_arguments_by_name():
    refused(ParameterError, bounds.check_range_budget, TEXT, 1.0)
    refused(ParameterError, bounds.check_range_budget, 100, np.empty((0, 2)))
    refused(ParameterError, bounds.column_budgets, TEXT, 1, 1)
    refused(ParameterError, bounds.column_budgets, dp.Budget(1.0), 10**400, 1)
    refused(ParameterError, bounds.range_certificate, TEXT, dp.Budget(1.0))
    refused(ParameterError, bounds.range_certificate, 100, TEXT)
    refused(ParameterError, bounds.grid_end_note, np.empty((0, 2)), 1.0)
    refused(ParameterError, bounds.grid_end_note, -1.0, 1.0, name=3)
    refused(ParameterError, check_levels, (10**400, 0.5), "demo")


def test_schemas_and_names_refuse_odd_containers_by_name():
    masked = np.ma.masked_array([[0.7310585, 1.0]], mask=[[True, False]])
    refused(ParameterError, dp.PublicSchema, {"a": None}, numeric=masked)
    refused(ParameterError, dp.Categorical, np.empty((), dtype=object))
    refused(ParameterError, dp.draft_schema, pd.DataFrame({"a": [1.0]}),
            delta=pd.Series([TEXT]))
    refused(ParameterError, get_loss, ["logistic"])
    refused(ParameterError, RecordDomain, 2, [[1.0]], labels=(-1.0, 1.0))


@pytest.mark.parametrize("X", [np.array([[np.nan, 0.7310585]]), np.array([[np.inf, 1.0]]),
                               sp.csr_array(np.array([[0.7310585 + 1j, 1.0]])), np.ones(3)],
                         ids=["nan", "inf", "complex sparse", "1-D"])
def test_normalize_rows_refuses_what_the_estimators_refuse(X):
    refused(DataValidationError, normalize_rows, X)
