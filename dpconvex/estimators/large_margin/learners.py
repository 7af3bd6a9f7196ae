"""How :class:`~dpconvex.PrivateLargeMarginGaussian` turns its parameters into a problem.

The parameters checked against each other (:func:`check_consistency`), the budget
(:func:`fit_budget`), Λ of ``lam="auto"`` (:func:`auto_lam`), the template
(:func:`build_template`), the released Φ and the certificate of a fit with a component
assignment; and the plan (:func:`plan_fit`, the parameters and the public shape (n, C, d)
only), which chooses among three learners: ``"pairwise"``, the paper's PSD-constrained
template, pure ε; ``"softmax"``, the unconstrained softmax template on a public feature map
(docs/privacy/large_margin_softmax.md#privacy-large-margin-defaults), pure ε or Gaussian
objective perturbation ([CMS]_, [KST12]_); ``"centroid"``, DP class centroids released as Φ
(privacy-centroid-switch).

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
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..._validation import LAM, Auto, Constraint, Float, _short_repr, check_float
from ...errors import MAX_LEVEL, ParameterError, PrivacyError
from ...objectives.losses import Frobenius, HuberHinge
from ...privacy.budget import Budget, default_delta, remaining
from ...privacy.certificate import Certificate, LamRule, Line, RowMap
from ...privacy.composition import compose_sequential
from ...privacy.declarations import vouch_names
from ...privacy.mechanisms import Mechanism, MechanismMenu
from ...privacy.mechanisms.base import (
    at_modulus,
    half_epsilon_modulus,
    hessian_trace_bound,
    resolve_mechanism,
)
from ...privacy.release import release
from ...privacy.rules.large_margin import (
    components_reason,
    is_centroid,
    resolved_components,
    resolved_loss,
    resolved_mechanism,
    resolved_row_norm,
    resolved_structure,
    uses_centroid,
)
from ...solvers import get_backend
from ...templates.feature_map import check_feature_options, feature_map_of
from ...templates.large_margin import LargeMarginGaussianTemplate, MatrixTerm
from ...templates.large_margin_softmax import LargeMarginSoftmaxTemplate
from ..base import NO_CONTEXT, FitPlan, Prepared, issued
from .centroid import centroid_estimator, centroid_notes, check_centroid_params, row_notes
from .components import ComponentAssignment, planned_assignment

if TYPE_CHECKING:
    from ...privacy.rules.large_margin import LargeMarginSettings
    from ...templates.base import Template

#: The two templates of the objective learners (pairwise PSD, softmax on a feature map).
LargeMarginTemplate = LargeMarginGaussianTemplate | LargeMarginSoftmaxTemplate

__all__ = [
    "CENTROID_LEARNER",
    "LARGE_MARGIN_MENU",
    "LargeMarginFacts",
    "PAIRWISE_LEARNER",
    "SOFTMAX_LEARNER",
    "TEMPLATES",
    "auto_lam",
    "build_template",
    "certify_prepared",
    "check_consistency",
    "compose_planned",
    "compose_with_assignment",
    "fit_budget",
    "noise_family",
    "objective_budget",
    "objective_part",
    "plan_fit",
    "planned_for",
    "public_template",
    "released_matrices",
]

PAIRWISE_LEARNER = "pairwise"
SOFTMAX_LEARNER = "softmax"
CENTROID_LEARNER = "centroid"

#: The key of the objective perturbation's share in ``FitPlan.parts``.
OBJECTIVE = "objective perturbation"
#: The key of the DP k-means share in ``FitPlan.parts``.
KMEANS = "k-means"

#: ``loss="softmax"``: the softmax (cross-entropy) loss on the scores −zᵀΦ_c z.
SOFTMAX = "softmax"
#: lam='auto': μ = max(AUTO_LAM_FLOOR, μ_half, κ·s(μ)/n)
#: (docs/privacy/large_margin_softmax.md#privacy-softmax-lambda-rule).
AUTO_LAM_KAPPA = 1.0
AUTO_LAM_FLOOR = 1e-4
#: The certificate line of lam='auto' (the value is the plan's).
LAM_RULE = (f"lam='auto': max({AUTO_LAM_FLOOR:g}, mu_half, {AUTO_LAM_KAPPA:g} * s / n), "
            "s the public per-coordinate noise scale "
            "(docs/privacy/large_margin_softmax.md#privacy-softmax-lambda-rule)")
#: Largest ``gamma``. The trace term's gradient γI outweighs the whole loss gradient (at
#: most C − 1 in norm: |ℓ′| <= 1, ‖zzᵀ‖ <= 1) once γ > C − 1, so the Ψ blocks are already
#: 0 well below this; above it the solver's conditioning fails (a capped, refused solve
#: after minutes).
MAX_GAMMA = 1e6
#: Largest ``n_components`` (K per class).
MAX_COMPONENTS = 10**4
#: Largest ``kmeans_iter``.
MAX_KMEANS_ITER = 10**4
#: Largest ``verbose``: the largest level of :func:`dpconvex.errors.verbosity`.
MAX_VERBOSE = MAX_LEVEL


@dataclass(frozen=True)
class Centers(Constraint):
    """``centers``: finite real numbers (the shape (C, K, d) is checked once C and d are known)."""

    def check(self, name: str, value: Any, owner: str, noun: str = "parameter") -> np.ndarray:
        c = None  # value as an array of finite floats, if it is one (not a string, a dict, ...)
        if not isinstance(value, (str, bytes, dict)):
            try:
                raw = np.asarray(value)
                if raw.dtype.kind in "biufO":
                    c = np.asarray(raw, dtype=float)
            except (TypeError, ValueError, OverflowError):
                pass
        if c is None or not np.all(np.isfinite(c)):
            raise ParameterError(f"The '{name}' {noun} of {owner} must be None or {self}. "
                                 f"Got {_short_repr(value)} instead.")
        return c

    def __str__(self) -> str:
        return "a finite array of floats of shape (n_classes, n_components, n_features)"


@dataclass(frozen=True)
class MatrixTerms(Constraint):
    """``extra_terms``: a sequence of :class:`~dpconvex.templates.large_margin.MatrixTerm`."""

    def check(self, name: str, value: Any, owner: str, noun: str = "parameter") -> Any:
        if isinstance(value, (str, bytes, dict)) or not isinstance(value, Iterable) or not all(
                isinstance(t, MatrixTerm) for t in list(value)):
            raise ParameterError(f"The '{name}' {noun} of {owner} must be None or {self}. "
                                 f"Got {_short_repr(value)} instead.")
        return value

    def __str__(self) -> str:
        return "a sequence of MatrixTerm"


#: The mechanisms of the large-margin objective (privacy-large-margin-softmax): its own Gaussian objective
#: perturbation is offered as "gaussian_objective" (``mechanism="centroid"`` releases
#: through the class-sum estimator's menu instead).
LARGE_MARGIN_MENU = MechanismMenu(
    {"objective": "objective", "none": "none", "gaussian_objective": "gaussian_objective_lm"},
    auto=("objective", "gaussian_objective"), routes=("centroid",))


#: ``lam`` of an objective without noise: "auto" or Λ >= 0 (no privacy proof needs Λ > 0).
_LAM_WITHOUT_NOISE = Auto(Float(low_inclusive=True))


def check_consistency(est: LargeMarginSettings, mech: Mechanism) -> None:
    """The rules across the estimator's parameters (each alone is checked by its table).

    ``lam`` against the mechanism; ``structure`` and ``feature_weights`` against the
    loss; ``extra_terms`` and ``delta`` against the loss and the mechanism; with
    ``mechanism="centroid"``, the options an objective would use.

    Parameters
    ----------
    est : PrivateLargeMarginGaussian
        The estimator.
    mech : Mechanism
        Its resolved mechanism.

    Raises
    ------
    PrivacyError
        ``lam <= 0`` with a private mechanism.
    ParameterError
        Parameters that do not go together (e.g. extra terms with the softmax loss, a pairwise
        loss with an (ε, δ) mechanism, δ > 0 with a pure one, centers of another shape).

    Examples
    --------
    >>> from dpconvex import PrivateLargeMarginGaussian
    >>> from dpconvex.estimators.large_margin.learners import check_consistency
    >>> objective = get_mechanism("objective")
    >>> check_consistency(PrivateLargeMarginGaussian(lam=0.1), objective)
    >>> check_consistency(PrivateLargeMarginGaussian(lam=0.0), objective)
    Traceback (most recent call last):
    ...
    dpconvex.errors.PrivacyError: The 'lam' parameter of PrivateLargeMarginGaussian must be > 0 ...
    """
    owner = type(est).__name__
    # lam: > 0 for a private objective (the privacy proof needs it), >= 0 without noise,
    # > 0 for the centroids (unused there, but a bad value is refused)
    lam = est.lam
    objective = not is_centroid(est)
    if (objective and mech.private and isinstance(lam, numbers.Real)
            and not isinstance(lam, bool) and lam <= 0):
        raise PrivacyError(
            f"The 'lam' parameter of {owner} must be > 0 with a private mechanism. "
            f"Got {_short_repr(lam)} "
            "instead: "
            "strong convexity fails, and objective perturbation needs a strongly convex "
            "objective. The "
            "Huber and softmax losses are not strongly convex and the trace term gamma * tr(Psi) "
            "is "
            "linear, so without (lam/2) * ||Phi||_F^2 the privacy proof fails. Use lam > 0 (e.g. "
            "lam=2e-2 or lam='auto'), or mechanism='none' for a non-private fit."
        )
    rule = _LAM_WITHOUT_NOISE if objective and not mech.private else LAM
    rule.check("lam", lam, owner)
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
            "minimizer. "
            f"Got {est.loss!r} instead (a pairwise loss): use loss='softmax' (the pairwise "
            "template is "
            "PSD-constrained and pure epsilon-DP only; use delta=None there)."
        )
    if est.delta is not None:
        check_float("delta", est.delta, owner, low_inclusive=mech.pure, high=1.0)
        if mech.pure and est.delta != 0:
            raise ParameterError(
                f"The 'delta' parameter of {owner} must be None or 0 with the "
                f"pure epsilon-DP mechanism {est.mechanism!r}. Got {est.delta!r}."
            )


def lam_is_auto(lam: Any) -> bool:
    return isinstance(lam, str) and lam == "auto"


def objective_budget(est: LargeMarginSettings, mech: Mechanism,
                     assign_epsilon: float | None, n: int) -> Budget:
    """The budget left for the perturbation after a private component assignment.

    Parameters
    ----------
    est : PrivateLargeMarginGaussian
        The estimator (its ``epsilon`` and ``delta``).
    mech : Mechanism
        The objective's mechanism.
    assign_epsilon : float or None
        The ε the component assignment spends (None or 0: none).
    n : int
        The number of records (for the default δ).

    Returns
    -------
    Budget

    Examples
    --------
    >>> from dpconvex import PrivateLargeMarginGaussian
    >>> from dpconvex.estimators.large_margin.learners import objective_budget
    >>> objective_budget(PrivateLargeMarginGaussian(), get_mechanism("objective"), 0.25, 100)
    Budget(epsilon=0.75, delta=0.0)
    """
    eps = float(est.epsilon) if mech.private else math.inf
    return fit_budget(est, mech, remaining(eps, assign_epsilon) if mech.private else eps, n)


def fit_budget(est: LargeMarginSettings, mech: Mechanism, epsilon: float, n: int) -> Budget:
    """(ε, δ) of the fit: δ = 0 for pure mechanisms, else ``delta`` or min(1e-5, 1/n²).

    Parameters
    ----------
    est : PrivateLargeMarginGaussian
        The estimator (its ``delta``).
    mech : Mechanism
        The mechanism (unlimited budget when it is not private).
    epsilon : float
        The ε of the fit.
    n : int
        The number of records.

    Returns
    -------
    Budget

    Examples
    --------
    >>> from dpconvex import PrivateLargeMarginGaussian
    >>> from dpconvex.estimators.large_margin.learners import fit_budget
    >>> est = PrivateLargeMarginGaussian(delta=1e-6)
    >>> fit_budget(est, get_mechanism("gaussian_objective_lm"), 1.0, 100)
    Budget(epsilon=1.0, delta=1e-06)
    >>> fit_budget(est, get_mechanism("objective"), 1.0, 100)
    Budget(epsilon=1.0, delta=0.0)
    """
    if not mech.private:
        return Budget.unlimited()
    if mech.pure:
        return Budget(epsilon)
    delta = est.delta if est.delta is not None else default_delta(n)
    return Budget(epsilon, float(delta))


def auto_lam(template: LargeMarginTemplate, mech: Mechanism, budget: Budget,
             kappa: float = AUTO_LAM_KAPPA) -> float:
    """lam='auto': the root of μ = max(1e-4, μ_half, κ·s(μ)/n)
    (docs/privacy/large_margin_softmax.md#privacy-softmax-lambda-rule).

    μ_half is the modulus at which the one-sided Jacobian slack is ε/2 (below it the calibration's Δ branch
    raises the modulus anyway); s(μ) the public per-coordinate noise scale, non-increasing in μ, so the root
    is unique and found by bisection in log μ. Public constants only (n, ε, δ, C, D).

    Parameters
    ----------
    template : LargeMarginTemplate
        The template of the public problem (its n and declared constants).
    mech : Mechanism
        The objective's mechanism (1e-4 when it is not private).
    budget : Budget
        The objective's budget.
    kappa : float, default=AUTO_LAM_KAPPA
        κ.

    Returns
    -------
    float
        Λ.

    Examples
    --------
    >>> from dpconvex import PrivateLargeMarginGaussian
    >>> est = PrivateLargeMarginGaussian(classes=[-1, 1], random_state=0)
    >>> plan = est.plan_for(X, y)
    >>> from dpconvex.estimators.large_margin.learners import auto_lam, public_template
    >>> template = public_template(est, plan)
    >>> auto_lam(template, plan.mechanism, plan.budget) == plan.lam
    True
    """
    n = template.n
    if not mech.private:
        return AUTO_LAM_FLOOR
    consts = template.privacy_constants()
    T, r = hessian_trace_bound(consts), consts.hessian_rank
    lo = max(AUTO_LAM_FLOOR, half_epsilon_modulus(budget.epsilon, n, T, r) * (1.0 + 1e-9))

    # the public per-coordinate noise scale s(μ) (σ, or √p·2G/ε′ for norm-Gamma) of the
    # objective's noise (approximate minima's inner mechanism, at the whole budget), from its
    # calibration on the template's public problem at the modulus μ
    inner = getattr(mech, "inner", mech)
    try:  # k, where the template declares it (a Gaussian mechanism refuses a template without)
        k = getattr(template, "gradient_difference_rank", None)
    except PrivacyError:  # a constrained softmax template
        k = None
    problem = replace(consts, n=n, gradient_difference_rank=k, name=template.name)

    def rule(mu: float) -> float:
        cal = inner.calibrate(at_modulus(problem, mu), budget)
        return max(lo, kappa * float(cal.coordinate_scale) / n)

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


def build_template(est: LargeMarginSettings, Z: Any, y_idx: np.ndarray | None,
                   comps: np.ndarray | None, C: int, K: int, assignment: str, mech: Mechanism,
                   budget: Budget, *, lam: float | None = None,
                   shape: tuple[int, int] | None = None) -> LargeMarginTemplate:
    """The template of a fit: softmax (unconstrained) or the paper's pairwise PSD template.

    ``lam``: with lam='auto', the value the fit's plan resolved (None: apply the rule here).
    ``Z`` None: the template of the public problem of ``shape`` = (n, d) alone (``of_problem``:
    no records, labels or components read).

    Parameters
    ----------
    est : PrivateLargeMarginGaussian
        The estimator (its loss, structure, Λ and norm bound).
    Z : ndarray of shape (n, d + 1) or None
        The records z (None: the public problem alone).
    y_idx : ndarray of shape (n,) or None
        Class indices.
    comps : ndarray of shape (n,) or None
        Component indices (K > 1).
    C, K : int
        Classes and components per class.
    assignment : str
        The component assignment, for the certificate.
    mech : Mechanism
        The objective's mechanism (for Λ's rule).
    budget : Budget
        The objective's budget (for Λ's rule).
    lam : float or None, default=None
        Λ as resolved by the plan.
    shape : tuple of int or None, default=None
        (n, d) with ``Z`` None.

    Returns
    -------
    LargeMarginTemplate
        A softmax or a pairwise template.

    Examples
    --------
    >>> from dpconvex import PrivateLargeMarginGaussian
    >>> est = PrivateLargeMarginGaussian(classes=[-1, 1], random_state=0)
    >>> plan = est.plan_for(X, y)
    >>> from dpconvex.estimators.large_margin.learners import build_template
    >>> template = build_template(est, None, None, None, 2, 1, "trivial", plan.mechanism,
    ...                           plan.budget, lam=0.5, shape=(40, 3))
    >>> type(template).__name__, template.n, template.lam
    ('LargeMarginSoftmaxTemplate', 40, 0.5)
    """
    lam0 = 1.0 if lam_is_auto(est.lam) else float(est.lam)
    loss = resolved_loss(est)
    n, d = (Z.shape[0], int(Z.shape[1]) - 1) if Z is not None else shape  # type: ignore[misc]
    template: LargeMarginTemplate
    if isinstance(loss, str):
        structure = resolved_structure(est)
        weights = check_feature_options(structure, getattr(est, "feature_weights", None),
                                        type(est).__name__, softmax=True)
        softmax = {"n_classes": C, "lam": lam0, "n_components": K, "assignment": assignment,
                   "data_norm": float(est.data_norm),
                   "feature_map": feature_map_of(weights, structure, float(est.data_norm), d)}
        template = (LargeMarginSoftmaxTemplate.of_problem(n, d, **softmax) if Z is None else
                    LargeMarginSoftmaxTemplate(Z, y_idx, comps if K > 1 else None, **softmax))
    else:
        pairwise = {"n_classes": C, "n_components": K, "lam": lam0, "gamma": float(est.gamma),
                    "loss": loss if loss is not None else HuberHinge(est.h),
                    "extra_terms": tuple(est.extra_terms or ()), "assignment": assignment}
        template = (LargeMarginGaussianTemplate.of_problem(n, d, **pairwise) if Z is None else
                    LargeMarginGaussianTemplate(Z, y_idx, comps, **pairwise))
    if lam_is_auto(est.lam):
        template.regularizer = Frobenius(auto_lam(template, mech, budget) if lam is None else lam)
    return template


def released_matrices(template: LargeMarginTemplate, theta: np.ndarray, C: int, K: int, D: int
                      ) -> tuple[np.ndarray, float]:
    """(Φ of shape (C, K, D, D), the common PSD shift t) — post-processing of the release.

    Parameters
    ----------
    template : LargeMarginTemplate
        The template released from.
    theta : ndarray
        The released parameters.
    C, K, D : int
        Classes, components per class and the width of a record z.

    Returns
    -------
    Phi : ndarray of shape (C, K, D, D)
    shift : float
        t (0 for the pairwise template).

    Examples
    --------
    >>> from dpconvex import PrivateLargeMarginGaussian
    >>> est = PrivateLargeMarginGaussian(classes=[-1, 1], random_state=0)
    >>> plan = est.plan_for(X, y)
    >>> from dpconvex.estimators.large_margin.learners import released_matrices
    >>> template = est.prepare(X, y, plan).template
    >>> Phi, shift = released_matrices(template, np.zeros(template.noise_shape), 2, 1, 4)
    >>> Phi.shape, shift
    ((2, 1, 4, 4), 0.0)
    """
    if isinstance(template, LargeMarginSoftmaxTemplate):
        Phi, t = template.release_shift(theta)
        return Phi.reshape(C, K, D, D), t
    return np.asarray(theta).reshape(C, K, D, D), 0.0


def lam_note(template: LargeMarginTemplate, est: LargeMarginSettings) -> list[LamRule]:
    """The certificate's Λ rule for lam='auto' (empty for a numeric lam)."""
    return [LamRule(template.lam, "auto", LAM_RULE)] if lam_is_auto(est.lam) else []


