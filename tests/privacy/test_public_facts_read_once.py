"""A release reads each public fact of a template once for its checks and its calibration, and
the run reads the calibration: a user's ``privacy_constants()``, a selection's Δu or a bounded
mean's bound that answers differently at two reads is refused, so the certificate states what
the noise used; a Δu that is not > 0 is refused by name."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import dpconvex as dp
from dpconvex.errors import ParameterError, PrivacyError
from dpconvex.objectives import Logistic
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
                   vouch=("grad_bound", "hessian", "objective"))


def test_the_certificate_states_the_constants_the_checks_read():
    """Where the checks and the calibration read one answer, the certificate's G and noise rate
    are those of the checked constants (the honest template's)."""
    honest = dp.release(LinearERMTemplate(Logistic(), 0.1, 1.0, X, Y), "objective",
                        dp.Budget(1.0), dry_run=True).certificate.quantities
    released = dp.release(drifting_constants(2), "objective", dp.Budget(1.0), rng=0,
                          vouch=("grad_bound", "hessian", "objective")).certificate.quantities
    assert released["per-record gradient bound G"] == honest["per-record gradient bound G"]
    # the same arithmetic on the same floats: equal up to rounding
    assert released["noise rate beta"] == pytest.approx(honest["noise rate beta"], rel=1e-12)


def test_the_gaussian_span_is_capped_by_the_calibrated_dimension():
    """k = min(gradient_difference_rank, p) reads the p of the record the calibration read, not
    a later call's (which states p = 1 here: k = 1 would shrink sigma)."""
    released = dp.release(drifting_constants(2, dimension=1), "gaussian_objective",
                          dp.Budget(1.0, 1e-6), rng=0,
                          vouch=("grad_bound", "hessian", "gradient_span", "objective"))
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
        dp.release(template, "exponential", dp.Budget(1.0), rng=0, vouch=("sensitivity",))


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
