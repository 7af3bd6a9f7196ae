"""Releases of one number or one index: a bounded mean (Laplace) and a selection (exponential).

``"laplace_mean"`` ([DMNS06]_; docs/privacy/front_door_regression.md#privacy-private-mean)
    For n values in [−b, b] with n public, replacing one record moves the mean by at most
    2b/n; adding Laplace noise of scale 2b/(nε), snapping to the scale's public grid and
    clipping to [−b, b] (both post-processing) is ε-DP.
``"exponential"`` ([MT07]_; private selection, [CMS11]_ Alg. 4)
    Index i is chosen with probability ∝ exp(ε u_i / (2 Δu)); with utilities of
    sensitivity Δu this is ε-DP.

References
----------
.. [DMNS06] C. Dwork, F. McSherry, K. Nissim, A. Smith. Calibrating Noise to Sensitivity in
   Private Data Analysis. TCC 2006.
.. [MT07] F. McSherry, K. Talwar. Mechanism Design via Differential Privacy. FOCS 2007.
.. [CMS11] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially Private Empirical
   Risk Minimization. JMLR 12 (2011), Alg. 4.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...solvers.base import Backend, SolveResult
from ..budget import Budget
from ..certificate import Certificate, Condition
from ..noise import Laplace, exponential_mechanism
from .base import Calibration, Mechanism, register

if TYPE_CHECKING:
    from ...templates.statistics import BoundedMeanTemplate, SelectionTemplate

__all__ = ["Exponential", "LaplaceMean", "mean_sensitivity"]


def mean_sensitivity(n: int, bound: float = 1.0) -> float:
    """2b/n: the replace-one sensitivity of the mean of n values in [−b, b] (n public).

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.scalar import mean_sensitivity
    >>> mean_sensitivity(100)
    0.02
    """
    return 2.0 * float(bound) / int(n)


@register
class LaplaceMean(Mechanism["BoundedMeanTemplate"]):
    """The mean of n values in [−1, 1] plus Laplace(2/(nε)) noise, snapped, clipped to [−1, 1].

    Examples
    --------
    >>> from dpconvex import Budget, release
    >>> from dpconvex.templates.statistics import BoundedMeanTemplate
    >>> released = release(BoundedMeanTemplate(50.0, n=100), "laplace_mean", Budget(1.0), rng=0)
    >>> abs(float(released.theta[0]) - 0.5) < 0.2, released.certificate.epsilon
    (True, 1.0)
    """

    name = "laplace_mean"
    needs = frozenset({"bounded_sum"})
    solves = False
    placement = "sum"

    def conditions(self, template: BoundedMeanTemplate, budget: Budget) -> list[Condition]:
        return [Condition(
            "mean sensitivity", True, "computed from public parameters",
            f"each of the n = {template.n} values lies in [-{template.bound:g}, "
            f"{template.bound:g}] (public per-record maps), so replacing one record moves "
            f"the mean by at most 2b/n = {mean_sensitivity(template.n, template.bound):.4g}")]

    def calibrate(self, template: BoundedMeanTemplate, budget: Budget) -> Calibration:
        sens = mean_sensitivity(template.n, template.bound)
        return Calibration(
            mechanism=self.name, epsilon_requested=budget.epsilon, sensitivity=sens,
            noise_rate=budget.epsilon / sens,
            extra={"laplace scale": sens / budget.epsilon})

    def certificate(self, template: BoundedMeanTemplate, budget: Budget, cal: Calibration | None,
                    conditions: list[Condition]) -> Certificate:
        assert cal is not None
        return Certificate(
            mechanism="Laplace mechanism on the mean of the labels mapped onto [-1, 1] "
                      "(Dwork et al. 2006), snapped to the public grid of its scale, clipped to "
                      "[-1, 1]",
            epsilon_requested=budget.epsilon, epsilon=budget.epsilon, private=True,
            conditions=list(conditions),
            quantities={"mean sensitivity": cal.sensitivity,
                        "laplace scale": cal.extra["laplace scale"], "records": template.n})

    def run(self, template: BoundedMeanTemplate, cal: Calibration | None, backend: Backend,
            rng: np.random.Generator, *, warm_start: np.ndarray | None = None,
            max_iter: int | None = None, tol: float | None = None
            ) -> tuple[np.ndarray, SolveResult | None, bool]:
        assert cal is not None
        noisy = Laplace(cal.extra["laplace scale"]).add(np.array([template.total / template.n]), rng)
        bound = float(template.bound)
        return np.clip(noisy, -bound, bound), None, False


@register
class Exponential(Mechanism["SelectionTemplate"]):
    """Private selection of one candidate by its utility.

    The candidates and utilities are those of a
    :class:`~dpconvex.templates.statistics.SelectionTemplate`.

    Examples
    --------
    >>> from dpconvex import Budget, release
    >>> from dpconvex.privacy.mechanisms import get_mechanism
    >>> from dpconvex.templates.statistics import SelectionTemplate
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
            mechanism=self.name, epsilon_requested=budget.epsilon, sensitivity=template.sensitivity,
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
