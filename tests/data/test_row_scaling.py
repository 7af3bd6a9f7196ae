"""Per-record row scaling (``row_norm="unit"``), column selection and ``intercept_scaling``.

docs/privacy/row_scaling.md#privacy-row-scaling. The map x ↦ x / ||x|| · q is checked
row by row (norms, zero rows, sparse and Dask input equal to the dense map), as a
per-record map (replacing one record changes one row), through the loaders (shapes,
feature names, checksums still checked), and ``intercept_scaling`` s through the
certificate: G = q̃ = sqrt(q² + s²), c·q̃², and a fit that equals the fit without an
intercept on the rows [x, s] with data_norm q̃ (same seed, same noise), intercept_ = s·θ_d.
All tests are deterministic (fixed seeds, no statistical assertion).
"""

from __future__ import annotations

import gzip
import math
import shutil
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from _helpers import ADULT_LINES, KDD_LINES

import dpconvex as dp
from dpconvex.data import normalize_rows
from dpconvex.data.operators import row_norms
from dpconvex.data.row_scaling import check_row_norm
from dpconvex.datasets import (
    ADULT_FEATURE_NAMES,
    ADULT_SCHEMA,
    KDDCUP99_SCHEMA,
    load_adult,
    load_breast_cancer_wisconsin,
    load_kddcup99,
)
from dpconvex.errors import DatasetError, ParameterError, PrivacyWarning

ESTIMATORS = (dp.PrivateLogisticRegression, dp.PrivateHuberSVM, dp.PrivateLinearClassifier)



def _rows(seed: int = 0, n: int = 300, p: int = 7) -> np.ndarray:
    """Rows of wildly different magnitudes (1e-200 .. 1e200), a zero row, a one-entry row."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) * 10.0 ** rng.integers(-200, 200, size=(n, 1))
    X[3] = 0.0
    X[5] = 0.0
    X[5, 2] = -4.0
    return X


# ----------------------------------------------------------------------- the map
@pytest.mark.parametrize("q", [1.0, 0.3, 7.5])
def test_unit_rows_have_norm_q_zero_rows_stay_zero(q):
    X = _rows()
    Y = normalize_rows(X, q)
    norms = row_norms(Y)
    nz = np.any(X != 0, axis=1)
    assert np.all(norms <= q)  # never above the bound as the estimators compute it: no clipping
    np.testing.assert_allclose(norms[nz], q, rtol=4e-16)
    np.testing.assert_array_equal(Y[~nz], 0.0)
    np.testing.assert_allclose(Y[5], [0, 0, -q, 0, 0, 0, 0], rtol=1e-15)
    # the direction is kept: Y_i = X_i · (q / ||X_i||), a positive factor per row
    np.testing.assert_array_equal(np.sign(Y), np.sign(X))
    m = np.max(np.abs(X[nz]), axis=1, keepdims=True)
    Z = X[nz] / m
    np.testing.assert_allclose(Y[nz], Z / np.linalg.norm(Z, axis=1, keepdims=True) * q,
                               rtol=1e-14, atol=1e-300)


def test_map_is_per_record():
    """Replacing one record changes that row of the output only (the replace-one argument)."""
    X = _rows(1)
    X2 = X.copy()
    X2[10] = np.arange(7) * 1e50
    Y, Y2 = normalize_rows(X), normalize_rows(X2)
    other = np.arange(len(X)) != 10
    np.testing.assert_array_equal(Y[other], Y2[other])
    assert not np.array_equal(Y[10], Y2[10])


def test_sparse_rows_stay_sparse_and_equal_the_dense_map():
    S = sp.random(400, 60, density=0.05, random_state=2, format="csr") * 1e3
    S = sp.vstack([S, sp.csr_matrix((1, 60))]).tocsr()  # an empty row
    for A in (S, S.tocsc(), sp.coo_array(S)):
        Y = normalize_rows(A, 2.0)
        assert isinstance(Y, sp.csr_array)
        np.testing.assert_array_equal(Y.indices, sp.csr_array(S).indices)  # no fill-in
        dense = normalize_rows(S.toarray(), 2.0)
        np.testing.assert_allclose(Y.toarray(), dense, rtol=1e-15, atol=0)
        assert np.all(sp.linalg.norm(Y, axis=1) <= 2.0 * (1 + 1e-15))
        assert Y[[400]].nnz == 0


def test_dask_rows_equal_the_in_memory_map():
    da = pytest.importorskip("dask.array")
    X = _rows(3, n=1000)
    D = da.from_array(X, chunks=(137, 3))  # chunked along the columns too: rechunked to rows
    out = normalize_rows(D, 1.5)
    assert isinstance(out, da.Array)
    with __import__("dask").config.set(scheduler="synchronous"):
        np.testing.assert_array_equal(out.compute(), normalize_rows(X, 1.5))


@pytest.mark.parametrize("bad", [0.0, -1.0, "1", True, math.inf, math.nan])
def test_bound_validated(bad):
    with pytest.raises(ParameterError, match="bound"):
        normalize_rows(np.ones((2, 2)), bad)


@pytest.mark.parametrize("bad", ["l2", "UNIT", "None", None, 1.0, True])
def test_row_norm_option_validated(bad):
    """One spelling per option, the estimators' ("unit", "none"): None is refused by name."""
    with pytest.raises(ParameterError, match="'row_norm'.*'unit'.*'none'"):
        check_row_norm(bad, "owner")


