"""Solve a compiled CVXPY problem with Clarabel or SCS and map the status."""

from __future__ import annotations

import time
import warnings
from typing import Any

import cvxpy as cp

from ..errors import SolverError
from .base import CVXPY_STATUS_MAP, SolveStatus

#: Solver options used by default: tight tolerances, because objective
#: perturbation is private only at the exact minimizer.
DEFAULT_OPTIONS: dict[str, dict[str, Any]] = {
    "clarabel": {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10,
                 "max_iter": 500},
    "scs": {"eps_abs": 1e-9, "eps_rel": 1e-9, "max_iters": 200_000},
}

_CVXPY_NAMES = {"clarabel": cp.CLARABEL, "scs": cp.SCS}


def solve_problem(problem: cp.Problem, solver: str, **options: Any) -> tuple[SolveStatus, float, str]:
    """Solve ``problem`` in place; return (status, seconds, raw status).

    Solver exceptions become ``SolveStatus.FAILED`` (the caller raises
    :class:`SolverError` and releases nothing).
    """
    if solver not in _CVXPY_NAMES:
        raise SolverError(f"unknown CVXPY backend {solver!r}; use one of {sorted(_CVXPY_NAMES)}")
    opts = {**DEFAULT_OPTIONS[solver], **options}
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings():
            # dpconvex checks the residual itself and refuses inaccurate solves
            warnings.filterwarnings("ignore", message="Solution may be inaccurate")
            problem.solve(solver=_CVXPY_NAMES[solver], **opts)
    except cp.error.SolverError as exc:
        return SolveStatus.FAILED, time.perf_counter() - t0, f"solver_error: {exc}"
    seconds = time.perf_counter() - t0
    raw = str(problem.status)
    return CVXPY_STATUS_MAP.get(raw, SolveStatus.FAILED), seconds, raw
