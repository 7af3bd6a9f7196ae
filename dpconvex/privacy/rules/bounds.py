"""Rules of the private bounds: when a range is refined, and the budget of a label range.

Both are public functions of (n, ε, the quantile levels): no rule reads the data
(docs/privacy/bounds.md#privacy-bounds-range, privacy-private-label-range).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..mechanisms.bounds import COARSE_SHARE, FAILURE_PROBABILITY

__all__ = ["DEFAULT_LEVELS", "LABEL_SHARE", "MIN_RECORDS_EPSILON", "REFERENCE_CANDIDATES",
           "RangeChoice", "refine_range"]

#: The quantile levels of a released range when none are given: 1 % of the values may lie
#: below it and 1 % above (when the budget resolves them, else the coarse range stands).
DEFAULT_LEVELS = (0.01, 0.99)
#: The candidate edges the refinement rule assumes (8 octaves of 16 cells).
REFERENCE_CANDIDATES = 128
#: The least n·ε of one released range: below it the histogram over 167 octaves cannot tell
#: the octaves holding the values from empty ones (the largest of 166 Laplace(2/ε) draws is
#: about (2/ε) ln 166 ≈ 10/ε, against a third of the records in the modal octave of data
#: spread over three octaves: 20/ε at n·ε = 60), and a range far from the data could be
#: released. The release is refused before anything is read (docs/privacy/bounds.md#privacy-bounds-range).
MIN_RECORDS_EPSILON = 60.0
#: The share of a regressor's ε spent on its label range with ``label_range="private"``.
LABEL_SHARE = 0.1


@dataclass(frozen=True)
class RangeChoice:
    """Whether a range is refined inside its coarse range, and why (public).

    Parameters
    ----------
    refine : bool
        Whether the range is refined by quantiles.
    reason : str
        Why (the certificate's line).

    Examples
    --------
    >>> from dpconvex.privacy.rules.bounds import RangeChoice, refine_range
    >>> isinstance(refine_range(10000, 1.0, (0.01, 0.99)), RangeChoice)
    True
    """

    refine: bool
    reason: str


def refine_range(n: int, epsilon: float, levels: tuple[float, float]) -> RangeChoice:
    """Refine the coarse range by quantiles only when the budget resolves the levels.

    The exponential mechanism on ≤ G candidate edges with utility −|rank − q n| (sensitivity 1) lands within
    rank (2/ε_q) ln(G/β) of its level with probability ≥ 1 − β. The bounds are refined when that is at most
    half of the smaller tail, min(q_lo, 1 − q_hi) · n / 2, with ε_q = ε (1 − COARSE_SHARE) / 2, G = 128 and β
    = 10⁻³; otherwise the whole ε goes to the coarse histogram, whose range is then released as it is.

    Parameters
    ----------
    n : int
        The number of records.
    epsilon : float
        ε of the range.
    levels : tuple of (float, float)
        (q_lo, q_hi).

    Returns
    -------
    RangeChoice

    References
    ----------
    [MT07]_ (the exponential mechanism).

    Examples
    --------
    >>> from dpconvex.privacy.rules.bounds import refine_range
    >>> refine_range(100_000, 1.0, (0.01, 0.99)).refine
    True
    >>> refine_range(2_000, 0.1, (0.01, 0.99)).refine
    False
    """
    tail = min(levels[0], 1.0 - levels[1])
    eps_q = epsilon * (1.0 - COARSE_SHARE) / 2.0
    error = (
        2.0 / eps_q * math.log(REFERENCE_CANDIDATES / FAILURE_PROBABILITY)
        if eps_q > 0
        else math.inf
    )
    need = 0.5 * tail * n
    if tail > 0 and error <= need:
        return RangeChoice(
            True,
            (
                f"range refined by quantiles at levels ({levels[0]:g}, {levels[1]:g}): the rank "
                "error bound "
                f"(2/eps_q) ln(G/beta) = {error:.4g} is at most half the smaller tail ({need:.4g} "
                "values; n "
                f"= {n}, eps_q = {eps_q:.4g}; docs/privacy/bounds.md#privacy-bounds-range)"
            ),
        )
    return RangeChoice(False, (
        f"coarse range only: the levels ({levels[0]:g}, {levels[1]:g}) need a rank error of at "
        f"most {need:.4g} values and the budget gives {error:.4g} (n = {n}); the whole epsilon "
        "goes to the histogram over octaves (docs/privacy/bounds.md#privacy-bounds-range)"))
