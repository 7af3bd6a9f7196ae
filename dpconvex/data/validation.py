"""Checks of the rows X and the labels y, in any supported form: validated, wrapped, encoded.

The rows: :func:`check_array` checks X once, by its form, without copying or densifying it:
a float64 ndarray is read as it is, another dense form converted to float64 once
(:func:`~dpconvex._validation.float_matrix`: masked entries, what is not a real number and
numbers beyond float64 refused by name), SciPy sparse rows by
:func:`~dpconvex.data.operators.check_sparse` and Dask rows by
:func:`~dpconvex.data.dask_rows.check_dask` (imported only for Dask input); every form ends
in :func:`~dpconvex._validation.check_matrix_body` (shape and finiteness).
:func:`as_design` wraps checked rows as a design operator. The checks of an array's entries
live in :mod:`dpconvex._validation`, which the operators below this module import too.

The labels: the label set of a classifier is a public parameter, never read from one record.
It fixes the class count C (the model's shape, the noise dimension, the sensitivity), the
label → index map and the +1 label of a binary model. A fit takes it from ``classes=``, else
from a set declared with y (:class:`LabelArray`, a pandas categorical), else from y with one
:class:`~dpconvex.errors.PrivacyLeakWarning` (label source :data:`INFERRED`); labels outside a
public set follow ``unknown_labels`` (docs/privacy/messages.md#privacy-messages,
docs/privacy/messages.md#privacy-unknown-labels). :func:`check_labels` checks y once (its
shape, and its values by their dtype); :func:`encode_labels` takes the public set once
(``classes=`` and a set declared with y, each checked by :func:`check_classes`, the two
agreeing) and encodes y against it.
"""

from __future__ import annotations

import decimal
import fractions
import math
import numbers
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import DataConversionWarning

from .._validation import (
    Options,
    _is_missing_type,
    _reject_masked,
    _short_repr,
    check_matrix_body,
    float_matrix,
    is_dask_collection,
)
from ..errors import (
    DataTypeError,
    DataValidationError,
    ParameterError,
    PrivacyLeakWarning,
    diagnostics_open,
    record_diagnostic,
    user_stacklevel,
)
from ..privacy.certificate import LabelSource
from .operators import CSRRows, DenseRows, DesignOperator, ScaledRows, check_sparse
from .ranged_rows import PublicArray

__all__ = ["INFERRED", "INFERRED_WARNING", "LABEL_POLICY", "UNKNOWN_LABELS", "LabelArray",
           "LabelSet", "LabelWarning", "as_design", "check_array", "check_classes",
           "check_excluded", "check_labels", "check_numeric_labels", "computed",
           "declared_classes", "encode_labels", "flattened_column", "label_set_of",
           "row_products", "zero_rows"]


# ------------------------------------------------------------------ the rows X
def computed(x: Any) -> Any:
    """``x``, or for a Dask collection its value, computed within the cluster timeouts.

    :func:`dpconvex.data.dask_rows.compute`: a dead or stuck cluster raises
    :class:`~dpconvex.errors.SolverError` instead of waiting forever.

    Parameters
    ----------
    x : object
        A value, or a Dask collection.

    Returns
    -------
    object
        ``x``, or the Dask collection's computed value.

    Raises
    ------
    SolverError
        The Dask cluster is dead or stuck.

    Examples
    --------
    >>> computed(np.arange(3)).tolist()
    [0, 1, 2]
    """
    if not is_dask_collection(x):
        return x
    from .dask_rows import compute

    out = compute(x)[0]  # categories Dask did not know are the data's, not a declared set
    return out if getattr(getattr(x, "cat", None), "known", True) else np.asarray(out)


def row_products(X: Any, W: np.ndarray, raw: np.ndarray | None = None) -> np.ndarray:
    """``X @ W`` of checked rows (or that product ``raw``, made elsewhere): a row whose product
    overflowed (a sum through inf, or inf − inf) is multiplied scaled by its largest entry.

    Parameters
    ----------
    X : ndarray, sparse array or design operator
        Checked rows.
    W : ndarray
        The weights (a vector or a matrix).
    raw : ndarray or None, default=None
        ``X @ W`` made elsewhere (None: computed here).

    Returns
    -------
    ndarray
        ``X @ W``, its overflowed rows recomputed.

    Examples
    --------
    >>> row_products(np.array([[1e308, 1e308], [1.0, 2.0]]), np.array([2.0, -1.0])).tolist()
    [1e+308, 0.0]
    """
    with np.errstate(over="ignore", invalid="ignore"):
        raw = np.array(X @ W if raw is None else raw, dtype=float)  # written below: a copy
        bad = np.flatnonzero(~np.isfinite(raw).reshape(len(raw), -1).all(axis=1))
        if bad.size:
            rows = computed(X[bad])
            rows = np.asarray(rows.toarray() if sp.issparse(rows) else rows, dtype=float)
            m = np.max(np.abs(rows), axis=1)
            out = (rows / m[:, None]) @ W
            raw[bad] = out * m.reshape((-1,) + (1,) * (out.ndim - 1))
    return raw


