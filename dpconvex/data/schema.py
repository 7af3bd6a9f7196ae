"""Public schemas: a table described column by column, and the encoder that applies it.

A :class:`PublicSchema` says what each column of a table is, with constants known
before any record is seen: a numeric column has a public range (``Numeric(low,
high, log=False)``), a categorical column a public vocabulary (``Categorical(
vocabulary, other=True)``), a binary column its positive value (``Binary(
positive=...)``); a column declared ``None`` is present in the table and not
used. :class:`PublicEncoder` is the scikit-learn transformer that applies a
schema, one record at a time:

1. **Numeric columns** are clipped to ``[low, high]`` and mapped onto
   ``[0, 1]``, linearly, ``(x - low) / (high - low)``, or, with ``log=True``,
   ``log1p(x - low) / log1p(high - low)``. A ``centered`` schema then
   subtracts ``1/2``, so those features lie in ``[-1/2, 1/2]``.
2. **Categorical columns** are one-hot encoded over the public vocabulary. A
   value that is not listed sets the column's "other" slot (``other=True``) or
   gives an all-zero block (``other=False``); the vocabulary is never extended
   from the data.
3. **Binary columns** give one feature: 1 for the positive value, else 0.
4. **Row norm.** Each numeric feature has absolute value at most ``b`` (``1``,
   or ``1/2`` when centered), each one-hot block holds at most one 1 and each
   binary feature is 0 or 1, so a row's squared norm is at most
   ``b**2 * (#numeric) + (#categorical) + (#binary)``. Every row is divided by
   the square root of that public constant (:func:`norm_divisor`), so
   ``||x|| <= 1`` for every possible record (times ``data_norm``), and
   ``row_norm="unit"`` then scales every non-zero row to norm ``data_norm``
   (:func:`dpconvex.data.row_scaling.normalize_rows`).

No step reads another record or a statistic of the data, so replacing one
record changes one row and nothing else, which is what the per-record norm
bound of the privacy analysis needs (docs/privacy.md §12.5).
:meth:`PublicSchema.suggest` is the one function here that reads data: it
drafts a schema from a table for a person to review and write into code.
"""

from __future__ import annotations

import math
import textwrap
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin

from .._validation import (
    _reject_masked,
    check_feature_names,
    check_fitted,
    check_float,
    check_numeric_dtype,
    feature_names_of,
    is_dask_collection,
    with_feature_names,
)
from ..errors import DataTypeError, DataValidationError, ParameterError, PrivacyLeakWarning
from .row_scaling import check_row_norm, normalize_rows

__all__ = [
    "Binary",
    "Categorical",
    "Numeric",
    "PublicEncoder",
    "PublicSchema",
    "encode_parts",
    "norm_divisor",
]

#: The suffix of the feature that takes a categorical value outside the vocabulary.
OTHER = "<other>"


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


def _check_drafted(decl: Any) -> None:
    """Refuse a ``drafted`` mark that is not a bool."""
    if not isinstance(decl.drafted, (bool, np.bool_)):
        raise ParameterError(f"The 'drafted' parameter of {type(decl).__name__} must be a bool. Got "
                             f"{_shown(decl.drafted)} instead.")
    object.__setattr__(decl, "drafted", bool(decl.drafted))


def _declaration_repr(decl: Any) -> str:
    """``Numeric(low=0.0, high=1.0, log=False)``, with ``drafted=True`` only when it is set."""
    shown = [f"{f.name}={getattr(decl, f.name)!r}" for f in fields(decl)
             if f.name != "drafted" or decl.drafted]
    return f"{type(decl).__name__}({', '.join(shown)})"


# --------------------------------------------------------------------------
# Column declarations
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class Numeric:
    """A numeric column with a public range: clipped to ``[low, high]``, mapped onto ``[0, 1]``.

    Parameters
    ----------
    low, high : float
        The public range (finite, ``low < high``), known without the data: a
        documented bound, a format's limit, a regulation. Values outside it are
        clipped.
    log : bool, default=False
        Map by ``log1p(x - low) / log1p(high - low)`` instead of linearly (for
        heavy-tailed columns such as amounts and counts).
    drafted : bool, default=False
        Set by :meth:`PublicSchema.suggest`: the range was read from data, so
        the declaration is not public. A schema with a drafted declaration is a
        draft (``suggested=True``); a declaration written in code carries no
        mark and does not compare equal to a drafted one.

    Examples
    --------
    >>> import pandas as pd
    >>> from dpconvex import Numeric, PublicEncoder, PublicSchema
    >>> schema = PublicSchema({"age": Numeric(0, 100)})
    >>> df = pd.DataFrame({"age": [25, 50, 150]})
    >>> PublicEncoder(schema).fit(df).transform(df).ravel().tolist()  # 150 is clipped to 100
    [0.25, 0.5, 1.0]
    """

    low: float
    high: float
    log: bool = False
    drafted: bool = field(default=False, kw_only=True)

    __repr__ = _declaration_repr

    def __post_init__(self) -> None:
        """Refuse a range that is not finite with low < high, or a non-bool ``log``."""
        _check_range("Numeric", (self.low, self.high), "Numeric")
        _check_drafted(self)
        if not isinstance(self.log, (bool, np.bool_)):
            raise ParameterError(f"The 'log' parameter of Numeric must be a bool. Got "
                                 f"{_shown(self.log)} instead.")
        object.__setattr__(self, "low", float(self.low))
        object.__setattr__(self, "high", float(self.high))
        object.__setattr__(self, "log", bool(self.log))


@dataclass(frozen=True)
class Categorical:
    """A categorical column with a public vocabulary, one-hot encoded in the vocabulary's order.

    Parameters
    ----------
    vocabulary : sequence of str
        The public list of categories (from the data's documentation, a code
        list, a form), never read from the records.
    other : bool, default=True
        Add an "other" slot (feature ``"<column>=<other>"``) set by a value that
        is not in the vocabulary, a missing value included; with False such a
        value gives an all-zero block. Values that are not strings are compared
        as ``str(value)``, so a column of numbers needs the numbers' text as
        vocabulary (``("0", "1", "2")`` for integer codes); a vocabulary that no
        value of the column's dtype can match is refused.
    drafted : bool, default=False
        Set by :meth:`PublicSchema.suggest`: the vocabulary was read from data, so
        the declaration is not public. A schema with a drafted declaration is a
        draft (``suggested=True``); a declaration written in code carries no
        mark and does not compare equal to a drafted one.

    Examples
    --------
    >>> import pandas as pd
    >>> from dpconvex import Categorical, PublicEncoder, PublicSchema
    >>> schema = PublicSchema({"plan": Categorical(("basic", "pro"))})
    >>> schema.feature_names
    ('plan=basic', 'plan=pro', 'plan=<other>')
    >>> df = pd.DataFrame({"plan": ["pro", "gold"]})
    >>> PublicEncoder(schema).fit(df).transform(df).tolist()  # "gold" is not in the vocabulary
    [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """

    vocabulary: tuple[str, ...]
    other: bool = True
    drafted: bool = field(default=False, kw_only=True)

    __repr__ = _declaration_repr

    def __post_init__(self) -> None:
        """Refuse a vocabulary that is not a sequence of distinct strings."""
        _check_drafted(self)
        voc = self.vocabulary
        if isinstance(voc, (str, bytes)) or not isinstance(voc, (Sequence, np.ndarray)) or \
                not all(isinstance(v, (str, bytes)) for v in voc):
            raise ParameterError("The 'vocabulary' parameter of Categorical must be a sequence of "
                                 f"categories (str). Got {_shown(voc)} instead.")
        if len(set(voc)) != len(voc):
            raise ParameterError("The 'vocabulary' parameter of Categorical repeats a category.")
        if not isinstance(self.other, (bool, np.bool_)):
            raise ParameterError(f"The 'other' parameter of Categorical must be a bool. Got "
                                 f"{_shown(self.other)} instead.")
        object.__setattr__(self, "vocabulary", tuple(voc))
        object.__setattr__(self, "other", bool(self.other))


