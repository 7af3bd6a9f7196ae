"""PrivateGridSearch (CMS Alg. 4): exponential-mechanism frequencies, splits, composition."""

from __future__ import annotations

import pickle
import warnings
from typing import Any

import numpy as np
import pytest
from _helpers import certificate_facts, fit_drawing_from
from scipy.stats import chi2
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils.estimator_checks import parametrize_with_checks

from dpconvex import (
    BudgetAccountant,
    BudgetError,
    Certificate,
    NoisyGradientDescent,
    PrivateClassifier,
    PrivateGridSearch,
    PrivateLargeMarginGaussian,
    PrivateLogisticRegression,
    PrivateRandomSearch,
)
from dpconvex.data.validation import INFERRED
from dpconvex.errors import (
    DataValidationError,
    ParameterError,
    PrivacyError,
    PrivacyLeakWarning,
)
from dpconvex.estimators.kernels import RandomFourierFeatures
from dpconvex.privacy.certificate import UncheckedSteps

SEEN: list[np.ndarray] = []


class FixedMistakes(ClassifierMixin, BaseEstimator):
    """Test double: ignores its training data and makes exactly ``k`` mistakes on any
    set of all-ones labels (predicts 0 on the first k rows, 1 elsewhere)."""

    def __init__(self, k: int = 0, epsilon: float = 1.0, random_state: Any = None,
                 record: bool = False):
        self.k = k
        self.epsilon = epsilon
        self.random_state = random_state
        self.record = record

    def fit(self, X, y):
        if self.record:
            SEEN.append(np.asarray(X)[:, 0].astype(int))
        self.classes_ = np.array([0, 1])
        self.certificate_ = Certificate("test double", self.epsilon, self.epsilon)
        return self

    def predict(self, X):
        out = np.ones(len(X), dtype=int)
        out[: self.k] = 0
        return out


@pytest.mark.slow
def test_exponential_mechanism_frequencies():
    # Selection probability must be ∝ exp(-ε z_i / 2) (CMS Alg. 4, McSherry-Talwar).
    # N independent searches; Pearson chi-square with m - 1 = 4 degrees of freedom,
    # rejected above its 1 - 1e-3 quantile: false-alarm rate 1e-3 (the seed is fixed,
    # so the outcome is deterministic).
    ks = [0, 1, 2, 4, 8]
    eps = 0.5
    n_runs = 2000
    X = np.zeros((60, 1))
    y = np.ones(60, dtype=int)
    rng = np.random.default_rng(12345)
    counts = np.zeros(len(ks))
    for _ in range(n_runs):
        gs = PrivateGridSearch(FixedMistakes(), {"k": ks}, vouch="learner", epsilon=eps)
        counts[fit_drawing_from(gs, rng, X, y).best_index_] += 1
    w = np.exp(-eps * np.array(ks) / 2)
    expected = n_runs * w / w.sum()
    stat = float(np.sum((counts - expected) ** 2 / expected))
    assert stat < chi2.ppf(1 - 1e-3, len(ks) - 1), (counts, expected)
    # power check: the uniform or the exp(-ε z) (factor 2 forgotten) laws are rejected
    for wrong in [np.ones(len(ks)), np.exp(-eps * np.array(ks))]:
        e2 = n_runs * wrong / wrong.sum()
        assert float(np.sum((counts - e2) ** 2 / e2)) > chi2.ppf(1 - 1e-3, len(ks) - 1)


def test_parts_are_disjoint_random_and_cover_the_data():
    SEEN.clear()
    n, m = 103, 4
    X = np.arange(n, dtype=float).reshape(-1, 1)
    y = np.ones(n, dtype=int)
    gs = PrivateGridSearch(FixedMistakes(record=True), {"k": list(range(m))}, epsilon=1.0,
                           vouch="learner", random_state=0).fit(X, y)
    assert len(SEEN) == m
    used = np.concatenate(SEEN)
    assert len(set(used.tolist())) == used.size  # disjoint
    sizes = gs.part_sizes_
    assert len(sizes) == m + 1 and sum(sizes) == n and max(sizes) - min(sizes) <= 1
    assert [s.size for s in SEEN] == sizes[:m]
    assert not np.array_equal(SEEN[0], np.arange(sizes[0]))  # a random permutation
    assert not hasattr(gs, "validation_mistakes_")  # private z_i are not stored


def test_search_sets_epsilon_and_composes_certificates():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1200, 3)) / 2
    y = (X[:, 0] - X[:, 1] > 0).astype(int)
    acc = BudgetAccountant(epsilon=1.0)
    est = PrivateLogisticRegression(epsilon=5.0)  # overridden by the search
    gs = PrivateGridSearch(est, {"lam": [1e-3, 1e-2, 1e-1]}, epsilon=0.4, random_state=1,
                           accountant=acc).fit(X, y)
    assert gs.best_estimator_.epsilon == 0.4
    cert = gs.certificate_
    assert cert.private and cert.all_hold
    assert cert.epsilon <= 0.4 and cert.epsilon == max(p.epsilon for p in cert.parts)
    assert len(cert.parts) == 4  # 3 candidates + the selection
    assert "exponential mechanism" in cert.parts[-1].mechanism
    assert acc.spent[0] == pytest.approx(cert.epsilon)  # charged once, not 3 times
    assert len(acc.spends) == 1
    assert gs.best_params_ == gs.candidates_[gs.best_index_]
    assert gs.score(X, y) > 0.7
    again = PrivateGridSearch(est, {"lam": [1e-3, 1e-2, 1e-1]}, epsilon=0.4, random_state=1)
    assert again.fit(X, y).best_index_ == gs.best_index_
    np.testing.assert_array_equal(again.best_estimator_.coef_, gs.best_estimator_.coef_)


