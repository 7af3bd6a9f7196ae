"""What of a release is the user's: a backend, a parameter space, a tolerance, an objective
without records, statistics, a member set on a shipped template, a mechanism. Each is verified
by dpconvex or named as declared and released only when vouched for, never read on trust."""

from __future__ import annotations

import dataclasses
import sys
import types

import cvxpy as cp
import numpy as np
import pytest
from scipy.special import expit

import dpconvex as dp
from dpconvex.data.dask_rows import DaskRows
from dpconvex.data.sufficient import sufficient_statistics
from dpconvex.errors import ParameterError, PrivacyError, SolverError
from dpconvex.objectives import L2, ConvexSet, L2Ball, Logistic, Loss, MatrixTerm, Regularizer, probe_term
from dpconvex.privacy.mechanisms.base import OutputPerturbation, calibrate_output_perturbation, get_mechanism
from dpconvex.solvers import Backend, LbfgsNewton, PolishedBackend, SolveResult, SolveStatus, get_backend
from dpconvex.templates import EuclideanSpace, LinearERMTemplate
from dpconvex.templates.statistics import KMeansTemplate, SufficientStatisticsTemplate


def _rows(n: int = 200):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 3))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    return X, np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)


def _template(cls=LinearERMTemplate):
    return cls(Logistic(), 0.1, 1.0, *_rows())


def _vouch_needed(release, name: str):
    with pytest.raises(PrivacyError, match=rf"\[{name}\].*vouch=\(.*'{name}'"):
        release(())
    cert = release((name,)).certificate
    assert any(c.unverified == name and c.vouched for c in cert.conditions)


class NoiseDropping(Backend):
    """Solves the objective without the noise and says its residual is 0."""

    name = "noise_dropping"
    requires = frozenset({"smooth"})

    def solve(self, template, b, extra_reg=0.0, *, warm_start=None, max_iter=None):
        res = LbfgsNewton().solve(template, None, 0.0)
        return SolveResult(res.x, SolveStatus.OPTIMAL, res.objective, 0.0, self.name)


def test_a_users_backend_is_judged_by_the_residual_the_template_computes():
    with pytest.raises(SolverError, match="did not reach the tolerance"):
        dp.release(_template(), "objective", dp.Budget(1.0), backend=NoiseDropping(), rng=0)


def test_a_users_space_is_named_and_vouched_for():
    class Quiet(EuclideanSpace):  # the noise the solve sees, a millionth of the one drawn
        def project_noise(self, b):
            return 1e-6 * np.asarray(b, dtype=float).reshape(self.shape)

    t = _template()
    t.space = Quiet(t.space.shape)
    _vouch_needed(lambda v: dp.release(t, "objective", dp.Budget(1.0), dry_run=True,
                                       vouch=("grad_bound", "hessian", *v)), "space")


def test_a_looser_tolerance_or_a_smaller_distance_bound_is_vouched_for():
    class Loose(LinearERMTemplate):
        residual_tol = 1e3

    class Near(LinearERMTemplate):
        def distance_bound(self, residual, mu):
            return 0.0

    class Same(LinearERMTemplate):  # dpconvex's tolerance and bound: nothing to vouch for
        residual_tol = 1e-6

    for cls in (Loose, Near):
        _vouch_needed(lambda v, c=cls: dp.release(_template(c), "objective", dp.Budget(1.0), dry_run=True,
                                                  vouch=("grad_bound", "hessian", "objective",
                                                         "template_conditions", *v)),
                      "distance_bound")
    cert = dp.release(_template(Same), "objective", dp.Budget(1.0), dry_run=True,
                      vouch=("grad_bound", "hessian", "objective", "template_conditions")
                      ).certificate
    assert all(c.unverified != "distance_bound" for c in cert.conditions)


class _NoRecords(LinearERMTemplate):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.capabilities = frozenset({"objective", "smooth"})


def test_an_objective_without_records_is_probed_for_its_noise_term_and_modulus():
    class Muted(_NoRecords):  # <b, θ>/(1000 n)
        def objective(self, w, b=None, extra_reg=0.0):
            return super().objective(w, None if b is None else np.asarray(b) / 1000.0, extra_reg)

    class Flatter(_NoRecords):  # declares the L2(10) regularizer, minimizes with λ = 0.01
        def objective(self, w, b=None, extra_reg=0.0):
            value, grad = super().objective(w, b, extra_reg)
            w = np.asarray(w, dtype=float)
            return value - 0.5 * 9.99 * float(w @ w), grad - 9.99 * w

    with pytest.raises(PrivacyError, match=r"does not add <b, theta>/n"):
        dp.release(_template(Muted), "objective", dp.Budget(1.0), dry_run=True)
    flatter = _template(Flatter)
    flatter.regularizer = L2(10.0)
    with pytest.raises(PrivacyError, match="declares mu = 10, but its objective's gradient"):
        dp.release(flatter, "output", dp.Budget(1.0), dry_run=True)
    _vouch_needed(lambda v: dp.release(_template(_NoRecords), "objective", dp.Budget(1.0), dry_run=True,
                                       vouch=("grad_bound", "hessian", "template_conditions", *v)),
                  "objective")


