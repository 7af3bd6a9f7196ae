"""Privacy profile of Gaussian objective perturbation: δ(ε) from a written loss bound.

Objective perturbation ([KST12]_) with b ~ N(0, σ² I) and the exact minimizer of a smooth, μ-strongly convex
J(θ; D) + ⟨b, θ⟩/n, read as a privacy profile ([RKW23]_). For replace-one neighbours the privacy loss at θ is
at most a R + a²/2 + ε_J with a = S/σ (S = 2G), R = ‖P_V b‖/σ ~ χ_k (V the k-dimensional span holding every
gradient difference of the pair) and ε_J the one-sided Jacobian slack, so (derived in
docs/privacy/gaussian_linear.md#privacy-gaussian-profile-bound)

    δ(ε) <= E_{R ~ χ_k} [(1 − exp(ε − ε_J − a²/2 − a R))₊]           (★)

For k >= 1 the σ solved here is never below the analytic-Gaussian σ for the same
sensitivity ([BW18]_; tested).

A second bound for the softmax large-margin template (S = 2√2): the loss is at most
ε_J + S²/(2σ²) + W/σ, W a sum of two maxima over the C − 1 other classes of N(0, 2‖U‖²)
differences, so by the union bound (:func:`softmax_objective_delta`; derived in
docs/privacy/large_margin_softmax.md#privacy-softmax-gaussian-objective)

    δ(ε) <= ∫_{t0}^∞ (e^{c − t/σ}/σ) min(1, 2(C − 1) Φ̄(t/(2√2))) dt,   c = ε − ε_J − S²/(2σ²),

t0 = cσ: a lighter tail than the χ_{2(C−1)} of (★); the mechanism uses the smaller σ.

References
----------
.. [KST12] D. Kifer, A. Smith, A. Thakurta. Private Convex Empirical Risk
   Minimization and High-dimensional Regression. COLT 2012, Theorem 2.
.. [RKW23] R. Redberg, A. Koskela, Y.-X. Wang. Improving the Privacy and
   Practicality of Objective Perturbation for Differentially Private Linear
   Learners. NeurIPS 2023 (the privacy-profile view used here).
.. [BW18] B. Balle, Y.-X. Wang. Improving the Gaussian Mechanism for
   Differential Privacy. ICML 2018, Theorem 8.
"""

from __future__ import annotations

import functools
import math

from scipy import integrate
from scipy.special import erfcx, gammaln, log_ndtr, ndtr, ndtri

from ...errors import PrivacyError
from .gaussian import _bisect

__all__ = ["objective_gaussian_delta", "objective_gaussian_sigma",
           "softmax_objective_delta", "softmax_objective_sigma"]

#: Relative width of the final bisection bracket on σ (the returned σ is feasible).
SIGMA_RTOL = 1e-10
_NO_SIGMA = "{}: no feasible sigma found below 1e12 x the sensitivity. Raise epsilon or delta."


