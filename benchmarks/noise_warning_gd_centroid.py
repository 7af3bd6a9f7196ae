"""Where the noise PrivacyWarnings of NoisyGradientDescent and PrivateGaussianCentroid fire
(dpconvex.privacy.rules.noise_level, docs/privacy/tuning_gd_ledger.md#privacy-noise-warning-gd-centroids).

Each estimator with only ``epsilon`` (and ``random_state``) set, on the splits of
benchmarks/only_epsilon_defaults.py: Adult (adult.data -> adult.test), KDDCup99 (70,000-row
sample, 50,000 / 20,000), scikit-learn breast cancer (70/30 stratified), wine and digits
(70/30); ε ∈ {0.1, 1, 10}; 3 noise seeds (``--seeds``). NoisyGradientDescent on wine and
digits is one-vs-rest (ε/C per binary model): its ratio is that of one binary model.
Columns: the public ratio (noisy GD: ρ_GD; centroids: ρ_cent = sC/n and √d·ρ_cent),
whether the ratio is above the threshold, the number of fits that raised the "noise is
large" PrivacyWarning, test accuracy (mean ± std) and the majority class of the test set.

Run: ``DPCONVEX_DATA=/work/shared/datasets OMP_NUM_THREADS=1 python
benchmarks/noise_warning_gd_centroid.py [--seeds 3] [--datasets wine digits]
[--epsilons 0.1 1 10]``.
"""

from __future__ import annotations

import argparse
import math
import time
import warnings

import harness  # benchmarks/ is the script's folder, first on sys.path
import numpy as np
from sklearn.model_selection import train_test_split

import dpconvex as dp
from dpconvex.datasets import load_adult, load_kddcup99, load_sklearn
from dpconvex.errors import PrivacyWarning
from dpconvex.privacy.rules.noise_level import (
    CENTROID_NOISE_RATIO,
    GD_NOISE_RATIO,
    estimator_noise_dominance,
    noise_ratio,
)

EPSILONS = (0.1, 1.0, 10.0)
NAMES = ("NoisyGradientDescent", "PrivateGaussianCentroid")


def datasets(names):
    out = {}
    if "Adult" in names:
        out["Adult"] = (*load_adult("train"), *load_adult("test"))
    if "KDDCup99" in names:
        Xk, yk = load_kddcup99(n_samples=70000, random_state=1999)
        out["KDDCup99"] = (*harness.kdd_split(Xk, yk),)
    for name in ("breast_cancer", "wine", "digits"):
        if name in names:
            X, y = load_sklearn(name)
            strat = y if name == "breast_cancer" else None
            Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0,
                                                  stratify=strat)
            out[name] = (Xtr, ytr, Xte, yte)
    return out


def ratios(name, eps, X, y):
    """(ratio, secondary ratio or None) the fit of ``name`` at ``eps`` would warn with."""
    if name == "NoisyGradientDescent":
        est = dp.NoisyGradientDescent(epsilon=eps, random_state=0)
        return estimator_noise_dominance(est, X, n_classes=np.unique(y).size)[0], None
    est = dp.PrivateGaussianCentroid(epsilon=eps, random_state=0)
    plan = est.plan_for(X, y)
    mech, template, budget = plan.mechanism, est.prepare(X, y, plan).template, plan.budget
    return (noise_ratio("centroid", template, mech, budget, n=X.shape[0]),
            noise_ratio("centroid", template, mech, budget, n=X.shape[0], norm=True))


def fit_score(name, eps, seed, X, y, Xt, yt):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        acc = getattr(dp, name)(epsilon=eps, random_state=seed).fit(X, y).score(Xt, yt)
    warned = any(issubclass(w.category, PrivacyWarning) and "noise is large" in str(w.message)
                 for w in caught)
    return acc, warned


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--epsilons", type=float, nargs="*", default=list(EPSILONS),
                    help="privacy levels (default 0.1 1 10)")
    ap.add_argument("--datasets", nargs="*",
                    default=["Adult", "KDDCup99", "breast_cancer", "wine", "digits"])
    args = ap.parse_args()
    t0 = time.time()
    print("| dataset | n | estimator | ε | ratio | √d·ratio | above threshold | warned (fits) "
          f"| accuracy ({args.seeds} seeds) | majority | beats by > 1 pt |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for dname, (X, y, Xt, yt) in datasets(args.datasets).items():
        maj = max(float(np.mean(yt == v)) for v in np.unique(y))
        for name in NAMES:
            thr = GD_NOISE_RATIO if name == "NoisyGradientDescent" else CENTROID_NOISE_RATIO
            for eps in args.epsilons:
                r, rn = ratios(name, eps, X, y)
                res = [fit_score(name, eps, s, X, y, Xt, yt) for s in range(args.seeds)]
                acc = np.array([a for a, _ in res])
                warned = sum(w for _, w in res)
                m = float(np.mean(acc))
                above = r is not None and r > thr
                print(f"| {dname} | {len(y)} | {name} | {eps:g} | {r:.3g} | "
                      f"{'-' if rn is None or not math.isfinite(rn) else f'{rn:.3g}'} | "
                      f"{'**yes**' if above else 'no'} | {warned}/{args.seeds} | "
                      f"{m:.4f} ± {float(np.std(acc)):.4f} | {maj:.4f} | "
                      f"{'yes' if m > maj + 0.01 else '**no**'} |", flush=True)
    print(f"\nthresholds: GD_NOISE_RATIO = {GD_NOISE_RATIO:g}, CENTROID_NOISE_RATIO = "
          f"{CENTROID_NOISE_RATIO:g}; {time.time() - t0:.0f} s")


#: module constants replaced in --quick mode (a smoke run, not a measurement)
QUICK: dict = {}

if __name__ == "__main__":
    harness.run_script(__file__, main, globals(), QUICK)
