"""Certificates state what ran: the solver backend, and the component assignment.

Oracles: the solves recorded on the not-private diagnostics channel (which solver
produced the point), the fit plan (made before the data), and the certificate of
the non-private baseline ``mechanism="none"``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import dpconvex as dp
from dpconvex.solvers import ClarabelBackend, ProjectedGradient, SolveResult, SolveStatus


def _binary(n=80, p=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    return X, (X @ rng.normal(size=p) > 0).astype(int)


def _three_classes(n=90, d=2, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 3
    X = 0.5 * rng.normal(size=(3, d))[y] + 0.3 * rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    return X, y


def _solvers_that_ran(fit):
    """The solver names of the solves behind ``fit()`` (the not-private channel)."""
    with dp.collect_diagnostics() as diag:
        est = fit()
    return est, [res.solver for res in diag if isinstance(res, SolveResult)]


@pytest.mark.parametrize("solver", [None, "auto"])
def test_linear_fit_with_solver_auto_names_the_native_backend(solver):
    X, y = _binary()
    est = dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1], solver=solver)
    est, ran = _solvers_that_ran(lambda: est.fit(X, y))
    assert ran == ["native"]
    assert est.certificate_.solver["backend"] == "native"
    assert est.plan(len(y), 2, X.shape[1]).backend == "native"


@pytest.mark.parametrize("solver", [None, "auto"])
def test_large_margin_fit_with_solver_auto_names_the_solver_that_ran(solver):
    X, y = _three_classes()
    est = dp.PrivateLargeMarginGaussian(epsilon=1.0, classes=[0, 1, 2], loss="pairwise",
                                        solver=solver)
    est, ran = _solvers_that_ran(lambda: est.fit(X, y))
    stated = est.certificate_.solver["backend"]
    assert ran == ["native"] and stated == "native"
    assert stated == est.plan(len(y), 3, X.shape[1]).backend


def test_a_polished_release_does_not_say_whether_the_polish_ran(monkeypatch):
    from dpconvex.data.preprocess import augment_and_scale
    from dpconvex.solvers import PolishedBackend
    from dpconvex.templates import LargeMarginGaussianTemplate

    X, y = _three_classes(seed=1)

    def template():
        return LargeMarginGaussianTemplate(augment_and_scale(X, data_norm=1.0), y, n_classes=3,
                                           lam=0.05)

    def exact(self, template, b, extra_reg, *, warm_start=None, max_iter=None):
        # a first solve that meets the tolerance (the pairwise template is PSD-constrained)
        res = ProjectedGradient().solve(template, b, extra_reg, max_iter=max_iter)
        res.solver = "clarabel"
        return res

    def sloppy(self, template, b, extra_reg, *, warm_start=None, max_iter=None):
        return SolveResult(np.zeros(template.noise_shape), SolveStatus.INACCURATE, 0.0, 1e-3,
                           "clarabel")

    texts = {}
    for name, first in (("first solve kept", exact), ("polished", sloppy)):
        monkeypatch.setattr(ClarabelBackend, "solve", first)
        backend = PolishedBackend(ClarabelBackend(), ProjectedGradient())
        with dp.collect_diagnostics() as diag:
            rel = dp.release(template(), "objective", dp.Budget(1.0), backend=backend, rng=0)
        texts[name] = rel.certificate.solver["backend"]
        assert [d.solver for d in diag] == ["clarabel" if name == "first solve kept"
                                            else "clarabel+native"]
    assert texts["first solve kept"] == texts["polished"]
    assert "polished by native if" in texts["polished"]


def test_nonprivate_mixture_with_dp_kmeans_states_the_noiseless_kmeans():
    X, y = _three_classes(seed=2)
    # the loss sets only the row map the k-means reads; the assignment is stated alike
    est = dp.PrivateLargeMarginGaussian(mechanism="none", n_components=2, classes=[0, 1, 2],
                                        component_assignment="dp_kmeans", loss="softmax",
                                        solver="native", random_state=0).fit(X, y)
    cert, text = est.certificate_, str(est.certificate_)
    assert not cert.private and math.isinf(cert.epsilon)
    assert "-DP" not in text and "gmm_nonprivate" not in text and "GaussianMixture" not in text
    assert "component assignment: nearest center of a per-class k-means without noise" in text
    assert [part.mechanism for part in cert.parts] == ["k-means (Lloyd, 3 iterations, no noise)"]
    assert not cert.parts[0].private
    # certified as the non-private baseline is everywhere
    baseline = dp.PrivateLargeMarginGaussian(mechanism="none", classes=[0, 1, 2],
                                             loss="softmax", solver="native").fit(X, y)
    assert cert.mechanism == baseline.certificate_.mechanism
    assert cert.mechanism_name == baseline.certificate_.mechanism_name == "none"


@pytest.mark.filterwarnings("ignore::dpconvex.errors.PrivacyWarning")
def test_nonprivate_mixture_with_gmm_states_the_gaussian_mixture():
    X, y = _three_classes(seed=3)
    # the loss sets only the row map the mixture reads; the assignment is stated alike
    est = dp.PrivateLargeMarginGaussian(mechanism="none", n_components=2, classes=[0, 1, 2],
                                        component_assignment="gmm_nonprivate", loss="softmax",
                                        solver="native", random_state=0).fit(X, y)
    text = str(est.certificate_)
    assert not est.certificate_.private and math.isinf(est.certificate_.epsilon)
    assert "-DP" not in text and "GaussianMixture" in text


PREPROCESSING = "preprocessing that reads the data is not covered"


@pytest.mark.parametrize("make", [
    lambda: dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1]),
    lambda: dp.NoisyGradientDescent(epsilon=1.0, steps=20, classes=[0, 1]),
    lambda: dp.PrivateGaussianCentroid(epsilon=1.0, classes=[0, 1]),
    lambda: dp.PrivateGaussianNB(epsilon=1.0, classes=[0, 1], feature_range=(-1, 1)),
    lambda: dp.PrivateLargeMarginGaussian(epsilon=1.0, classes=[0, 1]),
    lambda: dp.PrivateLinearRegression(epsilon=1.0, label_range=(-1, 1)),
    lambda: dp.PrivateLinearRegressor(epsilon=1.0, loss="huber", label_range=(-1, 1)),
    lambda: dp.PrivateRegressor(epsilon=0.1, label_range=(-1, 1)),  # the private mean alone
    lambda: dp.PrivateRegressor(epsilon=5.0, label_range=(-1, 1)),
    lambda: dp.PrivateClassifier(epsilon=1.0, classes=[0, 1]),
], ids=["logistic", "noisy-gd", "centroid", "nb", "large-margin", "ssp", "huber", "mean",
        "regressor", "classifier"])
def test_every_certificate_says_that_preprocessing_reading_the_data_is_not_covered(make):
    """A user's StandardScaler before the estimator reads the data; the certificate says so."""
    X, y = _binary(n=400)
    est = make().set_params(random_state=0)
    if "label_range" in est.get_params():
        y = X[:, 0] - X[:, 1]

    def stated(cert):
        return any(PREPROCESSING in a for a in cert.assumptions) or any(map(stated, cert.parts))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert stated(est.fit(X, y).certificate_)