def fit_states(est: LargeMarginSettings, template: LargeMarginTemplate, label_note: Any, n: int,
               C: int, d: int) -> list[Any]:
    """What a fit's certificate states beside its guarantee, and its dry runs alike: the label
    set, Λ's rule, the rows' maps and the "auto" choices."""
    return [
        label_note,
        *lam_note(template, est),
        *row_notes(est),
        *objective_reasons(est, n, C, d),
    ]


def objective_reasons(est: LargeMarginSettings, n: int, C: int, d: int) -> list[Line | str]:
    """The certificate lines of the objective path's "auto" choices (mechanism, K).

    Parameters
    ----------
    est : LargeMarginSettings
        The estimator (its ``mechanism``, ``delta``, menu and ``n_components``).
    n, C, d : int
        The public shape: records, classes and features.

    Returns
    -------
    list of Line or str
        One line per choice made by a rule; none for a choice the user gave.

    Examples
    --------
    >>> from dpconvex import PrivateLargeMarginGaussian
    >>> from dpconvex.estimators.large_margin.learners import objective_reasons
    >>> est = PrivateLargeMarginGaussian(epsilon=1.0, data_norm=1.0)
    >>> [type(line).__name__ for line in objective_reasons(est, 1000, 3, 2)]
    ['MechanismChoice', 'ComponentsRule']
    >>> est = PrivateLargeMarginGaussian(epsilon=1.0, data_norm=1.0, mechanism="objective")
    >>> [type(line).__name__ for line in objective_reasons(est, 1000, 3, 2)]
    ['ComponentsRule']
    """
    return [
        r
        for r in (
            resolve_mechanism(est.mechanism, est.delta, est.mechanism_menu.auto).reason,
            components_reason(est, n, C, d),
        )
        if r
    ]


