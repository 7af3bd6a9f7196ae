"""Feature-map structures of the softmax large-margin template
(docs/privacy/large_margin_softmax.md#privacy-feature-map-structures).

u(x) = [wq·svec(x̂x̂ᵀ) | wq·(x̂∘x̂) | –, wl·x̂, wc]/N for "full" | "diagonal" | "linear":
||u|| <= 1; the map Θ ↦ Φ (release and quadratic-form path) and its adjoint; the
objective's gradient; the release scores z exactly as Θ scores u; both mechanisms fit
end to end with p = C·m; the Gaussian noise recovered from released minimizers has the
calibrated σ (a σ/2 mutant is caught); the verifier refuses ||u|| > 1; bad options are
refused by name. Fixed seeds throughout.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from dpconvex.data.gram import quadratic_forms, weighted_gram
from dpconvex.errors import ParameterError, PrivacyError, PrivacyWarning
from dpconvex.estimators.large_margin.estimator import PrivateLargeMarginGaussian
from dpconvex.privacy.budget import Budget
from dpconvex.privacy.certificate import PublicFeatureMap
from dpconvex.privacy.mechanisms import get_mechanism
from dpconvex.privacy.release import release
from dpconvex.templates.feature_map import DEFAULT_WEIGHTS, FeatureMap, FeatureMapSpace
from dpconvex.templates.large_margin import augment_and_scale
from dpconvex.templates.large_margin_rows import AugmentedRows
from dpconvex.templates.large_margin_softmax import LargeMarginSoftmaxTemplate
from dpconvex.templates.parameterizations import SymmetricShift

STRUCTS = [("full", (0.7, 1.0, 0.3)), ("diagonal", (0.5, 1.0, 0.25)), ("linear", (0.0, 1.0, 0.25))]


def _rows(n=40, d=5, q=2.0, seed=0):
    """Rows with ||x|| <= q (some exactly at q), a zeroed row, mapped to z = [x; 1]/sqrt(q² + 1)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X *= (q * rng.uniform(0.0, 1.0, n) / np.linalg.norm(X, axis=1))[:, None]
    X[:3] *= q / np.linalg.norm(X[:3], axis=1)[:, None]
    Z = augment_and_scale(X, q)
    Z[-1] = 0.0  # a record outside the label set
    return X, Z


class _Operator:
    """A design operator (as DaskGram): the records are reached only through these products."""

    def __init__(self, Z):
        self._Z = Z
        self.shape = Z.shape

    def forms(self, P):
        return quadratic_forms(self._Z, P)

    def weighted_gram(self, W):
        return weighted_gram(self._Z, W)


@pytest.mark.parametrize("structure,w", STRUCTS)
def test_features_have_norm_at_most_one_and_the_declared_length(structure, w):
    X, Z = _rows()
    fm = FeatureMap(structure, w, 2.0, 5)
    U = fm.features(Z)
    m = {"full": 15 + 6, "diagonal": 11, "linear": 6}[structure]
    assert U.shape == (40, m) == (40, fm.m)
    norms = np.linalg.norm(U, axis=1)
    assert np.all(norms <= 1.0 + 1e-12)
    assert np.allclose(fm.feature_norms(Z), norms, atol=1e-12)
    assert np.all(fm.feature_norms(_Operator(Z)) >= norms - 1e-12)  # exact or an upper bound
    if structure != "diagonal":
        assert np.allclose(fm.feature_norms(_Operator(Z)), norms, atol=1e-12)
        assert np.max(norms) > 1.0 - 1e-9  # attained by ||x|| = q
    assert norms[-1] == 0.0
    # u itself, from the definition (x̂ = x/q)
    xh = X[0] / 2.0
    wq, wl, wc = w
    quad = {"full": np.concatenate([xh * xh, math.sqrt(2) * np.outer(xh, xh)[np.triu_indices(5, 1)]]),
            "diagonal": xh * xh, "linear": np.zeros(0)}[structure]
    want = np.concatenate([wq * quad, wl * xh, [wc]]) / math.sqrt(wq * wq + wl * wl + wc * wc)
    assert np.allclose(U[0], want, atol=1e-12)


