"""Every estimator's parameters are checked by constraint objects (the table is the check and its doc)."""

from __future__ import annotations

import inspect
import math
import re
from decimal import Decimal

import numpy as np
import pytest

import dpconvex
from dpconvex import ParameterError
from dpconvex._validation import (
    LAM,
    Auto,
    Bool,
    Constraint,
    Float,
    Int,
    NoValidation,
    Optional,
    Options,
    Seed,
)
from dpconvex.estimators.base import ParameterSet, PrivateEstimator

ESTIMATORS = [obj for name in dpconvex.__all__
              if isinstance(obj := getattr(dpconvex, name), type)
              and issubclass(obj, PrivateEstimator)]


def test_every_public_private_estimator_is_covered():
    names = {cls.__name__ for cls in ESTIMATORS}
    assert {"PrivateLogisticRegression", "PrivateLargeMarginGaussian", "PrivateClassifier",
            "NoisyGradientDescent", "PrivateGaussianCentroid"} <= names


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_every_init_parameter_has_a_constraint_object(cls):
    table = cls._parameter_constraints
    params = [n for n in inspect.signature(cls.__init__).parameters if n != "self"]
    assert sorted(set(params) - set(table)) == []
    assert sorted(set(table) - set(params)) == []
    for name, rule in table.items():
        assert isinstance(rule, Constraint), f"{cls.__name__}.{name}: {rule!r}"
        assert str(rule), f"{cls.__name__}.{name} has no description"


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_defaults_satisfy_the_table(cls):
    est = cls(epsilon=1.0)
    owner = cls.__name__
    for name, rule in cls._parameter_constraints.items():
        rule.check(name, getattr(est, name), owner)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_no_validation_states_its_reason(cls):
    for rule in cls._parameter_constraints.values():
        if isinstance(rule, NoValidation):
            assert len(rule.reason) > 10


def test_float_message_in_scikit_learn_form():
    with pytest.raises(ParameterError) as err:
        Float().check("epsilon", -1, "Model")
    assert str(err.value) == ("The 'epsilon' parameter of Model must be a float in (0, inf). "
                              "Got -1 instead.")


@pytest.mark.parametrize("rule,value,ok", [
    (Float(), 0.0, False),
    (Float(low_inclusive=True), 0.0, True),
    (Float(high=1.0), 1.0, False),
    (Float(high=1.0, high_inclusive=True), 1.0, True),
    (Float(), math.inf, False),
    (Float(allow_inf=True), math.inf, True),
    (Float(), True, False),
    (Int(low=0, high=2), 0, True),
    (Int(low=0, high=2), 2, True),
    (Int(low=0, high=2), 3, False),
    (Int(), 1.0, False),
])
def test_bounds_inclusive_and_exclusive(rule, value, ok):
    if ok:
        assert rule.check("p", value, "Model") == value
    else:
        with pytest.raises(ParameterError, match=r"The 'p' parameter of Model must be"):
            rule.check("p", value, "Model")


@pytest.mark.parametrize("text", ["0.5", "1e-5", "0.1", "3"])
def test_a_decimal_is_taken_as_the_nearest_float_as_a_fraction_is(text):
    """A Decimal is a real number: the float of its text, in range or refused as that float."""
    rule = Float(high=1.0, high_inclusive=True)
    value = Decimal(text)
    if float(text) <= 1.0:
        assert rule.check("delta", value, "Model") == float(text)
    else:
        with pytest.raises(ParameterError, match=rf"Got Decimal\('{re.escape(text)}'\) instead"):
            rule.check("delta", value, "Model")


@pytest.mark.parametrize("text", ["NaN", "sNaN", "-NaN", "Infinity", "-Infinity"])
def test_a_decimal_nan_or_infinity_is_refused_as_the_float_is(text):
    for rule in (Float(), Float(allow_inf=True)):
        if text == "Infinity" and rule.allow_inf:
            assert rule.check("epsilon", Decimal(text), "Model") == math.inf
            continue
        with pytest.raises(ParameterError, match=r"^The 'epsilon' parameter of Model must be a "
                           rf"float in \(0, inf\)\. Got Decimal\('{re.escape(text)}'\) instead"):
            rule.check("epsilon", Decimal(text), "Model")
    for text in ("1e400", "-1e400"):  # float() would round it to inf
        with pytest.raises(ParameterError, match=r"does not fit in a float64"):
            Float(allow_inf=True).check("epsilon", Decimal(text), "Model")


