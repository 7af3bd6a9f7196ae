"""Every calibration records the public facts it read of a template, once (n, an approximate-
minima cover's distance bound), its run and certificate read the record, and the release
compares the record with what it read for its checks: a user's template that answers otherwise
at a later call is refused by name, before any noise is drawn."""
from __future__ import annotations

import numpy as np
import pytest
from _doubles import CheckedN

import dpconvex as dp
from dpconvex.data.sufficient import sufficient_statistics
from dpconvex.errors import PrivacyError
from dpconvex.objectives import Logistic
from dpconvex.privacy.mechanisms import get_mechanism
from dpconvex.privacy.mechanisms.scalar import BoundedMeanTemplate, SelectionTemplate
from dpconvex.templates import LinearERMTemplate
from dpconvex.templates.linear_erm import RESIDUAL_TOL
from dpconvex.templates.statistics import (
    EmpiricalRiskTemplate,
    RangeTemplate,
    SufficientStatisticsTemplate,
    VocabularyTemplate,
)

RNG = np.random.default_rng(0)
X = RNG.normal(size=(40, 3))
X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
Y = np.where(X[:, 0] > 0, 1.0, -1.0)
#: What a user vouches for to release a template of its own through approximate minima around
#: objective perturbation (its Gaussian form: the span of the gradients too), its own
#: conditions() among them; around output perturbation (:data:`OUTPUT_AMP_VOUCH`).
AMP_VOUCH = ("grad_bound", "hessian", "objective", "distance_bound", "template_conditions")
OUTPUT_AMP_VOUCH = ("grad_bound", "objective", "distance_bound", "template_conditions")
GAUSSIAN_AMP_VOUCH = (*AMP_VOUCH, "gradient_span")


def drifting_distance(honest: int):
    """A user's linear ERM template whose ``distance_bound`` is the shipped one at its first
    ``honest`` calls and a millionth of it after (a cover a millionth as wide)."""
    calls = []

    class Drifting(LinearERMTemplate):
        name = "drifting distance"

        def distance_bound(self, residual, mu):
            calls.append(1)
            bound = super().distance_bound(residual, mu)
            return bound if len(calls) <= honest else 1e-6 * bound

    return Drifting


@pytest.mark.parametrize("mechanism, lam, honest, vouch", [
    # Δ > 0 (lam 1e-3): the record at μ, the cover at μ + Δ; the bound read first is the record's
    (("amp", "objective"), 1e-3, 1, AMP_VOUCH),
    (("gaussian_amp", "gaussian_objective"), 1e-3, 1, GAUSSIAN_AMP_VOUCH),
    # Δ = 0: the output placement's conditions read the bound first, at modulus 1
    (("amp", "output"), 0.1, 2, OUTPUT_AMP_VOUCH),
])
def test_a_cover_calibrated_to_another_distance_bound_is_refused(mechanism, lam, honest, vouch):
    """The checks read d₁ = distance_bound(1, μ) (the record), the cover ρ = distance_bound(γ,
    μ + Δ) a millionth of γ·d₁·μ/(μ + Δ): refused before any noise."""
    name, inner = mechanism
    budget = dp.Budget(1.0, 1e-6) if name == "gaussian_amp" else dp.Budget(1.0)
    template = drifting_distance(honest)(Logistic(), lam, 1.0, X, Y)
    with pytest.raises(PrivacyError, match="another distance_bound for the calibration"):
        dp.release(template, get_mechanism(name, inner=inner), budget, rng=0, vouch=vouch)


