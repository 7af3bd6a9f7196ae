"""What dpconvex tells a person: the exceptions and warnings it raises, and the data
holder's channels.

Every error names the offending part and says what to change. Errors about user input derive from
:class:`ValueError` (so scikit-learn's conventions and ``except ValueError`` catch them); solver failures
derive from :class:`RuntimeError`. No exception or warning carries a statistic of the data.

NOT PRIVATE, the data holder's channels (what a warning must not say): facts about the data
(how many rows were scaled down to the norm bound, which labels were outside ``classes=``)
and the solves behind releases go to every open :func:`collect_diagnostics` context and
nowhere else: never onto a fitted model, into a certificate, a warning or an exception.
Progress lines of long fits (``verbose=``, :func:`verbosity`) go to stderr and may show
data-dependent figures (residuals, iterations) the same way: shown, never stored. These are
the two user-facing contexts of a fit (docs/privacy/messages.md#privacy-messages); every
layer reports through this module, which imports nothing from dpconvex.
"""

from __future__ import annotations

__all__ = [
    "BudgetError",
    "BudgetPickleError",
    "BudgetProcessError",
    "DPConvexError",
    "DataTypeError",
    "DataValidationError",
    "DatasetError",
    "NotFittedError",
    "ParameterError",
    "PrivacyError",
    "PrivacyLeakWarning",
    "PrivacyWarning",
    "SolverError",
    "collect_diagnostics",
    "user_stacklevel",
    "verbosity",
]

import contextlib
import importlib.util
import numbers
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from sklearn.exceptions import NotFittedError as _SkNotFittedError

#: Frames a warning skips to reach the user's: dpconvex's, contextlib's, scikit-learn's and joblib's.
_SKIPPED = (os.path.dirname(os.path.abspath(__file__)) + os.sep,
            os.path.join(os.path.dirname(os.path.abspath(contextlib.__file__)), "contextlib"),
            *(os.path.dirname(os.path.abspath(importlib.util.find_spec(name).origin)) + os.sep
              for name in ("sklearn", "joblib")))


def user_stacklevel() -> int:
    """The ``stacklevel`` that points a warning at the first frame outside dpconvex.

    Call it in the function that calls :func:`warnings.warn`: a warning of a fit made of fits
    (one-vs-rest, a front door's learner, a search's candidate) then names the user's line,
    however deep the fit issued it.

    Examples
    --------
    >>> import warnings
    >>> from dpconvex.errors import user_stacklevel
    >>> def check():
    ...     warnings.warn("demo", UserWarning, stacklevel=user_stacklevel())
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     check()
    >>> caught[0].lineno > 0
    True
    """
    frame, level = sys._getframe(2), 2
    while frame is not None and frame.f_code.co_filename.startswith(_SKIPPED):
        frame, level = frame.f_back, level + 1
    return level


class DPConvexError(Exception):
    """Base class of every exception raised by dpconvex.

    Examples
    --------
    >>> from dpconvex.errors import DPConvexError, ParameterError, SolverError
    >>> issubclass(ParameterError, (DPConvexError, ValueError)), issubclass(SolverError, RuntimeError)
    (True, True)
    """


class ParameterError(DPConvexError, ValueError):
    """A parameter has an invalid value or type (raised in ``fit``, in scikit-learn's form).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import PrivateLogisticRegression
    >>> from dpconvex.errors import ParameterError
    >>> try:
    ...     PrivateLogisticRegression(epsilon="high", classes=[0, 1]).fit(np.eye(2), [0, 1])
    ... except ParameterError as exc:
    ...     print(exc)
    The 'epsilon' parameter of PrivateLogisticRegression must be a float in (0, inf). Got 'high' instead.
    """


class DataValidationError(DPConvexError, ValueError):
    """The data passed to ``fit``/``predict`` is unusable as given (NaN, shapes, too few
    rows or classes, labels outside ``classes=``, rows above the norm bound unclipped).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import PrivateLogisticRegression
    >>> from dpconvex.errors import DataValidationError
    >>> X = np.array([[0.5, np.nan], [0.1, 0.2]])
    >>> try:
    ...     PrivateLogisticRegression(classes=[0, 1]).fit(X, [0, 1])
    ... except DataValidationError as exc:
    ...     print(exc)
    PrivateLogisticRegression.fit: X contains NaN or infinite values. Impute or drop them before fitting ...
    """


class DataTypeError(DataValidationError, TypeError):
    """The data has values that are not numbers (strings, dicts, ...) where numbers are needed.

    Examples
    --------
    >>> from dpconvex import PrivateLogisticRegression
    >>> from dpconvex.errors import DataTypeError
    >>> try:
    ...     PrivateLogisticRegression(classes=[0, 1]).fit([["a", "b"], ["c", "d"]], [0, 1])
    ... except DataTypeError as exc:
    ...     print(exc)
    PrivateLogisticRegression.fit: X must be an array of numbers; it holds strings or bytes, ...
    """


