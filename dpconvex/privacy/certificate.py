"""The certificate of a release: what it guarantees and how each condition of its proof was
established.

A :class:`Certificate` states the (ε, δ) a release guarantees, each condition of its proof
(:class:`Condition`: how it was established, and a constant nobody verified), the public
quantities of its calibration, and typed facts (:class:`LabelSource`, :class:`LamRule`,
:class:`RowMap`); its text is rendered from these fields. The certificate of a fit made of
releases is composed from its parts' (:mod:`dpconvex.privacy.composition`).
"""

from __future__ import annotations

import json
import math
import numbers
from collections.abc import Iterable
from dataclasses import asdict, astuple, dataclass, field, fields
from typing import Any

import numpy as np

from .._validation import is_dpconvex_class
from ..errors import ParameterError, PrivacyError

__all__ = ["PREPROCESSING", "SEEDED", "Certificate", "ComponentsRule", "Condition", "DeltaRows",
           "LabelSource", "LamRule", "LossSmoothing", "MechanismChoice", "NoisyGDRule",
           "ParameterSet", "PublicFeatureMap", "RowMap", "SmoothingRule", "UncheckedSteps",
           "as_shipped", "read_once", "stated_by_template", "template_statements"]


#: The certificate line of a release whose noise the caller seeded (``Certificate.seeded``).
SEEDED = ("noise seeded by the caller (random_state given): reproducible by anyone who knows "
          "the seed, so NOT private unless the seed is secret and used once; use "
          "random_state=None (OS entropy) for a real release")


@dataclass(frozen=True)
class Condition:
    """One condition of a privacy proof.

    Attributes
    ----------
    name, holds : str, bool
        Short name (e.g. ``"strong convexity"``) and whether the condition was established.
    how, detail : str
        How (``"declared"``, ``"numerical probe"``, ``"CVXPY DCP analysis"``, ``"computed
        from public parameters"``, ``"assumption"``), and the value or reasoning.
    unverified : str
        A declared constant this condition rests on and nobody verified (e.g. ``"curvature"``),
        or ``""``: :func:`~dpconvex.privacy.release.release` refuses it unless the caller vouches
        for it (``vouch=``).
    vouched : bool
        True when the condition holds because the caller vouched for its ``unverified``
        constant (:func:`~dpconvex.privacy.declarations.vouched`): declared, not verified.

    Examples
    --------
    >>> from dpconvex import Condition
    >>> c = Condition("strong convexity", True, "declared", "mu = 0.1")
    >>> c.holds, c.how, c.unverified, c.vouched
    (True, 'declared', '', False)
    """

    name: str
    holds: bool
    how: str
    detail: str = ""
    unverified: str = ""
    vouched: bool = False


#: How a condition a user's template states itself reads in the certificate: no check of
#: dpconvex stands behind it.
_STATED = "stated by the user's template, not checked by dpconvex"

#: The fields of a :class:`Condition` and the exact types each may be of where an object not
#: built by dpconvex gives them (:func:`read_once`): built-ins and NumPy's bool, whose values
#: answer the same at every read (None as ``unverified``: none).
_FIELD_TYPES: tuple[tuple[str, tuple[type, ...]], ...] = (
    ("name", (str,)), ("holds", (bool, np.bool_)), ("how", (str,)), ("detail", (str,)),
    ("unverified", (str, type(None))), ("vouched", (bool, np.bool_)))


def as_shipped(obj: Any) -> bool:
    """Whether ``obj`` is as dpconvex ships it, its methods dpconvex's code: its class is
    dpconvex's and nothing set on the instance stands for a callable of its class
    (``t.conditions = lambda needs: [...]``, or a method such a method calls), which is code
    of the user's (:func:`~dpconvex.privacy.user_parts.users_part` finds it too). What a
    template's or a mechanism's ``conditions()`` returns is dpconvex's own checks only then.

    Parameters
    ----------
    obj : object
        A template or a mechanism.

    Returns
    -------
    bool

    Examples
    --------
    >>> from dpconvex.privacy.certificate import as_shipped
    >>> from dpconvex.privacy.mechanisms import get_mechanism
    >>> mech = get_mechanism("objective")
    >>> as_shipped(mech)
    True
    >>> mech.conditions = lambda template, budget: []
    >>> as_shipped(mech)
    False
    """
    cls = type(obj)
    return is_dpconvex_class(cls) and not any(
        callable(getattr(cls, name, None)) for name in getattr(obj, "__dict__", {}))


def read_once(condition: Any, caller: str = "release",
              source: str = "the template's conditions()") -> Condition:
    """``condition`` read once, as a :class:`Condition` dpconvex builds from the values read:
    it must be a ``Condition`` exactly (not a subclass, not an object with the same fields),
    each field of an exact type whose value answers the same at every read (the texts ``str``,
    ``holds`` a ``bool`` or NumPy bool, ``unverified`` a ``str`` or None for none; not a
    subclass of any). Nothing the object does after this read reaches a release: what the
    release reads is the new condition, of built-in values.

    Parameters
    ----------
    condition : Condition
        What a template (or a mechanism) gave as a condition.
    caller, source : str
        The call that reads it and what gave it, for the message.

    Returns
    -------
    Condition
        A condition equal to ``condition``, built by dpconvex.

    Raises
    ------
    PrivacyError
        ``condition`` is not a ``Condition`` exactly, or a field is not of its types exactly
        (e.g. a subclass of ``str``).

    Examples
    --------
    >>> from dpconvex import Condition
    >>> from dpconvex.privacy.certificate import read_once
    >>> read_once(Condition("row norm bound", True, "enforced by clipping")).holds
    True
    >>> class Name(str):
    ...     pass
    >>> try:
    ...     read_once(Condition(Name("row norm bound"), True, "enforced by clipping"))
    ... except Exception as exc:
    ...     print(type(exc).__name__, str(exc).split(" a condition ")[1].split(":")[0])
    PrivacyError whose 'name' is of type Name, not str
    """
    if type(condition) is not Condition:
        raise PrivacyError(
            f"{caller}: {source} gave an object of type {_type_name(condition)} as a "
            "condition, not a dpconvex Condition: a condition is read once, as a Condition of "
            "built-in values; return Condition(name, holds, how, detail, unverified) objects.")
    values: dict[str, Any] = {}
    for name, kinds in _FIELD_TYPES:
        value = getattr(condition, name)
        if type(value) not in kinds:
            kind = kinds[0].__name__
            raise PrivacyError(
                f"{caller}: {source} gave a condition whose {name!r} is of type "
                f"{_type_name(value)}, not {kind}: a condition is read once, as built-in "
                f"values; give {name}= as a {kind} exactly (e.g. {kind}(...) of it).")
        values[name] = value
    # vouched only by the caller of the release (vouch=), never by the object stating it
    values["holds"], values["vouched"] = bool(values["holds"]), False
    values["unverified"] = values["unverified"] or ""
    return Condition(**values)


