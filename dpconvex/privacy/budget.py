"""What a release spends: ``Budget(epsilon, delta)``, the one float-safe split, and the
ledger.

Every budget split in dpconvex goes through :func:`split_budget` (shares of one budget), :func:`split_even` (k
equal parts) or :func:`remaining` (what is left after a spend), so that rounding never makes the parts add up
to more than the whole: with floating point, ``a + (total - a)`` can exceed ``total`` by one ulp, and a
certificate would then claim more than was requested.

δ against n: an (ε, δ) guarantee with δ >= 1/n protects no one (releasing one record drawn
at random is (0, 1/n)-DP). n is public, so every fit compares δ with 1/n before it reads the
data (:func:`hold_budget` warns with a :class:`~dpconvex.errors.PrivacyWarning`
naming the fix) and the certificate states it (:func:`delta_rows_note`, the warning's text);
the guarantee is true as stated, so this warns rather than refuses.

The ledger, sequential and parallel composition of (ε, δ) spends: a
:class:`BudgetAccountant` holds a total (ε, δ) for one data set and records every private
release from it: sequential composition adds the ε's and δ's ([DR14]_ Thm. 3.16); a
:meth:`BudgetAccountant.parallel` block of releases on disjoint records costs the maximum
([McS09]_ Thm. 4). Estimators hold a reservation (:func:`hold_budget`) from before the fit
until the certificate is known: it refuses (:class:`~dpconvex.errors.BudgetError`) before any
computation when (ε, δ) does not fit in what remains, the commit records what the certificate
guarantees. An exception before any noise of the release is drawn gives the hold back; one after
it charges the held (ε, δ) (:meth:`Reservation.__exit__`): whether the fit raised may depend on
the noisy output, so the refusal itself is a release. One lock guards every read and write; a
``parallel()`` block belongs to the :mod:`contextvars` context that opened it; a copy in another
process refuses to spend (:class:`~dpconvex.errors.BudgetProcessError`). The
rules and their tests: docs/privacy/tuning_gd_ledger.md#privacy-budget-ledger.

A fit's hold commits its certificate's (ε, δ) (:meth:`Hold.commit_certificate`; the
certificate: :mod:`dpconvex.privacy.certificate`).

.. warning:: The ledger trusts its caller that every release from the data set is charged
   to it, and that releases in a ``parallel()`` block read disjoint records. Basic
   composition is conservative; no tighter (advanced or RDP) composition is attempted.

References
----------
.. [DR14] C. Dwork, A. Roth. The Algorithmic Foundations of Differential
   Privacy. Found. Trends Theor. Comput. Sci. 9 (2014), Thm. 3.16 (basic composition).
.. [McS09] F. McSherry. Privacy Integrated Queries. SIGMOD 2009, Thm. 4
   (parallel composition over disjoint subsets).
"""

from __future__ import annotations

import contextvars
import itertools
import math
import numbers
import os
import sys
import threading
import warnings
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import numpy as np

from .._validation import check_float, describe_value
from ..errors import (
    BudgetError,
    BudgetProcessError,
    ParameterError,
    PrivacyWarning,
    user_stacklevel,
)
from .certificate import Certificate, DeltaRows
from .noise import DrawRecord, watch_draws

__all__ = ["BUDGET_RTOL", "DEFAULT_DELTA", "DELTA_RULE", "Budget", "BudgetAccountant", "Hold",
           "Reservation", "Spend", "default_delta", "delta_rows_note", "hold_budget", "remaining",
           "remaining_each", "reserve_budget", "split_budget", "split_even"]


@dataclass(frozen=True)
class Budget:
    """A privacy budget (ε, δ): the guarantee of an (ε, δ)-differentially private release.

    Parameters
    ----------
    epsilon : float
        ε > 0; ``math.inf`` only for the explicit non-private baseline.
    delta : float, default=0.0
        δ in [0, 1); 0 is pure ε-DP.

    Notes
    -----
    Budget cannot be subclassed (:class:`~dpconvex.errors.ParameterError` where the subclass
    is defined): a release reads (ε, δ) once, from a Budget itself
    (:func:`exact_budget`), so its noise and its certificate state the same ε.

    Examples
    --------
    >>> from dpconvex import Budget
    >>> b = Budget(1.0, 1e-6)
    >>> b.epsilon, b.delta, b.private
    (1.0, 1e-06, True)
    >>> Budget.unlimited().private
    False
    """

    epsilon: float
    delta: float = 0.0

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # a subclass could answer each read of ε differently (one for the noise, another
        # for the certificate): every release reads the (ε, δ) of an exact Budget
        raise ParameterError(
            f"Budget.__init_subclass__: class {cls.__name__} subclasses Budget, which cannot be "
            "subclassed: a release reads its (epsilon, delta) from a Budget itself. Pass "
            "Budget(epsilon, delta).")

    def __post_init__(self) -> None:
        eps = check_float("epsilon", self.epsilon, "Budget", allow_inf=True)
        delta = check_float("delta", self.delta, "Budget", low_inclusive=True, high=1.0)
        object.__setattr__(self, "epsilon", eps)
        object.__setattr__(self, "delta", delta)

    @property
    def private(self) -> bool:
        """False for the infinite (non-private) budget."""
        return math.isfinite(self.epsilon)

    @classmethod
    def unlimited(cls) -> Budget:
        """The budget of a non-private fit (ε = ∞, δ = 0).

        Returns
        -------
        Budget

        Examples
        --------
        >>> Budget.unlimited().private
        False
        """
        return cls(math.inf, 0.0)


