"""What a problem file names is called only where the run needs it: ``dpconvex list`` builds no
learner, and a learner or loader named by import path is called only if it is an estimator class
or a function defined in the module named (never ``os:system`` with the file's params)."""

from __future__ import annotations

import pytest

from dpconvex import cli
from dpconvex.runs import ProblemError, check_problem, load_problem

PROBLEM = """
title = "named callables"
[data]
dataset = {dataset}
[grid]
epsilon = [1.0]
runs = 1
seed = 0
[[method]]
label = "m"
estimator = {estimator}
params = {params}
"""

#: A factory that leaves a file where it is called, an imported function and a loader.
MODULE = '''
import pathlib
from os.path import join as joined

import dpconvex as dp


def make(marker, **params):
    pathlib.Path(marker).touch()
    return dp.PrivateLogisticRegression(**params)


def load():
    return dp.datasets.load_sklearn("breast_cancer")
'''


def _file(tmp_path, estimator, params="{}", dataset='"sklearn_breast_cancer"'):
    folder = tmp_path / "problems"
    folder.mkdir(exist_ok=True)
    path = folder / "p.toml"
    path.write_text(PROBLEM.format(estimator=estimator, params=params, dataset=dataset))
    return path


def _listed(monkeypatch, capsys, path):
    monkeypatch.setenv("DPCONVEX_PROBLEMS", str(path.parent))
    assert cli.main(["list"]) == 0
    return next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("p "))


def test_list_builds_no_learner(tmp_path, monkeypatch, capsys, write_user_module):
    """The factory is called by load_problem (to check what it builds), never by the listing."""
    module, marker = write_user_module(MODULE), tmp_path / "built"
    path = _file(tmp_path, f'"{module}:make"', f'{{ marker = "{marker.as_posix()}" }}')
    line = _listed(monkeypatch, capsys, path)
    assert "INVALID" not in line and "sklearn_breast_cancer" in line and "named callables" in line
    assert check_problem(path) == ("p", "sklearn_breast_cancer", "named callables")
    assert not marker.exists()
    load_problem(path)
    assert marker.exists()  # the same file, loaded: the marker shows the factory can be seen


@pytest.mark.parametrize("estimator,what", [
    ('"os:system"', "builtin_function_or_method"),
    ('"subprocess:Popen"', "Popen, a class of 'subprocess'"),
    ('"os:popen"', "popen, a function of 'os'"),  # a function of the standard library
    ('"{mod}:joined"', "a function of 'posixpath'|a function of 'ntpath'"),  # imported into it
])
def test_a_learner_that_is_no_estimator_class_or_own_function_is_never_called(
        tmp_path, monkeypatch, capsys, write_user_module, estimator, what):
    module, marker = write_user_module(MODULE), tmp_path / "called"
    command = f"touch {marker.as_posix()}"
    params = {'"os:system"': f'{{ command = "{command}" }}',
              '"subprocess:Popen"': f'{{ args = "{command}", shell = true }}',
              '"os:popen"': f'{{ cmd = "{command}" }}',
              '"{mod}:joined"': '{ a = "x" }'}[estimator]
    path = _file(tmp_path, estimator.format(mod=module), params)
    with pytest.raises(ProblemError, match=rf"key 'method\[0\]\.estimator': .*({what}).*: the run "
                       "calls a learner with the file's params, so it must be an estimator class"):
        load_problem(path)
    line = _listed(monkeypatch, capsys, path)
    assert "INVALID" in line and "key 'method[0].estimator'" in line
    assert not marker.exists()


@pytest.mark.parametrize("loader", ['"os:getcwd"', '"{mod}:joined"'])
def test_a_loader_that_is_no_function_of_its_module_is_refused(tmp_path, write_user_module,
                                                               loader):
    module = write_user_module(MODULE)
    path = _file(tmp_path, '"PrivateLogisticRegression"', dataset=loader.format(mod=module))
    with pytest.raises(ProblemError, match=r"key 'data\.dataset': .*: the run calls a loader with "
                       "the file's options, so it must be a function defined in the module"):
        load_problem(path)
    path.write_text(path.read_text().replace(loader.format(mod=module), f'"{module}:load"'))
    assert load_problem(path).loader is not None  # the module's own loader is taken