def _joined(*texts: str) -> str:
    """The texts that are not empty, joined by "; "."""
    return "; ".join(text for text in texts if text)


def _type_name(value: Any) -> str:
    """The class of ``value`` by its qualified name, with its module where it is NumPy's."""
    cls = type(value)
    module = getattr(cls, "__module__", "")
    return f"{module}.{cls.__qualname__}" if module == "numpy" else cls.__qualname__


def stated_by_template(conditions: Iterable[Any], caller: str = "release",
                       source: str = "the template's conditions()") -> list[Condition]:
    """The conditions a user's template states itself (its ``conditions()``), each read once
    (:func:`read_once`: a ``Condition`` of built-in values exactly, else refused) and stated as
    the template's statement, one for each: one that says it holds and names no unverified
    constant is declared, not verified (:attr:`Condition.unverified`
    ``"template_conditions"``), its detail keeping what the template said and how;
    :func:`~dpconvex.privacy.declarations.vouched` refuses it unless the caller vouches for
    ``"template_conditions"``. What dpconvex checks itself (the template's records, its
    constants, its objective) are conditions of their own
    (:func:`~dpconvex.privacy.declarations.declaration_conditions`). One that names an
    unverified constant keeps it, and one that says it fails still fails;
    :func:`template_statements` adds to one that holds on a constant it names the template's
    statement of it.

    Parameters
    ----------
    conditions : iterable of Condition
        What the template's ``conditions(needs)`` returned (iterated once).
    caller, source : str
        The call that reads them and what gave them, for the message of a refusal.

    Returns
    -------
    list of Condition

    Raises
    ------
    PrivacyError
        An item is not a ``Condition`` of built-in values exactly (:func:`read_once`).

    Examples
    --------
    >>> from dpconvex import Condition
    >>> from dpconvex.privacy.certificate import stated_by_template
    >>> (c,) = stated_by_template([Condition("row norm bound", True, "enforced by clipping",
    ...                                      "every row has ||x|| <= 1")])
    >>> c.unverified, c.how
    ('template_conditions', "stated by the user's template, not checked by dpconvex")
    >>> c.detail
    'the template states: enforced by clipping; every row has ||x|| <= 1'
    """
    return [_statement(read_once(c, caller, source)) for c in conditions]


def _statement(c: Condition) -> Condition:
    """The condition ``c``, read once, as the template's statement (:func:`stated_by_template`)."""
    if c.unverified or not c.holds:
        return Condition(c.name, c.holds, f"{_STATED}; {c.how}", c.detail, c.unverified)
    return Condition(c.name, True, _STATED, f"the template states: {_joined(c.how, c.detail)}",
                     unverified="template_conditions")


def template_statements(conditions: Iterable[Any], caller: str = "release",
                        source: str = "the template's conditions()") -> list[Condition]:
    """What a user's template states in its ``conditions()``, as a release states it: each
    condition as :func:`stated_by_template` states it, and after each that holds on a
    constant it names itself (:attr:`Condition.unverified`, other than
    ``"template_conditions"``) the template's statement of it, ``"<name> (the template's
    statement)"``, declared, not verified (``"template_conditions"``): that the condition
    holds once the constant it names does is the template's statement too, so a vouch for
    that constant alone (one the caller gives for another condition, e.g. ``"grad_bound"``)
    does not cover it.

    Parameters
    ----------
    conditions : iterable of Condition
        What the template's ``conditions(needs)`` returned (iterated once).
    caller, source : str
        The call that reads them and what gave them, for the message of a refusal.

    Returns
    -------
    list of Condition

    Raises
    ------
    PrivacyError
        An item is not a ``Condition`` of built-in values exactly (:func:`read_once`).

    Examples
    --------
    >>> from dpconvex import Condition
    >>> from dpconvex.privacy.certificate import template_statements
    >>> own, statement = template_statements([Condition(
    ...     "row norm bound", True, "declared", "||x|| <= 1", unverified="grad_bound")])
    >>> own.unverified, statement.unverified
    ('grad_bound', 'template_conditions')
    >>> statement.name, statement.detail
    ("row norm bound (the template's statement)", 'the template states: declared; ||x|| <= 1')
    """
    out = []
    for given in conditions:
        c = read_once(given, caller, source)
        out.append(_statement(c))
        if c.holds and c.unverified not in ("", "template_conditions"):
            out.append(Condition(f"{c.name} (the template's statement)", True, _STATED,
                                 f"the template states: {_joined(c.how, c.detail)}",
                                 unverified="template_conditions"))
    return out


