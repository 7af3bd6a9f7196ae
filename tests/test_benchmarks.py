"""Smoke tests of benchmarks/: the harness's rules, every script imports and is indexed, quick runs.

The quick runs (a 1,500-row subsample or a shrunken grid) check that a script runs end to
end and writes its results files with its tables; they measure nothing. They take 5-30 s
each and are marked slow. Every script the README cites has one.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks"
sys.path.insert(0, str(BENCH))

import harness  # noqa: E402
import numpy as np  # noqa: E402

SCRIPTS = sorted(p.stem for p in BENCH.glob("*.py") if p.stem != "harness")
#: scripts that read the package (its source, or one traced fit), no data files: no harness
SOURCE_SCRIPTS = {"style_counts", "trace_fit"}


def test_accuracy_table_needs_both_baselines():
    t = harness.Table("t", ["model", "error"])
    t.add("objective", [0.2, 0.3])
    with pytest.raises(ValueError, match="non-private"):
        t.markdown()
    t.add(harness.NON_PRIVATE, 0.15)
    with pytest.raises(ValueError, match="majority class"):
        t.markdown()
    t.add(harness.MAJORITY, 0.25)
    assert "0.2500 ± 0.0500" in t.markdown()


def test_regression_table_needs_the_non_private_and_constant_rows():
    t = harness.Table("r", ["model", "test R²"], kind="regression")
    t.add("objective", [0.5, 0.7])
    t.add(harness.MAJORITY, 0.0)  # a classifier's baseline does not stand in for the constant
    with pytest.raises(ValueError, match="non-private and no constant prediction"):
        t.markdown()
    t.add(harness.NON_PRIVATE, 0.9)
    with pytest.raises(ValueError, match="constant prediction"):
        t.markdown()
    t.add(harness.CONSTANT, -0.001)
    assert "0.6000 ± 0.1000" in t.markdown()


def test_speed_table_needs_a_ratio_column():
    with pytest.raises(ValueError, match="ratio"):
        harness.Table("s", ["n", "seconds"], kind="speed").markdown()
    harness.Table("s", ["n", "seconds", "ratio to CVXPY"], kind="speed").markdown()


def test_audit_table_needs_the_claimed_epsilon():
    with pytest.raises(ValueError, match="claimed"):
        harness.Table("a", ["mechanism", "audited lower bound"], kind="audit").markdown()
    harness.Table("a", ["mechanism", "claimed ε", "audited lower bound"], kind="audit").markdown()


def test_unknown_table_kind_is_refused():
    with pytest.raises(ValueError, match="kind"):
        harness.Table("x", ["a"], kind="plot").markdown()


def test_run_writes_nothing_when_the_block_fails(tmp_path):
    args = harness.parser(None).parse_args(["--out", str(tmp_path)])
    with pytest.raises(RuntimeError), harness.Run("benchmarks/failing.py", args, []):
        raise RuntimeError("stop")
    assert not list(tmp_path.iterdir())


def test_quick_subsample_is_small_and_seeded():
    a = harness.subsample(np.arange(5000)[:, None], np.arange(5000), 100)
    b = harness.subsample(np.arange(5000)[:, None], np.arange(5000), 100)
    assert len(a[1]) == 100 and np.array_equal(a[1], b[1])


def test_run_writes_json_and_markdown(tmp_path):
    args = harness.parser(None, seeds=2).parse_args(["--quick", "--out", str(tmp_path)])
    with harness.Run("benchmarks/example.py", args, ["--quick"]) as run:
        t = harness.Table("t", ["model", "error"])
        t.add(harness.NON_PRIVATE, 0.1)
        t.add(harness.MAJORITY, 0.3)
        run.table(t)
        print("free text")
    data = json.loads((tmp_path / "example-quick.json").read_text())
    assert data["tables"][0]["rows"][1] == [harness.MAJORITY, 0.3]
    assert "free text" in data["printed"]
    assert "majority class" in (tmp_path / "example-quick.md").read_text()
    assert not list(tmp_path.glob(".*.tmp"))


def test_kdd_split_keeps_the_positional_split(monkeypatch):
    X, y = np.arange(70000)[:, None], np.arange(70000)
    Xtr, ytr, Xte, yte = harness.kdd_split(X, y)
    assert (len(ytr), len(yte)) == (50000, 20000)
    monkeypatch.setattr(harness, "QUICK", True)
    Xtr, ytr, Xte, yte = harness.kdd_split(X, y)
    assert (len(ytr), len(yte)) == harness.QUICK_ROWS
    assert ytr.max() < 50000 <= yte.min()


def test_majority_error():
    assert harness.majority_error([0, 0, 1], [1, 1, 0, 0]) == 0.5


def test_speed_sparse_rows_store_k_entries_of_norm_at_most_one():
    import speed

    X, y, Xt, yt = speed.make_sparse_data(3000, 20, 2, 0, 50, 0.25)
    assert X.format == "csr" and X.shape == (3000, 20) and Xt.shape == (50, 20)
    assert (np.diff(X.indptr) == 5).all()
    assert (np.diff(X.indices.reshape(-1, 5), axis=1) > 0).all()  # distinct, sorted columns
    # the rule bounds every entry by 1/sqrt(5) in magnitude; 1e-12 is rounding slack
    assert (np.sqrt(X.multiply(X).sum(axis=1)) <= 1 + 1e-12).all()
    assert set(np.unique(y)) == {0, 1}
    X_small, y_small, _, _ = speed.make_sparse_data(1000, 20, 2, 0, 50, 0.25)
    assert (X[:1000] != X_small).nnz == 0 and (y[:1000] == y_small).all()
    assert speed.stored_per_row(10, 0.25) == 3 and speed.stored_per_row(20, 1e-3) == 1


def test_speed_skips_a_learner_that_refuses_sparse_rows(monkeypatch):
    import speed
    from sklearn.naive_bayes import GaussianNB  # fits dense rows, refuses sparse ones

    monkeypatch.setattr(speed, "build", lambda learner, classes: GaussianNB())
    spec = {"learner": "logistic", "n": 300, "d": 8, "seed": 0, "n_test": 20, "warm": 100}
    out = speed.measure({**spec, "density": 0.5}, speed.Counter())
    assert "sparse" in out["skipped"].lower() and "seconds" not in out
    assert speed._shown(out) == speed.SKIPPED_SPARSE
    assert "skipped" not in speed.measure(spec, speed.Counter())  # dense rows: fitted


@pytest.mark.parametrize("name", SCRIPTS)
def test_script_imports(name):
    module = importlib.import_module(name)
    assert module.__doc__, f"benchmarks/{name}.py has no docstring"


@pytest.mark.parametrize("name", sorted(set(SCRIPTS) - SOURCE_SCRIPTS))
def test_script_runs_on_the_harness(name):
    """Every script takes --quick and --out from the harness and writes its results through it."""
    src = (BENCH / f"{name}.py").read_text(encoding="utf-8")
    assert "harness.parser(" in src or "harness.run_script(" in src, name


def test_every_script_is_in_the_index():
    index = (BENCH / "README.md").read_text(encoding="utf-8")
    missing = [n for n in SCRIPTS if f"`{n}.py`" not in index]
    assert not missing, f"benchmarks/README.md does not list {missing}"


def _cited(path: Path) -> set[str]:
    return set(re.findall(r"benchmarks/([a-z][a-z0-9_]*)\.py", path.read_text(encoding="utf-8")))


def test_every_cited_script_exists():
    privacy = [ROOT / "docs" / "privacy.md", *sorted((ROOT / "docs" / "privacy").glob("*.md"))]
    cited = set().union(*map(_cited, [ROOT / "README.md", *privacy, BENCH / "README.md"]))
    missing = sorted(c for c in cited if not (BENCH / f"{c}.py").exists())
    assert not missing, f"cited but not in benchmarks/: {missing}"


#: the scripts whose numbers README.md cites
README_CITED = sorted(_cited(ROOT / "README.md"))

#: (script, arguments after --quick) run end to end on the subsample
QUICK_RUNS = [
    ("adult_objective_vs_output", ["--part", "table1"]),
    ("adult_objective_vs_output", ["--part", "figure"]),
    ("against_diffprivlib", []),
    ("audited_epsilon", []),
    ("audited_epsilon_regression", []),
    ("large_margin_accuracy", []),
    ("large_margin_softmax", []),
    ("mechanisms_by_epsilon", []),
    ("private_tuning", []),
    ("solver_speed", []),
    ("tuning_noisy_gd_kernels", []),
    ("breast_cancer_maps", []),
    ("centroids_accuracy", ["--splits", "1", "--seeds", "1"]),
    ("gaussian_nb_accuracy", []),
    ("speed", []),
    ("corpus_run", []),
    ("regression_held_out", []),
    ("ssp_regression", []),
    ("regression_guide_table", []),
    ("regression_check", []),
    ("noise_warning_ssp", []),
    ("drafted_schema", []),
    ("mixture_components", []),
]


def test_every_readme_cited_script_has_a_quick_run():
    assert README_CITED, "README.md cites no benchmarks script"
    assert set(README_CITED) <= {name for name, _ in QUICK_RUNS}


@pytest.mark.slow
@pytest.mark.parametrize(("name", "extra"), QUICK_RUNS)
def test_quick_run(name, extra, tmp_path):
    env = {**os.environ, "MPLBACKEND": "Agg", "OMP_NUM_THREADS": "1"}
    proc = subprocess.run([sys.executable, str(BENCH / f"{name}.py"), "--quick", "--out", str(tmp_path),
                           *extra], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads((tmp_path / f"{name}-quick.json").read_text())
    if name in README_CITED:
        assert data["tables"], f"{name} wrote no harness.Table"


@pytest.mark.slow
def test_solver_speed_runs_the_native_solver_alone_at_chosen_sizes(tmp_path):
    env = {**os.environ, "MPLBACKEND": "Agg", "OMP_NUM_THREADS": "1"}
    proc = subprocess.run([sys.executable, str(BENCH / "solver_speed.py"), "--quick", "--out", str(tmp_path),
                           "--only", "large_margin", "--n", "200", "300", "--solvers", "--native-runs", "2"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads((tmp_path / "solver_speed-large_margin-quick.json").read_text())["data"]
    rows = data["large_margin"]["rows"]
    assert [r["n"] for r in rows] == [200, 300]
    assert all(len(r["native_times"]) == 2 and r["backends"] == {} for r in rows)
    assert all(r["native_residual"] <= 1e-8 for r in rows)


def _corpus_regression_json(path: Path) -> Path:
    """A small output in corpus_run.py --task regression's format: two tables, ε 0.5 and 1,
    δ 0 and 1/n², diffprivlib on one table, a refusal and a missing cell."""
    def cell(table, eps, delta, front, dpl=None):
        stats = {"front_door": front, "rule": front, "huber": [0.1, 0.01],
                 "non-private": [0.6, 0.01], "non-private huber": [0.62, 0.01],
                 "mean": [-0.004, 0.001]}
        if dpl is not None:
            stats["diffprivlib:lr"] = dpl
        return {"table": table, "epsilon": eps, "delta": delta, "n_train": 300, "stats": stats}

    cells = [cell("alpha", 0.5, "0", [-0.002, 0.001], [-2.5, 0.4]),
             cell("alpha", 0.5, "1/n2", [-0.001, 0.001], [-2.5, 0.4]),
             cell("alpha", 1.0, "0", [0.3, 0.02], [-0.8, 0.2]),
             cell("alpha", 1.0, "1/n2", [0.35, 0.02], [-0.8, 0.2]),
             cell("beta", 0.5, "0", "refused: ParameterError"),
             cell("beta", 0.5, "1/n2", None),
             cell("beta", 1.0, "0", [0.2, 0.03]),
             cell("beta", 1.0, "1/n2", [-0.9, 0.1])]
    data = {"task": "regression", "seeds": [9400, 9401], "cells": cells, "rule": "front_door",
            "splits": [{"table": "alpha", "seed": 9400, "n_train": 300},
                       {"table": "beta", "seed": 9400, "n_train": 1200}]}
    path.write_text(json.dumps({"script": "corpus_run-regression", "data": data}))
    return path


def test_regression_guide_table_reads_a_corpus_run(tmp_path):
    import regression_guide_table as guide

    source = _corpus_regression_json(tmp_path / "corpus_run-regression.json")
    data = guide.main([str(tmp_path), "--out", str(tmp_path / "out"), "--plot",
                       str(tmp_path / "r2.png"), "--floor", "-0.5"])
    head, rule, alpha, beta, median = data["guide_table"][:5]
    assert head.startswith("| table | n train | front door ε = 0.5 | front door ε = 1 | "
                           "diffprivlib ε = 0.5 | diffprivlib ε = 1 | non-private Ridge")
    assert alpha == ("| alpha | 300 | -0.002 / -0.001 | 0.300 / 0.350 | -2.500 | -0.800 | 0.600 | "
                     "0.620 | -0.004 |")
    assert beta == "| beta | 1200 | refused / – | 0.200 / -0.900 | – | – | 0.600 | 0.620 | -0.004 |"
    assert median.startswith("| **median over tables** |  | -0.002 / -0.001 | 0.250 / -0.275 |")
    assert data["source"] == str(source) and (tmp_path / "r2.png").stat().st_size > 1000
    written = json.loads((tmp_path / "out" / "regression_guide_table.json").read_text())
    summary = written["tables"][0]["rows"]
    assert summary[2] == ["front door (front_door) ε = 1, δ = 0", "0.250", "2 / 2", "2 / 2"]
    assert summary[3][2:] == ["1 / 2", "1 / 2"]  # beta at δ = 1/n² is below the mean
    guide.main([str(source), "--out", str(tmp_path / "out"), "--layout", "median",
                "--plot", str(tmp_path / "median.png")])
    assert (tmp_path / "median.png").stat().st_size > 1000
    with pytest.raises(FileNotFoundError, match="corpus_run.py --task regression"):
        guide.main([str(tmp_path / "missing.json"), "--out", str(tmp_path / "out")])
    (tmp_path / "cls.json").write_text(json.dumps({"data": {"task": "classification", "cells": []}}))
    with pytest.raises(ValueError, match="not the output of corpus_run.py --task regression"):
        guide.main([str(tmp_path / "cls.json"), "--out", str(tmp_path / "out")])


@pytest.mark.slow
def test_regression_guide_table_on_a_quick_corpus_run(tmp_path):
    """The script on a real corpus_run.py --task regression --quick output (two tables)."""
    import corpus_run
    import regression_guide_table as guide

    corpus_run.main(["--task", "regression", "--quick", "--procs", "1", "--out", str(tmp_path)])
    data = guide.main([str(tmp_path), "--quick", "--out", str(tmp_path)])
    rows = [line for line in data["guide_table"] if line.startswith("| ")]
    assert len(rows) == 1 + len(data["tables"]) + 1  # header, the tables, the median
    assert "front door ε = 1" in rows[0] and "training mean" in rows[0]
    assert Path(data["plot"]).stat().st_size > 1000


def test_front_door_writes_its_results_in_the_out_folder(tmp_path, monkeypatch):
    """front_door.py --out DIR appends to DIR/front_door.jsonl and --report reads it there; the
    default folder is left as it was. A stand-in split and model (no data set, no private
    fit): only where the lines go is checked."""
    import front_door as fd
    from sklearn.dummy import DummyClassifier

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(40, 2)), np.arange(40) % 2
    monkeypatch.setattr(fd.fdd, "split", lambda name, seed: (X, y, X, y, [0, 1], (1.0,)))
    monkeypatch.setattr(fd, "_current", lambda *args: {"stand-in": DummyClassifier()})
    before = fd.RESULTS.stat().st_mtime_ns if fd.RESULTS.exists() else None
    monkeypatch.setattr(sys, "argv", ["front_door.py", "--only", "stand-in", "--seeds", "1",
                                      "--out", str(tmp_path)])
    fd.main()
    lines = (tmp_path / "front_door.jsonl").read_text().splitlines()
    assert {json.loads(line)["model"] for line in lines} == {"stand-in", "non-private LR",
                                                               "majority"}
    assert (fd.RESULTS.stat().st_mtime_ns if fd.RESULTS.exists() else None) == before
    assert fd.report(tmp_path / "front_door.jsonl").startswith("# The front door")
