"""Reading a raw table column by column: names, values, dtypes and missing values.

The shared reading of :class:`dpconvex.data.encoder.PublicEncoder` and
:func:`dpconvex.data.schema_draft.draft_schema`: a pandas DataFrame, a mapping
of column name to values or a 2-D array, taken apart into its columns, each
column's dtype read for what it can hold.
"""

from __future__ import annotations

import decimal
from collections.abc import Mapping
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._validation import (
    _reject_masked,
    conversion_failure,
    feature_names_of,
    is_dask_collection,
)
from ..errors import DataTypeError, DataValidationError

__all__ = [
    "category_texts",
    "column_array",
    "dtype_kind",
    "integer_text",
    "is_missing",
    "number_values",
    "table_columns",
    "table_header",
    "unnamed_frame_labels",
]


def is_missing(v: Any) -> bool:
    """Whether one value of a column is missing: None, a float NaN, pandas ``NA`` or ``NaT``."""
    if v is None:
        return True
    if isinstance(v, float | np.floating):
        return bool(np.isnan(v))
    t = type(v)
    return t.__module__.startswith("pandas") and t.__name__ in ("NAType", "NaTType")


def _number(v: Any) -> float:
    """One value as a float: NaN when it is missing or is not a number (text that does not parse)."""
    if is_missing(v):
        return np.nan
    if isinstance(v, bytes):
        v = v.decode("utf-8", "replace")
    try:
        return float(v)
    except (TypeError, ValueError, OverflowError):
        return np.nan


def number_values(values: np.ndarray) -> np.ndarray:
    """A column's values as float64, each value alone: missing or not a number gives NaN.

    A value is parsed by itself (``float(value)``; text such as ``"23"`` or ``" 4.5"`` is a
    number, ``"unknown"``, ``""`` and ``"NA"`` are not), so a record's number never depends
    on the other records or on the dtype a reader gave the column.

    Examples
    --------
    >>> from dpconvex.data.tables import number_values
    >>> number_values(np.array(["23", "unknown", None, 41], dtype=object)).tolist()
    [23.0, nan, nan, 41.0]
    """
    if values.dtype.kind in "biuf":  # a long double beyond float64: at its end, without a warning
        big = np.finfo(np.float64).max
        return (np.clip(values, -big, big) if values.dtype.itemsize > 8 else values).astype(
            np.float64
        )
    return np.fromiter((_number(v) for v in values.tolist()), dtype=np.float64, count=len(values))


def _category_text(v: Any) -> str | None:
    """One value's text as a category; None when it is missing."""
    if is_missing(v):
        return None
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, str):
        return v
    if isinstance(v, bool | np.bool_):
        return str(bool(v))
    if isinstance(v, int | np.integer):
        return integer_text(int(v))
    if isinstance(v, float | np.floating):
        f = float(v)
        return integer_text(int(f)) if f.is_integer() else str(f)
    return str(v)


def integer_text(i: int) -> str:
    """The decimal text of an integer at any number of digits (``str`` refuses more than 4,300).

    Examples
    --------
    >>> from dpconvex.data.tables import integer_text
    >>> integer_text(10**16), len(integer_text(10**5000))
    ('10000000000000000', 5001)
    """
    return str(decimal.Decimal(i))


def category_texts(values: np.ndarray) -> list[str | None]:
    """Each value's text as a category, each value alone (None where it is missing).

    A whole number has the text of an integer whatever its dtype and size (``3``, ``3.0`` and ``"3"`` all give
    ``"3"``, ``1e16`` gives ``"10000000000000000"``): a column of codes that a reader makes float because one
    record is missing keeps the codes' text (codes beyond 2⁵³, which a float cannot hold, change value: read
    such codes as text). Other values give ``str(value)``.

    Examples
    --------
    >>> from dpconvex.data.tables import category_texts
    >>> category_texts(np.array([3.0, np.nan, 2.5]))
    ['3', None, '2.5']
    """
    return [_category_text(v) for v in values.tolist()]


