"""Every shipped backend reports the template's residual at the point it returns.

The accuracy check of a release (:func:`~dpconvex.privacy.mechanisms.base.require_exact`)
judges a shipped backend's reported residual on a shipped template without recomputing it, so
the report must be ``template.residual(x, b, Δ)`` at the returned ``x``. The walk is driven by
the registry: every registered class dpconvex ships, on every small problem it supports (a
linear template unconstrained, over an L2 ball, a box and a set stated in CVXPY; large-margin
templates, constrained and not, with symmetric noise).

Tolerance: the recomputation runs the same code at the same point, so only the order of
summation may differ (BLAS threads: the projected solvers compute single-threaded). The
residual is a gradient of O(1) terms cancelling to ~1e-9, so a reordering moves it by a few
ulp of those terms: ``ATOL`` = 1e-14 (~50 ulp of 2.2e-16), with ``RTOL`` = 1e-9 for the
rest. An under-report of the smallest kind that matters, a set's ``projection_tol`` (1e-9)
left out, is 1e5 times ``ATOL``. A projection solved by SCS depends on what its workspace
solved before, so the recomputation starts it anew (``reset_projection``), as the backends
do for the residual they report.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest

from dpconvex._validation import is_dpconvex_class
from dpconvex.data.preprocess import augment_and_scale
from dpconvex.objectives import Box, CVXPYSet, L2Ball, Logistic
from dpconvex.solvers import ProjectedNewton, registry
from dpconvex.solvers import projected_newton as projected_newton_module
from dpconvex.solvers.registry import SolveResult, backend_classes
from dpconvex.templates import LargeMarginGaussianTemplate, LinearERMTemplate
from dpconvex.templates.base import natural_residual
from dpconvex.templates.large_margin_softmax import LargeMarginSoftmaxTemplate

RTOL = 1e-9
ATOL = 1e-14
DELTA = 0.05  # an extra strong convexity Δ, as objective perturbation adds


def _linear(constraint: str) -> LinearERMTemplate:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    X /= np.linalg.norm(X, axis=1).max()
    y = np.where(rng.normal(size=60) > 0, 1.0, -1.0)
    w = cp.Variable(3)
    sets = {"none": None, "l2": L2Ball(0.05), "box": Box(-0.02, 0.02),
            "cvxpy": CVXPYSet([cp.norm(w, 2) <= 0.05, w[0] + w[1] <= 0.01], w)}
    return LinearERMTemplate(Logistic(), 0.1, 1.0, X, y, constraint_set=sets[constraint])


def _large_margin(kind: str):
    rng = np.random.default_rng(1)
    Z = augment_and_scale(rng.normal(size=(30, 2)) / 2.0, data_norm=1.0)
    y = np.arange(30) % 2
    if kind == "gaussian":  # over the PSD cone
        return LargeMarginGaussianTemplate(Z, y, n_classes=2, lam=0.5)
    return LargeMarginSoftmaxTemplate(Z, y, n_classes=2, lam=0.5,
                                      constrained=kind == "softmax-psd")


PROBLEMS = {
    "linear": lambda: _linear("none"),
    "linear-l2": lambda: _linear("l2"),
    "linear-box": lambda: _linear("box"),
    "linear-cvxpyset": lambda: _linear("cvxpy"),
    "gaussian-psd": lambda: _large_margin("gaussian"),
    "softmax": lambda: _large_margin("softmax"),
    "softmax-psd": lambda: _large_margin("softmax-psd"),
}


def _noise(template) -> np.ndarray:
    """A draw of noise in the template's noise shape (symmetric blocks where its noise is)."""
    b = np.random.default_rng(2).normal(size=template.noise_shape)
    return (b + np.swapaxes(b, -1, -2)) / 2 if template.noise_symmetric else b


def _recomputed(template, x: np.ndarray, b: np.ndarray) -> float:
    """The template's residual at ``x``, a solved projection's workspace started anew."""
    reset = getattr(getattr(template.space, "convex_set", None), "reset_projection", None)
    if reset is not None:
        reset()
    return float(template.residual(x, template.space.project_noise(b), DELTA))


def misreports(template) -> tuple[list[str], list[str]]:
    """The shipped registered backends that ran on ``template``, and those among them whose
    reported residual is not the template's at the returned point."""
    ran, wrong = [], []
    b = _noise(template)
    for backend_class in backend_classes(None):  # every registered class
        backend = backend_class()
        if not (is_dpconvex_class(backend_class) and backend.supports(template)):
            continue
        res = backend.solve(template, b.copy(), DELTA)
        assert res.x is not None and res.status.name == "OPTIMAL", backend_class.__name__
        ran.append(backend_class.__name__)
        if res.residual != pytest.approx(_recomputed(template, res.x, b), rel=RTOL, abs=ATOL):
            wrong.append(backend_class.__name__)
    return ran, wrong


@pytest.mark.parametrize("problem", sorted(PROBLEMS))
def test_shipped_backends_report_the_templates_residual(problem):
    ran, wrong = misreports(PROBLEMS[problem]())
    assert ran, f"no shipped backend solved {problem}"
    assert wrong == []


def test_every_shipped_backend_is_walked():
    """Each registered class dpconvex ships solves at least one of the problems."""
    ran = set()
    for problem in ("linear", "linear-cvxpyset", "gaussian-psd"):
        ran.update(misreports(PROBLEMS[problem]())[0])
    shipped = {c.__name__ for c in backend_classes(None) if is_dpconvex_class(c)}
    assert shipped and shipped <= ran


class UnderReporting(ProjectedNewton):
    """A shipped-looking backend that reports the bare natural residual of its point, without
    the ``projection_tol`` the template's residual adds over a set stated in CVXPY."""

    def solve(self, template, b, extra_reg=0.0, **options) -> SolveResult:
        res = super().solve(template, b, extra_reg, **options)
        grad = template.objective(res.x, template.space.project_noise(b), extra_reg)[1]
        res.residual = natural_residual(res.x, grad, template.space.project)
        return res


def test_an_under_reporting_shipped_backend_is_found(monkeypatch):
    """Registered and placed in a module of dpconvex (so the walk takes it as shipped), a
    backend that leaves ``projection_tol`` out of its residual is named by the walk."""
    UnderReporting.__module__ = projected_newton_module.__name__
    monkeypatch.setattr(projected_newton_module, "UnderReporting", UnderReporting,
                        raising=False)
    monkeypatch.setattr(registry, "_CLASSES", [*registry._CLASSES, UnderReporting])
    assert is_dpconvex_class(UnderReporting)
    ran, wrong = misreports(_linear("cvxpy"))
    assert "UnderReporting" in ran and wrong == ["UnderReporting"]