def check_array(
    X: Any,
    caller: str,
    *,
    name: str = "X",
    n_features: int | None = None,
    min_samples: int = 1,
    accept_sparse: bool = False,
    accept_dask: bool = False,
) -> Any:
    """Validate a 2-D finite float matrix; ``caller`` ("Owner.method") opens every message.

    SciPy sparse rows (``accept_sparse``) come back as a float64 ``csr_array``, never densified; Dask rows
    (``accept_dask``: an array or a DataFrame of numeric columns) as a float64 Dask array checked on the
    cluster, never computed into memory. Without the flag, either is refused.

    Parameters
    ----------
    X : array-like
        The rows.
    caller : str
        "Owner.method", opening every message.
    name : str, default="X"
        What the messages call the rows.
    n_features : int or None, default=None
        The number of columns required (None: any).
    min_samples : int, default=1
        The fewest rows accepted.
    accept_sparse : bool, default=False
        Accept SciPy sparse rows.
    accept_dask : bool, default=False
        Accept Dask rows.

    Returns
    -------
    ndarray, scipy.sparse.csr_array or dask.array.Array
        The rows as float64.

    Raises
    ------
    DataValidationError
        None, not 2-D, too few rows, the wrong number of columns, a value that is not a
        finite number, or sparse or Dask rows without their flag.

    Examples
    --------
    >>> check_array([[1, 2], [3, 4]], "Doc.fit").dtype
    dtype('float64')
    """
    if X is None:
        raise DataValidationError(
            f"{caller}: {name} is None; pass a 2-D array of numbers (n_samples, n_features)."
        )
    if is_dask_collection(X):
        if accept_dask:
            from .dask_rows import check_dask

            return check_dask(X, caller, name=name, n_features=n_features, min_samples=min_samples)
        raise DataValidationError(
            f"{caller}: does not take Dask input for {name} yet; pass {name}.compute() if it fits "
            "in memory, or use an estimator with a Dask backend (PrivateLogisticRegression, "
            "PrivateHuberSVM, PrivateLinearClassifier)."
        )
    if hasattr(X, "toarray"):
        if accept_sparse:
            return check_sparse(
                X, caller, name=name, n_features=n_features, min_samples=min_samples
            )
        raise DataValidationError(
            f"{caller}: got a sparse matrix for {name}; pass a dense array (X.toarray())."
        )
    A = float_matrix(X, caller, name)
    return check_matrix_body(A, A, caller, name, min_samples, n_features)


def as_design(X: Any) -> DesignOperator:
    """Wrap rows as a design operator: an operator as is, SciPy sparse as CSR, else dense.

    Parameters
    ----------
    X : array-like, sparse matrix or DesignOperator
        The rows.

    Returns
    -------
    DesignOperator

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from dpconvex.data import as_design
    >>> type(as_design(np.ones((3, 2)))).__name__, type(as_design(sp.eye(3))).__name__
    ('DenseRows', 'CSRRows')
    """
    # the concrete operators first: the protocol check would read .matrix
    if isinstance(X, (DenseRows, CSRRows, ScaledRows)) or isinstance(X, DesignOperator):
        return X
    if type(X).__module__.startswith("dask."):  # a dask.array: the rows stay on the workers
        from .dask_rows import DaskRows
        return DaskRows(X)
    if sp.issparse(X):
        return CSRRows(X)
    return DenseRows(X)


# ------------------------------------------------------ the public label set
#: The certificate's label source when the label set is read from the data.
INFERRED = LabelSource("inferred")

#: The text of the :class:`~dpconvex.errors.PrivacyLeakWarning` (after the owner's name).
INFERRED_WARNING = (
    "the label set was read from the data (classes=None) and is treated as public: it fixes "
    "the model's classes, so one record with a new label changes the released model. Pass the "
    "public label set, e.g. classes=[0, 1] (or y as the dpconvex.datasets loaders return it, "
    "or a pandas Categorical with the public categories)."
)

#: The values of the estimators' ``unknown_labels`` parameter: refuse a fit with a label
#: outside the public label set, or fit with such records contributing no loss.
UNKNOWN_LABELS = ("raise", "ignore")


#: The rule of the estimators' ``unknown_labels`` parameter (a ``_parameter_constraints``
#: entry): one of :data:`UNKNOWN_LABELS`.
LABEL_POLICY = Options(UNKNOWN_LABELS, meaning=(
    "'raise' refuses a fit where a label of y is outside classes=, 'ignore' fits with those "
    "records contributing no loss"))


class LabelArray(PublicArray):
    """Labels that carry their public label set (``classes``): a NumPy array in every other way.

    The bundled loaders return y so: a fit on their labels needs no ``classes=``. Slices,
    fancy indexing, copies and pickles keep the set (in class-index order); ufuncs and
    reductions (``y == 1``, ``y.sum()``) give plain arrays and scalars; a conversion between
    numbers and strings drops it, as does ``np.asarray(y)``.

    Examples
    --------
    >>> y = LabelArray([0, 1, 1], classes=[0, 1])
    >>> y[:2].classes.tolist(), type(y == 1).__name__
    ([0, 1], 'ndarray')
    """

    fact = "classes"
    classes: np.ndarray | None

    def __new__(cls, values: Any, classes: Any) -> LabelArray:
        return super().__new__(cls, values, np.array(list(classes)))  # type: ignore[return-value]

    def __array_finalize__(self, obj: Any) -> None:
        if obj is None:
            return
        c = getattr(obj, "classes", None)
        same = self.dtype.kind == obj.dtype.kind or (
            self.dtype.kind in "biuf" and obj.dtype.kind in "biuf"
        )
        self.classes = c if same else None


def declared_classes(y: Any) -> np.ndarray | None:
    """The label set declared with ``y`` (a :class:`LabelArray`, a pandas categorical), or None.

    Parameters
    ----------
    y : array-like
        The labels.

    Returns
    -------
    ndarray or None
        The declared set (a categorical's categories), or None.

    Examples
    --------
    >>> import pandas as pd
    >>> declared_classes(pd.Categorical(["a", "b"], categories=["a", "b", "c"])).tolist()
    ['a', 'b', 'c']
    >>> declared_classes(np.array([0, 1])) is None
    True
    """
    if isinstance(y, LabelArray):
        return None if y.classes is None else np.asarray(y.classes)
    dtype = getattr(y, "dtype", None)
    # (Dask's unknown categories: none)
    if type(dtype).__name__ == "CategoricalDtype" and type(dtype).__module__.startswith("pandas") \
            and getattr(getattr(y, "cat", None), "known", True):
        return np.asarray(dtype.categories)
    return None


def _kind(t: type) -> str:
    """The kind of a label's type: "str", "number" (labels of one kind sort), or its name."""
    if issubclass(t, (str, np.str_)):
        return "str"
    if issubclass(t, (numbers.Number, np.number, np.bool_)):
        return "number"
    return t.__name__


def _kind_of(labels: np.ndarray) -> str:
    """The kind (:func:`_kind`) of checked labels, all of one kind: read from their dtype
    (object: the first label's; no label: "number")."""
    kind = labels.dtype.kind
    if kind in "biuf":
        return "number"
    if kind == "U":
        return "str"
    return _kind(type(labels.flat[0])) if labels.size else "number"


#: How :func:`check_classes` names the ``classes=`` parameter (its default ``source``).
_PARAMETER = "'classes' parameter"


