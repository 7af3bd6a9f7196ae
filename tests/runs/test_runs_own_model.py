"""A user's own model in a problem file: import paths, CSV and DataFrame data, R², bands.

Every fit is seeded and the data are fixed, so each outcome is deterministic: no test here
is statistical (no false alarms to budget for). The data are tiny (120 to 200 rows).
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import uuid
import warnings

import cvxpy as cp
import dask
import numpy as np
import pytest

import dpconvex as dp
from dpconvex import cli
from dpconvex.runs import (
    CONSTANT_PREDICTION,
    MAJORITY,
    Band,
    ProblemError,
    assert_within_band,
    constant_r2,
    format_table,
    import_object,
    load_data,
    load_problem,
    record_band,
    result_to_dict,
    run_problem,
)

#: A user's module: the regression loss of the guide (Loss.from_cvxpy), a factory, a loader.
MODULE = '''
import cvxpy as cp
import numpy as np
import dpconvex as dp

huber = dp.Loss.from_cvxpy(lambda z, y: cp.huber(z - y, 0.5), kind="regression",
                           name="my_huber", label_range=(-1.0, 1.0))
NOT_CALLABLE = 3


def make_regressor(**params):
    return dp.PrivateLinearRegressor(loss=huber, label_range=(-5, 15), **params)


def make_fixed():
    return dp.PrivateLinearRegressor(loss=huber, label_range=(-5, 15))


def make_nothing():
    return 42


from sklearn.base import BaseEstimator, RegressorMixin


class MeanModel(RegressorMixin, BaseEstimator):
    """A scikit-learn model of the user's, with an epsilon and no parameter table."""

    def __init__(self, epsilon=1.0, random_state=None):
        self.epsilon, self.random_state = epsilon, random_state

    def fit(self, X, y):
        self.mean_ = float(np.mean(y))
        return self

    def predict(self, X):
        return np.full(len(X), self.mean_)


class CountingRegressor(dp.PrivateLinearRegressor):
    def fit(self, X, y):
        raise AssertionError("the sweep must not skip this fit silently")


def load(n=120):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 3)) / 2
    return X, 5 + 3 * X[:, 0] + rng.normal(size=n) / 2


def load_dask(n=120):
    import dask.array as da

    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 3)) / 2
    return da.from_array(X, chunks=40), da.from_array((X[:, 0] > 0).astype(int), chunks=40)


def load_frame():
    import pandas as pd

    X, y = load()
    return pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "c": X[:, 2], "y": y})


def constraints(w):
    return [w >= 0]


def concave_loss(z, y):  # CVXPY's rules refuse it: not convex
    return -cp.huber(z - y, 0.5)


def one_argument_loss(z):  # a regression loss is fn(z, y)
    return cp.square(z)


def failing_loss(z, y):  # fails on CVXPY expressions
    return z.no_such_attribute
