"""Tests of dpconvex.datasets: counts, norm bounds, and privacy-safe (public) scaling.

Real files are found as the loaders find them (``$DPCONVEX_DATA``, else
``<repo>/../shared/datasets``; CI clones the repo with ``shared/`` beside it)
through the ``data_home`` fixture of ``conftest.py``: tests needing them are
skipped locally when the files are missing and fail in CI (``CI=true``). The
network is never used: ``_download`` is replaced for every test. Small files
written by the tests are not the UCI files, so they are loaded with
``verify_checksum=False``.
"""

from __future__ import annotations

import gzip
import hashlib
import math
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from _helpers import ADULT_LINES, KDD_LINES

from dpconvex import datasets
from dpconvex.data.schema import norm_divisor
from dpconvex.datasets import (
    ADULT_CATEGORIES,
    ADULT_FEATURE_NAMES,
    ADULT_NUMERIC_RANGES,
    BREAST_CANCER_NUMERIC_RANGES,
    DATASET_SHA256,
    KDDCUP99_CATEGORIES,
    KDDCUP99_FEATURE_NAMES,
    KDDCUP99_LOG_SCALED,
    KDDCUP99_NUMERIC_RANGES,
    _files,
    get_data_home,
    load_adult,
    load_breast_cancer_wisconsin,
    load_kddcup99,
)
from dpconvex.errors import DatasetError, ParameterError

ADULT_WIDTH = 104
KDD_WIDTH = 122

BREAST_LINES = [
    "1000025,5,1,1,1,2,1,3,1,1,2",
    "1002945,5,4,4,5,7,10,3,2,1,2",
    "1017023,4,1,1,3,2,?,3,1,1,2",
    "1017122,8,10,10,8,7,10,9,7,1,4",
]


@pytest.fixture(autouse=True)
def _no_network(monkeypatch):
    """Fail loudly if any test tries to download."""

    def refuse(url, timeout):
        raise AssertionError(f"test tried to download {url}")

    monkeypatch.setattr(_files, "_download", refuse)


def _write(folder: Path, name: str, lines: list[str]) -> Path:
    path = folder / name
    path.write_text("\n".join(lines) + "\n", encoding="ascii")
    return path


def _write_kdd(folder: Path, lines: list[str]) -> Path:
    path = folder / "kddcup.data_10_percent.gz"
    with gzip.open(path, "wt", encoding="ascii") as fh:
        fh.write("\n".join(lines) + "\n")
    return path


def _check_rows(X: np.ndarray, width: int) -> None:
    assert X.dtype == np.float64
    assert X.ndim == 2 and X.shape[1] == width
    assert np.all(np.isfinite(X))
    assert X.min() >= 0.0
    assert np.linalg.norm(X, axis=1).max() <= 1.0 + 1e-12


# ---------------------------------------------------------------- data home


def test_get_data_home_argument_wins(tmp_path, monkeypatch):
    monkeypatch.setenv("DPCONVEX_DATA", str(tmp_path / "env"))
    assert get_data_home(tmp_path / "arg") == tmp_path / "arg"
    assert get_data_home(str(tmp_path)) == tmp_path


def test_get_data_home_env_then_default(tmp_path, monkeypatch):
    monkeypatch.setenv("DPCONVEX_DATA", str(tmp_path / "env"))
    assert get_data_home() == tmp_path / "env"
    monkeypatch.delenv("DPCONVEX_DATA")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(_files, "project_root", lambda: None)  # an installed wheel
    home = get_data_home()
    assert home == tmp_path / ".cache" / "dpconvex"
    assert home.is_dir()


def test_get_data_home_bad_type():
    with pytest.raises(ParameterError, match="data_home"):
        get_data_home(3)


# ------------------------------------------------------ public constants


