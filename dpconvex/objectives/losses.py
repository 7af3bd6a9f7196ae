"""The terms of a private ERM objective, each with the constants its privacy proof needs.

A loss is a function of the margin ``m = y * f(x)`` with NumPy value and derivatives, a DCP-convex CVXPY form
(or ``has_cvxpy = False``: the CVXPY backends refuse it by name) and declared bounds ``deriv_bound`` >= |ℓ'|
and ``curvature`` >= ℓ'' ([CMS]_ Alg. 2's c). The Huber hinge and the pinball loss are the hinge
and the pinball loss stated in CVXPY (:func:`hinge`, :func:`pinball`) with their kink Huberized as
:meth:`Loss.from_cvxpy` smooths a user's, in closed form. A loss dpconvex ships states its derived constants
(:meth:`Loss.derived_conditions`, docs/privacy/linear_erm.md#privacy-loss-constants); a
user's loss is checked by :func:`dpconvex.privacy.checks.check_loss`.
Adding a loss = one subclass + one entry in :data:`LOSSES`.

A regularizer is the one source of a template's strong-convexity modulus μ
(``template.regularizer.strong_convexity``): :class:`L2` ``(lam / 2) ||w||²`` ([CMS]_
Alg. 1-2) and :class:`Frobenius` ``(lam / 2) Σ ||Φ||²_F`` ([PR12]_ eq. 11, their λ = lam / 2)
both give μ = lam. :class:`MatrixTerm` is a data-independent term R(Φ) of the large-margin
objective (docs/privacy/large_margin.md#privacy-large-margin).

References
----------
.. [CMS] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially Private
   Empirical Risk Minimization. JMLR 12:1069-1109, 2011. Logistic loss Section 3.4.1;
   smooth hinge ℓ_s eq. (23); Huber hinge eq. (35).
.. [PR12] M. A. Pathak, B. Raj. Large Margin Gaussian Mixture Models with
   Differential Privacy. IEEE TDSC 9(4), 2012, eq. 11.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Set
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

import cvxpy as cp
import numpy as np
from scipy.special import expit

from .._validation import (
    Auto,
    Float,
    Optional,
    _short_repr,
    check_float,
    describe_value,
    is_dpconvex_class,
    is_dpconvex_function,
)
from ..errors import ParameterError, PrivacyError
from ..privacy.certificate import Condition
from .atoms import Smoothing

__all__ = ["L2", "LOSSES", "REGRESSION_LOSSES", "REGULARIZERS", "CVXPYLoss", "Frobenius",
           "HuberHinge", "HuberRegression", "Logistic", "Loss", "MatrixTerm", "Pinball",
           "Regularizer", "SmoothHinge", "get_loss", "get_regression_loss", "hinge", "pinball",
           "probe_term", "psi_frobenius", "shipped_as_built", "shipped_derivation"]


def shipped_derivation(obj: object) -> str | None:
    """Where dpconvex derives the constants of ``obj``, if dpconvex ships its exact class.

    A loss, regularizer or template class shipped by dpconvex names its derivation in its own ``derivation``
    attribute (e.g. ``"docs/privacy/linear_erm.md#privacy-loss-constants"``). A subclass, or a class written
    elsewhere, is not what the derivation is about: None, and its constants are checked as a user's
    (docs/privacy/user_objectives.md#privacy-user-objectives).

    Examples
    --------
    >>> from dpconvex.objectives.losses import shipped_derivation
    >>> shipped_derivation(Logistic())
    'docs/privacy/linear_erm.md#privacy-loss-constants'
    >>> class Mine(Logistic):
    ...     pass
    >>> shipped_derivation(Mine()) is None
    True
    """
    cls = type(obj)
    derivation = cls.__dict__.get("derivation")
    if isinstance(derivation, str) and derivation and is_dpconvex_class(cls):
        return derivation
    return None


def shipped_as_built(loss: object) -> bool:
    """Whether ``loss`` is a loss dpconvex ships, as its constructor built it.

    Its exact class is dpconvex's (:func:`shipped_derivation`: a subclass is the user's) and
    :meth:`Loss.as_built` of that class holds, read through the class: an ``as_built`` or
    ``params`` set on the instance is not called (and is an attribute no constructor sets).

    Examples
    --------
    >>> from dpconvex.objectives.losses import Logistic, shipped_as_built
    >>> shipped_as_built(Logistic())
    True
    >>> changed = Logistic()
    >>> changed.as_built = lambda: True
    >>> shipped_as_built(changed)
    False
    """
    return shipped_derivation(loss) is not None and type(loss).as_built(loss)


#: The exact types a shipped loss's parameter has as its constructor built it.
_PLAIN_TYPES = (bool, int, float, str, type(None))


def _plain(value: Any) -> bool:
    """Whether ``value`` is of a plain type exactly (a tuple of such values included): no
    operator or comparison of it is a user's."""
    if type(value) is tuple:
        return all(_plain(item) for item in value)
    return type(value) in _PLAIN_TYPES


def _same_plain(built: Any, value: Any) -> bool:
    """Whether two plain values (:func:`_plain`) are of one exact type and equal."""
    if type(built) is not type(value):
        return False
    if type(value) is tuple:
        return len(built) == len(value) and all(
            _same_plain(b, v) for b, v in zip(built, value, strict=True))
    return built == value


