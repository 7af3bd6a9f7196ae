"""Objective pieces: margin losses, regularizers (the one source of μ) and data-free matrix terms.

- :mod:`~dpconvex.objectives.losses`: margin losses ℓ(m) with their declared privacy
  constants (derivative bound, curvature), one registry :data:`LOSSES`;
- :mod:`~dpconvex.objectives.regularizers`: the L2 / Frobenius regularizers;
- :mod:`~dpconvex.objectives.terms`: extra data-independent matrix terms of the
  large-margin objective.

Objectives import only :mod:`dpconvex.errors` and :mod:`dpconvex._validation`.
"""

from __future__ import annotations

from .losses import (
    LOSSES,
    REGRESSION_LOSSES,
    CVXPYLoss,
    HuberHinge,
    HuberRegression,
    Logistic,
    Loss,
    Pinball,
    SmoothHinge,
    get_loss,
    get_regression_loss,
)
from .regularizers import L2, REGULARIZERS, Frobenius, Regularizer
from .terms import MatrixTerm, probe_term, psi_frobenius

__all__ = ["L2", "LOSSES", "REGRESSION_LOSSES", "REGULARIZERS", "CVXPYLoss", "Frobenius",
           "HuberHinge", "HuberRegression", "Logistic", "Loss", "MatrixTerm", "Pinball",
           "Regularizer", "SmoothHinge", "get_loss", "get_regression_loss", "probe_term",
           "psi_frobenius"]
