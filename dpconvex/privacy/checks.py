"""Checks of a privacy proof's conditions: DCP convexity, a loss's bounds on ℝ, numerical probes.

A loss's slope and curvature bounds must hold at every margin a release can reach (all of
ℝ: the noise is unbounded), so a derivation establishes them (:func:`check_loss`) and a
probe can only refute them; a bound with no derivation is "declared, not verified", which
:func:`~dpconvex.privacy.release.release` refuses unless the caller vouches for it
(docs/privacy/user_objectives.md#privacy-user-objectives). A shipped loss, as constructed,
is established by its derivation (:func:`shipped_loss_conditions`), and the fast tests give
every shipped class the probes a user's loss gets (:func:`probe_loss`); a user's loss is
probed once per description of its code and state (:func:`_loss_description`), and at every
check when it cannot be described by value.
"""

from __future__ import annotations

import builtins
import dataclasses
import dis
import functools
import math
import numbers
import sys
import types
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from fractions import Fraction
from typing import Any

import cvxpy as cp
import numpy as np
import scipy.special

from .._validation import describe_value, is_dpconvex_class
from ..errors import DPConvexError, ParameterError, PrivacyError
from ..objectives.atoms import DerivedBounds, derive_bounds, vectorize
from ..objectives.losses import CVXPYLoss, Loss, shipped_as_built
from .certificate import Condition

__all__ = ["FORM_RTOL", "PROBE_RTOL", "check_dcp_convex", "check_loss", "is_compiled",
           "probe_loss", "refuse_constant_loss", "shipped_loss_conditions", "solved_loss"]

#: Relative tolerance of the numerical probes of declared bounds.
PROBE_RTOL = 1e-6

#: Relative tolerance (of max(1, |ℓ|)) at which a loss's CVXPY form and its NumPy value
#: must agree at every probe margin: both are double-precision evaluations of the same
#: function, and CVXPY's numeric atoms (``logistic``, ``huber``) agree with NumPy's to
#: ~1e-15 relative; 1e-9 leaves room for a different but exact formula.
FORM_RTOL = 1e-9

#: Margins at which the CVXPY form and the NumPy value are compared.
_FORM_PROBE = np.concatenate([np.linspace(-30.0, 30.0, 241), -np.geomspace(30.0, 1e15, 60),
                              np.geomspace(30.0, 1e15, 60)])


@contextmanager
def user_code(caller: str, what: str, hint: str) -> Iterator[None]:
    """Report an exception of a user's code (any but a :class:`DPConvexError`) as a
    :class:`PrivacyError`: ``"{caller}: {what}: its code raised ... {hint}"``."""
    try:
        yield
    except DPConvexError:
        raise
    except Exception as exc:
        raise PrivacyError(
            f"{caller}: {what}: its code raised {type(exc).__name__} ({exc}) {hint}"
        ) from None


def check_dcp_convex(
    expr: cp.Expression, what: str, caller: str = "check_dcp_convex"
) -> Condition:
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
            "proofs (which need a convex objective) do not apply. Rewrite it with DCP-convex "
            "atoms "
            "(see https://www.cvxpy.org/tutorial/dcp/)."
        )
    return Condition("convexity", True, "CVXPY DCP analysis", f"{what} is DCP-convex")


def _probe_grid(kinks: tuple[float, ...]) -> np.ndarray:
    base = np.linspace(-50.0, 50.0, 20001)
    tail = np.geomspace(50.0, 1e6, 2001)  # steps of 0.5 % out to 1e6
    far = np.concatenate([-tail, tail])
    near = [k + s for k in kinks for s in (-1e-3, -1e-6, 0.0, 1e-6, 1e-3)]
    return np.unique(np.concatenate([base, far, np.asarray(near, dtype=float)]))


def _cvxpy_values(loss: Loss, m: np.ndarray) -> np.ndarray:
    return np.asarray(loss.cvxpy_expr(cp.Parameter(m.size, value=m)).value, dtype=float).reshape(
        -1
    )


def _check_forms_agree(owner: Loss, loss: Any, caller: str) -> Condition:
    """The CVXPY form and ``value()`` of ``loss`` (``owner``, or it at one label) compared at
    the probe margins; established only where both are compiled from one CVXPY tree.

    A comparison refutes, it does not establish: forms that differ only between the compared
    margins pass it. ``owner``'s forms agree by construction where :func:`solved_loss`
    compiled it from one tree, and a shipped class's as built by its derivation; any other
    loss's agreement (a user's object, :meth:`~dpconvex.objectives.Loss.from_cvxpy`'s
    included: what its methods compute is the user's) is named unverified (``"loss_forms"``).
    """
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
            f"{m[k]:.4g} but "
            f"value() gives {nv[k]:.6g}. The CVXPY backends minimize one and the native solvers "
            "the other, "
            "and the bounds are checked on the CVXPY form: make cvxpy_expr and value the same "
            "function."
        )
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
    compared = (f"CVXPY form = value() within {FORM_RTOL:g} (relative) at {m.size} margins out "
                f"to |m| = 1e15, and deriv() = its slope at the {far.size} of them with "
                "|m| >= 30")
    if _compiled_here(owner):
        return Condition(
            "loss forms agree", True, "compiled from the CVXPY form; numerical comparison",
            f"the solve minimizes the NumPy form dpconvex compiled from the CVXPY form of class "
            f"{owner.solved_from} (no method of the loss given is solved); {compared}")
    if shipped_as_built(owner):
        return Condition("loss forms agree", True, "numerical comparison", compared)
    return Condition(
        "loss forms agree", True, "numerical comparison, not verified",
        f"the solve minimizes the loss's own value() and deriv(), compared with its CVXPY form: "
        f"{compared}; a comparison cannot rule out a difference between those margins. A "
        "template solves the NumPy form compiled from the CVXPY form where Loss.from_cvxpy "
        "compiles it (the atoms of dpconvex.objectives.atoms.ATOMS): state the loss in them "
        "for one form", unverified="loss_forms")


