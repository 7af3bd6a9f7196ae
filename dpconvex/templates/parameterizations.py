"""Parameterizations of the large-margin Gaussian classifier's matrices Φ_{c,m}.

A parameterization (:class:`QuadraticParameterization`, :class:`BlockParameterization`) owns all that depends
on the form of Φ: the forms z_iᵀΦ_j z_i and their adjoint, the projection, the noise subspace, the trace term
and the CVXPY variables. Forms, built as ``cls(n_classes, n_components, D)`` (:data:`PARAMETERIZATIONS`):
:class:`FullPSD` (one PSD block per class and component, the papers' form) and :class:`SymmetricShift`
(symmetric, unconstrained, released with :func:`psd_shift`). No n × D² matrix is ever formed.
"""

from __future__ import annotations

import math
from typing import Any, Protocol, runtime_checkable

import cvxpy as cp
import numpy as np
from scipy import sparse

from ..data.gram import quadratic_forms, weighted_gram

__all__ = ["PARAMETERIZATIONS", "BlockParameterization", "FullPSD", "QuadraticParameterization",
           "SymmetricShift", "gram_operator_norm", "max_row_norm", "project_psd", "psd_shift"]


#: In-memory rows with at most this fraction of nonzeros are multiplied in CSR by
#: :class:`SymmetricShift` (the arithmetic only: the same forms and adjoint; e.g. one-hot
#: encoded Adult, ~13 %).
_SPARSE_FRACTION = 0.25


def project_psd(X: np.ndarray) -> np.ndarray:
    """Euclidean (Frobenius) projection of each block of X (..., D, D) onto the PSD cone.

    Each block is symmetrized, (X + Xᵀ)/2, then V max(Λ, 0) Vᵀ with X = V Λ Vᵀ (one
    ``numpy.linalg.eigh`` call over all blocks).

    Examples
    --------
    >>> from dpconvex.templates.parameterizations import project_psd
    >>> project_psd(np.array([[[1.0, 0.0], [0.0, -2.0]]]))
    array([[[1., 0.],
            [0., 0.]]])
    """
    S = 0.5 * (X + np.swapaxes(X, -1, -2))
    w, V = np.linalg.eigh(S)
    if np.all(w >= 0):
        return S
    w = np.maximum(w, 0.0)
    P = (V * w[..., None, :]) @ np.swapaxes(V, -1, -2)
    return 0.5 * (P + np.swapaxes(P, -1, -2))


def psd_shift(theta: np.ndarray) -> tuple[np.ndarray, float]:
    """(Φ_c + tI for every block, t) with t = max(0, −min over blocks of λ_min(Φ_c)).

    Post-processing of released matrices: zᵀ(Φ_c + tI)z = zᵀΦ_c z + t||z||² for
    every class, so argmin_c (every prediction) is unchanged, and every block is
    PSD (docs/privacy/large_margin_softmax.md#privacy-softmax-psd-shift).

    Examples
    --------
    >>> from dpconvex.templates.parameterizations import psd_shift
    >>> shifted, t = psd_shift(np.array([[[1.0, 0.0], [0.0, -2.0]]]))
    >>> t
    2.0
    >>> shifted[0]
    array([[3., 0.],
           [0., 0.]])
    """
    S = 0.5 * (theta + np.swapaxes(theta, -1, -2))
    lam_min = float(np.min(np.linalg.eigvalsh(S)))
    t = max(0.0, -lam_min)
    if t > 0.0:
        S = S + t * np.eye(S.shape[-1])
    return S, t


def max_row_norm(Z: np.ndarray) -> float:
    """max_i ||z_i|| (per chunk for a :class:`~dpconvex.data.dask_gram.DaskGram`).

    For the template's record-norm *check* only; never a calibration input.

    Examples
    --------
    >>> from dpconvex.templates.parameterizations import max_row_norm
    >>> max_row_norm(np.array([[3.0, 4.0], [0.0, 1.0]]))
    5.0
    """
    if not isinstance(Z, np.ndarray):
        return float(Z.max_row_norm())
    return float(np.max(np.linalg.norm(Z, axis=1))) if Z.shape[0] else 0.0


