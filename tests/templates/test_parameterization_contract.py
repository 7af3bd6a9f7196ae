"""Every form of Φ keeps the written parameterization contract, in type and in behaviour.

The forms are read from ``PARAMETERIZATIONS`` (a new form is tested without editing this
file), plus the feature-map space the softmax template builds on top of one of them.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest

from dpconvex.templates.feature_map import FeatureMap, FeatureMapSpace
from dpconvex.templates.large_margin import LargeMarginGaussianTemplate
from dpconvex.templates.large_margin_softmax import LargeMarginSoftmaxTemplate
from dpconvex.templates.parameterizations import (
    PARAMETERIZATIONS,
    BlockParameterization,
    QuadraticParameterization,
)

C, K, D = 3, 2, 4
N = 7


def _records(seed: int = 0) -> np.ndarray:
    Z = np.random.default_rng(seed).standard_normal((N, D))
    return Z / (1.5 * np.linalg.norm(Z, axis=1, keepdims=True))


def _symmetric_blocks(seed: int, shape: tuple[int, ...]) -> np.ndarray:
    B = np.random.default_rng(seed).standard_normal(shape)
    return 0.5 * (B + np.swapaxes(B, -1, -2))


@pytest.fixture(params=sorted(PARAMETERIZATIONS), ids=str)
def space(request: pytest.FixtureRequest) -> BlockParameterization:
    return PARAMETERIZATIONS[request.param](C, K, D)


def test_every_form_is_a_block_parameterization(space: BlockParameterization) -> None:
    assert isinstance(space, QuadraticParameterization)
    assert isinstance(space, BlockParameterization)
    assert (space.C, space.K, space.D, space.J) == (C, K, D, C * K)
    assert space.blocks == (C, K, D, D)
    assert int(np.prod(space.shape)) == int(np.prod(space.blocks))
    assert space.dimension == C * K * D * (D + 1) // 2  # symmetric blocks
    assert space.symmetric is True
    assert isinstance(space.name, str) and space.name


def test_an_object_missing_a_member_is_not_a_parameterization() -> None:
    class NoAdjoint:
        shape = blocks = (1, 1, 2, 2)
        dimension, symmetric, name = 3, True, "incomplete"

        def project(self, theta): return theta
        def postprocess(self, theta): return theta
        def project_noise(self, b): return b
        def forms(self, Z, Phi): return Z
        def gram_operator_norm(self, Z): return 1.0

    assert not isinstance(NoAdjoint(), QuadraticParameterization)


def test_forms_and_adjoint_are_the_quadratic_forms_and_their_adjoint(
        space: BlockParameterization) -> None:
    Z = _records()
    Phi_blocks = _symmetric_blocks(1, space.blocks)
    Phi = Phi_blocks.reshape(space.shape)
    A = space.forms(Z, Phi)
    want = np.einsum("id,jde,ie->ij", Z, Phi_blocks.reshape(C * K, D, D), Z)
    np.testing.assert_allclose(A, want, rtol=1e-12, atol=1e-14)
    W = np.random.default_rng(2).standard_normal((N, C * K))
    G = space.adjoint(Z, W)
    assert G.shape == tuple(space.shape)
    # <forms(Z, Φ), W> = <Φ, adjoint(Z, W)> for every symmetric Φ
    assert np.vdot(A, W) == pytest.approx(np.vdot(Phi, G), rel=1e-12)
    # the normal operator's norm bounds ||forms||² / n on this Φ (the solvers' Lipschitz start)
    assert np.sum(A * A) / N <= space.gram_operator_norm(Z) * np.sum(Phi * Phi) * (1 + 1e-9)


def test_projection_noise_and_release_land_where_the_contract_says(
        space: BlockParameterization) -> None:
    raw = np.random.default_rng(3).standard_normal(space.blocks)
    b = space.project_noise(raw)
    assert b.shape == tuple(space.shape)
    Bb = b.reshape(space.blocks)
    np.testing.assert_array_equal(Bb, np.swapaxes(Bb, -1, -2))
    np.testing.assert_allclose(Bb, 0.5 * (raw + np.swapaxes(raw, -1, -2)))
    theta = raw.reshape(space.shape)
    P = space.project(theta)
    assert P.shape == theta.shape
    np.testing.assert_allclose(space.project(P), P, atol=1e-12)  # a projection is idempotent
    released = np.asarray(space.postprocess(theta)).reshape(space.blocks)
    assert np.min(np.linalg.eigvalsh(released)) >= -1e-10  # released blocks are PSD


def test_psi_trace_and_its_gradient_agree(space: BlockParameterization) -> None:
    d = D - 1
    Phi = _symmetric_blocks(4, space.blocks)
    want = float(np.sum(np.trace(Phi[..., :d, :d], axis1=-2, axis2=-1)))
    assert space.psi_trace(Phi.reshape(space.shape), d) == pytest.approx(want, rel=1e-12)
    grad = np.zeros(space.shape)
    space.add_psi_trace_grad(grad, d, 0.5)
    G = grad.reshape(space.blocks)
    expect = np.zeros(space.blocks)
    expect[..., np.arange(d), np.arange(d)] = 0.5
    np.testing.assert_array_equal(G, expect)


def test_cvxpy_form_matches_the_numpy_form(space: BlockParameterization) -> None:
    d = D - 1
    Z = _records(5)
    Phi = _symmetric_blocks(6, space.blocks)
    Vars = space.cvxpy_variables()
    noise = space.cvxpy_noise()
    assert len(Vars) == len(noise) == C and all(len(r) == K for r in Vars + noise)
    rows = space.cvxpy_form_rows(Z)
    for c in range(C):
        for m in range(K):
            P = Vars[c][m]
            assert P.shape == noise[c][m].shape == (D, D)
            P.value = np.asarray(space.project(Phi.reshape(space.shape))).reshape(space.blocks)[c, m]
            block = P.value
            np.testing.assert_allclose(rows @ space.cvxpy_hvec(P).value,
                                       np.einsum("id,de,ie->i", Z, block, Z), atol=1e-12)
            assert float(np.sum(space.cvxpy_hvec_weighted(P).value ** 2)) == pytest.approx(
                float(np.sum(block * block)), rel=1e-12)
            assert float(space.cvxpy_psi_trace(P, d).value) == pytest.approx(
                float(np.trace(block[:d, :d])), rel=1e-12)
    value = space.cvxpy_value(Vars)
    assert value is not None and value.shape == tuple(space.shape)
    Vars[0][0].value = None
    assert space.cvxpy_value(Vars) is None


def test_cvxpy_variables_carry_the_feasible_set(space: BlockParameterization) -> None:
    """The CVXPY variables constrain Φ exactly as ``project`` does: minimizing the distance to
    a symmetric block with a negative eigenvalue gives its projection on every form."""
    Vars = space.cvxpy_variables()
    target = _symmetric_blocks(7, space.blocks) - 0.8 * np.eye(D)
    obj = sum(cp.sum_squares(Vars[c][m] - target[c, m]) for c in range(C) for m in range(K))
    cp.Problem(cp.Minimize(obj)).solve(solver=cp.CLARABEL)
    got = space.cvxpy_value(Vars)
    np.testing.assert_allclose(got, space.project(target.reshape(space.shape)), atol=1e-6)


def test_the_templates_accept_every_form_and_the_feature_map_space_is_quadratic() -> None:
    Z = _records(8)
    y = np.arange(N) % C
    comp = np.arange(N) % K
    for cls in PARAMETERIZATIONS.values():
        t = LargeMarginGaussianTemplate(Z, y, comp, n_classes=C, n_components=K, lam=0.1,
                                        parameterization=cls)
        assert isinstance(t.space, cls) and t.noise_shape == (C, K, D, D)
        val, grad = t.objective(np.zeros(t.space.shape))
        assert np.isfinite(val) and grad.shape == tuple(t.space.shape)
        s = LargeMarginSoftmaxTemplate(Z, y, comp, n_classes=C, n_components=K, lam=0.1,
                                       parameterization=cls)
        assert isinstance(s.space, cls) and s.noise_shape == (C, K, D, D)
    fm = FeatureMap("diagonal", (0.25, 1.0, 0.05), 1.0, D - 1)
    s = LargeMarginSoftmaxTemplate(Z, y, n_classes=C, lam=0.1, feature_map=fm)
    assert isinstance(s.space, FeatureMapSpace)
    assert isinstance(s.space, QuadraticParameterization)
    assert not isinstance(s.space, BlockParameterization)  # no Ψ trace, no CVXPY form
