"""The private linear regressor with the rest of dpconvex: Dask rows, pipelines, the data
holder's diagnostics, the budget ledger and the certificate.

On Dask rows the regressor builds the in-memory template (same public constants, same
calibration, same noise draw); only where the loss terms are summed changes. Both fits solve
the same perturbed objective, so their releases differ by at most the two solves' distances
to its exact minimizer, which the template states from each solve's residual
(:meth:`LinearERMTemplate.distance_bound`,
docs/privacy/accuracy_randomness.md#privacy-accuracy-randomness) — the tolerance of the
comparisons below.
"""

from __future__ import annotations

import pickle
import warnings

import cvxpy as cp
import numpy as np
import pytest
from sklearn.pipeline import make_pipeline

import dpconvex as dp
from dpconvex.errors import BudgetError
from dpconvex.objectives import Loss

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")
import dask  # noqa: E402

#: Slack for sums taken in another order (chunks, then the tree): far below the solver's.
ORDER_SLACK = 1e-12
LABELS = (-5.0, 15.0)


def _table(n=900, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * 0.4  # some rows above the bound 1: clipping matters
    y = 5 + 3 * X @ np.linspace(1, -1, d) + rng.normal(size=n)
    y[:3] = [-40.0, 40.0, 100.0]  # outside the label range: clipped on both sides
    return X, y


def _make(**kw):
    return dp.PrivateLinearRegressor(**{"epsilon": 1.0, "lam": 0.05, "label_range": LABELS,
                                        "random_state": 3, **kw})


def _fit_both(make, X, y, Xd, yd):
    """The in-memory and the Dask fit, and the template-stated bound on their distance."""
    with dp.collect_diagnostics() as diag:
        mem = make().fit(X, y)
        dsk = make().fit(Xd, yd)
    template = make().prepare(X, y, make().plan_for(X, y)).template
    # ||θ − θ*|| <= distance_bound(residual, μ) for each solve, μ >= Λ (the regularizer);
    # coef_ = θ[:d]·(hi − lo)/2 and intercept_ = mid + θ_d·s·(hi − lo)/2 (s = 1)
    half = 0.5 * (LABELS[1] - LABELS[0])
    gap = half * sum(template.distance_bound(res.residual, template.lam) for res in diag[-2:])
    return mem, dsk, gap + ORDER_SLACK


def _prediction_gap(X, gap):
    """|Δ(xᵀcoef + intercept)| <= ||(x, 1)||·gap (Cauchy-Schwarz; clipping only shrinks it)."""
    return gap * float(np.sqrt(np.max(np.sum(X * X, axis=1)) + 1.0))


def _assert_same_release(mem, dsk, gap):
    np.testing.assert_allclose(dsk.coef_, mem.coef_, rtol=0, atol=gap)
    assert abs(dsk.intercept_ - mem.intercept_) <= gap
    assert dsk.certificate_.epsilon == mem.certificate_.epsilon
    assert dsk.certificate_.quantities == mem.certificate_.quantities  # the same calibration
    assert [c.name for c in dsk.certificate_.conditions] == \
        [c.name for c in mem.certificate_.conditions]
    assert dsk.certificate_.row_map.dask and mem.certificate_.row_map is None
    assert mem.certificate_.assumptions == dsk.certificate_.assumptions


# ------------------------------------------------------------------------ Dask rows
@pytest.mark.parametrize("kw", [
    {"mechanism": "objective"},
    {"mechanism": "output"},
    {"loss": "pinball", "quantile": 0.3},
    {"mechanism": "gaussian_objective", "delta": 1e-5},
    {"constraints": lambda w: [w >= 0]},  # projected gradient over the orthant
    {"fit_intercept": False},
], ids=["objective", "output", "pinball", "gaussian", "orthant", "no-intercept"])
def test_dask_fit_is_the_in_memory_release_on_threads(kw):
    X, y = _table()
    with dask.config.set(scheduler="threads"):  # uneven chunks (350, 350, 200): per chunk, then added
        mem, dsk, gap = _fit_both(lambda: _make(**kw), X, y, da.from_array(X, chunks=(350, 4)),
                                  da.from_array(y, chunks=350))
        _assert_same_release(mem, dsk, gap)
        assert dsk.certificate_.row_map.dask
        Xt = da.from_array(X[:200], chunks=70)
        np.testing.assert_allclose(dsk.predict(Xt), mem.predict(X[:200]), rtol=0,
                                   atol=_prediction_gap(X[:200], gap))
        assert dsk.score(Xt, da.from_array(y[:200], chunks=70)) == pytest.approx(
            dsk.score(X[:200], y[:200]), abs=1e-12)


def test_a_dask_dataframe_with_labels_in_memory_or_a_dask_series():
    X, y = _table()
    df = dd.from_pandas(pd.DataFrame(X, columns=list("abcd")), npartitions=3)
    with dask.config.set(scheduler="threads"):
        for labels in (y, dd.from_pandas(pd.Series(y), npartitions=2)):  # chunks unlike X's
            mem, dsk, gap = _fit_both(_make, X, y, df, labels)
            _assert_same_release(mem, dsk, gap)
            assert dsk.certificate_.row_map.dask


def test_certify_on_dask_rows_is_the_in_memory_certificate():
    X, y = _table()
    with dask.config.set(scheduler="threads"), warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)
        mem = _make().certify(X, y)
        dsk = _make().certify(da.from_array(X, chunks=(300, 4)), da.from_array(y, chunks=300))
    assert (dsk.epsilon, dsk.quantities) == (mem.epsilon, mem.quantities)
    assert [c.name for c in dsk.conditions] == [c.name for c in mem.conditions]


