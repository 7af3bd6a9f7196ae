"""PrivateLargeMarginGaussian: scikit-learn API, certificates, composition, bad input."""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np
import pytest
from _helpers import patch_noise
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis
from sklearn.utils.estimator_checks import parametrize_with_checks

import dpconvex as dp
from dpconvex.errors import collect_diagnostics
from dpconvex.estimators.sklearn_checks import expected_failed_checks
from dpconvex.objectives.losses import Logistic
from dpconvex.privacy.certificate import ComponentsRule
from dpconvex.privacy.rules.large_margin import components_per_class, resolved_components
from dpconvex.templates.large_margin import psi_frobenius

#: The paper's estimator (Pathak & Raj; loss="pairwise", lam=2e-2): this module tests it.
#: The "auto" defaults (softmax, linear structure, lam='auto') are tested in
#: test_large_margin_defaults.py; the scikit-learn checks below run on the defaults.
paper = functools.partial(dp.PrivateLargeMarginGaussian, loss="pairwise", lam=2e-2)


def _data(n=240, d=3, C=3, seed=0):
    rng = np.random.default_rng(seed)
    mu = rng.normal(size=(C, d))
    y = np.arange(n) % C
    X = 0.5 * mu[y] + 0.3 * rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    return X, y


LABELS = np.array(["setosa", "versicolor", "virginica"])


def test_fit_predict_with_string_labels_and_shapes():
    X, y = _data()
    ys = LABELS[y]
    m = paper(mechanism="none").fit(X, ys)
    assert list(m.classes_) == list(LABELS)
    assert m.predict(X).shape == (X.shape[0],)
    assert set(m.predict(X)) <= set(LABELS)
    assert m.decision_function(X).shape == (X.shape[0], 3)
    assert np.array_equal(m.decision_function(X), m.class_scores(X))
    # oracle: a Gaussian classifier fitted by maximum likelihood (QDA) on the same data
    qda = QuadraticDiscriminantAnalysis().fit(X, ys).score(X, ys)
    assert m.score(X, ys) >= qda - 0.03
    assert m.Phi_.shape == (3, 1, 4, 4)
    assert not m.certificate_.private


@pytest.mark.slow
@pytest.mark.parametrize("kw", [
    {"epsilon": 1.0},
    {"epsilon": 2.0, "n_components": 2},
    {"epsilon": 2.0, "n_components": 2, "component_assignment": "dp_kmeans"},
    {"epsilon": 0.5, "solver": "native"},
])
def test_output_is_symmetric_psd_and_certificate_within_budget(kw):
    X, y = _data(seed=1)
    m = paper(random_state=0, **kw).fit(X, y)
    P = m.Phi_
    assert P.shape == (3, kw.get("n_components", 1), 4, 4)
    assert np.array_equal(P, np.swapaxes(P, -1, -2))
    assert np.linalg.eigvalsh(P).min() >= -1e-8
    cert = m.certificate_
    assert cert.private and cert.all_hold
    assert cert.epsilon <= kw["epsilon"] * (1 + 1e-12)
    assert not hasattr(m, "solve_result_") and not hasattr(m, "n_iter_")
    text = str(cert)
    assert "Kifer, Smith & Thakurta" in text
    assert "sqrt(q^2 + 1)" in text


def test_dp_kmeans_budget_is_composed():
    X, y = _data(seed=2)
    m = paper(epsilon=3.0, n_components=2,
                                      component_assignment="dp_kmeans",
                                      kmeans_epsilon_fraction=0.25, random_state=1).fit(X, y)
    cert = m.certificate_
    km, obj = cert.parts
    assert km.epsilon == pytest.approx(0.75)
    assert obj.epsilon_requested == pytest.approx(2.25)
    assert cert.epsilon == pytest.approx(km.epsilon + obj.epsilon)
    assert cert.epsilon <= 3.0
    assert m.component_assignment_ == "dp_kmeans" and m.centers_.shape == (3, 2, 3)