def _refuse(caller: str, source: str, shown: Any, why: str) -> ParameterError:
    """A malformed label set: scikit-learn's parameter form for ``classes=``, else ``caller``'s;
    ``shown`` as :func:`~dpconvex._validation.describe_value` describes it (``classes=y`` by
    mistake: named by type and length, not listed)."""
    if source == _PARAMETER:
        return ParameterError(f"The 'classes' parameter of {caller.split('.')[0]} {why}. "
                              f"Got {_short_repr(shown)} instead.")
    return ParameterError(f"{caller}: the {source} {why}. Got {_short_repr(shown)} instead.")


def check_classes(
    classes: Any, caller: str, binary: bool = False, *, source: str = _PARAMETER
) -> np.ndarray:
    """Validate a public label set; return it sorted (the class-index order), as a 1-D array.

    Refused with a :class:`ParameterError` (in scikit-learn's words, naming the class of
    ``caller`` "Owner.method", for ``classes=``; else naming ``source``): not a sequence, an
    iterator (a generator, ``map(...)``: read once, so a refit would find it used up),
    fewer than two labels (not two when ``binary``), a missing value (None, NaN, pandas NA), an
    infinite or non-integer float, complex numbers, bytes or sequences (a tuple), labels of
    mixed types, a label of another type than a built-in or NumPy scalar
    (:data:`SCALAR_LABEL_TYPES`, refused before any label is hashed or compared), or a repeated
    label. Ints and strings are labels as they are; a label of any other type is looked at one
    by one (:func:`_check_set_labels`).

    Parameters
    ----------
    classes : sequence
        The label set.
    caller : str
        "Owner.method".
    binary : bool, default=False
        Exactly two labels.
    source : str
        What the message names (default: the ``classes`` parameter).

    Returns
    -------
    ndarray
        The set, sorted.

    Raises
    ------
    ParameterError
        Any of the above.

    Examples
    --------
    >>> check_classes(["b", "a"], "Model.fit").tolist()
    ['a', 'b']
    """
    if isinstance(classes, (str, bytes)) or not hasattr(classes, "__iter__"):
        raise _refuse(caller, source, classes, "must be None or a sequence of labels")
    if isinstance(classes, Iterator):
        raise _refuse(caller, source, classes, "must be a list, tuple or array of labels, not "
                      "an iterator: an iterator is read once, so a refit (or a search's "
                      "candidate) would find it used up; pass list(...) of it")
    values = list(classes)
    types = set(map(type, values))
    if not types <= _PLAIN_LABEL_TYPES:
        _check_set_labels(values, classes, caller, source)
    kinds = set(map(_kind, types))
    if len(kinds) > 1:
        raise _refuse(caller, source, classes, f"mixes label types ({', '.join(sorted(kinds))}); "
                      "use labels of one type, as in y (e.g. all str or all numbers)")
    c = np.asarray(values, dtype=object if kinds - {"str", "number"} else None)
    if c.ndim != 1 or c.size < 2:
        raise _refuse(caller, source, classes, "must list at least two labels")
    if binary and c.size != 2:
        raise _refuse(
            caller,
            source,
            classes,
            "must list exactly two labels: only binary "
            f"classification is supported by {caller.split('.')[0]}; for more classes train "
            "one model per class and split epsilon between them (sequential composition)",
        )
    if len(set(values)) != c.size:
        raise _refuse(caller, source, classes, "has repeated labels; list each class once "
                      "(the public label set, e.g. [0, 1]), not the labels of y")
    try:  # sorted, as scikit-learn's classes_: its scorers read classes_[-1] as the positive class
        return c[np.argsort(c, kind="stable")]
    except TypeError:  # refused after the handler: a user's __lt__ can quote a label
        pass
    raise _refuse(caller, source, classes, "has labels that cannot be sorted; use labels of "
                  "one type that compare (ints or strings)")


#: The types a label (of y or of a label set) may have: exactly a built-in, a standard
#: library number (Decimal, Fraction) or a NumPy scalar type, whose comparisons, hashes and
#: conversions are NumPy's and Python's own; a label of any other type
#: (a user's class, a subclass of str or int) is refused by name before any label is compared,
#: as its ``__eq__``, ``__hash__`` or ``__lt__`` could make one record's label change how every
#: other record's label is read. (Complex numbers and bytes are refused by their own messages.)
SCALAR_LABEL_TYPES = frozenset(
    {str, bytes, int, float, bool, complex, decimal.Decimal, fractions.Fraction}
    | {np.dtype(code).type for code in np.typecodes["All"] if code not in "OV"}
)

#: How the refusals of a label of another type name the accepted types.
_ACCEPTED = ("str, int, float, bool, Decimal, Fraction or a NumPy scalar (np.int64, "
             "np.float64, np.str_, ...)")


def _foreign_types(types: set[type]) -> list[str]:
    """The names of the types in ``types`` that no label may have (:data:`SCALAR_LABEL_TYPES`,
    a missing value's type aside: refused by its own message), sorted."""
    return sorted({t.__name__ for t in types
                   if t not in SCALAR_LABEL_TYPES and not _is_missing_type(t)})


def _foreign_labels(caller: str, name: str, foreign: list[str]) -> DataTypeError:
    """The refusal of labels of a type that is not a built-in or NumPy scalar type."""
    return DataTypeError(
        f"{caller}: {name} holds labels of type {', '.join(foreign)}; a label must be a "
        f"{_ACCEPTED}, compared by Python's and NumPy's own rules (a label's own __eq__, "
        "__hash__ or __lt__ is never called). Map the labels to ints or strings first."
    )


#: The types of labels a label set holds as they are: no missing value, float or sequence
#: among them, and each hashable.
_PLAIN_LABEL_TYPES = frozenset({int, str, np.str_, bool, np.bool_, np.int8, np.int16, np.int32,
                                np.int64, np.uint8, np.uint16, np.uint32, np.uint64})


