"""The verifier refuses when a condition of the proof fails, naming the condition."""

import cvxpy as cp
import numpy as np
import pytest

import dpconvex as dp
from dpconvex.objectives.losses import (
    LOSSES,
    HuberHinge,
    HuberRegression,
    Logistic,
    Loss,
    Pinball,
    SmoothHinge,
)
from dpconvex.privacy import checks
from dpconvex.privacy.verify import verify
from dpconvex.templates.linear_erm import LinearERMTemplate


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


class UnderstatedCurvature(Logistic):
    name = "understated"
    curvature = 0.1  # true value 1/4


@pytest.mark.parametrize("loss", [
    Logistic(), HuberHinge(0.5), HuberHinge(0.05), SmoothHinge(0.3), HuberRegression(0.5),
    HuberRegression(2.0, label_range=(-3.0, 10.0)), Pinball(0.9, smoothing=0.01),
    Pinball(0.3, label_range=(0.0, 5.0), smoothing=0.05)], ids=repr)
def test_declared_constants_of_shipped_losses_survive_the_probe(loss):
    """The probe states only what it establishes itself (the atom table, or declared), never
    the class's derivation, which a fit states."""
    conds = checks.probe_loss(loss, need_curvature=True, caller="test")
    assert all(c.holds for c in conds)
    hows = {c.how for c in conds if c.name.endswith("bound") or c.name.endswith("(c)")}
    assert hows <= {"derived on all of ℝ from the CVXPY form's atoms", "declared, not verified"}
    if type(loss) is Logistic:  # cp.logistic(-m): the table derives both bounds
        assert hows == {"derived on all of ℝ from the CVXPY form's atoms"}


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
    (UnderstatedCurvature(), "curvature bound"),
])
def test_verifier_refuses_bad_losses(loss, fragment):
    with pytest.raises(dp.PrivacyError, match=fragment):
        verify(_template(loss), epsilon=1.0, mechanism="objective")


@pytest.mark.parametrize("loss,fragment", [
    (LyingDeriv(), "derivative"),
    (FusedMismatch(), "value_and_deriv"),
])
def test_a_wrong_numpy_form_is_refused_by_the_probe_and_not_solved(loss, fragment):
    """The probe refutes a NumPy form that is not its own derivative (or fused form); a
    template solves the form compiled from the loss's CVXPY form, so those methods are not
    what a release minimizes."""
    with pytest.raises(dp.PrivacyError, match=fragment):
        checks.check_loss(loss, need_curvature=True, caller="test")
    template = _template(loss)
    assert template.loss.solved_from == type(loss).__qualname__
    cert, _ = verify(template, epsilon=1.0, mechanism="objective")
    assert cert.all_hold


def test_output_perturbation_checks_the_curvature_too():
    """A residual certifies the minimizer of a smooth objective only: the curvature is a
    condition of output perturbation's release as of objective perturbation's."""
    with pytest.raises(dp.PrivacyError, match="curvature bound"):
        verify(_template(UnderstatedCurvature()), epsilon=1.0, mechanism="output")


def test_zero_strong_convexity_refused():
    with pytest.raises(dp.PrivacyError, match="strong convexity"):
        verify(_template(Logistic(), lam=0.0), epsilon=1.0, mechanism="objective")
    with pytest.raises(dp.PrivacyError, match="strong convexity"):
        verify(_template(Logistic(), lam=0.0), epsilon=1.0, mechanism="output")


def test_certificate_lists_how_each_condition_was_established():
    cert, _ = verify(_template(Logistic()), epsilon=1.0, mechanism="objective")
    hows = {c.name: c.how for c in cert.conditions}
    assert "convexity" not in hows  # a shipped loss: its derivation, no DCP analysis
    for name in ("loss convexity", "loss forms agree", "|ℓ'| bound", "ℓ'' bound (c)"):
        # a shipped loss: its derivation (the fast tests probe its class)
        assert hows[name] == "derived (docs/privacy/linear_erm.md#privacy-loss-constants)"
    mine = Loss.from_cvxpy(lambda m: cp.logistic(-m), name="mine")
    cert, _ = verify(_template(mine), epsilon=1.0, mechanism="objective")
    hows = {c.name: c.how for c in cert.conditions}
    assert hows["convexity"] == "CVXPY DCP analysis"
    assert hows["loss convexity"] == "numerical probe"
    # a user's loss, Loss.from_cvxpy's too: solved as dpconvex compiled it from its CVXPY form
    assert hows["loss forms agree"] == "compiled from the CVXPY form; numerical comparison"
    assert hows["|ℓ'| bound"] == hows["ℓ'' bound (c)"] == (
        "derived on all of ℝ from the CVXPY form's atoms")
    d = cert.to_dict()
    assert d["epsilon"] <= 1.0 and d["private"] is True
    text = str(cert)
    assert "jacobian slack" in text and "public parameters" in text


# ------------------------------------------------ (ε, δ) mechanisms through verify(delta=)
def _flat_quantities(cert):
    """Every quantity of a certificate and its parts, keyed by (part path, name)."""
    out = {((), k): v for k, v in cert.quantities.items()}
    for i, part in enumerate(cert.parts):
        out.update({((i, *path), k): v for (path, k), v in _flat_quantities(part).items()})
    return out


def _sigmas(cert):
    """The Gaussian noise scales a certificate states (its own and its parts')."""
    return {key: v for key, v in _flat_quantities(cert).items()
            if "noise std" in key[1] or key[1] == "delta at sigma"}


def _unit_ball_binary(seed=3, n=120, d=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]  # no clipping by data_norm=1
    y = (X[:, 0] + 0.2 * rng.normal(size=n) > 0).astype(int)
    return X, y