def compose_with_assignment(obj: Certificate, assign: Any, eps_total: float) -> Certificate:
    """Certificate of the whole fit: component assignment + objective perturbation.

    A non-private fit (``mechanism="none"``) keeps the baseline's certificate (no
    guarantee) and states the assignment that ran, with its noiseless k-means as a part;
    a private objective perturbation on components of a non-private assignment is not
    private end to end; a private assignment is composed sequentially with it.

    Parameters
    ----------
    obj : Certificate
        The objective perturbation's certificate.
    assign : ComponentAssignment
        The component assignment that ran.
    eps_total : float
        The ε asked for the whole fit.

    Returns
    -------
    Certificate
        The whole fit's (``obj`` itself where there is nothing to compose).

    Examples
    --------
    >>> import math
    >>> from dpconvex import Certificate
    >>> from dpconvex.estimators.large_margin.components import ComponentAssignment
    >>> from dpconvex.estimators.large_margin.learners import compose_with_assignment
    >>> baseline = Certificate("non-private baseline (demo)", math.inf, math.inf, private=False)
    >>> assign = ComponentAssignment(None, "dp_kmeans", False, 0.0,
    ...                              description="per-class k-means without noise")
    >>> compose_with_assignment(baseline, assign, math.inf).assumptions
    ['component assignment: per-class k-means without noise']
    """
    if not obj.private:  # the non-private baseline: no guarantee to compose
        obj.assumptions.append(f"component assignment: {assign.description}")
        if assign.certificate is not None:  # its noiseless k-means
            obj.parts.append(assign.certificate)
        return obj
    if not assign.private:
        return compose_sequential(
            [obj],
            mechanism=f"{obj.mechanism} with NON-PRIVATE component assignment",
            epsilon_requested=eps_total,
            quantities=obj.quantities,
            assumptions=[
                "PRIVACY IS NOT END-TO-END: the mixture components were assigned by a non-private "
                "rule "
                f"reading the private data (component_assignment={assign.method!r}: "
                f"{assign.description}); only the objective perturbation given those components "
                "is "
                f"{obj.epsilon:.6g}-DP, which is not a guarantee for the data set.",
                *obj.assumptions,
            ],
            solver=obj.solver,
            private=False,
        )
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
    """The noise-dominance family of ``template`` (:mod:`dpconvex.privacy.rules.noise_level`):
    "softmax" for the softmax template, "large_margin" for the pairwise one.

    Parameters
    ----------
    template : LargeMarginTemplate
        The template.

    Returns
    -------
    str

    Examples
    --------
    >>> from dpconvex import PrivateLargeMarginGaussian
    >>> est = PrivateLargeMarginGaussian(classes=[-1, 1], random_state=0)
    >>> plan = est.plan_for(X, y)
    >>> from dpconvex.estimators.large_margin.learners import noise_family, public_template
    >>> noise_family(public_template(est, plan))
    'softmax'
    """
    return "softmax" if isinstance(template, LargeMarginSoftmaxTemplate) else "large_margin"


