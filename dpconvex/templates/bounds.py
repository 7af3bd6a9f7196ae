"""Public bounds released from the data: a column's range and a column's vocabulary.

:class:`RangeTemplate` holds n values seen through their counts on the public grid of
:mod:`dpconvex.data.log_grid` (signed octaves cut into equal cells); the mechanism
``"quantile_range"`` releases a range [lo, hi] from them without any starting bound
(docs/privacy/bounds.md#privacy-bounds-range). :class:`VocabularyTemplate` holds the counts of the
categories seen in a column; the mechanism ``"stable_vocabulary"`` releases the
categories whose noisy count clears a threshold ((ε, δ), privacy-bounds-vocabulary). Replacing one record
moves one value from one cell (category) to another: two counts change by 1.

References
----------
.. [Smith11] A. Smith. Privacy-preserving statistical estimation with optimal convergence
   rates. STOC 2011 (the exponential mechanism for quantiles).
.. [KKMN09] A. Korolova, K. Kenthapadi, N. Mishra, A. Ntoulas. Releasing search queries and
   clicks privately. WWW 2009 (the stability-based histogram).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from ..data.log_grid import N_CELLS
from ..errors import ParameterError
from .base import EuclideanSpace, StatisticTemplate

__all__ = ["RangeTemplate", "VocabularyTemplate", "check_levels"]


def check_levels(levels: object, owner: str, name: str = "levels") -> tuple[float, float]:
    """Two quantile levels 0 <= q_lo < q_hi <= 1 (public), as floats.

    Examples
    --------
    >>> from dpconvex.templates.bounds import check_levels
    >>> check_levels((0.01, 0.99), "Demo")
    (0.01, 0.99)
    """
    try:
        lo, hi = (float(v) for v in levels)  # type: ignore[union-attr]
    except (TypeError, ValueError):
        lo = hi = math.nan
    if not (0.0 <= lo < hi <= 1.0):
        raise ParameterError(f"The '{name}' parameter of {owner} must be two quantile levels "
                             f"(q_lo, q_hi) with 0 <= q_lo < q_hi <= 1, e.g. (0.01, 0.99). Got "
                             f"{levels!r} instead.")
    return lo, hi


class RangeTemplate(StatisticTemplate):
    """n values seen through their counts on the public grid: what a private range reads.

    Offers the capability ``"grid_counts"``: ``cell_counts`` (the count of values in each
    cell of :mod:`dpconvex.data.log_grid`, computed on first use), ``levels`` (the public
    quantile levels of the bounds) and ``refine`` (whether the bounds are refined inside
    the coarse range, decided by a public rule: :func:`dpconvex.privacy.rules.bounds.refine_range`).

    Parameters
    ----------
    counts : ndarray of int of shape (N_CELLS,), or callable returning it
        The values' counts per grid cell (:func:`dpconvex.data.log_grid.cell_counts`).
    n : int
        Number of records (public); a record whose value is missing is counted in no cell.
    levels : (float, float)
        Quantile levels (q_lo, q_hi) of the bounds.
    refine : bool
        Refine the bounds inside the coarse range by the exponential mechanism.
    name : str
        What the values are (e.g. "column 'age'"), for the certificate.

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import Budget, release
    >>> from dpconvex.data.log_grid import cell_counts
    >>> from dpconvex.templates.bounds import RangeTemplate
    >>> ages = np.random.default_rng(0).integers(18, 90, 5000).astype(float)
    >>> template = RangeTemplate(cell_counts(ages), 5000, (0.01, 0.99), refine=True)
    >>> lo, hi, _ = release(template, "quantile_range", Budget(1.0), rng=0).theta
    >>> bool(16 <= lo <= 24 and 80 <= hi <= 128)
    True
    """

    name = "range"
    kind = "range"
    derivation = "docs/privacy/bounds.md#privacy-bounds-range"
    capabilities = frozenset({"grid_counts"})
    space = EuclideanSpace((3,))

    def __init__(self, counts: np.ndarray | Callable[[], np.ndarray], n: int,
                 levels: Sequence[float], *, refine: bool, name: str = "values"):
        self._counts = counts
        self.n = int(n)
        if self.n < 1:
            raise ParameterError(f"The 'n' parameter of RangeTemplate must be a positive number "
                                 f"of records. Got {n!r} instead.")
        self.levels = check_levels(levels, "RangeTemplate")
        self.refine = bool(refine)
        self.values_name = str(name)

    @property
    def cell_counts(self) -> np.ndarray:
        """The counts per grid cell (computed once, on first use: a statistic of the data)."""
        if callable(self._counts):
            self._counts = self._counts()
        counts = np.asarray(self._counts, dtype=np.int64)
        if counts.shape != (N_CELLS,) or counts.sum() > self.n or counts.min() < 0:
            raise ParameterError(f"RangeTemplate.cell_counts: the counts must be {N_CELLS} cell "
                                 f"counts summing to at most n = {self.n} (missing values "
                                 "uncounted).")
        return counts


class VocabularyTemplate(StatisticTemplate):
    """The categories seen in a column and their counts: what a private vocabulary reads.

    Offers the capability ``"category_counts"``: ``category_counts`` (the count of each
    category seen, in the order of the categories; a statistic of the data). The released
    vector holds the indices of the categories kept.

    Parameters
    ----------
    counts : array-like of int
        The count of each category seen (every count >= 1).
    n : int
        Number of values (public).
    name : str
        What the values are, for the certificate.

    Examples
    --------
    >>> from dpconvex import Budget, release
    >>> from dpconvex.templates.bounds import VocabularyTemplate
    >>> template = VocabularyTemplate([3000, 1500, 2], 4502)
    >>> release(template, "stable_vocabulary", Budget(1.0, 1e-6), rng=0).theta.tolist()
    [0, 1]
    """

    name = "vocabulary"
    kind = "vocabulary"
    derivation = "docs/privacy/bounds.md#privacy-bounds-vocabulary"
    capabilities = frozenset({"category_counts"})

    def __init__(self, counts: Sequence[int] | np.ndarray, n: int, *, name: str = "values"):
        self.category_counts = np.asarray(counts, dtype=np.int64).reshape(-1)
        self.n = int(n)
        if self.n < 1 or np.any(self.category_counts < 1) or self.category_counts.sum() > self.n:
            raise ParameterError("VocabularyTemplate.__init__: the counts must be positive and "
                                 "sum to at most n, a positive number of records.")
        self.values_name = str(name)
        self.space = EuclideanSpace((max(1, self.category_counts.size),))
