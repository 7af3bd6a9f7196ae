"""lam="auto": the public rule for Λ (dpconvex/privacy/rules/noise_level.py,
docs/privacy/perturbation.md#privacy-lambda-rule)."""

from __future__ import annotations

import math

import cvxpy as cp
import numpy as np
import pytest
from sklearn.base import clone

import dpconvex as dp
from dpconvex.errors import ParameterError
from dpconvex.estimators.linear import LINEAR_MENU
from dpconvex.privacy.certificate import LamRule
from dpconvex.privacy.mechanisms import build_mechanism
from dpconvex.privacy.mechanisms.base import resolve_mechanism
from dpconvex.privacy.rules.noise_level import (
    REFERENCE_NORM,
    REFERENCE_NORMS,
    REGRESSION_RECORDS,
    STABILITY_WEIGHTS,
    auto_lam,
    delta_floor,
    reference_norm_for,
    stability_weight_for,
)

ESTIMATORS = (dp.PrivateLogisticRegression, dp.PrivateHuberSVM, dp.PrivateLinearClassifier)


def _data(seed: int, n: int = 400, d: int = 5) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    w = rng.normal(size=d)
    y = (X @ w + 0.3 > 0).astype(int)
    return X, y


def _cert_lam(est) -> float:
    return float(est.certificate_.quantities["strong convexity mu"])


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_default_is_auto_and_clone_keeps_it(cls):
    est = cls(epsilon=0.5)
    assert est.get_params()["lam"] == "auto"
    assert clone(est).get_params()["lam"] == "auto"


@pytest.mark.parametrize("mech", ["objective", "output"])
def test_rule_reads_no_data(mech):
    """Two data sets with the same n and p get the same Λ (a rule reading X would differ)."""
    X1, y1 = _data(1)
    X2, y2 = _data(2)
    X2 = 0.1 * X2  # very different norms and labels, same public n, p, q
    y2 = 1 - y2
    a = dp.PrivateLogisticRegression(epsilon=0.3, mechanism=mech, random_state=0).fit(X1, y1)
    b = dp.PrivateLogisticRegression(epsilon=0.3, mechanism=mech, random_state=0).fit(X2, y2)
    assert _cert_lam(a) == _cert_lam(b)
    n, d = X1.shape
    # q̃ = sqrt(1 + 0.25²): data_norm 1 and the default intercept_scaling 0.25
    assert _cert_lam(a) == auto_lam(mech, n, 0.3, math.sqrt(1.0625), d + 1, "logistic")


def test_rule_is_pure_and_monotone():
    for mech in ("objective", "output", "none"):
        vals = [auto_lam(mech, 30000, e, math.sqrt(2.0), 105, "logistic") for e in (0.05, 0.5, 5)]
        assert vals == [auto_lam(mech, 30000, e, math.sqrt(2.0), 105, "logistic")
                        for e in (0.05, 0.5, 5)]
        assert all(v > 0 for v in vals)
        assert vals[0] >= vals[1] >= vals[2]  # more budget, less regularization
    assert auto_lam("objective", 3000, 0.1, 1.0, 10, "huber") > auto_lam(
        "objective", 300000, 0.1, 1.0, 10, "huber")


@pytest.mark.parametrize("loss", ["logistic", "huber", "smooth_hinge"])
@pytest.mark.parametrize("eps", [0.01, 0.05, 0.1, 1.0, 10.0])
@pytest.mark.parametrize("n", [50, 1000, 100000])
def test_objective_rule_is_at_least_the_delta_floor(loss, eps, n):
    q = math.sqrt(2.0)
    lam = auto_lam("objective", n, eps, q, 20, loss)
    floor = delta_floor(n, eps, q, loss)
    curv = dp.objectives.get_loss(loss).curvature
    # the calibration's threshold for the one-sided slack log(1 + c q^2/(nΛ))
    # (docs/privacy/perturbation.md#privacy-jacobian-slack) is c q^2 / (n (e^{eps/2} -
    # 1)); CMS's two-sided one has e^{eps/4}
    assert floor == pytest.approx(curv * q * q / (n * math.expm1(eps / 2.0)), rel=1e-9)
    assert lam >= floor


def test_amp_uses_the_inner_mechanism():
    mech = build_mechanism("objective", "t", LINEAR_MENU, optimality_tol=1e-4)
    assert auto_lam(mech, 1000, 1.0, 1.0, 5, "logistic") == auto_lam(
        "objective", 1000, 0.9, 1.0, 5, "logistic")


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_certificate_states_the_rule(cls):
    X, y = _data(3)
    est = cls(epsilon=1.0, random_state=0).fit(X, y)
    rule = est.certificate_.lam_rule
    assert (rule.rule, rule.lam) == ("auto", _cert_lam(est))
    assert (rule.n, rule.epsilon, rule.delta) == (len(y), 1.0, 0.0)
    mechanism = resolve_mechanism(est.mechanism, est.delta, LINEAR_MENU.auto).name
    assert (rule.mechanism, rule.reference_norm) == (mechanism, reference_norm_for(mechanism))
    explicit = cls(epsilon=1.0, lam=0.05, random_state=0).fit(X, y)
    assert _cert_lam(explicit) == 0.05
    assert explicit.certificate_.lam_rule == LamRule(0.05, "given")