@dataclass(frozen=True)
class LargeMarginFacts:
    """What a large-margin preparation carries besides its label set (``Prepared.labels``):
    K, n (``n_rows``), the labels as given (``y``: the centroid learner encodes them again),
    the clipped, mapped ``rows`` of the centroid learner (no template), the validated ``X``
    of an objective learner (a sweep's centroid fit maps it again), the records that
    contribute no loss (``dropped``) and the component assignment the template was built
    with (``assign``).

    Parameters
    ----------
    n_components : int, default=1
        K.
    n_rows : int, default=0
        n.
    y : array-like or None, default=None
        The labels as given.
    rows : array-like or None, default=None
        The centroid learner's clipped, mapped rows.
    X : ndarray or None, default=None
        An objective learner's validated rows.
    dropped : ndarray of bool or None, default=None
        The records that contribute no loss.
    assign : ComponentAssignment or None, default=None
        The component assignment of the template.

    Examples
    --------
    >>> from dpconvex import PrivateLargeMarginGaussian
    >>> est = PrivateLargeMarginGaussian(classes=[-1, 1], random_state=0)
    >>> plan = est.plan_for(X, y)
    >>> facts = est.prepare(X, y, plan).meta
    >>> type(facts).__name__, facts.n_components, facts.n_rows
    ('LargeMarginFacts', 1, 40)
    """

    n_components: int = 1
    n_rows: int = 0
    y: Any = None
    rows: Any = None
    X: np.ndarray | None = None
    dropped: np.ndarray | None = None
    assign: ComponentAssignment | None = None


