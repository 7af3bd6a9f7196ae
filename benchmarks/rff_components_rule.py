"""RandomFourierFeatures(n_components="auto"): choose C of D = C (n ε)^{2/3} on validation.

Target: every estimator with only epsilon set beats the majority class by more than 1 point
on Adult and KDDCup99 at ε >= 0.1; RFF(200) + PrivateLogisticRegression does not on Adult at
ε = 0.1 (0.7514 vs majority 0.7543). docs/privacy/tuning_gd_ledger.md#privacy-n-components-auto.

Protocol:

1. ``--part why`` (validation): D = 200 on Adult's validation split at ε = 0.1 over
   gamma ∈ {0.3, 1, 3}, Λ ∈ {1e-4 … 3e-2, "auto"}, intercept_scaling ∈ {0.5, 1, off} —
   none beats the validation majority class by a point, so the cause is D, not Λ, gamma
   or the intercept.
2. ``--part choose`` (validation, training data only): Adult adult.data split 80/20;
   KDDCup99 70,000-row sample (``load_kddcup99(n_samples=70000, random_state=1999)``),
   first 50,000 rows split 80/20. For C in a grid, D = auto_components(n_fit, ε; C),
   RFF(D, gamma = 1) + PrivateLogisticRegression(epsilon) (everything else default),
   3 seeds, ε ∈ {0.1, 0.5, 1, 10}. C is chosen by the mean relative excess of the
   validation error over the best C of the grid (per dataset × ε).
3. ``--part test`` (reported, never used for the choice): adult.data -> adult.test,
   KDDCup99 50,000 -> 20,000, and the scikit-learn breast cancer set (70/30 stratified,
   as benchmarks/only_epsilon_defaults.py), 10 seeds, ε ∈ {0.1, 1, 10}: D = 200 (a fixed
   pipeline) against n_components="auto".

Run: ``DPCONVEX_DATA=/work/shared/datasets python benchmarks/rff_components_rule.py --part
choose`` (and ``--part test``, ``--part why``); a few minutes each on one core.
"""

from __future__ import annotations

import argparse
import time

import harness  # benchmarks/ is the script's folder, first on sys.path
import numpy as np
from sklearn.model_selection import train_test_split

import dpconvex as dp
from dpconvex.datasets import load_adult, load_kddcup99, load_sklearn
from dpconvex.estimators.kernels import COMPONENTS_CONSTANT, RandomFourierFeatures, auto_components

C_GRID = (0.025, 0.05, 0.1, 0.2, 0.4)
VAL_EPS = (0.1, 0.5, 1.0, 10.0)
TEST_EPS = (0.1, 1.0, 10.0)


def _split(X, y, seed=0, frac=0.8):
    idx = np.random.default_rng(seed).permutation(len(y))
    k = int(frac * len(y))
    return X[idx[:k]], y[idx[:k]], X[idx[k:]], y[idx[k:]]


def validation_sets():
    Xa, ya = load_adult("train")
    Xk, yk = load_kddcup99(n_samples=70000, random_state=1999)
    return {"Adult": _split(Xa, ya), "KDDCup99": _split(*harness.kdd_split(Xk, yk)[:2])}


def test_sets():
    Xa, ya = load_adult("train")
    Xat, yat = load_adult("test")
    Xk, yk = load_kddcup99(n_samples=70000, random_state=1999)
    Xb, yb = load_sklearn("breast_cancer")
    Xbt, Xbe, ybt, ybe = train_test_split(Xb, yb, test_size=0.3, random_state=0, stratify=yb)
    return {"Adult": (Xa, ya, Xat, yat),
            "KDDCup99": (*harness.kdd_split(Xk, yk),),
            "breast_cancer": (Xbt, ybt, Xbe, ybe)}


