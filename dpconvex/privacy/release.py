"""The one release pipeline every estimator (and the auditor) goes through.

``release`` runs, for any registered mechanism and template:

    budget check → conditions → calibration (within float64's reach) → certificate → (dry run: stop)
    → noise and solve → accuracy check → post-processing onto the parameter
    space → finiteness check → the solve's conditions → Release(theta, certificate)

The solve's diagnostics (residual, iterations, objective value, timings) are returned separately in
``Release.diagnostics``: they depend on the data and are NOT part of the release
(docs/privacy/release.md#privacy-release); callers must not store them on a fitted model.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from operator import attrgetter
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from .._validation import (
    RandomStateLike,
    check_random_state,
    is_dpconvex_class,
    is_dpconvex_function,
    signed_refusal,
)
from ..errors import DPConvexError, ParameterError, PrivacyError, SolverError, record_solve, say
from ..objectives.losses import shipped_derivation
from ..templates.base import SolveResult, rows_in_memory
from .budget import Budget, Certificate, Condition
from .declarations import declaration_conditions, vouched
from .mechanisms.base import Calibration, Mechanism, get_mechanism

if TYPE_CHECKING:
    from ..templates.base import Template

__all__ = ["Release", "release", "user_parts"]


#: The relative error a solve's gradient may carry (2⁻⁴², float64's 2⁻⁵² over 1,024 roundings): noise
#: whose gradient E‖b‖/n times it exceeds the template's tolerance is refused from public quantities.
RESOLUTION = 2.0**-42


#: Members a shipped template's class states and its constructor never sets on the instance:
#: one set there is the user's (:func:`user_parts`).
_CLASS_MEMBERS = frozenset({"residual_tol", "noise_symmetric", "gradient_difference_rank", "distance_bound",
                            "privacy_constants", "objective", "residual", "record_gradients",
                            "record_domain", "conditions", "assumptions", "hessian", "hessp"})


def user_parts(template: Any) -> list[str]:
    """What of a template is the user's although its class may be shipped: members of
    ``_CLASS_MEMBERS`` set on the instance, and a parameter space (a parameterization), a feature map, a
    regularizer or a rows operator of a class dpconvex does not ship, or with methods set on the instance.

    Examples
    --------
    >>> from dpconvex.privacy.release import user_parts
    >>> t = LinearERMTemplate(Logistic(), 0.1, 1.0, X, np.where(X[:, 0] > 0, 1.0, -1.0))
    >>> user_parts(t)
    []
    >>> t.gradient_difference_rank = 1
    >>> user_parts(t)
    ['gradient_difference_rank']
    """
    parts = sorted(set(getattr(template, "__dict__", {})) & _CLASS_MEMBERS)
    space, rows = getattr(template, "space", None), getattr(template, "rows", None)
    convex = getattr(space, "convex_set", None)  # and an intersection's members, each on its own
    sets = (convex, *getattr(convex, "sets", ()))
    for name, obj in (("space", space), *zip(["space"] * len(sets), sets, strict=True),
                      ("feature map", getattr(space, "fmap", None)),
                      ("space", getattr(space, "quad", None)),
                      ("regularizer", getattr(template, "regularizer", None)),
                      ("rows", None if rows is None or isinstance(rows, np.ndarray) or sp.issparse(rows)
                       else rows),
                      ("rows", getattr(rows, "base", None))):
        if obj is not None and (users := _users_class(obj)):
            parts.append(f"{name} {users}")
    return parts


def _users_class(obj: Any) -> str | None:
    """``obj``'s class if dpconvex does not ship it, or what is set on the instance besides what
    its constructor sets (its methods, or any attribute of a class whose constructor sets none)."""
    cls, builds, patched = type(obj), False, []
    for c in cls.__mro__:  # a constructor of dpconvex's sets attributes on the instance
        builds = builds or ("__init__" in vars(c) and is_dpconvex_class(c))
    for k, v in getattr(obj, "__dict__", {}).items():
        if hasattr(cls, k) and (callable(v) or not builds):
            patched.append(k)
    if patched:
        return f"{cls.__qualname__} ({', '.join(patched)} set on the instance)"
    return None if is_dpconvex_class(cls) else cls.__qualname__


def _members(template: Any) -> tuple[tuple[Any, ...], list[Any]]:
    """What a solve must leave as it was: the declared constants (a NaN, a bound nobody derived, equal
    to a NaN), the identities of the public members of the template, space, loss and regularizer, the
    attributes of their classes and of the rows', operators', feature map's and sets' classes, what of
    it is the user's; and the objects named, kept while the caller compares."""
    constants = getattr(template, "privacy_constants", None)
    declared = constants() if callable(constants) else None
    if dataclasses.is_dataclass(declared):
        fields = [type(declared)]
        for v in dataclasses.astuple(declared):
            fields.append("nan" if v != v else v)
        declared = tuple(fields)
    own, classes, held = [], [], []  # held: a kept object is not freed, so none other takes its id
    seen: set[type] = {type(None)}  # each class once (a part that is None: a built-in class)
    space, rows, ops = (getattr(template, "space", None), getattr(template, "rows", None),
                        getattr(template, "_ops", None))
    convex = getattr(space, "convex_set", None)
    parts = (template, space, getattr(template, "loss", None), getattr(template, "regularizer", None))
    for i, part in enumerate(parts + (ops, getattr(ops, "base", None), rows, getattr(rows, "base", None),
                                      getattr(space, "fmap", None), getattr(space, "quad", None), convex,
                                      *getattr(convex, "sets", ()))):
        for k, v in getattr(part, "__dict__", {}).items() if i < len(parts) else ():
            if not k.startswith("_") or k == "_ops":
                own.append((i, k, id(v)))
                held.append(v)
        for c in type(part).__mro__[:-1]:
            if c not in seen:
                seen.add(c)
                held.append(values := tuple(vars(c).values()))
                classes.append((c, tuple(vars(c)), tuple(map(id, values))))
    for term in getattr(template, "extra_terms", ()):  # and what its extra terms' functions close over
        for fn in (term.cvxpy_fn, term.value_fn, term.grad_fn):  # (a cell's repr names its object)
            code, defaults = getattr(fn, "__code__", None), getattr(fn, "__defaults__", None)
            cells = getattr(fn, "__closure__", None) or ()
            own.append((id(fn), id(code), id(defaults), *map(repr, cells)))
            held.append((fn, code, defaults, cells))
            for cell in cells:
                with contextlib.suppress(ValueError):  # (an empty cell)
                    held.append(cell.cell_contents)
    return (tuple(user_parts(template)), declared, tuple(own), tuple(classes)), held


