"""Which CVXPY constraints a ``CVXPYSet`` holds: each class it holds projects as an independent
computation says, and each class CVXPY compiles to something else than the set it states is
refused by name (docs/privacy/user_objectives.md#privacy-constraints)."""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest
from cvxpy.constraints import (
    SOC,
    ExpCone,
    NonNeg,
    NonPos,
    OpRelEntrConeQuad,
    PowCone3D,
    PowCone3DApprox,
    PowConeND,
    RelEntrConeQuad,
    Zero,
)
from cvxpy.transforms.partial_optimize import partial_optimize

from dpconvex.errors import ParameterError
from dpconvex.objectives import CVXPYSet
from dpconvex.objectives.sets import ALLOWED_CONSTRAINTS, CompiledSetQP

# ------------------------------------------------------------- independent projections


def _soc(v):
    """Π onto {(t, x) : ||x|| <= t} (closed form)."""
    t, x = v[0], v[1:]
    r = np.linalg.norm(x)
    if r <= t:
        return v.copy()
    if r <= -t:
        return np.zeros_like(v)
    return 0.5 * (t + r) * np.concatenate([[1.0], x / r])


def _psd(v):
    """Π onto {X : (X + Xᵀ)/2 PSD} (X = v read row-major, 3 x 3): the symmetric part's
    negative eigenvalues set to 0, the antisymmetric part kept (the two parts are orthogonal)."""
    X = v.reshape(3, 3)
    S, A = 0.5 * (X + X.T), 0.5 * (X - X.T)
    values, vectors = np.linalg.eigh(S)
    return ((vectors * np.maximum(values, 0.0)) @ vectors.T + A).ravel()


def _clip_below(bound):
    return lambda v: np.maximum(v, bound)


def _clip_above(bound):
    return lambda v: np.minimum(v, bound)


def _first_to(value):
    def project(v):
        out = v.copy()
        out[0] = value
        return out
    return project


def _half_space(a, b, equality):
    """Π onto {aᵀw <= b} (or == b)."""
    def project(v):
        excess = a @ v - b
        return v - (excess if equality or excess > 0 else 0.0) * a / (a @ a)
    return project


_A = np.array([1.0, -2.0, 0.5])

CLOSED_FORMS = {
    "Inequality": (lambda w: [_A @ w <= 1.0], _half_space(_A, 1.0, False)),
    "Equality": (lambda w: [_A @ w == 1.0], _half_space(_A, 1.0, True)),
    "NonNeg": (lambda w: [NonNeg(w - 0.5)], _clip_below(0.5)),
    "NonPos": (lambda w: [NonPos(w + 0.5)], _clip_above(-0.5)),
    "Zero": (lambda w: [Zero(w[0] - 2.0)], _first_to(2.0)),
    "SOC": (lambda w: [SOC(w[0], w[1:])], _soc),
    "PSD": (lambda w: [cp.reshape(w, (3, 3), order="C") >> 0], _psd),
}


@pytest.mark.filterwarnings("ignore:Explicitly invoking")  # CVXPY's note on NonPos(expr)
@pytest.mark.parametrize("name", sorted(CLOSED_FORMS))
def test_a_held_class_projects_as_its_closed_form(name):
    # five points (normal, scale 2; the same seed for every class): each projection within
    # 1e-8 of the closed form (SCS's residuals <= 1e-11; PROJECTION_TOL, 1e-9, is measured on
    # R^20 sets), the projection contained, the point itself contained only when the closed
    # form leaves it (at least 1e-3) away or not
    constraints, closed_form = CLOSED_FORMS[name]
    size = 9 if name == "PSD" else 3
    w = cp.Variable(size)
    s = CVXPYSet(constraints(w), w)
    rng = np.random.default_rng(3)
    for _ in range(5):
        x = 2.0 * rng.normal(size=size)
        expected = closed_form(x)
        got = s.project(x)
        np.testing.assert_allclose(got, expected, atol=1e-8, rtol=0)
        assert s.contains(got, tol=1e-8)
        distance = float(np.linalg.norm(x - expected))
        assert distance <= 1e-12 or distance >= 1e-3  # the draw decides which check applies
        assert s.contains(x, tol=1e-8) == (distance <= 1e-12)