def objective_gaussian_delta(epsilon: float, sigma: float, sensitivity: float, k: int,
                             slack: float = 0.0) -> float:
    """The bound (★) on δ(ε) of Gaussian objective perturbation
    (docs/privacy/gaussian_linear.md#privacy-gaussian-profile-bound).

    An upper bound on the hockey-stick divergence at ``epsilon`` (the total ε, ``slack``
    included); ``sigma`` of each noise coordinate; S = ``sensitivity`` >= ‖∇ℓ(θ; z) −
    ∇ℓ(θ; z′)‖ over θ and replace-one pairs (2G); ``k`` the dimension of a subspace holding
    every such difference of one pair; ``slack`` ε_J (one-sided, privacy-jacobian-slack).

    Examples
    --------
    >>> from dpconvex.privacy.accounting.objective_gaussian import (
    ...     objective_gaussian_delta, objective_gaussian_sigma)
    >>> sigma = objective_gaussian_sigma(1.0, 1e-5, sensitivity=2.0, k=1)
    >>> objective_gaussian_delta(1.0, sigma, sensitivity=2.0, k=1) <= 1e-5
    True
    """
    if not (sigma > 0 and sensitivity >= 0 and k >= 1):
        raise PrivacyError(f"objective_gaussian_delta: need sigma > 0, sensitivity >= 0 and "
                           f"k >= 1; got {sigma}, {sensitivity}, {k}. Pass values in range.")
    a = sensitivity / sigma
    if a == 0.0 or math.isinf(epsilon):  # no difference to hide (S = 0, σ = ∞), or no ε to reach
        return 0.0 if epsilon >= slack else 1.0
    c = epsilon - slack - 0.5 * a * a  # L_up > ε  <=>  R > c / a
    r0 = max(c / a, 0.0)
    # k <= 2 in closed form, E[e^{c - aR}; R > r0] = 2 e^{ε - ε_J} Φ̄(r0 + a) (χ_1) or e^{c - a r0 - r0²/2}
    # - a√(2π) e^{ε - ε_J} Φ̄(r0 + a) (χ_2; c - a r0 = min(c, 0)), its rounding added (safe side)
    if k <= 2:
        upper = math.exp(epsilon - slack + float(log_ndtr(-(r0 + a))))
        terms = (
            (2.0 * float(ndtr(-r0)), -2.0 * upper)
            if k == 1
            else (
                a * math.sqrt(2.0 * math.pi) * upper,
                -math.exp(-0.5 * r0 * r0) * math.expm1(min(c, 0.0)),
            )
        )
        ulps = (16.0 + 4.0 * min(r0 + a, 1e150) ** 2 + 2.0 * abs(epsilon - slack)) * 2.0**-52
        return float(
            min(1.0, max(sum(terms), 0.0) * (1.0 + 2.0**-40) + ulps * sum(map(abs, terms)))
        )
    # k > 2: ∫_{r0}^∞ (1 − e^{c − ar}) f_k(r) dr, a positive integrand (no tails to cancel)
    log_two, log_gamma = (0.5 * k - 1) * math.log(2.0), float(gammaln(0.5 * k))  # f_k's constants
    val = integrate.quad(lambda r: -math.expm1(c - a * r) * math.exp(
        (k - 1) * math.log(max(r, 1e-300)) - 0.5 * r * r - log_two - log_gamma),
        r0, max(r0, math.sqrt(k)) + 40.0, epsabs=0.0, epsrel=1e-12, limit=400)[0]
    return min(1.0, val * (1.0 + 1e-10))  # the quadrature's relative error, on the safe side


@functools.lru_cache(maxsize=256)  # every argument is public; a fit calibrates twice
def objective_gaussian_sigma(epsilon: float, delta: float, sensitivity: float, k: int,
                             slack: float = 0.0) -> float:
    """Smallest σ (to :data:`SIGMA_RTOL`) with :func:`objective_gaussian_delta` <= δ.

    PrivacyError if ε <= slack (no budget left for the noise) or δ is not in (0, 1).

    Examples
    --------
    >>> from dpconvex.privacy.accounting.objective_gaussian import objective_gaussian_sigma
    >>> round(objective_gaussian_sigma(1.0, 1e-5, sensitivity=2.0, k=1), 3)
    7.768
    """
    _check_budget("objective_gaussian_sigma", epsilon, delta, slack)
    if sensitivity == 0:
        return 0.0
    return _bisect(lambda s: objective_gaussian_delta(epsilon, s, sensitivity, k, slack) <= delta,
                   sensitivity, SIGMA_RTOL, _NO_SIGMA.format("objective_gaussian_sigma"),
                   cap=1e12 * sensitivity, floor=1e-12 * sensitivity)


def _check_budget(caller: str, epsilon: float, delta: float, slack: float) -> None:
    if not 0.0 < delta < 1.0:
        raise PrivacyError(f"{caller}: Gaussian objective perturbation needs 0 < delta < 1; "
                           f"got {delta}. Pass a delta in (0, 1).")
    if not epsilon > slack:
        raise PrivacyError(f"{caller}: the Jacobian slack {slack:.6g} uses all of "
                           f"epsilon = {epsilon:g}; raise lam or epsilon.")


