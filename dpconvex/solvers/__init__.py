"""Solver backends, their one registry and ``"auto"`` policy (:mod:`dpconvex.solvers.base`).

Every backend returns a :class:`SolveResult` with a :class:`SolveStatus` and a ``residual``
computed by dpconvex (the template's ``residual``, never the solver's); release code accepts
only a residual <= the template's ``residual_tol``.
"""

from __future__ import annotations

from .base import (
    BACKENDS,
    CVXPY_STATUS_MAP,
    SOLVERS,
    Backend,
    PolishedBackend,
    SolveResult,
    SolveStatus,
    auto_backend,
    backend_names,
    check_solver_name,
    get_backend,
    other_backends,
    retry_advice,
    solve,
    suitable_backends,
)
from .cvxpy_backend import ClarabelBackend, CVXPYBackend, SCSBackend
from .lbfgs_newton import LbfgsNewton
from .projected_gradient import ProjectedGradient

__all__ = [
    "BACKENDS",
    "CVXPY_STATUS_MAP",
    "SOLVERS",
    "Backend",
    "CVXPYBackend",
    "ClarabelBackend",
    "LbfgsNewton",
    "PolishedBackend",
    "ProjectedGradient",
    "SCSBackend",
    "SolveResult",
    "SolveStatus",
    "auto_backend",
    "backend_names",
    "check_solver_name",
    "get_backend",
    "other_backends",
    "retry_advice",
    "solve",
    "suitable_backends",
]