def test_delta_of_candidates_is_carried():
    """The estimator's δ, one for every candidate (a grid holding δ is refused, below)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 2)) / 2
    y = (X[:, 0] > 0).astype(int)
    gd = NoisyGradientDescent(epsilon=1.0, delta=1e-6, steps=20, radius=2.0)
    gs = PrivateGridSearch(gd, {"radius": [0.5, 2.0]}, epsilon=0.5, random_state=0).fit(X, y)
    assert gs.certificate_.delta == 1e-6
    assert gs.certificate_.epsilon <= 0.5
    acc = BudgetAccountant(epsilon=10.0, delta=1e-7)
    with pytest.raises(BudgetError, match="delta"):
        PrivateGridSearch(gd, {"radius": [0.5, 2.0]}, epsilon=0.5, accountant=acc).fit(X, y)


def test_public_validation_selects_argmin_and_costs_training_only():
    X = np.zeros((40, 1))
    y = np.ones(40, dtype=int)
    Xp, yp = np.zeros((10, 1)), np.ones(10, dtype=int)
    gs = PrivateGridSearch(FixedMistakes(), {"k": [3, 1, 2, 1]}, epsilon=0.2, random_state=0,
                           vouch="learner", public_validation=(Xp, yp)).fit(X, y)
    assert gs.best_index_ == 1  # argmin, ties to the first
    np.testing.assert_array_equal(gs.validation_mistakes_, [3, 1, 2, 1])
    assert len(gs.part_sizes_) == 4 and sum(gs.part_sizes_) == 40
    assert gs.certificate_.epsilon == 0.2
    assert gs.certificate_.parts[-1].epsilon == 0.0
    with pytest.raises(ParameterError, match="public_validation"):
        PrivateGridSearch(FixedMistakes(), {"k": [1]}, vouch="learner", epsilon=1.0,
                          public_validation=Xp).fit(X, y)
    with pytest.raises(DataValidationError, match="X_val has 10 rows but y_val has 9 labels"):
        PrivateGridSearch(FixedMistakes(), {"k": [1]}, vouch="learner", epsilon=1.0,
                          public_validation=(Xp, yp[:9])).fit(X, y)


@pytest.mark.parametrize("outside", [7, "a"])
def test_public_validation_labels_outside_the_label_set_are_refused_before_any_fit(outside):
    """Every candidate would miss such a label alike, so the selection would read nothing from
    it: refused by name, nothing drawn or charged."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, (200, 3))
    y = (X[:, 0] > 0).astype(int)
    y_val = np.array(["a", "b"] * 5) if outside == "a" else np.array([outside, outside] + [0, 1] * 4)
    acc = BudgetAccountant(epsilon=1.0)
    with pytest.raises(DataValidationError, match="y_val of public_validation holds labels outside"):
        PrivateGridSearch(PrivateLogisticRegression(), {"lam": [0.01, 0.1]}, epsilon=1.0, classes=[0, 1],
                          random_state=0, accountant=acc, public_validation=(X[:10], y_val)).fit(X, y)
    assert acc.spent == (0.0, 0.0)


def test_pipeline_with_random_features():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(900, 2)) / np.sqrt(2)
    y = (np.linalg.norm(X, axis=1) < 0.45).astype(int)
    pipe = make_pipeline(RandomFourierFeatures(n_components=30),
                         PrivateLogisticRegression(data_norm=RandomFourierFeatures.data_norm))
    grid = {"randomfourierfeatures__gamma": [1.0, 4.0],
            "privatelogisticregression__lam": [1e-2, 1e-1]}
    gs = PrivateGridSearch(pipe, grid, epsilon=1.0, random_state=0).fit(X, y)
    assert gs.certificate_.epsilon <= 1.0
    assert gs.best_estimator_[-1].epsilon == 1.0
    assert gs.predict(X).shape == (900,)


HANDED: list[np.random.SeedSequence] = []


class ReleasedDraws(BaseEstimator):
    """Test double: a step that draws ``k`` numbers from the generator it is handed and keeps
    them (released, as random features are); the rows pass unchanged."""

    def __init__(self, k: int = 1, random_state: Any = None):
        self.k = k
        self.random_state = random_state

    def _fit_with(self, X, y, context):
        HANDED.append(context.noise.rng.bit_generator.seed_seq)
        self.draws_ = context.noise.rng.normal(size=self.k)
        return self

    def fit(self, X, y=None, *, context=None):
        assert context is not None, "a search fits its steps with the context it issues them"
        return self._fit_with(X, y, context)

    def transform(self, X):
        return X


@pytest.fixture
def shipped_draws(monkeypatch: pytest.MonkeyPatch) -> type:
    """:class:`ReleasedDraws` as a class dpconvex ships (a search hands its part's context to
    those only): named by a module of dpconvex for this test."""
    import dpconvex.estimators.kernels as kernels

    monkeypatch.setattr(ReleasedDraws, "__module__", kernels.__name__)
    monkeypatch.setattr(kernels, "ReleasedDraws", ReleasedDraws, raising=False)
    return ReleasedDraws


def test_a_steps_released_draws_and_the_learners_noise_come_from_separate_streams(shipped_draws):
    """Were they one generator's, the released draws would precede the secret noise in one
    PCG64 stream (whose state its outputs reveal): the learner's model would then move with
    the number of draws before it."""
    X, y = _binary()
    coefs = []
    for k in (1, 50):
        pipe = make_pipeline(shipped_draws(k), PrivateLogisticRegression())
        search = PrivateGridSearch(pipe, {"privatelogisticregression__lam": [0.01, 0.1]},
                                   epsilon=1.0, classes=[0, 1], random_state=0).fit(X, y)
        coefs.append((search.best_index_, search.best_estimator_[-1].coef_))
    assert coefs[0][0] == coefs[1][0]
    np.testing.assert_allclose(coefs[0][1], coefs[1][1], rtol=1e-12)


