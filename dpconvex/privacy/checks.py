"""Checks of a privacy proof's conditions: DCP convexity, a loss's bounds on ℝ, a user
template's declared constants (docs/privacy/user_objectives.md#privacy-user-objectives).

A loss's slope and curvature bounds must hold at every margin a release can reach (all of
ℝ: the noise is unbounded), so a derivation establishes them (:func:`check_loss`) and a
probe can only refute them. A shipped loss, as constructed, is not probed at a fit (the
test suite probes the shipped classes); a user's loss is probed once per description of its
code and state (:func:`_loss_description`), and at every check when it cannot be described
by value.

A template dpconvex does not ship (a class written in a notebook, or a subclass of a
shipped one) has each declaration checked against its own functions
(:func:`declaration_conditions`): p against the parameter space; μ against the regularizer
(derived for a shipped one, else probed on pairs of points); G, and with curvature r, c_u
and T, against ``record_gradients`` on records of the public ``record_domain`` at
parameters of norm up to max(:data:`THETA_SCALES`) (Hessians by finite differences while
p <= :data:`HESSIAN_PROBE_MAX_DIM`); that ``objective`` is the mean per-record loss plus
the regularizer and the noise term, with a gradient that is the derivative of its value,
and ``residual`` at least the optimality residual over the space; that a CVXPY form has no
constraint the space lacks and the same objective. The checks that read the template's own
records refuse only false declarations (docs/privacy/user_objectives.md#privacy-vouch).

A probe refutes, it does not prove: the certificate says which constants were probed and
how. A constant nothing can check is "declared, not verified" (:attr:`Condition.unverified`),
which :func:`~dpconvex.privacy.release.release` refuses unless the caller vouches for it
(:func:`vouched`).
"""

from __future__ import annotations

import math
import numbers
import types
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import cvxpy as cp
import numpy as np

from ..errors import DPConvexError, ParameterError, PrivacyError
from ..objectives.atoms import DerivedBounds, derive_bounds
from ..objectives.losses import CVXPYLoss, Loss
from .certificate import Condition

if TYPE_CHECKING:
    from ..templates.base import PrivacyConstants, Template

__all__ = ["FORM_RTOL", "HESSIAN_PROBE_MAX_DIM", "PROBE_RTOL", "THETA_SCALES", "VOUCHABLE",
           "check_dcp_convex", "check_loss", "declaration_conditions", "shipped_derivation",
           "vouched"]

#: Relative tolerance of the numerical probes of declared bounds (G, c_u, T, μ, a loss's
#: |ℓ'|) and of the consistency checks of objective, gradient and residual
#: (double-precision sums of the same terms agree to ~1e-12 relative; 1e-6 leaves room for
#: reordering over many rows).
PROBE_RTOL = 1e-6

#: Relative tolerance (of max(1, |ℓ|)) at which a loss's CVXPY form and its NumPy value
#: must agree at every probe margin: both are double-precision evaluations of the same
#: function, and CVXPY's numeric atoms (``logistic``, ``huber``) agree with NumPy's to
#: ~1e-15 relative; 1e-9 leaves room for a different but exact formula.
FORM_RTOL = 1e-9

#: Margins at which the CVXPY form and the NumPy value are compared.
_FORM_PROBE = np.concatenate([np.linspace(-30.0, 30.0, 241), -np.geomspace(30.0, 1e15, 60),
                              np.geomspace(30.0, 1e15, 60)])


def shipped_derivation(obj: object) -> str | None:
    """Where dpconvex derives the constants of ``obj``, if dpconvex ships its exact class.

    A loss or template class shipped by dpconvex names its derivation in its own
    ``derivation`` attribute (e.g.
    ``"docs/privacy/linear_erm.md#privacy-loss-constants"``). A subclass, or a class
    written elsewhere, is not what the derivation is about: None, and its constants are
    checked as a user's (docs/privacy/user_objectives.md#privacy-user-objectives).

    Examples
    --------
    >>> from dpconvex.objectives import Logistic
    >>> from dpconvex.privacy.checks import shipped_derivation
    >>> shipped_derivation(Logistic())
    'docs/privacy/linear_erm.md#privacy-loss-constants'
    >>> class Mine(Logistic):
    ...     pass
    >>> shipped_derivation(Mine()) is None
    True
    """
    cls = type(obj)
    derivation = cls.__dict__.get("derivation")
    if isinstance(derivation, str) and derivation and cls.__module__.startswith("dpconvex."):
        return derivation
    return None


@contextmanager
def user_code(caller: str, what: str, hint: str) -> Iterator[None]:
    """Report an exception of a user's code (any but a :class:`DPConvexError`) as a
    :class:`PrivacyError`: ``"{caller}: {what}: its code raised ... {hint}"``."""
    try:
        yield
    except DPConvexError:
        raise
    except Exception as exc:
        raise PrivacyError(f"{caller}: {what}: its code raised {type(exc).__name__} ({exc}) "
                           f"{hint}") from None


def check_dcp_convex(expr: cp.Expression, what: str, caller: str = "check_dcp_convex") -> Condition:
    """Convexity of a CVXPY expression by DCP analysis; raises PrivacyError (opened by
    ``caller``) if not convex.

    Examples
    --------
    >>> import cvxpy as cp
    >>> from dpconvex.privacy.checks import check_dcp_convex
    >>> w = cp.Variable(3)
    >>> c = check_dcp_convex(cp.sum_squares(w) + cp.norm1(w), "the objective")
    >>> c.holds, c.how
    (True, 'CVXPY DCP analysis')
    """
    if not expr.is_convex():
        raise PrivacyError(
            f"{caller}: convexity: {what} is not convex under CVXPY's DCP rules, so the privacy "
            "proofs (which need a convex objective) do not apply. Rewrite it with DCP-convex atoms "
            "(see https://www.cvxpy.org/tutorial/dcp/).")
    return Condition("convexity", True, "CVXPY DCP analysis", f"{what} is DCP-convex")


def _probe_grid(kinks: tuple[float, ...]) -> np.ndarray:
    base = np.linspace(-50.0, 50.0, 20001)
    tail = np.geomspace(50.0, 1e6, 2001)  # steps of 0.5 % out to 1e6
    far = np.concatenate([-tail, tail])
    near = [k + s for k in kinks for s in (-1e-3, -1e-6, 0.0, 1e-6, 1e-3)]
    return np.unique(np.concatenate([base, far, np.asarray(near, dtype=float)]))


def _cvxpy_values(loss: Loss, m: np.ndarray) -> np.ndarray:
    return np.asarray(loss.cvxpy_expr(cp.Parameter(m.size, value=m)).value, dtype=float).reshape(-1)


