"""Differentially private class centroids: noisy class sums and counts, nearest class mean.

The class-sum template, the block and chunk readers of the rows and the release of
:class:`ClassSumEstimator` serve Gaussian naive Bayes too
(:mod:`dpconvex.estimators.gaussian_nb`), whose per-record map adds the squares.

:class:`PrivateGaussianCentroid` releases, in one noisy vector, the class sums of the public
feature map u = clip(x, q)/q and the class counts (replace-one L2 sensitivity 2,
docs/privacy/large_margin.md#privacy-class-centroids); everything after is post-processing.
Its rule is the Gaussian classifier with one shared, isotropic covariance σ²I ([HTF09]_
Section 4.3), the λ → ∞ limit of the large-margin Gaussian classifier ([PR10]_), with
priors and σ̂² from the release (docs/privacy/large_margin.md#privacy-centroid-priors).

References
----------
.. [HTF09] T. Hastie, R. Tibshirani, J. Friedman. The Elements of Statistical
   Learning, 2nd ed. Springer 2009, Section 4.3 (LDA; nearest centroid).
.. [PR10] M. A. Pathak, B. Raj. Large Margin Multiclass Gaussian
   Classification with Differential Privacy. PSDM 2010.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from .._validation import (
    ACCOUNTANT,
    CLASSES,
    DATA_NORM,
    DELTA,
    EPSILON,
    RANDOM_STATE,
    Constraint,
    Float,
    NoValidation,
    Optional,
    check_fitted,
    check_float,
    check_option,
    checks_feature_names,
    describe_value,
    is_dask_collection,
)
from ..data.operators import CSRRows, canonical_csr, row_norms
from ..data.preprocess import clip_rows
from ..data.validation import LABEL_POLICY, LabelSet, check_array
from ..errors import ParameterError, diagnostics_open, note_clipped
from ..objectives.losses import shipped_derivation
from ..privacy.budget import DELTA_RULE, Budget, default_delta
from ..privacy.certificate import Certificate, Condition, MechanismChoice, RowMap
from ..privacy.mechanisms import Mechanism, MechanismMenu, build_mechanism
from ..privacy.mechanisms.base import AutoMechanism, resolve_mechanism
from ..privacy.mechanisms.gaussian import class_sum_matrix
from ..privacy.mechanisms.record_sets import NormBall, RecordSet
from ..privacy.release import Release, _release_checked, release
from ..privacy.rules.noise_level import warn_if_noise_dominates
from ..templates.base import EuclideanSpace
from .base import (
    NO_CONTEXT,
    ROW_NORM,
    CertificateHold,
    ClassifierScoreMixin,
    FitContext,
    FitPlan,
    Prepared,
    PrivateEstimator,
    _bind_plan,
    keep_argmax,
)

__all__ = ["PRIORS", "WITHIN_FLOOR", "BallRows", "ClassSumEstimator", "ClassSumTemplate",
           "PrivateGaussianCentroid", "Priors", "class_priors", "label_rows", "prior_penalty",
           "within_class_variance"]

#: The public map of a record to its feature vector, for the certificate.
FEATURE_MAP = ("feature map u = clip(x, data_norm) / data_norm (per record, public), so "
               "||u|| <= 1; the count coordinate w = 1 plays the role of a constant feature")

#: The certificate's row map of the per-record scaling.
UNIT_ROWS = RowMap(
    "unit",
    "row_norm='unit': every u scaled to norm 1 (u/||u||, zero rows stay "
    "zero), a map that reads only the record itself, so typical rows use the whole norm bound",
)

#: The post-processing of the release, for the certificate.
POSTPROCESSING = ("class means mu_c = s_c / max(n_c, max(1, s/w)) from the noisy sums and counts "
                  "(s the public per-coordinate noise scale), projected onto the unit ball; "
                  "class priors and the within-class variance from the noisy sums and counts; "
                  "prediction by argmin_c ||u - mu_c||^2 - 2 sigma^2 log pi_c: post-processing "
                  "(docs/privacy/large_margin.md#privacy-centroid-priors)")

#: Values of ``priors`` besides an array of public priors.
PRIORS = ("empirical", "uniform")

#: Public floor on the within-class second moment W (units of the bound ||u||^2 <= 1): keeps
#: the estimated variance W/d, and so the temperature, positive
#: (docs/privacy/large_margin.md#privacy-centroid-priors).
WITHIN_FLOOR = 1e-3


@dataclass(frozen=True)
class Priors(Constraint):
    """``priors``: "empirical", "uniform", or a 1-D array-like of positive finite numbers.

    The length is checked against the public label set in the plan (:func:`class_priors`).

    Examples
    --------
    >>> from dpconvex.estimators.centroids import Priors
    >>> Priors().check("priors", "uniform", "Demo")
    'uniform'
    """

    def check(self, name: str, value: Any, owner: str, noun: str = "parameter") -> Any:
        """Return ``value`` if it is one of :data:`PRIORS` or a 1-D array-like of positive
        finite numbers, else raise the error naming the parameter ``name`` of ``owner``.

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
        str or array-like
            ``value`` itself.

        Raises
        ------
        ParameterError
            A string other than those of :data:`PRIORS`, a value that is not a non-empty 1-D
            array of numbers, or numbers that are not all positive and finite.

        Examples
        --------
        >>> from dpconvex.estimators.centroids import Priors
        >>> Priors().check("priors", [1, 2], "Demo")
        [1, 2]
        >>> Priors().check("priors", [1, -2], "Demo")
        Traceback (most recent call last):
        ...
        dpconvex.errors.ParameterError: The 'priors' parameter of Demo must hold positive ...
        """
        if isinstance(value, str):
            return check_option(name, value, PRIORS, owner)
        try:
            a = np.asarray(value, dtype=float)
        except (TypeError, ValueError, OverflowError):
            a = None
        if a is None or a.ndim != 1 or a.size < 1 or isinstance(value, (bool, np.bool_)):
            raise self.refusal(name, value, owner, noun)
        if not (np.all(np.isfinite(a)) and np.all(a > 0)):
            raise ParameterError(
                f"The '{name}' {noun} of {owner} must hold positive finite numbers (they are "
                f"normalized to sum to 1). Got {describe_value(value)} instead.")
        return value

    def __str__(self) -> str:
        return (
            "'empirical', 'uniform' or an array-like of shape (n_classes,) of public class priors"
        )


def class_priors(priors: Any, counts: np.ndarray, floor: float, owner: str) -> np.ndarray:
    """The class priors π (summing to 1) of ``priors`` for the released counts ñ_c.

    "empirical": π_c = max(ñ_c, f) / Σ_c′ max(ñ_c′, f) with f the public count floor of
    the means (a post-processing of the release); "uniform": 1/C; an array: its entries
    divided by their sum (public priors, validated by :class:`Priors`; scaled by their largest
    first, so priors near the float range give what their ratios give).

    Parameters
    ----------
    priors : "empirical", "uniform" or array-like
        The ``priors`` parameter, validated by :class:`Priors`.
    counts : ndarray of shape (C,)
        ñ_c, the released counts.
    floor : float
        f, the public count floor.
    owner : str
        The estimator, named in a refusal.

    Returns
    -------
    ndarray of shape (C,)
        π.

    Raises
    ------
    ParameterError
        An array of priors without one entry per class.

    Examples
    --------
    >>> from dpconvex.estimators.centroids import class_priors
    >>> class_priors([1e308, 1e308, 2e307], np.ones(3), 1.0, "Demo").round(3).tolist()
    [0.455, 0.455, 0.091]
    """
    C = int(np.shape(counts)[0])
    if isinstance(priors, str) and priors == "empirical":
        floored_counts = np.maximum(np.asarray(counts, dtype=float), float(floor))
        return floored_counts / floored_counts.sum()
    if isinstance(priors, str) and priors == "uniform":
        return np.full(C, 1.0 / C)
    given_priors = np.asarray(priors, dtype=float)
    if given_priors.shape != (C,):
        raise ParameterError(
            f"The 'priors' parameter of {owner} must have one entry per class of the public "
            f"label set ({C} classes). Got {given_priors.size} entries; give one prior per "
            "class, in the order of classes_ (the labels sorted).")
    scaled = given_priors / given_priors.max()  # in (0, 1]: the sum cannot overflow (1e308 each)
    return scaled / scaled.sum()


def within_class_variance(V: np.ndarray, count_weight: float, floor: float,
                          sum_noise_energy: np.ndarray) -> float:
    """σ̂² = max(1 − Σ_c π̂_c m̂_c, W_floor)/d from the released (C, d + 1) vector V (u units).

    m̂_c estimates ‖μ_c‖² from the released sums less the public noise energy E_c
    (``sum_noise_energy``, shape (C,)) and π̂_c the priors from the floored counts
    (docs/privacy/large_margin.md#privacy-centroid-priors). Post-processing; returns σ̂² > 0
    in the units of u.

    Parameters
    ----------
    V : ndarray of shape (C, d + 1)
        The released vector.
    count_weight : float
        w, the weight of the count column (the counts are V[:, d] / w).
    floor : float
        The public count floor f.
    sum_noise_energy : ndarray of shape (C,)
        E_c, the public noise energy of each class sum.

    Returns
    -------
    float
        σ̂² > 0.

    Examples
    --------
    >>> from dpconvex.estimators.centroids import within_class_variance
    >>> V = np.array([[1.0, 0.0, 0.0, 5.0], [0.0, 1.0, 0.0, 5.0]])  # ‖μ_c‖ = 1/5, π = 1/2
    >>> within_class_variance(V, 1.0, 1.0, np.zeros(2))  # (1 − 1/25) / 3
    0.32
    """
    V = np.asarray(V, dtype=float)
    d = V.shape[1] - 1
    floored_counts = np.maximum(V[:, d] / float(count_weight), float(floor))
    pi = floored_counts / floored_counts.sum()
    energy = np.einsum("ij,ij->i", V[:, :d], V[:, :d])
    m = np.clip((energy - np.asarray(sum_noise_energy, dtype=float)) / floored_counts**2, 0.0, 1.0)
    return float(max(1.0 - float(pi @ m), WITHIN_FLOOR) / d)


def prior_penalty(priors: np.ndarray, variance: float) -> np.ndarray:
    """2σ̂²(log π_max − log π_c) >= 0 per class: the prior term of the squared distances.

    argmin_c ‖u − μ_c‖² + this is the Bayes rule of u | c ~ N(μ_c, σ̂²I) with priors π;
    it is exactly 0 for equal priors, so the rule is then the nearest mean bit for bit.

    Parameters
    ----------
    priors : ndarray of shape (C,)
        π.
    variance : float
        σ̂².

    Returns
    -------
    ndarray of shape (C,)

    Examples
    --------
    >>> from dpconvex.estimators.centroids import prior_penalty
    >>> prior_penalty(np.array([0.5, 0.5]), 1.0).tolist()
    [0.0, 0.0]
    >>> prior_penalty(np.array([0.8, 0.2]), 1.0).round(3).tolist()
    [0.0, 2.773]
    """
    logp = np.log(np.asarray(priors, dtype=float))
    return 2.0 * float(variance) * (logp.max() - logp)


def _sum_noise_energy(
    mechanism: Mechanism, calibration: Any, law: Any, shape: tuple[int, int]
) -> np.ndarray:
    """E‖b_c‖² on the d sum coordinates of each class: public, from the calibration and its
    noise ``law``.

    A mechanism whose noise is not exchangeable across the C (d + 1) entries declares
    ``entry_second_moments(cal, shape)`` (E b² per entry); for the others (the
    Gaussian and norm-Gamma laws are rotation invariant) every entry has E‖b‖²/p.
    """
    C, n_columns = shape
    per_entry = getattr(mechanism, "entry_second_moments", None)
    if per_entry is not None:
        E = np.broadcast_to(np.asarray(per_entry(calibration, shape), dtype=float), shape)
        return E[:, : n_columns - 1].sum(axis=1)
    second_moment = float(law.moments(shape)[1])
    return np.full(C, (n_columns - 1) * second_moment / (C * n_columns))


def _unit(U: Any) -> Any:
    """u / ||u|| per record (zero rows stay zero): the map of ``row_norm="unit"``.

    Sparse rows are scaled on their stored entries (a ``csr_array``, never densified).
    """
    if sp.issparse(U):
        rows = canonical_csr(U)
        norms = np.sqrt(np.asarray(rows.multiply(rows).sum(axis=1), dtype=float).ravel())
        entry_norms = np.repeat(norms, np.diff(rows.indptr))  # each stored entry's row norm
        data = np.divide(
            rows.data, entry_norms, out=np.zeros_like(rows.data), where=entry_norms > 0
        )
        return sp.csr_array((data, rows.indices, rows.indptr), shape=rows.shape)
    norms = np.linalg.norm(U, axis=1, keepdims=True)
    return np.divide(U, norms, out=np.zeros_like(U), where=norms > 0)


@dataclass(frozen=True)
class BallRows:
    """The centroids' public map of a block of raw rows to feature vectors u (one row each).

    u = clip(x, q)/q, then u/‖u‖ with ``unit`` (zero rows stay zero), then clipped to
    ``bound``: ‖u‖ <= ``bound`` for every row, whatever x is. It reads each row alone (a
    per-record map), and is picklable, so Dask workers apply it to their chunks.

    Parameters
    ----------
    q : float
        The public row-norm bound.
    unit : bool
        Scale every non-zero row to norm 1.
    bound : float, default=1.0
        The norm bound of u.

    Examples
    --------
    >>> from dpconvex.estimators.centroids import BallRows
    >>> BallRows(q=2.0, unit=True)(np.array([[3.0, 4.0], [0.0, 0.0]])).round(6).tolist()
    [[0.6, 0.8], [0.0, 0.0]]
    """

    q: float
    unit: bool
    bound: float = 1.0

    def __call__(self, X: np.ndarray) -> np.ndarray:
        U = clip_rows(X, self.q)[0] / self.q
        return clip_rows(_unit(U) if self.unit else U, self.bound)[0]

    def scaled(self, X: np.ndarray) -> np.ndarray:
        """Whether each raw row of X (n, d) has a norm above q (clipping scales it down).

        Examples
        --------
        >>> from dpconvex.estimators.centroids import BallRows
        >>> BallRows(q=2.0, unit=False).scaled(np.array([[3.0, 4.0], [1.0, 1.0]])).tolist()
        [True, False]
        """
        return row_norms(X) > self.q


def _class_sum_block(block: np.ndarray, scale: Any, signs: bool, record_map: Any, C: int,
                     w: float, altered: Callable[[np.ndarray], np.ndarray] | None = None
                     ) -> np.ndarray:
    """One block's (class sums of u, w x class counts), flattened to shape (1, C (k + 1)).

    ``block`` holds the raw rows and, in its last column, the class index (-1: outside the label set);
    ``record_map`` builds u from each raw row (k entries), exactly as the in-memory path builds it.
    ``altered`` (NOT PRIVATE: for :func:`~dpconvex.collect_diagnostics` only): a per-row test
    of the raw rows the map changes (:attr:`ClassSumTemplate.altered`); the number of rows of
    the label set it holds for is appended as one last entry (shape (1, C (k + 1) + 1)).
    """
    sums = class_sum_matrix(record_map(block[:, :-1]), block[:, -1], C, w).reshape(1, -1)
    if altered is None:
        return sums
    count = np.count_nonzero(altered(block[:, :-1]) & (block[:, -1] >= 0))
    return np.hstack([sums, np.full((1, 1), float(count))])


#: Entries per block of :class:`_BlockRows` (512 KB of float64).
_SUM_BLOCK_ENTRIES = 1 << 16


def dense_blocks(X: Any, width: int | None = None) -> Iterator[tuple[int, np.ndarray]]:
    """(first row, rows as a dense array) of X in blocks of about :data:`_SUM_BLOCK_ENTRIES`
    entries (``width`` entries per row: the columns of X unless given)."""
    step = max(1, _SUM_BLOCK_ENTRIES // max(X.shape[1] if width is None else width, 1))
    for start in range(0, X.shape[0], step):
        rows = X[start:start + step]
        yield start, rows.toarray() if sp.issparse(rows) else rows


class _BlockRows:
    """Rows in memory (dense, or sparse read as dense one block at a time) and their class
    index (-1: outside the label set), read in blocks of rows by :meth:`chunk_sum` as
    ``DaskRows`` reads its chunks: u is built and summed per block, so the class sums hold
    no copy of the rows."""

    def __init__(self, X: Any, label: np.ndarray):
        self.X, self.label = X, np.asarray(label, dtype=float)
        self.n, self.p = X.shape[0], X.shape[1] + 1

    def chunk_sum(self, k: Any, *a: Any) -> np.ndarray:
        """Σ over the blocks of k(block with the class column, None, False, *a)."""
        total = None
        for start, rows in dense_blocks(self.X, self.p):
            block = np.column_stack([rows, self.label[start:start + rows.shape[0]]])
            part = k(block, None, False, *a)
            total = part if total is None else total + part
        return total


def label_rows(X: Any, labels: Any) -> Any:
    """The rows of a fit with their class index (-1: dropped), read block by block.

    Dask rows: a :class:`~dpconvex.data.dask_rows.DaskRows` over X with the index as a last
    column, summed per chunk on the workers in one pass; rows in memory (dense or sparse): a
    block reader that never copies the whole of X. ``labels`` is the
    :func:`~dpconvex.data.validation.encode_labels` result.

    Parameters
    ----------
    X : ndarray, scipy.sparse matrix or dask.array.Array of shape (n, d)
        The validated rows.
    labels : LabelSet
        Their labels, encoded against the public label set.

    Returns
    -------
    block reader or DaskRows
        The rows with the class index as column d (``p = d + 1``), for
        :class:`ClassSumTemplate`'s ``rows``.

    Examples
    --------
    >>> from dpconvex.data.validation import encode_labels
    >>> from dpconvex.estimators.centroids import ClassSumTemplate, label_rows
    >>> labels = encode_labels(y, [-1, 1], "Doc.fit")
    >>> rows = label_rows(X, labels)
    >>> rows.p
    4
    >>> template = ClassSumTemplate(None, labels.index, 2, rows=rows)
    >>> template.class_sums_chunked(1.0)[:, -1].tolist()  # the class counts
    [21.0, 19.0]
    """
    index = np.where(~labels.dropped, labels.index, -1)
    if not is_dask_collection(X):
        return _BlockRows(X, index)
    import dask.array as da

    from ..data.dask_rows import DaskRows

    index_column = da.from_array(index.astype(float)[:, None], chunks=(X.chunks[0], 1))
    return DaskRows(da.concatenate([X, index_column], axis=1))


class ClassSumTemplate:
    """Feature vectors u_i (‖u_i‖ <= ``data_norm``) and class indices: the class-sum problem.

    The statistic is the joint vector V ∈ R^{C × (d + 1)} with rows
    (Σ_{i: y_i = c} u_i, w·n_c), which the mechanisms of
    :mod:`dpconvex.privacy.mechanisms.gaussian` compute and perturb.

    Parameters
    ----------
    U : ndarray or scipy.sparse matrix of shape (n, d)
        Feature vectors of the records inside the public label set; rows above
        ``data_norm`` are clipped here (a per-record map). Rows within it are read in place:
        the release checks their norms again and refuses rows changed after the template
        was built (:class:`~dpconvex.errors.PrivacyError`).
    y : ndarray of shape (n,)
        Class indices in {0, ..., C − 1}.
    n_classes : int
        C (public).
    data_norm : float, default=1.0
        The public bound B on ‖u‖.
    notes : sequence of str, default=()
        Public facts for the certificate (:meth:`assumptions`).
    rows : block reader or DaskRows, optional
        The raw rows with their class index as a last column (-1: left out), from
        :func:`label_rows`; U is then None, and the template's own per-record map
        ``BallRows(row_bound, unit, data_norm)`` (:attr:`record_map`, landing in
        :attr:`record_set`) builds u block by block.
    row_bound : float, default=1.0
        The public bound q the raw rows of ``rows`` are clipped to before u = x/q.
    unit : bool, default=False
        Scale every non-zero u of ``rows`` to norm 1 (``row_norm="unit"``).

    Examples
    --------
    >>> from dpconvex.estimators.centroids import ClassSumTemplate
    >>> template = ClassSumTemplate(X, (y > 0).astype(int), n_classes=2)
    >>> template.n, template.noise_shape, template.record_set
    (40, (2, 4), NormBall(bound=1.0))
    """

    name = "class sums"
    kind = "centroid"
    derivation = "docs/privacy/large_margin.md#privacy-class-centroids"
    capabilities = frozenset({"cell_sums"})
    noise_symmetric = False
    residual_tol = math.inf
    K = 1
    n_iter = 0
    init_centers = None
    #: NOT PRIVATE: the owner and the number of rows n of the note :meth:`count_altered`
    #: asked for, public values only (private: no member of the solved template; the pass
    #: that sums the classes clears it).
    _altered_note: tuple[str, int] | None = None

    def __init__(self, U: np.ndarray, y: np.ndarray, n_classes: int, *, data_norm: float = 1.0,
                 notes: Sequence[str] = (), rows: Any = None, row_bound: float = 1.0,
                 unit: bool = False):
        #: The public bound q the raw rows of ``rows`` are clipped to before u = x/q.
        self.row_bound = check_float("row_bound", row_bound, "ClassSumTemplate", magnitude=False)
        #: Whether every non-zero u of ``rows`` is scaled to norm 1.
        self.unit = bool(unit)
        self._hold(U, y, n_classes, data_norm, notes, rows)

    def _hold(self, U: Any, y: np.ndarray, n_classes: int, data_norm: float,
              notes: Sequence[str], rows: Any) -> None:
        """Hold the records: U clipped to ``data_norm``, or ``rows`` read block by block
        through :attr:`record_map` (built from the template's public parameters), and their
        class indices."""
        self.y = np.asarray(y, dtype=np.int64)
        if rows is not None:
            # raw rows + class column, read per chunk (Dask) or per block (in memory)
            self.X, n, d = rows, int(self.y.size), self._record_width(rows.p - 1)
        else:  # sparse rows stay a csr_array (the class sums read their stored entries)
            self.X = clip_rows(canonical_csr(U) if sp.issparse(U) else np.asarray(U, dtype=float),
                               float(data_norm))[0]
            n, d = self.X.shape
        self._build(n, d, n_classes, data_norm, notes, rows)
        if self.y.shape != (self.n,) or (self.n and (self.y.min() < 0 or self.y.max() >= self.C)):
            raise ParameterError("The 'y' argument of ClassSumTemplate must hold n class indices "
                                 "in [0, n_classes), one per row of U.")

    @classmethod
    def of_problem(cls, n: int, d: int, n_classes: int, *, data_norm: float = 1.0,
                   notes: Sequence[str] = ()) -> ClassSumTemplate:
        """The template of the public problem alone: n records with u of d entries in the ball
        of radius ``data_norm``, C classes; no rows or labels read.

        Its record set, noise shape, conditions and assumptions are those of the template a fit
        on n rows builds; it holds no rows and sums nothing (a dry run: ``certify(n=...)``, the
        noise checks of a plan).

        Parameters
        ----------
        n : int
            The number of records.
        d : int
            The entries of a record's vector u.
        n_classes : int
            C.
        data_norm : float, default=1.0
            The public bound on ‖u‖.
        notes : sequence of str, default=()
            Public facts for the certificate.

        Returns
        -------
        ClassSumTemplate
            A template that holds no rows or labels.

        Examples
        --------
        >>> t = ClassSumTemplate.of_problem(10**12, 3, n_classes=2)
        >>> t.n, t.noise_shape, t.X is None, t.record_set
        (1000000000000, (2, 4), True, NormBall(bound=1.0))
        """
        template = cls.__new__(cls)
        template.X = template.y = None
        template.row_bound, template.unit = 1.0, False
        template._build(n, d, n_classes, data_norm, notes)
        return template

    def _build(self, n: int, d: int, n_classes: int, data_norm: float, notes: Sequence[str],
               rows: Any = None) -> None:
        """Hold the public problem (n, the record width d, C, the bound, the notes, the space)
        and, for rows read per block or per chunk, the rows and the map of a record to u."""
        self.n, self.d, self.C = int(n), int(d), int(n_classes)
        self.data_norm = float(data_norm)
        self.notes = tuple(notes)
        self.rows = rows
        if rows is not None:
            self.capabilities = frozenset({"cell_sums", "chunked_class_sums"})
        self.space = EuclideanSpace((self.C, self.d + 1))

    def _record_width(self, n_columns: int) -> int:
        """k, the entries of one record's vector u for raw rows of ``n_columns`` columns."""
        return n_columns

    @property
    def record_map(self) -> Any:
        """The per-record map of a raw row to u, built from the public ``row_bound``, ``unit``
        and ``data_norm`` at each read (read-only: an assigned map is refused)."""
        return BallRows(self.row_bound, self.unit, self.data_norm)

    def count_altered(self, owner: str, n: int) -> None:
        """NOT PRIVATE (diagnostics): have the next pass over ``rows`` that sums the classes
        (:meth:`class_sums_chunked`, with a :func:`~dpconvex.collect_diagnostics` open) count
        the rows of the label set :attr:`altered` holds for, and record the count as a
        :class:`~dpconvex.errors.DiagnosticNote` of ``owner`` out of ``n`` rows
        (:meth:`_record_altered`), once per template (a sweep releases it again).

        Parameters
        ----------
        owner : str
            The estimator the note names.
        n : int
            The number of rows the fit read (the note's ``n``).

        Examples
        --------
        >>> import dpconvex
        >>> from dpconvex.data.validation import encode_labels
        >>> from dpconvex.estimators.centroids import label_rows
        >>> labels = encode_labels(y, [-1, 1], "Doc.fit")
        >>> template = ClassSumTemplate(None, labels.index, 2, rows=label_rows(3 * X, labels))
        >>> template.count_altered("Doc", n=40)
        >>> with dpconvex.collect_diagnostics() as diag:
        ...     _ = template.class_sums_chunked(1.0)
        >>> [(note.owner, note.count, note.n) for note in diag.notes]
        [('Doc', 40, 40)]
        """
        self._altered_note = (str(owner), int(n))

    def _record_altered(self, owner: str, count: int, n: int) -> None:
        """NOT PRIVATE: record the count of rows :attr:`altered` holds for: rows scaled down to
        ``row_bound`` (:func:`~dpconvex.errors.note_clipped`)."""
        note_clipped(count, n, self.row_bound, owner)

    @property
    def altered(self) -> Callable[[np.ndarray], np.ndarray]:
        """NOT PRIVATE (diagnostics): the per-row test of the raw rows :attr:`record_map`
        changes, counted by :meth:`class_sums_chunked` (:meth:`count_altered`): a norm above
        ``row_bound`` (``BallRows.scaled``)."""
        return self.record_map.scaled

    @property
    def record_set(self) -> RecordSet:
        """The set every u lies in: the ball ‖u‖ <= ``data_norm``
        (docs/privacy/large_margin.md#privacy-class-centroids)."""
        return NormBall(self.data_norm)

    @property
    def noise_shape(self) -> tuple[int, ...]:
        return self.space.shape

    def conditions(self, needs: Any) -> list[Condition]:
        """The template's own conditions of the proof. The norm bound of u is a per-record map
        (:attr:`record_set`) that the mechanisms state; the rows held in memory are the caller's
        array where nothing needed clipping (not copied), so dpconvex's own template states
        one condition on them: every row within ``data_norm`` as it is when the sums are taken
        (failing, it refuses the release). None for the public problem alone, rows on workers,
        or a subclass (its bound declared and vouched for).

        Parameters
        ----------
        needs : object
            What the mechanism needs (not read).

        Returns
        -------
        list of Condition
            The row norm bound on the rows held, or none.

        Examples
        --------
        >>> ClassSumTemplate.of_problem(10, 3, n_classes=2).conditions(None)
        []
        >>> held = ClassSumTemplate(np.array([[0.6, 0.8], [0.0, 1.0]]), np.array([0, 1]), 2)
        >>> [(c.name, c.holds) for c in held.conditions(None)]
        [('row norm bound', True)]
        """
        if self.rows is not None or self.X is None or shipped_derivation(self) is None:
            return []
        U = self.X  # the rows a release states clipped by dpconvex (a subclass vouches)
        norms = CSRRows(U).row_norms() if sp.issparse(U) else row_norms(U)
        within = bool(np.all(norms <= self.data_norm * (1 + 1e-12)))
        return [Condition(
            "row norm bound", within, "checked on every row",
            f"every row of U has ||u|| <= data_norm = {self.data_norm:g}" if within else
            f"rows of U exceed the public bound data_norm = {self.data_norm:g} (changed after "
            "the template clipped them); build the template from the rows as they are released")]

    def assumptions(self, needs: Any) -> list[str]:
        """The public facts the template states for the certificate: its ``notes``.

        Parameters
        ----------
        needs : object
            What the mechanism needs (not read).

        Returns
        -------
        list of str

        Examples
        --------
        >>> ClassSumTemplate.of_problem(10, 3, n_classes=2, notes=("a note",)).assumptions(None)
        ['a note']
        """
        return list(self.notes)

    def class_sums_chunked(self, count_weight: float) -> np.ndarray:
        """The (C, d + 1) class sums and weighted counts in one pass over the rows' chunks.

        Each chunk (of Dask rows, on its worker; or a block of rows in memory) builds u
        per row and sums it per class; the partial sums are added.

        Parameters
        ----------
        count_weight : float
            w, the weight of the count column.

        Returns
        -------
        ndarray of shape (C, d + 1)
            Row c: (Σ_{i: y_i = c} u_i, w·n_c).

        Examples
        --------
        >>> from dpconvex.data.validation import encode_labels
        >>> from dpconvex.estimators.centroids import label_rows
        >>> labels = encode_labels(y, [-1, 1], "Doc.fit")
        >>> template = ClassSumTemplate(None, labels.index, 2, rows=label_rows(X, labels))
        >>> template.class_sums_chunked(2.0)[:, -1].tolist()  # 2 · the class counts
        [42.0, 38.0]
        """
        asked = self._altered_note if diagnostics_open() else None
        extra = () if asked is None else (self.altered,)  # counted in the same pass
        V = np.asarray(self.rows.chunk_sum(_class_sum_block, self.record_map, self.C,
                                           float(count_weight), *extra)).ravel()
        if asked is not None:  # NOT PRIVATE: for the data holder only, then dropped
            self._altered_note = None  # one note (a sweep releases the template again)
            owner, n = asked
            self._record_altered(owner, int(V[-1]), n)
            V = V[:-1]
        return V.reshape(self.C, self.d + 1)


#: The mechanisms of the DP class centroids (privacy-class-centroids).
CENTROID_MENU = MechanismMenu({name: name for name in ("gaussian", "norm_gamma_sum", "knorm_sum")},
                              auto=("knorm_sum", "gaussian"))


class ClassSumEstimator(ClassifierScoreMixin, PrivateEstimator):
    """What the estimators over one release of class sums share
    (docs/privacy/large_margin.md#privacy-class-centroids, privacy-gaussian-nb).

    ``mechanism`` resolved from δ by the one rule on the menu :attr:`mechanism_menu`,
    δ checked against it, the budget (δ = min(1e-5, 1/n²) when a Gaussian mechanism is
    named with ``delta=None``), the dry run and the release itself. The host declares the
    ``epsilon``, ``delta``, ``mechanism`` and ``random_state`` parameters.

    Examples
    --------
    >>> from dpconvex import PrivateGaussianCentroid, PrivateGaussianNB
    >>> from dpconvex.estimators.centroids import ClassSumEstimator
    >>> issubclass(PrivateGaussianNB, ClassSumEstimator)
    True
    >>> issubclass(PrivateGaussianCentroid, ClassSumEstimator)
    True
    """

    takes_row_mask = True

    #: The mechanisms offered and what "auto" resolves to.
    mechanism_menu: ClassVar[MechanismMenu] = CENTROID_MENU
    #: The family of the public noise check (privacy-noise-warning-gd-centroids, privacy-gaussian-nb).
    _noise_family: ClassVar[str] = "centroid"

    #: CSR/CSC rows: the centroids' clipped and summed per class on their stored entries, naive
    #: Bayes' read as dense one block of rows at a time (t is not sparse).
    _accepts_sparse: ClassVar[bool] = True
    #: The rules of the parameters every class-sum estimator has.
    _parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "epsilon": EPSILON,
        "delta": Optional(DELTA),  # against the mechanism: _validate_params
        "mechanism": NoValidation("built (and named in errors) by _validate_params"),
        "priors": Priors(),  # its length against the label set in the plan
        "classes": CLASSES, "unknown_labels": LABEL_POLICY,
        "random_state": RANDOM_STATE, "accountant": ACCOUNTANT,
    }

    def _resolved(self) -> AutoMechanism:
        """``mechanism`` with "auto" resolved by δ (δ checked first: a named error, not a crash)."""
        self._parameter_constraints["delta"].check("delta", self.delta, type(self).__name__)
        return resolve_mechanism(self.mechanism, self.delta, self.mechanism_menu.auto)

    def _mechanism(self) -> Mechanism:
        """The mechanism object the parameters ask for ("auto": by δ, the one rule), ``delta``
        checked against it."""
        return self._checked_mechanism()[0]

    def _checked_mechanism(self) -> tuple[Mechanism, MechanismChoice | None]:
        """The mechanism the parameters ask for and the certificate's line on why
        ``mechanism="auto"`` chose it (None: named), ``delta`` checked against it: None or 0
        when pure, else None or in (0, 1)."""
        owner, auto = type(self).__name__, self._resolved()
        mech = build_mechanism(auto.name, owner, self.mechanism_menu)
        if self.delta is not None:
            if mech.pure and self.delta != 0:
                raise ParameterError(
                    f"The 'delta' parameter of {owner} must be None or 0 with the pure "
                    f"epsilon-DP mechanism {mech.name!r}. "
                    f"Got {describe_value(self.delta)} instead.")
            if not mech.pure and not self.delta > 0:
                raise ParameterError(
                    f"The 'delta' parameter of {owner} must be in (0, 1) with mechanism "
                    f"{mech.name!r} (or None for the public rule). "
                    f"Got {describe_value(self.delta)}; use "
                    "mechanism='auto' with delta=None for pure epsilon-DP.")
        return mech, auto.reason

    def _validate_params(self, *, planned: bool = False) -> None:  # type: ignore[override]
        """The table, then ``delta`` against the mechanism (``planned``: by the plan, which
        resolves the mechanism once, :meth:`_class_sum_plan`)."""
        super()._validate_params(planned=planned)
        if not planned:
            self._checked_mechanism()

    def _class_sum_plan(self, n: int, n_classes: int, n_features: int, *, template: str,
                        learner: str, notes: tuple[str, str], row_notes: tuple[Any, ...],
                        options: dict[str, Any]) -> FitPlan:
        """The plan of one release of class sums: the mechanism ("auto": by δ), (ε, δ) with
        δ = min(1e-5, 1/n²) when a Gaussian mechanism is named with ``delta=None`` (a line
        of the certificate), and the learner's own ``notes`` and ``row_notes``; ``delta``
        checked against the mechanism (:meth:`_checked_mechanism`)."""
        mechanism, reason = self._checked_mechanism()
        epsilon, rule = float(self.epsilon), not mechanism.pure and self.delta is None
        delta = 0.0 if mechanism.pure else default_delta(n) if rule else float(self.delta)
        if not isinstance(self.priors, str):  # public priors: checked against the public label set
            class_priors(self.priors, np.zeros(n_classes), 1.0, type(self).__name__)
        return FitPlan(
            estimator=type(self).__name__,
            n=n,
            n_classes=n_classes,
            n_features=n_features,
            template=template,
            learner=learner,
            mechanism=mechanism,
            budget=Budget(epsilon, delta),
            backend="closed form (no solver)",
            lam_rule="no regularizer",
            notes=(*notes, *([DELTA_RULE] if rule else []), *row_notes,
                   *([reason] if reason is not None else [])),
            options={
                **options,
                "priors": self.priors if isinstance(self.priors, str) else "given",
            },
        )

    def _template_notes(self, plan: FitPlan, labels: LabelSet, *extra: Any) -> list[Any]:
        """The certificate lines of a fit: the plan's first two (the record map and the
        post-processing), the line of δ's rule, the label source, ``extra`` and why
        ``mechanism="auto"`` chose the mechanism (the plan's)."""
        reasons = [note for note in plan.notes if isinstance(note, MechanismChoice)]
        return [*plan.notes[:2], *([DELTA_RULE] if DELTA_RULE in plan.notes else []),
                labels.assumption, *extra, *reasons]

    def _certify(self, prep: Prepared, plan: FitPlan) -> Certificate:
        return release(prep.template, plan.mechanism, plan.budget, dry_run=True).certificate

    def _release_class_sums(self, prep: Prepared, plan: FitPlan, hold: CertificateHold,
                            context: FitContext) -> tuple[Release, Any, float, float]:
        """Warn where the noise dominates (the public check of ``_noise_family``, before any noise is
        drawn), draw the noise, release the template's class sums, commit the certificate to ``hold``
        and store it, the classes and the number of features.

        The noise comes from ``random_state`` or what a meta-estimator handed this fit
        (``context.noise``). Returns the release (vector and calibration: nothing else of
        the fit is kept), its noise law (public: from the calibration), the count weight w and
        the public count floor f = max(1, s/w), s the per-coordinate noise scale.
        """
        warn_if_noise_dominates(self._noise_family, prep.template, plan.mechanism, plan.budget,
                                type(self).__name__, n=plan.n)  # (n, C, d, epsilon, delta) only
        noise = context.noise  # this fit's generator
        released = _release_checked(
            prep.template, plan.mechanism, plan.budget, None, noise.rng, seeded=noise.seeded
        )
        assert released.theta is not None and released.calibration is not None
        hold.commit_certificate(released.certificate)
        self.certificate_ = released.certificate
        self.classes_ = prep.labels.classes
        self.n_features_in_ = plan.n_features
        w = float(getattr(plan.mechanism, "count_weight", 1.0))
        law = plan.mechanism.noise_law(released.calibration)  # type: ignore[attr-defined]
        return released, law, w, max(1.0, float(law.coordinate_scale(released.theta.shape)) / w)

    @checks_feature_names
    def decision_function(self, X: Any) -> np.ndarray:
        """The class scores (``_scores``, higher wins); for two classes the score of
        ``classes_[1]`` minus that of ``classes_[0]``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows to score.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            For two classes one score per row (positive: ``classes_[1]``), else the class
            scores.

        Examples
        --------
        >>> from dpconvex.estimators.centroids import PrivateGaussianCentroid
        >>> est = PrivateGaussianCentroid(classes=[-1, 1], random_state=0).fit(X, y)
        >>> est.decision_function(X[:4]).shape
        (4,)
        """
        scores = self._scores(X, "decision_function")
        return scores[:, 1] - scores[:, 0] if scores.shape[1] == 2 else scores


class PrivateGaussianCentroid(ClassSumEstimator):
    """DP Gaussian class-mean classifier from noisy class sums and counts.

    Fit releases the class sums of u = clip(x, q)/q and the class counts with noise for the replace-one L2
    sensitivity 2 (pure ε-DP by default; the analytic Gaussian mechanism of [BW18]_ when δ > 0), and stores
    the post-processed class means μ_c = s̃_c / max(ñ_c, f) projected onto the unit ball
    (docs/privacy/large_margin.md#privacy-class-centroids). A point is classified by
    argmin_c ‖u − μ_c‖² − 2σ̂² log π_c, σ̂² the within-class variance estimated from the
    release (:func:`within_class_variance`).

    Parameters
    ----------
    epsilon : float, default=1.0
        ε > 0.
    {class_sum_delta}
    mechanism : {"auto", "gaussian", "knorm_sum", "norm_gamma_sum"}, default="auto"
        "auto": "knorm_sum" (pure ε-DP) when ``delta`` is None or 0, "gaussian" when δ > 0
        (:func:`~dpconvex.privacy.mechanisms.base.resolve_mechanism`). "knorm_sum": K-norm noise on the class
        sums and counts; "norm_gamma_sum": density ∝ exp(−(ε/2)‖b‖), much more noise when C·d is large.
    {priors}
    {data_norm}
        Give a tight bound: a loose q wastes signal.
    row_norm : {"unit", "none"}, default="unit"
        "unit" scales every row to the norm bound (u/‖u‖;
        docs/privacy/row_scaling.md#privacy-row-norm-unit); "none" keeps u = clip(x, q)/q.
    temperature : float or None, default=None
        τ > 0 of :meth:`predict_proba`, P(c | x) ∝ exp(−(‖u − μ_c‖² − 2σ̂² log π_c)/(2τ)).
        None: τ = σ̂², the posterior of the Gaussian model. Predictions do not depend on τ.
    classes : sequence of labels or None, default=None
        The public label set (C = len(classes) fixes the released shape).
        {classes_none}
    {unknown_labels}
    {random_state}
    {accountant}

    Warns
    -----
    PrivacyWarning
        In ``fit``, before the release, when the noise on a class mean at the expected class
        count dominates (docs/privacy/tuning_gd_ledger.md#privacy-noise-warning-gd-centroids).
        {public_check}

    Attributes
    ----------
    classes_ : ndarray of shape (C,)
    means_ : ndarray of shape (C, n_features)
        Class means in the input space (q·μ_c; every row has norm <= q).
    counts_ : ndarray of shape (C,)
        The noisy class counts ñ_c as released (may be negative or fractional).
    class_prior_ : ndarray of shape (C,)
        The priors π of the decision rule.
    within_class_var_ : float
        σ̂², the within-class variance per coordinate of u = x/q
        (docs/privacy/large_margin.md#privacy-centroid-priors).
    certificate_ : Certificate
    n_features_in_ : int

    References
    ----------
    .. [BW18] B. Balle, Y.-X. Wang. Improving the Gaussian Mechanism for
       Differential Privacy: Analytical Calibration and Optimal Denoising. ICML 2018, Theorem 8.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_breast_cancer
    >>> from dpconvex import PrivateGaussianCentroid
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = PrivateGaussianCentroid(epsilon=1.0, delta=1e-6, classes=[0, 1],
    ...                               random_state=0).fit(np.log1p(X), y)
    >>> clf.certificate_.delta
    1e-06
    >>> clf.class_prior_.shape, bool(clf.within_class_var_ > 0)
    ((2,), True)
    >>> clf.predict_proba(np.log1p(X[:2])).sum(axis=1).round(6).tolist()
    [1.0, 1.0]
    """

    def __init__(self, *, epsilon: float = 1.0, delta: float | None = None,
                 mechanism: str = "auto", data_norm: float = 1.0,
                 temperature: float | None = None, classes: Any = None,
                 random_state: int | None = None, accountant: Any = None, row_norm: str = "unit",
                 priors: Any = "empirical", unknown_labels: str = "raise"):
        self._store_params(locals())

    _parameter_constraints: ClassVar[dict[str, Constraint]] = {
        **ClassSumEstimator._parameter_constraints,
        "data_norm": DATA_NORM, "row_norm": ROW_NORM,
        "temperature": Optional(Float()),
    }

    def _plan(self, n: int, n_classes: int, n_features: int) -> FitPlan:
        return self._class_sum_plan(
            n, n_classes, n_features, template="class sums", learner="centroid",
            notes=(FEATURE_MAP, POSTPROCESSING),
            row_notes=(UNIT_ROWS,) if self.row_norm == "unit" else (),
            options={"data_norm q": float(self.data_norm), "row_norm": self.row_norm})

    def prepare(
        self, X: Any, y: Any, plan: FitPlan, *, context: FitContext = NO_CONTEXT
    ) -> Prepared:
        """Validate, encode labels, map rows to u, build the class-sum template of ``plan``.

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
            The :class:`ClassSumTemplate` on the rows and the label set.

        Examples
        --------
        >>> from dpconvex.estimators.centroids import PrivateGaussianCentroid
        >>> est = PrivateGaussianCentroid(classes=[-1, 1])
        >>> prep = est.prepare(X, y, est.plan_for(X, y))
        >>> type(prep.template).__name__, prep.template.n, prep.template.noise_shape
        ('ClassSumTemplate', 40, (2, 4))
        """
        owner = type(self).__name__
        X_checked, labels = self._checked_data(X, y, plan, context)
        q, unit = float(self.data_norm), self.row_norm == "unit"
        keep = ~labels.dropped  # dropped records (outside the set, left out) add nothing
        dask = is_dask_collection(X_checked)
        U, rows = None, None
        if dask or isinstance(X_checked, np.ndarray):
            # u built and summed per chunk on the workers (one pass), or block by block: no copy
            rows = label_rows(X_checked, labels)
        # sparse rows: the kept rows only are clipped (whether clipping copies reads no other)
        else:
            clipped, n_clipped = clip_rows(X_checked if keep.all() else X_checked[keep], q)
            note_clipped(n_clipped, X_checked.shape[0], q, owner)
            U = self._u(clipped / q)
        notes = self._template_notes(plan, labels, *([UNIT_ROWS] if unit else []),
                                     *([rows.certificate_note] if dask else []))
        template = ClassSumTemplate(U, labels.index[keep], int(labels.classes.size), notes=notes,
                                    rows=rows, row_bound=q, unit=unit)
        if rows is not None:  # NOT PRIVATE: the rows scaled down, counted in the summing pass
            template.count_altered(owner, n=X_checked.shape[0])
        # the template states the labels
        return _bind_plan(Prepared(template=template, labels=labels), plan)

    def public_template(self, plan: FitPlan) -> ClassSumTemplate:
        """The class sums' template of ``plan``'s public problem, no rows or labels read (the
        base's :meth:`~dpconvex.estimators.base.PrivateEstimator.public_template`, stated for
        this learner).

        Parameters
        ----------
        plan : FitPlan
            The plan of this estimator.

        Returns
        -------
        ClassSumTemplate
            The template of n rows, d features and the plan's classes, with the plan's notes.

        Examples
        --------
        >>> from dpconvex import PrivateGaussianCentroid
        >>> est = PrivateGaussianCentroid(epsilon=1.0, classes=[0, 1])
        >>> template = est.public_template(est.plan(1000, 2, 3))
        >>> template.n, template.d, template.C, template.X is None
        (1000, 3, 2, True)
        """
        return ClassSumTemplate.of_problem(plan.n, plan.n_features, plan.n_classes,
                                           notes=plan.notes)

    # --------------------------------------------------------------------- fit
    def _release(self, prep: Prepared, plan: FitPlan, hold: CertificateHold,
                 context: FitContext, warm_start: np.ndarray | None) -> PrivateGaussianCentroid:
        """Release the noisy class sums and counts and store the class means."""
        owner, d = type(self).__name__, plan.n_features
        released, law, w, floor = self._release_class_sums(prep, plan, hold, context)
        V = released.theta
        counts = V[:, d] / w
        mu = V[:, :d] / np.maximum(counts, floor)[:, None]
        mu *= np.minimum(1.0, 1.0 / np.maximum(np.linalg.norm(mu, axis=1), 1e-300))[:, None]
        # post-processing of V (privacy-centroid-priors): the within-class variance and the priors
        energy = _sum_noise_energy(plan.mechanism, released.calibration, law, V.shape)
        self.means_ = mu * float(self.data_norm)
        self.counts_ = counts
        self.within_class_var_ = within_class_variance(V, w, floor, energy)
        self.class_prior_ = class_priors(self.priors, counts, floor, owner)
        return self

    def _u(self, U: np.ndarray) -> np.ndarray:
        """``row_norm="unit"``: u / ||u|| per record (zero rows stay zero); else u."""
        return _unit(U) if self.row_norm == "unit" else U

    # ----------------------------------------------------------------- predict
    def _penalized(self, X: Any, method: str) -> np.ndarray:
        """‖u − μ_c‖² + 2σ̂²(log π_max − log π_c) for u = clip(x, q)/q, shape (n_samples, C); lower wins."""
        check_fitted(self, "means_")
        rows = check_array(X, f"{type(self).__name__}.{method}", n_features=self.n_features_in_,
                           accept_sparse=True)
        return self._penalized_rows(rows)

    def _penalized_rows(self, rows: Any) -> np.ndarray:
        """:meth:`_penalized` of rows already checked."""
        q = float(self.data_norm)
        U = self._u(clip_rows(rows, q)[0] / q)
        M = self.means_ / q
        sq_norms = np.asarray(U.multiply(U).sum(axis=1), dtype=float).ravel() if sp.issparse(U) \
            else np.einsum("ij,ij->i", U, U)  # sparse rows: on the stored entries
        distances = np.maximum(sq_norms[:, None] - 2.0 * np.asarray(U @ M.T)
                               + np.einsum("ij,ij->i", M, M)[None, :], 0.0)
        return distances + prior_penalty(self.class_prior_, self.within_class_var_)[None, :]

    @checks_feature_names
    def class_scores(self, X: Any) -> np.ndarray:
        """−(‖u − μ_c‖² − 2σ̂² log π_c)/(2τ) up to a constant, shape (n_samples, C); higher wins.

        τ: ``temperature`` (None: σ̂², so the scores are the Gaussian model's log
        posterior up to a per-row constant).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows to score.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Column j scores ``classes_[j]``.

        Examples
        --------
        >>> from dpconvex.estimators.centroids import PrivateGaussianCentroid
        >>> est = PrivateGaussianCentroid(classes=[-1, 1], random_state=0).fit(X, y)
        >>> scores = est.class_scores(X[:3])
        >>> scores.shape, bool((est.classes_[scores.argmax(axis=1)] == est.predict(X[:3])).all())
        ((3, 2), True)
        """
        return self._scores(X, "class_scores")

    def _scores(self, X: Any, method: str) -> np.ndarray:
        """:meth:`class_scores`, its errors naming the public ``method`` called."""
        penalized = self._penalized(X, method)
        tau = self.within_class_var_ if self.temperature is None else float(self.temperature)
        # a tie of the division: predict's class
        return keep_argmax(-penalized / (2.0 * tau), -penalized)

    @checks_feature_names
    def predict(self, X: Any) -> np.ndarray:
        """argmin_c ‖u − μ_c‖² − 2σ̂² log π_c (ties: the first class in ``classes_``), the argmax of
        :meth:`class_scores` whatever τ; with equal priors the label of the nearest class mean.

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
        >>> from dpconvex.estimators.centroids import PrivateGaussianCentroid
        >>> est = PrivateGaussianCentroid(classes=[-1, 1], random_state=0).fit(X, y)
        >>> set(est.predict(X).tolist()) <= {-1, 1}
        True
        """
        penalized = self._penalized(X, "predict")  # (checks the fit first)
        return self.classes_[np.argmin(penalized, axis=1)]

    def _predict_rows(self, X_checked: Any) -> np.ndarray:
        """:meth:`predict` of rows already checked (a front door's selection)."""
        return self.classes_[np.argmin(self._penalized_rows(X_checked), axis=1)]

    @checks_feature_names
    def predict_proba(self, X: Any) -> np.ndarray:
        """Softmax of :meth:`class_scores`: the posterior of u | c ~ N(μ_c, σ̂²I) with priors π.

        Post-processing of the release (no privacy cost). With ``temperature``
        τ given, the posterior tempered by σ̂²/τ.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows to classify.

        Returns
        -------
        ndarray of shape (n_samples, C)
            Column j is the probability of ``classes_[j]``; rows sum to 1.

        Examples
        --------
        >>> from dpconvex.estimators.centroids import PrivateGaussianCentroid
        >>> est = PrivateGaussianCentroid(classes=[-1, 1], random_state=0).fit(X, y)
        >>> np.allclose(est.predict_proba(X[:5]).sum(axis=1), 1.0)
        True
        """
        # the argmax kept where exp rounds a gap away
        log_proba = self._log_proba(X, "predict_proba")
        return keep_argmax(np.exp(log_proba), log_proba)