def test_ranges_are_public_constants():
    for ranges in (ADULT_NUMERIC_RANGES, KDDCUP99_NUMERIC_RANGES, BREAST_CANCER_NUMERIC_RANGES):
        assert isinstance(ranges, dict)
        for lo, hi in ranges.values():
            assert math.isfinite(lo) and math.isfinite(hi) and lo < hi
    assert "fnlwgt" not in ADULT_NUMERIC_RANGES  # dropped, documented
    assert ADULT_NUMERIC_RANGES["age"] == (0.0, 100.0)
    assert ADULT_NUMERIC_RANGES["hours-per-week"] == (0.0, 99.0)
    assert ADULT_NUMERIC_RANGES["capital-gain"] == (0.0, 99999.0)
    assert KDDCUP99_NUMERIC_RANGES["count"] == (0.0, 511.0)
    assert KDDCUP99_NUMERIC_RANGES["dst_host_count"] == (0.0, 255.0)
    assert KDDCUP99_NUMERIC_RANGES["serror_rate"] == (0.0, 1.0)
    assert {"src_bytes", "dst_bytes", "duration"} <= KDDCUP99_LOG_SCALED
    assert KDDCUP99_LOG_SCALED <= set(KDDCUP99_NUMERIC_RANGES)
    assert len(KDDCUP99_NUMERIC_RANGES) == 38
    assert not set(KDDCUP99_NUMERIC_RANGES) & set(KDDCUP99_CATEGORIES)
    assert [len(v) for v in KDDCUP99_CATEGORIES.values()] == [3, 70, 11]
    assert sum(len(v) for v in ADULT_CATEGORIES.values()) == 99
    assert len(ADULT_FEATURE_NAMES) == ADULT_WIDTH
    assert len(KDDCUP99_FEATURE_NAMES) == KDD_WIDTH
    assert norm_divisor(ADULT_NUMERIC_RANGES, ADULT_CATEGORIES) == math.sqrt(13)
    assert norm_divisor(KDDCUP99_NUMERIC_RANGES, KDDCUP99_CATEGORIES) == math.sqrt(41)
    assert norm_divisor(BREAST_CANCER_NUMERIC_RANGES) == 3.0
    assert set(DATASET_SHA256) == set(datasets.DATASET_URLS)


# ------------------------------------------------------------ breast cancer


def test_breast_cancer_counts_and_norms(data_home):
    X, y = load_breast_cancer_wisconsin(data_home=data_home, download=False, row_norm="none")
    assert X.shape == (683, 9)
    _check_rows(X, 9)
    assert y.dtype.kind == "i"
    assert np.bincount(y).tolist() == [444, 239]
    # (x - 1) / 9 / 3 for integers 1..10: multiples of 1/27 in [0, 1/3].
    assert np.allclose(X * 27, np.round(X * 27))
    assert X.max() == pytest.approx(1 / 3)


def test_breast_cancer_scaling_not_data_derived(data_home, tmp_path):
    """An extra record with a huge value changes no other record's features."""
    X, y = load_breast_cancer_wisconsin(data_home=data_home, download=False, row_norm="none")
    original = (data_home / "breast-cancer-wisconsin.data").read_text(encoding="ascii")
    extra = "9999999,1000000,1,1,1,2,1,3,1,1,4\n"
    (tmp_path / "breast-cancer-wisconsin.data").write_text(original + extra, encoding="ascii")
    X2, y2 = load_breast_cancer_wisconsin(
        data_home=tmp_path, download=False, verify_checksum=False, row_norm="none",
    )
    assert X2.shape == (684, 9)
    np.testing.assert_array_equal(X2[:-1], X)
    np.testing.assert_array_equal(y2[:-1], y)
    assert X2[-1, 0] == pytest.approx(1 / 3)  # clipped to the public maximum 10
    assert y2[-1] == 1


def test_breast_cancer_small_file(tmp_path):
    _write(tmp_path, "breast-cancer-wisconsin.data", BREAST_LINES)
    X, y = load_breast_cancer_wisconsin(
        data_home=tmp_path, download=False, verify_checksum=False, row_norm="none",
    )
    assert X.shape == (3, 9)  # the '?' row is dropped, the id column too
    assert y.tolist() == [0, 0, 1]
    assert y.classes.tolist() == [0, 1]  # the public label set travels with y
    np.testing.assert_allclose(X[0], (np.array([5, 1, 1, 1, 2, 1, 3, 1, 1]) - 1) / 9 / 3)


def test_breast_cancer_log_centered_encoding(tmp_path):
    """encoding="log-centered": log(x)/log(10) - 1/2 per score, rows divided by 1.5."""
    lines = [*BREAST_LINES, "7,1,1,1,1,1,1,1,1,1,2", "8,10,10,10,10,10,10,10,10,10,4",
             "9,50,0,1,1,1,1,1,1,1,4"]
    _write(tmp_path, "breast-cancer-wisconsin.data", lines)
    kw = dict(data_home=tmp_path, download=False, verify_checksum=False)
    X, y = load_breast_cancer_wisconsin(**kw, encoding="log-centered")
    raw = np.array([[5, 1, 1, 1, 2, 1, 3, 1, 1], [5, 4, 4, 5, 7, 10, 3, 2, 1],
                    [8, 10, 10, 8, 7, 10, 9, 7, 1], [1] * 9, [10] * 9,
                    [10, 1, 1, 1, 1, 1, 1, 1, 1]], dtype=float)  # 50 and 0 clipped to 10, 1
    np.testing.assert_allclose(X, (np.log10(raw) - 0.5) / 1.5, rtol=0, atol=1e-15)
    # the two extreme records are exactly +-(1/3, ..., 1/3): norm 1, opposite directions
    np.testing.assert_allclose(X[3], -np.ones(9) / 3, atol=1e-15)
    np.testing.assert_allclose(X[4], np.ones(9) / 3, atol=1e-15)
    assert np.linalg.norm(X, axis=1).max() <= 1.0
    linear, y2 = load_breast_cancer_wisconsin(**kw)
    np.testing.assert_array_equal(y, y2)
    assert not np.allclose(X, linear)
    # with a column selection the divisor counts the kept columns: sqrt(8)/2
    X8, _ = load_breast_cancer_wisconsin(**kw, encoding="log-centered", drop=("mitoses",))
    np.testing.assert_allclose(X8, (np.log10(raw[:, :8]) - 0.5) / (np.sqrt(8) / 2), atol=1e-15)
    for bad in ("log", None, 1):
        with pytest.raises(ParameterError, match="'encoding' parameter.*log-centered"):
            load_breast_cancer_wisconsin(**kw, encoding=bad)


