"""Reporting a run: what its fits released and warned, the table, results.json, the error
plot, and safe writing of both files.

``write_outputs`` never leaves a half-written file: each output is written to a temporary file
in the output folder and renamed over the existing one (``os.replace``, atomic on POSIX and
Windows), so a full disk or a crash while writing keeps the earlier, valid ``results.json`` and
plot. The two renames go together: an exception of any kind between them (a full disk, Ctrl-C,
SIGTERM) puts the earlier plot back, so the folder never holds a new plot beside an earlier
``results.json``. A folder that does not exist yet is written whole in a hidden folder beside it
and renamed into place, so it is either complete or absent, also when the process is killed
while writing.

``results.json`` states which of its entries are not private (``not_private``: the scores,
baselines, checks and times are computed on the private data without privacy, and the seeded
fits are not private releases); the table and the plot say so in one line.
"""

from __future__ import annotations

import collections
import contextlib
import json
import math
import numbers
import os
import re
import shutil
import stat
import tempfile
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from ..datasets._files import stage_folder
from ..errors import DPConvexError, ParameterError
from .spec import Problem

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from sklearn.base import BaseEstimator

__all__ = ["CONSTANT_PREDICTION", "MAJORITY", "OutputError", "ProblemResult", "WarningTally",
           "certified_lines", "check_output_dir", "first_sentence", "format_table", "not_private",
           "plot_result", "release_name", "result_to_dict", "warning_lines", "write_outputs"]


# ----------------------------------------------------------------------------- the fits
#: Parenthetical groups dropped from a certificate's mechanism line for a table label:
#: references and counts ("(CMS Alg. 2)", "(Hardt & Talwar 2010)", "(3 classes)").
_REFERENCE = re.compile(r"\s*\([^()]*[\d&,][^()]*\)")

#: The objects some mechanisms release, named by the learner they make.
_RELEASED_AS = {"the class sums and counts": "class centroids"}


def _short(mechanism: str) -> str:
    """A certificate's mechanism line without references, counts and the noise's norm."""
    text = " ".join(_REFERENCE.sub("", mechanism).split())
    head, on, what = text.rpartition(" on ")
    if not on:
        return text
    head = head.split(" for ", 1)[0]  # "K-norm mechanism for sum_c ||b_c||" -> "K-norm mechanism"
    return f"{head} on {_RELEASED_AS.get(what, what)}"


def release_name(estimator: BaseEstimator) -> str:
    """The learner and mechanism a fitted estimator released, from its certificate.

    The certificate's mechanism line (``certificate_.mechanism``) without its
    references and counts; prefixed by the learner a front door chose
    (``learner_``) when the line does not name it already; for a front door with its
    safeguard, its released model's line, or the constant it released "selected by the
    safeguard"; for a private tuning (``best_estimator_``), the tuning and the chosen model's release.

    Parameters
    ----------
    estimator : fitted dpconvex estimator
        Any estimator with a ``certificate_``.

    Examples
    --------
    >>> from dpconvex import PrivateClassifier, PrivateLogisticRegression
    >>> from dpconvex.runs import release_name
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3)); X /= np.linalg.norm(X, axis=1, keepdims=True)
    >>> y = (X[:, 0] > 0).astype(int)
    >>> lr = PrivateLogisticRegression(epsilon=1.0, mechanism="output", classes=[0, 1],
    ...                                random_state=0).fit(X, y)
    >>> lr.certificate_.mechanism
    'output perturbation (CMS Alg. 1) on linear ERM'
    >>> release_name(lr)
    'output perturbation on linear ERM'
    >>> release_name(PrivateClassifier(epsilon=1.0, classes=[0, 1], random_state=0).fit(X, y))
    'Huber SVM: objective perturbation on linear ERM'
    """
    mechanism = str(estimator.certificate_.mechanism)
    inner = getattr(estimator, "estimator_", None)
    if inner is not None and getattr(inner, "certificate_", None) is not estimator.certificate_:
        model = getattr(inner, "certificate_", None)  # the front door's safeguard: its model
        learner = getattr(estimator, "learner_", "")
        return f"{learner}: {_short(str(model.mechanism))}" if model is not None else learner
    released = getattr(estimator.certificate_, "released", None) or {}
    if inner is not None and "safeguard selected" in released:  # the safeguard's fallback
        return f"{getattr(estimator, 'learner_', released['safeguard selected'])}: selected by " \
               "the safeguard"
    chosen = getattr(estimator, "best_estimator_", None)
    if chosen is not None and hasattr(chosen, "certificate_"):
        return f"{_short(mechanism.split(':', 1)[0])}, chosen: {release_name(chosen)}"
    name = _short(mechanism)
    learner = getattr(estimator, "learner_", None)
    if isinstance(learner, str) and learner not in name:
        name = f"{learner}: {name}"
    return name


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def first_sentence(text: str) -> str:
    """The first sentence of a message, on one line.

    Examples
    --------
    >>> from dpconvex.runs import first_sentence
    >>> first_sentence("Noise is large (CMS Alg. 2).  Use a larger\\nepsilon.")
    'Noise is large (CMS Alg. 2).'
    """
    return _SENTENCE_END.split(" ".join(str(text).split()), maxsplit=1)[0]