def exact_budget(budget: Any, caller: str) -> Budget:
    """A fresh :class:`Budget` of ``budget``'s (ε, δ), each read once and checked anew, so
    that every later read of the release (the noise's calibration, the certificate) gets the
    same two floats; anything but a :class:`Budget` itself is refused by its type alone.

    Parameters
    ----------
    budget : Budget
        The (ε, δ) the caller passed.
    caller : str
        The public call, opening the refusal.

    Returns
    -------
    Budget
        Equal to ``budget``, its fields built-in floats.

    Raises
    ------
    ParameterError
        ``budget`` is not a :class:`Budget` (an object that only claims to be one too), or
        its fields are no longer an ε > 0 and a δ in [0, 1).

    Examples
    --------
    >>> from dpconvex.privacy.budget import exact_budget
    >>> exact_budget(Budget(1.0, 1e-6), "release")
    Budget(epsilon=1.0, delta=1e-06)
    >>> exact_budget(1.0, "release")
    Traceback (most recent call last):
    ...
    dpconvex.errors.ParameterError: release: the budget must be a Budget, e.g. Budget(1.0) ...
    """
    if type(budget) is not Budget:  # not isinstance: an object's __class__ may claim Budget
        raise ParameterError(
            f"{caller}: the budget must be a Budget, e.g. Budget(1.0) (or Budget(1.0, 1e-6) "
            f"for an (epsilon, delta) mechanism); got a {type(budget).__name__}.")
    return Budget(budget.epsilon, budget.delta)


#: The largest δ of the rule of ``delta=None`` (the δ of the measurements in
#: docs/privacy/large_margin_softmax.md#privacy-centroid-switch).
DEFAULT_DELTA = 1e-5

#: The certificate line when δ was set by the public rule.
DELTA_RULE = "delta chosen by the public rule min(1e-5, 1/n^2) (n, the number of rows, public)"


def default_delta(n: int) -> float:
    """δ = min(1e-5, 1/n²): the public rule of ``delta=None`` for the estimators that exist
    only as (ε, δ) mechanisms (n is public under replace-one adjacency).

    Parameters
    ----------
    n : int
        The number of rows (public).

    Returns
    -------
    float
        min(1e-5, 1/n²).

    Examples
    --------
    >>> from dpconvex.privacy.budget import default_delta
    >>> default_delta(1000), default_delta(100)
    (1e-06, 1e-05)
    """
    return min(DEFAULT_DELTA, 1.0 / (float(n) * float(n)))


def remaining(total: float, spent: float) -> float:
    """Largest float x >= 0 with ``spent + x <= total`` in floating point.

    Parameters
    ----------
    total, spent : float

    Returns
    -------
    float
        ``total - spent``, rounded down by ulps until the sum is not above ``total``.

    Examples
    --------
    >>> from dpconvex.privacy.budget import remaining
    >>> x = remaining(1.0, 0.7)
    >>> 0.7 + x <= 1.0
    True
    >>> round(x, 12)
    0.3
    """
    x = total - spent
    while x > 0 and spent + x > total:
        x = math.nextafter(x, 0.0)
    return x


def remaining_each(total: float, spent: np.ndarray) -> np.ndarray:
    """:func:`remaining` at every entry of ``spent``: the same IEEE operations, so the same
    bits, without a Python loop over the entries.

    Parameters
    ----------
    total : float
        The whole.
    spent : array-like of float
        What is spent, one entry per case (e.g. the slack at each modulus of a grid).

    Returns
    -------
    ndarray
        Of ``spent``'s shape: at each entry the largest float x >= 0 with ``spent + x <= total``.

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex.privacy.budget import remaining, remaining_each
    >>> spent = np.array([0.7, 0.1, 0.0])
    >>> bool(np.all(remaining_each(1.0, spent) == [remaining(1.0, s) for s in spent]))
    True
    """
    spent = np.asarray(spent, dtype=float)
    x = total - spent
    over = (x > 0) & (spent + x > total)
    while np.any(over):
        x = np.where(over, np.nextafter(x, 0.0), x)
        over = (x > 0) & (spent + x > total)
    return x


