"""Projected Newton for smooth, strongly convex objectives over a set stated in CVXPY.

Minimizes J over a closed convex set S given as CVXPY constraints in the parameter's own
coordinates (:class:`~dpconvex.objectives.CVXPYSet`, compiled once to a small cone
program, :class:`~dpconvex.objectives.sets.CompiledSetQP`). Each step minimizes the
quadratic model of J at θ over S,

    v = argmin_{v ∈ S} ∇J(θ)ᵀ(v − θ) + ½ (v − θ)ᵀ ∇²J(θ) (v − θ),

a problem in the p coordinates of θ (never the n rows), solved by SCS, and moves to
θ + t (v − θ) with t from Armijo backtracking (θ + t (v − θ) stays in S by convexity): the
proximal Newton method of Lee, Sun & Saunders (SIAM J. Optim. 24(3), 2014, Alg. 3.1),
locally quadratic with the exact Hessian. Many rows (capability ``"sampled_hessian"``): the
models far from the minimizer take a Hessian sampled from every k-th row (as
:class:`~dpconvex.solvers.LbfgsNewton` does), the exact one from a residual of 1e4 x the
target on. The residual is the natural residual
||θ − Π_S(θ − ∇J(θ))|| (:func:`~dpconvex.templates.base.natural_residual`) with the
projection solved by SCS (each within :data:`~dpconvex.objectives.sets.PROJECTION_TOL`,
which the template's residual adds).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np

from .. import errors as diagnostics
from ..templates.base import natural_residual
from .lbfgs_newton import _FULL_NEWTON_GTOL, NATIVE_TOL_FACTOR
from .projected_gradient import accelerated_projected_gradient, at_returned_point
from .registry import Backend, SolveResult, SolveStatus, single_threaded

if TYPE_CHECKING:
    from ..templates.base import ProjectionTemplate

__all__ = ["ProjectedNewton"]

#: At most this many Newton steps; accelerated projected gradient finishes a solve they leave short.
_NEWTON_STEPS = 50


class ProjectedNewton(Backend["ProjectionTemplate"]):
    """The native backend over a set stated in CVXPY: projected (proximal) Newton steps.

    Needs capability ``"set_qp"``: the template's set minimizes a quadratic over itself
    (``space.convex_set.qp``) and the template gives its Hessian. Solves to a natural residual
    <= ``template.residual_tol * NATIVE_TOL_FACTOR``; with ``max_iter`` at most that many
    Newton steps and nothing else (the accuracy check decides whether anything is released).

    Examples
    --------
    >>> import cvxpy as cp
    >>> from dpconvex.objectives import CVXPYSet, Logistic
    >>> from dpconvex.solvers import ProjectedNewton
    >>> from dpconvex.templates import LinearERMTemplate
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3)) / 3.0
    >>> y = np.where(X[:, 0] > 0, 1.0, -1.0)
    >>> w = cp.Variable(3)
    >>> template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=2.0, X=X, y=y,
    ...                              constraint_set=CVXPYSet([w >= 0, w[0] + w[1] <= 0.5], w))
    >>> res = ProjectedNewton().solve(template, None)
    >>> res.status.name, res.residual <= template.residual_tol
    ('OPTIMAL', True)
    """

    name = "native"
    requires = frozenset({"projection", "set_qp"})
    in_memory = False

    def solve(self, template: ProjectionTemplate, b: np.ndarray | None, extra_reg: float = 0.0,
              *, warm_start: np.ndarray | None = None, max_iter: int | None = None) -> SolveResult:
        b, extra_reg = self.admit(template, b, extra_reg)
        t0 = time.perf_counter()
        space = template.space
        space.convex_set.reset_projection()  # type: ignore[attr-defined]  # this solve's points only
        qp = space.convex_set.qp  # type: ignore[attr-defined]
        tol = template.residual_tol * NATIVE_TOL_FACTOR
        steps = _NEWTON_STEPS if max_iter is None else int(max_iter)
        sampled = "sampled_hessian" in template.capabilities
        x = np.zeros(space.shape) if warm_start is None else np.asarray(
            warm_start, dtype=float).reshape(space.shape)
        with single_threaded("blas"):  # p x p solves: BLAS threads only add overhead
            x = space.project(x)
            f, g = template.objective(x, b, extra_reg)
            res = natural_residual(x, g, space.project)
            k = 0
            while res > tol and k < steps and np.isfinite(f):
                if sampled and res > tol * _FULL_NEWTON_GTOL:  # far from the minimizer: a sample
                    H = template.sampled_hessian(x, extra_reg)  # type: ignore[attr-defined]
                else:
                    H = template.hessian(x, extra_reg)  # type: ignore[attr-defined]
                H = np.asarray(H, dtype=float)
                v = qp.minimize(H, g - H @ x)
                d = v - x
                slope = float(g @ d)
                if not slope < 0:
                    break
                t = 1.0
                while t > 1e-10:
                    xn = x + t * d
                    fn, gn = template.objective(xn, b, extra_reg)
                    if fn <= f + 1e-4 * t * slope:
                        break
                    rn = natural_residual(xn, gn, space.project)
                    if rn < res:  # near the minimizer J's decrease is below its rounding
                        break
                    t *= 0.5
                else:
                    break
                x, f, g = xn, fn, gn
                res = natural_residual(x, g, space.project)
                k += 1
                diagnostics.iteration("projected Newton", k, res)
        info = {"method": "projected Newton (quadratic models over the set by SCS)",
                "newton_steps": k}
        if res > tol and max_iter is None and np.isfinite(f):
            # Newton stalled (an SCS model not accurate enough near the minimizer): accelerated
            # projected gradient from its point, with the same projection
            finish = accelerated_projected_gradient(
                lambda P: template.objective(P, b, extra_reg), x, project=space.project,
                mu=template.regularizer.strong_convexity + extra_reg,
                L0=template.lipschitz_bound(extra_reg), tol=tol)
            finish.iterations += k
            finish.info = {**finish.info, **info,
                           "method": "projected Newton, then accelerated projected gradient"}
        else:
            status = (SolveStatus.FAILED if not (np.isfinite(f) and np.all(np.isfinite(x)))
                      else SolveStatus.OPTIMAL if res <= tol else SolveStatus.MAX_ITERATIONS)
            finish = SolveResult(x=x, status=status, objective=float(f), residual=float(res),
                                 solver="native", iterations=k, info=info)
        with single_threaded("blas"):
            finish = at_returned_point(finish, template, b, extra_reg)
        finish.seconds = time.perf_counter() - t0
        return finish