def test_breast_cancer_malformed(tmp_path):
    _write(tmp_path, "breast-cancer-wisconsin.data", [*BREAST_LINES, "1,2,3"])
    with pytest.raises(DatasetError, match="expected 11"):
        load_breast_cancer_wisconsin(data_home=tmp_path, download=False, verify_checksum=False)
    _write(tmp_path, "breast-cancer-wisconsin.data", [*BREAST_LINES, "1,x,1,1,1,1,1,1,1,1,2"])
    with pytest.raises(DatasetError, match="non-numeric"):
        load_breast_cancer_wisconsin(data_home=tmp_path, download=False, verify_checksum=False)
    _write(tmp_path, "breast-cancer-wisconsin.data", [*BREAST_LINES, "1,1,1,1,1,1,1,1,1,nan,2"])
    with pytest.raises(DatasetError, match="non-finite"):
        load_breast_cancer_wisconsin(data_home=tmp_path, download=False, verify_checksum=False)
    _write(tmp_path, "breast-cancer-wisconsin.data", [*BREAST_LINES, "1,1,1,1,1,1,1,1,1,1,3"])
    with pytest.raises(DatasetError, match="unknown class"):
        load_breast_cancer_wisconsin(data_home=tmp_path, download=False, verify_checksum=False)


# ------------------------------------------------------------------ adult


@pytest.fixture(scope="module")
def adult_train(data_home):
    return load_adult("train", data_home=data_home, download=False)


@pytest.fixture(scope="module")
def adult_test(data_home):
    return load_adult("test", data_home=data_home, download=False)


@pytest.mark.slow
def test_adult_train(adult_train):
    X, y = adult_train
    assert X.shape == (30162, ADULT_WIDTH)
    _check_rows(X, ADULT_WIDTH)
    assert y.dtype.kind == "i"
    assert np.bincount(y).tolist() == [22654, 7508]


@pytest.mark.slow
def test_adult_test(adult_test, adult_train):
    X, y = adult_test
    assert X.shape == (15060, ADULT_WIDTH)
    _check_rows(X, ADULT_WIDTH)
    assert set(np.unique(y)) == {0, 1}
    assert X.shape[1] == adult_train[0].shape[1]


@pytest.mark.slow
def test_adult_all(data_home, adult_train, adult_test):
    X, y = load_adult("all", data_home=data_home, download=False)
    assert X.shape == (45222, ADULT_WIDTH)
    np.testing.assert_array_equal(X, np.vstack([adult_train[0], adult_test[0]]))
    np.testing.assert_array_equal(y, np.concatenate([adult_train[1], adult_test[1]]))


@pytest.mark.slow
def test_adult_every_category_known(adult_train):
    """Each one-hot block of the real data holds exactly one non-zero (vocabulary is complete)."""
    X, _ = adult_train  # row_norm="unit" (the default) scales rows, never zeroes an entry
    for col, voc in ADULT_CATEGORIES.items():
        idx = [i for i, name in enumerate(ADULT_FEATURE_NAMES) if name.startswith(col + "=")]
        assert len(idx) == len(voc)
        np.testing.assert_array_equal(np.count_nonzero(X[:, idx], axis=1), 1)