@pytest.mark.parametrize("search", [PrivateGridSearch, PrivateRandomSearch])
def test_an_unseeded_searchs_released_draws_come_from_their_own_entropy(search, shipped_draws):
    """SeedSequence's mixing is invertible: released outputs of a stream spawned from the
    search's root would lead back to that root, and from it to every learner's noise. Unseeded,
    a step whose draws are released is handed a root of fresh entropy; seeded, a stream derived
    from the seed (reproducible; a seeded fit is as secret as its seed)."""
    X, y = _binary()
    extra = {"mean_runs": 2} if search is PrivateRandomSearch else {}
    for seed in (None, 0):
        HANDED.clear()
        search(make_pipeline(shipped_draws(3), PrivateLogisticRegression()),
               {"privatelogisticregression__lam": [0.01, 0.1]}, epsilon=1.0, classes=[0, 1],
               random_state=seed, **extra).fit(X, y)
        assert HANDED and all((ss.spawn_key == ()) == (seed is None) for ss in HANDED)
        assert len({tuple(ss.generate_state(4)) for ss in HANDED}) == len(HANDED)


def _binary(n: int = 300) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 3))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return X, (X[:, 0] > 0).astype(int)


@pytest.mark.parametrize("search", [PrivateGridSearch, PrivateRandomSearch])
@pytest.mark.parametrize("in_pipeline", [False, True])
def test_the_estimators_ledger_is_charged_the_whole_search(search, in_pipeline):
    # a ledger given to the wrapped estimator only is the search's: charged once with the
    # search's (epsilon, delta), refused before the data are read (NaN rows: never checked)
    X, y = _binary()
    extra = {"mean_runs": 2} if search is PrivateRandomSearch else {}

    def build(ledger: BudgetAccountant) -> Any:
        est = PrivateLogisticRegression(accountant=ledger)
        key = "lam"
        if in_pipeline:
            est, key = make_pipeline(FunctionTransformer(), est), "privatelogisticregression__lam"
        return search(est, {key: [0.01, 0.1]}, epsilon=1.0, classes=[0, 1], random_state=0,
                      vouch="preprocessing", **extra)

    small = BudgetAccountant(0.5)
    with pytest.raises(BudgetError, match="over the budget"):
        build(small).fit(np.full_like(X, np.nan), y)
    assert small.spent == (0.0, 0.0)
    ledger = BudgetAccountant(2.0)
    fitted = build(ledger).fit(X, y)
    assert len(ledger.spends) == 1 and ledger.spent[0] == fitted.certificate_.epsilon
    shared = BudgetAccountant(2.0)  # the same ledger on both: one charge
    build(shared).set_params(accountant=shared).fit(X, y)
    assert len(shared.spends) == 1
    with pytest.raises(ParameterError, match="same ledger"):
        build(BudgetAccountant(2.0)).set_params(accountant=BudgetAccountant(2.0)).fit(X, y)


@pytest.mark.parametrize("search", [PrivateGridSearch, PrivateRandomSearch])
def test_a_step_that_learns_from_its_rows_is_refused_and_charges_nothing(search):
    """A scaler fitted on a candidate's part would be released inside best_estimator_ (its
    mean_ an exact statistic of the part): refused by the step's public kind. A stateless map
    outside dpconvex is refused unless the caller vouches for it ("preprocessing"), then
    fitted."""
    import tempfile

    from sklearn.preprocessing import Normalizer, StandardScaler

    X, y = _binary()
    extra = {"mean_runs": 2} if search is PrivateRandomSearch else {}

    def build(step: Any, ledger: BudgetAccountant, **vouch: Any) -> Any:
        return search(make_pipeline(step, PrivateLogisticRegression()),
                      {"privatelogisticregression__lam": [0.01, 0.1]}, epsilon=1.0,
                      classes=[0, 1], random_state=0, accountant=ledger, **vouch, **extra)

    ledger = BudgetAccountant(5.0)
    for step in (StandardScaler(), make_pipeline(StandardScaler())):  # nested: the same
        with pytest.raises(PrivacyError, match=rf"{search.__name__}.fit: the pipeline step "
                                               r"'standardscaler' \(StandardScaler\) is fitted on"):
            build(step, ledger, vouch="preprocessing").fit(X, y)
    cached = build(Normalizer(), ledger, vouch="preprocessing")  # scikit-learn's cache fits
    cached.estimator.set_params(memory=tempfile.mkdtemp())
    with pytest.raises(PrivacyError, match="memory="):
        cached.fit(X, y)
    with pytest.raises(PrivacyError, match=r"'normalizer' \(Normalizer\) are outside dpconvex.*"
                                           r"vouch=\('preprocessing',\)"):
        build(Normalizer(), ledger).fit(X, y)
    assert ledger.spent == (0.0, 0.0)
    for step, name in ((Normalizer(), "Normalizer"), (FunctionTransformer(np.tanh), "FunctionTransformer"),
                       (make_pipeline(FunctionTransformer(np.tanh)), "FunctionTransformer")):  # nested
        fitted = build(step, ledger, vouch="preprocessing").fit(X, y)
        learnt = {key for key in vars(fitted.best_estimator_[0]) if key.endswith("_")}
        assert learnt <= {"n_features_in_"}  # the public shape only
        # that it maps each record alone is the user's: vouched for, by each candidate's fit
        line = UncheckedSteps(((name.lower(), name),), vouched=True)
        stated = _lines(fitted.certificate_, UncheckedSteps)
        assert stated and set(stated) == {line}
        assert fitted.certificate_.line(UncheckedSteps) == line  # at the top level too
        assert line.condition() in fitted.certificate_.conditions


