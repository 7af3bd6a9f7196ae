"""The per-record maps check their rows once: a public map checks them, then calls its core;
the estimators call the cores on rows ``check_array`` has checked, so no fit checks a row twice.
"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import dpconvex as dp
from dpconvex.data import preprocess, row_scaling
from dpconvex.data.preprocess import (
    _append_column,
    _augment_scaled,
    _clip_checked,
    add_intercept,
    augment_and_scale,
    clip_rows,
)
from dpconvex.data.validation import check_array
from dpconvex.estimators.large_margin.centroid import clip_and_map, prepared_rows
from dpconvex.estimators.linear import design_rows

#: The public map and its core run the same floating-point operations on the same rows; the
#: tolerance only leaves room for a different order of the same sums.
RTOL = 1e-14


def _rows(sparse: bool) -> np.ndarray | sp.csr_array:
    X = np.random.default_rng(0).normal(size=(40, 3)) * 2.0  # about half the rows above 1
    if sparse:
        X[X < 0] = 0.0
    return check_array(sp.csr_array(X) if sparse else X, "Doc.fit", accept_sparse=sparse)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_the_cores_map_checked_rows_as_the_public_maps(sparse):
    X = _rows(sparse)
    public, n_public = clip_rows(X, 1.0)
    core, n_core = _clip_checked(X, 1.0)
    assert n_core == n_public > 0
    dense = (lambda A: A.toarray()) if sparse else np.asarray
    np.testing.assert_allclose(dense(core), dense(public), rtol=RTOL, atol=0)
    np.testing.assert_allclose(dense(_append_column(core, 0.5)),
                               dense(add_intercept(public, 0.5)), rtol=RTOL, atol=0)
    if not sparse:
        np.testing.assert_allclose(_augment_scaled(core, 1.0), augment_and_scale(public, 1.0),
                                   rtol=RTOL, atol=0)


def _refuse(*args, **kwargs):
    raise AssertionError("a public map's check ran on rows check_array had checked")


def test_the_estimators_maps_do_not_check_checked_rows_again(monkeypatch):
    X = _rows(sparse=False)
    huge = X * 1e150  # norms above the in-place limit: the linear rows are clipped on a copy
    large_margin = dp.PrivateLargeMarginGaussian(data_norm=1.0, row_norm="none")
    dropped = np.zeros(len(X), dtype=bool)

    class Labels:
        pass

    Labels.dropped = dropped
    monkeypatch.setattr(preprocess, "read_rows", _refuse)
    monkeypatch.setattr(row_scaling, "read_rows", _refuse)
    rows, n_clipped = clip_and_map(large_margin, X)
    assert n_clipped > 0 and np.all(np.linalg.norm(rows, axis=1) <= 1.0 + 1e-12)
    assert prepared_rows(large_margin, X).shape == X.shape
    unit = dp.PrivateLargeMarginGaussian(data_norm=1.0, row_norm="unit")
    scaled, _ = clip_and_map(unit, X)
    np.testing.assert_allclose(np.linalg.norm(scaled, axis=1), 1.0, rtol=1e-12)
    assert large_margin._train_z(rows, Labels).shape == (len(X), X.shape[1] + 1)
    design = design_rows(dp.PrivateLogisticRegression(data_norm=1.0), huge, dropped, "Doc")
    norms = design.row_norms()  # clipped to 1, the intercept column 1 appended: <= sqrt(2)
    assert norms.shape == (len(X),) and np.all(norms <= np.sqrt(2.0) * (1.0 + 1e-12))
