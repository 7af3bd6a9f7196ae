"""Run a mechanism on an adjacent pair and turn its outputs into a lower bound on ε.

:func:`audit` runs ``mechanism(data, rng)`` ``n_runs`` times on each data set and hands
the statistics of the outputs to :func:`epsilon_lower_bound`, which chooses the event on a
*selection* part of the runs and bounds ε on the disjoint *evaluation* part. With
probability >= ``confidence`` the bound does not exceed the mechanism's true ε ([JUO20]_,
[NST+21]_, [CP34]_; derivation in :mod:`dpconvex.audit.bounds` and
``docs/privacy/auditing.md#privacy-auditing``).

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
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from .._validation import (
    RandomStateLike,
    check_float,
    check_int,
    check_option,
    check_random_state,
    describe_value,
)
from ..errors import ParameterError
from ..solvers.registry import single_threaded
from .bounds import DIRECTIONS, bound_at, check_confidence, check_delta
from .statistics import (
    check_quantiles,
    check_statistic,
    projection_direction,
    select_event,
    split,
    statistic_name,
    statistic_values,
)

__all__ = ["MAX_RUNS", "AuditResult", "BatchMechanism", "audit", "epsilon_lower_bound"]

#: Largest ``n_runs`` of :func:`audit` (per data set).
MAX_RUNS = 10**7


@dataclass(frozen=True)
class AuditResult:
    """Outcome of an audit: a lower bound on ε at a stated confidence.

    Attributes
    ----------
    epsilon_lower_bound : float
        ε_lb >= 0. With probability at least ``confidence`` (over the evaluation runs) the mechanism's true ε
        is at least this; a value above the claimed ε flags a privacy bug.
    counts : tuple of int
        (k_D, k_D′): evaluation runs on D and on D′ whose output fell in the event.
    n_eval : tuple of int
        (n_D, n_D′): evaluation runs on each data set.
    threshold : float
        t of the event.
    direction : str
        One of :data:`~dpconvex.audit.DIRECTIONS`: "above" is E = {s > t},
        "below" is E = {s <= t}; after the colon, the data set in the numerator.
    confidence : float
        1 − α.
    p_lower : float
        Clopper–Pearson lower bound on P[E | numerator data set].
    q_upper : float
        Clopper–Pearson upper bound on P[E | denominator data set].
    delta : float
        δ subtracted from p_lower ((ε, δ)-DP mechanisms), 0 for pure ε-DP.
    n_selection : tuple of int
        Runs on D and D′ that chose the statistic, threshold and direction
        (0 when the caller fixed them).
    alpha_per_bound : float
        The share of α spent on each one-sided Clopper–Pearson bound.
    statistic : str
        Description of the statistic.

    Examples
    --------
    >>> from dpconvex.audit import AuditResult, epsilon_lower_bound
    >>> r = epsilon_lower_bound([0.0] * 50 + [1.0] * 50, [0.0] * 90 + [1.0] * 10,
    ...                         statistic=None, threshold=0.5, direction="above:D")
    >>> isinstance(r, AuditResult), r.counts, r.n_eval
    (True, (50, 10), (100, 100))
    >>> round(float(r), 2) == round(r.epsilon_lower_bound, 2) > 0
    True
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


