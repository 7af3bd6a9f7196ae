"""The encoder: a table mapped record by record by a public schema (:class:`PublicEncoder`).

Each column is mapped as its declaration in :mod:`dpconvex.data.schema` says, and every row
divided by the public :func:`~dpconvex.data.schema.norm_divisor`, so ``||x|| <= 1`` for every
possible record (times ``data_norm``). No step reads another record or a statistic of the
data, so replacing one record changes one row and nothing else
(docs/privacy/row_scaling.md#privacy-public-schemas).
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin

from .._validation import (
    CheckedParamNames,
    _short_repr,
    check_feature_names,
    check_fitted,
    check_float,
    check_numeric_dtype,
    conversion_failure,
    dtype_shown,
    feature_names_of,
    is_dask_collection,
    with_feature_names,
)
from ..errors import (
    DataTypeError,
    DataValidationError,
    NotFittedError,
    ParameterError,
    PrivacyLeakWarning,
    user_stacklevel,
)
from .ranged_rows import RangedRows
from .row_scaling import check_row_norm, normalize_rows
from .schema import OTHER, PublicSchema, UniformSchema, _names_shown, check_shipped_schema
from .tables import (
    dtype_kind,
    integer_text,
    is_missing,
    table_columns,
    table_header,
    unnamed_frame_labels,
)

__all__ = ["PublicEncoder", "category_codes", "check_columns", "check_table_columns", "encode",
           "encode_parts"]

_SUGGESTED_TEXT = (
    "PublicEncoder was given a schema drafted by draft_schema from data: its ranges and "
    "vocabularies are "
    "statistics of that data, so this encoding is not covered by any privacy guarantee. Review "
    "the "
    "draft, print(schema.to_code()), and use the reviewed schema written in your code instead."
)


#: What a column of each dtype kind holds, for messages.
_KIND_TEXT = {"bool": "bools", "complex": "complex numbers",
              "time": "dates or time spans", "text": "text"}


def _number_text(text: str | bytes, kind: str) -> bool:
    """Whether ``text`` is a text some value of a bool, int or float column matches
    (:func:`_texts`: a number matches its int and its float text alike)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if kind == "bool":
        return text in ("True", "False")
    for convert in (int, float):
        try:
            if str(convert(text)) == text:
                return True
        except (ValueError, OverflowError):
            pass
    return False


def _texts(v: Any) -> tuple[str, ...]:
    """The texts a value that is not text matches: ``str(v)``, and for an integral number also
    its other form ("1" and "1.0"), so that whether missing values made the column float (a
    fact of the other records) changes no record's encoding."""
    text = (
        integer_text(int(v))
        if isinstance(v, (int, np.integer)) and not isinstance(v, bool)
        else str(v)
    )
    try:
        if isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) and \
                math.isfinite(v) and float(v).is_integer():
            # (-0.0 matches "0" and "0.0" too)
            return text, integer_text(int(v)), str(float(int(v)))
    except OverflowError:  # an int beyond the float range: its own text only
        pass
    return (text,)


def _binary_text_message(caller: str, column: str, positive: Any, holds: str) -> str:
    """The refusal of a numeric positive value for a column of text (one message for both checks)."""
    return (
        f"{caller}: binary column {column!r} holds {holds}, but its positive value "
        f"{_short_repr(positive)} is a number, which no text equals: every record would be 0. "
        "Declare Binary(positive=...) with the text that means yes, e.g. Binary(positive=\"yes\")."
    )


def _check_dtype(schema: PublicSchema, column: str, dtype: Any, caller: str) -> None:
    """Refuse a declaration that no value of the column's dtype can match, from the dtype alone.

    Reads the dtype and the public declaration only (no value, no statistic of the data):
    a Numeric column of text or dates, a vocabulary or positive value that is not the text
    of any value of a bool/int/float column, a numeric positive value over text, and dates
    declared as categories are refused (:class:`DataTypeError` naming the fix). An object
    column passes here; the value checks that follow refuse what they can.
    """
    kind = dtype_kind(dtype)
    # numbers whatever their dtype (a reader makes a column of codes float when one value is missing)
    holds = "numbers" if kind in ("int", "float") else \
        f"{_KIND_TEXT.get(kind, 'objects')} (dtype {dtype_shown(dtype)})"
    if column in schema.numeric:
        if kind == "text":
            raise DataTypeError(
                f"{caller}: column {column!r} is declared Numeric but holds {holds}, and dpconvex "
                "does not read numbers from text. Declare it Categorical(...) with its public "
                "vocabulary, or convert it to numbers yourself first (e.g. pandas.to_numeric).")
        if kind == "time":
            raise DataTypeError(
                f"{caller}: column {column!r} is declared Numeric but holds {holds}; convert it "
                "to "
                "numbers with a public map first (e.g. days since a fixed date)."
            )
        lo, hi = schema.numeric[column]
        if kind == "bool" and (hi <= 0 or lo >= 1):
            raise DataTypeError(
                f"{caller}: column {column!r} holds {holds}, read as 0 and 1, but its Numeric "
                f"range [{lo:g}, {hi:g}] clips both to one value, so every record would encode "
                "alike. Declare it Binary(positive=True).")
        return
    if kind == "time" and (column in schema.categories or column in schema.binary):
        raise DataTypeError(
            f"{caller}: column {column!r} holds {holds}, which are not compared as categories; "
            "convert them to text with a public format first (e.g. df[col].dt.strftime('%Y-%m')) "
            "or to numbers and declare Numeric(...).")
    if column in schema.categories and kind in ("bool", "int", "float"):
        vocabulary = schema.categories[column]
        never = [v for v in vocabulary if not _number_text(v, kind)]
        if never and len(never) == len(vocabulary):  # (an entry no value matches is harmless)
            fix = ("Declare it Binary(positive=True), or Categorical((\"False\", \"True\"))."
                   if kind == "bool" else
                   "Map the codes to the public vocabulary first (e.g. df[col].map({0: 'basic', "
                   "1: 'plus', ...}) from the code list), or declare the codes' text as the "
                   "vocabulary, Categorical((\"0\", \"1\", ...)).")
            raise DataTypeError(
                f"{caller}: categorical column {column!r} holds {holds}, which are compared with "
                f"the vocabulary as text, and no vocabulary entry ({_short_repr(never)}) is the "
                "text "
                f"of any such value: every record would go to the '{OTHER}' slot. {fix}"
            )
    if column in schema.binary:
        positive = schema.binary[column]
        if isinstance(positive, str):
            if kind in ("bool", "int", "float") and not _number_text(positive, kind):
                raise DataTypeError(
                    f"{caller}: binary column {column!r} holds {holds}, which are compared with "
                    "the "
                    f"positive value {_short_repr(positive)} as text, and no such value has that "
                    "text: "
                    "every record would be 0. Declare the positive value as the number (or bool) "
                    "that means yes, e.g. Binary(positive=1)."
                )
        elif kind == "text":
            raise DataTypeError(_binary_text_message(caller, column, positive, holds))
        elif (kind == "bool" and positive not in (0, 1)) or (
                kind == "int" and isinstance(positive, float) and not positive.is_integer()):
            raise DataTypeError(
                f"{caller}: binary column {column!r} holds {holds}, and none of them equals the "
                f"positive value {_short_repr(positive)}: every record would be 0. Declare the "
                "value "
                "that means yes, e.g. Binary(positive=1) (or positive=True for bools)."
            )


