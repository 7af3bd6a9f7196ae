"""Re-export of :mod:`dpconvex.privacy.certificate` (its home since the architecture step)."""

from .privacy.certificate import Certificate, Condition, compose_parallel, compose_sequential

__all__ = ["Certificate", "Condition", "compose_parallel", "compose_sequential"]
