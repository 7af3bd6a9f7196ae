"""Problem files: noisy gradient descent, a folder with one bad file, the search order, the CLI."""

import ast
import os
import sys
import tomllib
from pathlib import Path

import pytest

from dpconvex import __version__, cli
from dpconvex.runs import ProblemError, load_problem, run_problem, spec
from dpconvex.runs import load_data as spec_load

ROOT = Path(__file__).resolve().parents[2]

NGD = """
title = "noisy GD"
[data]
dataset = "sklearn_breast_cancer"
[grid]
epsilon = [1.0]
runs = 1
seed = 3
[[method]]
label = "NGD"
estimator = "NoisyGradientDescent"
params = { delta = 1e-5, steps = 50, radius = 10.0 }
[[expect]]
method = "NGD"
epsilon = 1.0
max_error = 1.0
"""


def _write(folder, name, text):
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / name
    p.write_text(text)
    return p


def test_noisy_gd_problem_loads_and_runs(tmp_path):
    """A NoisyGradientDescent problem loads and runs (no raw TypeError from load_problem)."""
    pr = load_problem(_write(tmp_path, "ngd.toml", NGD))
    assert [m.estimator for m in pr.methods] == ["NoisyGradientDescent"] and pr.methods[0].private
    res = run_problem(pr, quick=True, progress=False)  # [quick] runs defaults to 2
    assert res.passed and len(res.errors["NGD"][1.0]) == 2


def test_noisy_gd_problem_with_only_epsilon_loads(tmp_path):
    """NoisyGradientDescent needs only epsilon (public rules for the rest)."""
    pr = load_problem(_write(tmp_path, "ngd.toml",
                             NGD.replace("{ delta = 1e-5, steps = 50, radius = 10.0 }", "{ }")))
    assert pr.methods[0].params == {}


@pytest.mark.parametrize("params,match", [
    ("{ delta = 1e-5, steps = 50, radius = 1.0, stepz = 3 }",
     r"has no parameter 'stepz'\. Valid parameters of NoisyGradientDescent: \[.*'steps'"),
    ('{ steps = "10" }', r"The 'steps' parameter of NoisyGradientDescent must be an int in \[1, "),
])
def test_noisy_gd_bad_params_name_key_and_fix(tmp_path, params, match):
    p = _write(tmp_path, "ngd.toml", NGD.replace("{ delta = 1e-5, steps = 50, radius = 10.0 }", params))
    with pytest.raises(ProblemError, match=match) as ei:
        load_problem(p)
    assert str(p) in str(ei.value) and "key 'method[0].params'" in str(ei.value)


@pytest.mark.parametrize("estimator", ["PrivateLogisticRegression", "PrivateLinearRegression",
                                       "PrivateLinearRegressor"])
def test_a_mechanism_off_the_menu_is_refused_when_the_file_is_loaded(tmp_path, estimator):
    """Not after some fits of the run: the linear learners check their menu with the table."""
    text = NGD.replace('estimator = "NoisyGradientDescent"', f'estimator = "{estimator}"').replace(
        "{ delta = 1e-5, steps = 50, radius = 10.0 }", '{ mechanism = "bogus" }')
    with pytest.raises(ProblemError, match="The 'mechanism' parameter of .*Got 'bogus'") as ei:
        load_problem(_write(tmp_path, "menu.toml", text))
    assert "key 'method[0].params'" in str(ei.value)


def test_a_tuned_parameter_is_checked_at_its_candidates_not_at_the_base_alone(tmp_path):
    """The Gaussian mechanism needs δ > 0: the base's mechanism alone (δ = 0) is no fit of the
    grid's, each of whose candidates sets another mechanism."""
    tuned = 'params = { mechanism = "gaussian_objective" }\ntune = { mechanism = ["objective", "output"] }'
    text = NGD.replace('estimator = "NoisyGradientDescent"', 'estimator = "PrivateLogisticRegression"'
                       ).replace("params = { delta = 1e-5, steps = 50, radius = 10.0 }", tuned)
    tune = load_problem(_write(tmp_path, "tuned.toml", text)).methods[0].tune
    assert tune == {"mechanism": ["objective", "output"]}


@pytest.mark.parametrize("tuned", ["delta = [1e-6, 1e-5]", "accountant = [0]"])
def test_a_privacy_parameter_in_tune_is_refused_with_the_key(tmp_path, tuned):
    text = NGD.replace('estimator = "NoisyGradientDescent"', 'estimator = "PrivateLogisticRegression"'
                       ).replace("params = { delta = 1e-5, steps = 50, radius = 10.0 }",
                                 f"params = {{}}\ntune = {{ {tuned} }}")
    with pytest.raises(ProblemError, match=r"key 'method\[0\]\.tune': '(delta|accountant)' is a "
                       r"privacy parameter: .* Set delta in params \(one value for every candidate\)"):
        load_problem(_write(tmp_path, "tuned.toml", text))


