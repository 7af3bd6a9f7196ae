"""Accelerated projected gradient for smooth, strongly convex objectives over a convex set.

Minimizes a smooth, μ-strongly convex J over a closed convex set given by its projection
(``space.project``): Nesterov's constant-momentum scheme [N]_ with a step 1/L following
the local curvature, backtracking [BT]_ (safe for user terms of unknown Lipschitz
constant), and restart [OC]_. The residual is the natural residual
(:func:`dpconvex.templates.base.natural_residual`), with ||θ − θ*|| <= (1 + L)/μ · res(θ)
(docs/privacy/large_margin.md#privacy-lm-solver-accuracy).

References
----------
.. [N] Y. Nesterov. Introductory Lectures on Convex Optimization, 2004, Section 2.2
   (constant-step scheme III for strongly convex functions) and Lectures on
   Convex Optimization (2018), Section 2.2.4 (gradient mapping).
.. [BT] A. Beck, M. Teboulle. A Fast Iterative Shrinkage-Thresholding Algorithm
   for Linear Inverse Problems. SIAM J. Imaging Sci. 2(1), 2009 (backtracking).
.. [OC] B. O'Donoghue, E. Candès. Adaptive Restart for Accelerated Gradient
   Schemes. Found. Comput. Math. 15, 2015.
.. [BCG] S. Becker, E. Candès, M. Grant. Templates for convex cone problems with
   applications to sparse signal recovery. Math. Prog. Comp. 3, 2011, Section 5.3
   (TFOCS: the local Lipschitz estimate from gradients when values are rounding).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from .. import errors as diagnostics
from ..templates.base import natural_residual
from .lbfgs_newton import NATIVE_TOL_FACTOR
from .registry import Backend, SolveResult, SolveStatus, single_threaded

if TYPE_CHECKING:
    from ..templates.base import ProjectionTemplate

__all__ = ["ProjectedGradient", "accelerated_projected_gradient", "at_returned_point"]

FunGrad = Callable[[np.ndarray], tuple[float, np.ndarray]]
Project = Callable[[np.ndarray], np.ndarray]


def accelerated_projected_gradient(fun_grad: FunGrad, x0: np.ndarray, *, project: Project,
                                   mu: float, L0: float, tol: float = 1e-9, max_iter: int = 20_000,
                                   max_seconds: float = math.inf) -> SolveResult:
    """Minimize a μ-strongly convex, smooth J over the convex set with projection ``project``.

    Parameters
    ----------
    fun_grad : callable
        θ -> (J(θ), ∇J(θ)).
    x0 : ndarray
        Starting point (projected onto the set first; a warm start).
    project : callable
        θ -> Π_S(θ), the Euclidean projection onto the feasible set (e.g.
        :func:`~dpconvex.templates.parameterizations.project_psd`).
    mu : float
        Strong-convexity modulus μ >= 0 (μ = 0 gives plain FISTA momentum).
    L0 : float
        Initial estimate of the Lipschitz constant of ∇J (the first step is 1/L0).
        Raised to max(2L, 1.5 × the curvature) whenever a step's curvature exceeds L
        (backtracking); after each step, set to 1.5 × its curvature within [L/4, L]
        (and >= μ). The curvature along a step d = x⁺ − y is 2 (J(x⁺) − J(y) −
        ⟨∇J(y), d⟩)/||d||², or ⟨∇J(x⁺) − ∇J(y), d⟩/||d||² once the value difference is
        below the rounding of J ([BCG]_).
    tol : float
        Stop when the natural residual ||θ − Π(θ − ∇J(θ))|| <= tol.
    max_iter : int
    max_seconds : float
        Wall-clock limit; the result then has status ``MAX_ITERATIONS``.

    Returns
    -------
    SolveResult
        ``x`` the last iterate (feasible), ``residual`` its natural residual,
        ``iterations`` the number of accelerated steps; status OPTIMAL when
        residual <= tol, MAX_ITERATIONS otherwise, FAILED on non-finite values.

    Examples
    --------
    >>> from dpconvex.solvers.projected_gradient import accelerated_projected_gradient
    >>> target = np.array([2.0, -1.0])
    >>> def fun_grad(x):
    ...     return 0.5 * float(np.sum((x - target) ** 2)), x - target
    ...
    >>> res = accelerated_projected_gradient(fun_grad, np.zeros(2), project=lambda x: np.clip(x, 0.0, 1.0),
    ...                                      mu=1.0, L0=1.0)
    >>> res.status.name, res.x.round(6)
    ('OPTIMAL', array([1., 0.]))
    """
    # Small eigendecompositions and n x D products gain nothing from BLAS threads, and multithreaded OpenBLAS
    # was measured 25x slower on 2 cores (threads spinning between calls): run single-threaded.
    with single_threaded("blas"):
        return _apg(fun_grad, x0, project=project, mu=mu, L0=L0, tol=tol, max_iter=max_iter,
                    max_seconds=max_seconds)


#: A function-value difference smaller than this fraction of |J| is rounding: the
#: local curvature is then read from the gradients instead (as TFOCS does, [BCG]).
_VALUE_RELIABLE = 1e-10
#: The next step's L is this multiple of the last local curvature (never more than the L
#: that passed, never less than a quarter of it).
_CURVATURE_MARGIN = 1.5


def _local_curvature(
    fy: float, fn: float, gy: np.ndarray, gn: np.ndarray, d: np.ndarray, dd: float
) -> float:
    """The curvature of J along d = x⁺ − y (the smallest L of the descent lemma; ``L0``)."""
    if dd <= 0.0:
        return 0.0
    if abs(fn - fy) >= _VALUE_RELIABLE * max(abs(fn), abs(fy)):
        return 2.0 * (fn - fy - float(np.vdot(gy, d))) / dd
    return float(np.vdot(gn - gy, d)) / dd


def _apg(fun_grad: FunGrad, x0: np.ndarray, *, project: Project, mu: float, L0: float,
         tol: float, max_iter: int, max_seconds: float) -> SolveResult:
    t0 = time.perf_counter()
    L = float(max(L0, mu, 1e-12))
    L_max = 0.0
    x = project(np.asarray(x0, dtype=float))
    fx, gx = fun_grad(x)
    res = natural_residual(x, gx, project)
    y, fy, gy = x, fx, gx
    t_fista = 1.0
    n_backtrack = 0
    n_restart = 0
    it = 0
    status = SolveStatus.MAX_ITERATIONS
    while True:
        if not (math.isfinite(fx) and math.isfinite(res)):
            status = SolveStatus.FAILED
            break
        if res <= tol:
            status = SolveStatus.OPTIMAL
            break
        if it >= max_iter or time.perf_counter() - t0 > max_seconds:
            break
        it += 1
        # projected gradient step from y, with backtracking on L
        while True:
            xn = project(y - gy / L)
            fn, gn = fun_grad(xn)
            if not math.isfinite(fn):
                break
            d = xn - y
            curv = _local_curvature(fy, fn, gy, gn, d, float(np.vdot(d, d)))
            if curv <= L:
                break
            L = max(2.0 * L, _CURVATURE_MARGIN * curv)
            n_backtrack += 1
        if not math.isfinite(fn):
            status = SolveStatus.FAILED
            x, fx = xn, fn
            break
        L_max = max(L_max, L)
        # momentum (constant for strongly convex, FISTA sequence if mu == 0)
        if mu > 0:
            q = math.sqrt(min(1.0, mu / L))
            beta = (1.0 - q) / (1.0 + q)
        else:
            t_next = 0.5 * (1.0 + math.sqrt(1.0 + 4.0 * t_fista * t_fista))
            beta = (t_fista - 1.0) / t_next
            t_fista = t_next
        # the next step's L follows the local curvature (the step lengthens where J is flat)
        L = max(mu, 1e-12, min(L, max(0.25 * L, _CURVATURE_MARGIN * curv)))
        if fn > fx or float(np.vdot(y - xn, xn - x)) > 0.0:  # restart [OC]
            n_restart += 1
            t_fista = 1.0
            y = xn
            fy, gy = fn, gn
        else:
            y = xn + beta * (xn - x)
            fy, gy = fun_grad(y)
        x, fx, gx = xn, fn, gn
        res = natural_residual(x, gx, project)
        diagnostics.iteration("accelerated projected gradient", it, res)
    return SolveResult(
        x=x, status=status, objective=float(fx), residual=float(res), solver="native",
        iterations=it, seconds=time.perf_counter() - t0,
        info={"method": "accelerated projected gradient ("
              + getattr(project, "__qualname__", "projection") + ")",
              "lipschitz_estimate": max(L_max, L), "mu": mu, "backtracks": n_backtrack,
              "restarts": n_restart, "residual_definition": "||x - P(x - grad)||"},
    )


class ProjectedGradient(Backend["ProjectionTemplate"]):
    """The native backend for templates over a convex set: accelerated projected gradient.

    Uses the template's projection (``space.project``), its modulus μ = ``regularizer.strong_convexity`` + Δ
    and its initial Lipschitz estimate ``lipschitz_bound(Δ)``; solves to a natural residual <=
    ``template.residual_tol * NATIVE_TOL_FACTOR`` and returns the projected last iterate.

    Examples
    --------
    >>> from dpconvex.data.preprocess import augment_and_scale
    >>> from dpconvex.solvers import ProjectedGradient
    >>> from dpconvex.templates import LargeMarginGaussianTemplate
    >>> rng = np.random.default_rng(0)
    >>> Z = augment_and_scale(rng.normal(size=(30, 2)) / 2.0, data_norm=1.0)
    >>> template = LargeMarginGaussianTemplate(Z, np.arange(30) % 2, n_classes=2, lam=0.5)
    >>> backend = ProjectedGradient()
    >>> backend.supports(template)
    True
    >>> res = backend.solve(template, None)
    >>> res.status.name, res.x.shape
    ('OPTIMAL', (2, 1, 3, 3))
    """

    name = "native"
    requires = frozenset({"projection"})
    #: Reads the data only through the template's objective (for the large-margin
    #: template on Dask records: loss and gradient summed per chunk on the workers, one
    #: pass per evaluation) and ``lipschitz_bound``; the iterates stay on the driver.
    in_memory = False

    def solve(self, template: ProjectionTemplate, b: np.ndarray | None, extra_reg: float = 0.0,
              *, warm_start: np.ndarray | None = None, max_iter: int | None = None) -> SolveResult:
        b, extra_reg = self.admit(template, b, extra_reg)
        space = template.space
        x0 = np.zeros(space.shape) if warm_start is None else np.asarray(
            warm_start, dtype=float).reshape(space.shape)
        res = accelerated_projected_gradient(
            lambda P: template.objective(P, b, extra_reg), x0, project=space.project,
            mu=template.regularizer.strong_convexity + extra_reg,
            L0=template.lipschitz_bound(extra_reg), tol=template.residual_tol * NATIVE_TOL_FACTOR,
            **({} if max_iter is None else {"max_iter": int(max_iter)}),
        )
        if res.x is not None:
            with single_threaded("blas"):  # threads cost a small eigh 20x (see above)
                res.x = space.project(res.x)
                return at_returned_point(res, template, b, extra_reg)
        return res


def at_returned_point(res: SolveResult, template: ProjectionTemplate, b: np.ndarray | None,
                      extra_reg: float) -> SolveResult:
    """``res`` with its residual the template's at ``res.x``, the point the backend returns.

    A solver's own residual is the bare natural residual of its last iterate; the template's
    adds what it counts beyond it (a solved projection's ``projection_tol``), and the point
    returned may be a projection of that iterate. A projection solved by SCS is set up anew
    first (``reset_projection``): what its workspace solved before moves it within its
    tolerance, and the residual reported is then the one a recomputation after a reset finds.
    A point that is not finite keeps the solver's residual (its status is FAILED).

    Examples
    --------
    >>> from dpconvex.objectives import L2Ball, Logistic
    >>> from dpconvex.solvers import ProjectedGradient
    >>> from dpconvex.solvers.projected_gradient import at_returned_point
    >>> from dpconvex.templates import LinearERMTemplate
    >>> rng = np.random.default_rng(0)
    >>> X, y = rng.normal(size=(50, 3)) / 3.0, np.where(rng.normal(size=50) > 0, 1.0, -1.0)
    >>> template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=2.0, X=X, y=y,
    ...                              constraint_set=L2Ball(0.05))
    >>> res = at_returned_point(ProjectedGradient().solve(template, None), template, None, 0.0)
    >>> res.residual == template.residual(res.x, None, 0.0)
    True
    """
    if res.x is not None and np.all(np.isfinite(res.x)):
        convex = getattr(template.space, "convex_set", None)
        if hasattr(convex, "reset_projection"):
            convex.reset_projection()
        res.residual = float(template.residual(res.x, b, extra_reg))
        res.info["residual_definition"] = "template.residual at x"
    return res
