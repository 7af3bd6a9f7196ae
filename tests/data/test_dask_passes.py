"""What one distributed pass of DaskRows carries: small partial sums added on the driver in the
cluster's tree order, and label signs (or a regression loss's labels) sent to the workers once
(synchronous scheduler)."""

from __future__ import annotations

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
import dask  # noqa: E402

from dpconvex.data import dask_rows  # noqa: E402
from dpconvex.data.dask_rows import DaskRows, _delayed, _reduce, _tree_sum, compute  # noqa: E402
from dpconvex.data.operators import DenseRows  # noqa: E402


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def test_small_partials_are_added_on_the_driver_in_the_tree_order(monkeypatch):
    """Bitwise the cluster's tree sum (same groups of _FAN_IN, same order), for 1 to 70 parts,
    without the cluster's sum tasks; large partials are still added on the cluster."""
    rng = np.random.default_rng(0)
    real_tree = _tree_sum
    trees = []
    monkeypatch.setattr(dask_rows, "_tree_sum", lambda parts: trees.append(1) or real_tree(parts))
    for k in (1, 9, 70):
        values = [rng.normal(size=(1, 5)) * 10.0 ** rng.integers(-8, 8) for _ in range(k)]
        parts = [_delayed(np.array)(v) for v in values]
        tree = compute(real_tree(parts))[0]
        np.testing.assert_array_equal(_reduce(parts, 40), tree)
    assert not trees  # every sum was made on the driver
    monkeypatch.setattr(dask_rows, "_DRIVER_SUM_BYTES", 0)  # too large: the tree on the cluster
    np.testing.assert_array_equal(_reduce(parts, 40), tree)
    assert trees == [1]


