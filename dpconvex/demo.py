"""The embedded default job: private logistic regression on scikit-learn's breast-cancer data.

Preprocessing uses only published constants: each column is mapped to [-1/2, 1/2] by
the min/max printed in the dataset's own description (``load_breast_cancer().DESCR``,
"Summary Statistics"), values outside are clipped, and rows are divided by the
public constant sqrt(30)/2 so that ||x|| <= 1 by construction.

.. warning:: Those published ranges were computed by the data's publishers from the
   same records, so this preprocessing is outside the privacy guarantee; it stands
   in for ranges a data owner knows *before* seeing the data. Never take ranges
   from your own private data.
"""

from __future__ import annotations

import math
import time

import numpy as np

#: Published per-column (min, max) of sklearn's breast-cancer data (DESCR), in column order.
WDBC_RANGES: tuple[tuple[float, float], ...] = (
    (6.981, 28.11), (9.71, 39.28), (43.79, 188.5), (143.5, 2501.0), (0.053, 0.163),
    (0.019, 0.345), (0.0, 0.427), (0.0, 0.201), (0.106, 0.304), (0.05, 0.097),
    (0.112, 2.873), (0.36, 4.885), (0.757, 21.98), (6.802, 542.2), (0.002, 0.031),
    (0.002, 0.135), (0.0, 0.396), (0.0, 0.053), (0.008, 0.079), (0.001, 0.03),
    (7.93, 36.04), (12.02, 49.54), (50.41, 251.2), (185.2, 4254.0), (0.071, 0.223),
    (0.027, 1.058), (0.0, 1.252), (0.0, 0.291), (0.156, 0.664), (0.055, 0.208),
)


def scale_by_public_ranges(X: np.ndarray, ranges=WDBC_RANGES) -> np.ndarray:
    """Map columns to [-1/2, 1/2] by fixed ranges, clip, and divide rows by sqrt(d)/2."""
    lo = np.array([r[0] for r in ranges])
    hi = np.array([r[1] for r in ranges])
    Z = np.clip((X - lo) / (hi - lo), 0.0, 1.0) - 0.5
    return Z / (math.sqrt(len(ranges)) / 2.0)


def run_demo(epsilons=(0.1, 0.5, 1.0, 2.0, 5.0), runs: int = 10, lam: float = 1e-3,
             seed: int | None = 0) -> dict:
    """Train private logistic regression at several ε and print test accuracy and a certificate.

    Returns a dict of mean accuracies (for tests and scripts).
    """
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split

    from .estimators import PrivateLogisticRegression

    X, y = load_breast_cancer(return_X_y=True)
    X = scale_by_public_ranges(X)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    print("dpconvex demo: private logistic regression (CMS objective perturbation)")
    print(f"data: scikit-learn breast cancer, {len(ytr)} train / {len(yte)} test rows, "
          f"{X.shape[1]} features, ||x|| <= 1 by public ranges; lambda = {lam:g}, {runs} runs")
    t0 = time.perf_counter()
    base = PrivateLogisticRegression(mechanism="none", lam=lam).fit(Xtr, ytr)
    results = {"non-private": base.score(Xte, yte)}
    rng = np.random.default_rng(seed)
    print(f"\n{'epsilon':>10} {'objective':>18} {'output':>18}")
    print(f"{'inf':>10} {results['non-private']:>18.3f} {'(non-private)':>18}")
    last = None
    for eps in epsilons:
        row = []
        for mech in ("objective", "output"):
            accs = []
            for _ in range(runs):
                m = PrivateLogisticRegression(epsilon=eps, lam=lam, mechanism=mech,
                                              random_state=rng).fit(Xtr, ytr)
                accs.append(m.score(Xte, yte))
                if mech == "objective":
                    last = m
            results[(mech, eps)] = float(np.mean(accs))
            row.append(f"{np.mean(accs):.3f} ± {np.std(accs):.3f}")
        print(f"{eps:>10g} {row[0]:>18} {row[1]:>18}")
    print(f"\n(test accuracy, mean ± std over {runs} noise draws; {time.perf_counter() - t0:.1f} s)")
    if last is not None:
        print("\nCertificate of the last objective-perturbation model:")
        print(last.certificate_)
    return results
