"""The breast-cancer protocol for ``PrivateLargeMarginGaussian`` with only ε and δ = 1e-5 set.

Usage::

    DPCONVEX_DATA=/work/shared/datasets OMP_NUM_THREADS=1 python benchmarks/breast_cancer_defaults.py
    ... python benchmarks/breast_cancer_defaults.py --splits 50   # same protocol, 50 splits

``--splits N`` uses split seeds 0..N-1 (default 5); the extra column
"SE" is the standard error of the mean over splits (sd of the per-split means / √N), the
part of the uncertainty a target comparison has to respect when the test sets hold 100
(breast cancer) to 54 (wine) rows.

5 splits × 5 noise seeds, test accuracy (mean ± sd), δ = 1e-5, ε ∈ {1, 2}:

* wine and digits: ``load_sklearn`` (public-range encoding), 70/30 stratified splits
  (``random_state`` = split index);
* UCI breast cancer (original): ``load_breast_cancer_wisconsin``, 583/100 random splits,
  with the loader's default encoding and with ``encoding="log-centered"`` (a public map
  chosen on validation splits of the training parts, benchmarks/breast_cancer_maps.py).

Rows: the estimator's defaults (``row_norm="auto"`` = unit rows; with δ > 0 DP class
centroids while n·ε/C < 300, Gaussian objective perturbation above;
docs/privacy/large_margin_softmax.md#privacy-centroid-switch), the same with
``row_norm="none"``, the non-private softmax fit (``mechanism="none"``), scikit-learn's
non-private ``LogisticRegression()`` and ``NearestCentroid()`` on the same rows, and the
majority class of each training split. The targets are printed beside them. Nothing is
tuned here. Runtime about 10 seconds.
"""

from __future__ import annotations

import argparse
import os
import warnings

import harness  # benchmarks/ is the script's folder, first on sys.path
import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.neighbors import NearestCentroid

from dpconvex.datasets import load_breast_cancer_wisconsin, load_sklearn
from dpconvex.estimators.large_margin.estimator import PrivateLargeMarginGaussian

DELTA = 1e-5
EPSILONS = (1.0, 2.0)
TARGETS = {"wine": {1.0: 0.75, 2.0: 0.90}, "digits": {1.0: 0.60, 2.0: 0.85},
           "breast cancer (UCI)": {1.0: 0.97}, "breast cancer (UCI), log-centered": {1.0: 0.97}}


def data(name: str) -> tuple[np.ndarray, np.ndarray]:
    if name.startswith("breast cancer (UCI)"):
        encoding = "log-centered" if name.endswith("log-centered") else "linear"
        return load_breast_cancer_wisconsin(data_home=os.environ.get("DPCONVEX_DATA"),
                                            download=False, encoding=encoding)
    return load_sklearn(name)


def split(name: str, y: np.ndarray, s: int):
    idx = np.arange(y.size)
    if name.startswith("breast cancer (UCI)"):
        return train_test_split(idx, train_size=583, test_size=100, random_state=s)
    return train_test_split(idx, test_size=0.3, stratify=y, random_state=s)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--splits", type=int, default=5, help="number of splits (seeds 0..N-1)")
    n_splits = ap.parse_args().splits
    warnings.simplefilter("ignore")
    print(f"{n_splits} splits x 5 noise seeds")
    print("| data | ε | defaults (δ = 1e-5) | SE | row_norm='none' | SE | non-private softmax | "
          "non-private LR / nearest mean (sklearn) | majority | target |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in TARGETS:
        X, y = data(name)
        for eps in EPSILONS:
            acc: dict[str, list[float]] = {"auto": [], "none": [], "np": [], "lr": [], "nc": [],
                                           "maj": []}
            for s in range(n_splits):
                tr, te = split(name, y, s)
                vals, cnt = np.unique(y[tr], return_counts=True)
                acc["maj"].append(float(np.mean(y[te] == vals[np.argmax(cnt)])))
                acc["np"].append(PrivateLargeMarginGaussian(mechanism="none", loss="softmax")
                                 .fit(X[tr], y[tr]).score(X[te], y[te]))
                acc["lr"].append(LogisticRegression(max_iter=5000).fit(X[tr], y[tr])
                                 .score(X[te], y[te]))
                acc["nc"].append(NearestCentroid().fit(X[tr], y[tr]).score(X[te], y[te]))
                for seed in range(5):
                    for key, kw in (("auto", {}), ("none", {"row_norm": "none"})):
                        est = PrivateLargeMarginGaussian(epsilon=eps, delta=DELTA,
                                                         random_state=seed, **kw)
                        acc[key].append(est.fit(X[tr], y[tr]).score(X[te], y[te]))
            cell = {k: f"{np.mean(v):.3f} ± {np.std(v):.3f}" for k, v in acc.items()}
            se = {k: f"{np.std(np.reshape(acc[k], (n_splits, 5)).mean(axis=1)) / np.sqrt(n_splits):.3f}"
                  for k in ("auto", "none")}
            print(f"| {name} | {eps:g} | {cell['auto']} | {se['auto']} | {cell['none']} | "
                  f"{se['none']} | {cell['np']} | "
                  f"{np.mean(acc['lr']):.3f} / {np.mean(acc['nc']):.3f} | "
                  f"{np.mean(acc['maj']):.3f} | {TARGETS[name].get(eps, '–')} |", flush=True)


#: module constants replaced in --quick mode (a smoke run, not a measurement)
QUICK: dict = {}

if __name__ == "__main__":
    harness.run_script(__file__, main, globals(), QUICK)
