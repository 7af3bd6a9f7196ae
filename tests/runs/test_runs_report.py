"""dpconvex run reports the trivial baseline: a majority-class column, JSON field and plot line."""

import json

import numpy as np
import pytest
from _helpers import placeholder_plot

from dpconvex import cli
from dpconvex.runs import report
from dpconvex.runs.report import MAJORITY, format_table, result_to_dict
from dpconvex.runs.runner import majority_error, run_problem

PROBLEM = """
[data]
dataset = "sklearn_wine"
test_size = 0.3
[grid]
epsilon = [3.0, 30.0]
runs = 3
seed = 7
[[method]]
label = "LM"
estimator = "PrivateLargeMarginGaussian"
params = { lam = 0.01, gamma = 0.001 }
[[method]]
label = "LM non-private"
estimator = "PrivateLargeMarginGaussian"
params = { lam = 0.01, gamma = 0.001, mechanism = "none" }
"""

# the keys of results.json's first format: kept unchanged
V1_KEYS = {"problem", "file", "quick", "runs", "seconds", "x_axis", "results", "checks", "passed"}
ADDED_KEYS = {"metric", "baselines", "released", "certified", "fits", "warnings",
              "not_private", "declared"}


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    p = tmp_path_factory.mktemp("prob") / "wine3.toml"
    p.write_text(PROBLEM)
    return run_problem(p, progress=False)


def test_majority_error_uses_the_training_labels():
    assert majority_error([0, 1, 1, 2], [1, 1, 0, 2]) == 0.5
    assert majority_error([0, 0, 1, 1], [1, 1]) == 1.0  # a tie goes to the smallest label
    assert majority_error(np.array(["a", "b", "b"]), np.array(["a", "b"])) == 0.5


def test_baseline_is_recorded_per_run_and_in_the_table(result):
    base = result.baselines[MAJORITY]
    assert len(base) == 3 and all(0.4 < b < 0.8 for b in base)  # wine: largest class ~40%
    table = format_table(result)
    head = table.splitlines()[1]
    assert head.split("|")[-3:-1] == [" non-private ", f" {MAJORITY} "]
    cell = f"{np.mean(base):.4f} ± {np.std(base):.4f}"
    rows = [ln for ln in table.splitlines() if ln.startswith("| LM")]
    assert len(rows) == 2 and all(r.rstrip(" |").endswith(cell) for r in rows)


def test_json_is_backward_compatible_with_added_baselines(result):
    d = json.loads(json.dumps(result_to_dict(result)))
    assert V1_KEYS <= set(d) and set(d) - V1_KEYS == ADDED_KEYS
    assert set(d["results"]) == {"LM", "LM non-private"}
    assert set(d["results"]["LM"]) == {"3.0", "30.0"} and set(d["results"]["LM non-private"]) == {"inf"}
    b = d["baselines"][MAJORITY]
    assert b["errors"] == result.baselines[MAJORITY] and b["mean"] == pytest.approx(np.mean(b["errors"]))


def test_results_json_and_the_table_say_what_is_not_private(result):
    """Every entry computed on the private data without privacy is named in results.json's
    not_private (the test errors, the majority-class baseline, the checks, the fit time), the
    non-private method among the results, and the seeding; the table says it in one line."""
    d = json.loads(json.dumps(result_to_dict(result)))
    note, entries = d["not_private"]["note"], d["not_private"]["entries"]
    assert {"results", "baselines", "checks", "passed", "seconds"} <= set(entries) <= set(d)
    assert "'LM non-private' fitted without privacy" in entries["results"]
    assert "'LM'" not in entries["results"]  # a private method: its fits are certified
    assert "private training rows" in entries["baselines"] and MAJORITY in entries["baselines"]
    assert "a model trained with a known seed is not private" in note and "'certified'" in note
    assert report.NOT_PRIVATE in format_table(result).splitlines()


def test_baseline_draws_no_randomness(tmp_path, result, monkeypatch):
    """Adding the baseline leaves the seeded errors as they were (it draws nothing)."""
    from dpconvex.runs import runner

    monkeypatch.setattr(runner, "majority_error", lambda *a: 0.0)
    p = tmp_path / "wine3.toml"
    p.write_text(PROBLEM)
    again = run_problem(p, progress=False)
    assert again.errors == result.errors


