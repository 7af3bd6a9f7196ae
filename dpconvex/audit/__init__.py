"""Empirical privacy auditing: black-box lower bounds on ε from a mechanism's outputs.

Run a mechanism many times on a fixed adjacent pair and bound an event's probabilities on
each side (Clopper–Pearson): ln((p_lo − δ)/q_hi) > ε is a significant violation of the
claim ([JUO20]_, [NST+21]_). A bound below the claim proves nothing; one above it is a false
alarm with probability at most 1 − confidence (docs/privacy/auditing.md#privacy-auditing).

NOT PRIVATE: an audit's results and what its adapters compute and cache (the non-private
minimizer, the templates, a hash of each data set) are functions of D and D′ with no noise, as
the data holder's channels of :mod:`dpconvex.errors`; audit synthetic or public neighbouring
data sets.

Modules: :mod:`~dpconvex.audit.bounds` (the bounds and the confidence split),
:mod:`~dpconvex.audit.statistics` (statistics of the outputs, after [Mir12]_ for
:func:`float_consistency_statistic`), :mod:`~dpconvex.audit.runner` (:func:`audit`,
:func:`epsilon_lower_bound`), :mod:`~dpconvex.audit.pairs` (adversarial adjacent pairs)
and :mod:`~dpconvex.audit.adapters` (the library's mechanisms as auditable callables).

References
----------
.. [JUO20] M. Jagielski, J. Ullman, A. Oprea. Auditing Differentially Private
   Machine Learning: How Private is Private SGD? NeurIPS 2020.
.. [NST+21] M. Nasr, S. Song, A. Thakurta, N. Papernot, N. Carlini. Adversary
   Instantiation: Lower Bounds for Differentially Private Machine Learning. IEEE S&P 2021.
.. [Mir12] I. Mironov. On Significance of the Least Significant Bits for
   Differential Privacy. ACM CCS 2012.
"""

from .adapters import (
    EstimatorMechanism,
    EstimatorReleaseMechanism,
    ExponentialMechanism,
    LargeMarginMechanism,
    LinearERMMechanism,
    NoisyGDMechanism,
)
from .bounds import DIRECTIONS, clopper_pearson_lower, clopper_pearson_upper, epsilon_from_counts
from .pairs import exponential_mechanism_pair, large_margin_pair, linear_erm_pair
from .runner import AuditResult, BatchMechanism, audit, epsilon_lower_bound
from .statistics import float_consistency_statistic

__all__ = [
    "DIRECTIONS",
    "AuditResult",
    "BatchMechanism",
    "EstimatorMechanism",
    "EstimatorReleaseMechanism",
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