@pytest.mark.parametrize("base, key, got", [("{}", "tune", "-1"), ("{ lam = -2 }", "params", "-2")])
def test_a_bad_first_candidate_is_named_by_the_key_that_holds_it(tmp_path, base, key, got):
    """The first candidate is the base with the grid's first values: a bad value of the grid names
    ``tune``, a base that fails alone names ``params`` and its own value."""
    text = NGD.replace('estimator = "NoisyGradientDescent"', 'estimator = "PrivateLogisticRegression"'
                       ).replace("params = { delta = 1e-5, steps = 50, radius = 10.0 }",
                                 f"params = {base}\ntune = {{ lam = [-1, 1e-3] }}")
    with pytest.raises(ProblemError, match=rf"key 'method\[0\]\.{key}': The 'lam' parameter .* Got {got} "):
        load_problem(_write(tmp_path, "tune.toml", text))


def test_a_given_split_of_a_dataset_without_one_is_refused_with_the_key(tmp_path):
    pr = load_problem(_write(tmp_path, "given.toml", NGD.replace("[grid]", 'split = "given"\n[grid]')))
    with pytest.raises(ProblemError, match=r"key 'data.split': 'given': sklearn_breast_cancer has no"):
        run_problem(pr, quick=True, progress=False)


def test_a_split_that_leaves_no_rows_is_refused_with_the_key(tmp_path):
    pr = load_problem(_write(tmp_path, "split.toml", NGD.replace("[grid]", "test_size = 600\n[grid]")))
    with pytest.raises(ProblemError, match=r"key 'data.test_size': the split of the 569 rows leaves 0"):
        run_problem(pr, quick=True, progress=False)