def _check_forms_agree(loss: Loss, caller: str) -> Condition:
    """The CVXPY form and ``value()`` are one function: compared at the probe margins."""
    m = _FORM_PROBE
    try:
        cv = _cvxpy_values(loss, m)
    except Exception as exc:  # a user's form that CVXPY cannot evaluate numerically
        raise PrivacyError(
            f"{caller}: forms: loss '{loss.name}': its CVXPY form cannot be evaluated at fixed "
            f"margins ({type(exc).__name__}: {exc}). Fix cvxpy_expr so that it returns an "
            "elementwise expression of m.") from None
    nv = np.asarray(loss.value(m), dtype=float).reshape(-1)
    bad = ~(np.abs(cv - nv) <= FORM_RTOL * np.maximum(1.0, np.abs(nv)))
    if cv.shape != nv.shape or np.any(bad):
        k = int(np.argmax(bad)) if cv.shape == nv.shape else 0
        raise PrivacyError(
            f"{caller}: forms: loss '{loss.name}': its CVXPY form gives {cv[k]:.6g} at m = "
            f"{m[k]:.4g} but value() gives {nv[k]:.6g}. The CVXPY backends minimize one and the "
            "native solvers the other, and the bounds are checked on the CVXPY form: make "
            "cvxpy_expr and value the same function.")
    far = m[np.abs(m) >= 30.0]
    far = far[[all(abs(x - k) > 1e-3 * max(1.0, abs(x)) for k in loss.kinks) for x in far]]
    h = 1e-4 * np.maximum(1.0, np.abs(far))
    fd = (_cvxpy_values(loss, far + h) - _cvxpy_values(loss, far - h)) / (2 * h)
    d1 = np.asarray(loss.deriv(far), dtype=float).reshape(-1)
    bad = ~(np.abs(fd - d1) <= 1e-4 * np.maximum(1.0, np.abs(fd)))
    if np.any(bad):
        k = int(np.argmax(bad))
        raise PrivacyError(
            f"{caller}: forms: loss '{loss.name}': deriv({far[k]:.4g}) = {d1[k]:.6g}, but the "
            f"slope of its CVXPY form there is {fd[k]:.6g}. The native solvers follow deriv(): "
            "make it the derivative of cvxpy_expr (declare the loss's kinks in `kinks`).")
    return Condition("loss forms agree", True, "numerical comparison",
                     f"CVXPY form = value() within {FORM_RTOL:g} (relative) at {m.size} margins "
                     f"out to |m| = 1e15, and deriv() = its slope at the {far.size} of them with "
                     "|m| >= 30")


def _bound_condition(loss: Loss, what: str, attr: str, declared: float, derived: float | None,
                     derivation: str | None, how_derived: str, observed: float, caller: str
                     ) -> Condition:
    """The condition stating how a declared bound (|ℓ'| or ℓ'') was established on ℝ (an
    unbounded derived slope is refused before, by :func:`_probe_loss`)."""
    if derivation is not None:
        return Condition(what, True, f"derived ({derivation}); numerical probe agrees",
                         f"declared {declared:g} on all of ℝ; max observed on the probe grid "
                         f"{observed:.6g}")
    if derived is None:
        return Condition(
            what, True, "declared, not verified",
            f"declared {declared:g}; no derivation on all of ℝ ({how_derived}); the probe on "
            f"margins in [-1e6, 1e6] found at most {observed:.6g}, which cannot rule out a larger "
            "value beyond it", unverified=attr)
    if not math.isfinite(derived):
        raise PrivacyError(
            f"{caller}: {what}: loss '{loss.name}' has an unbounded curvature on ℝ ({how_derived}), "
            "so no declared bound holds at every margin a release can reach (the noise is "
            "unbounded). Objective perturbation needs a bounded ℓ'' (a kink has none): smooth the "
            "loss (e.g. a Huberized hinge), or use output perturbation, which needs only the "
            "slope bound.")
    if declared < derived * (1 - 1e-12):
        raise PrivacyError(
            f"{caller}: {what}: loss '{loss.name}' declares {declared:.10g}, but the bound derived "
            f"on all of ℝ from its CVXPY form is {derived:.10g} ({how_derived}). Declare {attr} >= "
            f"{derived:.10g} (the {'noise' if attr == 'deriv_bound' else 'Jacobian slack'} "
            "grows with it).")
    return Condition(what, True, "derived on all of ℝ from the CVXPY form's atoms",
                     f"declared {declared:g} >= derived {derived:.6g} ({how_derived})")


_SLOPE_REMEDY = ("Objective and output perturbation need a bounded |ℓ'|: use a Huberized form "
                 "(e.g. cp.huber(cp.pos(1 - m), M), or cp.huber(z - y, M) for regression, whose "
                 "slope is bounded by 2M), or noisy gradient descent, which clips every "
                 "per-record gradient.")


class _AtLabel:
    """A regression loss ℓ(·, y) at one label y, seen as a function of z alone (the probes)."""

    def __init__(self, loss: Loss, y: float):
        self.loss, self.y, self.name, self.has_cvxpy = loss, float(y), loss.name, loss.has_cvxpy
        self.kinks = tuple(self.y + float(k) for k in loss.kinks)

    def __getattr__(self, method: str) -> Any:  # value, deriv, deriv2, value_and_deriv, cvxpy_expr
        fn = getattr(self.loss, method)
        return lambda z: fn(z, np.full(np.shape(z), self.y))


def declared_number(value: Any, *, zero_ok: bool, finite: bool) -> float | None:
    """A declared constant as a float >= 0 (> 0 unless ``zero_ok``, finite when ``finite``);
    None for anything else (a bool, a string, an array, NaN, a number out of its range).

    The one reading of a declared constant: a loss's bounds and a template's constants.

    Examples
    --------
    >>> from dpconvex.privacy.checks import declared_number
    >>> declared_number(0.25, zero_ok=False, finite=True), declared_number(True, zero_ok=False, finite=True)
    (0.25, None)
    >>> declared_number(float("inf"), zero_ok=True, finite=False)
    inf
    """
    if not isinstance(value, numbers.Real) or isinstance(value, (bool, np.bool_)):
        return None
    number = float(value)
    if math.isnan(number) or number < 0 or (number == 0 and not zero_ok) or (
            finite and math.isinf(number)):
        return None
    return number


def _declared(loss: Loss, attr: str, caller: str, *, finite: bool) -> float:
    """A declared bound of ``loss`` (:func:`declared_number`), or a named error."""
    value = getattr(loss, attr, None)
    number = declared_number(value, zero_ok=attr != "deriv_bound", finite=finite)
    if number is None:
        bound = "a finite float > 0" if finite else "a float > 0 (inf: no bound)"
        raise ParameterError(f"{caller}: loss '{getattr(loss, 'name', type(loss).__name__)}' "
                             f"declares {attr} = {value!r}; declare {bound}.")
    return number


