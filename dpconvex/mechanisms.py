"""Output and objective perturbation over any template ([CMS]_ Alg. 1 and 2).

These functions never return a model from a failed or inaccurate solve: they
raise :class:`~dpconvex.errors.SolverError` and release nothing.

References
----------
.. [CMS] Chaudhuri, Monteleoni, Sarwate. Differentially Private Empirical Risk
   Minimization. JMLR 12 (2011), Alg. 1 (output perturbation) and Alg. 2
   (objective perturbation).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._random import RandomStateLike, check_random_state
from .certificate import Certificate, Condition
from .errors import SolverError
from .noise import norm_gamma
from .solvers.base import SolveResult, SolveStatus
from .verify import verify

__all__ = ["fit_template", "require_accurate"]


def require_accurate(res: SolveResult, tol: float) -> SolveResult:
    """Raise :class:`SolverError` unless ``res`` is an accurate solve (residual <= tol)."""
    if (res.x is None or res.status in (SolveStatus.FAILED, SolveStatus.INFEASIBLE,
                                        SolveStatus.UNBOUNDED)
            or not np.isfinite(res.residual) or not np.all(np.isfinite(res.x))):
        raise SolverError(
            f"solver '{res.solver}' failed (status {res.status.value}, {res.info}); no model "
            "is released. Try solver='native' or another backend."
        )
    if res.residual > tol:
        raise SolverError(
            f"solver '{res.solver}' stopped with status {res.status.value} and optimality "
            f"residual {res.residual:.3g} > {tol:g}: the privacy proof holds for the exact "
            "minimizer only, so no model is released. Try solver='native', more iterations "
            "or tighter tolerances."
        )
    return res


def fit_template(
    template: Any,
    *,
    epsilon: float,
    mechanism: str,
    solver: str,
    random_state: RandomStateLike = None,
    warm_start: np.ndarray | None = None,
) -> tuple[np.ndarray, Certificate, SolveResult]:
    """Verify, calibrate, draw noise, solve and check: the whole private fit.

    Parameters
    ----------
    template : template object (see :mod:`dpconvex.templates`)
    epsilon : float
        Requested ε (ignored for ``mechanism="none"``).
    mechanism : {"objective", "output", "none"}
    solver : str
        Backend name understood by ``template.solve``.
    random_state : None, int or Generator
        None seeds from the OS.

    Returns
    -------
    theta : ndarray
        Released parameters.
    certificate : Certificate
    result : SolveResult
        The solve behind the release.
    """
    cert, cal = verify(template, epsilon=epsilon, mechanism=mechanism)
    rng = check_random_state(random_state)
    tol = template.residual_tol
    if mechanism == "objective":
        b = norm_gamma(template.noise_shape, cal.noise_rate, rng, symmetric=template.noise_symmetric)
        res = require_accurate(
            template.solve(b, cal.extra_strong_convexity, solver=solver, warm_start=warm_start), tol)
        theta = res.x
    elif mechanism == "output":
        res = require_accurate(template.solve(None, 0.0, solver=solver, warm_start=warm_start), tol)
        noise = norm_gamma(template.noise_shape, cal.noise_rate, rng,
                           symmetric=template.noise_symmetric)
        theta = res.x + noise.reshape(res.x.shape)
    else:
        res = require_accurate(template.solve(None, 0.0, solver=solver, warm_start=warm_start), tol)
        theta = res.x
    cert.solver = res.summary()
    if mechanism != "none":
        cert.conditions.append(Condition(
            "accurate solve", True, "residual computed by dpconvex",
            f"status {res.status.value}, residual {res.residual:.3g} <= {tol:g}",
        ))
    return np.array(theta, copy=True), cert, res
