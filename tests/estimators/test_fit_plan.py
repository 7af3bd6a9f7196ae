"""The public fit plan of every estimator: made before the data, equal to what the fit certifies.

Each estimator's ``plan(n, n_classes, n_features)`` resolves every "auto" from the
parameters and the public shape only; ``fit`` follows it (the certificate's mechanism,
budget, Λ and backend are the plan's); ``certify`` without data is a dry run (nothing
charged); the sweep and the searches go through the public methods only.
"""

from __future__ import annotations

import dataclasses
import pickle
import warnings

import cvxpy as cp
import numpy as np
import pandas as pd
import pytest

import dpconvex as dp
from dpconvex.estimators.base import FitPlan, PrivateEstimator
from dpconvex.estimators.large_margin import learners
from dpconvex.estimators.sweep import epsilon_sweep
from dpconvex.privacy.certificate import DeltaRows

N, C, P = 178, 3, 13


def _data(n: int = N, classes: int = C, p: int = P, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % classes
    X = rng.normal(size=(n, p)) * 0.2 + np.eye(classes, p)[y]
    return X / np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True)), y


#: One estimator per family and learner; ``classes`` fixes the public label set.
ESTIMATORS = {
    "logistic": lambda: dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1]),
    "logistic-ovr": lambda: dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1, 2]),
    "huber-gaussian": lambda: dp.PrivateHuberSVM(epsilon=1.0, delta=1e-5,
                                                 mechanism="gaussian_objective", classes=[0, 1]),
    "linear-output": lambda: dp.PrivateLinearClassifier(epsilon=1.0, mechanism="output",
                                                        lam=0.1, classes=[0, 1]),
    "noisy-gd": lambda: dp.NoisyGradientDescent(epsilon=1.0, steps=20, classes=[0, 1]),
    "noisy-gd-rules": lambda: dp.NoisyGradientDescent(epsilon=1.0, accounting="rdp",
                                                      classes=[0, 1]),
    "centroid": lambda: dp.PrivateGaussianCentroid(epsilon=1.0, classes=[0, 1, 2]),
    "lm-softmax": lambda: dp.PrivateLargeMarginGaussian(epsilon=1.0, classes=[0, 1, 2]),
    "lm-pairwise": lambda: dp.PrivateLargeMarginGaussian(epsilon=1.0, loss="pairwise",
                                                         lam=2e-2, classes=[0, 1, 2]),
    "lm-centroid": lambda: dp.PrivateLargeMarginGaussian(epsilon=1.0, delta=1e-5,
                                                         classes=[0, 1, 2]),
    "lm-mixture": lambda: dp.PrivateLargeMarginGaussian(epsilon=1.0, n_components=2, classes=[0, 1]),
    "lm-mixture-kmeans": lambda: dp.PrivateLargeMarginGaussian(
        epsilon=1.0, n_components=2, component_assignment="dp_kmeans", classes=[0, 1]),
    "lm-mixture-nonprivate": lambda: dp.PrivateLargeMarginGaussian(
        epsilon=1.0, n_components=2, component_assignment="gmm_nonprivate", classes=[0, 1]),
}


def _n_classes(est) -> int:
    return len(est.classes)


def _fields(plan: FitPlan):
    out = [getattr(plan, f.name) for f in dataclasses.fields(plan)]
    out += list(plan.options.values()) + list(plan.parts.values())
    for sub in plan.sub_plans:
        out += _fields(sub)
    return out


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_plan_is_public_printable_and_frozen(name):
    est = ESTIMATORS[name]()
    plan = est.plan(N, _n_classes(est), P)
    text = str(plan)
    assert text.startswith(f"FitPlan of {type(est).__name__} (n = {N}")
    assert "mechanism:" in text and "budget:" in text and "backend:" in text
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.n = 1  # type: ignore[misc]
    with pytest.raises(TypeError):
        plan.options["x"] = 1  # type: ignore[index]
    for value in _fields(plan):  # public facts only: no array, no generator
        assert not isinstance(value, (np.ndarray, np.random.Generator, np.random.RandomState))
    assert not hasattr(est, "certificate_")  # nothing fitted, nothing read
    assert plan == est.plan(N, _n_classes(est), P)  # a function of the parameters and shape