class PrivacyError(DPConvexError):
    """A condition of the privacy proof fails (named, with the change that makes it hold);
    nothing is released.

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import PrivateLinearClassifier
    >>> from dpconvex.errors import PrivacyError
    >>> from dpconvex.objectives.losses import Logistic
    >>> class Overclaimed(Logistic):  # declares a curvature bound the logistic loss does not have
    ...     name = "overclaimed"
    ...     curvature = 0.01
    >>> try:
    ...     PrivateLinearClassifier(loss=Overclaimed(), classes=[0, 1]).fit(np.eye(2), [0, 1])
    ... except PrivacyError as exc:
    ...     print(exc)
    PrivateLinearClassifier.fit: curvature bound: loss 'overclaimed' declares ℓ'' <= 0.01, but ...
    """


class SolverError(DPConvexError, RuntimeError):
    """The optimizer failed or was inaccurate; no model is released (objective perturbation
    is private only for the exact minimizer of the perturbed objective).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import PrivateLogisticRegression
    >>> from dpconvex.errors import SolverError
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(50, 2)); y = (X[:, 0] > 0).astype(int)
    >>> try:  # one iteration cannot reach the exact minimizer the proof needs
    ...     PrivateLogisticRegression(classes=[0, 1], max_iter=1, random_state=0).fit(X, y)
    ... except SolverError as exc:
    ...     print(str(exc)[:85])
    PrivateLogisticRegression.fit: the solve by 'native' did not reach the tolerance 1e-0
    """


class BudgetError(DPConvexError):
    """A fit would spend more privacy budget than an accountant has left.

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import BudgetAccountant, PrivateLogisticRegression
    >>> from dpconvex.errors import BudgetError
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(50, 2)); y = (X[:, 0] > 0).astype(int)
    >>> ledger = BudgetAccountant(epsilon=1.0)
    >>> clf = PrivateLogisticRegression(epsilon=2.0, classes=[0, 1], accountant=ledger)
    >>> try:
    ...     clf.fit(X, y)
    ... except BudgetError as exc:
    ...     print(str(exc)[:66])
    BudgetAccountant.reserve: spending (epsilon=2, delta=0) would brin
    >>> ledger.spent  # nothing was spent
    (0.0, 0.0)
    """


class BudgetPickleError(BudgetError):
    """A budget ledger was used outside the process and the object that created it.

    A copy asked to spend raises the subclass :class:`BudgetProcessError`. Not a
    :class:`TypeError` or :class:`pickle.PicklingError`, which some libraries catch to
    fall back to another path.

    Examples
    --------
    >>> from dpconvex.errors import BudgetError, BudgetPickleError, BudgetProcessError
    >>> issubclass(BudgetProcessError, BudgetPickleError), issubclass(BudgetPickleError, BudgetError)
    (True, True)
    """


class BudgetProcessError(BudgetPickleError):
    """A copy of a budget ledger was asked to authorize or record a spend.

    A copy is a ledger unpickled (e.g. in a joblib/loky worker) or inherited by a forked
    process (``os.fork``, a fork ``multiprocessing.Pool``): its spends would never reach the
    ledger that created it. Fit in the process that created the ledger, or give the workers
    ``accountant=None`` and record their guarantees in the ledger with ``spend``.

    Examples
    --------
    A ledger copied into another process (here: pickled and loaded) refuses to spend:

    >>> import pickle
    >>> from dpconvex import BudgetAccountant
    >>> from dpconvex.errors import BudgetProcessError
    >>> ledger = BudgetAccountant(epsilon=1.0)
    >>> copy = pickle.loads(pickle.dumps(ledger))
    >>> try:
    ...     copy.spend(0.5)
    ... except BudgetProcessError as exc:
    ...     print(exc)
    BudgetAccountant.spend: this BudgetAccountant is a copy (unpickled, ...) and cannot record a spend: ...
    >>> ledger.spend(0.5)  # the ledger that was created here records it
    >>> ledger.spent
    (0.5, 0.0)
    """


class DatasetError(DPConvexError, OSError):
    """A dataset file is missing or malformed and cannot be fetched.

    Examples
    --------
    >>> import tempfile
    >>> from dpconvex.datasets import load_adult
    >>> from dpconvex.errors import DatasetError
    >>> with tempfile.TemporaryDirectory() as empty:
    ...     try:
    ...         load_adult(data_home=empty, download=False)
    ...     except DatasetError as exc:
    ...         print(str(exc)[:58])
    load_adult: dataset file 'adult.data' was not found in ...
    """


class NotFittedError(_SkNotFittedError, DPConvexError):
    """The estimator is used before ``fit``.

    Examples
    --------
    >>> from dpconvex import PrivateLogisticRegression
    >>> from dpconvex.errors import NotFittedError
    >>> try:
    ...     PrivateLogisticRegression().predict([[0.1, 0.2]])
    ... except NotFittedError as exc:
    ...     print(exc)
    This PrivateLogisticRegression instance is not fitted yet. Call 'fit' with ...
    """


