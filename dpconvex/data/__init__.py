"""The data seam: design operators (dense, CSR), public schemas, their encoder and per-record maps."""

from __future__ import annotations

import importlib
from typing import Any

from .operators import CSRRows, DenseRows, DesignOperator, row_blocks
from .preprocess import add_intercept, augment_and_scale, clip_rows, normalize_rows
from .validation import as_design

#: The public schema's names and the module of each, imported on first access (PEP 562): a
#: fit on arrays loads none of these modules.
_SCHEMA = {"Binary": "schema", "Categorical": "schema", "Numeric": "schema",
           "PublicSchema": "schema", "PublicEncoder": "encoder", "RangedRows": "ranged_rows",
           "UniformSchema": "schema", "UniformWidth": "schema"}

__all__ = ["Binary", "CSRRows", "Categorical", "DenseRows", "DesignOperator", "Numeric",
           "PublicEncoder", "PublicSchema", "RangedRows", "UniformSchema", "UniformWidth",
           "add_intercept", "as_design", "augment_and_scale", "clip_rows", "normalize_rows",
           "row_blocks"]


def __getattr__(name: str) -> Any:
    if name in _SCHEMA:
        value = getattr(importlib.import_module(f".{_SCHEMA[name]}", __name__), name)
    elif name in ("encoder", "schema", "schema_draft", "tables"):
        value = importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_SCHEMA))
