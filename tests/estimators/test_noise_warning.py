"""The large-margin estimator warns, before solving, when the public noise scale makes a
useful model unlikely (dpconvex.privacy.rules.noise_level, families large_margin and softmax).

The ratio E‖b‖/(nG) is computed from public constants only: these tests check its value
against the closed form 2p/(ε′n) of norm-Gamma noise, and that the warning fires exactly
on the side of the threshold the ratio is on (the scikit-learn wine set at ε = 1: ratio
about 10, a model no better than the majority class; at ε = 10: about 0.58, clearly better).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dpconvex as dp
from dpconvex.datasets import load_sklearn
from dpconvex.errors import PrivacyWarning
from dpconvex.estimators.large_margin.learners import noise_family, objective_part
from dpconvex.privacy.rules.noise_level import (
    LARGE_MARGIN_NOISE_RATIO,
    SOFTMAX_NOISE_RATIO,
    noise_ratio,
)


@pytest.fixture(scope="module")
def wine():
    X, y = load_sklearn("wine")
    rng = np.random.default_rng(0)
    idx = rng.permutation(len(y))[:124]
    return X[idx], y[idx]


def _ratio(est, X, y):
    plan = est.plan_for(X, y)
    prep = est.prepare(X, y, plan)
    budget = objective_part(plan)
    family = noise_family(prep.template)
    return noise_ratio(family, prep.template, plan.mechanism, budget), prep, budget


#: The paper's pairwise template (threshold 1) and the default softmax one (threshold 0.5).
PAIRWISE = {"loss": "pairwise", "lam": 2e-2}


#: The default softmax template, kept on the objective path (the "auto" switch would release
#: class centroids at wine's small n·ε/(C(d + 1));
#: docs/privacy/large_margin_softmax.md#privacy-centroid-switch).
SOFTMAX = {"mechanism": "objective"}


@pytest.mark.parametrize("kw", [PAIRWISE, SOFTMAX])
def test_ratio_is_the_closed_form_of_norm_gamma_noise(wine, kw):
    X, y = wine
    est = dp.PrivateLargeMarginGaussian(epsilon=1.0, random_state=0, **kw)
    ratio, prep, budget = _ratio(est, X, y)
    from dpconvex.privacy.mechanisms.base import calibrate_objective_perturbation

    consts = prep.template.privacy_constants()
    cal = calibrate_objective_perturbation(budget.epsilon, prep.template.n, consts)
    expected = consts.dimension * 2.0 * consts.grad_bound / cal.epsilon_noise
    assert ratio == pytest.approx(expected / (prep.template.n * consts.grad_bound), rel=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("kw, threshold", [(PAIRWISE, LARGE_MARGIN_NOISE_RATIO),
                                           (SOFTMAX, SOFTMAX_NOISE_RATIO)])
@pytest.mark.parametrize("epsilon, warns", [(1.0, True), (10.0, False)])
def test_warning_fires_on_the_right_side(wine, epsilon, warns, kw, threshold):
    """Pairwise: ratio about 10 at ε = 1, 0.58 at ε = 10; softmax default: 0.70 and 0.07."""
    X, y = wine
    est = dp.PrivateLargeMarginGaussian(epsilon=epsilon, random_state=0, **kw)
    ratio, _, _ = _ratio(est, X, y)
    assert (ratio > threshold) is warns
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X, y)
    msgs = [str(w.message) for w in caught if issubclass(w.category, PrivacyWarning)
            and "noise is large" in str(w.message)]
    assert bool(msgs) is warns
    if warns:
        assert "PrivateGaussianCentroid" in msgs[0] and "delta > 0" in msgs[0]


def test_no_warning_for_the_non_private_baseline(wine):
    X, y = wine
    est = dp.PrivateLargeMarginGaussian(mechanism="none")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X, y)
    assert not [w for w in caught if "noise is large" in str(w.message)]
