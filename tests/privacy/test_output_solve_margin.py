"""Output perturbation covers its solver's error: a release is a solve within κG/(nμ) of the
exact minimizer, and the noise is calibrated to 2G(1 + κ)/(nμ)
(docs/privacy/perturbation.md#privacy-output-perturbation).

The exact tests take a 1-D problem whose neighbours' exact minimizers are the full 2G/(nμ)
apart (Huber hinge in its linear part: J is quadratic, ∇J(θ) = μ(θ − θ*)), place each
released point anywhere the accuracy check accepts (residual <= the tolerance, checked by the
template), and compute the worst-case privacy loss of the output densities in closed form.
"""

from __future__ import annotations

import math
import re
import threading

import cvxpy as cp
import numpy as np
import pytest
from scipy.stats import norm

import dpconvex as dp
from dpconvex.errors import PrivacyError, SolverError
from dpconvex.objectives import CVXPYSet
from dpconvex.objectives.losses import get_loss
from dpconvex.privacy.accounting.analytic_gaussian import analytic_gaussian_sigma
from dpconvex.privacy.budget import Budget
from dpconvex.privacy.mechanisms import get_mechanism
from dpconvex.privacy.mechanisms.base import (
    OUTPUT_SOLVE_MARGIN,
    _aimed_at,
    calibrate_output_perturbation,
    output_release_tolerance,
)
from dpconvex.privacy.release import release
from dpconvex.solvers import LbfgsNewton
from dpconvex.solvers.registry import SolveResult, SolveStatus
from dpconvex.templates.linear_erm import LinearERMTemplate

LAM = 10.0  # θ* <= 1/LAM = 0.1: every margin ±θ stays on the hinge's linear part (s > h)


def _neighbours(n: int) -> tuple[LinearERMTemplate, LinearERMTemplate]:
    """D: n records x = 1, y = +1; D′: one of them with y = −1. θ*(D) = 1/(nλ)·n,
    θ*(D′) = (n − 2)/(nλ): 2G/(nμ) apart, G = 1, μ = λ."""
    y = np.ones(n)
    y2 = y.copy()
    y2[0] = -1.0
    loss = get_loss("huber", h=0.5)
    return (LinearERMTemplate(loss, LAM, 1.0, np.ones((n, 1)), y),
            LinearERMTemplate(loss, LAM, 1.0, np.ones((n, 1)), y2))


def _farthest_accepted(t: LinearERMTemplate, t2: LinearERMTemplate, tol: float) -> float:
    """The largest distance between two points the accuracy check accepts on D and D′ at
    ``tol``: each pushed away from the other to residual ``tol`` (checked by the template)."""
    mu = t.privacy_constants().strong_convexity
    exact = [float(np.sum(tt.y)) / (tt.n * LAM) for tt in (t, t2)]  # θ* = Σ yᵢxᵢ/(nλ)
    step = tol / mu * (1.0 - 1e-6)  # inside: the residual carries rounding
    a, a2 = exact[0] + step, exact[1] - step
    assert t.residual(np.array([a]), None) <= tol and t2.residual(np.array([a2]), None) <= tol
    # and the exact minimizers are the full 2G/(nμ) apart
    assert exact[0] - exact[1] == pytest.approx(2.0 / (t.n * mu), rel=1e-9)
    return a - a2


