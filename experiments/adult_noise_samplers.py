"""Adult: accuracy of one objective-perturbation template under two noise samplers.

Answers "is dpconvex's accuracy at the same ε as good as diffprivlib's?" with the
solver held fixed. With norm bound 1 (no intercept) both libraries calibrate by
the same formula (ε' = ε − 2 log(1 + c/(nΛ)), ‖b‖ ~ Gamma(p, 2/ε')), so any gap
in mean accuracy must come from the noise draws. This script solves dpconvex's
template (Λ = 1e-3) for R draws from

* dpconvex's sampler (``dpconvex.noise.norm_gamma`` at the certificate's rate), and
* diffprivlib 0.6.6's ``Vector`` sampler, reproduced with NumPy (a direction
  ``standard_normal((p, 4)).sum(1) / 2`` normalized, a norm
  ``gamma(p/4, 2/ε', 4).sum()`` from ``RandomState(seed)``); benchmarks/run.py
  checks that this reproduction gives diffprivlib's own coefficients,

and prints mean test accuracy ± standard error for each, and the difference.

Usage::

    DPCONVEX_DATA=../shared/datasets python experiments/adult_noise_samplers.py [--draws 400]
"""

from __future__ import annotations

import argparse
import math

import numpy as np

import dpconvex as dp
from dpconvex.datasets import load_adult
from dpconvex.noise import norm_gamma
from dpconvex.solvers import solve


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draws", type=int, default=400)
    ap.add_argument("--lam", type=float, default=1e-3)
    args = ap.parse_args(argv)
    Xtr, ytr = load_adult("train", download=False)
    Xte, yte = load_adult("test", download=False)
    n, p = Xtr.shape
    print(f"Adult, n = {n}, p = {p}, Λ = {args.lam:g}, no intercept, norm bound 1, "
          f"{args.draws} draws per sampler\n")
    print("| ε | ε' (both) | dpconvex sampler | diffprivlib sampler | difference (SE) |")
    print("|---|---|---|---|---|")
    for eps in (0.1, 1.0):
        est = dp.PrivateLogisticRegression(epsilon=eps, lam=args.lam, data_norm=1.0,
                                           fit_intercept=False)
        prep = est._build(Xtr, ytr)
        cal = dp.verify.verify(prep.template, epsilon=eps, mechanism="objective")[1]
        eps_dpl = eps - 2.0 * math.log1p(0.25 / (args.lam * n))
        assert abs(eps_dpl - 2.0 * cal.noise_rate) < 1e-12, "calibrations differ"
        classes = prep.meta["classes"]
        rng = np.random.default_rng(2026)
        acc: dict[str, list[float]] = {"dpconvex": [], "diffprivlib": []}
        for k in range(args.draws):
            b_ours = norm_gamma((p,), cal.noise_rate, rng)
            rs = np.random.RandomState(10_000 + k)
            direction = rs.standard_normal((p, 4)).sum(axis=1) / 2
            b_dpl = direction / np.linalg.norm(direction) * rs.gamma(p / 4, 2.0 / eps_dpl, 4).sum()
            for name, b in (("dpconvex", b_ours), ("diffprivlib", b_dpl)):
                res = solve(prep.template, b, cal.extra_strong_convexity)
                assert res.residual <= 1e-6
                acc[name].append(float(np.mean(classes[(Xte @ res.x > 0).astype(int)] == yte)))
        a, b = np.array(acc["dpconvex"]), np.array(acc["diffprivlib"])
        se = lambda v: v.std(ddof=1) / math.sqrt(v.size)  # noqa: E731
        diff_se = math.hypot(se(a), se(b))
        print(f"| {eps:g} | {eps_dpl:.5f} | {a.mean():.4f} ± {se(a):.4f} | "
              f"{b.mean():.4f} ± {se(b):.4f} | {a.mean() - b.mean():+.4f} ({diff_se:.4f}) |")


if __name__ == "__main__":
    main()
