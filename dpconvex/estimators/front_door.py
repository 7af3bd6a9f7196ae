"""The front door: :class:`PrivateClassifier` picks the learner from public quantities only.

One estimator for a user who knows ε (and δ) and the label set: its ``plan`` reads
(n, C, ε, δ) and chooses a learner by the rule of
:mod:`dpconvex.privacy.rules.front_door` (docs/privacy.md §14.2), then fits that
learner with every "auto" left to the library's rules. The choice and its reason are
lines of the certificate.
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from .._random import assign_noise, check_seed, noise_source
from .._validation import check_fitted, check_float, checks_feature_names
from ..data.labels import check_unknown_labels, declared_classes, one_label_warning
from ..errors import ParameterError, PrivacyLeakWarning, PrivacyWarning
from ..privacy.rules.front_door import CENTROID, LARGE_MARGIN, LINEAR, choose_front_door_learner
from ..privacy.rules.mechanism import has_positive_delta
from ..privacy.rules.noise_dominance import PUBLIC_CHECK_NOTE, linear_noise_dominates
from ..privacy.rules.noise_dominance_gd import centroid_noise_dominates
from .base import FitPlan, PrivateEstimator
from .centroids import PrivateGaussianCentroid
from .large_margin import PrivateLargeMarginGaussian
from .large_margin.learners import CENTROID_LEARNER, objective_part
from .large_margin.options import noise_dominates
from .linear import PrivateHuberSVM

__all__ = ["INFERRED_CHOICE", "INFERRED_CHOICE_WARNING", "PrivateClassifier"]

#: The :class:`~dpconvex.errors.PrivacyLeakWarning` of a fit whose label set is read from y
#: (after the estimator's name): that set also chooses the learner.
INFERRED_CHOICE_WARNING = (
    "the label set was read from the data (classes=None) and is treated as public: it fixes "
    "the model's classes and, through their number C, also chooses the learner (the front "
    "door's rule reads n, C, d, epsilon and delta), so one record with a new label can change "
    "which model is released, not only its classes. Pass the public label set, e.g. "
    "classes=[0, 1, 2] (or y as the dpconvex.datasets loaders return it, or a pandas "
    "Categorical with the public categories)."
)

#: The certificate line of a fit whose label set was read from y.
INFERRED_CHOICE = ("the learner was chosen with the label set read from the data (classes=None), "
                   "assumed public: one record with a new label can change the learner; pass "
                   "classes=[...] so that neither is read from the records")


def _check_delta(name: str, value: Any, owner: str) -> None:
    if value is not None:
        check_float(name, value, owner, low_inclusive=True, high=1.0)


def _noise_dominates(est: PrivateEstimator, n: int, n_classes: int, n_features: int) -> bool:
    """Whether ``est``'s public noise check fires on the shape-only problem of its plan.

    The verdict of the check's own ratio and threshold, without its warning: the same
    comparison as the warning a fit of ``est`` would give (public quantities only).
    """
    plan = est.plan(n, n_classes, n_features)
    template = est.prepare_shape(plan).template
    if isinstance(est, PrivateGaussianCentroid) or plan.learner == CENTROID_LEARNER:
        return centroid_noise_dominates(plan.mechanism, template, plan.budget, n)
    if isinstance(est, PrivateLargeMarginGaussian):
        return noise_dominates(template, plan.mechanism, objective_part(plan))
    return linear_noise_dominates(template, plan.mechanism, plan.budget)


def _rows_for(learner: str, X: Any) -> Any:
    """X as the learner takes it: scipy.sparse rows densified for the large-margin learner only.

    The Huber SVM and the class centroids read sparse rows on their stored entries; the
    large-margin template holds the n x (d + 1) design densely in any case.
    """
    return X.toarray() if learner == LARGE_MARGIN and sp.issparse(X) else X


class PrivateClassifier(PrivateEstimator):
    """A differentially private classifier that chooses its learner from public quantities.

    The front door of dpconvex: set ε (and δ) and the public label set; the learner
    follows from (n, C, d, ε, δ) by the rule of docs/privacy.md §14.2
    (:func:`~dpconvex.privacy.rules.front_door.choose_front_door_learner`):

    * two classes: :class:`~dpconvex.PrivateHuberSVM` with an intercept, objective
      perturbation ([CMS11]_ Alg. 2, §3.4.2; Gaussian objective perturbation when
      δ > 0, [KST12]_);
    * more classes and few records per class, per unit of ε and per coordinate
      (n·ε/(C(d + 1)) below :data:`~dpconvex.privacy.rules.large_margin.CENTROID_BELOW`):
      :class:`~dpconvex.PrivateGaussianCentroid`, DP class centroids with priors
      from the released noisy counts;
    * more classes otherwise: :class:`~dpconvex.PrivateLargeMarginGaussian` with
      the softmax loss ([PR10]_, docs/privacy.md §11.10).

    The chosen learner is fitted with all its options at their defaults (every
    "auto" resolved by the library's public rules). The certificate states the
    choice and why; :meth:`plan` shows it before any data are read. SciPy sparse
    rows are taken by every learner: the Huber SVM and the class centroids read
    their stored entries; the large-margin learner, whose template holds the
    rows densely, gets ``X.toarray()``.

    Parameters
    ----------
    epsilon : float, default=1.0
        ε > 0 of the release.
    delta : float, default=0.0
        δ in [0, 1): 0 for pure ε-DP; δ > 0 (e.g. 1/n²) lets every learner use its
        Gaussian mechanism (the one rule of :mod:`dpconvex.privacy.rules.mechanism`).
    classes : sequence of labels or None, default=None
        The public label set (C = len(classes)). None takes the set declared with y
        (the ``dpconvex.datasets`` loaders, a pandas Categorical), else reads it from
        y with a :class:`~dpconvex.errors.PrivacyLeakWarning`: C then also chooses the
        learner, so one record with a new label can change which model is released.
    unknown_labels : {"raise", "ignore"}, default="raise"
        What a label of y outside the public label set does, passed to the chosen
        learner. "raise": the fit is refused with a
        :class:`~dpconvex.errors.DataValidationError` before any noise is drawn or
        budget spent (the message names the declared classes and what to change,
        never a count or a label of y). "ignore": the records with such labels
        contribute no loss (docs/privacy.md), for pipelines that must never branch
        on the data. Either way :func:`dpconvex.collect_diagnostics` records them.
    data_norm : float, default=1.0
        Public bound q on ‖x‖; rows above it are scaled down to it. Never set it
        from the data. :class:`~dpconvex.PublicEncoder` builds rows within 1.
    random_state : None or int, default=None
        None seeds the noise from the OS (required for a real release); an int fixes
        it (experiments only).
    accountant : BudgetAccountant or None, default=None
        Ledger charged with the certificate's (ε, δ).

    Attributes
    ----------
    estimator_ : estimator
        The fitted learner (a released model: its noised parameters and public facts).
    learner_ : str
        Which learner the rule chose.
    classes_ : ndarray of shape (C,)
    n_features_in_ : int
    certificate_ : Certificate
        The learner's certificate, with the front door's choice among its assumptions.

    References
    ----------
    .. [CMS11] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially Private
       Empirical Risk Minimization. JMLR 12 (2011), Alg. 2.
    .. [KST12] D. Kifer, A. Smith, A. Thakurta. Private Convex Empirical Risk
       Minimization and High-dimensional Regression. COLT 2012, Thm. 2.
    .. [PR10] M. A. Pathak, B. Raj. Large Margin Multiclass Gaussian Classification
       with Differential Privacy. PSDM 2010.

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import PrivateClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 3)); X /= np.linalg.norm(X, axis=1, keepdims=True)
    >>> y = (X[:, 0] > 0).astype(int)
    >>> clf = PrivateClassifier(epsilon=1.0, classes=[0, 1], random_state=0).fit(X, y)
    >>> clf.learner_
    'Huber SVM'
    >>> clf.certificate_.epsilon <= 1.0
    True
    """

    _accepts_sparse: ClassVar[bool] = True
    _parameter_constraints: ClassVar[dict[str, Any]] = {
        "epsilon": check_float,
        "delta": _check_delta,
        "data_norm": check_float,
        "classes": "no_validation",  # checked with the labels by the learner
        "unknown_labels": check_unknown_labels,
        "random_state": lambda name, v, owner: check_seed(v, owner),
        "accountant": "no_validation",
    }

    def __init__(self, *, epsilon: float = 1.0, delta: float = 0.0, classes: Any = None,
                 data_norm: float = 1.0, random_state: Any = None, accountant: Any = None,
                 unknown_labels: str = "raise"):
        self.epsilon = epsilon
        self.delta = delta
        self.classes = classes
        self.unknown_labels = unknown_labels
        self.data_norm = data_norm
        self.random_state = random_state
        self.accountant = accountant

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        tags.non_deterministic = True
        tags.input_tags.sparse = True  # scipy.sparse rows for every learner (_rows_for)
        return tags

    # ------------------------------------------------------------------------ plan
    def _make(self, learner: str, *, objective: bool = False) -> PrivateEstimator:
        """The unfitted learner of that name at this front door's (ε, δ) and public bounds.

        ``objective=True`` names the large-margin objective's mechanism (no centroid
        switch), for the noise checks of :meth:`_warn_if_every_candidate_is_weak`.
        """
        delta = float(self.delta) if has_positive_delta(self.delta) else 0.0
        common = {"epsilon": self.epsilon, "classes": self.classes, "data_norm": self.data_norm,
                  "unknown_labels": self.unknown_labels, "random_state": self.random_state,
                  "accountant": self.accountant}
        if learner == LINEAR:
            return PrivateHuberSVM(delta=delta, fit_intercept=True, **common)
        if learner == CENTROID:
            return PrivateGaussianCentroid(delta=delta, **common)
        mechanism = ("gaussian_objective" if delta > 0 else "objective") if objective else "auto"
        return PrivateLargeMarginGaussian(delta=delta if delta > 0 else None, mechanism=mechanism,
                                          **common)

    def _learner(self, n: int, n_classes: int, n_features: int
                 ) -> tuple[str, str, PrivateEstimator]:
        """(learner name, reason, the unfitted learner) for n rows, C classes, d features."""
        choice = choose_front_door_learner(n, n_classes, n_features, float(self.epsilon),
                                           self.delta)
        return choice.learner, choice.reason, self._make(choice.learner)

    def _plan(self, n: int, n_classes: int, n_features: int) -> FitPlan:
        _, reason, est = self._learner(n, n_classes, n_features)
        sub = est.plan(n, n_classes, n_features)
        return dataclasses.replace(sub, estimator=type(self).__name__, notes=(*sub.notes, reason))

    # --------------------------------------------------------------------- fit
    def fit(self, X: Any, y: Any) -> PrivateClassifier:
        """Choose the learner from (n, C, d, ε, δ) and fit it.

        Raises
        ------
        ParameterError, DataValidationError, PrivacyError, SolverError, BudgetError
        """
        self._validate_params()
        shape = self.public_shape(X, y)
        name, reason, est = self._learner(*shape)
        inferred = self.classes is None and declared_classes(y) is None
        if inferred:  # the learner's own warning would not say that the set chose it
            warnings.warn(f"{type(self).__name__}: {INFERRED_CHOICE_WARNING}", PrivacyLeakWarning,
                          stacklevel=2)
        self._warn_if_every_candidate_is_weak(*shape)  # before any budget is held
        noise = noise_source(self)  # random_state, or what a meta-estimator handed this fit
        with assign_noise({est: noise.rng}, seeded=noise.seeded), \
                one_label_warning(issued=inferred):
            est.fit(_rows_for(name, X), y)
        est.certificate_.assumptions.append(reason)
        if inferred:
            est.certificate_.assumptions.append(INFERRED_CHOICE)
        self.estimator_ = est
        self.learner_ = name
        self.classes_ = est.classes_
        self.n_features_in_ = est.n_features_in_
        if hasattr(est, "feature_names_in_"):
            self.feature_names_in_ = est.feature_names_in_
        self.certificate_ = est.certificate_
        return self

    def _warn_if_every_candidate_is_weak(self, n: int, n_classes: int, n_features: int) -> None:
        """One warning when the public noise check of every candidate learner fires (§14.3).

        Each check reads (n, C, d, ε, δ) and the public bounds only (docs/privacy.md §6.7,
        §6.8, §11.7), on the shape-only problem of the candidate's plan; nothing is fitted.
        """
        candidates = (CENTROID, LARGE_MARGIN, *([LINEAR] if n_classes <= 2 else []))
        for name in candidates:
            if not _noise_dominates(self._make(name, objective=True), n, n_classes, n_features):
                return  # a candidate the public checks do not rule out
        warnings.warn(
            f"{type(self).__name__}: at epsilon = {float(self.epsilon):g} the public noise "
            f"checks predict every learner it can choose ({', '.join(candidates)}) "
            "no better than the majority class for n = "
            f"{n} rows, C = {n_classes} classes and d = {n_features} features (public quantities "
            "only; docs/privacy.md §14.3). Use a larger epsilon, delta > 0, more rows or fewer "
            f"features before spending the budget. {PUBLIC_CHECK_NOTE}",
            PrivacyWarning, stacklevel=3)

    def certify(self, X: Any = None, y: Any = None, *, n: int | None = None,
                n_classes: int | None = None, n_features: int | None = None) -> Any:
        """The certificate a fit would carry (no noise drawn, nothing charged).

        ``certify(X, y)`` or ``certify(n=..., n_classes=..., n_features=...)``, as
        :meth:`~dpconvex.estimators.base.PrivateEstimator.certify`.
        """
        self._validate_params()
        if X is None:
            if n is None or n_classes is None or n_features is None:
                raise ParameterError(
                    f"{type(self).__name__}.certify needs (X, y), or n, n_classes and "
                    "n_features (the public shape) for a certificate before the data.")
            plan = self.plan(n, n_classes, n_features)  # validates the shape facts
            size = (plan.n, plan.n_classes, plan.n_features)
        else:
            size = self.public_shape(X, y)
        name, reason, est = self._learner(*size)
        rows = None if X is None else _rows_for(name, X)
        cert = est.certify(rows, y, n=n, n_classes=n_classes, n_features=n_features)
        cert.assumptions.append(reason)
        return cert

    # ----------------------------------------------------------------- predict
    @checks_feature_names
    def predict(self, X: Any) -> np.ndarray:
        """The learner's predictions."""
        check_fitted(self, "estimator_")
        return self.estimator_.predict(_rows_for(self.learner_, X))

    @checks_feature_names
    def predict_proba(self, X: Any) -> np.ndarray:
        """The learner's class probabilities (columns in the order of ``classes_``)."""
        check_fitted(self, "estimator_")
        return self.estimator_.predict_proba(_rows_for(self.learner_, X))

    @checks_feature_names
    def decision_function(self, X: Any) -> np.ndarray:
        """The learner's decision function."""
        check_fitted(self, "estimator_")
        return self.estimator_.decision_function(_rows_for(self.learner_, X))
