"""A warning, before the noise is drawn, when AdaSSP's noise outweighs what n rows can carry.

``PrivateLinearRegression`` (sufficient-statistics perturbation, docs/privacy.md §16)
releases A = Σ x̃x̃ᵀ + E and b = Σ u x̃ + e and solves (Π₊(Ã) + λI)θ = b̃. The noise E on A
has, with probability >= 1 − ρ, spectral norm at most

    R = s_A √(p log(2p²/ρ))                                 ([Wan18]_ Alg. 2, ρ = 0.05),

s_A its public per-coordinate scale: the ridge the adaptive rule adds when the noisy
λ_min(A) is 0. No data set of n rows can give A more than λ_min(A) <= tr(A)/p <= n q̃²/p
(‖x̃‖ <= q̃), so the ratio (docs/privacy.md §16.7)

    ρ_SSP = R / (n q̃²/p + λ_given)

(λ_given = nΛ for a given ``lam``, 0 for the adaptive rule) compares the noise on the
curvature with the most curvature n rows can have in their weakest direction. With rows at
the bound and isotropic (the best case) the adaptive ridge shrinks every direction by
1/ρ_SSP towards the middle of the label range; real rows sit below the bound and A is
anisotropic, so the release fails earlier: the warning fires at the measured
:data:`SSP_NOISE_RATIO`. The noise on b against the largest b, √p s_b/(n q̃), is smaller
than ρ_SSP by a factor p·√(log(2p²/ρ)/2) or more and is not checked. Every quantity is
public: n (the shape of X), p, q̃, ε, δ, the ridge given, and the mechanism's calibration —
never a value of X or y.

References
----------
.. [Wan18] Y.-X. Wang. Revisiting differentially private linear regression: optimal and
   adaptive prediction & estimation in unbounded domain. UAI 2018, Alg. 2 and its Thm. 3
   (the bound on the noise's spectral norm).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Protocol

from ...errors import PrivacyWarning
from ..budget import Budget
from ..mechanisms.ssp import adaptive_ridge
from .noise_dominance import REGRESSION_CHECK_NOTE, exceeds

if TYPE_CHECKING:
    from ..mechanisms.base import Calibration, Mechanism

__all__ = ["SSP_NOISE_RATIO", "ssp_noise_dominates", "ssp_noise_ratio",
           "warn_if_ssp_noise_dominates"]

#: ``PrivateLinearRegression`` warns when ρ_SSP exceeds this (measured on the regression
#: corpus's selection seeds, docs/privacy.md §16.7).
SSP_NOISE_RATIO = 0.5


class StatisticsShape(Protocol):
    """What the rule reads of a sufficient-statistics template: public facts only.

    Attributes
    ----------
    n, p : int
        Rows and columns (the intercept column included).
    data_norm : float
        q̃, the public bound on every row's norm.
    ridge : float or None
        λ given by the caller (None: the adaptive rule).
    """

    n: int
    p: int
    data_norm: float
    ridge: float | None


def ssp_noise_ratio(template: StatisticsShape, mech: Mechanism, budget: Budget, *,
                    calibration: Calibration | None = None) -> float | None:
    """ρ_SSP of the module docstring, from public quantities only (None: no noise to check).

    Parameters
    ----------
    template : SufficientStatisticsTemplate
        Only ``n``, ``p``, ``data_norm`` and ``ridge`` are read (never the statistics).
    mech : Mechanism
        A sufficient-statistics mechanism ("ssp", "gaussian_ssp"); any other gives None.
    budget : Budget
    calibration : Calibration or None, default=None
        The release's calibration when it is already computed (read, not recomputed).

    Returns
    -------
    float or None

    Examples
    --------
    >>> from dpconvex import Budget
    >>> from dpconvex.privacy.mechanisms import get_mechanism
    >>> from dpconvex.privacy.rules.noise_dominance_ssp import ssp_noise_ratio
    >>> from dpconvex.templates.sufficient_statistics import (SufficientStatisticsTemplate,
    ...                                                       zero_statistics)
    >>> template = SufficientStatisticsTemplate(zero_statistics(11), 300, 11, 2 ** 0.5)
    >>> round(ssp_noise_ratio(template, get_mechanism("ssp"), Budget(1.0)), 2)
    11.23
    >>> ssp_noise_ratio(template, get_mechanism("none_ssp"), Budget.unlimited()) is None
    True
    """
    if not getattr(mech, "private", False) or "sufficient_statistics" not in mech.needs:
        return None
    cal = calibration if calibration is not None else mech.calibrate(template, budget)
    gram_scale = float(mech.scales(cal)["gram"])  # type: ignore[attr-defined]
    bound = adaptive_ridge(0.0, gram_scale, template.p)
    most = template.n * template.data_norm**2 / template.p
    given = 0.0 if template.ridge is None else float(template.ridge)
    return bound / (most + given)


def ssp_noise_dominates(template: StatisticsShape, mech: Mechanism, budget: Budget) -> bool:
    """Whether :func:`warn_if_ssp_noise_dominates` warns: ρ_SSP > :data:`SSP_NOISE_RATIO`.

    Examples
    --------
    >>> from dpconvex import Budget
    >>> from dpconvex.privacy.mechanisms import get_mechanism
    >>> from dpconvex.privacy.rules.noise_dominance_ssp import ssp_noise_dominates
    >>> from dpconvex.templates.sufficient_statistics import (SufficientStatisticsTemplate,
    ...                                                       zero_statistics)
    >>> small = SufficientStatisticsTemplate(zero_statistics(11), 300, 11, 2 ** 0.5)
    >>> large = SufficientStatisticsTemplate(zero_statistics(11), 10 ** 6, 11, 2 ** 0.5)
    >>> mech, budget = get_mechanism("gaussian_ssp"), Budget(1.0, 1e-6)
    >>> ssp_noise_dominates(small, mech, budget), ssp_noise_dominates(large, mech, budget)
    (True, False)
    """
    return exceeds(ssp_noise_ratio(template, mech, budget), SSP_NOISE_RATIO)


def warn_if_ssp_noise_dominates(template: StatisticsShape, mech: Mechanism, budget: Budget,
                                owner: str, *, calibration: Calibration | None = None,
                                stacklevel: int = 4) -> float | None:
    """Warn (a :class:`PrivacyWarning`, before the noise is drawn) when ρ_SSP > :data:`SSP_NOISE_RATIO`.

    Returns ρ_SSP (or None). The message names the public quantities and the remedies, and
    carries no statistic of the data.

    Examples
    --------
    >>> import warnings
    >>> from dpconvex import Budget, PrivacyWarning
    >>> from dpconvex.privacy.mechanisms import get_mechanism
    >>> from dpconvex.privacy.rules.noise_dominance_ssp import warn_if_ssp_noise_dominates
    >>> from dpconvex.templates.sufficient_statistics import (SufficientStatisticsTemplate,
    ...                                                       zero_statistics)
    >>> template = SufficientStatisticsTemplate(zero_statistics(11), 300, 11, 2 ** 0.5)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     rho = warn_if_ssp_noise_dominates(template, get_mechanism("ssp"), Budget(1.0), "demo")
    ...
    >>> rho > 1, [w.category is PrivacyWarning for w in caught]
    (True, [True])
    """
    rho = ssp_noise_ratio(template, mech, budget, calibration=calibration)
    if not exceeds(rho, SSP_NOISE_RATIO):
        return rho
    remedy = ("a larger epsilon, more rows, or fewer features" if not mech.pure else
              "a larger epsilon, more rows, fewer features, or delta > 0 (the Gaussian form, "
              "whose noise on X^T X does not grow with the number of its entries)")
    warnings.warn(
        f"{owner}: at epsilon = {budget.epsilon:g} the noise is large for this problem: the "
        f"bound on the noise in X^T X that the ridge must cover is {rho:.2g} x the largest "
        f"smallest eigenvalue any n rows can give X^T X (n q~^2 / p with n = {template.n}, "
        f"p = {template.p} columns including the intercept; public quantities only, threshold "
        f"{SSP_NOISE_RATIO:g}), so the ridge or the noise takes over the directions the rows "
        f"fill least and the model is likely no better than a constant prediction. Use "
        f"{remedy} (docs/privacy.md §16.7). {REGRESSION_CHECK_NOTE}",
        PrivacyWarning, stacklevel=stacklevel)
    return rho