@pytest.mark.parametrize("good", ["unit", "none"])
def test_row_norm_options_accepted(good):
    assert check_row_norm(good, "owner") == good


def test_unit_rows_are_not_clipped_by_the_estimators():
    """Norms are fitted to <= q as row_norms computes them: no clipped row (diagnostics), no warning."""
    rng = np.random.default_rng(4)
    X = normalize_rows(rng.normal(size=(500, 5)))
    y = (X[:, 0] > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyWarning)
        with dp.collect_diagnostics() as diag:
            m = dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1], random_state=0).fit(X, y)
    assert diag.note("scaled down").count == 0
    assert m.score(X, y) > 0.8


# --------------------------------------------------------------------- the loaders
def _write(folder, name, lines):
    (folder / name).write_text("\n".join(lines) + "\n", encoding="ascii")


def _write_kdd(folder, lines):
    with gzip.open(folder / "kddcup.data_10_percent.gz", "wt", encoding="ascii") as fh:
        fh.write("\n".join(lines) + "\n")


def test_adult_row_norm_and_drop_small_file(tmp_path):
    _write(tmp_path, "adult.data", ADULT_LINES)
    kw = {"data_home": tmp_path, "download": False, "verify_checksum": False}
    X0, y0 = load_adult(row_norm="none", **kw)
    X, y = load_adult(**kw)  # the default: "unit"
    np.testing.assert_array_equal(y, y0)
    np.testing.assert_array_equal(X, normalize_rows(X0))
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), 1.0, rtol=1e-15)
    Xd0, _ = load_adult(row_norm="none", drop=("native-country",), **kw)
    keep = [i for i, f in enumerate(ADULT_FEATURE_NAMES) if not f.startswith("native-country=")]
    assert Xd0.shape == (3, 104 - 41) and len(keep) == 63
    # the divisor counts the kept attributes: sqrt(12) instead of sqrt(13)
    np.testing.assert_allclose(Xd0, X0[:, keep] * math.sqrt(13) / math.sqrt(12), rtol=1e-15)
    assert np.linalg.norm(Xd0, axis=1).max() <= 1.0
    Xd, _ = load_adult(drop=("native-country",), **kw)
    np.testing.assert_array_equal(Xd, normalize_rows(Xd0))
    Xc, _ = load_adult(row_norm="none", columns=("age", "sex"), **kw)
    assert Xc.shape == (3, 3)
    np.testing.assert_allclose(Xc[:, 0] * math.sqrt(2), [0.39, 0.50, 0.52])