def objective_part(plan: FitPlan) -> Budget:
    """The objective perturbation's budget in ``plan`` (all of it without DP k-means).

    Parameters
    ----------
    plan : FitPlan
        The plan of a large-margin fit.

    Returns
    -------
    Budget

    Examples
    --------
    >>> from dpconvex import PrivateLargeMarginGaussian
    >>> est = PrivateLargeMarginGaussian(classes=[-1, 1], random_state=0)
    >>> plan = est.plan_for(X, y)
    >>> from dpconvex.estimators.large_margin.learners import objective_part
    >>> objective_part(plan)
    Budget(epsilon=1.0, delta=0.0)
    """
    return plan.parts.get(OBJECTIVE, plan.budget)


class _AtShape:
    """A template's public constants at the fit's n (what ``auto_lam`` and the backend policy
    read: ``n``, ``privacy_constants()``, ``capabilities``)."""

    def __init__(self, template: Template, n: int):
        self._template, self.n = template, int(n)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._template, name)


#: The template of each learner (``FitPlan.template``).
TEMPLATES = {PAIRWISE_LEARNER: "large-margin pairwise (PSD)",
             SOFTMAX_LEARNER: "large-margin softmax (feature map)",
             CENTROID_LEARNER: "class sums (released as Phi)"}


