"""Convex sets: projections against CVXPY, projection properties, recognize, messages.

Oracle: the projection of θ onto S is the minimizer of ||x − θ||² over S, solved by
Clarabel on the set's own CVXPY form (``cvxpy_constraints``), with gap and feasibility
tolerances of 1e-10 (1e-12 is beyond what its second-order-cone steps reach: "inaccurate").
The objective is 2-strongly convex, so a point within g of the optimal value lies within
sqrt(g) of the minimizer: a guaranteed 1e-5 at these tolerances. The interior-point
iterates land far closer than that worst case (1e-8 on these points, measured at the seeds
below); ``CVXPY_ATOL`` = 1e-6 keeps two orders of margin over that and is still four orders
below the distance between a correct and a wrong projection here (at least 1e-2).
"""

from __future__ import annotations

from collections.abc import Callable

import cvxpy as cp
import numpy as np
import pytest
import scipy.sparse as sp

from dpconvex.errors import ParameterError
from dpconvex.objectives import (
    Box,
    ConvexSet,
    Intersection,
    L1Ball,
    L2Ball,
    NonNegative,
    Simplex,
    recognize,
)

#: Distance between our projection and Clarabel's (module docstring).
CVXPY_ATOL = 1e-6
CLARABEL = {"solver": cp.CLARABEL, "tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10}

SHAPES = [(5,), (3, 2)]  # a vector, and a (d, C) matrix read row-major


def _sets(p: int) -> dict[str, ConvexSet]:
    """Every kind of set on a parameter of p >= 5 coordinates."""
    rng = np.random.default_rng(p)
    head = list(range(p - 1))
    lower = np.where(np.arange(p) % 2, -np.inf, -0.2)
    return {
        "l2": L2Ball(0.7),
        "l2_center": L2Ball(0.5, center=rng.normal(size=p)),
        "l2_indices": L2Ball(0.4, indices=[0, 2, 4]),
        "box": Box(-0.3, 0.4),
        "box_arrays": Box(lower, np.linspace(0.1, 0.5, p)),
        "box_fixed": Box([0.0, 1.0], [0.0, 2.0], indices=[1, 3]),
        "nonneg": NonNegative(),
        "nonneg_indices": NonNegative(indices=head),
        "l1": L1Ball(0.8),
        "l1_indices": L1Ball(0.5, indices=[4, 1, 3]),
        "simplex": Simplex(),
        "simplex_indices": Simplex(2.5, indices=[0, 1, 2]),
        "ball_and_box": Intersection(L2Ball(1.0, indices=head), Box(-0.1, 0.1, indices=[p - 1])),
        "box_and_orthant": Intersection(Box(-1.0, 1.0), NonNegative()),
    }


NAMES = list(_sets(5))


def _cvxpy_projector(s: ConvexSet, shape: tuple[int, ...]) -> Callable[[np.ndarray], np.ndarray]:
    """theta -> the minimizer of ||x - theta||² over ``s``: one problem per set and shape, with
    theta a ``cp.Parameter`` (the same problem Clarabel receives for a constant theta)."""
    x, point = cp.Variable(shape), cp.Parameter(shape)
    problem = cp.Problem(cp.Minimize(cp.sum_squares(x - point)), s.cvxpy_constraints(x))

    def project(theta: np.ndarray) -> np.ndarray:
        point.value = theta
        problem.solve(**CLARABEL)
        assert problem.status == cp.OPTIMAL
        return np.asarray(x.value)

    return project


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name", NAMES)
def test_projection_is_the_cvxpy_minimizer(name, shape):
    s = _sets(int(np.prod(shape)))[name]
    rng = np.random.default_rng([NAMES.index(name), len(shape)])
    cvxpy_projection = _cvxpy_projector(s, shape)
    for scale in (0.05, 0.3, 3.0):  # mostly inside (balls, boxes) to far outside
        theta = scale * rng.normal(size=shape)
        got = s.project(theta)
        assert got.shape == shape
        np.testing.assert_allclose(got, cvxpy_projection(theta), rtol=0, atol=CVXPY_ATOL)


@pytest.mark.parametrize("name", NAMES)
def test_projection_is_idempotent_non_expansive_and_lands_in_the_set(name):
    for shape in SHAPES:
        s = _sets(int(np.prod(shape)))[name]
        for seed in range(25):
            rng = np.random.default_rng(seed)
            x, y = (rng.normal(size=shape) * rng.choice([0.1, 1.0, 10.0]) for _ in range(2))
            px, py = s.project(x), s.project(y)
            assert s.contains(px) and s.contains(py)
            np.testing.assert_allclose(s.project(px), px, rtol=0, atol=1e-12 * (1 + np.abs(x).max()))
            assert np.linalg.norm(px - py) <= np.linalg.norm(x - y) * (1 + 1e-12) + 1e-12
            assert not np.shares_memory(px, x)


def test_points_inside_are_left_alone_and_points_outside_are_not_contained():
    ball = L2Ball(1.0, center=[1.0, 0.0])
    inside = np.array([1.5, 0.5])
    np.testing.assert_array_equal(ball.project(inside), inside)
    assert ball.contains(inside) and not ball.contains(np.array([3.0, 0.0]))
    assert ball.contains(np.array([2.0 + 1e-10, 0.0]))  # within the default distance 1e-9
    simplex = Simplex()
    assert simplex.contains(np.array([0.2, 0.8])) and not simplex.contains(np.array([0.2, 0.7]))
    assert not NonNegative(indices=[1]).contains(np.array([-1.0, -1.0]))
    assert NonNegative(indices=[0]).contains(np.array([1.0, -1.0]))


def test_l1_projection_matches_the_sorting_algorithm_by_hand():
    # |θ| = (3, 1, 0.5), total 2: sorted excess gives ρ = 2, τ = (3 + 1 − 2)/2 = 1
    np.testing.assert_allclose(L1Ball(2.0).project(np.array([-3.0, 1.0, 0.5])), [-2.0, 0.0, 0.0])
    np.testing.assert_allclose(L1Ball(3.0).project(np.array([-3.0, 1.0, 0.5])), [-2.5, 0.5, 0.0])


def test_simplex_projection_of_a_huge_coordinate_stays_finite():
    out = Simplex().project(np.array([1e20, 0.0, -1e20]))
    np.testing.assert_array_equal(out, [1.0, 0.0, 0.0])


# ------------------------------------------------------------------------ recognize
w = cp.Variable(5)
other = cp.Variable(5)
W = cp.Variable((3, 2))
radius = cp.Parameter(nonneg=True, value=1.0)
HI = np.arange(5.0)

RECOGNIZED = {
    "w >= 0": ([w >= 0], w, NonNegative()),
    "0 <= w": ([0 <= w], w, NonNegative()),
    "NonNeg(w)": ([cp.constraints.NonNeg(w)], w, NonNegative()),
    "-w <= 0": ([-w <= 0], w, NonNegative()),
    "w >= lo": ([w >= -1.5], w, Box(-1.5, np.inf)),
    "w <= hi (array)": ([w <= HI], w, Box(-np.inf, HI)),
    "lo <= w <= hi": ([w >= -1, w <= HI], w, Box(-1.0, HI)),
    "two lower bounds": ([w >= -1, w >= 0, w <= 2], w, Box(0.0, 2.0)),
    "2w - 1 in [0, 1]": ([2 * w - 1 >= 0, 2 * w - 1 <= 1], w, Box(0.5, 1.0)),
    "w / 2 <= 1": ([w / 2 <= 1], w, Box(-np.inf, 2.0)),
    "w == 1": ([w == 1], w, Box(1.0, 1.0)),
    "norm inf": ([cp.norm(w, "inf") <= 0.3], w, Box(-0.3, 0.3)),
    "norm 2": ([cp.norm(w, 2) <= 0.5], w, L2Ball(0.5)),
    "norm2": ([cp.norm2(w) <= 0.5], w, L2Ball(0.5)),
    "pnorm 2": ([cp.pnorm(w, 2) <= 0.5], w, L2Ball(0.5)),
    "sum_squares": ([cp.sum_squares(w) <= 0.5**2], w, L2Ball(0.5)),
    "norm 2 of w - c": ([cp.norm(w - HI, 2) <= 1], w, L2Ball(1.0, center=HI)),
    "norm 2 of 2w": ([cp.norm(2 * w, 2) <= 1], w, L2Ball(0.5)),
    "norm 1": ([cp.norm(w, 1) <= 2], w, L1Ball(2.0)),
    "norm1": ([cp.norm1(w) <= 2], w, L1Ball(2.0)),
    "simplex": ([cp.sum(w) == 1, w >= 0], w, Simplex(1.0)),
    "simplex, reversed": ([0 <= w, 3 == cp.sum(w)], w, Simplex(3.0)),
    "w[1:3] >= 0": ([w[1:3] >= 0], w, NonNegative(indices=[1, 2])),
    "w[[0, 3]] >= 0": ([w[[0, 3]] >= 0], w, NonNegative(indices=[0, 3])),
    "w[1:][:2] >= 0": ([w[1:][:2] >= 0], w, NonNegative(indices=[1, 2])),
    "w[4] in [-1, 1]": ([w[4] >= -1, w[4] <= 1], w, Box(-1.0, 1.0, indices=[4])),
    "norm of w[:4]": ([cp.norm(w[:4], 2) <= 1], w, L2Ball(1.0, indices=[0, 1, 2, 3])),
    "norm of reversed w": ([cp.norm(w[::-1], 2) <= 1], w, L2Ball(1.0)),
    "ball on w[:4], box on w[4]": (
        [cp.norm(w[:4], 2) <= 1, w[4] >= -2, w[4] <= 2], w,
        Intersection(L2Ball(1.0, indices=[0, 1, 2, 3]), Box(-2.0, 2.0, indices=[4]))),
    "simplex on w[:3], orthant on w[3:]": (
        [cp.sum(w[:3]) == 1, w >= 0], w,
        Intersection(Simplex(1.0, indices=[0, 1, 2]), NonNegative(indices=[3, 4]))),
    "W[:, 0] >= 0": ([W[:, 0] >= 0], W, NonNegative(indices=[0, 2, 4])),
    "norm fro of W": ([cp.norm(W, "fro") <= 1], W, L2Ball(1.0)),
    "norm1 of W": ([cp.norm1(W) <= 1], W, L1Ball(1.0)),
    "simplex over W": ([cp.sum(W) == 2, W >= 0], W, Simplex(2.0)),
    "W >= lo (matrix)": ([W >= np.arange(6.0).reshape(3, 2)], W, Box(np.arange(6.0), np.inf)),
    "one constraint, not a list": (w >= 0, w, NonNegative()),
    "W <= hi (SciPy sparse)": ([W <= sp.csr_matrix(np.ones((3, 2)))], W, Box(-np.inf, 1.0)),
    "W >= 0 (SciPy sparse)": ([W >= sp.csc_array((3, 2))], W, NonNegative()),
}


@pytest.mark.parametrize("case", list(RECOGNIZED))
def test_recognize_returns_the_set(case):
    constraints, var, expected = RECOGNIZED[case]
    found = recognize(constraints, var)
    assert found == expected, (found, expected)
    assert type(found) is type(expected)


UNRECOGNIZED = {
    "A @ w <= b": ([np.ones((2, 5)) @ w <= 1], w),
    "w >= 0 with a ball": ([w >= 0, cp.norm(w, 2) <= 1], w),
    "two balls": ([cp.norm(w, 2) <= 1, cp.norm(w, 1) <= 1], w),
    "a ball on overlapping coordinates and a box": ([cp.norm(w[:3], 2) <= 1, w[2:] >= 0], w),
    "another variable": ([other >= 0], w),
    "this and another variable": ([w >= 0, other >= 0], w),
    "both variables in one constraint": ([w + other >= 0], w),
    "radius a Parameter": ([cp.norm(w, 2) <= radius], w),
    "a hyperplane alone": ([cp.sum(w) == 1], w),
    "sum <= t with w >= 0": ([cp.sum(w) <= 1, w >= 0], w),
    "simplex with orthant on part only": ([cp.sum(w) == 1, w[:2] >= 0], w),
    "simplex with extra bound": ([cp.sum(w) == 1, w >= 0, w <= 0.5], w),
    "an empty box": ([w >= 1, w <= 0], w),
    "a non-positive radius": ([cp.norm(w, 2) <= -1], w),
    "a norm of repeated coordinates": ([cp.norm(w[[0, 0, 1]], 2) <= 1], w),
    "an l1 ball off the origin": ([cp.norm1(w - 1) <= 1], w),
    "the spectral norm of a matrix": ([cp.norm(W, 2) <= 1], W),
    "the induced 1-norm of a matrix": ([cp.norm(W, 1) <= 1], W),
    "a norm per column": ([cp.norm(W, 2, axis=0) <= 1], W),
    "a squared norm": ([cp.norm(w, 2) ** 2 <= 1], w),
    "square elementwise": ([cp.square(w) <= 1], w),
    "w on both sides": ([w <= 2 * w + 1], w),
    "quad_over_lin with y = 2": ([cp.quad_over_lin(w, 2) <= 1], w),
    "an empty list": ([], w),
    "a matrix of equal entries times w": ([np.full((5, 5), 0.2) @ w <= 0.1], w),
    "a SciPy sparse matrix times w": ([sp.csr_matrix(np.eye(5)) @ w <= 1], w),
    "a norm of a SciPy sparse matrix times w": ([cp.norm(sp.csc_array(np.eye(5)) @ w, 2) <= 1], w),
    "a SciPy sparse matrix too large to read densely": (
        [sp.eye(5, 2**17, format="csr") @ cp.Variable(2**17) <= 1], None),
    "a variable declared nonneg": ([cp.norm(cp.Variable(5, nonneg=True), 2) <= 1], None),
}


@pytest.mark.parametrize("case", list(UNRECOGNIZED))
def test_recognize_refuses(case):
    constraints, var = UNRECOGNIZED[case]
    if var is None:
        var = constraints[0].variables()[0]
    assert recognize(constraints, var) is None


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name", NAMES)
def test_recognize_reads_back_each_set_from_its_cvxpy_form(name, shape):
    s = _sets(int(np.prod(shape)))[name]
    var = cp.Variable(shape)
    found = recognize(s.cvxpy_constraints(var), var)
    expected = s.sets[0] if isinstance(s, Intersection) and len(s.sets) == 1 else s
    rng = np.random.default_rng(0)
    theta = 2.0 * rng.normal(size=shape)
    assert found is not None
    np.testing.assert_allclose(found.project(theta), expected.project(theta), rtol=0, atol=1e-12)


def test_recognize_needs_a_variable():
    with pytest.raises(ParameterError, match="^The 'var' argument of recognize must be a "
                                             "cvxpy.Variable. Got"):
        recognize([w >= 0], w[:2])


# ------------------------------------------------------------------------- messages
@pytest.mark.parametrize("make, message", [
    (lambda: L2Ball(-1), "The 'radius' parameter of L2Ball must be a float in (0, inf). "
                         "Got -1 instead."),
    (lambda: L1Ball(float("nan")), "The 'radius' parameter of L1Ball must be a float in (0, inf)"),
    (lambda: Simplex(0.0), "The 'total' parameter of Simplex must be a float in (0, inf). "
                           "Got 0.0 instead."),
    (lambda: L2Ball(1.0, center="a"), "The 'center' parameter of L2Ball must be None"),
    (lambda: L2Ball(1.0, center=[0.0, 1.0], indices=[0, 1, 2]),
     "The 'center' parameter of L2Ball must be a scalar or have one entry per index (3)"),
    (lambda: Box(1.0, 0.0), "The 'upper' parameter of Box must be at least 'lower'"),
    (lambda: Box(np.inf, np.inf), "The 'lower' parameter of Box must be a float"),
    (lambda: Box(0.0, [1.0, np.nan]), "The 'upper' parameter of Box must be a float"),
    (lambda: Box([0.0, 0.0], [1.0, 1.0, 1.0]), "The 'upper' parameter of Box must be at least"),
    (lambda: Box(0.0, [1.0, 1.0], indices=[0, 1, 2]),
     "The 'upper' parameter of Box must be a scalar or have one entry per index (3)"),
    (lambda: NonNegative(indices=[0, 0]), "The 'indices' parameter of NonNegative must be None "
                                          "or a non-empty 1-D sequence of distinct"),
    (lambda: L2Ball(1.0, indices=[-1]), "The 'indices' parameter of L2Ball"),
    (lambda: L2Ball(1.0, indices=[0.5]), "The 'indices' parameter of L2Ball"),
    (lambda: Intersection(L2Ball(1.0), NonNegative()),
     "Intersection.__init__: L2Ball(radius=1.0) and NonNegative() constrain the same coordinates"),
    (lambda: Intersection(Box(0.0, 1.0), Box(2.0, 3.0)), "Intersection.__init__: "),
    (lambda: Intersection(Box(0.0, 1.0, indices=[0, 1]), Box(0.0, 1.0, indices=[1, 2])),
     "Intersection.__init__: Box(lower=0.0, upper=1.0, indices=[0, 1]) and Box(lower=0.0, "
     "upper=1.0, indices=[1, 2]) constrain the same coordinates"),
    (lambda: Intersection(), "The 'sets' parameter of Intersection must hold at least one"),
    (lambda: Intersection(L2Ball(1.0), "ball"), "The 'sets' parameter of Intersection must be"),
    (lambda: L2Ball(1.0, indices=[0, 7]).project(np.zeros(3)),
     "L2Ball.project: the set constrains coordinate 7 of the flattened parameter, which has 3"),
    (lambda: Box(0.0, [1.0, 2.0]).project(np.zeros(3)),
     "Box.project: the set's per-coordinate bounds have 2 entries but it constrains 3"),
    (lambda: L2Ball(1.0).contains(np.zeros(2), tol=-1.0),
     "The 'tol' parameter of L2Ball.contains must be a float in [0, inf)"),
])
def test_messages_name_the_parameter(make, message):
    with pytest.raises(ParameterError) as err:
        make()
    assert str(err.value).startswith(message), str(err.value)


# -------------------------------------------------------------------- describe, repr
def test_describe_and_repr_state_the_set():
    assert L2Ball(0.5).describe() == "the l2 ball ||w||_2 <= 0.5"
    assert NonNegative().describe() == "the nonnegative orthant w >= 0"
    assert Box(0.0, 1.0).describe() == "the box 0 <= w <= 1 (each coordinate)"
    assert Box(-np.inf, 2.0).describe() == "the box w <= 2 (each coordinate)"
    assert L1Ball(2.0, indices=[0, 1]).describe() == (
        "the l1 ball ||w_S||_1 <= 2 on the coordinates S = [0, 1] of w (row-major)")
    assert Simplex().describe() == "the simplex w >= 0, sum(w) = 1"
    assert "intersection" in Intersection(L2Ball(1.0, indices=[0]), Box(0, 1, indices=[1])).describe()
    assert repr(L2Ball(0.5, indices=range(100))) == (
        "L2Ball(radius=0.5, indices=[ 0,  1,  2, ..., 97, 98, 99])")
    assert repr(Simplex(2.0)) == "Simplex(total=2.0)"
    assert Box(0.0, 1.0) != Box(0.0, 2.0) and L2Ball(1.0) != L1Ball(1.0)
