"""The parameter constraints that read the loss and solver registries.

The generic constraints (:class:`~dpconvex._validation.Float`, ``Int``, ``Options``,
...) live in :mod:`dpconvex._validation`, below every registry; these two name a
registered loss or solver, so they live with the estimators that take them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._validation import Constraint, Options, _is_one_of
from ..data.row_scaling import ROW_NORMS
from ..objectives.losses import Loss
from ..solvers.registry import check_solver_name

__all__ = ["ROW_NORM", "SOLVER", "LossParameter", "Solver"]


@dataclass(frozen=True)
class LossParameter(Constraint):
    """A loss named in ``names`` or a :class:`dpconvex.objectives.Loss` instance.

    Examples
    --------
    >>> str(LossParameter(("huber", None)))
    "one of 'huber', None or a dpconvex.objectives.Loss instance"
    """

    names: tuple[Any, ...]
    #: Also a callable stating the loss in CVXPY atoms (``lambda m: cp.pos(1 - m)``), which
    #: the estimator compiles with :meth:`dpconvex.objectives.Loss.from_cvxpy`.
    callables: bool = False

    def check(self, name: str, value: Any, owner: str) -> Any:
        stated = self.callables and callable(value) and not isinstance(value, (Loss, type))
        if not (stated or isinstance(value, Loss) or _is_one_of(value, list(self.names))):
            raise self.refusal(name, value, owner)
        return value

    def __str__(self) -> str:
        names = ", ".join(map(repr, self.names))
        stated = ", a callable stating it in CVXPY atoms" if self.callables else ""
        return f"one of {names}{stated} or a dpconvex.objectives.Loss instance"


@dataclass(frozen=True)
class Solver(Constraint):
    """None or the name of a registered solver backend, by
    :func:`dpconvex.solvers.check_solver_name` (the registry is read at check time)."""

    def check(self, name: str, value: Any, owner: str) -> str | None:
        return check_solver_name(value, owner)

    def __str__(self) -> str:
        return "None or a registered solver name (dpconvex.solvers.backend_names())"


#: The solver backend (None: the native solver).
SOLVER = Solver()


#: ``row_norm`` of the linear learners and the class centroids: "unit" scales every
#: non-zero row to the norm bound (a per-record public map,
#: docs/privacy/row_scaling.md#privacy-row-norm-unit), "none" only clips.
ROW_NORM = Options(ROW_NORMS)


@dataclass(frozen=True)
class Vouch(Constraint):
    """A tuple of the constant names a caller may vouch for
    (:data:`dpconvex.privacy.declarations.VOUCHABLE`).

    Examples
    --------
    >>> from dpconvex.estimators.constraints import Vouch
    >>> Vouch().check("vouch", ["curvature"], "Demo")
    ('curvature',)
    """

    def check(self, name: str, value: Any, owner: str) -> Any:
        from ..privacy.declarations import VOUCHABLE

        items = (value,) if isinstance(value, str) else value
        if not isinstance(items, (tuple, list)) or any(v not in VOUCHABLE for v in items):
            raise self.refusal(name, value, owner)
        return tuple(items)

    def __str__(self) -> str:
        return "a tuple of names from dpconvex.privacy.declarations.VOUCHABLE"


@dataclass(frozen=True)
class ParameterSet(Constraint):
    """None, or a callable taking the coefficient variable and returning CVXPY constraints.

    Examples
    --------
    >>> from dpconvex.estimators.constraints import ParameterSet
    >>> ParameterSet().check("constraints", None, "Demo") is None
    True
    """

    def check(self, name: str, value: Any, owner: str) -> Any:
        if value is not None and not callable(value):
            raise self.refusal(name, value, owner)
        return value

    def __str__(self) -> str:
        return ("None or a callable taking the coefficient variable (a cvxpy.Variable) and "
                "returning a list of CVXPY constraints")
