"""UCI breast cancer (original), the ≥ 0.97 target: a public feature map chosen on validation.

Usage::

    DPCONVEX_DATA=/work/shared/datasets OMP_NUM_THREADS=1 python benchmarks/breast_cancer_maps.py

The nine features are documented as integers 1-10, so every map below is public (it
reads only the record and the documented range; z = (x − 1)/9 ∈ [0, 1]):

* "loader": ``load_breast_cancer_wisconsin``'s z/3 (rows ‖·‖ <= 1);
* "centered": (2z − 1)/3;
* "sqrt-centered": (2√z − 1)/3 (a prototype picked it after seeing test accuracies);
* "log-centered": (2 log(1 + 9z)/log 10 − 1)/3;
* "binary-ish": (2·[z > 0.2] − 1)/3.

Estimator: ``PrivateGaussianCentroid(epsilon, delta=1e-5, row_norm=...)`` (DP class
centroids, docs/privacy/large_margin.md#privacy-class-centroids), row_norm "unit" and "none". Protocol:
5 outer splits 583/100 (``train_test_split(random_state=s)``) × 5 noise seeds. The map is
chosen by the mean accuracy on an inner validation split of each outer TRAINING part
(483/100, ``random_state=100 + s``); the test column is printed for every map so the
reader sees what the selection cost, but only the validation argmin is reported as
the result. Runtime about 30 s.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
from sklearn.model_selection import train_test_split

sys.path.insert(0, str(Path(__file__).parent))
import harness  # benchmarks/ is the script's folder, first on sys.path
from centroids_accuracy import breast_maps  # noqa: E402

from dpconvex.estimators.centroids import PrivateGaussianCentroid  # noqa: E402

EPSILONS = (1.0, 2.0)
DELTA = 1e-5


def maps() -> tuple[np.ndarray, dict[str, np.ndarray]]:
    y, m = breast_maps()
    Z = np.clip(3.0 * m["loader"], 0.0, 1.0)
    return y, {"loader": m["loader"], "centered": (2 * Z - 1) / 3,
               "sqrt-centered": (2 * np.sqrt(Z) - 1) / 3,
               "log-centered": (2 * np.log1p(9 * Z) / np.log(10) - 1) / 3,
               "binary-ish": (2 * (Z > 0.2) - 1) / 3}


def main() -> None:
    warnings.simplefilter("ignore")
    y, M = maps()
    idx = np.arange(y.size)
    print("| ε | map | row_norm | validation | test (5 × 5) |")
    print("|---|---|---|---|---|")
    for eps in EPSILONS:
        best = None
        for name, X in M.items():
            for rn in ("unit", "none"):
                val, test = [], []
                for s in range(5):
                    tr, te = train_test_split(idx, train_size=583, test_size=100, random_state=s)
                    itr, iva = train_test_split(tr, test_size=100, random_state=100 + s)
                    for seed in range(5):
                        est = PrivateGaussianCentroid(epsilon=eps, delta=DELTA, row_norm=rn,
                                                      random_state=seed)
                        val.append(est.fit(X[itr], y[itr]).score(X[iva], y[iva]))
                        test.append(est.fit(X[tr], y[tr]).score(X[te], y[te]))
                row = (float(np.mean(val)), name, rn, float(np.mean(test)), float(np.std(test)))
                best = row if best is None or row[0] > best[0] else best
                print(f"| {eps:g} | {name} | {rn} | {row[0]:.4f} | {row[3]:.4f} ± {row[4]:.4f} |",
                      flush=True)
        print(f"| {eps:g} | **validation argmin: {best[1]}, {best[2]}** | | {best[0]:.4f} | "
              f"**{best[3]:.4f} ± {best[4]:.4f}** (target 0.97) |")


#: module constants replaced in --quick mode (a smoke run, not a measurement)
QUICK: dict = {}

if __name__ == "__main__":
    harness.run_script(__file__, main, globals(), QUICK)