def _entry_kind(v: Any) -> str:
    """What one entry of a sequence is, for NumPy's promotion: bool, int, float or other."""
    if isinstance(v, bool | np.bool_):
        return "bool"
    if isinstance(v, int | np.integer):
        return "int"
    return "float" if isinstance(v, float | np.floating) else "other"


def _as_given(values: np.ndarray, source: Any) -> np.ndarray:
    """``values``, NumPy's reading of the sequence ``source``; where NumPy changed the type of entries
    to the one other entries force (text: ``[1.0, "x"]`` gives ``["1.0", "x"]``, a NaN ``"nan"``;
    numbers: ``[True, 2]`` gives ``[1, 2]``, ``[[1.0, True]]`` a bool as 1.0, ``[2**60 + 1, 0.5]``
    and ``[2**60 + 1, 2**63]`` an int rounded to a float), an object array of the entries as given
    instead, so that no record's type changes how another record's value reads."""
    # an object that converts itself: its own reading
    if isinstance(source, np.ndarray) or hasattr(source, "dtype") or hasattr(source, "__array__") \
            or values.dtype.kind not in "USbiuf":
        return values
    out = np.empty(values.shape, dtype=object)
    out[...] = source if values.ndim == 1 else [list(row) for row in source]
    entries = out.ravel().tolist()
    if values.dtype.kind in "US":
        text = str if values.dtype.kind == "U" else bytes
        return values if all(isinstance(v, text) for v in entries) else out
    kinds = {_entry_kind(v) for v in entries}
    kept = {"bool": "b", "int": "iu", "float": "f"}.get(kinds.pop(), "") if len(kinds) == 1 else ""
    return values if values.dtype.kind in kept else out


def _is_arrow(column: Any) -> bool:
    """Whether ``column`` is a pyarrow array (or chunked array), told without importing
    pyarrow."""
    return type(column).__module__.split(".")[0] == "pyarrow"


def column_array(column: Any, entries: bool = True) -> np.ndarray:
    """One column's values as a NumPy array; integers stay integers when values are missing.

    A column with ``to_numpy`` (a pandas Series, a pyarrow array: its text and missing values
    copied) is read by it. A pandas integer or bool column with missing values (nullable
    ``Int64``, ``boolean``, a ``category`` of integers) gives floats in ``to_numpy()``, whose
    text (``'1.0'``) no longer matches a vocabulary of codes; it is read as an object array of
    its values instead (missing values as NaN or ``pd.NA``). A sequence that mixes text with other
    values is an object array of its values as given (:func:`_as_given`); with ``entries``
    False it is NumPy's reading of it, without that walk over its entries (the dtype
    differs only where the reading of the entries is object).
    """
    dtype = getattr(column, "dtype", None)
    if hasattr(column, "to_numpy"):
        # a pyarrow array copies text and missing values only where it is asked to
        copies = {"zero_copy_only": False} if _is_arrow(column) else {}
        values = np.asarray(column.to_numpy(**copies))
    else:
        values = np.asarray(column)
    if entries:
        values = _as_given(values, column)
    if dtype is not None and not isinstance(dtype, np.dtype) and values.dtype.kind not in "biu" \
            and dtype_kind(dtype) in ("int", "bool") and hasattr(column, "astype"):
        values = np.asarray(column.astype(object))
    return values


def _refuse_collections(X: Any, caller: str) -> None:
    """Refuse a Dask collection and a sparse matrix (``caller`` opens the messages)."""
    if is_dask_collection(X):
        first = ("draft the schema on rows in memory (df.compute(), or a sample of the rows), "
                 "then encode" if caller.startswith("draft_schema") else "encode")
        raise DataTypeError(
            f"{caller}: got a Dask collection; {first} a Dask DataFrame partition by "
            "partition with dpconvex.datasets.dask_loaders.from_dataframe(df, schema)."
        )
    if sp.issparse(X):
        raise DataTypeError(
            f"{caller}: takes a table of raw columns (a pandas DataFrame, a mapping "
            "of columns or a 2-D array), not a sparse matrix."
        )


