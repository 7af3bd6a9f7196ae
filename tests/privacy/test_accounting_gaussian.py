"""Noise-multiplier calibration of Gaussian compositions at the edges: of the PLD grid, and of the
exact curve's float64 range (tiny ε)."""

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


@pytest.mark.parametrize(("epsilon", "delta", "steps"), [
    (1.14e-6, 3.3e-15, 1000), (1e-12, 1e-10, 100), (1.076e-12, 1e-6, 10), (1e-30, 1e-15, 10), (1.0, 1e-5, 50),
    (5.598924838514485e-07, 8.696212992896334e-14, 42), (7.388878155870672e-08, 1.7209802233633273e-08, 8),
    (1e-27, 1e-30, 10),
])
def test_the_exact_curve_gives_a_feasible_multiplier_at_tiny_epsilon(epsilon, delta, steps):
    """accounting="gdp": the μ-GDP curve δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) at μ = sqrt(T)/z, in
    50 digits (mpmath), is at most δ, and the certificate's ε is the requested one. Below ε ≈ 1e-4
    the curve's two terms cancel in float64 (its float64 root alone gave a true δ up to 7 % above δ)."""
    mpmath = pytest.importorskip("mpmath")  # installed with dp-accounting, which requires it
    mpmath.mp.dps = 50
    z, achieved = calibrate_noise_multiplier(epsilon, delta, steps, "gdp")
    mu, eps = mpmath.sqrt(steps) / mpmath.mpf(z), mpmath.mpf(epsilon)
    exact = mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)
    assert exact <= delta and achieved == epsilon
    assert exact >= delta * (1 - 1e-3)  # and tight: not far below δ
