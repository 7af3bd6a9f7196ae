"""Noise warnings, before the release, for noisy gradient descent and the DP class centroids.

Both ratios are computed from public quantities only (n, the number of rows, is public
under replace-one adjacency; ε, δ, p or d, C, the clip norm, the steps; never a value of
X or y, never a class count), and both thresholds were chosen from measurements on both
sides (``benchmarks/noise_warning_gd_centroid.py``; docs/privacy.md §6.8).

Noisy gradient descent (``NoisyGradientDescent``): ρ₀ of §6.7 for one binary model, the
expected norm of the noise on the released average of the noisy mean gradients over the
largest data part at θ = 0, times C/2 for one-vs-rest over C > 2 classes,

    ρ_GD = max(1, C/2) · s √p ‖w‖₂ / (min(C_clip, |ℓ'(0)| q̃) ‖w‖₁)
         ≈ max(1, C/2) · 2.18 √p / (n μ)                        (last-half average),

with s = 2 C_clip z/n the per-coordinate noise std of one step (at ε/C, δ/C per model
under one-vs-rest), w_t the share of averaged iterates after step t and μ = √T/z the
Gaussian-DP parameter of one model's run. The factor C/2: at θ = 0 the data gradient of
the model of class c is ℓ'(0)·(2π_c m_c − m̄) (π_c, m_c the class share and mean, m̄ the
overall mean of x̃); its average over c, (2/C − 1) m̄ at π_c = 1/C, is common to all C
models and cancels in the argmax, so the part that separates the classes is
(2/C)(m_c − m̄), 2/C of the binary bound; for C = 2 it is the binary model's whole signal.
The derived threshold 1 of §6.7 (the released direction within arcsin(1/ρ) of a random
one) missed the scikit-learn breast cancer set at ε = 0.1 (ρ_GD = 0.96, below the
majority class): the warning fires at the measured :data:`GD_NOISE_RATIO` instead.

Class centroids (``PrivateGaussianCentroid``): the standard deviation, along any fixed
unit direction, of the noise on a class mean at the expected class count n/C,

    ρ_cent = s C / n,

with s the public per-coordinate scale of the noise on the class sums (σ of the analytic
Gaussian, or √(C(d + 1))·Δ/ε of the norm-Gamma noise), read from the mechanism's noise
report (``coordinate_scale``). The nearest-mean rule compares
u·μ_c (and ‖μ_c‖², the same in expectation for all classes) across classes, ‖u‖ <= 1,
and the noise enters u·μ_c with this standard deviation; the class means lie in the unit
ball, so their differences along u are at most 2. The √d-larger E‖noise on a mean‖ =
ρ_cent √d is reported too (``norm=True``): it says when the released means are mostly
noise, not when the classifier is (digits, d = 64, at ε = 0.1: √d·ρ_cent = 5 and still
4 points above the majority class).

References
----------
K. Chaudhuri, C. Monteleoni, A. D. Sarwate, JMLR 12 (2011) and M. Abadi et al., CCS 2016
(the setting and noisy GD: docs/privacy.md §6.3, §6.7); B. Balle,
Y.-X. Wang, ICML 2018 (the analytic Gaussian σ); J. Dong, A. Roth, W. Su, JRSS B 2022
(μ-GDP of T Gaussian steps); T. Hastie, R. Tibshirani, J. Friedman, ESL §4.3 (nearest
class mean).
"""

from __future__ import annotations

import contextlib
import math
import warnings
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ...errors import DPConvexError, PrivacyWarning
from ..budget import Budget
from .noise_dominance import PUBLIC_CHECK_NOTE, exceeds, linear_noise_dominance, noise_report_of

if TYPE_CHECKING:
    from ..mechanisms.base import Mechanism
    from ..mechanisms.gaussian import ClassSumsTemplate
    from ..mechanisms.noisy_gd import PerExampleGradientsTemplate



