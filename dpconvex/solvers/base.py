"""Status enum, result record and the registry of solver names."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import ParameterError


class SolveStatus(enum.Enum):
    """One status set for every backend (as cvxpy's STATUS_MAP per solver)."""

    OPTIMAL = "optimal"
    INACCURATE = "inaccurate"
    MAX_ITERATIONS = "max_iterations"
    FAILED = "failed"
    UNBOUNDED = "unbounded"
    INFEASIBLE = "infeasible"


#: Map of CVXPY problem statuses onto :class:`SolveStatus`.
CVXPY_STATUS_MAP: dict[str, SolveStatus] = {
    "optimal": SolveStatus.OPTIMAL,
    "optimal_inaccurate": SolveStatus.INACCURATE,
    "infeasible": SolveStatus.INFEASIBLE,
    "infeasible_inaccurate": SolveStatus.INFEASIBLE,
    "unbounded": SolveStatus.UNBOUNDED,
    "unbounded_inaccurate": SolveStatus.UNBOUNDED,
    "user_limit": SolveStatus.MAX_ITERATIONS,
    "solver_error": SolveStatus.FAILED,
}


@dataclass
class SolveResult:
    """Outcome of one solve.

    Attributes
    ----------
    x : numpy.ndarray or None
        The solution (parameters), None when the solver produced none.
    status : SolveStatus
    objective : float
        Objective value at ``x`` computed by dpconvex's NumPy code.
    residual : float
        Optimality residual computed by dpconvex (gradient norm, or
        gradient-mapping norm for constrained problems).
    solver : str
    iterations : int
    seconds : float
    info : dict
        Backend-specific details (raw status, ...).
    """

    x: np.ndarray | None
    status: SolveStatus
    objective: float
    residual: float
    solver: str
    iterations: int = 0
    seconds: float = 0.0
    info: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        return {
            "solver": self.solver,
            "status": self.status.value,
            "residual": float(self.residual),
            "objective": float(self.objective),
            "iterations": int(self.iterations),
            "seconds": round(float(self.seconds), 4),
        }


#: Solver names the estimators accept (None = automatic).
SOLVERS = ("clarabel", "scs", "native")


def check_solver_name(solver: Any, owner: str) -> str | None:
    if solver is not None and solver not in SOLVERS:
        raise ParameterError(
            f"The 'solver' parameter of {owner} must be one of {[None, *SOLVERS]!r}. "
            f"Got {solver!r} instead."
        )
    return solver
