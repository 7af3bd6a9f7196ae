"""A user's own objective is checked, never trusted (docs/privacy/user_objectives.md#privacy-user-objectives).

Each case of the review: labels outside a margin loss's domain, a template declaring a
gradient bound it does not have, constraints a backend would drop, slope bounds that hold
on a window only, a CVXPY form that is not the NumPy loss, a template missing members. Each
is refused before any noise is drawn; a user template that meets its declarations releases
with every condition's "how" in the certificate.
"""

from __future__ import annotations

import sys
import warnings

import cvxpy as cp
import numpy as np
import pytest
from scipy.special import expit

import dpconvex as dp
from dpconvex.errors import DataValidationError, ParameterError, PrivacyError
from dpconvex.objectives import L2, HuberHinge, HuberRegression, Logistic, Loss, Pinball, SmoothHinge
from dpconvex.objectives.atoms import ATOMS, CompiledForm, Smoothing, derive_bounds
from dpconvex.objectives.losses import CVXPYLoss, pinball
from dpconvex.privacy.certificate import LossSmoothing
from dpconvex.privacy.checks import check_loss
from dpconvex.templates import EuclideanSpace, LinearERMTemplate, PrivacyConstants, RecordDomain
from dpconvex.templates.base import natural_residual


def _rows(n=120, d=3, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    signs = np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, signs


# ------------------------------------------------------------------------ labels
@pytest.mark.parametrize("labels", ["ten", "zero_one", "continuous"])
def test_margin_template_refuses_labels_outside_plus_minus_one(labels):
    X, s = _rows()
    y = {"ten": 10 * s, "zero_one": (s + 1) / 2, "continuous": 0.5 * s}[labels]
    with pytest.raises(DataValidationError, match=r"labels in \{-1, \+1\}"):
        LinearERMTemplate(Logistic(), 0.1, 1.0, X, y)


def test_labels_changed_after_construction_are_refused_at_release():
    X, s = _rows()
    t = LinearERMTemplate(Logistic(), 0.1, 1.0, X, s)
    t.y = 10 * s
    with pytest.raises(DataValidationError, match=r"\{-1, \+1\}"):
        dp.release(t, "objective", dp.Budget(1.0), dry_run=True)


def test_label_condition_is_in_the_certificate():
    X, s = _rows()
    cert = dp.release(LinearERMTemplate(Logistic(), 0.1, 1.0, X, s), "objective", dp.Budget(1.0),
                      dry_run=True).certificate
    assert any(c.name == "labels in {-1, +1}" and c.how == "checked on every label"
               for c in cert.conditions)


# ------------------------------------------------------------- a user's template
class UserLogistic:
    """Logistic regression written against dpconvex.templates.base, from scratch."""

    name = "user logistic"
    kind = "user"
    noise_symmetric = False
    residual_tol = 1e-6

    def __init__(self, X, y, lam=0.1, grad_bound=1.0, per_record=True):
        self.X, self.y = X, y
        self.n, self.p = X.shape
        self.regularizer = L2(lam)
        self.space = EuclideanSpace((self.p,))
        self.noise_shape = (self.p,)
        self.declared_G = grad_bound
        self.capabilities = frozenset({"objective", "smooth"} | ({"per_record"} if per_record else set()))
        if per_record:
            self.record_domain = RecordDomain(self.p, 1.0, labels=(-1.0, 1.0))

    def record_gradients(self, w, X, y):
        m = y * (np.asarray(X) @ w)
        return (-y * expit(-m))[:, None] * np.asarray(X)

    def privacy_constants(self):
        return PrivacyConstants(self.declared_G, 1, 0.25, self.regularizer.strong_convexity, self.p)

    def objective(self, w, b=None, extra_reg=0.0):
        b = np.zeros(self.p) if b is None else b
        m = self.y * (self.X @ w)
        reg = self.regularizer.lam + extra_reg
        val = np.mean(np.logaddexp(0, -m)) + 0.5 * reg * w @ w + b @ w / self.n
        grad = self.X.T @ (-self.y * expit(-m)) / self.n + reg * w + b / self.n
        return float(val), grad

    def residual(self, w, b=None, extra_reg=0.0):
        return float(np.linalg.norm(self.objective(w, b, extra_reg)[1]))

    @staticmethod
    def distance_bound(residual, mu):
        return residual / mu

    def conditions(self, needs):
        return []

    def assumptions(self, needs):
        return ["a user's logistic template"]


def test_a_user_template_that_meets_its_declarations_releases_with_each_how():
    X, s = _rows()
    with pytest.raises(PrivacyError, match=r"nobody verified.*vouch=\('grad_bound', 'hessian', "
                                           r"'objective'\)"):
        dp.release(UserLogistic(X, s), "objective", dp.Budget(1.0), rng=0)   # probed, not proved
    rel = dp.release(UserLogistic(X, s), "objective", dp.Budget(1.0), rng=0,
                     vouch=("grad_bound", "hessian", "objective"))
    conds = {c.name: c for c in rel.certificate.conditions}
    for name in ("G (per-record gradient bound)", "Hessian rank r, term bound c_u, trace T"):
        assert conds[name].vouched and conds[name].holds
    assert [conds[name].unverified for name in ("G (per-record gradient bound)",
                                                 "Hessian rank r, term bound c_u, trace T")] == [
        "grad_bound", "hessian"]
    assert conds["strong convexity mu"].how.startswith("derived from the regularizer")
    hows = {c.name: c.how for c in rel.certificate.conditions}
    assert "user template" in hows
    assert rel.theta.shape == (3,)


def test_a_probed_modulus_of_a_users_regularizer_is_vouched_for_not_verified():
    """A regularizer dpconvex does not ship (here a subclass of L2) has its μ probed at four
    scales of pairs: a ridge that turns linear beyond them would pass, so μ is declared."""
    class MyL2(L2):
        pass

    X, s = _rows()
    t = UserLogistic(X, s)
    t.regularizer = MyL2(0.1)
    with pytest.raises(PrivacyError, match=r"strong convexity mu \[strong_convexity\]"):
        dp.release(t, "objective", dp.Budget(1.0), dry_run=True,
                   vouch=("grad_bound", "hessian", "objective"))
    cert = dp.release(t, "objective", dp.Budget(1.0), dry_run=True,
                      vouch=("grad_bound", "hessian", "objective", "strong_convexity")).certificate
    mu = next(c for c in cert.conditions if c.name == "strong convexity mu")
    assert mu.unverified == "strong_convexity" and mu.vouched


def test_a_users_class_sum_template_is_not_said_to_be_clipped_by_dpconvex():
    """A subclass of the centroids' template whose rows are the user's own, unclipped: its row
    bound is vouched for, and no line says dpconvex enforced it or cites a derivation the
    subclass names for itself."""
    from dpconvex.estimators.centroids import ClassSumTemplate

    class Mine(ClassSumTemplate):
        derivation = "my own proof"

        def __init__(self, U, y):
            super().__init__(U, y, 2, data_norm=1.0)
            self.X = np.asarray(U, float)

    rng = np.random.default_rng(0)
    rel = dp.release(Mine(5 * rng.normal(size=(50, 3)), rng.integers(0, 2, 50)), "norm_gamma_sum",
                     dp.Budget(1.0), rng=0, vouch=("data_norm",))
    hows = {c.name: c.how for c in rel.certificate.conditions}
    # none of the shipped template's row conditions ("row norm bound", "feature bound": checked
    # and enforced by dpconvex): the row bound is the vouched one only
    assert list(hows) == ["user template", "row norm bound of the cell sums",
                          "replace-one sensitivity", "noise calibration"]
    assert [c.unverified for c in rel.certificate.conditions if c.vouched] == ["data_norm"]
    assert hows["row norm bound of the cell sums"].startswith("declared; vouched for")
    assert hows["replace-one sensitivity"] == "derived (docs/privacy/large_margin.md#privacy-class-centroids)"


def test_a_user_template_understating_G_is_refused():
    X, s = _rows()
    with pytest.raises(PrivacyError, match=r"G = 0\.001.*record_gradients gives 1"):
        dp.release(UserLogistic(X, s, grad_bound=1e-3), "objective", dp.Budget(1.0), dry_run=True)


def test_constants_nobody_can_check_are_refused_unless_vouched():
    X, s = _rows()
    t = UserLogistic(X, s, grad_bound=1e-3, per_record=False)
    with pytest.raises(PrivacyError, match=r"verified.*vouch=\('grad_bound', 'hessian', 'objective'\)"):
        dp.release(t, "objective", dp.Budget(1.0), dry_run=True)
    cert = dp.release(t, "objective", dp.Budget(1.0), dry_run=True,
                      vouch=("grad_bound", "hessian", "objective")).certificate
    vouched = [c for c in cert.conditions if c.unverified]
    assert {c.unverified for c in vouched} == {"grad_bound", "hessian", "objective"}
    assert all(c.vouched for c in vouched)
    assert not any(c.vouched for c in cert.conditions if not c.unverified)


def test_the_refusals_name_what_to_pass_and_never_a_probes_value_as_the_bound():
    X, s = _rows()
    with pytest.raises(PrivacyError,  # each, not the ones left
                       match=r"vouch=\('grad_bound', 'hessian', 'objective'\)"):
        dp.release(UserLogistic(X, s), "objective", dp.Budget(1.0), dry_run=True, vouch=("grad_bound",))
    with pytest.raises(PrivacyError) as err:
        dp.release(UserLogistic(X, s, grad_bound=1e-3), "objective", dp.Budget(1.0), dry_run=True)
    assert "a value G must exceed, not G" in str(err.value) and ">=" not in str(err.value)
    with pytest.raises(ParameterError, match="'grad_bound', 'hessian', 'strong_convexity'"):
        dp.PrivateLinearClassifier(loss="logistic", vouch=("G",), classes=[-1, 1]).fit(X, s)


def test_vouching_for_what_no_condition_needs_is_refused():
    X, s = _rows()
    with pytest.raises(ParameterError, match="no condition of this release rests on"):
        dp.release(UserLogistic(X, s), "objective", dp.Budget(1.0), dry_run=True,
                   vouch=("curvature",))
    with pytest.raises(ParameterError, match="not constants a caller can vouch for"):
        dp.release(UserLogistic(X, s), "objective", dp.Budget(1.0), dry_run=True, vouch=("G",))


def test_a_template_missing_members_is_refused_by_name():
    X, s = _rows()
    t = UserLogistic(X, s)
    del t.space
    with pytest.raises(ParameterError, match=r"lacks \['space'"):
        dp.release(t, "objective", dp.Budget(1.0), dry_run=True)


def test_objective_that_is_not_its_records_is_refused():
    X, s = _rows()

    class Doubled(UserLogistic):
        def record_gradients(self, w, X, y):  # half the real per-record gradient
            return 0.5 * super().record_gradients(w, X, y)

    with pytest.raises(PrivacyError, match="not the mean of record_gradients"):
        dp.release(Doubled(X, s), "objective", dp.Budget(1.0), dry_run=True)


def test_a_residual_below_the_optimality_residual_is_refused():
    X, s = _rows()

    class Lenient(UserLogistic):
        def residual(self, w, b=None, extra_reg=0.0):
            return 0.0

    with pytest.raises(PrivacyError, match="residual"):
        dp.release(Lenient(X, s), "objective", dp.Budget(1.0), dry_run=True)


# ------------------------------------------------------------------ constraints
class NonNegative(LinearERMTemplate):
    """A subclass whose CVXPY form adds w >= 0 that its parameter space does not hold."""

    def cvxpy_problem(self):
        form = super().cvxpy_problem()
        if not form["problem"].constraints:
            form["problem"] = cp.Problem(form["problem"].objective, [form["w"] >= 0])
        return form


@pytest.mark.parametrize("backend", [None, "native", "clarabel"])
def test_constraints_the_space_does_not_hold_are_refused_on_every_backend(backend):
    X, s = _rows()
    with pytest.raises(PrivacyError, match=r"constraint 0\.0 <= .*no backend can honour"):
        dp.release(NonNegative(Logistic(), 0.1, 1.0, X, s), "objective", dp.Budget(1.0),
                   backend=backend)


def test_a_subclass_without_changes_releases_as_a_user_template():
    X, s = _rows()

    class Same(LinearERMTemplate):
        pass

    cert = dp.release(Same(Logistic(), 0.1, 1.0, X, s), "objective", dp.Budget(1.0),
                      dry_run=True, vouch=("grad_bound", "hessian", "objective",
                                           "template_conditions")).certificate
    names = [c.name for c in cert.conditions]
    assert "user template" in names and "CVXPY form = objective over the parameter space" in names


#: The conditions on a user's objective (and the records it reads) that a check at probe
#: points can refute and never prove: declared, not verified, vouched for as "objective".
_OBJECTIVE_CONDITIONS = ("records in the public record domain",
                         "objective = mean per-record loss + regularizer + noise term",
                         "objective, gradient and residual consistent")


def _switching(honest_while):
    """A user's template whose objective is the honest mean over its records while
    ``honest_while()`` holds, and another data set's (rows of norm 100) otherwise."""
    X, s = _rows()
    hidden = LinearERMTemplate(Logistic(), 0.1, 100.0, 100.0 * X, s)

    class Switching(LinearERMTemplate):
        name = "switching"

        def objective(self, w, b=None, extra_reg=0.0):
            if honest_while():
                return super().objective(w, b, extra_reg)
            return hidden.objective(w, b, extra_reg)

    return Switching(Logistic(), 0.1, 1.0, X, s)


def _checking():  # dpconvex's declaration checks on the stack
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_globals.get("__name__") == "dpconvex.privacy.declarations":
            return True
        frame = frame.f_back
    return False


def _counting():
    calls = [0]

    def honest():  # the first 42 calls (the checks'), then the other data set's
        calls[0] += 1
        return calls[0] <= 42

    return honest


@pytest.mark.parametrize("honest_while", [lambda: _checking, _counting], ids=["stack", "count"])
@pytest.mark.parametrize("mech, vouch", [
    ("objective", ("grad_bound", "hessian", "template_conditions")),
    ("output", ("grad_bound", "template_conditions"))])
def test_a_users_objective_is_vouched_for_never_verified_by_a_probe(honest_while, mech, vouch):
    """An objective that is honest only while it is checked (by the stack, or by a count of its
    calls) passes every probe: a probe refutes a user's objective, it cannot prove one, so the
    release is refused until the caller vouches for "objective", and the certificate says so."""
    with pytest.raises(PrivacyError, match=r"\[objective\]: .*vouch=\(.*'objective', "
                                           r"'template_conditions'\)"):
        dp.release(_switching(honest_while()), mech, dp.Budget(1.0), rng=0, vouch=vouch)
    rel = dp.release(_switching(honest_while()), mech, dp.Budget(1.0), rng=0,
                     vouch=(*vouch, "objective"))
    conds = {c.name: c for c in rel.certificate.conditions}
    for name in _OBJECTIVE_CONDITIONS:
        assert conds[name].unverified == "objective" and conds[name].vouched, name
        assert conds[name].how == "declared; vouched for by the caller (vouch=), not verified"
    assert "not refuted at the probe point" in conds[_OBJECTIVE_CONDITIONS[1]].detail
    assert not any(c.how.startswith("checked") or c.how.startswith("numerical comparison of")
                   for c in rel.certificate.conditions if c.name in _OBJECTIVE_CONDITIONS)


def test_a_shipped_templates_objective_stays_checked_with_a_users_part():
    """dpconvex's own objective, with a user's regularizer: its checks establish it (no
    "objective" to vouch for); the same objective set on the instance is the user's."""
    class MyL2(L2):
        pass

    X, s = _rows()
    t = LinearERMTemplate(Logistic(), 0.1, 1.0, X, s)
    t.regularizer = MyL2(0.1)
    cert = dp.release(t, "objective", dp.Budget(1.0), dry_run=True,
                      vouch=("grad_bound", "hessian", "strong_convexity")).certificate
    conds = {c.name: c for c in cert.conditions}
    assert conds[_OBJECTIVE_CONDITIONS[0]].how == "checked on every record"
    assert conds[_OBJECTIVE_CONDITIONS[1]].how.startswith("numerical comparison of gradients")
    assert not any(c.unverified == "objective" for c in cert.conditions)
    t = LinearERMTemplate(Logistic(), 0.1, 1.0, X, s)
    t.objective = t.objective  # the same function, set on the instance: the user's
    with pytest.raises(PrivacyError, match=r"\[objective\]"):
        dp.release(t, "objective", dp.Budget(1.0), dry_run=True, vouch=("grad_bound", "hessian"))


def test_the_gradient_span_a_gaussian_bound_reads_is_vouched_for_not_trusted():
    """A user template's k (and softmax form) sets the Gaussian σ: declared, never checked."""
    X, s = _rows()

    class Narrower(LinearERMTemplate):
        gradient_difference_rank = 1  # false: differences span {x, x'}

    t, budget = Narrower(Logistic(), 0.1, 1.0, X, s), dp.Budget(1.0, 1e-6)
    stated = "template_conditions"  # the conditions its class inherits: its own statements
    with pytest.raises(PrivacyError, match=r"gradient_span.*k = 1 \(the template's.*vouch=\('grad_bound', "
                                           r"'gradient_span', 'hessian', 'objective', "
                                           r"'template_conditions'\)"):
        dp.release(t, "gaussian_objective", budget, dry_run=True,
                   vouch=("grad_bound", "hessian", "objective", stated))
    cert = dp.release(t, "gaussian_objective", budget, dry_run=True,
                      vouch=("grad_bound", "gradient_span", "hessian", "objective", stated)
                      ).certificate
    span = next(c for c in cert.conditions if c.unverified == "gradient_span")
    assert span.vouched and span.holds
    # the pure mechanism reads no span: vouching for it there is refused as a typo
    with pytest.raises(ParameterError, match="no condition of this release rests on"):
        dp.release(t, "objective", dp.Budget(1.0), dry_run=True,
                   vouch=("grad_bound", "gradient_span", "hessian", "objective", stated))


# --------------------------------------------------------- loss bounds on all of R
class SquaredHinge(Loss):
    name = "squared_hinge"
    deriv_bound = 2.1e6  # holds on [-1e6, 1e6] only
    curvature = 2.0

    def value(self, m):
        return np.maximum(0.0, 1 - np.asarray(m, float)) ** 2

    def deriv(self, m):
        return -2 * np.maximum(0.0, 1 - np.asarray(m, float))

    def deriv2(self, m):
        return np.where(np.asarray(m, float) < 1, 2.0, 0.0)

    def cvxpy_expr(self, m):
        return cp.square(cp.pos(1 - m))


@pytest.mark.parametrize("mechanism", ["objective", "output"])
def test_a_loss_of_unbounded_slope_is_refused_with_the_remedy(mechanism):
    X, s = _rows()
    with pytest.raises(PrivacyError, match=r"unbounded slope on ℝ.*Huberized form.*"
                                           r"for a margin loss, NoisyGradientDescent"):
        dp.release(LinearERMTemplate(SquaredHinge(), 0.1, 1.0, X, s), mechanism, dp.Budget(1.0),
                   dry_run=True)


class NoForm(SmoothHinge):
    """The smooth hinge's code, in a user's class: no derivation on all of R applies."""

    name = "my_smooth_hinge"


def test_a_user_loss_without_a_derivation_is_declared_not_verified():
    X, y = _rows()
    clf = dp.PrivateLinearClassifier(loss=NoForm(0.5), epsilon=1.0, lam=0.1, classes=[-1, 1])
    # no CVXPY form: its convexity is probed too, never proved
    with pytest.raises(PrivacyError, match=r"vouch=\('convexity', 'curvature', 'deriv_bound'\)"):
        clf.certify(X, y)
    cert = clf.set_params(vouch=("deriv_bound", "curvature", "convexity")).certify(X, y)
    lines = [c for c in cert.conditions if c.unverified]
    assert {c.unverified for c in lines} == {"deriv_bound", "curvature", "convexity"}
    assert all(c.how.startswith("declared; vouched") for c in lines)
    with pytest.raises(ParameterError, match="'vouch' parameter"):
        dp.PrivateLinearClassifier(loss=NoForm(0.5), classes=[-1, 1], vouch=("G",)).certify(X, y)


class TenTimes(Logistic):
    name = "ten_times"

    def cvxpy_expr(self, m):
        return 10 * cp.logistic(-m)


def test_a_cvxpy_form_that_is_not_the_numpy_loss_is_solved_and_refused_as_itself():
    """The probe of the loss's own code refutes the agreement; a fit solves the CVXPY form
    (10 logistic(-m), slope 10), whose bound the declared 1 understates: refused as such."""
    X, y = _rows()
    with pytest.raises(PrivacyError, match="CVXPY form gives .* but value\\(\\) gives"):
        check_loss(TenTimes(), need_curvature=True)
    with pytest.raises(PrivacyError, match="derivative bound: loss 'ten_times' declares"):
        dp.PrivateLinearClassifier(loss=TenTimes(), epsilon=1.0, classes=[-1, 1]).certify(X, y)


class SoftplusHinge(Loss):
    """The guide's loss: bounds derived from its CVXPY atoms."""

    name = "softplus_hinge"
    deriv_bound = 1.0

    def __init__(self, t=0.5):
        self.t = t
        self.curvature = 1 / (4 * t)

    def value(self, m):
        return self.t * np.logaddexp(0, (1 - np.asarray(m, float)) / self.t)

    def deriv(self, m):
        return -expit((1 - np.asarray(m, float)) / self.t)

    def deriv2(self, m):
        s = expit((1 - np.asarray(m, float)) / self.t)
        return s * (1 - s) / self.t

    def cvxpy_expr(self, m):
        return self.t * cp.logistic((1 - m) / self.t)


def test_a_user_loss_with_cvxpy_atoms_is_derived_on_the_whole_line():
    conds = {c.name: c for c in check_loss(SoftplusHinge(0.5), need_curvature=True)}
    assert conds["|ℓ'| bound"].how == "derived on all of ℝ from the CVXPY form's atoms"
    assert conds["ℓ'' bound (c)"].how == conds["|ℓ'| bound"].how
    # what the conditions state: t logistic((1 - m)/t) has |ℓ'| <= 1 and ℓ'' <= 1/(4t) = 0.5,
    # derived (no unverified constant), and the declarations meet them
    bounds = [conds["|ℓ'| bound"], conds["ℓ'' bound (c)"]]
    assert all(c.holds and c.unverified == "" for c in bounds)
    assert [c.detail.split(" (atoms ")[0] for c in bounds] == [
        "declared 1 >= derived 1", "declared 0.5 >= derived 0.5"]


def test_a_bound_nobody_declared_is_not_said_to_be_declared():
    stated = Loss.from_cvxpy(lambda m: cp.logistic(-m), curvature=0.3)
    conds = {c.name: c.detail for c in check_loss(stated, need_curvature=True)}
    assert conds["|ℓ'| bound"].startswith("the derived bound 1, none declared")
    assert conds["ℓ'' bound (c)"].startswith("declared 0.3 >= derived 0.25")


@pytest.mark.parametrize("declared", [{"curvature": -1.0}, {"curvature": "x"}, {"deriv_bound": 0.0},
                                      {"deriv_bound": -1.0}, {"deriv_bound": float("nan")},
                                      {"deriv_bound": float("inf")}, {"curvature": True}])
def test_a_declared_bound_that_is_not_a_bound_is_refused_when_the_loss_is_stated(declared):
    """Not a ParameterError-free construction followed by a raw ValueError in the calibration."""
    name = next(iter(declared))
    with pytest.raises(ParameterError, match=f"'{name}' parameter of Loss.from_cvxpy"):
        Loss.from_cvxpy(lambda z, y: cp.huber(z - y, 0.5), kind="regression", label_range=(-1, 1),
                        **declared)


def test_a_loss_without_a_derived_slope_bound_fits_non_privately():
    """No bound is derived (the slope grows with the label): NaN, the same NaN after the solve, so
    the non-private baseline fits; the private mechanisms refuse it by name."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, (100, 2))
    y = X[:, 0] + rng.normal(0, 0.1, 100)
    make = lambda mechanism: dp.PrivateLinearRegressor(  # noqa: E731
        loss=lambda z, t: cp.logistic(-t * z), mechanism=mechanism, label_range=(-1, 1), random_state=0)
    assert np.all(np.isfinite(make("none").fit(X, y).coef_))
    with pytest.raises(ParameterError, match="deriv_bound"):
        make("objective").fit(X, y)


def test_a_loss_that_does_not_depend_on_the_prediction_is_refused_as_such():
    """0·|z − y| (and 0·m) derives slope 0: refused as a loss of slope 0 by the regressor and by
    noisy gradient descent (not as a declared bound: none is declared), with no divide-by-zero
    warning from the calibration on the way."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, (100, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for mechanism in ("auto", "output"):  # the output form's calibration reads G = 0 first
            with pytest.raises(ParameterError, match="slope 0 everywhere"):
                dp.PrivateLinearRegressor(loss=lambda z, t: 0 * cp.abs(z - t), epsilon=1.0,
                                          mechanism=mechanism, label_range=(-1, 1),
                                          random_state=0).fit(X, X[:, 0])
        with pytest.raises(ParameterError, match="NoisyGradientDescent: .* slope 0 everywhere"):
            dp.NoisyGradientDescent(loss=Loss.from_cvxpy(lambda m: 0 * m), epsilon=1.0, delta=1e-5,
                                    random_state=0).fit(X, (X[:, 0] > 0).astype(int))


def test_a_regression_loss_states_its_label_range_once_on_the_regressor():
    # stated without label_range, the loss takes the regressor's (the labels mapped onto
    # [-1, 1]): the same release as the function passed itself, same noise seed
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 3)) / 2
    y = 50 + 20 * X[:, 0] - 20 * X[:, 1] + rng.normal(size=600)
    fn = lambda z, t: cp.maximum(0.8 * (t - z), 0.2 * (z - t))  # noqa: E731
    stated = Loss.from_cvxpy(fn, kind="regression")
    assert stated.awaits_label_range
    fits = [dp.PrivateLinearRegressor(loss=loss, label_range=(0, 100), epsilon=1.0,
                                      random_state=0).fit(X, y) for loss in (stated, fn)]
    np.testing.assert_allclose(fits[0].coef_, fits[1].coef_, rtol=0, atol=1e-12)
    # a template has no range to state it on: refused, naming both ways to give one
    with pytest.raises(ParameterError, match="stated without label_range.*label_range=\\(lo, hi\\)"):
        LinearERMTemplate(stated, 0.1, 1.0, X, np.zeros(600))