def test_adult_small_files(tmp_path):
    _write(tmp_path, "adult.data", [*ADULT_LINES, ADULT_LINES[0].replace("State-gov", "?")])
    _write(
        tmp_path,
        "adult.test",
        ["|1x3 Cross validator", *(ln + "." for ln in ADULT_LINES)],
    )
    X, y = load_adult("train", data_home=tmp_path, download=False, verify_checksum=False, row_norm="none")
    assert X.shape == (3, ADULT_WIDTH)  # the '?' row is dropped
    assert y.tolist() == [0, 0, 1]
    assert y.classes.tolist() == [0, 1] and y[:2].classes.tolist() == [0, 1]  # public set
    Xt, yt = load_adult("test", data_home=tmp_path, download=False, verify_checksum=False, row_norm="none")
    np.testing.assert_array_equal(Xt, X)
    np.testing.assert_array_equal(yt, y)
    # First record by hand: age 39 in [0, 100], education-num 13 in [1, 16], ...
    names = list(ADULT_FEATURE_NAMES)
    s = math.sqrt(13)
    assert X[0, names.index("age")] * s == pytest.approx(0.39)
    assert X[0, names.index("education-num")] * s == pytest.approx(12 / 15)
    assert X[0, names.index("capital-gain")] * s == pytest.approx(math.log1p(2174) / math.log1p(99999))
    assert X[0, names.index("hours-per-week")] * s == pytest.approx(40 / 99)
    assert X[0, names.index("workclass=State-gov")] * s == pytest.approx(1.0)
    assert np.count_nonzero(X[0]) == 5 + 8 - 1  # capital-loss is 0


def test_adult_scaling_not_data_derived(tmp_path):
    huge = "150" + ADULT_LINES[2].removeprefix("52").replace("15024", "123456789")
    _write(tmp_path, "adult.data", ADULT_LINES)
    X, _ = load_adult(data_home=tmp_path, download=False, verify_checksum=False, row_norm="none")
    _write(tmp_path, "adult.data", [*ADULT_LINES, huge])
    X2, _ = load_adult(data_home=tmp_path, download=False, verify_checksum=False, row_norm="none")
    np.testing.assert_array_equal(X2[:-1], X)
    names = list(ADULT_FEATURE_NAMES)
    s = math.sqrt(13)
    assert X2[-1, names.index("capital-gain")] * s == pytest.approx(1.0)  # clipped
    assert X2[-1, names.index("age")] * s == pytest.approx(1.0)  # clipped
    assert np.linalg.norm(X2, axis=1).max() <= 1.0 + 1e-12


def test_adult_unknown_category_is_zero_block(tmp_path):
    _write(tmp_path, "adult.data", [ADULT_LINES[0].replace("State-gov", "Martian-gov")])
    X, _ = load_adult(data_home=tmp_path, download=False, verify_checksum=False)
    idx = [i for i, n in enumerate(ADULT_FEATURE_NAMES) if n.startswith("workclass=")]
    assert not X[0, idx].any()
    assert X.shape[1] == ADULT_WIDTH  # vocabulary not extended


def test_adult_malformed(tmp_path):
    _write(tmp_path, "adult.data", [*ADULT_LINES, "39, State-gov, 77516"])
    with pytest.raises(DatasetError, match="expected 15"):
        load_adult(data_home=tmp_path, download=False, verify_checksum=False)
    _write(tmp_path, "adult.data", [ADULT_LINES[0].replace("<=50K", "rich")])
    with pytest.raises(DatasetError, match="unknown label"):
        load_adult(data_home=tmp_path, download=False, verify_checksum=False)


@pytest.mark.parametrize("subset", ["validation", "TRAIN", None, 1])
def test_adult_bad_subset(subset, tmp_path):
    with pytest.raises(ParameterError, match="subset"):
        load_adult(subset, data_home=tmp_path, download=False, verify_checksum=False)


def test_adult_bad_flags(tmp_path):
    with pytest.raises(ParameterError, match="download"):
        load_adult(data_home=tmp_path, download="no")
    with pytest.raises(ParameterError, match="return_frame"):
        load_adult(data_home=tmp_path, download=False, return_frame=1)


def test_adult_return_frame(tmp_path):
    _write(tmp_path, "adult.data", ADULT_LINES)
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="pandas"):
            load_adult(data_home=tmp_path, download=False, return_frame=True, verify_checksum=False)
        return
    frame, target = load_adult(data_home=tmp_path, download=False, return_frame=True, verify_checksum=False)
    assert list(frame.columns) == list(ADULT_FEATURE_NAMES)
    assert target.tolist() == [0, 0, 1]
    assert str(target.dtype) == "category" and target.cat.categories.tolist() == [0, 1]


# --------------------------------------------------------------- kddcup99


@pytest.fixture(scope="module")
def kdd_full(data_home):
    return load_kddcup99(data_home=data_home, download=False)


@pytest.mark.slow
def test_kddcup99_full(kdd_full):
    X, y = kdd_full
    assert X.shape == (494021, KDD_WIDTH)
    _check_rows(X, KDD_WIDTH)
    assert y.dtype.kind == "i"
    assert int((y == 0).sum()) == 97278
    assert int((y == 1).sum()) == 494021 - 97278
    # Every symbolic value of the file is in the public vocabulary.
    onehot = [i for i, name in enumerate(KDDCUP99_FEATURE_NAMES) if "=" in name]
    assert len(onehot) == 84
    np.testing.assert_array_equal(np.count_nonzero(X[:, onehot], axis=1), 3)


