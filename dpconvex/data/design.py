"""Rows in any supported form as a design operator (dense, CSR, Dask)."""

from __future__ import annotations

from typing import Any

import scipy.sparse as sp

from .operators import CSRRows, DenseRows, DesignOperator, ScaledRows

__all__ = ["as_design"]


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
