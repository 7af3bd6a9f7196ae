"""Reading a schema from data: NOT PRIVATE, a starting point for a person to review.

:func:`read_schema` reads a table and proposes a
:class:`~dpconvex.data.schema.PublicSchema`: the observed ranges of the numeric
columns and the categories seen. Those are statistics of the records, so the
draft is flagged, :func:`dpconvex.draft_schema` (without ``epsilon``) warns
:class:`~dpconvex.errors.PrivacyLeakWarning`, and so does every
:class:`~dpconvex.data.encoder.PublicEncoder` given the draft. Review it against public
knowledge and write it into code
(:meth:`PublicSchema.to_code() <dpconvex.data.schema.PublicSchema.to_code>`)
before any private use, or release the schema privately (``draft_schema(X, epsilon=...)``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import ParameterError
from .schema import Binary, Categorical, Declaration, Numeric, PublicSchema
from .tables import dtype_kind, is_missing, table_columns

__all__ = ["LEAK_TEXT", "read_schema"]


#: The warning of a schema read from data.
LEAK_TEXT = (
    "draft_schema read the data (no epsilon given): the ranges and vocabularies of the draft are "
    "statistics of these records (minima, maxima, the categories seen), and an encoding that "
    "uses them is not covered by any privacy guarantee. Review the draft, replace every bound "
    "and vocabulary by public knowledge (documentation, formats, code lists), and write the "
    "schema into your code (print(schema.to_code())) before any private use, or release it "
    "privately: draft_schema(X, epsilon=...)."
)


def read_schema(X: Any) -> PublicSchema:
    """Read a schema from a table (NOT PRIVATE): the draft ``draft_schema(X)`` returns.

    Numeric columns get their observed minimum and maximum (``log=True`` when
    the values are non-negative and their median lies in the lowest hundredth
    of the range), columns of 0/1 numbers or of bools become
    :class:`~dpconvex.data.schema.Binary`, and text or category columns a
    :class:`~dpconvex.data.schema.Categorical` of the values seen (sorted, with
    an "other" slot). Every one of these is a statistic of the records, so the
    draft is flagged (``suggested=True``).

    Parameters
    ----------
    X : pandas.DataFrame, mapping of str to 1-D values, or 2-D array
        The table (an array's columns are named ``x0, x1, ...``).

    Returns
    -------
    PublicSchema
        The draft, with ``suggested=True``.

    Raises
    ------
    ParameterError
        A column of dates, of complex numbers, or with no usable value; an
        input that is not a table.

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
    decls: dict[str, Declaration] = {}
    for name, values, dtype in zip(names, cols, dtypes, strict=True):
        decls[name] = _draft_column(name, values, dtype_kind(dtype), caller)
    return PublicSchema(decls, suggested=True)


def _draft_column(name: str, values: np.ndarray, column_kind: str, caller: str) -> Declaration:
    """The drafted declaration of one column (reads its values), marked ``drafted``."""
    if column_kind == "time":
        raise ParameterError(f"{caller}: column {name!r} holds dates or time spans; declare it by "
                             "hand with a public map.")
    kind = values.dtype.kind
    if kind == "O" and column_kind in ("int", "float"):  # nullable integers: NA as NaN
        values = np.array([np.nan if is_missing(v) else v for v in values.tolist()], dtype=float)
        kind = "f"
    if kind == "b":
        return Binary(positive=True, drafted=True)
    if kind in "iuf":
        v = values.astype(np.float64)
        v = v[np.isfinite(v)]
        if v.size == 0:
            raise ParameterError(f"{caller}: column {name!r} has no finite value to draft a range "
                                 "from; declare it by hand.")
        seen = np.unique(v)
        if seen.size == 2 and seen[0] == 0.0 and seen[1] == 1.0:
            return Binary(positive=1, drafted=True)
        lo, hi = float(v.min()), float(v.max())
        if lo == hi:
            hi = lo + 1.0
        log = lo >= 0.0 and float(np.median(v)) - lo < (hi - lo) / 100.0
        return Numeric(lo, hi, log=bool(log), drafted=True)
    if kind in "cMm":
        raise ParameterError(f"{caller}: column {name!r} holds dates, time spans or complex "
                             "numbers; declare it by hand with a public map.")
    seen_values = set()
    for v in values.tolist():
        if is_missing(v):
            continue
        if kind == "O" and isinstance(v, (complex, np.complexfloating)):
            raise ParameterError(f"{caller}: column {name!r} holds complex numbers; declare it by "
                                 "hand.")
        seen_values.add(v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v))
    return Categorical(tuple(sorted(seen_values)), drafted=True)
