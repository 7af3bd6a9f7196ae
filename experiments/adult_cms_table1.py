"""CMS Table 1 on Adult: test error at ε = 0.1, Λ = 10^-2.5, h = 0.5, 10 noise draws.

Run:  DPCONVEX_DATA=../shared/datasets python experiments/adult_cms_table1.py [--runs 10]

Trains on adult.data and tests on adult.test (rows with '?' dropped), features scaled
by public ranges (``dpconvex.datasets``), every row scaled to norm 1 (the loader's default
``row_norm="unit"``). An intercept as a regularized constant feature s would make
q = sqrt(1 + s^2) (sqrt(2) for s = 1); it is left out (fit_intercept=False) because each
row's one-hot blocks all sum to the same value, 1/||raw row|| (0.302 to 0.352 on
adult.data; 1/sqrt(13) for every row with row_norm=None), so a constant is nearly (with
row_norm=None exactly) in the span of the features, and q stays 1.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import dpconvex as dp
from dpconvex._random import assign_noise
from dpconvex.datasets import load_adult


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--epsilon", type=float, default=0.1)
    ap.add_argument("--lam", type=float, default=10 ** -2.5)
    ap.add_argument("--seed", type=int, default=2011)
    args = ap.parse_args()
    X, y = load_adult("train")
    Xt, yt = load_adult("test")
    rng = np.random.default_rng(args.seed)
    learners = {
        "LR": lambda lam=args.lam, **kw: dp.PrivateLogisticRegression(
            lam=lam, fit_intercept=False, **kw),
        "Huber": lambda lam=args.lam, **kw: dp.PrivateHuberSVM(
            lam=lam, h=0.5, fit_intercept=False, **kw),
    }
    print(f"Adult: {X.shape[0]} train / {Xt.shape[0]} test, d = {X.shape[1]}, "
          f"epsilon = {args.epsilon}, Lambda = {args.lam:.4g}, runs = {args.runs}")
    print("| learner | mechanism | test error (mean ± std) | certificate ε | fit s |")
    print("|---|---|---|---|---|")
    for name, make in learners.items():
        for lam in (args.lam, 1e-5):
            t0 = time.perf_counter()
            m = make(lam=lam, mechanism="none").fit(X, y)
            print(f"| {name} | non-private, Λ = {lam:.3g} | {1 - m.score(Xt, yt):.4f} | — | "
                  f"{time.perf_counter() - t0:.2f} |")
        for mech in ("objective", "output"):
            errs, secs, eps = [], [], []
            for _ in range(args.runs):
                t0 = time.perf_counter()
                m = make(mechanism=mech, epsilon=args.epsilon)
                with assign_noise({m: rng}, seeded=True):  # one seeded stream, not kept on m
                    m.fit(X, y)
                secs.append(time.perf_counter() - t0)
                errs.append(1 - m.score(Xt, yt))
                eps.append(m.certificate_.epsilon)
            print(f"| {name} | {mech} | {np.mean(errs):.4f} ± {np.std(errs):.4f} | "
                  f"{max(eps):.4g} | {np.mean(secs):.2f} |")
    print(f"(majority-class error on test: {min(np.mean(yt), 1 - np.mean(yt)):.4f})")


if __name__ == "__main__":
    main()
