"""The parts of a release that are the user's, and the guards that run when one is.

A template, a mechanism or a solver backend may be the user's: a class dpconvex does not ship,
or a shipped one with members set on the instance (:func:`user_parts`), or one holding code
the user stated (a loss or a set stated in CVXPY, an extra term's functions).
:func:`users_part` decides, once per release, whether any part is; only then do the guards
run. What the proof then rests on is the user's code: a user's template has its members
(:func:`check_members`) and declarations checked
(:func:`~dpconvex.privacy.declarations.declaration_conditions`), a user's mechanism or a
user's backend solving a template that holds the user's code is named as declared and not
verified (:func:`user_conditions`), the solve's point is judged by the template's residual
there and a user's backend solves a copy of the template (:func:`judged`), and what the solve
reads is compared before and after it
(:func:`unchanged`: :func:`members_snapshot`, then :func:`members_changed`).
:func:`~dpconvex.privacy.release.release` calls these guards
(docs/privacy/user_objectives.md#privacy-user-objectives).

Where every part is dpconvex's, the code a solve runs is dpconvex's, NumPy's and Python's
only: nothing of the user's runs that could change the template. What makes a shipped part
trustworthy is checked elsewhere: its constants are derived and probed like a user's
(:func:`~dpconvex.privacy.checks.shipped_loss_conditions`,
tests/privacy/test_shipped_classes_probed.py), and a shipped backend reports the template's
residual at its point (tests/solvers/test_reported_residual.py).
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import types
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from .._validation import _short_repr, is_dpconvex_class, is_dpconvex_function
from ..errors import DPConvexError, ParameterError, PrivacyError, SolverError
from ..objectives.losses import shipped_as_built, shipped_derivation
from ..objectives.sets import CVXPYSet
from ..solvers.registry import SolveResult, backend_classes, rows_in_memory
from .certificate import Condition
from .declarations import declaration_conditions
from .mechanisms.base import Mechanism

if TYPE_CHECKING:
    from ..templates.base import Template
    from .declarations import DeclaredFacts

__all__ = ["check_members", "forget_kept", "judged", "members_changed", "members_snapshot",
           "unchanged", "user_conditions", "user_parts", "users_class", "users_part"]


#: Members a shipped template's class states and its constructor never sets on the instance:
#: one set there is the user's (:func:`user_parts`).
_CLASS_MEMBERS = frozenset(
    {
        "residual_tol",
        "noise_symmetric",
        "gradient_difference_rank",
        "distance_bound",
        "privacy_constants",
        "objective",
        "residual",
        "record_gradients",
        "record_domain",
        "conditions",
        "assumptions",
        "hessian",
        "hessp",
    }
)


def user_parts(template: Any) -> list[str]:
    """What of a template is the user's although its class may be shipped: members of
    ``_CLASS_MEMBERS`` set on the instance, and a parameter space (a parameterization), a feature
    map, a regularizer, a rows operator, or rows or labels the instance holds (its ``X`` and
    ``y``, "rows" and "labels": an object other than a NumPy array or SciPy matrix of their own
    classes) of a class dpconvex does not ship, or with methods set on the instance.

    Parameters
    ----------
    template : Template
        The template of a release.

    Returns
    -------
    list of str
        The members set on the instance (sorted), then each such part as "<where> <class>"
        (:func:`users_class`); empty when none is the user's.

    Examples
    --------
    >>> from dpconvex.privacy.user_parts import user_parts
    >>> t = LinearERMTemplate(Logistic(), 0.1, 1.0, X, np.where(X[:, 0] > 0, 1.0, -1.0))
    >>> user_parts(t)
    []
    >>> t.gradient_difference_rank = 1
    >>> user_parts(t)
    ['gradient_difference_rank']
    >>> from dpconvex.templates.statistics import EmpiricalRiskTemplate
    >>> class Rows:
    ...     pass
    >>> e = EmpiricalRiskTemplate(Logistic(), 1.0, X, y)
    >>> user_parts(e)
    []
    >>> e.X = Rows()
    >>> user_parts(e)
    ['rows Rows']
    """
    parts = sorted(set(getattr(template, "__dict__", {})) & _CLASS_MEMBERS)
    space, rows = getattr(template, "space", None), getattr(template, "rows", None)
    # the rows and labels the instance holds (X, y: what noisy GD, the class sums and k-means
    # read), where they are neither a NumPy array nor a SciPy matrix of their own classes
    held = getattr(template, "__dict__", {})
    X, y = (None if _plain_data(held.get(k)) else held.get(k) for k in ("X", "y"))
    convex = getattr(space, "convex_set", None)  # and an intersection's members, each on its own
    sets = (convex, *getattr(convex, "sets", ()))
    for name, obj in (
        ("space", space),
        *zip(["space"] * len(sets), sets, strict=True),
        ("feature map", getattr(space, "fmap", None)),
        ("space", getattr(space, "quad", None)),
        ("regularizer", getattr(template, "regularizer", None)),
        (
            "rows",
            None if rows is None or isinstance(rows, np.ndarray) or sp.issparse(rows) else rows,
        ),
        ("rows", getattr(rows, "base", None)),
        ("rows", None if X is rows else X),
        ("rows", None if X is None or X is rows else getattr(X, "base", None)),
        ("labels", y),
    ):
        if obj is not None and (users := users_class(obj)):
            parts.append(f"{name} {users}")
    return parts


def _plain_data(value: Any) -> bool:
    """Whether ``value`` is None, a NumPy array of NumPy's own class (whose reading runs no
    code of the user's) or a value of :data:`_PLAIN` (a SciPy matrix of SciPy's own class)."""
    return value is None or type(value) is np.ndarray or type(value) in _PLAIN


def _solved_parts(template: Any) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """The objects a solve of ``template`` reads, as :func:`members_snapshot` compares them: the
    template, its space, loss and regularizer (their members), and its rows operator, rows,
    feature map, quadratic map and sets (their classes)."""
    space, rows, ops = (getattr(template, "space", None), getattr(template, "rows", None),
                        getattr(template, "_ops", None))
    convex = getattr(space, "convex_set", None)
    owners = (template, space, getattr(template, "loss", None),
              getattr(template, "regularizer", None))
    others = (ops, getattr(ops, "base", None), rows, getattr(rows, "base", None),
              getattr(space, "fmap", None), getattr(space, "quad", None), convex,
              *getattr(convex, "sets", ()))
    return owners, others


#: The types whose values run no code of the user's: Python's numbers and text, NumPy's
#: scalars, SciPy's sparse matrices and arrays (the exact classes: a subclass may be the user's).
_PLAIN = frozenset({type(None), bool, int, float, complex, str, *np.sctypeDict.values(),
                    *(cls for name in dir(sp) if name.endswith(("_matrix", "_array"))
                      and isinstance(cls := getattr(sp, name), type))})

#: The containers whose items :func:`_users_object` reads in turn (the exact classes).
_CONTAINERS = frozenset({tuple, list, frozenset, set, dict})


def _users_object(value: Any, holder: Any, seen: set[int]) -> tuple[Any, Any] | None:
    """The first object reachable from ``value`` whose reading may run code of the user's, with
    the object holding it (``holder`` for ``value`` itself); None when every one runs only
    dpconvex's, NumPy's, SciPy's or Python's code.

    Such is a value of :data:`_PLAIN`, a NumPy array not of objects, a function compiled from
    dpconvex, a container of :data:`_CONTAINERS` of such, and an object of a class dpconvex ships
    with nothing set on the instance (:func:`users_class`) and such attributes, but a set stated
    in CVXPY (the user's constraints). Each object is read once (``seen``: their ids)."""
    if type(value) in _PLAIN or id(value) in seen:
        return None
    seen.add(id(value))
    if type(value) is np.ndarray:
        return None if value.dtype.kind != "O" else (value, holder)
    if type(value) is types.FunctionType:
        return None if is_dpconvex_function(value) else (value, holder)
    if type(value) in _CONTAINERS:
        held = (*value, *value.values()) if type(value) is dict else value  # (keys, values)
    elif users_class(value) is None and type(value) is not CVXPYSet:  # a shipped class's
        held, holder = getattr(value, "__dict__", {}).values(), value
    else:
        return value, holder
    for item in held:
        if (found := _users_object(item, holder, seen)) is not None:
            return found
    return None


def users_part(template: Any, mechanism: Mechanism, backend: Any, *options: Any) -> str | None:
    """The first part of a release found to be the user's, None when every part is dpconvex's:
    the one test that decides whether the guards of this module run.

    A part is the user's where it is, or holds, code dpconvex did not write. In order:

    1. where the mechanism solves (one that solves nothing runs no backend), the backend: one
       given that is not a shipped backend as built (:func:`_shipped_backend`), or, for a
       name, any class the registry may build for it
       (:func:`~dpconvex.solvers.backend_classes`);
    2. the template or its loss not as built (:func:`_as_built`: a class without a shipped
       derivation, or a member its class states set on the instance), and a loss whose
       attributes are not what its constructor builds from its parameters
       (:meth:`~dpconvex.objectives.Loss.as_built`: a bound set after construction, a loss
       stated in CVXPY);
    3. an extra term's functions and what they close over (:func:`_users_terms`);
    4. any object reachable from the mechanism (and the one it wraps), the template or the
       options (``warm_start``, ``max_iter``) that :func:`_users_object` finds: a class or a
       function of the user's, a set stated in CVXPY, a shipped object with a method set on it.

    None: a solve of this release runs dpconvex's, NumPy's, SciPy's and Python's code only.

    A release asks this after :func:`forget_kept` has walked the whole template: forgetting
    may run code of the user's (a class's ``__setattr__``) that changes a part this search
    passes before it, so the search is a walk of its own, on the template as left then.

    Parameters
    ----------
    template : Template
        The template of the release.
    mechanism : Mechanism
        The mechanism of the release.
    backend : Backend, str or None
        The backend given, or the solver name the registry builds from.
    *options
        The options of the solve (``warm_start``, ``max_iter``).

    Returns
    -------
    str or None
        The first such part, named (e.g. ``'the loss Mine'``), or None.

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms import get_mechanism
    >>> from dpconvex.privacy.user_parts import users_part
    >>> objective = get_mechanism("objective")
    >>> users_part(LinearERMTemplate(Logistic(), 0.1, 1.0, X, y), objective, None) is None
    True
    >>> class Mine(Logistic):
    ...     pass
    >>> users_part(LinearERMTemplate(Mine(), 0.1, 1.0, X, y), objective, None)
    'the loss Mine'
    """
    if getattr(mechanism, "solves", True):  # (one that says it solves nothing runs no backend)
        if hasattr(backend, "solve"):  # one given
            if not _shipped_backend(backend):
                return f"the backend {type(backend).__qualname__}"
        elif not all(is_dpconvex_class(cls) for cls in backend_classes(backend)):  # a name
            return f"a backend the registry may build for solver={backend!r}"
    if not _as_built(template):
        return f"the template {type(template).__qualname__}"
    if (loss := getattr(template, "loss", None)) is not None and not (
            _as_built(loss) and shipped_as_built(loss)):
        # a user's class solved as compiled from its CVXPY form: named by that class
        return f"the loss {getattr(loss, 'solved_from', None) or type(loss).__qualname__}"
    if _users_terms(template):
        return "an extra term"
    for root, named in ((mechanism, "the mechanism {}"), (template, "{} in the template's {}"),
                        (options, "an option of the solve (warm_start, max_iter)")):
        if (found := _users_object(root, root, set())) is not None:
            value, holder = found
            return named.format(users_class(value) or type(value).__qualname__,
                                type(holder).__qualname__)
    return None


def _as_built(part: Any) -> bool:
    """Whether a template or a loss is of a class whose constants dpconvex derives
    (:func:`~dpconvex.objectives.losses.shipped_derivation`), with no member its class states
    (:data:`_CLASS_MEMBERS`) set on the instance."""
    return shipped_derivation(part) is not None and not (
        _CLASS_MEMBERS & set(getattr(part, "__dict__", {})))


def _users_terms(template: Any) -> bool:
    """Whether an extra term of ``template`` runs code of the user's: a function not compiled
    from dpconvex, or one closing over an object :func:`_users_object` finds or over an empty
    cell (filled later, by anyone)."""
    for term in getattr(template, "extra_terms", None) or ():
        for fn in (getattr(term, "cvxpy_fn", None), getattr(term, "value_fn", None),
                   getattr(term, "grad_fn", None)):
            try:
                held = [cell.cell_contents for cell in getattr(fn, "__closure__", None) or ()]
            except ValueError:  # an empty cell
                return True
            if not is_dpconvex_function(fn) or _users_object(held, term, set()):
                return True
    return False


def users_class(obj: Any) -> str | None:
    """``obj``'s class if dpconvex does not ship it, or what is set on the instance besides what
    its constructor sets (its methods, or any attribute of a class whose constructor sets none).

    Parameters
    ----------
    obj : object
        A part of a release (a loss, a backend, a mechanism, ...).

    Returns
    -------
    str or None
        The class's qualified name (with what is set on the instance, where any), or None
        for an object of a class dpconvex ships with nothing set on it.

    Examples
    --------
    >>> from dpconvex.privacy.user_parts import users_class
    >>> users_class(Logistic()) is None
    True
    >>> class Mine(Logistic):
    ...     pass
    >>> users_class(Mine())
    'Mine'
    """
    cls = type(obj)
    patched = [k for k, v in getattr(obj, "__dict__", {}).items()
               if hasattr(cls, k) and (callable(v) or not _built_by_dpconvex(cls))]
    if patched:
        return f"{cls.__qualname__} ({', '.join(patched)} set on the instance)"
    return None if is_dpconvex_class(cls) else cls.__qualname__


def _built_by_dpconvex(cls: type) -> bool:
    """Whether a constructor of dpconvex's builds an object of ``cls`` (and so sets attributes
    on the instance)."""
    return any("__init__" in vars(c) and is_dpconvex_class(c) for c in cls.__mro__)


def members_snapshot(template: Any) -> tuple[tuple[Any, ...], list[Any]]:
    """What a solve must leave as it was: the declared constants (a NaN, a bound nobody derived,
    equal to a NaN), the identities of the public members of the template, space, loss and
    regularizer, the attributes of their classes and of the rows', operators', feature map's and
    sets' classes, what of it is the user's; and the objects named, kept while the caller
    compares.

    Parameters
    ----------
    template : Template
        The template about to be solved.

    Returns
    -------
    tuple
        ``(snapshot, kept)``: the snapshot, compared by :func:`members_changed`, and the
        objects it names, to be kept alive until then (none other takes their ids).

    Examples
    --------
    >>> from dpconvex.privacy.user_parts import members_changed, members_snapshot
    >>> t = LinearERMTemplate(Logistic(), 0.1, 1.0, X, y)
    >>> before, kept = members_snapshot(t)
    >>> members_changed(t, before)  # nothing changed: no error
    """
    constants = getattr(template, "privacy_constants", None)
    declared = constants() if callable(constants) else None
    if dataclasses.is_dataclass(declared):
        fields = [type(declared)]
        for v in dataclasses.astuple(declared):
            fields.append("nan" if v != v else v)
        declared = tuple(fields)
    own, classes, held = [], [], []  # held: a kept object is not freed, so none other takes its id
    seen: set[type] = {type(None)}  # each class once (a part that is None: a built-in class)
    owners, others = _solved_parts(template)
    for i, part in enumerate(owners + others):
        for k, v in getattr(part, "__dict__", {}).items() if i < len(owners) else ():
            if not k.startswith("_") or k == "_ops":
                own.append((i, k, id(v)))
                held.append(v)
        for c in type(part).__mro__[:-1]:
            if c not in seen:
                seen.add(c)
                held.append(values := tuple(vars(c).values()))
                classes.append((c, tuple(vars(c)), tuple(map(id, values))))
    # and what its extra terms' functions close over
    for term in getattr(template, "extra_terms", ()):
        for fn in (term.cvxpy_fn, term.value_fn, term.grad_fn):  # (a cell's repr names its object)
            code, defaults = getattr(fn, "__code__", None), getattr(fn, "__defaults__", None)
            cells = getattr(fn, "__closure__", None) or ()
            own.append((id(fn), id(code), id(defaults), *map(repr, cells)))
            held.append((fn, code, defaults, cells))
            for cell in cells:
                with contextlib.suppress(ValueError):  # (an empty cell)
                    held.append(cell.cell_contents)
    return (tuple(user_parts(template)), declared, tuple(own), tuple(classes)), held


#: What Python adds to a class in use: ``copyreg``'s slot names (a pickle), an empty
#: annotations dict.
_CACHED = frozenset({"__slotnames__", "__annotations__"})


def _same_members(before: tuple[Any, ...], after: tuple[Any, ...]) -> bool:
    """Whether two :func:`members_snapshot` snapshots that differ agree but for the caches of
    :data:`_CACHED`."""
    a, b = ((*s[:3], [(c, k, i) for c, keys, ids in s[3] for k, i in zip(keys, ids, strict=True)
                      if k not in _CACHED]) for s in (before, after))
    return a == b


class _Judged:
    """The backend of a release with a part of the user's: its solve gets a copy of the noise,
    and its point, read once as real numbers, is judged by the residual the template computes
    there with the noise as drawn, never the one the backend reports (code of the user's may
    stand on either side). Named as the backend it wraps."""

    def __init__(self, backend: Any):
        self.backend = backend
        self.name = getattr(backend, "name", type(backend).__qualname__)
        self.label = getattr(backend, "label", self.name)
        self.solvers = getattr(backend, "solvers", (self.name,))

    def solve(self, template: Any, b: np.ndarray | None, extra_reg: float = 0.0,
              **options: Any) -> SolveResult:
        res = self._solved(template, None if b is None else b.copy(), extra_reg, **options)
        x = None if res.x is None else np.asarray(res.x)
        if x is None or x.dtype.kind not in "biuf":  # no point to judge: the solve failed
            return dataclasses.replace(res, x=None)
        x = np.array(x, dtype=float)
        if not np.all(np.isfinite(x)):
            return dataclasses.replace(res, x=x)
        noise = None if b is None else template.space.project_noise(b)
        return dataclasses.replace(res, x=x, residual=float(template.residual(x, noise, extra_reg)))

    def _solved(self, template: Any, b: np.ndarray | None, extra_reg: float,
                **options: Any) -> SolveResult:
        return self.backend.solve(template, b, extra_reg, **options)


class _OnACopy(_Judged):
    """A backend dpconvex does not ship, solving a copy of the template: nothing it changes there (a
    method, a cache, an array) is read by the release's accuracy check, which is the original's with
    what it keeps between a solver's calls (the ``_caches`` each class names) forgotten. Named in
    messages and the certificate by its class, not by what it says of itself."""

    def __init__(self, backend: Any):
        self.backend = backend
        self.name = self.label = f"a backend of the user's ({type(backend).__qualname__})"
        self.solvers = (self.name,)

    def _solved(self, template: Any, b: np.ndarray | None, extra_reg: float,
                **options: Any) -> SolveResult:
        if not rows_in_memory(template):
            raise ParameterError(
                "release: a backend dpconvex does not ship solves a copy of the template, "
                "which would share rows held by Dask. Pass a solver by name, or rows in "
                "memory."
            )
        forget_kept(template)  # (a CVXPY problem kept there need not be copied)
        try:
            copied = copy.deepcopy(template)
        except Exception as exc:  # e.g. rows on a cluster: nothing solved, nothing released
            raise ParameterError(
                f"release: a backend dpconvex does not ship solves a copy of the template, "
                f"and this template cannot be copied ({type(exc).__name__}). Pass a solver "
                "by name, or rows in memory."
            ) from None
        try:
            result = self.backend.solve(copied, b, extra_reg, **options)
        except DPConvexError:
            raise
        except Exception as exc:  # its text may quote the data: the curator's, in the diagnostics
            from ..errors import record_diagnostic

            record_diagnostic("release", f"{self.name}: {type(exc).__name__}: {exc}")
            result = None
        forget_kept(template)
        if not isinstance(result, SolveResult):
            raise SolverError(
                f"release: {self.name} raised an error or returned no SolveResult, so nothing "
                "is released (its message: dpconvex.collect_diagnostics). A backend's solve("
                "template, b, extra_reg=0.0, *, warm_start=None, max_iter=None) returns one."
            )
        return result


def forget_kept(template: Any) -> None:
    """Set to None what the template and every object it holds keep between a solver's calls
    (the ``_caches`` each class names): products, features, the last margins or a CVXPY
    problem of the rows.

    A release starts with this, so the products of its solve read the rows as they are when its
    conditions check them, not as a kept copy of them made for an earlier release (the rows may
    be the caller's array, changed in place since). Only then does it look for a part of the
    user's (:func:`users_part`), whose walk stops at the first one found and reads none of
    the attributes of an object of the user's, which this walk forgets too.

    The objects held are found whatever the attributes are named: the attributes (the
    ``__dict__``) of each object reached and the items of the containers of
    :data:`_CONTAINERS`, each object once. Values of :data:`_PLAIN`, NumPy arrays of any dtype
    (the items of an object array are not walked: :func:`users_part` takes such an array for
    the user's) and classes hold none. An object's caches are forgotten before its attributes
    are read, so nothing is read of what they held. A class's ``_caches`` is a tuple or list
    of attribute names; anything else is refused.

    Parameters
    ----------
    template : Template
        The template of a release.

    Raises
    ------
    ParameterError
        A class reached names its ``_caches`` otherwise than as a tuple or list of str.

    Examples
    --------
    >>> from dpconvex.privacy.user_parts import forget_kept
    >>> template = LinearERMTemplate(Logistic(), 0.1, 1.0, X, y)
    >>> value, grad = template.objective(np.zeros(X.shape[1]))
    >>> forget_kept(template)  # the next call reads the rows again
    >>> bool(np.allclose(template.objective(np.zeros(X.shape[1]))[1], grad))
    True
    """
    parts, seen = [template], set()
    while parts:
        part = parts.pop()
        if type(part) in _PLAIN or type(part) is np.ndarray or id(part) in seen:
            continue
        seen.add(id(part))
        if type(part) in _CONTAINERS:
            parts.extend((*part, *part.values()) if type(part) is dict else part)
            continue
        held = getattr(part, "__dict__", None)
        if type(held) is not dict:  # (a class's namespace is no instance's: not read)
            continue
        names = getattr(type(part), "_caches", ())
        if not (isinstance(names, (tuple, list)) and all(isinstance(n, str) for n in names)):
            raise ParameterError(
                f"release: {type(part).__name__}._caches is {_short_repr(names)}, so what its "
                "objects keep between a solver's calls cannot be forgotten. Name the kept "
                "attributes as a tuple of str, e.g. _caches = (\"_cache\",).")
        for name in set(names) & set(held):
            setattr(part, name, None)
        parts.extend(held.values())


def _shipped_backend(backend: Any, seen: frozenset[int] = frozenset()) -> bool:
    """Whether dpconvex ships the backend, with nothing set on it, and every object it holds is a
    builtin container or number or text, or such a backend (one that holds itself is not)."""
    held = [v for v in getattr(backend, "__dict__", {}).values()
            if type(v) not in (dict, list, tuple, str, int, float, bool, type(None))]
    return id(backend) not in seen and users_class(backend) is None and all(
        _shipped_backend(v, seen | {id(backend)}) for v in held)


def check_members(template: Template) -> None:
    """Refuse a template of the user's class that lacks a member the template contract requires
    (shipped templates are reviewed).

    Parameters
    ----------
    template : Template
        The template of a release.

    Raises
    ------
    ParameterError
        A template of the user's lacks members of the template contract.

    Examples
    --------
    >>> from dpconvex.privacy.user_parts import check_members
    >>> check_members(LinearERMTemplate(Logistic(), 0.1, 1.0, X, y))
    """
    from ..templates.base import missing_members

    if not is_dpconvex_class(type(template)) and (missing := missing_members(template)):
        raise ParameterError(
            f"release: template '{getattr(template, 'name', type(template).__name__)}' "
            f"({type(template).__qualname__}) lacks {missing}, which the template contract "
            "requires (dpconvex.templates.base: TEMPLATE_MEMBERS, CAPABILITY_MEMBERS for "
            "each capability it declares). Add them, or drop the capability that asks for them.")


def user_conditions(template: Template, mechanism: Mechanism, backend: Any,
                    facts: DeclaredFacts | None = None) -> list[Condition]:
    """The conditions on the user's parts of a release: a user's template's declarations
    checked, and a user's mechanism, or a user's backend solving a template that holds the
    user's code, named as declared and not verified (empty when every part is dpconvex's).

    Parameters
    ----------
    template : Template
        The template of the release.
    mechanism : Mechanism
        The mechanism of the release (and the one it wraps, ``mechanism.inner``).
    backend : Backend, str or None
        The backend given, or the solver name.
    facts : DeclaredFacts or None, default=None
        The template's ``privacy_constants()``, ``n``, ``gradient_difference_rank`` and
        distance per unit of residual as the release read them once
        (:func:`~dpconvex.privacy.declarations.declared_facts`), the record its declarations
        are checked on (None: read by the checks).

    Returns
    -------
    list of Condition
        The conditions to add to the release's certificate.

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms import get_mechanism
    >>> from dpconvex.privacy.user_parts import user_conditions
    >>> template = LinearERMTemplate(Logistic(), 0.1, 1.0, X, y)
    >>> user_conditions(template, get_mechanism("objective"), None)
    []
    """
    conditions: list[Condition] = []
    changed = user_parts(template)
    # a user's template: its declarations checked
    if shipped_derivation(template) is None or changed:
        conditions += declaration_conditions(template, mechanism.needs, changed=changed,
                                             facts=facts)
    for mech in (mechanism, getattr(mechanism, "inner", None)):  # a user's, or one a cover wraps:
        if mech is not None and (users := users_class(mech)):  # its own proof
            conditions.append(
                Condition(
                    "mechanism",
                    True,
                    "declared, not verified",
                    f"{users} is not a mechanism dpconvex ships: its conditions, "
                    "calibration, noise and certificate are its own",
                    unverified="mechanism",
                )
            )
    loss, terms = getattr(template, "loss", None), getattr(template, "extra_terms", ())
    if mechanism.solves and hasattr(backend, "solve") and not _shipped_backend(backend) and (
            changed or shipped_derivation(template) is None
            or not all(is_dpconvex_function(t.value_fn) for t in terms)
            or (loss is not None and shipped_derivation(loss) is None)):
        # the user's code on both sides: what they share, a backend can change
        conditions.append(
            Condition(
                "backend",
                True,
                "declared, not verified",
                f"{type(backend).__qualname__} is a backend of the "
                "user's solving a template that holds code of the user's (a loss, a term, a "
                "template): what that "
                "code shares with its copy, it can change",
                unverified="backend",
            )
        )
    return conditions


def judged(solver_backend: Any, backend: Any) -> Any:
    """The backend that solves a release with a part of the user's: ``solver_backend`` (the one
    given as ``backend``, or the registry's) with its point judged by the template's residual
    there, and, for a backend of the user's, solving a copy of the template.

    Parameters
    ----------
    solver_backend : Backend
        The backend that solves (the one given, or the registry's).
    backend : Backend, str or None
        The ``backend`` argument of the release, as given.

    Returns
    -------
    Backend
        A wrapper of ``solver_backend`` that judges its point by the template's residual;
        it solves a copy of the template where ``solver_backend`` is not a backend dpconvex
        ships (the one given as ``backend``, or of the user's class).

    Examples
    --------
    >>> from dpconvex.privacy.user_parts import judged
    >>> from dpconvex.solvers import LbfgsNewton
    >>> print(judged(LbfgsNewton(), None).name)
    native
    >>> class Mine(LbfgsNewton):
    ...     pass
    >>> print(judged(Mine(), None).name)
    a backend of the user's (Mine)
    """
    if (solver_backend is backend or users_class(solver_backend)) \
            and not _shipped_backend(solver_backend):
        return _OnACopy(solver_backend)
    return _Judged(solver_backend)


@contextlib.contextmanager
def unchanged(template: Template) -> Iterator[None]:
    """Refuse the release if what the calibration and the checks read changed while the body
    (the solve) ran: :func:`members_snapshot` before it, :func:`members_changed` after it.

    Parameters
    ----------
    template : Template
        The template solved in the body.

    Yields
    ------
    None

    Raises
    ------
    PrivacyError
        They changed during the body.

    Examples
    --------
    >>> from dpconvex.privacy.user_parts import unchanged
    >>> t = LinearERMTemplate(Logistic(), 0.1, 1.0, X, y)
    >>> with unchanged(t):  # nothing changed: no error
    ...     pass
    """
    # the objects the snapshot names are kept until the comparison (none takes their ids)
    snapshot = members_snapshot(template)
    yield
    members_changed(template, snapshot[0])


def members_changed(template: Template, before: tuple[Any, ...]) -> None:
    """Refuse a release whose template's declared constants or members differ from the
    snapshot ``before`` (:func:`members_snapshot`, taken before the solve).

    Parameters
    ----------
    template : Template
        The template that was solved.
    before : tuple
        The snapshot (the first item of :func:`members_snapshot`'s result).

    Raises
    ------
    PrivacyError
        They changed during the solve.

    Examples
    --------
    >>> from dpconvex.privacy.user_parts import members_changed, members_snapshot
    >>> t = LinearERMTemplate(Logistic(), 0.1, 1.0, X, y)
    >>> before, kept = members_snapshot(t)
    >>> t.residual_tol = 1e-3
    >>> from dpconvex import PrivacyError
    >>> try:
    ...     members_changed(t, before)
    ... except PrivacyError:
    ...     print("refused")
    refused
    """
    if (after := members_snapshot(template))[0] != before and not _same_members(before, after[0]):
        raise PrivacyError(
            "release: the template's declared constants or members changed during the solve "
            "(a backend or template of the user's changed them), so the calibration and the "
            "checks no longer hold; nothing is released. Leave the template unchanged while "
            "it is solved."
        )
