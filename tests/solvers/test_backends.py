"""Solver backends, their one registry, and the written template contract.

Oracles: closed-form minimizers (a box-constrained quadratic, whose projection
is not the PSD cone), the registry's documented "auto" policy, the capability
table of :mod:`dpconvex.templates.base` checked against every registered
template and against a grep of the code that uses templates.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import dpconvex as dp
from dpconvex.errors import ParameterError
from dpconvex.objectives.losses import L2, REGULARIZERS, Frobenius, HuberHinge, Logistic, SmoothHinge
from dpconvex.privacy.certificate import Condition
from dpconvex.solvers import (
    BACKENDS,
    CVXPY_STATUS_MAP,
    ClarabelBackend,
    LbfgsNewton,
    PolishedBackend,
    ProjectedGradient,
    SCSBackend,
    SolveResult,
    SolveStatus,
    backend_names,
    check_solver_name,
    get_backend,
    solve,
)
from dpconvex.templates import TEMPLATES, LargeMarginGaussianTemplate, LinearERMTemplate
from dpconvex.templates.base import (
    CAPABILITY_MEMBERS,
    PARAM_SPACE_MEMBERS,
    TEMPLATE_MEMBERS,
    EuclideanSpace,
    PrivacyConstants,
    missing_members,
)

PACKAGE = Path(dp.__file__).resolve().parent


def _linear(loss=None, n=200, p=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = np.where(X @ rng.normal(size=p) > 0, 1.0, -1.0)
    return LinearERMTemplate(loss or Logistic(), 1e-2, 1.0, X, y)


def _large_margin(n=120, d=2, C=2, K=1, seed=0, **kw):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % C
    X = 0.5 * rng.normal(size=(C, d))[y] + 0.4 * rng.normal(size=(n, d))
    return LargeMarginGaussianTemplate.from_features(
        X, y, np.arange(n) % K, data_norm=1.0, n_classes=C, n_components=K,
        lam=kw.pop("lam", 1e-2), gamma=kw.pop("gamma", 1e-2), **kw)


class _Box:
    """[-r, r]^p: a feasible set whose projection is not the PSD cone."""

    symmetric = False

    def __init__(self, p, r):
        self.shape, self.dimension, self.r = (p,), p, r

    def project(self, theta):
        return np.clip(theta, -self.r, self.r)

    def postprocess(self, theta):
        return self.project(theta)

    def project_noise(self, b):
        return np.asarray(b, dtype=float).reshape(self.shape)


class BoxQuadratic:
    """J(θ) = (μ/2)||θ − a||² + ⟨b, θ⟩/n over the box [−1, 1]^p: θ* = clip(a − b/(nμ))."""

    name = "box quadratic (test)"
    kind = "test"
    capabilities = frozenset({"objective", "projection"})
    noise_symmetric = False
    residual_tol = 1e-6

    def __init__(self, a, mu, n=10):
        self.a, self.n = np.asarray(a, dtype=float), n
        self.regularizer = L2(mu)
        self.space = _Box(self.a.size, 1.0)
        self.noise_shape = self.space.shape

    def privacy_constants(self):
        return PrivacyConstants(1.0, 1, 0.0, self.regularizer.strong_convexity, self.a.size)

    def conditions(self, needs):
        return [Condition("test", True, "declared", "")]

    def assumptions(self, needs):
        return []

    def objective(self, theta, b=None, extra_reg=0.0):
        mu = self.regularizer.strong_convexity + extra_reg
        g = mu * (theta - self.a) + (0.0 if b is None else b / self.n)
        val = 0.5 * mu * float(np.sum((theta - self.a) ** 2))
        return val + (0.0 if b is None else float(b @ theta) / self.n), g

    def residual(self, theta, b=None, extra_reg=0.0):
        g = self.objective(theta, b, extra_reg)[1]
        return float(np.linalg.norm(theta - self.space.project(theta - g)))

    def distance_bound(self, residual, mu):
        return residual / mu

    def lipschitz_bound(self, extra_reg=0.0):
        return self.regularizer.strong_convexity + extra_reg

    def closed_form(self, b, extra_reg=0.0):
        mu = self.regularizer.strong_convexity + extra_reg
        return np.clip(self.a - (0 if b is None else b / (self.n * mu)), -1.0, 1.0)


# ------------------------------------------------------------------ registry


def test_names_and_check_solver_name():
    assert backend_names() == ("auto", "native", "clarabel", "scs")
    assert set(BACKENDS) == {"native", "clarabel", "scs"}
    for name in (None, "auto", "native", "clarabel", "scs"):
        assert check_solver_name(name, "Owner") == name
    with pytest.raises(ParameterError, match=r"The 'solver' parameter of Owner must be one of "
                                             r"\[None, 'auto', 'native', 'clarabel', 'scs'\]"):
        check_solver_name("ecos", "Owner")
    with pytest.raises(ParameterError):
        check_solver_name(["native"], "Owner")


def test_native_is_chosen_by_capability():
    lin, lm = _linear(), _large_margin()
    assert isinstance(get_backend("native", lin), LbfgsNewton)
    assert isinstance(get_backend("native", lm), ProjectedGradient)
    assert isinstance(get_backend("clarabel", lm), ClarabelBackend)
    assert isinstance(get_backend("scs", lin), SCSBackend)
    assert isinstance(get_backend("native", BoxQuadratic(np.zeros(3), 1.0)), ProjectedGradient)


class _CVXPYOnly:
    """A template offering only a CVXPY form (no native capability), for the auto policy."""

    name, capabilities = "cvxpy only (test)", frozenset({"objective", "cvxpy"})


def test_auto_policy():
    lin, lm = _linear(), _large_margin()
    assert isinstance(get_backend(None, lin), LbfgsNewton)
    assert isinstance(get_backend("auto", lin), LbfgsNewton)
    # a CVXPY form and a projection, at any size: the native solver, CVXPY never tried first
    assert "cvxpy" in lm.capabilities
    assert isinstance(get_backend("auto", lm), ProjectedGradient)
    no_cvxpy = _large_margin(loss=SmoothHinge(0.5))
    assert "cvxpy" not in no_cvxpy.capabilities
    assert isinstance(get_backend("auto", no_cvxpy), ProjectedGradient)
    # no native capability: the first CVXPY backend
    assert isinstance(get_backend("auto", _CVXPYOnly()), ClarabelBackend)


def test_missing_capability_names_it_and_suggests_a_backend():
    t = _linear(SmoothHinge(0.5))
    with pytest.raises(ParameterError, match=r"missing capability \['cvxpy'\].*solver='native'"):
        get_backend("clarabel", t)
    with pytest.raises(ParameterError, match=r"missing capability \['cvxpy'\]"):
        SCSBackend().solve(t, None)
    box = BoxQuadratic(np.zeros(3), 1.0)
    with pytest.raises(ParameterError, match=r"missing capability \['smooth'\].*solver='native'"):
        LbfgsNewton().solve(box, None)

    class Bare:
        name, capabilities = "bare", frozenset()

    with pytest.raises(ParameterError, match=r"\['projection'\] or|\['smooth'\] or"):
        get_backend("native", Bare())
    with pytest.raises(ParameterError, match="no registered solver backend"):
        get_backend("auto", Bare())


def test_estimators_accept_auto():
    lin = _linear()
    X, y = lin.X, lin.y
    m = dp.PrivateLogisticRegression(solver="auto", random_state=0).fit(X, y)
    ref = dp.PrivateLogisticRegression(solver="native", random_state=0).fit(X, y)
    np.testing.assert_array_equal(m.coef_, ref.coef_)
    lm = _large_margin()
    Xl = np.random.default_rng(0).normal(size=(lm.n, 2)) * 0.3
    dp.PrivateLargeMarginGaussian(solver="auto", epsilon=2.0, random_state=0).fit(Xl, lm.y)


# ------------------------------------------------------------------ backends


def test_projected_gradient_uses_the_template_projection():
    rng = np.random.default_rng(0)
    t = BoxQuadratic(rng.normal(size=8) * 2.0, mu=0.5)
    b = rng.normal(size=8) * 5.0
    for extra in (0.0, 0.3):
        res = solve(t, b, extra, solver="native")
        assert res.status == SolveStatus.OPTIMAL and res.residual <= 1e-8
        np.testing.assert_allclose(res.x, t.closed_form(b, extra), atol=1e-9)
        assert np.all(np.abs(res.x) <= 1.0)
    assert solve(t, b, 0.0, solver="auto").solver == "native"


def test_polished_backend_polishes_an_inaccurate_first_solve(monkeypatch):
    lm = _large_margin(K=2, C=3, n=90)
    b = np.random.default_rng(1).normal(size=lm.noise_shape)

    def sloppy(self, template, b, extra_reg, *, warm_start=None, max_iter=None):
        x = np.zeros(template.noise_shape)
        return SolveResult(x, SolveStatus.INACCURATE, 0.0, 1e-3, "clarabel", seconds=0.5)

    monkeypatch.setattr(ClarabelBackend, "solve", sloppy)
    res = PolishedBackend(ClarabelBackend(), ProjectedGradient()).solve(lm, b, 0.1)
    assert res.solver == "clarabel+native"
    assert res.info["polished_from"]["residual"] == 1e-3 and res.seconds >= 0.5
    assert res.residual <= lm.residual_tol
    ref = solve(lm, b, 0.1, solver="native")
    assert np.max(np.abs(res.x - ref.x)) <= 1e-6


def test_noise_is_projected_onto_the_noise_subspace():
    lm = _large_margin()
    b = np.random.default_rng(2).normal(size=lm.noise_shape)
    sym = 0.5 * (b + np.swapaxes(b, -1, -2))
    np.testing.assert_array_equal(solve(lm, b, 0.0, solver="native").x,
                                  solve(lm, sym, 0.0, solver="native").x)
    solve(lm, b, 0.0, solver="clarabel")
    B = lm.cvxpy_problem()["B"]
    np.testing.assert_array_equal(np.array([[P.value for P in row] for row in B]), sym)


def test_cvxpy_backends_report_residuals_computed_by_dpconvex():
    t = _linear(HuberHinge(0.5))
    b = np.random.default_rng(3).normal(size=t.p)
    for name in ("clarabel", "scs"):
        r = solve(t, b, 0.2, solver=name)
        assert r.residual == pytest.approx(t.residual(r.x, b, 0.2), rel=0, abs=0)
        assert r.objective == t.objective(r.x, b, 0.2)[0]
        assert r.info["raw_status"] in CVXPY_STATUS_MAP


# --------------------------------------------------------------- regularizers


def test_the_regularizer_is_the_one_source_of_mu():
    lin, lm = _linear(), _large_margin(lam=0.03)
    assert isinstance(lin.regularizer, L2) and isinstance(lm.regularizer, Frobenius)
    assert lin.privacy_constants().strong_convexity == lin.regularizer.strong_convexity == 1e-2
    assert lm.privacy_constants().strong_convexity == lm.regularizer.strong_convexity == 0.03
    assert REGULARIZERS == {"l2": L2, "frobenius": Frobenius}


@pytest.mark.parametrize("reg", [L2(0.3), Frobenius(0.3)], ids=repr)
def test_regularizer_gradient_and_modulus(reg):
    rng = np.random.default_rng(4)
    w, v = rng.normal(size=(2, 6))
    h = 1e-6
    fd = (reg.value(w + h * v) - reg.value(w - h * v)) / (2 * h)
    assert fd == pytest.approx(float(reg.grad(w) @ v), rel=1e-8)
    # a quadratic: strongly convex with exactly its modulus
    gap = reg.value(v) - reg.value(w) - reg.grad(w) @ (v - w)
    assert gap == pytest.approx(0.5 * reg.strong_convexity * np.sum((v - w) ** 2), rel=1e-10)
    import cvxpy as cp

    x = cp.Variable(6, value=w)
    assert float(reg.cvxpy_expr(x).value) == pytest.approx(reg.value(w), rel=1e-12)


# ------------------------------------------------------------ the contract


def _examples():
    """One small instance per registered template class (every class needs one here)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 3))
    X /= 2 * np.linalg.norm(X, axis=1)[:, None]
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    builders = {
        "LinearERMTemplate": lambda: LinearERMTemplate(Logistic(), 0.1, 1.0, X, y),
        "LargeMarginGaussianTemplate": lambda: LargeMarginGaussianTemplate.from_features(
            X, (y > 0).astype(int), data_norm=1.0, n_classes=2, lam=0.1),
    }
    return {name: builders.get(cls.__name__) for name, cls in TEMPLATES.items()}


