"""Privacy accounting: the thread-safe budget ledger (:class:`BudgetAccountant`)."""

from .ledger import (
    BUDGET_RTOL,
    BudgetAccountant,
    Reservation,
    Spend,
    charge,
    check_budget,
    reserve_budget,
)

__all__ = [
    "BUDGET_RTOL",
    "BudgetAccountant",
    "Reservation",
    "Spend",
    "charge",
    "check_budget",
    "reserve_budget",
]
