"""The data seam: design operators (dense, CSR) and per-record public preprocessing maps."""

from __future__ import annotations

from .operators import CSRRows, DenseRows, DesignOperator, as_design, row_blocks
from .preprocess import add_intercept, augment_and_scale, clip_rows, normalize_rows

__all__ = ["CSRRows", "DenseRows", "DesignOperator", "add_intercept", "as_design",
           "augment_and_scale", "clip_rows", "normalize_rows", "row_blocks"]