def test_a_fit_at_a_decimal_epsilon_is_the_fit_at_its_float():
    """The same seed and the float of the Decimal: the same release (the tolerance covers
    only the solver's floating-point order, the inputs being equal)."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, (60, 3))
    y = (X[:, 0] > 0).astype(int)
    fits = [dpconvex.PrivateLogisticRegression(epsilon=eps, delta=delta, classes=[0, 1],
                                               random_state=0).fit(X, y)
            for eps, delta in ((Decimal("0.5"), Decimal("1e-4")), (0.5, 1e-4))]
    assert fits[0].certificate_.epsilon == fits[1].certificate_.epsilon == 0.5
    np.testing.assert_allclose(fits[0].coef_, fits[1].coef_, rtol=1e-12, atol=0.0)


def test_description_matches_the_message():
    rule = Float(low_inclusive=True, high=1.0)
    assert str(rule) == "a float in [0, 1)"
    with pytest.raises(ParameterError, match=r"must be a float in \[0, 1\)\. Got 1 instead"):
        rule.check("delta", 1, "Model")
    assert str(Optional(rule)) == "None or a float in [0, 1)"
    assert str(Int(low=0, high=2)) == "an int in [0, 2]"


def test_optional_takes_none_and_checks_the_rest():
    rule = Optional(Float(high=1.0))
    assert rule.check("delta", None, "Model") is None
    assert rule.check("delta", np.float64(0.5), "Model") == 0.5
    with pytest.raises(ParameterError, match=r"'delta'.*\(0, 1\)\. Got 0 instead"):
        rule.check("delta", 0, "Model")


def test_auto_takes_the_word_and_names_both_choices():
    assert LAM.check("lam", "auto", "Model") == "auto"
    assert LAM.check("lam", 0.1, "Model") == 0.1
    with pytest.raises(ParameterError, match=r"must be 'auto' or a float in \(0, inf\)\. "
                                             r"Got 'Auto' instead"):
        LAM.check("lam", "Auto", "Model")
    with pytest.raises(ParameterError, match=r"Got 0 instead\. Accepted values: 'auto' or a "
                                             r"float in \(0, inf\)"):
        LAM.check("lam", 0, "Model")
    assert Auto(Bool()).check("safeguard", np.bool_(False), "Model") is False


def test_options_refuse_without_comparing_arrays():
    rule = Options(("raise", "ignore"), meaning="what each does")
    assert rule.check("unknown_labels", "ignore", "Model") == "ignore"
    with pytest.raises(ParameterError, match=r"one of \['raise', 'ignore'\]: what each does\. "
                                             r"Got an array of shape \(2,\)"):
        rule.check("unknown_labels", np.array(["raise", "ignore"]), "Model")


def test_seed_refuses_a_generator():
    assert Seed().check("random_state", 3, "Model") == 3
    with pytest.raises(ParameterError, match="replay"):
        Seed().check("random_state", np.random.default_rng(0), "Model")


@pytest.mark.parametrize("rule", [
    Float(), Int(), Options(("a", "b")), Bool(), Seed(), NoValidation("checked in the plan"),
    Optional(Float()), Auto(Float()), ParameterSet(),
], ids=lambda rule: type(rule).__name__)
def test_constraints_are_frozen(rule):
    with pytest.raises(AttributeError):
        rule.low = 1.0  # type: ignore[misc]


def test_parameter_set_takes_none_or_a_callable():
    rule = ParameterSet()
    assert rule.check("constraints", None, "Model") is None
    assert rule.check("constraints", len, "Model") is len
    with pytest.raises(ParameterError, match=r"^The 'constraints' parameter of Model must be None "
                                             r"or a callable .*Got \[1\] instead\.$"):
        rule.check("constraints", [1], "Model")



@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_defaults_satisfy_every_rule(cls):
    est = cls(epsilon=1.0)
    assert all(rule.is_satisfied_by(getattr(est, name))
               for name, rule in cls._parameter_constraints.items())


def test_is_satisfied_by_agrees_with_check():
    assert Float().is_satisfied_by(2.0) and not Float().is_satisfied_by(True)
    assert not Float().is_satisfied_by(-1) and Float(allow_inf=True).is_satisfied_by(math.inf)
    assert LAM.is_satisfied_by("auto") and not LAM.is_satisfied_by("Auto")
    assert Int(low=0, high=2).is_satisfied_by(2) and not Int(low=0, high=2).is_satisfied_by(3)


@pytest.mark.parametrize("cls", [dpconvex.PrivateLinearClassifier, dpconvex.NoisyGradientDescent])
def test_a_margin_learner_refuses_a_regression_loss_by_name(cls):
    import cvxpy as cp

    huber = dpconvex.Loss.from_cvxpy(lambda z, y: cp.huber(z - y, 0.5), kind="regression",
                                     label_range=(-1.0, 1.0))
    X = np.random.default_rng(0).normal(size=(50, 3))
    with pytest.raises(ParameterError, match=r"^The 'loss' parameter of .* must be a margin loss.*"
                                             r"PrivateLinearRegressor.*kind 'regression' instead"):
        cls(loss=huber, classes=[0, 1], epsilon=1.0, delta=1e-5).fit(X, (X[:, 0] > 0).astype(int))


@pytest.mark.parametrize("loss", ["huber", "smooth_hinge"])
@pytest.mark.parametrize("h", [1e-7, 1e7])
def test_a_hinge_width_outside_the_losss_limits_is_refused_as_the_estimators_parameter(loss, h):
    """The range the table states for h is the one the loss accepts: the refusal names h of the
    estimator called, never the loss's own parameter."""
    X = np.random.default_rng(0).normal(size=(50, 3))
    assert str(dpconvex.PrivateHuberSVM._parameter_constraints["h"]) == "a float in [1e-06, 1e+06]"
    with pytest.raises(ParameterError, match=r"^The 'h' parameter of PrivateHuberSVM must be a float in "
                                             r"\[1e-06, 1e\+06\]"):
        dpconvex.PrivateHuberSVM(h=h, loss=loss, classes=[0, 1]).fit(X, (X[:, 0] > 0).astype(int))


