"""Design operators: the one seam between the templates and how the rows are stored.

A template never touches the stored rows directly; it asks its
:class:`DesignOperator` for products (``X w``, ``Xᵀ v``), row norms, the
weighted Gram matrix ``Σ_i d_i x_i x_iᵀ`` and per-record maps. Two in-memory
implementations:

* :class:`DenseRows`: a NumPy array;
* :class:`CSRRows`: a SciPy CSR matrix, never densified (products, norms,
  clipping and scaling work on the stored non-zeros only).

A per-record map (:meth:`DesignOperator.map_rows`, :meth:`DesignOperator.scale_rows`)
transforms each row from that row and public constants only; it is what
preprocessing such as clipping to a public norm bound must be, for the privacy
proofs to cover it (docs/privacy.md §2.3).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cached_property
from typing import Any, Protocol, runtime_checkable

import numpy as np
import scipy.sparse as sp

from .._validation import check_matrix_body
from ..errors import DataTypeError, DataValidationError

__all__ = ["CSRRows", "DenseRows", "DesignOperator", "canonical_csr", "check_sparse",
           "row_blocks", "row_norms"]


#: Below this sum of squares the einsum path may have lost precision to underflow.
_SQ_TINY = np.finfo(np.float64).tiny * 2.0**54


def _scaled_norms(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return (m, u) with m the max-abs of each row and u = ||row / m|| in [1, sqrt(d)].

    ``m * u`` is the row norm computed without overflow or underflow (the
    scaling of LAPACK's nrm2 and ``np.hypot``); zero rows give m = 0, u = 0.
    """
    m = np.max(np.abs(X), axis=1) if X.shape[1] else np.zeros(X.shape[0])
    safe = np.where(m > 0, m, 1.0)
    Z = X / safe[:, None]
    return m, np.sqrt(np.einsum("ij,ij->i", Z, Z))


def row_norms(X: np.ndarray) -> np.ndarray:
    """Euclidean norm of every row, without overflow for entries up to the float64 maximum.

    Uses einsum (about 2x faster than ``np.linalg.norm(axis=1)``) and recomputes,
    scaled by the row's max-abs entry, the rows whose sum of squares overflowed
    (entries above ~1e154) or fell into the subnormal range (entries below
    ~1e-154). A norm above the float64 maximum (~1.8e308) is returned as inf.
    """
    X = np.asarray(X, dtype=float)
    sq = np.einsum("ij,ij->i", X, X)
    norms = np.sqrt(sq)
    redo = ~np.isfinite(sq) | (sq < _SQ_TINY)
    if np.any(redo):
        m, u = _scaled_norms(X[redo])
        with np.errstate(over="ignore"):
            norms[redo] = m * u
    return norms


#: ``DenseRows.compact`` uses a CSR copy of the rows when at most this fraction of
#: the entries is non-zero and the matrix has at least ``_SPARSE_MIN_ENTRIES``
#: entries. Measured on Adult (n = 30,162, p = 105, 11.6% non-zero, one thread): a
#: product costs 0.3 ms sparse vs 2.3 ms dense and the Hessian 11 ms vs 27 ms
#: (``python benchmarks/run.py --only adult``).
_SPARSE_MAX_DENSITY = 0.25
_SPARSE_MIN_ENTRIES = 50_000

#: Row-wise work on CSR rows gathers at most this many stored entries at a time
#: (about 1 MB of indices and values).
_BLOCK_ENTRIES = 1 << 16


@runtime_checkable
class DesignOperator(Protocol):
    """The rows x_1, ..., x_n ∈ R^p as an operator.

    Attributes
    ----------
    n, p : int
        Number of rows and columns.
    is_sparse : bool
        Whether the products run on stored non-zeros only.
    matrix : ndarray or scipy.sparse.csr_array
        The stored rows, for a CVXPY form (CVXPY takes either).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex.data import DesignOperator, as_design
    >>> isinstance(as_design(np.eye(2)), DesignOperator)
    True
    """

    n: int
    p: int
    is_sparse: bool

    @property
    def matrix(self) -> Any: ...

    def matvec(self, w: np.ndarray) -> np.ndarray:
        """X w, shape (n,)."""
        ...

    def rmatvec(self, v: np.ndarray) -> np.ndarray:
        """Xᵀ v, shape (p,)."""
        ...

    def row_norms(self) -> np.ndarray:
        """||x_i||_2 for every row, shape (n,), without overflow."""
        ...

    def weighted_gram(self, d: np.ndarray) -> np.ndarray:
        """Σ_i d_i x_i x_iᵀ = Xᵀ diag(d) X as a dense (p, p) array."""
        ...

    def scale_rows(self, s: np.ndarray) -> DesignOperator:
        """A new operator with row i multiplied by s_i (a per-record map)."""
        ...

    def map_rows(self, f: Callable[[Any], Any]) -> DesignOperator:
        """A new operator with rows f(block of rows) (f must treat each row on its own)."""
        ...

    def compact(self) -> DesignOperator:
        """The cheapest storage for the products (e.g. CSR for mostly-zero dense rows)."""
        ...


