"""Public schemas: a table described column by column, with constants known before any record.

A :class:`PublicSchema` declares each column :class:`Numeric`, :class:`Categorical`,
:class:`Binary` or ``None`` (present, not used); it fixes the encoded features and the
public divisor of every encoded row (:func:`norm_divisor`). A
:class:`~dpconvex.data.UniformSchema` (:meth:`~dpconvex.PublicSchema.every_column`) declares every
column of a table alike, however many it has. Nothing here reads data:
:class:`dpconvex.data.encoder.PublicEncoder` applies a schema record by record, and
:func:`dpconvex.draft_schema` drafts one from a table, for a person to review.
"""

from __future__ import annotations

import copy
import hashlib
import keyword
import math
import weakref
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from .._validation import _short_repr, check_bool, check_float, check_int
from ..errors import ParameterError
from .ranged_rows import SUGGESTED_SOURCE

__all__ = ["Binary", "Categorical", "Numeric", "PublicSchema", "UniformSchema", "UniformWidth",
           "norm_divisor"]

#: The suffix of the feature that takes a categorical value outside the vocabulary.
OTHER = "<other>"

#: The certificates :func:`~dpconvex.draft_schema` returned in this process, by identity: the
#: only ones ``PublicSchema(release=)`` takes. A :class:`~dpconvex.Certificate` is a plain
#: record anyone can build with any (epsilon, delta), so an equal one built by hand, or one
#: reloaded from a pickle, is not a release dpconvex made and is refused
#: (docs/privacy/bounds.md#privacy-bounds-composition).
_ISSUED: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()


def _record_release(certificate: Any) -> None:
    """Record ``certificate`` as a schema release :func:`~dpconvex.draft_schema` made (called
    by draft_schema only, on the certificate it returns)."""
    _ISSUED[id(certificate)] = certificate


def issued_release(schema: Any, caller: str) -> Any:
    """The release ``schema`` carries (None for a schema of public knowledge), refused unless
    it is a certificate :func:`~dpconvex.draft_schema` returned in this process.

    The check runs where a schema is built and again before a front door or a draft composes
    its release, since a schema reloaded from a pickle is not built again.

    Parameters
    ----------
    schema : PublicSchema, UniformSchema or None
        The schema whose ``release`` is read.
    caller : str
        The public call that opens the refusal.

    Returns
    -------
    Certificate or None
        ``schema.release``.

    Raises
    ------
    ParameterError
        The release is a certificate draft_schema did not return in this process: one built
        by hand, or one reloaded from a pickle (this process cannot tell the two apart).

    Examples
    --------
    >>> from dpconvex import Numeric, PublicSchema
    >>> issued_release(PublicSchema({"a": Numeric(0, 1)}), "Demo.fit") is None
    True
    """
    release = getattr(schema, "release", None)
    if release is not None and _ISSUED.get(id(release)) is not release:
        raise ParameterError(
            f"{caller}: release= must be the certificate draft_schema returned (schema.release) "
            "in this Python process; this one was not: a certificate built by hand, or one "
            "reloaded from a pickle, cannot be told from a release dpconvex made. Draft the "
            "schema again with draft_schema(..., epsilon=...), or declare its columns without "
            "release= (PublicSchema(schema.declarations)) and state that release yourself."
        )
    return release


def _repeated(items: Any) -> list[Any]:
    """The items that occur more than once in ``items``, sorted (one count of each)."""
    return sorted(item for item, count in Counter(items).items() if count > 1)


def _names_shown(names: Sequence[Any], shown: int = 5) -> str:
    """The first ``shown`` names, quoted, and how many more (a message's length bounded)."""
    names = list(names)
    text = ", ".join(repr(c) for c in names[:shown])
    return text + (f" and {len(names) - shown} more" if len(names) > shown else "")


def _check_range(column: str, rng: object, caller: str) -> None:
    """A public range (lo, hi): two finite floats with lo < hi (``caller`` opens the message)."""
    msg = (
        f"{caller}: the range of {column!r} must be two finite numbers (lo, hi) with lo < hi and "
        f"hi - lo < 1.8e308. Got {_short_repr(rng)} instead."
    )
    if isinstance(rng, (str, bytes)) or not isinstance(rng, Sequence) or len(rng) != 2:
        raise ParameterError(msg)
    lo, hi = rng
    if any(
        isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating))
        for v in (lo, hi)
    ):
        raise ParameterError(msg)
    try:
        flo, fhi = float(lo), float(hi)
    except OverflowError:
        raise ParameterError(msg) from None
    if not (math.isfinite(flo) and math.isfinite(fhi) and flo < fhi and math.isfinite(fhi - flo)):
        raise ParameterError(msg)


def _are_pairs(ranges: Any) -> bool:
    """Whether ``ranges`` is a non-empty array of shape (k, 2), or a non-empty sequence whose
    items are sequences (not str) or arrays of length 2: the form of ``from_ranges``'s ranges,
    whose values :func:`_check_range` then checks one by one."""
    if isinstance(ranges, np.ndarray):
        return ranges.ndim == 2 and ranges.shape[0] >= 1 and ranges.shape[1] == 2
    if isinstance(ranges, (str, bytes)) or not isinstance(ranges, Sequence) or not ranges:
        return False
    return all(
        isinstance(rng, np.ndarray) and rng.shape == (2,)
        or isinstance(rng, Sequence) and not isinstance(rng, (str, bytes)) and len(rng) == 2
        for rng in ranges
    )


def _check_bools(obj: Any, *names: str) -> None:
    """Refuse attributes ``names`` of a frozen dataclass that are not bools; store them as bool."""
    for name in names:
        object.__setattr__(obj, name, check_bool(name, getattr(obj, name), type(obj).__name__))


def _number(text: str | bytes) -> bool:
    """Whether a text is that of a finite number (a category a numeric column matches, a CSV cell)."""
    try:
        return math.isfinite(float(text))
    except (TypeError, ValueError, OverflowError):
        return False


