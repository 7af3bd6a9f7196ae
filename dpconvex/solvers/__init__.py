"""Solver backends mapped onto one status set.

Every backend returns a :class:`SolveResult` whose ``status`` is a
:class:`SolveStatus` and whose ``residual`` is an optimality residual computed
by dpconvex itself (not trusted from the solver). Release code accepts only
``SolveStatus.OPTIMAL`` with ``residual <= tol``.
"""

from __future__ import annotations

from .base import SOLVERS, SolveResult, SolveStatus, check_solver_name

__all__ = ["SOLVERS", "SolveResult", "SolveStatus", "check_solver_name"]