@pytest.mark.slow
def test_kddcup99_sample_reproducible(data_home):
    X1, y1 = load_kddcup99(70000, random_state=0, data_home=data_home, download=False)
    assert X1.shape == (70000, KDD_WIDTH)
    _check_rows(X1, KDD_WIDTH)
    assert set(np.unique(y1)) == {0, 1}
    X2, y2 = load_kddcup99(70000, random_state=0, data_home=data_home, download=False)
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)
    X3, _ = load_kddcup99(
        70000, random_state=np.random.default_rng(1), data_home=data_home, download=False
    )
    assert not np.array_equal(X1, X3)


def test_kddcup99_small_file(tmp_path):
    _write_kdd(tmp_path, KDD_LINES)
    X, y = load_kddcup99(data_home=tmp_path, download=False, verify_checksum=False, row_norm="none",
                         shuffle=False)
    assert y.tolist() == [0, 1]
    _check_rows(X, KDD_WIDTH)
    names = list(KDDCUP99_FEATURE_NAMES)
    s = math.sqrt(41)
    big = math.log1p(2**32 - 1)
    assert X[0, names.index("src_bytes")] * s == pytest.approx(math.log1p(181) / big)
    assert X[0, names.index("count")] * s == pytest.approx(8 / 511)
    assert X[1, names.index("count")] * s == pytest.approx(1.0)
    assert X[1, names.index("dst_host_count")] * s == pytest.approx(1.0)
    assert X[0, names.index("logged_in")] * s == pytest.approx(1.0)
    assert X[1, names.index("protocol_type=icmp")] * s == pytest.approx(1.0)
    assert X[1, names.index("service=ecr_i")] * s == pytest.approx(1.0)
    assert X[0, names.index("flag=SF")] * s == pytest.approx(1.0)
    # A sample of all rows is a permutation of them.
    Xs, ys = load_kddcup99(
        2, random_state=3, data_home=tmp_path, download=False, verify_checksum=False, row_norm="none",
    )
    assert sorted(ys.tolist()) == [0, 1]
    np.testing.assert_array_equal(Xs[np.argsort(ys)], X)
    _, y1 = load_kddcup99(1, random_state=0, data_home=tmp_path, download=False,
                          verify_checksum=False)
    assert y1.classes.tolist() == [0, 1]  # one record, one label: the public set all the same


def test_kddcup99_scaling_not_data_derived(tmp_path):
    _write_kdd(tmp_path, KDD_LINES)
    X, _ = load_kddcup99(data_home=tmp_path, download=False, verify_checksum=False, row_norm="none",
                         shuffle=False)
    huge = KDD_LINES[0].replace("0,tcp,http,SF,181,", "99999999999,tcp,nosuch,SF,99999999999999,")
    _write_kdd(tmp_path, [*KDD_LINES, huge])
    X2, y2 = load_kddcup99(data_home=tmp_path, download=False, verify_checksum=False, row_norm="none",
                           shuffle=False)
    np.testing.assert_array_equal(X2[:-1], X)
    names = list(KDDCUP99_FEATURE_NAMES)
    s = math.sqrt(41)
    assert X2[-1, names.index("src_bytes")] * s == pytest.approx(1.0)  # clipped
    assert X2[-1, names.index("duration")] * s == pytest.approx(1.0)  # clipped
    service = [i for i, n in enumerate(names) if n.startswith("service=")]
    assert not X2[-1, service].any()  # unknown service: all-zero block
    assert X2.shape[1] == KDD_WIDTH


@pytest.mark.parametrize("n_samples", [0, -5, 2.0, True, "10"])
def test_kddcup99_bad_n_samples(n_samples, tmp_path):
    with pytest.raises(ParameterError, match="n_samples"):
        load_kddcup99(n_samples, data_home=tmp_path, download=False, verify_checksum=False)


def test_kddcup99_too_many_samples(tmp_path):
    _write_kdd(tmp_path, KDD_LINES)
    with pytest.raises(ParameterError, match="at most"):
        load_kddcup99(3, random_state=0, data_home=tmp_path, download=False, verify_checksum=False)
    with pytest.raises(ParameterError, match="random_state"):
        load_kddcup99(1, random_state="seed", data_home=tmp_path, download=False, verify_checksum=False)


