"""benchmarks/corpus_run.py: the criteria on hand-made cells, and the harness on a toy table."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))

import corpus  # noqa: E402
import corpus_run  # noqa: E402

from dpconvex import Numeric, PublicSchema  # noqa: E402


def _cell(name, rule, majority, singles=None, dpl=None):
    return {"table": name, "epsilon": 1.0, "delta": "0", "rule": rule, "majority": majority,
            "non_private": 0.9, "singles": singles or {}, "diffprivlib": dpl or {}}


def test_criteria_count_the_cells_by_the_issue_thresholds():
    cells = [
        # 0.6 points below the majority (fails a); exactly 1 point below the best single
        # (within b); equal to diffprivlib's best (meets c)
        _cell("a", 0.794, 0.800, {"logistic": 0.804, "huber": 0.70}, {"dp_lr": 0.794}),
        # at the majority (not a); 1.1 points below the best single (not b); below
        # diffprivlib's best of two (not c)
        _cell("b", 0.800, 0.800, {"logistic": 0.811}, {"dp_lr": 0.81, "dp_gnb": 0.70}),
        # exactly 0.5 points below the majority (not a); above the best single (b)
        _cell("c", 0.795, 0.800, {"centroid": 0.79}),
        # no rule mean (refused): in no criterion
        _cell("d", None, 0.9, {"logistic": 0.95}, {"dp_lr": 0.5}),
    ]
    got = corpus_run.criteria(cells)
    assert got["cells"] == 4 and got["no_rule"] == 1
    assert got["below_majority"] == 1 and got["below_majority_cells"] == [("a", 1.0, "0")]
    assert (got["within_1pt"], got["with_singles"]) == (2, 3)
    assert got["within_1pt_share"] == pytest.approx(2 / 3)
    assert (got["at_least_diffprivlib"], got["with_diffprivlib"]) == (1, 2)
    assert got["at_least_diffprivlib_share"] == 0.5


def _toy_split(name, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, (200, 3)) / np.sqrt(3)
    y = (X[:, 0] + 0.1 * rng.standard_normal(200) > 0.35).astype(np.int64)
    return corpus.Split(X[:140], y[:140], X[140:], y[140:], (0, 1))


@pytest.fixture
def toy_corpus(monkeypatch):
    table = corpus.CorpusTable("none", "none", "y", ("no", "yes"),
                               PublicSchema({f"x{i}": Numeric(0, 1) for i in range(3)}), "toy")
    monkeypatch.setattr(corpus, "TABLES", {"toy": table})
    monkeypatch.setattr(corpus, "split", _toy_split)


def test_harness_scores_a_toy_table_and_reuses_its_cache(toy_corpus, tmp_path):
    argv = ["--tables", "toy", "--n-seeds", "2", "--epsilons", "1", "--deltas", "0", "1/n2",
            "--learners", "front_door", "front_door_unguarded", "logistic", "--tag", "t", "--out",
            str(tmp_path)]
    data = corpus_run.main(argv)
    seeds = list(corpus.SELECTION_SEEDS[:2])
    assert [(c["epsilon"], c["delta"]) for c in data["cells"]] == [(1.0, "0"), (1.0, "1/n2")]
    majority = []
    for s in seeds:
        sp = _toy_split("toy", s)
        majority.append(np.mean(sp.y_test == np.bincount(sp.y_train).argmax()))
    mean, se = data["cells"][0]["stats"]["majority"]
    assert mean == pytest.approx(np.mean(majority))
    assert se == pytest.approx(np.std(majority, ddof=1) / np.sqrt(2))
    lines = [json.loads(x) for x in (tmp_path / "corpus_run.jsonl").read_text().splitlines()]
    assert len(lines) == 2 * (2 + 3 * 2)  # per seed: two baselines, three learners at two deltas
    n = 140
    assert {r["delta_value"] for r in lines if r["delta"] == "1/n2"} == {1 / n**2}
    # the rule column is the front door's fits; the criteria read the same means
    fd = [r["accuracy"] for r in lines if r["learner"] == "front_door" and r["delta"] == "0"]
    assert data["cells"][0]["rule"] == pytest.approx(np.mean(fd))
    assert data["criteria"]["cells"] == 2
    assert (tmp_path / "corpus_run.md").read_text().count("majority class") >= 1
    # a rerun with the library's rule as a choice rule fits only the learner it picks, and
    # scores what the front door without its safeguard released (same learner, same noise seed)
    by_rule = corpus_run.main([*argv[:-5], "--rule", "library", "--tag", "t", "--out",
                               str(tmp_path)])
    unguarded = [np.mean([r["accuracy"] for r in lines if r["learner"] == "front_door_unguarded"
                          and r["delta"] == dspec]) for dspec in ("0", "1/n2")]
    assert [c["rule"] for c in by_rule["cells"]] == pytest.approx(unguarded)
    again = [json.loads(x) for x in (tmp_path / "corpus_run.jsonl").read_text().splitlines()]
    new = again[len(lines):]
    assert {r["learner"] for r in new} <= {"huber", "centroid", "large_margin", "noisy_gd"}
    assert len(new) <= 2 * 2


def test_train_rows_fits_on_a_subsample_and_leaves_out_smaller_tables(toy_corpus, tmp_path):
    argv = ["--tables", "toy", "--n-seeds", "1", "--epsilons", "1", "--deltas", "0",
            "--learners", "logistic", "--tag", "t", "--out", str(tmp_path)]
    data = corpus_run.main([*argv, "--train-rows", "60"])
    seed = corpus.SELECTION_SEEDS[0]
    assert [(s["n_train"], s["n_test"]) for s in data["splits"]] == [(60, 60)]
    full = _toy_split("toy", seed)
    X, y = corpus_run.harness.subsample(full.X_train, full.y_train, 60, seed)
    assert corpus_run.fingerprint(corpus_run.load_split("toy", seed, False, 60)) == \
        corpus_run.fingerprint(corpus.Split(X, y, full.X_test, full.y_test, full.classes))
    assert (tmp_path / "corpus_run-rows60.jsonl").exists()
    assert (tmp_path / "corpus_run-rows60.md").exists()
    assert not (tmp_path / "corpus_run.jsonl").exists()
    with pytest.raises(RuntimeError, match=r"fewer training rows than --train-rows \['toy'\]"):
        corpus_run.main([*argv, "--train-rows", "500"])