class DenseRows:
    """Rows held in a dense NumPy array (no copy if it is already float64).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex.data import DenseRows
    >>> ops = DenseRows(np.array([[3.0, 4.0], [0.0, 1.0]]))
    >>> ops.n, ops.p, ops.is_sparse
    (2, 2, False)
    >>> ops.row_norms().tolist()
    [5.0, 1.0]
    >>> ops.rmatvec(np.array([1.0, 1.0])).tolist()
    [3.0, 5.0]
    """

    is_sparse = False

    def __init__(self, X: np.ndarray):
        self.X = np.asarray(X, dtype=float)
        if self.X.ndim != 2:
            raise ValueError(f"DenseRows needs a 2-D array; got shape {self.X.shape}.")
        self.n, self.p = self.X.shape

    @property
    def matrix(self) -> np.ndarray:
        return self.X

    def matvec(self, w: np.ndarray) -> np.ndarray:
        return self.X @ w

    def rmatvec(self, v: np.ndarray) -> np.ndarray:
        return self.X.T @ v

    def row_norms(self) -> np.ndarray:
        return row_norms(self.X)

    def weighted_gram(self, d: np.ndarray) -> np.ndarray:
        return (self.X.T * d) @ self.X

    def scale_rows(self, s: np.ndarray) -> DenseRows:
        return DenseRows(self.X * s[:, None])

    def map_rows(self, f: Callable[[np.ndarray], np.ndarray]) -> DenseRows:
        out = DenseRows(f(self.X))
        _check_same_rows(self, out)
        return out

    def compact(self) -> DesignOperator:
        """A CSR copy when at most 25% of at least 50,000 entries are non-zero, else self.

        The choice changes only the arithmetic of the products, not their values
        beyond rounding.
        """
        nonzero = self.X != 0
        nnz = int(np.count_nonzero(nonzero))
        if self.X.size >= _SPARSE_MIN_ENTRIES and nnz <= _SPARSE_MAX_DENSITY * self.X.size:
            return CSRRows(_dense_to_csr(self.X, nonzero))
        return self

    def __repr__(self) -> str:
        return f"DenseRows(n={self.n}, p={self.p})"


class CSRRows:
    """Rows held in a SciPy CSR matrix; nothing here densifies them.

    Parameters
    ----------
    A : scipy.sparse matrix or array (any format)
        Converted to ``csr_array`` (CSC, COO, ... are converted without
        densifying; CSR float64 input with sorted indices is not copied).

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from dpconvex.data import CSRRows
    >>> ops = CSRRows(sp.random(4, 3, density=0.5, random_state=0))
    >>> ops.n, ops.p, ops.is_sparse
    (4, 3, True)
    >>> ops.matvec(np.ones(3)).shape
    (4,)
    """

    is_sparse = True

    def __init__(self, A: Any):
        if not sp.issparse(A):
            raise TypeError(f"CSRRows needs a scipy.sparse matrix; got {type(A).__name__}.")
        A = sp.csr_array(A)
        if A.dtype != np.float64:
            A = A.astype(np.float64)
        if not A.has_canonical_format:  # duplicates or unsorted indices: fix a copy
            A = A.copy()
            A.sum_duplicates()
        self.A = A
        self.n, self.p = A.shape

    @property
    def matrix(self) -> sp.csr_array:
        return self.A

    @cached_property
    def AT(self) -> sp.csr_array:
        """Aᵀ in CSR (the products Aᵀ v run row-wise on it)."""
        return self.A.T.tocsr()

    @property
    def nnz(self) -> int:
        return int(self.A.nnz)

    def matvec(self, w: np.ndarray) -> np.ndarray:
        return self.A @ w

    def rmatvec(self, v: np.ndarray) -> np.ndarray:
        return self.AT @ v

    def row_norms(self) -> np.ndarray:
        """Norms from the stored entries, with the overflow-safe dense ``row_norms`` per block."""
        norms = np.zeros(self.n)
        data = self.A.data
        for rows, idx in row_blocks(self.A.indptr):
            norms[rows] = row_norms(data[idx])
        return norms

    def weighted_gram(self, d: np.ndarray) -> np.ndarray:
        """Aᵀ diag(d) A: the columns of Aᵀ scaled in place of a copy of its values (the
        same products, in the same order, as ``Aᵀ.multiply(d).tocsr()``, without its COO
        intermediate), then one sparse product."""
        AT = self.AT
        scaled = sp.csr_array((AT.data * d[AT.indices], AT.indices, AT.indptr), shape=AT.shape)
        return (scaled @ self.A).toarray()

    def scale_rows(self, s: np.ndarray) -> CSRRows:
        """Row i times s_i: a new data array; the index arrays are shared."""
        data = self.A.data * np.repeat(s, np.diff(self.A.indptr))
        return CSRRows(sp.csr_array((data, self.A.indices, self.A.indptr), shape=self.A.shape))

    def map_rows(self, f: Callable[[sp.csr_array], Any]) -> CSRRows:
        out = CSRRows(f(self.A))
        _check_same_rows(self, out)
        return out

    def compact(self) -> CSRRows:
        return self

    def __repr__(self) -> str:
        return f"CSRRows(n={self.n}, p={self.p}, nnz={self.nnz})"


