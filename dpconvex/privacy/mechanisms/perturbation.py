"""Output and objective perturbation ([CMS]_ Alg. 1 and 2) and the non-private baseline.

Objective perturbation's calibration (derived in
docs/privacy/perturbation.md#privacy-objective-perturbation, privacy-jacobian-slack): from
one record's Hessian rank r and trace bound T (``hessian_trace_bound``, else r·c_u) and the
modulus μ, the one-sided Jacobian slack r log(1 + T/(r n μ)) (:func:`jacobian_slack`; CMS's
two-sided 2 r log(1 + c_u/(n μ)) with ``slack="two_sided"``); the noise gets ε' = ε − slack,
and if the slack exceeds ε/2 the modulus is raised to :func:`half_epsilon_modulus`
(slack = ε' = ε/2). The noise rate is β = ε'/(2G).

References
----------
.. [CMS] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially Private
   Empirical Risk Minimization. JMLR 12 (2011). Alg. 1 (output perturbation),
   Alg. 2 (objective perturbation) and their privacy proofs.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ...errors import ParameterError, PrivacyError
from ..budget import Budget, Certificate, Condition, remaining
from ..noise import Noise, NormGamma
from .base import (
    Calibration,
    ExactMinimizer,
    NoiseReport,
    NonPrivateBaseline,
    at_modulus,
    register,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from ...templates.base import ObjectiveTemplate, PrivacyConstants
    from .base import ConstantsSource

__all__ = ["NonPrivate", "ObjectivePerturbation", "OutputPerturbation", "calibrate_objective_perturbation",
           "calibrate_objective_perturbation_grid", "calibrate_output_perturbation", "SLACK_RULES",
           "half_epsilon_modulus", "hessian_trace_bound", "jacobian_slack", "jacobian_slack_two_sided",
           "objective_modulus_floor"]

#: Names of the Jacobian-slack rules :func:`calibrate_objective_perturbation` accepts.
SLACK_RULES: tuple[str, ...] = ("one_sided", "two_sided")


def jacobian_slack(n: int, mu: float, trace_bound: float, rank: int) -> float:
    """One-sided, trace-based log Jacobian-ratio bound r·log(1 + T/(r n μ))
    (docs/privacy/perturbation.md#privacy-jacobian-slack).

    n records, μ > 0 the modulus of the data-independent part (Λ + Δ), T >= tr(H) and
    r >= rank(H) for one record's loss Hessian H: r log1p(T/(r n μ)) >= log det(I + H/(nμ))
    (AM-GM over the <= r nonzero eigenvalues); 0 when r = 0 or T = 0.

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms import jacobian_slack, jacobian_slack_two_sided
    >>> round(jacobian_slack(40, 0.1, 0.25, 1), 4)
    0.0606
    >>> jacobian_slack(40, 0.1, 0.25, 1) <= jacobian_slack_two_sided(40, 0.1, 0.25, 1)
    True
    """
    if rank == 0 or trace_bound == 0:
        return 0.0
    return rank * math.log1p(trace_bound / (rank * n * mu))


def jacobian_slack_two_sided(n: int, mu: float, term_bound: float, rank: int) -> float:
    """The two-sided, conservative bound 2 r log(1 + c_u/(n μ)) ([CMS]_ Alg. 2's constant for r = 1).

    For comparison with the one-sided bound (:func:`jacobian_slack`); the
    calibration uses it only with ``slack="two_sided"``. ``term_bound`` is c_u,
    the spectral-norm bound of each of the r PSD terms (docs/privacy/perturbation.md#privacy-jacobian-slack).

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms import jacobian_slack_two_sided
    >>> round(jacobian_slack_two_sided(40, 0.1, 0.25, 1), 4)
    0.1212
    """
    if rank == 0 or term_bound == 0:
        return 0.0
    return 2.0 * rank * math.log1p(term_bound / (n * mu))


def half_epsilon_modulus(epsilon: float, n: int, trace_bound: float, rank: int) -> float:
    """μ' = T/(r n (e^{ε/(2r)} − 1)): the modulus at which the one-sided slack equals ε/2.

    For ε/(2r) > 700 (e^{ε/(2r)} beyond the float range) the same value is computed as
    T e^{−ε/(2r)}/(r n (1 − e^{−ε/(2r)})), which underflows to 0 instead of overflowing.

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms import half_epsilon_modulus, jacobian_slack
    >>> mu = half_epsilon_modulus(1.0, n=40, trace_bound=0.25, rank=1)
    >>> round(mu, 5), round(jacobian_slack(40, mu, 0.25, 1), 6)
    (0.00963, 0.5)
    """
    x = epsilon / (2.0 * rank)
    if x > 700.0:
        return trace_bound * math.exp(-x) / (rank * n * -math.expm1(-x))
    return trace_bound / (rank * n * math.expm1(x))


def hessian_trace_bound(consts: PrivacyConstants) -> float:
    """T: the declared trace bound, never above r·c_u (which the per-term bounds imply).

    ``consts.hessian_trace_bound`` may be absent or None (then T = r·c_u).

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms import hessian_trace_bound
    >>> from dpconvex.templates import PrivacyConstants
    >>> hessian_trace_bound(PrivacyConstants(1.0, 2, 0.25, 0.1, 3))
    0.5
    >>> hessian_trace_bound(PrivacyConstants(1.0, 2, 0.25, 0.1, 3, hessian_trace_bound=0.3))
    0.3
    """
    r, c_u = consts.hessian_rank, consts.hessian_term_bound
    per_term = r * c_u if r > 0 else 0.0
    declared = getattr(consts, "hessian_trace_bound", None)
    return per_term if declared is None else min(float(declared), per_term)


def _slack_rule(epsilon: float, n: int, consts: PrivacyConstants, mu_min: float, slack: str,
                caller: str) -> tuple[Callable[[int, float, float, int], float], float, float, float]:
    """The parts of the slack rule ``slack`` for a calibration whose smallest modulus is
    ``mu_min``: (its slack function, the bound it reads (T one-sided, c_u two-sided), the
    modulus at which its slack is ε/2, the modulus floor), refusing a rule, modulus or
    curvature the calibration cannot use.

    The modulus at slack ε/2 is taken times (1 + 1e-12) so that the slack stays strictly
    below ε/2 in floating point (the two-sided slack 2 r log(1 + c_u/(n μ)) = ε/2 is the
    one-sided one at ε/(2r), T = c_u, r = 1); nan where no modulus of the calibration has a
    slack above ε/2. The floor is μ + Δ of
    the calibration at the vanishing modulus μ = 1e-300: the smallest modulus at which no Δ
    is added (docs/privacy/perturbation.md#privacy-lambda-rule).
    """
    if slack not in SLACK_RULES:
        raise ParameterError(f"The 'slack' argument of {caller} must be one of {SLACK_RULES}. "
                             f"Got {slack!r} instead.")
    if not mu_min > 0:
        raise PrivacyError(
            f"{caller}: strong convexity: objective perturbation needs a strongly convex "
            f"objective (modulus > 0), got {mu_min}. Use a regularization strength lam > 0.")
    r, one_sided = consts.hessian_rank, slack == "one_sided"
    bound = hessian_trace_bound(consts) if one_sided else consts.hessian_term_bound
    if not math.isfinite(bound):
        raise PrivacyError(
            f"{caller}: curvature bound: objective perturbation needs a bounded second "
            "derivative of the loss (declared curvature is infinite). Use a smooth loss "
            "(logistic, huber, smooth_hinge) or output perturbation.")
    rule = jacobian_slack if one_sided else jacobian_slack_two_sided
    tiny, half = 1e-300, math.nan  # nan: read only where the slack exceeds ε/2
    if rule(n, min(tiny, mu_min), bound, r) > epsilon / 2.0:
        half = half_epsilon_modulus(*((epsilon, n, bound, r) if one_sided else
                                      (epsilon / (2.0 * r), n, bound, 1))) * (1.0 + 1e-12)
    floor = tiny + max(half - tiny, 0.0) if rule(n, tiny, bound, r) > epsilon / 2.0 else tiny
    return rule, bound, half, floor


def _objective_calibration(epsilon: float, eps_slack: Any, eps_noise: Any, delta_reg: Any,
                           consts: PrivacyConstants, floor: float) -> Calibration:
    """The calibration of objective perturbation from its parts (scalars, or arrays on a grid)."""
    sensitivity = 2.0 * consts.grad_bound
    return Calibration(
        mechanism="objective",
        epsilon_requested=epsilon,
        epsilon=eps_slack + eps_noise,
        epsilon_noise=eps_noise,
        slack=eps_slack,
        extra_strong_convexity=delta_reg,
        sensitivity=sensitivity,
        noise_rate=eps_noise / sensitivity,
        modulus_floor=floor,
    )


def calibrate_objective_perturbation(epsilon: float, n: int, consts: PrivacyConstants, *,
                                     slack: str = "one_sided",
                                     caller: str = "calibrate_objective_perturbation"
                                     ) -> Calibration:
    """Objective perturbation calibration ([CMS]_ Alg. 2, generalized;
    docs/privacy/perturbation.md#privacy-objective-perturbation,
    privacy-jacobian-slack).

    From ε, n (public under replace-one adjacency) and the declared G, r, c_u, T, μ: the
    split of ε between the slack (``slack``: :func:`jacobian_slack` or
    :func:`jacobian_slack_two_sided`) and the noise, Δ (0 unless the slack exceeds ε/2), the
    noise rate β = ε'/(2G) and the modulus floor. ``caller`` opens a refusal's messages.

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms import calibrate_objective_perturbation
    >>> from dpconvex.templates import PrivacyConstants
    >>> consts = PrivacyConstants(grad_bound=1.0, hessian_rank=1, hessian_term_bound=0.25,
    ...                           strong_convexity=0.1, dimension=3)
    >>> cal = calibrate_objective_perturbation(1.0, 40, consts)
    >>> round(cal.slack, 4), round(cal.noise_rate, 4), cal.extra_strong_convexity
    (0.0606, 0.4697, 0.0)
    """
    mu, r = consts.strong_convexity, consts.hessian_rank
    rule, bound, half, floor = _slack_rule(epsilon, n, consts, mu, slack, caller)
    eps_slack = rule(n, mu, bound, r)
    delta_reg = 0.0
    eps_noise = remaining(epsilon, eps_slack)
    if eps_slack > epsilon / 2.0:
        # Raise the modulus to mu' with slack(mu') = ε/2 (CMS Alg. 2's Δ branch, re-solved for
        # the rule in use). Switching as soon as the slack exceeds ε/2 is equally private (Δ
        # depends on public constants only) and keeps ε' >= ε/2
        # (docs/privacy/perturbation.md#privacy-objective-perturbation).
        delta_reg = max(half - mu, 0.0)
        eps_slack = rule(n, mu + delta_reg, bound, r)
        eps_noise = remaining(epsilon, max(eps_slack, epsilon / 2.0))
    return _objective_calibration(epsilon, eps_slack, eps_noise, delta_reg, consts, floor)


def calibrate_objective_perturbation_grid(epsilon: float, n: int, consts: PrivacyConstants,
                                          moduli: np.ndarray, *, slack: str = "one_sided",
                                          caller: str = "calibrate_objective_perturbation_grid"
                                          ) -> Calibration:
    """:func:`calibrate_objective_perturbation` at every modulus of ``moduli``, as arrays.

    The same operations in the same order, elementwise over ``moduli`` (what the Λ rule's
    report on a grid reads; ``consts.strong_convexity`` is ignored, the other arguments are
    those of :func:`calibrate_objective_perturbation`). NumPy's ``log1p`` may differ from
    :func:`math.log1p` in the last bit; a release calibrates with the scalar function.

    Returns
    -------
    Calibration
        Its ``epsilon``, ``epsilon_noise``, ``slack``, ``extra_strong_convexity`` and
        ``noise_rate`` are arrays of the shape of ``moduli``.

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.perturbation import (
    ...     calibrate_objective_perturbation, calibrate_objective_perturbation_grid)
    >>> from dpconvex.templates import PrivacyConstants
    >>> consts = PrivacyConstants(1.0, 1, 0.25, 0.1, 3)
    >>> grid = calibrate_objective_perturbation_grid(1.0, 40, consts, np.array([0.001, 0.1]))
    >>> grid.slack.round(4).tolist(), grid.extra_strong_convexity.round(5).tolist()
    ([0.5, 0.0606], [0.00863, 0.0])
    >>> round(float(grid.noise_rate[1]), 4), round(
    ...     calibrate_objective_perturbation(1.0, 40, consts).noise_rate, 4)
    (0.4697, 0.4697)
    """
    mu = np.asarray(moduli, dtype=float)
    r = consts.hessian_rank
    _, bound, half, floor = _slack_rule(epsilon, n, consts, float(np.min(mu, initial=np.inf)),
                                        slack, caller)
    # the slack of the rule: r log1p(T/(r n μ)) one-sided, 2r log1p(c_u/(n μ)) two-sided
    coef, per = (r, r * n) if slack == "one_sided" else (2.0 * r, n)
    flat = r == 0 or bound == 0  # no slack
    eps_slack = np.zeros_like(mu) if flat else coef * np.log1p(bound / (per * mu))
    delta_reg = np.zeros_like(mu)
    spent = eps_slack
    raised = eps_slack > epsilon / 2.0
    if np.any(raised):  # the Δ branch of the scalar calibration, where it is taken
        delta_reg = np.where(raised, np.maximum(half - mu, 0.0), 0.0)
        slack_raised = (np.zeros_like(mu) if flat else
                        coef * np.log1p(bound / (per * (mu + delta_reg))))
        eps_slack = np.where(raised, slack_raised, eps_slack)
        spent = np.where(raised, np.maximum(slack_raised, epsilon / 2.0), spent)
    # ε' = remaining(ε, spent) elementwise: the largest x >= 0 with spent + x <= ε in floating
    # point (the same IEEE operations as budget.remaining, so the same bits)
    eps_noise = epsilon - spent
    over = (eps_noise > 0) & (spent + eps_noise > epsilon)
    while np.any(over):
        eps_noise = np.where(over, np.nextafter(eps_noise, 0.0), eps_noise)
        over = (eps_noise > 0) & (spent + eps_noise > epsilon)
    return _objective_calibration(epsilon, eps_slack, eps_noise, delta_reg, consts, floor)


def calibrate_output_perturbation(epsilon: float, n: int, consts: PrivacyConstants, *,
                                  caller: str = "calibrate_output_perturbation") -> Calibration:
    """Output perturbation ([CMS]_ Alg. 1): argmin sensitivity 2G/(n μ), β = ε/S.

    ``caller``: the public call that calibrates (``"OutputPerturbation.calibrate"``),
    opening the message of a refusal.

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms import calibrate_output_perturbation
    >>> from dpconvex.templates import PrivacyConstants
    >>> cal = calibrate_output_perturbation(1.0, 40, PrivacyConstants(1.0, 1, 0.25, 0.1, 3))
    >>> cal.sensitivity, cal.noise_rate
    (0.5, 2.0)
    """
    mu = consts.strong_convexity
    if not mu > 0:
        raise PrivacyError(
            f"{caller}: strong convexity: output perturbation bounds the "
            "argmin sensitivity by "
            f"2G/(n*mu) and needs mu > 0; got {mu}. Use lam > 0."
        )
    sensitivity = 2.0 * consts.grad_bound / (n * mu)
    return Calibration(
        mechanism="output",
        epsilon_requested=epsilon, sensitivity=sensitivity,
        noise_rate=epsilon / sensitivity,
    )


def objective_modulus_floor(epsilon: float, n: int, consts: PrivacyConstants) -> float:
    """The smallest modulus at which :func:`calibrate_objective_perturbation` adds no Δ (its
    ``modulus_floor``); c q²/(n (e^{ε/2} − 1)) for linear ERM's one-sided slack
    (docs/privacy/perturbation.md#privacy-lambda-rule).

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.perturbation import objective_modulus_floor
    >>> from dpconvex.templates import PrivacyConstants
    >>> round(objective_modulus_floor(1.0, 40, PrivacyConstants(1.0, 1, 0.25, 0.1, 3)), 5)
    0.00963
    """
    return calibrate_objective_perturbation(epsilon, n, at_modulus(consts, 1.0)).modulus_floor


class _Perturbation(ExactMinimizer):
    """Shared calibration, noise report and certificate of the CMS perturbation mechanisms
    (a subclass gives ``_calibrate`` and ``_grid``)."""

    label = ""

    def calibrate(self, template: ConstantsSource, budget: Budget) -> Calibration:
        return self._calibrate(budget.epsilon, template.n, template.privacy_constants(),
                               caller=f"{type(self).__name__}.calibrate")

    def noise_report(self, problem: ConstantsSource, budget: Budget,
                     mu: float | np.ndarray | None = None, *,
                     calibration: Calibration | None = None) -> NoiseReport:
        """Norm-Gamma b of rate β: E‖b‖ = p/β, E‖b‖² = p(p + 1)/β²."""
        consts, eps, n = problem.privacy_constants(), budget.epsilon, problem.n
        p = int(consts.dimension)
        modulus = consts.strong_convexity if mu is None else mu
        if np.ndim(modulus) > 0:  # a grid of moduli (the Λ rule): one array calibration
            cal, grid = None, self._grid(eps, n, consts, modulus)
        elif mu is not None:
            cal = grid = self._calibrate(eps, n, at_modulus(consts, mu))
        else:  # the declared modulus: the release's calibration
            cal = grid = calibration if calibration is not None else self.calibrate(problem, budget)
        rate = grid.noise_rate
        if self.placement == "objective":
            scale = math.sqrt(p) / rate
        else:  # E‖b‖/√m = m/(β√m) of norm-Gamma noise on the m entries of the noise shape
            m = int(np.prod(getattr(problem, "noise_shape", None) or (p,)))
            scale = m / rate / np.sqrt(m)
        return NoiseReport(
            mechanism=self.name, placement=self.placement, dimension=p, epsilon=eps, delta=0.0,
            modulus=modulus, modulus_eff=modulus + grid.extra_strong_convexity,
            sensitivity=grid.sensitivity, expected_norm=p / rate,
            expected_sq_norm=p * (p + 1.0) / rate**2,
            coordinate_scale=scale,
            modulus_floor=grid.modulus_floor,
            grad_bound=float(consts.grad_bound), calibration=cal)

    def noise_law(self, template: ObjectiveTemplate, cal: Calibration) -> Noise:
        """Norm-Gamma of rate β on the template's space (on the objective or the output)."""
        return NormGamma(cal.noise_rate, symmetric=template.noise_symmetric)

    def certificate(self, template: ObjectiveTemplate, budget: Budget, cal: Calibration | None,
                    conditions: list[Condition]) -> Certificate:
        assert cal is not None
        eps = budget.epsilon
        if cal.epsilon > eps:  # pragma: no cover - guarded by construction
            raise PrivacyError(f"{type(self).__name__}.certificate: the computed epsilon "
                               f"{cal.epsilon} exceeds the requested {eps}; nothing is released.")
        consts = template.privacy_constants()
        conds = [*conditions, Condition(
            "epsilon accounting", True, "computed from public parameters",
            f"slack {cal.slack:.6g} + noise {cal.epsilon_noise:.6g} = {cal.epsilon:.6g} <= {eps:g}",
        )]
        quantities: dict[str, Any] = {
            "n": template.n,
            "dimension p": consts.dimension,
            "per-record gradient bound G": consts.grad_bound,
            "hessian terms r": consts.hessian_rank,
            "hessian term bound c_u": consts.hessian_term_bound,
            "hessian trace bound T": hessian_trace_bound(consts),
            "strong convexity mu": consts.strong_convexity,
            "sensitivity": cal.sensitivity,
            "jacobian slack": cal.slack,
            "epsilon for noise (eps')": cal.epsilon_noise,
            "extra regularization Delta": cal.extra_strong_convexity,
            "noise rate beta": cal.noise_rate,
            "expected noise norm p/beta": consts.dimension / cal.noise_rate,
        }
        return Certificate(
            mechanism=f"{self.label} on {template.name}",
            epsilon_requested=eps,
            epsilon=cal.epsilon,
            private=True,
            conditions=conds,
            quantities=quantities,
            assumptions=list(template.assumptions(self.needs)),
        )


@register
class ObjectivePerturbation(_Perturbation):
    """Objective perturbation ([CMS]_ Alg. 2): minimize J + (1/n)⟨b, θ⟩ + (Δ/2)||θ||², b norm-Gamma.

    Examples
    --------
    >>> from dpconvex import Budget, release
    >>> from dpconvex.objectives import Logistic
    >>> from dpconvex.privacy.mechanisms import get_mechanism
    >>> from dpconvex.templates import LinearERMTemplate
    >>> template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y)
    >>> mech = get_mechanism("objective")
    >>> type(mech).__name__, mech.pure
    ('ObjectivePerturbation', True)
    >>> cal = mech.calibrate(template, Budget(1.0))
    >>> round(cal.noise_rate, 4), round(cal.slack, 4)
    (0.4697, 0.0606)
    >>> rel = release(template, mech, Budget(1.0), rng=0)
    >>> rel.theta.shape, rel.certificate.all_hold
    ((3,), True)
    """

    name = "objective"
    label = "objective perturbation (CMS Alg. 2)"
    needs = frozenset({"strong_convexity", "curvature"})

    placement = "objective"

    _calibrate = staticmethod(calibrate_objective_perturbation)
    _grid = staticmethod(calibrate_objective_perturbation_grid)



@register
class OutputPerturbation(_Perturbation):
    """Output perturbation ([CMS]_ Alg. 1): the exact minimizer plus norm-Gamma noise, snapped.

    Examples
    --------
    >>> from dpconvex import Budget
    >>> from dpconvex.objectives import Logistic
    >>> from dpconvex.privacy.mechanisms import get_mechanism
    >>> from dpconvex.templates import LinearERMTemplate
    >>> template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y)
    >>> mech = get_mechanism("output")
    >>> cal = mech.calibrate(template, Budget(1.0))
    >>> cal.sensitivity, cal.noise_rate
    (0.5, 2.0)
    >>> round(float(mech.noise_report(template, Budget(1.0)).coordinate_scale), 4)
    0.866
    """

    name = "output"
    adds_output_noise = True
    label = "output perturbation (CMS Alg. 1)"
    needs = frozenset({"strong_convexity"})

    placement = "output"

    _calibrate = staticmethod(calibrate_output_perturbation)

    def _grid(self, eps: float, n: int, consts: PrivacyConstants, moduli: np.ndarray
              ) -> Calibration:
        """β = ε n μ/(2G) and the sensitivity 2G/(n μ) on a grid of moduli."""
        unit = calibrate_output_perturbation(eps, n, at_modulus(consts, 1.0))
        return Calibration(mechanism=self.name, epsilon_requested=eps,
                           sensitivity=unit.sensitivity / moduli, noise_rate=unit.noise_rate * moduli)



@register
class NonPrivate(NonPrivateBaseline, ExactMinimizer):
    """The explicit NON-private baseline: the exact minimizer, no noise, no guarantee.

    Examples
    --------
    >>> from dpconvex import Budget, release
    >>> from dpconvex.objectives import Logistic
    >>> from dpconvex.privacy.mechanisms import get_mechanism
    >>> from dpconvex.templates import LinearERMTemplate
    >>> template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y)
    >>> mech = get_mechanism("none")
    >>> mech.private
    False
    >>> rel = release(template, mech, Budget.unlimited())
    >>> rel.certificate.private, rel.certificate.epsilon
    (False, inf)
    """

    name = "none"

    def noise_report(self, problem: ConstantsSource, budget: Budget,
                     mu: float | np.ndarray | None = None, *,
                     calibration: Calibration | None = None) -> NoiseReport:
        """No noise: every moment is 0."""
        consts = problem.privacy_constants()
        modulus = consts.strong_convexity if mu is None else mu
        zero = np.zeros_like(modulus, dtype=float) if np.ndim(modulus) > 0 else 0.0
        return NoiseReport(
            mechanism=self.name, placement=self.placement, dimension=int(consts.dimension),
            epsilon=math.inf, delta=0.0, modulus=modulus, modulus_eff=modulus, sensitivity=zero,
            expected_norm=zero, expected_sq_norm=zero, coordinate_scale=zero,
            grad_bound=float(consts.grad_bound))