#: What Python adds to a class in use: ``copyreg``'s slot names (a pickle), an empty annotations dict.
_CACHED = frozenset({"__slotnames__", "__annotations__"})


def _same_members(before: tuple[Any, ...], after: tuple[Any, ...]) -> bool:
    """Whether two :func:`_members` snapshots that differ agree but for the caches of :data:`_CACHED`."""
    a, b = ((*s[:3], [(c, k, i) for c, keys, ids in s[3] for k, i in zip(keys, ids, strict=True)
                      if k not in _CACHED]) for s in (before, after))
    return a == b


class _OnACopy:
    """A backend dpconvex does not ship, solving a copy of the template: nothing it changes there (a
    method, a cache, an array) is read by the release's accuracy check, which is the original's with
    what it keeps between a solver's calls (the ``_caches`` each class names) forgotten. Named in
    messages and the certificate by its class, not by what it says of itself."""

    def __init__(self, backend: Any):
        self.backend = backend
        self.name = self.label = f"a backend of the user's ({type(backend).__qualname__})"
        self.solvers = (self.name,)

    def solve(self, template: Any, b: np.ndarray | None, extra_reg: float = 0.0,
              **options: Any) -> SolveResult:
        if not rows_in_memory(template):
            raise ParameterError("release: a backend dpconvex does not ship solves a copy of the template, "
                                 "which would share rows held by Dask. Pass a solver by name, or rows in "
                                 "memory.")
        _forget(template)  # (a CVXPY problem kept there need not be copied)
        try:
            copied = copy.deepcopy(template)
        except Exception as exc:  # e.g. rows on a cluster: nothing solved, nothing released
            raise ParameterError(f"release: a backend dpconvex does not ship solves a copy of the template, "
                                 f"and this template cannot be copied ({type(exc).__name__}). Pass a solver "
                                 "by name, or rows in memory.") from None
        try:
            result = self.backend.solve(copied, b, extra_reg, **options)
        except DPConvexError:
            raise
        except Exception as exc:  # its text may quote the data: the curator's, in the diagnostics
            from ..errors import record_diagnostic

            record_diagnostic("release", f"{self.name}: {type(exc).__name__}: {exc}")
            result = None
        _forget(template)
        if not isinstance(result, SolveResult):
            raise SolverError(f"release: {self.name} raised an error or returned no SolveResult, so nothing "
                              "is released (its message: dpconvex.collect_diagnostics). A backend's solve("
                              "template, b, extra_reg=0.0, *, warm_start=None, max_iter=None) returns one.")
        return result


