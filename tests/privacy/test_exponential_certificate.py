"""The exponential mechanism's certificate states the law its release samples
(docs/privacy/tuning_gd_ledger.md#privacy-private-tuning): index i with probability
proportional to exp(ε u_i / (2 Δu)), with the Δu of the template, here Δu = 2."""

from __future__ import annotations

import numpy as np

from dpconvex import Budget, release
from dpconvex.privacy.mechanisms import get_mechanism
from dpconvex.privacy.mechanisms.scalar import SelectionTemplate


class _Recording(np.random.Generator):
    """A generator that keeps the probabilities its ``choice`` was asked to sample from."""

    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True):
        self.p = np.asarray(p, dtype=float)
        return super().choice(a, size=size, replace=replace, p=p, axis=axis, shuffle=shuffle)


def test_certificate_states_the_sampled_law_with_its_utility_sensitivity(monkeypatch):
    from dpconvex.privacy import noise

    # the recorder is a subclass of Generator, which check_random_state refuses: taken as is
    monkeypatch.setattr(noise, "check_random_state", lambda random_state, caller: random_state)
    utilities, sensitivity, epsilon = np.array([0.0, -4.0, -1.5]), 2.0, 1.0
    template, budget = SelectionTemplate(utilities, sensitivity, n=100), Budget(epsilon)
    quantities = release(template, "exponential", budget, rng=0,
                         vouch=("sensitivity",)).certificate.quantities
    mechanism, rng = get_mechanism("exponential"), _Recording(np.random.PCG64(0))
    mechanism.run(template, mechanism.calibrate(template, budget), None, rng)  # what it samples
    rate = quantities["selection rate epsilon/(2 Delta_u)"]
    assert quantities["utility sensitivity"] == sensitivity
    assert f"exp({rate:.6g} * u_i)" in quantities["selection probability"]
    stated = np.exp(rate * utilities) / np.exp(rate * utilities).sum()
    # the same few IEEE operations on three numbers: a relative 1e-12 is rounding alone;
    # the law of Δu = 1 (rate ε/2) differs from this one by more than 0.1 in probability
    np.testing.assert_allclose(rng.p, stated, rtol=1e-12)
    assert not np.allclose(rng.p, np.exp(epsilon / 2 * utilities)
                           / np.exp(epsilon / 2 * utilities).sum(), atol=0.1)