class _Center(BaseEstimator):
    """Test double: a step of the user's whose fit declares ``context=`` and keeps the mean of
    the rows (an exact statistic, released inside best_estimator_ were it fitted)."""

    def fit(self, X, y=None, context=None):
        self.mean_ = np.asarray(X, float).mean(axis=0)
        return self

    def transform(self, X):
        return np.asarray(X, float) - self.mean_


class _UsersFeatures(RandomFourierFeatures):
    """A subclass of the user's of a step dpconvex ships: not the class dpconvex ships."""


def _replaced_fit() -> RandomFourierFeatures:
    step = RandomFourierFeatures(n_components=8)
    step.fit = lambda X, y=None, context=None: step  # on the instance: not the class's fit
    return step


@pytest.mark.parametrize("search", [PrivateGridSearch, PrivateRandomSearch])
@pytest.mark.parametrize("step", [_Center, _UsersFeatures], ids=["context= declared", "subclass"])
def test_a_step_is_handed_the_context_only_as_a_class_dpconvex_ships(search, step):
    """Declaring context= in its fit does not make a step dpconvex's: the step of the user's is
    checked as any step outside dpconvex is (refused for its requires_fit tag) and nothing is
    charged. Nothing refused here would be released by a check that passed."""
    X, y = _binary()
    extra = {"mean_runs": 2} if search is PrivateRandomSearch else {}
    ledger = BudgetAccountant(5.0)
    tuner = search(make_pipeline(step(), PrivateLogisticRegression()),
                   {"privatelogisticregression__lam": [0.01, 0.1]}, epsilon=1.0, classes=[0, 1],
                   random_state=0, accountant=ledger, vouch="preprocessing", **extra)
    with pytest.raises(PrivacyError, match="is fitted on the rows"):
        tuner.fit(X, y)
    assert ledger.spent == (0.0, 0.0)


def test_a_shipped_step_with_a_method_replaced_on_the_instance_is_not_handed_the_context():
    """A search fits clones (which drop what was set on the instance); a meta-estimator's part
    fitted as given (fit_with) is checked as a step outside dpconvex."""
    from dpconvex.estimators.base import NO_CONTEXT, fit_with

    X, y = _binary()
    pipe = make_pipeline(_replaced_fit(), PrivateLogisticRegression(classes=[0, 1]))
    with pytest.raises(PrivacyError, match=r"'randomfourierfeatures' \(RandomFourierFeatures\) "
                                           "is fitted on the rows"):
        fit_with(pipe, X, y, NO_CONTEXT, caller="Demo.fit")
    assert not hasattr(pipe[-1], "coef_")


class _KeepsARow(PrivateLogisticRegression):
    """A learner of the user's: the shipped fit, then the first row kept on the model."""

    fits = 0

    def fit(self, X, y, **kwargs):
        type(self).fits += 1
        super().fit(X, y, **kwargs)
        self.row0_ = np.asarray(X)[0].copy()
        return self


class _Unnoised(PrivateLogisticRegression):
    """A learner of the user's: the shipped fit, its coefficients then replaced by exact ones
    (a least-squares fit of the labels: not private)."""

    def fit(self, X, y, **kwargs):
        super().fit(X, y, **kwargs)
        self.coef_ = np.linalg.lstsq(np.asarray(X), np.asarray(y, float), rcond=None)[0][None]
        return self


class _Twice(PrivateLogisticRegression):
    """A learner of the user's: two releases averaged, where the certificate counts one."""

    def fit(self, X, y, **kwargs):
        super().fit(X, y, **kwargs)
        first = self.coef_.copy()
        super().fit(X, y, **kwargs)
        self.coef_ = (self.coef_ + first) / 2
        return self


@pytest.mark.parametrize("search", [PrivateGridSearch, PrivateRandomSearch])
@pytest.mark.parametrize("learner", [_KeepsARow, _Unnoised, _Twice])
@pytest.mark.parametrize("in_pipeline", [False, True], ids=["bare", "pipeline"])
def test_a_learner_of_the_users_derived_from_a_shipped_one_is_refused(search, learner,
                                                                      in_pipeline):
    """The search's certificate composes each candidate's fit as the shipped class's release;
    a subclass's fit (one that keeps a row, replaces the noised coefficients, or releases
    twice) is nobody's check: refused by name before any candidate is fitted, in fit and in
    certify, nothing charged."""
    X, y = _binary()
    extra = {"mean_runs": 2} if search is PrivateRandomSearch else {}
    key = "lam"
    estimator: Any = learner()
    if in_pipeline:
        estimator = make_pipeline(FunctionTransformer(np.tanh), estimator)
        key = f"{estimator.steps[-1][0]}__lam"
    ledger = BudgetAccountant(5.0)
    _KeepsARow.fits = 0
    tuner = search(estimator, {key: [0.01, 0.1]}, epsilon=1.0, classes=[0, 1], random_state=0,
                   accountant=ledger, vouch="preprocessing", **extra)
    named = (rf"the pipeline's learner '{estimator.steps[-1][0]}' \({learner.__name__}\)"
             if in_pipeline else rf"the learner {learner.__name__}")
    refusal = (rf"^{search.__name__}\.%s: {named} is a class of the user's derived from "
               r"dpconvex's PrivateLogisticRegression.*Use PrivateLogisticRegression as "
               r"dpconvex ships it")
    with pytest.raises(PrivacyError, match=refusal % "fit"):
        tuner.fit(X, y)
    with pytest.raises(PrivacyError, match=refusal % "certify"):
        tuner.certify(X, y)
    assert ledger.spent == (0.0, 0.0) and _KeepsARow.fits == 0
    assert not hasattr(tuner, "best_estimator_")