#: S²/2 of the softmax bound, S = 2√2.
_S2_HALF = 4.0  # S²/2 with S = 2√2


def softmax_objective_delta(
    epsilon: float, sigma: float, n_classes: int, slack: float = 0.0
) -> float:
    """The bound above on δ(ε) for S = 2√2 and ||z|| <= 1
    (docs/privacy/large_margin_softmax.md#privacy-softmax-gaussian-objective): ε of the
    guarantee (the one-sided Jacobian ``slack`` ε_J included), σ of each orthonormal noise
    coordinate, C = ``n_classes`` >= 2.

    Examples
    --------
    >>> from dpconvex.privacy.accounting.objective_gaussian import (
    ...     softmax_objective_delta, softmax_objective_sigma)
    >>> sigma = softmax_objective_sigma(1.0, 1e-5, n_classes=3)
    >>> softmax_objective_delta(1.0, sigma, n_classes=3) <= 1e-5
    True
    """
    if not (sigma > 0 and n_classes >= 2):
        raise PrivacyError(f"softmax_objective_delta: need sigma > 0 and C >= 2; got {sigma}, "
                           f"{n_classes}. Pass values in range.")
    c = epsilon - slack - _S2_HALF / sigma / sigma
    if c <= 0.0 or math.isinf(c * sigma):  # no bound; or ε or σ infinite: no loss reaches the tail
        return 1.0 if c <= 0.0 else 0.0
    # The tail min(1, m Φ̄(t/s)), m = 2(C − 1), s = 2√2, is 1 up to t1 = s Φ̄⁻¹(1/m) >= 0: from t0 to
    # u = max(t0, t1) the integral is 1 − e^{c − u/σ}; past u, by parts, with x = u/s, b = s/σ and
    # c + b²/2 = ε − ε_J, it is m (e^{c − u/σ} Φ̄(x) − e^{ε − ε_J} Φ̄(x + b)): one exponent
    # e^{c − u/σ − x²/2} times erfcx (Φ̄(x) = erfcx(x/√2) e^{−x²/2}/2), its rounding added (ulps).
    m, s = 2.0 * (n_classes - 1), 2.0 * math.sqrt(2.0)
    t1 = -s * float(ndtri(1.0 / m))
    gap, x = min(0.0, c - t1 / sigma), max(c * sigma, t1) / s  # c − u/σ, u/s
    scale, first = 0.5 * m * math.exp(gap - 0.5 * x * x), float(erfcx(x / math.sqrt(2.0)))
    past = scale * (first - float(erfcx((x + s / sigma) / math.sqrt(2.0))))
    rounding = (
        (16.0 + min(x, 1e150) ** 2 + 2.0 * abs(gap)) * 2.0**-52 * (scale * first - math.expm1(gap))
    )
    return min(1.0, max(-math.expm1(gap) + past, 0.0) * (1.0 + 2.0**-40) + rounding)


@functools.lru_cache(maxsize=256)  # every argument is public; a fit calibrates twice
def softmax_objective_sigma(
    epsilon: float, delta: float, n_classes: int, slack: float = 0.0
) -> float:
    """Smallest σ (bisection, the feasible end) with :func:`softmax_objective_delta` <= δ.

    Examples
    --------
    >>> from dpconvex.privacy.accounting.objective_gaussian import softmax_objective_sigma
    >>> round(softmax_objective_sigma(1.0, 1e-5, n_classes=3), 3)
    11.408
    """
    _check_budget("softmax_objective_sigma", epsilon, delta, slack)
    return _bisect(
        lambda s: softmax_objective_delta(epsilon, s, n_classes, slack) <= delta,
        1.0,
        SIGMA_RTOL,
        _NO_SIGMA.format("softmax_objective_sigma"),
        cap=1e12,
    )