def test_statistics_the_caller_computed_are_declared_and_the_estimators_clipped():
    X, y = _rows(500)
    moments = sufficient_statistics(10.0 * X, np.clip(5.0 * y, -5.0, 5.0), 1e9, None)  # not clipped
    t = SufficientStatisticsTemplate(moments, 500, 3, data_norm=1.0)
    _vouch_needed(lambda v: dp.release(t, "ssp", dp.Budget(1.0), dry_run=True, vouch=v), "data_norm")
    zeros = SufficientStatisticsTemplate(moments._replace(gram=0 * moments.gram, cross=0 * moments.cross),
                                         500, 3, data_norm=1.0)  # the caller's, whatever their values
    _vouch_needed(lambda v: dp.release(zeros, "ssp", dp.Budget(1.0), dry_run=True, vouch=v), "data_norm")
    vouched = dp.release(t, "ssp", dp.Budget(1.0), dry_run=True, vouch=("data_norm",)).certificate
    assert {c.name: c.unverified for c in vouched.conditions}["row and label bounds"] == "data_norm"
    fitted = dp.PrivateLinearRegression(epsilon=1.0, label_range=(-1, 1), random_state=0).fit(X, y)
    row = {c.name: c for c in fitted.certificate_.conditions}["row bound"]
    assert row.holds and not row.unverified and row.how.startswith("enforced by dpconvex")


def test_a_member_set_on_a_shipped_template_is_named_and_only_what_it_touches_vouched_for():
    t = _template()
    t.gradient_difference_rank = 1  # the shipped class's k = 2; its loss's constants stay derived
    _vouch_needed(lambda v: dp.release(t, "gaussian_objective", dp.Budget(1.0, 1e-6), dry_run=True,
                                       vouch=v), "gradient_span")
    assert "with parts that are the user's (gradient_difference_rank)" in str(
        dp.release(t, "gaussian_objective", dp.Budget(1.0, 1e-6), dry_run=True,
                   vouch=("gradient_span",)).certificate)
    stricter = _template()
    stricter.residual_tol = 1e-9  # stricter than dpconvex's: nothing to vouch for
    assert dp.release(stricter, "objective", dp.Budget(1.0), rng=0).certificate.all_hold


def test_methods_set_on_a_shipped_space_or_mechanism_instance_are_the_users():
    t = _template()
    t.space.project_noise = lambda b: 1e-6 * np.asarray(b, dtype=float)
    _vouch_needed(lambda v: dp.release(t, "objective", dp.Budget(1.0), dry_run=True,
                                       vouch=("grad_bound", "hessian", *v)), "space")
    mech = get_mechanism("output")
    mech._calibrate = lambda *args, **kwargs: None
    with pytest.raises(PrivacyError, match=r"\(_calibrate set on the instance\) is not a mechanism"):
        dp.release(_template(), mech, dp.Budget(1.0), dry_run=True)


def test_a_backend_that_changes_the_noise_it_is_given_is_judged_on_the_noise_drawn():
    class Zeroing(Backend):
        name = "zeroing"
        requires = frozenset({"smooth"})

        def solve(self, template, b, extra_reg=0.0, *, warm_start=None, max_iter=None):
            if b is not None:
                b[...] = 0.0
            return LbfgsNewton().solve(template, b, 0.0)

    from dpconvex.solvers import PolishedBackend
    nested = PolishedBackend(PolishedBackend(NoiseDropping(), LbfgsNewton()), LbfgsNewton())
    for backend in (Zeroing(), nested):
        with pytest.raises(SolverError, match="did not reach the tolerance"):
            dp.release(_template(), "objective", dp.Budget(1.0), backend=backend, rng=0)


def test_rows_read_through_an_operator_of_the_users_are_named():
    """An operator of the user's that reports false row norms is a part of the user's: the
    records check reads the rows themselves, not the norms it reports, and refuses them."""
    from dpconvex.data import DenseRows

    class Shrinking(DenseRows):  # reports norms of at most 1 for rows of norm 10
        def row_norms(self):
            return np.minimum(super().row_norms(), 1.0)

    X, y = _rows()
    with pytest.raises(PrivacyError, match="has rows of norm above its record_domain's bound"):
        dp.release(LinearERMTemplate(Logistic(), 0.1, 1.0, Shrinking(10.0 * X), y), "objective",
                   dp.Budget(1.0), dry_run=True, vouch=("grad_bound", "hessian", "data_norm"))


class Cheap(OutputPerturbation):
    """Output perturbation calibrated with a hundredth of the sensitivity."""

    name = "cheap_output_test"

    @staticmethod
    def _calibrate(eps, n, consts, caller=""):
        cal = calibrate_output_perturbation(eps, n, consts)
        return dataclasses.replace(cal, sensitivity=cal.sensitivity / 100, noise_rate=cal.noise_rate * 100)


def test_a_users_mechanism_is_named_and_vouched_for():
    _vouch_needed(lambda v: dp.release(_template(), Cheap(), dp.Budget(1.0), dry_run=True, vouch=v),
                  "mechanism")


def test_k_means_rows_above_the_declared_bound_are_refused():
    X, y = _rows(40)
    centers = np.zeros((6, 3))
    with pytest.raises(PrivacyError, match="a row is above q = 1: clip the rows to q first"):
        dp.release(KMeansTemplate(10.0 * X, np.arange(40) % 3, 3, 2, data_norm=1.0, n_iter=2,
                                  init_centers=centers), "dp_kmeans", dp.Budget(1.0), rng=0)


