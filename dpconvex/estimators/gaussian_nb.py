"""Differentially private Gaussian naive Bayes: class moments from one release of class sums.

:class:`PrivateGaussianNB` releases the class sums of (t, 2t² − 1, w), t the per-record map
of x onto [−1, 1]^d: the sufficient statistics of Gaussian naive Bayes ([HTF09]_ Section
6.6.3), by the release of the class centroids (:mod:`dpconvex.estimators.centroids`) with
another per-record map (docs/privacy/gaussian_nb.md#privacy-nb-sensitivities).

References
----------
.. [HTF09] T. Hastie, R. Tibshirani, J. Friedman. The Elements of Statistical Learning,
   2nd ed. Springer 2009, Section 6.6.3 (naive Bayes).
"""

from __future__ import annotations

import decimal
import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .._validation import (
    Constraint,
    Float,
    Optional,
    check_fitted,
    checks_feature_names,
    describe_value,
    is_dask_collection,
)
from ..data.validation import check_array
from ..errors import DataValidationError, ParameterError, record_diagnostic
from ..privacy.mechanisms import MechanismMenu
from ..privacy.mechanisms.record_sets import MomentBox, RecordSet
from .base import (
    NO_CONTEXT,
    CertificateHold,
    CheckedData,
    FitContext,
    FitPlan,
    Prepared,
    _bind_plan,
    keep_argmax,
)
from .centroids import (
    ClassSumEstimator,
    ClassSumTemplate,
    _BlockRows,
    class_priors,
    dense_blocks,
    label_rows,
)

__all__ = ["DEFAULT_FEATURE_RANGE", "MOMENT_MAP", "NB_POSTPROCESSING", "VAR_FLOOR",
           "ClassMomentTemplate", "FeatureRange", "MomentRows", "PrivateGaussianNB",
           "class_moments", "feature_bounds", "refuse_ranges_given_twice", "rows_schema"]

#: The default public floor φ of the variances, in units of the half range squared
#: ((hi − lo)/2)² of each feature (docs/privacy/gaussian_nb.md#privacy-nb-release).
VAR_FLOOR = 3e-2

#: The public map of a record to its vector u, for the certificate.
MOMENT_MAP = ("feature map t = (2 clip(x, lo, hi) - lo - hi) / (hi - lo) in [-1, 1]^d per "
              "feature (public ranges [lo, hi], per record), u = (t, 2 t^2 - 1); the count "
              "coordinate w plays the role of a constant feature")

#: The post-processing of the release, for the certificate.
NB_POSTPROCESSING = (
    "class means mu_c = clip(S_c / m_c, -1, 1) and second moments clip((Q_c / m_c + 1) "
    "/ 2, 0, 1) from the noisy sums S_c of t and Q_c of 2 t^2 - 1, m_c = max(n_c, "
    "max(1, s/w)) (s the public per-coordinate noise scale); variances max(second "
    "moment - mu_c^2, var_floor) plus the noise variance of mu_c; class priors from the "
    "noisy counts; prediction by the Gaussian naive Bayes log-likelihood: "
    "post-processing (docs/privacy/gaussian_nb.md#privacy-nb-release)"
)


#: NOT PRIVATE: the diagnostic note of the records with a feature outside its range.
_OUTSIDE_RANGE = "records with a feature outside feature_range (clipped to it)"


#: The range of every feature of :class:`PrivateGaussianNB` given none (and rows that carry
#: none): it holds every row of norm <= 1.
DEFAULT_FEATURE_RANGE = (-1.0, 1.0)


@dataclass(frozen=True)
class FeatureRange(Constraint):
    """``feature_range``: (lo, hi) for every feature, one (lo, hi) row per feature, or a
    :class:`~dpconvex.PublicSchema` or :meth:`~dpconvex.PublicSchema.every_column` (the ranges
    of the rows its encoder makes).

    Numbers with |lo|, |hi| <= 1e100 and hi − lo >= 1e-100 (those of a ``label_range``: the map
    (x − lo)/((hi − lo)/2) stays finite); the number of rows is checked against the data's
    columns in the plan (:func:`feature_bounds`).

    Examples
    --------
    >>> from dpconvex.estimators.gaussian_nb import FeatureRange
    >>> FeatureRange().check("feature_range", (0, 10), "Demo")
    (0, 10)
    >>> FeatureRange().check("feature_range", (10, 0), "Demo")
    Traceback (most recent call last):
    ...
    dpconvex.errors.ParameterError: The 'feature_range' parameter of Demo must be a pair ...
    """

    def check(self, name: str, value: Any, owner: str, noun: str = "parameter") -> Any:
        """Return ``value`` if it is a schema (:func:`_is_schema`), one (lo, hi) pair of
        numbers or an array of such pairs (each with hi − lo large enough and both within the
        magnitudes a float can hold), else raise the error naming the parameter.

        Parameters
        ----------
        name : str
            The parameter's name, for the message.
        value : object
            Its value.
        owner : str
            The class the parameter belongs to, for the message.

        Returns
        -------
        PublicSchema, UniformSchema or array-like
            ``value`` itself (its length is checked against the columns in the plan).

        Raises
        ------
        ParameterError
            Anything else: text, booleans, a range with hi <= lo, or another shape.

        Examples
        --------
        >>> from dpconvex.estimators.gaussian_nb import FeatureRange
        >>> FeatureRange().check("feature_range", [(0, 1), (-5, 5)], "Demo")
        [(0, 1), (-5, 5)]
        """
        self.read(name, value, owner, noun)
        return value

    def read(self, name: str, value: Any, owner: str, noun: str = "parameter") -> Any:
        """``value`` checked as :meth:`check` does, read once: a schema as it is, else its
        numbers as a float array (``value`` is converted once, so an object whose ``__array__``
        answers differently at each call is read at one of them only).

        Parameters
        ----------
        name : str
            The parameter's name, for the message.
        value : object
            Its value.
        owner : str
            The class the parameter belongs to, for the message.

        Returns
        -------
        PublicSchema, UniformSchema or ndarray
            The schema, or the (lo, hi) pairs as floats (shape (2,) or (n_features, 2)).

        Raises
        ------
        ParameterError
            As :meth:`check`.

        Examples
        --------
        >>> from dpconvex.estimators.gaussian_nb import FeatureRange
        >>> FeatureRange().read("feature_range", [(0, 1), (-5, 5)], "Demo").tolist()
        [[0.0, 1.0], [-5.0, 5.0]]
        """
        from .._validation import MAX_MAGNITUDE, MIN_MAGNITUDE
        if _is_schema(value):
            return value
        # an array of numbers holds numbers only: its entries are not read one by one
        numeric = isinstance(value, np.ndarray) and value.dtype.kind in "fiu"
        try:
            given = value if numeric else np.asarray(value, dtype=object)
            entries = () if numeric else given.ravel()
            bounds = np.asarray(given, dtype=float)
        except (TypeError, ValueError, OverflowError):
            entries = bounds = None
        # numbers only: text is not read as a number (as for label_range)
        ok = (bounds is not None and all(
            isinstance(v, (numbers.Real, decimal.Decimal)) and not isinstance(v, (bool, np.bool_))
            for v in entries)
              and (bounds.shape == (2,) or (bounds.ndim == 2 and bounds.shape[1] == 2
                                            and bounds.shape[0] >= 1)))
        if ok:
            pairs = bounds[:1] if _views_of_one_pair(bounds) else bounds.reshape(-1, 2)
            ok = bool(np.all(np.abs(pairs) <= MAX_MAGNITUDE)
                      and np.all(pairs[:, 1] - pairs[:, 0] >= MIN_MAGNITUDE))
        if not ok:
            raise self.refusal(name, value, owner, noun)
        assert bounds is not None
        return bounds

    def __str__(self) -> str:
        return (
            "a pair (lo, hi) of numbers with |lo|, |hi| <= 1e100 and hi - lo >= 1e-100, an "
            "array-like of shape (n_features, 2) of such pairs: the public range of each feature, "
            "or a "
            "PublicSchema (or PublicSchema.every_column(...)): the ranges of the rows "
            "PublicEncoder(schema) makes"
        )


