"""`dpconvex run` fits, scores and reports the model the user's factory builds.

The grid's ε reaches the factory as its ``epsilon`` argument and nothing is set on the model it
returns; the table and results.json state the (ε, δ) of each fit's certificate. A factory that
changes or ignores ε is refused by name; a loss with a sign slip fails its band. Every fit is
seeded and the data are fixed (120 rows), so each outcome is deterministic: no test here is
statistical.
"""

from __future__ import annotations

import json

import pytest

from dpconvex import cli
from dpconvex.runs import ProblemError, format_table, load_problem, run_problem

#: A user's module: the guide's Huber loss, the same with a sign slip, and factories.
MODULE = '''
import cvxpy as cp
import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin

import dpconvex as dp

huber = dp.Loss.from_cvxpy(lambda z, y: cp.huber(z - y, 0.5), kind="regression",
                           name="my_huber", label_range=(-1.0, 1.0))
slipped = dp.Loss.from_cvxpy(lambda z, y: cp.huber(z + y, 0.5), kind="regression",
                             name="my_huber_slipped", label_range=(-1.0, 1.0))


def make_regressor(**params):
    return dp.PrivateLinearRegressor(loss=huber, label_range=(-5, 15), **params)


def make_cut(**params):                       # a tenth of the grid's epsilon
    params["epsilon"] = params["epsilon"] / 10
    return dp.PrivateLinearRegressor(loss=huber, label_range=(-5, 15), **params)


def make_own_epsilon(**params):               # ignores the grid's epsilon
    params.pop("epsilon")
    return dp.PrivateLinearRegressor(loss=huber, label_range=(-5, 15), epsilon=1.0, **params)


def make_slipped(**params):
    return dp.PrivateLinearRegressor(loss=slipped, label_range=(-5, 15), **params)


def make_delta(**params):                     # doubles the delta of its params
    params["delta"] = 2 * params["delta"]
    return dp.PrivateLinearRegressor(loss=huber, label_range=(-5, 15), **params)


def make_added_delta(**params):               # adds a delta the problem file does not state
    params.setdefault("delta", 1e-3)
    return dp.PrivateLinearRegressor(loss=huber, label_range=(-5, 15), **params)


def make_pipeline_cut(**params):              # a pipeline whose model gets a tenth of epsilon
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    params["epsilon"] = params["epsilon"] / 10
    model = dp.PrivateLinearRegressor(loss=huber, label_range=(-5, 15), **params)
    return make_pipeline(FunctionTransformer(), model)


def make_pipeline(**params):
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    model = dp.PrivateLinearRegressor(loss=huber, label_range=(-5, 15), **params)
    return make_pipeline(FunctionTransformer(), model)


def make_features_pipeline(**params):      # random features (drawn at fit) before the model
    from sklearn.pipeline import make_pipeline

    model = dp.PrivateLinearRegressor(loss=huber, label_range=(-5, 15), data_norm=1.0, **params)
    return make_pipeline(dp.RandomFourierFeatures(n_components=20, gamma=0.05), model)


def make_target_wrapped(**params):         # the model inside a TransformedTargetRegressor
    from sklearn.compose import TransformedTargetRegressor

    model = dp.PrivateLinearRegressor(loss=huber, label_range=(-5, 15), **params)
    return TransformedTargetRegressor(model)


def make_target_negated(**params):         # a stateless label transform: y -> -y
    from sklearn.compose import TransformedTargetRegressor

    model = dp.PrivateLinearRegressor(loss=huber, label_range=(-15, 5), **params)
    return TransformedTargetRegressor(model, func=np.negative, inverse_func=np.negative)


def make_target_scaled(**params):          # a label transform fitted on the labels
    from sklearn.compose import TransformedTargetRegressor
    from sklearn.preprocessing import StandardScaler

    model = dp.PrivateLinearRegressor(loss="huber", label_range=(-5, 15), **params)
    return TransformedTargetRegressor(model, transformer=StandardScaler())


def make_target_piped_scaled(**params):    # the same, around a pipeline ending with the model
    from sklearn.compose import TransformedTargetRegressor
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer, StandardScaler

    model = dp.PrivateLinearRegressor(loss="huber", label_range=(-5, 15), **params)
    return TransformedTargetRegressor(make_pipeline(FunctionTransformer(), model),
                                      transformer=StandardScaler())


def make_target_piped(**params):           # a stateless target transform around a pipeline
    from sklearn.compose import TransformedTargetRegressor
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    model = dp.PrivateLinearRegressor(loss=huber, label_range=(-15, 5), **params)
    return TransformedTargetRegressor(make_pipeline(FunctionTransformer(), model),
                                      func=np.negative, inverse_func=np.negative)


def make_piped_target(**params):           # a pipeline ending with a stateless target transform
    from sklearn.compose import TransformedTargetRegressor
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    model = dp.PrivateLinearRegressor(loss=huber, label_range=(-5, 15), **params)
    return make_pipeline(FunctionTransformer(), TransformedTargetRegressor(model))


def make_target_wrapped_cut(**params):
    from sklearn.compose import TransformedTargetRegressor

    params["epsilon"] = params["epsilon"] / 10
    return TransformedTargetRegressor(dp.PrivateLinearRegressor(loss=huber, **params))


def make_bagged(**params):                   # fits the model once per bag, on rows it draws
    from sklearn.ensemble import BaggingRegressor

    return BaggingRegressor(dp.PrivateLinearRegressor(loss=huber, **params), n_estimators=3)


def make_bagged_cut(**params):
    from sklearn.ensemble import BaggingRegressor

    params["epsilon"] = params["epsilon"] / 10
    return BaggingRegressor(dp.PrivateLinearRegressor(loss=huber, **params), n_estimators=3)


def make_reads_epsilon(**params):            # a non-private model that needs epsilon to be built
    from sklearn.linear_model import Ridge

    return Ridge(alpha=params["epsilon"])


class OwnStatement(RegressorMixin, BaseEstimator):
    """A model of the user's whose certificate_ is set by its own fit (here a shipped fit's)."""

    def __init__(self, epsilon=1.0, random_state=None):
        self.epsilon, self.random_state = epsilon, random_state

    def fit(self, X, y):
        inner = dp.PrivateLinearRegressor(loss=huber, label_range=(-5, 15), epsilon=self.epsilon,
                                          random_state=self.random_state).fit(X, y)
        self.inner_, self.certificate_ = inner, inner.certificate_
        return self

    def predict(self, X):
        return self.inner_.predict(X)


class CutInFit(RegressorMixin, BaseEstimator):
    """A model of the user's whose fit spends a tenth of its epsilon: only its certificate shows it."""

    def __init__(self, epsilon=1.0, random_state=None):
        self.epsilon, self.random_state = epsilon, random_state

    def fit(self, X, y):
        inner = dp.PrivateLinearRegressor(loss=huber, label_range=(-5, 15),
                                          epsilon=self.epsilon / 10, random_state=0).fit(X, y)
        self.inner_, self.certificate_ = inner, inner.certificate_
        return self

    def predict(self, X):
        return self.inner_.predict(X)


def load(n=120):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 3)) / 2
    return X, 5 + 3 * X[:, 0] + rng.normal(size=n) / 2
'''

