"""Empirical privacy auditing: black-box lower bounds on ε from a mechanism's outputs.

A mechanism M is ε-differentially private (or (ε, δ)-DP) if for every pair of
adjacent data sets D, D′ and every event E,

    P[M(D) ∈ E] <= e^ε P[M(D′) ∈ E] + δ.

Run M many times on a fixed adjacent pair, estimate p = P[E | D] from below and
q = P[E | D′] from above with Clopper–Pearson intervals, and any event whose
bounds give ln((p_lo − δ)/q_hi) > ε is a statistically significant violation
of the claimed guarantee ([JUO20]_, [NST+21]_). The bound is a *lower* bound:
a mechanism can pass every audit and still not be private (the pair or the
event may be weak), while a bound above the claimed ε is a false alarm with
probability at most 1 − confidence.

The module provides

* :func:`epsilon_lower_bound`: the bound from two batches of outputs and a
  scalar statistic (event E = {statistic > threshold} or its complement, in
  either order of D and D′);
* :func:`audit`: runs ``mechanism(data, rng)`` ``n_runs`` times on each data
  set, chooses the statistic, threshold and direction on a *selection* part of
  the runs and computes the bound on the disjoint *evaluation* part (so the
  choice cannot inflate the bound);
* adversarial adjacent pairs: :func:`linear_erm_pair`,
  :func:`large_margin_pair`, :func:`exponential_mechanism_pair`;
* fast mechanism wrappers that reuse one template per data set and only
  redraw the noise, with a batched ``sample(data, n_runs, rng)``:
  :class:`LinearERMMechanism` (output and objective perturbation),
  :class:`LargeMarginMechanism`, :class:`NoisyGDMechanism`,
  :class:`ExponentialMechanism`, and :class:`EstimatorMechanism` (any
  dpconvex estimator, end to end, one ``fit`` per run);
* statistics: the default projection, the wrappers' white-box
  ``log_likelihood_ratio`` (most powerful events for the real-valued
  mechanism), and :func:`float_consistency_statistic`, a test of the low-order
  bits of additive floating-point noise ([Mir12]_).

Derivation of the bound (``docs/privacy.md`` §7). Let k_D of the n_D
evaluation runs on D and k_D′ of the n_D′ runs on D′ fall in E. The
one-sided Clopper–Pearson bounds ([CP34]_)

    p_lo = Beta⁻¹(α₁; k_D, n_D − k_D + 1)            (0 if k_D = 0),
    q_hi = Beta⁻¹(1 − α₂; k_D′ + 1, n_D′ − k_D′)      (1 if k_D′ = n_D′)

satisfy P[p < p_lo] <= α₁ and P[q > q_hi] <= α₂ for every p, q. By the union
bound both hold with probability >= 1 − α₁ − α₂; on that event, (ε, δ)-DP
gives p_lo − δ <= p − δ <= e^ε q <= e^ε q_hi, hence

    ε >= ε_lb = max(0, ln((p_lo − δ) / q_hi)).

So P[ε_lb > ε] <= α₁ + α₂ = α = 1 − confidence. Budget split: when E and its
direction (which data set is the numerator) are fixed before the evaluation
runs are seen, α₁ = α₂ = α/2. When all four directions ({s > t} or {s <= t},
D over D′ or D′ over D) are tried on the *same* runs and the maximum is
reported, each of P[s > t | D] and P[s > t | D′] gets a two-sided interval at
level α/2 (α/4 per tail); the four bounds are functions of these two intervals
(the complement's bounds are 1 minus the other tail), so all four hold
simultaneously with probability >= 1 − α. A threshold chosen by looking at
the evaluation runs voids the guarantee; :func:`audit` (and
:func:`epsilon_lower_bound` with ``threshold=None``) hold out a selection part.

References
----------
.. [JUO20] M. Jagielski, J. Ullman, A. Oprea. Auditing Differentially Private
   Machine Learning: How Private is Private SGD? NeurIPS 2020 (Clopper–Pearson
   lower bounds on ε from membership tests on adjacent data sets).
.. [NST+21] M. Nasr, S. Song, A. Thakurta, N. Papernot, N. Carlini. Adversary
   Instantiation: Lower Bounds for Differentially Private Machine Learning.
   IEEE S&P 2021 (worst-case adjacent pairs; thresholds chosen on held-out runs).
.. [CP34] C. J. Clopper, E. S. Pearson. The Use of Confidence or Fiducial
   Limits Illustrated in the Case of the Binomial. Biometrika 26(4), 1934.
.. [CMS] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially Private
   Empirical Risk Minimization. JMLR 12 (2011), Alg. 1 and 2.
.. [MT07] F. McSherry, K. Talwar. Mechanism Design via Differential Privacy.
   FOCS 2007.
.. [Mir12] I. Mironov. On Significance of the Least Significant Bits for
   Differential Privacy. ACM CCS 2012.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np
from scipy.stats import beta as beta_dist

from ._random import RandomStateLike, check_random_state
from ._validation import check_float, check_int, check_option, clip_rows
from .errors import ParameterError
from .losses import HuberHinge, Loss, get_loss
from .mechanisms import coordinate_scale, require_accurate
from .noise import exponential_mechanism, norm_gamma, snap
from .solvers._threads import single_threaded
from .templates.large_margin import LargeMarginGaussianTemplate
from .templates.linear_erm import LinearERMTemplate
from .verify import Calibration, verify

__all__ = [
    "DIRECTIONS",
    "AuditResult",
    "BatchMechanism",
    "EstimatorMechanism",
    "ExponentialMechanism",
    "LargeMarginMechanism",
    "LinearERMMechanism",
    "NoisyGDMechanism",
    "audit",
    "clopper_pearson_lower",
    "clopper_pearson_upper",
    "epsilon_from_counts",
    "epsilon_lower_bound",
    "exponential_mechanism_pair",
    "float_consistency_statistic",
    "large_margin_pair",
    "linear_erm_pair",
]

#: The four events/directions: event {s > t} ("above") or {s <= t} ("below"),
#: and the data set whose probability is the numerator of the ratio.
DIRECTIONS: tuple[str, ...] = ("above:D", "above:D'", "below:D", "below:D'")

#: Decimals kept by the log-likelihood-ratio statistics (drops floating-point residue).
LLR_DECIMALS = 9

#: Quantile levels of the pooled selection statistic tried as thresholds.
DEFAULT_QUANTILES = np.linspace(0.0, 1.0, 201)[1:-1]


# --------------------------------------------------------------------------- bounds
def clopper_pearson_lower(k: Any, n: Any, alpha: float) -> np.ndarray:
    """One-sided Clopper–Pearson lower bound ([CP34]_) on a binomial proportion.

    Returns p_lo with P[p < p_lo] <= ``alpha`` for every true p:
    ``Beta⁻¹(alpha; k, n − k + 1)``, and 0 when k = 0. Vectorized over k and n.
    """
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    safe_k = np.maximum(k, 1.0)
    lo = beta_dist.ppf(alpha, safe_k, n - k + 1.0)
    return np.where(k > 0, lo, 0.0)


def clopper_pearson_upper(k: Any, n: Any, alpha: float) -> np.ndarray:
    """One-sided Clopper–Pearson upper bound ([CP34]_) on a binomial proportion.

    Returns p_hi with P[p > p_hi] <= ``alpha`` for every true p:
    ``Beta⁻¹(1 − alpha; k + 1, n − k)``, and 1 when k = n. Vectorized.
    """
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    safe_rest = np.maximum(n - k, 1.0)
    hi = beta_dist.ppf(1.0 - alpha, k + 1.0, safe_rest)
    return np.where(k < n, hi, 1.0)


def _ratio_bound(k_num: Any, n_num: Any, k_den: Any, n_den: Any, alpha_tail: float,
                 delta: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """max(0, ln((p_lo − δ)/q_hi)) with one-sided CP bounds at ``alpha_tail`` each."""
    p_lo = clopper_pearson_lower(k_num, n_num, alpha_tail)
    q_hi = clopper_pearson_upper(k_den, n_den, alpha_tail)
    num = p_lo - delta
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = np.where(num > 0, np.log(np.maximum(num, 1e-300) / q_hi), 0.0)
    return np.maximum(eps, 0.0), p_lo, q_hi


def _check_confidence(confidence: float, owner: str) -> float:
    return check_float("confidence", confidence, owner, high=1.0)


def _check_delta(delta: float, owner: str) -> float:
    return check_float("delta", delta, owner, low_inclusive=True, high=1.0)


def epsilon_from_counts(k_D: int, n_D: int, k_Dprime: int, n_Dprime: int, *,
                        confidence: float = 0.95, delta: float = 0.0) -> float:
    """Lower bound on ε from the counts of one event fixed in advance.

    ``k_D`` of ``n_D`` runs on D and ``k_Dprime`` of ``n_Dprime`` runs on D′
    fall in the event E, which (with its direction: D in the numerator) must
    have been chosen without looking at these runs. Returns
    max(0, ln((p_lo − δ)/q_hi)) with one-sided Clopper–Pearson bounds at
    α/2 each, α = 1 − ``confidence`` (union bound, see the module docstring);
    the result exceeds the true ε with probability at most α.
    """
    owner = "epsilon_from_counts"
    alpha = 1.0 - _check_confidence(confidence, owner)
    delta = _check_delta(delta, owner)
    for name, k, n in (("k_D", k_D, n_D), ("k_Dprime", k_Dprime, n_Dprime)):
        check_int(name, k, owner, low=0)
        check_int(name.replace("k_", "n_"), n, owner)
        if k > n:
            raise ParameterError(f"{owner}: {name} = {k} exceeds the number of runs {n}.")
    eps, _, _ = _ratio_bound(k_D, n_D, k_Dprime, n_Dprime, alpha / 2.0, delta)
    return float(eps)


@dataclass(frozen=True)
class AuditResult:
    """Outcome of an audit: a lower bound on ε at a stated confidence.

    Attributes
    ----------
    epsilon_lower_bound : float
        ε_lb >= 0. With probability at least ``confidence`` (over the
        evaluation runs) the mechanism's true ε is at least this; a value above
        the claimed ε flags a privacy bug.
    counts : tuple of int
        (k_D, k_D′): evaluation runs on D and on D′ whose output fell in the event.
    n_eval : tuple of int
        (n_D, n_D′): evaluation runs on each data set.
    threshold : float
        t of the event.
    direction : str
        One of :data:`DIRECTIONS`: "above" is E = {s > t}, "below" is
        E = {s <= t}; after the colon, the data set in the numerator.
    confidence : float
        1 − α.
    p_lower : float
        Clopper–Pearson lower bound on P[E | numerator data set].
    q_upper : float
        Clopper–Pearson upper bound on P[E | denominator data set].
    delta : float
        δ subtracted from p_lower ((ε, δ)-DP mechanisms), 0 for pure ε-DP.
    n_selection : tuple of int
        Runs on D and D′ used to choose the statistic, threshold and direction
        (0 when the caller fixed them).
    alpha_per_bound : float
        The share of α spent on each one-sided Clopper–Pearson bound.
    statistic : str
        Description of the statistic.
    """

    epsilon_lower_bound: float
    counts: tuple[int, int]
    n_eval: tuple[int, int]
    threshold: float
    direction: str
    confidence: float
    p_lower: float = math.nan
    q_upper: float = math.nan
    delta: float = 0.0
    n_selection: tuple[int, int] = (0, 0)
    alpha_per_bound: float = math.nan
    statistic: str = ""

    @property
    def event(self) -> str:
        """The event and the ratio, in words."""
        ev, num = self.direction.split(":")
        den = "D'" if num == "D" else "D"
        op = ">" if ev == "above" else "<="
        return f"P[s {op} {self.threshold:.6g} | {num}] / P[s {op} {self.threshold:.6g} | {den}]"

    def __float__(self) -> float:
        return float(self.epsilon_lower_bound)


def _statistic_values(outputs: Any, statistic: Callable[[np.ndarray], float] | None,
                      owner: str, name: str) -> np.ndarray:
    if statistic is None:
        s = np.asarray(outputs, dtype=float)
        if s.ndim == 2 and s.shape[1] == 1:
            s = s[:, 0]
        if s.ndim != 1:
            raise ParameterError(
                f"{owner}: with statistic=None, {name} must hold one scalar per run (shape "
                f"(n_runs,)); got shape {s.shape}. Pass statistic=callable mapping one output "
                "to a float."
            )
    else:
        s = np.array([float(statistic(np.asarray(o))) for o in outputs], dtype=float)
    if s.size == 0:
        raise ParameterError(f"{owner}: {name} is empty; run the mechanism at least once.")
    if not np.all(np.isfinite(s)):
        raise ParameterError(f"{owner}: the statistic of some output in {name} is not finite.")
    return s


def _counts_above(sorted_s: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """Number of values > t for each t (``sorted_s`` ascending)."""
    return sorted_s.size - np.searchsorted(sorted_s, thresholds, side="right")


def _direction_counts(above_D: np.ndarray, n_D: int, above_Dp: np.ndarray, n_Dp: int,
                      direction: str) -> tuple[Any, int, Any, int]:
    """(k_num, n_num, k_den, n_den) of one direction from the counts of {s > t}."""
    ev, num = direction.split(":")
    k_D = above_D if ev == "above" else n_D - above_D
    k_Dp = above_Dp if ev == "above" else n_Dp - above_Dp
    if num == "D":
        return k_D, n_D, k_Dp, n_Dp
    return k_Dp, n_Dp, k_D, n_D


def _select_event(s_D: np.ndarray, s_Dp: np.ndarray, n_eval_D: int, n_eval_Dp: int,
                  alpha_tail: float, delta: float,
                  quantiles: np.ndarray) -> tuple[float, str, float]:
    """Threshold and direction maximizing the bound the evaluation runs would give.

    For each threshold on a grid of quantiles of the pooled selection statistic
    and each direction, the selection frequencies are scaled to the evaluation
    sizes and a Clopper–Pearson bound is computed: a regularized "empirical
    ratio" that prefers events frequent enough to be estimated. Its level is
    Bonferroni-corrected over the candidates (α_tail / number of candidates),
    which discounts rare events whose selection frequencies are most likely
    lucky (the winner's curse of taking a maximum over many noisy ratios);
    this only affects which event is chosen, never the validity of the bound.
    """
    pooled = np.concatenate([s_D, s_Dp])
    thr = np.unique(np.quantile(pooled, quantiles))
    sD, sDp = np.sort(s_D), np.sort(s_Dp)
    fD = _counts_above(sD, thr) / sD.size
    fDp = _counts_above(sDp, thr) / sDp.size
    alpha_select = alpha_tail / (len(DIRECTIONS) * thr.size)
    best = (-1.0, float(thr[0]), DIRECTIONS[0])
    for direction in DIRECTIONS:
        kn, nn, kd, nd = _direction_counts(np.rint(fD * n_eval_D), n_eval_D,
                                           np.rint(fDp * n_eval_Dp), n_eval_Dp, direction)
        eps, _, _ = _ratio_bound(kn, nn, kd, nd, alpha_select, delta)
        i = int(np.argmax(eps))
        if eps[i] > best[0]:
            best = (float(eps[i]), float(thr[i]), direction)
    return best[1], best[2], best[0]


def _bound_at(s_D: np.ndarray, s_Dp: np.ndarray, threshold: float, direction: str,
              alpha_tail: float, delta: float) -> tuple[float, int, int, float, float]:
    aD = int(np.sum(s_D > threshold))
    aDp = int(np.sum(s_Dp > threshold))
    kn, nn, kd, nd = _direction_counts(aD, s_D.size, aDp, s_Dp.size, direction)
    eps, p_lo, q_hi = _ratio_bound(kn, nn, kd, nd, alpha_tail, delta)
    ev = direction.split(":")[0]
    kD = aD if ev == "above" else s_D.size - aD
    kDp = aDp if ev == "above" else s_Dp.size - aDp
    return float(eps), kD, kDp, float(p_lo), float(q_hi)


def _split(n: int, fraction: float) -> int:
    n_sel = int(math.floor(fraction * n))
    return min(max(n_sel, 1), n - 1)


def epsilon_lower_bound(
    outputs_D: Any,
    outputs_Dprime: Any,
    *,
    statistic: Callable[[np.ndarray], float] | None,
    threshold: float | None = None,
    direction: str | None = None,
    confidence: float = 0.95,
    delta: float = 0.0,
    selection_fraction: float = 0.5,
    quantiles: Sequence[float] | None = None,
) -> AuditResult:
    """Clopper–Pearson lower bound on ε from outputs on two adjacent data sets.

    The event is E = {statistic(o) > threshold} or its complement, and the
    bound is ln(p_lo/q_hi) with p_lo a lower bound on P[E | one data set] and
    q_hi an upper bound on P[E | the other] ([JUO20]_, [NST+21]_, [CP34]_);
    it is clamped at 0.

    .. warning:: The threshold and direction must not be chosen by looking at
       ``outputs_D``/``outputs_Dprime``: a threshold tuned on the same runs
       inflates the bound and voids its confidence. Pass a ``threshold`` chosen
       on *held-out* runs (or on theory), or leave ``threshold=None``, in which
       case this function holds out the first ``selection_fraction`` of each
       batch to choose it; :func:`audit` does the split for you.

    Parameters
    ----------
    outputs_D, outputs_Dprime : sequence of arrays
        Independent outputs of the mechanism on D and on D′, in run order.
    statistic : callable or None
        Maps one output to a float. None: the outputs are already scalars.
    threshold : float or None
        t. None: choose t and the direction on a held-out selection part (the
        evaluation uses only the rest).
    direction : str or None
        One of :data:`DIRECTIONS`, fixed in advance. None with a given
        threshold: the maximum over all four directions is reported, with the
        confidence budget split so that it stays valid (α/4 per one-sided
        bound instead of α/2).
    confidence : float, default=0.95
        1 − α: the probability that the returned bound does not exceed the
        true ε (union bound over the Clopper–Pearson bounds used).
    delta : float, default=0.0
        δ of an (ε, δ)-DP claim: the bound becomes ln((p_lo − δ)/q_hi).
    selection_fraction : float, default=0.5
        Share of each batch held out for the selection when ``threshold=None``.
    quantiles : sequence of float or None
        Quantile levels of the pooled selection statistic tried as thresholds
        (default: 0.005, 0.01, ..., 0.995).

    Returns
    -------
    AuditResult
        ``float(result)`` is the bound.

    References
    ----------
    [JUO20]_ §3 (Clopper–Pearson bounds on ε), [NST+21]_, [CP34]_.
    """
    owner = "epsilon_lower_bound"
    alpha = 1.0 - _check_confidence(confidence, owner)
    delta = _check_delta(delta, owner)
    if direction is not None:
        check_option("direction", direction, DIRECTIONS, owner)
    s_D = _statistic_values(outputs_D, statistic, owner, "outputs_D")
    s_Dp = _statistic_values(outputs_Dprime, statistic, owner, "outputs_Dprime")
    desc = "given scalar outputs" if statistic is None else getattr(
        statistic, "__name__", repr(statistic))
    if threshold is None:
        fraction = check_float("selection_fraction", selection_fraction, owner, high=1.0)
        if s_D.size < 2 or s_Dp.size < 2:
            raise ParameterError(
                f"{owner}: threshold=None needs at least 2 runs per data set (one to select "
                "the event, one to evaluate it).")
        kD, kDp = _split(s_D.size, fraction), _split(s_Dp.size, fraction)
        q = DEFAULT_QUANTILES if quantiles is None else np.asarray(quantiles, dtype=float)
        sel_D, ev_D = s_D[:kD], s_D[kD:]
        sel_Dp, ev_Dp = s_Dp[:kDp], s_Dp[kDp:]
        threshold, chosen, _ = _select_event(sel_D, sel_Dp, ev_D.size, ev_Dp.size,
                                             alpha / 2.0, delta, q)
        if direction is None:
            direction = chosen
        alpha_tail = alpha / 2.0
        eps, cD, cDp, p_lo, q_hi = _bound_at(ev_D, ev_Dp, threshold, direction, alpha_tail,
                                             delta)
        return AuditResult(eps, (cD, cDp), (ev_D.size, ev_Dp.size), float(threshold),
                           direction, 1.0 - alpha, p_lo, q_hi, delta, (kD, kDp), alpha_tail,
                           desc)
    threshold = float(threshold)
    if not math.isfinite(threshold):
        raise ParameterError(f"{owner}: threshold must be a finite float or None. Got "
                             f"{threshold!r}.")
    if direction is not None:
        alpha_tail = alpha / 2.0
        eps, cD, cDp, p_lo, q_hi = _bound_at(s_D, s_Dp, threshold, direction, alpha_tail, delta)
        return AuditResult(eps, (cD, cDp), (s_D.size, s_Dp.size), threshold, direction,
                           1.0 - alpha, p_lo, q_hi, delta, (0, 0), alpha_tail, desc)
    alpha_tail = alpha / 4.0
    best: tuple[float, int, int, float, float, str] | None = None
    for d in DIRECTIONS:
        eps, cD, cDp, p_lo, q_hi = _bound_at(s_D, s_Dp, threshold, d, alpha_tail, delta)
        if best is None or eps > best[0]:
            best = (eps, cD, cDp, p_lo, q_hi, d)
    assert best is not None
    return AuditResult(best[0], (best[1], best[2]), (s_D.size, s_Dp.size), threshold, best[5],
                       1.0 - alpha, best[3], best[4], delta, (0, 0), alpha_tail, desc)


# --------------------------------------------------------------------------- audit
@runtime_checkable
class BatchMechanism(Protocol):
    """A mechanism that can also draw many runs at once (what the wrappers here provide)."""

    def __call__(self, data: Any, rng: np.random.Generator) -> np.ndarray: ...

    def sample(self, data: Any, n_runs: int, rng: np.random.Generator) -> np.ndarray: ...


def _run(mechanism: Callable[[Any, np.random.Generator], Any], data: Any, n_runs: int,
         rng: np.random.Generator) -> np.ndarray:
    sample = getattr(mechanism, "sample", None)
    with single_threaded():
        if callable(sample):
            out = np.asarray(sample(data, n_runs, rng), dtype=float)
        else:
            out = np.stack([np.asarray(mechanism(data, rng), dtype=float) for _ in range(n_runs)])
    if out.shape[0] != n_runs:
        raise ParameterError(
            f"audit: the mechanism returned {out.shape[0]} outputs for {n_runs} runs.")
    return out.reshape(n_runs, -1)


def audit(
    mechanism: Callable[[Any, np.random.Generator], Any],
    D: Any,
    D_prime: Any,
    *,
    n_runs: int,
    confidence: float = 0.95,
    statistic: Callable[[np.ndarray], float] | None = None,
    random_state: RandomStateLike = None,
    delta: float = 0.0,
    selection_fraction: float = 0.5,
    quantiles: Sequence[float] | None = None,
) -> AuditResult:
    """Audit a mechanism on an adjacent pair: a lower bound on its ε ([JUO20]_, [NST+21]_).

    Runs ``mechanism(D, rng)`` and ``mechanism(D_prime, rng)`` ``n_runs``
    times each (or ``mechanism.sample(data, n_runs, rng)`` when the mechanism
    provides it, see :class:`BatchMechanism`), then

    1. *selection* (the first ``selection_fraction`` of the runs of each data
       set): fixes the statistic — by default the projection of the flattened
       output onto m_D − m_D′, the difference of the mean outputs on D and D′
       estimated on these runs — and the event {s > t} or {s <= t} and its
       direction, maximizing over a grid of quantile thresholds the
       Clopper–Pearson bound these frequencies would give on the evaluation
       sizes;
    2. *evaluation* (the remaining runs, never seen by step 1): counts the
       event and returns the Clopper–Pearson lower bound on
       ln((P[E | D] − δ)/P[E | D′]) (or the reverse), α/2 per bound.

    With probability >= ``confidence`` the returned bound does not exceed the
    mechanism's true ε: a bound above the claimed ε is a privacy bug (false
    alarm probability <= 1 − confidence).

    Parameters
    ----------
    mechanism : callable
        ``mechanism(data, rng) -> array``, one independent release per call,
        with all its randomness drawn from ``rng``.
    D, D_prime : any
        Adjacent data sets (passed to ``mechanism`` unchanged), e.g. from
        :func:`linear_erm_pair`.
    n_runs : int
        Runs per data set (>= 2), selection and evaluation together.
    confidence : float, default=0.95
    statistic : callable or None
        Maps one output (flattened to 1-D) to a float; None: the projection
        described above.
    random_state : None, int or numpy.random.Generator
        Seeds the runs (two independent child generators, one per data set).
    delta : float, default=0.0
        δ of an (ε, δ)-DP mechanism.
    selection_fraction : float, default=0.5
    quantiles : sequence of float or None
        Quantile levels tried as thresholds (default 0.005, ..., 0.995).

    Returns
    -------
    AuditResult

    Notes
    -----
    BLAS is limited to one thread while the mechanism runs: on the tiny
    problems audits use, thread start-up dominated SciPy's L-BFGS-B (measured
    50x slower per 2-D solve on a loaded 2-core machine).

    References
    ----------
    [JUO20]_ (Algorithm 2: run, threshold, Clopper–Pearson), [NST+21]_
    (worst-case pairs, held-out threshold), [CP34]_.
    """
    owner = "audit"
    n_runs = check_int("n_runs", n_runs, owner, low=2)
    alpha = 1.0 - _check_confidence(confidence, owner)
    delta = _check_delta(delta, owner)
    fraction = check_float("selection_fraction", selection_fraction, owner, high=1.0)
    if not callable(mechanism):
        raise ParameterError(f"{owner}: mechanism must be callable as mechanism(data, rng). "
                             f"Got {mechanism!r} instead.")
    rng = check_random_state(random_state)
    rng_D, rng_Dp = rng.spawn(2)
    out_D = _run(mechanism, D, n_runs, rng_D)
    out_Dp = _run(mechanism, D_prime, n_runs, rng_Dp)
    if out_D.shape[1] != out_Dp.shape[1]:
        raise ParameterError(
            f"{owner}: outputs on D have {out_D.shape[1]} entries, on D' {out_Dp.shape[1]}; "
            "the mechanism must release the same shape on adjacent data sets.")
    k = _split(n_runs, fraction)
    sel_D, ev_D, sel_Dp, ev_Dp = out_D[:k], out_D[k:], out_Dp[:k], out_Dp[k:]
    if statistic is None:
        v = sel_D.mean(axis=0) - sel_Dp.mean(axis=0)
        if not np.any(v):
            v = np.zeros(out_D.shape[1])
            v[0] = 1.0
        s_sel_D, s_sel_Dp, s_D, s_Dp = sel_D @ v, sel_Dp @ v, ev_D @ v, ev_Dp @ v
        desc = "projection onto the difference of the mean outputs (selection runs)"
    else:
        s_sel_D = _statistic_values(sel_D, statistic, owner, "outputs on D")
        s_sel_Dp = _statistic_values(sel_Dp, statistic, owner, "outputs on D'")
        s_D = _statistic_values(ev_D, statistic, owner, "outputs on D")
        s_Dp = _statistic_values(ev_Dp, statistic, owner, "outputs on D'")
        desc = getattr(statistic, "__name__", repr(statistic))
    q = DEFAULT_QUANTILES if quantiles is None else np.asarray(quantiles, dtype=float)
    alpha_tail = alpha / 2.0
    threshold, direction, _ = _select_event(s_sel_D, s_sel_Dp, s_D.size, s_Dp.size, alpha_tail,
                                            delta, q)
    eps, cD, cDp, p_lo, q_hi = _bound_at(s_D, s_Dp, threshold, direction, alpha_tail, delta)
    return AuditResult(eps, (cD, cDp), (s_D.size, s_Dp.size), threshold, direction,
                       1.0 - alpha, p_lo, q_hi, delta, (k, k), alpha_tail, desc)


# --------------------------------------------------------------------------- pairs
def linear_erm_pair(
    n: int, d: int, *, data_norm: float = 1.0, random_state: RandomStateLike = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Adversarial replace-one pair for linear ERM: (X, y, X′, y′).

    Record 0 is the differing record: x_0 = q·e_0 (at the norm bound, on an
    axis no other record uses) with label +1 in D and −1 in D′, so y_0 x_0
    flips to its antipode. The other n − 1 records are identical in both,
    with ||x|| <= q on the axes e_1, ..., e_{d−1} (zero rows when d = 1) and
    alternating labels. The objective then separates: coordinate 0 of the
    minimizer depends on the differing record alone, and for the Huber and
    smooth hinges with q²/(nΛ) < 1 − h both records sit on the linear part of
    the loss (|ℓ′| = 1), so the argmin moves by exactly the sensitivity
    2q/(nΛ) of [CMS]_ Alg. 1 and the gradient by 2q. Use small n (with
    objective perturbation the Δ branch of [CMS]_ Alg. 2 is then active).

    Parameters
    ----------
    n : int
        Records (>= 2).
    d : int
        Features (>= 1).
    data_norm : float
        Public bound q.
    random_state : None, int or Generator
        For the other records (public randomness of the test design).

    References
    ----------
    [NST+21]_ (worst-case adjacent data sets for auditing).
    """
    owner = "linear_erm_pair"
    n = check_int("n", n, owner, low=2)
    d = check_int("d", d, owner)
    q = check_float("data_norm", data_norm, owner)
    rng = check_random_state(random_state)
    X = np.zeros((n, d))
    if d > 1:
        G = rng.standard_normal((n - 1, d - 1))
        G /= np.maximum(np.linalg.norm(G, axis=1, keepdims=True), 1e-12)
        X[1:, 1:] = G * (q * rng.uniform(0.25, 1.0, size=(n - 1, 1)))
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    X[0, 0] = q
    y[0] = 1.0
    Xp, yp = X.copy(), y.copy()
    yp[0] = -1.0
    return X, y, Xp, yp


