"""NoisyGradientDescent and a user's loss: the rows are read only by a shipped loss as built or
by the NumPy form dpconvex compiles from the user's CVXPY form, never by the user's object."""

from __future__ import annotations

import pickle

import cvxpy as cp
import numpy as np
import pytest
from scipy.special import expit

import dpconvex as dp
from dpconvex import Loss, NoisyGradientDescent
from dpconvex.errors import PrivacyError
from dpconvex.objectives import Logistic
from dpconvex.privacy.mechanisms.base import get_mechanism
from dpconvex.templates.statistics import EmpiricalRiskTemplate


class Coupled(Loss):
    """The logistic loss whose ``deriv`` flips its sign when it is given many margins at once,
    one of them below -0.05: it couples the records (a neighbour changes every gradient)."""

    name = "coupled"
    deriv_bound = 1.0
    curvature = 0.25

    def value(self, m):
        return np.logaddexp(0.0, -np.asarray(m, dtype=float))

    def deriv(self, m):
        m = np.asarray(m, dtype=float)
        d = -expit(-m)
        return -d if (m.size > 100 and m.min() < -0.05) else d

    def deriv2(self, m):
        s = expit(np.asarray(m, dtype=float))
        return s * (1 - s)


class CoupledWithForm(Coupled):
    """The coupled ``deriv``, with the logistic loss's CVXPY form."""

    def cvxpy_expr(self, m):
        return cp.logistic(-m)


class Keeper(CoupledWithForm):
    """Keeps every array of margins any of its methods is given, in a list of its own."""

    def __init__(self):
        self.seen = []

    def value(self, m):
        self.seen.append(np.array(m, dtype=float, copy=True))
        return super().value(m)

    def deriv(self, m):
        self.seen.append(np.array(m, dtype=float, copy=True))
        return super().deriv(m)

    def deriv2(self, m):
        self.seen.append(np.array(m, dtype=float, copy=True))
        return super().deriv2(m)


def _data(n=300):
    """Two separable classes; every record's margin is negative at the first steps' θ for
    half the rows (labels by the sign of the first feature)."""
    rng = np.random.default_rng(0)
    X = np.c_[rng.choice([-1, 1], n) * rng.uniform(0.4, 0.7, n), rng.uniform(-0.5, 0.5, n)]
    return X, np.where(X[:, 0] > 0, 1, -1)


def _fit(loss, X, y, seed=0):
    return NoisyGradientDescent(loss=loss, epsilon=1.0, delta=1e-5, steps=20, classes=[-1, 1],
                                random_state=seed).fit(X, y)


def test_a_loss_without_a_cvxpy_form_is_refused_before_the_rows_are_read():
    X, y = _data()
    est = NoisyGradientDescent(loss=Coupled(), epsilon=1.0, delta=1e-5, classes=[-1, 1])
    with pytest.raises(PrivacyError, match=r"^The 'loss' parameter of NoisyGradientDescent must "
                                           r"be .*CVXPY form.*Got loss 'coupled' of class "
                                           r"Coupled.*Loss\.from_cvxpy"):
        est.plan(300, n_classes=2, n_features=2)  # the public shape only
    with pytest.raises(PrivacyError, match="'coupled' of class Coupled"):
        est.fit(X, y)


def test_the_mechanism_refuses_a_template_whose_loss_has_no_cvxpy_form():
    X, y = _data()
    template = EmpiricalRiskTemplate(Coupled(), 1.0, X, y)
    with pytest.raises(PrivacyError, match=r"^release: loss 'coupled' of class Coupled has "
                                           r"no CVXPY form"):
        dp.release(template, get_mechanism("noisy_gd", steps=20, accounting="rdp"),
                   dp.Budget(1.0, 1e-5), rng=0)