@pytest.mark.parametrize(("make", "n"), [
    (lambda: dp.PrivateRegressor(epsilon=1.0, label_range=LABELS, safeguard=True, random_state=3), 900),
    (lambda: dp.PrivateRegressor(epsilon=1.0, label_range=LABELS, safeguard=False, random_state=3), 900),
    (lambda: dp.PrivateRegressor(epsilon=1.0, label_range="private", random_state=3), 3000),
    (lambda: dp.PrivateLinearRegressor(epsilon=1.0, label_range="private", random_state=3), 3000),
    (lambda: dp.PrivateLinearRegression(epsilon=1.0, label_range="private", random_state=3), 3000),
    (lambda: dp.PrivateRegressor(epsilon=0.1, label_range=LABELS, random_state=3), 60),  # the mean only
], ids=["front-door-safeguard", "front-door-unguarded", "front-door-private-range",
        "linear-private-range", "ssp-private-range", "front-door-mean"])
def test_a_dry_run_on_dask_rows_states_their_backend_as_a_fit_on_them_does(make, n):
    X, y = _table(n=n)
    with dask.config.set(scheduler="threads"), warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)
        Xd, yd = da.from_array(X, chunks=(n // 3, 4)), da.from_array(y, chunks=n // 3)
        fitted, dry = make().fit(Xd, yd).certificate_, make().certify(Xd, yd)
        in_memory = make().certify(X, y)
    assert dry.row_map == fitted.row_map and in_memory.row_map is None
    assert (fitted.row_map is None) == (n == 60)  # the mean reads no row of X
    assert dry.epsilon == fitted.epsilon


def test_clipped_labels_in_memory_and_on_dask_go_to_the_diagnostics_only():
    X, y = _table()
    with dask.config.set(scheduler="threads"):
        for Xf, yf in ((X, y), (da.from_array(X, chunks=300), da.from_array(y, chunks=300))):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                with dp.collect_diagnostics() as diag:
                    _make().fit(Xf, yf)
            assert not [w for w in caught if "label_range" in str(w.message)]
            clipped = diag.note("labels clipped")
            assert (clipped.count, clipped.n) == (3, 900)


def test_the_front_doors_note_is_its_own_count_of_every_row_not_its_learners():
    X, y = _table()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)
        with dp.collect_diagnostics() as diag:  # the learner reads the labels already clipped
            dp.PrivateRegressor(epsilon=4.0, label_range=LABELS, safeguard=True,
                                random_state=0).fit(X, y)
    clipped = diag.note("labels clipped")
    assert clipped.owner == "PrivateRegressor.fit" and (clipped.count, clipped.n) == (3, 900)


# ------------------------------------------------------------------------ pipelines
def _frame(n=600, seed=5):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"age": rng.uniform(18, 90, n), "job": rng.choice(["a", "b", "c"], n),
                       "smoker": rng.integers(0, 2, n)})
    y = 20 + 0.5 * df["age"] + 10 * (df["job"] == "a") + rng.normal(size=n)
    return df, y.to_numpy()


SCHEMA = dp.PublicSchema({"age": dp.Numeric(18, 90), "job": dp.Categorical(["a", "b", "c"]),
                          "smoker": dp.Binary()})


def test_a_dataframe_through_the_public_encoder():
    df, y = _frame()
    make = lambda: dp.PrivateLinearRegressor(epsilon=2.0, label_range=(0, 100),  # noqa: E731
                                             random_state=0)
    model = make_pipeline(dp.PublicEncoder(SCHEMA), make()).fit(df, y)
    by_hand = make().fit(dp.PublicEncoder(SCHEMA).fit_transform(df), y)
    np.testing.assert_array_equal(model[-1].coef_, by_hand.coef_)  # the same rows, the same seed
    assert model[-1].n_features_in_ == dp.PublicEncoder(SCHEMA).fit(df).transform(df).shape[1]
    pred = model.predict(df)
    assert pred.shape == (600,) and np.all((pred >= 0) & (pred <= 100))
    assert model.score(df, y) > 0.3  # non-private R² ~0.95; the constant predictor has 0
    assert model[-1].certificate_.epsilon <= 2.0
    with pytest.raises(dp.DataValidationError):
        model.predict(df[["job", "age", "smoker"]])


