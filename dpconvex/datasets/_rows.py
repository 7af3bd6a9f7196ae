"""The row options shared by the bundled loaders: ``row_norm``, ``columns`` and ``drop``.

The loaders pass the selected schema and ``row_norm`` to
:class:`dpconvex.PublicEncoder`.

Both are public choices made before the data are read: the column selection
acts on the public schema (which columns are encoded), and ``row_norm="unit"``
is the per-record map :func:`dpconvex.data.row_scaling.normalize_rows`
(x ↦ x / ||x||, a fixed function of the record itself). Neither reads a
statistic of the loaded data, so replacing one record still changes only its
own row (docs/privacy/row_scaling.md#privacy-row-scaling).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..data.row_scaling import check_row_norm
from ..data.schema import PublicSchema

__all__ = ["select_schema"]


def select_schema(schema: PublicSchema, row_norm: Any, columns: Sequence[str] | None,
                  drop: Sequence[str], owner: str) -> tuple[PublicSchema, str | None]:
    """Validate the options and return the selected schema and the row map."""
    row_norm = check_row_norm(row_norm, owner)
    return schema.select(columns, drop, caller=owner), row_norm

