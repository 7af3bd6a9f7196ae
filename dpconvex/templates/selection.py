"""Selection among candidates by a utility with bounded sensitivity (the exponential mechanism's problem)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import EuclideanSpace, StatisticTemplate

__all__ = ["SelectionTemplate"]

#: The utility of the classifiers' selections: minus the mistakes on the held-out part
#: (formatted with the sensitivity).
MISTAKES = ("u_i = -(mistakes of candidate i on the held-out part); replacing one held-out "
            "record changes each u_i by at most {sensitivity:g}")


class SelectionTemplate(StatisticTemplate):
    """Utilities u_i of candidates computed on the private data, with a public sensitivity.

    Parameters
    ----------
    utilities : array-like of shape (m,)
        u_i (higher is better), e.g. minus the validation mistakes of candidate i.
    sensitivity : float
        Public bound on |u_i(D) − u_i(D′)| for adjacent D, D′ (1 for mistake counts).
    n : int
        Number of records the utilities read (public).
    description : str or None, default=None
        What u_i is and why one record moves it by at most ``sensitivity`` (the
        certificate's line); None: minus the validation mistakes (:data:`MISTAKES`).

    Examples
    --------
    >>> from dpconvex import Budget, release
    >>> from dpconvex.templates.selection import SelectionTemplate
    >>> template = SelectionTemplate([0.2, 0.9, 0.4], sensitivity=1.0, n=100)
    >>> template.kind, sorted(template.capabilities)
    ('selection', ['utilities'])
    >>> release(template, "exponential", Budget(1.0), rng=0).theta.shape
    (1,)
    """

    name = "selection by utility"
    kind = "selection"
    derivation = "docs/privacy/tuning_gd_ledger.md#privacy-private-tuning"
    capabilities = frozenset({"utilities"})
    space = EuclideanSpace((1,))  # the released value is one index

    def __init__(self, utilities: Any, sensitivity: float, n: int,
                 description: str | None = None):
        self.utilities = np.asarray(utilities, dtype=float)
        self.sensitivity = float(sensitivity)
        self.n = int(n)
        self.description = (MISTAKES.format(sensitivity=self.sensitivity) if description is None
                            else str(description))

    @property
    def noise_shape(self) -> tuple[int, ...]:
        return (int(self.utilities.size),)
