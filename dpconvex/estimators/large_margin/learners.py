"""The three learners behind :class:`~dpconvex.PrivateLargeMarginGaussian`, chosen in ``plan``.

* ``"pairwise"``: the paper's PSD-constrained template (Huber hinge on the pairwise margins,
  trace and Frobenius regularizers; Pathak & Raj 2010, 2012), pure ε objective perturbation;
* ``"softmax"``: the unconstrained softmax template on a public feature map
  (docs/privacy/large_margin_softmax.md#privacy-feature-map-structures, privacy-large-margin-defaults), pure ε
  or Gaussian objective perturbation;
* ``"centroid"``: DP class centroids released as Φ
  (docs/privacy/large_margin_softmax.md#privacy-centroid-switch).

:func:`choose_learner` reads the parameters and the public shape (n, C) only; each
learner's ``plan`` resolves its "auto" options once (mechanism, budget and its parts, Λ
by the rule of privacy-softmax-lambda-rule on the template's public constants, the backend) into a
:class:`~dpconvex.estimators.base.FitPlan`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ...privacy.budget import Budget
from ...privacy.certificate import LamRule
from ...privacy.release import release
from ...privacy.rules.large_margin import (
    centroid_reason,
    components_reason,
    resolved_components,
    resolved_loss,
    resolved_row_norm,
    resolved_structure,
    uses_centroid,
)
from ...privacy.rules.mechanism import resolve_mechanism
from ...solvers.registry import auto_backend
from ..base import FitPlan, Prepared, PreparedFacts
from .centroid import PHI_NOTE, centroid_estimator, row_notes
from .components import ComponentAssignment
from .options import (
    AUTO_LAM_FLOOR,
    AUTO_LAM_KAPPA,
    auto_lam,
    build_template,
    fit_budget,
    lam_is_auto,
    objective_budget,
)

if TYPE_CHECKING:
    from ...privacy.mechanisms.base import Mechanism
    from ...templates.base import Template
    from .parameters import LargeMarginEstimator

__all__ = ["CENTROID_LEARNER", "LEARNERS", "LargeMarginFacts", "PAIRWISE_LEARNER", "SOFTMAX_LEARNER",
           "choose_learner", "learner_of", "objective_part"]

PAIRWISE_LEARNER = "pairwise"
SOFTMAX_LEARNER = "softmax"
CENTROID_LEARNER = "centroid"

#: The key of the objective perturbation's share in ``FitPlan.parts``.
OBJECTIVE = "objective perturbation"
#: The key of the DP k-means share in ``FitPlan.parts``.
KMEANS = "k-means"

#: The certificate line of lam='auto' (the value is the plan's).
LAM_RULE = (f"lam='auto': max({AUTO_LAM_FLOOR:g}, mu_half, {AUTO_LAM_KAPPA:g} * s / n), "
            "s the public per-coordinate noise scale "
            "(docs/privacy/large_margin_softmax.md#privacy-softmax-lambda-rule)")


@dataclass(frozen=True)
class LargeMarginFacts(PreparedFacts):
    """A large-margin problem's facts: its shape, the labels and the rows its release reads.

    Attributes
    ----------
    n_classes, n_components : int
        C, the size of the label set, and K, the components per class.
    n_rows : int
        The records of the template (n).
    y : array-like or None
        The labels as given (the centroid learner's inner fit encodes them again).
    rows : array-like or None
        The clipped, mapped rows of the centroid learner (which builds no template).
    X : ndarray or None
        The validated rows of an objective learner (a sweep's centroid fit maps them again
        instead of keeping a second copy).
    dropped : ndarray of bool or None
        The records that contribute no loss (:attr:`~dpconvex.data.labels.LabelSet.dropped`;
        zeroed in every map of X).
    assign : ComponentAssignment or None
        The component assignment the template was built with.
    """

    n_classes: int = 0
    n_components: int = 1
    n_rows: int = 0
    y: Any = None
    rows: Any = None
    X: np.ndarray | None = None
    dropped: np.ndarray | None = None
    assign: ComponentAssignment | None = None


def objective_part(plan: FitPlan) -> Budget:
    """The objective perturbation's budget in ``plan`` (all of it without DP k-means)."""
    return plan.parts.get(OBJECTIVE, plan.budget)


class _AtShape:
    """A template's public constants at the fit's n (constants that do not depend on the rows).

    ``auto_lam`` and the backend policy read ``n``, ``privacy_constants()`` and
    ``capabilities`` only; ``cvxpy_size()`` is the size at the fit's n.
    """

    def __init__(self, template: Template, n: int):
        self._template, self.n = template, int(n)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._template, name)

    def cvxpy_size(self) -> int:
        return self.n * int(self._template.dimension)