def test_certify_and_none_work_with_auto():
    X, y = _data(4)
    cert = dp.PrivateHuberSVM(epsilon=0.2).certify(X, y)
    assert cert.epsilon <= 0.2
    assert cert.quantities["strong convexity mu"] == auto_lam(
        "objective", X.shape[0], 0.2, math.sqrt(1.0625), X.shape[1] + 1, "huber")  # s = 0.25
    base = dp.PrivateLogisticRegression(mechanism="none").fit(X, y)
    assert base.score(X, y) > 0.9


@pytest.mark.parametrize("bad", ["Auto", "cv", "", "1e-2"])
def test_bad_lam_strings_raise(bad):
    X, y = _data(5)
    with pytest.raises(ParameterError, match="'auto'"):
        dp.PrivateLogisticRegression(lam=bad).fit(X, y)


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), None])
def test_bad_lam_numbers_name_the_accepted_values(bad):
    X, y = _data(5)
    with pytest.raises(ParameterError, match="auto"):
        dp.PrivateHuberSVM(lam=bad).fit(X, y)


def test_sweep_rebuilds_per_epsilon_with_auto():
    X, y = _data(6)
    sw = dp.epsilon_sweep(dp.PrivateLogisticRegression(), X, y, epsilons=[0.1, 5.0], runs=1,
                          random_state=0)
    lams = [_cert_lam(row[0]) for row in sw.estimators]
    n, d = X.shape
    assert lams == [auto_lam("objective", n, e, math.sqrt(1.0625), d + 1, "logistic")  # s = 0.25
                    for e in (0.1, 5.0)]


@pytest.mark.parametrize("mech", ["objective", "output"])
def test_auto_beats_the_majority_class_at_eps_1(mech):
    rng = np.random.default_rng(7)
    n, d = 20000, 10
    X = rng.normal(size=(n, d)) / math.sqrt(d)
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    w = rng.normal(size=d)
    y = (X @ w + 0.1 * rng.normal(size=n) > 0.2).astype(int)
    Xtr, ytr, Xte, yte = X[:15000], y[:15000], X[15000:], y[15000:]
    majority = max(np.mean(yte), 1 - np.mean(yte))
    accs = [dp.PrivateLogisticRegression(epsilon=1.0, mechanism=mech, random_state=s)
            .fit(Xtr, ytr).score(Xte, yte) for s in range(5)]
    assert np.mean(accs) > majority + 0.05


def test_stability_weight_is_chosen_per_mechanism_family():
    """w: objective family 1/16 (the corpus's selection seeds), output family 1 (privacy-lambda-rule)."""
    assert STABILITY_WEIGHTS == {"objective": 1.0 / 16.0, "output": 1.0}
    for name in ("objective", "gaussian_objective", "amp", "gaussian_amp", "none"):
        assert stability_weight_for(name) == 1.0 / 16.0
    for name in ("output", "gaussian_output"):
        assert stability_weight_for(name) == 1.0
    for name in ("objective", "output"):  # the default w is the family's; an explicit w overrides it
        w = stability_weight_for(name)
        assert auto_lam(name, 5000, 0.5, 1.0, 20, "huber") == auto_lam(
            name, 5000, 0.5, 1.0, 20, "huber", stability_weight=w)
    # a lighter stability term never asks for more regularization, and at large n asks for less
    lams = [auto_lam("objective", 50_000, 1.0, 1.0, 8, "logistic", stability_weight=w)
            for w in (1.0, 0.25, 1.0 / 16.0, 0.0)]
    assert all(a >= b for a, b in zip(lams[:-1], lams[1:], strict=True))
    assert lams[0] > 2 * lams[2]


@pytest.mark.parametrize("weight", [1.0, 1.0 / 16.0])
@pytest.mark.parametrize("n", [1000, 100_000])
def test_without_noise_the_rule_is_the_closed_form_minimizer(weight, n):
    """No noise: bound(Λ) = Λ R²/2 + w G²/(nΛ) is least at Λ* = G √(2w/n) / R.

    The rule takes the nearest point of a grid spaced 10^0.01 apart (2.3 %) and rounds to 3
    significant digits, so it is within 2.5 % of Λ*; a wrong weight (w/16 or 16 w) is 4x off.
    """
    q, R = 1.0, REFERENCE_NORMS["objective"]
    G = 1.0 * q  # logistic loss: |l'| <= 1
    expected = G * math.sqrt(2.0 * weight / n) / R
    got = auto_lam("none", n, 1.0, q, 5, "logistic", stability_weight=weight)
    assert got == pytest.approx(expected, rel=0.025)