def test_prepare_and_fit_prepared_draw_the_kmeans_and_the_release_from_one_stream(monkeypatch):
    """A seeded fit through the public prepare / fit_prepared draws DP k-means's noise and the
    release's from the fit's one generator, as ``fit`` does (the same model), never from two
    generators of one seed (the second would replay the first's draws)."""
    X, y = _data(seed=2)
    kw = dict(epsilon=3.0, n_components=2, component_assignment="dp_kmeans", random_state=1)
    fitted = paper(**kw).fit(X, y)
    fresh = np.random.default_rng(1).bit_generator.state
    starts = []

    def draw(shape, beta, rng, symmetric=False):
        starts.append(rng.bit_generator.state == fresh)
        return real(shape, beta, rng, symmetric=symmetric)

    real = patch_noise(monkeypatch, draw)
    est = paper(**kw)
    plan = est.plan_for(X, y)
    est.fit_prepared(est.prepare(X, y, plan), plan)
    assert starts and not starts[-1]  # the objective's noise continues the k-means's stream
    np.testing.assert_array_equal(est.Phi_, fitted.Phi_)


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(eps=st.floats(0.05, 20.0), frac=st.floats(0.01, 0.9))
def test_total_epsilon_never_exceeds_request_with_dp_kmeans(eps, frac):
    X, y = _data(n=60, d=2, C=2, seed=3)
    m = paper(epsilon=eps, n_components=2,
                                      component_assignment="dp_kmeans",
                                      kmeans_epsilon_fraction=frac, solver="native",
                                      random_state=0).fit(X, y)
    assert m.certificate_.epsilon <= eps
    assert m.certificate_.epsilon == pytest.approx(eps, rel=1e-9)


def test_gmm_nonprivate_is_flagged_not_private():
    X, y = _data(seed=4)
    with pytest.warns(dp.PrivacyWarning, match="NOT covered"):
        m = paper(epsilon=1.0, n_components=2,
                                          component_assignment="gmm_nonprivate",
                                          random_state=0).fit(X, y)
    cert = m.certificate_
    assert not cert.private and math.isinf(cert.epsilon)
    assert cert.mechanism.endswith("with NON-PRIVATE component assignment")


def test_same_seed_same_model_and_large_epsilon_approaches_nonprivate():
    X, y = _data(seed=5)
    a = paper(epsilon=1.0, random_state=3).fit(X, y)
    b = paper(epsilon=1.0, random_state=3).fit(X, y)
    assert np.array_equal(a.Phi_, b.Phi_)
    ref = paper(mechanism="none", solver="native").fit(X, y)
    big = paper(epsilon=1e7, solver="native", random_state=0).fit(X, y)
    assert big.certificate_.quantities["extra regularization Delta"] == 0
    assert np.max(np.abs(big.Phi_ - ref.Phi_)) < 1e-3


def test_objective_with_zero_noise_equals_none(monkeypatch):
    X, y = _data(seed=6)
    ref = paper(mechanism="none", solver="native").fit(X, y)
    patch_noise(monkeypatch, lambda shape, beta, rng, symmetric=False: np.zeros(shape))
    m = paper(epsilon=50.0, solver="native", random_state=0).fit(X, y)
    assert np.max(np.abs(m.Phi_ - ref.Phi_)) < 1e-6


def test_user_loss_and_extra_terms():
    X, y = _data(seed=7)
    m = paper(epsilon=2.0, loss=Logistic(), random_state=0,
                                      extra_terms=[psi_frobenius(0.01, 3)]).fit(X, y)
    names = [c.name for c in m.certificate_.conditions]
    assert "extra term 'psi_frobenius(0.01)'" in names
    assert m.certificate_.quantities["hessian term bound c_u"] == pytest.approx(0.5)


def test_sklearn_params_and_clone():
    est = paper(epsilon=2.0, n_components=2)
    p = est.get_params()
    assert p["epsilon"] == 2.0 and p["n_components"] == 2 and p["solver"] is None
    est.set_params(lam=0.5, component_assignment="dp_kmeans")
    c = clone(est)
    assert c.get_params()["lam"] == 0.5
    assert c.get_params()["component_assignment"] == "dp_kmeans"
    X, y = _data(n=90, seed=8)
    c.fit(X, y)
    assert est.get_params()["lam"] == 0.5  # fit does not write into parameters
    with pytest.raises(dp.NotFittedError):
        paper().predict(X)


def test_auto_solver_choice():
    X, y = _data(n=120, d=2, C=2)
    with collect_diagnostics() as diag:
        paper(epsilon=1.0, random_state=0).fit(X, y)
    assert diag[-1].solver == "native"  # no CVXPY solve first, whatever the size
    rng = np.random.default_rng(0)
    Xb = rng.normal(size=(3000, 12)) / 4
    yb = (Xb[:, 0] > 0).astype(int)
    with collect_diagnostics() as diag:
        paper(epsilon=1.0, random_state=0).fit(Xb, yb)
    assert diag[-1].solver == "native"


X0, Y0 = _data(n=60, d=2, C=2, seed=9)
X_nan = X0.copy()
X_nan[0, 0] = np.nan