@dataclass(frozen=True)
class Binary:
    """A two-valued column: one feature, 1 where the value equals ``positive``, else 0.

    Parameters
    ----------
    positive : str, int, float or bool, default=1
        The value that gives 1. With a str, values that are not strings are
        compared as ``str(value)``; with a number, the column must hold numbers.
        A positive value that no value of the column's dtype can equal is
        refused. A missing value (NaN, None) is refused rather than read as 0.
    drafted : bool, default=False
        Set by :meth:`PublicSchema.suggest`: the positive value was read from data, so
        the declaration is not public. A schema with a drafted declaration is a
        draft (``suggested=True``); a declaration written in code carries no
        mark and does not compare equal to a drafted one.

    Examples
    --------
    >>> import pandas as pd
    >>> from dpconvex import Binary, PublicEncoder, PublicSchema
    >>> schema = PublicSchema({"smoker": Binary(positive="yes")})
    >>> df = pd.DataFrame({"smoker": ["yes", "no", "yes"]})
    >>> PublicEncoder(schema).fit(df).transform(df).ravel().tolist()
    [1.0, 0.0, 1.0]
    """

    positive: Any = 1
    drafted: bool = field(default=False, kw_only=True)

    __repr__ = _declaration_repr

    def __post_init__(self) -> None:
        """Refuse a positive value that is not a str, a bool or a finite number."""
        _check_drafted(self)
        p = self.positive
        if isinstance(p, np.generic):
            p = p.item()
        ok = isinstance(p, (str, bool, int)) or (isinstance(p, float) and math.isfinite(p))
        if not ok or (isinstance(p, int) and abs(p) > 2**53):
            raise ParameterError("The 'positive' parameter of Binary must be a str, a bool or a "
                                 f"finite number. Got {_shown(self.positive)} instead.")
        object.__setattr__(self, "positive", p)


Declaration = Numeric | Categorical | Binary | None


# --------------------------------------------------------------------------
# The schema
# --------------------------------------------------------------------------

