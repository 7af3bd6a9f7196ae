"""The centroid switch's threshold (docs/privacy.md §11.13) re-checked on validation splits.

Usage::

    DPCONVEX_DATA=/work/shared/datasets OMP_NUM_THREADS=1 \
        python benchmarks/large_margin_centroid_switch.py [NAMES]

The switch (``CENTROID_BELOW`` of ``dpconvex.privacy.rules.large_margin``, a threshold on
r = n·ε/(C(d + 1))) was read off test accuracies. This script asks the same question on
validation splits of the TRAINING parts only: the training part of
``data(name)`` (benchmarks/large_margin_defaults.py) is permuted with seed 0 and split
80/20 (fit / score). For ε on a grid that puts n_fit·ε/C between about 20 and 3,000 it
prints, for 5 noise seeds, the mean accuracy of ``mechanism="centroid"`` and of
``mechanism="gaussian_objective"`` (both with ``row_norm="auto"`` = unit rows and
δ = 1e-5), their difference, and n_fit·ε/C. NAMES: comma list from {wine, digits,
breast_cancer, adult, kdd} (default all). Runtime about 6 minutes on one core.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import harness  # benchmarks/ is the script's folder, first on sys.path
from large_margin_defaults import data  # noqa: E402

from dpconvex.estimators.large_margin.estimator import PrivateLargeMarginGaussian  # noqa: E402

TARGET_NEC = (25, 50, 100, 200, 300, 450, 700, 1000, 2000)


def main() -> None:
    warnings.simplefilter("ignore")
    names = sys.argv[1].split(",") if len(sys.argv) > 1 else [
        "wine", "digits", "breast_cancer", "adult", "kdd"]
    print("| data | n_fit·ε/C | ε | centroid | Gaussian objective | centroid − objective |")
    print("|---|---|---|---|---|---|")
    for name in names:
        X, y, _, _ = data(name)
        idx = np.random.default_rng(0).permutation(len(y))
        k = int(0.8 * len(y))
        Xf, yf, Xv, yv = X[idx[:k]], y[idx[:k]], X[idx[k:]], y[idx[k:]]
        C = np.unique(y).size
        for nec in TARGET_NEC:
            eps = float(f"{nec * C / k:.3g}")
            if not 0.005 <= eps <= 20:
                continue
            acc = {}
            for mech in ("centroid", "gaussian_objective"):
                acc[mech] = float(np.mean([
                    PrivateLargeMarginGaussian(epsilon=eps, delta=1e-5, mechanism=mech,
                                               random_state=s).fit(Xf, yf).score(Xv, yv)
                    for s in range(5)]))
            diff = acc["centroid"] - acc["gaussian_objective"]
            print(f"| {name} | {k * eps / C:.0f} | {eps:g} | {acc['centroid']:.3f} | "
                  f"{acc['gaussian_objective']:.3f} | {diff:+.3f} |", flush=True)


#: module constants replaced in --quick mode (a smoke run, not a measurement)
QUICK: dict = {}

if __name__ == "__main__":
    harness.run_script(__file__, main, globals(), QUICK)
