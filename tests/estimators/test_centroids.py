"""PrivateGaussianCentroid, the class-sum mechanisms and the analytic Gaussian calibration.

docs/privacy/large_margin.md#privacy-class-centroids. Statistical checks state their false-alarm rate; every
random draw is seeded, so each test is deterministic.
"""

from __future__ import annotations

import math
import pickle
import warnings

import numpy as np
import pytest
from _helpers import traced_peak
from scipy import integrate, stats
from sklearn.base import ClassifierMixin
from sklearn.utils.estimator_checks import parametrize_with_checks

import dpconvex as dp
from dpconvex.audit import EstimatorMechanism, audit
from dpconvex.errors import BudgetError, ParameterError, PrivacyWarning
from dpconvex.estimators.centroids import ClassSumTemplate
from dpconvex.privacy.accounting.analytic_gaussian import (
    analytic_gaussian_delta,
    analytic_gaussian_sigma,
    classical_gaussian_sigma,
)
from dpconvex.privacy.budget import Budget, default_delta
from dpconvex.privacy.mechanisms import MECHANISMS
from dpconvex.privacy.mechanisms.gaussian import (
    ClassSumGaussian,
    class_sum_sensitivity,
    class_sums,
)
from dpconvex.privacy.noise import Gaussian, snap_grid
from dpconvex.privacy.release import release
from dpconvex.templates.base import missing_members

GRID = [(e, d, s) for e in (0.05, 0.5, 1.0, 2.0, 8.0) for d in (1e-3, 1e-5, 1e-9)
        for s in (0.5, 2.0)]


def _bw_delta(eps: float, sigma: float, sens: float) -> float:
    """Balle & Wang's Thm. 8 with scipy.stats (independent of the library's evaluation)."""
    a, b = sens / (2 * sigma), eps * sigma / sens
    return stats.norm.cdf(a - b) - math.exp(eps) * stats.norm.cdf(-a - b)


_SQRT_2PI = np.sqrt(2 * np.pi)


def _normal_pdf(x: float, mean: float, sigma: float) -> float:
    """The N(mean, σ²) density at a point, in the operations of ``scipy.stats.norm.pdf``
    (exp(−z²/2)/√(2π)/σ, z = (x − mean)/σ: the same bits) without its per-call argument checks."""
    z = (x - mean) / sigma
    return np.exp(-(z * z) / 2.0) / _SQRT_2PI / sigma


def _hockey_stick(eps: float, sigma: float, shift: float) -> float:
    """∫ max(0, p − e^ε q) for p = N(0, σ²), q = N(shift, σ²), by numerical integration."""
    e_eps = math.exp(eps)
    # p > e^ε q  iff  x < shift/2 − εσ²/shift (the log-likelihood ratio is linear in x)
    x0 = shift / 2 - eps * sigma**2 / shift
    val, err = integrate.quad(lambda x: max(0.0, _normal_pdf(x, 0.0, sigma)
                                            - e_eps * _normal_pdf(x, shift, sigma)),
                              x0 - 40 * sigma, x0 + 40 * sigma, points=[x0], limit=400,
                              epsabs=1e-14, epsrel=1e-10)
    assert err < 1e-9 * max(val, 1e-6)
    return val


# ------------------------------------------------------------ the calibration
@pytest.mark.parametrize("eps,delta,sens", GRID)
def test_sigma_solves_the_balle_wang_equation(eps, delta, sens):
    sigma = analytic_gaussian_sigma(eps, delta, sens)
    assert _bw_delta(eps, sigma, sens) <= delta * (1 + 1e-9)
    assert analytic_gaussian_delta(eps, sigma, sens) <= delta
    # the smallest such sigma: 1e-6 less noise already exceeds delta
    assert _bw_delta(eps, sigma * (1 - 1e-6), sens) > delta
    assert analytic_gaussian_sigma(eps, delta, 1.0) * sens == pytest.approx(sigma, rel=1e-12)


