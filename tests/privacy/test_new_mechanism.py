"""A mechanism added in one file gets its own Λ rule, noise warning and AMP cover.

The Laplace output-perturbation mechanism below is registered for this module only
(unregistered after it): the exact minimizer plus i.i.d. Laplace(b) noise per coordinate,
b = √p · Δ/ε with Δ = 2G/(nΛ) the L2 argmin sensitivity ([CMS] Cor. 8), so √p Δ bounds the
L1 sensitivity and the release is ε-DP. It reports its noise: placement "output", and a
calibration holding its law (Laplace(b) on the p coordinates, E‖b‖² = 2 p b²), on a grid of
moduli too (``calibrate_grid``); nothing else in dpconvex names it, and a subclass of the
logistic regression offers it on an extended menu. A second mechanism whose calibration
holds no law is refused by name wherever its noise is needed; a third states its own
conditions on the solve.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from typing import Any

import numpy as np
import pytest

import dpconvex as dp
from dpconvex.data.preprocess import clip_rows
from dpconvex.errors import ParameterError, PrivacyError, PrivacyWarning
from dpconvex.estimators.linear import LINEAR_MENU
from dpconvex.objectives.losses import get_loss
from dpconvex.privacy.budget import Budget
from dpconvex.privacy.certificate import Certificate, Condition
from dpconvex.privacy.mechanisms import (
    MECHANISMS,
    ApproximateMinima,
    Calibration,
    Mechanism,
    register,
)
from dpconvex.privacy.mechanisms.amp import GaussianApproximateMinima
from dpconvex.privacy.mechanisms.base import ObjectivePerturbation, at_modulus, require_exact
from dpconvex.privacy.noise import Laplace
from dpconvex.privacy.release import release
from dpconvex.privacy.rules.noise_level import LAM_GRID, auto_lam, warn_if_noise_dominates
from dpconvex.templates.linear_erm import LinearERMTemplate

LAPLACE = "laplace_output_test"
SILENT = "silent_output_test"


class LaplaceOutput(Mechanism):
    """The exact minimizer plus i.i.d. Laplace(b) per coordinate, b = √p · 2G/(nΛ) / ε."""

    name = LAPLACE
    adds_output_noise = True
    needs = frozenset({"strong_convexity"})
    placement = "output"

    def conditions(self, template: Any, budget: Budget) -> list[Condition]:
        conds = super().conditions(template, budget)
        mu = template.privacy_constants().strong_convexity
        conds.append(Condition("strong convexity", mu > 0, "declared by the regularizer",
                               f"modulus mu = {mu:g}"))
        return conds

    @staticmethod
    def _scale(eps: float, n: int, consts: Any, mu: Any) -> Any:
        return math.sqrt(consts.dimension) * (2.0 * consts.grad_bound / (n * mu)) / eps

    def calibrate(self, template: Any, budget: Budget) -> Calibration:
        return self._calibration(budget.epsilon, template.n, template.privacy_constants())

    def calibrate_grid(self, problem: Any, budget: Budget, moduli: np.ndarray) -> Calibration:
        consts = at_modulus(problem.privacy_constants(), moduli)
        return self._calibration(budget.epsilon, problem.n, consts)

    def _calibration(self, eps: float, n: int, consts: Any) -> Calibration:
        """At the constants' modulus μ (an array: one calibration per modulus), holding the law
        Laplace(b) on the p coordinates."""
        b = self._scale(eps, n, consts, consts.strong_convexity)
        return Calibration(
            mechanism=self.name, epsilon_requested=eps,
            sensitivity=2.0 * consts.grad_bound / (n * consts.strong_convexity),
            noise_rate=math.sqrt(consts.dimension) / b,  # coordinate_scale(p, rate) = b
            extra={"laplace scale": b}, constants=consts,
            noise=Laplace(b), noise_shape=(int(consts.dimension),))

    def certificate(self, template: Any, budget: Budget, cal: Calibration | None,
                    conditions: list[Condition]) -> Certificate:
        assert cal is not None
        return Certificate(
            mechanism=f"Laplace output perturbation (test) on {template.name}",
            epsilon_requested=budget.epsilon, epsilon=cal.epsilon, private=True,
            conditions=[*conditions, Condition(
                "noise calibration", True, "L1 sensitivity <= sqrt(p) x L2 sensitivity 2G/(n mu)",
                f"Laplace scale b = {cal.extra['laplace scale']:.6g}")],
            quantities={"laplace scale": cal.extra["laplace scale"]},
            assumptions=list(template.assumptions(self.needs)))

    def noise_law(self, template: Any, cal: Calibration) -> Laplace:
        return Laplace(cal.extra["laplace scale"])

    def run(self, template: Any, cal: Calibration | None, backend: Any,
            rng: np.random.Generator, *, warm_start: np.ndarray | None = None,
            max_iter: int | None = None, tol: float | None = None) -> tuple[np.ndarray, Any, bool]:
        assert cal is not None
        res = require_exact(template, backend.solve(template, None, warm_start=warm_start,
                                                    max_iter=max_iter), tol=tol)
        theta = self.noise_law(template, cal).add(res.x, rng, shape=template.noise_shape)
        return theta, res, True


class SilentOutput(LaplaceOutput):
    """The same mechanism whose calibration holds no noise law, and which does not calibrate on
    a grid (inherits the refusing base method)."""

    name = SILENT
    calibrate_grid = Mechanism.calibrate_grid  # type: ignore[assignment]

    def calibrate(self, template: Any, budget: Budget) -> Calibration:
        return dataclasses.replace(super().calibrate(template, budget), noise=None)


class StatedSolve(LaplaceOutput):
    """The same mechanism stating its own condition on the solve instead of the default's."""

    name = "stated_solve_test"

    def __init__(self, holds: bool = True) -> None:
        self.holds = holds

    def solve_conditions(self, template: Any, result: Any, cal: Any) -> list[Condition]:
        return [Condition("solve within the cap", self.holds, "stated by the mechanism",
                          "at most 100 iterations (a public cap)")]


