"""``mechanism="centroid"`` and ``row_norm`` of :class:`~dpconvex.PrivateLargeMarginGaussian`.

DP class centroids (:class:`~dpconvex.estimators.centroids.PrivateGaussianCentroid`,
docs/privacy/large_margin.md#privacy-class-centroids) released in the large-margin form: with
z = [x; 1]/√(q² + 1) and μ_c the released class mean in u = x/q units,

    Φ_c = (q² + 1)·(N_cᵀ N_c + a_c e_{d+1} e_{d+1}ᵀ),   N_c = [I/q, −μ_c]   (d × (d + 1)),

a_c >= 0 the prior term of the class (:func:`~dpconvex.estimators.centroids.prior_penalty`),
so zᵀΦ_c z = ‖x/q − μ_c‖² + a_c exactly: post-processing of the release
(docs/privacy/large_margin_softmax.md#privacy-centroid-switch). The per-record map of
``row_norm="unit"`` (docs/privacy/row_scaling.md#privacy-row-norm-unit) is applied here for
both paths, in fit, certify and predict.

References
----------
.. [PR10] M. A. Pathak, B. Raj. Large Margin Multiclass Gaussian Classification
   with Differential Privacy. PSDM 2010.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from ..._validation import describe_value, is_dask_collection
from ...data.operators import DenseRows, canonical_csr, row_norms
from ...data.preprocess import _clip_checked, _clip_dense
from ...data.row_scaling import _unit_dense, normalize_rows
from ...errors import ParameterError
from ...privacy.certificate import Certificate, Line, RowMap
from ...privacy.rules.large_margin import (
    CENTROID,
    centroid_reason,
    components_reason,
    resolved_row_norm,
    single_component,
)
from ...templates.large_margin_rows import AugmentedRows
from ..base import CertificateHold, FitContext, certify_part, fit_part
from ..centroids import CENTROID_MENU, PrivateGaussianCentroid, prior_penalty

if TYPE_CHECKING:
    from ...privacy.rules.large_margin import LargeMarginSettings

__all__ = ["PHI_NOTE", "ROW_MAP_NOTE", "augmented_rows", "centroid_mechanism", "centroid_notes",
           "certify_centroid", "check_centroid_params", "clip_and_map", "fit_centroid", "map_rows",
           "phi_from_means", "prepared_rows", "row_notes"]

#: Certificate line of ``row_norm="unit"`` (the public per-record map).
ROW_MAP_NOTE = (
    "row_norm='unit': every row clipped to data_norm q, then scaled to the bound, "
    "x -> q x / ||x|| (zero rows stay zero), in training and prediction: a public "
    "map reading only the record itself (docs/privacy/row_scaling.md#privacy-row-norm-unit, "
    "privacy-centroid-switch)"
)

#: Certificate line of ``mechanism="centroid"``: Φ from the released class means.
PHI_NOTE = ("Phi_c = (q^2 + 1) (N_c^T N_c + a_c e e^T) with N_c = [I/q, -mu_c], mu_c the "
            "released class mean in x/q units and a_c = 2 sigma^2 (log pi_max - log pi_c) >= 0 "
            "(priors pi from the released counts, sigma^2 the within-class variance from the "
            "released sums and counts), so z^T Phi_c z = ||x/q - mu_c||^2 + a_c: a "
            "post-processing of the release (Pathak & Raj's Gaussian classifier with a shared "
            "isotropic covariance, the lam -> infinity limit of the large-margin objective; "
            "docs/privacy/large_margin.md#privacy-centroid-priors, privacy-centroid-switch)")


def map_rows(est: LargeMarginSettings, Xc: Any) -> Any:
    """The public per-record map of ``row_norm`` on rows already clipped to q.

    Parameters
    ----------
    est : PrivateLargeMarginGaussian
        The estimator (its ``data_norm`` q and ``row_norm``).
    Xc : ndarray or scipy.sparse matrix of shape (n, d)
        Rows clipped to q.

    Returns
    -------
    ndarray or scipy.sparse matrix of shape (n, d)
        ``row_norm="unit"``: every nonzero row scaled to norm q; else ``Xc`` itself.

    Examples
    --------
    >>> from dpconvex import PrivateLargeMarginGaussian
    >>> from dpconvex.estimators.large_margin.centroid import map_rows
    >>> est = PrivateLargeMarginGaussian(data_norm=1.0, row_norm="unit")
    >>> map_rows(est, np.array([[0.3, 0.4]])).tolist()
    [[0.6, 0.8]]
    """
    if resolved_row_norm(est) != "unit":
        return Xc
    return normalize_rows(Xc, float(est.data_norm))


def clip_and_map(est: LargeMarginSettings, X: Any) -> tuple[Any, int]:
    """Rows clipped to q and mapped by ``row_norm``; and how many rows the clip scales down.

    With ``row_norm="unit"`` on dense rows the clip is part of the scaling (a row scaled down to q and then to
    norm q is q·x/‖x‖, as the row scaled at once): the rows are scaled in one copy, and the count (for
    :func:`~dpconvex.errors.note_clipped`) is read off the row norms.

    Parameters
    ----------
    est : PrivateLargeMarginGaussian
        The estimator (its ``data_norm`` q and ``row_norm``).
    X : ndarray or scipy.sparse matrix of shape (n, d)
        The validated rows.

    Returns
    -------
    rows : ndarray or scipy.sparse matrix of shape (n, d)
        The clipped, mapped rows (a copy).
    n_clipped : int
        How many rows the clip scales down.

    Examples
    --------
    >>> from dpconvex import PrivateLargeMarginGaussian
    >>> from dpconvex.estimators.large_margin.centroid import clip_and_map
    >>> X = np.array([[3.0, 4.0], [0.3, 0.4]])
    >>> rows, n_clipped = clip_and_map(PrivateLargeMarginGaussian(row_norm="none"), X)
    >>> rows.tolist(), n_clipped
    ([[0.6, 0.8], [0.3, 0.4]], 1)
    """
    q = float(est.data_norm)
    # the rows read once, into a copy that the clip's norms and products then read: a row the
    # caller changes in place meanwhile is not read again (docs/privacy/row_scaling.md)
    if isinstance(X, np.ndarray):
        X = np.array(X, dtype=float, copy=True)
    elif sp.issparse(X):
        X = canonical_csr(X).copy()
    # the rows checked by the estimator (check_array): the maps' cores, which check nothing
    if resolved_row_norm(est) == "unit" and isinstance(X, np.ndarray):
        return _unit_dense(X, q), int(np.count_nonzero(row_norms(X) > q))
    clipped, n_clipped = _clip_checked(X, q)
    return map_rows(est, clipped), n_clipped


#: Row norms (nonzero) for which :func:`augmented_rows` applies the factors inside the products.
_LEAN_NORMS = (1e-100, 1e100)


def augmented_rows(
    est: LargeMarginSettings, X: Any, dropped: np.ndarray
) -> tuple[AugmentedRows, int] | None:
    """The training records z_i = [s_i x_i, c_i] over the validated rows, without a copy of them.

    The clip (or ``row_norm="unit"``) and the appended constant are per-row factors of the
    record alone: s_i = q/‖x_i‖ ("unit", 1 for a zero row) or min(1, q/‖x_i‖), over
    r = sqrt(q² + 1), and c_i = 1/r; s_i = c_i = 0 for a record that contributes no loss
    (``dropped``). The clip factor is not stored: the records compute it from each row as
    each product reads it (``AugmentedRows(..., clip=q)``), so rows changed in place after
    this call are clipped where they are read. Returns the records and how many kept rows the
    clip scales down, or None (then :func:`clip_and_map` works on a copy) when X is not a
    dense float64 array or a nonzero norm of a kept row lies outside [1e-100, 1e100] (the
    products x·w, taken before the factor s_i, could overflow or underflow).

    Parameters
    ----------
    est : PrivateLargeMarginGaussian
        The estimator (its ``data_norm`` q and ``row_norm``).
    X : ndarray of shape (n, d)
        The validated rows.
    dropped : ndarray of bool of shape (n,)
        The records that contribute no loss.

    Returns
    -------
    tuple of (AugmentedRows, int) or None
        The records z_i of shape (n, d + 1) and how many kept rows the clip scales down; None
        as above.

    Examples
    --------
    >>> from dpconvex import PrivateLargeMarginGaussian
    >>> from dpconvex.estimators.large_margin.centroid import augmented_rows
    >>> est = PrivateLargeMarginGaussian(data_norm=1.0, row_norm="none")
    >>> X = np.array([[3.0, 4.0], [0.3, 0.4]])
    >>> rows, n_clipped = augmented_rows(est, X, np.zeros(2, dtype=bool))
    >>> rows.shape, n_clipped, rows.row_norms().round(6).tolist()  # ||[x, 1]|| / sqrt(2)
    ((2, 3), 1, [1.0, 0.790569])
    >>> augmented_rows(est, X.astype(np.float32), np.zeros(2, dtype=bool)) is None
    True
    """
    if not isinstance(X, np.ndarray) or X.ndim != 2 or X.dtype != np.float64:
        return None
    q = float(est.data_norm)
    stored = DenseRows(X)
    norms = stored.row_norms()  # the records' own norms, read again by their norm condition
    kept = ~dropped
    kept_norms = norms[kept] if dropped.any() else norms
    if not np.all(
        (kept_norms == 0.0) | ((kept_norms >= _LEAN_NORMS[0]) & (kept_norms <= _LEAN_NORMS[1]))
    ):
        return None
    over = (norms > q) & kept
    nonzero = kept_norms[kept_norms > 0.0]
    with np.errstate(over="ignore"):
        if nonzero.size and not math.isfinite(q / float(nonzero.min())):
            return None  # a factor q/‖x‖ would overflow
    inv_r = 1.0 / math.sqrt(q * q + 1.0)
    c = np.where(kept, inv_r, 0.0)
    # the clip (unit) factor of each row is computed from the row as each product reads it
    rows = AugmentedRows(stored, c, c, clip=q, unit=resolved_row_norm(est) == "unit")
    return rows, int(np.count_nonzero(over))


def row_notes(est: LargeMarginSettings) -> list[RowMap]:
    """The certificate's row map (empty for ``"none"``).

    Parameters
    ----------
    est : PrivateLargeMarginGaussian
        The estimator (its ``data_norm`` q and ``row_norm``).

    Returns
    -------
    list of RowMap

    Examples
    --------
    >>> from dpconvex import PrivateLargeMarginGaussian
    >>> from dpconvex.estimators.large_margin.centroid import row_notes
    >>> row_notes(PrivateLargeMarginGaussian(row_norm="none"))
    []
    >>> [note.row_norm for note in row_notes(PrivateLargeMarginGaussian(row_norm="unit"))]
    ['unit']
    """
    return [RowMap("unit", ROW_MAP_NOTE)] if resolved_row_norm(est) == "unit" else []


def _lazy_block(block: np.ndarray, q: float, unit: bool) -> np.ndarray:
    """A chunk of the checked Dask rows (each chunk checked as it is read, ``check_dask``)
    scaled to q (``unit``) or clipped to it."""
    block = np.asarray(block, dtype=float)
    return _unit_dense(block, q) if unit else _clip_dense(block, q)[0]


def prepared_rows(est: LargeMarginSettings, Xv: Any) -> Any:
    """Rows clipped to q and mapped by ``row_norm``: an ndarray, or lazily per Dask chunk.

    Parameters
    ----------
    est : PrivateLargeMarginGaussian
        The estimator (its ``data_norm`` q and ``row_norm``).
    Xv : ndarray, scipy.sparse matrix or dask.array.Array of shape (n, d)
        The validated rows.

    Returns
    -------
    ndarray, scipy.sparse matrix or dask.array.Array of shape (n, d)

    Examples
    --------
    >>> from dpconvex import PrivateLargeMarginGaussian
    >>> from dpconvex.estimators.large_margin.centroid import prepared_rows
    >>> est = PrivateLargeMarginGaussian(data_norm=1.0, row_norm="unit")
    >>> prepared_rows(est, np.array([[3.0, 4.0], [0.3, 0.4]])).tolist()
    [[0.6, 0.8], [0.6, 0.8]]
    """
    q = float(est.data_norm)
    if is_dask_collection(Xv):
        return Xv.map_blocks(_lazy_block, q=q, unit=resolved_row_norm(est) == "unit", dtype=float)
    return clip_and_map(est, Xv)[0]


def centroid_mechanism(est: LargeMarginSettings) -> str:
    """The inner mechanism: "gaussian" with ``delta > 0``, else "knorm_sum" (pure ε).

    The rule of ``mechanism="auto"`` for the class sums
    (:func:`dpconvex.privacy.mechanisms.base.resolve_mechanism`).

    Parameters
    ----------
    est : PrivateLargeMarginGaussian
        The estimator (its ``delta``).

    Returns
    -------
    str
        The class-sum mechanism's registry name.

    Examples
    --------
    >>> from dpconvex import PrivateLargeMarginGaussian
    >>> from dpconvex.estimators.large_margin.centroid import centroid_mechanism
    >>> centroid_mechanism(PrivateLargeMarginGaussian(mechanism="centroid"))
    'knorm_sum'
    >>> centroid_mechanism(PrivateLargeMarginGaussian(mechanism="centroid", delta=1e-6))
    'gaussian'
    """
    pure, approximate = CENTROID_MENU.auto
    return approximate if (est.delta or 0.0) > 0 else pure


def centroid_estimator(
    est: LargeMarginSettings, random_state: int | None = None
) -> PrivateGaussianCentroid:
    """The privacy-class-centroids estimator on the prepared rows (already mapped: row_norm "none" there).

    ``accountant=None``: the large-margin fit holds the (ε, δ) reservation and commits
    the certificate through it, so the ledger is charged once.
    """
    mechanism_name = centroid_mechanism(est)
    delta = est.delta if (est.delta or 0.0) > 0 else None  # the Gaussian mechanism's δ
    return PrivateGaussianCentroid(epsilon=est.epsilon, delta=delta, mechanism=mechanism_name,
                                   data_norm=est.data_norm, classes=est.classes,
                                   unknown_labels=est.unknown_labels,
                                   random_state=random_state, accountant=None,
                                   row_norm="none")


def check_centroid_params(est: LargeMarginSettings) -> None:
    """``mechanism="centroid"``: one component, no extra terms, no AMP; (ε, δ) as
    privacy-class-centroids.

    Parameters
    ----------
    est : PrivateLargeMarginGaussian
        The estimator, with ``mechanism="centroid"``.

    Raises
    ------
    ParameterError
        More than one component, extra terms, an ``optimality_tol``, or (ε, δ) the
        class-centroid estimator refuses.

    Examples
    --------
    >>> from dpconvex import PrivateLargeMarginGaussian
    >>> from dpconvex.estimators.large_margin.centroid import check_centroid_params
    >>> check_centroid_params(PrivateLargeMarginGaussian(mechanism="centroid"))
    >>> check_centroid_params(PrivateLargeMarginGaussian(mechanism="centroid", n_components=2))
    Traceback (most recent call last):
    ...
    dpconvex.errors.ParameterError: The 'n_components' parameter of PrivateLargeMarginGaussian ...
    """
    owner = type(est).__name__
    if not single_component(est):
        k = est.n_components
        raise ParameterError(f"The 'n_components' parameter of {owner} must be 1 or 'auto' with "
                             f"mechanism={CENTROID!r} (it releases one class mean per class). "
                             f"Got {k!r} instead.")
    if est.extra_terms:
        raise ParameterError(f"The 'extra_terms' parameter of {owner} must be empty with "
                             f"mechanism={CENTROID!r}, which has no objective: drop them or use "
                             "mechanism='objective' with loss='pairwise'.")
    if est.optimality_tol is not None:
        raise ParameterError(f"The 'optimality_tol' parameter of {owner} must be None with "
                             f"mechanism={CENTROID!r}, which solves nothing. Got "
                             f"{describe_value(est.optimality_tol)} instead.")
    centroid_estimator(est)._validate_params()  # delta: the table's rule (privacy-class-centroids)


def phi_from_means(mu: np.ndarray, q: float, penalty: np.ndarray | None = None) -> np.ndarray:
    """Φ of shape (C, 1, d + 1, d + 1) with zᵀΦ_c z = ‖x/q − μ_c‖² + a_c for z = [x; 1]/√(q² + 1).

    ``penalty`` holds a_c >= 0 per class (None: 0), the prior term of
    :func:`~dpconvex.estimators.centroids.prior_penalty`; it enters Φ_c[d, d] as
    (q² + 1)·a_c, so Φ_c stays PSD.

    Parameters
    ----------
    mu : ndarray of shape (C, d)
        The released class means, in x/q units.
    q : float
        The row norm bound ``data_norm``.
    penalty : ndarray of shape (C,) or None, default=None
        a_c (None: 0).

    Returns
    -------
    ndarray of shape (C, 1, d + 1, d + 1)

    Examples
    --------
    >>> from dpconvex.estimators.large_margin.centroid import phi_from_means
    >>> Phi = phi_from_means(np.array([[0.5, 0.0], [0.0, 0.5]]), 2.0)
    >>> x = np.array([1.0, 1.0]); z = np.append(x, 1.0) / np.sqrt(5.0)
    >>> Phi.shape, round(float(z @ Phi[0, 0] @ z), 12)  # ||x/2 − (0.5, 0)||² = 0.25
    ((2, 1, 3, 3), 0.25)
    """
    mu = np.asarray(mu, dtype=float)
    C, d = mu.shape
    s = q * q + 1.0
    Phi = np.zeros((C, 1, d + 1, d + 1))
    Phi[:, 0, :d, :d] = np.eye(d) * (s / (q * q))
    Phi[:, 0, :d, d] = -mu * (s / q)
    Phi[:, 0, d, :d] = -mu * (s / q)
    Phi[:, 0, d, d] = s * np.einsum("ij,ij->i", mu, mu)
    if penalty is not None:
        Phi[:, 0, d, d] += s * np.asarray(penalty, dtype=float)
    return Phi


def centroid_notes(est: LargeMarginSettings, shape: tuple[int, int, int]
                   ) -> list[RowMap | Line | str]:
    """The certificate lines of a centroid fit on (n, C, d): the row map, Φ and the reasons
    of "auto" (the centroid switch, one component).

    Parameters
    ----------
    est : PrivateLargeMarginGaussian
        The estimator.
    shape : tuple of int
        (n, C, d), public.

    Returns
    -------
    list of RowMap, ComponentsRule or str

    Examples
    --------
    >>> from dpconvex import PrivateLargeMarginGaussian
    >>> from dpconvex.estimators.large_margin.centroid import PHI_NOTE, centroid_notes
    >>> notes = centroid_notes(PrivateLargeMarginGaussian(mechanism="centroid"), (40, 2, 3))
    >>> PHI_NOTE in notes
    True
    """
    return [*row_notes(est), PHI_NOTE,
            *filter(None, [centroid_reason(est, *shape), components_reason(est, *shape)])]


def certify_centroid(
    est: LargeMarginSettings, rows: Any, y: Any, context: FitContext
) -> Certificate:
    """The certificate of a centroid fit on the prepared rows, without drawing noise: the
    class-centroid part's public ``certify`` (:func:`certify_part`), as :func:`fit_centroid`
    fits it.

    Parameters
    ----------
    est : PrivateLargeMarginGaussian
        The estimator, with the centroid learner.
    rows : array-like of shape (n, d)
        The prepared rows (:func:`prepared_rows`).
    y : array-like of shape (n,)
        The labels as given.
    context : FitContext
        The outer fit's context.

    Returns
    -------
    Certificate
        The class-centroid certificate, stating :func:`centroid_notes`.

    Examples
    --------
    >>> from dpconvex import PrivateLargeMarginGaussian
    >>> from dpconvex.estimators.base import NO_CONTEXT
    >>> from dpconvex.estimators.large_margin.centroid import certify_centroid, prepared_rows
    >>> est = PrivateLargeMarginGaussian(classes=[-1, 1], mechanism="centroid")
    >>> certify_centroid(est, prepared_rows(est, X), y, NO_CONTEXT).epsilon
    1.0
    """
    inner = centroid_estimator(est)
    # the outer fit has read the label set (and warned); the part validates its own rows
    part = context.one_label_warning(issued=True).inner(context.noise)
    certificate = certify_part(inner, rows, y, part)
    certificate.state(*centroid_notes(est, inner.public_shape(rows, y, context)))
    return certificate


def fit_centroid(est: LargeMarginSettings, rows: Any, y: Any, hold: CertificateHold,
                 context: FitContext) -> LargeMarginSettings:
    """Release the class means on the prepared rows and store them, with the priors, as ``Phi_``.

    ``hold`` is the large-margin fit's reservation (committed here with the centroid certificate); ``context``
    the fit's (its generator, ``context.noise``, is the inner fit's, which runs inside the hold). Only
    ``Phi_``, ``classes_``, ``n_features_in_``, ``certificate_``, ``centers_`` (None) and
    ``component_assignment_`` are stored: no counts, no inner estimator.

    Parameters
    ----------
    est : PrivateLargeMarginGaussian
        The estimator being fitted, with the centroid learner.
    rows : array-like of shape (n, d)
        The prepared rows (:func:`prepared_rows`).
    y : array-like of shape (n,)
        The labels as given.
    hold : CertificateHold
        The large-margin fit's reservation of the budget.
    context : FitContext
        The fit's context.

    Returns
    -------
    PrivateLargeMarginGaussian
        ``est``, fitted.

    Examples
    --------
    The large-margin fit calls it with its hold and context:

    >>> from dpconvex import PrivateLargeMarginGaussian
    >>> est = PrivateLargeMarginGaussian(classes=[-1, 1], mechanism="centroid", random_state=0)
    >>> est.fit(X, y).Phi_.shape  # (C, K, d + 1, d + 1)
    (2, 1, 4, 4)
    """
    inner = centroid_estimator(est, est.random_state)
    shape = inner.public_shape(rows, y, context)
    # the outer fit has read the label set (and warned)
    fit_part(inner, rows, y, context.one_label_warning(issued=True).inner(context.noise,
                                                                          held=True))
    certificate = inner.certificate_
    certificate.state(*centroid_notes(est, shape))
    hold.commit_certificate(certificate)
    q = float(est.data_norm)
    est.certificate_ = certificate
    est.classes_ = inner.classes_
    est.n_features_in_ = int(inner.n_features_in_)
    est.Phi_ = phi_from_means(
        inner.means_ / q, q, prior_penalty(inner.class_prior_, inner.within_class_var_)
    )
    est.centers_ = None
    est.component_assignment_ = "trivial"  # as the objective path with K = 1
    return est
