"""Every registered template × loss × mechanism × backend, derived from the registries.

The combinations come from ``TEMPLATES``, ``LOSSES``, ``MECHANISMS`` and the solver
``BACKENDS``: a newly registered one is tested here without editing this file (a new
template needs a builder in :data:`BUILDERS`, which a test demands).

A combination is *offered* when the estimators that release the template offer the mechanism
on their menu (``build_mechanism(name, owner, menu)``, also with ``optimality_tol``: the
approximate-minima wrappers) and the backend supports the template (``suitable_backends``). An offered
combination releases a finite point whose certificate names the mechanism and spends exactly
the budget asked; the others are refused with a named :class:`~dpconvex.errors.DPConvexError`,
never a raw exception. Refusals of offered combinations are declared in
:data:`OFFERED_BUT_REFUSED` with their reason.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

from dpconvex.data.preprocess import augment_and_scale
from dpconvex.errors import DPConvexError, ParameterError, PrivacyError
from dpconvex.estimators.centroids import CENTROID_MENU
from dpconvex.estimators.gaussian_nb import PrivateGaussianNB
from dpconvex.estimators.large_margin.learners import LARGE_MARGIN_MENU
from dpconvex.estimators.linear import LINEAR_MENU
from dpconvex.estimators.ssp import SSP_MENU
from dpconvex.objectives.losses import LOSSES, Loss
from dpconvex.privacy.budget import Budget
from dpconvex.privacy.mechanisms import MECHANISMS, Mechanism, MechanismMenu, build_mechanism
from dpconvex.privacy.release import release
from dpconvex.solvers import BACKENDS, CVXPYBackend, suitable_backends
from dpconvex.templates import TEMPLATES
from dpconvex.templates.large_margin import LargeMarginGaussianTemplate
from dpconvex.templates.linear_erm import LinearERMTemplate

EPSILON, DELTA = 5.0, 1e-5
#: The approximate-minima wrappers' residual tolerance (``optimality_tol``).
AMP_TOL = 1e-6


def _records() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 3))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    return X, np.where(X[:, 0] + 0.3 * rng.standard_normal(60) > 0, 1.0, -1.0)


def _linear(loss: Loss) -> LinearERMTemplate:
    X, y = _records()
    return LinearERMTemplate(loss, 0.5, 1.0, X, y)


def _pairwise(loss: Loss) -> LargeMarginGaussianTemplate:
    # lam = 4 on these records: Clarabel meets the residual tolerance (1e-6) for every loss
    # on every OpenBLAS core type tried (Haswell, Sandybridge, Prescott, Nehalem: <= 5.3e-7);
    # its accuracy depends on the CPU (at lam = 1 the logistic loss reached 1.2e-6 on Sandybridge)
    X, y = _records()
    return LargeMarginGaussianTemplate(augment_and_scale(X, 1.0), (y > 0).astype(int),
                                       n_classes=2, lam=4.0, loss=loss)


#: A tiny problem per registered template, from a loss.
BUILDERS: dict[str, Callable[[Loss], Any]] = {
    LinearERMTemplate.name: _linear,
    LargeMarginGaussianTemplate.name: _pairwise,
}

#: (template name, mechanism name) offered for the template's kind but refused (alone and
#: wrapped in approximate minima), with the error and the words the message must hold.
OFFERED_BUT_REFUSED: dict[tuple[str, str], tuple[type[DPConvexError], str]] = {
    # offered for kind "large_margin" for the softmax template, which declares the rank k
    # of one pair's gradient differences; the pairwise template declares none
    (LargeMarginGaussianTemplate.name, "gaussian_objective_lm"):
        (PrivacyError, "gradient_difference_rank"),
}

def _budget(mech: Mechanism) -> Budget:
    if not mech.private:
        return Budget.unlimited()
    return Budget(EPSILON, 0.0 if mech.pure else DELTA)


#: The registry name of each registered mechanism class.
_KEYS = {cls: key for key, cls in MECHANISMS.items()}


def _check_release(template: Any, mech: Mechanism, budget: Budget, backend: str | None,
                   keys: tuple[str, ...]) -> None:
    """Release once; check finiteness, the certificate's mechanism and the budget spent.

    ``keys``: the registry names the certificate states, the release's then (a wrapper's)
    its first part's."""
    rel = release(template, mech, budget, backend, np.random.default_rng(1))
    cert = rel.certificate
    assert rel.theta is not None and rel.theta.size > 0
    assert np.all(np.isfinite(rel.theta))
    names = [getattr(m, "label", "") for m in (mech, getattr(mech, "inner", None)) if m is not None]
    for label in filter(None, names):
        assert label in cert.mechanism
    assert cert.mechanism_name == keys[0]
    if hasattr(mech, "inner"):  # the composition's first part: the inner mechanism's release
        assert cert.parts[0].mechanism_name == keys[1]
    assert cert.mechanism  # and it is this mechanism's certificate:
    assert cert.mechanism == mech.certificate(template, budget, rel.calibration, []).mechanism
    if not mech.private:
        assert not cert.private and not cert.seeded
        assert math.isinf(cert.epsilon)
        return
    assert cert.private
    # the budget asked is the budget spent (numerical calibrations stop within 1e-5 below it)
    assert cert.epsilon_requested == budget.epsilon
    assert budget.epsilon * (1 - 1e-5) <= cert.epsilon <= budget.epsilon
    assert budget.delta * (1 - 1e-5) <= cert.delta <= budget.delta
    if mech.solves:
        assert cert.solver["backend"] == backend


