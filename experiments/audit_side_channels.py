"""Audit the side channels closed by issue 12, through the auditor (claimed vs audited ε).

For each case, adjacent data sets D, D′ (same n, one record replaced) are fitted
``--runs`` times each with fresh noise, through the real estimators. Two
statistics are audited with :func:`dpconvex.audit.audit` (Clopper–Pearson, 95 %):

* ``side channel``: what an independent review read from a fitted model besides
  its parameters — the stored solver point, the objective value (on the model or
  in the certificate's text) and the number of classes. Before issue 12 it
  separated D from D′ deterministically; now it must be constant (audited ε 0);
* ``parameters``: the auditor's default statistic on the released parameters;
  the bound must stay at or below the claimed ε.

Usage::

    python experiments/audit_side_channels.py --runs 400

A lower bound cannot prove privacy; a bound above the claimed ε is a false alarm
with probability at most 5 % per line.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

import dpconvex as dp
from dpconvex.audit import EstimatorMechanism, audit


def side_channel(est) -> np.ndarray:
    """What the review read besides the parameters: solver state, objective value, label set.

    [first coordinate of any stored solver point, the objective value stored on the
    model or printed in its certificate, the number of classes]; absent entries are 0.
    """
    res = getattr(est, "solve_result_", None)  # present before issue 12
    x0 = float(np.ravel(res.x)[0]) if res is not None and res.x is not None else 0.0
    obj = float(res.objective) if res is not None else 0.0
    obj = obj or float(est.certificate_.solver.get("objective", 0.0) or 0.0)
    return np.array([x0, obj, float(len(est.classes_))])


def params(est) -> np.ndarray:
    for attr in ("Phi_", "coef_"):
        if hasattr(est, attr):
            return np.asarray(getattr(est, attr), dtype=float).ravel()
    return np.asarray(est.best_estimator_.coef_, dtype=float).ravel()


def pair(n, d, C, seed=0, singleton=False):
    """Adjacent (D, D′); with ``singleton`` class C−1 has one record, relabelled in D′."""
    rng = np.random.default_rng(seed)
    X = 0.4 * rng.normal(size=(n, d))
    y = np.arange(n) % (C - 1 if singleton else C)
    if singleton:
        y[-1] = C - 1
    X2, y2 = X.copy(), y.copy()
    X2[-1] = 0.0
    X2[-1, 0] = 3.0
    y2[-1] = 0 if singleton else (y[-1] + 1) % C
    return (X, y), (X2, y2)


CASES = {
    "LR output perturbation (solver state)": (
        lambda: dp.PrivateLogisticRegression(epsilon=1.0, lam=0.05, mechanism="output"),
        pair(120, 4, 2)),
    "LR objective + AMP (pre-cover point)": (
        lambda: dp.PrivateLogisticRegression(epsilon=1.0, lam=0.05, optimality_tol=1e-3),
        pair(120, 4, 2)),
    "large margin, relabelled record (label set)": (
        lambda: dp.PrivateLargeMarginGaussian(epsilon=1.0, classes=[0, 1, 2], solver="native"),
        pair(60, 2, 3, singleton=True)),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=400)
    args = ap.parse_args()
    print("| case | statistic | claimed ε | audited ε (95 % lower bound) | runs per set | s |")
    print("|---|---|---|---|---|---|")
    for name, (make, (D, Dp)) in CASES.items():
        for label, out in (("side channel", side_channel), ("parameters", params)):
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = audit(EstimatorMechanism(make(), output=out), D, Dp, n_runs=args.runs,
                            random_state=1)
            print(f"| {name} | {label} | 1 | {res.epsilon_lower_bound:.3f} | {args.runs} | "
                  f"{time.perf_counter() - t0:.0f} |", flush=True)


if __name__ == "__main__":
    main()
