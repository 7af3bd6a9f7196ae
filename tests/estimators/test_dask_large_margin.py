"""The large-margin template on Dask records on a real two-process ``LocalCluster``.

The :class:`DaskGram` products equal the in-memory ones up to summation order; a
``PrivateLargeMarginGaussian`` fit on a Dask array equals the in-memory fit with the
same seed (same noise, same minimizer, same predictions) and carries the same
calibration; its rows and labels are checked once; the CVXPY backends refuse Dask records
by name; the ledger is charged only for a released model; the data-wide component
assignments are refused by name; a worker lost mid-fit is recovered by Dask with the same
model. The tests that fit on the
cluster are marked slow; the dry run and the refusals run on Dask's local scheduler (no
``client``).
"""

from __future__ import annotations

import os
import signal
import time

import numpy as np
import pytest

pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

import dask.array as da  # noqa: E402
from _helpers import loopback_client  # noqa: E402

import dpconvex as dp  # noqa: E402
from dpconvex.data import dask_rows  # noqa: E402
from dpconvex.data.dask_gram import DaskGram  # noqa: E402
from dpconvex.errors import ParameterError, SolverError  # noqa: E402
from dpconvex.estimators.large_margin.dask import build_dask  # noqa: E402
from dpconvex.solvers import get_backend, suitable_backends  # noqa: E402
from dpconvex.templates.parameterizations import gram_operator_norm, max_row_norm  # noqa: E402

CLASSES = [0, 1, 2]


@pytest.fixture(scope="module")
def client():
    yield from loopback_client("dpconvex.estimators.large_margin.dask")


