"""Gaussian objective perturbation for the large-margin (softmax) template: (ε, δ)-DP.

The mechanism of :mod:`dpconvex.privacy.mechanisms.gaussian_linear` with the large-margin
template's constants (docs/privacy/large_margin_softmax.md#privacy-softmax-gaussian-objective):
minimize J(Φ; D) + (1/n) Σ_c ⟨b_c, Φ_c⟩ + (Δ/2) Σ_c ||Φ_c||²_F with b ~ N(0, σ²) in the
orthonormal coordinates {E_ii, (E_ij + E_ji)/√2} of each symmetric block (what
``space.project_noise`` makes of i.i.d. N(0, σ²) entries: (B + Bᵀ)/2). σ is the smaller of
the privacy-profile bound (★) of :mod:`dpconvex.privacy.accounting.objective_gaussian`
(S = 2G = 2√2, k = 2(C − 1)K the template's ``gradient_difference_rank``, one-sided slack
ε_J = r log(1 + T/(r n μ)), r = (C − 1)K, T = 1 − 1/S, S = 1 + (C − 1)K) and, for K = 1,
the softmax max-difference bound of :mod:`dpconvex.privacy.accounting.softmax_gaussian`.
:class:`~dpconvex.PrivateLargeMarginGaussian` maps ``mechanism="gaussian_objective"`` to it.

References
----------
.. [KST12] D. Kifer, A. Smith, A. Thakurta. Private Convex Empirical Risk
   Minimization and High-dimensional Regression. COLT 2012, Theorem 2.
.. [RKW23] R. Redberg, A. Koskela, Y.-X. Wang. Improving the Privacy and
   Practicality of Objective Perturbation for Differentially Private Linear
   Learners. NeurIPS 2023.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING

from ..accounting.objective_gaussian import objective_gaussian_delta
from ..accounting.softmax_gaussian import softmax_objective_delta, softmax_objective_sigma
from ..budget import Budget
from ..certificate import Certificate, Condition
from .base import Calibration, Mechanism, register
from .gaussian_linear import (
    GaussianObjectivePerturbation,
    calibrate_gaussian_objective,
    gradient_difference_rank,
)

if TYPE_CHECKING:
    from ...templates.base import ObjectiveTemplate, PrivacyConstants
    from .base import ConstantsSource

__all__ = ["GAUSSIAN_OBJECTIVE_LM", "GaussianObjectiveLargeMargin", "calibrate_softmax_gaussian"]

#: Registry name of the large-margin Gaussian objective perturbation.
GAUSSIAN_OBJECTIVE_LM = "gaussian_objective_lm"


def calibrate_softmax_gaussian(epsilon: float, delta: float, n: int, consts: PrivacyConstants,
                               k: int) -> Calibration:
    """ε_J, Δ and σ: the smaller σ of the bound (★) (privacy-gaussian-profile-bound) and
    the softmax bound (privacy-softmax-gaussian-objective).

    The softmax bound applies only when the constants declare the softmax form
    (``softmax_classes`` = C >= 2, G = √2); both bound δ at every σ, so the smaller σ
    that meets δ under either is (ε, δ)-DP.

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex.data.preprocess import augment_and_scale
    >>> from dpconvex.privacy.mechanisms.gaussian_objective_lm import calibrate_softmax_gaussian
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
    >>> import numpy as np
    >>> from dpconvex import Budget, release
    >>> from dpconvex.data.preprocess import augment_and_scale
    >>> from dpconvex.privacy.mechanisms import get_mechanism
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
    bound_text = ("the smaller sigma of the privacy-profile bound (*) of "
                  "docs/privacy/gaussian_linear.md#privacy-gaussian-profile-bound (S = 2G, k = 2(C - 1)K) "
                  "and, for K = 1 only, the softmax max-difference bound of "
                  "privacy-softmax-gaussian-objective")

    #: The approximate-minima cover is derived for the linear learners' Gaussian mechanisms
    #: only; an inexact large-margin solve is not covered (optimality_tol=None).
    amp_derived = False

    def calibrate(self, template: ConstantsSource, budget: Budget) -> Calibration:
        return self._calibrate_at(template, budget, template.privacy_constants())

    def _calibrate_at(self, problem: ConstantsSource, budget: Budget,
                      consts: PrivacyConstants) -> Calibration:
        return calibrate_softmax_gaussian(budget.epsilon, budget.delta, problem.n, consts,
                                          gradient_difference_rank(problem))

    def certificate(self, template: ObjectiveTemplate, budget: Budget, cal: Calibration | None,
                    conditions: list[Condition]) -> Certificate:
        cert = super().certificate(template, budget, cal, conditions)
        assert cal is not None
        cert.quantities["bound used"] = cal.extra.get("bound", "(*)")
        if "sigma (*)" in cal.extra:
            cert.quantities["sigma of bound (*)"] = cal.extra["sigma (*)"]
        return cert

    def conditions(self, template: ObjectiveTemplate, budget: Budget) -> list[Condition]:
        """The template's conditions, strong convexity, and the law of the symmetric noise."""
        conds = Mechanism.conditions(self, template, budget)
        mu = template.privacy_constants().strong_convexity
        conds.append(Condition("strong convexity", mu > 0, "declared by the regularizer",
                               f"modulus mu = {mu:g}"))
        if template.noise_symmetric:
            conds.append(Condition(
                "Gaussian noise on symmetric blocks", True,
                "derived (docs/privacy/large_margin_softmax.md#privacy-softmax-gaussian-objective)",
                "i.i.d. N(0, sigma^2) entries symmetrized to (B + B')/2: N(0, sigma^2) on every "
                "coordinate of the orthonormal basis {E_ii, (E_ij + E_ji)/sqrt 2}"))
        else:
            conds.append(Condition(
                "Gaussian noise on the feature-map coordinates", True,
                "derived (docs/privacy/large_margin_softmax.md#privacy-feature-map-structures)",
                "i.i.d. N(0, sigma^2) on the p = C m orthonormal coordinates of Theta (C "
                "classes x m features of the public map u(x))"))
        return conds