class ShapePlan(Protocol):
    """What the warning reads of a fit's plan at a public shape.

    Attributes
    ----------
    sub_plans : sequence of ShapePlan
        One-vs-rest: the plans of the binary models (empty otherwise).
    mechanism : Mechanism
        The resolved mechanism.
    budget : Budget
        The budget of one model.
    """

    @property
    def sub_plans(self) -> Sequence[ShapePlan]:
        """The binary models' plans."""
        ...

    @property
    def mechanism(self) -> Mechanism:
        """The resolved mechanism."""
        ...

    @property
    def budget(self) -> Budget:
        """The budget of one model."""
        ...


class PlannedEstimator(Protocol):
    """What the one-vs-rest noisy-GD warning reads of an estimator (public settings only).

    Attributes
    ----------
    epsilon : float
        The estimator's total ε (as set).

    Methods
    -------
    plan(n, n_classes, n_features)
        The fit's plan at a public shape (:class:`ShapePlan`).
    prepare_shape(plan)
        The prepared problem at the plan's shape with every data value 0 (its ``template``).
    """

    epsilon: Any

    def plan(self, n: int, n_classes: int, n_features: int) -> ShapePlan:
        """The plan of a fit on n rows, n_classes labels and n_features features."""
        ...

    def prepare_shape(self, plan: ShapePlan) -> Any:
        """The prepared problem of ``plan`` with zero data (its ``template`` is read)."""
        ...

__all__ = ["CENTROID_NOISE_RATIO", "GD_NOISE_RATIO", "centroid_noise_dominates", "centroid_noise_ratio",
           "estimator_gd_noise_ratio", "gd_noise_ratio", "public_rows",
           "warn_if_centroid_noise_dominates", "warn_if_gd_noise_dominates",
           "warn_if_ovr_gd_noise_dominates"]

#: Noisy GD warns when ρ_GD exceeds this (measured, docs/privacy.md §6.8).
GD_NOISE_RATIO = 0.9

#: PrivateGaussianCentroid warns when ρ_cent = s C / n exceeds this (measured, §6.8).
CENTROID_NOISE_RATIO = 1.0

#: A phrase of the noisy-GD message (the one-vs-rest fit folds its C binary warnings into one).
_GD_PHRASE = "the noise on the averaged gradient steps"


def public_rows(X: Any) -> int | None:
    """n from the shape of X (public under replace-one adjacency), or None if unknown.

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex.privacy.rules.noise_dominance_gd import public_rows
    >>> public_rows(np.zeros((40, 3))), public_rows([[1, 2], [3, 4]]), public_rows(None)
    (40, 2, None)
    """
    shape = getattr(X, "shape", None)
    try:
        n = float(shape[0]) if shape is not None else float(len(X))
    except (TypeError, IndexError, ValueError):
        return None
    return int(n) if math.isfinite(n) and n >= 1 else None


def gd_noise_ratio(template: PerExampleGradientsTemplate, mech: Mechanism, budget: Budget, n_classes: int = 2
                   ) -> float | None:
    """ρ_GD of the module docstring: ρ₀ of docs/privacy.md §6.7 times max(1, C/2).

    Parameters
    ----------
    template : EmpiricalRiskTemplate
        Only ``n``, ``p``, ``loss`` and ``data_norm`` are read.
    mech : NoisyGD
    budget : Budget
        The (ε, δ) of one binary model (ε/C, δ/C under one-vs-rest).
    n_classes : int, default=2
        C, the size of the public label set.

    Returns
    -------
    float or None
        None when the mechanism cannot be calibrated (the release reports it).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import Budget
    >>> from dpconvex.objectives import Logistic
    >>> from dpconvex.privacy.mechanisms import get_mechanism
    >>> from dpconvex.templates.risk import EmpiricalRiskTemplate
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 3))
    >>> X /= np.linalg.norm(X, axis=1, keepdims=True)
    >>> template = EmpiricalRiskTemplate(Logistic(), 1.0, X, np.where(X[:, 0] > 0, 1, -1))
    >>> mech = get_mechanism("noisy_gd", steps=20, accounting="rdp")
    >>> from dpconvex.privacy.rules.noise_dominance_gd import gd_noise_ratio
    >>> rho = gd_noise_ratio(template, mech, Budget(1.0, 1e-5))
    >>> round(rho, 3)
    0.376
    >>> gd_noise_ratio(template, mech, Budget(1.0, 1e-5), n_classes=4) == 2 * rho
    True
    """
    rho = linear_noise_dominance(template, mech, budget)
    return None if rho is None else rho * max(1.0, n_classes / 2.0)


