"""The analytic Gaussian mechanism: the smallest σ for one (ε, δ)-DP Gaussian release.

For a statistic of L2 sensitivity Δ, f(D) + N(0, σ² I) is (ε, δ)-DP **if and only if**
([BW18]_, Theorem 8)

    δ(ε, σ) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) <= δ,

the hockey-stick divergence of N(0, σ²) from N(Δ, σ²). It decreases strictly in σ, so the
smallest σ is found by bisection on σ/Δ (:func:`analytic_gaussian_sigma`). Unlike the
classical σ = Δ √(2 ln(1.25/δ))/ε ([DR14]_ Thm. A.1) it is exact for every ε > 0.

References
----------
.. [BW18] B. Balle, Y.-X. Wang. Improving the Gaussian Mechanism for
   Differential Privacy: Analytical Calibration and Optimal Denoising. ICML 2018, Theorem 8 and Algorithm 1.
.. [DR14] C. Dwork, A. Roth. The Algorithmic Foundations of Differential
   Privacy. FnT TCS 9 (2014), Theorem A.1.
"""

from __future__ import annotations

import functools
import math

from ..._validation import check_float
from .gaussian import _bisect, _gdp_delta

__all__ = [
    "ANALYTIC_RTOL",
    "analytic_gaussian_delta",
    "analytic_gaussian_sigma",
    "classical_gaussian_sigma",
]

#: Relative width of the final bisection bracket (the returned σ is feasible and at
#: most this much above the smallest feasible σ).
ANALYTIC_RTOL = 1e-12


def _delta_unit(epsilon: float, s: float) -> float:
    """δ(ε) of N(0, s²) against N(1, s²) (sensitivity 1, s = σ/Δ); [BW18]_ Thm. 8: the μ-GDP
    curve at μ = 1/s, computed by :func:`~dpconvex.privacy.accounting.gaussian._gdp_delta` with
    its bound on the rounding (never below the true curve where the two terms nearly cancel)."""
    return _gdp_delta(epsilon, 1.0 / s)


def analytic_gaussian_delta(epsilon: float, sigma: float, sensitivity: float) -> float:
    """δ(ε) of the Gaussian mechanism with std ``sigma`` and L2 sensitivity Δ ([BW18]_ Thm. 8).

    ε >= 0, σ > 0 per i.i.d. coordinate, Δ > 0. Returns Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) −
    εσ/Δ) plus a bound on its rounding (never below the true curve), clamped at 0: the smallest
    δ for which the mechanism is (ε, δ)-DP, stated from above.

    Examples
    --------
    >>> from dpconvex.privacy.accounting.analytic_gaussian import (
    ...     analytic_gaussian_delta, analytic_gaussian_sigma)
    >>> sigma = analytic_gaussian_sigma(1.0, 1e-5, 1.0)
    >>> analytic_gaussian_delta(1.0, sigma, 1.0) <= 1e-5
    True
    """
    owner = "analytic_gaussian_delta"
    epsilon = check_float("epsilon", epsilon, owner, low_inclusive=True, magnitude=False)
    sigma = check_float("sigma", sigma, owner, magnitude=False)
    sensitivity = check_float("sensitivity", sensitivity, owner, magnitude=False)
    return max(0.0, _delta_unit(epsilon, sigma / sensitivity))


@functools.lru_cache(maxsize=256)
def _sigma_unit(epsilon: float, delta: float, rtol: float) -> float:
    """Smallest s = σ/Δ (to ``rtol``, feasible end of the bracket) with δ(ε, s) <= δ."""
    return _bisect(lambda s: _delta_unit(epsilon, s) <= delta, 1.0, rtol,
                   f"analytic_gaussian_sigma: no sigma reaches epsilon={epsilon:g} at "
                   f"delta={delta:g}. Raise epsilon or delta.", cap=2.0**80, floor=2.0**-80)


def analytic_gaussian_sigma(epsilon: float, delta: float, sensitivity: float) -> float:
    """The smallest σ with which f(D) + N(0, σ²I) is (ε, δ)-DP ([BW18]_ Thm. 8, by bisection).

    Bisection on s = σ/Δ keeping the upper end feasible, so the returned σ always satisfies
    ``analytic_gaussian_delta(epsilon, sigma, sensitivity) <= delta`` (in floating point)
    and is at most :data:`ANALYTIC_RTOL` (relative) above the exact solution; cached per
    (ε, δ), all public. ε > 0 of any size (the condition is exact), δ in (0, 1) (δ = 0 has no
    Gaussian solution: ParameterError), Δ > 0 the L2 sensitivity under the proof's adjacency.

    Examples
    --------
    >>> round(analytic_gaussian_sigma(1.0, 1e-5, 1.0), 4)
    3.7306
    """
    owner = "analytic_gaussian_sigma"
    epsilon = check_float("epsilon", epsilon, owner, magnitude=False)
    delta = check_float("delta", delta, owner, high=1.0)
    sensitivity = check_float("sensitivity", sensitivity, owner, magnitude=False)
    return _sigma_unit(epsilon, delta, ANALYTIC_RTOL) * sensitivity


def classical_gaussian_sigma(epsilon: float, delta: float, sensitivity: float) -> float:
    """σ = Δ √(2 ln(1.25/δ)) / ε, the classical calibration ([DR14]_ Thm. A.1; valid for ε < 1).

    For comparison only: the analytic σ is smaller wherever this one is valid.

    Examples
    --------
    >>> from dpconvex.privacy.accounting.analytic_gaussian import (
    ...     analytic_gaussian_sigma, classical_gaussian_sigma)
    >>> round(classical_gaussian_sigma(0.5, 1e-5, 1.0), 3)
    9.69
    >>> analytic_gaussian_sigma(0.5, 1e-5, 1.0) < classical_gaussian_sigma(0.5, 1e-5, 1.0)
    True
    """
    owner = "classical_gaussian_sigma"
    epsilon = check_float("epsilon", epsilon, owner, magnitude=False)
    delta = check_float("delta", delta, owner, high=1.0)
    sensitivity = check_float("sensitivity", sensitivity, owner, magnitude=False)
    return sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon
