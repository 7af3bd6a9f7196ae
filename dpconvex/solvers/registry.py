"""The solver backends' contract and their one registry.

A solver backend (:class:`Backend`) declares the template capabilities it requires
(:mod:`dpconvex.templates.base`) and returns a :class:`SolveResult` with a
:class:`SolveStatus`; the one registry matches the two. ``solver=`` names:
:func:`backend_names` (``"auto"`` and every registered name). A name may stand for several
classes (the native solvers): the registry picks the one whose required capabilities the
template has, so no code outside this module chooses a solver by the template's type.
:func:`get_backend` with ``"auto"`` reads the template's capabilities only (never the data): a
native backend when one fits (L-BFGS + Newton for ``"smooth"``, accelerated projected gradient
for ``"projection"``), else the first CVXPY backend that fits (Clarabel, then SCS), else
:class:`ParameterError`. Native comes first because Clarabel misses the release tolerance on
the PSD cone and is much slower where it meets it
(docs/privacy/large_margin.md#privacy-lm-solver-accuracy); a CVXPY backend or a
:class:`PolishedBackend` stays available by name or object. Backends that need the rows in
memory (``Backend.in_memory``) are never chosen for out-of-core rows (Dask); a request by
name raises :class:`ParameterError`. The shipped backends live in :mod:`dpconvex.solvers`,
which registers them.
"""

from __future__ import annotations

import abc
import enum
from collections.abc import Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

import numpy as np
from threadpoolctl import ThreadpoolController

from ..errors import ParameterError
from ..templates.base import ObjectiveTemplate, Template

__all__ = ["BACKENDS", "CVXPY_STATUS_MAP", "Backend", "PolishedBackend", "SolveResult",
           "SolveStatus", "backend_classes", "backend_names", "check_solver_name", "get_backend",
           "other_backends", "register_backend", "retry_advice", "rows_in_memory",
           "single_threaded", "solve", "suitable_backends"]


#: The registry: every backend class, in order of preference within a name (the native
#: solvers first). :mod:`dpconvex.solvers` registers the shipped ones (``register_backend``).
_CLASSES: list[type[Backend]] = []
#: ``solver=`` name -> backend class (for "native", the first native class; :func:`get_backend`
#: picks among the classes sharing a name by capability).
BACKENDS: dict[str, type[Backend]] = {}


class SolveStatus(enum.Enum):
    """One status set for every backend (as cvxpy's STATUS_MAP per solver).

    Examples
    --------
    >>> from dpconvex.solvers import CVXPY_STATUS_MAP, SolveStatus
    >>> SolveStatus.OPTIMAL.value
    'optimal'
    >>> CVXPY_STATUS_MAP["optimal_inaccurate"]
    <SolveStatus.INACCURATE: 'inaccurate'>
    """

    OPTIMAL = "optimal"
    INACCURATE = "inaccurate"
    MAX_ITERATIONS = "max_iterations"
    FAILED = "failed"
    UNBOUNDED = "unbounded"
    INFEASIBLE = "infeasible"


#: Map of CVXPY problem statuses onto :class:`SolveStatus`.
CVXPY_STATUS_MAP: dict[str, SolveStatus] = {
    "optimal": SolveStatus.OPTIMAL,
    "optimal_inaccurate": SolveStatus.INACCURATE,
    "infeasible": SolveStatus.INFEASIBLE,
    "infeasible_inaccurate": SolveStatus.INFEASIBLE,
    "unbounded": SolveStatus.UNBOUNDED,
    "unbounded_inaccurate": SolveStatus.UNBOUNDED,
    "user_limit": SolveStatus.MAX_ITERATIONS,
    "solver_error": SolveStatus.FAILED,
}


@dataclass
class SolveResult:
    """Outcome of one solve.

    Attributes
    ----------
    x : numpy.ndarray or None
        The solution (parameters), None when the solver produced none.
    status : SolveStatus
    objective : float
        Objective value at ``x`` computed by dpconvex's NumPy code.
    residual : float
        Optimality residual computed by dpconvex (gradient norm, or
        gradient-mapping norm for constrained problems).
    solver : str
    iterations : int
    seconds : float
    info : dict
        Backend-specific details (raw status, ...).

    Examples
    --------
    >>> # template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y): conftest.py
    >>> from dpconvex.solvers import SolveResult, SolveStatus, solve
    >>> res = solve(template)
    >>> isinstance(res, SolveResult), res.status is SolveStatus.OPTIMAL, res.x.shape
    (True, True, (3,))
    >>> sorted(res.summary())
    ['iterations', 'objective', 'residual', 'seconds', 'solver', 'status']
    """

    x: np.ndarray | None
    status: SolveStatus
    objective: float
    residual: float
    solver: str
    iterations: int = 0
    seconds: float = 0.0
    info: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        return {
            "solver": self.solver,
            "status": self.status.value,
            "residual": float(self.residual),
            "objective": float(self.objective),
            "iterations": int(self.iterations),
            "seconds": round(float(self.seconds), 4),
        }


