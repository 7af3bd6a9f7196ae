"""Parameter and data validation shared by every estimator (scikit-learn message style)."""

from __future__ import annotations

import datetime
import functools
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


#: Cap of every integer parameter without a tighter one of its own: 2**53, the largest
#: int float64 counts exactly (iteration counts and sizes enter float arithmetic, where
#: an int such as 10**400 does not even convert).
MAX_INT = 2**53
#: Cap of solver iterations (``max_iter``): a solve that has not met its tolerance in a
#: million iterations will not; the cap bounds the time of a fit.
MAX_ITER = 10**6
#: Cap of the float64 entries one parameter array may take (800 MB): a model or feature map
#: above it would not fit in memory on ordinary machines (checked where its shape is known).
MAX_ARRAY_ENTRIES = 10**8


def check_int(name: str, value: Any, owner: str, *, low: int = 1, high: int = MAX_INT,
              why: str = "") -> int:
    """Return ``value`` as an int in [low, high], or raise :class:`ParameterError`.

    Parameters
    ----------
    name, owner : str
        Parameter and owner named in the message.
    value : int or numpy integer
        bool, floats and non-numbers are refused.
    low, high : int
        The accepted range; ``high`` defaults to :data:`MAX_INT`.
    why : str
        The reason for ``high`` (memory, time), appended to the message of a value above it.
    """
    shown = _short_repr(value)
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)):
        raise ParameterError(
            f"The '{name}' parameter of {owner} must be an int >= {low}. Got {shown} instead."
        )
    if int(value) < low:
        raise ParameterError(
            f"The '{name}' parameter of {owner} must be an int >= {low}. Got {shown} instead."
        )
    if int(value) > high:
        reason = why or "larger values are not representable in the float64 arithmetic that uses it"
        raise ParameterError(
            f"The '{name}' parameter of {owner} must be an int in [{low}, {high:,}]: {reason}. "
            f"Got {shown} instead."
        )
    return int(value)


def check_array_entries(entries: int, what: str, owner: str, fix: str) -> None:
    """Refuse a parameter array of more than :data:`MAX_ARRAY_ENTRIES` float64 entries.

    ``entries`` is computed from public quantities (shapes and parameters), before the
    array is allocated; ``fix`` says which parameter to lower.
    """
    if entries > MAX_ARRAY_ENTRIES:
        raise ParameterError(
            f"{owner}: {what} would hold {entries:,} float64 entries, above the cap of "
            f"{MAX_ARRAY_ENTRIES:,} (800 MB) that keeps a fit in memory. {fix}"
        )


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


def computed(x: Any) -> Any:
    """``x``, or for a Dask collection its value, computed within the cluster timeouts.

    :func:`dpconvex.data.dask_rows.compute`: a dead or stuck cluster raises
    :class:`~dpconvex.errors.SolverError` instead of waiting forever.
    """
    if not is_dask_collection(x):
        return x
    from .data.dask_rows import compute

    return compute(x)[0]


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
    try:
        raw = np.asarray(X)
    except (TypeError, ValueError) as exc:  # ragged nested lists
        raise DataTypeError(
            f"{owner}: {name} must be a 2-D array of numbers (n_samples, n_features); it could "
            f"not be converted to float ({exc}). Encode categorical columns first."
        ) from None
    check_numeric_dtype(raw, owner, name)
    try:
        A = np.asarray(raw, dtype=np.float64)
    except OverflowError:
        raise DataValidationError(
            f"{owner}: {name} holds a number too large for float64 (above about 1.8e308); "
            "rescale that column with a public constant."
        ) from None
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


_TEXT_TYPES = (str, bytes, np.str_, np.bytes_)
_TIME_TYPES = (datetime.date, datetime.time, datetime.timedelta, np.datetime64, np.timedelta64)


def _is_missing_type(t: type) -> bool:
    return t is type(None) or (t.__module__.startswith("pandas")
                               and t.__name__ in ("NAType", "NaTType"))


