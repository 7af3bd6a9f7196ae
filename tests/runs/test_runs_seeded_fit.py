"""The run's fit of a method's estimator (:func:`~dpconvex.runs.runner.fit_seeded`) fits a
``TransformedTargetRegressor`` itself, to hand its regressor the run's generator: the model it
leaves predicts as scikit-learn's own fit does. Deterministic (no noise is drawn by the
non-private regressors here; fixed data), so no test here is statistical."""

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