def split_budget(budget: Budget, fractions: Sequence[float]) -> tuple[Budget, ...]:
    """Split a budget into shares whose sequential composition is at most the whole.

    Share i gets ``fractions[i] * ε`` for every share but the last, which gets the largest ε
    with which the correctly rounded sum of the parts (``math.fsum``, as the ledger and
    :func:`~dpconvex.privacy.composition.compose_sequential` add them) is at most ε; δ is
    split the same way. The exact sum can exceed ε by up to half an ulp of it
    (docs/privacy/perturbation.md#privacy-objective-perturbation).

    ``fractions``: positive shares summing to 1 (within 1e-9); returns a tuple of Budget.

    Parameters
    ----------
    budget : Budget
        The whole.
    fractions : sequence of float
        Positive shares summing to 1 (within 1e-9).

    Returns
    -------
    tuple of Budget
        One share per fraction.

    Raises
    ------
    ParameterError
        The fractions are empty, not positive, do not sum to 1, or leave the last no share.

    Examples
    --------
    >>> from dpconvex.privacy.budget import split_budget
    >>> parts = split_budget(Budget(1.0, 1e-6), [0.25, 0.75])
    >>> [round(p.epsilon, 12) for p in parts]
    [0.25, 0.75]
    >>> sum(p.epsilon for p in parts) <= 1.0
    True
    """
    try:
        fr = [float(f) for f in fractions]
    except (TypeError, ValueError, OverflowError):
        fr = []
    if (
        not fr
        or any(not (f > 0) for f in fr)
        or abs(sum(fr) - 1.0) > 1e-9
        or math.fsum(fr[:-1]) >= 1.0
    ):
        raise ParameterError(
            f"split_budget: the fractions must be positive, sum to 1 and leave the last a "
            f"share. Got {describe_value(fractions)} instead."
        )
    parts = [Budget(f * budget.epsilon, f * budget.delta) for f in fr[:-1]]
    last = []
    for total, shares in ((budget.epsilon, [p.epsilon for p in parts]),
                          (budget.delta, [p.delta for p in parts])):
        x = remaining(total, math.fsum(shares)) if total else 0.0
        while x > 0.0 and math.fsum([*shares, x]) > total:  # the sum as the ledger adds it
            x = math.nextafter(x, 0.0)
        last.append(x)
    return (*parts, Budget(*last))


def split_even(total: float, k: int) -> float:
    """The largest per-part ε with ``k * part <= total`` in floating point (k equal parts).

    Parameters
    ----------
    total : float
        The whole ε.
    k : int
        The number of equal parts.

    Returns
    -------
    float
        The per-part ε.

    Examples
    --------
    >>> from dpconvex.privacy.budget import split_even
    >>> part = split_even(1.0, 3)
    >>> 3 * part <= 1.0
    True
    >>> round(part, 6)
    0.333333
    """
    part = total / k
    while k * part > total:
        part = math.nextafter(part, 0.0)
    return part


def delta_rows_note(delta: float | None, n: Any) -> DeltaRows | None:
    """The certificate's line (its fields: δ and n) when δ >= 1/n (n rows, public), else None.

    ``delta`` 0 or None (pure ε-DP) or ``n`` None (the rows, public under replace-one adjacency): no line.

    Parameters
    ----------
    delta : float or None
        δ of the fit (checked in [0, 1]).
    n : int or None
        The number of rows.

    Returns
    -------
    DeltaRows or None
        The certificate's line where δ >= 1/n, else None.

    Examples
    --------
    >>> from dpconvex.privacy.budget import delta_rows_note
    >>> delta_rows_note(1e-6, 100) is None, delta_rows_note(0.0, 10) is None
    (True, True)
    >>> str(delta_rows_note(0.5, 10))[:44]
    'delta = 0.5 is at least 1/n = 0.1 for n = 10'
    """
    if (
        delta is None
        or not check_float("delta", delta, "delta_rows_note", low_inclusive=True, high=1.0) > 0
        or isinstance(n, bool)
        or not isinstance(n, numbers.Integral)
    ):
        return None
    n = int(n)
    if n < 1 or float(delta) * n < 1.0:
        return None
    return DeltaRows(float(delta), n)


# ------------------------------------------------------------- the ledger
#: Relative slack of the budget comparison: four units in the last place, the rounding of
#: decimal values to binary (0.1 + 0.2 spent of a budget of 0.3); the sums are exact (fsum).
BUDGET_RTOL = 4 * 2.0**-52

#: Open ``parallel()`` blocks of the current context: (ledger id, group, the frame of the
#: ``with``, [whether the block is open]). A spend is in a block only while that frame runs (on a
#: thread's stack) and the block is open: a generator suspended inside a block leaves it in its
#: caller's context, not its spends, and a context copied inside it keeps no closed block.
_OPEN_BLOCKS: contextvars.ContextVar[tuple[tuple[int, int, Any, list[bool]], ...]] = (
    contextvars.ContextVar("dpconvex_parallel_blocks", default=())
)
_LEDGER_IDS = itertools.count()

#: Every ledger alive in this process, so that a forked child can give each a fresh lock.
_LIVE_LEDGERS: weakref.WeakSet[BudgetAccountant] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    """In a forked child: fresh locks (a parent thread may have held one at the fork)."""
    for ledger in list(_LIVE_LEDGERS):
        ledger._lock = threading.RLock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


@dataclass(frozen=True)
class Spend:
    """One recorded release: its ``label`` (e.g. the estimator's name), its (ε, δ)
    guarantee and the index of its ``parallel()`` block (``group``; None: sequential).

    Parameters
    ----------
    label : str
        The release's label.
    epsilon, delta : float
        Its (ε, δ) guarantee.
    group : int or None, default=None
        The index of its ``parallel()`` block (None: sequential).

    Examples
    --------
    >>> from dpconvex import BudgetAccountant
    >>> acc = BudgetAccountant(epsilon=1.0)
    >>> acc.spend(0.5, label="model")
    >>> s = acc.spends[0]
    >>> s.label, s.epsilon, s.delta
    ('model', 0.5, 0.0)
    """

    label: str
    epsilon: float
    delta: float
    group: int | None = None