def _numeric_values(values: np.ndarray, column: str, caller: str) -> np.ndarray:
    """A column of real numbers as a new float64 array; NaN and infinities refused."""
    check_numeric_dtype(values, caller, f"column {column!r}")
    try:
        x = np.array(values, dtype=np.float64, copy=True)
    except (TypeError, ValueError, OverflowError):
        converted = False
    else:
        converted = True
    if not converted:  # raised after the handler: no context holds NumPy's text
        raise DataValidationError(
            f"{caller}: column {column!r} must hold real numbers that fit in float64.")
    if not np.all(np.isfinite(x)):  # the message counts nothing (a data statistic)
        raise DataValidationError(
            f"{caller}: column {column!r} contains NaN, infinite values or numbers beyond float64 "
            "(about "
            "1.8e308). Drop those records or fill them with a public value first (a value "
            "computed from "
            "the data costs privacy), or rescale the column with a public constant."
        )
    return x


def category_codes(values: Sequence[Any], vocabulary: Sequence[Any]) -> np.ndarray:
    """Index of each value in the public vocabulary (one-hot order), -1 if it is not listed.

    Values and categories are str or bytes (bytes match their text); any other value is
    compared as ``str(value)``, a missing one is -1. Returns an intp array of len(values).

    Parameters
    ----------
    values : sequence
        One value per record.
    vocabulary : sequence
        The public categories, in one-hot order.

    Returns
    -------
    ndarray of intp

    Examples
    --------
    >>> from dpconvex.data.encoder import category_codes
    >>> category_codes(["a", "z", None, b"b"], ["a", "b"]).tolist()
    [0, -1, -1, 1]
    """
    index: dict[Any, int] = {cat: i for i, cat in enumerate(vocabulary)}
    for i, cat in enumerate(vocabulary):
        alias = cat.encode("utf-8") if isinstance(cat, str) else cat.decode("utf-8", "replace")
        index.setdefault(alias, i)
    get = index.get

    def code(v: Any) -> int:
        return (get(v, -1) if isinstance(v, (str, bytes)) else -1 if is_missing(v)
                else next((index[t] for t in _texts(v) if t in index), -1))

    if isinstance(values, np.ndarray) and values.dtype.kind in "biuf":  # once per distinct value
        distinct, inverse = np.unique(values, return_inverse=True)
        return np.fromiter(map(code, distinct.tolist()), dtype=np.intp, count=len(distinct))[
            inverse
        ]
    seq = values.tolist() if isinstance(values, np.ndarray) else values
    return np.fromiter(map(code, seq), dtype=np.intp, count=len(seq))


def _binary_values(values: np.ndarray, positive: Any, column: str, caller: str) -> np.ndarray:
    """1.0 where a value equals ``positive``, else 0.0; missing values refused."""
    kind = values.dtype.kind
    if kind in "biuf" and not isinstance(positive, str):
        if kind == "f" and np.any(np.isnan(values)):
            raise DataValidationError(
                f"{caller}: binary column {column!r} contains missing (NaN) "
                "values; drop those records or fill them with a public value first."
            )
        return (values == positive).astype(np.float64)
    seq = values.tolist()
    out = np.empty(len(seq), dtype=np.float64)
    for i, v in enumerate(seq):
        if is_missing(v):
            raise DataValidationError(
                f"{caller}: binary column {column!r} contains missing values "
                "(None, NaN, pandas NA); drop those records or fill them "
                "with a public value first."
            )
        if isinstance(positive, str):
            out[i] = (v == positive if isinstance(v, str) else
                      v.decode("utf-8", "replace") == positive if isinstance(v, bytes) else
                      positive in _texts(v))
        elif isinstance(v, (str, bytes)):
            raise DataTypeError(_binary_text_message(caller, column, positive, "text"))
        else:
            out[i] = v == positive
    return out