def _declared_bounds(loss: Loss) -> tuple[float | None, float | None]:
    """The ``deriv_bound`` and ``curvature`` that ``loss`` declares (None: derived, not
    declared), each read once (:func:`exact_number`): a number of an exact numeric type as a
    built-in float, which the checks and the calibration read; anything else as it is, for
    the checks to refuse.

    A :class:`CVXPYLoss` holds what its constructor was given; a value set on it since, other
    than the one derived, is declared too. Any other loss declares its attributes.
    """
    if not isinstance(loss, CVXPYLoss):
        return (exact_number(getattr(loss, "deriv_bound", None)),
                exact_number(getattr(loss, "curvature", None)))
    derived = loss.derived
    out: list[float | None] = []
    for given, attr, field, unset in zip(loss._declared, ("deriv_bound", "curvature"),
                                         ("slope", "curvature"), (math.nan, math.inf), strict=True):
        value = exact_number(getattr(loss, attr, None))
        constructed = float(getattr(derived, field)) if derived is not None else unset
        same = value is None or (type(value) is float and (value == constructed or (
            math.isnan(value) and math.isnan(constructed))))
        out.append(given if given is not None else None if same else value)
    return out[0], out[1]


def _stated_form(loss: Loss) -> tuple[Callable[..., cp.Expression], Any]:
    """The CVXPY form a user's loss states, as a function of the prediction (and the label),
    and the smoothing of its kinks it asks for (None: its kinks kept).

    A :class:`CVXPYLoss` whose ``cvxpy_expr`` is the class's states the tree it was built from,
    before any smoothing, and the half-width it asks for (``smoothing_rule``). A loss of a
    shipped smoothed class (a subclass, or one changed since built) whose ``cvxpy_expr`` is
    that class's states its form before smoothing and its rule (``kinked_form``): the compiler
    smooths it and states what it did. Any other loss states its ``cvxpy_expr``, as it is.
    """
    cls = type(loss)
    if (isinstance(loss, CVXPYLoss) and cls.cvxpy_expr is CVXPYLoss.cvxpy_expr
            and "cvxpy_expr" not in vars(loss)):
        stated = loss._stated
        return (functools.partial(vectorize, stated.expr, stated.z, stated.label),
                loss.smoothing_rule)
    shipped = _shipped_base(cls)
    if (shipped is not None and "kinked_form" in vars(shipped)
            and cls.cvxpy_expr is shipped.cvxpy_expr and cls.kinked_form is shipped.kinked_form
            and "cvxpy_expr" not in vars(loss) and "kinked_form" not in vars(loss)):
        return shipped.kinked_form(loss)
    return loss.cvxpy_expr, None


def _shipped_base(cls: type) -> type | None:
    """The nearest class of ``cls``'s MRO that dpconvex ships with a derivation, or None."""
    for base in cls.__mro__:
        derivation = base.__dict__.get("derivation")
        if isinstance(derivation, str) and derivation and is_dpconvex_class(base):
            return base
    return None


#: The losses :func:`solved_loss` compiled, by id: a reference to each and its members as
#: compiled (:func:`_members`). Found by identity: no method of a loss (``__eq__``) is run.
_COMPILED: dict[int, tuple[weakref.ref, dict[str, int]]] = {}


def _members(loss: CVXPYLoss) -> dict[str, int]:
    """The instance attributes of a compiled loss, each by the identity of its value."""
    return {name: id(value) for name, value in vars(loss).items()}


def _register(compiled: CVXPYLoss) -> None:
    """Record ``compiled`` as :func:`solved_loss` made it (dropped when it is collected)."""
    key = id(compiled)

    def drop(ref: weakref.ref) -> None:
        if _COMPILED.get(key, (None,))[0] is ref:
            del _COMPILED[key]

    _COMPILED[key] = (weakref.ref(compiled, drop), _members(compiled))


def _compiled_here(loss: Any) -> bool:
    """Whether ``loss`` is a loss :func:`solved_loss` compiled, with no member set since."""
    found = _COMPILED.get(id(loss))
    return (found is not None and found[0]() is loss and type(loss) is CVXPYLoss
            and _members(loss) == found[1])


def is_compiled(loss: Any) -> bool:
    """Whether ``loss`` is a loss :func:`solved_loss` compiled from a CVXPY form, with no member
    set on it since: what its methods compute is the compiled tree's, not a user's code.

    Parameters
    ----------
    loss : object
        The loss to ask about.

    Returns
    -------
    bool

    Examples
    --------
    >>> import cvxpy as cp
    >>> from dpconvex.objectives import Loss, Logistic
    >>> from dpconvex.privacy.checks import is_compiled, solved_loss
    >>> stated = Loss.from_cvxpy(lambda m: cp.logistic(-m), deriv_bound=1.0)
    >>> is_compiled(stated), is_compiled(solved_loss(stated)), is_compiled(Logistic())
    (False, True, False)
    """
    return _compiled_here(loss)


