"""Solver backends, one registry, and one status set.

Every backend returns a :class:`SolveResult` whose ``status`` is a
:class:`SolveStatus` and whose ``residual`` is an optimality residual computed
by dpconvex itself (the template's ``residual``, not trusted from the solver).
Release code accepts only a residual <= the template's ``residual_tol``.

Backends (:class:`Backend` subclasses) declare the template capabilities they
require; :func:`get_backend` picks one by name (``"auto"``: the one policy of
:func:`auto_backend`), and :func:`solve` is ``get_backend(...).solve(...)``. A refused
solve's message names the other backends that fit the template (:func:`retry_advice`).
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
