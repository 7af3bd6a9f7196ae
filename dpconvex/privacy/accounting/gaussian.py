"""Calibration of composed Gaussian mechanisms (noisy gradient descent) by ``dp_accounting``.

Moved from ``noisy_gd.py`` (derivation in docs/privacy.md §6.3). Under
replace-one adjacency with n public, replacing one record changes the mean of
the clipped gradients by at most Δ = 2C/n in L2; each step adds N(0, s² I) with
s = z·Δ. ``dp_accounting`` composes the T steps (RDP or PLD) and a bisection
finds the smallest z whose composed ε at δ is at most the target.

.. note:: ``dp_accounting.GaussianDpEvent(z)`` with ``ADD_OR_REMOVE_ONE`` reads z
   as std / (L2 distance of neighbouring outputs), so passing z = s / (2C/n) is
   right for replace-one (the PLD accountant with ``REPLACE_ONE`` would read z
   as std / C).

References
----------
.. [Mir17] I. Mironov. Rényi Differential Privacy. CSF 2017.
.. [DRS22] J. Dong, A. Roth, W. Su. Gaussian Differential Privacy. JRSS B 84 (2022).
"""

from __future__ import annotations

import math
from importlib.metadata import PackageNotFoundError, version

import dp_accounting
import numpy as np
from dp_accounting import pld, rdp
from scipy.optimize import brentq
from scipy.special import log_ndtr, ndtr

from ..._validation import check_float, check_int, check_option
from ...errors import PrivacyError
from ...losses import Loss

__all__ = [
    "ACCOUNTING",
    "accountant_name",
    "calibrate_noise_multiplier",
    "default_learning_rate",
    "gaussian_composition_epsilon",
    "gdp_epsilon",
]

#: Accountants of ``dp_accounting`` that may calibrate the noise.
ACCOUNTING = ("rdp", "pld")

#: Relative precision of the bisection on the noise multiplier (the returned
#: multiplier is feasible; it is at most this much above the smallest one).
CALIBRATION_RTOL = 1e-6

#: Rényi orders of the RDP accountant: dp_accounting's default grid (1.1 ... 1024)
#: extended below to 1.01 and above to 1e6, because small ε at small δ needs
#: large orders (ε >= log(1/δ)/(α - 1)); with the default grid ε = 0.01 at
#: δ = 1/n² is out of reach for any noise.
RDP_ORDERS: tuple[float, ...] = tuple(sorted(
    {1.0 + x / 100.0 for x in range(1, 10)}
    | {1.0 + x / 10.0 for x in range(1, 100)}
    | {float(a) for a in range(11, 64)}
    | {float(round(a, 3)) for a in np.logspace(np.log10(64.0), 6.0, 61)}
))

#: PLD discretization (dp_accounting's default); the PLD accountant is
#: pessimistic, so its ε is an upper bound.
PLD_DISCRETIZATION = 1e-4


def _dp_accounting_version() -> str:
    try:
        return version("dp-accounting")
    except PackageNotFoundError:  # pragma: no cover
        return "unknown"


def _make_accountant(accounting: str) -> dp_accounting.PrivacyAccountant:
    add_remove = dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE
    if accounting == "rdp":
        return rdp.RdpAccountant(orders=list(RDP_ORDERS), neighboring_relation=add_remove)
    return pld.PLDAccountant(neighboring_relation=add_remove,
                             value_discretization_interval=PLD_DISCRETIZATION)


def accountant_name(accounting: str) -> str:
    cls = "rdp.RdpAccountant" if accounting == "rdp" else "pld.PLDAccountant"
    return f"dp_accounting.{cls} (dp-accounting {_dp_accounting_version()})"


def gaussian_composition_epsilon(noise_multiplier: float, steps: int, delta: float,
                                 accounting: str = "rdp") -> float:
    """ε at δ of ``steps`` Gaussian mechanisms with noise multiplier z, by ``dp_accounting``.

    z is the ratio of the noise standard deviation to the L2 distance between
    the outputs on neighbouring data sets (see the module note).

    Parameters
    ----------
    noise_multiplier : float
        z > 0.
    steps : int
        T >= 1 (adaptive composition).
    delta : float
        In (0, 1).
    accounting : {"rdp", "pld"}

    Returns
    -------
    float
        The accountant's ε (an upper bound on the true one).
    """
    check_option("accounting", accounting, ACCOUNTING, "gaussian_composition_epsilon")
    acc = _make_accountant(accounting)
    acc.compose(dp_accounting.SelfComposedDpEvent(
        dp_accounting.GaussianDpEvent(float(noise_multiplier)), int(steps)))
    return float(acc.get_epsilon(float(delta)))


