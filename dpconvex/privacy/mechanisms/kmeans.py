"""Per-class differentially private k-means: noisy Lloyd iterations.

Each of T iterations assigns every record of class c to the nearest current center of class c and releases,
for every (class, component) cell, a Laplace(2/ε_cnt) count (L1 sensitivity 2) and a sum with norm-Gamma noise
of rate ε_sum/(2q) (Σ_j ‖s_j − s′_j‖ <= 2q); ε/T per iteration splits as ε_cnt = ε/(1 + √d), ε_sum = ε√d/(1 +
√d). New centers (noisy sum / noisy count, projected onto the ball of radius q) are post-processing; T
iterations compose sequentially (derived in docs/privacy/large_margin.md#privacy-lm-mixture-budget).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...solvers.registry import Backend
from ...templates.statistics import KMeansTemplate, assign_nearest
from ..budget import Budget, remaining, split_even
from ..certificate import Certificate, Condition
from ..noise import Laplace, NormGamma
from .base import Calibration, Mechanism, register
from .facts import public_count, public_number

__all__ = ["DPKMeans", "lloyd"]


def lloyd(template: KMeansTemplate, noise: Any = None, n_iter: int | None = None) -> np.ndarray:
    """T Lloyd iterations from the template's public centers; ``noise(counts, sums)`` privatizes.
    T is ``n_iter`` (the calibration's, in a release) or, None, the template's.

    Returns the centers, shape (C, K, d), each in the ball of radius q.

    Examples
    --------
    >>> from dpconvex.templates.statistics import KMeansTemplate
    >>> centers = rng.normal(size=(3, 2, 3)) / 4  # np, rng, X: the doctest namespace, conftest.py
    >>> template = KMeansTemplate(X, np.arange(40) % 3, 3, 2, data_norm=1.0, n_iter=2, init_centers=centers)
    >>> from dpconvex.privacy.mechanisms.kmeans import lloyd
    >>> lloyd(template).shape
    (3, 2, 3)
    """
    C, K, d, J = template.C, template.K, template.d, template.C * template.K
    X, y = template.X, template.y
    centers = np.array(template.init_centers, dtype=float, copy=True)
    for _ in range(template.n_iter if n_iter is None else n_iter):
        m = assign_nearest(X, y, centers)
        # a record left out (y = -1): the extra cell J, never released
        cell = np.where(y >= 0, y * K + m, J)
        counts = np.bincount(cell, minlength=J + 1)[:J].astype(float)
        sums = np.zeros((J + 1, d))
        np.add.at(sums, cell, X)
        counts, sums = (counts, sums[:J]) if noise is None else noise(counts, sums[:J])
        new = centers.reshape(J, d).copy()
        ok = counts >= 1.0
        new[ok] = sums[ok] / counts[ok, None]
        centers = template.space.project(new).reshape(C, K, d)
    return centers


@register
class DPKMeans(Mechanism[KMeansTemplate]):
    """Per-class DP k-means: Laplace counts and norm-Gamma sums per cell and iteration.

    Examples
    --------
    >>> from dpconvex.templates.statistics import KMeansTemplate
    >>> centers = rng.normal(size=(3, 2, 3)) / 4  # np, rng, X: the doctest namespace, conftest.py
    >>> template = KMeansTemplate(X, np.arange(40) % 3, 3, 2, data_norm=1.0, n_iter=2, init_centers=centers)
    >>> mech = get_mechanism("dp_kmeans")
    >>> mech.pure
    True
    >>> rel = release(template, mech, Budget(1.0), rng=0)
    >>> rel.theta.shape, rel.certificate.epsilon
    ((3, 2, 3), 1.0)
    """

    name = "dp_kmeans"
    needs = frozenset({"cell_sums"})
    solves = False
    placement = "sum"

    def calibrate(self, template: KMeansTemplate, budget: Budget) -> Calibration:
        # T, d and q read once, as built-in numbers: the certificate and the run (its T
        # iterations) read the calibration's
        owner = f"{type(self).__name__}.calibrate"
        T, d = public_count(template.n_iter, owner), public_count(template.d, owner)
        q = public_number(template.data_norm, owner, "data_norm")
        eps_it = split_even(budget.epsilon, T)
        eps_cnt = eps_it / (1.0 + math.sqrt(d))
        eps_sum = remaining(eps_it, eps_cnt)
        return Calibration(
            mechanism=self.name, epsilon_requested=budget.epsilon,
            epsilon=T * (eps_cnt + eps_sum), epsilon_noise=eps_it,
            sensitivity=2.0 * q, noise_rate=eps_sum / (2.0 * q),
            extra={"eps_it": eps_it, "eps_cnt": eps_cnt, "eps_sum": eps_sum, "iterations": T,
                   "data_norm": q},
            # the norm-Gamma noise on one cell's sum of one iteration (d coordinates); the
            # counts' Laplace scale is 2/eps_cnt
            noise=NormGamma(eps_sum / (2.0 * q)), noise_shape=(d,))

    def certificate(self, template: KMeansTemplate, budget: Budget, cal: Calibration | None,
                    conditions: list[Condition]) -> Certificate:
        assert cal is not None
        q, T, J = cal.extra["data_norm"], cal.extra["iterations"], template.C * template.K
        eps_it, eps_cnt, eps_sum = (cal.extra[k] for k in ("eps_it", "eps_cnt", "eps_sum"))
        return Certificate(
            mechanism=f"DP k-means per class (noisy Lloyd, {T} iterations)",
            epsilon_requested=budget.epsilon,
            epsilon=cal.epsilon,
            conditions=[
                *conditions,
                Condition("count sensitivity", True, "derived (replace-one)",
                          "one replacement changes at most two cell counts by 1: L1 = 2"),
                Condition("sum sensitivity", True, "derived (replace-one, ||x|| <= q)",
                          f"sum over cells of ||s_j - s'_j|| <= 2q = {2 * q:g}"),
                Condition("composition", True, "sequential composition over iterations",
                          f"{T} x ({eps_cnt:.6g} + {eps_sum:.6g}) = {cal.epsilon:.6g}"),
            ],
            quantities={"iterations": T, "epsilon per iteration": eps_it,
                        "epsilon counts (per iteration)": eps_cnt,
                        "epsilon sums (per iteration)": eps_sum,
                        "count noise": f"Laplace(scale {2.0 / eps_cnt:.6g})",
                        "sum noise rate beta (per cell)": cal.noise_rate,
                        "cells": J},
            assumptions=[
                "adjacency: replace one record (label included)",
                f"rows clipped to the public bound q = {q:g}",
                "initial centers are public (data-independent rule or user-given)",
            ],
        )

    def run(self, template: KMeansTemplate, cal: Calibration | None, backend: Backend,
            rng: np.random.Generator, **_: Any) -> tuple[np.ndarray, None, bool]:
        assert cal is not None
        count_noise = Laplace(2.0 / cal.extra["eps_cnt"])
        sum_noise = NormGamma(cal.noise_rate, rows=True)  # one law per cell's sum

        def noise(counts: np.ndarray, sums: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            # released quantities, each snapped to its public grid (Noise.add)
            return count_noise.add(counts, rng), sum_noise.add(sums, rng)

        return lloyd(template, noise, cal.extra["iterations"]), None, False
