"""Design operators: the one seam between the templates and how the rows are stored.

A template asks its :class:`DesignOperator` (:class:`DenseRows`, :class:`CSRRows`, either with
per-row factors, :class:`ScaledRows`) for products, row norms, weighted Grams and per-record
maps (each row from that row and public constants only: docs/privacy/linear_erm.md#privacy-intercept).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Protocol, runtime_checkable

import numpy as np
import scipy.sparse as sp

from .._validation import (
    check_int,
    check_matrix_body,
    check_numeric_dtype,
    float_matrix,
    float_rows,
    is_dask_collection,
)
from ..errors import DataTypeError, DataValidationError

__all__ = ["CSRRows", "DenseRows", "DesignOperator", "ScaledRows", "canonical_csr",
           "check_sparse", "clip_scale", "row_blocks", "row_norms", "unit_scale"]


#: ``f(m_block, rows) -> weights``: one weight per row of a block, from that row's product;
#: with ``matvec_rmatvec(..., with_norms=True)``, ``f(m_block, rows, norms)``: also the norms of
#: the block's rows as that block reads them (those of :meth:`ScaledRows.row_norms`).
RowWeights = Callable[..., np.ndarray]

#: The products of a zero row (s_i = t_i = 0) are set to exactly 0 after the product,
#: which may overflow or be 0 · inf on the stored row: no warning for those.
_ZERO_ROWS = {"over": "ignore", "invalid": "ignore"}

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


def _rescaled_norms(X: np.ndarray, redo: np.ndarray, norms: np.ndarray) -> None:
    """Set ``norms[redo]`` to the norms of rows ``redo`` of X scaled by their max-abs entry
    (:func:`_scaled_norms`), a block of rows at a time (no copy of many rows)."""
    step = max(1, _BLOCK_ENTRIES // max(X.shape[1], 1))
    for start in range(0, redo.size, step):
        rows = redo[start:start + step]
        m, u = _scaled_norms(X[rows])
        with np.errstate(over="ignore"):
            norms[rows] = m * u


def row_norms(X: np.ndarray) -> np.ndarray:
    """Euclidean norm of every row of a 2-D array, without overflow (:meth:`DenseRows.row_norms`).

    Parameters
    ----------
    X : ndarray of shape (n, p)
        The rows.

    Returns
    -------
    ndarray of shape (n,)

    Examples
    --------
    >>> row_norms(np.array([[3.0, 4.0], [1e300, 1e300]])).tolist()
    [5.0, 1.4142135623730952e+300]
    """
    return _dense_row_norms(_two_d(X, "row_norms"))


def _two_d(X: Any, caller: str) -> np.ndarray:
    """X as a float64 array (:func:`~dpconvex._validation.float_rows`), refused by
    ``caller``'s name unless it is 2-D."""
    X = float_rows(X, caller)
    if X.ndim != 2:
        raise DataValidationError(f"{caller}: needs a 2-D array; got shape {X.shape}. "
                                  "Pass the rows as a 2-D array.")
    return X


def _dense_row_norms(X: np.ndarray) -> np.ndarray:
    """||x_i|| without overflow for entries up to the float64 maximum (einsum, then the rows
    whose sum of squares overflowed or became subnormal recomputed scaled by their max-abs
    entry; a norm above ~1.8e308 is inf)."""
    sq = np.einsum("ij,ij->i", X, X)
    norms = np.sqrt(sq)
    redo = np.flatnonzero(~np.isfinite(sq) | (sq < _SQ_TINY))
    if redo.size:
        _rescaled_norms(X, redo, norms)
    return norms


#: ``ScaledRows.compact`` uses a CSR copy of the rows when at most this fraction of
#: the entries is non-zero and the matrix has at least ``_SPARSE_MIN_ENTRIES``
#: entries. Measured on Adult (n = 30,162, p = 105, 11.6% non-zero, one thread): a
#: product costs 0.3 ms sparse vs 2.3 ms dense and the Hessian 11 ms vs 27 ms
#: (``python benchmarks/run.py --only adult``).
_SPARSE_MAX_DENSITY = 0.25
_SPARSE_MIN_ENTRIES = 50_000

#: Row-wise work on CSR rows gathers at most this many stored entries at a time
#: (about 1 MB of indices and values).
_BLOCK_ENTRIES = 1 << 16
#: Blocked Gram matrices and fused products read max(1, _GRAM_ENTRIES // p) rows of p at a time (~2 MB).
_GRAM_ENTRIES = 4 * _BLOCK_ENTRIES
#: :meth:`CSRRows.weighted_gram` scatters blocks of rows into a dense buffer (n·p² work on
#: BLAS) when n·p² <= _DENSE_GRAM_GAIN · Σ k_i² (k_i: the entries row i stores; the work of
#: the blocks' sparse products), else multiplies the blocks as sparse arrays. Measured (one
#: thread): a term of the sparse products costs 60-300 times one of the dense blocks; dense
#: blocks take 19 ms vs 32 ms on Adult-like rows (30,162 x 105, 12.5 stored per row: ratio
#: 70), 36 ms vs 22 ms at 10^6 x 20 with 2 stored per row (ratio 100), 1.07 s vs 0.12 s at
#: 200,000 x 500 with 10 stored per row (ratio 2,500).
_DENSE_GRAM_GAIN = 128.0


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
        """X w, shape (n,).

        Parameters
        ----------
        w : ndarray of shape (p,)

        Returns
        -------
        ndarray of shape (n,)

        Examples
        --------
        >>> from dpconvex.data import as_design
        >>> ops = as_design(np.array([[3.0, 4.0], [0.0, 1.0]]))
        >>> ops.matvec(np.array([1.0, 1.0])).tolist()
        [7.0, 1.0]
        """

    def rmatvec(self, v: np.ndarray) -> np.ndarray:
        """Xᵀ v, shape (p,).

        Parameters
        ----------
        v : ndarray of shape (n,)

        Returns
        -------
        ndarray of shape (p,)

        Examples
        --------
        >>> from dpconvex.data import as_design
        >>> ops = as_design(np.array([[3.0, 4.0], [0.0, 1.0]]))
        >>> ops.rmatvec(np.array([1.0, 1.0])).tolist()
        [3.0, 5.0]
        """

    def row_norms(self) -> np.ndarray:
        """||x_i||_2 for every row, shape (n,), without overflow.

        Returns
        -------
        ndarray of shape (n,)

        Examples
        --------
        >>> from dpconvex.data import as_design
        >>> ops = as_design(np.array([[3.0, 4.0], [0.0, 1.0]]))
        >>> ops.row_norms().tolist()
        [5.0, 1.0]
        """

    def weighted_gram(self, d: np.ndarray) -> np.ndarray:
        """Σ_i d_i x_i x_iᵀ = Xᵀ diag(d) X as a dense (p, p) array.

        Parameters
        ----------
        d : ndarray of shape (n,)
            The row weights.

        Returns
        -------
        ndarray of shape (p, p)

        Examples
        --------
        >>> from dpconvex.data import as_design
        >>> ops = as_design(np.array([[3.0, 4.0], [0.0, 1.0]]))
        >>> ops.weighted_gram(np.array([1.0, 2.0])).tolist()
        [[9.0, 12.0], [12.0, 18.0]]
        """

    def scale_rows(self, s: np.ndarray) -> DesignOperator:
        """A new operator with row i multiplied by s_i (a per-record map).

        Parameters
        ----------
        s : ndarray of shape (n,)
            The row factors.

        Returns
        -------
        DesignOperator

        Examples
        --------
        >>> from dpconvex.data import as_design
        >>> ops = as_design(np.array([[3.0, 4.0], [0.0, 1.0]]))
        >>> ops.scale_rows(np.array([0.5, 2.0])).matrix.tolist()
        [[1.5, 2.0], [0.0, 2.0]]
        """

    def map_rows(self, f: Callable[[Any], Any]) -> DesignOperator:
        """A new operator with rows f(block of rows) (f must treat each row on its own).

        Parameters
        ----------
        f : callable
            A map of a block of rows (the stored form) to as many rows.

        Returns
        -------
        DesignOperator

        Examples
        --------
        >>> from dpconvex.data import as_design
        >>> ops = as_design(np.array([[3.0, 4.0], [0.0, 1.0]]))
        >>> ops.map_rows(lambda block: 2.0 * block).matrix.tolist()
        [[6.0, 8.0], [0.0, 2.0]]
        """

    def compact(self) -> DesignOperator:
        """The cheapest storage for the products (e.g. CSR for mostly-zero dense rows).

        Returns
        -------
        DesignOperator
            The same rows (values equal up to rounding).

        Examples
        --------
        >>> from dpconvex.data import as_design
        >>> ops = as_design(np.array([[3.0, 4.0], [0.0, 1.0]]))
        >>> type(ops.compact()).__name__  # 4 entries: kept dense
        'DenseRows'
        """


