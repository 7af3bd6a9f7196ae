"""A warning, before the solve, when the privacy noise outweighs the data's signal.

The linear learners (``PrivateLogisticRegression``, ``PrivateHuberSVM``,
``PrivateLinearClassifier``) and ``NoisyGradientDescent`` compute, from the mechanism's
calibration and the loss's declared constants alone (n, ε, δ, p, the norm bound q, L =
sup|ℓ'|, ℓ'(0), Λ, the steps and clip of noisy GD — never a value of X or y), the noise
dominance ρ₀ = E‖noise‖ / g₀, with g₀ the largest norm the data part can have at the
start θ = 0 (docs/privacy.md §6.7):

    objective perturbation (pure or Gaussian):  ρ₀ = E‖b‖ / (n |ℓ'(0)| q)
    output perturbation (pure or Gaussian):     ρ₀ = E‖b‖ Λ / (|ℓ'(0)| q)
    noisy gradient descent:                     ρ₀ = s √p ‖w‖₂ / (min(C, |ℓ'(0)| q) ‖w‖₁)

with E‖b‖ = p/β (norm-Gamma) or √p σ (Gaussian); for noisy GD the averaged iterate,
without projection, is −η Σ_t w_t (g_t + N_t), N_t ~ N(0, s² I_p), w_t the share of
averaged iterates after step t. ``worst_case=True`` gives ρ, the same ratio against the
data part's bound at ANY θ (G = L q for ERM, C for noisy GD): if ρ > 1 the released
vector lies within arcsin(1/ρ) of the noise's uniformly random direction, for sure. ρ₀
(= ρ L/|ℓ'(0)|: 2ρ for logistic) is the same statement for the linearization at θ = 0,
which is where the strongly regularized models of small n ε live. The warning fires when
ρ₀ > 1. Approximate-minima perturbation uses its inner mechanism's calibration.
``NoisyGradientDescent`` warns through :mod:`.noise_warning_gd` instead: ρ₀ times
max(1, C/2) (one-vs-rest) against a measured threshold (docs/privacy.md §6.8).

References
----------
K. Chaudhuri, C. Monteleoni, A. D. Sarwate, JMLR 12 (2011): Alg. 1 (output perturbation,
argmin sensitivity 2G/(nΛ)) and Alg. 2 (objective perturbation, b with density
∝ exp(−ε′‖b‖/(2G))); D. Kifer, A. Smith, A. Thakurta, COLT 2012 (Gaussian objective
perturbation); the cone lemma and the thresholds: docs/privacy.md §6.7.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ..errors import DPConvexError, PrivacyWarning
from .budget import Budget

__all__ = ["LINEAR_NOISE_RATIO", "estimator_noise_dominance", "linear_noise_dominance",
           "warn_if_linear_noise_dominates"]

#: The threshold on ρ₀: above it the direction of the linearized release is within
#: arcsin(1/ρ₀) of a uniformly random one (docs/privacy.md §6.7).
LINEAR_NOISE_RATIO = 1.0


def _expected_norm(cal: Any, p: int) -> float:
    if math.isfinite(cal.noise_rate):
        return p / cal.noise_rate  # norm-Gamma: ‖b‖ ~ Gamma(p, 1/β)
    return math.sqrt(p) * float(cal.extra["noise std"])  # Gaussian: E‖b‖ <= √p σ


def _start_fraction(loss: Any) -> float:
    """|ℓ'(0)| / L from the loss's declared constants (1 when ℓ'(0) is 0 or not finite)."""
    try:  # a user-defined loss without a vectorized deriv: the worst case
        d0 = abs(float(np.asarray(loss.deriv(np.zeros(1)), dtype=float).ravel()[0]))
        L = float(loss.deriv_bound)
    except (AttributeError, TypeError, ValueError, IndexError):
        return 1.0
    return d0 / L if 0.0 < d0 <= L and math.isfinite(L) else 1.0


def linear_noise_dominance(template: Any, mech: Any, budget: Budget, *,
                           worst_case: bool = False) -> float | None:
    """ρ₀ (or ρ with ``worst_case``) of the module docstring, from public quantities only.

    Parameters
    ----------
    template : LinearERMTemplate or EmpiricalRiskTemplate (noisy GD)
        Only ``n``, ``p``, ``loss``, ``privacy_constants()`` / ``data_norm`` are read.
    mech : Mechanism
    budget : Budget
    worst_case : bool, default=False
        Compare with the data part's bound at any θ (G, or C) instead of at θ = 0.

    Returns
    -------
    float or None
        None for the non-private baseline, an unknown mechanism, or a calibration that
        cannot be made (the release itself then reports it).
    """
    if not getattr(mech, "private", False):
        return None
    try:
        cal = mech.calibrate(template, budget)
    except (DPConvexError, ValueError, ArithmeticError):
        return None
    name = mech.name
    if name in ("amp", "gaussian_amp"):
        cal, name = cal.extra["inner"], mech.inner.name
    frac = 1.0 if worst_case else _start_fraction(template.loss)
    if name == "noisy_gd":
        x = cal.extra
        T, C = int(x["steps"]), float(x["clip"])
        first = int(mech._averaged(T)[0])
        w = (T - np.maximum(np.arange(T), first)) / float(T - first)  # weight of step t
        g0 = C if worst_case else min(C, frac * template.loss.deriv_bound * template.data_norm)
        return float(x["noise std"]) * math.sqrt(template.p) * float(np.linalg.norm(w)) / (
            g0 * float(np.sum(w)))
    consts = template.privacy_constants()
    p, g0 = int(consts.dimension), frac * float(consts.grad_bound)
    if name in ("objective", "gaussian_objective"):
        return _expected_norm(cal, p) / (template.n * g0)
    if name in ("output", "gaussian_output"):
        return _expected_norm(cal, p) * float(consts.strong_convexity) / g0
    return None


def warn_if_linear_noise_dominates(template: Any, mech: Any, budget: Budget, owner: str, *,
                                   stacklevel: int = 4) -> float | None:
    """Warn (a :class:`PrivacyWarning`, before the solve) when ρ₀ > :data:`LINEAR_NOISE_RATIO`.

    Returns ρ₀ (or None). The message names the public quantities and the remedies.
    """
    rho = linear_noise_dominance(template, mech, budget)
    if rho is None or rho <= LINEAR_NOISE_RATIO:
        return rho
    p = template.p if mech.name == "noisy_gd" else template.privacy_constants().dimension
    angle = math.degrees(math.asin(1.0 / rho))
    warnings.warn(
        f"{owner}: at epsilon = {budget.epsilon:g} the noise is large for this problem: its "
        f"expected norm is {rho:.2g} x the largest possible data gradient at the start (p = {p} "
        f"noise coordinates, n = {template.n}; public quantities only), so the model's direction "
        f"is within {angle:.0f} degrees of a random one (to first order): the model is likely "
        "no better than the majority class. Use a larger epsilon, more rows, or fewer features "
        "(docs/privacy.md §6.7).",
        PrivacyWarning, stacklevel=stacklevel)
    return rho


def estimator_noise_dominance(est: Any, X: Any, y: Any, *, worst_case: bool = False
                              ) -> tuple[float | None, Any, Any, Budget]:
    """(ρ₀ or ρ, template, mechanism, budget) the fit of ``est`` on (X, y) would warn with.

    For experiments and tests: builds the template a fit would build (no noise drawn,
    no solve) and evaluates :func:`linear_noise_dominance` on it. Works for the
    linear estimators and :class:`~dpconvex.noisy_gd.NoisyGradientDescent`.
    """
    from ..noisy_gd import NoisyGradientDescent  # the estimators import this module

    if isinstance(est, NoisyGradientDescent):  # mechanism and budget from X
        mech, budget = est._mechanism(X)
        template = est._prepare(X, y)[0]
    else:
        template = est._build(X, y).template
        mech = est._mechanism()
        budget = est._budget(mech)
    return (linear_noise_dominance(template, mech, budget, worst_case=worst_case), template,
            mech, budget)
