"""Re-export of :mod:`dpconvex.solvers.lbfgs_newton` (its home since the architecture step)."""

from __future__ import annotations

from .lbfgs_newton import LbfgsNewton, minimize_smooth

__all__ = ["LbfgsNewton", "minimize_smooth"]
