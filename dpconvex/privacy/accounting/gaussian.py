"""Calibration of composed Gaussian mechanisms (noisy gradient descent).

Derivation in docs/privacy/tuning_gd_ledger.md#privacy-noisy-gd. Under replace-one
adjacency with n public, replacing one record changes the mean of the clipped gradients by
at most Δ = 2C/n in L2; each step adds N(0, s² I) with s = z·Δ. The T steps are exactly
μ-GDP with μ = sqrt(T)/z [DRS22]_: accounting "gdp" solves that curve for z. Or
``dp_accounting`` composes them (RDP [Mir17]_ or PLD) and a bisection finds the smallest z
whose composed ε at δ is at most the target; the exact curve (:func:`gdp_epsilon`) checks it.

.. note:: ``dp_accounting.GaussianDpEvent(z)`` with ``ADD_OR_REMOVE_ONE`` reads z
   as std / (L2 distance of neighbouring outputs), so passing z = s / (2C/n) is right for replace-one (the PLD
   accountant with ``REPLACE_ONE`` would read z as std / C).

References
----------
.. [Mir17] I. Mironov. Rényi Differential Privacy. CSF 2017.
.. [DRS22] J. Dong, A. Roth, W. Su. Gaussian Differential Privacy. JRSS B 84 (2022).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from importlib.metadata import version

import numpy as np
from scipy import integrate
from scipy.optimize import brentq
from scipy.special import erfcx, log_ndtr, ndtr

from ..._validation import check_float, check_int, check_option
from ...errors import ParameterError, PrivacyError

__all__ = [
    "ACCOUNTING",
    "PLD_MAX_POINTS",
    "accountant_name",
    "calibrate_noise_multiplier",
    "check_pld_size",
    "gaussian_composition_epsilon",
    "gdp_epsilon",
    "gdp_mu",
    "pld_points",
]

#: Accountants that may calibrate the noise: ``dp_accounting``'s Rényi DP ("rdp") and privacy-loss
#: distribution ("pld") accountants, and the exact μ-GDP curve of the composition ("gdp").
ACCOUNTING = ("gdp", "pld", "rdp")
#: Largest argument of math.exp below float64 overflow (exp(709) ~ 8.2e307).
_LOG_MAX = 709.0
_SQRT2 = math.sqrt(2.0)
# relative error of scipy's erfcx on x ≥ 0 (Faddeeva package: Chebyshev fits to ~1e-15), with margin
_ERFCX_RELATIVE = 1e-13

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

#: Largest privacy-loss grid the PLD accountant may build: about 2·10⁵ μ points with
#: μ = sqrt(T)/z (:func:`pld_points`); time and memory grow steeply above a few million. The
#: cap (μ = 12.5, ε ≈ 125 at δ = 10⁻⁵) refuses a larger grid with a named error instead of
#: minutes and gigabytes (benchmarks/recorded/pld_accountant_cost.md).
PLD_MAX_POINTS = 2_500_000


def accountant_name(accounting: str) -> str:
    """The accountant behind ``accounting`` for certificates: the ``dp_accounting`` accountant
    and its version ("rdp": Renyi DP, "pld": privacy-loss distribution), or the exact curve ("gdp").

    Parameters
    ----------
    accounting : {"rdp", "pld", "gdp"}
        The accounting method.

    Returns
    -------
    str
        The accountant's name (with the installed dp-accounting version), or the curve's.

    Examples
    --------
    >>> from dpconvex.privacy.accounting.gaussian import accountant_name
    >>> accountant_name("rdp").startswith("dp_accounting.rdp.RdpAccountant")
    True
    >>> accountant_name("pld").startswith("dp_accounting.pld.PLDAccountant")
    True
    """
    if accounting == "gdp":
        return "the exact mu-GDP curve of T Gaussian steps, mu = sqrt(T)/z (Dong, Roth & Su 2022, Cor. 3.3)"
    cls = "rdp.RdpAccountant" if accounting == "rdp" else "pld.PLDAccountant"
    return f"dp_accounting.{cls} (dp-accounting {version('dp-accounting')})"


def pld_points(noise_multiplier: float, steps: int) -> float:
    """Estimated size of the T-fold PLD grid: about 20 sqrt(T) / (z x the discretization).

    The privacy loss of one Gaussian step is an affine function of the noise, with slope 1/z² in units of the
    noise std z; ``dp_accounting`` keeps the noise within about 10 standard deviations (mass truncation
    10⁻²²), a loss range of 20/z, and the range of the composed loss grows as sqrt(T).

    Parameters
    ----------
    noise_multiplier : float
        z > 0: the noise standard deviation over the L2 sensitivity of one step.
    steps : int
        T, the number of composed Gaussian steps.

    Returns
    -------
    float
        The estimated number of grid points.

    Examples
    --------
    >>> from dpconvex.privacy.accounting.gaussian import PLD_MAX_POINTS, pld_points
    >>> pld_points(1.0, 100) < PLD_MAX_POINTS
    True
    """
    return 20.0 * math.sqrt(max(int(steps), 1)) / (float(noise_multiplier) * PLD_DISCRETIZATION)


def check_pld_size(noise_multiplier: float, steps: int) -> None:
    """Refuse a PLD computation above :data:`PLD_MAX_POINTS` with a :class:`ParameterError`.

    Parameters
    ----------
    noise_multiplier : float
        z > 0: the noise standard deviation over the L2 sensitivity of one step.
    steps : int
        T, the number of composed Gaussian steps.

    Raises
    ------
    ParameterError
        :func:`pld_points` is above :data:`PLD_MAX_POINTS` (or not a number).

    Examples
    --------
    >>> from dpconvex import ParameterError
    >>> from dpconvex.privacy.accounting.gaussian import check_pld_size
    >>> check_pld_size(1.0, 100)
    >>> try:
    ...     check_pld_size(1e-6, 100)
    ... except ParameterError as e:
    ...     print("refused:", str(e).split("; ")[-1])
    refused: use accounting='gdp' (the exact curve, instant) or a smaller epsilon.
    """
    points = pld_points(noise_multiplier, steps)
    if not points <= PLD_MAX_POINTS:
        raise ParameterError(
            f"check_pld_size: PLD accounting of {int(steps)} Gaussian steps with noise multiplier "
            f"{float(noise_multiplier):.3g} needs a privacy-loss grid of about {points:.3g} "
            "points "
            f"(limit {PLD_MAX_POINTS:.3g}: minutes and gigabytes). The grid grows with sqrt(T)/z, "
            "so "
            "this happens only at a very large epsilon (above about 100 at delta = 1e-5), "
            "whatever the "
            "number of steps; use accounting='gdp' (the exact curve, instant) or a smaller "
            "epsilon."
        )


def gaussian_composition_epsilon(noise_multiplier: float, steps: int, delta: float,
                                 accounting: str = "rdp") -> float:
    """ε at δ in (0, 1) of T = ``steps`` adaptively composed Gaussian mechanisms, by ``dp_accounting``
    ("rdp", "pld") or exactly ("gdp", :func:`gdp_epsilon`).

    z = ``noise_multiplier`` > 0 is the ratio of the noise standard deviation to the L2
    distance between the outputs on neighbouring data sets (see the module note). The
    accountant's ε is an upper bound on the true one.

    Parameters
    ----------
    noise_multiplier : float
        z > 0: the noise standard deviation over the L2 sensitivity of one step.
    steps : int
        T, the number of composed Gaussian steps.
    delta : float
        δ in (0, 1).
    accounting : {"rdp", "pld", "gdp"}, default="rdp"
        The accountant.

    Returns
    -------
    float
        ε (an upper bound on the true one).

    Raises
    ------
    ParameterError
        An ``accounting`` not in ``ACCOUNTING``; a PLD grid above :data:`PLD_MAX_POINTS`.

    Examples
    --------
    >>> from dpconvex.privacy.accounting.gaussian import gaussian_composition_epsilon
    >>> eps = gaussian_composition_epsilon(2.0, steps=10, delta=1e-5)
    >>> round(eps, 2)
    8.08
    """
    check_option("accounting", accounting, ACCOUNTING, "gaussian_composition_epsilon")
    if accounting == "gdp":
        return gdp_epsilon(noise_multiplier, steps, delta)
    if accounting == "pld":
        check_pld_size(noise_multiplier, steps)
    import dp_accounting  # on first use: importing it costs more than most fits
    from dp_accounting import pld, rdp

    add_remove = dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE
    if accounting == "rdp":
        acc = rdp.RdpAccountant(orders=list(RDP_ORDERS), neighboring_relation=add_remove)
    else:
        acc = pld.PLDAccountant(neighboring_relation=add_remove,
                                value_discretization_interval=PLD_DISCRETIZATION)
    acc.compose(dp_accounting.SelfComposedDpEvent(
        dp_accounting.GaussianDpEvent(float(noise_multiplier)), int(steps)))
    return float(acc.get_epsilon(float(delta)))


def gdp_epsilon(noise_multiplier: float, steps: int, delta: float) -> float:
    """Exact ε at δ of T Gaussian mechanisms with noise multiplier z.

    The adaptive composition of T Gaussian mechanisms of ratio z is exactly μ-GDP with μ = sqrt(T)/z
    ([DRS22]_, Cor. 3.3), whose (ε, δ) curve is δ(ε) = Φ(-ε/μ + μ/2) - e^ε Φ(-ε/μ - μ/2) (the analytic
    Gaussian mechanism of Balle & Wang, ICML 2018, Thm. 8), rounded up. Solved for ε by bracketing. A
    sound accountant of ``dp_accounting`` never reports less than this (a second opinion on it).

    Parameters
    ----------
    noise_multiplier : float
        z > 0: the noise standard deviation over the L2 sensitivity of one step.
    steps : int
        T, the number of composed Gaussian steps.
    delta : float
        δ in (0, 1).

    Returns
    -------
    float
        ε, rounded up (0 where the curve is at most δ at ε = 0).

    References
    ----------
    [DRS22]_ Corollary 3.3 (composition of Gaussian mechanisms) and Corollary 2.13 (the
    curve); [BW18]_ Theorem 8.

    Examples
    --------
    >>> from dpconvex.privacy.accounting.gaussian import gaussian_composition_epsilon, gdp_epsilon
    >>> round(gdp_epsilon(2.0, steps=10, delta=1e-5), 3)
    7.511
    >>> gdp_epsilon(2.0, 10, 1e-5) <= gaussian_composition_epsilon(2.0, 10, 1e-5, "rdp")
    True
    """
    mu = math.sqrt(int(steps)) / float(noise_multiplier)
    if _gdp_delta(0.0, mu) <= delta:
        return 0.0
    hi = 1.0
    while _gdp_delta(hi, mu) > delta:
        hi *= 2.0
    return float(
        brentq(lambda e: _gdp_delta(e, mu) - delta, 0.0, hi, xtol=1e-300, rtol=1e-12, maxiter=2000)
    )


def _gdp_delta(eps: float, mu: float) -> float:
    """δ(ε) = Φ(-ε/μ + μ/2) - e^ε Φ(-ε/μ - μ/2) of μ-GDP ([DRS22]_ Cor. 2.13) plus a bound on its
    rounding, so never below the true curve (docs/privacy/tuning_gd_ledger.md#privacy-noisy-gd).

    With a = -ε/μ + μ/2, δ = E[(1 − e^{-μ(a + Z)})₊] increases in a at a fixed μ, so the curve is
    read at a float a' at or above the true a (a plus a bound on its rounding), where
    b' = a' - μ and e^{ε'} = e^{μ²/2 - a'μ}, in three forms; each gives an upper bound (value plus
    a bound on its rounding) and the smallest is returned, at most 1. As written: enough where its
    bound is within 1e-10 of δ. With e^{ε'} Φ(b') = φ(a')·√(π/2)·erfcx(-b'/√2), and Φ(a') likewise
    where a' < 0: no e^ε and no far tail of Φ, so it holds where ε is huge and μ² ≈ 2ε; enough
    where its two terms do not cancel (their sum within 1,000 times their difference). Else
    (μ² << ε, so μ < 0.1), by quadrature of the positive integrand. A δ below 1e-300 may read 0."""
    if not math.isfinite(eps / mu):  # a < -1e308 + μ/2: δ < Φ(a) = 0
        return 0.0
    # a to within 2^-52 (ε/μ + μ/2) (two roundings); a' above the true a by construction
    a = -eps / mu + mu / 2.0 + 2.0**-49 * (eps / mu + mu / 2.0)
    if not a <= 40.0:  # an upper bound: 1 (1 - Φ(a') < 1e-300, or a' overflowed)
        return 1.0
    if a < -1e4:  # the true a < -1e4: δ < Φ(a) < 1e-300
        return 0.0
    b, eps_a = a - mu, mu * (mu / 2.0 - a)  # b' rounds by 2^-53 |b'|, ε' by 2^-51 |ε'|
    log_second = eps_a + float(log_ndtr(b))
    terms = float(ndtr(a)), math.exp(min(log_second, _LOG_MAX))
    value = terms[0] - terms[1]
    # Φ(a') to (16 + 2a'²) ulps (scipy's ndtr reaches 1,000 ulps at a = -36, about a² ulps);
    # log Φ(b') to 8 ulps of max(|log|, 1) and b'² ulps from b''s rounding; ε' and the sum
    rounding = ((16.0 + 2.0 * a * a) * terms[0] + ((32.0 + 8.0 * max(abs(log_second - eps_a), 1.0)
                + b * b + 4.0 * abs(eps_a)) * terms[1] if terms[1] > 0.0 else 0.0)) * 2.0**-52
    if not math.isfinite(value + rounding):  # an overflow at μ near 1e154: δ <= 1 holds
        value, rounding = 1.0, 0.0
    if rounding <= 1e-10 * value:
        return min(max(value + rounding, 0.0), 1.0)
    # exp(-a'²/2) to (a'² + 4) ulps; erfcx to 1e-13 (scipy's worst: 9 ulps), its argument's
    # rounding moving it by at most that relative amount times |x d log erfcx/dx| <= 1
    half_phi = 0.5 * math.exp(-0.5 * a * a)  # φ(a')·√(π/2)
    tail = (a * a + 16.0) * 2.0**-52 + _ERFCX_RELATIVE
    first, first_error = ((half_phi * float(erfcx(-a / _SQRT2)), tail) if a < 0.0
                          else (terms[0], (16.0 + 2.0 * a * a) * 2.0**-52))
    second = half_phi * float(erfcx(-b / _SQRT2))
    best = max(
        min(value + rounding, first - second + first * first_error + second * tail, 1.0), 0.0
    )
    if first - second > 0.0 and first + second <= 1e3 * (first - second):
        return best
    # z > -a': the integrand is positive; below z = -40 the density is < 1e-348
    quadrature = integrate.quad(
        lambda z: (
            -math.expm1(-mu * max(a + z, 0.0)) * math.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)
        ),
        max(-a, -40.0),
        max(-a, 0.0) + 40,
        epsabs=0.0,
        epsrel=1e-12,
        limit=200,
    )[0]
    return min(best, max(quadrature * (1.0 + 1e-10), 0.0))


def gdp_mu(epsilon: float, delta: float) -> float:
    """The μ of the μ-GDP curve through (ε, δ): the exact privacy of a Gaussian composition.

    δ(ε; μ) = Φ(-ε/μ + μ/2) - e^ε Φ(-ε/μ - μ/2) is increasing in μ ([DRS22]_, Cor. 2.13); the root is found by
    bracketing. T Gaussian steps of noise multiplier z are exactly μ-GDP with μ = sqrt(T)/z, so
    sqrt(T)/``gdp_mu`` is the smallest z any sound accountant can certify, and a public quantity
    (a function of ε and δ only) that the default rules of noisy gradient
    descent use.

    Parameters
    ----------
    epsilon : float
        ε > 0.
    delta : float
        δ in (0, 1).

    Returns
    -------
    float
        μ.

    References
    ----------
    [DRS22]_ Corollary 2.13 (the (ε, δ) curve of μ-GDP).

    Examples
    --------
    >>> from dpconvex.privacy.accounting.gaussian import gdp_mu
    >>> round(gdp_mu(1.0, 1e-5), 4)
    0.2681
    """
    epsilon, delta = float(epsilon), float(delta)

    def gap(log_mu: float) -> float:
        return math.log(max(_gdp_delta(epsilon, math.exp(log_mu)), 1e-320)) - math.log(delta)

    lo, hi = -1.0, 1.0
    while gap(lo) > 0:
        lo -= 2.0
    while gap(hi) < 0:
        hi += 2.0
    return math.exp(brentq(gap, lo, hi, xtol=1e-14, rtol=1e-14))


class _Feasibility:
    """Answers "ε_acc(z) <= ε?", calling the accountant only when two rules cannot: a z whose
    exact Gaussian-DP ε exceeds the target is infeasible for every sound accountant (checked
    by :func:`calibrate_noise_multiplier`), and ε_acc decreases in z."""

    def __init__(self, epsilon: float, delta: float, steps: int, accounting: str):
        self.epsilon, self.delta, self.steps, self.accounting = epsilon, delta, steps, accounting
        self.values: dict[float, float] = {}  # every value the accountant returned
        self.lo, self.hi = 0.0, math.inf  # largest known infeasible, smallest known feasible

    def eps(self, z: float) -> float:
        if z not in self.values:
            self.values[z] = gaussian_composition_epsilon(
                z, self.steps, self.delta, self.accounting
            )
            if self.values[z] <= self.epsilon:
                self.hi = min(self.hi, z)
            else:
                self.lo = max(self.lo, z)
        return self.values[z]

    def exact_infeasible(self, z: float) -> bool:
        try:
            return gdp_epsilon(z, self.steps, self.delta) > self.epsilon * (1.0 + 1e-9)
        except (ValueError, OverflowError, ZeroDivisionError):  # extreme z: ask the accountant
            return False

    def __call__(self, z: float) -> bool:
        if z in self.values:
            return self.values[z] <= self.epsilon
        if z >= self.hi:
            return True
        if z <= self.lo or self.exact_infeasible(z):
            return False
        return self.eps(z) <= self.epsilon


def _bisect(feasible: Callable[[float], bool], hi: float, rtol: float, error: str,
            cap: float = 2.0**60, floor: float = 1e-12) -> float:
    """Smallest feasible x (to ``rtol``, the feasible end) for a monotone ``feasible``: double
    ``hi`` to a feasible x (PrivacyError ``error`` above ``cap``), halve, bisect.

    The path depends only on the answers of ``feasible``, so any oracle that gives the same
    answers returns the same x, bit for bit.
    """
    while not feasible(hi):
        hi *= 2.0
        if hi > cap:
            raise PrivacyError(error)
    lo = hi / 2.0
    while feasible(lo):
        hi, lo = lo, lo / 2.0
        if lo < floor:  # pragma: no cover - needs an absurd epsilon
            return hi
    while hi - lo > rtol * hi:
        mid = 0.5 * (lo + hi)
        if feasible(mid):
            hi = mid
        else:
            lo = mid
    return hi


def _bracket_threshold(oracle: _Feasibility, z_exact: float, rtol: float) -> None:
    """Narrow the accountant's feasibility threshold, just above the exact Gaussian-DP
    ``z_exact`` (PLD: within about 10⁻⁶), to a relative width << ``rtol`` by Illinois
    (regula falsi) steps on log ε_acc against z, so that the path of :func:`_bisect` needs
    the accountant only at its end. The exact curve stands in at the lower end."""
    a = z_exact * (1.0 - 1e-8)
    while not oracle.exact_infeasible(a):
        a = z_exact - 10.0 * (z_exact - a)
        if a < 0.5 * z_exact:  # pragma: no cover - the exact curve is not monotone here
            return
    step = 2e-6 * z_exact
    b = z_exact + step
    while oracle.eps(b) > oracle.epsilon:
        step *= 8.0
        b = z_exact + step
        if step > z_exact:  # the accountant is far from exact: leave it to the bisection
            return
    if oracle.values[oracle.hi] <= 0.0:  # ε_acc = 0 (PLD at ε near its grid): no log to step on
        return
    oracle.lo = max(oracle.lo, a)
    target = math.log(oracle.epsilon)
    lo, hi = oracle.lo, oracle.hi
    f_lo = math.log(gdp_epsilon(lo, oracle.steps, oracle.delta)) - target
    f_hi = math.log(oracle.values[hi]) - target
    side = 0
    for _ in range(30):
        width = hi - lo
        if width <= 1e-3 * rtol * hi:
            return
        z = hi - f_hi * width / (f_hi - f_lo) if f_hi != f_lo else lo + 0.5 * width
        z = min(max(z, lo + 1e-3 * width), hi - 1e-3 * width)
        f_z = math.log(oracle.eps(z)) - target
        if f_z <= 0:
            hi, f_hi = z, f_z
            if side == 1:
                f_lo *= 0.5
            side = 1
        else:
            lo, f_lo = z, f_z
            if side == -1:
                f_hi *= 0.5
            side = -1


@functools.lru_cache(maxsize=512)
def _calibrate(
    epsilon: float, delta: float, steps: int, accounting: str, rtol: float
) -> tuple[float, float]:
    what = (f"calibrate_noise_multiplier: no noise multiplier reaches epsilon={epsilon:g} at "
            f"delta={delta:g} with {steps} steps. Raise epsilon or delta, or use fewer steps.")
    # exact: sqrt(T)/μ(ε, δ), moved by 1e-9, 2e-9, 4e-9, ... until the curve,
    if accounting == "gdp":
        # rounded up, is at most δ at ε: (ε, δ) holds at z
        z = math.sqrt(steps) / gdp_mu(epsilon, delta)
        for step in (1e-9 * 2.0**k for k in range(40)):
            if _gdp_delta(epsilon, math.sqrt(steps) / (z := z * (1.0 + step))) <= delta:
                return float(z), epsilon
        raise PrivacyError(what)  # pragma: no cover - the curve decreases in z to 0
    hi = 1.0
    oracle = _Feasibility(epsilon, delta, steps, accounting)
    if accounting == "pld":
        hi = _calibrate(epsilon, delta, steps, "rdp", 1e-3)[0]
        _bracket_threshold(oracle, math.sqrt(steps) / gdp_mu(epsilon, delta), rtol)
    z = _bisect(oracle, hi, rtol, what)
    e = oracle.eps(z)
    if e > epsilon:  # pragma: no cover - an accountant whose epsilon is not monotone in z
        plain = _Feasibility(epsilon, delta, steps, accounting)
        z = _bisect(lambda x: plain.eps(x) <= epsilon, hi, rtol, what)
        e = plain.eps(z)
    return z, e


def calibrate_noise_multiplier(epsilon: float, delta: float, steps: int,
                               accounting: str = "rdp", rtol: float = CALIBRATION_RTOL
                               ) -> tuple[float, float]:
    """Smallest noise multiplier z (to ``rtol``) such that T Gaussian steps are (ε, δ)-DP.

    "gdp": z = sqrt(T)/:func:`gdp_mu` (ε, δ), the exact solution, raised by relative steps 1e-9, 2e-9,
    ... until the curve (rounded up) is at most δ at ε. "rdp", "pld": bisection on z with the
    ``dp_accounting`` accountant as the oracle, keeping the upper end feasible. The returned
    (z, ε achieved) satisfy ``gaussian_composition_epsilon(z, steps, delta, accounting) <= epsilon``.
    The PLD search starts from the RDP solution. The result is checked against the exact Gaussian-DP curve
    (:func:`gdp_epsilon`); an accountant reporting less than the exact ε raises instead of releasing.

    The search path is the plain bisection's; a z below the exact Gaussian-DP solution is
    infeasible without a call, and regula falsi steps bracket the PLD threshold first (the
    same z bit for bit). Cached per (ε, δ, T, accounting, rtol).

    PrivacyError if no multiplier up to 2^60 reaches the target, or the accountant
    disagrees with the exact curve.

    Parameters
    ----------
    epsilon : float
        ε > 0 to reach.
    delta : float
        δ in (0, 1].
    steps : int
        T, the number of Gaussian steps.
    accounting : {"rdp", "pld", "gdp"}, default="rdp"
        The accountant.
    rtol : float, default=CALIBRATION_RTOL
        The relative width to which z is found.

    Returns
    -------
    tuple of float
        (z, the ε the accountant reports at z), that ε at most ``epsilon``.

    Raises
    ------
    ParameterError
        A parameter out of its range, or a PLD grid too large.
    PrivacyError
        No multiplier up to 2^60 reaches the target, or the accountant reports less than the
        exact Gaussian-DP ε.

    References
    ----------
    [DRS22]_ Corollary 3.3 (the exact curve the result is checked against).

    Examples
    --------
    >>> from dpconvex.privacy.accounting.gaussian import calibrate_noise_multiplier
    >>> z, eps = calibrate_noise_multiplier(1.0, 1e-5, steps=10)
    >>> round(z, 2), eps <= 1.0
    (12.79, True)
    """
    owner = "calibrate_noise_multiplier"
    epsilon = check_float("epsilon", epsilon, owner)
    delta = check_float("delta", delta, owner, high=1.0)
    steps = check_int("steps", steps, owner)
    check_option("accounting", accounting, ACCOUNTING, owner)
    rtol = check_float("rtol", rtol, owner, high=1.0)
    hi, e_hi = _calibrate(epsilon, delta, steps, accounting, rtol)
    exact = e_hi if accounting == "gdp" else gdp_epsilon(hi, steps, delta)  # gdp: the curve itself
    if e_hi < exact * (1.0 - 1e-6) - 1e-12:
        raise PrivacyError(
            f"calibrate_noise_multiplier: the {accounting.upper()} accountant reports "
            f"epsilon={e_hi:.6g} "
            f"at noise multiplier {hi:.6g}, below the exact Gaussian-DP value {exact:.6g}; the "
            "accountant is not trusted here. Use accounting='gdp' (the exact curve)."
        )
    return hi, e_hi
