"""Native solver for smooth, strongly convex objectives over products of PSD cones.

Minimizes J(Φ) over Φ = (Φ_1, ..., Φ_J), each Φ_j a symmetric D × D matrix with
Φ_j ⪰ 0, where J is smooth (Lipschitz gradient) and μ-strongly convex. This is
the shape of the large-margin Gaussian classifier of Sha & Saul and of its
private versions by Pathak & Raj (J = C·K blocks, one per class and component).

Method: accelerated projected gradient (Nesterov's constant-momentum scheme for
strongly convex objectives, momentum (√L − √μ)/(√L + √μ)) with backtracking on
L (so a user-supplied term with an unknown Lipschitz constant is safe), a
function-value restart, and the Euclidean projection onto the PSD cone by an
eigendecomposition per block (:func:`project_psd`).

Optimality residual (the same definition is applied to every backend's
solution, see :mod:`dpconvex.templates.large_margin`): the *natural residual*
of the variational inequality 0 ∈ ∇J(Φ) + N_PSD(Φ),

    res(Φ) = ||Φ − Π_PSD(Φ − ∇J(Φ))||_F,

the gradient mapping with unit step. It is zero exactly at the constrained
minimizer; it equals ||∇J(Φ)||_F at a point whose blocks are positive definite
and whose gradient step stays in the cone (the residual of the unconstrained
templates); it does not depend on a solver's internal step size; and for a
μ-strongly convex, L-smooth J, ||Φ − Φ*||_F <= (1 + L)/μ · res(Φ).

Helpers for the large-margin objective keep memory at O(n·D + J·D²): the
quadratic forms z_iᵀ Φ_j z_i for all rows are computed block by block with one
matrix product each (:func:`quadratic_forms`) and the weighted sums
Σ_i w_ij z_i z_iᵀ with one product each (:func:`weighted_gram`); no n × D²
matrix is ever formed.

References
----------
.. [N] Y. Nesterov. Introductory Lectures on Convex Optimization, 2004, §2.2
   (constant-step scheme III for strongly convex functions) and Lectures on
   Convex Optimization (2018), §2.2.4 (gradient mapping).
.. [BT] A. Beck, M. Teboulle. A Fast Iterative Shrinkage-Thresholding Algorithm
   for Linear Inverse Problems. SIAM J. Imaging Sci. 2(1), 2009 (backtracking).
.. [OC] B. O'Donoghue, E. Candès. Adaptive Restart for Accelerated Gradient
   Schemes. Found. Comput. Math. 15, 2015.
.. [PR12] M. A. Pathak, B. Raj. Large Margin Gaussian Mixture Models with
   Differential Privacy. IEEE TDSC 9(4), 2012, eq. 11.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import numpy as np

from ._threads import single_threaded
from .base import SolveResult, SolveStatus

__all__ = [
    "accelerated_projected_gradient",
    "gram_operator_norm",
    "natural_residual",
    "project_psd",
    "quadratic_forms",
    "weighted_gram",
]

FunGrad = Callable[[np.ndarray], tuple[float, np.ndarray]]

#: weighted_gram gathers the rows with a nonzero weight first when they are fewer
#: than this fraction of all rows.
_GATHER_FRACTION = 0.3


def project_psd(X: np.ndarray) -> np.ndarray:
    """Euclidean (Frobenius) projection of each symmetric block onto the PSD cone.

    Parameters
    ----------
    X : ndarray of shape (..., D, D)
        Blocks; each is symmetrized as (X + Xᵀ)/2 first (the projection of a
        square matrix onto the symmetric subspace).

    Returns
    -------
    ndarray of the same shape, every block symmetric with eigenvalues >= 0:
    V max(Λ, 0) Vᵀ with X = V Λ Vᵀ (``numpy.linalg.eigh``, one call over all
    blocks).
    """
    S = 0.5 * (X + np.swapaxes(X, -1, -2))
    w, V = np.linalg.eigh(S)
    if np.all(w >= 0):
        return S
    w = np.maximum(w, 0.0)
    P = (V * w[..., None, :]) @ np.swapaxes(V, -1, -2)
    return 0.5 * (P + np.swapaxes(P, -1, -2))


def natural_residual(Phi: np.ndarray, grad: np.ndarray) -> float:
    """||Φ − Π_PSD(Φ − ∇J(Φ))||_F over all blocks (the residual used everywhere).

    Parameters
    ----------
    Phi : ndarray of shape (..., D, D)
        A point (blocks symmetric).
    grad : ndarray of the same shape
        ∇J(Φ) in the Frobenius inner product.
    """
    return float(np.linalg.norm(Phi - project_psd(Phi - grad)))


def quadratic_forms(Z: np.ndarray, Phi: np.ndarray) -> np.ndarray:
    """z_iᵀ Φ_j z_i for every row i and block j.

    Parameters
    ----------
    Z : ndarray of shape (n, D)
    Phi : ndarray of shape (J, D, D)

    Returns
    -------
    ndarray of shape (n, J). Memory O(n·D) beyond the output (one block at a time).
    """
    out = np.empty((Z.shape[0], Phi.shape[0]))
    for j in range(Phi.shape[0]):
        out[:, j] = np.einsum("ij,ij->i", Z @ Phi[j], Z)
    return out


def weighted_gram(Z: np.ndarray, W: np.ndarray) -> np.ndarray:
    """Σ_i W[i, j] z_i z_iᵀ for every block j.

    Parameters
    ----------
    Z : ndarray of shape (n, D)
    W : ndarray of shape (n, J)

    Returns
    -------
    ndarray of shape (J, D, D), symmetric blocks. Memory O(n·D) beyond the output.
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


