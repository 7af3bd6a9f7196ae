"""The Dask backend on a real two-process ``LocalCluster`` (loopback only).

Products of :class:`DaskRows` equal the in-memory operator's up to summation order;
a fit on a Dask array or DataFrame equals the in-memory fit (same seed, same noise,
same template); the CVXPY backends refuse Dask rows by name; a worker lost mid-fit is
recovered by Dask with the identical result, and a cluster that gives up raises a
named error with nothing released and nothing charged. The tests that compute on the
cluster are marked slow; the refusals, the CSR storage rule and the schema's per-partition
maps run on Dask's local scheduler (no ``client``).
"""

from __future__ import annotations

import gzip
import os
import signal
import time
import warnings

import numpy as np
import pytest

pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

import dask  # noqa: E402
import dask.array as da  # noqa: E402
import dask.dataframe as dd  # noqa: E402
import pandas as pd  # noqa: E402
from _helpers import certificate_facts, loopback_client  # noqa: E402

import dpconvex as dp  # noqa: E402
from dpconvex.data import dask_rows  # noqa: E402
from dpconvex.data.dask_rows import DaskRows  # noqa: E402
from dpconvex.data.operators import DenseRows  # noqa: E402
from dpconvex.data.preprocess import add_intercept, clip_rows  # noqa: E402
from dpconvex.data.validation import as_design, check_array  # noqa: E402
from dpconvex.errors import DataTypeError, DataValidationError, ParameterError, SolverError  # noqa: E402
from dpconvex.objectives.losses import get_loss  # noqa: E402
from dpconvex.solvers import get_backend, suitable_backends  # noqa: E402
from dpconvex.templates.linear_erm import LinearERMTemplate  # noqa: E402


@pytest.fixture(scope="module")
def client():
    yield from loopback_client("dpconvex.data.dask_rows")


