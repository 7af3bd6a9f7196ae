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
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.optimize import minimize
from scipy.sparse.linalg import LinearOperator, cg

from .registry import Backend, SolveResult, SolveStatus, single_threaded

if TYPE_CHECKING:
    from ..templates.base import SmoothTemplate

__all__ = ["LbfgsNewton"]

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

#: The most Newton (or Newton-CG) steps of one polish.
_POLISH_STEPS = 30
#: L-BFGS's iteration cap when the solve is not given ``max_iter``.
_LBFGS_MAX_ITER = 5000


@dataclass
class _Tally:
    """What the phases of one solve did, for the :class:`SolveResult`."""

    lbfgs_iterations: int = 0
    messages: list[str] = field(default_factory=list)
    newton_steps: int = 0  # sampled ones included
    sampled_newton_steps: int = 0


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
        """Minimize ``template``'s objective (plus ``b``·θ and ``extra_reg``/2·||θ||²).

        Sampled Newton steps first where the template offers them, then L-BFGS phases, each
        followed by the Newton (or Newton-CG) polish, until ||∇J|| <= tol.

        Parameters
        ----------
        template : SmoothTemplate
            The objective, its gradient and (by capability) Hessian or Hessian-vector products.
        b : ndarray or None
            The linear noise term of objective perturbation (None: none).
        extra_reg : float, default=0.0
            An added ridge weight.
        warm_start : ndarray, optional
            The starting point, in ``template.space.shape`` (default zero); never modified.
        max_iter : int, optional
            Caps L-BFGS and turns the Newton steps off.

        Returns
        -------
        SolveResult
            θ in ``template.space.shape``, the status against tol and the steps taken.
        """
        b, extra_reg = self.admit(template, b, extra_reg)
        t0 = time.perf_counter()
        calls = _FlatCalls(template, b, extra_reg)
        tol = template.residual_tol * NATIVE_TOL_FACTOR
        newton = calls.newton if max_iter is None else None  # a cap: L-BFGS alone
        lbfgs_cap = _LBFGS_MAX_ITER if max_iter is None else max_iter
        x = (np.zeros(calls.size) if warm_start is None  # a copy: never the caller's array
             else np.array(warm_start, dtype=float).reshape(calls.size))
        # many rows, small p: sampled Newton steps start the solve (_sampled_newton)
        sampled = (newton == "hessian" and "sampled_hessian" in template.capabilities
                   and template.space.dimension <= _EARLY_NEWTON_MAX_P)
        tally = _Tally()
        # Small problems: multithreaded BLAS only adds overhead (measured ~50x slower on 2-D
        # problems on a loaded 2-core machine), so run single-threaded.
        with single_threaded() if x.size <= 256 else contextlib.nullcontext():
            # a warm start may already be the minimizer (output perturbation)
            f, g, gn = calls.at(x) if np.any(x) or sampled else (np.nan, None, np.inf)
            if sampled and gn > tol:
                x, f, g, gn = _sampled_newton(calls, x, f, g, gn, tol=tol, tally=tally)
            # L-BFGS to 1e-2·tol, the polish finishing a stalled run; or first to 1e3·tol, where
            # the polish takes over (small p, dense: Adult, p = 105, 2.7x faster; Newton-CG at any
            # p: n = 5000, p = 2000, ~1.6x faster), L-BFGS again only if the polish stalls
            early = newton == "hessp" or (newton == "hessian" and x.size <= _EARLY_NEWTON_MAX_P)
            for gtol in [tol * _EARLY_NEWTON_GTOL, tol * 1e-2] if early else [tol * 1e-2]:
                if gn <= tol:
                    break
                x, f, g, gn = _lbfgs_phase(calls, x, gtol, lbfgs_cap, tally)
                if newton:
                    x, f, g, gn = _newton_polish(calls, x, f, g, gn, tol=tol, tally=tally)
        return SolveResult(
            x=x.reshape(calls.shape), status=_status(x, gn, tol), objective=float(f),
            residual=gn, solver="native", seconds=time.perf_counter() - t0,
            iterations=tally.lbfgs_iterations + tally.newton_steps,
            info={"method": ("sampled Newton, " if sampled else "") + "L-BFGS-B + "
                  + ("Newton" if calls.newton == "hessian" else "Newton-CG") + " polish",
                  "scipy_message": "; ".join(tally.messages),
                  "lbfgs_phases": len(tally.messages), "newton_steps": tally.newton_steps,
                  "sampled_newton_steps": tally.sampled_newton_steps},
        )


