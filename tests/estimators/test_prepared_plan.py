"""A preparation is bound to the plan it was made for: ``fit_prepared`` refuses, by name, to
release it with another plan (before anything is held, charged or released), except a reusable
preparation with a plan made at another epsilon alone, which releases what a fit at that epsilon
releases (as ``epsilon_sweep`` reuses one preparation across its grid).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from _helpers import binary_gd, binary_lm, binary_logistic, binary_nb, unit_regressor, unit_rows

import dpconvex as dp
from dpconvex.errors import ParameterError
from dpconvex.estimators.base import Prepared, _bind_plan, prepared_plan_differences


def _released(est):
    """The released parameters of a fitted estimator."""
    for name in ("coef_", "Phi_", "theta_"):
        if hasattr(est, name):
            return np.asarray(getattr(est, name), dtype=float)
    raise AssertionError(f"{type(est).__name__} has no released parameters")


#: (maker, parameters at the first plan, the set_params before the second plan, a difference
#: the refusal names): a preparation that reads epsilon (Λ by its rule, DP k-means components)
#: at another epsilon, and any preparation with a plan of other template parameters.
OTHER_PLANS = {
    "logistic-epsilon": (binary_logistic, {}, {"epsilon": 100.0}, "lam"),
    "regressor-epsilon": (unit_regressor, {}, {"epsilon": 100.0}, "lam"),
    "lm-kmeans-epsilon": (binary_lm, {"n_components": 2, "component_assignment": "dp_kmeans"},
                          {"epsilon": 100.0}, "parameter epsilon"),
    "lm-data-norm": (binary_lm, {}, {"data_norm": 0.5}, "parameter data_norm"),
    "logistic-lam-given-data-norm": (binary_logistic, {"lam": 0.05}, {"data_norm": 0.5},
                                     "parameter data_norm"),
    "gd-data-norm": (binary_gd, {}, {"data_norm": 0.5}, "parameter data_norm"),
    "nb-feature-range": (binary_nb, {}, {"feature_range": (-10, 10)}, "parameter feature_range"),
    "nb-delta": (binary_nb, {}, {"delta": 1e-3}, "parameter delta"),
}


@pytest.mark.parametrize("name", OTHER_PLANS)
def test_fit_prepared_refuses_a_preparation_made_for_another_plan(name):
    make, planned, changed, named = OTHER_PLANS[name]
    X, y = unit_rows()
    est = make(**planned, accountant=dp.BudgetAccountant(epsilon=1000.0, delta=0.9))
    prep = est.prepare(X, y, est.plan_for(X, y))
    other = est.set_params(**changed).plan_for(X, y)
    with pytest.raises(ParameterError, match="fit_prepared: the preparation was made for another "
                                             rf"plan \(differing: [^)]*{named}"):
        est.fit_prepared(prep, other)
    assert est.accountant.spent == (0.0, 0.0)  # nothing held or charged
    assert not [key for key in vars(est) if key.endswith("_") and not key.startswith("_")]
    # prepared again for the plan, it releases that plan's budget
    fitted = est.fit_prepared(est.prepare(X, y, other), other)
    assert (fitted.certificate_.epsilon, fitted.certificate_.delta) == (
        other.budget.epsilon, other.budget.delta)


#: Reusable preparations (their templates read no epsilon; the large-margin learner's Λ is set
#: from the releasing plan).
REUSABLE = {
    "lm": (binary_lm, {}),
    "logistic-lam-given": (binary_logistic, {"lam": 0.05}),
    "gd": (binary_gd, {"delta": 1e-4}),
    "nb": (binary_nb, {}),
}


@pytest.mark.parametrize("name", REUSABLE)
def test_a_reusable_preparation_releases_at_another_epsilon_what_a_fit_there_releases(name):
    """The same template, noise stream and solve as a fit at epsilon = 100: rtol 1e-9 covers
    the solver's rounding on equal problems."""
    make, params = REUSABLE[name]
    X, y = unit_rows()
    est = make(**params)
    prep = est.prepare(X, y, est.plan_for(X, y))
    assert prep.reusable
    other = est.set_params(epsilon=100.0).plan_for(X, y)
    assert prepared_plan_differences(est, prep, other) == []
    released = est.fit_prepared(prep, other)
    fresh = make(**params, epsilon=100.0).fit(X, y)
    assert released.certificate_.epsilon == fresh.certificate_.epsilon == 100.0
    np.testing.assert_allclose(_released(released), _released(fresh), rtol=1e-9, atol=1e-12)


