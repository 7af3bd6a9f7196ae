"""Approximate-minima perturbation with Gaussian noise ([INS+19]_ Alg. 1).

The budget (ε, δ) is split: (1 − a)(ε, δ) for the inner Gaussian mechanism and a(ε, δ) for
Gaussian cover noise N(0, σ₂² I), σ₂ the analytic Gaussian σ ([BW18]_) for the sensitivity
2ρ, ρ = ``template.distance_bound(γ, μ)`` the distance from the exact minimizer a solve to
residual γ leaves. The proof (adaptive composition):
docs/privacy/gaussian_linear.md#privacy-gaussian-amp.

References
----------
.. [INS+19] R. Iyengar, J. P. Near, D. Song, O. Thakkar, A. Thakurta, L. Wang.
   Towards Practical Differentially Private Convex Optimization. IEEE S&P 2019, Alg. 1.
.. [BW18] B. Balle, Y.-X. Wang. Improving the Gaussian Mechanism for
   Differential Privacy. ICML 2018, Theorem 8.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ..accounting.analytic_gaussian import analytic_gaussian_delta, analytic_gaussian_sigma
from ..budget import Budget
from ..certificate import Condition
from ..noise import Gaussian, Noise
from .amp import ApproximateMinima
from .base import Calibration, register

if TYPE_CHECKING:
    from ...templates.base import ObjectiveTemplate

__all__ = ["GaussianApproximateMinima"]


@register
class GaussianApproximateMinima(ApproximateMinima):
    """Approximate-minima perturbation around a Gaussian mechanism, with Gaussian cover noise.

    Parameters
    ----------
    inner : str
        The inner mechanism's registry name: an (ε, δ) mechanism whose noise report places
        its noise on the objective or the output (e.g. "gaussian_objective",
        "gaussian_output").
    gamma : float
        Optimality residual the solve must reach (``optimality_tol``).
    fraction : float
        Share a of ε and of δ spent on the cover noise, in (0, 1).

    Examples
    --------
    >>> from dpconvex import Budget, release
    >>> from dpconvex.objectives import Logistic
    >>> from dpconvex.privacy.mechanisms import get_mechanism
    >>> from dpconvex.templates import LinearERMTemplate
    >>> # np, X (40 rows of norm 1), y (labels ±1): the doctest namespace, conftest.py
    >>> template = LinearERMTemplate(Logistic(), 0.1, 1.0, X, y)
    >>> mech = get_mechanism("gaussian_amp")
    >>> mech.pure
    False
    >>> rel = release(template, mech, Budget(1.0, 1e-5), rng=0)
    >>> rel.theta.shape, rel.certificate.delta <= 1e-5
    ((3,), True)
    """

    name = "gaussian_amp"
    pure = False
    alternative = "objective"

    def __init__(self, inner: str = "gaussian_objective", gamma: float = 1e-4,
                 fraction: float = 0.1):
        super().__init__(inner, gamma, fraction)
        self.budget_name = f"{self.inner.name} with optimality_tol"

    cover_label = "Gaussian AMP output cover (Iyengar et al. 2019, analytic Gaussian)"
    composition_label = "Gaussian approximate-minima perturbation"
    composition_assumption = (
        "adaptive composition: the exact minimizer is (eps1, delta1)-DP; given it, the "
        "solver's error (norm <= rho) plus the cover noise is a Gaussian mechanism of "
        "sensitivity 2 rho (docs/privacy/gaussian_linear.md#privacy-gaussian-amp)")

    def _cover_noise(self, cover: Budget, sensitivity: float) -> tuple[float, dict[str, Any]]:
        """σ₂: the analytic Gaussian σ at (ε₂, δ₂) for the sensitivity 2ρ."""
        sigma = analytic_gaussian_sigma(cover.epsilon, cover.delta, sensitivity)
        return math.nan, {"noise std": sigma, "delta at sigma": analytic_gaussian_delta(
            cover.epsilon, sigma, sensitivity)}

    def _cover_description(self, template: ObjectiveTemplate, cal: Calibration
                           ) -> tuple[list[Condition], dict[str, Any]]:
        cover = cal.extra["cover"]
        sigma, dlt = float(cal.extra["noise std"]), cal.extra["delta at sigma"]
        return [Condition("cover calibration", dlt <= cover.delta,
                          "analytic Gaussian (Balle & Wang 2018, Thm. 8), sensitivity 2 rho",
                          f"sigma = {sigma:.6g}: delta({cover.epsilon:.6g}) = {dlt:.3g} <= "
                          f"{cover.delta:.3g}")], {
            "distance bound rho": cal.extra["radius"], "sensitivity 2*rho": cal.sensitivity,
            "cover noise std": sigma}

    def cover_law(self, template: ObjectiveTemplate, cal: Calibration) -> Noise:
        """The cover's noise: N(0, σ²) per coordinate, σ for the sensitivity 2ρ."""
        return Gaussian(float(cal.extra["noise std"]))