def _left_empty(table: Any) -> bool:
    """Whether a table of :class:`PublicSchema` is left at its empty default (an array or any
    object without a length counts as given, and is refused as such)."""
    return table is None or (isinstance(table, (Mapping, Sequence, frozenset, set))
                             and len(table) == 0)


def _declaration_repr(decl: Any) -> str:
    """``Numeric(low=0.0, high=1.0, log=False)``, with ``drafted=True`` only when it is set."""
    shown = [f"{f.name}={getattr(decl, f.name)!r}" for f in fields(decl)
             if f.name != "drafted" or decl.drafted]
    return f"{type(decl).__name__}({', '.join(shown)})"


# ------------------------------------------------------ Column declarations

@dataclass(frozen=True)
class Numeric:
    """A numeric column with a public range: clipped to ``[low, high]``, mapped onto ``[0, 1]``.

    Parameters
    ----------
    low, high : float
        The public range (finite, ``low < high``), known without the data: a documented bound, a format's
        limit, a regulation. Values outside it are clipped.
    log : bool, default=False
        Map by ``log1p(x - low) / log1p(high - low)`` instead of linearly (for
        heavy-tailed columns such as amounts and counts).
    drafted : bool, default=False
        Set by :func:`~dpconvex.draft_schema`: read from data, not public (a schema
        holding it is a draft; see :attr:`PublicSchema.declarations`).

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
        _check_bools(self, "drafted", "log")
        object.__setattr__(self, "low", float(self.low))
        object.__setattr__(self, "high", float(self.high))


@dataclass(frozen=True)
class Categorical:
    """A categorical column with a public vocabulary, one-hot encoded in the vocabulary's order.

    Parameters
    ----------
    vocabulary : sequence of str
        The public list of categories (from the data's documentation, a code
        list, a form), never read from the records.
    other : bool, default=True
        Add an "other" slot (feature ``"<column>=<other>"``) set by a value that is not in the vocabulary, a
        missing value included; with False such a value gives an all-zero block. Values that are not strings
        are compared as ``str(value)``, so a column of numbers needs the numbers' text as vocabulary (``("0",
        "1", "2")`` for integer codes); a vocabulary that no value of the column's dtype can match is refused.
        An empty vocabulary is valid with ``other=True`` (every value then sets the one feature
        ``"<column>=<other>"``: what a column whose categories are all unknown or withheld
        encodes, e.g. one where a private draft released no category) and refused with
        ``other=False`` (no feature at all).
    drafted : bool, default=False
        As in :class:`Numeric`.

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
        _check_bools(self, "drafted", "other")
        voc = self.vocabulary
        if isinstance(voc, (str, bytes)) or not isinstance(voc, (Sequence, np.ndarray)) or \
                isinstance(voc, np.ndarray) and voc.ndim != 1 or \
                not all(isinstance(v, (str, bytes)) for v in voc):
            raise ParameterError("The 'vocabulary' parameter of Categorical must be a sequence of "
                                 f"categories (str). Got {_short_repr(voc)} instead.")
        numbers = [float(v) for v in voc if _number(v)]  # "1" and "1.0": one value of a column
        if len(set(voc)) != len(voc) or len(set(numbers)) != len(numbers):
            raise ParameterError("The 'vocabulary' parameter of Categorical repeats a category "
                                 "(or lists two texts of one number, e.g. '1' and '1.0').")
        if not len(voc) and not self.other:  # (empty with other=True: a private draft's may be)
            raise ParameterError(
                "The 'vocabulary' parameter of Categorical must list a category when "
                "other=False (else it encodes no feature). Got an empty one instead."
            )
        object.__setattr__(self, "vocabulary", tuple(voc))


