"""Data-independent matrix terms R(Φ) of the large-margin objective, and their probe
(docs/privacy/large_margin.md#privacy-large-margin)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cvxpy as cp
import numpy as np

from .._validation import check_float
from ..errors import PrivacyError
from ..privacy.certificate import Condition

__all__ = ["MatrixTerm", "probe_term", "psi_frobenius"]


@dataclass(frozen=True)
class MatrixTerm:
    """A user-supplied convex, differentiable, data-independent term R(Φ).

    It may read only Φ (never the data): its gradient then cancels in the
    replace-one difference and the sensitivity is unchanged, and its Hessian
    (PSD, by convexity) only adds to the Jacobian's strong-convexity floor. It is
    given no credit in the strong-convexity modulus (μ stays 2λ), so a term that
    happens to be strongly convex is used conservatively.

    Parameters
    ----------
    name : str
    cvxpy_fn : callable
        ``Phi -> cvxpy.Expression``, with ``Phi[c][m]`` the CVXPY variable of
        block (c, m); must be DCP-convex (checked by the verifier).
    value_fn : callable
        ``Phi -> float`` for a NumPy array of shape (C, K, D, D).
    grad_fn : callable
        ``Phi -> ndarray (C, K, D, D)``, the gradient in the Frobenius inner
        product (symmetric blocks). Checked against finite differences of
        ``value_fn`` by the verifier; the objective-perturbation proof needs R
        differentiable (a nonsmooth term such as a nuclear norm breaks the
        bijection between noise and minimizer).

    Examples
    --------
    >>> import cvxpy as cp
    >>> from dpconvex.objectives import MatrixTerm
    >>> term = MatrixTerm("sum of squares",
    ...                   cvxpy_fn=lambda Phi: sum(cp.sum_squares(P) for row in Phi for P in row),
    ...                   value_fn=lambda theta: float(np.sum(theta ** 2)),
    ...                   grad_fn=lambda theta: 2.0 * theta)
    >>> term.name, term.value_fn(np.ones((1, 1, 2, 2)))
    ('sum of squares', 4.0)
    """

    name: str
    cvxpy_fn: Callable[[list[list[cp.Variable]]], cp.Expression]
    value_fn: Callable[[np.ndarray], float]
    grad_fn: Callable[[np.ndarray], np.ndarray]


def psi_frobenius(weight: float, d: int) -> MatrixTerm:
    """weight · Σ_{c,m} ||Ψ_{c,m}||²_F (extra shrinkage of the d × d precision block).

    An example :class:`MatrixTerm`: convex, smooth, data-independent.

    Examples
    --------
    >>> from dpconvex.objectives import psi_frobenius
    >>> term = psi_frobenius(0.1, d=2)
    >>> term.name
    'psi_frobenius(0.1)'
    >>> round(term.value_fn(np.ones((2, 1, 3, 3))), 4)
    0.8
    """
    weight = check_float("weight", weight, "psi_frobenius", low_inclusive=True)

    def cvx(Phi: list[list[cp.Variable]]) -> cp.Expression:
        return weight * sum(cp.sum_squares(P[:d, :d]) for row in Phi for P in row)

    def value(Phi: np.ndarray) -> float:
        return weight * float(np.sum(Phi[..., :d, :d] ** 2))

    def grad(Phi: np.ndarray) -> np.ndarray:
        g = np.zeros_like(Phi)
        g[..., :d, :d] = 2.0 * weight * Phi[..., :d, :d]
        return g

    return MatrixTerm(f"psi_frobenius({weight:g})", cvx, value, grad)


def probe_term(t: MatrixTerm, shape: tuple[int, ...]) -> Condition:
    """Check ``t.grad_fn`` against central finite differences of ``t.value_fn``.

    Probe points are public and data-independent (PSD blocks of shape
    ``shape`` = (C, K, D, D), seeded); raises :class:`PrivacyError` when the
    gradient has the wrong shape or disagrees (relative error > 1e-4).

    Examples
    --------
    >>> from dpconvex.objectives import probe_term, psi_frobenius
    >>> cond = probe_term(psi_frobenius(0.1, d=2), shape=(2, 1, 3, 3))
    >>> cond.holds, cond.how
    (True, 'numerical probe')
    """
    rng = np.random.default_rng(12345)  # public, data-independent probe points
    D = shape[-1]
    worst = 0.0
    for _ in range(5):
        A = rng.standard_normal(shape)
        A = A @ np.swapaxes(A, -1, -2) / D
        V = rng.standard_normal(shape)
        V = V + np.swapaxes(V, -1, -2)
        V /= np.linalg.norm(V)
        g = np.asarray(t.grad_fn(A), dtype=float)
        if g.shape != shape:
            raise PrivacyError(
                f"probe_term: extra term '{t.name}': grad_fn returned shape {g.shape}, expected "
                f"{shape}; grad_fn must return an array of the shape of its argument.")
        hstep = 1e-5 * max(1.0, float(np.linalg.norm(A)))
        fd = (t.value_fn(A + hstep * V) - t.value_fn(A - hstep * V)) / (2 * hstep)
        err = abs(fd - float(np.vdot(g, V)))
        scale = max(1.0, abs(fd), float(np.linalg.norm(g)))
        worst = max(worst, err / scale)
    if worst > 1e-4:
        raise PrivacyError(
            f"probe_term: extra term '{t.name}': grad_fn disagrees with finite differences of value_fn "
            f"(relative error {worst:.3g}). The proof needs a differentiable term with its "
            "true gradient; fix grad_fn (or the term is not differentiable)."
        )
    return Condition(f"extra term '{t.name}'", True, "numerical probe",
                     f"gradient matches finite differences (rel. err {worst:.2g}); "
                     "data-independent; no strong-convexity credit")
