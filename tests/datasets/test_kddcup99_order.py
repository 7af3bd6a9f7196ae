"""Row order and split of :func:`dpconvex.datasets.load_kddcup99`.

The default order is the public permutation ``default_rng(KDDCUP99_ORDER_SEED)``
(a function of the row count only); ``subset="train"`` / ``"test"`` split that
permutation at a fixed position; a sample (``n_samples``) of all rows is
``rng.choice(n_rows, n_samples, replace=False)`` over the rows in file order. Small
files written here are loaded with ``verify_checksum=False``; the tests on the UCI
file ask for the ``data_home`` fixture (skipped locally without it).
"""

from __future__ import annotations

import doctest
import gzip
import hashlib
import math
from pathlib import Path

import numpy as np
import pytest
from _helpers import KDD_LINES

from dpconvex.datasets import (
    KDDCUP99_FEATURE_NAMES,
    KDDCUP99_ORDER_SEED,
    KDDCUP99_TEST_FRACTION,
    load_kddcup99,
)
from dpconvex.datasets import uci as uci_module
from dpconvex.errors import DatasetError, ParameterError

N_SMALL = 23  # test subset: ceil(0.2 * 23) = 5 rows, train 18
DURATION = list(KDDCUP99_FEATURE_NAMES).index("duration")

#: sha256 of ``load_kddcup99(70000, random_state=1999)`` (X bytes, y bytes, shapes and
#: dtypes), the sample of the benchmarks and problem files: it must not change.
SHA256_70000_1999 = "da85824e970b3f3980532b2950b306cefc241f8190104cc0dab0cb0746204d82"


def _write_small(folder: Path, n: int = N_SMALL) -> Path:
    """A KDD'99 file of n records, record k with duration k (so every row is distinct)."""
    lines = [f"{k}," + KDD_LINES[k % 2].split(",", 1)[1] for k in range(n)]
    path = folder / "kddcup.data_10_percent.gz"
    with gzip.open(path, "wt", encoding="ascii") as fh:
        fh.write("\n".join(lines) + "\n")
    return path


def _load(folder: Path, *args, **kw):
    return load_kddcup99(*args, data_home=folder, download=False, verify_checksum=False,
                         row_norm=None, **kw)


def _record_numbers(X: np.ndarray, X_file: np.ndarray) -> np.ndarray:
    """The file position of every row of X (rows are identified by their duration)."""
    where = {v: i for i, v in enumerate(X_file[:, DURATION])}
    assert len(where) == X_file.shape[0]
    return np.array([where[v] for v in X[:, DURATION]])


def _digest(X: np.ndarray, y: np.ndarray) -> str:
    m = hashlib.sha256()
    m.update(np.ascontiguousarray(X).tobytes())
    m.update(np.ascontiguousarray(y).tobytes())
    m.update(repr((X.shape, X.dtype.str, y.shape, y.dtype.str)).encode())
    return m.hexdigest()


def test_default_order_is_the_public_permutation(tmp_path):
    _write_small(tmp_path)
    X_file, y_file = _load(tmp_path, shuffle=False)
    assert X_file[:, DURATION].tolist() == sorted(X_file[:, DURATION])  # file order
    perm = np.random.default_rng(KDDCUP99_ORDER_SEED).permutation(N_SMALL)
    assert not np.array_equal(perm, np.arange(N_SMALL))
    X, y = _load(tmp_path)
    np.testing.assert_array_equal(_record_numbers(X, X_file), perm)
    np.testing.assert_array_equal(X, X_file[perm])  # the same rows, bit for bit
    np.testing.assert_array_equal(y, y_file[perm])
    assert y.classes.tolist() == [0, 1]
    # fixed: the same on every call, and random_state does not reach it
    X2, _ = _load(tmp_path, random_state=5)
    np.testing.assert_array_equal(X2, X)