def test_full_with_the_z_prime_weights_is_the_z_prime_map():
    """(wq, wl, wc) = (1, √2 w, w²), N = 1 + w²: ⟨Θ, u⟩ = z′ᵀΦ′z′ with svec coordinates."""
    w, q = 0.25, 2.0
    X, Z = _rows(q=q)
    fm = FeatureMap("full", (1.0, math.sqrt(2) * w, w * w), q, 5)
    assert math.isclose(fm.norm, 1 + w * w)
    Zp = np.hstack([X / q, np.full((len(X), 1), w)]) / math.sqrt(1 + w * w)
    G = np.einsum("ij,ik->ijk", Zp, Zp)[:-1]
    U = fm.features(Z)[:-1]
    iu = np.triu_indices(5, 1)
    assert np.allclose(U[:, :5], G[:, np.arange(5), np.arange(5)])
    assert np.allclose(U[:, 5:15], math.sqrt(2) * G[:, iu[0], iu[1]])
    assert np.allclose(U[:, 15:20], math.sqrt(2) * G[:, :5, 5])
    assert np.allclose(U[:, 20], G[:, 5, 5])


@pytest.mark.parametrize("structure,w", STRUCTS)
def test_to_blocks_scores_z_as_theta_scores_u_and_from_blocks_is_its_adjoint(structure, w):
    rng = np.random.default_rng(1)
    _, Z = _rows()
    fm = FeatureMap(structure, w, 2.0, 5)
    T = rng.normal(size=(3, fm.m))
    P = fm.to_blocks(T)
    assert P.shape == (3, 6, 6) and np.allclose(P, np.swapaxes(P, 1, 2))
    assert np.allclose(quadratic_forms(Z, P), fm.features(Z) @ T.T, atol=1e-12)
    G = rng.normal(size=(3, 6, 6))  # not symmetric: the adjoint is exact on all of R^{D×D}
    assert math.isclose(float(np.sum(P * G)), float(np.sum(T * fm.from_blocks(G))), rel_tol=1e-12)


@pytest.mark.parametrize("structure,w", STRUCTS)
@pytest.mark.parametrize("operator", [False, True])
def test_space_forms_and_adjoint_are_adjoint_on_both_paths(structure, w, operator):
    rng = np.random.default_rng(2)
    _, Z = _rows()
    fm = FeatureMap(structure, w, 2.0, 5)
    space = FeatureMapSpace(fm, 3, SymmetricShift(3, 1, 6))
    rows = _Operator(Z) if operator else Z
    T, W = rng.normal(size=space.shape), rng.normal(size=(40, 3))
    F = space.forms(rows, T)
    assert np.allclose(F, fm.features(Z) @ T.reshape(3, -1).T, atol=1e-12)
    A = space.adjoint(rows, W)
    assert A.shape == space.blocks == (3, fm.m)
    assert math.isclose(float(np.sum(F * W)), float(np.sum(T * A.ravel())), rel_tol=1e-10)


def _template(structure, w, *, n=60, d=4, C=3, lam=0.3, seed=0, q=1.0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, C, n)
    X = rng.normal(size=(n, d)) * 0.3 + 0.5 * np.eye(C, d)[y]
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1) / q)[:, None]
    fm = FeatureMap(structure, w, q, d)
    return LargeMarginSoftmaxTemplate(augment_and_scale(X, q), y, n_classes=C, lam=lam,
                                      data_norm=q, feature_map=fm), X, y