#: The estimators' menus by the kind of template they release (the kinds no estimator offers
#: through ``mechanism=`` have none: their mechanisms are named at the template level).
MENUS: dict[str, MechanismMenu] = {
    "linear_erm": LINEAR_MENU, "large_margin": LARGE_MARGIN_MENU, "centroid": CENTROID_MENU,
    "gaussian_nb": PrivateGaussianNB.mechanism_menu, "linear_ssp": SSP_MENU}


def _offered_as(kind: str) -> dict[str, str]:
    """The ``mechanism=`` names the estimators of ``kind`` accept -> the registry name."""
    return dict(MENUS[kind].offered) if kind in MENUS else {}


#: The backends that solve through CVXPY: one code path (:meth:`CVXPYBackend.solve`, the
#: template's one CVXPY problem), differing in the conic solver and its options.
CVXPY_BACKENDS = tuple(name for name, cls in BACKENDS.items() if issubclass(cls, CVXPYBackend))


def _combinations() -> Iterator[Any]:
    """The parameters of :func:`test_combination`, the repeats on a second CVXPY backend slow.

    Each (template, loss, mechanism, wrapper) runs in the fast tier on every backend outside
    CVXPY and on one CVXPY backend, the CVXPY backends taking turns across the mechanisms of
    a template and loss, so that every CVXPY backend meets every template and loss there. The
    same combination on the other CVXPY backends (the same problem compiled and solved again
    by another conic solver, 0.1 to 0.4 s each) is marked slow.
    """
    turn = 0
    for tname, tcls in TEMPLATES.items():
        offered = set(_offered_as(tcls.kind).values())
        for lname in LOSSES:
            for mname in MECHANISMS:
                tols = (None, AMP_TOL) if (mname in offered and MECHANISMS[mname].private
                                           and MECHANISMS[mname].solves
                                           and MECHANISMS[mname].amp_derived) else (None,)
                # a mechanism that does not solve has no backend to vary
                backends = tuple(BACKENDS) if MECHANISMS[mname].solves else (None,)
                for tol in tols:
                    fast_cvxpy = CVXPY_BACKENDS[turn % len(CVXPY_BACKENDS)]
                    turn += MECHANISMS[mname].solves
                    for bname in backends:
                        wrap = "" if tol is None else "+amp"
                        slow = bname in CVXPY_BACKENDS and bname != fast_cvxpy
                        yield pytest.param(tname, lname, mname, tol, bname,
                                           marks=pytest.mark.slow if slow else (),
                                           id=f"{tcls.kind}-{lname}-{mname}{wrap}-{bname or '-'}")


COMBINATIONS = list(_combinations())


def test_every_registered_template_has_a_builder() -> None:
    assert set(BUILDERS) == set(TEMPLATES)


def test_every_registered_name_is_in_a_combination() -> None:
    seen = {p.values[i] for p in COMBINATIONS for i in range(5)}
    assert set(TEMPLATES) | set(LOSSES) | set(MECHANISMS) | set(BACKENDS) <= seen


