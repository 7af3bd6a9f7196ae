"""Privacy certificates: what was guaranteed, and how each condition was established."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ..errors import PrivacyError

__all__ = ["Certificate", "Condition", "compose_parallel", "compose_sequential"]


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
    unverified : str
        The name of a declared constant this condition rests on and nobody verified
        (e.g. ``"curvature"``), or ``""``. :func:`~dpconvex.privacy.release.release`
        refuses such a condition unless the caller vouches for that constant
        (``vouch=``), and the certificate then says so.

    Examples
    --------
    >>> from dpconvex import Condition
    >>> c = Condition("strong convexity", True, "declared", "mu = 0.1")
    >>> c.holds, c.how, c.unverified
    (True, 'declared', '')
    """

    name: str
    holds: bool
    how: str
    detail: str = ""
    unverified: str = ""


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

    Examples
    --------
    >>> from dpconvex import Certificate, Condition
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


def _accounting(parts: Sequence[Certificate], rule: str) -> tuple[float, float, str]:
    if rule == "sequential":
        eps = math.fsum(p.epsilon for p in parts)
        delta = math.fsum(p.delta for p in parts)
        how = " + ".join(f"{p.epsilon:.6g}" for p in parts)
    else:
        eps = max(p.epsilon for p in parts)
        delta = max(p.delta for p in parts)
        how = "max(" + ", ".join(f"{p.epsilon:.6g}" for p in parts) + ")"
    return eps, delta, how


def _compose(rule: str, parts: Sequence[Certificate], *, mechanism: str,
             epsilon_requested: float, delta_requested: float | None,
             conditions: Sequence[Condition], quantities: dict[str, Any] | None,
             assumptions: Sequence[str], solver: dict[str, Any] | None,
             labels: Sequence[str] | None, private: bool | None = None) -> Certificate:
    parts = list(parts)
    if not parts:
        caller = f"compose_{rule}"
        raise PrivacyError(f"{caller}: no certificates, nothing to compose. Pass at least one part.")
    private = all(p.private for p in parts) and private is not False
    eps, delta, how = _accounting(parts, rule)
    if not private:
        eps = math.inf
    names = list(labels) if labels is not None else [p.mechanism for p in parts]
    detail = (f"{how} = {eps:.6g} <= {epsilon_requested:g}" if private
              else "a part is not private: no guarantee")
    ok = (not private) or eps <= epsilon_requested
    if delta_requested is not None and private:
        ok = ok and delta <= delta_requested * (1 + 1e-12)
    accounting = Condition(
        "epsilon accounting", ok, f"{rule} composition",
        detail + (f" ({'; '.join(names)})" if labels is not None else ""))
    if private and not ok:
        caller = f"compose_{rule}"
        raise PrivacyError(
            f"{caller}: the parts spend epsilon = {eps:.6g}, delta = {delta:.3g} > the "
            f"requested epsilon = {epsilon_requested:g}; nothing is released.")
    return Certificate(
        mechanism=mechanism,
        epsilon_requested=epsilon_requested,
        epsilon=eps,
        delta=delta if private else 0.0,
        private=private,
        conditions=[accounting, *conditions],
        quantities=dict(quantities or {}),
        assumptions=list(assumptions),
        solver=dict(solver or {}),
        parts=parts,
    )


def compose_sequential(parts: Sequence[Certificate], *, mechanism: str, epsilon_requested: float,
                       delta_requested: float | None = None,
                       conditions: Sequence[Condition] = (),
                       quantities: dict[str, Any] | None = None,
                       assumptions: Sequence[str] = (), solver: dict[str, Any] | None = None,
                       labels: Sequence[str] | None = None,
                       private: bool | None = None) -> Certificate:
    """Certificate of mechanisms run one after another on the same data (basic composition).

    ε and δ add up (Dwork & Roth 2014, Thm. 3.16; adaptive choice of later
    mechanisms allowed). A part that is not private makes the whole not private.

    Parameters
    ----------
    parts : sequence of Certificate
    mechanism : str
        Name of the composed release.
    epsilon_requested : float
        The ε the caller asked for; the composition must not exceed it
        (raises :class:`~dpconvex.errors.PrivacyError`).
    delta_requested : float or None
        The δ asked for, checked likewise when given.
    conditions, quantities, assumptions, solver
        Extra entries of the composed certificate.
    labels : sequence of str or None
        Short names of the parts for the accounting line.
    private : bool or None
        False marks the whole as not private although every part is (e.g. a
        non-private preprocessing step that has no certificate of its own).

    Returns
    -------
    Certificate

    Examples
    --------
    >>> from dpconvex import Certificate
    >>> from dpconvex.privacy.certificate import compose_sequential
    >>> a = Certificate("histogram", epsilon_requested=0.25, epsilon=0.25)
    >>> b = Certificate("model", epsilon_requested=0.75, epsilon=0.75, delta=1e-6)
    >>> total = compose_sequential([a, b], mechanism="histogram, then model", epsilon_requested=1.0)
    >>> total.epsilon, total.delta, len(total.parts)
    (1.0, 1e-06, 2)
    """
    return _compose("sequential", parts, mechanism=mechanism,
                    epsilon_requested=epsilon_requested, delta_requested=delta_requested,
                    conditions=conditions, quantities=quantities, assumptions=assumptions,
                    solver=solver, labels=labels, private=private)


def compose_parallel(parts: Sequence[Certificate], *, mechanism: str, epsilon_requested: float,
                     delta_requested: float | None = None,
                     conditions: Sequence[Condition] = (),
                     quantities: dict[str, Any] | None = None,
                     assumptions: Sequence[str] = (), solver: dict[str, Any] | None = None,
                     labels: Sequence[str] | None = None) -> Certificate:
    """Certificate of mechanisms run on disjoint parts of the data (parallel composition).

    ε and δ are the maxima over the parts (McSherry 2009, Thm. 4; replace-one
    adjacency touches one part). Parameters as :func:`compose_sequential`.

    Examples
    --------
    >>> from dpconvex import Certificate
    >>> from dpconvex.privacy.certificate import compose_parallel
    >>> parts = [Certificate("model", epsilon_requested=1.0, epsilon=1.0) for _ in range(3)]
    >>> total = compose_parallel(parts, mechanism="one model per disjoint part", epsilon_requested=1.0)
    >>> total.epsilon, len(total.parts)
    (1.0, 3)
    """
    return _compose("parallel", parts, mechanism=mechanism,
                    epsilon_requested=epsilon_requested, delta_requested=delta_requested,
                    conditions=conditions, quantities=quantities, assumptions=assumptions,
                    solver=solver, labels=labels)
