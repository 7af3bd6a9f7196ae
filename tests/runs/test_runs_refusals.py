"""Data and problem files the runner cannot use are refused by name (ProblemError, exit status 2), before
any fit: labels its baselines cannot read, numbers beyond float64, splits and headers that do not hold."""

import importlib
import warnings

import pytest

from dpconvex import cli
from dpconvex.runs import ProblemError, load_data, load_problem, run_problem

LOADERS = '''
import numpy as np, pandas as pd, scipy.sparse as sp
X = np.random.default_rng(0).normal(size=(40, 3)) / 3
y = (X[:, 0] > 0).astype(int)


def plain():
    return X, y


def mixed():
    t = y.astype(object); t[0] = "a"; return X, t


def cat_missing():
    d = pd.DataFrame(X, columns=list("abc")); c = np.where(y == 1, "yes", "no").astype(object); c[5] = None
    d["t"] = pd.Categorical(c, categories=["no", "yes"]); return d


def coo():
    return sp.coo_matrix(X), y


def reg_nan():
    t = X[:, 0] * 2.0; t[7] = np.nan; return X, t


def reg_text():
    t = (X[:, 0] * 2).astype(object); t[0] = "a"; return X, t


def two_rows():
    return X[:2], y[:2]
'''
CLS = 'estimator = "PrivateLogisticRegression"\n'
REG = 'estimator = "PrivateLinearRegressor"\nparams = { label_range = [-2, 2] }\n'


def _problem(tmp_path, loader, method=CLS, extra=""):
    module = f"loaders_{tmp_path.name}"  # one module name per test (imports are cached)
    (tmp_path / f"{module}.py").write_text(LOADERS)
    path = tmp_path / "p.toml"
    path.write_text(f'[data]\ndataset = "{module}:{loader}"\n{extra}[grid]\nepsilon = [1.0]\nruns = 1\n'
                    f'[[method]]\nlabel = "m"\n{method}')
    return path


@pytest.mark.parametrize("loader,method,extra,match", [
    ("mixed", CLS, "", "y mixes label types"),
    ("cat_missing", CLS, 'target = "t"\n', "y contains NaN labels"),  # the Categorical's missing value
    ("reg_nan", REG, "", "y contains NaN"),
    ("reg_text", REG, "", "y must be an array of numbers"),
], ids=["mixed", "cat_missing", "reg_nan", "reg_text"])
def test_labels_the_baselines_cannot_read_are_refused_with_exit_status_2(tmp_path, capsys, loader, method,
                                                                          extra, match):
    path = _problem(tmp_path, loader, method, extra)
    assert cli.main(["run", str(path), "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    assert f"key 'data.dataset': loaders_{tmp_path.name}:{loader}: {match}" in capsys.readouterr().err
    assert not (tmp_path / "out" / "results.json").exists()


def test_a_sparse_x_without_row_indexing_is_split_as_csr_rows(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = run_problem(load_problem(_problem(tmp_path, "coo")), progress=False)
    assert result.fits == 1 and len(result.errors["m"][1.0]) == 1


FACTORY = '''
import dpconvex as dp
CALLS = []


def make(epsilon, **params):  # a model that depends on epsilon: the penalty scales with 1/epsilon
    CALLS.append(epsilon)
    return dp.PrivateLogisticRegression(epsilon=epsilon, lam=0.05 / epsilon, classes=[0, 1], **params)
'''


def test_a_factory_taking_epsilon_builds_the_model_of_each_grid_point(tmp_path):
    path = _problem(tmp_path, "plain", f'estimator = "factory_{tmp_path.name}:make"\n')
    (tmp_path / f"factory_{tmp_path.name}.py").write_text(FACTORY)
    path.write_text(path.read_text().replace("epsilon = [1.0]", "epsilon = [1.0, 5.0]"))
    problem = load_problem(path)
    calls = importlib.import_module(f"factory_{tmp_path.name}").CALLS
    calls.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = run_problem(problem, progress=False)
    assert calls == [1.0, 5.0] and set(result.errors["m"]) == {1.0, 5.0}


BIG = "1" + "0" * 400  # a TOML integer beyond float64's range


@pytest.mark.parametrize("epsilon,band,key", [
    (BIG, "epsilon = 1.0\nmax_error = 0.5", "grid.epsilon"),
    ("1.0", f"epsilon = 1.0\nmax_error = {BIG}", r"expect\[0\].max_error"),
    ("1.0", f"epsilon = {BIG}\nmax_error = 0.5", r"expect\[0\].epsilon"),
], ids=["grid.epsilon", "max_error", "expect.epsilon"])
def test_an_integer_beyond_float64_is_refused_with_its_key(tmp_path, epsilon, band, key):
    path = _problem(tmp_path, "plain")
    path.write_text(path.read_text().replace("epsilon = [1.0]", f"epsilon = [{epsilon}]")
                    + f'[[expect]]\nmethod = "m"\n{band}\n')
    with pytest.raises(ProblemError, match=rf"key '{key}': (every epsilon )?must be a finite number"):
        load_problem(path)


def test_a_train_size_fraction_asking_more_rows_than_the_split_leaves_is_refused(tmp_path):
    """40 rows, 12 to test: 0.9 of all rows asks 36 of the 28 left for training."""
    path = _problem(tmp_path, "plain", extra="test_size = 0.3\ntrain_size = 0.9\n")
    with pytest.raises(ProblemError, match=r"key .data.train_size.: 36 rows asked of the 28 the split"):
        run_problem(load_problem(path), progress=False)


def test_a_csv_header_naming_a_column_twice_is_refused_by_name(tmp_path):
    rows = "".join(f"{i % 2},0.1,0.2,{i % 2}\n" for i in range(8))  # the label again as the last column
    (tmp_path / "d.csv").write_text("label,a,b,label\n" + rows)
    path = tmp_path / "p.toml"
    path.write_text('[data]\ndataset = "d.csv"\ntarget = "label"\n[grid]\nepsilon = [1.0]\n'
                    '[[method]]\nlabel = "m"\nestimator = "PrivateLogisticRegression"\n')
    with pytest.raises(ProblemError, match=r"key 'data.dataset': columns \['label'\] appear more than once"):
        load_data(load_problem(path))


def test_a_data_set_too_small_for_any_split_says_so(tmp_path):
    """Two rows leave no split of 2 training and 1 test rows: the remedy is more rows, not a range."""
    path = _problem(tmp_path, "two_rows")
    with pytest.raises(ProblemError, match=r"No split of 2 rows leaves 2 training and 1 test rows: use a "
                                           r"data set of at least 3 rows"):
        run_problem(load_problem(path), progress=False)


def test_r2_with_one_test_row_is_refused_before_any_fit(tmp_path):
    path = _problem(tmp_path, "plain", REG.replace("[-2, 2]", "[0, 1]"), extra="test_size = 1\n")
    with pytest.raises(ProblemError, match=r"key 'data.test_size': .* and 1 test rows; R² needs 2\. Use a "
                                           r"test_size of 2 to 38 rows"):
        run_problem(load_problem(path), progress=False)