@dataclass(frozen=True)
class LabelSource:
    """Where a fit's labels got their public facts: a certificate field.

    Attributes
    ----------
    source : {"parameter", "declared", "inferred", "label_range"}
        The label set given as ``classes=``, declared with y (a
        :mod:`dpconvex.datasets` loader's schema or a pandas Categorical), read from y
        and assumed public, or a regression's public label range.
    classes : tuple
        The public label set ("parameter", "declared"; empty otherwise: a set read from
        y is not repeated here).
    unknown_labels : str
        A class label outside the public set: ``"raise"`` (the fit is refused) or
        ``"ignore"`` (the record contributes no loss); ``""`` where there is no set.
    label_range : tuple of float
        ``(lo, hi)`` of a regression ("label_range"; empty otherwise).

    Examples
    --------
    >>> from dpconvex.privacy.certificate import LabelSource
    >>> str(LabelSource("parameter", (0, 1), "raise")).split(";")[0]
    'label set given by the caller (public): [0, 1]'
    >>> LabelSource("inferred").public
    False
    """

    source: str
    classes: tuple = ()
    unknown_labels: str = ""
    label_range: tuple[float, ...] = ()

    @property
    def public(self) -> bool:
        """False when the label set was read from the data (assumed public)."""
        return self.source != "inferred"

    def __str__(self) -> str:
        if self.source == "inferred":
            return ("label set read from the data (classes=None): assumed public; pass the "
                    "public label set as classes=[...] so that it is not read from the records")
        if self.source == "label_range":
            lo, hi = self.label_range
            return (f"labels clipped to the public label_range [{lo:g}, {hi:g}] and mapped onto "
                    "[-1, 1] (per-record public maps); predictions mapped back and clipped")
        where = ("given by the caller" if self.source == "parameter" else
                 "declared with y (a dpconvex.datasets loader's schema, or the categories of a "
                 "pandas Categorical)")
        other = ("records with other labels contribute no loss (their rows are zeroed; "
                 "unknown_labels='ignore')" if self.unknown_labels == "ignore" else
                 "a fit with records of other labels is refused (unknown_labels='raise')")
        return f"label set {where} (public): {list(self.classes)!r}; {other}"


@dataclass(frozen=True)
class LamRule:
    """How the regularization Λ of a fit was chosen: a certificate field.

    Attributes
    ----------
    lam : float
        The Λ the release used.
    rule : {"given", "auto"}
        ``"given"``: a public parameter; ``"auto"``: a public rule of public quantities.
    how : str
        For ``"auto"`` by a rule of its own (e.g. the large-margin learners'): that rule and the
        quantities it read; ``""`` for the linear Λ rule
        (:func:`~dpconvex.privacy.rules.noise_level.resolve_lam`), whose text :attr:`stated`
        renders from the fields below.
    mechanism : str
        For the linear Λ rule: the mechanism whose calibration it weighed; the public
        quantities it read are the fields below (their defaults otherwise).
    n, epsilon, delta, q, p : int, float, float, float, int
        Rows, the budget the calibration spends, the row-norm bound and the dimension.
    deriv_bound, curvature : float
        The loss's |ℓ'| and ℓ'' bounds.
    reference_norm, stability_weight : float
        R and w of the rule's bound.

    Examples
    --------
    >>> from dpconvex.privacy.certificate import LamRule
    >>> print(LamRule(0.05, "given"))
    lam = 0.05 given explicitly (a public parameter)
    >>> auto = LamRule(0.01, "auto", mechanism="objective", n=1000, epsilon=1.0, q=1.0, p=5)
    >>> auto.stated.split(": ")[0][:55]
    "lam='auto' (dpconvex.privacy.rules.noise_level.auto_lam"
    """

    lam: float
    rule: str = "given"
    how: str = ""
    mechanism: str = ""
    n: int = 0
    epsilon: float = 0.0
    delta: float = 0.0
    q: float = 0.0
    p: int = 0
    deriv_bound: float = 0.0
    curvature: float = 0.0
    reference_norm: float = 0.0
    stability_weight: float = 0.0

    @property
    def stated(self) -> str:
        """For ``"auto"``: the rule and the public quantities it read, as the text states them."""
        if self.rule == "given" or self.how:
            return self.how
        return (
            "lam='auto' (dpconvex.privacy.rules.noise_level.auto_lam, "
            "docs/privacy/perturbation.md#privacy-lambda-rule): the minimizer of a bias + "
            f"stability + noise bound from public quantities only: mechanism {self.mechanism}, "
            f"n = {self.n}, epsilon = {self.epsilon:g}, delta = {self.delta:g}, q = {self.q:.6g}, "
            f"p = {self.p}, |l'| <= {self.deriv_bound:g}, l'' <= {self.curvature:g}, reference "
            f"norm R = {self.reference_norm:g}, stability weight w = {self.stability_weight:g}; "
            "no data value is read")

    def __str__(self) -> str:
        if self.rule == "given":
            return f"lam = {self.lam:g} given explicitly (a public parameter)"
        return f"lam = {self.lam:.6g} chosen by the public rule {self.stated}"


@dataclass(frozen=True)
class SmoothingRule:
    """The half-width h at which a loss's kinks were smoothed by the public rule
    ``smoothing="auto"``: a certificate line with fields.

    Attributes
    ----------
    h : float
        The half-width chosen.
    candidates : int
        How many half-widths the rule weighed.

    Examples
    --------
    >>> from dpconvex.privacy.certificate import SmoothingRule
    >>> str(SmoothingRule(0.5, 9))[:44]
    'loss smoothed at half-width h = 0.5 chosen b'
    """

    h: float
    candidates: int

    def __str__(self) -> str:
        return (
            f"loss smoothed at half-width h = {self.h:g} chosen by the public rule "
            "smoothing='auto' (dpconvex.privacy.rules.noise_level.resolve_smoothing, "
            "docs/privacy/user_objectives.md#privacy-smoothing): the h of "
            f"{self.candidates} candidates minimizing the Λ rule's bound plus the largest "
            "change of the loss, from n, epsilon, q, p and the loss's constants only")


