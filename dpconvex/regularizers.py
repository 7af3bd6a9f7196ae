"""Regularizers (moved to :mod:`dpconvex.objectives.regularizers`; this module re-exports them)."""

from __future__ import annotations

from .objectives.regularizers import L2, REGULARIZERS, Frobenius, Regularizer

__all__ = ["L2", "REGULARIZERS", "Frobenius", "Regularizer"]
