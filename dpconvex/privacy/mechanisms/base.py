"""The ``Mechanism`` interface, its calibration record, the one registry, and the
mechanisms that release an exact minimizer: output and objective perturbation ([CMS]_ Alg. 1
and 2) and the non-private baseline.

A mechanism owns everything of a privacy proof that is not the learning problem: its budget
checks, the conditions it needs from a template, its calibration (public constants only,
holding its noise law), its noise and its part of the certificate;
:func:`dpconvex.privacy.release.release` runs any mechanism the same way.
:class:`ExactMinimizer` is the one ``run`` of the mechanisms that release a minimizer (these,
their Gaussian forms, approximate minima).

Objective perturbation's calibration (derived in docs/privacy/perturbation.md#privacy-objective-perturbation,
privacy-jacobian-slack): from one record's Hessian rank r and trace bound T (``hessian_trace_bound``, else
r·c_u) and the modulus μ, the one-sided Jacobian slack r log(1 + T/(r n μ)) (:func:`jacobian_slack`; CMS's
two-sided 2 r log(1 + c_u/(n μ)) with ``slack="two_sided"``); the noise gets ε' = ε − slack, and if the slack
exceeds ε/2 the modulus is raised to :func:`half_epsilon_modulus`
(slack = ε' = ε/2). The noise rate is β = ε'/(2G).

References
----------
.. [CMS] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially Private
   Empirical Risk Minimization. JMLR 12 (2011). Alg. 1 (output perturbation),
   Alg. 2 (objective perturbation) and their privacy proofs.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import functools
import math
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, ClassVar, Generic, NamedTuple, TypeVar, Union

import numpy as np

from ..._validation import check_float, describe_value, is_dpconvex_class
from ...errors import ParameterError, PrivacyError, SolverError
from ...solvers import retry_advice
from ...solvers.registry import Backend, SolveResult, SolveStatus, other_backends
from ...templates.base import PrivacyConstants
from ..budget import Budget, exact_budget, remaining_each
from ..certificate import Certificate, Condition, MechanismChoice, as_shipped, template_statements
from ..noise import Noise, NormGamma

if TYPE_CHECKING:
    from ...templates.base import ObjectiveTemplate, Template

__all__ = [
    "MECHANISMS",
    "OUTPUT_SOLVE_MARGIN",
    "PLACEMENTS",
    "SLACK_RULES",
    "AutoMechanism",
    "Calibration",
    "ExactMinimizer",
    "Mechanism",
    "MechanismMenu",
    "NonPrivate",
    "NonPrivateBaseline",
    "ObjectivePerturbation",
    "OutputPerturbation",
    "at_modulus",
    "build_mechanism",
    "calibrate_objective_perturbation",
    "calibrate_output_perturbation",
    "get_mechanism",
    "half_epsilon_modulus",
    "hessian_trace_bound",
    "jacobian_slack",
    "jacobian_slack_two_sided",
    "loss_name",
    "mechanism_names",
    "modulus_condition",
    "no_noise_law",
    "objective_modulus_floor",
    "output_release_tolerance",
    "output_solve_tolerance",
    "record_uncovered_distance",
    "register",
    "require_exact",
    "resolve_mechanism",
    "uncovered_distance",
]

#: κ, output perturbation's public solve margin: a release is a solve within κG/(nμ) of the
#: exact minimizer (residual <= κG/n unconstrained), and its noise is calibrated to the
#: sensitivity 2G(1 + κ)/(nμ) of that solved point, so the solver's error is covered
#: (docs/privacy/perturbation.md#privacy-output-perturbation). 10⁻³ costs 0.1% more noise;
#: the shipped backends reach κG/n at 10⁶ rows (docs/privacy/accuracy_randomness.md).
OUTPUT_SOLVE_MARGIN = 1e-3

#: The key of κ in an output placement's :attr:`Calibration.extra` and its certificate's
#: quantities.
SOLVE_MARGIN_KEY = "solve margin kappa"

#: The key of an output placement's (solve tolerance, distance it guarantees) in
#: :attr:`Calibration.extra` once a release computed them, once, from the calibration's n and
#: constants (:func:`output_release_tolerance` reads them there: the run and its certificate
#: state one tolerance).
SOLVE_TOLERANCE_KEY = "solve tolerance"

#: The key of an exact-minimizer release's (residual tolerance, modulus μ + Δ of the solved
#: objective, ``distance_bound`` there or None) in :attr:`Calibration.extra`: the uncovered
#: distance to the exact minimizer its "accurate solve" states, read once, before any noise
#: (:func:`record_uncovered_distance`; :meth:`Mechanism.solve_conditions` reads it there).
UNCOVERED_DISTANCE_KEY = "uncovered distance"

#: The relative error a gradient computed in float64 may carry (2⁻⁵² over 1,024 roundings,
#: as :data:`dpconvex.privacy.release.RESOLUTION`): a solve tolerance below it times the
#: gradient's scale is refused.
_GRADIENT_RESOLUTION = 2.0**-42


@dataclass(frozen=True, kw_only=True)
class Calibration:
    """Noise calibration computed from public constants (keyword arguments only).

    ``noise_rate`` β: for norm-Gamma noise the density is ∝ exp(-β ||b||).
    ``extra_strong_convexity`` Δ: add (Δ/2)||θ||^2 to the objective (objective
    perturbation only). ``epsilon`` = ``slack + epsilon_noise`` <= requested
    (``epsilon`` defaults to ``epsilon_requested``, ``epsilon_noise`` to ``epsilon``);
    ``delta`` the δ of an (ε, δ) guarantee (0 for the pure mechanisms).
    ``modulus_floor`` the smallest modulus at which the calibration adds no Δ (0 when it
    never does). ``extra`` holds mechanism-specific public quantities; ``constants`` the
    declared constants it was calibrated from, derived once: every calibration of a mechanism
    that releases a minimizer holds them (:meth:`ExactMinimizer.holding_noise`), and its
    certificate reads them there; a mechanism of the user's may leave them out
    (:func:`calibrated_constants`: then the problem's).

    ``noise`` is the law of the noise that masks the data, weighed on ``noise_shape`` (for the
    mechanisms that release a minimizer: its p coordinates, or the symmetric blocks a law on
    them is drawn on; an approximate-minima cover, which masks the solver's error, is not in
    it): what the Λ rule and the noise warnings weigh, through :attr:`moments` (weighed once:
    :attr:`expected_norm`, :attr:`expected_sq_norm`) and :attr:`coordinate_scale`
    (docs/privacy/perturbation.md#privacy-lambda-rule), and, where the release adds one draw
    of it (a minimizer's noise, a noisy sum or mean), the law ``run`` draws (:meth:`law`): it
    is built once. On a grid of moduli (:meth:`Mechanism.calibrate_grid`) the fields are
    arrays and ``noise`` a family of laws.

    Parameters
    ----------
    mechanism : str
        The mechanism's registry name.
    epsilon_requested : float
        The ε asked for.
    epsilon : float or None, default=None
        ``slack + epsilon_noise`` (None: ``epsilon_requested``).
    epsilon_noise : float or None, default=None
        The ε the noise pays (None: ``epsilon``).
    slack : float, default=0.0
        The ε of the Jacobian slack (objective perturbation).
    extra_strong_convexity : float, default=0.0
        Δ.
    sensitivity : float
        The sensitivity the noise is calibrated to.
    noise_rate : float
        β (NaN for a Gaussian law).
    delta : float, default=0.0
        δ (0 for the pure mechanisms).
    modulus_floor : float, default=0.0
        The smallest modulus at which no Δ is added.
    extra : dict, default={}
        Mechanism-specific public quantities.
    constants : PrivacyConstants or None, default=None
        The declared constants it was calibrated from.
    noise : Noise or None, default=None
        The noise law.
    noise_shape : tuple of int, default=()
        What the law is weighed on.
    n : int or None, default=None
        The number of records it was calibrated for, read once (None: not stated).

    Examples
    --------
    >>> # template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y): conftest.py
    >>> cal = get_mechanism("objective").calibrate(template, Budget(1.0))
    >>> cal.mechanism, cal.epsilon, cal.sensitivity
    ('objective', 1.0, 2.0)
    >>> cal.slack + cal.epsilon_noise <= cal.epsilon_requested
    True
    >>> cal.noise_shape, round(cal.coordinate_scale, 3), round(cal.expected_norm, 3)
    ((3,), 3.688, 6.387)
    >>> moduli = np.array([0.1, 1.0])
    >>> grid = get_mechanism("objective").calibrate_grid(template, Budget(1.0), moduli)
    >>> grid.expected_norm.shape, grid.modulus_eff.tolist()
    ((2,), [0.1, 1.0])
    """

    mechanism: str
    epsilon_requested: float
    epsilon: float | None = None
    epsilon_noise: float | None = None
    slack: float = 0.0
    extra_strong_convexity: float = 0.0
    sensitivity: float
    noise_rate: float
    delta: float = 0.0
    modulus_floor: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)
    constants: PrivacyConstants | None = None
    noise: Noise | None = None
    noise_shape: tuple[int, ...] = ()
    n: int | None = None

    def __post_init__(self) -> None:
        if self.epsilon is None:
            object.__setattr__(self, "epsilon", self.epsilon_requested)
        if self.epsilon_noise is None:
            object.__setattr__(self, "epsilon_noise", self.epsilon)

    def law(self) -> Noise:
        """:attr:`noise`, or the refusal that names the mechanism whose calibration holds none.

        Returns
        -------
        Noise
            The noise law the calibration holds.

        Raises
        ------
        ParameterError
            The calibration holds none (:func:`no_noise_law`).

        Examples
        --------
        >>> # template: LinearERMTemplate(Logistic(), 0.1, 1.0, X, y), conftest.py
        >>> cal = get_mechanism("objective").calibrate(template, Budget(1.0))
        >>> cal.law() is cal.noise, type(cal.law()).__name__
        (True, 'NormGamma')
        """
        if self.noise is None:
            raise no_noise_law(self.mechanism, "Calibration.noise")
        return self.noise

    @functools.cached_property
    def moments(self) -> tuple[Any, Any]:
        """(E‖b‖ or its bound, E‖b‖²) of :attr:`noise` on :attr:`noise_shape` (inf where a
        family's rate is 0), weighed once: the calibration is frozen, so its law and shape are
        those it was made with.

        Raises
        ------
        ParameterError
            The calibration holds no noise law (:meth:`law`).

        Examples
        --------
        >>> # template: LinearERMTemplate(Logistic(), 0.1, 1.0, X, y), conftest.py
        >>> cal = get_mechanism("objective").calibrate(template, Budget(1.0))
        >>> cal.moments == cal.noise.moments(cal.noise_shape)
        True
        """
        with np.errstate(divide="ignore", over="ignore"):
            return self.law().moments(self.noise_shape)

    @property
    def expected_norm(self) -> Any:
        """E‖b‖ of :attr:`noise` (or its bound; inf where a family's rate is 0)."""
        return self.moments[0]

    @property
    def expected_sq_norm(self) -> Any:
        """E‖b‖² of :attr:`noise`."""
        return self.moments[1]

    @property
    def coordinate_scale(self) -> Any:
        """The per-coordinate scale of :attr:`noise` on :attr:`noise_shape`."""
        with np.errstate(divide="ignore", over="ignore"):
            return self.law().coordinate_scale(self.noise_shape)

    @property
    def modulus_eff(self) -> Any:
        """μ + Δ: the declared modulus plus the added one (NaN without :attr:`constants`)."""
        mu = math.nan if self.constants is None else self.constants.strong_convexity
        return mu + self.extra_strong_convexity


def no_noise_law(mechanism: str, owner: str) -> ParameterError:
    """The refusal where a private mechanism's noise is needed and its calibration holds none.

    Parameters
    ----------
    mechanism : str
        The mechanism's registry name.
    owner : str
        The call that needs the noise law, opening the message.

    Returns
    -------
    ParameterError
        The refusal (returned, for the caller to raise).

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.base import no_noise_law
    >>> "does not report its noise" in str(no_noise_law("exponential", "demo"))
    True
    """
    return ParameterError(
        f"{owner}: mechanism {mechanism!r} does not report its noise: lam='auto' and the noise "
        "warnings read the noise law its calibration holds (Calibration.noise: E||b||, "
        "E||b||^2) and, for lam='auto', its calibration on a grid of moduli "
        "(Mechanism.calibrate_grid; docs/privacy/perturbation.md#privacy-lambda-rule). Give "
        "the mechanism's calibration a noise law (and calibrate_grid), or use a numeric lam with "
        "a mechanism that reports it."
    )


#: Where a mechanism's noise enters (:attr:`Mechanism.placement`): into the objective
#: before the solve, onto the solver's output, onto each gradient step, onto released sums;
#: "none" for the non-private baseline.
PLACEMENTS: tuple[str, ...] = ("objective", "output", "gradient", "sum", "none")


#: What a calibration reads of a problem (``n``, ``name``, ``privacy_constants()``): a
#: template, or a public problem before any rows (:class:`PrivacyConstants` with ``n``).
ConstantsSource = Union["Template", "PrivacyConstants"]


#: The template a mechanism runs on: a :class:`~dpconvex.templates.base.Template` with
#: the capabilities the mechanism needs (e.g. an ``ObjectiveTemplate`` for perturbation).
TemplateT = TypeVar("TemplateT", bound="Template")


def problem_constants(problem: ConstantsSource, caller: str) -> PrivacyConstants:
    """The declared constants of ``problem`` for a calibration, which reads its ``n``: a
    :class:`ParameterError` where a public problem does not state n.

    Parameters
    ----------
    problem : Template or PrivacyConstants
        The problem calibrated.
    caller : str
        Who calibrates (named in the error).

    Returns
    -------
    PrivacyConstants

    Raises
    ------
    ParameterError
        ``problem`` does not state n, or its ``privacy_constants()`` is not a
        :class:`PrivacyConstants` of a class dpconvex ships.

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.base import problem_constants
    >>> problem_constants(PrivacyConstants(1.0, 1, 0.25, 0.1, 3, n=40), "doc").n
    40
    >>> problem_constants(PrivacyConstants(1.0, 1, 0.25, 0.1, 3), "doc")
    Traceback (most recent call last):
    ...
    dpconvex.errors.ParameterError: doc: a public problem needs n: pass PrivacyConstants(...
    """
    if getattr(problem, "n", None) is None:
        raise ParameterError(
            f"{caller}: a public problem needs n: pass PrivacyConstants(..., n=n) or a template."
        )
    consts = problem.privacy_constants()
    if not (isinstance(consts, PrivacyConstants) and is_dpconvex_class(type(consts))):
        # a record of another class could compute its fields at each read
        raise ParameterError(
            f"{caller}: privacy_constants() of {getattr(problem, 'name', 'the problem')!r} "
            f"returned a {type(consts).__qualname__}, not a PrivacyConstants (of a class "
            "dpconvex ships, which reads each number once): return PrivacyConstants(...).")
    return consts


def calibrated_constants(problem: ConstantsSource, cal: Calibration | None) -> PrivacyConstants:
    """The declared constants ``cal`` was calibrated from (:attr:`Calibration.constants`), else
    ``problem``'s (a calibration that does not state them, or none).

    Parameters
    ----------
    problem : Template or PrivacyConstants
        The problem calibrated.
    cal : Calibration or None
        Its calibration (None: none).

    Returns
    -------
    PrivacyConstants

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.base import calibrated_constants
    >>> problem = PrivacyConstants(1.0, 1, 0.25, 0.1, 3, n=40)
    >>> cal = get_mechanism("objective").calibrate(problem, Budget(1.0))
    >>> calibrated_constants(problem, cal) is cal.constants
    True
    >>> calibrated_constants(problem, None) is problem
    True
    """
    constants = None if cal is None else cal.constants
    return problem.privacy_constants() if constants is None else constants


def at_modulus(consts: PrivacyConstants, mu: float | np.ndarray) -> PrivacyConstants:
    """``consts`` with the strong-convexity modulus replaced by ``mu``.

    Parameters
    ----------
    consts : PrivacyConstants
        The declared constants (G, r, c_u, T, μ, p).
    mu : float or ndarray
        The modulus to state (a grid of moduli: an array).

    Returns
    -------
    PrivacyConstants
        A copy (a dataclass's ``replace``, else a namespace of the same attributes).

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.base import at_modulus
    >>> consts = PrivacyConstants(1.0, 1, 0.25, 0.1, 3)
    >>> at_modulus(consts, 0.5).strong_convexity
    0.5
    """
    if dataclasses.is_dataclass(consts) and not isinstance(consts, type):
        return dataclasses.replace(consts, strong_convexity=mu)
    return SimpleNamespace(**{**vars(consts), "strong_convexity": mu})


def modulus_condition(consts: PrivacyConstants) -> Condition:
    """The condition "strong convexity" of a minimizer's proof: the declared modulus μ (the
    regularizer's) of the constants a calibration was made from, as its certificate states it.

    Parameters
    ----------
    consts : PrivacyConstants
        The declared constants (G, r, c_u, T, μ, p).

    Returns
    -------
    Condition
        "strong convexity", holding where μ > 0.

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.base import modulus_condition
    >>> c = modulus_condition(PrivacyConstants(1.0, 1, 0.25, 0.1, 3))
    >>> c.name, c.holds, c.detail
    ('strong convexity', True, 'modulus mu = 0.1')
    """
    mu = consts.strong_convexity
    return Condition("strong convexity", mu > 0, "declared by the regularizer",
                     f"modulus mu = {mu:g}")


def loss_name(template: object) -> str:
    """The name of the loss ``template`` minimizes (its ``loss``), as its certificate's
    :attr:`~dpconvex.privacy.certificate.Certificate.loss` holds it; ``""`` for a template
    that names no loss (e.g. a user's objective).

    Parameters
    ----------
    template : Template
        The problem.

    Returns
    -------
    str

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.base import loss_name
    >>> # template: LinearERMTemplate(Logistic(), 0.1, 1.0, X, y), conftest.py
    >>> loss_name(template), loss_name(object())
    ('logistic', '')
    """
    name = getattr(getattr(template, "loss", None), "name", "")
    return name if isinstance(name, str) else ""


class Mechanism(ABC, Generic[TemplateT]):
    """A privacy mechanism (one class per mechanism, registered in :data:`MECHANISMS`).

    A subclass gives :meth:`calibrate`, :meth:`certificate` and :meth:`run`; one whose noise
    enters the objective or the output also :meth:`calibrate_grid` (the Λ rule's).

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms import Mechanism, get_mechanism
    >>> mech = get_mechanism("output")
    >>> isinstance(mech, Mechanism), mech.name, sorted(mech.needs)
    (True, 'output', ['strong_convexity'])
    >>> mech.private, mech.solves, mech.pure, mech.placement
    (True, True, True, 'output')
    """

    #: Registry name; what the proof needs from a template; False only for the non-private
    #: baseline; whether :meth:`run` calls a solver backend; True for ε-DP (δ must be 0).
    name: ClassVar[str] = ""
    needs: ClassVar[frozenset[str]] = frozenset()
    private: ClassVar[bool] = True
    solves: ClassVar[bool] = True
    pure: ClassVar[bool] = True
    #: True when the noise is added to a solver's output (its density is centred on the
    #: minimizer: white-box audits use it).
    adds_output_noise: ClassVar[bool] = False
    #: True for a cover around an inner mechanism (approximate minima), chosen through an
    #: estimator's ``optimality_tol`` rather than by name; it states no accurate solve
    #: (:meth:`solve_conditions`: the cover covers the solve's distance to the exact minimizer).
    wraps: ClassVar[bool] = False
    #: True when the approximate-minima cover is derived for this mechanism
    #: (docs/privacy/accuracy_randomness.md#privacy-accuracy-randomness,
    #: privacy-gaussian-amp): an inner mechanism without it is not covered.
    amp_derived: ClassVar[bool] = True
    #: Where the noise enters (:data:`PLACEMENTS`); None: the mechanism reports no noise.
    placement: str | None = None
    #: The mechanism of the other form, named in the refusal when the budget does not fit
    #: this one (an (ε, δ) mechanism refuses δ = 0: set δ, or use this pure one).
    alternative: ClassVar[str | None] = None
    #: The name the budget messages give the mechanism (None: :attr:`name`).
    budget_name: str | None = None

    # ----------------------------------------------------------- the interface
    def check_budget(self, budget: Budget) -> Budget:
        """Validate the budget for this mechanism: a :class:`Budget` (its ε > 0 and δ in [0, 1)
        checked when it was made); a private mechanism needs a finite ε, a pure one δ = 0, an
        (ε, δ) one δ > 0.

        Parameters
        ----------
        budget : Budget
            The (ε, δ) of the release.

        Returns
        -------
        Budget
            A fresh Budget equal to ``budget`` (:func:`~dpconvex.privacy.budget.exact_budget`).

        Raises
        ------
        ParameterError
            Not a Budget (an object whose ``__class__`` claims Budget too), an infinite ε,
            δ > 0 for a pure mechanism, or δ = 0 for an (ε, δ) mechanism.

        Examples
        --------
        >>> get_mechanism("output").check_budget(Budget(1.0))
        Budget(epsilon=1.0, delta=0.0)
        >>> get_mechanism("output").check_budget(Budget(1.0, 1e-6))
        Traceback (most recent call last):
        ...
        dpconvex.errors.ParameterError: OutputPerturbation.check_budget: mechanism 'output' ...
        """
        caller, name = f"{type(self).__name__}.check_budget", self.name
        if type(budget) is not Budget:  # not isinstance: an object's __class__ may claim Budget
            raise ParameterError(
                f"{caller}: mechanism '{name}' needs a Budget. "
                f"Got {describe_value(budget)} instead."
            )
        budget = exact_budget(budget, caller)  # (ε, δ) read once: every later read agrees
        if not math.isfinite(budget.epsilon):  # ε = inf: the non-private baseline's budget
            raise ParameterError(f"{caller}: mechanism '{name}' needs a finite epsilon > 0. Got "
                                 f"{describe_value(budget.epsilon)} instead.")
        if self.pure and budget.delta != 0.0:
            other = ("an (epsilon, delta) mechanism" if self.alternative is None else
                     f"mechanism='{self.alternative}' (or 'auto') for the (epsilon, delta) form")
            raise ParameterError(
                f"{caller}: mechanism '{name}' is pure epsilon-DP: use delta = 0 (got "
                f"{describe_value(budget.delta)}), or {other}.")
        if not self.pure and not budget.delta > 0.0:
            pure = ("" if self.alternative is None else
                    f", or use mechanism='{self.alternative}' for pure epsilon-DP")
            raise ParameterError(
                f"{caller}: mechanism '{self.budget_name or name}' is (epsilon, delta)-DP and "
                "needs delta > 0 ("
                f"got {describe_value(budget.delta)}): set delta (e.g. 1/n**2){pure}.")
        return budget

    def conditions(self, template: TemplateT, budget: Budget) -> list[Condition]:
        """The conditions of the proof on ``template`` before any noise: the template's (a
        user's template's, or a shipped template's with a method of the user's set on it, as
        its own statements, each read once, declared and not verified:
        :func:`~dpconvex.privacy.certificate.template_statements`), then any a subclass adds.
        :func:`~dpconvex.privacy.release.release` refuses the first that fails; a mechanism
        raises :class:`PrivacyError` itself where it cannot serve the template.

        Parameters
        ----------
        template : Template
            The problem.
        budget : Budget
            The (ε, δ) of the release.

        Returns
        -------
        list of Condition

        Raises
        ------
        PrivacyError
            In a subclass, where the mechanism cannot serve the template (e.g. an
            approximate-minima cover of a template that declares no distance bound).
        ParameterError
            In a subclass, where a parameter of the mechanism does not fit the template (e.g. an
            optimality tolerance below the one the solvers aim for).

        Examples
        --------
        >>> # template: LinearERMTemplate(Logistic(), 0.1, 1.0, X, y), conftest.py
        >>> mech = get_mechanism("output")
        >>> conditions = mech.conditions(template, Budget(1.0))
        >>> "row norm bound" in [c.name for c in conditions], all(c.holds for c in conditions)
        (True, True)
        """
        stated = template.conditions(self.needs)
        if not as_shipped(template):  # the user's own statements: not verified
            return template_statements(
                stated, f"{type(self).__name__}.conditions",
                f"the conditions() of template {type(template).__qualname__!r}")
        return list(stated)

    @abstractmethod
    def calibrate(self, template: TemplateT, budget: Budget) -> Calibration | None:
        """Noise calibration from the template's declared public constants, holding the law of
        the noise that masks the data (:attr:`Calibration.noise`: what the Λ rule and the noise
        warnings weigh; a private mechanism whose calibration holds none is refused by name
        where they need it).

        Parameters
        ----------
        template : Template or PrivacyConstants
            The problem (its declared constants; no rows are read). The mechanisms whose
            noise enters the objective or the output (``"objective"``, ``"output"`` and their
            Gaussian forms) also take, before any rows, the public problem: the declared
            constants with ``n``, ``PrivacyConstants(..., n=n)``.
        budget : Budget
            The (ε, δ) of the release.

        Returns
        -------
        Calibration or None
            None: nothing to calibrate (the non-private baseline).

        Raises
        ------
        ParameterError
            In a subclass, where a parameter of the mechanism does not fit the problem (e.g.
            noisy gradient descent's steps above their cap for n and p), or a
            ``PrivacyConstants`` without ``n`` is given for the problem.
        PrivacyError
            In a subclass, where the budget breaks a rule the mechanism was built with (e.g.
            noisy gradient descent's δ = 1/n² rule).

        Examples
        --------
        >>> # template: LinearERMTemplate(Logistic(), 0.1, 1.0, X, y), conftest.py
        >>> mech = get_mechanism("output")
        >>> cal = mech.calibrate(template, Budget(1.0))
        >>> cal.mechanism, cal.sensitivity
        ('output', 0.5)
        """

    @abstractmethod
    def certificate(self, template: TemplateT, budget: Budget, cal: Calibration | None,
                    conditions: list[Condition]) -> Certificate:
        """This mechanism's certificate (before the solve).

        Parameters
        ----------
        template : Template
            The problem.
        budget : Budget
            The (ε, δ) of the release.
        cal : Calibration or None
            Its calibration.
        conditions : list of Condition
            The conditions checked (:meth:`conditions`).

        Returns
        -------
        Certificate

        Examples
        --------
        >>> # template: LinearERMTemplate(Logistic(), 0.1, 1.0, X, y), conftest.py
        >>> mech = get_mechanism("output")
        >>> budget = Budget(1.0)
        >>> cal = mech.calibrate(template, budget)
        >>> mech.certificate(template, budget, cal, mech.conditions(template, budget)).epsilon
        1.0
        """

    @abstractmethod
    def run(self, template: TemplateT, cal: Calibration | None, backend: Backend,
            rng: np.random.Generator, *, warm_start: np.ndarray | None = None,
            max_iter: int | None = None, tol: float | None = None
            ) -> tuple[np.ndarray, SolveResult | None, bool]:
        """Draw the noise and solve (accepting a residual <= ``tol``, default the template's):
        (theta before post-processing, the solve (a diagnostic, never stored on a release),
        whether noise was added to a solver's output (then post-processed onto the space)).

        Parameters
        ----------
        template : Template
            The problem.
        cal : Calibration or None
            Its calibration.
        backend : Backend
            The solver.
        rng : numpy.random.Generator
            The noise source.
        warm_start : ndarray or None, default=None
            A start point for the solver.
        max_iter : int or None, default=None
            The solver's iteration cap.
        tol : float or None, default=None
            The residual accepted (None: the template's).

        Returns
        -------
        tuple
            (θ, the solve or None, whether noise was added to the output).

        Examples
        --------
        >>> from dpconvex.solvers import LbfgsNewton
        >>> # template: LinearERMTemplate(Logistic(), 0.1, 1.0, X, y), conftest.py
        >>> mech = get_mechanism("output")
        >>> cal = mech.calibrate(template, Budget(1.0))
        >>> theta, solve, noised = mech.run(template, cal, LbfgsNewton(), np.random.default_rng(0))
        >>> theta.shape, solve.status.name, noised
        ((3,), 'OPTIMAL', True)
        """

    def solve_conditions(self, template: TemplateT, result: SolveResult | None,
                         cal: Calibration | None) -> list[Condition]:
        """The conditions the solve ``result`` of :meth:`run` (None: no solve) established,
        added to the certificate after the run; :func:`~dpconvex.privacy.release.release` releases nothing
        when one fails. Public facts only, never the residual (a data statistic).

        The default, for a private mechanism that solves and is not a cover (:attr:`wraps`):
        "accurate solve", the template's tolerance met and the uncovered distance to the exact
        minimizer (the template's ``distance_bound`` at the solved modulus).

        Parameters
        ----------
        template : Template
            The problem.
        result : SolveResult or None
            The solve of :meth:`run` (None: no solve).
        cal : Calibration or None
            The calibration.

        Returns
        -------
        list of Condition

        Examples
        --------
        >>> from dpconvex.solvers import LbfgsNewton
        >>> # template: LinearERMTemplate(Logistic(), 0.1, 1.0, X, y), conftest.py
        >>> mech = get_mechanism("output")
        >>> cal = mech.calibrate(template, Budget(1.0))
        >>> _, solve, _ = mech.run(template, cal, LbfgsNewton(), np.random.default_rng(0))
        >>> [c.name for c in mech.solve_conditions(template, solve, cal)]
        ['accurate solve']
        """
        if result is None or not self.private or self.wraps:
            return []
        if self.placement == "output":
            tol, radius = output_release_tolerance(template, cal)
            if radius is not None:  # None: a calibration stating no kappa (a user's mechanism)
                kappa = cal.extra[SOLVE_MARGIN_KEY]
                return [Condition(
                    "accurate solve", True, "residual computed by dpconvex",
                    f"solved to optimality residual <= {tol:.3g}, so within kappa G/(n mu) = "
                    f"{radius:.3g} of the exact minimizer (kappa = {kappa:g}); covered: the "
                    f"noise is calibrated to the sensitivity 2G(1 + kappa)/(n mu) of the "
                    "solved point")]
        # the distance a release read once, before any noise (else read here: a direct call)
        recorded = None if cal is None else cal.extra.get(UNCOVERED_DISTANCE_KEY)
        tol, _, distance = uncovered_distance(template, cal) if recorded is None else recorded
        gap = (
            "; no distance bound (extra terms, or a set without an exact projection): the "
            "uncovered gap is not stated" if distance is None else
            f"; uncovered distance to the exact minimizer <= {distance:.3g}"
        )
        return [Condition("accurate solve", True, "residual computed by dpconvex",
                          f"solved to optimality residual <= {tol:g} (exact-minimizer mode){gap}")]

    def calibrate_grid(self, problem: ConstantsSource, budget: Budget,
                       moduli: np.ndarray) -> Calibration:
        """The calibration on ``problem`` at each modulus of ``moduli`` (the Λ rule's grid):
        its fields arrays over the moduli, its :attr:`~Calibration.noise` a family of laws and
        its :attr:`~Calibration.constants` at the moduli. A mechanism whose noise enters the
        objective or the output gives it; the base raises the :class:`ParameterError` that
        names the mechanism.

        Parameters
        ----------
        problem : Template or PrivacyConstants
            The problem: a template, or before any rows the public problem (declared constants
            with ``n``; linear ERM's: ``LinearERMTemplate.constants_for`` with n).
        budget : Budget
            The (ε, δ) of the release.
        moduli : ndarray
            The moduli of the grid.

        Returns
        -------
        Calibration
            Its fields arrays over ``moduli``.

        Raises
        ------
        ParameterError
            Here, in the base: the mechanism reports no noise law on a grid.

        Examples
        --------
        >>> # template: LinearERMTemplate(Logistic(), 0.1, 1.0, X, y), conftest.py
        >>> mech = get_mechanism("output")
        >>> mech.calibrate_grid(template, Budget(1.0), np.array([0.1, 1.0])).noise_rate.tolist()
        [2.0, 20.0]
        """
        raise no_noise_law(self.name, f"{type(self).__name__}.calibrate_grid")


#: The registry: mechanism name -> class. Estimators read allowed names from it.
MECHANISMS: dict[str, type[Mechanism]] = {}


def register(cls: type[Mechanism]) -> type[Mechanism]:
    """Class decorator adding a mechanism to :data:`MECHANISMS` under ``cls.name``.

    Parameters
    ----------
    cls : type of Mechanism
        The class, with a ``name`` not yet registered.

    Returns
    -------
    type of Mechanism
        ``cls`` itself.

    Raises
    ------
    ValueError
        ``cls.name`` is empty or already registered.

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms import MECHANISMS, NonPrivate, register
    >>> register.__name__, MECHANISMS["none"] is NonPrivate
    ('register', True)
    """
    if not cls.name or cls.name in MECHANISMS:
        raise ValueError(f"register: mechanism name {cls.name!r} is empty or already registered. "
                         "Give the class a new name.")
    MECHANISMS[cls.name] = cls
    return cls


def mechanism_names(*, solves: bool | None = None, wraps: bool | None = None) -> tuple[str, ...]:
    """Registered names, optionally only those that solve a template.

    ``wraps=False`` leaves out the covers around an inner mechanism (approximate minima).

    Parameters
    ----------
    solves : bool or None, default=None
        Only the mechanisms whose ``solves`` is this (None: all).
    wraps : bool or None, default=None
        Only the mechanisms whose ``wraps`` is this (None: all).

    Returns
    -------
    tuple of str
        The names, in registration order.

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms import mechanism_names
    >>> mechanism_names(solves=True, wraps=False)[:3]
    ('objective', 'output', 'none')
    >>> "objective" in mechanism_names()
    True
    """
    return tuple(name for name, cls in MECHANISMS.items()
                 if (solves is None or cls.solves == solves)
                 and (wraps is None or cls.wraps == wraps))


def get_mechanism(name: Any, owner: str = "dpconvex", *, allowed: tuple[str, ...] | None = None,
                  noun: str = "parameter", **options: Any) -> Mechanism:
    """Instantiate a registered mechanism by name (``options`` go to its constructor).

    Parameters
    ----------
    name : str
        A registered mechanism name.
    owner : str, default="dpconvex"
        The caller named in the refusal.
    allowed : tuple of str or None, default=None
        The names accepted (None: every registered one).
    noun : str, default="parameter"
        What ``mechanism`` is of ``owner``, in the refusal: "argument" for a function's.
    **options
        Keyword arguments of the mechanism's constructor.

    Returns
    -------
    Mechanism
        A new instance.

    Raises
    ------
    ParameterError
        When ``name`` is not registered (or not in ``allowed``), listing the choices.

    Examples
    --------
    >>> type(get_mechanism("objective")).__name__
    'ObjectivePerturbation'
    >>> get_mechanism("knorm_sum", count_weight=0.25).count_weight
    0.25
    """
    choices = allowed if allowed is not None else tuple(MECHANISMS)
    if not isinstance(name, str) or name not in choices:
        raise ParameterError(
            f"The 'mechanism' {noun} of {owner} must be one of {list(choices)!r}. Got {name!r} "
            "instead."
        )
    return MECHANISMS[name](**options)


@dataclasses.dataclass(frozen=True)
class MechanismMenu:
    """What an estimator offers as ``mechanism=``, and what ``mechanism="auto"`` means for it.

    Parameters
    ----------
    offered : mapping of str to str
        ``mechanism=`` value -> registry name (:data:`MECHANISMS`).
    auto : tuple of (str, str) or None
        The offered names ``"auto"`` resolves to for δ = 0 and δ > 0
        (:func:`resolve_mechanism`); None: no ``"auto"``.
    routes : tuple of str, default=()
        Values the estimator resolves itself before the menu (e.g. ``"centroid"``: another
        estimator's release), named with the menu's in the refusal of an unknown value.

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms import MechanismMenu
    >>> menu = MechanismMenu({"objective": "objective", "gaussian_objective":
    ...                       "gaussian_objective_lm"}, auto=("objective", "gaussian_objective"))
    >>> tuple(menu.offered), menu.offered["gaussian_objective"]
    (('objective', 'gaussian_objective'), 'gaussian_objective_lm')

    A mechanism registered in a user's module is offered by a subclass of the estimator
    with an extended menu: ``mechanism_menu = LINEAR_MENU.with_mechanisms("my_mechanism")``.
    """

    offered: Mapping[str, str]
    auto: tuple[str, str] | None = None
    routes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        unknown = sorted(set(self.offered.values()) - set(MECHANISMS))
        bad_auto = self.auto is not None and not set(self.auto) <= set(self.offered)
        if unknown or bad_auto:
            raise ValueError(
                f"MechanismMenu.__init__: {unknown or self.auto!r} is not registered or not "
                "offered. Register the mechanism, or name only offered names in 'auto'."
            )

    def with_mechanisms(self, *names: str) -> MechanismMenu:
        """This menu with the registered mechanisms ``names`` offered under their own names.

        Parameters
        ----------
        *names : str
            Registered mechanism names.

        Returns
        -------
        MechanismMenu
            A new menu (this one is frozen).

        Examples
        --------
        >>> from dpconvex.privacy.mechanisms import MechanismMenu
        >>> menu = MechanismMenu({"objective": "objective"}).with_mechanisms("output")
        >>> sorted(menu.offered)
        ['objective', 'output']
        """
        return MechanismMenu(
            {**self.offered, **{name: name for name in names}}, self.auto, self.routes
        )


class NonPrivateBaseline(Mechanism[TemplateT]):
    """An explicit NON-private baseline: no budget, no conditions, no noise, no guarantee.

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms import NonPrivateBaseline, get_mechanism
    >>> [isinstance(get_mechanism(name), NonPrivateBaseline) for name in ("none", "none_ssp")]
    [True, True]
    """

    private = False
    placement = "none"

    def check_budget(self, budget: Budget) -> Budget:
        """The unlimited budget, whatever ``budget`` is: the baseline spends none.

        Parameters
        ----------
        budget : Budget
            The budget asked for (ignored).

        Returns
        -------
        Budget
            :meth:`Budget.unlimited`.

        Examples
        --------
        >>> get_mechanism("none").check_budget(Budget(1.0)).private
        False
        """
        return Budget.unlimited()

    def conditions(self, template: TemplateT, budget: Budget) -> list[Condition]:
        """None: the baseline proves nothing.

        Parameters
        ----------
        template : Template
            The problem (not read).
        budget : Budget
            The budget (not read).

        Returns
        -------
        list of Condition
            The empty list.

        Examples
        --------
        >>> # template: LinearERMTemplate(Logistic(), 0.1, 1.0, X, y), conftest.py
        >>> get_mechanism("none").conditions(template, Budget.unlimited())
        []
        """
        return []

    def calibrate(self, template: TemplateT, budget: Budget) -> None:
        """Nothing to calibrate: the baseline adds no noise.

        Parameters
        ----------
        template : Template
            The problem (not read).
        budget : Budget
            The budget (not read).

        Returns
        -------
        None

        Examples
        --------
        >>> # template: LinearERMTemplate(Logistic(), 0.1, 1.0, X, y), conftest.py
        >>> get_mechanism("none").calibrate(template, Budget.unlimited()) is None
        True
        """
        return None

    def certificate(self, template: TemplateT, budget: Budget, cal: Calibration | None,
                    conditions: list[Condition]) -> Certificate:
        """A certificate that says the model is NOT private (ε = inf).

        Parameters
        ----------
        template : Template
            The problem (its name).
        budget : Budget
            The budget (not read).
        cal : None
            The calibration (none).
        conditions : list of Condition
            The conditions checked (none).

        Returns
        -------
        Certificate
            ``private`` False, ε infinite.

        Examples
        --------
        >>> # template: LinearERMTemplate(Logistic(), 0.1, 1.0, X, y), conftest.py
        >>> cert = get_mechanism("none").certificate(template, Budget.unlimited(), None, [])
        >>> cert.private, cert.epsilon, cert.mechanism
        (False, inf, 'non-private baseline (linear ERM)')
        """
        return Certificate(
            mechanism=f"non-private baseline ({template.name})",
            epsilon_requested=math.inf, epsilon=math.inf, private=False,
            assumptions=["mechanism='none' adds no noise: the model is NOT private."])


#: The certificate's words for each mechanism ``"auto"`` may choose.
_WHY = {
    "objective": "objective perturbation, pure epsilon-DP",
    "gaussian_objective": "Gaussian objective perturbation, (epsilon, delta)-DP",
    "knorm_sum": "K-norm noise on the class sums and counts, pure epsilon-DP",
    "knorm_sup_sum": "sup-norm K-norm noise on the class sums, sums of squares and counts, pure epsilon-DP",
    "gaussian": "the analytic Gaussian mechanism on the class sums and counts, (epsilon, delta)-DP",
    "ssp": "sufficient-statistics perturbation, pure epsilon-DP",
    "gaussian_ssp": "sufficient-statistics perturbation, (epsilon, delta)-DP",
}


class AutoMechanism(NamedTuple):
    """The mechanism ``mechanism=`` resolves to, and the certificate's line on why (None: given).

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.base import resolve_mechanism
    >>> auto = resolve_mechanism("auto", 0.0, ("objective", "gaussian_objective"))
    >>> auto.name, auto.reason is not None
    ('objective', True)
    """

    name: str
    reason: MechanismChoice | None


def resolve_mechanism(
    mechanism: object, budget: Budget | float | None, auto: tuple[str, str] | None
) -> AutoMechanism:
    """The mechanism of ``mechanism=``; "auto" by δ alone: δ = 0 (or None) the menu's pure
    ε-DP mechanism, δ > 0 its (ε, δ) one (docs/privacy/front_door.md#privacy-mechanism-auto).
    The linear learners' plan then keeps the pure one where its Λ-rule bound is the lower
    (:func:`~dpconvex.privacy.rules.noise_level.form_bounds`).

    ``mechanism`` other than ``"auto"`` is returned as given (the estimator's menu refuses
    what it does not offer); ``auto`` is the menu's pair
    (:attr:`~dpconvex.privacy.mechanisms.MechanismMenu.auto`). ``budget`` is the (ε, δ) asked
    for (a :class:`Budget`, checked when it was made), or the δ of an estimator that resolves
    its mechanism before it has a budget (None: not given; a number is checked here). The
    reason is public: the rule and δ's sign.

    Parameters
    ----------
    mechanism : object
        The ``mechanism=`` parameter as given.
    budget : Budget, float or None
        The (ε, δ) asked for, or δ alone (None: not given).
    auto : tuple of (str, str) or None
        The menu's (pure, (ε, δ)) pair; None: "auto" is not resolved here.

    Returns
    -------
    AutoMechanism
        The name and, where "auto" was resolved, the public reason (else None).

    Raises
    ------
    ParameterError
        ``budget`` is a number outside [0, 1].

    Examples
    --------
    >>> from dpconvex import Budget
    >>> resolve_mechanism("auto", Budget(1.0, 1e-6), ("objective", "gaussian_objective")).name
    'gaussian_objective'
    >>> resolve_mechanism("auto", 0.0, ("knorm_sum", "gaussian")).name
    'knorm_sum'
    >>> resolve_mechanism("output", 0.0, ("objective", "gaussian_objective"))
    AutoMechanism(name='output', reason=None)
    """
    if not (isinstance(mechanism, str) and mechanism == "auto") or auto is None:
        return AutoMechanism(mechanism, None)
    if isinstance(budget, Budget):
        delta = budget.delta
    else:  # a δ of its own: None (not given) or a number, checked here
        delta = 0.0 if budget is None else check_float(
            "delta", budget, "resolve_mechanism", low_inclusive=True, high=1.0)
    # the menu's pair: (the pure mechanism, the (ε, δ) one)
    name, because = (auto[1], "delta > 0") if delta > 0 else (auto[0], "delta = 0")
    return AutoMechanism(name, MechanismChoice(name, because, _WHY[name]))


def require_exact(template: ObjectiveTemplate, res: SolveResult, *, tol: float | None = None,
                  caller: str = "require_exact", backend: Backend | None = None,
                  aiming: bool = False) -> SolveResult:
    """The solve ``res`` of ``template`` if it met ``tol`` (default: the template's
    ``residual_tol``), else :class:`SolverError` opened by ``caller``: the accuracy check
    every exact-minimizer release makes before anything is released. A ``tol`` given is the
    γ of approximate-minima perturbation (``optimality_tol``), and the message says so. The
    residual judged is the one the solve reports: a shipped backend reports the template's at
    its point (tests/solvers/test_reported_residual.py); where a part of the release is the
    user's, the release's backend reports the template's own recomputation
    (:func:`~dpconvex.privacy.user_parts.judged`).

    The message names the ``backend``'s solvers (default: the solve's), the tolerance and what
    to do (the other backends to try, :func:`~dpconvex.solvers.retry_advice`; for a solve aimed
    at output perturbation's tolerance, those that aim at it: :func:`_output_advice`): one text
    whether the solve failed or stopped short, and whether or not a polish ran, never its
    status or residual (data statistics: :func:`~dpconvex.collect_diagnostics`). The text is
    built only where the solve missed its tolerance.

    Parameters
    ----------
    template : ObjectiveTemplate
        The template solved.
    res : SolveResult
        The solve.
    tol : float or None, default=None
        The residual tolerance (None: ``template.residual_tol``).
    caller : str, default="require_exact"
        The call named in the refusal.
    backend : Backend or None, default=None
        The backend whose solvers the message names (None: the solve's).
    aiming : bool, default=False
        Whether the solve aimed at output perturbation's tolerance kappa*G/n: the message then
        says what that noise covers (:func:`_output_proof`) and names only the backends that
        aim at it (:func:`_output_advice`), where ``tol`` is None.

    Returns
    -------
    SolveResult
        ``res`` itself.

    Raises
    ------
    SolverError
        The solve failed, or its residual is above the tolerance: nothing may be released.

    Examples
    --------
    >>> from dpconvex import SolverError
    >>> # template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y): conftest.py
    >>> from dpconvex.privacy.mechanisms.base import require_exact
    >>> from dpconvex.solvers import LbfgsNewton
    >>> res = require_exact(template, LbfgsNewton().solve(template, None))
    >>> res.status.name, res.residual <= template.residual_tol
    ('OPTIMAL', True)
    >>> try:
    ...     require_exact(template, LbfgsNewton().solve(template, None, max_iter=1))
    ... except SolverError:
    ...     print("not accurate enough to release")
    ...
    not accurate enough to release
    """
    needed = template.residual_tol if tol is None else tol
    failed = (res.x is None or res.status in (SolveStatus.FAILED, SolveStatus.INFEASIBLE,
                                              SolveStatus.UNBOUNDED)
              or not np.isfinite(res.residual) or not np.all(np.isfinite(res.x)))
    if failed or res.residual > needed:  # one text, whatever the status: the solve's outcome
        from ...errors import record_solve  # (status, residual, a polish) is the curator's

        record_solve(res)
        solver = "+".join(getattr(backend, "solvers", ())) or res.solver  # asked for, not ran
        ran = solver.split("+")
        why = ("approximate-minima perturbation covers a solve to optimality_tol only. Use a "
               "larger optimality_tol, or raise max_iter if you capped the iterations"
               if tol is not None else
               f"{_output_proof(backend)}. {_output_advice(template, ran)}" if aiming else
               "the privacy proof holds for the exact minimizer only. "
               f"{retry_advice(template, ran)}")
        raise SolverError(
            f"{caller}: the solve by '{solver}' did not reach the tolerance {needed:g} the release "
            "needs, so no "
            f"model is released: {why} (the solve's status and residual: "
            "dpconvex.collect_diagnostics)."
        )
    return res


def output_release_tolerance(template: ObjectiveTemplate, cal: Calibration | None,
                             per_residual: float | None = None) -> tuple[float, float | None]:
    """:func:`output_solve_tolerance` at the calibration's n, constants and κ (the template's
    ``residual_tol`` and None where the calibration states no κ > 0); the one the calibration
    holds where a release recorded it (:data:`SOLVE_TOLERANCE_KEY`).

    Parameters
    ----------
    template : ObjectiveTemplate
        The problem.
    cal : Calibration or None
        An output placement's calibration.
    per_residual : float or None, default=None
        The template's ``distance_bound(1.0, mu)`` as read once (None: read here).

    Returns
    -------
    tuple of float and (float or None)
        (the residual tolerance, the distance to the exact minimizer it guarantees, or None).

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.base import output_release_tolerance
    >>> # template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y): conftest.py
    >>> cal = get_mechanism("output").calibrate(template, Budget(1.0))
    >>> output_release_tolerance(template, cal)[1]
    0.00025
    """
    if cal is not None and SOLVE_TOLERANCE_KEY in cal.extra:
        return cal.extra[SOLVE_TOLERANCE_KEY]
    margin = 0.0 if cal is None else float(cal.extra.get(SOLVE_MARGIN_KEY, 0.0))
    if not margin > 0.0:
        return float(template.residual_tol), None
    consts = calibrated_constants(template, cal)
    return output_solve_tolerance(template, float(consts.strong_convexity),
                                  float(consts.grad_bound), margin, n=cal.n,
                                  per_residual=per_residual)


def uncovered_distance(template: ObjectiveTemplate, cal: Calibration | None
                       ) -> tuple[float, float, float | None]:
    """The residual tolerance r of an exact-minimizer solve, the modulus μ + Δ of the solved
    objective (the calibration's constants and Δ) and the distance from a point of residual r
    to the exact minimizer, ``template.distance_bound(r, μ + Δ)``, each read once: what
    :meth:`Mechanism.solve_conditions` states as uncovered (None: the template bounds no
    distance, with extra terms or a set without an exact projection).

    Parameters
    ----------
    template : ObjectiveTemplate
        The problem (its ``residual_tol`` and ``distance_bound``).
    cal : Calibration or None
        The calibration (its constants and Δ; None: the template's constants, Δ = 0).

    Returns
    -------
    tuple
        (r, μ + Δ, the distance as a float or None).

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.base import uncovered_distance
    >>> # template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y): conftest.py
    >>> tol, mu, distance = uncovered_distance(template, None)
    >>> tol, mu, round(distance, 12)
    (1e-06, 0.1, 1e-05)
    """
    tol = template.residual_tol
    mu = calibrated_constants(template, cal).strong_convexity + (
        cal.extra_strong_convexity if cal is not None else 0.0)
    try:
        distance: float | None = float(template.distance_bound(tol, mu))
    except (AttributeError, PrivacyError):  # extra terms, or a set without exact projection
        distance = None
    return tol, mu, distance


def record_uncovered_distance(mechanism: Mechanism, template: ObjectiveTemplate,
                              cal: Calibration | None) -> Calibration | None:
    """``cal`` holding the uncovered distance of its solve (:data:`UNCOVERED_DISTANCE_KEY`,
    :func:`uncovered_distance`), read once before any noise, where the mechanism is a private
    one that solves for an exact minimizer (not a cover, not an output placement whose noise
    covers the solve, :data:`SOLVE_TOLERANCE_KEY`) and the calibration holds constants; else
    ``cal``.

    Parameters
    ----------
    mechanism : Mechanism
        The release's mechanism.
    template : ObjectiveTemplate
        The problem.
    cal : Calibration or None
        Its calibration.

    Returns
    -------
    Calibration or None

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.base import record_uncovered_distance
    >>> # template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y): conftest.py
    >>> mech = get_mechanism("objective")
    >>> cal = record_uncovered_distance(mech, template, mech.calibrate(template, Budget(1.0)))
    >>> cal.extra[UNCOVERED_DISTANCE_KEY][0]
    1e-06
    """
    if cal is None or cal.constants is None or not (
            mechanism.private and mechanism.solves and not mechanism.wraps):
        return cal
    held = cal.extra.get(SOLVE_TOLERANCE_KEY)
    if mechanism.placement == "output" and held is not None and held[1] is not None:
        return cal  # the noise covers the solve's distance (kappa): nothing is uncovered
    return dataclasses.replace(cal, extra={
        **cal.extra, UNCOVERED_DISTANCE_KEY: uncovered_distance(template, cal)})


def state_solve_margin(quantities: dict[str, Any], cal: Calibration) -> None:
    """Copy κ, the solve's distance the noise covers, into a certificate's quantities where the
    calibration states it (an output placement); else leave them as they are.

    Parameters
    ----------
    quantities : dict
        A certificate's quantities, updated in place.
    cal : Calibration
        The calibration.

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.base import state_solve_margin
    >>> cal = calibrate_output_perturbation(1.0, 40, PrivacyConstants(1.0, 1, 0.25, 0.1, 3))
    >>> quantities = {}
    >>> state_solve_margin(quantities, cal)
    >>> quantities
    {'solve margin kappa': 0.001}
    """
    if SOLVE_MARGIN_KEY in cal.extra:
        quantities[SOLVE_MARGIN_KEY] = cal.extra[SOLVE_MARGIN_KEY]


#: The CVXPY solvers: fixed tolerances of their own, never aimed at a release's tolerance.
_FIXED_TOLERANCE_SOLVERS = frozenset({"clarabel", "scs"})


def _output_proof(backend: Backend) -> str:
    """What output perturbation's noise covers, in a refused solve's message, and where the
    backend's solvers keep fixed tolerances (Clarabel, SCS), that they do not aim at it."""
    proof = ("the noise of output perturbation covers a solve within kappa*G/(n*mu) of the "
             "exact minimizer only")
    fixed = sorted(_FIXED_TOLERANCE_SOLVERS & {str(s).lower()
                                               for s in getattr(backend, "solvers", ())})
    if fixed:
        one = len(fixed) == 1
        proof += (f"; {' and '.join(fixed)} solve{'s' if one else ''} to fixed tolerances of "
                  f"{'its' if one else 'their'} own, not to kappa*G/n, which falls as 1/n")
    return proof


def _output_advice(template: ObjectiveTemplate, failed: list[str]) -> str:
    """What to do when an output placement's solve by ``failed`` missed kappa*G/n: the other
    registered backends that can solve ``template`` and aim at a tolerance (never Clarabel or
    SCS, whose tolerances are fixed: :func:`_output_proof`), or what is left where none is."""
    aiming = [name for name in other_backends(template, failed)
              if name not in _FIXED_TOLERANCE_SOLVERS]
    if aiming:
        return ("Use " + " or ".join(f"solver={name!r}" for name in aiming)
                + f", which aim{'s' if len(aiming) == 1 else ''} at kappa*G/n, or raise "
                "max_iter if you capped the iterations")
    return ("No other registered backend aims at kappa*G/n on this template: raise max_iter if "
            "you capped the iterations, use a larger lam (a better-conditioned objective), or "
            "use mechanism='objective'")


def _aimed_at(template: ObjectiveTemplate, tol: float,
              caller: str = "ExactMinimizer.run") -> ObjectiveTemplate:
    """The template a solve aiming at ``tol`` runs on: ``template`` itself where ``tol`` is not
    below its ``residual_tol``, else a shallow copy whose ``residual_tol`` is ``tol`` (the
    shipped backends aim at a fraction of the template's tolerance). The copy shares the rows,
    their operators, the loss and the space (nothing of the data is copied); what a solve keeps
    on it (the ``_caches`` its class names) stays there; the caller's template is left as it is.

    Parameters
    ----------
    template : ObjectiveTemplate
        The caller's template.
    tol : float
        The residual the solve must reach.
    caller : str, default="ExactMinimizer.run"
        The call named in a refusal.

    Returns
    -------
    ObjectiveTemplate
        ``template``, or its copy aimed at ``tol``.

    Raises
    ------
    PrivacyError
        The template cannot be copied (its ``__copy__`` or ``__reduce_ex__`` raised, or gave
        back no new object of its class), or its copy does not let its ``residual_tol`` be set
        to ``tol`` (no setter, a setter that raises, clamps or ignores it, or one that sets
        the caller's template's as well): nothing is solved.
    """
    if not tol < template.residual_tol:
        return template
    held = template.residual_tol
    try:
        aimed = copy.copy(template)  # may run the user's __copy__ or __reduce_ex__
    except Exception as exc:
        raise _uncopied(template, tol, caller, f"copying it raised {type(exc).__name__}") from None
    if (aimed is template or type(aimed) is not type(template)
            or getattr(aimed, "__dict__", None) is getattr(template, "__dict__", False)):
        raise _uncopied(template, tol, caller, "its copy is not a new object of its class")
    try:
        aimed.residual_tol = tol
        taken = aimed.residual_tol <= tol  # a setter may clamp or ignore it
    except Exception:  # no setter, or one that refuses the value
        taken = False
    if not template.residual_tol == held:  # a setter that writes where the caller's reads
        with contextlib.suppress(Exception):
            aimed.residual_tol = held
        taken = False
    if not taken:
        raise PrivacyError(
            f"{caller}: template '{template.name}' does not let its residual_tol be set to the "
            f"tolerance {tol:g} the release needs, so no solver can aim at it. Let residual_tol "
            "be an attribute, or use objective perturbation."
        )
    return aimed


def _uncopied(template: ObjectiveTemplate, tol: float, caller: str, why: str) -> PrivacyError:
    """The refusal of a template that :func:`_aimed_at` cannot copy (``why``: what went wrong,
    never the text of the user's exception)."""
    return PrivacyError(
        f"{caller}: template '{template.name}' cannot be copied ({why}), and output "
        f"perturbation solves a copy of it whose residual_tol is the tolerance {tol:g} the "
        "release needs, leaving the template as it is; nothing is released. Let copy.copy copy "
        "the template, or use objective perturbation."
    )


def _solved_as_aimed(aimed: ObjectiveTemplate, template: ObjectiveTemplate, tol: float,
                     caller: str) -> None:
    """Refuse where a solve changed the copy of ``template`` :func:`_aimed_at` gave it: its
    ``residual_tol`` above ``tol``, or a public member or the rows operator not the very object
    ``template`` holds (what :func:`~dpconvex.privacy.user_parts.unchanged` compares on the
    template a release was given, which a change to the copy leaves as it was)."""
    own, held, missing = getattr(aimed, "__dict__", {}), getattr(template, "__dict__", {}), object()
    changed = not aimed.residual_tol <= tol
    for name in own.keys() | held.keys():  # the members unchanged() compares, but the aim
        if (not name.startswith("_") or name == "_ops") and name != "residual_tol":
            changed = changed or own.get(name, missing) is not held.get(name, missing)
    if changed:
        raise PrivacyError(
            f"{caller}: the template's members changed during the solve (a backend or template "
            "of the user's changed them), so the calibration and the checks no longer hold; "
            "nothing is released. Leave the template unchanged while it is solved."
        )


class ExactMinimizer(Mechanism["ObjectiveTemplate"]):
    """A mechanism that releases the exact minimizer of its template, noised on the objective
    or on the output (then snapped). A private subclass gives :meth:`noise_law`; its
    calibration holds that law (:meth:`holding_noise`), and :meth:`run` draws it.

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms import ExactMinimizer, get_mechanism
    >>> [isinstance(get_mechanism(name), ExactMinimizer)
    ...  for name in ("objective", "gaussian_output", "none", "knorm_sum")]
    [True, True, True, False]
    """

    def conditions(self, template: ObjectiveTemplate, budget: Budget) -> list[Condition]:
        """The conditions of :meth:`Mechanism.conditions`; where they hold, a private output
        placement refuses a template that bounds no distance from a solve to its exact
        minimizer (a set without an exact projection, extra terms: public), before any noise
        is drawn.

        Parameters
        ----------
        template : ObjectiveTemplate
            The problem.
        budget : Budget
            The (ε, δ) of the release.

        Returns
        -------
        list of Condition

        Raises
        ------
        PrivacyError
            Output perturbation on a template without a distance bound.

        Examples
        --------
        >>> import cvxpy as cp
        >>> from dpconvex.objectives import CVXPYSet
        >>> from dpconvex.templates.linear_erm import LinearERMTemplate
        >>> from dpconvex.objectives.losses import get_loss
        >>> w = cp.Variable(2)
        >>> half = CVXPYSet([cp.sum(w) <= 0.1], w)
        >>> X, y = np.eye(2) / 2, np.array([1.0, -1.0])
        >>> constrained = LinearERMTemplate(get_loss("logistic"), 0.1, 1.0, X, y, half)
        >>> try:
        ...     get_mechanism("output").conditions(constrained, Budget(1.0))
        ... except PrivacyError as exc:
        ...     print(str(exc)[:30])
        OutputPerturbation.conditions:
        """
        conds = super().conditions(template, budget)
        if (self.placement == "output" and self.private and not self.wraps
                and all(c.holds for c in conds)):  # else the first that fails is refused
            _distance_per_residual(template, 1.0, f"{type(self).__name__}.conditions")
        return conds

    def noise_law(self, problem: ConstantsSource, cal: Calibration) -> Noise:
        """The law of the noise on the objective or the output, from ``cal`` (a family of laws
        on a grid of moduli).

        Parameters
        ----------
        problem : Template or PrivacyConstants
            The problem.
        cal : Calibration
            The calibration.

        Returns
        -------
        Noise

        Raises
        ------
        NotImplementedError
            Here, in the base: each exact-minimizer mechanism gives it.

        Examples
        --------
        >>> cal = get_mechanism("objective").calibrate(template, Budget(1.0))
        >>> type(get_mechanism("objective").noise_law(template, cal)).__name__
        'NormGamma'
        """
        raise NotImplementedError

    def holding_noise(self, problem: ConstantsSource, cal: Calibration,
                      consts: PrivacyConstants, n: int | None = None) -> Calibration:
        """``cal`` holding the constants it was calibrated from and its noise law
        (:meth:`noise_law`, built once: :meth:`run` draws it), weighed on the p noise
        coordinates, or on the problem's blocks where the law is on symmetric blocks (whose
        p coordinates they are).

        Parameters
        ----------
        problem : Template or PrivacyConstants
            The problem.
        cal : Calibration
            The calibration, without its law.
        consts : PrivacyConstants
            The declared constants it was calibrated from.
        n : int or None, default=None
            The number of records it was calibrated for (None: not stated).

        Returns
        -------
        Calibration
            A copy holding ``consts``, ``n``, the law and its shape.

        Examples
        --------
        >>> # template: LinearERMTemplate(Logistic(), 0.1, 1.0, X, y), conftest.py
        >>> mech = get_mechanism("objective")
        >>> bare = calibrate_objective_perturbation(1.0, template.n, template.privacy_constants())
        >>> cal = mech.holding_noise(template, bare, template.privacy_constants())
        >>> cal.noise == mech.noise_law(template, bare), cal.noise_shape
        (True, (3,))
        """
        law = self.noise_law(problem, cal)
        return dataclasses.replace(cal, constants=consts, n=n, noise=law, noise_shape=(
            tuple(problem.noise_shape) if getattr(law, "symmetric", False)
            else (int(consts.dimension),)))

    def run(self, template: ObjectiveTemplate, cal: Calibration | None, backend: Backend,
            rng: np.random.Generator, *, warm_start: np.ndarray | None = None,
            max_iter: int | None = None, tol: float | None = None
            ) -> tuple[np.ndarray, SolveResult | None, bool]:
        """Solve to the exact minimizer: the objective noise drawn first (and its extra
        strong convexity added) where :attr:`placement` is "objective", the output noise
        added after where it is "output", none for the baseline. A solve that misses the
        tolerance raises, and nothing is released. An output placement solves a shallow copy
        of ``template`` whose ``residual_tol`` is the tolerance its noise covers
        (:func:`_aimed_at`); ``template`` is left as it is.

        Parameters
        ----------
        template : ObjectiveTemplate
            The problem.
        cal : Calibration or None
            Its calibration (None: the non-private baseline).
        backend : Backend
            The solver.
        rng : numpy.random.Generator
            The noise source.
        warm_start : ndarray or None, default=None
            A start point for the solver.
        max_iter : int or None, default=None
            The solver's iteration cap.
        tol : float or None, default=None
            The residual accepted (None: the template's).

        Returns
        -------
        tuple
            (θ, the solve, whether noise was added to the output).

        Raises
        ------
        SolverError
            The solve did not reach the tolerance (from :func:`require_exact`).

        Examples
        --------
        >>> from dpconvex.solvers import LbfgsNewton
        >>> # template: LinearERMTemplate(Logistic(), 0.1, 1.0, X, y), conftest.py
        >>> mech = get_mechanism("objective")
        >>> cal = mech.calibrate(template, Budget(1.0))
        >>> theta, solve, noised = mech.run(template, cal, LbfgsNewton(), np.random.default_rng(0))
        >>> theta.shape, solve.status.name, noised
        ((3,), 'OPTIMAL', False)
        """
        caller = f"{type(self).__name__}.run"
        b, extra_reg, aim, aimed = None, 0.0, None, template
        if self.placement == "objective":
            assert cal is not None
            b = cal.law().sample(template.noise_shape, rng)
            extra_reg = cal.extra_strong_convexity
        elif self.placement == "output":
            # the solve the output noise covers: within κG/(nμ) of the exact minimizer
            aim = output_release_tolerance(template, cal)[0]
            if tol is not None and not tol <= aim:
                raise PrivacyError(
                    f"{caller}: output perturbation's noise covers a solve to "
                    f"residual {aim:g} on template '{template.name}', not tol={tol:g}; nothing "
                    "is released. Leave tol=None, or cover the solve with approximate minima "
                    "(optimality_tol)."
                )
            aim = aim if tol is None else tol
            # the backends aim at the residual_tol of the template they solve: a copy at γ
            aimed = _aimed_at(template, aim, caller)
        res = backend.solve(aimed, b, extra_reg, warm_start=warm_start, max_iter=max_iter)
        if aimed is not template:  # then judged at the copy's tolerance
            _solved_as_aimed(aimed, template, aim, caller)
        # output perturbation's refusal: what its noise covers, and only the backends that aim
        res = require_exact(aimed, res, tol=tol, caller=caller, backend=backend,
                            aiming=aim is not None)
        if self.placement == "output":
            assert cal is not None
            theta = cal.law().add(res.x, rng, shape=template.noise_shape)
            return theta, res, True
        return np.array(res.x, copy=True), res, False


def build_mechanism(name: Any, owner: str, menu: MechanismMenu | None, *,
                    optimality_tol: float | None = None, amp_fraction: float = 0.1) -> Mechanism:
    """The mechanism an estimator's parameters ask for (the estimators' one entry point).

    ``name`` must be on ``menu`` (after ``"auto"`` was resolved; None: every registered
    mechanism that is not a cover), ``owner`` opens the messages; a float ``optimality_tol``
    wraps a private mechanism in approximate-minima perturbation ("amp", or "gaussian_amp"
    for a Gaussian one) with ``amp_fraction`` of ε on the cover.

    Parameters
    ----------
    name : str
        The mechanism's name, "auto" resolved.
    owner : str
        The estimator, opening the messages.
    menu : MechanismMenu or None
        The estimator's menu (None: every registered mechanism that is not a cover).
    optimality_tol : float or None, default=None
        γ of approximate-minima perturbation (None: no cover).
    amp_fraction : float, default=0.1
        The share of ε on the cover.

    Returns
    -------
    Mechanism

    Raises
    ------
    ParameterError
        ``name`` is not on the menu (the message lists the choices).

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms import build_mechanism
    >>> type(build_mechanism("objective", "verify", None)).__name__
    'ObjectivePerturbation'
    >>> mech = build_mechanism("objective", "verify", None, optimality_tol=1e-4)
    >>> mech.name, mech.inner.name
    ('amp', 'objective')
    """
    # the menu maps an offered name to its registry name (registered: MechanismMenu); without
    # a menu, every registered mechanism that is not a cover is offered under its own name
    offered = {n: n for n in mechanism_names(wraps=False)} if menu is None else menu.offered
    if not isinstance(name, str) or name not in offered:
        raise _not_offered(name, owner, menu, tuple(offered))
    mech = MECHANISMS[offered[name]]()
    if optimality_tol is not None and mech.private:
        amp = "amp" if mech.pure else "gaussian_amp"  # Gaussian mechanisms: Gaussian cover
        return MECHANISMS[amp](inner=mech.name, gamma=optimality_tol, fraction=amp_fraction)
    return mech


def _not_offered(name: Any, owner: str, menu: MechanismMenu | None,
                 offered: tuple[str, ...]) -> ParameterError:
    """:func:`build_mechanism`'s refusal of a ``name`` not ``offered``, listing the choices:
    with a menu, also "auto" and the routes (resolved before the menu, so named here only
    where ``name`` is none of them), and a cover named as such."""
    named = offered if menu is None else (
        *(("auto",) if menu.auto else ()), *menu.offered, *menu.routes)
    cover = (
        f" {name!r} is a cover over another mechanism: pass that one and optimality_tol="
        "<residual> (approximate-minima perturbation)."
        if isinstance(name, str) and name in MECHANISMS and MECHANISMS[name].wraps
        else ""
    )
    listed = offered if isinstance(name, str) and name in named else named
    return ParameterError(
        f"The 'mechanism' parameter of {owner} must be one of "
        f"{list(listed)!r}. Got {describe_value(name)} instead.{cover}"
    )


# ------------------------------------------ output and objective perturbation (CMS)
#: Names of the Jacobian-slack rules :func:`calibrate_objective_perturbation` accepts.
SLACK_RULES: tuple[str, ...] = ("one_sided", "two_sided")


def jacobian_slack(n: int, mu: float, trace_bound: float, rank: int) -> float:
    """One-sided, trace-based log Jacobian-ratio bound r·log(1 + T/(r n μ))
    (docs/privacy/perturbation.md#privacy-jacobian-slack).

    n records, μ > 0 the modulus of the data-independent part (Λ + Δ), T >= tr(H) and
    r >= rank(H) for one record's loss Hessian H: r log1p(T/(r n μ)) >= log det(I + H/(nμ))
    (AM-GM over the <= r nonzero eigenvalues); 0 when r = 0 or T = 0.

    Parameters
    ----------
    n : int
        The number of records.
    mu : float
        The modulus μ > 0 of the data-independent part.
    trace_bound : float
        T >= tr(H).
    rank : int
        r >= rank(H).

    Returns
    -------
    float
        The slack (0 when r = 0 or T = 0).

    References
    ----------
    [CMS]_ Algorithm 2 (the Jacobian ratio of objective perturbation), bounded here by the
    trace (docs/privacy/perturbation.md#privacy-jacobian-slack).

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms import jacobian_slack, jacobian_slack_two_sided
    >>> round(jacobian_slack(40, 0.1, 0.25, 1), 4)
    0.0606
    >>> jacobian_slack(40, 0.1, 0.25, 1) <= jacobian_slack_two_sided(40, 0.1, 0.25, 1)
    True
    """
    if rank == 0 or trace_bound == 0:
        return 0.0
    return rank * math.log1p(trace_bound / (rank * n * mu))


def jacobian_slack_two_sided(n: int, mu: float, term_bound: float, rank: int) -> float:
    """The two-sided, conservative bound 2 r log(1 + c_u/(n μ)) ([CMS]_ Alg. 2's constant for r = 1).

    For comparison with the one-sided bound (:func:`jacobian_slack`); the
    calibration uses it only with ``slack="two_sided"``. ``term_bound`` is c_u,
    the spectral-norm bound of each of the r PSD terms (docs/privacy/perturbation.md#privacy-jacobian-slack).

    Parameters
    ----------
    n : int
        The number of records.
    mu : float
        The modulus μ > 0 of the data-independent part.
    term_bound : float
        c_u, the spectral-norm bound of each PSD term.
    rank : int
        r, the number of terms.

    Returns
    -------
    float
        The slack (0 when r = 0 or c_u = 0).

    References
    ----------
    [CMS]_ Algorithm 2 (its ε' = ε − 2 log(1 + c/(nΛ)) for r = 1).

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms import jacobian_slack_two_sided
    >>> round(jacobian_slack_two_sided(40, 0.1, 0.25, 1), 4)
    0.1212
    """
    if rank == 0 or term_bound == 0:
        return 0.0
    return 2.0 * rank * math.log1p(term_bound / (n * mu))


def half_epsilon_modulus(epsilon: float, n: int, trace_bound: float, rank: int) -> float:
    """μ' = T/(r n (e^{ε/(2r)} − 1)): the modulus at which the one-sided slack equals ε/2.

    For ε/(2r) > 700 (e^{ε/(2r)} beyond the float range) the same value is computed as
    T e^{−ε/(2r)}/(r n (1 − e^{−ε/(2r)})), which underflows to 0 instead of overflowing.

    Parameters
    ----------
    epsilon : float
        ε.
    n : int
        The number of records.
    trace_bound : float
        T.
    rank : int
        r >= 1.

    Returns
    -------
    float
        μ'.

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms import half_epsilon_modulus, jacobian_slack
    >>> mu = half_epsilon_modulus(1.0, n=40, trace_bound=0.25, rank=1)
    >>> round(mu, 5), round(jacobian_slack(40, mu, 0.25, 1), 6)
    (0.00963, 0.5)
    """
    x = epsilon / (2.0 * rank)
    if x > 700.0:
        return trace_bound * math.exp(-x) / (rank * n * -math.expm1(-x))
    return trace_bound / (rank * n * math.expm1(x))


def hessian_trace_bound(consts: PrivacyConstants) -> float:
    """T: the declared trace bound, never above r·c_u (which the per-term bounds imply).

    ``consts.hessian_trace_bound`` may be absent or None (then T = r·c_u).

    Parameters
    ----------
    consts : PrivacyConstants
        The declared constants (G, r, c_u, T, μ, p).

    Returns
    -------
    float
        T (0 where r = 0).

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms import hessian_trace_bound
    >>> hessian_trace_bound(PrivacyConstants(1.0, 2, 0.25, 0.1, 3))
    0.5
    >>> hessian_trace_bound(PrivacyConstants(1.0, 2, 0.25, 0.1, 3, hessian_trace_bound=0.3))
    0.3
    """
    r, c_u = consts.hessian_rank, consts.hessian_term_bound
    per_term = r * c_u if r > 0 else 0.0
    declared = getattr(consts, "hessian_trace_bound", None)
    return per_term if declared is None else min(declared, per_term)


def calibrate_objective_perturbation(epsilon: float, n: int, consts: PrivacyConstants,
                                     moduli: np.ndarray | None = None, *, slack: str = "one_sided",
                                     caller: str = "calibrate_objective_perturbation"
                                     ) -> Calibration:
    """Objective perturbation calibration ([CMS]_ Alg. 2, generalized;
    docs/privacy/perturbation.md#privacy-objective-perturbation, privacy-jacobian-slack).

    From ε, n (public under replace-one adjacency) and the declared G, r, c_u, T, μ: the
    split of ε between the slack (``slack``: :func:`jacobian_slack` or
    :func:`jacobian_slack_two_sided`) and the noise, Δ (0 unless the slack exceeds ε/2), the
    noise rate β = ε'/(2G) and the modulus floor. ``caller`` opens a refusal's messages. With
    ``moduli`` (the Λ rule's grid; ``consts.strong_convexity`` ignored) the fields are arrays, elementwise.

    Parameters
    ----------
    epsilon : float
        ε of the release.
    n : int
        The number of records.
    consts : PrivacyConstants
        The declared constants (G, r, c_u, T, μ, p).
    moduli : ndarray or None, default=None
        A grid of moduli (the Λ rule's); None: ``consts.strong_convexity``.
    slack : {"one_sided", "two_sided"}, default="one_sided"
        The Jacobian-slack rule.
    caller : str, default="calibrate_objective_perturbation"
        The call named in a refusal.

    Returns
    -------
    Calibration
        Numbers at the one modulus, arrays on ``moduli``; no noise law yet (the mechanism's
        ``holding_noise`` adds it).

    Raises
    ------
    ParameterError
        ``slack`` is not a rule of :data:`SLACK_RULES`.
    PrivacyError
        A modulus <= 0, an infinite curvature bound, or a noise rate beyond float64.

    References
    ----------
    [CMS]_ Algorithm 2 (objective perturbation), generalized in
    docs/privacy/perturbation.md#privacy-objective-perturbation.

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms import calibrate_objective_perturbation
    >>> consts = PrivacyConstants(grad_bound=1.0, hessian_rank=1, hessian_term_bound=0.25,
    ...                           strong_convexity=0.1, dimension=3)
    >>> cal = calibrate_objective_perturbation(1.0, 40, consts)
    >>> round(cal.slack, 4), round(cal.noise_rate, 4), cal.extra_strong_convexity
    (0.0606, 0.4697, 0.0)
    >>> grid = calibrate_objective_perturbation(1.0, 40, consts, np.array([0.001, 0.1]))
    >>> grid.slack.round(4).tolist(), grid.extra_strong_convexity.round(5).tolist()
    ([0.5, 0.0606], [0.00863, 0.0])
    """
    mu = np.asarray(float(consts.strong_convexity) if moduli is None else moduli, dtype=float)
    if not isinstance(slack, str) or slack not in SLACK_RULES:
        raise ParameterError(f"The 'slack' argument of {caller} must be one of {SLACK_RULES}. "
                             f"Got {describe_value(slack)} instead.")
    if not (mu_min := float(np.min(mu, initial=np.inf))) > 0:
        raise PrivacyError(
            f"{caller}: strong convexity: objective perturbation needs a strongly convex "
            f"objective (modulus > 0), got {mu_min}. Use a regularization strength lam > 0.")
    r, one_sided = consts.hessian_rank, slack == "one_sided"
    # the bound the rule reads: T one-sided, c_u two-sided
    bound = hessian_trace_bound(consts) if one_sided else consts.hessian_term_bound
    if not math.isfinite(bound):
        raise PrivacyError(
            f"{caller}: curvature bound: objective perturbation needs a bounded second "
            "derivative of the loss (declared curvature is infinite). Use a smooth loss "
            "(logistic, huber, smooth_hinge) or output perturbation.")
    # the slack of the rule: r log1p(T/(r n μ)) one-sided, 2r log1p(c_u/(n μ)) two-sided (the one-sided
    # one at ε/(2r), T = c_u, r = 1), 0 when r = 0 or T = 0; ``half`` the modulus at which it is ε/2,
    # times (1 + 1e-12) so that the slack stays strictly below ε/2 in floating point
    coef, per = (r, r * n) if one_sided else (2.0 * r, n)
    flat = r == 0 or bound == 0  # no slack
    half = half_epsilon_modulus(*((epsilon, n, bound, r) if one_sided else
                                  (epsilon / (2.0 * r), n, bound, 1))) * (1.0 + 1e-12)
    # the floor: μ + Δ at the vanishing modulus μ = 1e-300, the smallest modulus at which no Δ is
    # added (docs/privacy/perturbation.md#privacy-lambda-rule)
    tiny = 1e-300
    lifted = not flat and coef * math.log1p(bound / (per * tiny)) > epsilon / 2.0
    floor = tiny + max(half - tiny, 0.0) if lifted else tiny
    at_mu = np.zeros_like(mu) if flat else coef * np.log1p(bound / (per * mu))
    # where the slack at μ exceeds ε/2, the modulus is raised to μ' with slack(μ') = ε/2 (CMS
    # Alg. 2's Δ branch, re-solved for the rule in use): equally private (Δ depends on public
    # constants only), and ε' >= ε/2 (docs/privacy/perturbation.md#privacy-objective-perturbation)
    raised = at_mu > epsilon / 2.0
    delta_reg = np.where(raised, np.maximum(half - mu, 0.0), 0.0)
    # the slack at the modulus solved, μ + Δ (μ itself, bit for bit, where Δ = 0)
    eps_slack = np.zeros_like(mu) if flat else coef * np.log1p(bound / (per * (mu + delta_reg)))
    spent = np.where(raised, np.maximum(eps_slack, epsilon / 2.0), eps_slack)
    # ε' = remaining(ε, spent) elementwise: the largest x >= 0 with spent + x <= ε in floating
    # point (the same IEEE operations as budget.remaining, so the same bits)
    eps_noise = remaining_each(epsilon, spent)
    sensitivity = 2.0 * consts.grad_bound
    # a slope bound 0 (refused by the loss check): rate inf
    with np.errstate(divide="ignore", over="ignore"):
        rate = eps_noise / sensitivity
    if consts.grad_bound != 0.0 and not np.all(np.isfinite(rate)):
        raise _unresolved_rate(
            caller, "the objective's noise rate epsilon'/(2G)", consts.grad_bound
        )
    value = float if moduli is None else np.asarray  # at the one modulus: numbers
    return Calibration(mechanism="objective", epsilon_requested=epsilon, sensitivity=sensitivity,
                       epsilon=value(eps_slack + eps_noise), epsilon_noise=value(eps_noise),
                       slack=value(eps_slack), extra_strong_convexity=value(delta_reg),
                       noise_rate=value(rate), modulus_floor=floor,
                       constants=consts if moduli is None else None)


def calibrate_output_perturbation(epsilon: float, n: int, consts: PrivacyConstants, *,
                                  caller: str = "calibrate_output_perturbation",
                                  margin: float = OUTPUT_SOLVE_MARGIN) -> Calibration:
    """Output perturbation ([CMS]_ Alg. 1) of a solved point: sensitivity
    S = 2G(1 + κ)/(n μ), β = ε/S (docs/privacy/perturbation.md#privacy-output-perturbation).

    The exact minimizers of two neighbours are within 2G/(n μ); the point released is a
    solve within κG/(n μ) of its exact minimizer (:func:`output_solve_tolerance`, κ =
    ``margin``), so two released points are within 2G(1 + κ)/(n μ).

    ``caller``: the public call that calibrates (``"OutputPerturbation.calibrate"``),
    opening the message of a refusal.

    Parameters
    ----------
    epsilon : float
        ε of the release.
    n : int
        The number of records.
    consts : PrivacyConstants
        The declared constants (G, r, c_u, T, μ, p).
    caller : str, default="calibrate_output_perturbation"
        The call named in a refusal.
    margin : float, default=OUTPUT_SOLVE_MARGIN
        κ >= 0: the solve's distance to the exact minimizer allowed, in units of G/(n μ).

    Returns
    -------
    Calibration
        Sensitivity 2G(1 + κ)/(n μ) and rate β = ε/S (no noise law yet); κ in its ``extra``
        (``"solve margin kappa"``).

    Raises
    ------
    PrivacyError
        μ <= 0, or a noise rate beyond float64.

    References
    ----------
    [CMS]_ Algorithm 1 (output perturbation).

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms import calibrate_output_perturbation
    >>> cal = calibrate_output_perturbation(1.0, 40, PrivacyConstants(1.0, 1, 0.25, 0.1, 3))
    >>> cal.sensitivity, round(cal.noise_rate, 6), cal.extra["solve margin kappa"]
    (0.5005, 1.998002, 0.001)
    >>> calibrate_output_perturbation(1.0, 40, PrivacyConstants(1.0, 1, 0.25, 0.1, 3),
    ...                               margin=0.0).sensitivity  # the exact minimizer's
    0.5
    """
    mu = consts.strong_convexity
    if not mu > 0:
        raise PrivacyError(
            f"{caller}: strong convexity: output perturbation bounds the argmin sensitivity by "
            "2G/(n*mu) "
            f"and needs mu > 0; got {mu}. Use lam > 0."
        )
    sensitivity = 2.0 * consts.grad_bound * (1.0 + margin) / (n * mu)
    with np.errstate(divide="ignore", over="ignore"):
        # G = 0 (a slope-0 loss, which the conditions refuse): inf
        rate = np.float64(epsilon) / sensitivity
    if consts.grad_bound != 0.0 and not np.isfinite(rate):
        raise _unresolved_rate(caller, "the argmin sensitivity 2G/(n*mu)", consts.grad_bound)
    return Calibration(mechanism="output", epsilon_requested=epsilon, sensitivity=sensitivity,
                       noise_rate=float(rate), constants=consts,
                       extra={SOLVE_MARGIN_KEY: margin})


def output_solve_tolerance(template: ObjectiveTemplate, mu: float, grad_bound: float,
                           margin: float = OUTPUT_SOLVE_MARGIN, *, n: int | None = None,
                           per_residual: float | None = None) -> tuple[float, float]:
    """The residual an output-perturbation release must reach, and the distance to the exact
    minimizer it guarantees, from public quantities only.

    The radius is ρ = κG/(n μ); the tolerance the largest residual r (at most the template's
    ``residual_tol``) with ``template.distance_bound(r, mu)`` <= ρ: κG/n for an unconstrained
    μ-strongly convex J (‖θ̂ − θ*‖ <= ‖∇J(θ̂)‖/μ). A template that bounds no distance (a set
    without an exact projection, extra terms) is refused: no residual then bounds the distance
    the noise covers (docs/privacy/accuracy_randomness.md#privacy-accuracy-randomness).

    Parameters
    ----------
    template : ObjectiveTemplate
        The problem (its ``n``, ``residual_tol`` and ``distance_bound``).
    mu : float
        μ, the modulus of the solved objective.
    grad_bound : float
        G, the per-record gradient bound.
    margin : float, default=OUTPUT_SOLVE_MARGIN
        κ.
    n : int or None, default=None
        The number of records the noise was calibrated for (None: the template's ``n``).
    per_residual : float or None, default=None
        ``template.distance_bound(1.0, mu)`` as read once (None: read here).

    Returns
    -------
    tuple of float and float
        (the residual tolerance, the radius ρ it guarantees).

    Raises
    ------
    PrivacyError
        ρ is below what float64 resolves on a gradient of norm up to 2G (n beyond about
        κ·2⁴¹): whether a solve reaches it would depend on the records; or the template
        bounds no distance to its exact minimizer.

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.base import output_solve_tolerance
    >>> # template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y): conftest.py
    >>> tol, radius = output_solve_tolerance(template, 0.1, 1.0)
    >>> template.n, float(f"{tol:.6g}"), float(f"{radius:.6g}")
    (40, 1e-06, 0.00025)
    """
    n = template.n if n is None else n
    radius = margin * grad_bound / (n * mu)
    if margin * grad_bound / n < 2.0 * grad_bound * _GRADIENT_RESOLUTION:
        raise PrivacyError(
            f"output_solve_tolerance: the solve tolerance kappa*G/n = "
            f"{margin * grad_bound / n:.3g} for n = {n} records is below what "
            "float64 resolves on the objective's gradient, so whether a solve reaches it would "
            "depend on the records; nothing is released. Use objective perturbation, or "
            "approximate minima (optimality_tol)."
        )
    if per_residual is None:
        per_residual = _distance_per_residual(template, mu, "output_solve_tolerance")
    tol = min(float(template.residual_tol), radius / per_residual * (1.0 - 1e-12))
    if not float(template.distance_bound(tol, mu)) <= radius:
        raise PrivacyError(
            f"output_solve_tolerance: template '{template.name}' states a distance_bound that "
            "is not linear in the residual, so no solve tolerance meets the distance its noise "
            "covers. Give a distance_bound linear in the residual."
        )
    return tol, radius


def _distance_per_residual(template: ObjectiveTemplate, mu: float, caller: str) -> float:
    """The template's bound on ‖θ̂ − θ*‖ per unit of residual at modulus ``mu``, public (the
    template's class, set and constants), or the :class:`PrivacyError` of output perturbation
    where it states none: over a set without an exact projection, or with extra terms, no
    residual bounds the distance its noise covers."""
    try:
        return float(template.distance_bound(1.0, mu))
    except (AttributeError, PrivacyError):  # extra terms, or a set without exact projection
        raise PrivacyError(
            f"{caller}: template '{template.name}' bounds no distance from a solve to its exact "
            "minimizer (a constraint set without an exact projection, or extra terms), so no "
            "solve tolerance keeps the released point within what the noise of output "
            "perturbation covers; nothing is released. Use objective perturbation "
            "(mechanism='objective' or 'auto'), or a set with an exact projection (an l2 "
            "ball, a box, the nonnegative orthant, an l1 ball or the simplex)."
        ) from None


def _unresolved_rate(caller: str, what: str, grad_bound: float) -> PrivacyError:
    """The refusal where a slope bound G != 0 leaves the noise rate beyond float64 (a sensitivity
    that underflows); an infinite rate at G = 0 is a slope-0 loss, which the conditions refuse."""
    return PrivacyError(
        f"{caller}: {what} with G = {grad_bound:g} leaves the noise rate beyond float64, so no "
        "noise "
        "scale can be computed. Use constants of ordinary magnitude (lam, data_norm, the loss's "
        "bounds)."
    )


def objective_modulus_floor(epsilon: float, n: int, consts: PrivacyConstants) -> float:
    """The smallest modulus at which :func:`calibrate_objective_perturbation` adds no Δ (its
    ``modulus_floor``); c q²/(n (e^{ε/2} − 1)) for linear ERM's one-sided slack
    (docs/privacy/perturbation.md#privacy-lambda-rule).

    Parameters
    ----------
    epsilon : float
        ε of the release.
    n : int
        The number of records.
    consts : PrivacyConstants
        The declared constants (G, r, c_u, T, μ, p).

    Returns
    -------
    float

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.base import objective_modulus_floor
    >>> round(objective_modulus_floor(1.0, 40, PrivacyConstants(1.0, 1, 0.25, 0.1, 3)), 5)
    0.00963
    """
    return calibrate_objective_perturbation(epsilon, n, at_modulus(consts, 1.0)).modulus_floor


class _Perturbation(ExactMinimizer):
    """Shared calibration and certificate of the CMS perturbation mechanisms (a subclass
    gives ``_calibrate`` and ``_grid``)."""

    label = ""

    def calibrate(self, template: ConstantsSource, budget: Budget) -> Calibration:
        caller = f"{type(self).__name__}.calibrate"
        consts, n = problem_constants(template, caller), template.n
        cal = self._calibrate(budget.epsilon, n, consts, caller=caller)
        return self.holding_noise(template, cal, consts, n)

    def calibrate_grid(self, problem: ConstantsSource, budget: Budget,
                       moduli: np.ndarray) -> Calibration:
        consts = problem_constants(problem, f"{type(self).__name__}.calibrate_grid")
        cal = self._grid(budget.epsilon, problem.n, consts, moduli)
        return self.holding_noise(problem, cal, at_modulus(consts, moduli))

    def noise_law(self, problem: ConstantsSource, cal: Calibration) -> Noise:
        """Norm-Gamma of rate β (on the objective or the output): E‖b‖ = p/β,
        E‖b‖² = p(p + 1)/β² (infinite where β = 0); on symmetric blocks where the template's
        noise is."""
        return NormGamma(cal.noise_rate, symmetric=getattr(problem, "noise_symmetric", False))

    def certificate(self, template: ObjectiveTemplate, budget: Budget, cal: Calibration | None,
                    conditions: list[Condition]) -> Certificate:
        assert cal is not None
        if cal.epsilon > budget.epsilon:  # pragma: no cover - guarded by construction
            raise PrivacyError(f"{type(self).__name__}.certificate: the computed epsilon "
                               f"{cal.epsilon} exceeds the requested {budget.epsilon}; nothing is "
                               "released.")
        consts = cal.constants  # the declared constants the calibration was made from
        conds = [
            *conditions,
            modulus_condition(consts),
            Condition(
                "epsilon accounting",
                True,
                "computed from public parameters",
                f"slack {cal.slack:.6g} + noise {cal.epsilon_noise:.6g} = {cal.epsilon:.6g} <= "
                f"{budget.epsilon:g}",
            ),
        ]
        quantities: dict[str, Any] = {
            "n": template.n if cal.n is None else cal.n,
            "dimension p": consts.dimension,
            "per-record gradient bound G": consts.grad_bound,
            "hessian terms r": consts.hessian_rank,
            "hessian term bound c_u": consts.hessian_term_bound,
            "hessian trace bound T": hessian_trace_bound(consts),
            "strong convexity mu": consts.strong_convexity,
            "sensitivity": cal.sensitivity,
            "jacobian slack": cal.slack,
            "epsilon for noise (eps')": cal.epsilon_noise,
            "extra regularization Delta": cal.extra_strong_convexity,
            "noise rate beta": cal.noise_rate,
            "expected noise norm p/beta": consts.dimension / cal.noise_rate,
        }
        state_solve_margin(quantities, cal)
        return Certificate(
            mechanism=f"{self.label} on {template.name}",
            loss=loss_name(template),
            epsilon_requested=budget.epsilon,
            epsilon=cal.epsilon,
            private=True,
            conditions=conds,
            quantities=quantities,
            assumptions=list(template.assumptions(self.needs)),
        )


@register
class ObjectivePerturbation(_Perturbation):
    """Objective perturbation ([CMS]_ Alg. 2): minimize J + (1/n)⟨b, θ⟩ + (Δ/2)||θ||², b norm-Gamma.

    References
    ----------
    [CMS]_ Algorithm 2.

    Examples
    --------
    >>> # template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y): conftest.py
    >>> mech = get_mechanism("objective")
    >>> type(mech).__name__, mech.pure
    ('ObjectivePerturbation', True)
    >>> cal = mech.calibrate(template, Budget(1.0))
    >>> round(cal.noise_rate, 4), round(cal.slack, 4)
    (0.4697, 0.0606)
    >>> rel = release(template, mech, Budget(1.0), rng=0)
    >>> rel.theta.shape, rel.certificate.all_hold
    ((3,), True)
    """

    name = "objective"
    label = "objective perturbation (CMS Alg. 2)"
    needs = frozenset({"strong_convexity", "curvature"})

    placement = "objective"

    _calibrate = _grid = staticmethod(calibrate_objective_perturbation)



@register
class OutputPerturbation(_Perturbation):
    """Output perturbation ([CMS]_ Alg. 1): a solve within κG/(nμ) of the exact minimizer plus
    norm-Gamma noise for the sensitivity 2G(1 + κ)/(nμ), snapped.

    References
    ----------
    [CMS]_ Algorithm 1.

    Examples
    --------
    >>> # template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y): conftest.py
    >>> mech = get_mechanism("output")
    >>> cal = mech.calibrate(template, Budget(1.0))
    >>> cal.sensitivity, round(cal.noise_rate, 6)
    (0.5005, 1.998002)
    >>> round(float(cal.coordinate_scale), 4)
    0.8669
    """

    name = "output"
    adds_output_noise = True
    label = "output perturbation (CMS Alg. 1)"
    needs = frozenset({"strong_convexity"})

    placement = "output"

    _calibrate = staticmethod(calibrate_output_perturbation)

    def _grid(
        self, eps: float, n: int, consts: PrivacyConstants, moduli: np.ndarray
    ) -> Calibration:
        """β = ε n μ/(2G(1 + κ)) and the sensitivity 2G(1 + κ)/(n μ) on a grid of moduli."""
        unit = calibrate_output_perturbation(eps, n, at_modulus(consts, 1.0))
        return Calibration(
            mechanism=self.name,
            epsilon_requested=eps,
            sensitivity=unit.sensitivity / moduli,
            noise_rate=unit.noise_rate * moduli,
            extra=dict(unit.extra),
        )


@register
class NonPrivate(NonPrivateBaseline, ExactMinimizer):
    """The explicit NON-private baseline: the exact minimizer, no noise, no guarantee.

    Examples
    --------
    >>> # template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y): conftest.py
    >>> mech = get_mechanism("none")
    >>> mech.private
    False
    >>> rel = release(template, mech, Budget.unlimited())
    >>> rel.certificate.private, rel.certificate.epsilon
    (False, inf)
    """

    name = "none"