def test_a_users_loss_reading_a_module_of_its_own_is_checked_at_every_fit():
    settings = types.ModuleType("settings")
    settings.A = 1.0

    class Scaled(Loss):
        name, deriv_bound, curvature = "scaled_logistic", 1.0, 0.25

        def value(self, m):
            return settings.A * np.logaddexp(0.0, -np.asarray(m, dtype=float))

        def deriv(self, m):
            return -settings.A * expit(-np.asarray(m, dtype=float))

        def deriv2(self, m):
            s = expit(np.asarray(m, dtype=float))
            return settings.A * s * (1 - s)

        def cvxpy_expr(self, m):
            return settings.A * cp.logistic(-m)

    X, s = _rows()
    fit = lambda: dp.PrivateLinearClassifier(loss=loss, mechanism="output", lam=0.1,  # noqa: E731
                                             classes=[-1, 1], random_state=0).fit(X, s)
    loss = Scaled()
    fit()  # the slope 1 is checked
    settings.A = 100.0  # and is now 100: the check is not reused
    with pytest.raises(PrivacyError, match="declares |ℓ'| <= 1"):
        fit()


def test_a_template_changed_during_the_solve_releases_nothing():
    """A backend of the user's solves a copy: the regularizer it weakened there is not the one its
    solve is judged on."""
    class Annealing(Backend):  # weakens the regularizer it was handed, and solves
        name = "annealing"
        requires = frozenset({"smooth"})

        def solve(self, template, b, extra_reg=0.0, *, warm_start=None, max_iter=None):
            template.regularizer.lam *= 1e-4
            return LbfgsNewton().solve(template, b, extra_reg)

    with pytest.raises(SolverError, match="did not reach the tolerance"):
        dp.release(_template(), "output", dp.Budget(1.0), backend=Annealing(), rng=0)


def test_an_attribute_set_on_a_shipped_mechanism_or_a_users_convex_set_is_the_users():
    mech = get_mechanism("objective")
    mech.needs = frozenset({"strong_convexity"})  # drops the curvature the calibration reads
    with pytest.raises(PrivacyError, match=r"needs set on the instance"):
        dp.release(_template(), mech, dp.Budget(1.0), dry_run=True)

    class Sphere(ConvexSet):  # not convex: a projection onto the unit sphere
        exact_projection = True

        def _project_vector(self, v):
            return v / max(np.linalg.norm(v), 1e-300)

        def _constraints_on(self, x):
            return [cp.norm(x, 2) <= 1]

        def _statement(self, w):
            return f"||{w}||_2 <= 1"

        def params(self):
            return {}

    for convex_set in (Sphere(), dp.objectives.Intersection(Sphere())):  # alone or a member
        t = LinearERMTemplate(Logistic(), 0.1, 1.0, *_rows(), constraint_set=convex_set)
        with pytest.raises(PrivacyError, match=r"\[space\]"):
            dp.release(t, "objective", dp.Budget(1.0), dry_run=True, vouch=("grad_bound", "hessian"))


def test_a_set_with_a_solvers_projection_is_never_exact():
    """A set stated in CVXPY projects by a solver: not exact, alone, in an intersection, or
    whatever an instance says; so no distance bound is certified over it."""
    from dpconvex.objectives import CVXPYSet, Intersection

    w = cp.Variable(3)  # the parameter of the rows of _rows()
    half = CVXPYSet([w[0] + w[1] <= 0.2], w)
    assert not half.exact_projection and not Intersection(half).exact_projection
    with pytest.raises(AttributeError):
        half.exact_projection = True
    t = LinearERMTemplate(Logistic(), 0.1, 1.0, *_rows(), constraint_set=Intersection(half))
    with pytest.raises(PrivacyError, match="bounds no distance"):
        t.distance_bound(1e-6, 0.1)


def test_an_extra_terms_numpy_form_is_its_cvxpy_form_and_convex():
    tiny = lambda Phi: 1e-9 * sum(cp.sum_squares(P) for row in Phi for P in row)  # noqa: E731
    cancelling = MatrixTerm("anti_reg", cvxpy_fn=tiny, value_fn=lambda T: -0.05 * float(np.sum(T ** 2)),
                            grad_fn=lambda T: -0.1 * T)
    with pytest.raises(PrivacyError, match="value_fn and cvxpy_fn disagree"):
        probe_term(cancelling, (2, 1, 3, 3))
    concave = MatrixTerm("concave", cvxpy_fn=lambda Phi: 0 * Phi[0][0][0, 0],
                         value_fn=lambda T: 0.0, grad_fn=lambda T: -T)
    with pytest.raises(PrivacyError, match="not monotone|grad_fn disagrees"):
        probe_term(concave, (2, 1, 3, 3))


class _ProvedLogistic(Logistic):
    """A user's loss without a CVXPY form: its bounds are the caller's, proved and vouched for."""

    name, has_cvxpy = "proved_logistic", False


def test_an_estimators_vouch_serves_whichever_mechanism_it_chooses():
    X, s = _rows(300)
    y, vouch = (s > 0).astype(int), ("deriv_bound", "curvature", "convexity")
    learner = dp.PrivateLinearClassifier(loss=_ProvedLogistic(), vouch=vouch, classes=[0, 1])
    dp.PrivateGridSearch(learner, {"mechanism": ["objective", "output"]}, epsilon=1.0,
                         random_state=0).fit(X, y)
    with pytest.raises(PrivacyError, match="vouch="):
        dp.PrivateLargeMarginGaussian(loss=_ProvedLogistic(), classes=[0, 1], random_state=0).fit(X, y)
    fitted = dp.PrivateLargeMarginGaussian(loss=_ProvedLogistic(), vouch=vouch, classes=[0, 1],
                                           random_state=0).fit(X, y)
    parts = [fitted.certificate_, *fitted.certificate_.parts]
    assert {c.unverified for p in parts for c in p.conditions} >= set(vouch)
    with pytest.raises(ParameterError, match="no condition of this release rests on"):  # dp.release: a typo
        dp.release(_template(), "output", dp.Budget(1.0), dry_run=True, vouch=("curvature",))