@dataclass
class WarningTally:
    """The warnings of many fits: each distinct (category, text) once, with its count.

    :meth:`capture` records every warning raised inside it (all filters set to "always" there, so none is
    lost to the once-per-location rule) and counts each distinct text once per fit. A capture around a
    sweep of k fits counts its occurrences, at most k: each fit of a sweep is a separate release.

    Attributes
    ----------
    fits : int
        The fits captured (a sweep counts as its number of fits).
    entries : dict
        ``(category name, text) -> {"category", "message", "fits", "methods"}``.

    Examples
    --------
    >>> import warnings
    >>> from dpconvex.runs import WarningTally
    >>> tally = WarningTally()
    >>> for _ in range(3):
    ...     with tally.capture("LR"):
    ...         warnings.warn("Noise is large. Use a larger epsilon.", UserWarning)
    >>> tally.fits, [e["fits"] for e in tally.summary()]
    (3, [3])
    >>> print(tally.lines())
    ['UserWarning from 3 of 3 fits (LR): Noise is large. [...]']
    """

    fits: int = 0
    entries: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    #: the warning classes by name, to re-emit an entry in its own category
    categories: dict[str, type[Warning]] = field(default_factory=dict)

    @contextlib.contextmanager
    def capture(self, method: str, fits: int = 1) -> Iterator[None]:
        """Record the warnings raised inside, as ``fits`` fits of ``method``.

        ``fits=0`` records warnings raised outside any fit (data loading) under
        ``method``, with no fit counted.

        Process-global (:func:`warnings.catch_warnings`): for a command-line run,
        not for threads that warn concurrently.
        """
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                yield
            finally:
                self.fits += fits
                texts = [(w.category.__name__, str(w.message)) for w in caught]
                self.categories.update((w.category.__name__, w.category) for w in caught)
                # a text counted once per fit
                for key, count in collections.Counter(texts).items():
                    entry = self.entries.setdefault(
                        key, {"category": key[0], "message": key[1], "fits": 0, "methods": []})
                    entry["fits"] += min(count, fits)  # fits=0: outside any fit (data loading)
                    if method not in entry["methods"]:
                        entry["methods"].append(method)

    def summary(self) -> list[dict[str, Any]]:
        """The distinct warnings, most frequent first (JSON-ready)."""
        return sorted((dict(e, methods=list(e["methods"])) for e in self.entries.values()),
                      key=lambda e: -e["fits"])

    def lines(self, full_text: str = "") -> list[str]:
        """:func:`warning_lines` of :meth:`summary`."""
        return warning_lines(self.summary(), self.fits, full_text)


def warning_lines(entries: list[dict[str, Any]], fits: int, full_text: str = "") -> list[str]:
    """One line per distinct warning: category, count, methods and its first sentence.

    Warnings whose texts share their first sentence (the same warning at several ε)
    share a line, their counts summed.

    Parameters
    ----------
    entries : list of dict
        :meth:`WarningTally.summary` (``ProblemResult.warnings``).
    fits : int
        How many fits the run made.
    full_text : str
        Where the whole texts are, named on each shortened line.

    Examples
    --------
    >>> from dpconvex.runs import warning_lines
    >>> entry = {"category": "PrivacyWarning", "message": "Noise is large. Use more data.",
    ...          "fits": 2, "methods": ["LR"]}
    >>> warning_lines([entry], 10, "results.json")
    ['PrivacyWarning from 2 of 10 fits (LR): Noise is large. [... full text in results.json]']
    """
    _check_warning_entries(entries, fits, full_text)
    merged: dict[tuple[str, str], dict[str, Any]] = {}
    for e in entries:  # texts that differ after their first sentence share one line
        head = first_sentence(e["message"])
        line = merged.setdefault((e["category"], head), {"fits": 0, "methods": [], "more": False})
        line["fits"] += e["fits"]
        line["methods"].extend(m for m in e["methods"] if m not in line["methods"])
        line["more"] |= " ".join(e["message"].split()) != head
    out = []
    for (category, head), line in sorted(merged.items(), key=lambda item: -item[1]["fits"]):
        tail = (
            (f" [... full text in {full_text}]" if full_text else " [...]") if line["more"] else ""
        )
        count = f" from {line['fits']} of {fits} fits" if line["fits"] else ""
        out.append(f"{category}{count} ({', '.join(line['methods'])}): {head}{tail}")
    return out