def solved_loss(loss: Loss) -> Loss:
    """The loss a template solves: a shipped loss as built, else one dpconvex compiles from the
    loss's CVXPY form.

    The bounds of a user's loss are derived from its CVXPY form (:func:`check_loss`), and no
    comparison at finitely many margins shows that a hand-written ``value``/``deriv``/
    ``deriv2`` is that function between them. So every loss but a shipped one as its
    constructor built it (:func:`~dpconvex.objectives.losses.shipped_as_built`: its exact class
    is dpconvex's) is solved as a new :class:`~dpconvex.objectives.losses.CVXPYLoss` compiled
    here from its CVXPY form, read once: a loss stated by
    :meth:`~dpconvex.objectives.Loss.from_cvxpy` (of any class) from the tree it was stated
    in, with the smoothing it asks for (``smoothing_rule``) applied by the compiler, which
    states what it did (``smoothed_kinks``); a loss of a shipped smoothed class that is not
    as built (a subclass, or a parameter changed) from the form before smoothing its class
    states (``kinked_form``), smoothed by the compiler at the rule it gives; any other from its
    ``cvxpy_expr``, its kinks kept. The compiled loss has the loss's name and the
    ``deriv_bound`` and ``curvature`` it declares (the others derived from the tree
    compiled); no method of the loss is called
    again, and everything the release reads (the solve, DCP analysis, the derived bounds, the
    probes and their cache, the certificate) is the compiled loss. A form that does not
    compile (``Loss.from_cvxpy`` refuses it), a loss without a CVXPY form and a shipped loss
    as built, and a ``Loss.from_cvxpy`` loss awaiting its estimator's label range (of class
    ``CVXPYLoss`` itself: a user class's ``awaits_label_range`` is not read) are returned
    unchanged: the checks then name the agreement of a user's forms
    unverified (``"loss_forms"``, :func:`check_loss`).

    Examples
    --------
    >>> import cvxpy as cp
    >>> from dpconvex.objectives import Logistic
    >>> from dpconvex.privacy.checks import solved_loss
    >>> class Mine(Logistic):
    ...     def deriv(self, m):
    ...         return 0 * m  # not the slope of cp.logistic(-m)
    >>> solved = solved_loss(Mine())
    >>> type(solved).__name__, solved.name, solved.solved_from
    ('CVXPYLoss', 'logistic', 'Mine')
    >>> float(solved.deriv(np.array([0.0]))[0])
    -0.5
    >>> shipped = Logistic()
    >>> solved_loss(shipped) is shipped  # a shipped loss as built: its derivation states both
    True
    """
    if (not isinstance(loss, Loss) or shipped_as_built(loss)
            or not getattr(loss, "has_cvxpy", False)
            or (type(loss) is CVXPYLoss and loss.awaits_label_range)):
        return loss
    kind = getattr(loss, "kind", "margin")
    label_range = getattr(loss, "label_range", None) if kind == "regression" else None
    if kind == "regression" and label_range is None:
        return loss  # no range to state it on: the template refuses it by name
    name = getattr(loss, "name", None)
    try:
        fn, smoothing = _stated_form(loss)
        declared = _declared_bounds(loss)
        compiled = CVXPYLoss(fn, kind=kind, name=name if isinstance(name, str) else None,
                             label_range=label_range, smoothing=smoothing)
    except Exception:  # refused by the compiler, or a statement unread: the loss's own form
        return loss
    # the loss's declared bounds (the checks refuse one below the derived bound, or invalid);
    # a bound it does not declare is the one derived from the tree compiled here
    if declared[0] is not None:
        compiled.deriv_bound = declared[0]
    if declared[1] is not None:
        compiled.curvature = declared[1]
    compiled._declared = declared
    #: The class whose CVXPY form was compiled (no method of it is solved).
    compiled.solved_from = type(loss).__qualname__
    _register(compiled)
    return compiled


def _bound_condition(loss: Loss, what: str, attr: str, declared: float, derived: float | None,
                     how_derived: str, observed: float, caller: str) -> Condition:
    """The condition stating how a declared bound (|ℓ'| or ℓ'') was established on ℝ (an
    unbounded derived slope is refused before, by :func:`probe_loss`)."""
    if derived is None:
        return Condition(
            what, True, "declared, not verified",
            f"declared {declared:g}; no derivation on all of ℝ ({how_derived}); the probe on "
            f"margins in [-1e6, 1e6] found at most {observed:.6g}, which cannot rule out a larger "
            "value beyond it", unverified=attr)
    if not math.isfinite(derived):
        raise PrivacyError(
            f"{caller}: {what}: loss '{loss.name}' has an unbounded curvature on ℝ "
            f"({how_derived}), so "
            "no declared bound holds at every margin a release can reach (the noise is "
            "unbounded). "
            "A release that solves to a minimizer needs a bounded ℓ'' (no residual certifies a "
            "minimizer "
            "at a kink): smooth the loss (smoothing='auto' or h > 0, e.g. a Huberized hinge), or "
            "use "
            "noisy gradient descent, which clips each gradient."
        )
    if declared < derived * (1 - 1e-12):
        raise PrivacyError(
            f"{caller}: {what}: loss '{loss.name}' declares {declared:.10g}, but the bound "
            "derived on all of "
            f"ℝ from its CVXPY form is {derived:.10g} ({how_derived}). Declare {attr} >= "
            f"{derived:.10g} (the "
            f"{'noise' if attr == 'deriv_bound' else 'Jacobian slack'} grows with it)."
        )
    stated = getattr(loss, "_declared", (declared, declared))[attr != "deriv_bound"] is not None
    return Condition(
        what,
        True,
        "derived on all of ℝ from the CVXPY form's atoms",
        f"declared {declared:g} >= derived {derived:.6g} ({how_derived})"
        if stated
        else f"the derived bound {derived:.6g}, none declared ({how_derived})",
    )


