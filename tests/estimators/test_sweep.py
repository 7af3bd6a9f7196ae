"""ε sweeps: one template per sweep, warm starts, the same releases as independent fits."""

import math
import warnings

import cvxpy as cp
import numpy as np
import pytest
from _helpers import fit_drawing_from
from sklearn.base import clone
from sklearn.datasets import load_wine

import dpconvex as dp
from dpconvex import BudgetError, ParameterError
from dpconvex.errors import collect_diagnostics
from dpconvex.estimators.sweep import epsilon_sweep
from dpconvex.privacy.certificate import DeltaRows, SmoothingRule


def _data(n=400, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = np.where(X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0, "b", "a")
    return X, y


def _independent(est, X, y, epsilons, runs, seed):
    """The loop a sweep replaces: a fresh estimator per fit, one generator in order."""
    rng = np.random.default_rng(seed)
    return [[fit_drawing_from(type(est)(**{**est.get_params(), "epsilon": e, "random_state": None}),
                              rng, X, y)
             for _ in range(runs)] for e in epsilons]


def _theta(est):
    if hasattr(est, "Phi_"):
        return est.Phi_.ravel()
    return np.r_[est.coef_.ravel(), est.intercept_]


def test_a_models_random_state_is_the_sweeps_seed():
    """As documented: each model holds the sweep's seed; refitted alone with its parameters, a
    model draws as the sweep's first fit (the solves agree to within residual/Λ)."""
    X, y = _data(n=120)
    sw = epsilon_sweep(dp.PrivateLogisticRegression(lam=0.05), X, y, [0.5, 1.0], runs=2,
                       random_state=5)
    assert [m.random_state for row in sw.estimators for m in row] == [5] * 4
    alone = [_theta(clone(m).fit(X, y)) for m in (sw.estimators[0][0], sw.estimators[0][1])]
    assert np.max(np.abs(alone[0] - _theta(sw.estimators[0][0]))) <= 2e-6 / 0.05
    assert np.max(np.abs(alone[1] - _theta(sw.estimators[0][1]))) > 1e-3  # drew further along


@pytest.mark.parametrize("mechanism", ["objective", "output"])
@pytest.mark.parametrize("warm_start", [True, False])
def test_sweep_releases_what_independent_fits_release(mechanism, warm_start):
    """Same seed, same draws: every release agrees with the independent fit to within the
    solver tolerance (each solve is within residual/μ <= 1e-6/Λ of the same minimizer;
    output releases are snapped to the same public grid, so they may differ by one step)."""
    X, y = _data()
    est = dp.PrivateLogisticRegression(lam=0.05, mechanism=mechanism)
    eps = [0.1, 1.0, 10.0]
    sw = epsilon_sweep(est, X, y, eps, runs=3, random_state=11, warm_start=warm_start)
    ref = _independent(est, X, y, eps, 3, 11)
    assert sw.templates_built == 1
    assert len(sw.estimators) == 3 and all(len(r) == 3 for r in sw.estimators)
    for i, e in enumerate(eps):
        for r in range(3):
            a, b = sw.estimators[i][r], ref[i][r]
            assert a.certificate_.epsilon == b.certificate_.epsilon <= e
            grid = 1e-5 if mechanism == "output" else 0.0  # >> the 2^-20 snapping grid
            assert np.max(np.abs(_theta(a) - _theta(b))) <= 2e-6 / 0.05 + grid
    # independent draws within one ε: the runs differ
    assert np.max(np.abs(_theta(sw.estimators[0][0]) - _theta(sw.estimators[0][1]))) > 1e-3
    assert est.get_params()["epsilon"] == 1.0 and not hasattr(est, "coef_")  # untouched


def test_output_sweep_solves_once():
    """Output perturbation perturbs one minimizer: after the first fit each warm-started
    solve starts at it and takes no iteration."""
    X, y = _data()
    with collect_diagnostics() as diag:
        epsilon_sweep(dp.PrivateHuberSVM(lam=0.05, mechanism="output"), X, y, [0.5, 1.0],
                      runs=3, random_state=0)
    iters = [r.iterations for r in diag]
    assert len(iters) == 6 and iters[0] > 0 and iters[1:] == [0] * 5
    assert all(r.residual <= 1e-6 for r in diag)


def test_cvxpy_sweep_reuses_one_compiled_problem():
    X, y = _data(n=150)
    est = dp.PrivateLogisticRegression(lam=0.05, solver="clarabel")
    seen = []
    with collect_diagnostics() as diag:
        sw = epsilon_sweep(est, X, y, [0.5, 2.0], runs=2, random_state=3)
    assert [r.solver for r in diag] == ["clarabel"] * 4
    assert all(r.residual <= 1e-6 for r in diag)
    for row in sw.estimators:
        seen.extend(row)
    assert sw.templates_built == 1
    native = _independent(dp.PrivateLogisticRegression(lam=0.05), X, y, [0.5, 2.0], 2, 3)
    for a, b in zip(seen, [e for row in native for e in row], strict=True):
        assert np.max(np.abs(_theta(a) - _theta(b))) <= 2e-6 / 0.05


def test_large_margin_sweep_reuses_template_for_k1_and_rebuilds_for_dp_kmeans():
    X, y = load_wine(return_X_y=True)
    X = X / np.linalg.norm(X, axis=1).max()  # a fixed public scale for the test
    est = dp.PrivateLargeMarginGaussian(data_norm=1.0, lam=2e-2)
    sw = epsilon_sweep(est, X, y, [1.0, 10.0], runs=2, random_state=5)
    ref = _independent(est, X, y, [1.0, 10.0], 2, 5)
    assert sw.templates_built == 1
    for row_a, row_b in zip(sw.estimators, ref, strict=True):
        for a, b in zip(row_a, row_b, strict=True):
            assert a.certificate_.epsilon == b.certificate_.epsilon
            assert np.max(np.abs(_theta(a) - _theta(b))) <= 2e-6 / (2 * 1e-2)
    km = dp.PrivateLargeMarginGaussian(data_norm=1.0, n_components=2,
                                       component_assignment="dp_kmeans")
    sw2 = epsilon_sweep(km, X, y, [5.0, 10.0], runs=1, random_state=5)
    assert sw2.templates_built == 2  # the DP k-means is part of each private fit
    for row, e in zip(sw2.estimators, [5.0, 10.0], strict=True):
        cert = row[0].certificate_
        assert cert.epsilon <= e and len(cert.parts) == 2


def test_sweep_holds_its_whole_budget_before_any_data_are_read(monkeypatch):
    X, y = _data()
    acc = dp.BudgetAccountant(epsilon=2.5, delta=1e-3)
    est = dp.PrivateLogisticRegression(lam=0.05, accountant=acc)
    sw = epsilon_sweep(est, X, y, [0.5, 1.0], runs=1, random_state=0)
    spent = sum(e.certificate_.epsilon for row in sw.estimators for e in row)
    assert [(s.epsilon, s.delta) for s in acc.spends] == [(sw.certificate.epsilon, 0.0)]
    assert sw.certificate.epsilon == pytest.approx(spent) and spent <= 1.5
    assert all(e.accountant is acc for row in sw.estimators for e in row)  # a refit charges it
    # 1.0 left: the sum 1.5 does not fit, so the sweep is refused whole before any data are
    # read (no fit prepared; nothing charged); one-vs-rest alike
    monkeypatch.setattr(dp.PrivateLogisticRegression, "prepare", None)
    for estimator, labels in [(est, y), (est.set_params(classes=[0, 1, 2]), np.arange(len(y)) % 3)]:
        with pytest.raises(BudgetError, match=r"epsilon=1\.5"):
            epsilon_sweep(estimator, X, labels, [0.5, 0.5, 0.5], random_state=0)
        assert acc.spent[0] == pytest.approx(spent) and not acc.reserved


def test_a_label_range_released_in_each_fit_is_held_by_its_dry_run():
    """label_range='private' has no plan before its fit: the sweep holds what each fit's dry
    run states (the range and the model), fits them as plain fits and charges once."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, (2000, 3))
    y = X[:, 0] + 0.1 * rng.normal(size=2000)
    acc = dp.BudgetAccountant(epsilon=3.0, delta=1e-4)
    est = dp.PrivateLinearRegressor(label_range="private", delta=1e-5, accountant=acc)
    sw = epsilon_sweep(est, X, y, [0.5, 1.0], random_state=3)
    assert [(s.epsilon, s.delta) for s in acc.spends] == [(sw.certificate.epsilon,
                                                          sw.certificate.delta)]
    assert sw.certificate.epsilon == pytest.approx(1.5)
    assert all(len(row[0].label_range_) == 2 and len(row[0].certificate_.parts) == 2
               for row in sw.estimators)
    assert not hasattr(sw, "seconds")  # no timing of the private fits is kept


def test_noisy_gd_shares_one_template_across_the_sweep():
    X, y = _data()
    est = dp.NoisyGradientDescent(epsilon=1.0, radius=10.0, steps=5, delta=1e-5)
    sw = epsilon_sweep(est, X, y, [1.0, 2.0], runs=2, random_state=0)
    assert sw.templates_built == 1  # the clipped rows do not depend on epsilon
    assert sw.score(X, y).shape == (2, 2)
    assert [[c.epsilon <= e + 1e-12 for c in row]
            for row, e in zip(sw.certificates, [1.0, 2.0], strict=True)] == [[True] * 2] * 2


@pytest.mark.parametrize("kwargs, match", [
    ({"epsilons": []}, "empty"),
    ({"epsilons": [1.0, 0.0]}, "epsilons"),
    ({"epsilons": [1.0, -1.0]}, "epsilons"),
    ({"epsilons": [math.nan]}, "epsilons"),
    ({"epsilons": 1.0}, "sequence"),
    ({"epsilons": [1.0], "runs": 0}, "runs"),
    ({"epsilons": [1.0], "warm_start": "yes"}, "warm_start"),
    ({"epsilons": {0.5: 3}}, "order of the sweep.*Got a dict"),
    ({"epsilons": {0.5, 1.0}}, "order of the sweep.*Got a set"),
])
def test_bad_sweep_arguments(kwargs, match):
    X, y = _data()
    with pytest.raises(ParameterError, match=match):
        epsilon_sweep(dp.PrivateLogisticRegression(), X, y, **kwargs)


def test_estimator_without_epsilon_is_refused():
    """A pipeline too: it has no epsilon of its own, so the sweep never fits its steps."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    X, y = _data()
    for estimator in (LogisticRegression(),
                      make_pipeline(FunctionTransformer(np.tanh), dp.PrivateLogisticRegression())):
        with pytest.raises(ParameterError, match="'epsilon' parameter"):
            epsilon_sweep(estimator, X, y, [1.0])


def test_a_class_is_refused_by_name():
    X, y = _data(50)
    with pytest.raises(ParameterError, match=r"pass an instance, PrivateLogisticRegression\(\)"):
        epsilon_sweep(dp.PrivateLogisticRegression, X, y, [1.0])


class _KeepsWhatItSees(dp.PrivateLogisticRegression):
    """A class of the user's whose ``fit_prepared`` (the method a sweep calls) keeps a mark."""

    def fit_prepared(self, *args, **kwargs):
        self.seen_ = True
        return super().fit_prepared(*args, **kwargs)


def test_a_learner_of_the_users_derived_from_a_shipped_one_is_refused_before_any_fit():
    """The sweep composes its fits' certificates, each dpconvex's fit as shipped: a class of
    the user's derived from a shipped private estimator (here one whose ``fit_prepared``, the
    method a sweep calls, is its own) is refused by name, nothing fitted or charged."""
    X, y = _data(50)
    learner = _KeepsWhatItSees(accountant=dp.BudgetAccountant(epsilon=10.0))
    with pytest.raises(dp.PrivacyError, match="a class of the user's derived from"):
        epsilon_sweep(learner, X, y, [0.5, 1.0])
    assert not hasattr(learner, "seen_")
    assert learner.accountant.spent == (0.0, 0.0)


def test_a_regressor_sweep_scores_dask_rows_as_it_scores_rows_in_memory():
    """On Dask rows a regressor's score is its R² (predicted per chunk), not a count of
    predictions that differ from the labels."""
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    y = X @ np.array([0.5, -0.2, 0.1]) + 0.05 * rng.normal(size=400)
    sweep = dp.epsilon_sweep(dp.PrivateHuberRegressor(label_range=(-1, 1)), X, y,
                             epsilons=[1.0, 4.0], random_state=0)
    in_memory = sweep.score(X, y)
    assert np.all(in_memory > 0.5)
    np.testing.assert_allclose(sweep.score(da.from_array(X, chunks=100), y), in_memory,
                               rtol=1e-12)


def test_the_sweeps_certificate_states_the_label_set_its_fits_read():
    """As a search's does: a set read from y is named at the top, not only in the parts."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2)) * 0.3
    y = (X[:, 0] > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)
        sweep = dp.epsilon_sweep(dp.PrivateLogisticRegression(), X, y, [0.5, 1.0], random_state=0)
    assert sweep.certificate.label_source == sweep.certificates[0][0].label_source
    assert sweep.certificate.label_source.source == "inferred"


def test_a_sweep_warns_once_of_a_label_set_read_from_y_before_its_hold():
    """No public label set: the sweep's one PrivacyLeakWarning comes before the hold of the
    plans that read the set from y (a third label makes noisy GD one-vs-rest, whose δ the
    ledger refuses), and a front door inside the sweep adds none of its own per fit."""
    rng = np.random.default_rng(0)
    X = 0.4 * rng.normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(int)
    y[0] = 2
    sweeps = [
        (lambda: epsilon_sweep(dp.NoisyGradientDescent(epsilon=1.0, steps=5, accountant=dp.BudgetAccountant(
            10.0, 1.5 / 40**2)), X, y, epsilons=[1.0], random_state=0), BudgetError),
        (lambda: epsilon_sweep(dp.PrivateClassifier(), X, y, epsilons=[0.5, 1.0, 2.0], random_state=0), None)]
    for sweep, refusal in sweeps:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if refusal is None:
                sweep()
            else:
                with pytest.raises(refusal, match="reserve"):
                    sweep()
        leaks = [str(w.message) for w in caught if w.category is dp.PrivacyLeakWarning]
        assert len(leaks) == 1
        # the front door's own text: the set read from y also chooses its learner
        assert ("also chooses the learner" in leaks[0]) == (refusal is None)


def _unit_rows(n=300):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 3))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return X, (X[:, 0] > 0).astype(int)


def test_a_sweep_on_a_drafted_schema_charges_what_its_fits_charge():
    """draft_schema charged the schema's ε once: the sweep charges the models' ε only (a plain
    fit's charge), states the schema once in its certificate, and a sweep that does not fit in
    what is left is refused before any fit."""
    import pandas as pd

    rng = np.random.default_rng(0)
    table = pd.DataFrame({"a": rng.normal(size=300), "b": rng.uniform(0, 10, 300)})
    y = (table.a > 0).astype(int).to_numpy()
    acc = dp.BudgetAccountant(epsilon=2.0)
    schema = dp.draft_schema(table, epsilon=0.5, accountant=acc, random_state=0)
    door = dp.PrivateClassifier(classes=[0, 1], schema=schema, accountant=acc)
    sweep = epsilon_sweep(door, table, y, [0.5, 0.5], random_state=0)
    assert acc.spent[0] == pytest.approx(1.5) and len(acc.spends) == 2
    assert sweep.certificate.epsilon == pytest.approx(1.5)
    assert [part.epsilon for part in sweep.certificate.parts] == [0.5, pytest.approx(1.0)]
    with collect_diagnostics() as diag, pytest.raises(BudgetError, match="reserve"):
        epsilon_sweep(door, table, y, [0.5, 0.5], random_state=0)
    assert not diag.notes and acc.spent[0] == pytest.approx(1.5)


@pytest.mark.parametrize("search", ["grid", "random"])
def test_a_sweep_of_searches_holds_its_whole_budget_and_hands_back_the_ledger(search):
    """The sweep holds every search's (ε, δ) before any data are read (a sum that does not fit:
    refused, nothing charged), charges the sum once, and its models carry the ledger given."""
    X, y = _unit_rows()
    extra = {"mean_runs": 2} if search == "random" else {}
    tuner = dp.PrivateGridSearch if search == "grid" else dp.PrivateRandomSearch
    acc = dp.BudgetAccountant(epsilon=1.0)
    refused = tuner(dp.PrivateLogisticRegression(), {"lam": [0.1, 1.0]}, epsilon=1.0, classes=[0, 1],
                    accountant=acc, **extra)
    with pytest.raises(BudgetError, match="reserve"):
        epsilon_sweep(refused, X, y, [0.5, 0.8], random_state=0)
    assert acc.spent == (0.0, 0.0) and not acc.spends
    acc = dp.BudgetAccountant(epsilon=3.0)
    base = dp.PrivateLogisticRegression(accountant=acc)
    sweep = epsilon_sweep(tuner(base, {"lam": [0.1, 1.0]}, epsilon=1.0, classes=[0, 1], **extra),
                          X, y, [0.5, 0.8], random_state=0)
    assert len(acc.spends) == 1 and acc.spent[0] == pytest.approx(sweep.certificate.epsilon)
    assert sweep.certificate.epsilon <= 1.3
    model = sweep.estimators[1][0]
    assert model.estimator.accountant is acc and base.accountant is acc
    model.best_estimator_.fit(X, y)  # a refit is a new release, charged
    assert len(acc.spends) == 2


def test_a_sweeps_total_delta_of_at_least_one_over_n_is_warned_and_stated():
    """Each fit's δ is below 1/n, their sum is not: the sweep warns once and its certificate
    states it, as a single fit's hold does."""
    X, y = _unit_rows()
    gd = dp.NoisyGradientDescent(steps=5, delta=0.002, classes=[0, 1])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sweep = epsilon_sweep(gd, X, y, [0.5, 1.0], random_state=0)
    large = [str(w.message) for w in caught if "at least 1/n" in str(w.message)]
    assert len(large) == 1 and large[0].startswith("epsilon_sweep(NoisyGradientDescent): delta = 0.004")
    assert sweep.certificate.line(DeltaRows) == DeltaRows(0.004, 300)
    assert all(c.line(DeltaRows) is None for fits in sweep.certificates for c in fits)


@pytest.mark.parametrize("make", [
    lambda: dp.PrivateQuantileRegressor(label_range=(0, 10), smoothing="auto", lam=0.05,
                                        label_center="range"),
    lambda: dp.PrivateLinearRegressor(loss=lambda z, u: cp.abs(z - u), label_range=(0, 10), lam=0.05,
                                      label_center="range"),
])
def test_sweep_smooths_each_fit_at_its_own_epsilons_half_width(make):
    """smoothing="auto" chooses h from ε: with Λ given, every fit of the sweep minimizes the loss
    smoothed at its own ε's h (its certificate states one h, and the release is the fit's)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3)) / 3
    y = np.clip(5 + 4 * X[:, 0] + rng.normal(size=300), 0, 10)
    est = make()
    eps = [50.0, 0.05]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sw = epsilon_sweep(est, X, y, eps, random_state=0)
        ref = _independent(est, X, y, eps, 1, 0)
    assert sw.templates_built == 2
    for (fitted,), (alone,) in zip(sw.estimators, ref, strict=True):
        stated = [line for line in fitted.certificate_.lines if isinstance(line, SmoothingRule)]
        assert len(stated) == 1 and stated[0].h > 0
        assert str(fitted.certificate_) == str(alone.certificate_)
        assert np.max(np.abs(_theta(fitted) - _theta(alone))) <= 2e-6 / 0.05


def test_a_sweep_on_rows_that_carry_their_ranges_states_what_a_fit_states():
    """Rows that carry their public feature ranges (RangedRows) are fitted, in a sweep as in a
    fit, by a clone that takes them: each model's certificate is a plain fit's at its epsilon
    (a plan made from the rows' ranges is never prepared by an estimator without them)."""
    from dpconvex.data.ranged_rows import RangedRows

    rng = np.random.default_rng(0)
    X = rng.uniform(0.0, 5.0, size=(60, 3))
    y = (X[:, 0] > 2.5).astype(int)
    rows = RangedRows(X, np.array([[0.0, 5.0]] * 3))
    sweep = dp.epsilon_sweep(dp.PrivateGaussianNB(classes=[0, 1]), rows, y,
                             epsilons=[1.0, 2.0], random_state=0)
    for epsilon, models in zip((1.0, 2.0), sweep.estimators, strict=True):
        fit = dp.PrivateGaussianNB(classes=[0, 1], epsilon=epsilon, random_state=0).fit(rows, y)
        assert models[0].certificate_.to_dict() == fit.certificate_.to_dict()


@pytest.mark.parametrize("search", ["grid", "random"])
def test_a_sweep_of_searches_over_a_step_outside_dpconvex_is_refused_or_states_the_vouch(search):
    """The search's vouch= governs its pipeline: without it the sweep is refused by the
    search's PrivacyError, nothing charged; with vouch="preprocessing" the sweep's own
    certificate states the vouched steps among its conditions, as the search's does."""
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import FunctionTransformer

    from dpconvex.errors import PrivacyError
    from dpconvex.privacy.certificate import PREPROCESSING, UncheckedSteps

    X, y = _unit_rows(60)
    tuner = dp.PrivateGridSearch if search == "grid" else dp.PrivateRandomSearch
    extra = {"mean_runs": 2} if search == "random" else {}
    pipe = Pipeline([("squash", FunctionTransformer(np.tanh)),
                     ("clf", dp.PrivateLogisticRegression())])
    acc = dp.BudgetAccountant(epsilon=5.0)
    refused = tuner(pipe, {"clf__lam": [0.1, 1.0]}, epsilon=1.0, classes=[0, 1],
                    accountant=acc, **extra)
    with pytest.raises(PrivacyError, match=r"'squash' \(FunctionTransformer\).*"
                                           r"vouch=\('preprocessing',\) to Private"):
        epsilon_sweep(refused, X, y, [0.5, 0.8], random_state=0)
    assert acc.spent == (0.0, 0.0) and not acc.spends
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)  # small n: the noise warning
        sweep = epsilon_sweep(clone(refused).set_params(vouch="preprocessing"), X, y,
                              [0.5, 0.8], random_state=0)
    whole = sweep.certificate
    assert [c.unverified for c in whole.conditions if c.unverified] == [PREPROCESSING]
    line = whole.line(UncheckedSteps)
    assert line.vouched and line.steps == (("squash", "FunctionTransformer"),)
    assert len(acc.spends) == 1