def large_margin_pair(
    n: int, d: int, *, n_classes: int = 2, data_norm: float = 1.0,
    random_state: RandomStateLike = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Adversarial replace-one pair for the large-margin Gaussian templates: (X, y, X′, y′).

    Record 0 is x_0 = q·e_0 (so z_0 = [x_0; 1]/sqrt(q² + 1) has norm 1, the
    bound of ``docs/privacy.md`` §4), class 0 in D and class 1 in D′ (its
    rank-one term z zᵀ moves from one class's matrices to another's). The other
    records are shared, on the axes e_1, ..., e_{d−1} (zero rows when d = 1),
    with classes assigned round-robin so every class is present. Labels are
    class indices 0, ..., C − 1.
    """
    owner = "large_margin_pair"
    n = check_int("n", n, owner, low=2)
    d = check_int("d", d, owner)
    C = check_int("n_classes", n_classes, owner, low=2)
    q = check_float("data_norm", data_norm, owner)
    rng = check_random_state(random_state)
    X = np.zeros((n, d))
    if d > 1:
        G = rng.standard_normal((n - 1, d - 1))
        G /= np.maximum(np.linalg.norm(G, axis=1, keepdims=True), 1e-12)
        X[1:, 1:] = G * (q * rng.uniform(0.25, 1.0, size=(n - 1, 1)))
    y = np.arange(n, dtype=np.int64) % C
    X[0, 0] = q
    y[0] = 0
    Xp, yp = X.copy(), y.copy()
    yp[0] = 1
    return X, y, Xp, yp


def exponential_mechanism_pair(
    *, sensitivity: float = 1.0, gap: float = 2.0
) -> tuple[np.ndarray, np.ndarray]:
    """Worst-case utility vectors (u, u′) for the exponential mechanism ([MT07]_).

    u = (0, g) and u′ = (−Δu, g + Δu): every utility moves by at most the
    sensitivity Δu, in opposite directions. With a = εg/(2Δu),
    P[0 | u] = 1/(1 + e^a) and P[0 | u′] = 1/(1 + e^{a+ε}), so the ratio
    (1 + e^{a+ε})/(1 + e^a) increases with the gap g and tends to e^ε
    (candidate 0 becomes rare, so more runs are needed). In CMS Alg. 4
    (u_i = −mistakes, Δu = 1) this pair is realized by replacing a held-out
    record that candidate 0 classifies correctly and candidate 1 wrongly with
    one for which the opposite holds.
    """
    owner = "exponential_mechanism_pair"
    s = check_float("sensitivity", sensitivity, owner)
    g = check_float("gap", gap, owner, low_inclusive=True)
    return np.array([0.0, g]), np.array([-s, g + s])


def float_consistency_statistic(center: Any) -> Callable[[np.ndarray], float]:
    """Mironov's floating-point test: does the output look like fl(center + noise)?

    Returns the statistic o ↦ 1.0 if the round trip (o − c) + c differs from o
    in some coordinate, else 0.0, with c = ``center`` (e.g. the non-private
    minimizer on D′). A release computed in floating point as fl(c + b) passes
    the round trip (its low-order bits are those of a sum with c), while a
    release fl(c_D + b) around a different center often does not; the event
    {s > 0.5} then has probability ~0 under D′ and a large one under D, and the
    audit's bound grows with the number of runs. This is the attack of
    [Mir12]_ on textbook floating-point implementations of additive noise. The
    audit's guarantee does not depend on the test being exact.

    References
    ----------
    [Mir12]_ §3-4 (the attack), §5 (the snapping mechanism, a fix).
    """
    c = np.asarray(center, dtype=float).ravel()

    def float_consistency(o: np.ndarray) -> float:
        o = np.asarray(o, dtype=float).ravel()
        return float(np.any((o - c) + c != o))

    return float_consistency


# --------------------------------------------------------------------------- wrappers
def _data_key(*arrays: np.ndarray) -> str:
    h = hashlib.sha1()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(str((a.dtype.str, a.shape)).encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _check_noise_scale(noise_scale: float, owner: str) -> float:
    return check_float("noise_scale", noise_scale, owner)


class LinearERMMechanism:
    """Output or objective perturbation on :class:`LinearERMTemplate`, fast for audits.

    One call is one private release of ``fit_template`` ([CMS]_ Alg. 1 / 2):
    the template is built and verified once per data set (cached), then each
    run draws b with the verifier's calibration (``norm_gamma`` with rate β)
    and, for objective perturbation, solves the perturbed objective with the
    native solver warm-started at the non-private minimizer; an inaccurate
    solve raises (``require_accurate``), as in a real fit. Output perturbation
    solves once per data set and only adds noise draws. With the same
    generator, run 0 equals ``fit_template(template, ..., random_state=rng)``.

    Parameters
    ----------
    loss : str or Loss
        "logistic", "huber", "smooth_hinge" or a Loss instance.
    epsilon : float
        Claimed ε.
    mechanism : {"output", "objective"}
    lam : float
        Λ.
    data_norm : float, default=1.0
        q (rows are clipped to it, as the estimators do).
    h : float, default=0.5
        Width of the Huber/smooth hinge.
    noise_scale : float, default=1.0
        Multiplies every noise draw. 1 is the library's calibration; < 1 is a
        deliberately MIS-CALIBRATED mechanism (e.g. 0.5: noise rate doubled,
        true ε doubled), used to check that audits have power.
    solver : str, default="native"

    Notes
    -----
    ``data`` is a tuple (X, y) with labels in {−1, +1}; no intercept column is
    added (append one to X yourself to audit an intercept).
    """

    def __init__(self, loss: str | Loss, *, epsilon: float, mechanism: str, lam: float,
                 data_norm: float = 1.0, h: float = 0.5, noise_scale: float = 1.0,
                 solver: str = "native"):
        owner = type(self).__name__
        self.loss = loss if isinstance(loss, Loss) else get_loss(
            loss, **({} if loss == "logistic" else {"h": h}))
        self.epsilon = check_float("epsilon", epsilon, owner)
        self.mechanism = check_option("mechanism", mechanism, ("output", "objective"), owner)
        self.lam = check_float("lam", lam, owner)
        self.data_norm = check_float("data_norm", data_norm, owner)
        self.noise_scale = _check_noise_scale(noise_scale, owner)
        self.solver = solver
        self._cache: dict[str, tuple[LinearERMTemplate, Calibration, np.ndarray]] = {}

    def prepare(self, data: tuple[np.ndarray, np.ndarray]) -> tuple[LinearERMTemplate,
                                                                     Calibration, np.ndarray]:
        """(template, calibration, non-private minimizer) for ``data``, cached."""
        X, y = data
        X = np.asarray(X, dtype=float)
        y = np.asarray(y, dtype=float)
        key = _data_key(X, y)
        if key not in self._cache:
            Xc, _ = clip_rows(X, self.data_norm)
            t = LinearERMTemplate(self.loss, self.lam, self.data_norm, Xc, y)
            _, cal = verify(t, epsilon=self.epsilon, mechanism=self.mechanism)
            assert cal is not None
            x0 = require_accurate(t.solve(None, 0.0, solver=self.solver), t.residual_tol).x
            self._cache[key] = (t, cal, np.array(x0, copy=True))
        return self._cache[key]

    def calibration(self, data: tuple[np.ndarray, np.ndarray]) -> Calibration:
        """The verifier's calibration on ``data`` (ε split, Δ, noise rate)."""
        return self.prepare(data)[1]

    def minimizer(self, data: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        """The non-private minimizer θ* on ``data`` (the center of output perturbation)."""
        return self.prepare(data)[2].copy()

    def sample(self, data: tuple[np.ndarray, np.ndarray], n_runs: int,
               rng: np.random.Generator) -> np.ndarray:
        """``n_runs`` independent releases, shape (n_runs, p)."""
        t, cal, x0 = self.prepare(data)
        out = np.empty((n_runs, t.p))
        for r in range(n_runs):
            b = norm_gamma(t.noise_shape, cal.noise_rate, rng) * self.noise_scale
            if self.mechanism == "output":
                # as mechanisms._release: the sum is snapped to the public grid
                out[r] = snap(x0 + b, coordinate_scale(t.noise_shape, cal.noise_rate)
                              * self.noise_scale)
            else:
                res = require_accurate(
                    t.solve(b, cal.extra_strong_convexity, solver=self.solver, warm_start=x0),
                    t.residual_tol)
                out[r] = res.x
        return out

    def log_likelihood_ratio(self, D: tuple[np.ndarray, np.ndarray],
                             D_prime: tuple[np.ndarray, np.ndarray]) -> Callable[[np.ndarray], float]:
        """A statistic: the log density ratio ln f_D(θ)/f_D′(θ) of one release θ.

        By Neyman–Pearson, thresholding it gives the most powerful events for
        the pair, so audits with it come closest to the true ε (white-box; the
        bound stays valid whatever statistic is used). It is rounded to
        :data:`LLR_DECIMALS` decimals, so that it audits the real-valued
        calibration and not the floating-point representation of the output
        (computed in floats, its last bits distinguish D from D′ by themselves;
        :func:`float_consistency_statistic` audits that separately). Computed
        from the claimed calibration (rate β, Δ) and the two templates:

        * output perturbation: β(||θ − θ*_D′|| − ||θ − θ*_D||);
        * objective perturbation (change of variables b ↦ θ, [CMS]_ §3.2):
          with b_X(θ) = −n ∇J_X(θ) the noise that makes θ optimal on X,
          β(||b_D′(θ)|| − ||b_D(θ)||) + ln det ∇²J_D(θ) − ln det ∇²J_D′(θ).
        """
        tD, calD, xD = self.prepare(D)
        tDp, calDp, xDp = self.prepare(D_prime)
        beta = calD.noise_rate
        if self.mechanism == "output":
            def llr_output(theta: np.ndarray) -> float:
                th = np.asarray(theta, dtype=float).ravel()
                return round(beta * float(np.linalg.norm(th - xDp) - np.linalg.norm(th - xD)),
                             LLR_DECIMALS)
            return llr_output
        regD = tD.lam + calD.extra_strong_convexity
        regDp = tDp.lam + calDp.extra_strong_convexity
        zero = np.zeros(tD.p)

        def llr_objective(theta: np.ndarray) -> float:
            th = np.asarray(theta, dtype=float).ravel()
            bD = -tD.n * tD.objective(th, zero, regD)[1]
            bDp = -tDp.n * tDp.objective(th, zero, regDp)[1]
            ldD = np.linalg.slogdet(tD.hessian(th, regD))[1]
            ldDp = np.linalg.slogdet(tDp.hessian(th, regDp))[1]
            return round(beta * float(np.linalg.norm(bDp) - np.linalg.norm(bD))
                         + float(ldD - ldDp), LLR_DECIMALS)
        return llr_objective

    def __call__(self, data: tuple[np.ndarray, np.ndarray], rng: np.random.Generator) -> np.ndarray:
        return self.sample(data, 1, rng)[0]


class LargeMarginMechanism:
    """Objective perturbation on :class:`LargeMarginGaussianTemplate`, fast for audits.

    Builds and verifies the template once per data set; each run draws the
    symmetric noise with the verifier's rate and solves with the native
    accelerated projected gradient, warm-started at the non-private solution;
    the output is Φ flattened (C·K·D·D entries). ``data`` is (X, y) with class
    indices y in {0, ..., C − 1}; rows are clipped to ``data_norm`` and mapped
    to z = [x; 1]/sqrt(q² + 1), as in :class:`~dpconvex.PrivateLargeMarginGaussian`.

    Parameters
    ----------
    epsilon : float
    lam : float
        λ > 0.
    gamma : float, default=0.0
    h : float, default=0.5
        Huber width.
    data_norm : float, default=1.0
    n_classes : int, default=2
    n_components : int, default=1
        K; with K > 1 the components are assigned by a public rule (record i
        gets component i mod K), which reads no other record.
    noise_scale : float, default=1.0
        < 1 mis-calibrates deliberately (see :class:`LinearERMMechanism`).
    solver : str, default="native"
    """

    def __init__(self, *, epsilon: float, lam: float, gamma: float = 0.0, h: float = 0.5,
                 data_norm: float = 1.0, n_classes: int = 2, n_components: int = 1,
                 noise_scale: float = 1.0, solver: str = "native"):
        owner = type(self).__name__
        self.epsilon = check_float("epsilon", epsilon, owner)
        self.lam = check_float("lam", lam, owner)
        self.gamma = check_float("gamma", gamma, owner, low_inclusive=True)
        self.loss = HuberHinge(h)
        self.data_norm = check_float("data_norm", data_norm, owner)
        self.n_classes = check_int("n_classes", n_classes, owner, low=2)
        self.n_components = check_int("n_components", n_components, owner)
        self.noise_scale = _check_noise_scale(noise_scale, owner)
        self.solver = solver
        self._cache: dict[str, tuple[LargeMarginGaussianTemplate, Calibration, np.ndarray]] = {}

    def prepare(self, data: tuple[np.ndarray, np.ndarray]) -> tuple[
            LargeMarginGaussianTemplate, Calibration, np.ndarray]:
        """(template, calibration, non-private solution) for ``data``, cached."""
        X, y = data
        X = np.asarray(X, dtype=float)
        y = np.asarray(y).astype(np.int64)
        key = _data_key(X, y)
        if key not in self._cache:
            comp = np.arange(y.size) % self.n_components
            t = LargeMarginGaussianTemplate.from_features(
                X, y, comp, data_norm=self.data_norm, n_classes=self.n_classes,
                n_components=self.n_components, lam=self.lam, gamma=self.gamma, loss=self.loss,
                assignment="public rule: component i mod K")
            _, cal = verify(t, epsilon=self.epsilon, mechanism="objective")
            assert cal is not None
            x0 = require_accurate(t.solve(None, 0.0, solver=self.solver), t.residual_tol).x
            self._cache[key] = (t, cal, np.array(x0, copy=True))
        return self._cache[key]

    def calibration(self, data: tuple[np.ndarray, np.ndarray]) -> Calibration:
        """The verifier's calibration on ``data``."""
        return self.prepare(data)[1]

    def sample(self, data: tuple[np.ndarray, np.ndarray], n_runs: int,
               rng: np.random.Generator) -> np.ndarray:
        """``n_runs`` independent releases of Φ, shape (n_runs, C·K·D·D)."""
        t, cal, x0 = self.prepare(data)
        out = np.empty((n_runs, x0.size))
        for r in range(n_runs):
            b = norm_gamma(t.noise_shape, cal.noise_rate, rng,
                           symmetric=t.noise_symmetric) * self.noise_scale
            res = require_accurate(
                t.solve(b, cal.extra_strong_convexity, solver=self.solver, warm_start=x0),
                t.residual_tol)
            out[r] = np.asarray(res.x).ravel()
        return out

    def log_likelihood_ratio(self, D: tuple[np.ndarray, np.ndarray],
                             D_prime: tuple[np.ndarray, np.ndarray]) -> Callable[[np.ndarray], float]:
        """A statistic approximating ln f_D(Φ)/f_D′(Φ) (white-box, see LinearERMMechanism).

        β(||b_D′(Φ)||_F − ||b_D(Φ)||_F) with b_X(Φ) = −n ∇J_X(Φ) the noise that
        makes Φ stationary on X; the Jacobian term and the PSD constraint's
        normal cone are ignored (exact for interior solutions up to the
        Jacobian). Any statistic gives a valid bound; this one gives power.
        """
        tD, calD, _ = self.prepare(D)
        tDp, calDp, _ = self.prepare(D_prime)
        beta = calD.noise_rate

        def llr_large_margin(phi: np.ndarray) -> float:
            P = np.asarray(phi, dtype=float).reshape(tD.noise_shape)
            bD = -tD.n * tD.objective(P, None, calD.extra_strong_convexity)[1]
            bDp = -tDp.n * tDp.objective(P, None, calDp.extra_strong_convexity)[1]
            return round(beta * float(np.linalg.norm(bDp) - np.linalg.norm(bD)), LLR_DECIMALS)
        return llr_large_margin

    def __call__(self, data: tuple[np.ndarray, np.ndarray], rng: np.random.Generator) -> np.ndarray:
        return self.sample(data, 1, rng)[0]


class NoisyGDMechanism:
    """:class:`~dpconvex.NoisyGradientDescent` batched over runs, for audits.

    Per data set the estimator is fitted once (cached) to obtain its own
    calibration — noise standard deviation ``noise_std_``, step
    ``learning_rate_`` and certificate — then the T noisy projected steps of
    ``NoisyGradientDescent.fit`` run for all runs at once (one Gaussian draw
    of shape (n_runs, p) per step). With ``n_runs = 1`` the draws are those of
    ``fit``, so a single run with a given generator reproduces the estimator's
    ``[coef_, intercept_]`` (checked in the tests, which catches any drift
    between this loop and the estimator's).

    Parameters
    ----------
    estimator : NoisyGradientDescent
        Unfitted, with the parameters to audit (its ``random_state`` is ignored).
    noise_scale : float, default=1.0
        < 1 mis-calibrates deliberately.
    """

    def __init__(self, estimator: Any, *, noise_scale: float = 1.0):
        self.estimator = estimator
        self.noise_scale = _check_noise_scale(noise_scale, type(self).__name__)
        self._cache: dict[str, tuple[np.ndarray, np.ndarray, float, float, Any]] = {}

    def prepare(self, data: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray,
                                                                     float, float, Any]:
        """(rows with intercept, ±1 labels, noise std, step, certificate), cached."""
        from sklearn.base import clone

        from .estimators import check_binary_labels

        X, y = data
        X = np.asarray(X, dtype=float)
        key = _data_key(X, np.asarray(y))
        if key not in self._cache:
            est = clone(self.estimator).set_params(random_state=0, accountant=None).fit(X, y)
            params = est.get_params()
            Xc, _ = clip_rows(X, float(params["data_norm"]))
            _, ys = check_binary_labels(np.asarray(y), type(self).__name__)
            if params["fit_intercept"]:
                Xc = np.hstack([Xc, np.ones((Xc.shape[0], 1))])
            self._cache[key] = (Xc, ys, float(est.noise_std_), float(est.learning_rate_),
                                est.certificate_)
        return self._cache[key]

    def certificate(self, data: tuple[np.ndarray, np.ndarray]) -> Any:
        """The estimator's certificate on ``data`` (claimed ε and δ)."""
        return self.prepare(data)[4]

    def sample(self, data: tuple[np.ndarray, np.ndarray], n_runs: int,
               rng: np.random.Generator) -> np.ndarray:
        """``n_runs`` releases of the averaged iterate θ̄ (intercept last), shape (n_runs, p)."""
        Xc, ys, s, eta, _ = self.prepare(data)
        params = self.estimator.get_params()
        loss = params["loss"] if isinstance(params["loss"], Loss) else get_loss(params["loss"])
        C, R, T = float(params["clip"]), float(params["radius"]), int(params["steps"])
        n, p = Xc.shape
        row_norms = np.linalg.norm(Xc, axis=1)
        yX = Xc * ys[:, None]
        theta = np.zeros((n_runs, p))
        total = np.zeros((n_runs, p))
        for _ in range(T):
            d1 = loss.deriv(theta @ yX.T)  # (runs, n)
            gnorm = np.abs(d1) * row_norms
            scale = np.minimum(1.0, C / np.maximum(gnorm, 1e-300))
            grad = (d1 * scale) @ yX / n
            noise = rng.normal(0.0, s, size=(n_runs, p)) * self.noise_scale
            theta = theta - eta * snap(grad + noise, s * self.noise_scale)
            nrm = np.linalg.norm(theta, axis=1)
            over = nrm > R
            theta[over] *= (R / nrm[over])[:, None]
            total += theta
        return total / T

    def __call__(self, data: tuple[np.ndarray, np.ndarray], rng: np.random.Generator) -> np.ndarray:
        return self.sample(data, 1, rng)[0]


class ExponentialMechanism:
    """:func:`dpconvex.noise.exponential_mechanism` as an auditable mechanism ([MT07]_).

    ``data`` is the utility vector; the output is the selected index (as a
    length-1 array). ``sample`` calls the library function once per run.

    Parameters
    ----------
    epsilon : float
    sensitivity : float, default=1.0
        Δu passed to the library (a mis-calibrated mechanism passes half the
        true sensitivity).
    """

    def __init__(self, *, epsilon: float, sensitivity: float = 1.0):
        owner = type(self).__name__
        self.epsilon = check_float("epsilon", epsilon, owner)
        self.sensitivity = check_float("sensitivity", sensitivity, owner)

    def sample(self, data: Any, n_runs: int, rng: np.random.Generator) -> np.ndarray:
        """``n_runs`` selected indices, shape (n_runs, 1)."""
        u = np.asarray(data, dtype=float)
        return np.array([[exponential_mechanism(u, self.epsilon, self.sensitivity, rng)]
                         for _ in range(n_runs)], dtype=float)

    def __call__(self, data: Any, rng: np.random.Generator) -> np.ndarray:
        return self.sample(data, 1, rng)[0]


def _default_estimator_output(est: Any) -> np.ndarray:
    if hasattr(est, "Phi_"):
        return np.asarray(est.Phi_, dtype=float).ravel()
    parts = [np.asarray(est.coef_, dtype=float).ravel()]
    if hasattr(est, "intercept_"):
        parts.append(np.asarray(est.intercept_, dtype=float).ravel())
    return np.concatenate(parts)


class EstimatorMechanism:
    """Any dpconvex estimator, end to end: one ``fit`` per run (slow, but the real path).

    Each run clones the estimator, sets ``random_state`` to the audit's
    generator and fits on ``data = (X, y)``; the output is
    ``[coef_, intercept_]`` (or ``Phi_`` for the large-margin classifier), or
    ``output(fitted_estimator)``.
    """

    def __init__(self, estimator: Any, output: Callable[[Any], np.ndarray] | None = None):
        self.estimator = estimator
        self.output = output or _default_estimator_output

    def __call__(self, data: tuple[np.ndarray, np.ndarray], rng: np.random.Generator) -> np.ndarray:
        from sklearn.base import clone

        X, y = data
        est = clone(self.estimator).set_params(random_state=rng)
        est.fit(X, y)
        return np.asarray(self.output(est), dtype=float).ravel()