@dataclass(frozen=True)
class MechanismChoice:
    """What ``mechanism="auto"`` chose and why: a certificate line with fields.

    Attributes
    ----------
    mechanism : str
        The mechanism chosen.
    because : {"delta = 0", "delta > 0", "bound", "constraints"}
        δ's sign alone (the one rule of
        :func:`~dpconvex.privacy.mechanisms.base.resolve_mechanism`), or, with δ > 0, the
        lower of the pure and Gaussian forms' Λ-rule bounds (the linear learners), or
        ``constraints=`` (the linear learners: the pure form stands for ``instead``).
    why : str
        For a choice by δ's sign or by ``constraints=``: what the mechanism is, as the text
        states it.
    bound, other_bound : float
        For ``"bound"``: the chosen form's Λ-rule bound and the other form's.
    n, p : int
        For ``"bound"``: the rows and dimension the bounds read.
    pure : bool
        For ``"bound"``: whether the chosen form is the pure one.
    instead : str
        For ``"constraints"``: the mechanism δ's sign chose, derived for the unconstrained
        minimizer only (``""`` otherwise).

    Examples
    --------
    >>> from dpconvex.privacy.certificate import MechanismChoice
    >>> str(MechanismChoice("objective", "delta = 0", "pure"))[:40]
    "mechanism='auto' -> 'objective' (pure) b"
    """

    mechanism: str
    because: str
    why: str = ""
    bound: float = 0.0
    other_bound: float = 0.0
    n: int = 0
    p: int = 0
    pure: bool = False
    instead: str = ""

    def __str__(self) -> str:
        if self.because == "constraints":
            return (f"mechanism='auto' -> {self.mechanism!r} ({self.why}) because constraints= is "
                    f"given: {self.instead!r} is derived for the unconstrained minimizer, "
                    "objective perturbation over a closed convex set is covered (Kifer, Smith & "
                    "Thakurta 2012, docs/privacy/user_objectives.md#privacy-constraints)")
        if self.because != "bound":
            because = "delta > 0 was given" if self.because == "delta > 0" else self.because
            return (f"mechanism='auto' -> {self.mechanism!r} ({self.why}) because {because}: "
                    "the one rule of dpconvex.privacy.mechanisms.base.resolve_mechanism "
                    "(docs/privacy/front_door.md#privacy-mechanism-auto)")
        return (
            f"mechanism='auto' -> {self.mechanism!r} because delta > 0 was given and its "
            f"Lambda-rule bound {self.bound:.4g} is at most {self.other_bound:.4g}, that of the "
            f"{'Gaussian' if self.pure else 'pure'} form (n = {self.n}, p = {self.p}, epsilon, "
            "delta, q and the loss's constants only; delta is spent by the Gaussian form "
            "only; docs/privacy/front_door.md#privacy-mechanism-auto)")


@dataclass(frozen=True)
class DeltaRows:
    """δ at least 1/n (n rows, public): a certificate line with fields (the guarantee is true
    as stated, and protects no record).

    Attributes
    ----------
    delta : float
        The δ of the guarantee.
    n : int
        The rows.

    Examples
    --------
    >>> from dpconvex.privacy.certificate import DeltaRows
    >>> str(DeltaRows(0.5, 10))[:44]
    'delta = 0.5 is at least 1/n = 0.1 for n = 10'
    """

    delta: float
    n: int

    def __str__(self) -> str:
        n = self.n
        return (
            f"delta = {self.delta:.3g} is at least 1/n = {1.0 / n:.3g} for n = {n} rows "
            "(n public): an (epsilon, delta) guarantee with delta >= 1/n is met by releasing "
            "one whole record at random, so it protects no record; use delta well below 1/n, "
            f"e.g. delta = 1/n^2 = {1.0 / (float(n) * n):.3g}, or delta = 0 (pure epsilon-DP) "
            "(dpconvex.privacy.budget)")


@dataclass(frozen=True)
class NoisyGDRule:
    """A setting of noisy gradient descent chosen by its public rule
    (:mod:`dpconvex.privacy.mechanisms.noisy_gd`): a certificate line with fields.

    Attributes
    ----------
    setting : {"delta", "clip", "steps"}
        δ = 1/n², the clip C = ``fraction`` · |l'|max · q̃, or the steps
        T = ⌈D/(ηC)⌉ clamped to [``low``, ``high``].
    value : float
        The δ, C or T chosen (T an int).
    n : int
        For ``"delta"``: the rows.
    q : float
        For ``"clip"``: q̃, the rows' norm bound (their intercept column included if any).
    fraction : float
        For ``"clip"``: the rule's fraction of the Lipschitz bound.
    eta, travel, travel_factor, mu : float
        For ``"steps"``: the step η the rule assumes, the travel D = ``travel_factor`` n μ / q̃
        and μ, the Gaussian-DP parameter of (ε, δ).
    low, high : int
        For ``"steps"``: the clamp of T.

    Examples
    --------
    >>> from dpconvex.privacy.certificate import NoisyGDRule
    >>> str(NoisyGDRule("clip", 0.5, q=1.0, fraction=0.5))[:38]
    'clip C = 0.5 by the public rule C = 0.'
    >>> print(NoisyGDRule("delta", 1e-6, n=1000))
    delta chosen by the public rule 1/n^2 (n public)
    """

    setting: str
    value: float
    n: int = 0
    q: float = 0.0
    fraction: float = 0.0
    eta: float = 0.0
    travel: float = 0.0
    travel_factor: float = 0.0
    mu: float = 0.0
    low: int = 0
    high: int = 0

    def __str__(self) -> str:
        if self.setting == "delta":
            return "delta chosen by the public rule 1/n^2 (n public)"
        if self.setting == "clip":
            return (
                f"clip C = {self.value:.6g} by the public rule C = {self.fraction:g} x |l'|max x "
                f"q~ (q~ = {self.q:.6g}: the rows' norm bound, their intercept column included "
                "if any)")
        return (
            f"steps T = {self.value} by the public rule T = ceil(D / (eta C)) clamped to "
            f"[{self.low}, {self.high}] with eta = {self.eta:.6g} and the travel D = "
            f"{self.travel_factor:g} n mu / q~ = {self.travel:.6g} (mu = {self.mu:.6g}: the "
            "Gaussian-DP parameter of (epsilon, delta))")