class PrivacyWarning(UserWarning):
    """Something the user should know about the scope of a guarantee.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from dpconvex import PrivateLogisticRegression
    >>> from dpconvex.errors import PrivacyWarning
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(50, 20)); y = (X[:, 0] > 0).astype(int)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = PrivateLogisticRegression(epsilon=0.1, classes=[0, 1], random_state=0).fit(X, y)
    >>> [w.category.__name__ for w in caught]  # the noise outweighs the data at epsilon = 0.1
    ['PrivacyWarning']
    """


class PrivacyLeakWarning(PrivacyWarning):
    """A fact treated as public was read from the private data (as diffprivlib's warning).

    Issued when a fit reads the label set from y (no ``classes=``): the set fixes the
    model's shape, so one record with a new label changes the release. The text does not
    depend on the data; pass ``classes=[...]`` (or y carrying its public label set).

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from dpconvex import PrivateLogisticRegression
    >>> from dpconvex.errors import PrivacyLeakWarning
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 2)); y = (X[:, 0] > 0).astype(int)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = PrivateLogisticRegression(random_state=0).fit(X, y)  # no classes=
    >>> [w.category.__name__ for w in caught if issubclass(w.category, PrivacyLeakWarning)]
    ['PrivacyLeakWarning']
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("error", PrivacyLeakWarning)
    ...     PrivateLogisticRegression(classes=[0, 1], random_state=0).fit(X, y).classes_.tolist()
    [0, 1]
    """


class SolverCostWarning(UserWarning):
    """A fit goes to a solver that will take long for its size (said before it starts, from
    public facts only: the solver, the shape and the measured cost per entry).

    Examples
    --------
    >>> from dpconvex.errors import SolverCostWarning
    >>> issubclass(SolverCostWarning, UserWarning)
    True
    """


# ------------------------------------------- NOT PRIVATE: the data holder's channels
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
    :class:`~dpconvex.solvers.registry.SolveResult` of every solve, and :attr:`notes`."""

    def __init__(self) -> None:
        super().__init__()
        self.notes: list[DiagnosticNote] = []

    def note(self, what: str) -> DiagnosticNote | None:
        """The first note whose ``what`` contains ``what`` (None if there is none): that of
        the fit called, which records its own before those of the fits it is made of."""
        return next((m for m in self.notes if what in m.what), None)


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
        The :class:`~dpconvex.solvers.registry.SolveResult` of each solve (solver-free mechanisms
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
        record_diagnostic(
            owner, f"rows scaled down to data_norm={bound:g} (norm above it)", n_clipped, n
        )


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
        0: nothing; 1: the steps of each fit, with the elapsed time; 2: also the solvers'
        iterations and residuals, figures of the data: shown, never stored.
        ``PrivateLargeMarginGaussian(verbose=...)`` sets it for its own fits.

    Raises
    ------
    ParameterError
        ``level`` is not an int in [0, 2] (a bool, a float or a string is refused).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import PrivateLogisticRegression, verbosity
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 2)); y = (X[:, 0] > 0).astype(int)
    >>> with verbosity(1):  # one line per step of the fit, on stderr
    ...     clf = PrivateLogisticRegression(classes=[0, 1], random_state=0).fit(X, y)
    """
    token = _VERBOSITY.set((_check_level(level), time.perf_counter()))
    try:
        yield
    finally:
        _VERBOSITY.reset(token)


#: The highest level of :func:`verbosity`.
MAX_LEVEL = 2


def _check_level(level: Any) -> int:
    """``level`` of :func:`verbosity` as an int in [0, :data:`MAX_LEVEL`], else refused."""
    is_int = isinstance(level, numbers.Integral) and not isinstance(level, bool)
    if is_int and 0 <= level <= MAX_LEVEL:
        return int(level)
    if is_int:
        shown = f"{int(level)}" if abs(level) < 10**6 else "an int of more than six digits"
    else:
        kind = type(level).__name__
        shown = "None" if level is None else f"{'an' if kind[:1] in 'aeiouAEIOU' else 'a'} {kind}"
    raise ParameterError(
        f"The 'level' argument of verbosity must be an int in [0, {MAX_LEVEL}] (0: nothing, "
        f"1: the steps of each fit, 2: also the solvers' iterations). Got {shown} instead."
    )


def say(message: str, level: int = 1) -> None:
    """Print one progress line with the elapsed time."""
    shown, t0 = _VERBOSITY.get()
    if shown >= level:
        print(
            f"[dpconvex {time.perf_counter() - t0:7.1f} s] {message}", file=sys.stderr, flush=True
        )


def iteration(solver: str, it: int, residual: float, every: int = 100) -> None:
    """Solver progress every ``every`` iterations at level 2 (not private: a diagnostic)."""
    if _VERBOSITY.get()[0] >= 2 and it % every == 0:
        say(f"{solver}: iteration {it}, optimality residual {residual:.3g} (not private)", 2)