def test_adult_frame_names_follow_the_selection(tmp_path):
    pytest.importorskip("pandas")
    _write(tmp_path, "adult.data", ADULT_LINES)
    frame, _ = load_adult(data_home=tmp_path, download=False, verify_checksum=False,
                          return_frame=True, drop=("native-country", "race"))
    names = ADULT_SCHEMA.select(drop=("native-country", "race")).feature_names
    assert list(frame.columns) == list(names)
    assert not any(c.startswith(("native-country=", "race=")) for c in frame.columns)


def test_unit_loader_is_still_per_record(tmp_path):
    """An extra record with huge values changes no other row under the default row_norm."""
    _write(tmp_path, "adult.data", ADULT_LINES)
    kw = {"data_home": tmp_path, "download": False, "verify_checksum": False}
    X, _ = load_adult(**kw)
    huge = "150" + ADULT_LINES[2].removeprefix("52").replace("15024", "123456789")
    _write(tmp_path, "adult.data", [*ADULT_LINES, huge])
    X2, _ = load_adult(**kw)
    np.testing.assert_array_equal(X2[:-1], X)


def test_kdd_row_norm_and_drop_small_file(tmp_path):
    _write_kdd(tmp_path, KDD_LINES)
    kw = {"data_home": tmp_path, "download": False, "verify_checksum": False}
    X0, _ = load_kddcup99(row_norm="none", **kw)
    X, _ = load_kddcup99(**kw)
    np.testing.assert_array_equal(X, normalize_rows(X0))
    Xd, _ = load_kddcup99(drop=("service", "flag"), **kw)
    assert Xd.shape == (2, 122 - 70 - 11)
    names = KDDCUP99_SCHEMA.select(drop=("service", "flag")).feature_names
    assert len(names) == Xd.shape[1] and not any(n.startswith("service=") for n in names)


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"drop": ("nationality",)}, "unknown column.*nationality"),
        ({"drop": "native-country"}, "sequence of column names"),
        ({"columns": ("age", "fnlwgt")}, "unknown column.*fnlwgt"),  # dropped by the schema
        ({"columns": ("age",), "drop": ("age",)}, "keeps no feature column"),
        ({"row_norm": "max"}, "row_norm"),
    ],
)
def test_loader_options_validated(tmp_path, kw, match):
    _write(tmp_path, "adult.data", ADULT_LINES)
    with pytest.raises(ParameterError, match=match):
        load_adult(data_home=tmp_path, download=False, verify_checksum=False, **kw)


def test_breast_cancer_zero_rows_stay_zero_and_checksums_still_checked(data_home, tmp_path):
    X0, y0 = load_breast_cancer_wisconsin(data_home=data_home, download=False)  # default None
    np.testing.assert_array_equal(
        X0, load_breast_cancer_wisconsin(data_home=data_home, download=False, row_norm="none")[0])
    X, y = load_breast_cancer_wisconsin(data_home=data_home, download=False, row_norm="unit")
    assert X.shape == (683, 9)
    np.testing.assert_array_equal(y, y0)
    zero = ~np.any(X0 != 0, axis=1)
    assert zero.any()  # records with every attribute at its minimum 1
    np.testing.assert_array_equal(X[zero], 0.0)
    np.testing.assert_allclose(np.linalg.norm(X[~zero], axis=1), 1.0, rtol=1e-15)
    # the options act after the file check: a modified file is refused with any options
    shutil.copy(data_home / "breast-cancer-wisconsin.data", tmp_path)
    path = tmp_path / "breast-cancer-wisconsin.data"
    path.write_bytes(path.read_bytes().replace(b",5,1,1,1,2,1,3,1,1,2", b",6,1,1,1,2,1,3,1,1,2", 1))
    for kw in ({}, {"row_norm": "unit"}, {"drop": ("mitoses",)}):
        with pytest.raises(DatasetError, match="SHA-256"):
            load_breast_cancer_wisconsin(data_home=tmp_path, download=False, **kw)


