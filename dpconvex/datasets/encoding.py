"""Functional encoders over a public schema, for columns already split by kind.

:func:`encode` takes the numeric columns and the vocabulary codes of a table
(:func:`category_codes`) and returns the rows of
:class:`~dpconvex.data.encoder.PublicEncoder` for the same schema (the shared
last step, :func:`~dpconvex.data.encoder.encode_parts`). The map reads only the
record itself and constants written in the schema, never a statistic of the loaded data
(docs/privacy/row_scaling.md#privacy-public-schemas).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .._validation import _short_repr, check_numeric_dtype
from ..data.encoder import encode_parts
from ..data.schema import PublicSchema
from ..errors import ParameterError

__all__ = ["category_codes", "encode"]


def _numeric_column(values: object, column: str, caller: str) -> np.ndarray:
    """A column of raw numbers as a new float64 array: real numbers only, no NaN."""
    name = f"column {column!r}"
    try:
        raw = np.asarray(values)
    except (TypeError, ValueError) as exc:  # ragged nested sequences
        raise ParameterError(f"{caller}: {name} must be an array of real numbers ({exc}).") from None
    check_numeric_dtype(raw, caller, name)
    try:
        x = np.array(raw, dtype=np.float64, copy=True)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ParameterError(f"{caller}: {name} must hold real numbers that fit in float64 "
                             f"({exc}).") from None
    if x.ndim != 1:
        raise ParameterError(f"{caller}: column {column!r} must be 1-D (one value per record); "
                             f"got shape {x.shape}.")
    if np.any(np.isnan(x)):
        raise ParameterError(f"{caller}: column {column!r} has missing (NaN) values; drop those "
                             "records first (a per-record rule) or impute a public value.")
    return x


def category_codes(values: Sequence[object], vocabulary: Sequence[object]) -> np.ndarray:
    """Index of each value in the public vocabulary, -1 if it is not listed.

    Parameters
    ----------
    values : sequence
        One value per record (str or bytes, like the vocabulary).
    vocabulary : sequence
        The public list of categories, in one-hot order.

    Returns
    -------
    ndarray of shape (len(values),), dtype intp
    """
    index = {cat: i for i, cat in enumerate(vocabulary)}
    return np.fromiter((index.get(v, -1) for v in values), dtype=np.intp, count=len(values))


def encode(
    schema: PublicSchema,
    numeric_values: Mapping[str, np.ndarray],
    codes: Mapping[str, np.ndarray] | None = None,
) -> np.ndarray:
    """Assemble the scaled, one-hot encoded, norm-bounded design matrix.

    Parameters
    ----------
    schema : PublicSchema
        The public encoding (:class:`~dpconvex.data.schema.PublicSchema`, without
        binary columns).
    numeric_values : mapping of str to array
        The raw values of every numeric column of ``schema`` (one per record).
    codes : mapping of str to int array, optional
        For every categorical column, each record's index into its vocabulary,
        or -1 for a value outside it (the "other" slot, else an all-zero block); see
        :func:`category_codes`.

    Returns
    -------
    ndarray of shape (n_records, schema.n_features), dtype float64
        Every row has Euclidean norm at most 1.

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import Categorical, Numeric, PublicSchema
    >>> from dpconvex.datasets import encode
    >>> from dpconvex.datasets.encoding import category_codes
    >>> schema = PublicSchema({"age": Numeric(0, 100), "plan": Categorical(("basic", "pro"))})
    >>> codes = category_codes(["pro", "gold"], ("basic", "pro"))
    >>> codes.tolist()
    [1, -1]
    >>> X = encode(schema, {"age": np.array([30.0, 150.0])}, {"plan": codes})
    >>> (X * schema.divisor).round(2).tolist()  # 150 clipped to 100; "gold" in the other slot
    [[0.3, 0.0, 1.0, 0.0], [1.0, 0.0, 0.0, 1.0]]
    >>> bool(np.linalg.norm(X, axis=1).max() <= 1.0)
    True
    """
    owner = "encode"
    if not isinstance(schema, PublicSchema):
        raise ParameterError(f"The 'schema' parameter of {owner} must be a PublicSchema. Got "
                             f"{_short_repr(schema)} instead.")
    if schema.binary:
        raise ParameterError(f"encode: the schema has binary column(s) {list(schema.binary)!r}; "
                             "encode such a table with dpconvex.PublicEncoder(schema).")
    codes = {} if codes is None else codes
    for name, table, needed in (("numeric_values", numeric_values, schema.numeric),
                                ("codes", codes, schema.categories)):
        if not isinstance(table, Mapping):
            raise ParameterError(f"The '{name}' parameter of {owner} must be a mapping keyed by "
                                 f"column name. Got {_short_repr(table)} instead.")
        missing = [c for c in schema.columns if c in needed and c not in table]
        if missing:
            raise ParameterError(f"encode: '{name}' has no values for column(s) {missing!r}; "
                                 "pass every column of the schema.")
    lengths = {len(np.atleast_1d(numeric_values[c])) for c in schema.columns if c in schema.numeric}
    lengths |= {len(np.atleast_1d(codes[c])) for c in schema.columns if c in schema.categories}
    if len(lengths) != 1:
        raise ParameterError("encode: the columns have different numbers of records "
                             f"({sorted(lengths)}), or the schema has no feature column.")
    numeric = {c: _numeric_column(numeric_values[c], c, owner) for c in schema.numeric}
    checked = {}
    for col in schema.categories:
        c = np.asarray(codes[col])
        if c.dtype.kind not in "iu" or c.ndim != 1 or np.any(c >= len(schema.categories[col])):
            raise ParameterError(
                f"encode: the codes of {col!r} must be a 1-D int array of indices into its "
                "vocabulary (-1 for a value outside it); see category_codes.")
        checked[col] = c
    return encode_parts(schema, numeric, checked)
