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

__all__ = ["iteration", "say", "verbosity"]

#: The verbosity of the fit running in this context: (level, its start time).
_VERBOSITY: ContextVar[tuple[int, float]] = ContextVar("dpconvex_verbose", default=(0, 0.0))


@contextmanager
def verbosity(level: int) -> Iterator[None]:
    """Print progress at ``level`` (0: nothing; 1: steps of the fit; 2: also solver iterations)."""
    token = _VERBOSITY.set((int(level), time.perf_counter()))
    try:
        yield
    finally:
        _VERBOSITY.reset(token)


def say(message: str, level: int = 1) -> None:
    """Print one progress line with the elapsed time."""
    shown, t0 = _VERBOSITY.get()
    if shown >= level:
        print(f"[dpconvex {time.perf_counter() - t0:7.1f} s] {message}", file=sys.stderr,
              flush=True)


def iteration(solver: str, it: int, residual: float, every: int = 100) -> None:
    """Solver progress every ``every`` iterations at level 2 (not private: a diagnostic)."""
    if _VERBOSITY.get()[0] >= 2 and it % every == 0:
        say(f"{solver}: iteration {it}, optimality residual {residual:.3g} (not private)", 2)