def _data(n=1500, p=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) * 0.3  # some rows above the bound 1: clipping matters
    y = (X @ rng.normal(size=p) + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X, y


def _chunks(cert):
    return [row_map.dask for row_map in certificate_facts(cert, "row_map")]


@pytest.mark.slow
def test_products_equal_the_in_memory_operator(client):
    X, _ = _data(n=1003, p=7)
    rng = np.random.default_rng(1)
    dense = DenseRows(add_intercept(clip_rows(X, 1.0)[0]))
    rows = DaskRows(da.from_array(X, chunks=(250, 4))).clip(1.0).add_intercept()
    assert isinstance(as_design(da.from_array(X, chunks=(250, 7))), DaskRows)
    assert (rows.n, rows.p, rows.n_chunks) == (1003, 8, 5)
    s, v, w = rng.choice([-1.0, 0.0, 1.0], 1003), rng.normal(size=1003), rng.normal(size=8)
    for persist in (True, False):  # persisted chunks, or recomputed from the source per pass
        ops = DaskRows(rows.X, persist=persist).compact()
        assert ops.persisted is persist
        pairs = [(ops.row_norms(), dense.row_norms()), (ops.matvec(w), dense.matvec(w)),
                 (ops.rmatvec(v), dense.rmatvec(v)),
                 (ops.weighted_gram(v * v), dense.weighted_gram(v * v))]
        scaled, dscaled = ops.scale_rows(s), dense.scale_rows(s)  # signs: folded into vectors
        pairs += [(scaled.matvec(w), dscaled.matvec(w)), (scaled.rmatvec(v), dscaled.rmatvec(v)),
                  (scaled.weighted_gram(v * v), dscaled.weighted_gram(v * v)),
                  (scaled.row_norms(), dscaled.row_norms()),
                  (scaled.scale_rows(s).rmatvec(v), dscaled.scale_rows(s).rmatvec(v)),
                  (scaled.scale_rows(v).matvec(w), dscaled.scale_rows(v).matvec(w))]  # formed
        for got, want in pairs:
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(rows.X.compute(), dense.X)  # per-record maps: the same rows


def test_mostly_zero_chunks_are_persisted_as_csr(monkeypatch):
    """Chunks at most 25% non-zero are stored as CSR (the in-memory rule), also when only
    the CSR size fits the memory budget; the products do not change."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(24_000, 10)) * (rng.random((24_000, 10)) < 0.1)
    dense = DenseRows(X).compact()  # in memory: CSR too
    w, v, s = rng.normal(size=10), rng.normal(size=24_000), rng.choice([-1.0, 1.0], 24_000)
    monkeypatch.setattr(dask_rows, "_cluster_memory", lambda: 2.0 * X.nbytes)  # dense: no
    ops = DaskRows(da.from_array(X, chunks=(6_000, 10))).compact()
    assert ops.persisted and ops.stored_bytes < 0.4 * X.nbytes
    kinds = dask.compute(*[dask.delayed(lambda b: type(b).__name__)(b) for b in ops._blocks()])
    assert set(kinds) == {"csr_array"}
    for got, want in [(ops.matvec(w), dense.matvec(w)), (ops.rmatvec(v), dense.rmatvec(v)),
                      (ops.row_norms(), dense.row_norms()),
                      (ops.scale_rows(s).weighted_gram(v * v), dense.scale_rows(s).weighted_gram(v * v)),
                      (ops.scale_rows(v).rmatvec(s), dense.scale_rows(v).rmatvec(s))]:
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


@pytest.mark.slow
@pytest.mark.parametrize("estimator, kw", [
    (dp.PrivateLogisticRegression, {"mechanism": "objective"}),
    (dp.PrivateLogisticRegression, {"mechanism": "output"}),
    (dp.PrivateLogisticRegression, {"mechanism": "objective", "optimality_tol": 1e-4}),
    (dp.PrivateHuberSVM, {"mechanism": "objective"}),
    (dp.PrivateHuberSVM, {"mechanism": "objective", "row_norm": "unit"}),  # lazily per chunk
    (dp.PrivateLinearClassifier, {"loss": "smooth_hinge", "mechanism": "output"}),
])
def test_dask_fit_equals_in_memory_fit(client, estimator, kw):
    X, y = _data()
    make = lambda: estimator(epsilon=1.0, lam=1e-2, random_state=7, classes=[0, 1], **kw)  # noqa: E731
    mem = make().fit(X, y)
    dsk = make().fit(da.from_array(X, chunks=(400, 6)), da.from_array(y, chunks=400))
    np.testing.assert_allclose(dsk.coef_, mem.coef_, rtol=0, atol=1e-8)
    np.testing.assert_allclose(dsk.intercept_, mem.intercept_, rtol=0, atol=1e-8)
    assert dsk.certificate_.epsilon == mem.certificate_.epsilon
    assert True in _chunks(dsk.certificate_) and not any(_chunks(mem.certificate_))
    Xt = da.from_array(X[:300], chunks=100)
    np.testing.assert_allclose(dsk.decision_function(Xt), mem.decision_function(X[:300]),
                               rtol=0, atol=1e-8)
    assert dsk.score(Xt, y[:300]) == mem.score(X[:300], y[:300])


@pytest.mark.slow
def test_dask_dataframe_input_and_recomputed_rows(client, monkeypatch):
    X, y = _data()
    df = dd.from_pandas(pd.DataFrame(X, columns=[f"x{i}" for i in range(6)]), npartitions=3)
    ys = dd.from_pandas(pd.Series(y), npartitions=3)
    mem = dp.PrivateLogisticRegression(epsilon=0.5, random_state=2, classes=[0, 1]).fit(X, y)
    monkeypatch.setattr(dask_rows, "PERSIST_FRACTION", 0.0)  # "does not fit": recompute per pass
    dsk = dp.PrivateLogisticRegression(epsilon=0.5, random_state=2, classes=[0, 1]).fit(df, ys)
    np.testing.assert_allclose(dsk.coef_, mem.coef_, rtol=0, atol=1e-8)
    assert dsk.certificate_.row_map.dask


def test_bad_dask_input_is_refused():
    X, y = _data(n=200)
    Xn = X.copy()
    Xn[5, 2] = np.nan
    with pytest.raises(DataValidationError, match="X contains NaN or infinite values"):
        dp.PrivateLogisticRegression().fit(da.from_array(Xn, chunks=50), y)
    df = dd.from_pandas(pd.DataFrame({"a": X[:, 0], "b": ["u"] * 200}), npartitions=2)
    with pytest.raises(DataTypeError, match="non-numeric"):
        dp.PrivateLogisticRegression().fit(df, y)
    with pytest.raises(DataValidationError, match="does not take Dask input"):
        check_array(da.from_array(X), "Owner")


def test_a_dask_array_of_sparse_chunks_is_refused_by_name():
    import scipy.sparse as sp

    X, y = _data(n=200, p=4)
    model = dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1], random_state=0).fit(X, y)
    announced = da.from_array(X, chunks=(70, 4)).map_blocks(sp.csr_matrix)  # in the metadata
    hidden = da.concatenate([da.from_delayed(dask.delayed(sp.csr_matrix)(X[i:i + 100]), shape=(100, 4),
                                             dtype=float) for i in (0, 100)])  # found per chunk
    assert type(hidden._meta) is np.ndarray
    for Xd in (announced, hidden):
        for call, owner in ((lambda Xd: dp.PrivateLogisticRegression(classes=[0, 1]).fit(Xd, y), "fit"),
                            (lambda Xd: dp.PrivateGaussianCentroid(classes=[0, 1]).fit(Xd, y), "fit"),
                            (model.predict, "predict")):
            with pytest.raises(DataTypeError, match=rf"\.{owner}: X is a Dask array of scipy csr_matrix "
                               r"chunks.*toarray\(\).*SciPy CSR matrix"):
                call(Xd)


def test_cvxpy_backends_refuse_dask_rows():
    X, y = _data(n=300)
    t = LinearERMTemplate(get_loss("logistic"), 1e-2, 1.0,
                          da.from_array(clip_rows(X, 1.0)[0], chunks=100),
                          np.where(y == 1, 1.0, -1.0))
    assert "cvxpy" in t.capabilities  # the loss has a CVXPY form, but the rows are not in memory
    assert get_backend("auto", t).name == "native"
    assert suitable_backends(t) == ["native"]
    for name in ("clarabel", "scs"):
        with pytest.raises(ParameterError, match="needs the rows in one process's memory"):
            get_backend(name, t)
    est = dp.PrivateLogisticRegression(solver="clarabel", random_state=0, classes=[0, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error", dp.SolverCostWarning)  # no cost told of a solve refused
        with pytest.raises(ParameterError, match="solver='native' or solver=None"):
            est.fit(da.from_array(X, chunks=100), y)


def test_a_set_stated_in_cvxpy_on_dask_rows_is_solved_natively_as_in_memory():
    import cvxpy as cp

    X, y = _data(n=200, p=4)
    Xd, yd = da.from_array(X, chunks=(70, 4)), da.from_array(y, chunks=70)
    budget = lambda w: [w >= 0, cp.sum(w[:2]) <= 1.0]  # noqa: E731  (no exact projection)
    for est in (dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1], random_state=0,
                                             constraints=budget),
                dp.PrivateLinearRegressor(epsilon=1.0, label_range=(-1, 1), random_state=0,
                                          constraints=budget)):
        on_workers = est.fit(Xd, yd)
        if isinstance(est, dp.PrivateLogisticRegression):  # (the regressor's is a composition)
            assert on_workers.certificate_.solver["backend"] == "native"
        # the same noise and the same minimizer over the set: within what the residual check
        # (<= 1e-6, the projection's 1e-9 included) leaves between two accurate solves
        np.testing.assert_allclose(on_workers.coef_, est.fit(X, y).coef_, rtol=0, atol=1e-4)
    clarabel = dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1], random_state=0,
                                            constraints=budget, solver="clarabel")
    with pytest.raises(ParameterError):  # the CVXPY backends need the rows in memory
        clarabel.fit(Xd, yd)


def _kill_one_worker(client):
    """SIGKILL one worker process of our cluster (the nanny restarts it) and wait for the
    scheduler to drop it."""
    addr, pid = sorted(client.run(os.getpid).items())[0]
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 20
    while addr in client.scheduler_info()["workers"] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert addr not in client.scheduler_info()["workers"]


@pytest.mark.slow
def test_worker_killed_mid_fit_is_recovered_identically(client, monkeypatch):
    """Dask recomputes the persisted chunks the dead worker held from their lineage:
    the fit finishes with the same model (to 1e-8), and the ledger is charged once."""
    X, y = _data()
    Xd = da.from_array(X, chunks=(400, 6))
    ref = dp.PrivateLogisticRegression(epsilon=1.0, random_state=5, classes=[0, 1]).fit(Xd, y)
    calls = []
    margin_sums = DaskRows.margin_sums

    def killing_pass(self, w, loss, **kw):
        calls.append(1)
        if len(calls) == 3:  # mid-solve: after two objective evaluations
            _kill_one_worker(client)
        return margin_sums(self, w, loss, **kw)

    monkeypatch.setattr(DaskRows, "margin_sums", killing_pass)
    acc = dp.BudgetAccountant(epsilon=3.0)
    est = dp.PrivateLogisticRegression(epsilon=1.0, random_state=5, classes=[0, 1],
                                       accountant=acc).fit(Xd, y)
    assert len(calls) > 3
    # the recomputed chunks may land on another worker, so partial sums can be added in
    # another order: the same minimizer to the solver's tolerance, not always to the bit
    np.testing.assert_allclose(est.coef_, ref.coef_, rtol=0, atol=1e-8)
    assert acc.spent == (1.0, 0.0)
    client.wait_for_workers(2, timeout=30)


@pytest.mark.slow
def test_cluster_giving_up_raises_named_error_and_charges_the_fit_after_its_noise(
        client, monkeypatch):
    """A product of the solve whose task kills every worker that runs it: Dask retries it
    once (allowed-failures = 1), then gives up; the fit raises SolverError and nothing is
    released. The solve is of the noisy objective (drawn before it): the refusal is charged
    (docs/privacy/messages.md#privacy-refusal-charge)."""
    X, y = _data()
    margin_sums = DaskRows.margin_sums

    def poisoned(self, w, loss, **kw):
        def die(block):  # a local function: shipped by value to the worker
            os._exit(3)

        one = self.X.blocks[0].map_blocks(die, dtype=float, meta=np.empty((0, 0)))
        dask_rows.compute(one)
        return margin_sums(self, w, loss, **kw)  # pragma: no cover

    monkeypatch.setattr(DaskRows, "margin_sums", poisoned)
    acc = dp.BudgetAccountant(epsilon=3.0)
    est = dp.PrivateLogisticRegression(epsilon=1.0, random_state=5, classes=[0, 1], accountant=acc)
    with dp.collect_diagnostics() as diag, \
            pytest.raises(SolverError, match="KilledWorker.*no model is released") as err:
        est.fit(da.from_array(X, chunks=(400, 6)), y)
    # the failure's text names the task, whose key hashes the data: the diagnostics' only
    assert "die-" not in str(err.value) and err.value.__cause__ is None
    assert "die-" in diag.note("the Dask cluster failed").what
    assert not hasattr(est, "coef_")
    assert acc.spent == (1.0, 0.0) and acc.reserved == []
    client.wait_for_workers(2, timeout=30)


@pytest.mark.slow
def test_kddcup99_dask_loader_rows_equal_the_in_memory_loader(client, data_home, tmp_path):
    from dpconvex.datasets import load_kddcup99, load_kddcup99_dask

    with gzip.open(data_home / "kddcup.data_10_percent.gz", "rb") as fh:
        head = b"".join(fh.readline() for _ in range(2500))
    (tmp_path / "kdd").mkdir()
    small = tmp_path / "kdd" / "kddcup.data_10_percent.gz"
    small.write_bytes(gzip.compress(head))
    Xm, ym = load_kddcup99(data_home=tmp_path / "kdd", download=False, verify_checksum=False,
                           shuffle=False)
    X, y = load_kddcup99_dask(small, chunksize=1000, cache_dir=tmp_path / "cache")
    assert X.chunks[0] == (1000, 1000, 500) and X.shape == (2500, 122)
    np.testing.assert_array_equal(X.compute(), Xm)
    np.testing.assert_array_equal(y, ym)
    assert y.classes.tolist() == [0, 1]  # the public label set travels with y
    X2, _ = load_kddcup99_dask(small, chunksize=1000, cache_dir=tmp_path / "cache")  # reused
    assert X2.name == X.name


def test_from_dataframe_applies_the_public_schema_per_partition():
    from dpconvex import PublicSchema
    from dpconvex.data.encoder import category_codes
    from dpconvex.datasets import encode
    from dpconvex.datasets.dask_loaders import from_dataframe

    rng = np.random.default_rng(3)
    pdf = pd.DataFrame({"age": rng.integers(0, 130, 400).astype(float),
                        "amount": rng.exponential(1e4, 400),
                        "region": rng.choice(["north", "south", "mars"], 400),
                        "fraud": rng.integers(0, 2, 400)})
    schema = PublicSchema(("age", "amount", "region"), {"age": (0.0, 120.0), "amount": (0.0, 1e6)},
                          {"region": ("north", "south", "east", "west")},
                          log_scaled=frozenset({"amount"}))
    X, y = from_dataframe(dd.from_pandas(pdf, npartitions=4), schema, label="fraud")
    want = encode(schema, {"age": pdf["age"].to_numpy(), "amount": pdf["amount"].to_numpy()},
                  {"region": category_codes(pdf["region"].tolist(), schema.categories["region"])})
    assert X.numblocks == (4, 1)
    np.testing.assert_array_equal(X.compute(), want)
    np.testing.assert_array_equal(y.compute(), pdf["fraud"].to_numpy())


@pytest.mark.slow
@pytest.mark.parametrize("kw", [{"steps": 20}, {"loss": "huber", "steps": 20, "clip": 10.0}])
def test_noisy_gd_dask_fit_equals_in_memory_fit(client, kw):
    """One distributed pass per step for the clipped gradient sum; same noise, same release."""
    X, y = _data(n=2000)
    y = np.where(np.arange(2000) % 97 == 0, 2, y)  # a few records outside the label set
    make = lambda: dp.NoisyGradientDescent(epsilon=1.0, random_state=5, classes=[0, 1],  # noqa: E731
                                           unknown_labels="ignore", **kw)
    mem = make().fit(X, y)
    dsk = make().fit(da.from_array(X, chunks=(600, 6)), da.from_array(y, chunks=600))
    np.testing.assert_allclose(dsk.coef_, mem.coef_, rtol=0, atol=1e-8)
    np.testing.assert_allclose(dsk.intercept_, mem.intercept_, rtol=0, atol=1e-8)
    assert (dsk.steps_, dsk.noise_std_, dsk.clip_) == (mem.steps_, mem.noise_std_, mem.clip_)
    assert dsk.certificate_.epsilon == mem.certificate_.epsilon
    assert True in _chunks(dsk.certificate_) and not any(_chunks(mem.certificate_))


@pytest.mark.slow
@pytest.mark.parametrize("row_norm", ["unit", "none"])
def test_centroids_dask_fit_equals_in_memory_fit(client, row_norm):
    """Class sums and counts in one distributed pass; same noise, same released means."""
    X, y = _data(n=2000)
    y = y + (np.arange(2000) % 5 == 0)  # three labels: the records labelled 2 are outside
    make = lambda: dp.PrivateGaussianCentroid(epsilon=1.0, random_state=5, row_norm=row_norm,  # noqa: E731
                                              data_norm=0.8, classes=[0, 1], unknown_labels="ignore")
    mem = make().fit(X, y)
    dsk = make().fit(da.from_array(X, chunks=(600, 6)), da.from_array(y, chunks=600))
    np.testing.assert_allclose(dsk.means_, mem.means_, rtol=0, atol=1e-8)
    np.testing.assert_allclose(dsk.counts_, mem.counts_, rtol=0, atol=1e-8)
    assert dsk.certificate_.epsilon == mem.certificate_.epsilon
    assert True in _chunks(dsk.certificate_) and not any(_chunks(mem.certificate_))
    np.testing.assert_array_equal(dsk.predict(X), mem.predict(X))


def test_from_dataframe_refuses_a_label_that_is_also_a_feature_by_name():
    """The label column would be encoded into X as well: refused before the pass over df."""
    from dpconvex.datasets.dask_loaders import from_dataframe

    frame = pd.DataFrame({"age": [30.0, 40.0] * 10, "city": ["a", "b"] * 10})
    schema = dp.PublicSchema({"age": dp.Numeric(0, 120), "city": dp.Categorical(("a", "b"))})
    with pytest.raises(dp.ParameterError, match="the label 'age' is also a feature of the schema"):
        from_dataframe(dd.from_pandas(frame, npartitions=2), schema, label="age")


def test_from_dataframe_refuses_a_frame_in_memory_by_name():
    import pandas as pd

    from dpconvex.datasets.dask_loaders import from_dataframe

    frame = pd.DataFrame({"age": [30, 40] * 10, "y": [0, 1] * 10})
    for df in (frame, frame.to_numpy()):
        with pytest.raises(dp.ParameterError, match="must be a Dask DataFrame.*dd.from_pandas"):
            from_dataframe(df, dp.PublicSchema({"age": dp.Numeric(0, 120)}), label="y")


def test_from_dataframe_refuses_a_schema_read_from_the_data():
    """Its Dask array cannot carry the mark that makes a fit on it not private."""
    import dask.dataframe as dd
    import pandas as pd

    from dpconvex.datasets.dask_loaders import from_dataframe

    frame = pd.DataFrame({"age": [30.0, 40.0] * 10, "y": [0, 1] * 10})
    with pytest.warns(dp.PrivacyLeakWarning):
        draft = dp.draft_schema(frame[["age"]])
    with pytest.raises(dp.ParameterError, match="from_dataframe: the schema is read from the data"):
        from_dataframe(dd.from_pandas(frame, npartitions=2), draft, label="y")


def test_pandas_nullable_numeric_columns_are_read_as_numbers():
    import pandas as pd

    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, (120, 3))
    y = (X[:, 0] > 0).astype(int)
    fit = dp.PrivateLogisticRegression(classes=[0, 1], random_state=0).fit
    plain = fit(dd.from_pandas(pd.DataFrame(X), npartitions=3), y).coef_
    nullable = fit(dd.from_pandas(pd.DataFrame(X).astype("Float64"), npartitions=3), y).coef_
    np.testing.assert_allclose(nullable, plain, rtol=1e-12)  # the same numbers, the same seed


def test_the_certificate_states_the_backend_not_the_chunking():
    """A file read by bytes is chunked by its records' lengths: the count is not public."""
    X, y = _data(240, 3, seed=5)
    certs = [dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1], random_state=0).fit(
        da.from_array(X, chunks=(size, 3)), da.from_array(y, chunks=size)).certificate_
        for size in (37, 120)]
    assert certs[0].row_map == certs[1].row_map and certs[0].row_map.dask
    assert str(certs[0].row_map) == str(certs[1].row_map)