def check_loss(loss: Loss, *, need_curvature: bool, caller: str = "check_loss") -> list[Condition]:
    """Establish a margin loss's declared constants on all of ℝ, and check its code.

    The slope bound |ℓ'| <= ``deriv_bound`` (and, with ``need_curvature``, ℓ'' <=
    ``curvature``) must hold at every margin, since a release can reach any margin. Each is
    established by a derivation: docs/privacy/linear_erm.md#privacy-loss-constants for a
    loss dpconvex ships (:func:`shipped_derivation`), else the atom table applied to the
    loss's CVXPY form (:func:`~dpconvex.objectives.atoms.derive_bounds`), which also refuses
    a loss of unbounded slope. A bound with neither is "declared, not verified"
    (``Condition.unverified`` names it; docs/privacy/user_objectives.md#privacy-margin-loss-bounds).

    The loss's code is evaluated at fixed margins only (no data; an exception it raises is
    a :class:`PrivacyError` naming the loss), on a fine grid with points around declared
    kinks and far out: the CVXPY form and ``value()`` agree (:data:`FORM_RTOL`); ``deriv``
    matches finite differences of ``value``, and ``value_and_deriv`` (what the native
    solver calls) matches both; ℓ' is non-decreasing (convexity); and no probe margin
    exceeds a declared bound. A probe refutes, it does not establish: the certificate says
    which did what. ``caller`` (``"LinearERMTemplate.conditions"``) opens the messages.

    Raises
    ------
    ParameterError
        A declared constant that is not a float of the right range.
    PrivacyError
        A violated bound, a mismatch of the loss's forms, or code that fails at the probes.

    Examples
    --------
    >>> import cvxpy as cp
    >>> from dpconvex.objectives import Loss, SmoothHinge
    >>> from dpconvex.privacy.checks import check_loss
    >>> conds = check_loss(SmoothHinge(h=0.5), need_curvature=True)
    >>> for c in conds[-2:]:
    ...     print(c.name, "|", c.how)
    |ℓ'| bound | derived (docs/privacy/linear_erm.md#privacy-loss-constants)
    ℓ'' bound (c) | derived (docs/privacy/linear_erm.md#privacy-loss-constants)
    >>> mine = Loss.from_cvxpy(lambda m: cp.huber(cp.pos(1 - m), 1.0) / 2, name="mine")
    >>> for c in check_loss(mine, need_curvature=True)[:2]:
    ...     print(c.name, "|", c.how)
    loss convexity | numerical probe
    loss forms agree | numerical comparison
    """
    regression = getattr(loss, "kind", "margin") == "regression"
    derivation = _trusted_derivation(loss)
    if derivation is not None:
        _declared(loss, "deriv_bound", caller, finite=True)
        if need_curvature:
            _declared(loss, "curvature", caller, finite=False)
        return _derived_conditions(loss, derivation, need_curvature=need_curvature,
                                   regression=regression)
    described = _loss_description(loss)
    key = None if described is None else (described, bool(need_curvature))
    if key in _PROBED:
        return list(_PROBED[key])
    conds = _probe_loss(loss, regression, need_curvature=need_curvature, caller=caller)
    if key is not None:
        if len(_PROBED) >= _PROBED_SIZE:
            _PROBED.pop(next(iter(_PROBED)))
        _PROBED[key] = tuple(conds)
    return conds


def _probe_loss(loss: Loss, regression: bool, *, need_curvature: bool,
                caller: str) -> list[Condition]:
    """The checks of :func:`check_loss` for a loss not established by a derivation alone."""
    try:
        derived = None if not loss.has_cvxpy else derive_bounds(
            loss.cvxpy_expr, tuple(loss.label_range) if regression else None)
    except Exception:  # a form the table cannot read: nothing is derived
        derived = None
    if derived is not None and not math.isfinite(derived.slope):
        raise PrivacyError(
            f"{caller}: |ℓ'| bound: loss '{loss.name}' has an unbounded slope on ℝ (atoms "
            f"{', '.join(derived.atoms)}), so no declared bound holds at every "
            f"{'prediction' if regression else 'margin'} a release can reach (the noise is "
            f"unbounded). {_SLOPE_REMEDY}")
    _declared(loss, "deriv_bound", caller, finite=True)
    if need_curvature:
        _declared(loss, "curvature", caller, finite=False)
    with user_code(caller, f"loss '{getattr(loss, 'name', type(loss).__name__)}'",
                   "when evaluated at fixed margins. value, deriv, deriv2 and value_and_deriv "
                   "take an array of margins and return an array of the same shape; cvxpy_expr "
                   "returns an elementwise CVXPY expression; kinks is a tuple of floats."):
        if not regression:
            return _check_loss(loss, loss, derived, need_curvature=need_curvature, caller=caller)
        lo, hi = (float(v) for v in loss.label_range)
        conds = [_check_loss(loss, _AtLabel(loss, y), derived, need_curvature=need_curvature,
                             caller=caller) for y in (lo, 0.5 * (lo + hi), hi)][0]
        return conds + [Condition("label range", True, "declared public range; every check "
                                  "above ran at its ends and middle",
                                  f"labels in [{lo:g}, {hi:g}]; bounds derived over all of it")]


def _trusted_derivation(loss: Loss) -> str | None:
    """The derivation of a shipped loss whose state is exactly the parameters its constructor
    validates (``params()``, re-validated by constructing the class from them), else None."""
    derivation = shipped_derivation(loss)
    if derivation is None:
        return None
    params = loss.params()
    if set(vars(loss)) != set(params):
        return None
    try:
        again = type(loss)(**params)
    except Exception:  # a parameter changed to a value the constructor refuses
        return None
    return derivation if again.params() == params else None


def _derived_conditions(loss: Loss, derivation: str, *, need_curvature: bool,
                        regression: bool) -> list[Condition]:
    """The conditions of a shipped loss, each established by its derivation (no probe)."""
    how = f"derived ({derivation})"
    conds = [Condition("loss convexity", True, how, "ℓ'' >= 0 on all of ℝ (ℓ' non-decreasing)")]
    if loss.has_cvxpy:
        conds.append(Condition("loss forms agree", True, how,
                               "cvxpy_expr and value() state one function of the "
                               f"{'prediction' if regression else 'margin'} (the shipped class; "
                               "its forms are compared at fixed margins by dpconvex's tests)"))
    conds.append(Condition("|ℓ'| bound", True, how, f"declared {float(loss.deriv_bound):g} on all of ℝ"))
    if need_curvature:
        conds.append(Condition("ℓ'' bound (c)", True, how, f"declared {float(loss.curvature):g} on all of ℝ"))
    if regression:
        lo, hi = loss.label_range
        conds.append(Condition("label range", True, "declared public range; the derivation "
                               "holds for every label in it",
                               f"labels in [{lo:g}, {hi:g}]; bounds derived over all of it"))
    return conds


#: Conditions of the user losses already probed, by (description, need_curvature): at most
#: :data:`_PROBED_SIZE`, the oldest dropped first.
_PROBED: dict[Any, tuple[Condition, ...]] = {}
_PROBED_SIZE = 64


class _NoDescription(Exception):
    """A value with no immutable description (the loss is probed at every check)."""


