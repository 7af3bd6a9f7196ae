"""A privacy-budget ledger: sequential and parallel composition of (ε, δ) spends.

A :class:`BudgetAccountant` holds a total budget (ε, δ) for one data set and
records every private release made from it. Releases compose

* **sequentially** by default: the ε's add and the δ's add (basic composition,
  Dwork, McSherry, Nissim & Smith 2006; Dwork & Roth 2014, Thm. 3.16);
* **in parallel** inside a :meth:`BudgetAccountant.parallel` block, for
  releases computed on *disjoint* subsets of the records: the block costs the
  maximum ε and the maximum δ of its spends (McSherry 2009, Thm. 4), because
  one record influences at most one of them.

Estimators take ``accountant=None`` or a ledger and make two calls, both no-ops
when the ledger is None::

    from dpconvex.accountant import charge, check_budget

    def fit(self, X, y):
        ...validate parameters...
        check_budget(self.accountant, self.epsilon, delta, owner=type(self).__name__)
        ...fit, build self.certificate_...
        charge(self.accountant, certificate, label=type(self).__name__)

The first refuses (with :class:`~dpconvex.errors.BudgetError`) before any
computation when the requested (ε, δ) does not fit in what remains; the second
records what the certificate guarantees (never more than was requested).

.. warning:: The ledger trusts its caller on two points: that every release
   from the data set is charged to it, and that releases grouped in a
   ``parallel()`` block really read disjoint records. Basic composition is
   conservative; a tighter (advanced or RDP) composition of many small spends
   is not attempted.

References
----------
.. [DR14] C. Dwork, A. Roth. The Algorithmic Foundations of Differential
   Privacy. Found. Trends Theor. Comput. Sci. 9 (2014), Thm. 3.16 (basic
   composition).
.. [McS09] F. McSherry. Privacy Integrated Queries. SIGMOD 2009, Thm. 4
   (parallel composition over disjoint subsets).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ._validation import check_float
from .errors import BudgetError, ParameterError

__all__ = ["BudgetAccountant", "Spend", "charge", "check_budget"]

#: Relative slack of the budget comparison, absorbing floating-point rounding
#: of the sums (e.g. ten spends of 0.1 against a budget of 1.0).
BUDGET_RTOL = 1e-9


@dataclass(frozen=True)
class Spend:
    """One recorded release.

    Attributes
    ----------
    label : str
        What was released (e.g. the estimator's name).
    epsilon, delta : float
        Its (ε, δ) guarantee.
    group : int or None
        Index of the ``parallel()`` block the spend belongs to; None for a
        sequential spend.
    """

    label: str
    epsilon: float
    delta: float
    group: int | None = None


class BudgetAccountant:
    """Ledger of the privacy budget of one data set ([DR14]_, [McS09]_).

    Parameters
    ----------
    epsilon : float
        Total ε budget, > 0 (``math.inf`` to record without a limit). There is
        no default: an unlimited budget must be asked for explicitly.
    delta : float, default=0.0
        Total δ budget, in [0, 1).

    Attributes
    ----------
    spends : list of Spend
        Every recorded spend, in order.
    spent : tuple of float
        (ε, δ) spent so far: sequential spends add; each ``parallel()`` block
        counts once, with the maximum ε and maximum δ of its spends.
    remaining : tuple of float
        (ε, δ) left.

    Examples
    --------
    >>> acc = BudgetAccountant(epsilon=1.0)
    >>> acc.spend(0.25, label="histogram")
    >>> with acc.parallel():
    ...     acc.spend(0.5, label="model on part A")
    ...     acc.spend(0.5, label="model on part B")
    >>> acc.spent
    (0.75, 0.0)

    Notes
    -----
    Copying a ledger (``copy.copy``, ``copy.deepcopy``, and therefore
    ``sklearn.base.clone`` of an estimator holding it) returns the same
    ledger: two copies could otherwise each spend the whole budget.
    """

    def __init__(self, epsilon: float, delta: float = 0.0):
        owner = type(self).__name__
        self._epsilon = check_float("epsilon", epsilon, owner, allow_inf=True)
        self._delta = check_float("delta", delta, owner, low=0.0, high=1.0, low_inclusive=True)
        self._spends: list[Spend] = []
        self._group: int | None = None
        self._n_groups = 0

    # -- budget -----------------------------------------------------------
    @property
    def epsilon(self) -> float:
        """Total ε budget (read-only)."""
        return self._epsilon

    @property
    def delta(self) -> float:
        """Total δ budget (read-only)."""
        return self._delta

    @property
    def spends(self) -> list[Spend]:
        """A copy of the list of recorded spends."""
        return list(self._spends)

    @staticmethod
    def _total(spends: list[Spend]) -> tuple[float, float]:
        eps: list[float] = []
        dels: list[float] = []
        groups: dict[int, tuple[float, float]] = {}
        for s in spends:
            if s.group is None:
                eps.append(s.epsilon)
                dels.append(s.delta)
            else:
                e0, d0 = groups.get(s.group, (0.0, 0.0))
                groups[s.group] = (max(e0, s.epsilon), max(d0, s.delta))
        for e, d in groups.values():
            eps.append(e)
            dels.append(d)
        return math.fsum(eps), math.fsum(dels)

    @property
    def spent(self) -> tuple[float, float]:
        """(ε, δ) spent: sequential sum, with each parallel block counted by its max."""
        return self._total(self._spends)

    @property
    def remaining(self) -> tuple[float, float]:
        """(ε, δ) left (never negative)."""
        e, d = self.spent
        return max(self._epsilon - e, 0.0), max(self._delta - d, 0.0)

    # -- spending ---------------------------------------------------------
    def _validate(self, epsilon: Any, delta: Any) -> tuple[float, float]:
        owner = type(self).__name__
        e = check_float("epsilon", epsilon, owner, low=0.0, low_inclusive=True, allow_inf=True)
        d = check_float("delta", delta, owner, low=0.0, high=1.0, low_inclusive=True,
                        high_inclusive=True)
        return e, d

    def _would_spend(self, epsilon: float, delta: float) -> tuple[float, float]:
        probe = Spend("(check)", epsilon, delta, self._group)
        return self._total([*self._spends, probe])

    @staticmethod
    def _exceeds(total: float, budget: float) -> bool:
        if math.isinf(budget):
            return False
        return total > budget * (1.0 + BUDGET_RTOL) + 1e-15

    def check(self, epsilon: float, delta: float = 0.0) -> None:
        """Raise :class:`BudgetError` if spending (ε, δ) now would exceed the budget.

        Inside a ``parallel()`` block the spend is composed by max with the
        other spends of the block.
        """
        e, d = self._validate(epsilon, delta)
        te, td = self._would_spend(e, d)
        if self._exceeds(te, self._epsilon) or self._exceeds(td, self._delta):
            re, rd = self.remaining
            where = " (inside a parallel block)" if self._group is not None else ""
            raise BudgetError(
                f"Spending (epsilon={e:.6g}, delta={d:.3g}){where} would bring the total to "
                f"(epsilon={te:.6g}, delta={td:.3g}), over the budget (epsilon="
                f"{self._epsilon:.6g}, delta={self._delta:.3g}). Remaining: (epsilon={re:.6g}, "
                f"delta={rd:.3g}). Lower the estimator's epsilon (or delta), or use a fresh "
                "data set."
            )

    def spend(self, epsilon: float, delta: float = 0.0, label: str = "") -> None:
        """Record a release of guarantee (ε, δ); raise :class:`BudgetError` if it overspends.

        Nothing is recorded when it would overspend.
        """
        self.check(epsilon, delta)
        e, d = self._validate(epsilon, delta)
        self._spends.append(Spend(str(label), e, d, self._group))

    @contextmanager
    def parallel(self) -> Iterator[BudgetAccountant]:
        """Block whose spends are on disjoint records: it costs their max ε and max δ.

        Blocks do not nest. Spends recorded before an exception inside the
        block stay recorded.

        .. warning:: Use it only when every spend in the block reads a
           different, disjoint subset of the records (e.g. models trained on
           the parts of a random partition); otherwise the ledger undercounts.
        """
        if self._group is not None:
            raise ParameterError(
                "BudgetAccountant.parallel() blocks cannot be nested: one record would be "
                "counted in several branches. Close the outer block first."
            )
        self._group = self._n_groups
        self._n_groups += 1
        try:
            yield self
        finally:
            self._group = None

    # -- identity ---------------------------------------------------------
    def __copy__(self) -> BudgetAccountant:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> BudgetAccountant:
        return self

    def __repr__(self) -> str:
        e, d = self.spent
        return (f"BudgetAccountant(epsilon={self._epsilon:g}, delta={self._delta:g}; spent "
                f"epsilon={e:.6g}, delta={d:.3g} in {len(self._spends)} spend(s))")


def _check_accountant(accountant: Any, owner: str) -> BudgetAccountant | None:
    if accountant is None or isinstance(accountant, BudgetAccountant):
        return accountant
    raise ParameterError(
        f"The 'accountant' parameter of {owner} must be a BudgetAccountant or None. "
        f"Got {accountant!r} instead."
    )


def check_budget(accountant: BudgetAccountant | None, epsilon: float, delta: float = 0.0,
                 owner: str = "estimator") -> None:
    """Before a fit: raise :class:`BudgetError` if (ε, δ) does not fit in the ledger.

    No-op when ``accountant`` is None. Call it after validating the
    parameters and before touching the data.

    Raises
    ------
    ParameterError
        If ``accountant`` is neither None nor a :class:`BudgetAccountant`.
    BudgetError
        If the spend would exceed the remaining budget.
    """
    acc = _check_accountant(accountant, owner)
    if acc is not None:
        acc.check(epsilon, delta)


def charge(accountant: BudgetAccountant | None, certificate: Any, label: str) -> None:
    """After a fit: record the guarantee of ``certificate`` in the ledger.

    No-op when ``accountant`` is None. A non-private certificate
    (``certificate.private`` False) is charged ε = inf, which only an
    unlimited ledger accepts. Call it before storing the fitted attributes,
    so a refused charge leaves no fitted model behind.

    Parameters
    ----------
    accountant : BudgetAccountant or None
    certificate : Certificate
        Its ``epsilon`` and ``delta`` are recorded.
    label : str
        Name of the release in the ledger.

    Raises
    ------
    ParameterError, BudgetError
    """
    acc = _check_accountant(accountant, label)
    if acc is None:
        return
    eps = float(certificate.epsilon) if certificate.private else math.inf
    acc.spend(eps, float(certificate.delta), label=label)
