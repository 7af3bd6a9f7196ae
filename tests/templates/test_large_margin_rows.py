"""The large-margin records z_i = [s_i x_i, c_i] over the stored rows, without a copy."""

import numpy as np
import pytest
from _helpers import traced_peak

import dpconvex as dp
from dpconvex.data.preprocess import augment_and_scale
from dpconvex.templates.feature_map import FeatureMap
from dpconvex.templates.large_margin_rows import AugmentedRows
from dpconvex.templates.large_margin_softmax import LargeMarginSoftmaxTemplate


def _rows(n=400, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    s = rng.uniform(0.0, 1.0, n)
    s[:3] = 0.0  # zeroed records
    c = np.where(s > 0, 0.7, 0.0)
    return X, s, c, AugmentedRows(X, s, c)


def test_products_equal_those_of_the_materialized_rows(monkeypatch):
    from dpconvex.templates import large_margin_rows

    monkeypatch.setattr(large_margin_rows, "_BLOCK_BYTES", 8 * 5 * 64)  # many blocks
    X, s, c, rows = _rows()
    Z = np.hstack([X * s[:, None], c[:, None]])
    np.testing.assert_array_equal(rows.toarray(), Z)
    rng = np.random.default_rng(1)
    P = rng.normal(size=(3, 5, 5))
    W = rng.normal(size=(400, 3))
    ref_forms = np.einsum("ik,jkl,il->ij", Z, P, Z)
    np.testing.assert_allclose(rows.forms(P), ref_forms, rtol=1e-12, atol=1e-12)
    ref_gram = np.einsum("ij,ik,il->jkl", W, Z, Z)
    np.testing.assert_allclose(rows.weighted_gram(W), ref_gram, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(rows.row_norms(), np.linalg.norm(Z, axis=1), rtol=1e-14)
    A = rng.normal(size=(2, 5))

    def f(F, sl):  # weights that read the scores and the rows' positions
        return np.tanh(F) * (1 + np.arange(sl.start, sl.stop))[:, None]

    F = Z @ A.T
    np.testing.assert_allclose(rows.forms_adjoint(A, f), f(F, slice(0, 400)).T @ Z,
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(rows.forms_adjoint(A[0], lambda F, sl: np.tanh(F)),
                               np.tanh(Z @ A[0]) @ Z, rtol=1e-12, atol=1e-12)
    V = f(F, slice(0, 400))
    np.testing.assert_allclose(rows.forms_gram(A, f), np.einsum("ij,ik,il->jkl", V, Z, Z),
                               rtol=1e-12, atol=1e-12)
    def pos(F, sl):  # one column >= 0: the symmetric product
        return F[:, :1] ** 2

    np.testing.assert_allclose(rows.forms_gram(A, pos)[0], (F[:, 0] ** 2 * Z.T) @ Z,
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(rows.every(3).toarray(), Z[::3])
    assert np.shares_memory(rows.every(3).X, X)


@pytest.mark.parametrize("C", [2, 3])
def test_the_one_pass_objective_is_the_softmax_objective(C):
    """Objective, gradient, Hessian-vector products and the dense Hessian of the feature map
    linear in z, on an array and on AugmentedRows, against the products of the space."""
    rng = np.random.default_rng(C)
    n, d = 300, 4
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = rng.integers(0, C, n)
    out = np.zeros(n, dtype=bool)
    out[:5] = True  # records outside the label set: zero rows
    Z = augment_and_scale(X, 1.0)
    Z[out] = 0.0
    r = np.sqrt(2.0)
    rows = AugmentedRows(X, np.where(out, 0.0, 1 / r), np.where(out, 0.0, 1 / r))
    fmap = FeatureMap("linear", (0.0, 1.0, 0.1), 1.0, d)
    kw = dict(n_classes=C, lam=0.01, data_norm=1.0, feature_map=fmap)
    t_arr = LargeMarginSoftmaxTemplate(Z, y, **kw)
    t_rows = LargeMarginSoftmaxTemplate(rows, y, **kw)
    assert {"hessian", "hessp"} <= t_rows.capabilities
    th = rng.normal(size=t_arr.space.shape)
    b = rng.normal(size=t_arr.space.shape)
    # the reference: scores and adjoint of the space, the softmax of privacy-softmax-constants
    A = np.ascontiguousarray(t_arr.space.forms(Z, th.reshape(t_arr.noise_shape)))
    lse = np.log(np.exp(-A).sum(axis=1))
    val = (lse.sum() + A[np.arange(n), y].sum()) / n + 0.005 * th @ th + b @ th / n
    Wt = -np.exp(-A - lse[:, None])
    Wt[np.arange(n), y] += 1.0
    grad = t_arr.space.adjoint(Z, Wt / n).ravel() + 0.01 * th + b / n
    for t in (t_arr, t_rows):
        v, g = t.objective(th, b)
        assert v == pytest.approx(val, rel=1e-12)
        np.testing.assert_allclose(g, grad, rtol=1e-10, atol=1e-14)
        e = rng.normal(size=th.size)
        fd = (t.objective(th + 1e-6 * e, b)[1] - t.objective(th - 1e-6 * e, b)[1]) / 2e-6
        np.testing.assert_allclose(t.hessp(th)(e), fd, rtol=0, atol=1e-8)
        H = t.hessian(th)
        np.testing.assert_allclose(H @ e, fd, rtol=0, atol=1e-8)
        np.testing.assert_allclose(H, H.T, rtol=0, atol=1e-15)


def test_a_repeated_objective_call_reads_the_rows_once(monkeypatch):
    X, s, c, rows = _rows(d=4)
    fmap = FeatureMap("linear", (0.0, 1.0, 0.1), 1.0, 4)
    t = LargeMarginSoftmaxTemplate(rows, np.arange(400) % 2, n_classes=2, lam=0.1,
                                   data_norm=1.0, feature_map=fmap)
    calls = []
    original = AugmentedRows.forms_adjoint

    def counted(self, *args):
        calls.append(1)
        return original(self, *args)

    monkeypatch.setattr(AugmentedRows, "forms_adjoint", counted)
    th = np.ones(t.space.shape)
    first = t.objective(th)
    again = t.objective(th.copy())
    assert len(calls) == 1 and first[0] == again[0]
    np.testing.assert_array_equal(first[1], again[1])
    t.objective(th, b=np.ones(t.space.shape))  # another noise: evaluated again
    t.regularizer = type(t.regularizer)(0.2)  # another modulus (a sweep's next Λ): again
    t.objective(th)
    assert len(calls) == 3


def test_the_default_fit_reads_the_rows_in_place(monkeypatch):
    """The softmax learner on the feature map linear in z holds no copy of X: its template's
    records are the validated X itself, and a fit's peak memory stays well below one copy."""
    from dpconvex.templates import large_margin_rows

    monkeypatch.setattr(large_margin_rows, "_BLOCK_BYTES", 1 << 18)  # blocks of 256 kB
    rng = np.random.default_rng(0)
    n, d = 40_000, 40
    X = rng.normal(size=(n, d)) / np.sqrt(d)
    y = (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)
    est = dp.PrivateLargeMarginGaussian(epsilon=1.0, classes=[0, 1], random_state=0)
    template = est.prepare(X, y, est.plan_for(X, y)).template
    assert isinstance(template.Z, AugmentedRows) and template.Z.X is X
    est.fit(X, y)  # warm-up (imports, first calls)
    _, peak = traced_peak(lambda: est.fit(X, y))
    assert peak < 0.5 * X.nbytes, f"peak {peak / 1e6:.1f} MB for {X.nbytes / 1e6:.1f} MB of rows"


@pytest.mark.parametrize("kw", [{}, {"row_norm": "none", "data_norm": 0.5},
                                {"unknown_labels": "ignore", "classes": [0, 1]}])
def test_the_records_in_place_give_the_release_of_the_copied_rows(monkeypatch, kw):
    """Clip, unit rows, the constant and zeroed records as factors: the same release as the
    copied, mapped rows (the same seed; two solves to the native tolerance)."""
    from dpconvex.estimators.large_margin import estimator as large_margin_estimator

    rng = np.random.default_rng(3)
    X = rng.normal(size=(600, 3)) * 0.6
    y = (X[:, 0] - X[:, 1] > 0).astype(int)
    y[:7] = 5 if "unknown_labels" in kw else y[:7]
    params = {"epsilon": 20.0, "classes": [0, 1], "random_state": 0, **kw}
    lean = dp.PrivateLargeMarginGaussian(**params)
    assert isinstance(lean.prepare(X, y, lean.plan_for(X, y)).template.Z, AugmentedRows)
    lean.fit(X, y)
    monkeypatch.setattr(large_margin_estimator, "augmented_rows", lambda *a: None)
    copied = dp.PrivateLargeMarginGaussian(**params)
    assert isinstance(copied.prepare(X, y, copied.plan_for(X, y)).template.Z, np.ndarray)
    copied.fit(X, y)
    mu = lean.certificate_.quantities["strong convexity mu"]
    assert copied.certificate_.quantities == lean.certificate_.quantities
    np.testing.assert_allclose(lean.Phi_, copied.Phi_, rtol=0, atol=4e-8 / mu)


def test_rows_near_the_float_limits_are_mapped_on_a_copy():
    from dpconvex.estimators.large_margin import centroid as large_margin_centroid

    est = dp.PrivateLargeMarginGaussian()
    X = np.ones((4, 2))
    out = np.zeros(4, dtype=bool)
    assert large_margin_centroid.augmented_rows(est, X, out) is not None
    for value in (1e120, 1e-120):
        Xh = X.copy()
        Xh[1] = value
        assert large_margin_centroid.augmented_rows(est, Xh, out) is None
    Xz = X.copy()
    Xz[2] = 0.0  # a zero row stays zero: no copy needed
    rows, clipped = large_margin_centroid.augmented_rows(est, Xz, out)
    assert clipped == 3 and rows.toarray()[2].tolist() == [0.0, 0.0, 1 / np.sqrt(2)]


@pytest.mark.parametrize("mapped", [False, True])
def test_the_record_norm_condition_reads_the_stored_rows_own_norms(mapped):
    """The records' norms are those of their stored rows, computed from them when read (the rows
    are the caller's array, not copied). Rows far outside q = 1 with the factors of rows inside
    it fail the record norm condition (with and without a feature map); the fit's records, whose
    clip factors are computed from the rows as read, pass it, also once the caller scales the
    rows up after a first read (tolerance: a clipped row's norm is q within a few ulps)."""
    from dpconvex.errors import PrivacyError
    from dpconvex.estimators.large_margin.centroid import augmented_rows

    rng = np.random.default_rng(0)
    n, d = 200, 3
    X = 100.0 * rng.normal(size=(n, d))
    y = np.arange(n) % 2
    inv_r = np.full(n, 1 / np.sqrt(2))  # the factors of rows with ||x|| <= q = 1
    kw = {"n_classes": 2, "lam": 0.1, "data_norm": 1.0}
    if mapped:
        kw["feature_map"] = FeatureMap("linear", (0.0, 1.0, 0.1), 1.0, d)
    needs = frozenset({"strong_convexity", "curvature"})
    with pytest.raises(PrivacyError, match="record norm bound"):
        LargeMarginSoftmaxTemplate(AugmentedRows(X, inv_r, inv_r), y, **kw).conditions(needs)
    est = dp.PrivateLargeMarginGaussian(data_norm=1.0, row_norm="none")
    rows, clipped = augmented_rows(est, X, np.zeros(n, dtype=bool))
    assert clipped == n and np.shares_memory(rows.X, X)
    np.testing.assert_allclose(rows.stored.row_norms(), np.linalg.norm(X, axis=1), rtol=1e-14)
    template = LargeMarginSoftmaxTemplate(rows, y, **kw)
    assert template.conditions(needs)[-1].holds
    rows.head_norms()
    X *= 200.0  # the caller's rows, changed after their norms were read
    assert LargeMarginSoftmaxTemplate(rows, y, **kw).conditions(needs)[-1].holds
    assert np.all(rows.row_norms() <= 1.0 + 1e-15)
