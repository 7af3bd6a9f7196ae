"""The README's Adult figure: test error vs ε with error bars, non-private and majority-class lines.

Runs the problem ``adult_objective_vs_output`` (CMS Fig. 2 / Table 1; 10 runs,
seeded as in the problem file; 10-20 s on 2 cores), prints its table, and draws
``docs/img/adult_error_vs_epsilon.png``: each private method as mean ± std over
the runs, each non-private model as a dashed line (the private points are offset
slightly in ε so that their error bars do not overlap), and the majority-class
baseline (predict the most frequent training label) as a dotted red line. A
private model is useful only below that line.

    DPCONVEX_DATA=../shared/datasets python experiments/readme_adult_figure.py [--out PATH]
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from dpconvex.runs import MAJORITY, ProblemResult, run_problem  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "img" / "adult_error_vs_epsilon.png"
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


def draw(result: ProblemResult, out: Path) -> None:
    """Save the error-vs-ε figure of ``result`` as a small PNG."""
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help=f"PNG to write (default {OUT})")
    args = parser.parse_args()
    result = run_problem(PROBLEM, progress=False)
    print(result.table())
    draw(result, args.out)
    print(f"{result.seconds:.1f} s; wrote {args.out} ({args.out.stat().st_size / 1024:.0f} KB)")


if __name__ == "__main__":
    main()
