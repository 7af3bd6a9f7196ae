"""The clipped empirical-risk problem that noisy gradient descent runs on.

    minimize (1/n) Σ_i ℓ(y_i θᵀx_i)  over ||θ|| <= R

with labels in {-1, +1} and rows clipped to a public norm bound (intercept
column included). It declares no regularizer: noisy gradient descent's proof
needs only per-example gradient clipping (docs/privacy/tuning_gd_ledger.md#privacy-noisy-gd).
"""

from __future__ import annotations

import numpy as np

from ..objectives.losses import Loss
from .base import EuclideanSpace, StatisticTemplate

__all__ = ["EmpiricalRiskTemplate"]


class EmpiricalRiskTemplate(StatisticTemplate):
    """Clipped rows, ±1 labels and a margin loss (the problem of noisy gradient descent).

    Parameters
    ----------
    loss : Loss
    data_norm : float
        Public bound on the rows given (intercept column included).
    X : ndarray (n, p)
        Rows with norm <= data_norm (the caller clips).
    y : ndarray (n,)
        Labels in {-1, +1}.

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex.objectives import Logistic
    >>> from dpconvex.templates.risk import EmpiricalRiskTemplate
    >>> # np, X (40 rows of norm 1), y (labels ±1): the doctest namespace, conftest.py
    >>> template = EmpiricalRiskTemplate(Logistic(), 1.0, X, np.where(X[:, 0] > 0, 1, -1))
    >>> template.n, template.p, sorted(template.capabilities)
    (40, 3, ['per_example_gradients'])
    """

    name = "empirical risk (clipped gradients)"
    kind = "noisy_gd"
    derivation = "docs/privacy/tuning_gd_ledger.md#privacy-noisy-gd"
    capabilities = frozenset({"per_example_gradients"})

    def __init__(self, loss: Loss, data_norm: float, X: np.ndarray, y: np.ndarray):
        self.loss = loss
        self.data_norm = float(data_norm)
        self.X = np.asarray(X, dtype=float)
        self.y = np.asarray(y, dtype=float)
        self.n, self.p = self.X.shape
        self.space = EuclideanSpace((self.p,))