def estimator_gd_noise_ratio(est: PlannedEstimator, X: Any, n_classes: int = 2
                             ) -> tuple[float | None, Any, Budget | None]:
    """(ρ_GD, template, budget of one binary model) a fit of ``est`` on X would warn with.

    Reads the shape of X and the size C of the public label set only (no value of X or y),
    through the estimator's public plan: under one-vs-rest (C > 2) one binary model gets
    ε/C (and δ/C when ``delta`` is set), as in :mod:`dpconvex.estimators.ovr`; the
    template is the plan's with every data value 0 (``prepare_shape``).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import NoisyGradientDescent
    >>> from dpconvex.privacy.rules.noise_dominance_gd import estimator_gd_noise_ratio
    >>> est = NoisyGradientDescent(epsilon=1.0, steps=20, accounting="rdp")
    >>> rho, template, budget = estimator_gd_noise_ratio(est, np.zeros((1000, 4)))
    >>> round(rho, 3), template.p, budget.epsilon
    (0.022, 5, 1.0)
    """
    n, shape = public_rows(X), getattr(X, "shape", None)
    if n is None or shape is None or len(shape) != 2:
        return None, None, None
    try:
        plan = est.plan(n, max(2, int(n_classes)), int(shape[1]))
        one = plan.sub_plans[0] if plan.sub_plans else plan
        template = est.prepare_shape(one).template
    except (DPConvexError, ValueError, TypeError):
        return None, None, None
    return gd_noise_ratio(template, one.mechanism, one.budget, n_classes), template, one.budget


def _warn_gd(rho: float | None, template: PerExampleGradientsTemplate, budget: Budget, owner: str,
             n_classes: int,
             stacklevel: int, epsilon: float | None = None) -> None:
    if not exceeds(rho, GD_NOISE_RATIO):
        return
    where = f"at epsilon = {budget.epsilon:g}, delta = {budget.delta:.3g}"
    if n_classes > 2:
        where = (f"at epsilon = {epsilon:g} (epsilon = {budget.epsilon:.3g}, delta = "
                 f"{budget.delta:.3g} for each of the {n_classes} one-vs-rest models; ratio x "
                 f"{n_classes / 2:g} for the share of a model's gradient that separates the "
                 "classes)")
    warnings.warn(
        f"{owner}: {where} the noise is large for this problem: {_GD_PHRASE} has expected "
        f"norm {rho:.2g} x the largest data gradient at the start (p = {template.p} parameters, "
        f"n = {template.n} rows; public quantities only; threshold {GD_NOISE_RATIO:g}), so the "
        "model is likely no better than the majority class. Use a larger epsilon, a larger delta, more rows, "
        "fewer features or classes, or PrivateGaussianCentroid (one noisy release, no noise "
        f"per step) (docs/privacy.md §6.8). {PUBLIC_CHECK_NOTE}",
        PrivacyWarning, stacklevel=stacklevel + 1)


