"""NoisyGradientDescent: held-out accuracy against the number of steps T, and the steps rule.

For each data set, ε ∈ {0.5, 1, 2} and δ ∈ {1/n², 10⁻⁵}, ``NoisyGradientDescent`` is fitted
with ``steps=T`` for every T of a grid and every other setting left to its public rule (clip
C, step η = 2/L and radius R as the plan resolves them; the accountant recalibrates the noise
multiplier z for each T, since the budget is split over the T steps). Accuracy is measured on
held-out rows:

* breast cancer (``load_breast_cancer_wisconsin``, 683 rows) and Adult (``load_adult("train")``,
  30,162 rows): a random 80/20 split of the rows per seed (split and noise seed equal);
* synthetic rows of ``benchmarks/speed.py`` (d = 50, a linear model; n = 10³, 10⁴, 10⁵) with
  its 10,000 held-out rows; the data seed is the seed.

Two disjoint sets of seeds: the **selection** seeds (0, 1, 2; 0 - 9 on at most 2,000 rows,
whose held-out accuracy moves in steps of 0.15 - 0.7 points) give T*, the fewest steps of
the grid whose mean accuracy is within 0.1 points of the grid's best; the **report** seeds
(100, 101, 102; 100 - 109) give the tables and check the rule of
:func:`dpconvex.privacy.mechanisms.noisy_gd.steps_rule` (the T that ``plan()`` resolves with
``steps=None``): its mean accuracy against the best mean accuracy of the grid on the same
seeds. The summary lists T* against nμ (μ the Gaussian-DP parameter of (ε, δ)), the public
quantity the rule reads; the last note gives the mean shortfall over all cases from each
case's best against the slope a of T = ⌈a·nμ⌉ in [20, 1000] (and with caps 500 and 300),
the derivation of the rule's constant (docs/privacy/tuning_gd_ledger.md#privacy-noisy-gd).
On 10⁵ rows (running time) δ is 1/n² only, with two selection seeds and one report seed.
The noise multiplier of each (ε, δ, T) is calibrated once and reused across seeds (the
same function, memoized), and a rule's T on the grid reuses the grid's fit (the same fit).
Models fitted with a known seed are measurements, not releases. 28 minutes on 2 shared
cores (load 5 - 7).

Usage::

    DPCONVEX_DATA=../shared/datasets python benchmarks/noisy_gd_steps.py [--quick]
"""

from __future__ import annotations

import functools
import math
import sys
import time
import warnings
from collections.abc import Callable

import harness  # benchmarks/ is the script's folder, first on sys.path
import numpy as np
from sklearn.linear_model import LogisticRegression

from dpconvex import NoisyGradientDescent
from dpconvex.datasets import load_adult, load_breast_cancer_wisconsin
from dpconvex.privacy.accounting.gaussian import gdp_mu
from dpconvex.privacy.mechanisms import noisy_gd

EPSILONS = (0.5, 1.0, 2.0)
#: δ: the default rule 1/n² ("1/n^2") and a fixed value
DELTAS: tuple = ("1/n^2", 1e-5)
STEPS = (10, 15, 20, 30, 50, 75, 100, 150, 200, 300, 500, 1000)
SELECTION_SEEDS = (0, 1, 2)
REPORT_SEEDS = (100, 101, 102)
#: at most SMALL rows (held-out sets of a few hundred rows): 10 seeds of each kind
SMALL, SMALL_SEEDS = 2_000, 10
#: the synthetic sizes; above LARGE rows: the first δ only, two selection seeds and one report seed
SYNTHETIC = (1_000, 10_000, 100_000)
LARGE = 50_000
#: T* is the fewest steps within this many accuracy points of the best
WITHIN = 0.1

Data = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _split(X: np.ndarray, y: np.ndarray, seed: int) -> Data:
    tr, te = harness.split_rows(len(y), int(0.8 * len(y)), seed)
    return X[tr], y[tr], X[te], y[te]


