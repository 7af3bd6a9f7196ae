"""Margin losses for private ERM, each with the constants its privacy proof needs.

A loss is a function of the margin ``m = y * f(x)`` (labels in {-1, +1}).
Each class carries:

* ``value``, ``deriv``, ``deriv2``: NumPy value and first/second derivative in m;
* ``cvxpy_expr(m)``: the same function as a DCP-convex CVXPY expression, or
  ``has_cvxpy = False`` when no exact DCP form exists (the CVXPY backends then
  refuse it and name the missing capability);
* ``deriv_bound``: a declared bound on |ℓ'(m)| (CMS requires 1);
* ``curvature``: a declared bound c on ℓ''(m) (CMS Alg. 2's constant c).

The verifier (:func:`dpconvex.privacy.checks.check_loss`) establishes the declared
constants on all of ℝ: from docs/privacy.md §2.1 for the losses below, from the CVXPY
form's atoms for a user's loss (:mod:`dpconvex.objectives.atoms`). Adding a loss = one
subclass + one entry in :data:`LOSSES`.

References
----------
.. [CMS] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially Private
   Empirical Risk Minimization. JMLR 12:1069-1109, 2011. Logistic loss §3.4.1;
   smooth hinge ℓ_s eq. (23); Huber hinge eq. (35).
"""

from __future__ import annotations

from typing import Any, ClassVar

import cvxpy as cp
import numpy as np
from scipy.special import expit

from .._validation import check_float
from ..errors import ParameterError

__all__ = ["LOSSES", "HuberHinge", "Logistic", "Loss", "SmoothHinge", "get_loss"]