SEARCHES = [dpconvex.PrivateGridSearch(dpconvex.PrivateLogisticRegression(), {"lam": [0.1]},
                                       epsilon=1.0),
            dpconvex.PrivateRandomSearch(dpconvex.PrivateLogisticRegression(), {"lam": [0.1]},
                                         epsilon=1.0)]


@pytest.mark.parametrize("est", [cls() for cls in ESTIMATORS] + SEARCHES,
                         ids=lambda e: type(e).__name__)
def test_set_params_refuses_a_name_that_is_no_parameter_listing_them(est):
    """A ParameterError (a ValueError, as scikit-learn's contract asks) naming the name and
    listing the parameters; scikit-learn's usual knobs say why dpconvex has none. Nothing is
    set when one name is refused."""
    valid = type(est)._get_param_names()
    reasons = {"n_jobs": "runs? in the calling process",
               "warm_start": "start point for the solver only.*epsilon_sweep",
               "sample_weight": "sensitivity", "verbose": ""}
    for name, why in reasons.items():
        if name in valid:
            continue
        with pytest.raises(ParameterError, match=rf"^{type(est).__name__}.set_params: got "
                           rf"'{name}', which is not a parameter of .*{why}.* Set its "
                           rf"parameters only: \[{re.escape(repr(valid[0]))}") as err:
            est.set_params(**{valid[0]: "unset", name: 1})
        assert isinstance(err.value, ValueError) and getattr(est, valid[0]) != "unset"
    with pytest.raises(ParameterError, match=rf"got '{valid[0]}__x', but its '{valid[0]}' is"):
        type(est)(**est.get_params(deep=False)).set_params(**{f"{valid[0]}__x": 1})


def test_set_params_sets_nested_names_and_refuses_an_unknown_one_by_its_step():
    """``step__param`` names reach the step; an unknown one is refused by the step's own
    set_params in a Pipeline, and by the search's before it sets anything."""
    from sklearn.pipeline import make_pipeline

    pipe = make_pipeline(dpconvex.PrivateLogisticRegression())
    assert pipe.set_params(privatelogisticregression__lam=0.5).steps[0][1].lam == 0.5
    with pytest.raises(ParameterError, match=r"^PrivateLogisticRegression.set_params: got "
                       r"'n_jobs'.*calling process"):
        pipe.set_params(privatelogisticregression__n_jobs=2)
    search = dpconvex.PrivateGridSearch(dpconvex.PrivateLogisticRegression(), {"lam": [0.1]},
                                        epsilon=1.0)
    assert search.set_params(estimator__data_norm=2.0).estimator.data_norm == 2.0
    with pytest.raises(ParameterError, match=r"^PrivateGridSearch.set_params: got "
                       r"'estimator__n_jobs', which is not a parameter of the "
                       r"PrivateLogisticRegression it holds as 'estimator'.*calling process.* "
                       r"Set the parameters of its 'estimator' only: \['accountant'"):
        search.set_params(estimator__n_jobs=2)