def norm_divisor(
    numeric: Mapping[str, tuple[float, float]] | Sequence[object],
    categories: Mapping[str, Sequence[str]] | None = None,
    *,
    centered: bool = False,
    binary: int = 0,
) -> float:
    """Return the public constant every encoded row is divided by.

    Each numeric feature is scaled into ``[0, 1]`` (or ``[-1/2, 1/2]`` when
    ``centered``), each one-hot block holds at most one 1 and each binary
    feature is 0 or 1, so an encoded row has squared norm at most
    ``b**2 * len(numeric) + len(categories) + binary`` with ``b = 1`` (``1/2``
    when centered); its square root is the divisor, and the divided rows have
    Euclidean norm at most 1 for *every* possible record.

    Parameters
    ----------
    numeric : mapping or sequence
        Public ranges of the numeric columns (only their number is used).
    categories : mapping or None
        Vocabularies of the categorical columns (only their number is used).
    centered : bool, default=False
        Whether the numeric features are centered to ``[-1/2, 1/2]``.
    binary : int, default=0
        The number of binary columns.

    Returns
    -------
    float
        ``sqrt(len(numeric) + len(categories) + binary)``, e.g. ``sqrt(13)`` for
        Adult, ``sqrt(41)`` for KDD Cup 1999; ``sqrt(len(numeric)) / 2`` for a
        centered all-numeric table.

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
    if isinstance(binary, (bool, np.bool_)) or not isinstance(binary, (int, np.integer)) or binary < 0:
        raise ParameterError(f"The 'binary' parameter of {owner} must be an int >= 0. Got "
                             f"{_shown(binary)}.")
    n_other = (len(categories) if categories is not None else 0) + int(binary)
    if centered:
        # 0.25 * n is exact, and a correctly rounded sqrt commutes with the
        # factor 1/4, so an all-numeric table gets exactly sqrt(n) / 2.
        return math.sqrt(0.25 * len(numeric) + n_other)
    return math.sqrt(len(numeric) + n_other)


_LEAK_TEXT = (
    "PublicSchema.suggest read the data: the ranges and vocabularies of the draft are "
    "statistics of these records (minima, maxima, the categories seen), and an encoding that "
    "uses them is not covered by any privacy guarantee. Review the draft, replace every bound "
    "and vocabulary by public knowledge (documentation, formats, code lists), and write the "
    "schema into your code (print(schema.to_code())) before any private use."
)
_SUGGESTED_TEXT = (
    "PublicEncoder was given a schema drafted by PublicSchema.suggest from data: its ranges "
    "and vocabularies are statistics of that data, so this encoding is not covered by any "
    "privacy guarantee. Review the draft, print(schema.to_code()), and use the reviewed schema "
    "written in your code instead."
)


@dataclass(frozen=True, eq=False)
class PublicSchema:
    """Public description of a table: what each column is and how it is encoded.

    Declare it per column, ``PublicSchema({"age": Numeric(0, 120), ...})``, or
    by tables (``columns``, ``numeric``, ``categories``, ...). Every constant
    must be known without the data; :meth:`suggest` drafts one from a table for
    review, and :meth:`to_code` prints a schema as the Python source that
    freezes it. Two schemas are equal when they encode every record the same way
    and the same columns are drafted: a draft never equals a reviewed schema.

    Parameters
    ----------
    columns : mapping of str to declaration, or tuple of str
        A mapping: every column of the table, in order, to ``Numeric(...)``,
        ``Categorical(...)``, ``Binary(...)`` or ``None`` (present, not used).
        A tuple: the column names in order; a column that is in none of the
        tables below is present and not used (e.g. Adult's ``fnlwgt``).
    numeric : mapping of str to (lo, hi), optional
        Public range of each numeric column (with tuple ``columns``).
    categories : mapping of str to tuple of str, optional
        Public vocabulary of each categorical column, in one-hot order.
    log_scaled : frozenset of str, optional
        Numeric columns mapped by ``log1p(x - lo) / log1p(hi - lo)``.
    centered : bool, default=False
        Shift the numeric features from ``[0, 1]`` to ``[-1/2, 1/2]``.
    binary : mapping of str to value, optional
        Binary columns and their positive value.
    other : frozenset of str, optional
        Categorical columns with an "other" slot for values outside the
        vocabulary (else such a value gives an all-zero block).
    suggested : bool, default=False
        The schema was read from data and is not public; :class:`PublicEncoder`
        warns when it is used. Set by :meth:`suggest`, and set whenever a
        declaration carries the ``drafted`` mark, so a schema rebuilt from a
        draft's :attr:`declarations` is a draft too. With ``suggested=True``
        every feature column is drafted.

    See Also
    --------
    PublicEncoder : the transformer that applies a schema.

    Examples
    --------
    >>> from dpconvex import Binary, Categorical, Numeric, PublicSchema
    >>> schema = PublicSchema({
    ...     "age": Numeric(0, 120),
    ...     "income": Numeric(0, 1e6, log=True),
    ...     "region": Categorical(("north", "south")),
    ...     "smoker": Binary(positive="yes"),
    ...     "id": None,
    ... })
    >>> schema.feature_names
    ('age', 'income', 'region=north', 'region=south', 'region=<other>', 'smoker')
    >>> schema.divisor  # sqrt(2 numeric + 1 categorical + 1 binary)
    2.0
    """

    columns: Any
    numeric: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    categories: Mapping[str, Sequence[str]] = field(default_factory=dict)
    log_scaled: frozenset[str] = frozenset()
    centered: bool = False
    binary: Mapping[str, Any] = field(default_factory=dict)
    other: frozenset[str] = frozenset()
    suggested: bool = False
    _drafted: frozenset[str] = field(default=frozenset(), init=False, repr=False)

    def __post_init__(self) -> None:
        """Refuse a schema the encoder cannot apply (named :class:`ParameterError`)."""
        owner = "PublicSchema"
        drafted: frozenset[str] = frozenset()
        if isinstance(self.columns, Mapping):
            drafted = self._from_declarations(owner)
        cols = self.columns
        if isinstance(cols, (str, bytes)) or not isinstance(cols, Sequence) or not all(
                isinstance(c, str) for c in cols):
            raise ParameterError(f"The 'columns' parameter of {owner} must be a mapping of column "
                                 "names to declarations (Numeric, Categorical, Binary, None) or a "
                                 f"sequence of column names (str). Got {_shown(cols)} instead.")
        if len(set(cols)) != len(cols):
            dup = sorted({c for c in cols if list(cols).count(c) > 1})
            raise ParameterError(f"{owner}: 'columns' repeats {dup!r}; each column appears once.")
        for name, table in (("numeric", self.numeric), ("categories", self.categories),
                            ("binary", self.binary)):
            if not isinstance(table, Mapping):
                raise ParameterError(f"The '{name}' parameter of {owner} must be a mapping keyed by "
                                     f"column name. Got {_shown(table)} instead.")
            unknown = [c for c in table if c not in cols]
            if unknown:
                raise ParameterError(f"{owner}: '{name}' names column(s) {unknown!r} that are not "
                                     "in 'columns'.")
        kinds = [*self.numeric, *self.categories, *self.binary]
        both = sorted({c for c in kinds if kinds.count(c) > 1})
        if both:
            raise ParameterError(f"{owner}: column(s) {both!r} are declared twice (numeric, "
                                 "categorical or binary: one each).")
        for c, rng in self.numeric.items():
            _check_range(c, rng, owner)
        for c, vocabulary in self.categories.items():
            if isinstance(vocabulary, (str, bytes)) or not isinstance(vocabulary, Sequence) or \
                    not all(isinstance(v, (str, bytes)) for v in vocabulary):
                raise ParameterError(f"{owner}: the vocabulary of {c!r} must be a sequence of "
                                     f"categories (str). Got {_shown(vocabulary)} instead.")
            if len(set(vocabulary)) != len(vocabulary):
                raise ParameterError(f"{owner}: the vocabulary of {c!r} repeats a category.")
        for positive in self.binary.values():
            Binary(positive)
        for name, subset, within in (("log_scaled", self.log_scaled, self.numeric),
                                     ("other", self.other, self.categories)):
            if not isinstance(subset, (set, frozenset)) or any(c not in within for c in subset):
                kind = "numeric" if name == "log_scaled" else "categorical"
                raise ParameterError(f"The '{name}' parameter of {owner} must be a set of {kind} "
                                     f"columns. Got {_shown(subset)} instead.")
        for name in ("centered", "suggested"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise ParameterError(f"The '{name}' parameter of {owner} must be a bool. Got "
                                     f"{_shown(getattr(self, name))} instead.")
        names = self.feature_names
        if len(set(names)) != len(names):
            dup = sorted({n for n in names if names.count(n) > 1})
            raise ParameterError(f"{owner}: the encoded feature names {dup!r} repeat; rename a "
                                 "column or a category.")
        if self.suggested and not drafted:
            drafted = frozenset(self.features)
        object.__setattr__(self, "_drafted", drafted)
        object.__setattr__(self, "suggested", bool(self.suggested or drafted))

    def _from_declarations(self, owner: str) -> frozenset[str]:
        """Unpack ``columns={name: Numeric | Categorical | Binary | None}`` into the tables.

        Returns the columns whose declaration carries the ``drafted`` mark.
        """
        if self.numeric or self.categories or self.binary or self.log_scaled or self.other:
            raise ParameterError(f"{owner}: declare the columns either by a mapping of "
                                 "declarations or by the tables (numeric=, categories=, ...), "
                                 "not both.")
        numeric, categories, binary, log, other = {}, {}, {}, set(), set()
        drafted = set()
        for name, decl in self.columns.items():
            if not isinstance(name, str):
                raise ParameterError(f"{owner}: column names must be str. Got {_shown(name)}.")
            if isinstance(decl, (Numeric, Categorical, Binary)) and decl.drafted:
                drafted.add(name)
            if isinstance(decl, Numeric):
                numeric[name] = (decl.low, decl.high)
                if decl.log:
                    log.add(name)
            elif isinstance(decl, Categorical):
                categories[name] = decl.vocabulary
                if decl.other:
                    other.add(name)
            elif isinstance(decl, Binary):
                binary[name] = decl.positive
            elif decl is not None:
                raise ParameterError(f"{owner}: the declaration of {name!r} must be Numeric(...), "
                                     f"Categorical(...), Binary(...) or None (not used). Got "
                                     f"{_shown(decl)} instead.")
        for attr, value in (("columns", tuple(self.columns)), ("numeric", numeric),
                            ("categories", categories), ("binary", binary),
                            ("log_scaled", frozenset(log)), ("other", frozenset(other))):
            object.__setattr__(self, attr, value)
        return frozenset(drafted)

    # ---------------------------------------------------------------- views
    @property
    def declarations(self) -> dict[str, Declaration]:
        """Each column's declaration, in column order (``None``: present, not used).

        The declarations of a draft carry ``drafted=True``, so
        ``PublicSchema(draft.declarations)`` is a draft too, and so is a schema
        that keeps any of them; a declaration written in code replaces the mark.
        """
        out: dict[str, Declaration] = {}
        drafted = self._drafted_columns
        for c in self.columns:
            mark = c in drafted
            if c in self.numeric:
                lo, hi = self.numeric[c]
                out[c] = Numeric(lo, hi, c in self.log_scaled, drafted=mark)
            elif c in self.categories:
                out[c] = Categorical(self.categories[c], c in self.other, drafted=mark)
            elif c in self.binary:
                out[c] = Binary(self.binary[c], drafted=mark)
            else:
                out[c] = None
        return out

    @property
    def _drafted_columns(self) -> frozenset[str]:
        """The feature columns read from data (every one for a schema unpickled without marks)."""
        drafted = self.__dict__.get("_drafted")
        if drafted is None:
            return frozenset(self.features) if self.suggested else frozenset()
        return drafted

    def _key(self) -> tuple[Any, ...]:
        return (tuple(self.columns), tuple(self.declarations.items()), bool(self.centered),
                bool(self.suggested))

    def __eq__(self, other: object) -> bool:
        """Equal when every record is encoded the same way and the same columns are drafted."""
        if not isinstance(other, PublicSchema):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        body = ", ".join(f"{c!r}: {d!r}" for c, d in self.declarations.items())
        extra = (", centered=True" if self.centered else "") + (
            ", suggested=True" if self.suggested else "")
        return f"PublicSchema({{{body}}}{extra})"

    @property
    def feature_names(self) -> tuple[str, ...]:
        """Names of the encoded features, in order (one-hot as ``column=value``)."""
        names: list[str] = []
        for col in self.columns:
            if col in self.numeric or col in self.binary:
                names.append(col)
            elif col in self.categories:
                names.extend(f"{col}={cat}" for cat in self.categories[col])
                if col in self.other:
                    names.append(f"{col}={OTHER}")
        return tuple(names)

    @property
    def n_features(self) -> int:
        """Number of encoded features."""
        return sum(
            len(self.categories[c]) + (c in self.other) if c in self.categories else 1
            for c in self.features
        )

    @property
    def divisor(self) -> float:
        """The public constant each row is divided by; see :func:`norm_divisor`."""
        return norm_divisor(self.numeric, self.categories, centered=self.centered,
                            binary=len(self.binary))

    @property
    def features(self) -> tuple[str, ...]:
        """The columns that give features (numeric, categorical or binary), in column order."""
        return tuple(c for c in self.columns
                     if c in self.numeric or c in self.categories or c in self.binary)

    # ---------------------------------------------------------------- builders
    @classmethod
    def from_ranges(
        cls, ranges: Sequence[tuple[float, float]], *, centered: bool = False, prefix: str = "x"
    ) -> PublicSchema:
        """An all-numeric, linearly scaled schema with columns ``x0, x1, ...``.

        Its columns are positional: :class:`PublicEncoder` reads column ``k`` of
        a NumPy array as ``x<k>``.
        """
        if isinstance(ranges, (str, bytes)) or not isinstance(ranges, (Sequence, np.ndarray)) \
                or len(ranges) == 0:
            raise ParameterError("The 'ranges' parameter must be a non-empty sequence of (lo, hi) "
                                 f"pairs, one per column. Got {_shown(ranges)} instead.")
        columns = tuple(f"{prefix}{i}" for i in range(len(ranges)))
        for c, rng in zip(columns, ranges, strict=True):
            _check_range(c, tuple(rng) if isinstance(rng, np.ndarray) else rng, "PublicSchema")
        numeric = {c: (float(lo), float(hi)) for c, (lo, hi) in zip(columns, ranges, strict=True)}
        return cls(columns, numeric, centered=centered)

    def select(self, columns: Sequence[str] | None = None, drop: Sequence[str] = (),
               *, owner: str = "PublicSchema.select") -> PublicSchema:
        """The schema restricted to some columns: a public, schema-level column selection.

        Parameters
        ----------
        columns : sequence of str or None
            The feature columns to keep (column order is kept); None keeps all.
        drop : sequence of str
            Feature columns to remove (after ``columns``).
        owner : str
            Named in error messages.

        Returns
        -------
        PublicSchema
            ``self`` when nothing is removed; else a schema whose columns are the
            kept feature columns, with a divisor that counts only them
            (:func:`norm_divisor`).

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
        declarations = self.declarations  # drafted declarations keep their mark
        return PublicSchema({c: declarations[c] for c in keep}, centered=self.centered)

    @classmethod
    def suggest(cls, X: Any) -> PublicSchema:
        """Draft a schema from a table. READS THE DATA: review it and write it into code.

        Numeric columns get their observed minimum and maximum (``log=True``
        when the values are non-negative and their median lies in the lowest
        hundredth of the range), columns of 0/1 numbers or of bools become
        :class:`Binary`, and text or category columns a :class:`Categorical` of
        the values seen (sorted, with an "other" slot). Every one of these is a
        statistic of the records, so the draft is flagged (``suggested=True``),
        this call warns :class:`~dpconvex.errors.PrivacyLeakWarning`, and so does
        every :class:`PublicEncoder` fitted with the draft. Replace each bound and
        vocabulary by public knowledge and paste ``print(schema.to_code())`` into
        your code: the schema written there carries no flag.

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
        >>> import warnings
        >>> import pandas as pd
        >>> from dpconvex import PublicSchema
        >>> df = pd.DataFrame({"age": [23, 41, 67], "plan": ["basic", "pro", "basic"]})
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     draft = PublicSchema.suggest(df)
        >>> caught[0].category.__name__
        'PrivacyLeakWarning'
        >>> print(draft.to_code())  # doctest: +NORMALIZE_WHITESPACE
        # Drafted by PublicSchema.suggest from data: replace every bound and vocabulary by
        # public knowledge before any private use.
        from dpconvex import Categorical, Numeric, PublicSchema
        <BLANKLINE>
        schema = PublicSchema({
            "age": Numeric(23.0, 67.0),
            "plan": Categorical(("basic", "pro")),
        })
        """
        owner = "PublicSchema.suggest"
        names, cols, dtypes = _table_columns(X, owner)
        if names is None:
            names = [f"x{k}" for k in range(len(cols))]
        decls: dict[str, Declaration] = {}
        for name, values, dtype in zip(names, cols, dtypes, strict=True):
            decls[name] = _suggest_column(name, values, _dtype_kind(dtype), owner)
        warnings.warn(_LEAK_TEXT, PrivacyLeakWarning, stacklevel=2)
        return cls(decls, suggested=True)

    def to_code(self, name: str = "schema") -> str:
        """The Python source that builds this schema: paste it into your code to freeze it.

        Floats are written with :func:`repr`, so ``exec`` of the source gives a
        schema that encodes every record as this one does. The source carries
        no ``drafted`` mark: the schema it builds from a draft is a reviewed
        schema, which does not compare equal to the draft.

        Parameters
        ----------
        name : str, default="schema"
            The variable the source assigns.

        Returns
        -------
        str
        """
        decls = self.declarations
        used = sorted({type(d).__name__ for d in decls.values() if d is not None})
        lines = []
        if self.suggested:
            lines += ["# Drafted by PublicSchema.suggest from data: replace every bound and "
                      "vocabulary by", "# public knowledge before any private use."]
        lines += [f"from dpconvex import {', '.join([*used, 'PublicSchema'])}", "",
                  f"{name} = PublicSchema({{"]
        for col, d in decls.items():
            lines.append(f"    {_quoted(col)}: {_decl_code(d)},")
        lines.append("}, centered=True)" if self.centered else "})")
        return "\n".join(lines)


def _quoted(value: Any) -> str:
    """A str in double quotes when it needs no escaping (black's style), else ``repr``."""
    if isinstance(value, str) and '"' not in value and "\\" not in value and "'" not in value:
        return f'"{value}"'
    return repr(value)


def _decl_code(d: Declaration) -> str:
    if d is None:
        return "None"
    if isinstance(d, Numeric):
        return f"Numeric({d.low!r}, {d.high!r}{', log=True' if d.log else ''})"
    if isinstance(d, Binary):
        return f"Binary(positive={_quoted(d.positive)})"
    items = ", ".join(_quoted(v) for v in d.vocabulary)
    voc = f"({items},)" if len(d.vocabulary) == 1 else f"({items})"
    if len(voc) > 70:
        body = textwrap.fill(items, width=84, initial_indent=" " * 8, subsequent_indent=" " * 8,
                             break_long_words=False, break_on_hyphens=False)
        voc = f"(\n{body}\n    )"
    return f"Categorical({voc}{'' if d.other else ', other=False'})"


def _suggest_column(name: str, values: np.ndarray, dtype_kind: str, owner: str) -> Declaration:
    """The drafted declaration of one column (reads its values), marked ``drafted``."""
    if dtype_kind == "time":
        raise ParameterError(f"{owner}: column {name!r} holds dates or time spans; declare it by "
                             "hand with a public map.")
    kind = values.dtype.kind
    if kind == "O" and dtype_kind in ("int", "float"):  # nullable integers: NA as NaN
        values = np.array([np.nan if _is_missing(v) else v for v in values.tolist()], dtype=float)
        kind = "f"
    if kind == "b":
        return Binary(positive=True, drafted=True)
    if kind in "iuf":
        v = values.astype(np.float64)
        v = v[np.isfinite(v)]
        if v.size == 0:
            raise ParameterError(f"{owner}: column {name!r} has no finite value to draft a range "
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
        raise ParameterError(f"{owner}: column {name!r} holds dates, time spans or complex "
                             "numbers; declare it by hand with a public map.")
    seen_values = set()
    for v in values.tolist():
        if _is_missing(v):
            continue
        if kind == "O" and isinstance(v, (complex, np.complexfloating)):
            raise ParameterError(f"{owner}: column {name!r} holds complex numbers; declare it by "
                                 "hand.")
        seen_values.add(v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v))
    return Categorical(tuple(sorted(seen_values)), drafted=True)


def _is_missing(v: Any) -> bool:
    if v is None:
        return True
    if isinstance(v, float | np.floating):
        return bool(np.isnan(v))
    t = type(v)
    return t.__module__.startswith("pandas") and t.__name__ in ("NAType", "NaTType")


# --------------------------------------------------------------------------
# Reading a table
# --------------------------------------------------------------------------

def _column_array(column: Any) -> np.ndarray:
    """One column's values as a NumPy array; integers stay integers when values are missing.

    A pandas integer or bool column with missing values (nullable ``Int64``,
    ``boolean``, a ``category`` of integers) gives floats in ``to_numpy()``, whose
    text (``'1.0'``) no longer matches a vocabulary of codes; it is read as an
    object array of its values instead (missing values as NaN or ``pd.NA``).
    """
    dtype = getattr(column, "dtype", None)
    values = np.asarray(column.to_numpy() if hasattr(column, "to_numpy") else column)
    if dtype is not None and not isinstance(dtype, np.dtype) and values.dtype.kind not in "biu" \
            and _dtype_kind(dtype) in ("int", "bool") and hasattr(column, "astype"):
        values = np.asarray(column.astype(object))
    return values


def _table_columns(X: Any, owner: str) -> tuple[list[str] | None, list[np.ndarray], list[Any]]:
    """The column names (None for positional input), each column's values and its dtype.

    Takes a pandas DataFrame, a mapping of column name to 1-D values, or a 2-D
    array-like; refuses sparse matrices, Dask collections, masked arrays with
    masked entries and tables without rows, with named errors. The dtypes are
    the table's own (a pandas ``category``, ``string`` or ``Int64`` column keeps
    its dtype), for :func:`_check_dtype`.
    """
    if is_dask_collection(X):
        raise DataTypeError(f"{owner}: got a Dask collection; encode a Dask DataFrame partition "
                            "by partition with dpconvex.datasets.dask_loaders.from_dataframe(df, "
                            "schema).")
    if sp.issparse(X):
        raise DataTypeError(f"{owner}: takes a table of raw columns (a pandas DataFrame, a mapping "
                            "of columns or a 2-D array), not a sparse matrix.")
    if isinstance(X, Mapping):
        names = list(X)
        if not all(isinstance(n, str) for n in names):
            raise DataTypeError(f"{owner}: the keys of a mapping of columns must be column names "
                                "(str).")
        cols, dtypes = [], []
        for n in names:
            try:
                v = _column_array(X[n])
            except (TypeError, ValueError) as exc:
                raise DataValidationError(f"{owner}: column {n!r} is not an array ({exc}).") from None
            if v.ndim != 1:
                raise DataValidationError(f"{owner}: column {n!r} must be 1-D (one value per "
                                          f"record); got shape {v.shape}.")
            cols.append(v)
            dtypes.append(getattr(X[n], "dtype", v.dtype))
        if len({len(v) for v in cols}) > 1:
            raise DataValidationError(f"{owner}: the columns have different numbers of records.")
    elif hasattr(X, "columns") and hasattr(X, "iloc") and getattr(X, "ndim", 2) == 2:
        names = feature_names_of(X, owner)
        names = None if names is None else [str(n) for n in names]
        try:
            series = [X.iloc[:, k] for k in range(X.shape[1])]
            cols = [_column_array(c) for c in series]
        except (TypeError, ValueError) as exc:
            raise DataValidationError(f"{owner}: cannot read the columns of X ({exc}).") from None
        dtypes = [c.dtype for c in series]
    else:
        _reject_masked(X, owner, "X")
        try:
            A = np.asarray(X)
        except (TypeError, ValueError) as exc:  # ragged nested sequences
            raise DataValidationError(f"{owner}: X must be a 2-D table ({exc}).") from None
        if A.ndim != 2:
            raise DataValidationError(f"{owner}: X must be 2-D (one row per record, one column per "
                                      f"schema column); got shape {A.shape}. Reshape one record "
                                      "with X.reshape(1, -1).")
        names, cols = None, [A[:, k] for k in range(A.shape[1])]
        dtypes = [A.dtype] * A.shape[1]
    if not cols or len(cols[0]) == 0:
        raise DataValidationError(f"{owner}: X has no records or no columns.")
    return names, cols, dtypes


# --------------------------------------------------------------------------
# A column's dtype against its declaration
# --------------------------------------------------------------------------

#: What a column of each dtype kind holds, for messages.
_KIND_TEXT = {"bool": "bools", "int": "integers", "float": "floats", "complex": "complex numbers",
              "time": "dates or time spans", "text": "text"}


def _dtype_kind(dtype: Any) -> str:
    """What a column's values are, read from its dtype alone (never from the values).

    One of ``"bool"``, ``"int"`` (NumPy and nullable pandas integers),
    ``"float"``, ``"complex"``, ``"time"`` (datetime64 with or without a time
    zone, timedelta64, pandas periods), ``"text"`` (NumPy str and bytes, pandas
    ``str`` and ``string``) or ``"object"``. A pandas ``category`` column is what
    its categories are. An object column can hold anything (text, numbers,
    both), so its dtype proves nothing: it is ``"object"``, and so is any dtype
    not listed here (intervals, ...).
    """
    categories = getattr(dtype, "categories", None)
    if categories is not None and getattr(dtype, "name", None) == "category":
        return _dtype_kind(categories.dtype)
    name = str(getattr(dtype, "name", ""))
    kind = getattr(dtype, "kind", "O")
    if name in ("str", "string") or name.startswith("string"):
        return "text"
    if name.startswith("period"):
        return "time"
    return {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "complex", "M": "time",
            "m": "time", "U": "text", "S": "text"}.get(kind, "object")


def _number_text(text: str | bytes, kind: str) -> bool:
    """Whether ``str(value)`` of some value of a bool, int or float column equals ``text``."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if kind == "bool":
        return text in ("True", "False")
    convert = int if kind == "int" else float
    try:
        return str(convert(text)) == text
    except (ValueError, OverflowError):
        return False


def _binary_text_message(owner: str, column: str, positive: Any, holds: str) -> str:
    """The refusal of a numeric positive value for a column of text (one message for both checks)."""
    return (f"{owner}: binary column {column!r} holds {holds}, but its positive value "
            f"{_shown(positive)} is a number, which no text equals: every record would be 0. "
            "Declare Binary(positive=...) with the text that means yes, e.g. "
            "Binary(positive=\"yes\").")


def _check_dtype(schema: PublicSchema, column: str, dtype: Any, owner: str) -> None:
    """Refuse a declaration that no value of the column's dtype can match, from the dtype alone.

    One rule for every column type, read from the dtype and the public
    declaration only (no value and no statistic of the data):

    * ``Numeric``: a column of text or of dates/time spans is refused.
    * ``Categorical``: the values are compared with the vocabulary as text, so
      over a bool, integer or float column every vocabulary entry must be the
      ``str`` of such a value (``"3"`` for an integer, ``"3.0"`` for a float,
      ``"True"`` for a bool); a column of dates is refused.
    * ``Binary``: a numeric positive value over a column of text, a text
      positive value that is not the ``str`` of a value of a bool, integer or
      float column, a positive value no integer (or bool) equals over an
      integer (bool) column, and a column of dates are refused.

    An object column can hold anything, so its dtype proves nothing and it
    passes here: the value checks that follow still refuse text in a numeric
    column and, for a binary column with a numeric positive value, text among
    the values; a categorical or text-positive binary column of objects is
    compared as text, value by value, as documented.

    Raises
    ------
    DataTypeError
        The declaration and the dtype cannot match; the message names the
        column, its dtype and the declaration to write instead.
    """
    kind = _dtype_kind(dtype)
    holds = f"{_KIND_TEXT.get(kind, 'objects')} (dtype {dtype})"
    if column in schema.numeric:
        if kind == "text":
            raise DataTypeError(
                f"{owner}: column {column!r} is declared Numeric but holds {holds}, and dpconvex "
                "does not read numbers from text. Declare it Categorical(...) with its public "
                "vocabulary, or convert it to numbers yourself first (e.g. pandas.to_numeric).")
        if kind == "time":
            raise DataTypeError(
                f"{owner}: column {column!r} is declared Numeric but holds {holds}; convert it to "
                "numbers with a public map first (e.g. days since a fixed date).")
        return
    if kind == "time" and (column in schema.categories or column in schema.binary):
        raise DataTypeError(
            f"{owner}: column {column!r} holds {holds}, which are not compared as categories; "
            "convert them to text with a public format first (e.g. df[col].dt.strftime('%Y-%m')) "
            "or to numbers and declare Numeric(...).")
    if column in schema.categories and kind in ("bool", "int", "float"):
        vocabulary = schema.categories[column]
        never = [v for v in vocabulary if not _number_text(v, kind)]
        if never:
            fix = {
                "int": "Map the codes to the public vocabulary first (e.g. df[col].map({0: "
                       "'basic', 1: 'plus', ...}) from the code list), or declare the codes' text "
                       "as the vocabulary, Categorical((\"0\", \"1\", ...)).",
                "float": "A column of integer codes is float when it has missing values: convert "
                         "it with df[col].astype('Int64') and declare the codes' text as the "
                         "vocabulary, or map the codes to the public vocabulary first.",
                "bool": "Declare it Binary(positive=True), or Categorical((\"False\", \"True\")).",
            }[kind]
            raise DataTypeError(
                f"{owner}: categorical column {column!r} holds {holds}, which are compared with "
                f"the vocabulary as text, and the vocabulary entries {_shown(never)} are not the "
                f"text of any such value: every record would go to the '{OTHER}' slot. {fix}")
    if column in schema.binary:
        positive = schema.binary[column]
        if isinstance(positive, str):
            if kind in ("bool", "int", "float") and not _number_text(positive, kind):
                raise DataTypeError(
                    f"{owner}: binary column {column!r} holds {holds}, which are compared with the "
                    f"positive value {_shown(positive)} as text, and no such value has that text: "
                    "every record would be 0. Declare the positive value as the number (or bool) "
                    "that means yes, e.g. Binary(positive=1).")
        elif kind == "text":
            raise DataTypeError(_binary_text_message(owner, column, positive, holds))
        elif (kind == "bool" and positive not in (0, 1)) or (
                kind == "int" and isinstance(positive, float) and not positive.is_integer()):
            raise DataTypeError(
                f"{owner}: binary column {column!r} holds {holds}, and none of them equals the "
                f"positive value {_shown(positive)}: every record would be 0. Declare the value "
                "that means yes, e.g. Binary(positive=1) (or positive=True for bools).")


def _numeric_values(values: np.ndarray, column: str, owner: str) -> np.ndarray:
    """A column of real numbers as a new float64 array; NaN and infinities refused."""
    check_numeric_dtype(values, owner, f"column {column!r}")
    try:
        x = np.array(values, dtype=np.float64, copy=True)
    except (TypeError, ValueError, OverflowError):
        raise DataValidationError(f"{owner}: column {column!r} must hold real numbers that fit in "
                                  "float64.") from None
    if not np.all(np.isfinite(x)):  # the message counts nothing (a data statistic)
        raise DataValidationError(
            f"{owner}: column {column!r} contains NaN or infinite values. Drop those records or "
            "fill them with a public value first (a value computed from the data costs privacy).")
    return x


def _category_codes(values: np.ndarray, vocabulary: Sequence[Any]) -> np.ndarray:
    """Index of each value in the vocabulary, -1 if it is not listed (bytes match their text)."""
    index: dict[Any, int] = {}
    for i, cat in enumerate(vocabulary):
        index[cat] = i
    for i, cat in enumerate(vocabulary):
        alias = cat.encode("utf-8") if isinstance(cat, str) else cat.decode("utf-8", "replace")
        index.setdefault(alias, i)
    get = index.get
    seq = values.tolist() if isinstance(values, np.ndarray) else values
    return np.fromiter(
        (get(v, -1) if isinstance(v, (str, bytes)) else (-1 if _is_missing(v) else get(str(v), -1))
         for v in seq), dtype=np.intp, count=len(seq))


def _binary_values(values: np.ndarray, positive: Any, column: str, owner: str) -> np.ndarray:
    """1.0 where a value equals ``positive``, else 0.0; missing values refused."""
    kind = values.dtype.kind
    if kind in "biuf" and not isinstance(positive, str):
        if kind == "f" and np.any(np.isnan(values)):
            raise DataValidationError(f"{owner}: binary column {column!r} contains missing (NaN) "
                                      "values; drop those records or fill them with a public "
                                      "value first.")
        return (values == positive).astype(np.float64)
    seq = values.tolist()
    out = np.empty(len(seq), dtype=np.float64)
    for i, v in enumerate(seq):
        if _is_missing(v):
            raise DataValidationError(f"{owner}: binary column {column!r} contains missing values "
                                      "(None, NaN, pandas NA); drop those records or fill them "
                                      "with a public value first.")
        if isinstance(positive, str):
            text = v if isinstance(v, str) else (v.decode("utf-8", "replace")
                                                 if isinstance(v, bytes) else str(v))
            out[i] = text == positive
        elif isinstance(v, (str, bytes)):
            raise DataTypeError(_binary_text_message(owner, column, positive, "text"))
        else:
            out[i] = v == positive
    return out


# --------------------------------------------------------------------------
# The per-record map
# --------------------------------------------------------------------------

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


def encode_parts(
    schema: PublicSchema,
    numeric: Mapping[str, np.ndarray],
    codes: Mapping[str, np.ndarray],
    binary: Mapping[str, np.ndarray] | None = None,
) -> np.ndarray:
    """Assemble the encoded rows from checked columns (float64 numbers, vocabulary codes, 0/1).

    The shared last step of :class:`PublicEncoder` and
    :func:`dpconvex.datasets.encoding.encode`: each numeric column clipped and
    mapped, each categorical code one-hot (``-1``: the "other" slot, or an
    all-zero block), each binary value copied, every row divided by
    ``schema.divisor``.

    Parameters
    ----------
    schema : PublicSchema
    numeric : mapping of str to float64 array
        Every numeric column of the schema (finite or clipped values).
    codes : mapping of str to intp array
        Every categorical column: indices into its vocabulary, -1 outside it.
    binary : mapping of str to float64 array, optional
        Every binary column as 0.0 / 1.0.

    Returns
    -------
    ndarray of shape (n_records, schema.n_features), dtype float64
        Every row has Euclidean norm at most 1.
    """
    binary = {} if binary is None else binary
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


# --------------------------------------------------------------------------
# The transformer
# --------------------------------------------------------------------------

class PublicEncoder(TransformerMixin, BaseEstimator):
    """Encode a table by a public schema: per-record maps only, rows of norm <= ``data_norm``.

    ``fit`` only checks (the columns, their types, the values' validity) and
    records ``feature_names_in_`` and ``n_features_in_``; it reads no
    statistic of the data, so two fits on tables with the same columns leave
    identical encoders. ``transform`` maps every record by itself and the
    schema's constants: numeric columns clipped to their range and scaled
    (optionally by ``log1p``), categorical columns one-hot over their
    vocabulary (an unknown value to the "other" slot), binary columns to 0/1,
    then every row divided by the schema's public divisor and, with
    ``row_norm="unit"``, scaled to norm ``data_norm`` (docs/privacy.md §12.5).

    Parameters
    ----------
    schema : PublicSchema
        The public description of the table. A schema drafted by
        :meth:`PublicSchema.suggest` is read from data: ``fit`` warns
        :class:`~dpconvex.errors.PrivacyLeakWarning` until it is written into
        code (:meth:`PublicSchema.to_code`).
    row_norm : {None, "unit"}, default=None
        None: rows divided by the public divisor (norm <= ``data_norm``).
        "unit": every non-zero row then scaled to norm ``data_norm`` (a map of
        the record itself; zero rows stay zero).
    data_norm : float, default=1.0
        The norm bound q of the rows, to match the ``data_norm`` of the private
        estimator that follows.

    Attributes
    ----------
    n_features_in_ : int
        The number of columns of the table (``len(schema.columns)``).
    feature_names_in_ : ndarray of str
        The column names, when fitted on a DataFrame or a mapping of columns.

    Notes
    -----
    A pandas DataFrame (or a mapping of column name to values) must have
    exactly the schema's columns in the schema's order; a missing, extra,
    renamed or reordered column is refused with a
    :class:`~dpconvex.errors.DataValidationError` that names it. A NumPy array
    (or a frame without string column names) is read by position, column ``k``
    as ``schema.columns[k]``, by an encoder fitted on one; an encoder fitted on
    named columns refuses it. Each column's dtype must suit its declaration
    (text is not Numeric, integer codes do not match a vocabulary of names):
    a mismatch the dtype proves is refused with a
    :class:`~dpconvex.errors.DataTypeError` before any value is read.

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

    def __init__(self, schema: PublicSchema, *, row_norm: str | None = None,
                 data_norm: float = 1.0) -> None:
        self.schema = schema
        self.row_norm = row_norm
        self.data_norm = data_norm

    # ---------------------------------------------------------------- checks
    def _params(self) -> tuple[PublicSchema, str | None, float]:
        owner = type(self).__name__
        if not isinstance(self.schema, PublicSchema):
            raise ParameterError(f"The 'schema' parameter of {owner} must be a PublicSchema, e.g. "
                                 "PublicSchema({'age': Numeric(0, 120)}). Got "
                                 f"{_shown(self.schema)} instead.")
        row_norm = check_row_norm(self.row_norm, owner)
        q = check_float("data_norm", self.data_norm, owner)
        return self.schema, row_norm, q

    def _read(self, X: Any, schema: PublicSchema) -> tuple[np.ndarray | None, dict[str, Any]]:
        """Check the table against the schema; return its names and the encoder's inputs."""
        owner = type(self).__name__
        names, cols, dtypes = _table_columns(X, owner)
        expected = list(schema.columns)
        if names is not None and names != expected:
            missing = [c for c in expected if c not in names]
            extra = [c for c in names if c not in expected]
            parts = []
            if missing:
                parts.append(f"missing column(s) {missing!r}")
            if extra:
                parts.append(f"column(s) not in the schema {extra!r}")
            if not parts:
                parts.append("the columns are in a different order")
            raise DataValidationError(
                f"{owner}: the columns of X differ from the schema's: {'; '.join(parts)}. Pass "
                f"exactly the schema's columns in its order, X[list(schema.columns)], or declare "
                "an unused column as None in the schema.")
        if names is None and len(cols) != len(expected):
            raise DataValidationError(
                f"{owner}: X has {len(cols)} column(s), but the schema declares {len(expected)} "
                f"(read by position, in this order: {_shown(expected)}).")
        for col, dtype in zip(expected, dtypes, strict=True):
            _check_dtype(schema, col, dtype, owner)
        parts: dict[str, Any] = {"numeric": {}, "codes": {}, "binary": {}}
        for col, values in zip(expected, cols, strict=True):
            if col in schema.numeric:
                parts["numeric"][col] = _numeric_values(values, col, owner)
            elif col in schema.categories:
                if values.dtype.kind == "c":
                    raise DataTypeError(f"{owner}: categorical column {col!r} holds complex "
                                        "numbers.")
                parts["codes"][col] = _category_codes(values, schema.categories[col])
            elif col in schema.binary:
                parts["binary"][col] = _binary_values(values, schema.binary[col], col, owner)
        return (None if names is None else np.asarray(names, dtype=object)), parts

    def _encode(self, parts: dict[str, Any], schema: PublicSchema, row_norm: str | None,
                q: float) -> np.ndarray:
        Z = encode_parts(schema, parts["numeric"], parts["codes"], parts["binary"])
        if row_norm == "unit":
            return normalize_rows(Z, q)
        if q != 1.0:
            Z *= q
        return Z

    def _start(self) -> tuple[PublicSchema, str | None, float]:
        params = self._params()
        if params[0].suggested:
            warnings.warn(_SUGGESTED_TEXT, PrivacyLeakWarning, stacklevel=3)
        return params

    # ---------------------------------------------------------------- API
    def fit(self, X: Any, y: Any = None) -> PublicEncoder:
        """Check X against the schema and record its column names; read no statistic.

        Parameters
        ----------
        X : pandas.DataFrame, mapping of str to 1-D values, or 2-D array-like
            The table: the schema's columns in its order (an array: by position).
        y : ignored

        Returns
        -------
        PublicEncoder
            self.

        Raises
        ------
        ParameterError
            A parameter that is not valid.
        DataValidationError
            Columns that differ from the schema's, no record, a numeric value
            that is NaN or infinite, a missing binary value.
        DataTypeError
            Text in a numeric column, a sparse matrix, a Dask collection, or a
            column whose dtype no value of its declaration can match (text
            declared Numeric, integer codes against a vocabulary of names, a
            numeric positive value over a column of text).
        """
        schema, _, _ = self._start()
        names, _ = self._read(X, schema)
        self.n_features_in_ = len(schema.columns)
        return with_feature_names(self, names)

    def fit_transform(self, X: Any, y: Any = None, **fit_params: Any) -> np.ndarray:
        """``fit(X).transform(X)``, reading X once.

        Returns
        -------
        ndarray of shape (n_records, schema.n_features), dtype float64
        """
        schema, row_norm, q = self._start()
        names, parts = self._read(X, schema)
        Z = self._encode(parts, schema, row_norm, q)
        self.n_features_in_ = len(schema.columns)
        with_feature_names(self, names)
        return Z

    def transform(self, X: Any) -> np.ndarray:
        """Encode every record of X by itself and the schema's public constants.

        Parameters
        ----------
        X : pandas.DataFrame, mapping of str to 1-D values, or 2-D array-like
            As in :meth:`fit`. An encoder fitted on named columns (a DataFrame
            or a mapping) takes named columns only: an array would be read by
            position, and two swapped columns would go unnoticed.

        Returns
        -------
        ndarray of shape (n_records, schema.n_features), dtype float64
            Every row has Euclidean norm at most ``data_norm`` (exactly
            ``data_norm`` for non-zero rows with ``row_norm="unit"``).

        Raises
        ------
        DataValidationError
            As in :meth:`fit`; also X without column names (a NumPy array, a
            frame with unnamed columns) when the encoder was fitted with names.
        """
        check_fitted(self, "n_features_in_")
        owner = type(self).__name__
        if getattr(self, "feature_names_in_", None) is not None and not isinstance(X, Mapping) \
                and feature_names_of(X, owner) is None and not is_dask_collection(X) \
                and not sp.issparse(X):
            raise DataValidationError(
                f"{owner} was fitted on a table with named columns, but X has no column names (a "
                "NumPy array or a frame with unnamed columns); its columns would be read by "
                "position, and swapped columns would go unnoticed. Pass a pandas DataFrame with the "
                "schema's columns by name, in its order: X[list(schema.columns)] of the original "
                "frame, or pd.DataFrame(X, columns=list(schema.columns)) once the order is checked.")
        if not isinstance(X, Mapping):
            check_feature_names(self, X)
        schema, row_norm, q = self._params()
        _, parts = self._read(X, schema)
        return self._encode(parts, schema, row_norm, q)

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """Names of the encoded features: numeric and binary columns, ``column=category``.

        Parameters
        ----------
        input_features : array-like of str or None
            If given, must equal the schema's columns.

        Returns
        -------
        ndarray of str objects
        """
        check_fitted(self, "n_features_in_")
        schema = self._params()[0]
        if input_features is not None and list(input_features) != list(schema.columns):
            raise DataValidationError(f"{type(self).__name__}: input_features must be the schema's "
                                      f"columns {_shown(list(schema.columns))}.")
        return np.asarray(schema.feature_names, dtype=object)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.input_tags.sparse = False
        tags.input_tags.allow_nan = False
        tags.transformer_tags.preserves_dtype = ["float64"]
        return tags
