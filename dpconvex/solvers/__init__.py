"""Solver backends, one registry (:mod:`dpconvex.solvers.registry`: by name, or the ``"auto"``
policy) and one status set.

Every backend returns a :class:`SolveResult` with a :class:`SolveStatus` and a ``residual``
computed by dpconvex (the template's ``residual``, never the solver's); release code accepts
only a residual <= the template's ``residual_tol``. A refused solve's message names the
other backends that fit the template (:func:`retry_advice`).
"""

from __future__ import annotations

from .base import CVXPY_STATUS_MAP, Backend, SolveResult, SolveStatus, other_backends, retry_advice
from .cvxpy_backend import ClarabelBackend, CVXPYBackend, SCSBackend
from .lbfgs_newton import LbfgsNewton
from .projected_gradient import ProjectedGradient
from .registry import (
    BACKENDS,
    SOLVERS,
    PolishedBackend,
    backend_names,
    check_solver_name,
    get_backend,
    solve,
    suitable_backends,
)

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
    "backend_names",
    "check_solver_name",
    "get_backend",
    "other_backends",
    "retry_advice",
    "solve",
    "suitable_backends",
]