def test_list_shows_valid_problems_when_one_file_is_invalid(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "probs"
    _write(folder, "a_ngd.toml", NGD)
    _write(folder, "b_broken.toml", NGD.replace("[grid]", "[grid]\nepsilons = [1.0]"))
    _write(folder, "c_not_toml.toml", "[data\n")
    monkeypatch.setenv("DPCONVEX_PROBLEMS", str(folder))
    assert cli.main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    by_name = {ln.split()[0]: ln for ln in lines}
    assert "sklearn_breast_cancer" in by_name["a_ngd"] and "noisy GD" in by_name["a_ngd"]
    assert "INVALID" in by_name["b_broken"] and "grid.epsilons" in by_name["b_broken"]
    assert "INVALID" in by_name["c_not_toml"] and "not valid TOML" in by_name["c_not_toml"]
    assert "wine_large_margin" in by_name and "INVALID" not in by_name["wine_large_margin"]


def test_search_order_env_then_checkout(tmp_path, monkeypatch):
    first, second = tmp_path / "first", tmp_path / "second"
    mine = _write(first, "wine_large_margin.toml", NGD)
    _write(second, "wine_large_margin.toml", NGD)
    only2 = _write(second, "only_in_second.toml", NGD)
    monkeypatch.setenv("DPCONVEX_PROBLEMS", os.pathsep.join([str(first), str(second)]))
    dirs = spec.problem_dirs()
    assert dirs[:3] == [first, second, ROOT / "problems"]
    assert spec.find_problem("wine_large_margin") == mine
    assert spec.find_problem("only_in_second") == only2
    assert spec.find_problem("adult_objective_vs_output") == ROOT / "problems" / \
        "adult_objective_vs_output.toml"
    assert spec.find_problem(str(only2)) == only2  # an explicit path always wins


def test_installed_copy_is_found_without_a_checkout(tmp_path, monkeypatch):
    """A non-editable install has no checkout: the data files under <prefix>/share are used."""
    import importlib.metadata as md

    installed = tmp_path.joinpath(*spec.INSTALLED_SUBDIR)
    _write(installed, "wine_large_margin.toml", NGD)
    monkeypatch.delenv("DPCONVEX_PROBLEMS", raising=False)
    monkeypatch.setattr(spec, "_checkout_dir", lambda: None)

    def not_installed(name):
        raise md.PackageNotFoundError(name)

    monkeypatch.setattr(md, "distribution", not_installed)
    monkeypatch.setattr(spec.sysconfig, "get_path", lambda name, *a: str(tmp_path))
    assert spec.problem_dirs() == [installed]
    assert [p.stem for p in spec.list_problems()] == ["wine_large_margin"]
    monkeypatch.setattr(spec.sysconfig, "get_path", lambda name, *a: str(tmp_path / "none"))
    with pytest.raises(ProblemError, match=r"Known problems: \(none found\).*DPCONVEX_PROBLEMS"):
        spec.find_problem("wine_large_margin")


def test_pyproject_ships_every_problem_file_where_the_lookup_searches():
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["data-files"]
    globs = cfg["/".join(spec.INSTALLED_SUBDIR)]
    shipped = {p for g in globs for p in ROOT.glob(g)}
    assert set((ROOT / "problems").glob("*.toml")) <= shipped
    assert ROOT / "problems" / "README.md" in shipped


def test_version_flag(capsys):
    with pytest.raises(SystemExit) as ei:
        cli.main(["--version"])
    assert ei.value.code == 0
    assert capsys.readouterr().out.strip() == f"dpconvex {__version__}"


def test_cli_module_imports_only_the_standard_library():
    """`dpconvex --help` must not import NumPy, CVXPY or scikit-learn through cli.py."""
    tree = ast.parse((ROOT / "dpconvex" / "cli.py").read_text())
    top = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            top += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            top.append("." * node.level + (node.module or "") + ":" +
                       ",".join(a.name for a in node.names))
    stdlib = set(sys.stdlib_module_names)
    for name in top:
        mod = name.split(":")[0]
        assert mod in ("__future__", ".") or mod.split(".")[0] in stdlib, name
    assert ".:__version__" in top


LOGISTIC = NGD.replace('estimator = "NoisyGradientDescent"', 'estimator = "PrivateLogisticRegression"')


@pytest.mark.parametrize("params,key,match", [
    ('params = { classes = "ab" }', "params", "'classes' parameter .*sequence of labels"),
    ("params = { accountant = 5 }", "params", "'accountant' parameter .*BudgetAccountant or None"),
    ("tune = { lam = [0.1, -5.0] }", "tune", "'lam' parameter .*Got -5.0"),
])
def test_parameters_and_every_tuned_candidate_are_checked_when_the_file_is_loaded(
        tmp_path, params, key, match):
    text = LOGISTIC.replace("params = { delta = 1e-5, steps = 50, radius = 10.0 }", params)
    with pytest.raises(ProblemError, match=rf"key 'method\[0\]\.{key}': The {match}"):
        load_problem(_write(tmp_path, "bad.toml", text))


def test_an_epsilon_listed_twice_is_refused_with_the_key(tmp_path):
    with pytest.raises(ProblemError, match=r"key .grid.epsilon.: lists 1.0 more than once"):
        load_problem(_write(tmp_path, "twice.toml", NGD.replace("epsilon = [1.0]\nruns",
                                                                "epsilon = [1.0, 1.0]\nruns")))


def test_more_training_rows_than_the_split_leaves_are_refused_with_the_key(tmp_path):
    pr = load_problem(_write(tmp_path, "train.toml", NGD.replace("[grid]", "train_size = 100000\n[grid]")))
    with pytest.raises(ProblemError, match=r"key 'data.train_size': 100000 rows asked of the 398"):
        run_problem(pr, quick=True, progress=False)


@pytest.mark.parametrize("returned,match", [
    ("[[0.1, 0.2]] * 10, [0, 1] * 5", None),  # lists: read as arrays
    ("np.zeros((9, 2)), np.zeros(10)", r"the loader returned X of shape \(9, 2\) and y of shape \(10,\)"),
    ("np.zeros((10, 2)), np.zeros(9)", r"the loader returned X of shape \(10, 2\) and y of shape \(9,\)"),
    ("[[0.1, 0.2], [0.3]] * 5, [0, 1] * 5", "the loader's X or y is not an array"),
])
def test_a_loaders_lists_are_arrays_and_its_mismatched_rows_are_refused(tmp_path, returned, match):
    module = f"loader_{tmp_path.name}"  # one module name per case (imports are cached)
    _write(tmp_path, f"{module}.py", f"import numpy as np\n\n\ndef load():\n    return {returned}\n")
    text = NGD.replace('dataset = "sklearn_breast_cancer"', f'dataset = "{module}:load"')
    problem = load_problem(_write(tmp_path, "loader.toml", text))
    if match is None:
        X, y = spec_load(problem)
        assert X.shape == (10, 2) and y.shape == (10,)
    else:
        with pytest.raises(ProblemError, match=rf"key 'data.dataset': {match}"):
            spec_load(problem)


def test_a_csv_file_of_a_header_alone_says_it_has_no_records(tmp_path):
    _write(tmp_path, "header.csv", "a,b,y\n")
    text = NGD.replace('dataset = "sklearn_breast_cancer"', 'dataset = "header.csv"\ntarget = "y"')
    with pytest.raises(ProblemError, match="header.csv has no records"):
        spec_load(load_problem(_write(tmp_path, "csv.toml", text)))


def test_a_module_that_exits_on_import_is_named_with_the_key(tmp_path):
    module = f"quitter_{tmp_path.name}"
    _write(tmp_path, f"{module}.py", "import sys\nsys.exit(3)\n")
    text = NGD.replace('dataset = "sklearn_breast_cancer"', f'dataset = "{module}:load"')
    with pytest.raises(ProblemError, match=rf"key 'data.dataset': importing '{module}'.*SystemExit"):
        load_problem(_write(tmp_path, "exit.toml", text))
