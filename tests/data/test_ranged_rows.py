"""Encoded rows that carry their public per-feature ranges: which operations keep them."""

import pickle

import numpy as np
import pandas as pd

import dpconvex as dp
from dpconvex.data.ranged_rows import RangedRows, rows_feature_range


def _rows():
    schema = dp.PublicSchema({"a": dp.Numeric(0, 10), "c": dp.Categorical(("x", "y"))})
    df = pd.DataFrame({"a": [1.0, 5.0, 9.0, 3.0], "c": ["x", "y", "y", "x"]})
    return dp.PublicEncoder(schema).fit_transform(df), schema


def test_the_encoder_rows_carry_the_schemas_encoded_range():
    rows, schema = _rows()
    np.testing.assert_array_equal(rows_feature_range(rows), np.column_stack(schema.encoded_range()))
    unit = dp.PublicEncoder(schema, row_norm="unit").fit_transform(
        pd.DataFrame({"a": [1.0], "c": ["x"]}))
    assert rows_feature_range(unit) is None  # rescaled rows leave the schema's ranges


def test_selecting_rows_keeps_the_ranges_anything_else_drops_them():
    rows, _ = _rows()
    ranges = rows_feature_range(rows)
    for kept in (rows[1:3], rows[[0, 2]], rows[rows[:, 0] > 0.1], rows[::2, :], rows.copy(),
                 pickle.loads(pickle.dumps(rows))):
        np.testing.assert_array_equal(rows_feature_range(kept), ranges)
    for dropped in (rows[:, :2], rows[:, [2, 1, 0]], rows * 2, rows.T, np.transpose(rows),
                    rows.swapaxes(0, 1), np.asarray(rows),
                    rows[0], rows.sum(axis=0)):
        assert rows_feature_range(dropped) is None


def test_the_ranges_are_read_only():
    rows = RangedRows(np.zeros((2, 1)), [[0.0, 1.0]])
    assert not rows.feature_range.flags.writeable
