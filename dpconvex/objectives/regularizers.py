"""Regularizers: the one source of a template's strong-convexity modulus μ.

Each regularizer gives its CVXPY expression, NumPy value and gradient, and the
modulus μ of the term. A template reads μ from its regularizer only
(``template.regularizer.strong_convexity``); its privacy constants declare that
μ, and the solvers use it as the strong-convexity modulus of the objective.

``lam`` means the weight written in front of the term, so μ depends on the
term's form:

* :class:`L2` ``(lam / 2) ||w||²`` (linear ERM, [CMS]_): μ = lam;
* :class:`Frobenius` ``(lam / 2) Σ ||Φ||²_F`` (large-margin Gaussian classifier,
  [PR12]_ eq. 11 with its λ = lam / 2): μ = lam.

References
----------
.. [CMS] Chaudhuri, Monteleoni, Sarwate, JMLR 2011: N(f) = (1/2)||f||^2 is
   1-strongly convex, so Λ N(f) is Λ-strongly convex (Alg. 1-2).
.. [PR12] M. A. Pathak, B. Raj. Large Margin Gaussian Mixture Models with
   Differential Privacy. IEEE TDSC 9(4), 2012, eq. 11.
"""

from __future__ import annotations

from typing import ClassVar

import cvxpy as cp
import numpy as np

from .._validation import check_float

__all__ = ["L2", "REGULARIZERS", "Frobenius", "Regularizer"]


class Regularizer:
    """Base class. ``strong_convexity`` is the modulus μ of the term (in ||.||_2 / ||.||_F).

    Examples
    --------
    >>> from dpconvex.objectives import L2, Regularizer
    >>> reg = L2(0.1)
    >>> isinstance(reg, Regularizer), reg.strong_convexity
    (True, 0.1)
    """

    name: ClassVar[str] = "regularizer"
    #: Where dpconvex derives this class's modulus (set by the regularizers dpconvex ships,
    #: for their own class only; :func:`~dpconvex.privacy.checks.shipped_derivation`).
    derivation: ClassVar[str] = ""
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


class _Quadratic(Regularizer):
    """A multiple of the squared norm, lam-strongly convex (μ = lam): Hessian lam·I."""

    def __init__(self, lam: float):
        self.lam = check_float("lam", lam, type(self).__name__, low=0.0, low_inclusive=True)

    @property
    def strong_convexity(self) -> float:  # type: ignore[override]
        return self.lam

    def grad(self, w: np.ndarray) -> np.ndarray:
        return self.lam * np.asarray(w)

    def hess_scale(self) -> float:
        return self.lam

    def __repr__(self) -> str:
        return f"{type(self).__name__}(lam={self.lam!r})"


class L2(_Quadratic):
    """(lam / 2) ||w||^2, lam-strongly convex (μ = lam); ``w`` of any shape (||.||_F for a matrix).

    Examples
    --------
    >>> from dpconvex.objectives import L2
    >>> reg = L2(0.5)
    >>> reg.value(np.array([1.0, 1.0])), reg.grad(np.array([1.0, 1.0])), reg.strong_convexity
    (0.5, array([0.5, 0.5]), 0.5)
    >>> reg.value(np.ones((2, 3)))   # a matrix parameter: (lam / 2) ||W||_F^2
    1.5
    """

    name = "l2"
    derivation = "docs/privacy/perturbation.md#privacy-perturbation"

    def value(self, w: np.ndarray) -> float:
        return 0.5 * self.lam * float(np.vdot(w, w))

    def cvxpy_expr(self, w: cp.Expression) -> cp.Expression:
        return 0.5 * self.lam * cp.sum_squares(w)


class Frobenius(_Quadratic):
    """(lam / 2) Σ ||Φ||²_F over all blocks, lam-strongly convex (μ = lam, as :class:`L2`).

    [PR12]_ eq. 11 writes λ Σ ||Φ||²_F; here λ = ``weight`` = lam / 2, so that
    ``lam`` means the strong-convexity modulus in every dpconvex estimator.

    Examples
    --------
    >>> from dpconvex.objectives import Frobenius
    >>> reg = Frobenius(0.5)
    >>> reg.weight, reg.strong_convexity
    (0.25, 0.5)
    >>> reg.value(np.ones((2, 2, 2)))
    2.0
    """

    name = "frobenius"
    derivation = "docs/privacy/large_margin.md#privacy-lm-strong-convexity"

    @property
    def weight(self) -> float:
        """λ = lam / 2, the coefficient of Σ ||Φ||²_F in the objective."""
        return 0.5 * self.lam

    def value(self, w: np.ndarray) -> float:
        return self.weight * float(np.sum(np.asarray(w) ** 2))

    def cvxpy_expr(self, w: cp.Expression) -> cp.Expression:
        return self.weight * cp.sum_squares(w)


#: Registry of regularizers by name.
REGULARIZERS: dict[str, type[Regularizer]] = {L2.name: L2, Frobenius.name: Frobenius}
