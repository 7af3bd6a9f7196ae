"""Privacy accounting: the thread-safe budget ledger (:class:`BudgetAccountant`)."""

from .ledger import *  # noqa: F403
from .ledger import __all__  # noqa: F401
