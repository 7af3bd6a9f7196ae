"""The row options shared by the bundled loaders: ``row_norm``, ``columns`` and ``drop``.

Both are public choices made before the data are read: the column selection
acts on the public schema (which columns are encoded), and ``row_norm="unit"``
is the per-record map :func:`dpconvex.data.row_scaling.normalize_rows`
(x ↦ x / ||x||, a fixed function of the record itself). Neither reads a
statistic of the loaded data, so replacing one record still changes only its
own row (docs/privacy.md §12).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..data.row_scaling import check_row_norm, normalize_rows
from .encoding import PublicSchema

__all__ = ["apply_row_norm", "select_schema"]


def select_schema(schema: PublicSchema, row_norm: Any, columns: Sequence[str] | None,
                  drop: Sequence[str], owner: str) -> tuple[PublicSchema, str | None]:
    """Validate the options and return the selected schema and the row map."""
    row_norm = check_row_norm(row_norm, owner)
    return schema.select(columns, drop, owner=owner), row_norm


def apply_row_norm(X: np.ndarray, row_norm: str | None) -> np.ndarray:
    """``X`` scaled per row to norm 1 when ``row_norm == "unit"`` (zero rows stay zero)."""
    return normalize_rows(X, 1.0) if row_norm == "unit" else X
