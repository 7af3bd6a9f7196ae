"""Calibration of output and objective perturbation against CMS's formulas
(docs/privacy/perturbation.md#privacy-perturbation)."""

import math

import numpy as np
import pytest
from _helpers import patch_noise
from hypothesis import given, settings
from hypothesis import strategies as st

import dpconvex as dp
from dpconvex.privacy.mechanisms import (
    calibrate_objective_perturbation,
    calibrate_output_perturbation,
)
from dpconvex.privacy.mechanisms.base import OUTPUT_SOLVE_MARGIN
from dpconvex.templates.base import PrivacyConstants


def _consts(c, q, lam, p=5):
    return PrivacyConstants(grad_bound=q, hessian_rank=1, hessian_term_bound=c * q**2,
                            strong_convexity=lam, dimension=p)


def cms_slack(c, q, n, lam):
    """CMS Alg. 2 with a norm bound q: log(1 + 2cq^2/(nΛ) + c^2 q^4/(n^2 Λ^2))."""
    a = c * q**2 / (n * lam)
    return math.log(1 + 2 * a + a * a)


def one_sided_slack(c, q, n, lam):
    """The one-sided slack of docs/privacy/perturbation.md#privacy-jacobian-slack: log(1 + cq^2/(nΛ))."""
    return math.log1p(c * q**2 / (n * lam))


@pytest.mark.parametrize("c", [0.25, 1.0, 1.5])
@pytest.mark.parametrize("q", [0.5, 1.0, 32.0])
def test_objective_slack_matches_cms(c, q):
    # default: the one-sided slack, half of CMS's; slack="two_sided" is CMS's constant
    n, lam, eps = 10**7, 1e-2, 2.0
    two = calibrate_objective_perturbation(eps, n, _consts(c, q, lam), slack="two_sided")
    assert two.slack == pytest.approx(cms_slack(c, q, n, lam), rel=1e-12)
    cal = calibrate_objective_perturbation(eps, n, _consts(c, q, lam))
    assert cal.slack == pytest.approx(one_sided_slack(c, q, n, lam), rel=1e-12)
    assert cal.slack == pytest.approx(cms_slack(c, q, n, lam) / 2, rel=1e-12)
    assert cal.extra_strong_convexity == 0
    assert cal.epsilon_noise == pytest.approx(eps - cal.slack)
    assert cal.noise_rate == pytest.approx(cal.epsilon_noise / (2 * q))
    assert cal.epsilon <= eps


def test_delta_branch_when_slack_exceeds_half_epsilon():
    """dpconvex enters the Δ branch as soon as slack > ε/2 (CMS: slack >= ε), so ε' >= ε/2."""
    c, q, lam, eps = 0.25, 1.0, 1e-3, 2.0
    n = 60  # slack(Λ) = log(1 + 4.17) = 1.64: in (ε/2, ε), where CMS would leave ε' = 0.36
    s = one_sided_slack(c, q, n, lam)
    assert eps / 2 < s < eps
    cal = calibrate_objective_perturbation(eps, n, _consts(c, q, lam))
    assert cal.extra_strong_convexity > 0
    assert cal.epsilon_noise == eps / 2 and cal.slack <= eps / 2
    # just below the switch, no Δ
    cal2 = calibrate_objective_perturbation(2 * s + 1e-9, n, _consts(c, q, lam))
    assert cal2.extra_strong_convexity == 0 and cal2.epsilon_noise >= cal2.epsilon / 2


def test_delta_branch_matches_cms():
    c, q, n, lam, eps = 0.25, 1.0, 100, 1e-3, 0.1
    assert eps - one_sided_slack(c, q, n, lam) <= 0
    # two-sided: CMS's Δ = cq²/(n(e^{ε/4} − 1)) − Λ
    two = calibrate_objective_perturbation(eps, n, _consts(c, q, lam), slack="two_sided")
    delta_cms = c * q**2 / (n * (math.exp(eps / 4) - 1)) - lam
    assert two.extra_strong_convexity == pytest.approx(delta_cms, rel=1e-9)
    # one-sided (privacy-jacobian-slack): log(1 + cq²/(nμ')) = ε/2, Δ = cq²/(n(e^{ε/2} − 1)) − Λ
    cal = calibrate_objective_perturbation(eps, n, _consts(c, q, lam))
    delta_one = c * q**2 / (n * (math.exp(eps / 2) - 1)) - lam
    assert cal.extra_strong_convexity == pytest.approx(delta_one, rel=1e-9)
    assert cal.epsilon_noise == eps / 2
    assert cal.slack == pytest.approx(eps / 2, rel=1e-9)
    assert cal.slack <= eps / 2
    assert cal.epsilon <= eps


