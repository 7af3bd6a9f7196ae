"""A user's number is read once, as a built-in float: a template's PrivacyConstants, a feature
map's q and weights, a large-margin loss's declared bounds, a selection's Δu. A number of a type
of its own (a subclass of float, an object with a ``__float__`` of its own) is refused by its
type, so the checks and the noise's calibration cannot read two values of it."""
from __future__ import annotations

import dataclasses
from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest

import dpconvex as dp
from dpconvex.data.preprocess import augment_and_scale
from dpconvex.errors import ParameterError
from dpconvex.objectives import Logistic
from dpconvex.privacy.mechanisms import get_mechanism, hessian_trace_bound
from dpconvex.privacy.mechanisms.scalar import SelectionTemplate
from dpconvex.templates import LargeMarginGaussianTemplate, LinearERMTemplate
from dpconvex.templates.base import PrivacyConstants
from dpconvex.templates.feature_map import FeatureMap
from dpconvex.templates.large_margin_softmax import SoftmaxPrivacyConstants, mixture_constants

FIELDS = ("grad_bound", "hessian_term_bound", "strong_convexity", "hessian_trace_bound")


class Shrinking(float):
    """A float whose products are a millionth of its value: what the checks read (its float)
    is not what the calibration's arithmetic computes."""

    def __mul__(self, other):
        return 1e-6 * float.__mul__(self, other)

    __rmul__ = __mul__


class Stateful:
    """A number-like object whose conversion to float gives 1.0 once, then a millionth."""

    def __init__(self):
        self.reads = 0

    def __float__(self):
        self.reads += 1
        return 1.0 if self.reads == 1 else 1e-6