@pytest.mark.parametrize("structure,w", STRUCTS)
def test_objective_gradient_and_hessp_match_finite_differences(structure, w):
    t, _, _ = _template(structure, w)
    rng = np.random.default_rng(3)
    th, b, v = (rng.normal(size=t.space.shape) for _ in range(3))
    f, g = t.objective(th, b, extra_reg=0.1)
    h = 1e-6
    for _ in range(3):
        e = rng.normal(size=th.shape)
        fd = (t.objective(th + h * e, b, 0.1)[0] - t.objective(th - h * e, b, 0.1)[0]) / (2 * h)
        assert math.isclose(fd, float(g @ e), rel_tol=1e-6, abs_tol=1e-8)
    hv = t.hessp(th, 0.1)(v)
    fd = (t.objective(th + h * v, b, 0.1)[1] - t.objective(th - h * v, b, 0.1)[1]) / (2 * h)
    assert np.allclose(hv, fd, rtol=1e-5, atol=1e-7)
    assert t.dimension == 3 * t.feature_map.m and t.noise_shape == (3, t.feature_map.m)
    assert not t.noise_symmetric


@pytest.mark.parametrize("structure,w", STRUCTS)
def test_release_scores_z_as_theta_scores_u_up_to_the_common_shift(structure, w):
    t, X, y = _template(structure, w)
    rel = release(t, "gaussian_objective_lm", Budget(1.0, 1e-5), rng=4)
    Phi, shift = t.release_shift(rel.theta)
    Z = augment_and_scale(X, 1.0)
    a_theta = t.feature_map.features(Z) @ rel.theta.reshape(t.noise_shape).T
    a_phi = quadratic_forms(Z, Phi.reshape(3, 5, 5))
    assert np.all(np.linalg.eigvalsh(Phi) >= -1e-10)
    assert np.allclose(a_phi, a_theta + shift * np.sum(Z * Z, axis=1)[:, None], atol=1e-9)
    assert np.array_equal(np.argmin(a_phi, axis=1), np.argmin(a_theta, axis=1))


def _fit_data(n=150, d=6, C=3, seed=5):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, C, n)
    X = rng.normal(size=(n, d)) * 0.15 + 0.5 * np.eye(C, d)[y]
    return X / np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None], y


@pytest.mark.parametrize("structure,w", STRUCTS + [("diagonal", None), ("linear", None)])
@pytest.mark.parametrize("mechanism", ["gaussian_objective", "objective"])
def test_both_mechanisms_fit_end_to_end_with_p_equal_C_times_m(structure, w, mechanism):
    X, y = _fit_data()
    est = PrivateLargeMarginGaussian(loss="softmax", mechanism=mechanism, lam="auto", epsilon=2.0,
                                     structure=structure, feature_weights=w, random_state=0)
    with warnings.catch_warnings():  # the pure-ε fit warns that its noise dominates
        warnings.simplefilter("ignore", PrivacyWarning)
        est.fit(X, y)
    weights = w if w is not None else DEFAULT_WEIGHTS[structure]
    m = FeatureMap(structure, weights, 1.0, 6).m
    cert = est.certificate_
    assert cert.quantities["dimension p"] == 3 * m
    stated = cert.line(PublicFeatureMap)
    assert (stated.structure, stated.m) == (structure, m)
    assert stated.weights == pytest.approx(tuple(weights))  # the weights given, as floats
    assert est.Phi_.shape == (3, 1, 7, 7)
    assert np.all(np.linalg.eigvalsh(est.Phi_) >= -1e-10)
    assert est.predict(X).shape == (150,)
    if mechanism == "gaussian_objective":  # the certificate states the noise law drawn
        names = {c.name for c in cert.conditions}
        assert "Gaussian noise on the feature-map coordinates" in names
        assert "Gaussian noise on symmetric blocks" not in names
    # released attributes: public only (no data-derived state beyond the noised model)
    assert {k for k in vars(est) if k.endswith("_") and not k.startswith("_")} == {
        "certificate_", "classes_", "n_features_in_", "Phi_", "centers_", "component_assignment_"}


def test_full_with_z_prime_weights_fits_the_z_prime_model():
    """Non-private: the feature-map path with (1, √2 w, w²) and the z′ path give the same Φ."""
    X, y = _fit_data()
    w = 0.25
    base = {"loss": "softmax", "mechanism": "none", "lam": 0.05, "structure": "full"}
    a = PrivateLargeMarginGaussian(**base).fit(X, y)
    b = PrivateLargeMarginGaussian(**base, feature_weights=(1.0, math.sqrt(2) * w, w * w)).fit(X, y)
    assert np.allclose(a.Phi_, b.Phi_, atol=1e-5)
    assert np.array_equal(a.predict(X), b.predict(X))


