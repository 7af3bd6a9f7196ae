"""Noisy projected gradient descent with per-example clipping and a maintained accountant.

The calibration (replace-one sensitivity 2C/n per step, T steps exactly μ-GDP, μ = sqrt(T)/z) and the public
rules of every setting are derived in docs/privacy/tuning_gd_ledger.md#privacy-noisy-gd.

References
----------
.. [ACG+16] M. Abadi, A. Chu, I. Goodfellow, H. B. McMahan, I. Mironov,
   K. Talwar, L. Zhang. Deep Learning with Differential Privacy. CCS 2016.
.. [BST14] R. Bassily, A. Smith, A. Thakurta. Private Empirical Risk
   Minimization: Efficient Algorithms and Tight Error Bounds. FOCS 2014.
.. [Mir17] I. Mironov. Rényi Differential Privacy. CSF 2017.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, ClassVar

import numpy as np

from .._validation import (
    ACCOUNTANT,
    CLASSES,
    DATA_NORM,
    EPSILON,
    RANDOM_STATE,
    Bool,
    Constraint,
    Float,
    Int,
    Optional,
    Options,
    check_int,
    is_dask_collection,
)
from ..data.operators import DenseRows, ScaledRows
from ..data.validation import LABEL_POLICY
from ..errors import PrivacyError
from ..objectives.losses import LOSSES, Loss, get_loss, shipped_as_built
from ..privacy.accounting.gaussian import ACCOUNTING
from ..privacy.budget import Budget
from ..privacy.certificate import Certificate, NoisyGDRule
from ..privacy.checks import refuse_constant_loss, solved_loss
from ..privacy.mechanisms.noisy_gd import (
    AVERAGING,
    MAX_EXPLICIT_STEPS,
    NoisyGD,
    clip_rule,
    default_delta,
    max_steps,
    steps_rule,
)
from ..privacy.release import _release_checked, release
from ..privacy.rules.noise_level import warn_if_noise_dominates
from ..templates.statistics import EmpiricalRiskTemplate
from .base import (
    NO_CONTEXT,
    CertificateHold,
    FitContext,
    FitPlan,
    LossParameter,
    Prepared,
    PrivateEstimator,
    _bind_plan,
)
from .linear import LinearDecisionMixin, OneVsRestMixin, design_rows

__all__ = ["NoisyGradientDescent"]


@dataclasses.dataclass(frozen=True)
class NoisyGDFacts:
    """A noisy gradient descent problem's facts: the data backend's certificate lines."""

    backend_notes: tuple[str, ...] = ()


class NoisyGradientDescent(OneVsRestMixin, LinearDecisionMixin, PrivateEstimator):
    """(ε, δ)-DP linear classifier by noisy projected gradient descent ([ACG+16]_, [BST14]_).

    T steps θ_t = Π_R(θ_{t-1} - η (ĝ_t + N(0, s² I))) from θ_0 = 0 on the empirical risk
    (1/n) Σ ℓ(y_i θᵀx̃_i), x̃ = [x; 1] with an intercept, ĝ_t the mean of the per-example
    gradients clipped to norm C, s = z · 2C/n with z calibrated by the exact μ-GDP curve
    (docs/privacy/tuning_gd_ledger.md#privacy-noisy-gd, where every public rule below is
    derived); the model averages the last half of the iterates. Only ``epsilon`` is
    required: every setting left at None is set by a public rule
    (:mod:`dpconvex.privacy.mechanisms.noisy_gd`), listed in ``certificate_.assumptions``
    (δ, the clip and the steps also with their fields:
    ``certificate_.lines``, :class:`~dpconvex.privacy.certificate.NoisyGDRule`).

    Parameters
    ----------
    loss : {"logistic", "huber", "smooth_hinge"} or Loss, default="logistic"
        Margin loss (convex, |ℓ'| <= 1); "huber" and "smooth_hinge" use h = 0.5.
    epsilon : float, default=1.0
        ε > 0 of the whole run.
    delta : float or None, default=None
        δ in (0, 1) of the whole run. None: δ = 1/n² per binary run (n public; C/n² for
        one-vs-rest over C classes).
    steps : int or None, default=None
        Number T of gradient steps (public). None:
        :func:`~dpconvex.privacy.mechanisms.noisy_gd.steps_rule`. An explicit T is at most
        :func:`~dpconvex.privacy.mechanisms.noisy_gd.max_steps`.
    radius : float or None, default=None
        Radius R of the L2 ball the parameters (intercept included) are
        projected onto (public). None: η (CT + 3 s sqrt(Tp)), so the projection rarely acts.
    learning_rate : float or None, default=None
        Step η. None: min(2/L, R/(s sqrt(Tp))), L = c q̃² the smoothness bound of the
        clipped risk and p the number of parameters
        (:func:`~dpconvex.privacy.mechanisms.noisy_gd.default_learning_rate`).
    clip : float or None, default=None
        Per-example gradient norm bound C (public). None: half the Lipschitz bound, |ℓ'|_max q̃ / 2.
    {data_norm}
    fit_intercept : bool, default=True
        Append a constant feature 1 (inside the ball like every coordinate).
    accounting : {"gdp", "pld", "rdp"}, default="gdp"
        What calibrates z: the exact μ-GDP curve of the T steps (μ = sqrt(T)/z, Dong, Roth & Su
        2022), or a ``dp_accounting`` accountant: privacy-loss distributions (within about 1e-6 of
        the exact z, slower) or Rényi DP ([Mir17]_, as in [ACG+16]_; a little more noise).
    average : {"last_half", "all"}, default="last_half"
        Average the iterates t > T/2 or all T of them (post-processing).
    {random_state}
    {accountant}
    classes : sequence of labels or None, default=None
        The public label set. Two labels: one run, ``classes_[1]`` (the larger) is +1. C > 2
        labels: one-vs-rest, C binary runs composed sequentially, each with ε/C and δ/C of an
        explicit ``delta`` (``delta=None``: 1/n² each; docs/privacy/tuning_gd_ledger.md#privacy-one-vs-rest).
        {classes_none}
    {unknown_labels}

    Warns
    -----
    PrivacyWarning
        In ``fit``, before the run, when the noise on the released average outweighs the
        data gradient at the start
        (docs/privacy/tuning_gd_ledger.md#privacy-noise-warning-gd-centroids).
        {public_check}

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        One row per binary run (one-vs-rest: row c scores class c).
    intercept_ : ndarray of shape (1,) or (n_classes,)
    classes_ : ndarray of shape (n_classes,)
        The labels (any distinct values); with two, ``classes_[1]`` is +1.
    delta_ : float
        δ used. Two classes only, as the five below (one-vs-rest: ``certificate_.parts``).
    steps_, radius_, clip_, learning_rate_ : int, float, float, float
        T, R, C and η used.
    n_iter_ : int
        T (``steps_``), scikit-learn's name: every one of the T steps runs, and T is fixed by
        the parameters and the public shape (n, p) before the data are read.
    noise_multiplier_, noise_std_ : float
        z, and s = z · 2C / n per coordinate of the noisy mean gradient.
    certificate_ : Certificate

    References
    ----------
    [ACG+16]_ and [BST14]_ (noisy gradient descent with per-example clipping); [DRS22]_
    (the μ-GDP curve of ``accounting="gdp"``); [Mir17]_ (Rényi DP, ``accounting="rdp"``).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import NoisyGradientDescent
    >>> X = np.random.default_rng(0).normal(size=(40, 3))
    >>> X /= np.linalg.norm(X, axis=1, keepdims=True); y = np.where(X[:, 0] > 0, 1, -1)
    >>> clf = NoisyGradientDescent(epsilon=1.0, delta=1e-5, steps=50, accounting="rdp",
    ...                            classes=[-1, 1], random_state=0).fit(X, y)
    >>> clf.steps_, clf.certificate_.delta
    (50, 1e-05)
    >>> bool(clf.noise_multiplier_ > 0), clf.coef_.shape
    (True, (1, 3))
    """

    #: The template holds the loss, the row bound and the rows; the release reads the budget,
    #: the mechanism (its clip and T steps, in ``options``) and the notes off its plan.
    _fields_read_at_release: ClassVar[tuple[str, ...]] = ("budget", "parts", "mechanism",
                                                          "notes", "options")

    takes_row_mask = True

    def __init__(
        self,
        *,
        loss: str | Loss = "logistic",
        epsilon: float = 1.0,
        delta: float | None = None,
        steps: int | None = None,
        radius: float | None = None,
        learning_rate: float | None = None,
        clip: float | None = None,
        data_norm: float = 1.0,
        fit_intercept: bool = True,
        accounting: str = "gdp",
        average: str = "last_half",
        random_state: int | None = None,
        accountant: Any = None,
        classes: Any = None,
        unknown_labels: str = "raise",
    ):
        self._store_params(locals())

    @property
    def n_iter_(self) -> int:
        """T, the number of gradient steps of the fit (``steps_``; two classes only, as it)."""
        return int(self.steps_)

    def _make_loss(self) -> Loss:
        """The loss the run reads: a shipped loss as built, else the one dpconvex compiles
        from the given loss's CVXPY form (:func:`~dpconvex.privacy.checks.solved_loss`).

        The replace-one sensitivity 2C/n holds when record i's clipped gradient reads its own
        margin only. The compiled form evaluates its atoms elementwise (``Loss.from_cvxpy``
        refuses a reduction over the margins); a method of a user's object could read every
        margin at once, or keep them. So no method of the loss given is called on the rows, and
        a loss without a CVXPY form that compiles is refused.
        """
        given = self.loss if isinstance(self.loss, Loss) else get_loss(self.loss)
        loss = solved_loss(given)
        if loss is given and not shipped_as_built(given):
            raise PrivacyError(
                f"The 'loss' parameter of {type(self).__name__} must be a loss dpconvex ships "
                "or one with a CVXPY form that Loss.from_cvxpy compiles (its atoms: "
                "dpconvex.objectives.atoms.ATOMS). Got loss "
                f"'{getattr(given, 'name', type(given).__name__)}' of class "
                f"{type(given).__qualname__}, whose CVXPY form is missing or does not compile: "
                "noisy gradient descent runs the "
                "NumPy form dpconvex compiles from a user's CVXPY form, never the loss's own "
                "methods on the rows (a method may read all the margins at once, and the "
                "sensitivity 2C/n holds for per-record gradients only). State the loss with "
                "Loss.from_cvxpy(fn, deriv_bound=...), or pass a named loss."
            )
        refuse_constant_loss(loss, type(self).__name__)
        if not (math.isfinite(loss.deriv_bound) and loss.deriv_bound > 0):
            raise PrivacyError(
                f"The 'loss' parameter of {type(self).__name__} must be a loss with a finite "
                f"derivative bound (the gradient clip rule needs it). Got loss '{loss.name}', "
                "which declares none: declare one (Loss.from_cvxpy(fn, deriv_bound=...)); here it "
                "sets "
                "the clip and step rules only, and every per-record gradient is clipped, so the "
                "guarantee does not rest on it. Or pass a named loss."
            )
        return loss

    #: one-vs-rest: one warning of the ``gd`` family (privacy-noise-warning-gd-centroids)
    _ovr_noise_family: ClassVar[str] = "gd"

    _parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "loss": LossParameter(tuple(sorted(LOSSES))),
        "epsilon": EPSILON,
        "delta": Optional(Float(high=1.0)),  # None: 1/n² (the public rule)
        "steps": Optional(
            Int(
                high=MAX_EXPLICIT_STEPS,
                why="the cap of any shape; a shape's (n, p) own cap is checked in plan",
            )
        ),
        "radius": Optional(Float()),
        "clip": Optional(Float()),
        "data_norm": DATA_NORM,
        "learning_rate": Optional(Float()),
        "fit_intercept": Bool(),
        "accounting": Options(ACCOUNTING),
        "average": Options(AVERAGING),
        "random_state": RANDOM_STATE,
        "accountant": ACCOUNTANT,
        "classes": CLASSES,
        "unknown_labels": LABEL_POLICY,
    }

    def _validate_params(self, *, planned: bool = False) -> None:  # type: ignore[override]
        """The table, then: the loss must be one dpconvex ships or have a CVXPY form dpconvex
        compiles, and declare a finite derivative bound (the clip rule needs it); refused
        here, before any data are read. ``planned``: the plan made at once (:meth:`_plan`)
        takes the loss compiled here (:meth:`_validated_loss`), and carries it to the
        template the run reads."""
        super()._validate_params(planned=planned)
        loss = self._make_loss()
        if planned:
            self._loss_for_plan = (self.loss, loss)

    def _validated_loss(self) -> Loss:
        """The loss compiled by the validation of the plan being made, for the same ``loss``
        given (taken once: nothing of it is left on the estimator); compiled here otherwise."""
        given, loss = self.__dict__.pop("_loss_for_plan", (None, None))
        return loss if loss is not None and given is self.loss else self._make_loss()

    def _plan(self, n: int, n_classes: int, n_features: int) -> FitPlan:
        """The mechanism, (ε, δ) and the settings that public quantities fix.

        δ = 1/n² when ``delta`` is None; ``steps`` is bounded by the shape (n, p).
        The clip C and the steps T left at None are resolved here by their public
        rules (:func:`~dpconvex.privacy.mechanisms.noisy_gd.clip_rule`,
        :func:`~dpconvex.privacy.mechanisms.noisy_gd.steps_rule`; the plan's notes
        are the certificate's lines); the radius and learning rate rules need the
        noise multiplier z, which the accountant calibrates at fit time.
        """
        # compiled once, by the validation: the plan carries it to the template the run reads
        loss = self._validated_loss()
        if n_classes > 2:  # the binary models' plan carries theirs
            return self._plan_ovr(n, n_classes, n_features)
        T = None
        # a bound on running time, from the public shape (privacy-noisy-gd)
        if self.steps is not None:
            p = n_features + int(bool(self.fit_intercept))
            T = check_int(
                "steps",
                self.steps,
                type(self).__name__,
                high=max_steps(n, p),
                why=(
                    f"a run makes T passes over the {n:,} x {p} clipped rows; the cap bounds T "
                    "and "
                    "T*n*p, hence the running time "
                    "(docs/privacy/tuning_gd_ledger.md#privacy-noisy-gd)"
                ),
            )

        def optional_float(value: Any) -> float | None:
            return None if value is None else float(value)

        mechanism = NoisyGD(steps=T, radius=optional_float(self.radius),
                            clip=optional_float(self.clip),
                            learning_rate=optional_float(self.learning_rate),
                            accounting=self.accounting, average=self.average,
                            delta_rule=self.delta is None)
        delta = default_delta(n) if self.delta is None else float(self.delta)
        budget = Budget(float(self.epsilon), delta)
        q = self._augmented_norm()
        notes: list[NoisyGDRule] = []
        clip = optional_float(self.clip)
        if clip is None:
            clip, rule = clip_rule(loss, q)
            notes.append(rule)
        if T is None:
            T, rule = steps_rule(loss, n, q, budget, clip, optional_float(self.learning_rate))
            notes.append(rule)
        at_fit = "set at fit by its public rule (needs z, calibrated by the accountant)"
        return FitPlan(
            estimator=type(self).__name__, n=n, n_classes=n_classes, n_features=n_features,
            template="empirical risk", learner="noisy gradient descent", mechanism=mechanism,
            budget=budget, backend="noisy projected gradient descent (no solver)",
            lam_rule="no regularizer (projection onto the ball of radius R)", notes=notes,
            options={"loss": loss.name, "norm bound q~": q,
                     "fit_intercept": bool(self.fit_intercept), "steps": T,
                     "radius": optional_float(self.radius) or at_fit, "clip": clip,
                     "learning_rate": optional_float(self.learning_rate) or at_fit,
                     "accounting": self.accounting, "average": self.average},
            loss=loss)

    def _planned_loss(self, plan: FitPlan) -> Loss:
        """The loss ``plan`` carries, compiled once by :meth:`_plan` (a one-vs-rest plan: its
        binary plans'); made here for a plan that carries none (one made by hand)."""
        carried = plan.sub_plans[0].loss if plan.sub_plans else plan.loss
        return carried if carried is not None else self._make_loss()

    def _augmented_norm(self) -> float:
        """q̃ = √(q² + 1) with the intercept column (constant 1), else q: the template's bound."""
        q = float(self.data_norm)
        return math.sqrt(q * q + 1.0) if self.fit_intercept else q

    def public_template(self, plan: FitPlan) -> EmpiricalRiskTemplate:
        """The template of ``plan``'s public problem alone (the loss, the row bound q̃ with
        the intercept column, n and p), no rows or labels read: for dry runs and the noise
        warnings (:meth:`PrivateEstimator.public_template`).

        Parameters
        ----------
        plan : FitPlan
            The plan of this estimator (:meth:`plan`).

        Returns
        -------
        EmpiricalRiskTemplate
            The template a fit of ``plan.n`` rows builds, without its rows.

        Examples
        --------
        >>> from dpconvex import NoisyGradientDescent
        >>> est = NoisyGradientDescent(epsilon=1.0, delta=1e-6, data_norm=1.0)
        >>> template = est.public_template(est.plan(1000, n_classes=2, n_features=3))
        >>> template.n, template.p, template.X is None
        (1000, 4, True)
        """
        p = plan.n_features + int(bool(self.fit_intercept))
        return EmpiricalRiskTemplate.of_problem(self._planned_loss(plan),
                                                self._augmented_norm(), plan.n, p)

    def prepare(
        self, X: Any, y: Any, plan: FitPlan, *, context: FitContext = NO_CONTEXT
    ) -> Prepared:
        """Validate the rows and build the template over them, without copying dense float64 rows.

        In memory the template's rows are a :class:`~dpconvex.data.operators.ScaledRows` over X: the clip
        factor min(1, q/||x_i||), the intercept column, the zeroed records outside the label set and the label
        signs are per-row vectors applied inside the products (extra memory O(n + p)). Rows whose norms could
        overflow a product are clipped on a copy; Dask rows stay on the workers.

        Parameters
        ----------
        X, y : array-like
            The rows and labels of the fit.
        plan : FitPlan
            The plan of this estimator on their public shape (:meth:`plan_for`).
        context : FitContext, default=NO_CONTEXT
            The context the preparing fit issued.

        Returns
        -------
        Prepared
            The per-example-gradient template over the rows (the label signs applied) and the
            label set.

        Examples
        --------
        >>> from dpconvex.estimators.noisy_gd import NoisyGradientDescent
        >>> est = NoisyGradientDescent(classes=[-1, 1], delta=1e-4)
        >>> prep = est.prepare(X, y, est.plan_for(X, y))
        >>> prep.template.n, prep.template.p  # p: 3 features and the intercept
        (40, 4)
        """
        owner = type(self).__name__
        X_checked, labels = self._checked_data(X, y, plan, context, binary=True)
        signs = labels.signs
        meta = NoisyGDFacts()
        # the linear models' rows (clip factor, intercept column 1, zeroed records outside the label set:
        # no gradient) with the label signs folded in as per-row factors: read in place, per chunk on
        # Dask, or clipped on a copy where their products could overflow
        rows = design_rows(self, X_checked, labels.dropped, owner)
        if is_dask_collection(X_checked):
            rows = rows.scale_rows(signs)
            meta = dataclasses.replace(meta, backend_notes=(rows.certificate_note,))
        else:
            if not isinstance(rows, ScaledRows):
                rows = ScaledRows(DenseRows(rows), np.ones(rows.shape[0]))
            rows = rows.compact().scale_rows(signs)
        template = EmpiricalRiskTemplate.of_problem(self._planned_loss(plan),
                                                    self._augmented_norm(), rows.n, rows.p)
        # NoisyGD.run reads the operator (Dask rows per chunk, on the workers)
        template.X, template.y = rows, np.ones(rows.n)
        return _bind_plan(Prepared(template=template, labels=labels, meta=meta), plan)

    def _certify(self, prep: Prepared, plan: FitPlan) -> Certificate:
        """The dry run's certificate: the calibration's rules and values, nothing appended."""
        return release(prep.template, plan.mechanism, plan.budget, dry_run=True).certificate

    def _release(self, prep: Prepared, plan: FitPlan, hold: CertificateHold,
                 context: FitContext, warm_start: np.ndarray | None) -> NoisyGradientDescent:
        """Noise, the run and the fitted attributes (``warm_start`` unused: θ_0 = 0)."""
        template, mechanism, budget = prep.template, plan.mechanism, plan.budget
        # public quantities only, before the solve
        # (docs/privacy/tuning_gd_ledger.md#privacy-noise-warning-linear, privacy-noise-warning-gd-centroids)
        warn_if_noise_dominates("gd", template, mechanism, budget, type(self).__name__)
        noise = context.noise  # this fit's generator (random_state, or a meta-estimator's)
        released = _release_checked(template, mechanism, budget, None, noise.rng,
                                    seeded=noise.seeded)
        theta_bar, certificate = released.theta, released.certificate
        calibration = released.calibration
        certificate.state(prep.labels.assumption, *prep.meta.backend_notes)  # backend: RowMap
        hold.commit_certificate(certificate)

        extra = calibration.extra
        d = plan.n_features
        self.classes_ = prep.labels.classes
        self.n_features_in_ = d
        self.coef_ = theta_bar[:d].reshape(1, d)
        self.intercept_ = np.array([theta_bar[d] if self.fit_intercept else 0.0])
        self.delta_ = budget.delta
        self.steps_ = extra["steps"]
        self.radius_ = extra["radius"]
        self.clip_ = extra["clip"]
        self.noise_multiplier_ = extra["noise multiplier"]
        self.noise_std_ = extra["noise std"]
        self.learning_rate_ = extra["learning rate"]
        self.certificate_ = certificate
        return self
