"""The labels of a private regression: a public range, two per-record maps, and their inverse.

Every regressor reads each label through two maps that depend on the record and public
constants only (docs/privacy.md §15.4): clipping to the public ``label_range`` = (lo, hi),
then u = (2y − lo − hi)/(hi − lo) ∈ [−1, 1]. The model θ is fitted on u; coefficients and
intercept are mapped back (×(hi − lo)/2, + (lo + hi)/2) by post-processing, and predictions
are clipped to the range. :class:`LabelRangeMixin` holds these maps once for
:class:`~dpconvex.PrivateLinearRegressor` and :class:`~dpconvex.PrivateLinearRegression`.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from sklearn.exceptions import DataConversionWarning

from .._diagnostics import record_diagnostic
from .._validation import (
    Constraint,
    _reject_masked,
    check_fitted,
    checks_feature_names,
    is_dask_collection,
)
from ..data.validation import check_array, computed
from ..errors import DataValidationError, ParameterError, PrivacyWarning
from ..objectives.losses import parse_label_range

__all__ = ["LabelRange", "LabelRangeMixin"]


class LabelRange(Constraint):
    """(lo, hi), finite floats with lo < hi: the labels' public range.

    Examples
    --------
    >>> from dpconvex.estimators.label_range import LabelRange
    >>> LabelRange().check("label_range", (0, 10), "Demo")
    (0.0, 10.0)
    """

    def check(self, name: str, value: Any, owner: str) -> Any:
        parsed = parse_label_range(value)
        if parsed is None:
            raise ParameterError(f"The '{name}' parameter of {owner} must be {self}. Got "
                                 f"{value!r} instead.")
        return parsed

    def __str__(self) -> str:
        return "(lo, hi) with finite lo < hi, the public range of the labels"


class LabelRangeMixin:
    """Labels mapped onto [−1, 1] by the public ``label_range``; the model mapped back.

    The host has ``label_range``, ``fit_intercept`` and ``intercept_scaling`` parameters;
    ``_set_coefficients`` sets ``coef_``, ``intercept_`` and ``n_features_in_``.
    """

    def public_shape(self, X: Any, y: Any) -> tuple[int, int, int]:
        """(n, 1, n_features): a regression has no label set to read."""
        n, _, p = super().public_shape(X, np.zeros(1))
        return n, 1, p

    def _label_count(self, y: Any, n: int) -> int:
        return 1

    def _label_bounds(self) -> tuple[float, float]:
        lo, hi = (float(v) for v in self.label_range)
        return lo, hi

    def _label_note(self) -> str:
        """The certificate's line on the label maps (public)."""
        lo, hi = self._label_bounds()
        return (f"labels clipped to the public label_range [{lo:g}, {hi:g}] and mapped onto "
                "[-1, 1] (per-record public maps); predictions mapped back and clipped")

    def _unit_labels(self, y: Any, n: int, owner: str = "", *, check_only: bool = False
                     ) -> np.ndarray:
        """Labels clipped to the public range (warned) and mapped onto [−1, 1]; with
        ``check_only`` (score), the labels as given, validated, on the same scale.

        Labels held by Dask are brought to the driver once (8n bytes); a column vector is
        flattened with scikit-learn's warning. The map adds one n-vector, written in place.
        """
        caller = owner or f"{type(self).__name__}.score"
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
                              DataConversionWarning, stacklevel=4)
                raw = raw.ravel()
            if np.iscomplexobj(raw) or raw.ndim != 1 or raw.dtype.kind not in "biufO":
                raise TypeError
            values = raw.astype(float, copy=False).reshape(-1)  # read, never written
        except (TypeError, ValueError):
            raise DataValidationError(f"{caller}: y must hold numbers (a "
                                      "regression's labels). Convert it to floats first.") from None
        if values.size != n:
            raise DataValidationError(f"{caller}: y has {values.size} labels for "
                                      f"{n} rows. Pass one label per row.")
        if not np.all(np.isfinite(values)):
            raise DataValidationError(f"{caller}: y has labels that are not finite "
                                      "(NaN or inf). Remove or impute them first.")
        lo, hi = self._label_bounds()
        if check_only:
            return (2.0 * values - lo - hi) / (hi - lo)
        unit = np.clip(values, lo, hi)  # the one n-vector a fit adds (no temporaries beside it)
        moved = int(np.count_nonzero(unit != values))
        record_diagnostic(owner, f"labels clipped to label_range=[{lo:g}, {hi:g}] (outside it)",
                          moved, n)
        if moved:
            warnings.warn(
                f"{owner}: labels outside the public label_range [{lo:g}, {hi:g}] were clipped to "
                "it (a per-record map; the count is a statistic of the data and is not shown). "
                "Widen label_range if the range is not what the documentation gives.",
                PrivacyWarning, stacklevel=4)
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
        lo, hi = self._label_bounds()
        truth = (self._unit_labels(y, pred.size, check_only=True) * 0.5 * (hi - lo)
                 + 0.5 * (hi + lo))
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