# ----------------------------------------------- cones: Moreau's decomposition, no solver


def _exp_cone(v, tol):
    """(x, y, z) in cl{y > 0, y·exp(x / y) <= z}."""
    x, y, z = v
    if y > 1e-6:
        return y * np.exp(x / y) <= z + tol
    return y >= -tol and x <= tol and z >= -tol


def _exp_dual(v, tol):
    """(u, v, w) in cl{u < 0, −u·exp(v / u) <= e·w}, the exponential cone's dual."""
    u, s, t = v
    if u < -1e-6:
        return -u * np.exp(s / u) <= np.e * t + tol
    return abs(u) <= tol and s >= -tol and t >= -tol


def _power_cone(alpha, dual):
    """(x, y, z) with x, y >= 0 and x^α y^(1−α) >= |z| (the dual: (x/α)^α (y/(1−α))^(1−α))."""
    def inside(v, tol):
        x, y, z = v
        if dual:
            x, y = x / alpha, y / (1 - alpha)
        return (x >= -tol and y >= -tol
                and max(x, 0.0) ** alpha * max(y, 0.0) ** (1 - alpha) >= abs(z) - tol)
    return inside


_ALPHA = 0.3
CONES = {
    "ExpCone": (lambda w: [ExpCone(w[0], w[1], w[2])], _exp_cone, _exp_dual),
    "PowCone3D": (lambda w: [PowCone3D(w[0], w[1], w[2], _ALPHA)],
                  _power_cone(_ALPHA, False), _power_cone(_ALPHA, True)),
    "PowConeND": (lambda w: [PowConeND(cp.reshape(w[:2], (2, 1), order="C"), w[2:],
                                       np.array([[_ALPHA], [1 - _ALPHA]]))],
                  _power_cone(_ALPHA, False), _power_cone(_ALPHA, True)),
}


@pytest.mark.parametrize("name", sorted(CONES))
def test_a_held_cone_projects_as_moreau_decomposes(name):
    # p is the projection of x onto a closed convex cone K iff p ∈ K, p − x ∈ K* (the dual
    # cone) and ⟨p, x − p⟩ = 0 (Moreau): each checked from the cone's formula at 1e-8 (SCS's
    # residuals <= 1e-11), on five points (normal, scale 2); a point with x − p of norm
    # above 1e-3 is not contained
    constraints, inside, dual = CONES[name]
    w = cp.Variable(3)
    s = CVXPYSet(constraints(w), w)
    rng = np.random.default_rng(5)
    for _ in range(5):
        x = 2.0 * rng.normal(size=3)
        p = s.project(x)
        assert inside(p, 1e-8), (x, p)
        assert dual(p - x, 1e-8), (x, p)
        assert abs(p @ (x - p)) <= 1e-8, (x, p)
        assert s.contains(p, tol=1e-8)
        assert s.contains(x, tol=1e-8) == (np.linalg.norm(x - p) <= 1e-8)


def test_the_classes_checked_are_the_classes_held():
    # a class added to the list needs its independent check here
    assert sorted(c.__name__ for c in ALLOWED_CONSTRAINTS) == sorted(
        [*CLOSED_FORMS, *CONES])


# ------------------------------------------------------------------------------- refused


def _matrix(w):
    return cp.atoms.affine.wraps.symmetric_wrap(cp.reshape(w[:4], (2, 2), order="C"))