def test_a_declared_bound_below_the_derived_one_is_refused():
    class Understated(SoftplusHinge):
        name = "understated"

        def __init__(self):
            super().__init__(0.5)
            self.curvature = 0.49   # the probe's grid sees at most 0.5 near m = 1

        def deriv2(self, m):
            return np.minimum(super().deriv2(m), 0.49)

    with pytest.raises(PrivacyError):
        check_loss(Understated(), need_curvature=True)


# ------------------------------------------------------------------- the atom table
@pytest.mark.parametrize("expr,slope,curv", [
    (lambda m: cp.logistic(-m), 1.0, 0.25),
    (lambda m: 0.5 * cp.logistic((1 - m) / 0.5), 1.0, 0.5),
    (lambda m: cp.huber(cp.pos(1.5 - m), 1.0) / 2.0, 1.0, 1.0),
    (lambda m: cp.pos(1 - m), 1.0, np.inf),
    (lambda m: cp.abs(m - 1) + 2 * cp.logistic(m), 3.0, np.inf),
    (lambda m: cp.log_sum_exp(cp.hstack([0, -m])), 1.0, 0.25),
    (lambda m: cp.huber(cp.abs(m), 2.0), 4.0, 2.0),
    (lambda m: cp.huber(cp.neg(m - 1), 1.0), 2.0, 2.0),
    (lambda m: cp.huber(2 * cp.pos(1 - m), 1.0), 4.0, 8.0),
    (lambda m: cp.square(cp.pos(1 - m)), np.inf, np.inf),
    (lambda m: cp.exp(-m), np.inf, np.inf),
])
def test_atom_bounds_hold_against_finite_differences(expr, slope, curv):
    derived = derive_bounds(expr)
    assert derived.slope == pytest.approx(slope) and derived.curvature == pytest.approx(curv)
    m = np.linspace(-60, 60, 6001)
    point = cp.Parameter(m.size, value=m)  # every margin at once where the form is elementwise
    values = np.asarray(expr(point).value, dtype=float)
    if values.shape != m.shape:  # one scalar at a time (log_sum_exp stacks its arguments) on every
        # 10th margin: a second difference over a wider step never exceeds the curvature
        m = m[::10]
        point = cp.Parameter()
        form = expr(point)
        values = np.empty(m.size)
        for i, v in enumerate(m):
            point.value = v
            values[i] = float(form.value)
    d1 = np.diff(values) / np.diff(m)
    assert np.max(np.abs(d1)) <= derived.slope * (1 + 1e-6)
    if np.isfinite(derived.curvature):
        d2 = np.diff(d1) / np.diff(m)[1:]
        assert np.max(d2) <= derived.curvature * (1 + 1e-3) + 1e-9


