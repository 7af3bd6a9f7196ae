"""A warning, before the solve, when the privacy noise outweighs the data's signal.

The linear learners (``PrivateLogisticRegression``, ``PrivateHuberSVM``,
``PrivateLinearClassifier``) and ``NoisyGradientDescent`` compute, from the mechanism's
calibration and the loss's declared constants alone (n, ε, δ, p, the norm bound q, L =
sup|ℓ'|, ℓ'(0), Λ, the steps and clip of noisy GD — never a value of X or y), the noise
dominance ρ₀ = E‖noise‖ / g₀, with g₀ the largest norm the data part can have at the
start θ = 0 (docs/privacy.md §6.7):

    objective perturbation (pure or Gaussian):  ρ₀ = E‖b‖ / (n |ℓ'(0)| q)
    output perturbation (pure or Gaussian):     ρ₀ = E‖b‖ Λ / (|ℓ'(0)| q)
    noisy gradient descent:                     ρ₀ = s √p ‖w‖₂ / (min(C, |ℓ'(0)| q) ‖w‖₁)

with E‖b‖ = p/β (norm-Gamma) or √p σ (Gaussian); for noisy GD the averaged iterate,
without projection, is −η Σ_t w_t (g_t + N_t), N_t ~ N(0, s² I_p), w_t the share of
averaged iterates after step t. Every quantity is read from the mechanism's
:meth:`~dpconvex.privacy.mechanisms.Mechanism.noise_report` (the formula by where the noise
enters: objective, output or gradient steps); a mechanism that does not report its noise
is refused by name. ``worst_case=True`` gives ρ, the same ratio against the
data part's bound at ANY θ (G = L q for ERM, C for noisy GD): if ρ > 1 the released
vector lies within arcsin(1/ρ) of the noise's uniformly random direction, for sure. ρ₀
(= ρ L/|ℓ'(0)|: 2ρ for logistic) is the same statement for the linearization at θ = 0,
which is where the strongly regularized models of small n ε live. The warning fires when
ρ₀ > 1. Approximate-minima perturbation reports its inner mechanism's noise.
``NoisyGradientDescent`` warns through :mod:`.noise_dominance_gd` instead: ρ₀ times
max(1, C/2) (one-vs-rest) against a measured threshold (docs/privacy.md §6.8).

References
----------
K. Chaudhuri, C. Monteleoni, A. D. Sarwate, JMLR 12 (2011): Alg. 1 (output perturbation,
argmin sensitivity 2G/(nΛ)) and Alg. 2 (objective perturbation, b with density
∝ exp(−ε′‖b‖/(2G))); D. Kifer, A. Smith, A. Thakurta, COLT 2012 (Gaussian objective
perturbation); the cone lemma and the thresholds: docs/privacy.md §6.7.
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING, Protocol

import numpy as np

from ...errors import DPConvexError, PrivacyWarning
from ...templates.base import Template
from ..budget import Budget

if TYPE_CHECKING:
    from ...objectives.losses import Loss
    from ..mechanisms.base import Calibration, Mechanism, NoiseReport


__all__ = ["LINEAR_NOISE_RATIO", "PUBLIC_CHECK_NOTE", "REGRESSION_CHECK_NOTE", "exceeds",
           "linear_noise_dominance", "linear_noise_dominates", "noise_report_of",
           "warn_if_linear_noise_dominates"]


class MarginLossTemplate(Template, Protocol):
    """A template of a margin loss (linear ERM, noisy GD): what the noise rule reads of it.

    Attributes
    ----------
    loss : Loss
        The margin loss; its derivative at 0 and its bound set the start gradient.
    """

    @property
    def loss(self) -> Loss:
        """The margin loss."""
        ...

#: The threshold on ρ₀: above it the direction of the linearized release is within
#: arcsin(1/ρ₀) of a uniformly random one (docs/privacy.md §6.7).
LINEAR_NOISE_RATIO = 1.0

#: The last sentences of every "noise is large" warning: what a check on public
#: quantities cannot see (docs/privacy.md §6.7). No data statistic enters it.
PUBLIC_CHECK_NOTE = (
    "This check reads public quantities only (n, p, epsilon, delta and the public bounds), "
    "not the strength of the signal in the data: a model can be no better than the majority "
    "class without this warning too. Compare any private model with the majority class on "
    "held-out rows (e.g. sklearn.dummy.DummyClassifier)."
)

#: The same note for a regressor: its baseline is a constant prediction (the training mean).
REGRESSION_CHECK_NOTE = (
    "This check reads public quantities only (n, p, epsilon, delta and the public bounds), "
    "not the strength of the signal in the data: a model can be no better than a constant "
    "prediction without this warning too. Compare any private model with the training "
    "labels' mean on held-out rows (e.g. sklearn.dummy.DummyRegressor)."
)


def exceeds(ratio: float | None, threshold: float) -> bool:
    """Whether a noise ratio fires its warning: not None and above ``threshold``.

    The one comparison of every noise warning and of the callers that need the verdict
    without the warning (:class:`~dpconvex.PrivateClassifier`'s check of its candidates).

    Examples
    --------
    >>> from dpconvex.privacy.rules.noise_dominance import exceeds
    >>> exceeds(1.5, 1.0), exceeds(1.0, 1.0), exceeds(None, 1.0)
    (True, False, False)
    """
    return ratio is not None and ratio > threshold


def _start_fraction(loss: Loss) -> float:
    """|ℓ'(0)| / L from the loss's declared constants (1 when ℓ'(0) is 0 or not finite)."""
    try:  # a user-defined loss without a vectorized deriv: the worst case
        d0 = abs(float(np.asarray(loss.deriv(np.zeros(1)), dtype=float).ravel()[0]))
        L = float(loss.deriv_bound)
    except (AttributeError, TypeError, ValueError, IndexError):
        return 1.0
    return d0 / L if 0.0 < d0 <= L and math.isfinite(L) else 1.0


def noise_report_of(template: Template, mech: Mechanism, budget: Budget, *,
                    calibration: Calibration | None = None) -> NoiseReport | None:
    """The mechanism's noise report on ``template`` (None when it cannot be calibrated).

    ``calibration``: the calibration of the release when it is already computed (read,
    not recomputed). Raises the named :class:`~dpconvex.errors.ParameterError` of a
    private mechanism that does not report its noise.

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import Budget
    >>> from dpconvex.objectives import Logistic
    >>> from dpconvex.privacy.mechanisms import get_mechanism
    >>> from dpconvex.templates import LinearERMTemplate
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 3))
    >>> X /= np.linalg.norm(X, axis=1, keepdims=True)
    >>> template = LinearERMTemplate(Logistic(), 0.1, 1.0, X, np.where(X[:, 0] > 0, 1, -1))
    >>> from dpconvex.privacy.rules.noise_dominance import noise_report_of
    >>> noise_report_of(template, get_mechanism("output"), Budget(1.0)).placement
    'output'
    >>> noise_report_of(template, get_mechanism("none"), Budget.unlimited()) is None
    True
    """
    from ..mechanisms import require_noise_report

    if not getattr(mech, "private", False):
        return None
    require_noise_report(mech)
    try:
        return mech.noise_report(template, budget, calibration=calibration)
    except (DPConvexError, ValueError, ArithmeticError):
        return None


def linear_noise_dominance(template: MarginLossTemplate, mech: Mechanism, budget: Budget, *,
                           worst_case: bool = False, calibration: Calibration | None = None,
                           report: NoiseReport | None = None) -> float | None:
    """ρ₀ (or ρ with ``worst_case``) of the module docstring, from public quantities only.

    Parameters
    ----------
    template : LinearERMTemplate or EmpiricalRiskTemplate (noisy GD)
        Only ``n``, ``p``, ``loss``, ``privacy_constants()`` / ``data_norm`` are read.
    mech : Mechanism
    budget : Budget
    worst_case : bool, default=False
        Compare with the data part's bound at any θ (G, or C) instead of at θ = 0.
    calibration : Calibration or None, default=None
        The release's calibration when it is already computed (a fit's one calibration).
    report : NoiseReport or None, default=None
        The mechanism's report when the caller has it (:func:`noise_report_of`).

    Returns
    -------
    float or None
        None for the non-private baseline, noise placed elsewhere (released sums), or a
        calibration that cannot be made (the release itself then reports it).

    Raises
    ------
    ParameterError
        A private mechanism that does not report its noise (named).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import Budget
    >>> from dpconvex.objectives import Logistic
    >>> from dpconvex.privacy.mechanisms import get_mechanism
    >>> from dpconvex.templates import LinearERMTemplate
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 3))
    >>> X /= np.linalg.norm(X, axis=1, keepdims=True)
    >>> template = LinearERMTemplate(Logistic(), 0.1, 1.0, X, np.where(X[:, 0] > 0, 1, -1))
    >>> from dpconvex.privacy.rules.noise_dominance import linear_noise_dominance
    >>> rho = linear_noise_dominance(template, get_mechanism("objective"), Budget(1.0))
    >>> round(rho, 3)
    0.319
    >>> linear_noise_dominance(template, get_mechanism("none"), Budget.unlimited()) is None
    True
    """
    if report is None:
        report = noise_report_of(template, mech, budget, calibration=calibration)
    if report is None:
        return None
    frac = 1.0 if worst_case else _start_fraction(template.loss)
    if report.placement == "gradient":
        g0 = report.clip if worst_case else min(report.clip, frac * report.grad_bound)
        return float(report.expected_norm) / g0
    g0 = frac * float(report.grad_bound)
    if report.placement == "objective":
        return float(report.expected_norm) / (template.n * g0)
    if report.placement == "output":
        return float(report.expected_norm) * float(report.modulus) / g0
    return None


def linear_noise_dominates(template: MarginLossTemplate, mech: Mechanism, budget: Budget) -> bool:
    """Whether :func:`warn_if_linear_noise_dominates` warns: ρ₀ > :data:`LINEAR_NOISE_RATIO`.

    The verdict without the warning, from public quantities only (the same ratio).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import Budget
    >>> from dpconvex.objectives import Logistic
    >>> from dpconvex.privacy.mechanisms import get_mechanism
    >>> from dpconvex.templates import LinearERMTemplate
    >>> template = LinearERMTemplate(Logistic(), 0.1, 1.0, np.zeros((40, 3)), np.ones(40))
    >>> from dpconvex.privacy.rules.noise_dominance import linear_noise_dominates
    >>> mech = get_mechanism("objective")
    >>> linear_noise_dominates(template, mech, Budget(0.1))
    True
    >>> linear_noise_dominates(template, mech, Budget(1.0))
    False
    """
    return exceeds(linear_noise_dominance(template, mech, budget), LINEAR_NOISE_RATIO)


def warn_if_linear_noise_dominates(template: MarginLossTemplate, mech: Mechanism, budget: Budget,
                                   owner: str, *,
                                   stacklevel: int = 4, calibration: Calibration | None = None,
                                   baseline: str = "the majority class",
                                   note: str = PUBLIC_CHECK_NOTE) -> float | None:
    """Warn (a :class:`PrivacyWarning`, before the solve) when ρ₀ > :data:`LINEAR_NOISE_RATIO`.

    ``baseline``: what the model is likely no better than (a regressor: a constant), and
    ``note`` the closing note on what the check cannot see (a regressor:
    :data:`REGRESSION_CHECK_NOTE`).

    Returns ρ₀ (or None). The message names the public quantities and the remedies.
    ``calibration``: the release's calibration when it is already computed (a fit passes
    it from :func:`~dpconvex.privacy.release.release`'s ``on_calibrated``, so the
    mechanism is calibrated once per fit).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import Budget
    >>> from dpconvex.objectives import Logistic
    >>> from dpconvex.privacy.mechanisms import get_mechanism
    >>> from dpconvex.templates import LinearERMTemplate
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 3))
    >>> X /= np.linalg.norm(X, axis=1, keepdims=True)
    >>> template = LinearERMTemplate(Logistic(), 0.1, 1.0, X, np.where(X[:, 0] > 0, 1, -1))
    >>> import warnings
    >>> from dpconvex import PrivacyWarning
    >>> from dpconvex.privacy.rules.noise_dominance import warn_if_linear_noise_dominates
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     mech = get_mechanism("objective")
    ...     rho = warn_if_linear_noise_dominates(template, mech, Budget(0.1), "demo")
    ...
    >>> rho > 1, [w.category is PrivacyWarning for w in caught]
    (True, [True])
    """
    report = noise_report_of(template, mech, budget, calibration=calibration)
    rho = linear_noise_dominance(template, mech, budget, report=report)
    if not exceeds(rho, LINEAR_NOISE_RATIO):
        return rho
    p = report.dimension
    angle = math.degrees(math.asin(1.0 / rho))
    warnings.warn(
        f"{owner}: at epsilon = {budget.epsilon:g} the noise is large for this problem: its "
        f"expected norm is {rho:.2g} x the largest possible data gradient at the start (p = {p} "
        f"noise coordinates, n = {template.n}; public quantities only), so the model's direction "
        f"is within {angle:.0f} degrees of a random one (to first order): the model is likely "
        f"no better than {baseline}. Use a larger epsilon, more rows, or fewer features "
        f"(docs/privacy.md §6.7). {note}",
        PrivacyWarning, stacklevel=stacklevel)
    return rho
