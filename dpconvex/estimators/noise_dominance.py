"""The noise-dominance ratio a fit of an estimator would warn with, without fitting.

For experiments and tests: builds the template a fit would build (no noise drawn, no
solve) and evaluates :func:`~dpconvex.privacy.rules.noise_dominance.linear_noise_dominance`
on it (docs/privacy.md §6.7), or, for a template of sufficient statistics,
:func:`~dpconvex.privacy.rules.noise_dominance_ssp.ssp_noise_ratio` (§16.7).
"""

from __future__ import annotations

from typing import Any

from ..privacy.budget import Budget
from ..privacy.mechanisms.base import Mechanism
from ..privacy.rules.noise_dominance import linear_noise_dominance
from ..privacy.rules.noise_dominance_ssp import ssp_noise_ratio
from ..templates.base import Template
from .base import PrivateEstimator

__all__ = ["estimator_noise_dominance"]


def estimator_noise_dominance(estimator: PrivateEstimator, X: Any, y: Any, *,
                              worst_case: bool = False
                              ) -> tuple[float | None, Template | None, Mechanism, Budget]:
    """(ρ₀ or ρ, template, mechanism, budget) the fit of ``estimator`` on (X, y) would warn with.

    For experiments and tests: builds the template a fit would build (no noise drawn,
    no solve) and evaluates :func:`linear_noise_dominance` on it, through the public
    ``plan_for`` and ``prepare`` of the linear estimators and
    :class:`~dpconvex.estimators.noisy_gd.NoisyGradientDescent` (binary plans); for
    :class:`~dpconvex.PrivateLinearRegression` (a template of sufficient statistics, whose
    statistics are not computed here) :func:`ssp_noise_ratio`, which has no worst case.
    """
    plan = estimator.plan_for(X, y)
    template = estimator.prepare(X, y, plan).template
    if "sufficient_statistics" in getattr(template, "capabilities", ()):
        rho = ssp_noise_ratio(template, plan.mechanism, plan.budget)
    else:
        rho = linear_noise_dominance(template, plan.mechanism, plan.budget, worst_case=worst_case)
    return rho, template, plan.mechanism, plan.budget
