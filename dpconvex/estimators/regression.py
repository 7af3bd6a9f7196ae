"""Scikit-learn compatible private linear regressors: any convex loss of the prediction.

:class:`PrivateLinearRegressor` minimizes (1/n) Σ ℓ(wᵀxᵢ + b, uᵢ) + (Λ/2)‖(w, b/s)‖² by
objective (or output) perturbation ([CMS]_ Alg. 1–2, for a loss of the prediction [KST]_).
The labels are clipped to ``label_range`` = (lo, hi) and scaled to u ∈ [−1, 1] (public
per-record maps held, with their inverse, by :class:`LabelRangeMixin` for every regressor);
:class:`PrivateBounds` releases the range from the labels inside the fit instead. Where the
noise dominates (r = n·ε/p below the Λ rule's ``REGRESSION_RECORDS``), ``label_center="auto"``
releases the labels' mean with a share of ε and maps the labels around it, so that the penalty
shrinks the predictions towards that mean rather than the middle of the range
(docs/privacy/perturbation.md#privacy-label-center).
:class:`PrivateHuberRegressor` and :class:`PrivateQuantileRegressor` fix the loss.

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

import warnings
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import numpy as np
from sklearn.base import RegressorMixin, clone

from .._validation import (
    ACCOUNTANT,
    DATA_NORM,
    DELTA,
    EPSILON,
    LAM,
    MAX_ITER_RULE,
    MIN_MAGNITUDE,
    RANDOM_STATE,
    Auto,
    Bool,
    Constraint,
    Float,
    NoiseSource,
    NoValidation,
    _short_repr,
    check_fitted,
    check_float,
    check_sample_weight,
    checks_feature_names,
    feature_names_of,
    is_dask_collection,
    noise_source,
    signed_by,
    unchecked,
    with_feature_names,
)
from ..data.validation import check_array, check_excluded, check_numeric_labels, row_products
from ..errors import (
    DPConvexError,
    ParameterError,
    PrivacyWarning,
    diagnostics_open,
    record_diagnostic,
    user_stacklevel,
)
from ..objectives import HuberRegression, Pinball
from ..objectives.losses import (
    WIDTH_RULE,
    Loss,
    get_regression_loss,
    parse_label_range,
    stated_loss,
)
from ..privacy.budget import Budget, delta_rows_note, hold_budget, remaining
from ..privacy.certificate import LabelSource, RowMap
from ..privacy.composition import compose_sequential
from ..privacy.mechanisms.scalar import BoundedMeanTemplate, LaplaceMean
from ..privacy.release import Release, _release_checked
from ..privacy.rules.bounds import DEFAULT_LEVELS, LABEL_SHARE
from ..privacy.rules.noise_level import label_center_share
from ..templates.linear_erm import LinearERMTemplate
from ..templates.statistics import check_levels
from .base import (
    NO_CONTEXT,
    PARAMETER_DOCS,
    SOLVER,
    CertificateHold,
    CheckedData,
    FitContext,
    FitPlan,
    ParameterSet,
    Prepared,
    PrivateEstimator,
    Vouch,
    _bind_plan,
    _given_shape,
    carry_ledger,
    certify_part,
    fill_docs,
    fit_part,
    issued,
    state_rows_source,
)
from .linear import LinearPlanMixin, _release_linear, design_rows

__all__ = ["RELEASED_RANGE", "UNIT_LABELS", "LabelRange", "LabelRangeMixin", "PrivateBounds",
           "PrivateHuberRegressor", "PrivateLinearRegressor", "PrivateQuantileRegressor"]

#: The range the loss sees the labels in: (2y − lo − hi)/(hi − lo) maps [lo, hi] onto it.
UNIT_LABELS = (-1.0, 1.0)


def _on_unit_labels(label_range: Any) -> bool:
    """Whether a loss's ``label_range`` is the unit range (-1, 1) (None, or a value that is
    not a pair of numbers, is not)."""
    try:
        return tuple(float(v) for v in label_range) == UNIT_LABELS
    except (TypeError, ValueError):
        return False
#: The opening of the warning of a fit without label_range, after "{caller}: ".
UNIT_RANGE_WARNING = "label_range was not given"


def rows_backend(X: Any) -> RowMap | None:
    """The certificate's line on the backend of rows ``X`` (Dask), as a fit on them states it;
    None for rows in memory or none given.

    Examples
    --------
    >>> from dpconvex.estimators.regression import rows_backend
    >>> rows_backend(np.zeros((4, 2))) is None
    True
    """
    return RowMap(dask=True) if X is not None and is_dask_collection(X) else None


@dataclass(frozen=True)
class PrivateBounds:
    """A label range released from the data inside the fit: a share of ε and two levels.

    ``label_range=PrivateBounds()`` (or ``label_range="private"``) on a regressor spends
    ``share`` of its ε on the range of the labels
    (:func:`~dpconvex.privacy.bounds.release_range`) and fits on the rest; the certificate
    composes the two parts (docs/privacy/bounds.md#privacy-private-label-range).

    Parameters
    ----------
    share : float, default=0.1
        The fraction of the regressor's ε spent on the label range, in (0, 1).
    levels : (float, float), default=(0.01, 0.99)
        The quantile levels of the range (used when the budget resolves them; else the
        coarse range over powers of two is released).

    Examples
    --------
    >>> import numpy as np
    >>> import dpconvex as dp
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(5000, 2)) / 2
    >>> y = 300 + 100 * X[:, 0] + rng.normal(0, 10, 5000)
    >>> model = dp.PrivateLinearRegression(epsilon=1.0, label_range=dp.PrivateBounds(0.2),
    ...                                    random_state=0).fit(X, y)
    >>> lo, hi = model.label_range_
    >>> bool(lo <= 260 and hi >= 340), round(model.certificate_.epsilon, 6)
    (True, 1.0)
    """

    share: float = LABEL_SHARE
    levels: tuple[float, float] = DEFAULT_LEVELS

    def __post_init__(self) -> None:
        share = check_float("share", self.share, "PrivateBounds", high=1.0)
        object.__setattr__(self, "share", share)
        object.__setattr__(self, "levels", check_levels(self.levels, "PrivateBounds"))


#: The plan's and the certificate's line of a fit with ``label_range="private"``.
PRIVATE_RANGE_NOTE = (
    "label_range='private': the labels' range released first with {share:g} of epsilon, "
    "the model on the epsilon left (docs/privacy/bounds.md#privacy-private-label-range)"
)


#: The plan's and the certificate's line of a fit with ``label_center="auto"`` where the noise dominates.
CENTER_NOTE = (
    "label_center='auto': r = n epsilon / p is below the lambda rule's REGRESSION_RECORDS, so the "
    "labels' mean was released first with {share:g} of epsilon (Laplace) and the model fitted on "
    "the epsilon left, its labels mapped around that mean (a per-record map given the release; "
    "docs/privacy/perturbation.md#privacy-label-center)"
)


def mean_release(values: np.ndarray | None, n: int, epsilon: float,
                 noise: NoiseSource | None = None, *, seeded: bool = False) -> Release:
    """The private mean of the n unit labels ``values`` (Laplace, each clipped to [-1, 1] by
    the template, docs/privacy/front_door_regression.md#privacy-private-mean), on the unit
    scale; without ``noise`` the dry run (``certify``: ``values`` None, nothing read;
    ``seeded``: the fit's will be).

    Parameters
    ----------
    values : ndarray or None
        The n unit labels (None in a dry run).
    n : int
        The number of records (public).
    epsilon : float
        The ε the release spends.
    noise : NoiseSource or None, default=None
        The fit's noise source; None: the dry run.
    seeded : bool, default=False
        In a dry run, whether the fit's noise source will be seeded.

    Returns
    -------
    Release
        The noisy mean (``theta``, one entry) and its certificate; in a dry run, the
        certificate alone (``theta`` None).

    Raises
    ------
    ParameterError
        ``values`` does not hold n entries.

    Examples
    --------
    >>> from dpconvex.estimators.regression import mean_release
    >>> from dpconvex._validation import NoiseSource
    >>> noise = NoiseSource(np.random.default_rng(0), seeded=True)
    >>> mean = mean_release(np.full(100, 0.5), 100, 1.0, noise)
    >>> abs(float(mean.theta[0]) - 0.5) < 0.2, mean.certificate.epsilon
    (True, 1.0)
    """
    budget = Budget(float(epsilon))
    if noise is None:
        template = BoundedMeanTemplate.of_problem(n)
        return _release_checked(template, LaplaceMean(), budget, dry_run=True, seeded=seeded)
    template = BoundedMeanTemplate(values)
    if template.n != int(n):
        raise ParameterError(f"mean_release: {template.n} values given for n = {n} records. "
                             "Give one value per record.")
    return _release_checked(template, LaplaceMean(), budget, None, noise.rng, seeded=noise.seeded)


def private_bounds(label_range: Any) -> PrivateBounds | None:
    """The :class:`PrivateBounds` a ``label_range`` asks for ("private": the defaults), or None."""
    if isinstance(label_range, str) and label_range == "private":
        return PrivateBounds()
    return label_range if isinstance(label_range, PrivateBounds) else None


#: The types of a checked ``label_range`` that is released in the fit: the word "private" (the
#: only one :class:`LabelRange` takes) or a :class:`PrivateBounds`. An estimator tests its own
#: checked parameter against it; :func:`private_bounds` reads any value.
RELEASED_RANGE = (str, PrivateBounds)


class LabelRange(Constraint):
    """(lo, hi), finite floats with lo < hi (the labels' public range), or a private release.

    Examples
    --------
    >>> from dpconvex.estimators.regression import LabelRange
    >>> LabelRange().check("label_range", (0, 10), "Demo")
    (0.0, 10.0)
    """

    def check(self, name: str, value: Any, owner: str, noun: str = "parameter") -> Any:
        """``value`` checked: a range as a (lo, hi) tuple of floats; None, "private" or a
        :class:`PrivateBounds` as given.

        Parameters
        ----------
        name : str
            The parameter's name (in the message).
        value : object
            The value given.
        owner : str
            The estimator (in the message).

        Returns
        -------
        tuple of float, str, PrivateBounds or None
            The checked value.

        Raises
        ------
        ParameterError
            Anything else, e.g. lo >= hi, a non-finite bound, another string.

        Examples
        --------
        >>> from dpconvex.estimators.regression import LabelRange
        >>> LabelRange().check("label_range", (0, 10), "Demo")
        (0.0, 10.0)
        >>> LabelRange().check("label_range", "private", "Demo")
        'private'
        >>> LabelRange().check("label_range", (1, 0), "Demo")
        Traceback (most recent call last):
        ...
        dpconvex.errors.ParameterError: The 'label_range' parameter of Demo must be (lo, hi) ...
        """
        parsed = None if value is None else parse_label_range(value)
        if parsed is not None:
            return parsed
        if value is None or private_bounds(value) is not None:
            return value
        raise ParameterError(
            f"The '{name}' {noun} of {owner} must be {self}. Got {_short_repr(value)} instead."
        )

    def __str__(self) -> str:
        return ("(lo, hi) with finite lo < hi, the public range of the labels (|lo|, |hi| <= "
                "1e100, hi - lo >= 1e-100), 'private' / PrivateBounds(share, levels) to "
                "release it from the data, or None for (-1, 1)")


class RegressionScoreMixin(RegressorMixin):
    """The regressors' mixin: scikit-learn's ``RegressorMixin`` (tags, ``is_regressor``) with a
    ``score`` that checks its labels as ``fit`` checks them (named errors).

    The ``poor_score`` tag is set unless the mechanism is not private (``mechanism="none"``): a
    private fit's noise at the ε of scikit-learn's checks can keep R² on their 200 rows below
    the 0.5 they ask of a regressor.
    """

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        mechanism = getattr(self, "_mechanism", None)  # the front door's learner is chosen in fit
        try:
            tags.regressor_tags.poor_score = mechanism is None or bool(mechanism().private)
        except (DPConvexError, TypeError, ValueError):  # parameters the fit refuses by name
            tags.regressor_tags.poor_score = True
        return tags

    @checks_feature_names
    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """R² of ``predict(X)`` against ``y`` (labels checked as ``fit`` checks them)."""
        from sklearn.metrics import r2_score

        caller = f"{type(self).__name__}.score"
        with signed_by(self, caller):  # the names checked above, once
            pred = unchecked(self.predict)(X)
        truth = check_numeric_labels(y, pred.size, caller)
        weights = (
            None
            if sample_weight is None
            else check_sample_weight(sample_weight, pred.size, caller)
        )
        return float(r2_score(truth, pred, sample_weight=weights))


class LabelRangeMixin(RegressionScoreMixin):
    """Labels mapped onto [−1, 1] by the public ``label_range``; the model mapped back.

    The host has ``label_range``, ``fit_intercept`` and ``intercept_scaling`` parameters;
    ``_release`` sets ``coef_``, ``intercept_`` and ``n_features_in_`` in the labels' units.

    Examples
    --------
    >>> from dpconvex import PrivateLinearRegressor
    >>> from dpconvex.estimators.regression import LabelRangeMixin
    >>> model = PrivateLinearRegressor(label_range=(0, 10), random_state=0).fit(X, 5 + X[:, 0])
    >>> isinstance(model, LabelRangeMixin), model.predict(X[:2]).shape
    (True, (2,))
    """

    _reads_label_set: ClassVar[bool] = False  # (n, 1, n_features): no label set to read
    #: The family of the public noise check the release runs
    #: (:func:`~dpconvex.privacy.rules.noise_level.warn_if_noise_dominates`).
    _noise_family: ClassVar[str] = "linear"

    def _label_bounds(self) -> tuple[float, float]:
        if isinstance(self.label_range, RELEASED_RANGE):
            check_fitted(self, "label_range_")
            lo, hi = self.label_range_
        else:
            # None: the unit scale
            lo, hi = UNIT_LABELS if self.label_range is None else self.label_range
        return float(lo), float(hi)

    def _unit_scale(self, *bounds: float) -> tuple[float, float]:
        """(half, mid) of the map between the labels' units and the unit scale: y = mid + half·u.

        ``half`` = (hi − lo)/2 of the label range (also the coefficients' set's ``scale``,
        :meth:`~LinearPlanMixin._erm_template`); ``mid`` the label u = 0 stands for: the
        range's centre, or a numeric ``label_center``. ``bounds``: the range's (lo, hi) where
        the caller has read them (:meth:`_label_bounds`), else read here.
        """
        lo, hi = bounds or self._label_bounds()
        center = getattr(self, "label_center", "range")
        return 0.5 * (hi - lo), 0.5 * (hi + lo) if isinstance(center, str) else float(center)

    # ------------------------------------------------------- a label range released in the fit
    def _fit_routed(self, X: Any, y: Any, context: FitContext) -> Any:
        """With ``label_range="private"``: the range released first, then this regressor on
        it (:meth:`_fit_private_labels`)."""
        if isinstance(self.label_range, RELEASED_RANGE):  # the range reads every label
            return self._fit_private_labels(X, y, context.every_row(type(self).__name__))
        return super()._fit_routed(X, y, context)

    def _label_split(self) -> tuple[PrivateBounds, float, float, Any]:
        """(the range's spec, ε, its share for the labels, this regressor on the ε left with a
        placeholder range and no ledger), after validating the parameters."""
        self._validate_params()
        spec = private_bounds(self.label_range)
        assert spec is not None
        epsilon = float(self.epsilon)
        eps_label = spec.share * epsilon
        inner = clone(self).set_params(label_range=(-1.0, 1.0),
                                       epsilon=remaining(epsilon, eps_label), accountant=None)
        return spec, epsilon, eps_label, inner

    def _fit_private_labels(self, X: Any, y: Any, context: FitContext) -> Any:
        """Release the label range with ``share`` of ε, then fit on it with the ε left.

        One hold on the ledger for the whole ε; the certificate composes the two parts sequentially
        (docs/privacy/bounds.md#privacy-private-label-range). The inner fit draws from a generator spawned
        from this fit's (``context.noise``, else ``random_state``).
        """
        from ..privacy.bounds import check_range_budget, release_range

        spec, epsilon, eps_label, inner = self._label_split()
        owner = type(self).__name__
        names = feature_names_of(X, f"{owner}.fit")
        n, _, n_features = self.public_shape(X, y)
        # public: refused before anything is read
        check_range_budget(n, eps_label, "labels", f"{owner}.fit")
        delta = inner.plan_checked(n, 1, n_features).budget.delta  # public_shape checked it
        # routed before the skeleton makes its generator: the caller's, else random_state's
        # (checked by _label_split)
        noise = noise_source(self, context.noise)
        label_rng, fit_rng = noise.rng.spawn(2)
        notes: list[str] = []  # functions of the release: warned once the hold has committed
        with hold_budget(self.accountant, Budget(epsilon, delta), owner,
                         n=None if context.held else n) as hold:  # δ against 1/n, once
            values = check_numeric_labels(y, n, f"{owner}.fit")
            lo, hi, _, label_certificate = release_range(
                values, Budget(eps_label), n=n, levels=spec.levels, name="labels",
                rng=label_rng, seeded=noise.seeded, owner=f"{owner}.fit", notes=notes)
            inner.set_params(label_range=(lo, hi))
            fit_part(inner, X, y, context.inner(NoiseSource(fit_rng, noise.seeded), held=True))
            certificate = self._with_label_range(label_certificate, inner.certificate_, spec,
                                                 epsilon, delta, f"[{lo:g}, {hi:g}]")
            hold.commit_certificate(certificate)
        self._take_fitted(inner)
        carry_ledger(self, self.accountant)  # a refit of its learner charges the ledger
        self.label_range_ = (lo, hi)
        self.certificate_ = certificate
        fitted = with_feature_names(self, names)
        for note in notes:  # the release is made and charged: its notes follow it
            warnings.warn(note, PrivacyWarning, stacklevel=user_stacklevel())
        return fitted

    def _certify_private_labels(self, X: Any = None, y: Any = None, *, held: bool = False,
                                **shape: Any) -> Any:
        """The certificate a fit with a private label range would carry (nothing drawn): the
        line when δ >= 1/n as the fit's budget hold states it (not where ``held``: a part of a
        fit whose own hold states it)."""
        from ..privacy.bounds import check_range_budget, range_certificate

        spec, epsilon, eps_label, inner = self._label_split()
        if X is None:  # through its public certify, as the fit fits it (fit_part)
            with issued(NO_CONTEXT.inner(None, held=True)) as part:  # as the fit's part
                model = inner.certify(**shape, context=part)
        else:  # the rows as checked here, on the plan of their shape (as plan_checked plans)
            data = self._certify_checked(X, y)  # (the placeholder range reads no label)
            n, _, d = data.shape
            part = NO_CONTEXT.inner(None, held=True, checked=True, data=data,
                                    plan=inner.plan_checked(n, 1, d))
            model = certify_part(inner, data.X, data.y, part)
            shape = {"n": n}
        n = int(shape.get("n"))
        check_range_budget(n, eps_label, "labels", f"{type(self).__name__}.certify")
        label = range_certificate(n, Budget(eps_label), levels=spec.levels, name="labels",
                                  seeded=model.seeded)
        parts = [model]
        while parts:  # the placeholder's range, in every part: a fit states the released one
            part = parts.pop()
            parts += part.parts
            if getattr(part.label_source, "source", None) == "label_range":
                part.label_source = None
        certificate = self._with_label_range(label, model, spec, epsilon, model.delta, "")
        if not held:  # as the fit's hold states it, on its δ and the public n
            certificate.state(delta_rows_note(model.delta, n))
        return certificate

    def _with_label_range(self, label: Any, model: Any, spec: PrivateBounds, epsilon: float,
                          delta: float, released: str) -> Any:
        """The sequential composition of the label range's release and the model on it
        (``released``: the range, "" in a dry run)."""
        return compose_sequential(
            [label, model],
            mechanism=f"{type(self).__name__} with a private label range: the range of the "
            "labels, then the model on it (docs/privacy/bounds.md#privacy-private-label-range)",
            epsilon_requested=epsilon,
            delta_requested=delta,
            quantities={"label range share": spec.share},
            assumptions=[
                PRIVATE_RANGE_NOTE.format(share=spec.share),
                f"the label range {released or '(known after the fit)'} is a private "
                f"release (share {spec.share:g} of epsilon, levels {spec.levels}); "
                "labels outside it are clipped (per-record maps)",
            ],
            labels=["label range", "model"],
        )

    def plan_checked(self, n: int, n_classes: int, n_features: int) -> Any:
        """What a fit will do, on a checked shape (a private label range: the model's plan on the ε
        left, with the whole budget and :data:`PRIVATE_RANGE_NOTE`, without the placeholder range;
        ``prepare`` refuses it).

        Parameters
        ----------
        n, n_classes, n_features : int
            The public shape, checked by the caller as :meth:`plan` checks it.

        Returns
        -------
        FitPlan

        Examples
        --------
        >>> from dpconvex import PrivateLinearRegressor
        >>> plan = PrivateLinearRegressor(label_range="private").plan_checked(10**6, 1, 3)
        >>> plan.budget, "label_range" in plan.options
        (Budget(epsilon=1.0, delta=0.0), False)
        """
        if not isinstance(self.label_range, RELEASED_RANGE):
            return super().plan_checked(n, n_classes, n_features)  # type: ignore[misc]
        from ..privacy.bounds import check_range_budget

        spec, epsilon, eps_label, inner = self._label_split()
        model = inner.plan_checked(n, n_classes, n_features)
        check_range_budget(model.n, eps_label, "labels", f"{type(self).__name__}.plan")
        parts = {"label range": Budget(eps_label), **model.parts} if model.parts else {}
        return replace(
            model,
            estimator=type(self).__name__,
            budget=Budget(epsilon, model.budget.delta),
            parts=parts,
            options={k: v for k, v in model.options.items() if k != "label_range"},
            notes=(
                *(n for n in model.notes if not isinstance(n, LabelSource)),
                PRIVATE_RANGE_NOTE.format(share=spec.share),
            ),
        )

    def _certify_routed(self, X: Any, y: Any, shape: dict[str, Any], context: FitContext) -> Any:
        """A private label range: the certificate of both parts
        (:meth:`_certify_private_labels`)."""
        if isinstance(self.label_range, RELEASED_RANGE):
            certificate = self._certify_private_labels(X, y, held=context.held, **shape)
            # a meta-estimator's part: the call that holds it states its rows' source
            return certificate if context is not NO_CONTEXT else state_rows_source(certificate, X)
        return super()._certify_routed(X, y, shape, context)  # type: ignore[misc]

    def _certify_checked(self, X: Any, y: Any, context: FitContext = NO_CONTEXT) -> CheckedData:
        """(X, y) once they pass a fit's checks (none mapped, clipped or kept): the rows by
        :func:`~dpconvex.data.validation.check_array`, the labels numbers, one per row; as the
        fit that holds this one checked them where it hands them (``context.data``)."""
        if context.data is not None:
            return context.data
        caller = f"{type(self).__name__}.certify"
        feature_names_of(X, caller)
        rows = check_array(
            X, caller, min_samples=2, accept_sparse=self._accepts_sparse, accept_dask=True
        )
        return CheckedData(rows, check_numeric_labels(y, rows.shape[0], caller))

    @staticmethod
    def _warn_unit_range(caller: str) -> None:
        """The warning of a fit without ``label_range``: the labels are taken to lie in [−1, 1]."""
        warnings.warn(
            f"{caller}: {UNIT_RANGE_WARNING}, so the labels are taken to lie in [-1, 1]: each "
            "label "
            "outside it is clipped to -1 or 1 (a per-record map the guarantee rests on) and the "
            "model "
            "predicts within [-1, 1]. Give label_range=(lo, hi), the public range of your labels "
            "from "
            "their documentation (never from the data), or label_range='private' to release it "
            "with a "
            f"share of epsilon.",
            PrivacyWarning,
            stacklevel=user_stacklevel(),
        )

    def _unit_labels(self, y: Any, n: int, caller: str, note: bool = True,
                     checked: bool = False, warn: bool = True) -> np.ndarray:
        """Labels clipped to the public range and mapped onto [−1, 1]: (2y − lo − hi)/(hi − lo), or
        with a numeric ``label_center`` c, 2(y − c)/(hi − lo) clipped to [−1, 1].

        The clipping is a per-record map that the certificate states for every fit
        (its label source); how many labels it moved is a statistic of the data, so it goes
        to :func:`~dpconvex.collect_diagnostics` only and no message depends on it (one record
        outside the range would switch a message on: docs/privacy/messages.md). Labels held by
        Dask are brought to the driver once (8n bytes); a column vector is flattened with
        scikit-learn's warning. The map adds one n-vector, written in place. ``note=False``: the
        labels come from a meta-estimator that counted them (clipped, with placeholders);
        ``checked``: that meta-estimator checked them (numbers, one per row), as
        :func:`~dpconvex.data.validation.check_numeric_labels` does; ``warn=False``: that
        meta-estimator issues the warning of a missing label range in its own name
        (``FitContext.range_warned``).
        """
        if isinstance(self.label_range, RELEASED_RANGE):  # prepare, on a plan
            raise ParameterError(
                f"{caller}: label_range='private' releases the range of the labels before "
                "the model, in fit only: call fit, or give the released range as "
                "label_range=(lo, hi) to prepare."
            )
        values = np.asarray(y, dtype=float) if checked else check_numeric_labels(y, n, caller)
        lo, hi = self._label_bounds()
        if self.label_range is None and warn:  # a fact of the call: the text reads no label
            self._warn_unit_range(caller)
        unit = np.clip(values, lo, hi)  # the one n-vector a fit adds (no temporaries beside it)
        # NOT PRIVATE: the labels the clip moved, for an open collector
        if note and diagnostics_open():
            record_diagnostic(
                caller,
                f"labels clipped to label_range=[{lo:g}, {hi:g}] (outside it)",
                int(np.count_nonzero(unit != values)),
                n,
            )
        half, mid = self._unit_scale(lo, hi)
        unit -= mid
        unit /= half
        # the map's rounding can leave [-1, 1] by an ulp at an end (hi = log(18823)): clip
        return np.clip(unit, -1.0, 1.0, out=unit)

    def _private_mean(self, labels: np.ndarray, n: int, epsilon: float, noise: NoiseSource, *,
                      note: bool = True) -> tuple[np.ndarray, Release]:
        """The labels of every row on the unit scale (:meth:`_unit_labels`) and their private
        mean with ``epsilon`` (:func:`mean_release`, Laplace,
        docs/privacy/front_door_regression.md#privacy-private-mean), drawn from ``noise``;
        ``labels`` as this fit checked them; ``note=False``: the clipped labels are counted by
        the fit that reads them next."""
        u = self._unit_labels(labels, n, f"{type(self).__name__}.fit", note=note, checked=True)
        return u, mean_release(u, n, epsilon, noise)

    def _uses_warm_start(self, plan: FitPlan) -> bool:
        return True  # handed to every release's solve

    def _release(self, prep: Prepared, plan: FitPlan, hold: CertificateHold,
                 context: FitContext, warm_start: np.ndarray | None) -> Any:
        """Noise, release and the fitted attributes in the labels' units (the private part,
        :func:`~dpconvex.estimators.linear._release_linear`)."""
        family = self._noise_family
        coef, intercept = _release_linear(
            self, prep, plan, hold, context, warm_start, plan.notes,
            {"family": family, "owner": type(self).__name__, "regression": family == "linear"})
        # coef_ and intercept_ in the labels' units from θ fitted on u (post-processing)
        half, mid = self._unit_scale()
        self.n_features_in_ = plan.n_features
        self.coef_ = half * np.asarray(coef, dtype=float)
        self.intercept_ = float(mid + half * intercept)
        return self

    @checks_feature_names
    def predict(self, X: Any) -> np.ndarray:
        """wᵀx + b in the labels' units, clipped to ``label_range``.

        Parameters
        ----------
        X : array-like, scipy.sparse matrix or dask.array.Array of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        ndarray of shape (n_samples,)

        Examples
        --------
        >>> from dpconvex import PrivateLinearRegressor
        >>> X = rng.uniform(-0.5, 0.5, size=(5000, 3))
        >>> targets = 50 + 60 * X[:, 0] + rng.normal(scale=5, size=5000)
        >>> model = PrivateLinearRegressor(label_range=(0, 100), random_state=0).fit(X, targets)
        >>> predictions = model.predict(X)
        >>> predictions.shape, bool(((predictions >= 0) & (predictions <= 100)).all())
        ((5000,), True)
        """
        check_fitted(self, "coef_")
        return self._predict_rows(check_array(X, f"{type(self).__name__}.predict",
                                              accept_sparse=True, accept_dask=True,
                                              n_features=self.n_features_in_))

    def _predict_rows(self, X_checked: Any) -> np.ndarray:
        """:meth:`predict` of rows already checked (a front door's validation rows)."""
        lo, hi = self._label_bounds()
        if is_dask_collection(X_checked):  # the scores summed per chunk; n numbers come back
            from ..data.dask_rows import DaskRows

            raw = row_products(X_checked, self.coef_, DaskRows(X_checked).matvec(self.coef_))
        else:
            # a row near the float range: redone
            with np.errstate(over="ignore", invalid="ignore"):
                raw = np.asarray(X_checked @ self.coef_).reshape(-1)
            raw = raw if np.isfinite(raw).all() else row_products(X_checked, self.coef_, raw)
        return np.clip(raw + self.intercept_, lo, hi)


class _LossChoice(Constraint):
    """"huber", "pinball", "squared", a callable ``fn(z, y)`` in CVXPY atoms or a regression
    :class:`~dpconvex.objectives.Loss`."""

    def check(self, name: str, value: Any, owner: str, noun: str = "parameter") -> Any:
        if isinstance(value, Loss) or (callable(value) and not isinstance(value, type)) or \
                (isinstance(value, str) and value in ("huber", "pinball", "squared")):
            return value
        raise self.refusal(name, value, owner, noun)

    def __str__(self) -> str:
        return ("one of 'huber', 'pinball', 'squared', a callable fn(z, y) stating the loss in "
                "CVXPY atoms or a dpconvex.objectives.Loss instance")


class LabelCenter(Constraint):
    """"auto", "range" or a finite float (a label within ``label_range``, checked with it)."""

    def check(self, name: str, value: Any, owner: str, noun: str = "parameter") -> Any:
        if isinstance(value, str):
            if value in ("auto", "range"):
                return value
            raise self.refusal(name, value, owner, noun)
        try:  # any finite label (within label_range, checked with it), however small its magnitude
            return check_float(name, value, owner, low=-np.inf, magnitude=False, noun=noun)
        except ParameterError:
            raise self.refusal(name, value, owner, noun) from None

    def __str__(self) -> str:
        return "'auto', 'range' or a finite float within label_range"


#: The parameters every private linear regressor shares, written into each class docstring
#: at its ``{regression_parameters}`` line.
PARAMETER_DOCS["regression_parameters"] = fill_docs("""\
    epsilon : float, default=1.0
    delta : float, default=0.0
        δ > 0 lets ``mechanism="auto"`` take the Gaussian form where its public bound is the lower.
    {label_range}
    {data_norm}
    fit_intercept : bool, default=True
        An intercept as a constant column s = ``intercept_scaling`` inside the norm bound.
        False: the intercept is the label the unit scale's 0 stands for (``intercept_`` =
        (lo + hi)/2 of ``label_range``, or the centre ``label_center`` gives), not 0; give a range
        centred at the offset the model should have (symmetric about 0 for a fit through the origin).
    intercept_scaling : float, default=1.0
    lam : float or "auto", default="auto"
        Λ; "auto": the public rule of the linear models (docs/privacy/perturbation.md#privacy-lambda-rule).
    mechanism : str, default="auto"
        "objective", "output", "gaussian_objective", "gaussian_output", "none" (the explicit
        NON-private baseline); "auto": objective perturbation, pure ε when δ = 0; when
        δ > 0 Gaussian, unless the pure form's public Λ-rule bound is the lower (then δ is
        not spent; docs/privacy/front_door.md#privacy-mechanism-auto).
    solver : str or None, default=None
    {random_state}
    max_iter : int or None, default=None
    {accountant}
    constraints : callable or None, default=None
        ``constraints(w)``: CVXPY constraints on the coefficients ``w`` in the labels' units,
        as in :class:`~dpconvex.PrivateLogisticRegression`
        (docs/privacy/user_objectives.md#privacy-constraints).
    label_center : "auto", "range" or float, default="auto"
        The label the penalty shrinks the predictions to (the unit scale's 0). "range": the
        middle of ``label_range``. A float: that label (public, within ``label_range``).
        "auto": where r = n·ε/(d + 1) is below the Λ rule's ``REGRESSION_RECORDS`` (100), the
        noise dominates and a share ``LABEL_CENTER_SHARE`` (0.1) of ε releases the labels'
        mean (Laplace), the centre of the model fitted on the rest, whose Λ rule then takes
        the lower floor of R; elsewhere, without a given ``label_range`` or an intercept, the
        middle of the range (docs/privacy/perturbation.md#privacy-label-center).

    Warns
    -----
    PrivacyWarning
        In ``fit``, before the solve, when the expected noise outweighs the largest possible
        data gradient at the start
        (docs/privacy/tuning_gd_ledger.md#privacy-noise-warning-linear).
        {public_check_regression}

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        In the labels' units.
    intercept_ : float
    n_features_in_ : int
    certificate_ : Certificate
""")


class PrivateLinearRegressor(LabelRangeMixin, LinearPlanMixin, PrivateEstimator):
    """ε- (or (ε, δ)-) differentially private linear regression with a convex loss of the prediction.

    Parameters
    ----------
    loss : {"huber", "pinball", "squared"} or Loss, default="huber"
        "huber": :class:`~dpconvex.objectives.HuberRegression` (``huber_threshold``);
        "pinball": the quantile loss :class:`~dpconvex.objectives.Pinball` (``quantile``);
        "squared": (z − y)²/2, which the verifier refuses, its slope being unbounded
        (docs/privacy/user_objectives.md#privacy-prediction-losses). A
        :class:`~dpconvex.objectives.Loss` of kind "regression" with ``label_range=(-1, 1)``
        sees the labels on the unit scale.
    quantile : float, default=0.5
        τ of the pinball loss.
    huber_threshold : float, default=0.25
        M of the Huber loss on the unit label scale, in [1e-6, 1e6] (an eighth of the label range;
        docs/privacy/user_objectives.md#privacy-prediction-losses says how it was chosen).
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

    takes_row_mask = True

    _accepts_sparse = True
    _parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "loss": _LossChoice(), "epsilon": EPSILON,
        "delta": DELTA, "label_range": LabelRange(),
        "data_norm": DATA_NORM, "fit_intercept": Bool(),
        "intercept_scaling": Float(), "lam": LAM,
        "mechanism": NoValidation("built (and named in errors) by _validate_params"),
        "quantile": Float(high=1.0), "huber_threshold": WIDTH_RULE,
        "solver": SOLVER, "random_state": RANDOM_STATE,
        "max_iter": MAX_ITER_RULE, "accountant": ACCOUNTANT,
        "vouch": Vouch(), "constraints": ParameterSet(), "label_center": LabelCenter(),
    }

    def __init__(
        self,
        *,
        loss: Any = "huber",
        epsilon: float = 1.0,
        delta: float = 0.0,
        label_range: tuple[float, float] | str | PrivateBounds | None = None,
        data_norm: float = 1.0,
        fit_intercept: bool = True,
        intercept_scaling: float = 1.0,
        lam: float | str = "auto",
        mechanism: str = "auto",
        quantile: float = 0.5,
        huber_threshold: float = 0.25,
        solver: str | None = None,
        random_state: int | None = None,
        max_iter: int | None = None,
        accountant: Any = None,
        vouch: tuple[str, ...] = (),
        constraints: Any = None,
        label_center: float | str = "auto",
    ):
        self._store_params(locals())

    def _validate_params(self, *, planned: bool = False) -> None:  # type: ignore[override]
        """The table, the mechanism, and a numeric ``label_center`` within ``label_range``."""
        super()._validate_params(planned=planned)
        center = self.label_center
        if not isinstance(center, str):  # a number: within a range known before the fit
            if isinstance(self.label_range, RELEASED_RANGE):
                raise ParameterError(
                    f"The 'label_center' parameter of {type(self).__name__} must be 'auto' or "
                    "'range' with label_range='private': a number cannot be checked against a "
                    f"range released in the fit. Got {_short_repr(center)} instead."
                )
            lo, hi = self._label_bounds()
            if not lo <= float(center) <= hi:
                raise ParameterError(
                    f"The 'label_center' parameter of {type(self).__name__} must lie within "
                    f"label_range [{lo:g}, {hi:g}]: it is the label the penalty shrinks the "
                    "predictions "
                    f"to. Got {_short_repr(center)} instead."
                )

    # --------------------------------------------------------- a centre released in the fit
    def _center_share(self, n: int, n_features: int) -> float:
        """The share of ε ``label_center="auto"`` spends on the labels' mean for a fit of n rows
        and d features (:func:`~dpconvex.privacy.rules.noise_level.label_center_share`): 0 for
        another ``label_center``, without a given ``label_range`` (none, or one released in the
        fit) or an intercept, and for the non-private baseline (parameters and (n, d) only)."""
        if self.label_center != "auto" or self.label_range is None or not self.fit_intercept \
                or isinstance(self.label_range, RELEASED_RANGE) or not self._mechanism().private:
            return 0.0
        return label_center_share(n, n_features + 1, float(self.epsilon))

    def _center_split(self, n: int, n_features: int) -> tuple[float, float, float, Any]:
        """(ε, the centre's share, its ε_c, this regressor on ε − ε_c centred at a placeholder and
        charging no ledger), for a fit whose :meth:`_center_share` is positive."""
        epsilon, share = float(self.epsilon), self._center_share(n, n_features)
        eps_center = share * epsilon
        if min(eps_center, remaining(epsilon, eps_center)) < MIN_MAGNITUDE:
            raise ParameterError(
                f"The 'epsilon' parameter of {type(self).__name__} is {epsilon:g}: "
                "label_center='auto' "
                f"spends {share:g} of it on the labels' mean, and each part must be at least "
                f"{MIN_MAGNITUDE:g}. Pass a larger epsilon, or label_center='range'."
            )
        lo, hi = self._label_bounds()
        inner = clone(self).set_params(epsilon=remaining(epsilon, eps_center), accountant=None,
                                       label_center=0.5 * (lo + hi))
        return epsilon, share, eps_center, inner

    def _fit_routed(self, X: Any, y: Any, context: FitContext) -> Any:
        """With ``label_center="auto"`` where the noise dominates: the labels' private mean
        first, then this regressor centred at it (:meth:`_fit_centered`); else the label range's
        route (:meth:`LabelRangeMixin._fit_routed`) or None.

        The rows a meta-estimator leaves out (``context.excluded``) keep the centre of
        ``label_range``: the mean would read them. A plan the fit that holds this one hands it
        (``context.plan``) is followed as it is (``prepare`` refuses one that releases a centre).
        """
        if context.excluded is None and context.plan is None:
            self._validate_params()
            n, _, n_features = self.public_shape(X, y)
            if self._center_share(n, n_features):
                return self._fit_centered(X, y, context, n, n_features)
        return super()._fit_routed(X, y, context)

    def _fit_centered(self, X: Any, y: Any, context: FitContext, n: int, n_features: int) -> Any:
        """Release the labels' mean with the centre's share of ε, then fit this regressor
        centred at it on the ε left (through its public ``fit``, :func:`fit_part`), in one
        hold; the certificate composes the two (privacy-label-center). Both draw from
        generators spawned from this fit's (``context.noise``, else ``random_state``)."""
        owner = type(self).__name__
        names = feature_names_of(X, f"{owner}.fit")
        epsilon, share, eps_center, inner = self._center_split(n, n_features)
        delta = inner.plan_checked(n, 1, n_features).budget.delta  # public_shape checked it
        # routed before the skeleton makes its generator: the caller's, else random_state's
        # (checked by _fit_routed)
        noise = noise_source(self, context.noise)
        center_rng, fit_rng = noise.rng.spawn(2)
        lo, hi = self._label_bounds()
        # the rows' checks before any label is read (a refusal spends nothing)
        check_array(X, f"{owner}.fit", min_samples=2, accept_sparse=True, accept_dask=True)
        with hold_budget(
            self.accountant, Budget(epsilon, delta), owner, n=None if context.held else n
        ) as hold:
            y = check_numeric_labels(y, n, f"{owner}.fit")  # read once (Dask labels computed once)
            # the labels' mean on the unit scale (the model's map records the clip)
            _, center = self._private_mean(y, n, eps_center, NoiseSource(center_rng, noise.seeded),
                                           note=False)
            # c in [-1, 1] in the labels' units (clipped: the sum's rounding may leave [lo, hi] by an ulp)
            half, mid = self._unit_scale()
            c_y = mid + half * float(center.theta[0])
            inner.set_params(label_center=min(hi, max(lo, c_y)))
            fit_part(inner, X, y, context.inner(NoiseSource(fit_rng, noise.seeded), held=True))
            certificate = self._with_center(
                center.certificate, inner.certificate_, share, epsilon, delta
            )
            hold.commit_certificate(certificate)
        self._take_fitted(inner)
        self.certificate_ = certificate
        return with_feature_names(self, names)

    def _with_center(
        self, center: Any, model: Any, share: float, epsilon: float, delta: float
    ) -> Any:
        """The sequential composition of the labels' mean and the model centred at it."""
        composed = compose_sequential(
            [center, model],
            mechanism=f"{type(self).__name__} with label_center='auto': the labels' private mean, "
            "then the model on the labels mapped around it "
            "(docs/privacy/perturbation.md#privacy-label-center)",
            epsilon_requested=epsilon,
            delta_requested=delta,
            quantities={"label center share": share},
            assumptions=[CENTER_NOTE.format(share=share)],
            labels=["label center", "model"],
        )
        composed.state(model.label_source)
        return composed

    def plan_checked(self, n: int, n_classes: int, n_features: int) -> Any:
        """What a fit will do, on a checked shape (``label_center="auto"`` where the noise
        dominates: the model's plan on the ε left, centred, with the whole budget and its parts;
        ``prepare`` refuses it).

        Parameters
        ----------
        n, n_classes, n_features : int
            The public shape, checked by the caller as :meth:`plan` checks it.

        Returns
        -------
        FitPlan

        Examples
        --------
        >>> from dpconvex import PrivateLinearRegressor
        >>> est = PrivateLinearRegressor(label_range=(-2, 2))
        >>> sorted(est.plan_checked(40, 1, 3).parts)  # few rows: the centre is released first
        ['label center', 'model']
        >>> sorted(est.plan_checked(10**6, 1, 3).parts)
        []
        """
        model = super().plan_checked(n, n_classes, n_features)
        if not self._center_share(model.n, model.n_features):  # (none for a released range)
            return model
        epsilon, share, eps_center, inner = self._center_split(model.n, model.n_features)
        model = inner.plan_checked(model.n, 1, model.n_features)
        return replace(
            model,
            estimator=type(self).__name__,
            budget=Budget(epsilon, model.budget.delta),
            parts={"label center": Budget(eps_center), "model": model.budget},
            notes=(*model.notes, CENTER_NOTE.format(share=share)),
        )

    def _certify_routed(self, X: Any, y: Any, shape: dict[str, Any], context: FitContext) -> Any:
        """Both parts' certificate where the fit releases a centre (``label_center="auto"`` where
        the noise dominates: :meth:`_certify_centered`); a private label range's first."""
        if isinstance(self.label_range, RELEASED_RANGE):
            return super()._certify_routed(X, y, shape, context)
        if X is None:
            self._validate_params()
            if shape.get("n") is not None and shape.get("n_features") is not None:
                # checked as plan checks them (n_classes too: None or 1), then read
                n, _, d = _given_shape(self, shape["n"], shape.get("n_classes"),
                                       shape["n_features"], "certify")
                if self._center_share(n, d):
                    return self._certify_centered(None, shape)
        elif context.excluded is None:
            self._validate_params()
            n, _, d = self.public_shape(X, y)
            if self._center_share(n, d):
                n, _, d = self._certify_checked(X, y, context).shape
                certificate = self._certify_centered(X, {"n": n, "n_features": d})
                return (state_rows_source(certificate, X, self) if context is NO_CONTEXT
                        else certificate)
        return None

    def _certify_centered(self, X: Any, shape: dict[str, Any]) -> Any:
        """The dry run of the centre, then the model on the ε left (nothing drawn)."""
        n, d = int(shape["n"]), int(shape["n_features"])
        epsilon, share, eps_center, inner = self._center_split(n, d)
        model = inner.certify(**{**shape, "n_classes": 1})  # its public shape, as a fit's part
        model.state(rows_backend(X))
        center = mean_release(None, n, eps_center, seeded=model.seeded).certificate
        return self._with_center(center, model, share, epsilon, model.delta)

    # ------------------------------------------------------------------ parameters
    def _make_loss(self) -> Loss:
        if isinstance(self.loss, Loss):
            if getattr(self.loss, "awaits_label_range", False):  # stated without a range: ours
                return self.loss.on_label_range(UNIT_LABELS)  # type: ignore[attr-defined]
            if (getattr(self.loss, "kind", "margin") != "regression"
                    or not _on_unit_labels(getattr(self.loss, "label_range", None))):
                raise ParameterError(
                    f"{type(self).__name__}.fit: a Loss instance must be of kind 'regression' "
                    "with "
                    "label_range=(-1, 1) or none: the estimator maps the labels onto [-1, 1] by "
                    "the "
                    "public label_range before the loss sees them. State the loss without "
                    "label_range (Loss.from_cvxpy(fn, kind='regression')), or pass the function "
                    "itself, loss=lambda z, y: ...: the estimator states it on that range."
                )
            return self.loss
        if callable(self.loss):  # stated in CVXPY atoms, on the unit label scale
            return stated_loss(self.loss, "regression", type(self).__name__, UNIT_LABELS)
        if self.loss == "huber":
            return HuberRegression(float(self.huber_threshold), UNIT_LABELS)
        if self.loss == "pinball":
            return Pinball(float(self.quantile), UNIT_LABELS)
        return get_regression_loss(self.loss, UNIT_LABELS)

    # -------------------------------------------------------------------- prepare
    def prepare(self, X: Any, y: Any, plan: FitPlan, *,
                context: FitContext = NO_CONTEXT) -> Prepared:
        """Validate, clip the rows and labels, add the intercept column, build the template.

        Rows held by Dask stay on the workers (the same per-record maps per chunk;
        docs/guide/dask.md). Rows left out of the fit (``context.excluded``) get a zero
        factor: their loss ℓ(0, uᵢ) is a constant in θ, so they do not move the minimizer.

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
            The linear ERM template on the unit label scale.

        Raises
        ------
        ParameterError
            A plan that releases the labels' centre first (``label_center="auto"`` where the
            noise dominates): fit only.

        Examples
        --------
        >>> from dpconvex import PrivateLinearRegressor
        >>> targets = X @ np.array([1.0, 0.5, 0.0])
        >>> est = PrivateLinearRegressor(label_range=(-2, 2), label_center=0.0)
        >>> prep = est.prepare(X, targets, est.plan_for(X, targets))
        >>> type(prep.template).__name__, prep.template.p  # p: 3 features and the intercept
        ('LinearERMTemplate', 4)
        """
        if "label center" in plan.parts:
            raise ParameterError(
                f"{type(self).__name__}.prepare: label_center='auto' releases the labels' "
                "mean before the model, in fit only: call fit, or pass the centre as "
                "label_center=c (a public number, or one released before) to prepare."
            )
        X_checked, u = self._checked_data(X, y, plan, context)
        return self._prepared(X_checked, u, plan, context.excluded)

    def _prepare_fit(self, X: Any, y: Any, plan: FitPlan, context: FitContext) -> Prepared:
        """The fit's preparation: the template of ``plan`` over the rows X and labels y as the
        fit validated them (``context.data``) and held them to the plan's shape, so not checked
        again (:meth:`prepare` checks the rows and labels a caller hands it); the labels mapped
        onto [−1, 1] here (:meth:`_unit_labels`)."""
        u = self._unit_labels(y, plan.n, f"{type(self).__name__}.fit",
                              note=context.excluded is None, checked=context.checked,
                              warn=not context.range_warned)
        return self._prepared(X, u, plan, context.excluded)

    def _prepared(self, X_checked: Any, u: np.ndarray, plan: FitPlan,
                  excluded: np.ndarray | None) -> Prepared:
        """Clip, add the intercept column, and build the template of ``plan`` over the checked
        rows ``X_checked`` and their unit labels ``u``; the rows ``excluded`` (a fit's
        ``context.excluded``, checked here against the rows) get a zero factor."""
        owner = f"{type(self).__name__}.fit"
        n = X_checked.shape[0]
        excluded = check_excluded(excluded, n, owner)
        design = design_rows(
            self, X_checked, np.zeros(n, dtype=bool) if excluded is None else excluded, owner
        )
        half, _ = self._unit_scale()
        return _bind_plan(Prepared(
            template=self._erm_template(plan, design, u, owner, half,
                                        fit=not is_dask_collection(X_checked)),
            # a fit at another ε reuses it unless a choice of the plan reads ε
            reusable=not plan.reads_epsilon,
        ), plan)

    def public_template(self, plan: FitPlan) -> LinearERMTemplate:
        """The template of ``plan``'s public problem alone (the coefficients' set read on
        the unit label scale, as a fit reads it), no rows or labels read: for dry runs and
        the noise warnings (:meth:`PrivateEstimator.public_template`).

        Parameters
        ----------
        plan : FitPlan
            The plan of this estimator (:meth:`plan`).

        Returns
        -------
        LinearERMTemplate
            The template a fit of ``plan.n`` rows builds, without its rows.

        Examples
        --------
        >>> from dpconvex import PrivateLinearRegressor
        >>> est = PrivateLinearRegressor(epsilon=1.0, data_norm=1.0, label_range=(-1.0, 1.0))
        >>> template = est.public_template(est.plan(1000, n_features=3))
        >>> type(template).__name__, template.n, template.p, template.rows is None
        ('LinearERMTemplate', 1000, 4, True)
        """
        # the coefficients' set read on the unit label scale, as a fit reads it
        return self._erm_template(plan, scale=self._unit_scale()[0])


#: The parameters every fixed-loss regressor shares with :class:`PrivateLinearRegressor`:
#: all but the loss's choice, its parameters and ``vouch`` (a shipped loss is derived,
#: privacy-prediction-losses).
_FIXED_LOSS_CONSTRAINTS: dict[str, Constraint] = {
    name: rule for name, rule in PrivateLinearRegressor._parameter_constraints.items()
    if name not in ("loss", "quantile", "huber_threshold", "vouch")}


class PrivateHuberRegressor(PrivateLinearRegressor):
    """ε- (or (ε, δ)-) differentially private linear regression with the Huber loss.

    :class:`PrivateLinearRegressor` with ``loss="huber"`` fixed: ℓ(z, u) = huber_M(z − u)/(2M)
    on the labels mapped onto u ∈ [−1, 1], slope at most 1 and curvature at most 1/M, by
    objective perturbation ([CMS]_ Alg. 2, [KST]_ Section 3) or output perturbation
    ([CMS]_ Alg. 1) (docs/privacy/user_objectives.md#privacy-prediction-losses).

    Parameters
    ----------
    huber_threshold : float, default=0.25
        M in [1e-6, 1e6], where the loss turns from squared to linear, on the unit label scale (the
        default: an eighth of the label range). A smaller M resists outliers more and has curvature 1/M,
        for which the Λ rule raises Λ (less noise, more shrinkage;
        docs/privacy/user_objectives.md#privacy-prediction-losses).
    {regression_parameters}

    See Also
    --------
    PrivateLinearRegressor : any loss of the prediction, a user's included.
    PrivateQuantileRegressor : the pinball loss of a quantile.
    PrivateLinearRegression : the squared loss, by sufficient-statistics perturbation.

    References
    ----------
    [CMS]_ Algorithm 1 (output perturbation) and Algorithm 2 (objective perturbation);
    [KST]_ Section 3.

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
        **_FIXED_LOSS_CONSTRAINTS, "huber_threshold": WIDTH_RULE}

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
        huber_threshold: float = 0.25,
        solver: str | None = None,
        random_state: int | None = None,
        max_iter: int | None = None,
        accountant: Any = None,
        constraints: Any = None,
        label_center: float | str = "auto",
    ):
        self._store_params(locals())

    def _make_loss(self) -> Loss:
        return HuberRegression(float(self.huber_threshold), UNIT_LABELS)


class PrivateQuantileRegressor(PrivateLinearRegressor):
    """ε- (or (ε, δ)-) differentially private linear quantile regression (smoothed pinball loss).

    :class:`PrivateLinearRegressor` with ``loss="pinball"`` fixed: the quantile loss
    ρ_τ(u − z) of [KB78]_ with its kink smoothed at half-width h
    (:class:`~dpconvex.objectives.Pinball`), slope at most max(τ, 1 − τ) and curvature at most
    1/(2h), by objective perturbation ([CMS]_ Alg. 2, [KST]_ Section 3) or output
    perturbation ([CMS]_ Alg. 1) (docs/privacy/user_objectives.md#privacy-prediction-losses).
    The prediction estimates the τ-quantile of the label given x, clipped to ``label_range``.

    Parameters
    ----------
    quantile : float, default=0.5
        τ in (0, 1): the quantile predicted (0.5: the median).
    smoothing : float or "auto", default=0.1
        h in [1e-6, 1e6], the half-width of the smoothed kink on the unit label scale; a smaller h has
        curvature 1/(2h), which objective perturbation pays for. "auto": h chosen with Λ by
        :func:`~dpconvex.privacy.rules.noise_level.resolve_smoothing`
        (docs/privacy/user_objectives.md#privacy-prediction-losses).
    {regression_parameters}

    See Also
    --------
    PrivateLinearRegressor : any loss of the prediction, a user's included.
    PrivateHuberRegressor : the Huber loss.

    References
    ----------
    [KB78]_ (the check loss ρ_τ); [CMS]_ Algorithm 1 (output perturbation) and Algorithm 2
    (objective perturbation); [KST]_ Section 3.

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
        **_FIXED_LOSS_CONSTRAINTS, "quantile": Float(high=1.0), "smoothing": Auto(WIDTH_RULE)}

    def __init__(
        self,
        *,
        quantile: float = 0.5,
        epsilon: float = 1.0,
        delta: float = 0.0,
        label_range: tuple[float, float] | str | PrivateBounds | None = None,
        data_norm: float = 1.0,
        fit_intercept: bool = True,
        intercept_scaling: float = 1.0,
        lam: float | str = "auto",
        mechanism: str = "auto",
        smoothing: float | str = 0.1,
        solver: str | None = None,
        random_state: int | None = None,
        max_iter: int | None = None,
        accountant: Any = None,
        constraints: Any = None,
        label_center: float | str = "auto",
    ):
        self._store_params(locals())

    def _make_loss(self) -> Loss:
        return Pinball(float(self.quantile), UNIT_LABELS, self.smoothing)