def score(D, eps, seed, X, y, Xt, yt, *, lam="auto", gamma=1.0, **kw):
    rff = RandomFourierFeatures(n_components=D, gamma=gamma, random_state=seed,
                                learner_epsilon=eps).fit(X)
    Z, Zt = rff.transform(X), rff.transform(Xt)
    est = dp.PrivateLogisticRegression(epsilon=eps, lam=lam, random_state=seed, **kw)
    return est.fit(Z, y).score(Zt, yt)


def majority(y, yt):
    return max(float(np.mean(yt == v)) for v in np.unique(y))


def part_why() -> None:
    X, y, Xv, yv = validation_sets()["Adult"]
    print(f"Adult validation, D = 200, eps = 0.1, 3 seeds; majority {majority(y, yv):.4f}\n")
    lams = ("auto", 1e-4, 1e-3, 3e-3, 1e-2, 3e-2)
    print("| gamma | intercept | " + " | ".join(f"Λ={v}" for v in lams) + " |")
    print("|---|---|" + "---|" * len(lams))
    for gamma in (0.3, 1.0, 3.0):
        for ic in (0.5, 1.0, None):
            kw = {"fit_intercept": False} if ic is None else {"intercept_scaling": ic}
            accs = [np.mean([score(200, 0.1, s, X, y, Xv, yv, lam=lam, gamma=gamma, **kw)
                             for s in range(3)]) for lam in lams]
            print(f"| {gamma:g} | {ic if ic else 'off'} | "
                  + " | ".join(f"{a:.4f}" for a in accs) + " |", flush=True)


def part_choose() -> None:
    sets = validation_sets()
    excess: dict[float, list[float]] = {c: [] for c in C_GRID}
    print("| dataset | ε | " + " | ".join(f"C={c:g}" for c in C_GRID) + " | majority |")
    print("|---|---|" + "---|" * len(C_GRID) + "---|")
    for name, (X, y, Xv, yv) in sets.items():
        for eps in VAL_EPS:
            cells, errs = [], []
            for c in C_GRID:
                D = auto_components(len(y), eps, constant=c)
                acc = float(np.mean([score(D, eps, s, X, y, Xv, yv) for s in range(3)]))
                cells.append(f"{acc:.4f} (D={D})")
                errs.append(1.0 - acc)
            best = min(errs)
            for c, e in zip(C_GRID, errs, strict=True):
                excess[c].append((e - best) / best)
            print(f"| {name} | {eps:g} | " + " | ".join(cells)
                  + f" | {majority(y, yv):.4f} |", flush=True)
    print("\nmean relative excess over the best C: "
          + ", ".join(f"C={c:g}: {np.mean(v):.3f}" for c, v in excess.items()))


def part_test(seeds: int) -> None:
    print(f"| dataset | ε | D=200 ({seeds} seeds) | auto D | n_components='auto' "
          f"(C={COMPONENTS_CONSTANT:g}) | majority |")
    print("|---|---|---|---|---|---|")
    for name, (X, y, Xt, yt) in test_sets().items():
        for eps in TEST_EPS:
            D = auto_components(len(y), eps)
            fixed = [score(200, eps, s, X, y, Xt, yt) for s in range(seeds)]
            auto = [score("auto", eps, s, X, y, Xt, yt) for s in range(seeds)]
            print(f"| {name} | {eps:g} | {np.mean(fixed):.4f} ± {np.std(fixed):.4f} | {D} | "
                  f"{np.mean(auto):.4f} ± {np.std(auto):.4f} | {majority(y, yt):.4f} |",
                  flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--part", choices=("why", "choose", "test"), default="choose")
    ap.add_argument("--seeds", type=int, default=10)
    args = ap.parse_args()
    t0 = time.time()
    {"why": part_why, "choose": part_choose,
     "test": lambda: part_test(args.seeds)}[args.part]()
    print(f"\n({time.time() - t0:.0f} s)")


#: module constants replaced in --quick mode (a smoke run, not a measurement)
QUICK: dict = {}

if __name__ == "__main__":
    harness.run_script(__file__, main, globals(), QUICK)