def _data(n=600, d=3, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    X = rng.normal(size=(n, d)) * 0.35 + 0.6 * np.eye(3, d)[y]  # some rows above the bound 1
    y[:4] = 7  # records outside the public label set: zero rows, no loss
    return X, y


def _make(**kw):
    base = {"epsilon": 1.0, "lam": 1.0, "random_state": 3, "classes": CLASSES, "solver": "native",
            "loss": "pairwise",  # the paper template; softmax cases pass loss="softmax"
            "unknown_labels": "ignore"}  # the records labelled 7 get zero rows
    return dp.PrivateLargeMarginGaussian(**{**base, **kw})


@pytest.mark.slow
def test_products_equal_the_in_memory_template(client, monkeypatch):
    X, y = _data(n=503)
    mem = _make().prepare(X, y, _make().plan_for(X, y)).template
    rng = np.random.default_rng(1)
    Phi = rng.normal(size=mem.space.shape)
    Phi = Phi + np.swapaxes(Phi, -1, -2)
    W = rng.normal(size=(503, mem.J))
    for persist in (True, False):  # persisted chunks, or recomputed from the source per pass
        monkeypatch.setattr(dask_rows, "PERSIST_FRACTION", 0.4 if persist else 0.0)
        Xd = da.from_array(X, chunks=(120, 3))
        dsk = _make().prepare(Xd, y, _make().plan_for(Xd, y)).template
        assert isinstance(dsk.Z, DaskGram) and dsk.Z.n_chunks == 5
        np.testing.assert_allclose(dsk.space.forms(dsk.Z, Phi), mem.space.forms(mem.Z, Phi),
                                   rtol=1e-12, atol=1e-14)
        assert dsk.Z.persisted is persist  # decided at the first product
        np.testing.assert_allclose(dsk.space.adjoint(dsk.Z, W), mem.space.adjoint(mem.Z, W),
                                   rtol=1e-11, atol=1e-12)
        assert max_row_norm(dsk.Z) == pytest.approx(max_row_norm(mem.Z), rel=1e-15)
        assert gram_operator_norm(dsk.Z) == pytest.approx(gram_operator_norm(mem.Z), rel=1e-9)
        for P in (Phi, 0.01 * Phi):  # one pass; a repeat at the same point is served from memory
            v_d, g_d = dsk.data_loss(P)
            v_m, g_m = mem.data_loss(P)
            assert v_d == pytest.approx(v_m, rel=1e-12)
            np.testing.assert_allclose(g_d, g_m, rtol=1e-10, atol=1e-13)
        np.testing.assert_array_equal(dsk.y, mem.y)


@pytest.mark.slow
@pytest.mark.parametrize("kw", [
    {"mechanism": "objective"},
    {"mechanism": "none"},
    {"mechanism": "objective", "n_components": 2},  # nearest public center, per chunk
    {"mechanism": "objective", "loss": "softmax"},  # unconstrained: forms + adjoint per chunk
])
def test_dask_fit_equals_in_memory_fit(client, kw):
    X, y = _data()
    mem = _make(**kw).fit(X, y)
    dsk = _make(**kw).fit(da.from_array(X, chunks=(200, 3)), da.from_array(y, chunks=200))
    np.testing.assert_allclose(dsk.Phi_, mem.Phi_, rtol=0, atol=1e-8)
    np.testing.assert_array_equal(dsk.classes_, mem.classes_)
    assert dsk.certificate_.epsilon == mem.certificate_.epsilon
    assert dsk.certificate_.quantities == mem.certificate_.quantities  # the same calibration
    if kw["mechanism"] != "none" and "loss" not in kw:  # the pairwise template states its backend
        assert dsk.certificate_.row_map.dask and mem.certificate_.row_map is None
    Xt = da.from_array(X[:250], chunks=100)
    np.testing.assert_array_equal(dsk.predict(Xt), mem.predict(X[:250]))
    np.testing.assert_array_equal(mem.predict(Xt), mem.predict(X[:250]))
    np.testing.assert_allclose(dsk.class_scores(Xt), mem.class_scores(X[:250]), rtol=0, atol=1e-8)


def test_certify_on_dask_equals_in_memory():
    X, y = _data()
    a = _make().certify(X, y)
    b = _make().certify(da.from_array(X, chunks=(200, 3)), y)
    assert (a.epsilon, a.quantities) == (b.epsilon, b.quantities)


@pytest.mark.parametrize("call", ["fit", "certify"])
def test_a_dask_fit_checks_its_rows_and_labels_once(call):
    """The Dask build takes the rows and labels as the fit (or its dry run) validated them
    before the plan: the rows' check on the workers, the labels' check and their encoding
    each run once."""
    import sys

    import dask

    from dpconvex.data import validation

    checks = {f.__code__: f.__name__ for f in (dask_rows.check_dask, validation.check_labels,
                                                validation.encode_labels)}
    seen: list[str] = []

    def count(frame, event, arg):
        if event == "call" and frame.f_code in checks:
            seen.append(checks[frame.f_code])

    X, y = _data(n=300)
    with dask.config.set(scheduler="synchronous"):
        sys.setprofile(count)
        try:
            getattr(_make(), call)(da.from_array(X, chunks=100), y)
        finally:
            sys.setprofile(None)
    assert sorted(seen) == ["check_dask", "check_labels", "encode_labels"]


def test_cvxpy_backends_refuse_dask_records_and_charge_nothing():
    X, y = _data(n=300)
    t = build_dask(_make(), da.from_array(X, chunks=100), y).template
    assert "cvxpy" in t.capabilities  # the loss has a CVXPY form, but the records are not in memory
    assert get_backend("auto", t).name == "native"
    assert suitable_backends(t) == ["native"]
    for name in ("clarabel", "scs"):
        with pytest.raises(ParameterError, match="needs the rows in one process's memory"):
            get_backend(name, t)
    acc = dp.BudgetAccountant(epsilon=3.0)
    est = _make(solver="clarabel", accountant=acc)
    with pytest.raises(ParameterError, match="solver='native' or solver=None"):
        est.fit(da.from_array(X, chunks=100), y)
    assert not hasattr(est, "Phi_") and acc.spent == (0.0, 0.0)


@pytest.mark.slow
def test_ledger_charged_for_a_release_and_for_a_refusal_after_the_noise(client):
    X, y = _data(n=300)
    Xd = da.from_array(X, chunks=100)
    acc = dp.BudgetAccountant(epsilon=3.0)
    est = _make(accountant=acc, max_iter=2)  # a capped solve misses the residual: no release
    with pytest.raises(SolverError):
        est.fit(Xd, y)
    # the solve was of the noisy objective: its refusal is charged
    # (docs/privacy/messages.md#privacy-refusal-charge)
    assert not hasattr(est, "Phi_") and acc.spent == (1.0, 0.0) and acc.reserved == []
    _make(accountant=acc).fit(Xd, y)
    assert acc.spent == (2.0, 0.0)


def test_data_wide_component_assignments_are_refused():
    X, y = _data(n=300)
    for method in ("dp_kmeans", "gmm_nonprivate"):
        est = _make(n_components=2, component_assignment=method)
        with pytest.raises(ParameterError, match="nearest_public_center"):
            est.fit(da.from_array(X, chunks=100), y)


@pytest.mark.slow
def test_worker_killed_mid_fit_is_recovered(client, monkeypatch):
    """The chunk views prefer their chunk's worker but are not pinned to it: when that
    worker dies mid-fit, Dask recomputes its chunks and views elsewhere and the fit ends
    with the same model (to 1e-8); the ledger is charged once."""
    X, y = _data(n=300)
    Xd = da.from_array(X, chunks=100)
    ref = _make().fit(Xd, y)
    calls = []
    data_loss = DaskGram.data_loss

    def killing(self, template, Phi):
        calls.append(1)
        if len(calls) == 3:
            addr, pid = sorted(client.run(os.getpid).items())[0]
            os.kill(pid, signal.SIGKILL)
            deadline = time.monotonic() + 20
            while addr in client.scheduler_info()["workers"] and time.monotonic() < deadline:
                time.sleep(0.05)
        return data_loss(self, template, Phi)

    monkeypatch.setattr(DaskGram, "data_loss", killing)
    acc = dp.BudgetAccountant(epsilon=3.0)
    est = _make(accountant=acc).fit(Xd, y)
    assert len(calls) > 3
    np.testing.assert_allclose(est.Phi_, ref.Phi_, rtol=0, atol=1e-8)
    assert acc.spent == (1.0, 0.0)
    client.wait_for_workers(2, timeout=30)


@pytest.mark.parametrize("loss", ["pairwise", "softmax"])
def test_the_certificate_states_the_dask_backend_with_either_loss(loss):
    X, y = _data()
    cert = _make(loss=loss).certify(da.from_array(X, chunks=(200, 3)), y)
    assert cert.row_map is not None and cert.row_map.dask
    in_memory = _make(loss=loss).certify(X, y).row_map
    assert in_memory is None or not in_memory.dask
