"""The sufficient statistics of a linear regression, XᵀX and Xᵀu, in one pass over the rows.

Row i of the design is x̃_i = [c_i x_i, s] with c_i = min(1, q/‖x_i‖) (the row clipped to
the public norm bound q, a per-record map) and s the public intercept column (if any); u_i ∈
[−1, 1] is its label on the unit scale. :func:`sufficient_statistics` returns A = Σ x̃_i x̃_iᵀ
and b = Σ u_i x̃_i, the statistics sufficient-statistics perturbation releases
(docs/privacy/sufficient_statistics.md#privacy-sufficient-statistics), per block of rows of
about 2 MB (dense: never copied; SciPy sparse: on the stored entries; Dask: per chunk on the
workers, only the (p + 1)² partial sums travel). Each block's values are read once, into a
buffer of the block: its norms, clip factors and products are those of the buffer, so a row
changed in place by another thread during the pass is clipped as the statistic reads it
(docs/privacy/row_scaling.md#privacy-rows-read-in-place). The count of rows clipped returned
beside them is a statistic of the data for :func:`dpconvex.collect_diagnostics`, never released.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp

from .operators import _GRAM_ENTRIES, _csr_row_norms, canonical_csr, clip_scale, row_norms

__all__ = ["Moments", "moments_of_block", "sufficient_statistics"]


class Moments(NamedTuple):
    """A = Σ x̃x̃ᵀ (p × p), b = Σ u x̃ (p,) and the number of rows clipped (a diagnostic).

    Examples
    --------
    >>> X = np.array([[3.0, 4.0], [0.0, 0.5]]); u = np.array([1.0, -1.0])
    >>> m = sufficient_statistics(X, u, bound=1.0, intercept=None)
    >>> m.gram.round(12).tolist(), m.cross.round(12).tolist(), m.n_clipped
    ([[0.36, 0.48], [0.48, 0.89]], [0.6, 0.3], 1)
    """

    gram: np.ndarray
    cross: np.ndarray
    n_clipped: int


def moments_of_block(
    X: np.ndarray, u: np.ndarray, bound: float, intercept: float | None
) -> np.ndarray:
    """The Gram matrix of [c x, s, u] over dense rows, flattened, then the count clipped.

    The arguments as :func:`sufficient_statistics`'s (X dense, read block by block, not
    copied). Returns, with p = d + (intercept is not None), the (p + 1) × (p + 1) matrix
    Σ_i [x̃_i; u_i][x̃_i; u_i]ᵀ row by row, then the number of rows with ‖x‖ > q.

    Examples
    --------
    >>> moments_of_block(np.array([[2.0], [0.5]]), np.array([1.0, 0.0]), 1.0, None).tolist()
    [1.25, 1.0, 1.0, 1.0, 1.0]
    """
    n, d = X.shape
    p = d + (intercept is not None)
    H = np.zeros((p + 1, p + 1))
    clipped = 0
    step = max(1, _GRAM_ENTRIES // (p + 1))
    buf = np.empty((min(step, max(n, 1)), p + 1))
    if intercept is not None:
        buf[:, d] = intercept
    for a in range(0, n, step):
        k = min(step, n - a)
        block = buf[:k]
        rows = block[:, :d]
        rows[...] = X[a:a + k]  # the block read once: its norms and products read this copy
        scale, over = clip_scale(row_norms(rows), bound)
        clipped += over
        rows *= scale[:, None]
        block[:, p] = u[a:a + k]
        H += block.T @ block  # one symmetric rank-k update per block (BLAS syrk)
    return np.append(H.ravel(), float(clipped))


def _moments_of_chunk(B: np.ndarray, scale: Any, signs: bool, bound: float,
                      intercept: float | None) -> np.ndarray:
    """:func:`moments_of_block` of one Dask chunk whose last column holds u, shape (1, m)."""
    return moments_of_block(B[:, :-1], B[:, -1], bound, intercept)[None, :]


def _sparse_moments(X: Any, u: np.ndarray, bound: float, intercept: float | None) -> np.ndarray:
    """:func:`moments_of_block` for SciPy sparse rows, read on their stored entries (a block's
    entries copied once, then its norms and products computed from the copy)."""
    A = canonical_csr(X)
    n, d = A.shape
    p = d + (intercept is not None)
    clipped = 0
    H = np.zeros((p + 1, p + 1))
    step = max(1, _GRAM_ENTRIES // (int(A.nnz // max(n, 1)) + 1))
    for a in range(0, n, step):
        rows = slice(a, min(n, a + step))
        lo, hi = A.indptr[a], A.indptr[rows.stop]
        indptr = A.indptr[a:rows.stop + 1] - lo
        block = sp.csr_array((A.data[lo:hi].copy(), A.indices[lo:hi], indptr),
                             shape=(rows.stop - a, d))
        scale, over = clip_scale(_csr_row_norms(block), bound)
        clipped += over
        block.data *= np.repeat(scale, np.diff(indptr))
        H[:d, :d] += (block.T @ block).toarray()
        H[:d, p] += block.T @ u[rows]
        if intercept is not None:
            H[:d, d] += intercept * np.asarray(block.sum(axis=0)).ravel()
    if intercept is not None:
        H[d, d] = n * intercept * intercept
        H[d, p] = intercept * float(u.sum())
        H[d, :d] = H[:d, d]
    H[p, p] = float(u @ u)
    H[p, :p] = H[:p, p]
    return np.append(H.ravel(), float(clipped))


def sufficient_statistics(X: Any, u: np.ndarray, bound: float, intercept: float | None) -> Moments:
    """A = Σ x̃x̃ᵀ and b = Σ u x̃ of the clipped rows with their intercept column, in one pass.

    The rows X (n, d) as validated (dense, SciPy sparse or Dask: never copied, densified or
    computed into memory), u their labels in [−1, 1], ``bound`` the public q and
    ``intercept`` the public column s (None: none); module docstring.

    Examples
    --------
    >>> X = np.array([[0.6, 0.0], [0.0, 2.0]]); u = np.array([1.0, 0.5])
    >>> m = sufficient_statistics(X, u, bound=1.0, intercept=1.0)
    >>> m.gram.tolist()
    [[0.36, 0.0, 0.6], [0.0, 1.0, 1.0], [0.6, 1.0, 2.0]]
    >>> m.cross.tolist(), m.n_clipped
    ([0.6, 0.5, 1.5], 1)
    """
    u = np.asarray(u, dtype=float)
    d = int(X.shape[1])
    p = d + (intercept is not None)
    if sp.issparse(X):
        flat = _sparse_moments(X, u, bound, intercept)
    elif isinstance(X, np.ndarray):
        flat = moments_of_block(X, u, bound, intercept)
    else:  # Dask rows: u joins the rows as a last column, chunk by chunk
        import dask.array as da

        from .dask_rows import DaskRows

        column = da.from_array(u[:, None], chunks=(X.chunks[0], 1))
        rows = DaskRows(da.concatenate([X, column], axis=1))
        flat = np.asarray(rows.chunk_sum(_moments_of_chunk, float(bound), intercept))
    H = flat[:-1].reshape(p + 1, p + 1)
    return Moments(np.array(H[:p, :p]), np.array(H[:p, p]), int(round(float(flat[-1]))))