@pytest.mark.parametrize("mechanism,optimality_tol", [
    ("gaussian_objective", None), ("gaussian_output", None),
    ("gaussian_objective", 1e-4), ("gaussian_output", 1e-4)])  # the last two: gaussian_amp
def test_verify_gaussian_sigma_equals_the_estimators_fit(mechanism, optimality_tol):
    X, y = _unit_ball_binary()
    eps, delta, lam = 0.7, 1.0 / len(y) ** 2, 0.05
    est = dp.PrivateLogisticRegression(
        epsilon=eps, delta=delta, lam=lam, mechanism=mechanism, fit_intercept=False,
        data_norm=1.0, optimality_tol=optimality_tol, random_state=0).fit(X, y)
    t = LinearERMTemplate(Logistic(), lam, 1.0, X, np.where(y == 1, 1.0, -1.0))
    cert, cal = verify(t, epsilon=eps, mechanism=mechanism, delta=delta,
                       optimality_tol=optimality_tol)
    expect = "gaussian_amp" if optimality_tol is not None else mechanism
    assert cal.mechanism == expect
    got, fit = _sigmas(cert), _sigmas(est.certificate_)
    assert got and got == fit  # same sigma(s), bit for bit, and the delta they reach
    assert cert.delta == est.certificate_.delta and 0.0 < cert.delta <= delta
    assert cert.private and cert.epsilon == pytest.approx(eps, rel=1e-12)  # float accounting


def test_verify_gaussian_objective_lm_sigma_equals_the_estimators_fit():
    from dpconvex.templates.large_margin import augment_and_scale
    from dpconvex.templates.large_margin_softmax import LargeMarginSoftmaxTemplate

    rng = np.random.default_rng(5)
    y = np.arange(60) % 3
    X = 0.5 * rng.normal(size=(3, 2))[y] + 0.3 * rng.normal(size=(60, 2))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    eps, delta, lam = 2.0, 1e-4, 0.1
    est = dp.PrivateLargeMarginGaussian(
        loss="softmax", mechanism="gaussian_objective", epsilon=eps, delta=delta, lam=lam,
        data_norm=1.0, solver="native", random_state=0).fit(X, y)
    t = LargeMarginSoftmaxTemplate(augment_and_scale(X, 1.0), y, n_classes=3, lam=lam,
                                   data_norm=1.0)
    cert, cal = verify(t, epsilon=eps, mechanism="gaussian_objective_lm", delta=delta)
    sig = _sigmas(cert)
    assert sig and sig == _sigmas(est.certificate_)
    assert cal.extra["noise std"] == sig[((), "noise std sigma")]
    assert cert.delta == est.certificate_.delta


def test_verify_class_sum_gaussian_sigma_equals_the_estimators_fit():
    from dpconvex.estimators.centroids import ClassSumTemplate

    rng = np.random.default_rng(6)
    y = np.arange(40) % 2
    U = rng.normal(size=(40, 3))
    U /= np.linalg.norm(U, axis=1)[:, None]  # what row_norm="unit" makes of X (data_norm=1)
    X = 0.5 * U  # inside the bound: no clipping
    est = dp.PrivateGaussianCentroid(epsilon=1.0, delta=1e-3, mechanism="gaussian",
                                     random_state=0).fit(X, y)
    t = ClassSumTemplate(U, y, 2)
    cert, cal = verify(t, epsilon=1.0, mechanism="gaussian", delta=1e-3)
    assert cal.extra["noise std"] == est.certificate_.quantities["noise std sigma"]
    assert _sigmas(cert) == _sigmas(est.certificate_)
    # the pure alternative on the same template needs delta = 0
    verify(t, epsilon=1.0, mechanism="norm_gamma_sum")
    with pytest.raises(dp.ParameterError, match="pure epsilon-DP"):
        verify(t, epsilon=1.0, mechanism="norm_gamma_sum", delta=1e-3)


@pytest.mark.parametrize("mechanism,tol", [("gaussian_objective", None),
                                           ("gaussian_output", None),
                                           ("gaussian_objective", 1e-4)])
def test_verify_gaussian_with_delta_zero_is_a_named_error(mechanism, tol):
    with pytest.raises(dp.ParameterError, match=r"needs delta > 0 \(got 0.0\)"):
        verify(_template(Logistic()), epsilon=1.0, mechanism=mechanism, optimality_tol=tol)


@pytest.mark.parametrize("mechanism,tol", [("objective", None), ("output", None),
                                           ("objective", 1e-4)])
def test_verify_pure_with_positive_delta_is_a_named_error(mechanism, tol):
    with pytest.raises(dp.ParameterError, match="is pure epsilon-DP: use delta = 0"):
        verify(_template(Logistic()), epsilon=1.0, mechanism=mechanism, delta=1e-5,
               optimality_tol=tol)


@pytest.mark.parametrize("delta", [-1e-5, 1.0, 2.0, float("nan"), True, "1e-5"])
def test_verify_refuses_invalid_delta(delta):
    with pytest.raises(dp.ParameterError, match="'delta' parameter of verify"):
        verify(_template(Logistic()), epsilon=1.0, mechanism="gaussian_objective", delta=delta)


def test_verify_pure_default_delta_unchanged_and_stated():
    cert, cal = verify(_template(Logistic()), epsilon=1.0, mechanism="objective")
    assert cert.delta == 0.0 and cal.delta == 0.0
    assert cert.private and cert.epsilon == pytest.approx(1.0, rel=1e-12)  # float accounting
    # the non-private baseline ignores epsilon and delta
    cert, cal = verify(_template(Logistic()), epsilon=1.0, mechanism="none", delta=0.5)
    assert cal is None and not cert.private
