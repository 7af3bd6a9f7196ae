"""Data and problem files the runner cannot use are refused by name (ProblemError, exit status 2), before
any fit: labels its baselines cannot read, numbers beyond float64, splits and headers that do not hold."""

import warnings

import pytest

from dpconvex import cli
from dpconvex.runs import load_problem, run_problem

LOADERS = '''
import numpy as np, pandas as pd, scipy.sparse as sp
X = np.random.default_rng(0).normal(size=(40, 3)) / 3
y = (X[:, 0] > 0).astype(int)


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