@pytest.mark.parametrize("n", [40, 10_000])
def test_the_worst_case_laplace_loss_is_epsilon_with_the_margin_and_above_without(n):
    t, t2 = _neighbours(n)
    eps, mech = 1.0, get_mechanism("output")
    cal = mech.calibrate(t, Budget(eps))
    tol = output_release_tolerance(t, cal)[0]
    gap = _farthest_accepted(t, t2, tol)
    # 1-D norm-Gamma is Laplace of rate β: log p_D(y) − log p_D′(y) = β(|y − a′| − |y − a|),
    # on a grid through both centres and beyond; its supremum is β|a − a′|
    ys = np.linspace(-1.0, 1.0, 20_001)
    loss = cal.noise_rate * np.max(np.abs(ys - (gap + 0.1)) - np.abs(ys - 0.1))
    assert loss <= eps * (1.0 + 1e-9)
    # the calibration without the margin, with the tolerance the residual check had alone
    # (the template's residual_tol): the accepted points give more than ε
    exact = calibrate_output_perturbation(eps, n, t.privacy_constants(), margin=0.0)
    uncovered = _farthest_accepted(t, t2, t.residual_tol)
    assert exact.noise_rate * uncovered > eps * (1.0 + 0.5 * n * t.residual_tol)


def _gaussian_delta(eps: float, shift: float, sigma: float) -> float:
    """The exact δ(ε) of N(a, σ²) against N(a′, σ²), |a − a′| = shift (Balle & Wang 2018)."""
    r = shift / sigma
    return float(norm.cdf(r / 2 - eps / r) - math.exp(eps) * norm.cdf(-r / 2 - eps / r))


def test_the_worst_case_gaussian_delta_meets_delta_with_the_margin_and_not_without():
    n, eps, delta = 10_000, 1.0, 1e-6
    t, t2 = _neighbours(n)
    mech = get_mechanism("gaussian_output")
    cal = mech.calibrate(t, Budget(eps, delta))
    tol = output_release_tolerance(t, cal)[0]
    sigma = cal.extra["noise std"]
    assert _gaussian_delta(eps, _farthest_accepted(t, t2, tol), sigma) <= delta * (1 + 1e-6)
    # σ for the exact minimizers' 2G/(nμ) alone, the tolerance the template's residual_tol
    exact_sigma = analytic_gaussian_sigma(eps, delta, 2.0 / (n * LAM))
    assert exact_sigma == pytest.approx(sigma / (1.0 + OUTPUT_SOLVE_MARGIN), rel=1e-9)
    uncovered = _gaussian_delta(eps, _farthest_accepted(t, t2, t.residual_tol), exact_sigma)
    assert uncovered > 1.2 * delta  # 1.2e-6 at n = 10⁴ (the gap 2·1e-6/μ against 2G/(nμ) = 2e-5)


class _AtTheTolerance:
    """A backend that stops exactly at the tolerance it is given: the point of residual
    0.99 × ``template.residual_tol`` read when it solves (the shipped backends aim at a fraction
    of it), so a release passes the accuracy check only if the solve was asked for γ(n)."""

    solvers = ("stub",)

    def solve(self, template, b, extra_reg=0.0, **_):
        x = np.array([float(np.sum(template.y)) / (template.n * LAM)
                      + 0.99 * template.residual_tol / LAM])
        return SolveResult(x=x, status=SolveStatus.OPTIMAL, objective=0.0,
                           residual=float(template.residual(x, None)), solver="stub")


def test_the_tolerance_is_kappa_g_over_n_and_the_solver_is_given_it():
    t, _ = _neighbours(10_000)
    mech = get_mechanism("output")
    cal = mech.calibrate(t, Budget(1.0))
    tol, radius = output_release_tolerance(t, cal)
    assert tol == pytest.approx(OUTPUT_SOLVE_MARGIN / 10_000, rel=1e-9)
    assert tol < t.residual_tol
    assert radius == pytest.approx(OUTPUT_SOLVE_MARGIN / (10_000 * LAM), rel=1e-12)
    # a backend stopping at 0.99 x the tolerance it reads passes only if it was given γ(n)
    _, res, noised = mech.run(t, cal, _AtTheTolerance(), np.random.default_rng(0))
    assert noised and tol / 2 < res.residual <= tol and t.residual_tol == 1e-6  # as it was
    assert "residual_tol" not in vars(t)
    _, res, _ = mech.run(t, cal, LbfgsNewton(), np.random.default_rng(0))
    line = mech.solve_conditions(t, res, cal)[0]
    assert line.holds and "covered" in line.detail and "uncovered" not in line.detail