class DenseRows:
    """Rows held in a dense NumPy array (no copy if it is already float64).

    Parameters
    ----------
    X : ndarray of shape (n, p)
        The rows.

    Raises
    ------
    DataValidationError
        ``X`` is not 2-D or not an array of real numbers
        (:func:`~dpconvex._validation.float_rows`; :class:`~dpconvex.errors.DataTypeError`
        for an entry that is not a number); no message quotes an entry.

    Examples
    --------
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
        self.X = _two_d(X, "DenseRows.__init__")
        self.n, self.p = self.X.shape

    @property
    def matrix(self) -> np.ndarray:
        return self.X

    def matvec(self, w: np.ndarray) -> np.ndarray:
        """X w.

        Parameters
        ----------
        w : ndarray of shape (p,)

        Returns
        -------
        ndarray of shape (n,)

        Examples
        --------
        >>> from dpconvex.data import DenseRows
        >>> ops = DenseRows(np.array([[3.0, 4.0], [0.0, 1.0]]))
        >>> ops.matvec(np.ones(ops.p)).round(12).tolist()
        [7.0, 1.0]
        """
        return self.X @ w

    def rmatvec(self, v: np.ndarray) -> np.ndarray:
        """Xᵀ v.

        Parameters
        ----------
        v : ndarray of shape (n,)

        Returns
        -------
        ndarray of shape (p,)

        Examples
        --------
        >>> from dpconvex.data import DenseRows
        >>> ops = DenseRows(np.array([[3.0, 4.0], [0.0, 1.0]]))
        >>> ops.rmatvec(np.array([1.0, 1.0])).round(12).tolist()
        [3.0, 5.0]
        """
        return self.X.T @ v

    def row_norms(self) -> np.ndarray:
        """||x_i|| without overflow (:func:`row_norms`), computed from the stored rows at each
        call: the rows are the caller's array (not copied), so a row norm condition reads them
        as they are when it is checked.

        Returns
        -------
        ndarray of shape (n,)
            A new array of the rows' Euclidean norms.

        Examples
        --------
        >>> from dpconvex.data import DenseRows
        >>> DenseRows(np.array([[3.0, 4.0], [1e300, 1e300]])).row_norms().tolist()
        [5.0, 1.4142135623730952e+300]
        """
        return _dense_row_norms(self.X)

    def matvec_rmatvec(self, w: np.ndarray, f: RowWeights, *, with_norms: bool = False
                       ) -> tuple[np.ndarray, np.ndarray]:
        """``(X w, Xᵀ f(X w))``, each block of rows read once (``f``: :data:`RowWeights`).

        Parameters
        ----------
        w : ndarray of shape (p,)
        f : RowWeights
            f(m, rows): the weights of a block of rows from their products m.
        with_norms : bool, default=False
            Call f(m, rows, norms) instead, ``norms`` the norms of the block's rows computed
            from the block as read for its products (as :meth:`ScaledRows.row_norms` computes
            them).

        Returns
        -------
        m : ndarray of shape (n,)
            The products.
        grad : ndarray of shape (p,)
            The weighted sum of the rows.

        Examples
        --------
        >>> from dpconvex.data import DenseRows
        >>> ops = DenseRows(np.array([[3.0, 4.0], [0.0, 1.0]]))
        >>> m, grad = ops.matvec_rmatvec(np.ones(ops.p), lambda m, rows: 2.0 * m)
        >>> bool(np.allclose(grad, ops.rmatvec(2.0 * m)))
        True
        """
        # (times 1.0: exact)
        return ScaledRows(self, np.ones(self.n)).matvec_rmatvec(w, f, with_norms=with_norms)

    def weighted_gram(self, d: np.ndarray) -> np.ndarray:
        """Xᵀ diag(d) X summed over blocks of rows (memory of one block, never of X).

        Parameters
        ----------
        d : ndarray of shape (n,)
            The row weights.

        Returns
        -------
        ndarray of shape (p, p)

        Examples
        --------
        >>> from dpconvex.data import DenseRows
        >>> ops = DenseRows(np.array([[3.0, 4.0], [0.0, 1.0]]))
        >>> G = ops.weighted_gram(np.array([1.0, 2.0]))
        >>> M = ops.matrix
        >>> bool(np.allclose(G, M.T @ np.diag([1.0, 2.0]) @ M))
        True
        """
        if self.n <= max(1, _GRAM_ENTRIES // self.p):
            return (self.X.T * d) @ self.X
        return _blocked_gram(self.X, d, np.ones(self.n), None)

    def scale_rows(self, s: np.ndarray) -> DenseRows:
        """Row i times s_i: a new array.

        Parameters
        ----------
        s : ndarray of shape (n,)
            The row factors.

        Returns
        -------
        DenseRows

        Examples
        --------
        >>> from dpconvex.data import DenseRows
        >>> ops = DenseRows(np.array([[3.0, 4.0], [0.0, 1.0]]))
        >>> scaled = ops.scale_rows(np.array([0.5, 2.0]))
        >>> w = np.ones(ops.p)
        >>> bool(np.allclose(scaled.matvec(w), [0.5, 2.0] * ops.matvec(w)))
        True
        """
        return DenseRows(self.X * s[:, None])

    def map_rows(self, f: Callable[[np.ndarray], np.ndarray]) -> DenseRows:
        """The rows f(X), checked to be as many as X's.

        Parameters
        ----------
        f : callable
            A map of a block of rows to as many rows, each row on its own.

        Returns
        -------
        DenseRows

        Examples
        --------
        >>> from dpconvex.data import DenseRows
        >>> ops = DenseRows(np.array([[3.0, 4.0], [0.0, 1.0]]))
        >>> doubled = ops.map_rows(lambda block: 2.0 * block)
        >>> w = np.ones(ops.p)
        >>> bool(np.allclose(doubled.matvec(w), 2.0 * ops.matvec(w)))
        True
        """
        out = DenseRows(f(self.X))
        _check_same_rows(self, out)
        return out

    def every(self, step: int) -> DenseRows:
        """Rows 0, step, 2·step, ... (a strided view: no copy).

        Parameters
        ----------
        step : int
            k >= 1.

        Returns
        -------
        DenseRows

        Examples
        --------
        >>> from dpconvex.data import DenseRows
        >>> ops = DenseRows(np.array([[3.0, 4.0], [0.0, 1.0]]))
        >>> ops.every(2).n  # row 0 of 2
        1
        """
        return DenseRows(self.X[::step])

    def compact(self) -> DesignOperator:
        """A CSR copy when at most 25% of at least 50,000 entries are non-zero, else self
        (:meth:`ScaledRows.compact`; values equal up to rounding).

        Returns
        -------
        DesignOperator
            A CSR copy, or the rows themselves.

        Examples
        --------
        >>> from dpconvex.data import DenseRows
        >>> ops = DenseRows(np.array([[3.0, 4.0], [0.0, 1.0]]))
        >>> ops.compact() is ops  # too few entries for a CSR copy
        True
        """
        return ScaledRows(self, np.ones(self.n)).compact().base

    def __repr__(self) -> str:
        return f"DenseRows(n={self.n}, p={self.p})"


class CSRRows:
    """Rows held in a SciPy CSR matrix (any format converted, never densified; CSR float64
    input with sorted indices is not copied).

    Parameters
    ----------
    A : scipy.sparse matrix or array
        The rows.

    Raises
    ------
    DataTypeError
        ``A`` is not SciPy sparse.
    DataValidationError
        ``A`` is not 2-D, or holds complex numbers.

    Examples
    --------
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
            raise DataTypeError(f"CSRRows.__init__: needs a scipy.sparse matrix; got "
                                f"{type(A).__name__}. Pass DenseRows a dense array.")
        if A.ndim != 2:
            raise DataValidationError(f"CSRRows.__init__: needs 2-D sparse rows; got shape "
                                      f"{A.shape}. Pass the rows as a 2-D sparse matrix.")
        check_numeric_dtype(A, "CSRRows.__init__", "A")  # complex: float64 would drop a part
        self.A = canonical_csr(A)
        self.n, self.p = self.A.shape

    @property
    def matrix(self) -> sp.csr_array:
        return self.A

    @property
    def nnz(self) -> int:
        return int(self.A.nnz)

    def matvec(self, w: np.ndarray) -> np.ndarray:
        """A w, on the stored entries.

        Parameters
        ----------
        w : ndarray of shape (p,)

        Returns
        -------
        ndarray of shape (n,)

        Examples
        --------
        >>> from dpconvex.data import CSRRows
        >>> ops = CSRRows(sp.csr_array(np.array([[3.0, 4.0], [0.0, 1.0]])))
        >>> ops.matvec(np.ones(ops.p)).round(12).tolist()
        [7.0, 1.0]
        """
        return self.A @ w

    def rmatvec(self, v: np.ndarray) -> np.ndarray:
        """Aᵀ v, on the stored entries read as the columns of Aᵀ (SciPy's CSC view ``A.T``: no
        copy of the entries, and they are read as they are at each call).

        Parameters
        ----------
        v : ndarray of shape (n,)

        Returns
        -------
        ndarray of shape (p,)

        Examples
        --------
        >>> from dpconvex.data import CSRRows
        >>> ops = CSRRows(sp.csr_array(np.array([[3.0, 4.0], [0.0, 1.0]])))
        >>> ops.rmatvec(np.array([1.0, 1.0])).round(12).tolist()
        [3.0, 5.0]
        """
        return self.A.T @ v

    def matvec_rmatvec(self, w: np.ndarray, f: RowWeights, *, with_norms: bool = False
                       ) -> tuple[np.ndarray, np.ndarray]:
        """``(A w, Aᵀ f(A w))``, blocks of about 2**18 stored entries read once (``f(m, rows)`` as
        in :meth:`DenseRows.matvec_rmatvec`).

        Parameters
        ----------
        w : ndarray of shape (p,)
        f : RowWeights
            f(m, rows): the weights of a block of rows from their products m.
        with_norms : bool, default=False
            Call f(m, rows, norms) instead, ``norms`` the norms of the block's rows computed
            from the block as read for its products (as :meth:`ScaledRows.row_norms` computes
            them).

        Returns
        -------
        m : ndarray of shape (n,)
            The products.
        grad : ndarray of shape (p,)
            The weighted sum of the rows.

        Examples
        --------
        >>> from dpconvex.data import CSRRows
        >>> ops = CSRRows(sp.csr_array(np.array([[3.0, 4.0], [0.0, 1.0]])))
        >>> m, grad = ops.matvec_rmatvec(np.ones(ops.p), lambda m, rows: 2.0 * m)
        >>> bool(np.allclose(grad, ops.rmatvec(2.0 * m)))
        True
        """
        # (times 1.0: exact)
        return ScaledRows(self, np.ones(self.n)).matvec_rmatvec(w, f, with_norms=with_norms)

    def row_norms(self) -> np.ndarray:
        """Norms from the stored entries, with the overflow-safe dense ``row_norms`` per block of
        rows storing as many entries, computed at each call (the entries may be the caller's:
        not copied).

        Returns
        -------
        ndarray of shape (n,)
            A new array of the rows' Euclidean norms (0 for a row storing no entry).

        Examples
        --------
        >>> import scipy.sparse as sp
        >>> from dpconvex.data import CSRRows
        >>> CSRRows(sp.csr_array(np.array([[3.0, 0.0, 4.0], [0.0, 0.0, 0.0]]))).row_norms().tolist()
        [5.0, 0.0]
        """
        return _csr_row_norms(self.A)

    def weighted_gram(self, d: np.ndarray) -> np.ndarray:
        """Aᵀ diag(d) A summed over blocks of rows (memory of one block, never of A).

        Each block is scattered into a dense buffer and multiplied as
        :meth:`DenseRows.weighted_gram` does, unless the rows are so sparse that the blocks'
        sparse products are cheaper (:data:`_DENSE_GRAM_GAIN`).

        Parameters
        ----------
        d : ndarray of shape (n,)
            The row weights.

        Returns
        -------
        ndarray of shape (p, p)

        Examples
        --------
        >>> from dpconvex.data import CSRRows
        >>> ops = CSRRows(sp.csr_array(np.array([[3.0, 4.0], [0.0, 1.0]])))
        >>> G = ops.weighted_gram(np.array([1.0, 2.0]))
        >>> M = ops.matrix.toarray()
        >>> bool(np.allclose(G, M.T @ np.diag([1.0, 2.0]) @ M))
        True
        """
        d = np.asarray(d, dtype=float)
        if self._dense_blocks_pay():
            return _csr_dense_gram(self.A, d, None, None)
        return _csr_sparse_gram(self.A, d)

    def _dense_blocks_pay(self) -> bool:
        """Whether a weighted Gram is cheaper on dense blocks of rows (n·p² work on BLAS) than
        on the blocks' sparse products (Σ k_i² work): :data:`_DENSE_GRAM_GAIN`."""
        indptr, squares = self.A.indptr, 0.0  # Σ k_i², a block of rows at a time
        for a, b in _entry_blocks(indptr):
            counts = np.diff(indptr[a:b + 1]).astype(float)
            squares += float(counts @ counts)
        return float(self.n) * self.p * self.p <= _DENSE_GRAM_GAIN * squares

    def scale_rows(self, s: np.ndarray) -> CSRRows:
        """Row i times s_i: a new data array; the index arrays are shared.

        Parameters
        ----------
        s : ndarray of shape (n,)
            The row factors.

        Returns
        -------
        CSRRows

        Examples
        --------
        >>> from dpconvex.data import CSRRows
        >>> ops = CSRRows(sp.csr_array(np.array([[3.0, 4.0], [0.0, 1.0]])))
        >>> scaled = ops.scale_rows(np.array([0.5, 2.0]))
        >>> w = np.ones(ops.p)
        >>> bool(np.allclose(scaled.matvec(w), [0.5, 2.0] * ops.matvec(w)))
        True
        """
        data = self.A.data * np.repeat(s, np.diff(self.A.indptr))
        return CSRRows(sp.csr_array((data, self.A.indices, self.A.indptr), shape=self.A.shape))

    def map_rows(self, f: Callable[[sp.csr_array], Any]) -> CSRRows:
        """The rows f(A) in CSR, checked to be as many as A's.

        Parameters
        ----------
        f : callable
            A map of a block of rows to as many rows, each row on its own.

        Returns
        -------
        CSRRows

        Examples
        --------
        >>> from dpconvex.data import CSRRows
        >>> ops = CSRRows(sp.csr_array(np.array([[3.0, 4.0], [0.0, 1.0]])))
        >>> doubled = ops.map_rows(lambda block: 2.0 * block)
        >>> w = np.ones(ops.p)
        >>> bool(np.allclose(doubled.matvec(w), 2.0 * ops.matvec(w)))
        True
        """
        out = CSRRows(f(self.A))
        _check_same_rows(self, out)
        return out

    def every(self, step: int) -> CSRRows:
        """Rows 0, step, 2·step, ... (a CSR copy of those rows only).

        Parameters
        ----------
        step : int
            k >= 1.

        Returns
        -------
        CSRRows

        Examples
        --------
        >>> from dpconvex.data import CSRRows
        >>> ops = CSRRows(sp.csr_array(np.array([[3.0, 4.0], [0.0, 1.0]])))
        >>> ops.every(2).n  # row 0 of 2
        1
        """
        return CSRRows(self.A[::step])

    def compact(self) -> CSRRows:
        """The rows themselves: CSR is already the cheapest storage.

        Returns
        -------
        CSRRows

        Examples
        --------
        >>> from dpconvex.data import CSRRows
        >>> ops = CSRRows(sp.csr_array(np.array([[3.0, 4.0], [0.0, 1.0]])))
        >>> ops.compact() is ops  # already CSR
        True
        """
        return self

    def __repr__(self) -> str:
        return f"CSRRows(n={self.n}, p={self.p}, nnz={self.nnz})"