def warn_if_gd_noise_dominates(template: PerExampleGradientsTemplate, mech: Mechanism,
                               budget: Budget, owner: str, *,
                               stacklevel: int = 4) -> float | None:
    """Warn (:class:`PrivacyWarning`, before the run) when ρ_GD > :data:`GD_NOISE_RATIO`.

    For the binary fit. Returns ρ_GD (or None). The message names the public quantities
    and the remedies.

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import Budget
    >>> from dpconvex.objectives import Logistic
    >>> from dpconvex.privacy.mechanisms import get_mechanism
    >>> from dpconvex.templates.risk import EmpiricalRiskTemplate
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 3))
    >>> X /= np.linalg.norm(X, axis=1, keepdims=True)
    >>> template = EmpiricalRiskTemplate(Logistic(), 1.0, X, np.where(X[:, 0] > 0, 1, -1))
    >>> mech = get_mechanism("noisy_gd", steps=20, accounting="rdp")
    >>> import warnings
    >>> from dpconvex.privacy.rules.noise_dominance_gd import GD_NOISE_RATIO, warn_if_gd_noise_dominates
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     rho = warn_if_gd_noise_dominates(template, mech, Budget(0.1, 1e-5), "demo")
    ...
    >>> rho > GD_NOISE_RATIO, len(caught)
    (True, 1)
    """
    rho = gd_noise_ratio(template, mech, budget)
    _warn_gd(rho, template, budget, owner, 2, stacklevel)
    return rho


@contextlib.contextmanager
def _quiet_binary_gd() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=f".*{_GD_PHRASE}", category=PrivacyWarning)
        yield


def warn_if_ovr_gd_noise_dominates(est: PlannedEstimator, X: Any, classes: Any, owner: str, *,
                                   stacklevel: int = 3
                                   ) -> contextlib.AbstractContextManager[None]:
    """The one-vs-rest fit's warning, once (ρ_GD with C = ``len(classes)``).

    Returns a context manager that silences the C binary fits' own noisy-GD warnings
    inside it (their ratio, without the factor C/2, is never above the one-vs-rest one).

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from dpconvex import NoisyGradientDescent
    >>> from dpconvex.privacy.rules.noise_dominance_gd import warn_if_ovr_gd_noise_dominates
    >>> est = NoisyGradientDescent(epsilon=0.1, steps=20, accounting="rdp")
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     quiet = warn_if_ovr_gd_noise_dominates(est, np.zeros((100, 4)), [0, 1, 2], "demo")
    ...
    >>> len(caught)
    1
    >>> with quiet:
    ...     pass   # the three binary fits run here, without their own warnings
    ...
    """
    C = int(np.asarray(classes).size)
    rho, template, budget = estimator_gd_noise_ratio(est, X, C)
    if rho is not None:
        _warn_gd(rho, template, budget, owner, C, stacklevel, float(est.epsilon))
    return _quiet_binary_gd()


def centroid_noise_ratio(mech: Mechanism, template: ClassSumsTemplate, budget: Budget, n: int | None, *,
                         norm: bool = False) -> float | None:
    """ρ_cent = s C / n of the module docstring (``norm=True``: ρ_cent √d).

    Parameters
    ----------
    mech : ClassSumGaussian or ClassSumNormGamma
    template : ClassSumTemplate
        Only ``data_norm``, ``C`` and ``d`` are read (public); never its rows, labels or n.
    budget : Budget
    n : int or None
        The public number of rows (the shape of X, records outside the label set
        included). None: no ratio.

    Returns
    -------
    float or None

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import Budget
    >>> from dpconvex.estimators.centroids import ClassSumTemplate
    >>> from dpconvex.privacy.mechanisms import get_mechanism
    >>> rng = np.random.default_rng(0)
    >>> U = rng.normal(size=(30, 3))
    >>> U /= np.linalg.norm(U, axis=1, keepdims=True)
    >>> template = ClassSumTemplate(U, np.arange(30) % 3, n_classes=3)
    >>> from dpconvex.privacy.rules.noise_dominance_gd import centroid_noise_ratio
    >>> rho = centroid_noise_ratio(get_mechanism("gaussian"), template, Budget(1.0, 1e-5), n=30)
    >>> round(rho, 3)
    0.746
    >>> centroid_noise_ratio(get_mechanism("gaussian"), template, Budget(1.0, 1e-5), n=None) is None
    True
    """
    if n is None or not getattr(mech, "private", True):
        return None
    report = noise_report_of(template, mech, budget)  # s: its per-coordinate scale
    if report is None:
        return None
    s = float(report.coordinate_scale)
    rho = s * template.C / n
    return rho * math.sqrt(template.d) if norm else rho