def test_plot_has_error_bars_nonprivate_and_majority_lines(result, monkeypatch, tmp_path):
    seen = {}
    real = report._figure

    def spy(res):
        fig = real(res)
        ax = fig.axes[0]
        seen["labels"] = ax.get_legend_handles_labels()[1]
        seen["bars"] = len(ax.containers)          # errorbar containers
        seen["bands"] = len(ax.patches)            # ± std bands of the horizontal lines
        seen["title"] = ax.get_legend().get_title().get_text()
        return fig

    monkeypatch.setattr(report, "_figure", spy)
    png = report.plot_result(result, tmp_path / "p.png")
    assert png.stat().st_size > 1000
    # one series per row of the table, labelled as the row (method → release, from the certificates)
    rows = [label for label, _, _ in result.rows()]
    assert rows[0].startswith("LM → ") and rows[0] in seen["labels"] and seen["bars"] == 1
    assert rows[1].startswith("LM non-private → ") and f"{rows[1]} (± std)" in seen["labels"]
    assert f"{MAJORITY} (trivial) (± std)" in seen["labels"] and seen["bands"] == 2
    assert seen["title"].startswith("Scores on the private data, not private")


def test_cli_run_prints_and_writes_the_baseline(tmp_path, capsys, monkeypatch):
    placeholder_plot(monkeypatch)  # the baseline's plot line: test_plot_has_error_bars_...
    p = tmp_path / "wine3.toml"
    p.write_text(PROBLEM.replace("runs = 3", "runs = 1"))
    out = tmp_path / "out"
    assert cli.main(["run", str(p), "--out", str(out), "--no-progress"]) == 0
    assert f"| {MAJORITY} |" in capsys.readouterr().out
    d = json.loads((out / "results.json").read_text())
    assert len(d["baselines"][MAJORITY]["errors"]) == 1


def test_rows_group_points_by_the_set_of_releases_in_any_order():
    """A safeguard releasing the model in some runs and its fallback in others: one row for
    every point with that pair, whichever release its first run made."""
    from dpconvex.runs import ProblemResult, load_problem

    problem = load_problem("wine_large_margin")
    released = {"M": {1.0: {"fallback": 1, "model": 1}, 2.0: {"model": 1, "fallback": 1},
                      5.0: {"model": 2}}}
    result = ProblemResult(problem, quick=True, runs=2,
                           errors={"M": {1.0: [0.1, 0.2], 2.0: [0.1, 0.1], 5.0: [0.0, 0.1]}},
                           released=released)
    rows = {label: sorted(points) for label, _, points in result.rows()}
    assert rows == {"M → fallback / model": [1.0, 2.0], "M → model": [5.0]}


@pytest.mark.parametrize("dataset,label_range,metric", [("sklearn_wine", None, "error"),
                                                        ("sklearn_diabetes", [25.0, 350.0], "r2")])
def test_a_problem_of_private_methods_only_gets_the_non_private_row(tmp_path, dataset, label_range, metric):
    """Every table and plot shows a non-private baseline: scikit-learn's where no method is one
    (fitted on each run's split; the private methods' draws are as without it)."""
    from dpconvex.runs.runner import NON_PRIVATE_BASELINE

    estimator, params = (("PrivateLargeMarginGaussian", "{ lam = 0.01, gamma = 0.001 }") if metric == "error"
                         else ("PrivateHuberRegressor", f"{{ label_range = {label_range} }}"))
    text = (PROBLEM.split("[[method]]")[0].replace("sklearn_wine", dataset)
            + f'[[method]]\nlabel = "private"\nestimator = "{estimator}"\nparams = {params}\n')
    p = tmp_path / "private_only.toml"
    p.write_text(text)
    result = run_problem(p, progress=False)
    row = NON_PRIVATE_BASELINE[metric]
    assert list(result.errors) == ["private", row] and len(result.errors[row][float("inf")]) == 3
    assert all(np.isfinite(result.errors[row][float("inf")]))
    line = [ln for ln in format_table(result).splitlines() if ln.startswith(f"| {row}")][0]
    assert line.split("|")[-3].strip()  # the non-private column holds its score
    if metric == "error":  # with a non-private method of the problem's own, the methods alone
        p.write_text(PROBLEM)
        assert sorted(run_problem(p, progress=False).errors) == ["LM", "LM non-private"]


def test_the_non_private_row_of_a_learning_curve_holds_where_a_sample_has_one_class(tmp_path):
    """At 2 rows a sample often holds one class (here in some of the runs): the row predicts it,
    as any classifier fitted on it would, and the run completes."""
    from dpconvex.runs.runner import NON_PRIVATE_BASELINE

    p = tmp_path / "curve.toml"
    p.write_text(PROBLEM.split("[[method]]")[0].replace("sklearn_wine", "sklearn_breast_cancer").replace(
        "epsilon = [3.0, 30.0]", "epsilon = [5.0]\ntrain_sizes = [2, 60]")
                 + '[[method]]\nlabel = "LR"\nestimator = "PrivateLogisticRegression"\n'
                 + "params = { lam = 0.01, classes = [0, 1] }\n")
    result = run_problem(p, progress=False)
    assert sorted(result.errors[NON_PRIVATE_BASELINE["error"]]) == [2.0, 60.0]