def test_a_plan_made_again_from_the_same_parameters_releases_as_the_plan():
    """Logistic regression at lam='auto' (not reusable): its plan made twice."""
    X, y = unit_rows()
    est = binary_logistic()
    plan = est.plan_for(X, y)
    prep = est.prepare(X, y, plan)
    again = est.plan_for(X, y)
    assert again is not plan and prepared_plan_differences(est, prep, again) == []
    first = _released(est.fit_prepared(prep, plan))
    np.testing.assert_allclose(_released(est.fit_prepared(prep, again)), first,
                               rtol=1e-9, atol=1e-12)


def test_a_preparation_made_by_hand_is_refused():
    X, y = unit_rows()
    est = binary_logistic()
    plan = est.plan_for(X, y)
    prep = est.prepare(X, y, plan)
    by_hand = Prepared(template=prep.template, labels=prep.labels)
    with pytest.raises(ParameterError, match="the preparation records no plan"):
        est.fit_prepared(by_hand, plan)
    assert not hasattr(est, "certificate_")


#: A maker per ``prepare`` that builds a Prepared (the large-margin centroid learner's and its
#: DP k-means assignment's apart from its template's), each at its default plan.
PREPARERS = {
    "logistic": binary_logistic,
    "regressor": unit_regressor,
    "ssp": lambda: dp.PrivateLinearRegression(label_range=(-1, 1), random_state=0),
    "lm": binary_lm,
    "lm-kmeans": lambda: binary_lm(n_components=2, component_assignment="dp_kmeans"),
    "lm-centroid": lambda: binary_lm(mechanism="centroid"),
    "gd": binary_gd,
    "nb": binary_nb,
    "centroid": lambda: dp.PrivateGaussianCentroid(classes=[-1, 1], random_state=0),
}


@pytest.mark.parametrize("name", sorted(PREPARERS))
def test_every_prepare_binds_the_plan_it_was_made_for(name):
    X, y = unit_rows()
    est = PREPARERS[name]()
    plan = est.plan_for(X, y)
    assert est.prepare(X, y, plan).plan is plan


def test_the_plan_of_a_preparation_is_set_by_prepare_alone():
    """Neither the constructor nor dataclasses.replace nor an assignment binds a preparation to
    another plan: a Λ chosen by the rule at epsilon=1 is never certified as the epsilon=100
    plan's; a copy made with replace records no plan, which fit_prepared refuses."""
    X, y = unit_rows()
    est = binary_logistic()  # lam="auto": the rule reads epsilon
    plan = est.plan_for(X, y)
    prep = est.prepare(X, y, plan)
    other = binary_logistic(epsilon=100.0).plan_for(X, y)
    with pytest.raises(TypeError, match="plan"):
        Prepared(template=prep.template, labels=prep.labels, plan=other)
    with pytest.raises(TypeError, match="plan"):
        dataclasses.replace(prep, plan=other)
    with pytest.raises(ValueError, match="_plan"):
        dataclasses.replace(prep, _plan=other)
    with pytest.raises(AttributeError):
        prep.plan = other
    with pytest.raises(ParameterError, match="bound to the plan it was made for already"):
        _bind_plan(prep, other)  # the binder binds once
    assert prep.plan is plan
    with pytest.raises(ParameterError, match="the preparation records no plan"):
        est.set_params(epsilon=100.0).fit_prepared(dataclasses.replace(prep), other)
    with pytest.raises(ParameterError, match="made for another plan"):
        est.fit_prepared(prep, other)
    assert not hasattr(est, "certificate_")