def data_sets(quick: bool = False) -> list[tuple[str, Callable[[int], Data]]]:
    """(name, seed -> train and held-out rows) for every data set (quick: 1,500 Adult rows)."""
    import speed  # benchmarks/speed.py: the synthetic rows of the speed benchmark

    Xb, yb = load_breast_cancer_wisconsin()
    Xa, ya = load_adult("train")
    if quick:
        Xa, ya = harness.subsample(Xa, ya, harness.QUICK_ROWS[0])
    sets: list[tuple[str, Callable[[int], Data]]] = [
        ("breast cancer", functools.partial(_split, Xb, yb)),
        ("adult", functools.partial(_split, Xa, ya)),
    ]
    for n in SYNTHETIC:
        sets.append((f"synthetic n={n:,}", functools.partial(
            lambda n, seed: speed.make_data(n, 50, 2, seed, 10_000), n)))
    return sets


def _delta(delta: object, n: int) -> float:
    return 1.0 / (float(n) * float(n)) if delta == "1/n^2" else float(delta)  # type: ignore[arg-type]


def fit_accuracy(data: Data, eps: float, delta: float, steps: int | None, seed: int) -> tuple[float, int]:
    X, y, Xt, yt = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the noise warning: this is a measurement
        est = NoisyGradientDescent(epsilon=eps, delta=delta, steps=steps, classes=[0, 1],
                                   random_state=seed).fit(X, y)
    return float(est.score(Xt, yt)), int(est.steps_)


def curve(run: harness.Run, summary: harness.Table, name: str, load: Callable[[int], Data],
          t0: float) -> None:
    """One data set: the accuracy curves (a table) and the summary rows."""
    first = load(REPORT_SEEDS[0])
    n = len(first[1])
    large = n > LARGE
    grid = list(STEPS)
    sel = SELECTION_SEEDS[:2] if large else SELECTION_SEEDS
    rep = REPORT_SEEDS[:1] if large else REPORT_SEEDS
    if n <= SMALL and len(sel) > 1:  # accuracy on a few hundred rows: more seeds
        sel = tuple(range(sel[0], sel[0] + SMALL_SEEDS))
        rep = tuple(range(rep[0], rep[0] + SMALL_SEEDS))
    cache = {s: load(s) for s in (*sel, *rep)}
    columns = [(eps, d) for d in (DELTAS[:1] if large else DELTAS) for eps in EPSILONS]
    table = harness.Table(
        f"{name} (n = {n:,} training rows): held-out accuracy against T (report seeds "
        f"{', '.join(map(str, rep))})", ["steps T", *[f"ε={eps:g}, δ={d}" for eps, d in columns]])
    curves: dict = {}
    rules: dict = {}
    for eps, d in columns:
        delta = _delta(d, n)
        acc = {(T, s): fit_accuracy(cache[s], eps, delta, T, s)[0] for T in grid
               for s in (*sel, *rep)}
        t_rule = NoisyGradientDescent(epsilon=eps, delta=delta, classes=[0, 1]).plan(
            n, 2, first[0].shape[1]).options["steps"]
        # a rule's T on the grid: the same fit (same seed, same settings) as the grid's
        rule = {s: (acc[t_rule, s], t_rule) if t_rule in grid else fit_accuracy(cache[s], eps, delta,
                                                                                None, s)
                for s in (*sel, *rep)}
        curves[eps, d], rules[eps, d] = acc, rule
        mean_sel = {T: float(np.mean([acc[T, s] for s in sel])) for T in grid}
        best_sel = max(mean_sel.values())
        t_star = min(T for T in grid if mean_sel[T] >= best_sel - WITHIN / 100)
        mean_rep = {T: float(np.mean([acc[T, s] for s in rep])) for T in grid}
        rule_rep = float(np.mean([rule[s][0] for s in rep]))
        assert rule[rep[0]][1] == t_rule
        best_rep = max(max(mean_rep.values()), rule_rep)
        n_mu = n * gdp_mu(eps, delta)
        summary.add(name, n, eps, d, round(n_mu, 1), t_star, t_rule, round(rule_rep, 4),
                    round(best_rep, 4), round(100 * (rule_rep - best_rep), 2))
        run.data.setdefault("curves", []).append(
            {"data": name, "n": n, "epsilon": eps, "delta": d, "n_mu": n_mu, "t_star": t_star,
             "t_rule": t_rule, "selection": mean_sel, "report": mean_rep, "rule_report": rule_rep})
        print(f"  {name} eps={eps:g} delta={d}: n mu = {n_mu:.4g}, T* = {t_star}, "
              f"rule T = {t_rule} ({time.perf_counter() - t0:.0f} s)", flush=True)
    for T in grid:
        table.add(T, *[[curves[c][T, s] for s in rep] for c in columns])
    table.add("steps rule: T", *[f"{rules[c][rep[0]][1]}" for c in columns])
    table.add("steps rule", *[[rules[c][s][0] for s in rep] for c in columns])
    X, y, Xt, yt = first
    table.add(harness.NON_PRIVATE, *[float(LogisticRegression().fit(X, y).score(Xt, yt))] * len(columns))
    table.add(harness.MAJORITY, *[1.0 - harness.majority_error(y, yt)] * len(columns))
    run.table(table)


