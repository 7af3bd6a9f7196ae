"""Per-record row scaling to the public norm bound: ``row_norm="unit"``, x ↦ x / ||x|| · q.

The map reads only the record itself and the public constant q: replacing record i changes row i and no other
(docs/privacy/row_scaling.md#privacy-row-scaling). Rows then use the whole norm budget q the noise is
calibrated to, instead of the fraction a public worst-case divisor leaves them (mean norm 0.82 on Adult, 0.47
on KDD Cup 1999). A zero row stays zero.

Dense arrays, SciPy sparse rows (kept CSR, never densified) and Dask arrays
(mapped lazily per chunk, a chunk holding whole rows) give the same rows.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from .._validation import check_float, describe_value
from ..errors import DataValidationError, ParameterError
from .operators import _scaled_norms, read_rows, row_blocks, row_norms

__all__ = ["ROW_NORMS", "check_row_norm", "normalize_rows", "normalize_rows_lazy"]

#: The accepted values of a ``row_norm`` option: "unit" (x / ||x|| · q) or "none" (no map).
ROW_NORMS = ("unit", "none")

#: Tries of the final fit of a row's computed norm onto ``<= q`` (rounding; one is typical).
_FIT_STEPS = 8


def check_row_norm(row_norm: Any, owner: str) -> str:
    """Return ``row_norm`` if it is "unit" or "none", else raise :class:`ParameterError`."""
    if isinstance(row_norm, str) and row_norm in ROW_NORMS:
        return row_norm
    raise ParameterError(
        f"The 'row_norm' parameter of {owner} must be 'unit' (every non-zero row scaled to the "
        "norm bound) or 'none' (the public-range encoding only). "
        f"Got {describe_value(row_norm)} instead."
    )


def _unit_dense(X: np.ndarray, bound: float) -> np.ndarray:
    """Rows of a dense block scaled to norm ``bound`` (zero rows stay zero), on a copy.

    The row norm is computed without overflow or underflow (the scaling of
    :func:`dpconvex.data.operators.row_norms`), and each row is nudged down until
    its norm *as computed by* ``row_norms`` is at most ``bound``: rounding can
    put ``x / ||x|| · q`` a unit in the last place above q, and the estimators'
    clipping (which uses ``row_norms``) must then find nothing to clip.
    """
    X = np.array(X, dtype=np.float64, copy=True)
    if X.size == 0:
        return X
    m, u = _scaled_norms(X)
    nz = m > 0
    if not np.any(nz):
        return X
    # x / ||x|| = (x / m) / u: no product m · u that could overflow
    X[nz] = (X[nz] / m[nz, None]) * (bound / u[nz])[:, None]
    for _ in range(_FIT_STEPS):
        norms = row_norms(X)
        over = norms > bound
        if not np.any(over):
            return X
        X[over] *= np.nextafter(bound / norms[over], 0.0)[:, None]
    raise FloatingPointError(  # pragma: no cover
        "normalize_rows: row norms could not be brought to <= the bound by rounding. Scale "
        "the rows by a public constant first.")


def normalize_rows(X: Any, bound: float = 1.0) -> Any:
    """Scale every non-zero row to Euclidean norm ``bound``: x ↦ x / ||x|| · q.

    Parameters
    ----------
    X : ndarray of shape (n, p), scipy.sparse matrix or dask.array.Array
        The rows. Sparse input is scaled on its stored entries (returned as a ``csr_array`` sharing the index
        arrays), never densified; a Dask array is mapped lazily, chunk by chunk (:func:`normalize_rows_lazy`).
    bound : float, default=1.0
        The public norm bound q, never estimated from the data.

    Returns
    -------
    ndarray, scipy.sparse.csr_array or dask.array.Array
        Every non-zero row has norm q up to rounding, never above q as computed
        by :func:`dpconvex.data.operators.row_norms`; zero rows stay zero.

    Raises
    ------
    DataValidationError
        ``X`` is not 2-D, or holds NaN, an infinity, a complex number or a number beyond
        float64 (:func:`~dpconvex.data.operators.read_rows`; a Dask array's chunk as it is
        mapped), :class:`~dpconvex.errors.DataTypeError` for an entry that is not a number.
    ParameterError
        ``bound`` is not a finite float > 0.

    References
    ----------
    .. [CMS] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially Private
       Empirical Risk Minimization. JMLR 12, 2011, Section 3 (the bound ||x_i|| <= 1
       of Theorems 6 and 9) and Section 7 (rows scaled to norm <= 1).

    Examples
    --------
    >>> from dpconvex.data import normalize_rows
    >>> normalize_rows(np.array([[3.0, 4.0], [0.0, 0.0]]), bound=2.0).tolist()
    [[1.2, 1.6], [0.0, 0.0]]
    """
    q = check_float("bound", bound, "normalize_rows")
    if not isinstance(X, np.ndarray) and not sp.issparse(X) and hasattr(X, "map_blocks"):
        return normalize_rows_lazy(X, q)
    A = read_rows(X, "normalize_rows", accept_sparse=True)
    if not sp.issparse(A):
        return _unit_dense(A, q)
    data = A.data.copy()
    for _rows, idx in row_blocks(A.indptr):
        data[idx] = _unit_dense(A.data[idx], q)
    return sp.csr_array((data, A.indices, A.indptr), shape=A.shape)


def _two_dim(X: Any) -> Any:
    """A Dask array of rows, refused unless it is 2-D (its chunks are read by
    :func:`~dpconvex.data.operators.read_rows`)."""
    if X.ndim != 2:
        raise DataValidationError(
            f"normalize_rows: X must be 2-D (n_samples, n_features); got shape {X.shape}. "
            "Reshape your data: a single feature with X.reshape(-1, 1) or a single sample "
            "with X.reshape(1, -1).")
    return X


def normalize_rows_lazy(X: Any, bound: float = 1.0) -> Any:
    """:func:`normalize_rows` of a Dask array, applied lazily to each row chunk.

    The array is rechunked to hold whole rows (one chunk along the columns); each chunk's rows are then
    exactly the in-memory map's rows for the same records (the map reads one row at a time).
    """
    q = check_float("bound", bound, "normalize_rows")
    if len(_two_dim(X).chunks[1]) > 1:
        X = X.rechunk({1: -1})
    return X.map_blocks(normalize_rows, bound=q, dtype=np.float64)
