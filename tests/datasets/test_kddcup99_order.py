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

#: Pins of ``load_kddcup99(70000, random_state=1999)``, the sample of the benchmarks and
#: problem files: exact on integer content (labels, which entries are non-zero), within
#: rounding on the float values (their last bits depend on the CPU's SIMD loops: log1p,
#: row norms), so the same pins hold on every machine.
SAMPLE_SHAPE = (70000, 122)
#: sha256 of the labels as little-endian int64 bytes.
SHA256_Y_70000_1999 = "1a13f9d819f0ad5f1962a549c7c32d288040772a10ad2fa8253d5c80c5d6facf"
#: sha256 of ``np.packbits(X != 0)``: the non-zero pattern (zeros stay exact zeros).
SHA256_NONZERO_70000_1999 = "7aecf4693fedd3d50b8280b7752f15c5d032abc16bddaa17cfce4a2c463a326d"
#: ``sum(X)`` and ``r @ X @ c`` (r_i = i mod 97 + 1, c_j = j + 1: sensitive to the order of
#: rows and columns) recorded from the sample.
SUMS_70000_1999 = (219958.90762560832, 938412670.2900096)
#: Both sums add n·p = 8.54e6 non-negative terms, each within a few ulps of the recorded
#: value on another CPU; summation in another order errs by at most n·p·2^-53 < 9.5e-10
#: relative. A different row, order or scaling moves them by far more (one row of the
#: sample is ~1e-5 of the first).
SUMS_RTOL = 1e-9


def _write_small(folder: Path, n: int = N_SMALL) -> Path:
    """A KDD'99 file of n records, record k with duration k (so every row is distinct)."""
    lines = [f"{k}," + KDD_LINES[k % 2].split(",", 1)[1] for k in range(n)]
    path = folder / "kddcup.data_10_percent.gz"
    with gzip.open(path, "wt", encoding="ascii") as fh:
        fh.write("\n".join(lines) + "\n")
    return path


def _load(folder: Path, *args, **kw):
    return load_kddcup99(*args, data_home=folder, download=False, verify_checksum=False,
                         row_norm="none", **kw)


def _record_numbers(X: np.ndarray, X_file: np.ndarray) -> np.ndarray:
    """The file position of every row of X (rows are identified by their duration)."""
    where = {v: i for i, v in enumerate(X_file[:, DURATION])}
    assert len(where) == X_file.shape[0]
    return np.array([where[v] for v in X[:, DURATION]])


def _pins(X: np.ndarray, y: np.ndarray) -> tuple[str, str, tuple[float, float]]:
    """(sha256 of the labels, sha256 of the non-zero pattern, the two sums of X)."""
    y_sha = hashlib.sha256(np.ascontiguousarray(y, dtype="<i8").tobytes()).hexdigest()
    nz_sha = hashlib.sha256(np.packbits(np.asarray(X) != 0).tobytes()).hexdigest()
    r = np.arange(X.shape[0]) % 97 + 1.0
    c = np.arange(1.0, X.shape[1] + 1)
    return y_sha, nz_sha, (float(np.sum(X)), float(r @ X @ c))


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
    """The sample of the benchmarks and problem files: the same rows, labels and values
    their recorded results were computed on (integer content exactly, floats within
    rounding: the pins hold on any CPU)."""
    X, y = load_kddcup99(70000, random_state=1999, data_home=data_home, download=False)
    assert X.shape == SAMPLE_SHAPE and X.dtype == np.float64 and y.shape == SAMPLE_SHAPE[:1]
    assert np.all(X >= 0.0)  # the sums' relative error bound needs non-negative terms
    y_sha, nz_sha, sums = _pins(X, y)
    assert y_sha == SHA256_Y_70000_1999
    assert nz_sha == SHA256_NONZERO_70000_1999
    np.testing.assert_allclose(sums, SUMS_70000_1999, rtol=SUMS_RTOL, atol=0)


def test_sample_pins_see_a_changed_sample(tmp_path):
    """The pins separate samples that differ in one row, in order or by a scaling."""
    _write_small(tmp_path, n=40)
    X, y = _load(tmp_path, 30, random_state=0)
    y_sha, nz_sha, sums = _pins(X, y)
    for X2, y2 in ((X[::-1], y[::-1]), (np.vstack([X[:-1], X[:1]]), np.r_[y[:-1], y[:1]]),
                   (X * (1 + 1e-6), y)):
        y2_sha, nz2_sha, sums2 = _pins(X2, y2)
        moved = not np.allclose(sums2, sums, rtol=SUMS_RTOL, atol=0)
        assert moved or y2_sha != y_sha or nz2_sha != nz_sha
    assert _pins(X.copy(), y.copy()) == (y_sha, nz_sha, sums)


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