#: What :func:`warning_lines` reads, closing its refusals.
_ENTRIES_FORM = (
    "Pass WarningTally.summary() (ProblemResult.warnings): a list of dicts with the keys "
    "'category' and 'message' (str), 'fits' (int) and 'methods' (a list of str).")


def _check_warning_entries(entries: Any, fits: Any, full_text: Any) -> None:
    """Refuse what :func:`warning_lines` cannot read, by name (:class:`ParameterError`)."""
    if not isinstance(entries, (list, tuple)):
        raise ParameterError(f"warning_lines: entries must be a list of dicts; got a "
                             f"{type(entries).__name__}. {_ENTRIES_FORM}")
    for i, e in enumerate(entries):
        ok = (isinstance(e, dict) and isinstance(e.get("category"), str)
              and isinstance(e.get("message"), str)
              and isinstance(e.get("fits"), numbers.Integral)
              and not isinstance(e.get("fits"), bool)
              and isinstance(e.get("methods"), (list, tuple))
              and all(isinstance(m, str) for m in e["methods"]))
        if not ok:
            raise ParameterError(f"warning_lines: entry {i} of entries lacks a key or has one of "
                                 f"another type. "
                                 f"{_ENTRIES_FORM}")
    if isinstance(fits, bool) or not isinstance(fits, numbers.Integral) or fits < 0:
        raise ParameterError(f"warning_lines: fits must be an int >= 0 (the run's fits); got "
                             f"a {type(fits).__name__}. Pass ProblemResult.fits.")
    if not isinstance(full_text, str):
        raise ParameterError(f"warning_lines: full_text must be a str; got a "
                             f"{type(full_text).__name__}. Pass where the whole texts are.")


# ----------------------------------------------------------------------------- the table

#: Name of the trivial baseline of a test error: predict the most frequent training label.
MAJORITY = "majority class"
#: Name of the trivial baseline of R²: predict the mean training label.
CONSTANT_PREDICTION = "constant prediction"

#: Per metric: the score's name, its trivial baseline, and the note under the table.
_METRIC = {
    "error": ("test error", MAJORITY, f"({MAJORITY}: predict the most frequent training label; a "
              "private model is useful only below it)"),
    "r2": ("test R²", CONSTANT_PREDICTION, f"({CONSTANT_PREDICTION}: predict the mean training "
           "label, R² about 0; a private model is useful only above it)"),
}


