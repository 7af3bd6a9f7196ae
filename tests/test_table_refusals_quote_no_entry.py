"""Tables, the encoder and the private range refuse values they cannot read by a named dpconvex
exception that quotes no entry: neither the message nor an exception chained to it
(``__context__``, ``__cause__``) holds the sentinel values planted in the input, even where
NumPy's or pandas' own text quotes them ("could not convert string to float: 'SECRETZ'")."""

from __future__ import annotations

import numpy as np
import pytest
from _doubles import NUMBER, TEXT, refused

import dpconvex as dp
from dpconvex.data.encoder import PublicEncoder, _numeric_column, encode
from dpconvex.data.tables import table_columns, table_header
from dpconvex.errors import DataValidationError, ParameterError
from dpconvex.objectives import get_regression_loss
from dpconvex.privacy import bounds
from dpconvex.templates.statistics import RangeTemplate, VocabularyTemplate

QUOTED = f"could not convert string to float: '{TEXT}' ({NUMBER})"  # as NumPy words it


class Quoting:
    """A column (or table) NumPy cannot read: its conversion's text quotes the sentinels."""

    def __len__(self) -> int:
        return 2

    def __array__(self, dtype=None, copy=None):
        raise ValueError(QUOTED)


class Entry:
    """An entry whose float() raises with a text that quotes the sentinels."""

    def __float__(self) -> float:
        raise ValueError(QUOTED)


class Frame:
    """A data frame whose columns cannot be read: pandas' text quotes the sentinels."""

    columns = ["a"]
    ndim = 2
    shape = (2, 1)

    class _Rows:
        def __getitem__(self, key):
            raise ValueError(QUOTED)

    iloc = _Rows()


SCHEMA = dp.PublicSchema({"a": dp.Numeric(0.0, 1.0)})
ENTRIES = np.array([Entry(), 0.5], dtype=object)


READERS = {"table_columns": lambda X: table_columns(X, "demo"),
           "table_header": lambda X: table_header(X, "demo"),
           "draft_schema": lambda X: dp.draft_schema(X),
           "PublicEncoder.fit": lambda X: PublicEncoder(SCHEMA).fit(X)}
TABLES = {"mapping column": {"a": Quoting()}, "array": Quoting(), "frame": Frame()}


@pytest.mark.parametrize("read,table", [
    pytest.param(read, table, id=f"{reader}-{kind}")
    for reader, read in READERS.items() for kind, table in TABLES.items()
    if (reader, kind) != ("table_header", "frame")])  # a frame's header: not its values
def test_tables_that_cannot_be_read_are_refused_quoting_no_entry(read, table):
    refused(DataValidationError, read, table)


def test_numeric_columns_of_unreadable_entries_are_refused_quoting_no_entry():
    refused(DataValidationError, PublicEncoder(SCHEMA).fit_transform, {"a": ENTRIES})
    refused(ParameterError, encode, SCHEMA, {"a": ENTRIES})
    refused(ParameterError, encode, SCHEMA, {"a": Quoting()})
    refused(ParameterError, _numeric_column, Quoting(), "a", "encode")


@pytest.mark.parametrize("values", [[TEXT, 0.7310585], [Entry(), 1.0]], ids=["text", "entry"])
def test_range_template_refuses_values_that_are_no_numbers_quoting_none(values):
    template = RangeTemplate(values, 2, (0.1, 0.9), refine=False)
    refused(ParameterError, lambda: template.cell_counts)


@pytest.mark.parametrize("value", [7310585, 0.7310585], ids=["int", "float"])
def test_a_single_value_is_no_column(value):
    """A scalar would be read as a column of one record: refused by name, with the fix."""
    calls = [lambda: RangeTemplate(value, 4, (0.1, 0.9), refine=False),
             lambda: RangeTemplate(lambda: value, 4, (0.1, 0.9), refine=False).cell_counts,
             lambda: VocabularyTemplate(value, 4),
             lambda: bounds.release_vocabulary(value, dp.Budget(1.0, 1e-6), rng=0),
             lambda: bounds.release_range(value, dp.Budget(1.0), rng=0)]
    for call in calls:
        err = refused(ParameterError, call)
        assert f"the values are a single {type(value).__name__}" in str(err)
        assert "Pass a 1-D column" in str(err)


@pytest.mark.parametrize("name", [["huber"], {"huber": 1}, 3, None], ids=["list", "dict", "int",
                                                                      "None"])
def test_get_regression_loss_refuses_a_name_that_is_no_text_by_name(name):
    err = refused(ParameterError, get_regression_loss, name, (0.0, 1.0))
    assert "must be one of ['huber', 'pinball', 'squared']" in str(err)
