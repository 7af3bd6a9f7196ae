"""Projected gradient over the PSD cone: projection, residual, margins, convergence vs closed forms."""

from __future__ import annotations

import numpy as np
import pytest

from dpconvex.data.gram import quadratic_forms, weighted_gram
from dpconvex.solvers.projected_gradient import accelerated_projected_gradient as _apg
from dpconvex.solvers.registry import SolveStatus
from dpconvex.templates.base import natural_residual as _natural_residual
from dpconvex.templates.parameterizations import gram_operator_norm, project_psd


def accelerated_projected_gradient(fun_grad, x0, **kw):
    """The projected-gradient solver over the PSD cone."""
    return _apg(fun_grad, x0, project=project_psd, **kw)


def natural_residual(Phi, grad):
    """||Φ − Π_PSD(Φ − ∇J(Φ))||_F over all blocks."""
    return _natural_residual(Phi, grad, project_psd)


def _sym(rng, shape):
    A = rng.normal(size=shape)
    return 0.5 * (A + np.swapaxes(A, -1, -2))


def test_project_psd_is_the_frobenius_projection():
    rng = np.random.default_rng(0)
    A = _sym(rng, (3, 5, 5))
    P = project_psd(A)
    assert np.allclose(P, np.swapaxes(P, -1, -2))
    assert np.linalg.eigvalsh(P).min() >= -1e-12
    # optimality of the projection: <A - P, X - P> <= 0 for every PSD X
    for _ in range(50):
        W = rng.normal(size=(3, 5, 5))
        X = W @ np.swapaxes(W, -1, -2)
        assert np.sum((A - P) * (X - P)) <= 1e-9
    # idempotent, and the identity on PSD input
    assert np.allclose(project_psd(P), P)


def test_quadratic_forms_and_weighted_gram_match_naive():
    rng = np.random.default_rng(1)
    Z = rng.normal(size=(37, 4))
    Phi = _sym(rng, (5, 4, 4))
    W = rng.normal(size=(37, 5))
    naive_q = np.array([[z @ P @ z for P in Phi] for z in Z])
    assert np.allclose(quadratic_forms(Z, Phi), naive_q)
    naive_g = np.array([sum(W[i, j] * np.outer(Z[i], Z[i]) for i in range(37)) for j in range(5)])
    assert np.allclose(weighted_gram(Z, W), naive_g)


def test_gram_operator_norm_matches_dense_matrix():
    rng = np.random.default_rng(2)
    Z = rng.normal(size=(50, 3))
    Z /= np.linalg.norm(Z, axis=1, keepdims=True)
    M = np.mean([np.outer(np.outer(z, z).ravel(), np.outer(z, z).ravel()) for z in Z], axis=0)
    lam = np.linalg.eigvalsh(M).max()
    est = gram_operator_norm(Z)
    assert lam <= est <= 1.02 * lam


def test_apg_solves_a_projection_problem_with_known_answer():
    """min (μ/2)||Φ - A||² + <B, Φ> over PSD has Φ* = Π(A - B/μ)."""
    rng = np.random.default_rng(3)
    A, B = _sym(rng, (2, 6, 6)), _sym(rng, (2, 6, 6))
    mu = 0.3

    def fg(P):
        return 0.5 * mu * float(np.sum((P - A) ** 2)) + float(np.sum(B * P)), mu * (P - A) + B

    res = accelerated_projected_gradient(fg, np.zeros_like(A), mu=mu, L0=mu, tol=1e-10)
    assert res.status == SolveStatus.OPTIMAL and res.residual <= 1e-10
    assert np.allclose(res.x, project_psd(A - B / mu), atol=1e-9)
    assert natural_residual(project_psd(A - B / mu), mu * (project_psd(A - B / mu) - A) + B) \
        < 1e-12


def test_apg_backtracks_when_L0_is_too_small_and_reports_max_iter():
    rng = np.random.default_rng(4)
    A = _sym(rng, (1, 5, 5))
    Lt = 50.0

    def fg(P):
        return 0.5 * Lt * float(np.sum((P - A) ** 2)), Lt * (P - A)

    res = accelerated_projected_gradient(fg, np.zeros_like(A), mu=1.0, L0=1e-3, tol=1e-10)
    assert res.status == SolveStatus.OPTIMAL
    assert res.info["backtracks"] > 0 and res.info["lipschitz_estimate"] >= Lt
    assert np.allclose(res.x, project_psd(A), atol=1e-9)
    short = accelerated_projected_gradient(fg, np.zeros_like(A), mu=1e-6, L0=1e-3, tol=1e-14,
                                           max_iter=2)
    assert short.status == SolveStatus.MAX_ITERATIONS and short.iterations == 2