@dataclass
class ProblemResult:
    """Scores per method and ε (ε = inf for non-private methods), with the band checks.

    The scores are the problem's metric (``problem.metric``): test errors, or R².

    Examples
    --------
    >>> from dpconvex.runs import ProblemResult, load_problem
    >>> problem = load_problem("wine_large_margin")
    >>> result = ProblemResult(problem, quick=True, runs=1, errors={"LM-Gaussian": {1.0: [0.2]}})
    >>> result.problem.name, result.runs
    ('wine_large_margin', 1)
    >>> sorted(result.errors["LM-Gaussian"])
    [1.0]
    """

    problem: Problem
    quick: bool
    runs: int
    #: errors[method][x]: one score per run (test error, or R² for metric "r2"), with
    #: x = ε (inf for non-private) or the training-set size
    errors: dict[str, dict[float, list[float]]] = field(default_factory=dict)
    seconds: float = 0.0
    checks: list[dict[str, Any]] = field(default_factory=list)
    #: trivial baselines, one score per run: {"majority class": [...]} (test error) or
    #: {"constant prediction": [...]} (R²)
    baselines: dict[str, list[float]] = field(default_factory=dict)
    #: released[method][x] = {release name: fits}, read from each fit's certificate
    released: dict[str, dict[float, dict[str, int]]] = field(default_factory=dict)
    #: certified[method][x] = {(ε, δ) its certificate guarantees, or None without one: fits},
    #: for the private methods' fits
    certified: dict[str, dict[float, dict[tuple[float, float] | None, int]]] = field(
        default_factory=dict
    )
    #: the distinct warnings of the fits: {"category", "message", "fits", "methods"}
    warnings: list[dict[str, Any]] = field(default_factory=list)
    #: how many fits the run made
    fits: int = 0

    @property
    def passed(self) -> bool:
        """True when every band check holds."""
        return all(c["ok"] for c in self.checks)

    def rows(self) -> list[tuple[str, str, dict[float, list[float]]]]:
        """(row label, method, errors by x): one row per method and distinct release.

        A method whose fits released different learners or mechanisms at different points (a rule that
        switches on public quantities) gets one row per release, labelled ``"method → release"`` from the
        certificates; points whose fits released the same set of learners (a safeguard releasing the model in
        some runs and its fallback in others) share a row, ``"method → A / B"``.
        """
        out = []
        for method, d in self.errors.items():
            released = self.released.get(method, {})
            groups: dict[tuple[str, ...], dict[float, list[float]]] = {}
            for x, values in d.items():
                groups.setdefault(tuple(sorted(released.get(x, {}))), {})[x] = values
            for names, part in groups.items():
                label = f"{method} → {' / '.join(names)}" if names else method
                out.append((label, method, part))
        return out

    def _curve_eps(self) -> float:
        return (self.problem.quick_epsilons if self.quick else self.problem.epsilons)[0]


RESULTS_JSON = "results.json"
PLOT_PNG = "error_vs_epsilon.png"


class OutputError(DPConvexError, OSError):
    """The output folder cannot be created or written; the message says what to change.

    Examples
    --------
    >>> from dpconvex.runs import OutputError, check_output_dir
    >>> try:
    ...     check_output_dir("bad" + chr(0) + "name")   # a name the OS refuses
    ... except OutputError as exc:
    ...     print(type(exc).__name__, isinstance(exc, OSError))
    OutputError True
    """


# ----------------------------------------------------------------------------- table and JSON
def _cell(values: list[float]) -> str:
    return f"{np.mean(values):.4f} ± {np.std(values):.4f}"


def format_table(result: ProblemResult) -> str:
    """Markdown table of scores (mean ± std over runs), then the band checks.

    Columns: one per ε (or training-set size), ``non-private`` (score-vs-ε problems) and
    the trivial baseline on the same test rows (:data:`MAJORITY` or
    :data:`CONSTANT_PREDICTION`); rows: :meth:`ProblemResult.rows`.

    Examples
    --------
    >>> from dpconvex.runs import ProblemResult, load_problem
    >>> problem = load_problem("wine_large_margin")
    >>> result = ProblemResult(problem, quick=True, runs=1, errors={"LM-Gaussian": {1.0: [0.2]}})
    >>> from dpconvex.runs import format_table
    >>> print(format_table(result))
    wine_large_margin: test error, mean ± std over 1 runs (quick)
    | method | ε=1 | non-private |
    |---|---|---|
    | LM-Gaussian | 0.2000 ± 0.0000 |  |
    Not private: the scores, baselines, checks and seconds are computed on the private data ...
    """
    what, baseline, note = _METRIC[result.problem.metric]
    curve = result.problem.x_axis == "train_size"
    xs = sorted({e for d in result.errors.values() for e in d if math.isfinite(e)})
    head = [f"n={int(x)}" for x in xs] if curve else [f"ε={x:g}" for x in xs] + ["non-private"]
    trivial = result.baselines.get(baseline)
    if trivial:
        head.append(baseline)
    title = f"{result.problem.name}: {what}, mean ± std over {result.runs} runs"
    if curve:
        title += f" (learning curve at ε = {result._curve_eps():g})"
    lines = [title + (" (quick)" if result.quick else ""),
             "| method | " + " | ".join(head) + " |", "|---" * (len(head) + 1) + "|"]
    # a mean no better than the trivial baseline's is marked (error: at or above; R²: at or below)
    sign = 1.0 if result.problem.metric == "error" else -1.0
    level = sign * float(np.mean(trivial)) if trivial else math.inf
    marked = False
    for label, _, d in result.rows():
        keys = xs if curve else [*xs, math.inf]
        cells = []
        for x in keys:
            cell = _cell(d[x]) if x in d else ""
            if cell and sign * float(np.mean(d[x])) >= level:
                cell, marked = cell + " ✗", True
            cells.append(cell)
        if trivial:
            cells.append(_cell(trivial))
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    if trivial:
        lines.append(note[:-1] + ("; ✗: no better than it)" if marked else ")"))
    lines.extend(certified_lines(result))
    lines.append(NOT_PRIVATE)
    name = "error" if result.problem.metric == "error" else "R²"
    for c in result.checks:
        mark = "ok  " if c["ok"] else "FAIL"
        at = f"n={c['train_size']}" if c.get("train_size") else f"ε={c['epsilon']}"
        metric = result.problem.metric
        lines.append(f"[{mark}] {c['method']} at {at}: {name} {c['observed']:.4f} "
                     f"in [{c[f'min_{metric}']:g}, {c[f'max_{metric}']:g}]")
    return "\n".join(lines)


