"""Native solver for smooth, strongly convex, unconstrained objectives (linear ERM).

L-BFGS (SciPy) to a tight gradient tolerance, then Newton steps with exact
Hessians and backtracking to polish. The residual reported is the gradient
norm ||∇J(x)||_2 computed at the returned point.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

import numpy as np
from scipy.optimize import minimize
from threadpoolctl import threadpool_limits

from .base import SolveResult, SolveStatus

FunGrad = Callable[[np.ndarray], tuple[float, np.ndarray]]
Hess = Callable[[np.ndarray], np.ndarray]

#: Up to this dimension, L-BFGS stops at ||∇J||_∞ <= _EARLY_NEWTON_GTOL · tol and
#: Newton steps (dense Hessian) finish the solve.
_EARLY_NEWTON_MAX_P = 128
_EARLY_NEWTON_GTOL = 1e3


def minimize_smooth(
    fun_grad: FunGrad,
    hess: Hess | None,
    x0: np.ndarray,
    *,
    tol: float = 1e-9,
    max_iter: int = 5000,
    newton_steps: int = 30,
) -> SolveResult:
    """Minimize a smooth strongly convex function to ||∇J|| <= tol.

    Parameters
    ----------
    fun_grad : callable
        x -> (J(x), ∇J(x)).
    hess : callable or None
        x -> ∇²J(x) (dense); used for the Newton polish.
    x0 : ndarray
        Starting point (warm start).
    tol : float
        Target gradient norm.
    """
    t0 = time.perf_counter()
    # Small problems: multithreaded BLAS only adds overhead (measured ~50x slower on 2-D
    # problems on a loaded 2-core machine), so run single-threaded.
    limit = threadpool_limits(limits=1) if np.size(x0) <= 256 else contextlib.nullcontext()
    with limit:
        return _minimize(fun_grad, hess, x0, tol=tol, max_iter=max_iter,
                         newton_steps=newton_steps, t0=t0)


def _minimize(fun_grad: FunGrad, hess: Hess | None, x0: np.ndarray, *, tol: float, max_iter: int,
              newton_steps: int, t0: float) -> SolveResult:
    # Small p: a dense Hessian costs a few gradient evaluations, and one or two Newton
    # steps from ||∇J|| ~ 1e3·tol reach tol, saving the slow tail of L-BFGS (measured
    # on Adult, p = 105: 17 + 1 Newton vs 38 L-BFGS iterations, 2.7x faster). If the
    # polish does not reach tol, L-BFGS resumes with the tight tolerance: the stopping
    # rule ||∇J|| <= tol is the same either way.
    early = hess is not None and newton_steps > 0 and np.size(x0) <= _EARLY_NEWTON_MAX_P
    phases = [tol * _EARLY_NEWTON_GTOL, tol * 1e-2] if early else [tol * 1e-2]
    x = np.asarray(x0, dtype=float)
    iters = 0
    messages = []
    for gtol in phases:
        res = minimize(fun_grad, x, jac=True, method="L-BFGS-B",
                       options={"maxiter": max_iter, "gtol": gtol, "ftol": 0.0, "maxcor": 20})
        messages.append(str(res.message))
        x = np.asarray(res.x, dtype=float)
        f, g = fun_grad(x)
        iters += int(res.nit)
        gn = float(np.linalg.norm(g))
        if hess is not None:
            x, f, g, gn, k = _newton_polish(fun_grad, hess, x, f, g, gn, tol=tol,
                                            steps=newton_steps)
            iters += k
        if gn <= tol:
            break
    status = SolveStatus.OPTIMAL if gn <= tol else SolveStatus.INACCURATE
    if not np.all(np.isfinite(x)):
        status = SolveStatus.FAILED
    return SolveResult(
        x=x, status=status, objective=float(f), residual=gn, solver="native",
        iterations=iters, seconds=time.perf_counter() - t0,
        info={"method": "L-BFGS-B + Newton polish", "scipy_message": "; ".join(messages),
              "lbfgs_phases": len(messages)},
    )


def _newton_polish(fun_grad: FunGrad, hess: Hess, x: np.ndarray, f: float, g: np.ndarray,
                   gn: float, *, tol: float, steps: int
                   ) -> tuple[np.ndarray, float, np.ndarray, float, int]:
    """Newton steps with exact Hessians and backtracking until ||∇J|| <= tol."""
    k = 0
    for _ in range(steps):
        if gn <= tol:
            break
        H = hess(x)
        try:
            step = np.linalg.solve(H, g)
        except np.linalg.LinAlgError:
            break
        t = 1.0
        while t > 1e-10:
            xn = x - t * step
            fn, gnew = fun_grad(xn)
            if fn <= f - 1e-4 * t * float(g @ step) or np.linalg.norm(gnew) < gn:
                break
            t *= 0.5
        else:
            break
        x, f, g = xn, fn, gnew
        gn = float(np.linalg.norm(g))
        k += 1
    return x, f, g, gn, k
