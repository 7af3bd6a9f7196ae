"""The linear learners warn, before solving, when the privacy noise outweighs any data part
(dpconvex.privacy.rules.noise_level, docs/privacy/tuning_gd_ledger.md#privacy-noise-warning-linear).

ρ₀ = E‖noise‖ / (largest data gradient at θ = 0) is computed from the calibration and the
loss's declared constants alone. These tests check its closed forms (worst case ρ: 2p/(nε')
for objective, 2p/(nε) for output perturbation, √p σ/(nG) for the Gaussian objective, the
averaged-iterate weights of noisy GD; ρ₀ = ρ L/|ℓ'(0)|, twice ρ for logistic), that it reads
no data value, that the warning is raised before the solve, and that it fires exactly on
the side of the threshold the ratio is on: the scikit-learn breast cancer training split
(398 rows, 70/30 stratified as benchmarks/only_epsilon_defaults.py) at ε = 0.1 (ρ₀ ≈ 1.9-3.3,
models no better than the majority class in benchmarks/recorded/only_epsilon_defaults.md) and not at
ε = 1 (ρ₀ <= 0.33, clearly better). All deterministic (fixed data, no sampling in ρ₀).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from sklearn.model_selection import train_test_split

import dpconvex as dp
from dpconvex.datasets import load_sklearn
from dpconvex.errors import PrivacyWarning
from dpconvex.privacy.mechanisms.base import OUTPUT_SOLVE_MARGIN
from dpconvex.privacy.rules.noise_level import LINEAR_NOISE_RATIO, estimator_noise_dominance


@pytest.fixture(scope="module")
def cancer():
    X, y = load_sklearn("breast_cancer")
    Xtr, _, ytr, _ = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    return Xtr, ytr


def _rho(est, X, y, worst_case=False):
    return estimator_noise_dominance(est, X, y, worst_case=worst_case)


def _noise_warnings(fit):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit()
    return [str(w.message) for w in caught if issubclass(w.category, PrivacyWarning)
            and "noise is large" in str(w.message)]


def test_objective_and_output_closed_forms(cancer):
    X, y = cancer
    rho, template, mech, budget = _rho(dp.PrivateLogisticRegression(epsilon=0.1), X, y, True)
    cal = mech.calibrate(template, budget)
    n, p = template.n, template.p
    assert rho == pytest.approx(2.0 * p / (n * cal.epsilon_noise), rel=1e-12)
    # at θ = 0 the logistic data gradient is at most |ℓ'(0)| q = q/2: twice the ratio
    assert _rho(dp.PrivateLogisticRegression(epsilon=0.1), X, y)[0] == pytest.approx(2 * rho)
    out = dp.PrivateLogisticRegression(epsilon=0.1, mechanism="output")
    rho_out, t_out, _, _ = _rho(out, X, y, True)
    # E‖b‖ μ/G = p S μ/(ε G), S = 2G(1 + κ)/(nμ): the solved point's sensitivity
    kappa = OUTPUT_SOLVE_MARGIN
    assert rho_out == pytest.approx(2.0 * (1 + kappa) * t_out.p / (t_out.n * 0.1), rel=1e-12)
    # Huber (h = 0.5 < 1): ℓ'(0) = -1 = -L, so ρ₀ = ρ
    hub = _rho(dp.PrivateHuberSVM(epsilon=0.1), X, y)[0]
    assert hub == pytest.approx(_rho(dp.PrivateHuberSVM(epsilon=0.1), X, y, True)[0])


def test_gaussian_objective_closed_form(cancer):
    X, y = cancer
    est = dp.PrivateLogisticRegression(epsilon=0.5, delta=1e-5, mechanism="gaussian_objective")
    rho, template, mech, budget = _rho(est, X, y, True)
    cal = mech.calibrate(template, budget)
    consts = template.privacy_constants()
    expected = math.sqrt(consts.dimension) * cal.extra["noise std"] / (
        template.n * consts.grad_bound)
    assert rho == pytest.approx(expected, rel=1e-12)


def test_noisy_gd_weights(cancer):
    X, y = cancer
    rho, template, mech, budget = _rho(dp.NoisyGradientDescent(epsilon=1.0), X, y, True)
    x = mech.calibrate(template, budget).extra
    T = x["steps"]
    first = T - (T + 1) // 2  # average of the last half
    w = np.array([(T - max(t, first)) / (T - first) for t in range(T)])
    expected = x["noise std"] * math.sqrt(template.p) * np.linalg.norm(w) / (x["clip"] * w.sum())
    assert rho == pytest.approx(expected, rel=1e-12)
    # the averaged iterate is noisier per unit of signal than the last iterate's s√p/(C√T)
    assert rho > x["noise std"] * math.sqrt(template.p) / (x["clip"] * math.sqrt(T))
    g0 = min(x["clip"], 0.5 * template.data_norm)  # logistic: |ℓ'(0)| = 1/2
    assert _rho(dp.NoisyGradientDescent(epsilon=1.0), X, y)[0] == pytest.approx(
        rho * x["clip"] / g0, rel=1e-12)


def test_reads_no_data_value(cancer):
    # same n, p and labels' set: same ρ whatever the values (a rule reading X or y differs)
    X, y = cancer
    rng = np.random.default_rng(0)
    X2 = rng.uniform(-0.05, 0.05, size=X.shape)
    y2 = rng.permutation(y)
    for make in (lambda: dp.PrivateHuberSVM(epsilon=0.2),
                 lambda: dp.PrivateLogisticRegression(epsilon=0.2, mechanism="output"),
                 lambda: dp.NoisyGradientDescent(epsilon=0.2)):
        assert _rho(make(), X, y)[0] == _rho(make(), X2, y2)[0]


@pytest.mark.parametrize("epsilon, warns", [(0.1, True), (1.0, False)])
@pytest.mark.parametrize("cls", [dp.PrivateLogisticRegression, dp.PrivateHuberSVM,
                                 dp.PrivateLinearClassifier])
def test_fires_on_the_right_side(cancer, cls, epsilon, warns):
    X, y = cancer
    rho = _rho(cls(epsilon=epsilon), X, y)[0]
    assert (rho > LINEAR_NOISE_RATIO) is warns
    msgs = _noise_warnings(lambda: cls(epsilon=epsilon, random_state=0).fit(X, y))
    assert bool(msgs) is warns
    if warns:
        assert f"n = {len(y)}" in msgs[0] and "degrees of a random one" in msgs[0]


@pytest.mark.slow
def test_noisy_gd_fires_on_the_right_side(cancer):
    X, y = cancer
    n = 60  # a small training set: ρ ∝ 1/n
    tiny = (X[:n], y[:n])
    assert _rho(dp.NoisyGradientDescent(epsilon=0.1), *tiny)[0] > LINEAR_NOISE_RATIO
    assert _noise_warnings(lambda: dp.NoisyGradientDescent(epsilon=0.1, random_state=0)
                           .fit(*tiny))
    assert _rho(dp.NoisyGradientDescent(epsilon=10.0), X, y)[0] < LINEAR_NOISE_RATIO
    assert not _noise_warnings(lambda: dp.NoisyGradientDescent(epsilon=10.0, random_state=0)
                               .fit(X, y))


def test_warning_comes_before_the_solve(cancer, monkeypatch):
    X, y = cancer

    class Reached(Exception):
        """Not a solver's exception: it passes through the release unchanged."""

    def no_solve(*args, **kwargs):
        raise Reached("solve reached")

    from dpconvex.solvers.registry import Backend

    monkeypatch.setattr(Backend, "admit", no_solve)  # where every solve starts
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(Reached, match="solve reached"):
            dp.PrivateLogisticRegression(epsilon=0.1).fit(X, y)
    assert any("noise is large" in str(w.message) for w in caught)