@pytest.mark.parametrize("make", [
    lambda: dpconvex.PrivateGridSearch(dpconvex.PrivateLogisticRegression(), {"lam": [0.1]},
                                       epsilon=1.0),
    lambda: dpconvex.PrivateRandomSearch(dpconvex.PrivateLogisticRegression(), {"lam": [0.1]},
                                         epsilon=1.0),
], ids=["PrivateGridSearch", "PrivateRandomSearch"])
def test_a_refused_set_params_of_a_search_sets_nothing_for_nested_names_too(make):
    """Every name of the call, nested ones at any depth included, is checked before any is
    set: a refused nested name leaves the search's own names and its estimator as they were;
    an estimator the same call sets is the one its nested names are checked against."""
    from sklearn.pipeline import make_pipeline

    search = make()
    inner = search.estimator
    calls = [{"epsilon": 5.0, "estimator__lam": 0.5, "estimator__no_such": 1},
             {"epsilon": 5.0, "estimator": dpconvex.PrivateHuberSVM(), "estimator__h": 0.3,
              "estimator__no_such": 1},
             {"epsilon": 5.0, "estimator": make_pipeline(dpconvex.PrivateLogisticRegression()),
              "estimator__privatelogisticregression__no_such": 1},
             {"epsilon": 5.0, "param_grid__lam": [0.2]}]
    for params in calls:
        with pytest.raises(ParameterError, match=r"^Private\w+Search.set_params: got "
                           r"'(estimator__\w*no_such|param_grid__lam)'"):
            search.set_params(**params)
        assert search.epsilon == 1.0 and search.estimator is inner and inner.lam != 0.5
    # what scikit-learn allows: an estimator replaced, then its own parameters set
    huber = dpconvex.PrivateHuberSVM()
    assert search.set_params(estimator=huber, estimator__h=0.3).estimator is huber
    assert huber.h == 0.3
    pipe = make_pipeline(dpconvex.PrivateLogisticRegression())
    search.set_params(estimator=pipe, estimator__privatelogisticregression__lam=0.5)
    assert search.estimator is pipe and pipe.steps[0][1].lam == 0.5
    # a Pipeline's steps replaced and a new step's parameter set in the same call
    from sklearn.preprocessing import MinMaxScaler
    steps = [("b", MinMaxScaler()), ("clf", dpconvex.PrivateLogisticRegression())]
    search.set_params(estimator__steps=steps, estimator__b__clip=True)
    assert pipe.steps[0][1].clip is True
    with pytest.raises(ParameterError, match="'estimator__c'"):
        search.set_params(estimator__steps=steps, estimator__c__clip=True)
    # a ColumnTransformer's transformers are not set before its step names are read (by
    # scikit-learn): a new transformer's name is refused, and nothing set
    from sklearn.compose import ColumnTransformer
    ct = ColumnTransformer([("num", MinMaxScaler(), [0, 1])])
    search.set_params(estimator=make_pipeline(ct, dpconvex.PrivateLogisticRegression()))
    with pytest.raises(ParameterError, match="mm"):
        search.set_params(estimator__columntransformer__transformers=[("mm", MinMaxScaler(), [0])],
                          estimator__columntransformer__mm__clip=True)
    assert [name for name, *_ in ct.transformers] == ["num"]
    assert search.set_params() is search


def test_a_refused_set_params_of_an_estimator_sets_nothing_for_a_nested_name():
    """A nested name whose first part holds no estimator is refused before the call's other
    names are set."""
    est = dpconvex.PrivateLogisticRegression(epsilon=1.0)
    with pytest.raises(ParameterError, match=r"^PrivateLogisticRegression.set_params: got "
                       r"'data_norm__x', but its 'data_norm' is not an estimator"):
        est.set_params(epsilon=5.0, data_norm__x=1)
    assert est.epsilon == 1.0