def _describe(value: Any, seen: frozenset[int] = frozenset()) -> Any:
    """A hashable description of ``value`` that changes when what it computes may change:
    containers and arrays by value; functions by code, defaults, closure and the globals they
    read; library modules and classes by identity, other classes with their attributes. An
    object with its own mutable state has none (:class:`_NoDescription`)."""
    if id(value) in seen:
        return ("cycle",)
    seen = seen | {id(value)}
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes, np.generic)):
        return (type(value), value)
    if isinstance(value, (tuple, list)):
        return (type(value), tuple(_describe(v, seen) for v in value))
    if isinstance(value, (set, frozenset)):
        return (type(value), frozenset(_describe(v, seen) for v in value))
    if isinstance(value, dict):
        return (dict, tuple(sorted(((repr(k), _describe(v, seen)) for k, v in value.items()),
                                   key=lambda kv: kv[0])))
    if isinstance(value, np.ndarray):
        return (np.ndarray, value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, (types.ModuleType, types.BuiltinFunctionType, np.ufunc)):
        return ("id", value)
    if isinstance(value, (staticmethod, classmethod)):
        return (type(value), _describe(value.__func__, seen))
    if isinstance(value, property):
        return (property, _describe(value.fget, seen), _describe(value.fset, seen))
    if isinstance(value, types.FunctionType):
        names: set[str] = set()
        stack = [value.__code__]
        while stack:  # the names read by the function and the functions defined in it
            code = stack.pop()
            names.update(code.co_names)
            stack.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
        glob = tuple((name, _describe(value.__globals__[name], seen)) for name in sorted(names)
                     if name in value.__globals__)
        return (types.FunctionType, value.__code__, _describe(value.__defaults__, seen),
                _describe(value.__kwdefaults__, seen),
                tuple(_describe(c.cell_contents, seen) for c in value.__closure__ or ()), glob)
    if isinstance(value, type):
        if _is_library(value):
            return ("id", value)
        return ("class", value, tuple((name, _describe(attr, seen))
                                      for name, attr in sorted(vars(value).items())
                                      if name not in ("__dict__", "__weakref__", "__doc__")))
    raise _NoDescription(type(value).__name__)


def _is_library(cls: type) -> bool:
    module = getattr(cls, "__module__", "") or ""
    return module.split(".")[0] in ("builtins", "dpconvex", "numpy", "scipy", "cvxpy")


def _loss_description(loss: Loss) -> Any:
    """An immutable description of everything the checks of a user's loss read, or None.

    Its class with the attributes of its non-library classes, and its instance attributes
    (:func:`_describe`); a :class:`CVXPYLoss`'s compiled form, derived bounds and smoothing
    record are built from the described ``fn``. A loss dpconvex states in CVXPY (the Huber
    hinge, the pinball loss) left as its constructor built it is described by its class and
    parameters. None (probe at every check) when a part has no description.
    """
    # a dpconvex class's own description only: a user's class may define a method of that name
    shipped = (getattr(type(loss), "description", None)
               if type(loss).__module__.startswith("dpconvex.") else None)
    if callable(shipped) and (key := shipped(loss)) is not None:
        return key
    skip = ("_form", "derived", "smoothed_kinks") if isinstance(loss, CVXPYLoss) else ()
    try:
        return (type(loss),
                tuple(_describe(cls) for cls in type(loss).__mro__ if not _is_library(cls)),
                tuple((name, _describe(value)) for name, value in sorted(vars(loss).items())
                      if name not in skip))
    except _NoDescription:
        return None


def _check_loss(loss: Loss, code: Any, derived: DerivedBounds | None, *, need_curvature: bool,
                caller: str = "check_loss") -> list[Condition]:
    """The probes of :func:`check_loss` on ``code`` (the loss, or a regression loss at a label)."""
    conds: list[Condition] = []
    m = _probe_grid(tuple(float(k) for k in code.kinks))
    d1 = np.asarray(code.deriv(m), dtype=float)
    v = np.asarray(code.value(m), dtype=float)
    if d1.shape != m.shape or v.shape != m.shape:
        raise PrivacyError(f"{caller}: loss '{loss.name}': value() and deriv() must return an array "
                           "of the margins' shape. Make them elementwise.")
    if not (np.all(np.isfinite(d1)) and np.all(np.isfinite(v))):
        raise PrivacyError(f"{caller}: loss '{loss.name}': value or derivative is not finite on "
                           "the probe grid. Fix the loss's value() and deriv().")
    # derivative consistent with value (central differences on the interior grid)
    hstep = 1e-5
    mi = np.linspace(-20.0, 20.0, 4001)
    v0 = np.asarray(code.value(mi), dtype=float)
    left = (v0 - np.asarray(code.value(mi - hstep), dtype=float)) / hstep
    right = (np.asarray(code.value(mi + hstep), dtype=float) - v0) / hstep
    fd = 0.5 * (left + right)
    # a kink: any slope between the one-sided ones is a subgradient
    tol = 1e-4 * max(1.0, float(np.max(np.abs(fd))))
    given = np.asarray(code.deriv(mi), dtype=float)
    err = np.maximum(np.minimum(left, right) - given, given - np.maximum(left, right))
    if np.max(err) > tol:
        k = int(np.argmax(err))
        raise PrivacyError(
            f"{caller}: derivative: loss '{loss.name}' declares deriv({mi[k]:.4g}) = "
            f"{float(np.ravel(code.deriv(mi[k:k + 1]))[0]):.6g} but finite differences of value "
            f"give {fd[k]:.6g}. Fix the loss's deriv() so the declared bounds are about the "
            "real derivative.")
    # the fused value_and_deriv the solvers use is the same function
    vf, df = (np.asarray(a, dtype=float) for a in code.value_and_deriv(m))
    bad = ~(np.isclose(vf, v, rtol=1e-10, atol=1e-300) & np.isclose(df, d1, rtol=1e-10, atol=1e-15))
    if np.any(bad):
        k = int(np.argmax(bad))
        raise PrivacyError(
            f"{caller}: value_and_deriv: loss '{loss.name}' returns ({float(vf[k]):.6g}, "
            f"{float(df[k]):.6g}) at m = {m[k]:.4g}, but value() and deriv() give "
            f"({float(v[k]):.6g}, {float(d1[k]):.6g}). Fix value_and_deriv (or remove it) so the "
            "solver minimizes the loss whose bounds were checked.")
    # convexity: derivative non-decreasing
    dd = np.diff(d1)
    if np.min(dd) < -1e-9:
        k = int(np.argmin(dd))
        raise PrivacyError(
            f"{caller}: convexity: loss '{loss.name}' has a decreasing derivative near m = {m[k]:.4g} "
            "(the numerical probe found it non-convex). Use a convex loss.")
    conds.append(Condition("loss convexity", True, "numerical probe",
                           f"ℓ' non-decreasing on {m.size} margins in [-1e6, 1e6]"))
    derivation = shipped_derivation(loss)
    if derivation is not None and {"deriv_bound", "curvature"} & set(vars(loss)):
        derivation = None  # an instance that redeclares a shipped class's bound
    if loss.has_cvxpy:
        conds.append(_check_forms_agree(code, caller))
    how = ("no CVXPY form" if not loss.has_cvxpy else
           "its CVXPY form uses an atom outside dpconvex.objectives.atoms.ATOMS" if derived is None
           else "atoms " + ", ".join(derived.atoms))
    # derivative bound: a probe refutes first, then the derivation establishes
    obs = float(np.max(np.abs(d1)))
    if obs > loss.deriv_bound * (1 + PROBE_RTOL):
        k = int(np.argmax(np.abs(d1)))
        raise PrivacyError(
            f"{caller}: derivative bound: loss '{loss.name}' declares |ℓ'| <= {loss.deriv_bound:g}, "
            f"but the numerical probe found |ℓ'({m[k]:.4g})| = {obs:.6g}. Declare deriv_bound >= "
            f"{obs:.6g} (the noise scales with it) or bound the loss's slope.")
    conds.append(_bound_condition(loss, "|ℓ'| bound", "deriv_bound", float(loss.deriv_bound),
                                  None if derived is None else derived.slope, derivation, how, obs,
                                  caller))
    if need_curvature:
        c = float(loss.curvature)
        d2 = np.asarray(code.deriv2(m), dtype=float)
        fd2 = np.diff(d1) / np.diff(m)
        obs2 = float(max(np.max(d2), np.max(fd2)))
        if np.min(d2) < -1e-12:
            raise PrivacyError(
                f"{caller}: convexity: loss '{loss.name}' declares a negative second derivative "
                f"({np.min(d2):.3g}). Use a convex loss.")
        if not math.isfinite(c) and getattr(loss, "has_kinks", False):
            raise PrivacyError(
                f"{caller}: curvature bound: loss '{loss.name}' has kinks (pos, abs, maximum or "
                "minimum), where ℓ'' is unbounded, and objective perturbation needs a bounded "
                "ℓ''. Smooth them: Loss.from_cvxpy(..., smoothing=h) with a half-width h > 0, or "
                "smoothing='auto' through an estimator (it chooses h with Λ); or use output "
                "perturbation, which needs only the slope bound.")
        if not math.isfinite(c) or obs2 > c * (1 + 1e-3) + 1e-12:
            raise PrivacyError(
                f"{caller}: curvature bound: loss '{loss.name}' declares ℓ'' <= {c:g}, but the "
                f"numerical probe found {obs2:.6g}. Declare curvature >= {obs2:.6g} (the Jacobian "
                "slack scales with it).")
        conds.append(_bound_condition(loss, "ℓ'' bound (c)", "curvature", c,
                                      None if derived is None else derived.curvature, derivation,
                                      how, obs2, caller))
    return conds