_SLOPE_REMEDY = ("Objective and output perturbation need a bounded |ℓ'|: use a Huberized form "
                 "(e.g. cp.huber(cp.pos(1 - m), M), or cp.huber(z - y, M) for regression, whose "
                 "slope is bounded by 2M), or, for a margin loss, NoisyGradientDescent, which "
                 "clips every per-record gradient; for the squared loss of a regression, "
                 "PrivateLinearRegression (sufficient statistics).")


class _AtLabel:
    """A regression loss ℓ(·, y) at one label y, seen as a function of z alone (the probes)."""

    def __init__(self, loss: Loss, y: float):
        self.loss, self.y, self.name, self.has_cvxpy = loss, float(y), loss.name, loss.has_cvxpy
        self.kinks = tuple(self.y + float(k) for k in loss.kinks)

    def __getattr__(self, method: str) -> Any:  # value, deriv, deriv2, value_and_deriv, cvxpy_expr
        fn = getattr(self.loss, method)
        return lambda z: fn(z, np.full(np.shape(z), self.y))


#: The exact types of a declared number (besides NumPy's own scalar types): their arithmetic
#: and their conversion to float are Python's; a subclass's operators are its author's.
_EXACT_NUMBERS = (int, float, Fraction)


def exact_number(value: Any) -> Any:
    """``value`` as a built-in float when it is a real number of an exact type (int, float,
    ``Fraction``, a NumPy integer or floating scalar; not a bool), converted once; anything
    else (a subclass of float, a string, None) unchanged, for :func:`declared_number` to
    refuse.

    Parameters
    ----------
    value : object
        A declared number (a loss's bound, a template's constant).

    Returns
    -------
    float or object
        The built-in float it is; ``value`` itself when it is not a number of an exact type,
        or an int beyond float64's range (:func:`beyond_float_range`).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex.privacy.checks import exact_number
    >>> type(exact_number(np.float32(0.5))).__name__, exact_number(2)
    ('float', 2.0)
    >>> class Mine(float):
    ...     pass
    >>> type(exact_number(Mine(0.5))).__name__
    'Mine'
    """
    if not _of_exact_type(value):
        return value
    try:
        return float(value)
    except OverflowError:  # an int beyond the float range: refused as it is
        return value


def _of_exact_type(value: Any) -> bool:
    kind = type(value)
    numpy_scalar = (kind.__module__ == "numpy" and issubclass(kind, (np.floating, np.integer))
                    and kind is not np.bool_)
    return kind in _EXACT_NUMBERS or numpy_scalar


def beyond_float_range(value: Any) -> bool:
    """Whether ``value`` is a number of an exact type (:func:`exact_number`) whose magnitude
    no float64 holds (an int or a ``Fraction`` beyond about 1.8e308), so that it is refused
    as no float.

    Parameters
    ----------
    value : object
        A declared number.

    Returns
    -------
    bool
        True for a number of an exact type beyond float64's range; False otherwise (a number
        in range, or anything that is not a number of an exact type).

    Examples
    --------
    >>> from dpconvex.privacy.checks import beyond_float_range
    >>> beyond_float_range(10**400), beyond_float_range(10**300), beyond_float_range("1e400")
    (True, False, False)
    """
    return _of_exact_type(value) and type(exact_number(value)) is not float


def declared_number(value: Any, *, zero_ok: bool, finite: bool) -> float | None:
    """A declared constant as a built-in float >= 0 (> 0 unless ``zero_ok``, finite when
    ``finite``); None for anything else (a bool, a string, an array, NaN, a number out of its
    range, a number of a subclass of float or int: :func:`exact_number`).

    The one reading of a declared constant: a loss's bounds and a template's constants.

    Examples
    --------
    >>> from dpconvex.privacy.checks import declared_number
    >>> declared_number(0.25, zero_ok=False, finite=True), declared_number(True, zero_ok=False, finite=True)
    (0.25, None)
    >>> declared_number(float("inf"), zero_ok=True, finite=False)
    inf
    """
    number = exact_number(value)
    if type(number) is not float:
        return None
    if (
        math.isnan(number)
        or number < 0
        or (number == 0 and not zero_ok)
        or (finite and math.isinf(number))
    ):
        return None
    return number


def refuse_constant_loss(loss: Loss, caller: str) -> None:
    """Raise :class:`ParameterError` if the atom table derives slope 0 for ``loss`` everywhere
    (a loss that does not read the prediction: nothing to fit).

    Examples
    --------
    >>> import cvxpy as cp
    >>> from dpconvex.objectives import Loss
    >>> from dpconvex.privacy.checks import refuse_constant_loss
    >>> refuse_constant_loss(Loss.from_cvxpy(lambda m: cp.logistic(-m)), "Demo")  # slope 1: nothing
    """
    if getattr(getattr(loss, "derived", None), "slope", None) == 0.0:
        name = getattr(loss, "name", type(loss).__name__)
        raise ParameterError(f"{caller}: loss '{name}' has slope 0 everywhere: it does not depend "
                             "on the prediction, so there is nothing to fit. State a loss of the "
                             "prediction.")