def _check_set_labels(values: list[Any], classes: Any, caller: str, source: str) -> None:
    """The labels of a set that holds a label of another type than int or str, one by one: no
    missing value, complex number, bytes or sequence, no NaN, infinite or non-integer float,
    each hashable (:func:`check_classes`'s refusals)."""
    for v in values:
        t = type(v)
        if _is_missing_type(t):
            raise _refuse(caller, source, classes, "has a missing value (None or pandas NA): a "
                          "missing label cannot be a class; list real labels")
        if issubclass(t, (complex, np.complexfloating, bytes, np.bytes_, tuple, list, np.ndarray)):
            raise _refuse(caller, source, classes, f"has a label of type {t.__name__}; class "
                          "labels are ints, floats with integer values, or strings")
        if t not in SCALAR_LABEL_TYPES:  # before any hash or comparison of a label
            raise _refuse(caller, source, classes, f"has a label of type {t.__name__}; a label "
                          f"must be a {_ACCEPTED} (a label's own __eq__, __hash__ or __lt__ is "
                          "never called)")
        if issubclass(t, (float, np.floating)) and not (math.isfinite(v) and v == round(v)):
            raise _refuse(caller, source, classes, "has a NaN, infinite or non-integer float "
                          "label; class labels are ints, floats with integer values, or strings")
        try:
            hash(v)
        except TypeError:  # refused after the handler: a user's __hash__ can quote a label
            hashable = False
        else:
            hashable = True
        if not hashable:
            raise _refuse(caller, source, classes,
                          f"has an unhashable label of type {t.__name__}; list ints or strings")


# ------------------------------------------------------- one warning per fit
class LabelWarning:
    """The label-set warning of one fit made of fits (a search, a sweep, a front door and its
    learner), handed to the fits inside it (:class:`~dpconvex.estimators.base.FitContext`):
    only the first read of the set from y warns (``issued=True``: the caller has warned).

    Parameters
    ----------
    issued : bool, default=False
        The caller has warned already.

    Examples
    --------
    >>> once = LabelWarning()
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     for _ in range(3):
    ...         _ = encode_labels(np.array([0, 1, 1]), None, "Doc.fit", warning=once)
    >>> len(caught), once.issued
    (1, True)
    """

    __slots__ = ("issued",)

    def __init__(self, issued: bool = False):
        self.issued = bool(issued)

    def __repr__(self) -> str:
        return f"LabelWarning(issued={self.issued})"

    def issue(self, owner: str, text: str | None = None) -> None:
        """``owner``'s warning ``text`` (None: :data:`INFERRED_WARNING`) unless issued, before
        any refusal.

        Parameters
        ----------
        owner : str
            The call the warning names.
        text : str or None, default=None
            The warning (None: :data:`INFERRED_WARNING`).

        Examples
        --------
        >>> import warnings
        >>> from dpconvex.data.validation import LabelWarning
        >>> once = LabelWarning()
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     once.issue("Demo.fit"); once.issue("Demo.fit")
        >>> len(caught), once.issued
        (1, True)
        """
        if not self.issued:
            self.issued = True
            warnings.warn(f"{owner}: {text or INFERRED_WARNING}", PrivacyLeakWarning,
                          stacklevel=user_stacklevel())




# ------------------------------------------------------------- label sets
@dataclass(frozen=True)
class LabelSet:
    """The label set of a fit and the encoded labels.

    Attributes
    ----------
    classes : ndarray
        The label set, in class-index order.
    index : ndarray of int
        Class index of each record (0 for the records in ``dropped``).
    outside : ndarray of bool
        Records whose label is not in ``classes`` (any only with ``unknown_labels="ignore"``).
    dropped : ndarray of bool
        Records that contribute no loss: ``outside``, or left out of the fit by the caller
        (:func:`check_excluded`). Their rows are zeroed by a per-row factor (X is not
        copied), and the learners' storage choices and guards read the other rows only.
    assumption : LabelSource
        Where the label set came from (``classes=``, declared with y, or read from y:
        :data:`INFERRED`) and the policy for labels outside it: the certificate's
        ``label_source``.
    signs : ndarray of float
        Binary labels as ±1: ``classes[1]`` is +1 (records in ``dropped``: -1, zero rows).

    Examples
    --------
    >>> from dpconvex.data.validation import encode_labels
    >>> labels = encode_labels(np.array(["b", "a", "b"]), ["a", "b"], "Demo.fit")
    >>> labels.classes.tolist(), labels.index.tolist(), labels.signs.tolist()
    (['a', 'b'], [1, 0, 1], [1.0, -1.0, 1.0])
    """

    classes: np.ndarray
    index: np.ndarray
    outside: np.ndarray
    dropped: np.ndarray
    assumption: LabelSource
    signs: np.ndarray


def _inferred_set(y: np.ndarray, caller: str, binary: bool) -> tuple[np.ndarray, np.ndarray]:
    """(np.unique(y), inverse) with the named errors; no warning."""
    try:
        c, idx = np.unique(np.asarray(y), return_inverse=True)
    except TypeError:  # refused after the handler: a label's __lt__ can quote a label
        c = None
    if c is None:
        raise DataValidationError(
            f"{caller}: the labels in y cannot be sorted (mixed types?); use labels of one "
            "type (all str or all numbers), or pass classes=[...]."
        )
    if binary and c.size > 2:
        raise DataValidationError(
            f"{caller}: only binary classification is supported; y has more than two "
            "classes. Map the labels to two classes, or train one model per class and "
            "split epsilon between them (sequential composition)."
        )
    if c.size < 2:
        raise DataValidationError(
            f"{caller}: could not read the label set from y (it needs "
            f"{'exactly two' if binary else 'at least two'} classes there). Pass the public "
            "label set, e.g. classes=[0, 1]: then nothing about the labels is read from the "
            "data and a class without records still gets a model."
        )
    return c, idx.ravel().astype(np.int64)


def _public_set(y: Any, classes: Any, caller: str, binary: bool) -> tuple[np.ndarray, str] | None:
    """The public label set and its source (None: the set must be read from y); ``y``: labels
    checked by :func:`check_labels`, a set declared with them carried (a :class:`LabelArray`)."""
    declared = y.classes if isinstance(y, LabelArray) else None
    if declared is None:  # the parameter's set, if any
        return None if classes is None else (check_classes(classes, caller, binary), "parameter")
    declared = check_classes(declared, caller, binary and classes is None,
                             source="label set declared with y")
    if classes is None:
        return declared, "declared"
    c = check_classes(classes, caller, binary)
    if set(c.tolist()) != set(declared.tolist()):
        raise ParameterError(
            f"The 'classes' parameter of {caller.split('.')[0]} lists "
            f"{_short_repr(c.tolist())}, but y declares another label set, of {declared.size} "
            "labels (a dpconvex.datasets loader's labels, or a pandas Categorical's "
            "categories). Pass classes= with the same labels or leave it None; for another "
            "label set pass the labels as a plain array, np.asarray(y)."
        )
    return c, "parameter"


