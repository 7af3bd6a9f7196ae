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

The package, by concern:

* :mod:`~dpconvex.audit.bounds`: Clopper–Pearson bounds and
  :func:`epsilon_from_counts` (the derivation of the bound and of the
  confidence split);
* :mod:`~dpconvex.audit.statistics`: statistics of the outputs (the default
  projection, :func:`float_consistency_statistic` after [Mir12]_) and the
  choice of the event on held-out runs;
* :mod:`~dpconvex.audit.runner`: :func:`audit` (run, select, bound),
  :func:`epsilon_lower_bound` (the same from outputs computed elsewhere),
  :class:`AuditResult`, :class:`BatchMechanism`;
* :mod:`~dpconvex.audit.pairs`: adversarial adjacent pairs
  :func:`linear_erm_pair`, :func:`large_margin_pair`,
  :func:`exponential_mechanism_pair`;
* :mod:`~dpconvex.audit.adapters`: the library's mechanisms as auditable
  callables with a batched ``sample(data, n_runs, rng)`` —
  :class:`LinearERMMechanism`, :class:`LargeMarginMechanism`,
  :class:`NoisyGDMechanism`, :class:`ExponentialMechanism` — each run one call
  of :func:`dpconvex.privacy.release.release` (the estimators' path, not a
  copy of it), and :class:`EstimatorMechanism` (one ``fit`` per run).

References
----------
.. [JUO20] M. Jagielski, J. Ullman, A. Oprea. Auditing Differentially Private
   Machine Learning: How Private is Private SGD? NeurIPS 2020.
.. [NST+21] M. Nasr, S. Song, A. Thakurta, N. Papernot, N. Carlini. Adversary
   Instantiation: Lower Bounds for Differentially Private Machine Learning.
   IEEE S&P 2021.
.. [Mir12] I. Mironov. On Significance of the Least Significant Bits for
   Differential Privacy. ACM CCS 2012.
"""

from .adapters import (
    EstimatorMechanism,
    ExponentialMechanism,
    LargeMarginMechanism,
    LinearERMMechanism,
    NoisyGDMechanism,
)
from .bounds import DIRECTIONS, clopper_pearson_lower, clopper_pearson_upper, epsilon_from_counts
from .estimator_release import EstimatorReleaseMechanism
from .pairs import exponential_mechanism_pair, large_margin_pair, linear_erm_pair
from .runner import AuditResult, BatchMechanism, audit, epsilon_lower_bound
from .statistics import float_consistency_statistic

__all__ = [
    "DIRECTIONS", "AuditResult", "BatchMechanism", "EstimatorMechanism",
    "EstimatorReleaseMechanism", "ExponentialMechanism", "LargeMarginMechanism",
    "LinearERMMechanism", "NoisyGDMechanism", "audit", "clopper_pearson_lower",
    "clopper_pearson_upper", "epsilon_from_counts", "epsilon_lower_bound",
    "exponential_mechanism_pair", "float_consistency_statistic", "large_margin_pair",
    "linear_erm_pair",
]