@pytest.mark.parametrize("search", [PrivateGridSearch, PrivateRandomSearch])
def test_a_learner_of_the_users_among_the_grids_values_is_refused_before_any_fit(search):
    """A learner of the user's given as a value of the grid (a pipeline's step) is refused as
    the estimator is, before any candidate is fitted: nothing charged, whichever candidates a
    random search would draw."""
    X, y = _binary()
    extra = {"mean_runs": 2} if search is PrivateRandomSearch else {}
    ledger = BudgetAccountant(5.0)
    _KeepsARow.fits = 0
    shipped = PrivateLogisticRegression()
    tuner = search(make_pipeline(shipped), {"privatelogisticregression": [shipped, _KeepsARow()]},
                   epsilon=1.0, classes=[0, 1], random_state=0, accountant=ledger, **extra)
    with pytest.raises(PrivacyError, match=r"\(_KeepsARow\) is a class of the user's derived"):
        tuner.fit(X, y)
    assert ledger.spent == (0.0, 0.0) and _KeepsARow.fits == 0


@pytest.mark.parametrize("search", [PrivateGridSearch, PrivateRandomSearch])
@pytest.mark.parametrize("in_pipeline", [False, True], ids=["bare", "pipeline"])
def test_a_learner_of_a_class_dpconvex_does_not_ship_is_refused_unless_vouched(search,
                                                                               in_pipeline):
    """A learner of the user's own class (not derived from dpconvex) sets its certificate_
    itself, while its fit reads the rows freely: the search would certify the user's own
    statement. Refused by name before any candidate is fitted (in fit and in certify), nothing
    charged; with vouch="learner" fitted, its certificate stating that condition as declared
    and vouched for, not verified, at the top (a Pipeline's learner of the user's then meets
    the step checks, which refuse a step outside dpconvex fitted on the rows)."""
    X = np.arange(60, dtype=float).reshape(-1, 1)
    y = np.ones(60, dtype=int)
    extra = {"mean_runs": 2} if search is PrivateRandomSearch else {}
    estimator: Any = FixedMistakes(record=True)
    key = "k"
    if in_pipeline:
        estimator = make_pipeline(estimator)
        key = "fixedmistakes__k"
    ledger = BudgetAccountant(5.0)
    SEEN.clear()
    tuner = search(estimator, {key: [0, 1]}, epsilon=1.0, classes=[0, 1], random_state=0,
                   accountant=ledger, **extra)
    refusal = (rf"^{search.__name__}\.%s: the learner FixedMistakes is not a class dpconvex "
               r"ships, .* pass vouch=\('learner',\) to vouch that its fit releases only what "
               r"its certificate_ states")
    with pytest.raises(PrivacyError, match=refusal % "fit"):
        tuner.fit(X, y)
    with pytest.raises(PrivacyError, match=refusal % "certify"):
        tuner.certify(X, y)
    assert SEEN == [] and ledger.spent == (0.0, 0.0)
    assert not hasattr(tuner, "best_estimator_")

    tuner.set_params(vouch="learner")
    if in_pipeline:  # its last step is then a step outside dpconvex fitted on the rows
        with pytest.raises(PrivacyError, match="'fixedmistakes' .* is fitted on the rows"):
            tuner.fit(X, y)
        assert SEEN == [] and ledger.spent == (0.0, 0.0)
        return
    fitted = tuner.fit(X, y)
    assert SEEN and ledger.spent == (1.0, 0.0)
    declared = [c for c in fitted.certificate_.conditions if c.unverified == "learner"]
    assert len(declared) == 1 and declared[0].vouched and declared[0].holds
    assert "FixedMistakes is not a class dpconvex ships" in declared[0].detail
    assert any(line.startswith("vouched for by the caller (vouch='learner'): the learner "
                               "FixedMistakes") for line in fitted.certificate_.assumptions)


@pytest.mark.parametrize("search", [PrivateGridSearch, PrivateRandomSearch])
def test_a_shipped_learner_states_no_declared_learner(search):
    """A learner dpconvex ships is checked by dpconvex: no vouch asked, nothing declared."""
    X, y = _binary()
    extra = {"mean_runs": 2} if search is PrivateRandomSearch else {}
    tuner = search(PrivateLogisticRegression(), {"lam": [0.01, 0.1]}, epsilon=1.0,
                   classes=[0, 1], random_state=0, **extra)
    for certificate in (tuner.certify(X, y), tuner.fit(X, y).certificate_):
        assert all(c.unverified != "learner" for c in certificate.conditions)


def test_an_epsilon_sweep_states_a_users_models_certificate_as_declared():
    """An ε sweep fits a model of the user's by its own fit (as a direct fit does, nothing
    charged): its certificate states the fits' certificate_ as the model's own statement,
    not verified; a swept search over such a learner asks its own vouch, stated at the top."""
    from dpconvex import epsilon_sweep

    X, y = np.zeros((60, 1)), np.ones(60, dtype=int)
    declared = [c for c in epsilon_sweep(FixedMistakes(), X, y, [0.5, 1.0]).certificate.conditions
                if c.unverified == "learner"]
    assert len(declared) == 1 and not declared[0].vouched
    assert declared[0].how == "declared, not verified"
    search = PrivateGridSearch(FixedMistakes(), {"k": [0, 1]}, epsilon=1.0, classes=[0, 1])
    with pytest.raises(PrivacyError, match=r"^PrivateGridSearch\.fit: the learner FixedMistakes"):
        epsilon_sweep(search, X, y, [0.5, 1.0])
    swept = epsilon_sweep(search.set_params(vouch="learner"), X, y, [0.5, 1.0]).certificate
    assert [c.vouched for c in swept.conditions if c.unverified == "learner"] == [True]