@pytest.mark.parametrize("eps", [0.01, 0.1, 0.5, 0.9, 1.0])
@pytest.mark.parametrize("delta", [1e-3, 1e-5, 1e-10])
def test_analytic_sigma_below_classical(eps, delta):
    assert analytic_gaussian_sigma(eps, delta, 2.0) < classical_gaussian_sigma(eps, delta, 2.0)


@pytest.mark.parametrize("eps,delta", [(0.5, 1e-5), (1.0, 1e-5), (2.0, 1e-3), (5.0, 1e-6)])
def test_exact_privacy_loss_of_the_1d_gaussian_pair(eps, delta):
    # The worst pair of the class sums, reduced to one dimension: N(0, σ²) vs N(Δ, σ²).
    sens = 2.0
    sigma = analytic_gaussian_sigma(eps, delta, sens)
    exact = _hockey_stick(eps, sigma, sens)
    assert exact <= delta * (1 + 1e-6)
    assert exact == pytest.approx(_hockey_stick(eps, sigma, -sens), rel=1e-6)  # symmetric
    assert _hockey_stick(eps, sigma / 2, sens) > 10 * delta  # a half-noise mutant fails


def test_bad_calibration_arguments():
    with pytest.raises(ParameterError):
        analytic_gaussian_sigma(1.0, 0.0, 1.0)
    with pytest.raises(ParameterError):
        analytic_gaussian_sigma(-1.0, 1e-5, 1.0)
    with pytest.raises(ParameterError):
        analytic_gaussian_sigma(1.0, 1e-5, 0.0)


# --------------------------------------------------------------- sensitivity
def _V(U, y, C=3, w=1.0):
    return class_sums(ClassSumTemplate(np.asarray(U, float), np.asarray(y), C), w)


def test_joint_vector_sensitivity_is_two_and_attained():
    rng = np.random.default_rng(0)
    U = rng.normal(size=(12, 4))
    U /= np.linalg.norm(U, axis=1, keepdims=True) * rng.uniform(1, 3, size=(12, 1))
    y = np.arange(12) % 3
    base = _V(U, y)
    worst = 0.0
    for _ in range(2000):  # random replacements of record 0 (unit or shorter u', any class)
        u = rng.normal(size=4)
        u /= np.linalg.norm(u) * (1.0 if rng.random() < 0.5 else rng.uniform(1, 5))
        U2, y2 = U.copy(), y.copy()
        U2[0], y2[0] = u, rng.integers(3)
        worst = max(worst, float(np.linalg.norm(_V(U2, y2) - base)))
    assert worst <= 2.0 + 1e-12
    # attained: same class, u' = -u (counts cancel); and two classes, unit vectors
    U[0] = [1.0, 0, 0, 0]
    base = _V(U, y)
    U2 = U.copy()
    U2[0] = -U[0]
    assert np.linalg.norm(_V(U2, y) - base) == pytest.approx(2.0)
    y2 = y.copy()
    y2[0] = 1
    assert np.linalg.norm(_V(U, y2) - base) == pytest.approx(2.0)
    assert class_sum_sensitivity(1.0, 1.0) == 2.0
    assert class_sum_sensitivity(1.0, 2.0) == pytest.approx(math.sqrt(10.0))


@pytest.mark.parametrize("unit", [False, True])
def test_rows_read_by_block_go_through_the_templates_own_map(unit):
    """Raw rows read block by block are mapped to u by the template's own map, built from the
    public row_bound, unit and data_norm (no caller's map): every u lies in the record set the
    sensitivity reads, and the class sums equal those of the rows mapped in memory."""
    from types import SimpleNamespace

    from dpconvex.estimators.centroids import BallRows, label_rows

    rng = np.random.default_rng(4)
    X = 50.0 * rng.normal(size=(300, 3))
    y = np.arange(300) % 3
    rows = label_rows(X, SimpleNamespace(dropped=np.zeros(300, dtype=bool), index=y))
    t = ClassSumTemplate(None, y, 3, data_norm=0.5, rows=rows, row_bound=2.0, unit=unit)
    assert t.record_map == BallRows(2.0, unit, 0.5)
    U = t.record_map(X)
    assert np.max(np.linalg.norm(U, axis=1)) <= 0.5 * (1 + 1e-12)
    in_memory = class_sums(ClassSumTemplate(U, y, 3, data_norm=0.5), 1.0)
    np.testing.assert_allclose(class_sums(t, 1.0), in_memory, rtol=1e-12, atol=1e-12)
    with pytest.raises(ParameterError, match="row_bound"):
        ClassSumTemplate(None, y, 3, rows=rows, row_bound=math.nan)