def _np_huber(u: np.ndarray, M: float) -> np.ndarray:
    """CVXPY's huber(u, M) in NumPy: u² for |u| <= M, else 2M|u| − M²."""
    return np.where(np.abs(u) <= M, u ** 2, 2 * M * np.abs(u) - M * M)


def _random_loss(rng, depth):
    """A random composition of the table's atoms: (CVXPY form of (z, y), the same in NumPy)."""
    kind = rng.integers(0, 18 if depth else 5)
    a, c = float(rng.choice([-2.5, -1.0, -0.5, 0.5, 1.0, 3.0])), float(rng.uniform(-1.5, 1.5))
    if kind == 0:
        return (lambda z, y: a * z + c), (lambda z, y: a * z + c)
    if kind == 1:
        return (lambda z, y: a * (z - y)), (lambda z, y: a * (z - y))
    if kind == 2:
        return (lambda z, y: cp.multiply(y, z)), (lambda z, y: y * z)
    if kind == 3:  # a slope that is a function of the label: |y − c|·z
        return (lambda z, y: cp.multiply(cp.abs(y - c), z)), (lambda z, y: np.abs(y - c) * z)
    if kind == 4:  # y(y − 1)(y + 1)·z: slope 0 at the labels 0 and ±1 only
        return (lambda z, y: cp.multiply(cp.multiply(cp.multiply(y, y - 1), y + 1), z)), \
            (lambda z, y: y * (y - 1) * (y + 1) * z)
    (f, g), (f2, g2) = _random_loss(rng, depth - 1), _random_loss(rng, depth - 1)
    M = abs(c) + 0.25
    return [
        (lambda z, y: cp.logistic(f(z, y)), lambda z, y: np.logaddexp(0, g(z, y))),
        (lambda z, y: cp.huber(f(z, y), M), lambda z, y: _np_huber(g(z, y), M)),
        (lambda z, y: cp.abs(f(z, y)), lambda z, y: np.abs(g(z, y))),
        (lambda z, y: cp.pos(f(z, y)), lambda z, y: np.maximum(g(z, y), 0)),
        (lambda z, y: cp.neg(f(z, y)), lambda z, y: np.maximum(-g(z, y), 0)),
        (lambda z, y: -f(z, y), lambda z, y: -g(z, y)),
        (lambda z, y: a * f(z, y) / 2.0, lambda z, y: a * g(z, y) / 2.0),
        (lambda z, y: cp.multiply(y, f(z, y)), lambda z, y: y * g(z, y)),
        (lambda z, y: f(z, y) + f2(z, y), lambda z, y: g(z, y) + g2(z, y)),
        (lambda z, y: cp.maximum(f(z, y), f2(z, y), c),
         lambda z, y: np.maximum(np.maximum(g(z, y), g2(z, y)), c)),
        (lambda z, y: cp.minimum(f(z, y), c), lambda z, y: np.minimum(g(z, y), c)),
        (lambda z, y: cp.log_sum_exp(cp.hstack([f(z, y), f2(z, y), c])),
         lambda z, y: np.logaddexp(np.logaddexp(g(z, y), g2(z, y)), c)),
        (lambda z, y: cp.exp(f(z, y)) if a > 0 else cp.square(f(z, y)),
         lambda z, y: np.exp(g(z, y)) if a > 0 else g(z, y) ** 2),
    ][kind - 5]


