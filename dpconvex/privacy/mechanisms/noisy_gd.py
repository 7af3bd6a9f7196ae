"""Noisy projected gradient descent: T adaptively composed Gaussian mechanisms.

Each step releases the mean of per-example gradients clipped to norm C plus
N(0, s² I), s = z · 2C/n; ``dp_accounting`` calibrates z for the T-fold
composition (:mod:`dpconvex.privacy.accounting.gaussian`, docs/privacy.md §6.3).
Projection onto the ball and averaging of the iterates are post-processing.

References
----------
.. [ACG+16] M. Abadi et al. Deep Learning with Differential Privacy. CCS 2016.
.. [BST14] R. Bassily, A. Smith, A. Thakurta. Private Empirical Risk
   Minimization: Efficient Algorithms and Tight Error Bounds. FOCS 2014.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...errors import ParameterError
from ...noise import snap
from ...solvers.base import SolveResult
from ..accounting.gaussian import (
    accountant_name,
    calibrate_noise_multiplier,
    default_learning_rate,
    gdp_epsilon,
)
from ..budget import Budget
from ..certificate import Certificate, Condition
from .base import Calibration, Mechanism, register

__all__ = ["NoisyGD"]


@register
class NoisyGD(Mechanism):
    """Noisy projected gradient descent with per-example clipping ([ACG+16]_, [BST14]_).

    Parameters
    ----------
    steps : int
        T.
    radius : float
        R of the ball the iterates are projected onto.
    clip : float
        Per-example gradient norm bound C.
    learning_rate : float or None
        η; None: :func:`~dpconvex.privacy.accounting.gaussian.default_learning_rate`.
    accounting : {"rdp", "pld"}
    """

    name = "noisy_gd"
    needs = frozenset({"per_example_gradients"})
    solves = False
    pure = False

    def __init__(self, steps: int = 100, radius: float = 1.0, clip: float = 1.0,
                 learning_rate: float | None = None, accounting: str = "rdp"):
        self.steps = int(steps)
        self.radius = float(radius)
        self.clip = float(clip)
        self.learning_rate = learning_rate
        self.accounting = accounting

    def check_budget(self, budget: Budget) -> Budget:
        if not (math.isfinite(budget.epsilon) and budget.epsilon > 0 and 0 < budget.delta < 1):
            raise ParameterError(
                "noisy gradient descent is (epsilon, delta)-DP: it needs a finite epsilon > 0 and "
                f"0 < delta < 1. Got {budget!r} instead."
            )
        return budget

    def conditions(self, template: Any, budget: Budget) -> list[Condition]:
        return []

    def calibrate(self, template: Any, budget: Budget) -> Calibration:
        n, p, T, C = template.n, template.p, self.steps, self.clip
        sensitivity = 2.0 * C / n
        z, eps_achieved = calibrate_noise_multiplier(budget.epsilon, budget.delta, T,
                                                     self.accounting)
        s = z * sensitivity
        eta = (float(self.learning_rate) if self.learning_rate is not None else
               default_learning_rate(template.loss, template.data_norm, self.radius, T, p, C, s))
        return Calibration(
            mechanism=self.name, epsilon_requested=budget.epsilon, epsilon=eps_achieved,
            epsilon_noise=eps_achieved, slack=0.0, extra_strong_convexity=0.0,
            sensitivity=sensitivity, noise_rate=math.nan, delta=budget.delta,
            extra={"noise multiplier": z, "noise std": s, "learning rate": eta},
        )

    def certificate(self, template: Any, budget: Budget, cal: Calibration | None,
                    conditions: list[Condition]) -> Certificate:
        assert cal is not None
        loss, n, p, T, C, R = (template.loss, template.n, template.p, self.steps, self.clip,
                               self.radius)
        z, s, eta = cal.extra["noise multiplier"], cal.extra["noise std"], cal.extra["learning rate"]
        epsilon, delta, eps_achieved, sensitivity = (budget.epsilon, budget.delta, cal.epsilon,
                                                     cal.sensitivity)
        lipschitz = loss.deriv_bound * template.data_norm
        name = accountant_name(self.accounting)
        exact = gdp_epsilon(z, T, delta)
        clip_note = ("never active (clip >= Lipschitz bound): the run minimizes the empirical "
                     "risk" if C >= lipschitz else
                     "may be active (clip < Lipschitz bound): the run minimizes the convex "
                     "surrogate with psi_i' = max(l', -C/||x_i||); privacy is unaffected")
        conds = [
            Condition("per-example clipping", True, "enforced by dpconvex",
                      f"every per-example gradient scaled to norm <= C = {C:g}; {clip_note}"),
            Condition("replace-one sensitivity", True, "computed from public parameters",
                      f"||mean clipped gradient(D) - (D')|| <= 2C/n = {sensitivity:.6g}"),
            Condition("noise calibration", True, f"accountant: {name}",
                      f"{T} adaptively composed Gaussian mechanisms with noise multiplier "
                      f"z = {z:.6g} give epsilon = {eps_achieved:.6g} <= {epsilon:g} at "
                      f"delta = {delta:g}"),
            Condition("second opinion", eps_achieved >= exact * (1 - 1e-6) - 1e-12,
                      "exact Gaussian-DP curve (Dong, Roth & Su 2022)",
                      f"exact epsilon of the composition {exact:.6g} <= accountant's "
                      f"{eps_achieved:.6g}"),
        ]
        return Certificate(
            mechanism=(f"noisy projected gradient descent ({loss.name} loss, Gaussian "
                       f"mechanism x {T} steps, {self.accounting.upper()} accountant)"),
            epsilon_requested=epsilon,
            epsilon=eps_achieved,
            delta=delta,
            private=True,
            conditions=conds,
            quantities={
                "n": n,
                "dimension p": p,
                "steps T": T,
                "clip C": C,
                "sensitivity 2C/n": sensitivity,
                "noise multiplier z": z,
                "noise std s = z * 2C/n": s,
                "accountant": name,
                "exact epsilon (Gaussian DP)": exact,
                "learning rate": eta,
                "radius R": R,
                "Lipschitz bound |l'| sqrt(q^2 + 1)": lipschitz,
            },
            assumptions=[
                "replace-one adjacency; n is public",
                "rows are clipped to the public data_norm; labels are mapped to +-1 by a "
                "public rule (the two label values are released in classes_)",
                "the guarantee covers all T iterates; the released average is post-processing",
                "idealized real-valued Gaussian noise (floating point: docs/privacy.md)",
            ],
        )

    def run(self, template: Any, cal: Calibration | None, backend: Any,
            rng: np.random.Generator, *, warm_start: np.ndarray | None = None,
            max_iter: int | None = None, tol: float | None = None
            ) -> tuple[np.ndarray, SolveResult | None, bool]:
        assert cal is not None
        loss, Xc, ys, n, p = template.loss, template.X, template.y, template.n, template.p
        s, eta = cal.extra["noise std"], cal.extra["learning rate"]
        C, R, T = self.clip, self.radius, self.steps
        row_norms = np.linalg.norm(Xc, axis=1)
        yX = Xc * ys[:, None]
        theta = np.zeros(p)
        total = np.zeros(p)
        for _ in range(T):
            d1 = loss.deriv(yX @ theta)  # per-example gradient = d1_i * y_i x_i
            gnorm = np.abs(d1) * row_norms
            scale = np.minimum(1.0, C / np.maximum(gnorm, 1e-300))
            grad = yX.T @ (d1 * scale) / n
            # the released quantity of each step, snapped to a public grid (noise.snap)
            theta = theta - eta * snap(grad + rng.normal(0.0, s, size=p), s)
            nrm = float(np.linalg.norm(theta))
            if nrm > R:
                theta *= R / nrm
            total += theta
        return total / T, None, False
