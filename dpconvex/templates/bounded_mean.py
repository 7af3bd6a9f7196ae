"""The mean of n values in [−1, 1]: the statistic a regression's constant prediction releases.

:class:`~dpconvex.PrivateRegressor` releases the training mean of the labels (clipped to the
public ``label_range`` and mapped onto u ∈ [−1, 1]) as its constant candidate
(docs/privacy/front_door_regression.md#privacy-private-mean). Replacing one record moves
the sum Σ uᵢ by at most 2, so the mean (with n public) by at most 2/n: the Laplace
mechanism on it is ε-DP ([DMNS06]_).

References
----------
.. [DMNS06] C. Dwork, F. McSherry, K. Nissim, A. Smith. Calibrating Noise to Sensitivity in
   Private Data Analysis. TCC 2006 (the Laplace mechanism).
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import ParameterError
from .base import EuclideanSpace, StatisticTemplate

__all__ = ["BoundedMeanTemplate"]


class BoundedMeanTemplate(StatisticTemplate):
    """n values u_i with |u_i| <= 1 (per-record public maps), seen through their sum.

    Offers the capability ``"bounded_sum"``: ``total`` (Σ uᵢ, computed on first use) and
    ``bound`` (1, the public bound on |uᵢ|).

    Parameters
    ----------
    total : float or callable
        Σ uᵢ, or a function computing it on first use.
    n : int
        Number of records (public).

    Examples
    --------
    >>> from dpconvex import Budget, release
    >>> from dpconvex.templates.bounded_mean import BoundedMeanTemplate
    >>> template = BoundedMeanTemplate(30.0, n=100)
    >>> template.kind, sorted(template.capabilities), template.total
    ('bounded_mean', ['bounded_sum'], 30.0)
    >>> release(template, "laplace_mean", Budget(1.0), rng=0).theta.shape
    (1,)
    """

    name = "bounded mean"
    kind = "bounded_mean"
    derivation = "docs/privacy/front_door_regression.md#privacy-private-mean"
    capabilities = frozenset({"bounded_sum"})
    space = EuclideanSpace((1,))
    #: The public bound on every |uᵢ| (the label map's range).
    bound = 1.0

    def __init__(self, total: float | Callable[[], float], n: int):
        self._total = total
        self.n = int(n)
        if self.n < 1:
            raise ParameterError(f"The 'n' parameter of BoundedMeanTemplate must be a positive "
                                 f"number of records. Got {n!r} instead.")

    @property
    def total(self) -> float:
        """Σ uᵢ (computed once, on first use: a statistic of the private data)."""
        if callable(self._total):
            self._total = float(self._total())
        return float(self._total)
