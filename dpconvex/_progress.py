"""Progress messages for long fits (``verbose=``), printed to stderr for the data holder.

Messages may show data-dependent diagnostics (residuals, iterations): they are
shown, never stored on a model or in a certificate (DESIGN.md §4), like warnings.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["enabled", "iteration", "say", "verbosity"]

_LEVEL: ContextVar[int] = ContextVar("dpconvex_verbose", default=0)
_T0: ContextVar[float] = ContextVar("dpconvex_verbose_t0", default=0.0)


@contextmanager
def verbosity(level: int) -> Iterator[None]:
    """Print progress at ``level`` (0: nothing; 1: steps of the fit; 2: also solver iterations)."""
    token = _LEVEL.set(int(level))
    token_t = _T0.set(time.perf_counter())
    try:
        yield
    finally:
        _LEVEL.reset(token)
        _T0.reset(token_t)


def enabled(level: int = 1) -> bool:
    """Whether messages of ``level`` are printed."""
    return _LEVEL.get() >= level


def say(message: str, level: int = 1) -> None:
    """Print one progress line with the elapsed time."""
    if _LEVEL.get() >= level:
        print(f"[dpconvex {time.perf_counter() - _T0.get():7.1f} s] {message}", file=sys.stderr,
              flush=True)


def iteration(solver: str, it: int, residual: float, every: int = 100) -> None:
    """Solver progress every ``every`` iterations at level 2 (not private: a diagnostic)."""
    if _LEVEL.get() >= 2 and it % every == 0:
        say(f"{solver}: iteration {it}, optimality residual {residual:.3g} (not private)", 2)