'''

REGRESSION = """
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
params = {{}}
[[method]]
label = "mine non-private"
estimator = "PrivateLinearRegressor"
params = {{ loss = {{ import = "{mod}:huber" }}, label_range = [-5, 15], mechanism = "none" }}
[[expect]]
method = "mine"
epsilon = 10.0
min_r2 = 0.3
[[expect]]
method = "mine non-private"
min_r2 = 0.8
"""


@pytest.fixture
def user_module(write_user_module):
    """The name of a fresh user module holding :data:`MODULE`."""
    return write_user_module(MODULE)


def _write(tmp_path, text, name="problem.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def _split(X, y, n_train=90):
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


# ------------------------------------------------------------------------ import paths
def test_import_path_estimator_and_loss_run_and_report_r2(tmp_path, user_module):
    """A factory (taking epsilon through **params) and a from_cvxpy loss."""
    problem = load_problem(_write(tmp_path, REGRESSION.format(mod=user_module,
                                                             factory="make_regressor")))
    module = sys.modules[user_module]
    assert problem.metric == "r2" and problem.dataset == f"{user_module}:load"
    mine, baseline = problem.methods
    assert mine.private and not baseline.private
    assert baseline.params["loss"] is module.huber
    result = run_problem(problem, progress=False)
    assert result.passed, format_table(result)
    assert set(result.errors) == {"mine", "mine non-private"} and set(result.errors["mine"]) == {10.0}
    assert len(result.baselines[CONSTANT_PREDICTION]) == 2 and MAJORITY not in result.baselines
    assert result.released["mine"][10.0] == {"objective perturbation on linear ERM": 2}
    table = format_table(result)
    assert "test R², mean ± std" in table and f"| {CONSTANT_PREDICTION} |" in table
    assert "[ok  ] mine at ε=10.0: R² " in table
    payload = json.loads(json.dumps(result_to_dict(result)))
    assert payload["metric"] == "r2" and payload["checks"][0]["min_r2"] == 0.3


def test_an_estimator_without_epsilon_is_a_non_private_comparison(tmp_path, user_module):
    """Any estimator by import path: scikit-learn's Ridge runs once per run, with no release."""
    text = REGRESSION.format(mod=user_module, factory="make_regressor") + """
[[method]]
label = "ridge"
estimator = "sklearn.linear_model:Ridge"
params = { alpha = 1.0 }
"""
    problem = load_problem(_write(tmp_path, text))
    assert not problem.methods[2].private
    result = run_problem(problem, progress=False)
    assert set(result.errors["ridge"]) == {float("inf")} and len(result.errors["ridge"][np.inf]) == 2
    assert "| ridge |" in format_table(result)  # no release to name: it has no certificate


def test_a_factory_without_an_epsilon_parameter_is_refused_with_the_fix(tmp_path, user_module):
    path = _write(tmp_path, REGRESSION.format(mod=user_module, factory="make_fixed"))
    with pytest.raises(ProblemError, match=r"key 'method\[0\]\.estimator': .*make_fixed takes no "
                       r"epsilon argument .* Give the factory an epsilon parameter \(or \*\*params\)"):
        load_problem(path)


def test_an_import_table_sets_a_constraints_callable(tmp_path, user_module):
    text = REGRESSION.format(mod=user_module, factory="make_regressor").replace(
        "params = {}", f'params = {{ constraints = {{ import = "{user_module}:constraints" }} }}')
    problem = load_problem(_write(tmp_path, text))
    assert problem.methods[0].params["constraints"] is sys.modules[user_module].constraints


def test_a_module_next_to_the_problem_file_is_found(tmp_path):
    """The problem file's folder is searched first, and only while the file is loaded."""
    name = f"dpc_beside_{uuid.uuid4().hex[:12]}"
    (tmp_path / f"{name}.py").write_text(MODULE)
    before = list(sys.path)
    try:
        problem = load_problem(_write(tmp_path, REGRESSION.format(mod=name, factory="make_regressor")))
        assert problem.methods[1].params["loss"].name == "my_huber"
        assert sys.path == before
    finally:
        sys.modules.pop(name, None)


def test_import_object_names_what_failed():
    assert import_object("dpconvex:PrivateLinearRegressor") is dp.PrivateLinearRegressor
    with pytest.raises(ProblemError, match=r"^import_object: 'dpconvex' is not an import path"):
        import_object("dpconvex")


BAD_IMPORTS = [
    pytest.param(("{mod}:make_regressor", "no_such_module_zz:Thing"), "method[0].estimator",
                 r"no module named 'no_such_module_zz'\. Put the module next to the problem file",
                 id="estimator module missing"),
    pytest.param(("{mod}:make_regressor", "{mod}:Missing"), "method[0].estimator",
                 r"has no attribute 'Missing'\. Fix the name after ':'", id="estimator name missing"),
    pytest.param(("{mod}:make_regressor", "{mod}:NOT_CALLABLE"), "method[0].estimator",
                 r"names an object of type int: the run calls a learner",
                 id="estimator not callable"),
    pytest.param(("{mod}:make_regressor", "{mod}:make_nothing"), "method[0].estimator",
                 r"returned int, not an estimator", id="factory returns no estimator"),
    pytest.param(("{mod}:make_regressor", "Nope"), "method[0].estimator",
                 r"unknown estimator 'Nope'; choose one of .* or give the import path",
                 id="unknown name"),
    pytest.param(('import = "{mod}:huber"', 'import = "{mod}:hubber"'), "method[1].params.loss",
                 r"has no attribute 'hubber'", id="parameter name missing"),
    pytest.param(('import = "{mod}:huber"', "import = 5"), "method[1].params.loss",
                 r"5 is not an import path", id="parameter import not a string"),
    pytest.param(('import = "{mod}:huber"', 'import = "{mod}:huber", extra = 1'),
                 "method[1].params.loss", r"the one key 'import'", id="import table extra key"),
    pytest.param(('import = "{mod}:huber"', 'import = "{mod}:concave_loss"'),
                 "method[1].params.loss", r"not convex in the prediction by CVXPY's DCP rules",
                 id="loss function CVXPY refuses"),
    pytest.param(('import = "{mod}:huber"', 'import = "{mod}:one_argument_loss"'),
                 "method[1].params.loss", r"cannot be called with 2 positional argument",
                 id="loss function of the wrong arity"),
    pytest.param(('import = "{mod}:huber"', 'import = "{mod}:failing_loss"'),
                 "method[1].params.loss",
                 r"loss 'failing_loss': fn\(z, y\) raised AttributeError",
                 id="loss function that fails"),
    pytest.param(('"{mod}:load"', '"no_such_module_zz:load"'), "data.dataset",
                 r"no module named 'no_such_module_zz'", id="loader module missing"),
    pytest.param(('"{mod}:load"', '"nowhere"'), "data.dataset",
                 r"unknown dataset 'nowhere'; choose one of .*import path.*\.csv", id="unknown dataset"),
]


@pytest.mark.parametrize("mutation,key,match", BAD_IMPORTS)
def test_bad_import_paths_name_the_file_the_key_and_the_fix(tmp_path, user_module, mutation,
                                                            key, match):
    old, new = (part.format(mod=user_module) for part in mutation)
    text = REGRESSION.format(mod=user_module, factory="make_regressor")
    assert old in text
    path = _write(tmp_path, text.replace(old, new, 1))
    with pytest.raises(ProblemError, match=match) as info:
        load_problem(path)
    message = str(info.value)
    assert message.startswith(f"load_problem: {path}: key '{key}': "), message


def test_a_module_that_fails_on_import_is_named_with_its_error(tmp_path, user_module, capsys):
    broken = f"dpc_broken_{uuid.uuid4().hex[:12]}"
    (tmp_path / f"{broken}.py").write_text("raise RuntimeError('boom')\n")
    text = REGRESSION.format(mod=user_module, factory="make_regressor").replace(
        f"{user_module}:make_regressor", f"{broken}:make", 1)
    path = _write(tmp_path, text)
    with pytest.raises(ProblemError, match=rf"importing '{broken}' .* raised RuntimeError: boom\. "
                       r"Fix the module") as info:
        load_problem(path)
    assert isinstance(info.value.__cause__, RuntimeError)  # the module's traceback is kept
    assert cli.main(["run", str(path), "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "key 'method[0].estimator'" in err and str(path) in err
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------------------------ metric
@pytest.mark.parametrize("edit,key,match", [
    (("[data]", 'metric = "error"\n[data]'), "metric", r'"error" does not score regressors'),
    (("[data]", 'metric = "auc"\n[data]'), "metric", r"must be one of \['error', 'r2'\]"),
    (("min_r2 = 0.3", "max_error = 0.3"), "expect[0].max_error",
     r"this problem reports R² .* state the band with min_r2 and max_r2"),
    (("min_r2 = 0.3", "min_r2 = 0.3\nmax_r2 = 1.5"), "expect[0].min_r2", r"R² is at most 1"),
    (("min_r2 = 0.3", "max_r2 = 0.9"), "expect[0].min_r2", r"is required \(the lower end"),
])
def test_the_metric_and_its_bands_are_checked(tmp_path, user_module, edit, key, match):
    text = REGRESSION.format(mod=user_module, factory="make_regressor")
    assert edit[0] in text
    with pytest.raises(ProblemError, match=match) as info:
        load_problem(_write(tmp_path, text.replace(edit[0], edit[1], 1)))
    assert f"key '{key}'" in str(info.value)


def test_mixed_regressors_and_classifiers_need_a_stated_metric(tmp_path, user_module):
    text = REGRESSION.format(mod=user_module, factory="make_regressor") + """
[[method]]
label = "LR"
estimator = "PrivateLogisticRegression"
params = { classes = [0, 1] }
"""
    with pytest.raises(ProblemError, match=r"key 'metric': the learners mix regressors "
                       r"\['mine', 'mine non-private'\] and classifiers \['LR'\]"):
        load_problem(_write(tmp_path, text))


def test_constant_r2_is_the_baseline_of_r2():
    assert constant_r2([1.0, 2.0, 3.0], [0.0, 4.0]) == 0.0
    assert constant_r2([0.0], [1.0, 3.0]) == -4.0  # 1 - (1 + 9) / ((1 - 2)² + (3 - 2)²)


# ------------------------------------------------------------------------ CSV and DataFrames
#: One private logistic regression at one ε, once (after a problem's [data] table).
ONE_LR = """
[grid]
epsilon = [{epsilon}]
runs = 1
seed = 0
[[method]]
label = "LR"
estimator = "PrivateLogisticRegression"
params = {{ classes = [0, 1] }}
"""
CSV_PROBLEM = """
[data]
dataset = "{csv}"
target = "label"
test_size = 0.3""" + ONE_LR.format(epsilon=5.0).replace("{", "{{").replace("}", "}}") + """[[expect]]
method = "LR"
epsilon = 5.0
max_error = 0.3
"""


def _csv(path, n=200):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(n, 2)) / 2
    label = (X[:, 0] > 0).astype(int)
    lines = ["x1,x2,label"] + [f"{a},{b},{c}" for (a, b), c in zip(X.tolist(), label, strict=True)]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_csv_file_relative_to_the_problem_file(tmp_path):
    (tmp_path / "data").mkdir()
    _csv(tmp_path / "data" / "rows.csv")
    problem = load_problem(_write(tmp_path, CSV_PROBLEM.format(csv="data/rows.csv")))
    assert problem.metric == "error" and problem.csv == tmp_path / "data" / "rows.csv"
    X, y = load_data(problem)
    assert X.shape == (200, 2) and y.dtype == np.float64 and set(y.tolist()) == {0.0, 1.0}
    result = run_problem(problem, progress=False)
    assert result.passed, format_table(result)
    assert len(result.baselines[MAJORITY]) == 1


@pytest.mark.parametrize("edit,where,key,match", [
    (('target = "label"\n', ""), "load", "data.target", r"is required with a CSV file"),
    (('"data/rows.csv"', '"data/none.csv"'), "load", "data.dataset",
     r"no CSV file .*none\.csv.*relative path is read from the problem file's folder"),
    (('"data/rows.csv"', '"data/\\u0000.csv"'), "load", "data.dataset", r"no CSV file"),
    (('target = "label"', 'target = "labels"'), "data", "data.target",
     r"'labels' is not a column of rows\.csv; its columns: \['x1', 'x2', 'label'\]"),
    (('target = "label"', 'target = "label"\noptions = { n = 3 }'), "load", "data.options",
     r"a CSV file takes no loader options"),
])
def test_csv_errors_name_the_key_and_the_fix(tmp_path, edit, where, key, match):
    (tmp_path / "data").mkdir()
    _csv(tmp_path / "data" / "rows.csv")
    text = CSV_PROBLEM.format(csv="data/rows.csv")
    path = _write(tmp_path, text.replace(*edit, 1))
    with pytest.raises(ProblemError, match=match) as info:
        load_data(load_problem(path)) if where == "data" else load_problem(path)
    assert f"{path}: key '{key}'" in str(info.value)


@pytest.mark.parametrize("cell", ["yes", "nan", "inf"])  # float() reads the last two
def test_a_csv_cell_that_is_not_a_number_is_named_by_line_and_column(tmp_path, cell):
    rows = _csv(tmp_path / "rows.csv")
    lines = rows.read_text().splitlines()
    lines[2] = f"0.1,{cell},1"
    rows.write_text("\n".join(lines) + "\n")
    problem = load_problem(_write(tmp_path, CSV_PROBLEM.format(csv="rows.csv")))
    with pytest.raises(ProblemError, match=r"line 3 of .*rows\.csv, column 'x2', is not a finite number: "
                       r"only numeric columns are read"):
        load_data(problem)


def test_a_dataframe_loader_with_a_target_column(tmp_path, user_module):
    text = REGRESSION.format(mod=user_module, factory="make_regressor").replace(
        f'"{user_module}:load"', f'"{user_module}:load_frame"\ntarget = "y"')
    problem = load_problem(_write(tmp_path, text))
    X, y = load_data(problem)
    assert X.shape == (120, 3) and y.shape == (120,)
    missing = load_problem(_write(tmp_path, text.replace('target = "y"', ""), "no_target.toml"))
    with pytest.raises(ProblemError, match=r"key 'data.target': the loader returned a DataFrame"):
        load_data(missing)
    tuple_with_target = load_problem(_write(
        tmp_path, text.replace(f"{user_module}:load_frame", f"{user_module}:load"), "tuple.toml"))
    with pytest.raises(ProblemError, match=r"returned \(X, y\): target applies to a CSV file"):
        load_data(tuple_with_target)


def test_labels_held_by_dask_reach_the_non_private_baseline(tmp_path, user_module):
    """A loader's Dask (X, y) with private methods only: the table's non-private baseline is fitted
    on them as the methods are."""
    text = f'[data]\ndataset = "{user_module}:load_dask"' + ONE_LR.format(epsilon=10.0)
    with dask.config.set(scheduler="synchronous"), warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)
        result = run_problem(load_problem(_write(tmp_path, text)), progress=False)
    assert list(result.errors) == ["LR", "non-private (scikit-learn LogisticRegression)"]


# ------------------------------------------------------------------------ bands
@pytest.fixture(scope="module")
def regression_data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3)) / 2
    return _split(X, 5 + 3 * X[:, 0] + rng.normal(size=120) / 2)


def _make():
    huber = dp.Loss.from_cvxpy(lambda z, y: cp.huber(z - y, 0.5), kind="regression",
                               name="my_huber", label_range=(-1.0, 1.0))
    return dp.PrivateLinearRegressor(loss=huber, epsilon=10.0, label_range=(-5, 15))


@pytest.fixture(scope="module")
def band(regression_data):
    Xtr, ytr, Xte, yte = regression_data
    return record_band(_make, Xtr, ytr, seeds=[0, 1, 2], X_test=Xte, y_test=yte, margin=0.02,
                       label="my huber")


def test_record_band_covers_its_seeds_and_states_it(band):
    assert band.metric == "r2" and band.seeds == (0, 1, 2) and len(band.scores) == 3
    assert band.lo == pytest.approx(min(band.scores) - 0.02, abs=1e-15)  # one float subtraction
    assert band.hi == pytest.approx(max(band.scores) + 0.02, abs=1e-15)
    assert "the min..max of 3 fits (random_state = 0, 1, 2) widened by 0.02" in band.statement


def test_a_refit_with_a_recorded_seed_passes(band, regression_data):
    Xtr, ytr, Xte, yte = regression_data
    model = _make().set_params(random_state=1).fit(Xtr, ytr)
    # same data, same seed: the same release (deterministic), so its score is the recorded one
    assert assert_within_band(model, band, Xte, yte) == pytest.approx(band.scores[1], rel=1e-12)


def test_a_changed_model_fails_with_a_message_that_states_the_band(band, regression_data):
    Xtr, ytr, Xte, yte = regression_data
    worse = _make().set_params(epsilon=0.05, random_state=7).fit(Xtr, ytr)  # far more noise
    with pytest.raises(AssertionError) as info:
        assert_within_band(worse, band, Xte, yte)
    message = str(info.value)
    assert message.startswith("assert_within_band: R² ") and "is outside the band [" in message
    assert "recorded on seeds [0, 1, 2]" in message and "widened by 0.02" in message
    assert "random_state=7, which the band does not cover" in message
    with pytest.raises(AssertionError, match=r"R² nan is outside"):
        assert_within_band(float("nan"), band)


@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_a_band_file_round_trips_and_states_what_it_covers(band, tmp_path, suffix):
    path = band.write(tmp_path / f"band{suffix}")
    assert Band.read(path) == band
    text = path.read_text(encoding="utf-8")
    assert "covers" in text and "widened by 0.02" in text


@pytest.mark.skipif(os.name != "posix", reason="RLIMIT_FSIZE is POSIX")
def test_a_failed_band_write_keeps_the_earlier_band(tmp_path):
    """A real write failure midway (EFBIG under a file-size limit, as a full disk): the earlier,
    valid band file is kept as it was, with no temporary file beside it."""
    import resource
    import signal

    path = tmp_path / "band.toml"
    small = Band("error", seeds=(0, 1), scores=(0.1, 0.125), margin=0.01)
    small.write(path)
    before = path.read_bytes()
    big = Band("error", seeds=tuple(range(2000)),
               scores=tuple(0.1 + i * 1e-6 for i in range(2000)), margin=0.01)
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG, not a killed process
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, hard))  # the small band fits, the big not
    try:
        with pytest.raises(OSError):  # the write failed
            big.write(path)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, handler)
    assert path.read_bytes() == before and Band.read(path) == small
    assert [p.name for p in tmp_path.iterdir()] == ["band.toml"]


def test_a_band_write_whose_rename_fails_leaves_no_temporary_file(tmp_path):
    """The rename over the target fails (a folder of that name): the write raises and the
    temporary file it wrote is removed."""
    path = tmp_path / "band.toml"
    path.mkdir()
    with pytest.raises(OSError):
        Band("error", seeds=(0, 1), scores=(0.1, 0.125), margin=0.01).write(path)
    assert [p.name for p in tmp_path.iterdir()] == ["band.toml"]


def test_a_band_file_with_a_hand_edited_end_is_refused(band, tmp_path):
    path = tmp_path / "band.json"
    data = band.to_dict()
    data["hi"] = band.hi + 0.5
    path.write_text(json.dumps(data))
    with pytest.raises(ProblemError, match=r"key 'hi' is .* change 'margin' to widen it"):
        Band.read(path)


@pytest.mark.parametrize("call,match", [
    (lambda X, y: record_band(_make, X, y, seeds=[]), r"'seeds' parameter of record_band must be"),
    (lambda X, y: record_band(_make, X, y, seeds=[1, 1]), r"must hold distinct ints"),
    (lambda X, y: record_band(_make, X, y, seeds=[0], metric="auc"), r"'metric' parameter"),
    (lambda X, y: record_band(_make, X, y, seeds=[0], margin=-1.0), r"'margin' parameter"),
    (lambda X, y: record_band(_make, X, y, seeds=[0], X_test=X), r"X_test and y_test go together"),
    (lambda X, y: record_band(3, X, y, seeds=[0]), r"'make_estimator' parameter of record_band"),
])
def test_record_band_checks_its_arguments(regression_data, call, match):
    Xtr, ytr, _, _ = regression_data
    with pytest.raises(dp.ParameterError, match=match):
        call(Xtr, ytr)


def test_record_band_of_a_classifier_scores_the_test_error():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(150, 2)) / 2
    y = (X[:, 0] > 0).astype(int)
    band = record_band(dp.PrivateLogisticRegression(epsilon=5.0, classes=[0, 1]), X, y,
                       seeds=range(2))
    assert band.metric == "error" and all(0 <= s <= 0.5 for s in band.scores)
    assert band.label == "PrivateLogisticRegression"


def test_a_model_of_the_users_without_a_parameter_table_loads_and_runs(tmp_path, user_module):
    text = REGRESSION.format(mod=user_module, factory="make_regressor").replace(
        f'estimator = "{user_module}:make_regressor"', f'estimator = "{user_module}:MeanModel"')
    result = run_problem(load_problem(_write(tmp_path, text)), progress=False)
    assert set(result.errors["mine"]) == {10.0}


def test_a_subclass_that_overrides_fit_is_refused_by_the_sweep_not_skipped(user_module):
    module = importlib.import_module(user_module)
    X, y = module.load()
    model = module.CountingRegressor(label_range=(-5, 15))
    with pytest.raises(dp.ParameterError, match="CountingRegressor overrides fit, which the sweep"):
        dp.epsilon_sweep(model, X, y, [1.0])