def _cert_facts(cert):
    return cert.epsilon_requested, cert.delta


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_fit_follows_the_plan(name):
    X, y = _data(classes=_n_classes(ESTIMATORS[name]()))
    est = ESTIMATORS[name]().set_params(random_state=0)
    plan = est.plan(N, _n_classes(est), P)
    assert est.plan_for(X, y) == plan
    cert = est.fit(X, y).certificate_
    assert cert.epsilon <= plan.budget.epsilon + 1e-12
    assert cert.delta <= plan.budget.delta * (1 + 1e-12) + 1e-300
    one = plan.sub_plans[0] if plan.sub_plans else plan
    subs = cert.parts if plan.sub_plans else [cert]
    for note in plan.notes:
        assert cert.states(note), note
    for part in subs:
        for note in one.notes:
            assert part.states(note), note
    for part in subs:
        if plan.learner in ("pairwise", "softmax", "linear ERM"):
            assert part.solver.get("backend") == one.backend
    if one.lam is not None and one.lam_rule != "given":  # the rule's value, stated
        assert all((p.lam_rule.rule, p.lam_rule.lam) == ("auto", one.lam) for p in subs)


#: The models' released arrays: the same draws of the same seed on the same problem, so equal
#: up to the order of floating-point sums (BLAS threads), far below 1e-9 relative.
RELEASED = ("coef_", "intercept_", "Phi_", "theta_", "var_")


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_prepare_then_fit_prepared_is_the_fit(name):
    """The public steps prepare(X, y, plan) → fit_prepared(prep, plan) give the model fit(X, y)
    gives: its label set, its columns (the plan's), the label source its certificate states and
    the released numbers."""
    X, y = _data(classes=_n_classes(ESTIMATORS[name]()))
    est = ESTIMATORS[name]().set_params(random_state=0)
    plan = est.plan_for(X, y)
    if plan.sub_plans:  # one-vs-rest prepares each binary model with its own plan
        pytest.skip("one-vs-rest: prepared per binary model")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        staged = est.fit_prepared(est.prepare(X, y, plan), plan)
        fitted = ESTIMATORS[name]().set_params(random_state=0).fit(X, y)
    assert staged.classes_.tolist() == fitted.classes_.tolist() == [0, 1, 2][:_n_classes(est)]
    assert staged.n_features_in_ == fitted.n_features_in_ == P
    assert staged.certificate_.label_source == fitted.certificate_.label_source
    assert staged.certificate_.label_source is not None
    for key in RELEASED:
        if hasattr(fitted, key):
            np.testing.assert_allclose(getattr(staged, key), getattr(fitted, key),
                                       rtol=1e-9, atol=1e-12)


def test_plan_resolves_auto_once(monkeypatch):
    calls = {"lm": 0, "lin": 0}
    auto_lam = learners.auto_lam

    def spy_lm(*a, **k):
        calls["lm"] += 1
        return auto_lam(*a, **k)

    monkeypatch.setattr(learners, "auto_lam", spy_lm)
    from dpconvex.estimators import linear

    resolve = linear.lam_rule

    def spy_lin(*a, **k):
        calls["lin"] += 1
        return resolve(*a, **k)

    monkeypatch.setattr(linear, "lam_rule", spy_lin)
    X, y = _data()
    dp.PrivateLargeMarginGaussian(epsilon=1.0, classes=[0, 1, 2], mechanism="objective",
                                  random_state=0).fit(X, y)
    assert calls["lm"] == 1  # plan resolved Λ; prepare and the release reuse it
    X2, y2 = _data(classes=2)
    dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1], random_state=0).fit(X2, y2)
    assert calls["lin"] == 1
    dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1, 2], random_state=0).fit(X, y)
    assert calls["lin"] == 2  # one binary plan shared by the C one-vs-rest models


def test_learner_is_chosen_in_the_plan_from_public_shape():
    est = dp.PrivateLargeMarginGaussian(epsilon=1.0, delta=1e-5)
    assert est.plan(100, 3, 4).learner == "centroid"  # n eps / C = 33 < 300
    assert est.plan(10_000, 3, 4).learner == "softmax"
    assert dp.PrivateLargeMarginGaussian(epsilon=1.0, loss="pairwise").plan(
        100, 3, 4).learner == "pairwise"
    km = dp.PrivateLargeMarginGaussian(epsilon=1.0, n_components=2,
                                       component_assignment="dp_kmeans").plan(500, 3, 4)
    assert km.parts["k-means"].epsilon == pytest.approx(0.2)
    assert km.parts["objective perturbation"].epsilon == pytest.approx(0.8)


