"""The verifier refuses when a condition of the proof fails, naming the condition."""

import cvxpy as cp
import numpy as np
import pytest

import dpconvex as dp
from dpconvex.losses import LOSSES, HuberHinge, Logistic, Loss, SmoothHinge
from dpconvex.templates.linear_erm import LinearERMTemplate
from dpconvex.verify import probe_loss, verify


def _template(loss, lam=0.1):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3)) / 3
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    return LinearERMTemplate(loss, lam, 1.0, X, y)


class SteepLogistic(Logistic):
    """log(1 + exp(-2m)): |ℓ'| reaches 2 but declares 1."""

    name = "steep"

    def value(self, m):
        return np.logaddexp(0.0, -2 * np.asarray(m, float))

    def deriv(self, m):
        return 2 * super().deriv(2 * np.asarray(m, float))

    def deriv2(self, m):
        return 4 * super().deriv2(2 * np.asarray(m, float))

    def cvxpy_expr(self, m):
        return cp.logistic(-2 * m)


class Concave(Loss):
    """-log cosh(m): smooth, |ℓ'| <= 1, but concave; no DCP form."""

    name = "concave"
    has_cvxpy = False
    deriv_bound = 1.0
    curvature = 1.0

    def value(self, m):
        m = np.asarray(m, float)
        return -(np.logaddexp(m, -m) - np.log(2.0))

    def deriv(self, m):
        return -np.tanh(np.asarray(m, float))

    def deriv2(self, m):
        return -1.0 / np.cosh(np.clip(np.asarray(m, float), -300, 300)) ** 2


class NonDCP(Logistic):
    name = "nondcp"

    def cvxpy_expr(self, m):
        return -cp.logistic(-m)


class LyingDeriv(Logistic):
    name = "lying"

    def deriv(self, m):
        return 0.5 * super().deriv(m)


class FusedMismatch(Logistic):
    """value() and deriv() are the logistic loss, but the solver's fused call is not."""

    name = "fused_mismatch"

    def value_and_deriv(self, m):
        v, d = super().value_and_deriv(m)
        return v, 0.5 * d


class UnderstatedCurvature(HuberHinge):
    name = "understated"
    curvature = 0.1  # true value 1/(2h) = 1


@pytest.mark.parametrize("loss", [Logistic(), HuberHinge(0.5), HuberHinge(0.05), SmoothHinge(0.3)])
def test_declared_constants_of_shipped_losses_survive_the_probe(loss):
    conds = probe_loss(loss, need_curvature=True)
    assert all(c.holds for c in conds)


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_fused_value_and_deriv_equals_value_and_deriv(name):
    """The solver's one-pass (ℓ, ℓ') is the function the probe checked, to rounding."""
    loss = LOSSES[name]()
    m = np.concatenate([np.linspace(-50, 50, 20001), [-1e6, -745.2, -37.0, 0.0, 37.0, 745.2, 1e6]])
    v, d = loss.value_and_deriv(m)
    np.testing.assert_allclose(v, loss.value(m), rtol=1e-13, atol=1e-300)
    np.testing.assert_allclose(d, loss.deriv(m), rtol=1e-13, atol=1e-17)


def test_subclass_of_logistic_changing_the_loss_is_not_fused():
    v, d = SteepLogistic().value_and_deriv(np.array([-3.0, 0.0, 2.0]))
    np.testing.assert_allclose(d, SteepLogistic().deriv(np.array([-3.0, 0.0, 2.0])))


def test_registry_lists_every_shipped_loss():
    assert set(LOSSES) == {"logistic", "huber", "smooth_hinge"}
    for name, cls in LOSSES.items():
        assert cls.name == name


@pytest.mark.parametrize("loss,fragment", [
    (SteepLogistic(), "derivative bound"),
    (Concave(), "convexity"),
    (NonDCP(), "convexity"),
    (LyingDeriv(), "derivative"),
    (UnderstatedCurvature(1.0 / 2), "curvature bound"),
    (FusedMismatch(), "value_and_deriv"),
])
def test_verifier_refuses_bad_losses(loss, fragment):
    with pytest.raises(dp.PrivacyError, match=fragment):
        verify(_template(loss), epsilon=1.0, mechanism="objective")


def test_output_perturbation_does_not_need_curvature():
    cert, cal = verify(_template(UnderstatedCurvature(0.5)), epsilon=1.0, mechanism="output")
    assert cal.mechanism == "output" and cert.epsilon == 1.0


def test_zero_strong_convexity_refused():
    with pytest.raises(dp.PrivacyError, match="strong convexity"):
        verify(_template(Logistic(), lam=0.0), epsilon=1.0, mechanism="objective")
    with pytest.raises(dp.PrivacyError, match="strong convexity"):
        verify(_template(Logistic(), lam=0.0), epsilon=1.0, mechanism="output")


def test_certificate_lists_how_each_condition_was_established():
    cert, _ = verify(_template(Logistic()), epsilon=1.0, mechanism="objective")
    hows = {c.name: c.how for c in cert.conditions}
    assert hows["convexity"] == "CVXPY DCP analysis"
    assert "numerical probe" in hows["|ℓ'| bound"]
    assert "numerical probe" in hows["ℓ'' bound (c)"]
    d = cert.to_dict()
    assert d["epsilon"] <= 1.0 and d["private"] is True
    text = str(cert)
    assert "jacobian slack" in text and "public parameters" in text