def test_a_dask_frame_through_the_safeguard_warns_nothing_but_the_public_plan_warning():
    frame = pd.DataFrame(_data(400, 2, seed=6)[0], columns=["a", "b"])
    y = (frame["a"] > 0).astype(int).to_numpy()
    with dask.config.set(scheduler="synchronous"), warnings.catch_warnings():
        warnings.simplefilter("error")
        # n ε = 400: the plan's public warning that the selection cannot tell a model 2 points
        # below a constant from it (privacy-classifier-safeguard-blind) is right here
        warnings.filterwarnings("ignore", "PrivateClassifier: with n = 400 rows",
                                dp.PrivacyWarning)
        est = dp.PrivateClassifier(epsilon=1.0, classes=[0, 1], safeguard=True, random_state=3)
        est.fit(dd.from_pandas(frame, npartitions=3), y)
    assert "safeguard selected" in est.certificate_.released


def test_a_chunks_storage_reads_no_left_out_row():
    """A persisted chunk's storage (dense or CSR) is chosen from the rows whose factor is not 0,
    as in memory: a record left out (a safeguard's validation row) is neither counted nor
    stored, so it cannot switch the storage, and with it the rounding, of a fit."""
    import scipy.sparse as sp

    from dpconvex.data.operators import ScaledRows

    n, p = 2000, 30  # 60,000 entries, a quarter of them non-zero: CSR at the threshold
    X = np.zeros((n, p))
    X.flat[np.random.default_rng(0).choice(n * p, n * p // 4, replace=False)] = 1.0
    s = np.ones(n)
    s[0] = 0.0  # record 0 left out
    neighbour = X.copy()
    neighbour[0] = 1.0  # its every entry non-zero: over the threshold if it were counted
    stored = []
    with dask.config.set(scheduler="synchronous"):
        for A in (X, neighbour):
            rows = DaskRows(da.from_array(A, chunks=(n, p)), persist=True).scale_rows(s).compact()
            (block,) = dask_rows.compute(*rows._blocks())
            assert sp.issparse(block) and ScaledRows(DenseRows(A), s).compact().is_sparse
            stored.append(block.toarray())
    np.testing.assert_array_equal(stored[0][1:], X[1:])
    np.testing.assert_array_equal(stored[0], stored[1])  # record 0 not stored either way


def test_the_overflow_guard_of_rows_clipped_per_pass_reads_no_left_out_row():
    """Rows clipped inside the products (not persisted) fall back to a clipped copy when a
    row's norm could overflow the products, and that guard reads the rows whose factor is not
    0, as in memory: a left-out record of any size switches neither the storage nor a product."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    keep = np.ones(40)
    keep[0] = 0.0  # record 0 left out
    neighbour = X.copy()
    neighbour[0] = 1e300  # norm beyond the guard's 1e100
    w = rng.normal(size=4)
    out = []
    with dask.config.set(scheduler="synchronous"):
        for A in (X, neighbour):
            rows = DaskRows(da.from_array(A, chunks=(20, 3)), persist=False).clip(1.0).add_intercept(0.5)
            rows = rows.scale_rows(keep)
            blocks = dask_rows.compute(*rows._blocks())
            assert all(type(b).__name__ == "ScaledRows" for b in blocks)  # no copy of a chunk
            out.append((rows.matvec(w), rows.rmatvec(np.ones(40))))
    np.testing.assert_array_equal(out[0][0], out[1][0])
    np.testing.assert_array_equal(out[0][1], out[1][1])
    assert out[0][0][0] == 0.0
