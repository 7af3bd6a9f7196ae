"""Native solver for smooth, strongly convex, unconstrained objectives (capability ``"smooth"``).

L-BFGS (SciPy) to a moderate gradient tolerance, then Newton steps with backtracking: the exact dense Hessian
up to :data:`_DENSE_HESSIAN_MAX_P` coefficients, else Newton-CG on Hessian-vector products (Nocedal & Wright,
*Numerical Optimization*, 2nd ed., Alg. 7.1, η_k = min(0.5, sqrt(||∇J||))). With capability
``"sampled_hessian"`` it starts with sub-sampled Newton steps (Byrd, Chin, Neveitt & Nocedal, SIAM J. Optim.
21(3), 2011; Roosta-Khorasani & Mahoney, Math. Program. 174, 2019), exact gradients throughout. The residual
is ||∇J|| at the returned point, whatever steps got there.
"""

from __future__ import annotations

import contextlib
import functools
import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.optimize import minimize
from scipy.sparse.linalg import LinearOperator, cg

from .registry import Backend, SolveResult, SolveStatus, single_threaded

if TYPE_CHECKING:
    from ..templates.base import SmoothTemplate

__all__ = ["LbfgsNewton"]

FunGrad = Callable[[np.ndarray], tuple[float, np.ndarray]]
Hess = Callable[[np.ndarray], np.ndarray]
HessSample = Callable[[np.ndarray, bool], np.ndarray]

#: Up to this dimension, L-BFGS stops at ||∇J||_∞ <= _EARLY_NEWTON_GTOL · tol and
#: Newton steps with the dense Hessian finish the solve (with ``hessp`` instead of
#: ``hess``, Newton-CG finishes it at every dimension).
_EARLY_NEWTON_MAX_P = 128
_EARLY_NEWTON_GTOL = 1e3

#: With a sampled Hessian (``hess_sample``), Newton steps start at once: the first on the
#: sampled majorant, then on sampled Hessians, and on one exact Hessian once
#: ||∇J|| <= _FULL_NEWTON_GTOL · tol; at most _SAMPLED_NEWTON_STEPS of them before L-BFGS
#: and the polish take over.
_FULL_NEWTON_GTOL = 1e4
_SAMPLED_NEWTON_STEPS = 30
#: At most this many exact Hessians are formed by the sampled-Newton phase.
_EXACT_HESSIANS = 3

#: Up to this many coefficients the Newton polish forms the dense Hessian;
#: above it, Newton-CG on Hessian-vector products (memory O(n·p), never O(p²)).
_DENSE_HESSIAN_MAX_P = 1000

#: The native solvers stop at ||∇J|| <= template.residual_tol * NATIVE_TOL_FACTOR
#: (a margin of 100 below the acceptance level).
NATIVE_TOL_FACTOR = 1e-2


def _sampled_newton(fun_grad: FunGrad, hess: Hess, hess_sample: HessSample, x: np.ndarray,
                    f: float, g: np.ndarray, gn: float, *, tol: float
                    ) -> tuple[np.ndarray, float, np.ndarray, float, int]:
    """Newton steps with backtracking on sampled Hessians, the exact one near the end.

    The first step solves with the sampled majorant (a descent step from any start), the next ones with
    sampled Hessians at the iterate, and the last ones with the exact Hessian at the first iterate with ||∇J||
    <= _FULL_NEWTON_GTOL · tol (kept while each step at least halves ||∇J||: near the minimizer it changes
    little). Stops at tol, after _SAMPLED_NEWTON_STEPS steps or _EXACT_HESSIANS exact Hessians, or when a
    direction is not a descent direction.
    """
    k = formed = 0
    exact = None  # the exact Hessian's Cholesky factor, formed near the minimizer
    while gn > tol and k < _SAMPLED_NEWTON_STEPS:
        try:
            if exact is None and k > 0 and gn <= tol * _FULL_NEWTON_GTOL:
                if formed == _EXACT_HESSIANS:
                    break  # the Hessian keeps moving: L-BFGS and the polish finish
                exact = cho_factor(hess(x))
                formed += 1
            step = (
                cho_solve(exact, g)
                if exact is not None
                else np.linalg.solve(hess_sample(x, k == 0), g)
            )
        except np.linalg.LinAlgError:
            break
        slope = float(g @ step)
        if not (np.all(np.isfinite(step)) and slope > 0):
            break
        t = 1.0
        while t > 1e-10:
            xn = x - t * step
            fn, gnew = fun_grad(xn)
            # (near the minimizer the decrease of J is below its rounding: a smaller
            # gradient is progress too, as in the polish)
            if fn <= f - 1e-4 * t * slope or (exact is not None and np.linalg.norm(gnew) < gn):
                break
            t *= 0.5
        else:
            break
        x, f, g = xn, fn, gnew
        last, gn = gn, float(np.linalg.norm(g))
        if exact is not None and gn > 0.5 * last:  # the Hessian moved: form it anew
            exact = None
        k += 1
    return x, f, g, gn, k