@pytest.mark.parametrize("change", [
    lambda t: setattr(t.space, "project_noise", lambda b: 0.0 * np.asarray(b)),  # the noise muted
    lambda t: setattr(t, "residual", lambda *args, **kwargs: 0.0),  # the accuracy check
    lambda t: setattr(t, "residual_tol", 1e300),
    lambda t: setattr(t.space, "postprocess", lambda theta: theta),
    lambda t: t._zero_noise.__setitem__(slice(None), 1.0),  # the contents of a private array
    lambda t: setattr(t._ops, "matvec_rmatvec", lambda w, f: (np.zeros(t.n), np.zeros(t.p))),
])
def test_what_a_users_backend_changes_in_the_template_is_not_read(change):
    """A backend dpconvex does not ship solves a copy of the template: what it changes there (a
    method, a tolerance, an array, the rows' operator) is not what its solve is judged on, so the
    release is refused or is the one the template's own solve gives."""
    class Changing(Backend):
        name = "changing"
        requires = frozenset({"smooth"})

        def solve(self, template, b, extra_reg=0.0, *, warm_start=None, max_iter=None):
            change(template)
            return LbfgsNewton().solve(template, b, extra_reg)

    honest = dp.release(_template(), "objective", dp.Budget(1.0), backend=LbfgsNewton(), rng=0).theta
    original = _template()
    try:
        theta = dp.release(original, "objective", dp.Budget(1.0), backend=Changing(), rng=0).theta
    except SolverError:
        return
    np.testing.assert_allclose(theta, honest, atol=1e-6)
    assert np.all(original._zero_noise == 0.0) and "matvec_rmatvec" not in vars(original._ops)


def test_a_backend_that_rewires_the_rows_operator_to_hide_the_noise_releases_nothing():
    """The noise-free minimizer, with a method set on the template's rows operator that takes the
    noise out of the gradient the accuracy check computes: on a copy, so the check sees the noise."""
    class Rewiring(Backend):
        name = "rewiring"
        requires = frozenset({"smooth"})

        def solve(self, template, b, extra_reg=0.0, *, warm_start=None, max_iter=None):
            clean = LbfgsNewton().solve(template, None, extra_reg)
            ops = template._ops
            fused = type(ops).matvec_rmatvec.__get__(ops)
            ops.matvec_rmatvec = lambda w, f: (lambda m_r: (m_r[0], m_r[1] - b))(fused(w, f))
            return clean

    with pytest.raises(SolverError, match="did not reach the tolerance"):
        dp.release(_template(), "objective", dp.Budget(0.5), backend=Rewiring(), rng=1)


class _Returning(Backend):
    """A user's backend: the honest solve, its point handed back as ``wrap(x, clean)``."""

    name = "returning"
    requires = frozenset({"smooth"})

    def __init__(self, wrap):
        self.wrap = wrap

    def solve(self, template, b, extra_reg=0.0, *, warm_start=None, max_iter=None):
        res = LbfgsNewton().solve(template, b, extra_reg)
        clean = LbfgsNewton().solve(template, None, extra_reg).x
        return dataclasses.replace(res, x=self.wrap(res.x, clean), solver="returning")


class _Flipping:
    """An array-like that is the honest point when read three times, and another after."""

    def __init__(self, x, other):
        self.reads, self.x, self.other = 0, x, other

    def __array__(self, dtype=None, copy=None):
        self.reads += 1
        return np.asarray(self.x if self.reads <= 3 else self.other, dtype=dtype)


@pytest.mark.parametrize("wrap", [lambda x, clean: _Flipping(x, clean), lambda x, clean: x + 1j * clean])
def test_what_a_users_backend_returns_is_read_once_as_real_numbers(wrap):
    """The point a backend returns is read once: judged and released alike (an array-like that
    changes between reads releases what was judged; complex numbers are refused, not cut to
    their real part)."""
    honest = dp.release(_template(), "objective", dp.Budget(1.0), backend=LbfgsNewton(), rng=0).theta
    try:
        theta = dp.release(_template(), "objective", dp.Budget(1.0), backend=_Returning(wrap), rng=0).theta
    except SolverError:
        return
    np.testing.assert_allclose(theta, honest, atol=1e-6)


def test_a_class_that_only_says_it_is_dpconvexs_is_the_users():
    """A loss or a backend whose ``__module__`` names a module of dpconvex is still the user's: a
    scaled logistic declaring a thousandth of its slope is checked (and refused), not derived."""
    class Scaled(Logistic):
        __module__ = "dpconvex.objectives.losses"
        derivation = "docs/privacy/linear_erm.md#privacy-loss-constants"
        deriv_bound = 1e-3

        def value_and_deriv(self, m, *labels):
            v, d = super().value_and_deriv(1000.0 * m)
            return v, 1000.0 * d

    assert Scaled().derived_conditions(need_curvature=True) is None

    class Native(Backend):
        __module__ = "dpconvex.solvers.lbfgs_newton"
        name = "native"
        requires = frozenset({"smooth"})

        def solve(self, template, b, extra_reg=0.0, *, warm_start=None, max_iter=None):
            return LbfgsNewton().solve(template, b, extra_reg)

    said = dp.release(_template(), "objective", dp.Budget(1.0), backend=Native(), rng=0).certificate.solver
    assert said["backend"].startswith("a backend of the user's (") and "Native" in said["backend"]