#: The template a backend solves: an :class:`~dpconvex.templates.base.ObjectiveTemplate`
#: with the capabilities in the backend's ``requires`` (e.g. a ``CVXPYTemplate``).
TemplateT = TypeVar("TemplateT", bound="ObjectiveTemplate")


class Backend(abc.ABC, Generic[TemplateT]):
    """A solver backend: what it needs from a template, and how it solves.

    Attributes
    ----------
    name : str
        The ``solver=`` name (several classes may share one, e.g. the native
        solvers: the registry picks the one whose requirements the template meets).
    requires : frozenset of str
        Template capabilities the backend needs (keys of
        :data:`dpconvex.templates.base.CAPABILITY_MEMBERS`).
    in_memory : bool
        Whether it needs the rows in one process's memory (CVXPY canonicalizes the
        whole design matrix). Such a backend refuses a template whose rows are
        out of core (its ``rows`` operator has ``in_memory`` False: a Dask array).

    Examples
    --------
    >>> # template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y): conftest.py
    >>> from dpconvex.solvers import Backend, get_backend
    >>> backend = get_backend("native", template)
    >>> isinstance(backend, Backend), backend.supports(template), backend.label
    (True, True, 'native')
    >>> backend.solve(template, None).status.name
    'OPTIMAL'
    """

    name: ClassVar[str] = ""
    requires: ClassVar[frozenset[str]] = frozenset()
    in_memory: ClassVar[bool] = True
    #: What a certificate states about this backend: the solver(s) that may produce its point
    #: (its :attr:`name` unless the class sets it). A public fact: it depends on the backend,
    #: which the caller or the ``"auto"`` policy chose from public parameters, never on the
    #: solve (a backend that runs a second solver only when the first one's residual misses
    #: the tolerance names both and not which of them ran: docs/privacy/release.md#privacy-release).
    label: str = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "label" not in cls.__dict__:
            cls.label = cls.name

    @abc.abstractmethod
    def solve(self, template: TemplateT, b: np.ndarray | None, extra_reg: float = 0.0, *,
              warm_start: np.ndarray | None = None, max_iter: int | None = None) -> SolveResult:
        """Minimize the template's objective with noise ``b`` and extra strong convexity Δ.

        Parameters
        ----------
        template : Template
            With every capability in ``requires`` (:meth:`admit` checks it first).
        b : ndarray or None
            Noise of shape ``template.space.shape`` (projected onto the noise
            subspace by :meth:`admit`); None means zero.
        extra_reg : float
            Δ >= 0 (objective perturbation's extra regularization).
        warm_start : ndarray or None
            Starting point (backends that cannot warm-start ignore it).
        max_iter : int or None
            Cap on the iterations (None: the backend's default); a capped solve
            is still checked by its residual before anything is released.

        Returns
        -------
        SolveResult
        """

    def admit(self, template: TemplateT, b: np.ndarray | None,
              extra_reg: float) -> tuple[np.ndarray | None, float]:
        """What :meth:`solve` starts with: the template checked (:meth:`check` where it is not
        :meth:`supports`), ``b`` in the noise subspace and Δ a float."""
        if not self.supports(template):
            self.check(template)  # raises, naming what is missing and a backend that fits
        return (None if b is None else template.space.project_noise(b)), float(extra_reg)

    def supports(self, template: Template) -> bool:
        """Whether the template has every capability this backend requires (and its rows
        are in memory, if the backend needs them there)."""
        return (self.requires <= frozenset(getattr(template, "capabilities", ()))
                and not (self.in_memory and not rows_in_memory(template)))

    def check(self, template: Template) -> None:
        """Raise :class:`ParameterError` naming what is missing and a backend that fits."""
        if self.in_memory and not rows_in_memory(template):
            rows = getattr(template, "rows", None)
            fits = other_backends(template, self.name)  # backends that read the rows in place
            use = ("Use " + " or ".join(f"solver={name!r}" for name in fits) + " or solver=None "
                   "(they read the rows through products summed on the workers), or" if fits
                   else "No registered backend reads these rows in place:")
            raise ParameterError(
                f"{type(self).__name__}.check: solver {self.name!r} needs the rows in one "
                "process's "
                "memory (it builds the whole design matrix into its problem), but the template "
                f"'{getattr(template, 'name', template)}' reads them from {rows!r}, which stays "
                "on the "
                f"Dask workers. {use} pass X.compute() if the rows fit in memory."
            )
        have = frozenset(getattr(template, "capabilities", ()))
        missing = self.requires - have
        if not missing:
            return
        fits = other_backends(template, ())
        hint = (f"Use solver={fits[0]!r}" + (f" (or one of {fits[1:]!r})" if fits[1:] else "")
                + "." if fits else "No registered backend can solve it.")
        raise ParameterError(
            f"{type(self).__name__}.check: solver {self.name!r} cannot solve the template "
            f"'{getattr(template, 'name', template)}': missing "
            f"capabilit{'y' if len(missing) == 1 else 'ies'} {sorted(missing)!r} (it has "
            f"{sorted(have)!r}). {hint}"
        )

    @property
    def solvers(self) -> tuple[str, ...]:
        """The registered names of the solvers a solve runs (a polished backend: two)."""
        return (self.name,)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def other_backends(template: Template, failed: Iterable[str] | str) -> list[str]:
    """The registered backends that can solve ``template``, except those that ran and ``failed``.

    Parameters
    ----------
    template : Template
    failed : str or iterable of str
        The solvers that ran: registered names, or a solve's ``SolveResult.solver``
        (``"clarabel+native"``: both).

    Examples
    --------
    >>> # template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y): conftest.py
    >>> from dpconvex.solvers.registry import other_backends
    >>> other_backends(template, "native"), other_backends(template, "clarabel+native")
    (['clarabel', 'scs'], ['scs'])
    """
    ran = set(failed.split("+") if isinstance(failed, str) else failed)
    fits = suitable_backends(template)
    return [name for name in dict.fromkeys(fits) if name not in ran]


