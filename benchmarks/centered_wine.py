"""Wine through ``schema=``: the front door at ε = 1 with the schema uncentred and centred.

The sentence of docs/guide/own_data.md measured as a reader repeats it: scikit-learn's wine
(``sklearn.datasets.load_wine``, the raw 13 columns), the schema built from the published
ranges ``dp.datasets.SKLEARN_WINE_RANGES`` by ``PublicSchema.from_ranges`` with
``centered=False`` (the default) and ``centered=True``, and for s in 0..4 (the split seed and
the noise seed alike)::

    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=s)
    PrivateClassifier(epsilon=1, classes=[0, 1, 2], schema=S, random_state=s).fit(Xtr, ytr)

scored on (Xte, yte). The same is run with ``stratify=y`` in a second table. Beside the
front door: scikit-learn's non-private ``LogisticRegression(max_iter=5000)`` on the rows the
schema encodes (``PublicEncoder(S)``), and the majority class of each training split. Cells:
test accuracy, mean ± sd over the five seeds; the learners the front door chose are noted.
Nothing is tuned. About 5 s.

Usage::

    python benchmarks/centered_wine.py            # writes benchmarks/results/centered_wine.*
    python benchmarks/centered_wine.py --quick    # two seeds, a smoke run

The record is ``benchmarks/recorded/centered_wine.md``.
"""

from __future__ import annotations

import warnings
from collections import Counter

import harness
import numpy as np
from sklearn.datasets import load_wine
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

import dpconvex as dp

SEEDS = tuple(range(5))
EPSILON = 1.0
CLASSES = [0, 1, 2]


def measure(run: harness.Run, seeds: tuple[int, ...], stratify: bool) -> None:
    """One table: the front door, non-private and majority class, uncentred and centred."""
    X, y = load_wine(return_X_y=True)
    schemas = {centered: dp.PublicSchema.from_ranges(dp.datasets.SKLEARN_WINE_RANGES,
                                                     centered=centered)
               for centered in (False, True)}
    front, lr, majority = {False: [], True: []}, {False: [], True: []}, []
    learners: dict[bool, Counter] = {False: Counter(), True: Counter()}
    for s in seeds:
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=s,
                                              stratify=y if stratify else None)
        values, counts = np.unique(ytr, return_counts=True)
        majority.append(float(np.mean(yte == values[np.argmax(counts)])))
        for centered, schema in schemas.items():
            est = dp.PrivateClassifier(epsilon=EPSILON, classes=CLASSES, schema=schema,
                                       random_state=s).fit(Xtr, ytr)
            front[centered].append(float(est.score(Xte, yte)))
            learners[centered][est.learner_] += 1
            encoder = dp.PublicEncoder(schema)
            model = LogisticRegression(max_iter=5000).fit(encoder.fit_transform(Xtr), ytr)
            lr[centered].append(float(model.score(encoder.transform(Xte), yte)))
    split = "stratify=y" if stratify else "not stratified"
    table = harness.Table(
        f"wine through schema=, ε = {EPSILON:g}, 30 % held out ({split}), seeds "
        f"{seeds[0]}–{seeds[-1]}: test accuracy",
        ["model", "centered=False", "centered=True"])
    table.add(f"PrivateClassifier(epsilon={EPSILON:g}, schema=S)", front[False], front[True])
    table.add(f"{harness.NON_PRIVATE} LogisticRegression (the same encoded rows)",
              lr[False], lr[True])
    table.add(harness.MAJORITY, majority, majority)
    for centered in (False, True):
        shown = ", ".join(f"{a:.3f}" for a in front[centered])
        chosen = ", ".join(f"{name} × {count}" for name, count in learners[centered].items())
        table.notes.append(f"centered={centered}: per seed {shown}; learners chosen: {chosen}.")
    run.table(table)
    run.data[split] = {"front door": {str(c): front[c] for c in front},
                       "non-private": {str(c): lr[c] for c in lr}, "majority": majority}


def main() -> None:
    args = harness.parser(__doc__).parse_args()
    seeds = SEEDS[:2] if args.quick else SEEDS
    with harness.Run(__file__, args) as run, warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)
        measure(run, seeds, stratify=False)
        measure(run, seeds, stratify=True)


if __name__ == "__main__":
    main()
