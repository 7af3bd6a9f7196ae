"""The rows X in any supported form (dense, SciPy sparse, Dask): checked and wrapped.

:func:`check_array` validates a design matrix without densifying it and
:func:`as_design` wraps it as a design operator; both dispatch on the form, importing
Dask only for Dask input. The dense checks are
:func:`dpconvex._validation.check_numeric_dtype` and
:func:`~dpconvex._validation.check_matrix_body`, the sparse ones
:func:`~dpconvex.data.operators.check_sparse`, the Dask ones
:func:`~dpconvex.data.dask_rows.check_dask` (imported only for Dask input).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from .._validation import _reject_masked, check_matrix_body, check_numeric_dtype, is_dask_collection
from ..errors import DataTypeError, DataValidationError
from .operators import CSRRows, DenseRows, DesignOperator, ScaledRows, check_sparse

__all__ = ["as_design", "check_array", "computed"]


def computed(x: Any) -> Any:
    """``x``, or for a Dask collection its value, computed within the cluster timeouts.

    :func:`dpconvex.data.dask_rows.compute`: a dead or stuck cluster raises
    :class:`~dpconvex.errors.SolverError` instead of waiting forever.
    """
    if not is_dask_collection(x):
        return x
    from .dask_rows import compute

    return compute(x)[0]


def check_array(X: Any, caller: str, *, name: str = "X", n_features: int | None = None,
                min_samples: int = 1, accept_sparse: bool = False, accept_dask: bool = False) -> Any:
    """Validate a 2-D finite float matrix; ``caller`` ("Owner.method") opens every message.

    SciPy sparse rows (``accept_sparse``) come back as a float64 ``csr_array``, never
    densified; Dask rows (``accept_dask``: an array or a DataFrame of numeric columns) as
    a float64 Dask array checked on the cluster, never computed into memory. Without the
    flag, either is refused.
    """
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
            return check_sparse(X, caller, name=name, n_features=n_features,
                                min_samples=min_samples)
        raise DataValidationError(
            f"{caller}: got a sparse matrix for {name}; pass a dense array (X.toarray())."
        )
    _reject_masked(X, caller, name)
    A = X
    for dtype in (None, np.float64):  # as given (ragged nested lists fail here), then float64
        try:
            A = np.asarray(A, dtype=dtype)
        except OverflowError:
            raise DataValidationError(
                f"{caller}: {name} holds a number too large for float64 (above about 1.8e308); "
                "rescale that column with a public constant."
            ) from None
        except (TypeError, ValueError) as exc:
            raise DataTypeError(
                f"{caller}: {name} must be a 2-D array of numbers (n_samples, n_features); it "
                f"could not be converted to float ({exc}). Encode categorical columns first."
            ) from None
        if dtype is None:
            check_numeric_dtype(A, caller, name)  # what is not a real number, before float64
    if A.ndim != 2:
        raise DataValidationError(
            f"{caller}: {name} must be 2-D (n_samples, n_features); got an array with "
            f"{A.ndim} dimension(s) and shape {A.shape}. Reshape your data: a single feature with "
            "X.reshape(-1, 1) or a single sample with X.reshape(1, -1)."
        )
    return check_matrix_body(A, A, caller, name, min_samples, n_features)


def as_design(X: Any) -> DesignOperator:
    """Wrap rows as a design operator: an operator as is, SciPy sparse as CSR, else dense.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from dpconvex.data import as_design
    >>> type(as_design(np.ones((3, 2)))).__name__, type(as_design(sp.eye(3))).__name__
    ('DenseRows', 'CSRRows')
    """
    if isinstance(X, (DenseRows, CSRRows, ScaledRows)):  # the protocol check would read .matrix
        return X
    if isinstance(X, DesignOperator):
        return X
    if type(X).__module__.startswith("dask."):  # a dask.array: the rows stay on the workers
        from .dask_rows import DaskRows
        return DaskRows(X)
    if sp.issparse(X):
        return CSRRows(X)
    return DenseRows(X)