def gdp_epsilon(noise_multiplier: float, steps: int, delta: float) -> float:
    """Exact ε at δ of T Gaussian mechanisms with noise multiplier z (second opinion).

    The adaptive composition of T Gaussian mechanisms of ratio z is exactly
    μ-GDP with μ = sqrt(T)/z ([DRS22]_, Cor. 3.3), whose (ε, δ) curve is
    δ(ε) = Φ(-ε/μ + μ/2) - e^ε Φ(-ε/μ - μ/2) (the analytic Gaussian mechanism
    of Balle & Wang, ICML 2018, Thm. 8). Solved for ε by bracketing. Used to
    check the accountant: a sound accountant never reports less than this.
    """
    mu = math.sqrt(int(steps)) / float(noise_multiplier)

    def delta_of(eps: float) -> float:
        a = -eps / mu + mu / 2.0
        b = -eps / mu - mu / 2.0
        return float(ndtr(a) - math.exp(eps + log_ndtr(b)))

    if delta_of(0.0) <= delta:
        return 0.0
    hi = 1.0
    while delta_of(hi) > delta:
        hi *= 2.0
    return float(brentq(lambda e: delta_of(e) - delta, 0.0, hi, xtol=1e-12, rtol=1e-12))


def calibrate_noise_multiplier(epsilon: float, delta: float, steps: int,
                               accounting: str = "rdp", rtol: float = CALIBRATION_RTOL
                               ) -> tuple[float, float]:
    """Smallest noise multiplier z (to ``rtol``) such that T Gaussian steps are (ε, δ)-DP.

    Bisection on z with the ``dp_accounting`` accountant as the oracle,
    keeping the upper end feasible: the returned z always satisfies
    ``gaussian_composition_epsilon(z, steps, delta, accounting) <= epsilon``.
    The PLD search starts from the RDP solution (cheap, and PLD is tighter).
    The result is checked against the exact Gaussian-DP curve
    (:func:`gdp_epsilon`); an accountant reporting less than the exact ε
    raises instead of releasing.

    Parameters
    ----------
    epsilon : float
        Target ε > 0.
    delta : float
        Target δ in (0, 1).
    steps : int
        T >= 1.
    accounting : {"rdp", "pld"}
    rtol : float
        Relative width of the final bracket.

    Returns
    -------
    z : float
        Noise multiplier.
    epsilon_achieved : float
        The accountant's ε at z (<= ``epsilon``).

    Raises
    ------
    PrivacyError
        If no multiplier up to 2^60 reaches the target, or the accountant
        disagrees with the exact curve.
    """
    owner = "calibrate_noise_multiplier"
    epsilon = check_float("epsilon", epsilon, owner)
    delta = check_float("delta", delta, owner, high=1.0)
    steps = check_int("steps", steps, owner)
    check_option("accounting", accounting, ACCOUNTING, owner)

    def eps_of(z: float) -> float:
        return gaussian_composition_epsilon(z, steps, delta, accounting)

    hi = 1.0
    if accounting == "pld":
        hi = calibrate_noise_multiplier(epsilon, delta, steps, "rdp", rtol=1e-3)[0]
    e_hi = eps_of(hi)
    while e_hi > epsilon:
        hi *= 2.0
        if hi > 2.0**60:
            raise PrivacyError(
                f"noise calibration: no noise multiplier reaches epsilon={epsilon:g} at "
                f"delta={delta:g} with {steps} steps. Raise epsilon or delta, or use fewer steps."
            )
        e_hi = eps_of(hi)
    lo = hi / 2.0
    while eps_of(lo) <= epsilon:
        hi, lo = lo, lo / 2.0
        if lo < 1e-12:  # pragma: no cover - needs an absurd epsilon
            break
    e_hi = eps_of(hi)
    while hi - lo > rtol * hi:
        mid = 0.5 * (lo + hi)
        e_mid = eps_of(mid)
        if e_mid <= epsilon:
            hi, e_hi = mid, e_mid
        else:
            lo = mid
    exact = gdp_epsilon(hi, steps, delta)
    if e_hi < exact * (1.0 - 1e-6) - 1e-12:
        raise PrivacyError(
            f"noise calibration: the {accounting.upper()} accountant reports epsilon={e_hi:.6g} "
            f"at noise multiplier {hi:.6g}, below the exact Gaussian-DP value {exact:.6g}; the "
            "accountant is not trusted here. Try accounting='pld' or 'rdp'."
        )
    return hi, e_hi


def default_learning_rate(loss: Loss, q: float, radius: float, steps: int, p: int, clip: float,
                          noise_std: float) -> float:
    """Step size from public quantities: min(1/L, R / (s sqrt(T p))), L = c q².

    With per-example clipping, the clipped mean gradient is the exact gradient
    of the convex surrogate (1/n) Σ ψ_i(y_i θᵀx_i), ψ_i' = max(ℓ', -C/||x_i||)
    (for losses with ℓ' <= 0, as all margin losses here), whose smoothness is
    at most L = c q² (c the loss's curvature bound, q the row-norm bound with
    the intercept). Averaged projected SGD with step η <= 1/L and gradient
    noise of variance p s² has error at most R²/(2ηT) + η p s²/2; the
    minimizing step is R / (s sqrt(T p)), capped at 1/L. Without a finite
    curvature bound: R / (sqrt(T) sqrt(C² + p s²)) (the non-smooth rate).
    """
    c = float(loss.curvature)
    if math.isfinite(c) and c > 0:
        L = c * q * q
        if noise_std <= 0:
            return 1.0 / L
        return min(1.0 / L, radius / (noise_std * math.sqrt(steps * p)))
    return radius / (math.sqrt(steps) * math.sqrt(clip * clip + p * noise_std * noise_std))