def retry_advice(template: Template, failed: Iterable[str] | str) -> str:
    """What to do when the solvers in ``failed`` did not solve ``template`` to its tolerance.

    Names the other registered backends that can solve the template
    (:func:`other_backends`), never one that failed; when there is none, says so and
    names what is left (more iterations, a larger lam). It reads the template's
    capabilities only, never a residual or any other statistic of the data.

    Examples
    --------
    >>> # template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y): conftest.py
    >>> from dpconvex.solvers.registry import retry_advice
    >>> print(retry_advice(template, "clarabel"))
    Try solver='native' or solver='scs' (the other registered backends that can solve this
    template), or raise max_iter if you capped the iterations
    >>> print(retry_advice(template, ["native", "clarabel", "scs"]))
    No other registered backend can solve this template: raise max_iter if you capped the
    iterations, or use a larger lam (a better-conditioned objective)
    """
    others = other_backends(template, failed)
    if others:
        return ("Try " + " or ".join(f"solver={name!r}" for name in others)
                + " (the other registered backends that can solve this template), or raise "
                "max_iter if you capped the iterations")
    return ("No other registered backend can solve this template: raise max_iter if you capped "
            "the iterations, or use a larger lam (a better-conditioned objective)")


def rows_in_memory(template: Template) -> bool:
    """False when the template's rows are out of core (a design operator with ``in_memory`` False).

    Reads the optional member ``rows`` (the templates over a design operator have it;
    a template without it is taken to hold its data in memory).
    """
    return bool(getattr(getattr(template, "rows", None), "in_memory", True))


#: One cached :class:`threadpoolctl.ThreadpoolController`: ``threadpool_limits`` scans every
#: loaded shared library on each call (measured 2.9 ms per call with scikit-learn, SciPy and
#: CVXPY loaded); the controller scans once and its ``limit`` costs about 0.02 ms.
_controller: ThreadpoolController | None = None


