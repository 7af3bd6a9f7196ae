"""NOT PRIVATE: the data holder's channels, diagnostics and progress (what a warning must not say).

Facts about the data (how many rows were scaled down to the norm bound, which labels
were outside ``classes=``) and the solves behind releases go to every open
:func:`collect_diagnostics` context and nowhere else: never onto a fitted model, into a
certificate, a warning or an exception. Progress lines of long fits (``verbose=``,
:func:`verbosity`) go to stderr and may show data-dependent figures (residuals,
iterations) the same way: shown, never stored. These are the two user-facing contexts
of a fit; every layer reports through this module, which imports nothing from dpconvex.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

__all__ = ["MAX_NOTE_VALUES", "DiagnosticNote", "Diagnostics", "collect_diagnostics",
           "diagnostics_open", "iteration", "note_clipped", "record_diagnostic", "record_solve",
           "say", "verbosity"]


@dataclass(frozen=True)
class DiagnosticNote:
    """NOT PRIVATE: one fact about the data, for the data holder (never stored, never released).

    Attributes
    ----------
    owner : str
        The estimator or function that recorded it.
    what : str
        What was counted, e.g. "rows scaled down to data_norm".
    count : int or None
        How many records it concerns.
    n : int or None
        Out of how many records.
    values : tuple
        Examples of the values concerned (e.g. the labels outside ``classes=``), at most
        :data:`MAX_NOTE_VALUES`.
    """

    owner: str
    what: str
    count: int | None = None
    n: int | None = None
    values: tuple[Any, ...] = ()

    def __str__(self) -> str:
        share = f"{self.count} of {self.n}" if self.n is not None else f"{self.count}"
        shown = f" ({', '.join(map(repr, self.values))})" if self.values else ""
        return f"{self.owner}: {share} {self.what}{shown}"


#: The most values a :class:`DiagnosticNote` keeps.
MAX_NOTE_VALUES = 20


class Diagnostics(list):  # type: ignore[type-arg]
    """NOT PRIVATE: what :func:`collect_diagnostics` yields: the
    :class:`~dpconvex.templates.base.SolveResult` of every solve, and :attr:`notes`."""

    def __init__(self) -> None:
        super().__init__()
        self.notes: list[DiagnosticNote] = []

    def note(self, what: str) -> DiagnosticNote | None:
        """The last note whose ``what`` contains ``what`` (None if there is none)."""
        found = [m for m in self.notes if what in m.what]
        return found[-1] if found else None


#: The not-private diagnostic channel: the open collectors (innermost last).
_DIAGNOSTICS: ContextVar[tuple[Diagnostics, ...]] = ContextVar("dpconvex_diagnostics", default=())


@contextmanager
def collect_diagnostics() -> Iterator[Diagnostics]:
    """NOT PRIVATE: collect the diagnostics of every fit and release made in this context.

    The diagnostics (residuals, iterations, time; rows scaled down to the norm bound, labels
    outside ``classes=``) depend on the data: they are for the data holder, never stored or
    shown in a warning, and must not be published with a model
    (docs/privacy/messages.md#privacy-messages).

    Yields
    ------
    Diagnostics
        The :class:`~dpconvex.templates.base.SolveResult` of each solve (solver-free mechanisms
        add nothing), and ``.notes``, the :class:`DiagnosticNote` facts about the data.

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import PrivateLogisticRegression, collect_diagnostics
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 2)); y = (X[:, 0] > 0).astype(int)
    >>> clf = PrivateLogisticRegression(classes=[0, 1], random_state=0)
    >>> with collect_diagnostics() as diag:
    ...     _ = clf.fit(X, y)
    >>> len(diag), diag[-1].residual <= 1e-6  # one solve, to the release tolerance
    (1, True)
    >>> print(diag.note("scaled down"))  # a count of records: for the data holder only
    PrivateLogisticRegression: 63 of 100 rows scaled down to data_norm=1 (norm above it)
    """
    found = Diagnostics()
    token = _DIAGNOSTICS.set((*_DIAGNOSTICS.get(), found))  # nested collectors all receive
    try:
        yield found
    finally:
        _DIAGNOSTICS.reset(token)


#: ``diagnostics_open()``: the open :func:`collect_diagnostics` collectors (empty when none
#: is): compute a fact only when it is not empty.
diagnostics_open = _DIAGNOSTICS.get


def record_diagnostic(owner: str, what: str, count: int | None = None, n: int | None = None,
                      values: Any = ()) -> None:
    """NOT PRIVATE: record a :class:`DiagnosticNote` in every open collector (no-op when none
    is): the data holder's channel for what a warning must not say (counts, shares, values
    of records; the first :data:`MAX_NOTE_VALUES` values are kept)."""
    sinks = _DIAGNOSTICS.get()
    if not sinks:
        return
    note = DiagnosticNote(owner, what, None if count is None else int(count),
                          None if n is None else int(n), tuple(values)[:MAX_NOTE_VALUES])
    for sink in sinks:
        sink.notes.append(note)


def note_clipped(n_clipped: int, n: int, bound: float, owner: str) -> None:
    """NOT PRIVATE: record how many rows clipping to the public norm bound scaled down.

    A data statistic (one record changes it), so no warning says it: it goes to
    :func:`collect_diagnostics` (``diag.note("scaled down")``). Many clipped rows can erase
    the signal: scale features by public ranges first, or raise ``data_norm``.
    """
    if diagnostics_open():  # the line is built only for an open collector
        record_diagnostic(owner, f"rows scaled down to data_norm={bound:g} (norm above it)",
                          n_clipped, n)


def record_solve(res: Any) -> None:
    """NOT PRIVATE: add a solve's diagnostics to every open collector (no-op when none is)."""
    for sink in _DIAGNOSTICS.get():
        sink.append(res)


# ---------------------------------------------------------------- progress (verbose=)
#: The verbosity of the fit running in this context: (level, its start time).
_VERBOSITY: ContextVar[tuple[int, float]] = ContextVar("dpconvex_verbose", default=(0, 0.0))


@contextmanager
def verbosity(level: int) -> Iterator[None]:
    """NOT PRIVATE: print the progress of every fit and release made in this context to stderr.

    Parameters
    ----------
    level : int
        0: nothing; 1: the steps of each fit, with the elapsed time; 2 (or more): also the
        solvers' iterations and residuals, figures of the data: shown, never stored.
        ``PrivateLargeMarginGaussian(verbose=...)`` sets it for its own fits.

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import PrivateLogisticRegression, verbosity
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 2)); y = (X[:, 0] > 0).astype(int)
    >>> with verbosity(1):  # one line per step of the fit, on stderr
    ...     clf = PrivateLogisticRegression(classes=[0, 1], random_state=0).fit(X, y)
    """
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
