"""lam="auto": choose the rule's constant on validation, report test numbers.

Protocol (docs/privacy/perturbation.md#privacy-lambda-rule):

1. Validation (training data only). Adult: adult.data split 80/20 (seed 0). KDDCup99:
   the 70,000-row sample (``load_kddcup99(n_samples=70000, random_state=1999)``), first
   50,000 rows = training, split 80/20 inside it. For each reference norm R in a grid,
   Λ = auto_lam(mechanism, n_fit, ε, q, p, loss; R) is fitted on the 80 % and scored on
   the 20 % (3 noise seeds, ε ∈ {0.05, 0.1, 0.5, 1}, objective/output, LR/Huber). R is
   chosen per dataset by the mean relative excess over the best Λ of a coarse grid (also
   on validation), and transferred: Adult's test numbers use KDDCup99's R and vice versa.
2. Test (reported): Adult adult.data -> adult.test; KDDCup99 50,000 -> 20,000. 10 noise
   seeds, default intercept, against (a) the best Λ of a coarse grid on the TEST set
   (tuned on test, as CMS's tables), (b) a fixed Λ = 1e-2, (c) the majority class.

Run: ``DPCONVEX_DATA=/work/shared/datasets python benchmarks/lam_rule_validation.py`` (prints
markdown tables; about 18 minutes on one core). ``--validate-only [SEEDS [NAME]]``: only the
validation tables (overall and per mechanism), with SEEDS noise seeds (default 3; 10 seeds
about 16 minutes), for one data set NAME (Adult or KDDCup99) or both.
"""

from __future__ import annotations

import math
import sys
import time

import harness  # benchmarks/ is the script's folder, first on sys.path
import numpy as np

import dpconvex as dp
from dpconvex.datasets import load_adult, load_kddcup99
from dpconvex.privacy.rules.noise_level import auto_lam, reference_norm_for

EPSILONS = (0.05, 0.1, 0.5, 1.0)
MECHS = ("objective", "output")
LOSSES = ("logistic", "huber")
R_GRID = (1.0, 2.0, 4.0, 8.0, 16.0, 32.0)
LAM_GRID = tuple(10.0 ** k for k in np.arange(-5.0, -0.99, 0.5))
#: The template's row bound q~ for the estimators as used here (default data_norm,
#: fit_intercept and intercept_scaling), computed as the estimators compute it
#: (docs/privacy/row_scaling.md#privacy-row-scaling): sqrt(q^2 + s^2), s the default
#: intercept_scaling, so Λ from rule() is the Λ the estimators' lam="auto" uses.
_DEFAULTS = dp.PrivateLogisticRegression().get_params()
Q = (math.sqrt(float(_DEFAULTS["data_norm"]) ** 2 + float(_DEFAULTS["intercept_scaling"]) ** 2)
     if _DEFAULTS["fit_intercept"] else float(_DEFAULTS["data_norm"]))


def datasets() -> dict[str, tuple]:
    Xa, ya = load_adult("train")
    Xat, yat = load_adult("test")
    Xk, yk = load_kddcup99(n_samples=70000, random_state=1999)
    return {"Adult": (Xa, ya, Xat, yat), "KDDCup99": harness.kdd_split(Xk, yk)}


def split(X, y, seed=0, frac=0.8):
    idx = np.random.default_rng(seed).permutation(len(y))
    k = int(frac * len(y))
    return X[idx[:k]], y[idx[:k]], X[idx[k:]], y[idx[k:]]


def est(loss, **kw):
    if loss == "logistic":
        return dp.PrivateLogisticRegression(**kw)
    return dp.PrivateHuberSVM(**kw)


def err(loss, mech, eps, lam, X, y, Xt, yt, seeds):
    out = []
    for s in range(seeds):
        m = est(loss, epsilon=eps, lam=lam, mechanism=mech, random_state=1000 + s).fit(X, y)
        out.append(1.0 - m.score(Xt, yt))
    return float(np.mean(out)), float(np.std(out))


def rule(mech, n, eps, p, loss, R):
    return auto_lam(mech, n, eps, Q, p + 1, loss, reference_norm=R)


