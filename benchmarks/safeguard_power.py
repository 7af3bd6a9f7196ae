"""The classification safeguard's power: how often does the front door release a model more than
2 points below the majority class when the model is known to be worse than a constant?

Usage::

    python benchmarks/safeguard_power.py [--seeds 100] [--quick] [--out DIR]

Two measurements (docs/privacy/front_door.md#privacy-classifier-safeguard-power):

1. The bound, exact: :func:`dpconvex.privacy.rules.front_door.selection_error_bound`, the
   probability that the safeguard's exponential mechanism (at its share of ε,
   ``SELECTION_SHARE``) selects a candidate over the majority class by their mistakes on the n
   training rows (n = 1,000 to 50,000, the corpus's sizes), for a candidate independent of
   those rows, 2, 5 or 10 points below the majority class, that disagrees with it on a share s
   of the rows (s = 0.1, 0.3, 0.6: the more rows the two disagree on, the noisier their
   difference of mistakes). The model the safeguard scores was fitted on those rows; the bound
   leaves out its in-sample advantage (and the handicap, which only lowers the chance).
2. End to end, on a synthetic table where every model is worse than a constant: labels of
   four classes with shares 0.5 / 0.3 / 0.15 / 0.05 drawn independently of 8 binary columns,
   each 1 with probability 0.08 (a one-hot-heavy survey table with nothing to learn).
   ``PrivateClassifier(epsilon, classes, feature_range=(0, 1), random_state=seed)`` (its rule
   takes Gaussian naive Bayes here) with ``safeguard=False`` and with the default
   ``safeguard="auto"``, seeds 0 .. S − 1 (the seed draws the table and the noise). Every
   accuracy is the exact population accuracy (the rows take 2**8 values of known
   probability; the labels are independent of them), so "below" has no test-set noise. Per
   cell: the share of fits more than 2 points below the majority class, and the mean over
   the guarded fits of the bound of step 1 for the model the safeguard scored and the three
   minority classes.

Baselines: the majority class (0.5, exact) and non-private naive Bayes (scikit-learn's
``GaussianNB`` on the same training rows, its exact population accuracy).
"""

from __future__ import annotations

import itertools
import warnings

import harness  # benchmarks/ is the script's folder, first on sys.path
import numpy as np
from sklearn.naive_bayes import GaussianNB

import dpconvex.estimators.front_door as front_door
from dpconvex import PrivateClassifier
from dpconvex.privacy.rules.front_door import SELECTION_SHARE, selection_error_bound

SHARES = np.array([0.5, 0.3, 0.15, 0.05])
D, P_ONE = 8, 0.08
GAP = 0.02
PATTERNS = np.array(list(itertools.product([0.0, 1.0], repeat=D)))
WEIGHTS = np.prod(np.where(PATTERNS == 1.0, P_ONE, 1.0 - P_ONE), axis=1)
SIZES = (1000, 3000, 10000, 50000)
EPSILONS = (0.5, 1.0, 2.0)


def table(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The synthetic table: n rows of 8 binary columns and labels independent of them."""
    rng = np.random.default_rng(seed)
    X = (rng.uniform(size=(n, D)) < P_ONE).astype(float)
    return X, rng.choice(SHARES.size, size=n, p=SHARES)


def exact(predicted: np.ndarray) -> tuple[float, float, float]:
    """(accuracy, P(it errs where the majority class does not), P(the other way round)) of a
    predictor whose predictions on the 2**8 rows are ``predicted``."""
    right = SHARES[predicted]
    other = predicted != 0
    return (float(WEIGHTS @ right), float(WEIGHTS @ (other * SHARES[0])),
            float(WEIGHTS @ (other * right)))


def bound_table(run: harness.Run) -> None:
    """Step 1: the exact bound for n, ε, the gap and the share of rows the two disagree on."""
    shares = (0.1, 0.3, 0.6)
    lines = ["| n | gap (points) | " + " | ".join(
        f"ε = {e:g}, s = {s:g}" for e in EPSILONS for s in shares) + " |",
        "|---|---|" + "---|" * (len(EPSILONS) * len(shares))]
    for n in SIZES:
        for gap in (0.02, 0.05, 0.10):
            cells = [selection_error_bound(n, SELECTION_SHARE * e, (s + gap) / 2, (s - gap) / 2)
                     for e in EPSILONS for s in shares]
            lines.append(f"| {n:,} | {gap * 100:g} | "
                         + " | ".join(f"{c:.3g}" for c in cells) + " |")
    run.note("P(the safeguard selects a candidate `gap` points below the majority class over "
             "it), exact (selection_error_bound):\n\n" + "\n".join(lines))


def end_to_end(run: harness.Run, seeds: int, sizes: tuple[int, ...]) -> None:
    """Step 2: the front door with and without its safeguard on the synthetic table."""
    scored: list = []
    original = front_door.safeguard_mistakes

    def spy(model, X, y, classes):  # the model the safeguard scores (read for the bound only)
        scored.append(model)
        return original(model, X, y, classes)

    front_door.safeguard_mistakes = spy
    t = harness.Table("Fits more than 2 points below the majority class (population accuracy, "
                      f"{seeds} seeds per cell)",
                      ["model", "n", "ε", "accuracy", "share > 2 points below", "mean bound"])
    t.add(harness.MAJORITY, "all", "all", float(SHARES[0]), 0.0, "")
    try:
        for n in sizes:
            plain = [exact(GaussianNB().fit(*table(n, s)).predict(PATTERNS))[0]
                     for s in range(seeds)]
            t.add(f"{harness.NON_PRIVATE} GaussianNB", n, "–", plain,
                  float(np.mean(np.array(plain) < SHARES[0] - GAP)), "")
            for eps in EPSILONS:
                minority = sum(selection_error_bound(n, SELECTION_SHARE * eps, SHARES[0],
                                                     SHARES[c])
                               for c in range(1, SHARES.size))
                rows = {"front door, safeguard=False": [], "front door (safeguard 'auto')": []}
                bounds = []
                for s in range(seeds):
                    X, y = table(n, s)
                    for name, guard in (("front door, safeguard=False", False),
                                        ("front door (safeguard 'auto')", "auto")):
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            clf = PrivateClassifier(epsilon=eps, classes=[0, 1, 2, 3],
                                                    feature_range=(0.0, 1.0), safeguard=guard,
                                                    random_state=s).fit(X, y)
                        rows[name].append(exact(clf.predict(PATTERNS).astype(int))[0])
                    accuracy, worse, better = exact(scored[-1].predict(PATTERNS))
                    model = (selection_error_bound(n, SELECTION_SHARE * eps, worse, better)
                             if accuracy < SHARES[0] - GAP else 0.0)
                    bounds.append(min(1.0, minority + model))
                for name, accs in rows.items():
                    below = float(np.mean(np.array(accs) < SHARES[0] - GAP))
                    t.add(name, n, eps, accs, below,
                          f"{np.mean(bounds):.3g}" if "auto" in name else "")
    finally:
        front_door.safeguard_mistakes = original
    run.table(t)


def main() -> None:
    args = harness.parser(__doc__, seeds=100).parse_args()
    seeds = 5 if args.quick else args.seeds
    sizes = (1000, 3000) if args.quick else SIZES
    with harness.Run(__file__, args) as run:
        bound_table(run)
        end_to_end(run, seeds, sizes)


if __name__ == "__main__":
    main()