def _declared(loss: Loss, attr: str, caller: str, *, finite: bool) -> float:
    """A declared bound of ``loss`` (:func:`declared_number`), or a named error."""
    value = getattr(loss, attr, None)
    number = declared_number(value, zero_ok=attr != "deriv_bound", finite=finite)
    if number is None:
        bound = "a finite float > 0" if finite else "a float > 0 (inf: no bound)"
        name = getattr(loss, "name", type(loss).__name__)
        if isinstance(value, float) and math.isnan(value) and hasattr(loss, "derived"):
            raise ParameterError(
                f"{caller}: loss '{name}': the atom table derives no {attr} for its CVXPY form "
                "(an atom "
                "outside dpconvex.objectives.atoms.ATOMS, or a function of the label other than "
                "a shift or "
                "a factor y, such as 2*y or abs(y - c)), and none was declared. Rewrite the "
                "label's part, "
                f"or pass {attr}= (a bound you have proved) to Loss.from_cvxpy and vouch for it."
            )
        if beyond_float_range(value):
            raise ParameterError(
                f"{caller}: loss '{name}' declares {attr} (a {type(value).__qualname__}) "
                "beyond float64's range (about 1.8e308), which no float holds; declare "
                f"{bound}.")
        if (type(exact_number(value)) is not float and isinstance(value, numbers.Real)
                and not isinstance(value, (bool, np.bool_))):
            raise ParameterError(
                f"{caller}: loss '{name}' declares {attr} as a {type(value).__qualname__}, a "
                "number of a type of its own, whose arithmetic would run in the checks and in "
                "the noise's calibration; declare a built-in float (e.g. "
                f"{attr}=float(value)).")
        if value == 0.0:
            refuse_constant_loss(loss, caller)
        raise ParameterError(
            f"{caller}: loss '{name}' declares {attr} = {describe_value(value)}; declare {bound}."
        )
    return number


def check_loss(loss: Loss, *, need_curvature: bool, caller: str = "check_loss") -> list[Condition]:
    """Establish a margin loss's declared constants on all of ℝ, and check its code.

    The slope bound |ℓ'| <= ``deriv_bound`` (and, with ``need_curvature``, ℓ'' <=
    ``curvature``) must hold at every margin, since a release can reach any margin. Each is
    established by a derivation: a shipped loss's own, as its constructor built it
    (:func:`shipped_loss_conditions`; the fast tests probe every shipped class), else the
    atom table applied to the loss's CVXPY form
    (:func:`~dpconvex.objectives.atoms.derive_bounds`), which also refuses a loss of unbounded
    slope. A bound with neither is "declared, not verified"
    (``Condition.unverified`` names it; docs/privacy/user_objectives.md#privacy-margin-loss-bounds).

    Any other loss's code is probed (:func:`probe_loss`) once per description of its code and
    state (:func:`_loss_description`), and at every check when it has none. The loss a template
    checks is the one it solves (:func:`solved_loss`): for a user's loss with a CVXPY form, the
    loss dpconvex compiled from that form, whose forms agree by construction; any other user's
    loss (a ``Loss.from_cvxpy`` object given here directly included) has the agreement of its
    forms named unverified. ``caller`` opens the messages.

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
    >>> from dpconvex.privacy.checks import check_loss, solved_loss
    >>> conds = check_loss(SmoothHinge(h=0.5), need_curvature=True)
    >>> for c in conds[-2:]:
    ...     print(c.name, "|", c.how)
    |ℓ'| bound | derived (docs/privacy/linear_erm.md#privacy-loss-constants)
    ℓ'' bound (c) | derived (docs/privacy/linear_erm.md#privacy-loss-constants)
    >>> mine = Loss.from_cvxpy(lambda m: cp.huber(cp.pos(1 - m), 1.0) / 2, name="mine")
    >>> for c in check_loss(solved_loss(mine), need_curvature=True)[:2]:  # as a template
    ...     print(c.name, "|", c.how)
    loss convexity | numerical probe
    loss forms agree | compiled from the CVXPY form; numerical comparison
    """
    shipped = shipped_loss_conditions(loss, need_curvature=need_curvature, caller=caller)
    if shipped is not None:
        return shipped
    described = _loss_description(loss)
    key = None if described is None else (described, bool(need_curvature))
    if key in _PROBED:
        return list(_PROBED[key])
    conds = probe_loss(loss, need_curvature=need_curvature, caller=caller)
    if key is not None:
        if len(_PROBED) >= _PROBED_SIZE:
            _PROBED.pop(next(iter(_PROBED)))
        _PROBED[key] = tuple(conds)
    return conds


def shipped_loss_conditions(loss: Loss, *, need_curvature: bool,
                            caller: str = "check_loss") -> list[Condition] | None:
    """The conditions of a loss dpconvex ships, as its constructor built it, stated by its
    derivation; None for any other loss (which :func:`check_loss` probes).

    The derivation establishes the bounds on all of ℝ for every parameter of the class
    (:meth:`~dpconvex.objectives.Loss.derived_conditions`,
    docs/privacy/linear_erm.md#privacy-loss-constants). Whether a class states them truly is
    a fact of dpconvex's code, the same in every process: the probes a user's loss gets
    (:func:`probe_loss`) run on every registered class in the fast tests
    (tests/privacy/test_shipped_classes_probed.py), not at a fit. The conditions are a
    function of the class and its parameters: built once per class, parameters and
    ``need_curvature`` in a process (:data:`_SHIPPED`). ``caller`` is the name
    :func:`check_loss` signs with; nothing here is refused.

    Examples
    --------
    >>> from dpconvex.objectives import Logistic
    >>> from dpconvex.privacy.checks import shipped_loss_conditions
    >>> conds = shipped_loss_conditions(Logistic(), need_curvature=True)
    >>> conds[2].name, conds[2].how
    ("|ℓ'| bound", 'derived (docs/privacy/linear_erm.md#privacy-loss-constants)')
    >>> class Mine(Logistic):
    ...     pass
    >>> shipped_loss_conditions(Mine(), need_curvature=True) is None
    True
    """
    if not isinstance(loss, Loss) or not shipped_as_built(loss):
        return None
    key = (type(loss), repr(type(loss).params(loss)), bool(need_curvature))
    if key not in _SHIPPED:
        if len(_SHIPPED) >= _PROBED_SIZE:
            _SHIPPED.pop(next(iter(_SHIPPED)))
        _SHIPPED[key] = tuple(type(loss).derived_conditions(loss, need_curvature=need_curvature))
    return list(_SHIPPED[key])