def label_set_of(y: Any, classes: Any, caller: str) -> np.ndarray | None:
    """The label set a fit on validated labels ``y`` would use (for choosing one-vs-rest or
    binary before it), without warning or encoding; None when the fit would refuse it.

    Parameters
    ----------
    y : ndarray
        Labels checked by :func:`check_labels`.
    classes : sequence or None
        The public label set (None: declared with y, else read from y).
    caller : str
        "Owner.method".

    Returns
    -------
    ndarray or None

    Examples
    --------
    >>> label_set_of(np.array([0, 1, 1]), None, "Doc.fit").tolist()
    [0, 1]
    """
    try:
        public = _public_set(y, classes, caller, False)
        return public[0] if public is not None else _inferred_set(y, caller, False)[0]
    except (DataValidationError, ParameterError):
        return None


def encode_labels(y: np.ndarray, classes: Any, caller: str, *, binary: bool = False,
                  unknown_labels: str = "raise", excluded: np.ndarray | None = None,
                  warning: LabelWarning | None = None, noted: bool = False) -> LabelSet:
    """Encode validated labels against the public label set (or read it from y, with a warning).

    Parameters
    ----------
    y : ndarray
        Labels checked by :func:`check_labels` (a :class:`LabelArray` when y declared its set).
    classes : sequence or None
        The public label set; None: the set declared with y, else read from y (warned).
    caller : str
    binary : bool
        Two classes exactly.
    unknown_labels : {"raise", "ignore"}, default="raise"
        A label outside a public set: refuse, or mark the record ``outside`` (row zeroed).
    excluded : ndarray of bool or None, default=None
        Records left out of the fit (a front door's validation rows): in :attr:`LabelSet.dropped`.
    warning : LabelWarning or None, default=None
        The label-set warning shared by the fits of one fit made of fits (None: warn).
    noted : bool, default=False
        The meta-estimator that holds this fit gave the diagnostic note on the labels
        outside the set already (so does a fit with rows left out): none is given again.

    Returns
    -------
    LabelSet

    Raises
    ------
    ParameterError
        A malformed ``classes`` or declared set (:func:`check_classes`), the two not
        listing the same labels, or an ``unknown_labels`` not in :data:`UNKNOWN_LABELS`.
    DataValidationError
        A set read from y that y does not show (e.g. one class); with ``"raise"``, a label
        outside the public set. Neither message holds a count or a label of y.

    Examples
    --------
    >>> labels = encode_labels(np.array(["a", "b", "b"]), ["a", "b"], "Doc.fit")
    >>> labels.classes.tolist(), labels.index.tolist(), labels.signs.tolist()
    (['a', 'b'], [0, 1, 1], [-1.0, 1.0, 1.0])
    """
    owner = caller.split(".")[0]  # the class, for scikit-learn's parameter form and warnings
    unknown_labels = LABEL_POLICY.check("unknown_labels", unknown_labels, owner)
    if excluded is not None:
        excluded = check_excluded(excluded, len(y), caller)
    public = _public_set(y, classes, caller, binary)
    if public is None:
        (warning or LabelWarning()).issue(owner)  # before any refusal: classes=None only
        c, idx = _inferred_set(y, caller, binary)
        outside, assumption = np.zeros(len(y), dtype=bool), INFERRED
    else:
        c, source = public
        values = np.asarray(y)
        idx = _lookup(values, c)
        outside = idx < 0
        # NOT PRIVATE: the records outside the set, for the data holder (rows left out by a
        # meta-estimator: it noted the labels, the learner reads them again)
        note = diagnostics_open() and excluded is None and not noted
        if unknown_labels == "raise" and np.any(outside):  # (y of another kind: named so)
            raise _outside_refusal(values, outside, c, source, caller, note)
        if note:
            _note_outside(values, outside, c, caller,
                          "no loss: their rows are zeroed, unknown_labels='ignore'"
                          if unknown_labels != "raise" else
                          "none: the fit is refused at any, unknown_labels='raise'")
        assumption = LabelSource(source, tuple(c.tolist()), unknown_labels)
    dropped = outside if excluded is None else outside | excluded
    idx = np.where(dropped, 0, idx)
    return LabelSet(c, idx, outside, dropped, assumption, np.where(idx == 1, 1.0, -1.0))


