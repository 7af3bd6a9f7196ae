"""The one registry of solver backends and the one ``"auto"`` policy.

``solver=`` names: :func:`backend_names` (``"auto"`` and every registered name). A name may
stand for several classes (the native solvers): the registry picks the one whose required
capabilities the template has, so no code outside this module chooses a solver by the
template's type.

:func:`get_backend` with ``"auto"`` reads the template's capabilities only (never the data): a native
backend when one fits (L-BFGS + Newton for ``"smooth"``, accelerated projected gradient for
``"projection"``), else the first CVXPY backend that fits (Clarabel, then SCS), else
:class:`ParameterError`. Native comes first because Clarabel misses the release tolerance
on the PSD cone and is much slower where it meets it
(docs/privacy/large_margin.md#privacy-lm-solver-accuracy); a CVXPY backend or a
:class:`PolishedBackend` stays available by name or object. Backends that need the rows in
memory (``Backend.in_memory``) are never chosen for out-of-core rows (Dask); a request by
name raises :class:`ParameterError`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ParameterError

if TYPE_CHECKING:
    from ..templates.base import ObjectiveTemplate, Template

from .base import BACKEND_FINDERS, Backend, SolveResult
from .cvxpy_backend import ClarabelBackend, SCSBackend
from .lbfgs_newton import LbfgsNewton
from .projected_gradient import ProjectedGradient

__all__ = [
    "BACKENDS",
    "SOLVERS",
    "PolishedBackend",
    "backend_names",
    "check_solver_name",
    "get_backend",
    "solve",
    "suitable_backends",
]

#: Every backend class, in order of preference within a name.
_CLASSES: tuple[type[Backend], ...] = (LbfgsNewton, ProjectedGradient, ClarabelBackend,
                                       SCSBackend)

#: The registry: ``solver=`` name -> backend class (for "native", the first native
#: class; :func:`get_backend` picks among the classes sharing a name by capability).
BACKENDS: dict[str, type[Backend]] = {}
for _cls in _CLASSES:
    BACKENDS.setdefault(_cls.name, _cls)

#: The registered names (the ``solver=`` values besides None and "auto").
SOLVERS: tuple[str, ...] = tuple(BACKENDS)


class PolishedBackend(Backend["ObjectiveTemplate"]):
    """A backend whose solution, if it misses the template's tolerance, is polished by another.

    The polish starts from the first solution with the same noise; the result is named
    ``"<first>+<polish>"`` (a diagnostic: whether the polish ran depends on the data) and
    records the first solve (``info["polished_from"]``); a certificate states :attr:`label`,
    which names both. ``"auto"`` never builds one; pass one as the ``backend`` of
    :func:`dpconvex.release` to start from a CVXPY solve.

    Examples
    --------
    >>> from dpconvex.objectives import Logistic
    >>> from dpconvex.templates import LinearERMTemplate
    >>> template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y)
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
        self.label = (f"{first.label} (polished by {polish.label} if {first.label}'s residual "
                      "missed the tolerance; whether it was depends on the data and is not stated)")

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
        polished = self.polish.solve(template, b, extra_reg, warm_start=first.x,
                                     max_iter=max_iter)
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
    >>> from dpconvex.objectives import Logistic
    >>> from dpconvex.templates import LinearERMTemplate
    >>> template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y)
    >>> from dpconvex.solvers import suitable_backends
    >>> suitable_backends(template)
    ['native', 'clarabel', 'scs']
    """
    names: list[str] = []
    for backend_class in _CLASSES:
        if backend_class.name not in names and backend_class().supports(template):
            names.append(backend_class.name)
    return names


BACKEND_FINDERS.append(suitable_backends)


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
    >>> from dpconvex.objectives import Logistic
    >>> from dpconvex.templates import LargeMarginGaussianTemplate, LinearERMTemplate
    >>> template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y)
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
    auto = name is None or name == "auto"
    if not auto:
        check_solver_name(name, "get_backend")
    for backend_class in _CLASSES:  # "auto": every class, the native ones first
        if (auto or backend_class.name == name) and (backend := backend_class()).supports(template):
            return backend
    have = sorted(getattr(template, "capabilities", ()))
    if auto:
        requirements = sorted({tuple(sorted(backend_class.requires)) for backend_class in _CLASSES})
        raise ParameterError(
            f"get_backend: no registered solver backend can solve the template "
            f"'{getattr(template, 'name', template)}' (capabilities {have!r}); the "
            f"backends need one of {requirements!r}.")
    candidates = [backend_class() for backend_class in _CLASSES if backend_class.name == name]
    if len(candidates) > 1:
        needs = " or ".join(repr(sorted(candidate.requires)) for candidate in candidates)
        fits = suitable_backends(template)
        raise ParameterError(
            f"get_backend: solver {name!r} cannot solve the template "
            f"'{getattr(template, 'name', template)}': "
            f"it needs the capabilities {needs}; the template has {have!r}. "
            + (f"Use solver={fits[0]!r}." if fits else "No registered backend can solve it.")
        )
    candidates[0].check(template)  # raises, naming what is missing
    return candidates[0]  # pragma: no cover


def solve(template: ObjectiveTemplate, b: np.ndarray | None = None, extra_reg: float = 0.0, *,
          solver: str | None = "auto", warm_start: np.ndarray | None = None,
          max_iter: int | None = None) -> SolveResult:
    """Minimize ``template``'s objective with noise ``b`` and extra strong convexity Δ.

    ``get_backend(solver, template).solve(template, b, extra_reg, ...)``; see
    :meth:`dpconvex.solvers.base.Backend.solve`.

    Examples
    --------
    >>> from dpconvex.objectives import Logistic
    >>> from dpconvex.templates import LinearERMTemplate
    >>> template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y)
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
