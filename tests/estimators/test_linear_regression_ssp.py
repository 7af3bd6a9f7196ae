"""PrivateLinearRegression: sufficient-statistics perturbation through the estimator
(docs/privacy/sufficient_statistics.md#privacy-sufficient-statistics).

The privacy constants are checked in tests/privacy/test_ssp.py (derivation, exact privacy
loss) and tests/audit/test_audit_ssp.py (the audit through ``fit``). Here: the release is
the ridge solution of the noisy statistics and nothing else, every backend of the rows (dense,
sparse, Dask) gives the same statistics and so the same model for a seed, the refusals, the
ledger, the diagnostics, and the accuracy at a size where the noise is small. All seeds are
fixed; the one statistical test states its margin.
"""

from __future__ import annotations

import pickle
import warnings

import dask
import dask.array as da
import numpy as np
import pytest
import scipy.sparse as sp

import dpconvex as dp
from dpconvex.data.sufficient import sufficient_statistics
from dpconvex.errors import BudgetError, DataValidationError, ParameterError, PrivacyWarning
from dpconvex.privacy.certificate import MechanismChoice


def _data(n=400, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * 0.4
    y = 2.0 + X @ np.arange(1.0, d + 1) + 0.3 * rng.normal(size=n)
    return X, y


LABELS = (-6.0, 10.0)


def _reg(**kw):
    return dp.PrivateLinearRegression(**{"epsilon": 1.0, "label_range": LABELS,
                                         "random_state": 0, **kw})


def test_none_is_the_exact_ridge_on_the_clipped_rows_and_unit_labels():
    X, y = _data()
    lam = 0.01
    reg = _reg(mechanism="none", lam=lam).fit(X, y)
    # the same problem by hand: rows clipped to q = 1, the column s = 1, u on [-1, 1], the
    # ridge n·Λ on the coefficients and not on the intercept column
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    Z = np.hstack([X * np.minimum(1.0, 1.0 / norms), np.ones((len(X), 1))])
    u = (2 * np.clip(y, *LABELS) - sum(LABELS)) / (LABELS[1] - LABELS[0])
    ref = np.linalg.solve(Z.T @ Z + len(X) * lam * np.diag([1.0, 1.0, 1.0, 0.0]), Z.T @ u)
    half, mid = (LABELS[1] - LABELS[0]) / 2, sum(LABELS) / 2
    np.testing.assert_allclose(reg.coef_, half * ref[:3], rtol=1e-10)
    assert reg.intercept_ == pytest.approx(mid + half * ref[3], rel=1e-10)
    assert not reg.certificate_.private


def test_a_release_is_the_ridge_of_the_noisy_statistics_and_holds_nothing_else():
    X, y = _data()
    reg = _reg().fit(X, y)
    fitted = {k for k in vars(reg) if k.endswith("_") and not k.startswith("_")}
    assert fitted == {"coef_", "intercept_", "n_features_in_", "certificate_"}
    text = str(reg.certificate_)
    assert "sufficient-statistics perturbation" in text and "discarded" in text
    assert "docs/privacy/sufficient_statistics.md#" in text
    # the same seed, the same release; another seed, another release
    assert np.array_equal(_reg().fit(X, y).coef_, reg.coef_)
    # at ε = 20 the chosen ridge keeps a model (at ε = 1 on these 400 rows: the middle of the range)
    one, other = _reg(epsilon=20.0).fit(X, y), _reg(epsilon=20.0, random_state=1).fit(X, y)
    assert one.coef_.any() and not np.array_equal(one.coef_, other.coef_)
    assert pickle.loads(pickle.dumps(reg)).predict(X[:3]).tolist() == reg.predict(X[:3]).tolist()


@pytest.mark.parametrize("kw, mechanism", [({}, "ssp"), ({"delta": 1e-6}, "gaussian_ssp")])
def test_auto_takes_the_pure_or_the_gaussian_form_by_delta(kw, mechanism):
    X, y = _data()
    reg = _reg(**kw).fit(X, y)
    plan = _reg(**kw).plan_for(X, y)
    assert plan.mechanism_name == mechanism
    assert reg.certificate_.line(MechanismChoice).mechanism == mechanism
    assert reg.certificate_.epsilon <= 1.0 and reg.certificate_.delta == kw.get("delta", 0.0)


def test_accuracy_near_the_non_private_fit_when_the_noise_is_small():
    """n = 20,000 rows, ε = 1: the noise on A and b is ~1e-3 of their size, so the held-out R²
    is within 0.02 of the non-private one (measured: within 0.002 for seeds 0..9)."""
    X, y = _data(n=20_000)
    Xt, yt = _data(n=2000, seed=1)
    exact = _reg(mechanism="none").fit(X, y).score(Xt, yt)
    for kw in ({}, {"delta": 1e-8}):
        assert _reg(**kw).fit(X, y).score(Xt, yt) > exact - 0.02


def test_sparse_and_dask_rows_give_the_dense_release():
    X, y = _data()
    X[np.abs(X) < 0.3] = 0.0
    X[0] *= 10.0  # a row above the norm bound: clipped in every backend alike
    dense = _reg(delta=1e-6).fit(X, y)
    sparse = _reg(delta=1e-6).fit(sp.csr_matrix(X), y)
    with dask.config.set(scheduler="synchronous"):
        lazy = _reg(delta=1e-6).fit(da.from_array(X, chunks=(90, 3)), da.from_array(y, chunks=90))
        lazy_pred = lazy.predict(da.from_array(X, chunks=(90, 3)))
    # A and b are float64 sums of the same n = 400 rows in another order (blocks, sparse
    # entries, chunks): they differ by at most ~n·eps ≈ 1e-13 of their size (measured
    # <= 9e-17 of max|A|). Each noisy statistic is then snapped to its public grid (noise
    # scale · 2^-21; 2^-33 of the entry where that is larger, none here:
    # docs/privacy/accuracy_randomness.md#privacy-accuracy-randomness),
    # which gives the same noisy statistics unless one lies within that difference of a
    # grid boundary: the releases agree to 1e-12 relative (bit for bit for seeds 0-4).
    scale = np.max(np.abs(dense.coef_))
    for other in (sparse, lazy):
        np.testing.assert_allclose(other.coef_, dense.coef_, rtol=0, atol=1e-12 * scale)
        assert other.intercept_ == pytest.approx(dense.intercept_, rel=1e-12)
    assert lazy.certificate_.row_map.dask and dense.certificate_.row_map is None
    np.testing.assert_allclose(lazy_pred, dense.predict(X), rtol=1e-12)
    np.testing.assert_allclose(sparse.predict(sp.csr_matrix(X)), dense.predict(X), rtol=1e-12)


def test_the_statistics_are_read_in_one_pass_over_dask_chunks(monkeypatch):
    X, y = _data()
    calls = []
    real = dask.compute

    def counting(*args, **kwargs):
        calls.append(len(args))
        return real(*args, **kwargs)

    monkeypatch.setattr(dask, "compute", counting)
    with dask.config.set(scheduler="synchronous"):
        Xd = da.from_array(X, chunks=(100, 3))
        sufficient_statistics(Xd, np.zeros(len(X)), 1.0, 1.0)
    assert len(calls) == 1  # one compute: the per-chunk sums, tree-summed


def test_predictions_are_in_the_label_units_and_clipped_to_the_range():
    X, y = _data()
    reg = _reg(epsilon=0.05).fit(X, y)
    pred = reg.predict(X * 50)
    assert np.all((pred >= LABELS[0]) & (pred <= LABELS[1]))
    assert reg.score(X, y) == pytest.approx(
        1 - np.sum((y - reg.predict(X)) ** 2) / np.sum((y - y.mean()) ** 2))


def test_objective_and_output_perturbation_are_refused_with_the_reason():
    X, y = _data()
    for name in ("objective", "output", "gaussian_objective", "gaussian_output"):
        with pytest.raises(ParameterError, match="squared loss.*'ssp'"):
            _reg(mechanism=name).fit(X, y)


def test_the_pure_form_refuses_delta_and_the_gaussian_form_needs_it():
    X, y = _data()
    with pytest.raises(ParameterError, match="gaussian_ssp"):
        _reg(mechanism="ssp", delta=1e-6).fit(X, y)
    with pytest.raises(ParameterError, match="delta > 0"):
        _reg(mechanism="gaussian_ssp").fit(X, y)
    with pytest.raises(ParameterError, match="'mechanism' parameter"):
        _reg(mechanism="knorm_sum").fit(X, y)


def test_labels_are_checked_and_clipped_as_the_regressor_does():
    X, y = _data()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with dp.collect_diagnostics() as diag:
            _reg(label_range=(0.0, 1.0)).fit(X, y)
    assert not [w for w in caught if "label_range" in str(w.message)]  # diagnostics only
    assert diag.note("labels clipped").count == int(np.sum((y < 0) | (y > 1))) > 0
    with pytest.raises(DataValidationError, match="numbers"):
        _reg().fit(X, np.array(["a"] * len(X)))
    with pytest.raises(ParameterError, match="label_range"):
        _reg(label_range=(1.0, 0.0)).fit(X, y)


def test_the_ledger_is_charged_the_certificate():
    X, y = _data()
    acc = dp.BudgetAccountant(epsilon=1.5, delta=1e-5)
    _reg(delta=1e-6, accountant=acc).fit(X, y)
    assert acc.spent == pytest.approx((1.0, 1e-6))
    with pytest.raises(BudgetError):
        _reg(delta=1e-6, accountant=acc).fit(X, y)


def test_certify_is_the_certificate_of_fit_without_noise_or_charge():
    X, y = _data()
    acc = dp.BudgetAccountant(epsilon=1.0)
    before = _reg(accountant=acc).certify(X, y)
    shape_only = _reg().certify(n=len(X), n_classes=1, n_features=3)
    fitted = _reg().fit(X, y).certificate_
    assert acc.spent == (0.0, 0.0)
    for cert in (before, shape_only):
        assert cert.epsilon == fitted.epsilon and cert.mechanism == fitted.mechanism
        assert cert.quantities == fitted.quantities


def test_a_given_lam_is_the_ridge_n_lam_and_the_auto_ridge_releases_nothing_more():
    X, y = _data()
    cert = _reg(lam=0.1).fit(X, y).certificate_
    assert cert.quantities["released statistics"] == "gram, cross, total"  # S: the intercept
    assert "n * lam" in cert.quantities["ridge"] and f"{0.1 * len(X):.6g}" in cert.quantities["ridge"]
    auto = _reg().fit(X, y).certificate_
    assert auto.quantities["released statistics"] == "gram, cross, total"
    assert "least estimated risk" in auto.quantities["ridge"] and auto.epsilon == cert.epsilon


def test_diagnostics_count_the_clipped_rows_and_labels_for_the_data_holder():
    X, y = _data()
    X[:7] *= 100.0
    with dp.collect_diagnostics() as diag, warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        reg = _reg(label_range=(0.0, 4.0)).fit(X, y)
    note = diag.note("scaled down")
    over = int(np.sum(np.linalg.norm(X, axis=1) > 1.0))
    assert note is not None and note.count == over and note.n == len(X) and over >= 7
    labels = diag.note("labels clipped")
    assert labels is not None and labels.count == int(np.sum((y < 0) | (y > 4)))
    # the counts stay with the data holder: the certificate is the dry run's, which reads no record
    assert reg.certificate_ == _reg(label_range=(0.0, 4.0)).certify(X, y)


def test_feature_names_are_checked_in_predict():
    pd = pytest.importorskip("pandas")
    X, y = _data()
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    reg = _reg().fit(frame, y)
    assert list(reg.feature_names_in_) == ["a", "b", "c"]
    with pytest.warns(UserWarning):
        reg.predict(X)