def _objective_template(est: LargeMarginSettings, plan_n: int | None, C: int, K: int, d: int,
                        mechanism: Mechanism, budget: Budget, lam: float | None,
                        assignment: str = "(plan: not assigned)") -> Template:
    """The objective's template of the public problem of ``plan_n`` records of d features
    (None: of max(2, C K) records, which the plan reads at its n through :class:`_AtShape`),
    no records read."""
    n = max(2, C * K) if plan_n is None else plan_n
    return build_template(est, None, None, None, C, K, assignment, mechanism, budget,
                          lam=1.0 if lam is None else lam, shape=(n, d))


def _centroid_plan(est: LargeMarginSettings, plan: FitPlan) -> tuple[Any, FitPlan]:
    """The class-centroid estimator of the centroid learner and its plan, on the shape of
    ``plan`` (checked by the plan that holds it)."""
    inner = centroid_estimator(est)
    return inner, inner.plan_checked(plan.n, plan.n_classes, plan.n_features)


def plan_fit(est: LargeMarginSettings, n: int, C: int, p: int) -> FitPlan:
    """The plan of a fit on n rows, C classes and p features (public): the learner, chosen
    from the parameters and the shape, with every "auto" resolved once (mechanism, budget
    and its parts, Λ on the template's public constants, the backend).

    Parameters
    ----------
    est : PrivateLargeMarginGaussian
        The estimator, its parameters validated.
    n, C, p : int
        The public shape: records, classes, features.

    Returns
    -------
    FitPlan

    Raises
    ------
    ParameterError
        ``centers`` of another shape than (C, K, p), or a solver the template cannot take.

    Examples
    --------
    >>> from dpconvex import PrivateLargeMarginGaussian
    >>> from dpconvex.estimators.large_margin.learners import plan_fit
    >>> plan = plan_fit(PrivateLargeMarginGaussian(classes=[-1, 1]), 40, 2, 3)
    >>> plan.learner, plan.mechanism.name, plan.lam_rule == "given"
    ('softmax', 'objective', False)
    """
    if uses_centroid(est, n, C, p):
        inner_plan = centroid_estimator(est).plan_checked(n, C, p)  # the shape checked
        return FitPlan(
            estimator=type(est).__name__, n=n, n_classes=C, n_features=p,
            template=TEMPLATES[CENTROID_LEARNER], learner=CENTROID_LEARNER,
            mechanism=inner_plan.mechanism, budget=inner_plan.budget,
            backend=inner_plan.backend, lam_rule="no objective",
            options={"data_norm q": float(est.data_norm), "row_norm": resolved_row_norm(est)},
            notes=(*inner_plan.notes, *centroid_notes(est, (n, C, p))))
    learner = SOFTMAX_LEARNER if isinstance(resolved_loss(est), str) else PAIRWISE_LEARNER
    mechanism = est._mechanism()
    private = mechanism.private
    total_epsilon = float(est.epsilon) if private else math.inf
    K = resolved_components(est, n, C, p)
    if est.centers is not None and np.shape(est.centers) != (C, K, p):
        raise ParameterError(
            f"The 'centers' parameter of {type(est).__name__} must be None or an array of shape "
            f"(n_classes, n_components, n_features) = {(C, K, p)} (classes in the order of "
            f"classes_). Got shape {np.shape(est.centers)} instead.")
    total = fit_budget(est, mechanism, total_epsilon, n)
    kmeans = K > 1 and est.component_assignment == "dp_kmeans" and private
    kmeans_epsilon = float(est.kmeans_epsilon_fraction) * total_epsilon if kmeans else None
    objective = objective_budget(est, mechanism, kmeans_epsilon if kmeans else 0.0, n)
    parts = {KMEANS: Budget(kmeans_epsilon), OBJECTIVE: objective} if kmeans else {}
    if K > 1 and est.component_assignment == "gmm_nonprivate" and private:
        # the fit is not private end to end: it holds ε = ∞ (a ledger of finite budget
        # refuses it before the data are read); the objective keeps its share
        total, parts = Budget.unlimited(), {OBJECTIVE: objective}
    stub = _AtShape(_objective_template(est, None, C, K, p, mechanism, objective, None), n)
    lam, rule = ((float(auto_lam(stub, mechanism, objective)), LAM_RULE) if lam_is_auto(est.lam)
                 else (float(est.lam), "given"))
    if est.solver not in (None, "auto"):  # a solver the template cannot take: refused as fit does
        get_backend(est.solver, stub)
    backend = get_backend("auto", stub).label if est.solver in (None, "auto") else str(est.solver)
    loss = resolved_loss(est)
    options: dict[str, Any] = {
        "loss": loss if isinstance(loss, str) else
        (getattr(loss, "name", type(loss).__name__) if loss is not None else
         f"huber hinge (h = {float(est.h):g})"),
        "n_components K": K, "data_norm q": float(est.data_norm),
        "row_norm": resolved_row_norm(est),
        "component_assignment": est.component_assignment or
        ("trivial" if K == 1 else "nearest_public_center"),
        "dimension p": int(stub.dimension)}
    if learner == SOFTMAX_LEARNER:
        options["structure"] = resolved_structure(est)
    else:
        options["gamma"] = float(est.gamma)
    notes: list[LamRule | RowMap | str] = (
        [LamRule(lam, "auto", LAM_RULE)] if rule == LAM_RULE else []
    )
    notes += [*row_notes(est), *objective_reasons(est, n, C, p)]
    return FitPlan(
        estimator=type(est).__name__, n=n, n_classes=C, n_features=p,
        template=TEMPLATES[learner], learner=learner, mechanism=mechanism, budget=total,
        parts=parts, lam=lam, lam_rule=rule, backend=backend, options=options,
        notes=tuple(notes), vouch=vouch_names(est.vouch))