def _lookup(values: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Index of each label in the sorted set ``c`` (-1 when absent), with the equality of a dict
    lookup (``1``, ``1.0`` and ``True`` are one label). Labels of the set's dtype kind (both
    ints, both floats, both str: NumPy compares them exactly) are found by a binary search of
    ``c``; others in a dict, distinct labels once (no int made a float: ``2**53 + 1`` is not
    ``2.0**53``)."""
    if values.dtype.kind == c.dtype.kind and c.dtype.kind in "biufU":
        at = np.minimum(np.searchsorted(c, values), c.size - 1)
        return np.where(c[at] == values, at, -1)
    lookup = dict(zip(c.tolist(), range(c.size), strict=True))
    index = np.full(values.size, -1, dtype=np.int64)
    # a label of another type than a built-in or NumPy scalar is in no set, unread (no __eq__,
    # __hash__ or __lt__ of its own is called; a tuple's would call its entries')
    plain = np.fromiter((type(v) in SCALAR_LABEL_TYPES for v in values.tolist()), dtype=bool,
                        count=values.size)
    scalars = values[plain]
    try:
        distinct, inverse = np.unique(scalars, return_inverse=True)
    except (TypeError, ValueError):  # labels that do not sort (str and numbers): one by one
        index[plain] = np.fromiter(
            (lookup.get(v, -1) for v in scalars.tolist()), dtype=np.int64, count=scalars.size
        )
        return index
    table = np.fromiter(
        (lookup.get(v, -1) for v in distinct.tolist()), dtype=np.int64, count=distinct.size
    )
    index[plain] = table[inverse.ravel()]
    return index


def _outside_refusal(values: np.ndarray, outside: np.ndarray, c: np.ndarray, source: str,
                     caller: str, note: bool) -> DataValidationError:
    """The refusal of labels outside the public set ``c`` under ``unknown_labels="raise"``:
    labels of another kind than the set (every one outside it) by that name, else with a
    diagnostic note (``note``) and :func:`_unknown_labels_message`."""
    got, want = _kind_of(values), _kind_of(c)
    if got != want:
        where = "the 'classes' parameter" if source == "parameter" else "the set declared with y"
        return DataValidationError(
            f"{caller}: the labels in y are of type {got} but {where} lists "
            f"{want} labels, so no record could match a class. List the "
            "labels exactly as they appear in y, with the same type and spelling, in "
            "classes=; "
            "or convert y to the type of the declared classes."
        )
    if note:
        _note_outside(values, outside, c, caller, "the fit was refused: unknown_labels='raise'")
    return DataValidationError(_unknown_labels_message(caller, c, source))


def _note_outside(values: np.ndarray, outside: np.ndarray, c: np.ndarray, caller: str,
                  what: str) -> None:
    """NOT PRIVATE: the diagnostic note of the records outside the set ``c`` (``what``: what
    became of them), their labels in order of first appearance, for the data holder."""
    record_diagnostic(
        caller.split(".")[0],
        f"records with labels outside classes={c.tolist()!r} ({what})",
        int(np.sum(outside)),
        len(values),
        list(dict.fromkeys(v if type(v) in SCALAR_LABEL_TYPES else f"<{type(v).__name__}>"
                           for v in values[outside].tolist())),
    )


def _unknown_labels_message(caller: str, c: np.ndarray, source: str) -> str:
    """The refusal of a label outside the public set: public facts and the fixes only (the
    set shown by its first ten labels when it has more than twelve)."""
    labels = c.tolist()
    shown = (
        repr(labels)
        if len(labels) <= 12
        else (repr(labels[:10])[:-1] + f", ... ({len(labels)} labels)]")
    )
    where = ("classes=" if source == "parameter" else
             "the label set declared with y (a dpconvex.datasets loader's labels, or a pandas "
             "Categorical's categories): ")
    return (
        f"{caller}: y has labels that are not in {where}{shown}, and unknown_labels='raise' "
        "refuses such "
        "a fit (nothing was fitted or released). List every label exactly as it appears in y, "
        "with the "
        "same type and spelling (case included), in classes=; or map the labels of y onto the "
        "declared "
        "classes before fitting; or pass unknown_labels='ignore' to fit with the records of other "
        "labels contributing no loss (for pipelines that must never branch on the data). "
        "dpconvex.collect_diagnostics() shows the data holder which labels did not match."
    )


def check_excluded(rows: np.ndarray | None, n: int, caller: str) -> np.ndarray | None:
    """The mask of the records left out of a fit on n records (None: none), checked.

    Their rows are zeroed as those of labels outside the set with ``unknown_labels="ignore"``
    (:attr:`LabelSet.dropped`): the front door's safeguard leaves its validation part out so
    (docs/privacy/front_door.md#privacy-classifier-safeguard). Not a 1-D boolean mask: a
    :class:`ParameterError`; not one entry per record: a :class:`DataValidationError`.

    Parameters
    ----------
    rows : ndarray of bool or None
        The mask (None: no record left out).
    n : int
        The number of records.
    caller : str
        "Owner.method".

    Returns
    -------
    ndarray of bool or None

    Raises
    ------
    ParameterError
        Not a 1-D boolean mask.
    DataValidationError
        Not one entry per record.

    Examples
    --------
    >>> labels = encode_labels(np.array([0, 1, 1]), [0, 1], "Doc.fit",
    ...                        excluded=np.array([False, True, False]))
    >>> labels.dropped.tolist(), labels.index.tolist(), labels.outside.tolist()
    ([False, True, False], [0, 0, 1], [False, False, False])
    """
    if rows is None:
        return None
    mask = np.asarray(rows)
    if mask.dtype != bool or mask.ndim != 1:
        raise ParameterError(
            f"{caller}: the rows left out of the fit must be a 1-D boolean mask over "
            f"the records. Got dtype {mask.dtype} and shape {mask.shape} instead."
        )
    if mask.shape != (n,):
        raise DataValidationError(
            f"{caller}: the rows excluded from the fit are a mask over {mask.shape[0]} records, "
            f"but y has {n} labels. Pass a mask with one entry per record of the fit.")
    return mask


def zero_rows(X: Any, dropped: np.ndarray) -> Any:
    """A copy of the rows with those of :attr:`LabelSet.dropped` zeroed (sparse: removed).

    Parameters
    ----------
    X : ndarray or sparse array
        The rows (not changed).
    dropped : ndarray of bool
        The records to zero.

    Returns
    -------
    ndarray or sparse array

    Examples
    --------
    >>> zero_rows(np.ones((3, 2)), np.array([False, True, False])).tolist()
    [[1.0, 1.0], [0.0, 0.0], [1.0, 1.0]]
    """
    if not np.any(dropped):
        return X
    keep = (~dropped).astype(float)
    if hasattr(X, "multiply"):
        out = sp.csr_array(X.multiply(keep[:, None]))
        out.eliminate_zeros()
        return out
    return np.asarray(X) * keep[:, None]


# ------------------------------------------------------------- the labels y
def _check_label_values(values: np.ndarray, y: Any, caller: str, name: str = "y") -> None:
    """Labels ``values`` (NumPy's reading of ``y``) by their dtype: no complex number or bytes,
    no missing value, no non-integer float, one sortable kind (all str or all numbers);
    ``name``: what the messages call the labels.

    Floats are checked as an array; object labels on the set of their types (one fast pass;
    a type not in :data:`SCALAR_LABEL_TYPES` refused first), looking at values only when some
    are floats (which may be NaN).
    """
    if values.dtype.kind == "c":
        raise DataValidationError(_COMPLEX_LABELS.format(caller))
    if values.dtype.kind == "S":
        raise DataTypeError(_BYTES_LABELS.format(caller))
    if values.dtype.kind == "f":
        if not np.all(np.isfinite(values)):
            raise DataValidationError(
                f"{caller}: {name} contains NaN or infinite labels; drop those rows.")
        if np.any(values != np.round(values)):
            raise DataValidationError(_CONTINUOUS_LABELS.format(caller))
        return
    if values.dtype.kind == "U":
        if isinstance(y, np.ndarray):
            return
        # np.asarray(["a", 1]) or (["a", nan]) silently turns every label into a string
        values = np.asarray(y, dtype=object).ravel()
    types = set(map(type, values))
    if foreign := _foreign_types(types):  # before any label is compared
        raise _foreign_labels(caller, name, foreign)
    floats = (
        np.asarray([v for v in values if isinstance(v, (float, np.floating))], dtype=float)
        if any(issubclass(t, (float, np.floating)) for t in types)
        else np.zeros(0)
    )
    missing = ("None" if type(None) in types else "pandas NA" if any(map(_is_missing_type, types))
               else "NaN" if np.isnan(floats).any() else None)
    if missing is not None:
        raise DataValidationError(
            f"{caller}: {name} contains {missing} labels; drop those rows or give them a real "
            "class "
            "label (a missing label cannot be a class)."
        )
    if any(issubclass(t, (complex, np.complexfloating)) for t in types):
        raise DataValidationError(_COMPLEX_LABELS.format(caller))
    if any(issubclass(t, (bytes, np.bytes_)) for t in types):
        raise DataTypeError(_BYTES_LABELS.format(caller))
    kinds = set(map(_kind, types))
    if kinds == {"number"} and np.any(floats != np.round(floats)):
        raise DataValidationError(_CONTINUOUS_LABELS.format(caller))
    if len(kinds) > 1:  # DataValidationError, as tests/test_input_boundary.py expects exactly
        raise DataValidationError(
            f"{caller}: {name} mixes label types ({', '.join(sorted(kinds))}), so the labels in "
            f"{name} "
            "cannot be sorted into classes. Use labels of one type, e.g. y.astype(str)."
        )


#: The refusals of labels scikit-learn's ``type_of_target`` refuses or calls continuous.
_COMPLEX_LABELS = ("{}: Unknown label type: complex. y must hold class labels (ints or strings); "
                   "got complex numbers. Encode the classes as ints or strings.")
_BYTES_LABELS = ("{}: labels represented as bytes are not supported (as in scikit-learn). "
                 "Decode them to strings first, e.g. y.astype(str).")
_CONTINUOUS_LABELS = (
    "{}: Unknown label type: continuous. y must hold class labels; got non-integer "
    "floats (a regression target?). Encode the classes as ints or strings."
)


def _labels_as_given(y: Any) -> np.ndarray:
    """The labels of y as an array whose entries are the labels as given: a sequence's
    entries in an object array (no conversion of every label to the type one label forces,
    no tuple read as a row), a masked entry as None (a missing label)."""
    if np.ma.isMaskedArray(y):
        mask = np.ma.getmaskarray(y)
        if mask.any():
            labels = np.asarray(np.ma.getdata(y), dtype=object).copy()
            labels[mask] = None
            return labels
        return np.asarray(np.ma.getdata(y))
    if isinstance(y, np.ndarray) or hasattr(y, "dtype"):  # an array, a pandas Series: its dtype
        return np.asarray(y)
    values = list(y) if hasattr(y, "__iter__") and not isinstance(y, (str, bytes, dict)) else y
    if not isinstance(values, list):
        return np.asarray(values)  # a scalar: refused by its shape below
    return np.fromiter(values, dtype=object, count=len(values))  # a tuple stays one label


def _exact_labels(y: Any, yy: np.ndarray) -> np.ndarray:
    """``yy``, NumPy's float reading of the sequence of labels ``y``; where NumPy made integer
    labels floats that do not hold them (beyond 2**53, because another label is a float:
    ``[2**53 + 1, 2.0**53]`` reads as two equal labels), an object array of the labels as given
    instead, so that no label's type changes the value another label reads as."""
    if yy.ndim not in (1, 2):
        return yy  # a shape check refuses a scalar and more than two dimensions
    given = np.empty(yy.shape, dtype=object)
    given[...] = list(y) if yy.ndim == 1 else [list(row) for row in y]
    lossy = any(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
                and float(int(v)) != int(v) for v in given.ravel().tolist())
    return given if lossy else yy


def check_labels(y: Any, n_samples: int, caller: str, names: tuple[str, str] = ("X", "y"), *,
                 classes: Any = None, unknown_labels: str = "raise") -> np.ndarray:
    """Validate a 1-D label vector of length n_samples (a declared set kept: a :class:`LabelArray`);
    ``names``: what the messages call the rows and the labels.

    Refused (:class:`DataValidationError`): missing labels (None, NaN, pandas NA), labels
    of mixed types, masked entries, a wrong shape, what scikit-learn's ``type_of_target``
    calls continuous or refuses (complex; bytes: a :class:`DataTypeError`), and labels of
    another type than a built-in or NumPy scalar (:data:`SCALAR_LABEL_TYPES`; a
    :class:`DataTypeError`, before any label is compared).
    With ``unknown_labels="ignore"`` and a public label set (``classes``, or one declared
    with y) a label's value is never refused: a missing, non-integer or other-typed label
    matches no class, so :func:`encode_labels` marks its record outside the set, and the
    fit does not branch on one record's label (docs/privacy/messages.md#privacy-messages).

    Parameters
    ----------
    y : array-like
        The labels.
    n_samples : int
        The number of rows.
    caller : str
        "Owner.method".
    names : tuple of (str, str), default=("X", "y")
        What the messages call the rows and the labels.
    classes : sequence or None, default=None
        The public label set.
    unknown_labels : {"raise", "ignore"}, default="raise"
        As for :func:`encode_labels`.

    Returns
    -------
    ndarray
        The labels, 1-D (a :class:`LabelArray` where y declared its set).

    Raises
    ------
    DataValidationError
        Any of the above (bytes: :class:`DataTypeError`).

    Examples
    --------
    >>> check_labels(np.array([0, 1, 1]), 3, "Doc.fit").tolist()
    [0, 1, 1]
    """
    if y is None:
        raise DataValidationError(
            f"{caller}: requires y to be passed, but the target y is None. Pass the labels."
        )
    unknown_labels = LABEL_POLICY.check("unknown_labels", unknown_labels, caller.split(".")[0])
    declared = declared_classes(y)  # a label set declared with y travels with the labels
    lenient = unknown_labels == "ignore" and (classes is not None or declared is not None)
    if lenient:  # each label as given, a masked one missing: outside the set, record by record
        yy = _labels_as_given(y)
    else:
        _reject_masked(y, caller, names[1])
        yy = np.asarray(y)
        if yy.dtype.kind == "f" and not hasattr(y, "dtype"):  # a sequence NumPy read as floats
            yy = _exact_labels(y, yy)
    yy = flattened_column(yy, caller)
    if yy.ndim != 1:
        raise DataValidationError(
            f"{caller}: {names[1]} must be 1-D (n_samples,); got shape {yy.shape}. Use "
            f"{names[1]}.ravel()."
        )
    if yy.shape[0] != n_samples:
        raise DataValidationError(f"{caller}: {names[0]} has {n_samples} rows but {names[1]} has "
                                  f"{yy.shape[0]} labels; they must match.")
    # complex and bytes are no labels; under "ignore", each other label is matched as it is
    if yy.dtype.kind in ("cS" if lenient else "cSfUO"):  # (bool and int: labels as they are)
        _check_label_values(yy, y, caller, names[1])
    return yy if declared is None else LabelArray(yy, declared)


def flattened_column(yy: np.ndarray, caller: str) -> np.ndarray:
    """``yy`` flattened where it is one column (n, 1), with scikit-learn's
    ``DataConversionWarning``, as a classifier's and a regressor's labels are read; else as given.

    Parameters
    ----------
    yy : ndarray
        The labels.
    caller : str
        "Owner.method", opening the warning.

    Returns
    -------
    ndarray

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     flattened_column(np.zeros((3, 1)), "Doc.fit").shape
    (3,)
    """
    if yy.ndim == 2 and yy.shape[1] == 1:
        warnings.warn(
            "A column-vector y was passed when a 1d array was expected; it was flattened. "
            f"Pass y.ravel() to {caller} to silence this.", DataConversionWarning,
            stacklevel=user_stacklevel())
        return yy.ravel()
    return yy


def check_numeric_labels(y: Any, n: int, caller: str) -> np.ndarray:
    """A regression's labels as floats, checked: numbers, one per row, finite; not clipped,
    read and never written.

    Labels held by Dask are brought to the driver once (8n bytes); a column vector is
    flattened with scikit-learn's warning (:func:`flattened_column`); labels of another type
    than a built-in or NumPy scalar (a :class:`DataTypeError`, unread), text in any container,
    complex numbers and a number beyond float64 (a long double, a large integer) are refused
    by name, as are masked entries and a missing y.

    Parameters
    ----------
    y : array-like
        The labels.
    n : int
        The number of rows they label.
    caller : str
        "Owner.method", which opens every message.

    Returns
    -------
    ndarray of shape (n,)
        The labels as float64 (y itself where it is one).

    Raises
    ------
    DataValidationError
        y is None, masked, not one column of n numbers, or holds a label that is not finite.

    Examples
    --------
    >>> from dpconvex.data.validation import check_numeric_labels
    >>> check_numeric_labels([1, 2.5, -3], 3, "Doc.fit").tolist()
    [1.0, 2.5, -3.0]
    """
    if y is None:
        raise DataValidationError(
            f"{caller}: requires y to be passed, but the target y is None. Pass the labels."
        )
    _reject_masked(y, caller, "y")
    y = computed(y)  # (a failed Dask computation: its own named error)
    try:
        raw = flattened_column(np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y), caller)
    except (TypeError, ValueError):  # refused after the handler: NumPy's text can quote a label
        raw = None
    if raw is None:
        raise _not_numbers(caller)
    if raw.ndim != 1:
        raise DataValidationError(
            f"{caller}: y must be 1-D, one label per row; got an array of shape "
            f"{raw.shape}. Pass one column of labels."
        )
    values = raw if raw.dtype == np.float64 else _float_labels(raw, caller)
    if values.size != n:
        raise DataValidationError(
            f"{caller}: y has {values.size} labels for {n} rows. Pass one label per row."
        )
    if not np.all(np.isfinite(values)):
        raise DataValidationError(
            f"{caller}: y has labels that are not finite (NaN or inf). Remove or impute them "
            "first."
        )
    return values


def _float_labels(raw: np.ndarray, caller: str) -> np.ndarray:
    """A regression's 1-D labels in any other dtype than float64 as floats: text in any
    container, complex numbers and a number beyond float64 (a long double, a large integer)
    refused by name, after the handler of the conversion's error (its text can quote a
    label)."""
    types = set(map(type, raw.tolist())) if raw.dtype.kind == "O" else set()
    if foreign := _foreign_types(types):  # before any label is read (no __float__ of its own)
        raise _foreign_labels(caller, "y", foreign)
    text = any(issubclass(t, (str, bytes, np.str_, np.bytes_)) for t in types)
    if np.iscomplexobj(raw) or raw.dtype.kind not in "biufO" or text:
        raise _not_numbers(caller)  # text is not read as numbers, whichever container holds it
    try:
        with np.errstate(over="ignore"):  # a long double beyond float64: refused below
            values = raw.astype(float, copy=False)
    except OverflowError:
        values = None
        too_large = True
    except (TypeError, ValueError):
        values = None
        too_large = False
    else:
        too_large = raw.dtype.kind == "f" and np.count_nonzero(
            np.isinf(values)) > np.count_nonzero(np.isinf(raw))
    if too_large:
        raise DataValidationError(
            f"{caller}: y holds a number too large for float64 (above about 1.8e308); rescale "
            "the labels with a public constant."
        )
    if values is None:
        raise _not_numbers(caller)
    return values


def _not_numbers(caller: str) -> DataValidationError:
    """The refusal of a regression's labels that are not numbers."""
    return DataValidationError(
        f"{caller}: y must hold numbers (a regression's labels). Convert it to floats first."
    )