def test_derived_bounds_hold_against_finite_differences_on_random_compositions():
    """Every finite derived bound holds at every label of the range: over 400 random
    compositions of the table's atoms (seed 0), labels dividing [−2, 3] in nine, the slope
    bound is at least every difference quotient and the curvature bound every second
    difference (step 0.005 on [−20, 20]; an exact claim, so the tolerance covers rounding
    only). A composition whose slope the table cannot bound is underived (None), never small."""
    rng = np.random.default_rng(0)
    z = np.linspace(-20.0, 20.0, 8001)[:, None]
    labels = np.linspace(-2.0, 3.0, 10)[None, :]
    dz = np.diff(z, axis=0)  # the steps of the first and of the second differences
    dz2 = dz[1:]
    finite = 0
    for _ in range(400):
        form, numeric = _random_loss(rng, 3)
        derived = derive_bounds(form, (-2.0, 3.0))
        if derived is None or not np.isfinite(derived.slope):
            continue
        finite += 1
        values = np.broadcast_to(numeric(z, labels), (z.size, labels.size))
        d1 = np.diff(values, axis=0) / dz
        assert np.max(np.abs(d1)) <= derived.slope * (1 + 1e-7) + 1e-7, derived
        if np.isfinite(derived.curvature):
            d2 = np.diff(d1, axis=0) / dz2
            assert np.max(d2) <= derived.curvature * (1 + 1e-5) + 1e-4, derived
    assert finite >= 150   # the draw derives most forms: the check is not vacuous


class LabelWeighted(HuberRegression):
    """huber(z − y)/2 + a(y)·huber(z)/2 with a(y) = 5(y³ − y): convex at y = −1, 0, 1 only."""

    def cvxpy_expr(self, z, y):
        return cp.huber(z - y, 1.0) / 2 + cp.multiply(5 * (y**3 - y), cp.huber(z, 1.0) / 2)


def test_convexity_of_a_users_regression_form_holds_at_every_label():
    """A label is a parameter of unknown sign in the DCP check: a form convex only at the
    three labels a sample would take is refused; the same form without the label weight holds."""
    loss = LabelWeighted(1.0, (-1.0, 1.0))
    X, s = _rows()
    template = LinearERMTemplate(loss, 0.1, 1.0, X, 0.5 * s)
    with pytest.raises(PrivacyError, match="not convex under CVXPY's DCP rules"):
        template.conditions(("curvature",))

    class Plain(HuberRegression):
        pass

    conds = LinearERMTemplate(Plain(1.0, (-1.0, 1.0)), 0.1, 1.0, X, 0.5 * s).conditions(("curvature",))
    assert any(c.how == "CVXPY DCP analysis" for c in conds)


def test_a_loss_whose_slope_depends_on_the_label_is_not_derived_from_two_labels():
    """y(y − 1)(y + 1)·z has slope 0 at y = 0 and ±1 and 0.385 at y = ±1/√3."""
    def loss(z, y):
        return cp.huber(cp.multiply(cp.multiply(cp.multiply(y, y - 1), y + 1), z) - y, 1.0) \
            + 0.01 * cp.huber(z - y, 1.0)

    assert derive_bounds(loss, (-1.0, 1.0)) is None
    assert derive_bounds(lambda z, y: cp.logistic(cp.multiply(cp.abs(y - 0.5), z)), (0.0, 10.0)) is None
    X, s = _rows()
    est = dp.PrivateLinearRegressor(loss=loss, label_range=(-1, 1), epsilon=1.0, random_state=0)
    with pytest.raises(ParameterError, match="derives no deriv_bound for its CVXPY form"):
        est.fit(X, s)


def test_derived_bounds_hold_in_real_arithmetic():
    """Each rounded product and sum moves outward: 10^170.5·(10^170.5·(1e-170·(1e-170·m)))
    is 10·m, although 1e-170·1e-170 underflows to 0 in floating point; an exact product stays
    exact (1/3·3 is bounded by one ulp above 1)."""
    big = 10**170.5
    b = derive_bounds(lambda m: cp.logistic(-m) + big * (big * (1e-170 * (1e-170 * m))))
    assert b.slope >= 11.0
    assert derive_bounds(lambda m: cp.logistic(-m / 3) * 3).slope == np.nextafter(1.0, 2.0)
    assert derive_bounds(lambda m: 0.5 * cp.logistic((1 - m) / 0.5)).slope == 1.0


@pytest.mark.parametrize("fn", [lambda m: cp.huber(cp.abs(cp.multiply(2 + 20j, m)), 1.0),
                                lambda m: cp.log_sum_exp(cp.hstack([cp.promote(-m, (3,)), 0]))],
                         ids=["complex constant", "log_sum_exp piece of three entries"])
def test_a_form_its_numpy_form_would_misread_is_refused(fn):
    """The real part of 2 + 20j, or one entry of a promoted piece, is not the stated loss."""
    assert derive_bounds(fn) is None or "log_sum_exp" in derive_bounds(fn).atoms
    with pytest.raises(ParameterError, match="complex, non-scalar or non-finite constant"):
        Loss.from_cvxpy(fn, smoothing=None)


@pytest.mark.parametrize("fn", [lambda m: 1e308 * m + 1e308 * m,
                                lambda m: cp.pos(1 - m) * 1e308 + cp.pos(1 - m) * 1e308,
                                lambda m: cp.log_sum_exp(cp.hstack([0, -1e308 * m, 1e308 * m])),
                                lambda m: cp.logistic(-m) / np.inf,
                                lambda m: np.inf * m + (-np.inf) * m],
                         ids=["sum beyond the float range", "kinks beyond it", "log_sum_exp width",
                              "a division by inf", "inf - inf"])
def test_constants_at_the_ends_of_the_float_range_derive_no_small_bound(fn):
    """A sum beyond the float range is unbounded, an infinite constant bounds nothing: no raw
    OverflowError or ValueError from the exact arithmetic."""
    derived = derive_bounds(fn)
    assert derived is None or derived.slope >= 1e308


SLOPE = 1.0


def test_a_loss_smoothed_later_is_smoothed_from_the_tree_it_was_stated_with():
    global SLOPE
    try:
        loss = Loss.from_cvxpy(lambda m: SLOPE * cp.pos(1 - m))
        SLOPE = 10.0
        assert loss.smoothed(0.5).deriv_bound == 1.0
    finally:
        SLOPE = 1.0


def test_the_slopes_of_a_sum_may_cancel():
    """log cosh(z − y) = logistic(2(z − y)) − (z − y) − log 2: slope in [0, 2] − 1, so |ℓ'| <= 1."""
    b = derive_bounds(lambda z, y: cp.logistic(2 * (z - y)) - (z - y) - np.log(2.0), (-1.0, 1.0))
    assert (b.slope, b.curvature) == (1.0, 1.0)
    assert derive_bounds(lambda m: cp.pos(1 - m) - 0.5 * (1 - m)).slope == 0.5


class _LogisticAsLogSumExp(Logistic):
    def cvxpy_expr(self, m):
        return cp.log_sum_exp(cp.hstack([0, -m]))


@pytest.mark.parametrize("loss", [Logistic(), _LogisticAsLogSumExp(), HuberHinge(0.5),
                                  HuberRegression(0.5), Pinball(0.3)],
                         ids=["logistic", "log_sum_exp", "huber_hinge", "huber_regression", "pinball"])
@pytest.mark.parametrize("n", [2, 4005])
def test_a_compiled_cvxpy_form_equals_the_built_in_loss_far_out(loss, n):
    z = np.r_[np.linspace(-800, 800, 4001), -1e-300, 0.0, 1e-300, 5.0][-n:]
    regression = loss.kind == "regression"
    y = np.resize([-1.0, 0.0, 0.25, 1.0], z.size) if regression else None
    form = CompiledForm((lambda m, label: loss.cvxpy_expr(m, label)) if regression else loss.cvxpy_expr,
                        with_label=regression)
    args = (z, y) if regression else (z,)
    for got, want in zip(form.evaluate(z, y), (loss.value(*args), loss.deriv(*args), loss.deriv2(*args)),
                         strict=True):
        assert got.shape == z.shape and np.all(np.isfinite(got))
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_a_compiled_form_returns_arrays_of_its_own():
    z, y = np.linspace(-2, 2, 5), np.zeros(5)
    for v, d1, d2 in (CompiledForm(lambda m: m, with_label=False).evaluate(z),
                      CompiledForm(lambda m, label: label + 0 * m, with_label=True).evaluate(z, y)):
        for out in (v, d1, d2):
            assert out.shape == z.shape and not np.shares_memory(out, z) and not np.shares_memory(out, y)
        v += 1.0  # writing into a result leaves the inputs as they were
    assert np.array_equal(z, np.linspace(-2, 2, 5)) and not np.any(y)


def test_a_compiled_form_without_its_identity_factor_or_term_is_the_loss():
    # x·1 and x + 0 take no step: the form is x, whichever argument comes last
    z = np.array([-1.0, 0.0, 2.0])
    for fn in (lambda m: cp.logistic(-m) * 1.0, lambda m: cp.logistic(-m) + cp.Constant(0.0),
               lambda m: m * 1.0):
        want = CompiledForm(lambda m, fn=fn: fn(m) + cp.Constant(1.0), with_label=False).evaluate(z)
        got = CompiledForm(fn, with_label=False).evaluate(z)
        assert np.array_equal(got[0] + 1.0, want[0])
        assert np.array_equal(got[1], want[1]) and np.array_equal(got[2], want[2])


