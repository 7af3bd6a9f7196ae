"""Audit of a released range through ``draft_schema`` (docs/privacy/bounds.md#privacy-bounds-checks).

Each run is one ``draft_schema`` of a one-column table (seeded from the audit's generator:
every step of the path, from the table to the released ``Numeric``), at ε = 1. The pair
moves one record between two octaves that straddle the threshold τ = 22.665 of the coarse
histogram (n = 245 is too small for the refinement: the whole ε goes to the histogram):

* D: 200 values at 100 (an octave always kept), 24 at 1.0, 21 at 1000;
* D′: one of the values 1.0 replaced by 1000 (23 and 22).

On the event "the octave of 1.0 is not kept and the octave of 1000 is" (released range
[64, 1024]) both octaves' factors reach e^{ε/2} (23 >= τ >= 22), so the true ratio
P_D′/P_D is e^ε = 2.72 (0.1517 against 0.0558): the pair attains the claimed ε. The
statistic is 1[lo > 1.5] + 1[hi > 1000]; the audit chooses the event and its direction on
held-out runs and bounds ε on the others.

Statistical design (STYLE.md, point 9; seeds fixed, so the tests are deterministic, and the
rates are those of a fresh seed):

* "bound <= claimed ε" uses confidence 0.99: a correct mechanism fails with probability
  <= 1% (the false-alarm rate). A failure is a privacy bug until shown otherwise. Over
  seeds 0..19 at these run counts the bound measured 0.64 ± 0.08 (largest 0.79).
* power: the same pair with the Laplace scale divided by 4 (true ε = 4 on the event above,
  claimed 1) must be flagged at confidence 0.95: the bound measured 2.07 ± 0.37 over seeds
  0..19 (smallest 1.54), a miss rate of about 0.2 % (normal tail).
* the quick form (1,000 runs a table): the same null audit, and the scale
  divided by 8 flagged at confidence 0.95 (marked slow, as every power check): the bound
  measured 2.49 ± 0.31 over seeds 0..9 (smallest 2.06), a miss rate below 1e-6 (at 1,000 runs
  the quarter scale measured 1.37 ± 0.17: too close to the claim for a quick check).

About 0.7–0.8 ms a run: 8,000 drafts a full test, 2,000 a quick one; every audit here is marked
slow (the fast suite keeps the exact privacy-loss checks of tests/privacy/test_bounds_exact.py).
"""

from __future__ import annotations

import numpy as np
import pytest

import dpconvex as dp
import dpconvex.privacy.mechanisms.bounds as range_mechanism
from dpconvex.audit import audit

EPSILON = 1.0
RUNS = 4000  # per table: 2000 select the event, 2000 give the bound
QUICK_RUNS = 1000


def _pair() -> tuple[np.ndarray, np.ndarray]:
    D = np.concatenate([np.full(200, 100.0), np.full(24, 1.0), np.full(21, 1000.0)])
    D_prime = D.copy()
    D_prime[200] = 1000.0
    return D, D_prime


def released_range(values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One private draft of the one-column table: its released (lo, hi)."""
    seed = int(rng.integers(2**63))
    schema = dp.draft_schema({"x": values}, epsilon=EPSILON, random_state=seed)
    return np.array(schema.numeric["x"], dtype=float)


def octaves_kept(out: np.ndarray) -> float:
    return float(out[0] > 1.5) + float(out[1] > 1000.0)


def _bound(confidence: float, runs: int = RUNS) -> float:
    D, D_prime = _pair()
    return audit(released_range, D, D_prime, n_runs=runs, confidence=confidence,
                 statistic=octaves_kept, random_state=0).epsilon_lower_bound


@pytest.mark.slow
@pytest.mark.parametrize("runs", [QUICK_RUNS, RUNS])
def test_the_audited_bound_of_a_released_range_does_not_exceed_epsilon(runs):
    assert 0.0 <= _bound(0.99, runs) <= EPSILON


@pytest.mark.slow
@pytest.mark.parametrize(("divisor", "runs"), [(8.0, QUICK_RUNS), (4.0, RUNS)])
def test_the_audit_flags_a_histogram_with_a_fraction_of_the_laplace_scale(monkeypatch, divisor, runs):
    real = range_mechanism.Laplace
    monkeypatch.setattr(range_mechanism, "Laplace", lambda scale: real(scale / divisor))
    assert _bound(0.95, runs) > EPSILON


@pytest.mark.slow
def test_a_longer_audit_of_the_released_range_stays_below_epsilon():
    D, D_prime = _pair()
    result = audit(released_range, D, D_prime, n_runs=10 * RUNS, confidence=0.99,
                   statistic=octaves_kept, random_state=1)
    assert 0.0 <= result.epsilon_lower_bound <= EPSILON