def single_threaded(user_api: str | None = None) -> AbstractContextManager:
    """Context manager limiting the BLAS / OpenMP pools (or only ``user_api``) to one thread."""
    global _controller
    if _controller is None:  # lazily: the BLAS libraries are loaded by then
        _controller = ThreadpoolController()
    return _controller.limit(limits=1, user_api=user_api)


def register_backend(backend_class: type[Backend]) -> type[Backend]:
    """Add ``backend_class`` to the registry, after the classes registered before it."""
    _CLASSES.append(backend_class)
    BACKENDS.setdefault(backend_class.name, backend_class)
    return backend_class


def backend_classes(name: Any) -> list[type[Backend]]:
    """The registered classes :func:`get_backend` may build for ``solver=name`` (every one for
    None or "auto"; none for a name nobody registered).

    Examples
    --------
    >>> from dpconvex.solvers import backend_classes
    >>> [cls.__name__ for cls in backend_classes("clarabel")]
    ['ClarabelBackend']
    """
    auto = name is None or name == "auto"
    return [backend_class for backend_class in _CLASSES if auto or backend_class.name == name]


class PolishedBackend(Backend["ObjectiveTemplate"]):
    """A backend whose solution, if it misses the template's tolerance, is polished by another.

    The polish starts from the first solution with the same noise; the result is named
    ``"<first>+<polish>"`` (a diagnostic: whether the polish ran depends on the data) and
    records the first solve (``info["polished_from"]``); a certificate states :attr:`label`,
    which names both. ``"auto"`` never builds one; pass one as the ``backend`` of
    :func:`dpconvex.release` to start from a CVXPY solve.

    Examples
    --------
    >>> # template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y): conftest.py
    >>> from dpconvex.solvers import ClarabelBackend, LbfgsNewton, PolishedBackend
    >>> backend = PolishedBackend(ClarabelBackend(), LbfgsNewton())
    >>> print(backend.label)
    clarabel (polished by native if clarabel's residual missed the tolerance;
    whether it was depends on the data and is not stated)
    >>> res = backend.solve(template, None)
    >>> res.status.name, res.residual <= template.residual_tol
    ('OPTIMAL', True)
    """

    name = "auto"

    def __init__(self, first: Backend, polish: Backend):
        self.first = first
        self.polish = polish
        #: Both solvers, and not which of them produced the point (that depends on the data).
        self.label = (
            f"{first.label} (polished by {polish.label} if {first.label}'s residual "
            "missed the tolerance; whether it was depends on the data and is not stated)"
        )

    def supports(self, template: Template) -> bool:
        return self.first.supports(template) and self.polish.supports(template)

    def check(self, template: Template) -> None:
        self.first.check(template)
        self.polish.check(template)

    @property
    def solvers(self) -> tuple[str, ...]:
        """Both solvers' names (a failed polished solve ran both)."""
        return (*self.first.solvers, *self.polish.solvers)

    def solve(self, template: ObjectiveTemplate, b: np.ndarray | None, extra_reg: float = 0.0,
              *, warm_start: np.ndarray | None = None, max_iter: int | None = None) -> SolveResult:
        if not self.supports(template):  # both, before the first solve
            self.check(template)
        first = self.first.solve(template, b, extra_reg, warm_start=warm_start, max_iter=max_iter)
        if first.x is not None and first.residual <= template.residual_tol:
            return first
        polished = self.polish.solve(template, b, extra_reg, warm_start=first.x, max_iter=max_iter)
        polished.info["polished_from"] = first.summary()
        polished.solver = f"{first.solver}+{polished.solver}"
        polished.seconds += first.seconds
        return polished

    def __repr__(self) -> str:
        return f"PolishedBackend({self.first!r}, {self.polish!r})"


def backend_names() -> tuple[str, ...]:
    """The accepted ``solver=`` names: "auto" and every registered backend name.

    Examples
    --------
    >>> from dpconvex.solvers import backend_names
    >>> names = backend_names()
    >>> names[0], "clarabel" in names
    ('auto', True)
    """
    return ("auto", *BACKENDS)


def check_solver_name(solver: Any, owner: str) -> str | None:
    """Return ``solver`` if it is None, "auto" or a registered name; else raise ParameterError.

    Examples
    --------
    >>> from dpconvex import ParameterError
    >>> from dpconvex.solvers import check_solver_name
    >>> check_solver_name("auto", "demo"), check_solver_name(None, "demo")
    ('auto', None)
    >>> try:
    ...     check_solver_name("gurobi", "demo")
    ... except ParameterError:
    ...     print("unknown solver")
    ...
    unknown solver
    """
    if solver is not None and (not isinstance(solver, str) or solver not in backend_names()):
        raise ParameterError(
            f"The 'solver' parameter of {owner} must be one of {[None, *backend_names()]!r}. "
            f"Got {solver!r} instead."
        )
    return solver