def test_subsets_are_a_fixed_disjoint_cover(tmp_path):
    _write_small(tmp_path)
    X_file, _ = _load(tmp_path, shuffle=False)
    perm = np.random.default_rng(KDDCUP99_ORDER_SEED).permutation(N_SMALL)
    n_test = math.ceil(KDDCUP99_TEST_FRACTION * N_SMALL)
    assert n_test == 5
    rows = {}
    for subset in ("train", "test"):
        X, y = _load(tmp_path, subset=subset)
        rows[subset] = _record_numbers(X, X_file)
        Xs, ys = _load(tmp_path, subset=subset, shuffle=False)
        np.testing.assert_array_equal(_record_numbers(Xs, X_file), np.sort(rows[subset]))
        np.testing.assert_array_equal(ys, y[np.argsort(rows[subset])])
    np.testing.assert_array_equal(rows["train"], perm[: N_SMALL - n_test])
    np.testing.assert_array_equal(rows["test"], perm[N_SMALL - n_test:])
    assert not set(rows["train"]) & set(rows["test"])
    assert sorted([*rows["train"], *rows["test"]]) == list(range(N_SMALL))
    X_all, _ = _load(tmp_path)
    np.testing.assert_array_equal(np.vstack([_load(tmp_path, subset="train")[0],
                                             _load(tmp_path, subset="test")[0]]), X_all)


def test_samples_of_a_subset(tmp_path):
    _write_small(tmp_path)
    X_file, _ = _load(tmp_path, shuffle=False)
    test_rows = set(_record_numbers(_load(tmp_path, subset="test")[0], X_file))
    X, _ = _load(tmp_path, 4, subset="test", random_state=0)
    drawn = _record_numbers(X, X_file)
    assert len(set(drawn)) == 4 and set(drawn) <= test_rows
    pool = np.sort(list(test_rows))
    np.testing.assert_array_equal(drawn, pool[np.random.default_rng(0).choice(5, 4, replace=False)])
    Xs, _ = _load(tmp_path, 4, subset="test", random_state=0, shuffle=False)
    np.testing.assert_array_equal(_record_numbers(Xs, X_file), np.sort(drawn))
    with pytest.raises(ParameterError, match="at most the number of rows of subset='test' \\(5\\)"):
        _load(tmp_path, 6, subset="test", random_state=0)
    # a sample of all rows indexes the file order
    X, _ = _load(tmp_path, 7, random_state=3)
    np.testing.assert_array_equal(_record_numbers(X, X_file),
                                  np.random.default_rng(3).choice(N_SMALL, 7, replace=False))


@pytest.mark.parametrize(("kw", "match"), [
    ({"subset": "validation"}, "'subset' parameter of load_kddcup99 must be one of"),
    ({"subset": None}, "'subset' parameter"),
    ({"shuffle": "yes"}, "shuffle"),
    ({"shuffle": None}, "shuffle"),
])
def test_bad_subset_or_shuffle(tmp_path, kw, match):
    _write_small(tmp_path)
    with pytest.raises(ParameterError, match=match):
        _load(tmp_path, **kw)


def test_one_record_has_no_train_subset(tmp_path):
    _write_small(tmp_path, n=1)
    with pytest.raises(DatasetError, match="too few for subset='train'"):
        _load(tmp_path, subset="train")
    assert _load(tmp_path, subset="test")[0].shape == (1, 122)
    assert _load(tmp_path)[0].shape == (1, 122)


@pytest.mark.slow  # reads the 494,021 records of the 10% file (about 5 s)
def test_uci_file_sample_unchanged(data_home):
    """The sample of the benchmarks and problem files, bit for bit: the sha256 pins the
    arrays their recorded results were computed on."""
    X, y = load_kddcup99(70000, random_state=1999, data_home=data_home, download=False)
    assert _digest(X, y) == SHA256_70000_1999


@pytest.mark.slow  # the docstring example reads the 10% file (about 5 s)
def test_docstring_example_runs(data_home, monkeypatch):
    monkeypatch.setenv("DPCONVEX_DATA", str(data_home))
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    tests = finder.find(uci_module.load_kddcup99, "load_kddcup99", globs={})
    assert tests and tests[0].examples
    for t in tests:
        runner.run(t)
    assert runner.summarize(verbose=False).failed == 0