def validate(name, X, y, seeds=3):
    Xf, yf, Xv, yv = split(X, y)
    n, p = Xf.shape
    res = {}
    for eps in EPSILONS:
        for mech in MECHS:
            for loss in LOSSES:
                grid = [err(loss, mech, eps, lam, Xf, yf, Xv, yv, seeds)[0] for lam in LAM_GRID]
                per_r = [err(loss, mech, eps, rule(mech, n, eps, p, loss, R), Xf, yf, Xv, yv,
                             seeds)[0] for R in R_GRID]
                res[(eps, mech, loss)] = (min(grid), per_r)
    excess = np.array([[(v[1][i] - v[0]) / v[0] for i in range(len(R_GRID))]
                       for v in res.values()])
    mean_excess = excess.mean(axis=0)
    print(f"\n### Validation ({name}: fit on {n} rows, validated on {len(yv)}; {seeds} seeds)\n")
    print("| R | " + " | ".join(f"{r:g}" for r in R_GRID) + " |")
    print("|---|" + "---|" * len(R_GRID))
    print("| mean relative excess over best grid Λ | "
          + " | ".join(f"{e:.3f}" for e in mean_excess) + " |")
    keys = list(res)
    for mech in MECHS:  # the same mean, per mechanism
        rows = [i for i, k in enumerate(keys) if k[1] == mech]
        print(f"| {mech} only | " + " | ".join(f"{e:.3f}" for e in excess[rows].mean(axis=0))
              + " |")
    sys.stdout.flush()
    return R_GRID[int(np.argmin(mean_excess))], mean_excess


def test(name, X, y, Xt, yt, R_transfer):
    n, p = X.shape
    maj = max(np.mean(yt == v) for v in np.unique(yt))
    print(f"\n### Test: {name} (n = {n}, test {len(yt)}; majority-class error "
          f"{1 - maj:.4f}; 10 seeds, mean ± std)\n")
    print(f"| ε | mechanism | loss | best Λ on test (tuned on test) | Λ = 1e-2 (fixed) "
          f"| lam='auto' (shipped R per mechanism) | auto with R = {R_transfer:g} "
          "(transferred) |")
    print("|---|---|---|---|---|---|---|")
    for eps in EPSILONS:
        for mech in MECHS:
            for loss in LOSSES:
                grid = [(err(loss, mech, eps, lam, X, y, Xt, yt, 10), lam) for lam in LAM_GRID]
                (bm, bs), blam = min(grid, key=lambda t: t[0][0])
                fixed = err(loss, mech, eps, 1e-2, X, y, Xt, yt, 10)
                lam_a = rule(mech, n, eps, p, loss, reference_norm_for(mech))
                auto = err(loss, mech, eps, "auto", X, y, Xt, yt, 10)
                lam_t = rule(mech, n, eps, p, loss, R_transfer)
                tr = err(loss, mech, eps, lam_t, X, y, Xt, yt, 10)
                print(f"| {eps:g} | {mech} | {'LR' if loss == 'logistic' else 'Huber'} "
                      f"| {bm:.4f} ± {bs:.4f} (Λ={blam:.2g}) | {fixed[0]:.4f} ± {fixed[1]:.4f} "
                      f"| {auto[0]:.4f} ± {auto[1]:.4f} (Λ={lam_a:.3g}) "
                      f"| {tr[0]:.4f} ± {tr[1]:.4f} (Λ={lam_t:.3g}) |")
                sys.stdout.flush()


def main() -> None:
    t0 = time.time()
    data = datasets()
    chosen = {}
    for name, (X, y, _, _) in data.items():
        chosen[name], _ = validate(name, X, y)
    print(f"\nR chosen on validation: {chosen}; shipped R: objective "
          f"{reference_norm_for('objective'):g}, output {reference_norm_for('output'):g}")
    other = {"Adult": "KDDCup99", "KDDCup99": "Adult"}
    for name, (X, y, Xt, yt) in data.items():
        test(name, X, y, Xt, yt, chosen[other[name]])
    print(f"\n({time.time() - t0:.0f} s)")



def cli() -> None:
    """``--test NAME R_TRANSFER``, ``--validate-only [SEEDS [NAME]]``, or the whole protocol."""
    if len(sys.argv) > 1 and sys.argv[1] == "--test":  # --test NAME R_TRANSFER
        X, y, Xt, yt = datasets()[sys.argv[2]]
        test(sys.argv[2], X, y, Xt, yt, float(sys.argv[3]))
    elif len(sys.argv) > 1 and sys.argv[1] == "--validate-only":  # [--validate-only SEEDS]
        n_seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
        only = sys.argv[3] if len(sys.argv) > 3 else None  # [--validate-only SEEDS NAME]
        for name, (X, y, _, _) in datasets().items():
            if only is None or name == only:
                print(name, validate(name, X, y, n_seeds))
    else:
        main()


#: module constants replaced in --quick mode (a smoke run, not a measurement)
QUICK: dict = {"EPSILONS": (0.1,), "MECHS": ("objective",), "LOSSES": ("logistic",),
               "R_GRID": (8.0, 16.0), "LAM_GRID": (1e-3, 1e-2)}

if __name__ == "__main__":
    harness.run_script(__file__, cli, globals(), QUICK)
