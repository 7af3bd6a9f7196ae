"""Adult: do dpconvex's and diffprivlib's noise samplers give the same accuracy through one solver?

What is compared: two *samplers* of the objective-perturbation noise b, at one and the same
rate β, each draw solved by the same solver on the same template. What is not compared:
the two libraries' calibrations. dpconvex takes β from its certificate, with the one-sided
Jacobian slack ε′ = ε − log(1 + c/(nΛ))
(docs/privacy/perturbation.md#privacy-jacobian-slack); diffprivlib 0.6.6 uses ε′ = ε − 2
log(1 + c/(nΛ)), so at the same ε it adds more noise. Both ε′ are printed; both samplers
here draw at dpconvex's rate β = ε′/2 (norm bound 1, sensitivity 2), so a gap in mean
accuracy could come only from the samplers. The template is dpconvex's logistic
regression, Λ = 1e-3, no intercept, norm bound 1. For R draws from

* dpconvex's sampler (``dpconvex.privacy.noise.norm_gamma(p, β)``: ‖b‖ ~ Gamma(p, 1/β),
  direction a normalized Gaussian; one ``default_rng(2026)`` stream), and
* diffprivlib 0.6.6's ``Vector`` sampler, reproduced with NumPy at the same β (a direction
  ``standard_normal((p, 4)).sum(1) / 2`` normalized, a norm ``gamma(p/4, 1/β, 4).sum()``,
  from ``RandomState(10_000 + k)`` for draw k),

it prints the mean test accuracy ± standard error for each, their difference, the
non-private fit of the same template and the majority class.

Usage::

    DPCONVEX_DATA=../shared/datasets python benchmarks/against_diffprivlib.py [--draws 400] [--quick]
"""

from __future__ import annotations

import math
import sys

import harness  # benchmarks/ is the script's folder, first on sys.path
import numpy as np

import dpconvex as dp
from dpconvex.privacy.noise import norm_gamma
from dpconvex.privacy.verify import verify
from dpconvex.solvers import solve

#: draws per sampler in --quick mode (a smoke run, not a measurement)
QUICK_DRAWS = 5


def diffprivlib_vector_noise(p: int, beta: float, seed: int) -> np.ndarray:
    """diffprivlib 0.6.6's ``Vector`` noise at rate ``beta`` (its ``2/ε′`` scale is ``1/beta``)."""
    rs = np.random.RandomState(seed)
    direction = rs.standard_normal((p, 4)).sum(axis=1) / 2
    return direction / np.linalg.norm(direction) * rs.gamma(p / 4, 1.0 / beta, 4).sum()


def main(argv: list[str] | None = None) -> None:
    ap = harness.parser(__doc__)
    ap.add_argument("--draws", type=int, default=400, help="noise draws per sampler")
    ap.add_argument("--lam", type=float, default=1e-3)
    args = ap.parse_args(argv)
    if args.quick:
        args.draws = min(args.draws, QUICK_DRAWS)
    s = harness.load("adult", quick=args.quick)
    n, p = s.X.shape
    se = lambda v: v.std(ddof=1) / math.sqrt(v.size)  # noqa: E731
    with harness.Run(__file__, args, argv) as run:
        run.note(f"Adult, n = {n}, p = {p}, Λ = {args.lam:g}, no intercept, norm bound 1, "
                 f"{args.draws} draws per sampler, both at dpconvex's rate β")
        table = harness.Table("Test accuracy: two noise samplers, one solver, the same rate β",
                              ["ε", "row", "dpconvex ε′ (β = ε′/2)", "diffprivlib's own ε′",
                               "test accuracy (mean ± s.e.)", "difference dpconvex − diffprivlib (s.e.)"])
        m = dp.PrivateLogisticRegression(lam=args.lam, data_norm=1.0, fit_intercept=False,
                                         mechanism="none").fit(s.X, s.y)
        table.add("—", harness.NON_PRIVATE, "—", "—", f"{m.score(s.Xt, s.yt):.4f}", "—")
        table.add("—", harness.MAJORITY, "—", "—", f"{1 - harness.majority_error(s.y, s.yt):.4f}", "—")
        for eps in (0.1, 1.0):
            est = dp.PrivateLogisticRegression(epsilon=eps, lam=args.lam, data_norm=1.0,
                                               fit_intercept=False)
            prep = est.prepare(s.X, s.y, est.plan_for(s.X, s.y))
            cal = verify(prep.template, epsilon=eps, mechanism="objective")[1]
            beta = cal.noise_rate
            eps_dpl_own = eps - 2.0 * math.log1p(0.25 / (args.lam * n))
            classes = prep.labels.classes
            rng = np.random.default_rng(2026)
            acc: dict[str, list[float]] = {"dpconvex": [], "diffprivlib": []}
            for k in range(args.draws):
                draws = (("dpconvex", norm_gamma((p,), beta, rng)),
                         ("diffprivlib", diffprivlib_vector_noise(p, beta, 10_000 + k)))
                for name, b in draws:
                    res = solve(prep.template, b, cal.extra_strong_convexity)
                    assert res.residual <= 1e-6
                    acc[name].append(float(np.mean(classes[(s.Xt @ res.x > 0).astype(int)] == s.yt)))
            a, b = np.array(acc["dpconvex"]), np.array(acc["diffprivlib"])
            diff = f"{a.mean() - b.mean():+.4f} ({math.hypot(se(a), se(b)):.4f})"
            for name, v in (("dpconvex sampler", a), ("diffprivlib sampler", b)):
                own = f"{eps_dpl_own:.5f}" if eps_dpl_own > 0 else "≤ 0"
                table.add(f"{eps:g}", name, f"{cal.epsilon_noise:.5f}", own,
                          f"{v.mean():.4f} ± {se(v):.4f}", diff)
            run.data[f"accuracy_eps_{eps:g}"] = acc
        run.table(table)


if __name__ == "__main__":
    main(sys.argv[1:])