def _noise_mean_square(t, budget, seeds=3):
    """Mean square of b/σ, b = −n∇J_D(Θ) at released minimizers (Δ = 0: b is the noise)."""
    out = []
    for seed in range(seeds):
        rel = release(t, "gaussian_objective_lm", budget, rng=seed)
        assert rel.calibration.extra_strong_convexity == 0.0
        sigma = float(rel.calibration.extra["noise std"])
        out.append(-t.n * t.objective(rel.theta)[1] / sigma)
    return float(np.mean(np.concatenate(out) ** 2))


@pytest.mark.parametrize("structure,w", [("diagonal", (0.5, 1.0, 0.25)), ("linear", (0, 1, .25))])
def test_released_gaussian_noise_has_the_calibrated_sigma_and_a_half_sigma_mutant_is_caught(
        structure, w, monkeypatch):
    """The noise on Θ must be i.i.d. N(0, σ²) on all C·m coordinates.

    Mean square of b/σ over 3 releases × 4 × m coordinates (m = 61 or 31: k = 732 or 372
    χ² degrees of freedom) in [0.75, 1.25]: at least 3.4 standard errors, false alarm
    < 10⁻³ per case (< 10⁻⁹ for k = 732); the mutant drawing σ/2 (mean square ≈ 0.25) fails.
    """
    t, _, _ = _template(structure, w, n=200, d=30, C=4, lam=0.5, seed=6)
    budget = Budget(1.0, 1e-5)
    assert 0.75 <= _noise_mean_square(t, budget) <= 1.25
    cls = get_mechanism("gaussian_objective_lm").__class__
    half = cls.noise_std
    monkeypatch.setattr(cls, "noise_std", lambda self, cal: 0.5 * half(self, cal))
    assert not 0.75 <= _noise_mean_square(t, budget) <= 1.25


def test_verifier_refuses_a_feature_map_with_norm_above_one():
    t, X, y = _template("diagonal", (0.5, 1.0, 0.25))
    assert t.conditions({"strong_convexity"})  # passes on the real map
    # rows twice the declared bound: ||u|| > 1, refused before any noise
    big = augment_and_scale(2.0 * X / np.max(np.linalg.norm(X, axis=1)), 1.0)  # not clipped
    bad = LargeMarginSoftmaxTemplate(big, y, n_classes=3, lam=0.3, data_norm=1.0,
                                     feature_map=t.feature_map)
    with pytest.raises(PrivacyError, match="record norm bound"):
        release(bad, "gaussian_objective_lm", Budget(1.0, 1e-5), rng=0)

    class Halved(FeatureMap):  # a mutant normalization N/2: ||u|| up to 2
        @property
        def norm(self):
            return 0.5 * super().norm

    mutant = Halved("diagonal", (0.5, 1.0, 0.25), 1.0, 4)
    t2 = LargeMarginSoftmaxTemplate(augment_and_scale(X, 1.0), y, n_classes=3, lam=0.3,
                                    data_norm=1.0, feature_map=mutant)
    with pytest.raises(PrivacyError, match="record norm bound"):
        t2.conditions({"strong_convexity"})


