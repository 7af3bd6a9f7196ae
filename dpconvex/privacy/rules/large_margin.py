"""The "auto" defaults of :class:`~dpconvex.estimators.large_margin.estimator.PrivateLargeMarginGaussian`.

With only ``epsilon`` set (docs/privacy/large_margin_softmax.md#privacy-large-margin-defaults holds the
measurements): the softmax loss for one component per class and the pairwise Huber template of Pathak & Raj
(PSDM 2010) for mixtures; the feature map linear in x; pure ε-DP objective perturbation, or its Gaussian form
when ``delta > 0``; the Λ rule of privacy-softmax-lambda-rule; rows scaled to the bound with the softmax loss;
one component per class (:func:`components_per_class`); and with K = 1, C >= 3 and the objective's parameters
at their defaults, DP class centroids while r = n·ε/(C(d + 1)) is below
:data:`CENTROID_BELOW` (10 with δ > 0, 15 for pure ε;
:func:`centroids_preferred`, the front door's rule too). Every
resolution reads only n, C, d and the parameters, never the data.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any, Protocol

from ..._validation import check_float
from ..certificate import ComponentsRule
from ..mechanisms.base import MECHANISMS, resolve_mechanism

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np

    from ...data.validation import LabelSet
    from ...objectives.losses import Loss
    from ..certificate import Certificate
    from ..mechanisms import Mechanism, MechanismMenu

__all__ = ["AUTO", "CENTROID", "CENTROID_BELOW", "DEFAULT_STRUCTURE", "PAIRWISE",
           "ROW_NORMS", "centroid_reason", "centroids_preferred", "components_per_class",
           "components_reason", "is_centroid", "records_per_coordinate",
           "resolved_components", "resolved_loss", "resolved_mechanism", "resolved_row_norm",
           "resolved_structure", "single_component", "uses_centroid"]

#: The value of every parameter resolved here.
AUTO = "auto"
#: ``loss="pairwise"``: the paper's pairwise Huber template (same as ``loss=None``).
PAIRWISE = "pairwise"
#: The structure of ``structure="auto"`` with the softmax loss
#: (docs/privacy/large_margin_softmax.md#privacy-large-margin-defaults).
DEFAULT_STRUCTURE = "linear"
_SOFTMAX = "softmax"
#: ``mechanism="centroid"``: DP class centroids released as Φ
#: (docs/privacy/large_margin_softmax.md#privacy-centroid-switch).
CENTROID = "centroid"
#: Values of ``row_norm``: "auto", "unit" (x ↦ q·x/‖x‖ after clipping) or "none".
ROW_NORMS = ("auto", "unit", "none")
#: DP class centroids are preferred to the softmax objective while
#: r = n·ε/(C(d + 1)) is below this, by whether δ > 0
#: (docs/privacy/large_margin_softmax.md#privacy-centroid-switch,
#: privacy-private-classifier; chosen on the selection corpus's seeds with
#: benchmarks/corpus_run.py, the table in docs/privacy/large_margin_softmax.md).
CENTROID_BELOW: dict[bool, float] = {False: 15.0, True: 10.0}


def records_per_coordinate(n: int, n_classes: int, n_features: int, epsilon: float) -> float:
    """r = n·ε/(C(d + 1)): records per class, per unit of ε, per coordinate of a class block.

    Examples
    --------
    >>> from dpconvex.privacy.rules.large_margin import records_per_coordinate
    >>> round(records_per_coordinate(1257, 10, 64, 1.0), 3)
    1.934
    """
    return float(n) * float(epsilon) / (float(n_classes) * (float(n_features) + 1.0))


def centroids_preferred(
    n: int, n_classes: int, n_features: int, epsilon: float, delta: float | None
) -> bool:
    """Whether DP class centroids beat the softmax objective for this public shape (privacy-centroid-switch).

    C >= 3 and r = n·ε/(C(d + 1)) < ``CENTROID_BELOW[delta > 0]``. Two classes never
    switch: the centroids' shared isotropic covariance loses to the majority class on
    imbalanced binary tables where a linear model does not
    (docs/privacy/large_margin_softmax.md#privacy-centroid-switch).

    Examples
    --------
    >>> centroids_preferred(1257, 10, 64, 1.0, 1e-6)   # digits at epsilon = 1: r = 1.9
    True
    >>> centroids_preferred(30162, 2, 104, 0.1, 0.0)   # two classes: never
    False
    """
    if int(n_classes) < 3:
        return False
    r = records_per_coordinate(n, n_classes, n_features, epsilon)
    approx = (
        delta is not None
        and check_float("delta", delta, "centroids_preferred", low_inclusive=True, high=1.0) > 0
    )
    return r < CENTROID_BELOW[approx]


def components_per_class(
    n: int, n_classes: int, n_features: int, epsilon: float, delta: Any
) -> int:
    """K of ``n_components="auto"``: the mixture components per class for this public shape.

    One at every shape: no mixture gained where measured (none of the 32 (set, δ, ε) cells
    of benchmarks/recorded/mixture_components.md, docs/guide/large_margin.md). The
    arguments are the public facts a rule may read; the answer depends on none of them. The
    rules that run before the shape is known read "auto" as one (:func:`single_component`).

    Examples
    --------
    >>> from dpconvex.privacy.rules.large_margin import components_per_class
    >>> components_per_class(124, 3, 13, 1.0, None), components_per_class(10**6, 2, 10, 8.0, 1e-5)
    (1, 1)
    """
    return 1


class LargeMarginSettings(Protocol):
    """A :class:`~dpconvex.PrivateLargeMarginGaussian` as these rules and the estimator's
    parts (:mod:`dpconvex.estimators.large_margin`) see it: its parameters as set (see the
    estimator for their meaning), the methods a Dask chunk calls and the fitted attributes
    the centroid release sets."""

    loss: Loss | str | None
    n_components: int | str
    mechanism: str
    epsilon: float
    delta: float | None
    lam: float | str
    extra_terms: Sequence[object] | None
    optimality_tol: float | None
    mechanism_menu: MechanismMenu
    gamma: float
    h: float
    data_norm: float
    component_assignment: str | None
    centers: Any
    kmeans_epsilon_fraction: float
    solver: str | None
    random_state: Any
    accountant: Any
    classes: Any
    structure: str
    feature_weights: tuple[float, float, float] | None
    row_norm: str
    unknown_labels: str
    classes_: np.ndarray
    n_features_in_: int
    Phi_: np.ndarray
    centers_: np.ndarray | None
    certificate_: Certificate
    component_assignment_: str

    def _mechanism(self) -> Mechanism: ...

    def _train_z(self, Xc: np.ndarray, labels: LabelSet) -> np.ndarray: ...

    def class_scores(self, X: Any) -> np.ndarray: ...


def _is(value: Any, name: str) -> bool:
    return isinstance(value, str) and value == name


def single_component(est: LargeMarginSettings) -> bool:
    """Whether the fit has one component per class: ``n_components`` 1, or "auto".

    "auto" resolves to 1 at every public shape (:func:`components_per_class`), so the rules that run before
    the shape is known (the loss, the structure, the row map, the centroid switch) read it as one component.

    Examples
    --------
    >>> from dpconvex import PrivateLargeMarginGaussian as LM
    >>> from dpconvex.privacy.rules.large_margin import single_component
    >>> single_component(LM()), single_component(LM(n_components=2))
    (True, False)
    """
    k = est.n_components
    if _is(k, AUTO):
        return True
    return isinstance(k, numbers.Integral) and not isinstance(k, bool) and int(k) == 1


def resolved_components(est: LargeMarginSettings, n: int, n_classes: int, n_features: int) -> int:
    """K of a fit on n rows, C classes and d features: ``n_components``, or the public rule.

    Examples
    --------
    >>> from dpconvex import PrivateLargeMarginGaussian as LM
    >>> from dpconvex.privacy.rules.large_margin import resolved_components
    >>> resolved_components(LM(), 124, 3, 13), resolved_components(LM(n_components=2), 124, 3, 13)
    (1, 2)
    """
    if _is(est.n_components, AUTO):
        return components_per_class(n, n_classes, n_features, est.epsilon, est.delta)
    return int(est.n_components)


def components_reason(
    est: LargeMarginSettings, n: int, n_classes: int, n_features: int
) -> ComponentsRule | None:
    """The plan's and certificate's line of ``n_components="auto"`` (None for a given K).

    Examples
    --------
    >>> from dpconvex import PrivateLargeMarginGaussian as LM
    >>> from dpconvex.privacy.rules.large_margin import components_reason
    >>> components_reason(LM(), 124, 3, 13)
    ComponentsRule(k=1)
    >>> components_reason(LM(n_components=2), 124, 3, 13) is None
    True
    """
    if not _is(est.n_components, AUTO):
        return None
    return ComponentsRule(resolved_components(est, n, n_classes, n_features))


def resolved_loss(est: LargeMarginSettings) -> str | Loss | None:
    """``"softmax"``, a Loss instance, or None (the pairwise Huber loss HuberHinge(h)); "auto":
    softmax for one component or δ > 0 (the pairwise template is pure ε-DP only).

    Examples
    --------
    >>> from dpconvex import PrivateLargeMarginGaussian as LM
    >>> from dpconvex.privacy.rules.large_margin import resolved_loss
    >>> resolved_loss(LM()), resolved_loss(LM(n_components=2)), resolved_loss(LM(n_components=2, delta=1e-6))
    ('softmax', None, 'softmax')
    """
    loss = est.loss
    if _is(loss, AUTO):
        mech = MECHANISMS.get(est.mechanism_menu.offered.get(resolved_mechanism(est), ""))
        return _SOFTMAX if single_component(est) or (mech is not None and not mech.pure) else None
    if _is(loss, PAIRWISE):
        return None
    return loss


def resolved_structure(est: LargeMarginSettings) -> Any:
    """The feature structure: ``DEFAULT_STRUCTURE`` for softmax, "full" otherwise, under "auto".

    Examples
    --------
    >>> from dpconvex import PrivateLargeMarginGaussian as LM
    >>> from dpconvex.privacy.rules.large_margin import DEFAULT_STRUCTURE, resolved_structure
    >>> resolved_structure(LM()) == DEFAULT_STRUCTURE, resolved_structure(LM(loss="pairwise"))
    (True, 'full')
    """
    structure = getattr(est, "structure", "full")
    if _is(structure, AUTO):
        return DEFAULT_STRUCTURE if _is(resolved_loss(est), _SOFTMAX) else "full"
    return structure


def resolved_mechanism(est: LargeMarginSettings) -> str:
    """The objective path's mechanism: "auto" by the one rule of the mechanisms.

    The rule is :func:`~dpconvex.privacy.mechanisms.base.resolve_mechanism`.

    ``"gaussian_objective"`` when ``delta > 0`` is given, else ``"objective"``; whether
    "auto" releases centroids instead needs n and C (:func:`uses_centroid`).

    Examples
    --------
    >>> from dpconvex import PrivateLargeMarginGaussian as LM
    >>> from dpconvex.privacy.rules.large_margin import resolved_mechanism
    >>> resolved_mechanism(LM()), resolved_mechanism(LM(delta=1e-6))
    ('objective', 'gaussian_objective')
    """
    return resolve_mechanism(est.mechanism, est.delta, est.mechanism_menu.auto).name


def resolved_row_norm(est: LargeMarginSettings) -> str:
    """``"unit"`` under "auto" with the softmax loss, ``"none"`` with the pairwise template.

    Examples
    --------
    >>> from dpconvex import PrivateLargeMarginGaussian as LM
    >>> from dpconvex.privacy.rules.large_margin import resolved_row_norm
    >>> resolved_row_norm(LM()), resolved_row_norm(LM(loss="pairwise"))
    ('unit', 'none')
    """
    row_norm = getattr(est, "row_norm", "none")
    if _is(row_norm, AUTO):
        return "unit" if _is(resolved_loss(est), _SOFTMAX) else "none"
    return row_norm


def is_centroid(est: LargeMarginSettings) -> bool:
    """Whether ``mechanism="centroid"`` was asked for explicitly.

    Examples
    --------
    >>> from dpconvex import PrivateLargeMarginGaussian as LM
    >>> from dpconvex.privacy.rules.large_margin import is_centroid
    >>> is_centroid(LM(mechanism="centroid")), is_centroid(LM())
    (True, False)
    """
    return _is(est.mechanism, CENTROID)


def uses_centroid(est: LargeMarginSettings, n: int, n_classes: int, n_features: int) -> bool:
    """Whether a fit on n rows, C classes and d features releases DP class centroids
    (privacy-centroid-switch).

    ``mechanism="centroid"``, or ``mechanism="auto"`` with K = 1 (``n_components`` 1 or
    "auto": :func:`single_component`), the objective's parameters at their defaults
    (``loss``, ``structure``, ``lam`` "auto", ``feature_weights``, ``extra_terms`` and
    ``optimality_tol`` None) and :func:`centroids_preferred`. n, C and d are public under
    replace-one adjacency; nothing else is read.

    Examples
    --------
    >>> from dpconvex import PrivateLargeMarginGaussian as LM
    >>> from dpconvex.privacy.rules.large_margin import uses_centroid
    >>> est = LM(epsilon=1.0, delta=1e-6)
    >>> uses_centroid(est, 1257, n_classes=10, n_features=64), uses_centroid(est, 1257, 2, 64)
    (True, False)
    """
    if is_centroid(est):
        return True
    if not _is(est.mechanism, AUTO):
        return False
    defaults = (single_component(est) and _is(est.loss, AUTO)
                and _is(getattr(est, "structure", AUTO), AUTO) and _is(est.lam, AUTO)
                and getattr(est, "feature_weights", None) is None and not est.extra_terms
                and est.optimality_tol is None)
    return defaults and centroids_preferred(n, n_classes, n_features, est.epsilon, est.delta)


def centroid_reason(
    est: LargeMarginSettings, n: int, n_classes: int, n_features: int
) -> str | None:
    """The certificate's line when ``mechanism="auto"`` switched to the centroids, else None.

    Examples
    --------
    >>> from dpconvex import PrivateLargeMarginGaussian as LM
    >>> from dpconvex.privacy.rules.large_margin import centroid_reason
    >>> est = LM(epsilon=1.0, delta=1e-6)
    >>> centroid_reason(est, n=1257, n_classes=10, n_features=64).startswith("mechanism='auto' -> DP class")
    True
    >>> centroid_reason(est, n=100000, n_classes=10, n_features=64) is None
    True
    """
    if is_centroid(est) or not uses_centroid(est, n, n_classes, n_features):
        return None
    r = records_per_coordinate(n, n_classes, n_features, est.epsilon)
    below = CENTROID_BELOW[(est.delta or 0.0) > 0]
    return (f"mechanism='auto' -> DP class centroids: C = {int(n_classes)} classes and "
            f"n epsilon / (C (d + 1)) = {r:.4g} < {below:g} (public shape facts and the "
            "parameters only; docs/privacy/large_margin_softmax.md#privacy-centroid-switch)")