def gram_operator_norm(
    Z: np.ndarray, *, n_iter: int = 100, rtol: float = 1e-6, seed: int = 0
) -> float:
    """Largest eigenvalue of M: V ↦ (1/n) Σ_i ⟨z_i z_iᵀ, V⟩ z_i z_iᵀ on symmetric matrices.

    Power iteration from a fixed, data-independent start, inflated by 1 % (it approaches
    λ_max from below); only the solver's first Lipschitz estimate, never released.

    Examples
    --------
    >>> from dpconvex.templates.parameterizations import gram_operator_norm
    >>> Z = np.eye(3)
    >>> round(gram_operator_norm(Z), 4)
    0.3367
    """
    n, D = Z.shape
    V = np.random.default_rng(seed).standard_normal((D, D))
    V = V + V.T
    V /= np.linalg.norm(V)
    lam = 0.0
    for _ in range(n_iter):
        if not isinstance(Z, np.ndarray):  # records on Dask workers: one pass (data/dask_gram)
            MV = Z.normal_apply(V)
        else:
            a = np.einsum("ij,ij->i", Z @ V, Z)
            MV = weighted_gram(Z, a[:, None] / n)[0]
        new = float(np.linalg.norm(MV))
        if new == 0.0:
            return 0.0
        V = MV / new
        if abs(new - lam) <= rtol * new:
            lam = new
            break
        lam = new
    return 1.01 * lam


@runtime_checkable
class QuadraticParameterization(Protocol):
    """What a form of the large-margin matrices provides to templates, solvers and mechanisms.

    The scores a_ij = z_iᵀ Φ_j z_i (or ⟨Θ_j, u(z_i)⟩, ||u|| <= 1) are linear in the
    parameters, so an objective reads the records only through :meth:`forms` (n, J) and
    :meth:`adjoint`. Solvers work in ``shape``; mechanisms draw noise of shape ``blocks``
    (symmetric per block if ``symmetric``), mapped by :meth:`project_noise`; ``dimension``
    is p; :meth:`project` is the Euclidean projection, :meth:`postprocess` the release's
    post-processing and :meth:`gram_operator_norm` the solvers' first λ_max (never released).

    Examples
    --------
    >>> from dpconvex.templates import FullPSD
    >>> from dpconvex.templates.parameterizations import QuadraticParameterization, SymmetricShift
    >>> isinstance(FullPSD(2, 1, 3), QuadraticParameterization)
    True
    >>> isinstance(SymmetricShift(2, 1, 3), QuadraticParameterization)
    True
    """

    shape: tuple[int, ...]
    blocks: tuple[int, ...]
    dimension: int
    symmetric: bool
    name: str

    def project(self, theta: np.ndarray) -> np.ndarray: ...

    def postprocess(self, theta: np.ndarray) -> np.ndarray: ...

    def project_noise(self, b: np.ndarray) -> np.ndarray: ...

    def forms(self, Z: Any, Phi: np.ndarray) -> np.ndarray: ...

    def adjoint(self, Z: Any, W: np.ndarray) -> np.ndarray: ...

    def gram_operator_norm(self, Z: Any) -> float: ...


@runtime_checkable
class BlockParameterization(QuadraticParameterization, Protocol):
    """A :class:`QuadraticParameterization` with C·K symmetric D × D blocks and a CVXPY form.

    Adds what the pairwise template reads: the trace of Ψ (top-left d × d) and its gradient,
    a CVXPY variable ``Phi[c][m]`` and symmetric noise parameter ``B[c][m]`` per block, and
    rows a_i with a_iᵀ ``cvxpy_hvec(P)`` = z_iᵀ P z_i (``cvxpy_hvec_weighted(P)`` has squared
    norm ||P||²_F). ``blocks`` is ``(C, K, D, D)``; ``shape`` may differ (e.g. flat).

    Examples
    --------
    >>> from dpconvex.templates import FullPSD
    >>> from dpconvex.templates.parameterizations import BlockParameterization
    >>> par = FullPSD(2, 1, 3)
    >>> isinstance(par, BlockParameterization), len(par.cvxpy_variables())
    (True, 2)
    """

    C: int
    K: int
    D: int
    J: int

    def psi_trace(self, Phi: np.ndarray, d: int) -> float: ...

    def add_psi_trace_grad(self, grad: np.ndarray, d: int, weight: float) -> None: ...

    def cvxpy_variables(self) -> list[list[cp.Variable]]: ...

    def cvxpy_noise(self) -> list[list[cp.Parameter]]: ...

    def cvxpy_form_rows(self, Z: np.ndarray) -> np.ndarray: ...

    def cvxpy_hvec(self, P: cp.Variable) -> cp.Expression: ...

    def cvxpy_hvec_weighted(self, P: cp.Variable) -> cp.Expression: ...

    def cvxpy_psi_trace(self, P: cp.Variable, d: int) -> cp.Expression: ...

    def cvxpy_value(self, Phi: list[list[cp.Variable]]) -> np.ndarray | None: ...


