"""The front door: :class:`PrivateClassifier` picks the learner from public quantities only
(:mod:`dpconvex.privacy.rules.front_door`, docs/privacy/front_door.md#privacy-private-classifier).
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from .._random import NoiseSource, noise_source
from .._validation import (
    ACCOUNTANT,
    DATA_NORM,
    DELTA,
    EPSILON,
    RANDOM_STATE,
    Auto,
    Bool,
    Constraint,
    Float,
    NoValidation,
    Optional,
    Options,
    check_fitted,
    checks_feature_names,
    feature_names_of,
    with_feature_names,
)
from ..data.labels import LABEL_POLICY, check_labels, declared_classes, encode_labels
from ..data.validation import computed
from ..errors import PrivacyError, PrivacyLeakWarning, PrivacyWarning, user_stacklevel
from ..privacy.accounting import hold_budget
from ..privacy.budget import has_positive_delta
from ..privacy.certificate import Certificate, Condition, compose_parallel
from ..privacy.rules.front_door import (
    CENTROID,
    CONSTANT,
    GAUSSIAN_NB,
    LARGE_MARGIN,
    LINEAR,
    NOISY_GD,
    SAFEGUARD_R_AT_LEAST,
    SAFEGUARD_ROWS_AT_MOST,
    choose_front_door_learner,
    safeguard_applies,
    safeguard_sizes,
)
from ..privacy.rules.large_margin import records_per_coordinate
from ..privacy.rules.noise_dominance import PUBLIC_CHECK_NOTE, noise_dominates
from .base import (
    NO_CONTEXT,
    ROWS_RANGES_NOTE,
    ClassifierScoreMixin,
    FitContext,
    FitPlan,
    PrivateEstimator,
    _given_shape,
)
from .centroids import PrivateGaussianCentroid
from .gaussian_nb import FeatureRange, PrivateGaussianNB, feature_bounds
from .large_margin import PrivateLargeMarginGaussian
from .large_margin.learners import CENTROID_LEARNER, noise_family, objective_part
from .linear import PrivateHuberSVM
from .noisy_gd import NoisyGradientDescent
from .parts import check_rows
from .safeguard import (
    ConstantClassifier,
    SchemaInputMixin,
    SchemaOrNone,
    constant_name,
    dry_selection,
    safeguard_mistakes,
    select_release,
    take_rows,
    warn_constant_released,
)

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

def _noise_dominates(learner: PrivateEstimator, n: int, n_classes: int, n_features: int) -> bool:
    """Whether ``learner``'s public noise check fires on the shape-only problem of its plan.

    The verdict of the check's own ratio and threshold, without its warning: the same
    comparison as the warning a fit of ``learner`` would give (public quantities only).
    """
    plan = learner.plan(n, n_classes, n_features)
    template = learner.prepare_shape(plan).template
    if isinstance(learner, PrivateGaussianCentroid) or plan.learner == CENTROID_LEARNER:
        return noise_dominates("centroid", template, plan.mechanism, plan.budget, n=n)
    if isinstance(learner, PrivateLargeMarginGaussian):
        return noise_dominates(noise_family(template), template, plan.mechanism,
                               objective_part(plan))
    family = "gd" if isinstance(learner, NoisyGradientDescent) else "linear"
    return noise_dominates(family, template, plan.mechanism, plan.budget)


def _rows_for(learner: str, X: Any) -> Any:
    """X as the learner takes it: scipy.sparse rows densified for the large-margin learner (its
    template holds the design densely) and noisy gradient descent (dense rows only)."""
    return X.toarray() if learner in (LARGE_MARGIN, NOISY_GD) and sp.issparse(X) else X


class PrivateClassifier(SchemaInputMixin, ClassifierScoreMixin, PrivateEstimator):
    """A differentially private classifier that chooses its learner from public quantities.

    The front door of dpconvex: set ε (and δ) and the public label set; the learner follows
    from (n, C, d, ε, δ) by the rule of docs/privacy/front_door.md#privacy-private-classifier
    (:func:`~dpconvex.privacy.rules.front_door.choose_front_door_learner`), among
    :class:`~dpconvex.NoisyGradientDescent` (logistic loss, [BST14]_),
    :class:`~dpconvex.PrivateHuberSVM` (objective perturbation, [CMS11]_ Alg. 2; Gaussian
    when δ > 0, [KST12]_), :class:`~dpconvex.PrivateGaussianCentroid`,
    :class:`~dpconvex.PrivateGaussianNB` (only with public per-feature ranges) and
    :class:`~dpconvex.PrivateLargeMarginGaussian` with the softmax loss ([PR10]_). The
    chosen learner is fitted with every option at its default; the certificate states the
    choice and why, and :meth:`plan` shows it before any data are read. SciPy sparse rows are
    taken by every learner (densified for the large-margin learner and noisy gradient descent).

    Parameters
    ----------
    epsilon : float, default=1.0
        ε > 0 of the release.
    delta : float, default=0.0
        δ in [0, 1): 0 for pure ε-DP; δ > 0 (e.g. 1/n²) lets every learner use its
        Gaussian mechanism (the one rule of :func:`dpconvex.privacy.mechanisms.base.resolve_mechanism`).
    classes : sequence of labels or None, default=None
        The public label set (C = len(classes)). None takes the set declared with y
        (the ``dpconvex.datasets`` loaders, a pandas Categorical), else reads it from
        y with a :class:`~dpconvex.errors.PrivacyLeakWarning`: C then also chooses the
        learner, so one record with a new label can change which model is released.
    {unknown_labels}
    {data_norm}
    {random_state}
    {accountant}
    safeguard : "auto" or bool, default="auto"
        Release the learner's model or a constant class, whichever the exponential
        mechanism selects on a validation part of the rows; the release stays (ε, δ)-DP
        (parallel composition, docs/privacy/front_door.md#privacy-classifier-safeguard, where
        its cost and gain are measured). A released constant comes with a
        :class:`~dpconvex.errors.PrivacyWarning`. "auto" is True where n ≤
        :data:`~dpconvex.privacy.rules.front_door.SAFEGUARD_ROWS_AT_MOST`, n·ε/(C(d + 1)) ≥
        :data:`~dpconvex.privacy.rules.front_door.SAFEGUARD_R_AT_LEAST` and the learner is
        not Gaussian naive Bayes.
    validation_fraction : "auto" or float in (0, 1), default="auto"
        With the safeguard, the share of the rows that validate: ⌈fraction · n⌉, or for
        "auto" max(⌈0.1 n⌉, min(⌈0.2 n⌉, 600))
        (:func:`~dpconvex.privacy.rules.front_door.safeguard_sizes`).
    row_norm : {"auto", "none"}, default="auto"
        "auto": the learners scale rows to the norm bound, x ↦ q·x/‖x‖
        (docs/privacy/row_scaling.md#privacy-row-norm-unit), where the rule says so
        (docs/privacy/front_door.md#privacy-private-classifier). "none": every learner keeps
        the rows as given (clipped to ``data_norm``); pass it when a row's length carries the
        label.
    schema : PublicSchema or None, default=None
        None: X holds rows (e.g. from :class:`~dpconvex.PublicEncoder`). A schema: X is the
        table, encoded by ``PublicEncoder(schema, data_norm=data_norm)`` (``encoder_``) in
        ``fit`` and every prediction; a schema drafted with a budget is composed into the
        certificate (docs/privacy/bounds.md#privacy-bounds-composition), and gives the
        per-feature ranges when ``feature_range`` is None.
    feature_range : None, (float, float), array-like of shape (n_features, 2) or PublicSchema, default=None
        The public range of each feature, as :class:`~dpconvex.PrivateGaussianNB` takes it
        (never the data's min and max). Given, the rule may choose Gaussian naive Bayes; None:
        naive Bayes is not chosen.

    Attributes
    ----------
    estimator_ : estimator
        The released model: the fitted learner (its noised parameters and public facts),
        or, when the safeguard selected a constant class, a
        :class:`~dpconvex.estimators.safeguard.ConstantClassifier`.
    learner_ : str
        Which learner the rule chose ("constant class" when the safeguard released one).
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
    .. [BST14] R. Bassily, A. Smith, A. Thakurta. Private Empirical Risk Minimization:
       Efficient Algorithms and Tight Error Bounds. FOCS 2014.
    .. [PR10] M. A. Pathak, B. Raj. Large Margin Multiclass Gaussian Classification
       with Differential Privacy. PSDM 2010.

    Examples
    --------
    >>> from dpconvex import PrivateClassifier
    >>> X = rng.normal(size=(400, 3)); X /= np.linalg.norm(X, axis=1, keepdims=True)
    >>> y = (X[:, 0] > 0).astype(int)
    >>> clf = PrivateClassifier(epsilon=1.0, classes=[0, 1], random_state=0).fit(X, y)
    >>> clf.learner_
    'Huber SVM'
    >>> clf.certificate_.epsilon <= 1.0
    True
    """

    _accepts_sparse: ClassVar[bool] = True
    takes_rows_ranges = True

    _parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "epsilon": EPSILON,
        "delta": Optional(DELTA),
        "data_norm": DATA_NORM,
        "classes": NoValidation("checked with the labels by the learner"),
        "unknown_labels": LABEL_POLICY,
        "random_state": RANDOM_STATE,
        "accountant": ACCOUNTANT,
        "safeguard": Auto(Bool()),
        "validation_fraction": Auto(Float(high=1.0)),
        "row_norm": Options(("auto", "none")),
        "schema": SchemaOrNone(),
        "feature_range": Optional(FeatureRange()),
    }

    def __init__(self, *, epsilon: float = 1.0, delta: float = 0.0, classes: Any = None,
                 data_norm: float = 1.0, random_state: Any = None, accountant: Any = None,
                 unknown_labels: str = "raise", safeguard: bool | str = "auto",
                 validation_fraction: float | str = "auto", row_norm: str = "auto",
                 schema: Any = None, feature_range: Any = None):
        self._store_params(locals())

    # ------------------------------------------------------------------------ plan
    def _delta(self) -> float:
        return float(self.delta) if has_positive_delta(self.delta) else 0.0

    def _make(self, learner: str, *, objective: bool = False, guarded: bool = False,
              row_norm: str = "none") -> PrivateEstimator:
        """The unfitted learner of that name at this front door's (ε, δ) and public bounds.

        ``objective=True`` names the large-margin objective's mechanism (no centroid
        switch), for the noise checks of :meth:`_warn_if_every_candidate_is_weak`. With
        the safeguard the front door holds the budget, so the learner charges no ledger.
        ``row_norm``: the rule's per-record map for the Huber SVM.
        """
        delta = self._delta()
        common = {"epsilon": self.epsilon, "classes": self.classes, "data_norm": self.data_norm,
                  "unknown_labels": self.unknown_labels, "random_state": self.random_state,
                  "accountant": None if guarded else self.accountant}
        if learner == LINEAR:
            return PrivateHuberSVM(delta=delta, fit_intercept=True, row_norm=row_norm, **common)
        if learner == NOISY_GD:
            return NoisyGradientDescent(delta=delta, fit_intercept=True, **common)
        if learner == GAUSSIAN_NB:  # the rows as given: their public ranges are of these rows
            del common["data_norm"]
            return PrivateGaussianNB(delta=delta if delta > 0 else None,
                                     feature_range=self.feature_range, **common)
        kept = {"row_norm": "none"} if self.row_norm == "none" else {}  # the user's rows as given
        if learner == CENTROID:
            return PrivateGaussianCentroid(delta=delta, **kept, **common)
        mechanism = ("gaussian_objective" if delta > 0 else "objective") if objective else "auto"
        return PrivateLargeMarginGaussian(delta=delta if delta > 0 else None, mechanism=mechanism,
                                          **kept, **common)

    def _learner(self, n: int, n_classes: int, n_features: int, *, guarded: bool = False
                 ) -> tuple[str, str, PrivateEstimator]:
        """(learner name, reason, the unfitted learner) for n rows, C classes, d features;
        ``guarded``: fitted inside the safeguard, which holds the budget."""
        if self.feature_range is not None:  # one range per column, whichever learner is chosen
            feature_bounds(self.feature_range, n_features, type(self).__name__)
        choice = self._choice(n, n_classes, n_features)
        return choice.learner, choice.reason, self._make(choice.learner, guarded=guarded,
                                                         row_norm=choice.row_norm)

    def _choice(self, n: int, n_classes: int, n_features: int) -> Any:
        """The rule's choice for this shape (public quantities and the parameters only)."""
        return choose_front_door_learner(n, n_classes, n_features, float(self.epsilon),
                                         self.delta, self.row_norm,
                                         ranges_known=self.feature_range is not None)

    def _guarded(self, n: int, n_classes: int, n_features: int) -> bool:
        """Whether the safeguard runs for this shape (the rule's learner and the parameter)."""
        return safeguard_applies(n, n_classes, n_features, float(self.epsilon), self.safeguard,
                                 learner=self._choice(n, n_classes, n_features).learner)

    def _plan(self, n: int, n_classes: int, n_features: int) -> FitPlan:
        guarded = self._guarded(n, n_classes, n_features)
        if guarded:
            note = (self._safeguard_note(
                *safeguard_sizes(n, self.validation_fraction, f"{type(self).__name__}.plan"),
                n_classes),)
        else:
            note = self._unguarded_note(n, n_classes, n_features)
        _, reason, learner = self._learner(n, n_classes, n_features, guarded=guarded)
        learner_plan = learner.plan(n, n_classes, n_features)
        return dataclasses.replace(learner_plan, estimator=type(self).__name__,
                                   notes=(*learner_plan.notes, reason, *note))

    def _unguarded_note(self, n: int, n_classes: int, n_features: int) -> tuple[str, ...]:
        """The certificate's line when safeguard="auto" leaves the safeguard off (public)."""
        if not isinstance(self.safeguard, str):
            return ()
        if self._choice(n, n_classes, n_features).learner == GAUSSIAN_NB:
            cause = ("Gaussian naive Bayes (its priors from the noisy counts fall back to the "
                     "majority class by themselves)")
        elif n > SAFEGUARD_ROWS_AT_MOST:
            cause = f"n = {n} > {SAFEGUARD_ROWS_AT_MOST} rows"
        else:
            per_coordinate = records_per_coordinate(n, n_classes, n_features, float(self.epsilon))
            cause = (f"n epsilon / (C (d + 1)) = {per_coordinate:.4g} < "
                     f"{SAFEGUARD_R_AT_LEAST:g} (every row counts for the learner)")
        return (f"PrivateClassifier: safeguard='auto' is off for {cause}: the learner is fitted "
                "on every row (docs/privacy/front_door.md#privacy-classifier-safeguard)",)

    def _safeguard_note(self, n_fit: int, n_val: int, n_classes: int) -> str:
        return (f"PrivateClassifier: safeguard on: the learner is fitted on the rows with the "
                f"{n_val} validation rows' loss set to zero ({n_fit} rows count), and the "
                f"exponential mechanism selects the model or one of the {n_classes} constant "
                f"classes on those {n_val} (validation_fraction = "
                f"{self.validation_fraction!r}; docs/privacy/front_door.md#privacy-classifier-safeguard)")

    def _schema_row_params(self) -> dict[str, Any]:
        """The schema's public per-feature ranges of the encoded rows, unless given."""
        if self.feature_range is not None:
            return {}
        lo, hi = self.schema.encoded_range(float(self.data_norm))
        return {"feature_range": np.column_stack([lo, hi])}

    # --------------------------------------------------------------------- fit
    def _fit_with(self, X: Any, y: Any, context: FitContext) -> PrivateClassifier:
        """Choose the learner from (n, C, d, ε, δ) and fit it (:meth:`fit` inside ``context``).

        The learner draws from this fit's generator (``context.noise``, else
        ``random_state``) and shares its label-set warning.

        Raises
        ------
        ParameterError, DataValidationError, PrivacyError, SolverError, BudgetError
        """
        if self.schema is not None:
            return self._fit_on_schema(X, y, context)
        ranged = self._with_rows_ranges(X)
        if ranged is not None:
            self._fit_as(ranged, X, y, context).certificate_.assumptions.append(ROWS_RANGES_NOTE)
            return self
        self._validate_params()
        shape = self.public_shape(X, y)
        inferred = self.classes is None and declared_classes(y) is None
        if inferred:  # the learner's own warning would not say that the set chose it
            warnings.warn(f"{type(self).__name__}: {INFERRED_CHOICE_WARNING}", PrivacyLeakWarning,
                          stacklevel=user_stacklevel())
        if self._guarded(*shape):
            return self._fit_safeguarded(X, y, shape, inferred, context)
        name, reason, learner = self._learner(*shape)
        self._warn_if_every_candidate_is_weak(*shape)  # before any budget is held
        noise = noise_source(self, context.noise)  # random_state, or a meta-estimator's
        learner._fit_with(_rows_for(name, X), y,
                          context.one_label_warning(issued=inferred).inner(noise))
        learner.certificate_.assumptions.extend((reason, *self._unguarded_note(*shape),
                                                 *([INFERRED_CHOICE] if inferred else [])))
        self.estimator_, self.learner_, self.certificate_ = learner, name, learner.certificate_
        self.classes_, self.n_features_in_ = learner.classes_, learner.n_features_in_
        if hasattr(learner, "feature_names_in_"):
            self.feature_names_in_ = learner.feature_names_in_
        return self

    def _fit_safeguarded(self, X: Any, y: Any, shape: tuple[int, int, int],
                         inferred: bool, context: FitContext) -> PrivateClassifier:
        """The learner without the validation rows' loss, then the private choice of what to
        release (privacy-classifier-safeguard)."""
        owner = type(self).__name__
        names = feature_names_of(X, f"{owner}.fit")
        n, n_classes, n_features = shape
        n_fit, n_val = safeguard_sizes(n, self.validation_fraction, f"{owner}.fit")
        name, reason, learner = self._learner(n, n_classes, n_features, guarded=True)
        self._warn_if_every_candidate_is_weak(n, n_classes, n_features)  # before the hold
        epsilon = float(self.epsilon)
        noise = noise_source(self, context.noise)
        with hold_budget(self.accountant, epsilon, self._delta(), owner) as hold:
            context = context.one_label_warning(issued=inferred)
            y_checked = check_labels(computed(y), n, f"{owner}.fit")  # X is checked once, by the learner
            labels = encode_labels(y_checked, self.classes, f"{owner}.fit",
                                   unknown_labels=self.unknown_labels, excluded=context.excluded,
                                   warning=context.label_warning)
            learner.set_params(classes=list(labels.classes))
            order = noise.rng.permutation(n)  # independent of the data (privacy-classifier-safeguard)
            validation = np.sort(order[n_fit:])
            held = np.zeros(n, dtype=bool)
            held[validation] = True
            fit_rng, select_rng = noise.rng.spawn(2)
            # the validation rows are left out of the learner's fit (zero factors, X not copied)
            learner._fit_with(_rows_for(name, X), y_checked,
                              context.excluding(held).inner(NoiseSource(fit_rng, noise.seeded)))
            X_val = take_rows(X, validation, n, owner, self)
            mistakes = safeguard_mistakes(learner, _rows_for(name, X_val), y_checked[validation],
                                          labels.classes)
            best, selection = select_release(mistakes, epsilon, n_val, select_rng, noise.seeded)
            certificate = self._safeguard_certificate(learner.certificate_, selection, name,
                                                      reason, (n_fit, n_val), labels.classes,
                                                      best)
            if inferred:
                certificate.assumptions.append(INFERRED_CHOICE)
            hold.commit_certificate(certificate)
        if best == 0:
            self.estimator_, self.learner_ = learner, name
        else:
            self.estimator_ = ConstantClassifier(labels.classes[best - 1], labels.classes,
                                                 n_features)
            self.estimator_.certificate_ = certificate
            self.learner_ = CONSTANT
            warn_constant_released(
                owner, f"a constant class ({certificate.quantities['safeguard selected']})", name,
                epsilon, "docs/privacy/front_door.md#privacy-classifier-safeguard")
        self.classes_ = np.asarray(labels.classes)
        self.n_features_in_ = n_features
        self.certificate_ = certificate
        return with_feature_names(self, names)

    def _safeguard_certificate(self, model: Certificate, selection: Certificate, name: str,
                               reason: str, sizes: tuple[int, int], classes: Any,
                               selected: int | None = None) -> Certificate:
        """The parallel composition of the learner's release and the selection
        (privacy-classifier-safeguard)."""
        n_fit, n_val = sizes
        candidates = [name, *(constant_name(label) for label in classes)]
        quantities: dict[str, Any] = {
            "safeguard validation fraction": self.validation_fraction,
            "part sizes": [n_fit, n_val], "safeguard candidates": candidates}
        if selected is not None:
            quantities["safeguard selected"] = candidates[selected]
        conditions = [
            Condition("candidates fixed before the data", True, "enforced by dpconvex",
                      f"the rule's learner ({name}) and the {len(classes)} constant classes of "
                      "the public label set"),
            Condition("disjoint parts", True, "enforced by dpconvex",
                      f"a permutation drawn independently of the data splits the {n_fit + n_val} "
                      f"rows into a fitting part of {n_fit} and a validation part of {n_val} "
                      "(sizes from n only); the learner reads the first, the selection the "
                      "second"),
        ]
        try:
            return compose_parallel(
                [model, selection],
                mechanism=("PrivateClassifier with its safeguard: the learner on the fitting "
                           "part, the exponential mechanism over the model and each constant "
                           "class on the validation part "
                           "(docs/privacy/front_door.md#privacy-classifier-safeguard)"),
                epsilon_requested=float(self.epsilon), delta_requested=self._delta(),
                conditions=conditions, quantities=quantities,
                assumptions=[reason, self._safeguard_note(n_fit, n_val, len(classes)),
                             "replace-one adjacency; n is public (it fixes the part sizes)"],
                labels=["model (fitting part)", "selection (validation part)"])
        except PrivacyError as exc:
            raise PrivacyError(f"{type(self).__name__}.fit: {exc}") from None

    def _warn_if_every_candidate_is_weak(self, n: int, n_classes: int, n_features: int) -> None:
        """One warning when the public noise check of every candidate learner fires
        (privacy-defaults-blind-spots).

        Each check reads (n, C, d, ε, δ) and the public bounds only
        (docs/privacy/tuning_gd_ledger.md#privacy-noise-warning-linear, privacy-noise-warning-gd-centroids,
        privacy-softmax-measurements), on the shape-only problem of the candidate's plan; nothing is fitted.
        """
        chosen = self._choice(n, n_classes, n_features).learner
        # naive Bayes has no public noise check (docs/privacy/gaussian_nb.md#privacy-gaussian-nb)
        if chosen == GAUSSIAN_NB:
            return
        candidates = (CENTROID, LARGE_MARGIN, *([LINEAR] if n_classes <= 2 else []),
                      *([NOISY_GD] if chosen == NOISY_GD else []))
        for name in candidates:
            if not _noise_dominates(self._make(name, objective=True), n, n_classes, n_features):
                return  # a candidate the public checks do not rule out
        warnings.warn(
            f"{type(self).__name__}: at epsilon = {float(self.epsilon):g} the public noise "
            f"checks predict every learner it can choose ({', '.join(candidates)}) "
            "no better than the majority class for n = "
            f"{n} rows, C = {n_classes} classes and d = {n_features} features (public quantities "
            "only; docs/privacy/front_door.md#privacy-defaults-blind-spots). Use a larger epsilon, delta > "
            "0, more rows or fewer "
            f"features before spending the budget. {PUBLIC_CHECK_NOTE}",
            PrivacyWarning, stacklevel=user_stacklevel())

    def certify(self, X: Any = None, y: Any = None, *, n: int | None = None,
                n_classes: int | None = None, n_features: int | None = None) -> Any:
        """The certificate a fit would carry (no noise drawn, nothing charged).

        ``certify(X, y)`` or ``certify(n=..., n_classes=..., n_features=...)``, as
        :meth:`~dpconvex.estimators.base.PrivateEstimator.certify`.
        """
        if self.schema is not None:
            return self._certify_on_schema(X, y, n=n, n_classes=n_classes,
                                           n_features=n_features)
        ranged = self._with_rows_ranges(X)
        if ranged is not None:
            certificate = ranged.certify(X, y)
            certificate.assumptions.append(ROWS_RANGES_NOTE)
            return certificate
        self._validate_params()
        if X is None:
            plan = self.plan(*_given_shape(self, n, n_classes, n_features))  # validates them
            size = (plan.n, plan.n_classes, plan.n_features)
        else:
            size = self.public_shape(X, y)
        if self._guarded(*size):
            return self._certify_safeguarded(X, y, size)
        name, reason, learner = self._learner(*size)
        rows = None if X is None else _rows_for(name, X)
        certificate = learner.certify(rows, y, n=n, n_classes=n_classes, n_features=n_features)
        certificate.assumptions.extend((reason, *self._unguarded_note(*size)))
        return certificate

    def _certify_safeguarded(self, X: Any, y: Any, size: tuple[int, int, int]) -> Certificate:
        """The safeguard's certificate: the learner's dry run on the rows (the last n_val of
        them in the validation part, as a fit's sizes) and the selection's dry run."""
        owner = type(self).__name__
        n, n_classes, n_features = size
        n_fit, n_val = safeguard_sizes(n, self.validation_fraction, f"{owner}.certify")
        name, reason, learner = self._learner(n, n_classes, n_features, guarded=True)
        classes: Any = self.classes
        if X is None:
            model = learner.certify(n=n, n_classes=n_classes, n_features=n_features)
            classes = classes if classes is not None else range(n_classes)
        else:
            X_checked, y_checked = check_rows(X, y, f"{owner}.certify", self)
            classes = encode_labels(y_checked, classes, f"{owner}.certify",
                                    unknown_labels=self.unknown_labels).classes
            learner.set_params(classes=list(classes))
            model = learner._certify_with(_rows_for(name, X_checked), y_checked,
                                          NO_CONTEXT.excluding(np.arange(n) >= n_fit))
        classes = list(classes)
        selection = dry_selection(len(classes) + 1, float(self.epsilon), n_val)
        return self._safeguard_certificate(model, selection, name, reason, (n_fit, n_val),
                                           classes)

    # ----------------------------------------------------------------- predict
    @checks_feature_names
    def predict(self, X: Any) -> np.ndarray:
        """The learner's predictions."""
        check_fitted(self, "estimator_")
        return self.estimator_.predict(_rows_for(self.learner_, self._encoded(X)))

    @checks_feature_names
    def predict_proba(self, X: Any) -> np.ndarray:
        """The learner's class probabilities (columns in the order of ``classes_``)."""
        check_fitted(self, "estimator_")
        return self.estimator_.predict_proba(_rows_for(self.learner_, self._encoded(X)))

    @checks_feature_names
    def decision_function(self, X: Any) -> np.ndarray:
        """The learner's decision function."""
        check_fitted(self, "estimator_")
        return self.estimator_.decision_function(_rows_for(self.learner_, self._encoded(X)))
