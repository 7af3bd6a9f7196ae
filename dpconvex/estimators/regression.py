"""Scikit-learn compatible private linear regressors: any convex loss of the prediction.

:class:`PrivateLinearRegressor` minimizes (1/n) Σ ℓ(wᵀxᵢ + b, uᵢ) + (Λ/2)‖(w, b/s)‖² with
objective (or output) perturbation ([CMS]_ Alg. 1–2, for a loss of the prediction [KST]_),
on the same template, verifier, certificate and ledger as the classifiers. The labels are
read through two public per-record maps: clipped to ``label_range`` = (lo, hi), then scaled
to u = (2y − lo − hi)/(hi − lo) ∈ [−1, 1]; the loss sees u, so its constants do not depend
on the labels' units, and predictions are mapped back (and clipped to the range).
:class:`PrivateHuberRegressor` and :class:`PrivateQuantileRegressor` are the same estimator
with the loss fixed: the Huber loss, and the pinball loss of a quantile τ ([KB78]_) with its
kink smoothed by the loss compiler.

References
----------
.. [CMS] Chaudhuri, Monteleoni, Sarwate. Differentially Private Empirical Risk
   Minimization. JMLR 12 (2011), Alg. 1-2.
.. [KST] Kifer, Smith, Thakurta. Private Convex Empirical Risk Minimization and
   High-dimensional Regression. COLT 2012, Section 3 (objective perturbation for a convex loss
   of the prediction with rank-one Hessians).
.. [KB78] Koenker, Bassett. Regression Quantiles. Econometrica 46 (1978), 33-50 (the
   quantile loss ρ_τ).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from sklearn.base import RegressorMixin

from .._diagnostics import note_clipped
from .._random import noise_source
from .._validation import (
    ACCOUNTANT,
    DATA_NORM,
    DELTA,
    EPSILON,
    LAM,
    MAX_ITER_RULE,
    RANDOM_STATE,
    Auto,
    Bool,
    Constraint,
    Float,
    NoValidation,
    is_dask_collection,
)
from ..data.labels import check_excluded, zero_rows
from ..data.preprocess import add_intercept
from ..data.preprocess import clip_rows as clip_design
from ..data.validation import check_array
from ..errors import ParameterError
from ..objectives.losses import Loss, get_regression_loss, stated_loss
from ..privacy.release import release
from ..privacy.rules.noise_dominance import warn_if_noise_dominates
from ..templates.linear_erm import LinearERMTemplate
from .base import (
    NO_CONTEXT,
    CertificateHold,
    FitContext,
    FitPlan,
    Prepared,
    PreparedFacts,
    PrivateEstimator,
    fill_docs,
)
from .constraints import SOLVER, ParameterSet, Vouch
from .label_range import LabelRange, LabelRangeMixin
from .linear import (
    LinearPlanMixin,
    _implicit_rows,
    _parameter_set,
    warn_cvxpy_cost,
)

__all__ = ["UNIT_LABELS", "PrivateHuberRegressor", "PrivateLinearRegressor",
           "PrivateQuantileRegressor"]

#: The range the loss sees the labels in: (2y − lo − hi)/(hi − lo) maps [lo, hi] onto it.
UNIT_LABELS = (-1.0, 1.0)


class _LossChoice(Constraint):
    """"huber", "pinball", "squared", a callable ``fn(z, y)`` in CVXPY atoms or a regression
    :class:`~dpconvex.objectives.Loss`."""

    def check(self, name: str, value: Any, owner: str) -> Any:
        if isinstance(value, Loss) or (callable(value) and not isinstance(value, type)) or \
                (isinstance(value, str) and value in ("huber", "pinball", "squared")):
            return value
        raise self.refusal(name, value, owner)

    def __str__(self) -> str:
        return ("one of 'huber', 'pinball', 'squared', a callable fn(z, y) stating the loss in "
                "CVXPY atoms or a dpconvex.objectives.Loss instance")


#: The parameters every private linear regressor shares, written into each class docstring
#: at its ``{regression_parameters}`` line (as the classifiers' ``LINEAR_PARAMETERS_DOC``).
REGRESSION_PARAMETERS_DOC = fill_docs("""\
    epsilon : float, default=1.0
    delta : float, default=0.0
        δ > 0 takes the Gaussian mechanisms (``mechanism="auto"``).
    label_range : (float, float), "private" or PrivateBounds, default=(-1.0, 1.0)
        The public range (lo, hi) of the labels, from documentation, never from the data:
        labels are clipped to it (a per-record map; the count goes to
        :func:`~dpconvex.collect_diagnostics` only) and predictions too.
        "private" or :class:`~dpconvex.PrivateBounds`: released from the labels with a share
        of ε inside the fit (``label_range_``; docs/privacy/bounds.md#privacy-private-label-range).
    {data_norm}
    fit_intercept : bool, default=True
        An intercept as a constant column s = ``intercept_scaling`` inside the norm bound.
    intercept_scaling : float, default=1.0
    lam : float or "auto", default="auto"
        Λ; "auto": the public rule of the linear models (docs/privacy/perturbation.md#privacy-lambda-rule).
    mechanism : str, default="auto"
        "objective", "output", "gaussian_objective", "gaussian_output", "none" (the explicit
        NON-private baseline); "auto": objective perturbation, pure ε when δ = 0 and
        Gaussian when δ > 0 (docs/privacy/front_door.md#privacy-mechanism-auto).
    solver : str or None, default=None
    {random_state}
    max_iter : int or None, default=None
    {accountant}
    constraints : callable or None, default=None
        ``constraints(w)``: CVXPY constraints on the coefficients ``w`` in the labels' units
        (e.g. ``lambda w: [w >= 0]``), as in :class:`~dpconvex.PrivateLogisticRegression`: a
        ball, box, orthant, ℓ1 ball or simplex for every solver, any other DCP set for
        ``solver="clarabel"`` or ``"scs"`` (docs/privacy/user_objectives.md#privacy-constraints).

    Warns
    -----
    PrivacyWarning
        In ``fit``, before the solve, when the expected noise outweighs the largest possible
        data gradient at the start
        (docs/privacy/tuning_gd_ledger.md#privacy-noise-warning-linear). The check reads
        public quantities only, not the strength of the data's signal: compare the model
        with the training labels' mean on held-out rows (``sklearn.dummy.DummyRegressor``)
        even without it.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        In the labels' units.
    intercept_ : float
    n_features_in_ : int
    certificate_ : Certificate
""")


def _regression_docs(cls: type) -> type:
    """Write :data:`REGRESSION_PARAMETERS_DOC` into ``cls.__doc__`` at ``{regression_parameters}``."""
    if cls.__doc__:  # None under python -OO
        cls.__doc__ = cls.__doc__.replace("    {regression_parameters}\n", REGRESSION_PARAMETERS_DOC)
    return cls


@_regression_docs
class PrivateLinearRegressor(LabelRangeMixin, RegressorMixin, LinearPlanMixin,
                             PrivateEstimator):
    """ε- (or (ε, δ)-) differentially private linear regression with a convex loss of the prediction.

    Parameters
    ----------
    loss : {"huber", "pinball", "squared"} or Loss, default="huber"
        "huber": :class:`~dpconvex.objectives.HuberRegression` (threshold ``huber_threshold``
        on the unit label scale); "pinball": the quantile loss
        :class:`~dpconvex.objectives.Pinball` (``quantile``, its kink smoothed at half-width
        0.1 on the unit scale); "squared": (z − y)²/2, whose
        slope is unbounded on the predictions a release can reach, so the verifier refuses it
        with the reason (docs/privacy/user_objectives.md#privacy-prediction-losses). A
        :class:`~dpconvex.objectives.Loss` of kind "regression" (e.g. from
        :meth:`Loss.from_cvxpy`) with ``label_range=(-1, 1)``: it sees the labels on the unit
        scale.
    quantile : float, default=0.5
        τ of the pinball loss.
    huber_threshold : float, default=0.5
        M of the Huber loss on the unit label scale (a quarter of the label range).
    vouch : tuple of str, default=()
        Constants of a user's loss that you vouch for (docs/privacy/user_objectives.md#privacy-vouch).
    {regression_parameters}

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import PrivateLinearRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(2000, 3)) / 2
    >>> y = 5 + 3 * X[:, 0] + rng.normal(size=2000)
    >>> reg = PrivateLinearRegressor(epsilon=2.0, label_range=(0, 10), random_state=0).fit(X, y)
    >>> reg.score(X, y) > 0.3, reg.certificate_.epsilon <= 2.0
    (True, True)
    """

    _accepts_sparse = True
    _parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "loss": _LossChoice(),
        "epsilon": EPSILON,
        "delta": DELTA,
        "label_range": LabelRange(),
        "data_norm": DATA_NORM,
        "fit_intercept": Bool(),
        "intercept_scaling": Float(),
        "lam": LAM,
        "mechanism": NoValidation("built (and named in errors) by _check_consistency"),
        "quantile": Float(high=1.0),
        "huber_threshold": Float(),
        "solver": SOLVER,
        "random_state": RANDOM_STATE,
        "max_iter": MAX_ITER_RULE,
        "accountant": ACCOUNTANT,
        "vouch": Vouch(),
        "constraints": ParameterSet(),
    }

    def __init__(self, *, loss: Any = "huber", epsilon: float = 1.0, delta: float = 0.0,
                 label_range: tuple[float, float] = (-1.0, 1.0), data_norm: float = 1.0,
                 fit_intercept: bool = True, intercept_scaling: float = 1.0,
                 lam: float | str = "auto", mechanism: str = "auto", quantile: float = 0.5,
                 huber_threshold: float = 0.5, solver: str | None = None,
                 random_state: Any = None, max_iter: int | None = None, accountant: Any = None,
                 vouch: tuple[str, ...] = (), constraints: Any = None):
        self.loss = loss
        self.epsilon = epsilon
        self.delta = delta
        self.label_range = label_range
        self.data_norm = data_norm
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.lam = lam
        self.mechanism = mechanism
        self.quantile = quantile
        self.huber_threshold = huber_threshold
        self.solver = solver
        self.random_state = random_state
        self.max_iter = max_iter
        self.accountant = accountant
        self.vouch = vouch
        self.constraints = constraints

    # ------------------------------------------------------------------ parameters
    def _make_loss(self) -> Loss:
        if isinstance(self.loss, Loss):
            if getattr(self.loss, "kind", "margin") != "regression" or tuple(
                    float(v) for v in self.loss.label_range) != UNIT_LABELS:
                raise ParameterError(
                    f"{type(self).__name__}.fit: a Loss instance must be of kind 'regression' with "
                    "label_range=(-1, 1): the estimator maps the labels onto [-1, 1] by the public "
                    "label_range before the loss sees them. Pass the function itself, "
                    "loss=lambda z, y: ..., and the estimator states it on that range.")
            return self.loss
        if callable(self.loss):  # stated in CVXPY atoms, on the unit label scale
            return stated_loss(self.loss, "regression", type(self).__name__, UNIT_LABELS)
        if self.loss == "huber":
            return get_regression_loss("huber", UNIT_LABELS, M=float(self.huber_threshold))
        if self.loss == "pinball":
            return get_regression_loss("pinball", UNIT_LABELS, quantile=float(self.quantile))
        return get_regression_loss(self.loss, UNIT_LABELS)

    def _vouched(self) -> tuple[str, ...]:
        vouch = getattr(self, "vouch", ())  # the fixed-loss regressors: a shipped, derived loss
        return (vouch,) if isinstance(vouch, str) else tuple(vouch)

    # ----------------------------------------------------------------------- plan
    def _plan(self, n: int, n_classes: int, n_features: int) -> FitPlan:
        return self._linear_plan(n, 1, n_features, learner="linear regression",
                                 notes=(self._label_note(),), options=self._row_options())

    def _parameter_set(self, plan: FitPlan, owner: str) -> Any:
        """The coefficients' set, stated in the labels' units (coef = θ·(hi − lo)/2)."""
        lo, hi = self._label_bounds()
        return _parameter_set(self.constraints, plan.n_features, self.fit_intercept, owner,
                              self.solver, scale=0.5 * (hi - lo))

    # -------------------------------------------------------------------- prepare
    def prepare(self, X: Any, y: Any, plan: FitPlan, *,
                context: FitContext = NO_CONTEXT) -> Prepared:
        """Validate, clip the rows and labels, add the intercept column, build the template.

        Rows held by Dask (a Dask array or DataFrame) stay on the workers: clipped and
        given the intercept column lazily per chunk (the same per-record maps), with the
        unit labels sent to the workers once beside them (docs/guide/dask.md). Rows left out
        of the fit (``context.excluded``: the front door's validation part) get a
        zero factor: their loss ℓ(0, uᵢ) is a constant in θ, so they do not move the
        minimizer. The labels are read as given: the front door passes a public placeholder
        for those rows, so nothing of theirs reaches the objective's value either.
        """
        owner = f"{type(self).__name__}.fit"
        X_checked = check_array(X, owner, min_samples=2, accept_sparse=True, accept_dask=True)
        n, d = X_checked.shape
        u = self._unit_labels(y, n, owner)
        q = float(self.data_norm)
        scaling = float(self.intercept_scaling) if self.fit_intercept else None
        excluded = check_excluded(context.excluded, n, owner)
        dropped = np.zeros(n, dtype=bool) if excluded is None else excluded
        if is_dask_collection(X_checked):
            from ..data.dask_rows import DaskRows

            design = DaskRows(X_checked).clip(q)
            if self.fit_intercept:
                design = design.add_intercept(float(self.intercept_scaling))
            if dropped.any():
                design = design.scale_rows((~dropped).astype(float))
        else:
            design = _implicit_rows(X_checked, q, scaling, dropped, owner)
        if design is None:  # norms whose products could overflow: the rows clipped on a copy
            design, n_clipped = clip_design(X_checked, q)
            note_clipped(n_clipped, n, q, owner)
            if self.fit_intercept:
                design = add_intercept(design, float(self.intercept_scaling))
            design = zero_rows(design, dropped)  # records left out of the fit
        template = LinearERMTemplate(self._plan_loss(plan), plan.lam, self._norm_bound(), design, u,
                                     self._parameter_set(plan, owner))
        warn_cvxpy_cost(template, self.solver, type(self).__name__)
        return Prepared(template=template, meta=PreparedFacts(d, None, plan.notes[1]),
                        reusable=not isinstance(self.lam, str))

    def prepare_shape(self, plan: FitPlan) -> Prepared:
        from ..data.operators import DenseRows, ScaledRows

        p = plan.n_features + int(self.fit_intercept)
        rows = ScaledRows(DenseRows(np.broadcast_to(0.0, (plan.n, p))), np.ones(plan.n))
        template = LinearERMTemplate(self._plan_loss(plan), plan.lam, self._norm_bound(), rows,
                                     np.zeros(plan.n),
                                     self._parameter_set(plan, f"{type(self).__name__}.certify"))
        return Prepared(template=template, meta=PreparedFacts(plan.n_features, None, plan.notes[1]))

    # --------------------------------------------------------------------- release
    def _release(self, prep: Prepared, plan: FitPlan, hold: CertificateHold,
                 context: FitContext, warm_start: np.ndarray | None) -> PrivateLinearRegressor:
        noise = noise_source(self, context.noise)
        owner = type(self).__name__
        mechanism, budget = plan.mechanism, plan.budget
        released = release(prep.template, mechanism, budget, self.solver, noise.rng,
                           warm_start=warm_start, max_iter=self.max_iter, seeded=noise.seeded,
                           vouch=self._vouched(),
                           on_calibrated=lambda calibration: warn_if_noise_dominates(
                               "linear", prep.template, mechanism, budget, owner,
                               calibration=calibration, regression=True))
        theta, certificate = released.theta, released.certificate
        certificate.state(*plan.notes)
        hold.commit_certificate(certificate)
        self._set_coefficients(theta, prep.meta.n_features)
        self.certificate_ = certificate
        return self


#: The parameters every fixed-loss regressor shares with :class:`PrivateLinearRegressor`:
#: all but the loss's choice, its parameters and ``vouch`` (a shipped loss is derived,
#: privacy-prediction-losses).
_FIXED_LOSS_CONSTRAINTS: dict[str, Constraint] = {
    name: rule for name, rule in PrivateLinearRegressor._parameter_constraints.items()
    if name not in ("loss", "quantile", "huber_threshold", "vouch")}


@_regression_docs
class PrivateHuberRegressor(PrivateLinearRegressor):
    """ε- (or (ε, δ)-) differentially private linear regression with the Huber loss.

    :class:`PrivateLinearRegressor` with ``loss="huber"`` fixed: it minimizes
    (1/n) Σ ℓ(wᵀx̃ᵢ, uᵢ) + (Λ/2)‖(w, b/s)‖² with ℓ(z, u) = huber_M(z − u)/(2M) — r²/(2M) for
    |r| <= M, |r| − M/2 beyond, r = z − u — on the rows clipped to ``data_norm`` and the
    labels mapped onto u ∈ [−1, 1] by the public ``label_range``. The loss's slope is at
    most 1 and its curvature at most 1/M on all of ℝ and for every label, so objective
    perturbation ([CMS]_ Alg. 2, for a loss of the prediction [KST]_ Section 3) and output
    perturbation ([CMS]_ Alg. 1) apply with the constants derived in
    docs/privacy/user_objectives.md#privacy-prediction-losses.

    Parameters
    ----------
    huber_threshold : float, default=0.5
        M, where the loss turns from squared to linear, on the unit label scale: residuals
        beyond M·(hi − lo)/2 in the labels' units count linearly (the default: a quarter of
        the label range). A smaller M resists outliers more and has curvature 1/M, which
        objective perturbation pays for.
    {regression_parameters}

    See Also
    --------
    PrivateLinearRegressor : any loss of the prediction, a user's included.
    PrivateQuantileRegressor : the pinball loss of a quantile.
    PrivateLinearRegression : the squared loss, by sufficient-statistics perturbation.

    References
    ----------
    .. [CMS] Chaudhuri, Monteleoni, Sarwate. Differentially Private Empirical Risk
       Minimization. JMLR 12 (2011), Alg. 1-2.
    .. [KST] Kifer, Smith, Thakurta. Private Convex Empirical Risk Minimization and
       High-dimensional Regression. COLT 2012, Section 3.

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import PrivateHuberRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(2000, 3)) / 2
    >>> y = 5 + 3 * X[:, 0] + 0.5 * rng.standard_t(3, size=2000)  # heavy-tailed noise
    >>> reg = PrivateHuberRegressor(epsilon=2.0, label_range=(0, 10), random_state=0).fit(X, y)
    >>> reg.score(X, y) > 0.5, reg.certificate_.epsilon <= 2.0
    (True, True)
    """

    _parameter_constraints: ClassVar[dict[str, Constraint]] = {
        **_FIXED_LOSS_CONSTRAINTS, "huber_threshold": Float()}

    def __init__(self, *, epsilon: float = 1.0, delta: float = 0.0,
                 label_range: tuple[float, float] = (-1.0, 1.0), data_norm: float = 1.0,
                 fit_intercept: bool = True, intercept_scaling: float = 1.0,
                 lam: float | str = "auto", mechanism: str = "auto",
                 huber_threshold: float = 0.5, solver: str | None = None,
                 random_state: Any = None, max_iter: int | None = None, accountant: Any = None,
                 constraints: Any = None):
        self.epsilon = epsilon
        self.delta = delta
        self.label_range = label_range
        self.data_norm = data_norm
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.lam = lam
        self.mechanism = mechanism
        self.huber_threshold = huber_threshold
        self.solver = solver
        self.random_state = random_state
        self.max_iter = max_iter
        self.accountant = accountant
        self.constraints = constraints

    def _make_loss(self) -> Loss:
        return get_regression_loss("huber", UNIT_LABELS, M=float(self.huber_threshold))


@_regression_docs
class PrivateQuantileRegressor(PrivateLinearRegressor):
    """ε- (or (ε, δ)-) differentially private linear quantile regression (smoothed pinball loss).

    :class:`PrivateLinearRegressor` with ``loss="pinball"`` fixed: it minimizes
    (1/n) Σ ℓ(wᵀx̃ᵢ, uᵢ) + (Λ/2)‖(w, b/s)‖² with the quantile loss ρ_τ(u − z) of [KB78]_,
    stated in CVXPY (:func:`~dpconvex.objectives.losses.pinball`) and its kink Huberized by
    the loss compiler at half-width h: ℓ = ρ_τ where |z − u| >= h, and at most h/4 above it
    (:class:`~dpconvex.objectives.Pinball`). Its slope is at most max(τ, 1 − τ) and its
    curvature at most 1/(2h) on all of ℝ and for every label
    (docs/privacy/user_objectives.md#privacy-prediction-losses), so objective perturbation
    ([CMS]_ Alg. 2, for a loss of the prediction [KST]_ Section 3) and output perturbation
    ([CMS]_ Alg. 1) apply. The prediction estimates the τ-quantile of the label given x,
    clipped to the public ``label_range``. Objective perturbation had the lower test MAE of
    the median regressor than output perturbation in every table × ε × δ of the regression
    corpus's selection seeds (docs/privacy/user_objectives.md#privacy-prediction-losses).

    Parameters
    ----------
    quantile : float, default=0.5
        τ in (0, 1): the quantile predicted (0.5: the median).
    smoothing : float or "auto", default=0.1
        h, the half-width of the smoothed kink on the unit label scale (h·(hi − lo)/2 in the
        labels' units): residuals within h of the prediction count quadratically, which moves
        the fitted quantile by at most h; a smaller h has curvature 1/(2h), which objective
        perturbation pays for. "auto": h chosen with Λ by the public rule of
        :func:`~dpconvex.privacy.rules.lam.resolve_smoothing`
        (docs/privacy/user_objectives.md#privacy-prediction-losses).
    {regression_parameters}

    See Also
    --------
    PrivateLinearRegressor : any loss of the prediction, a user's included.
    PrivateHuberRegressor : the Huber loss.

    References
    ----------
    .. [KB78] Koenker, Bassett. Regression Quantiles. Econometrica 46 (1978), 33-50.
    .. [CMS] Chaudhuri, Monteleoni, Sarwate. Differentially Private Empirical Risk
       Minimization. JMLR 12 (2011), Alg. 1-2.
    .. [KST] Kifer, Smith, Thakurta. Private Convex Empirical Risk Minimization and
       High-dimensional Regression. COLT 2012, Section 3.

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import PrivateQuantileRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(4000, 3)) / 2
    >>> y = 5 + 3 * X[:, 0] + rng.normal(size=4000)
    >>> reg = PrivateQuantileRegressor(quantile=0.9, epsilon=2.0, label_range=(0, 10),
    ...                                random_state=0).fit(X, y)
    >>> 0.8 < float(np.mean(y <= reg.predict(X))) < 0.97, reg.certificate_.epsilon <= 2.0
    (True, True)
    """

    _parameter_constraints: ClassVar[dict[str, Constraint]] = {
        **_FIXED_LOSS_CONSTRAINTS, "quantile": Float(high=1.0), "smoothing": Auto(Float())}

    def __init__(self, *, quantile: float = 0.5, epsilon: float = 1.0, delta: float = 0.0,
                 label_range: tuple[float, float] = (-1.0, 1.0), data_norm: float = 1.0,
                 fit_intercept: bool = True, intercept_scaling: float = 1.0,
                 lam: float | str = "auto", mechanism: str = "auto",
                 smoothing: float | str = 0.1,
                 solver: str | None = None, random_state: Any = None,
                 max_iter: int | None = None, accountant: Any = None, constraints: Any = None):
        self.quantile = quantile
        self.epsilon = epsilon
        self.delta = delta
        self.label_range = label_range
        self.data_norm = data_norm
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.lam = lam
        self.mechanism = mechanism
        self.smoothing = smoothing
        self.solver = solver
        self.random_state = random_state
        self.max_iter = max_iter
        self.accountant = accountant
        self.constraints = constraints

    def _make_loss(self) -> Loss:
        return get_regression_loss("pinball", UNIT_LABELS, quantile=float(self.quantile),
                                   smoothing=self.smoothing)
