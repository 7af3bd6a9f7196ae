"""Regression bands for your own model: record the spread over seeds, check a fit against it.

:func:`record_band` fits a model once per seed; the :class:`Band` is the scores' min..max
widened by a stated margin, written to TOML or JSON. :func:`assert_within_band` checks a score or a fitted
model against it (:class:`AssertionError` naming score, band and seeds). A band covers the recorded seeds on
that data: a test pins a recorded seed, or records enough seeds and a margin for the spread it wants to cover.
"""

from __future__ import annotations

import contextlib
import json
import math
import numbers
import os
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .._validation import check_float, check_int, check_option
from ..errors import ParameterError
from .report import OutputError, _write_temp
from .spec import METRICS, ProblemError

__all__ = ["Band", "assert_within_band", "record_band"]

#: How a metric is named in messages and band files.
METRIC_NAMES = {"error": "test error", "r2": "R²"}
#: The keys of a band file.
_FILE_KEYS = {"label", "metric", "lo", "hi", "margin", "seeds", "scores", "covers"}
#: Relative and absolute tolerance of a band file's lo and hi against min - margin and
#: max + margin: a value written with repr() reads back exactly; this allows a few
#: digits typed by hand, far below any margin a band states.
_FILE_TOL = 1e-9


def score(estimator: Any, X: Any, y: Any, metric: str) -> float:
    """The score of a fitted estimator on (X, y): test error or R².

    "error" is 1 − accuracy: the classifier's own ``score`` (labels checked as ``fit`` checks them), or the
    share of predictions different from ``y`` for an estimator that is not a classifier. "r2" is
    ``sklearn.metrics.r2_score(y, estimator.predict(X))``.

    Examples
    --------
    >>> from sklearn.dummy import DummyRegressor
    >>> from dpconvex.runs.band import score
    >>> X, y = np.zeros((4, 1)), np.array([1.0, 2.0, 3.0, 4.0])
    >>> score(DummyRegressor().fit(X, y), X, y, "r2")
    0.0
    """
    from sklearn.base import is_classifier
    from sklearn.metrics import accuracy_score, r2_score

    if metric == "r2":
        return float(r2_score(y, estimator.predict(X)))
    if is_classifier(estimator):
        return 1.0 - float(estimator.score(X, y))
    return 1.0 - float(accuracy_score(y, estimator.predict(X)))


