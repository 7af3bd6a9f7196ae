"""Parameter and data validation shared by every estimator (scikit-learn message style)."""

from __future__ import annotations

import math
import numbers
import sys
import warnings
from collections.abc import Iterable
from typing import Any

import numpy as np
from sklearn.exceptions import DataConversionWarning

from .errors import DataTypeError, DataValidationError, NotFittedError, ParameterError

#: Accepted magnitudes of a nonzero float parameter (documented in :func:`check_float`).
#: dpconvex computes in float64; outside this range products such as n·λ, ε/Δ or
#: the noise scale Δ/ε over- or underflow (e.g. ``lam=1e308`` made n·λ = inf and
#: the sensitivity 0; ``epsilon=5e-324`` made ε/(4r) = 0 and divided by zero).
MIN_MAGNITUDE = 1e-100
MAX_MAGNITUDE = 1e100


def _short_repr(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters (huge ints cannot even be printed)."""
    try:
        text = repr(value)
    except ValueError:  # int above sys.get_int_max_str_digits()
        return f"an int of about {int(value.bit_length() * 0.30103)} digits"
    return text if len(text) <= limit else text[: limit - 3] + "..."


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
    magnitude: bool = True,
) -> float:
    """Return ``value`` as a float in the stated interval, or raise :class:`ParameterError`.

    Parameters
    ----------
    name, owner : str
        Parameter and owner named in the message.
    value : int, float, numpy scalar or fractions.Fraction
        bool and non-numbers are refused; a number too large for float64
        (``10**400``, a huge ``Fraction``) is refused, not rounded to inf.
    low, high, low_inclusive, high_inclusive : float, bool
        The interval.
    allow_inf : bool, default=False
        Accept +inf (e.g. an unlimited budget).
    magnitude : bool, default=True
        Also require a nonzero finite value to have magnitude in
        [:data:`MIN_MAGNITUDE`, :data:`MAX_MAGNITUDE`] = [1e-100, 1e100], so that
        the calibrations (products and quotients of a few parameters and n) stay
        finite and nonzero in float64. 0 passes when the interval allows it.

    Returns
    -------
    float

    Raises
    ------
    ParameterError
        With the accepted range in the message.
    """
    lb = "[" if low_inclusive else "("
    hb = "]" if high_inclusive else ")"
    hs = "inf" if math.isinf(high) else f"{high:g}"
    rng = f"{lb}{low:g}, {hs}{hb}"
    shown = _short_repr(value)
    msg = f"The '{name}' parameter of {owner} must be a float in {rng}. Got {shown} instead."
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        raise ParameterError(msg)
    try:
        v = float(value)
    except (OverflowError, ValueError, TypeError):
        raise ParameterError(
            f"The '{name}' parameter of {owner} must be a finite float in {rng}; {shown} does "
            "not fit in a float64 (largest about 1.8e308). Pass a float of magnitude at most "
            f"{MAX_MAGNITUDE:g}."
        ) from None
    if math.isnan(v) or (math.isinf(v) and not allow_inf):
        raise ParameterError(msg)
    ok_low = v >= low if low_inclusive else v > low
    ok_high = v <= high if high_inclusive else v < high
    if math.isinf(v) and allow_inf and v > 0:
        ok_high = True
    if not (ok_low and ok_high):
        raise ParameterError(msg)
    if magnitude and math.isfinite(v) and v != 0.0 and not (
            MIN_MAGNITUDE <= abs(v) <= MAX_MAGNITUDE):
        raise ParameterError(
            f"The '{name}' parameter of {owner} must be a float in {rng} of magnitude between "
            f"{MIN_MAGNITUDE:g} and {MAX_MAGNITUDE:g}: outside that range float64 products "
            "such as n*lam or epsilon/sensitivity overflow or underflow (division by zero, "
            f"infinite noise). Got {shown} instead."
        )
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


def is_dask_collection(x: Any) -> bool:
    """Whether ``x`` is a Dask collection (array, DataFrame, Series); never imports Dask."""
    dask = sys.modules.get("dask")
    return dask is not None and bool(dask.is_dask_collection(x))


def check_array(X: Any, owner: str, *, name: str = "X", n_features: int | None = None,
                min_samples: int = 1, accept_sparse: bool = False, accept_dask: bool = False) -> Any:
    """Validate a 2-D finite float matrix.

    With ``accept_sparse=True`` a SciPy sparse matrix (CSR, CSC, ...) is checked
    on its stored entries and returned as a float64 ``csr_array``, never
    densified (:func:`dpconvex.data.operators.check_sparse`); otherwise it is
    refused. With ``accept_dask=True`` a ``dask.array.Array`` or a Dask DataFrame
    of numeric columns is checked on the cluster and returned as a float64 Dask
    array, never computed into memory (:func:`dpconvex.data.dask_rows.check_dask`);
    otherwise it is refused.
    """
    if is_dask_collection(X):
        if accept_dask:
            from .data.dask_rows import check_dask

            return check_dask(X, owner, name=name, n_features=n_features, min_samples=min_samples)
        raise DataValidationError(
            f"{owner} does not take Dask input for {name} yet; pass {name}.compute() if it fits "
            "in memory, or use an estimator with a Dask backend (PrivateLogisticRegression, "
            "PrivateHuberSVM, PrivateLinearClassifier)."
        )
    if hasattr(X, "toarray"):
        if accept_sparse:
            from .data.operators import check_sparse

            return check_sparse(X, owner, name=name, n_features=n_features,
                                min_samples=min_samples)
        raise DataValidationError(
            f"{owner} got a sparse matrix for {name}; pass a dense array (X.toarray())."
        )
    _reject_masked(X, owner, name)
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
    return check_matrix_body(A, A, owner, name, min_samples, n_features)


def check_matrix_body(A: Any, values: np.ndarray, owner: str, name: str, min_samples: int,
                      n_features: int | None) -> Any:
    """Shape and finiteness checks shared by dense and sparse input (``values``: the stored ones)."""
    if A.shape[0] < min_samples:
        raise DataValidationError(
            f"{owner}: {name} has {A.shape[0]} sample(s); at least {min_samples} are needed."
        )
    if A.shape[1] == 0:
        raise DataValidationError(
            f"{owner}: {name} has 0 feature(s) (shape={A.shape}) while a minimum of 1 is required."
        )
    if not np.all(np.isfinite(values)):
        bad = int(np.sum(~np.isfinite(values)))
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


def _reject_masked(A: Any, owner: str, name: str) -> None:
    """Refuse a :class:`numpy.ma.MaskedArray` with masked entries (np.asarray drops the mask)."""
    if isinstance(A, np.ma.MaskedArray) and np.ma.is_masked(A):
        raise DataValidationError(
            f"{owner}: {name} is a masked array with masked entries; converting it would "
            "silently use the hidden values. Drop those rows, or fill them with a public "
            f"value ({name}.filled(value)) before fitting."
        )


def _label_kind(t: type) -> str:
    if issubclass(t, (str, np.str_)):
        return "str"
    if issubclass(t, (numbers.Number, np.number, np.bool_)):
        return "number"
    return t.__name__


def _check_label_values(values: np.ndarray, owner: str) -> None:
    """Object (or mixed) labels: no missing values, one sortable kind (all str or all numbers).

    Works on the set of the labels' types (one fast pass), looking at values only
    when some are floats (which may be NaN).
    """
    types = set(map(type, values))
    missing = None
    if type(None) in types:
        missing = "None"
    elif any(t.__module__.startswith("pandas") and t.__name__ in ("NAType", "NaTType")
             for t in types):
        missing = "pandas NA"
    elif any(issubclass(t, (float, np.floating)) for t in types):
        floats = [v for v in values if isinstance(v, (float, np.floating))]
        if np.any(np.isnan(np.asarray(floats, dtype=float))):
            missing = "NaN"
    if missing is not None:
        raise DataValidationError(
            f"{owner}: y contains {missing} labels; drop those rows or give them a real class "
            "label (a missing label cannot be a class)."
        )
    kinds = {_label_kind(t) for t in types}
    if len(kinds) > 1:  # DataValidationError, as tests/test_input_boundary.py expects exactly
        raise DataValidationError(
            f"{owner}: y mixes label types ({', '.join(sorted(kinds))}), so the labels in y "
            "cannot be sorted into classes. Use labels of one type, e.g. y.astype(str)."
        )
    if kinds and kinds.pop() not in ("str", "number"):
        try:
            np.unique(values)
        except TypeError as exc:
            raise DataValidationError(
                f"{owner}: the labels in y cannot be sorted ({exc}). Use labels of one type "
                "(str or int)."
            ) from None


def check_labels(y: Any, n_samples: int, owner: str) -> np.ndarray:
    """Validate a 1-D label vector of length n_samples.

    Raises :class:`DataValidationError` for missing labels (None, NaN, pandas
    NA; the message "None labels; drop those rows" is kept), labels of mixed
    types (e.g. str and int) that cannot be sorted into classes, a masked array
    with masked entries, or a wrong shape.
    """
    if y is None:
        raise DataValidationError(
            f"{owner} requires y to be passed, but the target y is None. Pass the labels."
        )
    _reject_masked(y, owner, "y")
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
    if yy.dtype.kind == "O":
        _check_label_values(yy, owner)
    elif yy.dtype.kind in "US" and not isinstance(y, np.ndarray):
        # np.asarray(["a", 1]) or (["a", nan]) silently turns every label into a string
        _check_label_values(np.asarray(y, dtype=object).ravel(), owner)
    if yy.dtype.kind == "f" and np.any(yy != np.round(yy)):
        raise DataValidationError(
            f"{owner}: Unknown label type: continuous. y must hold class labels; got "
            "non-integer floats (a regression target?). Encode the classes as ints or strings."
        )
    return yy


#: Below this sum of squares the einsum path may have lost precision to underflow.
_SQ_TINY = np.finfo(np.float64).tiny * 2.0**54


def _scaled_norms(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return (m, u) with m the max-abs of each row and u = ||row / m|| in [1, sqrt(d)].

    ``m * u`` is the row norm computed without overflow or underflow (the
    scaling of LAPACK's nrm2 and ``np.hypot``); zero rows give m = 0, u = 0.
    """
    m = np.max(np.abs(X), axis=1) if X.shape[1] else np.zeros(X.shape[0])
    safe = np.where(m > 0, m, 1.0)
    Z = X / safe[:, None]
    return m, np.sqrt(np.einsum("ij,ij->i", Z, Z))


def row_norms(X: np.ndarray) -> np.ndarray:
    """Euclidean norm of every row, without overflow for entries up to the float64 maximum.

    Uses einsum (about 2x faster than ``np.linalg.norm(axis=1)``) and recomputes,
    scaled by the row's max-abs entry, the rows whose sum of squares overflowed
    (entries above ~1e154) or fell into the subnormal range (entries below
    ~1e-154). A norm above the float64 maximum (~1.8e308) is returned as inf.
    """
    X = np.asarray(X, dtype=float)
    sq = np.einsum("ij,ij->i", X, X)
    norms = np.sqrt(sq)
    redo = ~np.isfinite(sq) | (sq < _SQ_TINY)
    if np.any(redo):
        m, u = _scaled_norms(X[redo])
        with np.errstate(over="ignore"):
            norms[redo] = m * u
    return norms


def clip_rows(X: np.ndarray, bound: float) -> tuple[np.ndarray, int]:
    """Scale every row of ``X`` with norm above ``bound`` down to norm ``bound``.

    ``bound`` is a public constant given by the user; it is never estimated
    from the data. Returns the clipped copy and the number of rows clipped.
    Rows with huge entries are clipped correctly: ``[1e200, 1e200]`` with bound
    1 becomes ``[0.7071, 0.7071]`` (earlier versions overflowed the norm and
    returned the zero vector), and a row whose norm exceeds the float64 maximum
    is divided by its max-abs entry before scaling.
    """
    norms = row_norms(X)
    over = norms > bound
    if not np.any(over):
        return X, 0
    Xc = np.array(X, dtype=float, copy=True)
    finite = over & np.isfinite(norms)
    Xc[finite] *= (bound / norms[finite])[:, None]
    huge = over & ~np.isfinite(norms)
    if np.any(huge):
        m, u = _scaled_norms(Xc[huge])
        Xc[huge] = (Xc[huge] / m[:, None]) * (bound / u)[:, None]
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
        sparse_ok = bool(getattr(self.__sklearn_tags__().input_tags, "sparse", False)) \
            if hasattr(self, "__sklearn_tags__") else False
        # Dask rows pass here; predict() refuses them where the estimator has no Dask backend
        Xv = check_array(X, owner, accept_sparse=sparse_ok, accept_dask=True)
        yv = check_labels(y.compute() if is_dask_collection(y) else y, Xv.shape[0], owner)
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
