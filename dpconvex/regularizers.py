"""Regularizers: CVXPY expression, NumPy value and gradient, strong-convexity modulus.

References
----------
.. [CMS] Chaudhuri, Monteleoni, Sarwate, JMLR 2011: N(f) = (1/2)||f||^2 is
   1-strongly convex, so Λ N(f) is Λ-strongly convex (Alg. 1-2).
"""

from __future__ import annotations

from typing import ClassVar

import cvxpy as cp
import numpy as np

from ._validation import check_float

__all__ = ["L2", "REGULARIZERS", "Regularizer"]


class Regularizer:
    """Base class. ``strong_convexity`` is the modulus μ of the term (in ||.||_2)."""

    name: ClassVar[str] = "regularizer"
    strong_convexity: float = 0.0

    def value(self, w: np.ndarray) -> float:
        raise NotImplementedError

    def grad(self, w: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def hess_scale(self) -> float:
        """Hessian = hess_scale() * I for quadratic regularizers."""
        raise NotImplementedError

    def cvxpy_expr(self, w: cp.Expression) -> cp.Expression:
        raise NotImplementedError


class L2(Regularizer):
    """(lam / 2) ||w||^2, lam-strongly convex."""

    name = "l2"

    def __init__(self, lam: float):
        self.lam = check_float("lam", lam, "L2", low=0.0, low_inclusive=True)

    @property
    def strong_convexity(self) -> float:  # type: ignore[override]
        return self.lam

    def value(self, w):
        return 0.5 * self.lam * float(np.dot(w, w))

    def grad(self, w):
        return self.lam * np.asarray(w)

    def hess_scale(self):
        return self.lam

    def cvxpy_expr(self, w):
        return 0.5 * self.lam * cp.sum_squares(w)

    def __repr__(self) -> str:
        return f"L2(lam={self.lam!r})"


#: Registry of regularizers by name.
REGULARIZERS: dict[str, type[Regularizer]] = {L2.name: L2}