def epsilon_lower_bound(outputs_D: Any, outputs_Dprime: Any, *,
                        statistic: Callable[[np.ndarray], float] | None,
                        threshold: float | None = None, direction: str | None = None,
                        confidence: float = 0.95, delta: float = 0.0,
                        selection_fraction: float = 0.5, quantiles: Sequence[float] | None = None
                       ) -> AuditResult:
    """Clopper–Pearson lower bound on ε from outputs on two adjacent data sets.

    E = {statistic(o) > threshold} or its complement; the bound is max(0, ln(p_lo/q_hi)),
    p_lo and q_hi Clopper–Pearson bounds on P[E] under the two data sets ([JUO20]_ Section 3,
    [NST+21]_, [CP34]_).

    .. warning:: The threshold and direction must not be chosen by looking at
       ``outputs_D``/``outputs_Dprime``: a threshold tuned on the same runs inflates the bound and voids its
       confidence. Pass a ``threshold`` chosen on *held-out* runs (or on theory), or leave ``threshold=None``,
       in which case this function holds out the first ``selection_fraction`` of each batch to choose it;
       :func:`audit` does the split for you.

    Parameters
    ----------
    outputs_D, outputs_Dprime : sequence of arrays
        Independent outputs of the mechanism on D and on D′, in run order.
    statistic : callable or None
        Maps one output to a float. None: the outputs are already scalars.
    threshold : float or None
        t. None: choose t and the direction on a held-out selection part (the evaluation uses only the rest).
    direction : str or None
        One of :data:`~dpconvex.audit.DIRECTIONS`, fixed in advance. None with a given threshold: the maximum
        over all four directions is reported, with the confidence budget split so that it stays valid (α/4 per
        one-sided bound instead of α/2).
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

    Examples
    --------
    >>> from dpconvex.audit import epsilon_lower_bound
    >>> rng = np.random.default_rng(0)
    >>> out_D = 1.0 + rng.laplace(size=2000)   # a count with sensitivity 1, epsilon = 1
    >>> out_Dp = rng.laplace(size=2000)
    >>> r = epsilon_lower_bound(out_D, out_Dp, statistic=None)  # threshold chosen on held-out runs
    >>> 0 <= r.epsilon_lower_bound <= 1.0, r.n_selection
    (True, (1000, 1000))
    """
    owner = "epsilon_lower_bound"
    alpha = 1.0 - check_confidence(confidence, owner)
    delta = check_delta(delta, owner)
    check_statistic(statistic, owner)
    q = check_quantiles(quantiles, owner)
    if direction is not None:
        check_option("direction", direction, DIRECTIONS, owner)
    if threshold is not None:
        threshold = check_float("threshold", threshold, owner, low=-math.inf, magnitude=False)
    s_D = statistic_values(outputs_D, statistic, owner, "outputs_D")
    s_Dp = statistic_values(outputs_Dprime, statistic, owner, "outputs_Dprime")
    desc = statistic_name(statistic)
    if threshold is None:
        fraction = check_float("selection_fraction", selection_fraction, owner, high=1.0)
        if s_D.size < 2 or s_Dp.size < 2:
            raise ParameterError(
                "epsilon_lower_bound: threshold=None needs at least 2 runs per data set (one to "
                "select "
                "the event, one to evaluate it); pass more runs or a threshold."
            )
        kD, kDp = split(s_D.size, fraction), split(s_Dp.size, fraction)
        threshold, chosen, _ = select_event(s_D[:kD], s_Dp[:kDp], s_D.size - kD, s_Dp.size - kDp,
                                            alpha / 2.0, delta, q)
        direction = chosen if direction is None else direction
        s_D, s_Dp, n_selection = s_D[kD:], s_Dp[kDp:], (kD, kDp)
    else:
        n_selection = (0, 0)
    # a direction fixed in advance: α/2 per bound; the best of all four: α/4 (union bound)
    alpha_tail = alpha / (4.0 if direction is None else 2.0)
    eps, cD, cDp, p_lo, q_hi, direction = max(
        ((*bound_at(s_D, s_Dp, threshold, d, alpha_tail, delta), d)
         for d in (DIRECTIONS if direction is None else (direction,))), key=lambda r: r[0])
    return AuditResult(eps, (cD, cDp), (s_D.size, s_Dp.size), float(threshold), direction,
                       1.0 - alpha, p_lo, q_hi, delta, n_selection, alpha_tail, desc)


@runtime_checkable
class BatchMechanism(Protocol):
    """A mechanism that can also draw many runs at once (what the adapters provide).

    Examples
    --------
    >>> from dpconvex.audit import BatchMechanism, ExponentialMechanism
    >>> mech = ExponentialMechanism(epsilon=1.0)
    >>> isinstance(mech, BatchMechanism)
    True
    >>> mech.sample(np.array([0.0, 2.0]), 5, np.random.default_rng(0)).shape
    (5, 1)
    """

    def __call__(self, data: Any, rng: np.random.Generator) -> np.ndarray: ...

    def sample(self, data: Any, n_runs: int, rng: np.random.Generator) -> np.ndarray: ...