@pytest.mark.parametrize("lam, inner", [(1e-3, "objective"), (0.1, "output")])
def test_a_cover_on_the_checked_distance_bound_is_released(lam, inner):
    """The same template answering one bound at every call is released (with Δ > 0 and Δ = 0),
    and its cover is the shipped template's (the same floats: equal up to rounding)."""
    vouch = AMP_VOUCH if inner == "objective" else OUTPUT_AMP_VOUCH
    mech = get_mechanism("amp", inner=inner)
    released = dp.release(drifting_distance(10**9)(Logistic(), lam, 1.0, X, Y), mech,
                          dp.Budget(1.0), dry_run=True, vouch=vouch).calibration
    shipped = dp.release(LinearERMTemplate(Logistic(), lam, 1.0, X, Y), mech, dp.Budget(1.0),
                         dry_run=True).calibration
    assert released.extra["radius"] == pytest.approx(shipped.extra["radius"], rel=1e-12)
    assert released.n == shipped.n == 40


class DriftingN:
    """n the number of records at its first ``honest`` reads, a thousand times it after (noise
    a thousand times smaller): mixed into a template class of dpconvex's."""

    honest = 1

    @property
    def n(self):
        self._reads = getattr(self, "_reads", 0) + 1
        return self._n if self._reads <= self.honest else 1000 * self._n

    @n.setter
    def n(self, value):
        self._n, self._reads = value, 0


def _drifting(base, honest=1):
    return type(f"Drifting{base.__name__}", (DriftingN, base), {"honest": honest})


def _sums_template(cls):
    rows, labels = RNG.normal(size=(50, 2)) / 2, np.clip(RNG.normal(size=50), -1, 1)
    return cls(sufficient_statistics(rows, labels, 1.0, None), 50, 2, 1.0)


@pytest.mark.parametrize("build, mechanism, budget, vouch", [
    (lambda: CheckedN(Logistic(), 0.1, 1.0, X, Y), "amp", dp.Budget(1.0), AMP_VOUCH),
    (lambda: _drifting(EmpiricalRiskTemplate)(Logistic(), 1.0, X, Y),
     get_mechanism("noisy_gd", steps=5), dp.Budget(1.0, 1e-5), ("objective",)),
    (lambda: _sums_template(_drifting(SufficientStatisticsTemplate)), "ssp", dp.Budget(1.0),
     ("data_norm", "template_conditions")),
    (lambda: _sums_template(_drifting(SufficientStatisticsTemplate)), "gaussian_ssp",
     dp.Budget(1.0, 1e-6), ("data_norm", "template_conditions")),
    (lambda: _drifting(SelectionTemplate)([0.1, 0.5, 3.0], sensitivity=2.0, n=40),
     "exponential", dp.Budget(1.0), ("sensitivity", "template_conditions")),
    # a range's and a vocabulary's constructor (one and two reads) and conditions read n
    # first, the record next
    (lambda: _drifting(RangeTemplate, 3)(np.exp(RNG.normal(size=200)), 200, (0.1, 0.9),
                                         refine=True), "quantile_range", dp.Budget(1.0),
     ("sensitivity",)),
    (lambda: _drifting(VocabularyTemplate, 4)(np.repeat(["a", "b"], [150, 50]), 200),
     "stable_vocabulary", dp.Budget(1.0, 1e-6), ("sensitivity",)),
])
def test_an_n_that_answers_otherwise_for_the_calibration_is_refused(build, mechanism, budget,
                                                                      vouch):
    """The release reads n = the records held for its checks (the record), the calibration a
    thousand times it (the next read): refused by name before any noise, not released stating
    an n the checks never saw."""
    with pytest.raises(PrivacyError, match="another n for the calibration"):
        dp.release(build(), mechanism, budget, rng=0, vouch=vouch)


def test_a_mean_whose_n_answers_otherwise_for_the_calibration_is_refused():
    """The mean's condition reads n (first read), the release's record and the calibration a
    thousand times it: refused (the certificate compares the condition's n with the
    calibration's)."""
    template = _drifting(BoundedMeanTemplate)(np.full(100, 0.5))
    with pytest.raises(PrivacyError, match="another bound or n"):
        dp.release(template, "laplace_mean", dp.Budget(1.0), rng=0, vouch=("sensitivity",))


