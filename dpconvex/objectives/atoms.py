"""Slope and curvature bounds of a loss on all of ℝ, derived from its CVXPY atoms.

For a margin loss written with CVXPY atoms ([CVXPY]_), the chain rule over g = f ∘ u gives
g' = f'(u)·u' in the product of the intervals [f'] and [u'], and g'' <= c_f · L_u² + L_f · c_u
(L the largest |slope| of an interval), from the per-atom intervals [f'] and bounds c_f of
:data:`ATOMS` (each a theorem about the atom on all of ℝ, not a probe); the slope bound is
the largest |g'| of the loss's interval. A loss with an atom
outside the table gets no derived bound ("declared, not verified"). The table and its
proofs: docs/privacy/user_objectives.md#privacy-margin-loss-bounds.

References
----------
.. [CVXPY] S. Diamond, S. Boyd. CVXPY: A Python-embedded modeling language for convex
   optimization. JMLR 17 (2016): the atoms and their DCP rules.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import cvxpy as cp
import numpy as np
import scipy.sparse
from cvxpy.expressions.leaf import Leaf

from .._validation import check_float

__all__ = [
    "ATOMS", "CompiledForm", "DerivedBounds", "bounds_of_form", "derive_bounds", "foreign_part",
    "frozen",
]


@dataclass(frozen=True)
class DerivedBounds:
    """Bounds on |ℓ'| and ℓ'' over all margins m in ℝ, derived from a CVXPY expression.

    Attributes
    ----------
    slope : float
        sup |ℓ'(m)| over ℝ (``inf``: unbounded).
    curvature : float
        sup ℓ''(m) over ℝ where ℓ'' exists, and ``inf`` where ℓ' jumps (a kink).
    atoms : tuple of str
        The atoms the derivation read, in the order met.

    Examples
    --------
    >>> import cvxpy as cp
    >>> from dpconvex.objectives.atoms import derive_bounds
    >>> b = derive_bounds(lambda m: cp.logistic(-m))
    >>> b.slope, b.curvature, b.atoms
    (1.0, 0.25, ('logistic', 'affine'))
    """

    slope: float
    curvature: float
    atoms: tuple[str, ...]


@dataclass(frozen=True)
class _Node:
    """[lo, hi] ∋ every slope and c >= every curvature of a sub-expression (over ℝ and the labels).

    ``smooth_curvature``: c of the node with its own kink left out, where the node is a
    pos/abs/max/min whose one kink sits at the value 0 (``kink_at_zero``): an outer atom with
    f'(0) = 0 there (huber) cancels that kink (f'(u)·u'' vanishes where u'' is a jump).
    """

    lo: float
    hi: float
    curvature: float
    smooth_curvature: float
    atoms: tuple[str, ...]
    constant: bool = False
    kink_at_zero: bool = False

    @property
    def slope(self) -> float:
        """L = the largest |slope|."""
        return max(-self.lo, self.hi)


class _Unknown(Exception):
    """An atom or a form outside :data:`ATOMS` (never shown: :func:`derive_bounds` then returns None)."""


#: Bound on |y| for the label parameter of a regression loss while a derivation runs
#: (:func:`derive_bounds`): a label is a constant in z, of magnitude at most this.
_LABEL_BOUND: dict[int, float] = {}


def _label_only(expr: cp.Expression) -> bool:
    """Whether ``expr`` is constant in z but reads the label (y itself, y − 1, 2y, ...)."""
    return not expr.variables() and any(p.id in _LABEL_BOUND for p in expr.parameters())


def _const_value(expr: cp.Expression) -> float | None:
    """The one number a constant part of the form is (None: it reads z), read from a tree of
    CVXPY's own classes (:func:`foreign_part`, checked where a derivation or a program starts).
    """
    if type(expr) is cp.Parameter and expr.id in _LABEL_BOUND:
        return _LABEL_BOUND[expr.id]  # |y| <= this: used as a coefficient's magnitude
    if _label_only(expr):  # a function of y other than y: no magnitude known here
        raise _Unknown
    if type(expr) is cp.Constant or (not expr.variables() and not expr.parameters()):
        value = np.asarray(expr.value)
        if np.iscomplexobj(value):
            raise _Unknown  # a complex constant: its real part is not the loss
        value = value.astype(float)
        if value.size != 1 or not np.isfinite(value).all():
            raise _Unknown  # an array, or an infinite or NaN constant, bounds nothing
        return float(value.reshape(()))
    return None


def _mul(a: tuple[float, float], node: _Node) -> _Node:
    """a·u for a factor a in the interval ``a`` (a constant: (a, a); a label: (−|y|, |y|))."""
    m = max(-a[0], a[1])  # a·u keeps u's kinks where u = 0, so at the value 0
    return _Node(*_product(a, (node.lo, node.hi)), _times(m, node.curvature),
                 _times(m, node.smooth_curvature), node.atoms, kink_at_zero=node.kink_at_zero)


def _compose(name: str, f: tuple[float, float], cf: float, inner: _Node, *,
             zero_slope_at_kink: bool = False) -> _Node:
    """f ∘ u by the chain rule, f' in the interval ``f``; with ``zero_slope_at_kink``
    (f'(0) = 0), u's kinks cancel."""
    cu = inner.smooth_curvature if zero_slope_at_kink and inner.kink_at_zero else inner.curvature
    lf = max(-f[0], f[1])
    curv = _sum([_times(cf, _times(inner.slope, inner.slope)), _times(lf, cu)])
    return _Node(*_product(f, (inner.lo, inner.hi)), curv, curv, (name, *inner.atoms))


def _outward(value: float, exact: Callable[[], Fraction], up: bool) -> float:
    """``value``, a rounded result, moved one float up (else down) where it lies below (above)
    the exact one: every bound holds in real arithmetic, an underflow to 0 included."""
    if math.isfinite(value) and (Fraction(value) < exact() if up else Fraction(value) > exact()):
        return math.nextafter(value, math.inf if up else -math.inf)
    return value


def _times(a: float, b: float, up: bool = True) -> float:
    if a == 0.0 or b == 0.0:  # 0 · ∞ = 0: a term weighted 0 adds nothing
        return 0.0
    return _outward(a * b, lambda: Fraction(a) * Fraction(b), up)


def _sum(values: list[float], up: bool = True) -> float:
    try:
        total = math.fsum(values)
    except (OverflowError, ValueError):  # beyond the float range, or ∞ − ∞: unbounded
        return math.inf if up else -math.inf
    return _outward(total, lambda: sum(map(Fraction, values), Fraction(0)), up)


def _product(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    """The interval of x·y for x in ``a`` and y in ``b``."""
    return (
        min(_times(x, y, False) for x in a for y in b),
        max(_times(x, y) for x in a for y in b),
    )


def _walk(expr: cp.Expression) -> _Node:
    # constant in z: it may shift an argument
    if _label_only(expr) or _const_value(expr) is not None:
        return _Node(0.0, 0.0, 0.0, 0.0, (), constant=True)
    if type(expr) is cp.Variable:
        if expr.size != 1:
            raise _Unknown
        return _Node(1.0, 1.0, 0.0, 0.0, ("affine",))
    name = _atom_name(expr)
    if name not in ATOMS:
        raise _Unknown
    return ATOMS[name][0](expr, expr.args)


def _affine_sum(expr: cp.Expression, args: list) -> _Node:
    nodes = [_walk(a) for a in args]
    live = [n for n in nodes if not n.constant]
    if not live:
        return _Node(0.0, 0.0, 0.0, 0.0, (), constant=True)
    atoms = tuple(x for n in live for x in n.atoms)
    return _Node(
        _sum([n.lo for n in live], False),
        _sum([n.hi for n in live]),
        _sum([n.curvature for n in live]),
        _sum([n.smooth_curvature for n in live]),
        atoms,
    )


def _scaled(expr: cp.Expression, args: list) -> _Node:
    a, b = args
    ca, cb = _const_value(a), _const_value(b)
    if (ca is None) == (cb is None):
        raise _Unknown
    const, c, other = (a, ca, b) if ca is not None else (b, cb, a)
    # a label y is read as |y| <= c, its sign unknown: the factor lies in [−c, c]
    return _mul((-abs(c), abs(c)) if const.parameters() else (c, c), _walk(other))


def _divided(expr: cp.Expression, args: list) -> _Node:
    num, den = args
    if den.parameters():
        raise _Unknown  # a division by the label: unbounded where the label is near 0
    c = _const_value(den)
    if c is None or c == 0.0:
        raise _Unknown
    node = _walk(num)

    def over(x: float, by: float, up: bool) -> float:  # x / by, rounded outward
        return _outward(x / by, lambda: Fraction(x) / Fraction(by), up) if x else 0.0

    lo, hi = (node.lo, node.hi) if c > 0 else (node.hi, node.lo)
    return _Node(
        over(lo, c, False),
        over(hi, c, True),
        over(node.curvature, abs(c), True),
        over(node.smooth_curvature, abs(c), True),
        node.atoms,
        kink_at_zero=node.kink_at_zero,
    )


def _negated(expr: cp.Expression, args: list) -> _Node:
    return _mul((-1.0, -1.0), _walk(args[0]))


def _passthrough(expr: cp.Expression, args: list) -> _Node:
    return _walk(args[0])


def _sum_of_one(expr: cp.Expression, args: list) -> _Node:
    """``cp.sum`` of one number (a CVXPY user's habit around a loss): that number."""
    if args[0].size != 1:
        raise _Unknown
    return _walk(args[0])


def _logistic(expr: cp.Expression, args: list) -> _Node:
    return _compose("logistic", (0.0, 1.0), 0.25, _walk(args[0]))


def _huber(expr: cp.Expression, args: list) -> _Node:
    M = _const_value(expr.M)
    if M is None:
        raise _Unknown
    return _compose(
        "huber", (-2.0 * abs(M), 2.0 * abs(M)), 2.0, _walk(args[0]), zero_slope_at_kink=True
    )


def _unbounded(name: str) -> Callable[[cp.Expression, list], _Node]:
    """The rule of an atom of unbounded slope (powers, exp): L = c = ∞ unless constant."""
    def rule(expr: cp.Expression, args: list) -> _Node:
        inner = _walk(args[0])
        if inner.constant:
            return inner
        return _Node(-math.inf, math.inf, math.inf, math.inf, (name, *inner.atoms))
    return rule


def _max_like(expr: cp.Expression, args: list) -> _Node:
    """max/min of u and constants, |u|: the kink is at the value 0 when the constants are 0.

    The slope is that of the active argument (0 for a constant): in the hull of theirs;
    ±u' for |u| (and neg)."""
    name = _atom_name(expr)
    at_zero = name == "abs" or all(
        not _label_only(a) and (a.variables() or _const_value(a) == 0.0) for a in args)
    nodes = list(map(_walk, args))
    live = [n for n in nodes if not n.constant]
    if not live:
        return _Node(0.0, 0.0, 0.0, 0.0, (name,), constant=True)
    lo, hi = min(n.lo for n in nodes), max(n.hi for n in nodes)
    if name in ("pos", "neg", "abs"):  # max(u, 0), max(−u, 0), max(u, −u)
        lo, hi = (min(lo, 0.0), max(hi, 0.0)) if name == "pos" else (-max(-lo, hi), max(-lo, hi))
    atoms = tuple(x for n in live for x in n.atoms)
    return _Node(lo, hi, math.inf, max(n.curvature for n in live),
                 (name, *atoms), kink_at_zero=at_zero and len(live) == 1)


def _log_sum_exp(expr: cp.Expression, args: list) -> _Node:
    inner = args[0]
    parts = inner.args if _is_stack(inner) else [inner]
    nodes = [_walk(p) for p in parts]
    live = [n for n in nodes if not n.constant] or nodes
    # g' = Σ pᵢuᵢ' (p a softmax) lies in the hull of the pieces' slopes (0 for a constant), and g'' = Σ pᵢuᵢ''
    # + Var_p(u') <= max cᵢ + (hi − lo)²/4 (Popoviciu), e.g. 1/4 for log(1 + exp(−m)) = log_sum_exp([0, −m])
    lo, hi = min(n.lo for n in nodes), max(n.hi for n in nodes)
    width = _sum([hi, -lo])
    curv = _sum([_times(_times(width, width), 0.25), max(n.curvature for n in nodes)])
    return _Node(lo, hi, curv, curv, ("log_sum_exp", *(x for n in live for x in n.atoms)))


def derive_bounds(fn: Callable[..., cp.Expression], label_range: tuple[float, float] | None = None
                  ) -> DerivedBounds | None:
    """Bounds on |∂ℓ/∂z| and ∂²ℓ/∂z² over z ∈ ℝ (and y in ``label_range``) from CVXPY atoms.

    ``fn(z)`` for a margin loss; ``fn(z, y)`` for a loss of the prediction z and a label y in
    ``label_range`` = (lo, hi): the label is a constant in z of magnitude at most
    max(|lo|, |hi|), so it may shift an argument or scale it (y·z), never divide. None when
    the expression uses an atom outside :data:`ATOMS` (nothing is derived).

    Examples
    --------
    >>> import cvxpy as cp
    >>> from dpconvex.objectives.atoms import derive_bounds
    >>> h = 0.5   # the Huber hinge of CMS eq. 35
    >>> b = derive_bounds(lambda m: cp.huber(cp.pos(1 + h - m), 2 * h) / (4 * h))
    >>> b.slope, b.curvature
    (1.0, 1.0)
    >>> derive_bounds(lambda m: cp.entr(m)) is None               # not in the table
    True
    >>> b = derive_bounds(lambda z, y: cp.huber(z - y, 1.0), label_range=(0.0, 10.0))
    >>> b.slope, b.curvature
    (2.0, 2.0)
    >>> derive_bounds(lambda z, y: cp.square(z - y), label_range=(0.0, 1.0)).slope
    inf
    """
    label = None if label_range is None else cp.Parameter()
    args = [cp.Variable()] if label is None else [cp.Variable(), label]
    return bounds_of_form(fn(*args), label, label_range)


def bounds_of_form(expr: cp.Expression, label: cp.Parameter | None,
                   label_range: tuple[float, float] | None) -> DerivedBounds | None:
    """:func:`derive_bounds` of a form already built: ``expr`` of a scalar variable and, for a
    regression loss, of the parameter ``label`` with values in ``label_range``."""
    if foreign_part(expr) is not None:
        return None  # a class of the user's own: its values may differ between reads
    if label is not None:
        _LABEL_BOUND[label.id] = max(abs(float(label_range[0])), abs(float(label_range[1])))
    try:
        node = _walk(expr)
    except _Unknown:
        return None
    finally:
        if label is not None:
            _LABEL_BOUND.pop(label.id, None)
    atoms = tuple(dict.fromkeys(node.atoms))
    return DerivedBounds(float(node.slope), float(node.curvature), atoms)


# ------------------------------------------------------------- numeric evaluation
# A part is (value, ∂/∂z, ∂²/∂z²); a derivative that does not vary with the row is a float
# (0.0 for a constant), so the rules below spend no array pass on it: a term that is such a
# scalar 0 (``not isinstance(x, np.ndarray) and x == 0.0``) is added or scaled for free.
def _n_linear(expr, parts, second):
    # expr is (coefficients, constant): c + Σ a_k part_k, the affine part of a form folded once
    coefficients, constant = expr
    out: list = [constant, 0.0, 0.0]
    for a, part in zip(coefficients, parts, strict=True):
        for j in (0, 1, 2) if second else (0, 1):
            x = part[j]
            if isinstance(x, np.ndarray) or x != 0.0:
                term = x if a == 1.0 else a * x
                out[j] = (
                    term if not isinstance(out[j], np.ndarray) and out[j] == 0.0 else out[j] + term
                )
    return tuple(out)


def _n_mul(expr, parts, second):  # two factors in the inputs (a constant factor is folded)
    (u, u1, u2), (v, v1, v2) = parts
    return u * v, u1 * v + u * v1, u2 * v + 2 * u1 * v1 + u * v2 if second else 0.0


def _n_div(expr, parts, second):  # a denominator in the inputs (a constant one is folded)
    (u, u1, u2), (c, c1, _) = parts
    if np.any(np.asarray(c1) != 0):
        raise _Unknown
    return u / c, u1 / c, u2 / c


def _n_logistic(expr, parts, second):
    # one exp for the value and the slope: with e = exp(-|u|), log(1 + e^u) = max(u, 0) +
    # log1p(e) and σ(u) = 1/(1 + e) for u >= 0, e/(1 + e) for u < 0 (no overflow)
    u, u1, u2 = parts[0]
    u = np.asarray(u, dtype=float)
    e = np.exp(-np.abs(u))
    inv = 1.0 / (1.0 + e)
    s = np.where(u >= 0, inv, e * inv)
    value = np.log1p(e)
    value += np.maximum(u, 0.0)
    if not second:
        return value, s * u1, 0.0
    d2 = s * (1 - s) * u1 * u1
    return value, s * u1, d2 if not isinstance(u2, np.ndarray) and u2 == 0.0 else d2 + s * u2


def _n_huber(M, parts, second):  # M: the threshold, read once when the program is built
    u, u1, u2 = parts[0]
    a = np.abs(u)
    inside = a <= M
    # M² overflows for a huge M: rows inside, dropped
    with np.errstate(over="ignore", invalid="ignore"):
        value = np.where(inside, u * u, 2 * M * a - M * M)
    f1 = np.clip(2 * u, -2 * M, 2 * M)
    if not second:
        return value, f1 * u1, 0.0
    d2 = np.where(inside, 2.0, 0.0) * u1 * u1
    return value, f1 * u1, d2 if not isinstance(u2, np.ndarray) and u2 == 0.0 else d2 + f1 * u2


def _select(parts, later_wins):
    """The part whose value is picked, row by row: the first of the extremal ones."""
    v, d1, d2 = parts[0]
    for w, e1, e2 in parts[1:]:
        take = later_wins(np.asarray(w, dtype=float), np.asarray(v, dtype=float))
        v = np.where(take, w, v)
        # a derivative equal in both (e.g. 0.0 of two constants) needs no pass
        d1 = d1 if _same_scalar(d1, e1) else np.where(take, e1, d1)
        d2 = d2 if _same_scalar(d2, e2) else np.where(take, e2, d2)
    return v, d1, d2


def _same_scalar(a: Any, b: Any) -> bool:
    return not isinstance(a, np.ndarray) and not isinstance(b, np.ndarray) and a == b


def _n_maximum(expr, parts, second):
    return _select(parts, np.greater)


def _n_minimum(expr, parts, second):
    return _select(parts, np.less)


def _n_abs(expr, parts, second):
    u, u1, u2 = parts[0]
    sign = np.where(np.asarray(u) < 0, -1.0, 1.0)
    return np.abs(u), sign * u1, sign * u2 if second else 0.0


def _n_power(p, parts, second):  # p: the exponent, read once when the program is built
    u, u1, u2 = parts[0]
    u = np.asarray(u, dtype=float)
    f1 = p * np.abs(u) ** (p - 1) * np.sign(u) if p != 2 else 2 * u
    f2 = p * (p - 1) * np.abs(u) ** (p - 2) if p != 2 else 2.0
    return np.abs(u) ** p if p != 2 else u * u, f1 * u1, f2 * u1 * u1 + f1 * u2 if second else 0.0


def _n_exp(expr, parts, second):
    u, u1, u2 = parts[0]
    e = np.exp(u)
    return e, e * u1, e * (u1 * u1 + u2) if second else 0.0


def _n_lse(expr, pieces, second):
    v = np.stack(np.broadcast_arrays(*[np.asarray(p[0], dtype=float) for p in pieces]))
    # a derivative may be a scalar: broadcast to the values' shape
    d1, d2 = (
        np.stack([np.broadcast_to(np.asarray(p[j], dtype=float), v.shape[1:]) for p in pieces])
        for j in (1, 2)
    )
    top = np.max(v, axis=0)
    w = np.exp(v - top)
    total = np.sum(w, axis=0)
    prob = w / total
    g1 = np.sum(prob * d1, axis=0)
    if not second:
        return top + np.log(total), g1, 0.0
    return top + np.log(total), g1, np.sum(prob * (d2 + d1 * d1), axis=0) - g1 * g1


#: The atom table: CVXPY expression class name (dispatched on CVXPY's own class of that
#: name, :data:`_OWN_ATOMS`) -> (the rule giving its (L, c) from its
#: arguments', the numeric rule giving its (value, first, second derivative in z) from its
#: arguments' by the chain and product rules, vectorized over the rows; "add", "neg" and
#: "pass" name the affine atoms :func:`_program` folds). One entry per
#: atom; ``tests/privacy/test_user_objectives.py`` checks the rules against the atoms.
ATOMS: dict[str, tuple[Callable[[cp.Expression, list], _Node], Callable[..., tuple] | str]] = {
    "AddExpression": (_affine_sum, "add"),
    "NegExpression": (_negated, "neg"),
    "multiply": (_scaled, _n_mul),
    "MulExpression": (_scaled, _n_mul),
    "DivExpression": (_divided, _n_div),
    "reshape": (_passthrough, "pass"),
    "index": (_passthrough, "pass"),
    "promote": (_passthrough, "pass"),
    "Sum": (_sum_of_one, "pass"),
    "Promote": (_passthrough, "pass"),
    "logistic": (_logistic, _n_logistic),
    "huber": (_huber, _n_huber),
    "maximum": (_max_like, _n_maximum),
    "minimum": (_max_like, _n_minimum),
    "abs": (_max_like, _n_abs),
    "pos": (_max_like, _n_maximum),
    "neg": (_max_like, _n_minimum),
    "log_sum_exp": (_log_sum_exp, _n_lse),
    "power": (_unbounded("power"), _n_power),
    "PowerApprox": (_unbounded("power"), _n_power),
    "square": (_unbounded("power"), _n_power),
    "exp": (_unbounded("exp"), _n_exp),
}


def _cvxpy_own(cls: type) -> bool:
    """Whether ``cls`` is a class CVXPY defines: the class its own module holds by that name
    (a subclass, or a class of the user's named like an atom, is not)."""
    module = cls.__module__
    return (module.split(".")[0] == "cvxpy"
            and getattr(sys.modules.get(module), cls.__qualname__, None) is cls)


def _own_classes() -> dict[type, str]:
    """CVXPY's own class of each name of :data:`ATOMS` (and of the stacks a log_sum_exp reads)."""
    names = set(ATOMS) | {"Hstack", "Vstack"}
    found: dict[type, str] = {}
    stack = [cp.Expression]
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        if cls.__name__ in names and _cvxpy_own(cls):
            found[cls] = cls.__name__
    return found


#: The table's dispatch: CVXPY's own class of an atom -> its name in :data:`ATOMS` (or
#: "Hstack"/"Vstack"). A node is read by its exact class: a subclass is no atom of the table.
_OWN_ATOMS: dict[type, str] = _own_classes()

#: The types a datum of an atom (``get_data()``: a shape, an axis, an index, an exponent) may
#: have besides CVXPY's own expressions: Python's and NumPy's own, whose operators are theirs.
_PLAIN_DATA = (int, float, bool, str, type(None), type(Ellipsis), Fraction)


def _atom_name(expr: cp.Expression) -> str | None:
    """The table's name of ``expr``'s exact class (None: not an atom of the table)."""
    return _OWN_ATOMS.get(type(expr))


def _is_stack(expr: cp.Expression) -> bool:
    return _atom_name(expr) in ("Hstack", "Vstack")


def _plain_datum(value: Any) -> bool:
    if type(value) in (tuple, list):
        return all(map(_plain_datum, value))
    if type(value) is slice:
        return all(map(_plain_datum, (value.start, value.stop, value.step)))
    if isinstance(value, (np.generic, np.ndarray)):
        return type(value).__module__ == "numpy" and value.dtype.kind in "biuf"
    return type(value) in _PLAIN_DATA


def foreign_part(expr: Any) -> str | None:
    """The first node of ``expr``'s tree (an atom, a leaf, a parameter, or a datum of an atom
    such as huber's M) whose class is not CVXPY's own, or a constant of a value that is not
    read (a sparse matrix), described; None when every one is of CVXPY's own classes with
    values read.

    Every constant of a loss's form is read once, when its bounds and its program are built
    from the one tree (:func:`frozen`); a class of the user's own could answer each read
    differently (a ``value`` property, an operator), so it is no part of a form dpconvex reads.

    Examples
    --------
    >>> import cvxpy as cp
    >>> from dpconvex.objectives.atoms import foreign_part
    >>> class Mine(cp.Constant):
    ...     pass
    >>> m = cp.Variable()
    >>> foreign_part(cp.huber(m, 0.5)) is None
    True
    >>> foreign_part(cp.huber(m, Mine(0.5)))
    "Mine (a subclass of CVXPY's Constant)"
    """
    found = _foreign(expr)
    return None if found is None else found[0]


#: Why a part :func:`_foreign` finds is refused: a class of the user's own, a value not read.
_OF_ITS_OWN = ("a class that is not CVXPY's own, so its values could differ between the reads "
               "that derive its bounds and the solve. Build the loss from CVXPY's atoms and "
               "plain numbers (e.g. cp.huber(z - y, 0.5))")
_NOT_READ = ("a value dpconvex does not read (the bounds and the NumPy program read a "
             "constant's NumPy array of numbers). State the constant as a dense NumPy array "
             "(e.g. cp.Constant(A.toarray()) for a SciPy sparse A)")


def _foreign(expr: Any) -> tuple[str, str] | None:
    """The first part of ``expr``'s tree :func:`foreign_part` refuses: (what it is, why)."""
    stack = [expr]
    while stack:
        e = stack.pop()
        cls = type(e)
        if not isinstance(e, cp.Expression) or not _cvxpy_own(cls):
            if not isinstance(e, cp.Expression) and _plain_datum(e):
                continue
            base = next((b for b in cls.__mro__[1:] if _cvxpy_own(b)), None)
            if base is not None:
                what = f"{cls.__qualname__} (a subclass of CVXPY's {base.__qualname__})"
                return what, _OF_ITS_OWN
            base = next((b for b in cls.__mro__[1:] if b.__module__ in ("builtins", "numpy")
                         and b is not object), None)
            if base is not None:
                return f"{cls.__qualname__} (a subclass of {base.__qualname__})", _OF_ITS_OWN
            return f"{cls.__qualname__} (of module {cls.__module__})", _OF_ITS_OWN
        if cls is cp.Constant and not (type(e.value) in (np.ndarray, *_PLAIN_DATA)
                                       or _plain_datum(e.value)):
            kind = type(e.value).__qualname__
            sparse = "SciPy sparse " if scipy.sparse.issparse(e.value) else ""
            return f"a Constant whose value is a {sparse}{kind}", _NOT_READ
        if not isinstance(e, Leaf):
            stack.extend(e.args)
            stack.extend(e.get_data() or ())
    return None


def refuse_foreign(expr: Any, caller: str) -> None:
    """Raise :class:`~dpconvex.errors.ParameterError` naming the first part of ``expr`` whose
    class is not CVXPY's own, or whose value is not read (:func:`foreign_part`), and why; the
    message opens with ``caller``."""
    from ..errors import ParameterError

    found = _foreign(expr)
    if found is not None:
        what, why = found
        raise ParameterError(f"{caller}: the CVXPY form holds {what}, {why}.")


def _copied_datum(value: Any) -> Any:
    """A datum of an atom (``get_data()``: a power's p, an axis, a shape, an index key) that
    no caller holds: a 0-d array as the Python number it holds, any other array copied, a
    tuple, list or slice rebuilt of copied data; a number, string or None (immutable) as it
    is. A datum of Python's or NumPy's own types (:func:`foreign_part`)."""
    if type(value) in (tuple, list):
        return type(value)(_copied_datum(v) for v in value)
    if type(value) is slice:
        return slice(*(_copied_datum(v) for v in (value.start, value.stop, value.step)))
    if isinstance(value, np.ndarray):
        return value.item() if value.ndim == 0 else np.array(value, copy=True)
    return value


def frozen(expr: cp.Expression) -> cp.Expression:
    """``expr`` rebuilt with each constant a new ``cp.Constant`` of a copy of its value, and
    each atom holding data (huber's M, a power's p, an axis, a shape, an index key) built on
    copies of them (:func:`_copied_datum`), read once: the tree a loss keeps, which no caller
    holds (a constant's array or a power's exponent changed in place after the loss is stated
    changes nothing of it). A tree of CVXPY's own classes (:func:`foreign_part`).

    Examples
    --------
    >>> import cvxpy as cp
    >>> import numpy as np
    >>> from dpconvex.objectives.atoms import frozen
    >>> M = cp.Constant(np.array(0.5))
    >>> m = cp.Variable()
    >>> tree = frozen(cp.huber(m, M))
    >>> M.value[...] = 50.0   # the caller's constant, changed in place
    >>> float(tree.M.value)
    0.5
    >>> p = np.array(1.0)
    >>> tree = frozen(cp.power(cp.pos(m), p))
    >>> p[...] = 3.0   # the caller's exponent, changed in place
    >>> tree.get_data()[0]
    1.0
    """
    done: dict[int, cp.Expression] = {}
    stack: list[tuple[Any, bool]] = [(expr, False)]
    while stack:  # each node after its arguments and data, as smooth_kinks rewrites a tree
        e, ready = stack.pop()
        if id(e) in done:
            continue
        if type(e) is cp.Constant:
            done[id(e)] = cp.Constant(np.array(e.value, copy=True))
            continue
        if not e.args:  # the prediction, the label
            done[id(e)] = e
            continue
        data = e.get_data()
        if not ready:
            stack.append((e, True))
            held = [d for d in (data or ()) if isinstance(d, cp.Expression)]
            stack.extend((a, False) for a in reversed([*e.args, *held]))
            continue
        args = [done[id(a)] for a in e.args]
        if data is None:
            done[id(e)] = e.copy(args)
        else:  # the atom built on copies of its data (a constant's: the copy made above)
            values = [done[id(d)] if isinstance(d, cp.Expression) else _copied_datum(d)
                      for d in data]
            done[id(e)] = type(e)(*args, *values)
    return done[id(expr)]


def _read_once(name: str, expr: cp.Expression) -> Any:
    """What a numeric rule reads of its atom besides its arguments, read when the program is
    built: huber's M and a power's p as floats (the bound rules read the same constants of the
    same tree); the atom itself for the others."""
    if name == "huber":
        M = _const_value(expr.M)
        if M is None:
            raise _Unknown
        return M
    if name in ("power", "PowerApprox", "square"):
        return float(np.asarray(getattr(expr, "_p_orig", getattr(expr, "p", 2.0)), dtype=float))
    return expr


def _program(expr: cp.Expression, inputs: tuple[int, ...]) -> tuple[list, list, int]:
    """``expr`` read once into a flat program: (slots, steps, result).

    ``slots`` holds a part per input (None, filled per call: the variable or parameter ids
    ``inputs``, in order) and per constant (c, 0.0, 0.0); ``steps`` are (slot, rule, expr,
    argument slots) in evaluation order; ``result`` is the slot of ``expr``. Affine parts
    (sums, negations, constant factors and divisors, pass-throughs) are folded: c + Σ a_k
    part_k, one step :func:`_n_linear` (its ``expr`` ((a_k), c)) per argument of an atom.
    Every constant is read here, once: huber's M and a power's p are a step's ``expr`` as
    floats (:func:`_read_once`), never read again at an evaluation.
    """
    slots: list = [None] * len(inputs)
    steps: list[tuple] = []

    def slot(form: tuple[dict[int, float], float]) -> int:
        terms, c = form
        if c == 0.0 and list(terms.values()) == [1.0]:  # a slot as it is
            return next(iter(terms))
        slots.append(None if terms else (c, 0.0, 0.0))  # a combination, or a constant
        if terms:
            steps.append((len(slots) - 1, _n_linear, (tuple(terms.values()), c), list(terms)))
        return len(slots) - 1

    def folded(
        terms: dict[int, float], c: float, underflow: bool = False
    ) -> tuple[dict[int, float], float]:
        if not all(map(math.isfinite, (c, *terms.values()))) or (
            underflow and 0.0 in terms.values()
        ):
            raise _Unknown  # a constant beyond the float range (or below it) when multiplied out
        return {k: v for k, v in terms.items() if v}, c

    def scaled(form: tuple[dict[int, float], float], a: float) -> tuple[dict[int, float], float]:
        return folded(
            {k: a * v for k, v in form[0].items()}, a * form[1] if form[1] else 0.0, a != 0.0
        )

    def visit(e: cp.Expression) -> tuple[dict[int, float], float]:  # e = c + Σ a_k slot_k
        if type(e) in (cp.Variable, cp.Parameter) and e.id in inputs:
            return {inputs.index(e.id): 1.0}, 0.0
        if not e.variables() and not any(p.id in inputs for p in e.parameters()):
            value = np.asarray(e.value)
            if np.iscomplexobj(value) or value.size != 1:
                raise _Unknown  # a complex or non-scalar constant: no loss of one prediction
            return {}, float(value.reshape(()))
        name = _atom_name(e)
        if name not in ATOMS:
            raise _Unknown
        rule = ATOMS[name][1]
        args = e.args
        if name == "log_sum_exp":  # the pieces of its stack, one per argument, each one number
            args = e.args[0].args if _is_stack(e.args[0]) else e.args
        if any(a.size != 1 for a in args) and name in ("log_sum_exp", "Sum"):
            raise _Unknown
        forms = [visit(a) for a in args]
        if rule in ("pass", "neg"):
            return forms[0] if rule == "pass" else scaled(forms[0], -1.0)
        if rule == "add":  # each slot's coefficients summed in order
            return folded(
                {k: sum(part.get(k, 0.0) for part, _ in forms) for part, _ in forms for k in part},
                sum(c for _, c in forms),
            )
        if rule is _n_mul and not (forms[0][0] and forms[1][0]):  # a constant factor
            constant, other = (forms[0], forms[1]) if not forms[0][0] else (forms[1], forms[0])
            return scaled(other, constant[1])
        if rule is _n_div and not forms[1][0]:  # a constant divisor (0: no loss)
            if not forms[1][1]:
                raise _Unknown
            return scaled(forms[0], 1.0 / forms[1][1])
        kids = [slot(f) for f in forms]
        slots.append(None)
        steps.append((len(slots) - 1, rule, _read_once(name, e), kids))
        return {len(slots) - 1: 1.0}, 0.0

    if foreign_part(expr) is not None:
        raise _Unknown  # a class of the user's own: its values may differ between reads
    result = slot(visit(expr))
    return slots, steps, result


def _inputs_read(
    steps: list[tuple], result: int, inputs: int, *, slope: bool = False
) -> tuple[bool, ...]:
    """Which of the first ``inputs`` slots the ``result`` slot of a :func:`_program` reads; with
    ``slope``, which the derivative in z reads (an input that is only a term of the outer sum,
    ℓ = g + y, shifts the value and never the slope)."""
    kids = {slot: args for slot, _, _, args in steps}
    rule = next((rule for slot, rule, _, _ in steps if slot == result), None)
    stack = [k for k in kids[result] if k >= inputs] if slope and rule is _n_linear else [result]
    seen: set[int] = set()
    while stack:
        slot = stack.pop()
        if slot not in seen:
            seen.add(slot)
            stack.extend(kids.get(slot, ()))
    return tuple(i in seen for i in range(inputs))


class CompiledForm:
    """A CVXPY loss form compiled once into a vectorized NumPy value and derivatives in z.

    The expression ``fn(z)`` (or ``fn(z, y)``) is built once on a scalar variable (and a
    scalar label parameter) and read once into a flat program of its atoms' rules in
    evaluation order, constants folded; :meth:`evaluate` runs it in one loop on NumPy arrays
    of any length — one pass of array arithmetic per atom that is not affine (the affine
    parts are folded), never CVXPY per record or per call.

    Examples
    --------
    >>> import cvxpy as cp
    >>> from dpconvex.objectives.atoms import CompiledForm
    >>> form = CompiledForm(lambda z, y: cp.huber(z - y, 1.0), with_label=True)
    >>> v, d1, d2 = form.evaluate(np.array([0.0, 3.0]), np.array([0.5, 0.0]))
    >>> v.tolist(), d1.tolist(), d2.tolist()
    ([0.25, 5.0], [-1.0, 2.0], [2.0, 0.0])
    """

    def __init__(self, fn: Callable[..., cp.Expression], *, with_label: bool,
                 inputs: tuple[cp.Variable, cp.Parameter | None] | None = None):
        self.z, self.label = inputs or (cp.Variable(), cp.Parameter() if with_label else None)
        args = [self.z] if self.label is None else [self.z, self.label]
        self.expr = fn(*args)
        self.supported = True
        try:
            self._slots, self._steps, self._result = _program(self.expr, tuple(a.id for a in args))
            with np.errstate(all="ignore"):  # a probe of the atoms' rules, not of values
                self.evaluate(np.zeros(2), np.zeros(2) if with_label else None)
        except _Unknown:
            self.supported = False

    def reads(self, *, slope: bool = False) -> tuple[bool, ...]:
        """Per input (the prediction, then the label), whether the folded program reads it: a
        term whose factor folds to 0 (0 * y, y - y) reads nothing; with ``slope``, whether the
        derivative in z reads it (a term y of the outer sum does not). A compiled form only
        (``supported``)."""
        inputs = 1 if self.label is None else 2
        return _inputs_read(self._steps, self._result, inputs, slope=slope)

    def evaluate(self, z: np.ndarray, y: np.ndarray | None = None, *, second: bool = True
                 ) -> tuple[np.ndarray, ...]:
        """(ℓ, ∂ℓ/∂z, ∂²ℓ/∂z²) at the predictions ``z`` (and labels ``y``), as arrays; (ℓ,
        ∂ℓ/∂z) with ``second=False`` (what a first-order solver reads, at less cost: the
        rules then give 0.0 for the second derivative).

        Each array is one the rules computed, or a fresh copy (a scalar, a view or an input
        broadcast to z's shape): no caller's array is shared.
        """
        z = np.asarray(z, dtype=float)
        parts = list(self._slots)
        # the derivatives of z and of the label in z are constants: scalars, not n-arrays
        parts[0] = (z, 1.0, 0.0)
        if self.label is not None:
            parts[1] = (np.broadcast_to(np.asarray(y, dtype=float), z.shape), 0.0, 0.0)
        for slot, rule, expr, kids in self._steps:
            parts[slot] = rule(expr, [parts[k] for k in kids], second)
        out = []
        for a in parts[self._result][:3 if second else 2]:
            if not (isinstance(a, np.ndarray) and a.dtype == np.float64 and a.shape == z.shape
                    and a.base is None and a is not z):
                a = np.broadcast_to(np.asarray(a, dtype=float), z.shape).copy()
            out.append(a)
        return tuple(out)


# ---------------------------------------------------------------- smoothing of kinks
@dataclass(frozen=True)
class Smoothing:
    """The kinks of a stated loss replaced by their Huberizations (:func:`smooth_kinks`).

    Attributes
    ----------
    h : float
        The half-width: each kink's slope changes linearly over [−h, h] around it.
    kinks : int
        How many kinks (``pos``, ``abs``, ``maximum``/``minimum`` pieces) were replaced.
    gap : float
        A bound on |ℓ_h − ℓ| over all predictions (and labels): the largest difference between the smoothed
        and the stated loss (``inf`` where an outer atom has an unbounded slope).

    Examples
    --------
    >>> import cvxpy as cp
    >>> from dpconvex.objectives.atoms import smooth_kinks
    >>> m = cp.Variable()
    >>> expr, s = smooth_kinks(cp.pos(1 - m), 0.5)
    >>> s.kinks, s.gap
    (1, 0.125)
    """

    h: float
    kinks: int
    gap: float


def _pos_h(d: cp.Expression, h: float) -> cp.Expression:
    """pos Huberized at half-width h: 0 below −h, (d + h)²/(4h) on [−h, h], d above h
    ([CMS]_ eq. 35 for d = 1 − m); convex and increasing in d, so DCP for a convex d."""
    return cp.huber(cp.pos(d + h), 2.0 * h) / (4.0 * h)


def _max_h(parts: list[tuple[cp.Expression, float]], h: float) -> tuple[cp.Expression, float, int]:
    """max of smoothed expressions: r + pos_h(max(others − r)) for an affine reference r.

    The reference is a constant argument if there is one, else the first affine one; the
    others may be convex (their differences with r stay convex, and pos_h is increasing).
    Raises :class:`_Unknown` without an affine argument (no DCP smoothing then).
    """
    affine = [i for i, (e, _) in enumerate(parts) if e.is_affine()]
    if not affine:
        raise _Unknown
    const = [i for i in affine if not parts[i][0].variables() and not parts[i][0].parameters()]
    if len(parts) == 2 and len(affine) == 2 and not const:
        # two affine pieces: (a + b)/2 + |a − b|_h/2, the same function, whose derived slope
        # bound is the larger slope (the reference form's would add the two)
        (a, ga), (b, gb) = parts
        return ((a + b) / 2.0 + cp.huber(a - b, h) / (4.0 * h) + h / 4.0, max(ga, gb) + h / 4.0, 1)
    k = (const or affine)[0]
    ref, ref_gap = parts[k]
    others = [(e - ref, g + ref_gap) for i, (e, g) in enumerate(parts) if i != k]
    inner, inner_gap, count = (*others[0], 0) if len(others) == 1 else _max_h(others, h)
    return ref + _pos_h(inner, h), ref_gap + inner_gap + h / 4.0, count + 1


def smooth_kinks(expr: cp.Expression, h: float) -> tuple[cp.Expression, Smoothing]:
    """Replace every kink of a loss's CVXPY form by its Huberization of half-width ``h``.

    ``maximum``/``minimum`` with an affine piece (``pos``, ``neg``, pinball, ε-insensitive)
    become r + pos_h(max(others − r)), pos_h the Huber hinge of [CMS]_ eq. 35; ``abs`` of an
    affine u becomes huber(u, h)/(2h) + h/2. Each kink keeps its slope bound, gets curvature
    (slope jump)/(2h) and changes the loss by at most (slope jump)·h/4 (:class:`Smoothing`;
    docs/privacy/user_objectives.md#privacy-smoothing). A loss without kinks is returned as is.
    The tree is rewritten in one loop, each sub-expression after its arguments (an explicit
    stack, as :class:`CompiledForm` runs its program).

    Raises
    ------
    ParameterError
        ``h`` is not a positive finite float, or a kink has no affine piece (no DCP smoothing).

    Examples
    --------
    >>> import cvxpy as cp
    >>> from dpconvex.objectives.atoms import smooth_kinks
    >>> z = cp.Variable()
    >>> expr, s = smooth_kinks(cp.abs(z - 1.0), 0.5)
    >>> s.kinks, s.gap, expr.is_convex()
    (1, 0.25, True)
    """
    from ..errors import ParameterError

    h = check_float("h", h, "smooth_kinks", magnitude=False)
    refuse_foreign(expr, "smooth_kinks")
    # (expr with its kinks smoothed, bound on the change, kinks smoothed) per sub-expression
    done: dict[int, tuple[cp.Expression, float, int]] = {}
    stack: list[tuple[cp.Expression, bool]] = [(expr, False)]
    try:
        while stack:
            e, ready = stack.pop()
            if isinstance(e, (cp.Variable, cp.Parameter)) or not (e.variables() or e.parameters()):
                done[id(e)] = (e, 0.0, 0)  # the prediction may be a Variable or a Parameter
                continue
            if not ready:  # its arguments first, left to right
                stack.append((e, True))
                stack.extend((a, False) for a in reversed(e.args))
                continue
            name = _atom_name(e)
            args, gaps, counts = map(list, zip(*(done[id(a)] for a in e.args), strict=True))
            count = sum(counts)
            if name in ("maximum", "minimum"):
                sign = 1.0 if name == "maximum" else -1.0
                out, gap, more = _max_h(
                    [(sign * a, g) for a, g in zip(args, gaps, strict=True)], h
                )
                done[id(e)] = (sign * out, gap, count + more)
                continue
            if name == "abs":
                (inner,), (g,) = args, gaps
                if not inner.is_affine():
                    raise _Unknown
                done[id(e)] = (cp.huber(inner, h) / (2.0 * h) + h / 2.0, g + h / 2.0, count + 1)
                continue
            if count == 0:
                done[id(e)] = (e, 0.0, 0)
                continue
            if name == "AddExpression":
                gap = sum(gaps)
            elif name in ("multiply", "MulExpression", "DivExpression"):
                scale, factors = 1.0, 0
                for a, g in zip(e.args, gaps, strict=True):
                    if g != 0.0:
                        continue
                    c = _const_value(a) if not _label_only(a) else None
                    if c is None:
                        raise _Unknown
                    scale *= abs(c) if name != "DivExpression" else 1.0 / abs(c)
                    factors += 1
                if not factors:  # a product of two smoothed expressions: no bound here
                    raise _Unknown
                gap = scale * max(gaps)
            elif name == "huber":
                M = _const_value(e.M)
                if M is None:
                    raise _Unknown
                gap = 2.0 * abs(M) * max(gaps)
            elif name in (
                "NegExpression",
                "reshape",
                "index",
                "promote",
                "Promote",
                "Sum",
                "logistic",
                "log_sum_exp",
                "Hstack",
                "Vstack",
            ):
                gap = max(gaps)
            else:  # power, exp: an unbounded slope scales the change without bound
                gap = math.inf
            done[id(e)] = (e.copy(args), gap, count)
    except _Unknown:
        raise ParameterError(
            "smooth_kinks: a kink of the loss (maximum, minimum or abs) has no affine piece, so "
            "it has "
            "no convex smoothing in CVXPY's rules. State each kink as a maximum or minimum with "
            "an "
            "affine piece (e.g. cp.pos(u) = cp.maximum(u, 0)) or abs of an affine expression."
        ) from None
    out, gap, count = done[id(expr)]
    return out, Smoothing(h, int(count), float(gap))


def vectorize(expr: cp.Expression, z: cp.Variable, label: cp.Parameter | None,
              z_vec: Any, y_vec: Any = None) -> cp.Expression:
    """The loss of a scalar prediction ``z`` (and label), built for a vector of predictions.

    A form such as ``cp.log_sum_exp(cp.hstack([0, -m]))`` is one function of a scalar m, but applied to a
    vector it concatenates the whole vector; here each ``log_sum_exp`` of a stack becomes
    ``cp.log_sum_exp(cp.vstack(...), axis=0)`` (one per prediction), a ``cp.sum`` of one number is that
    number, and every other atom is rebuilt on the vector arguments, elementwise.

    Examples
    --------
    >>> import cvxpy as cp
    >>> from dpconvex.objectives.atoms import vectorize
    >>> m = cp.Variable()
    >>> form = cp.log_sum_exp(cp.hstack([0, -m]))     # log(1 + exp(-m)), scalar m
    >>> expr = vectorize(form, m, None, np.array([-30.0, 0.0]))
    >>> np.round(expr.value, 4).tolist()
    [30.0, 0.6931]
    """
    def walk(e: cp.Expression) -> Any:
        if type(e) is cp.Variable and e.id == z.id:
            return z_vec
        if label is not None and type(e) is cp.Parameter and e.id == label.id:
            return y_vec
        if not e.variables() and not (label is not None and label in e.parameters()):
            return e
        name = _atom_name(e)
        if name == "log_sum_exp" and _is_stack(e.args[0]):
            parts = [walk(a) for a in e.args[0].args]
            size = max(int(np.prod(getattr(p, "shape", ()) or (1,))) for p in parts)
            stacked = [p if getattr(p, "size", 1) == size else p * np.ones(size) for p in parts]
            return cp.log_sum_exp(cp.vstack(stacked), axis=0)
        args = [walk(a) for a in e.args]
        if (
            name in ("Promote", "promote", "reshape", "index", "Sum")
            and getattr(args[0], "size", 1) > 1
        ):
            return args[0]
        if all(a is b for a, b in zip(args, e.args, strict=True)):
            return e
        return e.copy([cp.Constant(a) if isinstance(a, np.ndarray) else a for a in args])

    return walk(expr)