class BudgetAccountant:
    """Ledger of the privacy budget of one data set ([DR14]_, [McS09]_), thread-safe.

    Parameters
    ----------
    epsilon : float
        Total ε budget, > 0 (``math.inf`` to record without a limit; no default: an
        unlimited budget must be asked for explicitly).
    delta : float, default=0.0
        Total δ budget, in [0, 1).

    References
    ----------
    [DR14]_ Theorem 3.16 (basic composition); [McS09]_ (parallel composition).

    Examples
    --------
    >>> from dpconvex import BudgetAccountant
    >>> acc = BudgetAccountant(epsilon=1.0)
    >>> acc.spend(0.25, label="histogram")
    >>> with acc.parallel():
    ...     acc.spend(0.5, label="model on part A")
    ...     acc.spend(0.5, label="model on part B")
    >>> acc.spent
    (0.75, 0.0)
    >>> with acc.reserve(0.2, label="model") as hold:
    ...     _ = hold.commit(0.2)
    >>> round(acc.spent[0], 12)
    0.95

    Notes
    -----
    Threads and processes: see the module docstring; to put worker threads' spends in a
    ``parallel()`` block, run them in a copy of its context
    (``contextvars.copy_context().run``). ``copy.copy``, ``copy.deepcopy`` and so
    ``sklearn.base.clone`` of an estimator holding the ledger return the same ledger: two
    copies could otherwise each spend the whole budget.
    """

    def __init__(self, epsilon: float, delta: float = 0.0):
        owner = type(self).__name__
        self._epsilon = check_float("epsilon", epsilon, owner, allow_inf=True)  # as a fit's ε
        self._delta = check_float("delta", delta, owner, low=0.0, high=1.0, low_inclusive=True,
                                  magnitude=False)
        self._lock = threading.RLock()
        self._spends: list[Spend] = []
        self._holds: dict[int, Spend] = {}
        self._n_groups = self._n_holds = 0
        self._id, self._pid, self._detached = next(_LEDGER_IDS), os.getpid(), False
        _LIVE_LEDGERS.add(self)

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
        with self._lock:
            return list(self._spends)

    @property
    def reserved(self) -> list[Spend]:
        """A copy of the budget held by open reservations."""
        with self._lock:
            return list(self._holds.values())

    @staticmethod
    def _total(spends: list[Spend]) -> tuple[float, float]:
        seq = [(s.epsilon, s.delta) for s in spends if s.group is None]
        groups: dict[int, tuple[float, float]] = {}
        for s in spends:
            if s.group is not None:
                e0, d0 = groups.get(s.group, (0.0, 0.0))
                groups[s.group] = (max(e0, s.epsilon), max(d0, s.delta))
        terms = seq + list(groups.values())
        try:
            return math.fsum(e for e, _ in terms), math.fsum(d for _, d in terms)
        except OverflowError:  # finite spends past the float range (an unlimited ledger's)
            return math.inf, math.fsum(d for _, d in terms)

    @property
    def spent(self) -> tuple[float, float]:
        """(ε, δ) spent: sequential sum, with each parallel block counted by its max."""
        with self._lock:
            return self._total(self._spends)

    @property
    def remaining(self) -> tuple[float, float]:
        """(ε, δ) left, open reservations counted as spent (never negative)."""
        with self._lock:
            e, d = self._total([*self._spends, *self._holds.values()])
        return (math.inf if math.isinf(self._epsilon) else max(self._epsilon - e, 0.0),
                max(self._delta - d, 0.0))

    # -- spending ---------------------------------------------------------
    def _validate(self, epsilon: Any, delta: Any) -> tuple[float, float]:
        owner = type(self).__name__
        return (check_float("epsilon", epsilon, owner, low=0.0, low_inclusive=True, allow_inf=True,
                            magnitude=False),
                check_float("delta", delta, owner, low=0.0, high=1.0, low_inclusive=True,
                            high_inclusive=True, magnitude=False))

    def _is_copy(self) -> bool:
        return self._detached or os.getpid() != self._pid

    def _require_original(self, caller: str, action: str) -> None:
        """Raise BudgetProcessError if this is an unpickled or fork-inherited copy."""
        if self._is_copy():
            raise BudgetProcessError(
                f"{caller}: this BudgetAccountant is a copy (unpickled, e.g. in a joblib/loky or "
                f"multiprocessing worker, or inherited by a forked process) and cannot {action}: "
                "the spend "
                "would stay in the copy and the ledger that created it would record nothing. Fit "
                "in the "
                f"process that created the ledger (n_jobs=None or 1, or a thread backend such as "
                "joblib.parallel_backend('threading')), or pass accountant=None to the workers "
                "and record "
                "their guarantees in the original ledger with accountant.spend(epsilon, delta, "
                "label)."
            )

    def _current_group(self) -> int | None:
        blocks = [(group, opener) for ledger, group, opener, is_open in _OPEN_BLOCKS.get()
                  if ledger == self._id and is_open[0]]
        running = set()  # the frames on the threads' stacks, read only where a block is open
        for frame in sys._current_frames().values() if blocks else ():
            while frame is not None:
                running.add(id(frame))
                frame = frame.f_back
        return next((group for group, opener in blocks if id(opener) in running), None)

    def _check_locked(self, probe: Spend, caller: str) -> None:
        """Raise BudgetError if ``probe`` does not fit (the caller holds the lock)."""
        if self._delta == 0.0 and probe.delta > 0.0:
            raise BudgetError(
                f"{caller}: spending (epsilon={probe.epsilon:.6g}, delta={probe.delta:.3g}) would "
                "go over the budget: this ledger is pure epsilon-DP (delta=0), and no delta > 0 "
                "fits in it, however small. Use a pure epsilon-DP mechanism (delta=0), or create "
                "the ledger with the data set's delta budget: BudgetAccountant(epsilon, "
                "delta=...)."
            )
        holds = list(self._holds.values())
        te, td = self._total([*self._spends, *holds, probe])
        if te > self._epsilon * (1.0 + BUDGET_RTOL) or td > self._delta * (1.0 + BUDGET_RTOL):
            if math.isinf(probe.epsilon):
                raise BudgetError(
                    f"{caller}: {probe.label or 'the release'} is not differentially private "
                    "(epsilon = inf: mechanism='none', or a step its certificate marks NOT "
                    "private, such as component_assignment='gmm_nonprivate'), and a ledger of "
                    f"finite budget (epsilon={self._epsilon:.6g}) cannot be charged for it. Drop "
                    "the accountant for a non-private fit, or make every step private (a private "
                    "mechanism; a private component_assignment; a schema declared in code or "
                    "drafted "
                    "with epsilon)."
                )
            ue, ud = self._total([*self._spends, *holds])
            # what is left, with a float residue of the sums (<= BUDGET_RTOL of the budget) as 0
            re, rd = (left if left > total * BUDGET_RTOL else 0.0
                      for left, total in ((self._epsilon - ue, self._epsilon),
                                          (self._delta - ud, self._delta)))
            where = " (inside a parallel block)" if probe.group is not None else ""
            held = f" after {len(holds)} reservation(s) of fits in progress" if holds else ""
            over = [name for name, total, budget in (("epsilon", te, self._epsilon),
                                                     ("delta", td, self._delta))
                    if total > budget * (1.0 + BUDGET_RTOL)]
            fix = (f"Lower the {' and '.join(over)} of {probe.label or 'the release'}"
                   + (" (where an estimator chose its delta from n, e.g. 1/n**2 for the "
                      "delta=None some offer, pass delta= explicitly)" if "delta" in over else ""))
            raise BudgetError(
                f"{caller}: spending (epsilon={probe.epsilon:.6g}, "
                f"delta={probe.delta:.3g}){where} would "
                f"bring the total to (epsilon={te:.6g}, delta={td:.3g}), over the budget "
                f"(epsilon={self._epsilon:.6g}, delta={self._delta:.3g}) in {' and '.join(over)}. "
                f"Remaining: (epsilon={re:.6g}, delta={rd:.3g}){held}. {fix}, or use a fresh data "
                "set."
            )

    def check(self, epsilon: float, delta: float = 0.0) -> None:
        """Raise :class:`BudgetError` if spending (ε, δ) now would exceed the budget.

        Open reservations count as spent; inside a ``parallel()`` block the spend composes
        by max. Other threads may spend meanwhile: :meth:`reserve` checks and holds atomically.

        Parameters
        ----------
        epsilon : float
            ε of the release.
        delta : float, default=0.0
            δ of the release.

        Raises
        ------
        BudgetError
            (ε, δ) does not fit in what remains.

        Examples
        --------
        >>> from dpconvex import BudgetAccountant, BudgetError
        >>> acc = BudgetAccountant(epsilon=1.0)
        >>> acc.check(0.5)
        >>> try:
        ...     acc.check(2.0)
        ... except BudgetError:
        ...     print("does not fit")
        does not fit
        """
        self._require_original("BudgetAccountant.check", "check a spend")
        e, d = self._validate(epsilon, delta)
        with self._lock:
            self._check_locked(Spend("", e, d, self._current_group()), "BudgetAccountant.check")

    def spend(self, epsilon: float, delta: float = 0.0, label: str = "") -> None:
        """Record a release of guarantee (ε, δ); raise :class:`BudgetError` if it overspends.

        Check and record are atomic; nothing is recorded when it would overspend.

        Parameters
        ----------
        epsilon : float
            ε of the release.
        delta : float, default=0.0
            δ of the release.
        label : str, default=""
            The release's label on the ledger.

        Raises
        ------
        BudgetError
            (ε, δ) does not fit in what remains.

        Examples
        --------
        >>> from dpconvex import BudgetAccountant
        >>> acc = BudgetAccountant(epsilon=1.0)
        >>> acc.spend(0.25, label="histogram")
        >>> acc.spent, acc.remaining
        ((0.25, 0.0), (0.75, 0.0))
        """
        self._require_original("BudgetAccountant.spend", "record a spend")
        e, d = self._validate(epsilon, delta)
        spend = Spend(str(label), e, d, self._current_group())
        with self._lock:
            self._check_locked(spend, "BudgetAccountant.spend")
            self._spends.append(spend)

    def reserve(self, epsilon: float, delta: float = 0.0, label: str = "") -> Reservation:
        """Hold (ε, δ) for a release in progress (a :class:`Reservation`); raise
        :class:`BudgetError` if it does not fit.

        Check and hold are atomic: until the reservation is committed or released, every
        other check, spend and reservation counts it as spent. A reservation made inside a
        ``parallel()`` block belongs to that block.

        Parameters
        ----------
        epsilon : float
            ε of the release.
        delta : float, default=0.0
            δ of the release.
        label : str, default=""
            The release's label on the ledger.

        Returns
        -------
        Reservation
            The open hold.

        Raises
        ------
        BudgetError
            (ε, δ) does not fit in what remains.

        Examples
        --------
        >>> from dpconvex import BudgetAccountant
        >>> acc = BudgetAccountant(epsilon=1.0)
        >>> hold = acc.reserve(0.5, label="model")
        >>> hold.state, acc.remaining
        ('open', (0.5, 0.0))
        """
        self._require_original("BudgetAccountant.reserve", "reserve budget")
        e, d = self._validate(epsilon, delta)
        hold = Spend(str(label), e, d, self._current_group())
        with self._lock:
            self._check_locked(hold, "BudgetAccountant.reserve")
            key, self._n_holds = self._n_holds, self._n_holds + 1
            self._holds[key] = hold
        return Reservation(self, key, hold)

    def _commit(self, key: int, epsilon: Any, delta: Any) -> Spend:
        self._require_original("Reservation.commit", "commit a reservation")
        with self._lock:
            hold = self._holds.pop(key, None)  # released whatever happens below
            if hold is None:
                raise ParameterError(
                    "Reservation.commit: this reservation was already committed or "
                    "released. Reserve again."
                )
            e, d = self._validate(hold.epsilon if epsilon is None else epsilon,
                                  hold.delta if delta is None else delta)
            spend = Spend(hold.label, e, d, hold.group)
            self._check_locked(spend, "Reservation.commit")
            self._spends.append(spend)
            return spend

    def _release(self, key: int) -> None:
        if not self._is_copy():  # a copy's holds are a record of the original's, left as copied
            with self._lock:
                self._holds.pop(key, None)

    @contextmanager
    def parallel(self) -> Iterator[BudgetAccountant]:
        """Block whose spends are on disjoint records: it costs their max ε and max δ.

        Scoped to the current context while its ``with`` runs (other threads' spends, and a
        caller's while a generator is suspended in the block, stay sequential); blocks do
        not nest; spends recorded before an exception in the block stay recorded.

        .. warning:: Only when every spend in the block reads a disjoint subset of the
           records (e.g. the parts of a random partition); otherwise the ledger undercounts.

        Yields
        ------
        BudgetAccountant
            This ledger.

        Raises
        ------
        ParameterError
            A block opened inside another.

        References
        ----------
        [McS09]_ (parallel composition).

        Examples
        --------
        >>> from dpconvex import BudgetAccountant
        >>> acc = BudgetAccountant(epsilon=1.0)
        >>> with acc.parallel():
        ...     acc.spend(0.5, label="part 1")
        ...     acc.spend(0.5, label="part 2")
        >>> acc.spent
        (0.5, 0.0)
        """
        self._require_original("BudgetAccountant.parallel", "open a parallel() block")
        if self._current_group() is not None:
            raise ParameterError(
                "BudgetAccountant.parallel: blocks cannot be nested: one record would be "
                "counted in several branches. Close the outer block first."
            )
        with self._lock:
            group, self._n_groups = self._n_groups, self._n_groups + 1
        opener = sys._getframe(2)  # the frame of the with (through contextlib's __enter__)
        is_open = [True]
        token = _OPEN_BLOCKS.set((*_OPEN_BLOCKS.get(), (self._id, group, opener, is_open)))
        try:
            yield self
        finally:
            is_open[0] = False  # closed for every context copied inside the block too
            _OPEN_BLOCKS.reset(token)

    # -- identity ---------------------------------------------------------
    def __copy__(self) -> BudgetAccountant:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> BudgetAccountant:
        return self

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickle as a copy that can be read but refuses to spend (see the class Notes)."""
        with self._lock:
            state = (self._epsilon, self._delta, tuple(self._spends), tuple(self._holds.values()))
        return _ledger_copy, state

    def __repr__(self) -> str:
        e, d = self.spent
        copy = "; a copy, refuses spends" if self._is_copy() else ""
        return (f"BudgetAccountant(epsilon={self._epsilon:g}, delta={self._delta:g}; spent "
                f"epsilon={e:.6g}, delta={d:.3g} in {len(self._spends)} spend(s){copy})")


def _ledger_copy(epsilon: float, delta: float, spends: tuple[Spend, ...],
                 holds: tuple[Spend, ...]) -> BudgetAccountant:
    """Rebuild a pickled ledger as a copy: readable, refusing every spend."""
    ledger = BudgetAccountant(epsilon, delta)
    ledger._spends = list(spends)
    ledger._holds = dict(enumerate(holds))
    ledger._n_holds = len(holds)
    ledger._detached = True
    return ledger


def reserve_budget(accountant: BudgetAccountant | None, epsilon: float, delta: float = 0.0,
                   label: str = "estimator") -> Reservation:
    """Before a fit: hold (ε, δ) on ``accountant`` atomically (a no-op hold when it is None).

    ``ParameterError`` if ``accountant`` is neither None nor a ledger; ``BudgetError`` if
    (ε, δ) does not fit in what remains, open reservations included.

    Parameters
    ----------
    accountant : BudgetAccountant or None
        The ledger (None: a no-op hold).
    epsilon : float
        ε to hold.
    delta : float, default=0.0
        δ to hold.
    label : str, default="estimator"
        The release's label on the ledger.

    Returns
    -------
    Reservation
        The open hold.

    Raises
    ------
    ParameterError
        ``accountant`` is neither None nor a :class:`BudgetAccountant`.
    BudgetError
        (ε, δ) does not fit in what remains.

    Examples
    --------
    >>> from dpconvex import BudgetAccountant
    >>> from dpconvex.privacy.budget import reserve_budget
    >>> acc = BudgetAccountant(epsilon=1.0)
    >>> with reserve_budget(acc, 0.25, label="model") as hold:
    ...     _ = hold.commit(0.25)
    ...
    >>> acc.spent
    (0.25, 0.0)
    >>> reserve_budget(None, 0.25).state   # no ledger: a no-op hold
    'open'
    """
    if accountant is None:
        return Reservation(None, -1, Spend(str(label), epsilon, delta))
    if not isinstance(accountant, BudgetAccountant):
        raise ParameterError(
            f"The 'accountant' parameter of {label} must be a BudgetAccountant or None. "
            f"Got {describe_value(accountant)} instead."
        )
    return accountant.reserve(epsilon, delta, label=label)


@contextmanager
def hold_budget(accountant: BudgetAccountant | None, budget: Budget | None, owner: str,
                *, n: int | None = None) -> Iterator[Hold]:
    """Hold ``budget`` (ε, δ: a :class:`Budget`, checked when it was made; None: (0, 0), a hold
    whose fits state no budget before they run) for one release: the ledger's
    :func:`reserve_budget`, or with no ledger a hold that charges nothing; the release commits
    its certificate to the hold once. An exception leaving the block gives the hold back
    before any noise is drawn in it and charges the held (ε, δ) after (:class:`Reservation`):
    issue a note that is a function of the release after the block.

    ``n``: the rows (public). δ >= 1/n warns (a :class:`~dpconvex.errors.PrivacyWarning`,
    before the data are read) and the committed certificate states it
    (:func:`delta_rows_note`). A release inside another one's hold
    passes None: the outer hold checks the whole δ.

    Parameters
    ----------
    accountant : BudgetAccountant or None
        The ledger (None: nothing charged).
    budget : Budget or None
        The (ε, δ) to hold (None: (0, 0)).
    owner : str
        The release's label, opening the δ >= 1/n warning.
    n : int or None, default=None
        The rows (None: no δ check here, as inside another release's hold).

    Yields
    ------
    Hold
        The hold the release commits its certificate to.

    Raises
    ------
    ParameterError, BudgetError
        As :func:`reserve_budget`.

    Warns
    -----
    PrivacyWarning
        δ >= 1/n.

    Examples
    --------
    >>> from dpconvex import Budget, BudgetAccountant
    >>> from dpconvex.privacy.budget import hold_budget
    >>> from dpconvex.privacy.certificate import Certificate
    >>> acc = BudgetAccountant(epsilon=1.0)
    >>> with hold_budget(acc, Budget(0.5), "model", n=100) as hold:
    ...     _ = hold.commit_certificate(Certificate("m", 0.5, 0.5))
    ...
    >>> acc.spent
    (0.5, 0.0)
    >>> with hold_budget(None, Budget(0.5), "model") as hold:   # no ledger: nothing charged
    ...     hold.commit_certificate(Certificate("m", 0.5, 0.5)) is None
    True
    """
    epsilon, delta = (0.0, 0.0) if budget is None else (budget.epsilon, budget.delta)
    note = delta_rows_note(delta, n) if n is not None and delta > 0 else None
    if note is not None:
        warnings.warn(f"{owner}: {note}.", PrivacyWarning, stacklevel=user_stacklevel())
    if accountant is None:
        yield Hold(None, note)
    else:
        with reserve_budget(accountant, epsilon, delta, owner) as reservation:
            yield Hold(reservation, note)


@dataclass(frozen=True)
class Hold:
    """What :func:`hold_budget` yields: the ledger's ``reservation`` (None: no ledger, nothing
    charged) and the public ``note`` (δ >= 1/n) the certificate committed to it states.

    Parameters
    ----------
    reservation : Reservation or None
        The ledger's hold (None: no ledger).
    note : DeltaRows or None
        The δ >= 1/n line, or None.

    Examples
    --------
    >>> from dpconvex.privacy.budget import Hold
    >>> from dpconvex.privacy.certificate import Certificate
    >>> Hold(None, None).commit_certificate(Certificate("m", 1.0, 1.0)) is None
    True
    """

    reservation: Reservation | None
    note: DeltaRows | None

    def commit_certificate(self, certificate: Certificate) -> Spend | None:
        """State the note, then :meth:`Reservation.commit_certificate` (None: no ledger).

        Parameters
        ----------
        certificate : Certificate
            The release's certificate.

        Returns
        -------
        Spend or None

        Examples
        --------
        >>> from dpconvex import Certificate
        >>> with hold_budget(None, Budget(0.5), "model") as hold:
        ...     hold.commit_certificate(Certificate("m", 0.5, 0.5)) is None
        True
        """
        if self.note is not None:
            certificate.state(self.note)
        return (
            None if self.reservation is None else self.reservation.commit_certificate(certificate)
        )


class Reservation:
    """Budget held on a :class:`BudgetAccountant` by a release in progress.

    Exactly one of :meth:`commit`, :meth:`commit_certificate` or :meth:`release` takes effect;
    later calls raise :class:`~dpconvex.errors.ParameterError` (commit) or do nothing (release).
    As a context manager it records whether any noise is drawn inside the block
    (:func:`~dpconvex.privacy.noise.watch_draws`, the draws of the releases nested in it
    included): an exception before the first draw releases the hold; an exception after it
    commits the reserved (ε, δ), because the exception (a refused solve, a warning turned into
    an error) may be a function of the noisy output, and so a release; a normal exit without a
    commit commits the reserved (ε, δ) (a release may have been made). Attributes: ``label``,
    the reserved ``epsilon`` and ``delta``, ``state`` ("open", "committed", "released").

    Parameters
    ----------
    accountant : BudgetAccountant or None
        The ledger (None: the no-op reservation).
    key : int
        The hold's key on the ledger.
    hold : Spend
        The label and (ε, δ) held.

    Examples
    --------
    >>> from dpconvex import BudgetAccountant
    >>> acc = BudgetAccountant(epsilon=1.0)
    >>> hold = acc.reserve(0.5, label="model")
    >>> hold.state, acc.remaining
    ('open', (0.5, 0.0))
    >>> _ = hold.commit(0.4)
    >>> hold.state, acc.spent
    ('committed', (0.4, 0.0))

    An exception after noise was drawn in the block charges the hold:

    >>> from dpconvex.privacy.noise import Laplace
    >>> try:
    ...     with acc.reserve(0.5, label="model"):
    ...         _ = Laplace(1.0).add(0.0, 0)
    ...         raise RuntimeError("refused after the noise")
    ... except RuntimeError:
    ...     pass
    >>> acc.spent
    (0.9, 0.0)
    """

    def __init__(self, accountant: BudgetAccountant | None, key: int, hold: Spend):
        self._accountant, self._key = accountant, key
        self._watch: Any = None
        self._draws: DrawRecord | None = None
        self.label, self.epsilon, self.delta, self.state = (
            hold.label,
            hold.epsilon,
            hold.delta,
            "open",
        )

    def commit(self, epsilon: float | None = None, delta: float | None = None) -> Spend | None:
        """Record the final guarantee (default: the reserved one) in place of the hold.

        Call it before storing the fitted attributes: a final (ε, δ) that does not fit
        raises :class:`BudgetError`, releases the hold and records nothing. Returns the
        Spend (None for the no-op reservation of ``accountant=None``).

        Parameters
        ----------
        epsilon : float or None, default=None
            The final ε (None: the reserved one).
        delta : float or None, default=None
            The final δ (None: the reserved one).

        Returns
        -------
        Spend or None

        Raises
        ------
        ParameterError
            The reservation is no longer open.
        BudgetError
            The final (ε, δ) does not fit (the hold is released, nothing recorded).

        Examples
        --------
        >>> from dpconvex import BudgetAccountant
        >>> hold = BudgetAccountant(epsilon=1.0).reserve(0.5, label="model")
        >>> hold.commit(0.4).epsilon, hold.state
        (0.4, 'committed')
        """
        if self.state != "open":
            raise ParameterError(f"Reservation.commit: this reservation is already {self.state}; "
                                 "reserve again.")
        if self._accountant is None:
            self.state = "committed"
            return None
        try:
            spend = self._accountant._commit(self._key, epsilon, delta)
        except BaseException:
            self.state = "released"
            raise
        self.state = "committed"
        return spend

    def commit_certificate(self, certificate: Certificate) -> Spend | None:
        """:meth:`commit` the certificate's (ε, δ); a non-private certificate commits ε = inf.

        Parameters
        ----------
        certificate : Certificate
            The release's certificate.

        Returns
        -------
        Spend or None

        Examples
        --------
        >>> from dpconvex import BudgetAccountant, Certificate
        >>> hold = BudgetAccountant(epsilon=1.0).reserve(0.5, label="model")
        >>> hold.commit_certificate(Certificate("m", 0.5, 0.5)).epsilon
        0.5
        """
        eps = float(certificate.epsilon) if certificate.private else math.inf
        return self.commit(eps, float(certificate.delta))

    def release(self) -> None:
        """Give the held budget back (the release failed or was abandoned).

        Examples
        --------
        >>> from dpconvex import BudgetAccountant
        >>> acc = BudgetAccountant(epsilon=1.0)
        >>> hold = acc.reserve(0.5, label="model")
        >>> hold.release()
        >>> hold.state, acc.remaining
        ('released', (1.0, 0.0))
        """
        if self.state == "open":
            if self._accountant is not None:
                self._accountant._release(self._key)
            self.state = "released"

    @property
    def noise_drawn(self) -> bool:
        """Whether noise was drawn inside this hold's ``with`` block so far (False outside one).

        Examples
        --------
        >>> from dpconvex import BudgetAccountant
        >>> from dpconvex.privacy.noise import Laplace
        >>> with BudgetAccountant(epsilon=1.0).reserve(0.5) as hold:
        ...     before = hold.noise_drawn
        ...     _ = Laplace(1.0).add(0.0, 0)
        ...     print(before, hold.noise_drawn)
        ...     _ = hold.commit()
        False True
        """
        return self._draws is not None and self._draws.drawn

    def __enter__(self) -> Reservation:
        self._watch = watch_draws()
        self._draws = self._watch.__enter__()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        drawn = self.noise_drawn
        watch, self._watch = self._watch, None
        if watch is not None:
            watch.__exit__(None, None, None)
        if exc_type is not None and not drawn:
            self.release()  # refused before any noise: nothing released, nothing charged
        elif self.state == "open":  # noise drawn: an exception may be a function of it
            self.commit()

    def __repr__(self) -> str:
        return (f"Reservation({self.label!r}, epsilon={self.epsilon:.6g}, "
                f"delta={self.delta:.3g}, {self.state})")