def test_every_cvxpy_backend_meets_every_template_and_loss_in_the_fast_tier() -> None:
    fast = {(p.values[0], p.values[1], p.values[4]) for p in COMBINATIONS if not p.marks}
    pairs = {(p.values[0], p.values[1]) for p in COMBINATIONS}
    assert {(t, loss, b) for t, loss in pairs for b in CVXPY_BACKENDS} <= fast


@pytest.mark.parametrize("tname, lname, mname, tol, bname", COMBINATIONS)
def test_combination(tname: str, lname: str, mname: str, tol: float | None,
                     bname: str | None) -> None:
    template = BUILDERS[tname](LOSSES[lname]())
    kind = TEMPLATES[tname].kind
    offered, menu = _offered_as(kind), MENUS.get(kind)
    if mname not in offered.values():
        # not on the menu: the estimators' entry point refuses the name (unless it is the
        # name another mechanism is offered under) ...
        if mname in offered:
            assert build_mechanism(mname, "test", menu).name == offered[mname]
        elif menu is not None:
            with pytest.raises(ParameterError, match="must be one of"):
                build_mechanism(mname, "test", menu, optimality_tol=tol)
        # ... and a template-level release either is a full release or a named refusal
        mech = MECHANISMS[mname]()
        inner = (_KEYS[type(mech.inner)],) if hasattr(mech, "inner") else ()
        try:
            _check_release(template, mech, _budget(mech), bname, (mname, *inner))
        except DPConvexError as exc:
            assert str(exc)
        return
    name = next(k for k, v in offered.items() if v == mname)  # what an estimator is given
    refused = OFFERED_BUT_REFUSED.get((tname, mname))
    if refused is not None:  # refused before any backend is chosen
        with pytest.raises(refused[0], match=refused[1]):
            mech = build_mechanism(name, "test", menu, optimality_tol=tol)
            release(template, mech, _budget(mech), bname, np.random.default_rng(1))
        return
    mech = build_mechanism(name, "test", menu, optimality_tol=tol)
    assert (getattr(mech, "inner", mech)).name == mname
    budget = _budget(mech)
    if mech.solves and bname not in suitable_backends(template):
        with pytest.raises(ParameterError, match="capabilit"):
            release(template, mech, budget, bname, np.random.default_rng(1))
        return
    _check_release(template, mech, budget, bname,
                   (_KEYS[type(mech)], mname) if hasattr(mech, "inner") else (mname,))


@pytest.mark.parametrize("mname", sorted(n for n, m in MECHANISMS.items()
                                         if m.private and m.solves and not m.wraps
                                         and not m.amp_derived))
def test_a_cover_that_is_not_derived_is_refused_by_name(mname: str) -> None:
    """optimality_tol around a mechanism whose approximate-minima cover is not derived."""
    menu = next(m for m in MENUS.values() if mname in m.offered.values())
    name = next(k for k, v in menu.offered.items() if v == mname)
    with pytest.raises(ParameterError, match="cannot be covered"):
        build_mechanism(name, "test", menu, optimality_tol=AMP_TOL)


def test_a_template_without_a_needed_capability_is_refused_by_name() -> None:
    """release refuses, before reading anything, a mechanism the template cannot serve."""
    template = LinearERMTemplate(LOSSES["logistic"](), 0.1, 1.0, np.eye(3), np.ones(3))
    with pytest.raises(PrivacyError, match=r"release: mechanism 'laplace_mean' needs the "
                                           r"template capability \['bounded_sum'\]"):
        release(template, "laplace_mean", Budget(1.0))


@pytest.mark.parametrize("name", ["auto", "centroid", "output", "nonsense"])
def test_a_name_the_large_margin_menu_does_not_build_is_refused_by_name(name):
    """"auto" and the "centroid" route are resolved by the estimator before the menu: given to
    build_mechanism they are refused by name (the offered names listed), never a KeyError; an
    unknown name lists every value the estimator accepts."""
    with pytest.raises(ParameterError, match="must be one of") as info:
        build_mechanism(name, "test", LARGE_MARGIN_MENU)
    listed = str(info.value).split(" Got ")[0]
    assert ("'centroid'" in listed) == (name not in ("auto", "centroid"))