def test_no_warning_without_noise(cancer):
    X, y = cancer
    est = dp.PrivateLogisticRegression(mechanism="none")
    assert _rho(est, X, y)[0] is None
    assert not _noise_warnings(lambda: est.fit(X, y))


def test_message_says_what_the_check_cannot_see(cancer):
    """Every 'noise is large' warning ends with the constant note on what a public check
    cannot see (the data's signal) and the comparison with the majority class."""
    from dpconvex.estimators.large_margin.learners import objective_part
    from dpconvex.privacy.rules.noise_level import PUBLIC_CHECK_NOTE, warn_if_noise_dominates

    for part in ("public quantities only", "not the strength of the signal in the data",
                 "without this warning too", "majority class on held-out rows",
                 "sklearn.dummy.DummyClassifier"):
        assert part in PUBLIC_CHECK_NOTE
    assert not any(ch.isdigit() for ch in PUBLIC_CHECK_NOTE)  # a constant: no statistic
    X, y = cancer
    msgs = {"linear": _noise_warnings(
        lambda: dp.PrivateLogisticRegression(epsilon=0.1, random_state=0).fit(X, y))}
    _, template, mech, budget = _rho(dp.NoisyGradientDescent(epsilon=0.1), X, y)  # ρ_GD 0.96
    msgs["noisy GD"] = _noise_warnings(
        lambda: warn_if_noise_dominates("gd", template, mech, budget, "NoisyGradientDescent"))
    Xw, yw = load_sklearn("wine")
    msgs["centroids"] = _noise_warnings(
        lambda: dp.PrivateGaussianCentroid(epsilon=0.1, random_state=0).fit(Xw, yw))
    lm = dp.PrivateLargeMarginGaussian(epsilon=1.0, loss="pairwise", lam=2e-2, random_state=0)
    plan = lm.plan_for(Xw, yw)
    prep = lm.prepare(Xw, yw, plan)
    msgs["large margin"] = _noise_warnings(lambda: warn_if_noise_dominates(
        "large_margin", prep.template, plan.mechanism, objective_part(plan),
        "PrivateLargeMarginGaussian"))
    for kind, found in msgs.items():
        assert len(found) == 1, kind
        assert found[0].endswith(PUBLIC_CHECK_NOTE), kind


def test_the_linear_warning_on_noisy_gd_names_the_reports_dimension():
    """The "linear" family reads any placement's report, noisy GD's included: its message names
    the report's p (a template of noisy GD states no privacy constants)."""
    from dpconvex.objectives.losses import Logistic
    from dpconvex.privacy.mechanisms import get_mechanism
    from dpconvex.privacy.rules.noise_level import warn_if_noise_dominates
    from dpconvex.templates.statistics import EmpiricalRiskTemplate

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    template = EmpiricalRiskTemplate(Logistic(), 1.0, X, (X[:, 0] > 0).astype(float))
    mech = get_mechanism("noisy_gd", steps=20, accounting="rdp")
    with pytest.warns(PrivacyWarning, match=r"\(p = 3 noise coordinates, n = 60;"):
        rho = warn_if_noise_dominates("linear", template, mech, dp.Budget(0.05, 1e-5), "demo")
    assert rho > LINEAR_NOISE_RATIO