def certified_lines(result: ProblemResult) -> list[str]:
    """One line per private method: the distinct (ε, δ) its fits' certificates guarantee.

    Examples
    --------
    >>> from dpconvex.runs import ProblemResult, certified_lines, load_problem
    >>> problem = load_problem("wine_large_margin")
    >>> result = ProblemResult(problem, quick=True, runs=2, errors={"LM-Gaussian": {1.0: [0.2, 0.3]}},
    ...                        certified={"LM-Gaussian": {1.0: {(1.0, 0.0): 2}}})
    >>> certified_lines(result)
    ['LM-Gaussian: (ε, δ) = (1, 0) by the certificates of its 2 fits']
    """
    out = []
    for method, points in result.certified.items():
        counts: dict[tuple[float, float] | None, int] = {}
        for pairs in points.values():
            for pair, fits in pairs.items():
                counts[pair] = counts.get(pair, 0) + fits
        stated = sorted(pair for pair in counts if pair is not None)
        text = ", ".join(f"({e:g}, {d:g})" for e, d in stated)
        certified = sum(counts[pair] for pair in stated)
        parts = [f"(ε, δ) = {text} by the certificates of its {certified} fits"] if stated else []
        if None in counts:
            parts.append(f"{counts[None]} fits without a certificate (ε as built, not certified)")
        out.append(f"{method}: " + "; ".join(parts))
    return out


def _stats(values: list[float]) -> dict[str, Any]:
    return {"mean": float(np.mean(values)), "std": float(np.std(values)),
            "errors": [float(x) for x in values]}


#: The first line of ``not_private`` in results.json, under the table and in the plot's legend.
NOT_PRIVATE = ("Not private: the scores, baselines, checks and seconds are computed on the "
               "private data without privacy, and the seeded fits are reproducible, not private "
               "releases (results.json: not_private).")


def not_private(result: ProblemResult) -> dict[str, Any]:
    """What in ``results.json`` is not private, and why (its ``not_private`` entry).

    ``note``: what the certified (ε, δ) covers and why no number of the file is a private
    release; ``entries``: each key of the file computed from the private data without
    privacy, with what it is.

    Examples
    --------
    >>> from dpconvex.runs import ProblemResult, load_problem, not_private
    >>> problem = load_problem("wine_large_margin")
    >>> result = ProblemResult(problem, quick=True, runs=1, errors={"LM-Gaussian": {1.0: [0.2]}})
    >>> sorted(not_private(result)["entries"])
    ['baselines', 'checks', 'passed', 'results', 'seconds', 'warnings']
    """
    what = "test errors" if result.problem.metric == "error" else "test R²"
    _, baseline, _ = _METRIC[result.problem.metric]
    statistic = ("the most frequent label" if baseline == MAJORITY else "the mean label")
    unprivate = [m for m in result.errors if m not in result.certified]
    also = (f"; {', '.join(repr(m) for m in unprivate)} fitted without privacy (ε = inf)"
            if unprivate else "")
    return {
        "note": (
            "This file holds no private release. The (epsilon, delta) under "
            "'certified' is what each private method's mechanism guarantees for a model fitted "
            "with fresh noise (random_state=None); these runs seed their noise (grid.seed) to be "
            "reproducible, and a model trained with a known seed is not private. The entries "
            "below are computed from the private training and test rows without privacy: "
            "they evaluate the methods for the data holder and must not be published as "
            "private."
        ),
        "entries": {
            "results": f"the {what} of every method, private or not, on each run's private "
                       f"test rows{also}",
            "baselines": f"{baseline}: {statistic} of each run's private training rows, scored "
                         "on its private test rows",
            "checks": f"those {what} ('observed') compared with the expected bands",
            "passed": f"whether those {what} lie in their bands",
            "seconds": "the run's wall time, which depends on the private data (solver "
                       "iterations)",
            "warnings": "how many fits raised each warning, which may depend on the private "
                        "data",
        },
    }


