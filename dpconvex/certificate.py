"""Privacy certificates: what was guaranteed, and how each condition was established."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["Certificate", "Condition"]


@dataclass(frozen=True)
class Condition:
    """One condition of a privacy proof.

    Attributes
    ----------
    name : str
        Short name, e.g. ``"strong convexity"``.
    holds : bool
        Whether the condition was established.
    how : str
        How it was established: ``"declared"``, ``"numerical probe"``,
        ``"CVXPY DCP analysis"``, ``"computed from public parameters"``,
        ``"assumption"``.
    detail : str
        The value or reasoning, readable.
    """

    name: str
    holds: bool
    how: str
    detail: str = ""


@dataclass
class Certificate:
    """A record of the privacy guarantee a release carries.

    Attributes
    ----------
    mechanism : str
        E.g. ``"objective perturbation (CMS Alg. 2)"``.
    epsilon_requested : float
        The ε the user asked for.
    epsilon : float
        The ε actually guaranteed (never above ``epsilon_requested``);
        ``inf`` for a non-private fit.
    delta : float
        The δ of an (ε, δ) guarantee (0 for pure ε-DP).
    private : bool
        False for the explicit non-private baseline.
    conditions : list of Condition
        Every condition of the proof and how it was established.
    quantities : dict
        Derived constants (sensitivity, slack, noise rate, ...), all computed
        from public parameters.
    assumptions : list of str
        What the guarantee assumes (adjacency notion, preprocessing, ...).
    solver : dict
        Solver name, status and optimality residual of the released solve.
    parts : list of Certificate
        Sub-mechanisms composed into this one (budget splits).
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

    @property
    def all_hold(self) -> bool:
        """True when every listed condition holds."""
        return all(c.holds for c in self.conditions) and all(p.all_hold for p in self.parts)

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python dict (JSON serializable)."""
        d = asdict(self)
        return json.loads(json.dumps(d, default=_jsonable))

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
            for k, v in self.quantities.items():
                lines.append(f"    {k} = {_fmt(v)}")
        if self.solver:
            lines.append("  solver: " + ", ".join(f"{k}={_fmt(v)}" for k, v in self.solver.items()))
        if self.assumptions:
            lines.append("  assumptions:")
            for a in self.assumptions:
                lines.append(f"    - {a}")
        for p in self.parts:
            sub = str(p).splitlines()
            lines.append("  part: " + sub[0])
            lines.extend("    " + s for s in sub[1:])
        return "\n".join(lines)


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


def _jsonable(o: Any) -> Any:
    if hasattr(o, "tolist"):
        return o.tolist()
    if isinstance(o, float) and not math.isfinite(o):
        return str(o)
    return str(o)
