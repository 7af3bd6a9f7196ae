"""A template's PrivacyConstants reads a Decimal constant as the estimators read ε, δ and λ:
once, as its nearest built-in float; a subclass of Decimal or float, and a number beyond
float64's range, are refused by name."""
from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest

from dpconvex.errors import ParameterError
from dpconvex.templates.base import PrivacyConstants

REALS = ("grad_bound", "hessian_term_bound", "strong_convexity", "hessian_trace_bound")
BASE = dict(grad_bound=1.0, hessian_rank=1, hessian_term_bound=0.25, strong_convexity=0.1,
            dimension=3)


class MyDecimal(Decimal):
    """A Decimal whose conversions would be its author's."""


class MyFloat(float):
    """A float whose conversions would be its author's."""


@pytest.mark.parametrize("field", REALS)
def test_a_decimal_constant_is_read_once_as_its_nearest_float(field):
    consts = PrivacyConstants(**{**BASE, field: Decimal("0.1")})
    value = getattr(consts, field)
    assert type(value) is float and value == float(Decimal("0.1"))  # a conversion, no arithmetic


@pytest.mark.parametrize("kind", [MyDecimal, MyFloat])
def test_a_subclass_of_decimal_or_float_is_refused_by_its_type(kind):
    with pytest.raises(ParameterError, match=rf"'grad_bound' .*of an exact type .*Decimal.*"
                                             rf"type {kind.__name__} instead"):
        PrivacyConstants(**{**BASE, "grad_bound": kind("0.5")})


@pytest.mark.parametrize("value", [Decimal("1e400"), 10**400, Fraction(10**400, 3)],
                         ids=["Decimal", "int", "Fraction"])
def test_a_constant_beyond_float64_is_refused_as_such(value):
    with pytest.raises(ParameterError, match=rf"'grad_bound' .*fits in a float64 .*the "
                                             rf"{type(value).__name__} given does not"):
        PrivacyConstants(**{**BASE, "grad_bound": value})


def test_a_decimal_count_is_refused_as_the_estimators_refuse_it():
    with pytest.raises(ParameterError, match=r"'dimension' .*whole number of an exact type "
                                             r"\(int, float, Fraction, a NumPy scalar\)"):
        PrivacyConstants(**{**BASE, "dimension": Decimal(3)})
