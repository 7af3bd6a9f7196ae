"""PrivateLargeMarginGaussian with only ``epsilon`` set: softmax structures vs the majority class.

Usage (from the repository root)::

    DPCONVEX_DATA=/work/shared/datasets OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \
        python benchmarks/large_margin_defaults.py NAME STRUCTURES EPSILONS

e.g. ``adult linear,diagonal 0.1,1``; NAME in {adult, kdd, wine, breast_cancer, digits};
STRUCTURES a comma list of softmax structures, or ``paper`` for
``loss="pairwise", lam=2e-2`` (Pathak & Raj's estimator). Protocol of
benchmarks/only_epsilon_defaults.py: Adult adult.data → adult.test, KDDCup99 70,000-row sample
50,000 / 20,000, the scikit-learn sets 70/30 (split seed 0, stratified for breast
cancer); 3 noise seeds; prints mean ± sd test accuracy, the majority class of the
training labels scored on the test part, and the mean fit time.
docs/privacy/large_margin_softmax.md#privacy-large-margin-defaults.
"""

from __future__ import annotations

import sys
import time
import warnings

import harness  # benchmarks/ is the script's folder, first on sys.path
import numpy as np
from sklearn.model_selection import train_test_split

from dpconvex.datasets import load_adult, load_kddcup99, load_sklearn
from dpconvex.estimators.large_margin.estimator import PrivateLargeMarginGaussian


def data(name: str):
    if name == "adult":
        Xtr, ytr = load_adult("train")
        Xte, yte = load_adult("test")
        return Xtr, ytr, Xte, yte
    if name == "kdd":
        X, y = load_kddcup99(n_samples=70000, random_state=1999)
        return harness.kdd_split(X, y)
    X, y = load_sklearn(name)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0,
                                          stratify=y if name == "breast_cancer" else None)
    return Xtr, ytr, Xte, yte


def main() -> None:
    name, structures = sys.argv[1], sys.argv[2].split(",")
    epsilons = [float(e) for e in sys.argv[3].split(",")]
    Xtr, ytr, Xte, yte = data(name)
    vals, cnt = np.unique(ytr, return_counts=True)
    majority = float(np.mean(yte == vals[np.argmax(cnt)]))
    warnings.simplefilter("ignore")
    for structure in structures:
        for eps in epsilons:
            accs, t0 = [], time.perf_counter()
            for seed in range(3):
                kw = ({"loss": "pairwise", "lam": 2e-2} if structure == "paper"
                      else {"structure": structure})
                est = PrivateLargeMarginGaussian(epsilon=eps, random_state=seed, **kw)
                accs.append(est.fit(Xtr, ytr).score(Xte, yte))
            per_fit = (time.perf_counter() - t0) / 3
            print(f"{name} {structure} eps={eps:g}: {np.mean(accs):.4f} ± {np.std(accs):.4f} "
                  f"majority {majority:.4f} ({per_fit:.1f} s/fit)", flush=True)


#: module constants replaced in --quick mode (a smoke run, not a measurement)
QUICK: dict = {}

if __name__ == "__main__":
    harness.run_script(__file__, main, globals(), QUICK)
