"""A release reads each public fact of a template once for its checks and its calibration, and
the run reads the calibration: a user's ``privacy_constants()``, a selection's Δu or a bounded
mean's bound that answers differently at two reads is refused, so the certificate states what
the noise used; a Δu that is not > 0 is refused by name."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from _doubles import CheckedN, checking

import dpconvex as dp
from dpconvex.errors import ParameterError, PrivacyError
from dpconvex.objectives import Logistic
from dpconvex.privacy.mechanisms import get_mechanism
from dpconvex.privacy.mechanisms.base import SOLVE_TOLERANCE_KEY, output_release_tolerance
from dpconvex.privacy.mechanisms.scalar import BoundedMeanTemplate, SelectionTemplate
from dpconvex.templates import LinearERMTemplate

RNG = np.random.default_rng(0)
X = RNG.normal(size=(40, 3))
X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
Y = np.where(X[:, 0] > 0, 1.0, -1.0)


def drifting_constants(honest_reads: int, **drift: float) -> LinearERMTemplate:
    """A user's linear ERM template whose ``privacy_constants()`` states its true constants for
    its first ``honest_reads`` calls and, after, ``drift`` (default: a millionth of G)."""
    calls = []

    class Drifting(LinearERMTemplate):
        def privacy_constants(self):
            consts = super().privacy_constants()
            calls.append(1)
            return consts if len(calls) <= honest_reads else dataclasses.replace(
                consts, **(drift or {"grad_bound": 1e-6 * consts.grad_bound}))

    return Drifting(Logistic(), 0.1, 1.0, X, Y)


def test_constants_that_answer_otherwise_for_the_calibration_are_refused():
    """The checks read the first answer, the calibration the second: refused before any noise
    (a G a millionth of the checked one would have set the noise)."""
    with pytest.raises(PrivacyError, match="other constants from privacy_constants"):
        dp.release(drifting_constants(1), "objective", dp.Budget(1.0), rng=0,
                   vouch=("grad_bound", "hessian", "objective", "template_conditions"))


def test_the_certificate_states_the_constants_the_checks_read():
    """Where the checks and the calibration read one answer, the certificate's G and noise rate
    are those of the checked constants (the honest template's)."""
    honest = dp.release(LinearERMTemplate(Logistic(), 0.1, 1.0, X, Y), "objective",
                        dp.Budget(1.0), dry_run=True).certificate.quantities
    released = dp.release(drifting_constants(2), "objective", dp.Budget(1.0), rng=0,
                          vouch=("grad_bound", "hessian", "objective", "template_conditions")
                          ).certificate.quantities
    assert released["per-record gradient bound G"] == honest["per-record gradient bound G"]
    # the same arithmetic on the same floats: equal up to rounding
    assert released["noise rate beta"] == pytest.approx(honest["noise rate beta"], rel=1e-12)


def test_the_gaussian_span_is_capped_by_the_calibrated_dimension():
    """k = min(gradient_difference_rank, p) reads the p of the record the calibration read, not
    a later call's (which states p = 1 here: k = 1 would shrink sigma)."""
    released = dp.release(drifting_constants(2, dimension=1), "gaussian_objective",
                          dp.Budget(1.0, 1e-6), rng=0,
                          vouch=("grad_bound", "hessian", "gradient_span", "objective",
                                 "template_conditions"))
    assert released.calibration.extra["k"] == 2


class DriftingSelection(SelectionTemplate):
    """Δu that is 2 at its first ``honest`` reads and 2e-6 after."""

    honest = 0
    reads = 0

    @property
    def sensitivity(self):
        type(self).reads += 1
        return 2.0 if type(self).reads <= self.honest else 2e-6

    @sensitivity.setter
    def sensitivity(self, value):
        pass


@pytest.mark.parametrize("honest", [1, 2])
def test_a_sensitivity_that_answers_otherwise_for_the_calibration_is_refused(honest):
    """The condition reads Δu = 2 (and, at 1, the checks 2e-6); the calibration reads 2e-6:
    refused, not released stating "declared 2" over a rate calibrated for 2e-6."""
    cls = type("Drifting", (DriftingSelection,), {"honest": honest, "reads": 0})
    template = cls([0.1, 0.5, 3.0], sensitivity=2.0, n=40)
    cls.reads = 0
    with pytest.raises(PrivacyError, match="another sensitivity"):
        dp.release(template, "exponential", dp.Budget(1.0), rng=0,
                   vouch=("sensitivity", "template_conditions"))


class Mine(SelectionTemplate):
    """A user's selection template: SelectionTemplate's conditions, its own class."""


def test_a_users_selection_with_a_derived_sensitivity_is_released():
    """The public problem alone at Δu = 1 states Δu as derived; from a user's class the release
    states that condition as the template's statement, and compares the calibration's with it
    stated the same way: released (a dry run), not refused as "another sensitivity"."""
    released = dp.release(Mine.of_problem(3, 1.0, n=10), "exponential", dp.Budget(1.0),
                          dry_run=True, vouch=("sensitivity", "template_conditions"))
    (stated, *_) = [c for c in released.certificate.conditions
                    if c.name == "utility sensitivity"]
    assert stated.unverified == "template_conditions" and stated.vouched
    assert released.calibration.sensitivity == 1.0


class Answers(SelectionTemplate):
    """Δu that answers, at its successive reads, the numbers of ``answers`` (the last one at
    every read after)."""

    answers: tuple[float, ...] = ()
    reads = 0

    @property
    def sensitivity(self):
        type(self).reads += 1
        return self.answers[min(type(self).reads, len(self.answers)) - 1]

    @sensitivity.setter
    def sensitivity(self, value):
        pass


def test_a_users_derived_sensitivity_that_answers_otherwise_later_is_refused():
    """Δu = 1 (derived) to the template's condition, 0.5 (the caller's declaration) to every
    later read, the calibration's among them: refused, not released stating a derived Δu over
    a rate calibrated for 0.5."""
    cls = type("Drifting", (Answers,), {"answers": (1.0, 0.5), "reads": 0})
    template = cls.of_problem(3, 1.0, n=10)
    cls.reads = 0
    with pytest.raises(PrivacyError, match="another sensitivity"):
        dp.release(template, "exponential", dp.Budget(1.0), dry_run=True,
                   vouch=("sensitivity", "template_conditions"))


def test_a_sensitivity_declared_otherwise_than_calibrated_is_refused():
    """Δu = 1 to the template's condition and the calibration, 5 to the checks of the user's
    declarations (the condition the caller vouches for): refused, not released vouched for
    Δu = 5 over a rate calibrated for 1."""
    cls = type("Drifting", (Answers,), {"answers": (1.0, 5.0, 1.0), "reads": 0})
    template = cls.of_problem(3, 1.0, n=10)
    cls.reads = 0
    with pytest.raises(PrivacyError, match="another sensitivity for the calibration"):
        dp.release(template, "exponential", dp.Budget(1.0), dry_run=True,
                   vouch=("sensitivity", "template_conditions"))


@pytest.mark.parametrize("sensitivity", [0.0, -1.0, 0])
def test_a_sensitivity_not_above_zero_is_refused_by_name(sensitivity):
    with pytest.raises(ParameterError, match=r"'sensitivity' parameter .* must be a number > 0"):
        SelectionTemplate([0.1, 0.5], sensitivity=sensitivity, n=10)
    with pytest.raises(ParameterError, match=r"must be a number > 0"):
        SelectionTemplate.of_problem(2, sensitivity, n=10)


class DriftingBound(BoundedMeanTemplate):
    """A bound b that is 1 at its first ``honest`` reads (the clip of the values among them)
    and 1e-6 after."""

    honest = 0
    reads = 0

    @property
    def bound(self):
        type(self).reads += 1
        return 1.0 if type(self).reads <= self.honest else 1e-6


def test_a_mean_bound_that_answers_otherwise_for_the_calibration_is_refused():
    """The clip and the condition read b = 1, the calibration 1e-6 (a sensitivity a millionth
    of the clip's): refused before any noise."""
    cls = type("Drifting", (DriftingBound,), {"honest": 2, "reads": 0})
    with pytest.raises(PrivacyError, match="another bound or n"):
        dp.release(cls(np.full(100, 0.5)), "laplace_mean", dp.Budget(1.0), rng=0,
                   vouch=("sensitivity",))


def test_the_mean_is_clipped_to_the_calibrated_bound():
    """b read at the clip, the condition and the calibration is 1: the released mean is clipped
    to the calibration's [-1, 1], not to a later read's 1e-6. The mean 0.5 plus Laplace noise of
    scale 2/(100 * 1) = 0.02 falls below 0.1 with probability e^-20 / 2 (seed fixed)."""
    cls = type("Drifting", (DriftingBound,), {"honest": 3, "reads": 0})
    released = dp.release(cls(np.full(100, 0.5)), "laplace_mean", dp.Budget(1.0), rng=0,
                          vouch=("sensitivity",))
    assert released.theta[0] > 0.1
    assert released.calibration.sensitivity == 2.0 / 100


class CheckedRank(LinearERMTemplate):
    """gradient_difference_rank 3 to the checks, 1 elsewhere (a smaller sigma)."""

    name = "checked rank"

    @property
    def gradient_difference_rank(self):
        return 3 if checking() else 1


def test_an_n_that_answers_otherwise_for_the_calibration_is_refused():
    """The checks read n = 40 (the records held), the calibration 40000: refused before any
    noise, not released stating "n = 40 records, checked" over a slack for 40000."""
    with pytest.raises(PrivacyError, match="another n for the calibration"):
        dp.release(CheckedN(Logistic(), 0.1, 1.0, X, Y), "objective", dp.Budget(1.0), rng=0,
                   vouch=("grad_bound", "hessian", "objective", "template_conditions"))


def test_a_rank_that_answers_otherwise_for_the_calibration_is_refused():
    """The checks read k = 3 (vouched), the calibration k = 1: refused before any noise."""
    with pytest.raises(PrivacyError, match="another gradient_difference_rank"):
        dp.release(CheckedRank(Logistic(), 0.1, 1.0, X, Y), "gaussian_objective",
                   dp.Budget(1.0, 1e-6), rng=0,
                   vouch=("grad_bound", "hessian", "gradient_span", "objective",
                          "template_conditions"))


class CheckedDistance(LinearERMTemplate):
    """distance_bound the unconstrained r/mu to the checks, a millionth of it elsewhere (which
    would loosen an output placement's solve tolerance to residual_tol)."""

    name = "checked distance"

    def distance_bound(self, residual, mu):
        honest = super().distance_bound(residual, mu)
        return honest if checking() else 1e-6 * honest


def test_the_output_solve_tolerance_rests_on_the_checked_distance_bound():
    """At n = 2000 the tolerance kappa*G/n = 5e-7 is below residual_tol = 1e-6; the release
    computes it once, from the distance per residual the checks read, and the run and the
    certificate state it (a later read's bound would give residual_tol)."""
    rows = np.tile(X, (50, 1))
    labels = np.tile(Y, 50)
    shipped = LinearERMTemplate(Logistic(), 0.1, 1.0, rows, labels)
    cal = get_mechanism("output").calibrate(shipped, dp.Budget(1.0))
    honest_tol = output_release_tolerance(shipped, cal)[0]
    assert honest_tol < shipped.residual_tol
    released = dp.release(CheckedDistance(Logistic(), 0.1, 1.0, rows, labels), "output",
                          dp.Budget(1.0), rng=0,
                          vouch=("grad_bound", "objective", "template_conditions"))
    tol = released.calibration.extra[SOLVE_TOLERANCE_KEY][0]
    # the same arithmetic on the same floats: equal up to rounding
    assert tol == pytest.approx(honest_tol, rel=1e-12)
    accurate = [c for c in released.certificate.conditions if c.name == "accurate solve"]
    assert f"{honest_tol:.3g}" in accurate[0].detail