def test_a_learner_of_the_users_is_refused_only_where_the_callers_guarantee_covers_it():
    """fit_with refuses a subclass of the user's where the caller vouches for what its part
    releases (a search: vouch= given); a run or an audit (vouch=None) fits it as its own
    model, its certificate the shipped fit's, stating that the class's own methods are not
    checked. A shipped instance with its fit replaced on the instance is refused by that
    name."""
    from dpconvex.estimators.base import NO_CONTEXT, fit_with, refuse_users_learner

    X, y = _binary()
    with pytest.raises(PrivacyError, match=r"^Demo\.fit: the learner _KeepsARow is a class of "
                                           "the user's"):
        fit_with(_KeepsARow(classes=[0, 1]), X, y, NO_CONTEXT, caller="Demo.fit", vouch=())
    own = fit_with(_KeepsARow(classes=[0, 1], random_state=0), X, y, NO_CONTEXT)
    assert own.certificate_.private  # the shipped fit's certificate; the row is the user's:
    np.testing.assert_allclose(own.row0_, X[0], rtol=1e-15)  # a copy of the first row
    # ... and the certificate says so; the shipped class's states no such line
    users = "the estimator is _KeepsARow, a class of the user's derived from dpconvex's "
    assert [line for line in own.certificate_.assumptions if line.startswith(users)]
    shipped = PrivateLogisticRegression(classes=[0, 1], random_state=0).fit(X, y)
    assert not [line for line in shipped.certificate_.assumptions
                if line.startswith("the estimator is")]
    replaced = PrivateLogisticRegression()
    replaced.fit = lambda X, y, context=None: replaced  # on the instance: not the class's fit
    with pytest.raises(PrivacyError, match="an instance of PrivateLogisticRegression with a "
                                           "method or property set on the instance"):
        refuse_users_learner(replaced, "Demo.fit")
    refuse_users_learner(make_pipeline(PrivateLogisticRegression()), "Demo.fit")  # shipped


@pytest.mark.parametrize("search", [PrivateGridSearch, PrivateRandomSearch])
def test_a_step_that_reads_the_whole_x_is_released_only_as_vouched(search):
    """A FunctionTransformer whose function reads every row (one record's size switches all
    rows off) is refused unless the caller vouches for "preprocessing"; vouched, the search's
    own certificate states the condition as vouched, not verified. A step dpconvex ships
    (RandomFourierFeatures) needs no vouch and states none."""
    X, y = _binary()
    extra = {"mean_runs": 2} if search is PrivateRandomSearch else {}

    def gate(rows: Any) -> np.ndarray:
        rows = np.asarray(rows, float)
        return rows * (np.abs(rows).max() > 5)

    def build(step: Any, **vouch: Any) -> Any:
        return search(make_pipeline(step, PrivateLogisticRegression()),
                      {"privatelogisticregression__lam": [0.01, 0.1]}, epsilon=1.0,
                      classes=[0, 1], random_state=0, **vouch, **extra)

    with pytest.raises(PrivacyError, match=rf"^{search.__name__}\.fit: .*'functiontransformer' "
                                           r"\(FunctionTransformer\) are outside dpconvex.*pass "
                                           rf"vouch=\('preprocessing',\) to {search.__name__}"):
        build(FunctionTransformer(gate)).fit(X, y)
    cert = build(FunctionTransformer(gate), vouch="preprocessing").fit(X, y).certificate_
    (vouched,) = [c for c in cert.conditions if c.unverified == "preprocessing"]
    assert vouched.vouched and vouched.holds and "vouched for by the caller" in vouched.how
    assert "vouched for by the caller (vouch='preprocessing')" in str(cert)
    shipped = build(RandomFourierFeatures(n_components=8, gamma=0.5)).fit(X, y).certificate_
    assert shipped.private and not _lines(shipped, UncheckedSteps)
    assert not [c for c in shipped.conditions if c.unverified]
    with pytest.raises(ParameterError, match=rf"'vouch' parameter of {search.__name__} must"):
        build(RandomFourierFeatures(n_components=8), vouch="curvature").fit(X, y)


def _lines(cert: Any, kind: type) -> list[Any]:
    """The typed lines of class ``kind`` a certificate and its parts state."""
    return [line for line in cert.lines if isinstance(line, kind)] + [
        line for part in cert.parts for line in _lines(part, kind)]


@pytest.mark.parametrize("search", [PrivateGridSearch, PrivateRandomSearch])
def test_a_regressor_is_refused_from_the_parameter(search):
    """The selection counts mistakes; a regressor's targets were checked as labels, and one
    target of 0.5 among whole numbers switched the fit to a refusal."""
    from dpconvex import PrivateHuberRegressor

    X, _ = _binary()
    ledger = BudgetAccountant(5.0)
    for y in (np.round(X[:, 0]), np.r_[0.5, np.round(X[1:, 0])]):
        with pytest.raises(ParameterError, match="must be a classifier"):
            search(PrivateHuberRegressor(label_range=(-1, 1)), {"lam": [0.01, 0.1]}, epsilon=1.0,
                   random_state=0, accountant=ledger).fit(X, y)
    assert ledger.spent == (0.0, 0.0)


@pytest.mark.parametrize("search", [PrivateGridSearch, PrivateRandomSearch])
def test_the_estimators_classes_are_the_searchs(search):
    X, y = _binary()
    extra = {"mean_runs": 2} if search is PrivateRandomSearch else {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)  # the set is not read from y
        fitted = search(PrivateLogisticRegression(classes=[0, 1]), {"lam": [0.01, 0.1]},
                        epsilon=1.0, random_state=0, **extra).fit(X, y)
    assert fitted.certificate_.label_source.source == "parameter"
    assert fitted.best_estimator_.classes == [0, 1]
    same = search(PrivateLogisticRegression(classes=[1, 0]), {"lam": [0.01, 0.1]}, epsilon=1.0,
                  classes=[0, 1], random_state=0, **extra)
    assert same.fit(X, y).best_estimator_.classes == [0, 1]  # the search's order
    other = search(PrivateLogisticRegression(classes=[0, 1]), {"lam": [0.01, 0.1]},
                   epsilon=1.0, classes=[0, 1, 2], random_state=0, **extra)
    for method in (other.fit, other.certify):
        with pytest.raises(ParameterError,
                           match=r"'classes' parameter of .* estimator's 'classes' lists, \[0, 1\]"):
            method(X, y)


