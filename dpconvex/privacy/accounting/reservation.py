"""A :class:`Reservation`: budget held on a ledger by a release in progress."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ...errors import ParameterError

if TYPE_CHECKING:  # pragma: no cover
    from .ledger import BudgetAccountant, Spend

__all__ = ["Reservation"]


class Reservation:
    """Budget held on a :class:`BudgetAccountant` by a release in progress.

    Made by :meth:`BudgetAccountant.reserve`. Exactly one of :meth:`commit`,
    :meth:`commit_certificate` or :meth:`release` takes effect; later calls
    raise :class:`~dpconvex.errors.ParameterError` (commit) or do nothing
    (release). As a context manager: an exception releases the hold; a normal
    exit without a commit commits the reserved (ε, δ) (a release may have been
    made, so the conservative choice).

    Attributes
    ----------
    label : str
    epsilon, delta : float
        The reserved guarantee.
    state : {"open", "committed", "released"}
    """

    def __init__(self, accountant: BudgetAccountant | None, key: int, hold: Spend):
        self._accountant = accountant
        self._key = key
        self.label = hold.label
        self.epsilon = hold.epsilon
        self.delta = hold.delta
        self.state = "open"

    def commit(self, epsilon: float | None = None, delta: float | None = None) -> Spend | None:
        """Record the final guarantee (default: the reserved one) in place of the hold.

        Call it before storing the fitted attributes: if the final (ε, δ) is
        larger than reserved and no longer fits, :class:`BudgetError` is raised,
        the hold is released and nothing is recorded.

        Returns
        -------
        Spend, or None for the no-op reservation of ``accountant=None``.
        """
        if self.state != "open":
            raise ParameterError(f"This reservation is already {self.state}; reserve again.")
        if self._accountant is None:
            self.state = "committed"
            return None
        try:
            spend = self._accountant._commit(self._key, epsilon, delta)
        except BaseException:
            self.state = "released"
            raise
        self.state = "committed"
        return spend

    def commit_certificate(self, certificate: Any) -> Spend | None:
        """:meth:`commit` the certificate's (ε, δ); a non-private certificate commits ε = inf."""
        eps = float(certificate.epsilon) if certificate.private else math.inf
        return self.commit(eps, float(certificate.delta))

    def release(self) -> None:
        """Give the held budget back (the release failed or was abandoned)."""
        if self.state == "open" and self._accountant is not None:
            self._accountant._release(self._key)
        if self.state == "open":
            self.state = "released"

    def __enter__(self) -> Reservation:
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is not None:
            self.release()
        elif self.state == "open":
            self.commit()

    def __repr__(self) -> str:
        return (f"Reservation({self.label!r}, epsilon={self.epsilon:.6g}, "
                f"delta={self.delta:.3g}, {self.state})")
