"""ε-differentially private large-margin Gaussian (mixture) classifier (Pathak & Raj, PSDM 2010;
IEEE TDSC 2012), with the calibration corrected as in
``docs/privacy/large_margin.md#privacy-large-margin``."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from ..._validation import (
    ACCOUNTANT,
    CLASSES,
    DATA_NORM,
    DELTA,
    EPSILON,
    MAX_ITER_RULE,
    OPTIMALITY_TOL,
    RANDOM_STATE,
    Auto,
    Constraint,
    Float,
    Int,
    NoValidation,
    Optional,
    Options,
    check_array_entries,
    check_fitted,
    checks_feature_names,
    is_dask_collection,
    noise_source,
)
from ...data.preprocess import _augment_scaled
from ...data.validation import LABEL_POLICY, LabelSet, check_array, zero_rows
from ...errors import note_clipped, say
from ...objectives.losses import Frobenius, Loss
from ...privacy.certificate import Certificate
from ...privacy.mechanisms import Mechanism, MechanismMenu, build_mechanism
from ...privacy.release import _release_checked, release
from ...privacy.rules.large_margin import (
    PAIRWISE,
    ROW_NORMS,
    is_centroid,
    resolved_components,
    resolved_mechanism,
    resolved_structure,
)
from ...privacy.rules.noise_level import warn_if_noise_dominates
from ...templates.base import Template
from ...templates.large_margin import MatrixTerm
from ..base import (
    NO_CONTEXT,
    SOLVER,
    CertificateHold,
    ClassifierScoreMixin,
    FitContext,
    FitPlan,
    LossParameter,
    Prepared,
    PrivateEstimator,
    Vouch,
    _bind_plan,
    check_planned_params,
    keep_argmax,
)
from ..centroids import CENTROID_MENU
from .centroid import (
    augmented_rows,
    centroid_mechanism,
    certify_centroid,
    clip_and_map,
    fit_centroid,
    prepared_rows,
)
from .components import ASSIGNMENTS, assign_components
from .learners import (
    CENTROID_LEARNER,
    KMEANS,
    LARGE_MARGIN_MENU,
    MAX_COMPONENTS,
    MAX_GAMMA,
    MAX_KMEANS_ITER,
    MAX_VERBOSE,
    SOFTMAX,
    SOFTMAX_LEARNER,
    Centers,
    LargeMarginFacts,
    MatrixTerms,
    build_template,
    certify_prepared,
    check_consistency,
    compose_planned,
    compose_with_assignment,
    fit_states,
    lam_is_auto,
    noise_family,
    objective_budget,
    objective_part,
    plan_fit,
    planned_for,
    public_template,
    released_matrices,
)

__all__ = ["PrivateLargeMarginGaussian"]


class PrivateLargeMarginGaussian(ClassifierScoreMixin, PrivateEstimator):
    """DP large-margin Gaussian (mixture) classifier by objective perturbation.

    Each class c (and component m) gets a PSD matrix Φ_{c,m} of size (d + 1) × (d + 1); a
    row x is mapped to z = [x; 1]/sqrt(q² + 1) and classified to argmin_c min_m zᵀΦ_{c,m}z.
    Training minimizes a large-margin loss plus (lam/2) Σ ||Φ||²_F (and, pairwise, γ Σ tr(Ψ);
    [PR12]_ eq. 11) plus (1/n) Σ ⟨b, Φ⟩, b calibrated as in
    docs/privacy/large_margin.md#privacy-large-margin. Every "auto" reads the parameters
    and the public n, C and d only
    (docs/privacy/large_margin_softmax.md#privacy-large-margin-defaults).

    Parameters
    ----------
    epsilon : float, default=1.0
        Total privacy budget ε > 0 (k-means share included).
    delta : float or None, default=None
        δ of ``mechanism="gaussian_objective"`` (None: min(1e-5, 1/n²)); None or 0 for the pure mechanisms.
    gamma : float, default=1e-2
        γ >= 0, weight of the trace regularizer Σ tr(Ψ_{c,m}).
    lam : float or "auto", default="auto"
        Strong-convexity modulus μ of (lam/2) Σ ||Φ||²_F (> 0 for objective perturbation); "auto":
        privacy-softmax-lambda-rule. The paper's estimator: ``loss="pairwise", lam=2e-2``.
    h : float, default=0.5
        Width of the Huber hinge (curvature bound 1/(2h)).
    n_components : int or "auto", default="auto"
        K Gaussians per class (K = 1: [PR10]_; K > 1: [PR12]_). "auto": one
        (:func:`~dpconvex.privacy.rules.large_margin.components_per_class`). A mixture needs
        public centers or ``component_assignment="dp_kmeans"``.
    mechanism : {"auto", "objective", "gaussian_objective", "centroid", "none"}, \
default="auto"
        "auto": "gaussian_objective" when ``delta > 0``, else "objective" (pure ε); but "centroid" when C >=
        3, K = 1, the objective's parameters are at their defaults and r = n·ε/(C(d + 1)) is below
        :data:`~dpconvex.privacy.rules.large_margin.CENTROID_BELOW`: 15 with δ = 0
        (``delta`` None or 0), 10 with δ > 0
        (:func:`~dpconvex.privacy.rules.large_margin.uses_centroid`,
        docs/privacy/large_margin_softmax.md#privacy-centroid-switch).
        "gaussian_objective": (ε, δ)-DP, softmax loss only
        (privacy-softmax-gaussian-objective). "centroid": DP class centroids
        (privacy-class-centroids) released as Φ_c with zᵀΦ_c z = ‖x/q − μ_c‖² + a_c.
        "none": the NON-private baseline.
    {data_norm}
    component_assignment : {None, "nearest_public_center", "dp_kmeans", \
"gmm_nonprivate"}, default=None
        How each training record gets its component m_i when K > 1 (None:
        "nearest_public_center"; :mod:`dpconvex.estimators.large_margin.components`).
        "gmm_nonprivate" is NOT differentially private (the certificate says so).
    centers : array of shape (C, K, n_features) or None, default=None
        Public centers (the start of "dp_kmeans"), in the order of ``classes_``, fixed
        before seeing the data. None: a data-independent public rule.
    kmeans_epsilon_fraction : float, default=0.2
        Share of ε spent on "dp_kmeans" (sequential composition with the objective).
    kmeans_iter : int, default=3
        Noisy Lloyd iterations of "dp_kmeans".
    loss : "auto", "softmax", "pairwise", Loss or None, default="auto"
        "auto": "softmax" for K = 1 or δ > 0, else "pairwise". "softmax": the cross-entropy on the scores
        −zᵀΦ_c z, released with a common PSD shift Φ_c + tI (privacy-softmax-psd-shift). Else a margin loss of
        the paper's PSD-constrained pairwise template ("pairwise" or None: ``HuberHinge(h)``; a
        :class:`~dpconvex.objectives.losses.Loss` with declared ``deriv_bound`` and ``curvature``).
    extra_terms : sequence of MatrixTerm or None, default=None
        Extra data-independent convex terms of the objective (pairwise loss).
    solver : {None, "clarabel", "scs", "native"}, default=None
        None: the native solver (:func:`~dpconvex.solvers.get_backend`). "clarabel" and
        "scs" solve the pairwise loss's CVXPY form.
    {random_state}
    optimality_tol : float or None, default=None
        None: release only the exact minimizer (else
        :class:`~dpconvex.errors.SolverError`). A float γ: approximate-minima perturbation,
        solving to residual <= γ with output noise (privacy-lm-solver-accuracy).
    max_iter : int or None, default=None
        Cap on the solver's iterations (None: the backend's default).
    {accountant}
    verbose : int, default=0
        NOT PRIVATE progress on stderr (:func:`dpconvex.verbosity`): 1 the steps with the elapsed
        time, 2 also the solver's iterations and residuals. Never stored.
    classes : sequence of labels or None, default=None
        The public label set (C = len(classes)).
        {classes_none}
    {unknown_labels}
    vouch : tuple of str, default=()
        Names of the declared constants of a user's ``loss`` the caller vouches for, from
        :data:`dpconvex.privacy.declarations.VOUCHABLE` (names no condition needs are ignored).
    structure : {"auto", "full", "diagonal", "linear"}, default="auto"
        "auto": "linear" with the softmax loss, "full" with the pairwise one. Softmax
        only: Φ_c is a linear model in a public feature map u(x), ||u|| <= 1
        (privacy-feature-map-structures).
    feature_weights : (wq, wl, wc) or None, default=None
        None: "full" is the z′ map of privacy-softmax-feature-map, else ``feature_map.DEFAULT_WEIGHTS``.
        Weights >= 0, not all 0, each 0 or of magnitude in [1e-100, 1e100].
    row_norm : {"auto", "unit", "none"}, default="auto"
        "unit": every row is scaled to the bound, x ↦ q·x/‖x‖, in fit and predict
        (privacy-row-norm-unit). "auto": "unit" with the softmax loss, "none" with the
        pairwise template. Pass "none" when a row's length carries the label.

    Warns
    -----
    PrivacyWarning
        In ``fit``, before the solve, when the objective's expected noise dominates the largest possible data
        gradient (privacy-softmax-measurements; public quantities only).

    Attributes
    ----------
    classes_ : ndarray of shape (C,)
    n_features_in_ : int
    Phi_ : ndarray of shape (C, K, d + 1, d + 1)
        Symmetric PSD matrices.
    centers_ : ndarray of shape (C, K, n_features) or None
        Centers used by the component assignment (public or DP-released).
    certificate_ : Certificate
    component_assignment_ : str

    References
    ----------
    .. [SS] F. Sha, L. K. Saul. Large Margin Gaussian Mixture Modeling for
       Phonetic Classification and Recognition. ICASSP 2006.
    .. [PR10] M. A. Pathak, B. Raj. Large Margin Multiclass Gaussian
       Classification with Differential Privacy. PSDM 2010.
    .. [PR12] M. A. Pathak, B. Raj. Large Margin Gaussian Mixture Models with
       Differential Privacy. IEEE TDSC 9(4), 2012, eq. 11.

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import PrivateLargeMarginGaussian
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(150, 2)); X /= np.linalg.norm(X, axis=1, keepdims=True)
    >>> y = np.digitize(np.arctan2(X[:, 1], X[:, 0]), [-1.0, 1.0])  # three sectors
    >>> clf = PrivateLargeMarginGaussian(epsilon=1.0, classes=[0, 1, 2], random_state=0).fit(X, y)
    >>> clf.Phi_.shape  # (C, K, d + 1, d + 1)
    (3, 1, 3, 3)
    >>> clf.certificate_.epsilon <= 1.0
    True
    >>> clf.predict(X[:4]).shape
    (4,)
    """

    #: A reusable preparation (K = 1 or public centers) holds the rows and components; the
    #: release sets Λ by its ε rule from its plan and reads the budget, mechanism and notes.
    _fields_read_at_release: ClassVar[tuple[str, ...]] = ("budget", "parts", "mechanism",
                                                          "notes", "lam", "lam_rule")

    takes_row_mask = True

    def __init__(
        self,
        *,
        epsilon: float = 1.0,
        delta: float | None = None,
        gamma: float = 1e-2,
        lam: float | str = "auto",
        h: float = 0.5,
        n_components: int | str = "auto",
        mechanism: str = "auto",
        data_norm: float = 1.0,
        component_assignment: str | None = None,
        centers: Any = None,
        kmeans_epsilon_fraction: float = 0.2,
        kmeans_iter: int = 3,
        loss: Loss | str | None = "auto",
        extra_terms: Sequence[MatrixTerm] | None = None,
        solver: str | None = None,
        random_state: int | None = None,
        optimality_tol: float | None = None,
        max_iter: int | None = None,
        accountant: Any = None,
        classes: Any = None,
        verbose: int = 0,
        structure: str = "auto",
        feature_weights: tuple[float, float, float] | None = None,
        row_norm: str = "auto",
        unknown_labels: str = "raise",
        vouch: tuple[str, ...] = (),
    ):
        self._store_params(locals())

    # -------------------------------------------------------------- validation
    #: The mechanisms ``mechanism=`` offers on the objective path, and the "auto" pair.
    mechanism_menu: ClassVar[MechanismMenu] = LARGE_MARGIN_MENU
    _parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "epsilon": EPSILON,
        "delta": Optional(DELTA),  # against the mechanism: _validate_params
        "gamma": Float(low_inclusive=True, high=MAX_GAMMA, high_inclusive=True),
        "lam": NoValidation("against the mechanism in _validate_params: > 0 for a private "
                            "objective (else a PrivacyError), >= 0 without noise"),
        "h": Float(),
        "n_components": Auto(Int(high=MAX_COMPONENTS, why=(
            "every component adds C (d+1)(d+2)/2 parameters and noise coordinates, and a "
            "component needs records"))),
        "mechanism": NoValidation("built (and named in errors) by _validate_params"),
        "data_norm": DATA_NORM, "component_assignment": Optional(Options(ASSIGNMENTS)),
        "centers": Optional(Centers()),  # its shape against (C, K, d) in the plan
        "kmeans_epsilon_fraction": Float(high=1.0),
        "kmeans_iter": Int(high=MAX_KMEANS_ITER, why=(
            "each noisy Lloyd iteration gets 1/kmeans_iter of the k-means budget, so beyond it "
            "the centers are noise, and each one reads every record")),
        "loss": LossParameter(("auto", SOFTMAX, PAIRWISE, None)),
        "extra_terms": Optional(MatrixTerms()),  # against the loss: _validate_params
        "solver": SOLVER, "random_state": RANDOM_STATE,
        "optimality_tol": OPTIMALITY_TOL, "max_iter": MAX_ITER_RULE,
        "accountant": ACCOUNTANT, "classes": CLASSES,
        "verbose": Int(low=0, high=MAX_VERBOSE, why=(
            "0 is silent, 1 prints the steps, 2 also the solver's iterations")),
        "structure": NoValidation("against the loss in _validate_params"),
        "feature_weights": NoValidation("against the structure, and each weight's magnitude, "
                                        "in _validate_params"),
        "row_norm": Options(ROW_NORMS), "unknown_labels": LABEL_POLICY, "vouch": Vouch(),
    }

    def _mechanism(self) -> Mechanism:
        """The mechanism object the parameters ask for (names from the registry).

        ``mechanism="centroid"``: the privacy-class-centroids mechanism it releases through (its (ε, δ)
        shape); "auto" gives the objective path's, the centroid switch needing n and C.
        """
        if is_centroid(self):
            return build_mechanism(centroid_mechanism(self), type(self).__name__, CENTROID_MENU)
        return build_mechanism(resolved_mechanism(self), type(self).__name__, self.mechanism_menu,
                               optimality_tol=self.optimality_tol)

    def _validate_params(self, *, planned: bool = False) -> None:  # type: ignore[override]
        super()._validate_params(planned=planned)
        check_consistency(self, self._mechanism())

    # ------------------------------------------------------------------------ plan
    def _plan(self, n: int, n_classes: int, n_features: int) -> FitPlan:
        return plan_fit(self, n, n_classes, n_features)

    # --------------------------------------------------------------------- fit
    def _check_data(self, X: Any, y: Any, plan: FitPlan,
                    context: FitContext) -> tuple[np.ndarray, LabelSet, int, int]:
        """Validate X, y against the parameters and ``plan``; return (X, label set, C, K).

        C = len(classes) always; with ``classes=`` nothing about the label set is read from y, and a class
        with fewer than K records (or none) still gets a model (its blocks get noise and regularization only):
        no refusal depends on one record.
        """
        owner = type(self).__name__
        Xv, labels = self._checked_data(X, y, plan, context)
        C, D = int(labels.classes.size), Xv.shape[1] + 1
        K = resolved_components(self, Xv.shape[0], C, Xv.shape[1])
        check_array_entries(
            C * K * D * D,
            f"Phi_ (C x K x (d+1) x (d+1) = {C} x {K} x {D} x {D})",
            f"{owner}.fit",
            "Lower n_components, or use fewer features or classes.",
        )
        return Xv, labels, C, K

    def _train_z(self, clipped: np.ndarray, labels: LabelSet) -> np.ndarray:
        """Scaled rows z; records that contribute no loss (``labels.dropped``: a label outside
        the set, a row left out of the fit) get z = 0 (constant loss, no gradient)."""
        Z = _augment_scaled(clipped, float(self.data_norm))  # rows checked by the fit
        if np.any(labels.dropped):
            Z[labels.dropped] = 0.0
        return Z

    def _train_rows(self, X_checked: np.ndarray, labels: LabelSet, plan: FitPlan, K: int
                    ) -> tuple[Any, Any, int]:
        """(the template's records z, the rows for the component assignment, rows clipped).

        The softmax template on the feature map linear in z with one component per class
        reads the validated rows in place (:func:`~.centroid.augmented_rows`: no copy of
        X); every other learner gets the clipped, mapped copy and z as an array.
        """
        if plan.learner == SOFTMAX_LEARNER and K == 1 and resolved_structure(self) == "linear":
            lean = augmented_rows(self, X_checked, labels.dropped)
            if lean is not None:  # K = 1: the assignment reads the rows' shape only
                return lean[0], X_checked, lean[1]
        clipped, n_clipped = clip_and_map(self, zero_rows(X_checked, labels.dropped))
        return self._train_z(clipped, labels), clipped, n_clipped

    def _certify_data(self, X: Any, y: Any, plan: FitPlan, context: FitContext) -> Certificate:
        """The verifier's checks and calibration on the template a fit on (X, y) builds.

        No noise is drawn: components are left unassigned and the assignment's public facts
        composed with the objective as a fit composes them (``dp_kmeans``: its share of ε
        certified, not spent), and the centroid learner certifies its inner fit.
        """
        if is_dask_collection(X):  # rows on the Dask workers (large_margin_dask)
            from .dask import certify_dask

            return certify_dask(self, X, y, plan.lam if lam_is_auto(self.lam) else None, context)
        X_checked, labels, C, K = self._check_data(X, y, plan, context)
        if plan.learner == CENTROID_LEARNER:
            return certify_centroid(self, prepared_rows(self, X_checked), y, context)
        Z = self._train_rows(X_checked, labels, plan, K)[0]
        components = np.zeros(len(labels.index), dtype=np.int64)
        template = build_template(self, Z, labels.index, components, C, K,
                                  planned_for(self, plan).description, plan.mechanism,
                                  objective_part(plan), lam=plan.lam)
        certificate = release(
            template,
            plan.mechanism,
            objective_part(plan),
            dry_run=True,
            vouch=self.vouch,
            vouch_unused="ignore",
        ).certificate
        certificate = compose_planned(self, plan, certificate)
        certificate.state(*fit_states(self, template, labels.assumption, plan.n, plan.n_classes,
                                      plan.n_features))
        return certificate

    def public_template(self, plan: FitPlan) -> Template:
        """The template of ``plan``'s public problem alone (the large-margin objective over
        its public shape), no rows or labels read: for dry runs and the noise warnings
        (:meth:`PrivateEstimator.public_template`).

        Parameters
        ----------
        plan : FitPlan
            The plan of this estimator (:meth:`plan`).

        Returns
        -------
        Template
            The template a fit of ``plan.n`` rows builds, without its rows.

        Examples
        --------
        >>> from dpconvex import PrivateLargeMarginGaussian
        >>> est = PrivateLargeMarginGaussian(epsilon=1.0, data_norm=1.0)
        >>> template = est.public_template(est.plan(1000, n_classes=3, n_features=2))
        >>> type(template).__name__, template.n, template.Z is None
        ('LargeMarginSoftmaxTemplate', 1000, True)
        """
        return public_template(self, plan)

    def _certify(self, prep: Prepared, plan: FitPlan) -> Certificate:
        return certify_prepared(self, prep, plan)

    def prepare(
        self, X: Any, y: Any, plan: FitPlan, *, context: FitContext = NO_CONTEXT
    ) -> Prepared:
        """Validate, clip, map the rows; assign components and build the template of ``plan``.

        Reusable across fits at other ε (``Prepared.reusable``) when the component assignment neither spends
        budget nor draws randomness: one component per class, or nearest public centers. DP k-means and the
        non-private GMM are part of each fit; the centroid learner builds no template.

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
            The template (None for the centroid learner), the label set and the
            :class:`~dpconvex.estimators.large_margin.learners.LargeMarginFacts`.

        Examples
        --------
        >>> from dpconvex import PrivateLargeMarginGaussian
        >>> est = PrivateLargeMarginGaussian(classes=[-1, 1])
        >>> prep = est.prepare(X, y, est.plan_for(X, y))
        >>> type(prep.template).__name__, prep.reusable
        ('LargeMarginSoftmaxTemplate', True)
        """
        say(f"{type(self).__name__}: building the template")
        prep = _bind_plan(self._build(X, y, plan, context), plan)
        say(f"template built: C = {prep.labels.classes.size}, K = {prep.meta.n_components}, "
                     f"d = {plan.n_features}")
        return prep

    def _build(self, X: Any, y: Any, plan: FitPlan, context: FitContext) -> Prepared:
        if is_dask_collection(X):  # the same template over rows on the Dask workers
            from .dask import build_dask

            # the plan's parameters, as _check_data holds them for rows in memory (build_dask
            # serves certify too, which has no plan)
            check_planned_params(self, plan, f"{type(self).__name__}.prepare")
            return build_dask(self, X, y, lam=plan.lam, context=context)
        X_checked, labels, C, K = self._check_data(X, y, plan, context)
        class_indices = labels.index
        q = float(self.data_norm)
        Z, clipped, n_clipped = self._train_rows(X_checked, labels, plan, K)
        note_clipped(n_clipped, int(np.count_nonzero(~labels.dropped)), q, type(self).__name__)
        facts = LargeMarginFacts(n_components=K, n_rows=len(class_indices), y=y)
        if plan.learner == CENTROID_LEARNER:  # no template; rebuilt at each fit of a sweep
            return Prepared(template=None, labels=labels, reusable=False,
                            meta=dataclasses.replace(facts, rows=clipped))
        method = self.component_assignment or "nearest_public_center"
        if context.noise is None and K != 1 and method != "nearest_public_center":
            # the assignment draws from random_state (the release continues that stream): the
            # plan's, as fit_prepared holds it (the other parameters checked with the data)
            check_planned_params(self, plan, f"{type(self).__name__}.prepare", drawn=True,
                                 names=("random_state",))
        kmeans = plan.parts.get(KMEANS)  # DP k-means's share of ε (private fits with K > 1)
        # the fit's generator (set by the skeleton), for both steps; a public prepare's from
        # random_state, checked here
        noise = noise_source(self, context.noise)
        assignment = assign_components(  # the records left out: class -1, in no k-means or GMM fit
            self.component_assignment, clipped, np.where(labels.dropped, -1, class_indices), C, K,
            data_norm=q, epsilon=None if kmeans is None else kmeans.epsilon, centers=self.centers,
            n_iter=int(self.kmeans_iter), random_state=noise.rng, seeded=noise.seeded)
        template = build_template(self, Z, class_indices, assignment.components, C, K,
                                  assignment.description, plan.mechanism, objective_part(plan),
                                  lam=plan.lam)
        reusable = K == 1 or assignment.method == "nearest_public_center"
        # the template holds the rows (as z); a sweep's centroid fit on this Prepared maps
        # the validated X again (_release) rather than keeping a second copy
        # its draws: the release's stream
        return Prepared(template=template, labels=labels, reusable=reusable,
                        meta=dataclasses.replace(facts, X=X_checked, dropped=labels.dropped,
                                                 assign=assignment),
                        noise=None if reusable or context.noise is not None else noise)

    def _uses_warm_start(self, plan: FitPlan) -> bool:
        return plan.learner != CENTROID_LEARNER  # the objective's solver (the centroids: none)

    def _release(self, prep: Prepared, plan: FitPlan, hold: CertificateHold,
                 context: FitContext, warm_start: np.ndarray | None) -> PrivateLargeMarginGaussian:
        """The private part of a fit on a prepared template: noise, release, ``Phi_``."""
        # the generator of this fit; when the build drew from it (DP k-means), the same one
        # (fit and a sweep hand it to both steps)
        noise = context.noise
        if plan.learner == CENTROID_LEARNER:  # privacy-centroid-switch (never reusable)
            # the rows kept by a centroid prepare, else mapped again from the validated X
            rows = prep.meta.rows if prep.meta.rows is not None else clip_and_map(
                self, zero_rows(prep.meta.X, prep.meta.dropped))[0]
            return fit_centroid(self, rows, prep.meta.y, hold, context.inner(noise))
        mechanism = plan.mechanism
        total_epsilon = float(self.epsilon) if mechanism.private else math.inf
        assignment = prep.meta.assign
        # the perturbation's budget (after a private component assignment), and Λ of the plan
        # (a sweep reuses one template across ε)
        budget = objective_budget(self, mechanism, assignment.epsilon, prep.template.n)
        if lam_is_auto(self.lam):
            prep.template.regularizer = Frobenius(plan.lam)
        warn_if_noise_dominates(noise_family(prep.template), prep.template, mechanism, budget,
                                type(self).__name__)
        # every argument checked: the parameters by _validate_params (fit_prepared: again, after
        # any set_params), the plan's by the plan
        released = _release_checked(
            prep.template, mechanism, budget, self.solver, noise.rng, warm_start=warm_start,
            max_iter=self.max_iter, seeded=noise.seeded, vouch=plan.vouch, vouch_unused="ignore")
        theta, objective_certificate = released.theta, released.certificate
        certificate = compose_with_assignment(objective_certificate, assignment, total_epsilon)
        facts = prep.meta
        C, K, d = prep.labels.classes.size, facts.n_components, plan.n_features
        certificate.state(
            *fit_states(self, prep.template, prep.labels.assumption, facts.n_rows, C, d)
        )
        hold.commit_certificate(certificate)
        self.certificate_ = certificate
        self.classes_ = prep.labels.classes
        self.n_features_in_ = d
        self.Phi_ = released_matrices(prep.template, theta, C, K, d + 1)[0]
        self.centers_ = assignment.centers
        self.component_assignment_ = assignment.method
        return self

    # ----------------------------------------------------------------- predict
    @checks_feature_names
    def class_scores(self, X: Any) -> np.ndarray:
        """Per-class scores −min_m zᵀΦ_{c,m}z, shape (n_samples, n_classes); higher wins.

        Rows are clipped to ``data_norm`` and scaled as in training.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Column j scores ``classes_[j]``.

        Examples
        --------
        >>> from dpconvex import PrivateLargeMarginGaussian
        >>> est = PrivateLargeMarginGaussian(classes=[-1, 1], random_state=0).fit(X, y)
        >>> est.class_scores(X[:3]).shape
        (3, 2)
        """
        return self._scores(X, "class_scores")

    def _scores(self, X: Any, method: str) -> np.ndarray:
        """:meth:`class_scores`, its errors naming the public ``method`` the rows were passed to."""
        caller = f"{type(self).__name__}.{method}"
        if is_dask_collection(X) and hasattr(self, "Phi_"):  # this method per chunk
            from .dask import class_scores_dask

            return class_scores_dask(self, X, caller)
        check_fitted(self, "Phi_")
        return self._row_scores(check_array(X, caller, n_features=self.n_features_in_))

    def _row_scores(self, X_checked: Any) -> np.ndarray:
        """:meth:`class_scores` of rows already checked (in memory)."""
        Z = _augment_scaled(prepared_rows(self, X_checked), float(self.data_norm))
        C, K, D, _ = self.Phi_.shape
        P = self.Phi_.reshape(C * K, D, D)
        forms = np.stack([np.einsum("ij,ij->i", Z @ P[cell], Z) for cell in range(C * K)], axis=1)
        return -forms.reshape(-1, C, K).min(axis=2)

    @checks_feature_names
    def decision_function(self, X: Any) -> np.ndarray:
        """Per-class scores (:meth:`class_scores`), in scikit-learn's shape convention.

        Shape (n_samples, n_classes) for three or more classes; for two classes
        (n_samples,), the score of ``classes_[1]`` minus that of ``classes_[0]``
        (positive means ``classes_[1]``), as scikit-learn expects.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)

        Examples
        --------
        >>> from dpconvex import PrivateLargeMarginGaussian
        >>> est = PrivateLargeMarginGaussian(classes=[-1, 1], random_state=0).fit(X, y)
        >>> scores = est.class_scores(X[:3])
        >>> np.allclose(est.decision_function(X[:3]), scores[:, 1] - scores[:, 0])
        True
        """
        scores = self._scores(X, "decision_function")
        return scores[:, 1] - scores[:, 0] if scores.shape[1] == 2 else scores

    @checks_feature_names
    def predict(self, X: Any) -> np.ndarray:
        """Predicted class labels: argmin_c min_m zᵀΦ_{c,m}z.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels from ``classes_``.

        Examples
        --------
        >>> from dpconvex import PrivateLargeMarginGaussian
        >>> est = PrivateLargeMarginGaussian(classes=[-1, 1], random_state=0).fit(X, y)
        >>> set(est.predict(X).tolist()) <= {-1, 1}
        True
        """
        scores = self._scores(X, "predict")
        return self.classes_[np.argmax(scores, axis=1)]

    def _predict_rows(self, X_checked: Any) -> np.ndarray:
        """:meth:`predict` of rows already checked (a front door's selection; Dask rows per
        chunk, as :meth:`predict` takes them)."""
        if is_dask_collection(X_checked):
            return self.predict(X_checked)
        return self.classes_[np.argmax(self._row_scores(X_checked), axis=1)]

    @checks_feature_names
    def predict_proba(self, X: Any) -> np.ndarray:
        """Softmax of the class scores, P(c | x) ∝ exp(−min_m zᵀΦ_{c,m}z), shape (n_samples,
        n_classes) (column j: ``classes_[j]``; two columns for two classes).

        Post-processing of ``Phi_`` and the public row scaling (no further privacy cost);
        ``argmax`` agrees with :meth:`predict`, but the values are not calibrated
        probabilities (their scale is set by the regularization and the noise).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Rows sum to 1.

        Examples
        --------
        >>> from dpconvex import PrivateLargeMarginGaussian
        >>> est = PrivateLargeMarginGaussian(classes=[-1, 1], random_state=0).fit(X, y)
        >>> proba = est.predict_proba(X[:5])
        >>> bool(np.allclose(proba.sum(axis=1), 1.0))
        True
        >>> bool((est.classes_[proba.argmax(axis=1)] == est.predict(X[:5])).all())
        True
        """
        # the argmax kept where exp rounds a gap away
        log_proba = self._log_proba(X, "predict_proba")
        return keep_argmax(np.exp(log_proba), log_proba)