def test_a_compiled_form_folds_its_affine_parts_into_one_pass_each():
    # the pinball loss is 19 affine atoms and one kink: its smoothed form is 3 steps, the label
    # and prediction combined once, the Huberized kink, and its scale and offset
    steps = Loss.from_cvxpy(pinball(0.3), kind="regression", label_range=(-1.0, 1.0),
                            smoothing=0.1)._form._steps
    assert [rule.__name__ for _, rule, _, _ in steps] == ["_n_linear", "_n_huber", "_n_linear"]
    # sums, negations, constant factors and divisors around four atoms, against CVXPY's own value
    fn = lambda z, y: (-(2.0 * cp.logistic(3.0 - z / 4.0) - y) / 0.5 + cp.abs(z - 2 * y) * 1.5  # noqa: E731
                       + cp.logistic(-(z - 1.0)) + 0.25 * cp.square(z + y) - 7.0)
    form = CompiledForm(fn, with_label=True)
    assert len(form._steps) == 9  # the four atoms, a combination for each argument and the sum
    z, y = np.array([-3.0, 0.5, 4.0]), np.array([1.0, -0.25, 0.0])
    value, d1, d2 = form.evaluate(z, y)
    for i in range(3):
        zi, yi = cp.Variable(), cp.Parameter(value=y[i])
        zi.value = z[i]
        assert value[i] == pytest.approx(float(fn(zi, yi).value), rel=1e-12)
    h = 1e-5  # the derivatives against central differences (no kink of |z - 2y| near these z)
    plus, minus = form.evaluate(z + h, y), form.evaluate(z - h, y)
    np.testing.assert_allclose(d1, (plus[0] - minus[0]) / (2 * h), rtol=1e-6)
    np.testing.assert_allclose(d2, (plus[1] - minus[1]) / (2 * h), rtol=1e-6)
    # a divisor that cancels to 0, or a constant beyond the float range once multiplied out: no form
    for bad in (lambda z, y: z / (y - y), lambda z, y: np.inf * z, lambda z, y: z * 1e300 * 1e300 * 1e-300,
                lambda z, y: cp.logistic(1e308 * z + 1e308 * z)):
        assert not CompiledForm(bad, with_label=True).supported


def test_an_atom_outside_the_table_derives_nothing():
    assert derive_bounds(lambda m: cp.entr(m)) is None
    assert "entr" not in ATOMS


def test_natural_residual_is_zero_at_a_constrained_minimizer():
    theta, grad = np.array([0.0, 1.0]), np.array([1.0, 0.0])
    assert natural_residual(theta, grad, lambda v: np.maximum(v, 0.0)) == 0.0


# --------------------------------------------- declarations a probe used to miss
def test_a_template_ignoring_extra_reg_is_refused():
    X, s = _rows()

    class NoDelta(LinearERMTemplate):
        def objective(self, w, b=None, extra_reg=0.0):
            return super().objective(w, b, 0.0)

        def residual(self, w, b=None, extra_reg=0.0):
            return super().residual(w, b, 0.0)

    with pytest.raises(PrivacyError, match="extra_reg"):
        dp.release(NoDelta(Logistic(), 1e-4, 1.0, X, s), "objective", dp.Budget(1.0), dry_run=True)


def test_a_record_domain_names_its_labels():
    with pytest.raises(ParameterError, match="exactly one of labels"):
        RecordDomain(3, 1.0)


def test_records_outside_the_domain_or_a_false_n_are_refused():
    X, s = _rows()
    with pytest.raises(PrivacyError, match="rows of norm above"):
        dp.release(UserLogistic(10 * X, s), "objective", dp.Budget(1.0), dry_run=True)
    with pytest.raises(PrivacyError, match="labels outside its record_domain"):
        dp.release(UserLogistic(X, 3 * (s + 1) / 2), "objective", dp.Budget(1.0), dry_run=True)
    t = UserLogistic(X, s)
    t.n = 100 * t.n
    with pytest.raises(PrivacyError, match="declares n = 12000"):
        dp.release(t, "objective", dp.Budget(1.0), dry_run=True)


class FarOut(Logistic):
    """The logistic loss, but value() and deriv() turn quadratic beyond m < -2e6."""

    name = "far_out"

    def value(self, m):
        m = np.asarray(m, float)
        return super().value(m) + np.where(m < -2e6, (-m - 2e6) ** 2, 0.0)

    def deriv(self, m):
        m = np.asarray(m, float)
        return super().deriv(m) - np.where(m < -2e6, 2 * (-m - 2e6), 0.0)

    def value_and_deriv(self, m):
        return self.value(m), self.deriv(m)


def test_a_numpy_form_that_leaves_the_cvxpy_form_far_out_is_refused():
    with pytest.raises(PrivacyError, match="forms"):
        check_loss(FarOut(), need_curvature=False)


@pytest.mark.parametrize("bad", [np.nan, np.inf, "1", None, -1.0])
def test_declared_bounds_must_be_numbers_of_their_range(bad):
    loss = SoftplusHinge()
    loss.deriv_bound = bad
    with pytest.raises(ParameterError, match="declares deriv_bound"):
        check_loss(loss, need_curvature=False)


@pytest.mark.parametrize("bad, message", [(True, "grad_bound.*of type bool"),
                                          ("1", "grad_bound.*of type str"),
                                          (np.array([1.0]), "grad_bound.*of type ndarray"),
                                          (np.nan, "declares grad_bound = nan"),
                                          (0.0, "declares grad_bound = 0.0")])
def test_a_template_declares_its_constants_as_numbers_of_their_range(bad, message):
    # the same reading as a loss's bounds: a bool, a string or an array is no number (refused
    # by its type where the record is made), a number out of its range is refused by the checks
    X, s = _rows()
    with pytest.raises(ParameterError, match=message):
        dp.release(UserLogistic(X, s, grad_bound=bad), "objective", dp.Budget(1.0), dry_run=True)


def test_an_instance_redeclaring_a_shipped_bound_is_checked_as_a_users():
    loss = Logistic()
    loss.curvature = 0.2498
    with pytest.raises(PrivacyError, match="0.25"):
        check_loss(loss, need_curvature=True)


def test_loss_code_that_raises_is_a_named_refusal():
    class Broken(SoftplusHinge):
        name = "broken"

        def deriv(self, m):
            raise ZeroDivisionError("no")

    with pytest.raises(PrivacyError, match="raised ZeroDivisionError"):
        check_loss(Broken(), need_curvature=False)


def test_a_subgradient_at_a_kink_is_accepted():
    class Hinge(Loss):
        name = "hinge"
        deriv_bound = 1.0

        def value(self, m):
            return np.maximum(0.0, 1 - np.asarray(m, float))

        def deriv(self, m):
            return np.where(np.asarray(m, float) < 1, -1.0, 0.0)

        def cvxpy_expr(self, m):
            return cp.pos(1 - m)

    conds = {c.name: c for c in check_loss(Hinge(), need_curvature=False)}
    assert conds["|ℓ'| bound"].how == "derived on all of ℝ from the CVXPY form's atoms"


def test_a_function_of_the_label_is_never_read_as_a_small_constant():
    """y·z has slope |y| <= max(|lo|, |hi|); 2y·z or a kink at y − 1 are not derived lower."""
    assert derive_bounds(lambda z, y: cp.huber(cp.multiply(y, z), 1.0), (-3, 3)).slope == 6.0
    assert derive_bounds(lambda z, y: cp.huber(2 * y * z, 1.0), (-3, 3)) is None
    kinked = derive_bounds(lambda z, y: cp.huber(cp.maximum(z, y - 1), 1.0), (-3, 3))
    assert kinked.curvature == np.inf
    assert derive_bounds(lambda z, y: cp.huber(z - y, 0.5), (0, 10)).slope == 1.0


@pytest.mark.parametrize("fn,kind,says", [
    (lambda m: -cp.square(m), "margin", "not convex in the prediction"),
    (lambda m: cp.huber(m, 1) * cp.huber(m, 1), "margin", "not convex in the prediction"),
    (lambda z, y: cp.square(z) * y, "regression", "unknown sign"),
    (lambda m: 3.0, "margin", "gave float 3.0, not a CVXPY expression"),
    (lambda z, y: cp.log_sum_exp(z) - z[0], "regression", "raised IndexError"),
    (lambda z, y: cp.hstack([z - y, y - z]), "regression", "not a scalar"),
])
def test_a_cvxpy_loss_that_is_not_a_convex_scalar_of_the_prediction_is_refused(fn, kind, says):
    label_range = (-1.0, 1.0) if kind == "regression" else None
    with pytest.raises(ParameterError, match=says):
        dp.Loss.from_cvxpy(fn, kind=kind, label_range=label_range)


def test_a_multiclass_loss_is_refused_with_the_reason_and_the_derived_alternative():
    with pytest.raises(ParameterError) as info:
        dp.Loss.from_cvxpy(lambda z, y: cp.log_sum_exp(z) - z[y], kind="multiclass")
    text = str(info.value)
    assert "rank C" in text and "structure='linear'" in text
    # the alternative it names runs and beats the majority class on a public table
    from sklearn.datasets import load_wine
    from sklearn.preprocessing import StandardScaler

    X, y = load_wine(return_X_y=True)  # a public table: its scale may be read from it here
    X = StandardScaler().fit_transform(X)
    X /= np.linalg.norm(X, axis=1).max()
    fit = dp.PrivateLargeMarginGaussian(loss="softmax", structure="linear", epsilon=4.0,
                                        random_state=0).fit(X, y)
    assert fit.score(X, y) > np.bincount(y).max() / y.size


@pytest.mark.parametrize("fn,kind,says", [
    (lambda m: cp.logistic(-m) + 0.1 * cp.log_sum_exp(-m), "margin",
     r"gives \[1\.87 *, 0\.7445, 0\.2955\], where each alone gives \[ 1\.8514"),
    (lambda m: cp.max(1 - m), "margin",
     r"gives shape \(\), where each alone gives \[ 2\.5 *, +0\.75, -1\. *\]"),
    (lambda m: cp.norm(1 - m, 2), "margin", r"gives shape \(\)"),
    (lambda m: cp.sum_squares(1 - m), "margin", r"gives shape \(\)"),
    (lambda z, y: cp.huber(z - y, 0.5) + cp.log_sum_exp(z), "regression", "gives \\["),
    (lambda z, y: cp.norm(z - y, 1), "regression", r"gives shape \(\)"),
], ids=["log_sum_exp added", "max", "norm", "sum_squares", "log_sum_exp of the predictions",
        "norm of residuals"])
def test_a_cvxpy_loss_that_is_not_elementwise_is_refused_when_stated(fn, kind, says):
    """A reduction over the argument is one number of one prediction but mixes the records of a
    vector, where the CVXPY backends build it: refused by name, with the elementwise atoms to use."""
    label_range = (-1.0, 1.0) if kind == "regression" else None
    what = "predictions" if kind == "regression" else "margins"
    start = r"^Loss.from_cvxpy: loss 'cvxpy_loss': fn\((m|z, y)\) is not elementwise: built on a vector"
    with pytest.raises(ParameterError, match=rf"{start} of 3 {what} .* it {says}") as info:
        dp.Loss.from_cvxpy(fn, kind=kind, label_range=label_range)
    assert "cp.logistic(u) for log(1 + e^u)" in str(info.value)
    X, s = _rows(n=20)
    with pytest.raises(ParameterError, match="is not elementwise"):
        if kind == "margin":
            dp.PrivateLinearClassifier(loss=fn, classes=[-1, 1]).certify(X, s)
        else:
            dp.PrivateLinearRegressor(loss=fn, label_range=(0, 10)).certify(X, 5 + s)


