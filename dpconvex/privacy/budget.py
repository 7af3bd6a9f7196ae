"""Privacy budgets: ``Budget(epsilon, delta)`` and the one float-safe split.

Every budget split in dpconvex goes through :func:`split_budget` (shares of one
budget), :func:`split_even` (k equal parts) or :func:`remaining` (what is left
after a spend), so that rounding never makes the parts add up to more than the
whole: with floating point, ``a + (total - a)`` can exceed ``total`` by one ulp,
and a certificate would then claim more than was requested.

δ against n: an (ε, δ) guarantee with δ >= 1/n protects no one (releasing one record drawn
at random is (0, 1/n)-DP). n is public, so every fit compares δ with 1/n before it reads the
data (:func:`~dpconvex.privacy.accounting.hold_budget` warns with a :class:`~dpconvex.errors.PrivacyWarning`
naming the fix) and the certificate states it (:func:`delta_rows_note`, the warning's text);
the guarantee is true as stated, so this warns rather than refuses.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .._validation import check_float
from ..errors import ParameterError

__all__ = ["Budget", "delta_rows_note", "has_positive_delta", "remaining", "split_budget",
           "split_even"]


@dataclass(frozen=True)
class Budget:
    """A privacy budget (ε, δ): the guarantee of an (ε, δ)-differentially private release.

    Parameters
    ----------
    epsilon : float
        ε > 0; ``math.inf`` only for the explicit non-private baseline.
    delta : float, default=0.0
        δ in [0, 1); 0 is pure ε-DP.

    Examples
    --------
    >>> from dpconvex import Budget
    >>> b = Budget(1.0, 1e-6)
    >>> b.epsilon, b.delta, b.private
    (1.0, 1e-06, True)
    >>> Budget.unlimited().private
    False
    """

    epsilon: float
    delta: float = 0.0

    def __post_init__(self) -> None:
        eps = check_float("epsilon", self.epsilon, "Budget", allow_inf=True)
        delta = check_float("delta", self.delta, "Budget", low_inclusive=True, high=1.0)
        object.__setattr__(self, "epsilon", eps)
        object.__setattr__(self, "delta", delta)

    @property
    def private(self) -> bool:
        """False for the infinite (non-private) budget."""
        return math.isfinite(self.epsilon)

    @classmethod
    def unlimited(cls) -> Budget:
        """The budget of a non-private fit (ε = ∞, δ = 0)."""
        return cls(math.inf, 0.0)


def remaining(total: float, spent: float) -> float:
    """Largest float x >= 0 with ``spent + x <= total`` in floating point.

    Parameters
    ----------
    total, spent : float

    Returns
    -------
    float
        ``total - spent``, rounded down by ulps until the sum is not above ``total``.

    Examples
    --------
    >>> from dpconvex.privacy.budget import remaining
    >>> x = remaining(1.0, 0.7)
    >>> 0.7 + x <= 1.0
    True
    >>> round(x, 12)
    0.3
    """
    x = total - spent
    while x > 0 and spent + x > total:
        x = math.nextafter(x, 0.0)
    return x


def split_budget(budget: Budget, fractions: Sequence[float]) -> tuple[Budget, ...]:
    """Split a budget into shares whose sequential composition is at most the whole.

    Share i gets ``fractions[i] * ε`` for every share but the last, which gets
    :func:`remaining` of ε after the others (so the parts add up to at most ε in
    floating point); δ is split the same way.

    ``fractions``: positive shares summing to 1 (within 1e-9); returns a tuple of Budget.

    Examples
    --------
    >>> from dpconvex import Budget
    >>> from dpconvex.privacy.budget import split_budget
    >>> parts = split_budget(Budget(1.0, 1e-6), [0.25, 0.75])
    >>> [round(p.epsilon, 12) for p in parts]
    [0.25, 0.75]
    >>> sum(p.epsilon for p in parts) <= 1.0
    True
    """
    fr = [float(f) for f in fractions]
    if not fr or any(not (f > 0) for f in fr) or abs(sum(fr) - 1.0) > 1e-9:
        raise ParameterError(
            f"split_budget: the fractions must be positive and sum to 1. Got {list(fractions)!r} "
            "instead."
        )
    parts: list[Budget] = []
    eps_spent = 0.0
    delta_spent = 0.0
    for f in fr[:-1]:
        e, d = f * budget.epsilon, f * budget.delta
        parts.append(Budget(e, d))
        eps_spent += e
        delta_spent += d
    parts.append(Budget(remaining(budget.epsilon, eps_spent),
                        remaining(budget.delta, delta_spent) if budget.delta else 0.0))
    return tuple(parts)


def split_even(total: float, k: int) -> float:
    """The largest per-part ε with ``k * part <= total`` in floating point (k equal parts).

    Examples
    --------
    >>> from dpconvex.privacy.budget import split_even
    >>> part = split_even(1.0, 3)
    >>> 3 * part <= 1.0
    True
    >>> round(part, 6)
    0.333333
    """
    part = total / k
    while k * part > total:
        part = math.nextafter(part, 0.0)
    return part


def has_positive_delta(delta: Any) -> bool:
    """Whether ``delta`` is a real number > 0 (None and 0 mean pure ε-DP).

    Examples
    --------
    >>> from dpconvex.privacy.budget import has_positive_delta
    >>> has_positive_delta(1e-6), has_positive_delta(0.0), has_positive_delta(None)
    (True, False, False)
    """
    return isinstance(delta, numbers.Real) and not isinstance(delta, bool) and bool(delta > 0)


def delta_rows_note(delta: Any, n: Any) -> str | None:
    """The certificate's line when δ >= 1/n (n rows, public), else None.

    ``delta`` 0 or None (pure ε-DP) or ``n`` None (the rows, public under replace-one
    adjacency): no line.

    Examples
    --------
    >>> from dpconvex.privacy.budget import delta_rows_note
    >>> delta_rows_note(1e-6, 100) is None, delta_rows_note(0.0, 10) is None
    (True, True)
    >>> delta_rows_note(0.5, 10)[:44]
    'delta = 0.5 is at least 1/n = 0.1 for n = 10'
    """
    if not has_positive_delta(delta) or isinstance(n, bool) or not isinstance(n, numbers.Integral):
        return None
    n = int(n)
    if n < 1 or float(delta) * n < 1.0:
        return None
    return (f"delta = {float(delta):.3g} is at least 1/n = {1.0 / n:.3g} for n = {n} rows (n "
            "public): an (epsilon, delta) guarantee with delta >= 1/n is met by releasing one "
            "whole record at random, so it protects no record; use delta well below 1/n, e.g. "
            f"delta = 1/n^2 = {1.0 / (float(n) * n):.3g}, or delta = 0 (pure epsilon-DP) "
            "(dpconvex.privacy.budget)")