@pytest.mark.parametrize("name", ["logistic", "logistic-ovr", "noisy-gd", "centroid",
                                  "lm-softmax", "lm-centroid"])
def test_certify_without_data_spends_nothing(name):
    acc = dp.BudgetAccountant(epsilon=10.0, delta=1e-3)
    est = ESTIMATORS[name]().set_params(accountant=acc)
    cert = est.certify(n=N, n_classes=_n_classes(est), n_features=P)
    assert acc.spent == (0.0, 0.0) or tuple(acc.spent) == (0.0, 0.0)
    plan = est.plan(N, _n_classes(est), P)
    assert cert.epsilon <= plan.budget.epsilon + 1e-12
    pickle.dumps(plan.budget)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
@pytest.mark.parametrize("seed", [None, 3])
def test_certify_states_what_the_fit_states_from_public_parameters(name, seed):
    """Both dry runs, on the data (one-vs-rest included) and on the shape, carry the fit's
    guarantee, its seed line (a public parameter) and its stated assumptions (the mixture's
    planned component assignment included), without drawing or charging."""
    X, y = _data(classes=_n_classes(ESTIMATORS[name]()))
    est = ESTIMATORS[name]().set_params(random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dry = [est.certify(X, y), est.certify(n=N, n_classes=_n_classes(est), n_features=P)]
        fitted = est.fit(X, y).certificate_
    for cert in dry:
        assert cert.epsilon == pytest.approx(fitted.epsilon, rel=1e-12) and cert.delta == fitted.delta
        assert cert.seeded is fitted.seeded is (seed is not None)
        assert [p.seeded for p in cert.parts] == [p.seeded for p in fitted.parts]
        assert _assumptions(cert) == _assumptions(fitted)


def _assumptions(cert) -> list[list[str]]:
    """Every stated line (the label set, Λ's rule and the row maps among them), in every part."""
    return [sorted(cert.notes()), *(_assumptions(part) for part in cert.parts)]


def _refused_helper(name: str):
    def helper(self, *a, **k):
        raise AssertionError(f"private {name} used")
    return helper


def test_sweep_and_searches_use_public_methods_only(monkeypatch):
    # private helpers of a fit protocol raise on the shipped class (a search fits no class of
    # the user's): only public methods may be used
    for name in ("_build", "_prepare", "_fit_prepared"):
        monkeypatch.setattr(dp.PrivateLogisticRegression, name, _refused_helper(name),
                            raising=False)
    X, y = _data(classes=2)
    est = dp.PrivateLogisticRegression(epsilon=1.0, lam=0.05, classes=[0, 1])
    sw = epsilon_sweep(est, X, y, [0.5, 1.0], runs=2, random_state=0)
    assert sw.templates_built == 1 and sw.score(X, y).shape == (2, 2)
    gs = dp.PrivateGridSearch(est, {"lam": [0.01, 0.1]}, epsilon=1.0, random_state=0)
    assert gs.fit(X, y).best_params_["lam"] in (0.01, 0.1)
    assert isinstance(est, PrivateEstimator)


def test_prepare_refuses_data_of_another_shape():
    X, y = _data(classes=2)
    est = dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1])
    with pytest.raises(dp.errors.ParameterError, match="the plan is for n = 10 rows"):
        est.prepare(X, y, est.plan(10, 2, P))


@pytest.mark.parametrize("cls", [dp.PrivateLinearRegressor, dp.PrivateQuantileRegressor,
                                 dp.PrivateHuberRegressor, dp.PrivateLinearRegression])
def test_a_regressors_prepare_refuses_data_of_another_shape(cls):
    """A plan of n = 5000 rows states its Λ rule at that n: rows of another shape are refused
    before a template is built on them."""
    X, y = _data(classes=2)
    centre = {} if cls is dp.PrivateLinearRegression else {"label_center": "range"}
    est = cls(epsilon=1.0, label_range=(0, 1), **centre)
    for n, d in ((5000, P), (X.shape[0], P + 1)):
        with pytest.raises(dp.errors.ParameterError, match=f"the plan is for n = {n} rows and {d} features"):
            est.prepare(X, y, est.plan(n, 1, d))