def test_adult_default_is_unit_and_drop_shape(data_home):
    X, y = load_adult("test", data_home=data_home, download=False, drop=("native-country",))
    assert X.shape == (15060, 63)
    norms = np.linalg.norm(X, axis=1)
    np.testing.assert_allclose(norms, 1.0, rtol=1e-15)  # no zero row in Adult


def test_dask_loader_applies_the_same_options(tmp_path):
    pytest.importorskip("dask.array")
    import dask

    from dpconvex.datasets import load_kddcup99_dask

    lines = [KDD_LINES[k % 2].replace(",8,8,", f",{k % 50},{k % 7},") for k in range(250)]
    _write_kdd(tmp_path, lines)
    src = tmp_path / "kddcup.data_10_percent.gz"
    kw = {"data_home": tmp_path, "download": False, "verify_checksum": False}
    with dask.config.set(scheduler="synchronous"):
        for opts in ({}, {"row_norm": "none"}, {"drop": ("service",)},
                     {"row_norm": "none", "columns": ("count", "flag")}):
            Xm, ym = load_kddcup99(**kw, **opts, shuffle=False)
            X, y = load_kddcup99_dask(src, chunksize=100, cache_dir=tmp_path / "cache", **opts)
            assert X.shape == Xm.shape and X.chunks[0] == (100, 100, 50)
            np.testing.assert_allclose(X.compute(), Xm, rtol=1e-15, atol=1e-17)
            np.testing.assert_array_equal(y, ym)
    with pytest.raises(ParameterError, match="row_norm"):
        load_kddcup99_dask(src, chunksize=100, cache_dir=tmp_path / "cache", row_norm="l1")


# ---------------------------------------------------------------- intercept_scaling
def _data(n=400, p=4, seed=5):
    rng = np.random.default_rng(seed)
    X = normalize_rows(rng.normal(size=(n, p)), 0.8)
    y = (X @ rng.normal(size=p) + 0.2 > 0).astype(int)
    return X, y


@pytest.mark.parametrize("cls", ESTIMATORS)
@pytest.mark.parametrize("s", [1.0, 0.5, 0.25])
def test_intercept_scaling_enters_the_certificate(cls, s):
    X, y = _data()
    q = 0.8
    cert = cls(epsilon=1.0, data_norm=q, intercept_scaling=s, lam=1e-2).certify(X, y)
    qt = math.sqrt(q * q + s * s)
    quant = cert.quantities
    loss = cls(intercept_scaling=s)._make_loss()
    assert quant["per-record gradient bound G"] == pytest.approx(loss.deriv_bound * qt, rel=1e-15)
    assert quant["hessian term bound c_u"] == pytest.approx(loss.curvature * qt * qt, rel=1e-12)
    assert quant["dimension p"] == 5


