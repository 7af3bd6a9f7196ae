"""Privacy profile of Gaussian objective perturbation: δ(ε) from a written loss bound.

Objective perturbation with b ~ N(0, σ² I) and the exact minimizer of a smooth, μ-strongly
convex J(θ; D) + ⟨b, θ⟩/n. For replace-one neighbours the privacy loss at θ is at most
a R + a²/2 + ε_J with a = S/σ (S = 2G), R = ‖P_V b‖/σ ~ χ_k (V the k-dimensional span
holding every gradient difference of the pair) and ε_J the one-sided Jacobian slack, so
(derived in docs/privacy/gaussian_linear.md#privacy-gaussian-profile-bound)

    δ(ε) <= E_{R ~ χ_k} [(1 − exp(ε − ε_J − a²/2 − a R))₊]           (★)

For k >= 1 the σ solved here is never below the analytic-Gaussian σ for the same
sensitivity ([BW18]_; tested).

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
from collections.abc import Callable

from scipy import integrate
from scipy.special import chdtrc, gammaln

from ...errors import PrivacyError

__all__ = ["objective_gaussian_delta", "objective_gaussian_sigma", "smallest_feasible_sigma"]

#: Relative width of the final bisection bracket on σ (the returned σ is feasible).
SIGMA_RTOL = 1e-10


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
    if sensitivity == 0:
        return 0.0 if epsilon >= slack else 1.0
    a = sensitivity / sigma
    c = epsilon - slack - 0.5 * a * a  # L_up > ε  <=>  R > c / a
    r0 = max(c / a, 0.0)
    tail = float(chdtrc(k, r0 * r0))  # P[R > r0], R ~ χ_k
    if tail == 0.0:
        return 0.0

    # E[e^{c - aR}; R > r0] = ∫_{r0}^∞ exp(c - a r + log f_k(r)) dr, done in log form
    def integrand(r: float) -> float:
        if r <= 0:
            return 0.0
        log_chi_pdf = ((k - 1) * math.log(r) - 0.5 * r * r - (0.5 * k - 1) * math.log(2.0)
                       - gammaln(0.5 * k))
        return math.exp(c - a * r + log_chi_pdf)

    hi = max(r0, math.sqrt(k)) + 40.0
    val, _ = integrate.quad(integrand, r0, hi, epsabs=0.0, epsrel=1e-12, limit=400)
    return max(tail - val, 0.0)


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
    return smallest_feasible_sigma(
        lambda s: objective_gaussian_delta(epsilon, s, sensitivity, k, slack) <= delta,
        sensitivity)


def _check_budget(caller: str, epsilon: float, delta: float, slack: float) -> None:
    if not 0.0 < delta < 1.0:
        raise PrivacyError(f"{caller}: Gaussian objective perturbation needs 0 < delta < 1; "
                           f"got {delta}. Pass a delta in (0, 1).")
    if not epsilon > slack:
        raise PrivacyError(f"{caller}: the Jacobian slack {slack:.6g} uses all of "
                           f"epsilon = {epsilon:g}; raise lam or epsilon.")


def smallest_feasible_sigma(ok: Callable[[float], bool], scale: float) -> float:
    """Smallest σ (to :data:`SIGMA_RTOL`; it satisfies ``ok``) with ``ok(σ)``, for ``ok``
    monotone: brackets from [scale·1e-3, scale] by doubling / halving, then bisects.

    Examples
    --------
    >>> from dpconvex.privacy.accounting.objective_gaussian import smallest_feasible_sigma
    >>> round(smallest_feasible_sigma(lambda s: s >= 3.0, scale=1.0), 4)
    3.0
    """
    lo, hi = scale * 1e-3, scale
    while not ok(hi):
        lo, hi = hi, 2.0 * hi
        if hi > scale * 1e12:  # pragma: no cover - δ in (0, 1) always has a solution
            raise PrivacyError("smallest_feasible_sigma: no feasible sigma found below 1e12 x "
                               "the sensitivity. Raise epsilon or delta.")
    while ok(lo) and lo > scale * 1e-12:
        lo *= 0.5
    while hi - lo > SIGMA_RTOL * hi:
        mid = 0.5 * (lo + hi)
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi
