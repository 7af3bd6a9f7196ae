"""Objective pieces: regularizers (the one source of μ) and data-independent matrix terms.

Margin losses stay in :mod:`dpconvex.losses`.
"""

from __future__ import annotations

from .regularizers import L2, REGULARIZERS, Frobenius, Regularizer
from .terms import MatrixTerm, probe_term, psi_frobenius

__all__ = ["L2", "REGULARIZERS", "Frobenius", "MatrixTerm", "Regularizer", "probe_term",
           "psi_frobenius"]