def result_to_dict(result: ProblemResult) -> dict[str, Any]:
    """The JSON form of a result (``results.json``): among its keys ``not_private``
    (:func:`not_private`: which entries are computed on the private data without privacy),
    ``metric`` (``"error"`` or ``"r2"``), ``baselines`` (the trivial score per run),
    ``released`` (per method and point, ``{release name: fits}``), ``certified`` (per private
    method and point, the ``{epsilon, delta, fits}`` its certificates guarantee; ``null`` for
    fits without one),
    ``fits`` and ``warnings`` (``{category, message, fits, methods}``).

    Examples
    --------
    >>> from dpconvex.runs import ProblemResult, load_problem
    >>> problem = load_problem("wine_large_margin")
    >>> result = ProblemResult(problem, quick=True, runs=1, errors={"LM-Gaussian": {1.0: [0.2]}})
    >>> from dpconvex.runs import result_to_dict
    >>> d = result_to_dict(result)
    >>> d["problem"], d["quick"], d["runs"]
    ('wine_large_margin', True, 1)
    """
    return {
        "problem": result.problem.name,
        "file": str(result.problem.path),
        "not_private": not_private(result),
        "quick": result.quick,
        "runs": result.runs,
        "seconds": round(result.seconds, 2),
        "x_axis": result.problem.x_axis,
        "results": {
            m: {("inf" if math.isinf(e) else repr(e)): _stats(v) for e, v in d.items()}
            for m, d in result.errors.items()
        },
        "metric": result.problem.metric,
        "baselines": {k: _stats(v) for k, v in result.baselines.items() if v},
        "checks": result.checks,
        "passed": result.passed,
        "released": {
            m: {("inf" if math.isinf(e) else repr(e)): dict(names) for e, names in d.items()}
            for m, d in result.released.items()
        },
        "certified": {
            m: {
                ("inf" if math.isinf(x) else repr(x)): [
                    {
                        "epsilon": None if pair is None else pair[0],
                        "delta": None if pair is None else pair[1],
                        "fits": fits,
                    }
                    for pair, fits in pairs.items()
                ]
                for x, pairs in d.items()
            }
            for m, d in result.certified.items()
        },
        "fits": result.fits,
        "warnings": result.warnings,
    }


# ----------------------------------------------------------------------------- plot
def _hline(ax: Axes, values: list[float], label: str, **style: Any) -> None:
    """A horizontal line at the mean with a shaded ± std band (the error bar of a constant)."""
    mu, sd = float(np.mean(values)), float(np.std(values))
    ax.axhline(mu, label=f"{label} (± std)", **style)
    ax.axhspan(mu - sd, mu + sd, color=style.get("color"), alpha=0.12, lw=0)


def _figure(result: ProblemResult) -> Figure:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.2, 4.4))
    curve = result.problem.x_axis == "train_size"
    eps_all = sorted({e for d in result.errors.values() for e in d if math.isfinite(e)})
    nonprivate = {m.label for m in result.problem.methods if not m.private}
    lines = 0
    for label, m, d in result.rows():
        if not curve and math.inf in d:  # a non-private method: one score per run
            _hline(ax, d[math.inf], label, ls="--", lw=1.3, color=str(0.15 + 0.3 * (lines % 3)))
            lines += 1
            continue
        es = sorted(d)
        ax.errorbar(es, [np.mean(d[e]) for e in es], yerr=[np.std(d[e]) for e in es],
                    marker="o", capsize=3, ls="--" if curve and m in nonprivate else "-",
                    label=label)
    what, baseline, _ = _METRIC[result.problem.metric]
    if result.baselines.get(baseline):
        _hline(ax, result.baselines[baseline], f"{baseline} (trivial)", ls=":", lw=1.6,
               color="black")  # not in the default colour cycle
    ax.set_xscale("log")
    if eps_all:
        ax.set_xlim(min(eps_all) / 1.5, max(eps_all) * 1.5)
    ax.set_xlabel("training-set size n" if curve else "privacy parameter ε")
    better = "lower" if result.problem.metric == "error" else "higher"
    ax.set_ylabel(f"{what} (mean ± std over runs; {better} is better)")
    title = result.problem.title + (f" (ε = {result._curve_eps():g})" if curve else "")
    ax.set_title(title + (" (quick)" if result.quick else ""), fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    # below the axes: the labels name each release and are long
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=1, frameon=False,
              title="Scores on the private data, not private; seeded fits, not private releases",
              title_fontsize=7)
    return fig