class _FlatCalls:
    """The template's objective, Hessian and Hessian-vector products on flat iterates.

    SciPy's L-BFGS works on vectors: each call reshapes θ (and v) to ``template.space.shape``
    before it reaches the template and flattens what comes back (views for a vector parameter).

    Parameters
    ----------
    template : SmoothTemplate
        The objective.
    b : ndarray or None
        The linear noise term.
    extra_reg : float
        The added ridge weight.

    Attributes
    ----------
    newton : {"hessian", "hessp", None}
        What a Newton step solves with, by the template's capabilities: the dense Hessian up
        to :data:`_DENSE_HESSIAN_MAX_P` coefficients, else CG on Hessian-vector products, else
        nothing (no Newton steps).
    """

    def __init__(self, template: SmoothTemplate, b: np.ndarray | None,
                 extra_reg: float) -> None:
        self.template, self.b, self.extra_reg = template, b, extra_reg
        self.shape = template.space.shape
        self.size = math.prod(self.shape)
        caps = template.capabilities
        dense = "hessian" in caps and template.space.dimension <= _DENSE_HESSIAN_MAX_P
        self.newton = "hessian" if dense else "hessp" if "hessp" in caps else None

    def at(self, w: np.ndarray) -> tuple[float, np.ndarray, float]:
        """J(w), ∇J(w) and ||∇J(w)||."""
        value, grad = self.fun_grad(w)
        return value, grad, float(np.linalg.norm(grad))

    def fun_grad(self, w: np.ndarray) -> tuple[float, np.ndarray]:
        """J(w) and ∇J(w), the gradient flat."""
        value, grad = self.template.objective(w.reshape(self.shape), self.b, self.extra_reg)
        return value, np.asarray(grad, dtype=float).reshape(self.size)

    def hess(self, w: np.ndarray) -> np.ndarray:
        """∇²J(w) as a (size, size) matrix."""
        return np.asarray(self.template.hessian(w.reshape(self.shape), self.extra_reg)
                          ).reshape(self.size, self.size)

    def hessp(self, w: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
        """v ↦ ∇²J(w) v on flat vectors."""
        product = self.template.hessp(w.reshape(self.shape), self.extra_reg)
        shape, size = self.shape, self.size
        return lambda v: np.asarray(product(v.reshape(shape)), dtype=float).reshape(size)

    def hess_sample(self, w: np.ndarray, bound: bool) -> np.ndarray:
        """A sampled Hessian at w (its majorant when ``bound``) as a (size, size) matrix."""
        return np.asarray(self.template.sampled_hessian(w.reshape(self.shape), self.extra_reg,
                                                        bound=bound)
                          ).reshape(self.size, self.size)


def _sampled_newton(calls: _FlatCalls, x: np.ndarray, f: float, g: np.ndarray, gn: float, *,
                    tol: float, tally: _Tally) -> tuple[np.ndarray, float, np.ndarray, float]:
    """Newton steps with backtracking on sampled Hessians, the exact one near the end.

    Many rows: a sampled Hessian costs a fraction of a gradient, and Newton steps on it from
    the start take fewer passes over the rows than L-BFGS (the passes per fit:
    benchmarks/recorded/speed.md). The first step solves with the sampled majorant (a descent
    step from any start), the next ones with sampled Hessians at the iterate, and the last ones
    with the exact Hessian at the first iterate with ||∇J|| <= _FULL_NEWTON_GTOL · tol (kept
    while each step at least halves ||∇J||: near the minimizer it changes little). Stops at
    tol, after _SAMPLED_NEWTON_STEPS steps or _EXACT_HESSIANS exact Hessians, or when a
    direction is not a descent direction. The steps taken are added to ``tally``.
    """
    k = formed = 0
    exact = None  # the exact Hessian's Cholesky factor, formed near the minimizer
    while gn > tol and k < _SAMPLED_NEWTON_STEPS:
        try:
            if exact is None and k > 0 and gn <= tol * _FULL_NEWTON_GTOL:
                if formed == _EXACT_HESSIANS:
                    break  # the Hessian keeps moving: L-BFGS and the polish finish
                exact = cho_factor(calls.hess(x))
                formed += 1
            step = (
                cho_solve(exact, g)
                if exact is not None
                else np.linalg.solve(calls.hess_sample(x, k == 0), g)
            )
        except np.linalg.LinAlgError:
            break
        slope = float(g @ step)
        if not (np.all(np.isfinite(step)) and slope > 0):
            break
        point = _backtrack(calls, x, f, gn, step, slope, smaller_gradient=exact is not None)
        if point is None:
            break
        last = gn
        x, f, g, gn = point
        if exact is not None and gn > 0.5 * last:  # the Hessian moved: form it anew
            exact = None
        k += 1
    tally.newton_steps += k
    tally.sampled_newton_steps += k
    return x, f, g, gn


def _lbfgs_phase(calls: _FlatCalls, x: np.ndarray, gtol: float, max_iter: int, tally: _Tally
                 ) -> tuple[np.ndarray, float, np.ndarray, float]:
    """One run of SciPy's L-BFGS-B from ``x`` to ||∇J||_∞ <= ``gtol``.

    Parameters
    ----------
    calls : _FlatCalls
        The objective on flat iterates.
    x : ndarray
        The start.
    gtol : float
        SciPy's projected-gradient tolerance (``ftol`` is 0: only the gradient stops it).
    max_iter : int
        The iteration cap.
    tally : _Tally
        Gets L-BFGS's iterations and SciPy's message.

    Returns
    -------
    x, f, g, gn : ndarray, float, ndarray, float
        The point reached, J, ∇J and ||∇J|| there (evaluated anew).
    """
    res = minimize(
        calls.fun_grad,
        x,
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": max_iter, "gtol": gtol, "ftol": 0.0, "maxcor": 20},
    )
    tally.lbfgs_iterations += int(res.nit)
    tally.messages.append(str(res.message))
    x = np.asarray(res.x, dtype=float)
    return (x, *calls.at(x))


def _newton_polish(calls: _FlatCalls, x: np.ndarray, f: float, g: np.ndarray, gn: float, *,
                   tol: float, tally: _Tally) -> tuple[np.ndarray, float, np.ndarray, float]:
    """At most :data:`_POLISH_STEPS` Newton (or Newton-CG) steps with backtracking until
    ||∇J|| <= tol.

    The step solves ∇²J(x) s = ∇J(x) (:func:`_newton_step`) and is accepted on sufficient
    decrease or on a smaller gradient (:func:`_backtrack`); the polish stops at the first
    singular Hessian, failed CG or failed line search.

    Parameters
    ----------
    calls : _FlatCalls
        The objective and its second-order calls on flat iterates.
    x, f, g, gn : ndarray, float, ndarray, float
        The start, J, ∇J and ||∇J|| there.
    tol : float
        The stopping tolerance on ||∇J||.
    tally : _Tally
        Gets the steps taken.

    Returns
    -------
    x, f, g, gn : ndarray, float, ndarray, float
        The point reached and J, ∇J, ||∇J|| there.
    """
    for _ in range(_POLISH_STEPS):
        if gn <= tol:
            break
        step = _newton_step(calls, x, g, gn)
        if step is None:
            break
        point = _backtrack(calls, x, f, gn, step, float(g @ step), smaller_gradient=True)
        if point is None:
            break
        x, f, g, gn = point
        tally.newton_steps += 1
    return x, f, g, gn


def _backtrack(calls: _FlatCalls, x: np.ndarray, f: float, gn: float, step: np.ndarray,
               slope: float, *, smaller_gradient: bool
               ) -> tuple[np.ndarray, float, np.ndarray, float] | None:
    """The first of x − t·step, t = 1, 1/2, 1/4, ... (down to 1e-10), that decreases J enough.

    Accepted on sufficient decrease, J(x − t·step) <= J(x) − 1e-4·t·``slope``, or, with
    ``smaller_gradient``, on a smaller ||∇J|| (near the minimizer the decrease of J is below its
    rounding: a smaller gradient is progress too). Returns that point with J, ∇J and ||∇J||
    there, or None when no t is accepted.
    """
    t = 1.0
    while t > 1e-10:
        xn = x - t * step
        fn, gnew, gnew_norm = calls.at(xn)
        if fn <= f - 1e-4 * t * slope or (smaller_gradient and gnew_norm < gn):
            return xn, fn, gnew, gnew_norm
        t *= 0.5
    return None


def _newton_step(calls: _FlatCalls, x: np.ndarray, g: np.ndarray, gn: float
                 ) -> np.ndarray | None:
    """The Newton direction s with ∇²J(x) s = ∇J(x), or None where it cannot be found.

    With the dense Hessian (``calls.newton == "hessian"``): a direct solve (None on a singular
    Hessian). Otherwise CG on Hessian-vector products to relative residual
    min(0.5, sqrt(||∇J||)) (None on a non-finite step or a CG breakdown).
    """
    if calls.newton == "hessian":
        try:
            return np.linalg.solve(calls.hess(x), g)
        except np.linalg.LinAlgError:
            return None
    op = LinearOperator((g.size, g.size), matvec=calls.hessp(x), dtype=float)
    step, info = cg(op, g, rtol=min(0.5, np.sqrt(gn)), atol=0.0, maxiter=max(50, 2 * g.size))
    if not (np.all(np.isfinite(step)) and info >= 0):
        return None
    return step


def _status(x: np.ndarray, gn: float, tol: float) -> SolveStatus:
    """FAILED on a non-finite iterate, OPTIMAL at ||∇J|| <= tol, else INACCURATE."""
    if not np.all(np.isfinite(x)):
        return SolveStatus.FAILED
    return SolveStatus.OPTIMAL if gn <= tol else SolveStatus.INACCURATE
