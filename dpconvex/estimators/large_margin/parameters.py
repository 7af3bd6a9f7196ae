"""What the parts of the large-margin learner read from, and set on, the estimator.

The learners (:mod:`.learners`), the centroid release (:mod:`.centroid`), the options
(:mod:`.options`) and the Dask build (:mod:`.dask`) take the estimator as an argument;
:class:`LargeMarginEstimator` states what they use of it, so they need not import the
estimator's module (which imports them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ...privacy.rules.large_margin import LargeMarginSettings

if TYPE_CHECKING:
    from ...data.labels import LabelSet
    from ...privacy.certificate import Certificate
    from ...privacy.mechanisms.base import Mechanism

__all__ = ["LargeMarginEstimator"]


class LargeMarginEstimator(LargeMarginSettings, Protocol):
    """A :class:`~dpconvex.PrivateLargeMarginGaussian` as its learner's parts see it.

    Its parameters (see the estimator for their meaning; those the privacy rules read are
    :class:`~dpconvex.privacy.rules.large_margin.LargeMarginSettings`), the two methods the
    Dask build calls per chunk, and the fitted attributes the centroid release sets.
    """

    gamma: float
    h: float
    data_norm: float
    component_assignment: str | None
    centers: Any
    kmeans_epsilon_fraction: float
    kmeans_iter: int
    solver: str | None
    random_state: Any
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