def _run(mechanism: Callable[[Any, np.random.Generator], Any], data: Any, n_runs: int,
         rng: np.random.Generator) -> np.ndarray:
    sample = getattr(mechanism, "sample", None)
    with single_threaded():
        outputs = (sample(data, n_runs, rng) if callable(sample)
                   else [mechanism(data, rng) for _ in range(n_runs)])
    try:
        # (float() would drop the imaginary part of a complex number with a warning)
        out = None if np.iscomplexobj(outputs) else np.asarray(outputs, dtype=float)
    except (TypeError, ValueError, OverflowError):  # refused after the handler: NumPy's text
        out = None  # can quote an entry
    if out is None:
        raise ParameterError(
            "audit: the mechanism's outputs must be arrays of float64 numbers of one shape; "
            "they could not be converted (complex numbers: return their real parts as numbers)."
        )
    if out.ndim and out.shape[0] == n_runs and out.size == 0:
        raise ParameterError("audit: the mechanism returned empty outputs; a release is numbers.")
    if out.ndim == 0 or out.shape[0] != n_runs:
        raise ParameterError(
            f"audit: the mechanism returned {len(out) if out.ndim else 0} outputs for {n_runs} "
            "runs; sample(data, n_runs, rng) must return one output per run.")
    if not np.all(np.isfinite(out)):
        raise ParameterError("audit: the mechanism returned NaN or infinite outputs (or None); "
                             "a release must be finite numbers.")
    return out.reshape(n_runs, -1)