def test_the_record_map_is_built_from_the_public_parameters_not_assigned():
    """A map assigned to a template is refused: the map the class sums read and the feature bound
    the certificate states come from the public row_bound, unit and data_norm."""
    from types import SimpleNamespace

    from dpconvex.estimators.centroids import BallRows, label_rows
    from dpconvex.estimators.gaussian_nb import ClassMomentTemplate, MomentRows

    rng = np.random.default_rng(5)
    X = 50.0 * rng.normal(size=(60, 3))
    y = np.arange(60) % 3
    rows = label_rows(X, SimpleNamespace(dropped=np.zeros(60, dtype=bool), index=y))
    t = ClassSumTemplate(None, y, 3, rows=rows)
    with pytest.raises(AttributeError):
        t.record_map = BallRows(0.01, False, 100.0)
    assert t.record_map == BallRows(1.0, False, 1.0)
    m = ClassMomentTemplate(X, y, 3, lo=-2.0, hi=2.0)
    with pytest.raises(AttributeError):
        m.record_map = MomentRows(np.full(3, -1e3), np.full(3, 1e3))
    with pytest.raises(ValueError):
        m.lo[0] = -1e3  # the ranges the map is built from are read-only
    assert m.record_map.lo.tolist() == [-2.0] * 3 and m.record_map.hi.tolist() == [2.0] * 3


@pytest.mark.parametrize("sparse", [False, True])
def test_rows_held_in_memory_changed_after_the_template_are_refused(sparse):
    """Rows within the bound are held as the caller's array (not copied); scaled up in place
    after the template is built, the feature bound is checked on them as released: refused."""
    import scipy.sparse as sp

    from dpconvex.errors import PrivacyError

    rng = np.random.default_rng(6)
    U = rng.normal(size=(40, 3))
    U *= 0.5 / np.linalg.norm(U, axis=1, keepdims=True)
    U = sp.csr_array(U) if sparse else U
    y = np.arange(40) % 2
    t = ClassSumTemplate(U, y, 2)
    assert [(c.name, c.holds) for c in t.conditions(None)] == [("row norm bound", True)]
    stored = t.X.data if sparse else t.X
    assert np.shares_memory(stored, U.data if sparse else U)
    stored *= 100.0
    assert [c.holds for c in t.conditions(None)] == [False]
    with pytest.raises(PrivacyError, match="row norm bound: rows of U exceed"):
        release(t, "gaussian", Budget(1.0, 1e-5))


def test_calibration_and_registry():
    t = ClassSumTemplate(np.eye(3), np.array([0, 1, 2]), 3)
    assert missing_members(t) == []
    assert {"gaussian", "norm_gamma_sum"} <= set(MECHANISMS)
    assert MECHANISMS["gaussian"].pure is False and MECHANISMS["norm_gamma_sum"].pure is True
    cal = release(t, "gaussian", Budget(1.0, 1e-5), dry_run=True).calibration
    assert cal.sensitivity == 2.0
    assert cal.extra["noise std"] == analytic_gaussian_sigma(1.0, 1e-5, 2.0)
    cal = release(t, "norm_gamma_sum", Budget(1.0), dry_run=True).calibration
    assert cal.noise_rate == 0.5
    with pytest.raises(ParameterError, match="delta > 0"):
        release(t, "gaussian", Budget(1.0), dry_run=True)
    with pytest.raises(ParameterError, match="pure"):
        release(t, "norm_gamma_sum", Budget(1.0, 1e-5), dry_run=True)