def public_template(est: LargeMarginSettings, plan: FitPlan) -> Template:
    """The template of ``plan``'s public problem alone (no records read): the centroid
    learner's class sums, else the objective's at the plan's Λ and component assignment.

    Parameters
    ----------
    est : PrivateLargeMarginGaussian
        The estimator.
    plan : FitPlan
        Its plan.

    Returns
    -------
    Template

    Examples
    --------
    >>> from dpconvex import PrivateLargeMarginGaussian
    >>> est = PrivateLargeMarginGaussian(classes=[-1, 1], random_state=0)
    >>> plan = est.plan_for(X, y)
    >>> from dpconvex.estimators.large_margin.learners import public_template
    >>> template = public_template(est, plan)
    >>> type(template).__name__, template.n, template.lam == plan.lam
    ('LargeMarginSoftmaxTemplate', 40, True)
    """
    if plan.learner == CENTROID_LEARNER:
        inner, inner_plan = _centroid_plan(est, plan)
        return inner.public_template(inner_plan)
    K = resolved_components(est, plan.n, plan.n_classes, plan.n_features)
    return _objective_template(est, plan.n, plan.n_classes, K, plan.n_features, plan.mechanism,
                               objective_part(plan), plan.lam, planned_for(est, plan).description)


def certify_prepared(est: LargeMarginSettings, prep: Prepared, plan: FitPlan) -> Certificate:
    """The dry run of ``plan`` on ``prep``: no noise drawn, nothing charged. The centroid
    learner's is its class-centroid part's public ``certify`` of the plan's shape (``prep``
    holds the public problem alone: rows go by :func:`~.centroid.certify_centroid`), inside
    the hold of the fit as :func:`~.centroid.fit_centroid` runs it.

    Parameters
    ----------
    est : PrivateLargeMarginGaussian
        The estimator.
    prep : Prepared
        Its preparation for ``plan``.
    plan : FitPlan
        Its plan.

    Returns
    -------
    Certificate

    Examples
    --------
    >>> from dpconvex import PrivateLargeMarginGaussian
    >>> est = PrivateLargeMarginGaussian(classes=[-1, 1], random_state=0)
    >>> plan = est.plan_for(X, y)
    >>> from dpconvex.estimators.large_margin.learners import certify_prepared
    >>> certificate = certify_prepared(est, est.prepare(X, y, plan), plan)
    >>> certificate.epsilon, certificate.private
    (1.0, True)
    """
    if plan.learner == CENTROID_LEARNER:
        inner, inner_plan = _centroid_plan(est, plan)
        with issued(NO_CONTEXT.inner(None, held=True, plan=inner_plan)) as part:
            certificate = inner.certify(n=plan.n, n_classes=plan.n_classes,
                                        n_features=plan.n_features, context=part)
        certificate.state(*centroid_notes(est, (plan.n, plan.n_classes, plan.n_features)))
        return certificate
    certificate = release(prep.template, plan.mechanism, objective_part(plan), dry_run=True,
                          vouch=est.vouch, vouch_unused="ignore").certificate
    certificate = compose_planned(est, plan, certificate)
    label_source = None if prep.labels is None else prep.labels.assumption  # None: no rows
    certificate.state(label_source, *plan.notes,  # the Λ rule, as a fit states it
                      *([LamRule(plan.lam, "auto", LAM_RULE)] if lam_is_auto(est.lam) else []))
    return certificate


