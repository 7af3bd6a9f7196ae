"""A set stated in CVXPY, compiled once to SCS's cone program: projections and quadratic models."""

from __future__ import annotations

import pickle

import cvxpy as cp
import numpy as np
import pytest

from dpconvex.objectives import CVXPYSet
from dpconvex.objectives.sets import PROJECTION_TOL, CompiledSetQP


def _orthant_and_budget(x):
    """Π onto {w >= 0, sum(w[:10]) <= 1} in R^20: the orthant on w[10:], and on w[:10] the
    clipped point, or the simplex projection (Duchi et al. 2008) when it sums above 1."""
    v = np.maximum(x, 0.0)
    if v[:10].sum() > 1.0:
        u = np.sort(x[:10])[::-1]
        css = np.cumsum(u) - 1.0
        k = np.nonzero(u - css / np.arange(1, 11) > 0)[0][-1]
        v[:10] = np.maximum(x[:10] - css[k] / (k + 1), 0.0)
    return v


def _ball_and_half_space(x):
    """Π onto {||w|| <= 3, w[0] >= w[1]}: a half-space through the ball's centre is a cone
    with apex there, so Π = Π_ball ∘ Π_half-space."""
    v = x.copy()
    if v[0] < v[1]:
        v[0] = v[1] = 0.5 * (x[0] + x[1])
    norm = np.linalg.norm(v)
    return v if norm <= 3.0 else v * (3.0 / norm)


@pytest.mark.parametrize("constraints,closed_form", [
    (lambda w: [w >= 0, cp.sum(w[:10]) <= 1], _orthant_and_budget),
    (lambda w: [cp.norm(w) <= 3, w[0] - w[1] >= 0], _ball_and_half_space),
], ids=["orthant and budget", "ball and half-space"])
def test_the_projection_is_within_the_counted_error_of_the_closed_form(constraints, closed_form):
    # 30 points at each of three scales (inside, near and far outside the sets), projected
    # one after another on one SCS workspace: each within PROJECTION_TOL = 1e-9,
    # the error the accuracy check counts (measured: at most ~1e-10)
    w = cp.Variable(20)
    s = CVXPYSet(constraints(w), w)
    rng = np.random.default_rng(7)
    worst = 0.0
    for scale in (0.3, 1.0, 3.0):
        for _ in range(30):
            x = rng.normal(size=20) * scale
            worst = max(worst, float(np.linalg.norm(s.project(x) - closed_form(x))))
    assert worst <= PROJECTION_TOL, worst


def test_a_matrix_variable_is_read_row_major():
    # CVXPY stacks a matrix variable column-major: the compiled program maps it back
    W = cp.Variable((2, 3))
    qp = CompiledSetQP([W[0, 2] >= 1.0, W[1, 0] <= -1.0], W)
    got = qp.project(np.zeros(6))
    expected = np.zeros(6)
    expected[2], expected[3] = 1.0, -1.0  # row-major: (0, 2) -> 2, (1, 0) -> 3
    np.testing.assert_allclose(got, expected, atol=1e-9)


def test_the_quadratic_model_matches_clarabel_on_the_whole_problem():
    rng = np.random.default_rng(2)
    M = rng.normal(size=(5, 5))
    H = M @ M.T + 0.5 * np.eye(5)
    g = rng.normal(size=5) * 3
    w = cp.Variable(5)
    constraints = [cp.norm(w, 2) <= 1, w[0] + w[3] >= 0.2]
    got = CompiledSetQP(constraints, w).minimize(H, g)
    problem = cp.Problem(cp.Minimize(g @ w + 0.5 * cp.quad_form(w, H)), constraints)
    problem.solve(solver=cp.CLARABEL)
    # Clarabel (interior point, default tolerances) places an active cone's point about the
    # square root of its gap (~1e-4 at 1e-8) off the face: compared at 1e-4
    np.testing.assert_allclose(got, w.value, atol=1e-4)
    assert np.linalg.norm(got) <= 1 + 1e-9 and got[0] + got[3] >= 0.2 - 1e-9


def test_a_set_pickles_after_a_projection_and_projects_again():
    w = cp.Variable(3)
    s = CVXPYSet([w >= 0, cp.sum(w) <= 1], w)
    x = np.array([0.9, 0.8, -1.0])
    first = s.project(x)
    again = pickle.loads(pickle.dumps(s)).project(x)
    np.testing.assert_allclose(again, first, atol=1e-9)
    np.testing.assert_allclose(first, [0.55, 0.45, 0.0], atol=1e-9)


def test_after_a_reset_a_projection_reads_nothing_of_the_earlier_ones():
    # SCS's workspace keeps state between solves: a solve over the set resets it first, so
    # the projections of one release never depend on another's points (equal to the bit)
    w = cp.Variable(20)
    constraints = [w >= 0, cp.sum(w[:10]) <= 1]
    rng = np.random.default_rng(4)
    points = rng.normal(size=(3, 20))
    first, second = CVXPYSet(constraints, w), CVXPYSet(constraints, w)
    first.project(points[1])
    second.project(5 * points[2])
    first.reset_projection()
    second.reset_projection()
    assert np.array_equal(first.project(points[0]), second.project(points[0]))