def test_gaussian_noise_has_the_calibrated_std_and_is_snapped():
    # 5 x 201 = 1005 noise coordinates: the sample std is within 10 % of sigma except with
    # probability < 1e-6 (its relative sd is 1/sqrt(2 * 1005) = 2.2 %: 10 % is 4.5 sd).
    rng = np.random.default_rng(1)
    t = ClassSumTemplate(rng.normal(size=(50, 200)) * 0.01, np.arange(50) % 5, 5)
    rel = release(t, "gaussian", Budget(1.0, 1e-5), rng=np.random.default_rng(2))
    sigma = rel.calibration.extra["noise std"]
    noise = rel.theta - class_sums(t, 1.0)
    assert abs(noise.std() / sigma - 1) < 0.10
    g = snap_grid(sigma)
    assert np.array_equal(rel.theta, np.round(rel.theta / g) * g)


# ----------------------------------------------------------------- estimator
def _data(n=90, d=3, C=3, seed=0):
    rng = np.random.default_rng(seed)
    mu = rng.normal(size=(C, d))
    y = np.arange(n) % C
    X = 0.6 * mu[y] / np.linalg.norm(mu[y], axis=1, keepdims=True) + 0.2 * rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    return X, y


def test_fit_predict_shapes_and_attributes():
    X, y = _data()
    m = dp.PrivateGaussianCentroid(epsilon=50.0, classes=[0, 1, 2], random_state=0).fit(X, y)
    assert m.means_.shape == (3, 3) and m.counts_.shape == (3,)
    assert np.all(np.linalg.norm(m.means_, axis=1) <= 1.0 + 1e-12)
    assert m.score(X, y) > 0.8
    P = m.predict_proba(X)
    assert np.allclose(P.sum(axis=1), 1.0)
    assert np.array_equal(m.classes_[P.argmax(axis=1)], m.predict(X))
    fitted = {k for k in vars(m) if k.endswith("_") and not k.startswith("_")}
    assert fitted == {"classes_", "means_", "counts_", "certificate_", "n_features_in_",
                      "class_prior_", "within_class_var_"}  # the last two: of the release
    assert m.certificate_.delta == 0.0  # mechanism="auto" with delta=None: pure epsilon-DP
    g = dp.PrivateGaussianCentroid(epsilon=50.0, mechanism="gaussian", classes=[0, 1, 2],
                                   random_state=0).fit(X, y)
    assert g.certificate_.delta == default_delta(90) == 1e-5
    b = dp.PrivateGaussianCentroid(epsilon=50.0, random_state=0).fit(X[y < 2], y[y < 2])
    assert b.decision_function(X).shape == (90,)


@parametrize_with_checks([dp.PrivateGaussianCentroid(epsilon=1e3, random_state=0)])
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        check(estimator)


def test_certify_matches_the_fit_and_draws_nothing():
    X, y = _data()
    m = dp.PrivateGaussianCentroid(epsilon=1.0, delta=1e-6, classes=[0, 1, 2], random_state=3)
    c = m.certify(X, y)
    assert not hasattr(m, "means_")
    m.fit(X, y)
    assert m.certificate_.seeded and c.seeded  # random_state: a public parameter
    assert c.to_dict() == m.certificate_.to_dict()
    assert (c.epsilon, c.delta) == (1.0, 1e-6)


def test_same_seed_neighbours_differ_only_in_the_release():
    X, y = _data()
    Xp, yp = X.copy(), y.copy()
    Xp[0], yp[0] = -X[0], (y[0] + 1) % 3  # replace one record (features and label)
    kw = dict(epsilon=1.0, classes=[0, 1, 2], random_state=7)
    a = dp.PrivateGaussianCentroid(**kw).fit(X, y)
    b = dp.PrivateGaussianCentroid(**kw).fit(Xp, yp)
    assert str(a.certificate_) == str(b.certificate_)
    assert not np.array_equal(a.means_, b.means_)
    released = ("means_", "counts_", "class_prior_", "within_class_var_")  # the last two: of V
    rest = [{k: v for k, v in vars(m).items() if k not in released} for m in (a, b)]
    assert pickle.dumps(rest[0]) == pickle.dumps(rest[1])