_DELTA_ESTIMATORS = [
    (2, lambda d: dp.PrivateLogisticRegression(epsilon=1.0, delta=d, classes=[0, 1],
                                               random_state=0)),
    (3, lambda d: dp.PrivateLogisticRegression(epsilon=1.0, delta=d, classes=[0, 1, 2],
                                               random_state=0)),
    (3, lambda d: dp.PrivateGaussianCentroid(epsilon=1.0, delta=d, classes=[0, 1, 2],
                                             random_state=0)),
    (2, lambda d: dp.NoisyGradientDescent(epsilon=1.0, delta=d, steps=5, classes=[0, 1],
                                          random_state=0)),
    (3, lambda d: dp.PrivateLargeMarginGaussian(epsilon=1.0, delta=d, classes=[0, 1, 2],
                                                random_state=0)),
    (3, lambda d: dp.PrivateClassifier(epsilon=1.0, delta=d, classes=[0, 1, 2], random_state=0)),
]


def _delta_warnings(caught):
    return [w for w in caught if issubclass(w.category, dp.PrivacyWarning)
            and "is at least 1/n" in str(w.message)]


@pytest.mark.parametrize("n_classes, make", _DELTA_ESTIMATORS)
def test_delta_at_least_one_over_n_warns_once_and_the_certificate_says_so(n_classes, make):
    """δ >= 1/n (n public) permits releasing a whole record: one warning, one certificate line."""
    X, y = _data(30, n_classes, 4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = make(0.05).fit(X, y)  # 0.05 >= 1/30
    mine = _delta_warnings(caught)
    assert len(mine) == 1
    assert "1/n^2" in str(mine[0].message) and mine[0].filename == __file__
    assert [a for a in est.certificate_.lines if isinstance(a, DeltaRows)] == [DeltaRows(0.05, 30)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)
        dry = make(0.05).certify(n=30, n_classes=n_classes, n_features=4)
    assert dry.states(DeltaRows(0.05, 30))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = make(1e-4).fit(X, y)  # well below 1/30
    assert not _delta_warnings(caught)
    assert est.certificate_.line(DeltaRows) is None


def test_the_shape_left_out_is_named_and_a_regressor_needs_no_label_count():
    """A regressor plans and certifies from n and n_features; what is missing is named (not a
    0 the user never passed), for the front door as for a single learner."""
    for est in (dp.PrivateRegressor(epsilon=1.0, label_range=(0, 100)),
                dp.PrivateHuberRegressor(epsilon=1.0, label_range=(0, 100))):
        assert est.plan(n=2000, n_features=3).n_classes == 1
        assert est.certify(n=2000, n_features=3).epsilon == 1.0
        for method in (est.certify, est.plan):
            with pytest.raises(dp.errors.ParameterError,
                               match=r"n_features is missing\. Pass n and n_features"):
                method(n=2000)
    with pytest.raises(dp.errors.ParameterError, match=r"plan: .*n_classes is missing"):
        dp.PrivateLogisticRegression(epsilon=1.0).plan(100, n_features=3)
    assert dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1]).plan(100, n_features=3).n_classes == 2


@pytest.mark.parametrize("make", [lambda: dp.PrivateRegressor(epsilon=1.0, label_range=(0, 1)),
                                  lambda: dp.PrivateClassifier(epsilon=1.0, classes=[0, 1])])
def test_a_front_door_refuses_prepare_and_fit_prepared_by_name(make):
    """A front door plans (plan_for) but prepares and releases inside fit only: prepare and
    fit_prepared name it and say to call fit, and nothing is charged."""
    X, y = _data(classes=2)
    ledger = dp.BudgetAccountant(epsilon=10.0)
    est = make().set_params(accountant=ledger)
    plan = est.plan_for(X, y)
    name = type(est).__name__
    with pytest.raises(dp.errors.ParameterError, match=rf"^{name}\.prepare: .*call fit"):
        est.prepare(X, y, plan)
    learner = dp.PrivateLinearRegressor(epsilon=1.0, label_range=(0, 1), label_center="range")
    learner_plan = learner.plan_for(X, y)
    with pytest.raises(dp.errors.ParameterError, match=rf"^{name}\.fit_prepared: .*call fit"):
        est.fit_prepared(learner.prepare(X, y, learner_plan), plan)
    assert ledger.spent == (0.0, 0.0)