def test_a_backend_reaching_the_original_template_through_the_stack_leaves_no_cache_read():
    """A backend that finds the template the release holds (its caller's frame) and fills its cache
    with a gradient of 0 at the noise-free point: the residual is computed again from the rows."""
    class Peeking(Backend):
        name = "peeking"
        requires = frozenset({"smooth"})

        def solve(self, template, b, extra_reg=0.0, *, warm_start=None, max_iter=None):
            clean = LbfgsNewton().solve(template, None, extra_reg)
            frame = sys._getframe()
            while frame is not None and "mechanism" not in frame.f_locals:
                frame = frame.f_back
            original = frame.f_locals["template"]
            reg = original.regularizer.lam + extra_reg
            original._last_objective = (clean.x.copy(), np.array(b, dtype=float), reg, 0.0, np.zeros(3))
            return clean

    with pytest.raises(SolverError, match="did not reach the tolerance"):
        dp.release(_template(), "objective", dp.Budget(1.0), backend=Peeking(), rng=0)


def test_a_users_backend_may_not_change_what_an_extra_term_closes_over():
    """The functions of an extra term are shared by the copy a backend is handed: what they close over
    (psi_frobenius's weight) is compared after the solve, so a weaker term releases nothing."""
    from dpconvex.data.preprocess import augment_and_scale
    from dpconvex.objectives import psi_frobenius
    from dpconvex.solvers import get_backend
    from dpconvex.templates import LargeMarginGaussianTemplate

    class Weakening:
        def solve(self, template, b, extra_reg=0.0, **options):
            for fn in (template.extra_terms[0].value_fn, template.extra_terms[0].grad_fn):
                fn.__closure__[fn.__code__.co_freevars.index("weight")].cell_contents = -0.24
            return get_backend(None, template).solve(template, b, extra_reg, **options)

    Z = augment_and_scale(np.random.default_rng(0).normal(size=(40, 2)) / 3.0, data_norm=1.0)
    t = LargeMarginGaussianTemplate(Z, np.arange(40) % 2, n_classes=2, lam=0.5,
                                    extra_terms=[psi_frobenius(0.1, 2)])
    with pytest.raises(PrivacyError, match="members changed during the solve"):
        dp.release(t, "objective", dp.Budget(1.0), backend=Weakening(), rng=0)


def test_a_users_backend_on_rows_held_by_dask_is_refused_by_name():
    """A copy of a template over Dask rows would share their blocks with the original."""
    da = pytest.importorskip("dask.array")
    X, y = _rows(60)
    t = LinearERMTemplate(Logistic(), 0.1, 1.0, DaskRows(da.from_array(X, chunks=30)), y)
    with pytest.raises(ParameterError, match="would share rows held by Dask"):
        dp.release(t, "objective", dp.Budget(1.0), backend=_Returning(lambda x, clean: x), rng=0)


def test_a_backend_holding_itself_is_the_users():
    polished = PolishedBackend(LbfgsNewton(), LbfgsNewton())
    polished.polish = polished
    with pytest.raises(SolverError):
        dp.release(_template(), "objective", dp.Budget(1.0), backend=polished, rng=0)


def test_functions_and_helpers_that_only_say_they_are_dpconvexs_or_numpys_are_the_users():
    """Statistics, an extra term or a loss helper whose ``__module__`` names dpconvex or numpy (or a
    ufunc np.frompyfunc makes) are the user's: declared, or checked at every fit."""
    from dpconvex.privacy.checks import _describe, _NoDescription

    def statistics():
        X, y = _rows(50)
        return sufficient_statistics(X * 100.0, y, 1.0, None)

    statistics.__module__ = "dpconvex.data.sufficient"
    t = SufficientStatisticsTemplate(statistics, 50, 3, 1.0)
    assert [c.unverified for c in t.conditions(frozenset())] == ["data_norm"]
    term = MatrixTerm("shrink", lambda Phi: sum(cp.sum_squares(P) for row in Phi for P in row),
                      lambda Phi: float(np.sum(Phi * Phi)), lambda Phi: 2.0 * Phi)
    for fn in (term.cvxpy_fn, term.value_fn, term.grad_fn):
        fn.__module__ = "dpconvex.objectives.losses"
    assert probe_term(term, (1, 1, 2, 2)).unverified == "objective"
    helper = type("Helper", (), {"__module__": "numpy", "scale": 1.0})
    assert _describe(helper)[0] == "class"  # by its attributes, not as numpy's
    with pytest.raises(_NoDescription):
        _describe(np.frompyfunc(lambda m: m, 1, 1))
    assert _describe(np.exp) == ("id", np.exp)


class _Mistaken:
    """A user's backend with a wrong signature, a wrong return, or an error quoting a record."""

    def __init__(self, how):
        self.how = how

    def solve(self, template, b, extra_reg=0.0, **options):
        if self.how == "raises":
            raise TypeError(f"row 0 is {template.X[0, 0]!r}")
        return LbfgsNewton().solve(template, b, extra_reg).x  # an array, not a SolveResult