@dataclass(frozen=True)
class LossSmoothing:
    """A loss whose kinks were Huberized before the release: a certificate line with fields.

    Attributes
    ----------
    loss : str
        The loss's registry name (e.g. ``"pinball"``).
    kinks : int
        How many kinks were smoothed.
    h : float
        The half-width of the smoothing.
    gap : float
        The largest change of the loss at any prediction (derived from its CVXPY form).

    Examples
    --------
    >>> from dpconvex.privacy.certificate import LossSmoothing
    >>> line = LossSmoothing("pinball", 1, 0.5, 0.125)
    >>> line.loss, line.kinks, line.h, str(line)[:42]
    ('pinball', 1, 0.5, "loss 'pinball' smoothed: its 1 kink(s) Hub")
    """

    loss: str
    kinks: int
    h: float
    gap: float

    def __str__(self) -> str:
        return (
            f"loss '{self.loss}' smoothed: its {self.kinks} kink(s) Huberized at "
            f"half-width h = {self.h:g} (dpconvex.objectives.atoms.smooth_kinks, "
            "CMS Section 3.4.2); the smoothed loss differs from the stated one by at most "
            f"{self.gap:.6g} at every prediction (derived from its CVXPY form), and "
            "the release minimizes the smoothed loss")


@dataclass(frozen=True)
class ParameterSet:
    """The public closed convex set the parameters were restricted to (Kifer, Smith &
    Thakurta): a certificate line with fields.

    Attributes
    ----------
    statement : str
        The set as it states itself (its ``describe()``, e.g. ``"the l2 ball of radius 1"``).
    exact_projection : bool
        Whether the set has an exact projection (else a solver computes it, to its tolerance).
    projection_tol : float
        Without an exact projection: what the accuracy check adds for the computed
        projection's distance from the exact one (0 otherwise).

    Examples
    --------
    >>> from dpconvex.privacy.certificate import ParameterSet
    >>> line = ParameterSet("the l2 ball of radius 1")
    >>> line.exact_projection, str(line)[:48]
    (True, 'parameters restricted to the l2 ball of radius 1')
    """

    statement: str
    exact_projection: bool = True
    projection_tol: float = 0.0

    def __str__(self) -> str:
        return (
            f"parameters restricted to {self.statement}: objective perturbation "
            "over a closed convex set by Kifer, Smith & Thakurta (COLT 2012, rank-one "
            "per-record Hessians); output perturbation's noisy output is projected back onto "
            "the set (post-processing) (docs/privacy/user_objectives.md#privacy-constraints)")


@dataclass(frozen=True)
class ComponentsRule:
    """The components per class ``n_components="auto"`` resolved to (the large-margin
    learners' public rule, :func:`~dpconvex.privacy.rules.large_margin.resolved_components`):
    a certificate line with fields.

    Attributes
    ----------
    k : int
        The components per class.

    Examples
    --------
    >>> from dpconvex.privacy.certificate import ComponentsRule
    >>> str(ComponentsRule(1))[:48]
    "n_components='auto' -> K = 1 component per class"
    """

    k: int

    def __str__(self) -> str:
        k = self.k
        return (f"n_components='auto' -> K = {k} component{'s' if k > 1 else ''} per class: no "
                "mixture beat one component per class on the measured sets "
                "(benchmarks/recorded/mixture_components.md; public parameters only, no budget)")


@dataclass(frozen=True)
class PublicFeatureMap:
    """The public feature map x ↦ u(x) a softmax large-margin fit learns on
    (:class:`~dpconvex.templates.feature_map.FeatureMap`): a certificate line with fields.

    Attributes
    ----------
    structure : {"full", "diagonal", "linear"}
        Which quadratic terms u holds.
    weights : tuple of float
        (wq, wl, wc): the weights of the quadratic, linear and constant parts.
    norm : float
        N = sqrt(wq² + wl² + wc²), which scales u to norm at most 1.
    m : int
        The noise dimension per class (the length of u).

    Examples
    --------
    >>> from dpconvex.privacy.certificate import PublicFeatureMap
    >>> line = PublicFeatureMap("linear", (0.0, 1.0, 0.1), 1.00499, 4)
    >>> line.structure, line.m, str(line)[:46]
    ('linear', 4, "public feature map structure='linear': u = [wl")
    """

    structure: str
    weights: tuple[float, float, float]
    norm: float
    m: int

    def __str__(self) -> str:
        wq, wl, wc = self.weights
        parts = {"full": "wq svec(xh xh^T), ", "diagonal": "wq (xh o xh), ", "linear": ""}
        return (f"public feature map structure={self.structure!r}: u = [{parts[self.structure]}"
                f"wl xh, wc]/N, xh = x/q, (wq, wl, wc) = ({wq:g}, {wl:g}, {wc:g}), N = "
                f"{self.norm:.6g}, ||u|| <= 1; noise dimension m = {self.m} per class; Phi "
                "released for z = [x; 1]/sqrt(q^2 + 1) by the public linear map of "
                "docs/privacy/large_margin_softmax.md#privacy-feature-map-structures")


#: The name a caller vouches for (a search's ``vouch=``) that the pipeline steps outside
#: dpconvex it fits under its guarantee map each record by itself alone
#: (:class:`UncheckedSteps`).
PREPROCESSING = "preprocessing"


