"""(ε, δ) Gaussian mechanisms for the linear learners: test accuracy.

Protocol: Adult (adult.data -> adult.test) and KDDCup99 (the 70,000-row sample
``load_kddcup99(n_samples=70000, random_state=1999)``, first 50,000 rows train, last
20,000 test); ε = 0.1, δ = 1/n² (n the training rows), lam="auto" (the public rule,
docs/privacy/perturbation.md#privacy-lambda-rule and privacy-gaussian-lambda-rule),
estimator defaults otherwise, 10 noise seeds (random_state = 1000 + s). Methods: the
non-private fit (lam="auto" of mechanism "none"), pure objective perturbation (δ = 0),
gaussian_objective, gaussian_output and gaussian_amp (gaussian_objective with
optimality_tol = GAMMA). Both row scalings of the loaders: row_norm="unit" (the default)
and row_norm="none" (divided by the public constant). No tuning on the test set.

Run: ``DPCONVEX_DATA=/work/shared/datasets python benchmarks/gaussian_mechanisms_linear.py
[adult|adult-nnc|kdd] [seeds] [intercept_scaling]`` (one markdown table per row
scaling; a few minutes each). "adult-nnc" drops the native-country block (public schema
choice, ``load_adult(drop=...)``); a third argument sets ``intercept_scaling`` (0: ``fit_intercept=False``).
``... gaussian_linear.py sweep [adult|kdd] [seeds]``: gaussian_objective over a Λ grid,
scored ON THE TEST SET (the headroom of lam="auto"; not a tuned private result).
"""

from __future__ import annotations

import sys
import time

import harness  # benchmarks/ is the script's folder, first on sys.path
import numpy as np

import dpconvex as dp
from dpconvex.datasets import load_adult, load_kddcup99

EPSILON = 0.1
GAMMA = 1e-8  # AMP optimality tolerance (public)
LOSSES = ("logistic", "huber")
METHODS = (  # label, mechanism, uses delta, optimality_tol
    ("non-private", "none", False, None),
    ("objective (pure)", "objective", False, None),
    ("gaussian_objective", "gaussian_objective", True, None),
    ("gaussian_output", "gaussian_output", True, None),
    ("gaussian_amp", "gaussian_objective", True, GAMMA),
)


def data(name: str, row_norm: str) -> tuple[np.ndarray, ...]:
    if name.startswith("adult"):  # "adult-nnc": without the native-country block (a schema choice)
        drop = ("native-country",) if name == "adult-nnc" else ()
        X, y = load_adult("train", row_norm=row_norm, drop=drop)
        Xt, yt = load_adult("test", row_norm=row_norm, drop=drop)
        return X, y, Xt, yt
    X, y = load_kddcup99(n_samples=70000, random_state=1999, row_norm=row_norm)
    return harness.kdd_split(X, y)


def estimator(loss: str, **kw):
    if loss == "logistic":
        return dp.PrivateLogisticRegression(**kw)
    return dp.PrivateHuberSVM(**kw)


def accuracy(loss, mech, delta, tol, X, y, Xt, yt, seeds) -> tuple[float, float, float]:
    accs = []
    lam = None
    for s in range(seeds if mech != "none" else 1):
        m = estimator(loss, epsilon=EPSILON, delta=delta, mechanism=mech, optimality_tol=tol,
                      random_state=1000 + s, **EXTRA).fit(X, y)
        accs.append(m.score(Xt, yt))
        lam = m.certificate_.lam_rule
    lam_val = lam.lam if lam else float("nan")
    return float(np.mean(accs)), float(np.std(accs)), lam_val


def sweep(which: str, seeds: int) -> None:
    """Best over a Λ grid ON THE TEST SET (labelled so): the headroom of the public rule."""
    X, y, Xt, yt = data(which, "unit")
    delta = 1.0 / X.shape[0] ** 2
    print(f"\n### {which}, row_norm='unit': gaussian_objective over a Λ grid (TUNED ON TEST)\n")
    print("| loss | " + " | ".join(f"{lam:g}" for lam in SWEEP_GRID) + " |")
    print("|---|" + "---|" * len(SWEEP_GRID))
    for loss in LOSSES:
        cells = []
        for lam in SWEEP_GRID:
            accs = [estimator(loss, epsilon=EPSILON, delta=delta, mechanism="gaussian_objective",
                              lam=lam, random_state=1000 + s).fit(X, y).score(Xt, yt)
                    for s in range(seeds)]
            cells.append(f"{np.mean(accs):.4f}")
        print(f"| {loss} | " + " | ".join(cells) + " |", flush=True)


SWEEP_GRID = (5e-4, 1e-3, 2e-3, 3e-3, 5e-3, 1e-2, 2e-2)


EXTRA: dict = {}  # e.g. {"intercept_scaling": 0.25} from the 4th argument


def main() -> None:
    if len(sys.argv) > 3:  # 0 means fit_intercept=False
        s = float(sys.argv[3])
        EXTRA.update({"intercept_scaling": s} if s > 0 else {"fit_intercept": False})
    if len(sys.argv) > 1 and sys.argv[1] == "sweep":
        sweep(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 5)
        return
    which = sys.argv[1] if len(sys.argv) > 1 else "adult"
    seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    for row_norm in ("unit", "none"):
        X, y, Xt, yt = data(which, row_norm)
        n = X.shape[0]
        delta = 1.0 / n**2
        majority = max(np.mean(yt), 1 - np.mean(yt))
        print(f"\n### {which} {EXTRA or ''}, row_norm={row_norm!r}: n = {n}, test {Xt.shape[0]}, p = "
              f"{X.shape[1]}, eps = {EPSILON}, delta = 1/n^2 = {delta:.3g}, {seeds} seeds; "
              f"majority class {majority:.4f}\n")
        print("| method | loss | test accuracy (mean ± sd) | lam (auto) | time/fit s |")
        print("|---|---|---|---|---|")
        for label, mech, uses_delta, tol in METHODS:
            for loss in LOSSES:
                t0 = time.time()
                try:
                    m, sd, lam = accuracy(loss, mech, delta if uses_delta else 0.0, tol,
                                          X, y, Xt, yt, seeds)
                    cell = f"{m:.4f} ± {sd:.4f}"
                except dp.DPConvexError as err:  # e.g. an AMP solve missing its tolerance
                    cell, lam = f"refused: {type(err).__name__}: {str(err)[:60]}", float("nan")
                dt = (time.time() - t0) / (seeds if mech != "none" else 1)
                print(f"| {label} | {loss} | {cell} | {lam:.3g} | {dt:.2f} |", flush=True)


#: module constants replaced in --quick mode (a smoke run, not a measurement)
QUICK: dict = {}

if __name__ == "__main__":
    harness.run_script(__file__, main, globals(), QUICK)