def _is_frame(X: Any) -> bool:
    """Whether X is read as a data frame: named columns, taken by position."""
    return hasattr(X, "columns") and hasattr(X, "iloc") and getattr(X, "ndim", 2) == 2


def _mapping_names(X: Mapping, caller: str) -> list[str]:
    """The keys of a mapping of columns, refused unless they are all column names (str)."""
    names = list(X)
    if not all(isinstance(n, str) for n in names):
        raise DataTypeError(
            f"{caller}: the keys of a mapping of columns must be column names (str)."
        )
    return names


def _frame_names(X: Any, caller: str) -> list[str] | None:
    """A data frame's column names (None: not all strings), refused when a name repeats."""
    names = feature_names_of(X, caller)
    names = None if names is None else [str(n) for n in names]
    # public
    if names is not None and (repeated := sorted({n for n in names if names.count(n) > 1})):
        raise DataValidationError(
            f"{caller}: the table repeats column name(s) {repeated!r}; name "
            "each column once (declarations and budgets go by name)."
        )
    return names


def unnamed_frame_labels(X: Any) -> str | None:
    """What the column labels of a data frame are where none is a str (a pandas
    ``MultiIndex``, ints): such a frame's columns are read by position. None for a frame
    with str names, and for anything that is not a data frame (an array, a mapping).

    Reads the labels alone (public facts, as the names are), never a value.

    Parameters
    ----------
    X : object
        The table.

    Returns
    -------
    str or None
        The labels described by their kind (``"a MultiIndex"``, ``"int labels"``),
        or None.

    Examples
    --------
    >>> import pandas as pd
    >>> from dpconvex.data.tables import unnamed_frame_labels
    >>> unnamed_frame_labels(pd.DataFrame([[1, 2]]))
    'int labels'
    >>> frame = pd.DataFrame([[1, 2]], columns=pd.MultiIndex.from_tuples([("x", "a"), ("x", "b")]))
    >>> unnamed_frame_labels(frame)
    'a MultiIndex'
    >>> unnamed_frame_labels(pd.DataFrame({"a": [1]})) is None
    True
    """
    if not _is_frame(X) or isinstance(X, np.ndarray):
        return None
    try:
        labels = list(X.columns)
    except TypeError:
        labels = []
    if not labels or any(isinstance(v, str) for v in labels):
        return None
    if type(X.columns).__name__ == "MultiIndex":
        return "a MultiIndex"
    kinds = sorted({type(v).__name__ for v in labels})
    return f"{', '.join(kinds)} labels"


def _mapping_column(column: Any, name: str, caller: str, entries: bool = True) -> np.ndarray:
    """One column of a mapping read by :func:`column_array` (``entries`` passed on), refused
    unless it is 1-D."""
    _refuse_column_kind(column, name, caller)
    _reject_masked(column, caller, f"column {name!r}")
    try:
        v = column_array(column, entries)
    except (TypeError, ValueError) as exc:
        failure: type[BaseException] | None = type(exc)
    else:
        failure = None
    if failure is not None:  # raised after the handler: no context holds NumPy's text
        raise DataValidationError(
            f"{caller}: column {name!r} is not an array: {conversion_failure(failure)}.")
    _refuse_not_1d(v.shape, name, caller)
    return v


def _refuse_column_kind(column: Any, name: str, caller: str) -> None:
    """Refuse a column of a mapping that is a Dask collection (its values are not in
    memory: reading it is a pass over data nobody asked for) or a sparse matrix."""
    if is_dask_collection(column):
        raise DataTypeError(
            f"{caller}: column {name!r} is a Dask collection; pass its values in memory "
            "(column.compute()), or encode a Dask DataFrame partition by partition with "
            "dpconvex.datasets.dask_loaders.from_dataframe(df, schema).")
    if sp.issparse(column):
        raise DataValidationError(
            f"{caller}: column {name!r} is a sparse matrix; pass a column as 1-D values "
            "(one value per record), e.g. column.toarray().ravel().")