class FullPSD:
    """One symmetric PSD D × D block Φ_{c,m} per class c and component m (D = d + 1).

    ``shape`` = ``blocks`` = (C, K, D, D); p = C·K·D(D + 1)/2 (the symmetric subspace,
    where the noise is drawn).

    Examples
    --------
    >>> from dpconvex.templates import FullPSD
    >>> par = FullPSD(n_classes=2, n_components=1, D=3)
    >>> par.shape
    (2, 1, 3, 3)
    >>> theta = par.project(-np.ones(par.shape))
    >>> bool(np.all(np.linalg.eigvalsh(theta[0, 0]) >= -1e-12))
    True
    """

    symmetric = True
    name = "full PSD"

    def __init__(self, n_classes: int, n_components: int, D: int):
        self.C, self.K, self.D = int(n_classes), int(n_components), int(D)
        self.J = self.C * self.K
        self.shape: tuple[int, ...] = (self.C, self.K, self.D, self.D)
        self.blocks: tuple[int, ...] = self.shape
        self.dimension = self.J * self.D * (self.D + 1) // 2

    # ---------------------------------------------------------------- the set
    @staticmethod
    def project(theta: np.ndarray) -> np.ndarray:
        """Frobenius projection of every block onto the PSD cone (:func:`project_psd`)."""
        return project_psd(theta)

    @staticmethod
    def postprocess(theta: np.ndarray) -> np.ndarray:
        """Released matrices are projected onto the PSD cone (free post-processing)."""
        return project_psd(theta)

    def project_noise(self, b: np.ndarray) -> np.ndarray:
        """Noise of shape (C, K, D, D) projected onto the symmetric subspace, (b + bᵀ)/2."""
        b = np.asarray(b, dtype=float).reshape(self.shape)
        return 0.5 * (b + np.swapaxes(b, -1, -2))

    # ------------------------------------------------------------ linear maps
    def forms(self, Z: np.ndarray, Phi: np.ndarray) -> np.ndarray:
        """z_iᵀ Φ_j z_i for all rows, shape (n, J) with j = c·K + m (per chunk for a
        :class:`~dpconvex.data.dask_gram.DaskGram`)."""
        if not isinstance(Z, np.ndarray):
            return Z.forms(Phi.reshape(self.J, self.D, self.D))
        return quadratic_forms(Z, Phi.reshape(self.J, self.D, self.D))

    def adjoint(self, Z: np.ndarray, W: np.ndarray) -> np.ndarray:
        """Σ_i W[i, j] z_i z_iᵀ (the gradient of Σ_ij W_ij z_iᵀΦ_j z_i), shape (C, K, D, D)."""
        if not isinstance(Z, np.ndarray):  # a DaskGram: per-chunk Grams, tree-summed
            return Z.weighted_gram(W).reshape(self.shape)
        return weighted_gram(Z, W).reshape(self.shape)

    def gram_operator_norm(self, Z: np.ndarray) -> float:
        """λ_max of the forms' normal operator (1/n) Σ ⟨z zᵀ, ·⟩ z zᵀ (power iteration)."""
        return gram_operator_norm(Z)

    # ------------------------------------------------------ the trace of Ψ
    @staticmethod
    def psi_trace(Phi: np.ndarray, d: int) -> float:
        """Σ_{c,m} tr(Ψ_{c,m}), Ψ the top-left d × d block."""
        return float(np.sum(np.trace(Phi[..., :d, :d], axis1=-2, axis2=-1)))

    @staticmethod
    def add_psi_trace_grad(grad: np.ndarray, d: int, weight: float) -> None:
        """grad += weight · ∇ Σ tr(Ψ) (in place)."""
        idx = np.arange(d)
        grad[..., idx, idx] += weight

    # ----------------------------------------------------------------- CVXPY
    def cvxpy_variables(self) -> list[list[cp.Variable]]:
        """Phi[c][m]: a PSD (D, D) variable per block."""
        D = self.D
        return [[cp.Variable((D, D), PSD=True, name=f"Phi_{c}_{m}") for m in range(self.K)]
                for c in range(self.C)]

    def cvxpy_noise(self) -> list[list[cp.Parameter]]:
        """B[c][m]: a symmetric (D, D) noise parameter per block (2-D: see CVXPY_NOTES)."""
        D = self.D
        return [[cp.Parameter((D, D), symmetric=True, value=np.zeros((D, D)), name=f"b_{c}_{m}")
                 for m in range(self.K)] for c in range(self.C)]

    def cvxpy_form_rows(self, Z: np.ndarray) -> np.ndarray:
        """Rows a_i with a_iᵀ hvec(P) = z_iᵀ P z_i (half-vectorization, see :meth:`cvxpy_hvec`)."""
        iu0, iu1 = np.triu_indices(self.D, 1)
        # zᵀΦz = Σ_j z_j² Φ_jj + Σ_{j<k} 2 z_j z_k Φ_jk
        return np.hstack([Z * Z, 2.0 * Z[:, iu0] * Z[:, iu1]])

    @staticmethod
    def cvxpy_hvec(P: cp.Variable) -> cp.Expression:
        """[diag(P); upper triangle of P]: the coordinates the form rows act on."""
        return cp.hstack([cp.diag(P), cp.vec(cp.upper_tri(P), order="F")])

    @staticmethod
    def cvxpy_hvec_weighted(P: cp.Variable) -> cp.Expression:
        """[diag(P); √2 · upper triangle]: its squared norm is ||P||²_F."""
        return cp.hstack([cp.diag(P), math.sqrt(2.0) * cp.vec(cp.upper_tri(P), order="F")])

    @staticmethod
    def cvxpy_psi_trace(P: cp.Variable, d: int) -> cp.Expression:
        """tr(Ψ): the sum of the first d diagonal entries."""
        return cp.sum(cp.diag(P)[:d])

    def cvxpy_value(self, Phi: list[list[cp.Variable]]) -> np.ndarray | None:
        """The variables' values as an array (C, K, D, D), None if any is missing."""
        vals = [[P.value for P in row] for row in Phi]
        if any(v is None for row in vals for v in row):
            return None
        return np.array(vals, dtype=float)

    def __repr__(self) -> str:
        return f"FullPSD(C={self.C}, K={self.K}, D={self.D})"