def gram_operator_norm(Z: np.ndarray, *, n_iter: int = 100, rtol: float = 1e-6,
                       seed: int = 0) -> float:
    """Largest eigenvalue of M: V ↦ (1/n) Σ_i ⟨z_i z_iᵀ, V⟩ z_i z_iᵀ on symmetric matrices.

    Power iteration (from a fixed, data-independent start); the result is
    inflated by 1 % because power iteration approaches λ_max from below. Used
    only to initialise the solver's Lipschitz estimate (backtracking corrects
    it); it is never released. λ_max(M) <= max_i ||z_i||⁴.
    """
    n, D = Z.shape
    V = np.random.default_rng(seed).standard_normal((D, D))
    V = V + V.T
    V /= np.linalg.norm(V)
    lam = 0.0
    for _ in range(n_iter):
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


def accelerated_projected_gradient(
    fun_grad: FunGrad,
    x0: np.ndarray,
    *,
    mu: float,
    L0: float,
    tol: float = 1e-9,
    max_iter: int = 20_000,
    max_seconds: float = math.inf,
) -> SolveResult:
    """Minimize a μ-strongly convex, smooth J over a product of PSD cones.

    Parameters
    ----------
    fun_grad : callable
        Φ -> (J(Φ), ∇J(Φ)), Φ of shape (..., D, D) with symmetric blocks.
    x0 : ndarray of shape (..., D, D)
        Starting point (projected onto the cone first; a warm start).
    mu : float
        Strong-convexity modulus μ >= 0 (μ = 0 gives plain FISTA momentum).
    L0 : float
        Initial estimate of the Lipschitz constant of ∇J; doubled whenever the
        sufficient-decrease test fails (backtracking), never decreased.
    tol : float
        Stop when the natural residual ||Φ − Π(Φ − ∇J(Φ))||_F <= tol.
    max_iter : int
    max_seconds : float
        Wall-clock limit; the result then has status ``MAX_ITERATIONS``.

    Returns
    -------
    SolveResult
        ``x`` the last iterate (PSD), ``residual`` its natural residual,
        ``iterations`` the number of accelerated steps; status OPTIMAL when
        residual <= tol, MAX_ITERATIONS otherwise, FAILED on non-finite values.
    """
    # Small eigendecompositions and n x D products gain nothing from BLAS threads, and
    # multithreaded OpenBLAS was measured 25x slower on 2 cores (threads spinning
    # between calls): run single-threaded.
    with single_threaded("blas"):
        return _apg(fun_grad, x0, mu=mu, L0=L0, tol=tol, max_iter=max_iter,
                    max_seconds=max_seconds)


def _apg(fun_grad: FunGrad, x0: np.ndarray, *, mu: float, L0: float, tol: float,
         max_iter: int, max_seconds: float) -> SolveResult:
    t0 = time.perf_counter()
    L = float(max(L0, mu, 1e-12))
    x = project_psd(np.asarray(x0, dtype=float))
    fx, gx = fun_grad(x)
    res = natural_residual(x, gx)
    y, fy, gy = x, fx, gx
    t_fista = 1.0
    n_backtrack = 0
    n_restart = 0
    it = 0
    status = SolveStatus.MAX_ITERATIONS
    while True:
        if not (math.isfinite(fx) and math.isfinite(res)):
            status = SolveStatus.FAILED
            break
        if res <= tol:
            status = SolveStatus.OPTIMAL
            break
        if it >= max_iter or time.perf_counter() - t0 > max_seconds:
            break
        it += 1
        # projected gradient step from y, with backtracking on L
        while True:
            xn = project_psd(y - gy / L)
            fn, gn = fun_grad(xn)
            d = xn - y
            bound = fy + float(np.vdot(gy, d)) + 0.5 * L * float(np.vdot(d, d))
            if fn <= bound + 1e-13 * max(1.0, abs(fy)) or not math.isfinite(fn):
                break
            L *= 2.0
            n_backtrack += 1
        if not math.isfinite(fn):
            status = SolveStatus.FAILED
            x, fx = xn, fn
            break
        # momentum (constant for strongly convex, FISTA sequence if mu == 0)
        if mu > 0:
            q = math.sqrt(mu / L)
            beta = (1.0 - q) / (1.0 + q)
        else:
            t_next = 0.5 * (1.0 + math.sqrt(1.0 + 4.0 * t_fista * t_fista))
            beta = (t_fista - 1.0) / t_next
            t_fista = t_next
        if fn > fx:  # function-value restart [OC]
            n_restart += 1
            t_fista = 1.0
            y = xn
            fy, gy = fn, gn
        else:
            y = xn + beta * (xn - x)
            fy, gy = fun_grad(y)
        x, fx, gx = xn, fn, gn
        res = natural_residual(x, gx)
    return SolveResult(
        x=x, status=status, objective=float(fx), residual=float(res), solver="native",
        iterations=it, seconds=time.perf_counter() - t0,
        info={"method": "accelerated projected gradient (PSD projection by eigh)",
              "lipschitz_estimate": L, "mu": mu, "backtracks": n_backtrack,
              "restarts": n_restart, "residual_definition": "||Phi - P_psd(Phi - grad)||_F"},
    )