def test_kddcup99_malformed(tmp_path):
    _write_kdd(tmp_path, [*KDD_LINES, "0,tcp,http"])
    with pytest.raises(DatasetError, match="expected 42"):
        load_kddcup99(data_home=tmp_path, download=False, verify_checksum=False)
    _write_kdd(tmp_path, [KDD_LINES[0].replace(",181,", ",abc,")])
    with pytest.raises(DatasetError, match="malformed"):
        load_kddcup99(data_home=tmp_path, download=False, verify_checksum=False)
    (tmp_path / "kddcup.data_10_percent.gz").write_bytes(b"not gzip")
    with pytest.raises(DatasetError, match="decompress"):
        load_kddcup99(data_home=tmp_path, download=False, verify_checksum=False)


# ------------------------------------------------------- missing / download


@pytest.mark.parametrize(
    ("loader", "filename"),
    [
        (lambda h: load_adult("train", data_home=h, download=False), "adult.data"),
        (lambda h: load_adult("test", data_home=h, download=False), "adult.test"),
        (lambda h: load_kddcup99(data_home=h, download=False), "kddcup.data_10_percent.gz"),
        (
            lambda h: load_breast_cancer_wisconsin(data_home=h, download=False),
            "breast-cancer-wisconsin.data",
        ),
    ],
)
def test_missing_file_raises(loader, filename, tmp_path):
    with pytest.raises(DatasetError) as info:
        loader(tmp_path)
    msg = str(info.value)
    assert filename in msg
    assert str(tmp_path) in msg
    assert "DPCONVEX_DATA" in msg and "data_home=" in msg


def test_download_failure_raises(tmp_path, monkeypatch):
    def fail(url, timeout):
        raise OSError("network unreachable")

    monkeypatch.setattr(_files, "_download", fail)
    with pytest.raises(DatasetError, match="network unreachable") as info:
        load_breast_cancer_wisconsin(data_home=tmp_path)
    assert "DPCONVEX_DATA" in str(info.value)
    assert not (tmp_path / "breast-cancer-wisconsin.data").exists()


def test_download_hash_mismatch_not_saved(tmp_path, monkeypatch):
    monkeypatch.setattr(_files, "_download", lambda url, timeout: b"tampered\n")
    with pytest.raises(DatasetError, match="SHA-256"):
        load_breast_cancer_wisconsin(data_home=tmp_path / "home")
    assert not (tmp_path / "home" / "breast-cancer-wisconsin.data").exists()


def test_download_verified_and_saved(data_home, tmp_path, monkeypatch):
    content = (data_home / "breast-cancer-wisconsin.data").read_bytes()
    assert hashlib.sha256(content).hexdigest() == DATASET_SHA256["breast-cancer-wisconsin.data"]
    calls = []

    def fake(url, timeout):
        calls.append(url)
        return content

    monkeypatch.setattr(_files, "_download", fake)
    home = tmp_path / "new"
    X, y = load_breast_cancer_wisconsin(data_home=home)
    assert calls == [datasets.DATASET_URLS["breast-cancer-wisconsin.data"]]
    assert (home / "breast-cancer-wisconsin.data").read_bytes() == content
    assert X.shape == (683, 9)
    load_breast_cancer_wisconsin(data_home=home)  # now found locally
    assert len(calls) == 1


def test_local_copies_match_pinned_hashes(data_home, tmp_path, monkeypatch):
    for name, digest in DATASET_SHA256.items():
        assert hashlib.sha256((data_home / name).read_bytes()).hexdigest() == digest
    # A copied folder works as a data home through the environment.
    shutil.copy(data_home / "breast-cancer-wisconsin.data", tmp_path)
    monkeypatch.setenv("DPCONVEX_DATA", str(tmp_path))
    X, _ = load_breast_cancer_wisconsin(download=False)
    assert X.shape == (683, 9)


# ------------------------------------------------------------- checksums


def _copy_bcw(data_home: Path, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copy(data_home / "breast-cancer-wisconsin.data", folder))


def test_flipped_byte_raises_and_opt_out_loads(data_home, tmp_path, monkeypatch):
    path = _copy_bcw(data_home, tmp_path)
    content = bytearray(path.read_bytes())
    i = content.index(b",5,1,1,1,2,1,3,1,1,2") + 1  # first record: clump thickness 5 -> 6
    content[i] = ord("6")
    path.write_bytes(bytes(content))
    with pytest.raises(DatasetError) as info:
        load_breast_cancer_wisconsin(data_home=tmp_path, download=False, row_norm="none")
    msg = str(info.value)
    assert str(path) in msg and DATASET_SHA256["breast-cancer-wisconsin.data"] in msg
    assert "verify_checksum=False" in msg and "DPCONVEX_SKIP_CHECKSUM=1" in msg
    # Opt-out by argument, and by environment variable.
    X, _ = load_breast_cancer_wisconsin(
        data_home=tmp_path, download=False, verify_checksum=False, row_norm="none",
    )
    assert X.shape == (683, 9)
    assert X[0, 0] == pytest.approx((6 - 1) / 9 / 3)
    monkeypatch.setenv("DPCONVEX_SKIP_CHECKSUM", "1")
    X2, _ = load_breast_cancer_wisconsin(data_home=tmp_path, download=False, row_norm="none")
    np.testing.assert_array_equal(X2, X)
    # An explicit verify_checksum=True wins over the environment.
    with pytest.raises(DatasetError, match="SHA-256"):
        load_breast_cancer_wisconsin(data_home=tmp_path, download=False, verify_checksum=True)
    monkeypatch.setenv("DPCONVEX_SKIP_CHECKSUM", "0")
    with pytest.raises(DatasetError, match="SHA-256"):
        load_breast_cancer_wisconsin(data_home=tmp_path, download=False, row_norm="none")