@dataclass(frozen=True)
class Band:
    """The band of a model's score: min..max over recorded seeds, widened by ``margin``.

    :func:`record_band` makes one; :meth:`write` and :meth:`read` keep it in a TOML or
    JSON file, with :attr:`statement` saying what it covers.

    Parameters
    ----------
    metric : {"error", "r2"}
        The score: test error (lower is better) or R² (higher is better).
    seeds : tuple of int
        The ``random_state`` of each recorded fit.
    scores : tuple of float
        The score of each recorded fit, one per seed.
    margin : float, default=0.0
        Added on each side of min..max (in the metric's units).
    label : str, default=""
        What was recorded (named in messages).

    Examples
    --------
    >>> from dpconvex.runs import Band
    >>> band = Band("r2", seeds=(0, 1, 2), scores=(0.42, 0.47, 0.45), margin=0.02, label="my model")
    >>> round(band.lo, 6), round(band.hi, 6)
    (0.4, 0.49)
    >>> band.covers(0.44), band.covers(0.3)
    (True, False)
    >>> print(band.statement)
    my model: R² in [0.4, 0.49], the min..max of 3 fits (random_state = 0, 1, 2) widened by
    0.02 on each side. It covers those seeds on the data it was recorded on; another seed,
    other data or a changed model may fall outside it.
    """

    metric: str
    seeds: tuple[int, ...]
    scores: tuple[float, ...]
    margin: float = 0.0
    label: str = ""

    def __post_init__(self) -> None:
        check_option("metric", self.metric, METRICS, "Band")
        seeds = _seeds(self.seeds, "Band")
        if isinstance(self.scores, (str, bytes)) or not isinstance(self.scores, Sequence) or \
                len(self.scores) != len(seeds):
            raise ParameterError(
                f"The 'scores' parameter of Band must be a sequence of {len(seeds)} "
                f"finite floats, one per seed. Got {self.scores!r} instead."
            )
        scores = tuple(
            check_float("scores", s, "Band", low=-math.inf, magnitude=False) for s in self.scores
        )
        margin = check_float("margin", self.margin, "Band", low_inclusive=True, magnitude=False)
        if not isinstance(self.label, str):
            raise ParameterError(
                f"The 'label' parameter of Band must be a str. Got {self.label!r} instead."
            )
        object.__setattr__(self, "seeds", seeds)
        object.__setattr__(self, "scores", scores)
        object.__setattr__(self, "margin", margin)

    @property
    def lo(self) -> float:
        """The lower end: ``min(scores) - margin``."""
        return min(self.scores) - self.margin

    @property
    def hi(self) -> float:
        """The upper end: ``max(scores) + margin``."""
        return max(self.scores) + self.margin

    @property
    def statement(self) -> str:
        """What the band covers, in words."""
        seeds = ", ".join(str(s) for s in self.seeds)
        widened = f" widened by {self.margin:g} on each side" if self.margin else " (no margin)"
        head = f"{self.label}: " if self.label else ""
        return (
            f"{head}{METRIC_NAMES[self.metric]} in [{self.lo:.6g}, {self.hi:.6g}], the min..max "
            f"of {len(self.seeds)} fits (random_state = {seeds}){widened}. It covers those "
            "seeds on the data it was recorded on; another seed, other data or a changed "
            "model may fall outside it."
        )

    def covers(self, value: float) -> bool:
        """Whether ``lo <= value <= hi`` (NaN is never covered)."""
        return bool(self.lo <= value <= self.hi)

    def to_dict(self) -> dict[str, Any]:
        """The file form: the fields, ``lo``, ``hi`` and the statement as ``covers``."""
        return {"label": self.label, "metric": self.metric, "lo": self.lo, "hi": self.hi,
                "margin": self.margin, "seeds": list(self.seeds), "scores": list(self.scores),
                "covers": self.statement}

    @classmethod
    def from_dict(cls, data: dict[str, Any], caller: str = "Band.from_dict") -> Band:
        """A band from its file form; ``lo`` and ``hi``, when given, must match the scores
        (a :class:`ProblemError` otherwise, as for unknown or missing keys and bad values)."""
        if not isinstance(data, dict):
            raise ProblemError(f"{caller}: a band must be a table of keys. Record it with "
                               "record_band and write it with Band.write.")
        unknown = sorted(set(data) - _FILE_KEYS)
        missing = sorted({"metric", "seeds", "scores"} - set(data))
        if unknown or missing:
            what = f"unknown key {unknown[0]!r}" if unknown else f"missing key {missing[0]!r}"
            raise ProblemError(f"{caller}: {what}; a band has the keys {sorted(_FILE_KEYS)}. "
                               "Fix the file or record the band again.")
        try:
            band = cls(
                data["metric"],
                tuple(data["seeds"]) if isinstance(data["seeds"], list) else data["seeds"],
                tuple(data["scores"]) if isinstance(data["scores"], list) else data["scores"],
                data.get("margin", 0.0),
                data.get("label", ""),
            )
        except ParameterError as exc:
            raise ProblemError(f"{caller}: {exc} Fix the file or record the band again.") from None
        for key, derived in (("lo", band.lo), ("hi", band.hi)):
            given = data.get(key, derived)
            if isinstance(given, bool) or not isinstance(given, numbers.Real) or not math.isclose(
                    float(given), derived, rel_tol=_FILE_TOL, abs_tol=_FILE_TOL):
                raise ProblemError(
                    f"{caller}: key '{key}' is {given!r}, but the recorded scores and margin give "
                    f"{derived!r}. A band is min..max of its scores widened by its margin: change "
                    "'margin' to widen it, or record the band again.")
        return band

    def write(self, path: str | os.PathLike[str]) -> Path:
        """Write the band to a ``.toml`` or ``.json`` file; return its path.

        The file is written whole or not at all: into a temporary file in the same folder,
        renamed over ``path``. A write that fails (a full disk) raises :class:`OutputError`
        (an :class:`OSError`) and leaves an earlier file at ``path`` as it was, with no
        temporary file left over.

        Examples
        --------
        >>> import pathlib, tempfile
        >>> from dpconvex.runs import Band
        >>> tmp = tempfile.TemporaryDirectory()
        >>> band = Band("error", seeds=(0, 1), scores=(0.1, 0.125))
        >>> Band.read(band.write(pathlib.Path(tmp.name) / "band.toml")) == band
        True
        >>> tmp.cleanup()
        """
        out = Path(path)
        data = self.to_dict()
        if out.suffix == ".json":
            text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        elif out.suffix == ".toml":
            text = (
                "# A band recorded by dpconvex.runs.record_band; lo and hi follow from the "
                "scores and the margin.\n"
                + "".join(f"{k} = {_toml(v)}\n" for k, v in data.items())
            )
        else:
            raise ParameterError(
                f"Band.write: {str(out)!r} has neither a .toml nor a .json suffix. "
                "Name the file band.toml or band.json."
            )
        temps: list[str] = []
        try:  # a temporary file beside it, renamed over it: the file is whole, old or new
            _write_temp(out, "w", lambda f: f.write(text), temps)
            os.replace(temps[-1], out)
            temps.pop()  # renamed: no longer a temporary file
        except (OSError, ValueError) as exc:  # ValueError: a path the OS cannot name (NUL)
            raise OutputError(f"Band.write: could not write the band to {out}: {exc}. Free disk "
                              "space or choose another path; an earlier file there is "
                              "unchanged.") from exc
        finally:
            for tmp in temps:  # on any failure or interruption: nothing left over
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
        return out

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> Band:
        """Read a band written by :meth:`write` (``.toml`` or ``.json``); a file that cannot be
        read or is not a valid band raises :class:`ProblemError`.

        Examples
        --------
        >>> import pathlib, tempfile
        >>> from dpconvex.runs import Band
        >>> tmp = tempfile.TemporaryDirectory()
        >>> path = pathlib.Path(tmp.name) / "band.json"
        >>> _ = Band("r2", seeds=(3,), scores=(0.5,), margin=0.1).write(path)
        >>> band = Band.read(path)
        >>> band.seeds, round(band.lo, 6), round(band.hi, 6)
        ((3,), 0.4, 0.6)
        >>> tmp.cleanup()
        """
        where = Path(path)
        caller = f"Band.read: {where}"
        try:
            text = where.read_text(encoding="utf-8")
            data = json.loads(text) if where.suffix == ".json" else tomllib.loads(text)
        except (OSError, UnicodeDecodeError, ValueError) as exc:  # JSON and TOML errors included
            raise ProblemError(f"{caller}: cannot be read as a band ({exc}). Check the path, or "
                               "record the band again with record_band.") from None
        return cls.from_dict(data, caller)


