"""A second privacy-profile bound for Gaussian objective perturbation of the softmax loss.

For the softmax large-margin template
(docs/privacy/large_margin_softmax.md#privacy-softmax-constants,
privacy-softmax-gaussian-objective) the per-record gradient is (e_y − p) ⊗ U with U =
zzᵀ, ||U||_F <= 1, p a probability vector. With b ~ N(0, σ² I) in orthonormal
coordinates, β_c = ⟨b_c, U⟩/σ and β′_c = ⟨b_c, U′⟩/σ, the privacy loss of a replace-one
pair at an output Φ satisfies (privacy-softmax-gaussian-objective)

    L <= ε_J + S²/(2σ²) + W/σ,   S = 2√2,
    W = max(0, max_{c≠y}(β_y − β_c)) + max(0, max_{c≠y′}(β′_c − β′_{y′})),

because ⟨b, v⟩/σ = Σ_{c≠y} p_c(β_y − β_c) + Σ_{c≠y′} p′_c(β′_c − β′_{y′}) with
Σ_{c≠y} p_c <= 1. Under M(D), β_y − β_c ~ N(0, 2||U||²), so by the union bound

    P[W > t] <= min(1, 2 (C − 1) Φ̄(t / (2√2)))           (no independence needed)

and, g(w) = (1 − exp(ε − ε_J − S²/(2σ²) − w/σ))₊ being non-decreasing,

    δ(ε) <= E[g(W)] = ∫ g′(t) P[W > t] dt <= ∫_{t0}^∞ (e^{c − t/σ}/σ) min(1, 2(C − 1) Φ̄(t/(2√2))) dt,

c = ε − ε_J − S²/(2σ²) > 0, t0 = cσ. The tail is light (a union of C − 1 one-dimensional
Gaussians per record) where the χ_{2(C−1)} of (★) grows with C; the mechanism uses the
smaller σ of the two bounds (both are valid upper bounds on δ at every σ).
"""

from __future__ import annotations

import functools
import math

from scipy import integrate
from scipy.special import ndtr

from ...errors import PrivacyError
from .objective_gaussian import _check_budget, smallest_feasible_sigma

__all__ = ["softmax_objective_delta", "softmax_objective_sigma"]

_S2_HALF = 4.0  # S²/2 with S = 2√2


def softmax_objective_delta(epsilon: float, sigma: float, n_classes: int,
                            slack: float = 0.0) -> float:
    """The bound above on δ(ε) for S = 2√2 and ||z|| <= 1
    (docs/privacy/large_margin_softmax.md#privacy-softmax-gaussian-objective): ε of the
    guarantee (the one-sided Jacobian ``slack`` ε_J included), σ of each orthonormal noise
    coordinate, C = ``n_classes`` >= 2.

    Examples
    --------
    >>> from dpconvex.privacy.accounting.softmax_gaussian import (
    ...     softmax_objective_delta, softmax_objective_sigma)
    >>> sigma = softmax_objective_sigma(1.0, 1e-5, n_classes=3)
    >>> softmax_objective_delta(1.0, sigma, n_classes=3) <= 1e-5
    True
    """
    if not (sigma > 0 and n_classes >= 2):
        raise PrivacyError(f"softmax_objective_delta: need sigma > 0 and C >= 2; got {sigma}, "
                           f"{n_classes}. Pass values in range.")
    c = epsilon - slack - _S2_HALF / (sigma * sigma)
    if c <= 0.0:
        return 1.0
    t0 = c * sigma

    def integrand(t: float) -> float:  # g′(t) P[W > t], the tail by the union bound
        tail = min(1.0, 2.0 * (n_classes - 1) * float(ndtr(-t / (2.0 * math.sqrt(2.0)))))
        return math.exp(c - t / sigma) / sigma * tail

    t_max = t0 + 60.0 * sigma + 60.0
    val, _ = integrate.quad(integrand, t0, t_max, epsabs=0.0, epsrel=1e-12, limit=400)
    # the truncated part: ∫_{t_max}^∞ g′(t) dt <= e^{c − t_max/σ}
    return min(1.0, val + math.exp(c - t_max / sigma))


@functools.lru_cache(maxsize=256)  # every argument is public; a fit calibrates twice
def softmax_objective_sigma(epsilon: float, delta: float, n_classes: int,
                            slack: float = 0.0) -> float:
    """Smallest σ (bisection, the feasible end) with :func:`softmax_objective_delta` <= δ.

    Examples
    --------
    >>> from dpconvex.privacy.accounting.softmax_gaussian import softmax_objective_sigma
    >>> round(softmax_objective_sigma(1.0, 1e-5, n_classes=3), 3)
    11.408
    """
    _check_budget("softmax_objective_sigma", epsilon, delta, slack)
    return smallest_feasible_sigma(
        lambda s: softmax_objective_delta(epsilon, s, n_classes, slack) <= delta, 1.0)
