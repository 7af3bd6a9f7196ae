"""Reading a schema from data: NOT PRIVATE, a starting point for a person to review.

:func:`read_schema` proposes a :class:`~dpconvex.data.schema.PublicSchema` from the observed
ranges and categories; the draft is flagged and warns :class:`~dpconvex.errors.PrivacyLeakWarning`
until it is reviewed and written into code (docs/privacy/row_scaling.md#privacy-public-schemas).
A column's kind comes from ``kinds`` (:data:`KINDS`) or a number or bool dtype only
(:func:`kind_of_dtype`, :func:`check_kinds`; docs/privacy/bounds.md#privacy-bounds-grid).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import numpy as np

from .._validation import _short_repr
from ..errors import ParameterError
from .schema import Binary, Categorical, Declaration, Numeric, PublicSchema
from .tables import (
    category_texts,
    dtype_kind,
    integer_text,
    is_missing,
    number_values,
    table_columns,
)

__all__ = ["KINDS", "LEAK_TEXT", "check_kinds", "kind_of_dtype", "read_schema"]

#: What a column holds, as ``draft_schema(..., kinds=...)`` declares it: ``"numeric"`` (a
#: range; a value that does not parse as a number is missing), ``"binary"``
#: (``Binary(positive=True)``: 1 where the value is True or 1) and ``"categorical"`` (a
#: vocabulary of the values' text).
KINDS = ("numeric", "binary", "categorical")


#: The warning of a schema read from data.
LEAK_TEXT = (
    "draft_schema read the data (no epsilon given): the ranges and vocabularies of the draft are "
    "statistics "
    "of these records (minima, maxima, the categories seen), and an encoding that uses them is "
    "not covered "
    "by any privacy guarantee. Review the draft, replace every bound and vocabulary by public "
    "knowledge "
    "(documentation, formats, code lists), and write the schema into your code "
    "(print(schema.to_code())) "
    "before any private use, or release it privately: draft_schema(X, epsilon=...)."
)


def kind_of_dtype(dtype: Any) -> str | None:
    """The kind a column's dtype gives without a declaration: numbers and bools only.

    ``"numeric"`` for an integer or float dtype (NumPy or nullable pandas), ``"binary"`` for a bool dtype,
    None for every other dtype: text, ``object``, ``category`` (whose categories a reader may have read from
    the values) and the rest, whose kind ``kinds=`` must declare.

    Examples
    --------
    >>> from dpconvex.data.schema_draft import kind_of_dtype
    >>> kind_of_dtype(np.dtype("int64")), kind_of_dtype(np.dtype(bool)), kind_of_dtype(np.dtype("O"))
    ('numeric', 'binary', None)
    """
    if getattr(dtype, "name", None) == "category":
        return None
    return {"int": "numeric", "float": "numeric", "bool": "binary"}.get(dtype_kind(dtype))


def check_kinds(
    kinds: Any, names: list[str], declared: Collection[str], caller: str
) -> dict[str, str]:
    """The checked ``kinds`` mapping (column name to one of :data:`KINDS`); reads no value.

    A ParameterError for what is not a mapping, a column not in the table or also in
    ``declared``, or a kind not in :data:`KINDS`.

    Examples
    --------
    >>> from dpconvex.data.schema_draft import check_kinds
    >>> check_kinds({"age": "numeric"}, ["age", "plan"], (), "draft_schema")
    {'age': 'numeric'}
    >>> check_kinds({"age": "number"}, ["age"], (), "draft_schema")
    Traceback (most recent call last):
    ...
    dpconvex.errors.ParameterError: draft_schema: the kind of column 'age' must be one of 'numeric', ...
    """
    if kinds is None:
        return {}
    if not isinstance(kinds, Mapping):
        raise ParameterError(
            f"The 'kinds' parameter of {caller} must be a mapping of column names to "
            f"'numeric', 'binary' or 'categorical'. Got {_short_repr(kinds)} instead."
        )
    unknown = [c for c in kinds if c not in names]
    if unknown:
        shown = f"{names[:8]!r}"[:-1] + (", ...]" if len(names) > 8 else "]")
        raise ParameterError(
            f"{caller}: 'kinds' names column(s) {unknown!r} that are not in the "
            f"table, whose columns are {shown} (x0, x1, ... where its column labels "
            "are not text); give the kinds of the table's columns only."
        )
    both = [c for c in kinds if c in declared]
    if both:
        raise ParameterError(f"{caller}: column(s) {both!r} are in both 'declared' and 'kinds'; "
                             "a declared column needs no kind: give each column in one of them.")
    for c, kind in kinds.items():
        if not isinstance(kind, str) or kind not in KINDS:
            raise ParameterError(f"{caller}: the kind of column {c!r} must be one of 'numeric', "
                                 f"'binary', 'categorical'. Got {_short_repr(kind)} instead.")
    return dict(kinds)


def read_schema(X: Any, kinds: Mapping[str, str] | None = None) -> PublicSchema:
    """Read a schema from a table (NOT PRIVATE): the draft ``draft_schema(X)`` returns.

    Numeric columns get their observed minimum and maximum (``log=True`` when the values are non-negative and
    their median lies in the lowest hundredth of the range), columns of 0/1 numbers or of bools become
    :class:`~dpconvex.data.schema.Binary`, and text or category columns a
    :class:`~dpconvex.data.schema.Categorical` of the values seen (sorted, with
    an "other" slot). A column in ``kinds`` is drafted as its kind says (a
    ``"numeric"`` column's values that do not parse as numbers are missing).
    Every one of these is a statistic of the records, so the draft is flagged
    (``suggested=True``). ``X`` and ``kinds`` as :func:`dpconvex.draft_schema` takes them;
    a column of dates, of complex numbers or with no usable value is a ParameterError.

    Examples
    --------
    >>> import pandas as pd
    >>> from dpconvex.data.schema_draft import read_schema
    >>> df = pd.DataFrame({"age": [23, 41, 67], "plan": ["basic", "pro", "basic"]})
    >>> print(read_schema(df).to_code())  # doctest: +NORMALIZE_WHITESPACE
    # Drafted by draft_schema from data: replace every bound and vocabulary by
    # public knowledge before any private use.
    from dpconvex import Categorical, Numeric, PublicSchema
    <BLANKLINE>
    schema = PublicSchema({
        "age": Numeric(23.0, 67.0),
        "plan": Categorical(("basic", "pro")),
    })
    """
    caller = "draft_schema"
    names, cols, dtypes = table_columns(X, caller)
    if names is None:
        names = [f"x{k}" for k in range(len(cols))]
    given = check_kinds(kinds, names, (), caller)
    decls: dict[str, Declaration] = {
        name: (
            _draft_declared_kind(name, values, dtype_kind(dtype), given[name], caller)
            if name in given
            else _draft_column(name, values, dtype_kind(dtype), caller)
        )
        for name, values, dtype in zip(names, cols, dtypes, strict=True)
    }
    return PublicSchema(decls, suggested=True)


def _draft_declared_kind(name: str, values: np.ndarray, column_kind: str, kind: str,
                         caller: str) -> Declaration:
    """The drafted declaration of a column whose kind ``kinds`` gives (reads its values)."""
    if column_kind in ("time", "complex"):
        raise ParameterError(f"{caller}: column {name!r} holds dates, time spans or complex "
                             "numbers; declare it by hand with a public map.")
    if kind == "binary":
        return Binary(positive=True, drafted=True)
    if kind == "numeric":
        return _draft_range(name, number_values(values), caller)
    seen = {t for t in category_texts(values) if t is not None}
    return Categorical(tuple(sorted(seen)), drafted=True)


def _draft_range(name: str, values: np.ndarray, caller: str) -> Numeric:
    """The observed range of a column of floats (NaN and infinities skipped), marked ``drafted``."""
    v = values[np.isfinite(values)]
    if v.size == 0:
        raise ParameterError(f"{caller}: column {name!r} has no finite value to draft a range "
                             "from; declare it by hand.")
    lo, hi = float(v.min()), float(v.max())
    if lo == hi:
        hi = lo + 1.0
    log = lo >= 0.0 and float(np.median(v)) - lo < (hi - lo) / 100.0
    return Numeric(lo, hi, log=bool(log), drafted=True)


def _draft_column(name: str, values: np.ndarray, column_kind: str, caller: str) -> Declaration:
    """The drafted declaration of one column (reads its values), marked ``drafted``."""
    if column_kind == "time":
        raise ParameterError(
            f"{caller}: column {name!r} holds dates or time spans; declare it by "
            "hand with a public map, or leave it out: draft the table without it and "
            f"add {name!r}: None (present, not used) to PublicSchema(draft.declarations)."
        )
    kind = values.dtype.kind
    if kind == "O" and column_kind in ("int", "float"):  # nullable integers: NA as NaN
        values = np.array([np.nan if is_missing(v) else v for v in values.tolist()], dtype=float)
        kind = "f"
    if kind == "b":
        return Binary(positive=True, drafted=True)
    if kind in "iuf":
        v = values.astype(np.float64)
        seen = np.unique(v[np.isfinite(v)])
        if seen.size == 2 and seen[0] == 0.0 and seen[1] == 1.0:
            return Binary(positive=1, drafted=True)
        return _draft_range(name, v, caller)
    if kind in "cMm":
        raise ParameterError(f"{caller}: column {name!r} holds dates, time spans or complex "
                             "numbers; declare it by hand with a public map.")
    seen_values = set()
    for v in values.tolist():
        if is_missing(v):
            continue
        if kind == "O" and isinstance(v, (complex, np.complexfloating)):
            raise ParameterError(
                f"{caller}: column {name!r} holds complex numbers; declare it by hand."
            )
        seen_values.add(
            v.decode("utf-8", "replace")
            if isinstance(v, bytes)
            else integer_text(v)
            if isinstance(v, int) and not isinstance(v, bool)
            else str(v)
        )
    return Categorical(tuple(sorted(seen_values)), drafted=True)
