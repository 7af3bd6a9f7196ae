"""Softmax loss with K = 2 components per class vs K = 1
(docs/privacy/large_margin_softmax.md#privacy-softmax-mixtures).

Usage: ``DPCONVEX_DATA=/work/shared/datasets python benchmarks/large_margin_softmax_mixture.py
[--splits 3] [--seeds 3] [--structures linear,full]``

Breast cancer (UCI original, :func:`dpconvex.datasets.load_breast_cancer_wisconsin`, the
"centered" map (2·(x − 1)/9 − 1)/3 of benchmarks/large_margin_softmax.py, ||x|| <= 1,
data_norm = 1), 583/100 splits (``train_test_split(test_size=100, random_state=split)``),
``PrivateLargeMarginGaussian(loss="softmax", mechanism="gaussian_objective", lam="auto")``,
δ = 1e-5, ε ∈ {1, 2}. K = 1 against K = 2 with the nearest public center (the default public
rule of :mod:`dpconvex.estimators.large_margin.components`) and with DP k-means (20 % of ε).
Mean test accuracy ± standard deviation over splits × noise seeds, and the non-private fit (mechanism="none").
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import harness  # benchmarks/ is the script's folder, first on sys.path
import numpy as np
from sklearn.model_selection import train_test_split

from dpconvex.datasets import load_breast_cancer_wisconsin
from dpconvex.estimators.large_margin.estimator import PrivateLargeMarginGaussian

EPSILONS = (1.0, 2.0)
DELTA = 1e-5
VARIANTS = {"K=1": (1, None), "K=2 public centers": (2, "nearest_public_center"),
            "K=2 dp_kmeans": (2, "dp_kmeans")}


def load() -> tuple[np.ndarray, np.ndarray]:
    X, y = load_breast_cancer_wisconsin(data_home=os.environ.get("DPCONVEX_DATA"), download=False)
    Z = np.clip(3.0 * X, 0.0, 1.0)  # (x − 1)/9 in [0, 1]
    return (2 * Z - 1) / 3.0, y


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--splits", type=int, default=3)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--structures", default="linear,full")
    a = ap.parse_args()
    X, y = load()
    print("| structure | variant | eps | accuracy (mean ± sd) | non-private | s/fit |")
    print("|---|---|---|---|---|---|")
    for structure in a.structures.split(","):
        for name, (K, assign) in VARIANTS.items():
            for eps in EPSILONS:
                accs, base, t0 = [], [], time.time()
                for s in range(a.splits):
                    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=100, random_state=s)
                    kw = dict(loss="softmax", n_components=K, component_assignment=assign,
                              structure=structure, lam="auto", data_norm=1.0)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        for seed in range(a.seeds):
                            est = PrivateLargeMarginGaussian(
                                epsilon=eps, delta=DELTA, mechanism="gaussian_objective",
                                random_state=1000 * s + seed, **kw).fit(Xtr, ytr)
                            accs.append(est.score(Xte, yte))
                        npm = PrivateLargeMarginGaussian(
                            mechanism="none", random_state=s,
                            **{**kw, "component_assignment": (None if assign == "dp_kmeans"
                                                              else assign)}).fit(Xtr, ytr)
                        base.append(npm.score(Xte, yte))
                dt = (time.time() - t0) / (a.splits * (a.seeds + 1))
                print(f"| {structure} | {name} | {eps:g} | {np.mean(accs):.3f} ± "
                      f"{np.std(accs):.3f} | {np.mean(base):.3f} | {dt:.2f} |", flush=True)


#: module constants replaced in --quick mode (a smoke run, not a measurement)
QUICK: dict = {}

if __name__ == "__main__":
    harness.run_script(__file__, main, globals(), QUICK)