def _rows(n=60, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    return X, np.where(X[:, 0] > 0, 1.0, -1.0)


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("kind", [Shrinking, Stateful])
def test_a_template_constant_of_a_type_of_its_own_is_refused_by_its_type(field, kind):
    X, y = _rows()
    value = kind(0.25) if kind is Shrinking else kind()

    class Mine(LinearERMTemplate):
        def privacy_constants(self):
            return dataclasses.replace(super().privacy_constants(), **{field: value})

    with pytest.raises(ParameterError, match=f"{field}.*of type {kind.__name__}"):
        dp.release(Mine(Logistic(), 0.1, 1.0, X, y), "objective", dp.Budget(1.0), dry_run=True,
                   vouch=("grad_bound", "hessian", "strong_convexity"))
    if kind is Stateful:
        assert value.reads == 0  # refused by its type: never converted


def test_a_template_constant_is_a_built_in_number_wherever_it_is_read():
    consts = PrivacyConstants(np.float32(0.5), np.int64(2), Fraction(1, 4), 1, np.int32(3),
                              hessian_trace_bound=np.float64(0.3), n=np.int64(40))
    assert [type(getattr(consts, f)) for f in FIELDS] == [float] * 4
    assert [type(v) for v in (consts.hessian_rank, consts.dimension, consts.n)] == [int] * 3
    assert type(hessian_trace_bound(consts)) is float
    with pytest.raises(ParameterError, match="hessian_rank.*must be a whole number. Got 1.5"):
        PrivacyConstants(1.0, 1.5, 0.25, 0.1, 3)
    with pytest.raises(ParameterError, match="dimension.*of type bool"):
        PrivacyConstants(1.0, 1, 0.25, 0.1, True)


class Doubling(int):
    """An int whose products are twice what its value gives (r·n in the slack)."""

    def __mul__(self, other):
        return 2 * int.__mul__(self, other)

    __rmul__ = __mul__


@pytest.mark.parametrize("field", ["hessian_rank", "softmax_classes", "gradient_span_dimension"])
def test_a_count_of_a_type_of_its_own_is_refused_by_its_type(field):
    consts = SoftmaxPrivacyConstants(strong_convexity=0.5, dimension=48, **mixture_constants(3))
    assert type(getattr(consts, field)) is int
    with pytest.raises(ParameterError, match=f"{field}.*of type Doubling"):
        dataclasses.replace(consts, **{field: Doubling(getattr(consts, field))})


def test_a_template_constants_record_of_another_class_is_refused_by_its_type():
    X, y = _rows()
    fields = dict(grad_bound=1.0, hessian_rank=1, hessian_term_bound=0.25, strong_convexity=0.1,
                  dimension=3, hessian_trace_bound=None, n=None, gradient_difference_rank=None)

    class Mine(LinearERMTemplate):
        def privacy_constants(self):
            return SimpleNamespace(**fields)

    with pytest.raises(ParameterError, match="returned a SimpleNamespace, not a PrivacyConst"):
        dp.release(Mine(Logistic(), 0.1, 1.0, X, y), "objective", dp.Budget(1.0), dry_run=True,
                   vouch=("grad_bound", "hessian", "strong_convexity"))
    problem = SimpleNamespace(n=40, name="mine",
                              privacy_constants=lambda: SimpleNamespace(**fields))
    with pytest.raises(ParameterError, match="returned a SimpleNamespace, not a PrivacyConst"):
        get_mechanism("objective").calibrate(problem, dp.Budget(1.0))


@pytest.mark.parametrize("field, value", [("data_norm", Shrinking(1.0)),
                                          ("data_norm", Stateful()),
                                          ("weights", (0.0, Shrinking(1.0), 0.1))])
def test_a_feature_map_number_of_a_type_of_its_own_is_refused_by_its_type(field, value):
    args = {"structure": "linear", "weights": (0.0, 1.0, 0.1), "data_norm": 1.0, "d": 3}
    with pytest.raises(ParameterError, match=f"'{field}' parameter of FeatureMap.*of type"):
        FeatureMap(**{**args, field: value})


def test_a_feature_map_reads_its_numbers_once_as_built_in_floats():
    fmap = FeatureMap("linear", (0, np.float32(1.0), Fraction(1, 10)), np.float64(1.0),
                      np.int64(3))
    assert [type(w) for w in fmap.weights] == [float] * 3
    assert type(fmap.data_norm) is float and type(fmap.d) is int
    Z = augment_and_scale(np.eye(3) / 2, data_norm=1.0)
    honest = FeatureMap("linear", (0.0, 1.0, 0.1), 1.0, 3)
    np.testing.assert_allclose(fmap.features(Z), honest.features(Z), rtol=1e-7)  # float32 1.0


@pytest.mark.parametrize("attr", ["deriv_bound", "curvature"])
@pytest.mark.parametrize("kind", [Shrinking, Stateful])
def test_a_large_margin_loss_bound_of_a_type_of_its_own_is_refused_by_its_type(attr, kind):
    X, _ = _rows(30)
    loss = Logistic()
    template = LargeMarginGaussianTemplate(augment_and_scale(X, 1.0), np.arange(30) % 3,
                                           n_classes=3, lam=0.1, loss=loss)
    value = kind(getattr(loss, attr)) if kind is Shrinking else kind()
    setattr(template.loss, attr, value)
    with pytest.raises(ParameterError, match=f"declares {attr} as a value of type {kind.__name__}"):
        template.privacy_constants()
    with pytest.raises(ParameterError, match=f"{attr} as a value of type {kind.__name__}"):
        template.distance_bound(1e-6, 0.2)


@pytest.mark.parametrize("kind", [Shrinking, Stateful])
def test_a_selection_sensitivity_of_a_type_of_its_own_is_refused_by_its_type(kind):
    value = kind(1.0) if kind is Shrinking else kind()
    with pytest.raises(ParameterError, match=f"'sensitivity'.*of type {kind.__name__}"):
        SelectionTemplate([0.2, 0.9, 0.4], sensitivity=value, n=100)
    template = SelectionTemplate([0.2, 0.9, 0.4], sensitivity=1.0, n=100)
    with pytest.raises(ParameterError, match=f"'sensitivity'.*of type {kind.__name__}"):
        template.sensitivity = value  # set after the template was made: read where it is set
    # a user's template of its own: Δu read where the mechanism calibrates
    mine = SimpleNamespace(sensitivity=value, n=100)
    with pytest.raises(ParameterError, match=f"'sensitivity'.*of type {kind.__name__}"):
        get_mechanism("exponential").calibrate(mine, dp.Budget(1.0))


def test_a_selection_calibrates_certifies_and_draws_on_one_sensitivity(monkeypatch):
    from dpconvex.privacy.mechanisms import scalar

    class Drifting(SelectionTemplate):
        """Δu that is 2 where its description, condition, checks and calibration read it, and a
        millionth of it at any later read."""

        reads = 0

        @property
        def sensitivity(self):
            Drifting.reads += 1
            return 2.0 if Drifting.reads <= 4 else 2e-6

        @sensitivity.setter
        def sensitivity(self, value):
            pass

    drawn = []
    draw = scalar.exponential_mechanism
    monkeypatch.setattr(scalar, "exponential_mechanism",
                        lambda *a, **k: drawn.append(k["sensitivity"]) or draw(*a, **k))
    template = Drifting([0.2, 0.9, 0.4], sensitivity=2.0, n=100)
    released = dp.release(template, "exponential", dp.Budget(1.0), rng=0,
                          vouch=("sensitivity", "template_conditions"))
    cal, cert = released.calibration, released.certificate
    assert cal.sensitivity == 2.0  # the value its condition and checks read
    assert type(cal.sensitivity) is float and cal.noise_rate == 1.0 / (2.0 * cal.sensitivity)
    assert cert.quantities["utility sensitivity"] == cal.sensitivity
    assert drawn == [cal.sensitivity]  # the draw reads the calibration's Δu, not a later one