def _views_of_one_pair(bounds: np.ndarray) -> bool:
    """Whether the (lo, hi) rows ``bounds`` are views of one pair (stride 0, as
    UniformWidth.range_rows): its first row is every row, read without the others."""
    return bounds.ndim == 2 and bounds.strides[0] == 0


def _is_schema(value: Any) -> bool:
    """Whether ``value`` is a :class:`~dpconvex.PublicSchema` or a
    :class:`~dpconvex.data.UniformSchema` (as the front doors' ``SCHEMA`` checks it)."""
    from ..data.schema import PublicSchema, UniformSchema

    return isinstance(value, (PublicSchema, UniformSchema))


def rows_schema(schema: Any, n_features: int, owner: str) -> Any:
    """The named schema whose encoder makes rows of ``n_features`` features: ``schema`` itself,
    or a uniform schema's for the columns of the table those rows encode
    (:meth:`~dpconvex.data.UniformSchema.for_columns` of ``n_features`` over the features of
    one column, ``x0, x1, ...``: the width of a table whose columns were fixed without reading
    its records is public).

    Parameters
    ----------
    schema : PublicSchema or UniformSchema
        A validated schema ``feature_range``.
    n_features : int
        The number of columns of the rows X (the encoded features).
    owner : str
        The estimator, named in the refusal.

    Returns
    -------
    PublicSchema

    Raises
    ------
    ParameterError
        A uniform schema whose columns give a number of features ``n_features`` is no multiple
        of: X is not the rows its encoder makes.

    Examples
    --------
    >>> from dpconvex import Categorical, PublicSchema
    >>> from dpconvex.estimators.gaussian_nb import rows_schema
    >>> bases = PublicSchema.every_column(Categorical(("A", "C", "G", "T"), other=False))
    >>> rows_schema(bases, 8, "Demo").columns
    ('x0', 'x1')
    """
    from ..data.schema import UniformSchema

    if not isinstance(schema, UniformSchema):
        return schema
    return schema.for_columns(_uniform_width(schema, n_features, owner))


def _uniform_width(schema: Any, n_features: int, owner: str) -> int:
    """The number of columns of the table whose rows under the uniform ``schema`` have
    ``n_features`` features, or the :class:`ParameterError` of :func:`rows_schema`."""
    per_column = schema.for_width(1).n_features
    if int(n_features) % per_column:
        raise ParameterError(
            f"The 'feature_range' parameter of {owner}, {schema!r}, makes {per_column} "
            f"features of every column, and X has {int(n_features)} features, no multiple of "
            f"{per_column}: X is not the rows PublicEncoder(schema) makes. Pass those rows, "
            "or the ranges of X's features, feature_range=array of (lo, hi) rows."
        )
    return int(n_features) // per_column


