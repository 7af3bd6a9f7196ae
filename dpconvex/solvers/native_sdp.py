"""Re-exports for the large-margin (PSD) native solver, with the old signatures.

The solver is :mod:`dpconvex.solvers.projected_gradient` (generic over the
projection); the PSD helpers live with the parameterization
(:mod:`dpconvex.templates.parameterizations`). Here the projection defaults to
the PSD cone, as before the architecture step.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ..templates.base import natural_residual as _natural_residual
from ..templates.parameterizations import (
    gram_operator_norm,
    project_psd,
    quadratic_forms,
    weighted_gram,
)
from .base import SolveResult
from .projected_gradient import ProjectedGradient
from .projected_gradient import accelerated_projected_gradient as _apg

__all__ = [
    "ProjectedGradient",
    "accelerated_projected_gradient",
    "gram_operator_norm",
    "natural_residual",
    "project_psd",
    "quadratic_forms",
    "weighted_gram",
]


def natural_residual(Phi: np.ndarray, grad: np.ndarray) -> float:
    """||Φ − Π_PSD(Φ − ∇J(Φ))||_F over all blocks."""
    return _natural_residual(Phi, grad, project_psd)


def accelerated_projected_gradient(
    fun_grad: Callable[[np.ndarray], tuple[float, np.ndarray]],
    x0: np.ndarray,
    *,
    mu: float,
    L0: float,
    tol: float = 1e-9,
    max_iter: int = 20_000,
    max_seconds: float = math.inf,
    project: Callable[[np.ndarray], np.ndarray] = project_psd,
) -> SolveResult:
    """:func:`dpconvex.solvers.projected_gradient.accelerated_projected_gradient`, PSD by default."""
    return _apg(fun_grad, x0, project=project, mu=mu, L0=L0, tol=tol, max_iter=max_iter,
                max_seconds=max_seconds)
