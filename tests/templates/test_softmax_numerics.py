"""The softmax numerics of the large-margin templates at scale.

The fused, in-place log-sum-exp / softmax (:func:`softmax_rows`) against SciPy's; the
softmax template's objective against a direct evaluation, with its work array reused
across calls; the ``"linear"`` feature map's products on the rows z, with no n × m
feature matrix; the unit row map in one copy, clip folded in; the objective path's
prepared fit keeps no copy of the rows. Fixed seeds, tiny data.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from scipy.special import logsumexp, softmax

from dpconvex.data.preprocess import augment_and_scale, clip_rows
from dpconvex.data.row_scaling import normalize_rows
from dpconvex.errors import ParameterError
from dpconvex.estimators.large_margin.centroid import clip_and_map
from dpconvex.estimators.large_margin.estimator import PrivateLargeMarginGaussian
from dpconvex.templates.feature_map import FeatureMap, FeatureMapSpace
from dpconvex.templates.large_margin import LargeMarginGaussianTemplate, softmax_rows
from dpconvex.templates.large_margin_softmax import LargeMarginSoftmaxTemplate
from dpconvex.templates.parameterizations import SymmetricShift


@pytest.mark.parametrize("S", [2, 3, 20])
def test_softmax_rows_matches_scipy_in_place_and_is_stable(S):
    rng = np.random.default_rng(0)
    N = rng.normal(scale=50.0, size=(200, S))
    N[:5] += 1e4  # exp would overflow without the shift by the row maximum
    N[5:10, 1:] = -np.inf  # inactive scores: p = 0
    ref_lse, ref_p = logsumexp(N, axis=1), softmax(N, axis=1)
    buf = N.copy()
    lse = np.empty(200)
    out = softmax_rows(buf, lse)
    assert out is lse and np.all(np.isfinite(lse))
    np.testing.assert_allclose(lse, ref_lse, rtol=1e-14, atol=1e-12)
    np.testing.assert_allclose(buf, ref_p, rtol=1e-12, atol=1e-300)
    np.testing.assert_array_equal(buf[5:10, 1:], 0.0)
    T = N[:60].reshape(20, 3, S).copy()  # the last axis of a 3-D array
    np.testing.assert_allclose(softmax_rows(T), logsumexp(N[:60].reshape(20, 3, S), axis=2),
                               rtol=1e-14)


def test_softmax_rows_refuses_an_array_it_cannot_update_in_place():
    with pytest.raises(ParameterError, match="C-contiguous"):
        softmax_rows(np.zeros((4, 3))[:, :2])


def _template(K=1, structure=None, n=90):
    rng = np.random.default_rng(1)
    Z = augment_and_scale(normalize_rows(rng.normal(size=(n, 3))), 1.0)
    y = np.arange(n) % 3
    comps = (np.arange(n) // 3) % K if K > 1 else None
    fmap = FeatureMap(structure, (0.0, 1.0, 0.25), 1.0, 3) if structure else None
    return LargeMarginSoftmaxTemplate(Z, y, comps, n_classes=3, n_components=K, lam=0.1,
                                      data_norm=1.0, feature_map=fmap), rng


@pytest.mark.parametrize("K, structure", [(1, None), (2, None), (1, "linear")])
def test_objective_matches_the_direct_softmax_loss_and_reuses_its_work_array(K, structure):
    t, rng = _template(K, structure)
    theta = rng.normal(size=t.space.shape)
    b = rng.normal(size=t.space.shape)
    A = t.space.forms(t.Z, theta.reshape(t.noise_shape))
    nA = -A if t._logmask is None else t._logmask - A
    onehot = np.zeros((t.n, t.C * t.K))
    onehot.ravel()[t._target_flat] = 1.0  # each record's target score
    ref = (np.sum(logsumexp(nA, axis=1)) + np.sum(A * onehot)) / t.n \
        + 0.5 * t.lam * np.sum(theta ** 2) + np.vdot(b, theta) / t.n
    W = (onehot - softmax(nA, axis=1)) / t.n
    ref_grad = t.space.adjoint(t.Z, W).reshape(theta.shape) + t.lam * theta + b / t.n
    val, grad = t.objective(theta, b)
    buf = t._buffers["scores"]
    assert val == pytest.approx(ref, rel=1e-13)
    np.testing.assert_allclose(grad, ref_grad, rtol=1e-11, atol=1e-14)
    t.objective(theta + 1.0, b)
    assert t._buffers["scores"] is buf  # one (n, C·K) work array across calls
    v = rng.normal(size=theta.shape)
    eps = 1e-6
    fd = (t.objective(theta + eps * v)[1] - t.objective(theta - eps * v)[1]) / (2 * eps)
    np.testing.assert_allclose(t.hessp(theta)(v), fd, rtol=1e-5, atol=1e-8)


def test_pairwise_mixture_margins_match_scipy():
    rng = np.random.default_rng(2)
    Z = augment_and_scale(normalize_rows(rng.normal(size=(40, 2))), 1.0)
    y, comps = np.arange(40) % 2, (np.arange(40) // 2) % 2
    t = LargeMarginGaussianTemplate(Z, y, comps, n_classes=2, n_components=2, lam=0.1)
    Phi = rng.normal(size=(2, 2, 3, 3))
    M, P = t.margins(Phi)
    A = t.space.forms(t.Z, Phi).reshape(40, 2, 2)
    own = A.reshape(40, 4)[np.arange(40), t._own_col]
    np.testing.assert_allclose(M, -own[:, None] - logsumexp(-A, axis=2), rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(P, softmax(-A, axis=2), rtol=1e-13)


def test_linear_feature_map_products_use_the_rows_without_a_feature_matrix():
    rng = np.random.default_rng(3)
    n, d = 20_000, 10
    Z = augment_and_scale(clip_rows(rng.normal(size=(n, d)) / 3.0, 1.0)[0], 1.0)
    Z[:7] = 0.0  # rows of records outside the label set
    fmap = FeatureMap("linear", (0.0, 1.0, 0.25), 1.0, d)
    space = FeatureMapSpace(fmap, 2, SymmetricShift(2, 1, d + 1))
    U = fmap.features(Z)
    T, W = rng.normal(size=(2, fmap.m)), rng.normal(size=(n, 2))
    tracemalloc.start()
    F = space.forms(Z, T)
    G = space.adjoint(Z, W)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < U.nbytes / 2  # the (n, m) features were never built
    np.testing.assert_allclose(F, U @ T.T, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(G, W.T @ U, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(fmap.feature_norms(Z), np.linalg.norm(U, axis=1), rtol=1e-13)


def test_unit_rows_are_scaled_in_one_copy_with_the_clip_folded_in():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(50, 4))
    X[:3] *= 1e-3  # inside the bound: scaled up to it, not clipped
    X[3] = 0.0
    X0 = X.copy()
    est = PrivateLargeMarginGaussian(data_norm=2.0)  # row_norm "auto": unit for softmax
    rows, n_clipped = clip_and_map(est, X)
    Xc, n_ref = clip_rows(X, 2.0)
    assert n_clipped == n_ref
    np.testing.assert_allclose(rows, normalize_rows(Xc, 2.0), rtol=1e-15, atol=1e-15)
    assert np.all(np.linalg.norm(rows, axis=1)[4:] <= 2.0) and np.all(rows[3] == 0.0)
    np.testing.assert_array_equal(X, X0)  # the caller's rows untouched
    rows, n_clipped = clip_and_map(est.set_params(row_norm="none"), X)
    np.testing.assert_array_equal(rows, Xc)
    assert n_clipped == n_ref


def test_prepared_objective_fit_keeps_no_copy_of_the_rows():
    rng = np.random.default_rng(5)
    X, y = rng.normal(size=(60, 3)), np.arange(60) % 2
    est = PrivateLargeMarginGaussian(epsilon=1.0, classes=[0, 1], random_state=0)
    prep = est.prepare(X, y, est.plan_for(X, y))
    assert prep.template is not None and prep.meta.rows is None
    assert prep.meta.X is X  # the caller's rows, no copy beside the template's z