class ScaledRows:
    """Rows ``[s_i x_i, t_i]``: stored rows x_i times a per-row scale, with an appended column.

    The factors act inside the products (the stored rows ``base`` are never copied): clipping
    (``s_i = min(1, q / ||x_i||)``), an intercept column (public ``t_i``; ``column=None``: none),
    a zeroed row (``s_i = t_i = 0``) and a label sign, each a per-record map
    (docs/privacy/linear_erm.md#privacy-intercept). The row norms are computed from the
    stored rows at each call (their own :meth:`row_norms`), never taken from a caller: the
    stored rows are the caller's array, so a row norm condition reads them as they are then.
    A zero row has products and norm exactly 0 whatever its stored row holds, and
    :meth:`compact` reads and stores only the other rows.

    With a public bound ``clip`` = q the clip factor min(1, q/||x_i||) (``unit``: the factor
    q/||x_i|| of a non-zero row) is not stored: every product, Gram and norm reads the stored
    rows a bounded block at a time, the norms of the block, then its products, so each row is
    scaled by the factor of the row as read there (docs/privacy/row_scaling.md): no product
    reads a row above q whatever happens to the stored rows between two products.

    Parameters
    ----------
    base : DesignOperator
        The stored rows x_i.
    scale : ndarray of shape (n,)
        s_i.
    column : ndarray of shape (n,) or None, default=None
        t_i, the appended column (None: none).
    clip : float or None, default=None
        The public bound q of the stored rows' norms, applied as each row is read (a dense or
        CSR ``base``); None: the stored rows as they are.
    unit : bool, default=False
        With ``clip``: scale each non-zero row to norm q instead of clipping it.

    Examples
    --------
    >>> from dpconvex.data import DenseRows
    >>> ops = ScaledRows(DenseRows(np.array([[3.0, 4.0], [0.0, 1.0]])), np.array([0.2, 1.0]),
    ...                  np.array([0.5, 0.5]))
    >>> ops.n, ops.p, ops.matrix.tolist()
    (2, 3, [[0.6000000000000001, 0.8, 0.5], [0.0, 1.0, 0.5]])
    >>> ops.matvec(np.ones(3)).round(12).tolist(), ops.row_norms().round(12).tolist()
    ([1.9, 1.5], [1.118033988750, 1.118033988750])
    >>> X = np.array([[3.0, 4.0], [0.0, 0.5]])
    >>> clipped = ScaledRows(DenseRows(X), np.ones(2), clip=1.0)
    >>> X *= 10.0  # the factors follow the rows as they are read
    >>> clipped.row_norms().round(12).tolist()
    [1.0, 1.0]
    """

    def __init__(self, base: DesignOperator, scale: np.ndarray, column: np.ndarray | None = None,
                 *, clip: float | None = None, unit: bool = False):
        if clip is not None and not isinstance(base, (DenseRows, CSRRows)):
            raise TypeError(f"ScaledRows.__init__: clip= needs dense or CSR stored rows; got "
                            f"{type(base).__name__}. Pass DenseRows or CSRRows as base.")
        self.base = base
        self.scale = np.asarray(scale, dtype=float)
        self.column = None if column is None else np.asarray(column, dtype=float)
        self.clip = None if clip is None else float(clip)
        self.unit = bool(unit)
        self.n = base.n
        self.p = base.p + (self.column is not None)
        if self.scale.shape != (self.n,) or (
            self.column is not None and self.column.shape != (self.n,)
        ):
            raise ValueError(f"ScaledRows.__init__: needs a scale and a column of shape "
                             f"({self.n},), one entry per row of the base rows.")
        zeroed = (
            (self.scale == 0.0)
            if self.column is None
            else ((self.scale == 0.0) & (self.column == 0.0))
        )
        #: The zero rows (s_i = 0 and t_i = 0), or None when there are none.
        self.zeroed = zeroed if zeroed.any() else None

    @property
    def is_sparse(self) -> bool:
        """Whether the stored rows are CSR (the products run on their non-zeros)."""
        return bool(self.base.is_sparse)

    @property
    def matrix(self) -> Any:
        """The rows ``[s_i x_i, t_i]`` built as an array (a copy; for a CVXPY form): the stored
        rows read once into the copy, the clip factors computed from the copy's own rows, so it
        holds no row above q."""
        copied = self.base.scale_rows(self.scale)
        if self.clip is not None:
            norms = copied.row_norms()
            g = unit_scale(norms, self.clip) if self.unit else clip_scale(norms, self.clip)[0]
            copied = copied.scale_rows(g)
        M = copied.matrix
        if self.column is None:
            return M
        if sp.issparse(M):
            return sp.csr_array(sp.hstack([M, sp.csr_array(self.column[:, None])], format="csr"))
        return np.hstack([M, self.column[:, None]])

    @property
    def nnz(self) -> int:
        """Entries the rows store (for sparse rows: those of rows with s_i != 0, and t_i != 0)."""
        tail = 0 if self.column is None else int(np.count_nonzero(self.column))
        if not self.is_sparse:
            return int(np.count_nonzero(self.scale)) * self.base.p + tail
        counts = np.diff(self.base.matrix.indptr)
        return int(counts[self.scale != 0].sum()) + tail

    def _factors(self, norms: np.ndarray, rows: slice) -> np.ndarray:
        """s_i of the rows ``rows``, times the clip (``unit``) factor of the norms ``norms`` of
        those rows as read (s_i = 0 stays 0)."""
        s = self.scale[rows]
        if self.clip is None:
            return s
        g = unit_scale(norms, self.clip) if self.unit else clip_scale(norms, self.clip)[0]
        return np.where(s == 0.0, 0.0, s * g)

    def _blocks(self) -> Iterator[tuple[slice, Any, np.ndarray]]:
        """(rows, B, s) for bounded blocks of the dense or CSR stored rows: the rows B as read
        (a view; CSR blocks of about _GRAM_ENTRIES entries) and their factors s, the clip
        factors computed from B itself."""
        base = self.base
        if isinstance(base, DenseRows):
            step = max(1, _GRAM_ENTRIES // self.p)
            spans: Iterator[tuple[int, int]] = (
                (a, min(a + step, self.n)) for a in range(0, self.n, step))
        else:  # blocks of about _GRAM_ENTRIES stored entries
            spans = _entry_blocks(base.A.indptr)
        for a, b in spans:
            rows = slice(a, b)
            B = base.X[rows] if isinstance(base, DenseRows) else _csr_block(base.A, a, b)
            if self.clip is None:
                yield rows, B, self.scale[rows]
                continue
            norms = _dense_row_norms(B) if isinstance(B, np.ndarray) else _csr_block_norms(B)
            yield rows, B, self._factors(norms, rows)

    def matvec(self, w: np.ndarray) -> np.ndarray:
        """M w: s_i x_iᵀ w_x, plus t_i w_t with an appended column (w_x: the first ``base.p``
        entries of w, w_t its last); a zero row's entry is exactly 0.

        Parameters
        ----------
        w : ndarray of shape (p,)

        Returns
        -------
        ndarray of shape (n,)

        Examples
        --------
        >>> from dpconvex.data import DenseRows
        >>> ops = ScaledRows(DenseRows(np.array([[3.0, 4.0], [0.0, 1.0]])),
        ...                  np.array([0.2, 1.0]), np.array([0.5, 0.5]))
        >>> ops.matvec(np.ones(ops.p)).round(12).tolist()
        [1.9, 1.5]
        """
        w = np.asarray(w, dtype=float)
        out = np.empty(self.n)
        with np.errstate(**_ZERO_ROWS if self.zeroed is not None else {}):
            if self.clip is None:
                np.multiply(self.base.matvec(w[:self.base.p]), self.scale, out=out)
            else:  # per block, its factors from its rows as read
                for rows, B, s in self._blocks():
                    np.multiply(B @ w[:self.base.p], s, out=out[rows])
        if self.zeroed is not None:
            out[self.zeroed] = 0.0
        if self.column is not None:
            out += self.column * w[self.base.p]
        return out

    def rmatvec(self, v: np.ndarray) -> np.ndarray:
        """Mᵀ v = [Xᵀ (s ⊙ v), tᵀ v].

        Parameters
        ----------
        v : ndarray of shape (n,)

        Returns
        -------
        ndarray of shape (p,)

        Examples
        --------
        >>> from dpconvex.data import DenseRows
        >>> ops = ScaledRows(DenseRows(np.array([[3.0, 4.0], [0.0, 1.0]])),
        ...                  np.array([0.2, 1.0]), np.array([0.5, 0.5]))
        >>> ops.rmatvec(np.array([1.0, 1.0])).round(12).tolist()
        [0.6, 1.8, 1.0]
        """
        v = np.asarray(v, dtype=float)
        if self.clip is None:
            head = self.base.rmatvec(self.scale * v)
        else:
            head = np.zeros(self.base.p)
            for rows, B, s in self._blocks():
                head += (s * v[rows]) @ B
        if self.column is None:
            return head
        return np.append(head, self.column @ v)

    def matvec_rmatvec(self, w: np.ndarray, f: RowWeights, *, with_norms: bool = False
                       ) -> tuple[np.ndarray, np.ndarray]:
        """``(M w, Mᵀ f(M w))`` for the rows M = ``[s x, t]``; one pass over dense or CSR stored
        rows, a block of rows at a time (``f`` is given each block's products).

        Parameters
        ----------
        w : ndarray of shape (p,)
        f : RowWeights
            f(m, rows): the weights of a block of rows from their products m.
        with_norms : bool, default=False
            Call f(m, rows, norms) instead, ``norms`` the norms of the block's rows computed
            from the block as read for its products (as :meth:`ScaledRows.row_norms` computes
            them).

        Returns
        -------
        m : ndarray of shape (n,)
            The products.
        grad : ndarray of shape (p,)
            The weighted sum of the rows.

        Examples
        --------
        >>> from dpconvex.data import DenseRows
        >>> ops = ScaledRows(DenseRows(np.array([[3.0, 4.0], [0.0, 1.0]])),
        ...                  np.array([0.2, 1.0]), np.array([0.5, 0.5]))
        >>> m, grad = ops.matvec_rmatvec(np.ones(ops.p), lambda m, rows: 2.0 * m)
        >>> bool(np.allclose(grad, ops.rmatvec(2.0 * m)))
        True
        """
        w = np.asarray(w, dtype=float)
        base = self.base
        if not isinstance(base, (DenseRows, CSRRows)):
            m, every = self.matvec(w), slice(0, self.n)
            v = f(m, every, self.row_norms()) if with_norms else f(m, every)
            return m, self.rmatvec(v)
        t, q = self.column, base.p
        m = np.empty(self.n)
        grad = np.zeros(self.p)
        for rows, B, s in self._blocks():  # each block as in matvec, then its share of rmatvec
            mb = m[rows]
            with np.errstate(**_ZERO_ROWS if self.zeroed is not None else {}):
                np.multiply(B @ w[:q], s, out=mb)
            if self.zeroed is not None:
                mb[self.zeroed[rows]] = 0.0
            if t is not None:
                mb += t[rows] * w[q]
            v = f(mb, rows, self._block_row_norms(B, rows)) if with_norms else f(mb, rows)
            grad[:q] += (v * s) @ B
            if t is not None:
                grad[q] += v @ t[rows]
            del B, v  # (the block's arrays freed before the next one is made)
        return m, grad

    def _block_row_norms(self, B: Any, rows: slice) -> np.ndarray:
        """||[s_i x_i, t_i]|| of the rows ``rows`` from their block B as read (the stored rows'
        norms as :meth:`row_norms` computes them, then the same factors)."""
        out = _dense_row_norms(B) if isinstance(B, np.ndarray) else _csr_row_norms(B)
        with np.errstate(invalid="ignore"):  # a record's warning would tell its norm
            np.multiply(out, self._factors(out, rows), out=out)
        np.abs(out, out=out)  # |s_i|·||x_i||
        if self.zeroed is not None:
            out[self.zeroed[rows]] = 0.0  # 0 · inf for a stored row whose norm overflows
        return out if self.column is None else np.hypot(out, self.column[rows], out=out)

    def row_norms(self) -> np.ndarray:
        """||[s_i x_i, t_i]|| from the stored rows' norms (``np.hypot``: no overflow).

        Returns
        -------
        ndarray of shape (n,)
            A new array: each row's norm times |s_i|, with its appended entry t_i where there is
            one (0 for a row the operator zeroes).

        Examples
        --------
        >>> from dpconvex.data import DenseRows
        >>> rows = ScaledRows(DenseRows(np.array([[3.0, 4.0], [0.0, 1.0]])), np.array([0.2, 1.0]))
        >>> rows.row_norms().round(12).tolist()
        [1.0, 1.0]
        """
        out = self.base.row_norms()
        if not isinstance(self.base, (DenseRows, CSRRows)):  # theirs a new array: scaled in place
            out = np.array(out, dtype=float)
        with np.errstate(invalid="ignore"):  # a record's warning would tell its norm
            np.multiply(out, self._factors(out, slice(0, self.n)), out=out)
        np.abs(out, out=out)  # |s_i|·||x_i||
        if self.zeroed is not None:
            out[self.zeroed] = 0.0  # 0 · inf for a stored row whose norm overflows
        return out if self.column is None else np.hypot(out, self.column, out=out)

    def weighted_gram(self, d: np.ndarray) -> np.ndarray:
        """The blocks Xᵀ diag(d s²) X, Xᵀ (d s t) and Σ d t² of the appended rows (dense or CSR
        stored rows read once, a block of rows ``[s x, t]`` at a time, when that is cheapest).

        Parameters
        ----------
        d : ndarray of shape (n,)
            The row weights.

        Returns
        -------
        ndarray of shape (p, p)

        Examples
        --------
        >>> from dpconvex.data import DenseRows
        >>> ops = ScaledRows(DenseRows(np.array([[3.0, 4.0], [0.0, 1.0]])),
        ...                  np.array([0.2, 1.0]), np.array([0.5, 0.5]))
        >>> G = ops.weighted_gram(np.array([1.0, 2.0]))
        >>> M = ops.matrix
        >>> bool(np.allclose(G, M.T @ np.diag([1.0, 2.0]) @ M))
        True
        """
        d = np.asarray(d, dtype=float)
        if self.clip is not None:  # per block, its factors from its rows as read
            dense_blocks = isinstance(self.base, CSRRows) and self.base._dense_blocks_pay()
            t = self.column
            H = np.zeros((self.p, self.p))
            for rows, B, s in self._blocks():
                H += _block_gram(B, d[rows], s, None if t is None else t[rows], dense_blocks)
            return H
        if isinstance(self.base, CSRRows) and self.base._dense_blocks_pay():
            # one pass: blocks [s x, t] scattered into a dense buffer as they are read
            return _csr_dense_gram(self.base.A, d, self.scale, self.column)
        if self.column is None:
            return self.base.weighted_gram(d * self.scale * self.scale)
        if isinstance(self.base, DenseRows):  # one pass: blocks [s x, t] built as they are read
            return _blocked_gram(self.base.X, d, self.scale, self.column)
        G = self.base.weighted_gram(d * self.scale * self.scale)
        H = np.empty((self.p, self.p))
        q = self.base.p
        H[:q, :q] = G
        H[:q, q] = H[q, :q] = self.base.rmatvec(d * self.scale * self.column)
        H[q, q] = float(d @ (self.column * self.column))
        return H

    def scale_rows(self, s: np.ndarray) -> ScaledRows:
        """Row i times s_i: the factors change, the stored rows are shared.

        Parameters
        ----------
        s : ndarray of shape (n,)
            The row factors.

        Returns
        -------
        ScaledRows

        Examples
        --------
        >>> from dpconvex.data import DenseRows
        >>> ops = ScaledRows(DenseRows(np.array([[3.0, 4.0], [0.0, 1.0]])),
        ...                  np.array([0.2, 1.0]), np.array([0.5, 0.5]))
        >>> scaled = ops.scale_rows(np.array([0.5, 2.0]))
        >>> w = np.ones(ops.p)
        >>> bool(np.allclose(scaled.matvec(w), [0.5, 2.0] * ops.matvec(w)))
        True
        """
        s = np.asarray(s, dtype=float)
        return ScaledRows(self.base, self.scale * s,
                          None if self.column is None else self.column * s,
                          clip=self.clip, unit=self.unit)

    def map_rows(self, f: Callable[[Any], Any]) -> DesignOperator:
        """The rows f(M) of the built rows :attr:`matrix` (a copy), checked to be as many.

        Parameters
        ----------
        f : callable
            A map of a block of rows to as many rows, each row on its own.

        Returns
        -------
        DenseRows or CSRRows

        Examples
        --------
        >>> from dpconvex.data import DenseRows
        >>> ops = ScaledRows(DenseRows(np.array([[3.0, 4.0], [0.0, 1.0]])),
        ...                  np.array([0.2, 1.0]), np.array([0.5, 0.5]))
        >>> doubled = ops.map_rows(lambda block: 2.0 * block)
        >>> w = np.ones(ops.p)
        >>> bool(np.allclose(doubled.matvec(w), 2.0 * ops.matvec(w)))
        True
        """
        M = self.matrix
        out = CSRRows(f(M)) if sp.issparse(M) else DenseRows(f(M))
        _check_same_rows(self, out)
        return out

    def every(self, step: int) -> ScaledRows:
        """Rows 0, step, 2·step, ... with their factors (dense stored rows: a view, no copy).

        Parameters
        ----------
        step : int
            k >= 1.

        Returns
        -------
        ScaledRows

        Examples
        --------
        >>> from dpconvex.data import DenseRows
        >>> ops = ScaledRows(DenseRows(np.array([[3.0, 4.0], [0.0, 1.0]])),
        ...                  np.array([0.2, 1.0]), np.array([0.5, 0.5]))
        >>> ops.every(2).n  # row 0 of 2
        1
        """
        return ScaledRows(self.base.every(step), self.scale[::step],
                          None if self.column is None else self.column[::step],
                          clip=self.clip, unit=self.unit)

    def compact(self) -> ScaledRows:
        """The same factors over the cheapest storage of the stored rows that are not zero rows:
        dense ones as a CSR copy when at most 25% of at least 50,000 entries are non-zero.

        Returns
        -------
        ScaledRows
            The same factors over the cheapest storage.

        Examples
        --------
        >>> from dpconvex.data import DenseRows
        >>> ops = ScaledRows(DenseRows(np.array([[3.0, 4.0], [0.0, 1.0]])),
        ...                  np.array([0.2, 1.0]), np.array([0.5, 0.5]))
        >>> ops.compact() is ops  # too few entries for a CSR copy
        True
        """
        base, X = self.base, getattr(self.base, "X", None)
        if not isinstance(base, DenseRows):
            base = base.compact()
        elif X.size < _SPARSE_MIN_ENTRIES or X.strides[0] == 0:  # or one row broadcast
            return self
        else:
            kept = None if self.zeroed is None else ~self.zeroed  # counted and stored
            step = max(1, _BLOCK_ENTRIES // max(self.base.p, 1))  # per block: no n x p mask
            nnz = sum(int(np.count_nonzero(X[s:s + step] if kept is None else
                                           X[s:s + step][kept[s:s + step]]))
                      for s in range(0, self.n, step))
            if nnz <= _SPARSE_MAX_DENSITY * X.size:
                nonzero = X != 0
                if kept is not None:
                    nonzero &= kept[:, None]
                base = CSRRows(_dense_to_csr(X, nonzero))
        if base is self.base:
            return self
        return ScaledRows(base, self.scale, self.column, clip=self.clip, unit=self.unit)

    def __repr__(self) -> str:
        return f"ScaledRows({self.base!r}, column={self.column is not None})"


def clip_scale(norms: np.ndarray, bound: float) -> tuple[np.ndarray, int]:
    """Factors ``min(1, bound / ||x_i||)`` that clip each row to the public ``bound``.

    :func:`dpconvex.data.preprocess.clip_rows` as a row scale (for :class:`ScaledRows`); also
    returns how many rows they scale down.

    Parameters
    ----------
    norms : ndarray
        ||x_i||.
    bound : float
        The public norm bound.

    Returns
    -------
    tuple of (ndarray, int)
        The factors and the number of rows scaled down.

    Examples
    --------
    >>> s, k = clip_scale(np.array([5.0, 0.5, 0.0]), 1.0)
    >>> s.tolist(), k
    ([0.2, 1.0, 1.0], 1)
    """
    over = norms > bound
    s = np.ones(norms.shape)
    np.divide(bound, norms, out=s, where=over)
    return s, int(np.count_nonzero(over))


def unit_scale(norms: np.ndarray, bound: float) -> np.ndarray:
    """Factors ``bound / ||x_i||`` that scale each non-zero row to the public ``bound``.

    :func:`dpconvex.data.row_scaling.normalize_rows` as a row scale (a zero row keeps factor 1).

    Parameters
    ----------
    norms : ndarray
        ||x_i||.
    bound : float
        The public norm bound.

    Returns
    -------
    ndarray
        The factors.

    Examples
    --------
    >>> unit_scale(np.array([5.0, 0.5, 0.0]), 1.0).tolist()
    [0.2, 2.0, 1.0]
    """
    s = np.ones(norms.shape)
    with np.errstate(over="ignore"):  # inf for a subnormal row: a warning would tell its size
        np.divide(bound, norms, out=s, where=norms > 0)
    return s


def check_sparse(X: Any, caller: str, *, name: str = "X", n_features: int | None = None,
                 min_samples: int = 1) -> sp.csr_array:
    """The checks of :func:`dpconvex.data.validation.check_array` on SciPy sparse rows' stored
    entries; return a float64 ``csr_array`` (:func:`canonical_csr`).

    Parameters
    ----------
    X : scipy.sparse matrix or array
        The rows.
    caller : str
        "Owner.method", opening every message.
    name : str, default="X"
        What the messages call the rows.
    n_features : int or None, default=None
        The number of columns required (None: any).
    min_samples : int, default=1
        The fewest rows accepted.

    Returns
    -------
    scipy.sparse.csr_array

    Raises
    ------
    DataTypeError
        Not a SciPy sparse matrix.
    DataValidationError
        Not 2-D, or an entry or shape the checks of ``check_array`` refuse.

    Examples
    --------
    >>> check_sparse(sp.csr_matrix(np.eye(2)), "Doc.fit").dtype
    dtype('float64')
    """
    if not sp.issparse(X):
        raise DataTypeError(
            f"{caller}: {name} must be a scipy.sparse matrix; got {type(X).__name__}."
        )
    if X.ndim != 2:
        raise DataValidationError(
            f"{caller}: {name} must be 2-D (n_samples, n_features); got shape {X.shape}.")
    check_numeric_dtype(X, caller, name)  # SciPy stores bool, int, float or complex only
    A = canonical_csr(X)
    return check_matrix_body(A, A.data, caller, name, min_samples, n_features)


def read_rows(X: Any, caller: str, *, accept_sparse: bool = False) -> Any:
    """The rows a public per-record map takes, as float64, by the checks the estimators'
    :func:`~dpconvex.data.validation.check_array` is made of (that module reads Dask rows,
    whose chunks the maps are run on, so the maps cannot import it).

    Any number of rows is taken; a NumPy or (``accept_sparse``) SciPy sparse array of no
    column, which holds no entry, is returned as it is. Every refusal names ``caller`` and
    quotes no entry.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix
        The rows.
    caller : str
        The public map, opening every message.
    accept_sparse : bool, default=False
        Whether SciPy sparse rows are taken (as a float64 ``csr_array``).

    Returns
    -------
    ndarray or scipy.sparse.csr_array

    Raises
    ------
    DataValidationError
        None, a Dask collection, sparse rows where they are not taken, rows that are not 2-D,
        or an entry that is NaN, infinite or beyond float64
        (:class:`~dpconvex.errors.DataTypeError` for one that is not a number).

    Examples
    --------
    >>> read_rows([[1, 2], [3, 4]], "Doc.map").dtype
    dtype('float64')
    """
    if X is None:
        raise DataValidationError(
            f"{caller}: X is None; pass a 2-D array of numbers (n_samples, n_features).")
    if is_dask_collection(X):
        raise DataValidationError(
            f"{caller}: does not take a Dask collection; pass X.compute() if it fits in "
            "memory, or apply it to each chunk of rows.")
    if hasattr(X, "toarray"):
        if not accept_sparse:
            raise DataValidationError(
                f"{caller}: got a sparse matrix for X; pass a dense array (X.toarray()).")
        if X.ndim == 2 and X.shape[1] == 0:
            return canonical_csr(X)
        return check_sparse(X, caller, min_samples=0)
    A = float_matrix(X, caller)
    if A.shape[1] == 0 and isinstance(X, np.ndarray):
        return A
    return check_matrix_body(A, A, caller, "X", 0, None)


def canonical_csr(X: Any) -> sp.csr_array:
    """``X`` as a float64 ``csr_array`` with sorted, summed entries (not copied if it is one).

    Parameters
    ----------
    X : scipy.sparse matrix or array
        The rows.

    Returns
    -------
    scipy.sparse.csr_array

    Examples
    --------
    >>> type(canonical_csr(sp.eye(2))).__name__
    'csr_array'
    """
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

    Yields ``(rows, idx)``, ``data[idx]`` a dense (len(rows), k) block of exactly the stored
    entries of those rows (all a row's norm or clipping needs), of at most about
    ``max_entries`` entries (at least one row); rows without entries are skipped.

    Parameters
    ----------
    indptr : ndarray
        The CSR row pointer.
    max_entries : int
        The largest block, in entries (at least one row).

    Yields
    ------
    tuple of (ndarray, ndarray)
        (rows, idx).

    Raises
    ------
    DataValidationError
        ``indptr`` is not a 1-D integer array of at least one entry that never decreases.
    ParameterError
        ``max_entries`` is not an int >= 1.

    Examples
    --------
    >>> from dpconvex.data import row_blocks
    >>> A = sp.csr_array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0], [4.0, 0.0, 5.0]])
    >>> [(rows.tolist(), A.data[idx].tolist()) for rows, idx in row_blocks(A.indptr)]
    [([1], [[3.0]]), ([0, 2], [[1.0, 2.0], [4.0, 5.0]])]
    """
    if not (isinstance(indptr, np.ndarray) and indptr.ndim == 1 and indptr.size
            and indptr.dtype.kind in "iu"):
        raise DataValidationError(
            "row_blocks: indptr must be a CSR row pointer, a 1-D integer array of at least one "
            f"entry; got {_kind_of(indptr)}. Pass the indptr of a CSR matrix.")
    max_entries = check_int("max_entries", max_entries, "row_blocks", noun="argument")
    counts = np.diff(indptr)
    if counts.size and counts.min() < 0:
        raise DataValidationError(
            "row_blocks: indptr decreases, so it is not a CSR row pointer. Pass the indptr of "
            "a CSR matrix (canonical_csr(A).indptr).")
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


def _kind_of(value: Any) -> str:
    """What ``value`` is, by its type, shape and dtype alone (it may hold the data's layout)."""
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    return f"a {type(value).__name__}"


def _blocked_gram(X: np.ndarray, d: np.ndarray, s: np.ndarray, t: np.ndarray | None) -> np.ndarray:
    """Mᵀ diag(d) M for M = [s x, t] (t None: M = s x), one block of rows at a time.

    With d >= 0 each block is scaled by sqrt(d) into a reused buffer and multiplied by its own
    transpose (else by d on one side); when most d_i are 0 and X is C-contiguous, only the rows
    with d_i != 0 are read (the others add exact zeros).
    """
    n, q = X.shape
    p = q + (t is not None)
    H = np.zeros((p, p))
    step = max(1, _GRAM_ENTRIES // p)
    buf = np.empty((min(step, n), p))
    half = bool(np.all(d >= 0))
    r = s * np.sqrt(d) if half else s
    tc = None if t is None else (t * np.sqrt(d) if half else t)
    # gathering rows of a strided view (every k-th row) would copy all of it per block
    few = half and X.flags.c_contiguous and np.count_nonzero(d) <= _GRAM_SKIP_ZEROS * n
    for a in range(0, n, step):
        k = min(step, n - a)
        rows = np.flatnonzero(d[a:a + k]) + a if few else None
        if rows is not None and rows.size < k:
            # the rows with d_i != 0, gathered into the buffer's memory as a contiguous
            # (m, q) array (no copy beyond it); the appended column's blocks apart
            B = buf.reshape(-1)[:rows.size * q].reshape(rows.size, q)
            np.take(X, rows, axis=0, out=B, mode="clip")
            B *= r[rows, None]
            H[:q, :q] += B.T @ B
            if tc is not None:
                tr = tc[rows]
                H[:q, q] += tr @ B
                H[q, q] += tr @ tr
            continue
        B = buf[:k]
        np.multiply(X[a:a + k], r[a:a + k, None], out=B[:, :q])
        if tc is not None:
            B[:, q] = tc[a:a + k]
        H += B.T @ B if half else (B.T * d[a:a + k]) @ B
    if few and tc is not None:
        H[q, :q] = H[:q, q]  # the gathered blocks added to the last column only
    return H


#: :func:`_blocked_gram` reads only the rows with d_i != 0 when they are at most this share.
_GRAM_SKIP_ZEROS = 0.6


def _csr_dense_gram(A: sp.csr_array, d: np.ndarray, s: np.ndarray | None,
                    t: np.ndarray | None) -> np.ndarray:
    """Mᵀ diag(d) M for M = [s x, t] (s None: 1; t None: M = s x) over CSR rows x, one block of
    max(1, _GRAM_ENTRIES // p) rows at a time (the rule of :func:`_blocked_gram`).

    Each block's stored entries are scattered into one reused dense buffer, scaled by s·sqrt(d)
    when d >= 0 and multiplied by its own transpose (else by d on one side): no array of n
    entries or more is made.
    """
    n, q = A.shape
    p = q + (t is not None)
    H = np.zeros((p, p))
    step = max(1, _GRAM_ENTRIES // p)
    buf = np.empty((min(step, n), p))
    half = bool(np.min(d, initial=0.0) >= 0)  # (NaN: False, as np.all(d >= 0))
    indptr, indices, data = A.indptr, A.indices, A.data
    for a in range(0, n, step):
        k = min(step, n - a)
        rows = slice(a, a + k)
        lo, hi = indptr[a], indptr[a + k]
        at = np.repeat(np.arange(k), np.diff(indptr[a:a + k + 1]))  # each entry's row in the block
        root = np.sqrt(d[rows]) if half else None
        r = root if s is None else (s[rows] if root is None else s[rows] * root)
        B = buf[:k]
        B[:, :q] = 0.0
        B[at, indices[lo:hi]] = data[lo:hi] if r is None else data[lo:hi] * r[at]
        if t is not None:
            B[:, q] = t[rows] if root is None else t[rows] * root
        H += B.T @ B if half else (B.T * d[rows]) @ B
    return H


def _entry_blocks(indptr: np.ndarray) -> Iterator[tuple[int, int]]:
    """Row ranges [a, b) of CSR rows holding about _GRAM_ENTRIES stored entries each, and at
    most _GRAM_ENTRIES rows (a range starts at the row whose entries start at or after a
    multiple of _GRAM_ENTRIES, or at a multiple of _GRAM_ENTRIES rows)."""
    n, nnz = indptr.size - 1, int(indptr[-1])
    # (the same dtype as indptr: searchsorted would cast a copy of it to another)
    starts = np.searchsorted(indptr, np.arange(_GRAM_ENTRIES, nnz, _GRAM_ENTRIES,
                                               dtype=indptr.dtype))
    every = np.arange(0, n, _GRAM_ENTRIES)
    bounds = np.unique(np.concatenate([every, starts, [n]]))
    for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
        if b > a:
            yield a, b


def _csr_block(A: sp.csr_array, a: int, b: int) -> sp.csr_array:
    """Rows a..b-1 of A as a CSR array on views of A's entries (no copy; about _GRAM_ENTRIES
    entries from :func:`_entry_blocks`)."""
    lo, hi = A.indptr[a], A.indptr[b]
    return sp.csr_array((A.data[lo:hi], A.indices[lo:hi], A.indptr[a:b + 1] - lo),
                        shape=(b - a, A.shape[1]))


def _csr_sparse_gram(A: sp.csr_array, d: np.ndarray) -> np.ndarray:
    """Aᵀ diag(d) A, blocks of about _GRAM_ENTRIES stored entries multiplied as SciPy sparse
    arrays (X_bᵀ (d_b X_b)), each product added into the dense (p, p) sum at its entries."""
    p = A.shape[1]
    H = np.zeros((p, p))
    for a, b in _entry_blocks(A.indptr):
        block = _csr_block(A, a, b)
        weights = np.repeat(d[a:b], np.diff(block.indptr))
        scaled = sp.csr_array((block.data * weights, block.indices, block.indptr),
                              shape=block.shape)
        C = (block.T @ scaled).tocoo()
        np.add.at(H, (C.row, C.col), C.data)
    return H




def _csr_row_norms(A: sp.csr_array) -> np.ndarray:
    """||a_i|| of CSR rows from their stored entries (:meth:`CSRRows.row_norms`)."""
    norms = np.zeros(A.shape[0])
    indptr, data = A.indptr, A.data
    for a, b in _entry_blocks(indptr):  # grouped by entries per row within each block
        lo = indptr[a]
        block = norms[a:b]
        for rows, idx in row_blocks(indptr[a:b + 1] - lo):
            block[rows] = _dense_row_norms(data[lo:][idx])
    return norms


def _csr_block_norms(B: sp.csr_array) -> np.ndarray:
    """||b_i|| of a block of CSR rows: each row's sum of squares of its stored entries in one
    ``np.add.reduceat``; when a sum overflowed or may have lost precision to underflow, the
    block's norms by :func:`_csr_row_norms` (scaled by each row's max-abs entry)."""
    indptr = B.indptr
    stored = indptr[:-1] < indptr[1:]
    sq = np.zeros(B.shape[0])
    with np.errstate(over="ignore", under="ignore"):  # a warning would tell a record's size
        if stored.any():
            sq[stored] = np.add.reduceat(B.data * B.data, indptr[:-1][stored])
    if np.any(~np.isfinite(sq) | (stored & (sq < _SQ_TINY))):
        return _csr_row_norms(B)
    return np.sqrt(sq)


def _block_gram(B: Any, d: np.ndarray, s: np.ndarray, t: np.ndarray | None,
                dense_blocks: bool) -> np.ndarray:
    """Mᵀ diag(d) M for the block M = [s x, t] of dense or CSR rows B (CSR: scattered into a
    dense buffer when ``dense_blocks``, else multiplied as sparse arrays)."""
    if isinstance(B, np.ndarray):
        return _blocked_gram(B, d, s, t)
    if dense_blocks:
        return _csr_dense_gram(B, d, s, t)
    G = _csr_sparse_gram(B, d * s * s)
    if t is None:
        return G
    q = B.shape[1]
    H = np.empty((q + 1, q + 1))
    H[:q, :q] = G
    H[:q, q] = H[q, :q] = B.T @ (d * s * t)
    H[q, q] = float(d @ (t * t))
    return H


def _check_same_rows(before: DesignOperator, after: DesignOperator) -> None:
    if after.n != before.n:
        raise ValueError(
            f"{type(before).__name__}.map_rows: a per-record map must return one row per "
            f"record: got {after.n} rows for {before.n}. Map each record to one row."
        )


def _dense_to_csr(M: np.ndarray, nonzero: np.ndarray) -> sp.csr_array:
    """CSR copy of a dense matrix given its mask ``M != 0`` (row-major scan; ~4x faster
    than SciPy's conversion through COO)."""
    indptr = np.zeros(M.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.count_nonzero(nonzero, axis=1), out=indptr[1:])
    flat = np.flatnonzero(nonzero)  # M[nonzero] gathers the same entries without a copy of M
    return sp.csr_array((M[nonzero], flat % M.shape[1], indptr), shape=M.shape)