def _check_neighbours(D: Any, D_prime: Any) -> None:
    """Refuse (X, y) pairs that are not replace-one neighbours: another number of records, or
    more than one record changed (a bound on those would not bound ε). Other data (e.g. the
    utilities of :func:`exponential_mechanism_pair`) are passed on unchecked."""
    def rows(data: Any) -> tuple[np.ndarray, np.ndarray] | None:
        if not (
            isinstance(data, tuple) and len(data) == 2 and all(hasattr(a, "shape") for a in data)
        ):
            return None
        X, y = np.asarray(data[0]), np.asarray(data[1])
        return (X, y) if X.ndim == 2 and y.ndim == 1 and len(X) == len(y) else None
    a, b = rows(D), rows(D_prime)
    if a is None or b is None:  # plain arrays: one record per row (or entry)
        if (
            isinstance(D, np.ndarray)
            and isinstance(D_prime, np.ndarray)
            and D.shape != D_prime.shape
        ):
            raise ParameterError(f"audit: D and D' must be replace-one neighbours, arrays of one "
                                 f"shape; got {D.shape} and {D_prime.shape}.")
        return
    if a[0].shape != b[0].shape:
        raise ParameterError(f"audit: D and D' must be replace-one neighbours, rows of one shape; "
                             f"got {a[0].shape} and {b[0].shape}.")
    def differ(x: np.ndarray, y: np.ndarray) -> np.ndarray:  # NaN in both: the same value
        return (
            (x != y) & ~(np.isnan(x) & np.isnan(y))
            if x.dtype.kind == "f" == y.dtype.kind
            else x != y
        )

    changed = int(np.sum(np.any(differ(a[0], b[0]), axis=1) | differ(a[1], b[1])))
    if changed > 1:
        raise ParameterError(f"audit: D and D' must differ in at most one record; they differ in "
                             f"{changed}. Audit replace-one neighbours.")


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

    Runs ``mechanism(D, rng)`` and ``mechanism(D_prime, rng)`` ``n_runs`` times each (or
    ``mechanism.sample(data, n_runs, rng)``, :class:`BatchMechanism`); the first ``selection_fraction`` of
    each side's runs fixes the statistic (default: the projection onto the difference of the mean outputs),
    the threshold and the direction; the other runs give the Clopper–Pearson bound, α/2 per side
    (docs/privacy/auditing.md#privacy-auditing). With probability >= ``confidence`` the bound
    does not exceed the mechanism's true ε: a bound above the claimed ε is a privacy bug.

    Parameters
    ----------
    mechanism : callable
        ``mechanism(data, rng) -> array``, one independent release per call,
        with all its randomness drawn from ``rng``.
    D, D_prime : any
        Adjacent data sets (passed to ``mechanism`` unchanged), e.g. from
        :func:`~dpconvex.audit.linear_erm_pair`.
    n_runs : int
        Runs per data set (>= 2), selection and evaluation together.
    confidence : float, default=0.95
    statistic : callable or None
        Maps one output (flattened to 1-D) to a float; None: the projection described above.
    random_state : None, int or numpy.random.Generator
        Seeds the runs (two independent child generators, one per data set).
    delta : float, default=0.0
        δ of an (ε, δ)-DP mechanism.
    selection_fraction : float, default=0.5
    quantiles : sequence of float or None
        Quantile levels tried as thresholds (default 0.005, ..., 0.995).

    Notes
    -----
    BLAS is limited to one thread while the mechanism runs: on the tiny problems audits use, thread start-up
    dominates SciPy's L-BFGS-B (measured in benchmarks/recorded/blas_threads_small_solves.md).

    Examples
    --------
    >>> from dpconvex.audit import audit
    >>> def laplace_count(data, rng):  # a sum with sensitivity 1 and Laplace noise of scale 1/epsilon
    ...     return np.array([sum(data) + rng.laplace(scale=1.0)])
    >>> r = audit(laplace_count, [0, 1, 1], [0, 1, 0], n_runs=1000, random_state=0)
    >>> r.epsilon_lower_bound <= 1.0, r.confidence
    (True, 0.95)
    """
    owner = "audit"
    n_runs = check_int("n_runs", n_runs, owner, low=2, high=MAX_RUNS,
                       why="the outputs of every run are held in memory, and the bound grows "
                           "only like log(n_runs)")
    check_confidence(confidence, owner)  # every argument is checked before the runs
    delta = check_delta(delta, owner)
    fraction = check_float("selection_fraction", selection_fraction, owner, high=1.0)
    check_statistic(statistic, owner)
    check_quantiles(quantiles, owner)
    if not callable(mechanism):
        raise ParameterError(f"audit: mechanism must be callable as mechanism(data, rng). "
                             f"Got {describe_value(mechanism)} instead.")
    rng = check_random_state(random_state, "audit")
    _check_neighbours(D, D_prime)
    rng_D, rng_Dp = rng.spawn(2)
    out_D = _run(mechanism, D, n_runs, rng_D)
    out_Dp = _run(mechanism, D_prime, n_runs, rng_Dp)
    if out_D.shape[1] != out_Dp.shape[1]:
        raise ParameterError(
            f"audit: outputs on D have {out_D.shape[1]} entries, on D' {out_Dp.shape[1]}; "
            "the mechanism must release the same shape on adjacent data sets.")
    if statistic is None:  # the projection onto m_D - m_D', estimated on the selection runs
        k = split(n_runs, fraction)
        v = projection_direction(out_D[:k], out_Dp[:k])
        s_D = np.concatenate([out_D[:k] @ v, out_D[k:] @ v])
        s_Dp = np.concatenate([out_Dp[:k] @ v, out_Dp[k:] @ v])
        desc = "projection onto the difference of the mean outputs (selection runs)"
    else:
        s_D = statistic_values(out_D, statistic, owner, "outputs on D")
        s_Dp = statistic_values(out_Dp, statistic, owner, "outputs on D'")
        desc = statistic_name(statistic)
    result = epsilon_lower_bound(s_D, s_Dp, statistic=None, confidence=confidence, delta=delta,
                                 selection_fraction=fraction, quantiles=quantiles)
    return dataclasses.replace(result, statistic=desc)
