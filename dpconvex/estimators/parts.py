"""The rows of a fit on disjoint parts: checked once, cut into parts and scored (the certificate
of the fit they make: :func:`dpconvex.privacy.composition.compose_tuning`).

The private searches (docs/privacy/tuning_gd_ledger.md#privacy-private-tuning) and the front door's safeguard
(privacy-classifier-safeguard) split the n rows by a random permutation drawn independently of the data and
read part j only through :class:`Parts`. Rows in memory (dense or SciPy sparse) are indexed as usual. A Dask
collection is never brought into memory: :func:`dpconvex.data.dask_rows.split_rows` selects each part's rows
per chunk on the workers, and the labels (a vector of length n, on the driver as for every Dask fit) are cut
the same way. Either way a part's rows come in their order in X, so a candidate fitted on it is the in-memory
candidate up to the order of the sums, and a split made inside that fit selects the same records. Validation
mistakes on Dask rows are counted from the released model's predictions per chunk (post-processing of the
release); the n_val predicted labels come back, the rows stay on the workers.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
from sklearn.pipeline import Pipeline
from sklearn.utils import _safe_indexing, get_tags

from .._validation import feature_names_of, is_dask_collection
from ..data.tables import _mapping_column, table_header
from ..data.validation import check_array, check_labels, computed
from ..errors import DataValidationError

__all__ = ["Parts", "check_rows", "mistakes", "predicted"]


def check_rows(X: Any, y: Any, caller: str, estimator: Any, *, classes: Any = None,
               unknown_labels: str = "raise") -> tuple[Any, np.ndarray]:
    """(rows, labels) checked once: rows in memory as ``check_array`` gives them, or a
    float64 Dask array (never computed); the labels as a vector of length n (``classes``
    and ``unknown_labels``: the candidates', as :func:`~dpconvex.data.validation.check_labels`
    reads them). A table stays as given where the estimator reads it: a pipeline's (a
    DataFrame; its first step reads it, e.g. a PublicEncoder) and that of an estimator with a
    ``schema`` (a DataFrame, or a mapping of columns as a DataFrame, so that a part is cut by
    rows), whose encoder checks its columns and dtypes at fit.

    Parameters
    ----------
    X, y : array-like
        The rows and labels.
    caller : str
        The public call, opening every message.
    estimator : estimator
        The candidate estimator (its tags say whether sparse rows are accepted; a pipeline
        or an estimator with a ``schema`` keeps a table as given).
    classes : sequence or None, default=None
        The candidates' public label set.
    unknown_labels : {"raise", "ignore"}, default="raise"
        The candidates' policy for labels outside it.

    Returns
    -------
    tuple
        (rows, labels).

    Examples
    --------
    >>> from dpconvex import PrivateLogisticRegression
    >>> from dpconvex.estimators.parts import check_rows
    >>> rows, labels = check_rows(X, y, "Demo.fit", PrivateLogisticRegression())
    >>> rows.shape, labels.shape
    ((40, 3), (40,))
    """
    feature_names_of(X, caller)  # column names of mixed types: refused as every fit refuses them
    if is_dask_collection(X) or not (hasattr(X, "iloc") or isinstance(X, Mapping)):
        reads_table = False
    elif isinstance(estimator, Pipeline):
        reads_table = hasattr(X, "iloc")
    else:
        reads_table = getattr(estimator, "get_params", dict)().get("schema") is not None
    if reads_table:
        rows = _frame_of(X, caller) if isinstance(X, Mapping) else X
    else:
        rows = check_array(
            X, caller, accept_sparse=get_tags(estimator).input_tags.sparse, accept_dask=True
        )
    return rows, check_labels(computed(y), rows.shape[0], caller, classes=classes,
                              unknown_labels=unknown_labels)


def _frame_of(columns: Mapping, caller: str) -> Any:
    """A mapping of columns as a DataFrame, its columns taken by position (a Series' index
    is dropped); refused as the encoder refuses it (:func:`~dpconvex.data.tables.table_header`:
    keys that are not names, columns of different lengths or not 1-D)."""
    import pandas as pd

    names, n_records, _ = table_header(columns, caller)
    frame = {}
    for name in names or []:
        column = columns[name]
        if isinstance(column, pd.Series):
            column = column.reset_index(drop=True)
        elif not hasattr(column, "dtype"):  # a list: read as the encoder reads it
            column = _mapping_column(column, name, caller)
        frame[name] = column
    return pd.DataFrame(frame, index=pd.RangeIndex(n_records))


def _predict_block(model: Any, block: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"), warnings.catch_warnings():  # as :func:`predicted`; a frame's
        warnings.filterwarnings("ignore", "X does not have valid feature names")  # rows, unnamed
        return np.asarray(model.predict(block))


class Parts:
    """Disjoint parts of the rows, part j given by the row indices ``index[j]``.

    Parameters
    ----------
    X : ndarray, sparse matrix or dask.array.Array of shape (n, p)
        Rows from :func:`check_rows`.
    y : ndarray of shape (n,)
    index : list of ndarray
        Disjoint row indices, one array per part (independent of the data).

    Attributes
    ----------
    sizes : list of int
        Rows per part (public: they depend on n only).

    Examples
    --------
    >>> from dpconvex.estimators.parts import Parts
    >>> parts = Parts(X, y, [np.arange(0, 40, 2), np.arange(1, 40, 2)])
    >>> rows, labels = parts[1]  # rows 1, 3, 5, ...
    >>> parts.sizes, rows.shape, bool((labels == y[1::2]).all())
    ([20, 20], (20, 3), True)
    """

    def __init__(self, X: Any, y: np.ndarray, index: list[np.ndarray]):
        self.X, self.y, self.index = X, y, index
        self.sizes = [int(part_index.size) for part_index in index]
        self._dask: list[Any] | None = None
        self._part: np.ndarray | None = None
        if is_dask_collection(X):
            from ..data.dask_rows import split_rows

            n_parts = len(index)
            part_of_row = np.full(X.shape[0], n_parts,
                                  dtype=np.min_scalar_type(n_parts))  # n_parts: in no part
            for part, part_index in enumerate(index):
                part_of_row[part_index] = part
            self._part, self._dask = part_of_row, split_rows(X, part_of_row, n_parts)

    def __getitem__(self, j: int) -> tuple[Any, np.ndarray]:
        """(rows, labels) of part j, in their order in X (in memory as on Dask), so that a
        split made inside a fit on the part (the front door's safeguard) picks the same
        records on either."""
        if self._dask is None:
            rows_of_part = np.sort(self.index[j])
            return _safe_indexing(self.X, rows_of_part), self.y[rows_of_part]
        assert self._part is not None
        return self._dask[j], self.y[self._part == j]


def predicted(model: Any, X: Any) -> np.ndarray:
    """``model.predict(X)`` as an ndarray; for a Dask array or DataFrame, predicted per chunk
    (per partition) on the workers, the labels concatenated in row order. numpy's overflow
    warnings are off: a validation record near the float range would switch them on.

    Parameters
    ----------
    model : estimator
        A fitted model.
    X : array-like
        The rows.

    Returns
    -------
    ndarray of shape (n,)

    Examples
    --------
    >>> from dpconvex import PrivateLogisticRegression
    >>> from dpconvex.estimators.parts import predicted
    >>> model = PrivateLogisticRegression(classes=[-1, 1], random_state=0).fit(X, y)
    >>> predicted(model, X).shape
    (40,)
    """
    if not is_dask_collection(X):
        with np.errstate(all="ignore"):
            return np.asarray(model.predict(X))
    import dask

    from ..data.dask_rows import compute

    blocks = X.to_delayed()
    blocks = blocks.ravel().tolist() if isinstance(blocks, np.ndarray) else list(blocks)
    held = dask.delayed(model, pure=False)  # one graph key: the model travels once
    labels = compute(*[dask.delayed(_predict_block, pure=False)(held, block) for block in blocks])
    return np.concatenate(labels) if labels else np.empty(0)


def mistakes(model: Any, X: Any, y: Any, caller: str) -> int:
    """Number of rows of (X, y) that ``model`` misclassifies (Dask rows: predicted per chunk).

    ``caller``: the public call that scores ("PrivateGridSearch.fit"), for the message.

    Parameters
    ----------
    model : estimator
        A fitted model.
    X, y : array-like
        The rows and their labels.
    caller : str
        The public call that scores.

    Returns
    -------
    int

    Raises
    ------
    DataValidationError
        The predictions are not one per row.

    Examples
    --------
    >>> from dpconvex import PrivateLogisticRegression
    >>> from dpconvex.estimators.parts import mistakes
    >>> model = PrivateLogisticRegression(classes=[-1, 1], random_state=0).fit(X, y)
    >>> 0 <= mistakes(model, X, y, "Demo.fit") <= 40
    True
    """
    predicted_labels = predicted(model, X)
    if predicted_labels.shape[0] != len(y):
        raise DataValidationError(f"{caller}: X has {predicted_labels.shape[0]} rows but y has "
                                  f"{len(y)} labels; they must match.")
    return int(np.sum(predicted_labels != np.asarray(y)))
