"""ConstrainedSpace: the members of a parameter space, and projected gradient over its set.

Oracle for the solve: the same regularized logistic objective minimized by Clarabel over
the set's CVXPY form. Projected gradient stops at a natural residual of 1e-10, so its
point is feasible (the projection is exact) and its value may not exceed Clarabel's
beyond Clarabel's own gap (1e-8 by default, relative); the two points then agree to the
distance allowed by strong convexity, sqrt(2 · gap / μ) = sqrt(2e-8 / 0.1) < 1e-3.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest

from dpconvex.errors import ParameterError
from dpconvex.objectives import Box, L1Ball, L2Ball, NonNegative, Simplex
from dpconvex.solvers.projected_gradient import accelerated_projected_gradient
from dpconvex.solvers.registry import SolveStatus
from dpconvex.templates import ConstrainedSpace, EuclideanSpace, ParamSpace
from dpconvex.templates.base import PARAM_SPACE_MEMBERS, SolverSpace

LAM = 0.1


def test_the_space_has_the_members_of_a_solver_space():
    space = ConstrainedSpace((3, 2), NonNegative(indices=[0, 1]))
    assert isinstance(space, ParamSpace) and isinstance(space, SolverSpace)
    for member in (*PARAM_SPACE_MEMBERS, "project_noise"):
        assert hasattr(space, member), member
    euclid = EuclideanSpace((3, 2))
    assert (space.shape, space.dimension, space.symmetric) == (euclid.shape, euclid.dimension, False)
    assert repr(space) == "ConstrainedSpace((3, 2), NonNegative(indices=[0, 1]))"


def test_projection_and_postprocessing_are_the_sets_projection_noise_is_only_reshaped():
    space = ConstrainedSpace((2, 2), Box(-1.0, 1.0))
    theta = np.array([[3.0, -0.5], [-4.0, 0.25]])
    expected = np.clip(theta, -1.0, 1.0)
    np.testing.assert_array_equal(space.project(theta), expected)
    np.testing.assert_array_equal(space.postprocess(theta), expected)
    np.testing.assert_array_equal(space.project_noise(theta.ravel()), theta)


@pytest.mark.parametrize("make, message", [
    (lambda: ConstrainedSpace((3,), "l2"), "The 'convex_set' parameter of ConstrainedSpace must be"),
    (lambda: ConstrainedSpace((3,), L2Ball(1.0, indices=[3])),
     "ConstrainedSpace.__init__: the set constrains coordinate 3 of the flattened parameter"),
    (lambda: ConstrainedSpace((3,), Box(0.0, [1.0, 1.0])),
     "ConstrainedSpace.__init__: the set's per-coordinate bounds have 2 entries"),
])
def test_a_set_that_does_not_fit_is_refused(make, message):
    with pytest.raises(ParameterError) as err:
        make()
    assert str(err.value).startswith(message), str(err.value)


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    X = np.hstack([X / np.linalg.norm(X, axis=1, keepdims=True), np.ones((40, 1))])
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0.2, 1.0, -1.0)
    return X, y


def _fun_grad(X, y):
    def fun_grad(theta):
        margins = y * (X @ theta)
        value = float(np.mean(np.logaddexp(0.0, -margins))) + 0.5 * LAM * float(theta @ theta)
        weights = -y / (1.0 + np.exp(margins))
        return value, X.T @ weights / len(y) + LAM * theta
    return fun_grad


@pytest.mark.parametrize("convex_set", [
    L2Ball(0.3, indices=[0, 1, 2]),  # coefficients in a ball, the intercept free
    L1Ball(0.4),
    Box(-0.2, 0.2),
    Simplex(1.0, indices=[0, 1, 2]),
], ids=repr)
def test_projected_gradient_over_the_space_matches_cvxpy(convex_set):
    X, y = _data()
    space = ConstrainedSpace((4,), convex_set)
    fun_grad = _fun_grad(X, y)
    res = accelerated_projected_gradient(fun_grad, np.zeros(4), project=space.project, mu=LAM,
                                         L0=1.0, tol=1e-10)
    assert res.status == SolveStatus.OPTIMAL and convex_set.contains(res.x)

    theta = cp.Variable(4)
    objective = cp.sum(cp.logistic(-cp.multiply(y, X @ theta))) / len(y) \
        + 0.5 * LAM * cp.sum_squares(theta)
    problem = cp.Problem(cp.Minimize(objective), convex_set.cvxpy_constraints(theta))
    problem.solve(solver=cp.CLARABEL)
    assert problem.status == cp.OPTIMAL
    assert fun_grad(res.x)[0] <= problem.value + 1e-8 * (1.0 + abs(problem.value))
    np.testing.assert_allclose(res.x, theta.value, rtol=0, atol=1e-3)
    free = accelerated_projected_gradient(fun_grad, np.zeros(4), project=lambda v: v, mu=LAM,
                                          L0=1.0, tol=1e-10)
    assert not convex_set.contains(free.x, tol=1e-2)  # the constraint is active