@pytest.mark.parametrize("kw,match", [
    ({"structure": "diag"}, "'structure' parameter"),
    ({"structure": "linear", "loss": None}, "need loss='softmax'"),
    ({"feature_weights": (1, 1, 1), "loss": None}, "need loss='softmax'"),
    ({"feature_weights": (1, 1)}, "three numbers"),
    ({"feature_weights": "abc"}, "three numbers"),
    ({"feature_weights": (1, -1, 1)}, "finite weights >= 0"),
    ({"feature_weights": (1, float("nan"), 1)}, "finite weights >= 0"),
    ({"feature_weights": (1, float("inf"), 1)}, "finite weights >= 0"),
    ({"feature_weights": (0, 0, 0)}, "a weight > 0"),
    ({"structure": "linear", "feature_weights": (0.5, 1, 1)}, "wq must be 0"),
    ({"structure": "linear", "feature_weights": (0, 0, 0)}, "a weight > 0"),
    ({"feature_weights": (1, True, 1)}, "three numbers"),
    # a nonzero weight outside [1e-100, 1e100], alone or with others in range: N = ||w||
    # (w*w) and the features (w*x) would under- or overflow
    ({"feature_weights": (0.0, 2.713e-162, 2.713e-162), "structure": "linear"},
     r"0 or of magnitude between 1e-100 and 1e\+100"),
    ({"feature_weights": (1e-101, 1.0, 1.0), "structure": "diagonal"}, "of magnitude between"),
    ({"feature_weights": (1.0, 1.0, 1e101), "structure": "full"}, "of magnitude between"),
])
def test_bad_feature_options_are_refused_by_name(kw, match):
    X, y = _fit_data(n=30)
    base = {"loss": "softmax", "mechanism": "gaussian_objective", "lam": "auto"}
    with pytest.raises(ParameterError, match=match):
        PrivateLargeMarginGaussian(**{**base, **kw}).fit(X, y)


def test_the_reviewed_tiny_weights_are_refused_before_any_template_is_built():
    """Weights 2.713e-162: w*w is one subnormal step, N underflows and ||u|| = 1.22 while the
    norm check read 1; refused by the estimator's parameter check and by FeatureMap itself."""
    X, y = _fit_data(n=30, d=2)
    est = PrivateLargeMarginGaussian(epsilon=1.0, n_components=1, classes=[0, 1, 2],
                                     feature_weights=(0.0, 2.713e-162, 2.713e-162),
                                     structure="linear", random_state=0)
    with pytest.raises(ParameterError, match="'feature_weights' parameter.*divide the weights"):
        est.plan_for(X, y)
    for bad in [(0.0, 2.713e-162, 2.713e-162), (1e101, 1.0, 0.0), (0.5, 5e-324, 1.0)]:
        with pytest.raises(ParameterError, match="'weights' parameter of FeatureMap.*magnitude"):
            FeatureMap("diagonal", bad, 1.0, 2)
    for bad in [(0.0, -1.0, 1.0), (0.0, 0.0, 0.0), (0.0, math.inf, 1.0)]:
        with pytest.raises(ParameterError, match="'weights' parameter of FeatureMap.*finite"):
            FeatureMap("linear", bad, 1.0, 2)
    for q in (1e-101, 1e101):
        with pytest.raises(ParameterError, match="'data_norm' parameter of FeatureMap.*magnitude"):
            FeatureMap("linear", (0.0, 1.0, 0.1), q, 2)


#: Weights at the edges of [1e-100, 1e100], alone and mixed (ratio 1e200), per structure.
EDGE_WEIGHTS = [(1e-100, 1e-100, 1e-100), (1e100, 1e100, 1e100), (1e-100, 1e100, 1e-100),
                (1e100, 1e-100, 1e100), (0.0, 1e-100, 1e100)]


@pytest.mark.parametrize("structure", ["full", "diagonal", "linear"])
def test_the_checked_norms_are_the_norms_of_the_features_the_solve_uses_at_the_edges(structure):
    """The check (feature_norms) against U read off the solve's own products: the forms
    ⟨Θ_j, u_i⟩ of FeatureMapSpace at Θ = I (one class per coordinate), on each kind of rows
    (in memory, a design operator, AugmentedRows), weights and q at the edges of their range.

    Tolerance 1e-12 absolute, the slack of the record norm condition (||u|| <= 1 + 1e-12):
    within it the check cannot pass features the condition would refuse. Both sides are
    sums of at most 2d + 2 products of numbers <= 1 in magnitude (a few 1e-16 apart)."""
    d = 4
    for q in (1e-100, 1.0, 1e100):
        X, Z = _rows(n=12, d=d, q=q)
        for w in EDGE_WEIGHTS:
            w = (0.0, *w[1:]) if structure == "linear" else w
            fm = FeatureMap(structure, w, q, d)
            space = FeatureMapSpace(fm, fm.m, SymmetricShift(fm.m, 1, d + 1))
            eye = np.eye(fm.m).ravel()
            for rows in (Z, _Operator(Z), AugmentedRows.from_array(Z)):
                solve = np.linalg.norm(space.forms(rows, eye), axis=1)
                checked = fm.feature_norms(rows)
                assert np.all(np.isfinite(checked)) and np.max(solve) > 0.5
                if structure == "diagonal" and not isinstance(rows, np.ndarray):
                    assert np.all(checked >= solve - 1e-12)  # an upper bound
                else:
                    np.testing.assert_allclose(checked, solve, rtol=0, atol=1e-12)
                assert np.max(checked) <= 1.0 + 1e-12
            k = (*fm._k(), *fm.linear_weights()[1])  # every factor of the map: a normal float
            assert all(f == 0.0 or 1e-250 < abs(f) < 1e250 for f in k)


