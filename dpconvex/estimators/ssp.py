"""A private ridge regression by sufficient-statistics perturbation ([Wan18]_).

:class:`PrivateLinearRegression` fits the squared loss, which objective and output
perturbation cannot take (its slope is unbounded: docs/privacy/user_objectives.md#privacy-prediction-losses):
it releases noisy versions of A = Σ x̃x̃ᵀ and b = Σ u x̃, read in one pass over the rows
(dense, sparse or Dask) after the public per-record maps of :class:`~dpconvex.PrivateLinearRegressor`.

References
----------
.. [Wan18] Y.-X. Wang. Revisiting differentially private linear regression: optimal and
   adaptive prediction & estimation in unbounded domain. UAI 2018 (SSP; AdaSSP: Alg. 2).
.. [BW18] B. Balle, Y.-X. Wang. Improving the Gaussian Mechanism for Differential
   Privacy: Analytical Calibration and Optimal Denoising. ICML 2018, Theorem 8.
"""

from __future__ import annotations

from typing import Any, ClassVar

from .._validation import (
    ACCOUNTANT,
    DATA_NORM,
    DELTA,
    EPSILON,
    LAM,
    RANDOM_STATE,
    Bool,
    Constraint,
    Float,
    NoValidation,
    is_dask_collection,
)
from ..data.sufficient import Moments, sufficient_statistics
from ..errors import ParameterError, note_clipped
from ..privacy.certificate import LabelSource, RowMap
from ..privacy.mechanisms import MechanismMenu
from ..templates.statistics import SufficientStatisticsTemplate
from .base import (
    NO_CONTEXT,
    FitContext,
    FitPlan,
    Prepared,
    PrivateEstimator,
    _bind_plan,
)
from .linear import LinearPlanMixin
from .regression import LabelRange, LabelRangeMixin, PrivateBounds

__all__ = ["PrivateLinearRegression"]

#: The mechanisms of sufficient-statistics perturbation (privacy-ssp-calibration); "none" is its own
#: non-private closed form.
SSP_MENU = MechanismMenu({"ssp": "ssp", "gaussian_ssp": "gaussian_ssp", "none": "none_ssp"},
                         auto=("ssp", "gaussian_ssp"))

#: Mechanisms of the margin and regression losses on LinearERMTemplate, refused here by name.
PERTURBATION_MECHANISMS = ("objective", "output", "gaussian_objective", "gaussian_output")

#: The certificate's line on the rows (public maps).
ROWS_NOTE = ("rows clipped to the public data_norm q, the intercept column s appended inside "
             "the bound q~ = sqrt(q^2 + s^2) (per-record public maps, "
             "docs/privacy/row_scaling.md#privacy-intercept-scaling)")