def _accuracy_at(curve: dict, T: float) -> float:
    """Mean accuracy at T, interpolated in log T between the grid's points."""
    grid = sorted((int(t), v) for t, v in curve.items())
    return float(np.interp(math.log(T), np.log([t for t, _ in grid]), [v for _, v in grid]))


def shortfall(cases: list[dict], slope: float, key: str, cap: int = 1000) -> float:
    """Mean over the cases of (best accuracy - accuracy at T = ⌈slope·nμ⌉ in [20, cap]), in points."""
    return float(np.mean([100 * (max(c[key].values()) - _accuracy_at(
        c[key], min(cap, max(20, math.ceil(slope * c["n_mu"]))))) for c in cases]))


def slope_table(cases: list[dict]) -> str:
    """The mean shortfall against the slope a of T = ⌈a·nμ⌉ (the rule's form) and the pick.

    A table of differences of accuracies (each case's best is the reference), so it is
    printed as a note, not as a :class:`harness.Table` (whose accuracy tables need the
    non-private and majority rows).
    """
    slopes = np.exp(np.linspace(math.log(0.01), math.log(2.0), 60))
    sel = np.array([shortfall(cases, a, "selection") for a in slopes])
    least = int(np.argmin(sel))
    pick = int(np.argmax(sel <= sel[least] + WITHIN))
    out = [f"### Mean shortfall from each case's best (points, {len(cases)} cases) against the "
           "slope a of T = ⌈a·nμ⌉ in [20, cap]", "",
           "| slope a | selection seeds | report seeds | cap 500 (selection) | cap 300 (selection) |",
           "|---|---|---|---|---|"]
    for i, a in enumerate(slopes):
        if i % 4 == 0 or i in (least, pick):
            mark = " (least)" if i == least else " (fewest within 0.1 of the least)" if i == pick else ""
            out.append(f"| {a:.4f}{mark} | {sel[i]:.3f} | {shortfall(cases, a, 'report'):.3f} | "
                       f"{shortfall(cases, a, 'selection', 500):.3f} | "
                       f"{shortfall(cases, a, 'selection', 300):.3f} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    ap = harness.parser(__doc__)
    ap.add_argument("--only", nargs="*", default=None,
                    help="data sets to run (names start with these words, e.g. adult synthetic)")
    args = ap.parse_args(argv)
    global EPSILONS, DELTAS, STEPS, SELECTION_SEEDS, REPORT_SEEDS, SYNTHETIC
    if args.quick:  # a smoke run, not a measurement
        EPSILONS, DELTAS, STEPS = (1.0,), ("1/n^2",), (10, 50)
        SELECTION_SEEDS, REPORT_SEEDS, SYNTHETIC = (0,), (100,), (1_000,)
    # the same calibration for every seed: calibrate each (ε, δ, T) once
    noisy_gd.calibrate_noise_multiplier = functools.cache(noisy_gd.calibrate_noise_multiplier)
    with harness.Run(__file__, args, argv) as run:
        summary = harness.Table(
            "Fewest steps within 0.1 points of the best (T*, selection seeds) and the steps rule "
            "(report seeds)",
            ["data set", "n", "ε", "δ", "nμ", "T* (selection)", "T rule", "rule acc (report)",
             "best acc (report)", "rule - best (points)"])
        t0 = time.perf_counter()
        for name, load in data_sets(args.quick):
            if args.only is None or any(name.startswith(w) for w in args.only):
                curve(run, summary, name, load, t0)
        for baseline in (harness.NON_PRIVATE, harness.MAJORITY):  # per data set: its curve table
            summary.add(baseline, "in each data set's table", *[""] * 8)
        run.table(summary)
        if args.only is None:
            run.note("\n" + slope_table(run.data["curves"]) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