#: The constants a caller may vouch for (``vouch=``), as :attr:`Condition.unverified` names
#: them (a cell-sum row bound: ``"data_norm"``).
VOUCHABLE: tuple[str, ...] = ("deriv_bound", "curvature", "grad_bound", "hessian", "cvxpy_form",
                              "distance_bound", "sensitivity", "data_norm")

#: Norms of the parameter points at which per-record gradients are probed: from 0 to far
#: beyond any minimizer a release is likely to reach (the noise is unbounded).
THETA_SCALES: tuple[float, ...] = (0.0, 1e-2, 1.0, 10.0, 1e2, 1e4, 1e8)

#: Largest parameter dimension at which per-record Hessians are probed by finite differences
#: (2p gradient evaluations per point).
HESSIAN_PROBE_MAX_DIM = 64

#: Rows per chunk when a check sums per-record gradients over the template's own records.
_CHUNK = 8192


def _probe_rng() -> np.random.Generator:
    # the probe's points are public and reproducible; nothing here is noise of a release
    return np.random.default_rng(20_111)


def _probe_records(domain: Any) -> tuple[np.ndarray, np.ndarray]:
    """Records of the public domain: rows of norm q and q/2 (random directions and the
    coordinate axes), each with every probe label."""
    d, q = int(domain.n_features), float(domain.data_norm)
    rng = _probe_rng()
    unit = [Z / np.maximum(np.linalg.norm(Z, axis=1, keepdims=True), 1e-300)
            for Z in (rng.normal(size=(24, d)), rng.normal(size=(8, d)))]
    axes = np.eye(d)[: min(d, 8)] * q
    R = np.vstack([q * unit[0], 0.5 * q * unit[1], axes, -axes])
    labels = domain.probe_labels()
    return np.repeat(R, len(labels), axis=0), np.tile(np.asarray(labels, dtype=float), R.shape[0])


def _theta_points(shape: tuple[int, ...]) -> list[np.ndarray]:
    rng = _probe_rng()
    out = []
    for scale in THETA_SCALES:
        for _ in range(1 if scale == 0.0 else 2):
            t = rng.normal(size=shape)
            out.append(scale * t / max(float(np.linalg.norm(t)), 1e-300))
    return out


def _caller_name(template: Template) -> str:
    return getattr(template, "name", type(template).__name__)


def _unverified(name: str, constant: str, detail: str) -> Condition:
    return Condition(name, True, "declared, not verified", detail, unverified=constant)


def _check_grad_bound(template: Template, consts: PrivacyConstants, caller: str) -> Condition:
    domain, G, worst = template.record_domain, float(consts.grad_bound), 0.0
    X, y = _probe_records(domain)
    points = _theta_points(tuple(template.space.shape))
    for theta in points:
        grads = np.asarray(template.record_gradients(theta, X, y), dtype=float)
        norms = np.linalg.norm(grads.reshape(grads.shape[0], -1), axis=1)
        if not np.all(np.isfinite(norms)):
            raise PrivacyError(f"{caller}: G: record_gradients of template '{_caller_name(template)}' "
                               "is not finite on a record of its public domain. Fix it.")
        worst = max(worst, float(np.max(norms, initial=0.0)))
    if worst > G * (1 + PROBE_RTOL):
        raise PrivacyError(
            f"{caller}: G: template '{_caller_name(template)}' declares a per-record gradient "
            f"bound G = {G:g}, but record_gradients gives {worst:.6g} on a record of its public "
            f"domain (rows of norm <= {float(domain.data_norm):g}). Declare grad_bound >= "
            f"{worst:.6g} (the noise scales with it), or bound the loss's slope.")
    return Condition("G (per-record gradient bound)", True,
                     "numerical probe of record_gradients on the public record domain",
                     f"declared {G:g}; at most {worst:.6g} over {X.shape[0]} records x "
                     f"{len(points)} parameter points of norm up to {max(THETA_SCALES):g} (a probe "
                     "refutes a bound, it does not prove one)")


_HESSIAN = "Hessian rank r, term bound c_u, trace T"