def test_records_outside_the_label_set_contribute_nothing():
    X, y = _data()
    kw = dict(epsilon=1.0, delta=1e-5, classes=[0, 1, 2, 3], random_state=11)
    a = dp.PrivateGaussianCentroid(**kw).fit(X, y)  # class 3 has no record: noise-only mean
    Xo = np.vstack([X, np.ones((5, 3)) * 0.3])
    yo = np.concatenate([y, [9] * 5])
    with dp.collect_diagnostics() as diag:  # a data fact: told in diagnostics, not in a warning
        b = dp.PrivateGaussianCentroid(**kw, unknown_labels="ignore").fit(Xo, yo)
    assert diag.note("outside").count == 5 and diag.note("outside").values == (9,)
    assert np.array_equal(a.means_, b.means_) and np.array_equal(a.counts_, b.counts_)
    assert a.means_.shape == (4, 3)


def test_parameters_and_budget():
    X, y = _data()
    with pytest.raises(ParameterError):
        dp.PrivateGaussianCentroid(mechanism="objective").fit(X, y)
    with pytest.raises(ParameterError):
        dp.PrivateGaussianCentroid(mechanism="gaussian", delta=0.0).fit(X, y)
    with pytest.raises(ParameterError):
        dp.PrivateGaussianCentroid(mechanism="norm_gamma_sum", delta=1e-5).fit(X, y)
    with pytest.raises(ParameterError):
        dp.PrivateGaussianCentroid(epsilon=0.0).fit(X, y)
    pure = dp.PrivateGaussianCentroid(mechanism="norm_gamma_sum", epsilon=5.0,
                                      random_state=0).fit(X, y)
    assert pure.certificate_.delta == 0.0 and pure.score(X, y) > 0.5
    zero = dp.PrivateGaussianCentroid(mechanism="norm_gamma_sum", epsilon=5.0, delta=0.0,
                                      random_state=0).fit(X, y)  # "None or 0" for pure
    assert np.array_equal(zero.means_, pure.means_)
    acc = dp.BudgetAccountant(epsilon=1.5, delta=1e-4)
    dp.PrivateGaussianCentroid(epsilon=1.0, delta=1e-5, accountant=acc, random_state=0).fit(X, y)
    assert acc.spent == pytest.approx((1.0, 1e-5))
    with pytest.raises(BudgetError):
        dp.PrivateGaussianCentroid(epsilon=1.0, delta=1e-5, accountant=acc).fit(X, y)


# --------------------------------------------------------------------- audits
def _pair():
    X = np.array([[0.5, 0.5], [-0.5, 0.5], [0.0, -0.7], [0.2, 0.1], [1.0, 0.0]])
    y = np.array([0, 1, 2, 0, 0])
    Xp, yp = X.copy(), y.copy()
    Xp[-1], yp[-1] = [-1.0, 0.0], 1  # the worst replacement: ||V - V'|| = 2
    return (X, y), (Xp, yp)