def centroid_noise_dominates(mech: Mechanism, template: ClassSumsTemplate, budget: Budget,
                             n: int | None) -> bool:
    """Whether :func:`warn_if_centroid_noise_dominates` warns: ρ_cent > :data:`CENTROID_NOISE_RATIO`.

    The verdict without the warning, from public quantities only (the same ratio).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import Budget
    >>> from dpconvex.estimators.centroids import ClassSumTemplate
    >>> from dpconvex.privacy.mechanisms import get_mechanism
    >>> template = ClassSumTemplate(np.zeros((30, 3)), np.arange(30) % 3, n_classes=3)
    >>> from dpconvex.privacy.rules.noise_dominance_gd import centroid_noise_dominates
    >>> mech = get_mechanism("gaussian")
    >>> centroid_noise_dominates(mech, template, Budget(0.1, 1e-5), 30)
    True
    >>> centroid_noise_dominates(mech, template, Budget(1.0, 1e-5), 30)
    False
    """
    return exceeds(centroid_noise_ratio(mech, template, budget, n), CENTROID_NOISE_RATIO)


def warn_if_centroid_noise_dominates(mech: Mechanism, template: ClassSumsTemplate, budget: Budget, X: Any,
                                     owner: str, *, stacklevel: int = 3) -> float | None:
    """Warn (:class:`PrivacyWarning`, before the release) when ρ_cent > :data:`CENTROID_NOISE_RATIO`.

    Reads only the number of rows of ``X`` (its shape). Returns ρ_cent (or None).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import Budget
    >>> from dpconvex.estimators.centroids import ClassSumTemplate
    >>> from dpconvex.privacy.mechanisms import get_mechanism
    >>> rng = np.random.default_rng(0)
    >>> U = rng.normal(size=(30, 3))
    >>> U /= np.linalg.norm(U, axis=1, keepdims=True)
    >>> template = ClassSumTemplate(U, np.arange(30) % 3, n_classes=3)
    >>> import warnings
    >>> from dpconvex.privacy.rules.noise_dominance_gd import warn_if_centroid_noise_dominates
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     rho = warn_if_centroid_noise_dominates(get_mechanism("gaussian"), template, Budget(0.1, 1e-5),
    ...                                            np.zeros((30, 3)), "demo")
    ...
    >>> rho > 1, len(caught)
    (True, 1)
    """
    n = public_rows(X)
    rho = centroid_noise_ratio(mech, template, budget, n)
    if not exceeds(rho, CENTROID_NOISE_RATIO):
        return rho
    gaussian = not mech.pure
    remedy = ("a larger epsilon or more rows" if gaussian else
              "a larger epsilon, more rows, or delta > 0 with mechanism='gaussian' (its noise "
              "does not grow with the number of classes and features)")
    warnings.warn(
        f"{owner}: at epsilon = {budget.epsilon:g} the noise is large for this problem: the "
        f"noise on a class mean at the expected class count n/C = {n}/{template.C} has "
        f"standard deviation {rho:.2g} along any direction (per-coordinate noise scale "
        f"{rho * n / template.C:.3g}, d = {template.d} features; public quantities only, "
        f"threshold {CENTROID_NOISE_RATIO:g}), while the class means lie in the unit ball, so "
        f"the model is likely no better than the majority class. Use {remedy}, or fewer "
        f"classes (docs/privacy.md §6.8). {PUBLIC_CHECK_NOTE}",
        PrivacyWarning, stacklevel=stacklevel)
    return rho