#: One private method at ε = 10 (2 runs) with its band; the factory is filled in.
PROBLEM = """
[data]
dataset = "{mod}:load"
test_size = 0.3
[grid]
epsilon = [10.0]
runs = 2
seed = 0
[[method]]
label = "mine"
estimator = "{mod}:{factory}"
params = {params}
[[expect]]
method = "mine"
epsilon = 10.0
min_r2 = 0.3
"""


@pytest.fixture
def user_module(write_user_module):
    """The name of a fresh user module holding :data:`MODULE`."""
    return write_user_module(MODULE)


def _problem(tmp_path, module, factory, params="{}"):
    path = tmp_path / f"{factory}.toml"
    path.write_text(PROBLEM.format(mod=module, factory=factory, params=params))
    return path


def _run(path, out):
    return cli.main(["run", str(path), "--out", str(out), "--no-progress"])


def test_the_factory_that_passes_epsilon_on_passes_and_states_its_certificates(
        tmp_path, user_module, capsys):
    assert _run(_problem(tmp_path, user_module, "make_regressor"), tmp_path / "out") == 0
    printed = capsys.readouterr().out
    assert "mine: (ε, δ) = (10, 0) by the certificates of its 2 fits" in printed
    payload = json.loads((tmp_path / "out" / "results.json").read_text())
    assert payload["certified"] == {"mine": {"10.0": [{"epsilon": 10.0, "delta": 0.0, "fits": 2}]}}
    assert payload["passed"] is True and payload["declared"] == {}


def test_a_model_of_the_users_own_class_is_stated_as_its_own_certificate(
        tmp_path, user_module, capsys):
    """The run reports the (ε, δ) a model of the user's own class states in its certificate_,
    and says it is that model's own statement, not checked by dpconvex."""
    assert _run(_problem(tmp_path, user_module, "OwnStatement"), tmp_path / "out") == 0
    printed = capsys.readouterr().out
    assert ("mine: (ε, δ) = (10, 0) by the certificates of its 2 fits; stated by the "
            "certificate_ of OwnStatement, a model of the user's: its own statement, not "
            "checked by dpconvex") in printed
    payload = json.loads((tmp_path / "out" / "results.json").read_text())
    assert payload["declared"] == {"mine": "OwnStatement"}


