"""Adult: how do objective and output perturbation compare with each other, CMS and the baselines?

Two parts:

* ``--part figure`` (the README's Adult figure): runs the problem
  ``adult_objective_vs_output`` (CMS Fig. 2 / Table 1; 10 runs, seeded as in the problem
  file), prints its table and draws ``docs/img/adult_error_vs_epsilon.png``: each private
  method as mean ± std over the runs, each non-private model as a dashed line, and the
  majority class (the most frequent training label) as a dotted red line.
* ``--part table1`` (CMS Table 1): test error at ε = 0.1, Λ = 10^-2.5, h = 0.5, 10 noise
  draws from one seeded stream (seed 2011), adult.data → adult.test, rows of norm 1
  (the loader's ``row_norm="unit"``), no intercept (each row's one-hot blocks all sum to
  the same value, so a constant is nearly in the span of the features and q stays 1).

Run::

    DPCONVEX_DATA=../shared/datasets python benchmarks/adult_objective_vs_output.py [--part figure|table1]
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import harness  # benchmarks/ is the script's folder, first on sys.path
import numpy as np

import dpconvex as dp
from dpconvex._validation import NoiseSource
from dpconvex.estimators.base import NO_CONTEXT, fit_with

FIGURE = harness.ROOT / "docs" / "img" / "adult_error_vs_epsilon.png"
PROBLEM = "adult_objective_vs_output"
#: one color per learner (solid: objective perturbation, lighter: output perturbation)
STYLE = {
    "LR objective": dict(color="tab:blue", marker="o"),
    "LR output": dict(color="tab:cyan", marker="s"),
    "Huber objective": dict(color="tab:green", marker="o"),
    "Huber output": dict(color="tab:olive", marker="s"),
    "Huber objective, lam auto": dict(color="tab:purple", marker="^"),
    "Huber Gaussian objective, lam auto": dict(color="tab:red", marker="D"),
    "LR non-private": dict(color="tab:blue"),
    "Huber non-private": dict(color="tab:green"),
}


def draw(result, out: Path) -> None:
    """Save the error-vs-ε figure of a ``ProblemResult`` as a small PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dpconvex.runs import MAJORITY

    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    private = [m for m, d in result.errors.items() if math.inf not in d]
    # offset the private methods slightly in ε so that their error bars do not overlap
    factors = np.geomspace(0.92, 1.08, len(private)) if len(private) > 1 else [1.0]
    shift = dict(zip(private, factors, strict=True))
    for label, d in result.errors.items():
        style = STYLE.get(label, {})
        if math.inf in d:  # non-private: deterministic fit, one line
            ax.axhline(np.mean(d[math.inf]), ls="--", lw=1.2, color=style.get("color", "k"),
                       label=label)
            continue
        eps = sorted(d)
        ax.errorbar([e * shift[label] for e in eps], [np.mean(d[e]) for e in eps],
                    yerr=[np.std(d[e]) for e in eps], capsize=3, lw=1.5, ms=5, label=label, **style)
    majority = result.baselines[MAJORITY]
    ax.axhline(np.mean(majority), ls=":", lw=2, color="tab:red",
               label=f"majority class (trivial), {np.mean(majority):.3f}")
    ax.set_xscale("log")
    ax.set_xlabel("privacy parameter ε")
    ax.set_ylabel(f"test error (mean ± std, {result.runs} runs)")
    ax.set_title("Adult: objective vs output perturbation (CMS Fig. 2 / Table 1)", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.14))
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=80)
    plt.close(fig)