@pytest.mark.parametrize("mu", [0.0, 1e-2])
def test_residual_definition_zero_only_at_minimizer(mu):
    rng = np.random.default_rng(5)
    A = _sym(rng, (1, 4, 4))
    P = project_psd(A)

    def grad(X):
        return X - A

    assert natural_residual(P, grad(P)) < 1e-12
    assert natural_residual(P + 1e-3 * np.eye(4), grad(P + 1e-3 * np.eye(4))) > 1e-4


def test_apg_takes_its_projection_from_the_caller():
    """The solver does not hard-code the PSD cone: with a box projection it finds
    clip(A − B/μ, −1, 1), the minimizer of (μ/2)||x − A||² + <B, x> over the box."""
    from dpconvex.solvers.projected_gradient import accelerated_projected_gradient as apg

    rng = np.random.default_rng(6)
    A, B = rng.normal(size=(2, 3, 4)) * 2.0
    mu = 0.7

    def fg(x):
        return 0.5 * mu * float(np.sum((x - A) ** 2)) + float(np.sum(B * x)), mu * (x - A) + B

    box = lambda x: np.clip(x, -1.0, 1.0)  # noqa: E731
    res = apg(fg, np.zeros_like(A), project=box, mu=mu, L0=mu, tol=1e-12)
    assert res.status == SolveStatus.OPTIMAL
    np.testing.assert_allclose(res.x, np.clip(A - B / mu, -1.0, 1.0), atol=1e-10)
    # with the identity it is unconstrained gradient descent on a quadratic
    free = apg(fg, np.zeros_like(A), project=lambda x: x, mu=mu, L0=mu, tol=1e-12)
    np.testing.assert_allclose(free.x, A - B / mu, atol=1e-10)


def test_apg_step_follows_the_local_curvature():
    """An initial L 10⁴ times the curvature: the step lengthens to the curvature within a few
    iterations, so the solve takes tens of iterations, not the thousands of a step fixed at 1/L0."""
    rng = np.random.default_rng(8)
    A, B = _sym(rng, (2, 6, 6)), _sym(rng, (2, 6, 6))
    a = 0.01

    def fg(P):
        return 0.5 * a * float(np.sum((P - A) ** 2)) + float(np.sum(B * P)), a * (P - A) + B

    res = accelerated_projected_gradient(fg, np.zeros_like(A), mu=a, L0=1e4 * a, tol=1e-10)
    assert res.status == SolveStatus.OPTIMAL and res.iterations <= 40
    np.testing.assert_allclose(res.x, project_psd(A - B / a), atol=1e-8)


@pytest.mark.parametrize("offset", [0.0, 1e6, 1e9])
def test_apg_reads_the_curvature_from_gradients_below_value_rounding(offset):
    """Near the minimizer J(x⁺) − J(y) is below the rounding of J (worse with a large constant
    in J): the curvature is then read from the gradients, and the solve still reaches a residual
    of 1e-11 instead of stalling on step sizes chosen from rounding noise."""
    rng = np.random.default_rng(7)
    A = _sym(rng, (2, 6, 6))
    H = rng.uniform(0.05, 2.0, size=A.shape)
    H = 0.5 * (H + np.swapaxes(H, -1, -2))

    def fg(P):
        D = P - A
        return offset + 0.5 * float(np.sum(H * D * D)), H * D

    res = accelerated_projected_gradient(fg, np.zeros_like(A), mu=0.05, L0=10.0, tol=1e-11,
                                         max_iter=200)
    assert res.status == SolveStatus.OPTIMAL and res.residual <= 1e-11


def test_large_margin_first_step_reads_no_rows(monkeypatch):
    """The pairwise template's initial Lipschitz estimate is its public bound μ + Δ + 2cC (no
    power iteration over the rows); with an extra term (no declared constant) it is estimated."""
    from dpconvex.data.preprocess import augment_and_scale
    from dpconvex.objectives.losses import psi_frobenius
    from dpconvex.templates import LargeMarginGaussianTemplate

    rng = np.random.default_rng(9)
    Z = augment_and_scale(rng.normal(size=(40, 3)) / 3.0, data_norm=1.0)
    y = np.arange(40) % 3
    template = LargeMarginGaussianTemplate(Z, y, n_classes=3, lam=0.1)

    def no_pass(*args, **kwargs):
        raise AssertionError("the rows were read")

    monkeypatch.setattr(template.space, "gram_operator_norm", no_pass)
    assert template.lipschitz_bound(0.05) == pytest.approx(0.1 + 0.05 + 2.0 * 1.0 * 3)
    with_term = LargeMarginGaussianTemplate(Z, y, n_classes=3, lam=0.1,
                                            extra_terms=[psi_frobenius(0.1, 2)])
    assert 0.15 < with_term.lipschitz_bound(0.05) < 0.15 + 6.0