def check_numeric_dtype(raw: np.ndarray, owner: str, name: str = "X") -> None:
    """Refuse what is not a real number, before any conversion to float64.

    scikit-learn's ``check_array(dtype="numeric")`` refuses string and bytes arrays
    but converts an object array of numeric strings ("1.5") and passes datetime64;
    here every one of these is refused, and so are complex numbers and missing
    values (None, pandas NA), each with a :class:`DataTypeError` (or
    :class:`DataValidationError`) that says what to change. Numeric kinds (bool,
    int, float) and object arrays of numbers pass.
    """
    kind = raw.dtype.kind
    if kind in "biuf":
        return
    if kind == "c":
        raise DataValidationError(
            f"{owner}: Complex data not supported in {name}; pass real numbers (e.g. split real and "
            "imaginary parts into columns)."
        )
    if kind in "US":
        raise DataTypeError(
            f"{owner}: {name} must be an array of numbers; it holds "
            f"{'strings' if kind == 'U' else 'bytes'} (dtype {raw.dtype}), and dpconvex does not "
            "read numbers from text: convert numeric columns yourself (e.g. "
            "X.astype(float) once they are checked). Encode categorical columns first."
        )
    if kind in "Mm":
        raise DataTypeError(
            f"{owner}: {name} holds {'dates' if kind == 'M' else 'time spans'} (dtype "
            f"{raw.dtype}); convert them to numbers with a public map first (e.g. days since a "
            "fixed date, divided by a public range)."
        )
    if kind != "O":
        raise DataTypeError(
            f"{owner}: {name} must be an array of numbers; got dtype {raw.dtype}. Convert it "
            "to a plain numeric array first."
        )
    types = set(map(type, raw.ravel().tolist()))
    if any(issubclass(t, _TEXT_TYPES) for t in types):
        raise DataTypeError(
            f"{owner}: {name} must be an array of numbers; it holds strings or bytes (in an "
            "object array), and dpconvex does not read numbers from text: convert numeric "
            "columns yourself (e.g. pandas.to_numeric). "
            "Encode categorical columns first."
        )
    if any(_is_missing_type(t) for t in types):
        raise DataValidationError(
            f"{owner}: {name} contains missing values (None or pandas NA). Impute or drop them "
            "before fitting (with a public rule: imputing from data statistics costs privacy)."
        )
    if any(issubclass(t, (complex, np.complexfloating)) for t in types):
        raise DataValidationError(
            f"{owner}: Complex data not supported in {name}; pass real numbers (e.g. split real and "
            "imaginary parts into columns)."
        )
    if any(issubclass(t, _TIME_TYPES) for t in types):
        raise DataTypeError(
            f"{owner}: {name} holds dates or times; convert them to numbers with a public map "
            "first (e.g. days since a fixed date, divided by a public range)."
        )


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
    if not np.all(np.isfinite(values)):  # the message counts nothing (a data statistic)
        raise DataValidationError(
            f"{owner}: {name} contains NaN or infinite values. Impute or drop them before "
            "fitting (with a public rule: imputing from data statistics costs privacy)."
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
    if any(issubclass(t, (complex, np.complexfloating)) for t in types):
        raise DataValidationError(_complex_labels(owner))
    if any(issubclass(t, (bytes, np.bytes_)) for t in types):
        raise DataTypeError(_bytes_labels(owner))
    kinds = {_label_kind(t) for t in types}
    if kinds == {"number"} and any(issubclass(t, (float, np.floating)) for t in types):
        floats = np.asarray([v for v in values if isinstance(v, (float, np.floating))], dtype=float)
        if np.any(floats != np.round(floats)):
            raise DataValidationError(_continuous_labels(owner))
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


def _complex_labels(owner: str) -> str:
    return (f"{owner}: Unknown label type: complex. y must hold class labels (ints or strings); "
            "got complex numbers. Encode the classes as ints or strings.")


def _bytes_labels(owner: str) -> str:
    return (f"{owner}: labels represented as bytes are not supported (as in scikit-learn). "
            "Decode them to strings first, e.g. y.astype(str).")


def _continuous_labels(owner: str) -> str:
    return (f"{owner}: Unknown label type: continuous. y must hold class labels; got "
            "non-integer floats (a regression target?). Encode the classes as ints or strings.")


def check_labels(y: Any, n_samples: int, owner: str) -> np.ndarray:
    """Validate a 1-D label vector of length n_samples.

    Raises :class:`DataValidationError` for missing labels (None, NaN, pandas
    NA; the message "None labels; drop those rows" is kept), labels of mixed
    types (e.g. str and int) that cannot be sorted into classes, a masked array
    with masked entries, a wrong shape, and the targets scikit-learn's
    ``type_of_target`` calls continuous (non-integer floats, also in object
    arrays) or refuses (complex numbers; bytes, a :class:`DataTypeError`).
    Labels that declare their label set (a :class:`dpconvex.labels.LabelArray`,
    a pandas categorical) come back as a ``LabelArray`` carrying it.
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
    if yy.dtype.kind == "c":
        raise DataValidationError(_complex_labels(owner))
    if yy.dtype.kind == "S":
        raise DataTypeError(_bytes_labels(owner))
    if yy.dtype.kind == "f" and not np.all(np.isfinite(yy)):
        raise DataValidationError(f"{owner}: y contains NaN or infinite labels; drop those rows.")
    if yy.dtype.kind == "O":
        _check_label_values(yy, owner)
    elif yy.dtype.kind in "US" and not isinstance(y, np.ndarray):
        # np.asarray(["a", 1]) or (["a", nan]) silently turns every label into a string
        _check_label_values(np.asarray(y, dtype=object).ravel(), owner)
    if yy.dtype.kind == "f" and np.any(yy != np.round(yy)):
        raise DataValidationError(_continuous_labels(owner))
    from .labels import LabelArray, declared_classes

    declared = declared_classes(y)  # a label set declared with y travels with the labels
    return yy if declared is None else LabelArray(yy, declared)


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


def feature_names_of(X: Any, owner: str) -> np.ndarray | None:
    """The column names of a data frame (pandas, Dask) when they are all strings, else None.

    As scikit-learn: a frame whose names are all strings has feature names; one
    with no string name (e.g. the default 0, 1, ...) has none; mixing string and
    non-string names is refused with :class:`DataTypeError`.
    """
    if isinstance(X, np.ndarray) or not hasattr(X, "columns"):
        return None
    try:
        names = list(X.columns)
    except TypeError:
        return None
    strings = sum(isinstance(v, str) for v in names)
    if strings == 0:
        return None
    if strings < len(names):
        kinds = sorted({type(v).__name__ for v in names})
        raise DataTypeError(
            f"{owner}: feature names are only supported when every column name is a string; "
            f"the columns of X have names of types {kinds}. Convert them, e.g. "
            "X.columns = X.columns.astype(str)."
        )
    return np.asarray(names, dtype=object)


def check_feature_names(estimator: Any, X: Any) -> None:
    """Refuse a frame whose columns differ from ``feature_names_in_`` (reordered, renamed, missing).

    A model fitted on a frame records ``feature_names_in_``; at predict time a
    frame must have the same columns in the same order (a reordered frame would
    silently feed each coefficient the wrong column). Arrays without names, and
    frames passed to a model fitted without names, are taken as they are.
    """
    fitted = getattr(estimator, "feature_names_in_", None)
    owner = type(estimator).__name__
    names = feature_names_of(X, owner)
    if fitted is None or names is None:
        return
    if len(names) == len(fitted) and all(a == b for a, b in zip(names, fitted, strict=True)):
        return
    unseen = sorted(set(names) - set(fitted))
    missing = sorted(set(fitted) - set(names))

    def listed(values: list[str]) -> str:
        return "".join(f"- {v}\n" for v in values[:5]) + ("- ...\n" if len(values) > 5 else "")

    message = f"{owner}: The feature names should match those that were passed during fit.\n"
    if unseen:
        message += "Feature names unseen at fit time:\n" + listed(unseen)
    if missing:
        message += "Feature names seen at fit time, yet now missing:\n" + listed(missing)
    if not unseen and not missing:
        message += "Feature names must be in the same order as they were in fit.\n"
    raise DataValidationError(
        message + "Select the fitted columns in the fitted order: X[model.feature_names_in_]."
    )


def with_feature_names(estimator: Any, names: np.ndarray | None) -> Any:
    """Record ``feature_names_in_`` at the end of a successful fit; return the estimator.

    ``names`` comes from :func:`feature_names_of` on the X of the fit, read (and
    mixed name types refused) before any other step, so a refused fit leaves no
    attribute behind; a fit on an array removes the names of an earlier fit on a
    frame. Each ``fit`` calls it on its return path (a decorator would add a frame
    between the caller and the fit's warnings).
    """
    if names is None:
        estimator.__dict__.pop("feature_names_in_", None)
    else:
        estimator.feature_names_in_ = names
    return estimator


def checks_feature_names(method: Any) -> Any:
    """Decorate ``method(self, X, ...)`` (predict, transform, score, ...) with :func:`check_feature_names`."""
    @functools.wraps(method)
    def wrapper(self: Any, X: Any, *args: Any, **kwargs: Any) -> Any:
        check_feature_names(self, X)
        return method(self, X, *args, **kwargs)
    return wrapper


def check_sample_weight(sample_weight: Any, n: int, owner: str) -> np.ndarray:
    """Validate score weights: real, finite, >= 0, shape (n,), not all zero; scaled to max 1.

    Returns the weights divided by their largest value (the weighted mean is
    unchanged and its sum cannot overflow).
    """
    if isinstance(sample_weight, (numbers.Real, np.number)) and not isinstance(sample_weight, bool):
        raise DataValidationError(
            f"{owner}: sample_weight must be an array of shape ({n},), one weight per sample; "
            f"got a scalar. Pass None for equal weights."
        )
    try:
        raw = np.asarray(sample_weight)
    except (TypeError, ValueError) as exc:
        raise DataTypeError(f"{owner}: sample_weight must be an array of numbers ({exc}).") from None
    check_numeric_dtype(raw, owner, "sample_weight")
    try:
        w = np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError, OverflowError) as exc:
        raise DataTypeError(
            f"{owner}: sample_weight must be an array of float64 numbers ({exc})."
        ) from None
    if w.shape != (n,):
        raise DataValidationError(
            f"{owner}: sample_weight has shape {w.shape}; it must be ({n},), one weight per sample."
        )
    if not np.all(np.isfinite(w)):
        raise DataValidationError(
            f"{owner}: sample_weight contains NaN or infinite values; pass finite weights."
        )
    if np.any(w < 0):
        raise DataValidationError(f"{owner}: sample_weight contains negative values; weights "
                                  "must be >= 0.")
    top = float(np.max(w))
    if top == 0.0:
        raise DataValidationError(f"{owner}: every sample_weight is zero; at least one weight "
                                  "must be positive.")
    return w / top


class ClassifierScoreMixin:
    """``score`` that validates its labels like ``fit`` does (named errors, no silent mistakes).

    Labels never seen in ``fit`` raise :class:`DataValidationError` instead of being
    counted as mistakes.
    """

    @checks_feature_names
    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Mean accuracy on (X, y), weighted by ``sample_weight`` (finite, >= 0, not all 0)."""
        owner = type(self).__name__
        check_fitted(self, "classes_")
        sparse_ok = bool(getattr(self.__sklearn_tags__().input_tags, "sparse", False)) \
            if hasattr(self, "__sklearn_tags__") else False
        # Dask rows pass here; predict() refuses them where the estimator has no Dask backend
        Xv = check_array(X, owner, accept_sparse=sparse_ok, accept_dask=True)
        yv = check_labels(computed(y), Xv.shape[0], owner)
        known = np.array([any(v == c for c in self.classes_) for v in yv.tolist()]) \
            if yv.dtype.kind == "O" or self.classes_.dtype.kind != yv.dtype.kind else \
            np.isin(yv, self.classes_)
        if not np.all(known):
            bad = sorted({repr(v) for v in yv[~known].tolist()})[:5]
            raise DataValidationError(
                f"{owner}.score: y has labels unseen in fit ({', '.join(bad)}); the model "
                f"knows {self.classes_.tolist()!r}. Map the labels to those classes."
            )
        w = None if sample_weight is None else check_sample_weight(sample_weight, len(yv),
                                                                    f"{owner}.score")
        pred = self.predict(Xv)
        correct = (pred == yv).astype(float)
        if w is None:
            return float(correct.mean())
        return float(np.average(correct, weights=w))
