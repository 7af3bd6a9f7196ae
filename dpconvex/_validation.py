"""Parameter and data validation shared by every estimator (scikit-learn message style)."""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Iterable
from typing import Any

import numpy as np
from sklearn.exceptions import DataConversionWarning

from .errors import DataTypeError, DataValidationError, NotFittedError, ParameterError


def check_float(
    name: str,
    value: Any,
    owner: str,
    *,
    low: float = 0.0,
    high: float = math.inf,
    low_inclusive: bool = False,
    high_inclusive: bool = False,
    allow_inf: bool = False,
) -> float:
    """Return ``value`` as a float in the stated interval, or raise :class:`ParameterError`."""
    lb = "[" if low_inclusive else "("
    hb = "]" if high_inclusive else ")"
    hs = "inf" if math.isinf(high) else f"{high:g}"
    rng = f"{lb}{low:g}, {hs}{hb}"
    msg = f"The '{name}' parameter of {owner} must be a float in {rng}. Got {value!r} instead."
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        raise ParameterError(msg)
    v = float(value)
    if math.isnan(v) or (math.isinf(v) and not allow_inf):
        raise ParameterError(msg)
    ok_low = v >= low if low_inclusive else v > low
    ok_high = v <= high if high_inclusive else v < high
    if math.isinf(v) and allow_inf and v > 0:
        ok_high = True
    if not (ok_low and ok_high):
        raise ParameterError(msg)
    return v


