"""The noise terms of ``lam="auto"`` for the Gaussian linear mechanisms (docs/privacy.md §10.5).

Same bound as :mod:`dpconvex.privacy.lam_rule` (bias + stability + noise), with
the Gaussian noise's E‖b‖² = p σ² in place of the norm-Gamma p(p + 1)/β²:

    gaussian_objective:  noise = p σ(Λ)² / (2 n² μ_eff),  σ(Λ) = 2G · s(ε, δ, k, ε_J(Λ))
    gaussian_output:     noise = (Λ + c q²/p) p σ(Λ)² / 2,  σ(Λ) = s_a(ε, δ) · 2G/(nΛ)

with s the unit-sensitivity σ of the profile bound (★) and s_a the analytic
Gaussian one (both scale linearly in the sensitivity, since (★) and Balle–Wang's
condition depend on S/σ only). s depends on Λ only through the slack ε_J, so it is
computed on a few slack values and interpolated (log σ linear in ε_J): Λ is a
public heuristic choice, its privacy never depends on this accuracy (the release
recomputes σ exactly for the Λ chosen). Nothing here reads data.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import ParameterError
from .accounting.analytic_gaussian import analytic_gaussian_sigma
from .accounting.objective_gaussian import objective_gaussian_sigma

__all__ = ["GAUSSIAN_NAMES", "gaussian_noise_terms"]

#: Mechanisms whose Λ rule uses these terms.
GAUSSIAN_NAMES = ("gaussian_objective", "gaussian_output")

#: Slack values at which the unit σ of (★) is computed exactly before interpolation.
_SLACK_POINTS = 24


def _unit_sigma_objective(eps: float, delta: float, k: int, slacks: np.ndarray) -> np.ndarray:
    lo, hi = float(np.min(slacks)), float(np.max(slacks))
    if hi - lo < 1e-12 * max(eps, 1.0):
        return np.full(slacks.shape, objective_gaussian_sigma(eps, delta, 1.0, k, lo))
    pts = np.linspace(lo, hi, _SLACK_POINTS)
    logs = np.log([objective_gaussian_sigma(eps, delta, 1.0, k, float(s)) for s in pts])
    return np.exp(np.interp(slacks, pts, logs))


def gaussian_noise_terms(name: str, lam: np.ndarray, eps: float, delta: float, n: int,
                         G: float, c_u: float, p: int) -> tuple[np.ndarray, np.ndarray]:
    """(μ_eff, noise term) on the grid ``lam`` for a Gaussian linear mechanism.

    Parameters
    ----------
    name : {"gaussian_objective", "gaussian_output"}
    lam : ndarray
        Candidate Λ values.
    eps, delta : float
        The budget the mechanism calibrates with (δ > 0).
    n, G, c_u, p
        Public constants: records, gradient bound Lq, c q², parameters.

    Returns
    -------
    tuple of ndarray
    """
    from .mechanisms.perturbation import calibrate_objective_perturbation

    if not delta > 0.0:
        raise ParameterError(f"lam='auto' for mechanism '{name}' needs delta > 0; got {delta!r}.")
    S = 2.0 * G
    if name == "gaussian_output":
        sigma = analytic_gaussian_sigma(eps, delta, 1.0) * S / (n * lam)
        curv = c_u / p if math.isfinite(c_u) else 0.0
        noise = (lam + curv) * p * sigma**2 / 2.0
        if not math.isfinite(c_u):  # Lipschitz form, as lam_rule's output branch
            noise = lam * p * sigma**2 / 2.0 + G * sigma
        return lam, noise
    from .lam_rule import _consts  # the same public constants as the pure rule

    cals = [calibrate_objective_perturbation(eps, n, _consts(float(mu), G, c_u, p)) for mu in lam]
    mu_eff = lam + np.array([c.extra_strong_convexity for c in cals])
    slacks = np.array([c.slack for c in cals])
    sigma = S * _unit_sigma_objective(eps, delta, min(2, p), slacks)
    return mu_eff, p * sigma**2 / (2.0 * n * n * mu_eff)