def _stub_rows(C: int, K: int, d: int, n: int | None = None) -> tuple[np.ndarray, ...]:
    """Rows of zeros (z = 0: constant loss) with every class and component present.

    The rows are one read-only zero broadcast to the shape (no n x (d + 1) array).
    """
    n_rows = max(2, C * K) if n is None else n
    row_index = np.arange(n_rows)
    return (np.broadcast_to(0.0, (n_rows, d + 1)), (row_index % C).astype(np.int64),
            ((row_index // C) % K).astype(np.int64))


@dataclass(frozen=True)
class _ObjectiveLearner:
    """Objective perturbation of a large-margin template (pairwise or softmax)."""

    name: str
    template: str

    def _template(self, est: LargeMarginEstimator, plan_n: int | None, C: int, K: int,
                  d: int, mechanism: Mechanism, budget: Budget, lam: float | None) -> Template:
        Z, y, components = _stub_rows(C, K, d, plan_n)
        return build_template(est, Z, y, components, C, K, "(plan: not assigned)", mechanism,
                              budget, lam=1.0 if lam is None else lam)

    def plan(self, est: LargeMarginEstimator, n: int, C: int, p: int) -> FitPlan:
        mechanism = est._mechanism()
        private = mechanism.private
        total_epsilon = float(est.epsilon) if private else math.inf
        K = resolved_components(est, n, C, p)
        total = fit_budget(est, mechanism, total_epsilon, n)
        kmeans = K > 1 and est.component_assignment == "dp_kmeans" and private
        kmeans_epsilon = float(est.kmeans_epsilon_fraction) * total_epsilon if kmeans else None
        objective = objective_budget(est, mechanism, kmeans_epsilon if kmeans else 0.0, n)
        parts = {KMEANS: Budget(kmeans_epsilon), OBJECTIVE: objective} if kmeans else {}
        stub = _AtShape(self._template(est, None, C, K, p, mechanism, objective, None), n)
        if lam_is_auto(est.lam):
            lam, rule = float(auto_lam(stub, mechanism, objective)), LAM_RULE
        else:
            lam, rule = float(est.lam), "given"
        backend = (auto_backend(stub).label if est.solver in (None, "auto")
                   else str(est.solver))
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
        if self.name == SOFTMAX_LEARNER:
            options["structure"] = resolved_structure(est)
        else:
            options["gamma"] = float(est.gamma)
        notes: list = [LamRule(lam, "auto", LAM_RULE)] if rule == LAM_RULE else []
        notes += row_notes(est)
        reasons = [resolve_mechanism(est.mechanism, est.delta, est.mechanism_menu.auto).reason,
                   components_reason(est, n, C, p)]
        notes += filter(None, reasons)
        return FitPlan(
            estimator=type(est).__name__, n=n, n_classes=C, n_features=p, template=self.template,
            learner=self.name, mechanism=mechanism, budget=total, parts=parts, lam=lam,
            lam_rule=rule, backend=backend, options=options, notes=tuple(notes))

    def prepare_shape(self, est: LargeMarginEstimator, plan: FitPlan) -> Prepared:
        K = resolved_components(est, plan.n, plan.n_classes, plan.n_features)
        template = self._template(est, plan.n, plan.n_classes, K, plan.n_features,
                                  plan.mechanism, objective_part(plan), plan.lam)
        return Prepared(template=template, meta=LargeMarginFacts(plan.n_features))

    def certify(self, est: LargeMarginEstimator, prep: Prepared, plan: FitPlan) -> Any:
        certificate = release(prep.template, plan.mechanism, objective_part(plan),
                              dry_run=True).certificate
        certificate.state(*plan.notes)
        return certificate


@dataclass(frozen=True)
class _CentroidLearner:
    """DP class centroids (:class:`~dpconvex.PrivateGaussianCentroid`) released as Φ."""

    name: str = CENTROID_LEARNER
    template: str = "class sums (released as Phi)"

    def _inner_plan(self, est: LargeMarginEstimator, plan: FitPlan) -> tuple[Any, FitPlan]:
        inner = centroid_estimator(est)
        return inner, inner.plan(plan.n, plan.n_classes, plan.n_features)

    def plan(self, est: LargeMarginEstimator, n: int, C: int, p: int) -> FitPlan:
        inner = centroid_estimator(est)
        inner_plan = inner.plan(n, C, p)
        return FitPlan(
            estimator=type(est).__name__, n=n, n_classes=C, n_features=p, template=self.template,
            learner=self.name, mechanism=inner_plan.mechanism, budget=inner_plan.budget,
            backend=inner_plan.backend,
            lam_rule="no objective",
            options={"data_norm q": float(est.data_norm), "row_norm": resolved_row_norm(est)},
            notes=(*inner_plan.notes, *row_notes(est), PHI_NOTE,
                   *filter(None, [centroid_reason(est, n, C, p), components_reason(est, n, C, p)])))

    def prepare_shape(self, est: LargeMarginEstimator, plan: FitPlan) -> Prepared:
        inner, inner_plan = self._inner_plan(est, plan)
        return inner.prepare_shape(inner_plan)

    def certify(self, est: LargeMarginEstimator, prep: Prepared, plan: FitPlan) -> Any:
        inner, inner_plan = self._inner_plan(est, plan)
        certificate = inner._certify(prep, inner_plan)
        shape = (plan.n, plan.n_classes, plan.n_features)
        certificate.state(*row_notes(est), PHI_NOTE, centroid_reason(est, *shape),
                          components_reason(est, *shape))
        return certificate


#: The learners by name (``FitPlan.learner``).
LEARNERS: dict[str, Any] = {
    PAIRWISE_LEARNER: _ObjectiveLearner(PAIRWISE_LEARNER, "large-margin pairwise (PSD)"),
    SOFTMAX_LEARNER: _ObjectiveLearner(SOFTMAX_LEARNER, "large-margin softmax (feature map)"),
    CENTROID_LEARNER: _CentroidLearner(),
}


def choose_learner(est: LargeMarginEstimator, n: int, n_classes: int, n_features: int) -> Any:
    """The learner of a fit on n rows, C classes and d features (public), from the parameters."""
    if uses_centroid(est, n, n_classes, n_features):
        return LEARNERS[CENTROID_LEARNER]
    return LEARNERS[SOFTMAX_LEARNER if isinstance(resolved_loss(est), str) else PAIRWISE_LEARNER]


def learner_of(plan: FitPlan) -> Any:
    """The learner a plan was made by."""
    return LEARNERS[plan.learner]
