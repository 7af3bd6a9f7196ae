"""The data seam: design operators (dense, CSR), public schemas and per-record preprocessing maps."""

from __future__ import annotations

from typing import Any

from .design import as_design
from .operators import CSRRows, DenseRows, DesignOperator, row_blocks
from .preprocess import add_intercept, augment_and_scale, clip_rows, normalize_rows

#: The public schema's names, imported on first access (PEP 562): a fit on arrays does
#: not load the schema module.
_SCHEMA = ("Binary", "Categorical", "Numeric", "PublicEncoder", "PublicSchema")

__all__ = ["Binary", "CSRRows", "Categorical", "DenseRows", "DesignOperator", "Numeric",
           "PublicEncoder", "PublicSchema", "add_intercept", "as_design",
           "augment_and_scale", "clip_rows", "normalize_rows", "row_blocks"]


def __getattr__(name: str) -> Any:
    if name not in (*_SCHEMA, "schema"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import schema

    value = schema if name == "schema" else getattr(schema, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_SCHEMA))