@dataclass(frozen=True)
class UncheckedSteps:
    """Pipeline steps outside dpconvex that the guarantee takes to map each record by itself
    alone (they learn nothing from the rows), which dpconvex cannot check: a certificate line
    with fields. Where a search fits them under its guarantee, that they do is a declared,
    not verified condition (:meth:`condition`, :data:`PREPROCESSING`), refused unless the
    caller vouches for it.

    Attributes
    ----------
    steps : tuple of (str, str)
        Each step's name in its pipeline and the name of its class.
    vouched : bool, default=False
        Whether the caller vouched for the steps (``vouch=("preprocessing",)``).

    Examples
    --------
    >>> from dpconvex.privacy.certificate import UncheckedSteps
    >>> line = UncheckedSteps((("normalizer", "Normalizer"),))
    >>> line.steps[0][1], str(line)[:63]
    ('Normalizer', "not checked by dpconvex: that the pipeline step(s) 'normalizer'")
    >>> vouched = UncheckedSteps((("normalizer", "Normalizer"),), vouched=True)
    >>> str(vouched)[:49]
    "vouched for by the caller (vouch='preprocessing')"
    >>> vouched.condition().unverified, vouched.condition().vouched
    ('preprocessing', True)
    """

    steps: tuple[tuple[str, str], ...]
    vouched: bool = False

    def named(self) -> str:
        """The steps as the certificate names them.

        Returns
        -------
        str

        Examples
        --------
        >>> from dpconvex.privacy.certificate import UncheckedSteps
        >>> UncheckedSteps((("f", "FunctionTransformer"),)).named()
        "'f' (FunctionTransformer)"
        """
        return ", ".join(f"{name!r} ({kind})" for name, kind in self.steps)

    def condition(self) -> Condition:
        """The condition of the guarantee these steps are: declared by the caller, not
        verified (:attr:`Condition.unverified` :data:`PREPROCESSING`), vouched for where
        :attr:`vouched`.

        Returns
        -------
        Condition

        Examples
        --------
        >>> from dpconvex.privacy.certificate import UncheckedSteps
        >>> UncheckedSteps((("f", "FunctionTransformer"),)).condition().how
        'declared, not verified'
        """
        how = ("declared; vouched for by the caller (vouch=), not verified" if self.vouched
               else "declared, not verified")
        return Condition("pipeline steps outside dpconvex map each record by itself alone",
                         True, how, f"the step(s) {self.named()}: not checked by dpconvex",
                         PREPROCESSING, vouched=self.vouched)

    def __str__(self) -> str:
        by = (f"vouched for by the caller (vouch={PREPROCESSING!r}), " if self.vouched else "")
        return (f"{by}not checked by dpconvex: that the pipeline step(s) {self.named()} map "
                "each record by itself alone")


@dataclass(frozen=True)
class RowMap:
    """The public per-record maps of the rows and where the rows are held: a certificate field.

    Attributes
    ----------
    row_norm : {"none", "unit"}
        ``"unit"``: every non-zero row scaled to the norm bound (zero rows stay zero), in
        fit and predict; ``"none"``: rows above the bound are clipped only.
    unit_map : str
        With ``"unit"``: the scaling as the estimator states it (which vector, to which
        norm, where it is derived).
    dask : bool
        Whether the rows are held by a Dask backend (their chunking is not stated: a file read by
        bytes is chunked by its records' lengths).

    Examples
    --------
    >>> from dpconvex.privacy.certificate import RowMap
    >>> both = RowMap(dask=True).merge(RowMap("unit"))
    >>> both.row_norm, both.dask
    ('unit', True)
    """

    row_norm: str = "none"
    unit_map: str = ""
    dask: bool = False

    def merge(self, other: RowMap) -> RowMap:
        """This map with the facts ``other`` states (those it leaves at their defaults kept).

        Parameters
        ----------
        other : RowMap
            The facts to add.

        Returns
        -------
        RowMap
            A new map.

        Examples
        --------
        >>> from dpconvex.privacy.certificate import RowMap
        >>> merged = RowMap(row_norm="unit").merge(RowMap(dask=True))
        >>> merged.row_norm, merged.dask
        ('unit', True)
        """
        return RowMap(*(b if b != f.default else a for a, b, f in
                        zip(astuple(self), astuple(other), fields(RowMap), strict=True)))

    def lines(self) -> list[str]:
        """The certificate lines of the map (none for in-memory rows clipped only).

        Returns
        -------
        list of str

        Examples
        --------
        >>> from dpconvex.privacy.certificate import RowMap
        >>> RowMap().lines(), len(RowMap(row_norm="unit").lines())
        ([], 1)
        """
        out = []
        if self.row_norm == "unit":
            out.append(self.unit_map or
                       "row_norm='unit': every non-zero row scaled to the norm bound (zero rows "
                       "stay zero), in fit and predict: a map that reads only the record itself "
                       "(docs/privacy/row_scaling.md#privacy-row-norm-unit)")
        if self.dask:
            out.append(
                "data backend: dask: the products over the rows (loss, "
                "gradient, Gram) summed per row chunk on the workers; noise, calibration and "
                "solver on the driver; the privacy analysis does not depend on the backend"
            )
        return out

    def __str__(self) -> str:
        return "; ".join(self.lines()) or "rows clipped to the norm bound only, in memory"


#: The typed lines a certificate states: their text among ``assumptions``, their fields in
#: ``lines`` (:meth:`Certificate.state`).
Line = (SmoothingRule | MechanismChoice | DeltaRows | NoisyGDRule | LossSmoothing | ParameterSet
        | PublicFeatureMap | ComponentsRule | UncheckedSteps)
#: The typed facts a certificate holds: in fields of their own, or typed lines
#: (:meth:`Certificate.state`).
Fact = LabelSource | LamRule | RowMap | Line


