"""scikit-learn compatible private linear classifiers ([CMS]_), and their one-vs-rest.

:class:`OneVsRestMixin` fits more than two classes as C binary problems, each reading every
record and given ε/C (and δ/C): the certificate is their sequential composition
(docs/privacy/tuning_gd_ledger.md#privacy-one-vs-rest).

References
----------
.. [CMS] Chaudhuri, Monteleoni, Sarwate. Differentially Private Empirical Risk
   Minimization. JMLR 12 (2011): Alg. 1 (output perturbation), Alg. 2
   (objective perturbation); logistic regression Section 3.4.1, Huber SVM Section 3.4.2.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import scipy.sparse as sp
from scipy.special import log_softmax
from sklearn.base import clone

from .._validation import (
    ACCOUNTANT,
    CLASSES,
    DATA_NORM,
    DELTA,
    EPSILON,
    LAM,
    MAX_ITER_RULE,
    MIN_MAGNITUDE,
    OPTIMALITY_TOL,
    RANDOM_STATE,
    Bool,
    Constraint,
    Float,
    NoValidation,
    Options,
    _short_repr,
    check_fitted,
    checks_feature_names,
    is_dask_collection,
)
from ..data.operators import CSRRows, DenseRows, ScaledRows, unit_scale
from ..data.preprocess import _append_column, _clip_checked
from ..data.row_scaling import normalize_rows, normalize_rows_lazy
from ..data.validation import (
    LABEL_POLICY,
    LabelSet,
    as_design,
    check_array,
    check_classes,
    row_products,
    zero_rows,
)
from ..errors import (
    ParameterError,
    SolverCostWarning,
    diagnostics_open,
    note_clipped,
    user_stacklevel,
)
from ..objectives.losses import LOSSES, WIDTH_RULE, Logistic, Loss, get_loss, stated_loss
from ..privacy.budget import Budget, split_even
from ..privacy.certificate import (
    LabelSource,
    LamRule,
    MechanismChoice,
    RowMap,
    SmoothingRule,
)
from ..privacy.composition import compose_sequential
from ..privacy.declarations import vouch_names
from ..privacy.mechanisms import Mechanism, MechanismMenu, build_mechanism
from ..privacy.mechanisms.base import AutoMechanism, resolve_mechanism
from ..privacy.release import _release_checked
from ..privacy.rules.noise_level import (
    form_bounds,
    lam_rule,
    ovr_noise_warning,
    resolve_smoothing,
)
from ..templates.linear_erm import LinearERMTemplate
from .base import (
    NO_CONTEXT,
    PARAMETER_DOCS,
    ROW_NORM,
    SOLVER,
    CertificateHold,
    CheckedData,
    ClassifierScoreMixin,
    FitContext,
    FitPlan,
    LossParameter,
    ParameterSet,
    Prepared,
    PrivateEstimator,
    Vouch,
    _bind_plan,
    certify_part,
    fill_docs,
    fit_part,
    hold_plan,
    issued,
    keep_argmax,
    planned_params,
)

if TYPE_CHECKING:
    import cvxpy as cp
    from numpy.typing import ArrayLike

    from ..objectives.sets import ConvexSet
    from ..privacy.budget import BudgetAccountant

#: ``constraints``: the coefficient variable to the CVXPY constraints of a public set.
ParameterSetRule = Callable[["cp.Variable"], "list[cp.Constraint]"]

__all__ = [
    "OneVsRestMixin",
    "PrivateHuberSVM",
    "PrivateLinearClassifier",
    "PrivateLogisticRegression",
]


#: The certificate note of one-vs-rest (the plan's, and the composed certificate's).
OVR_NOTE = ("one-vs-rest: each binary model reads every record, so the C releases compose "
            "sequentially (epsilon split evenly); a binary model's labels are 1 for its class "
            "and 0 for the others, a per-record map of the label set this certificate states")


def _as_a_binary_part(certificate: Any) -> Any:
    """A binary model's certificate as a part of one-vs-rest: without a label-set line of its
    own (its labels {0, 1} map the whole model's set, which the whole states, with its source:
    :data:`OVR_NOTE`)."""
    certificate.label_source = None
    return certificate


class OneVsRestMixin:
    """``fit`` on more than two classes: C private binary models, ε split evenly.

    The host class is a binary dpconvex estimator with ``epsilon``, ``classes``,
    ``unknown_labels``, ``random_state`` and ``accountant`` parameters (and optionally
    ``delta``). The binary clones keep ``unknown_labels``: with "raise" a label outside
    the set is refused here, before any budget is held; with "ignore" its record is
    labelled -1 in every binary problem, outside their set {0, 1}, so its row is zeroed.

    Examples
    --------
    >>> from dpconvex import PrivateLogisticRegression
    >>> labels = np.arange(40) % 3
    >>> model = PrivateLogisticRegression(classes=[0, 1, 2], random_state=0).fit(X, labels)
    >>> model.coef_.shape, len(model.certificate_.parts)
    ((3, 3), 3)
    """

    #: The family of the fit's one noise warning (privacy.rules.noise_level).
    _ovr_noise_family: ClassVar[str] = "linear"

    def _binary_clone(self, n_classes: int, random_state: int | None = None) -> Any:
        """The unfitted binary model of one class: ε/C (and δ/C), labels {0, 1}, no ledger.

        ``random_state`` is None or an int (never a generator: the binary fits get
        theirs as an argument, :class:`~dpconvex.estimators.base.FitContext`).
        """
        parts = {"epsilon": split_even(float(self.epsilon), n_classes)}
        if getattr(self, "delta", None) is not None:
            parts["delta"] = split_even(float(self.delta), n_classes)
        # the binary models' parameter checks would name the user's
        for name, part in parts.items():
            if 0.0 < part < MIN_MAGNITUDE:
                raise ParameterError(
                    f"{type(self).__name__}.fit: {name} = {getattr(self, name):g} split over the "
                    f"{n_classes} "
                    f"one-vs-rest models is {part:.3g} each, below {MIN_MAGNITUDE:g}. Use {name} "
                    ">= "
                    f"{MIN_MAGNITUDE * n_classes:g}."
                )
        return clone(self).set_params(
            **parts, classes=[0, 1], accountant=None, random_state=random_state
        )

    def _plan_ovr(self, n: int, n_classes: int, n_features: int) -> FitPlan:
        """The plan of C binary models, each with ε/C (and δ/C), composed sequentially."""
        binary = self._binary_clone(n_classes)
        # each sub-plan records its binary model's parameters: the caller may prepare one on it
        binary_plan = dataclasses.replace(binary.plan_checked(n, 2, n_features),
                                          params=planned_params(binary))
        # a private one: the δ the C models spend (0 in their pure form)
        total = binary_plan.budget
        if total.private:
            delta = sum([binary_plan.budget.delta] * n_classes)
            if not delta < 1.0:  # C binary models' δ each (delta=None: 1/n² each) reach 1
                raise ParameterError(
                    f"{type(self).__name__}.plan: delta={getattr(self, 'delta', None)!r} gives "
                    f"each of the {n_classes:,} one-vs-rest models (one per class) "
                    f"delta = {binary_plan.budget.delta:.3g}, {delta:.3g} in all, and a "
                    "delta must be below 1. Pass a delta below 1 (it is split over the "
                    "classes), fewer classes, or more rows.")
            total = Budget(float(self.epsilon), delta)
        return FitPlan(
            estimator=type(self).__name__, n=n, n_classes=n_classes, n_features=n_features,
            template=f"one-vs-rest over {n_classes} x {binary_plan.template}",
            learner=binary_plan.learner, mechanism=binary_plan.mechanism, budget=total,
            backend=binary_plan.backend, parts={"each binary model": binary_plan.budget},
            lam=binary_plan.lam, lam_rule=binary_plan.lam_rule,
            reads_epsilon=binary_plan.reads_epsilon,
            options=dict(binary_plan.options), notes=(OVR_NOTE,),
            sub_plans=(binary_plan,) * n_classes)

    def _fit_sub_plans(self, X: Any, y: Any, plan: FitPlan, context: FitContext) -> Any:
        """Fit one binary model per class on ``(X, y == c)`` with its plan (ε/C, δ/C each),
        through its public ``fit`` (:func:`fit_part`).

        X and the labels are those the fit validated and encoded before its plan
        (``context.data``); each binary model gets the rows and its labels from them, checked
        no further. The C binary fits draw from this fit's generator (``context.noise``), in
        order, inside its budget hold.
        """
        owner = type(self).__name__
        C = plan.n_classes
        epsilon_per_class = split_even(float(self.epsilon), C)
        data = context.data
        classes = data.labels.classes
        models, certificates = [], []
        with hold_plan(self, plan, context) as hold, \
                ovr_noise_warning(self, plan, owner, self._ovr_noise_family):  # once, ε/C named
            for class_index, sub_plan in enumerate(plan.sub_plans):
                binary_model = self._binary_clone(C, self.random_state)
                binary = self._binary_data(data, class_index)
                # one generator, in order; inside this fit's hold, with its plan and rows
                part = context.inner(context.noise, held=True, data=binary, plan=sub_plan)
                models.append(fit_part(binary_model, binary.X, binary.y, part))
                certificates.append(_as_a_binary_part(binary_model.certificate_))
            certificate = self._composed(certificates, epsilon_per_class,
                                         [f"class {label!r}" for label in classes.tolist()],
                                         data.labels.assumption)
            hold.commit_certificate(certificate)
        self.classes_ = classes
        self.n_features_in_ = models[0].n_features_in_
        self.coef_ = np.vstack([model.coef_ for model in models])
        self.intercept_ = np.concatenate([model.intercept_ for model in models])
        self.certificate_ = certificate
        return self

    def _binary_data(self, data: CheckedData, class_index: int) -> CheckedData:
        """The rows and labels of the binary model of class ``class_index``, from those of the
        whole set: labels {0, 1} (1: the class), a record outside the set (``"ignore"``) outside
        {0, 1} too, its row zeroed, as is a record left out of the fit."""
        labels = data.labels
        index = np.where(labels.dropped, 0, labels.index == class_index).astype(np.int64)
        binary = LabelSet(
            classes=np.array([0, 1]), index=index, outside=labels.outside, dropped=labels.dropped,
            assumption=LabelSource("parameter", (0, 1), self.unknown_labels),
            signs=np.where(index == 1, 1.0, -1.0),
        )
        return CheckedData(data.X, np.where(labels.outside, -1, index), binary)

    def _certify_sub_plans(self, plan: FitPlan, X: Any = None, y: Any = None,
                           context: FitContext = NO_CONTEXT) -> Any:
        """The composed certificate of the C binary models' dry runs (nothing drawn or charged),
        each through the binary model's public ``certify`` with its plan, held as the binary
        fits are (the δ line stated once, for the whole): from the plan's shape, or on (X, y),
        validated once as a fit validates them."""
        binary_model = self._binary_clone(plan.n_classes)
        if X is None:  # the classes named as a fit names them, by classes= where given
            classes = range(plan.n_classes) if self.classes is None else check_classes(
                self.classes, f"{type(self).__name__}.certify").tolist()
            certificates = []
            for sub_plan in plan.sub_plans:
                with issued(context.inner(context.noise, held=True, plan=sub_plan)) as part:
                    certificates.append(binary_model.certify(
                        n=sub_plan.n, n_classes=2, n_features=sub_plan.n_features, context=part))
            source = ()
        else:
            data = context.data or self._validated(X, y, context)
            classes, source = data.labels.classes.tolist(), (data.labels.assumption,)
            certificates = []
            for class_index, sub_plan in enumerate(plan.sub_plans):
                binary = self._binary_data(data, class_index)
                part = context.inner(context.noise, held=True, data=binary, plan=sub_plan)
                certificates.append(certify_part(binary_model, binary.X, binary.y, part))
        for certificate in certificates:  # the label set and the seed, as the binary fits state
            _as_a_binary_part(certificate)
            certificate.seeded = self.random_state is not None
        return self._composed(certificates, plan.sub_plans[0].budget.epsilon,
                              [f"class {label!r}" for label in classes], *source)

    def _composed(self, certificates: list[Any], epsilon_per_class: float, labels: list[str],
                  *assumptions: Any) -> Any:
        """The sequential composition of the C binary certificates, for the whole model."""
        C = len(certificates)
        return compose_sequential(
            certificates, mechanism=f"one-vs-rest over {C} classes: {certificates[0].mechanism}",
            epsilon_requested=float(self.epsilon),
            quantities={"classes C": C, "epsilon per class": epsilon_per_class},
            assumptions=[OVR_NOTE, *assumptions], labels=labels)


class LinearDecisionMixin(ClassifierScoreMixin):
    """Prediction for fitted binary linear models (``coef_``, ``intercept_``, ``classes_``)."""

    @checks_feature_names
    def decision_function(self, X: Any) -> np.ndarray:
        """Signed score wᵀx + b; positive means ``classes_[1]``."""
        return self._scores(X, "decision_function")

    def _scores(self, X: Any, method: str) -> np.ndarray:
        """The scores of :meth:`decision_function`, its errors naming the public ``method`` called."""
        check_fitted(self, "coef_")
        X_checked = check_array(
            X,
            f"{type(self).__name__}.{method}",
            n_features=self.n_features_in_,
            accept_sparse=True,
            accept_dask=True,
        )
        return self._row_scores(X_checked)

    def _row_scores(self, X_checked: Any) -> np.ndarray:
        """The scores of rows already checked (the fit's own rows, a front door's selection)."""
        unit = getattr(self, "row_norm", "none") == "unit"  # the fit's per-record map, alike
        # scores summed per chunk on the workers; n numbers come back
        if is_dask_collection(X_checked):
            from ..data.dask_rows import DaskRows

            rows = DaskRows(
                normalize_rows_lazy(X_checked, float(self.data_norm)) if unit else X_checked
            )
            scores = np.column_stack([rows.matvec(class_coef) for class_coef in self.coef_])
            scores = row_products(X_checked, self.coef_.T, scores) if not unit else scores
        elif not unit:
            scores = row_products(X_checked, self.coef_.T)
        else:  # x -> q x/||x|| as a factor on the scores (the rows are not copied)
            q, norms = float(self.data_norm), as_design(X_checked).row_norms()
            # an unsafe row's factor: redone below
            with np.errstate(over="ignore", invalid="ignore"):
                scores = np.asarray(X_checked @ self.coef_.T) * unit_scale(norms, q)[:, None]
            # each row on its own: no score reads another row
            unsafe = ~_unit_factors_safe(norms, q)
            scores[unsafe] = np.asarray(normalize_rows(X_checked[unsafe], q) @ self.coef_.T)
        scores = scores + self.intercept_
        return scores if self.coef_.shape[0] > 1 else scores[:, 0]  # one-vs-rest: (n, C)

    @checks_feature_names
    def predict(self, X: Any) -> np.ndarray:
        """Predicted class labels (one-vs-rest: the class with the highest score)."""
        return self._labels(self._scores(X, "predict"))

    def _predict_rows(self, X_checked: Any) -> np.ndarray:
        """:meth:`predict` of rows already checked (a front door's selection)."""
        return self._labels(self._row_scores(X_checked))

    def _labels(self, scores: np.ndarray) -> np.ndarray:
        if scores.ndim == 2:
            return self.classes_[np.argmax(scores, axis=1)]
        return self.classes_[(scores > 0).astype(int)]

    @checks_feature_names
    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities by the logistic link σ of the decision function f (meaningful
        for the logistic loss).

        Column j is the probability of ``classes_[j]``: [σ(−f), σ(f)]; one-vs-rest, the C
        values σ(f_c) normalized to sum to 1 (as scikit-learn's one-vs-rest logistic
        regression). Both from :meth:`predict_log_proba`'s values, computed in log space so no row
        underflows; the argmax is :meth:`predict`'s.
        """
        log_proba = self._log_proba(X, "predict_proba")
        return keep_argmax(np.exp(log_proba), log_proba)

    def _log_proba(self, X: Any, method: str) -> np.ndarray:
        f = self._scores(X, method)
        # two classes: [log σ(−f), log σ(f)]
        scores = np.column_stack([-f, f]) if f.ndim == 1 else f
        log_sigmoid = -np.logaddexp(0.0, -scores)
        # one-vs-rest: normalized over the classes (every σ(f_c) = 0 on a row: uniform)
        if f.ndim == 2:
            log_sigmoid[np.isneginf(log_sigmoid).all(axis=1)] = 0.0
            log_sigmoid = log_softmax(log_sigmoid, axis=1)  # shifted by the row's maximum first
        return keep_argmax(log_sigmoid, scores)


#: The certificate's row map of ``row_norm="unit"``.
UNIT_ROWS_NOTE = RowMap(
    "unit",
    "row_norm='unit': every non-zero row scaled to the norm bound q "
    "(x -> q x/||x||, zero rows stay zero), in fit and predict: a map that reads "
    "only the record itself (docs/privacy/row_scaling.md#privacy-row-norm-unit)",
)

#: The certificate's line of a regressor whose labels are mapped around a given centre.
CENTERED_LABELS_NOTE = (
    "labels mapped around c = label_center: u = 2 (y - c) / (hi - lo) clipped to [-1, 1] (a "
    "per-record map), c a number given as public or released before the model (a number the "
    "caller gives is taken as public, not checked; "
    "docs/privacy/perturbation.md#privacy-label-center)"
)

#: Dense rows with norms up to this are clipped inside the products (:func:`design_rows`);
#: beyond it the products of the stored rows could overflow, and the rows are clipped
#: on a copy.
_IMPLICIT_MAX_NORM = 1e100


def _unit_factors_safe(norms: np.ndarray, q: float) -> np.ndarray:
    """Per row, whether its factor q/||x_i|| and its products stay finite (else the row is scaled
    on a copy by the overflow-safe :func:`~dpconvex.data.row_scaling.normalize_rows`)."""
    return (norms == 0) | ((norms <= _IMPLICIT_MAX_NORM) & (norms >= q / _IMPLICIT_MAX_NORM))


def design_rows(
    est: Any, X_checked: Any, dropped: np.ndarray, owner: str, *, unit: bool = False,
    signs: np.ndarray | None = None,
) -> Any:
    """The rows of the template: clipped to q (``unit``: scaled to it), the intercept column
    appended, the ``dropped`` records zeroed, times the label signs ``signs`` (±1, of a margin
    loss: the rows y_i x_i it reads); per-record public maps
    (docs/privacy/linear_erm.md#privacy-intercept, privacy-row-scaling).

    Dask rows are read lazily per chunk (data/dask_rows). Dense and SciPy sparse rows are read
    in place, as factors (:class:`~dpconvex.data.operators.ScaledRows`): row i is
    ``y_i keep_i · [min(1, q/||x_i||) x_i, s]`` (``unit``: the factor q/||x_i||), keep_i = 0 for
    the ``dropped`` records, the clip factor computed from the row as each product reads it
    (docs/privacy/row_scaling.md); where a kept row's products could overflow, on a copy (the
    guard and the count of clipped rows read the kept rows only). Returns a
    :class:`~dpconvex.data.operators.ScaledRows` (Dask rows: a ``DaskRows``)."""
    q = float(est.data_norm)
    scaling = float(getattr(est, "intercept_scaling", 1.0)) if est.fit_intercept else None
    if is_dask_collection(X_checked):
        from ..data.dask_rows import DaskRows
        design = DaskRows(normalize_rows_lazy(X_checked, q) if unit else X_checked).clip(q)
        if scaling is not None:
            design = design.add_intercept(scaling)
        if signs is None and not dropped.any():
            return design
        return design.scale_rows(np.where(dropped, 0.0, 1.0 if signs is None else signs))
    rows = CSRRows(X_checked) if sp.issparse(X_checked) else DenseRows(X_checked)
    norms = rows.row_norms()
    kept_norms = norms[~dropped]
    if not unit and diagnostics_open():  # NOT PRIVATE (diagnostics): the kept rows scaled down
        note_clipped(int(np.count_nonzero(kept_norms > q)), kept_norms.shape[0], q, owner)
    if (not unit or _unit_factors_safe(kept_norms, q).all()) and \
            np.all(kept_norms <= _IMPLICIT_MAX_NORM) and q >= 1.0 / _IMPLICIT_MAX_NORM:
        sign = 1.0 if signs is None else signs
        # the clip (unit) factor of each row computed from the row as read, inside every
        # product: a row changed in place between two products is scaled by its own factor
        scale = np.where(dropped, 0.0, np.ones(len(dropped)) * sign)
        column = None if scaling is None else np.where(dropped, 0.0, scaling * sign)
        return ScaledRows(rows, scale, column, clip=q, unit=unit)
    # the rows and constants checked (check_array, the parameters): the maps' unchecked cores
    design = _clip_checked(normalize_rows(X_checked, q) if unit else X_checked, q)[0]
    if scaling is not None:
        design = _append_column(design, scaling)
    design = zero_rows(design, dropped)  # records that contribute no loss
    return ScaledRows(as_design(design), np.ones(len(dropped)) if signs is None else signs)


#: Seconds per stored entry (row × column) of a linear ERM fit by Clarabel, measured on the
#: project's 2-core machines (20,000-50,000 rows × 20 features over an l1 ball: 28-34 s,
#: where the native solver took 0.02-0.07 s); an order of magnitude, for the warning.
CVXPY_SECONDS_PER_ENTRY = 5e-5


def warn_solver_cost(owner: str, solver: str, n: int, p: int) -> None:
    """A :class:`~dpconvex.errors.SolverCostWarning`: a fit of ``owner`` goes to the CVXPY
    backend ``solver`` on n rows x p columns, and what that costs, from public facts only.

    Examples
    --------
    >>> import warnings
    >>> from dpconvex.estimators.linear import warn_solver_cost
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_solver_cost("PrivateLogisticRegression", "clarabel", 1000, 11)
    >>> "roughly 0.55 s" in str(caught[0].message)
    True
    """
    warnings.warn(
        f"{owner}: this fit goes to '{solver}' on n = {n} rows x p = {p} columns: expect "
        f"roughly {n * p * CVXPY_SECONDS_PER_ENTRY:.2g} s ({CVXPY_SECONDS_PER_ENTRY:g} s per "
        "entry, measured). The native solver solves this problem too, typically 100-1000 "
        "times faster: leave solver=None (the default).",
        SolverCostWarning, stacklevel=user_stacklevel())


#: The mechanisms of the linear classifiers and regressors (CMS Alg. 1 and 2, privacy-gaussian-linear).
LINEAR_MENU = MechanismMenu(
    {name: name for name in ("objective", "output", "none", "gaussian_objective",
                             "gaussian_output")},
    auto=("objective", "gaussian_objective"))


class LinearPlanMixin:
    """The plan of a private linear model, shared by the linear classifiers and both
    regressors: the mechanism of :attr:`mechanism_menu` ("auto": by δ), the budget, the row bound q̃ with the
    intercept column, Λ by the public rule, the backend. Reads parameters only, never data; and the
    template of a plan.
    """

    #: A reusable preparation (no choice of its plan reads ε) holds its plan's Λ, loss and row
    #: bound; the release reads the budget, the mechanism and the notes off its plan.
    _fields_read_at_release: ClassVar[tuple[str, ...]] = ("budget", "parts", "mechanism",
                                                          "notes")

    #: The mechanisms ``mechanism=`` offers, and the pair "auto" chooses between by δ.
    mechanism_menu: ClassVar[MechanismMenu] = LINEAR_MENU

    def _mechanism_and_budget(self) -> tuple[Mechanism, Budget, tuple[str, ...]]:
        """The mechanism of :attr:`mechanism_menu` the parameters ask for, its budget and the
        certificate's line on why "auto" chose it.

        "auto" chooses by δ (the one rule), except that with ``constraints=`` the pure mechanism stands for
        the Gaussian objective one, which is derived for the unconstrained minimizer only; such a pure choice
        spends no δ. The mechanism is wrapped in approximate-minima perturbation when ``optimality_tol`` is
        set. A mismatch of mechanism and δ is refused by name (:meth:`Mechanism.check_budget`).
        """
        auto = self.mechanism_menu.auto
        asked = Budget(float(self.epsilon), float(self.delta))  # the one check of (ε, δ)
        choice = resolve_mechanism(self.mechanism, asked, auto)
        if choice.reason is not None and getattr(self, "constraints", None) is not None \
                and auto is not None and choice.name != auto[0]:
            choice = AutoMechanism(auto[0], MechanismChoice(
                auto[0], "constraints", "objective perturbation, pure epsilon-DP: within the "
                "(epsilon, delta) asked", instead=choice.name))
            asked = Budget(asked.epsilon)  # the pure mechanism "auto" chose spends no δ
        mechanism = build_mechanism(choice.name, type(self).__name__, self.mechanism_menu,
                                    optimality_tol=getattr(self, "optimality_tol", None))
        budget = mechanism.check_budget(asked)  # the non-private baseline spends nothing
        return mechanism, budget, () if choice.reason is None else (choice.reason,)

    def _mechanism(self) -> Mechanism:
        """The mechanism object the parameters ask for (:meth:`_mechanism_and_budget`)."""
        return self._mechanism_and_budget()[0]

    def _validate_params(self, *, planned: bool = False) -> None:
        """The table, then the mechanism against the menu and δ (refused by name; ``planned``:
        by :meth:`_plan`, which resolves it)."""
        super()._validate_params(planned=planned)  # type: ignore[misc]
        if not planned:
            self._mechanism_and_budget()

    def _norm_bound(self) -> float:
        """q̃ = sqrt(q² + s²) with the intercept column (the appended s is part of every row)."""
        q = float(self.data_norm)
        return math.sqrt(q * q + float(self.intercept_scaling) ** 2) if self.fit_intercept else q

    def _erm_template(self, plan: FitPlan, rows: Any = None, labels: np.ndarray | None = None,
                      caller: str = "", scale: float = 1.0, *,
                      fit: bool = False) -> LinearERMTemplate:
        """The template of ``plan`` (its loss, Λ and row bound q̃) over ``rows``, the rows the loss
        reads (:func:`design_rows`: for a margin loss signed by the labels), and ``labels``, on
        the convex set of ``constraints`` (:meth:`_parameter_set`; ``scale``: the factor from the
        parameter to the released coefficients). ``rows`` None: the public problem alone, no
        rows and no labels read
        (:meth:`~dpconvex.templates.linear_erm.LinearERMTemplate.of_problem`).

        With ``fit`` (a fit on rows in memory: a CVXPY backend refuses Dask rows) a CVXPY
        backend named is warned of, before the solve starts (:func:`warn_solver_cost`;
        ``caller``: by default certify).
        """
        caller = caller or f"{type(self).__name__}.certify"
        p, q = plan.n_features + int(self.fit_intercept), plan.options["norm bound q~"]
        found = (None if self.constraints is None
                 else self._parameter_set(plan.n_features, caller, scale))
        if fit and self.solver not in (None, "auto", "native"):
            warn_solver_cost(caller.split(".")[0], self.solver, plan.n, p)
        return (LinearERMTemplate.over_design(plan.loss, plan.lam, q, rows, labels, found)
                if rows is not None  # else the public problem alone (a dry run)
                else LinearERMTemplate.of_problem(plan.loss, plan.lam, q, plan.n, p, found))

    def _parameter_set(self, n_features: int, caller: str, scale: float = 1.0) -> ConvexSet:
        """The convex set ``constraints(coef)`` states on the coefficients (never the intercept);
        called where ``constraints`` is given.

        ``coef`` is the coefficient part of the template's parameter, times ``scale``. A set with
        an exact projection (:func:`~dpconvex.objectives.sets.recognize`) serves every solver; any
        other DCP set is a :class:`~dpconvex.objectives.CVXPYSet`, which the native projected
        Newton solver takes (its quadratic models solved over the set in the p coordinates) as the
        CVXPY backends do. A callable that raises, or returns no CVXPY constraint, is refused
        (``caller``: the public call).
        """
        import cvxpy as cp

        from ..objectives.sets import CVXPYSet, recognize

        theta = cp.Variable(n_features + int(self.fit_intercept))
        coef = theta[:n_features] if self.fit_intercept else theta
        try:
            stated = self.constraints(coef * scale if scale != 1.0 else coef)
        except Exception as exc:  # the user's callable, called on a CVXPY variable
            raise ParameterError(
                f"The 'constraints' parameter of {caller.split('.')[0]}: the callable raised "
                f"{type(exc).__name__} ({exc}) when called on the coefficients, a CVXPY "
                f"variable of {n_features} entries. Return CVXPY constraints on it, e.g. "
                "lambda coef: cp.norm(coef, 2) <= 1."
            ) from None
        listed = ([stated] if isinstance(stated, cp.Constraint)
                  else list(stated) if isinstance(stated, (list, tuple)) else [])
        if not listed or not all(isinstance(c, cp.Constraint) for c in listed):
            raise ParameterError(
                f"The 'constraints' parameter of {caller.split('.')[0]} must return a CVXPY "
                f"constraint or a non-empty list of them. Got {_short_repr(stated)} instead.")
        return recognize(listed, theta) or CVXPYSet(listed, theta)

    def _plan(self, n: int, n_classes: int, n_features: int) -> FitPlan:
        """The plan of one linear model from the parameters and (n, d) only (more than two classes:
        one plan per class, :meth:`_plan_ovr`), in the order its choices depend on each other: the
        mechanism and its budget (:meth:`_mechanism_and_budget`, "auto" with δ > 0:
        :meth:`_auto_form`); the row bound q̃; the loss with its kinks smoothed at the public
        rule's h (:meth:`_smoothed_loss`); Λ, given or by the public rule (:meth:`_planned_lam`);
        the solver ("auto": native); a regressor's public label range, a classifier's row map.
        """
        owner, regression = type(self).__name__, hasattr(self, "_label_bounds")  # the regressors
        if not regression and n_classes > 2:  # the mechanism against the whole δ, then split
            self._mechanism_and_budget()
            return self._plan_ovr(n, n_classes, n_features)
        label_range = self._label_bounds() if regression else None
        mechanism, budget, mechanism_notes = self._mechanism_and_budget()
        q, p = self._norm_bound(), n_features + int(self.fit_intercept)
        # labels mapped around a released (or public) centre: R's lower floor (privacy-label-center)
        centered = not isinstance(getattr(self, "label_center", "range"), str)
        stated = self._make_loss()  # the loss as the parameters state it, made once
        # "auto" chose the (ε, δ) form by δ > 0 (a line on "auto" implies the menu's pair)
        if mechanism_notes and mechanism.name == self.mechanism_menu.auto[1]:
            mechanism, budget, mechanism_notes = self._auto_form(
                mechanism, budget, stated, n, q, p, centered
            )
        # the rules weigh the budget spent; the baseline's, the epsilon it is compared at
        rules = budget if mechanism.private else Budget(float(self.epsilon))
        loss, smoothing_note = self._smoothed_loss(stated, mechanism, rules, n, q, p, centered)
        lam, lam_note = self._planned_lam(loss, mechanism, rules, n, q, p, centered)
        notes: tuple[Any, ...] = (
            (LabelSource("label_range", label_range=label_range),) if regression
            else (UNIT_ROWS_NOTE,) if self.row_norm == "unit" else ())
        if centered:
            notes = (*notes, CENTERED_LABELS_NOTE)
        smoothing = getattr(loss, "smoothed_kinks", None)
        vouch = getattr(self, "vouch", ())  # a user's loss only; a shipped loss is derived
        return FitPlan(
            estimator=owner, n=n, n_classes=1 if regression else n_classes,
            n_features=n_features, template="linear ERM",
            learner="linear regression" if regression else "linear ERM",
            mechanism=mechanism, budget=budget,
            backend="native" if self.solver in (None, "auto") else self.solver, lam=lam,
            lam_rule="given" if not isinstance(self.lam, str) else (
                "lam='auto': dpconvex.privacy.rules.noise_level.auto_lam "
                "(docs/privacy/perturbation.md#privacy-lambda-rule)"),
            notes=(lam_note, *([] if smoothing_note is None else [smoothing_note]),
                   *mechanism_notes, *notes),
            options={"loss": loss.name, "norm bound q~": q,
                     **({} if label_range is None else {"label_range": label_range}),
                     "fit_intercept": bool(self.fit_intercept),
                     "intercept_scaling": float(self.intercept_scaling),
                     **({} if smoothing is None else {"smoothing h": smoothing.h})},
            loss=loss, vouch=vouch_names(vouch),
            reads_epsilon=isinstance(self.lam, str) or smoothing_note is not None)

    def _auto_form(self, gaussian: Mechanism, budget: Budget, loss: Loss, n: int, q: float,
                   p: int, centered: bool) -> tuple[Mechanism, Budget, tuple[MechanismChoice]]:
        """``mechanism="auto"`` with δ > 0: the Gaussian form (``gaussian``, with ``budget``) or
        the pure one, whichever has the lower public Λ-rule bound (δ is spent by the Gaussian form
        only; docs/privacy/front_door.md#privacy-mechanism-auto), its budget and the
        certificate's line on the choice."""
        pure = build_mechanism(self.mechanism_menu.auto[0], type(self).__name__,
                               self.mechanism_menu,
                               optimality_tol=getattr(self, "optimality_tol", None))
        pure_budget = Budget(budget.epsilon)
        bounds = form_bounds(self.lam, [(gaussian, budget), (pure, pure_budget)], n, q, p, loss,
                             centered=centered)
        mechanism = gaussian
        if bounds[1] < bounds[0]:  # the lower of the two rules' bounds is kept (the pure form's
            # budget: the Gaussian form's ε, checked with it, and no δ)
            mechanism, budget = pure, pure_budget
        return mechanism, budget, (MechanismChoice(
            mechanism.name, "bound", bound=float(min(bounds)), other_bound=float(max(bounds)),
            n=n, p=p, pure=mechanism.pure),)

    def _smoothed_loss(self, loss: Loss, mechanism: Mechanism, budget: Budget, n: int, q: float,
                       p: int, centered: bool) -> tuple[Loss, SmoothingRule | None]:
        """The loss the template states: ``loss`` with kinks and ``smoothing="auto"`` smoothed at
        the half-width h of the public rule
        (:func:`~dpconvex.privacy.rules.noise_level.resolve_smoothing`, with the certificate's
        line on it), any other as it is (no line); a loss with kinks left unsmoothed is refused.
        """
        note = None
        if getattr(loss, "smoothing_unresolved", False):  # kinks, smoothing="auto"
            loss, note = resolve_smoothing(loss, self.lam, mechanism, n, budget, q, p,
                                           centered=centered)
        if getattr(loss, "has_kinks", False) and loss.smoothed_kinks is None:
            raise ParameterError(
                f"{type(self).__name__}.fit: loss '{loss.name}' has kinks and smoothing=None: no "
                "solver certifies the minimizer of a kinked loss, for any mechanism (its "
                "optimality residual, the gradient's norm, is not defined at a kink). Pass "
                "Loss.from_cvxpy(..., smoothing='auto') (the default: the fit chooses the "
                "half-width with lam) or a half-width h > 0; NoisyGradientDescent takes the "
                "kinks as they are."
            )
        return loss, note

    def _planned_lam(self, loss: Loss, mechanism: Mechanism, budget: Budget, n: int, q: float,
                     p: int, centered: bool) -> tuple[float, LamRule]:
        """Λ and the certificate's Λ rule: ``lam`` as given, or for "auto" by the public rule
        (:func:`~dpconvex.privacy.rules.noise_level.lam_rule`); a Λ beyond what float64
        products take is refused."""
        rule = (LamRule(float(self.lam)) if not isinstance(self.lam, str)  # validated: "auto"
                else lam_rule(mechanism, loss, n, budget, q, p, centered=centered))
        # the rule's Λ grows with q²; the regularizer's products leave float64 beyond
        if rule.lam > 1e100:
            raise ParameterError(
                f"{type(self).__name__}.fit: lam='auto' gives Λ = {rule.lam:.3g} for the norm "
                f"bound q~ = {q:.3g} (data_norm, with the intercept column's intercept_scaling), "
                "beyond the 1e100 a regularizer takes (float64 products such as n * lam "
                "overflow). Scale the rows by a public constant to a smaller data_norm (and "
                "intercept_scaling), or pass a numeric lam."
            )
        return rule.lam, rule


#: The parameters every private linear classifier shares, stated once and written into
#: each class docstring at its ``{linear_parameters}`` line (as scikit-learn's shared docs).
LINEAR_PARAMETERS_DOC = PARAMETER_DOCS["linear_parameters"] = fill_docs("""\
    epsilon : float, default=1.0
        Privacy budget ε > 0.
    delta : float, default=0.0
        δ in [0, 1) of an (ε, δ) guarantee (replace-one adjacency; e.g. 1/n²), matching
        ``mechanism``.
    lam : "auto" or float, default="auto"
        Regularization Λ > 0. "auto": the public rule
        :func:`dpconvex.privacy.rules.noise_level.auto_lam` (never the data values;
        docs/privacy/perturbation.md#privacy-lambda-rule).
    mechanism : {"auto", "objective", "output", "gaussian_objective", "gaussian_output", \
"none"}, default="auto"
        "auto": "objective" when ``delta`` is 0; when it is > 0, "gaussian_objective" unless
        the pure form's public Λ-rule bound is the lower (then δ is not spent;
        docs/privacy/front_door.md#privacy-mechanism-auto). "objective"/"output": CMS Alg. 2/1 with
        norm-Gamma noise (pure ε-DP). "gaussian_objective": objective perturbation with
        Gaussian noise (Kifer, Smith & Thakurta 2012, Thm. 2;
        docs/privacy/gaussian_linear.md#privacy-gaussian-objective). "gaussian_output": the
        exact minimizer plus analytic Gaussian noise (privacy-gaussian-output). "none" is the
        explicit NON-private baseline.
    {data_norm}
    row_norm : {"none", "unit"}, default="none"
        "unit": every non-zero row is scaled to the bound, x ↦ q·x/‖x‖, in fit and predict
        (docs/privacy/row_scaling.md#privacy-row-norm-unit); rows then use the whole norm
        bound, at the price of their length. "none": rows above q are clipped only.
    constraints : callable or None, default=None
        ``constraints(w)`` returns a list of CVXPY constraints on the coefficient variable
        ``w`` (the intercept is free), chosen without the data: a ball, box, orthant, ℓ1 ball
        or simplex is projected onto exactly; any other set stated with the constraints a
        ``CVXPYSet`` holds (``dpconvex.objectives.sets.ALLOWED_CONSTRAINTS``, e.g.
        ``lambda w: [w >= 0, cp.sum(w[:10]) <= 1]``) is compiled once into a problem in the
        coefficients and solved by the native projected Newton solver, or by
        ``solver="clarabel"`` or ``"scs"`` on the whole problem
        (docs/privacy/user_objectives.md#privacy-constraints).
    fit_intercept : bool, default=True
        Append a constant feature (regularized, inside the norm bound): data without one-hot
        blocks span no constant direction and need it.
    intercept_scaling : float, default=0.25
        The constant s > 0 appended when ``fit_intercept`` (as in scikit-learn's
        liblinear): the rows become [x, s], the norm bound q̃ = sqrt(q² + s²), and
        ``intercept_ = s·θ_last``; the default is measured in
        docs/privacy/row_scaling.md#privacy-intercept-scaling.
    solver : {None, "clarabel", "scs", "native"}, default=None
        None chooses "native" (L-BFGS + Newton; projected gradient or projected Newton over a
        set). "clarabel" and "scs" solve the whole n-row problem in CVXPY, at a far higher cost.
    {random_state}
    optimality_tol : float or None, default=None
        None: release only the (numerically) exact minimizer, else raise
        :class:`SolverError`. A float γ: approximate-minima perturbation (Iyengar et al.
        2019), output noise covering a solve with gradient norm <= γ
        (docs/privacy/accuracy_randomness.md#privacy-accuracy-randomness,
        docs/privacy/gaussian_linear.md#privacy-gaussian-amp).
    max_iter : int or None, default=None
        Cap on solver iterations; a capped solve is released only if its residual
        meets the tolerance of the chosen mode.
    {accountant}
    classes : sequence of labels or None, default=None
        The public label set. Two labels: one binary model, ``classes_[1]`` (the larger
        label) the positive class. C > 2 labels: one-vs-rest, C binary models each fitted with ε/C
        and δ/C, composed sequentially (docs/privacy/tuning_gd_ledger.md#privacy-one-vs-rest).
        {classes_none}
    {unknown_labels}
""")

#: The ``Warns`` entry every private linear classifier shares (its ``{linear_warns}`` line).
PARAMETER_DOCS["linear_warns"] = fill_docs("""\
    PrivacyWarning
        In ``fit``, before the solve, when the expected noise outweighs the
        largest possible data gradient at the start
        (docs/privacy/tuning_gd_ledger.md#privacy-noise-warning-linear).
        {public_check}
""")


def _release_linear(est: Any, prep: Prepared, plan: FitPlan, hold: CertificateHold,
                    context: FitContext, warm_start: np.ndarray | None,
                    notes: tuple[Any, ...], noise_check: dict[str, Any]
                    ) -> tuple[np.ndarray, float]:
    """The release of a linear model ``est`` (a classifier's or a regressor's): the template of
    ``plan`` released with its mechanism and budget from this fit's generator, ``notes`` stated
    on its certificate, the certificate committed to ``hold`` and set as ``certificate_``.

    Parameters
    ----------
    est : estimator
        The linear model (its ``solver``, ``max_iter``, ``fit_intercept`` and
        ``intercept_scaling``, as its parameters were checked).
    prep : Prepared
        The preparation of ``plan`` (its template over the design rows).
    plan : FitPlan
        The plan: its mechanism, budget, vouched names and ``n_features`` d.
    hold : CertificateHold
        The fit's hold on the ledger.
    context : FitContext
        This fit's context: ``noise`` its generator (set by the fit); ``noise_guarded``: the fit
        that holds this one guards against its noise, so ``noise_check`` is not run.
    warm_start : ndarray or None
        A start point for the solver (None: the solver's own).
    notes : tuple
        The assumptions stated on the certificate (the plan's notes, a label set's source).
    noise_check : dict
        The release's public noise check (its ``noise_warning``: the family and the name that
        opens the warning), read before any noise is drawn
        (docs/privacy/tuning_gd_ledger.md#privacy-noise-warning-linear).

    Returns
    -------
    coef : ndarray of shape (d,)
        θ[:d], the coefficients on the scale the model was fitted on.
    intercept : float
        s·θ_d (s: ``intercept_scaling``, the column the rows carry); 0.0 without an intercept.
    """
    # every argument checked: the parameters by _validate_params (fit_prepared: again, after
    # any set_params), the plan's by the plan; context.noise: this fit's generator
    # (random_state, or a meta-estimator's)
    released = _release_checked(
        prep.template, plan.mechanism, plan.budget, getattr(est, "solver", None),
        context.noise.rng, warm_start=warm_start, max_iter=getattr(est, "max_iter", None),
        seeded=context.noise.seeded, vouch=plan.vouch, vouch_unused="ignore",
        noise_warning=None if context.noise_guarded else noise_check)
    theta, certificate = released.theta, released.certificate
    certificate.state(*notes)
    hold.commit_certificate(certificate)
    est.certificate_ = certificate
    d = plan.n_features
    s = float(est.intercept_scaling)  # the column holds s: the intercept is s·θ_d
    return theta[:d], s * theta[d] if est.fit_intercept else 0.0


class _PrivateLinearClassifier(
    OneVsRestMixin, LinearDecisionMixin, LinearPlanMixin, PrivateEstimator
):
    """Shared plan/prepare/release for private linear classifiers over :class:`LinearERMTemplate`."""

    takes_row_mask = True

    _accepts_sparse = True
    _parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "epsilon": EPSILON,
        "delta": DELTA,  # against the mechanism: in the plan (_mechanism_and_budget)
        "lam": LAM, "data_norm": DATA_NORM,
        "mechanism": NoValidation("built (and named in errors) by _validate_params"),
        "fit_intercept": Bool(),
        "intercept_scaling": Float(),  # s > 0 (privacy-row-scaling)
        "solver": SOLVER, "random_state": RANDOM_STATE,
        "optimality_tol": OPTIMALITY_TOL, "max_iter": MAX_ITER_RULE,
        "accountant": ACCOUNTANT, "classes": CLASSES,
        "unknown_labels": LABEL_POLICY, "row_norm": ROW_NORM,
        "constraints": ParameterSet(),
    }

    def __init__(self, *, epsilon: float = 1.0, lam: float | str = "auto", mechanism: str = "auto",
                 data_norm: float = 1.0, fit_intercept: bool = True, solver: str | None = None,
                 random_state: int | None = None, optimality_tol: float | None = None,
                 max_iter: int | None = None, accountant: BudgetAccountant | None = None,
                 classes: ArrayLike | None = None, delta: float = 0.0,
                 intercept_scaling: float = 0.25, unknown_labels: str = "raise",
                 row_norm: str = "none", constraints: ParameterSetRule | None = None):
        """The parameters every linear classifier shares (:data:`LINEAR_PARAMETERS_DOC`)."""
        self._store_params(locals())

    def _make_loss(self) -> Loss:
        raise NotImplementedError

    def prepare(
        self, X: Any, y: Any, plan: FitPlan, *, context: FitContext = NO_CONTEXT
    ) -> Prepared:
        """Validate, clip, add the intercept column, and build the template of ``plan``."""
        X_checked, labels = self._checked_data(X, y, plan, context, binary=True)
        return _bind_plan(self._prepared(X_checked, labels, plan), plan)

    def _prepare_fit(self, X: Any, y: Any, plan: FitPlan, context: FitContext) -> Prepared:
        """The fit's preparation: the template of ``plan`` over the rows X and the labels
        ``context.data.labels`` as the fit validated them and held them to the plan's shape, so
        not checked again (:meth:`prepare` checks the rows and labels a caller hands it). Its
        release is handed ``plan`` with it, so it is not bound to it (as :meth:`prepare`'s is,
        for :meth:`fit_prepared`)."""
        return self._prepared(X, context.data.labels, plan)

    def _prepared(self, X_checked: Any, labels: LabelSet, plan: FitPlan) -> Prepared:
        """Clip, add the intercept column, and build the template of ``plan`` over the checked
        rows ``X_checked`` and their encoded ``labels`` (not bound to ``plan``)."""
        owner = type(self).__name__
        design = design_rows(self, X_checked, labels.dropped, owner,
                             unit=self.row_norm == "unit", signs=labels.signs)
        return Prepared(
            template=self._erm_template(plan, design, labels.signs, f"{owner}.fit",
                                        fit=not is_dask_collection(X_checked)),
            labels=labels,
            # a fit at another ε reuses it unless a choice of the plan reads ε
            reusable=not plan.reads_epsilon,
        )

    def public_template(self, plan: FitPlan) -> LinearERMTemplate:
        return self._erm_template(plan)

    def _release(self, prep: Prepared, plan: FitPlan, hold: CertificateHold,
                 context: FitContext, warm_start: np.ndarray | None) -> _PrivateLinearClassifier:
        """Noise, release and the fitted attributes (the private part of a fit,
        :func:`_release_linear`)."""
        coef, intercept = _release_linear(
            self, prep, plan, hold, context, warm_start, (prep.labels.assumption, *plan.notes),
            {"family": "linear", "owner": type(self).__name__})
        self.classes_ = prep.labels.classes
        self.n_features_in_ = plan.n_features
        self.coef_ = coef.reshape(1, -1)
        self.intercept_ = np.array([intercept])
        return self


class PrivateLogisticRegression(_PrivateLinearClassifier):
    """ε- (or (ε, δ)-) differentially private L2-regularized logistic regression ([CMS]_ Section 3.4.1).

    Minimizes (1/n) Σ log(1 + exp(-y_i wᵀx_i)) + (lam/2)||w||^2 with output
    perturbation (Alg. 1) or objective perturbation (Alg. 2); with ``delta`` > 0,
    their (ε, δ) Gaussian versions (docs/privacy/gaussian_linear.md#privacy-gaussian-linear).

    Parameters
    ----------
    {linear_parameters}

    Warns
    -----
    {linear_warns}

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        One row per binary model (one-vs-rest: row c scores class c).
    intercept_ : ndarray of shape (1,) or (n_classes,)
    classes_ : ndarray of shape (n_classes,)
    certificate_ : Certificate
        Public facts only (the solve's diagnostics: :func:`dpconvex.collect_diagnostics`).

    References
    ----------
    [CMS]_ Section 3.4.1 (logistic regression), Algorithm 1 (output perturbation) and
    Algorithm 2 (objective perturbation).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import PrivateLogisticRegression
    >>> X = np.random.default_rng(0).normal(size=(40, 3))
    >>> X /= np.linalg.norm(X, axis=1, keepdims=True); y = np.where(X[:, 0] > 0, 1, -1)
    >>> clf = PrivateLogisticRegression(epsilon=1.0, classes=[-1, 1], random_state=0).fit(X, y)
    >>> clf.coef_.shape, clf.intercept_.shape
    ((1, 3), (1,))
    >>> clf.certificate_.epsilon <= 1.0
    True
    >>> clf.predict(X[:5]).shape
    (5,)
    """

    def _make_loss(self) -> Loss:
        return Logistic()


class PrivateHuberSVM(_PrivateLinearClassifier):
    """ε- (or (ε, δ)-) differentially private Huber SVM ([CMS]_ Section 3.4.2, eq. 35; smooth hinge eq. 23).

    Parameters
    ----------
    {linear_parameters}
    h : float, default=0.5
        Huber (or smooth-hinge) width h in [1e-6, 1e6] (beyond it float64 cannot check the
        loss's values against its slopes); the curvature bound is 1/(2h)
        (huber: the hinge ``cp.pos(1 - m)`` Huberized at half-width h by the loss compiler,
        :class:`~dpconvex.objectives.HuberHinge`) or 3/(4h) (smooth_hinge).
    loss : {"huber", "smooth_hinge"}, default="huber"
        "smooth_hinge" has no DCP form: only ``solver="native"`` accepts it.

    Warns
    -----
    {linear_warns}

    References
    ----------
    [CMS]_ Section 3.4.2 (Huber SVM, eq. 35; the smooth hinge, eq. 23), Algorithms 1 and 2.

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import PrivateHuberSVM
    >>> X = np.random.default_rng(0).normal(size=(40, 3))
    >>> X /= np.linalg.norm(X, axis=1, keepdims=True)
    >>> y = np.where(X[:, 0] > 0, "spam", "ham")
    >>> clf = PrivateHuberSVM(epsilon=1.0, h=0.5, classes=["ham", "spam"], random_state=0).fit(X, y)
    >>> clf.classes_.tolist()
    ['ham', 'spam']
    >>> clf.certificate_.epsilon <= 1.0
    True
    """

    def __init__(self, *, epsilon: float = 1.0, lam: float | str = "auto", h: float = 0.5,
                 loss: str = "huber", mechanism: str = "auto", data_norm: float = 1.0,
                 fit_intercept: bool = True, solver: str | None = None,
                 random_state: int | None = None, optimality_tol: float | None = None,
                 max_iter: int | None = None, accountant: BudgetAccountant | None = None,
                 classes: ArrayLike | None = None, delta: float = 0.0,
                 intercept_scaling: float = 0.25, unknown_labels: str = "raise",
                 row_norm: str = "none", constraints: ParameterSetRule | None = None):
        self._store_params(locals())

    _parameter_constraints: ClassVar[dict[str, Constraint]] = {
        **_PrivateLinearClassifier._parameter_constraints,
        "loss": Options(("huber", "smooth_hinge")),
        "h": WIDTH_RULE,
    }

    def _make_loss(self) -> Loss:
        return get_loss(self.loss, h=self.h)


class PrivateLinearClassifier(_PrivateLinearClassifier):
    """ε- (or (ε, δ)-) differentially private linear classifier with any margin loss ([CMS]_ Alg. 1-2).

    The building block for your own perturbed objective: a registered loss name or a
    :class:`~dpconvex.objectives.losses.Loss` that declares its constants, which the
    verifier checks before any noise is drawn
    (docs/privacy/user_objectives.md#privacy-user-objectives).

    Parameters
    ----------
    loss : str or Loss, default="logistic"
        A name in :data:`dpconvex.objectives.losses.LOSSES` (with default parameters) or an instance.
    vouch : tuple of str, default=()
        Names of the constants of a user's loss the caller vouches for, from
        :data:`dpconvex.privacy.declarations.VOUCHABLE`: their numerical check is skipped
        and the certificate says they were vouched for, not checked.
    {linear_parameters}

    Warns
    -----
    {linear_warns}

    References
    ----------
    [CMS]_ Algorithm 1 (output perturbation) and Algorithm 2 (objective perturbation).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import PrivateLinearClassifier
    >>> X = np.random.default_rng(0).normal(size=(40, 3))
    >>> X /= np.linalg.norm(X, axis=1, keepdims=True); y = np.where(X[:, 0] > 0, 1, -1)
    >>> clf = PrivateLinearClassifier(loss="smooth_hinge", epsilon=1.0, classes=[-1, 1],
    ...                               random_state=0).fit(X, y)
    >>> clf.coef_.shape
    (1, 3)
    >>> clf.certificate_.epsilon <= 1.0
    True
    """

    def __init__(self, *, loss: str | Loss = "logistic", epsilon: float = 1.0,
                 lam: float | str = "auto", mechanism: str = "auto", data_norm: float = 1.0,
                 fit_intercept: bool = True, solver: str | None = None,
                 random_state: int | None = None, optimality_tol: float | None = None,
                 max_iter: int | None = None, accountant: BudgetAccountant | None = None,
                 classes: ArrayLike | None = None, delta: float = 0.0,
                 intercept_scaling: float = 0.25, unknown_labels: str = "raise",
                 row_norm: str = "none", vouch: tuple[str, ...] = (),
                 constraints: ParameterSetRule | None = None):
        self._store_params(locals())

    _parameter_constraints: ClassVar[dict[str, Constraint]] = {
        **_PrivateLinearClassifier._parameter_constraints,
        "loss": LossParameter(tuple(sorted(LOSSES)), callables=True), "vouch": Vouch(),
    }

    def _make_loss(self) -> Loss:
        if isinstance(self.loss, Loss):
            return self.loss
        if callable(self.loss):  # a margin loss stated in CVXPY atoms: compiled here
            return stated_loss(self.loss, "margin", type(self).__name__)
        return get_loss(self.loss)