class _PropertyTolerance(LinearERMTemplate):
    """A template serving ``residual_tol`` through a property with a setter."""

    @property
    def residual_tol(self):
        return self.__dict__.get("_tol", 1e-6)

    @residual_tol.setter
    def residual_tol(self, value):
        self.__dict__["_tol"] = value


class _ClassTolerance(LinearERMTemplate):
    """A template whose ``residual_tol`` is its class's attribute, 2e-6."""

    residual_tol = 2e-6


class _Watching:
    """A backend stopping at 0.99 x the tolerance it reads (as :class:`_AtTheTolerance`) that
    records, while it solves, the tolerance it read, whether it was given the caller's
    template, and the caller's template's tolerance then; ``barrier``: each solve waits there,
    so the solves of several threads are in flight at once."""

    solvers = ("stub",)

    def __init__(self, caller, barrier=None):
        self.caller, self.barrier, self.seen = caller, barrier, []

    def solve(self, template, b, extra_reg=0.0, **_):
        if self.barrier is not None:
            self.barrier.wait(10)
        self.seen.append((template.residual_tol, template is self.caller,
                          self.caller.residual_tol, "residual_tol" in vars(self.caller)))
        return _AtTheTolerance().solve(template, b, extra_reg)


@pytest.mark.parametrize("kind", [_PropertyTolerance, _ClassTolerance, LinearERMTemplate])
def test_the_callers_template_keeps_its_tolerance_while_the_solve_aims_at_gamma(kind):
    base, _ = _neighbours(10_000)
    t = kind(base.loss, LAM, 1.0, base.X, base.y)
    before, held = t.residual_tol, "residual_tol" in vars(t)
    mech = get_mechanism("output")
    cal = mech.calibrate(t, Budget(1.0))
    aim = output_release_tolerance(t, cal)[0]
    backend = _Watching(t)
    _, res, _ = mech.run(t, cal, backend, np.random.default_rng(0))
    assert res.residual <= aim < before
    assert backend.seen == [(aim, False, before, held)]  # a copy aimed; the caller's as it was
    assert t.residual_tol == before and ("residual_tol" in vars(t)) == held


def test_releases_from_threads_on_one_template_leave_its_tolerance_as_it_was():
    t, _ = _neighbours(10_000)
    mech = get_mechanism("output")
    cal = mech.calibrate(t, Budget(1.0))
    aim = output_release_tolerance(t, cal)[0]
    backend = _Watching(t, threading.Barrier(2))  # both solves in flight at once
    outcomes = []

    def one(seed):
        outcomes.append(mech.run(t, cal, backend, np.random.default_rng(seed))[1].residual)

    worker = threading.Thread(target=one, args=(1,))
    worker.start()
    one(2)
    worker.join(10)
    assert len(outcomes) == 2 and max(outcomes) <= aim
    assert backend.seen == [(aim, False, 1e-6, False)] * 2
    assert t.residual_tol == 1e-6 and "residual_tol" not in vars(t)


class _ClampedTolerance(LinearERMTemplate):
    """A template whose ``residual_tol`` setter clamps at 1e-2: it ignores the aim."""

    @property
    def residual_tol(self):
        return self.__dict__.get("_tol", 1e-2)

    @residual_tol.setter
    def residual_tol(self, value):
        self.__dict__["_tol"] = max(float(value), 1e-2)


class _ValidatedTolerance(LinearERMTemplate):
    """A template whose ``residual_tol`` setter raises ValueError below 1e-6."""

    @property
    def residual_tol(self):
        return self.__dict__.get("_tol", 1e-6)

    @residual_tol.setter
    def residual_tol(self, value):
        if value < 1e-6:
            raise ValueError("too small")
        self.__dict__["_tol"] = value


