"""Privacy: budgets, certificates, mechanisms, release, accounting."""
