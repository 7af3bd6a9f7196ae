"""RandomFourierFeatures: data-independent draw, norm bound, kernel approximation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.base import clone
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from dpconvex import PrivateLogisticRegression
from dpconvex.errors import DataValidationError, ParameterError
from dpconvex.estimators.kernels import (
    COMPONENTS_CONSTANT,
    COMPONENTS_RANGE,
    RandomFourierFeatures,
    auto_components,
)


@settings(max_examples=50, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 20), st.integers(1, 6)),
              elements=st.floats(-1e6, 1e6, allow_nan=False)),
       st.integers(1, 300), st.floats(1e-3, 1e3))
def test_rows_within_stated_norm_for_any_input(X, D, gamma):
    rff = RandomFourierFeatures(n_components=D, gamma=gamma, random_state=0).fit(X)
    Z = rff.transform(X)
    assert Z.shape == (X.shape[0], D)
    assert np.all(np.linalg.norm(Z, axis=1) <= rff.data_norm * (1 + 1e-12))
    assert rff.data_norm == 1.0


def test_approximates_rbf_kernel():
    # Each entry 2 z(x)ᵀz(x') is a mean of D i.i.d. terms in [-2, 2] with mean k(x, x')
    # (Rahimi & Recht 2007), so by Hoeffding P(|k̂ - k| > t) <= 2 exp(-D t² / 8). With
    # D = 20,000, t = 0.08 and the 30*31/2 = 465 distinct entries, the union bound puts the
    # false-alarm rate below 465 * 2 exp(-16) ≈ 1.0e-4 (the seed is fixed, so the test is
    # deterministic).
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 4)) * 0.5
    gamma = 0.7
    K = rbf_kernel(X, gamma=gamma)
    rff = RandomFourierFeatures(n_components=20_000, gamma=gamma, random_state=2).fit(X)
    err_big = np.max(np.abs(rff.approximate_kernel(X) - K))
    assert err_big < 0.08
    err_small = np.max(np.abs(
        RandomFourierFeatures(n_components=20, gamma=gamma, random_state=2).fit(X)
        .approximate_kernel(X) - K))
    assert err_big < err_small  # more features, better approximation
    Y = rng.normal(size=(7, 4)) * 0.5
    assert np.max(np.abs(rff.approximate_kernel(X, Y) - rbf_kernel(X, Y, gamma=gamma))) < 0.08


def test_draw_is_data_independent_and_reproducible():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(50, 3))
    B = rng.normal(size=(7, 3)) * 100
    ra = RandomFourierFeatures(64, gamma=2.0, random_state=5).fit(A)
    rb = RandomFourierFeatures(64, gamma=2.0, random_state=5).fit(B)
    np.testing.assert_array_equal(ra.random_weights_, rb.random_weights_)
    np.testing.assert_array_equal(ra.random_offset_, rb.random_offset_)
    assert ra.random_weights_.shape == (3, 64)
    assert np.all((ra.random_offset_ >= 0) & (ra.random_offset_ < 2 * math.pi))
    r1 = RandomFourierFeatures(64).fit(A)
    r2 = RandomFourierFeatures(64).fit(A)  # None: seeded from the OS
    assert not np.array_equal(r1.random_weights_, r2.random_weights_)


def test_an_int_seed_draws_the_features_from_their_own_stream():
    """A learner given the same int draws its secret noise from default_rng(seed): were the
    released frequencies drawn there too, they would be that noise (scaled)."""
    for seed in (0, 5):
        rff = RandomFourierFeatures(64, gamma=0.5, random_state=seed).fit(np.zeros((1, 3)))
        learners = np.random.default_rng(seed)
        assert not np.array_equal(rff.random_weights_, learners.normal(0.0, 1.0, size=(3, 64)))
        assert np.corrcoef(rff.random_weights_.ravel(),  # not the learner's standard normals
                           np.random.default_rng(seed).normal(size=192))[0, 1] < 0.5
        child = np.random.default_rng(seed).spawn(1)[0]  # nor a child a meta-estimator spawns
        assert not np.array_equal(rff.random_weights_, child.normal(0.0, 1.0, size=(3, 64)))


def test_frequency_distribution():
    # ω ~ N(0, 2γ I): the sample variance of 200,000 entries is within 1% of 2γ
    # (relative sd sqrt(2/N) = 0.32%, so 1% is > 3 sd: false-alarm rate < 3e-3).
    rff = RandomFourierFeatures(n_components=50_000, gamma=3.0, random_state=3).fit(np.zeros((1, 4)))
    w = rff.random_weights_.ravel()
    assert np.var(w) == pytest.approx(6.0, rel=0.01)


@pytest.mark.parametrize("params", [{"gamma": 0.0}, {"gamma": -1.0}, {"gamma": "scale"},
                                    {"n_components": 0}, {"n_components": 2.5},
                                    {"n_components": "auto"},  # needs learner_epsilon
                                    {"n_components": "Auto", "learner_epsilon": 1.0},
                                    {"n_components": "auto", "learner_epsilon": 0.0},
                                    {"n_components": "auto", "learner_epsilon": -1.0}])
def test_invalid_parameters(params):
    with pytest.raises(ParameterError):
        RandomFourierFeatures(**params).fit(np.zeros((2, 2)))


def test_transform_checks_features():
    rff = RandomFourierFeatures(8, random_state=0).fit(np.zeros((3, 2)))
    with pytest.raises(DataValidationError):
        rff.transform(np.zeros((3, 5)))
    assert list(rff.get_feature_names_out())[:2] == ["randomfourierfeatures0",
                                                     "randomfourierfeatures1"]
    assert clone(rff).get_params() == rff.get_params()


def test_pipeline_with_private_learner():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(600, 2)) / math.sqrt(2)
    y = (np.linalg.norm(X, axis=1) < 0.45).astype(int)
    rff = RandomFourierFeatures(n_components=40, gamma=4.0, random_state=0)
    pipe = make_pipeline(rff, PrivateLogisticRegression(epsilon=1.0, data_norm=rff.data_norm,
                                                        random_state=0)).fit(X, y)
    cert = pipe[-1].certificate_
    assert cert.private and cert.epsilon <= 1.0
    assert pipe.predict(X).shape == (600,)


def test_auto_components_rule():
    # D = round(C (n ε)^{2/3}) clipped to [10, 1000]
    # (docs/privacy/tuning_gd_ledger.md#privacy-n-components-auto)
    assert COMPONENTS_CONSTANT == 0.1 and COMPONENTS_RANGE == (10, 1000)
    assert auto_components(30162, 0.1) == round(0.1 * 3016.2 ** (2 / 3)) == 21
    assert auto_components(50000, 1.0) == 136
    assert auto_components(398, 0.1) == 10  # floor
    assert auto_components(10**6, 10.0) == 1000  # cap
    assert auto_components(100, math.inf) == 1000
    assert auto_components(1000, 1.0, constant=0.4) == 40
    Ds = [auto_components(n, eps) for n in (500, 5000, 50000) for eps in (0.1, 1.0, 10.0)]
    assert all(a <= b for a, b in zip(Ds[::3], Ds[1::3], strict=True))  # grows with ε


def test_auto_reads_only_the_shape_and_epsilon():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(3000, 4))
    B = rng.normal(size=(3000, 4)) * 100
    ra = RandomFourierFeatures("auto", learner_epsilon=1.0, random_state=5).fit(A)
    rb = RandomFourierFeatures("auto", learner_epsilon=1.0, random_state=5).fit(B)
    assert ra.n_components_ == rb.n_components_ == auto_components(3000, 1.0) == 21
    np.testing.assert_array_equal(ra.random_weights_, rb.random_weights_)
    assert ra.transform(A).shape == (3000, 21)
    assert RandomFourierFeatures("auto", learner_epsilon=10.0).fit(A).n_components_ == 97
    # an explicit D ignores epsilon
    assert RandomFourierFeatures(64, learner_epsilon=0.1).fit(A).n_components_ == 64


@parametrize_with_checks([RandomFourierFeatures(n_components=20, random_state=0),
                          RandomFourierFeatures(n_components="auto", learner_epsilon=1.0,
                                                random_state=0)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_set_params_refuses_a_name_that_is_no_parameter_setting_nothing():
    """As dpconvex's estimators: a ParameterError (a ValueError) listing the parameters, raised
    before any name of the call is set."""
    rff = RandomFourierFeatures(n_components=10)
    with pytest.raises(ParameterError, match=r"^RandomFourierFeatures.set_params: got 'n_jobs', "
                       r"which is not a parameter of RandomFourierFeatures\. Set its parameters "
                       r"only: \['gamma', 'learner_epsilon', 'n_components', 'random_state'\]\.$"
                       ) as refused:
        rff.set_params(n_components=20, n_jobs=2)
    assert isinstance(refused.value, ValueError) and rff.n_components == 10
    assert rff.set_params(n_components=20).n_components == 20