class _ReadOnlyTolerance(LinearERMTemplate):
    """A template whose ``residual_tol`` is a property without a setter."""

    @property
    def residual_tol(self):
        return 1e-6


class _SharedTolerance(LinearERMTemplate):
    """A template whose ``residual_tol`` setter writes to a store every instance reads."""

    store = {"tol": 1e-6}

    @property
    def residual_tol(self):
        return self.store["tol"]

    @residual_tol.setter
    def residual_tol(self, value):
        self.store["tol"] = value


@pytest.mark.parametrize("kind", [_ClampedTolerance, _ValidatedTolerance, _ReadOnlyTolerance,
                                  _SharedTolerance])
def test_a_template_that_does_not_take_the_aim_is_refused_and_left_as_it_was(kind):
    """A copy whose setter clamps the aim away, refuses it or has none, or one that sets the
    caller's template's tolerance too, is refused before the solve (the residual would be
    judged at another tolerance than the γ(n) the noise covers)."""
    base, _ = _neighbours(10_000)
    t = kind(base.loss, LAM, 1.0, base.X, base.y)
    before, held = t.residual_tol, set(vars(t))
    mech = get_mechanism("output")
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    with pytest.raises(PrivacyError, match="does not let its residual_tol be set to the "
                                           "tolerance 1e-07"):
        mech.run(t, mech.calibrate(t, Budget(1.0)), _NeverSolves(), rng)
    assert t.residual_tol == before and set(vars(t)) == held
    assert rng.bit_generator.state == state  # nothing drawn


class _Uncopyable(LinearERMTemplate):
    """A template whose ``__copy__`` raises, with a text that must not reach the refusal."""

    def __copy__(self):
        raise RuntimeError("secret 0.123")


class _SelfCopy(LinearERMTemplate):
    """A template whose ``__copy__`` gives back the template itself."""

    def __copy__(self):
        return self


@pytest.mark.parametrize("kind, why", [(_Uncopyable, "copying it raised RuntimeError"),
                                       (_SelfCopy, "its copy is not a new object of its class")])
def test_a_template_that_cannot_be_copied_is_refused_by_name(kind, why):
    base, _ = _neighbours(10_000)
    t = kind(base.loss, LAM, 1.0, base.X, base.y)
    mech = get_mechanism("output")
    with pytest.raises(PrivacyError, match="^release: template .* cannot be copied") as refused:
        release(t, mech, Budget(1.0), rng=0,
                vouch=("grad_bound", "objective", "template_conditions"))  # (the user's)
    assert why in str(refused.value) and "0.123" not in str(refused.value)
    assert t.residual_tol == 1e-6 and "residual_tol" not in vars(t)


def test_a_tolerance_held_in_a_slot_is_aimed_on_a_copy():
    class Slotted:
        __slots__ = ("residual_tol", "name")

    t = Slotted()
    t.residual_tol, t.name = 1e-6, "slotted"
    aimed = _aimed_at(t, 1e-9)
    assert aimed is not t and aimed.residual_tol == 1e-9 and t.residual_tol == 1e-6
    assert _aimed_at(t, 1e-6) is t and _aimed_at(t, 1e-5) is t  # nothing to aim below


class _Loosening(_AtTheTolerance):
    """A backend that loosens the tolerance of the template it solves, or changes its row bound,
    then returns a point of residual 5e-7 (the template's 1e-6 met, γ(n) = 1e-7 missed)."""

    def __init__(self, member, value):
        self.member, self.value = member, value

    def solve(self, template, b, extra_reg=0.0, **_):
        setattr(template, self.member, self.value)
        return _Accepted().solve(template, b, extra_reg)