#: The conditions of the shipped losses stated in this process, by (class, parameters,
#: need_curvature): at most :data:`_PROBED_SIZE`, the oldest dropped first.
_SHIPPED: dict[Any, tuple[Condition, ...]] = {}


def probe_loss(loss: Loss, *, need_curvature: bool, caller: str = "probe_loss"
               ) -> list[Condition]:
    """The probes of a loss's code and the atom table's derivation of its bounds, uncached.

    The loss's code is probed at fixed margins only (no data; a grid with points around its
    kinks and far out): the CVXPY form and ``value()`` agree (:data:`FORM_RTOL`), ``deriv`` and
    ``value_and_deriv`` match finite differences, ℓ' is non-decreasing, and no probe exceeds a
    declared bound; a regression loss at the ends and the middle of its label range. A probe
    refutes, it does not establish: the bounds are established by the atom table applied to
    the CVXPY form (:func:`~dpconvex.objectives.atoms.derive_bounds`), else "declared, not
    verified". :func:`check_loss` runs this on a user's loss; the fast tests on every class
    dpconvex ships.

    Parameters
    ----------
    loss : Loss
        The loss probed.
    need_curvature : bool
        Whether its curvature bound is checked too.
    caller : str, default="probe_loss"
        The name the refusals are signed with.

    Returns
    -------
    list of Condition
        Convexity, the forms' agreement (with a CVXPY form), the bounds and, for a regression
        loss, its label range.

    Raises
    ------
    ParameterError
        A declared constant that is not a float of the right range.
    PrivacyError
        A probe refutes a form or a bound, or the loss's slope is unbounded on ℝ.

    Examples
    --------
    >>> from dpconvex.objectives import Logistic
    >>> from dpconvex.privacy.checks import probe_loss
    >>> conds = probe_loss(Logistic(), need_curvature=True)
    >>> conds[2].name, conds[2].how
    ("|ℓ'| bound", "derived on all of ℝ from the CVXPY form's atoms")
    """
    regression = getattr(loss, "kind", "margin") == "regression"
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


#: Conditions of the user losses already probed, by (description, need_curvature): at most
#: :data:`_PROBED_SIZE`, the oldest dropped first.
_PROBED: dict[Any, tuple[Condition, ...]] = {}
_PROBED_SIZE = 64


class _NoDescription(Exception):
    """A value with no immutable description (the loss is probed at every check)."""


def _describe(value: Any, seen: frozenset[int] = frozenset()) -> Any:
    """A hashable description of ``value`` that changes when what it computes may change:
    containers and arrays by value; functions by code, defaults, closure and the globals they
    read; library modules, functions and classes by identity, other classes with their
    attributes. An object with its own mutable state, a user's module and a method bound to an
    object have none (:class:`_NoDescription`)."""
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
        owner = (
            value
            if isinstance(value, (types.ModuleType, np.ufunc))
            else getattr(value, "__self__", None)
        )
        if owner is None or (
            isinstance(owner, (types.ModuleType, np.ufunc)) and _is_library(owner)
        ):
            # a library's module or function; a user's module, or a method bound
            return ("id", value)
        raise _NoDescription(type(value).__name__)  # to an object, may change what it computes
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
            if any(i.opname == "IMPORT_NAME" for i in dis.get_instructions(code)):
                # a module it imports: read at every call
                raise _NoDescription(type(value).__name__)
        if any(name in _BUILTINS and name not in value.__globals__ and name not in _PURE_BUILTINS
               for name in names) or "__builtins__" in names:  # open(), getattr(), __import__, ...
            raise _NoDescription(type(value).__name__)  # what it reads is looked up while it runs
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


#: The builtins a described function may call: each computes from its arguments alone.
_PURE_BUILTINS = frozenset(
    {
        "abs",
        "all",
        "any",
        "bool",
        "complex",
        "dict",
        "divmod",
        "enumerate",
        "filter",
        "float",
        "frozenset",
        "int",
        "isinstance",
        "issubclass",
        "len",
        "list",
        "map",
        "max",
        "min",
        "pow",
        "range",
        "reversed",
        "round",
        "set",
        "slice",
        "sorted",
        "str",
        "sum",
        "super",
        "tuple",
        "type",
        "zip",
        "ValueError",
        "TypeError",
        "NotImplementedError",
        "ZeroDivisionError",
        "ArithmeticError",
    }
)
_BUILTINS = frozenset(dir(builtins))


def _is_library(obj: Any) -> bool:
    """Whether a module, class or ufunc is one of the libraries dpconvex reads (whose code does not
    change): found there by its name, not taken for one by what it says of itself."""
    if isinstance(obj, types.ModuleType):
        return obj.__name__.split(".")[0] in _LIBRARIES and sys.modules.get(obj.__name__) is obj
    if isinstance(obj, np.ufunc):  # numpy's and scipy.special's; not one np.frompyfunc makes
        return any(getattr(module, obj.__name__, None) is obj for module in (np, scipy.special))
    found = sys.modules.get(getattr(obj, "__module__", None) or "")
    if found is None or not _is_library(found):
        return False
    for part in str(getattr(obj, "__qualname__", "")).split("."):
        found = getattr(found, part, None)
    return found is obj