def test_the_check_reads_an_underflowed_norm_through_the_features():
    """A mutant map of the reviewed weights with N by sqrt(sum(w*w)) (underflowed to 0.82
    of ||w||): the features the solve uses have norm 1.22, and so do the checked norms, so
    the record norm condition refuses it before any noise."""
    class Naive(FeatureMap):
        @property
        def norm(self):
            return math.sqrt(sum(w * w for w in self.weights))

    X, y = _fit_data(n=30, d=2)
    X /= np.linalg.norm(X, axis=1)[:, None]
    fm = Naive("linear", (0.0, 1.0, 1.0), 1.0, 2)
    object.__setattr__(fm, "weights", (0.0, 2.713e-162, 2.713e-162))  # past the range check
    Z = augment_and_scale(X, 1.0)
    solve = np.linalg.norm(fm.features(Z), axis=1)
    assert np.min(solve) > 1.2
    np.testing.assert_allclose(fm.feature_norms(Z), solve, rtol=1e-12)
    np.testing.assert_allclose(fm.feature_norms(AugmentedRows.from_array(Z)), solve, rtol=1e-12)
    t = LargeMarginSoftmaxTemplate(Z, y, n_classes=3, lam=0.3, data_norm=1.0, feature_map=fm)
    with pytest.raises(PrivacyError, match="record norm bound"):
        t.conditions({"strong_convexity"})


def test_structure_with_mixtures_has_one_block_of_m_per_component():
    """K = 2 (privacy-softmax-mixtures): the linear map's parameter is (C·K, m), released as (C, K, D, D)."""
    X, y = _fit_data(n=60)
    est = PrivateLargeMarginGaussian(loss="softmax", n_components=2, structure="linear",
                                     epsilon=2.0, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        est.fit(X, y)
    m = FeatureMap("linear", DEFAULT_WEIGHTS["linear"], 1.0, X.shape[1]).m
    assert est.certificate_.quantities["dimension p"] == 3 * 2 * m
    assert est.Phi_.shape == (3, 2, X.shape[1] + 1, X.shape[1] + 1)


@pytest.mark.slow
@pytest.mark.parametrize("structure,w", [("linear", None), ("diagonal", None), ("full", (1, 1, .3))])
def test_dask_fit_equals_the_in_memory_fit(structure, w):
    """Dask rows: the same template through the quadratic forms of the records (privacy-large-margin-dask)."""
    dask = pytest.importorskip("dask")
    da = pytest.importorskip("dask.array")
    X, y = _fit_data(n=120)
    kw = {"loss": "softmax", "mechanism": "gaussian_objective", "lam": "auto", "epsilon": 2.0,
          "random_state": 3, "structure": structure, "feature_weights": w, "classes": [0, 1, 2],
          "solver": "native"}
    a = PrivateLargeMarginGaussian(**kw).fit(X, y)
    with dask.config.set(scheduler="synchronous"):
        b = PrivateLargeMarginGaussian(**kw).fit(da.from_array(X, chunks=50), y)
    assert np.allclose(a.Phi_, b.Phi_, atol=1e-9)
    assert a.certificate_.quantities["dimension p"] == b.certificate_.quantities["dimension p"]
