"""A release's (ε, δ) is read once, from a :class:`Budget` itself: a subclass is refused
where it is defined, an object that only claims to be a Budget (its ``__class__``) is refused
by its type, and an exact Budget whose fields were replaced after it was made is read into
built-in floats, so the noise's calibration and the certificate state the same ε. A
certificate, and a composition of certificates, holds no negative or NaN ε and no δ outside
[0, 1): a negative part would lower a composed ε. Every case is fixed; no noise is drawn (dry
runs and certificates only).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import dpconvex as dp
from dpconvex import Budget, Certificate
from dpconvex.errors import ParameterError, PrivacyError
from dpconvex.privacy.bounds import column_budgets, range_certificate, release_range
from dpconvex.privacy.composition import compose_parallel, compose_sequential
from dpconvex.privacy.mechanisms.scalar import BoundedMeanTemplate

# the values of a bounded mean: 100 records in [0, 1]
VALUES = np.full(100, 0.5)


class _Claims:
    """Not a Budget, though ``isinstance(x, Budget)`` says it is: its ``__class__`` claims
    Budget, and its ε is 1e4 for the calibration and 0.1 for everyone else."""

    delta = 0.0

    @property
    def __class__(self):  # noqa: D105
        return Budget

    @property
    def epsilon(self) -> float:
        import traceback
        caller = traceback.extract_stack(limit=2)[0].name
        return 1e4 if caller == "calibrate" else 0.1


class _Lying(float):
    """A float whose products and quotients answer as if it were 1e5 times larger."""

    def __rtruediv__(self, other):
        return float(other) / (1e5 * float(self))

    def __truediv__(self, other):
        return 1e5 * float(self) / float(other)

    def __mul__(self, other):
        return 1e5 * float(self) * float(other)

    __rmul__ = __mul__


def test_a_budget_subclass_is_refused_where_it_is_defined():
    with pytest.raises(ParameterError, match="Budget, which cannot be subclassed"):
        class Mine(Budget):  # noqa: F841
            pass


def test_an_object_claiming_to_be_a_budget_is_refused_by_its_type():
    claims = _Claims()
    assert isinstance(claims, Budget)  # the claim isinstance believes
    with pytest.raises(ParameterError, match="needs a Budget"):
        dp.release(BoundedMeanTemplate(VALUES), "laplace_mean", claims, dry_run=True)
    with pytest.raises(ParameterError, match="budget must be a Budget"):
        release_range(VALUES, claims, rng=0)
    with pytest.raises(ParameterError, match="budget must be a Budget"):
        range_certificate(1000, claims)
    with pytest.raises(ParameterError, match="budget must be a Budget"):
        column_budgets(claims, 2, 0)


def test_a_budget_whose_field_was_replaced_is_read_into_one_float():
    plain = dp.release(BoundedMeanTemplate(VALUES), "laplace_mean", Budget(0.1), dry_run=True)
    forged = Budget(0.1)
    object.__setattr__(forged, "epsilon", _Lying(0.1))
    rel = dp.release(BoundedMeanTemplate(VALUES), "laplace_mean", forged, dry_run=True)
    assert rel.certificate.epsilon == 0.1 and type(rel.certificate.epsilon) is float
    # the same public calibration as the plain budget's: one float division each
    assert math.isclose(rel.certificate.quantities["laplace scale"],
                        plain.certificate.quantities["laplace scale"], rel_tol=1e-12)


@pytest.mark.parametrize(("epsilon", "delta"), [(-0.5, 0.0), (math.nan, 0.0), (1.0, -1e-9),
                                                (1.0, 1.0), (1.0, math.nan)])
def test_a_certificate_holds_no_negative_or_nan_epsilon_and_a_delta_in_0_1(epsilon, delta):
    with pytest.raises(ParameterError, match=r"Certificate.__init__: (epsilon|delta) must"):
        Certificate("forged", epsilon_requested=1.0, epsilon=epsilon, delta=delta)
    with pytest.raises(ParameterError, match=r"Certificate.__init__: epsilon_requested must"):
        Certificate("forged", epsilon_requested=-1.0, epsilon=0.5)
    # what shipped code states: nothing spent (ε = 0), and a non-private fit (ε = inf)
    assert Certificate("nothing spent", 0.0, 0.0).epsilon == 0.0
    assert Certificate("non-private", math.inf, math.inf, private=False).epsilon == math.inf


@pytest.mark.parametrize("compose", [compose_sequential, compose_parallel])
@pytest.mark.parametrize(("field", "value"), [("epsilon", -0.9), ("epsilon", math.nan),
                                              ("delta", -1e-6)])
def test_a_composition_refuses_a_part_that_is_no_guarantee(compose, field, value):
    honest = Certificate("model", epsilon_requested=1.0, epsilon=1.0, delta=1e-6)
    forged = Certificate("forged", epsilon_requested=0.1, epsilon=0.1)
    setattr(forged, field, value)  # a certificate's fields can be set after it is made
    with pytest.raises(PrivacyError, match=f"part 1 .* no \\(epsilon, delta\\) guarantee: "
                                           f"{field} must be"):
        compose([honest, forged], mechanism="model, then forged", epsilon_requested=1.0)
