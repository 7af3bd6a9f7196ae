"""What the parts of the large-margin learner read from, and set on, the estimator.

The learners (:mod:`.learners`), the centroid release (:mod:`.centroid`), the options
(:mod:`.options`) and the Dask build (:mod:`.dask`) take the estimator as an argument;
:class:`LargeMarginEstimator` states what they use of it, so they need not import the
estimator's module (which imports them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

if TYPE_CHECKING:
    from ...data.labels import LabelSet
    from ...objectives.losses import Loss
    from ...privacy.certificate import Certificate
    from ...privacy.mechanisms.base import Mechanism
    from ...templates.large_margin import MatrixTerm

__all__ = ["LargeMarginEstimator"]


class LargeMarginEstimator(Protocol):
    """A :class:`~dpconvex.PrivateLargeMarginGaussian` as its learner's parts see it.

    Its parameters (see the estimator for their meaning), the two methods the Dask build
    calls per chunk, and the fitted attributes the centroid release sets.
    """

    epsilon: float
    delta: float | None
    gamma: float
    lam: float | str
    h: float
    n_components: int
    mechanism: str
    data_norm: float
    component_assignment: str | None
    centers: Any
    kmeans_epsilon_fraction: float
    kmeans_iter: int
    loss: Loss | str | None
    extra_terms: Sequence[MatrixTerm] | None
    solver: str | None
    random_state: Any
    optimality_tol: float | None
    max_iter: int | None
    accountant: Any
    classes: Any
    verbose: int
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