class PrivateLinearRegression(LabelRangeMixin, LinearPlanMixin, PrivateEstimator):
    """ε- (or (ε, δ)-) differentially private ridge regression by sufficient-statistics perturbation.

    Sufficient-statistics perturbation ([Wan18]_): release noisy A = Σ x̃x̃ᵀ and b = Σ u x̃, then
    θ = (Π₊(Ã) + λI)⁻¹ b̃, the ridge λ chosen from the released statistics. The noise is Gaussian
    (the analytic calibration of [BW18]_) or, with δ = 0, Laplace and norm-Gamma (pure ε).
    Every constant is derived in docs/privacy/sufficient_statistics.md#privacy-sufficient-statistics.

    Parameters
    ----------
    epsilon : float, default=1.0
    delta : float, default=0.0
        δ > 0 takes the Gaussian form under ``mechanism="auto"``.
    {label_range}
    {data_norm}
    fit_intercept : bool, default=True
        An intercept as a constant column s = ``intercept_scaling`` inside the norm bound
        (q̃ = √(q² + s²)); the ridge shrinks it towards the labels' released mean (their sum S
        is released as well).
    intercept_scaling : float, default=1.0
    lam : float or "auto", default="auto"
        "auto": the ridge of least estimated risk (plus half the spread of its noise) among
        public candidates scaled to the noise on XᵀX and an infinite ridge (the private mean),
        estimated from the released statistics alone (post-processing, no budget). A float Λ: the objective
        (1/(2n)) Σ (θᵀx̃ − u)² + (Λ/2)‖θ‖², i.e. the ridge nΛ on the sums.
    mechanism : {"auto", "ssp", "gaussian_ssp", "none"}, default="auto"
        "auto": "ssp" (pure ε-DP) when δ = 0, "gaussian_ssp" when δ > 0
        (docs/privacy/front_door.md#privacy-mechanism-auto). "none" is the explicit
        NON-private baseline.
    {random_state}
    {accountant}

    Warns
    -----
    PrivacyWarning
        In ``fit``, before the noise is drawn, when the noise in XᵀX that the ridge must
        cover dominates (docs/privacy/sufficient_statistics.md#privacy-noise-warning-ssp).
        {public_check_regression}

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        In the labels' units.
    intercept_ : float
    n_features_in_ : int
    certificate_ : Certificate
        Public facts only (docs/privacy/sufficient_statistics.md#privacy-ssp-release).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import PrivateLinearRegression
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(2000, 3)) / 2
    >>> y = 5 + 3 * X[:, 0] + rng.normal(size=2000)
    >>> reg = PrivateLinearRegression(epsilon=1.0, label_range=(-5, 15), random_state=0).fit(X, y)
    >>> reg.score(X, y) > 0.5, reg.certificate_.epsilon <= 1.0
    (True, True)
    """

    _accepts_sparse = True
    _noise_family: ClassVar[str] = "ssp"  # the sufficient statistics' noise check
    _parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "epsilon": EPSILON,
        "delta": DELTA,  # against the mechanism: in the plan (_mechanism_and_budget)
        "label_range": LabelRange(), "data_norm": DATA_NORM,
        "fit_intercept": Bool(), "intercept_scaling": Float(),
        "lam": LAM,
        "mechanism": NoValidation("built (and named in errors) by _validate_params"),
        "random_state": RANDOM_STATE, "accountant": ACCOUNTANT,
    }

    mechanism_menu = SSP_MENU

    def __init__(
        self,
        *,
        epsilon: float = 1.0,
        delta: float = 0.0,
        label_range: tuple[float, float] | str | PrivateBounds | None = None,
        data_norm: float = 1.0,
        fit_intercept: bool = True,
        intercept_scaling: float = 1.0,
        lam: float | str = "auto",
        mechanism: str = "auto",
        random_state: int | None = None,
        accountant: Any = None,
    ):
        self._store_params(locals())

    # ----------------------------------------------------------------- parameters
    def _validate_params(self, *, planned: bool = False) -> None:  # type: ignore[override]
        """Refuse the perturbation mechanisms by name (the squared loss has no bounded slope),
        then the table and the menu."""
        if isinstance(self.mechanism, str) and self.mechanism in PERTURBATION_MECHANISMS:
            raise ParameterError(
                f"The 'mechanism' parameter of {type(self).__name__} must be 'auto', 'ssp', "
                "'gaussian_ssp' or 'none': objective and output perturbation need a bound on the "
                "loss's "
                "slope, which the squared loss has on no set a release can reach "
                "(docs/privacy/user_objectives.md#privacy-prediction-losses); "
                "sufficient-statistics "
                "perturbation ('ssp') needs none, and PrivateLinearRegressor(loss='huber') "
                "perturbs a "
                f"loss whose slope is bounded. Got {self.mechanism!r} instead."
            )
        super()._validate_params(planned=planned)

    def _ridge(self, n: int) -> float | None:
        """nΛ for a given ``lam`` (the objective's Λ on the sums), None for the rule of ``lam="auto"``."""
        return None if isinstance(self.lam, str) else n * float(self.lam)

    # ----------------------------------------------------------------------- plan
    def _plan(self, n: int, n_classes: int, n_features: int) -> FitPlan:
        mechanism, budget, mechanism_notes = self._mechanism_and_budget()
        if isinstance(self.lam, str):
            rule = ("lam='auto': no Lambda before the fit; the ridge of least estimated risk, "
                    "with a margin for its noise, is chosen from the released statistics "
                    "(docs/privacy/sufficient_statistics.md#privacy-ssp-release)")
        else:
            rule = "given: the ridge n * lam on the sums"
        return FitPlan(
            estimator=type(self).__name__, n=n, n_classes=1, n_features=n_features,
            template="sufficient statistics", learner="linear regression (squared loss)",
            mechanism=mechanism, budget=budget,
            backend="closed form (no solver)",
            lam=None if isinstance(self.lam, str) else float(self.lam), lam_rule=rule,
            notes=(LabelSource("label_range", label_range=self._label_bounds()), ROWS_NOTE,
                   *mechanism_notes),
            options={"norm bound q~": self._norm_bound(), "label_range": self._label_bounds(),
                     "fit_intercept": bool(self.fit_intercept),
                     "intercept_scaling": float(self.intercept_scaling)})

    # -------------------------------------------------------------------- prepare
    def prepare(self, X: Any, y: Any, plan: FitPlan, *,
                context: FitContext = NO_CONTEXT) -> Prepared:
        """Validate the rows and labels; the template computes A and b in one pass when asked."""
        owner = f"{type(self).__name__}.fit"
        X_checked, u = self._checked_data(X, y, plan, context)  # (Dask labels computed once)
        n, d = plan.n, plan.n_features
        q = float(self.data_norm)
        intercept = float(self.intercept_scaling) if self.fit_intercept else None

        def statistics() -> Moments:
            moments = sufficient_statistics(X_checked, u, q, intercept)
            note_clipped(moments.n_clipped, n, q, owner)  # NOT PRIVATE: diagnostics only
            return moments

        template = SufficientStatisticsTemplate(
            statistics, n, d + int(self.fit_intercept), self._norm_bound(),
            ridge=self._ridge(n), free=d if self.fit_intercept else None,
            free_value=float(self.intercept_scaling),
            # the certificate's row map: A and b summed per row chunk (Dask rows only)
            notes=(RowMap(dask=True),) if is_dask_collection(X_checked)
            else ())
        return _bind_plan(Prepared(template=template), plan)

    def public_template(self, plan: FitPlan) -> SufficientStatisticsTemplate:
        return SufficientStatisticsTemplate.of_problem(
            plan.n,
            plan.n_features + int(self.fit_intercept),
            self._norm_bound(),
            ridge=self._ridge(plan.n),
            free=plan.n_features if self.fit_intercept else None,
            free_value=float(self.intercept_scaling),
        )
