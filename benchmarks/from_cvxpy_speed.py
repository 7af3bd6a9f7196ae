"""A loss stated in CVXPY (dp.Loss.from_cvxpy) against the same loss built in: passes, time, coefficients.

Two pairs of fits on the same rows with the same noise seed (0), ε = 1, δ = 0 (objective
perturbation, lam="auto", data_norm=1, fit_intercept=True):

* regression: ``PrivateLinearRegressor(loss="huber", label_range=(-1, 1))``
  (:class:`~dpconvex.objectives.HuberRegression`, M = 0.5) against ``loss=
  dp.Loss.from_cvxpy(lambda z, y: cp.huber(z - y, 0.5), kind="regression",
  label_range=(-1, 1))`` — the same function (cvxpy's ``huber(r, M)`` is r² inside M and
  2M|r| − M² outside; HuberRegression is ``huber(r, M) / (2M)``, and 2M = 1), on the rows of
  ``huber_regression_scale.make_regression``;
* margin: ``PrivateLinearClassifier(loss="logistic", classes=[0, 1])`` against ``loss=
  dp.Loss.from_cvxpy(lambda m: cp.logistic(-m), kind="margin")``, on the two-class rows of
  ``speed.make_data``.

Goals stated before the run: the same passes over the rows, at most 1.2× the built-in loss's
time, and coefficients that agree up to the solver's tolerance (the solve stops at a gradient
norm <= 1e-6; with the same noise both fits minimize the same objective).

Time (wall and process CPU), passes and memory are taken as in ``huber_regression_scale.py``
(fresh processes, one BLAS thread, warm-up fit, ``--repeats`` alternating repeats, median; passes counted by
``speed.Counter``). A last table times the losses alone: ``value_and_deriv`` on the n
predictions of the fit, in this process on one BLAS thread (median of 5 calls).

``--quick``: n = 5,000, d = 10, one repeat, all fits in one child process (a smoke run).
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any

import numpy as np

PAIRS = {"regression": ("huber", "huber_cvxpy"), "margin": ("logistic", "logistic_cvxpy")}


def loss_alone(n: int) -> list[tuple[str, float, float]]:
    """(loss, built-in seconds, from_cvxpy seconds) of ``value_and_deriv`` on n points."""
    import huber_regression_scale as scale
    from threadpoolctl import threadpool_limits

    from dpconvex.objectives import HuberRegression, Logistic

    rng = np.random.default_rng(0)
    z, y = rng.normal(size=n), rng.uniform(-1, 1, size=n)
    stated = scale.cvxpy_losses()
    out = []
    with threadpool_limits(limits=1):
        for name, builtin, args in (("huber", HuberRegression(0.5), (z, y)),
                                    ("logistic", Logistic(), (z,))):
            times = {}
            for key, loss in (("built in", builtin), ("from_cvxpy", stated[name])):
                each = []
                for _ in range(5):
                    t0 = time.perf_counter()
                    loss.value_and_deriv(*args)
                    each.append(time.perf_counter() - t0)
                times[key] = statistics.median(each)
            out.append((name, times["built in"], times["from_cvxpy"]))
    return out


def pair_table(kind: str, res: dict[str, list[dict[str, Any]]], n: int, d: int, repeats: int) -> Any:
    import harness
    import huber_regression_scale as scale

    builtin, stated = (res[k] for k in PAIRS[kind])
    score = "test R²" if kind == "regression" else "test accuracy"
    t = harness.Table(
        f"{kind}: n = {n:,}, d = {d}, ε = 1, noise seed 0; medians of {repeats} alternating "
        "repeat(s), ratios to the built-in loss",
        ["loss", "fit s: median (each)", "time ratio", "CPU s: median", "CPU time ratio", "passes",
         "passes ratio", "Gram-type passes", "peak above data MB", "memory ratio", score], kind="speed")
    base_s, base_peak = scale.median(builtin, "seconds"), scale.median(builtin, "peak")
    base_cpu = scale.median(builtin, "cpu_seconds")
    for key, rows in zip(PAIRS[kind], (builtin, stated), strict=True):
        t.add(scale.LEARNERS[key][1], scale.times_text(rows),
              scale._ratio(scale.median(rows, "seconds"), base_s),
              f"{scale.median(rows, 'cpu_seconds'):.3g}",
              scale._ratio(scale.median(rows, "cpu_seconds"), base_cpu), rows[0]["passes"],
              scale._ratio(rows[0]["passes"], builtin[0]["passes"]), rows[0]["gram"],
              f"{scale.median(rows, 'peak') / 2**20:.1f}",
              scale._ratio(scale.median(rows, "peak"), base_peak),
              f"{rows[0]['score']:.4f}")
    baseline = harness.CONSTANT + " (the training mean)" if kind == "regression" else harness.MAJORITY
    t.add(baseline, "", "", "", "", "", "", "", "", "", f"{builtin[0]['baseline']:.4f}")
    diff = float(np.max(np.abs(np.subtract(builtin[0]["coef"], stated[0]["coef"]))))
    t.notes.append(f"max |coefficient difference| (coef_ and intercept_, same noise seed): {diff:.3g}; "
                   f"the rows take {n * d * 8 / 2**20:.1f} MB.")
    return t, diff


def main() -> None:
    import harness
    import huber_regression_scale as scale
    import speed

    ap = harness.parser(__doc__)
    ap.add_argument("--n", type=int, default=10**6, help="training rows (default 1e6)")
    ap.add_argument("--d", type=int, default=50, help="columns (default 50)")
    ap.add_argument("--repeats", type=int, default=3, help="alternating repeats (default 3; median)")
    ap.add_argument("--only", choices=sorted(PAIRS), help="one pair only")
    ap.add_argument("--profile", action="store_true", help="cProfile one more fit per child")
    ap.add_argument("--timeout", type=float, default=3600, help="seconds per child process")
    args = ap.parse_args()
    n, d = (5000, 10) if args.quick else (args.n, args.d)
    repeats = 1 if args.quick else args.repeats
    kinds = [args.only] if args.only else list(PAIRS)
    with harness.Run(__file__, args, sys.argv[1:]) as run:
        import os

        run.note(f"snapshot of {speed.git_state()}; n = {n:,}, d = {d}, {repeats} repeat(s); "
                 f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start")
        if args.quick:
            run.note("--quick: a smoke run (all fits in one child process), not a measurement")
        learners = [lr for k in kinds for lr in PAIRS[k]]
        res = scale.run_repeats(learners, n, d, repeats=repeats, quick=args.quick, profile=args.profile,
                                timeout=args.timeout)
        for kind in kinds:
            t, diff = pair_table(kind, res, n, d, repeats)
            run.table(t)
            builtin, stated = (res[k] for k in PAIRS[kind])
            ratio = scale.median(stated, "seconds") / scale.median(builtin, "seconds")
            cpu = scale.median(stated, "cpu_seconds") / scale.median(builtin, "cpu_seconds")
            same = stated[0]["passes"] == builtin[0]["passes"] and stated[0]["gram"] == builtin[0]["gram"]
            verdict = "met" if max(ratio, cpu) <= 1.2 else "NOT met"
            run.note(f"Goals ({kind}): the same passes: {'met' if same else 'NOT met'}; time <= 1.2×: "
                     f"wall {ratio:.3f}×, CPU {cpu:.3f}× -> {verdict}; coefficients agree: max "
                     f"|difference| {diff:.3g}.")
        alone = harness.Table(f"The losses alone: value_and_deriv on {n:,} points (median of 5 calls)",
                              ["loss", "built in s", "from_cvxpy s", "ratio from_cvxpy / built in"],
                              kind="speed")
        for name, a, b in loss_alone(n):
            alone.add(name, f"{a:.4g}", f"{b:.4g}", f"{b / a:.3g}")
        run.table(alone)
        for rows in res.values():
            if "profile" in rows[0]:
                run.note(f"cProfile of one more fit of {rows[0]['learner']}:\n{rows[0]['profile']}")
        run.data["results"] = res


if __name__ == "__main__":
    main()
