"""Does private tuning pay? Adult (adult.data → adult.test), or KDDCup99.

For PrivateLogisticRegression and PrivateHuberSVM (objective perturbation, pure ε),
at ε ∈ {0.1, 1}, over noise seeds, the test accuracy of:

* ``untuned lam='auto'``: one fit on all training rows with the public rule Λ
  (docs/privacy/perturbation.md#privacy-lambda-rule) — no tuning;
* ``CMS Alg. 4, grid 1e-6..1e-2``: PrivateGridSearch over Λ ∈ {1e-6, ..., 1e-2} (the
  grid of benchmarks/tuning_noisy_gd_kernels.py: each candidate on 1/6 of the rows);
* ``CMS Alg. 4, grid 'auto'``: PrivateGridSearch over Λ_auto × {1/4, 1, 4}
  (Λ_auto for a part of n/4 rows);
* ``random repetition, logarithmic K`` / ``geometric K``: PrivateRandomSearch over
  Λ_auto × {1/4, 1, 4} (each run on 90 % of the rows with ε/2 resp. ε/3;
  E[K] = 10; docs/privacy/tuning_gd_ledger.md#privacy-private-tuning);

next to the non-private fit (dpconvex, mechanism="none", lam='auto') and the
majority class of the training labels. Every private number is end-to-end ε-DP
(tuning included); nothing is tuned on the test set. Seeds are noise seeds only
(the split of the training rows into parts is drawn from the same seed).
``--dataset kdd``: the 70,000-row KDDCup99 sample of benchmarks/lam_rule_validation.py
(``load_kddcup99(n_samples=70000, random_state=1999)``), 50,000 training / 20,000 test rows.

Usage::

    DPCONVEX_DATA=/work/shared/datasets OMP_NUM_THREADS=1 \\
        .venv/bin/python benchmarks/private_tuning.py [--seeds 10] [--eps 0.1 1] [--dataset kdd] [--quick]

``--quick`` (a smoke run, not a measurement): the harness's subsample, one seed, ε = 1.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

import harness  # benchmarks/ is the script's folder, first on sys.path
import numpy as np

import dpconvex as dp
from dpconvex.estimators.selection.random import PrivateRandomSearch

FIXED_GRID = {"lam": [1e-6, 1e-5, 1e-4, 1e-3, 1e-2]}  # benchmarks/tuning_noisy_gd_kernels.py
MEAN_RUNS = 10.0
ESTIMATORS: dict[str, Callable[..., Any]] = {
    "LR": dp.PrivateLogisticRegression,
    "Huber SVM": dp.PrivateHuberSVM,
}


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def methods(make: Callable[..., Any], eps: float) -> dict[str, Callable[[int], Any]]:
    return {
        "untuned lam='auto'": lambda s: make(epsilon=eps, random_state=s),
        "CMS Alg. 4, grid 1e-6..1e-2": lambda s: dp.PrivateGridSearch(
            make(), FIXED_GRID, epsilon=eps, random_state=s),
        "CMS Alg. 4, grid 'auto'": lambda s: dp.PrivateGridSearch(
            make(), "auto", epsilon=eps, random_state=s),
        "random repetition, logarithmic K (2ε₁)": lambda s: PrivateRandomSearch(
            make(), "auto", epsilon=eps, repetitions="logarithmic", mean_runs=MEAN_RUNS,
            random_state=s),
        "random repetition, geometric K (3ε₁)": lambda s: PrivateRandomSearch(
            make(), "auto", epsilon=eps, repetitions="geometric", mean_runs=MEAN_RUNS,
            random_state=s),
    }


def mean_sd(v: list[float]) -> str:
    a = 100 * np.asarray(v, dtype=float)
    return f"{a.mean():.2f} ± {a.std(ddof=1) if a.size > 1 else 0.0:.2f}"


def main(argv: list[str] | None = None) -> None:
    ap = harness.parser(__doc__, seeds=10)
    ap.add_argument("--eps", type=float, nargs="+", default=[0.1, 1.0])
    ap.add_argument("--dataset", choices=["adult", "kdd"], default="adult")
    args = ap.parse_args(argv)
    if args.quick:
        args.seeds, args.eps = 1, [1.0]
    if args.dataset == "adult":
        _, X, y, Xt, yt = harness.load("adult", quick=args.quick)
        title = "Adult (adult.data → adult.test)"
    else:
        _, X, y, Xt, yt = harness.load("kddcup99", quick=args.quick)
        title = "KDDCup99 (70,000-row sample, 50,000 → 20,000)"
    majority = float(np.mean(yt == int(y.mean() > 0.5)))
    acc: dict[tuple[str, float, str], list[float]] = {}
    chosen: dict[tuple[str, float, str], list[float]] = {}
    nonpriv = {}
    with harness.Run(__file__, args, argv) as run:
        run.note(f"n = {X.shape[0]:,} training rows, {Xt.shape[0]:,} test rows, pure ε-DP, objective "
                 "perturbation; every private row is end-to-end ε-DP (selection included).")
        for ename, make in ESTIMATORS.items():
            nonpriv[ename] = make(mechanism="none").fit(X, y).score(Xt, yt)
            for eps in args.eps:
                for mname, build in methods(make, eps).items():
                    t = time.perf_counter()
                    for s in range(args.seeds):
                        model = build(1000 + s).fit(X, y)
                        cert = model.certificate_
                        assert cert.private and cert.epsilon <= eps and cert.delta == 0.0
                        acc.setdefault((ename, eps, mname), []).append(model.score(Xt, yt))
                        if hasattr(model, "best_params_"):
                            chosen.setdefault((ename, eps, mname), []).append(
                                model.best_params_["lam"])
                    log(f"{ename} eps={eps:g} {mname}: {mean_sd(acc[(ename, eps, mname)])} "
                        f"({time.perf_counter() - t:.0f} s)")
        for ename in ESTIMATORS:
            table = harness.Table(f"Private tuning on {title}, {ename}: test accuracy (%), "
                                  f"mean ± sd over {args.seeds} noise seeds",
                                  ["method", *[f"ε = {e:g}" for e in args.eps]])
            for mname in methods(ESTIMATORS[ename], 1.0):
                table.add(mname, *[mean_sd(acc[(ename, e, mname)]) for e in args.eps])
            table.add(f"{harness.NON_PRIVATE} (mechanism='none', lam='auto')",
                      *[f"{100 * nonpriv[ename]:.2f}" for _ in args.eps])
            table.add(f"{harness.MAJORITY} (of the training labels)",
                      *[f"{100 * majority:.2f}" for _ in args.eps])
            run.table(table)
        run.note("Selected Λ per seed:\n\n" + "\n".join(
            f"- {ename}, ε = {eps:g}, {mname}: {[f'{v:.3g}' for v in lams]}"
            for (ename, eps, mname), lams in chosen.items()))


if __name__ == "__main__":
    main(sys.argv[1:])
