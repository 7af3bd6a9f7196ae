"""Noise-multiplier calibration of Gaussian compositions at the edges of the PLD grid."""

import numpy as np
import pytest

from dpconvex import NoisyGradientDescent
from dpconvex.privacy.accounting.gaussian import calibrate_noise_multiplier, gdp_epsilon


@pytest.mark.parametrize("delta", [1e-5, 1.0 / 90_000])
def test_pld_calibration_where_the_accountant_reports_zero(delta):
    # At epsilon = 1e-5 (below the PLD discretization 1e-4) the PLD accountant's epsilon drops
    # from about 2.4e-5 to exactly 0 within the search bracket; the calibration still returns
    # a sound multiplier, no tighter than the exact curve allows and no looser than RDP's.
    eps, steps = 1e-5, 20
    z, e = calibrate_noise_multiplier(eps, delta, steps, "pld")
    z_rdp, _ = calibrate_noise_multiplier(eps, delta, steps, "rdp")
    assert 0.0 <= e <= eps
    assert gdp_epsilon(z, steps, delta) <= eps
    assert z <= z_rdp


def test_noisy_gd_fits_at_a_tiny_epsilon_with_pld():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3)) * 0.4
    y = np.where(rng.random(300) < 0.5, "a", "b")
    est = NoisyGradientDescent(epsilon=1e-5, classes=["a", "b"], random_state=0).fit(X, y)
    assert est.certificate_.epsilon <= 1e-5