@pytest.mark.parametrize("factory,match", [
    ("make_cut", r"make_cut was given epsilon = 10\.0 and returned a PrivateLinearRegressor with "
                 r"epsilon = 1\.0: .* Pass epsilon to the estimator unchanged"),
    ("make_own_epsilon", r"make_own_epsilon was given epsilon = 10\.0 and returned a "
                         r"PrivateLinearRegressor with epsilon = 1\.0"),
])
def test_a_factory_that_changes_or_ignores_epsilon_fails_the_run(tmp_path, user_module, capsys,
                                                                factory, match):
    path = _problem(tmp_path, user_module, factory)
    assert _run(path, tmp_path / "out") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{path}: key 'method[0].estimator'" in err, err
    with pytest.raises(ProblemError, match=match):
        load_problem(path)
    assert not (tmp_path / "out").exists()


def test_a_factory_that_changes_delta_is_refused(tmp_path, user_module):
    path = _problem(tmp_path, user_module, "make_delta", "{ delta = 1e-6 }")
    with pytest.raises(ProblemError, match=r"make_delta was given delta = 1e-06 and returned a "
                       r"PrivateLinearRegressor with delta = 2e-06"):
        load_problem(path)


def test_a_model_whose_fit_spends_another_epsilon_is_caught_by_its_certificate(tmp_path, user_module):
    problem = load_problem(_problem(tmp_path, user_module, "CutInFit"))
    with pytest.raises(ProblemError, match=r"^run_problem: .*key 'method\[0\]\.estimator': its fit at "
                       r"epsilon = 10 released a model whose certificate requests epsilon = 1 and "
                       r"guarantees \(1, 0\)-DP, not the grid's epsilon"):
        run_problem(problem, progress=False)


def test_a_sign_slip_in_the_loss_fails_its_band(tmp_path, user_module, capsys):
    assert _run(_problem(tmp_path, user_module, "make_slipped"), tmp_path / "out") == 1
    printed = capsys.readouterr().out
    assert "[FAIL] mine at ε=10.0: R² " in printed
    payload = json.loads((tmp_path / "out" / "results.json").read_text())
    assert payload["certified"] == {"mine": {"10.0": [{"epsilon": 10.0, "delta": 0.0, "fits": 2}]}}
    result = run_problem(load_problem(tmp_path / "make_slipped.toml"), progress=False)
    assert not result.passed and result.checks[0]["observed"] < 0.3, format_table(result)


def test_a_factory_that_adds_a_delta_the_problem_does_not_state_is_refused(tmp_path, user_module):
    path = _problem(tmp_path, user_module, "make_added_delta")
    with pytest.raises(ProblemError, match=r"make_added_delta was given no delta and returned a "
                       r"PrivateLinearRegressor with delta = 0\.001"):
        load_problem(path)


def test_a_pipeline_is_checked_as_the_model_it_ends_with(tmp_path, user_module):
    with pytest.raises(ProblemError, match=r"make_pipeline_cut was given epsilon = 10\.0 and "
                       r"returned a Pipeline with epsilon = 1\.0"):
        load_problem(_problem(tmp_path, user_module, "make_pipeline_cut"))
    assert _run(_problem(tmp_path, user_module, "make_pipeline"), tmp_path / "out") == 0
    payload = json.loads((tmp_path / "out" / "results.json").read_text())
    assert payload["certified"] == {"mine": {"10.0": [{"epsilon": 10.0, "delta": 0.0, "fits": 2}]}}


def test_a_target_transformed_model_is_checked_as_its_regressor(tmp_path, user_module, capsys):
    """A TransformedTargetRegressor fits its regressor once: the grid's epsilon reaches the factory,
    the certificates of its fitted regressor are read, and a factory cutting epsilon is refused."""
    assert _run(_problem(tmp_path, user_module, "make_target_wrapped"), tmp_path / "out") == 0
    assert "mine: (ε, δ) = (10, 0) by the certificates of its 2 fits" in capsys.readouterr().out
    payload = json.loads((tmp_path / "out" / "results.json").read_text())
    assert payload["certified"] == {"mine": {"10.0": [{"epsilon": 10.0, "delta": 0.0, "fits": 2}]}}
    path = _problem(tmp_path, user_module, "make_target_wrapped_cut")
    assert _run(path, tmp_path / "cut") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert ("make_target_wrapped_cut was given epsilon = 10.0 and returned a "
            "TransformedTargetRegressor with epsilon = 1.0") in err, err
    assert not (tmp_path / "cut").exists()