def test_output_perturbation_rate_matches_cms():
    """CMS Alg. 1's 2G/(nΛ) for the exact minimizer, times (1 + κ) for the solved point
    (docs/privacy/perturbation.md#privacy-output-perturbation)."""
    n, lam, eps, q = 1000, 0.1, 0.5, 3.0
    kappa = OUTPUT_SOLVE_MARGIN
    cal = calibrate_output_perturbation(eps, n, _consts(0.25, q, lam))
    assert cal.sensitivity == pytest.approx(2 * q * (1 + kappa) / (n * lam), rel=1e-12)
    assert cal.noise_rate == pytest.approx(n * lam * eps / (2 * q * (1 + kappa)), rel=1e-12)
    exact = calibrate_output_perturbation(eps, n, _consts(0.25, q, lam), margin=0.0)
    assert exact.sensitivity == pytest.approx(2 * q / (n * lam), rel=1e-12)


@settings(max_examples=300, deadline=None)
@given(
    eps=st.floats(1e-4, 50),
    n=st.integers(2, 10**8),
    lam=st.floats(1e-8, 1e3),
    c=st.floats(1e-3, 10),
    q=st.floats(1e-2, 1e3),
    r=st.integers(1, 200),
)
def test_total_epsilon_never_exceeds_request(eps, n, lam, c, q, r):
    consts = PrivacyConstants(q, r, c * q * q, lam, 3)
    cal = calibrate_objective_perturbation(eps, n, consts)
    assert cal.epsilon_noise > 0 and cal.noise_rate > 0
    assert cal.slack + cal.epsilon_noise <= eps
    assert cal.epsilon <= eps


def test_estimator_with_q32_uses_q_squared(monkeypatch):
    """With data_norm = 32 the slack must use q^2 (it would be far smaller with q)."""
    rng = np.random.default_rng(0)
    n, d, q, lam, eps = 20000, 3, 32.0, 10.0, 1.0
    X = rng.normal(size=(n, d)) * 10
    y = (X[:, 0] > 0).astype(int)
    m = dp.PrivateLogisticRegression(epsilon=eps, lam=lam, data_norm=q, fit_intercept=False,
                                     random_state=0).fit(X, y)
    slack = m.certificate_.quantities["jacobian slack"]
    assert slack == pytest.approx(one_sided_slack(0.25, q, n, lam), rel=1e-12)
    assert slack != pytest.approx(one_sided_slack(0.25, math.sqrt(q), n, lam), rel=1e-3)  # "c q"
    assert m.certificate_.quantities["noise rate beta"] == pytest.approx((eps - slack) / (2 * q))
    assert m.certificate_.epsilon <= eps


def test_intercept_enters_norm_bound():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]] * 5)
    y = np.array([1, 1, 0, 0] * 5)
    m = dp.PrivateLogisticRegression(epsilon=1.0, data_norm=1.0, random_state=0,
                                     intercept_scaling=1.0).fit(X, y)  # s = 1: q̃ = sqrt(2)
    assert m.certificate_.quantities["per-record gradient bound G"] == pytest.approx(math.sqrt(2))


def test_mechanism_draws_with_calibrated_rate(monkeypatch):
    """A release passes the verifier's rate and shape to the sampler."""
    seen = {}

    def spy(shape, beta, rng, symmetric=False):
        seen["shape"], seen["beta"] = shape, beta
        return real(shape, beta, rng, symmetric=symmetric)

    real = patch_noise(monkeypatch, spy)
    rng = np.random.default_rng(1)
    X = rng.normal(size=(500, 4)) / 3
    y = rng.integers(0, 2, 500)
    for mech in ("objective", "output"):
        m = dp.PrivateHuberSVM(epsilon=0.7, lam=0.05, mechanism=mech, random_state=0,
                               intercept_scaling=1.0).fit(X, y)
        assert seen["shape"] == (5,)
        assert seen["beta"] == m.certificate_.quantities["noise rate beta"]
    # output perturbation: beta = n Λ ε / (2 q (1 + κ)), q = sqrt(2) with the intercept
    assert seen["beta"] == pytest.approx(
        500 * 0.05 * 0.7 / (2 * math.sqrt(2) * (1 + OUTPUT_SOLVE_MARGIN)), rel=1e-12)