def _refuse_not_1d(shape: tuple[int, ...], name: str, caller: str) -> None:
    """Refuse a column of a mapping whose shape is not one value per record."""
    if len(shape) != 1:
        raise DataValidationError(f"{caller}: column {name!r} must be 1-D (one value per "
                                  f"record); got shape {shape}.")


def _array_table(X: Any, caller: str, entries: bool = True) -> np.ndarray:
    """X, neither a mapping nor a data frame, as the 2-D array of its values (a NumPy array
    itself; a sequence as :func:`_as_given` reads it, or as ``np.asarray`` does where
    ``entries`` is False), refused unless it is 2-D and wide."""
    _reject_masked(X, caller, "X")
    try:
        A = np.asarray(X)
    except (TypeError, ValueError) as exc:  # ragged nested sequences
        failure: type[BaseException] | None = type(exc)
    else:
        failure = None
    if failure is not None:  # raised after the handler: no context holds NumPy's text
        raise DataValidationError(
            f"{caller}: X must be a 2-D table: {conversion_failure(failure)}.")
    if A.ndim == 2 and entries:
        A = _as_given(A, X)
    if A.ndim != 2:
        fix = (" A 1-D X is one column: pass X.reshape(-1, 1), or series.to_frame() for a "
               "pandas Series." if A.ndim == 1 else "")
        raise DataValidationError(
            f"{caller}: X must be 2-D (one row per record, one column per "
            f"schema column); got shape {A.shape}. Reshape your data.{fix}"
        )
    if A.shape[1] == 0:
        raise DataValidationError(
            f"{caller}: X has 0 feature(s) (shape={A.shape}) while a minimum of 1 is required."
        )
    return A


def _refuse_empty(n: int, width: int, caller: str) -> None:
    """Refuse a table without records or without columns."""
    if width == 0 or n == 0:
        raise DataValidationError(f"{caller}: X has no records or no columns.")


def table_columns(X: Any, caller: str) -> tuple[list[str] | None, list[np.ndarray], list[Any]]:
    """(names, columns, dtypes) of a table: a pandas DataFrame, a mapping of column name to
    1-D values, or a 2-D array-like (``caller`` opens the messages).

    ``names`` is None for an array or a frame without string column names; each column's
    values come from :func:`column_array`; the dtypes are the table's own (a pandas
    ``category``, ``string`` or ``Int64`` column keeps its dtype), for the encoder's check
    against the declarations. Sparse matrices, Dask collections (as X or as a column of a
    mapping), masked arrays with masked entries and tables without rows are refused with
    named errors (those of :func:`table_header`, which reads the names, length and dtypes
    without the values).
    """
    _refuse_collections(X, caller)
    if isinstance(X, Mapping):
        names = _mapping_names(X, caller)
        cols = [_mapping_column(X[n], n, caller) for n in names]
        dtypes = [getattr(X[n], "dtype", v.dtype) for n, v in zip(names, cols, strict=True)]
        if len({len(v) for v in cols}) > 1:
            raise DataValidationError(f"{caller}: the columns have different numbers of records.")
    elif _is_frame(X):
        names = _frame_names(X, caller)
        try:
            series = [X.iloc[:, k] for k in range(X.shape[1])]
            cols = [column_array(c) for c in series]
        except (TypeError, ValueError) as exc:
            failure: type[BaseException] | None = type(exc)
        else:
            failure = None
        if failure is not None:  # raised after the handler: no context holds pandas' text
            raise DataValidationError(
                f"{caller}: cannot read the columns of X: {conversion_failure(failure)}.")
        dtypes = [c.dtype for c in series]
    else:
        A = _array_table(X, caller)
        names, cols = None, [A[:, k] for k in range(A.shape[1])]
        dtypes = [A.dtype] * A.shape[1]
    _refuse_empty(len(cols[0]) if cols else 0, len(cols), caller)
    return names, cols, dtypes