BAD = [
    ("lam 0 objective", {"lam": 0.0}, X0, Y0, dp.PrivacyError, "trace term"),
    ("lam < 0 objective", {"lam": -1.0}, X0, Y0, dp.PrivacyError, "strongly convex"),
    ("lam < 0 none", {"lam": -1.0, "mechanism": "none"}, X0, Y0, dp.ParameterError, "'lam'"),
    ("lam str", {"lam": "0.1"}, X0, Y0, dp.ParameterError, "'lam'"),
    ("eps 0", {"epsilon": 0.0}, X0, Y0, dp.ParameterError, "'epsilon'"),
    ("mechanism output", {"mechanism": "output"}, X0, Y0, dp.ParameterError, "'mechanism'"),
    ("gamma < 0", {"gamma": -1.0}, X0, Y0, dp.ParameterError, "'gamma'"),
    ("h 0", {"h": 0.0}, X0, Y0, dp.ParameterError, "'h'"),
    ("K 0", {"n_components": 0}, X0, Y0, dp.ParameterError,
     r"^The 'n_components' parameter of PrivateLargeMarginGaussian must be an int in "
     r"\[1, 10,000\]: every component .*\. Got 0 instead\. Accepted values: 'auto' or an int in "
     r"\[1, 10,000\]\.$"),
    ("K word", {"n_components": "two"}, X0, Y0, dp.ParameterError,
     r"^The 'n_components' parameter of PrivateLargeMarginGaussian must be 'auto' or an int in "
     r"\[1, 10,000\]\. Got 'two' instead\.$"),
    ("K float", {"n_components": 2.0}, X0, Y0, dp.ParameterError,
     r"'n_components' .* must be an int in \[1, 10,000\]: .*\. Got 2\.0 instead\. Accepted "
     r"values: 'auto' or"),
    ("bad assignment", {"component_assignment": "kmeans"}, X0, Y0, dp.ParameterError,
     "'component_assignment'"),
    ("bad fraction", {"kmeans_epsilon_fraction": 1.0}, X0, Y0, dp.ParameterError,
     "'kmeans_epsilon_fraction'"),
    ("bad centers", {"n_components": 2, "centers": np.zeros((2, 2, 5))}, X0, Y0,
     dp.ParameterError, r"'centers' parameter of PrivateLargeMarginGaussian .* = \(2, 2, 2\)"),
    ("bad solver", {"solver": "ecos"}, X0, Y0, dp.ParameterError, "'solver'"),
    ("bad loss", {"loss": "huber"}, X0, Y0, dp.ParameterError, "'loss'"),
    ("one class", {}, X0, np.zeros(60), dp.DataValidationError, "classes="),
    ("nan", {}, X_nan, Y0, dp.DataValidationError, "NaN"),
    ("length", {}, X0, Y0[:-1], dp.DataValidationError, "must match"),
    ("1-D X", {}, X0[:, 0], Y0, dp.DataValidationError, "reshape"),
    ("data_norm 0", {"data_norm": 0.0}, X0, Y0, dp.ParameterError, "'data_norm'"),
]