@pytest.mark.parametrize("build, mechanism, budget, key", [
    (lambda: _drifting(EmpiricalRiskTemplate, 2)(Logistic(), 1.0, X, Y),
     get_mechanism("noisy_gd", steps=5), dp.Budget(1.0, 1e-5), "n"),
    (lambda: _drifting(SelectionTemplate, 2)([0.1, 0.5, 3.0], sensitivity=2.0, n=40),
     "exponential", dp.Budget(1.0), "rows scored"),
])
def test_the_certificate_states_the_n_the_calibration_read(build, mechanism, budget, key):
    """n read twice (the release's record, the calibration), a thousand times it at any later
    read: the certificate states the calibration's n, never a later read's."""
    # a user's template's rows read by noisy GD: "per-example gradients", declared
    vouch = ("sensitivity", "template_conditions") if mechanism == "exponential" else ("objective",)
    released = dp.release(build(), mechanism, budget, rng=0, vouch=vouch)
    assert released.calibration.n == 40
    assert released.certificate.quantities[key] == 40


@pytest.mark.parametrize("name, inner, budget", [
    ("amp", "output", dp.Budget(1.0)),
    ("gaussian_amp", "gaussian_output", dp.Budget(1.0, 1e-6)),
])
def test_output_perturbation_under_a_cover_keeps_its_own_calibration(name, inner, budget):
    """Around output perturbation the inner noise is calibrated to the solved point's
    S = 2G(1 + kappa)/(n mu) (kappa = OUTPUT_SOLVE_MARGIN), at least the exact minimizer's
    2G/(n mu) the cover's proof needs (docs/privacy/accuracy_randomness.md)."""
    from dpconvex.privacy.mechanisms.base import OUTPUT_SOLVE_MARGIN

    template = LinearERMTemplate(Logistic(), 0.1, 1.0, X, Y)
    cal = get_mechanism(name, inner=inner).calibrate(template, budget).extra["inner"]
    exact = 2.0 * cal.constants.grad_bound / (template.n * cal.constants.strong_convexity)
    # the same products in another order: equal up to rounding
    assert cal.sensitivity == pytest.approx(exact * (1.0 + OUTPUT_SOLVE_MARGIN), rel=1e-12)
    assert cal.sensitivity >= exact


def test_the_lloyd_iterations_are_those_the_budget_was_split_over():
    """k-means splits epsilon over T = n_iter iterations, read once by the calibration: a
    template stating T = 1 there and 50 at any later read runs 1 iteration (50 would spend 50
    times the stated epsilon), and its certificate states 1."""
    from dpconvex.templates.statistics import KMeansTemplate

    class Drifting(KMeansTemplate):
        reads = 0

        @property
        def n_iter(self):
            type(self).reads += 1
            return 1 if type(self).reads <= 1 else 50

        @n_iter.setter
        def n_iter(self, value):
            pass

    centers = np.random.default_rng(2).normal(size=(2, 2, 3)) / 4
    template = Drifting(X, np.arange(40) % 2, 2, 2, data_norm=1.0, n_iter=1,
                        init_centers=centers)
    Drifting.reads = 0
    released = dp.release(template, "dp_kmeans", dp.Budget(1.0), rng=0,
                          vouch=("data_norm", "template_conditions"))
    assert released.calibration.extra["iterations"] == 1
    assert released.certificate.quantities["iterations"] == 1
    assert Drifting.reads == 1  # the run read the calibration's T, not the template's


def _drifting_class_sums(honest: int):
    """A user's class-sum template whose row bound ``data_norm`` is 1 at its first ``honest``
    reads and 1e-6 after (a sensitivity a millionth of the stated one), and its class."""
    from dpconvex.estimators.centroids import ClassSumTemplate

    class Drifting(ClassSumTemplate):
        reads = 0

        @property
        def data_norm(self):
            type(self).reads += 1
            return 1.0 if type(self).reads <= honest else 1e-6

        @data_norm.setter
        def data_norm(self, value):
            pass

    rows = X[:, :2] / np.maximum(1.0, np.linalg.norm(X[:, :2], axis=1))[:, None]
    template = Drifting(rows, np.arange(40) % 2, 2)
    Drifting.reads = 0
    return template, Drifting


