"""The searches and ``epsilon_sweep`` on Dask rows: the in-memory results, rows never collected.

Every comparison fits the same rows with the same seed in memory and from a Dask
array (or DataFrame) on the synchronous scheduler. The split, the noise and the
selection draw the same numbers either way; a Dask part holds the same records as
the in-memory part, in their order in X rather than in the permutation's, so the
candidates differ only by the order of their sums. Tolerances: the linear learners
end with Newton steps to the minimizer, so both solves agree to rounding: n <= 400
terms of relative rounding 2^-53 each, amplified by at most 1/Λ = 100 (the smallest
Λ used), is about 5e-12 on a coefficient, and 1e-10 allows for that. The large-margin
learner's solver stops anywhere within its residual tolerance r = 1e-6 of a
Λ-strongly convex minimum, so two solves may differ by up to 2r/Λ (the release
oracle's rule). The mistake counts are integers, so the selected index is equal.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
import dask  # noqa: E402
import dask.dataframe as dd  # noqa: E402
import pandas as pd  # noqa: E402

import dpconvex as dp  # noqa: E402
from dpconvex._validation import NoiseSource  # noqa: E402
from dpconvex.data.dask_rows import split_rows  # noqa: E402
from dpconvex.estimators.base import NO_CONTEXT, fit_with  # noqa: E402
from dpconvex.estimators.sweep import epsilon_sweep  # noqa: E402

ATOL = 1e-10


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the noise checks' warnings at this tiny n
        yield


def _data(n=400, d=4, seed=0):
    """400 rows: three uneven chunks of the Dask array (150, 150, 100), four partitions of the
    Dask DataFrame."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * 0.4
    y = (X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X, y


def _dask(X, y, frame):
    if frame:
        cols = [f"x{j}" for j in range(X.shape[1])]
        return (dd.from_pandas(pd.DataFrame(X, columns=cols), npartitions=4),
                dd.from_pandas(pd.Series(y), npartitions=4))
    return da.from_array(X, chunks=(150, X.shape[1])), da.from_array(y, chunks=150)


def _frame(X):
    return pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])


SEARCHES = {
    "grid, logistic": lambda: dp.PrivateGridSearch(
        dp.PrivateLogisticRegression(), {"lam": [0.01, 0.1, 1.0]}, epsilon=1.0, classes=[0, 1],
        random_state=3),
    "random, Huber": lambda: dp.PrivateRandomSearch(
        dp.PrivateHuberSVM(), {"lam": [0.01, 0.1, 1.0]}, epsilon=1.0, mean_runs=3,
        classes=[0, 1], random_state=3),
    "grid, front door": lambda: dp.PrivateGridSearch(
        dp.PrivateClassifier(), {"safeguard": [True, False]}, epsilon=1.0, classes=[0, 1],
        random_state=3),
    "grid, auto": lambda: dp.PrivateGridSearch(
        dp.PrivateLogisticRegression(), "auto", epsilon=1.0, classes=[0, 1], random_state=3),
}


def _cases(table: dict) -> list:
    """Each entry from a Dask array and from a Dask DataFrame; the DataFrame cases past the first
    are marked slow (they read the frame's columns the way the first does)."""
    return [pytest.param(v, frame, id=f"{k}-{'frame' if frame else 'array'}",
                         marks=pytest.mark.slow if frame and i else ())
            for frame in (False, True) for i, (k, v) in enumerate(table.items())]


@pytest.mark.parametrize("make, frame", _cases(SEARCHES))
def test_a_search_on_dask_rows_selects_and_releases_the_in_memory_model(make, frame):
    X, y = _data()
    mem = make().fit(_frame(X) if frame else X, y)
    dsk = make().fit(*_dask(X, y, frame))
    assert dsk.best_index_ == mem.best_index_
    assert dsk.best_params_ == mem.best_params_ and dsk.candidates_ == mem.candidates_
    assert dsk.part_sizes_ == mem.part_sizes_
    assert (dsk.certificate_.epsilon, dsk.certificate_.delta) == (mem.certificate_.epsilon,
                                                                 mem.certificate_.delta)
    Xs = _frame(X) if frame else X
    np.testing.assert_allclose(dsk.decision_function(Xs), mem.decision_function(Xs),
                               rtol=0, atol=ATOL)
    if frame:
        np.testing.assert_array_equal(dsk.feature_names_in_, mem.feature_names_in_)


def test_a_search_of_the_large_margin_learner_on_dask_rows():
    X, y = _data(n=400)
    make = lambda: dp.PrivateGridSearch(dp.PrivateLargeMarginGaussian(), {"lam": [0.01, 0.1]},  # noqa: E731
                                        epsilon=1.0, classes=[0, 1], random_state=3)
    mem, dsk = make().fit(X, y), make().fit(*_dask(X, y, False))
    assert dsk.best_index_ == mem.best_index_
    lam = dsk.best_params_["lam"]
    np.testing.assert_allclose(dsk.best_estimator_.Phi_, mem.best_estimator_.Phi_, rtol=0,
                               atol=2 * 1e-6 / lam)