def feature_bounds(
    feature_range: Any, n_features: int, owner: str
) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi), arrays of shape (n_features,), from a validated ``feature_range`` (a schema:
    :meth:`~dpconvex.PublicSchema.encoded_range`, its constants only); one pair for all
    features (a uniform schema's too, or rows that are views of one pair:
    :meth:`~dpconvex.data.UniformWidth.range_rows`) gives read-only views of it, which hold
    no array as wide as the rows (a plan of many features allocates nothing in proportion to
    them).

    Parameters
    ----------
    feature_range : tuple, sequence of tuples, PublicSchema or UniformSchema
        The validated ``feature_range`` (a uniform schema: the facts of the table whose rows
        have ``n_features`` features, none of its columns named,
        :meth:`~dpconvex.data.UniformSchema.for_width`).
    n_features : int
        The number of columns of X.
    owner : str
        The estimator, named in the refusal.

    Returns
    -------
    tuple of ndarray
        (lo, hi).

    Raises
    ------
    ParameterError
        The number of (lo, hi) rows is not ``n_features`` (or no table's rows under a
        uniform schema have ``n_features`` features).

    Examples
    --------
    >>> from dpconvex.estimators.gaussian_nb import feature_bounds
    >>> lo, hi = feature_bounds((0, 10), 3, "Demo")
    >>> lo.tolist(), hi.tolist()
    ([0.0, 0.0, 0.0], [10.0, 10.0, 10.0])
    >>> feature_bounds([(0, 1), (-2, 2)], 2, "Demo")[1].tolist()
    [1.0, 2.0]
    >>> from dpconvex import Categorical, Numeric, PublicSchema
    >>> schema = PublicSchema({"age": Numeric(0, 120), "plan": Categorical(("a", "b"))})
    >>> [round(float(v), 4) for v in feature_bounds(schema, 4, "Demo")[1]]
    [0.7071, 0.7071, 0.7071, 0.7071]
    """
    if feature_range is None:
        feature_range = DEFAULT_FEATURE_RANGE
    if _is_schema(feature_range):
        from ..data.schema import UniformSchema

        schema = feature_range  # a uniform schema's for the width: none of its columns named
        if isinstance(schema, UniformSchema):  # one range for all: the pair, no array
            feature_range = schema.for_width(_uniform_width(schema, n_features, owner)) \
                .encoded_pair()
        else:
            feature_range = np.column_stack(schema.encoded_range())
    bounds = np.asarray(feature_range, dtype=float)
    if bounds.shape == (2,):  # one pair for all: views of it, nothing as wide as the rows
        return (np.broadcast_to(bounds[0].copy(), (int(n_features),)),
                np.broadcast_to(bounds[1].copy(), (int(n_features),)))
    if bounds.shape != (int(n_features), 2):
        raise ParameterError(
            f"The 'feature_range' parameter of {owner} must have one (lo, hi) row per feature "
            f"({n_features} "
            f"features), or be one (lo, hi) pair for all. Got {bounds.shape[0]} rows instead."
        )
    if _views_of_one_pair(bounds):  # views of that pair, nothing as wide as the rows
        return (np.broadcast_to(bounds[0, 0].copy(), (int(n_features),)),
                np.broadcast_to(bounds[0, 1].copy(), (int(n_features),)))
    return bounds[:, 0].copy(), bounds[:, 1].copy()


#: The slack, relative to each carried range's width, by which a given ``feature_range`` may
#: pass the ranges its rows carry and still count as within them
#: (:func:`refuse_ranges_given_twice`). Half a unit in the third significant digit is at most
#: 5e-3 of a value, so an encoded range [0, hi] (or [-hi, hi]) typed to 3 or more significant
#: digits (0.354 or 0.3536 for 0.353553...) stays accepted, as does one stored in float32; a
#: range wider by this share leaves its rows a share of its width smaller by as little (the
#: noise is in units of the width), while the table's columns' own ranges (e.g. [0, 100] where
#: each encoded column spans 0.58) stay far beyond it.
CARRIED_RANGE_SLACK = 5e-3


def _scaled_copy(lo: np.ndarray, hi: np.ndarray, low: np.ndarray, high: np.ndarray) -> bool:
    """Whether the ranges (low, high) are (lo, hi) times one factor > 0, up to
    :data:`CARRIED_RANGE_SLACK` of each width: a schema's encoded ranges at ``data_norm`` 1
    (lo, hi) and those of the rows the same schema (or one that declares the same columns)
    encodes at any ``data_norm`` (which scales every range by itself)."""
    factor = (high[0] - low[0]) / (hi[0] - lo[0])
    slack = CARRIED_RANGE_SLACK * (high - low)
    return bool(np.all(np.abs(factor * lo - low) <= slack)
                and np.all(np.abs(factor * hi - high) <= slack))


def refuse_ranges_given_twice(feature_range: Any, carried: Any, owner: str, source: str,
                              where: str) -> None:
    """Refuse a given ``feature_range`` that reaches beyond the public ranges the rows carry.

    The rows' ranges come from a schema's constants (``schema=`` on a front door, or the rows
    :class:`~dpconvex.PublicEncoder` returns, :class:`~dpconvex.data.RangedRows`), so a
    ``feature_range`` given with them is read in the units of the encoded rows. A schema whose
    encoded ranges are the carried ones at some ``data_norm`` (the schema that encoded the
    rows, or one declaring the same columns) is the documented form, taken as given: it is
    read as everywhere, at ``data_norm`` 1 (:func:`feature_bounds`), wider than the rows where
    they were encoded at a ``data_norm`` below 1. Other ranges within the carried ones (each
    feature's (lo, hi) inside the carried one, up to :data:`CARRIED_RANGE_SLACK` of its width)
    are a narrower clip, taken as given; beyond them, or of another number of features, the
    ranges are given twice (typically the table's columns' ranges, in the units of the raw
    table), and the noise would be sized for widths the rows never fill: a
    :class:`ParameterError` that says what to give. Public parameters only (the schema's
    constants and ``feature_range``).

    Parameters
    ----------
    feature_range : tuple, array-like or PublicSchema
        The validated ``feature_range`` given (not None).
    carried : array-like of shape (n_features, 2)
        The (lo, hi) rows the encoded rows carry (a view of one pair for a uniform schema).
    owner : str
        The estimator, named in the refusal.
    source : str
        What carries the ranges, for the message (e.g. "schema=PublicSchema(...)").
    where : str
        The expression that gives the carried ranges, for the message.

    Raises
    ------
    ParameterError
        ``feature_range`` is not a valid range (:class:`FeatureRange`), or not within the
        carried ranges (a schema: nor their schema's encoding at any ``data_norm``).

    Examples
    --------
    >>> from dpconvex import Numeric, PublicSchema
    >>> from dpconvex.estimators.gaussian_nb import refuse_ranges_given_twice
    >>> carried = np.array([[0.0, 0.5], [0.0, 0.5]])
    >>> refuse_ranges_given_twice((0.1, 0.4), carried, "Demo", "X", "X.feature_range")
    >>> refuse_ranges_given_twice((0, 0.5002), carried, "Demo", "X", "X.feature_range")
    >>> schema = PublicSchema({"a": Numeric(0, 100), "b": Numeric(0, 100)})
    >>> refuse_ranges_given_twice(schema, carried, "Demo", "X", "X.feature_range")
    >>> refuse_ranges_given_twice((0, 100), carried, "Demo", "X", "X.feature_range")
    Traceback (most recent call last):
    ...
    dpconvex.errors.ParameterError: The 'feature_range' parameter of Demo must lie within ...
    """
    FeatureRange().check("feature_range", feature_range, owner)  # its own refusal first
    carried = np.asarray(carried, dtype=float)
    n_features = carried.shape[0]
    low, high = feature_bounds(carried, n_features, owner)
    given_schema = _is_schema(feature_range)
    try:
        lo, hi = feature_bounds(feature_range, n_features, owner)
    except ParameterError:  # another number of features than the encoded rows have
        lo = hi = None
        beyond = f"gives ranges of another number of features than their {n_features}"
    if lo is not None:
        if lo.strides == (0,) and low.strides == (0,):  # views of one pair each: that pair
            lo, hi, low, high = lo[:1], hi[:1], low[:1], high[:1]
        if given_schema and _scaled_copy(lo, hi, low, high):  # the rows' own schema
            return
        slack = CARRIED_RANGE_SLACK * (high - low)
        outside = np.flatnonzero((lo < low - slack) | (hi > high + slack))
        if outside.size == 0:  # a narrower clip, in the encoded rows' units
            return
        j = int(outside[0])
        beyond = (f"reaches beyond their ranges (feature {j} spans [{lo[j]:.6g}, {hi[j]:.6g}] "
                  f"under it, [{low[j]:.6g}, {high[j]:.6g}] once encoded)")
    if given_schema:  # another schema's encoding than the rows'
        shown = "a schema whose encoding is not that of the rows at any data_norm"
        remedy = (f"Give feature_range the schema that encoded the rows ({source}), or "
                  "leave feature_range=None to take the ranges the rows carry")
    else:
        shown = describe_value(feature_range)
        remedy = ("The schema holds the columns' ranges (e.g. Numeric(0, 100)): leave "
                  "feature_range=None to take them, or give feature_range in the encoded "
                  f"rows' units, within {where}, to clip them narrower")
    raise ParameterError(
        f"The 'feature_range' parameter of {owner} must lie within the ranges of the encoded "
        f"rows it is read with, in their units: {source} gives the columns' ranges, so with "
        f"feature_range={shown}, which {beyond}, the features' ranges are given twice, and "
        f"naive Bayes' noise would be sized for widths the rows never fill. {remedy}."
    )


@dataclass(frozen=True, eq=False)
class MomentRows:
    """The public map of a block of raw rows to u = (t, 2t² − 1), t ∈ [−1, 1]^d.

    t = (2 clip(x, lo, hi) − lo − hi)/(hi − lo) per feature; it reads each row alone (a
    per-record map) and is picklable, so Dask workers apply it to their chunks.

    Parameters
    ----------
    lo, hi : ndarray of shape (d,)
        The public range of each feature.

    Examples
    --------
    >>> from dpconvex.estimators.gaussian_nb import MomentRows
    >>> MomentRows(np.array([0.0]), np.array([10.0]))(np.array([[5.0], [10.0], [20.0]]))
    array([[ 0., -1.],
           [ 1.,  1.],
           [ 1.,  1.]])
    """

    lo: np.ndarray
    hi: np.ndarray

    def features(self, X: np.ndarray) -> np.ndarray:
        """t of each row of X (n, d): clipped to the public ranges and mapped onto [−1, 1].

        Parameters
        ----------
        X : ndarray of shape (n, d)
            Raw rows.

        Returns
        -------
        ndarray of shape (n, d)
            t, in [−1, 1].

        Examples
        --------
        >>> from dpconvex.estimators.gaussian_nb import MomentRows
        >>> rows = MomentRows(np.array([0.0]), np.array([10.0]))
        >>> rows.features(np.array([[5.0], [10.0], [20.0]])).ravel().tolist()
        [0.0, 1.0, 1.0]
        """
        half = (self.hi - self.lo) / 2.0
        return np.clip((np.clip(X, self.lo, self.hi) - self.lo) / half - 1.0, -1.0, 1.0)

    def __call__(self, X: np.ndarray) -> np.ndarray:
        t = self.features(X)
        return np.hstack([t, 2.0 * t * t - 1.0])

    def outside(self, X: np.ndarray) -> np.ndarray:
        """Whether each raw row of X (n, d) has a feature outside its range (clipped to it).

        Examples
        --------
        >>> from dpconvex.estimators.gaussian_nb import MomentRows
        >>> MomentRows(np.array([0.0]), np.array([10.0])).outside(np.array([[5.0], [11.0]]))
        array([False,  True])
        """
        return np.any((X < self.lo) | (X > self.hi), axis=1)


class ClassMomentTemplate(ClassSumTemplate):
    """Raw rows, their public ranges and class indices: the class-moment problem of naive Bayes.

    The statistic is V ∈ R^{C × (2d + 1)} with rows (Σ t_i, Σ (2t_i² − 1), w·n_c) over the
    records of class c (:class:`MomentRows`); every record lies in
    :class:`~dpconvex.privacy.mechanisms.record_sets.MomentBox`
    (docs/privacy/gaussian_nb.md#privacy-nb-sensitivities).

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n, d), or None
        Raw rows of the records inside the public label set (None with ``rows``).
    y : ndarray of shape (n,)
        Class indices in {0, ..., C − 1}.
    n_classes : int
        C (public).
    lo, hi : float or ndarray of shape (d,), default=-1.0, 1.0
        The public range of each feature.
    notes : sequence of str, default=()
        Public facts for the certificate.
    rows : block reader or DaskRows, optional
        The rows with their class index as a last column, from
        :func:`~dpconvex.estimators.centroids.label_rows`; X is then None.

    Examples
    --------
    >>> from dpconvex.estimators.gaussian_nb import ClassMomentTemplate
    >>> from dpconvex.privacy.mechanisms.gaussian import class_sums
    >>> X = np.array([[0.5, -1.0], [1.0, 0.0], [0.0, 0.0]])
    >>> template = ClassMomentTemplate(X, np.array([0, 0, 1]), n_classes=2)
    >>> template.d, template.record_set
    (4, MomentBox(n_features=2))
    >>> class_sums(template, count_weight=1.0)
    array([[ 1.5, -1. ,  0.5,  0. ,  2. ],
           [ 0. ,  0. , -1. , -1. ,  1. ]])
    """

    name = "class moment sums"
    kind = "gaussian_nb"
    derivation = "docs/privacy/gaussian_nb.md#privacy-nb-sensitivities"

    def __init__(self, X: Any, y: np.ndarray, n_classes: int, *, lo: Any = -1.0, hi: Any = 1.0,
                 notes: Sequence[str] = (), rows: Any = None):
        n_features = int(rows.p - 1 if rows is not None else np.shape(X)[1])
        if rows is None:
            rows = _BlockRows(X, np.asarray(y, dtype=float))
        self.n_features = n_features
        self.lo, self.hi = _moment_range(lo, n_features), _moment_range(hi, n_features)
        self._hold(None, y, n_classes, math.sqrt(2.0 * n_features), notes, rows)

    @classmethod
    def of_problem(  # type: ignore[override]
        cls, n: int, n_features: int, n_classes: int, *, lo: Any = -1.0, hi: Any = 1.0,
        notes: Sequence[str] = (),
    ) -> ClassMomentTemplate:
        """The template of the public problem alone: n records of d features in the public
        ranges [lo, hi], C classes; no rows or labels read.

        Its record set, noise shape, conditions and assumptions are those of the template a fit
        on n rows builds; it holds no rows and sums nothing (a dry run).

        Parameters
        ----------
        n : int
            The number of records.
        n_features : int
            d, the features of a raw row.
        n_classes : int
            C.
        lo, hi : float or ndarray of shape (d,), default=-1.0, 1.0
            The public range of each feature.
        notes : sequence of str, default=()
            Public facts for the certificate.

        Returns
        -------
        ClassMomentTemplate
            A template that holds no rows or labels.

        Examples
        --------
        >>> t = ClassMomentTemplate.of_problem(10**12, 2, n_classes=3)
        >>> t.n, t.noise_shape, t.rows is None, t.record_set
        (1000000000000, (3, 5), True, MomentBox(n_features=2))
        """
        template = cls.__new__(cls)
        template.X = template.y = None
        template.n_features = int(n_features)
        template.lo = _moment_range(lo, n_features)
        template.hi = _moment_range(hi, n_features)
        template._build(n, 2 * template.n_features, n_classes, math.sqrt(2.0 * n_features),
                        notes)
        return template

    def _record_width(self, n_columns: int) -> int:
        return 2 * n_columns

    @property
    def record_map(self) -> MomentRows:
        """The per-record map of a raw row to u = (t, 2t² − 1), built from the public ranges
        ``lo`` and ``hi`` at each read (read-only: an assigned map is refused)."""
        return MomentRows(self.lo, self.hi)

    @property
    def altered(self) -> Callable[[np.ndarray], np.ndarray]:
        """NOT PRIVATE (diagnostics): the raw rows with a feature outside its range
        (``MomentRows.outside``), counted by ``class_sums_chunked`` (``count_altered``)."""
        return self.record_map.outside

    def _record_altered(self, owner: str, count: int, n: int) -> None:
        """NOT PRIVATE: record the count of rows :attr:`altered` holds for: records with a
        feature outside its range."""
        record_diagnostic(owner, _OUTSIDE_RANGE, count, n)

    @property
    def record_set(self) -> RecordSet:
        """u = (t, 2t² − 1) with t ∈ [−1, 1]^d (docs/privacy/gaussian_nb.md#privacy-nb-sensitivities)."""
        return MomentBox(self.n_features)


def _moment_range(v: Any, n_features: int) -> np.ndarray:
    """The public range bound ``v`` of ``n_features`` features (a float or one per feature) as
    a read-only array of shape (n_features,): a template's own copy, or, for one bound of all
    features (a float, or a view of one: :func:`feature_bounds`), a read-only view of its own
    copy of that float, which holds no array as wide as the rows."""
    a = np.asarray(v, dtype=float)
    if a.ndim == 0 or (a.shape == (n_features,) and n_features > 0 and a.strides == (0,)):
        return np.broadcast_to(np.array(a.flat[0]), (n_features,))
    a = np.broadcast_to(a, (n_features,)).copy()
    a.flags.writeable = False
    return a


def class_moments(V: np.ndarray, count_weight: float, floor: float, noise_second_moment: float,
                  var_floor: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Class means, variances and counts of t from the released V
    (docs/privacy/gaussian_nb.md#privacy-nb-release).

    μ_c = clip(S̃_c/m_c, −1, 1), M_c = clip((Q̃_c/m_c + 1)/2, 0, 1) and
    v_c = max(M_c − μ_c², φ) + e/m_c², with m_c = max(ñ_c, f) for the public count floor f and
    e the public second moment of one noise coordinate: post-processing. Returns the means
    and variances (C, d) in the units of t and the counts ñ_c (C,) as released.

    Parameters
    ----------
    V : ndarray
        The released (C, 2d + 1) sums: per class S̃_c, Q̃_c and the weighted count.
    count_weight : float
        w, the weight of the count column (the counts are V[:, 2d] / w).
    floor : float
        f, the public count floor.
    noise_second_moment : float
        e, the public second moment of one noise coordinate.
    var_floor : float
        φ, the variance floor.

    Returns
    -------
    tuple of ndarray
        (means, variances, counts).

    Examples
    --------
    >>> from dpconvex.estimators.gaussian_nb import class_moments
    >>> V = np.array([[5.0, 0.0, 10.0], [-2.0, -8.0, 10.0]])   # d = 1, two classes
    >>> means, variances, counts = class_moments(V, 1.0, 1.0, 0.0, 1e-2)
    >>> means.ravel().tolist(), variances.ravel().round(3).tolist(), counts.tolist()
    ([0.5, -0.2], [0.25, 0.06], [10.0, 10.0])
    """
    V = np.asarray(V, dtype=float)
    d = (V.shape[1] - 1) // 2
    counts = V[:, 2 * d] / float(count_weight)
    m = np.maximum(counts, float(floor))[:, None]
    means = np.clip(V[:, :d] / m, -1.0, 1.0)
    second = np.clip((V[:, d:2 * d] / m + 1.0) / 2.0, 0.0, 1.0)
    variances = np.maximum(second - means**2, float(var_floor)) + float(noise_second_moment) / m**2
    return means, variances, counts


class PrivateGaussianNB(ClassSumEstimator):
    """DP Gaussian naive Bayes from one noisy release of class sums, sums of squares and counts.

    Each feature is clipped to its public range and mapped onto t ∈ [−1, 1]. Fit releases the
    class sums of t and of 2t² − 1 and the class counts in one vector, with the sup-norm
    K-norm mechanism ([HT10]_; pure ε-DP) or the analytic Gaussian mechanism ([BW18]_; δ > 0)
    (docs/privacy/gaussian_nb.md#privacy-nb-sensitivities, privacy-nb-mechanisms). The class
    means, diagonal variances and priors are post-processing (:func:`class_moments`), and a
    point is classified as by scikit-learn's :class:`~sklearn.naive_bayes.GaussianNB`
    ([VSBH13]_ release the same model with Laplace noise per class and feature).

    Parameters
    ----------
    epsilon : float, default=1.0
        ε > 0.
    {class_sum_delta}
    mechanism : {"auto", "gaussian", "knorm_sup_sum"}, default="auto"
        "auto": "knorm_sup_sum" when ``delta`` is None or 0, "gaussian" when δ > 0
        (:func:`~dpconvex.privacy.mechanisms.base.resolve_mechanism`). "knorm_sup_sum": pure ε-DP, noise of
        order d/ε; "gaussian": (ε, δ)-DP, noise of order √d/ε, the better choice for many
        features (docs/privacy/gaussian_nb.md#privacy-nb-mechanisms).
    feature_range : None, (float, float), array-like of shape (n_features, 2) or PublicSchema, default=None
        The public range [lo, hi] of every feature of X, or of each, in the units of X;
        values outside are clipped to it. A :class:`~dpconvex.PublicSchema`: the ranges of the
        rows of ``PublicEncoder(schema)`` (:meth:`~dpconvex.PublicSchema.encoded_range`); one
        for every column (:meth:`~dpconvex.PublicSchema.every_column`): those of the table
        whose rows have X's number of features (:func:`rows_schema`). None: the
        ranges the rows carry (:class:`~dpconvex.data.RangedRows`), else (−1, 1)
        (:data:`DEFAULT_FEATURE_RANGE`). On rows that carry their ranges (those of
        ``PublicEncoder(schema)``, as in a pipeline after it) the ranges are the encoded rows',
        not the table's columns' (each encoded numeric feature spans 1/divisor): given, it must
        be the schema that encoded them (read, as everywhere, at ``data_norm`` 1, whatever
        ``data_norm`` encoded the rows) or lie within the carried ranges (a narrower clip, up
        to :data:`CARRIED_RANGE_SLACK` of each width), else it is refused by name
        (:func:`refuse_ranges_given_twice`); the columns' ranges belong in the schema. Never set
        it from the data (that leaks); the noise is in units of the range, so a loose range
        wastes signal.
    var_floor : float, default=0.03
        φ in (0, 1]: the public floor of every variance, in units of ((hi − lo)/2)²
        (docs/privacy/gaussian_nb.md#privacy-nb-release).
    {priors}
    classes : sequence of labels or None, default=None
        The public label set (C = len(classes) fixes the released shape).
        {classes_none}
    {unknown_labels}
    {random_state}
    {accountant}

    Attributes
    ----------
    classes_ : ndarray of shape (C,)
    theta_ : ndarray of shape (C, n_features)
        Class means in the input space, inside the feature ranges.
    var_ : ndarray of shape (C, n_features)
        Class variances in the input space (the floor and the mean's noise variance included).
    class_count_ : ndarray of shape (C,)
        The noisy class counts ñ_c as released (may be negative or fractional).
    class_prior_ : ndarray of shape (C,)
        The priors π of the decision rule.
    certificate_ : Certificate
    n_features_in_ : int

    References
    ----------
    .. [VSBH13] J. Vaidya, B. Shafiq, A. Basu, Y. Hong. Differentially Private Naive Bayes
       Classification. IEEE/WIC/ACM WI-IAT 2013, §IV-B.
    .. [HT10] M. Hardt, K. Talwar. On the Geometry of Differential Privacy. STOC 2010, Section 2.
    .. [BW18] B. Balle, Y.-X. Wang. Improving the Gaussian Mechanism for Differential
       Privacy. ICML 2018, Theorem 8.

    Examples
    --------
    >>> from dpconvex import PrivateGaussianNB
    >>> from dpconvex.datasets import SKLEARN_SCHEMAS, load_sklearn
    >>> X, y = load_sklearn("breast_cancer")   # numerics in ±1/(2 divisor), ranges published
    >>> half = 0.5 / SKLEARN_SCHEMAS["breast_cancer"].divisor
    >>> clf = PrivateGaussianNB(epsilon=1.0, feature_range=(-half, half),
    ...                         random_state=0).fit(X, y)
    >>> clf.theta_.shape, clf.var_.shape, clf.certificate_.delta
    ((2, 30), (2, 30), 0.0)
    >>> bool(clf.score(X, y) > 0.8)
    True
    >>> clf.predict_proba(X[:2]).sum(axis=1).round(6).tolist()
    [1.0, 1.0]
    """

    mechanism_menu: ClassVar[MechanismMenu] = MechanismMenu(
        {"gaussian": "gaussian", "knorm_sup_sum": "knorm_sup_sum"},
        auto=("knorm_sup_sum", "gaussian"))
    _noise_family: ClassVar[str] = "nb"
    takes_rows_ranges = True

    def __init__(self, *, epsilon: float = 1.0, delta: float | None = None,
                 mechanism: str = "auto", feature_range: Any = None,
                 var_floor: float = VAR_FLOOR, priors: Any = "empirical", classes: Any = None,
                 unknown_labels: str = "raise", random_state: int | None = None,
                 accountant: Any = None):
        self._store_params(locals())

    _parameter_constraints: ClassVar[dict[str, Constraint]] = {
        **ClassSumEstimator._parameter_constraints,
        "feature_range": Optional(FeatureRange()),  # its length: against the plan's columns
        "var_floor": Float(high=1.0, high_inclusive=True),
    }

    def public_shape(self, X: Any, y: Any,
                     context: FitContext = NO_CONTEXT) -> tuple[int, int, int]:
        """(n, n_classes, n_features) of rows that are not the raw table
        (:meth:`_refuse_raw_columns`).

        Parameters
        ----------
        X, y : array-like
            The rows and labels of the fit.
        context : FitContext, default=NO_CONTEXT
            The fit's context (the label set a holding fit hands this one).

        Returns
        -------
        tuple of int
            (n, n_classes, n_features).

        Examples
        --------
        >>> from dpconvex.estimators.gaussian_nb import PrivateGaussianNB
        >>> PrivateGaussianNB(classes=[-1, 1]).public_shape(X, y)
        (40, 2, 3)
        """
        self._refuse_raw_columns(X)
        return super().public_shape(X, y, context)

    def _validate_params(self, *, planned: bool = False) -> None:  # type: ignore[override]
        """The table, ``feature_range`` read once and kept (:meth:`_feature_ranges`), then
        ``delta`` against the mechanism (``planned``: by the plan)."""
        owner = type(self).__name__
        for name, constraint in self._parameter_constraints.items():
            if name == "feature_range":
                self._read_feature_range()
            else:
                constraint.check(name, getattr(self, name), owner)
        if not planned:
            self._checked_mechanism()

    def _read_feature_range(self) -> Any:
        """``feature_range`` checked and read once (:meth:`FeatureRange.read`), kept with the
        object it was read from."""
        given = self.feature_range
        ranges = None if given is None else FeatureRange().read(
            "feature_range", given, type(self).__name__)
        self._ranges_read = (given, ranges)
        return ranges

    def _feature_ranges(self) -> Any:
        """The ranges every step of a fit applies: ``feature_range`` as read when the parameters
        were checked (read now if it was not, or was set since), the default for None; a
        schema as it is, else floats. The plan's public facts and the template's clipping are
        both of this one reading."""
        given, ranges = getattr(self, "_ranges_read", (self, None))
        if given is not self.feature_range:
            ranges = self._read_feature_range()
        return DEFAULT_FEATURE_RANGE if ranges is None else ranges

    def _validated(self, X: Any, y: Any, context: FitContext, *,
                   binary: bool = False) -> CheckedData:
        """X and y validated once, X not the raw table (:meth:`_refuse_raw_columns`)."""
        self._refuse_raw_columns(X)
        return super()._validated(X, y, context, binary=binary)

    def _refuse_ranges_beyond(self, carried: np.ndarray) -> None:
        """Refuse a given ``feature_range`` beyond the ranges the rows carry
        (:func:`refuse_ranges_given_twice`)."""
        refuse_ranges_given_twice(self._feature_ranges(), carried, type(self).__name__,
                                  "the schema of the PublicEncoder that encoded X",
                                  "X.feature_range, the schema's encoded_range(data_norm)")

    def _refuse_raw_columns(self, X: Any) -> None:
        """Refuse the table a ``feature_range`` schema describes (a frame with its columns, not
        the encoder's features named in their order): the ranges are those of the encoded rows,
        not of the raw columns."""
        columns = [str(c) for c in getattr(X, "columns", ())]
        ranges = self._feature_ranges()
        if not columns or not _is_schema(ranges):  # no names to compare
            return
        # a uniform schema: for the width of the frame X
        schema = rows_schema(ranges, len(columns), type(self).__name__)
        # a schema whose features are all among its columns (numeric, binary; a column declared None
        # not among the features) names raw and encoded alike
        distinct = not set(schema.feature_names) <= set(schema.columns)
        if not (distinct and columns == list(schema.feature_names)) \
                and set(columns) & set(schema.columns):
            if distinct and sorted(columns) == sorted(schema.feature_names):
                raise DataValidationError(
                    f"{type(self).__name__}.fit: X holds the schema's encoded features in another "
                    "order "
                    f"than PublicEncoder(schema) makes them; pass them in the order "
                    f"{list(schema.feature_names)!r}."
                )
            raise DataValidationError(
                f"{type(self).__name__}.fit: X holds the schema's raw columns, and "
                "feature_range=schema gives the ranges of the rows PublicEncoder(schema) makes. "
                "Encode first: make_pipeline(PublicEncoder(schema), PrivateGaussianNB("
                "feature_range=schema)), or PrivateClassifier(schema=schema). (Encoded rows in a "
                "frame "
                "that names its features as the raw columns, as set_output(transform='pandas') "
                "does for "
                "numeric columns, take feature_range=np.column_stack(schema.encoded_range()).)"
            )

    def _plan(self, n: int, n_classes: int, n_features: int) -> FitPlan:
        """The plan of a fit, with the feature ranges checked against the columns."""
        given = self._feature_ranges()
        feature_bounds(given, n_features, type(self).__name__)  # its refusals
        ranges = np.asarray(given if not _is_schema(given) else (), dtype=float)
        return self._class_sum_plan(
            n, n_classes, n_features, template="class moment sums",
            learner="gaussian naive Bayes", notes=(MOMENT_MAP, NB_POSTPROCESSING), row_notes=(),
            options={"feature_range": (tuple(ranges.tolist()) if ranges.shape == (2,)
                                       else "one (lo, hi) per feature"),
                     "var_floor": float(self.var_floor)})

    def prepare(
        self, X: Any, y: Any, plan: FitPlan, *, context: FitContext = NO_CONTEXT
    ) -> Prepared:
        """Validate, encode labels and build the class-moment template of ``plan`` (no copy of X).

        Parameters
        ----------
        X, y : array-like
            The rows and labels of the fit.
        plan : FitPlan
            The plan of this estimator on their public shape (:meth:`plan_for`).
        context : FitContext, default=NO_CONTEXT
            The context the preparing fit issued.

        Returns
        -------
        Prepared
            The :class:`ClassMomentTemplate` on the rows and the label set.

        Examples
        --------
        >>> from dpconvex.estimators.gaussian_nb import PrivateGaussianNB
        >>> est = PrivateGaussianNB(classes=[-1, 1], feature_range=(-1, 1))
        >>> prep = est.prepare(X, y, est.plan_for(X, y))
        >>> type(prep.template).__name__, prep.template.noise_shape
        ('ClassMomentTemplate', (2, 7))
        """
        owner = type(self).__name__
        X_checked, labels = self._checked_data(X, y, plan, context)
        lo, hi = feature_bounds(self._feature_ranges(), X_checked.shape[1], owner)
        keep = ~labels.dropped  # dropped records (outside the set, left out) add nothing
        rows = label_rows(X_checked, labels)
        dask = is_dask_collection(X_checked)
        notes = self._template_notes(plan, labels, *([rows.certificate_note] if dask else []))
        template = ClassMomentTemplate(None, labels.index[keep], int(labels.classes.size),
                                       lo=lo, hi=hi, notes=notes, rows=rows)
        # NOT PRIVATE: for the data holder (dpconvex.collect_diagnostics), counted in the pass
        # that sums the classes (block by block, or per chunk on the Dask workers)
        template.count_altered(owner, n=X_checked.shape[0])
        return _bind_plan(Prepared(template=template, labels=labels), plan)

    def public_template(self, plan: FitPlan) -> ClassMomentTemplate:
        """The class moments' template of ``plan``'s public problem, no rows or labels read
        (the base's :meth:`~dpconvex.estimators.base.PrivateEstimator.public_template`, stated
        for this learner).

        Parameters
        ----------
        plan : FitPlan
            The plan of this estimator.

        Returns
        -------
        ClassMomentTemplate
            The template of n rows and the plan's classes, on the public ``feature_range`` of
            its d features (2d entries per class: each feature and its square).

        Raises
        ------
        ParameterError
            ``feature_range`` gives bounds for another number of features than the plan's.

        Examples
        --------
        >>> from dpconvex import PrivateGaussianNB
        >>> est = PrivateGaussianNB(epsilon=1.0, classes=[0, 1])
        >>> template = est.public_template(est.plan(1000, 2, 3))
        >>> template.n, template.d, template.C, template.X is None
        (1000, 6, 2, True)
        """
        lo, hi = feature_bounds(self._feature_ranges(), plan.n_features, type(self).__name__)
        return ClassMomentTemplate.of_problem(plan.n, plan.n_features, plan.n_classes,
                                              lo=lo, hi=hi, notes=plan.notes)

    # --------------------------------------------------------------------- fit
    def _release(self, prep: Prepared, plan: FitPlan, hold: CertificateHold,
                 context: FitContext, warm_start: np.ndarray | None) -> PrivateGaussianNB:
        """Release the noisy class moments and store the model (post-processing of V)."""
        owner = type(self).__name__
        released, law, w, floor = self._release_class_sums(prep, plan, hold, context)
        V = released.theta
        means, variances, counts = class_moments(
            V, w, floor, float(law.moments(V.shape)[1]) / V.size, float(self.var_floor)
        )
        lo, hi = prep.template.lo, prep.template.hi  # the public ranges
        half = (hi - lo) / 2.0
        self.theta_ = lo + half * (means + 1.0)
        self.var_ = variances * half**2
        self.class_count_ = counts
        self.class_prior_ = class_priors(self.priors, counts, floor, owner)
        return self

    # ----------------------------------------------------------------- predict
    @checks_feature_names
    def predict_joint_log_proba(self, X: Any) -> np.ndarray:
        """log π_c + log N(x | θ_c, diag v_c) for x clipped to the feature ranges, shape (n, C).

        As scikit-learn's ``GaussianNB.predict_joint_log_proba`` on the released θ and v.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows to score.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Column j: the joint log-likelihood of ``classes_[j]``.

        Examples
        --------
        >>> from dpconvex.estimators.gaussian_nb import PrivateGaussianNB
        >>> est = PrivateGaussianNB(classes=[-1, 1], feature_range=(-1, 1), random_state=0)
        >>> est = est.fit(X, y)
        >>> est.predict_joint_log_proba(X[:3]).shape
        (3, 2)
        """
        return self._scores(X, "predict_joint_log_proba")

    def _scores(self, X: Any, method: str) -> np.ndarray:
        """:meth:`predict_joint_log_proba`, its errors naming the public ``method`` called."""
        check_fitted(self, "theta_")
        owner = type(self).__name__
        rows = check_array(
            X, f"{owner}.{method}", n_features=self.n_features_in_, accept_sparse=True
        )
        return self._row_scores(rows)

    def _row_scores(self, rows: Any) -> np.ndarray:
        """:meth:`_scores` of rows already checked."""
        lo, hi = feature_bounds(self._feature_ranges(), self.n_features_in_, type(self).__name__)
        inverse_var = 1.0 / self.var_
        constant = (np.log(self.class_prior_)
                    - 0.5 * np.sum(np.log(2.0 * np.pi * self.var_), axis=1)
                    - 0.5 * np.sum(self.theta_**2 * inverse_var, axis=1))
        linear = (self.theta_ * inverse_var).T
        parts = []
        for _, block in dense_blocks(rows):
            x = np.clip(block, lo, hi)
            parts.append(constant - 0.5 * (x * x) @ inverse_var.T + x @ linear)
        return np.vstack(parts)

    @checks_feature_names
    def predict_proba(self, X: Any) -> np.ndarray:
        """P(c | x) under the released model; column j is the probability of ``classes_[j]``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows to classify.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Rows sum to 1.

        Examples
        --------
        >>> from dpconvex.estimators.gaussian_nb import PrivateGaussianNB
        >>> est = PrivateGaussianNB(classes=[-1, 1], feature_range=(-1, 1), random_state=0)
        >>> est = est.fit(X, y)
        >>> np.allclose(est.predict_proba(X[:3]).sum(axis=1), 1.0)
        True
        """
        # the argmax kept where exp rounds a gap away
        log_proba = self._log_proba(X, "predict_proba")
        return keep_argmax(np.exp(log_proba), log_proba)

    @checks_feature_names
    def predict(self, X: Any) -> np.ndarray:
        """The class of largest posterior (ties: the first class in ``classes_``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows to classify.

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels from ``classes_``.

        Examples
        --------
        >>> from dpconvex.estimators.gaussian_nb import PrivateGaussianNB
        >>> est = PrivateGaussianNB(classes=[-1, 1], feature_range=(-1, 1), random_state=0)
        >>> est = est.fit(X, y)
        >>> set(est.predict(X).tolist()) <= {-1, 1}
        True
        """
        joint = self._scores(X, "predict")  # checks that the model is fitted
        return self.classes_[np.argmax(joint, axis=1)]

    def _predict_rows(self, X_checked: Any) -> np.ndarray:
        """:meth:`predict` of rows already checked (a front door's selection)."""
        return self.classes_[np.argmax(self._row_scores(X_checked), axis=1)]