@pytest.mark.parametrize("fn", [lambda m: cp.max(cp.hstack([1 - m, 0])),
                                lambda m: cp.sum(cp.hstack([cp.pos(1 - m), 0]))],
                         ids=["max of a stack", "sum of a stack"])
def test_a_reduction_over_a_records_own_stack_is_refused_for_its_atoms(fn):
    """One number per record (a reduction over a stack of its pieces): refused for the atoms
    outside ATOMS, not as a reduction over the records."""
    with pytest.raises(ParameterError, match="uses an atom outside dpconvex.objectives.atoms.ATOMS"):
        dp.Loss.from_cvxpy(fn)


@pytest.mark.parametrize("fn,kind", [
    (lambda m: cp.pos(1 - m), "margin"), (lambda m: cp.logistic(-m), "margin"),
    (lambda m: cp.log_sum_exp(cp.hstack([0, -m])), "margin"), (lambda m: cp.square(1 - m), "margin"),
    (lambda m: cp.huber(cp.pos(1.5 - m), 1.0) / 2, "margin"), (lambda m: cp.sum(cp.logistic(-m)), "margin"),
    (lambda z, y: cp.abs(z - y), "regression"), (lambda z, y: cp.huber(z - y, 0.5), "regression"),
    (lambda z, y: cp.maximum(0.3 * (y - z), -0.7 * (y - z)), "regression"),
    (lambda z, y: 0.5 * cp.square(z - y), "regression"),
    (lambda z, y: cp.pos(cp.abs(z - y) - 0.1), "regression"),
], ids=["hinge", "logistic", "log_sum_exp of a stack", "squared", "smooth hinge", "sum of one", "absolute",
        "huber", "pinball", "squared residual", "epsilon-insensitive"])