def planned_for(est: LargeMarginSettings, plan: FitPlan) -> ComponentAssignment:
    """The component assignment of ``plan`` from public facts
    (:func:`~.components.planned_assignment`).

    Parameters
    ----------
    est : PrivateLargeMarginGaussian
        The estimator.
    plan : FitPlan
        Its plan.

    Returns
    -------
    ComponentAssignment
        Its method, privacy and description (no records read).

    Examples
    --------
    >>> from dpconvex import PrivateLargeMarginGaussian
    >>> est = PrivateLargeMarginGaussian(classes=[-1, 1], random_state=0)
    >>> plan = est.plan_for(X, y)
    >>> from dpconvex.estimators.large_margin.learners import planned_for
    >>> planned_for(est, plan).description
    'trivial (one component per class)'
    """
    kmeans = plan.parts.get(KMEANS)
    return planned_assignment(
        est.component_assignment, plan.n_classes,
        resolved_components(est, plan.n, plan.n_classes, plan.n_features), plan.n_features,
        n=plan.n, data_norm=float(est.data_norm),
        epsilon=None if kmeans is None else kmeans.epsilon, centers=est.centers,
        n_iter=int(est.kmeans_iter))


def compose_planned(
    est: LargeMarginSettings, plan: FitPlan, objective: Certificate
) -> Certificate:
    """A dry run's objective certificate composed with the planned component assignment, as
    the fit composes them; with ``random_state`` given, every noised part marked seeded, as the
    fit's one generator seeds them all (``Certificate.seeded``).

    Parameters
    ----------
    est : PrivateLargeMarginGaussian
        The estimator.
    plan : FitPlan
        Its plan.
    objective : Certificate
        The dry run's certificate of the objective perturbation.

    Returns
    -------
    Certificate

    Examples
    --------
    >>> from dpconvex import PrivateLargeMarginGaussian
    >>> est = PrivateLargeMarginGaussian(classes=[-1, 1], random_state=0)
    >>> plan = est.plan_for(X, y)
    >>> from dpconvex.estimators.large_margin.learners import compose_planned
    >>> template = est.prepare(X, y, plan).template
    >>> objective = release(template, plan.mechanism, plan.budget, dry_run=True).certificate
    >>> composed = compose_planned(est, plan, objective)
    >>> composed.epsilon, composed.seeded
    (1.0, True)
    """
    requested = float(est.epsilon) if plan.mechanism.private else math.inf
    composed = compose_with_assignment(objective, planned_for(est, plan), requested)
    if est.random_state is not None:
        _mark_seeded(composed)
    return composed


def _mark_seeded(certificate: Certificate) -> bool:
    """Mark the private leaves of ``certificate`` seeded, and each composition with a seeded part."""
    marked = [_mark_seeded(part) for part in certificate.parts]
    certificate.seeded = any(marked) or (not certificate.parts and certificate.private)
    return certificate.seeded
