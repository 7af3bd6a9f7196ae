"""The status set, the result record and the :class:`Backend` base class (package docstring)."""

from __future__ import annotations

import abc
import enum
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

import numpy as np
from threadpoolctl import ThreadpoolController

from ..errors import ParameterError

if TYPE_CHECKING:
    from ..templates.base import ObjectiveTemplate, Template

#: Functions naming the registered backends that can solve a template; the registry
#: (:mod:`dpconvex.solvers.registry`) adds its finder when imported, so that a
#: backend's refusal can name one that fits without this module importing the registry.
BACKEND_FINDERS: list[Callable[[Template], list[str]]] = []


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
    >>> from dpconvex.objectives import Logistic
    >>> from dpconvex.templates import LinearERMTemplate
    >>> template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y)
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
    >>> from dpconvex.objectives import Logistic
    >>> from dpconvex.templates import LinearERMTemplate
    >>> template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y)
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
            use = ("Use " + " or ".join(f"solver={name!r}" for name in fits) + " or 'auto' "
                   "(they read the rows through products summed on the workers), or" if fits
                   else "No registered backend reads these rows in place:")
            raise ParameterError(
                f"{type(self).__name__}.check: solver {self.name!r} needs the rows in one "
                "process's memory (it builds the "
                f"whole design matrix into its problem), but the template "
                f"'{getattr(template, 'name', template)}' reads them from {rows!r}, which stays "
                f"on the Dask workers. {use} pass X.compute() if the rows fit in memory."
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
    >>> from dpconvex.objectives import Logistic
    >>> from dpconvex.templates import LinearERMTemplate
    >>> template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y)
    >>> from dpconvex.solvers.base import other_backends
    >>> other_backends(template, "native"), other_backends(template, "clarabel+native")
    (['clarabel', 'scs'], ['scs'])
    """
    ran = set(failed.split("+") if isinstance(failed, str) else failed)
    fits = [name for finder in BACKEND_FINDERS for name in finder(template)]
    return [name for name in dict.fromkeys(fits) if name not in ran]


def retry_advice(template: Template, failed: Iterable[str] | str) -> str:
    """What to do when the solvers in ``failed`` did not solve ``template`` to its tolerance.

    Names the other registered backends that can solve the template
    (:func:`other_backends`), never one that failed; when there is none, says so and
    names what is left (more iterations, a larger lam). It reads the template's
    capabilities only, never a residual or any other statistic of the data.

    Examples
    --------
    >>> from dpconvex.objectives import Logistic
    >>> from dpconvex.templates import LinearERMTemplate
    >>> template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y)
    >>> from dpconvex.solvers.base import retry_advice
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
