"""The run's fit of a method's estimator (:func:`~dpconvex.runs.runner.fit_seeded`) fits a
``TransformedTargetRegressor`` itself, to hand its regressor the run's generator: the model it
leaves predicts as scikit-learn's own fit does; a tuned method's search gets the run's generator
and nothing is spawned from it for the parts inside the search. Fixed data and fixed seeds: the
noisy fits compared here draw the same noise, so no test here is statistical."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.compose import TransformedTargetRegressor
from sklearn.linear_model import Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler

import dpconvex as dp
from dpconvex._validation import NoiseSource
from dpconvex.estimators.base import NO_CONTEXT, fit_with
from dpconvex.runs.runner import fit_seeded

RNG = np.random.default_rng(0)
X = RNG.normal(size=(40, 3))
Y = 5 + X @ [3.0, -1.0, 0.5] + RNG.normal(size=40) / 4


@pytest.mark.parametrize("est", [
    TransformedTargetRegressor(Ridge()),
    TransformedTargetRegressor(Ridge(), func=np.log, inverse_func=np.exp, check_inverse=False),
    TransformedTargetRegressor(
        make_pipeline(FunctionTransformer(),
                      dp.PrivateLinearRegressor(mechanism="none", label_range=(-20, 10))),
        func=np.negative, inverse_func=np.negative),
    TransformedTargetRegressor(Ridge(), transformer=StandardScaler()),
], ids=["identity", "log", "pipeline", "transformer"])
def test_a_target_transformed_model_predicts_as_scikit_learns_fit(est):
    """The same model (a Ridge, or a private regressor with mechanism="none", which draws no
    noise), fitted by scikit-learn's TransformedTargetRegressor and by the run: the same solve on
    the same labels, so the predictions agree to rounding (rel 1e-9); a model
    fitted on y instead of func(y), or not mapped back, is off by orders more."""
    y = np.abs(Y) + 1 if est.func is np.log else Y
    ours = fit_seeded(clone(est), X, y, NoiseSource(np.random.default_rng(0), seeded=True))
    theirs = clone(est).fit(X, y)
    assert ours.predict(X) == pytest.approx(theirs.predict(X), rel=1e-9)
    assert type(ours.regressor_) is type(theirs.regressor_)


def _search() -> dp.PrivateGridSearch:
    """A tuned method's estimator, as the run builds it (``random_state=None`` throughout)."""
    model = dp.PrivateLogisticRegression(classes=[-1, 1], fit_intercept=False)
    return dp.PrivateGridSearch(model, {"lam": [1e-3, 1e-2, 1e-1]}, epsilon=1.0)


@pytest.mark.parametrize("features", [False, True], ids=["search", "features then search"])
def test_a_tuned_method_draws_as_its_search_fitted_with_the_runs_generator(features):
    """The run hands the search its generator, a RandomFourierFeatures step before it a stream
    spawned from it, and spawns nothing for the search's template (which the search clones and
    never fits): the same draws as ``fit_with`` given exactly these, so the chosen candidate is
    the same and the released coefficients agree to rounding (rel 1e-9). A stream spawned for
    the template moves the search's own spawns: other candidates' noise and another choice."""
    labels = np.where(X[:, 0] - X[:, 1] > 0, 1, -1)
    rows = X / (2 * np.abs(X).max())

    def build():
        search = _search()
        if not features:
            return search, search
        rff = dp.RandomFourierFeatures(n_components=10, gamma=0.5)
        return make_pipeline(rff, search), search

    ours, ours_search = build()
    fit_seeded(ours, rows, labels, NoiseSource(np.random.default_rng(5), seeded=True))
    theirs, theirs_search = build()
    rng = np.random.default_rng(5)
    noise = [(theirs_search, NoiseSource(rng, seeded=True))]
    if features:
        (stream,) = rng.spawn(1)
        noise.append((theirs.steps[0][1], NoiseSource(stream, seeded=True)))
    fit_with(theirs, rows, labels, NO_CONTEXT, noise)
    assert ours_search.best_params_ == theirs_search.best_params_
    assert ours_search.best_estimator_.coef_ == pytest.approx(
        theirs_search.best_estimator_.coef_, rel=1e-9, abs=0)
