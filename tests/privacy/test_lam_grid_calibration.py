"""The Λ rule's calibration on the whole grid: arrays, and the same choice as one calibration per Λ.

:func:`~dpconvex.privacy.mechanisms.calibrate_objective_perturbation` given ``moduli``
computes the objective-perturbation calibration at every Λ of
:data:`~dpconvex.privacy.rules.noise_level.LAM_GRID` with NumPy. The reference below, kept here and
not in the package, is the straightforward form: the calibration of
docs/privacy/perturbation.md#privacy-objective-perturbation in Python floats, one grid point at a
time (:func:`_reference`), which the package's scalar calibration (no ``moduli``) also meets.
NumPy's ``log1p`` may differ from :func:`math.log1p` in the last bit, so the two
calibrations agree to a few ulps (:data:`ULPS`; at most 2 observed on x86-64, NumPy 2.4)
and the rule's choice, an argmin over grid points whose bounds differ far more than that,
must be the same Λ exactly, on a sweep of the public inputs (n, p, ε, δ, q, loss,
mechanism). At a Λ of the grid, the rule's calibration is the release's on a template with
that Λ: the rule weighs the noise a fit at that Λ adds.
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pytest

from dpconvex.errors import ParameterError, PrivacyError
from dpconvex.objectives import HuberHinge, Logistic, SmoothHinge
from dpconvex.privacy.budget import Budget
from dpconvex.privacy.mechanisms import calibrate_objective_perturbation, get_mechanism
from dpconvex.privacy.mechanisms.base import (
    Calibration,
    at_modulus,
    objective_modulus_floor,
)
from dpconvex.privacy.mechanisms.gaussian_linear import (
    _unit_sigma_objective,
    gradient_difference_rank,
)
from dpconvex.privacy.noise import Gaussian, Laplace, NormGamma
from dpconvex.privacy.rules.noise_level import LAM_GRID, auto_lam, grid_calibration
from dpconvex.templates import PrivacyConstants
from dpconvex.templates.linear_erm import LinearERMTemplate

#: Largest difference, in units in the last place, allowed between an entry of the grid
#: calibration and the scalar calibration at the same Λ (last-bit differences of log1p,
#: carried through a division and a subtraction).
ULPS = 8

LOSSES = (Logistic(), HuberHinge(0.5), HuberHinge(0.05), SmoothHinge(0.3))


def _problem(n: int, q: float, p: int, loss) -> PrivacyConstants:
    """Linear ERM's public problem at Λ = 1: G = |ℓ'| q, r = 1, c_u = T = c q², k = 2."""
    c_u = float(loss.curvature) * q * q
    return PrivacyConstants(
        grad_bound=loss.deriv_bound * q, hessian_rank=1, hessian_term_bound=c_u, strong_convexity=1.0,
        dimension=p, hessian_trace_bound=c_u, n=n, gradient_difference_rank=2)


def _reference(eps: float, n: int, consts: PrivacyConstants, moduli: list[float],
               slack: str = "one_sided") -> dict[str, np.ndarray]:
    """The calibration at each modulus μ of ``moduli``, in Python floats, one μ at a time (CMS
    Alg. 2 with the Jacobian slack of the module's rule): slack s(μ) = r log1p(T/(r n μ))
    one-sided, 2r log1p(c_u/(n μ)) two-sided; where s > ε/2, Δ raises μ to the modulus μ' with
    s(μ') = ε/2 (times 1 + 1e-12) and ε/2 is spent on it; ε' is the largest float with
    spent + ε' <= ε; β = ε'/(2G). Each field as an array over ``moduli``."""
    r, c_u = consts.hessian_rank, consts.hessian_term_bound
    T = r * c_u if consts.hessian_trace_bound is None else min(consts.hessian_trace_bound, r * c_u)
    bound, coef, per, share = (T, r, r * n, r) if slack == "one_sided" else (c_u, 2 * r, n, 2 * r)

    def s(m: float) -> float:
        return 0.0 if r == 0 or bound == 0 else coef * math.log1p(bound / (per * m))

    out: dict[str, list[float]] = {"slack": [], "epsilon_noise": [], "epsilon": [],
                                   "extra_strong_convexity": [], "noise_rate": []}
    for mu in moduli:
        spent = eps_slack = s(mu)
        extra = 0.0
        if eps_slack > eps / 2:
            half = bound / (per * math.expm1(eps / (2 * share))) * (1 + 1e-12)
            extra = max(half - mu, 0.0)
            eps_slack = s(mu + extra)
            spent = max(eps_slack, eps / 2)
        eps_noise = eps - spent
        while eps_noise > 0 and spent + eps_noise > eps:
            eps_noise = math.nextafter(eps_noise, 0.0)
        out["slack"].append(eps_slack)
        out["epsilon_noise"].append(eps_noise)
        out["epsilon"].append(eps_slack + eps_noise)
        out["extra_strong_convexity"].append(extra)
        out["noise_rate"].append(eps_noise / (2 * consts.grad_bound))
    return {field: np.array(values) for field, values in out.items()}


def _scalar_grid(mech_name: str, n: int, eps: float, q: float, p: int, loss,
                 delta: float) -> Calibration:
    """The calibration on LAM_GRID from one scalar calibration per grid point (the reference),
    holding the family of its laws on the p coordinates."""
    consts = _problem(n, q, p, loss)
    ref = _reference(eps, n, consts, LAM_GRID.tolist())
    common = dict(mechanism=mech_name, epsilon_requested=eps, sensitivity=2.0 * consts.grad_bound,
                  extra_strong_convexity=ref["extra_strong_convexity"],
                  modulus_floor=objective_modulus_floor(eps, n, consts),
                  constants=at_modulus(consts, LAM_GRID), noise_shape=(p,))
    if mech_name == "objective":
        return Calibration(noise_rate=ref["noise_rate"], noise=NormGamma(ref["noise_rate"]),
                           **common)
    S = 2.0 * consts.grad_bound
    slacks = ref["slack"]
    sigma = S * _unit_sigma_objective(eps, delta, gradient_difference_rank(consts), slacks)
    return Calibration(noise_rate=math.nan, delta=delta, noise=Gaussian(sigma), **common)


def _assert_close_in_ulps(a, ref: np.ndarray, what: str, at: np.ndarray | None = None) -> None:
    """Every entry of ``a`` within :data:`ULPS` ulps of the same entry of ``ref``. A failure
    names ``what``, the largest gap in ulps and the grid indices of the entries off (``at``:
    the index in LAM_GRID of each entry; by default its position)."""
    gap = np.abs(np.asarray(a, dtype=float) - ref)
    ok = gap <= ULPS * np.spacing(np.abs(ref))
    assert np.all(ok), (
        f"{what}: {float(np.max(gap / np.spacing(np.abs(ref))))} ulps, at Λ[i] for i in "
        f"{(np.flatnonzero(~ok) if at is None else at[~ok]).tolist()}")


@pytest.mark.parametrize("loss", LOSSES, ids=repr)
@pytest.mark.parametrize("slack", ["one_sided", "two_sided"])
def test_grid_calibration_is_the_scalar_one_to_a_few_ulps(loss, slack):
    """Every field at every Λ, across n and ε (both branches: with and without Δ)."""
    for n, eps, q in itertools.product([7, 400, 10**6], [0.01, 0.5, 4.0], [0.3, 1.2]):
        consts = _problem(n, q, 4, loss)
        grid = calibrate_objective_perturbation(eps, n, consts, LAM_GRID, slack=slack)
        ref = _reference(eps, n, consts, LAM_GRID.tolist(), slack)
        assert np.any(grid.extra_strong_convexity > 0) or n == 10**6  # the Δ branch is met
        for field in ("slack", "epsilon_noise", "epsilon", "extra_strong_convexity",
                      "noise_rate"):
            _assert_close_in_ulps(getattr(grid, field), ref[field],
                                  f"{field} at n={n}, eps={eps}, q={q}")
        every = np.arange(0, LAM_GRID.size, 40)  # and the scalar calibration, every 40th Λ
        ones = [calibrate_objective_perturbation(eps, n, at_modulus(consts, float(LAM_GRID[i])),
                                                 slack=slack) for i in every]
        for field in ref:  # each field at all of them in one comparison
            _assert_close_in_ulps([getattr(one, field) for one in ones], ref[field][every],
                                  f"scalar {field} at n={n}, eps={eps}, q={q}", at=every)
        # the ε accounting holds at every Λ in floating point, as for the scalar one
        assert np.all(grid.slack + grid.epsilon_noise <= eps)


@pytest.mark.parametrize("slack", ["one_sided", "two_sided"])
def test_the_calibration_meets_its_derivation_at_any_rank_and_trace_bound(slack):
    """Rank r > 1 with c_u < T < r·c_u, and T not declared (r·c_u): the large-margin templates'
    constants, grid and scalar calibration alike."""
    for (r, c_u, T), n, eps in itertools.product([(4, 0.5, 1.2), (3, 0.25, None), (2, 1.0, 2.0)],
                                                 [7, 400, 10**5], [0.05, 1.0, 6.0]):
        consts = PrivacyConstants(grad_bound=1.3, hessian_rank=r, hessian_term_bound=c_u,
                                  strong_convexity=1.0, dimension=5, hessian_trace_bound=T)
        grid = calibrate_objective_perturbation(eps, n, consts, LAM_GRID, slack=slack)
        every = np.arange(0, LAM_GRID.size, 25)
        refs = _reference(eps, n, consts, LAM_GRID[every].tolist(), slack)
        ones = [calibrate_objective_perturbation(eps, n, at_modulus(consts, float(LAM_GRID[i])),
                                                 slack=slack) for i in every]
        for field in refs:  # each field at every 25th Λ in one comparison per calibration
            value = refs[field]
            where = f"{field} at r={r}, T={T}, n={n}, eps={eps}"
            _assert_close_in_ulps(getattr(grid, field)[every], value, f"grid {where}", at=every)
            _assert_close_in_ulps([getattr(one, field) for one in ones], value,
                                  f"scalar {where}", at=every)


def test_grid_calibration_refuses_what_the_scalar_one_refuses():
    consts = _problem(100, 1.0, 3, Logistic())
    with pytest.raises(PrivacyError, match="strong convexity"):
        calibrate_objective_perturbation(1.0, 100, consts, np.array([0.1, 0.0]))
    unbounded = dataclasses.replace(consts, hessian_term_bound=math.inf,
                                    hessian_trace_bound=math.inf)
    with pytest.raises(PrivacyError, match="curvature bound"):
        calibrate_objective_perturbation(1.0, 100, unbounded, LAM_GRID)


def _sweep(mechs, ns, ps, epss, qs, losses):
    for mech, n, p, eps, q, loss in itertools.product(mechs, ns, ps, epss, qs, losses):
        delta = 0.0 if mech == "objective" else 1.0 / n**2
        yield mech, n, p, eps, q, loss, delta


def _check_same_choice(cases) -> int:
    checked = 0
    for mech_name, n, p, eps, q, loss, delta in cases:
        mech = get_mechanism(mech_name)
        grid = grid_calibration(mech, n, Budget(eps, delta), q, p, loss)
        ref = _scalar_grid(mech_name, n, eps, q, p, loss, delta)
        np.testing.assert_array_equal(grid.constants.strong_convexity, LAM_GRID)
        _assert_close_in_ulps(grid.modulus_eff, ref.modulus_eff, "modulus_eff")
        chosen = auto_lam(mech, n, eps, q, p, loss, delta=delta, grid=grid)
        expected = auto_lam(mech, n, eps, q, p, loss, delta=delta, grid=ref)
        assert chosen == expected, (mech_name, n, p, eps, q, loss, delta, chosen, expected)
        assert auto_lam(mech, n, eps, q, p, loss, delta=delta) == expected
        checked += 1
    return checked


def test_rule_chooses_the_same_lam_as_one_calibration_per_grid_point():
    """A sweep of the public inputs, both objective mechanisms: the same Λ, bit for bit."""
    cases = list(_sweep(["objective"], [30, 2000, 10**5], [11], [0.1, 1.0, 8.0],
                        [math.sqrt(1.0625)], LOSSES[:3]))
    cases += list(_sweep(["gaussian_objective"], [2000], [11], [0.1, 1.0], [1.0], LOSSES[:1]))
    assert _check_same_choice(cases) == len(cases) == 29


@pytest.mark.slow
def test_rule_chooses_the_same_lam_on_a_broad_sweep():
    """The same comparison on 408 public settings: every 11th of the product below, which takes
    every value of every input for both mechanisms (11 is prime to every size)."""
    cases = list(_sweep(["objective", "gaussian_objective"], [10, 100, 1000, 20000, 10**6],
                        [2, 6, 31, 201], [0.02, 0.1, 0.5, 1.0, 2.0, 5.0, 20.0],
                        [0.5, 1.0, math.sqrt(1.0625), 4.0], LOSSES))[::11]
    for mech in ("objective", "gaussian_objective"):  # every value of every input, per mechanism
        assert [len({c[k] for c in cases if c[0] == mech}) for k in (1, 2, 3, 4)] == [5, 4, 7, 4]
        assert len({type(c[5]).__name__ + repr(c[5].params()) for c in cases if c[0] == mech}) == 4
    assert _check_same_choice(cases) == len(cases) == 408


@pytest.mark.parametrize(("mech_name", "fields"), [
    ("objective", ("expected_norm", "expected_sq_norm", "modulus_eff", "modulus_floor")),
    ("output", ("expected_norm", "expected_sq_norm", "modulus_eff")),
    ("gaussian_output", ("expected_norm", "expected_sq_norm", "modulus_eff")),
    ("gaussian_objective", ("slack", "modulus_eff", "modulus_floor")),
])
def test_the_rule_weighs_the_noise_a_fit_at_that_lam_adds(mech_name, fields):
    """At a Λ of the grid, the rule's calibration (:func:`grid_calibration`) is the release's on
    a linear ERM template with that Λ (zero rows: the calibration reads n, q, p and the loss's
    constants only): the rule reads the template's declared constants, not constants of its own.
    Each field the rule weighs, within :data:`ULPS`; for ``gaussian_objective`` the parts set by
    the constants (the slack, μ + Δ, the floor), since its σ on the grid is interpolated between
    exact values (docs/privacy/gaussian_linear.md#privacy-gaussian-lambda-rule)."""
    n, p, q, eps = 300, 4, 1.3, 0.7
    budget = Budget(eps, 1e-5 if mech_name.startswith("gaussian") else 0.0)
    mech = get_mechanism(mech_name)
    every = np.arange(0, LAM_GRID.size, 100)
    for loss in LOSSES:
        grid = grid_calibration(mech, n, budget, q, p, loss)
        ones = [mech.calibrate(LinearERMTemplate(loss, float(LAM_GRID[i]), q,
                                                 np.zeros((n, p)), np.ones(n)), budget)
                for i in every]
        for field in fields:
            on_grid = np.broadcast_to(getattr(grid, field), LAM_GRID.shape)[every]
            _assert_close_in_ulps([float(getattr(one, field)) for one in ones], on_grid,
                                  f"{mech_name} {field} for {loss!r}", at=every)


def test_grid_calibration_calibrates_the_grid_in_one_call(monkeypatch):
    """No scalar calibration per grid point: the rule's calibration costs one array calibration
    (and the scalar one behind the modulus floor)."""
    from dpconvex.privacy.mechanisms import base as mechanism_base
    from dpconvex.privacy.mechanisms import gaussian_linear

    calls = []
    scalar = mechanism_base.calibrate_objective_perturbation

    def counted(*args, **kwargs):
        if len(args) < 4 and kwargs.get("moduli") is None:  # at one modulus
            calls.append(args)
        return scalar(*args, **kwargs)

    monkeypatch.setattr(mechanism_base, "calibrate_objective_perturbation", counted)
    monkeypatch.setattr(gaussian_linear, "calibrate_objective_perturbation", counted)
    for mech, delta in (("objective", 0.0), ("gaussian_objective", 1e-6)):
        calls.clear()
        grid = grid_calibration(mech, 2000, Budget(1.0, delta), 1.0, 11, "logistic")
        assert grid.modulus_eff.shape == grid.expected_sq_norm.shape == LAM_GRID.shape
        assert len(calls) <= 1, (mech, len(calls))


@pytest.mark.parametrize("law", [NormGamma, Gaussian, Laplace])
def test_a_family_of_laws_gives_each_laws_moments_and_does_not_draw(law):
    """The grid's law is a family: entry i's moments and coordinate scale are those of the law
    of parameter i (the same IEEE operations entry by entry, so within an ulp), and it refuses
    to draw."""
    params = np.array([1e-3, 0.5, 2.0, 7.0])
    family = law(params)
    norm, sq = family.moments((5,))
    for i, value in enumerate(params):
        one = law(float(value))
        assert norm[i] == pytest.approx(one.moments((5,))[0], rel=1e-15)
        assert sq[i] == pytest.approx(one.moments((5,))[1], rel=1e-15)
        assert family.coordinate_scale((5,))[i] == pytest.approx(one.coordinate_scale((5,)),
                                                                  rel=1e-15)
    with pytest.raises(ParameterError, match="family of laws"):
        family.sample((5,), np.random.default_rng(0))


@pytest.mark.parametrize("delta, smoothing", [(0.0, False), (1e-6, False), (0.0, True)])
def test_the_rules_calibrate_at_the_plans_budget(monkeypatch, delta, smoothing):
    """The Λ and smoothing rules and the choice of "auto"'s form read the plan's Budget, the
    record checked once, never a second one built from its numbers."""
    import cvxpy as cp

    import dpconvex as dp
    from dpconvex.objectives import Loss

    seen = []
    for cls in {type(get_mechanism(name)) for name in ("objective", "gaussian_objective")}:
        def spy(self, problem, budget, moduli, _original=cls.calibrate_grid):
            seen.append(budget)
            return _original(self, problem, budget, moduli)

        monkeypatch.setattr(cls, "calibrate_grid", spy)
    loss = Loss.from_cvxpy(lambda m: cp.pos(1 - m)) if smoothing else "logistic"
    plan = dp.PrivateLinearClassifier(loss=loss, epsilon=1.0, delta=delta).plan(2000, 2, 5)
    assert seen
    # "auto" at δ > 0 weighs its two forms, each at its own budget; the plan keeps one of them
    assert any(budget is plan.budget for budget in seen)
    assert all(budget is plan.budget or budget.delta != plan.budget.delta for budget in seen)