class Loss:
    """Base class of margin losses ℓ(m), m = y fᵀx.

    Subclasses set ``name``, ``deriv_bound``, ``curvature`` and implement
    ``value``, ``deriv``, ``deriv2`` and (if it has one) ``cvxpy_expr``.
    ``kinks`` lists margins where ℓ'' jumps (the probe samples around them).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex.objectives import Loss, get_loss
    >>> loss = get_loss("logistic")
    >>> isinstance(loss, Loss), loss.deriv_bound, loss.curvature
    (True, 1.0, 0.25)
    >>> loss.value(np.array([0.0])).round(4)
    array([0.6931])
    """

    name: ClassVar[str] = "loss"
    #: Where dpconvex derives this class's bounds on all of ℝ (set by the losses dpconvex
    #: ships, for their own class only; :func:`~dpconvex.privacy.checks.shipped_derivation`).
    derivation: ClassVar[str] = ""
    has_cvxpy: ClassVar[bool] = True
    deriv_bound: float = 1.0
    curvature: float = np.inf

    def value(self, m: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def deriv(self, m: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def deriv2(self, m: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def value_and_deriv(self, m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(ℓ(m), ℓ'(m)) together, for solvers; override when the two share work.

        The verifier's probe checks that it agrees with ``value`` and ``deriv``.
        """
        return self.value(m), self.deriv(m)

    def cvxpy_expr(self, m: cp.Expression) -> cp.Expression:
        raise NotImplementedError(f"{type(self).__name__}.cvxpy_expr: loss '{self.name}' has no "
                                  "DCP form in CVXPY; pass a solver other than 'cvxpy'.")

    @property
    def kinks(self) -> tuple[float, ...]:
        return ()

    def params(self) -> dict[str, Any]:
        return {}

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
        return f"{type(self).__name__}({inner})"


class Logistic(Loss):
    """ℓ(m) = log(1 + exp(-m)); |ℓ'| < 1, ℓ'' <= 1/4 ([CMS]_ §3.4.1).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex.objectives import Logistic
    >>> loss = Logistic()
    >>> loss.name, loss.deriv_bound, loss.curvature
    ('logistic', 1.0, 0.25)
    >>> loss.deriv(np.array([0.0]))
    array([-0.5])
    """

    name = "logistic"
    derivation = "docs/privacy.md §2.1"
    deriv_bound = 1.0
    curvature = 0.25

    def value(self, m):
        return np.logaddexp(0.0, -np.asarray(m, dtype=float))

    def deriv(self, m):
        return -expit(-np.asarray(m, dtype=float))

    def deriv2(self, m):
        s = expit(np.asarray(m, dtype=float))
        return s * (1.0 - s)

    def value_and_deriv(self, m):
        # one exp for both: with e = exp(-|m|), ℓ = max(-m, 0) + log1p(e) and
        # ℓ' = -1/(1 + e^m) = -e/(1 + e) for m >= 0, -1/(1 + e) for m < 0 (no overflow).
        # About 20% of a native Adult solve (measured against value() + deriv()).
        if type(self).value is not Logistic.value or type(self).deriv is not Logistic.deriv:
            return super().value_and_deriv(m)  # a subclass changed the loss
        m = np.asarray(m, dtype=float)
        e = np.exp(-np.abs(m))
        inv = 1.0 / (1.0 + e)
        val = np.log1p(e)
        val += np.maximum(-m, 0.0)
        return val, -np.where(m >= 0, e * inv, inv)

    def cvxpy_expr(self, m):
        return cp.logistic(-m)


class _SmoothedHinge(Loss):
    """Shared parts of the hinge losses smoothed over |1 - m| <= h (width h > 0)."""

    def __init__(self, h: float = 0.5):
        self.h = check_float("h", h, type(self).__name__)

    @property
    def kinks(self):
        return (1.0 - self.h, 1.0 + self.h)

    def params(self):
        return {"h": self.h}


class HuberHinge(_SmoothedHinge):
    """Huber hinge ([CMS]_ eq. 35), with parameter h > 0.

    ℓ(m) = 0 for m > 1 + h; (1 + h - m)^2 / (4h) for |1 - m| <= h; 1 - m for
    m < 1 - h. |ℓ'| <= 1 and ℓ'' <= 1/(2h) (ℓ is C^1 with a piecewise-constant
    second derivative).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex.objectives import HuberHinge
    >>> loss = HuberHinge(h=0.5)
    >>> loss.curvature, loss.kinks
    (1.0, (0.5, 1.5))
    >>> loss.value(np.array([-1.0, 1.0, 2.0]))
    array([2.   , 0.125, 0.   ])
    """

    name = "huber"
    derivation = "docs/privacy.md §2.1"
    deriv_bound = 1.0

    @property
    def curvature(self) -> float:  # type: ignore[override]
        return 1.0 / (2.0 * self.h)

    def value(self, m):
        s = 1.0 - np.asarray(m, dtype=float)
        h = self.h
        return np.where(s > h, s, np.where(s < -h, 0.0, (s + h) ** 2 / (4 * h)))

    def deriv(self, m):
        s = 1.0 - np.asarray(m, dtype=float)
        h = self.h
        return -np.where(s > h, 1.0, np.where(s < -h, 0.0, (s + h) / (2 * h)))

    def deriv2(self, m):
        s = 1.0 - np.asarray(m, dtype=float)
        return np.where(np.abs(s) <= self.h, 1.0 / (2 * self.h), 0.0)

    def cvxpy_expr(self, m):
        # huber(x, M) = x^2 (|x| <= M), 2M|x| - M^2 otherwise; with x = pos(1 + h - m)
        # and M = 2h, huber/(4h) equals ℓ exactly (see CVXPY_NOTES: pos() is required).
        h = self.h
        return cp.huber(cp.pos(1 + h - m), 2 * h) / (4 * h)


class SmoothHinge(_SmoothedHinge):
    """Smooth hinge ℓ_s ([CMS]_ eq. 23), with parameter h > 0.

    With s = 1 - m: ℓ = 0 for s < -h; 1 - m for s > h; and
    -s^4/(16 h^3) + 3 s^2/(8h) + s/2 + 3h/16 on |s| <= h. ℓ is C^2,
    |ℓ'| <= 1 and ℓ'' = 3/(4h) (1 - s^2/h^2) <= 3/(4h).

    No exact DCP form is available (the quartic piece), so only the native
    solver accepts it (``has_cvxpy = False``).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex.objectives import SmoothHinge
    >>> loss = SmoothHinge(h=0.5)
    >>> loss.deriv_bound, loss.curvature
    (1.0, 1.5)
    >>> float(loss.value(np.array([2.0]))[0])
    0.0
    """

    name = "smooth_hinge"
    derivation = "docs/privacy.md §2.1"
    has_cvxpy = False
    deriv_bound = 1.0

    @property
    def curvature(self) -> float:  # type: ignore[override]
        return 3.0 / (4.0 * self.h)

    def value(self, m):
        s = 1.0 - np.asarray(m, dtype=float)
        h = self.h
        mid = -(s**4) / (16 * h**3) + 3 * s**2 / (8 * h) + s / 2 + 3 * h / 16
        return np.where(s > h, s, np.where(s < -h, 0.0, mid))

    def deriv(self, m):
        s = 1.0 - np.asarray(m, dtype=float)
        h = self.h
        mid = -(s**3) / (4 * h**3) + 3 * s / (4 * h) + 0.5
        return -np.where(s > h, 1.0, np.where(s < -h, 0.0, mid))

    def deriv2(self, m):
        s = 1.0 - np.asarray(m, dtype=float)
        h = self.h
        return np.where(np.abs(s) <= h, 3.0 / (4 * h) * (1 - s**2 / h**2), 0.0)


#: Registry of losses by name: one entry per loss class.
LOSSES: dict[str, type[Loss]] = {
    Logistic.name: Logistic,
    HuberHinge.name: HuberHinge,
    SmoothHinge.name: SmoothHinge,
}


def get_loss(name: str | Loss, **params: Any) -> Loss:
    """Instantiate a registered loss by name (or pass an instance through).

    Examples
    --------
    >>> from dpconvex.objectives import HuberHinge, get_loss
    >>> get_loss("huber", h=0.1)
    HuberHinge(h=0.1)
    >>> loss = HuberHinge()
    >>> get_loss(loss) is loss
    True
    """
    if isinstance(name, Loss):
        return name
    if name not in LOSSES:
        raise ParameterError(f"The 'name' argument of get_loss must be one of {sorted(LOSSES)} "
                             f"or a Loss instance. Got {name!r} instead.")
    return LOSSES[name](**params)
