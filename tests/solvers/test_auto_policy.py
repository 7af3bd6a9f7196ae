"""The "auto" policy on the large-margin templates of the wine data: native, CVXPY never first.

Clarabel misses the release tolerance on the PSD-constrained large-margin solves of wine
(then the native solver had to polish its point) and, where it meets it (the symmetric
form), takes many times the native solver's time
(benchmarks/recorded/solver_speed-large_margin.md on synthetic data). The policy reads the
template's capabilities only, so these tests assert on the backend class chosen and on
which backends ran, never on a time.
"""

from __future__ import annotations

import numpy as np
import pytest

import dpconvex as dp
from dpconvex.solvers import (
    CVXPYBackend,
    LbfgsNewton,
    PolishedBackend,
    ProjectedGradient,
    get_backend,
)
from dpconvex.templates import LargeMarginGaussianTemplate
from dpconvex.templates.large_margin_softmax import LargeMarginSoftmaxTemplate
from dpconvex.templates.parameterizations import FullPSD, SymmetricShift


@pytest.fixture(scope="module")
def wine():
    X, y = dp.datasets.load_sklearn("wine")
    return np.asarray(X, dtype=float), np.unique(y, return_inverse=True)[1]


def _pairwise(wine, K=1, parameterization=FullPSD):
    X, y = wine
    return LargeMarginGaussianTemplate.from_features(
        X, y, (np.arange(len(y)) // 3) % K, data_norm=1.0, n_classes=3, n_components=K,
        lam=0.02, gamma=1e-3, parameterization=parameterization)


def _softmax(wine, K=1, constrained=False):
    X, y = wine
    Z = dp.data.preprocess.augment_and_scale(X / np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None],
                                             data_norm=1.0)
    return LargeMarginSoftmaxTemplate(Z, y, (np.arange(len(y)) // 3) % K if K > 1 else None,
                                      n_classes=3, lam=0.02, n_components=K, constrained=constrained)


CASES = {
    "pairwise PSD": (lambda w: _pairwise(w), ProjectedGradient),
    "pairwise PSD, K = 2": (lambda w: _pairwise(w, K=2), ProjectedGradient),
    "pairwise symmetric": (lambda w: _pairwise(w, parameterization=SymmetricShift),
                           ProjectedGradient),
    "softmax": (lambda w: _softmax(w), LbfgsNewton),
    "softmax, K = 2": (lambda w: _softmax(w, K=2), LbfgsNewton),
    "softmax PSD": (lambda w: _softmax(w, constrained=True), ProjectedGradient),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_auto_picks_the_native_solver_on_wine(wine, case):
    build, native = CASES[case]
    template = build(wine)
    backend = get_backend(None, template)
    assert type(backend) is native
    assert not isinstance(backend, PolishedBackend | CVXPYBackend)
    assert get_backend("auto", template).solvers == ("native",)


def test_a_release_on_wine_never_runs_clarabel(wine, monkeypatch):
    def refuse(self, *args, **kwargs):
        raise AssertionError(f"{type(self).__name__} ran under solver=None")

    monkeypatch.setattr(CVXPYBackend, "solve", refuse)
    template = _pairwise(wine)
    assert "cvxpy" in template.capabilities  # Clarabel could have been tried
    with dp.collect_diagnostics() as diag:
        rel = dp.release(template, "objective", dp.Budget(1.0), rng=0)
    assert rel.theta.shape == template.space.shape
    assert [res.solver for res in diag] == ["native"]


def test_the_estimator_plans_the_native_solver_on_wine(wine):
    X, y = wine
    est = dp.PrivateLargeMarginGaussian(epsilon=1.0, loss="pairwise", lam=0.02, gamma=1e-3)
    plan = est.plan_for(X, y)
    assert plan.learner == "pairwise" and plan.backend == "native"