def test_truncated_adult_raises(data_home, tmp_path):
    """Half of adult.data loads as a smaller data set unless the checksum catches it."""
    content = (data_home / "adult.data").read_bytes()
    half = content[: content.index(b"\n", len(content) // 2) + 1]
    (tmp_path / "adult.data").write_bytes(half)
    with pytest.raises(DatasetError, match="truncated"):
        load_adult(data_home=tmp_path, download=False)
    X, _ = load_adult(data_home=tmp_path, download=False, verify_checksum=False)
    assert 0 < X.shape[0] < 30162


def test_kddcup99_checksum_checked(data_home, tmp_path):
    (tmp_path / "kddcup.data_10_percent.gz").write_bytes(
        (data_home / "kddcup.data_10_percent.gz").read_bytes()[:-100]
    )
    with pytest.raises(DatasetError, match="SHA-256"):
        load_kddcup99(data_home=tmp_path, download=False)


def test_checksum_computed_once_per_file_version(data_home, tmp_path, monkeypatch):
    path = _copy_bcw(data_home, tmp_path)
    calls = []
    real = _files.hashlib.sha256

    def counting(*args):
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(_files.hashlib, "sha256", counting)
    for _ in range(3):
        load_breast_cancer_wisconsin(data_home=tmp_path, download=False)
    assert len(calls) == 1
    # A new modification time (or size) is a new version: hashed again.
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    load_breast_cancer_wisconsin(data_home=tmp_path, download=False)
    assert len(calls) == 2


def test_verify_checksum_type(tmp_path):
    for loader in (load_adult, load_kddcup99, load_breast_cancer_wisconsin):
        with pytest.raises(ParameterError, match="verify_checksum"):
            loader(data_home=tmp_path, download=False, verify_checksum="no")


# ------------------------------------------------------------ data paths


def _fake_checkout(tmp_path: Path, monkeypatch) -> Path:
    """<tmp>/proj (the project root, with notebooks/) and <tmp>/shared/datasets beside it."""
    root = tmp_path / "proj"
    (root / "notebooks").mkdir(parents=True)
    (tmp_path / "shared" / "datasets").mkdir(parents=True)
    _write(tmp_path / "shared" / "datasets", "breast-cancer-wisconsin.data", BREAST_LINES)
    monkeypatch.setattr(_files, "project_root", lambda: root)
    return root


def test_relative_env_found_from_a_subfolder(tmp_path, monkeypatch):
    """The README's DPCONVEX_DATA=../shared/datasets works from notebooks/ too."""
    root = _fake_checkout(tmp_path, monkeypatch)
    monkeypatch.setenv("DPCONVEX_DATA", "../shared/datasets")
    shared = tmp_path / "shared" / "datasets"
    for cwd in (root, root / "notebooks"):
        monkeypatch.chdir(cwd)
        assert get_data_home().resolve() == shared.resolve()
        X, _ = load_breast_cancer_wisconsin(download=False, verify_checksum=False)
        assert X.shape == (3, 9)


def test_relative_env_current_directory_first(tmp_path, monkeypatch):
    root = _fake_checkout(tmp_path, monkeypatch)
    here = root / "notebooks" / "data"
    here.mkdir()
    _write(here, "breast-cancer-wisconsin.data", BREAST_LINES[:2])
    monkeypatch.chdir(root / "notebooks")
    monkeypatch.setenv("DPCONVEX_DATA", "data")
    assert get_data_home().resolve() == here.resolve()
    X, _ = load_breast_cancer_wisconsin(download=False, verify_checksum=False)
    assert X.shape == (2, 9)


def test_relative_env_not_found_names_both_places(tmp_path, monkeypatch):
    root = _fake_checkout(tmp_path, monkeypatch)
    monkeypatch.chdir(root / "notebooks")
    monkeypatch.setenv("DPCONVEX_DATA", "nowhere")
    with pytest.raises(DatasetError) as info:
        load_breast_cancer_wisconsin(download=False)
    msg = str(info.value)
    assert str((root / "notebooks" / "nowhere").resolve()) in msg
    assert str((root / "nowhere").resolve()) in msg


def test_default_is_shared_beside_the_project(tmp_path, monkeypatch):
    root = _fake_checkout(tmp_path, monkeypatch)
    monkeypatch.delenv("DPCONVEX_DATA", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(root / "notebooks")
    assert get_data_home() == (tmp_path / "shared" / "datasets").resolve()
    X, _ = load_breast_cancer_wisconsin(download=False, verify_checksum=False)
    assert X.shape == (3, 9)
    # A file found in neither default folder is reported with both.
    with pytest.raises(DatasetError) as info:
        load_adult(download=False)
    assert "shared" in str(info.value) and ".cache" in str(info.value)


def test_project_root(monkeypatch, tmp_path):
    root = _files.project_root()
    assert root is not None and (root / "pyproject.toml").is_file()
    assert (root / "dpconvex" / "datasets" / "_files.py").is_file()
    # An installed copy (no pyproject.toml of dpconvex above the package) has none.
    fake = tmp_path / "site-packages" / "dpconvex" / "datasets" / "_files.py"
    monkeypatch.setattr(_files, "__file__", str(fake))
    assert _files.project_root.__wrapped__() is None


def test_readme_relative_path_from_notebooks(data_home, monkeypatch):
    """The real checkout: ../shared/datasets from the project root and from notebooks/."""
    root = _files.project_root()
    if root is None or not (root.parent / "shared" / "datasets").is_dir():
        pytest.skip("not a source checkout with shared/datasets beside it")
    monkeypatch.setenv("DPCONVEX_DATA", "../shared/datasets")
    for cwd in (root, root / "notebooks"):
        monkeypatch.chdir(cwd)
        X, _ = load_breast_cancer_wisconsin(download=False)
        assert X.shape == (683, 9)


# --------------------------------------------------------------- scikit-learn's diabetes


def test_sklearn_diabetes_is_encoded_by_its_documented_range():
    """Features clipped to the documented (-0.2, 0.2), rows divided by 0.2 sqrt(10); the
    target a float array whose public range is a documented constant, not the data's."""
    from sklearn.datasets import load_diabetes

    from dpconvex.datasets import SKLEARN_DIABETES_RANGE, SKLEARN_LABEL_RANGES, load_sklearn

    X, y = load_sklearn("diabetes")
    raw, target = load_diabetes(return_X_y=True)
    assert X.shape == (442, 10) and y.dtype == np.float64 and type(y) is np.ndarray
    assert SKLEARN_DIABETES_RANGE == (-0.2, 0.2)
    np.testing.assert_allclose(X, np.clip(raw, -0.2, 0.2) / (0.2 * math.sqrt(10)), atol=1e-15)
    assert np.linalg.norm(X, axis=1).max() <= 1.0
    np.testing.assert_array_equal(y, target)
    lo, hi = SKLEARN_LABEL_RANGES["diabetes"]
    assert (lo, hi) == (0.0, 400.0) and lo < target.min() and target.max() < hi
    assert (lo, hi) != (target.min(), target.max())  # a domain range, not the extremes
    with pytest.raises(ParameterError, match="'diabetes'"):
        load_sklearn("boston")


# --------------------------------------------------------------- encoder


def test_one_encoder_for_every_loader(tmp_path):
    """The centered schema of public ranges is the same encoder as the uncentered one, shifted."""
    from dpconvex import PublicEncoder, PublicSchema
    from dpconvex.datasets import SKLEARN_WINE_RANGES

    rng = np.random.default_rng(0)
    lo = np.array([r[0] for r in SKLEARN_WINE_RANGES])
    hi = np.array([r[1] for r in SKLEARN_WINE_RANGES])
    X = lo + (hi - lo) * rng.uniform(-0.5, 1.5, size=(200, lo.size))
    Z = PublicEncoder(PublicSchema.from_ranges(SKLEARN_WINE_RANGES, centered=True)).fit_transform(X)
    assert np.abs(Z).max() <= 0.5 / (math.sqrt(lo.size) / 2) + 1e-15
    assert np.linalg.norm(Z, axis=1).max() <= 1.0 + 1e-12
    U = PublicEncoder(PublicSchema.from_ranges(SKLEARN_WINE_RANGES)).fit_transform(X)
    np.testing.assert_allclose(Z * math.sqrt(lo.size) / 2 + 0.5, U * math.sqrt(lo.size))
    assert norm_divisor(SKLEARN_WINE_RANGES, centered=True) == math.sqrt(lo.size) / 2