def table_header(X: Any, caller: str, *, entries: bool = True
                 ) -> tuple[list[str] | None, int, list[Any]]:
    """(names, number of records, dtypes) of a table, read as :func:`table_columns` reads
    it and refused as it refuses it, without reading the values where the table has them
    typed (``caller`` opens the messages).

    A pandas DataFrame gives its names, ``len(X)`` and ``list(X.dtypes)``, and a NumPy
    array its shape and dtype, with no value read or copied; a column of a mapping that has
    a dtype (a NumPy array, a pandas Series) gives its ``dtype``, ``shape`` and ``len``.
    Only what has no dtype is converted, as :func:`table_columns` converts it (its values
    are read to know their type): a sequence (a list of rows, a list as a column of a
    mapping, read by :func:`column_array`) and an array-like that is not a NumPy array
    (``np.asarray``). A column of a mapping that is a Dask collection or a sparse matrix is
    refused by name, as :func:`table_columns` refuses it. With ``entries``
    False a sequence's dtype is NumPy's reading of it, without the walk over its entries that
    makes it an object column where entries of different types would change each other's
    value (:func:`_as_given`): the dtype differs from :func:`table_columns`'s only where that
    one is object.

    Examples
    --------
    >>> import pandas as pd
    >>> from dpconvex.data.tables import table_header
    >>> table_header(pd.DataFrame({"a": [1.0, 2.0], "b": [3, 4]}), "Demo.plan_for")
    (['a', 'b'], 2, [dtype('float64'), dtype('int64')])
    >>> table_header([[1, 2], [3, 4], [5, 6]], "Demo.plan_for")
    (None, 3, [dtype('int64'), dtype('int64')])
    """
    _refuse_collections(X, caller)
    if isinstance(X, Mapping):
        names = _mapping_names(X, caller)
        lengths, dtypes = [], []
        for n in names:
            column = X[n]
            _refuse_column_kind(column, n, caller)
            if hasattr(column, "dtype") and isinstance(getattr(column, "shape", None), tuple):
                _reject_masked(column, caller, f"column {n!r}")  # typed: its header alone
                _refuse_not_1d(column.shape, n, caller)
                lengths.append(len(column))
                dtypes.append(column.dtype)
            else:
                values = _mapping_column(column, n, caller, entries)
                lengths.append(len(values))
                dtypes.append(values.dtype)
        if len(set(lengths)) > 1:
            raise DataValidationError(f"{caller}: the columns have different numbers of records.")
        n_records = lengths[0] if lengths else 0
    elif _is_frame(X):
        names = _frame_names(X, caller)
        n_records, dtypes = len(X), list(X.dtypes)
    else:
        A = _array_table(X, caller, entries)
        names, n_records, dtypes = None, A.shape[0], [A.dtype] * A.shape[1]
    _refuse_empty(n_records, len(dtypes), caller)
    return names, n_records, dtypes


def dtype_kind(dtype: Any) -> str:
    """What a column's values are, read from its dtype alone (never from the values).

    One of ``"bool"``, ``"int"`` (NumPy and nullable pandas integers), ``"float"``, ``"complex"``, ``"time"``
    (datetime64 with or without a time zone, timedelta64, pandas periods), ``"text"`` (NumPy str and bytes,
    pandas ``str`` and ``string``) or ``"object"``. A pandas ``category`` column is what its categories are.
    An object column can hold anything (text, numbers, both), so its dtype proves nothing: it is ``"object"``,
    and so is any dtype not listed here (intervals, ...).
    """
    categories = getattr(dtype, "categories", None)
    if categories is not None and getattr(dtype, "name", None) == "category":
        return dtype_kind(categories.dtype)
    name = str(getattr(dtype, "name", ""))
    kind = getattr(dtype, "kind", "O")
    if name in ("str", "string") or name.startswith("string"):
        return "text"
    if name.startswith("period"):
        return "time"
    return {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "complex", "M": "time",
            "m": "time", "U": "text", "S": "text"}.get(kind, "object")