class SymmetricShift(FullPSD):
    """Symmetric D × D blocks, unconstrained, stored flat; released with the common PSD shift.

    As :class:`FullPSD`, stored flat (``shape`` C·K·D², what L-BFGS / Newton works in).
    ``project`` and ``project_noise`` symmetrize each block (i.i.d. N(0, σ²) entries become
    N(0, σ² I_p) in the orthonormal basis {E_ii, (E_ij + E_ji)/√2}); ``postprocess`` is
    :func:`psd_shift`; the CVXPY variables are symmetric, without a PSD constraint.

    Examples
    --------
    >>> from dpconvex.templates.parameterizations import SymmetricShift
    >>> par = SymmetricShift(n_classes=2, n_components=1, D=3)
    >>> theta = par.project(np.random.default_rng(0).normal(size=par.shape))
    >>> released = par.postprocess(theta)
    >>> released.shape, bool(np.linalg.eigvalsh(released.reshape(2, 1, 3, 3)[0, 0]).min() >= -1e-9)
    ((2, 1, 3, 3), True)
    """

    name = "symmetric, PSD by a common shift"
    _caches = ("_csr_cache",)  # the rows' sparse form, built at first use

    def __init__(self, n_classes: int, n_components: int, D: int):
        super().__init__(n_classes, n_components, D)
        self.blocks = self.shape
        self.shape = (self.J * self.D * self.D,)

    def _sym(self, theta: np.ndarray) -> np.ndarray:
        B = np.asarray(theta, dtype=float).reshape(self.blocks)
        return 0.5 * (B + np.swapaxes(B, -1, -2))

    def project(self, theta: np.ndarray) -> np.ndarray:
        """The projection onto the symmetric blocks (the feasible set is all of it), flat."""
        return self._sym(theta).reshape(np.shape(theta))

    def project_noise(self, b: np.ndarray) -> np.ndarray:
        """(B + Bᵀ)/2 per block, returned flat (``shape``)."""
        return self._sym(b).reshape(self.shape)

    def postprocess(self, theta: np.ndarray) -> np.ndarray:
        """The common shift Φ_c + tI (:func:`psd_shift`) as (C, K, D, D) blocks."""
        return psd_shift(self._sym(theta))[0]

    def _csr(self, Z: np.ndarray) -> Any:
        """A CSR copy of mostly-zero in-memory rows (e.g. one-hot columns), cached per Z."""
        cached = getattr(self, "_csr_cache", None)
        if cached is not None and cached[0] is Z:
            return cached[1]
        csr = None
        if Z.size and np.count_nonzero(Z) <= _SPARSE_FRACTION * Z.size:
            csr = sparse.csr_matrix(Z)
        self._csr_cache = (Z, csr)
        return csr

    def forms(self, Z: Any, Phi: np.ndarray) -> np.ndarray:
        """z_iᵀΦ_j z_i, shape (n, J): one matrix product over all blocks for in-memory rows."""
        P = np.asarray(Phi, dtype=float).reshape(self.J, self.D, self.D)
        if not isinstance(Z, np.ndarray):  # a design operator: the parameterization's own path
            return super().forms(Z, P)
        Zs = self._csr(Z)
        ZP = ((Z if Zs is None else Zs) @ P.transpose(1, 0, 2).reshape(self.D, self.J * self.D))
        return np.einsum("ijk,ik->ij", np.asarray(ZP).reshape(Z.shape[0], self.J, self.D), Z)

    def adjoint(self, Z: Any, W: np.ndarray) -> np.ndarray:
        """Σ_i W[i, j] z_i z_iᵀ, flat (``shape``): one matrix product for in-memory rows."""
        if not isinstance(Z, np.ndarray):
            return super().adjoint(Z, W)
        n = Z.shape[0]
        Zs = self._csr(Z)
        if Zs is None:
            G = Z.T @ (W[:, :, None] * Z[:, None, :]).reshape(n, self.J * self.D)
            G = G.reshape(self.D, self.J, self.D).transpose(1, 0, 2)
        else:  # Zᵀ diag(W_j) Z on the stored entries only
            G = np.stack(
                [(Zs.T @ Zs.multiply(W[:, j : j + 1]).tocsr()).toarray() for j in range(self.J)]
            )
        return (0.5 * (G + np.swapaxes(G, -1, -2))).reshape(self.shape)

    def psi_trace(self, Phi: np.ndarray, d: int) -> float:
        """Σ_{c,m} tr(Ψ_{c,m}) of a flat iterate (read through the (C, K, D, D) view)."""
        return FullPSD.psi_trace(np.reshape(Phi, self.blocks), d)

    def add_psi_trace_grad(self, grad: np.ndarray, d: int, weight: float) -> None:
        """grad += weight · ∇ Σ tr(Ψ) in place on a flat gradient (its Ψ diagonal entries)."""
        diag = np.arange(d) * (self.D + 1)  # (i, i) of one D × D block, row-major
        grad.flat[(np.arange(self.J)[:, None] * self.D * self.D + diag).ravel()] += weight

    def cvxpy_variables(self) -> list[list[cp.Variable]]:
        """Phi[c][m]: a symmetric (D, D) variable per block (no PSD constraint)."""
        D = self.D
        return [[cp.Variable((D, D), symmetric=True, name=f"Phi_{c}_{m}")
                 for m in range(self.K)] for c in range(self.C)]

    def cvxpy_value(self, Phi: list[list[cp.Variable]]) -> np.ndarray | None:
        """The variables' values as a flat iterate (``shape``), None if any is missing."""
        vals = super().cvxpy_value(Phi)
        return None if vals is None else vals.reshape(self.shape)

    def __repr__(self) -> str:
        return f"SymmetricShift(C={self.C}, K={self.K}, D={self.D})"


#: Every form of Φ, by name; each is built as ``cls(n_classes, n_components, D)`` and is a
#: :class:`BlockParameterization` (the ``parameterization=`` of the large-margin templates).
PARAMETERIZATIONS: dict[str, type[BlockParameterization]] = {
    "full_psd": FullPSD,
    "symmetric_shift": SymmetricShift,
}