@pytest.mark.parametrize("name", sorted(TEMPLATES))
def test_every_registered_template_has_every_member_it_promises(name):
    build = _examples()[name]
    assert build is not None, f"add an example instance of {name!r} to _examples()"
    t = build()
    assert type(t) is TEMPLATES[name] and t.name == name
    assert missing_members(t) == []
    assert set(t.capabilities) <= set(CAPABILITY_MEMBERS)
    assert t.noise_shape == t.space.shape
    assert t.space.dimension == t.privacy_constants().dimension


def test_missing_members_reports_what_is_absent():
    class Half:
        name, kind, n, capabilities = "half", "test", 1, frozenset({"cvxpy"})
        space = EuclideanSpace((2,))

    missing = missing_members(Half())
    assert "conditions" in missing and "cvxpy_problem" in missing and "residual_tol" in missing


def test_code_uses_only_declared_template_members():
    """grep: every ``template.<member>`` in the release, mechanisms, verifier and solvers is
    declared in templates/base.py (core, capability or parameter-space members)."""
    declared = set(TEMPLATE_MEMBERS).union(*CAPABILITY_MEMBERS.values())
    space_declared = set(PARAM_SPACE_MEMBERS) | {"project_noise"}
    files = [*PACKAGE.joinpath("solvers").glob("*.py"), *PACKAGE.joinpath("privacy").rglob("*.py"),
             PACKAGE / "mechanisms.py", PACKAGE / "verify.py"]
    used, space_used = {}, {}
    for f in files:
        if not f.exists():
            continue
        code = f.read_text()
        for m in re.finditer(r"\btemplate\.([A-Za-z_]\w*)", code):
            used.setdefault(m.group(1), f.name)
        for m in re.finditer(r"\btemplate\.space\.([A-Za-z_]\w*)", code):
            space_used.setdefault(m.group(1), f.name)
    assert len(used) >= 10, "the grep found too little: did the layout change?"
    undeclared = {k: v for k, v in used.items() if k not in declared}
    assert not undeclared, f"template members used but not declared in templates/base.py: {undeclared}"
    undeclared = {k: v for k, v in space_used.items() if k not in space_declared}
    assert not undeclared, f"space members used but not declared: {undeclared}"


def test_no_template_chooses_or_calls_a_solver():
    """Templates state problems; only the release pipeline reaches the solver registry."""
    for f in PACKAGE.joinpath("templates").glob("*.py"):
        code = f.read_text()
        assert "from ..solvers" not in code, f.name
        assert "import dpconvex.solvers" not in code, f.name