@pytest.mark.parametrize("constraints,message", [
    (lambda w: [cp.FiniteSet(w[:3], [-1.0, 0.0, 1.0])],
     r"is a cvxpy FiniteSet, which a parameter set does not hold \(it holds Inequality, "
     r"Equality, .*\): a finite set of values is not convex .* State a convex set instead"),
    (lambda w: [cp.FiniteSet(w[:3], [-1.0, 1.0], ineq_form=True)], "is a cvxpy FiniteSet"),
    (lambda w: [PowCone3DApprox(w[0], w[1], w[2], _ALPHA)],
     r"is a cvxpy PowCone3DApprox, .* Write cp.constraints.PowCone3D\(x, y, z, alpha\)"),
    (lambda w: [RelEntrConeQuad(w[0], w[1], w[2], 3, 3)],
     r"is a cvxpy RelEntrConeQuad, .* Write cp.rel_entr\(x, y\) <= z"),
    (lambda w: [OpRelEntrConeQuad(_matrix(w), cp.Constant(np.eye(2)),
                                  cp.reshape(w[4:8], (2, 2), order="C"), 3, 3)],
     "is a cvxpy OpRelEntrConeQuad"),
    (lambda w: [cp.quantum_rel_entr(_matrix(w), np.eye(2)) <= 1],
     r"holds cvxpy's quantum_rel_entr, which CVXPY compiles by a quadrature approximation"),
    (lambda w: [cp.von_neumann_entr(_matrix(w), quad_approx=(3, 3)) >= -1],
     "holds cvxpy's von_neumann_entr, which CVXPY compiles by a quadrature approximation"),
    (lambda w: [cp.power(w[0], np.pi) <= w[1]],
     r"holds cvxpy's PowerApprox, whose exponent CVXPY compiles rounded to a fraction "
     r"\(error 2.7e-07\)"),
    (lambda w: [cp.pnorm(w, np.pi) <= 1], "holds cvxpy's PnormApprox, whose exponent"),
    # expressions carrying constraints of their own, compiled with the set
    (lambda w: [cp.transforms.indicator([cp.FiniteSet(w[:3], [-1.0, 0.0, 1.0])]) <= 0],
     r"holds cvxpy's indicator, which carries constraints of its own .* State the set by "
     "constraints in the list itself"),
    (lambda w: [cp.transforms.indicator([w >= 1]) <= 0], "holds cvxpy's indicator"),
    (lambda w: [cp.transforms.suppfunc(x := cp.Variable(8), [cp.norm(x, 2) <= 1])(w) <= 1],
     "holds cvxpy's SuppFuncAtom, which carries constraints of its own"),
    (lambda w: [partial_optimize(cp.Problem(cp.Minimize(cp.sum(x := cp.Variable(8))),
                                            [x >= w, x <= 1]), opt_vars=[x]) <= 1],
     "holds cvxpy's PartialProblem, which carries constraints of its own"),
], ids=["finite set", "finite set, inequality form", "approximated power cone",
        "quadrature relative entropy cone", "quadrature operator relative entropy cone",
        "quantum relative entropy", "von Neumann entropy, quadrature", "power of pi",
        "pi-norm", "indicator of a finite set", "indicator", "support function",
        "partial minimization"])
def test_a_constraint_compiled_to_another_set_is_refused_by_name(constraints, message):
    w = cp.Variable(8)
    with pytest.raises(ParameterError, match="^CVXPYSet.__init__: the constraint ") as caught:
        CVXPYSet(constraints(w), w)
    assert caught.match(message)


def test_a_compiled_program_with_variable_bounds_is_refused():
    # the bounds CVXPY hands a solver apart from the cone program (a FiniteSet's integer
    # variables) would be dropped by SCS's program: refused, not compiled
    w = cp.Variable(3)
    with pytest.raises(ParameterError, match="^CompiledSetQP.__init__: CVXPY compiles the "
                                             "constraints with bounds on variables"):
        CompiledSetQP([cp.FiniteSet(w, [-1.0, 0.0, 1.0])], w)


@pytest.mark.parametrize("attributes", [
    {"boolean": True}, {"integer": True}, {"bounds": [0.0, 1.0]}, {"nonneg": True},
], ids=["boolean", "integer", "bounds", "nonneg"])
def test_a_variable_with_attributes_is_refused(attributes):
    # an attribute constrains the variable outside the list (CVXPY's cone compile drops
    # integrality and may hand bounds to the solver apart): it is never part of a set
    w = cp.Variable(3, **attributes)
    with pytest.raises(ParameterError, match=r"^The 'var' parameter of CVXPYSet must be a "
                                             r"cvxpy.Variable declared without attributes "
                                             r"\(state nonneg=True, bounds= and the like as "
                                             r"constraints in the list"):
        CVXPYSet([w <= 2], w)