def _save_png(result: ProblemResult, target: str | os.PathLike[str] | IO[bytes]) -> None:
    import matplotlib.pyplot as plt

    fig = _figure(result)
    try:
        fig.savefig(target, dpi=110, format="png", bbox_inches="tight")
    finally:
        plt.close(fig)


def plot_result(result: ProblemResult, path: str | os.PathLike[str]) -> Path:
    """Plot the score (test error or R²) vs ε (log-x), or vs n for a learning curve, as PNG.

    Private methods are drawn with error bars (std over runs), one series per row of the table; non-private
    methods and the trivial baseline as horizontal lines with a shaded ± std band.

    Parameters
    ----------
    result : ProblemResult
    path : path-like
        The PNG file to write (directly; :func:`write_outputs` writes atomically).

    Examples
    --------
    >>> from dpconvex.runs import ProblemResult, load_problem
    >>> problem = load_problem("wine_large_margin")
    >>> result = ProblemResult(problem, quick=True, runs=1, errors={"LM-Gaussian": {1.0: [0.2]}})
    >>> import pathlib, tempfile
    >>> from dpconvex.runs import plot_result
    >>> tmp = tempfile.TemporaryDirectory()
    >>> png = plot_result(result, pathlib.Path(tmp.name) / "errors.png")
    >>> png.name, png.stat().st_size > 0
    ('errors.png', True)
    >>> tmp.cleanup()
    """
    out = Path(path)
    _save_png(result, out)
    return out


# ----------------------------------------------------------------------------- safe writing
def check_output_dir(out_dir: str | os.PathLike[str]) -> Path:
    """Check, without writing anything, that ``out_dir`` can be created and written.

    Run it before a long run so that a bad ``--out`` fails in a second, not after the fits. Nothing is left
    behind: a probe file (or, for a folder still to be created, a probe folder in its nearest existing parent)
    is created and removed at once.

    Raises
    ------
    OutputError
        The path is empty, a file, has a parent that is a file, or the folder is not writable.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from dpconvex.runs import check_output_dir
    >>> tmp = tempfile.TemporaryDirectory()
    >>> out = pathlib.Path(tmp.name) / "results" / "wine"
    >>> check_output_dir(out) == out
    True
    >>> out.parent.exists()   # nothing was written
    False
    >>> tmp.cleanup()
    """
    unusable = None
    try:
        out = Path(out_dir)
        if "\x00" in str(out):  # Path.exists() says False for it: refuse by name
            unusable = "embedded null byte"
        elif not os.fspath(out_dir):  # Path("") is the current folder: never a folder asked for
            unusable = "an empty path"
        else:
            exists, is_dir = out.exists(), out.is_dir()
            base = out if is_dir else out.absolute()
            # its nearest existing folder
            while not is_dir and not base.exists() and base != base.parent:
                base = base.parent
    except (TypeError, ValueError, OSError) as exc:  # names too long, not a path
        unusable = str(exc)
    if unusable is not None:
        raise OutputError(f"check_output_dir: {out_dir!r} is not a usable output folder "
                          f"({unusable}). Choose another path with --out.")
    if exists and not is_dir:
        raise OutputError(f"check_output_dir: output folder {out} exists and is not a folder. "
                          "Pass a folder with --out.")
    if not base.is_dir():
        raise OutputError(f"check_output_dir: cannot create output folder {out}: {base} is a "
                          "file, not a folder. Choose another path with --out.")
    try:
        if base == out:
            with tempfile.NamedTemporaryFile(dir=out, prefix=".dpconvex-probe-"):
                pass
        else:
            os.rmdir(tempfile.mkdtemp(dir=base, prefix=".dpconvex-probe-"))
    except OSError as exc:
        what = "write to output folder" if base == out else f"create output folder {out} in"
        raise OutputError(
            f"check_output_dir: cannot {what} {base}: {exc.strerror or exc}. "
            "Choose a writable folder with --out, or make this one writable."
        ) from None
    return out