def _check_hessians(template: Template, consts: PrivacyConstants, caller: str) -> Condition:
    shape = tuple(template.space.shape)
    p = int(np.prod(shape))
    r, c_u = int(consts.hessian_rank), float(consts.hessian_term_bound)
    T = c_u * r if consts.hessian_trace_bound is None else float(consts.hessian_trace_bound)
    if p > HESSIAN_PROBE_MAX_DIM:
        return _unverified(_HESSIAN, "hessian", f"declared r = {r}, c_u = {c_u:g}, T = {T:g}; "
                           f"p = {p} > {HESSIAN_PROBE_MAX_DIM}: not probed")
    X, y = _probe_records(template.record_domain)
    X, y = X[::3], y[::3]
    worst_eig, worst_trace, worst_rank, lowest = 0.0, 0.0, 0, 0.0
    for theta in _theta_points(shape)[:7]:
        h = 1e-5 * max(1.0, float(np.linalg.norm(theta)))
        cols = []
        for j in range(p):
            e = np.zeros(p)
            e[j] = h
            gp = np.asarray(template.record_gradients(theta + e.reshape(shape), X, y), dtype=float)
            gm = np.asarray(template.record_gradients(theta - e.reshape(shape), X, y), dtype=float)
            cols.append(((gp - gm) / (2 * h)).reshape(X.shape[0], p))
        H = np.stack(cols, axis=2)
        H = 0.5 * (H + np.transpose(H, (0, 2, 1)))
        eig = np.linalg.eigvalsh(H)
        worst_eig = max(worst_eig, float(eig.max(initial=0.0)))
        lowest = min(lowest, float(eig.min(initial=0.0)))
        worst_trace = max(worst_trace, float(np.max(np.trace(H, axis1=1, axis2=2), initial=0.0)))
        worst_rank = max(worst_rank, int(np.max(np.sum(eig > 1e-4 * max(1.0, c_u), axis=1), initial=0)))
    name = _caller_name(template)
    if lowest < -1e-4 * max(1.0, c_u):
        raise PrivacyError(f"{caller}: convexity: template '{name}': a per-record loss Hessian "
                           f"has eigenvalue {lowest:.3g} < 0 (finite differences of "
                           "record_gradients). Use a convex loss.")
    if worst_eig > c_u * (1 + 1e-3) + 1e-6 or worst_trace > T * (1 + 1e-3) + 1e-6 or worst_rank > r:
        raise PrivacyError(
            f"{caller}: Hessian: template '{name}' declares r = {r}, c_u = {c_u:g}, T = {T:g}, "
            f"but finite differences of record_gradients give rank {worst_rank}, largest "
            f"eigenvalue {worst_eig:.6g}, trace {worst_trace:.6g}. Declare constants at least "
            "these (the Jacobian slack grows with them).")
    return Condition(_HESSIAN, True, "numerical probe: finite differences of record_gradients "
                     "on the public record domain",
                     f"declared r = {r}, c_u = {c_u:g}, T = {T:g}; observed rank <= {worst_rank}, "
                     f"eigenvalue <= {worst_eig:.6g}, trace <= {worst_trace:.6g} (a probe refutes, "
                     "it does not prove)")


def _check_modulus(template: Template, consts: PrivacyConstants, caller: str) -> Condition:
    reg = template.regularizer
    mu = float(consts.strong_convexity)
    derivation = shipped_derivation(reg)
    name = _caller_name(template)
    if derivation is not None:
        have = float(reg.strong_convexity)
        if mu > have * (1 + 1e-12):
            raise PrivacyError(f"{caller}: strong convexity: template '{name}' declares mu = "
                               f"{mu:g}, but its regularizer {reg!r} is {have:g}-strongly convex. "
                               "Declare the regularizer's modulus.")
        return Condition("strong convexity mu", True, f"derived from the regularizer ({derivation})",
                         f"declared {mu:g} <= {reg!r}'s modulus {have:g}")
    rng, shape, low = _probe_rng(), tuple(template.space.shape), math.inf
    for scale in (1e-2, 1.0, 1e2, 1e4):
        a, b = scale * rng.normal(size=shape), scale * rng.normal(size=shape)
        diff = (a - b).ravel()
        gap = float(np.dot((np.asarray(reg.grad(a)) - np.asarray(reg.grad(b))).ravel(), diff))
        low = min(low, gap / float(diff @ diff))
    if low < mu * (1 - PROBE_RTOL):
        raise PrivacyError(f"{caller}: strong convexity: template '{name}' declares mu = {mu:g}, "
                           f"but its regularizer's gradient gives a modulus as low as {low:.6g}. "
                           "Declare the regularizer's real modulus.")
    return Condition("strong convexity mu", True, "numerical probe of the regularizer's gradient",
                     f"declared {mu:g}; <grad R(a) - grad R(b), a - b> / ||a - b||^2 >= {low:.6g} "
                     "at the probed pairs (a probe refutes, it does not prove)")


def _check_records(template: Template, caller: str) -> Condition:
    """The template's own records lie in its public record domain, and there are n of them.

    Reads the records (one pass) only to refuse a template whose declarations are false:
    the message names no statistic of them.
    """
    domain = template.record_domain
    name = _caller_name(template)
    X, y = template.X, np.asarray(template.y, dtype=float).reshape(-1)
    rows, cols = X.shape
    if rows != int(template.n) or y.size != rows:
        raise PrivacyError(f"{caller}: records: template '{name}' declares n = {template.n}, but "
                           "its X and y hold another number of records. Declare n as the number "
                           "of records (every noise scale divides by it).")
    if cols != int(domain.n_features):
        raise PrivacyError(f"{caller}: records: template '{name}': its rows have {cols} entries, "
                           f"its record_domain {int(domain.n_features)}. Make them agree.")
    q = float(domain.data_norm)
    top = 0.0
    for start in range(0, rows, _CHUNK):
        block = X[start:start + _CHUNK]
        block = block.toarray() if hasattr(block, "toarray") else np.asarray(block, dtype=float)
        top = max(top, float(np.max(np.linalg.norm(block, axis=1), initial=0.0)))
    if not top <= q * (1 + 1e-12):
        raise PrivacyError(f"{caller}: records: template '{name}' has rows of norm above its "
                           f"record_domain's bound q = {q:g}. Clip the rows to q before building "
                           "the template.")
    if domain.labels is not None:
        inside = np.isin(y, np.asarray(domain.labels, dtype=float))
    else:
        lo, hi = (float(v) for v in domain.label_range)
        inside = (y >= lo) & (y <= hi)
    if not bool(np.all(inside)):
        raise PrivacyError(f"{caller}: records: template '{name}' has labels outside its "
                           "record_domain. Encode the labels into the domain, or declare the "
                           "domain they come from.")
    return Condition("records in the public record domain", True, "checked on every record",
                     f"n = {rows} records, rows of norm <= q = {q:g}, labels in the domain")


def _mean_record_gradient(template: Template, theta: np.ndarray) -> np.ndarray:
    X, y = template.X, np.asarray(template.y)
    n = X.shape[0]
    total = np.zeros(theta.size)
    for start in range(0, n, _CHUNK):
        block = np.asarray(template.record_gradients(theta, X[start:start + _CHUNK],
                                                     y[start:start + _CHUNK]), dtype=float)
        total += block.reshape(block.shape[0], -1).sum(axis=0)
    return total.reshape(theta.shape) / n