# ------------------------------------------------------------------------ diagnostics
def test_diagnostics_are_the_data_holders_channel_only():
    X, y = _table()
    X[:4] *= 10.0  # above data_norm = 1 for sure
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)
        with dp.collect_diagnostics() as diag:
            reg = _make(mechanism="output").fit(X, y)
    assert len(diag) == 1 and diag[0].residual <= 1e-6  # the one solve, to the release tolerance
    assert diag.note("labels clipped").count == 3
    assert diag.note("scaled down").count >= 4 and diag.note("scaled down").n == 900
    blob = pickle.dumps(reg)
    assert diag[0].x.tobytes() not in blob  # the non-private minimizer is not in the model
    assert reg.certificate_.label_source.source == "label_range"
    # no count of clipped rows or labels in the certificate: a fit that clips nothing has the same
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)
        inside = _make(mechanism="output").fit(X / 100, np.clip(y, *LABELS))
    assert reg.certificate_ == inside.certificate_


# ------------------------------------------------------------------------ ledger
def test_the_ledger_is_charged_per_fit_and_refuses_past_its_budget():
    X, y = _table()
    acc = dp.BudgetAccountant(epsilon=1.5, delta=1e-5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)
        _make(accountant=acc).fit(X, y)
        assert acc.spent == pytest.approx((1.0, 0.0))
        refused = _make(accountant=acc)
        with pytest.raises(BudgetError):
            refused.fit(X, y)
        assert not hasattr(refused, "coef_") and acc.spent == pytest.approx((1.0, 0.0))
        _make(accountant=acc, epsilon=0.5, delta=1e-5, mechanism="gaussian_objective").fit(X, y)
    assert acc.spent == pytest.approx((1.5, 1e-5))
    assert len(acc.spends) == 2


# ------------------------------------------------------------------------ certificate
def test_the_certificate_states_what_was_checked():
    X, y = _table()
    huber = Loss.from_cvxpy(lambda z, u: cp.huber(z - u, 0.5), kind="regression",
                            label_range=(-1.0, 1.0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)
        reg = _make(loss=huber).fit(X, y)
    cert = reg.certificate_
    assert (cert.epsilon_requested, cert.delta, cert.private) == (1.0, 0.0, True)
    assert cert.epsilon <= 1.0 and cert.mechanism_name == "objective"
    checks = {c.name: c for c in cert.conditions}
    assert all(c.holds for c in cert.conditions)
    for name in ("convexity", "|ℓ'| bound", "label range", "labels in the label range",
                 "row norm bound", "strong convexity", "epsilon accounting", "accurate solve"):
        assert name in checks, name
    assert checks["|ℓ'| bound"].how == "derived on all of ℝ from the CVXPY form's atoms"
    q = cert.quantities
    assert q["n"] == 900 and q["dimension p"] == 5 and q["strong convexity mu"] == 0.05
    assert q["per-record gradient bound G"] == pytest.approx(np.sqrt(2.0))  # |ℓ'| <= 1, q̃ = √2
    assert cert.label_source.label_range == (-5, 15) and cert.seeded
    planned = _make(loss=huber).certify(n=900, n_classes=1, n_features=4)  # before any data
    assert planned.quantities == q


# ------------------------------------------------------------------------ a cluster
@pytest.fixture(scope="module")
def client():
    pytest.importorskip("distributed")
    from _helpers import loopback_client

    yield from loopback_client("dpconvex.data.dask_rows")


@pytest.mark.slow
@pytest.mark.parametrize("loss", ["huber", "pinball", "from_cvxpy"])
def test_dask_fit_is_the_in_memory_release_on_a_local_cluster(client, loss):
    """Two worker processes on loopback: the loss (a CVXPY form too) travels to the workers
    with each pass, the labels once."""
    if loss == "from_cvxpy":
        loss = Loss.from_cvxpy(lambda z, u: cp.huber(z - u, 0.5), kind="regression",
                               label_range=(-1.0, 1.0))
    X, y = _table()
    mem, dsk, gap = _fit_both(lambda: _make(loss=loss), X, y, da.from_array(X, chunks=(250, 4)),
                              da.from_array(y, chunks=250))
    _assert_same_release(mem, dsk, gap)
    Xt = da.from_array(X[:200], chunks=70)
    np.testing.assert_allclose(dsk.predict(Xt), mem.predict(X[:200]), rtol=0,
                               atol=_prediction_gap(X[:200], gap))
