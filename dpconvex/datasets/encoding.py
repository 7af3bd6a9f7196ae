"""The one public-range encoder: a fixed, per-record map from a record to a row with norm <= 1.

Every loader of :mod:`dpconvex.datasets` (UCI Adult, KDD Cup 1999, Breast Cancer
Wisconsin, and scikit-learn's bundled sets) describes its table by a
:class:`PublicSchema` and encodes it with :func:`encode` (or
:func:`encode_matrix` for an all-numeric matrix). The map reads only the
record itself and constants written in the schema, never a statistic of the
loaded data:

1. **Numeric columns** are clipped to their public range ``[lo, hi]`` and
   mapped onto ``[0, 1]``, linearly, ``(x - lo) / (hi - lo)``, or, for the
   columns in ``log_scaled``, ``log1p(x - lo) / log1p(hi - lo)``. A
   ``centered`` schema then subtracts ``1/2``, so those features lie in
   ``[-1/2, 1/2]``.
2. **Categorical columns** are one-hot encoded over the public vocabulary; a
   value that is not listed gives an all-zero block (the vocabulary is never
   extended from the data).
3. **Row norm.** Each numeric feature has absolute value at most ``b`` (``1``,
   or ``1/2`` when centered) and each one-hot block holds at most one 1, so a
   row's squared norm is at most ``b**2 * (#numeric) + (#categorical)``. Every
   row is divided by the square root of that public constant
   (:func:`norm_divisor`), so ``||x|| <= 1`` for every possible record.

Replacing one record therefore changes one row and nothing else, which is what
the per-record norm bound ``q = 1`` of the privacy analysis needs
(``DESIGN.md`` §2, "Per-record clipping").
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import ParameterError

__all__ = [
    "PublicSchema",
    "category_codes",
    "encode",
    "encode_matrix",
    "norm_divisor",
    "scale_by_public_ranges",
]


def norm_divisor(
    numeric: Mapping[str, tuple[float, float]] | Sequence[object],
    categories: Mapping[str, Sequence[str]] | None = None,
    *,
    centered: bool = False,
) -> float:
    """Return the public constant every encoded row is divided by.

    Each numeric feature is scaled into ``[0, 1]`` (or ``[-1/2, 1/2]`` when
    ``centered``) and each one-hot block holds at most one 1, so an encoded row
    has squared norm at most ``b**2 * len(numeric) + len(categories)`` with
    ``b = 1`` (``1/2`` when centered); its square root is the divisor, and the
    divided rows have Euclidean norm at most 1 for *every* possible record.

    Parameters
    ----------
    numeric : mapping or sequence
        Public ranges of the numeric columns, e.g. :data:`ADULT_NUMERIC_RANGES`
        (only their number is used).
    categories : mapping or None
        Vocabularies of the categorical columns, e.g. :data:`ADULT_CATEGORIES`.
    centered : bool, default=False
        Whether the numeric features are centered to ``[-1/2, 1/2]``.

    Returns
    -------
    float
        ``sqrt(len(numeric) + len(categories))``: ``sqrt(13)`` for Adult,
        ``sqrt(41)`` for KDD Cup 1999, ``3`` for breast cancer;
        ``sqrt(len(numeric)) / 2`` for a centered all-numeric table.

    References
    ----------
    .. [CMS] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially Private
       Empirical Risk Minimization. JMLR 12, 2011, §7 (rows scaled to norm <= 1).
    """
    owner = "norm_divisor"
    if isinstance(numeric, (str, bytes)) or not isinstance(numeric, (Mapping, Sequence)):
        raise ParameterError(f"The 'numeric' parameter of {owner} must be a mapping of the numeric "
                             f"columns' ranges (or a sequence of them). Got {_shown(numeric)}.")
    if categories is not None and not isinstance(categories, Mapping):
        raise ParameterError(f"The 'categories' parameter of {owner} must be None or a mapping of "
                             f"the categorical columns' vocabularies. Got {_shown(categories)}.")
    if not isinstance(centered, (bool, np.bool_)):
        raise ParameterError(f"The 'centered' parameter of {owner} must be a bool. Got "
                             f"{_shown(centered)}.")
    n_cat = len(categories) if categories is not None else 0
    if centered:
        # 0.25 * n is exact, and a correctly rounded sqrt commutes with the
        # factor 1/4, so an all-numeric table gets exactly sqrt(n) / 2.
        return math.sqrt(0.25 * len(numeric) + n_cat)
    return math.sqrt(len(numeric) + n_cat)


@dataclass(frozen=True, eq=False)
class PublicSchema:
    """Public description of a table: what each column is and how it is encoded.

    Parameters
    ----------
    columns : tuple of str
        The columns in file order. A column that is neither in ``numeric`` nor
        in ``categories`` is dropped (e.g. Adult's ``fnlwgt``, an id column).
    numeric : mapping of str to (lo, hi)
        Public range of each numeric column used as a feature.
    categories : mapping of str to tuple of str, optional
        Public vocabulary of each categorical column, in one-hot order.
    log_scaled : frozenset of str, optional
        Numeric columns mapped by ``log1p(x - lo) / log1p(hi - lo)`` instead of
        linearly.
    centered : bool, default=False
        Shift the numeric features from ``[0, 1]`` to ``[-1/2, 1/2]``.
    """

    columns: tuple[str, ...]
    numeric: Mapping[str, tuple[float, float]]
    categories: Mapping[str, Sequence[str]] = field(default_factory=dict)
    log_scaled: frozenset[str] = frozenset()
    centered: bool = False

    def __post_init__(self) -> None:
        """Refuse a schema the encoder cannot apply (named :class:`ParameterError`)."""
        owner = "PublicSchema"
        cols = self.columns
        if isinstance(cols, (str, bytes)) or not isinstance(cols, Sequence) or not all(
                isinstance(c, str) for c in cols):
            raise ParameterError(f"The 'columns' parameter of {owner} must be a sequence of column "
                                 f"names (str). Got {_shown(cols)} instead.")
        if len(set(cols)) != len(cols):
            dup = sorted({c for c in cols if list(cols).count(c) > 1})
            raise ParameterError(f"{owner}: 'columns' repeats {dup!r}; each column appears once.")
        for name, table in (("numeric", self.numeric), ("categories", self.categories)):
            if not isinstance(table, Mapping):
                raise ParameterError(f"The '{name}' parameter of {owner} must be a mapping keyed by "
                                     f"column name. Got {_shown(table)} instead.")
            unknown = [c for c in table if c not in cols]
            if unknown:
                raise ParameterError(f"{owner}: '{name}' names column(s) {unknown!r} that are not "
                                     "in 'columns'.")
        both = [c for c in self.numeric if c in self.categories]
        if both:
            raise ParameterError(f"{owner}: column(s) {both!r} are both numeric and categorical.")
        for c, rng in self.numeric.items():
            _check_range(c, rng, owner)
        for c, vocabulary in self.categories.items():
            if isinstance(vocabulary, (str, bytes)) or not isinstance(vocabulary, Sequence) or \
                    not all(isinstance(v, (str, bytes)) for v in vocabulary):
                raise ParameterError(f"{owner}: the vocabulary of {c!r} must be a sequence of "
                                     f"categories (str). Got {_shown(vocabulary)} instead.")
            if len(set(vocabulary)) != len(vocabulary):
                raise ParameterError(f"{owner}: the vocabulary of {c!r} repeats a category.")
        if not isinstance(self.log_scaled, (set, frozenset)) or any(
                c not in self.numeric for c in self.log_scaled):
            raise ParameterError(f"The 'log_scaled' parameter of {owner} must be a set of numeric "
                                 f"columns. Got {_shown(self.log_scaled)} instead.")
        if not isinstance(self.centered, (bool, np.bool_)):
            raise ParameterError(f"The 'centered' parameter of {owner} must be a bool. Got "
                                 f"{_shown(self.centered)} instead.")

    @classmethod
    def from_ranges(
        cls, ranges: Sequence[tuple[float, float]], *, centered: bool = False, prefix: str = "x"
    ) -> PublicSchema:
        """An all-numeric, linearly scaled schema with columns ``x0, x1, ...``."""
        if isinstance(ranges, (str, bytes)) or not isinstance(ranges, (Sequence, np.ndarray)) \
                or len(ranges) == 0:
            raise ParameterError("The 'ranges' parameter must be a non-empty sequence of (lo, hi) "
                                 f"pairs, one per column. Got {_shown(ranges)} instead.")
        columns = tuple(f"{prefix}{i}" for i in range(len(ranges)))
        for c, rng in zip(columns, ranges, strict=True):
            _check_range(c, tuple(rng) if isinstance(rng, np.ndarray) else rng, "PublicSchema")
        numeric = {c: (float(lo), float(hi)) for c, (lo, hi) in zip(columns, ranges, strict=True)}
        return cls(columns, numeric, centered=centered)

    @property
    def feature_names(self) -> tuple[str, ...]:
        """Names of the encoded features, in order (one-hot as ``column=value``)."""
        names: list[str] = []
        for col in self.columns:
            if col in self.numeric:
                names.append(col)
            elif col in self.categories:
                names.extend(f"{col}={cat}" for cat in self.categories[col])
        return tuple(names)

    @property
    def n_features(self) -> int:
        """Number of encoded features."""
        return sum(
            len(self.categories[c]) if c in self.categories else 1
            for c in self.columns
            if c in self.categories or c in self.numeric
        )

    @property
    def divisor(self) -> float:
        """The public constant each row is divided by; see :func:`norm_divisor`."""
        return norm_divisor(self.numeric, self.categories, centered=self.centered)

    @property
    def features(self) -> tuple[str, ...]:
        """The columns that give features (numeric or categorical), in file order."""
        return tuple(c for c in self.columns if c in self.numeric or c in self.categories)

    def select(self, columns: Sequence[str] | None = None, drop: Sequence[str] = (),
               *, owner: str = "PublicSchema.select") -> PublicSchema:
        """The schema restricted to some columns: a public, schema-level column selection.

        Parameters
        ----------
        columns : sequence of str or None
            The feature columns to keep (file order is kept); None keeps all.
        drop : sequence of str
            Feature columns to remove (after ``columns``).
        owner : str
            Named in error messages.

        Returns
        -------
        PublicSchema
            ``self`` when nothing is removed. The divisor of the new schema
            counts only the kept columns (:func:`norm_divisor`).

        Raises
        ------
        ParameterError
            A name that is not a feature column, a string instead of a sequence,
            or a selection that keeps no column.
        """
        valid = self.features
        for name, sel in (("columns", columns), ("drop", drop)):
            if sel is None and name == "columns":
                continue
            if isinstance(sel, str | bytes) or not isinstance(sel, Sequence) or not all(
                    isinstance(c, str) for c in sel):
                raise ParameterError(
                    f"The '{name}' parameter of {owner} must be a sequence of column names, "
                    f"e.g. ('age',). Got {_shown(sel)} instead.")
            repeated = sorted({c for c in sel if list(sel).count(c) > 1})
            if repeated:
                raise ParameterError(
                    f"The '{name}' parameter of {owner} repeats column(s) {repeated!r}; name each "
                    "column once (a repeated column would not be encoded twice).")
            unknown = [c for c in sel if c not in valid]
            if unknown:
                raise ParameterError(
                    f"The '{name}' parameter of {owner} names unknown column(s) {unknown!r}; "
                    f"the feature columns are {list(valid)!r}.")
        keep = [c for c in valid if (columns is None or c in columns) and c not in drop]
        if not keep:
            raise ParameterError(f"{owner}: the column selection keeps no feature column.")
        if len(keep) == len(valid):
            return self
        return PublicSchema(tuple(keep), {c: self.numeric[c] for c in keep if c in self.numeric},
                            {c: self.categories[c] for c in keep if c in self.categories},
                            frozenset(c for c in self.log_scaled if c in keep), self.centered)


def _shown(value: object) -> str:
    text = repr(value) if not isinstance(value, int) or abs(value) < 10**50 else "a huge int"
    return text if len(text) <= 60 else text[:57] + "..."


def _check_range(column: str, rng: object, owner: str) -> None:
    """A public range (lo, hi): two finite floats with lo < hi."""
    msg = (f"{owner}: the range of {column!r} must be two finite numbers (lo, hi) with lo < hi. "
           f"Got {_shown(rng)} instead.")
    if isinstance(rng, (str, bytes)) or not isinstance(rng, Sequence) or len(rng) != 2:
        raise ParameterError(msg)
    lo, hi = rng
    if any(isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating))
           for v in (lo, hi)):
        raise ParameterError(msg)
    try:
        flo, fhi = float(lo), float(hi)
    except OverflowError:
        raise ParameterError(msg) from None
    if not (math.isfinite(flo) and math.isfinite(fhi) and flo < fhi and math.isfinite(fhi - flo)):
        raise ParameterError(msg)


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


def _real_array(values: object, owner: str, name: str) -> np.ndarray:
    """``values`` as a new float64 array; text, dates, complex numbers and None are refused."""
    from .._validation import check_numeric_dtype

    try:
        raw = np.asarray(values)
    except (TypeError, ValueError) as exc:  # ragged nested sequences
        raise ParameterError(f"{owner}: {name} must be an array of real numbers ({exc}).") from None
    check_numeric_dtype(raw, owner, name)
    try:
        return np.array(raw, dtype=np.float64, copy=True)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ParameterError(f"{owner}: {name} must hold real numbers that fit in float64 "
                             f"({exc}).") from None


def _numeric_column(values: object, column: str, owner: str) -> np.ndarray:
    """A column of raw numbers as float64 (a copy): real numbers only, no NaN."""
    x = _real_array(values, owner, f"column {column!r}")
    if x.ndim != 1:
        raise ParameterError(f"{owner}: column {column!r} must be 1-D (one value per record); "
                             f"got shape {x.shape}.")
    if np.any(np.isnan(x)):
        raise ParameterError(f"{owner}: column {column!r} has missing (NaN) values; drop those "
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
        The public encoding.
    numeric_values : mapping of str to array
        The raw values of every numeric column of ``schema`` (one per record).
    codes : mapping of str to int array, optional
        For every categorical column, each record's index into its vocabulary,
        or -1 for a value outside it (an all-zero block); see
        :func:`category_codes`.

    Returns
    -------
    ndarray of shape (n_records, schema.n_features), dtype float64
        Every row has Euclidean norm at most 1.
    """
    owner = "encode"
    if not isinstance(schema, PublicSchema):
        raise ParameterError(f"The 'schema' parameter of {owner} must be a PublicSchema. Got "
                             f"{_shown(schema)} instead.")
    codes = {} if codes is None else codes
    for name, table, needed in (("numeric_values", numeric_values, schema.numeric),
                                ("codes", codes, schema.categories)):
        if not isinstance(table, Mapping):
            raise ParameterError(f"The '{name}' parameter of {owner} must be a mapping keyed by "
                                 f"column name. Got {_shown(table)} instead.")
        missing = [c for c in schema.columns if c in needed and c not in table]
        if missing:
            raise ParameterError(f"{owner}: '{name}' has no values for column(s) {missing!r}.")
    lengths = {len(np.atleast_1d(numeric_values[c])) for c in schema.columns if c in schema.numeric}
    lengths |= {len(np.atleast_1d(codes[c])) for c in schema.columns if c in schema.categories}
    if len(lengths) != 1:
        raise ParameterError(f"{owner}: the columns have different numbers of records "
                             f"({sorted(lengths)}), or the schema has no feature column.")
    n = lengths.pop()
    X = np.zeros((n, schema.n_features), dtype=np.float64)
    rows = np.arange(n)
    j = 0
    for col in schema.columns:
        if col in schema.numeric:
            lo, hi = schema.numeric[col]
            X[:, j] = _scale_numeric(
                _numeric_column(numeric_values[col], col, owner), lo, hi, col in schema.log_scaled
            )
            if schema.centered:
                X[:, j] -= 0.5
            j += 1
        elif col in schema.categories:
            c = np.asarray(codes[col])
            if c.dtype.kind not in "iu" or c.ndim != 1 or np.any(c >= len(schema.categories[col])):
                raise ParameterError(
                    f"{owner}: the codes of {col!r} must be a 1-D int array of indices into its "
                    "vocabulary (-1 for a value outside it); see category_codes.")
            known = c >= 0
            X[rows[known], j + c[known]] = 1.0
            j += len(schema.categories[col])
    X /= schema.divisor
    return X


def encode_matrix(X: np.ndarray, schema: PublicSchema) -> np.ndarray:
    """Encode an all-numeric matrix whose columns are ``schema.columns``, in order.

    Parameters
    ----------
    X : array-like of shape (n_records, len(schema.columns))
        Raw values.
    schema : PublicSchema
        An all-numeric schema (e.g. from :meth:`PublicSchema.from_ranges`).

    Returns
    -------
    ndarray of shape (n_records, len(schema.columns)), dtype float64
        Every row has Euclidean norm at most 1.

    Raises
    ------
    ParameterError
        If ``X`` is not 2-D with one column per schema column.
    """
    if not isinstance(schema, PublicSchema):
        raise ParameterError(f"The 'schema' parameter of encode_matrix must be a PublicSchema. Got "
                             f"{_shown(schema)} instead.")
    X = _real_array(X, "encode_matrix", "X")
    d = len(schema.columns)
    if X.ndim != 2 or X.shape[1] != d:
        raise ParameterError(f"X must have {d} columns to match the ranges; got {X.shape}.")
    return encode(schema, {c: X[:, k] for k, c in enumerate(schema.columns)})


def scale_by_public_ranges(X: np.ndarray, ranges: Sequence[tuple[float, float]]) -> np.ndarray:
    """Map columns to [-1/2, 1/2] by fixed (min, max) ranges, clip, divide rows by sqrt(d)/2.

    The centered form of :func:`encode` for an all-numeric matrix: every
    coordinate is in ``[-1/2, 1/2]``, so ``||x||**2 <= d/4``, and every row has
    norm <= 1 for *every* possible record.

    Parameters
    ----------
    X : array-like of shape (n_records, d)
        Raw values.
    ranges : sequence of (lo, hi)
        Public range of each of the ``d`` columns.

    Returns
    -------
    ndarray of shape (n_records, d), dtype float64

    Raises
    ------
    ParameterError
        If ``X`` does not have ``len(ranges)`` columns.
    """
    return encode_matrix(X, PublicSchema.from_ranges(ranges, centered=True))
