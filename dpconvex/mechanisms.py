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

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._random import RandomStateLike, check_random_state
from ._validation import check_float
from .certificate import Certificate, Condition
from .errors import PrivacyError, SolverError
from .noise import norm_gamma, snap
from .solvers.base import SolveResult, SolveStatus
from .verify import _remaining, verify

__all__ = ["Prepared", "fit_template", "require_accurate"]


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


@dataclass
class Prepared:
    """What a fit builds before it spends any budget: the template and its metadata.

    ``template`` is the declarative problem on validated, clipped data; ``meta``
    holds what the estimator needs to set its fitted attributes. ``reusable`` is
    False when building it drew on the budget or on randomness that belongs to one
    fit (e.g. DP k-means component assignment), so a sweep must rebuild it per fit.
    """

    template: Any
    meta: dict[str, Any] = field(default_factory=dict)
    reusable: bool = True


def fit_template(
    template: Any,
    *,
    epsilon: float,
    mechanism: str,
    solver: str,
    random_state: RandomStateLike = None,
    warm_start: np.ndarray | None = None,
    optimality_tol: float | None = None,
    amp_fraction: float = 0.1,
    max_iter: int | None = None,
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
    warm_start : ndarray, optional
        Starting point for the solver (e.g. the previous fit in an ε sweep).
    optimality_tol : float or None
        None (default): *exact-minimizer mode*: release only when the optimality
        residual is <= ``template.residual_tol``, else :class:`SolverError`.
        A float γ > 0: *approximate-minima perturbation* (AMP, Iyengar et al.
        2019): the budget is split, ε₁ = (1 - amp_fraction)·ε for the mechanism
        and ε₂ = amp_fraction·ε for extra output noise covering the distance
        (<= ``template.distance_bound(γ, μ)``) between the released point and the
        exact minimizer; the solve must reach residual <= γ. docs/privacy.md §5.
    amp_fraction : float
        Share of ε spent on the AMP cover, in (0, 1).
    max_iter : int or None
        Cap on the solver's iterations (passed to ``template.solve``); the
        residual check still decides whether anything is released.

    Returns
    -------
    theta : ndarray
        Released parameters.
    certificate : Certificate
    result : SolveResult
        The solve behind the release.
    """
    if optimality_tol is not None and mechanism != "none":
        return _fit_amp(template, epsilon=epsilon, mechanism=mechanism, solver=solver,
                        random_state=random_state, warm_start=warm_start,
                        gamma=optimality_tol, fraction=amp_fraction, max_iter=max_iter)
    cert, cal = verify(template, epsilon=epsilon, mechanism=mechanism)
    rng = check_random_state(random_state)
    theta, res = _release(template, cal, mechanism, solver, rng, warm_start, template.residual_tol,
                          max_iter)
    cert.solver = res.summary()
    if mechanism != "none":
        cert.conditions.append(Condition(
            "accurate solve", True, "residual computed by dpconvex",
            f"status {res.status.value}, residual {res.residual:.3g} <= {template.residual_tol:g} "
            "(exact-minimizer mode)",
        ))
    return theta, cert, res


def _release(template: Any, cal: Any, mechanism: str, solver: str, rng: np.random.Generator,
             warm_start: np.ndarray | None, tol: float,
             max_iter: int | None = None) -> tuple[np.ndarray, SolveResult]:
    """Draw the mechanism's noise, solve, check the residual, return the (noisy) solution."""
    kw: dict[str, Any] = {"solver": solver, "warm_start": warm_start}
    if max_iter is not None:
        kw["max_iter"] = max_iter
    if mechanism == "objective":
        b = norm_gamma(template.noise_shape, cal.noise_rate, rng, symmetric=template.noise_symmetric)
        res = require_accurate(
            template.solve(b, cal.extra_strong_convexity, **kw), tol)
        theta = res.x
    else:
        res = require_accurate(template.solve(None, 0.0, **kw), tol)
        theta = res.x
        if mechanism == "output":
            noise = norm_gamma(template.noise_shape, cal.noise_rate, rng,
                               symmetric=template.noise_symmetric)
            theta = snap(theta + noise.reshape(theta.shape),
                         coordinate_scale(template.noise_shape, cal.noise_rate))
    return np.array(theta, copy=True), res


def _fit_amp(template: Any, *, epsilon: float, mechanism: str, solver: str,
             random_state: RandomStateLike, warm_start: np.ndarray | None, gamma: float,
             fraction: float, max_iter: int | None) -> tuple[np.ndarray, Certificate, SolveResult]:
    """Approximate-minima perturbation (Iyengar et al., IEEE S&P 2019); docs/privacy.md §5."""
    gamma = check_float("optimality_tol", gamma, "fit_template")
    fraction = check_float("amp_fraction", fraction, "fit_template", high=1.0)
    epsilon = check_float("epsilon", epsilon, "fit_template")
    distance_bound = getattr(template, "distance_bound", None)
    if distance_bound is None:
        raise PrivacyError(
            f"approximate minima: template '{template.name}' declares no distance_bound(residual, "
            "mu) relating its optimality residual to the distance from the exact minimizer, so "
            "AMP cannot cover an inexact solve. Use optimality_tol=None (exact-minimizer mode)."
        )
    eps_main = (1.0 - fraction) * epsilon
    eps_amp = _remaining(epsilon, eps_main)
    main_cert, cal = verify(template, epsilon=eps_main, mechanism=mechanism)
    rng = check_random_state(random_state)
    theta, res = _release(template, cal, mechanism, solver, rng, warm_start, gamma, max_iter)
    mu = template.privacy_constants().strong_convexity + cal.extra_strong_convexity
    radius = float(distance_bound(gamma, mu))
    sensitivity = 2.0 * radius
    rate = eps_amp / sensitivity
    cover = norm_gamma(template.noise_shape, rate, rng, symmetric=template.noise_symmetric)
    theta = snap(theta + cover.reshape(theta.shape), coordinate_scale(template.noise_shape, rate))
    post = getattr(template, "postprocess", None)
    if post is not None:
        theta = post(theta)
    main_cert.solver = res.summary()
    amp_cert = Certificate(
        mechanism="AMP output cover (Iyengar et al. 2019)",
        epsilon_requested=eps_amp,
        epsilon=eps_amp,
        conditions=[Condition(
            "approximate solve", True, "residual computed by dpconvex",
            f"residual {res.residual:.3g} <= gamma = {gamma:g}; distance to the exact minimizer "
            f"<= {radius:.3g} (modulus {mu:.3g})",
        )],
        quantities={"gamma": gamma, "strong convexity (with Delta)": mu,
                    "distance bound": radius, "sensitivity 2*distance": sensitivity,
                    "noise rate beta": rate, "expected noise norm": template_dim(template) / rate},
    )
    total = main_cert.epsilon + eps_amp
    cert = Certificate(
        mechanism=f"approximate-minima perturbation: {main_cert.mechanism} + output cover",
        epsilon_requested=epsilon,
        epsilon=total,
        conditions=[Condition(
            "epsilon accounting", total <= epsilon, "sequential composition",
            f"{main_cert.epsilon:.6g} (mechanism) + {eps_amp:.6g} (AMP cover) = {total:.6g} "
            f"<= {epsilon:g}",
        )],
        quantities={"amp_fraction": fraction},
        assumptions=["the exact minimizer of the perturbed objective is private by the "
                     "mechanism's proof; the released point differs from it by at most the "
                     "distance bound, which the cover noise masks (Iyengar et al. 2019)"],
        solver=res.summary(),
        parts=[main_cert, amp_cert],
    )
    return theta, cert, res


def coordinate_scale(shape: tuple[int, ...], rate: float) -> float:
    """Public per-coordinate scale of norm-Gamma noise: E||b|| / sqrt(#entries) = p / (β sqrt(p))."""
    m = int(np.prod(shape))
    return m / rate / np.sqrt(m)


def template_dim(template: Any) -> int:
    return int(template.privacy_constants().dimension)