class LbfgsNewton(Backend["SmoothTemplate"]):
    """The native backend for unconstrained smooth templates: L-BFGS, then a Newton polish.

    Solves to ||∇J|| <= ``template.residual_tol * NATIVE_TOL_FACTOR``; with ``max_iter`` the Newton polish is
    off and L-BFGS is capped (the residual check decides whether anything is released). A parameter of any
    shape is solved as the flat vector θ.ravel(): the template sees θ (and the vectors of its Hessian-vector
    products) in ``template.space.shape``, and the solution is returned in that shape.

    Examples
    --------
    >>> # template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y): conftest.py
    >>> from dpconvex.solvers import LbfgsNewton
    >>> backend = LbfgsNewton()
    >>> backend.name, sorted(backend.requires)
    ('native', ['smooth'])
    >>> res = backend.solve(template, None)
    >>> res.status.name, res.residual <= template.residual_tol
    ('OPTIMAL', True)
    """

    name = "native"
    requires = frozenset({"smooth"})
    #: Runs on any design operator, Dask rows included: it reads the data only through
    #: the template's objective, Hessian (the operator's weighted Gram, p x p, summed on
    #: the workers) and Hessian-vector products; the iterates stay on the driver.
    in_memory = False

    def solve(self, template: SmoothTemplate, b: np.ndarray | None, extra_reg: float = 0.0, *,
              warm_start: np.ndarray | None = None, max_iter: int | None = None) -> SolveResult:
        b, extra_reg = self.admit(template, b, extra_reg)
        t0 = time.perf_counter()
        # the iterates are flat (SciPy's L-BFGS needs a vector); every call into the template
        # passes θ (and v) in the space's shape, and the result is returned in it
        shape = template.space.shape
        size = math.prod(shape)
        x0 = (
            np.zeros(size)
            if warm_start is None
            else np.asarray(warm_start, dtype=float).reshape(size)
        )
        tol = template.residual_tol * NATIVE_TOL_FACTOR
        newton_steps, max_iter = (30, 5000) if max_iter is None else (0, max_iter)
        caps = template.capabilities
        dense = "hessian" in caps and template.space.dimension <= _DENSE_HESSIAN_MAX_P
        products = not dense and "hessp" in caps
        sample = (
            dense and "sampled_hessian" in caps and template.space.dimension <= _EARLY_NEWTON_MAX_P
        )

        def fun_grad(w: np.ndarray) -> tuple[float, np.ndarray]:
            value, grad = template.objective(w.reshape(shape), b, extra_reg)
            return value, np.asarray(grad, dtype=float).reshape(size)

        def hess(w: np.ndarray) -> np.ndarray:
            return np.asarray(template.hessian(w.reshape(shape), extra_reg)).reshape(size, size)

        def hessp(w: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
            product = template.hessp(w.reshape(shape), extra_reg)
            return lambda v: np.asarray(product(v.reshape(shape)), dtype=float).reshape(size)

        def hess_sample(w: np.ndarray, bound: bool) -> np.ndarray:
            return np.asarray(template.sampled_hessian(w.reshape(shape), extra_reg, bound=bound)
                              ).reshape(size, size)

        if len(shape) == 1:  # a vector parameter: the template's own methods, no reshaping
            fun_grad = functools.partial(template.objective, b=b, extra_reg=extra_reg)
            if dense:
                hess = functools.partial(template.hessian, extra_reg=extra_reg)
        # Small problems: multithreaded BLAS only adds overhead (measured ~50x slower on 2-D
        # problems on a loaded 2-core machine), so run single-threaded.
        with single_threaded() if size <= 256 else contextlib.nullcontext():
            # Small p: one or two dense Newton steps from ||∇J|| ~ 1e3·tol replace the slow tail of L-BFGS
            # (Adult, p = 105: 2.7x faster); large p with Hessian-vector products: Newton-CG takes over at the
            # same point (n = 5000, p = 2000: ~1.6x faster). Above p = 128 dense Hessians only finish a
            # stalled L-BFGS. Either way the stopping rule is ||∇J|| <= tol.
            early = newton_steps > 0 and ((dense and size <= _EARLY_NEWTON_MAX_P) or products)
            phases = [tol * _EARLY_NEWTON_GTOL, tol * 1e-2] if early else [tol * 1e-2]
            x = np.array(x0, dtype=float, copy=True)  # never alias the caller's warm start
            iters = newton = sampled = 0
            messages = []
            f, gn = np.nan, np.inf
            sample = sample and newton_steps > 0
            if np.any(x) or sample:
                # a warm start may already be the minimizer (output perturbation)
                f, g = fun_grad(x)
                gn = float(np.linalg.norm(g))
            if sample and gn > tol:
                # Many rows: a sampled Hessian costs a fraction of a gradient, and Newton steps on
                # it from the start take fewer passes over the rows than L-BFGS (the passes per
                # fit: benchmarks/recorded/speed.md)
                x, f, g, gn, sampled = _sampled_newton(fun_grad, hess, hess_sample, x, f, g, gn,
                                                       tol=tol)
                iters += sampled
                newton += sampled
            for gtol in phases:
                if gn <= tol:
                    break
                res = minimize(
                    fun_grad,
                    x,
                    jac=True,
                    method="L-BFGS-B",
                    options={"maxiter": max_iter, "gtol": gtol, "ftol": 0.0, "maxcor": 20},
                )
                messages.append(str(res.message))
                x = np.asarray(res.x, dtype=float)
                f, g = fun_grad(x)
                iters += int(res.nit)
                gn = float(np.linalg.norm(g))
                # the Newton (or Newton-CG) polish: steps with backtracking until ||∇J|| <= tol
                for _ in range(newton_steps if dense or products else 0):
                    if gn <= tol:
                        break
                    if dense:  # ∇²J(x) s = ∇J(x): dense, or by CG to relative residual
                        try:   # min(0.5, sqrt(||g||))
                            step = np.linalg.solve(hess(x), g)
                        except np.linalg.LinAlgError:
                            break
                    else:
                        op = LinearOperator((g.size, g.size), matvec=hessp(x), dtype=float)
                        step, info = cg(op, g, rtol=min(0.5, np.sqrt(gn)), atol=0.0,
                                        maxiter=max(50, 2 * g.size))
                        if not (np.all(np.isfinite(step)) and info >= 0):
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
                    iters += 1
                    newton += 1
        status = (SolveStatus.FAILED if not np.all(np.isfinite(x))
                  else SolveStatus.OPTIMAL if gn <= tol else SolveStatus.INACCURATE)
        return SolveResult(
            x=x.reshape(shape), status=status, objective=float(f), residual=gn, solver="native",
            iterations=iters, seconds=time.perf_counter() - t0,
            info={"method": ("sampled Newton, " if sample else "") + "L-BFGS-B + "
                  + ("Newton" if dense else "Newton-CG") + " polish",
                  "scipy_message": "; ".join(messages), "lbfgs_phases": len(messages),
                  "newton_steps": newton, "sampled_newton_steps": sampled},
        )