def check_int(name: str, value: Any, owner: str, *, low: int = 1) -> int:
    """Return ``value`` as an int >= low, or raise :class:`ParameterError`."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)):
        raise ParameterError(
            f"The '{name}' parameter of {owner} must be an int >= {low}. Got {value!r} instead."
        )
    if int(value) < low:
        raise ParameterError(
            f"The '{name}' parameter of {owner} must be an int >= {low}. Got {value!r} instead."
        )
    return int(value)


def check_option(name: str, value: Any, options: Iterable[Any], owner: str) -> Any:
    """Check ``value`` is one of ``options``."""
    options = list(options)
    if value not in options:
        raise ParameterError(
            f"The '{name}' parameter of {owner} must be one of {options!r}. Got {value!r} instead."
        )
    return value


def check_bool(name: str, value: Any, owner: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ParameterError(
            f"The '{name}' parameter of {owner} must be a bool. Got {value!r} instead."
        )
    return bool(value)


def check_array(X: Any, owner: str, *, name: str = "X", n_features: int | None = None,
                min_samples: int = 1) -> np.ndarray:
    """Validate a 2-D finite float matrix."""
    if hasattr(X, "toarray"):
        raise DataValidationError(
            f"{owner} got a sparse matrix for {name}; pass a dense array (X.toarray())."
        )
    raw = np.asarray(X) if not isinstance(X, list) else None
    if raw is not None and raw.dtype.kind == "c":
        raise DataValidationError(
            f"{owner}: Complex data not supported in {name}; pass real numbers (e.g. split real and "
            "imaginary parts into columns)."
        )
    try:
        A = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise DataTypeError(
            f"{owner}: {name} must be a 2-D array of numbers (n_samples, n_features); it could "
            f"not be converted to float ({exc}). Encode categorical columns first."
        ) from None
    if A.ndim != 2:
        raise DataValidationError(
            f"{owner}: {name} must be 2-D (n_samples, n_features); got an array with "
            f"{A.ndim} dimension(s) and shape {A.shape}. Reshape your data: a single feature with "
            "X.reshape(-1, 1) or a single sample with X.reshape(1, -1)."
        )
    if A.shape[0] < min_samples:
        raise DataValidationError(
            f"{owner}: {name} has {A.shape[0]} sample(s); at least {min_samples} are needed."
        )
    if A.shape[1] == 0:
        raise DataValidationError(
            f"{owner}: {name} has 0 feature(s) (shape={A.shape}) while a minimum of 1 is required."
        )
    if not np.all(np.isfinite(A)):
        bad = int(np.sum(~np.isfinite(A)))
        raise DataValidationError(
            f"{owner}: {name} contains {bad} NaN or infinite value(s). Impute or drop them "
            "before fitting (with a public rule: imputing from data statistics costs privacy)."
        )
    if n_features is not None and A.shape[1] != n_features:
        raise DataValidationError(
            f"{name} has {A.shape[1]} features, but {owner} is expecting {n_features} features "
            "as input (the number seen in fit)."
        )
    return A


def check_labels(y: Any, n_samples: int, owner: str) -> np.ndarray:
    """Validate a 1-D label vector of length n_samples."""
    if y is None:
        raise DataValidationError(
            f"{owner} requires y to be passed, but the target y is None. Pass the labels."
        )
    yy = np.asarray(y)
    if yy.ndim == 2 and yy.shape[1] == 1:
        warnings.warn(
            "A column-vector y was passed when a 1d array was expected; it was flattened. "
            f"Pass y.ravel() to {owner} to silence this.", DataConversionWarning, stacklevel=3)
        yy = yy.ravel()
    if yy.ndim != 1:
        raise DataValidationError(
            f"{owner}: y must be 1-D (n_samples,); got shape {yy.shape}. Use y.ravel()."
        )
    if yy.shape[0] != n_samples:
        raise DataValidationError(
            f"{owner}: X has {n_samples} rows but y has {yy.shape[0]} labels; they must match."
        )
    if yy.dtype.kind == "f" and not np.all(np.isfinite(yy)):
        raise DataValidationError(f"{owner}: y contains NaN or infinite labels; drop those rows.")
    if yy.dtype.kind == "O" and any(v is None for v in yy):
        raise DataValidationError(f"{owner}: y contains None labels; drop those rows.")
    if yy.dtype.kind == "f" and np.any(yy != np.round(yy)):
        raise DataValidationError(
            f"{owner}: Unknown label type: continuous. y must hold class labels; got "
            "non-integer floats (a regression target?). Encode the classes as ints or strings."
        )
    return yy


def row_norms(X: np.ndarray) -> np.ndarray:
    """Euclidean norm of every row (einsum: about 2x faster than ``np.linalg.norm(axis=1)``)."""
    return np.sqrt(np.einsum("ij,ij->i", X, X))


def clip_rows(X: np.ndarray, bound: float) -> tuple[np.ndarray, int]:
    """Scale every row of ``X`` with norm above ``bound`` down to norm ``bound``.

    ``bound`` is a public constant given by the user; it is never estimated
    from the data. Returns the clipped copy and the number of rows clipped.
    """
    norms = row_norms(X)
    over = norms > bound
    if not np.any(over):
        return X, 0
    Xc = X.copy()
    Xc[over] *= (bound / norms[over])[:, None]
    return Xc, int(over.sum())


def check_fitted(estimator: Any, attribute: str) -> None:
    """Raise :class:`NotFittedError` if ``estimator`` has no ``attribute`` yet."""
    if not hasattr(estimator, attribute):
        raise NotFittedError(
            f"This {type(estimator).__name__} instance is not fitted yet. Call 'fit' with "
            "appropriate arguments before using this estimator."
        )


class ClassifierScoreMixin:
    """``score`` that validates its labels like ``fit`` does (named errors, no silent mistakes).

    Labels never seen in ``fit`` raise :class:`DataValidationError` instead of being
    counted as mistakes.
    """

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Mean accuracy on (X, y)."""
        owner = type(self).__name__
        check_fitted(self, "classes_")
        Xv = check_array(X, owner)
        yv = check_labels(y, Xv.shape[0], owner)
        known = np.array([any(v == c for c in self.classes_) for v in yv.tolist()]) \
            if yv.dtype.kind == "O" or self.classes_.dtype.kind != yv.dtype.kind else \
            np.isin(yv, self.classes_)
        if not np.all(known):
            bad = sorted({repr(v) for v in yv[~known].tolist()})[:5]
            raise DataValidationError(
                f"{owner}.score: y has labels unseen in fit ({', '.join(bad)}); the model "
                f"knows {self.classes_.tolist()!r}. Map the labels to those classes."
            )
        pred = self.predict(Xv)
        correct = (pred == yv).astype(float)
        if sample_weight is None:
            return float(correct.mean())
        w = np.asarray(sample_weight, dtype=float)
        if w.shape != correct.shape:
            raise DataValidationError(
                f"{owner}.score: sample_weight has shape {w.shape}; it must be ({len(yv)},)."
            )
        return float(np.average(correct, weights=w))
