"""The one release pipeline every estimator (and the auditor) goes through.

Two doors open onto it. :func:`release`, the public function, checks a caller's arguments
first, each refused by name (:class:`~dpconvex.errors.ParameterError`): the mechanism (a
registered name resolved), ``max_iter``, ``dry_run``, ``seeded``, a ``warm_start`` of the
template's parameter shape (:func:`check_warm_start`), ``noise_warning``, the backend's kind,
``vouch`` and ``vouch_unused``; then it runs the pipeline, :func:`_release_checked`. An
estimator calls :func:`_release_checked` itself, with arguments its parameter checks and its
plan already checked (a ``warm_start`` handed to ``fit_prepared`` checked by
:func:`check_warm_start` where the estimator uses it).

:func:`_release_checked` runs, for any registered mechanism and template, these steps:

    what the template keeps between a solver's calls forgotten
    (:func:`~dpconvex.privacy.user_parts.forget_kept`) → whether a part is the user's
    (:func:`~dpconvex.privacy.user_parts.users_part`) → the capabilities the mechanism needs
    → budget check → conditions (:func:`_conditions`) → calibration (within float64's reach;
    an output placement's solve tolerance, an exact minimizer's uncovered distance too) →
    certificate → (dry run: stop) → the noise
    warning → the backend → noise and solve, accuracy check, post-processing onto the
    parameter space, finiteness check
    (:func:`_solve`) → the backend that ran and the solve's conditions in the certificate
    (:func:`_certify_the_solve`) → Release(theta, certificate, calibration)

Where a part of the release is the user's (:func:`~dpconvex.privacy.user_parts.users_part`,
decided once), the guards of :mod:`dpconvex.privacy.user_parts` run in these steps: the
user's template's members and declarations checked, the user's parts named in the conditions, the
solve's point judged by the template's residual there and a user's backend solving a copy
(:func:`~dpconvex.privacy.user_parts.judged`), what the solve reads compared before and after it
(:func:`~dpconvex.privacy.user_parts.unchanged`).

The solve's diagnostics (the point it found, residual, iterations, objective value, timings)
depend on the data and are NOT part of the release (docs/privacy/release.md#privacy-release):
they go to the data holder's channel, :func:`~dpconvex.errors.collect_diagnostics`, only.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from contextlib import nullcontext
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from .._validation import (
    EPSILON,
    MAX_ITER_RULE,
    Bool,
    Int,
    Optional,
    Options,
    RandomStateLike,
    check_random_state,
    describe_value,
    signed_refusal,
)
from ..errors import DPConvexError, ParameterError, PrivacyError, SolverError, record_solve, say
from ..solvers.registry import SolveResult, get_backend
from ..templates.base import CAPABILITY_MEMBERS, PrivacyConstants
from .budget import Budget, exact_budget
from .certificate import Certificate, Condition, as_shipped, read_once
from .checks import exact_number, user_code
from .declarations import DeclaredFacts, declared_facts, vouch_names, vouched
from .mechanisms.amp import GAMMA_KEY
from .mechanisms.base import (
    SOLVE_TOLERANCE_KEY,
    UNCOVERED_DISTANCE_KEY,
    Calibration,
    Mechanism,
    get_mechanism,
    output_release_tolerance,
    record_uncovered_distance,
)
from .mechanisms.facts import public_count
from .mechanisms.gaussian import RECORD_SET_KEY
from .rules.noise_level import THRESHOLDS, warn_if_noise_dominates
from .user_parts import (
    check_members,
    forget_kept,
    judged,
    unchanged,
    user_conditions,
    users_class,
    users_part,
)

if TYPE_CHECKING:
    from ..solvers.registry import Backend
    from ..templates.base import Template

__all__ = ["Release", "check_warm_start", "release"]


#: The relative error a solve's gradient may carry (2⁻⁴², float64's 2⁻⁵² over 1,024
#: roundings): noise whose gradient E‖b‖/n times it exceeds the template's tolerance is refused
#: from public quantities.
RESOLUTION = 2.0**-42


@dataclass
class Release:
    """What a private fit releases: the noised parameters and public facts only.

    The solve behind the release (its point, residual, iterations) is not part of it: the
    data holder reads it through :func:`~dpconvex.errors.collect_diagnostics`.

    Attributes
    ----------
    theta : ndarray or None
        The released parameters (None for a dry run).
    certificate : Certificate
    calibration : Calibration or None
        Public calibration constants.

    Examples
    --------
    >>> rel = release(LinearERMTemplate(Logistic(), 0.1, 1.0, X, y), "objective", Budget(1.0), rng=0)
    >>> rel.theta.shape, rel.certificate.all_hold, rel.calibration.mechanism
    ((3,), True, 'objective')
    """

    theta: np.ndarray | None
    certificate: Certificate
    calibration: Calibration | None = None


def release(template: Template, mechanism: Mechanism | str, budget: Budget, backend: Any = None,
            rng: RandomStateLike = None, *, warm_start: np.ndarray | None = None,
            max_iter: int | None = None, dry_run: bool = False, seeded: bool | None = None,
            noise_warning: Mapping[str, Any] | None = None, vouch: Iterable[str] = (),
            vouch_unused: str = "refuse") -> Release:
    """Run a mechanism on a template and return the released parameters with their certificate.

    Parameters
    ----------
    template, mechanism, budget : Template, Mechanism or str, Budget
        The problem statement, a mechanism or its registered name, the requested (ε, δ)
        (ignored by the non-private baseline).
    backend : Backend, str or None
        A solver backend or its name; None or "auto": the registry's policy for the template.
    rng : None, int or Generator
        None seeds the noise from the OS.
    warm_start, max_iter : ndarray, int, optional
        Solver start point (never a non-private model:
        docs/privacy/accuracy_randomness.md#privacy-accuracy-randomness) and iteration cap
        (the accuracy check still decides).
    dry_run : bool
        Stop after the certificate (no noise drawn, no solve): ``certify()``.
    seeded : bool or None
        Whether the caller fixed the noise's seed (None: ``rng is not None``); in a dry run,
        whether the fit's will be.
    noise_warning : mapping or None
        The ``family`` and ``owner`` (and ``n``, ``n_classes``, ``epsilon``, ``regression``)
        of :func:`~dpconvex.privacy.rules.noise_level.warn_if_noise_dominates`, which reads
        this release's calibration before any noise is drawn (not in a dry run); each value is
        checked by its rule (an int ``n`` >= 1, an int ``n_classes`` >= 2, a float
        ``epsilon`` > 0, a bool ``regression``).
    vouch : iterable of str, default=()
        Declared constants nobody could verify that the caller vouches for, e.g.
        ``("curvature",)`` (:func:`~dpconvex.privacy.declarations.vouched`). A template of
        the user's (a class dpconvex does not ship, a subclass included) has its G and Hessian
        constants probed and its objective checked at probe points, which refute and never
        prove: ``("grad_bound", "hessian", "objective")``, the last vouching that its objective
        is, wherever a solve goes, the mean over its own records of a convex loss plus the
        regularizer and the noise terms, and reads no other data
        (docs/privacy/user_objectives.md#privacy-user-template).
    vouch_unused : {"refuse", "ignore"}, default="refuse"
        A name of ``vouch`` no condition of this release rests on: refused as a typo, or
        ignored (an estimator's ``vouch=``, which serves whichever mechanism it chooses).

    Returns
    -------
    Release

    Raises
    ------
    ParameterError
        An argument is not of its kind (``mechanism``, ``max_iter``, ``warm_start`` (a complex
        one too), ``dry_run``, ``seeded``, ``noise_warning`` or a value of its keys), the
        template lacks members of the template contract, or ``vouch`` names a constant no
        condition rests on.
    PrivacyError
        The template lacks a capability the mechanism needs, a condition of the proof fails
        (before the noise, or one of :meth:`~dpconvex.privacy.mechanisms.Mechanism.solve_conditions`
        after the solve), or one rests on a constant nobody verified or vouched for; or, a dry
        run too, an output placement's solve tolerance kappa*G/n is below what float64
        resolves.
    SolverError
        The solve failed, missed its tolerance, or produced non-finite values.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(40, 3))
    >>> X /= np.linalg.norm(X, axis=1, keepdims=True); y = np.where(X[:, 0] > 0, 1, -1)
    >>> from dpconvex import Budget, release
    >>> from dpconvex.objectives import Logistic
    >>> from dpconvex.templates import LinearERMTemplate
    >>> template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y)
    >>> rel = release(template, "objective", Budget(1.0), rng=0)
    >>> rel.theta.shape
    (3,)
    >>> rel.certificate.epsilon, rel.certificate.all_hold
    (1.0, True)
    >>> dry = release(template, "objective", Budget(1.0), dry_run=True)
    >>> dry.theta is None
    True

    A template of the user's is released only when the caller vouches for what the checks
    cannot prove, and for what its own ``conditions()`` states:

    >>> class Mine(LinearERMTemplate):
    ...     name = "mine"
    >>> mine = Mine(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y)
    >>> rel = release(mine, "objective", Budget(1.0), rng=0,
    ...               vouch=("grad_bound", "hessian", "objective", "template_conditions"))
    >>> sorted({c.unverified for c in rel.certificate.conditions if c.vouched})
    ['grad_bound', 'hessian', 'objective', 'template_conditions']
    """
    mechanism, max_iter, dry_run, seeded, noise_warning = _checked_arguments(
        template, mechanism, warm_start, max_iter, dry_run, seeded, noise_warning)
    vouch, vouch_unused = _checked_vouching(backend, vouch, vouch_unused)
    return _release_checked(template, mechanism, budget, backend, rng, warm_start=warm_start,
                            max_iter=max_iter, dry_run=dry_run, seeded=seeded,
                            noise_warning=noise_warning, vouch=vouch, vouch_unused=vouch_unused)


def _release_checked(template: Template, mechanism: Mechanism, budget: Budget,
                     backend: Backend | str | None = None, rng: RandomStateLike = None, *,
                     warm_start: np.ndarray | None = None, max_iter: int | None = None,
                     dry_run: bool = False, seeded: bool | None = None,
                     noise_warning: Mapping[str, Any] | None = None,
                     vouch: tuple[str, ...] = (), vouch_unused: str = "refuse") -> Release:
    """The release pipeline on arguments already checked: :func:`release` after its checks,
    and the call of an estimator whose parameters built them. Its arguments are NOT checked:
    call :func:`release`, which checks a caller's, each refused by name.

    Its arguments are taken as they are, each of the kind :func:`release` checks and
    normalizes: a :class:`~dpconvex.privacy.mechanisms.Mechanism` object (not a name), an int
    or None ``max_iter``, a bool ``dry_run``, a bool or None ``seeded``, a ``warm_start`` of
    the template's parameter shape (:func:`check_warm_start`), a ``noise_warning`` of
    :data:`NOISE_WARNING_KEYS`, a backend that is None, a registered name or an object with
    ``solve``, a tuple of names ``vouch`` and ``vouch_unused`` of "refuse" or "ignore". A
    wrong one is not refused by name: it fails where it is read, or is written into the
    certificate as it is.

    The steps: what the template keeps between a solver's calls forgotten
    (:func:`~dpconvex.privacy.user_parts.forget_kept`), whether a part is the user's
    (:func:`~dpconvex.privacy.user_parts.users_part`), the template's capabilities, the
    budget, the conditions, the calibration, the certificate, (dry run: stop), the noise
    warning, the backend, the noise and the solve, the solve in the certificate.

    Parameters
    ----------
    template : Template
        The problem statement.
    mechanism : Mechanism
        The mechanism object.
    budget : Budget
        The requested (ε, δ) (ignored by the non-private baseline).
    backend : Backend, str or None, default=None
        A solver backend or its registered name; None or "auto": the registry's policy.
    rng : None, int or Generator, default=None
        None seeds the noise from the OS.
    warm_start : ndarray or None, default=None
        A solver start point of the template's parameter shape.
    max_iter : int or None, default=None
        The solver's iteration cap (the accuracy check still decides).
    dry_run : bool, default=False
        Stop after the certificate (no noise drawn, no solve).
    seeded : bool or None, default=None
        Whether the caller fixed the noise's seed (None: ``rng is not None``).
    noise_warning : mapping or None, default=None
        The ``family`` and ``owner`` (and any of ``n``, ``n_classes``, ``epsilon``,
        ``regression``: :data:`NOISE_WARNING_KEYS`) of
        :func:`~dpconvex.privacy.rules.noise_level.warn_if_noise_dominates` (not in a dry run).
    vouch : tuple of str, default=()
        Declared constants nobody could verify that the caller vouches for.
    vouch_unused : {"refuse", "ignore"}, default="refuse"
        A name of ``vouch`` no condition rests on: refused as a typo, or ignored.

    Returns
    -------
    Release

    Raises
    ------
    ParameterError
        The template lacks members of the template contract, or ``vouch`` names a constant no
        condition rests on (``vouch_unused="refuse"``).
    PrivacyError
        As :func:`release`: a missing capability, a failed condition (before the noise, or
        after the solve), a constant nobody verified or vouched for.
    SolverError
        The solve failed, missed its tolerance, or produced non-finite values.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(40, 3))
    >>> X /= np.linalg.norm(X, axis=1, keepdims=True); y = np.where(X[:, 0] > 0, 1, -1)
    >>> from dpconvex import Budget
    >>> from dpconvex.objectives import Logistic
    >>> from dpconvex.privacy.mechanisms import get_mechanism
    >>> from dpconvex.privacy.release import _release_checked
    >>> from dpconvex.templates import LinearERMTemplate
    >>> template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y)
    >>> rel = _release_checked(template, get_mechanism("objective"), Budget(1.0), rng=0)
    >>> rel.theta.shape, rel.certificate.all_hold, rel.certificate.seeded
    ((3,), True, True)
    """
    forget_kept(template)  # the solve's products read the rows its conditions check
    seeded = rng is not None if seeded is None else seeded  # the certificate's "seeded"
    # the guards on the user's parts run only where one is (every part dpconvex's: none)
    users = users_part(template, mechanism, backend, warm_start, max_iter) is not None
    _refuse_missing_capabilities(template, mechanism)
    if users:
        check_members(template)
    # (ε, δ) read once: every later read (conditions, noise, certificate) gets the same floats
    budget = exact_budget(mechanism.check_budget(budget), "release")
    conditions, facts = _conditions(template, mechanism, budget, backend, users,
                                               vouch, vouch_unused)
    if users and facts is None:  # a mechanism that reads no constants: the record of n alone
        facts = _declared_count(template)
    calibration = mechanism.calibrate(template, budget)
    if facts is not None:
        _refuse_constants_read_anew(template, facts, calibration)
        _refuse_facts_read_anew(template, facts, calibration)
        _refuse_distance_read_anew(template, facts, calibration)
        _refuse_record_set_read_anew(template, facts, calibration)
        _refuse_utility_sensitivity_read_anew(template, mechanism, facts, calibration)
    _refuse_unresolved_noise(template, mechanism, budget, calibration)
    calibration = _refuse_unresolved_solve(template, mechanism, calibration, facts)
    # the uncovered distance the solve's conditions state, read once before any noise
    calibration = record_uncovered_distance(mechanism, template, calibration)
    if facts is not None:
        _refuse_uncovered_distance_read_anew(template, facts, calibration)
    certificate = mechanism.certificate(template, budget, calibration, conditions)
    certificate.seeded = mechanism.private and seeded  # a dry run: where the fit's will be
    certificate.mechanism_name = mechanism.name
    if dry_run:
        return Release(None, certificate, calibration)
    if noise_warning is not None:
        warn_if_noise_dominates(template=template, mech=mechanism, budget=budget,
                                calibration=calibration, **noise_warning)
    solver_backend = _solving_backend(mechanism, backend, template, users)
    theta, solve_result = _solve(mechanism, template, calibration, solver_backend, rng, users,
                                 warm_start=warm_start, max_iter=max_iter)
    _certify_the_solve(certificate, mechanism, template, calibration, solve_result,
                       solver_backend, backend)
    return Release(theta, certificate, calibration)


#: The keys a ``noise_warning`` of :func:`release` may hold (the arguments of
#: :func:`~dpconvex.privacy.rules.noise_level.warn_if_noise_dominates` release does not pass
#: itself); ``family`` and ``owner`` are needed.
NOISE_WARNING_KEYS = ("family", "owner", "n", "n_classes", "epsilon", "regression")


def _checked_arguments(template: Any, mechanism: Any, warm_start: Any, max_iter: Any,
                       dry_run: Any, seeded: Any, noise_warning: Any
                       ) -> tuple[Mechanism, int | None, bool, bool | None, dict | None]:
    """:func:`release`'s arguments checked before anything is read: the mechanism (a
    registered name resolved), ``max_iter``, ``dry_run``, ``seeded`` and ``noise_warning``
    (normalized), a ``warm_start`` of the template's parameter shape; the first wrong one
    refused by name (:class:`ParameterError`)."""
    if isinstance(mechanism, str):
        mechanism = get_mechanism(mechanism, "release", noun="argument")
    elif not isinstance(mechanism, Mechanism):
        raise ParameterError(
            "The 'mechanism' argument of release must be a Mechanism or the name of a "
            f"registered one (e.g. 'objective'). Got {describe_value(mechanism)} instead.")
    max_iter = MAX_ITER_RULE.check("max_iter", max_iter, "release", "argument")
    dry_run = Bool().check("dry_run", dry_run, "release", "argument")
    seeded = Optional(Bool()).check("seeded", seeded, "release", "argument")
    if warm_start is not None:
        check_warm_start(template, warm_start)
    if noise_warning is not None:
        noise_warning = _check_noise_warning(noise_warning)
    return mechanism, max_iter, dry_run, seeded, noise_warning


def _checked_vouching(backend: Any, vouch: Any, vouch_unused: Any
                      ) -> tuple[tuple[str, ...], str]:
    """``backend`` (None, a name or an object with ``solve``), ``vouch`` (a name or an
    iterable of names, as a tuple) and ``vouch_unused`` checked, each refused by name."""
    if not (backend is None or isinstance(backend, str) or hasattr(backend, "solve")):
        raise ParameterError(
            "The 'backend' argument of release must be None, the name of a solver backend "
            f"(e.g. 'auto') or a Backend. Got {describe_value(backend)} instead.")
    names = vouch_names(vouch) if isinstance(vouch, (str, list, tuple, set, frozenset)) else None
    if names is None or not all(isinstance(name, str) for name in names):
        raise ParameterError(
            "The 'vouch' argument of release must be a name or a list, tuple or set of names "
            f"of the constants the caller vouches for (e.g. ('curvature',)). Got "
            f"{describe_value(vouch)} instead.")
    unused = Options(("refuse", "ignore")).check("vouch_unused", vouch_unused, "release",
                                                 "argument")
    return names, unused


def check_warm_start(template: Template, warm_start: Any, caller: str = "release") -> None:
    """Refuse, by name, a ``warm_start`` that is not a finite real float array with one entry
    per coordinate of the template's parameter space (its shape, or flat): a complex one too,
    whose imaginary part a float conversion would drop.

    Parameters
    ----------
    template : Template
        The template the start point is for (its ``space.shape``).
    warm_start : object
        The start point a caller gave.
    caller : str, default="release"
        The function whose argument it is, named in the refusal (e.g.
        ``"PrivateLogisticRegression.fit_prepared"``).

    Raises
    ------
    ParameterError
        ``warm_start`` is not such an array (complex entries included).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex.objectives import Logistic
    >>> from dpconvex.privacy.release import check_warm_start
    >>> from dpconvex.templates import LinearERMTemplate
    >>> X = np.eye(3) / 2; y = np.array([1, -1, 1])
    >>> template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y)
    >>> check_warm_start(template, np.zeros(3)) is None
    True
    >>> check_warm_start(template, np.zeros(2), "Demo.fit_prepared")
    Traceback (most recent call last):
    ...
    dpconvex.errors.ParameterError: The 'warm_start' argument of Demo.fit_prepared must be None ...
    """
    shape = tuple(getattr(getattr(template, "space", None), "shape", ()) or ())
    size = int(np.prod(shape)) if shape else None
    if _is_complex(warm_start):  # a float conversion would drop the imaginary part
        raise ParameterError(
            f"The 'warm_start' argument of {caller} must be None or a finite real float array: "
            f"a start point must be real. Got {describe_value(warm_start)} instead. Pass its real "
            "part (warm_start.real) if that is the start point meant.")
    try:
        start = np.asarray(warm_start, dtype=float)
    except (TypeError, ValueError):
        start = None
    if start is None or (size is not None and start.size != size) or not np.all(
            np.isfinite(start)):
        wanted = f" of shape {shape}" if shape else ""
        raise ParameterError(
            f"The 'warm_start' argument of {caller} must be None or a finite float array"
            f"{wanted}, the template's parameter space (a solver's start point). Got "
            f"{describe_value(warm_start)} instead.")


def _is_complex(value: Any) -> bool:
    """Whether ``value`` is complex (a complex scalar, array, or list of them); False where
    NumPy reads no array from it (the float conversion then refuses it)."""
    try:
        return bool(np.iscomplexobj(value))
    except (TypeError, ValueError):
        return False


def _check_noise_warning(noise_warning: Any) -> dict[str, Any]:
    """``noise_warning`` as a dict of its values normalized, or refused by name: not a mapping
    of :data:`NOISE_WARNING_KEYS` with a ``family`` of the noise-level rules and an ``owner``
    str, or a value of another key that breaks its rule (:data:`_NOISE_WARNING_RULES`: an int
    ``n`` >= 1 or None, an int ``n_classes`` >= 2, a float ``epsilon`` in (0, inf) or None, a
    bool ``regression``), the key named."""
    if not isinstance(noise_warning, Mapping):
        raise ParameterError(
            "The 'noise_warning' argument of release must be None or a mapping with the "
            "'family' and 'owner' of the noise-level check (e.g. {'family': 'linear', "
            f"'owner': 'MyModel'}}). Got {describe_value(noise_warning)} instead.")
    unknown = sorted(map(str, set(noise_warning) - set(NOISE_WARNING_KEYS)))
    missing = [key for key in ("family", "owner") if key not in noise_warning]
    if unknown or missing:
        wrong = ([f"it does not take {unknown}"] if unknown else []) + (
            [f"it lacks {missing}"] if missing else [])
        raise ParameterError(
            f"The 'noise_warning' argument of release takes the keys {list(NOISE_WARNING_KEYS)}"
            f", 'family' and 'owner' needed: {' and '.join(wrong)}. Pass 'family' and 'owner' "
            "and only those keys.")
    Options(tuple(THRESHOLDS)).check("family", noise_warning["family"],
                                     "release's noise_warning", "argument")
    if not isinstance(noise_warning["owner"], str):
        raise ParameterError(
            "The 'noise_warning' argument of release must hold an 'owner' str (the name that "
            f"opens the warning). Got {describe_value(noise_warning['owner'])} instead.")
    return {key: _NOISE_WARNING_RULES[key].check(key, value, "release's noise_warning",
                                                  "argument")
            if key in _NOISE_WARNING_RULES else value for key, value in noise_warning.items()}


#: The rules of the values of :data:`NOISE_WARNING_KEYS` past ``family`` and ``owner`` (the
#: arguments of :func:`~dpconvex.privacy.rules.noise_level.warn_if_noise_dominates`): the public
#: rows n, the classes C of a one-vs-rest split, the total ε it splits, whether a regressor's.
_NOISE_WARNING_RULES = {"n": Optional(Int()), "n_classes": Int(low=2),
                        "epsilon": Optional(EPSILON), "regression": Bool()}


def _conditions(template: Template, mechanism: Mechanism, budget: Budget, backend: Any,
                users: bool, vouch: Iterable[str], vouch_unused: str
                ) -> tuple[list[Condition], DeclaredFacts | None]:
    """The conditions of the proof before any noise: the mechanism's (the template's among
    them; a mechanism of the user's: each read once,
    :func:`~dpconvex.privacy.certificate.read_once`), the first that fails refused (in
    release's name, as the mechanism's own refusals), those on the user's parts where one is
    (:func:`user_conditions`), and the constants nobody verified refused unless vouched for
    (:func:`vouched`); and a user's template's declared constants, ``n``,
    ``gradient_difference_rank`` and distance per unit of residual as they were read, once,
    for its checks (:func:`~dpconvex.privacy.declarations.declared_facts`; None: none
    read)."""
    try:
        conditions = mechanism.conditions(template, budget)
        if not as_shipped(mechanism):  # the user's: each read once, of built-ins
            source = f"the conditions() of mechanism {type(mechanism).__qualname__}"
            conditions = [read_once(c, "release", source) for c in conditions]
    except PrivacyError as exc:  # the template's or the mechanism's refusal: in this call's name
        raise signed_refusal(exc, "release") from None
    for c in conditions:  # the first that fails
        if not c.holds:
            raise PrivacyError(f"release: {c.name}: {c.detail}")
    facts = None
    if users:
        facts = declared_facts(template, mechanism.needs)
        conditions += user_conditions(template, mechanism, backend, facts)
    if vouch or any(c.unverified for c in conditions):
        conditions = vouched(conditions, vouch, unused=vouch_unused)
    return conditions, facts


def _refuse_constants_read_anew(template: Template, facts: DeclaredFacts,
                                calibration: Calibration | None) -> None:
    """Refuse a calibration made from other declared constants than the record the checks
    read (a user's ``privacy_constants()`` that answers differently at each call): the
    calibration reads the template itself (:meth:`Mechanism.calibrate`), and its record
    (:attr:`Calibration.constants`, the certificate's) must be the one checked."""
    stated = None if calibration is None else calibration.constants
    if facts.constants is not None and stated is not None and stated != facts.constants:
        raise PrivacyError(
            f"release: template '{getattr(template, 'name', type(template).__name__)}' "
            "returned other constants from privacy_constants() for the calibration than for "
            "the checks of its declarations, so the noise would not rest on what was checked; "
            "nothing is released. Return the same PrivacyConstants at every call.")


def _refuse_facts_read_anew(template: Template, facts: DeclaredFacts,
                            calibration: Calibration | None) -> None:
    """Refuse a calibration made for another n, or another span k of the per-record gradient
    differences, than the template's ``n`` and ``gradient_difference_rank`` its checks read (a
    property that answers differently at each read): the calibration reads the template
    itself, and what it states it used (:attr:`Calibration.n`, ``extra["k"]``, the
    certificate's) must be what was checked."""
    if calibration is None:
        return
    name = getattr(template, "name", type(template).__name__)
    if calibration.n is not None and calibration.n != facts.n:
        raise PrivacyError(
            f"release: template '{name}' stated another n for the calibration than for the "
            "checks of its declarations, so the noise would not rest on what was checked; "
            "nothing is released. Make n the number of records at every read.")
    k = calibration.extra.get("k")
    if k is not None and facts.rank is not None and facts.constants is not None and (
            k != _span(facts.rank, facts.constants.dimension)):
        raise PrivacyError(
            f"release: template '{name}' stated another gradient_difference_rank for the "
            "calibration than for the checks of its declarations, so the noise would not rest "
            "on what was checked; nothing is released. Make gradient_difference_rank one "
            "number at every read.")


def _refuse_record_set_read_anew(template: Template, facts: DeclaredFacts,
                                 calibration: Calibration | None) -> None:
    """Refuse a class-sum calibration made from another record set than the one its checks
    read and state ("row norm bound of the cell sums", :attr:`DeclaredFacts.record_set`: a
    ``record_set`` or ``data_norm`` that answers differently at each read): the calibration
    reads the template itself, and the record set it states it used
    (:data:`~dpconvex.privacy.mechanisms.gaussian.RECORD_SET_KEY`, the sensitivity's and the
    certificate's) must be the one checked, equal to it."""
    records = None if calibration is None else calibration.extra.get(RECORD_SET_KEY)
    if records is None or facts.record_set is None or records == facts.record_set:
        return
    raise PrivacyError(
        f"release: template '{getattr(template, 'name', type(template).__name__)}' stated "
        f"another record set for the calibration ({records!r}) than for the checks of its "
        f"declarations ({facts.record_set!r}), so the noise would not rest on what was "
        "checked; nothing is released. Return one record_set (or data_norm) at every read, "
        "the same object or one equal to it.")


def _refuse_utility_sensitivity_read_anew(template: Template, mechanism: Mechanism,
                                          facts: DeclaredFacts,
                                          calibration: Calibration | None) -> None:
    """Refuse a selection calibrated from another Δu than the one its checks read and state
    ("utility sensitivity", declared: :attr:`DeclaredFacts.sensitivity`; a ``sensitivity``
    that answers differently at each read): the selection's rate rests on
    :attr:`Calibration.sensitivity`, which must be the Δu the caller vouched for."""
    if calibration is None or facts.sensitivity is None or "utilities" not in mechanism.needs:
        return
    stated = exact_number(facts.sensitivity)
    if stated == calibration.sensitivity:
        return
    raise PrivacyError(
        f"release: template '{getattr(template, 'name', type(template).__name__)}' stated "
        f"another sensitivity for the calibration ({calibration.sensitivity:g}) than for the "
        f"checks of its declarations ({describe_value(facts.sensitivity)}), so the selection's "
        "rate would not rest on what the caller vouched for; nothing is released. Return the "
        "same sensitivity at every read.")


def _declared_count(template: Template) -> DeclaredFacts | None:
    """A user's template's ``n`` read once, before the calibration, for a mechanism that reads
    no declared constants (:func:`~dpconvex.privacy.declarations.declared_facts` reads none
    for it): the record :func:`_refuse_facts_read_anew` compares the calibration's n with
    (None: it holds no n, or one that is no number of records, which the calibration refuses
    where it reads it, :func:`~dpconvex.privacy.mechanisms.facts.public_count`). An exception
    of its code is a :class:`PrivacyError`."""
    name = getattr(template, "name", type(template).__name__)
    with user_code("release", f"template '{name}'", "while its n was read. Make n the number "
                   "of records, an int."):
        n = getattr(template, "n", None)
    try:
        return DeclaredFacts(None, public_count(n, "release"))
    except PrivacyError:
        return None


def _refuse_distance_read_anew(template: Template, facts: DeclaredFacts,
                               calibration: Calibration | None) -> None:
    """Refuse a cover calibrated to another distance bound than the one the checks read: an
    approximate-minima calibration states the ρ = ``distance_bound(γ, μ')`` it read, at the
    modulus μ' = μ + Δ of the perturbed objective (``extra``: ``"radius"``,
    :data:`~dpconvex.privacy.mechanisms.amp.GAMMA_KEY`, ``"mu"``), and the checks read the
    distance per unit of residual d₁ = ``distance_bound(1, μ)`` at the declared μ
    (:attr:`DeclaredFacts.per_residual`). A distance bound is linear in the residual (as an
    output placement's solve tolerance reads it, :func:`output_release_tolerance`), so at
    μ' = μ, ρ must be γ·d₁ (to 10⁻⁹, the rounding of two products); at μ' > μ, the bound of
    the more strongly convex objective may be smaller, as the unconstrained r/μ' is, but not
    below γ·d₁·μ/μ', that scaling of it (every shipped bound: r/μ, (1 + L)·r/μ with L
    growing with μ)."""
    if calibration is None:
        return
    radius, gamma, mu = (calibration.extra.get(key) for key in ("radius", GAMMA_KEY, "mu"))
    if not _distance_agrees(facts, radius, gamma, mu):
        raise PrivacyError(
            f"release: template '{getattr(template, 'name', type(template).__name__)}' stated "
            f"another distance_bound for the calibration ({radius:.6g} at residual {gamma:g} "
            f"and modulus {mu:.6g}) than for the checks of its declarations "
            f"({facts.per_residual:.6g} per unit of residual at modulus "
            f"{facts.constants.strong_convexity:.6g}), so the cover noise would not rest on what "
            "was checked; nothing is released. Return one distance_bound at every call, linear "
            "in the residual.")


def _refuse_uncovered_distance_read_anew(template: Template, facts: DeclaredFacts,
                                         calibration: Calibration | None) -> None:
    """Refuse an exact-minimizer release whose uncovered distance, ``distance_bound(r, μ')``
    at its residual tolerance r and the modulus μ' = μ + Δ of the solved objective, read once
    before any noise (:data:`~dpconvex.privacy.mechanisms.base.UNCOVERED_DISTANCE_KEY`: what
    its "accurate solve" states), understates the distance per unit of residual its checks
    read, by the rule of :func:`_refuse_distance_read_anew`: the certificate would state a
    smaller gap to the exact minimizer than the checked bound gives."""
    recorded = None if calibration is None else calibration.extra.get(UNCOVERED_DISTANCE_KEY)
    if recorded is None:
        return
    tol, mu, distance = recorded
    if not _distance_agrees(facts, distance, tol, mu):
        raise PrivacyError(
            f"release: template '{getattr(template, 'name', type(template).__name__)}' stated "
            f"another distance_bound for the uncovered distance of its solve ({distance:.6g} "
            f"at residual {tol:g} and modulus {mu:.6g}) than for the checks of its declarations "
            f"({facts.per_residual:.6g} per unit of residual at modulus "
            f"{facts.constants.strong_convexity:.6g}), so the certificate would not state what "
            "was checked; nothing is released. Return one distance_bound at every call, linear "
            "in the residual.")


def _distance_agrees(facts: DeclaredFacts, distance: float | None, residual: float | None,
                     mu: float | None) -> bool:
    """Whether ``distance`` = ``distance_bound(residual, mu)`` as read agrees with the distance
    per unit of residual d₁ = ``distance_bound(1, μ)`` the checks read at the declared μ
    (:attr:`DeclaredFacts.per_residual`): at mu = μ, residual·d₁ (to :data:`DISTANCE_RTOL`);
    at mu > μ, at least residual·d₁·μ/mu (see :func:`_refuse_distance_read_anew`). True where
    either was not read (nothing to compare)."""
    constants = facts.constants
    if distance is None or residual is None or mu is None or facts.per_residual is None or (
            not isinstance(constants, PrivacyConstants)):
        return True
    checked, declared = residual * facts.per_residual, constants.strong_convexity
    if mu == declared:
        return math.isclose(distance, checked, rel_tol=DISTANCE_RTOL)
    return distance >= checked * declared / mu * (1.0 - DISTANCE_RTOL)


#: The relative rounding two computations of one distance bound may differ by (γ·d₁ against
#: ``distance_bound(γ, μ)``: a few units of float64's 2⁻⁵² each).
DISTANCE_RTOL = 1e-9


def _span(rank: Any, dimension: int) -> int | None:
    """k = min(rank, p), at least 1, as the Gaussian calibration computes it
    (:func:`~dpconvex.privacy.mechanisms.gaussian_linear.gradient_difference_rank`); None
    where ``rank`` is no number."""
    try:
        return max(1, min(int(rank), int(dimension)))
    except (TypeError, ValueError):
        return None


def _solve(mechanism: Mechanism, template: Template, calibration: Calibration,
           solver_backend: Any, rng: RandomStateLike, users: bool,
           **options: Any) -> tuple[np.ndarray, SolveResult | None]:
    """Draw the noise and solve (:meth:`Mechanism.run`); the point, post-processed onto the
    parameter space, and the solve behind it (None where the mechanism solves nothing).

    Where a part is the user's, what the calibration and the checks read is compared before and
    after the run (:func:`unchanged`). A point that is not finite releases nothing.
    """
    noise_rng = _noise_generator(rng)
    with unchanged(template) if users else nullcontext():
        # (no n: a class sum's counts its kept rows)
        say(f"{mechanism.name}: noise drawn, solving {template.name} with backend "
            f"{getattr(solver_backend, 'name', 'none')}")
        theta, solve_result, noised = _run(mechanism, template, calibration, solver_backend,
                                           noise_rng, **options)
    if noised:  # post-processing onto the parameter space (solver outputs are in it already)
        theta = template.space.postprocess(theta)
    say(f"{mechanism.name}: " + ("solved and accepted by the accuracy check"
                                 if solve_result is not None else
                                 "run (no solve, so no accuracy check)"))
    if not np.all(np.isfinite(theta)):
        raise SolverError(
            "release: the released parameters are not finite (overflow in the noise or the "
            "solve); nothing is released. Check epsilon, lam and the data norm bound."
        )
    return np.asarray(theta), solve_result


def _certify_the_solve(certificate: Certificate, mechanism: Mechanism, template: Template,
                       calibration: Calibration, solve_result: SolveResult | None,
                       solver_backend: Any, backend: Any) -> None:
    """Add the solve to the certificate: the backend that ran and the tolerance it met, then
    the mechanism's conditions on the solve (:meth:`Mechanism.solve_conditions`), refusing the
    release where one fails."""
    if solve_result is not None:
        # public facts only: the solver(s) of the backend that ran, as chosen from public
        # parameters ("auto" resolved; Backend.label), and the tolerance met; never which
        # solver of a polished backend produced the point, the residual, objective value,
        # iterations or time, which depend on the data (docs/privacy/release.md#privacy-release)
        certificate.solver = {"backend": getattr(solver_backend, "label",
                                                 getattr(solver_backend, "name", str(backend))),
                              "solved to residual <= tolerance": "yes"}
        record_solve(solve_result)  # NOT PRIVATE: for an open collector (none: nothing kept)
    solve_conditions = mechanism.solve_conditions(template, solve_result, calibration)
    for c in solve_conditions:  # the first that fails, by name: its detail may rest on the data
        if not c.holds:
            raise PrivacyError(
                f"release: mechanism '{mechanism.name}' states that its solve did not establish "
                f"'{c.name}'; nothing is released (the solve's details: "
                "dpconvex.collect_diagnostics). "
                "Tighten the solve (solver, max_iter), or fix the mechanism's solve_conditions."
            )
    certificate.conditions.extend(solve_conditions)


def _refuse_missing_capabilities(template: Template, mechanism: Mechanism) -> None:
    """Refuse, by name and before anything is read, a template that lacks a capability
    ``mechanism`` needs."""
    offered = frozenset(getattr(template, "capabilities", ()))
    if missing := sorted(mechanism.needs.intersection(CAPABILITY_MEMBERS) - offered):
        raise PrivacyError(
            f"release: mechanism '{mechanism.name}' needs the template capabilit"
            f"{'y' if len(missing) == 1 else 'ies'} {missing}, which template "
            f"'{getattr(template, 'name', type(template).__name__)}' does not offer (it offers "
            f"{sorted(offered)}); use a mechanism made for this kind of template.")


def _solving_backend(mechanism: Mechanism, backend: Any, template: Template, users: bool) -> Any:
    """The backend that solves ``template`` for ``mechanism`` (None if it solves nothing): the
    one given, or the registry's for a name or None; where a part is the user's, its point
    judged by the template's residual, and a backend of the user's solving a copy of the
    template (:func:`judged`)."""
    if not mechanism.solves:
        return None
    solver_backend = backend if hasattr(backend, "solve") else get_backend(backend, template)
    return judged(solver_backend, backend) if users else solver_backend


def _refuse_unresolved_noise(template: Template, mechanism: Mechanism, budget: Budget,
                             calibration: Calibration) -> None:
    """Refuse noise on the objective whose gradient float64 cannot resolve to the template's
    tolerance (:data:`RESOLUTION`), from the calibration's noise law and n (public quantities
    only)."""
    if mechanism.placement != "objective" or not mechanism.private:
        return
    try:
        noise = float(calibration.expected_norm)
    # a mechanism or template of the user's whose calibration holds no noise law: its own proof
    except Exception:
        parts = (mechanism, getattr(mechanism, "inner", None) or mechanism, template)
        if not any(users_class(part) for part in parts):
            raise
        return
    n = template.n if calibration.n is None else calibration.n  # the n the noise is for
    if noise / n * RESOLUTION > template.residual_tol:
        raise PrivacyError(
            f"release: epsilon = {budget.epsilon:g} puts noise of expected norm {noise:.3g} on "
            f"the objective of n = {n} records: its gradient is beyond what float64 "
            f"resolves to the tolerance {template.residual_tol:g} the release needs, so whether a "
            "solve reaches it would depend on the records; nothing is released. Use a larger "
            "epsilon."
        )


def _refuse_unresolved_solve(template: Template, mechanism: Mechanism,
                             calibration: Calibration, facts: DeclaredFacts | None
                             ) -> Calibration:
    """Refuse an output placement whose solve tolerance kappa*G/n float64 cannot resolve, or
    that no residual bounds (:func:`~dpconvex.privacy.mechanisms.base.output_release_tolerance`
    on the calibration's public n, κ, G and μ, and a user's template's distance per unit of
    residual as its checks read it, ``facts``), before the certificate: a dry run refuses as
    the fit's run does, before any noise is drawn. Read from what the mechanism states (a
    private output placement it solves for, no cover), whatever its class. Returns the
    calibration holding that tolerance (:data:`SOLVE_TOLERANCE_KEY`: the run and the
    certificate read it there), else ``calibration``."""
    if not (mechanism.placement == "output" and mechanism.solves and mechanism.private
            and not mechanism.wraps):
        return calibration
    try:
        held = output_release_tolerance(template, calibration,
                                        None if facts is None else facts.per_residual)
    except PrivacyError as exc:  # the mechanism's refusal: in this call's name
        raise signed_refusal(exc, "release") from None
    if held[1] is None:  # no kappa: the template's residual_tol, read where it is solved
        return calibration
    return replace(calibration, extra={**calibration.extra, SOLVE_TOLERANCE_KEY: held})


#: The bit generators of NumPy's whose draws the noise may come from.
_NUMPY_BITS = (np.random.PCG64, np.random.PCG64DXSM, np.random.MT19937, np.random.Philox,
               np.random.SFC64)


def _noise_generator(rng: RandomStateLike) -> np.random.Generator:
    """The generator the noise is drawn from: a NumPy Generator over one of NumPy's bit
    generators (a subclass could draw other noise than the calibration's)."""
    noise_rng = check_random_state(rng, "release", "rng")
    if (
        type(noise_rng) is not np.random.Generator
        or type(noise_rng.bit_generator) not in _NUMPY_BITS
    ):
        raise ParameterError(
            "release: rng must be None, an int or a numpy Generator over a bit generator "
            f"of numpy's; got a {type(noise_rng).__name__}."
        )
    return noise_rng


def _run(mechanism: Mechanism, template: Template, calibration: Calibration, solver_backend: Any,
         noise_rng: np.random.Generator, **options: Any) -> tuple[Any, SolveResult | None, bool]:
    """``mechanism.run``, with its refusals and a solver's own exceptions in release's name (a
    solver's text may quote the data: the curator's, in the diagnostics)."""
    try:
        return mechanism.run(template, calibration, solver_backend, noise_rng, **options)
    # the mechanism's refusal of its solve: in this call's name
    except (PrivacyError, SolverError) as exc:
        refusal: PrivacyError | SolverError | None = signed_refusal(exc, "release")
    except DPConvexError:
        raise
    except (ValueError, ArithmeticError, np.linalg.LinAlgError, RuntimeError) as exc:
        # a solver's own exception (cvxpy.SolverError is a RuntimeError) never escapes raw, nor
        # its text
        from ..errors import record_diagnostic

        record_diagnostic("release", f"the solve failed: {type(exc).__name__}: {exc}")
        refusal = None
    # raised after the handlers: no context holds the text of what was caught
    if refusal is not None:
        raise refusal
    from ..solvers import retry_advice

    # the advice names the other backends that fit the template, never the one that ran
    ran = getattr(solver_backend, "solvers", (getattr(solver_backend, "name", None),))
    advice = (f"{retry_advice(template, ran)}, or check the data and parameters"
              if solver_backend is not None else "Check the data and parameters")
    raise SolverError(
        f"release: the solve failed, so nothing is released (the solver's own message: "
        f"dpconvex.collect_diagnostics). {advice}.")