def _check_objective(template: Template, caller: str) -> list[Condition]:
    """objective = mean per-record loss + R + ⟨b, θ⟩/n (gradients compared), its value and
    gradient agree, and the residual is at least the optimality residual over the space."""
    from ..templates.base import natural_residual

    name = _caller_name(template)
    shape, rng, n = tuple(template.space.shape), _probe_rng(), int(template.n)
    theta = rng.normal(size=shape)
    b = rng.normal(size=shape)
    value, grad = template.objective(theta, b, 0.0)
    grad = np.asarray(grad, dtype=float).reshape(shape)
    conds = []
    if "per_record" in template.capabilities:
        expect = (_mean_record_gradient(template, theta) + np.asarray(template.regularizer.grad(theta))
                  .reshape(shape) + b / n)
        err = float(np.linalg.norm(grad - expect))
        if err > PROBE_RTOL * max(1.0, float(np.linalg.norm(expect))):
            raise PrivacyError(
                f"{caller}: objective: template '{name}': the gradient of objective() is not the "
                "mean of record_gradients over its records plus the regularizer's gradient and "
                "b/n. The constants are checked on record_gradients and the solvers minimize "
                "objective(): make them the same objective.")
        conds.append(Condition("objective = mean per-record loss + regularizer + noise term", True,
                               "numerical comparison of gradients on the template's records",
                               f"agree within {PROBE_RTOL:g} (relative)"))
    delta = 0.37  # Δ of objective perturbation: the term ((λ + Δ)/2)||θ||² must grow by (Δ/2)||θ||²
    value_d, grad_d = template.objective(theta, b, delta)
    grad_d = np.asarray(grad_d, dtype=float).reshape(shape)
    shift = delta * theta
    if (float(np.linalg.norm(grad_d - grad - shift)) > PROBE_RTOL * max(1.0, float(np.linalg.norm(shift)))
            or abs(value_d - value - 0.5 * delta * float(np.vdot(theta, theta)))
            > PROBE_RTOL * max(1.0, abs(float(value_d)))):
        raise PrivacyError(
            f"{caller}: objective: template '{name}': objective(theta, b, extra_reg) does not add "
            "(extra_reg/2)||theta||^2 to the objective (and extra_reg*theta to its gradient). "
            "Objective perturbation's extra strong convexity Δ is passed as extra_reg; a template "
            "that ignores it is solved with less strong convexity than its calibration assumes.")
    if float(template.residual(theta, b, delta)) < natural_residual(
            theta, grad_d, template.space.project) * (1 - PROBE_RTOL):
        raise PrivacyError(
            f"{caller}: residual: template '{name}': residual(theta, b, extra_reg) is below the "
            "optimality residual of the objective with extra_reg: return at least "
            "||θ - Π(θ - ∇J(θ))|| for the objective it is given.")
    direction = rng.normal(size=shape)
    direction /= float(np.linalg.norm(direction))
    h = 1e-4
    vp = template.objective(theta + h * direction, b, 0.0)[0]
    vm = template.objective(theta - h * direction, b, 0.0)[0]
    fd, slope = (vp - vm) / (2 * h), float(np.sum(grad * direction))
    if abs(fd - slope) > 1e-4 * max(1.0, abs(fd), abs(float(value))):
        raise PrivacyError(
            f"{caller}: objective: template '{name}': the gradient objective() returns is not the "
            "derivative of the value it returns (central differences disagree). Fix the gradient: "
            "the solvers stop where it vanishes.")
    if float(template.residual(theta, b, 0.0)) < natural_residual(
            theta, grad, template.space.project) * (1 - PROBE_RTOL):
        raise PrivacyError(
            f"{caller}: residual: template '{name}': residual() is below the optimality residual "
            "||θ - Π(θ - ∇J(θ))|| over its parameter space, so the accuracy check could accept a "
            "point that is not the minimizer. Return at least that residual.")
    conds.append(Condition("objective, gradient and residual consistent", True,
                           "numerical comparison (central differences; residual >= "
                           "||θ - Π(θ - ∇J(θ))||)", "at a probe point"))
    return conds


def _check_cvxpy_form(template: Template, caller: str) -> Condition:
    """No constraint in the CVXPY form that the parameter space lacks; the same objective."""
    name = _caller_name(template)
    problem = template.cvxpy_problem()["problem"]
    shape = tuple(template.space.shape)
    candidates = [v for v in problem.variables() if tuple(v.shape) == shape]
    if len(candidates) != 1:
        return _unverified("CVXPY form", "cvxpy_form",
                           f"{len(candidates)} variables of the parameter shape {shape}: the CVXPY "
                           "form could not be compared with the parameter space")
    var = candidates[0]
    rng = _probe_rng()
    for scale in (1.0, 10.0, 1e3):
        z = np.asarray(template.space.project(scale * rng.normal(size=shape)), dtype=float)
        var.value = z
        for constraint in problem.constraints:
            try:
                violation = float(np.max(constraint.violation()))
            except (ValueError, TypeError):  # involves other variables: not checkable here
                return _unverified("CVXPY form", "cvxpy_form",
                                   f"constraint {constraint} involves variables other than the "
                                   "parameter: it could not be compared with the parameter space")
            if violation > 1e-7 * (1.0 + float(np.linalg.norm(z))):
                raise PrivacyError(
                    f"{caller}: constraints: template '{name}': its CVXPY form has the constraint "
                    f"{constraint}, which its parameter space ({template.space!r}) does not hold. "
                    "The native solvers minimize over the space and the accuracy check measures "
                    "the residual there, so no backend can honour the constraint for this "
                    "template: declare the set in the space (a project() onto it) or drop the "
                    "constraint.")
    b = rng.normal(size=shape)
    for delta in (0.0, 0.37):
        template.cvxpy_set(b, delta)
        var.value = z
        cvx = float(problem.objective.value)
        ref = float(template.objective(z, b, delta)[0])
        if not abs(cvx - ref) <= 1e-6 * max(1.0, abs(ref)):
            raise PrivacyError(
                f"{caller}: forms: template '{name}': its CVXPY objective (after cvxpy_set(b, "
                f"extra_reg={delta:g})) and objective() disagree at a probe point. The CVXPY "
                "backends and the native solvers would minimize different objectives: make them "
                "one, with the noise b and Δ = extra_reg entering both.")
    template.cvxpy_set(None, 0.0)
    return Condition("CVXPY form = objective over the parameter space", True,
                     "numerical comparison at probe points", f"{len(problem.constraints)} "
                     "constraint(s), each holding on the space's projections; the objectives agree")


