"""What a problem file names is called only where the run needs it: ``dpconvex list`` builds no
learner, and a learner or loader named by import path is called only if it is an estimator class,
or a function, ``functools.partial`` or callable object whose call does not run Python's
standard library (never ``os:system`` with the file's params)."""

from __future__ import annotations

import sys

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

#: A factory that leaves a file where it is called, an imported function and a loader; the
#: forms of a factory and a loader (partial, callable object), and calls of the standard library
#: through them (a partial of os.system, a bound method, a stdlib callable object).
MODULE = '''
import functools
import operator
import os
import pathlib
from os.path import join as joined

import dpconvex as dp


def make(marker, **params):
    pathlib.Path(marker).touch()
    return dp.PrivateLogisticRegression(**params)


def load():
    return dp.datasets.load_sklearn("breast_cancer")


class Loader:
    def __call__(self):
        return dp.datasets.load_sklearn("breast_cancer")


loader_object = Loader()
make_partial = functools.partial(dp.PrivateLogisticRegression, lam=0.01)
environ_copy = os.environ.copy
caller_object = operator.methodcaller("touch")
appended = [].append
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
    assert "INVALID: dpconvex list: " in line and "key 'method[0].estimator'" in line
    assert not marker.exists()


@pytest.mark.parametrize("target,what", [
    ('"shutil:rmtree"', "rmtree, a function of 'shutil'"),
    ('"builtins:exec"', "exec, a builtin_function_or_method of 'builtins'"),
    ('"{mod}:system_touch"', "which calls system, a builtin_function_or_method of '(posix|nt)'"),
    ('"{mod}:environ_copy"', "which calls _Environ.copy, a function of 'os'"),
    ('"{mod}:caller_object"', "which calls methodcaller, a class of 'operator'"),
    ('"{mod}:appended"', "which calls list, a class of 'builtins'"),
    ('"{mod}:Loader"', "Loader, a class of 'dpc_user_"),  # a class, no estimator
    ('"{mod}:MODULE_TEXT"', "an object of type str"),  # not callable
])
def test_the_standard_library_is_refused_as_learner_and_loader_before_any_call(
        tmp_path, write_user_module, target, what):
    """Through a partial, a bound method, a builtin bound to an object or a callable object, a
    call of the standard library is refused at the estimator and at the dataset, before the
    run (and before check_problem) calls anything."""
    marker = tmp_path / "called"
    module = write_user_module(MODULE + "MODULE_TEXT = 'x'\nsystem_touch = functools.partial("
                               f"os.system, 'touch {marker.as_posix()}')\n")
    named = target.format(mod=module)
    path = _file(tmp_path, named)
    with pytest.raises(ProblemError, match=rf"^check_problem: .*key 'method\[0\]\.estimator': "
                       rf"'[^']*' names [^:]*{what}[^:]*: the run calls a learner with the file's"):
        check_problem(path)
    path = _file(tmp_path, '"PrivateLogisticRegression"', dataset=named)
    with pytest.raises(ProblemError, match=rf"^load_problem: .*key 'data\.dataset': '[^']*' names "
                       rf"[^:]*{what}[^:]*: the run calls a loader with the file's options"):
        load_problem(path)
    assert not marker.exists()


@pytest.mark.parametrize("loader", ['"os:getcwd"', '"{mod}:joined"'])
def test_a_loader_of_the_standard_library_is_refused(tmp_path, write_user_module, loader):
    module = write_user_module(MODULE)
    path = _file(tmp_path, '"PrivateLogisticRegression"', dataset=loader.format(mod=module))
    with pytest.raises(ProblemError, match=r"key 'data\.dataset': .*: the run calls a loader with "
                       "the file's options, so it must be a function, functools.partial or "
                       "callable object that is not of Python's standard library"):
        load_problem(path)
    path.write_text(path.read_text().replace(loader.format(mod=module), f'"{module}:load"'))
    assert load_problem(path).loader is not None  # the module's own loader is taken


@pytest.mark.parametrize("dataset,estimator", [
    ('"sklearn.datasets:load_breast_cancer"', '"PrivateLogisticRegression"'),  # re-exported
    ('"dpconvex.datasets:load_sklearn"', '"PrivateLogisticRegression"'),  # dpconvex's own
    ('"{mod}:loader_object"', '"{mod}:make_partial"'),  # a callable object; a partial
    ('"{mod}:load"', '"{pkg}:make"'),  # a factory re-exported by a package
])
def test_loaders_and_factories_from_outside_the_standard_library_are_taken(
        tmp_path, write_user_module, dataset, estimator):
    """A function re-exported by a package (defined in a submodule), a functools.partial of an
    estimator class and a callable object are taken where they are named, and built."""
    module = write_user_module(MODULE)
    package = tmp_path / "site" / f"{module}_pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("from .sub.factories import make\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "factories.py").write_text(
        "import dpconvex as dp\n\n\ndef make(**params):\n"
        "    return dp.PrivateLogisticRegression(**params)\n")
    names = {"mod": module, "pkg": package.name}
    path = _file(tmp_path, estimator.format(**names), dataset=dataset.format(**names))
    if "load_sklearn" in dataset:
        path.write_text(path.read_text().replace("[grid]", 'options = { name = "wine" }\n[grid]'))
    try:
        assert check_problem(path)[1] == dataset.format(**names).strip('"')
        problem = load_problem(path)
    finally:
        for name in [n for n in sys.modules if n.startswith(package.name)]:
            sys.modules.pop(name)
    assert problem.loader is not None and problem.methods[0].private


def test_the_refusals_of_a_check_name_the_call_made(tmp_path, monkeypatch, capsys):
    """check_problem's refusals open with check_problem, dpconvex list's with dpconvex list,
    load_problem's with load_problem: not valid TOML, a key's value, the count of fits (10,000
    runs x 101 training sizes, above the cap of 10^6 fits)."""
    sizes = "train_sizes = [" + ", ".join(str(size) for size in range(1, 102)) + "]"
    for old, new, what in [("[grid]", "[grid", "not valid TOML"),
                           ("runs = 1", "runs = 0", "key 'grid.runs': must be an integer"),
                           ("runs = 1", f"runs = 10_000\n{sizes}",
                            "key 'grid.runs': 10,000 runs x 101 fits per run is above the cap")]:
        path = _file(tmp_path, '"PrivateLogisticRegression"')
        path.write_text(path.read_text().replace(old, new, 1))
        for call, name in [(check_problem, "check_problem"), (load_problem, "load_problem")]:
            with pytest.raises(ProblemError) as info:
                call(path)
            assert str(info.value).startswith(f"{name}: {path}: {what}"), str(info.value)
        line = _listed(monkeypatch, capsys, path)
        assert line.split(None, 2)[1:] == ["INVALID:", f"dpconvex list: {path}: {what}"
                                           + line.split(what, 1)[1]], line