def test_reference_norm_is_chosen_per_mechanism_family():
    """R: objective family 16, output family 8 (validation,
    docs/privacy/perturbation.md#privacy-lambda-rule)."""
    assert REFERENCE_NORM == REFERENCE_NORMS["objective"] == 16.0
    for name in ("objective", "gaussian_objective", "amp", "gaussian_amp", "none"):
        assert reference_norm_for(name) == 16.0
    for name in ("output", "gaussian_output"):
        assert reference_norm_for(name) == 8.0
    # the default R is the family's, and an explicit R overrides it
    for name in ("objective", "output"):
        R = REFERENCE_NORMS["output" if name == "output" else "objective"]
        assert auto_lam(name, 5000, 0.5, 1.0, 20, "huber") == auto_lam(
            name, 5000, 0.5, 1.0, 20, "huber", reference_norm=R)
    assert auto_lam("output", 5000, 0.5, 1.0, 20, "huber") != auto_lam(
        "output", 5000, 0.5, 1.0, 20, "huber", reference_norm=16.0)


def test_reference_norm_of_a_regression_loss_on_the_objective():
    """A regression loss (labels on the unit scale) with its noise on the objective (pure or
    Gaussian): R = n·ε/(p · REGRESSION_RECORDS) within [1, 16]; on the output the placement's
    R; the rule's Λ follows it."""
    from dpconvex.objectives.losses import get_regression_loss

    huber = get_regression_loss("huber", (-1.0, 1.0), M=0.5)
    assert REFERENCE_NORMS["regression"] == 1.0 and REGRESSION_RECORDS == 100.0
    for name in ("objective", "gaussian_objective"):
        assert reference_norm_for(name, huber, 10.0) == 1.0
        assert reference_norm_for(name, huber, 400.0) == 4.0
        assert reference_norm_for(name, huber, 1e6) == 16.0
        assert reference_norm_for(name, huber) == 1.0  # no r: the floor
    for name in ("output", "gaussian_output"):
        assert reference_norm_for(name, huber, 400.0) == 8.0
    assert reference_norm_for("objective", "huber", 400.0) == 16.0  # a margin loss
    n, p, q = 854, 37, math.sqrt(2.0)
    assert auto_lam("objective", n, 1.0, q, p, huber) == auto_lam(
        "objective", n, 1.0, q, p, huber, reference_norm=1.0)  # r = 23
    assert auto_lam("objective", 40_000, 1.0, q, p, huber) == auto_lam(
        "objective", 40_000, 1.0, q, p, huber, reference_norm=40_000 / p / 100)


def test_a_noise_dominated_regressor_shrinks_towards_a_constant():
    """Few rows per coordinate (n ε/(d + 1) = 32) and a weak signal, one-hot-like rows: at the
    regression R (1 at this r) the Huber regressor at its defaults (a user's Huber loss too) stays within 0.25
    R² of the training mean on held-out rows, where Λ of R = 16 lets the noise carry it below
    R² −3 (−3.3 to −9.9 on these rows over 5 seeds; R = 1: −0.03 to −0.18)."""
    from sklearn.metrics import r2_score

    from dpconvex import PrivateHuberRegressor, PrivateLinearRegressor
    from dpconvex.objectives.losses import get_regression_loss

    rng = np.random.default_rng(7)
    n, d = 1500, 36
    X = rng.integers(0, 2, size=(n, d)) / math.sqrt(d)  # rows of norm <= 1
    y = 120 + 40 * X[:, 0] + rng.normal(scale=17, size=n)
    X_tr, X_te, y_tr, y_te = X[:1200], X[1200:], y[:1200], y[1200:]
    mean_r2 = r2_score(y_te, np.full(len(y_te), y_tr.mean()))
    for seed in range(3):
        for reg in (PrivateHuberRegressor(epsilon=1.0, label_range=(17, 212), random_state=seed),
                    PrivateLinearRegressor(loss=lambda z, u: cp.huber(z - u, 0.5),
                                           epsilon=1.0, label_range=(17, 212),
                                           random_state=seed)):
            r2 = r2_score(y_te, reg.fit(X_tr, y_tr).predict(X_te))
            assert r2 >= mean_r2 - 0.25, (type(reg).__name__, seed, r2)
        lam_16 = auto_lam("objective", 1200, 1.0, math.sqrt(2.0), d + 1,
                          get_regression_loss("huber", (-1.0, 1.0), M=0.5), reference_norm=16.0)
        old = PrivateHuberRegressor(epsilon=1.0, label_range=(17, 212), random_state=seed,
                                    lam=lam_16)
        assert r2_score(y_te, old.fit(X_tr, y_tr).predict(X_te)) < mean_r2 - 3.0
