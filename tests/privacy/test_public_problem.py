"""The public problem a linear plan calibrates on is the one its template states.

A linear learner's plan states, before any rows are read, the loss the template states, the
row bound q~, Λ and (n, p): the public problem the Λ rule calibrates on
(``grid_calibration``). The template built from the rows must state the same constants, so
that the rule's calibration at the plan's Λ is the one the release makes from the template.
"""

from __future__ import annotations

import numpy as np
import pytest

import dpconvex as dp
from dpconvex.templates.linear_erm import LinearERMTemplate

#: One learner per mechanism of the linear models (the pure and Gaussian objective, output),
#: Λ by its rule and given, a classifier and a regressor.
LEARNERS = {
    "logistic-auto": lambda: dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1]),
    "huber-gaussian": lambda: dp.PrivateHuberSVM(epsilon=1.0, delta=1e-5,
                                                 mechanism="gaussian_objective", classes=[0, 1]),
    "linear-output": lambda: dp.PrivateLinearClassifier(epsilon=1.0, mechanism="output",
                                                        lam=0.1, classes=[0, 1]),
    "regressor": lambda: dp.PrivateLinearRegressor(epsilon=1.0, label_range=(-1.0, 1.0),
                                                   label_center=0.0),
}

CONSTANTS = ("grad_bound", "hessian_rank", "hessian_term_bound", "strong_convexity",
             "dimension", "hessian_trace_bound")


def _data(n: int = 120, d: int = 4, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    return X, (X[:, 0] > 0).astype(int)


@pytest.mark.parametrize("name", LEARNERS)
def test_the_plans_public_problem_is_the_templates(name, monkeypatch):
    """The Λ rule's own calibration on its grid (here the one modulus plan.lam) states the
    constants and the calibration the release makes from the template (the same formulas on
    the same public numbers; the relative tolerance 1e-12 allows only for the order of float
    operations)."""
    from dpconvex.privacy.rules import noise_level

    est = LEARNERS[name]()
    X, y = _data()
    if name == "regressor":
        y = X[:, 0] / 2.0
    plan = est.plan_for(X, y)
    template = est.prepare(X, y, plan).template
    p = X.shape[1] + int(est.fit_intercept)
    monkeypatch.setattr(noise_level, "LAM_GRID", np.array([plan.lam]))
    planned = noise_level.grid_calibration(plan.mechanism, plan.n, plan.budget,
                                           plan.options["norm bound q~"], p, plan.loss)
    released = plan.mechanism.calibrate(template, plan.budget)
    stated = template.privacy_constants()
    for field in CONSTANTS:
        np.testing.assert_allclose(getattr(planned.constants, field), getattr(stated, field),
                                   rtol=1e-12, err_msg=field)
    assert planned.constants.n == template.n
    for field in ("epsilon", "epsilon_noise", "slack", "extra_strong_convexity", "sensitivity",
                  "delta", "coordinate_scale", "expected_norm"):
        np.testing.assert_allclose(getattr(planned, field), getattr(released, field),
                                   rtol=1e-12, err_msg=field)


@pytest.mark.parametrize("mechanism", ["objective", "output", "amp", "gaussian_objective"])
def test_a_public_problem_without_n_is_refused_by_name(mechanism):
    """A calibration reads n: a public problem that does not state it is refused with the
    ParameterError that says how to state it, on one modulus and on a grid."""
    from dpconvex.errors import ParameterError
    from dpconvex.objectives.losses import Logistic
    from dpconvex.privacy.mechanisms import get_mechanism

    problem = LinearERMTemplate.constants_for(Logistic(), 1.0, 0.1, 3)
    assert problem.n is None
    mech, budget = get_mechanism(mechanism), dp.Budget(1.0, 1e-5)
    with pytest.raises(ParameterError, match="a public problem needs n"):
        mech.calibrate(problem, budget)
    with pytest.raises(ParameterError, match="a public problem needs n"):
        mech.calibrate_grid(problem, budget, np.array([0.1, 1.0]))


def test_noisy_gd_refuses_a_public_problem_by_name():
    """Noisy gradient descent calibrates on a template; a public problem's constants are
    refused with a named error, not an AttributeError."""
    from dpconvex.privacy.mechanisms.base import get_mechanism
    from dpconvex.templates.base import PrivacyConstants

    problem = PrivacyConstants(1.0, 1, 0.25, 0.01, 10, n=1000)
    with pytest.raises(dp.errors.ParameterError, match="calibrates on a template"):
        get_mechanism("noisy_gd").calibrate(problem, dp.Budget(1.0, 1e-6))