def check_sparse(X: Any, owner: str, *, name: str = "X", n_features: int | None = None,
                 min_samples: int = 1) -> sp.csr_array:
    """Validate SciPy sparse rows without densifying them; return a float64 ``csr_array``.

    The checks of :func:`dpconvex.data.validation.check_array` (2-D, enough samples,
    at least one feature, finite, real, the expected number of features), run on
    the stored entries. CSR float64 input with sorted indices is not copied.
    """
    if not sp.issparse(X):
        raise DataTypeError(f"{owner}: {name} must be a scipy.sparse matrix; got {type(X).__name__}.")
    if X.ndim != 2:
        raise DataValidationError(
            f"{owner}: {name} must be 2-D (n_samples, n_features); got shape {X.shape}.")
    if X.dtype.kind == "c":
        raise DataValidationError(
            f"{owner}: Complex data not supported in {name}; pass real numbers (e.g. split real and "
            "imaginary parts into columns)."
        )
    if X.dtype.kind not in "biuf":
        raise DataTypeError(f"{owner}: {name} must hold numbers; got dtype {X.dtype}.")
    A = canonical_csr(X)
    return check_matrix_body(A, A.data, owner, name, min_samples, n_features)


def canonical_csr(X: Any) -> sp.csr_array:
    """``X`` as a float64 ``csr_array`` with sorted, summed entries (not copied if it is one)."""
    A = sp.csr_array(X)
    if A.dtype != np.float64:
        A = A.astype(np.float64)
    if not A.has_canonical_format:
        A = A.copy()
        A.sum_duplicates()
    return A


def row_blocks(indptr: np.ndarray, max_entries: int = _BLOCK_ENTRIES
               ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Group CSR rows by their number k of stored entries, for dense row-wise work.

    Yields ``(rows, idx)`` with ``idx`` of shape (len(rows), k): ``data[idx]`` is a
    dense block holding exactly the stored entries of those rows (a row's norm,
    or its clipping, only needs them). Rows without entries are skipped. Memory
    per block is at most about ``max_entries`` entries (at least one row).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from dpconvex.data import row_blocks
    >>> A = sp.csr_array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0], [4.0, 0.0, 5.0]])
    >>> [(rows.tolist(), A.data[idx].tolist()) for rows, idx in row_blocks(A.indptr)]
    [([1], [[3.0]]), ([0, 2], [[1.0, 2.0], [4.0, 5.0]])]
    """
    counts = np.diff(indptr)
    order = np.argsort(counts, kind="stable")
    bounds = np.flatnonzero(np.diff(counts[order])) + 1
    for group in np.split(order, bounds):
        if group.size == 0:
            continue
        k = int(counts[group[0]])
        if k == 0:
            continue
        step = max(1, max_entries // k)
        for s in range(0, group.size, step):
            rows = group[s:s + step]
            yield rows, indptr[rows][:, None] + np.arange(k)


def _check_same_rows(before: DesignOperator, after: DesignOperator) -> None:
    if after.n != before.n:
        raise ValueError(
            f"a per-record map must return one row per record: got {after.n} rows for {before.n}."
        )


def _dense_to_csr(M: np.ndarray, nonzero: np.ndarray) -> sp.csr_array:
    """CSR copy of a dense matrix given its mask ``M != 0`` (row-major scan; ~4x faster
    than SciPy's conversion through COO)."""
    indptr = np.zeros(M.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.count_nonzero(nonzero, axis=1), out=indptr[1:])
    flat = np.flatnonzero(nonzero)
    return sp.csr_array((M.ravel()[flat], flat % M.shape[1], indptr), shape=M.shape)
