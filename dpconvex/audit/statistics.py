"""Statistics of a mechanism's outputs and the choice of the audited event.

An audit reduces every output to a scalar s and bounds the ratio of the probabilities of
{s > t} (or {s <= t}) on two adjacent data sets. Here: the default projection onto the
difference of the mean outputs, :func:`float_consistency_statistic` ([Mir12]_), and the
choice of threshold and direction on held-out runs ([NST+21]_); the white-box
``log_likelihood_ratio`` statistics live with the adapters.

References
----------
.. [NST+21] M. Nasr, S. Song, A. Thakurta, N. Papernot, N. Carlini. Adversary
   Instantiation: Lower Bounds for Differentially Private Machine Learning.
   IEEE S&P 2021 (worst-case adjacent pairs; thresholds chosen on held-out runs).
.. [Mir12] I. Mironov. On Significance of the Least Significant Bits for
   Differential Privacy. ACM CCS 2012.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from ..errors import ParameterError
from .bounds import DIRECTIONS, direction_counts, ratio_bound

if TYPE_CHECKING:
    from ..templates.base import ObjectiveTemplate

#: The template pair of an objective log-likelihood ratio (``logdet`` reads its Hessian).
TemplateT = TypeVar("TemplateT", bound="ObjectiveTemplate")

__all__ = ["DEFAULT_QUANTILES", "LLR_DECIMALS", "check_quantiles", "check_statistic",
           "float_consistency_statistic"]

#: Decimals kept by the log-likelihood-ratio statistics (drops floating-point residue).
LLR_DECIMALS = 9

#: Quantile levels of the pooled selection statistic tried as thresholds.
DEFAULT_QUANTILES = np.linspace(0.0, 1.0, 201)[1:-1]


def statistic_values(outputs: Any, statistic: Callable[[np.ndarray], float] | None,
                     caller: str, name: str) -> np.ndarray:
    """The statistic of every output (None: the outputs are already scalars), checked finite."""
    if statistic is None:
        try:
            s = np.asarray(outputs, dtype=float)
        except (TypeError, ValueError, OverflowError):  # refused after the handler: NumPy's
            s = None  # text can quote an entry
        if s is None:
            raise ParameterError(
                f"{caller}: with statistic=None, {name} must be an array of float64 numbers, one "
                "scalar per "
                "run; it could not be converted. Pass statistic=callable mapping one output to a "
                "float."
            )
        if s.ndim == 2 and s.shape[1] == 1:
            s = s[:, 0]
        if s.ndim != 1:
            raise ParameterError(
                f"{caller}: with statistic=None, {name} must hold one scalar per run (shape "
                "(n_runs,)); "
                f"got shape {s.shape}. Pass statistic=callable mapping one output to a float."
            )
    else:
        check_statistic(statistic, caller)
        if isinstance(outputs, (str, bytes)) or not isinstance(outputs, Iterable):
            raise ParameterError(f"{caller}: {name} must be a sequence of outputs, one per run. "
                                 f"Got {type(outputs).__name__} instead.")
        s = np.array([_as_float(statistic(np.asarray(o)), caller) for o in outputs], dtype=float)
    if s.size == 0:
        raise ParameterError(f"{caller}: {name} is empty; run the mechanism at least once.")
    if not np.all(np.isfinite(s)):
        raise ParameterError(f"{caller}: the statistic of some output in {name} is not finite.")
    return s


def check_statistic(statistic: Any, owner: str) -> None:
    """``statistic``: None or a callable (one output -> float)."""
    if statistic is not None and not callable(statistic):
        raise ParameterError(f"The 'statistic' parameter of {owner} must be None or a callable "
                             f"mapping one output to a float. Got {type(statistic).__name__}.")


def _as_float(value: Any, caller: str) -> float:
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):  # refused after the handler: float()'s
        pass  # text can quote the value
    raise ParameterError(f"{caller}: the statistic returned {type(value).__name__}, not a "
                         "float; it must map one output to one number.")


def float_array(value: Any, msg: str) -> np.ndarray:
    """``value`` as a float array, or :class:`ParameterError` with ``msg`` (text is refused)."""
    if isinstance(value, (str, bytes)):
        raise ParameterError(msg)
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError, OverflowError):  # refused after the handler: NumPy's text
        pass  # can quote an entry
    raise ParameterError(msg)


def check_quantiles(quantiles: Any, owner: str) -> np.ndarray:
    """Quantile levels tried as thresholds: None (the default grid) or floats in [0, 1]."""
    if quantiles is None:
        return DEFAULT_QUANTILES
    msg = (f"The 'quantiles' parameter of {owner} must be None or a non-empty 1-D sequence of "
           "floats in [0, 1].")
    q = float_array(quantiles, msg)
    if q.ndim != 1 or q.size == 0 or not np.all((q >= 0.0) & (q <= 1.0)):
        raise ParameterError(msg)
    return q


def statistic_name(statistic: Callable[[np.ndarray], float] | None) -> str:
    """A description of ``statistic`` for the audit result."""
    if statistic is None:
        return "given scalar outputs"
    return getattr(statistic, "__name__", repr(statistic))


def projection_direction(sel_D: np.ndarray, sel_Dp: np.ndarray) -> np.ndarray:
    """The default statistic's direction: m_D − m_D′ of the selection runs (e_0 if zero)."""
    v = sel_D.mean(axis=0) - sel_Dp.mean(axis=0)
    if not np.any(v):
        v = np.zeros(sel_D.shape[1])
        v[0] = 1.0
    return v