class Loss:
    """Base class of margin losses ℓ(m), m = y fᵀx.

    Subclasses set ``name``, ``deriv_bound``, ``curvature`` and implement ``value``, ``deriv``, ``deriv2`` and
    (if it has one) ``cvxpy_expr``. ``kinks`` lists margins where ℓ'' jumps (the probe samples around them).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex.objectives import Loss, get_loss
    >>> loss = get_loss("logistic")
    >>> isinstance(loss, Loss), loss.deriv_bound, loss.curvature
    (True, 1.0, 0.25)
    >>> loss.value(np.array([0.0])).round(4)
    array([0.6931])
    """

    name: ClassVar[str] = "loss"
    #: "margin": ℓ(m) of the margin m = y·z, y in {−1, +1}; "regression": ℓ(z, y) of the
    #: prediction z and a label y in ``label_range`` (value, deriv, deriv2 then take (z, y)).
    kind: ClassVar[str] = "margin"
    #: (lo, hi): the public range of the labels of a regression loss (None for a margin loss).
    label_range: tuple[float, float] | None = None
    #: Where dpconvex derives this class's bounds on all of ℝ (set by the losses dpconvex
    #: ships, for their own class only; :func:`shipped_derivation`).
    derivation: ClassVar[str] = ""
    has_cvxpy: ClassVar[bool] = True
    deriv_bound: float = 1.0
    curvature: float = np.inf

    def value(self, m: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def deriv(self, m: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def deriv2(self, m: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def value_and_deriv(self, m: np.ndarray, *label: Any) -> tuple[np.ndarray, np.ndarray]:
        """(ℓ, ℓ') together (of ``(z, y)`` for a regression loss), for solvers; override when
        the two share work. The verifier's probe checks that it agrees with ``value`` and ``deriv``.
        """
        return self.value(m, *label), self.deriv(m, *label)

    def cvxpy_expr(self, m: cp.Expression) -> cp.Expression:
        raise NotImplementedError(f"{type(self).__name__}.cvxpy_expr: loss '{self.name}' has no "
                                  "DCP form in CVXPY; pass a solver other than 'cvxpy'.")

    def dcp_form(self) -> cp.Expression:
        """The CVXPY expression whose DCP convexity the verifier checks: the summed loss of
        three predictions; a regression loss's labels are a parameter of unknown sign (valued
        at three points of ``label_range``), so the loss is convex at every label, not at three."""
        m = cp.Variable(3)
        if self.kind == "regression":
            return cp.sum(
                self.cvxpy_expr(m, cp.Parameter(3, value=np.linspace(*self.label_range, 3)))
            )
        return cp.sum(self.cvxpy_expr(m))

    @property
    def kinks(self) -> tuple[float, ...]:
        return ()

    def params(self) -> dict[str, Any]:
        return {}

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
        return f"{type(self).__name__}({inner})"

    def as_built(self) -> bool:
        """Whether the instance is what its constructor builds from :meth:`params` alone: its
        attributes are exactly the parameters, and the constructor accepts them unchanged,
        each of the exact type the constructor stores (``params`` read through the class: one
        set on the instance is not called; a parameter of a subclass of ``float``, whose
        operators would run in every evaluation, is not as built).

        Examples
        --------
        >>> from dpconvex.objectives import HuberHinge
        >>> class Mine(float):
        ...     pass
        >>> loss = HuberHinge(0.5)
        >>> loss.as_built()
        True
        >>> loss.h = Mine(0.5)
        >>> loss.as_built()
        False
        """
        params = type(self).params(self)
        if type(params) is not dict or set(vars(self)) != set(params):
            return False
        if not all(_plain(value) for value in params.values()):
            return False
        try:
            built = type(self)(**params)
            again = type(built).params(built)
        except Exception:  # a parameter changed to a value the constructor refuses
            return False
        return type(again) is dict and again.keys() == params.keys() and all(
            _same_plain(again[key], value) for key, value in params.items())

    def derived_conditions(self, *, need_curvature: bool) -> list[Condition] | None:
        """The proof's conditions on this loss where dpconvex derives them, else None.

        A loss dpconvex ships (:func:`shipped_derivation`), as its constructor built it
        (:meth:`as_built`), is established by its derivation: convexity and the bounds
        |ℓ'| <= ``deriv_bound`` (and ℓ'' <= ``curvature`` with ``need_curvature``) on all of
        ℝ; the fast tests give every registered class the probes a user's loss gets
        (:func:`dpconvex.privacy.checks.probe_loss`). Any other loss is checked by
        :func:`dpconvex.privacy.checks.check_loss` (None here).

        Examples
        --------
        >>> [c.name for c in Logistic().derived_conditions(need_curvature=True)]
        ['loss convexity', 'loss forms agree', "|ℓ'| bound", "ℓ'' bound (c)"]
        """
        derivation = shipped_derivation(self)
        if derivation is None or not shipped_as_built(self):
            return None
        regression = self.kind == "regression"
        how = f"derived ({derivation})"
        conds = [Condition("loss convexity", True, how,
                           f"loss '{self.name}': ℓ'' >= 0 on all of ℝ (ℓ' non-decreasing)")]
        if self.has_cvxpy:
            conds.append(Condition(
                "loss forms agree", True, how, "cvxpy_expr and value() state one function of "
                f"the {'prediction' if regression else 'margin'} (the shipped class, as its "
                "constructor built it)"))
        conds.append(
            Condition("|ℓ'| bound", True, how, f"declared {float(self.deriv_bound):g} on all of ℝ")
        )
        # a kink kept (smoothing=None): unbounded; no residual certifies a minimizer there
        if need_curvature:
            c = float(self.curvature)
            conds.append(
                Condition(
                    "ℓ'' bound (c)",
                    math.isfinite(c),
                    how,
                    f"declared {c:g} on all of ℝ"
                    + (
                        ""
                        if math.isfinite(c)
                        else " (a kink: smooth it, smoothing='auto' or h > 0)"
                    ),
                )
            )
        if regression:
            lo, hi = self.label_range
            conds.append(Condition(
                "label range", True, "declared public range; the derivation holds for every "
                "label in it", f"labels in [{lo:g}, {hi:g}]; bounds derived over all of it"))
        return conds

    @classmethod
    def from_cvxpy(
        cls,
        fn: Callable[..., cp.Expression],
        kind: str = "margin",
        name: str | None = None,
        *,
        label_range: tuple[float, float] | None = None,
        deriv_bound: float | None = None,
        curvature: float | None = None,
        smoothing: float | str | None = "auto",
    ) -> CVXPYLoss:
        """A loss stated once, in CVXPY atoms: ``fn(m)`` (margin) or ``fn(z, y)`` (regression).

        The NumPy value and derivatives the native solvers use are derived from the same
        expression (vectorized: :class:`~dpconvex.objectives.atoms.CompiledForm`), and so are
        the slope and curvature bounds on all of ℝ (× the label range): see
        :func:`~dpconvex.objectives.atoms.derive_bounds` and
        docs/privacy/user_objectives.md#privacy-margin-loss-bounds. Declared bounds,
        when given, must be at least the derived ones (the verifier checks).

        Parameters
        ----------
        fn : callable
            ``fn(m) -> cvxpy.Expression`` for kind "margin"; ``fn(z, y)`` for "regression".
            Elementwise in its arguments, built from the atoms of
            :data:`~dpconvex.objectives.atoms.ATOMS`.
        kind : {"margin", "regression", "multiclass"}
            "multiclass" (a loss of C predictions, e.g. ``cp.log_sum_exp(z) - z[y]``) is
            refused with the reason (:data:`MULTICLASS_REFUSAL`): its bounds are not derived
            (docs/privacy/user_objectives.md#privacy-margin-loss-bounds).
        name : str or None
            The loss's name in certificates (default "cvxpy_loss").
        label_range : (float, float) or None
            The public range of the labels (regression), over which the bounds are derived.
            None: the loss takes a regressor's (``loss=`` of a regressor, whose own
            ``label_range`` maps the labels onto [-1, 1], where the loss is then stated), so
            the range is stated once; no template takes it before.
        deriv_bound, curvature : float or None
            Declared bounds; None takes the derived ones.
        smoothing : "auto", float or None, default="auto"
            The kinks of the loss (``cp.pos``, ``cp.abs``, ``cp.maximum``/``cp.minimum`` with
            an affine piece: the hinge, absolute, pinball and ε-insensitive losses) are
            replaced by their Huberizations of half-width h
            (:func:`~dpconvex.objectives.atoms.smooth_kinks`; [CMS]_ Section 3.4.2 for the
            hinge): the slope bound stays, the curvature is each kink's slope jump / (2h),
            and the certificate states h and the largest change of the loss. A float is h;
            "auto" lets the estimator choose h with Λ by its public rule
            (:func:`dpconvex.privacy.rules.noise_level.resolve_smoothing`); None keeps the kinks
            (curvature ∞: noisy gradient descent only, as no solver certifies the minimizer of
            a kinked loss). A loss without kinks is not changed.

        Returns
        -------
        CVXPYLoss

        Raises
        ------
        ParameterError
            An unknown or refused kind, an atom with no numeric rule,
            or ``fn`` that raises, or gives no scalar DCP-convex expression of the prediction,
            or one that is not elementwise (built on a vector of predictions it is not the loss
            of each: a reduction such as ``cp.log_sum_exp(m)``), or a regression loss whose
            slope does not read its label.

        Examples
        --------
        >>> import cvxpy as cp
        >>> from dpconvex.objectives import Loss
        >>> loss = Loss.from_cvxpy(lambda z, y: cp.huber(z - y, 0.5), kind="regression",
        ...                        name="huber", label_range=(0.0, 10.0))
        >>> loss.deriv_bound, loss.curvature
        (1.0, 2.0)
        >>> loss.deriv(np.array([0.0, 3.0]), np.array([0.25, 0.0])).tolist()
        [-0.5, 1.0]
        >>> hinge = Loss.from_cvxpy(lambda m: cp.pos(1 - m), smoothing=0.5)
        >>> hinge.deriv_bound, hinge.curvature, hinge.smoothed_kinks.gap
        (1.0, 1.0, 0.125)
        """
        return CVXPYLoss(fn, kind=kind, name=name, label_range=label_range,
                         deriv_bound=deriv_bound, curvature=curvature, smoothing=smoothing)


def _subexpressions(expr: Any) -> list[Any]:
    """``expr`` and every expression below it."""
    return [expr, *(e for arg in getattr(expr, "args", ()) for e in _subexpressions(arg))]


@dataclass(frozen=True)
class SmoothingCandidate:
    """The constants of a stated loss smoothed at one h (:meth:`CVXPYLoss.smoothing_candidate`)."""

    kind: str
    deriv_bound: float
    curvature: float
    smoothed_kinks: Any


def _checked_declarations(kind: str, label_range: Any, deriv_bound: float | None,
                          curvature: float | None
                          ) -> tuple[tuple[float, float] | None, float | None, float | None]:
    """:meth:`Loss.from_cvxpy`'s label range (regression only) and declared bounds, checked.

    Raises
    ------
    ParameterError
        A label range given to a margin loss, or a bound that is not a number of the kind asked.
    """
    if kind == "regression":
        label_range = parse_label_range(label_range, "Loss.from_cvxpy")
    elif label_range is not None:
        raise ParameterError("Loss.from_cvxpy: a margin loss takes labels in {-1, +1}: give "
                             "label_range only with kind='regression'.")
    if deriv_bound is not None:
        deriv_bound = check_float(
            "deriv_bound", deriv_bound, "Loss.from_cvxpy", magnitude=False
        )
    if curvature is not None:  # ∞: a kinked loss declared so (noisy gradient descent only)
        curvature = check_float("curvature", curvature, "Loss.from_cvxpy", low_inclusive=True,
                                allow_inf=True, magnitude=False)
    return label_range, deriv_bound, curvature


def _stacks_in(expr: cp.Expression) -> bool:
    """Whether the tree stacks a record's pieces (cp.max(cp.hstack([1 - m, 0]))): a reduction
    over such a stack is per record, and its atoms, not a reduction, are the reason to refuse."""
    return any(type(e) in _STACKS for e in _subexpressions(expr))


def _refuse_outside_table(name: str, form: Any) -> None:
    """Refuse a stated loss whose NumPy form cannot be derived from the atom table."""
    from .atoms import ATOMS

    outside = sorted(
        {type(e).__name__ for e in _subexpressions(form.expr)}
        - set(ATOMS)
        - {"Variable", "Parameter", "Constant"}
    )
    raise ParameterError(
        f"Loss.from_cvxpy: loss '{name}' uses an atom outside "
        f"dpconvex.objectives.atoms.ATOMS ({', '.join(outside) or 'none here'}), a "
        "complex, "
        "non-scalar or non-finite constant (also once its factors are multiplied out), a "
        "division "
        "by zero, or a log_sum_exp piece that is not one number, so its NumPy form "
        "cannot be derived. Use the atoms listed there on real numbers, or subclass "
        "dpconvex.objectives.Loss with value, deriv, deriv2 and cvxpy_expr."
    )


def _refuse_label_unread(name: str) -> None:
    """Refuse a regression loss whose slope does not read its label: it fits no labels."""
    raise ParameterError(  # 0 * y and y - y fold away; a term y alone moves no minimizer
        f"Loss.from_cvxpy: loss '{name}': fn(z, y) does not read its label y in its "
        "slope "
        "(y is absent, has a factor 0, or is a term of its own, which moves no "
        "prediction), so the "
        "model it fits would not depend on the labels. State a loss of the prediction and "
        "the "
        "label, e.g. cp.abs(z - y), cp.huber(z - y, M) or the pinball loss (a loss of z "
        "alone is "
        "a margin loss: kind='margin')."
    )


class CVXPYLoss(Loss):
    """A loss stated in CVXPY atoms (:meth:`Loss.from_cvxpy`): one expression, every form.

    Examples
    --------
    >>> import cvxpy as cp
    >>> from dpconvex.objectives import Loss
    >>> loss = Loss.from_cvxpy(lambda m: cp.logistic(-m), name="my_logistic")
    >>> loss.kind, loss.deriv_bound, loss.curvature
    ('margin', 1.0, 0.25)
    """

    name = "cvxpy_loss"  # type: ignore[misc]

    def __init__(self, fn: Callable[..., cp.Expression], *, kind: str = "margin",
                 name: str | None = None, label_range: tuple[float, float] | None = None,
                 deriv_bound: float | None = None, curvature: float | None = None,
                 smoothing: float | str | None = "auto", _stated: _Statement | None = None):
        from .atoms import CompiledForm, bounds_of_form, smooth_kinks

        if kind == "multiclass":
            raise ParameterError(MULTICLASS_REFUSAL)
        if kind not in ("margin", "regression"):
            raise ParameterError(f"The 'kind' parameter of Loss.from_cvxpy must be one of "
                                 f"['margin', 'regression', 'multiclass']. Got {kind!r} instead.")
        if kind == "regression" and label_range is None:
            self._await_label_range(fn, name, deriv_bound, curvature, smoothing)
            return
        label_range, deriv_bound, curvature = _checked_declarations(
            kind, label_range, deriv_bound, curvature)
        self.stated_fn = fn
        self.kind = kind  # type: ignore[misc]
        self.name = name or "cvxpy_loss"  # type: ignore[misc]
        self.label_range = label_range
        self._declared = (deriv_bound, curvature)
        #: The smoothing asked for ("auto", h or None); :attr:`smoothed_kinks` is what was done.
        self.smoothing_rule = SMOOTHING_RULE.check("smoothing", smoothing, "Loss.from_cvxpy")
        #: :class:`~dpconvex.objectives.atoms.Smoothing` of the kinks replaced, or None.
        self.smoothed_kinks = None
        # fn is called once, here (``_stated``: the statement of the loss this one smooths):
        # every form, bound and probe below reads this one tree, so a global or a state fn
        # reads that changes later changes nothing of the loss
        self._stated = stated = _stated or _state(fn, kind, self.name, label_range)
        # a statement given is checked already (that of the loss this one smooths); a
        # reduction over the predictions is refused first (one over a stack per record not),
        # a form that differs in its values only after the atoms (a NumPy form that cannot be
        # derived is the better reason)
        failure = None if _stated is not None else _elementwise_failure(stated)
        if failure is not None and failure[1] and not _stacks_in(stated.expr):
            _refuse_not_elementwise(self.name, kind, failure[0])
        # a kink inside an atom with zero slope there (cp.huber(cp.pos(u), M)) is smooth
        self.has_kinks = (stated.kink_atom and stated.bounds is not None
                          and math.isinf(stated.bounds.curvature))
        #: Kinks left for an estimator's rule (``smoothing="auto"``, not yet at an h).
        self.smoothing_unresolved = self.has_kinks and self.smoothing_rule == "auto"
        expr, derived = stated.expr, stated.bounds
        if self.has_kinks and isinstance(self.smoothing_rule, float):
            expr, self.smoothed_kinks = smooth_kinks(stated.expr, self.smoothing_rule)
            derived = bounds_of_form(expr, stated.label, label_range)
        # the NumPy forms: compiled once, from the tree the loss is (stated or smoothed)
        self._form = CompiledForm(lambda *_: expr, with_label=stated.label is not None,
                                  inputs=(stated.z, stated.label))
        if not self._form.supported:
            _refuse_outside_table(self.name, self._form)
        if failure is not None:
            _refuse_not_elementwise(self.name, kind, failure[0])
        if kind == "regression" and self._form.reads()[0] and not self._form.reads(slope=True)[1]:
            _refuse_label_unread(self.name)
        self.derived = derived
        self.deriv_bound = (float(derived.slope) if deriv_bound is None and derived is not None
                            else math.nan if deriv_bound is None else deriv_bound)
        self.curvature = (float(derived.curvature) if curvature is None and derived is not None
                          else math.inf if curvature is None else curvature)

    def _await_label_range(self, fn: Callable[..., cp.Expression], name: str | None,
                           deriv_bound: float | None, curvature: float | None,
                           smoothing: float | str | None) -> None:
        """A regression loss stated without its label range: it takes a regressor's.

        The regressor maps its labels onto [-1, 1] by its public ``label_range`` and binds the
        loss there (:meth:`on_label_range`); until then nothing is derived and no template
        takes it.
        """
        kind = "regression"
        self.stated_fn, self.kind, self.name = fn, kind, name or "cvxpy_loss"  # type: ignore[misc]
        self.label_range = None
        self._declared = (deriv_bound, curvature)
        self.smoothing_rule = SMOOTHING_RULE.check("smoothing", smoothing, "Loss.from_cvxpy")
        self.smoothed_kinks = None
        self.has_kinks = self.smoothing_unresolved = False
        self.derived = None
        self.deriv_bound, self.curvature = math.nan, math.inf

    @property
    def awaits_label_range(self) -> bool:
        """Whether this regression loss was stated without its label range (a regressor's)."""
        return self.kind == "regression" and self.label_range is None

    def on_label_range(self, label_range: tuple[float, float]) -> CVXPYLoss:
        """This loss stated on ``label_range``: its bounds derived there (a new loss).

        A regression loss stated without ``label_range`` takes a regressor's: the regressor
        maps its labels onto [-1, 1] by its own public ``label_range`` and binds the loss there,
        so the range is stated once, on the estimator.

        Examples
        --------
        >>> import cvxpy as cp
        >>> from dpconvex.objectives import Loss
        >>> pinball = Loss.from_cvxpy(lambda z, y: cp.maximum(0.8 * (y - z), 0.2 * (z - y)),
        ...                           kind="regression", smoothing=0.1)
        >>> pinball.awaits_label_range, pinball.on_label_range((-1.0, 1.0)).curvature
        (True, 5.0)
        """
        deriv_bound, curvature = self._declared
        return CVXPYLoss(
            self.stated_fn,
            kind=self.kind,
            name=self.name,
            label_range=label_range,
            deriv_bound=deriv_bound,
            curvature=curvature,
            smoothing=self.smoothing_rule,
        )

    # the compiled form reads y only for a regression loss (a margin form has no label)
    def value(self, z, y=None):
        return self._form.evaluate(z, y, second=False)[0]

    def deriv(self, z, y=None):
        return self._form.evaluate(z, y, second=False)[1]

    def deriv2(self, z, y=None):
        return self._form.evaluate(z, y)[2]

    def value_and_deriv(self, z, y=None):
        if type(self).value is not CVXPYLoss.value or type(self).deriv is not CVXPYLoss.deriv:
            return super().value_and_deriv(z, *(() if y is None else (y,)))  # a subclass's loss
        return self._form.evaluate(z, y, second=False)

    def dcp_form(self):
        if type(self).cvxpy_expr is not CVXPYLoss.cvxpy_expr:
            return super().dcp_form()  # a subclass's own form
        return self._form.expr  # the compiled form of one prediction (the label a parameter)

    def cvxpy_expr(self, z, y=None):
        from .atoms import vectorize  # the one tree, built on the predictions given

        return vectorize(self._form.expr, self._form.z, self._form.label, z, y)

    def smoothing_candidate(self, h: float) -> SmoothingCandidate:
        """The constants :meth:`smoothed` at ``h`` would have, without compiling its NumPy forms.

        What a rule choosing h among candidates reads (``kind``, ``deriv_bound``, ``curvature``,
        ``smoothed_kinks``), derived from the same smoothed tree as :meth:`smoothed`'s.

        Examples
        --------
        >>> import cvxpy as cp
        >>> from dpconvex.objectives import Loss
        >>> hinge = Loss.from_cvxpy(lambda m: cp.pos(1 - m))
        >>> hinge.smoothing_candidate(0.25).curvature == hinge.smoothed(0.25).curvature == 2.0
        True
        """
        from .atoms import bounds_of_form, smooth_kinks

        stated = self._stated
        tree, kinks = smooth_kinks(stated.expr, float(h))
        derived = bounds_of_form(tree, stated.label, self.label_range)
        deriv_bound, curvature = self._declared
        return SmoothingCandidate(
            kind=self.kind,
            deriv_bound=(float(derived.slope) if deriv_bound is None and derived is not None
                         else math.nan if deriv_bound is None else deriv_bound),
            curvature=(float(derived.curvature) if curvature is None and derived is not None
                       else math.inf if curvature is None else curvature),
            smoothed_kinks=kinks)

    def smoothed(self, h: float) -> CVXPYLoss:
        """This loss with its kinks Huberized at half-width ``h`` (itself when it has none).

        Examples
        --------
        >>> import cvxpy as cp
        >>> from dpconvex.objectives import Loss
        >>> Loss.from_cvxpy(lambda m: cp.pos(1 - m)).smoothed(0.25).curvature
        2.0
        """
        if not self.has_kinks:
            return self
        deriv_bound, curvature = self._declared
        return CVXPYLoss(self.stated_fn, kind=self.kind, name=self.name,
                         label_range=self.label_range, deriv_bound=deriv_bound,
                         curvature=curvature, smoothing=float(h), _stated=self._stated)

    def params(self):
        out: dict[str, Any] = {"kind": self.kind, "name": self.name}
        if self.label_range is not None:
            out["label_range"] = self.label_range
        if self.has_kinks:
            out["smoothing"] = self.smoothing_rule
        return out


def stated_loss(fn: Callable[..., cp.Expression], kind: str, owner: str,
                label_range: tuple[float, float] | None = None) -> CVXPYLoss:
    """The loss an estimator's ``loss=`` callable states: ``fn(m)`` (margin) or ``fn(z, y)``.

    Compiled by :meth:`Loss.from_cvxpy` with the defaults (``smoothing="auto"``), named after
    the function; a callable of the other arity is refused by name.

    Examples
    --------
    >>> import cvxpy as cp
    >>> from dpconvex.objectives.losses import stated_loss
    >>> stated_loss(lambda m: cp.logistic(-m), "margin", "Model").curvature
    0.25
    """
    import inspect

    want = 1 if kind == "margin" else 2
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin without a signature: its call will tell
        signature = None
    if signature is not None:
        try:  # further parameters with defaults (fn(z, y, tau=0.8)) or a partial are fine
            signature.bind(*range(want))
        except TypeError:
            args = (
                "fn(m) of the margin m = y·wᵀx"
                if kind == "margin"
                else "fn(z, y) of the prediction z and the label y"
            )
            raise ParameterError(
                f"The 'loss' parameter of {owner}: a callable loss here is {args}; the function "
                "given, "
                f"{getattr(fn, '__name__', 'loss')}{signature}, cannot be called with {want} "
                "positional "
                f"argument(s). State the loss with {want} argument(s) (further parameters need "
                "defaults, "
                "or bind them with functools.partial), or pass a dpconvex.objectives.Loss."
            ) from None
    name = getattr(fn, "__name__", "cvxpy_loss")
    return Loss.from_cvxpy(
        fn, kind=kind, name=None if name == "<lambda>" else name, label_range=label_range
    )


#: The half-widths h of a smoothed kink, and a shipped loss's h or M: at h = 1e8 a hinge fails the float64
#: check of its values against its slopes, at h = 1e-12 it is a kink to float64 (1e-6 keeps a margin).
SMOOTHING_LIMITS = (1e-6, 1e6)
_WIDTH = dict(
    low=SMOOTHING_LIMITS[0], high=SMOOTHING_LIMITS[1], low_inclusive=True, high_inclusive=True
)
#: The parameter rule of an estimator's h or Huber M: a float within :data:`SMOOTHING_LIMITS`,
#: checked and stated by the estimator that takes it.
WIDTH_RULE = Float(**_WIDTH)
#: The rule of a loss's ``smoothing``: "auto" (chosen with Λ), None (its kinks kept) or a half-width h
#: within :data:`SMOOTHING_LIMITS`.
SMOOTHING_RULE = Optional(Auto(WIDTH_RULE))


#: The kinked atoms of the table, by their exact class.
_KINK_ATOMS = frozenset({cp.atoms.elementwise.maximum.maximum,
                         cp.atoms.elementwise.minimum.minimum, cp.atoms.elementwise.abs.abs})


def _has_kink_atom(expr: cp.Expression) -> bool:
    """Whether the form holds a maximum, minimum or abs of the prediction (or label)."""
    stack = [expr]
    while stack:
        e = stack.pop()
        if type(e) in _KINK_ATOMS and (e.variables() or e.parameters()):
            return True
        stack.extend(e.args)
    return False


#: Why ``Loss.from_cvxpy(kind="multiclass")`` is refused, and what to use instead.
MULTICLASS_REFUSAL = (
    "Loss.from_cvxpy: a loss of C predictions z = Wᵀx in ℝ^C (kind='multiclass', e.g. "
    "cp.log_sum_exp(z) - "
    "z[y]) is refused: objective perturbation for it needs the per-record Hessian's rank C and a "
    "bound on "
    "its largest eigenvalue over all of ℝ^C, and "
    "docs/privacy/user_objectives.md#privacy-margin-loss-bounds "
    "derives bounds for a scalar prediction only (rank one), so the verifier could not check the "
    "constants "
    "the noise depends on. For multinomial logistic regression use "
    "dp.PrivateLargeMarginGaussian(loss='softmax', structure='linear') (the softmax loss of "
    "privacy-large-margin-softmax, derived and audited), or one-vs-rest "
    "dp.PrivateLogisticRegression."
)


@dataclass(frozen=True, eq=False)
class _Statement:
    """A loss stated once (:func:`_state`): ``fn`` built on a scalar prediction ``z`` (and a
    scalar label parameter), checked, with the facts of that tree every smoothing of it reads.
    A smoothing rewrites this tree; nothing calls ``fn`` again."""

    expr: cp.Expression
    z: cp.Variable
    label: cp.Parameter | None
    #: The atom table's bounds of ``expr`` over the loss's label range (None: an atom it has
    #: no rule for): its curvature is ∞ at a kink left, or an atom of unbounded slope.
    bounds: Any
    #: Whether ``expr`` holds a maximum, minimum or abs of the prediction (or label).
    kink_atom: bool


def _state(fn: Callable[..., cp.Expression], kind: str, name: str,
           label_range: tuple[float, float] | None) -> _Statement:
    """``fn`` built on a scalar prediction (and label), checked: a scalar, DCP-convex expression
    of the prediction, every part of it of CVXPY's own classes; kept with its constants read
    once (:func:`~dpconvex.objectives.atoms.frozen`) and its bounds derived on
    ``label_range``."""
    from .atoms import bounds_of_form, frozen, refuse_foreign

    args = "(z, y)" if kind == "regression" else "(m)"
    z, label = cp.Variable(), cp.Parameter() if kind == "regression" else None
    try:
        expr = fn(z) if label is None else fn(z, label)
    except Exception as exc:  # the user's function, called on CVXPY objects
        raise ParameterError(
            f"Loss.from_cvxpy: loss '{name}': fn{args} raised {type(exc).__name__} ({exc}) when "
            "called on a scalar CVXPY variable. Build the loss of one prediction from CVXPY "
            "atoms, elementwise (a loss of C predictions is kind='multiclass').") from None
    if isinstance(expr, cp.Expression):  # every read below is of CVXPY's own classes
        refuse_foreign(expr, f"Loss.from_cvxpy: loss '{name}': fn{args}")
    if isinstance(expr, cp.Expression) and len(expr.variables()) > 1:
        names = ", ".join(sorted(v.name() for v in expr.variables() if v.id != z.id))
        raise ParameterError(
            f"Loss.from_cvxpy: loss '{name}': fn{args} reads CVXPY variables other than its "
            f"argument ({names}). A loss is a function of the prediction (and the label) only: "
            "write the other quantities as constants.")
    label_id = None if label is None else label.id
    stated = [
        p
        for p in (expr.parameters() if isinstance(expr, cp.Expression) else [])
        if p.id != label_id
    ]
    if stated:
        shown = ", ".join(f"{p.name()} (value {p.value})" for p in stated)
        raise ParameterError(
            f"Loss.from_cvxpy: loss '{name}': fn{args} reads cp.Parameter {shown}, which can "
            "change after its bounds are derived. Write its value as a constant (e.g. "
            "2.0 * m for a parameter of value 2), and state the loss again to change it.")
    if not isinstance(expr, cp.Expression) or not expr.variables():
        raise ParameterError(
            f"Loss.from_cvxpy: loss '{name}': fn{args} gave {type(expr).__name__} "
            f"{_short_repr(expr, 40)}, not a CVXPY expression of its first argument. Return an "
            "expression built from it, e.g. cp.logistic(-m).")
    if expr.size != 1:
        raise ParameterError(
            f"Loss.from_cvxpy: loss '{name}': fn{args} gave an expression of shape "
            f"{expr.shape}, not a scalar, for a scalar prediction. Return one number per "
            "record (a loss of C predictions is kind='multiclass').")
    unknown_sign = " (the label y is a parameter of unknown sign)" if kind == "regression" else ""
    if not expr.is_convex():
        raise ParameterError(
            f"Loss.from_cvxpy: loss '{name}': fn{args} = {expr} is not convex in the prediction "
            "by "
            f"CVXPY's DCP rules{unknown_sign}, and the privacy proofs need a convex loss. State a "
            "convex "
            "loss in DCP form (e.g. cp.huber(z - y, M), cp.logistic(-m), cp.pos(1 - m))."
        )
    expr = frozen(expr)  # its constants read once: the one tree every form and bound reads
    return _Statement(expr, z, label, bounds_of_form(expr, label, label_range),
                      _has_kink_atom(expr))


#: CVXPY atoms that stack a record's pieces into a vector (a loss of one record may reduce over
#: them), by their exact class.
_STACKS = frozenset({cp.atoms.affine.hstack.Hstack, cp.atoms.affine.vstack.Vstack,
                     cp.atoms.affine.concatenate.Concatenate})

#: Predictions (and labels) at which a stated loss built on a vector is compared with its value
#: at each point alone (:func:`_elementwise_failure`).
ELEMENTWISE_PROBE: tuple[tuple[float, ...], tuple[float, ...]] = (
    (-1.5, 0.25, 2.0),
    (0.5, -0.75, 0.0),
)


def _elementwise_failure(form: Any) -> tuple[str, bool] | None:
    """How the form, built on a vector of predictions as the CVXPY backends build it, differs from
    the loss of each prediction alone, and whether its shape differs (a reduction over the vector:
    ``cp.max(m)``, ``cp.norm(m)``); None when it does not differ. ``cp.log_sum_exp(m)`` is one
    number of a scalar m, and mixes the records of a vector."""
    from .atoms import vectorize

    points, labels = (np.array(v) for v in ELEMENTWISE_PROBE)
    z = cp.Variable(points.size, value=points)
    try:
        with np.errstate(all="ignore"):
            built = vectorize(
                form.expr, form.z, form.label, z, None if form.label is None else labels
            )
            found = np.asarray(getattr(built, "value", built), dtype=float)
            alone = []
            for i, point in enumerate(points):
                form.z.value = point
                if form.label is not None:
                    form.label.value = labels[i]
                alone.append(form.expr.value)
            alone_values = np.asarray(alone, dtype=float).ravel()
    except Exception as exc:  # an atom CVXPY cannot build on a vector, or evaluate
        return f"raises {type(exc).__name__} ({exc})", True
    finally:
        form.z.value = None
        if form.label is not None:
            form.label.value = None

    def shown(values: Any) -> str:
        return np.array2string(np.asarray(values), precision=4, separator=", ")

    if found.shape != points.shape:
        return f"gives shape {found.shape}, where each alone gives {shown(alone_values)}", True
    if np.allclose(found, alone_values, rtol=1e-9, atol=1e-12, equal_nan=True):
        return None
    return f"gives {shown(found)}, where each alone gives {shown(alone_values)}", False


def _refuse_not_elementwise(name: str, kind: str, failure: str) -> None:
    """Raise the refusal of a loss that is not elementwise, ``failure`` saying how it differs."""
    args, what = ("(z, y)", "predictions") if kind == "regression" else ("(m)", "margins")
    shown = np.array2string(np.array(ELEMENTWISE_PROBE[0]), separator=", ")
    raise ParameterError(
        f"Loss.from_cvxpy: loss '{name}': fn{args} is not elementwise: built on a vector of "
        f"{len(ELEMENTWISE_PROBE[0])} {what} {shown} it {failure}. A loss acts on each record "
        "alone; "
        "a reduction over its argument (cp.log_sum_exp(m), cp.max(m), cp.norm(m), "
        "cp.sum_squares(m)) "
        "mixes the records. State it with elementwise atoms: cp.logistic(u) for log(1 + e^u), "
        "cp.pos(u) "
        "for max(u, 0), cp.abs, cp.huber, cp.square (or cp.log_sum_exp(cp.hstack([0, u])), one "
        "number per record)."
    )


#: The largest magnitude of a label range's ends and the smallest width: the map onto
#: [−1, 1], (y − (lo + hi)/2)/((hi − lo)/2), stays finite and exact to a few ulps within them.
LABEL_RANGE_LIMITS: tuple[float, float] = (1e100, 1e-100)


def parse_label_range(label_range: Any, caller: str | None = None) -> tuple[float, float] | None:
    """(lo, hi) as finite floats with lo < hi, |lo|, |hi| <= 1e100 and hi − lo >= 1e-100
    (:data:`LABEL_RANGE_LIMITS`), or None when ``label_range`` is not one (with ``caller``,
    the public call: a named error instead).

    Examples
    --------
    >>> from dpconvex.objectives.losses import parse_label_range
    >>> parse_label_range((0, 10)), parse_label_range((1, 1)), parse_label_range((-1e308, 1e308))
    ((0.0, 10.0), None, None)
    >>> parse_label_range((True, 5)) is None   # a bool is not a number here
    True
    """
    try:
        if isinstance(label_range, (Mapping, Set)):
            # an ordered pair only: a dict's keys or a set's order are not (lo, hi)
            raise TypeError
        lo, hi = label_range
        if isinstance(lo, (str, bytes, bool, np.bool_)) or isinstance(
            hi, (str, bytes, bool, np.bool_)
        ):
            # numbers only: neither text nor a bool is read as one (as for epsilon)
            raise TypeError
        lo, hi = float(lo), float(hi)
    except (TypeError, ValueError, OverflowError):  # e.g. an int beyond the float range
        lo = hi = math.nan
    largest, narrowest = LABEL_RANGE_LIMITS
    if abs(lo) <= largest and abs(hi) <= largest and hi - lo >= narrowest:
        return lo, hi
    if caller is None:
        return None
    raise ParameterError(f"{caller}: label_range must be (lo, hi), finite floats with lo < hi "
                         f"(the public range of the labels), |lo| and |hi| at most {largest:g} "
                         f"and hi - lo at least {narrowest:g}. "
                         f"Got {describe_value(label_range)} instead.")


class Logistic(Loss):
    """ℓ(m) = log(1 + exp(-m)); |ℓ'| < 1, ℓ'' <= 1/4 ([CMS]_ Section 3.4.1).

    Examples
    --------
    >>> loss = Logistic()
    >>> loss.name, loss.deriv_bound, loss.curvature
    ('logistic', 1.0, 0.25)
    >>> loss.deriv(np.array([0.0]))
    array([-0.5])
    """

    name = "logistic"
    derivation = "docs/privacy/linear_erm.md#privacy-loss-constants"
    deriv_bound = 1.0
    curvature = 0.25

    def value(self, m):
        return np.logaddexp(0.0, -np.asarray(m, dtype=float))

    def deriv(self, m):
        return -expit(-np.asarray(m, dtype=float))

    def deriv2(self, m):
        s = expit(np.asarray(m, dtype=float))
        return s * (1.0 - s)

    def value_and_deriv(self, m):
        # one exp for both: with e = exp(-|m|), ℓ = max(-m, 0) + log1p(e) and
        # ℓ' = -1/(1 + e^m) = -e/(1 + e) for m >= 0, -1/(1 + e) for m < 0 (no overflow).
        # About 20% of a native Adult solve (measured against value() + deriv()).
        if type(self).value is not Logistic.value or type(self).deriv is not Logistic.deriv:
            return super().value_and_deriv(m)  # a subclass changed the loss
        m = np.asarray(m, dtype=float)
        e = np.exp(-np.abs(m))
        inv = 1.0 / (1.0 + e)
        val = np.log1p(e)
        val += np.maximum(-m, 0.0)
        return val, -np.where(m >= 0, e * inv, inv)

    def cvxpy_expr(self, m):
        return cp.logistic(-m)


def _at_least(exact: Fraction) -> float:
    """The float nearest ``exact``, one float up where that lies below it: a bound stated in
    floats that holds in real arithmetic (as the atom table rounds its bounds outward).

    Examples
    --------
    >>> from fractions import Fraction
    >>> from dpconvex.objectives.losses import _at_least
    >>> _at_least(Fraction(1, 2)), _at_least(Fraction(1, 3)) >= Fraction(1, 3)
    (0.5, True)
    """
    value = float(exact)
    return math.nextafter(value, math.inf) if Fraction(value) < exact else value


def _huberized(h: float | None) -> Smoothing | None:
    """The record of one kink Huberized at half-width ``h`` (None: the kink kept), as
    :func:`~dpconvex.objectives.atoms.smooth_kinks` states it: the loss changes by at most
    (slope jump)·h/4, and the jump of the hinge's and the pinball loss's slope is 1."""
    return None if h is None else Smoothing(h, 1, h / 4.0)


class _HingeWidth:
    """The hinge's kink at m = 1 smoothed over [1 − h, 1 + h] (:class:`HuberHinge`,
    :class:`SmoothHinge`): the kinks and the one parameter h."""

    h: float

    @property
    def kinks(self) -> tuple[float, float]:
        return (1.0 - self.h, 1.0 + self.h)

    def params(self) -> dict[str, Any]:
        return {"h": self.h}


def hinge(m: cp.Expression) -> cp.Expression:
    """The hinge loss max(0, 1 − m) as CVXPY's SVM example states it (kinked at m = 1).

    Examples
    --------
    >>> import cvxpy as cp
    >>> from dpconvex.objectives.losses import hinge
    >>> float(hinge(cp.Constant(0.25)).value)
    0.75
    """
    return cp.pos(1 - m)


class HuberHinge(_HingeWidth, Loss):
    """Huber hinge ([CMS]_ eq. 35): the hinge :func:`hinge` with its kink smoothed at half-width h > 0.

    With s = 1 − m: ℓ = 0 for s < −h; (s + h)²/(4h) for |s| <= h; s for s > h. This is
    ``cp.pos(1 - m)`` with its kink Huberized by
    :func:`~dpconvex.objectives.atoms.smooth_kinks` (pos_h(s) = huber(pos(s + h), 2h)/(4h), the
    CVXPY form): |ℓ'| <= 1, ℓ'' <= 1/(2h), within h/4 of the hinge
    (docs/privacy/linear_erm.md#privacy-loss-constants).

    Examples
    --------
    >>> from dpconvex.objectives import HuberHinge
    >>> loss = HuberHinge(h=0.5)
    >>> loss.deriv_bound, loss.curvature, loss.kinks
    (1.0, 1.0, (0.5, 1.5))
    >>> loss.value(np.array([-1.0, 1.0, 2.0]))
    array([2.   , 0.125, 0.   ])
    >>> loss.smoothed_kinks
    Smoothing(h=0.5, kinks=1, gap=0.125)
    """

    name = "huber"
    derivation = "docs/privacy/linear_erm.md#privacy-loss-constants"
    deriv_bound = 1.0
    #: The hinge's kink, Huberized at h (:attr:`smoothed_kinks`).
    has_kinks: ClassVar[bool] = True
    smoothing_unresolved: ClassVar[bool] = False

    def __init__(self, h: float = 0.5):
        self.h = check_float("h", h, type(self).__name__, **_WIDTH)

    @property
    def curvature(self) -> float:  # type: ignore[override]
        return _at_least(1 / (2 * Fraction(self.h)))

    @property
    def smoothed_kinks(self) -> Smoothing:
        """h, one kink and the largest change of the hinge, h/4 (at m = 1)."""
        return _huberized(self.h)

    def _value_and_slope(self, m: Any) -> tuple[np.ndarray, np.ndarray]:
        """(ℓ, −ℓ'): with p = pos(1 + h − m) and t = min(p/(2h), 1) = −ℓ', ℓ = p²/(4h) for
        p <= 2h (0 at m >= 1 + h) and p − h = 1 − m beyond."""
        h = self.h
        p = np.maximum((1.0 + h) - np.asarray(m, dtype=float), 0.0)
        return np.where(p > 2.0 * h, p - h, p * p / (4.0 * h)), np.minimum(p / (2.0 * h), 1.0)

    def value(self, m):
        return self._value_and_slope(m)[0]

    def deriv(self, m):
        return -self._value_and_slope(m)[1]

    def value_and_deriv(self, m):
        if type(self).value is not HuberHinge.value or type(self).deriv is not HuberHinge.deriv:
            return super().value_and_deriv(m)  # a subclass changed the loss
        value, t = self._value_and_slope(m)
        return value, -t

    def deriv2(self, m):
        s = 1.0 - np.asarray(m, dtype=float)
        return np.where(np.abs(s) <= self.h, 1.0 / (2.0 * self.h), 0.0)

    def cvxpy_expr(self, m):
        h = self.h
        return cp.huber(cp.pos(1.0 + h - m), 2.0 * h) / (4.0 * h)

    def kinked_form(self) -> tuple[Callable[[cp.Expression], cp.Expression], float]:
        """The loss before smoothing, :func:`hinge`, and the half-width h at which
        :func:`~dpconvex.objectives.atoms.smooth_kinks` Huberizes its kink into
        :meth:`cvxpy_expr` (how :func:`dpconvex.privacy.checks.solved_loss` compiles a
        subclass).

        Examples
        --------
        >>> from dpconvex.objectives import HuberHinge
        >>> fn, h = HuberHinge(0.25).kinked_form()
        >>> fn is hinge, h
        (True, 0.25)
        """
        return hinge, self.h


class SmoothHinge(_HingeWidth, Loss):
    """Smooth hinge ℓ_s ([CMS]_ eq. 23), with parameter h > 0.

    With s = 1 - m: ℓ = 0 for s < -h; 1 - m for s > h; and
    -s^4/(16 h^3) + 3 s^2/(8h) + s/2 + 3h/16 on |s| <= h. ℓ is C^2,
    |ℓ'| <= 1 and ℓ'' = 3/(4h) (1 - s^2/h^2) <= 3/(4h).

    No exact DCP form (the quartic piece): native solver only (``has_cvxpy = False``).

    Examples
    --------
    >>> from dpconvex.objectives import SmoothHinge
    >>> loss = SmoothHinge(h=0.5)
    >>> loss.deriv_bound, loss.curvature
    (1.0, 1.5)
    >>> float(loss.value(np.array([2.0]))[0])
    0.0
    """

    name = "smooth_hinge"
    derivation = "docs/privacy/linear_erm.md#privacy-loss-constants"
    has_cvxpy = False
    deriv_bound = 1.0

    def __init__(self, h: float = 0.5):
        self.h = check_float("h", h, type(self).__name__, **_WIDTH)

    @property
    def curvature(self) -> float:  # type: ignore[override]
        return 3.0 / (4.0 * self.h)

    def value(self, m):
        s, h = self._s(m), self.h
        mid = -(s**4) / (16 * h**3) + 3 * s**2 / (8 * h) + s / 2 + 3 * h / 16
        return np.where(s > h, s, np.where(s < -h, 0.0, mid))

    def deriv(self, m):
        s, h = self._s(m), self.h
        mid = -(s**3) / (4 * h**3) + 3 * s / (4 * h) + 0.5
        return -np.where(s > h, 1.0, np.where(s < -h, 0.0, mid))

    def deriv2(self, m):
        s, h = self._s(m), self.h
        return np.where(np.abs(s) <= h, 3.0 / (4 * h) * (1 - s**2 / h**2), 0.0)

    @staticmethod
    def _s(m: Any) -> np.ndarray:
        return 1.0 - np.asarray(m, dtype=float)


class HuberRegression(Loss):
    """ℓ(z, y) = huber_M(z − y) / (2M): squared near the label, linear beyond M.

    With r = z − y: r²/(2M) for |r| <= M, |r| − M/2 beyond. |∂ℓ/∂z| <= 1 and ∂²ℓ/∂z²
    <= 1/M on all of ℝ, whatever the label (docs/privacy/user_objectives.md#privacy-prediction-losses).

    Examples
    --------
    >>> from dpconvex.objectives import HuberRegression
    >>> loss = HuberRegression(0.5, label_range=(0.0, 1.0))
    >>> loss.deriv_bound, loss.curvature
    (1.0, 2.0)
    >>> loss.value(np.array([0.0, 2.0]), np.array([0.25, 0.0])).tolist()
    [0.0625, 1.75]
    """

    name = "huber_regression"
    kind = "regression"
    derivation = "docs/privacy/user_objectives.md#privacy-prediction-losses"
    deriv_bound = 1.0

    def __init__(self, M: float = 0.5, label_range: tuple[float, float] = (-1.0, 1.0)):
        self.M = check_float("M", M, type(self).__name__, **_WIDTH)
        self.label_range = parse_label_range(label_range, type(self).__name__)

    @staticmethod
    def _r(z: Any, y: Any) -> np.ndarray:
        """The residual z − y."""
        return np.asarray(z, dtype=float) - np.asarray(y, dtype=float)

    @property
    def curvature(self) -> float:  # type: ignore[override]
        return 1.0 / self.M

    def value(self, z, y=None):
        r = self._r(z, y)
        a = np.abs(r)
        return np.where(a <= self.M, r * r / (2 * self.M), a - self.M / 2)

    def deriv(self, z, y=None):
        r = self._r(z, y)
        return np.clip(r / self.M, -1.0, 1.0)

    def deriv2(self, z, y=None):
        r = self._r(z, y)
        return np.where(np.abs(r) <= self.M, 1.0 / self.M, 0.0)

    def cvxpy_expr(self, z, y=None):
        return cp.huber(z - y, self.M) / (2 * self.M)

    @property
    def kinks(self):
        """Where ∂²ℓ/∂z² jumps, as residuals z − y (a regression loss's kinks move with y)."""
        return (-self.M, self.M)

    def params(self):
        return {"M": self.M, "label_range": self.label_range}


@functools.lru_cache(maxsize=64)
def pinball(quantile: float) -> Callable[[cp.Expression, cp.Expression], cp.Expression]:
    """The pinball loss of a quantile τ as a CVXPY form ``fn(z, y)``: max(τ(y − z), (τ − 1)(y − z)).

    Examples
    --------
    >>> import cvxpy as cp
    >>> from dpconvex.objectives.losses import pinball
    >>> float(pinball(0.9)(cp.Constant(0.0), cp.Constant(1.0)).value)
    0.9
    """
    def pinball_loss(z: cp.Expression, y: cp.Expression) -> cp.Expression:
        return cp.maximum(quantile * (y - z), (quantile - 1.0) * (y - z))

    return pinball_loss


class Pinball(Loss):
    """The quantile (pinball) loss ρ_τ(y − z) (Koenker & Bassett 1978), :func:`pinball`, its kink
    Huberized at half-width h.

    With u = y − z: ℓ = (τ − 1/2)·u + huber(u, h)/(4h) + h/4, i.e. ρ_τ(u) for |u| >= h and
    (τ − 1/2)·u + u²/(4h) + h/4 within, the rewrite of :func:`pinball`'s two affine pieces by
    :func:`~dpconvex.objectives.atoms.smooth_kinks` (also the CVXPY form), within h/4 of ρ_τ:
    |∂ℓ/∂z| <= max(τ, 1 − τ), ∂²ℓ/∂z² <= 1/(2h)
    (docs/privacy/user_objectives.md#privacy-prediction-losses). ``smoothing`` is h on the
    scale of ``label_range``; ``"auto"`` leaves h to the estimator's public rule with Λ
    (:meth:`smoothed`); None keeps the kink (ρ_τ itself, curvature ∞: noisy gradient descent
    only).

    Examples
    --------
    >>> from dpconvex.objectives import Pinball
    >>> loss = Pinball(0.9, label_range=(0.0, 1.0), smoothing=0.01)
    >>> loss.deriv_bound, loss.curvature
    (0.9, 50.0)
    >>> loss.value(np.array([0.0, 1.0]), np.array([0.5, 0.5])).round(3).tolist()
    [0.45, 0.05]
    >>> Pinball(0.9, smoothing="auto").smoothed(0.25).smoothed_kinks
    Smoothing(h=0.25, kinks=1, gap=0.0625)
    """

    name = "pinball"
    kind = "regression"
    derivation = "docs/privacy/user_objectives.md#privacy-prediction-losses"
    #: The kink at z = y, Huberized at h (:attr:`smoothed_kinks`; None when it is kept).
    has_kinks: ClassVar[bool] = True

    def __init__(self, quantile: float = 0.5, label_range: tuple[float, float] = (-1.0, 1.0),
                 smoothing: float | str | None = 0.1):
        self.quantile = check_float(
            "quantile", quantile, type(self).__name__, high=1.0, high_inclusive=False
        )
        self.label_range = parse_label_range(label_range, type(self).__name__)
        self.smoothing = SMOOTHING_RULE.check("smoothing", smoothing, type(self).__name__)

    @property
    def _h(self) -> float | None:
        """The half-width, or None (the kink kept, or left to the estimator's rule)."""
        return self.smoothing if isinstance(self.smoothing, float) else None

    @property
    def deriv_bound(self) -> float:  # type: ignore[override]
        # the slopes in u of the computed form, its coefficients exactly as the floats it uses
        tau = self.quantile
        if self._h is None:  # ρ_τ's two pieces: τ and τ − 1
            return _at_least(max(Fraction(tau), -Fraction(tau - 1.0)))
        # (τ − 1/2)·u plus the Huberized |u|/2, of slope in [−1/2, 1/2]: max(τ, 1 − τ)
        return _at_least(abs(Fraction(tau - 0.5)) + Fraction(1, 2))

    @property
    def curvature(self) -> float:  # type: ignore[override]
        return math.inf if self._h is None else _at_least(1 / (2 * Fraction(self._h)))

    @property
    def smoothed_kinks(self) -> Smoothing | None:
        """h, one kink and the largest change of ρ_τ, h/4 (at z = y); None for a kink kept."""
        return _huberized(self._h)

    @property
    def smoothing_unresolved(self) -> bool:
        """Whether h is left to the estimator's rule (``smoothing="auto"``)."""
        return self.smoothing == "auto"

    def smoothed(self, h: float) -> Pinball:
        """This loss with its kink Huberized at half-width ``h``.

        Examples
        --------
        >>> from dpconvex.objectives import Pinball
        >>> Pinball(0.5, smoothing="auto").smoothed(0.25).curvature
        2.0
        """
        return type(self)(self.quantile, self.label_range, float(h))

    @property
    def kinks(self):
        """Where ∂²ℓ/∂z² jumps, as residuals z − y (a regression loss's kinks move with y)."""
        return (0.0,) if self._h is None else (-self._h, self._h)

    def _value_and_slope(self, z: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
        """(ℓ, ∂ℓ/∂u) of u = y − z: ∂ℓ/∂z = −∂ℓ/∂u."""
        u = np.asarray(y, dtype=float) - np.asarray(z, dtype=float)
        tau, h = self.quantile, self._h
        if h is None:  # ρ_τ; at u = 0 the slope of τ·u, a subgradient
            return np.maximum(tau * u, (tau - 1.0) * u), np.where(u < 0, tau - 1.0, tau)
        a = np.abs(u)
        value = np.where(a <= h, u * u / (4.0 * h) + h / 4.0, a / 2.0)  # huber(u, h)/(4h) + h/4
        value += (tau - 0.5) * u
        slope = np.clip(u / (2.0 * h), -0.5, 0.5)
        slope += tau - 0.5
        return value, slope

    def value(self, z, y=None):
        return self._value_and_slope(z, y)[0]

    def deriv(self, z, y=None):
        return -self._value_and_slope(z, y)[1]

    def value_and_deriv(self, z, y=None):
        if type(self).value is not Pinball.value or type(self).deriv is not Pinball.deriv:
            return super().value_and_deriv(z, y)  # a subclass changed the loss
        value, slope = self._value_and_slope(z, y)
        return value, -slope

    def deriv2(self, z, y=None):
        r = np.asarray(z, dtype=float) - np.asarray(y, dtype=float)
        if self._h is None:
            return np.zeros_like(r)
        return np.where(np.abs(r) <= self._h, 1.0 / (2.0 * self._h), 0.0)

    def cvxpy_expr(self, z, y=None):
        if self._h is None:
            return pinball(self.quantile)(z, y)
        u, h = y - z, self._h
        return (self.quantile - 0.5) * u + cp.huber(u, h) / (4.0 * h) + h / 4.0

    def kinked_form(self) -> tuple[Callable[[cp.Expression, cp.Expression], cp.Expression],
                                   float | str | None]:
        """The loss before smoothing, :func:`pinball` of its quantile, and its smoothing rule
        (h, "auto" or None), at which :func:`~dpconvex.objectives.atoms.smooth_kinks`
        Huberizes its kink into :meth:`cvxpy_expr` (how
        :func:`dpconvex.privacy.checks.solved_loss` compiles a subclass).

        Examples
        --------
        >>> from dpconvex.objectives import Pinball
        >>> fn, rule = Pinball(0.9, smoothing=0.05).kinked_form()
        >>> rule
        0.05
        """
        return pinball(self.quantile), self.smoothing

    def params(self):
        return {"quantile": self.quantile, "label_range": self.label_range,
                "smoothing": self.smoothing}


#: Registry of losses by name: one entry per loss class.
LOSSES: dict[str, type[Loss]] = {
    Logistic.name: Logistic,
    HuberHinge.name: HuberHinge,
    SmoothHinge.name: SmoothHinge,
}


#: Registry of the regression losses ℓ(z, y) by name (:func:`get_regression_loss`).
REGRESSION_LOSSES: dict[str, type[Loss]] = {
    "huber": HuberRegression,
    "pinball": Pinball,
}


def get_regression_loss(name: str | Loss, label_range: tuple[float, float], **params: Any) -> Loss:
    """A regression loss by name ("huber", "pinball", or "squared"), or an instance passed through.

    "squared" is (z − y)²/2 stated in CVXPY (:meth:`Loss.from_cvxpy`): its slope is unbounded
    on the predictions a release can reach, so the verifier refuses it for objective and
    output perturbation, with the reason (docs/privacy/user_objectives.md#privacy-prediction-losses).

    Examples
    --------
    >>> from dpconvex.objectives import get_regression_loss
    >>> get_regression_loss("huber", (0.0, 1.0))
    HuberRegression(M=0.5, label_range=(0.0, 1.0))
    >>> get_regression_loss("squared", (0.0, 1.0)).deriv_bound
    inf
    """
    if isinstance(name, Loss):
        return name
    if not isinstance(name, str) or name not in (*REGRESSION_LOSSES, "squared"):
        # a list: not a key (unhashable); its repr is not quoted (describe_value)
        raise ParameterError(f"The 'name' parameter of get_regression_loss must be one of "
                             f"{sorted([*REGRESSION_LOSSES, 'squared'])} or a Loss instance. Got "
                             f"{describe_value(name)} instead.")
    if name == "squared":
        return Loss.from_cvxpy(lambda z, y: 0.5 * cp.square(z - y), kind="regression",
                               name="squared", label_range=label_range)
    return REGRESSION_LOSSES[name](label_range=label_range, **params)


def get_loss(name: str | Loss, **params: Any) -> Loss:
    """Instantiate a registered loss by name (or pass an instance through).

    Examples
    --------
    >>> from dpconvex.objectives import HuberHinge, get_loss
    >>> get_loss("huber", h=0.1)
    HuberHinge(h=0.1)
    >>> loss = HuberHinge()
    >>> get_loss(loss) is loss
    True
    """
    if isinstance(name, Loss):
        return name
    if not isinstance(name, str) or name not in LOSSES:  # a list: not a key (unhashable)
        raise ParameterError(f"The 'name' argument of get_loss must be one of {sorted(LOSSES)} "
                             f"or a Loss instance. Got {describe_value(name)} instead.")
    return LOSSES[name](**params)


# ----------------------------------------------------------------------------- regularizers
class Regularizer:
    """Base class. ``strong_convexity`` is the modulus μ of the term (in ||.||_2 / ||.||_F).

    Examples
    --------
    >>> from dpconvex.objectives import L2, Regularizer
    >>> reg = L2(0.1)
    >>> isinstance(reg, Regularizer), reg.strong_convexity
    (True, 0.1)
    """

    name: ClassVar[str] = "regularizer"
    #: Where dpconvex derives this class's modulus (set by the regularizers dpconvex ships,
    #: for their own class only; :func:`shipped_derivation`).
    derivation: ClassVar[str] = ""
    strong_convexity: float = 0.0

    def value(self, w: np.ndarray) -> float:
        raise NotImplementedError

    def grad(self, w: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def cvxpy_expr(self, w: cp.Expression) -> cp.Expression:
        raise NotImplementedError


class _Quadratic(Regularizer):
    """A multiple of the squared norm, lam-strongly convex (μ = lam): Hessian lam·I."""

    def __init__(self, lam: float):
        self.lam = check_float("lam", lam, type(self).__name__, low=0.0, low_inclusive=True)

    @property
    def strong_convexity(self) -> float:  # type: ignore[override]
        return self.lam  # read from lam each time: a modulus can never be stale

    def grad(self, w: np.ndarray) -> np.ndarray:
        return self.lam * np.asarray(w)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(lam={self.lam!r})"


class L2(_Quadratic):
    """(lam / 2) ||w||^2, lam-strongly convex (μ = lam); ``w`` of any shape (||.||_F for a matrix).

    Examples
    --------
    >>> from dpconvex.objectives import L2
    >>> reg = L2(0.5)
    >>> reg.value(np.array([1.0, 1.0])), reg.grad(np.array([1.0, 1.0])), reg.strong_convexity
    (0.5, array([0.5, 0.5]), 0.5)
    >>> reg.value(np.ones((2, 3)))   # a matrix parameter: (lam / 2) ||W||_F^2
    1.5
    """

    name = "l2"
    derivation = "docs/privacy/perturbation.md#privacy-perturbation"

    def value(self, w: np.ndarray) -> float:
        return 0.5 * self.lam * float(np.vdot(w, w))

    def cvxpy_expr(self, w: cp.Expression) -> cp.Expression:
        return 0.5 * self.lam * cp.sum_squares(w)


class Frobenius(_Quadratic):
    """(lam / 2) Σ ||Φ||²_F over all blocks, lam-strongly convex (μ = lam, as :class:`L2`).

    [PR12]_ eq. 11 writes λ Σ ||Φ||²_F; here λ = ``weight`` = lam / 2, so that
    ``lam`` means the strong-convexity modulus in every dpconvex estimator.

    Examples
    --------
    >>> from dpconvex.objectives import Frobenius
    >>> reg = Frobenius(0.5)
    >>> reg.weight, reg.strong_convexity
    (0.25, 0.5)
    >>> reg.value(np.ones((2, 2, 2)))
    2.0
    """

    name = "frobenius"
    derivation = "docs/privacy/large_margin.md#privacy-lm-strong-convexity"

    @property
    def weight(self) -> float:
        """λ = lam / 2, the coefficient of Σ ||Φ||²_F in the objective."""
        return 0.5 * self.lam

    def value(self, w: np.ndarray) -> float:
        return self.weight * float(np.sum(np.asarray(w) ** 2))

    def cvxpy_expr(self, w: cp.Expression) -> cp.Expression:
        return self.weight * cp.sum_squares(w)


#: Registry of regularizers by name.
REGULARIZERS: dict[str, type[Regularizer]] = {L2.name: L2, Frobenius.name: Frobenius}


# ----------------------------------------------------------------------------- matrix terms
@dataclass(frozen=True)
class MatrixTerm:
    """A user-supplied convex, differentiable, data-independent term R(Φ).

    It reads only Φ (never the data), so it changes neither the sensitivity nor, being convex, the Jacobian
    bound, and gets no strong-convexity credit (μ stays 2λ; docs/privacy/large_margin.md#privacy-lm-model).

    Parameters
    ----------
    name : str
    cvxpy_fn : callable
        ``Phi -> cvxpy.Expression``, with ``Phi[c][m]`` the CVXPY variable of
        block (c, m); must be DCP-convex (checked by the verifier).
    value_fn : callable
        ``Phi -> float`` for a NumPy array of shape (C, K, D, D).
    grad_fn : callable
        ``Phi -> ndarray (C, K, D, D)``, the gradient in the Frobenius inner product (symmetric blocks).
        Checked against finite differences of ``value_fn`` by the verifier; the objective-perturbation proof
        needs R differentiable (a nonsmooth term such as a nuclear norm breaks the bijection between noise and
        minimizer).

    Examples
    --------
    >>> import cvxpy as cp
    >>> from dpconvex.objectives import MatrixTerm
    >>> term = MatrixTerm("sum of squares",
    ...                   cvxpy_fn=lambda Phi: sum(cp.sum_squares(P) for row in Phi for P in row),
    ...                   value_fn=lambda theta: float(np.sum(theta ** 2)),
    ...                   grad_fn=lambda theta: 2.0 * theta)
    >>> term.name, term.value_fn(np.ones((1, 1, 2, 2)))
    ('sum of squares', 4.0)
    """

    name: str
    cvxpy_fn: Callable[[list[list[cp.Variable]]], cp.Expression]
    value_fn: Callable[[np.ndarray], float]
    grad_fn: Callable[[np.ndarray], np.ndarray]


def psi_frobenius(weight: float, d: int) -> MatrixTerm:
    """weight · Σ_{c,m} ||Ψ_{c,m}||²_F (extra shrinkage of the d × d precision block).

    An example :class:`MatrixTerm`: convex, smooth, data-independent.

    Examples
    --------
    >>> from dpconvex.objectives import psi_frobenius
    >>> term = psi_frobenius(0.1, d=2)
    >>> term.name
    'psi_frobenius(0.1)'
    >>> round(term.value_fn(np.ones((2, 1, 3, 3))), 4)
    0.8
    """
    weight = check_float("weight", weight, "psi_frobenius", low_inclusive=True)

    def cvx(Phi: list[list[cp.Variable]]) -> cp.Expression:
        return weight * sum(cp.sum_squares(P[:d, :d]) for row in Phi for P in row)

    def value(Phi: np.ndarray) -> float:
        return weight * float(np.sum(Phi[..., :d, :d] ** 2))

    def grad(Phi: np.ndarray) -> np.ndarray:
        g = np.zeros_like(Phi)
        g[..., :d, :d] = 2.0 * weight * Phi[..., :d, :d]
        return g

    return MatrixTerm(f"psi_frobenius({weight:g})", cvx, value, grad)


def probe_term(t: MatrixTerm, shape: tuple[int, ...]) -> Condition:
    """Check ``t.grad_fn`` against central finite differences of ``t.value_fn``.

    Probe points are public and data-independent (PSD blocks of shape ``shape`` = (C, K, D, D), seeded);
    raises :class:`PrivacyError` when the gradient has the wrong shape or disagrees (relative error > 1e-4).

    Examples
    --------
    >>> from dpconvex.objectives import probe_term, psi_frobenius
    >>> cond = probe_term(psi_frobenius(0.1, d=2), shape=(2, 1, 3, 3))
    >>> cond.holds, cond.how
    (True, 'numerical probe')
    """
    rng = np.random.default_rng(12345)  # public, data-independent probe points
    D = shape[-1]
    worst, previous = 0.0, None
    Phi = [[cp.Variable((D, D), symmetric=True) for _ in range(shape[1])] for _ in range(shape[0])]
    form = t.cvxpy_fn(Phi)
    for _ in range(5):
        A = rng.standard_normal(shape)
        A = A @ np.swapaxes(A, -1, -2) / D
        A = (A + np.swapaxes(A, -1, -2)) / 2.0
        for c, row in enumerate(Phi):
            for k, block in enumerate(row):
                block.value = A[c, k]
        value = float(t.value_fn(A))
        if not abs(float(form.value) - value) <= 1e-6 * max(1.0, abs(value)):
            raise PrivacyError(
                f"probe_term: extra term '{t.name}': value_fn and cvxpy_fn disagree at a "
                "probe point. The convexity is checked on cvxpy_fn and the native solver "
                "minimizes value_fn: state one function."
            )
        step = None if previous is None else A - previous[0]
        if step is not None and float(np.vdot(np.asarray(t.grad_fn(A)) - previous[1], step)) < \
                -1e-9 * float(np.vdot(step, step)):
            raise PrivacyError(
                f"probe_term: extra term '{t.name}': grad_fn is not monotone at probed "
                "pairs, so value_fn is not convex. The proof needs a convex term."
            )
        previous = (A, np.asarray(t.grad_fn(A), dtype=float))
        V = rng.standard_normal(shape)
        V = V + np.swapaxes(V, -1, -2)
        V /= np.linalg.norm(V)
        g = np.asarray(t.grad_fn(A), dtype=float)
        if g.shape != shape:
            raise PrivacyError(
                f"probe_term: extra term '{t.name}': grad_fn returned shape {g.shape}, expected "
                f"{shape}; grad_fn must return an array of the shape of its argument.")
        hstep = 1e-5 * max(1.0, float(np.linalg.norm(A)))
        fd = (t.value_fn(A + hstep * V) - t.value_fn(A - hstep * V)) / (2 * hstep)
        err = abs(fd - float(np.vdot(g, V)))
        scale = max(1.0, abs(fd), float(np.linalg.norm(g)))
        worst = max(worst, err / scale)
    if worst > 1e-4:
        raise PrivacyError(
            f"probe_term: extra term '{t.name}': grad_fn disagrees with finite differences of "
            "value_fn "
            f"(relative error {worst:.3g}). The proof needs a differentiable term with its "
            "true gradient; fix grad_fn (or the term is not differentiable)."
        )
    shipped = all(map(is_dpconvex_function, (t.cvxpy_fn, t.value_fn, t.grad_fn)))
    return Condition(
        f"extra term '{t.name}'",
        True,
        "numerical probe",
        f"gradient matches finite differences (rel. err {worst:.2g}), value_fn its cvxpy_fn and "
        "the gradient monotone at probe points; no strong-convexity credit; "
        + (
            "data-independent (dpconvex's)"
            if shipped
            else "data-independent as the caller declares: not verified"
        ),
        unverified="" if shipped else "objective",
    )
