"""Options of :class:`~dpconvex.PrivateLargeMarginGaussian` beyond the paper's template.

``loss="softmax"`` (the unconstrained softmax template,
:class:`~dpconvex.templates.large_margin_softmax.LargeMarginSoftmaxTemplate`),
``mechanism="gaussian_objective"`` with ``delta`` ((ε, δ)-DP Gaussian objective
perturbation), ``lam="auto"`` (a public rule for the modulus) and the
certificate of a fit with a component assignment. Derivations:
``docs/privacy/large_margin_softmax.md#privacy-large-margin-softmax``.

References
----------
.. [CMS] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially Private
   Empirical Risk Minimization. JMLR 12 (2011), Alg. 2.
.. [KST12] D. Kifer, A. Smith, A. Thakurta. Private Convex Empirical Risk
   Minimization and High-dimensional Regression. COLT 2012, Theorem 2.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..._validation import LAM, Auto, Constraint, Float, check_float
from ...errors import ParameterError, PrivacyError
from ...objectives.losses import HuberHinge
from ...objectives.regularizers import Frobenius
from ...privacy.budget import Budget, remaining
from ...privacy.certificate import Certificate, LamRule, compose_sequential
from ...privacy.mechanisms import Mechanism, MechanismMenu, require_noise_report
from ...privacy.mechanisms.perturbation import half_epsilon_modulus, hessian_trace_bound
from ...privacy.rules.large_margin import (
    is_centroid,
    resolved_loss,
    resolved_mechanism,
    resolved_structure,
)
from ...templates.feature_map import check_feature_options, feature_map_of
from ...templates.large_margin import LargeMarginGaussianTemplate, MatrixTerm
from ...templates.large_margin_softmax import LargeMarginSoftmaxTemplate
from .centroid import check_centroid_params

if TYPE_CHECKING:
    from .parameters import LargeMarginEstimator

#: The two templates of the objective learners (pairwise PSD, softmax on a feature map).
LargeMarginTemplate = LargeMarginGaussianTemplate | LargeMarginSoftmaxTemplate

__all__ = [
    "AUTO_LAM_FLOOR",
    "AUTO_LAM_KAPPA",
    "DEFAULT_DELTA",
    "SOFTMAX",
    "Centers",
    "MatrixTerms",
    "auto_lam",
    "build_template",
    "check_consistency",
    "compose_with_assignment",
    "fit_budget",
    "LARGE_MARGIN_MENU",
    "noise_family",
    "objective_budget",
    "released_matrices",
]

#: ``loss="softmax"``: the softmax (cross-entropy) loss on the scores −zᵀΦ_c z.
SOFTMAX = "softmax"
#: lam='auto': μ = max(AUTO_LAM_FLOOR, μ_half, κ·s(μ)/n)
#: (docs/privacy/large_margin_softmax.md#privacy-softmax-lambda-rule).
AUTO_LAM_KAPPA = 1.0
AUTO_LAM_FLOOR = 1e-4
#: δ of ``delta=None`` with an (ε, δ) mechanism: min(DEFAULT_DELTA, 1/n²).
DEFAULT_DELTA = 1e-5
#: Largest ``gamma``. The trace term's gradient γI outweighs the whole loss gradient (at
#: most C − 1 in norm: |ℓ′| <= 1, ‖zzᵀ‖ <= 1) once γ > C − 1, so the Ψ blocks are already
#: 0 well below this; above it the solver's conditioning fails (a capped, refused solve
#: after minutes).
MAX_GAMMA = 1e6
#: Largest ``n_components`` (K per class).
MAX_COMPONENTS = 10**4
#: Largest ``kmeans_iter``.
MAX_KMEANS_ITER = 10**4
#: Largest ``verbose``.
MAX_VERBOSE = 2


def _short(value: Any) -> str:
    text = repr(value) if not isinstance(value, int) or abs(value) < 10**50 else "a huge int"
    return text if len(text) <= 60 else text[:57] + "..."


def _finite_floats(value: Any) -> np.ndarray | None:
    """``value`` as an array of finite floats, or None if it is not one (a string, a dict, ...)."""
    if isinstance(value, (str, bytes, dict)):
        return None
    try:
        raw = np.asarray(value)
        if raw.dtype.kind not in "biuf" and raw.dtype.kind != "O":
            return None
        c = np.asarray(raw, dtype=float)
    except (TypeError, ValueError, OverflowError):
        return None
    return c if np.all(np.isfinite(c)) else None


@dataclass(frozen=True)
class Centers(Constraint):
    """``centers``: finite real numbers (the shape (C, K, d) is checked once C and d are known)."""

    def check(self, name: str, value: Any, owner: str) -> np.ndarray:
        c = _finite_floats(value)
        if c is None:
            raise ParameterError(f"The '{name}' parameter of {owner} must be None or {self}. "
                                 f"Got {_short(value)} instead.")
        return c

    def __str__(self) -> str:
        return "a finite array of floats of shape (n_classes, n_components, n_features)"


@dataclass(frozen=True)
class MatrixTerms(Constraint):
    """``extra_terms``: a sequence of :class:`~dpconvex.templates.large_margin.MatrixTerm`."""

    def check(self, name: str, value: Any, owner: str) -> Any:
        if isinstance(value, (str, bytes, dict)) or not isinstance(value, Iterable) or not all(
                isinstance(t, MatrixTerm) for t in list(value)):
            raise ParameterError(f"The '{name}' parameter of {owner} must be None or {self}. "
                                 f"Got {_short(value)} instead.")
        return value

    def __str__(self) -> str:
        return "a sequence of MatrixTerm"


#: The mechanisms of the large-margin objective (privacy-large-margin-softmax): its own Gaussian objective
#: perturbation is offered as "gaussian_objective" (``mechanism="centroid"`` releases
#: through the class-sum estimator's menu instead).
LARGE_MARGIN_MENU = MechanismMenu(
    {"objective": "objective", "none": "none", "gaussian_objective": "gaussian_objective_lm"},
    auto=("objective", "gaussian_objective"))


#: ``lam`` of an objective without noise: "auto" or Λ >= 0 (no privacy proof needs Λ > 0).
_LAM_WITHOUT_NOISE = Auto(Float(low_inclusive=True))


def _check_lam(est: LargeMarginEstimator, mech: Mechanism, owner: str) -> None:
    """lam against the mechanism: > 0 for a private objective (the privacy proof needs it),
    >= 0 without noise, > 0 for the centroids (unused there, but a bad value is refused)."""
    lam = est.lam
    objective = not is_centroid(est)
    if (objective and mech.private and isinstance(lam, numbers.Real)
            and not isinstance(lam, bool) and lam <= 0):
        raise PrivacyError(
            f"The 'lam' parameter of {owner} must be > 0 with a private mechanism. Got {lam!r} "
            "instead: strong convexity fails, and objective perturbation needs a strongly "
            "convex objective. The Huber and softmax losses are not strongly convex and the "
            "trace term gamma * tr(Psi) is linear, so without (lam/2) * ||Phi||_F^2 the "
            "privacy proof fails. Use lam > 0 (e.g. lam=2e-2 or lam='auto'), or "
            "mechanism='none' for a non-private fit.")
    rule = _LAM_WITHOUT_NOISE if objective and not mech.private else LAM
    rule.check("lam", lam, owner)


def check_consistency(est: LargeMarginEstimator, mech: Mechanism) -> None:
    """The rules across the estimator's parameters (each alone is checked by its table).

    ``lam`` against the mechanism; ``structure`` and ``feature_weights`` against the
    loss; ``extra_terms`` and ``delta`` against the loss and the mechanism; with
    ``mechanism="centroid"``, the options an objective would use.
    """
    owner = type(est).__name__
    _check_lam(est, mech, owner)
    if is_centroid(est):  # the objective's options are unused, but bad values are refused
        check_centroid_params(est)
        check_feature_options(resolved_structure(est), est.feature_weights, owner, softmax=True)
        if est.centers is not None and np.ndim(est.centers) != 3:
            raise ParameterError(f"The 'centers' parameter of {owner} must be None or an array "
                                 "of shape (n_classes, n_components, n_features).")
        return
    softmax = isinstance(resolved_loss(est), str)
    check_feature_options(resolved_structure(est), est.feature_weights, owner, softmax=softmax)
    if softmax and est.extra_terms:
        raise ParameterError(f"The 'extra_terms' parameter of {owner} must be empty with the "
                             "softmax loss (the default for n_components=1): extra_terms need "
                             "the CVXPY form of the pairwise loss. Pass loss='pairwise'.")
    if not mech.pure and mech.private and not softmax:
        raise ParameterError(
            f"The 'loss' parameter of {owner} must be 'softmax' with "
            f"mechanism={resolved_mechanism(est)!r} (delta > 0), which needs an unconstrained "
            f"minimizer. Got {est.loss!r} instead (a pairwise loss): use loss='softmax' (the "
            "pairwise template is PSD-constrained and pure epsilon-DP only; use delta=None "
            "there).")
    if est.delta is not None:
        check_float("delta", est.delta, owner, low_inclusive=mech.pure, high=1.0)
        if mech.pure and est.delta != 0:
            raise ParameterError(f"The 'delta' parameter of {owner} must be None or 0 with the "
                                 f"pure epsilon-DP mechanism {est.mechanism!r}. Got {est.delta!r}.")


def lam_is_auto(lam: Any) -> bool:
    return isinstance(lam, str) and lam == "auto"


def objective_budget(est: LargeMarginEstimator, mech: Mechanism, assign_epsilon: float | None,
                     n: int) -> Budget:
    """The budget left for the perturbation after a private component assignment."""
    eps = float(est.epsilon) if mech.private else math.inf
    return fit_budget(est, mech, remaining(eps, assign_epsilon) if mech.private else eps, n)


def fit_budget(est: LargeMarginEstimator, mech: Mechanism, epsilon: float, n: int) -> Budget:
    """(ε, δ) of the fit: δ = 0 for pure mechanisms, else ``delta`` or min(1e-5, 1/n²)."""
    if not mech.private:
        return Budget.unlimited()
    if mech.pure:
        return Budget(epsilon)
    delta = est.delta if est.delta is not None else min(DEFAULT_DELTA, 1.0 / (float(n) ** 2))
    return Budget(epsilon, float(delta))


def _objective_noise(mech: Mechanism) -> Mechanism:
    """The mechanism whose noise the objective carries: approximate minima's inner one
    (evaluated at the whole budget by :func:`auto_lam`)."""
    return require_noise_report(getattr(mech, "inner", mech))


def noise_scale(template: LargeMarginTemplate, mech: Mechanism, budget: Budget, mu: float) -> float:
    """Public per-coordinate noise scale s at modulus μ: σ (Gaussian) or √p·2G/ε′ (norm-Gamma).

    The ``coordinate_scale`` of the mechanism's noise report at μ.
    """
    report = _objective_noise(mech).noise_report(template, budget, mu)
    return float(report.coordinate_scale)


def auto_lam(template: LargeMarginTemplate, mech: Mechanism, budget: Budget,
             kappa: float = AUTO_LAM_KAPPA) -> float:
    """lam='auto': the root of μ = max(1e-4, μ_half, κ·s(μ)/n)
    (docs/privacy/large_margin_softmax.md#privacy-softmax-lambda-rule).

    μ_half is the modulus at which the one-sided Jacobian slack is ε/2 (below it
    the calibration's Δ branch raises the modulus anyway); s(μ) the public
    per-coordinate noise scale, non-increasing in μ, so the root is unique and
    found by bisection in log μ. Public constants only (n, ε, δ, C, D).
    """
    n = template.n
    if not mech.private:
        return AUTO_LAM_FLOOR
    consts = template.privacy_constants()
    T, r = hessian_trace_bound(consts), consts.hessian_rank
    lo = max(AUTO_LAM_FLOOR, half_epsilon_modulus(budget.epsilon, n, T, r) * (1.0 + 1e-9))

    def rule(mu: float) -> float:
        return max(lo, kappa * noise_scale(template, mech, budget, mu) / n)

    if rule(lo) <= lo:
        return lo
    hi = rule(lo)  # rule(hi) <= rule(lo) = hi: the root is in [lo, hi]
    for _ in range(40):
        if hi / lo < 1.0 + 1e-3:
            break
        mid = math.sqrt(lo * hi)
        if rule(mid) > mid:
            lo = mid
        else:
            hi = mid
    return hi


def build_template(est: LargeMarginEstimator, Z: Any, y_idx: np.ndarray, comps: np.ndarray, C: int, K: int,
                   assignment: str, mech: Mechanism, budget: Budget, *,
                   lam: float | None = None) -> Any:
    """The template of a fit: softmax (unconstrained) or the paper's pairwise PSD template.

    ``lam``: with lam='auto', the value the fit's plan resolved (None: apply the rule here).
    """
    lam0 = 1.0 if lam_is_auto(est.lam) else float(est.lam)
    loss = resolved_loss(est)
    if isinstance(loss, str):
        structure = resolved_structure(est)
        weights = check_feature_options(structure, getattr(est, "feature_weights", None),
                                        type(est).__name__, softmax=True)
        fmap = feature_map_of(weights, structure, float(est.data_norm), int(Z.shape[1]) - 1)
        template: LargeMarginTemplate = LargeMarginSoftmaxTemplate(Z, y_idx, comps if K > 1 else None,
                                                   n_classes=C, lam=lam0, n_components=K,
                                                   assignment=assignment,
                                                   data_norm=float(est.data_norm),
                                                   feature_map=fmap)
    else:
        loss = loss if loss is not None else HuberHinge(est.h)
        template = LargeMarginGaussianTemplate(
            Z, y_idx, comps, n_classes=C, n_components=K, lam=lam0, gamma=float(est.gamma),
            loss=loss, extra_terms=tuple(est.extra_terms or ()), assignment=assignment)
    if lam_is_auto(est.lam):
        template.regularizer = Frobenius(auto_lam(template, mech, budget) if lam is None else lam)
    return template


def released_matrices(template: LargeMarginTemplate, theta: np.ndarray, C: int, K: int, D: int
                      ) -> tuple[np.ndarray, float]:
    """(Φ of shape (C, K, D, D), the common PSD shift t) — post-processing of the release."""
    if isinstance(template, LargeMarginSoftmaxTemplate):
        Phi, t = template.release_shift(theta)
        return Phi.reshape(C, K, D, D), t
    return np.asarray(theta).reshape(C, K, D, D), 0.0


def lam_note(template: LargeMarginTemplate, est: LargeMarginEstimator) -> list[LamRule]:
    """The certificate's Λ rule for lam='auto' (empty for a numeric lam)."""
    if not lam_is_auto(est.lam):
        return []
    return [LamRule(template.lam, "auto", "lam='auto': "
            f"max({AUTO_LAM_FLOOR:g}, mu_half, {AUTO_LAM_KAPPA:g} * s / n), s the public "
            "per-coordinate noise scale (docs/privacy/large_margin_softmax.md#privacy-softmax-lambda-rule)")]


def compose_with_assignment(obj: Certificate, assign: Any, eps_total: float) -> Certificate:
    """Certificate of the whole fit: component assignment + objective perturbation.

    A non-private fit (``mechanism="none"``) keeps the baseline's certificate (no
    guarantee) and states the assignment that ran, with the certificate of its
    noiseless k-means as a part; a private objective perturbation on components of a
    non-private assignment is not private end to end; a private assignment is
    composed sequentially with the objective perturbation.

    Examples
    --------
    >>> import math
    >>> from dpconvex import Certificate
    >>> from dpconvex.estimators.large_margin.components import ComponentAssignment
    >>> from dpconvex.estimators.large_margin.options import compose_with_assignment
    >>> baseline = Certificate("non-private baseline (demo)", math.inf, math.inf, private=False)
    >>> kmeans = Certificate("k-means (Lloyd, 3 iterations, no noise)", math.inf, math.inf,
    ...                      private=False)
    >>> assign = ComponentAssignment(None, "dp_kmeans", False, 0.0, certificate=kmeans,
    ...                              description="per-class k-means without noise")
    >>> cert = compose_with_assignment(baseline, assign, math.inf)
    >>> cert.private, cert.assumptions, [part.mechanism for part in cert.parts]
    (False, ['component assignment: per-class k-means without noise'],
     ['k-means (Lloyd, 3 iterations, no noise)'])
    """
    if not obj.private:  # the non-private baseline: no guarantee to compose
        obj.assumptions.append(f"component assignment: {assign.description}")
        if assign.certificate is not None:  # its noiseless k-means
            obj.parts.append(assign.certificate)
        return obj
    if not assign.private:
        return compose_sequential(
            [obj], mechanism=f"{obj.mechanism} with NON-PRIVATE component assignment",
            epsilon_requested=eps_total, quantities=obj.quantities,
            assumptions=[
                "PRIVACY IS NOT END-TO-END: the mixture components were assigned by a "
                f"non-private rule reading the private data (component_assignment="
                f"{assign.method!r}: {assign.description}); only the objective perturbation "
                f"given those components is {obj.epsilon:.6g}-DP, which is not a guarantee "
                "for the data set.",
                *obj.assumptions],
            solver=obj.solver, private=False)
    if assign.certificate is None:
        return obj
    km = assign.certificate
    return compose_sequential(
        [km, obj],
        mechanism="sequential composition: per-class DP k-means, then " + obj.mechanism,
        epsilon_requested=eps_total,
        quantities={"epsilon k-means": km.epsilon, "epsilon objective perturbation":
                    obj.epsilon, "k-means share of epsilon": km.epsilon / eps_total},
        assumptions=["the objective perturbation uses components assigned by the nearest "
                     "DP-released center, a rule reading only the record and the released "
                     "centers (adaptive sequential composition)"],
        solver=obj.solver, labels=["k-means", "objective perturbation"])


def noise_family(template: LargeMarginTemplate) -> str:
    """The noise-dominance family of ``template`` (:mod:`dpconvex.privacy.rules.noise_dominance`):
    "softmax" for the softmax template, "large_margin" for the pairwise one."""
    return "softmax" if isinstance(template, LargeMarginSoftmaxTemplate) else "large_margin"