@pytest.mark.parametrize("case", BAD, ids=[c[0] for c in BAD])
def test_bad_input_raises_named_error(case):
    _, kw, X, y, exc, msg = case
    est = paper(random_state=0, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(exc, match=msg):
            est.fit(X, y)
    assert not hasattr(est, "Phi_")


def test_messages_name_what_the_user_passed():
    """The estimator's parameter and method, the missing shape facts, the rows to fix."""
    est = paper(mechanism="none", classes=[0, 1, 2])
    with pytest.raises(dp.ParameterError, match=r"n_classes is missing"):
        paper(mechanism="none").certify(n=60, n_features=2)
    # classes= states n_classes: the shape needs no n_classes then
    assert est.certify(n=60, n_features=2).quantities == est.certify(
        n=60, n_classes=3, n_features=2).quantities
    with pytest.raises(dp.ParameterError, match=r"n_classes=5 contradicts classes \(3 labels\)"):
        est.certify(n=60, n_classes=5, n_features=2)
    with pytest.raises(dp.ParameterError, match="'centers' parameter of PrivateLargeMarginGaussian"):
        paper(n_components=2, centers=np.zeros((3, 2, 5))).certify(n=60, n_classes=3, n_features=2)
    fitted = est.fit(X0, Y0)
    for method in ("predict", "predict_proba", "decision_function", "class_scores"):
        with pytest.raises(dp.DataValidationError) as info:
            getattr(fitted, method)(X_nan)
        message = str(info.value)
        assert message.startswith(f"PrivateLargeMarginGaussian.{method}: X contains NaN")
        assert "before passing them to" in message and "fitting" not in message


def test_predict_with_wrong_number_of_features():
    m = paper(mechanism="none").fit(X0, Y0)
    with pytest.raises(dp.DataValidationError, match="features"):
        m.predict(np.zeros((3, 5)))


@pytest.mark.slow
@parametrize_with_checks(
    [dp.PrivateLargeMarginGaussian(mechanism="none"),
     dp.PrivateLargeMarginGaussian(epsilon=1.0, random_state=0)],
    expected_failed_checks=expected_failed_checks,
)
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        check(estimator)


def test_accountant_is_checked_and_charged():
    from dpconvex.privacy.budget import BudgetAccountant

    X, y = _data(n=90, d=2, C=2, seed=10)
    acc = BudgetAccountant(epsilon=1.5)
    paper(epsilon=1.0, accountant=acc, random_state=0).fit(X, y)
    est = paper(epsilon=1.0, accountant=acc, random_state=1)
    with pytest.raises(dp.BudgetError):
        est.fit(X, y)
    assert not hasattr(est, "Phi_")


@pytest.mark.parametrize("kw", [
    {"n_components": 2, "component_assignment": "gmm_nonprivate"},
    {"mechanism": "none"},
])
def test_a_non_private_fit_with_a_ledger_is_refused_before_the_data(kw, monkeypatch):
    """A fit with ε = ∞ cannot be charged to a finite ledger: refused by its cause before the
    rows are read (and so before the mixture is fitted), nothing charged."""
    X, y = _data(n=90, d=2)
    acc = dp.BudgetAccountant(epsilon=2.0)
    est = dp.PrivateLargeMarginGaussian(epsilon=0.5, classes=[0, 1, 2], accountant=acc,
                                        random_state=0, **kw)

    def reads_the_data(*args, **kwargs):
        raise AssertionError("the rows were read")

    monkeypatch.setattr(type(est), "_check_data", reads_the_data)
    with pytest.raises(dp.BudgetError) as info:
        est.fit(X, y)
    message = str(info.value)
    assert "not differentially private" in message and "Drop the accountant" in message
    assert "Lower the epsilon" not in message
    assert acc.spent == (0.0, 0.0) and not acc.spends
    assert not hasattr(est, "Phi_")


def test_certify_matches_fit_without_training():
    """certify() gives the fit's calibration (same ε split, slack, noise rate) and draws nothing."""
    import numpy as np


    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 2)) / 3
    y = (X[:, 0] > 0).astype(int) + (X[:, 1] > 0.3)
    est = paper(epsilon=2.0, lam=0.1, random_state=0)
    cert = est.certify(X, y)
    assert not hasattr(est, "Phi_")
    fitted = est.fit(X, y).certificate_
    core = fitted.parts[-1] if fitted.parts else fitted
    for key in ("jacobian slack", "noise rate beta", "sensitivity"):
        assert cert.quantities[key] == core.quantities[key]


@pytest.mark.parametrize("kw", [
    {"component_assignment": None},
    {"component_assignment": "nearest_public_center"},
    {"component_assignment": "dp_kmeans"},
    {"component_assignment": "gmm_nonprivate"},
    {"component_assignment": "dp_kmeans", "mechanism": "none"},
    {"component_assignment": "gmm_nonprivate", "mechanism": "none"},
])
def test_certify_composes_the_component_assignment_as_the_fit(kw):
    """certify, from the shape or from (X, y), states the fit's guarantee: the same parts,
    the same (ε, δ), private only when the assignment is."""
    X, y = _data(n=90, d=2)
    est = dp.PrivateLargeMarginGaussian(epsilon=1.0, n_components=2, loss="softmax",
                                        classes=[0, 1, 2], random_state=0, **kw)
    dry_runs = [est.certify(n=90, n_classes=3, n_features=2), est.certify(X, y)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)  # gmm_nonprivate says it is not DP
        fitted = est.fit(X, y).certificate_
    for cert in dry_runs:
        assert (cert.epsilon, cert.delta, cert.private) == (
            fitted.epsilon, fitted.delta, fitted.private)
        assert cert.mechanism == fitted.mechanism
        assert [p.mechanism for p in cert.parts] == [p.mechanism for p in fitted.parts]
        assert cert.quantities == fitted.quantities


# ------------------------------------------------------------- n_components="auto"
#: (n, C, d, ε, δ): the training splits of the measured sets (wine, iris, breast cancer,
#: digits) at the smallest and largest ε measured, and shapes far outside them
RULE_SHAPES = [(124, 3, 13, 0.5, None), (105, 3, 4, 4.0, 1e-5), (398, 2, 30, 1.0, 0.0),
               (1257, 10, 64, 4.0, 1e-5), (2, 2, 1, 1e-3, None), (10**7, 50, 500, 100.0, 1e-9)]