@pytest.mark.parametrize("cls", ESTIMATORS)
@pytest.mark.parametrize("mechanism", ["objective", "output", "none"])
def test_intercept_is_s_times_last_weight(cls, mechanism):
    """fit_intercept with s equals the fit on [x, s] with data_norm q̃ and no intercept."""
    X, y = _data()
    q, s = 0.8, 0.25
    kw = {"epsilon": 0.5, "mechanism": mechanism, "lam": 3e-3, "random_state": 7}
    m = cls(data_norm=q, intercept_scaling=s, **kw).fit(X, y)
    Xa = np.hstack([X, np.full((len(X), 1), s)])
    ref = cls(data_norm=math.sqrt(q * q + s * s), fit_intercept=False, **kw).fit(Xa, y)
    np.testing.assert_allclose(m.coef_[0], ref.coef_[0, :-1], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(m.intercept_[0], s * ref.coef_[0, -1], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(m.decision_function(X), ref.decision_function(Xa),
                               rtol=1e-9, atol=1e-12)
    assert m.certificate_.epsilon == ref.certificate_.epsilon


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_default_intercept_scaling_is_one_quarter(cls):
    """The default chosen on validation splits
    (docs/privacy/row_scaling.md#privacy-row-scaling): s = 0.25, q̃² = q² + 1/16."""
    assert cls().get_params()["intercept_scaling"] == 0.25
    assert cls().get_params()["fit_intercept"] is True
    X, y = _data(n=50)
    G = cls(epsilon=1.0, lam=1e-2).certify(X, y).quantities["per-record gradient bound G"]
    assert G == pytest.approx(math.sqrt(1.0 + 0.0625), rel=1e-15)


@pytest.mark.parametrize("cls", ESTIMATORS)
@pytest.mark.parametrize("bad", [0, -0.5, "1", True, math.inf, math.nan, None])
def test_intercept_scaling_validated(cls, bad):
    X, y = _data(n=20)
    with pytest.raises(ParameterError, match="'intercept_scaling' parameter of " + cls.__name__):
        cls(intercept_scaling=bad).fit(X, y)


def test_intercept_scaling_in_one_vs_rest():
    """One-vs-rest clones the estimator: each class's model uses s (intercept_ = s·θ_d)."""
    rng = np.random.default_rng(6)
    X = normalize_rows(rng.normal(size=(300, 3)))
    y = np.argmax(X @ rng.normal(size=(3, 3)), axis=1)
    kw = {"intercept_scaling": 0.5, "mechanism": "none", "lam": 1e-2}
    m = dp.PrivateLogisticRegression(epsilon=3.0, **kw).fit(X, y)
    assert m.intercept_.shape == (3,)
    for c in range(3):
        b = dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1], **kw).fit(X, (y == c) * 1)
        np.testing.assert_allclose(m.intercept_[c], b.intercept_[0], rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(m.coef_[c], b.coef_[0], rtol=1e-9, atol=1e-12)


def test_intercept_scaling_dask_fit_equals_in_memory():
    da = pytest.importorskip("dask.array")
    import dask

    X, y = _data(n=600)
    kw = {"epsilon": 1.0, "intercept_scaling": 0.5, "random_state": 11, "lam": 1e-2}
    with dask.config.set(scheduler="synchronous"):
        a = dp.PrivateLogisticRegression(**kw).fit(da.from_array(X, chunks=(250, 4)), y)
    b = dp.PrivateLogisticRegression(**kw).fit(X, y)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=1e-8, atol=1e-10)


def test_from_dataframe_row_norm_per_partition():
    pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    import dask
    import dask.dataframe as dd

    from dpconvex import PublicSchema
    from dpconvex.data.encoder import category_codes
    from dpconvex.datasets import encode
    from dpconvex.datasets.dask_loaders import from_dataframe

    rng = np.random.default_rng(8)
    pdf = pd.DataFrame({"age": rng.integers(0, 130, 300).astype(float),
                        "region": rng.choice(["north", "south", "moon"], 300)})
    schema = PublicSchema(columns=("age", "region"), numeric={"age": (0.0, 120.0)},
                          categories={"region": ("north", "south")})
    with dask.config.set(scheduler="synchronous"):
        X, _ = from_dataframe(dd.from_pandas(pdf, npartitions=4), schema, row_norm="unit")
        got = X.compute()
    ref = encode(schema, {"age": pdf["age"].to_numpy()},
                 {"region": category_codes(pdf["region"].tolist(), ["north", "south"])})
    np.testing.assert_array_equal(got, normalize_rows(ref))
    with pytest.raises(ParameterError, match="row_norm"):
        from_dataframe(dd.from_pandas(pdf, npartitions=2), schema, row_norm="l2")
