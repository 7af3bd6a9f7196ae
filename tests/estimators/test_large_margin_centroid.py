"""PrivateLargeMarginGaussian: row_norm, mechanism="centroid" and the "auto" switch
(privacy-centroid-switch)."""

import pickle
import warnings

import numpy as np
import pytest
from _helpers import fit_drawing_from, loopback_client

import dpconvex as dp
from dpconvex import BudgetAccountant, ParameterError
from dpconvex.estimators.centroids import prior_penalty
from dpconvex.estimators.large_margin.centroid import PHI_NOTE, phi_from_means
from dpconvex.estimators.sweep import epsilon_sweep
from dpconvex.objectives.losses import HuberHinge
from dpconvex.privacy.rules.large_margin import (
    CENTROID_BELOW,
    centroid_reason,
    resolved_row_norm,
    uses_centroid,
)
from dpconvex.templates.large_margin import augment_and_scale, psi_frobenius

CLASSES = [0, 1, 2]
DELTA = 1e-5


def _data(n=90, d=3, seed=0):
    """Three classes; row norms spread over (0, 1.6]: some rows are clipped, none is unit."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 3
    mu = np.eye(3, d)
    X = (0.6 * mu[y] + 0.3 * rng.normal(size=(n, d))) * rng.uniform(0.3, 1.6, size=(n, 1))
    return X, y


def _lm(**kw):
    return dp.PrivateLargeMarginGaussian(**{"classes": CLASSES, "random_state": 5, **kw})


def _uses(est, n=90, C=3, d=3):
    return uses_centroid(est, n, C, d)


# ------------------------------------------------------------------ the release is Φ
@pytest.mark.parametrize("q", [1.0, 2.0])
def test_phi_is_the_centroid_release_and_predicts_the_nearest_mean(q):
    X, y = _data()
    X = q * X
    lm = _lm(mechanism="centroid", epsilon=2.0, delta=DELTA, data_norm=q).fit(X, y)
    cent = dp.PrivateGaussianCentroid(epsilon=2.0, delta=DELTA, data_norm=q, row_norm="unit",
                                      classes=CLASSES, random_state=5).fit(X, y)
    mu = cent.means_ / q
    pen = prior_penalty(cent.class_prior_, cent.within_class_var_)  # >= 0, one per class
    assert pen.min() == 0.0 and pen.max() > 0.0
    np.testing.assert_allclose(lm.Phi_, phi_from_means(mu, q, pen), rtol=0, atol=1e-12)
    assert lm.Phi_.shape == (3, 1, 4, 4)
    eig = np.linalg.eigvalsh(lm.Phi_[:, 0])
    assert eig.min() >= -1e-10 * eig.max()  # (q^2 + 1) (N^T N + a e e^T): PSD
    # z^T Phi_c z = ||u - mu_c||^2 + a_c for u the mapped row / q
    Xt = np.vstack([X, 3 * q * np.ones((2, 3)), np.zeros((1, 3))])  # clipped and zero rows
    U = Xt / np.maximum(np.linalg.norm(Xt, axis=1, keepdims=True), 1e-300)  # unit rows
    d2 = ((U[:, None, :] - mu[None]) ** 2).sum(axis=2)
    np.testing.assert_allclose(-lm.class_scores(Xt), d2 + pen, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(lm.predict(Xt), cent.predict(Xt))
    assert lm.score(X, y) > 0.6
    P = lm.predict_proba(Xt)
    assert np.allclose(P.sum(axis=1), 1.0)
    assert np.array_equal(lm.classes_[P.argmax(axis=1)], lm.predict(Xt))
    assert lm.decision_function(Xt).shape == (len(Xt), 3)
    stored = {k for k in vars(lm) if k.endswith("_") and not k.startswith("_")}
    assert stored == {"Phi_", "classes_", "n_features_in_", "certificate_", "centers_",
                      "component_assignment_"}
    assert lm.centers_ is None
    cert = lm.certificate_
    assert (cert.epsilon, cert.delta) == (2.0, DELTA) == (cent.certificate_.epsilon,
                                                          cent.certificate_.delta)
    assert cert.quantities == cent.certificate_.quantities
    assert cert.states(PHI_NOTE)  # Φ derived from the released means: post-processing
    assert cert.row_map.row_norm == "unit"


def test_pure_centroid_and_binary_decision_function():
    X, y = _data()
    keep = y < 2
    lm = dp.PrivateLargeMarginGaussian(mechanism="centroid", epsilon=5.0, random_state=1)
    lm.fit(X[keep], y[keep])
    cent = dp.PrivateGaussianCentroid(epsilon=5.0, mechanism="knorm_sum",
                                      random_state=1).fit(X[keep], y[keep])
    assert lm.certificate_.delta == 0.0 == cent.certificate_.delta
    pen = prior_penalty(cent.class_prior_, cent.within_class_var_)
    np.testing.assert_allclose(lm.Phi_, phi_from_means(cent.means_, 1.0, pen), atol=1e-12)
    assert lm.decision_function(X).shape == (90,)
    np.testing.assert_array_equal(lm.predict(X), cent.predict(X))


def test_certify_matches_the_fit_and_draws_nothing():
    X, y = _data()
    est = _lm(mechanism="centroid", epsilon=1.0, delta=DELTA)
    c = est.certify(X, y)
    assert not hasattr(est, "Phi_")
    est.fit(X, y)
    assert c.to_dict() == est.certificate_.to_dict()
    auto = _lm(epsilon=1.0, delta=DELTA).certify(X, y)  # "auto" at n eps / C = 30: centroids
    assert auto.quantities == c.quantities


# ------------------------------------------------------------------ the "auto" switch
def test_auto_switches_to_centroids_below_the_threshold_only():
    X, y = _data()  # n = 90, C = 3, d = 3: n eps / (C (d + 1)) = 7.5 eps
    below = CENTROID_BELOW[True] / 7.5 * 0.9
    above = CENTROID_BELOW[True] / 7.5 * 1.1
    assert _uses(_lm(epsilon=below, delta=DELTA))
    assert not _uses(_lm(epsilon=above, delta=DELTA))
    pure_below = CENTROID_BELOW[False] / 7.5 * 0.9
    assert _uses(_lm(epsilon=pure_below)) and _uses(_lm(epsilon=pure_below, delta=0.0))
    assert not _uses(_lm(epsilon=CENTROID_BELOW[False] / 7.5 * 1.1))
    assert not _uses(_lm(epsilon=below, delta=DELTA), C=2)  # two classes never switch
    for kw in ({"loss": "softmax"}, {"structure": "full"}, {"lam": 0.1},
               {"mechanism": "gaussian_objective"}, {"optimality_tol": 1e-4},
               {"feature_weights": (0.0, 1.0, 0.1)}):
        assert not _uses(_lm(epsilon=below, delta=DELTA, **kw)), kw
    assert not _uses(_lm(epsilon=below, delta=DELTA, n_components=2))
    assert _uses(_lm(mechanism="centroid", epsilon=1e6))  # explicit: always
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        lo = _lm(epsilon=below, delta=DELTA).fit(X, y)
    assert not any("objective's noise" in str(m.message) for m in w)  # no objective warning
    hi = _lm(epsilon=above, delta=DELTA).fit(X, y)
    pure = _lm(epsilon=CENTROID_BELOW[False] / 7.5 * 1.1).fit(X, y)
    pure_lo = _lm(epsilon=pure_below).fit(X, y)
    assert lo.certificate_.mechanism_name == "gaussian"  # noise on the class sums
    assert pure_lo.certificate_.mechanism_name == "knorm_sum"
    assert pure_lo.certificate_.delta == 0.0
    switch = centroid_reason(_lm(epsilon=pure_below), len(X), 3, X.shape[1])
    assert switch is not None and pure_lo.certificate_.states(switch)  # "auto" says why
    assert hi.certificate_.mechanism_name == "gaussian_objective_lm"
    assert pure.certificate_.mechanism_name == "objective"
    assert pure.certificate_.delta == 0.0


def test_centroid_parameter_errors():
    X, y = _data()
    with pytest.raises(ParameterError, match="n_components"):
        _lm(mechanism="centroid", n_components=2).fit(X, y)
    with pytest.raises(ParameterError, match="extra_terms"):
        _lm(mechanism="centroid", extra_terms=[psi_frobenius(0.1, 3)]).fit(X, y)
    with pytest.raises(ParameterError, match="delta"):
        _lm(mechanism="centroid", delta=1.5).fit(X, y)
    with pytest.raises(ParameterError, match="row_norm"):
        _lm(row_norm="l2").fit(X, y)


def test_ledger_is_charged_once():
    X, y = _data()
    acc = BudgetAccountant(epsilon=1.5, delta=1e-4)
    _lm(epsilon=1.0, delta=DELTA, accountant=acc).fit(X, y)  # "auto": centroids here
    assert len(acc.spends) == 1 and acc.spent == (1.0, DELTA)
    _lm(mechanism="centroid", epsilon=0.5, accountant=acc).fit(X, y)  # pure
    assert len(acc.spends) == 2 and acc.spent == (1.5, DELTA)
    with pytest.raises(dp.BudgetError):
        _lm(mechanism="centroid", epsilon=0.1, delta=DELTA, accountant=acc).fit(X, y)
    assert len(acc.spends) == 2


def test_same_seed_neighbours_differ_only_in_phi():
    X, y = _data()
    Xp, yp = X.copy(), y.copy()
    Xp[0], yp[0] = -X[0], (y[0] + 1) % 3  # replace one record (features and label)
    a = _lm(epsilon=1.0, delta=DELTA, random_state=7).fit(X, y)
    b = _lm(epsilon=1.0, delta=DELTA, random_state=7).fit(Xp, yp)
    assert a.certificate_.mechanism_name == "gaussian"  # noise on the class sums
    assert str(a.certificate_) == str(b.certificate_)
    assert not np.array_equal(a.Phi_, b.Phi_)
    rest = [{k: v for k, v in vars(m).items() if k != "Phi_"} for m in (a, b)]
    assert pickle.dumps(rest[0]) == pickle.dumps(rest[1])


# ------------------------------------------------------------------ row_norm
def test_row_norm_resolution():
    assert resolved_row_norm(dp.PrivateLargeMarginGaussian()) == "unit"
    assert resolved_row_norm(dp.PrivateLargeMarginGaussian(loss="softmax")) == "unit"
    for kw in ({"loss": "pairwise"}, {"loss": None}, {"loss": HuberHinge(0.5)},
               {"n_components": 2}):  # the paper's template (K > 1: "auto" loss = pairwise)
        assert resolved_row_norm(dp.PrivateLargeMarginGaussian(**kw)) == "none", kw
    for r in ("unit", "none"):
        assert resolved_row_norm(dp.PrivateLargeMarginGaussian(loss="pairwise", row_norm=r)) == r


@pytest.mark.slow
def test_paper_template_keeps_its_rows_and_softmax_uses_unit_rows():
    X, y = _data()
    kw = {"loss": "pairwise", "lam": 0.05, "epsilon": 1.0, "solver": "native"}
    auto = _lm(**kw).fit(X, y)
    np.testing.assert_array_equal(auto.Phi_, _lm(**kw, row_norm="none").fit(X, y).Phi_)
    assert not np.allclose(auto.Phi_, _lm(**kw, row_norm="unit").fit(X, y).Phi_)
    assert auto.certificate_.row_map is None
    soft = {"epsilon": 50.0, "delta": DELTA}  # above the centroid threshold: the objective
    a = _lm(**soft).fit(X, y)
    np.testing.assert_array_equal(a.Phi_, _lm(**soft, row_norm="unit").fit(X, y).Phi_)
    assert not np.allclose(a.Phi_, _lm(**soft, row_norm="none").fit(X, y).Phi_)
    assert a.certificate_.row_map.row_norm == "unit"
    # the map reads only the record: scaling each row by c > 0 changes no prediction
    c = np.random.default_rng(2).uniform(0.1, 5.0, size=(len(X), 1))
    np.testing.assert_array_equal(a.predict(X), a.predict(c * X))
    np.testing.assert_allclose(a.class_scores(X), a.class_scores(c * X), atol=1e-10)
    Z = augment_and_scale(X / np.linalg.norm(X, axis=1, keepdims=True), 1.0)
    s = -np.einsum("ij,cjk,ik->ic", Z, a.Phi_[:, 0], Z)
    np.testing.assert_allclose(a.class_scores(X), s, atol=1e-10)


# ------------------------------------------------------------------ sweep and Dask
def test_sweep_equals_independent_fits_on_both_paths():
    X, y = _data()
    est = _lm(delta=DELTA, random_state=None)
    eps = [1.0, 50.0, 1.2]  # centroids, objective, centroids (r = 7.5 ε against CENTROID_BELOW)
    sw = epsilon_sweep(est, X, y, eps, runs=1, random_state=11)
    rng = np.random.default_rng(11)
    for i, e in enumerate(eps):
        ref = fit_drawing_from(_lm(delta=DELTA, epsilon=e, random_state=None), rng, X, y)
        got = sw.estimators[i][0]
        assert got.certificate_.mechanism == ref.certificate_.mechanism
        on_sums = ref.certificate_.mechanism_name == "gaussian"  # the class sums
        assert on_sums == (7.5 * e < CENTROID_BELOW[True])
        np.testing.assert_allclose(got.Phi_, ref.Phi_, rtol=0, atol=1e-6)


@pytest.fixture(scope="module")
def client():
    yield from loopback_client("dpconvex.estimators.large_margin.dask")


@pytest.mark.slow
@pytest.mark.parametrize("kw", [{"epsilon": 1.0, "delta": DELTA},  # auto: centroids
                                {"epsilon": 50.0, "delta": DELTA}])  # objective, unit rows
def test_dask_equals_in_memory(client, kw):
    da = pytest.importorskip("dask.array")
    X, y = _data(n=300)
    mem = _lm(**kw).fit(X, y)
    dsk = _lm(**kw).fit(da.from_array(X, chunks=(100, 3)), da.from_array(y, chunks=100))
    assert dsk.certificate_.mechanism == mem.certificate_.mechanism
    assert dsk.certificate_.quantities == mem.certificate_.quantities
    # two solves to ||grad J|| <= 1e-8 (the native tolerance), each within 1e-8/mu of the
    # minimizer; the in-memory and Dask backends take different steps (dense Newton, CG)
    mu = mem.certificate_.quantities.get("strong convexity mu", 1.0)
    np.testing.assert_allclose(dsk.Phi_, mem.Phi_, rtol=0, atol=max(1e-8, 4e-8 / mu))
    Xt = da.from_array(X[:120], chunks=50)
    np.testing.assert_array_equal(dsk.predict(Xt), mem.predict(X[:120]))
    cert = _lm(**kw).certify(da.from_array(X, chunks=(100, 3)), y)
    assert cert.quantities == mem.certificate_.quantities


def test_a_handed_label_set_sizes_the_centroid_notes():
    """A fit inside a search is handed the whole y's label set: its public shape (which the
    centroid notes' reasons read) counts that set, not the labels its part happens to hold;
    a given ``classes`` comes first."""
    from dpconvex import PrivateLargeMarginGaussian
    from dpconvex.data.validation import encode_labels
    from dpconvex.estimators.base import FitContext

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(30, 3)), np.repeat([0, 1], 15)  # the part holds two of three labels
    handed = FitContext(label_set=encode_labels(np.array([0, 1, 2]), [0, 1, 2], "Search.fit"))
    est = PrivateLargeMarginGaussian(mechanism="centroid")
    assert est.public_shape(X, y) == (30, 2, 3)
    assert est.public_shape(X, y, handed) == (30, 3, 3)
    assert PrivateLargeMarginGaussian(classes=[0, 1]).public_shape(X, y, handed)[1] == 2
