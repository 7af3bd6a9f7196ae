"""Compatibility layer over :mod:`dpconvex.privacy` (the mechanisms' home since the architecture step).

``fit_template`` is :func:`dpconvex.privacy.release.release` with the old
keyword interface; ``Prepared`` is what an estimator builds before it spends
budget (shared by :func:`dpconvex.epsilon_sweep`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._random import RandomStateLike
from ._validation import check_float
from .certificate import Certificate
from .privacy.budget import Budget
from .privacy.mechanisms import build_mechanism, coordinate_scale, require_accurate
from .privacy.release import release
from .solvers.base import SolveResult

__all__ = ["Prepared", "coordinate_scale", "fit_template", "require_accurate"]


@dataclass
class Prepared:
    """What a fit builds before it spends any budget: the template and its metadata.

    ``template`` is the declarative problem on validated, clipped data; ``meta``
    holds what the estimator needs to set its fitted attributes. ``reusable`` is
    False when building it drew on the budget or on randomness that belongs to one
    fit (e.g. DP k-means component assignment), so a sweep must rebuild it per fit.
    """

    template: Any
    meta: dict[str, Any] = field(default_factory=dict)
    reusable: bool = True


def fit_template(
    template: Any,
    *,
    epsilon: float,
    mechanism: str,
    solver: str | None,
    random_state: RandomStateLike = None,
    warm_start: np.ndarray | None = None,
    optimality_tol: float | None = None,
    amp_fraction: float = 0.1,
    max_iter: int | None = None,
    delta: float = 0.0,
) -> tuple[np.ndarray, Certificate, SolveResult | None]:
    """Verify, calibrate, draw noise, solve and check: :func:`~dpconvex.privacy.release.release`.

    Parameters
    ----------
    template : Template
    epsilon : float
        Requested ε (ignored for ``mechanism="none"``).
    mechanism : str
        A registered mechanism name (``"objective"``, ``"output"``, ``"none"``).
    solver : str or None
        Backend name (None or "auto": the registry's policy).
    random_state : None, int or Generator
    warm_start : ndarray, optional
    optimality_tol : float or None
        A float γ: approximate-minima perturbation (docs/privacy.md §5).
    amp_fraction : float
    max_iter : int or None
    delta : float, default=0.0
        δ of an (ε, δ) mechanism (``"gaussian_objective"``, ``"gaussian_output"``, ...);
        0 for the pure ones (the mechanism's budget check names what to change).

    Returns
    -------
    theta, certificate, result
        ``result`` is a NOT-private diagnostic of the solve.
    """
    mech = build_mechanism(mechanism, "fit_template", None, optimality_tol=optimality_tol,
                           amp_fraction=amp_fraction)
    if mech.private:
        check_float("delta", delta, "fit_template", low_inclusive=True, high=1.0)
    budget = Budget(float(epsilon), float(delta)) if mech.private else Budget(math.inf)
    rel = release(template, mech, budget, solver, random_state, warm_start=warm_start,
                  max_iter=max_iter)
    return rel.theta, rel.certificate, rel.diagnostics