# ------------------------------------------------------- The per-record map

def _scale_numeric(x: np.ndarray, lo: float, hi: float, log: bool) -> np.ndarray:
    """Clip ``x`` to ``[lo, hi]`` and map it onto ``[0, 1]`` (on a copy)."""
    x = np.clip(x, lo, hi)
    x -= lo
    if log:
        np.log1p(x, out=x)
        x /= math.log1p(hi - lo)
    else:
        x /= hi - lo
    return x


def _unnamed_labels_error(caller: str, unnamed: str, *, by_position: bool) -> DataValidationError:
    """The refusal of a data frame whose column labels are ``unnamed`` (a MultiIndex, ints),
    not the str names of a named schema; ``by_position``: an array is read by position (an
    encoder fitted without names), so ``X.to_numpy()`` is the other way out."""
    way_out = ", or pass X.to_numpy() to read them by position" if by_position else ""
    return DataValidationError(
        f"{caller}: the columns of X are not named as the schema's: X is a data frame "
        f"whose column labels are {unnamed}, not the str names the schema declares, and "
        "its columns would be read by position (swapped columns unnoticed). Name the "
        "columns as the schema does, X.columns = list(schema.columns) once their order "
        f"is checked{way_out}.")


def check_columns(schema: PublicSchema, names: Sequence[str] | None, n_columns: int | None,
                  caller: str, *, unnamed: str | None = None) -> None:
    """Refuse a table whose columns are not those ``schema`` declares, in its order: the
    names when the table has names, else their number (its columns read by position); a
    data frame whose column labels are not str names (``unnamed``) is refused, as its
    columns would be read by position past their labels.

    The one check of a table's columns against a named schema: :class:`PublicEncoder` makes
    it at ``fit`` and ``transform``, a front door (``plan_for``) and a search before they
    read the width of X as the table's. Reads the names and the width only (public facts).

    Parameters
    ----------
    schema : PublicSchema
        The named schema.
    names : sequence of str or None
        The table's column names (None: its columns are read by position).
    n_columns : int or None
        The table's number of columns (None: not known; only names are compared).
    caller : str
        The public call the user made (e.g. ``"PublicEncoder.fit"``); opens the message.
    unnamed : str or None, default=None
        For a data frame none of whose column labels is a str, what they are
        (:func:`~dpconvex.data.tables.unnamed_frame_labels`); None for a table with names or
        without labels (an array).

    Raises
    ------
    DataValidationError
        Names missing, not in the schema or in another order; a data frame's labels that are
        not str names; another number of columns.

    Examples
    --------
    >>> from dpconvex import Numeric, PublicSchema
    >>> from dpconvex.data.encoder import check_columns
    >>> schema = PublicSchema({"a": Numeric(0, 1), "b": Numeric(0, 1)})
    >>> check_columns(schema, ["a", "b"], 2, "Demo.fit")
    >>> check_columns(schema, ["a", "b", "c"], 3, "Demo.fit")
    Traceback (most recent call last):
    ...
    dpconvex.errors.DataValidationError: Demo.fit: the columns of X differ from the schema's: ...
    """
    expected = list(schema.columns)
    if unnamed is not None and names is None:
        raise _unnamed_labels_error(caller, unnamed, by_position=True)
    if names is not None:
        names = list(names)
        if names == expected:
            return
        given = set(names)
        declared = set(expected)
        missing = [c for c in expected if c not in given]
        extra = [c for c in names if c not in declared]
        parts = ([f"missing column(s) {_names_shown(missing)}"] if missing else []) + (
            [f"column(s) not in the schema {_names_shown(extra)}"] if extra else [])
        raise DataValidationError(
            f"{caller}: the columns of X differ from the schema's: "
            f"{'; '.join(parts) or 'the columns are in a different order'}. Pass exactly the "
            "schema's columns in its order, X[list(schema.columns)], or declare each column "
            "of X in the schema (its public range or vocabulary, None if unused).")
    if n_columns is not None and n_columns != len(expected):
        raise DataValidationError(
            f"{caller}: X has {n_columns} column(s) (n_features = {n_columns}), but the "
            f"schema declares {len(expected)} "
            f"(read by position, in this order: {_names_shown(expected)}). Pass the table of "
            "the schema's columns. Rows a PublicEncoder made are encoded already: give the "
            "schema to one of the two, not both.")