@pytest.mark.parametrize("search", [PrivateGridSearch, PrivateRandomSearch])
def test_a_label_set_read_from_y_is_stated_so_by_the_selected_model(search):
    """classes=None: the set is read once from the whole y and handed to the candidates' fits;
    the selected model keeps the caller's parameters and states the set as read from y."""
    X, y = _binary(60)
    y[:2] = 2  # three labels: each candidate is one-vs-rest
    extra = {"mean_runs": 2} if search is PrivateRandomSearch else {}
    fitted = search(PrivateLogisticRegression(), {"lam": [0.01, 0.1]}, epsilon=3.0,
                    random_state=0, **extra)
    with pytest.warns(PrivacyLeakWarning) as shown:
        fitted.fit(X, y)
    assert sum(w.category is PrivacyLeakWarning for w in shown) == 1  # the search's, once
    best = pickle.loads(pickle.dumps(fitted.best_estimator_))
    assert best.get_params()["classes"] is None and "classes" not in repr(best)
    assert best.classes_.tolist() == [0, 1, 2]
    for certificate in (best.certificate_, fitted.certificate_):
        assert certificate_facts(certificate, "label_source") and all(
            source == INFERRED for source in certificate_facts(certificate, "label_source"))
        assert "given by the caller" not in str(certificate)
    with pytest.warns(PrivacyLeakWarning):
        dry = fitted.certify(X, y)
    assert all(source == INFERRED for source in certificate_facts(dry, "label_source"))


@pytest.mark.parametrize("search", [PrivateGridSearch, PrivateRandomSearch])
@pytest.mark.parametrize("candidate", [
    PrivateClassifier(safeguard=True), PrivateLogisticRegression(),
    PrivateLargeMarginGaussian(mechanism="centroid"),
])
def test_a_search_dry_run_states_the_label_sources_its_fit_states(search, candidate):
    """classes=None: the set read from y is handed to every candidate's dry run as to its
    fit, so no part of either states it as given by the caller (a safeguarded front door's
    learner included)."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (300, 3))
    y = (X[:, 0] > 0).astype(int) + (X[:, 1] > 0.5)
    extra = {"mean_runs": 2} if search is PrivateRandomSearch else {}
    made = search(candidate, {"data_norm": [1.0, 2.0]}, epsilon=3.0, random_state=0, **extra)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        dry, fitted = made.certify(X, y), made.fit(X, y).certificate_
    for certificate in (dry, fitted):
        sources = certificate_facts(certificate, "label_source")
        assert sources and all(source.source == "inferred" for source in sources)
    assert len(certificate_facts(dry, "label_source")) == len(
        certificate_facts(fitted, "label_source"))


@pytest.mark.parametrize("grid", [
    {"k": "012"}, {"k": []}, {"k": 3}, {"unknown": [1]}, {"epsilon": [0.1, 1.0]},
    {"random_state": [0, 1]}, [], {}, "k", [{"k": [1]}, 5], {"k": np.zeros((2, 2))},
])
def test_param_grid_validation(grid):
    with pytest.raises(ParameterError):
        PrivateGridSearch(FixedMistakes(), grid, vouch="learner",
                          epsilon=1.0).fit(np.zeros((20, 1)), np.ones(20))


@pytest.mark.parametrize("search", [PrivateGridSearch, PrivateRandomSearch])
@pytest.mark.parametrize("grid", [
    {"delta": [0.0, 0.5]}, {"epsilon": [0.1, 1.0]}, {"accountant": [None]},
    {"mechanism": ["gaussian_objective"], "delta": [1e-5]},
    {"privatelogisticregression__delta": [1e-5]},
])
def test_a_grid_that_holds_a_privacy_parameter_is_refused_with_what_to_do(search, grid):
    """A search that chose δ (or ε, or the ledger) would release the guarantee it chose."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 2)) / 2
    y = (X[:, 0] > 0).astype(int)
    model = PrivateLogisticRegression(classes=[0, 1])
    if any("__" in key for key in grid):
        model = make_pipeline(model)
    with pytest.raises(ParameterError, match=r"must not hold privacy parameters \('epsilon', 'delta', "
                       r"'accountant'\): .* Set epsilon on the search and delta \(or the accountant\) "
                       r"on the estimator, one value for every candidate"):
        search(model, grid, epsilon=1.0, random_state=0).fit(X, y)


def test_rejects_nonprivate_candidates_and_bad_inputs():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 2))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(PrivacyError, match="non-private"):
        PrivateGridSearch(PrivateLogisticRegression(mechanism="none"), {"lam": [0.1, 1.0]},
                          epsilon=1.0, random_state=0).fit(X, y)
    with pytest.raises(DataValidationError, match="parts"):
        PrivateGridSearch(FixedMistakes(), {"k": list(range(10))}, vouch="learner",
                          epsilon=1.0).fit(X[:15], y[:15])
    with pytest.raises(ParameterError, match="epsilon"):
        PrivateGridSearch(FixedMistakes(), {"k": [1]}, vouch="learner", epsilon=0).fit(X, y)
    with pytest.raises(ParameterError, match="epsilon"):
        PrivateGridSearch(make_pipeline(RandomFourierFeatures()), {"randomfourierfeatures__gamma":
                                                                   [1.0]}, epsilon=1).fit(X, y)


