"""Sparse (CSR/CSC) input through the design-operator seam: same model, less memory."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

import dpconvex as dp


def _fit(est, X, y):
    tracemalloc.start()
    try:
        est.fit(X, y)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return est, peak


@pytest.mark.slow
@pytest.mark.parametrize("mechanism", ["objective", "output"])
def test_csr_adult_fit_equals_dense_fit_with_less_memory(data_home, mechanism):
    from dpconvex.datasets import load_adult

    X, y = load_adult("train", data_home=data_home)
    Xs = sp.csr_array(X)
    kw = dict(epsilon=1.0, lam=1e-3, mechanism=mechanism, fit_intercept=False, random_state=3)
    dense, _ = _fit(dp.PrivateLogisticRegression(**kw), X, y)
    sparse, peak = _fit(dp.PrivateLogisticRegression(**kw), Xs, y)
    # Adult is 11.6% non-zero: the dense path already solves on a CSR copy, so the
    # two fits run the same arithmetic on the same rows.
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=0, atol=1e-10)
    assert peak < X.nbytes, f"peak {peak / 1e6:.1f} MB >= dense array {X.nbytes / 1e6:.1f} MB"
    Xt, yt = load_adult("test", data_home=data_home)
    assert sparse.score(sp.csr_array(Xt), yt) == dense.score(Xt, yt)


def test_csc_and_coo_input_accepted_and_equal_to_dense():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 8)) * (rng.random((300, 8)) < 0.3)
    y = (X[:, 0] + 0.1 * rng.normal(size=300) > 0).astype(int)
    ref = dp.PrivateHuberSVM(epsilon=2.0, lam=1e-2, random_state=1).fit(X, y)
    for conv in (sp.csc_matrix, sp.coo_array, sp.csr_matrix):
        est = dp.PrivateHuberSVM(epsilon=2.0, lam=1e-2, random_state=1).fit(conv(X), y)
        np.testing.assert_allclose(est.coef_, ref.coef_, rtol=0, atol=1e-9)
        np.testing.assert_array_equal(est.predict(conv(X)), ref.predict(X))


def test_sparse_rows_above_the_bound_are_clipped_like_dense_rows():
    X = np.array([[3.0, 0.0, 4.0], [0.1, 0.0, 0.0], [0.0, -2.0, 0.0], [0.3, 0.3, 0.0]])
    y = np.array([0, 1, 0, 1])
    kw = dict(epsilon=1.0, lam=0.1, random_state=0, data_norm=1.0)
    a = dp.PrivateLogisticRegression(**kw).fit(X, y)
    b = dp.PrivateLogisticRegression(**kw).fit(sp.csr_array(X), y)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=0, atol=1e-12)


@pytest.mark.parametrize("fmt", ["coo", "dia", "bsr"])
def test_the_front_doors_safeguard_takes_every_sparse_format(fmt):
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, size=(300, 3))
    y = (X[:, 0] > 0).astype(int)
    ledger = dp.BudgetAccountant(1.0)
    est = dp.PrivateClassifier(epsilon=1.0, classes=[0, 1], safeguard=True, accountant=ledger,
                               random_state=0).fit(sp.csr_matrix(X).asformat(fmt), y)
    assert "safeguard selected" in est.certificate_.released
    assert ledger.spent == (1.0, 0.0)
