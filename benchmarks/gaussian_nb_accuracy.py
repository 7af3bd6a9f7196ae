"""Gaussian naive Bayes: PrivateGaussianNB against the DP class centroids and diffprivlib's GaussianNB.

Usage::

    DPCONVEX_DATA=/work/shared/datasets python benchmarks/gaussian_nb_accuracy.py [--seeds 10]

For breast cancer, wine (``dpconvex.datasets.load_sklearn``: each feature clipped to the range
published in the data's description and mapped onto ±1/(2·divisor)) and iris (scikit-learn's
``load_iris``, the ranges printed in its description, mapped the same way), split seeds and
noise seeds s = 0 .. seeds-1 (``train_test_split(test_size=0.3, stratify=y, random_state=s)``,
``random_state=s``), it prints the mean ± std test accuracy at ε ∈ {0.5, 1, 2} of

* ``PrivateGaussianNB`` with ``feature_range`` the encoded range, pure ε (``knorm_sup_sum``)
  and δ = 1e-5 (``gaussian``);
* ``PrivateGaussianCentroid`` at its defaults (unit rows), pure ε (``knorm_sum``) and δ = 1e-5;
* diffprivlib's ``GaussianNB`` (pure ε, the same bounds) when diffprivlib is importable (the
  environment of ``benchmarks/setup_env.sh``);

beside the non-private ``sklearn.naive_bayes.GaussianNB`` and the majority class of each
training split. CAUTION: the published ranges are summary statistics of the same records
(see ``load_sklearn``); both private models and diffprivlib get the same ones.

Then the same models on the canonical splits of the CMS experiments, Adult (30,162 training
rows, the 15,060 of adult.test) and the KDDCup99 sample (50,000 / 20,000 rows), noise seeds
0 .. seeds-1: the loaders' public schemas with ``row_norm="none"``, so every feature lies in
[0, 1/divisor] (numeric columns scaled by their documented ranges, one-hot columns 0 or
1/divisor), the range given to both naive Bayes models; the centroids scale each row to norm 1.
"""

from __future__ import annotations

import warnings

import harness  # benchmarks/ is the script's folder, first on sys.path
import numpy as np
from sklearn.datasets import load_iris
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB

import dpconvex as dp
from dpconvex.datasets import SKLEARN_SCHEMAS, load_sklearn

EPSILONS = (0.5, 1.0, 2.0)
DELTA = 1e-5
#: Iris's per-feature (min, max) as printed in scikit-learn's description of the data.
IRIS_RANGES = np.array([(4.3, 7.9), (2.0, 4.4), (1.0, 6.9), (0.1, 2.5)])


def load(name: str) -> tuple[np.ndarray, np.ndarray, float]:
    """(X, y, h): features in [−h, h] by their published ranges, rows of norm <= 1."""
    if name == "iris":
        X, y = load_iris(return_X_y=True)
        t = 2 * (np.clip(X, IRIS_RANGES[:, 0], IRIS_RANGES[:, 1]) - IRIS_RANGES[:, 0]) / (
            IRIS_RANGES[:, 1] - IRIS_RANGES[:, 0]) - 1
        h = 0.5 / np.sqrt(X.shape[1])  # as load_sklearn encodes: ±1/2, rows divided by √d/2
        return t * h, y, h
    X, y = load_sklearn(name)
    return X, np.asarray(y), 0.5 / SKLEARN_SCHEMAS[name].divisor


def load_canonical(name: str) -> tuple[np.ndarray, ...]:
    """(X, y, Xt, yt, h): the canonical split with features in [0, h], h = 1/divisor."""
    from dpconvex.datasets import ADULT_SCHEMA, KDDCUP99_SCHEMA, load_adult, load_kddcup99

    if name == "adult":
        X, y = load_adult("train", download=False, row_norm="none")
        Xt, yt = load_adult("test", download=False, row_norm="none")
        return X, np.asarray(y), Xt, np.asarray(yt), 1.0 / ADULT_SCHEMA.divisor
    X, y = load_kddcup99(n_samples=70000, random_state=1999, download=False, row_norm="none")
    y = np.asarray(y)
    return X[:50000], y[:50000], X[50000:], y[50000:], 1.0 / KDDCUP99_SCHEMA.divisor