@pytest.mark.slow
@parametrize_with_checks([PrivateGridSearch(PrivateLogisticRegression(), {"lam": [0.01, 0.1]},
                                            epsilon=1.0, random_state=0)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("search", [PrivateGridSearch, PrivateRandomSearch])
def test_the_label_set_is_the_searchs_to_set_not_a_candidates(search):
    """Tuning ``classes`` met set_params' own TypeError (the search sets it on every candidate)."""
    X, y = np.zeros((20, 2)), np.arange(20) % 2
    with pytest.raises(ParameterError, match="'classes' cannot be tuned"):
        search(PrivateLogisticRegression(), {"classes": [[0, 1]]}, epsilon=1.0).fit(X, y)


class RefusesSeven(FixedMistakes):
    """Test double: its own set_params refuses k = 7 with a ParameterError of its own."""

    def set_params(self, **params):
        if params.get("k") == 7:
            raise ParameterError("RefusesSeven.set_params: k = 7 is this estimator's refusal.")
        return super().set_params(**params)


@pytest.mark.parametrize("search", [PrivateGridSearch, PrivateRandomSearch])
def test_a_candidate_that_cannot_be_made_is_blamed_on_what_failed(search):
    """The grid's value is named only where setting it fails: an estimator that cannot be
    cloned is the estimator's (a label set given as a generator by name), and a refusal the
    estimator raises reaches the caller as it is."""
    import threading

    X, y = _binary(40)
    extra = {"mean_runs": 2} if search is PrivateRandomSearch else {}
    uncloned = [
        (PrivateLogisticRegression(classes=(c for c in (0, 1))),
         r"estimator's 'classes' must be a list, tuple or array of labels, not an iterator"),
        (make_pipeline(FunctionTransformer(kw_args={"lock": threading.Lock()}),
                       PrivateLogisticRegression(classes=[0, 1])),
         r"'estimator' parameter of .* must be an estimator sklearn.clone copies .* cloning "
         r"Pipeline raised TypeError"),
    ]
    for model, message in uncloned:
        key = "lam" if isinstance(model, PrivateLogisticRegression) else \
            "privatelogisticregression__lam"
        with pytest.raises(ParameterError, match=message):
            search(model, {key: [0.1, 1.0]}, epsilon=1.0, random_state=0, **extra).fit(X, y)
    with pytest.raises(ParameterError, match=r"^RefusesSeven.set_params: k = 7 is this"):
        search(RefusesSeven(), {"k": [1, 7]}, vouch="learner", epsilon=1.0, **extra).fit(X, y)
    with pytest.raises(ParameterError, match=r"value 0 of 'lam' \(a generator\) cannot be set"):
        search(PrivateLogisticRegression(classes=[0, 1]), {"lam": [(v for v in [1.0])]},
               epsilon=1.0, **extra).fit(X, y)


@pytest.mark.parametrize("search", [PrivateGridSearch, PrivateRandomSearch])
def test_a_search_hands_a_pipeline_its_table_as_given(search):
    """A PublicEncoder step reads the categorical column: the search's parts are rows of
    the frame, not an array the search would refuse as text."""
    import pandas as pd

    import dpconvex as dp

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"age": rng.integers(18, 90, 200), "plan": rng.choice(["a", "b", "c"], 200)})
    y = ((df.age > 50) | (df.plan == "c")).astype(int).to_numpy()
    schema = dp.PublicSchema({"age": dp.Numeric(18, 100), "plan": dp.Categorical(["a", "b", "c"])})
    pipe = make_pipeline(dp.PublicEncoder(schema), PrivateLogisticRegression())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)
        fitted = search(pipe, {"privatelogisticregression__lam": [0.01, 0.1]}, epsilon=1.0,
                        classes=[0, 1], random_state=0).fit(df, y)
    assert fitted.predict(df.iloc[:5]).shape == (5,) and fitted.certificate_.epsilon <= 1.0


def test_only_a_pipeline_gets_its_table_as_given():
    """An estimator with a ``steps`` parameter is no pipeline: the search checks its frame up
    front (a NaN refused by the search's name, before any candidate reads its part)."""
    import pandas as pd

    import dpconvex as dp

    frame = pd.DataFrame(np.random.default_rng(0).normal(size=(60, 2)) * 0.3, columns=["a", "b"])
    frame.iloc[3, 0] = np.nan
    search = PrivateGridSearch(dp.NoisyGradientDescent(epsilon=1.0, steps=10), {"clip": [0.5, 1.0]},
                               epsilon=1.0, classes=[0, 1])
    with pytest.raises(dp.DataValidationError, match=r"^PrivateGridSearch\.fit: .*NaN"):
        search.fit(frame, np.arange(60) % 2)


def test_a_pipelines_public_validation_table_is_read_by_its_first_step():
    """A public X_val frame with a categorical column is scored by the pipeline's encoder (as the
    training rows are), its rows checked against y_val before any candidate is fitted."""
    import pandas as pd

    import dpconvex as dp

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"age": rng.integers(18, 90, 120), "plan": rng.choice(["a", "b"], 120)})
    y = ((df.age > 50) | (df.plan == "b")).astype(int).to_numpy()
    schema = dp.PublicSchema({"age": dp.Numeric(18, 100), "plan": dp.Categorical(["a", "b"])})
    pipe = make_pipeline(dp.PublicEncoder(schema), PrivateLogisticRegression())
    public = (df.iloc[:30].reset_index(drop=True), y[:30])
    search = PrivateGridSearch(pipe, {"privatelogisticregression__lam": [0.01, 0.1]}, epsilon=1.0,
                               classes=[0, 1], random_state=0, public_validation=public)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)
        fitted = search.fit(df, y)
    assert fitted.validation_mistakes_[fitted.best_index_] == np.sum(fitted.predict(public[0]) != y[:30])
    with pytest.raises(DataValidationError, match="X_val has 30 rows but y_val has 9 labels"):
        search.set_params(public_validation=(public[0], y[:9])).fit(df, y)
