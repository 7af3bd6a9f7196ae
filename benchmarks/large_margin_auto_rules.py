"""row_norm and the centroid switch of PrivateLargeMarginGaussian
(docs/privacy/large_margin_softmax.md#privacy-centroid-switch).

Usage (from the repository root)::

    DPCONVEX_DATA=/work/shared/datasets OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \
        python benchmarks/large_margin_auto_rules.py NAME [EPSILONS]

NAME in {wine, digits, breast_cancer, adult, kdd}; EPSILONS a comma list (default:
0.5,1,2,5,10 for the scikit-learn sets, 0.02,0.05,0.1,0.5 for adult, 0.05,0.1,0.5 for kdd).
Data and splits: ``data(name)`` of benchmarks/large_margin_defaults.py (Adult
adult.data → adult.test, KDDCup99 50,000 / 20,000, scikit-learn sets 70/30 with split
seed 0). 5 noise seeds per cell; prints one markdown row per ε: mean ± sd test accuracy of

* LM softmax, linear (the defaults), pure ε, ``row_norm`` "none" / "unit";
* the same with δ = min(1e-5, 1/n²) (Gaussian objective perturbation), "none" / "unit";
* ``mechanism="centroid"`` (DP class centroids, unit rows) with that δ, and pure ε;
* the defaults with δ (``mechanism="auto"``: centroids when n·ε/(C(d + 1)) < CENTROID_BELOW);

and the majority class of the training labels scored on the test part. The Adult and
KDDCup99 loaders already scale rows to unit norm, so "unit" = "none" there (checked,
not refitted). Runtime on one core (measured): wine 19 s, breast cancer 20 s, digits
27 s, Adult 148 s, KDDCup99 121 s. Results: docs/privacy/large_margin_softmax.md#privacy-centroid-switch.
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import harness  # benchmarks/ is the script's folder, first on sys.path
from large_margin_defaults import data  # noqa: E402

from dpconvex.estimators.large_margin.estimator import PrivateLargeMarginGaussian  # noqa: E402
from dpconvex.privacy.rules.large_margin import CENTROID_BELOW  # noqa: E402

SEEDS = range(5)
DEFAULT_EPS = {"adult": "0.02,0.05,0.1,0.5", "kdd": "0.05,0.1,0.5"}
COLUMNS = [
    ("LM pure none", {"row_norm": "none"}, False),
    ("LM pure unit", {"row_norm": "unit"}, False),
    ("LM delta none", {"row_norm": "none", "mechanism": "gaussian_objective"}, True),
    ("LM delta unit", {"row_norm": "unit", "mechanism": "gaussian_objective"}, True),
    ("centroid delta", {"mechanism": "centroid"}, True),
    ("centroid pure", {"mechanism": "centroid"}, False),
    ("defaults delta (auto)", {}, True),
]


def _unit_rows(X) -> bool:
    nrm = np.linalg.norm(np.asarray(X, dtype=float), axis=1)
    return bool(np.all((np.abs(nrm - 1.0) < 1e-12) | (nrm == 0.0)))


def main() -> None:
    name = sys.argv[1]
    eps_arg = sys.argv[2] if len(sys.argv) > 2 else DEFAULT_EPS.get(name, "0.5,1,2,5,10")
    epsilons = [float(e) for e in eps_arg.split(",")]
    Xtr, ytr, Xte, yte = data(name)
    vals, cnt = np.unique(ytr, return_counts=True)
    n, C = len(ytr), len(vals)
    majority = float(np.mean(yte == vals[np.argmax(cnt)]))
    delta = min(1e-5, 1.0 / n**2)
    unit_given = _unit_rows(Xtr) and _unit_rows(Xte)
    warnings.simplefilter("ignore")
    print(f"{name}: n = {n}, C = {C}, majority {majority:.3f}, delta = {delta:.3g}, "
          f"CENTROID_BELOW (r = n eps / (C (d + 1))) = {CENTROID_BELOW[True]:g} with delta, "
          f"{CENTROID_BELOW[False]:g} pure"
          + (" (rows already unit norm: 'unit' = 'none')" if unit_given else ""))
    print("| eps | n eps/C | " + " | ".join(c[0] for c in COLUMNS) + " |")
    t0 = time.perf_counter()
    for eps in epsilons:
        cells, cache = [], {}
        for label, kw, with_delta in COLUMNS:
            key = (label.replace("unit", "none") if unit_given else label)
            if key in cache:
                cells.append(cache[key])
                continue
            accs = []
            for seed in SEEDS:
                est = PrivateLargeMarginGaussian(epsilon=eps, random_state=seed,
                                                 delta=delta if with_delta else None, **kw)
                accs.append(est.fit(Xtr, ytr).score(Xte, yte))
            cache[key] = f"{np.mean(accs):.3f} ± {np.std(accs):.3f}"
            cells.append(cache[key])
        print(f"| {eps:g} | {n * eps / C:.0f} | " + " | ".join(cells) + " |", flush=True)
    print(f"({time.perf_counter() - t0:.0f} s)")


#: module constants replaced in --quick mode (a smoke run, not a measurement)
QUICK: dict = {}

if __name__ == "__main__":
    harness.run_script(__file__, main, globals(), QUICK)
