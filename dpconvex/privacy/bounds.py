"""Private bounds: a column's range, a column's vocabulary, a whole schema.

Every private learner needs public bounds; when no document gives them, they are released
from the data under a budget charged like any fit (docs/privacy/bounds.md#privacy-bounds):
:func:`release_range` (mechanism ``"quantile_range"``, pure ε), :func:`release_vocabulary`
(``"stable_vocabulary"``, δ > 0) and :func:`draft_schema` (every column of a table under one
budget). The regressors' label range is released in the fit
(:mod:`dpconvex.estimators.regression`).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np

from .._validation import (
    GENERATOR_TYPES,
    MAX_INT,
    _short_repr,
    check_float,
    check_int,
    check_seed,
    conversion_failure,
    dtype_shown,
    is_dask_collection,
)
from ..data.log_grid import K_MAX, K_MIN
from ..data.schema import (
    OTHER,
    Binary,
    Categorical,
    Declaration,
    Numeric,
    PublicSchema,
    UniformSchema,
    _number,
    _record_release,
    issued_release,
)
from ..data.schema_draft import LEAK_TEXT, check_kinds, kind_of_dtype, read_schema
from ..data.tables import category_texts, dtype_kind, number_values, table_columns
from ..errors import (
    DataTypeError,
    DataValidationError,
    ParameterError,
    PrivacyLeakWarning,
    PrivacyWarning,
    diagnostics_open,
    record_diagnostic,
    user_stacklevel,
)
from ..templates.statistics import (
    RangeTemplate,
    VocabularyTemplate,
    check_column,
    check_levels,
)
from .budget import Budget, exact_budget, hold_budget, split_even
from .certificate import Certificate, Condition
from .composition import compose_sequential
from .release import release
from .rules.bounds import DEFAULT_LEVELS, MIN_RECORDS_EPSILON, refine_range

#: A released range [lo >= 0, hi] is log-scaled when hi is at least this multiple of the
#: noisy median (a right tail of three octaves or more; post-processing of the release).
LOG_TAIL_OCTAVES_RATIO = 8.0

__all__ = ["LOG_TAIL_OCTAVES_RATIO", "ColumnBudgets", "check_range_budget", "column_budgets",
           "draft_schema", "grid_end_note", "range_certificate", "release_range",
           "release_vocabulary"]


def _pieces(values: Any, caller: str, name: str) -> list[Any]:
    """``values`` as one piece, or a Dask collection's chunks computed one by one within the
    cluster's timeouts (Dask would join them in the declared dtype), a partition unlike its
    metadata refused by name."""
    if not is_dask_collection(values):
        return [values]
    from ..data.dask_rows import _declared_partitions, compute

    parts = values.to_delayed()
    with _declared_partitions(caller, name):
        return list(compute(*(parts.ravel() if isinstance(parts, np.ndarray) else parts)))


def _float64(values: Any, caller: str, name: str) -> np.ndarray:
    """``values`` as float64, a long double beyond its range at the range's end (as a float64
    beyond the grid counts at the grid's end), without numpy's warning; a Dask collection
    read per chunk (:func:`_pieces`); a value that is not a number refused by the failure's
    type alone (its text can quote it)."""
    big = np.finfo(np.float64).max
    out = []
    for piece in _pieces(values, caller, name):
        try:
            v = np.asarray(piece)  # a sequence of sequences fails here
            v = np.clip(v, -big, big) if v.dtype.kind == "f" and v.dtype.itemsize > 8 else v
            converted = v.astype(np.float64).reshape(-1)
        except (TypeError, ValueError, OverflowError) as exc:
            failure = conversion_failure(exc)
            too_large = isinstance(exc, OverflowError)
        else:
            out.append(converted)
            continue
        # raised after the handler: no context holds NumPy's text, which can quote a value
        if too_large:
            raise DataValidationError(
                f"{caller}: {name} hold a number too large for float64 (above about 1.8e308); "
                "rescale the column by a public constant first.")
        raise DataTypeError(
            f"{caller}: {name} must be numbers, one per record; they could not be converted "
            f"to float: {failure}. Convert the column to numbers first "
            "(text categories: release_vocabulary).")
    return out[0] if len(out) == 1 else np.concatenate(out or [np.empty(0)])


def _check_call(values: Any, budget: Any, name: Any, caller: str) -> Budget:
    """Refuse, before anything is read, what a release of a column cannot take: values that
    are not one per record, a budget that is not a :class:`Budget`, a name that is not a
    str (it is printed in the certificate and the messages); the budget read once
    (:func:`_check_budget`)."""
    if values is None:
        raise ParameterError(
            f"{caller}: values is None; pass the column's values, one per record (a 1-D array "
            "or a list).")
    check_column(values, caller)
    budget = _check_budget(budget, caller)
    _checked_text("name", name, caller)
    return budget


def _check_budget(budget: Any, caller: str) -> Budget:
    """Refuse a budget that is not a :class:`Budget` itself, by its type alone (an object
    whose ``__class__`` claims Budget too); else a fresh Budget of its (ε, δ), each read once
    (:func:`~dpconvex.privacy.budget.exact_budget`), which every later read gets."""
    if type(budget) is not Budget:
        raise ParameterError(
            f"{caller}: budget must be a Budget, e.g. Budget(1.0) (or Budget(1.0, 1e-6) for a "
            f"vocabulary); got a {type(budget).__name__}.")
    return exact_budget(budget, caller)


def _checked_text(what: str, value: Any, caller: str) -> str:
    """``value`` if it is a str, else a :class:`ParameterError` naming its type alone."""
    if not isinstance(value, str):
        raise ParameterError(
            f"{caller}: {what} must be a str (it is printed in the certificate and messages); "
            f"got a {type(value).__name__}.")
    return value


def _checked_n(n: Any, caller: str, *, optional: bool = False) -> int:
    """The public number of records as an int in [0, MAX_INT] (too few for a release are
    refused by the release, with the reason), or a :class:`ParameterError` that names its
    type alone (never its text); ``optional``: the call also takes None (the number of
    values), handled by the caller."""
    if isinstance(n, bool) or not isinstance(n, (Integral, np.integer)):
        raise ParameterError(
            f"{caller}: n must be an int >= 0, the public number of records"
            f"{' (or None: the number of values)' if optional else ''}; got a "
            f"{type(n).__name__}.")
    if not 0 <= int(n) <= MAX_INT:
        raise ParameterError(
            f"{caller}: n must be an int in [0, {MAX_INT:,}], the public number of "
            "records; got an int outside that range.")
    return int(n)


def _items(piece: Any, caller: str, name: str) -> list[Any]:
    """The categories of one piece of a column as a list, or a refusal by type alone."""
    if hasattr(piece, "tolist"):
        return piece.tolist()
    if not isinstance(piece, Iterable):
        raise ParameterError(
            f"{caller}: the {name} are a {type(piece).__name__}, not one category per "
            "record; pass a 1-D array or a list.")
    return list(piece)


def release_range(values: Any, budget: Budget, *, n: int | None = None,
                  levels: Sequence[float] = DEFAULT_LEVELS, name: str = "values",
                  rng: Any = None, seeded: bool | None = None, owner: str = "release_range",
                  notes: list[str] | None = None) -> tuple[float, float, float, Certificate]:
    """Release a range [lo, hi] of the values (ε-DP), with the histogram's median octave.

    ``values``: one per record (NaN and infinite ones count in no cell); ``budget`` pure;
    ``n`` the public number of records (default ``len(values)``); ``levels`` the quantile
    levels of the bounds when the budget resolves them
    (:func:`dpconvex.privacy.rules.bounds.refine_range`); ``name`` the values' name in the
    certificate. Returns lo < hi, the middle of the octave holding the noisy histogram's
    median (post-processing) and the certificate.

    Parameters
    ----------
    values : array-like
        One value per record.
    budget : Budget
        A pure ε budget.
    n : int or None, default=None
        The public number of records (None: ``len(values)``).
    levels : sequence of float, default=DEFAULT_LEVELS
        The quantile levels of the bounds.
    name : str, default="values"
        The values' name in the certificate.
    rng : None, int or Generator, default=None
        The noise source (None: seeded from the OS).
    seeded : bool or None, default=None
        Whether the caller fixed the noise's seed (None: ``rng is not None``).
    owner : str, default="release_range"
        The public call that releases the range, opening the note at the grid's end (a
        regressor's fit with ``label_range="private"`` passes ``"<Estimator>.fit"``).
    notes : list of str or None, default=None
        Where the note at the grid's end goes (None: warned here). A release inside a budget
        hold passes a list and warns its notes once the hold has committed: the note is a
        function of the release, and a warning turned into an error inside the hold would
        refuse after the noise.

    Returns
    -------
    tuple
        (lo, hi, the middle of the median octave, the certificate).

    Raises
    ------
    DataTypeError
        A value that is not a number (named by the failed conversion's type, never its text).
    DataValidationError
        A partition of a Dask collection unlike its metadata (its columns or their dtypes).

    Warns
    -----
    PrivacyWarning
        The released range is the grid's cell around 0 or reaches its outer end
        (:func:`grid_end_note`): computed from the released range and the public grid only
        (appended to ``notes`` instead, where given).

    References
    ----------
    [MT07]_ (the exponential mechanism of the refined bounds).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import Budget
    >>> from dpconvex.privacy.bounds import release_range
    >>> ages = np.random.default_rng(0).integers(18, 90, 10000)
    >>> lo, hi, median, cert = release_range(ages, Budget(1.0), rng=0)
    >>> bool(lo <= 20 and 85 <= hi <= 128), cert.epsilon
    (True, 1.0)
    """
    return _release_range(values, budget, n, levels, name, rng, seeded, owner, notes)


def _release_range(values: Any, budget: Budget, n: int | None, levels: Sequence[float],
                   name: str, rng: Any, seeded: bool | None, owner: str,
                   notes: list[str] | None = None) -> tuple[float, float, float, Certificate]:
    """:func:`release_range`, its note at the grid's end opening with ``owner`` (appended to
    ``notes`` where given, else warned)."""
    budget = _check_call(values, budget, name, "release_range")
    n = None if n is None else _checked_n(n, "release_range", optional=True)
    owner = _checked_text("owner", owner, "release_range")
    if notes is not None and not isinstance(notes, list):
        raise ParameterError("release_range: 'notes' must be a list (the notes are appended "
                             f"to it) or None; got {type(notes).__name__}.")
    v = _float64(values, "release_range", name)
    n_records = v.size if n is None else n
    released = _range_release(lambda: v, n_records, budget, levels, name, rng, seeded)
    lo, hi, median = (float(t) for t in released.theta)
    note = grid_end_note(lo, hi, name, owner)  # a function of the release alone
    if note is not None and notes is not None:
        notes.append(note)
    elif note is not None:
        warnings.warn(note, PrivacyWarning, stacklevel=user_stacklevel())
    return lo, hi, median, released.certificate


def grid_end_note(lo: float, hi: float, name: str = "values",
                  owner: str = "release_range") -> str | None:
    """The note on a released range [lo, hi] at an end of the public grid, or None.

    The grid (docs/privacy/bounds.md#privacy-bounds-grid) resolves magnitudes from 2^-20
    (about 9.5e-7) to 2^63 (about 9.2e18). A range released as the cell around 0,
    (-2^-20, 2^-20), says the values lie below that resolution, so the column encodes to
    (almost) one value; a bound at ±2^63, the grid's outermost cell, reads "this far or
    farther", so values beyond it are clipped. Both are fixed by rescaling the column by a
    public constant (another unit). The note is computed from the released bounds and the
    grid's public constants only, never from the values: it is itself a release, and
    neighbouring data sets that release the same range get the same note.

    Parameters
    ----------
    lo, hi : float
        The released range.
    name : str, default="values"
        The values' name, as in the certificate.
    owner : str, default="release_range"
        The public call that released the range, opening the note.

    Returns
    -------
    str or None
        The text of the :class:`~dpconvex.errors.PrivacyWarning` that :func:`release_range`
        (and so :func:`draft_schema` and a regressor's ``label_range="private"``) issues, or
        None for a range inside the grid.

    Examples
    --------
    >>> from dpconvex.privacy.bounds import grid_end_note
    >>> grid_end_note(0.0, 120.0) is None
    True
    >>> print(grid_end_note(-2.0 ** -20, 2.0 ** -20, "labels").split(", (")[0])
    release_range: the released range of the labels is the private-range grid's cell around 0
    >>> "Rescale them by a public constant" in grid_end_note(2.0 ** 62, 2.0 ** 63)
    True
    """
    lo = check_float("lo", lo, "grid_end_note", low=-np.inf, allow_inf=True, magnitude=False,
                     noun="argument")
    hi = check_float("hi", hi, "grid_end_note", low=-np.inf, allow_inf=True, magnitude=False,
                     noun="argument")
    name = _checked_text("name", name, "grid_end_note")
    owner = _checked_text("owner", owner, "grid_end_note")
    small, end = 2.0 ** K_MIN, 2.0 ** (K_MAX + 1)
    if -small <= lo and hi <= small:
        where = (f"is the private-range grid's cell around 0, (-2^{K_MIN}, 2^{K_MIN}) = "
                 f"+-{small:.2g}: values of smaller magnitude are not told apart, so every "
                 "record encodes to (almost) one value")
    elif lo <= -end or hi >= end:
        where = (f"reaches the private-range grid's end, +-2^{K_MAX + 1} = +-{end:.2g} (\"this "
                 "far or farther\"): values beyond it are clipped to it")
    else:
        return None
    return (f"{owner}: the released range of the {name} {where}. Rescale them by a public "
            "constant (another unit) so that they lie between about 1e-6 and 1e18 in magnitude, "
            "or give their range from documentation. (This note is computed from the released "
            "range only.)")


def range_certificate(n: int, budget: Budget, *, levels: Sequence[float] = DEFAULT_LEVELS,
                      name: str = "values", seeded: bool = False) -> Certificate:
    """The certificate :func:`release_range` carries for n records, without the values (a dry
    run: nothing is read or drawn).

    Parameters
    ----------
    n : int
        The public number of records.
    budget : Budget
        A pure ε budget.
    levels : sequence of float, default=DEFAULT_LEVELS
        The quantile levels of the bounds.
    name : str, default="values"
        The values' name in the certificate.
    seeded : bool, default=False
        Whether the release's noise will have a fixed seed.

    Returns
    -------
    Certificate

    Raises
    ------
    ParameterError
        n·ε below ``MIN_RECORDS_EPSILON`` (:func:`check_range_budget`), ``levels`` not two
        quantile levels, or a budget with δ > 0 (the range is pure ε-DP).

    Examples
    --------
    >>> from dpconvex import Budget
    >>> from dpconvex.privacy.bounds import range_certificate
    >>> range_certificate(10000, Budget(1.0), name="ages").epsilon
    1.0
    >>> range_certificate(10, Budget(0.1))
    Traceback (most recent call last):
    ...
    dpconvex.errors.ParameterError: release_range: the range of the values needs ...
    """
    n = _checked_n(n, "range_certificate")
    budget = _check_budget(budget, "range_certificate")
    name = _checked_text("name", name, "range_certificate")
    return _range_release(None, n, budget, levels, name, None, seeded,
                          dry_run=True).certificate


def _range_release(values: Any, n: int, budget: Budget, levels: Sequence[float], name: str,
                   rng: Any, seeded: bool | None, dry_run: bool = False) -> Any:
    """The range's release of ``values`` (a callable of the records' values, counted by the
    template; None in a dry run), refined as the budget resolves it; its certificate states
    why."""
    levels = check_levels(levels, "release_range")
    check_range_budget(n, budget.epsilon, name)
    choice = refine_range(n, budget.epsilon, levels)
    template = (RangeTemplate.of_problem(n, levels, refine=choice.refine, name=name)
                if values is None else
                RangeTemplate(values, n, levels, refine=choice.refine, name=name))
    released = release(template, "quantile_range", budget, None, rng, seeded=seeded,
                       dry_run=dry_run)
    released.certificate.assumptions.append(choice.reason)
    return released


def check_range_budget(
    n: int, epsilon: float, name: str = "values", caller: str = "release_range"
) -> None:
    """Refuse, before anything is read, a range whose n·ε is below ``MIN_RECORDS_EPSILON``.

    Parameters
    ----------
    n : int
        The number of records.
    epsilon : float
        ε of the range.
    name : str, default="values"
        The values' name.
    caller : str, default="release_range"
        The public call, opening the refusal.

    Raises
    ------
    ParameterError
        n·ε below ``MIN_RECORDS_EPSILON``.

    Examples
    --------
    >>> from dpconvex.privacy.bounds import check_range_budget
    >>> check_range_budget(5000, 0.05)
    >>> check_range_budget(500, 0.05)
    Traceback (most recent call last):
    ...
    dpconvex.errors.ParameterError: release_range: the range of the values needs ...
    """
    caller = _checked_text("caller", caller, "check_range_budget")
    name = _checked_text("name", name, caller)
    n = _checked_n(n, caller)
    epsilon = check_float("epsilon", epsilon, caller, allow_inf=True, magnitude=False,
                          noun="argument")
    if n * epsilon < MIN_RECORDS_EPSILON:
        raise ParameterError(
            f"{caller}: the range of the {name} needs n * epsilon >= {MIN_RECORDS_EPSILON:g} (n = "
            f"{n} "
            f"records at epsilon = {epsilon:.4g} gives {n * epsilon:.4g}): with less, the noisy "
            "histogram cannot tell where the values lie. Declare the range from documentation, "
            "give "
            "this range more epsilon (fewer released columns, a larger share), or use more "
            "records. "
            "Nothing was read or spent."
        )


def release_vocabulary(values: Any, budget: Budget, *, n: int | None = None,
                       name: str = "values", rng: Any = None, seeded: bool | None = None
                       ) -> tuple[tuple[str, ...], Certificate]:
    """Release the categories of a column whose noisy count passes a threshold ((ε, δ), δ > 0).

    Parameters
    ----------
    values : array-like
        One category per record.
    budget : Budget
        (ε, δ) with δ > 0.
    n : int or None, default=None
        The public number of records (None: ``len(values)``).
    name : str, default="values"
        The values' name in the certificate.
    rng : None, int or Generator, default=None
        The noise source (None: seeded from the OS).
    seeded : bool or None, default=None
        Whether the caller fixed the noise's seed (None: ``rng is not None``).

    Returns
    -------
    vocabulary : tuple of str
        The released categories, sorted (missing values are no category).
    certificate : Certificate
        Stating δ >= 1/n where it is.

    Raises
    ------
    DataValidationError
        A partition of a Dask collection unlike its metadata (its columns or their dtypes).

    Warns
    -----
    PrivacyWarning
        δ >= 1/n: δ bounds the chance that one record's category is published verbatim.

    Examples
    --------
    >>> from dpconvex import Budget
    >>> from dpconvex.privacy.bounds import release_vocabulary
    >>> plans = ["basic"] * 600 + ["pro"] * 300 + ["rare"]
    >>> release_vocabulary(plans, Budget(1.0, 1e-6), rng=0)[0]
    ('basic', 'pro')
    """
    budget = _check_call(values, budget, name, "release_vocabulary")
    n = None if n is None else _checked_n(n, "release_vocabulary", optional=True)
    items = [v for piece in _pieces(values, "release_vocabulary", name)
             for v in _items(piece, "release_vocabulary", name)]
    n_records = len(items) if n is None else n
    # δ is the chance one record's category is published verbatim: δ >= 1/n warns, and the
    # certificate states it, as every fit's
    held = budget if isinstance(budget, Budget) else None  # another: refused by release
    with hold_budget(None, held, "release_vocabulary", n=n_records or None) as hold:
        vocabulary, certificate = _vocabulary(items, budget, n=n_records, name=name, rng=rng,
                                              seeded=seeded)
        hold.commit_certificate(certificate)
    return vocabulary, certificate


def _vocabulary(items: list[Any], budget: Budget, *, n: int, name: str, rng: Any,
                seeded: bool | None) -> tuple[tuple[str, ...], Certificate]:
    """:func:`release_vocabulary` of ``items`` (one category per record, checked) on ``n``
    records, inside a hold that checks δ against n (the caller's)."""
    n_records = n
    # no value and no record: the certificate of a release on one record
    vocabulary = VocabularyTemplate(items, n_records if items else max(n_records, 1), name=name)
    names = vocabulary.categories
    if not names:  # nothing seen: nothing to release, the certificate of the release
        # seeded as the release states it, so no value switches the line
        return (), release(vocabulary, "stable_vocabulary", budget, None, rng, dry_run=True,
                           seeded=seeded).certificate
    released = release(vocabulary, "stable_vocabulary", budget, None, rng, seeded=seeded)
    return tuple(names[i] for i in released.theta.astype(int)), released.certificate


# ----------------------------------------------------------------------- composition
def _pld_epsilon(parts: Sequence[tuple[float, float]], delta: float) -> float:
    """ε of the composition of (εᵢ, δᵢ)-DP mechanisms at δ (the PLD accountant, dp_accounting)."""
    from dp_accounting.pld import common, privacy_loss_distribution

    total = None
    for eps, dlt in parts:
        one = privacy_loss_distribution.from_privacy_parameters(
            common.DifferentialPrivacyParameters(eps, dlt), value_discretization_interval=1e-4)
        total = one if total is None else total.compose(one)
    assert total is not None
    return float(total.get_epsilon_for_delta(delta))


@dataclass(frozen=True)
class ColumnBudgets:
    """The per-column budgets of a schema release and how they compose (public).

    Parameters
    ----------
    range_epsilon : float
        ε of each released range.
    vocabulary : Budget or None
        (ε, δ) of each released vocabulary (None: none released).
    rule : str
        How the columns compose ("sequential composition", "PLD composition", or
        "nothing released").
    detail : str
        The composition's line.
    epsilon, delta : float
        The whole's (ε, δ).

    Examples
    --------
    >>> from dpconvex import Budget
    >>> from dpconvex.privacy.bounds import column_budgets
    >>> split = column_budgets(Budget(1.0), n_ranges=2, n_vocabularies=0)
    >>> split.range_epsilon, split.rule
    (0.5, 'sequential composition')
    """

    range_epsilon: float
    vocabulary: Budget | None
    rule: str
    detail: str
    epsilon: float
    delta: float


def column_budgets(budget: Budget, n_ranges: int, n_vocabularies: int) -> ColumnBudgets:
    """Split a schema's (ε, δ) over its released columns: basic, or PLD when tighter.

    Basic composition gives each of the k columns ε/k (and each vocabulary δ/k_v). With
    δ > 0, the PLD accountant composes the k columns at δ/2 (vocabularies δ/(2 k_v) each):
    the largest common per-column ε whose composition is (ε, δ)-DP, used when it exceeds
    ε/k (docs/privacy/bounds.md#privacy-bounds-composition).

    Parameters
    ----------
    budget : Budget
        The schema's (ε, δ).
    n_ranges : int
        The number of ranges released.
    n_vocabularies : int
        The number of vocabularies released.

    Returns
    -------
    ColumnBudgets

    Examples
    --------
    >>> from dpconvex.privacy.bounds import column_budgets
    >>> column_budgets(Budget(1.0), 4, 0).range_epsilon
    0.25
    >>> cb = column_budgets(Budget(1.0, 1e-6), 40, 0)
    >>> cb.rule, cb.range_epsilon > 1.0 / 40
    ('PLD composition', True)
    """
    budget = _check_budget(budget, "column_budgets")
    n_ranges = check_int("n_ranges", n_ranges, "column_budgets", low=0, noun="argument")
    n_vocabularies = check_int("n_vocabularies", n_vocabularies, "column_budgets", low=0,
                               noun="argument")
    k = n_ranges + n_vocabularies
    if k == 0:
        return ColumnBudgets(0.0, None, "nothing released", "every column declared", 0.0, 0.0)
    eps = split_even(budget.epsilon, k)
    vocab = Budget(eps, split_even(budget.delta, n_vocabularies)) if n_vocabularies else None
    basic = ColumnBudgets(eps, vocab, "sequential composition",
                          f"{k} columns at epsilon = {eps:.6g} each", eps * k,
                          vocab.delta * n_vocabularies if vocab else 0.0)
    if budget.delta <= 0 or k < 3:
        return basic
    d_vocab = split_even(0.5 * budget.delta, n_vocabularies) if n_vocabularies else 0.0
    target = 0.5 * budget.delta

    def composed(e: float) -> float:
        return _pld_epsilon([(e, 0.0)] * n_ranges + [(e, d_vocab)] * n_vocabularies, target)

    lo, hi = eps, budget.epsilon
    if composed(1.01 * lo) > budget.epsilon:  # basic is as good (few columns): one evaluation
        return basic
    for _ in range(24):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if composed(mid) <= budget.epsilon else (lo, mid)
    if lo <= eps * (1 + 1e-9):
        return basic
    total = composed(lo)
    return ColumnBudgets(
        lo, Budget(lo, d_vocab) if n_vocabularies else None, "PLD composition",
        f"{k} columns at epsilon = {lo:.6g} each, composed by the privacy-loss-distribution "
        f"accountant (dp_accounting) at delta = {target:.3g}: epsilon = {total:.6g} "
        f"(basic composition would give {lo * k:.6g})",
        total, target + d_vocab * n_vocabularies)


def _compose_columns(parts: list[Certificate], labels: list[str], budget: Budget,
                     budgets: ColumnBudgets, assumptions: list[str]) -> Certificate:
    mechanism = ("draft_schema: a public schema released column by column "
                 "(docs/privacy/bounds.md#privacy-bounds)")
    quantities = {"columns released": len(parts), "composition": budgets.rule}
    if budgets.rule != "PLD composition":
        return compose_sequential(parts, mechanism=mechanism, epsilon_requested=budget.epsilon,
                                  delta_requested=budget.delta, quantities=quantities,
                                  assumptions=assumptions, labels=labels)
    ok = budgets.epsilon <= budget.epsilon and budgets.delta <= budget.delta * (1 + 1e-12)
    return Certificate(
        mechanism=mechanism, epsilon_requested=budget.epsilon, epsilon=budgets.epsilon,
        delta=budgets.delta, private=True,
        conditions=[Condition("epsilon accounting", ok, "PLD composition",
                              f"{budgets.detail} <= {budget.epsilon:g} ({'; '.join(labels)})")],
        quantities=quantities, assumptions=assumptions, parts=parts)


# ----------------------------------------------------------------------- the schema
def _declared(declared: Any, names: list[str]) -> dict[str, Declaration]:
    if declared is None:
        return {}
    if isinstance(declared, PublicSchema):
        declared = declared.declarations
    if isinstance(declared, UniformSchema):  # every column declared: no column left to draft
        raise ParameterError(
            f"draft_schema: 'declared' is {declared!r}, which declares every column of the "
            "table, so nothing is left to draft and nothing would be released. Use it as the "
            "schema itself (PublicEncoder(schema), PrivateClassifier(schema=schema)), or declare "
            "some columns by name, declared=schema.for_columns(['a', 'b'])."
        )
    if not isinstance(declared, Mapping):
        raise ParameterError("The 'declared' parameter of draft_schema must be a mapping of "
                             "column names to declarations (Numeric, Categorical, Binary, None) "
                             f"or a PublicSchema. Got {_short_repr(declared)} instead.")
    unknown = [c for c in declared if c not in names]
    if unknown:
        raise ParameterError(f"draft_schema: 'declared' names column(s) {unknown!r} that are "
                             "not in the table; declare only the table's columns.")
    out = dict(declared)
    for c, decl in out.items():
        if decl is not None and not isinstance(decl, (Numeric, Categorical, Binary)):
            raise ParameterError(
                f"draft_schema: the declaration of {c!r} must be Numeric(...), "
                f"Categorical(...), Binary(...) or None. Got {_short_repr(decl)} instead."
            )
        if getattr(decl, "drafted", False):
            raise ParameterError(f"draft_schema: the declaration of {c!r} was read from data "
                                 "(drafted=True); declare public knowledge only.")
    return out


def _check_feature_names(
    plan: Mapping[str, str], given: Mapping[str, Declaration], names: list[str], caller: str
) -> None:
    """Refuse, before any value is read or any budget held, a table whose released schema could name two
    encoded features alike (:class:`ParameterError`): a column named ``"<c>=..."``, or a declared category
    whose feature is named so, next to a column ``c`` whose vocabulary is released (its features are
    ``"<c>=<category>"``), or the public declarations alone (the released columns in their place: one
    feature each, a vocabulary's other slot)."""
    def declared_features(o: str) -> list[str]:
        decl = given.get(o) if plan[o] == "declared" else None
        if not isinstance(decl, Categorical):
            return []
        return [f"{o}={k}" for k in (*decl.vocabulary, *([OTHER] if decl.other else []))]

    for c in (c for c, how in plan.items() if how == "vocabulary"):
        clash = [o for o in names if o != c and (o.startswith(f"{c}=") or any(
            f.startswith(f"{c}=") for f in declared_features(o)))]
        if clash:
            raise ParameterError(
                f"{caller}: the vocabulary released for column {c!r} is encoded as features named "
                f"'{c}=<category>', which the name(s) of column(s) {clash!r} could repeat. Rename "
                "those "
                f"columns, or declare the vocabulary of {c!r} in 'declared'. Nothing was read or "
                "spent."
            )
    trial = {
        c: given[c]
        if how == "declared"
        else Categorical((), other=True)
        if how == "vocabulary"
        else Binary(positive=True)
        if how == "binary"
        else Numeric(0.0, 1.0)
        for c, how in plan.items()
    }
    try:
        PublicSchema(trial)
    except ParameterError as exc:
        why = str(exc).split(": ", 1)[-1]
        raise ParameterError(f"{caller}: {why} Nothing was read or spent.") from None


#: The assumptions of every schema release (public facts only: the same for every table).
_SCHEMA_ASSUMPTIONS = (
    "replace-one adjacency; n and the column names are public",
    "each column's kind is public: as given in 'kinds' (numeric: a value that does not parse as a "
    "number "
    "counts as missing; binary: nothing read; categorical: each value's text), else read from a "
    "number dtype "
    "(numeric) or a bool dtype (binary), which is public only when it was fixed without the data: "
    "a dtype a "
    "reader infers from the values is a statistic of them "
    "(docs/privacy/bounds.md#privacy-bounds-grid)",
    "columns in 'declared' are taken as public knowledge, as the caller declares them (not "
    "checked; a "
    "declared schema that draft_schema released is composed with this release), and read no "
    "record",
)

_RELEASE_OF_KIND = {"numeric": "range", "binary": "binary", "categorical": "vocabulary"}


def _undeclared_message(caller: str, columns: list[tuple[str, Any]]) -> str:
    """The refusal of columns whose kind neither ``kinds`` nor a number or bool dtype gives
    (from the names and dtypes only)."""
    names = [c for c, _ in columns]
    line = "kinds={" + ", ".join(f"{c!r}: 'categorical'" for c in names) + "}"
    dtypes = ", ".join(
        f"{c!r}: {'values without a dtype' if dtype is None else dtype_shown(dtype)}"
        for c, dtype in columns
    )
    return (
        f"{caller}: the kind of column(s) {names!r} is not public: their dtypes ({dtypes}) are "
        "not "
        "numbers or bools, and a dtype a reader inferred from the values (or NumPy, for values "
        "given in a list) is a statistic of them (one record 'unknown' in a column of numbers "
        "makes "
        "the column text). Declare what each "
        f"holds, from the documentation: draft_schema(..., {line}), with 'numeric' for a column "
        "of "
        "numbers (a value that does not parse as a number counts as missing), 'binary' for a "
        "column of "
        "bools or 0/1 (Binary(positive=True); a yes/no column of text goes in 'declared', e.g. "
        "declared={'smoker': Binary(positive='yes')}) and 'categorical' for categories (released "
        "with delta > 0, or declare the vocabulary in 'declared'). Nothing was read or spent."
    )


def _note_off_grid(name: str, numbers: np.ndarray) -> None:
    """NOT PRIVATE: record how many values of a column the range search cannot place: missing
    (or not a number), and beyond the grid's ends ±2^(K_MAX+1) (counted in its outermost cells)."""
    missing = int(np.count_nonzero(np.isnan(numbers)))
    beyond = int(np.count_nonzero(np.abs(numbers[~np.isnan(numbers)]) >= 2.0 ** (K_MAX + 1)))
    record_diagnostic("draft_schema", f"values of column {name!r} missing or not a number "
                      "(counted in no cell of the range search)", missing, numbers.size)
    record_diagnostic("draft_schema", f"values of column {name!r} beyond +-2^{K_MAX + 1} "
                      "(counted at the ends of the range search's grid)", beyond, numbers.size)


def draft_schema(X: Any, epsilon: float | None = None, delta: float = 0.0, *,
                 levels: Sequence[float] = DEFAULT_LEVELS, declared: Any = None,
                 kinds: Mapping[str, str] | None = None, accountant: Any = None,
                 random_state: Any = None) -> PublicSchema:
    """Draft a public schema for a table: privately with ``epsilon``, else read (not private).

    With ``epsilon``, every column that ``declared`` does not give is released under one budget
    (docs/privacy/bounds.md#privacy-bounds) by its public kind (``kinds``, else a number or bool dtype; a
    dtype a reader inferred from the values is a statistic of them): ``"numeric"`` a range by
    :func:`release_range` (``log=True`` for a long right tail; a value that does not parse as a number counts
    in no cell), ``"categorical"`` a vocabulary by :func:`release_vocabulary` (δ > 0) with an "other" slot,
    ``"binary"`` ``Binary(positive=True)`` (nothing read). The columns compose sequentially (or by the PLD
    accountant when tighter); the budget is charged to ``accountant`` and the schema carries the certificate
    (:attr:`PublicSchema.release`).

    A range is searched on a public grid of magnitudes 2^-20 (about 9.5e-7) to 2^63 (about
    9.2e18) on each side of 0 (docs/privacy/bounds.md#privacy-bounds-grid): smaller
    magnitudes share the cell around 0, larger ones count at the grid's ends (a bound of
    ±2^63 = ±9.22e18 reads "this far or farther"), and a column with too few present values
    (all missing, say) gets a range of noise. A range released as the cell around 0 or
    reaching ±2^63 warns :class:`~dpconvex.errors.PrivacyWarning` (:func:`grid_end_note`):
    the warning is computed from the released range and the public grid only, so it reads
    nothing else from the data; rescale such a column by a public constant or declare it.
    Nothing else warns (a warning would depend on the data): review the draft; the data
    holder finds its counts of missing and off-grid values in
    :func:`~dpconvex.collect_diagnostics` (``diag.note("column 'x'")``).

    Without ``epsilon`` the draft is READ from the data: it is flagged (``suggested=True``)
    and this call, like every encoder given it, warns
    :class:`~dpconvex.errors.PrivacyLeakWarning`.

    Parameters
    ----------
    X : pandas.DataFrame, mapping of str to 1-D values, or 2-D array
        The table (an array's columns are named ``x0, x1, ...``).
    epsilon, delta : float or None, float (default None, 0.0)
        The schema's (ε, δ) (only vocabularies need δ); ε None drafts without privacy.
    levels : (float, float), default=(0.01, 0.99)
        Quantile levels of every released range.
    declared : mapping of str to declaration, or PublicSchema, optional
        Columns known from documentation: used as given, nothing spent on them.
    kinds : mapping of str to str, optional
        ``"numeric"``, ``"binary"`` or ``"categorical"``: required with ``epsilon`` for
        every undeclared column whose dtype is not a number or bool dtype.
    accountant, random_state : BudgetAccountant or None, None or int
        The ledger charged with (ε, δ) (the fit's); the noise's seed.

    Raises
    ------
    ParameterError
        With ``epsilon``: a column of undeclared kind, a categorical column with δ = 0, a
        bad ``kinds``, a column of dates or complex numbers.
    BudgetError
        The budget does not fit in what remains on ``accountant``.

    Warns
    -----
    PrivacyLeakWarning
        Without ``epsilon``: the draft is read from the data.
    PrivacyWarning
        A column's range released as the grid's cell around 0 or reaching ±2^63
        (:func:`grid_end_note`, from the released range only).

    Returns
    -------
    PublicSchema
        The drafted schema (with its certificate when released privately).

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> import dpconvex as dp
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"age": rng.integers(18, 90, 5000),
    ...                    "income": rng.lognormal(10, 1, 5000),
    ...                    "plan": rng.choice(["basic", "pro"], 5000)})
    >>> ledger = dp.BudgetAccountant(epsilon=2.0)
    >>> schema = dp.draft_schema(df, epsilon=0.5, declared={"plan": dp.Categorical(("basic", "pro"))},
    ...                          kinds={"age": "numeric", "income": "numeric"},
    ...                          accountant=ledger, random_state=0)
    >>> schema.release.epsilon, ledger.spent[0], schema.suggested
    (0.5, 0.5, False)
    >>> lo, hi = schema.numeric["age"]
    >>> bool(lo <= 18 and hi >= 85), "income" in schema.log_scaled
    (True, True)

    A column of text is refused unless its kind is declared:

    >>> dp.draft_schema(df, epsilon=0.5, random_state=0)
    Traceback (most recent call last):
    ...
    dpconvex.errors.ParameterError: draft_schema: the kind of column(s) ['plan'] is not public: ...
    """
    if epsilon is None:
        no_delta = isinstance(delta, Real) and delta == 0  # a Series or text: given
        if not no_delta or declared is not None or accountant is not None:
            raise ParameterError(
                "draft_schema: 'delta', 'declared' and 'accountant' need 'epsilon' (a "
                "private draft); without it the draft is read from the data."
            )
        schema = read_schema(X, kinds)
        warnings.warn(LEAK_TEXT, PrivacyLeakWarning, stacklevel=2)
        return schema
    budget = Budget(check_float("epsilon", epsilon, "draft_schema"),
                    check_float("delta", delta, "draft_schema", low_inclusive=True, high=1.0))
    levels = check_levels(levels, "draft_schema")
    if isinstance(random_state, GENERATOR_TYPES):
        raise ParameterError(
            "The 'random_state' parameter of draft_schema must be None (noise seeded from the "
            "OS, for a release) or a non-negative int (a reproducible seed, for experiments), "
            f"as an estimator's is. Got a {type(random_state).__name__}: pass None, or an int "
            "drawn from it, random_state=int(generator.integers(2**31)).")
    seed = check_seed(random_state, "draft_schema")
    caller = "draft_schema"
    names, cols, dtypes = table_columns(X, caller)
    if names is None:
        names = [f"x{k}" for k in range(len(cols))]
    issued_release(declared, caller)  # a declared schema's release: one draft_schema made
    given = _declared(declared, names)
    column_kinds = check_kinds(kinds, names, given, caller)
    # a column of Python values (a list) has no dtype of its own: NumPy infers one from the values
    own = ([hasattr(X[name], "dtype") for name in names] if isinstance(X, Mapping)
           else [hasattr(X, "dtype") or hasattr(X, "dtypes")] * len(names))
    plan: dict[str, str] = {}
    undeclared: list[tuple[str, Any]] = []
    for name, dtype, typed in zip(names, dtypes, own, strict=True):
        if name in given:
            plan[name] = "declared"
            continue
        if dtype_kind(dtype) in ("time", "complex"):
            raise ParameterError(f"{caller}: column {name!r} holds dates, time spans or complex "
                                 "numbers; declare it in 'declared' with a public map.")
        kind = column_kinds.get(name) or (kind_of_dtype(dtype) if typed else None)
        if kind is None:
            undeclared.append((name, dtype if typed else None))
        else:
            plan[name] = _RELEASE_OF_KIND[kind]
    if undeclared:
        raise ParameterError(_undeclared_message(caller, undeclared))
    undeclared_text = [c for c, how in plan.items() if how == "vocabulary"]
    if undeclared_text and budget.delta <= 0:
        raise ParameterError(
            f"{caller}: column(s) {undeclared_text!r} hold categories; with delta = 0 their "
            "vocabularies cannot be released. Declare them in 'declared' (e.g. "
            f"declared={{{undeclared_text[0]!r}: Categorical((...))}}) from documentation, or "
            "give delta > 0 to release each by a stable histogram.")
    _check_feature_names(plan, given, names, caller)
    n_ranges = sum(how == "range" for how in plan.values())
    budgets = column_budgets(budget, n_ranges, len(undeclared_text))
    n = len(cols[0]) if cols else 0
    if n_ranges:
        check_range_budget(n, budgets.range_epsilon, "values of each released column "
                           f"({n_ranges} range(s) released, each with its share of the draft's "
                           f"epsilon = {budget.epsilon:g})", caller)
    rng = np.random.default_rng(seed)
    decls: dict[str, Declaration] = {}
    parts: list[Certificate] = []
    labels: list[str] = []
    notes: list[str] = []  # functions of the release: warned once the hold has committed
    with hold_budget(accountant, budget, caller, n=n or None) as hold:
        for name, values in zip(names, cols, strict=True):
            how = plan[name]
            if how in ("declared", "binary"):
                decls[name] = given[name] if how == "declared" else Binary(positive=True)
                continue
            column = f"values of column {name!r}"
            if how == "range":
                numbers = number_values(values)
                if diagnostics_open():  # for the data holder only: counts of records
                    _note_off_grid(name, numbers)
                lo, hi, median, cert = _release_range(
                    numbers, Budget(budgets.range_epsilon), n, levels, column, rng,
                    seed is not None, caller, notes)
                log = lo >= 0.0 and hi >= LOG_TAIL_OCTAVES_RATIO * max(median, 0.0)
                decls[name] = Numeric(lo, hi, log=bool(log))
            else:
                assert budgets.vocabulary is not None
                vocabulary, cert = _vocabulary(category_texts(values), budgets.vocabulary,
                                               n=n, name=column, rng=rng, seeded=seed is not None)
                # texts of one number ("1", "01") are one category of a column of numbers: the first
                # released is kept and the others encode as other (post-processing of the release)
                # (a released value OTHER is the name of the other slot, where that value encodes anyway)
                by_value: dict[Any, str] = {}
                for text in vocabulary:
                    if text != OTHER:
                        by_value.setdefault(float(text) if _number(text) else text, text)
                decls[name] = Categorical(tuple(by_value.values()), other=True)
            parts.append(cert)
            labels.append(f"{how} of {name!r}")
        assumptions = list(_SCHEMA_ASSUMPTIONS)
        if parts:
            certificate = _compose_columns(parts, labels, budget, budgets, assumptions)
        else:
            certificate = Certificate(
                mechanism="draft_schema: every column declared, nothing released",
                epsilon_requested=budget.epsilon, epsilon=0.0, private=True,
                assumptions=assumptions)
        hold.commit_certificate(certificate)
    earlier = declared.release if isinstance(declared, PublicSchema) else None
    if earlier is not None:  # a declared schema released from data: its release and this one add
        certificate = compose_sequential(
            [earlier, certificate],
            mechanism="draft_schema: the declared schema's release, then this one",
            epsilon_requested=earlier.epsilon_requested + budget.epsilon,
            labels=["declared schema", "draft"],
        )
    # what release= must match: a function of the released declarations, so released
    certificate.released["released schema"] = PublicSchema(decls).fingerprint
    _record_release(certificate)
    schema = PublicSchema(decls, release=certificate)
    for note in notes:  # the release is made and charged: its notes follow it
        warnings.warn(note, PrivacyWarning, stacklevel=user_stacklevel())
    return schema