@pytest.mark.parametrize("how", ["raises", "array"])
def test_a_users_backend_that_fails_is_a_solver_error_without_its_text(how):
    with dp.collect_diagnostics() as diag:
        with pytest.raises(SolverError, match="raised an error or returned no SolveResult") as caught:
            dp.release(_template(), "objective", dp.Budget(1.0), backend=_Mistaken(how), rng=0)
    assert "row 0" not in str(caught.value)
    assert how != "raises" or any("row 0" in str(note) for note in diag.notes)


class _Weighted(Logistic):
    """A user's logistic loss whose weight lives on its class (shared by every copy of it)."""

    weight = np.array([1.0])
    derivation = None

    def value_and_deriv(self, m, *labels):
        v, d = super().value_and_deriv(m)
        return self.weight[0] * v, self.weight[0] * d


def test_a_users_backend_with_a_users_loss_is_vouched_for():
    """A user's backend with a user's loss (a class whose weight the backend sets): the
    release is refused naming the [backend] condition and vouch= until vouch=("backend",) is
    given, and then the certificate states that condition unverified and vouched for; a
    user's backend with a shipped loss and template releases with every condition holding."""
    class Raising(Backend):
        name = "raising"
        requires = frozenset({"smooth"})

        def solve(self, template, b, extra_reg=0.0, *, warm_start=None, max_iter=None):
            _Weighted.weight[0] = 2.0  # the user's class: shared by every copy of the loss
            return LbfgsNewton().solve(template, b, extra_reg)

    def release(vouch):
        _Weighted.weight[0] = 1.0
        return dp.release(LinearERMTemplate(_Weighted(), 0.1, 1.0, *_rows()), "objective", dp.Budget(1.0),
                          backend=Raising(), rng=0, vouch=vouch)

    with pytest.raises(PrivacyError, match=r"\[backend\].*vouch="):
        release(())
    cert = release(("backend",)).certificate
    assert any(c.unverified == "backend" and c.vouched for c in cert.conditions)
    honest = _Returning(lambda x, clean: x)  # a shipped loss and template: no vouch
    assert dp.release(_template(), "objective", dp.Budget(1.0), backend=honest, rng=0).certificate.all_hold


def test_noise_drawn_by_a_subclass_of_numpys_generator_is_refused():
    class Quiet(np.random.Generator):
        def gamma(self, *args, **kwargs):
            return 1e-9 * super().gamma(*args, **kwargs)

    with pytest.raises(ParameterError, match="numpy Generator over a bit generator of numpy's"):
        dp.release(_template(), "objective", dp.Budget(1.0), rng=Quiet(np.random.PCG64(0)))


def test_a_function_compiled_from_a_string_is_not_dpconvexs_whatever_the_working_folder(monkeypatch):
    from dpconvex._validation import _PACKAGE, is_dpconvex_function

    monkeypatch.chdir(_PACKAGE)
    assert not is_dpconvex_function(eval(compile("lambda m: m", "<string>", "eval")))


def _poisoning(steps: int, poison):
    """A backend of the user's: a few gradient steps, then ``poison(template, point)`` in the
    template's caches (a gradient of 0 kept for the point it stops at)."""

    class Poisoning(Backend):
        name = "poisoning"
        requires = frozenset({"smooth"})

        def solve(self, template, b, extra_reg=0.0, *, warm_start=None, max_iter=None):
            res = LbfgsNewton().solve(template, b, extra_reg, max_iter=steps)
            poison(template, res.x, b, extra_reg)
            return SolveResult(res.x, SolveStatus.OPTIMAL, res.objective, 0.0, self.name)

    return Poisoning()


def test_a_backend_that_fills_the_templates_caches_is_judged_on_the_rows():
    """The residual is recomputed from the rows: what a backend left in the caches of a linear or a
    softmax template (a gradient of 0 at the point it stopped at) is not read."""
    def linear(t, w, b, reg):
        zero = np.zeros_like(w)
        t._last_objective = (w.copy(), np.array(b, dtype=float), t.regularizer.lam + reg, 0.0, zero)

    with pytest.raises(SolverError, match="did not reach the tolerance"):
        dp.release(_template(), "objective", dp.Budget(1.0), backend=_poisoning(1, linear), rng=0)
    from dpconvex.data.preprocess import augment_and_scale
    from dpconvex.templates.large_margin_softmax import LargeMarginSoftmaxTemplate

    X, y = _rows(60)
    softmax = LargeMarginSoftmaxTemplate(augment_and_scale(X[:, :2] / 2, 1.0), (y > 0).astype(int),
                                         n_classes=2, lam=0.5)

    def cached(t, phi, b, reg):
        Phi = np.asarray(phi, dtype=float).reshape(t.noise_shape)
        bb = None if b is None else np.asarray(b, dtype=float).reshape(t.noise_shape)
        t._last = (Phi.copy(), bb, t.regularizer.lam + reg, 0.0, np.zeros_like(Phi))

    with pytest.raises(SolverError, match="did not reach the tolerance"):
        dp.release(softmax, "objective", dp.Budget(1.0), backend=_poisoning(1, cached), rng=0)


#: What a loss without a CVXPY form rests on (its bounds and convexity are probed, not derived).
_NO_FORM_VOUCH = ("convexity", "curvature", "deriv_bound")


