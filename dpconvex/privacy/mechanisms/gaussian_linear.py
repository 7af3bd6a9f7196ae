"""(ε, δ) mechanisms for the linear learners: Gaussian objective and output perturbation.

Both are for replace-one adjacency and the exact minimizer
(docs/privacy/gaussian_linear.md#privacy-gaussian-linear). ``"gaussian_objective"``
(privacy-gaussian-objective): objective perturbation with b ~ N(0, σ² I_p), ε_J and Δ of
the pure calibration, σ the smallest with the profile bound (★) of
:mod:`dpconvex.privacy.accounting.objective_gaussian` <= δ at ε, S = 2G, k = 2 ([KST12]_
Thm. 2 extended to replace-one, [RKW23]_). ``"gaussian_output"`` (privacy-gaussian-output): a solve
within κG/(nμ) of the exact minimizer plus N(0, σ² I_p), σ the analytic Gaussian σ ([BW18]_
Thm. 8) for the sensitivity 2G(1 + κ)/(nμ) of the solved point,
snapped to the grid of σ. ``"gaussian_objective_lm"``: Gaussian objective perturbation on the large-margin
(softmax) template, b ~ N(0, σ²) in the orthonormal coordinates of each symmetric block, σ the smaller of (★)
(k = 2(C − 1)K) and, for K = 1, the softmax bound of
:func:`~dpconvex.privacy.accounting.objective_gaussian.softmax_objective_delta`
(docs/privacy/large_margin_softmax.md#privacy-softmax-gaussian-objective).

References
----------
.. [KST12] D. Kifer, A. Smith, A. Thakurta. Private Convex Empirical Risk
   Minimization and High-dimensional Regression. COLT 2012, Theorem 2.
.. [RKW23] R. Redberg, A. Koskela, Y.-X. Wang. Improving the Privacy and
   Practicality of Objective Perturbation for Differentially Private Linear Learners. NeurIPS 2023.
.. [BW18] B. Balle, Y.-X. Wang. Improving the Gaussian Mechanism for
   Differential Privacy. ICML 2018, Theorem 8.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ..._validation import describe_value
from ...errors import ParameterError, PrivacyError
from ..accounting.analytic_gaussian import analytic_gaussian_delta, analytic_gaussian_sigma
from ..accounting.objective_gaussian import (
    objective_gaussian_delta,
    objective_gaussian_sigma,
    softmax_objective_delta,
    softmax_objective_sigma,
)
from ..budget import Budget, remaining, remaining_each
from ..certificate import Certificate, Condition
from ..noise import Gaussian, Noise
from .base import (
    OUTPUT_SOLVE_MARGIN,
    SOLVE_MARGIN_KEY,
    Calibration,
    ExactMinimizer,
    at_modulus,
    calibrate_objective_perturbation,
    calibrate_output_perturbation,
    loss_name,
    modulus_condition,
    problem_constants,
    register,
    state_solve_margin,
)

if TYPE_CHECKING:
    from ...templates.base import ObjectiveTemplate, PrivacyConstants
    from .base import ConstantsSource

__all__ = [
    "GAUSSIAN_OBJECTIVE_LM",
    "GaussianObjectiveLargeMargin",
    "GaussianObjectivePerturbation",
    "GaussianOutputPerturbation",
    "calibrate_gaussian_objective",
    "calibrate_gaussian_output",
    "calibrate_softmax_gaussian",
    "gradient_difference_rank",
]


def gradient_difference_rank(template: ConstantsSource,
                             consts: PrivacyConstants | None = None) -> int:
    """k: dimension of a subspace holding ∇ℓ(θ; z) − ∇ℓ(θ; z′) for all θ (one pair).

    Declared by the template (``gradient_difference_rank``; linear ERM: 2, the
    span of x and x′), capped by the dimension p.

    Parameters
    ----------
    template : Template or PrivacyConstants
        The problem (its ``gradient_difference_rank`` and constants' ``dimension``).
    consts : PrivacyConstants or None, default=None
        The declared constants a calibration read (None: the problem's
        ``privacy_constants()``), whose ``dimension`` caps k.

    Returns
    -------
    int
        k in [1, p].

    Raises
    ------
    PrivacyError
        The template declares no ``gradient_difference_rank``.

    Examples
    --------
    >>> # template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y): conftest.py
    >>> from dpconvex.privacy.mechanisms.gaussian_linear import gradient_difference_rank
    >>> gradient_difference_rank(template)
    2
    """
    k = getattr(template, "gradient_difference_rank", None)
    if k is None:
        raise PrivacyError(
            f"gradient_difference_rank: template '{template.name}' declares no "
            "gradient_difference_rank "
            "(the dimension k of the span of one replaced record's gradient differences), so the "
            "(epsilon, delta) bound of Gaussian objective perturbation cannot be computed. "
            "Declare it "
            "on the template, or use a pure epsilon-DP mechanism."
        )
    consts = template.privacy_constants() if consts is None else consts
    return max(1, min(int(k), int(consts.dimension)))


def calibrate_gaussian_objective(epsilon: float, delta: float, n: int, consts: PrivacyConstants,
                                 k: int) -> Calibration:
    """σ, ε_J and Δ of Gaussian objective perturbation
    (docs/privacy/gaussian_linear.md#privacy-gaussian-objective).

    ε_J and Δ are those of :func:`calibrate_objective_perturbation` (the slack of
    privacy-objective-perturbation/privacy-jacobian-slack and its Δ branch); σ solves
    (★) at (ε, δ) with S = 2G and ``k``.

    Parameters
    ----------
    epsilon : float
        ε of the release.
    delta : float
        δ of the release.
    n : int
        The number of records.
    consts : PrivacyConstants
        The declared constants.
    k : int
        The gradient-difference rank (:func:`gradient_difference_rank`).

    Returns
    -------
    Calibration
        σ, k and δ at σ in its ``extra``; no noise law yet.

    References
    ----------
    [KST]_ Theorem 2 (Gaussian objective perturbation), extended to replace-one adjacency in
    docs/privacy/gaussian_linear.md#privacy-gaussian-objective; [CMS]_ Algorithm 2 (ε_J, Δ).

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.gaussian_linear import calibrate_gaussian_objective
    >>> consts = PrivacyConstants(grad_bound=1.0, hessian_rank=1, hessian_term_bound=0.25,
    ...                           strong_convexity=0.1, dimension=3)
    >>> cal = calibrate_gaussian_objective(1.0, 1e-5, 40, consts, k=1)
    >>> round(cal.extra["noise std"], 3), cal.delta
    (8.227, 1e-05)
    """
    pure = calibrate_objective_perturbation(epsilon, n, consts)
    S = 2.0 * consts.grad_bound
    sigma = objective_gaussian_sigma(epsilon, delta, S, k, pure.slack)
    return Calibration(
        mechanism="gaussian_objective", epsilon_requested=epsilon,
        epsilon_noise=remaining(epsilon, pure.slack), slack=pure.slack,
        extra_strong_convexity=pure.extra_strong_convexity, sensitivity=S,
        noise_rate=math.nan, delta=delta, modulus_floor=pure.modulus_floor,
        extra={"noise std": sigma, "k": k,
               "delta at sigma": objective_gaussian_delta(epsilon, sigma, S, k, pure.slack)})


def calibrate_gaussian_output(
    epsilon: float, delta: float, n: int, consts: PrivacyConstants
) -> Calibration:
    """σ of Gaussian output perturbation: analytic Gaussian for the solved point's sensitivity
    2G(1 + κ)/(nμ) (docs/privacy/gaussian_linear.md#privacy-gaussian-output).

    Parameters
    ----------
    epsilon : float
        ε of the release.
    delta : float
        δ of the release.
    n : int
        The number of records.
    consts : PrivacyConstants
        The declared constants.

    Returns
    -------
    Calibration
        σ and δ at σ in its ``extra``; no noise law yet.

    References
    ----------
    [BW18]_ Theorem 8 (the analytic Gaussian mechanism); [CMS]_ Algorithm 1 (the sensitivity).

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.gaussian_linear import calibrate_gaussian_output
    >>> consts = PrivacyConstants(grad_bound=1.0, hessian_rank=1, hessian_term_bound=0.25,
    ...                           strong_convexity=0.1, dimension=3)
    >>> cal = calibrate_gaussian_output(1.0, 1e-5, 40, consts)
    >>> cal.sensitivity, round(cal.extra["noise std"], 4)
    (0.5005, 1.8672)
    """
    pure = calibrate_output_perturbation(epsilon, n, consts)  # μ > 0 checked
    S = pure.sensitivity  # 2G(1 + κ)/(nμ): the solved point's, κG/(nμ) from the exact one
    sigma = analytic_gaussian_sigma(epsilon, delta, S)
    return Calibration(
        mechanism="gaussian_output", epsilon_requested=epsilon, sensitivity=S,
        noise_rate=math.nan, delta=delta,
        extra={"noise std": sigma, "delta at sigma": analytic_gaussian_delta(epsilon, sigma, S),
               **pure.extra})


#: Slack values at which the unit σ of (★) is computed exactly before interpolation (a
#: report on a grid of moduli, docs/privacy/gaussian_linear.md#privacy-gaussian-lambda-rule).
_SLACK_POINTS = 24


def _unit_sigma_objective(eps: float, delta: float, k: int, slacks: np.ndarray) -> np.ndarray:
    """σ of (★) for sensitivity 1 at each slack: exact at :data:`_SLACK_POINTS` slacks, log σ
    interpolated linearly in between (σ depends on the modulus only through the slack)."""
    lo, hi = float(np.min(slacks)), float(np.max(slacks))
    if hi - lo < 1e-12 * max(eps, 1.0):
        return np.full(slacks.shape, objective_gaussian_sigma(eps, delta, 1.0, k, lo))
    pts = np.linspace(lo, hi, _SLACK_POINTS)
    logs = np.log([objective_gaussian_sigma(eps, delta, 1.0, k, float(s)) for s in pts])
    return np.exp(np.interp(slacks, pts, logs))


class _GaussianLinear(ExactMinimizer):
    """Shared conditions, calibration and certificate of the Gaussian linear mechanisms (a
    subclass gives ``_calibrate_at(problem, budget, consts, n)`` and ``_grid``: the calibration
    on a grid of moduli, σ in ``extra["noise std"]``)."""

    pure = False
    label = ""
    bound_text = ""

    def conditions(self, template: ObjectiveTemplate, budget: Budget) -> list[Condition]:
        if getattr(template, "noise_symmetric", False) or len(template.noise_shape) != 1:
            raise PrivacyError(
                f"{type(self).__name__}.conditions: mechanism '{self.name}' draws i.i.d. "
                f"N(0, sigma^2) coordinates of a vector in R^p; template '{template.name}' has "
                "matrix or symmetric noise, which this derivation does not cover. Use a "
                "mechanism made for this template "
                "(docs/privacy/gaussian_linear.md#privacy-gaussian-linear)."
            )
        if (
            self.name == "gaussian_objective"
            and getattr(template, "constraint_set", None) is not None
        ):
            raise PrivacyError(
                f"{type(self).__name__}.conditions: mechanism '{self.name}' is derived for the "
                "unconstrained minimizer (b = -n∇J(θ) one-to-one, "
                "docs/privacy/gaussian_linear.md#privacy-gaussian-profile-bound); over a "
                "constraint set that "
                "map is not one-to-one. Use mechanism='objective' (pure ε, covered over a convex "
                "set) or "
                "'gaussian_output' (docs/privacy/user_objectives.md#privacy-constraints)."
            )
        return super().conditions(template, budget)

    def noise_std(self, cal: Calibration) -> Any:
        """σ of the calibration, an array on a grid of moduli (the audit's mis-calibration
        scales this entry)."""
        sigma = cal.extra["noise std"]
        return sigma if isinstance(sigma, np.ndarray) else float(sigma)

    def noise_law(self, problem: ConstantsSource, cal: Calibration) -> Noise:
        """N(0, σ²) on each coordinate (of the objective's b, or of the minimizer's noise):
        E‖b‖ <= √p σ, E‖b‖² = p σ² (in the objective, μ_eff = μ + Δ; on the minimizer,
        μ_eff = μ)."""
        return Gaussian(self.noise_std(cal))

    def calibrate(self, template: ConstantsSource, budget: Budget) -> Calibration:
        consts = problem_constants(template, f"{type(self).__name__}.calibrate")
        n = template.n
        return self.holding_noise(template, self._calibrate_at(template, budget, consts, n),
                                  consts, n)

    def calibrate_grid(self, problem: ConstantsSource, budget: Budget,
                       moduli: np.ndarray) -> Calibration:
        """On a grid of moduli by :meth:`_grid` (refused at δ = 0, where σ is not defined)."""
        if not budget.delta > 0.0:
            raise ParameterError(
                f"{type(self).__name__}.calibrate_grid: lam='auto' for mechanism '{self.name}' "
                f"needs delta > 0; got {describe_value(budget.delta)}. Set delta (e.g. 1/n**2).")
        consts = problem_constants(problem, f"{type(self).__name__}.calibrate_grid")
        cal = self._grid(problem, budget, consts, moduli)
        return self.holding_noise(problem, cal, at_modulus(consts, moduli))

    def certificate(self, template: ObjectiveTemplate, budget: Budget, cal: Calibration | None,
                    conditions: list[Condition]) -> Certificate:
        assert cal is not None
        consts = cal.constants  # the declared constants the calibration was made from
        dlt, sigma = cal.extra["delta at sigma"], self.noise_std(cal)
        conds = [
            *conditions,
            modulus_condition(consts),
            Condition(
                "noise calibration",
                dlt <= budget.delta and cal.epsilon <= budget.epsilon,
                self.bound_text,
                f"sigma = {sigma:.6g}: delta(epsilon = {cal.epsilon:g}) <= {dlt:g} <= "
                f"{budget.delta:g}",
            ),
        ]
        quantities: dict[str, Any] = {
            "n": template.n if cal.n is None else cal.n, "dimension p": consts.dimension,
            "per-record gradient bound G": consts.grad_bound,
            "strong convexity mu": consts.strong_convexity,
            "sensitivity": cal.sensitivity, "jacobian slack": cal.slack,
            "extra regularization Delta": cal.extra_strong_convexity,
            "noise std sigma": sigma, "delta at sigma": dlt,
            "expected noise norm sqrt(p) sigma": math.sqrt(consts.dimension) * sigma,
        }
        if "k" in cal.extra:
            quantities["gradient-difference span k"] = cal.extra["k"]
        state_solve_margin(quantities, cal)
        return Certificate(
            mechanism=f"{self.label} on {template.name}",
            loss=loss_name(template), epsilon_requested=budget.epsilon,
            epsilon=cal.epsilon, delta=budget.delta, private=True, conditions=conds,
            quantities=quantities,
            assumptions=[*template.assumptions(self.needs),
                         "idealized real-valued Gaussian noise "
                         "(docs/privacy/accuracy_randomness.md#privacy-accuracy-randomness, "
                         "privacy-gaussian-linear)"])


@register
class GaussianObjectivePerturbation(_GaussianLinear):
    """Objective perturbation with b ~ N(0, σ² I): (ε, δ)-DP
    (docs/privacy/gaussian_linear.md#privacy-gaussian-objective).

    Examples
    --------
    >>> # template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y): conftest.py
    >>> mech = get_mechanism("gaussian_objective")
    >>> mech.pure
    False
    >>> round(mech.calibrate(template, Budget(1.0, 1e-5)).coordinate_scale, 3)
    9.01
    >>> rel = release(template, mech, Budget(1.0, 1e-5), rng=0)
    >>> rel.certificate.epsilon, rel.certificate.delta
    (1.0, 1e-05)
    """

    name = "gaussian_objective"
    alternative = "objective"
    label = "Gaussian objective perturbation (KST 2012 Thm. 2, replace-one profile)"
    bound_text = (
        "privacy-profile bound (*) of "
        "docs/privacy/gaussian_linear.md#privacy-gaussian-profile-bound, k the template's span "
        "of per-record gradient differences (linear ERM: 2, span{x, x'})"
    )
    needs = frozenset({"strong_convexity", "curvature", "gradient_span"})

    placement = "objective"

    def _calibrate_at(self, problem: ConstantsSource, budget: Budget,
                      consts: PrivacyConstants, n: int) -> Calibration:
        return calibrate_gaussian_objective(budget.epsilon, budget.delta, n, consts,
                                            gradient_difference_rank(problem, consts))

    def _grid(self, problem: ConstantsSource, budget: Budget, consts: PrivacyConstants,
              moduli: np.ndarray) -> Calibration:
        """Δ, S and σ on a grid of moduli: σ(μ) is the unit σ of (★) times S = 2G, computed
        exactly at a few slack values and interpolated in between
        (docs/privacy/gaussian_linear.md#privacy-gaussian-lambda-rule): a public heuristic
        for the Λ rule; a release recomputes σ exactly. ε' is the release's at each modulus:
        ``remaining(ε, slack)`` (:func:`calibrate_gaussian_objective`)."""
        grid = calibrate_objective_perturbation(budget.epsilon, problem.n, consts, moduli)
        S = 2.0 * consts.grad_bound
        sigma = S * _unit_sigma_objective(budget.epsilon, budget.delta,
                                          gradient_difference_rank(problem, consts), grid.slack)
        eps_noise = remaining_each(budget.epsilon, grid.slack)
        return Calibration(
            mechanism=self.name, epsilon_requested=budget.epsilon,
            epsilon_noise=eps_noise, slack=grid.slack,
            extra_strong_convexity=grid.extra_strong_convexity, sensitivity=S,
            noise_rate=math.nan, delta=budget.delta, modulus_floor=grid.modulus_floor,
            extra={"noise std": sigma})



@register
class GaussianOutputPerturbation(_GaussianLinear):
    """A solve within κG/(nμ) of the exact minimizer plus N(0, σ² I), analytic σ for the
    sensitivity 2G(1 + κ)/(nμ) (docs/privacy/gaussian_linear.md#privacy-gaussian-output).

    Examples
    --------
    >>> # template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y): conftest.py
    >>> mech = get_mechanism("gaussian_output")
    >>> round(mech.calibrate(template, Budget(1.0, 1e-5)).coordinate_scale, 4)
    1.8672
    >>> rel = release(template, mech, Budget(1.0, 1e-5), rng=0)
    >>> rel.theta.shape
    (3,)
    """

    name = "gaussian_output"
    alternative = "output"
    adds_output_noise = True
    label = "Gaussian output perturbation (analytic Gaussian, Balle & Wang 2018)"
    bound_text = (
        "analytic Gaussian (Balle & Wang 2018, Thm. 8), sensitivity 2G(1 + kappa)/(n mu) of the "
        "solved point"
    )
    needs = frozenset({"strong_convexity"})

    placement = "output"

    def _grid(self, problem: ConstantsSource, budget: Budget, consts: PrivacyConstants,
              moduli: np.ndarray) -> Calibration:
        """σ(μ) = σ(ε, δ; 1) · 2G(1 + κ)/(nμ) and the sensitivity 2G(1 + κ)/(nμ) on a grid of
        moduli (the analytic σ is linear in the sensitivity)."""
        S = 2.0 * consts.grad_bound * (1.0 + OUTPUT_SOLVE_MARGIN)
        sigma = (
            analytic_gaussian_sigma(budget.epsilon, budget.delta, 1.0) * S / (problem.n * moduli)
        )
        return Calibration(
            mechanism=self.name, epsilon_requested=budget.epsilon,
            sensitivity=S / (problem.n * moduli), noise_rate=math.nan, delta=budget.delta,
            extra={"noise std": sigma, SOLVE_MARGIN_KEY: OUTPUT_SOLVE_MARGIN})

    def _calibrate_at(self, problem: ConstantsSource, budget: Budget,
                      consts: PrivacyConstants, n: int) -> Calibration:
        return calibrate_gaussian_output(budget.epsilon, budget.delta, n, consts)


#: Registry name of the large-margin Gaussian objective perturbation.
GAUSSIAN_OBJECTIVE_LM = "gaussian_objective_lm"


def calibrate_softmax_gaussian(epsilon: float, delta: float, n: int, consts: PrivacyConstants,
                               k: int) -> Calibration:
    """ε_J, Δ and σ: the smaller σ of the bound (★) (privacy-gaussian-profile-bound) and
    the softmax bound (privacy-softmax-gaussian-objective).

    The softmax bound applies only when the constants declare the softmax form
    (``softmax_classes`` = C >= 2, G = √2); both bound δ at every σ, so the smaller σ
    that meets δ under either is (ε, δ)-DP.

    Parameters
    ----------
    epsilon : float
        ε of the release.
    delta : float
        δ of the release.
    n : int
        The number of records.
    consts : PrivacyConstants
        The declared constants.
    k : int
        The gradient-span dimension of the softmax template.

    Returns
    -------
    Calibration
        That of :func:`calibrate_gaussian_objective`, its ``extra`` naming the bound used.

    Examples
    --------
    >>> from dpconvex.data.preprocess import augment_and_scale
    >>> from dpconvex.privacy.mechanisms.gaussian_linear import calibrate_softmax_gaussian
    >>> from dpconvex.templates.large_margin_softmax import LargeMarginSoftmaxTemplate
    >>> rng = np.random.default_rng(0)
    >>> Z = augment_and_scale(rng.normal(size=(30, 3)) / 3.0, data_norm=1.0)
    >>> template = LargeMarginSoftmaxTemplate(Z, np.arange(30) % 3, n_classes=3, lam=0.5)
    >>> consts = template.privacy_constants()
    >>> cal = calibrate_softmax_gaussian(1.0, 1e-5, 30, consts, k=consts.gradient_span_dimension)
    >>> cal.epsilon <= 1.0, round(cal.extra["noise std"], 3)
    (True, 11.891)
    """
    cal = calibrate_gaussian_objective(epsilon, delta, n, consts, k)
    C = int(getattr(consts, "softmax_classes", 0) or 0)
    s1 = float(cal.extra["noise std"])
    if C < 2 or not math.isclose(consts.grad_bound, math.sqrt(2.0), rel_tol=1e-12):
        return dataclasses.replace(cal, extra={**cal.extra, "bound": "(*)"})
    s2 = softmax_objective_sigma(epsilon, delta, C, cal.slack)
    if s2 >= s1:
        return dataclasses.replace(cal, extra={**cal.extra, "bound": "(*)", "sigma softmax": s2})
    d = min(softmax_objective_delta(epsilon, s2, C, cal.slack),
            objective_gaussian_delta(epsilon, s2, cal.sensitivity, k, cal.slack))
    return dataclasses.replace(cal, extra={
        **cal.extra, "noise std": s2, "delta at sigma": d, "sigma (*)": s1,
        "bound": "softmax max-difference bound "
        "(docs/privacy/large_margin_softmax.md#privacy-softmax-gaussian-objective)"})


@register
class GaussianObjectiveLargeMargin(GaussianObjectivePerturbation):
    """Gaussian objective perturbation on the unconstrained softmax large-margin
    template (privacy-softmax-gaussian-objective).

    Examples
    --------
    >>> from dpconvex.data.preprocess import augment_and_scale
    >>> from dpconvex.templates.large_margin_softmax import LargeMarginSoftmaxTemplate
    >>> rng = np.random.default_rng(0)
    >>> Z = augment_and_scale(rng.normal(size=(30, 3)) / 3.0, data_norm=1.0)
    >>> template = LargeMarginSoftmaxTemplate(Z, np.arange(30) % 3, n_classes=3, lam=0.5)
    >>> mech = get_mechanism("gaussian_objective_lm")
    >>> mech.pure, mech.name
    (False, 'gaussian_objective_lm')
    >>> release(template, mech, Budget(1.0, 1e-5), rng=0).certificate.delta
    1e-05
    """

    name = GAUSSIAN_OBJECTIVE_LM
    label = "Gaussian objective perturbation (privacy-profile bound, replace-one)"
    bound_text = (
        "the smaller sigma of the privacy-profile bound (*) of "
        "docs/privacy/gaussian_linear.md#privacy-gaussian-profile-bound (S = 2G, k = 2(C - 1)K) "
        "and, for K = 1 only, the softmax max-difference bound of "
        "privacy-softmax-gaussian-objective"
    )

    #: The approximate-minima cover is derived for the linear learners' Gaussian mechanisms
    #: only; an inexact large-margin solve is not covered (optimality_tol=None).
    amp_derived = False

    def _calibrate_at(self, problem: ConstantsSource, budget: Budget,
                      consts: PrivacyConstants, n: int) -> Calibration:
        return calibrate_softmax_gaussian(budget.epsilon, budget.delta, n, consts,
                                          gradient_difference_rank(problem, consts))

    def certificate(self, template: ObjectiveTemplate, budget: Budget, cal: Calibration | None,
                    conditions: list[Condition]) -> Certificate:
        """The Gaussian objective perturbation's certificate, with the bound the calibration
        used (and the σ of the privacy-profile bound (*), when it computed one) among its
        quantities.

        Parameters
        ----------
        template : ObjectiveTemplate
            The large-margin problem.
        budget : Budget
            The (ε, δ) of the release.
        cal : Calibration
            Its calibration.
        conditions : list of Condition
            The conditions checked (:meth:`conditions`).

        Returns
        -------
        Certificate
            The parent's, with ``"bound used"`` (and ``"sigma of bound (*)"``) added.

        Examples
        --------
        >>> from dpconvex.data.preprocess import augment_and_scale
        >>> from dpconvex.templates.large_margin_softmax import LargeMarginSoftmaxTemplate
        >>> Z = augment_and_scale(rng.normal(size=(30, 3)) / 3.0, data_norm=1.0)
        >>> template = LargeMarginSoftmaxTemplate(Z, np.arange(30) % 3, n_classes=3, lam=0.5)
        >>> mech, budget = get_mechanism("gaussian_objective_lm"), Budget(1.0, 1e-5)
        >>> cal = mech.calibrate(template, budget)
        >>> cert = mech.certificate(template, budget, cal, mech.conditions(template, budget))
        >>> cert.delta, "bound used" in cert.quantities
        (1e-05, True)
        """
        cert = super().certificate(template, budget, cal, conditions)
        assert cal is not None
        cert.quantities["bound used"] = cal.extra.get("bound", "(*)")
        if "sigma (*)" in cal.extra:
            cert.quantities["sigma of bound (*)"] = cal.extra["sigma (*)"]
        return cert

    def conditions(self, template: ObjectiveTemplate, budget: Budget) -> list[Condition]:
        """The template's conditions and the law of the symmetric noise (the modulus: in the
        certificate, from the calibration's constants).

        Parameters
        ----------
        template : ObjectiveTemplate
            The large-margin problem.
        budget : Budget
            The (ε, δ) of the release.

        Returns
        -------
        list of Condition
            The template's, then the one on the law of the noise.

        Examples
        --------
        >>> from dpconvex.data.preprocess import augment_and_scale
        >>> from dpconvex.templates.large_margin_softmax import LargeMarginSoftmaxTemplate
        >>> Z = augment_and_scale(rng.normal(size=(30, 3)) / 3.0, data_norm=1.0)
        >>> template = LargeMarginSoftmaxTemplate(Z, np.arange(30) % 3, n_classes=3, lam=0.5)
        >>> conditions = get_mechanism("gaussian_objective_lm").conditions(template, Budget(1.0))
        >>> conditions[-1].name, all(c.holds for c in conditions)
        ('Gaussian noise on symmetric blocks', True)
        """
        conds = ExactMinimizer.conditions(self, template, budget)
        if template.noise_symmetric:
            conds.append(
                Condition(
                    "Gaussian noise on symmetric blocks",
                    True,
                    "derived (docs/privacy/large_margin_softmax.md#privacy-softmax-gaussian-objective)",
                    "i.i.d. N(0, sigma^2) entries symmetrized to (B + B')/2: N(0, sigma^2) on "
                    "every "
                    "coordinate of the orthonormal basis {E_ii, (E_ij + E_ji)/sqrt 2}",
                )
            )
        else:
            conds.append(Condition(
                "Gaussian noise on the feature-map coordinates", True,
                "derived (docs/privacy/large_margin_softmax.md#privacy-feature-map-structures)",
                "i.i.d. N(0, sigma^2) on the p = C m orthonormal coordinates of Theta (C "
                "classes x m features of the public map u(x))"))
        return conds