def check_table_columns(schema: PublicSchema | UniformSchema | None, X: Any,
                        caller: str) -> tuple[int, int] | None:
    """The table X read as :class:`PublicEncoder` reads it, and refused as it refuses it,
    before a value is compared: a call that reads the width of X as the table's before an
    encoder is fitted (a front door's ``plan_for``, a search's ``fit``) accepts and refuses
    the tables the encoder's ``fit`` does, in its own words.

    The table's header (:func:`~dpconvex.data.tables.table_header`: a mapping's keys, a
    data frame's names, a 2-D array's width, the number of records and each column's
    dtype; a sparse matrix, a Dask collection, a mapping keyed by other than str, repeated
    names and a table without records refused), the schema's columns
    (:func:`check_columns`; a uniform schema: the columns it gives the table) and each
    column's dtype against its declaration. The values are not checked (the encoder's
    refusals of NaN or missing values are its ``fit``'s), and a data frame, a NumPy array
    or a mapping of typed columns is neither copied nor read value by value: only a
    sequence without a dtype is converted, as the encoder converts it.

    Parameters
    ----------
    schema : PublicSchema, UniformSchema or None
        The schema X is to be encoded by (None: X holds encoded rows; nothing is checked).
    X : DataFrame, mapping of columns or array-like
        The table.
    caller : str
        The public call the user made; opens the message.

    Returns
    -------
    tuple of int or None
        (number of records, number of columns) of the table; None for ``schema`` None.

    Raises
    ------
    DataValidationError, DataTypeError
        As :meth:`PublicEncoder.fit` before it reads a value.

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import Numeric, PublicSchema
    >>> from dpconvex.data.encoder import check_table_columns
    >>> schema = PublicSchema({"a": Numeric(0, 1), "b": Numeric(0, 1)})
    >>> check_table_columns(schema, np.zeros((5, 2)), "Demo.plan_for")
    (5, 2)
    >>> check_table_columns(schema, np.zeros((5, 3)), "Demo.plan_for")
    Traceback (most recent call last):
    ...
    dpconvex.errors.DataValidationError: Demo.plan_for: X has 3 column(s) (n_features = 3), ...
    """
    if schema is None:
        return None
    names, n_records, dtypes = table_header(X, caller, entries=False)
    unnamed = unnamed_frame_labels(X)
    try:
        _checked_columns(schema, names, dtypes, caller, unnamed)
    except DataTypeError:  # the encoder reads a sequence of mixed entries as objects, which
        mixed = True  # every dtype check passes: the dtypes read entry by entry decide
    else:
        mixed = False
    if mixed:  # read after the handler: a refusal of the entries has no context
        _checked_columns(schema, names, table_header(X, caller)[2], caller, unnamed)
    return n_records, len(dtypes)


def _checked_columns(schema: PublicSchema | UniformSchema, names: list[str] | None,
                     dtypes: list[Any], caller: str, unnamed: str | None = None
                     ) -> PublicSchema:
    """The schema applied to a table of these column names (None: read by position) and
    dtypes (one a column), after :func:`check_columns` and the dtype checks: the encoder's
    checks of a table before its values (``caller`` opens the messages). ``unnamed``: the
    labels of a data frame that names no column (:func:`check_columns` refuses it under a
    named schema; a uniform schema reads its columns by position)."""
    if isinstance(schema, UniformSchema):  # the width and the names: public facts
        unnamed = None
        try:
            schema = schema.for_columns(len(dtypes) if names is None else names)
        except ParameterError as exc:  # feature names that repeat ("a" + "=b" and "a=b")
            raise DataValidationError(f"{caller}: {exc}") from None
    complex_columns = [str(k if names is None else names[k])
                       for k, dtype in enumerate(dtypes) if dtype_kind(dtype) == "complex"]
    if complex_columns:  # from the dtypes alone, before the columns are matched to the schema
        where = "X" if names is None else f"column(s) {_short_repr(complex_columns)}"
        raise DataValidationError(
            f"{caller}: Complex data not supported in {where}; pass real numbers (e.g. split "
            "real and imaginary parts into columns, or convert categories to text).")
    check_columns(schema, names, len(dtypes), caller, unnamed=unnamed)
    for col, dtype in zip(schema.columns, dtypes, strict=True):
        _check_dtype(schema, col, dtype, caller)
    return schema


def encode_parts(schema: PublicSchema | UniformSchema, numeric: Mapping[str, np.ndarray],
                 codes: Mapping[str, np.ndarray], binary: Mapping[str, np.ndarray] | None = None
                ) -> np.ndarray:
    """The encoded rows (n_records, schema.n_features), each of norm at most 1, from checked
    columns: the shared last step of :class:`PublicEncoder` and
    :func:`encode`.

    Each numeric column (float64) is clipped and mapped, each categorical code (an index
    into the vocabulary; ``-1``: the "other" slot, or an all-zero block) one-hot, each binary
    value (0.0 / 1.0) copied, and every row divided by ``schema.divisor``.

    Parameters
    ----------
    schema : PublicSchema or UniformSchema
        The public encoding; one declaration for every column
        (:meth:`~dpconvex.PublicSchema.every_column`) declares the columns given (numeric,
        then categorical, then binary; :meth:`~dpconvex.data.UniformSchema.for_columns`).
    numeric : mapping of str to ndarray
        Each numeric column, float64.
    codes : mapping of str to ndarray
        Each categorical column's vocabulary codes.
    binary : mapping of str to ndarray or None, default=None
        Each binary column, 0.0 / 1.0.

    Returns
    -------
    ndarray of shape (n_records, schema.n_features)

    Examples
    --------
    >>> from dpconvex import Numeric, PublicSchema
    >>> from dpconvex.data.encoder import encode_parts
    >>> schema = PublicSchema({"age": Numeric(0, 100)})
    >>> rows = encode_parts(schema, {"age": np.array([30.0, 150.0])}, {})
    >>> rows.shape, bool(np.linalg.norm(rows, axis=1).max() <= 1.0)
    ((2, 1), True)
    """
    binary = {} if binary is None else binary
    if isinstance(schema, UniformSchema):  # the named schema of the columns given
        schema = schema._named_for([*numeric, *codes, *binary], "encode_parts")
    first = next(iter([*numeric.values(), *codes.values(), *binary.values()]))
    n = len(first)
    X = np.zeros((n, schema.n_features), dtype=np.float64)
    rows = np.arange(n)
    j = 0
    for col in schema.columns:
        if col in schema.numeric:
            lo, hi = schema.numeric[col]
            X[:, j] = _scale_numeric(numeric[col], lo, hi, col in schema.log_scaled)
            if schema.centered:
                X[:, j] -= 0.5
            j += 1
        elif col in schema.categories:
            c = codes[col]
            known = c >= 0
            X[rows[known], j + c[known]] = 1.0
            j += len(schema.categories[col])
            if col in schema.other:
                X[~known, j] = 1.0
                j += 1
        elif col in schema.binary:
            X[:, j] = binary[col]
            j += 1
    X /= schema.divisor
    return X


