"""Products of the rows with matrix blocks: quadratic forms and weighted Gram matrices.

The in-memory kernels of the large-margin templates (z_iᵀ Φ_j z_i and Σ_i W_ij z_i z_iᵀ);
:mod:`dpconvex.data.dask_gram` applies the same kernels per chunk of rows that stay on the Dask workers.
"""

from __future__ import annotations

import numpy as np

__all__ = ["quadratic_forms", "weighted_gram"]

#: weighted_gram gathers the rows with a nonzero weight first when they are fewer
#: than this fraction of all rows.
_GATHER_FRACTION = 0.3


def quadratic_forms(Z: np.ndarray, Phi: np.ndarray) -> np.ndarray:
    """z_iᵀ Φ_j z_i, shape (n, J), for rows Z (n, D) and blocks Phi (J, D, D).

    Memory O(n·D) beyond the output (one block at a time).
    """
    out = np.empty((Z.shape[0], Phi.shape[0]))
    for j in range(Phi.shape[0]):
        out[:, j] = np.einsum("ij,ij->i", Z @ Phi[j], Z)
    return out


def weighted_gram(Z: np.ndarray, W: np.ndarray) -> np.ndarray:
    """Σ_i W[i, j] z_i z_iᵀ, shape (J, D, D) symmetric, for rows Z (n, D) and weights W (n, J).

    Memory O(n·D) beyond the output.
    """
    J = W.shape[1]
    D = Z.shape[1]
    out = np.empty((J, D, D))
    for j in range(J):
        w = W[:, j]
        nz = np.flatnonzero(w)
        if nz.size == 0:
            out[j] = 0.0
            continue
        if nz.size < _GATHER_FRACTION * w.size:
            # few active rows (e.g. the Huber hinge's zero region): gather them first
            Zj = Z[nz]
            G = Zj.T @ (w[nz, None] * Zj)
        else:
            # mostly active: one pass without the gather copy (measured 2.7x faster at
            # n = 10,000, D = 31 with 70 % active rows)
            G = Z.T @ (w[:, None] * Z)
        out[j] = 0.5 * (G + G.T)
    return out