def test_label_signs_are_int8_and_sent_once():
    """Signs (and zeroed records) are exact in int8; they are held as one task per chunk, so a
    product's graph carries no vector of length n but the one it needs (v for Xᵀv)."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(1000, 4))
    s = rng.choice([-1.0, 0.0, 1.0], 1000)
    rows = DaskRows(da.from_array(X, chunks=(100, 4))).scale_rows(s)  # not persisted
    assert not rows.persisted and rows._scale_tasks is not None
    assert all(c.dtype == np.int8 for c in rows._scale)
    dense = DenseRows(X).scale_rows(s)
    w, v = rng.normal(size=4), rng.normal(size=1000)
    np.testing.assert_allclose(rows.matvec(w), dense.matvec(w), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(rows.rmatvec(v), dense.rmatvec(v), rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(rows.weighted_gram(v * v), dense.weighted_gram(v * v), rtol=1e-13,
                               atol=1e-13)
    np.testing.assert_allclose(rows.row_norms(), dense.row_norms(), rtol=1e-14)
    again = rows.scale_rows(-s)  # signs times signs: still int8
    assert all(c.dtype == np.int8 for c in again._scale)
    np.testing.assert_allclose(again.matvec(w), DenseRows(X).scale_rows(-s * s).matvec(w),
                               rtol=1e-13, atol=1e-15)
    general = rows.scale_rows(np.full(1000, 0.5))  # not signs: float factors, formed per task
    np.testing.assert_allclose(general.matvec(w), dense.scale_rows(np.full(1000, 0.5)).matvec(w),
                               rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("persist", [False, True])
def test_every_kth_row_is_the_in_memory_sample(persist):
    """``every(k)`` takes rows 0, k, 2k, ... across chunk borders, with their label signs."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(1003, 5))
    s = rng.choice([-1.0, 0.0, 1.0], 1003)
    rows = DaskRows(da.from_array(X, chunks=(97, 5)), persist=persist).compact().scale_rows(s)
    for k in (1, 3, 8, 20, 150):
        sub, want = rows.every(k), X[::k] * s[::k, None]
        d = rng.random(want.shape[0])
        assert sub.n == want.shape[0]
        np.testing.assert_allclose(sub.weighted_gram(d), (want.T * d) @ want, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(sub.matvec(np.ones(5)), want.sum(axis=1), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("persist", [False, True])
@pytest.mark.parametrize("factors", ["none", "signs", "floats"])
def test_margin_sums_are_the_in_memory_terms(persist, factors):
    """One pass gives Σ ℓ(m_i), Σ ℓ'(m_i) a_i and the every-k-th-row Gram Σ_S ℓ''(m_i) a_i a_iᵀ
    of the rows a_i = s_i x_i (clipped, with an intercept), as the in-memory rows give them."""
    from dpconvex.data.preprocess import add_intercept, clip_rows
    from dpconvex.objectives import HuberHinge, Logistic

    rng = np.random.default_rng(5)
    X = rng.normal(size=(1003, 5)) * 0.6
    s = {"none": np.ones(1003), "signs": rng.choice([-1.0, 0.0, 1.0], 1003),
         "floats": rng.uniform(0.2, 1.5, 1003)}[factors]
    rows = DaskRows(da.from_array(X, chunks=(97, 5)), persist=persist).clip(1.0).add_intercept(1.0)
    rows = rows.compact()
    if factors != "none":
        rows = rows.scale_rows(s)
    A = add_intercept(clip_rows(X, 1.0)[0], 1.0) * s[:, None]
    w = rng.normal(size=6)
    for loss in (Logistic(), HuberHinge()):
        m = A @ w
        value, grad, gram, count = rows.margin_sums(w, loss, step=20)
        assert value == pytest.approx(float(np.sum(loss.value(m))), rel=1e-12)
        np.testing.assert_allclose(grad, A.T @ loss.deriv(m), rtol=1e-12, atol=1e-12)
        S = A[::20]
        np.testing.assert_allclose(gram, (S.T * loss.deriv2(m[::20])) @ S, rtol=1e-12, atol=1e-12)
        assert count == S.shape[0]
        full = rows.margin_sums(w, loss, gradient=False, step=1)
        assert full[1] is None and full[3] == 1003
        np.testing.assert_allclose(full[2], (A.T * loss.deriv2(m)) @ A, rtol=1e-12, atol=1e-12)
    assert rows.margin_sums(w, Logistic())[2] is None  # step 0: no Gram
    assert rows.max_row_norm() == pytest.approx(float(np.max(np.linalg.norm(A, axis=1))), rel=1e-14)


def test_a_linear_fit_on_dask_rows_sends_no_row_vector(monkeypatch):
    """The linear learners' objective, gradient and Hessians are summed on the workers: after
    the labels, no product of the fit returns or ships a vector of n (the norm check is a max)."""
    import dpconvex as dp

    rng = np.random.default_rng(6)
    X = rng.uniform(-0.8, 0.8, size=(6_000, 4))
    y = (X @ rng.normal(size=4) > 0).astype(int)
    calls = []
    for name in ("matvec", "rmatvec", "row_norms", "weighted_gram", "margin_sums"):
        real = getattr(DaskRows, name)
        monkeypatch.setattr(DaskRows, name, lambda self, *a, _real=real, _name=name, **k:
                            calls.append(_name) or _real(self, *a, **k))
    for make in (dp.PrivateLogisticRegression, dp.PrivateHuberSVM):
        calls.clear()
        make(epsilon=1.0, classes=[0, 1], random_state=0).fit(
            da.from_array(X, chunks=(2_000, 4)), da.from_array(y, chunks=2_000))
        assert "margin_sums" in calls
        assert not {"matvec", "rmatvec", "row_norms"} & set(calls)
        assert calls.count("weighted_gram") <= 1  # the first step's majorant: a constant weight


def test_the_front_door_on_dask_rows_is_the_in_memory_release():
    """The same rows through the Dask operator give the in-memory release to 1e-12: the
    solver takes the same steps (the sampled Hessian reads the same every k-th rows)."""
    import dpconvex as dp

    rng = np.random.default_rng(3)
    X = rng.uniform(-0.8, 0.8, size=(6_000, 4))
    y = (X @ rng.normal(size=4) + 0.3 * rng.normal(size=6_000) > 0).astype(int)
    make = lambda: dp.PrivateClassifier(epsilon=1.0, classes=[0, 1], random_state=0)  # noqa: E731
    mem = make().fit(X, y)
    dsk = make().fit(da.from_array(X, chunks=(2_000, 4)), da.from_array(y, chunks=2_000))
    np.testing.assert_allclose(dsk.estimator_.coef_, mem.estimator_.coef_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(dsk.estimator_.intercept_, mem.estimator_.intercept_, rtol=0,
                               atol=1e-12)


def test_rows_recomputed_per_pass_are_clipped_inside_the_products(monkeypatch):
    """Not persisted: clip and intercept act as row factors in each product (no clipped
    copy of a chunk), with the products of the explicit maps; a chunk whose norms could
    overflow is clipped on a copy. A fit is then the in-memory release to 1e-12."""
    import dpconvex as dp
    from dpconvex.data.preprocess import add_intercept, clip_rows

    rng = np.random.default_rng(4)
    X = rng.normal(size=(3001, 6)) * 0.5
    X[5] *= 1e120  # its chunk: the explicit copy
    rows = DaskRows(da.from_array(X, chunks=(500, 6)), persist=False).clip(1.0).add_intercept(2.0)
    assert rows.compact()._implicit is not None and not rows.persisted
    dense = DenseRows(add_intercept(clip_rows(X, 1.0)[0], 2.0))
    s, w, v = rng.choice([-1.0, 1.0], 3001), rng.normal(size=7), rng.normal(size=3001)
    for got, want in [(rows.matvec(w), dense.matvec(w)), (rows.rmatvec(v), dense.rmatvec(v)),
                      (rows.row_norms(), dense.row_norms()),
                      (rows.weighted_gram(v * v), dense.weighted_gram(v * v)),
                      (rows.scale_rows(s).rmatvec(v), dense.scale_rows(s).rmatvec(v)),
                      (rows.scale_rows(v).matvec(w), dense.scale_rows(v).matvec(w))]:
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-13)
    np.testing.assert_array_equal(rows.X.compute(), dense.X)  # X: the mapped rows

    monkeypatch.setattr(dask_rows, "_cluster_memory", lambda: 1.0)  # nothing fits: recomputed
    X, y = X[6:], (X[6:, 0] > 0).astype(int)
    make = lambda: dp.PrivateClassifier(epsilon=1.0, classes=[0, 1], random_state=0)  # noqa: E731
    mem = make().fit(X, y)
    dsk = make().fit(da.from_array(X, chunks=(500, 6)), da.from_array(y, chunks=500))
    np.testing.assert_allclose(dsk.estimator_.coef_, mem.estimator_.coef_, rtol=0, atol=1e-12)


def test_a_computed_collection_is_joined_on_the_client(monkeypatch):
    """``compute`` fetches a chunked array's (or frame's) chunks and joins them on the client.

    The join is never a task: on a cluster it would run on one worker, where a result larger
    than the worker's memory limit (the labels of 50M rows) restarts it. The values, shapes and
    order are those of ``dask.compute``.
    """
    import dask.dataframe as dd
    import distributed
    import pandas as pd

    from dpconvex.data import dask_rows

    x = np.arange(60.0).reshape(20, 3)
    X, y = da.from_array(x, chunks=(7, 2)), da.from_array(np.arange(20), chunks=6)
    frame = dd.from_pandas(pd.DataFrame({"a": np.arange(10)}), npartitions=3)
    submitted: list[int] = []
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=1,
                            dashboard_address=None) as client:
        compute = client.compute

        def counting(collections, *args, **kwargs):
            submitted.append(len(collections))
            return compute(collections, *args, **kwargs)

        monkeypatch.setattr(client, "compute", counting)
        rows, labels, total, column = dask_rows.compute(X, y, X.sum(), frame["a"])
    assert np.array_equal(rows, x) and np.array_equal(labels, np.arange(20))
    assert total == x.sum() and column.tolist() == list(range(10))
    assert submitted == [X.npartitions + y.npartitions + 1 + frame.npartitions]  # pieces only


@pytest.mark.parametrize("persist", [False, True])
def test_margin_sums_of_a_regression_loss_read_the_labels_beside_the_rows(persist):
    """A loss of the prediction ℓ(z, y): one pass gives Σ ℓ(z_i, y_i), Σ ∂ℓ/∂z a_i and the
    every-k-th-row Gram with the labels held on the workers (sent once, never with a pass);
    rows that hold no labels are refused by name."""
    from dpconvex.data.preprocess import add_intercept, clip_rows
    from dpconvex.errors import ParameterError
    from dpconvex.objectives import HuberRegression, Logistic, Pinball

    rng = np.random.default_rng(7)
    X = rng.normal(size=(1003, 5)) * 0.6
    u = rng.uniform(-1.0, 1.0, 1003)
    plain = DaskRows(da.from_array(X, chunks=(97, 5)), persist=persist).clip(1.0).add_intercept(1.0)
    rows = plain.compact().with_labels(u)
    assert len(rows._labels) == rows.n_chunks and plain._labels is None
    A = add_intercept(clip_rows(X, 1.0)[0], 1.0)
    w = rng.normal(size=6)
    z = A @ w
    for loss in (HuberRegression(0.5), Pinball(0.3)):
        value, grad, gram, count = rows.margin_sums(w, loss, step=20)
        assert value == pytest.approx(float(np.sum(loss.value(z, u))), rel=1e-12)
        np.testing.assert_allclose(grad, A.T @ loss.deriv(z, u), rtol=1e-12, atol=1e-12)
        S = A[::20]
        np.testing.assert_allclose(gram, (S.T * loss.deriv2(z[::20], u[::20])) @ S, rtol=1e-12,
                                   atol=1e-12)
        assert count == S.shape[0]
        full = rows.margin_sums(w, loss, gradient=False, step=1)[2]
        np.testing.assert_allclose(full, (A.T * loss.deriv2(z, u)) @ A, rtol=1e-12, atol=1e-12)
    logistic = rows.margin_sums(w, Logistic())  # a margin loss reads no labels
    assert logistic[0] == pytest.approx(float(np.sum(Logistic().value(z))), rel=1e-12)
    with pytest.raises(ParameterError, match="reads a label per row.*with_labels"):
        plain.margin_sums(w, HuberRegression(0.5))


def test_a_regression_fit_on_dask_rows_sends_no_row_vector(monkeypatch):
    """The regressor's objective, gradient and Hessians are summed on the workers, one pass
    per evaluation: after the labels, no product of the fit returns or ships a vector of n."""
    import dpconvex as dp

    rng = np.random.default_rng(8)
    X = rng.uniform(-0.8, 0.8, size=(6_000, 4))
    y = 5 + 3 * X[:, 0] + rng.normal(size=6_000)
    calls = []
    for name in ("matvec", "rmatvec", "row_norms", "weighted_gram", "margin_sums"):
        real = getattr(DaskRows, name)
        monkeypatch.setattr(DaskRows, name, lambda self, *a, _real=real, _name=name, **k:
                            calls.append(_name) or _real(self, *a, **k))
    for loss in ("huber", "pinball"):
        calls.clear()
        dp.PrivateLinearRegressor(loss=loss, epsilon=1.0, label_range=(-5, 15), random_state=0).fit(
            da.from_array(X, chunks=(2_000, 4)), da.from_array(y, chunks=2_000))
        assert "margin_sums" in calls
        assert not {"matvec", "rmatvec", "row_norms"} & set(calls)
        assert calls.count("weighted_gram") <= 1  # the first step's majorant: a constant weight