def suitable_backends(template: Template) -> list[str]:
    """Names of the registered backends whose requirements the template meets.

    Examples
    --------
    >>> # template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y): conftest.py
    >>> from dpconvex.solvers import suitable_backends
    >>> suitable_backends(template)
    ['native', 'clarabel', 'scs']
    """
    names: list[str] = []
    for backend_class in _CLASSES:
        if backend_class.name not in names and backend_class().supports(template):
            names.append(backend_class.name)
    return names


def get_backend(name: str | None, template: Template) -> Backend:
    """The backend for ``solver=name`` on ``template``; None or "auto": the policy of the module
    docstring (the native solver where one fits, else CVXPY).

    Raises
    ------
    ParameterError
        Unknown name, or a backend whose required capabilities the template
        lacks (the message names them and a backend that fits).

    Examples
    --------
    >>> from dpconvex.data.preprocess import augment_and_scale
    >>> from dpconvex.templates import LargeMarginGaussianTemplate, LinearERMTemplate
    >>> # template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y): conftest.py
    >>> from dpconvex.solvers import get_backend
    >>> type(get_backend("auto", template)).__name__   # smooth and unconstrained: L-BFGS + Newton
    'LbfgsNewton'
    >>> type(get_backend("clarabel", template)).__name__
    'ClarabelBackend'
    >>> psd = LargeMarginGaussianTemplate(augment_and_scale(X / 2, 1.0), np.arange(40) % 2,
    ...                                   n_classes=2, lam=0.1)
    >>> sorted(psd.capabilities), type(get_backend(None, psd)).__name__   # over the PSD cone
    (['cvxpy', 'objective', 'projection'], 'ProjectedGradient')
    """
    for backend_class in backend_classes(name):  # "auto": every class, the native ones first
        if (backend := backend_class()).supports(template):
            return backend
    check_solver_name(name, "get_backend")  # a name nobody registered: no class to build
    have = sorted(getattr(template, "capabilities", ()))
    if name is None or name == "auto":
        requirements = sorted(
            {tuple(sorted(backend_class.requires)) for backend_class in _CLASSES}
        )
        raise ParameterError(
            f"get_backend: no registered solver backend can solve the template "
            f"'{getattr(template, 'name', template)}' (capabilities {have!r}); the "
            f"backends need one of {requirements!r}.")
    candidates = [backend_class() for backend_class in backend_classes(name)]
    if len(candidates) > 1:
        needs = " or ".join(repr(sorted(candidate.requires)) for candidate in candidates)
        fits = suitable_backends(template)
        raise ParameterError(
            f"get_backend: solver {name!r} cannot solve the template "
            f"'{getattr(template, 'name', template)}'"
            f": it needs the capabilities {needs}; the template has {have!r}. "
            + (f"Use solver={fits[0]!r}." if fits else "No registered backend can solve it.")
        )
    candidates[0].check(template)  # raises, naming what is missing
    return candidates[0]  # pragma: no cover


def solve(template: ObjectiveTemplate, b: np.ndarray | None = None, extra_reg: float = 0.0, *,
          solver: str | None = "auto", warm_start: np.ndarray | None = None,
          max_iter: int | None = None) -> SolveResult:
    """Minimize ``template``'s objective with noise ``b`` and extra strong convexity Δ.

    ``get_backend(solver, template).solve(template, b, extra_reg, ...)``; see
    :meth:`dpconvex.solvers.registry.Backend.solve`.

    Examples
    --------
    >>> # template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y): conftest.py
    >>> from dpconvex.solvers import solve
    >>> res = solve(template)
    >>> res.status.name, res.residual <= template.residual_tol
    ('OPTIMAL', True)
    >>> noisy = solve(template, b=np.ones(3), extra_reg=0.05, solver="clarabel")
    >>> noisy.status.name
    'OPTIMAL'
    """
    return get_backend(solver, template).solve(template, b, extra_reg, warm_start=warm_start,
                                               max_iter=max_iter)
