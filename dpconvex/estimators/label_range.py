"""The labels of a private regression: a public range, two per-record maps, and their inverse.

Every regressor reads each label through two maps that depend on the record and public
constants only (docs/privacy/user_objectives.md#privacy-prediction-losses): clipping to
the public ``label_range`` = (lo, hi), then u = (2y − lo − hi)/(hi − lo) ∈ [−1, 1]. The
model θ is fitted on u; coefficients and intercept are mapped back (×(hi − lo)/2, + (lo +
hi)/2) by post-processing, and predictions are clipped to the range.
:class:`LabelRangeMixin` holds these maps once for
:class:`~dpconvex.PrivateLinearRegressor` and :class:`~dpconvex.PrivateLinearRegression`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.exceptions import DataConversionWarning

from .._diagnostics import record_diagnostic
from .._validation import (
    Constraint,
    _reject_masked,
    check_fitted,
    check_float,
    checks_feature_names,
    is_dask_collection,
)
from ..data.validation import check_array, computed
from ..errors import DataValidationError, ParameterError, user_stacklevel
from ..objectives.losses import parse_label_range
from ..privacy.certificate import LabelSource
from ..privacy.rules.bounds import DEFAULT_LEVELS, LABEL_SHARE
from ..templates.statistics import check_levels
from .base import FitContext

__all__ = ["LabelRange", "LabelRangeMixin", "PrivateBounds"]


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



def private_bounds(label_range: Any) -> PrivateBounds | None:
    """The :class:`PrivateBounds` a ``label_range`` asks for ("private": the defaults), or None."""
    if isinstance(label_range, str) and label_range == "private":
        return PrivateBounds()
    return label_range if isinstance(label_range, PrivateBounds) else None



class LabelRange(Constraint):
    """(lo, hi), finite floats with lo < hi (the labels' public range), or a private release.

    Examples
    --------
    >>> from dpconvex.estimators.label_range import LabelRange
    >>> LabelRange().check("label_range", (0, 10), "Demo")
    (0.0, 10.0)
    """

    def check(self, name: str, value: Any, owner: str) -> Any:
        if private_bounds(value) is not None:
            return value
        parsed = parse_label_range(value)
        if parsed is None:
            raise ParameterError(f"The '{name}' parameter of {owner} must be {self}. Got "
                                 f"{value!r} instead.")
        return parsed

    def __str__(self) -> str:
        return ("(lo, hi) with finite lo < hi, the public range of the labels, or 'private' / "
                "PrivateBounds(share, levels) to release it from the data")


class LabelRangeMixin:
    """Labels mapped onto [−1, 1] by the public ``label_range``; the model mapped back.

    The host has ``label_range``, ``fit_intercept`` and ``intercept_scaling`` parameters;
    ``_set_coefficients`` sets ``coef_``, ``intercept_`` and ``n_features_in_``.
    """

    def _row_options(self) -> dict[str, Any]:
        """The plan's options on the rows and labels (public parameters)."""
        return {"norm bound q~": self._norm_bound(), "label_range": self._label_bounds(),
                "fit_intercept": bool(self.fit_intercept),
                "intercept_scaling": float(self.intercept_scaling)}

    def public_shape(self, X: Any, y: Any) -> tuple[int, int, int]:
        """(n, 1, n_features): a regression has no label set to read."""
        n, _, p = super().public_shape(X, np.zeros(1))
        return n, 1, p

    def _label_bounds(self) -> tuple[float, float]:
        if private_bounds(self.label_range) is not None:
            check_fitted(self, "label_range_")
            lo, hi = self.label_range_
        else:
            lo, hi = self.label_range
        return float(lo), float(hi)

    def _from_unit(self, u: Any) -> Any:
        """The unit scale's u mapped back to the labels' units: u·(hi − lo)/2 + (hi + lo)/2."""
        lo, hi = self._label_bounds()
        return u * (0.5 * (hi - lo)) + 0.5 * (hi + lo)

    # ------------------------------------------------------- a label range released in the fit
    def _diverted_fit(self, X: Any, y: Any, context: FitContext) -> Any:
        """A fit with ``label_range="private"``: release the range first (else None)."""
        if private_bounds(self.label_range) is not None:
            return self._fit_private_labels(X, y, context)
        return None

    def _inner(self, epsilon: float, label_range: tuple[float, float]) -> Any:
        """This regressor on a public label range, at ``epsilon``, charging no ledger."""
        from sklearn.base import clone

        return clone(self).set_params(label_range=label_range, epsilon=epsilon, accountant=None)

    def _fit_private_labels(self, X: Any, y: Any, context: FitContext) -> Any:
        """Release the label range with ``share`` of ε, then fit on it with the ε left.

        One hold on the ledger for the whole ε; the certificate composes the two parts
        sequentially (docs/privacy/bounds.md#privacy-private-label-range). The inner fit
        draws from a generator spawned from this fit's (``context.noise``, else
        ``random_state``).
        """
        from .._random import NoiseSource, noise_source
        from .._validation import feature_names_of, with_feature_names
        from ..privacy.accounting import reserve_budget
        from ..privacy.bounds import check_range_budget, release_range
        from ..privacy.budget import Budget, remaining
        from ..privacy.certificate import compose_sequential

        self._validate_params()
        spec = private_bounds(self.label_range)
        assert spec is not None
        owner = type(self).__name__
        names = feature_names_of(X, f"{owner}.fit")
        n, _, n_features = self.public_shape(X, y)
        epsilon = float(self.epsilon)
        eps_label = spec.share * epsilon
        rest = remaining(epsilon, eps_label)
        check_range_budget(n, eps_label, "labels", f"{owner}.fit")  # public: refused before anything is read
        inner = self._inner(rest, (-1.0, 1.0))
        delta = inner.plan(n, 1, n_features).budget.delta
        noise = noise_source(self, context.noise)
        label_rng, fit_rng = noise.rng.spawn(2)
        with reserve_budget(self.accountant, epsilon, delta, owner) as hold:
            values = self._raw_labels(y, n, f"{owner}.fit")
            lo, hi, _, label_certificate = release_range(
                values, Budget(eps_label), n=n, levels=spec.levels, name="labels",
                rng=label_rng, seeded=noise.seeded)
            inner.set_params(label_range=(lo, hi))
            inner._fit_with(X, y, context.inner(NoiseSource(fit_rng, noise.seeded)))
            certificate = compose_sequential(
                [label_certificate, inner.certificate_],
                mechanism=f"{owner} with a private label range: the range of the labels, then "
                          "the model on it (docs/privacy/bounds.md#privacy-private-label-range)",
                epsilon_requested=epsilon, delta_requested=delta,
                quantities={"label range share": spec.share,
                            "released label range": [lo, hi]},
                assumptions=[f"the label range [{lo:g}, {hi:g}] is a private release (share "
                             f"{spec.share:g} of epsilon, levels {spec.levels}); labels outside "
                             "it are clipped (per-record maps)"],
                labels=["label range", "model"])
            hold.commit_certificate(certificate)
        for key, value in vars(inner).items():
            if key.endswith("_") and not key.startswith("_"):
                setattr(self, key, value)
        self.label_range_ = (lo, hi)
        self.certificate_ = certificate
        return with_feature_names(self, names)

    def _certify_private_labels(self, X: Any = None, y: Any = None, **shape: Any) -> Any:
        """The certificate a fit with a private label range would carry (nothing drawn)."""
        from ..data.log_grid import N_CELLS
        from ..privacy.budget import Budget, remaining
        from ..privacy.certificate import compose_sequential
        from ..privacy.release import release
        from ..privacy.rules.bounds import refine_range
        from ..templates.statistics import RangeTemplate

        self._validate_params()
        spec = private_bounds(self.label_range)
        assert spec is not None
        epsilon = float(self.epsilon)
        eps_label = spec.share * epsilon
        rest = remaining(epsilon, eps_label)
        if X is not None:  # the public shape only: the placeholder range reads no label
            n, _, d = self.public_shape(X, y)
            shape = {"n": n, "n_classes": 1, "n_features": d}
        model = self._inner(rest, (-1.0, 1.0)).certify(**shape)
        n = shape.get("n")
        choice = refine_range(int(n), eps_label, spec.levels)
        label = release(RangeTemplate(np.zeros(N_CELLS, dtype=np.int64), int(n), spec.levels,
                                      refine=choice.refine, name="labels"),
                        "quantile_range", Budget(eps_label), dry_run=True).certificate
        label.assumptions.append(choice.reason)
        return compose_sequential(
            [label, model], mechanism=f"{type(self).__name__} with a private label range "
            "(docs/privacy/bounds.md#privacy-private-label-range)", epsilon_requested=epsilon,
            delta_requested=model.delta, labels=["label range", "model"])

    def certify(self, X: Any = None, y: Any = None, **shape: Any) -> Any:
        """The certificate a fit would carry (a private label range: both parts)."""
        if private_bounds(self.label_range) is not None:
            return self._certify_private_labels(X, y, **shape)
        return super().certify(X, y, **shape)

    def _raw_labels(self, y: Any, n: int, caller: str) -> np.ndarray:
        """The labels as floats, checked (numbers, one per row, finite), not clipped; read,
        never written. Labels held by Dask are brought to the driver once (8n bytes); a column
        vector is flattened with scikit-learn's warning."""
        if y is None:
            raise DataValidationError(f"{caller}: requires y to be passed, but the target y is "
                                      "None. Pass the labels.")
        _reject_masked(y, caller, "y")
        try:
            y = computed(y)
            raw = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)
            if raw.ndim == 2 and raw.shape[1] == 1:  # as scikit-learn's regressors take it
                warnings.warn("A column-vector y was passed when a 1d array was expected; it was "
                              f"flattened. Pass y.ravel() to {caller} to silence this.",
                              DataConversionWarning, stacklevel=user_stacklevel())
                raw = raw.ravel()
            if np.iscomplexobj(raw) or raw.ndim != 1 or raw.dtype.kind not in "biufO":
                raise TypeError
            values = raw.astype(float, copy=False).reshape(-1)
        except (TypeError, ValueError):
            raise DataValidationError(f"{caller}: y must hold numbers (a "
                                      "regression's labels). Convert it to floats first.") from None
        if values.size != n:
            raise DataValidationError(f"{caller}: y has {values.size} labels for "
                                      f"{n} rows. Pass one label per row.")
        if not np.all(np.isfinite(values)):
            raise DataValidationError(f"{caller}: y has labels that are not finite "
                                      "(NaN or inf). Remove or impute them first.")
        return values

    def _label_note(self) -> LabelSource:
        """The certificate's label source: the public label range and its maps."""
        lo, hi = self._label_bounds()  # a private range: the inner fit's public one
        return LabelSource("label_range", label_range=(lo, hi))

    def _unit_labels(self, y: Any, n: int, owner: str = "", *, check_only: bool = False
                     ) -> np.ndarray:
        """Labels clipped to the public range and mapped onto [−1, 1]; with ``check_only``
        (score), the labels as given, validated, on the same scale.

        The clipping is a per-record map that the certificate states for every fit
        (:meth:`_label_note`); how many labels it moved is a statistic of the data, so it goes
        to :func:`~dpconvex.collect_diagnostics` only and no message depends on it (one record
        outside the range would switch a message on: docs/privacy/messages.md). Labels held by
        Dask are brought to the driver once (8n bytes); a column vector is flattened with
        scikit-learn's warning. The map adds one n-vector, written in place.
        """
        caller = owner or f"{type(self).__name__}.score"
        values = self._raw_labels(y, n, caller)
        lo, hi = self._label_bounds()
        if check_only:
            return (2.0 * values - lo - hi) / (hi - lo)
        unit = np.clip(values, lo, hi)  # the one n-vector a fit adds (no temporaries beside it)
        moved = int(np.count_nonzero(unit != values))
        record_diagnostic(owner, f"labels clipped to label_range=[{lo:g}, {hi:g}] (outside it)",
                          moved, n)
        unit *= 2.0
        unit -= lo + hi
        unit /= hi - lo
        # the map's rounding can leave [-1, 1] by an ulp at an end (hi = log(18823)): clip
        return np.clip(unit, -1.0, 1.0, out=unit)

    def _set_coefficients(self, theta: np.ndarray, n_features: int) -> None:
        """``coef_`` and ``intercept_`` in the labels' units from θ fitted on u (post-processing)."""
        lo, hi = self._label_bounds()
        half, mid = 0.5 * (hi - lo), 0.5 * (hi + lo)
        s = float(self.intercept_scaling)
        self.n_features_in_ = n_features
        self.coef_ = half * np.asarray(theta[:n_features], dtype=float)
        self.intercept_ = float(mid + half * (s * theta[n_features] if self.fit_intercept else 0.0))

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """R² of ``predict(X)`` against ``y`` (labels checked as ``fit`` checks them)."""
        from sklearn.metrics import r2_score

        from .._validation import check_sample_weight

        pred = self.predict(X)
        truth = self._from_unit(self._unit_labels(y, pred.size, check_only=True))
        weights = None if sample_weight is None else check_sample_weight(
            sample_weight, pred.size, f"{type(self).__name__}.score")
        return float(r2_score(truth, pred, sample_weight=weights))

    @checks_feature_names
    def predict(self, X: Any) -> np.ndarray:
        """wᵀx + b in the labels' units, clipped to ``label_range``."""
        check_fitted(self, "coef_")
        X_checked = check_array(X, f"{type(self).__name__}.predict", accept_sparse=True,
                                accept_dask=True, n_features=self.n_features_in_)
        lo, hi = self._label_bounds()
        if is_dask_collection(X_checked):  # the scores summed per chunk; n numbers come back
            from ..data.dask_rows import DaskRows

            raw = DaskRows(X_checked).matvec(self.coef_)
        else:
            raw = np.asarray(X_checked @ self.coef_).reshape(-1)
        return np.clip(raw + self.intercept_, lo, hi)
