"""The shipped solver backends, registered in the one registry of the template contract
(:mod:`dpconvex.solvers.registry`: by name, or the ``"auto"`` policy) with one status set.

Every backend returns a :class:`SolveResult` with a :class:`SolveStatus` and a ``residual``
computed by dpconvex (the template's ``residual``, never the solver's); release code accepts
only a residual <= the template's ``residual_tol``. A refused solve's message names the
other backends that fit the template (:func:`retry_advice`).
"""

from __future__ import annotations

from .cvxpy_backend import ClarabelBackend, CVXPYBackend, SCSBackend
from .lbfgs_newton import LbfgsNewton
from .projected_gradient import ProjectedGradient
from .projected_newton import ProjectedNewton
from .registry import (
    BACKENDS,
    CVXPY_STATUS_MAP,
    Backend,
    PolishedBackend,
    SolveResult,
    SolveStatus,
    backend_classes,
    backend_names,
    check_solver_name,
    get_backend,
    other_backends,
    register_backend,
    retry_advice,
    solve,
    suitable_backends,
)

# the shipped backends, in the order of preference of the "auto" policy: the native ones first
for _backend_class in (LbfgsNewton, ProjectedNewton, ProjectedGradient, ClarabelBackend,
                       SCSBackend):
    register_backend(_backend_class)
del _backend_class

__all__ = ["BACKENDS", "CVXPY_STATUS_MAP", "Backend", "CVXPYBackend", "ClarabelBackend",
           "LbfgsNewton", "PolishedBackend", "ProjectedGradient", "ProjectedNewton", "SCSBackend",
           "SolveResult", "SolveStatus", "backend_classes", "backend_names", "check_solver_name",
           "get_backend", "other_backends", "retry_advice", "solve", "suitable_backends"]