@pytest.mark.parametrize("mechanism, budget", [("gaussian", dp.Budget(1.0, 1e-6)),
                                               ("knorm_sum", dp.Budget(1.0))])
def test_a_record_set_that_answers_otherwise_for_the_calibration_is_refused(mechanism, budget):
    """The checks read B = 1 (the condition "row norm bound of the cell sums" states it), the
    calibration B = 1e-6: refused by name before any noise, not released over a noise a
    millionth of the stated sensitivity's."""
    template, _ = _drifting_class_sums(1)
    with pytest.raises(PrivacyError, match="another record set for the calibration"):
        dp.release(template, mechanism, budget, rng=0, vouch=("data_norm",))


def test_the_class_sums_certificate_states_the_record_set_the_noise_used():
    """B = 1 at the checks' read and the calibration's, 1e-6 after: the certificate's
    "replace-one sensitivity" and its row bound are the record set read once (B = 1), never a
    third read's."""
    template, cls = _drifting_class_sums(2)
    released = dp.release(template, "gaussian", dp.Budget(1.0, 1e-6), rng=0,
                          vouch=("data_norm",))
    (line,) = [c.detail for c in released.certificate.conditions
               if c.name == "replace-one sensitivity"]
    (row_bound,) = [c.detail for c in released.certificate.conditions
                    if c.name == "row norm bound of the cell sums"]
    records = released.calibration.extra["record set"]
    assert records.bound == 1.0
    assert line == records.sensitivity_detail("l2", 1.0)
    assert row_bound == f"declared record_set {records!r}: not verified"
    assert cls.reads == 2  # the checks' record, the calibration


#: What a user vouches for to release a template of its own through objective perturbation.
OBJECTIVE_VOUCH = ("grad_bound", "hessian", "objective", "template_conditions")


def _accurate_solve(released) -> str:
    (detail,) = [c.detail for c in released.certificate.conditions if c.name == "accurate solve"]
    return detail


def test_an_uncovered_distance_read_otherwise_than_the_checks_is_refused():
    """The checks read distance_bound twice (d1 and the bound at 1e-6), the uncovered distance
    of the solve's "accurate solve" a millionth of r d1: refused before any noise, not
    released stating a gap to the exact minimizer a millionth of the checked one."""
    template = drifting_distance(2)(Logistic(), 0.1, 1.0, X, Y)
    with pytest.raises(PrivacyError, match="another distance_bound for the uncovered distance"):
        dp.release(template, "objective", dp.Budget(1.0), rng=0, vouch=OBJECTIVE_VOUCH)


def test_the_uncovered_distance_is_the_one_read_before_the_noise():
    """Honest at its first three calls (the checks' two, the record's), a millionth after: the
    certificate states the distance read before the noise, as the template honest at every
    call does, and the solve's conditions call distance_bound no more."""
    calls = []

    class Counted(drifting_distance(3)):
        def distance_bound(self, residual, mu):
            calls.append(1)
            return super().distance_bound(residual, mu)

    released = dp.release(Counted(Logistic(), 0.1, 1.0, X, Y), "objective", dp.Budget(1.0),
                          rng=0, vouch=OBJECTIVE_VOUCH)
    honest = dp.release(drifting_distance(10**9)(Logistic(), 0.1, 1.0, X, Y), "objective",
                        dp.Budget(1.0), rng=0, vouch=OBJECTIVE_VOUCH)
    assert _accurate_solve(released) == _accurate_solve(honest)
    # unconstrained: r/mu at the template's tolerance and mu = lam = 0.1 (no Delta at n = 40)
    gap = f"uncovered distance to the exact minimizer <= {RESIDUAL_TOL / 0.1:.3g}"
    assert gap in _accurate_solve(released)
    assert len(calls) == 3