@pytest.mark.parametrize("factory", ["make_bagged", "make_bagged_cut"])
def test_a_meta_estimator_that_fits_the_model_its_own_way_is_refused(tmp_path, user_module,
                                                                     capsys, factory):
    """A BaggingRegressor fits its private estimator once per bag on rows it draws: no one
    certificate states what it spends, so the run refuses it by name (not as a non-private model
    called without epsilon)."""
    path = _problem(tmp_path, user_module, factory)
    assert _run(path, tmp_path / "out") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    with pytest.raises(ProblemError, match=rf"{factory} returned a BaggingRegressor holding a "
                       r"private estimator \(estimator__epsilon\): .* Return the private "
                       r"estimator itself, a Pipeline ending with it, or a "
                       r"TransformedTargetRegressor around it\."):
        load_problem(path)
    assert not (tmp_path / "out").exists()


def test_a_factory_error_in_the_run_is_named(tmp_path, user_module, capsys):
    """A non-private model is built without epsilon in the run; a factory that needs it fails
    with a ProblemError naming the method, not a traceback."""
    text = PROBLEM.format(mod=user_module, factory="make_reads_epsilon", params="{}")
    path = tmp_path / "reads.toml"
    path.write_text(text.replace("epsilon = 10.0\nmin_r2", "min_r2"))
    assert _run(path, tmp_path / "out") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert (f"key 'method[0].estimator': {user_module}:make_reads_epsilon(**{{}}) raised "
            "KeyError: 'epsilon': the model it built with epsilon holds no private "
            "estimator") in err


@pytest.mark.parametrize("factory", ["make_target_scaled", "make_target_piped_scaled"])
def test_a_target_transform_fitted_on_the_labels_is_refused(tmp_path, user_module, capsys,
                                                            factory):
    """A TransformedTargetRegressor's transformer is fitted on the private labels (a
    StandardScaler keeps their mean and spread): refused by name, as a Pipeline's step fitted
    on the rows is, before any fit."""
    path = _problem(tmp_path, user_module, factory)
    assert _run(path, tmp_path / "out") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    with pytest.raises(ProblemError, match=rf"{factory} returned a TransformedTargetRegressor "
                       r"whose transformer \(StandardScaler\) is fitted on the labels: .* The "
                       r"label transform must be stateless: pass transformer=None"):
        load_problem(path)
    assert not (tmp_path / "out").exists()


def test_a_stateless_target_transform_is_inverted_at_prediction(tmp_path, user_module, capsys):
    """The regressor learns -y (func) and predictions are mapped back (inverse_func): the band
    min_r2 = 0.3 holds only if they are; the certificates are the regressor's."""
    assert _run(_problem(tmp_path, user_module, "make_target_negated"), tmp_path / "out") == 0
    assert "mine: (ε, δ) = (10, 0) by the certificates of its 2 fits" in capsys.readouterr().out
    payload = json.loads((tmp_path / "out" / "results.json").read_text())
    assert payload["certified"] == {"mine": {"10.0": [{"epsilon": 10.0, "delta": 0.0, "fits": 2}]}}


@pytest.mark.parametrize("factory", ["make_regressor", "make_pipeline", "make_target_wrapped",
                                     "make_target_negated", "make_target_piped",
                                     "make_features_pipeline"])
def test_two_runs_with_the_same_seed_give_the_same_numbers(tmp_path, user_module, factory):
    """The private model, alone, a Pipeline's last step or a TransformedTargetRegressor's
    regressor, draws its noise from the problem's generator: two runs of one file agree. The
    solves are deterministic for the same inputs, so the scores agree to rounding (rel 1e-9);
    noise drawn elsewhere moves them by about 1e-2 at these 84 rows and epsilon = 10."""
    path = _problem(tmp_path, user_module, factory)
    scores = []
    for out in ("a", "b"):  # 0 or 1 (a band missed): the numbers are the point here
        assert _run(path, tmp_path / out) in (0, 1)
        payload = json.loads((tmp_path / out / "results.json").read_text())
        scores.append(payload["results"]["mine"]["10.0"]["errors"])
    assert len(scores[0]) == 2
    assert scores[0] == pytest.approx(scores[1], rel=1e-9, abs=0), scores


def test_a_pipeline_ending_with_a_target_transform_is_refused(tmp_path, user_module, capsys):
    """The run fits a Pipeline's steps itself and cannot fit a TransformedTargetRegressor as its
    last step: refused by name before any fit, with the form it accepts."""
    path = _problem(tmp_path, user_module, "make_piped_target")
    assert _run(path, tmp_path / "out") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    with pytest.raises(ProblemError, match=r"make_piped_target returned a Pipeline ending with a "
                       r"TransformedTargetRegressor: .* Put the Pipeline inside it"):
        load_problem(path)
    assert not (tmp_path / "out").exists()
