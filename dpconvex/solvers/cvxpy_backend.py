"""Clarabel and SCS through CVXPY: generic over every template with a CVXPY form.

The template builds its problem once (``cvxpy_problem()``), with the noise and
the extra strong convexity as :class:`cvxpy.Parameter`; a backend sets them
(``cvxpy_set(b, extra_reg)``), solves, reads the point back
(``cvxpy_solution()``, e.g. projected onto the PSD cone) and computes the
objective and the residual with the template's NumPy code.
"""

from __future__ import annotations

import math
import time
import warnings
from typing import TYPE_CHECKING, Any, ClassVar

import cvxpy as cp
import numpy as np

if TYPE_CHECKING:
    from ..templates.base import CVXPYTemplate

from .registry import CVXPY_STATUS_MAP, Backend, SolveResult, SolveStatus

__all__ = ["DEFAULT_OPTIONS", "ClarabelBackend", "CVXPYBackend", "SCSBackend"]

#: Solver options used by default: tight tolerances (objective perturbation is private only
#: at the exact minimizer) and a time cap (SCS once ran ~160 s uninterruptibly); a capped
#: solve misses the residual check and raises SolverError: nothing is released.
TIME_LIMIT_SECONDS = 60.0

DEFAULT_OPTIONS: dict[str, dict[str, Any]] = {
    "clarabel": {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10,
                 "max_iter": 500, "time_limit": TIME_LIMIT_SECONDS},
    "scs": {"eps_abs": 1e-9, "eps_rel": 1e-9, "max_iters": 200_000,
            "time_limit_secs": TIME_LIMIT_SECONDS},
}

_CVXPY_NAMES = {"clarabel": cp.CLARABEL, "scs": cp.SCS}


class CVXPYBackend(Backend["CVXPYTemplate"]):
    """A conic solver through CVXPY, for templates with the ``"cvxpy"`` capability.

    Warm starts are ignored (SCS warm starts made re-solves slower, see CVXPY_NOTES).

    Examples
    --------
    >>> # template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y): conftest.py
    >>> from dpconvex.solvers import ClarabelBackend, CVXPYBackend
    >>> backend = ClarabelBackend()
    >>> isinstance(backend, CVXPYBackend), sorted(backend.requires)
    (True, ['cvxpy'])
    >>> res = backend.solve(template, None)
    >>> res.status.name, res.residual <= template.residual_tol
    ('OPTIMAL', True)
    """

    requires = frozenset({"cvxpy"})
    #: The solver's option capping its iterations.
    max_iter_option: ClassVar[str] = "max_iter"

    def solve(self, template: CVXPYTemplate, b: np.ndarray | None, extra_reg: float = 0.0, *,
              warm_start: np.ndarray | None = None, max_iter: int | None = None) -> SolveResult:
        b, extra_reg = self.admit(template, b, extra_reg)
        compiled = template.cvxpy_problem()
        template.cvxpy_set(b, extra_reg)
        options: dict[str, Any] = {**DEFAULT_OPTIONS[self.name], **template.cvxpy_options}
        if max_iter is not None:
            options[self.max_iter_option] = int(max_iter)
        start = time.perf_counter()
        try:
            with warnings.catch_warnings():
                # dpconvex checks the residual itself and refuses inaccurate solves
                warnings.filterwarnings("ignore", message="Solution may be inaccurate")
                compiled["problem"].solve(solver=_CVXPY_NAMES[self.name], **options)
            raw_status = str(compiled["problem"].status)
        except cp.error.SolverError as exc:  # FAILED: the release raises SolverError
            raw_status = f"solver_error: {exc}"
        seconds = time.perf_counter() - start
        status = CVXPY_STATUS_MAP.get(raw_status, SolveStatus.FAILED)
        x, info = template.cvxpy_solution()
        if x is None:
            return SolveResult(None, SolveStatus.FAILED if status == SolveStatus.OPTIMAL
                               else status, math.nan, math.inf, self.name, seconds=seconds,
                               info={"raw_status": raw_status})
        objective_value, _ = template.objective(x, b, extra_reg)
        stats = compiled["problem"].solver_stats
        value = compiled["problem"].value
        return SolveResult(
            x,
            status,
            objective_value,
            template.residual(x, b, extra_reg),
            self.name,
            iterations=int(stats.num_iters or 0) if stats else 0,
            seconds=seconds,
            info={
                "raw_status": raw_status,
                **info,
                "cvxpy_objective": math.nan if value is None else float(value),
            },
        )


class ClarabelBackend(CVXPYBackend):
    """Clarabel (interior point) through CVXPY, options :data:`DEFAULT_OPTIONS` ``["clarabel"]``.

    Examples
    --------
    >>> from dpconvex.solvers import ClarabelBackend
    >>> ClarabelBackend().name, ClarabelBackend().max_iter_option
    ('clarabel', 'max_iter')
    """

    name = "clarabel"


class SCSBackend(CVXPYBackend):
    """SCS (operator splitting) through CVXPY, options :data:`DEFAULT_OPTIONS` ``["scs"]``.

    Examples
    --------
    >>> from dpconvex.solvers import SCSBackend
    >>> SCSBackend().name, SCSBackend().max_iter_option
    ('scs', 'max_iters')
    """

    name = "scs"
    max_iter_option = "max_iters"