@dataclass(frozen=True)
class Binary:
    """A two-valued column: one feature, 1 where the value equals ``positive``, else 0.

    Parameters
    ----------
    positive : str, int, float or bool, default=1
        The value that gives 1. With a str, values that are not strings are compared as ``str(value)``; with a
        number, the column must hold numbers. A positive value that no value of the column's dtype can equal
        is refused. A missing value (NaN, None) is refused rather than read as 0.
    drafted : bool, default=False
        As in :class:`Numeric`.

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
        _check_bools(self, "drafted")
        p = self.positive
        if isinstance(p, np.generic):
            p = p.item()
        ok = isinstance(p, (str, bool, int)) or (isinstance(p, float) and math.isfinite(p))
        if not ok or (isinstance(p, int) and abs(p) > 2**53):
            raise ParameterError("The 'positive' parameter of Binary must be a str, a bool or a "
                                 f"finite number. Got {_short_repr(self.positive)} instead.")
        object.__setattr__(self, "positive", p)


Declaration = Numeric | Categorical | Binary | None


# --------------------------------------------------------------- The schema

def norm_divisor(numeric: Mapping[str, tuple[float, float]] | Sequence[object],
                 categories: Mapping[str, Sequence[str]] | None = None, *, centered: bool = False,
                 binary: int = 0) -> float:
    """Return the public constant every encoded row is divided by.

    Each numeric feature lies in ``[0, 1]`` (``[-1/2, 1/2]`` when ``centered``: b = 1/2,
    else b = 1), each one-hot block holds at most one 1 and each binary feature is 0 or 1,
    so an encoded row has squared norm at most ``b**2 * len(numeric) + len(categories) +
    binary``; its square root is the divisor, and the divided rows have norm at most 1 for
    *every* possible record (``sqrt(13)`` for Adult, ``sqrt(41)`` for KDD Cup 1999).

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

    References
    ----------
    .. [CMS] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially Private
       Empirical Risk Minimization. JMLR 12, 2011, Section 7 (rows scaled to norm <= 1).
    """
    owner = "norm_divisor"
    if isinstance(numeric, (str, bytes)) or not isinstance(numeric, (Mapping, Sequence)):
        raise ParameterError(
            f"The 'numeric' parameter of {owner} must be a mapping of the numeric "
            f"columns' ranges (or a sequence of them). Got {_short_repr(numeric)}."
        )
    if categories is not None and not isinstance(categories, Mapping):
        raise ParameterError(
            f"The 'categories' parameter of {owner} must be None or a mapping of "
            f"the categorical columns' vocabularies. Got {_short_repr(categories)}."
        )
    check_bool("centered", centered, owner)
    check_int("binary", binary, owner, low=0)
    n_other = (len(categories) if categories is not None else 0) + int(binary)
    return _divisor(len(numeric), n_other, centered)


def _divisor(n_numeric: int, n_other: int, centered: bool) -> float:
    """:func:`norm_divisor` of ``n_numeric`` numeric features and ``n_other`` one-hot blocks
    and binary features (each adds at most 1 to the squared norm)."""
    if centered:
        # 0.25 * n is exact, and a correctly rounded sqrt commutes with the
        # factor 1/4, so an all-numeric table gets exactly sqrt(n) / 2.
        return math.sqrt(0.25 * n_numeric + n_other)
    return math.sqrt(n_numeric + n_other)


@dataclass(frozen=True, eq=False)
class PublicSchema:
    """Public description of a table: what each column is and how it is encoded.

    Declared per column, ``PublicSchema({"age": Numeric(0, 120), ...})``, or by tables, with
    constants known without the data (:func:`~dpconvex.draft_schema` drafts one for review;
    :meth:`to_code` prints it as source). Equal schemas encode every record the same way and
    draft the same columns.

    Parameters
    ----------
    columns : mapping of str to declaration, or tuple of str
        A mapping: every column of the table, in order, to ``Numeric(...)``, ``Categorical(...)``,
        ``Binary(...)`` or ``None`` (present, not used). A tuple: the column names in order; a column that is
        in none of the tables below is present and not used (e.g. Adult's ``fnlwgt``).
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
        The schema was read from data and is not public (:class:`PublicEncoder` warns).
        Set by :func:`~dpconvex.draft_schema`, and whenever a declaration carries the
        ``drafted`` mark; with ``suggested=True`` every feature column is drafted.
    release : Certificate or None, default=None
        The certificate of the private release that produced this schema
        (:func:`~dpconvex.draft_schema` with ``epsilon``); a front door given the schema
        states it as a part of its own certificate. None for public knowledge. Only the
        certificate draft_schema returned, in this Python process, is taken (a copy of the
        schema keeps it); a certificate built by hand, or reloaded from a pickle, is refused
        (:func:`issued_release`).

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
    release: Any = field(default=None, repr=False)
    _drafted: frozenset[str] = field(default=frozenset(), init=False, repr=False)

    def __post_init__(self) -> None:
        """Refuse a schema the encoder cannot apply (named :class:`ParameterError`)."""
        owner, caller = "PublicSchema", "PublicSchema.__init__"
        drafted = (
            self._from_declarations(caller) if isinstance(self.columns, Mapping) else frozenset()
        )
        cols = self.columns
        if isinstance(cols, (str, bytes)) or not isinstance(cols, Sequence) or not all(
                isinstance(c, str) for c in cols):
            raise ParameterError(
                f"The 'columns' parameter of {owner} must be a mapping of column "
                "names to declarations (Numeric, Categorical, Binary, None) or a "
                f"sequence of column names (str). Got {_short_repr(cols)} instead."
            )
        if len(set(cols)) != len(cols):
            dup = _repeated(cols)
            raise ParameterError(f"The 'columns' parameter of {owner} repeats {dup!r}; each "
                                 "column appears once.")
        known = set(cols)  # a set: the check is linear in the number of columns
        for name, table in (("numeric", self.numeric), ("categories", self.categories),
                            ("binary", self.binary)):
            if not isinstance(table, Mapping):
                raise ParameterError(
                    f"The '{name}' parameter of {owner} must be a mapping keyed by "
                    f"column name. Got {_short_repr(table)} instead."
                )
            unknown = [c for c in table if c not in known]
            if unknown:
                raise ParameterError(f"The '{name}' parameter of {owner} names column(s) "
                                     f"{unknown!r} that are not in 'columns'; declare them in "
                                     "'columns' or remove them.")
        kinds = [*self.numeric, *self.categories, *self.binary]
        both = _repeated(kinds)
        if both:
            raise ParameterError(f"{caller}: column(s) {both!r} are declared twice (numeric, "
                                 "categorical or binary: one each).")
        for c, rng in self.numeric.items():
            _check_range(c, rng, caller)
        for c, vocabulary in self.categories.items():
            try:
                Categorical(
                    vocabulary,
                    other=not isinstance(self.other, (set, frozenset)) or c in self.other,
                )
            except ParameterError as exc:
                raise ParameterError(f"{caller}: column {c!r}: {exc}") from None
        for positive in self.binary.values():
            Binary(positive)
        for name, subset, within in (("log_scaled", self.log_scaled, self.numeric),
                                     ("other", self.other, self.categories)):
            if not isinstance(subset, (set, frozenset)) or any(c not in within for c in subset):
                kind = "numeric" if name == "log_scaled" else "categorical"
                raise ParameterError(f"The '{name}' parameter of {owner} must be a set of {kind} "
                                     f"columns. Got {_short_repr(subset)} instead.")
        if self.release is not None:
            from ..privacy.certificate import Certificate

            if not isinstance(self.release, Certificate):
                raise ParameterError(f"The 'release' parameter of {owner} must be a Certificate "
                                     f"or None. Got {_short_repr(self.release)} instead.")
            if self.suggested or drafted:
                raise ParameterError(f"{caller}: a schema read from data (drafted) cannot carry "
                                     "a private release's certificate.")
            issued_release(self, caller)
        _check_bools(self, "centered", "suggested")
        names = self.feature_names
        if not names:
            raise ParameterError(f"{caller}: the schema uses no column; declare at least one "
                                 "Numeric, Categorical or Binary (None marks a column that is "
                                 "present and not used).")
        if len(set(names)) != len(names):
            dup = _repeated(names)
            raise ParameterError(f"{caller}: the encoded feature names {dup!r} repeat; rename a "
                                 "column or a category.")
        if self.suggested and not drafted:
            drafted = frozenset(self.features)
        object.__setattr__(self, "_drafted", drafted)
        object.__setattr__(self, "suggested", bool(self.suggested or drafted))
        if self.release is not None and not set(self.fingerprint.split()) <= set(
                str(self.release.released.get("released schema", "")).split()):
            raise ParameterError(
                f"{caller}: release= must be the certificate draft_schema released with "
                "these declarations (schema.release); this one is another schema's, or "
                "not draft_schema's. Leave release=None for a schema of public knowledge."
            )

    def __deepcopy__(self, memo: dict[int, Any]) -> PublicSchema:
        """A deep copy whose ``release`` is the same certificate: the record of the one
        release that made this schema (a copy made by ``sklearn.clone`` keeps it)."""
        copied = copy.copy(self)
        memo[id(self)] = copied
        for f in fields(self):
            if f.name != "release":
                object.__setattr__(copied, f.name, copy.deepcopy(getattr(self, f.name), memo))
        return copied

    @property
    def fingerprint(self) -> str:
        """Per column, SHA-256 (12 hex digits) of its name and declaration: the certificate of
        :func:`~dpconvex.draft_schema` carries the released schema's; ``release=`` must hold each."""
        return " ".join(hashlib.sha256(repr((c, d)).encode()).hexdigest()[:12]
                        for c, d in self.declarations.items())

    def _from_declarations(self, caller: str) -> frozenset[str]:
        """Unpack ``columns={name: Numeric | Categorical | Binary | None}`` into the tables.

        Returns the columns whose declaration carries the ``drafted`` mark.
        """
        tables = (self.numeric, self.categories, self.binary, self.log_scaled, self.other)
        if not all(_left_empty(t) for t in tables):
            raise ParameterError(
                f"{caller}: declare the columns either by a mapping of declarations or "
                "by the tables (numeric=, categories=, ...), not both."
            )
        numeric, categories, binary, log, other = {}, {}, {}, set(), set()
        drafted = set()
        for name, decl in self.columns.items():
            if not isinstance(name, str):
                raise ParameterError(
                    f"{caller}: column names must be str. Got {_short_repr(name)}."
                )
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
                raise ParameterError(
                    f"{caller}: the declaration of {name!r} must be Numeric(...), "
                    f"Categorical(...), Binary(...) or None (not used). Got "
                    f"{_short_repr(decl)} instead."
                )
        for attr, value in (("columns", tuple(self.columns)), ("numeric", numeric),
                            ("categories", categories), ("binary", binary),
                            ("log_scaled", frozenset(log)), ("other", frozenset(other))):
            object.__setattr__(self, attr, value)
        return frozenset(drafted)

    # ---------------------------------------------------------------- views
    @property
    def declarations(self) -> dict[str, Declaration]:
        """Each column's declaration, in column order (``None``: present, not used).

        The declarations of a draft carry ``drafted=True``, so ``PublicSchema(draft.declarations)`` is a draft
        too, and so is a schema that keeps any of them; a declaration written in code replaces the mark.
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
            ", suggested=True" if self.suggested else ""
        )
        return f"PublicSchema({{{body}}}{extra})"

    @property
    def provenance(self) -> str | None:
        """The certificate line of rows this schema encodes, where it is not public knowledge."""
        if self.suggested:
            return SUGGESTED_SOURCE
        if self.release is not None:
            return (
                "the schema was released by draft_schema at epsilon = "
                f"{self.release.epsilon:.6g}, "
                f"delta = {self.release.delta:.3g} (its certificate: schema.release), a release "
                "of "
                "its own from the data set: the two epsilons and deltas add"
            )
        return None

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
        return len(self.feature_names)

    @property
    def divisor(self) -> float:
        """The public constant each row is divided by; see :func:`norm_divisor`."""
        return norm_divisor(
            self.numeric, self.categories, centered=self.centered, binary=len(self.binary)
        )

    def encoded_range(self, data_norm: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
        """Public per-feature range of a row encoded by ``PublicEncoder(self, data_norm=...)``.

        From the schema's constants only ([0, 1], or [-1/2, 1/2] for a ``centered`` numeric
        feature, over :attr:`divisor`, times ``data_norm``), so public: a learner's per-feature
        bounds (e.g. :class:`~dpconvex.PrivateGaussianNB`'s ``feature_range``) can take them.

        Parameters
        ----------
        data_norm : float, default=1.0
            The encoder's ``data_norm``: a finite float > 0 (of magnitude within
            [1e-100, 1e100], as the encoder's).

        Returns
        -------
        lo, hi : ndarray of shape (n_features,)

        Raises
        ------
        ParameterError
            ``data_norm`` is not a finite float > 0 (a negative norm would invert the range).

        Examples
        --------
        >>> from dpconvex import Categorical, Numeric, PublicSchema
        >>> schema = PublicSchema({"age": Numeric(0, 120), "plan": Categorical(("a", "b"))})
        >>> lo, hi = schema.encoded_range()
        >>> lo.tolist(), [round(float(v), 4) for v in hi]  # divisor sqrt(2)
        ([0.0, 0.0, 0.0, 0.0], [0.7071, 0.7071, 0.7071, 0.7071])
        """
        numeric_lo, numeric_hi = (-0.5, 0.5) if self.centered else (0.0, 1.0)
        lo: list[float] = []
        hi: list[float] = []
        for col in self.features:
            width = (
                len(self.categories[col]) + (col in self.other) if col in self.categories else 1
            )
            low, high = (numeric_lo, numeric_hi) if col in self.numeric else (0.0, 1.0)
            lo.extend([low] * width)
            hi.extend([high] * width)
        scale = check_float("data_norm", data_norm, "PublicSchema.encoded_range") / self.divisor
        return np.asarray(lo) * scale, np.asarray(hi) * scale

    @property
    def features(self) -> tuple[str, ...]:
        """The columns that give features (numeric, categorical or binary), in column order."""
        return tuple(
            c
            for c in self.columns
            if c in self.numeric or c in self.categories or c in self.binary
        )

    # ---------------------------------------------------------------- builders
    @classmethod
    def from_ranges(
        cls, ranges: Sequence[tuple[float, float]], *, centered: bool = False, prefix: str = "x"
    ) -> PublicSchema:
        """An all-numeric, linearly scaled schema with columns ``x0, x1, ...``.

        Its columns are positional: :class:`PublicEncoder` reads column ``k`` of a NumPy array as ``x<k>``.

        Parameters
        ----------
        ranges : sequence of (lo, hi) or array of shape (k, 2)
            The public range of each column, in order.
        centered : bool, default=False
            As in :class:`~dpconvex.PublicSchema`.
        prefix : str, default="x"
            The columns are named ``prefix`` followed by their position.

        Returns
        -------
        PublicSchema

        Raises
        ------
        ParameterError
            An empty ``ranges``, one that is not pairs (an array not of shape (k, 2),
            described, never printed), a range that is not two finite numbers lo < hi, or a
            ``prefix`` that is not a str.

        Examples
        --------
        >>> from dpconvex import PublicSchema
        >>> PublicSchema.from_ranges([(0, 1), (-5, 5)], prefix="f").columns
        ('f0', 'f1')
        """
        if not isinstance(prefix, str):
            raise ParameterError("The 'prefix' argument of PublicSchema.from_ranges must be a str, "
                                 "the start of each column's name (e.g. 'x'). Got "
                                 f"{_short_repr(prefix)} instead.")
        if not _are_pairs(ranges):  # described whole: a slice of the data names no value
            raise ParameterError("The 'ranges' argument of PublicSchema.from_ranges must be a "
                                 "non-empty sequence of (lo, hi) pairs, one per column, or an "
                                 f"array of shape (k, 2). Got {_short_repr(ranges)} instead.")
        columns = tuple(f"{prefix}{i}" for i in range(len(ranges)))
        for c, rng in zip(columns, ranges, strict=True):
            _check_range(
                c, tuple(rng) if isinstance(rng, np.ndarray) else rng, "PublicSchema.from_ranges"
            )
        numeric = {c: (float(lo), float(hi)) for c, (lo, hi) in zip(columns, ranges, strict=True)}
        return cls(columns, numeric, centered=centered)

    @classmethod
    def every_column(cls, declaration: Numeric | Categorical | Binary, *,
                centered: bool = False) -> UniformSchema:
        """One declaration for every column of a table, however many columns it has.

        For a table whose columns are all alike and publicly so: every feature a pixel in
        ``[0, 255]``, a table scaled by public constants, every position of a sequence one
        of ``("A", "C", "G", "T")``. :class:`~dpconvex.PublicEncoder` takes the number of
        columns (and a DataFrame's column names; else ``x0, x1, ...``) from the table at
        ``fit`` and applies :meth:`~dpconvex.data.UniformSchema.for_columns` of it; ranges,
        vocabulary, divisor and encoded range stay constants of the declaration.

        The columns must be fixed without reading the records (an image format's pixels, a
        sequence's positions): then they are a public fact that replace-one neighbours share.
        Columns made from the records' values (``pd.get_dummies``, a pivot) are data: one
        record's value can add a column, named in ``schema_``, ``feature_names_in_`` and the
        pickle. Declare such a raw column :class:`~dpconvex.Categorical` with its public
        vocabulary instead.

        Parameters
        ----------
        declaration : Numeric, Categorical or Binary
            The public declaration of every column.
        centered : bool, default=False
            As in :class:`~dpconvex.PublicSchema`.

        Returns
        -------
        UniformSchema

        Raises
        ------
        ParameterError
            ``declaration`` is not a Numeric, Categorical or Binary declaration.

        Examples
        --------
        >>> import numpy as np
        >>> from dpconvex import Numeric, PublicEncoder, PublicSchema
        >>> pixels = PublicSchema.every_column(Numeric(0, 255))
        >>> pixels
        PublicSchema.every_column(Numeric(low=0.0, high=255.0, log=False))
        >>> enc = PublicEncoder(pixels).fit(np.array([[0, 255, 51, 102]]))
        >>> enc.schema_.feature_names, enc.schema_.divisor  # sqrt(4 numeric columns)
        (('x0', 'x1', 'x2', 'x3'), 2.0)
        >>> (enc.transform(np.array([[0, 255, 51, 102]])) * 2.0).round(2).tolist()
        [[0.0, 1.0, 0.2, 0.4]]
        """
        return UniformSchema(declaration, centered=centered)

    def select(self, columns: Sequence[str] | None = None, drop: Sequence[str] = (),
               *, caller: str = "PublicSchema.select") -> PublicSchema:
        """The schema restricted to the feature ``columns`` (None: all, in column order) less
        ``drop``: ``self`` when nothing is removed, else a schema whose divisor counts the
        kept columns only (``caller``, the public call selecting, opens the messages)."""
        valid = self.features
        for name, sel in (("columns", columns), ("drop", drop)):
            if sel is None and name == "columns":
                continue
            if isinstance(sel, str | bytes) or not isinstance(sel, Sequence) or not all(
                    isinstance(c, str) for c in sel):
                raise ParameterError(
                    f"The '{name}' parameter of {caller} must be a sequence of column names, "
                    f"e.g. ('age',). Got {_short_repr(sel)} instead.")
            repeated = _repeated(sel)
            if repeated:
                raise ParameterError(
                    f"The '{name}' parameter of {caller} repeats column(s) {repeated!r}; name "
                    "each "
                    "column once (a repeated column would not be encoded twice)."
                )
            unknown = [c for c in sel if c not in valid]
            if unknown:
                raise ParameterError(
                    f"The '{name}' parameter of {caller} names unknown column(s) {unknown!r}; "
                    f"the feature columns are {list(valid)!r}.")
        keep = [c for c in valid if (columns is None or c in columns) and c not in drop]
        if not keep:
            raise ParameterError(f"{caller}: the column selection keeps no feature column; "
                                 "keep at least one.")
        if len(keep) == len(valid):
            return self
        declarations = self.declarations  # drafted declarations keep their mark
        return PublicSchema(
            {c: declarations[c] for c in keep}, centered=self.centered, release=self.release
        )

    def to_code(self, name: str = "schema") -> str:
        """The Python source that assigns this schema to ``name``: paste it into your code.

        Floats are written with :func:`repr`, so ``exec`` of the source gives a schema that
        encodes every record as this one does. The source carries no ``drafted`` mark: the
        schema it builds from a draft is a reviewed schema, not equal to the draft.

        Parameters
        ----------
        name : str, default="schema"
            The variable assigned: a Python identifier, not a keyword.

        Returns
        -------
        str
            The source.

        Raises
        ------
        ParameterError
            ``name`` is not an identifier (``"1 x"``, None, 5, ``"class"``).

        Examples
        --------
        >>> from dpconvex import Numeric, PublicSchema
        >>> print(PublicSchema({"age": Numeric(0, 120)}).to_code("people"))
        from dpconvex import Numeric, PublicSchema
        <BLANKLINE>
        people = PublicSchema({
            "age": Numeric(0.0, 120.0),
        })
        """
        _check_code_name(name, "PublicSchema.to_code")
        decls = self.declarations
        used = sorted({type(d).__name__ for d in decls.values() if d is not None})
        lines = []
        if self.suggested:
            lines += ["# Drafted by draft_schema from data: replace every bound and "
                      "vocabulary by", "# public knowledge before any private use."]
        if self.release is not None:
            lines += [
                f"# Released by draft_schema at (epsilon, delta) = ({self.release.epsilon:.6g}, "
                f"{self.release.delta:.3g}),",
                "# charged to the data set's budget "
                "(docs/privacy/bounds.md#privacy-bounds). A model's certificate states",
                "# that release only when the schema comes with it: PublicSchema(..., "
                "release=...).",
            ]
        lines += [f"from dpconvex import {', '.join([*used, 'PublicSchema'])}", "",
                  f"{name} = PublicSchema({{"]
        lines += [f"    {_quoted(col)}: {_decl_code(d)}," for col, d in decls.items()]
        lines.append("}, centered=True)" if self.centered else "})")
        return "\n".join(lines)


def _check_code_name(name: Any, caller: str) -> None:
    """Refuse a ``to_code`` name that is not a Python identifier (or is a keyword)."""
    if not (isinstance(name, str) and name.isidentifier() and not keyword.iskeyword(name)):
        raise ParameterError(
            f"The 'name' argument of {caller} must be a Python identifier that is not a "
            f"keyword (e.g. 'schema'), the variable the source assigns. Got "
            f"{_short_repr(name)} instead."
        )


#: What a :class:`PublicSchema` has and a :class:`UniformSchema` has not until it is given columns.
_COLUMN_VIEWS = frozenset({
    "binary", "categories", "columns", "declarations", "divisor", "encoded_range", "feature_names",
    "features", "fingerprint", "log_scaled", "n_features", "numeric", "other", "provenance",
    "select",
})


@dataclass(frozen=True, repr=False)
class UniformSchema:
    """One public declaration for every column of a table, however many it has.

    Made by :meth:`~dpconvex.PublicSchema.every_column`; see there. It has no columns of its own:
    ``for_columns`` gives the :class:`~dpconvex.PublicSchema` of a table's columns, and
    :class:`~dpconvex.PublicEncoder` applies it at ``fit`` to the table's (its fitted
    ``schema_``), so a uniform schema encodes each table as the named schema of its columns
    would. Equal uniform schemas give equal schemas for the same columns. The columns must be
    fixed without reading the records; columns made from the records' values
    (``pd.get_dummies``, a pivot) are data: declare the raw column
    :class:`~dpconvex.Categorical` instead.

    Parameters
    ----------
    declaration : Numeric, Categorical or Binary
        The public declaration of every column (``None``, a column not used, would use none).
    centered : bool, default=False
        As in :class:`~dpconvex.PublicSchema`.

    Examples
    --------
    >>> from dpconvex import Categorical, PublicSchema
    >>> bases = PublicSchema.every_column(Categorical(("A", "C", "G", "T"), other=False))
    >>> bases.for_columns(["p0", "p1"]).feature_names
    ('p0=A', 'p0=C', 'p0=G', 'p0=T', 'p1=A', 'p1=C', 'p1=G', 'p1=T')
    """

    declaration: Numeric | Categorical | Binary
    centered: bool = False

    def __post_init__(self) -> None:
        """Refuse a declaration that is not Numeric, Categorical or Binary (ParameterError)."""
        if not isinstance(self.declaration, (Numeric, Categorical, Binary)):
            unused = " (None, a column not used, would leave no feature)" \
                if self.declaration is None else ""
            raise ParameterError(
                "The 'declaration' parameter of PublicSchema.every_column must be the declaration "
                "of every column, Numeric(...), Categorical(...) or Binary(...), e.g. "
                f"Numeric(0, 255) for pixels. Got {_short_repr(self.declaration)} "
                f"instead{unused}."
            )
        _check_bools(self, "centered")

    @property
    def suggested(self) -> bool:
        """Whether the declaration was read from data (``drafted``): the encoder then warns."""
        return self.declaration.drafted

    def for_columns(self, columns: int | Sequence[str]) -> PublicSchema:
        """The :class:`~dpconvex.PublicSchema` declaring each of ``columns`` by ``declaration``.

        Parameters
        ----------
        columns : int or sequence of str
            The number of columns (named ``x0, x1, ...``, as :class:`~dpconvex.PublicEncoder`
            reads the columns of an array by position) or their names, in order.

        Returns
        -------
        PublicSchema

        Raises
        ------
        ParameterError
            No column, a name that is not a str, or a name repeated.

        See Also
        --------
        for_width : the facts of a number of columns that name no column (for a plan).

        Examples
        --------
        >>> from dpconvex import Numeric, PublicSchema
        >>> PublicSchema.every_column(Numeric(0, 1)).for_columns(2)
        PublicSchema({'x0': Numeric(low=0.0, high=1.0, log=False), \
'x1': Numeric(low=0.0, high=1.0, log=False)})
        """
        return self._named_for(columns, "UniformSchema.for_columns")

    def for_width(self, n_columns: int) -> UniformWidth:
        """The public facts of a table of ``n_columns`` columns under this schema, its columns
        not named: what a plan or a certificate without rows reads.

        The encoded features, the divisor and the encoded range follow from the declaration
        and the number of columns alone (every column is declared alike), so nothing is made
        per column: the facts of a width of ``10**10`` take no more memory than those of one
        column. :meth:`for_columns` of ``n_columns`` gives the same facts with the columns
        named (``x0, x1, ...``), which a table's encoder needs.

        Parameters
        ----------
        n_columns : int
            The number of columns of the table (at least 1).

        Returns
        -------
        ~dpconvex.data.UniformWidth

        Raises
        ------
        ParameterError
            ``n_columns`` is not an int >= 1.

        Examples
        --------
        >>> from dpconvex import Categorical, PublicSchema
        >>> bases = PublicSchema.every_column(Categorical(("A", "C", "G", "T"), other=False))
        >>> facts = bases.for_width(10**10)  # ten billion columns, none named
        >>> facts.n_features, facts.divisor  # sqrt(10**10 one-hot blocks)
        (40000000000, 100000.0)
        """
        if isinstance(n_columns, bool) or not isinstance(n_columns, (int, np.integer)) \
                or n_columns < 1:
            raise ParameterError("The 'n_columns' parameter of UniformSchema.for_width must be "
                                 f"an int >= 1. Got {_short_repr(n_columns)} instead.")
        return UniformWidth(self, int(n_columns))

    def _named_for(self, columns: int | Sequence[str], caller: str) -> PublicSchema:
        """:meth:`for_columns`, its refusals opened by ``caller`` (the public call the user
        made, e.g. ``encode``)."""
        if isinstance(columns, (int, np.integer)) and not isinstance(columns, bool):
            names: Sequence[Any] = [f"x{k}" for k in range(int(columns))]
        elif isinstance(columns, (Sequence, np.ndarray)) and not isinstance(columns, (str, bytes)):
            names = list(columns)
        else:
            raise ParameterError(
                f"The 'columns' parameter of {caller} must be the number of columns (int) or "
                f"their names (a sequence of str). Got {_short_repr(columns)} instead."
            )
        if not names:
            raise ParameterError(f"{caller}: the table has no column; a schema needs at least "
                                 "one.")
        if not all(isinstance(c, str) for c in names):
            raise ParameterError(f"{caller}: column names must be str. Got "
                                 f"{_short_repr(names)}.")
        repeated = _repeated(names)
        if repeated:
            raise ParameterError(f"{caller}: the column name(s) {repeated!r} repeat; name each "
                                 "column once.")
        return PublicSchema(dict.fromkeys(names, self.declaration), centered=self.centered)

    def to_code(self, name: str = "schema") -> str:
        """The Python source that assigns this schema to ``name``, as
        :meth:`~dpconvex.PublicSchema.to_code` does.

        Examples
        --------
        >>> from dpconvex import Numeric, PublicSchema
        >>> print(PublicSchema.every_column(Numeric(0, 255)).to_code("pixels"))
        from dpconvex import Numeric, PublicSchema
        <BLANKLINE>
        pixels = PublicSchema.every_column(Numeric(0.0, 255.0))
        """
        _check_code_name(name, "UniformSchema.to_code")
        lines = []
        if self.suggested:
            lines += ["# Drafted by draft_schema from data: replace every bound and "
                      "vocabulary by", "# public knowledge before any private use."]
        lines += [f"from dpconvex import {type(self.declaration).__name__}, PublicSchema", "",
                  f"{name} = PublicSchema.every_column({_decl_code(self.declaration)}"
                  f"{', centered=True' if self.centered else ''})"]
        return "\n".join(lines)

    def __repr__(self) -> str:
        extra = ", centered=True" if self.centered else ""
        return f"PublicSchema.every_column({self.declaration!r}{extra})"

    def __getattr__(self, name: str) -> Any:
        """A named AttributeError for what only a schema with columns has."""
        if name in _COLUMN_VIEWS:
            raise AttributeError(
                f"UniformSchema.{name}: a uniform schema has no columns of its own; they are the "
                "table's, read by PublicEncoder at fit. Read the fitted encoder's schema_, or "
                "give the columns: schema.for_columns(n_columns or names)."
            )
        return object.__getattribute__(self, name)  # Python's own AttributeError


@dataclass(frozen=True)
class UniformWidth:
    """A :class:`~dpconvex.data.UniformSchema` applied to a table of ``n_columns`` columns, not
    named.

    Made by :meth:`~dpconvex.data.UniformSchema.for_width`. It has the facts of
    ``schema.for_columns(n_columns)`` that do not name a column (:attr:`n_features`,
    :attr:`divisor`, :meth:`encoded_range`, :attr:`provenance`, :attr:`release`; the range
    of every feature as one pair, :meth:`encoded_pair`, or its view :meth:`range_rows`), each
    computed from the declaration and ``n_columns`` alone, equal to that schema's: what a
    plan or a certificate without rows reads.

    Parameters
    ----------
    schema : UniformSchema
        The declaration of every column.
    n_columns : int
        The number of columns of the table (at least 1).

    Raises
    ------
    ParameterError
        ``schema`` is not a :class:`~dpconvex.data.UniformSchema`, or ``n_columns`` is not an
        int >= 1.

    Examples
    --------
    >>> from dpconvex import Numeric, PublicSchema
    >>> PublicSchema.every_column(Numeric(0, 255)).for_width(4).divisor  # sqrt(4)
    2.0
    """

    schema: UniformSchema
    n_columns: int

    #: A uniform schema is public knowledge or a draft: never a private release's.
    release = None

    def __post_init__(self) -> None:
        """Refuse a schema that is not uniform and a width that is not an int >= 1."""
        if not isinstance(self.schema, UniformSchema):
            raise ParameterError(
                "The 'schema' parameter of UniformWidth must be a UniformSchema, one "
                "declaration for every column (PublicSchema.every_column(Numeric(0, 255))). "
                f"Got {type(self.schema).__name__} instead.")
        n_columns = self.n_columns
        if isinstance(n_columns, bool) or not isinstance(n_columns, (int, np.integer)) \
                or n_columns < 1:
            raise ParameterError("The 'n_columns' parameter of UniformWidth must be an int >= 1 "
                                 f"(the table's columns). Got {_short_repr(n_columns)} instead.")
        object.__setattr__(self, "n_columns", int(n_columns))

    @property
    def _per_column(self) -> tuple[int, bool]:
        """(features of one column, whether they are numeric)."""
        decl = self.schema.declaration
        if isinstance(decl, Categorical):
            return len(decl.vocabulary) + bool(decl.other), False
        return 1, isinstance(decl, Numeric)

    @property
    def n_features(self) -> int:
        """Number of encoded features: the columns times the features of one."""
        return self.n_columns * self._per_column[0]

    @property
    def divisor(self) -> float:
        """The public constant each row is divided by; see :func:`norm_divisor`."""
        numeric = self._per_column[1]
        return _divisor(self.n_columns if numeric else 0, 0 if numeric else self.n_columns,
                        self.schema.centered)

    @property
    def provenance(self) -> str | None:
        """As :attr:`~dpconvex.PublicSchema.provenance`: the draft's line when the declaration
        was read from data, else None."""
        return SUGGESTED_SOURCE if self.schema.suggested else None

    def encoded_range(self, data_norm: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
        """As :meth:`~dpconvex.PublicSchema.encoded_range`: every feature has one range (arrays of
        shape (n_features,), the only memory in proportion to the width;
        :meth:`encoded_pair` gives that range alone)."""
        low, high = self.encoded_pair(data_norm)
        return np.full(self.n_features, low), np.full(self.n_features, high)

    def encoded_pair(self, data_norm: float = 1.0) -> tuple[float, float]:
        """The one (lo, hi) range of every encoded feature: each entry of
        :meth:`encoded_range`, without an array as wide as the table.

        Parameters
        ----------
        data_norm : float, default=1.0
            As in :meth:`encoded_range`.

        Returns
        -------
        tuple of float
            (lo, hi).

        Raises
        ------
        ParameterError
            ``data_norm`` is not a finite float > 0.

        Examples
        --------
        >>> from dpconvex import Numeric, PublicSchema
        >>> PublicSchema.every_column(Numeric(0, 255)).for_width(10**12).encoded_pair()
        (0.0, 1e-06)
        """
        numeric = self._per_column[1]
        low, high = (-0.5, 0.5) if numeric and self.schema.centered else (0.0, 1.0)
        scale = check_float("data_norm", data_norm, "PublicSchema.encoded_range") / self.divisor
        return low * scale, high * scale

    def range_rows(self, data_norm: float = 1.0) -> np.ndarray:
        """The (lo, hi) row of every encoded feature, ``np.column_stack(encoded_range(...))``
        entry for entry, as a read-only view of the one pair (:meth:`encoded_pair`): an array
        of shape (n_features, 2) that holds two floats, not one row per feature.

        Parameters
        ----------
        data_norm : float, default=1.0
            As in :meth:`encoded_range`.

        Returns
        -------
        ndarray of shape (n_features, 2)
            Read-only; each row is the pair (its rows' stride is 0).

        Raises
        ------
        ParameterError
            ``data_norm`` is not a finite float > 0.

        Examples
        --------
        >>> from dpconvex import Numeric, PublicSchema
        >>> rows = PublicSchema.every_column(Numeric(0, 255)).for_width(10**9).range_rows()
        >>> rows.shape, rows[-1].tolist(), rows.strides[0], rows.flags.writeable
        ((1000000000, 2), [0.0, 3.1622776601683795e-05], 0, False)
        """
        pair = np.array(self.encoded_pair(data_norm))
        return np.broadcast_to(pair, (self.n_features, 2))


def _quoted(value: Any) -> str:
    """A str in double quotes when it needs no escaping (black's style), else ``repr``."""
    if isinstance(value, str) and value.isprintable() and not {'"', "'", "\\"} & set(value):
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
    if len(voc) > 70:  # whole items per line, their text as it is
        lines = [""]
        for item in (f"{_quoted(v)}," for v in d.vocabulary):
            lines[-1:] = (
                [f"{lines[-1]} {item}"] if len(lines[-1]) + len(item) < 76 else [lines[-1], item]
            )
        voc = "(\n" + "\n".join(" " * 8 + line.strip() for line in lines if line) + "\n    )"
    return f"Categorical({voc}{'' if d.other else ', other=False'})"


def check_shipped_schema(schema: PublicSchema | UniformSchema, owner: str) -> None:
    """Refuse a subclass of :class:`PublicSchema` or
    :class:`~dpconvex.data.UniformSchema` by name: the encoder divides each row by the
    schema's :attr:`~PublicSchema.divisor` and the certificate states the rows within
    ``data_norm``, which holds for the divisor dpconvex computes (:func:`norm_divisor`), not
    for one a subclass overrides.

    Parameters
    ----------
    schema : PublicSchema or UniformSchema
        The schema to encode by (its type already checked to be one of the two).
    owner : str
        The public class or function that opens the refusal.

    Raises
    ------
    ParameterError
        ``schema`` is an instance of a subclass.

    Examples
    --------
    >>> from dpconvex import Numeric, PublicSchema
    >>> check_shipped_schema(PublicSchema({"a": Numeric(0, 1)}), "Demo")
    >>> class Mine(PublicSchema):
    ...     pass
    >>> check_shipped_schema(Mine({"a": Numeric(0, 1)}), "Demo")
    Traceback (most recent call last):
    ...
    dpconvex.errors.ParameterError: The 'schema' parameter of Demo must be a PublicSchema ...
    """
    if type(schema) not in (PublicSchema, UniformSchema):
        uniform = isinstance(schema, UniformSchema)
        shipped = "UniformSchema" if uniform else "PublicSchema"
        made = "PublicSchema.every_column(...)" if uniform else "PublicSchema(...)"
        raise ParameterError(
            f"The 'schema' parameter of {owner} must be a {shipped} itself, not the subclass "
            f"{type(schema).__name__}: rows are divided by the divisor dpconvex computes from "
            f"the declarations, which a subclass may change. Give {made} of the same "
            "declarations."
        )