def _toml(value: Any) -> str:
    """A TOML value for a band file (str, float, int or a list of them)."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # JSON string escapes are TOML's
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return repr(value)


def _seeds(seeds: Any, owner: str) -> tuple[int, ...]:
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, Sequence) or not seeds:
        raise ParameterError(f"The 'seeds' parameter of {owner} must be a non-empty sequence of "
                             f"ints >= 0. Got {seeds!r} instead.")
    out = tuple(check_int("seeds", s, owner, low=0) for s in seeds)
    if len(set(out)) != len(out):
        raise ParameterError(f"The 'seeds' parameter of {owner} must hold distinct ints. Got "
                             f"{list(out)} instead.")
    return out


def record_band(make_estimator: Any, X: Any, y: Any, seeds: Sequence[int], *,
                X_test: Any = None, y_test: Any = None, metric: str | None = None,
                margin: float = 0.0, label: str | None = None) -> Band:
    """Fit a model once per seed and return the band of its scores.

    Each fit is ``make_estimator().set_params(random_state=seed).fit(X, y)``, scored on ``(X_test, y_test)``
    (or on ``(X, y)`` when none are given). The band is min..max of the scores, widened by ``margin`` on each
    side: it covers the recorded seeds on this data, and says so (:attr:`Band.statement`).

    .. warning:: Seeded fits are experiments: a model trained with a known seed is
       not private. Record bands for tests; release with ``random_state=None``.

    Parameters
    ----------
    make_estimator : estimator or callable
        An unfitted estimator (cloned for each seed) or a function returning one.
        It must take ``random_state``.
    X, y : array-like
        The training data.
    seeds : sequence of int
        Distinct seeds >= 0, one fit each.
    X_test, y_test : array-like, optional
        Where the fits are scored (both or neither).
    metric : {"error", "r2"} or None
        None: "r2" for a regressor (:func:`sklearn.base.is_regressor`), else "error".
    margin : float, default=0.0
        Added on each side of min..max, in the metric's units; state it for the
        spread you want to tolerate (other platforms, solver tolerances).
    label : str or None
        What was recorded (default: the estimator's class name).

    Raises
    ------
    ParameterError
        Bad seeds, metric, margin or test data, or an estimator without ``random_state``.

    Examples
    --------
    >>> import dpconvex as dp
    >>> from dpconvex.runs import record_band
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 2)) / 2
    >>> y = 5 + 3 * X[:, 0] + rng.normal(size=400)
    >>> band = record_band(dp.PrivateLinearRegressor(epsilon=5.0, label_range=(-5, 15)),
    ...                    X[:300], y[:300], seeds=[0, 1, 2], X_test=X[300:], y_test=y[300:],
    ...                    margin=0.05)
    >>> band.metric, band.seeds, len(band.scores)
    ('r2', (0, 1, 2), 3)
    >>> band.lo < min(band.scores) <= max(band.scores) < band.hi
    True
    """
    from sklearn.base import is_regressor

    caller = "record_band"
    # a new unfitted one
    if hasattr(make_estimator, "fit") and hasattr(make_estimator, "get_params"):
        from sklearn.base import clone

        make: Callable[[], Any] = lambda: clone(make_estimator)  # noqa: E731 (a new clone per call)
    elif callable(make_estimator):
        make = make_estimator
    else:
        raise ParameterError(
            "The 'make_estimator' parameter of record_band must be an estimator or "
            f"a callable returning one. Got {type(make_estimator).__name__} instead."
        )
    seeds = _seeds(list(seeds) if isinstance(seeds, range) else seeds, caller)
    check_option("metric", metric, (*METRICS, None), caller)
    margin = check_float("margin", margin, caller, low_inclusive=True, magnitude=False)
    if (X_test is None) != (y_test is None):
        raise ParameterError(f"{caller}: X_test and y_test go together. Give both, or neither to "
                             "score the fits on (X, y).")
    if label is not None and not isinstance(label, str):
        raise ParameterError(f"The 'label' parameter of {caller} must be a str or None. Got "
                             f"{label!r} instead.")
    X_score, y_score = (X, y) if X_test is None else (X_test, y_test)
    scores, name = [], ""
    for seed in seeds:
        est = make()
        if "random_state" not in est.get_params(deep=False):
            raise ParameterError(
                f"{caller}: {type(est).__name__} has no 'random_state' parameter, "
                "and a band records the spread over seeds. Give an estimator "
                "that takes random_state."
            )
        metric = metric or ("r2" if is_regressor(est) else "error")
        name = type(est).__name__
        est.set_params(random_state=seed).fit(X, y)
        scores.append(score(est, X_score, y_score, metric))
    return Band(metric, seeds, tuple(scores), margin, name if label is None else label)


def assert_within_band(result: Any, band: Band, X: Any = None, y: Any = None) -> float:
    """Check a score, or a fitted estimator scored on (X, y), against a band; return the score.

    For pytest: a score outside the band raises :class:`AssertionError` whose
    message states the score, the band, the seeds it was recorded on and what it
    covers (and, for an estimator fitted with a seed the band does not cover, that).

    Parameters
    ----------
    result : float or fitted estimator
        A score in the band's metric, or an estimator to score on ``(X, y)``.
    band : Band
    X, y : array-like, optional
        The rows to score an estimator on (required with an estimator).

    Raises
    ------
    AssertionError
        The score is outside the band (or NaN).

    Examples
    --------
    >>> from dpconvex.runs import Band, assert_within_band
    >>> band = Band("error", seeds=(0, 1, 2), scores=(0.10, 0.12, 0.11), margin=0.01)
    >>> assert_within_band(0.115, band)
    0.115
    >>> try:
    ...     assert_within_band(0.2, band)
    ... except AssertionError as exc:
    ...     print(str(exc).split(";")[0])
    assert_within_band: test error 0.2 is outside the band [0.09, 0.13] recorded on seeds [0, 1, 2]
    """
    __tracebackhide__ = True  # pytest: the failure points at the caller's line
    if not isinstance(band, Band):
        raise ParameterError(f"The 'band' parameter of assert_within_band must be a Band. Got "
                             f"{type(band).__name__} instead.")
    seed_note = ""
    if isinstance(result, numbers.Real) and not isinstance(result, bool):
        value = float(result)
    elif hasattr(result, "predict"):
        if X is None or y is None:
            raise ParameterError("assert_within_band: an estimator is scored on (X, y). Pass the "
                                 "rows: assert_within_band(model, band, X_test, y_test).")
        value = score(result, X, y, band.metric)
        seed = getattr(result, "random_state", None)
        if isinstance(seed, (numbers.Integral, np.integer)) and int(seed) not in band.seeds:
            seed_note = (f" This fit used random_state={int(seed)}, which the band does not "
                         "cover: fit with a recorded seed.")
    else:
        raise ParameterError(f"The 'result' parameter of assert_within_band must be a score (a "
                             f"float) or a fitted estimator. Got {type(result).__name__} instead.")
    if band.covers(value):
        return value
    raise AssertionError(
        f"assert_within_band: {METRIC_NAMES[band.metric]} {value:.6g} is outside the band "
        f"[{band.lo:.6g}, "
        f"{band.hi:.6g}] recorded on seeds {list(band.seeds)}; {band.statement}{seed_note} Find "
        "what changed "
        "the model or its data, or record the band again with record_band if the change is "
        "intended."
    )
