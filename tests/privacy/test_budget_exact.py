"""What the budget splits and the perturbation calibrations guarantee in exact arithmetic
(docs/privacy/perturbation.md#privacy-objective-perturbation).

In floating point, the parts of a split add up to at most the whole (``remaining``,
``split_even``, ``split_budget``; slack + ε′ of objective perturbation). Their exact sum
(``fractions.Fraction`` of the floats) can exceed the whole, by at most half an ulp of it:
a sum that rounds to at most ε is at most ε + ulp(ε)/2. The calibrations' ε, recomputed in
50 digits from the floats they return (the noise rate β, Δ, the slack's log taken exactly),
exceeds the request by at most 4 ulps of it. Fixed seeds; every case is checked, none is
drawn at random at test time.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest

from dpconvex.privacy.budget import Budget, remaining, split_budget, split_even
from dpconvex.privacy.mechanisms import (
    calibrate_objective_perturbation,
    calibrate_output_perturbation,
)
from dpconvex.templates.base import PrivacyConstants

CASES = 2000


def _over(exact: Fraction, total: float) -> Fraction:
    """How far an exact sum is above ``total``, in ulps of ``total``."""
    return (exact - Fraction(total)) / Fraction(math.ulp(total))


def test_splits_hold_in_floating_point_and_within_half_an_ulp_exactly():
    rnd = random.Random(5)
    worst = Fraction(-1)
    for _ in range(CASES):
        eps = 10 ** rnd.uniform(-4, 1.5)
        spent = eps * rnd.random()
        x = remaining(eps, spent)
        assert spent + x <= eps
        k = rnd.randint(1, 50)
        part = split_even(eps, k)
        assert k * part <= eps
        fractions = [rnd.random() + 0.01 for _ in range(rnd.randint(2, 5))]
        parts = split_budget(Budget(eps, 1e-6), [f / sum(fractions) for f in fractions])
        assert math.fsum(p.epsilon for p in parts) <= eps
        for exact in (Fraction(spent) + Fraction(x), k * Fraction(part),
                      sum(Fraction(p.epsilon) for p in parts)):
            worst = max(worst, _over(exact, eps))
    assert worst <= Fraction(1, 2)
    assert worst > 0  # the exact sums do exceed ε: the float sum is what the splits bound


def test_calibrations_exceed_epsilon_by_at_most_four_ulps_exactly():
    mp = pytest.importorskip("mpmath")  # installed with dp-accounting, which requires it
    mp.mp.dps = 50
    rnd = random.Random(7)
    for _ in range(CASES // 4):
        eps, n = 10 ** rnd.uniform(-4, 1.7), rnd.choice([2, 10, 1000, 30162, 10**7])
        lam, c = 10 ** rnd.uniform(-8, 3), 10 ** rnd.uniform(-3, 1)
        q, r = 10 ** rnd.uniform(-2, 3), rnd.randint(1, 20)
        consts = PrivacyConstants(q, r, c * q * q, lam, 3)
        limit = mp.mpf(eps) + 4 * mp.mpf(math.ulp(eps))  # 4 ulps of eps (perturbation.md)
        G, T = mp.mpf(consts.grad_bound), r * mp.mpf(consts.hessian_term_bound)
        out = calibrate_output_perturbation(eps, n, consts)
        assert mp.mpf(out.noise_rate) * 2 * G / (n * mp.mpf(lam)) <= limit
        cal = calibrate_objective_perturbation(eps, n, consts)
        mu = mp.mpf(lam) + mp.mpf(cal.extra_strong_convexity)
        slack = r * mp.log1p(T / (r * n * mu))
        assert 2 * G * mp.mpf(cal.noise_rate) + slack <= limit
