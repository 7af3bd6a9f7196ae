"""The data seam: design operators (dense, CSR), public schemas and per-record preprocessing maps."""

from __future__ import annotations

from .design import as_design
from .operators import CSRRows, DenseRows, DesignOperator, row_blocks
from .preprocess import add_intercept, augment_and_scale, clip_rows, normalize_rows
from .schema import Binary, Categorical, Numeric, PublicEncoder, PublicSchema

__all__ = ["Binary", "CSRRows", "Categorical", "DenseRows", "DesignOperator", "Numeric",
           "PublicEncoder", "PublicSchema", "add_intercept", "as_design",
           "augment_and_scale", "clip_rows", "normalize_rows", "row_blocks"]
