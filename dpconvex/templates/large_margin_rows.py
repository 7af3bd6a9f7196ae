"""The records z_i = [s_i x_i, c_i] of the large-margin templates, without a copy of the rows.

The public per-record maps (clipping to q, ``row_norm="unit"``, a zeroed row for a label
outside the public set; docs/privacy/large_margin.md#privacy-lm-model, privacy-row-norm-unit)
are a factor s_i of the row and a value c_i of the appended coordinate, both functions of the
record alone. :class:`AugmentedRows` keeps the stored rows x_i as given (never written, never
copied) and applies s_i and c_i inside every product, one block of rows at a time; with a
public bound q the clip factor of a row (``row_norm="unit"``: its unit factor) is computed from
the row as each product reads it (docs/privacy/row_scaling.md#privacy-rows-read-in-place).
:meth:`AugmentedRows.forms_adjoint` is the kernel of the softmax template on a public feature
map linear in z (docs/privacy/large_margin_softmax.md#privacy-feature-map-structures): the
scores of a block, their per-row weights and the accumulated adjoint in one read of the block.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ..data.operators import DenseRows, _dense_row_norms, unit_scale
from ..errors import DataValidationError

__all__ = ["AugmentedRows"]

#: Rows per block: about this many bytes of stored rows (a block and its small products stay
#: in the cache between the two products of :meth:`AugmentedRows.forms_adjoint`).
_BLOCK_BYTES = 1 << 21

#: f(F, rows) -> V of :meth:`AugmentedRows.forms_adjoint`: per-row weights of a block's scores.
BlockWeights = Callable[[np.ndarray, slice], np.ndarray]


class AugmentedRows:
    """Records z_i = [s_i x_i, c_i] over stored rows x_i: a per-row scale and an appended column.

    ``X`` (n, d) float64 rows, or a :class:`~dpconvex.data.operators.DenseRows` over them, is
    read in place, never written; ``scale`` is s_i (None: 1), ``column`` c_i. With a public
    bound ``clip`` = q, s_i is further multiplied by the clip factor min(1, q/||x_i||)
    (``unit``: q/||x_i|| of a non-zero row), never stored: every product and norm reads the
    rows a block at a time, the norms of the block, then its products with the factors of
    those norms, so no product reads a record above its bound whatever happens to X between
    two products (docs/privacy/row_scaling.md#privacy-rows-read-in-place). The norms ||x_i||
    are those of the stored rows themselves (:meth:`DenseRows.row_norms`, computed from the rows
    at each call), never taken from a caller: the rows are the caller's array, not copied, so the
    record norm condition reads them as they are when it is checked. A record with s_i = c_i = 0
    (a zeroed record) is the zero vector: its products, scores and norm are exactly 0 whatever
    its stored row holds (a product x_i·w that would overflow included). ``shape`` is (n, D),
    D = d + 1.

    Examples
    --------
    >>> from dpconvex.templates.large_margin_rows import AugmentedRows
    >>> X = np.array([[3.0, 4.0], [0.0, 1.0]])
    >>> rows = AugmentedRows(X, np.array([0.2, 1.0]), np.array([0.5, 0.5]))
    >>> rows.shape, rows.toarray().tolist()
    ((2, 3), [[0.6000000000000001, 0.8, 0.5], [0.0, 1.0, 0.5]])
    >>> rows.forms(np.eye(3)[None]).ravel().round(12).tolist()  # ||z_i||²
    [1.25, 1.25]
    >>> clipped = AugmentedRows(X, np.ones(2), np.zeros(2), clip=1.0)
    >>> X *= 10.0  # the factors follow the rows as they are read
    >>> clipped.row_norms().round(12).tolist()
    [1.0, 1.0]
    """

    in_memory = True
    ndim = 2

    def __init__(self, X: np.ndarray | DenseRows, scale: np.ndarray | None, column: np.ndarray,
                 *, clip: float | None = None, unit: bool = False):
        stored = X if isinstance(X, DenseRows) else None
        X = np.asarray(X if stored is None else stored.X)
        if X.ndim != 2 or X.dtype != np.float64:
            raise DataValidationError(
                "AugmentedRows.__init__: X must be 2-D float64 rows; got dtype "
                f"{X.dtype} and shape {X.shape}. Pass np.asarray(X, dtype=float)."
            )
        self.X = X
        #: The stored rows as a design operator (their norms computed from the rows).
        self.stored = DenseRows(X) if stored is None else stored
        self.n, d = X.shape
        self.D = d + 1
        self.shape = (self.n, self.D)
        self.scale = None if scale is None else np.asarray(scale, dtype=float)
        self.column = np.asarray(column, dtype=float)
        #: The public bound q applied to each row as it is read (None: the rows as they are).
        self.clip = None if clip is None else float(clip)
        self.unit = bool(unit)
        if self.clip is not None and self.scale is None:
            self.scale = np.ones(self.n)
        for name, v in (("scale", self.scale), ("column", self.column)):
            if v is not None and v.shape != (self.n,):
                raise DataValidationError(
                    f"AugmentedRows.__init__: {name} must have shape ({self.n},); got {v.shape}."
                )
        #: Whether a record has s_i = 0 (its factor stays 0 whatever its row's norm).
        self._zero_scale = self.scale is not None and not np.all(self.scale)
        zeroed = None if self.scale is None else (self.scale == 0.0) & (self.column == 0.0)
        #: The zeroed records (s_i = c_i = 0), or None when there are none.
        self.zeroed = zeroed if zeroed is not None and zeroed.any() else None

    @classmethod
    def from_array(cls, Z: np.ndarray) -> AugmentedRows:
        """The records of an (n, D) array, as views of its columns (no copy)."""
        Z = np.asarray(Z, dtype=float)
        return cls(Z[:, :-1], None, Z[:, -1])

    def rescaled(
        self, row: np.ndarray | float, head: float = 1.0, tail: float = 1.0
    ) -> AugmentedRows:
        """Records ρ_i · [head · s_i x_i, tail · c_i] on the same stored rows.

        A per-row factor ρ (e.g. the constant coordinate of a feature map) and a public
        column map diag(head, ..., head, tail) (e.g. the z′ map of
        docs/privacy/large_margin_softmax.md#privacy-softmax-feature-map).
        """
        rho = np.asarray(row, dtype=float)
        s = (1.0 if self.scale is None else self.scale) * (rho * head)
        s = np.broadcast_to(s, (self.n,)) if np.ndim(s) == 0 else s
        return AugmentedRows(self.stored, s, self.column * (rho * tail), clip=self.clip,
                             unit=self.unit)

    # ---------------------------------------------------------------- blocks
    def block_rows(self) -> int:
        """Rows per block of the products (about 2 MB of stored rows)."""
        return max(1, _BLOCK_BYTES // (8 * self.D))

    def _factors(self, norms: np.ndarray, rows: slice) -> np.ndarray | None:
        """s_i of the rows ``rows`` times the clip (``unit``) factor of their norms ``norms``
        as read (s_i = 0 stays 0); None when s_i = 1."""
        s = None if self.scale is None else self.scale[rows]
        if self.clip is None:
            return s
        if self.unit:
            g = unit_scale(norms, self.clip)
        else:  # min(1, q/‖x‖): the factors of clip_scale (1 for a zero row, q/0 = inf)
            with np.errstate(divide="ignore", over="ignore"):  # a warning would tell a norm
                g = np.divide(self.clip, norms)
            np.minimum(g, 1.0, out=g)
        with np.errstate(invalid="ignore"):  # 0 · inf for a zeroed record: set to 0 below
            g *= s
        if self._zero_scale:
            g[s == 0.0] = 0.0
        return g

    def _blocks(self) -> Iterator[tuple[slice, np.ndarray, np.ndarray | None, np.ndarray]]:
        """(rows, x block (a view), s block or None, c block) for consecutive blocks of rows;
        with ``clip`` the factors s include the clip factors of the block's rows as read."""
        step = self.block_rows()
        for a in range(0, self.n, step):
            rows = slice(a, min(self.n, a + step))
            B = self.X[rows]
            norms = None if self.clip is None else _dense_row_norms(B)  # as ScaledRows
            yield rows, B, self._factors(norms, rows), self.column[rows]

    def every(self, step: int) -> AugmentedRows:
        """Records 0, step, 2·step, ... (a strided view of the stored rows: no copy)."""
        return AugmentedRows(
            self.X[::step],
            None if self.scale is None else self.scale[::step],
            self.column[::step],
            clip=self.clip,
            unit=self.unit,
        )

    def _scores(
        self, B: np.ndarray, W: np.ndarray, rows: slice, s: np.ndarray | None
    ) -> np.ndarray:
        """The products s_i x_i·W of a block of stored rows B, exactly 0 for the zeroed
        records (whose products before the factor may overflow)."""
        if self.zeroed is None or not self.zeroed[rows].any():
            F = B @ W
            if s is not None:
                F *= s if F.ndim == 1 else s[:, None]
            return F
        with np.errstate(invalid="ignore", over="ignore"):
            F = B @ W
            F *= s if F.ndim == 1 else s[:, None]
        F[self.zeroed[rows]] = 0.0
        return F

    def _records(self, B: np.ndarray, s: np.ndarray | None, c: np.ndarray) -> np.ndarray:
        """The records of a block (its stored rows B, factors s, column c) as a (b, D) array."""
        out = np.empty((B.shape[0], self.D))
        if s is None:
            out[:, :-1] = B
        else:
            np.multiply(B, s[:, None], out=out[:, :-1])
        out[:, -1] = c
        return out

    def toarray(self) -> np.ndarray:
        """The records as an (n, D) array (a copy: for the paths that need the array)."""
        out = np.empty(self.shape)
        for rows, B, s, c in self._blocks():
            out[rows] = self._records(B, s, c)
        return out

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        out = self.toarray()
        return out if dtype is None else out.astype(dtype, copy=False)

    # ----------------------------------------------------------------- norms
    def head_norms(self) -> np.ndarray:
        """||s_i x_i|| for every record (the first d coordinates), from the stored rows' norms."""
        norms = self.stored.row_norms()
        s = self._factors(norms, slice(None))  # the clip factors of these norms
        if s is None:
            return norms
        with np.errstate(invalid="ignore"):  # a warning would tell a zeroed record's norm
            out = np.abs(s) * norms
        if self.zeroed is not None:
            out[self.zeroed] = 0.0  # 0 · inf for a stored row whose norm overflows
        return out

    def row_norms(self) -> np.ndarray:
        """||z_i|| for every record."""
        return np.hypot(self.head_norms(), self.column)

    def max_row_norm(self) -> float:
        """max_i ||z_i|| (a check of the per-record map, never a calibration input)."""
        return float(np.max(self.row_norms())) if self.n else 0.0

    # -------------------------------------------------------------- products
    def forms_adjoint(self, W: np.ndarray, f: BlockWeights) -> np.ndarray:
        """Vᵀ Z (the shape of W) for V = f(Z Wᵀ), block by block: one read of the rows.

        ``W`` (J, D), or (D,) for one score per record (matrix-vector products);
        ``f(F_b, rows) -> V_b`` gives the weights of a block's scores F_b, of the same shape
        (it may overwrite and return F_b).
        """
        W = np.asarray(W, dtype=float)
        one = W.ndim == 1
        W2 = W[None, :] if one else W
        Wx, w0 = np.ascontiguousarray(W2[:, :-1].T), W2[:, -1]
        if one:
            Wx, w0 = Wx[:, 0], float(w0[0])
        Gx = np.zeros(W.shape[:-1] + (self.D - 1,))
        g0 = np.zeros(W.shape[:-1])
        for rows, B, s, c in self._blocks():
            F = self._scores(B, Wx, rows, s)
            F += c * w0 if one else c[:, None] * w0
            V = f(F, rows)
            g0 += c @ V
            if s is not None:
                V = V * (s if one else s[:, None])
            Gx += V @ B if one else V.T @ B
        return np.concatenate([Gx, g0[..., None]], axis=-1)

    def forms_gram(self, W: np.ndarray, f: BlockWeights) -> np.ndarray:
        """Σ_i V_il z_i z_iᵀ for V = f(Z Wᵀ) computed block by block: one read of the rows.

        ``f(F_b, rows) -> V_b`` gives L weights per row from a block's linear scores F_b = Z_b Wᵀ (W of shape
        (J, D)); the result has shape (L, D, D), symmetric. One column of weights >= 0 (e.g. two classes) is
        one symmetric product per block, of the rows scaled by √v as they are read.
        """
        W = np.asarray(W, dtype=float)
        Wx, w0 = np.ascontiguousarray(W[:, :-1].T), W[:, -1]
        out: np.ndarray | None = None
        buf = np.empty((min(self.n, self.block_rows()), self.D))
        for rows, B, s, c in self._blocks():
            F = self._scores(B, Wx, rows, s)
            F += c[:, None] * w0
            V = f(F, rows)
            if out is None:
                out = np.zeros((V.shape[1], self.D, self.D))
            if V.shape[1] == 1 and np.all(V >= 0):  # √v z built once: Σ (√v z)(√v z)ᵀ
                r = np.sqrt(V[:, 0])
                Zb = buf[:B.shape[0]]
                np.multiply(B, (r if s is None else r * s)[:, None], out=Zb[:, :-1])
                np.multiply(c, r, out=Zb[:, -1])
                out[0] += Zb.T @ Zb
                continue
            Zb = self._records(B, s, c)
            for j in range(V.shape[1]):
                out[j] += Zb.T @ (V[:, j, None] * Zb)
        if out is None:
            return np.zeros((0, self.D, self.D))
        return 0.5 * (out + np.swapaxes(out, -1, -2))

    def forms(self, Phi: np.ndarray) -> np.ndarray:
        """z_iᵀ Φ_j z_i for every record and block j, shape (n, J); Φ of shape (J, D, D)."""
        P = np.asarray(Phi, dtype=float).reshape(-1, self.D, self.D)
        J = P.shape[0]
        flat = P.transpose(1, 0, 2).reshape(self.D, J * self.D)
        out = np.empty((self.n, J))
        for rows, B, s, c in self._blocks():
            Zb = self._records(B, s, c)
            out[rows] = np.einsum("ijk,ik->ij", (Zb @ flat).reshape(-1, J, self.D), Zb)
        return out

    def weighted_gram(self, W: np.ndarray) -> np.ndarray:
        """Σ_i W_ij z_i z_iᵀ for every column j of W (n, J), shape (J, D, D), symmetric."""
        W = np.asarray(W, dtype=float).reshape(self.n, -1)
        out = np.zeros((W.shape[1], self.D, self.D))
        for rows, B, s, c in self._blocks():
            Zb = self._records(B, s, c)
            for j in range(W.shape[1]):
                out[j] += Zb.T @ (W[rows, j, None] * Zb)
        return 0.5 * (out + np.swapaxes(out, -1, -2))

    def normal_apply(self, V: np.ndarray) -> np.ndarray:
        """(1/n) Σ_i ⟨z_i z_iᵀ, V⟩ z_i z_iᵀ for a symmetric (D, D) V."""
        a = self.forms(np.asarray(V, dtype=float)[None])
        return self.weighted_gram(a / self.n)[0]

    def __repr__(self) -> str:
        return f"AugmentedRows(n={self.n}, D={self.D})"