@pytest.mark.slow
def test_audit_stays_below_the_claim():
    # 2,000 fits per data set through the estimator; the bound exceeds the true epsilon with
    # probability <= 5 % (confidence 0.95), so a bound above the claimed epsilon is a bug
    # with false-alarm rate 5 %.
    D, Dp = _pair()
    est = dp.PrivateGaussianCentroid(epsilon=1.0, delta=1e-5, classes=[0, 1, 2])
    mech = EstimatorMechanism(est, output=lambda m: np.concatenate([m.means_.ravel(), m.counts_]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        r = audit(mech, D, Dp, n_runs=2000, confidence=0.95, delta=1e-5, random_state=5)
    assert r.epsilon_lower_bound <= 1.0, f"PRIVACY BUG? {r}"


@pytest.mark.slow
def test_audit_catches_a_quarter_noise_mutant():
    # Power check at the release level: sigma/4 (true epsilon far above 1 at delta = 1e-5).
    (X, y), (Xp, yp) = _pair()
    ts = {k: ClassSumTemplate(A, b, 3) for k, (A, b) in {"D": (X, y), "Dp": (Xp, yp)}.items()}
    class QuarterNoise(ClassSumGaussian):  # a mutant: the library's certificate, sigma/4
        def noise_law(self, cal):
            return Gaussian(super().noise_law(cal).sigma / 4)

    mutant = QuarterNoise()
    budget = Budget(1.0, 1e-5)

    def run(key, rng):
        return release(ts[key], mutant, budget, None, rng, vouch=("mechanism",)).theta.ravel()

    r = audit(run, "D", "Dp", n_runs=2000, confidence=0.95, delta=1e-5, random_state=6)
    assert r.epsilon_lower_bound > 1.0, r


# ------------------------------------------------------------------- accuracy
#: Feature ranges of sklearn's wine description (public in the sense of
#: docs/privacy/setting.md#privacy-setting only if one accepts the published summary table as prior
#: knowledge; see benchmarks/centroids_accuracy.py).
WINE_LO = np.array([11.0, 0.74, 1.36, 10.6, 70, 0.98, 0.34, 0.13, 0.41, 1.28, 0.48, 1.27, 278])
WINE_HI = np.array([14.8, 5.80, 3.23, 30.0, 162, 3.88, 5.08, 0.66, 3.58, 13.0, 1.71, 4.00, 1680])


def test_better_than_majority_on_wine_at_epsilon_one():
    from sklearn.datasets import load_wine
    from sklearn.model_selection import train_test_split

    X, y = load_wine(return_X_y=True)
    Z = 2 * (X - WINE_LO) / (WINE_HI - WINE_LO) - 1
    U = Z / np.linalg.norm(Z, axis=1, keepdims=True)  # per-record map to the unit sphere
    accs, majority = [], []
    for split in range(3):
        Xtr, Xte, ytr, yte = train_test_split(U, y, test_size=0.3, stratify=y,
                                              random_state=split)
        majority.append(np.mean(yte == np.bincount(ytr).argmax()))
        for seed in range(3):
            m = dp.PrivateGaussianCentroid(epsilon=1.0, delta=1e-5, classes=[0, 1, 2],
                                           random_state=100 * split + seed).fit(Xtr, ytr)
            accs.append(m.score(Xte, yte))
    assert np.mean(accs) > np.mean(majority) + 0.2, (np.mean(accs), np.mean(majority))


@pytest.mark.parametrize("kw", [{}, {"delta": 1e-5}, {"row_norm": "none", "data_norm": 0.5}])
def test_sparse_rows_give_the_dense_release(kw):
    """CSR/CSC rows: clipped, scaled and summed on their stored entries, never densified."""
    import scipy.sparse as sp

    rng = np.random.default_rng(4)
    X = rng.uniform(size=(90, 6))
    X[X < 0.6] = 0.0
    X[3] = 0.0  # a zero row stays zero under row_norm="unit"
    y = np.arange(90) % 3
    est = dp.PrivateGaussianCentroid(epsilon=5.0, classes=[0, 1, 2], random_state=2, **kw)
    dense = est.fit(X, y)
    means, counts, var = dense.means_.copy(), dense.counts_.copy(), dense.within_class_var_
    proba = dense.predict_proba(X)
    for fmt in (sp.csr_array, sp.csc_matrix):
        plan = est.plan_for(fmt(X), y)
        assert sp.issparse(est.prepare(fmt(X), y, plan).template.X)
        est.fit(fmt(X), y)
        assert np.allclose(est.means_, means, rtol=0, atol=1e-12)
        assert np.allclose(est.counts_, counts, rtol=0, atol=1e-12)
        assert est.within_class_var_ == pytest.approx(var, rel=1e-12)
        assert np.allclose(est.predict_proba(fmt(X)), proba, rtol=0, atol=1e-12)


def test_the_class_sums_hold_no_copy_of_dense_rows():
    """u is built and summed block by block: the fit's peak stays below half the rows."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200_000, 20)) / 3  # 32 MB; some rows above the bound are clipped
    y = rng.integers(0, 3, size=200_000)
    est = dp.PrivateGaussianCentroid(epsilon=1.0, classes=[0, 1, 2], random_state=0)
    est.fit(X[:100], y[:100])
    _, peak = traced_peak(lambda: est.fit(X, y))
    assert peak < 0.5 * X.nbytes, f"peak {peak / 2**20:.1f} MB"


@pytest.mark.parametrize("row_norm", ["unit", "none"])
def test_block_sums_give_the_one_block_release(monkeypatch, row_norm):
    """The release from many blocks equals that of one block (up to summation order)."""
    from dpconvex.estimators import centroids

    rng = np.random.default_rng(1)
    X = rng.normal(size=(500, 4))
    y = np.array(["a", "b", "c", "z"])[rng.integers(0, 4, size=500)]  # "z": outside the set

    def fit() -> np.ndarray:
        return dp.PrivateGaussianCentroid(epsilon=1.0, classes=["a", "b", "c"], row_norm=row_norm,
                                          unknown_labels="ignore", random_state=0).fit(X, y).means_

    one = fit()
    monkeypatch.setattr(centroids, "_SUM_BLOCK_ENTRIES", 35)  # blocks of 7 rows
    np.testing.assert_allclose(fit(), one, rtol=0, atol=1e-12)


def _flip_rows(est: ClassifierMixin, A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """The rows of each segment A[k] -> B[k] at the floats where ``est.predict`` changes: one
    bisection per segment, all segments' midpoints predicted in one call per step."""
    first = est.predict(A)
    lo, hi = np.zeros(len(A)), np.ones(len(A))
    mid = (lo + hi) / 2
    open_ = (mid != lo) & (mid != hi)
    while open_.any():
        k = np.flatnonzero(open_)
        same = est.predict(A[k] + mid[k, None] * (B[k] - A[k])) == first[k]
        lo[k], hi[k] = np.where(same, mid[k], lo[k]), np.where(same, hi[k], mid[k])
        mid = (lo + hi) / 2
        open_ = (mid != lo) & (mid != hi)
    ts = [lo, hi]
    for t, toward in ((lo, 0.0), (hi, 1.0)):  # and the next floats on either side
        for _ in range(4):
            t = np.nextafter(t, toward)
            ts.append(t)
    T = np.stack(ts, axis=1)  # (segments, 10)
    return (A[:, None, :] + T[:, :, None] * (B - A)[:, None, :]).reshape(-1, A.shape[1])


@pytest.mark.parametrize("make", [
    lambda: dp.PrivateGaussianCentroid(epsilon=5.0, classes=[0, 1, 2], random_state=0),
    lambda: dp.PrivateLargeMarginGaussian(epsilon=5.0, classes=[0, 1, 2], n_components=2, random_state=0),
], ids=["centroid", "large-margin-mixture"])
def test_predict_is_the_argmax_of_predict_proba_and_decision_function_at_the_boundary(make):
    """On rows where two class scores differ by an ulp, predict, predict_proba and
    decision_function name one class (rounding never ties the top probability away)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    X = 0.9 * X / np.maximum(1, np.linalg.norm(X, axis=1, keepdims=True))
    y = np.digitize(X @ np.array([1.0, -1, 0.5, 0]), [-0.3, 0.3])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = make().fit(X, y)
    labels = est.predict(X)
    pairs = [(i, j) for i, j in rng.integers(300, size=(40, 2)) if labels[i] != labels[j]]
    i, j = np.array(pairs).T
    rows = _flip_rows(est, X[i], X[j])
    predicted = est.predict(rows)
    assert np.array_equal(est.classes_[est.predict_proba(rows).argmax(1)], predicted)
    assert np.array_equal(est.classes_[est.decision_function(rows).argmax(1)], predicted)
    if isinstance(est, dp.PrivateGaussianCentroid):  # the temperature scales the scores only
        for tau in (1e-3, 3.0, 1e5):
            est.set_params(temperature=tau)
            assert np.array_equal(est.predict(rows), predicted)
            assert np.array_equal(est.classes_[est.predict_proba(rows).argmax(1)], predicted)