def test_a_users_loss_runs_on_its_compiled_form_and_its_methods_see_no_margin():
    """The coupled ``deriv`` is never called: the release is that of the same CVXPY form
    stated by Loss.from_cvxpy, with the same noise (both compiled from one tree: equal to
    rounding, 1e-12 relative), and no method of the object given reads a margin."""
    X, y = _data()
    keeper = Keeper()
    fitted = _fit(keeper, X, y)
    assert keeper.seen == [] and fitted.loss is keeper
    stated = _fit(Loss.from_cvxpy(lambda m: cp.logistic(-m), name="coupled", deriv_bound=1.0,
                                  curvature=0.25), X, y)
    np.testing.assert_allclose(fitted.coef_, stated.coef_, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(fitted.intercept_, stated.intercept_, rtol=1e-12, atol=1e-15)
    # the pickled model holds the object as given, with nothing of the rows
    assert pickle.loads(pickle.dumps(fitted)).loss.seen == []


def test_a_neighbour_moves_the_compiled_run_like_one_record():
    """Replacing one record moves the release by at most what 2C/n allows (the same noise
    draws, seed 0): each step's map θ ↦ θ − η G(θ; D) is non-expansive (G the gradient of the
    clipped convex surrogate, L-smooth with L = c q̃², η <= 2/L; the projection too), G(·; D)
    and G(·; D') differ by at most 2C/n, and the snap of each noisy gradient to its grid
    g <= s 2^-20 adds at most g per coordinate. The coupled deriv would flip every gradient."""
    X, y = _data()
    X2, y2 = X.copy(), y.copy()
    X2[0], y2[0] = [0.99, 0.0], -1
    a, b = _fit(CoupledWithForm(), X, y), _fit(CoupledWithForm(), X2, y2)
    # every iterate, hence their average: ‖θ_t − θ'_t‖ <= t η (2C/n + √p g)
    grid = a.noise_std_ * 2.0**-20
    bound = a.steps_ * a.learning_rate_ * (2 * a.clip_ / X.shape[0] + np.sqrt(3) * grid)
    moved = np.linalg.norm(np.r_[a.coef_[0] - b.coef_[0], a.intercept_ - b.intercept_])
    assert moved <= bound * (1 + 1e-9)


def test_a_shipped_loss_as_built_is_the_loss_run():
    loss = Logistic()
    est = NoisyGradientDescent(loss=loss, epsilon=1.0, delta=1e-5, classes=[-1, 1])
    assert est.public_template(est.plan(300, n_classes=2, n_features=2)).loss is loss


@pytest.fixture
def compiles(monkeypatch):
    """The number of losses compiled (:class:`CVXPYLoss` built) since the test began."""
    from dpconvex.objectives.losses import CVXPYLoss

    built = [0]
    init = CVXPYLoss.__init__

    def counted(self, *args, **kwargs):
        built[0] += 1
        init(self, *args, **kwargs)

    monkeypatch.setattr(CVXPYLoss, "__init__", counted)
    return built


def test_a_fit_compiles_a_users_loss_once_and_its_run_reads_that_form(compiles):
    """The plan compiles the CVXPY form; the template the run reads holds it (run compiles
    nothing more), and the certificate states which class's form read the rows."""
    from dpconvex.privacy.checks import is_compiled

    X, y = _data(100)
    est = NoisyGradientDescent(loss=Keeper(), epsilon=1.0, delta=1e-5, steps=5, classes=[-1, 1])
    plan = est.plan_for(X, y)
    prep = est.prepare(X, y, plan)
    assert compiles[0] == 1 and prep.template.loss is plan.loss and is_compiled(plan.loss)
    fitted = est.fit_prepared(prep, plan)
    assert compiles[0] == 1
    [stated] = [c for c in fitted.certificate_.conditions
                if c.how == "compiled from the CVXPY form"]
    assert stated.holds and "CVXPY form of class Keeper" in stated.detail
    compiles[0] = 0
    _fit(Keeper(), X, y)  # a whole fit: plan, prepare and run
    assert compiles[0] == 1


def test_a_shipped_loss_states_no_compiled_form():
    fitted = _fit(Logistic(), *_data(100))
    assert all(c.how != "compiled from the CVXPY form" for c in fitted.certificate_.conditions)


def test_a_template_built_with_the_users_object_is_compiled_once_by_the_run(compiles):
    """release(template, "noisy_gd") with the user's object: the run compiles it (once), its
    methods see no margin, and the certificate states the compiled form."""
    X, y = _data(100)
    keeper = Keeper()
    released = dp.release(EmpiricalRiskTemplate(keeper, 1.0, X, y),
                          get_mechanism("noisy_gd", steps=5, accounting="rdp"),
                          dp.Budget(1.0, 1e-5), rng=0)
    assert compiles[0] == 1 and keeper.seen == []
    assert any(c.how == "compiled from the CVXPY form" and "class Keeper" in c.detail
               for c in released.certificate.conditions)


def test_a_compiled_loss_changed_after_its_plan_is_not_run_as_changed(compiles):
    """A method set on the template's compiled loss makes it no longer dpconvex's compiled
    form: the run compiles its CVXPY tree afresh and never calls the method set."""
    X, y = _data(100)
    est = NoisyGradientDescent(loss=Keeper(), epsilon=1.0, delta=1e-5, steps=5, classes=[-1, 1],
                               random_state=0)
    plan = est.plan_for(X, y)
    prep = est.prepare(X, y, plan)
    called = []
    prep.template.loss.deriv = lambda m: called.append(m) or np.zeros_like(m)
    est.fit_prepared(prep, plan)
    assert called == [] and compiles[0] == 2