# ---------------------------------------------------------- The transformer

class PublicEncoder(TransformerMixin, CheckedParamNames, BaseEstimator):
    """Encode a table by a public schema: per-record maps only, rows of norm <= ``data_norm``.

    ``fit`` only checks and records ``schema_``, ``feature_names_in_`` and ``n_features_in_``
    (the table's columns: public facts when fixed without reading the records, as a schema's
    are); ``transform`` maps every record by itself and the
    schema's constants
    (docs/privacy/row_scaling.md#privacy-public-schemas).

    Parameters
    ----------
    schema : PublicSchema or UniformSchema
        The public description of the table: its columns, or one declaration for every
        column (:meth:`~dpconvex.PublicSchema.every_column`, e.g. every feature a pixel in
        [0, 255]), which ``fit`` applies to the table's columns (their number; a DataFrame's
        names, else ``x0, x1, ...``) as ``schema_``: columns fixed without reading the
        records, not made from their values (``pd.get_dummies``, a pivot: declare the raw
        column :class:`~dpconvex.Categorical` instead). A schema drafted by
        :func:`~dpconvex.draft_schema` is read from data: ``fit`` warns
        :class:`~dpconvex.errors.PrivacyLeakWarning` until it is written into
        code (:meth:`PublicSchema.to_code`).
    row_norm : {"none", "unit"}, default="none"
        "none": rows divided by the public divisor (norm <= ``data_norm``). "unit": every non-zero row then
        scaled to norm ``data_norm`` (a map of the record itself; zero rows stay zero).
    data_norm : float, default=1.0
        The norm bound q of the rows, to match the ``data_norm`` of the private estimator that follows.

    Attributes
    ----------
    schema_ : PublicSchema
        The schema applied: ``schema`` itself, or a uniform schema given the fitted table's
        columns (:meth:`~dpconvex.data.UniformSchema.for_columns`); ``transform`` refuses
        another width.
    n_features_in_ : int
        The number of columns of the table (``len(schema_.columns)``).
    feature_names_in_ : ndarray of str
        The column names, when fitted on a DataFrame or a mapping of columns.

    Notes
    -----
    A DataFrame (or a mapping of columns) must have exactly the schema's columns in its order
    (else :class:`~dpconvex.errors.DataValidationError` naming the column); a NumPy array is
    read by position, by an encoder fitted on one only. A dtype that cannot suit its
    declaration (text is not Numeric, integer codes match no vocabulary of names) is refused
    with a :class:`~dpconvex.errors.DataTypeError` before any value is read.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from sklearn.pipeline import make_pipeline
    >>> import dpconvex as dp
    >>> schema = dp.PublicSchema({"age": dp.Numeric(0, 100),
    ...                           "plan": dp.Categorical(("basic", "pro"))})
    >>> df = pd.DataFrame({"age": [30, 150], "plan": ["pro", "gold"]})
    >>> enc = dp.PublicEncoder(schema).fit(df)
    >>> enc.get_feature_names_out().tolist()
    ['age', 'plan=basic', 'plan=pro', 'plan=<other>']
    >>> np.round(enc.transform(df) * schema.divisor, 2)  # 150 clipped to 100; gold -> other
    array([[0.3, 0. , 1. , 0. ],
           [1. , 0. , 0. , 1. ]])
    >>> rng = np.random.default_rng(0)
    >>> users = pd.DataFrame({"age": rng.integers(18, 90, 200),
    ...                       "plan": rng.choice(["basic", "pro", "gold"], 200)})
    >>> y = (users["plan"] == "pro").astype(int)
    >>> model = make_pipeline(dp.PublicEncoder(schema, row_norm="unit"),
    ...                       dp.PrivateLogisticRegression(epsilon=1, classes=[0, 1],
    ...                                                    random_state=0))
    >>> model.fit(users, y).predict(users.head(3)).shape
    (3,)
    """

    def __init__(
        self, schema: PublicSchema | UniformSchema, *, row_norm: str = "none",
        data_norm: float = 1.0
    ) -> None:
        self.schema = schema
        self.row_norm = row_norm
        self.data_norm = data_norm

    # ---------------------------------------------------------------- checks
    def _params(self) -> tuple[PublicSchema | UniformSchema, str | None, float]:
        owner = type(self).__name__
        if not isinstance(self.schema, (PublicSchema, UniformSchema)):
            raise ParameterError(f"The 'schema' parameter of {owner} must be a PublicSchema, e.g. "
                                 "PublicSchema({'age': Numeric(0, 120)}), or one declaration for "
                                 "every column, PublicSchema.every_column(Numeric(0, 255)). Got "
                                 f"{_short_repr(self.schema)} instead.")
        check_shipped_schema(self.schema, owner)
        row_norm = check_row_norm(self.row_norm, owner)
        q = check_float("data_norm", self.data_norm, owner)
        return self.schema, row_norm, q

    def _read(
        self, X: Any, schema: PublicSchema | UniformSchema, caller: str
    ) -> tuple[np.ndarray | None, dict[str, Any], PublicSchema]:
        """Check the table against the schema (a uniform one given the table's columns); return
        its names, the encoder's inputs and the schema applied (``caller``, "PublicEncoder.fit"
        or ".transform", opens the messages)."""
        names, cols, dtypes = table_columns(X, caller)
        if (not isinstance(schema, UniformSchema) and isinstance(self.schema, UniformSchema)
                and len(cols) != len(schema.columns)):
            raise DataValidationError(
                f"{caller}: X has {len(cols)} features, but {type(self).__name__} is expecting "
                f"{len(schema.columns)} features as input: its uniform schema took the width "
                "of the table it was fitted on. Transform tables of that width, or fit the "
                "encoder again."
            )
        unnamed = None if isinstance(self.schema, UniformSchema) else unnamed_frame_labels(X)
        schema = _checked_columns(schema, names, dtypes, caller, unnamed)  # as check_table_columns
        expected = list(schema.columns)
        parts: dict[str, Any] = {"numeric": {}, "codes": {}, "binary": {}}
        for col, values in zip(expected, cols, strict=True):
            if col in schema.numeric:
                parts["numeric"][col] = _numeric_values(values, col, caller)
            elif col in schema.categories:
                if values.dtype.kind == "c":
                    raise DataTypeError(
                        f"{caller}: categorical column {col!r} holds complex numbers; "
                        "convert them to text or to real numbers first."
                    )
                parts["codes"][col] = category_codes(values, schema.categories[col])
            elif col in schema.binary:
                parts["binary"][col] = _binary_values(values, schema.binary[col], col, caller)
        return (None if names is None else np.asarray(names, dtype=object)), parts, schema

    def _encode(
        self, parts: dict[str, Any], schema: PublicSchema, row_norm: str, q: float
    ) -> np.ndarray:
        Z = encode_parts(schema, parts["numeric"], parts["codes"], parts["binary"])
        if row_norm == "unit":
            unit = normalize_rows(Z, q)
            return unit if schema.provenance is None else RangedRows(unit, None, schema.provenance)
        if q != 1.0:
            Z *= q
        lo, hi = schema.encoded_range(q)  # the schema's constants: public
        return RangedRows(Z, np.column_stack([lo, hi]), schema.provenance)

    def _check_schema_fitted(self, schema: PublicSchema | UniformSchema, caller: str) -> None:
        """Refuse a ``schema`` parameter that is not the one ``fit`` applied as ``schema_``
        (:class:`NotFittedError`): a named schema equal to ``schema_``, a uniform one giving
        ``schema_`` for the fitted columns. ``row_norm`` and ``data_norm`` shape no fitted
        attribute and are read at ``transform``."""
        fitted = self.schema_
        if isinstance(schema, UniformSchema) and schema == self.__dict__.get("_fitted_uniform"):
            return  # the uniform schema fit applied to its columns: schema_ as it made it
        applied = schema.for_columns(list(fitted.columns)) \
            if isinstance(schema, UniformSchema) else schema
        if applied != fitted:
            raise NotFittedError(
                f"{caller}: the 'schema' parameter is not the schema this encoder was fitted "
                "with (set_params changed it after fit), so its fitted schema_ would encode "
                "the rows in its place. Fit the encoder again to apply the new schema."
            )

    def _start(self) -> tuple[PublicSchema | UniformSchema, str | None, float]:
        params = self._params()
        if params[0].suggested:
            warnings.warn(_SUGGESTED_TEXT, PrivacyLeakWarning, stacklevel=user_stacklevel())
        return params

    # ---------------------------------------------------------------- API
    def fit(self, X: Any, y: Any = None, *, context: Any = None) -> PublicEncoder:
        """Check X (the schema's columns in its order; an array: by position) and record its
        column names; read no statistic. ``context`` (a meta-estimator's, handed to its steps)
        is not read: the encoding is a per-record map, the same under any context.

        Parameters
        ----------
        X : DataFrame, mapping of columns or array-like of shape (n_records, n_columns)
            The records, in the schema's columns.
        y : ignored
            Not read.
        context : object, default=None
            A meta-estimator's context; not read.

        Returns
        -------
        PublicEncoder
            ``self``, with ``schema_``, ``n_features_in_`` and, for named columns,
            ``feature_names_in_``.

        Raises
        ------
        DataValidationError
            Columns that differ from the schema's, no record, a numeric value
            that is NaN or infinite, a missing binary value.
        DataTypeError
            A sparse matrix, a Dask collection, or a dtype no value of its declaration
            can match (class Notes).

        Examples
        --------
        >>> import pandas as pd
        >>> import dpconvex as dp
        >>> schema = dp.PublicSchema({"age": dp.Numeric(0, 100),
        ...                           "plan": dp.Categorical(("basic", "pro"))})
        >>> df = pd.DataFrame({"age": [30, 150], "plan": ["pro", "gold"]})
        >>> dp.PublicEncoder(schema).fit(df).feature_names_in_.tolist()
        ['age', 'plan']
        """
        schema, _, _ = self._start()
        names, _, self.schema_ = self._read(X, schema, f"{type(self).__name__}.fit")
        self.n_features_in_ = len(self.schema_.columns)
        self._fitted_uniform = schema if isinstance(schema, UniformSchema) else None
        return with_feature_names(self, names)

    def fit_transform(self, X: Any, y: Any = None, **fit_params: Any) -> np.ndarray:
        """``fit(X).transform(X)``, reading X once.

        Parameters
        ----------
        X : DataFrame, mapping of columns or array-like of shape (n_records, n_columns)
            The records, in the schema's columns.
        y : ignored
            Not read.
        **fit_params : dict
            Not read (scikit-learn's signature).

        Returns
        -------
        ndarray of shape (n_records, n_features) or RangedRows
            As :meth:`transform`.

        Raises
        ------
        DataValidationError, DataTypeError
            As :meth:`fit`.

        Examples
        --------
        >>> import pandas as pd
        >>> import dpconvex as dp
        >>> schema = dp.PublicSchema({"age": dp.Numeric(0, 100),
        ...                           "plan": dp.Categorical(("basic", "pro"))})
        >>> df = pd.DataFrame({"age": [30, 150], "plan": ["pro", "gold"]})
        >>> Z = dp.PublicEncoder(schema).fit_transform(df)
        >>> np.allclose(Z, dp.PublicEncoder(schema).fit(df).transform(df))
        True
        """
        given, row_norm, q = self._start()
        names, parts, schema = self._read(X, given, f"{type(self).__name__}.fit_transform")
        Z = self._encode(parts, schema, row_norm, q)
        self.schema_ = schema
        self.n_features_in_ = len(schema.columns)
        self._fitted_uniform = given if isinstance(given, UniformSchema) else None
        with_feature_names(self, names)
        return Z

    def transform(self, X: Any) -> np.ndarray:
        """Encode every record of X by itself and the schema's public constants.

        Returns the rows (n_records, schema.n_features) of norm at most ``data_norm``
        (exactly ``data_norm`` for non-zero rows with ``row_norm="unit"``); with
        ``row_norm="none"`` a :class:`~dpconvex.data.RangedRows` that carries the schema's
        per-feature ranges (:meth:`PublicSchema.encoded_range
        <dpconvex.PublicSchema.encoded_range>`) to the next step of a pipeline. Raises as
        :meth:`fit`, and DataValidationError for X without column names (an array: two
        swapped columns would go unnoticed) when the encoder was fitted with names (a data
        frame whose labels are not str names, a MultiIndex or ints, in the words of
        :meth:`fit`).
        ``row_norm`` and ``data_norm`` are read at each call; the schema is the fitted one.

        Parameters
        ----------
        X : DataFrame, mapping of columns or array-like of shape (n_records, n_columns)
            The records, in the schema's columns (by name when the encoder was fitted with
            names).

        Returns
        -------
        ndarray of shape (n_records, n_features) or RangedRows
            The encoded rows.

        Raises
        ------
        NotFittedError
            Before :meth:`fit`, or when the ``schema`` parameter differs from the schema
            ``schema_`` was made from (e.g. set by ``set_params(schema=...)`` after :meth:`fit`):
            fit again.
        DataValidationError
            As :meth:`fit`, and X without column names when the encoder was fitted with names.
        DataTypeError
            As :meth:`fit`.

        Examples
        --------
        >>> import pandas as pd
        >>> import dpconvex as dp
        >>> schema = dp.PublicSchema({"age": dp.Numeric(0, 100),
        ...                           "plan": dp.Categorical(("basic", "pro"))})
        >>> df = pd.DataFrame({"age": [30, 150], "plan": ["pro", "gold"]})
        >>> enc = dp.PublicEncoder(schema).fit(df)
        >>> enc.transform(df).shape
        (2, 4)
        >>> enc.transform(df.to_numpy())
        Traceback (most recent call last):
        ...
        dpconvex.errors.DataValidationError: PublicEncoder.transform: the encoder was fitted ...
        """
        check_fitted(self, "n_features_in_")
        caller = f"{type(self).__name__}.transform"
        if getattr(self, "feature_names_in_", None) is not None and not isinstance(X, Mapping) \
                and feature_names_of(X, caller) is None and not is_dask_collection(X) \
                and not sp.issparse(X):
            labels = unnamed_frame_labels(X)
            if labels is not None:  # a frame labelled otherwise (a MultiIndex, ints): as fit says
                raise _unnamed_labels_error(caller, labels, by_position=False)
            raise DataValidationError(
                f"{caller}: the encoder was fitted on a table with named columns, but X has no "
                "column "
                "names (a NumPy array or a frame with unnamed columns); its columns would be read "
                "by "
                "position, and swapped columns would go unnoticed. Pass a pandas DataFrame with "
                "the "
                "schema's columns by name, in its order: X[list(schema.columns)] of the original "
                "frame, "
                "or pd.DataFrame(X, columns=list(schema.columns)) once the order is checked."
            )
        if not isinstance(X, Mapping):
            check_feature_names(self, X, caller)
        schema, row_norm, q = self._params()
        self._check_schema_fitted(schema, caller)
        _, parts, schema = self._read(X, self.schema_, caller)
        return self._encode(parts, schema, row_norm, q)

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """Names of the encoded features: numeric and binary columns, ``column=category``
        (``input_features``, if given, must equal the schema's columns).

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            The input columns, if given: the schema's, in its order.

        Returns
        -------
        ndarray of str objects of shape (n_features,)

        Raises
        ------
        NotFittedError
            Before :meth:`fit`.
        DataValidationError
            ``input_features`` other than the schema's columns.

        Examples
        --------
        >>> import pandas as pd
        >>> import dpconvex as dp
        >>> schema = dp.PublicSchema({"age": dp.Numeric(0, 100),
        ...                           "plan": dp.Categorical(("basic", "pro"))})
        >>> df = pd.DataFrame({"age": [30, 150], "plan": ["pro", "gold"]})
        >>> dp.PublicEncoder(schema).fit(df).get_feature_names_out().tolist()
        ['age', 'plan=basic', 'plan=pro', 'plan=<other>']
        """
        check_fitted(self, "n_features_in_")
        schema = self.schema_
        if input_features is not None and list(input_features) != list(schema.columns):
            raise DataValidationError(
                f"{type(self).__name__}.get_feature_names_out: input_features must "
                f"be the schema's columns {_short_repr(list(schema.columns))}."
            )
        return np.asarray(schema.feature_names, dtype=object)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.input_tags.sparse = False
        tags.input_tags.allow_nan = False
        tags.transformer_tags.preserves_dtype = ["float64"]
        return tags


