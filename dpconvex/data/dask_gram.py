"""Scaled records z_i held in a Dask array: the out-of-core operator of the large-margin template.

:class:`DaskGram` answers the template's products (quadratic forms, weighted Grams, the normal
operator, row norms) with the records left on the workers, and the data loss and its gradient
in one pass: every chunk runs the template's own ``data_loss`` on a chunk view (a shallow copy
whose records are the chunk's), weighted n_c/n and summed. Chunks and views are persisted by
the rule of :class:`~dpconvex.data.dask_rows.DaskRows`, spread round-robin over the workers
(docs/privacy/data_backends.md#privacy-large-margin-dask).
"""

from __future__ import annotations

import contextlib
import copy
from typing import Any, Protocol

import dask
import dask.array as da
import numpy as np

from ..privacy.certificate import RowMap
from . import dask_rows
from .dask_rows import compute
from .gram import quadratic_forms, weighted_gram

__all__ = ["DaskGram"]


# --------------------------------------------------------- per-chunk kernels (run on workers)
def _normal_block(Z: np.ndarray, V: np.ndarray, n: int) -> np.ndarray:
    a = np.einsum("ij,ij->i", Z @ V, Z)  # the arithmetic of gram_operator_norm, per chunk
    return weighted_gram(Z, a[:, None] / n)[0]


def _row_norms_block(Z: np.ndarray) -> np.ndarray:
    return np.linalg.norm(Z, axis=1)


def _max_norm_block(Z: np.ndarray) -> np.ndarray:
    return np.array([float(np.max(np.linalg.norm(Z, axis=1))) if Z.shape[0] else 0.0])


class ChunkedLossTemplate(Protocol):
    """What :meth:`DaskGram.data_loss` reads of a template: its records ``Z`` (``n`` rows)
    and its data loss (a chunk view: :meth:`DaskGram.bind`)."""

    Z: Any
    n: int

    def data_loss(self, Phi: np.ndarray) -> tuple[float, np.ndarray]:
        """The mean data loss at Φ and its gradient."""
        ...

def _make_view(stub: ChunkedLossTemplate, Z: np.ndarray, records: dict[str, np.ndarray]
               ) -> ChunkedLossTemplate:
    """The template restricted to one chunk: its records are the chunk's."""
    view = copy.copy(stub)
    view.Z = Z
    view.n = int(Z.shape[0])
    for name, value in records.items():
        setattr(view, name, value)
    return view


def _loss_block(view: ChunkedLossTemplate, Phi: np.ndarray, n: int) -> np.ndarray:
    """[(n_c/n)·loss_c, (n_c/n)·∇loss_c]: the chunk's share of the mean loss and gradient."""
    val, grad = view.data_loss(Phi)
    w = view.n / n
    out = np.empty(1 + grad.size)
    out[0] = w * val
    out[1:] = w * np.asarray(grad, dtype=float).ravel()
    return out


def _identity(x: Any) -> Any:
    return x


def _workers() -> list[str]:
    """The workers of the default distributed client, sorted (empty without one)."""
    try:
        from distributed import default_client

        return sorted(default_client().scheduler_info()["workers"])
    except (ImportError, ValueError):
        return []


def _homes(blocks: list[Any]) -> list[str | None]:
    """The worker holding each persisted chunk (None without a distributed client)."""
    try:
        from distributed import default_client

        client = default_client()
    except (ImportError, ValueError):
        return [None] * len(blocks)
    dask_rows.wait_persisted(blocks)
    who = client.who_has(blocks)
    return [next(iter(who.get(b.key, ())), None) for b in blocks]


def _near(worker: str | None) -> Any:
    """Run the tasks built inside preferably on ``worker`` (where their chunk is stored).

    A preference, not a pin (``allow_other_workers``): a task whose worker is gone runs
    elsewhere. Without it, work stealing moves the chunk views between workers.
    """
    if worker is None:
        return contextlib.nullcontext()
    return dask.annotate(workers=[worker], allow_other_workers=True)


def _delayed_value(x: Any) -> Any:
    """One graph key holding ``x`` (every task reads it, it travels once)."""
    return dask.delayed(x, pure=True)