@pytest.mark.parametrize("shape", RULE_SHAPES)
def test_components_rule_gives_one_component_per_class(shape):
    """The measured rule (benchmarks/recorded/mixture_components.md); the loss, structure,
    row map and centroid switch read "auto" as K = 1 before the shape is known, so a rule
    giving K > 1 anywhere must change them too."""
    n, C, d, epsilon, delta = shape
    assert components_per_class(n, C, d, epsilon, delta) == 1
    est = dp.PrivateLargeMarginGaussian(epsilon=epsilon, delta=delta)
    assert resolved_components(est, n, C, d) == 1
    assert resolved_components(dp.PrivateLargeMarginGaussian(n_components=3), n, C, d) == 3


AUTO_CASES = [
    {"epsilon": 2.0},  # the softmax objective (r = 240 * 2 / 12 = 40: no centroid switch)
    {"epsilon": 0.5},  # the centroid switch (r = 10 < 15)
    {"epsilon": 2.0, "delta": 1e-5},  # Gaussian objective perturbation
    {"epsilon": 2.0, "loss": "pairwise", "lam": 2e-2},  # the paper's template
    {"mechanism": "none"},
]


@pytest.mark.parametrize("kw", AUTO_CASES)
def test_auto_components_fit_equals_one_component(kw):
    X, y = _data()
    auto = dp.PrivateLargeMarginGaussian(classes=[0, 1, 2], random_state=3, **kw).fit(X, y)
    one = dp.PrivateLargeMarginGaussian(classes=[0, 1, 2], random_state=3, n_components=1,
                                        **kw).fit(X, y)
    assert auto.Phi_.shape == one.Phi_.shape == (3, 1, 4, 4)
    np.testing.assert_allclose(auto.Phi_, one.Phi_, rtol=1e-10, atol=1e-12)
    assert auto.certificate_.mechanism == one.certificate_.mechanism
    assert auto.certificate_.epsilon == one.certificate_.epsilon


@pytest.mark.parametrize("kw", AUTO_CASES[:2])
def test_plan_and_certificate_state_the_resolved_components(kw):
    X, y = _data()
    est = dp.PrivateLargeMarginGaussian(classes=[0, 1, 2], random_state=3, **kw)
    def stated(lines):  # the n_components='auto' lines, once each
        return [line for line in lines if isinstance(line, ComponentsRule)]

    assert stated(est.plan_for(X, y).notes) == [ComponentsRule(1)]
    assert stated(est.certify(X, y).lines) == [ComponentsRule(1)]
    assert stated(est.fit(X, y).certificate_.lines) == [ComponentsRule(1)]
    given = dp.PrivateLargeMarginGaussian(classes=[0, 1, 2], random_state=3, n_components=1,
                                          **kw).fit(X, y)
    assert given.certificate_.line(ComponentsRule) is None


def test_plan_of_a_given_mixture_keeps_its_components():
    plan = paper(epsilon=2.0, n_components=2).plan(240, 3, 3)
    assert plan.options["n_components K"] == 2
    assert not any(isinstance(note, ComponentsRule) for note in plan.notes)


def test_the_auto_loss_of_a_mixture_with_delta_is_the_softmax_one():
    # the pairwise template is pure epsilon-DP only: with delta > 0 "auto" takes the softmax loss
    X, y = _data()
    auto = dp.PrivateLargeMarginGaussian(n_components=2, delta=1e-6, random_state=0).fit(X, y)
    softmax = dp.PrivateLargeMarginGaussian(n_components=2, delta=1e-6, loss="softmax",
                                            random_state=0).fit(X, y)
    np.testing.assert_allclose(auto.Phi_, softmax.Phi_, rtol=0, atol=1e-12)  # the same release
    assert "pairwise" in dp.PrivateLargeMarginGaussian(n_components=2).plan(240, 3, 3).template


def test_a_solver_the_template_cannot_take_is_refused_by_plan_and_certify_as_by_fit():
    X, y = _data()
    softmax = dp.PrivateLargeMarginGaussian(solver="clarabel", random_state=0)  # no CVXPY form
    for call in (lambda: softmax.plan(240, 3, 3), lambda: softmax.certify(n=240, n_classes=3, n_features=3),
                 lambda: softmax.fit(X, y)):
        with pytest.raises(dp.ParameterError, match="cannot solve the template.*softmax loss"):
            call()
    pairwise = dp.PrivateLargeMarginGaussian(solver="clarabel", loss="pairwise")  # it has one
    assert pairwise.plan(240, 3, 3).backend == "clarabel"