_LIBRARIES = frozenset({"builtins", "dpconvex", "numpy", "scipy", "cvxpy", "math", "cmath"})


def _describe_form(expr: Any) -> Any:
    """A CVXPY tree of one variable (and one label parameter) by value: each node's class,
    data (``get_data``: huber's M, a power's p, an index) and arguments; constants' values."""
    if isinstance(expr, cp.Constant):
        return ("constant", _describe(np.asarray(expr.value)))  # its own dtype: complex kept
    if isinstance(expr, slice):
        return (slice, expr.start, expr.stop, expr.step)
    if isinstance(expr, (tuple, list)):
        return tuple(map(_describe_form, expr))
    if not isinstance(expr, cp.Expression):
        return _describe(expr)
    if isinstance(expr, (cp.Variable, cp.Parameter)):  # the prediction, or the label
        return (type(expr), expr.shape)
    return (type(expr), _describe_form(expr.get_data() or ()), _describe_form(expr.args))


def _loss_description(loss: Loss) -> Any:
    """An immutable description of everything the checks of a user's loss read, or None.

    Its class with the attributes of its non-library classes, and its instance attributes
    (:func:`_describe`); for a loss :func:`solved_loss` compiled, the tree its compiled form,
    derived bounds and probes read (:func:`_describe_form`) and its smoothing record, not the
    function that built the tree when the loss was stated. None (probe at every check) when a
    part has no description (any other loss holding a compiled form).
    """
    stated = _compiled_here(loss)
    skip = ("_form", "_stated", "derived", "smoothed_kinks", "stated_fn") if stated else ()
    try:
        return (
            stated,
            type(loss),
            tuple(_describe(cls) for cls in type(loss).__mro__ if not _is_library(cls)),
            tuple(
                (name, _describe(value))
                for name, value in sorted(vars(loss).items())
                if name not in skip
            ),
            (
                _describe_form(loss._form.expr),
                _describe(
                    dataclasses.astuple(loss.smoothed_kinks) if loss.smoothed_kinks else None
                ),
            )
            if stated
            else (),
        )
    except _NoDescription:
        return None


def _check_loss(loss: Loss, code: Any, derived: DerivedBounds | None, *, need_curvature: bool,
                caller: str = "check_loss") -> list[Condition]:
    """The probes of :func:`check_loss` on ``code`` (the loss, or a regression loss at a label).

    On the probe grid: the forms' shapes and finiteness, value against deriv, the fused
    value_and_deriv, convexity, the CVXPY form against the NumPy one, and the declared bounds
    (refuted by the probe, established by ``derived``).

    Parameters
    ----------
    loss : Loss
        The loss whose declared bounds are checked.
    code : object
        Its value, deriv, deriv2, value_and_deriv and kinks (the loss, or one at a label).
    derived : DerivedBounds or None
        The atom table's bounds on its CVXPY form (None: nothing derived).
    need_curvature : bool
        Whether the curvature bound is checked too.
    caller : str, default="check_loss"
        The name the refusals are signed with.

    Returns
    -------
    list of Condition
        Convexity, the forms' agreement (with a CVXPY form) and the bounds.

    Raises
    ------
    PrivacyError
        A probe refutes a form or a bound.
    """
    m = _probe_grid(tuple(float(k) for k in code.kinks))
    d1 = np.asarray(code.deriv(m), dtype=float)
    v = np.asarray(code.value(m), dtype=float)
    if d1.shape != m.shape or v.shape != m.shape:
        raise PrivacyError(
            f"{caller}: loss '{loss.name}': value() and deriv() must return an array "
            "of the margins' shape. Make them elementwise."
        )
    if not (np.all(np.isfinite(d1)) and np.all(np.isfinite(v))):
        raise PrivacyError(f"{caller}: loss '{loss.name}': value or derivative is not finite on "
                           "the probe grid. Fix the loss's value() and deriv().")
    _check_deriv_of_value(loss, code, caller)
    _check_fused(loss, code, m, v, d1, caller)
    conds = [_check_convexity(loss, m, d1, caller)]
    # a shipped class's instance probed here is not as its constructor built it (state added,
    # a method or a bound replaced): its class's derivation is not about it
    if loss.has_cvxpy:
        conds.append(_check_forms_agree(loss, code, caller))
    how = ("no CVXPY form" if not loss.has_cvxpy else
           "the atom table derives no bound for its CVXPY form" if derived is None
           else "atoms " + ", ".join(derived.atoms))
    conds.append(_check_slope_bound(loss, m, d1, derived, how, caller))
    if need_curvature:
        conds.append(_check_curvature_bound(loss, code, m, d1, derived, how, caller))
    return conds


