"""A ridge regression stated by its sufficient statistics: A = Σ x̃x̃ᵀ and b = Σ u x̃.

The squared-loss problem min_θ Σ_i (θᵀx̃_i − u_i)² + λ‖θ‖² depends on the records only
through A and b, so a mechanism can perturb them instead of an objective
(sufficient-statistics perturbation, Wang 2018;
docs/privacy/sufficient_statistics.md#privacy-sufficient-statistics). The template holds
the public facts the mechanisms calibrate from (n, p, the row bound q̃, the label bound
1, a ridge given by the caller) and computes A and b when a mechanism first asks for
them (:func:`dpconvex.data.sufficient.sufficient_statistics`: one pass over the rows).
It never chooses a solver: the mechanisms post-process the noisy statistics in closed
form.

References
----------
.. [Wan18] Y.-X. Wang. Revisiting differentially private linear regression: optimal and
   adaptive prediction & estimation in unbounded domain. UAI 2018, Alg. 2 (AdaSSP).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from functools import cached_property

import numpy as np

from ..data.sufficient import Moments
from ..errors import ParameterError
from .base import EuclideanSpace, StatisticTemplate

__all__ = ["SufficientStatisticsTemplate", "zero_statistics"]


class SufficientStatisticsTemplate(StatisticTemplate):
    """Rows x̃ with ‖x̃‖ <= q̃ and labels |u| <= 1, seen through A = Σ x̃x̃ᵀ and b = Σ u x̃.

    Offers the capability ``"sufficient_statistics"``: ``gram`` (A), ``cross`` (b),
    ``data_norm`` (q̃), ``ridge`` and ``p``.

    Parameters
    ----------
    statistics : Moments or callable
        The statistics, or a function computing them on first use (the clipping and the
        label map are the caller's per-record maps: ‖x̃‖ <= ``data_norm`` and |u| <= 1 must
        hold by construction).
    n, p : int
        Rows and columns of the design (public).
    data_norm : float
        The public bound q̃ on every row's norm (the intercept column included).
    ridge : float or None, default=None
        λ given by the caller, in the units of the sums; None: the mechanism's adaptive
        rule chooses it from a private estimate of λ_min(A).
    free : int or None, default=None
        The coordinate the ridge leaves out (the intercept column, public): its coefficient
        is not shrunk towards 0, as in scikit-learn's ``Ridge``.
    free_value : float or None, default=None
        The public value s of the ``free`` column in every row (the intercept scaling): its
        diagonal entry of A is n·s², known without the data.
    notes : sequence of str, default=()
        Public facts for the certificate (how the rows and labels were mapped).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex.data.sufficient import sufficient_statistics
    >>> from dpconvex.templates.sufficient_statistics import SufficientStatisticsTemplate
    >>> X = np.array([[0.6, 0.0], [0.0, 0.8], [0.3, 0.3]]); u = np.array([1.0, -1.0, 0.5])
    >>> t = SufficientStatisticsTemplate(lambda: sufficient_statistics(X, u, 1.0, None),
    ...                                  n=3, p=2, data_norm=1.0)
    >>> t.gram.round(2).tolist(), t.cross.round(2).tolist()
    ([[0.45, 0.09], [0.09, 0.73]], [0.75, -0.65])
    """

    name = "sufficient statistics"
    kind = "linear_ssp"
    derivation = "docs/privacy/sufficient_statistics.md#privacy-sufficient-statistics"
    capabilities = frozenset({"sufficient_statistics"})

    def __init__(self, statistics: Moments | Callable[[], Moments], n: int, p: int,
                 data_norm: float, *, ridge: float | None = None, free: int | None = None,
                 free_value: float | None = None, notes: Sequence[str] = ()):
        self._statistics = statistics
        self.n, self.p = int(n), int(p)
        self.data_norm = float(data_norm)
        if not (math.isfinite(self.data_norm) and self.data_norm > 0):
            raise ParameterError("The 'data_norm' argument of SufficientStatisticsTemplate must "
                                 f"be a finite float > 0. Got {data_norm!r} instead.")
        self.ridge = None if ridge is None else float(ridge)
        self.free = None if free is None else int(free)
        self.free_value = None if free is None or free_value is None else float(free_value)
        self.notes = tuple(notes)
        self.space = EuclideanSpace((self.p,))

    @cached_property
    def _moments(self) -> Moments:
        stats = self._statistics() if callable(self._statistics) else self._statistics
        if stats.gram.shape != (self.p, self.p) or stats.cross.shape != (self.p,):
            raise ParameterError(
                f"SufficientStatisticsTemplate.gram: the statistics have shapes {stats.gram.shape} "
                f"and {stats.cross.shape}, not ({self.p}, {self.p}) and ({self.p},). Compute "
                "them on the p columns of the design.")
        return stats

    @property
    def gram(self) -> np.ndarray:
        """A = Σ x̃x̃ᵀ, shape (p, p)."""
        return self._moments.gram

    @property
    def cross(self) -> np.ndarray:
        """b = Σ u x̃, shape (p,)."""
        return self._moments.cross

    def assumptions(self, needs: Iterable[str]) -> list[str]:
        return list(self.notes)

    def __repr__(self) -> str:
        return f"SufficientStatisticsTemplate(n={self.n}, p={self.p}, q~={self.data_norm:g})"


def zero_statistics(p: int) -> Moments:
    """A = 0 and b = 0 of the shape (p, p), (p,): the template of a plan without data.

    Examples
    --------
    >>> from dpconvex.templates.sufficient_statistics import zero_statistics
    >>> zero_statistics(2).gram.shape
    (2, 2)
    """
    return Moments(np.zeros((p, p)), np.zeros(p), 0)
