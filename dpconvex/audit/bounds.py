"""Clopper–Pearson bounds on a binomial proportion and the lower bound on ε they give.

With p_lo, q_hi the one-sided Clopper–Pearson bounds ([CP34]_) on an event's probability under D and D′, ε >=
ε_lb = max(0, ln((p_lo − δ) / q_hi)) fails with probability at most α = 1 − confidence: α/2 per side for one
event fixed in advance, α/4 per tail when all four directions are tried on the same runs. Derivation and
budget split: docs/privacy/auditing.md#privacy-auditing.

References
----------
.. [CP34] C. J. Clopper, E. S. Pearson. The Use of Confidence or Fiducial
   Limits Illustrated in the Case of the Binomial. Biometrika 26(4), 1934.
.. [JUO20] M. Jagielski, J. Ullman, A. Oprea. Auditing Differentially Private
   Machine Learning: How Private is Private SGD? NeurIPS 2020.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from scipy.stats import beta as beta_dist

from .._validation import MAX_INT, _short_repr, check_float, check_int
from ..errors import ParameterError

__all__ = ["DIRECTIONS", "clopper_pearson_lower", "clopper_pearson_upper", "epsilon_from_counts"]

#: The four events/directions: event {s > t} ("above") or {s <= t} ("below"),
#: and the data set whose probability is the numerator of the ratio.
DIRECTIONS: tuple[str, ...] = ("above:D", "above:D'", "below:D", "below:D'")


def _counts(k: Any, n: Any, alpha: Any, caller: str) -> tuple[np.ndarray, np.ndarray, float]:
    """Validate counts k <= n (integers >= 0, arrays broadcast) and alpha in (0, 1)."""
    alpha = check_float("alpha", alpha, caller, high=1.0)
    out = []
    for name, v in (("k", k), ("n", n)):
        msg = (f"The '{name}' parameter of {caller} must be a count: an int (or array of ints) "
               f"in [0, {MAX_INT:,}]. Got {_short_repr(v)} instead.")
        try:
            raw = np.asarray(v)
            if raw.dtype.kind not in "iuf" and not (raw.dtype.kind == "O" and raw.size and all(
                    isinstance(t, numbers.Real) and not isinstance(t, bool)
                    for t in raw.ravel().tolist())):
                raise ParameterError(msg)
            a = np.asarray(raw, dtype=float)
        except (TypeError, ValueError, OverflowError):  # refused after the handler: NumPy's
            a = None  # text can quote a count
        if a is None:
            raise ParameterError(msg)
        if a.size == 0 or not np.all(np.isfinite(a)) or np.any(a < 0) or np.any(a > MAX_INT) \
                or np.any(a != np.round(a)):
            raise ParameterError(msg)
        out.append(a)
    try:
        kk, nn = np.broadcast_arrays(*out)
    except ValueError:  # refused after the handler, by the shapes alone
        kk = None
    if kk is None:
        raise ParameterError(
            f"{caller}: k and n have shapes {out[0].shape} and {out[1].shape} "
            "that do not broadcast together; pass k and n of one shape."
        )
    if np.any(kk > nn):
        raise ParameterError(f"{caller}: a count k exceeds its number of trials n; pass k <= n.")
    return out[0], out[1], alpha



def _cp_lower(k: Any, n: Any, alpha: float) -> np.ndarray:
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    safe_k = np.maximum(k, 1.0)
    lo = beta_dist.ppf(alpha, safe_k, n - k + 1.0)
    return np.where(k > 0, lo, 0.0)


def _cp_upper(k: Any, n: Any, alpha: float) -> np.ndarray:
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    safe_rest = np.maximum(n - k, 1.0)
    hi = beta_dist.ppf(1.0 - alpha, k + 1.0, safe_rest)
    return np.where(k < n, hi, 1.0)


def clopper_pearson_lower(k: Any, n: Any, alpha: float) -> np.ndarray:
    """One-sided Clopper–Pearson lower bound ([CP34]_) on a binomial proportion.

    Returns p_lo with P[p < p_lo] <= ``alpha`` for every true p:
    ``Beta⁻¹(alpha; k, n − k + 1)``, and 0 when k = 0. Vectorized over k and n
    (integer counts 0 <= k <= n; ``alpha`` in (0, 1); else :class:`ParameterError`).

    Examples
    --------
    >>> from dpconvex.audit import clopper_pearson_lower
    >>> float(clopper_pearson_lower(5, 10, 0.025).round(3))  # 5 of 10 runs in the event
    0.187
    >>> clopper_pearson_lower([0, 10], 10, 0.05).round(3).tolist()
    [0.0, 0.741]
    """
    k, n, alpha = _counts(k, n, alpha, "clopper_pearson_lower")
    return _cp_lower(k, n, alpha)


def clopper_pearson_upper(k: Any, n: Any, alpha: float) -> np.ndarray:
    """One-sided Clopper–Pearson upper bound ([CP34]_) on a binomial proportion.

    Returns p_hi with P[p > p_hi] <= ``alpha`` for every true p: ``Beta⁻¹(1 − alpha; k + 1, n − k)``, and 1
    when k = n. Vectorized (integer counts 0 <= k <= n; ``alpha`` in (0, 1); else :class:`ParameterError`).

    Examples
    --------
    >>> from dpconvex.audit import clopper_pearson_upper
    >>> float(clopper_pearson_upper(5, 10, 0.025).round(3))  # 5 of 10 runs in the event
    0.813
    >>> clopper_pearson_upper([0, 10], 10, 0.05).round(3).tolist()
    [0.259, 1.0]
    """
    k, n, alpha = _counts(k, n, alpha, "clopper_pearson_upper")
    return _cp_upper(k, n, alpha)


def ratio_bound(k_num: Any, n_num: Any, k_den: Any, n_den: Any, alpha_tail: float,
                delta: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """max(0, ln((p_lo − δ)/q_hi)) with one-sided CP bounds at ``alpha_tail`` each.

    Returns the bound, p_lo and q_hi (vectorized over the counts).
    """
    p_lo = _cp_lower(k_num, n_num, alpha_tail)
    q_hi = _cp_upper(k_den, n_den, alpha_tail)
    num = p_lo - delta
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = np.where(num > 0, np.log(np.maximum(num, 1e-300) / q_hi), 0.0)
    return np.maximum(eps, 0.0), p_lo, q_hi


def direction_counts(above_D: Any, n_D: int, above_Dp: Any, n_Dp: int,
                     direction: str) -> tuple[Any, int, Any, int]:
    """(k_num, n_num, k_den, n_den) of one direction from the counts of {s > t}."""
    ev, num = direction.split(":")
    k_D = above_D if ev == "above" else n_D - above_D
    k_Dp = above_Dp if ev == "above" else n_Dp - above_Dp
    if num == "D":
        return k_D, n_D, k_Dp, n_Dp
    return k_Dp, n_Dp, k_D, n_D


def bound_at(s_D: np.ndarray, s_Dp: np.ndarray, threshold: float, direction: str,
             alpha_tail: float, delta: float) -> tuple[float, int, int, float, float]:
    """The bound of one fixed event on the statistics: (ε_lb, k_D, k_D′, p_lo, q_hi)."""
    aD = int(np.sum(s_D > threshold))
    aDp = int(np.sum(s_Dp > threshold))
    kn, nn, kd, nd = direction_counts(aD, s_D.size, aDp, s_Dp.size, direction)
    eps, p_lo, q_hi = ratio_bound(kn, nn, kd, nd, alpha_tail, delta)
    kD, kDp = (kn, kd) if direction.endswith(":D") else (kd, kn)
    return float(eps), kD, kDp, float(p_lo), float(q_hi)


def check_confidence(confidence: float, owner: str) -> float:
    """``confidence`` in (0, 1)."""
    return check_float("confidence", confidence, owner, high=1.0)


def check_delta(delta: float, owner: str) -> float:
    """``delta`` in [0, 1)."""
    return check_float("delta", delta, owner, low_inclusive=True, high=1.0)


def epsilon_from_counts(k_D: int, n_D: int, k_Dprime: int, n_Dprime: int, *,
                        confidence: float = 0.95, delta: float = 0.0) -> float:
    """Lower bound on ε from the counts of one event fixed in advance.

    ``k_D`` of ``n_D`` runs on D and ``k_Dprime`` of ``n_Dprime`` on D′ fall in E, chosen
    (with its direction, D in the numerator) without these runs. Returns
    max(0, ln((p_lo − δ)/q_hi)), Clopper–Pearson at α/2 each ([JUO20]_ Section 3, [CP34]_):
    it exceeds the true ε with probability at most α = 1 − ``confidence``.

    Parameters
    ----------
    k_D, n_D : int
        Runs on D in the event, and runs on D.
    k_Dprime, n_Dprime : int
        The same on D′.
    confidence : float, default=0.95
    delta : float, default=0.0
        δ of an (ε, δ)-DP claim.

    Examples
    --------
    >>> from dpconvex.audit import epsilon_from_counts
    >>> round(epsilon_from_counts(900, 1000, 100, 1000), 2)
    1.9
    >>> epsilon_from_counts(500, 1000, 480, 1000)  # no evidence against epsilon = 0
    0.0
    """
    owner = "epsilon_from_counts"
    alpha = 1.0 - check_confidence(confidence, owner)
    delta = check_delta(delta, owner)
    for name, k, n in (("k_D", k_D, n_D), ("k_Dprime", k_Dprime, n_Dprime)):
        check_int(name, k, owner, low=0)
        check_int(name.replace("k_", "n_"), n, owner)
        if k > n:
            raise ParameterError(
                f"epsilon_from_counts: {name} = {k} exceeds the number of runs {n}; "
                "pass counts no larger than their numbers of runs."
            )
    eps, _, _ = ratio_bound(k_D, n_D, k_Dprime, n_Dprime, alpha / 2.0, delta)
    return float(eps)
