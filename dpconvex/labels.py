"""The label set of a classifier: a public parameter, never read from one record (DESIGN.md §4).

With ``classes=`` given, nothing about the label set is read from y: the class
count C (the shape of the model, the noise dimension, the sensitivity) and the
label → index map are fixed before the data are seen. A record whose label is
outside the set contributes no loss: its row is replaced by the zero vector, so
its loss term is a constant with zero gradient and Hessian (the minimizer and
the privacy proof are those of the other records, with n unchanged). A class
with no records still gets parameters (noise and regularization only), so
whether a model is released never depends on one record.

Without ``classes=`` the label set is inferred from y (``np.unique``): the
certificate then lists "label set read from the data: assumed public".
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import DataValidationError, ParameterError, PrivacyWarning

__all__ = ["INFERRED", "LabelSet", "encode_labels", "zero_rows"]

#: The certificate assumption added when the label set is read from the data.
INFERRED = ("label set read from the data (classes=None): assumed public; pass the public "
            "label set as classes=[...] so that it is not read from the records")


@dataclass(frozen=True)
class LabelSet:
    """The label set of a fit and the encoded labels.

    Attributes
    ----------
    classes : ndarray
        The label set, in the order that defines the class indices.
    index : ndarray of int
        Class index of each record (0 for records outside the set).
    outside : ndarray of bool
        Records whose label is not in ``classes`` (they contribute no loss).
    inferred : bool
        True when the set was read from y.
    """

    classes: np.ndarray
    index: np.ndarray
    outside: np.ndarray
    inferred: bool

    @property
    def assumption(self) -> str:
        """The certificate line stating where the label set came from."""
        if self.inferred:
            return INFERRED
        return (f"label set given by the caller (public): {self.classes.tolist()!r}; records "
                "with other labels contribute no loss (their rows are zeroed)")

    def signs(self) -> np.ndarray:
        """Binary labels as ±1: ``classes[1]`` is +1 (records outside the set: +1, zero rows)."""
        return np.where(self.index == 1, 1.0, -1.0)


def _check_classes(classes: Any, owner: str, binary: bool) -> np.ndarray:
    try:
        c = np.asarray(list(classes))
    except TypeError:
        raise ParameterError(
            f"The 'classes' parameter of {owner} must be None or a sequence of labels. Got "
            f"{classes!r} instead."
        ) from None
    if c.ndim != 1 or c.size < 2:
        raise ParameterError(
            f"The 'classes' parameter of {owner} must list at least two labels. Got "
            f"{classes!r} instead."
        )
    if binary and c.size != 2:
        raise ParameterError(
            f"Only binary classification is supported by {owner}: 'classes' must list exactly "
            f"two labels. Got {len(c)}; for more classes train one model per class and split "
            "epsilon between them (sequential composition)."
        )
    if len({v for v in c.tolist()}) != c.size:
        raise ParameterError(f"The 'classes' parameter of {owner} has repeated labels: {classes!r}.")
    return c


def encode_labels(y: np.ndarray, classes: Any, owner: str, *, binary: bool = False) -> LabelSet:
    """Encode validated labels against the public label set (or infer it, flagged).

    Parameters
    ----------
    y : ndarray
        Labels already checked by :func:`dpconvex._validation.check_labels`.
    classes : sequence or None
        The public label set; None reads it from y (assumed public).
    owner : str
    binary : bool
        Two classes exactly.

    Raises
    ------
    ParameterError
        A malformed ``classes``.
    DataValidationError
        ``classes=None`` and y does not show the label set (e.g. one class): the
        message asks for ``classes=``, it prints no data statistics.
    """
    if classes is None:
        try:
            c, idx = np.unique(y, return_inverse=True)
        except TypeError:
            raise DataValidationError(
                f"{owner}: the labels in y cannot be sorted (mixed types?); use labels of one "
                "type (all str or all numbers), or pass classes=[...]."
            ) from None
        if binary and c.size > 2:
            raise DataValidationError(
                f"Only binary classification is supported by {owner}; y has more than two "
                "classes. Map the labels to two classes, or train one model per class and "
                "split epsilon between them (sequential composition)."
            )
        if c.size < 2:
            raise DataValidationError(
                f"{owner} could not read the label set from y (it needs "
                f"{'exactly two' if binary else 'at least two'} classes there). Pass the public "
                "label set, e.g. classes=[0, 1]: then nothing about the labels is read from the "
                "data and a class without records still gets a model."
            )
        return LabelSet(c, idx.ravel().astype(np.int64), np.zeros(len(y), dtype=bool), True)
    c = _check_classes(classes, owner, binary)
    lookup = {v: i for i, v in enumerate(c.tolist())}
    idx = np.fromiter((lookup.get(v, -1) for v in np.asarray(y).tolist()), dtype=np.int64,
                      count=len(y))
    outside = idx < 0
    if np.any(outside):
        warnings.warn(
            f"{owner}: some records have labels outside classes={c.tolist()!r}; they contribute "
            "no loss (rows zeroed). Check the labels or the classes parameter.",
            PrivacyWarning, stacklevel=3)
        idx = np.where(outside, 0, idx)
    return LabelSet(c, idx, outside, False)


def zero_rows(X: Any, outside: np.ndarray) -> Any:
    """Rows of records outside the label set replaced by zeros (dense or sparse)."""
    if not np.any(outside):
        return X
    keep = (~outside).astype(float)
    if hasattr(X, "multiply"):
        import scipy.sparse as sp

        return sp.csr_array(X.multiply(keep[:, None]))
    return np.asarray(X) * keep[:, None]