@pytest.mark.parametrize("member, value", [("residual_tol", 1.0), ("data_norm", 0.5)])
def test_a_solve_that_changes_the_copy_it_solves_is_refused(member, value):
    """What a release's guard compares on the template it was given
    (:func:`~dpconvex.privacy.user_parts.unchanged`) is compared on the copy solved."""
    t, _ = _neighbours(10_000)
    mech = get_mechanism("output")
    before = getattr(t, member)
    with pytest.raises(PrivacyError, match="members changed during the solve"):
        mech.run(t, mech.calibrate(t, Budget(1.0)), _Loosening(member, value),
                 np.random.default_rng(0))
    assert getattr(t, member) == before


def test_what_the_solve_of_the_copy_keeps_stays_on_the_copy():
    """The products an output release's solve keeps between a solver's calls (margins, the last
    objective) are kept on the copy it solved, not on the caller's template, which holds none
    after the release (a release starts by forgetting them: forget_kept); the next release on
    it, with the same seed, releases the same numbers (the same arithmetic: up to rounding)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2_000, 3))  # γ(n) = 5e-7, below residual_tol: a copy is solved
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    t = LinearERMTemplate(get_loss("logistic"), 0.1, 1.0, X, np.where(X[:, 0] > 0, 1.0, -1.0))
    first = release(t, "output", Budget(1.0), rng=1)
    assert all(getattr(t, name) is None for name in type(t)._caches)
    np.testing.assert_allclose(release(t, "output", Budget(1.0), rng=1).theta, first.theta,
                               rtol=1e-12, atol=1e-15)


def _over_a_set_without_exact_projection(n: int = 200) -> LinearERMTemplate:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 3)) / 4.0
    w = cp.Variable(3)
    return LinearERMTemplate(get_loss("logistic"), 0.1, 1.0, X, np.where(X[:, 0] > 0, 1.0, -1.0),
                             CVXPYSet([cp.sum(w) <= 0.1, w >= -1], w))


class _NeverSolves:
    """A backend whose solve fails the test: the refusal comes before any solve, so before the
    output noise is drawn."""

    solvers = ("stub",)

    def solve(self, *_, **__):
        raise AssertionError("solved")


@pytest.mark.parametrize("name, budget", [("output", Budget(1.0)),
                                          ("gaussian_output", Budget(1.0, 1e-6))])
def test_output_perturbation_over_a_set_without_exact_projection_is_refused(name, budget):
    t = _over_a_set_without_exact_projection()
    mech = get_mechanism(name)
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    with pytest.raises(PrivacyError, match="bounds no distance.*Use objective perturbation"):
        release(t, mech, budget, _NeverSolves(), rng)
    assert rng.bit_generator.state == state  # nothing drawn
    with pytest.raises(PrivacyError, match="bounds no distance"):  # a direct run as well
        mech.run(t, mech.calibrate(t, budget), _NeverSolves(), rng)
    assert rng.bit_generator.state == state


def test_a_direct_output_run_at_a_tolerance_the_noise_does_not_cover_is_refused():
    t, _ = _neighbours(10_000)
    mech = get_mechanism("output")
    with pytest.raises(PrivacyError, match="not tol=1e-06"):
        mech.run(t, mech.calibrate(t, Budget(1.0)), _NeverSolves(), np.random.default_rng(0),
                 tol=1e-6)


class _Accepted:
    """A backend returning a point of residual 5e-7: the template's tolerance 1e-6 met,
    κG/n = 1e-7 missed."""

    solvers = ("stub",)

    def solve(self, template, b, extra_reg=0.0, **_):
        x = np.array([0.1 + 5e-7 / LAM])
        return SolveResult(x=x, status=SolveStatus.OPTIMAL, objective=0.0,
                           residual=float(template.residual(x, None)), solver="stub")


def test_a_solve_within_the_template_tolerance_but_not_kappa_g_over_n_is_refused():
    t, _ = _neighbours(10_000)
    for name, budget in (("output", Budget(1.0)), ("gaussian_output", Budget(1.0, 1e-6))):
        mech = get_mechanism(name)
        with pytest.raises(SolverError, match="1e-07.*covers a solve within kappa"):
            mech.run(t, mech.calibrate(t, budget), _Accepted(), np.random.default_rng(0))
        assert t.residual_tol == 1e-6


class _FixedTolerance(_Accepted):
    """The same point, from a backend naming a CVXPY solver (fixed tolerances)."""

    solvers = ("clarabel",)


def test_a_fixed_tolerance_solver_missing_kappa_g_over_n_is_told_to_use_the_native_one():
    t, _ = _neighbours(10_000)
    mech = get_mechanism("output")
    with pytest.raises(SolverError, match="clarabel solves to fixed.*Use solver='native'"):
        mech.run(t, mech.calibrate(t, Budget(1.0)), _FixedTolerance(), np.random.default_rng(0))
    with pytest.raises(SolverError) as refused:
        mech.run(t, mech.calibrate(t, Budget(1.0)), _Accepted(), np.random.default_rng(0))
    assert "fixed tolerances" not in str(refused.value)


def _advised(message: str) -> set[str]:
    """The backends a refusal tells the user to use."""
    return set(re.findall(r"solver='(\w+)'", message))


@pytest.mark.parametrize("solvers", [("clarabel",), ("scs",), ("native",), ("stub",)])
def test_a_refused_output_solve_advises_only_the_backend_that_aims_at_its_tolerance(solvers):
    """Clarabel and SCS solve to fixed tolerances, so the one message that says so never also
    advises them (nor any solve output perturbation refuses): the native solver, where it did
    not run, else no backend."""
    t, _ = _neighbours(10_000)
    backend = type("Stub", (_Accepted,), {"solvers": solvers})()
    for name, budget in (("output", Budget(1.0)), ("gaussian_output", Budget(1.0, 1e-6))):
        mech = get_mechanism(name)
        with pytest.raises(SolverError) as refused:
            mech.run(t, mech.calibrate(t, budget), backend, np.random.default_rng(0))
        assert _advised(str(refused.value)) == ({"native"} - set(solvers))


def test_a_release_through_scs_stopped_short_advises_the_native_solver_only():
    X = np.random.default_rng(0).normal(size=(40, 3))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    t = LinearERMTemplate(get_loss("logistic"), 0.1, 1.0, X, np.where(X[:, 0] > 0, 1, -1))
    with pytest.raises(SolverError) as refused:
        release(t, "output", Budget(1.0), backend="scs", max_iter=1, rng=0)
    assert _advised(str(refused.value)) == {"native"}


@pytest.mark.parametrize("name, delta", [("output", 0.0), ("gaussian_output", 1e-6)])
def test_a_tolerance_float64_does_not_resolve_is_refused_by_certify_as_by_fit(name, delta):
    """kappa*G/n below float64's resolution of the gradient (n above kappa*2**41, about 2.2e9
    records): refused from the shape alone, by the dry run (certify) as by the release a fit
    runs on the same public problem, with the same text, before any noise is drawn."""
    est = dp.PrivateLogisticRegression(classes=[0, 1], mechanism=name, delta=delta)
    n = 3 * 10**9
    with pytest.raises(PrivacyError) as dry:
        est.certify(n=n, n_classes=2, n_features=3)
    plan = est.plan(n, 2, 3)
    noise = np.random.default_rng(0)
    drawn = noise.bit_generator.state
    with pytest.raises(PrivacyError) as fit:
        release(est.public_template(plan), plan.mechanism, plan.budget, rng=noise)
    assert noise.bit_generator.state == drawn  # no noise drawn
    opened = [str(e.value).split(": ", 1) for e in (dry, fit)]
    assert opened[0][1] == opened[1][1] and opened[1][0] == "release"
    # below the threshold the same shape certifies
    assert est.certify(n=2 * 10**9, n_classes=2, n_features=3).all_hold
