"""Audit of the softmax-mixture (K = 2) Gaussian release through the real estimator path.

The fast counterpart of benchmarks/audited_epsilon_softmax_mixture.py
(docs/privacy/large_margin_softmax.md#privacy-softmax-mixtures, "Exact Gaussian check";
privacy-softmax-audit for the statistic). The released object is what
``PrivateLargeMarginGaussian(epsilon=1, delta=1e-5, loss="softmax", n_components=2,
mechanism="gaussian_objective", component_assignment="nearest_public_center")`` releases
(:class:`~dpconvex.audit.adapters.EstimatorReleaseMechanism` runs the
estimator's own template and noise draw). The pair is the experiment's "flipmix" (C = 2,
K = 2, n = 4, d = 1, public centers class 0 at (+1, −1), class 1 at (−1, +1)): D′ flips
the first label, which also moves that record to the other component, so the active sets
differ and the Jacobians do not cancel. Statistic: the white-box log-likelihood ratio;
threshold and direction chosen on the first half of the runs, Clopper–Pearson bound on
the other half (:func:`dpconvex.audit.audit`).

False-alarm rate: the audited bound exceeds the mechanism's true ε (at the claimed δ)
with probability at most 1 − confidence = 0.05, so the real mechanism (claim ε = 1) fails
the first test with probability < 0.05; the seeds are fixed, so the test is deterministic.
Power: the mutant whose noise is multiplied by 1/20 while the certificate still claims
(1, 1e-5) gave audited bounds 2.43, 2.35, 2.71 at seeds 0, 1, 2 with 600 runs per data
set (noise x 0.1: 1.06, 0.86, 0.84 — too weak for a fast test); the real mechanism gave 0
at all three seeds. About 5 s per audit on one core.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dpconvex as dp
from dpconvex.audit import audit
from dpconvex.audit.adapters import EstimatorReleaseMechanism
from dpconvex.errors import PrivacyWarning

DELTA = 1e-5
CENTERS = np.array([[[1.0], [-1.0]], [[-1.0], [1.0]]])
X = np.array([[1.0], [-1.0], [1.0], [-1.0]])
Y = np.array([0, 1, 0, 1])
YP = np.array([1, 1, 0, 1])  # the first label flipped: other class, other component


def _mechanism(noise_scale: float) -> EstimatorReleaseMechanism:
    est = dp.PrivateLargeMarginGaussian(
        epsilon=1.0, delta=DELTA, loss="softmax", n_components=2,
        mechanism="gaussian_objective", component_assignment="nearest_public_center",
        centers=CENTERS, classes=[0, 1])
    return EstimatorReleaseMechanism(est, noise_scale=noise_scale)


def _audited_epsilon(noise_scale: float, n_runs: int, seed: int) -> float:
    m = _mechanism(noise_scale)
    D, Dp = (X, Y), (X, YP)
    budget = m.budget(D)
    assert (budget.epsilon, budget.delta) == (1.0, DELTA)  # the claim does not follow the mutant
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        r = audit(m, D, Dp, n_runs=n_runs, statistic=m.log_likelihood_ratio(D, Dp),
                  random_state=seed, delta=budget.delta, confidence=0.95)
    return r.epsilon_lower_bound


def test_pair_moves_the_record_to_the_other_component():
    """The pair is the intended one: record 0 is component 0 of class 0 in D, 1 of class 1 in D′."""
    m = _mechanism(1.0)
    # each record's target score, a column of the (n, C·K) scores
    comp = [(lambda t: t._target_flat % (t.C * t.K))(m.prepare(d)[0]) for d in ((X, Y), (X, YP))]
    assert comp[0][0] != comp[1][0]
    np.testing.assert_array_equal(comp[0][1:], comp[1][1:])


@pytest.mark.slow
@pytest.mark.parametrize("noise_scale, caught", [(1.0, False), (0.05, True)])
def test_k2_gaussian_release_audit_mutant_caught_real_not(noise_scale, caught):
    lb = _audited_epsilon(noise_scale, n_runs=600, seed=0)
    assert (lb > 1.0) is caught, lb
