"""The front door for regression: :class:`PrivateRegressor` picks the learner from public
quantities (:mod:`dpconvex.privacy.rules.front_door`,
docs/privacy/front_door_regression.md#privacy-regressor-rule).
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any, ClassVar

import numpy as np
from sklearn.base import RegressorMixin

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
    Optional,
    check_fitted,
    checks_feature_names,
    feature_names_of,
    with_feature_names,
)
from ..data.validation import check_array
from ..errors import PrivacyError, PrivacyWarning
from ..privacy.accounting import hold_budget
from ..privacy.budget import Budget, remaining
from ..privacy.certificate import Certificate, Condition, compose_parallel, compose_sequential
from ..privacy.mechanisms import get_mechanism
from ..privacy.release import Release, release
from ..privacy.rules.front_door import (
    HANDICAP_LEVEL,
    PRIVATE_MEAN,
    REGRESSION_VALIDATION,
    RESIDUAL_CLIP,
    RegressionChoice,
    choose_regression_learner,
    mean_epsilon,
    safeguard_sizes,
    selection_handicap,
)
from ..templates.statistics import BoundedMeanTemplate
from .base import FitContext, FitPlan, PrivateEstimator
from .regression import LabelRange, LabelRangeMixin, PrivateLinearRegressor, private_bounds
from .safeguard import (
    ConstantRegressor,
    SchemaInputMixin,
    SchemaOrNone,
    dry_selection,
    select_release,
    squared_error_utilities,
    take_rows,
    warn_constant_released,
)

__all__ = ["SELECTION_UTILITY", "PrivateRegressor"]

#: The certificate's line on the safeguard's utility (its sensitivity): the utilities
#: :func:`~dpconvex.estimators.safeguard.squared_error_utilities` computes with
#: κ = :data:`~dpconvex.privacy.rules.front_door.RESIDUAL_CLIP`.
SELECTION_UTILITY = (
    f"u_model = -sum_i min(1, ((u^_i - u_i)/kappa)^2) - m and u_mean = -sum_i min(1, "
    f"((c - u_i)/kappa)^2) over the validation rows, kappa = {RESIDUAL_CLIP:g}, labels u_i "
    "and predictions u^_i on the unit scale [-1, 1] (public maps; predictions clipped to it), "
    "c the private mean: each term lies in [0, 1], so replacing one validation record moves "
    "each utility by at most 1; m is a public handicap "
    "(docs/privacy/front_door_regression.md#privacy-regressor-safeguard)")


class PrivateRegressor(SchemaInputMixin, LabelRangeMixin, RegressorMixin, PrivateEstimator):
    """A differentially private linear regressor that chooses its learner from public quantities.

    The front door for regression: set ε (and δ) and the labels' public range; the learner
    follows from (n, d, ε, δ) by the rule of
    docs/privacy/front_door_regression.md#privacy-regressor-rule: the private mean of the
    labels (Laplace, [DMNS06]_) on few records per unit of ε and per coordinate, else median
    regression with an intercept by objective perturbation ([KB78]_, [CMS11]_ Alg. 2,
    [KST12]_ Section 3). The safeguard
    (docs/privacy/front_door_regression.md#privacy-regressor-safeguard) selects the model or
    the private mean on a validation part with the exponential mechanism ([MT07]_). Labels
    and predictions are clipped to ``label_range``.

    Parameters
    ----------
    epsilon : float, default=1.0
        ε > 0 of the release.
    delta : float, default=0.0
        δ in [0, 1): 0 for pure ε-DP; δ > 0 (e.g. 1/n²) lets the learner use its Gaussian
        mechanism on enough rows.
    {label_range}
        With a private range the rule sees the ε left.
    {data_norm}
    {random_state}
    {accountant}
    safeguard : "auto" or bool, default="auto"
        "auto": on for a model on at most 100,000 rows. False fits the learner on every row
        with the whole (ε, δ).
    validation_fraction : "auto" or float in (0, 1), default="auto"
        With the safeguard, the share of rows that validate: ⌈fraction · n⌉, or for "auto"
        max(⌈0.1 n⌉, min(⌈0.2 n⌉, 2,000)).
    schema : PublicSchema or None, default=None
        None: X holds rows. A schema: X is the table, encoded as for
        :class:`~dpconvex.PrivateClassifier` (``encoder_``).

    Attributes
    ----------
    estimator_ : estimator
        The released model: the fitted learner, or a
        :class:`~dpconvex.estimators.safeguard.ConstantRegressor` holding the private mean.
    learner_ : str
        "median regression" or "constant (private mean)".
    n_features_in_ : int
    certificate_ : Certificate

    References
    ----------
    .. [CMS11] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially Private
       Empirical Risk Minimization. JMLR 12 (2011), Alg. 2.
    .. [KST12] D. Kifer, A. Smith, A. Thakurta. Private Convex Empirical Risk
       Minimization and High-dimensional Regression. COLT 2012, Section 3.
    .. [KB78] R. Koenker, G. Bassett. Regression Quantiles. Econometrica 46 (1978).
    .. [DMNS06] C. Dwork, F. McSherry, K. Nissim, A. Smith. Calibrating Noise to
       Sensitivity in Private Data Analysis. TCC 2006.
    .. [MT07] F. McSherry, K. Talwar. Mechanism Design via Differential Privacy. FOCS 2007.

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import PrivateRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-0.5, 0.5, size=(5000, 3))
    >>> y = 50 + 60 * X[:, 0] + rng.normal(scale=5, size=5000)
    >>> reg = PrivateRegressor(epsilon=1.0, label_range=(0, 100), random_state=0).fit(X, y)
    >>> reg.learner_, reg.score(X, y) > 0.5, reg.certificate_.epsilon <= 1.0
    ('median regression', True, True)
    """

    _accepts_sparse: ClassVar[bool] = True
    _parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "epsilon": EPSILON,
        "delta": Optional(DELTA),
        "label_range": LabelRange(),
        "data_norm": DATA_NORM,
        "random_state": RANDOM_STATE,
        "accountant": ACCOUNTANT,
        "safeguard": Auto(Bool()),
        "validation_fraction": Auto(Float(high=1.0)),
        "schema": SchemaOrNone(),
    }
    #: The learner's intercept column (inside the norm bound, as the regressors' default).
    fit_intercept: ClassVar[bool] = True
    intercept_scaling: ClassVar[float] = 1.0

    def __init__(self, *, epsilon: float = 1.0, delta: float = 0.0,
                 label_range: tuple[float, float] = (-1.0, 1.0), data_norm: float = 1.0,
                 random_state: Any = None, accountant: Any = None,
                 safeguard: bool | str = "auto", validation_fraction: float | str = "auto",
                 schema: Any = None):
        self._store_params(locals())

    # ------------------------------------------------------------------------ plan
    def _parts(self, n: int, caller: str) -> tuple[int, int, float, float]:
        """The safeguard's part sizes (n_fit, n_val), the mean's ε_c and the ε − ε_c left."""
        n_fit, n_val = safeguard_sizes(n, self.validation_fraction, caller, REGRESSION_VALIDATION)
        eps_mean = mean_epsilon(n, float(self.epsilon))
        return n_fit, n_val, eps_mean, remaining(float(self.epsilon), eps_mean)

    def _make(self, mechanism: str, epsilon: float, *, guarded: bool) -> PrivateLinearRegressor:
        """The learner at ``epsilon`` (the whole ε, or ε − ε_c inside the safeguard, which
        then holds the budget and charges the ledger)."""
        delta = float(self.delta or 0.0) if mechanism.startswith("gaussian") else 0.0
        return PrivateLinearRegressor(
            loss="pinball", quantile=0.5, epsilon=epsilon, delta=delta, mechanism=mechanism,
            label_range=self.label_range, data_norm=self.data_norm, fit_intercept=True,
            random_state=self.random_state, accountant=None if guarded else self.accountant)

    def _plan(self, n: int, n_classes: int, n_features: int) -> FitPlan:
        choice = choose_regression_learner(n, n_features, float(self.epsilon),
                                           float(self.delta or 0.0), self.safeguard)
        owner = type(self).__name__
        if choice.learner == PRIVATE_MEAN:
            return FitPlan(
                estimator=owner, n=n, n_classes=1, n_features=n_features,
                template="bounded mean", mechanism=get_mechanism("laplace_mean"),
                budget=Budget(float(self.epsilon)), learner=PRIVATE_MEAN,  # pure: δ unused
                backend="none (closed form)",
                options={"label_range": self._label_bounds()},
                notes=(self._label_note(), choice.reason))
        if not choice.safeguard:
            learner_plan = self._make(choice.mechanism, float(self.epsilon),
                                      guarded=False).plan(n, 1, n_features)
            return dataclasses.replace(learner_plan, estimator=owner, notes=(
                *learner_plan.notes, choice.reason, *self._unguarded_note(n)))
        n_fit, n_val, eps_mean, rest = self._parts(n, f"{owner}.plan")
        learner_plan = self._make(choice.mechanism, rest, guarded=True).plan(n, 1, n_features)
        return dataclasses.replace(
            learner_plan, estimator=owner,
            budget=Budget(float(self.epsilon), float(self.delta or 0.0)),
            parts={"private mean (every row)": Budget(eps_mean),
                   "model (fitting part)": Budget(rest, learner_plan.budget.delta),
                   "selection (validation part)": Budget(rest)},
            notes=(*learner_plan.notes, choice.reason,
                   self._safeguard_note(n_fit, n_val, eps_mean)))

    def _unguarded_note(self, n: int) -> tuple[str, ...]:
        if not isinstance(self.safeguard, str):
            return ()
        return (f"PrivateRegressor: safeguard='auto' is off for n = {n} rows: the learner is "
                "fitted on every row with the whole budget "
                "(docs/privacy/front_door_regression.md#privacy-regressor-safeguard)",)

    def _safeguard_note(self, n_fit: int, n_val: int, eps_mean: float) -> str:
        return (f"PrivateRegressor: safeguard on: the private mean of the labels of every row "
                f"(epsilon_c = {eps_mean:.4g}), the learner on {n_fit} rows (the {n_val} "
                "validation rows' loss zeroed, their labels replaced by the centre of "
                "label_range) and the exponential mechanism over (the model, "
                f"the mean) on those {n_val}, each with epsilon - epsilon_c; the model's "
                f"utility lowered by a public handicap (a model no better than the mean is "
                f"released with probability <= {HANDICAP_LEVEL:g}; validation_fraction = "
                f"{self.validation_fraction!r}; "
                "docs/privacy/front_door_regression.md#privacy-regressor-safeguard)")

    # ------------------------------------------------------------------------- fit
    def _fit_with(self, X: Any, y: Any, context: FitContext) -> PrivateRegressor:
        """Choose the learner from (n, d, ε, δ), fit it, and (safeguard) select the release
        (:meth:`fit` inside ``context``; the learner draws from this fit's generator).

        Raises
        ------
        ParameterError, DataValidationError, PrivacyError, SolverError, BudgetError
        """
        if self.schema is not None:
            return self._fit_on_schema(X, y, context)
        if private_bounds(self.label_range) is not None:
            return self._fit_private_labels(X, y, context)
        self._validate_params()
        owner, epsilon = type(self).__name__, float(self.epsilon)
        names = feature_names_of(X, f"{owner}.fit")
        n, _, n_features = self.public_shape(X, y)
        choice = choose_regression_learner(n, n_features, float(self.epsilon),
                                           float(self.delta or 0.0), self.safeguard)
        lo, hi = self._label_bounds()
        half, mid = 0.5 * (hi - lo), 0.5 * (hi + lo)  # u ∈ [−1, 1] <-> the labels' units
        best = 1  # the candidate released: 0 the learner's model, 1 the private mean
        if choice.learner == PRIVATE_MEAN:
            check_array(X, f"{owner}.fit", min_samples=2, accept_sparse=True, accept_dask=True)
            noise = noise_source(self, context.noise)
            with hold_budget(self.accountant, epsilon, 0.0, owner) as hold:
                u = self._unit_labels(y, n, f"{owner}.fit")
                released_mean = _mean_release(float(np.sum(u)), n, epsilon, noise)
                certificate = released_mean.certificate
                certificate.state(self._label_note(), choice.reason)
                hold.commit_certificate(certificate)
            mean = float(released_mean.theta[0])
        elif not choice.safeguard:
            learner = self._make(choice.mechanism, epsilon, guarded=False)
            learner._fit_with(X, y, context.inner(noise_source(self, context.noise)))
            certificate, best = learner.certificate_, 0
            certificate.assumptions.extend((choice.reason, *self._unguarded_note(n)))
        else:  # the safeguard (privacy-regressor-safeguard): the mean, the learner, the selection
            n_fit, n_val, eps_mean, rest = self._parts(n, f"{owner}.fit")
            learner = self._make(choice.mechanism, rest, guarded=True)
            noise = noise_source(self, context.noise)
            with hold_budget(self.accountant, epsilon, float(self.delta or 0.0), owner) as hold:
                X_checked = check_array(X, f"{owner}.fit", min_samples=2, accept_sparse=True,
                                        accept_dask=True)
                u = self._unit_labels(y, n, f"{owner}.fit")
                order = noise.rng.permutation(n)  # independent of the data
                validation = np.sort(order[n_fit:])
                held = np.zeros(n, dtype=bool)
                held[validation] = True
                mean_rng, fit_rng, select_rng = noise.rng.spawn(3)
                released_mean = _mean_release(float(np.sum(u)), n, eps_mean,
                                              NoiseSource(mean_rng, noise.seeded))
                mean = float(released_mean.theta[0])
                y_unit = u * half + mid  # the clipped labels, in their units
                # the validation rows get the public placeholder: the centre of label_range
                # (u = 0), so no value of theirs reaches the learner (not even its objective's
                # constant); the learner's plan, hold and release leave them out
                y_unit[validation] = mid
                inner = context.excluding(held).inner(NoiseSource(fit_rng, noise.seeded))
                with warnings.catch_warnings():
                    # the learner's public noise check: the selection guards against its noise
                    warnings.simplefilter("ignore", PrivacyWarning)
                    plan = learner._plan(n, 1, n_features)
                    with hold_budget(learner.accountant, plan.budget.epsilon, plan.budget.delta,
                                     type(learner).__name__,
                                     n=None if inner.held else plan.n) as learner_hold:
                        learner._release(learner.prepare(X_checked, y_unit, plan, context=inner),
                                         plan, learner_hold, inner, None)
                X_val = take_rows(X_checked, validation, n, owner, self)
                utilities = squared_error_utilities(
                    [(learner._predict_rows(X_val) - mid) / half, np.full(n_val, mean)],
                    u[validation], [selection_handicap(rest), 0.0], clip=RESIDUAL_CLIP)
                best, selection = select_release(np.zeros(2), rest, n_val, select_rng,
                                                 noise.seeded, utilities=utilities,
                                                 description=SELECTION_UTILITY)
                certificate = self._safeguard_certificate(
                    released_mean.certificate, learner.certificate_, selection, choice,
                    (n_fit, n_val, eps_mean, rest), selected=best)
                hold.commit_certificate(certificate)
        if best == 0:
            self.estimator_, self.learner_ = learner, choice.learner
        else:  # the private mean (unit scale) released as the constant prediction
            self.estimator_ = ConstantRegressor(mean * half + mid, n_features)
            self.estimator_.certificate_ = certificate
            self.learner_ = PRIVATE_MEAN
        self.certificate_ = certificate
        self.n_features_in_ = n_features
        if best == 1 and choice.learner != PRIVATE_MEAN:
            warn_constant_released(owner, "the private mean of the labels", choice.learner,
                                   epsilon, "docs/privacy/front_door_regression.md"
                                   "#privacy-regressor-safeguard")
        return with_feature_names(self, names)

    def _safeguard_certificate(self, mean: Certificate, model: Certificate, selection: Certificate,
                               choice: RegressionChoice, parts: tuple[int, int, float, float],
                               selected: int | None = None) -> Certificate:
        """Sequential: the mean, then the parallel composition of the model and the selection."""
        n_fit, n_val, eps_mean, rest = parts
        candidates = [choice.learner, PRIVATE_MEAN]
        conditions = [
            Condition("candidates fixed before the data", True, "enforced by dpconvex",
                      f"the rule's learner ({choice.learner}) and the private mean"),
            Condition("disjoint parts", True, "enforced by dpconvex",
                      f"a permutation drawn independently of the data splits the {n_fit + n_val} "
                      f"rows into a fitting part of {n_fit} and a validation part of {n_val} "
                      "(sizes from n only); the learner reads the first, the selection the "
                      "second"),
        ]
        quantities: dict[str, Any] = {
            "safeguard validation fraction": self.validation_fraction,
            "part sizes": [n_fit, n_val], "safeguard candidates": candidates,
            "epsilon of the mean": eps_mean, "selection handicap": selection_handicap(rest)}
        if selected is not None:
            quantities["safeguard selected"] = candidates[selected]
        try:
            both = compose_parallel(
                [model, selection],
                mechanism=("the learner on the fitting part, the exponential mechanism over the "
                           "model and the mean on the validation part "
                           "(docs/privacy/front_door_regression.md#privacy-regressor-safeguard)"),
                epsilon_requested=rest, delta_requested=float(self.delta or 0.0), conditions=conditions,
                labels=["model (fitting part)", "selection (validation part)"])
            return compose_sequential(
                [mean, both],
                mechanism=("PrivateRegressor with its safeguard: the private mean of the labels, "
                           "then the learner and the selection on disjoint parts "
                           "(docs/privacy/front_door_regression.md#privacy-regressor-safeguard)"),
                epsilon_requested=float(self.epsilon), delta_requested=float(self.delta or 0.0),
                quantities=quantities,
                assumptions=[self._label_note(), choice.reason,
                             self._safeguard_note(n_fit, n_val, eps_mean),
                             "replace-one adjacency; n is public (it fixes the part sizes)"],
                labels=["private mean (every row)", "model and selection (disjoint parts)"])
        except PrivacyError as exc:
            raise PrivacyError(f"{type(self).__name__}.fit: {exc}") from None

    # --------------------------------------------------------------------- certify
    def certify(self, X: Any = None, y: Any = None, *, n: int | None = None,
                n_classes: int | None = None, n_features: int | None = None) -> Any:
        """The certificate a fit would carry (no noise drawn, nothing charged).

        ``certify(X, y)`` or ``certify(n=..., n_features=...)`` (``n_classes`` is ignored:
        a regression has no label set).
        """
        if self.schema is not None:
            return self._certify_on_schema(X, y, n=n, n_classes=n_classes,
                                           n_features=n_features)
        if private_bounds(self.label_range) is not None:
            return self._certify_private_labels(X, y, n=n, n_classes=n_classes,
                                                n_features=n_features)
        self._validate_params()
        if X is None:
            plan = self.plan(n if n is not None else 0, 1,
                             n_features if n_features is not None else 0)
            n_rows, d = plan.n, plan.n_features
        else:
            n_rows, _, d = self.public_shape(X, y)
        choice = choose_regression_learner(n_rows, d, float(self.epsilon),
                                           float(self.delta or 0.0), self.safeguard)
        if choice.learner == PRIVATE_MEAN:
            certificate = _mean_release(0.0, n_rows, float(self.epsilon)).certificate
            certificate.state(self._label_note(), choice.reason)
            return certificate
        if not choice.safeguard:
            learner = self._make(choice.mechanism, float(self.epsilon), guarded=False)
            certificate = learner.certify(n=n_rows, n_classes=1, n_features=d)
            certificate.assumptions.extend((choice.reason, *self._unguarded_note(n_rows)))
            return certificate
        parts = self._parts(n_rows, f"{type(self).__name__}.certify")
        _, n_val, eps_mean, rest = parts
        model = self._make(choice.mechanism, rest, guarded=True).certify(
            n=n_rows, n_classes=1, n_features=d)
        return self._safeguard_certificate(
            _mean_release(0.0, n_rows, eps_mean).certificate, model,
            dry_selection(2, rest, n_val, SELECTION_UTILITY), choice, parts)

    # --------------------------------------------------------------------- predict
    @checks_feature_names
    def predict(self, X: Any) -> np.ndarray:
        """The released model's predictions, in the labels' units (within ``label_range``)."""
        check_fitted(self, "estimator_")
        return self.estimator_.predict(self._encoded(X))


def _mean_release(total: float, n: int, epsilon: float, noise: NoiseSource | None = None
                  ) -> Release:
    """The private mean of n unit labels summing to ``total`` (Laplace, privacy-private-mean),
    on the unit scale; without ``noise`` the dry run (``certify``)."""
    template, budget = BoundedMeanTemplate(total, n), Budget(float(epsilon))
    if noise is None:
        return release(template, "laplace_mean", budget, dry_run=True)
    return release(template, "laplace_mean", budget, None, noise.rng, seeded=noise.seeded)