class DaskGram:
    """Scaled records z_i (||z_i|| <= 1) in a ``dask.array.Array`` with row chunks.

    Parameters
    ----------
    Z : dask.array.Array of shape (n, D)
        The records, lazily mapped per chunk (columns are rechunked to one block).
    persist : bool or None, default=None
        Whether the chunks (and chunk views) are persisted on the workers; None:
        when they take at most ``PERSIST_FRACTION`` of the workers' memory.

    Attributes
    ----------
    n, D : int
    shape : (n, D)
    n_chunks : int
    persisted : bool
    in_memory : False
        The records stay on the workers: the CVXPY backends refuse them
        (:attr:`dpconvex.solvers.registry.Backend.in_memory`).
    """

    _caches = ("_memo",)  # the last data loss and gradient

    in_memory = False
    ndim = 2

    def __init__(self, Z: da.Array, *, persist: bool | None = None):
        if not isinstance(Z, da.Array) or Z.ndim != 2:
            shape = getattr(Z, "shape", None)  # the rows themselves are never formatted
            shown = type(Z).__name__ + ("" if shape is None else f" of shape {shape}")
            raise TypeError(f"DaskGram.__init__: needs a 2-D dask.array.Array; got {shown}. "
                            "Pass the encoded rows as a 2-D Dask array.")
        Z = dask_rows.whole_rows(Z)
        self.Z = Z.astype(np.float64) if Z.dtype != np.float64 else Z
        self.n, self.D = (int(s) for s in self.Z.shape)
        self.shape = (self.n, self.D)
        self.persist = persist
        self.persisted = False
        self._blocks: list[Any] | None = None
        self._views: list[Any] | None = None
        self._view_homes: list[str | None] = []
        self._bound: Any = None
        self._memo: tuple[bytes, float, np.ndarray] | None = None

    @property
    def n_chunks(self) -> int:
        return len(self.Z.chunks[0])

    @property
    def certificate_note(self) -> RowMap:
        """The certificate's backend fact (Dask; not its chunking)."""
        return RowMap(dask=True)

    # ---------------------------------------------------------------- storage
    def _chunks(self) -> list[Any]:
        """The row chunks as Delayed objects, persisted once if they fit (module docstring)."""
        if self._blocks is None:
            blocks = list(self.Z.to_delayed().ravel())
            keep = self.persist
            if keep is None:
                keep = (
                    8.0 * self.n * self.D
                    <= dask_rows.PERSIST_FRACTION * dask_rows._cluster_memory()
                )
            if keep:  # spread round-robin over the workers (a preference, see _near)
                workers = _workers()
                spread = []
                for i, b in enumerate(blocks):
                    with _near(workers[i % len(workers)] if workers else None):
                        spread.append(dask.delayed(_identity)(b))
                blocks = list(dask_rows.persist(*spread))
            self._blocks, self.persisted = blocks, bool(keep)
        return self._blocks

    def _split(self, W: np.ndarray) -> list[np.ndarray]:
        return np.split(np.asarray(W, dtype=float), np.cumsum(self.Z.chunks[0])[:-1])

    # --------------------------------------------------------------- products
    def forms(self, Phi: np.ndarray) -> np.ndarray:
        """z_iᵀ Φ_j z_i for every row and block j, shape (n, J); Φ of shape (J, D, D)."""
        P = _delayed_value(np.asarray(Phi, dtype=float))
        parts = compute(*[dask.delayed(quadratic_forms)(b, P) for b in self._chunks()])
        return np.concatenate(parts)

    def weighted_gram(self, W: np.ndarray) -> np.ndarray:
        """Σ_i W[i, j] z_i z_iᵀ for every block j, shape (J, D, D): per-chunk Grams, tree-summed."""
        W = np.asarray(W, dtype=float)
        if W.shape[0] != self.n:
            raise ValueError(f"DaskGram.weighted_gram: expected weights of n = {self.n} rows; "
                             f"got shape {W.shape}. Pass one weight per row.")
        parts = [dask.delayed(weighted_gram)(b, Wc)
                 for b, Wc in zip(self._chunks(), self._split(W), strict=True)]
        return dask_rows._reduce(parts, 8 * (W.size // max(self.n, 1)) * self.D * self.D)

    def normal_apply(self, V: np.ndarray) -> np.ndarray:
        """(1/n) Σ_i ⟨z_i z_iᵀ, V⟩ z_i z_iᵀ for a symmetric (D, D) V, in one pass."""
        Vd = _delayed_value(np.asarray(V, dtype=float))
        parts = [dask.delayed(_normal_block)(b, Vd, self.n) for b in self._chunks()]
        return dask_rows._reduce(parts, 8 * self.D * self.D)

    def row_norms(self) -> np.ndarray:
        """||z_i|| for every record, shape (n,) (for a template's norm check)."""
        parts = compute(*[dask.delayed(_row_norms_block)(b) for b in self._chunks()])
        return np.concatenate(parts)

    def __mul__(self, scale: Any) -> DaskGram:
        """Records z_i ∘ scale (a public per-column map, e.g. a feature map), lazily per chunk."""
        s = np.asarray(scale, dtype=float)
        if s.ndim > 1 or (s.ndim == 1 and s.shape != (self.D,)):
            raise ValueError(f"DaskGram.__mul__: expected a scalar or a vector of length "
                             f"D = {self.D}; got {s.shape}. Pass one scale per column.")
        return DaskGram(self.Z * s, persist=self.persist)

    def max_row_norm(self) -> float:
        """max_i ||z_i|| (a check of the per-record map, never a calibration input)."""
        parts = compute(*[dask.delayed(_max_norm_block)(b) for b in self._chunks()])
        return float(max(p[0] for p in parts))

    # ------------------------------------------------------- the one-pass loss
    def bind(self, template: ChunkedLossTemplate) -> DaskGram:
        """Build (and persist with the chunks) one chunk view of ``template`` per non-empty
        row chunk: a shallow copy whose ``Z``, ``n`` and per-record arrays (leading dimension
        n: labels, components, masks) are the chunk's; everything else is shared."""
        n = self.n
        per_record = {
            k: v
            for k, v in vars(template).items()
            if k != "Z" and isinstance(v, np.ndarray) and v.ndim >= 1 and v.shape[0] == n
        }
        stub = copy.copy(template)
        for k, v in vars(template).items():
            if k in per_record or v is self or k == "_cvx":
                setattr(stub, k, None)
        bounds = np.concatenate([[0], np.cumsum(self.Z.chunks[0])])
        blocks = self._chunks()
        homes = _homes(blocks) if self.persisted else [None] * len(blocks)
        views, self._view_homes = [], []
        for b, home, lo, hi in zip(blocks, homes, bounds[:-1], bounds[1:], strict=True):
            if hi > lo:
                recs = {k: v[lo:hi] for k, v in per_record.items()}
                with _near(home):  # the stub travels with each task: its block decides where
                    views.append(dask.delayed(_make_view)(stub, b, recs))
                self._view_homes.append(home)
        self._views = list(dask_rows.persist(*views)) if self.persisted else views
        self._bound, self._memo = template, None
        return self

    def data_loss(
        self, template: ChunkedLossTemplate, Phi: np.ndarray
    ) -> tuple[float, np.ndarray]:
        """``template.data_loss(Phi)`` in one distributed pass (module docstring); the last
        result is kept for a repeated call at the same Φ (e.g. the residual check)."""
        Phi = np.ascontiguousarray(Phi, dtype=float)
        key = Phi.tobytes()
        if self._bound is template and self._memo is not None and self._memo[0] == key:
            return self._memo[1], self._memo[2].copy()
        if self._bound is not template:
            self.bind(template)
        P = _delayed_value(Phi)
        parts = []
        for v, home in zip(self._views or [], self._view_homes, strict=True):
            with _near(home):
                parts.append(dask.delayed(_loss_block)(v, P, self.n))
        out = dask_rows._reduce(parts, 8 * (1 + Phi.size))
        val, grad = float(out[0]), out[1:].reshape(Phi.shape)
        self._memo = (key, val, grad.copy())
        return val, grad

    def __repr__(self) -> str:
        return (f"DaskGram(n={self.n}, D={self.D}, chunks={self.n_chunks}"
                f"{', persisted' if self.persisted else ''})")
