"""Per-record public maps: clipping to a public norm bound, an intercept column, augmentation.

Scaling every row to the norm bound (``row_norm="unit"``, x ↦ x / ||x|| · q) is
:func:`normalize_rows`, in :mod:`dpconvex.data.row_scaling`.

Each map transforms a record from that record and public constants only, so
it commutes with the replace-one adjacency of the privacy proofs
(docs/privacy/linear_erm.md#privacy-intercept): preprocessing that reads other records (e.g. a norm
bound estimated from the data) would not be covered. Every map here accepts
dense arrays and SciPy sparse rows; sparse rows stay sparse.

Every map reads its rows with the checks the estimators' own
(:func:`~dpconvex.data.validation.check_array`) is made of, and its constants with theirs
(:func:`~dpconvex._validation.check_float`): text, objects, ragged rows, complex numbers,
NaN or infinity, rows that are not 2-D or have no column, and a bound out of range are
refused by name (:class:`~dpconvex.errors.DataValidationError`,
:class:`~dpconvex.errors.ParameterError`), in messages that quote no entry. Zero rows of p
columns map to zero rows (a Dask array's chunk, of a filtered array, can hold none, and each
map runs on every chunk), and a NumPy or SciPy sparse array of no column maps as it is (a
template of one class has rows of none).

Each public map checks, then runs a private core that checks nothing (``_clip_checked``,
``_append_column``, ``_augment_scaled``): the estimators, whose rows
:func:`~dpconvex.data.validation.check_array` has checked, call the cores, so no row is
checked twice on a fit.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._validation import check_float
from .operators import _scaled_norms, read_rows, row_blocks, row_norms
from .row_scaling import normalize_rows

__all__ = ["add_intercept", "augment_and_scale", "clip_dense_rows", "clip_rows", "normalize_rows"]


def clip_dense_rows(X: Any, bound: float) -> tuple[np.ndarray, int]:
    """:func:`clip_rows` of dense rows: the clipped copy and the number of rows clipped.

    Huge entries are clipped correctly (``[1e200, 1e200]`` with bound 1 becomes ``[0.7071, 0.7071]``): a row
    whose norm exceeds the float64 maximum is divided by its max-abs entry first.

    Parameters
    ----------
    X : array-like of shape (n, p)
        The rows (dense; sparse rows go to :func:`clip_rows`).
    bound : float
        A public constant > 0, never estimated from the data.

    Returns
    -------
    X_clipped : ndarray of shape (n, p)
        The rows as float64 (``X`` itself when it is a float64 array and no row exceeds the
        bound).
    n_clipped : int
        Number of rows scaled down.

    Raises
    ------
    DataValidationError
        ``X`` is not a 2-D array of finite numbers (:class:`~dpconvex.errors.DataTypeError`
        for an entry that is not a number).
    ParameterError
        ``bound`` is not a finite float > 0.

    Examples
    --------
    >>> from dpconvex.data.preprocess import clip_dense_rows
    >>> X_clipped, n_clipped = clip_dense_rows([[3.0, 4.0], [0.3, 0.4]], bound=1.0)
    >>> X_clipped.tolist(), n_clipped
    ([[0.6, 0.8], [0.3, 0.4]], 1)
    """
    q = _checked_bound(bound, "clip_dense_rows")
    return _clip_dense(read_rows(X, "clip_dense_rows"), q)


def _checked_bound(bound: Any, caller: str) -> float:
    """The public norm bound of ``caller`` as a finite float > 0 (a clip reads no product of
    it, so any magnitude is taken)."""
    return check_float("bound", bound, caller, magnitude=False, noun="argument")


def _clip_dense(X: np.ndarray, bound: float) -> tuple[np.ndarray, int]:
    """:func:`clip_dense_rows` without its checks: the clipped rows and the number clipped.

    ``X`` must be a checked float64 2-D ndarray (by :func:`clip_dense_rows`'s
    :func:`~dpconvex.data.operators.read_rows`, or the estimators'
    :func:`~dpconvex.data.validation.check_array`), and ``bound`` a finite float > 0
    (:func:`_checked_bound`, or the estimator's parameter checks); nothing here checks them.
    """
    norms = row_norms(X)
    over = norms > bound
    if not np.any(over):
        return X, 0
    Xc = np.array(X, dtype=float, copy=True)
    finite = over & np.isfinite(norms)
    Xc[finite] *= (bound / norms[finite])[:, None]
    huge = over & ~np.isfinite(norms)
    if np.any(huge):
        m, u = _scaled_norms(Xc[huge])
        Xc[huge] = (Xc[huge] / m[:, None]) * (bound / u)[:, None]
    return Xc, int(over.sum())


def clip_rows(X: Any, bound: float) -> tuple[Any, int]:
    """Scale every row with norm above the public ``bound`` down to norm ``bound``.

    Parameters
    ----------
    X : array-like of shape (n, p) or scipy.sparse matrix
        The rows. Sparse input is clipped on its stored entries (as a ``csr_array``; the index arrays are
        shared with the input, the values are a new array), never densified.
    bound : float
        A public constant > 0, never estimated from the data.

    Returns
    -------
    X_clipped : ndarray or scipy.sparse.csr_array
        The rows as float64; ``X`` itself when it is a float64 array and no row exceeds the
        bound.
    n_clipped : int
        Number of rows scaled down.

    Raises
    ------
    DataValidationError
        ``X`` is not a 2-D array of finite numbers (:class:`~dpconvex.errors.DataTypeError`
        for an entry that is not a number).
    ParameterError
        ``bound`` is not a finite float > 0.

    Examples
    --------
    >>> from dpconvex.data import clip_rows
    >>> X_clipped, n_clipped = clip_rows(np.array([[3.0, 4.0], [0.3, 0.4]]), bound=1.0)
    >>> X_clipped.tolist(), n_clipped
    ([[0.6, 0.8], [0.3, 0.4]], 1)
    """
    q = _checked_bound(bound, "clip_rows")
    return _clip_checked(read_rows(X, "clip_rows", accept_sparse=True), q)


def _clip_checked(A: Any, bound: float) -> tuple[Any, int]:
    """:func:`clip_rows` without its checks: the clipped rows and the number clipped.

    ``A`` must be checked rows: a float64 2-D ndarray or a float64 ``csr_array`` in canonical
    format (sorted, summed entries), as :func:`~dpconvex.data.operators.read_rows` (in
    :func:`clip_rows`) or the estimators' :func:`~dpconvex.data.validation.check_array` return
    them; ``bound`` a finite float > 0 (:func:`_checked_bound`, or the estimator's parameter
    checks). Nothing here checks them: the estimators call this on rows they have checked.
    """
    if not sp.issparse(A):
        return _clip_dense(A, bound)
    data = None
    clipped = 0
    for _rows, idx in row_blocks(A.indptr):
        block, k = _clip_dense(A.data[idx], bound)
        if k:
            if data is None:
                data = A.data.copy()
            data[idx] = block
            clipped += k
    if data is None:
        return A, 0
    return sp.csr_array((data, A.indices, A.indptr), shape=A.shape), clipped


def add_intercept(X: Any, value: float = 1.0) -> Any:
    """Append a constant column ``value`` to every row (dense stays dense, sparse stays CSR).

    The column is part of each record (regularized, inside the norm bound: the
    caller raises the bound to sqrt(q² + value²), docs/privacy/linear_erm.md#privacy-intercept).

    Parameters
    ----------
    X : array-like of shape (n, p) or scipy.sparse matrix
        The rows.
    value : float, default=1.0
        The public constant of the column (any finite float).

    Returns
    -------
    ndarray or scipy.sparse.csr_array of shape (n, p + 1)
        The rows as float64 with the column appended.

    Raises
    ------
    DataValidationError
        ``X`` is not a 2-D array of finite numbers (:class:`~dpconvex.errors.DataTypeError`
        for an entry that is not a number).
    ParameterError
        ``value`` is not a finite float.

    Examples
    --------
    >>> from dpconvex.data import add_intercept
    >>> add_intercept(np.array([[0.6, 0.8]]), value=0.25).tolist()
    [[0.6, 0.8, 0.25]]
    """
    v = check_float("value", value, "add_intercept", low=-math.inf, magnitude=False,
                    noun="argument")
    return _append_column(read_rows(X, "add_intercept", accept_sparse=True), v)


def _append_column(A: Any, value: float) -> Any:
    """:func:`add_intercept` without its checks: the rows with the column ``value`` appended.

    ``A`` must be checked rows: a float64 2-D ndarray or a float64 ``csr_array``, as
    :func:`~dpconvex.data.operators.read_rows` (in :func:`add_intercept`) or the estimators'
    :func:`~dpconvex.data.validation.check_array` return them (or the clipped rows of
    :func:`_clip_checked`); ``value`` a finite float (:func:`add_intercept`'s check, or the
    estimator's parameter checks). Nothing here checks them.
    """
    if not sp.issparse(A):
        return np.hstack([A, np.full((A.shape[0], 1), value)])
    n = A.shape[0]  # the column stored in every row, even a zero value
    col = sp.csr_array((np.full(n, value), np.zeros(n, dtype=A.indptr.dtype),
                        np.arange(n + 1, dtype=A.indptr.dtype)), shape=(n, 1))
    return sp.csr_array(sp.hstack([A, col], format="csr"))


def augment_and_scale(X: Any, data_norm: float) -> np.ndarray:
    """z = [x; 1] / sqrt(q² + 1) for rows x already clipped to ||x|| <= q.

    Scaling every z by the same public constant leaves the decision rule argmin_c min_m zᵀΦ_{c,m}z unchanged
    and gives ||z|| <= 1 (the bound the privacy constants use; the papers' Lemma 1 takes ||zzᵀ||_F = ||x|| <=
    1, which ignores the appended 1, see docs/privacy/large_margin.md#privacy-lm-model).

    Parameters
    ----------
    X : array-like of shape (n, p)
        The rows, clipped to the norm bound (:func:`clip_rows`); dense.
    data_norm : float
        The public norm bound q > 0 of the rows.

    Returns
    -------
    ndarray of shape (n, p + 1)
        The scaled records z.

    Raises
    ------
    DataValidationError
        ``X`` is not a dense 2-D array of finite numbers
        (:class:`~dpconvex.errors.DataTypeError` for an entry that is not a number).
    ParameterError
        ``data_norm`` is not a finite float > 0.

    Examples
    --------
    >>> from dpconvex.data import augment_and_scale
    >>> z = augment_and_scale(np.array([[1.0, 0.0], [0.0, 0.5]]), data_norm=1.0)
    >>> z.shape, np.linalg.norm(z, axis=1).round(3).tolist()
    ((2, 3), [1.0, 0.79])
    """
    q = check_float("data_norm", data_norm, "augment_and_scale", noun="argument")
    return _augment_scaled(read_rows(X, "augment_and_scale"), q)


def _augment_scaled(X: np.ndarray, q: float) -> np.ndarray:
    """:func:`augment_and_scale` without its checks: the records z = [x; 1] / sqrt(q² + 1).

    ``X`` must be checked dense rows, a float64 2-D ndarray, as
    :func:`~dpconvex.data.operators.read_rows` (in :func:`augment_and_scale`) or the
    estimators' :func:`~dpconvex.data.validation.check_array` return them (or their clip,
    :func:`_clip_checked`); ``q`` a finite float > 0 (:func:`augment_and_scale`'s check, or
    the estimator's parameter checks). Nothing here checks them.
    """
    s = 1.0 / math.sqrt(q * q + 1.0)
    return np.hstack([X, np.ones((X.shape[0], 1))]) * s