def test_an_elementwise_cvxpy_loss_is_the_loss_of_each_record_in_every_form(fn, kind):
    label_range = (-1.0, 1.0) if kind == "regression" else None
    loss = dp.Loss.from_cvxpy(fn, kind=kind, label_range=label_range, smoothing=0.1)
    z, y = np.linspace(-3.0, 3.0, 7), np.linspace(-1.0, 1.0, 7)
    labels = (y,) if kind == "regression" else ()
    np.testing.assert_allclose(loss.cvxpy_expr(cp.Constant(z), *labels).value, loss.value(z, *labels),
                               rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("fn", [lambda z, y: cp.abs(z), lambda z, y: cp.huber(z, 0.5) + 0 * y,
                                lambda z, y: cp.abs(z + y - y), lambda z, y: cp.abs(z) + y],
                         ids=["no label", "label times 0", "label cancelled", "label a term of its own"])
def test_a_regression_loss_that_does_not_read_its_label_is_refused(fn):
    """ℓ(z, y) constant in y (or shifted by y alone, which moves no minimizer) fits a model that
    does not depend on the labels: refused when stated, and by the regressor that states it."""
    with pytest.raises(ParameterError, match=r"^Loss.from_cvxpy: loss 'cvxpy_loss': fn\(z, y\) does not read "
                                             "its label y in its slope"):
        dp.Loss.from_cvxpy(fn, kind="regression", label_range=(-1.0, 1.0))
    X, s = _rows(n=20)
    with pytest.raises(ParameterError, match="does not read its label y"):
        dp.PrivateLinearRegressor(loss=fn, label_range=(0, 10)).fit(X, 5 + s)


@pytest.mark.parametrize("constant", [1e300, 1e20])
def test_a_stated_loss_with_a_constant_beyond_float64_arithmetic_is_told_so(constant):
    """The user wrote no deriv(): the refusal names the constant's size, not a deriv() to fix."""
    X, s = _rows(n=20)
    with pytest.raises(PrivacyError, match=r"derivative: loss 'cvxpy_loss', stated in CVXPY, takes values "
                                           r"near .* too large for float64 arithmetic") as info:
        dp.PrivateLinearClassifier(loss=lambda m: cp.logistic(-m) + constant, classes=[-1, 1]).certify(X, s)
    assert "deriv()" not in str(info.value)


def test_a_sum_around_a_loss_of_one_prediction_is_that_loss():
    """``cp.sum(...)``, as a CVXPY user writes an objective, of one number: the same loss
    (bounds, smoothing, values, every form); a sum of several numbers is refused."""
    plain = Loss.from_cvxpy(lambda m: cp.pos(1 - m), smoothing=0.5)
    summed = Loss.from_cvxpy(lambda m: cp.sum(cp.pos(1 - m)), smoothing=0.5)
    m = np.linspace(-3.0, 3.0, 13)
    assert (summed.deriv_bound, summed.curvature, summed.smoothed_kinks) == \
        (plain.deriv_bound, plain.curvature, plain.smoothed_kinks)
    np.testing.assert_array_equal(summed.value(m), plain.value(m))
    np.testing.assert_allclose(summed.cvxpy_expr(cp.Constant(m)).value, plain.value(m), atol=1e-12)
    regression = Loss.from_cvxpy(lambda z, y: cp.sum(cp.abs(z - y)), kind="regression",
                                 label_range=(-1.0, 1.0), smoothing=0.1)
    assert regression.deriv_bound == 1.0
    with pytest.raises(ParameterError, match="atom outside"):
        Loss.from_cvxpy(lambda m: cp.sum(cp.promote(cp.pos(1 - m), (3,))))


def test_a_declared_curvature_is_checked_for_every_mechanism_that_solves():
    """A residual certifies the minimizer of a smooth objective only, and over a constraint set
    it bounds the distance to the exact minimizer through the loss's curvature (L = c q² + μ),
    for approximate minima's cover and the certificate's uncovered distance: a declared
    curvature is checked whatever the mechanism, so a false one is refused before any noise."""
    X, y = _rows()
    false_c = Loss.from_cvxpy(lambda m: cp.logistic(-m), name="mine", curvature=1e-9)  # truly 1/4
    template = LinearERMTemplate(false_c, 0.1, 1.0, X, y, constraint_set=dp.objectives.NonNegative())
    from dpconvex.privacy.mechanisms.base import get_mechanism

    for mechanism in (get_mechanism("amp", inner="output", gamma=1e-3, fraction=0.1), "output"):
        with pytest.raises(PrivacyError, match="curvature bound"):
            dp.release(template, mechanism, dp.Budget(1.0), dry_run=True)
    with pytest.raises(PrivacyError, match="curvature bound"):
        dp.release(LinearERMTemplate(false_c, 0.1, 1.0, X, y), "output", dp.Budget(1.0), dry_run=True)


class KinkedHinge(Loss):
    """The hinge as a class of the user's: its kink not declared in ``kinks``."""

    name, deriv_bound = "kinked hinge", 1.0

    def value(self, m):
        return np.maximum(0.0, 1.0 - np.asarray(m, float))

    def deriv(self, m):
        return -(np.asarray(m, float) < 1.0).astype(float)

    def deriv2(self, m):
        return np.zeros_like(np.asarray(m, float))

    def cvxpy_expr(self, m):
        return cp.pos(1 - m)


@pytest.mark.parametrize("loss", [Pinball(0.5, smoothing=None), KinkedHinge(),
                                  Loss.from_cvxpy(lambda z, u: cp.abs(z - u) / 2, kind="regression",
                                                  smoothing=None, name="absolute", label_range=(-1, 1))])
def test_a_loss_with_its_kinks_kept_is_refused_before_a_solve(loss):
    """No residual certifies a minimizer at a kink, so whether a solve met the tolerance would
    depend on where the records put it: refused from the loss alone (its unbounded curvature),
    for every mechanism that solves, a loss of the user's class with no kink declared too."""
    X, _ = _rows()
    y = np.clip(X[:, 0], -1, 1) if loss.kind == "regression" else np.where(X[:, 0] > 0, 1, -1)
    template = LinearERMTemplate(loss, 1.0, 1.0, X, y)
    for mechanism, budget in (("output", dp.Budget(1.0)), ("gaussian_output", dp.Budget(1.0, 1e-6))):
        with pytest.raises(PrivacyError, match="kink"):
            dp.release(template, mechanism, budget, dry_run=True)


@pytest.mark.parametrize("loss, match", [
    (Loss.from_cvxpy(lambda m: cp.pos(1 - m), name="hinge", smoothing=None), "kink"),
    (Loss.from_cvxpy(lambda m: cp.logistic(-m), name="mine", curvature=1e-9), "curvature bound")])
def test_the_large_margin_template_checks_the_curvature_for_every_mechanism(loss, match):
    """On the PSD cone the distance bound reads the loss's curvature, and a residual certifies a
    smooth objective's minimizer only: a kept kink or a false curvature is refused for output
    perturbation as for objective perturbation, before any noise."""
    from dpconvex.data.preprocess import augment_and_scale
    from dpconvex.templates import LargeMarginGaussianTemplate

    X = np.zeros((30, 1))
    X[:10] = 1.0
    template = LargeMarginGaussianTemplate(augment_and_scale(X, 1.0), (X[:, 0] == 0).astype(int),
                                           n_classes=2, lam=0.2, loss=loss)
    for mechanism in ("output", "objective"):
        with pytest.raises(PrivacyError, match=match):
            dp.release(template, mechanism, dp.Budget(1.0), dry_run=True)


def test_a_mixtures_non_increasing_loss_without_a_cvxpy_form_is_named_unverified():
    """With n_components > 1 the proof needs ℓ non-increasing: without a CVXPY form (DCP) or a
    derivation only the probe, which refutes and never proves, speaks for it."""
    from dpconvex.data.preprocess import augment_and_scale
    from dpconvex.templates import LargeMarginGaussianTemplate

    class ByHand(Loss):  # the logistic loss in NumPy only
        name, deriv_bound, curvature, has_cvxpy = "by hand", 1.0, 0.25, False

        def value(self, m):
            return np.logaddexp(0.0, -np.asarray(m, float))

        def deriv(self, m):
            return -expit(-np.asarray(m, float))

        def deriv2(self, m):
            s = expit(np.asarray(m, float))
            return s * (1 - s)

    X = np.random.default_rng(0).normal(size=(20, 2))
    Z = augment_and_scale(X / np.linalg.norm(X, axis=1, keepdims=True), data_norm=1.0)
    template = LargeMarginGaussianTemplate(Z, np.arange(20) % 2, (np.arange(20) // 2) % 2, n_classes=2,
                                           n_components=2, lam=0.001, loss=ByHand())
    with pytest.raises(PrivacyError, match=r"loss non-increasing \[convexity\]"):
        dp.release(template, "objective", dp.Budget(1.0), dry_run=True, vouch=("deriv_bound", "curvature"))
    dry = dp.release(template, "objective", dp.Budget(1.0), dry_run=True,
                     vouch=("deriv_bound", "curvature", "convexity"))
    named = {c.name for c in dry.certificate.conditions if c.unverified}
    assert named >= {"loss non-increasing", "loss convexity"}


def test_an_output_sensitivity_that_underflows_is_refused_not_read_as_slope_0():
    """A slope of 1e-250 is not 0: the output form's sensitivity underflows float64 or its rate
    overflows, and the dry run and the fit both refuse it by name (no certificate of zero noise)."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-1e-101, 1e-101, (100, 2))
    for lam in (1e100, 1e58):  # a sensitivity of 0, and a subnormal one whose rate overflows
        est = dp.PrivateLinearClassifier(loss=Loss.from_cvxpy(lambda m: 1e-250 * cp.logistic(-m)),
                                         mechanism="output", lam=lam, data_norm=1e-100, classes=[0, 1])
        for call in (est.certify, est.fit):
            with pytest.raises(dp.PrivacyError, match="leaves the noise rate beyond float64"):
                call(X, (X[:, 0] > 0).astype(int))


# --------------------------------------------- the form a release solves
_WINDOW = (0.0011, 0.0019)  # between the compared and the probed margins (spacing 0.005)


class SpikyLogistic(Loss):
    """cp.logistic(-m) in CVXPY, whose NumPy slope is -50 on a window no probe reaches."""

    name, deriv_bound, curvature = "spiky", 1.0, 0.25

    def value(self, m):
        return np.logaddexp(0.0, -np.asarray(m, float))

    def deriv(self, m):
        m = np.asarray(m, float)
        return np.where((m > _WINDOW[0]) & (m < _WINDOW[1]), -50.0, -expit(-m))

    def deriv2(self, m):
        s = expit(-np.asarray(m, float))
        return s * (1 - s)

    def cvxpy_expr(self, m):
        return cp.logistic(-m)


@pytest.mark.parametrize("solver", ["native", "auto"])
def test_a_users_loss_is_solved_in_the_form_compiled_from_its_cvxpy_form(solver):
    """The bounds are derived from the CVXPY form, so that is the form solved: the release
    equals that of Loss.from_cvxpy of the same expression (same constants, same noise draw,
    the same compiled tree and deterministic solver: only rounding may differ, 1e-9), and
    the certificate names the class whose CVXPY form was compiled."""
    assert SpikyLogistic().deriv(np.array([0.0015]))[0] == -50.0  # the probes miss it:
    template = LinearERMTemplate(SpikyLogistic(), 0.01, 1.0, np.array([[1.0, 0.0]]), np.ones(1))
    np.testing.assert_allclose(template.loss.deriv(np.array([0.0015])), -expit(-0.0015),
                               rtol=1e-12)  # what the solve follows is the CVXPY form's slope
    X, s = _rows(200, 3, seed=0)
    fits = [dp.PrivateLinearClassifier(loss=loss, epsilon=1.0, classes=[-1, 1], solver=solver,
                                       random_state=0).fit(X, s)
            for loss in (SpikyLogistic(),
                         Loss.from_cvxpy(lambda m: cp.logistic(-m), name="spiky"))]
    np.testing.assert_allclose(fits[0].coef_, fits[1].coef_, rtol=1e-9, atol=1e-12)
    forms = {c.name: c for c in fits[0].certificate_.conditions}["loss forms agree"]
    assert forms.how == "compiled from the CVXPY form; numerical comparison"
    assert "compiled from the CVXPY form of class SpikyLogistic" in forms.detail
    assert not forms.unverified


def _spiky_deriv(m, *label):
    m = np.asarray(m, float)
    return np.where((m > _WINDOW[0]) & (m < _WINDOW[1]), -50.0, -expit(-m))


@pytest.mark.parametrize("declared", [None, 1.5])
def test_a_stated_loss_with_numpy_forms_set_on_the_instance_is_solved_as_compiled(declared):
    """Loss.from_cvxpy's loss with its own deriv / value_and_deriv set on the instance: those
    are the user's forms, so the template solves the forms compiled from the CVXPY form, and
    the certificate states the loss's own declaration (a bound it did not declare is
    derived, "none declared")."""
    loss = Loss.from_cvxpy(lambda m: cp.logistic(-m), name="spiky", deriv_bound=declared)
    loss.deriv = _spiky_deriv
    loss.value_and_deriv = lambda m, *label: (np.logaddexp(0.0, -m), _spiky_deriv(m))
    template = LinearERMTemplate(loss, 0.01, 1.0, np.array([[1.0, 0.0]]), np.ones(1))
    np.testing.assert_allclose(template.loss.value_and_deriv(np.array([0.0015]))[1],
                               -expit(-0.0015), rtol=1e-12)  # not the instance's -50
    X, s = _rows(200, 3, seed=0)
    fit = dp.PrivateLinearClassifier(loss=loss, epsilon=1.0, classes=[-1, 1], solver="native",
                                     random_state=0).fit(X, s)
    conditions = {c.name: c for c in fit.certificate_.conditions}
    assert conditions["loss forms agree"].how == "compiled from the CVXPY form; numerical comparison"
    slope = conditions["|ℓ'| bound"].detail
    assert (slope.startswith("the derived bound 1, none declared") if declared is None
            else slope.startswith("declared 1.5 >= derived 1 "))
    assert conditions["ℓ'' bound (c)"].detail.startswith("the derived bound 0.25, none declared")


def test_a_cvxpy_form_set_on_the_instance_is_the_one_tree_solved_and_bounded():
    """An instance's own cvxpy_expr is what the checks read: the forms solved and the bounds
    are compiled and derived from it (twice the logistic loss: slope 2, values doubled)."""
    loss = Loss.from_cvxpy(lambda m: cp.logistic(-m), name="doubled")
    loss.cvxpy_expr = lambda m, y=None: 2 * cp.logistic(-m)
    solved = LinearERMTemplate(loss, 0.01, 1.0, np.array([[1.0, 0.0]]), np.ones(1)).loss
    assert (solved.deriv_bound, solved.curvature) == (2.0, 0.5)  # derived: exact dyadic values
    np.testing.assert_allclose(solved.value(np.array([0.0])), 2 * np.log(2.0), rtol=1e-12)


class _SmoothedHinge(CVXPYLoss):
    """A subclass of the compiled loss replacing deriv (by the same function)."""

    def deriv(self, z, y=None):
        return super().deriv(z, y)


def test_a_smoothed_loss_solved_as_compiled_keeps_its_smoothing_stated():
    """The tree compiled is the Huberized one: its smoothing is stated in the certificate."""
    loss = _SmoothedHinge(lambda m: cp.pos(1 - m), smoothing=0.5, name="h")
    template = LinearERMTemplate(loss, 0.1, 1.0, np.array([[1.0, 0.0]]), np.ones(1))
    assert type(template.loss) is CVXPYLoss
    assert template.loss.smoothed_kinks == loss.smoothed_kinks
    cert = dp.release(template, "objective", dp.Budget(1.0), dry_run=True).certificate
    assert (cert.line(LossSmoothing).kinks, cert.line(LossSmoothing).h) == (1, 0.5)


class _ForeignForm:
    """A compiled form of a loss's own, evaluating the user's slope (the real tree as expr)."""

    def __init__(self, real, calls):
        self.real, self.calls = real, calls

    def __getattr__(self, name):
        return getattr(self.real, name)

    def evaluate(self, z, y=None, second=True):
        self.calls.append(1)
        out = list(self.real.evaluate(z, y, second=second))
        out[1] = _spiky_deriv(z)
        return tuple(out)


def _form_swapped(calls):
    loss = Loss.from_cvxpy(lambda m: cp.logistic(-m), name="swapped")
    loss._form = _ForeignForm(loss._form, calls)
    return loss


def _attribute_hook(calls):
    class Hooked(CVXPYLoss):
        def __getattribute__(self, name):
            if name in ("deriv", "value_and_deriv"):
                calls.append(1)
                return _spiky_deriv if name == "deriv" else (
                    lambda m, *y: (np.logaddexp(0.0, -m), _spiky_deriv(m)))
            return super().__getattribute__(name)

    return Hooked(lambda m: cp.logistic(-m), name="hooked")


def _shipped_claiming_as_built(calls):
    loss = Logistic()
    loss.as_built = lambda: True
    loss.deriv = lambda m: calls.append(1) or _spiky_deriv(m)
    return loss


@pytest.mark.parametrize("make", [_form_swapped, _attribute_hook, _shipped_claiming_as_built])
def test_no_form_of_a_users_object_is_solved(make):
    """Any loss but a shipped class as built (read through its class) is solved as dpconvex
    compiles its CVXPY form, fresh at each template: a compiled form set on the instance, a
    class answering attribute reads itself, or a shipped instance saying it is as built are
    the user's objects, none of whose methods the fit calls."""
    calls = []
    loss = make(calls)
    template = LinearERMTemplate(loss, 0.01, 1.0, np.array([[1.0, 0.0]]), np.ones(1))
    assert type(template.loss) is CVXPYLoss and template.loss is not loss
    np.testing.assert_allclose(template.loss.deriv(np.array([0.0015])), -expit(-0.0015),
                               rtol=1e-12)  # the logistic slope, not the user's -50
    X, s = _rows(200, 3, seed=0)
    calls.clear()
    fit = dp.PrivateLinearClassifier(loss=loss, epsilon=1.0, classes=[-1, 1], solver="native",
                                     random_state=0).fit(X, s)
    assert calls == []
    forms = {c.name: c for c in fit.certificate_.conditions}["loss forms agree"]
    assert forms.how == "compiled from the CVXPY form; numerical comparison"
    assert not forms.unverified


def test_a_compiled_loss_changed_in_the_template_is_no_longer_the_compile():
    """A member set on the loss a template holds after it was compiled: that object is not
    what dpconvex compiled, so the agreement of its forms is named unverified."""
    template = LinearERMTemplate(Loss.from_cvxpy(lambda m: cp.logistic(-m)), 0.01, 1.0,
                                 np.array([[1.0, 0.0]]), np.ones(1))
    template.loss.deriv = _spiky_deriv
    with pytest.raises(PrivacyError, match=r"loss forms agree \[loss_forms\]"):
        dp.release(template, "objective", dp.Budget(1.0), dry_run=True)


class _ClaimsSmoothing(HuberHinge):
    """The Huber hinge, claiming a smoothing its tree does not have."""

    @property
    def smoothed_kinks(self):
        return Smoothing(h=0.001, kinks=1, gap=1e-9)


def _release_smoothing(loss):
    template = LinearERMTemplate(loss, 0.1, 1.0, np.array([[1.0, 0.0]]), np.ones(1))
    cert = dp.release(template, "objective", dp.Budget(1.0), dry_run=True).certificate
    return template.loss, cert.line(LossSmoothing)


def test_the_smoothing_stated_is_what_the_compiler_did_to_the_tree_solved():
    """The certificate's smoothing is the compiler's record of the tree it solves, never a
    loss's own smoothed_kinks: a Huber hinge subclass is the hinge its class states, smoothed
    by the compiler at its h = 0.5 (stated 0.5, not the 0.001 it claims); a stated hinge
    smoothed at h = 0.5 states 0.5 whatever its instance says; one whose kinks are kept
    states none and is refused for its unbounded curvature."""
    solved, line = _release_smoothing(_ClaimsSmoothing())
    assert solved.smoothed_kinks == Smoothing(h=0.5, kinks=1, gap=0.125)
    assert (line.h, line.kinks, line.gap) == (0.5, 1, 0.125)
    assert solved.curvature == HuberHinge().curvature  # the Huber hinge's tree, at h = 0.5
    claimed = _SmoothedHinge(lambda m: cp.pos(1 - m), smoothing=0.5, name="h")
    claimed.smoothed_kinks = Smoothing(h=0.001, kinks=1, gap=1e-9)
    solved, line = _release_smoothing(claimed)
    assert solved.smoothed_kinks == Smoothing(h=0.5, kinks=1, gap=0.125)
    assert (line.h, line.kinks, line.gap) == (0.5, 1, 0.125)
    kept = _SmoothedHinge(lambda m: cp.pos(1 - m), smoothing=None, name="h")
    kept.smoothed_kinks = Smoothing(h=0.5, kinks=1, gap=0.125)
    with pytest.raises(PrivacyError, match="curvature bound: loss 'h' has kinks"):
        _release_smoothing(kept)


def test_a_stated_loss_is_compiled_again_and_released_as_its_subclass_is():
    """Loss.from_cvxpy's loss is a user's object too: the template holds a new compile of its
    stated tree, smoothed as it asks (h = 0.5). A subclass stating the same tree (its deriv
    replaced) is solved in the same compiled form: same constants, same noise draw
    (random_state), same deterministic solve, so the releases agree to rounding (1e-9), and
    both certificates state the compiler's smoothing."""
    plain = Loss.from_cvxpy(lambda m: cp.pos(1 - m), smoothing=0.5, name="h")
    assert LinearERMTemplate(plain, 0.1, 1.0, np.array([[1.0, 0.0]]), np.ones(1)).loss \
        is not plain
    X, s = _rows(200, 3, seed=0)
    fits = [dp.PrivateLinearClassifier(loss=loss, epsilon=1.0, lam=0.1, classes=[-1, 1],
                                       solver="native", random_state=0).fit(X, s)
            for loss in (plain, _SmoothedHinge(lambda m: cp.pos(1 - m), smoothing=0.5,
                                               name="h"))]
    np.testing.assert_allclose(fits[0].coef_, fits[1].coef_, rtol=1e-9, atol=1e-12)
    lines = [fit.certificate_.line(LossSmoothing) for fit in fits]
    assert lines[0] == lines[1] and lines[0].h == 0.5


class _Width(float):
    """A float whose arithmetic is its own (recorded in ``calls``)."""

    calls: list[str] = []

    def __mul__(self, other):
        _Width.calls.append("*")
        return float(self) * other

    __rmul__ = __mul__

    def __add__(self, other):
        _Width.calls.append("+")
        return float(self) + other

    __radd__ = __add__

    def __truediv__(self, other):
        _Width.calls.append("/")
        return float(self) / other

    def __rtruediv__(self, other):
        _Width.calls.append("/")
        return other / float(self)


def test_a_shipped_loss_holding_a_float_subclass_is_compiled_not_solved_as_given():
    """A shipped loss whose h is a float subclass is not as built (a parameter of a type its
    constructor does not store): it is compiled from its stated hinge, smoothed at h = 0.5 by
    the compiler, and nothing the release evaluates runs the subclass's operators. It is the
    same function as the plain HuberHinge(0.5): same constants, same noise draw
    (random_state), so the releases agree to the solver's rounding (rtol 1e-6)."""
    loss = HuberHinge(0.5)
    loss.h = _Width(0.5)
    assert not loss.as_built()
    template = LinearERMTemplate(loss, 0.1, 1.0, np.array([[1.0, 0.0]]), np.ones(1))
    assert type(template.loss) is CVXPYLoss
    assert not any(isinstance(v, _Width) for v in vars(template.loss).values())
    _Width.calls.clear()
    template.loss.value_and_deriv(np.linspace(-3.0, 3.0, 13))
    template.loss.deriv2(np.linspace(-3.0, 3.0, 13))
    assert _Width.calls == []
    X, s = _rows(200, 3, seed=0)
    fits = [dp.PrivateLinearClassifier(loss=each, epsilon=1.0, lam=0.1, classes=[-1, 1],
                                       solver="native", random_state=0).fit(X, s)
            for each in (HuberHinge(0.5), loss)]
    np.testing.assert_allclose(fits[1].coef_, fits[0].coef_, rtol=1e-6, atol=1e-9)
    forms = {c.name: c for c in fits[1].certificate_.conditions}["loss forms agree"]
    assert forms.how == "compiled from the CVXPY form; numerical comparison"


class _MyPinball(Pinball):
    pass


def test_a_subclass_of_a_smoothed_shipped_loss_is_smoothed_by_the_compiler():
    """A subclass of Pinball is compiled from the kinked pinball loss its class states,
    smoothed by the compiler at its h = 0.1: the certificate states h = 0.1, and the release
    is the shipped Pinball's (same function and constants, same noise draw) to the solver's
    rounding (rtol 1e-6)."""
    X, _ = _rows(200, 3, seed=0)
    y = X @ np.array([1.0, -1.0, 0.5]) + 0.1 * np.random.default_rng(1).normal(size=200)
    fits = [dp.PrivateLinearRegressor(loss=each, label_range=(-3, 3), epsilon=1.0,
                                      fit_intercept=False, random_state=0).fit(X, y)
            for each in (Pinball(0.7), _MyPinball(0.7))]
    lines = [fit.certificate_.line(LossSmoothing) for fit in fits]
    assert lines[1] is not None and lines[1].h == lines[0].h == 0.1
    np.testing.assert_allclose(fits[1].coef_, fits[0].coef_, rtol=1e-6, atol=1e-9)


class _AwaitsRange(Loss):
    """A user's class saying it awaits a label range (an attribute of the user's)."""

    name, deriv_bound, curvature = "awaits", 1.0, 0.25
    awaits_label_range = True

    def value(self, m):
        return np.logaddexp(0.0, -m)

    def deriv(self, m):
        return _spiky_deriv(m)

    def deriv2(self, m):
        return expit(m) * expit(-m)

    def cvxpy_expr(self, m):
        return cp.logistic(-m)


def test_a_users_class_saying_it_awaits_a_label_range_is_compiled():
    """``awaits_label_range`` is read on dpconvex's own stated loss only: a user's class
    setting it is compiled like any other, its own (spiky) deriv never solved, and the
    agreement of its forms is the compile's, not left to a vouch."""
    X, s = _rows(200, 3, seed=0)
    fit = dp.PrivateLinearClassifier(loss=_AwaitsRange(), epsilon=1.0, classes=[-1, 1],
                                     solver="native", random_state=0).fit(X, s)
    forms = {c.name: c for c in fit.certificate_.conditions}["loss forms agree"]
    assert forms.how == "compiled from the CVXPY form; numerical comparison"
    assert not forms.unverified


class _RegressionWithoutRange(Loss):
    name, kind, label_range, deriv_bound, curvature = "r", "regression", None, 1.0, 1.0

    def cvxpy_expr(self, z, y):
        return 0.5 * cp.huber(z - y, 1.0)


def test_a_regression_loss_without_a_label_range_is_refused_by_name():
    X, _ = _rows(50, 3, seed=0)
    with pytest.raises(ParameterError, match=r"label_range=\(-1, 1\) or none"):
        dp.PrivateLinearRegressor(loss=_RegressionWithoutRange(), label_range=(-3, 3),
                                  random_state=0).fit(X, X[:, 0])


class PseudoHuberHinge(Loss):
    """sqrt(1 + (1 - m)²), its CVXPY form a 2-norm of a stack (atoms outside the table)."""

    name, deriv_bound, curvature = "pseudo_huber_hinge", 1.0, 1.0

    def value(self, m):
        return np.hypot(1.0, 1.0 - np.asarray(m, float))

    def deriv(self, m):
        u = 1.0 - np.asarray(m, float)
        return -u / np.hypot(1.0, u)

    def deriv2(self, m):
        return np.hypot(1.0, 1.0 - np.asarray(m, float)) ** -3

    def cvxpy_expr(self, m):
        return cp.norm(cp.vstack([1 + 0 * m, 1 - m]), 2, axis=0)


def test_a_cvxpy_form_that_does_not_compile_leaves_the_forms_agreement_to_a_vouch():
    """Its own NumPy form is solved: that it is the CVXPY form is compared, not verified."""
    X, s = _rows()
    fit = lambda vouch: dp.PrivateLinearClassifier(  # noqa: E731
        loss=PseudoHuberHinge(), epsilon=1.0, classes=[-1, 1], random_state=0,
        vouch=vouch).fit(X, s)
    with pytest.raises(PrivacyError, match=r"loss forms agree \[loss_forms\].*Loss\.from_cvxpy.*"
                                           r"vouch=\('curvature', 'deriv_bound', 'loss_forms'\)"):
        fit(("deriv_bound", "curvature"))
    forms = {c.name: c for c in fit(("deriv_bound", "curvature", "loss_forms"))
             .certificate_.conditions}["loss forms agree"]
    assert forms.unverified == "loss_forms" and forms.vouched
    assert forms.how == "declared; vouched for by the caller (vouch=), not verified"


def test_a_shipped_template_over_a_users_rows_operator_has_its_objective_vouched_for():
    """A rows operator of the user's runs the user's code in every product the objective reads:
    the objective's checks are probes, and a release needs the "objective" vouch."""
    from dpconvex.data.operators import DenseRows
    from dpconvex.privacy.declarations import users_objective
    from dpconvex.privacy.user_parts import user_parts

    class MyRows(DenseRows):
        def matvec(self, w):
            return 1.0 * super().matvec(w)

    X, s = _rows()
    t = LinearERMTemplate(Logistic(), 0.1, 1.0, MyRows(X), s)
    assert users_objective(t, user_parts(t))
    with pytest.raises(PrivacyError, match=r"\[objective\]"):
        dp.release(t, "objective", dp.Budget(1.0), dry_run=True, vouch=("data_norm",))
    cert = dp.release(t, "objective", dp.Budget(1.0), dry_run=True,
                      vouch=("data_norm", "grad_bound", "hessian", "objective")).certificate
    assert any(c.unverified == "objective" and c.vouched for c in cert.conditions)
