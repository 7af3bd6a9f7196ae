"""Where the linear learners' noise PrivacyWarning fires
(docs/privacy/tuning_gd_ledger.md#privacy-noise-warning-linear).

For each estimator with only ``epsilon`` set (and ``random_state``), on the Adult and
KDDCup99 training sets of benchmarks/only_epsilon_defaults.py, the scikit-learn breast cancer
set (70/30 stratified, 398 training rows) and the UCI original Wisconsin breast cancer
set (683 rows, 70/30 stratified, 478 training rows; ``--accuracy`` only for the two
breast-cancer sets, 10 seeds): the public ratio ρ of dpconvex.privacy.rules.noise_level
ρ₀ (and the worst-case ρ) and whether the warning fires (ρ₀ > 1).

Run: ``DPCONVEX_DATA=/work/shared/datasets python benchmarks/noise_warning_linear.py
[--accuracy]``.
"""

from __future__ import annotations

import argparse
import warnings

import harness  # benchmarks/ is the script's folder, first on sys.path
import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline

import dpconvex as dp
from dpconvex.datasets import (
    load_adult,
    load_breast_cancer_wisconsin,
    load_kddcup99,
    load_sklearn,
)
from dpconvex.estimators.kernels import RandomFourierFeatures
from dpconvex.privacy.rules.noise_level import LINEAR_NOISE_RATIO, estimator_noise_dominance

EPSILONS = (0.1, 1.0, 10.0)
NAMES = ("PrivateLogisticRegression", "PrivateHuberSVM", "PrivateLinearClassifier",
         "NoisyGradientDescent", "RFF(auto)+PrivateLogisticRegression")


def make(name, eps, seed=None):
    if name.startswith("RFF"):
        return make_pipeline(RandomFourierFeatures("auto", learner_epsilon=eps,
                                                   random_state=seed),
                             dp.PrivateLogisticRegression(epsilon=eps, random_state=seed))
    return getattr(dp, name)(epsilon=eps, random_state=seed)


def rho(name, eps, X, y, worst_case=False):
    est = make(name, eps, 0)
    if name.startswith("RFF"):
        X = est[0].fit(X).transform(X)
        est = est[-1]
    return estimator_noise_dominance(est, X, y, worst_case=worst_case)[0]


def splits(small_only):
    out = {}
    if not small_only:
        Xa, ya = load_adult("train")
        Xat, yat = load_adult("test")
        Xk, yk = load_kddcup99(n_samples=70000, random_state=1999)
        out["Adult"] = (Xa, ya, Xat, yat)
        out["KDDCup99"] = (*harness.kdd_split(Xk, yk),)
    for name, (X, y) in (("breast_cancer (sklearn)", load_sklearn("breast_cancer")),
                         ("breast_cancer (UCI original)", load_breast_cancer_wisconsin())):
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
        out[name] = (Xtr, ytr, Xte, yte)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--accuracy", action="store_true",
                    help="also test accuracy (10 seeds) on the two breast-cancer sets")
    args = ap.parse_args()
    print("| dataset | n | estimator | ε | ρ₀ (at θ = 0) | ρ (worst case) | warns (ρ₀ > 1) | "
          "accuracy (10 seeds) | majority |")
    print("|---|---|---|---|---|---|---|---|---|")
    for dname, (X, y, Xt, yt) in splits(args.accuracy).items():
        maj = max(float(np.mean(yt == v)) for v in np.unique(y))
        for name in NAMES:
            for eps in EPSILONS:
                r = rho(name, eps, X, y)
                rw = rho(name, eps, X, y, worst_case=True)
                acc = "-"
                if args.accuracy:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        a = [make(name, eps, s).fit(X, y).score(Xt, yt) for s in range(10)]
                    acc = f"{np.mean(a):.4f} ± {np.std(a):.4f}"
                # noisy GD warns by
                # docs/privacy/tuning_gd_ledger.md#privacy-noise-warning-gd-centroids's
                # ratio since that section (benchmarks/noise_warning_gd_centroid.py),
                # not by rho0 > 1
                warns = ("see privacy-noise-warning-gd-centroids" if name == "NoisyGradientDescent"
                         else "**yes**" if r > LINEAR_NOISE_RATIO else "no")
                print(f"| {dname} | {len(y)} | {name} | {eps:g} | {r:.3g} | {rw:.3g} | "
                      f"{warns} | {acc} | {maj:.4f} |",
                      flush=True)


#: module constants replaced in --quick mode (a smoke run, not a measurement)
QUICK: dict = {}

if __name__ == "__main__":
    harness.run_script(__file__, main, globals(), QUICK)
