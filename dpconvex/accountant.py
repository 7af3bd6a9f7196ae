"""Old location of the budget ledger: see :mod:`dpconvex.privacy.accounting.ledger`.

A thin re-export, so that ``from dpconvex.accountant import ...`` keeps working.
"""

from .privacy.accounting.ledger import (
    BUDGET_RTOL,
    BudgetAccountant,
    Reservation,
    Spend,
    charge,
    check_budget,
    reserve_budget,
)
from .privacy.accounting.ledger import _check_accountant as _check_accountant

__all__ = [
    "BUDGET_RTOL",
    "BudgetAccountant",
    "Reservation",
    "Spend",
    "charge",
    "check_budget",
    "reserve_budget",
]