def test_a_dry_run_refuses_one_row_and_an_n_beyond_numpy_by_name():
    """n = 1 met the Budget's δ check (noisy GD's δ = 1/n² = 1); a dry run reads the template
    of its public problem: nothing of size n is allocated, and an n whose rows no numpy array
    holds is refused by name."""
    est = dp.NoisyGradientDescent(epsilon=1.0, classes=[0, 1])
    with pytest.raises(dp.errors.ParameterError,
                       match=r"The 'n' argument of NoisyGradientDescent\.certify"):
        est.certify(n=1, n_features=3)
    with pytest.raises(dp.errors.ParameterError, match=r"certify: its checks hold n = 1,0"):
        dp.PrivateGaussianNB(epsilon=1.0, classes=[0, 1]).certify(n=10**18, n_features=3)
    for learner in (est, dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1]),
                    dp.PrivateGaussianNB(epsilon=1.0, classes=[0, 1]),
                    dp.PrivateGaussianCentroid(epsilon=1.0, classes=[0, 1]),
                    dp.PrivateLargeMarginGaussian(epsilon=1.0, classes=[0, 1]),
                    dp.PrivateLinearRegression(epsilon=1.0, delta=0.0),
                    dp.PrivateLinearRegressor(epsilon=1.0, label_range=(0, 1))):
        assert learner.certify(n=10**15, n_features=3).epsilon <= 1.0, type(learner).__name__


def _lines(cert) -> list[list[str]]:
    """The stated lines (and the seed flag) of the certificate and each part, depth first."""
    return [[*sorted(cert.notes()), str(cert.seeded)]] + [w for p in cert.parts for w in _lines(p)]


@pytest.mark.parametrize("make", [
    lambda: dp.PrivateLogisticRegression(epsilon=1.0, random_state=0),
    lambda: dp.NoisyGradientDescent(epsilon=1.0, random_state=0),
    lambda: dp.PrivateLargeMarginGaussian(epsilon=1.0, random_state=0),
    lambda: dp.PrivateClassifier(epsilon=1.0, random_state=0),
    lambda: dp.PrivateGridSearch(dp.PrivateLogisticRegression(), {"lam": [0.1, 1.0]},
                                 epsilon=1.0, random_state=0)])
@pytest.mark.parametrize("declared", [False, True])
def test_certify_states_the_label_set_a_fit_reads_from_y(make, declared):
    """Without classes=, the dry run on (X, y) states the set as the fit does: read from y
    (assumed public), or declared with y (a pandas Categorical); and the seed lines."""
    X, y = _data(classes=3)
    y = pd.Series(pd.Categorical(y)) if declared else y
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dry, fitted = make().certify(X, y), make().fit(X, y).certificate_
    assert dry.label_source == fitted.label_source is not None
    assert _lines(dry) == _lines(fitted)


