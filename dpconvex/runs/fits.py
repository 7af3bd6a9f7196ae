"""What the fits of a run released (:func:`release_name`) and what they warned (:class:`WarningTally`)."""

from __future__ import annotations

import contextlib
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sklearn.base import BaseEstimator

__all__ = ["WarningTally", "first_sentence", "release_name", "warning_lines"]

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
    quantities = getattr(estimator.certificate_, "quantities", None) or {}
    if inner is not None and "safeguard selected" in quantities:  # the safeguard's fallback
        return f"{getattr(estimator, 'learner_', quantities['safeguard selected'])}: selected by " \
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

    :meth:`capture` records every warning raised inside it (all filters set to
    "always" there, so none is lost to the once-per-location rule) and counts
    each distinct text once per fit. A capture around a sweep of several fits
    counts every occurrence: each fit of a sweep is a separate release.

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
                for key in (dict.fromkeys(texts) if fits == 1 else texts):
                    entry = self.entries.setdefault(
                        key, {"category": key[0], "message": key[1], "fits": 0, "methods": []})
                    entry["fits"] += 1 if fits else 0  # fits=0: outside any fit (data loading)
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
    merged: dict[tuple[str, str], dict[str, Any]] = {}
    for e in entries:  # texts that differ after their first sentence share one line
        head = first_sentence(e["message"])
        line = merged.setdefault((e["category"], head), {"fits": 0, "methods": [], "more": False})
        line["fits"] += e["fits"]
        line["methods"].extend(m for m in e["methods"] if m not in line["methods"])
        line["more"] |= " ".join(e["message"].split()) != head
    out = []
    for (category, head), line in sorted(merged.items(), key=lambda item: -item[1]["fits"]):
        tail = ((f" [... full text in {full_text}]" if full_text else " [...]") if line["more"]
                else "")
        count = f" from {line['fits']} of {fits} fits" if line["fits"] else ""
        out.append(f"{category}{count} ({', '.join(line['methods'])}): {head}{tail}")
    return out