def part_figure(run: harness.Run, quick: bool, out: Path) -> None:
    from dpconvex.runs import MAJORITY, run_problem

    result = run_problem(PROBLEM, progress=False, quick=True) if quick else \
        run_problem(PROBLEM, progress=False)
    epsilons = sorted({e for d in result.errors.values() for e in d if e != math.inf})
    table = harness.Table(f"Adult: test error vs ε ({result.runs} runs, mean ± std)",
                          ["method", *[f"ε = {e:g}" for e in epsilons]])
    for label, d in result.errors.items():
        if math.inf in d:  # non-private: one deterministic fit, the same in every column
            table.add(label if harness.NON_PRIVATE in label else f"{label} ({harness.NON_PRIVATE})",
                      *[d[math.inf]] * len(epsilons))
        else:
            table.add(label, *[d.get(e, "") for e in epsilons])
    table.add(harness.MAJORITY, *[result.baselines[MAJORITY]] * len(epsilons))
    run.table(table)
    draw(result, out)
    run.note(f"problem {PROBLEM}: {result.seconds:.1f} s; wrote {out}")


def part_table1(run: harness.Run, quick: bool, runs: int, epsilon: float, lam: float,
                seed: int) -> None:
    s = harness.load("adult", quick=quick)
    rng = np.random.default_rng(seed)
    learners = {
        "LR": lambda lam=lam, **kw: dp.PrivateLogisticRegression(lam=lam, fit_intercept=False, **kw),
        "Huber": lambda lam=lam, **kw: dp.PrivateHuberSVM(lam=lam, h=0.5, fit_intercept=False, **kw),
    }
    table = harness.Table(
        f"CMS Table 1 on Adult: {len(s.y)} train / {len(s.yt)} test, ε = {epsilon}, "
        f"Λ = {lam:.4g}, {runs} runs", ["learner", "mechanism", "test error", "certificate ε", "fit s"])
    for name, make in learners.items():
        for lam_np in (lam, 1e-5):
            t0 = time.perf_counter()
            m = make(lam=lam_np, mechanism="none").fit(s.X, s.y)
            table.add(name, f"{harness.NON_PRIVATE}, Λ = {lam_np:.3g}", 1 - m.score(s.Xt, s.yt), "—",
                      time.perf_counter() - t0)
        for mech in ("objective", "output"):
            errs, secs, eps = [], [], []
            for _ in range(runs):
                t0 = time.perf_counter()
                m = make(mechanism=mech, epsilon=epsilon)
                # one seeded stream, handed to the fit, not kept on m
                fit_with(m, s.X, s.y, NO_CONTEXT, [(m, NoiseSource(rng, seeded=True))])
                secs.append(time.perf_counter() - t0)
                errs.append(1 - m.score(s.Xt, s.yt))
                eps.append(m.certificate_.epsilon)
            table.add(name, mech, errs, max(eps), float(np.mean(secs)))
    table.add("—", harness.MAJORITY, harness.majority_error(s.y, s.yt), "—", "—")
    table.notes.append("CMS Table 1 (10-fold CV, Λ tuned per ε): Huber 0.2046, LR 0.2161.")
    run.table(table)


def main(argv: list[str] | None = None) -> None:
    ap = harness.parser(__doc__)
    ap.add_argument("--part", choices=("figure", "table1", "all"), default="all")
    ap.add_argument("--runs", type=int, default=10, help="noise draws for table1")
    ap.add_argument("--epsilon", type=float, default=0.1)
    ap.add_argument("--lam", type=float, default=10 ** -2.5)
    ap.add_argument("--seed", type=int, default=2011)
    ap.add_argument("--figure", type=Path, default=FIGURE, help=f"PNG to write (default {FIGURE})")
    args = ap.parse_args(argv)
    if args.quick:
        args.runs = min(args.runs, 2)
        if args.figure == FIGURE:
            args.figure = args.out / "adult_error_vs_epsilon-quick.png"
    with harness.Run(__file__, args, argv) as run:
        if args.part in ("figure", "all"):
            part_figure(run, args.quick, args.figure)
        if args.part in ("table1", "all"):
            part_table1(run, args.quick, args.runs, args.epsilon, args.lam, args.seed)


if __name__ == "__main__":
    main(sys.argv[1:])