def guarantee_fault(epsilon_requested: Any, epsilon: Any, delta: Any) -> str | None:
    """What makes (ε requested, ε, δ) no (ε, δ) guarantee, or None: each ε a real number
    >= 0 (``inf``: no guarantee, a non-private fit), δ a real number in [0, 1). A negative
    part would lower a composition's sum.

    Parameters
    ----------
    epsilon_requested, epsilon, delta : float
        A certificate's ε asked for, ε guaranteed and δ.

    Returns
    -------
    str or None
        The fault, naming the field and its type or range (never its value), or None.

    Examples
    --------
    >>> from dpconvex.privacy.certificate import guarantee_fault
    >>> guarantee_fault(1.0, 1.0, 1e-6) is None
    True
    >>> guarantee_fault(1.0, -0.5, 0.0)
    'epsilon must be a number >= 0 (inf: not private); got a negative float'
    """
    for name, value in (("epsilon_requested", epsilon_requested), ("epsilon", epsilon)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            return f"{name} must be a number >= 0; got a {type(value).__name__}"
        if not value >= 0:  # NaN too
            what = "NaN" if math.isnan(value) else f"negative {type(value).__name__}"
            return f"{name} must be a number >= 0 (inf: not private); got a {what}"
    if isinstance(delta, bool) or not isinstance(delta, numbers.Real):
        return f"delta must be a number in [0, 1); got a {type(delta).__name__}"
    if not 0 <= delta < 1:
        return "delta must be a number in [0, 1); got one outside it"
    return None


@dataclass
class Certificate:
    """A record of the privacy guarantee a release carries.

    Attributes
    ----------
    mechanism : str
        E.g. ``"objective perturbation (CMS Alg. 2)"``.
    mechanism_name : str
        The ``name`` of the mechanism that ran, set by :func:`~dpconvex.privacy.release.release`:
        for a registered mechanism its registry name (``"objective"``, ``"laplace_mean"``, ...:
        the ``mechanism=`` that selects it; a user's registered mechanism's too), for a
        mechanism object that is not registered its own ``name``; ``""`` for a certificate no
        mechanism's release made (a composition, a selection).
    loss : str
        The name of the loss the release minimizes (e.g. ``"logistic"``; a smoothed loss's
        kinks and half-width are its :class:`LossSmoothing` line): the name of the template's
        ``loss`` object; ``""`` where the template holds none (a statistic, a user's objective,
        the softmax large-margin template, whose softmax loss is its objective, stated in its
        assumptions) or for a composition (its ``parts`` name theirs).
    epsilon_requested, epsilon, delta : float
        The ε asked for; the ε guaranteed (never above it; ``inf`` for a non-private fit);
        the δ of an (ε, δ) guarantee (0 for pure ε-DP).
    private : bool
        False for the explicit non-private baseline.
    conditions, quantities, assumptions : list of Condition, dict, list of str
        Every condition of the proof and how it was established; derived constants, all
        from public parameters; what the guarantee assumes (adjacency, preprocessing, ...).
    solver : dict
        The backend that solved and the tolerance met (public facts only).
    parts : list of Certificate
        Sub-mechanisms composed into this one (budget splits).
    label_source, lam_rule, row_map : LabelSource, LamRule, RowMap or None
        Where the labels' public facts came from, how Λ was chosen, the rows' public maps
        and backend (None: not stated, or stated by a part).
    seeded : bool
        True when the caller seeded the noise (:data:`SEEDED`).
    lines : list of Line
        The typed lines stated (:class:`SmoothingRule`, :class:`MechanismChoice`,
        :class:`DeltaRows`, :class:`NoisyGDRule`, :class:`LossSmoothing`,
        :class:`ParameterSet`, :class:`PublicFeatureMap`, :class:`ComponentsRule`,
        :class:`UncheckedSteps`): their
        fields, for a test or a tool to read (:meth:`line`); each line's text is among
        ``assumptions``, where it was stated.
    released : dict
        Outputs of the release besides the model's parameters, each a differentially private
        output of a part (e.g. the candidate a private selection chose), never a public
        quantity: ``quantities`` holds what is derived from public parameters only.

    Typed facts (:class:`LabelSource`, :class:`LamRule`, :class:`RowMap`, and the typed lines)
    given among ``assumptions`` go to their fields (:meth:`state`); the text renders every
    field.

    References
    ----------
    .. [CMS] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially Private
       Empirical Risk Minimization. JMLR 12, 2011, Algorithm 2 (objective perturbation,
       the mechanism ``"objective perturbation (CMS Alg. 2)"`` names).

    Examples
    --------
    >>> from dpconvex import Certificate, Condition
    >>> from dpconvex.privacy.certificate import LamRule
    >>> cert = Certificate("objective perturbation (CMS Alg. 2)", epsilon_requested=1.0, epsilon=1.0,
    ...                    conditions=[Condition("strong convexity", True, "declared", "mu = 0.1")])
    >>> cert.all_hold
    True
    >>> print(cert)
    Privacy certificate: objective perturbation (CMS Alg. 2)
      guarantee: (1, 0)-differential privacy (requested epsilon = 1)
      conditions:
        [ok  ] strong convexity (declared): mu = 0.1
    >>> cert.to_dict()["epsilon"]
    1.0
    >>> cert.state(LamRule(0.1, "given"))
    >>> cert.lam_rule.rule, cert.states(LamRule(0.1, "given"))
    ('given', True)
    >>> from dpconvex.privacy.certificate import LossSmoothing
    >>> smoothed = Certificate("objective perturbation (CMS Alg. 2)", 1.0, 1.0,
    ...                        assumptions=[LossSmoothing("pinball", 1, 0.5, 0.125)],
    ...                        mechanism_name="objective")
    >>> smoothed.mechanism_name, smoothed.line(LossSmoothing).h
    ('objective', 0.5)
    >>> smoothed.to_dict()["lines"][0]["kind"], smoothed.to_dict()["mechanism_name"]
    ('LossSmoothing', 'objective')
    """

    mechanism: str
    epsilon_requested: float
    epsilon: float
    delta: float = 0.0
    private: bool = True
    conditions: list[Condition] = field(default_factory=list)
    quantities: dict[str, Any] = field(default_factory=dict)
    assumptions: list[str] = field(default_factory=list)
    solver: dict[str, Any] = field(default_factory=dict)
    parts: list[Certificate] = field(default_factory=list)
    label_source: LabelSource | None = None
    lam_rule: LamRule | None = None
    row_map: RowMap | None = None
    seeded: bool = False
    released: dict[str, Any] = field(default_factory=dict)
    lines: list[Line] = field(default_factory=list)
    mechanism_name: str = ""
    loss: str = ""

    def __post_init__(self) -> None:
        fault = guarantee_fault(self.epsilon_requested, self.epsilon, self.delta)
        if fault is not None:
            raise ParameterError(f"Certificate.__init__: {fault}; a certificate states an "
                                 "(epsilon, delta) guarantee.")
        given, self.assumptions = self.assumptions, []
        self.state(*given)

    def state(self, *facts: Fact | str | None) -> None:
        """Add facts: a typed fact to its field (row maps merge), a line to ``assumptions``
        (a typed line its text, and itself to ``lines``).

        Empty facts and lines whose text is already stated are skipped.

        Parameters
        ----------
        *facts : Fact, str or None
            The facts to add.

        Examples
        --------
        >>> from dpconvex import Certificate
        >>> cert = Certificate("output", 1.0, 1.0)
        >>> cert.state("rows clipped to norm 1", None, "rows clipped to norm 1")
        >>> cert.assumptions
        ['rows clipped to norm 1']
        """
        for fact in facts:
            if isinstance(fact, LabelSource):
                self.label_source = fact
            elif isinstance(fact, LamRule):
                self.lam_rule = fact
            elif isinstance(fact, RowMap):
                self.row_map = fact if self.row_map is None else self.row_map.merge(fact)
            elif fact and (text := str(fact)) not in self.assumptions:
                self.assumptions.append(text)
                if isinstance(fact, Line):
                    self.lines.append(fact)

    def states(self, fact: Fact | str) -> bool:
        """Whether the certificate itself (not a part) states ``fact``.

        Parameters
        ----------
        fact : Fact or str
            A typed fact or a line.

        Returns
        -------
        bool

        Examples
        --------
        >>> from dpconvex import Certificate
        >>> cert = Certificate("output", 1.0, 1.0, assumptions=["rows clipped to norm 1"])
        >>> cert.states("rows clipped to norm 1"), cert.states("another line")
        (True, False)
        """
        if isinstance(fact, LabelSource):
            return self.label_source == fact
        if isinstance(fact, LamRule):
            return self.lam_rule == fact
        if isinstance(fact, RowMap):
            return self.row_map is not None and self.row_map.merge(fact) == self.row_map
        if isinstance(fact, Line):
            return fact in self.lines
        return fact in self.assumptions

    def notes(self) -> list[str]:
        """Every stated line: the typed facts rendered, then ``assumptions``, then
        :data:`SEEDED`.

        Returns
        -------
        list of str

        Examples
        --------
        >>> from dpconvex import Certificate
        >>> Certificate("output", 1.0, 1.0, assumptions=["rows clipped to norm 1"]).notes()
        ['rows clipped to norm 1']
        """
        lines = [str(f) for f in (self.label_source, self.lam_rule) if f is not None]
        lines += self.row_map.lines() if self.row_map is not None else []
        return lines + list(self.assumptions) + ([SEEDED] if self.seeded else [])

    @property
    def all_hold(self) -> bool:
        """True when every listed condition holds."""
        return all(c.holds for c in self.conditions) and all(p.all_hold for p in self.parts)

    def line(self, kind: type[Line]) -> Line | None:
        """The first typed line of class ``kind`` the certificate itself states, or None.

        Parameters
        ----------
        kind : type of Line
            The class of the line.

        Returns
        -------
        Line or None

        Examples
        --------
        >>> from dpconvex import Certificate
        >>> from dpconvex.privacy.certificate import DeltaRows
        >>> cert = Certificate("output", 1.0, 1.0, assumptions=[DeltaRows(0.5, 10)])
        >>> cert.line(DeltaRows).n, cert.to_dict()["lines"][0]["kind"]
        (10, 'DeltaRows')
        """
        return next((a for a in self.lines if isinstance(a, kind)), None)

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python dict (JSON serializable): every field, the Λ rule's text as
        ``lam_rule["how"]`` (:attr:`LamRule.stated`), each typed line's class as its ``"kind"``.

        Returns
        -------
        dict

        Examples
        --------
        >>> import json
        >>> from dpconvex import Certificate
        >>> d = Certificate("output", 1.0, 1.0).to_dict()
        >>> d["epsilon"], isinstance(json.dumps(d), str)
        (1.0, True)
        """
        out = asdict(self)
        out["parts"] = [p.to_dict() for p in self.parts]
        out["lines"] = [{"kind": type(a).__name__, **asdict(a)} for a in self.lines]
        if self.lam_rule is not None:
            out["lam_rule"] = {**asdict(self.lam_rule), "how": self.lam_rule.stated}
        return json.loads(json.dumps(out, default=_jsonable))

    def __str__(self) -> str:
        lines = [f"Privacy certificate: {self.mechanism}"]
        if self.private:
            eps = "inf" if math.isinf(self.epsilon) else f"{self.epsilon:.6g}"
            guarantee = f"  guarantee: ({eps}, {self.delta:.3g})-differential privacy"
            lines.append(guarantee + f" (requested epsilon = {self.epsilon_requested:.6g})")
        else:
            lines.append("  guarantee: NONE (non-private baseline; do not publish as private)")
        if self.conditions:
            lines.append("  conditions:")
            for c in self.conditions:
                mark = "ok  " if c.holds else "FAIL"
                lines.append(f"    [{mark}] {c.name} ({c.how}): {c.detail}")
        if self.quantities:
            lines.append("  quantities (from public parameters only):")
            lines.extend(f"    {k} = {_fmt(v)}" for k, v in self.quantities.items())
        if self.released:
            lines.append("  released (differentially private outputs of the parts):")
            lines.extend(f"    {k} = {_fmt(v)}" for k, v in self.released.items())
        if self.solver:
            lines.append(
                "  solver: " + ", ".join(f"{k}={_fmt(v)}" for k, v in self.solver.items())
            )
        notes = self.notes()
        if notes:
            lines.append("  assumptions:")
            lines.extend(f"    - {a}" for a in notes)
        for p in self.parts:
            sub = str(p).splitlines()
            lines.append("  part: " + sub[0])
            lines.extend("    " + s for s in sub[1:])
        return "\n".join(lines)


def _fmt(v: Any) -> str:
    return f"{v:.6g}" if isinstance(v, float) else str(v)


def _jsonable(o: Any) -> Any:
    return o.tolist() if hasattr(o, "tolist") else str(o)
