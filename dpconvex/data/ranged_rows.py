"""Encoded rows that carry the public per-feature range of every column through a pipeline."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import float_rows
from ..errors import DataValidationError, ParameterError

__all__ = ["SUGGESTED_SOURCE", "PublicArray", "RangedRows", "rows_feature_range"]


#: The certificate line of rows encoded by (or ranges taken from) a schema read from the data
#: (``suggested=True``): a fit on them is not private (ε = ∞; docs/guide/own_data.md).
SUGGESTED_SOURCE = (
    "the schema is marked as read from the data (suggested=True): its ranges and "
    "vocabularies are NOT public, and no guarantee covers them or the model fitted "
    "on what they encode (epsilon = inf)"
)


class PublicArray(np.ndarray):
    """A NumPy array carrying one public fact, the attribute named :attr:`fact`.

    Copies and pickles keep the fact (read-only); ufuncs and reductions give plain arrays
    and scalars; each subclass's ``__array_finalize__`` says which views keep it.
    """

    fact: str

    def __new__(cls, values: Any, fact: np.ndarray) -> PublicArray:
        obj = np.asarray(values).view(cls)
        fact.flags.writeable = False
        setattr(obj, cls.fact, fact)
        return obj

    def __array_wrap__(self, arr: Any, context: Any = None, return_scalar: bool = False) -> Any:
        out = np.asarray(arr).view(np.ndarray)
        return out[()] if return_scalar else out

    def __reduce__(self) -> tuple[Any, ...]:
        fn, args, state = super().__reduce__()  # type: ignore[misc]
        return fn, args, (state, dict(vars(self)))

    def __setstate__(self, state: Any) -> None:
        base, facts = state
        super().__setstate__(base)
        vars(self).update(facts)


class RangedRows(PublicArray):
    """Rows that carry their public per-feature ranges (``feature_range``, shape
    (n_features, 2), or None) and, where the schema that encoded them is not public knowledge,
    that fact (``source``): a NumPy array in every other way.

    :class:`~dpconvex.PublicEncoder` returns its rows so (with ``row_norm="none"``): the
    ranges are :meth:`PublicSchema.encoded_range <dpconvex.PublicSchema.encoded_range>`, constants of the
    schema only. A learner that takes public per-feature ranges and is given none reads them from its rows
    (:class:`~dpconvex.PrivateClassifier`), so ``make_pipeline(PublicEncoder(schema),
    PrivateClassifier(...))`` chooses and releases as ``PrivateClassifier(schema=schema)`` does. A selection
    of rows (a slice, a mask, an index array), a copy and a pickle keep the ranges; arithmetic, reductions, a
    selection of columns and ``np.asarray`` give a plain array.

    Examples
    --------
    >>> rows = RangedRows(np.zeros((4, 2)), [[0.0, 1.0], [-1.0, 1.0]])
    >>> rows[1:3].feature_range.tolist(), type(rows[:, :1]).__name__, type(rows + 1).__name__
    ([[0.0, 1.0], [-1.0, 1.0]], 'ndarray', 'ndarray')
    """

    fact = "feature_range"
    feature_range: np.ndarray | None
    #: Where the encoding of the rows comes from when it is not public knowledge (the certificate's line).
    source: str | None = None

    def __new__(cls, rows: Any, feature_range: Any, source: str | None = None) -> RangedRows:
        rows = float_rows(rows, "RangedRows.__new__", "rows")
        if rows.ndim != 2:
            raise DataValidationError(
                "RangedRows.__new__: rows must be 2-D (n_samples, n_features); got shape "
                f"{rows.shape}. "
                "Pass the encoded rows as a 2-D array.")
        if feature_range is None:  # rows with a source only (a schema's unit rows)
            obj = rows.view(cls)
            obj.feature_range = None
        else:
            obj = super().__new__(cls, rows, _checked_ranges(feature_range, rows.shape[1]))
        obj.source = source
        return obj  # type: ignore[return-value]

    def __array_finalize__(self, obj: Any) -> None:
        if obj is None:
            return
        ranges = getattr(obj, "feature_range", None)
        same_columns = (
            self.ndim == 2 and getattr(obj, "ndim", 0) == 2 and self.shape[1] == obj.shape[1]
        )
        self.feature_range = ranges if same_columns else None
        self.source = getattr(obj, "source", None) if same_columns else None

    # a transpose turns columns into rows: a plain array (NumPy finalizes a transposed view
    # before its strides are swapped, so __array_finalize__ cannot tell)
    def transpose(self, *axes: Any) -> np.ndarray:
        """The transposed rows, a plain array (the ranges are of the columns)."""
        return self.view(np.ndarray).transpose(*axes)

    def swapaxes(self, axis1: int, axis2: int) -> np.ndarray:
        """The rows with two axes swapped, a plain array."""
        return self.view(np.ndarray).swapaxes(axis1, axis2)

    @property
    def T(self) -> np.ndarray:  # noqa: N802 - NumPy's name
        """The transposed rows, a plain array."""
        return self.view(np.ndarray).T

    def __getitem__(self, key: Any) -> Any:
        out = super().__getitem__(key)
        if isinstance(out, RangedRows) and not _selects_rows(key):
            return out.view(np.ndarray)
        return out


def _checked_ranges(feature_range: Any, n_features: int) -> np.ndarray:
    """``feature_range`` as a float64 array of shape (n_features, 2) of ordered pairs, or a
    :class:`~dpconvex.errors.ParameterError` (raised outside the ``except`` block: the text of
    a failed conversion is not the message)."""
    failure = None
    try:
        ranges = np.array(feature_range, dtype=float)
    except (TypeError, ValueError, OverflowError) as exc:
        failure = type(exc)
    fix = ("Pass one (low, high) pair of public bounds per column, low <= high, e.g. "
           "PublicSchema.encoded_range().")
    if failure is not None:
        raise ParameterError(
            "RangedRows.__new__: feature_range must be an array of numbers of shape "
            f"({n_features}, 2); "
            f"it could not be converted to float ({failure.__name__}). {fix}")
    if ranges.shape != (n_features, 2):
        raise ParameterError(
            f"RangedRows.__new__: feature_range must have shape ({n_features}, 2), one (low, high) "
            f"pair per column of the rows; got shape {ranges.shape}. {fix}")
    if np.isnan(ranges).any() or not (ranges[:, 0] <= ranges[:, 1]).all():
        raise ParameterError(
            f"RangedRows.__new__: feature_range holds NaN or a pair with low > high. {fix}")
    return ranges


def _selects_rows(key: Any) -> bool:
    """Whether ``rows[key]`` selects rows and keeps every column in its place."""
    if not isinstance(key, tuple):
        return True
    columns = key[1] if len(key) == 2 else slice(None)
    return len(key) <= 2 and (
        columns is Ellipsis or (isinstance(columns, slice) and columns == slice(None))
    )


def rows_feature_range(X: Any) -> np.ndarray | None:
    """The public per-feature ranges X carries (:class:`RangedRows`), or None.

    Examples
    --------
    >>> rows_feature_range(RangedRows(np.zeros((2, 1)), [[0.0, 1.0]])).tolist()
    [[0.0, 1.0]]
    >>> rows_feature_range(np.zeros((2, 1))) is None
    True
    """
    ranges = getattr(X, "feature_range", None) if isinstance(X, RangedRows) else None
    return None if ranges is None else np.array(ranges)