def _write_temp(target: Path, mode: str, write: Callable[[Any], None], temps: list[str]) -> None:
    """Write a temporary sibling of ``target`` (fsynced); its name is appended to ``temps``."""
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    temps.append(tmp)
    with os.fdopen(fd, mode, **({"encoding": "utf-8"} if "b" not in mode else {})) as f:
        write(f)
        f.flush()
        os.fsync(f.fileno())
    try:  # the mode of the existing file, else 0o666 minus the umask
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        mode = 0o666 & ~(mask := os.umask(0))
        os.umask(mask)
    os.chmod(tmp, mode)


def write_outputs(result: ProblemResult, out_dir: str | os.PathLike[str]) -> tuple[Path, Path]:
    """Write ``results.json`` and ``error_vs_epsilon.png`` into ``out_dir``, atomically
    (module docstring; the plot first, then the JSON; a new folder written whole, then renamed
    into place); return their paths. On a failure or an interruption (any exception) the
    earlier pair of files is kept, and the temporary files and the folders this call created are
    removed.

    Raises
    ------
    OutputError
        The folder cannot be created or a file cannot be written (e.g. a full disk).

    Examples
    --------
    >>> from dpconvex.runs import ProblemResult, load_problem
    >>> problem = load_problem("wine_large_margin")
    >>> result = ProblemResult(problem, quick=True, runs=1, errors={"LM-Gaussian": {1.0: [0.2]}})
    >>> import pathlib, tempfile
    >>> from dpconvex.runs import write_outputs
    >>> tmp = tempfile.TemporaryDirectory()
    >>> json_path, png_path = write_outputs(result, pathlib.Path(tmp.name) / "wine")
    >>> json_path.name, png_path.name
    ('results.json', 'error_vs_epsilon.png')
    >>> tmp.cleanup()
    """
    out = Path(out_dir)
    js, png = out / RESULTS_JSON, out / PLOT_PNG
    payload = result_to_dict(result)
    temps: list[str] = []
    made = [d for d in (out, *out.parents) if not d.exists()]  # created here, removed on failure
    stage = None
    try:
        # a new folder: written whole beside it, then renamed into place
        if made and made[0] == out:
            stage = stage_folder(out.parent, out.name)
            for name, mode, write in (
                (RESULTS_JSON, "w", lambda f: json.dump(payload, f, indent=2)),
                (PLOT_PNG, "wb", lambda f: _save_png(result, f)),
            ):
                _write_temp(stage / name, mode, write, temps)
                os.replace(temps[-1], stage / name)
                temps.pop()  # renamed: no longer a temporary file
            # fails, writing nothing, if a folder of that name appeared meanwhile
            os.rename(stage, out)
            stage = None
            made.clear()
            return js, png
        out.mkdir(parents=True, exist_ok=True)
        _write_temp(js, "w", lambda f: json.dump(payload, f, indent=2), temps)
        _write_temp(png, "wb", lambda f: _save_png(result, f), temps)
        # the plot it replaces, put back if the JSON cannot replace its own
        if os.path.lexists(png):
            temps.append(f"{temps[1]}.old")
            try:  # a second name for the same file (a symlink itself); no hard links: a copy
                os.link(png, temps[2], follow_symlinks=False)
            except OSError:
                shutil.copy2(png, temps[2], follow_symlinks=False)
        try:  # both files or neither, whatever stops it (SIGTERM's SystemExit, Ctrl-C too)
            os.replace(temps[1], png)
            os.replace(temps[0], js)
        except BaseException:
            if len(temps) > 2:
                os.replace(temps[2], png)
            else:
                png.unlink(missing_ok=True)
            raise
        del temps[:2]  # renamed; the earlier plot's copy, if any, is removed below
        made.clear()
    except (OSError, ValueError) as exc:  # ValueError: a path the OS cannot name (NUL)
        raise OutputError(f"write_outputs: could not write the results to {out}: {exc}. Free disk "
                          "space or choose another folder with --out; earlier results there are "
                          "unchanged.") from exc
    finally:
        for tmp in temps:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        if stage is not None:  # the hidden folder of a new one, with what was written into it
            shutil.rmtree(stage, ignore_errors=True)
        for d in made:  # on failure: the (empty) folders this call created, deepest first
            with contextlib.suppress(OSError, ValueError):
                d.rmdir()
    return js, png