def _numeric_column(values: object, column: str, caller: str) -> np.ndarray:
    """A column of raw numbers as a new float64 array: real numbers only, no NaN."""
    name = f"column {column!r}"
    try:
        raw = np.asarray(values)
    except (TypeError, ValueError) as exc:  # ragged nested sequences
        failure: type[BaseException] | None = type(exc)
    else:
        failure = None
    if failure is not None:  # raised after the handler: no context holds NumPy's text
        raise ParameterError(
            f"{caller}: {name} must be an array of real numbers: {conversion_failure(failure)}.")
    check_numeric_dtype(raw, caller, name)
    try:
        x = np.array(raw, dtype=np.float64, copy=True)
    except (TypeError, ValueError, OverflowError) as exc:
        failure = type(exc)
    if failure is not None:
        raise ParameterError(f"{caller}: {name} must hold real numbers that fit in float64"
                             f": {conversion_failure(failure)}.")
    if x.ndim != 1:
        raise ParameterError(f"{caller}: column {column!r} must be 1-D (one value per record); "
                             f"got shape {x.shape}.")
    if np.any(np.isnan(x)):
        raise ParameterError(f"{caller}: column {column!r} has missing (NaN) values; drop those "
                             "records first (a per-record rule) or impute a public value.")
    return x