def test_the_searches_never_collect_the_rows(monkeypatch):
    """Each part is taken per chunk on the workers: no Dask array is computed into memory
    as a whole (the products, checks and predictions run per chunk through dask.compute)."""
    X, y = _data()
    Xd, yd = _dask(X, y, False)

    def refuse(self, *a, **k):
        raise AssertionError(f"a Dask array of shape {self.shape} was collected")

    monkeypatch.setattr(da.Array, "compute", refuse)
    monkeypatch.setattr(da.Array, "__array__", refuse)
    for make in SEARCHES.values():
        make().fit(Xd, y)
    epsilon_sweep(dp.PrivateLogisticRegression(classes=[0, 1]), Xd, y, [0.5, 1.0], random_state=0)


@pytest.mark.parametrize("make", [SEARCHES["grid, logistic"], SEARCHES["random, Huber"]],
                         ids=["grid", "random"])
def test_certify_on_dask_rows_is_the_in_memory_certificate(make):
    X, y = _data()
    mem, dsk = make().certify(X, y), make().certify(*_dask(X, y, False))
    assert (dsk.epsilon, dsk.delta) == (mem.epsilon, mem.delta)
    assert dsk.quantities["part sizes"] == mem.quantities["part sizes"]


def test_split_rows_takes_each_part_per_chunk_in_row_order():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(23, 3))
    part = rng.integers(0, 3, size=23)
    part[:7] = 0  # the first chunk holds no row of parts 1 and 2: left out of them
    part[-1] = 3  # a row in no part
    pieces = split_rows(da.from_array(X, chunks=(7, 2)), part, 3)
    for j, Xj in enumerate(pieces):
        assert Xj.chunks[0] == tuple(int(np.sum(part[lo:lo + 7] == j)) for lo in range(0, 23, 7)
                                     if np.any(part[lo:lo + 7] == j))
        np.testing.assert_array_equal(Xj.compute(), X[part == j])


SWEPT = {
    "logistic (one template)": dp.PrivateLogisticRegression(lam=0.1, classes=[0, 1]),
    "logistic, lam auto": dp.PrivateLogisticRegression(classes=[0, 1]),
    "front door (refitted)": dp.PrivateClassifier(classes=[0, 1]),
    "centroids": dp.PrivateGaussianCentroid(classes=[0, 1]),
}


def _theta(est):
    est = getattr(est, "estimator_", est)
    if hasattr(est, "coef_"):
        return np.r_[est.coef_.ravel(), est.intercept_]
    return np.r_[est.means_.ravel(), est.counts_]


@pytest.mark.parametrize("est, frame", _cases(SWEPT))
def test_a_sweep_on_dask_rows_releases_the_in_memory_models(est, frame):
    X, y = _data()
    Xm = _frame(X) if frame else X
    Xd, yd = _dask(X, y, frame)
    mem = epsilon_sweep(est, Xm, y, [0.5, 2.0], runs=2, random_state=0)
    dsk = epsilon_sweep(est, Xd, yd, [0.5, 2.0], runs=2, random_state=0)
    assert dsk.templates_built == mem.templates_built
    for row_m, row_d in zip(mem.estimators, dsk.estimators, strict=True):
        for a, b in zip(row_m, row_d, strict=True):
            np.testing.assert_allclose(_theta(b), _theta(a), rtol=0, atol=ATOL)
            assert (b.certificate_.epsilon, b.certificate_.delta) == (a.certificate_.epsilon,
                                                                     a.certificate_.delta)
            if frame:
                np.testing.assert_array_equal(b.feature_names_in_, a.feature_names_in_)
    np.testing.assert_array_equal(dsk.score(Xd, yd), mem.score(Xm, y))  # per chunk on Dask


def test_a_sweep_of_the_front_door_is_a_fit_per_point():
    """The front door chooses its learner at each ε: the sweep fits it like independent fits."""
    X, y = _data(n=300)
    sweep = epsilon_sweep(dp.PrivateClassifier(classes=[0, 1]), X, y, [0.5, 2.0], runs=2,
                          random_state=0)
    rng = np.random.default_rng(0)
    for eps, row in zip((0.5, 2.0), sweep.estimators, strict=True):
        for fitted in row:
            est = dp.PrivateClassifier(classes=[0, 1], epsilon=eps, random_state=0)
            fit_with(est, X, y, NO_CONTEXT, [(est, NoiseSource(rng, seeded=True))])
            np.testing.assert_array_equal(_theta(fitted), _theta(est))
            assert fitted.learner_ == est.learner_