def declaration_conditions(template: Template, needs: Iterable[str], caller: str = "release"
                           ) -> list[Condition]:
    """Check what a user template declares for a mechanism's ``needs`` (nothing for a shipped one).

    Returns how each declared constant was established (those nobody could check carry
    :attr:`Condition.unverified`); raises :class:`PrivacyError` when a probe refutes a
    declaration or two forms of the template disagree. ``caller`` opens the messages.

    Examples
    --------
    >>> from dpconvex.objectives import Logistic
    >>> from dpconvex.privacy.checks import declaration_conditions
    >>> from dpconvex.templates import LinearERMTemplate
    >>> class Mine(LinearERMTemplate):      # a subclass is a user's template
    ...     name = "mine"
    >>> # np, X (40 rows of norm 1), y (labels ±1): the doctest namespace, conftest.py
    >>> t = Mine(Logistic(), 0.1, 1.0, X, np.where(X[:, 0] > 0, 1.0, -1.0))
    >>> [c.name for c in declaration_conditions(t, {"strong_convexity"})][:3]
    ['user template', 'dimension p', 'strong convexity mu']
    >>> declaration_conditions(LinearERMTemplate(Logistic(), 0.1, 1.0, X, t.y), {"strong_convexity"})
    []
    """
    if shipped_derivation(template) is not None:
        return []
    needs = frozenset(needs)
    caps = frozenset(getattr(template, "capabilities", ()))
    conds = [Condition("user template", True, "named",
                       f"{type(template).__qualname__} is not a template dpconvex ships: each "
                       "constant it declares is checked below, or named as not verified")]
    with user_code(caller, f"template '{_caller_name(template)}'",
                   "while its declarations were checked. Follow the template contract "
                   "(dpconvex.templates.base): arrays of the space's shape from objective and "
                   "record_gradients (one row per record), a RecordDomain, a PrivacyConstants."):
        return conds + _declarations(template, needs, caps, caller)


def _check_constants(template: Template, consts: PrivacyConstants, caller: str) -> None:
    """Declared constants that are numbers of their range (else a named error)."""
    name = _caller_name(template)
    for field_name, zero_ok, finite in (("grad_bound", False, True),
                                        ("hessian_term_bound", True, False),
                                        ("strong_convexity", False, True)):
        value = getattr(consts, field_name, None)
        if declared_number(value, zero_ok=zero_ok, finite=finite) is None:
            raise ParameterError(f"{caller}: template '{name}' declares {field_name} = {value!r}; "
                                 "declare a finite float > 0 (hessian_term_bound: >= 0).")


def _declarations(template: Template, needs: frozenset[str], caps: frozenset[str], caller: str
                  ) -> list[Condition]:
    conds: list[Condition] = []
    if needs & {"strong_convexity", "curvature", "distance_bound"}:
        if "objective" not in caps:
            raise PrivacyError(f"{caller}: template '{_caller_name(template)}' does not offer the "
                               "capability 'objective' (privacy_constants, objective, residual, "
                               "regularizer, distance_bound), which this mechanism reads.")
        consts = template.privacy_constants()
        _check_constants(template, consts, caller)
        p = int(template.space.dimension)
        if int(consts.dimension) != p:
            raise PrivacyError(f"{caller}: dimension: template '{_caller_name(template)}' declares "
                               f"p = {consts.dimension}, but its parameter space has dimension {p}. "
                               "Declare the space's dimension (the noise is drawn in it).")
        conds += [Condition("dimension p", True, "compared with the parameter space", f"p = {p}"),
                  _check_modulus(template, consts, caller)]
        if "per_record" in caps:
            conds += [_check_records(template, caller), _check_grad_bound(template, consts, caller)]
            if "curvature" in needs:
                conds.append(_check_hessians(template, consts, caller))
        else:
            none = "the template has no record_gradients (capability 'per_record') to check"
            conds.append(_unverified("G (per-record gradient bound)", "grad_bound",
                                     f"declared {float(consts.grad_bound):g}; {none} it on"))
            if "curvature" in needs:
                conds.append(_unverified(_HESSIAN, "hessian", f"declared; {none} them on"))
        conds += _check_objective(template, caller)
        if "cvxpy" in caps:
            conds.append(_check_cvxpy_form(template, caller))
        if "distance_bound" in needs:
            conds.append(_unverified("distance bound", "distance_bound",
                                     "declared distance_bound(residual, mu): not verified"))
    if "utilities" in needs:
        conds.append(_unverified("utility sensitivity", "sensitivity",
                                 f"declared {getattr(template, 'sensitivity', '?')}: not verified"))
    if "cell_sums" in needs:
        declared = getattr(template, "record_set", None)
        shown = (f"record_set {declared!r}" if declared is not None
                 else f"data_norm {getattr(template, 'data_norm', '?')}")
        conds.append(_unverified("row norm bound of the cell sums", "data_norm",
                                 f"declared {shown}: not verified"))
    return conds


def vouched(conditions: list[Condition], vouch: Iterable[str], caller: str = "release"
            ) -> list[Condition]:
    """``conditions`` with the caller's vouching applied; raises while any stays unverified.

    Each condition with :attr:`Condition.unverified` set must name a constant in ``vouch``
    (else :class:`PrivacyError`); its ``how`` then says that the caller vouched for it. A
    name in ``vouch`` that no condition needs is refused as a typo (ParameterError).

    Examples
    --------
    >>> from dpconvex import Condition, PrivacyError
    >>> from dpconvex.privacy.checks import vouched
    >>> c = Condition("ℓ'' bound (c)", True, "declared, not verified", "declared 2", unverified="curvature")
    >>> vouched([c], ["curvature"])[0].how
    'declared; vouched for by the caller (vouch=), not verified'
    >>> try:
    ...     vouched([c], [])
    ... except PrivacyError:
    ...     print("refused")
    refused
    """
    names = {vouch} if isinstance(vouch, str) else set(vouch)
    unknown = sorted(str(v) for v in names - set(VOUCHABLE))
    if unknown:
        raise ParameterError(f"{caller}: vouch names {unknown}, which are not constants a caller can "
                             f"vouch for; use names from {list(VOUCHABLE)}.")
    open_ = sorted({c.unverified for c in conditions if c.unverified})
    extra = sorted(names - set(open_))
    if extra:
        raise ParameterError(
            f"{caller}: vouch names {extra}, which no condition of this release rests on (the "
            f"unverified constants are {open_ or 'none'}). Vouch only for what is listed.")
    missing = [c for c in conditions if c.unverified and c.unverified not in names]
    if missing:
        lines = "; ".join(f"{c.name} [{c.unverified}]: {c.detail}" for c in missing)
        raise PrivacyError(
            f"{caller}: the proof rests on constants nobody verified: {lines}. Give the loss a "
            "CVXPY form built from the atoms in dpconvex.objectives.atoms.ATOMS, or the template "
            "record_gradients and record_domain (capability 'per_record'), so that they can be "
            "checked; or, if you have proved them yourself, pass vouch="
            f"{tuple(sorted({c.unverified for c in missing}))!r} and the certificate will say "
            "that you vouched for them.")
    return [Condition(c.name, c.holds, "declared; vouched for by the caller (vouch=), not verified",
                      c.detail, c.unverified) if c.unverified else c for c in conditions]