def diffprivlib_nb():
    try:
        from diffprivlib.models import GaussianNB as DiffprivlibNB
    except ImportError:
        return None
    return DiffprivlibNB


def models(low: float, h: float, classes: np.ndarray, d: int):
    """name -> (ε, seed) -> unfitted model, for features in [low, h]."""
    out = {
        "PrivateGaussianNB, pure ε": lambda e, s: dp.PrivateGaussianNB(
            epsilon=e, feature_range=(low, h), classes=classes, random_state=s),
        f"PrivateGaussianNB, δ = {DELTA:g}": lambda e, s: dp.PrivateGaussianNB(
            epsilon=e, delta=DELTA, feature_range=(low, h), classes=classes, random_state=s),
        "PrivateGaussianCentroid, pure ε": lambda e, s: dp.PrivateGaussianCentroid(
            epsilon=e, classes=classes, random_state=s),
        f"PrivateGaussianCentroid, δ = {DELTA:g}": lambda e, s: dp.PrivateGaussianCentroid(
            epsilon=e, delta=DELTA, classes=classes, random_state=s),
    }
    other = diffprivlib_nb()
    if other is not None:
        bounds = (np.full(d, low), np.full(d, h))
        out["diffprivlib GaussianNB, pure ε"] = lambda e, s: other(
            epsilon=e, bounds=bounds, random_state=s)
    return out


def main() -> None:
    ap = harness.parser(__doc__, seeds=10)
    args = ap.parse_args()
    seeds = range(2 if args.quick else args.seeds)
    warnings.simplefilter("ignore")  # noise warnings of the tiny sets; diffprivlib's own
    with harness.Run(__file__, args) as run:
        if diffprivlib_nb() is None:
            run.note("diffprivlib is not importable here: its rows are left out "
                     "(bash benchmarks/setup_env.sh makes the environment that has it)")
        for name in ("breast_cancer", "wine", "iris"):
            X, y, h = load(name)
            classes = np.unique(y)
            t = harness.Table(f"{name}: test accuracy ({len(seeds)} splits × noise seeds)",
                              ["model", *[f"ε = {e:g}" for e in EPSILONS]])
            splits = [train_test_split(X, y, test_size=0.3, stratify=y, random_state=s)
                      for s in seeds]
            for label, make in models(-h, h, classes, X.shape[1]).items():
                t.add(label, *[[make(e, s).fit(Xtr, ytr).score(Xte, yte)
                                for s, (Xtr, Xte, ytr, yte) in zip(seeds, splits, strict=True)]
                               for e in EPSILONS])
            plain = [GaussianNB().fit(Xtr, ytr).score(Xte, yte) for Xtr, Xte, ytr, yte in splits]
            majority = [np.mean(yte == np.bincount(ytr).argmax()) for _, _, ytr, yte in splits]
            t.add(f"{harness.NON_PRIVATE} GaussianNB", *[plain] * len(EPSILONS))
            t.add(harness.MAJORITY, *[majority] * len(EPSILONS))
            run.table(t)
        for name in ("adult", "kddcup99"):
            X, y, Xt, yt, h = load_canonical(name)
            if args.quick:
                X, y = harness.subsample(X, y, harness.QUICK_ROWS[0])
                Xt, yt = harness.subsample(Xt, yt, harness.QUICK_ROWS[1])
            classes = np.unique(np.concatenate([y, yt]))  # the documented label set
            t = harness.Table(f"{name}: test accuracy ({len(seeds)} noise seeds, n = {len(y)}, "
                              f"d = {X.shape[1]})", ["model", *[f"ε = {e:g}" for e in EPSILONS]])
            for label, make in models(0.0, h, classes, X.shape[1]).items():
                t.add(label, *[[make(e, s).fit(X, y).score(Xt, yt) for s in seeds]
                               for e in EPSILONS])
            plain = GaussianNB().fit(X, y).score(Xt, yt)
            majority = float(np.mean(yt == classes[np.argmax([np.sum(y == c) for c in classes])]))
            t.add(f"{harness.NON_PRIVATE} GaussianNB", *[plain] * len(EPSILONS))
            t.add(harness.MAJORITY, *[majority] * len(EPSILONS))
            run.table(t)


if __name__ == "__main__":
    main()
