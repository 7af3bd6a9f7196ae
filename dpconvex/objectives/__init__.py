"""Objective pieces: margin losses, regularizers (the one source of μ) and data-free matrix terms.

- :mod:`~dpconvex.objectives.losses`: margin losses ℓ(m) with their declared privacy
  constants (derivative bound, curvature), one registry :data:`LOSSES`, and the L2 / Frobenius regularizers
  (the one source of μ) and the extra data-independent matrix terms of the large-margin objective;
- :mod:`~dpconvex.objectives.atoms`: slope and curvature bounds derived from a loss's
  CVXPY atoms;
- :mod:`~dpconvex.objectives.sets`: closed convex parameter sets with exact Euclidean
  projections (ball, box, orthant, ℓ1 ball, simplex), :func:`recognize`, which reads
  them from CVXPY constraints, and :class:`CVXPYSet`, any other DCP constraint set.

Objectives import :mod:`dpconvex.errors`, :mod:`dpconvex._validation` and
:class:`~dpconvex.privacy.certificate.Condition` (the verdict of :func:`probe_term`),
besides NumPy, SciPy and CVXPY.
"""

from __future__ import annotations

from .losses import (
    L2,
    LOSSES,
    REGRESSION_LOSSES,
    REGULARIZERS,
    CVXPYLoss,
    Frobenius,
    HuberHinge,
    HuberRegression,
    Logistic,
    Loss,
    MatrixTerm,
    Pinball,
    Regularizer,
    SmoothHinge,
    get_loss,
    get_regression_loss,
    probe_term,
    psi_frobenius,
)
from .sets import (
    Box,
    ConvexSet,
    CVXPYSet,
    Intersection,
    L1Ball,
    L2Ball,
    NonNegative,
    Simplex,
    recognize,
)

__all__ = ["L2", "LOSSES", "REGRESSION_LOSSES", "REGULARIZERS", "Box", "CVXPYLoss", "CVXPYSet",
           "ConvexSet", "Frobenius", "HuberHinge", "HuberRegression", "Intersection", "L1Ball",
           "L2Ball", "Logistic", "Loss", "MatrixTerm", "NonNegative", "Pinball", "Regularizer",
           "Simplex", "SmoothHinge", "get_loss", "get_regression_loss", "probe_term",
           "psi_frobenius", "recognize"]