def _check_deriv_of_value(loss: Loss, code: Any, caller: str) -> None:
    """Refuse a deriv() that is no subgradient of value() (central differences on [-20, 20]).

    At a kink any slope between the one-sided ones is a subgradient. A loss stated in CVXPY
    whose values float64 cannot resolve at the step is refused as such (its bounds cannot be
    checked), not as a wrong derivative.
    """
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
        stated = isinstance(loss, CVXPYLoss) and type(loss).value is CVXPYLoss.value \
            and type(loss).deriv is CVXPYLoss.deriv  # both forms derived from the statement
        if stated and float(np.spacing(abs(v0[k]))) / hstep > tol:  # no step of value is resolved
            raise PrivacyError(
                f"{caller}: derivative: loss '{loss.name}', stated in CVXPY, takes values near "
                f"{float(v0[k]):.3g} at m = {mi[k]:.4g}, where float64 resolves no change smaller "
                "than "
                f"{float(np.spacing(abs(v0[k]))):.3g}: finite differences of its value give "
                f"{fd[k]:.6g} "
                f"where its slope is {float(given[k]):.6g}, so its bounds cannot be checked. A "
                "constant "
                "of the statement is too large for float64 arithmetic: state the loss with "
                "smaller "
                "constants (a constant term moves no minimizer: leave it out)."
            )
        raise PrivacyError(
            f"{caller}: derivative: loss '{loss.name}' declares deriv({mi[k]:.4g}) = "
            f"{float(np.ravel(code.deriv(mi[k : k + 1]))[0]):.6g} but finite differences of value "
            "give "
            f"{fd[k]:.6g}. Fix the loss's deriv() so the declared bounds are about the real "
            "derivative."
        )


def _check_fused(loss: Loss, code: Any, m: np.ndarray, v: np.ndarray, d1: np.ndarray,
                 caller: str) -> None:
    """Refuse a value_and_deriv (the fused form the solvers use) that is not value and deriv
    on the probe grid ``m`` (where they gave ``v`` and ``d1``)."""
    vf, df = (np.asarray(a, dtype=float) for a in code.value_and_deriv(m))
    bad = ~(
        np.isclose(vf, v, rtol=1e-10, atol=1e-300) & np.isclose(df, d1, rtol=1e-10, atol=1e-15)
    )
    if np.any(bad):
        k = int(np.argmax(bad))
        raise PrivacyError(
            f"{caller}: value_and_deriv: loss '{loss.name}' returns ({float(vf[k]):.6g}, "
            f"{float(df[k]):.6g}) "
            f"at m = {m[k]:.4g}, but value() and deriv() give ({float(v[k]):.6g}, "
            f"{float(d1[k]):.6g}). Fix "
            "value_and_deriv (or remove it) so the solver minimizes the loss whose bounds were "
            "checked."
        )


def _check_convexity(loss: Loss, m: np.ndarray, d1: np.ndarray, caller: str) -> Condition:
    """Convexity: ℓ' (``d1`` on the probe grid ``m``) non-decreasing; refused otherwise."""
    dd = np.diff(d1)
    if np.min(dd) < -1e-9:
        k = int(np.argmin(dd))
        raise PrivacyError(
            f"{caller}: convexity: loss '{loss.name}' has a decreasing derivative near m = "
            f"{m[k]:.4g} "
            "(the numerical probe found it non-convex). Use a convex loss."
        )
    return Condition(
        "loss convexity",
        True,
        "numerical probe",
        f"ℓ' non-decreasing on {m.size} margins in [-1e6, 1e6]",
        unverified="" if loss.has_cvxpy else "convexity",
    )


def _check_slope_bound(loss: Loss, m: np.ndarray, d1: np.ndarray, derived: DerivedBounds | None,
                       how: str, caller: str) -> Condition:
    """|ℓ'| <= ``deriv_bound``: the probe (``d1`` on ``m``) refutes first, then ``derived``
    establishes (:func:`_bound_condition`)."""
    obs = float(np.max(np.abs(d1)))
    bound = float(loss.deriv_bound)  # a number of an exact type (_declared)
    if obs > bound * (1 + PROBE_RTOL):
        k = int(np.argmax(np.abs(d1)))
        raise PrivacyError(
            f"{caller}: derivative bound: loss '{loss.name}' declares |ℓ'| <= "
            f"{bound:g}, "
            f"but the numerical probe found |ℓ'({m[k]:.4g})| = {obs!r}. That is a value the bound "
            "must exceed, not the bound: declare a deriv_bound you have proved on all of ℝ (the "
            "noise "
            "scales with it), or bound the loss's slope."
        )
    return _bound_condition(loss, "|ℓ'| bound", "deriv_bound", bound,
                                  None if derived is None else derived.slope, how, obs,
                                  caller)


def _check_curvature_bound(loss: Loss, code: Any, m: np.ndarray, d1: np.ndarray,
                           derived: DerivedBounds | None, how: str, caller: str) -> Condition:
    """ℓ'' <= ``curvature``: deriv2 non-negative, finite where the loss has kinks, and the probe
    (deriv2 and differences of ``d1`` on ``m``) below the bound; then ``derived``
    establishes (:func:`_bound_condition`)."""
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
            "minimum), where ℓ'' is unbounded, and a release that solves needs a bounded ℓ'' "
            "(no "
            "residual certifies a minimizer at a kink). Smooth them: Loss.from_cvxpy(..., "
            "smoothing=h)"
            " with h > 0 (or 'auto' in a linear estimator, which chooses h with Λ); or fit "
            "noisy GD."
        )
    if not math.isfinite(c) or obs2 > c * (1 + 1e-3) + 1e-12:
        found = (
            f"declares ℓ'' <= {c:g}, but the numerical probe found {obs2!r}. That is a value "
            "the "
            "bound must exceed, not the bound"
            if math.isfinite(c)
            else "declares no bound on ℓ'', and a release that solves needs one"
        )
        raise PrivacyError(
            f"{caller}: curvature bound: loss '{loss.name}' {found}: declare a curvature "
            "you have proved on all of ℝ (the Jacobian slack scales with it)."
        )
    return _bound_condition(loss, "ℓ'' bound (c)", "curvature", c,
                                  None if derived is None else derived.curvature, how,
                                  obs2, caller)
