"""The exponential mechanism (McSherry & Talwar, FOCS 2007) for private selection (CMS Alg. 4).

Index i is chosen with probability ∝ exp(ε u_i / (2 Δu)); with utilities of
sensitivity Δu this is ε-DP.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...solvers.base import Backend, SolveResult
from ..budget import Budget
from ..certificate import Certificate, Condition
from ..noise import exponential_mechanism
from .base import Calibration, Mechanism, register

if TYPE_CHECKING:
    from ...templates.selection import SelectionTemplate

__all__ = ["Exponential"]


@register
class Exponential(Mechanism["SelectionTemplate"]):
    """Private selection of one candidate by its utility.

    The candidates and utilities are those of a
    :class:`~dpconvex.templates.selection.SelectionTemplate`.

    Examples
    --------
    >>> from dpconvex import Budget, release
    >>> from dpconvex.privacy.mechanisms import get_mechanism
    >>> from dpconvex.templates.selection import SelectionTemplate
    >>> template = SelectionTemplate([0.1, 0.5, 30.0], sensitivity=1.0, n=40)
    >>> mech = get_mechanism("exponential")
    >>> mech.pure, mech.solves
    (True, False)
    >>> release(template, mech, Budget(1.0), rng=0).theta
    array([2])
    """

    name = "exponential"
    needs = frozenset({"utilities"})
    solves = False

    def conditions(self, template: SelectionTemplate, budget: Budget) -> list[Condition]:
        return [Condition(
            "utility sensitivity", True, "computed from public parameters",
            template.description)]

    def calibrate(self, template: SelectionTemplate, budget: Budget) -> Calibration:
        return Calibration(
            mechanism=self.name, epsilon_requested=budget.epsilon, epsilon=budget.epsilon,
            epsilon_noise=budget.epsilon, slack=0.0, extra_strong_convexity=0.0,
            sensitivity=template.sensitivity,
            noise_rate=budget.epsilon / (2.0 * template.sensitivity))

    def certificate(self, template: SelectionTemplate, budget: Budget, cal: Calibration | None,
                    conditions: list[Condition]) -> Certificate:
        return Certificate(
            mechanism="exponential mechanism (McSherry & Talwar 2007) on the held-out part",
            epsilon_requested=budget.epsilon, epsilon=budget.epsilon, private=True,
            conditions=list(conditions),
            quantities={"utility sensitivity": template.sensitivity,
                        "selection probability": "proportional to exp(-epsilon * z_i / 2)",
                        "validation size": template.n},
        )

    def run(self, template: SelectionTemplate, cal: Calibration | None, backend: Backend,
            rng: np.random.Generator, *, warm_start: np.ndarray | None = None,
            max_iter: int | None = None, tol: float | None = None
            ) -> tuple[np.ndarray, SolveResult | None, bool]:
        assert cal is not None
        idx = exponential_mechanism(template.utilities, cal.epsilon,
                                    sensitivity=template.sensitivity, random_state=rng)
        return np.array([idx]), None, False
