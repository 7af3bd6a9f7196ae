"""The privacy verifier: checks a template's conditions and computes its noise calibration.

A *template* (see :mod:`dpconvex.templates`) declares, through
:class:`PrivacyConstants`, the public constants its proof uses, and lists its
conditions (convexity, derivative bounds, ...) through ``conditions()``. The
verifier establishes each condition, computes sensitivity, Jacobian slack and
noise rate from public parameters only, and returns a
:class:`~dpconvex.certificate.Certificate`. A failed condition raises
:class:`~dpconvex.errors.PrivacyError` naming the condition and the fix.

Calibration of objective perturbation (generalizing [CMS]_ Alg. 2; derived in
``docs/privacy.md`` §3): with per-record Hessians that are sums of at most
``r`` PSD terms each of spectral norm <= ``c_u`` and a ``mu``-strongly convex
regularizer, the Jacobian ratio of the change of variables b -> θ is bounded by

    slack = 2 r log(1 + c_u / (n mu)),

which for r = 1, c_u = c q^2, mu = Λ is CMS's log(1 + 2c q^2/(nΛ) + c^2 q^4/(n^2Λ^2)).
The noise gets ε' = ε - slack; if the slack exceeds ε/2 (CMS: if ε' <= 0), the
modulus is raised by Δ so that the slack is ε/2 and ε' = ε/2. The noise rate is β = ε'/S with S = 2G the
replace-one sensitivity of the summed gradient (G = per-record gradient bound).

References
----------
.. [CMS] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially Private
   Empirical Risk Minimization. JMLR 12 (2011). Alg. 1 (output perturbation),
   Alg. 2 (objective perturbation) and their privacy proofs.
.. [KST] D. Kifer, A. Smith, A. Thakurta. Private Convex Empirical Risk
   Minimization and High-dimensional Regression. COLT 2012.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Protocol

import cvxpy as cp
import numpy as np

from ._validation import check_float
from .certificate import Certificate, Condition
from .errors import ParameterError, PrivacyError
from .losses import Loss

__all__ = [
    "MECHANISMS",
    "Calibration",
    "PrivacyConstants",
    "calibrate_objective_perturbation",
    "calibrate_output_perturbation",
    "check_dcp_convex",
    "jacobian_slack",
    "probe_loss",
    "verify",
]

#: Mechanisms the verifier knows.
MECHANISMS = ("objective", "output", "none")

#: Relative tolerance of the numerical probes of declared bounds.
PROBE_RTOL = 1e-6


@dataclass(frozen=True)
class PrivacyConstants:
    """Public constants a template declares for its privacy proof.

    Attributes
    ----------
    grad_bound : float
        G: bound on the norm of one record's loss gradient in the parameters.
    hessian_rank : int
        r: one record's loss Hessian is a sum of at most r PSD terms ...
    hessian_term_bound : float
        c_u: ... each of spectral norm at most c_u (inf if not twice differentiable).
    strong_convexity : float
        μ: strong-convexity modulus of the data-independent part of the objective.
    dimension : int
        p: dimension of the parameter (and noise) space.
    """

    grad_bound: float
    hessian_rank: int
    hessian_term_bound: float
    strong_convexity: float
    dimension: int


class Template(Protocol):
    """What the verifier needs from a template."""

    name: str
    n: int

    def privacy_constants(self) -> PrivacyConstants: ...

    def conditions(self, mechanism: str) -> list[Condition]: ...

    def assumptions(self, mechanism: str) -> list[str]: ...


@dataclass(frozen=True)
class Calibration:
    """Noise calibration computed from public constants.

    ``noise_rate`` β: the noise density is ∝ exp(-β ||b||).
    ``extra_strong_convexity`` Δ: add (Δ/2)||θ||^2 to the objective (objective
    perturbation only). ``epsilon`` = ``slack + epsilon_noise`` <= requested.
    """

    mechanism: str
    epsilon_requested: float
    epsilon: float
    epsilon_noise: float
    slack: float
    extra_strong_convexity: float
    sensitivity: float
    noise_rate: float


def jacobian_slack(n: int, mu: float, term_bound: float, rank: int) -> float:
    """2 r log(1 + c_u / (n μ)): the log Jacobian-ratio bound (docs/privacy.md §3.3)."""
    if rank == 0 or term_bound == 0:
        return 0.0
    return 2.0 * rank * math.log1p(term_bound / (n * mu))


def _remaining(epsilon: float, spent: float) -> float:
    """Largest float x with spent + x <= epsilon in floating point (rounding must not add ε)."""
    x = epsilon - spent
    while x > 0 and spent + x > epsilon:
        x = math.nextafter(x, 0.0)
    return x


def calibrate_objective_perturbation(
    epsilon: float, n: int, consts: PrivacyConstants
) -> Calibration:
    """Objective perturbation calibration ([CMS]_ Alg. 2, generalized; docs/privacy.md §3).

    Returns the split of ε between the Jacobian slack and the noise, the
    extra regularization Δ (0 unless the slack exceeds ε/2), and the noise
    rate β = ε' / (2G).
    """
    mu, c_u, r = consts.strong_convexity, consts.hessian_term_bound, consts.hessian_rank
    if not mu > 0:
        raise PrivacyError(
            "strong convexity: objective perturbation needs a strongly convex objective "
            f"(modulus > 0), got {mu}. Use a regularization strength lam > 0."
        )
    if not math.isfinite(c_u):
        raise PrivacyError(
            "curvature bound: objective perturbation needs a bounded second derivative "
            "of the loss (declared curvature is infinite). Use a smooth loss (logistic, "
            "huber, smooth_hinge) or output perturbation."
        )
    slack = jacobian_slack(n, mu, c_u, r)
    delta_reg = 0.0
    eps_noise = _remaining(epsilon, slack)
    if slack > epsilon / 2.0:
        # Raise the modulus to mu' with 2 r log(1 + c_u/(n mu')) = ε/2 (CMS Alg. 2's Δ branch).
        # CMS switch only when ε' <= 0; switching as soon as the slack exceeds ε/2 is equally
        # private (Δ depends on public constants only) and keeps ε' >= ε/2 instead of letting
        # it shrink towards 0 (docs/privacy.md §3.2). The factor (1 + 1e-12) keeps the slack
        # strictly below ε/2 in floating point.
        mu_needed = c_u / (n * math.expm1(epsilon / (4.0 * r))) * (1.0 + 1e-12)
        delta_reg = max(mu_needed - mu, 0.0)
        slack = jacobian_slack(n, mu + delta_reg, c_u, r)
        eps_noise = _remaining(epsilon, max(slack, epsilon / 2.0))
    sensitivity = 2.0 * consts.grad_bound
    return Calibration(
        mechanism="objective",
        epsilon_requested=epsilon,
        epsilon=slack + eps_noise,
        epsilon_noise=eps_noise,
        slack=slack,
        extra_strong_convexity=delta_reg,
        sensitivity=sensitivity,
        noise_rate=eps_noise / sensitivity,
    )


def calibrate_output_perturbation(
    epsilon: float, n: int, consts: PrivacyConstants
) -> Calibration:
    """Output perturbation ([CMS]_ Alg. 1): argmin sensitivity 2G/(n μ), β = ε/S."""
    mu = consts.strong_convexity
    if not mu > 0:
        raise PrivacyError(
            "strong convexity: output perturbation bounds the argmin sensitivity by "
            f"2G/(n*mu) and needs mu > 0; got {mu}. Use lam > 0."
        )
    sensitivity = 2.0 * consts.grad_bound / (n * mu)
    return Calibration(
        mechanism="output",
        epsilon_requested=epsilon,
        epsilon=epsilon,
        epsilon_noise=epsilon,
        slack=0.0,
        extra_strong_convexity=0.0,
        sensitivity=sensitivity,
        noise_rate=epsilon / sensitivity,
    )


def check_dcp_convex(expr: cp.Expression, what: str) -> Condition:
    """Convexity of a CVXPY expression by DCP analysis; raises PrivacyError if not convex."""
    if not expr.is_convex():
        raise PrivacyError(
            f"convexity: {what} is not convex under CVXPY's DCP rules, so the "
            "privacy proofs (which need a convex objective) do not apply. Rewrite it "
            "with DCP-convex atoms (see https://www.cvxpy.org/tutorial/dcp/)."
        )
    return Condition("convexity", True, "CVXPY DCP analysis", f"{what} is DCP-convex")


def _probe_grid(kinks: tuple[float, ...]) -> np.ndarray:
    base = np.linspace(-50.0, 50.0, 20001)
    far = np.array([-1e6, -1e4, -1e3, -200.0, 200.0, 1e3, 1e4, 1e6])
    near = [k + s for k in kinks for s in (-1e-3, -1e-6, 0.0, 1e-6, 1e-3)]
    return np.unique(np.concatenate([base, far, np.asarray(near, dtype=float)]))


def probe_loss(loss: Loss, *, need_curvature: bool) -> list[Condition]:
    """Check a margin loss's declared constants against its own code, numerically.

    Probes, on a fine grid of margins (with points around declared kinks and far
    out): (i) convexity (finite-difference and declared ℓ'' >= 0); (ii) the
    declared derivative matches finite differences of the value, and
    ``value_and_deriv`` (what the native solver calls) matches both; (iii)
    |ℓ'| <= ``deriv_bound``; (iv) ℓ'' <= ``curvature`` (when needed). A probe
    cannot prove a bound, only refute it: the certificate says so.

    Raises
    ------
    PrivacyError
        Naming the violated bound, where, and how to fix it.
    """
    conds: list[Condition] = []
    m = _probe_grid(loss.kinks)
    d1 = np.asarray(loss.deriv(m), dtype=float)
    v = np.asarray(loss.value(m), dtype=float)
    if not (np.all(np.isfinite(d1)) and np.all(np.isfinite(v))):
        raise PrivacyError(f"loss '{loss.name}': value or derivative is not finite on the probe grid.")
    # (ii) derivative consistent with value (central differences on the interior grid)
    hstep = 1e-5
    mi = np.linspace(-20.0, 20.0, 4001)
    fd = (loss.value(mi + hstep) - loss.value(mi - hstep)) / (2 * hstep)
    err = np.abs(fd - loss.deriv(mi))
    if np.max(err) > 1e-4 * max(1.0, float(np.max(np.abs(fd)))):
        k = int(np.argmax(err))
        raise PrivacyError(
            f"derivative: loss '{loss.name}' declares deriv({mi[k]:.4g}) = "
            f"{float(loss.deriv(mi[k])):.6g} but finite differences of value give {fd[k]:.6g}. "
            "Fix the loss's deriv() so the declared bounds are about the real derivative."
        )
    # (ii-b) the fused value_and_deriv the solvers use is the same function
    vf, df = (np.asarray(a, dtype=float) for a in loss.value_and_deriv(m))
    bad = ~(np.isclose(vf, v, rtol=1e-10, atol=1e-300) & np.isclose(df, d1, rtol=1e-10, atol=1e-15))
    if np.any(bad):
        k = int(np.argmax(bad))
        raise PrivacyError(
            f"value_and_deriv: loss '{loss.name}' returns ({float(vf[k]):.6g}, {float(df[k]):.6g}) "
            f"at m = {m[k]:.4g}, but value() and deriv() give ({float(v[k]):.6g}, "
            f"{float(d1[k]):.6g}). Fix value_and_deriv (or remove it) so the solver minimizes the "
            "loss whose bounds were checked."
        )
    # (i) convexity: derivative non-decreasing
    dd = np.diff(d1)
    if np.min(dd) < -1e-9:
        k = int(np.argmin(dd))
        raise PrivacyError(
            f"convexity: loss '{loss.name}' has a decreasing derivative near m = {m[k]:.4g} "
            "(the numerical probe found it non-convex). Use a convex loss."
        )
    conds.append(Condition("loss convexity", True, "numerical probe",
                           f"ℓ' non-decreasing on {m.size} margins in [-1e6, 1e6]"))
    # (iii) derivative bound
    obs = float(np.max(np.abs(d1)))
    if obs > loss.deriv_bound * (1 + PROBE_RTOL):
        k = int(np.argmax(np.abs(d1)))
        raise PrivacyError(
            f"derivative bound: loss '{loss.name}' declares |ℓ'| <= {loss.deriv_bound:g}, but the "
            f"numerical probe found |ℓ'({m[k]:.4g})| = {obs:.6g}. Declare deriv_bound >= "
            f"{obs:.6g} (the noise scales with it) or bound the loss's slope."
        )
    conds.append(Condition("|ℓ'| bound", True, "declared; numerical probe",
                           f"declared {loss.deriv_bound:g}, max observed {obs:.6g}"))
    if need_curvature:
        c = float(loss.curvature)
        d2 = np.asarray(loss.deriv2(m), dtype=float)
        fd2 = np.diff(d1) / np.diff(m)
        obs2 = float(max(np.max(d2), np.max(fd2)))
        if np.min(d2) < -1e-12:
            raise PrivacyError(
                f"convexity: loss '{loss.name}' declares a negative second derivative "
                f"({np.min(d2):.3g}). Use a convex loss."
            )
        if not math.isfinite(c) or obs2 > c * (1 + 1e-3) + 1e-12:
            raise PrivacyError(
                f"curvature bound: loss '{loss.name}' declares ℓ'' <= {c:g}, but the numerical "
                f"probe found {obs2:.6g}. Declare curvature >= {obs2:.6g} (the Jacobian slack "
                "scales with it)."
            )
        conds.append(Condition("ℓ'' bound (c)", True, "declared; numerical probe",
                               f"declared {c:g}, max observed {obs2:.6g}"))
    return conds


def verify(template: Template, *, epsilon: float, mechanism: str) -> tuple[Certificate, Calibration | None]:
    """Verify a template for a mechanism and compute its calibration.

    Parameters
    ----------
    template : Template
        Declares ``privacy_constants()``, ``conditions(mechanism)``,
        ``assumptions(mechanism)``, ``name`` and ``n``.
    epsilon : float
        Requested ε > 0 (ignored for ``mechanism="none"``).
    mechanism : {"objective", "output", "none"}

    Returns
    -------
    certificate : Certificate
        With every condition and the derived quantities; its ``epsilon`` never
        exceeds the requested ε.
    calibration : Calibration or None
        None for ``mechanism="none"``.

    Raises
    ------
    PrivacyError
        When a condition of the proof fails (nothing may be released).
    """
    if mechanism not in MECHANISMS:
        raise ParameterError(f"mechanism must be one of {MECHANISMS}. Got {mechanism!r} instead.")
    if mechanism == "none":
        cert = Certificate(
            mechanism=f"non-private baseline ({template.name})",
            epsilon_requested=math.inf,
            epsilon=math.inf,
            private=False,
            assumptions=["mechanism='none' adds no noise: the model is NOT private."],
        )
        return cert, None
    epsilon = check_float("epsilon", epsilon, "verify")
    conds = list(template.conditions(mechanism))
    failed = [c for c in conds if not c.holds]
    if failed:
        c = failed[0]
        raise PrivacyError(f"{c.name}: {c.detail}")
    consts = template.privacy_constants()
    conds.append(Condition(
        "strong convexity", consts.strong_convexity > 0, "declared by the regularizer",
        f"modulus mu = {consts.strong_convexity:g}",
    ))
    if mechanism == "objective":
        cal = calibrate_objective_perturbation(epsilon, template.n, consts)
        label = f"objective perturbation (CMS Alg. 2) on {template.name}"
    else:
        cal = calibrate_output_perturbation(epsilon, template.n, consts)
        label = f"output perturbation (CMS Alg. 1) on {template.name}"
    if cal.epsilon > epsilon:  # pragma: no cover - guarded by construction
        raise PrivacyError(f"calibration: computed epsilon {cal.epsilon} exceeds requested {epsilon}.")
    conds.append(Condition(
        "epsilon accounting", True, "computed from public parameters",
        f"slack {cal.slack:.6g} + noise {cal.epsilon_noise:.6g} = {cal.epsilon:.6g} <= {epsilon:g}",
    ))
    quantities: dict[str, Any] = {
        "n": template.n,
        "dimension p": consts.dimension,
        "per-record gradient bound G": consts.grad_bound,
        "hessian terms r": consts.hessian_rank,
        "hessian term bound c_u": consts.hessian_term_bound,
        "strong convexity mu": consts.strong_convexity,
        "sensitivity": cal.sensitivity,
        "jacobian slack": cal.slack,
        "epsilon for noise (eps')": cal.epsilon_noise,
        "extra regularization Delta": cal.extra_strong_convexity,
        "noise rate beta": cal.noise_rate,
        "expected noise norm p/beta": consts.dimension / cal.noise_rate,
    }
    cert = Certificate(
        mechanism=label,
        epsilon_requested=epsilon,
        epsilon=cal.epsilon,
        private=True,
        conditions=conds,
        quantities=quantities,
        assumptions=list(template.assumptions(mechanism)),
    )
    return cert, cal
