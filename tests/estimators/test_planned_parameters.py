"""A plan holds the parameters it was made from: ``prepare`` and ``fit_prepared`` refuse, by name,
an estimator whose parameters differ from its plan's (a ``set_params`` since ``plan_for``),
before anything is held, charged or released; the solver, its iteration cap and the ledger may
change (the plan reads none of them), and ``random_state`` where the preparation drew nothing.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from _helpers import binary_gd, binary_lm, binary_logistic, binary_nb, unit_regressor, unit_rows

import dpconvex as dp
from dpconvex.errors import ParameterError

#: (maker, parameters at the plan, the set_params after it, the names refused): the review's
#: reproducers, and an invalid value the plan never checked, on each estimator.
CHANGES = {
    "lm-epsilon-up": (binary_lm, {}, {"epsilon": 100.0}, "epsilon"),
    "lm-kmeans-epsilon-down": (binary_lm, {"n_components": 2, "component_assignment": "dp_kmeans"},
                               {"epsilon": 0.1}, "epsilon"),
    "lm-delta-up": (binary_lm, {"delta": 1e-3}, {"delta": 0.5}, "delta"),
    "lm-delta-auto-mechanism": (binary_lm, {}, {"delta": 1e-3}, "delta"),
    "lm-row-norm": (binary_lm, {"row_norm": "none"}, {"row_norm": "unit"}, "row_norm"),
    "lm-row-norm-invalid": (binary_lm, {}, {"row_norm": "clip"}, "row_norm"),
    "lm-lam": (binary_lm, {}, {"lam": 0.5}, "lam"),
    "logistic-epsilon": (binary_logistic, {}, {"epsilon": 100.0}, "epsilon"),
    "logistic-intercept": (binary_logistic, {}, {"fit_intercept": False}, "fit_intercept"),
    "logistic-intercept-scaling": (binary_logistic, {}, {"intercept_scaling": 3.0},
                                   "intercept_scaling"),
    "logistic-two": (binary_logistic, {}, {"epsilon": 2.0, "delta": 1e-3}, "delta, epsilon"),
    "regressor-label-range": (unit_regressor, {}, {"label_range": (-10, 10)}, "label_range"),
    "regressor-loss-invalid": (unit_regressor, {}, {"loss": "squared_hinge"}, "loss"),
    "regressor-delta": (unit_regressor, {"delta": 1e-3}, {"delta": 0.5}, "delta"),
    "gd-average-invalid": (binary_gd, {}, {"average": False}, "average"),
    "gd-epsilon": (binary_gd, {}, {"epsilon": 100.0}, "epsilon"),
    "nb-epsilon": (binary_nb, {}, {"epsilon": 100.0}, "epsilon"),
    "nb-feature-range": (binary_nb, {}, {"feature_range": (-10, 10)}, "feature_range"),
}


@pytest.mark.parametrize("name", CHANGES)
def test_fit_prepared_refuses_parameters_changed_since_the_plan(name):
    make, planned, changed, names = CHANGES[name]
    X, y = unit_rows()
    est = make(**planned, accountant=dp.BudgetAccountant(epsilon=2.0, delta=0.9))
    plan = est.plan_for(X, y)
    prep = est.prepare(X, y, plan)
    est.set_params(**changed)
    with pytest.raises(ParameterError, match=rf"fit_prepared: the parameters? {names} differ"):
        est.fit_prepared(prep, plan)
    assert est.accountant.spent == (0.0, 0.0)  # nothing held or charged
    assert not hasattr(est, "certificate_") and not hasattr(est, "classes_")
    assert not [key for key in vars(est) if key.endswith("_") and not key.startswith("_")]
    # the parameters set back, the plan's release goes ahead
    est.set_params(**{key: est_value for key, est_value in make(**planned).get_params().items()
                      if key in changed})
    fitted = est.fit_prepared(prep, plan)
    assert (fitted.certificate_.epsilon, fitted.certificate_.delta) == (
        plan.budget.epsilon, plan.budget.delta)


@pytest.mark.parametrize("name", ["lm-row-norm", "logistic-intercept", "regressor-label-range"])
def test_prepare_refuses_parameters_changed_since_the_plan(name):
    """A preparation on changed parameters (its rows scaled, its labels mapped by them) is
    refused too, so none reaches a release once they are set back."""
    make, planned, changed, names = CHANGES[name]
    X, y = unit_rows()
    est = make(**planned)
    plan = est.plan_for(X, y)
    est.set_params(**changed)
    with pytest.raises(ParameterError, match=rf"prepare: the parameters? {names} differ"):
        est.prepare(X, y, plan)


#: The parameters the plan does not read, changed between the plan and the release.
ALLOWED = {
    "lm-solver": (binary_lm, {"max_iter": 500, "solver": "native"}),
    "logistic-solver": (binary_logistic, {"max_iter": 200, "solver": "clarabel"}),
    "regressor-max-iter": (unit_regressor, {"max_iter": 50}),
    "gd-random-state": (binary_gd, {"random_state": 1}),
    "nb-ledger": (binary_nb, {"accountant": dp.BudgetAccountant(epsilon=1.0)}),
}


@pytest.mark.parametrize("name", ALLOWED)
def test_a_parameter_the_plan_does_not_read_may_change(name):
    make, changed = ALLOWED[name]
    X, y = unit_rows()
    est = make()
    plan = est.plan_for(X, y)
    prep = est.prepare(X, y, plan)
    fitted = est.set_params(**changed).fit_prepared(prep, plan)
    assert fitted.certificate_.epsilon == plan.budget.epsilon
    if "accountant" in changed:
        assert fitted.accountant.spent == (plan.budget.epsilon, plan.budget.delta)


def test_a_random_state_changed_since_the_plan_is_the_one_the_release_draws_from():
    """Logistic regression's preparation draws nothing: the release on the plan made at
    random_state=0 draws from random_state=1, as a fit at random_state=1 (the same solve and
    noise; rtol 1e-9 covers the solver's rounding on equal problems)."""
    X, y = unit_rows()
    est = binary_logistic()
    plan = est.plan_for(X, y)
    prep = est.prepare(X, y, plan)
    released = est.set_params(random_state=1).fit_prepared(prep, plan)
    fresh = binary_logistic().set_params(random_state=1).fit(X, y)
    np.testing.assert_allclose(released.coef_, fresh.coef_, rtol=1e-9, atol=1e-12)


def test_a_random_state_the_preparation_drew_from_may_not_change():
    """DP k-means draws the components in the preparation: the release continues that stream,
    so a random_state changed after it is refused by name."""
    X, y = unit_rows()
    est = binary_lm(n_components=2, component_assignment="dp_kmeans")
    plan = est.plan_for(X, y)
    prep = est.prepare(X, y, plan)
    with pytest.raises(ParameterError, match="parameter random_state differs"):
        est.set_params(random_state=1).fit_prepared(prep, plan)


def test_the_plans_parameters_pickle_and_compare_and_the_plan_compares_without_them():
    X, y = unit_rows()
    est = binary_nb(feature_range=np.array([[-1.0, -1.0, -1.0], [1.0, 1.0, 1.0]]).T)
    plan = est.plan_for(X, y)
    assert pickle.loads(pickle.dumps(plan.params)) == plan.params
    assert dict(plan.params)["epsilon"] == 1.0
    assert est.set_params(epsilon=2.0).plan_for(X, y) != plan  # the budget differs
    assert binary_nb().plan_for(X, y) == binary_nb().set_params(random_state=5).plan_for(X, y)


def test_a_plan_of_rows_that_carry_their_ranges_is_not_prepared_on_others():
    """plan_for on rows that carry their feature ranges plans with those ranges: prepare on an
    estimator without them (which would clip to its default range) is refused by name, and
    with them set it goes ahead."""
    from dpconvex.data import RangedRows

    X, y = unit_rows()
    rows = RangedRows(X + 1.0, [[0.0, 2.0]] * 3)
    est = dp.PrivateGaussianNB(classes=[-1, 1], random_state=0)
    plan = est.plan_for(rows, y)
    with pytest.raises(ParameterError, match="feature_range differs .* carry their feature"):
        est.prepare(rows, y, plan)
    prep = est.set_params(feature_range=[[0.0, 2.0]] * 3).prepare(rows, y, plan)
    assert prep.template.lo.tolist() == [0.0] * 3


def test_prepare_on_dask_rows_refuses_parameters_changed_since_the_plan():
    """Dask rows are prepared on the plan's parameters too: a data_norm changed since the plan
    (the rows clipped and scaled by it) is refused before the rows are read."""
    da = pytest.importorskip("dask.array")
    X, y = unit_rows()
    est = binary_lm(data_norm=1.0)
    plan = est.plan(len(X), 2, X.shape[1])
    est.set_params(data_norm=50.0)
    with pytest.raises(ParameterError, match="prepare: the parameter data_norm differs"):
        est.prepare(da.from_array(X, chunks=10), da.from_array(y, chunks=10), plan)
    prep = est.set_params(data_norm=1.0).prepare(da.from_array(X, chunks=10), y, plan)
    assert est.fit_prepared(prep, plan).certificate_.epsilon == plan.budget.epsilon


def test_equal_numbers_compare_equal_and_unequal_integers_differ():
    """-0.0 is 0.0; integers float64 cannot tell apart (beyond 2**53) are told apart; a pandas
    Index is read by its values."""
    import pandas as pd

    from dpconvex.estimators.base import check_planned_params

    X, y = unit_rows()
    est = binary_nb(feature_range=[[-1.0, 0.0]] * 3)
    plan = est.plan_for(X, y)
    est.set_params(feature_range=np.array([[-1.0, -0.0]] * 3))
    assert est.prepare(X, y, plan).template.lo.tolist() == [-1.0] * 3
    est = binary_logistic().set_params(classes=[0, 2**53 + 1])
    plan = est.plan(40, 2, 3)
    check_planned_params(est.set_params(classes=np.array([0, 2**53 + 1])), plan, "demo")
    with pytest.raises(ParameterError, match=r"classes differs .*plan's: classes=\[0, 9007"):
        check_planned_params(est.set_params(classes=[0, 2**53]), plan, "demo")
    est = binary_logistic()
    plan = est.plan(40, 2, 3)
    check_planned_params(est.set_params(classes=pd.Index([-1, 1])), plan, "demo")
    check_planned_params(est.set_params(classes=(-1.0, 1.0)), plan, "demo")
    with pytest.raises(ParameterError, match="classes differs"):
        check_planned_params(est.set_params(classes=pd.Index([1, -1])), plan, "demo")


def test_a_range_broadcast_to_every_feature_is_hashed_once():
    """A stride-0 view (one range for every feature) is recorded by its one row, its shape and
    the axes it broadcasts: the digest is that of the row's 16 bytes, so none of the 10**8 rows
    of the view is read."""
    import hashlib

    from dpconvex.estimators.base import _numbers_form

    pair = np.array([-1.0, 1.0])
    row = hashlib.sha256(pair.tobytes()).hexdigest()
    wide = _numbers_form(np.broadcast_to(pair, (10**8, 2)))
    assert wide == ("numbers", (10**8, 2), row, "broadcast", (0,))
    assert _numbers_form(np.broadcast_to(pair, (3, 2))) == ("numbers", (3, 2), row, "broadcast",
                                                            (0,))


def test_a_sub_plan_refused_says_the_classes_it_was_made_with():
    """Each binary plan of a one-vs-rest plan records its binary model's classes: a binary
    estimator with other classes is refused, with the classes to set."""
    X, y = unit_rows(300)
    plan = dp.PrivateLinearClassifier(classes=[0, 1, 2]).plan(300, 3, 3)
    sub = plan.sub_plans[0]
    est = dp.PrivateLinearClassifier(classes=[-1, 1], epsilon=sub.budget.epsilon)
    with pytest.raises(ParameterError, match=r"classes differs .*plan's: classes=\[0, 1\]"):
        est.prepare(X, y, sub)
    labels = np.where(y == -1, 0, 1)
    est.set_params(classes=[0, 1])
    assert est.fit_prepared(est.prepare(X, labels, sub), sub).certificate_.epsilon == (
        sub.budget.epsilon)


def test_a_preparation_that_draws_refuses_a_random_state_changed_since_the_plan():
    """DP k-means draws in the preparation: a random_state set before it is refused there, so
    no draw under another seed reaches the release once it is set back."""
    X, y = unit_rows()
    est = binary_lm(n_components=2, component_assignment="dp_kmeans")
    plan = est.plan_for(X, y)
    est.set_params(random_state=1)
    with pytest.raises(ParameterError, match=r"prepare: the parameter random_state differs .*"
                                             r"plan's: random_state=0"):
        est.prepare(X, y, plan)
    prep = est.set_params(random_state=0).prepare(X, y, plan)
    assert est.fit_prepared(prep, plan).certificate_.epsilon == plan.budget.epsilon