def test_a_loss_importing_its_settings_while_it_runs_is_checked_at_every_fit(tmp_path, monkeypatch):
    (tmp_path / "loss_settings.py").write_text("A = 1.0\n")
    monkeypatch.syspath_prepend(str(tmp_path))

    class Imported(Logistic):  # no CVXPY form: its own NumPy form is solved
        name, has_cvxpy = "imported_logistic", False

        def value_and_deriv(self, m):
            from loss_settings import A

            value, deriv = super().value_and_deriv(m)
            return A * value, A * deriv

        def deriv(self, m):
            from loss_settings import A

            return A * super().deriv(m)

    import loss_settings

    X, s = _rows()
    fit = lambda: dp.PrivateLinearClassifier(loss=Imported(), mechanism="output", lam=0.1,  # noqa: E731
                                             classes=[-1, 1], random_state=0,
                                             vouch=_NO_FORM_VOUCH).fit(X, s)
    fit()
    loss_settings.A = 100.0
    with pytest.raises(PrivacyError, match="declares |ℓ'| <= 1"):
        fit()


def test_an_approximate_minima_covers_needs_follow_its_inner_mechanism():
    amp = get_mechanism("amp")
    assert amp.needs == get_mechanism("objective").needs | {"distance_bound"}
    with pytest.raises(AttributeError):
        amp.needs = frozenset({"strong_convexity", "distance_bound"})


def test_a_backend_that_changes_a_class_attribute_during_its_solve_releases_nothing(monkeypatch):
    class Loosening(Backend):
        name = "loosening"
        requires = frozenset({"smooth"})

        def solve(self, template, b, extra_reg=0.0, *, warm_start=None, max_iter=None):
            monkeypatch.setattr(type(template), "residual_tol", 1e300)
            return LbfgsNewton().solve(template, None, 0.0)

    with pytest.raises(PrivacyError, match="members changed during the solve"):
        dp.release(_template(), "objective", dp.Budget(1.0), backend=Loosening(), rng=0)


def test_a_regularizer_without_the_weight_the_objective_reads_is_refused_by_name():
    class NoLam(Regularizer):  # strong_convexity, value, grad: no lam for the objective
        strong_convexity = 0.5

        def value(self, w):
            return 0.25 * float(w @ w)

        def grad(self, w):
            return 0.5 * w

    template = _template()
    template.regularizer = NoLam()
    with pytest.raises(ParameterError, match="Use the regularizer L2"):
        dp.release(template, "objective", dp.Budget(1.0), rng=0)


def test_a_method_replaced_at_the_freed_ones_address_is_still_caught():
    """The snapshot keeps the objects it names: a function freed during the solve cannot hand its
    identity to the one that replaces it (CPython reuses the address at once)."""
    class Reusing(Backend):
        name = "reusing"
        requires = frozenset({"smooth"})

        def solve(self, template, b, extra_reg=0.0, *, warm_start=None, max_iter=None):
            noiseless = LbfgsNewton().solve(template, None, 0.0)
            old, others = id(Own.residual), []
            Own.residual = None  # its only reference, but the snapshot's: the function is freed
            for _ in range(1000):  # a function at its address, where CPython gives one

                def fake(self, w, b=None, extra_reg=0.0):
                    return 0.0

                if id(fake) == old:
                    break
                others.append(fake)  # kept: the next one takes another free address
            Own.residual = fake
            return noiseless

    class Own(LinearERMTemplate):
        def residual(self, w, b=None, extra_reg=0.0):
            return LinearERMTemplate.residual(self, w, b, extra_reg)

    with pytest.raises(PrivacyError, match="members changed during the solve"):
        dp.release(Own(Logistic(), 0.1, 1.0, *_rows()), "objective", dp.Budget(1.0), backend=Reusing(),
                   rng=0, vouch=("backend", "grad_bound", "hessian", "objective",
                                 "template_conditions"))


@pytest.mark.parametrize("where", ["dunder of the template's class", "class of its rows operator",
                                   "class of a member set"])
def test_a_backend_that_patches_a_class_the_solve_reads_releases_nothing(where, monkeypatch):
    """A class's dunders (but the slot names a pickle caches), the classes of the rows the
    objective reads and of the sets it is constrained to are in the snapshot: patched, they
    would fake the residual, the gradient or the projection."""
    class Patching(Backend):
        name = "patching"
        requires = frozenset({"projection" if where.endswith("set") else "smooth"})

        def solve(self, template, b, extra_reg=0.0, *, warm_start=None, max_iter=None):
            noise = b if where.endswith("set") else None  # the noise left out, or the honest solve
            clean = get_backend("native", template).solve(template, noise, extra_reg)
            if where.startswith("dunder"):
                get = object.__getattribute__
                monkeypatch.setattr(type(template), "__getattribute__", lambda self, name: (
                    (lambda w, b=None, extra_reg=0.0: 0.0) if name == "residual" else get(self, name)),
                    raising=False)
            elif where.endswith("set"):  # the same projection, by another function
                member = type(template.space.convex_set.sets[0])
                monkeypatch.setattr(member, "project", lambda self, w, own=member.project: own(self, w))
            else:
                ops, fused = type(template._ops), type(template._ops).matvec_rmatvec
                monkeypatch.setattr(ops, "matvec_rmatvec", lambda self, w, f: (
                    fused(self, w, f)[0], fused(self, w, f)[1] - b))
            return SolveResult(clean.x, SolveStatus.OPTIMAL, clean.objective, 0.0, self.name)

    template = _template() if not where.endswith("set") else LinearERMTemplate(
        Logistic(), 0.1, 1.0, *_rows(), constraint_set=dp.objectives.Intersection(L2Ball(0.5)))
    with pytest.raises(PrivacyError, match="members changed during the solve"):
        dp.release(template, "objective", dp.Budget(1.0), backend=Patching(), rng=0)