def _forget(template: Any) -> None:
    """Set to None what the template, its space and its rows keep between a solver's calls."""
    for part in (template, template.space, getattr(template, "rows", None), getattr(template, "_ops", None)):
        for name in set(getattr(type(part), "_caches", ())) & set(getattr(part, "__dict__", {})):
            setattr(part, name, None)


def _shipped_backend(backend: Any, seen: frozenset[int] = frozenset()) -> bool:
    """Whether dpconvex ships the backend, with nothing set on it, and every object it holds is a
    builtin container or number or text, or such a backend (one that holds itself is not)."""
    held = [v for v in getattr(backend, "__dict__", {}).values()
            if type(v) not in (dict, list, tuple, str, int, float, bool, type(None))]
    return id(backend) not in seen and _users_class(backend) is None and all(
        _shipped_backend(v, seen | {id(backend)}) for v in held)


@dataclass
class Release:
    """What a private fit releases, plus a not-private diagnostic channel.

    Attributes
    ----------
    theta : ndarray or None
        The released parameters (None for a dry run).
    certificate : Certificate
    calibration : Calibration or None
        Public calibration constants.
    diagnostics : SolveResult or None
        The solve behind the release. NOT PRIVATE: never store it on a released model
        (estimators reach it only through :func:`collect_diagnostics`).

    Examples
    --------
    >>> rel = release(LinearERMTemplate(Logistic(), 0.1, 1.0, X, y), "objective", Budget(1.0), rng=0)
    >>> rel.theta.shape, rel.certificate.all_hold, rel.calibration.mechanism
    ((3,), True, 'objective')
    """

    theta: np.ndarray | None
    certificate: Certificate
    calibration: Calibration | None = None
    diagnostics: SolveResult | None = None


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
        The ``family`` and ``owner`` (and ``regression``) of
        :func:`~dpconvex.privacy.rules.noise_level.warn_if_noise_dominates`, which reads
        this release's calibration before any noise is drawn (not in a dry run).
    vouch : iterable of str, default=()
        Declared constants nobody could verify that the caller vouches for, e.g.
        ``("curvature",)`` (:func:`~dpconvex.privacy.declarations.vouched`).
    vouch_unused : {"refuse", "ignore"}, default="refuse"
        A name of ``vouch`` no condition of this release rests on: refused as a typo, or
        ignored (an estimator's ``vouch=``, which serves whichever mechanism it chooses).

    Returns
    -------
    Release

    Raises
    ------
    ParameterError
        The template lacks members of the template contract, or ``vouch`` names a constant
        no condition rests on.
    PrivacyError
        The template lacks a capability the mechanism needs, a condition of the proof fails
        (before the noise, or one of :meth:`~dpconvex.privacy.mechanisms.Mechanism.solve_conditions`
        after the solve), or one rests on a constant nobody verified or vouched for.
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
    """
    mechanism = get_mechanism(mechanism) if isinstance(mechanism, str) else mechanism
    seeded = rng is not None if seeded is None else bool(seeded)  # the certificate's "seeded"
    from ..templates.base import CAPABILITY_MEMBERS, missing_members

    # the capabilities the mechanism needs, refused by name before anything is read
    offered = frozenset(getattr(template, "capabilities", ()))
    if missing := sorted(mechanism.needs.intersection(CAPABILITY_MEMBERS) - offered):
        raise PrivacyError(
            f"release: mechanism '{mechanism.name}' needs the template capabilit"
            f"{'y' if len(missing) == 1 else 'ies'} {missing}, which template "
            f"'{getattr(template, 'name', type(template).__name__)}' does not offer (it offers "
            f"{sorted(offered)}); use a mechanism made for this kind of template.")
    if not is_dpconvex_class(type(template)) and (missing := missing_members(template)):  # shipped: by review
        raise ParameterError(
            f"release: template '{getattr(template, 'name', type(template).__name__)}' "
            f"({type(template).__qualname__}) lacks {missing}, which the template contract "
            "requires (dpconvex.templates.base: TEMPLATE_MEMBERS, CAPABILITY_MEMBERS for "
            "each capability it declares). Add them, or drop the capability that asks for them.")
    budget = mechanism.check_budget(budget)
    try:
        conditions = mechanism.conditions(template, budget)
    except PrivacyError as exc:  # the template's or the mechanism's refusal: in this call's name
        raise signed_refusal(exc, "release") from None
    changed = user_parts(template)
    if shipped_derivation(template) is None or changed:  # a user's template: its declarations checked
        conditions += declaration_conditions(template, mechanism.needs, changed=changed)
    for mech in (mechanism, getattr(mechanism, "inner", None)):  # a user's, or one a cover wraps:
        if mech is not None and (users := _users_class(mech)):  # its own proof
            conditions.append(Condition("mechanism", True, "declared, not verified",
                                        f"{users} is not a mechanism dpconvex ships: its conditions, "
                                        "calibration, noise and certificate are its own",
                                        unverified="mechanism"))
    loss, terms = getattr(template, "loss", None), getattr(template, "extra_terms", ())
    if mechanism.solves and hasattr(backend, "solve") and not _shipped_backend(backend) and (
            changed or shipped_derivation(template) is None or not all(map(is_dpconvex_function, (
                t.value_fn for t in terms))) or (loss is not None and shipped_derivation(loss) is None)):
        conditions.append(Condition(  # the user's code on both sides: what they share, a backend can change
            "backend", True, "declared, not verified", f"{type(backend).__qualname__} is a backend of the "
            "user's solving a template that holds code of the user's (a loss, a term, a template): what that "
            "code shares with its copy, it can change", unverified="backend"))
    if vouch or any(map(attrgetter("unverified"), conditions)):
        conditions = vouched(conditions, vouch, unused=vouch_unused)
    calibration = mechanism.calibrate(template, budget)
    if mechanism.placement == "objective" and mechanism.private:  # the tolerance within float64's reach
        try:
            noise = float(mechanism.noise_report(template, budget, calibration=calibration).expected_norm)
        except Exception:  # a mechanism or template of the user's without a noise report: its own proof
            if not any(map(_users_class, (mechanism, getattr(mechanism, "inner", None) or mechanism,
                                          template))):
                raise
            noise = 0.0
        if noise / template.n * RESOLUTION > template.residual_tol:
            raise PrivacyError(
                f"release: epsilon = {budget.epsilon:g} puts noise of expected norm {noise:.3g} on the "
                f"objective of n = {template.n} records: its gradient is beyond what float64 resolves to "
                f"the tolerance {template.residual_tol:g} the release needs, so whether a solve reaches it "
                "would depend on the records; nothing is released. Use a larger epsilon.")
    certificate = mechanism.certificate(template, budget, calibration, conditions)
    if dry_run:  # seeded only where the caller says the fit's noise will be
        certificate.seeded = mechanism.private and seeded
        return Release(None, certificate, calibration, None)
    if noise_warning is not None:
        from .rules.noise_level import warn_if_noise_dominates

        warn_if_noise_dominates(template=template, mech=mechanism, budget=budget,
                                calibration=calibration, **noise_warning)
    from ..solvers import get_backend

    solver_backend = None if not mechanism.solves else (
        backend if hasattr(backend, "solve") else get_backend(backend, template))
    if solver_backend is not None and (solver_backend is backend or _users_class(solver_backend)) \
            and not _shipped_backend(solver_backend):
        solver_backend = _OnACopy(solver_backend)
    noise_rng = check_random_state(rng, "release", "rng")
    numpy_bits = (np.random.PCG64, np.random.PCG64DXSM, np.random.MT19937, np.random.Philox, np.random.SFC64)
    if type(noise_rng) is not np.random.Generator or type(noise_rng.bit_generator) not in numpy_bits:
        raise ParameterError("release: rng must be None, an int or a numpy Generator over a bit generator "
                             f"of numpy's; got a {type(noise_rng).__name__}.")
    # what the calibration and the checks read, before the solve (a user's backend may change it)
    members, kept = _members(template)  # kept until the comparison after the solve
    say(f"{mechanism.name}: noise drawn, solving {template.name} with backend "
        f"{getattr(solver_backend, 'name', 'none')}")  # no n: a class sum's counts its kept rows
    try:
        theta, solve_result, noised = mechanism.run(template, calibration, solver_backend,
                                                    noise_rng, warm_start=warm_start,
                                                    max_iter=max_iter)
    except (PrivacyError, SolverError) as exc:  # the mechanism's refusal of its solve: in this call's name
        raise signed_refusal(exc, "release") from None
    except DPConvexError:
        raise
    except (ValueError, ArithmeticError, np.linalg.LinAlgError, RuntimeError) as exc:
        # a solver's own exception (cvxpy.SolverError is a RuntimeError) never escapes raw, nor
        # its text (it may quote the data: the curator's, in the diagnostics); the advice names
        # the other backends that fit the template, never the one that ran
        from ..errors import record_diagnostic
        from ..solvers import retry_advice

        record_diagnostic("release", f"the solve failed: {type(exc).__name__}: {exc}")
        ran = getattr(solver_backend, "solvers", (getattr(solver_backend, "name", None),))
        advice = (f"{retry_advice(template, ran)}, or check the data and parameters"
                  if solver_backend is not None else "Check the data and parameters")
        raise SolverError(
            f"release: the solve failed, so nothing is released (the solver's own message: "
            f"dpconvex.collect_diagnostics). {advice}.") from None
    if (after := _members(template))[0] != members and not _same_members(members, after[0]):
        raise PrivacyError("release: the template's declared constants or members changed during the solve "
                           "(a backend or template of the user's changed them), so the calibration and the "
                           "checks no longer hold; nothing is released. Leave the template unchanged while "
                           "it is solved.")
    if noised:  # post-processing onto the parameter space (solver outputs are in it already)
        theta = template.space.postprocess(theta)
    say(f"{mechanism.name}: " + ("solved and accepted by the accuracy check"
                                 if solve_result is not None else
                                 "run (no solve, so no accuracy check)"))
    if not np.all(np.isfinite(theta)):
        raise SolverError(
            "release: the released parameters are not finite (overflow in the noise or the solve); "
            "nothing is released. Check epsilon, lam and the data norm bound."
        )
    if solve_result is not None:
        # public facts only: the solver(s) of the backend that ran, as chosen from public
        # parameters ("auto" resolved; Backend.label), and the tolerance met; never which
        # solver of a polished backend produced the point, the residual, objective value,
        # iterations or time, which depend on the data (docs/privacy/release.md#privacy-release)
        certificate.solver = {"backend": getattr(solver_backend, "label",
                                                 getattr(solver_backend, "name", str(backend))),
                              "solved to residual <= tolerance": "yes"}
        from ..errors import diagnostics_open

        if diagnostics_open():  # NOT PRIVATE: the solve's status and residual, for an open collector
            record_solve(solve_result)
    solve_conditions = mechanism.solve_conditions(template, solve_result, calibration)
    for c in solve_conditions:  # the first that fails, by name: its detail may rest on the data
        if not c.holds:
            raise PrivacyError(
                f"release: mechanism '{mechanism.name}' states that its solve did not establish "
                f"'{c.name}'; nothing is released (the solve's details: dpconvex.collect_diagnostics). "
                "Tighten the solve (solver, max_iter), or fix the mechanism's solve_conditions.")
    certificate.conditions.extend(solve_conditions)
    if mechanism.private and seeded:
        certificate.seeded = True
    return Release(np.asarray(theta), certificate, calibration, solve_result)