def test_the_random_search_dry_run_is_seeded_as_its_fit():
    """(Its dry run states the first candidate, the fit the released one: the seed lines.)"""
    X, y = _data(classes=2)
    make = lambda: dp.PrivateRandomSearch(dp.PrivateLogisticRegression(), {"lam": [0.1]},  # noqa: E731
                                          epsilon=1.0, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dry, fitted = make().certify(X, y), make().fit(X, y).certificate_
    assert [line[-1] for line in _lines(dry)] == [line[-1] for line in _lines(fitted)]
    assert _lines(dry) == _lines(fitted)  # one candidate: the same lines too


def test_the_plan_holds_the_delta_the_fit_spends():
    """A δ > 0 that the chosen forms leave unused (the pure forms, the lower Λ-rule bound) is
    neither in the plan's budget nor held: a ledger of pure ε takes the fit, as it takes the
    certificate of δ = 0."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, size=(300, 3))
    y = 5 + 4 * X[:, 0] + rng.normal(scale=0.5, size=300)
    labels = np.arange(300) % 3
    for est, target in ((dp.PrivateLogisticRegression(classes=[0, 1, 2]), labels),
                        (dp.PrivateRegressor(label_range=(0, 10)), y),
                        (dp.PrivateRegressor(label_range="private"), y)):
        est.set_params(epsilon=2.0, delta=1e-5, random_state=0,
                       accountant=dp.BudgetAccountant(epsilon=10.0, delta=0.0))
        plan = est.plan(300, 3 if target is labels else 1, 3)  # a private range: its share noted
        assert plan.budget == dp.Budget(2.0, 0.0) and plan.estimator == type(est).__name__
        noted = any("label_range='private'" in str(n) for n in plan.notes)
        assert noted == (getattr(est, "label_range", None) == "private")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X, target)
        assert est.certificate_.delta == 0.0 and est.accountant.spent == (2.0, 0.0)


def test_a_private_label_range_plan_states_what_the_fit_states():
    """Each note of the plan of a fit with label_range="private" is stated by the fit's
    certificate (none of the placeholder range's), and ``prepare`` refuses the plan by name:
    the range is released first, in fit only."""
    rng = np.random.default_rng(1)
    X = rng.uniform(-0.5, 0.5, size=(600, 3))
    y = 5 + 4 * X[:, 0] + rng.normal(scale=0.5, size=600)

    def anywhere(cert, note):
        return cert.states(note) or any(anywhere(part, note) for part in cert.parts)

    for cls in (dp.PrivateRegressor, dp.PrivateLinearRegressor, dp.PrivateLinearRegression):
        est = cls(label_range="private", epsilon=2.0, random_state=0)
        plan = est.plan(600, None, 3)
        assert "label_range" not in plan.options
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            certificate = est.fit(X, y).certificate_
        assert all(anywhere(certificate, note) for note in plan.notes), cls.__name__
        if cls is not dp.PrivateRegressor:  # (a front door prepares no template of its own)
            with pytest.raises(dp.ParameterError, match="in fit only"):
                est.prepare(X, y, plan)


#: A dry run on (X, y) for each path that builds it: one-vs-rest, the front doors (safeguard on
#: and off, the private mean), a private label range.
_DRY_RUNS = {
    "logistic-ovr": lambda: dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1, 2]),
    "noisy-gd-ovr": lambda: dp.NoisyGradientDescent(epsilon=1.0, steps=5, classes=[0, 1, 2]),
    "classifier": lambda: dp.PrivateClassifier(epsilon=1.0, classes=[0, 1, 2]),
    "regressor": lambda: dp.PrivateRegressor(epsilon=1.0, label_range=(-1, 3)),
    "regressor-unguarded": lambda: dp.PrivateRegressor(epsilon=1.0, label_range=(-1, 3), safeguard=False),
    "regressor-mean": lambda: dp.PrivateRegressor(epsilon=0.01, label_range=(-1, 3)),
    "regressor-private-range": lambda: dp.PrivateRegressor(epsilon=2.0, label_range="private"),
    "linear-private-range": lambda: dp.PrivateLinearRegressor(epsilon=2.0, label_range="private"),
    "grid-search": lambda: dp.PrivateGridSearch(dp.PrivateLogisticRegression(), {"lam": [0.1, 1.0]},
                                                epsilon=1.0, classes=[0, 1, 2]),
}
_BAD = {
    "NaN in X": lambda X, y: (np.where(np.arange(X.size).reshape(X.shape) == 7, np.nan, X), y),
    "y one short": lambda X, y: (X, y[:-1]),
    "mixed column names": lambda X, y: (pd.DataFrame(X, columns=[0, *map(str, range(1, X.shape[1]))]), y),
    "text labels": lambda X, y: (X, np.array(["a", "b", "c"])[y.astype(int) % 3]),
    "no labels": lambda X, y: (X, None),
}


@pytest.mark.parametrize("bad", sorted(_BAD))
@pytest.mark.parametrize("name", sorted(_DRY_RUNS))
def test_a_dry_run_refuses_what_the_fit_refuses(name, bad):
    """certify(X, y) reads the data as fit reads it, whichever path builds the dry run: the
    same named error for each input a fit refuses."""
    X, y = _data(300, 3, 4)
    X, y = _BAD[bad](X, y.astype(float) if "regress" in name else y)
    raised = []
    for run in (lambda est: est.certify(X, y), lambda est: est.fit(X, y)):
        with warnings.catch_warnings(), pytest.raises(dp.DataValidationError) as caught:
            warnings.simplefilter("ignore")
            run(_DRY_RUNS[name]())
        raised.append(type(caught.value))
    assert raised[0] is raised[1]


def test_the_one_vs_rest_dry_run_names_the_classes_as_the_fit_names_them():
    X, y = _data(300, 3, 4)
    labels = np.array(["low", "mid", "high"])[y]
    est = dp.PrivateLogisticRegression(epsilon=1.0, classes=["low", "mid", "high"], random_state=0)
    accounting = [next(c.detail for c in cert.conditions if c.name == "epsilon accounting")
                  for cert in (est.certify(X, labels), est.certify(n=300, n_classes=3, n_features=4),
                               est.fit(X, labels).certificate_)]
    assert accounting[0] == accounting[1] == accounting[2] and "'mid'" in accounting[2]


def test_a_dry_run_of_rows_certifies_their_shape_not_a_given_n():
    """certify(X, y, n=...) certifies X's rows, as every estimator's certify does."""
    X, y = _data(600, 3, 4)
    est = dp.PrivateRegressor(epsilon=1.0, label_range=(-1, 3), safeguard=True)
    assert est.certify(X, y.astype(float), n=100, n_features=4).quantities["part sizes"] == \
        est.certify(n=600, n_features=4).quantities["part sizes"] == [480, 120]


@pytest.mark.parametrize(("make", "reads"), [
    (lambda: dp.PrivateLogisticRegression(lam="auto", classes=[0, 1]), True),
    (lambda: dp.PrivateLogisticRegression(lam=0.1, classes=[0, 1]), False),
    # a kinked loss stated in CVXPY: its half-width h chosen by the rule, which reads epsilon
    (lambda: dp.PrivateLinearClassifier(loss=lambda m: cp.pos(1 - m),
                                        lam=0.1, classes=[0, 1]), True),
], ids=["lam-auto", "lam-given", "smoothing-auto"])
def test_a_linear_problem_serves_another_epsilon_unless_the_plan_reads_it(make, reads):
    """The prepared problem is reusable at another ε (the sweep's reuse) exactly when no choice
    of the plan read ε: then the plan at another ε states the same Λ and loss."""
    X, y = _data(classes=2)
    est = make()
    plan = est.plan_for(X, y)
    assert plan.reads_epsilon is reads
    assert est.prepare(X, y, plan).reusable is not reads
    other = est.set_params(epsilon=0.2).plan_for(X, y)
    same = (other.lam, other.options.get("smoothing h")) == (
        plan.lam, plan.options.get("smoothing h"))
    assert same is not reads


@pytest.mark.parametrize("params", [{"lam": 0.1}, {"delta": 1e-5}], ids=["lam-given", "auto-delta"])
def test_a_linear_fit_compiles_a_loss_stated_in_cvxpy_once(monkeypatch, params):
    """The plan makes the loss from the parameters once (also where mechanism="auto" weighs its
    two forms); prepare and the release read the plan's."""
    from dpconvex.estimators import linear

    compiled = []

    def counting(*args, **kwargs):
        compiled.append(args)
        return stated(*args, **kwargs)

    stated = linear.stated_loss
    monkeypatch.setattr(linear, "stated_loss", counting)
    X, y = _data(classes=2)
    dp.PrivateLinearClassifier(loss=lambda m: cp.pos(1 - m), classes=[0, 1], random_state=0,
                               **params).fit(X, y)
    assert len(compiled) == 1


@pytest.mark.parametrize("make", [
    lambda: dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1]),
    lambda: dp.PrivateHuberSVM(epsilon=1.0, classes=[0, 1]),
    lambda: dp.PrivateGaussianNB(epsilon=1.0, classes=[0, 1]),
    lambda: dp.PrivateLargeMarginGaussian(epsilon=1.0, classes=[0, 1]),
    lambda: dp.PrivateLinearRegressor(epsilon=1.0, label_range=(0, 1)),
], ids=["logistic", "huber-svm", "gaussian-nb", "large-margin", "linear-regressor"])
def test_a_declared_shape_no_array_holds_is_refused_by_name(make):
    """plan and certify of 10^30 features (rows beyond numpy's index) refuse by name, before
    any learner sizes an array by the shape (a raw OverflowError or ValueError otherwise)."""
    for method in ("plan", "certify"):
        with pytest.raises(dp.errors.ParameterError, match=rf"\.{method}: its checks hold n = 300"):
            getattr(make(), method)(n=300, n_features=10**30)


@pytest.mark.parametrize("make", [
    lambda: dp.PrivateLinearRegressor(epsilon=1.0, label_range=(-1, 1)),
    lambda: dp.PrivateHuberRegressor(epsilon=1.0, label_range=(-1, 1)),
    lambda: dp.PrivateQuantileRegressor(epsilon=1.0, label_range=(-1, 1)),
], ids=["linear", "huber", "quantile"])
@pytest.mark.parametrize("shape", [{"n": 10**400, "n_features": 3},
                                   {"n": 10, "n_features": 10**400}], ids=["n", "n_features"])
def test_a_regressors_dry_run_of_a_shape_no_float_holds_is_refused_by_name(make, shape):
    """A centred regressor's certify reads (n, d) for the centre's share of ε: a shape beyond
    numpy (and beyond a float) is refused by name there, as plan refuses it."""
    for method in ("plan", "certify"):
        with pytest.raises(dp.errors.ParameterError, match=rf"\.{method}: its checks hold n = "):
            getattr(make(), method)(**shape)


@pytest.mark.parametrize("make", [
    lambda: dp.PrivateLogisticRegression(epsilon=1.0),
    lambda: dp.PrivateHuberSVM(epsilon=1.0),
    lambda: dp.PrivateLinearClassifier(epsilon=1.0),
    lambda: dp.NoisyGradientDescent(epsilon=1.0),
    lambda: dp.PrivateClassifier(epsilon=1.0),
    lambda: dp.PrivateLargeMarginGaussian(epsilon=1.0),
    lambda: dp.PrivateGaussianCentroid(epsilon=1.0),
    lambda: dp.PrivateGaussianNB(epsilon=1.0, feature_range=(-1, 1)),
], ids=["logistic", "huber-svm", "linear", "noisy-gd", "classifier", "large-margin",
        "centroid", "gaussian-nb"])
@pytest.mark.parametrize("n_classes", [10**30, 10**400], ids=["1e30", "1e400"])
def test_a_label_set_no_array_holds_is_refused_by_name(make, n_classes):
    """n_classes blocks of n_features + 1 coefficients beyond one numpy array: refused by
    name in plan and certify, before a learner reads the count as an index or a float."""
    for method in ("plan", "certify"):
        with pytest.raises(dp.errors.ParameterError, match=rf"\.{method}: n_classes = 1"):
            getattr(make(), method)(n=100, n_classes=n_classes, n_features=3)


@pytest.mark.parametrize("make", [dp.PrivateLogisticRegression, dp.PrivateGaussianNB,
                                  dp.PrivateLargeMarginGaussian])
def test_plan_refuses_an_n_classes_that_contradicts_classes_as_certify_does(make):
    for method in ("plan", "certify"):
        with pytest.raises(dp.errors.ParameterError,
                           match=rf"\.{method}: n_classes=5 contradicts classes \(2 labels\)"):
            getattr(make(classes=[0, 1]), method)(n=100, n_classes=5, n_features=3)


def test_one_vs_rest_whose_deltas_reach_one_names_delta_and_the_classes():
    """delta=None: each binary model spends 1/n²; more than n² classes sum to δ >= 1."""
    est = dp.NoisyGradientDescent(epsilon=1.0, classes=list(range(200)))
    with pytest.raises(dp.errors.ParameterError,
                       match=r"NoisyGradientDescent\.plan: delta=None gives each of the 200 "
                             r"one-vs-rest models .* Pass a delta below 1"):
        est.plan(10, n_features=3)


def test_a_composed_dry_run_out_of_memory_is_refused_by_name(monkeypatch):
    """A front door's dry run that runs out of memory on its public shape: a ParameterError
    naming the shape, which does not assert that the shape was the cause."""
    def out_of_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(dp.PrivateClassifier, "_certify_routed", out_of_memory)
    with pytest.raises(dp.errors.ParameterError,
                       match=r"PrivateClassifier\.certify: this machine ran out of memory while "
                             r"it worked on the public problem of 3 features and 4 classes"):
        dp.PrivateClassifier(epsilon=1.0).certify(n=100, n_classes=4, n_features=3)


@pytest.mark.parametrize("make", [dp.PrivateClassifier, dp.PrivateLogisticRegression,
                                  dp.PrivateGaussianCentroid])
def test_a_model_beyond_memory_is_refused_alike_by_plan_and_certify(make):
    """2**55 classes of 4 coefficients (2**60 bytes) fit numpy's index but no 64-bit
    machine's address space: plan and certify both refuse the shape by its arithmetic."""
    for method in ("plan", "certify"):
        with pytest.raises(dp.errors.ParameterError,
                           match=rf"\.{method}: its model of 36,028,797,018,963,968 blocks of 4 "
                                 r"float64 coefficients needs .* more than a 64-bit machine addresses"):
            getattr(make(epsilon=1.0), method)(n=100, n_classes=2**55, n_features=3)
