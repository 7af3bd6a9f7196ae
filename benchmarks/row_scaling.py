"""Per-record row scaling, the intercept constant and column selection.

Protocol: Adult (adult.data -> adult.test) and KDDCup99 (the 70,000-row sample
``load_kddcup99(n_samples=70000, random_state=1999)``, first 50,000 rows train, last
20,000 test, as benchmarks/lam_rule_validation.py). Objective perturbation, ``lam="auto"``,
logistic regression and Huber SVM (h = 0.5), ε ∈ {0.1, 1}, ``SEEDS`` noise seeds per
cell (mean ± std of the test error). Varied:

* the loader's ``row_norm``: "unit" (every row scaled to norm 1, the default) or
  None (the public-range encoding divided by sqrt(13) / sqrt(41));
* the intercept: ``fit_intercept=False``, or ``intercept_scaling`` s ∈ {1, 0.5, 0.25}
  (norm bound q̃ = sqrt(1 + s²));
* Adult with and without the 41-column native-country block (``drop=``).

A last table checks the intercept on data *without* one-hot blocks (where the features
give no constant direction): Breast Cancer Wisconsin (683 rows, 9 numeric columns in
[0, 1], split 455 / 228 by a fixed permutation), at ε ∈ {0.1, 1, 10}.

Next to each row: the non-private fit (``mechanism="none"``, ``lam="auto"``, same data and
intercept) and the majority-class error. Nothing is tuned on the test set.

Run: ``DPCONVEX_DATA=/work/shared/datasets python benchmarks/row_scaling.py`` (prints
markdown; 10 noise seeds per cell, about 4 minutes on an otherwise idle machine: 6 seeds
took 148 s, 10 seeds 14 minutes while other jobs shared the 2 cores; ``--seeds`` to
change). The intercept check with more seeds: ``--seeds 30 --epsilons 0.1 --unit-only
--no-breast-cancer`` (7 minutes, shared machine).
"""

from __future__ import annotations

import argparse
import sys
import time

import harness  # benchmarks/ is the script's folder, first on sys.path
import numpy as np

import dpconvex as dp
from dpconvex.datasets import load_adult, load_breast_cancer_wisconsin, load_kddcup99

EPSILONS = (0.1, 1.0)
LOSSES = ("logistic", "huber")
INTERCEPTS = (None, 1.0, 0.5, 0.25)  # None: fit_intercept=False


def datasets(row_norms=("unit", "none")):
    """(name, features, row_norm, X, y, Xt, yt) for every data variant."""
    out = []
    for row_norm in row_norms:
        for drop, feat in (((), "all 104"), (("native-country",), "no native-country (63)")):
            X, y = load_adult("train", row_norm=row_norm, drop=drop)
            Xt, yt = load_adult("test", row_norm=row_norm, drop=drop)
            out.append(("Adult", feat, row_norm, X, y, Xt, yt))
    for row_norm in row_norms:
        Xk, yk = load_kddcup99(n_samples=70000, random_state=1999, row_norm=row_norm)
        out.append(("KDDCup99", "all 122", row_norm, *harness.kdd_split(Xk, yk)))
    return out


def estimator(loss, s, **kw):
    icpt = {"fit_intercept": False} if s is None else {"intercept_scaling": s}
    cls = dp.PrivateLogisticRegression if loss == "logistic" else dp.PrivateHuberSVM
    return cls(lam="auto", **icpt, **kw)


def error(loss, s, X, y, Xt, yt, eps=None, seeds=1):
    if eps is None:
        m = estimator(loss, s, mechanism="none").fit(X, y)
        return 1.0 - m.score(Xt, yt), 0.0
    errs = [1.0 - estimator(loss, s, epsilon=eps, mechanism="objective",
                            random_state=1000 + k).fit(X, y).score(Xt, yt) for k in range(seeds)]
    return float(np.mean(errs)), float(np.std(errs))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10, help="noise seeds per cell")
    ap.add_argument("--epsilons", type=float, nargs="+", default=list(EPSILONS))
    ap.add_argument("--unit-only", action="store_true", help="only row_norm='unit'")
    ap.add_argument("--no-breast-cancer", action="store_true")
    args = ap.parse_args()
    eps_grid = tuple(args.epsilons)
    t0 = time.time()
    print(f"# Row scaling and intercept (objective perturbation, lam='auto', {args.seeds} noise "
          f"seeds; dpconvex {dp.__version__}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})")
    cols = [f"{'LR' if loss == 'logistic' else 'Huber'} ε={e:g}" for loss in LOSSES
            for e in eps_grid] + ["LR non-private", "Huber non-private"]
    current = None
    for name, feat, row_norm, X, y, Xt, yt in datasets(("unit",) if args.unit_only
                                                       else ("unit", "none")):
        if name != current:
            current = name
            maj = 1.0 - max(np.mean(yt == v) for v in np.unique(yt))
            print(f"\n## {name} (train {len(y)}, test {len(yt)}; majority-class error {maj:.4f})\n")
            print("| features | row_norm | intercept | " + " | ".join(cols) + " |")
            print("|---|---|---|" + "---|" * len(cols))
        for s in INTERCEPTS:
            cells = []
            for loss in LOSSES:
                for eps in eps_grid:
                    m, sd = error(loss, s, X, y, Xt, yt, eps, args.seeds)
                    cells.append(f"{m:.4f} ± {sd:.4f}")
            cells += [f"{error(loss, s, X, y, Xt, yt)[0]:.4f}" for loss in LOSSES]
            icpt = "off" if s is None else f"s = {s:g}"
            print(f"| {feat} | {row_norm} | {icpt} | " + " | ".join(cells) + " |")
            sys.stdout.flush()
    if not args.no_breast_cancer:
        no_onehot(args.seeds)
    print(f"\n({time.time() - t0:.0f} s)")


def no_onehot(seeds: int) -> None:
    """The intercept where no one-hot block spans a constant: breast cancer (9 numeric)."""
    eps_grid = (0.1, 1.0, 10.0)
    print("\n## Breast Cancer Wisconsin (no one-hot blocks; train 455, test 228)\n")
    print("| row_norm | intercept | " + " | ".join(f"{'LR' if loss == 'logistic' else 'Huber'} "
                                                  f"ε={e:g}" for loss in LOSSES for e in eps_grid)
          + " | LR non-private | Huber non-private |")
    print("|---|---|" + "---|" * (2 * len(eps_grid) + 2))
    for row_norm in ("unit", "none"):
        X, y = load_breast_cancer_wisconsin(row_norm=row_norm)
        idx = np.random.default_rng(0).permutation(len(y))
        tr, te = idx[:455], idx[455:]
        if row_norm == "unit":
            maj = 1.0 - max(np.mean(y[te] == v) for v in (0, 1))
            print(f"| (majority class) | | {maj:.4f} |" + " |" * (2 * len(eps_grid) + 1))
        for s in INTERCEPTS:
            cells = []
            for loss in LOSSES:
                for eps in eps_grid:
                    m, sd = error(loss, s, X[tr], y[tr], X[te], y[te], eps, seeds)
                    cells.append(f"{m:.4f} ± {sd:.4f}")
            cells += [f"{error(loss, s, X[tr], y[tr], X[te], y[te])[0]:.4f}" for loss in LOSSES]
            icpt = "off" if s is None else f"s = {s:g}"
            print(f"| {row_norm} | {icpt} | " + " | ".join(cells) + " |")
            sys.stdout.flush()


#: module constants replaced in --quick mode (a smoke run, not a measurement)
QUICK: dict = {}

if __name__ == "__main__":
    harness.run_script(__file__, main, globals(), QUICK)