def counts_above(sorted_s: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """Number of values > t for each t (``sorted_s`` ascending)."""
    return sorted_s.size - np.searchsorted(sorted_s, thresholds, side="right")


def split(n: int, fraction: float) -> int:
    """Runs held out for the selection: floor(fraction · n), clamped to [1, n − 1]."""
    n_sel = int(math.floor(fraction * n))
    return min(max(n_sel, 1), n - 1)


def select_event(s_D: np.ndarray, s_Dp: np.ndarray, n_eval_D: int, n_eval_Dp: int,
                 alpha_tail: float, delta: float,
                 quantiles: np.ndarray) -> tuple[float, str, float]:
    """Threshold and direction maximizing the bound the evaluation runs would give.

    For each threshold on a grid of quantiles of the pooled selection statistic and each direction, the
    selection frequencies are scaled to the evaluation sizes and a Clopper–Pearson bound is computed: a
    regularized "empirical ratio" that prefers events frequent enough to be estimated. Its level is
    Bonferroni-corrected over the candidates (α_tail / number of candidates), which discounts rare events
    whose selection frequencies are most likely lucky (the winner's curse of taking a maximum over many noisy
    ratios); this only affects which event is chosen, never the validity of the bound.

    Returns
    -------
    threshold, direction, selection bound
    """
    pooled = np.concatenate([s_D, s_Dp])
    thr = np.unique(np.quantile(pooled, quantiles))
    sD, sDp = np.sort(s_D), np.sort(s_Dp)
    fD = counts_above(sD, thr) / sD.size
    fDp = counts_above(sDp, thr) / sDp.size
    alpha_select = alpha_tail / (len(DIRECTIONS) * thr.size)
    best = (-1.0, float(thr[0]), DIRECTIONS[0])
    for direction in DIRECTIONS:
        kn, nn, kd, nd = direction_counts(np.rint(fD * n_eval_D), n_eval_D,
                                          np.rint(fDp * n_eval_Dp), n_eval_Dp, direction)
        eps, _, _ = ratio_bound(kn, nn, kd, nd, alpha_select, delta)
        i = int(np.argmax(eps))
        if eps[i] > best[0]:
            best = (float(eps[i]), float(thr[i]), direction)
    return best[1], best[2], best[0]


def float_consistency_statistic(center: Any) -> Callable[[np.ndarray], float]:
    """Mironov's floating-point test: does the output look like fl(center + noise)?

    Returns the statistic o ↦ 1.0 if the round trip (o − c) + c differs from o in some
    coordinate, else 0.0, with c = ``center`` (e.g. the non-private minimizer on D′): a
    release fl(c + b) passes it, one around another center often does not ([Mir12]_'s attack
    on floating-point additive noise; docs/privacy/accuracy_randomness.md#privacy-accuracy-randomness).
    The audit's guarantee does not depend on the test being exact.

    Parameters
    ----------
    center : array-like
        The center c the adversary tests against.

    Returns
    -------
    callable
        One output -> 0.0 or 1.0.

    References
    ----------
    [Mir12]_ Sections 3-4 (the attack), Section 5 (the snapping mechanism, a fix).

    Examples
    --------
    >>> from dpconvex.audit import float_consistency_statistic
    >>> center = np.array([0.1, 0.2])
    >>> s = float_consistency_statistic(center)
    >>> s(center + np.array([0.3, 0.7]))  # fl(center + noise) passes the round trip
    0.0
    """
    msg = ("The 'center' parameter of float_consistency_statistic must be an array of finite "
           "floats (the center c the adversary tests against).")
    c = float_array(center, msg).ravel()
    if c.size == 0 or not np.all(np.isfinite(c)):
        raise ParameterError(msg)

    def float_consistency(o: np.ndarray) -> float:
        o = np.asarray(o, dtype=float).ravel()
        if o.size != c.size and c.size != 1:
            raise ParameterError(
                f"float_consistency_statistic: an output of {o.size} number(s) "
                f"against a center of {c.size}; give a center of the outputs' shape."
            )
        return float(np.any((o - c) + c != o))

    return float_consistency


def pure_noise_term(beta: float) -> Callable[[np.ndarray, np.ndarray], float]:
    """β(‖b_D′‖ − ‖b_D‖): the noise part of ln f_D/f_D′ for norm-Gamma noise, rate β."""
    return lambda bD, bDp: beta * float(np.linalg.norm(bDp) - np.linalg.norm(bD))


def gaussian_noise_term(sigma: float) -> Callable[[np.ndarray, np.ndarray], float]:
    """(‖b_D′‖² − ‖b_D‖²)/(2σ²): the noise part of ln f_D/f_D′ for N(0, σ² I) noise."""
    two_var = 2.0 * float(sigma) ** 2
    return lambda bD, bDp: float(bDp @ bDp - bD @ bD) / two_var


def objective_llr(tD: TemplateT, dD: float, tDp: TemplateT, dDp: float,
                  noise_term: Callable[[np.ndarray, np.ndarray], float],
                  logdet: Callable[[TemplateT, np.ndarray, float], float]
                  ) -> Callable[[np.ndarray], float]:
    """ln f_D(θ)/f_D′(θ) of objective perturbation by the change of variables ([CMS]_ Section 3.2).

    b_X(θ) = −n ∇J_X(θ) (with the extra modulus Δ of X's calibration) is the noise
    that makes θ optimal on X; the statistic is ``noise_term(b_D, b_D′)`` plus
    ln det ∇²J_D(θ) − ln det ∇²J_D′(θ) (``logdet(template, θ, Δ)``), rounded to
    :data:`LLR_DECIMALS` decimals.
    """
    def llr_objective(theta: np.ndarray) -> float:
        th = np.asarray(theta, dtype=float).ravel()
        bD = -tD.n * np.ravel(tD.objective(th, None, dD)[1])
        bDp = -tDp.n * np.ravel(tDp.objective(th, None, dDp)[1])
        return round(
            noise_term(bD, bDp) + float(logdet(tD, th, dD) - logdet(tDp, th, dDp)), LLR_DECIMALS
        )

    return llr_objective
