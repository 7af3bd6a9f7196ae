"""PrivateLinearRegression warns, before the noise is drawn, when the noise of
sufficient-statistics perturbation outweighs what n rows can carry (dpconvex.privacy.rules.noise_level,
docs/privacy/sufficient_statistics.md#privacy-noise-warning-ssp).

ρ_SSP = s_A √(p log(2p²/ρ)) / (n q̃²/p + λ_given) reads n, p, q̃, ε, δ, the given ridge and
the mechanism's calibration only. These tests check its closed form, that it reads no data
value, that the warning fires on both sides of its threshold as the ratio says (a tiny n or
ε against 20,000 rows at ε = 1), that it is raised before the statistics are computed, and
that its message carries no data statistic and says what the check cannot see.
All deterministic: ρ_SSP involves no sampling.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import dpconvex as dp
from dpconvex.errors import PrivacyWarning
from dpconvex.privacy.accounting.analytic_gaussian import analytic_gaussian_sigma
from dpconvex.privacy.mechanisms.ssp import FAILURE_PROBABILITY, joint_sensitivity
from dpconvex.privacy.rules.noise_level import (
    REGRESSION_CHECK_NOTE,
    SSP_NOISE_RATIO,
    estimator_noise_dominance,
)

LABELS = (-6.0, 10.0)


def _data(n, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * 0.4
    y = 2.0 + X @ np.arange(1.0, d + 1) + 0.3 * rng.normal(size=n)
    return X, y


def _reg(**kw):
    return dp.PrivateLinearRegression(**{"epsilon": 1.0, "label_range": LABELS,
                                         "random_state": 0, **kw})


def _noise_warnings(fit):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit()
    return [w for w in caught if issubclass(w.category, PrivacyWarning)
            and "noise is large" in str(w.message)]


def test_the_gaussian_closed_form():
    X, y = _data(500)
    rho = estimator_noise_dominance(_reg(delta=1e-6), X, y)[0]
    n, p, q2 = 500, 4, 2.0  # three columns and the intercept (S released); q~² = q² + s² = 2
    sigma_A = math.sqrt(2.0) * q2 * joint_sensitivity(("gram", "cross", "total"), "l2") \
        * analytic_gaussian_sigma(1.0, 1e-6, 1.0)
    bound = sigma_A * math.sqrt(p * math.log(2 * p * p / FAILURE_PROBABILITY))
    assert rho == pytest.approx(bound / (n * q2 / p), rel=1e-12)
    # a given ridge nΛ is curvature the solve has whatever the rows: it lowers the ratio
    given = estimator_noise_dominance(_reg(delta=1e-6, lam=0.1), X, y)[0]
    assert given == pytest.approx(bound / (n * q2 / p + n * 0.1), rel=1e-12)


def test_the_ratio_reads_only_public_quantities():
    X, y = _data(300)
    rho = estimator_noise_dominance(_reg(), X, y)[0]
    X2, y2 = _data(300, seed=7)
    assert estimator_noise_dominance(_reg(), X2, y2)[0] == rho  # other values, same shape
    assert estimator_noise_dominance(_reg(), X[:150], y[:150])[0] == pytest.approx(2 * rho)
    messages = [str(w.message) for data in ((X, y), (X2, y2))
                for w in _noise_warnings(lambda data=data: _reg(epsilon=0.2).fit(*data))]
    assert len(messages) == 2 and messages[0] == messages[1]  # no data statistic in it


@pytest.mark.parametrize("kw", [{"epsilon": 0.5}, {"epsilon": 0.5, "delta": 1e-6},
                                {"epsilon": 2.0}],
                         ids=["pure", "gaussian", "pure-eps-2"])
def test_fires_on_a_small_problem(kw):
    X, y = _data(60)
    assert estimator_noise_dominance(_reg(**kw), X, y)[0] > 2 * SSP_NOISE_RATIO
    found = _noise_warnings(lambda: _reg(**kw).fit(X, y))
    assert len(found) == 1
    assert found[0].filename == __file__  # points at the caller's line
    text = str(found[0].message)
    assert text.startswith("PrivateLinearRegression: at epsilon = ")
    assert "no better than a constant prediction" in text and "privacy-noise-warning-ssp" in text
    assert text.endswith(REGRESSION_CHECK_NOTE)


@pytest.mark.parametrize("kw", [{}, {"delta": 1e-6}, {"lam": 0.01}], ids=["pure", "gaussian", "given"])
def test_silent_on_a_large_problem(kw):
    X, y = _data(20_000)
    assert estimator_noise_dominance(_reg(**kw), X, y)[0] < SSP_NOISE_RATIO / 2
    assert _noise_warnings(lambda: _reg(**kw).fit(X, y)) == []


def test_the_threshold_is_where_the_ratio_crosses_it():
    X, y = _data(4000)
    epsilons = np.geomspace(0.05, 20, 25)
    ratios = [estimator_noise_dominance(_reg(epsilon=e), X, y)[0] for e in epsilons]
    warned = [bool(_noise_warnings(lambda e=e: _reg(epsilon=e).fit(X, y))) for e in epsilons]
    assert warned == [r > SSP_NOISE_RATIO for r in ratios]
    assert any(warned) and not all(warned)  # both sides in the range


def test_raised_before_the_statistics_are_read(monkeypatch):
    import dpconvex.estimators.ssp as ssp_module

    class Read(Exception):
        """Not a solver's exception: it passes through the release unchanged."""

    def refuse(*args, **kwargs):
        raise Read("the statistics were read")

    monkeypatch.setattr(ssp_module, "sufficient_statistics", refuse)
    X, y = _data(60)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(Read, match="statistics were read"):
            _reg(epsilon=0.5).fit(X, y)
    assert any("noise is large" in str(w.message) for w in caught)


def test_no_warning_for_the_non_private_baseline():
    X, y = _data(60)
    assert estimator_noise_dominance(_reg(mechanism="none"), X, y)[0] is None
    assert _noise_warnings(lambda: _reg(mechanism="none").fit(X, y)) == []