def _records(values: object, column: str, caller: str) -> int:
    """The number of records of a column given to :func:`encode` (a ragged one refused)."""
    try:
        return len(np.atleast_1d(values))
    except (TypeError, ValueError):  # ragged nested sequences
        pass
    # raised after the handler: no context holds NumPy's text
    raise ParameterError(
        f"{caller}: column {column!r} must be an array of one value per record; it holds "
        "sequences of different lengths. Pass a 1-D array.")


def encode(schema: PublicSchema | UniformSchema, numeric_values: Mapping[str, np.ndarray],
           codes: Mapping[str, np.ndarray] | None = None) -> np.ndarray:
    """The rows of :class:`PublicEncoder` from columns already split by kind (no binary ones),
    through :func:`encode_parts`, the encoder's last step.

    Parameters
    ----------
    schema : PublicSchema or UniformSchema
        The public encoding, without binary columns; one declaration for every column
        (:meth:`~dpconvex.PublicSchema.every_column`) declares the columns given, in their
        order (:meth:`~dpconvex.data.UniformSchema.for_columns` of their names).
    numeric_values : mapping of str to array
        The raw values of every numeric column (one per record).
    codes : mapping of str to int array, optional
        Every categorical column's vocabulary codes (:func:`category_codes`; -1: outside it).

    Returns
    -------
    ndarray of shape (n_records, schema.n_features), dtype float64
        Every row has Euclidean norm at most 1.

    Raises
    ------
    ParameterError
        ``schema`` is not a schema, has binary columns, or the columns are not
        mappings of the schema's columns with one value per record each.

    Examples
    --------
    >>> from dpconvex import Categorical, Numeric, PublicSchema
    >>> from dpconvex.data.encoder import category_codes, encode
    >>> schema = PublicSchema({"age": Numeric(0, 100), "plan": Categorical(("basic", "pro"))})
    >>> codes = category_codes(["pro", "gold"], ("basic", "pro"))
    >>> codes.tolist()
    [1, -1]
    >>> X = encode(schema, {"age": np.array([30.0, 150.0])}, {"plan": codes})
    >>> (X * schema.divisor).round(2).tolist()  # 150 clipped to 100; "gold" in the other slot
    [[0.3, 0.0, 1.0, 0.0], [1.0, 0.0, 0.0, 1.0]]
    >>> bool(np.linalg.norm(X, axis=1).max() <= 1.0)
    True
    >>> pixels = PublicSchema.every_column(Numeric(0, 255))
    >>> encode(pixels, {"p0": np.array([0.0, 255.0]), "p1": np.array([255.0, 0.0])}).shape
    (2, 2)
    """
    owner = "encode"
    if not isinstance(schema, (PublicSchema, UniformSchema)):
        raise ParameterError(f"The 'schema' parameter of {owner} must be a PublicSchema (or "
                             "PublicSchema.every_column(...)). Got "
                             f"{_short_repr(schema)} instead.")
    check_shipped_schema(schema, owner)
    codes = {} if codes is None else codes
    for name, table in (("numeric_values", numeric_values), ("codes", codes)):
        if not isinstance(table, Mapping):
            raise ParameterError(f"The '{name}' parameter of {owner} must be a mapping keyed by "
                                 f"column name. Got {_short_repr(table)} instead.")
    if isinstance(schema, UniformSchema):  # the named schema of the columns given
        schema = schema._named_for([*numeric_values, *codes], owner)
    if schema.binary:
        raise ParameterError(f"encode: the schema has binary column(s) {list(schema.binary)!r}; "
                             "encode such a table with dpconvex.PublicEncoder(schema).")
    for name, table, needed in (("numeric_values", numeric_values, schema.numeric),
                                ("codes", codes, schema.categories)):
        missing = [c for c in schema.columns if c in needed and c not in table]
        if missing:
            raise ParameterError(f"encode: '{name}' has no values for column(s) {missing!r}; "
                                 "pass every column of the schema.")
    lengths = {
        _records(numeric_values[c], c, owner) for c in schema.columns if c in schema.numeric
    }
    lengths |= {_records(codes[c], c, owner) for c in schema.columns if c in schema.categories}
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