class LaplaceLogisticRegression(dp.PrivateLogisticRegression):
    """The logistic regression with the two test mechanisms on its menu (set once registered);
    their proofs are the test's own, so its fits vouch for them."""

    vouch = ("mechanism",)


@pytest.fixture(scope="module", autouse=True)
def _registered():
    for cls in (LaplaceOutput, SilentOutput):
        register(cls)
    LaplaceLogisticRegression.mechanism_menu = LINEAR_MENU.with_mechanisms(LAPLACE, SILENT)
    yield
    for cls in (LaplaceOutput, SilentOutput):
        MECHANISMS.pop(cls.name, None)


def _data(n: int = 200, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) / 2.0
    y = (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X, y


N, EPS, Q, P = 500, 1.0, math.sqrt(1.0 + 1.0), 3  # q̃ with the intercept column, p = 2 + 1


def test_lam_auto_uses_the_output_rule_with_this_law():
    R = 8.0  # the output placement's reference norm
    G, c_u = 1.0 * Q, 0.25 * Q * Q  # logistic: |l'| <= 1, l'' <= 1/4
    b = math.sqrt(P) * 2.0 * G / (N * LAM_GRID) / EPS
    bound = LAM_GRID * R * R / 2.0 + G * G / (N * LAM_GRID) + \
        (LAM_GRID + c_u / P) * (2.0 * P * b**2) / 2.0
    expected = float(f"{float(LAM_GRID[int(np.argmin(bound))]):.3g}")
    got = auto_lam(LAPLACE, N, EPS, Q, P, "logistic")
    assert got == expected
    assert got != auto_lam("objective", N, EPS, Q, P, "logistic")
    assert got != auto_lam("output", N, EPS, Q, P, "logistic")  # its own noise, not CMS's


def test_noise_warning_fires_at_a_tiny_epsilon_only():
    X, y = _data()

    def fit(eps: float) -> list[str]:
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            LaplaceLogisticRegression(epsilon=eps, lam=0.1, mechanism=LAPLACE,
                                         classes=[0, 1], random_state=0).fit(X, y)
        return [str(w.message) for w in rec if issubclass(w.category, PrivacyWarning)
                and "noise is large" in str(w.message)]

    # ρ₀ = E‖b‖ Λ / (|l'(0)| q̃) = √(2p) √p 2 / (n ε |l'(0)|) = 2√2 · 3 / (200 ε / 2)
    # ≈ 0.085 / ε: 8.5 at ε = 0.01, 0.0085 at ε = 10 (threshold 1)
    assert len(fit(0.01)) == 1
    assert fit(10.0) == []


def test_amp_accepts_it_and_releases():
    amp = ApproximateMinima(inner=LAPLACE, gamma=1e-4)
    assert amp.inner.name == LAPLACE and amp.placement == "output"
    with pytest.raises(ParameterError, match=LAPLACE):  # pure: not the Gaussian cover
        GaussianApproximateMinima(inner=LAPLACE)
    X, y = _data()
    est = LaplaceLogisticRegression(epsilon=1.0, lam=0.1, mechanism=LAPLACE,
                                       optimality_tol=1e-6, classes=[0, 1], random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        est.fit(X, y)
    assert np.all(np.isfinite(est.coef_))
    assert "approximate-minima" in est.certificate_.mechanism
    assert "Laplace output perturbation (test)" in est.certificate_.mechanism
    assert est.certificate_.mechanism_name == "amp"
    assert est.certificate_.parts[0].mechanism_name == LAPLACE


def test_a_fit_with_lam_auto_releases_with_a_certificate_naming_it():
    X, y = _data()
    est = LaplaceLogisticRegression(epsilon=1.0, mechanism=LAPLACE, classes=[0, 1],
                                       random_state=2).fit(X, y)
    assert np.all(np.isfinite(est.coef_)) and np.all(np.isfinite(est.intercept_))
    cert = est.certificate_
    assert cert.private and cert.epsilon <= 1.0
    assert "Laplace output perturbation (test)" in cert.mechanism
    assert cert.mechanism_name == LAPLACE  # a user's registered mechanism, named by release
    assert cert.lam_rule.rule == "auto"
    assert (cert.lam_rule.mechanism, cert.lam_rule.reference_norm) == (LAPLACE, 8)


def test_a_mechanism_whose_calibration_holds_no_law_is_refused_by_name():
    X, y = _data()
    with pytest.raises(ParameterError, match=f"{SILENT}.*does not report its noise"):
        auto_lam(SILENT, N, EPS, Q, P, "logistic")
    with pytest.raises(ParameterError, match=f"{SILENT}.*does not report its noise"):
        LaplaceLogisticRegression(epsilon=1.0, mechanism=SILENT, classes=[0, 1]).fit(X, y)
    with pytest.raises(ParameterError, match=SILENT):
        ApproximateMinima(inner=SILENT)
    Xc = np.column_stack([X, np.ones(len(X))])  # the intercept column, q̃ = √2
    template = LinearERMTemplate(get_loss("logistic"), 0.1, Q, Xc, 2.0 * y - 1.0)
    with pytest.raises(ParameterError, match=f"{SILENT}.*does not report its noise"):
        warn_if_noise_dominates("linear", template, SilentOutput(), Budget(1.0), "test")


def test_a_linear_fit_with_lam_auto_calibrates_once(monkeypatch):
    calls: list[str] = []
    original = ObjectivePerturbation.calibrate

    def spy(self: Any, template: Any, budget: Budget) -> Calibration:
        calls.append("calibrate")
        return original(self, template, budget)

    monkeypatch.setattr(ObjectivePerturbation, "calibrate", spy)
    X, y = _data()
    dp.PrivateLogisticRegression(epsilon=1.0, lam="auto", classes=[0, 1],
                                 random_state=3).fit(X, y)
    assert calls == ["calibrate"]


def test_a_mechanism_states_its_own_solve_conditions_and_a_failed_one_refuses():
    X, y = _data()
    Xc = np.column_stack([clip_rows(X, 1.0)[0], np.ones(len(X))])  # rows of norm <= q̃ = √2
    template = LinearERMTemplate(get_loss("logistic"), 0.1, Q, Xc, 2.0 * y - 1.0)
    default = release(template, LaplaceOutput(), Budget(1.0), rng=0, vouch=("mechanism",))
    assert default.certificate.conditions[-1].name == "accurate solve"
    stated = release(template, StatedSolve(), Budget(1.0), rng=0, vouch=("mechanism",))
    names = [c.name for c in stated.certificate.conditions]
    assert names[-1] == "solve within the cap" and "accurate solve" not in names
    np.testing.assert_array_equal(stated.theta, default.theta)  # the same draws and solve
    with pytest.raises(PrivacyError, match="solve within the cap"):
        release(template, StatedSolve(holds=False), Budget(1.0), rng=0, vouch=("mechanism",))


class FailedCondition(LaplaceOutput):
    """The same mechanism stating a condition of its own proof that does not hold."""

    name = "failed_condition_test"

    def conditions(self, template: Any, budget: Budget) -> list[Condition]:
        return [*super().conditions(template, budget),
                Condition("public cap", False, "stated by the mechanism", "over the cap")]

    def run(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a release with a failed condition must not draw noise")


def test_a_failed_condition_of_the_mechanism_itself_is_refused_before_the_noise():
    X, y = _data()
    Xc = np.column_stack([clip_rows(X, 1.0)[0], np.ones(len(X))])
    template = LinearERMTemplate(get_loss("logistic"), 0.1, Q, Xc, 2.0 * y - 1.0)
    with pytest.raises(PrivacyError, match=r"^release: public cap"):
        release(template, FailedCondition(), Budget(1.0), rng=0, vouch=("mechanism",))
    cert = release(template, LaplaceOutput(), Budget(1.0), rng=0, vouch=("mechanism",)).certificate
    assert [c.name for c in cert.conditions].count("strong convexity") == 1