def test_a_backend_that_pickles_the_template_during_its_solve_releases(monkeypatch):
    """Pickling caches ``__slotnames__`` on the template's classes, reading ``__annotations__`` adds
    an empty dict: the comparison leaves them out, while a class attribute set in the same solve is
    still caught."""
    import inspect
    import pickle

    class Pickling(Backend):
        name = "pickling"
        requires = frozenset({"smooth"})
        loosen = False

        def solve(self, template, b, extra_reg=0.0, *, warm_start=None, max_iter=None):
            pickle.dumps(template)
            for part in (template, template.loss, template.regularizer, template.space, template._ops):
                inspect.get_annotations(type(part)), type(part).__annotations__  # an empty dict where none
            if self.loosen:
                monkeypatch.setattr(type(template), "residual_tol", 1e300)
            return LbfgsNewton().solve(template, b, extra_reg)

    template = _template()
    for cls in type(template).__mro__[:-1]:
        if "__slotnames__" in vars(cls):
            monkeypatch.delattr(cls, "__slotnames__")
    assert dp.release(template, "objective", dp.Budget(1.0), backend=Pickling(), rng=0).theta is not None
    assert "__slotnames__" in vars(type(template))
    loosening = Pickling()
    loosening.loosen = True
    with pytest.raises(PrivacyError, match="members changed during the solve"):
        dp.release(template, "objective", dp.Budget(1.0), backend=loosening, rng=0)


def test_a_loss_reading_a_file_while_it_runs_is_checked_at_every_fit(tmp_path):
    settings = tmp_path / "scale.txt"
    settings.write_text("1.0")

    class FromFile(Logistic):  # no CVXPY form: its own NumPy form is solved
        name, path = "from_file_logistic", str(settings)  # a text, described by value
        has_cvxpy = False

        def value_and_deriv(self, m):
            with open(self.path) as file:
                scale = float(file.read())
            value, deriv = super().value_and_deriv(m)
            return scale * value, scale * deriv

        def deriv(self, m):
            with open(self.path) as file:
                return float(file.read()) * super().deriv(m)

    X, s = _rows()
    fit = lambda: dp.PrivateLinearClassifier(loss=FromFile(), mechanism="output", lam=0.1,  # noqa: E731
                                             classes=[-1, 1], random_state=0,
                                             vouch=_NO_FORM_VOUCH).fit(X, s)
    fit()
    settings.write_text("100.0")
    with pytest.raises(PrivacyError, match="declares"):
        fit()


def test_a_failed_condition_opens_with_the_call_the_user_made():
    """A loss that overclaims its curvature fails the template's condition: the refusal opens with
    release, the estimator's fit, fit_prepared or certify, or the search's fit that ran it (and
    the candidate's grid values), never with the template; the text after the opening is the
    condition's, unchanged."""

    class Overclaimed(Logistic):
        name = "overclaimed"
        curvature = 0.01

    X, y = _rows(40)
    est = dp.PrivateLinearClassifier(loss=Overclaimed(), classes=[-1.0, 1.0])
    plan = est.plan(40, 2, 3)
    calls = {"release": lambda: dp.release(LinearERMTemplate(Overclaimed(), 0.1, 1.0, X, y), "objective",
                                           dp.Budget(1.0), rng=0),
             "PrivateLinearClassifier.fit": lambda: est.fit(X, y),
             "PrivateLinearClassifier.fit_prepared": lambda: est.fit_prepared(est.prepare(X, y, plan), plan),
             "PrivateLinearClassifier.certify": lambda: est.certify(X, y),
             "PrivateGridSearch.fit: candidate lam=0.1": lambda: dp.PrivateGridSearch(
                 est, {"lam": [0.1, 1.0]}, epsilon=1.0, random_state=0).fit(X, y)}
    for caller, call in calls.items():
        with pytest.raises(PrivacyError) as err:
            call()
        assert str(err.value).startswith(f"{caller}: curvature bound: loss 'overclaimed' declares"), err.value


@pytest.mark.parametrize("safeguard", [False, True])
def test_the_front_doors_dry_run_opens_a_learners_refusal_with_certify(monkeypatch, safeguard):
    """A condition that fails under a front door's dry run opens with the front door's certify,
    with and without the rows, never with the learner or the part that checked it."""
    from dpconvex.privacy.mechanisms.base import Mechanism

    def refuse(self, budget):
        raise PrivacyError(f"{type(self).__name__}.check_budget: a refusal of the test")

    monkeypatch.setattr(Mechanism, "check_budget", refuse)
    X, y = _rows(400)
    doors = [(dp.PrivateClassifier(epsilon=1.0, classes=[-1.0, 1.0], safeguard=safeguard), y, 2),
             (dp.PrivateRegressor(epsilon=4.0, label_range=(-1.0, 1.0), safeguard=safeguard), y, None)]
    for door, labels, n_classes in doors:
        name = f"{type(door).__name__}.certify"
        for args, shape in (((X, labels), {}), ((), {"n": 400, "n_classes": n_classes,
                                                      "n_features": X.shape[1]})):
            with pytest.raises(PrivacyError) as err:
                door.certify(*args, **shape)
            assert str(err.value) == f"{name}: a refusal of the test", err.value
