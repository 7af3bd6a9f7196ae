"""Large-margin mixtures: does K > 1 component per class beat K = 1, and at which lam and gamma?

Usage::

    DPCONVEX_DATA=/work/shared/datasets python benchmarks/mixture_components.py --procs 2

Data (rows of norm <= 1 by a public map, no value read from the rows to choose it):

* wine, breast cancer (``load_breast_cancer``), digits: :func:`dpconvex.datasets.load_sklearn`
  (wine and breast cancer: each feature clipped to the (min, max) printed in scikit-learn's
  description of the data and mapped to [−1/2, 1/2], rows divided by √d/2; digits: pixels
  / 16 / 8);
* iris: scikit-learn's ``load_iris``, the same map with the ranges printed in its description.

CAUTION: the printed ranges of wine, breast cancer and iris are summary statistics of the same
records; they stand in for ranges known before the data (as the digits pixel range is).

Splits ``train_test_split(test_size=0.3, stratify=y, random_state=s)`` and noise
``random_state=s`` for the same s. Seeds s = 100..104 are the CHOOSING seeds (the rule for
``n_components="auto"`` and the lam/gamma advice of docs/guide/large_margin.md are read from
them); s = 0..9 are the REPORTING seeds (every per-setting table). Test accuracy, mean ± std
over the seeds.

Per data set, ε ∈ {0.5, 1, 2, 4}, pure ε (δ = 0) and δ = 1e-5, ``PrivateLargeMarginGaussian`` with

* its defaults and ``n_components=1`` (what a user who sets only ε gets; with three or more
  classes at small n·ε/(C(d + 1)) these are DP class centroids);
* δ = 0: ``loss="pairwise"`` (the paper's PSD template, the loss of ``loss="auto"`` for K > 1),
  K ∈ {1, 2, 3}, component assignment ``"nearest_public_center"`` (public centers by the
  library's data-independent rule) and ``"dp_kmeans"`` (20 % of ε), lam ∈ {"auto", 2e-3, 2e-2},
  gamma ∈ {1e-2 (the default), 1e-3}; and ``loss="softmax"`` (for K > 1 the softmax over the
  record's active components), the same K, assignments and lam (gamma is not used);
* δ = 1e-5: ``loss="softmax"`` only (the pairwise template is pure ε), the same grid;

each beside the same setting fitted with ``mechanism="none"`` (non-private; ``lam="auto"``
then is the floor 1e-4; ``"dp_kmeans"`` then is k-means without noise) and the majority class
of the training split. Digits (d = 64) runs a smaller grid (:data:`DIGITS_GRID`) to stay within
the time budget.

The summary per data set: the K = 1 setting and the K >= 2 setting with the best mean accuracy
on the choosing seeds, per δ and ε, their accuracy on the reporting seeds, and the gain of the
mixture on the choosing seeds (mean and standard error of the per-seed difference). A gain is a
mean above 0.01 and above two standard errors (:data:`GAIN`, :data:`GAIN_SE`).
"""

from __future__ import annotations

import itertools
import multiprocessing as mp
import sys
import time
import warnings
from typing import Any, NamedTuple

import harness  # benchmarks/ is the script's folder, first on sys.path
import numpy as np
from sklearn.datasets import load_iris
from sklearn.model_selection import train_test_split

import dpconvex as dp
from dpconvex.datasets import load_sklearn
from dpconvex.errors import SolverError

EPSILONS = (0.5, 1.0, 2.0, 4.0)
DELTAS = (0.0, 1e-5)
CHOOSING_SEEDS = tuple(range(100, 105))
REPORTING_SEEDS = tuple(range(10))
SETS = ("wine", "iris", "breast_cancer", "digits")
COMPONENTS = (1, 2, 3)
ASSIGNMENTS = ("nearest_public_center", "dp_kmeans")
LAMS: tuple[Any, ...] = ("auto", 2e-3, 2e-2)
GAMMAS = (1e-2, 1e-3)
#: digits' grid (components, lams, gammas): one lam and gamma, K <= 2
DIGITS_GRID: tuple[tuple[int, ...], tuple[Any, ...], tuple[float, ...]] = ((1, 2), ("auto",), (1e-2,))
#: K >= 2 counts as a gain when, on the choosing seeds, the mean of its accuracy minus the best
#: K = 1 setting's (paired by seed) is above GAIN and above GAIN_SE standard errors of it
GAIN = 0.01
GAIN_SE = 2.0
#: Iris's per-feature (min, max) as printed in scikit-learn's description of the data.
IRIS_RANGES = np.array([(4.3, 7.9), (2.0, 4.4), (1.0, 6.9), (0.1, 2.5)])
DEFAULTS = "defaults"


class Setting(NamedTuple):
    """One estimator setting: K, its assignment, the loss and the regularization."""

    components: int
    assignment: str | None
    loss: str
    lam: Any
    gamma: float

    def label(self) -> str:
        if self.loss == DEFAULTS:
            return "K = 1, defaults"
        where = "" if self.components == 1 else f", {self.assignment}"
        gamma = f", gamma = {self.gamma:g}" if self.loss == "pairwise" else ""
        return f"K = {self.components}{where}, {self.loss}, lam = {self.lam}{gamma}"

    def params(self) -> dict[str, Any]:
        if self.loss == DEFAULTS:
            return {"n_components": 1}
        params = {"n_components": self.components, "loss": self.loss, "lam": self.lam}
        if self.components > 1:
            params["component_assignment"] = self.assignment
        if self.loss == "pairwise":
            params["gamma"] = self.gamma
        return params


def settings(name: str, delta: float) -> list[Setting]:
    """The settings fitted on ``name`` at δ (the defaults first)."""
    components, lams, gammas = DIGITS_GRID if name == "digits" else (COMPONENTS, LAMS, GAMMAS)
    out = [Setting(1, None, DEFAULTS, "auto", 1e-2)]
    for loss in losses(delta):
        for k, lam, gamma in itertools.product(components, lams,
                                               gammas if loss == "pairwise" else gammas[:1]):
            for assignment in (None,) if k == 1 else ASSIGNMENTS:
                out.append(Setting(k, assignment, loss, lam, gamma))
    return out


def losses(delta: float) -> tuple[str, ...]:
    """The objective losses fitted at δ: the pairwise template is pure ε only."""
    return ("pairwise", "softmax") if delta == 0 else ("softmax",)


def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    """(X, y) with rows of norm <= 1 by the public map of the module's docstring."""
    if name == "iris":
        X, y = load_iris(return_X_y=True)
        lo, hi = IRIS_RANGES[:, 0], IRIS_RANGES[:, 1]
        half = (np.clip(X, lo, hi) - lo) / (hi - lo) - 0.5  # in [−1/2, 1/2]
        return half / (np.sqrt(X.shape[1]) / 2), y
    X, y = load_sklearn(name)
    return X, np.asarray(y)


def _score(params: dict[str, Any], split: tuple[np.ndarray, ...], classes: np.ndarray) -> float:
    Xtr, Xte, ytr, yte = split
    try:
        return dp.PrivateLargeMarginGaussian(classes=classes, **params).fit(Xtr, ytr).score(Xte, yte)
    except SolverError:  # counted in the notes
        return float("nan")


def fit_split(job: tuple[str, int, bool]) -> tuple[str, int, dict[Any, float]]:
    """Every setting on one split of ``name``: accuracies keyed (setting, δ, ε or "none")."""
    name, seed, quick = job
    X, y = load(name)
    classes = np.unique(y)
    split = tuple(train_test_split(X, y, test_size=0.3, stratify=y, random_state=seed))
    ytr, yte = split[2], split[3]
    values, counts = np.unique(ytr, return_counts=True)
    out: dict[Any, float] = {"majority": float(np.mean(yte == values[np.argmax(counts)]))}
    epsilons = EPSILONS[1:2] if quick else EPSILONS
    plain: dict[Setting, float] = {}  # the non-private fit does not depend on δ
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the noise warnings of these small sets
        for delta in DELTAS:
            for s in grid(name, delta, quick):
                if s not in plain:
                    plain[s] = _score({**s.params(), "mechanism": "none"}, split, classes)
                out[(s, delta, "none")] = plain[s]
                for eps in epsilons:
                    private = {**s.params(), "epsilon": eps, "random_state": seed,
                               "delta": delta if delta > 0 else None}
                    out[(s, delta, eps)] = _score(private, split, classes)
    return name, seed, out


def grid(name: str, delta: float, quick: bool) -> list[Setting]:
    """:func:`settings`, or in quick mode K <= 2 at lam="auto" and the default gamma."""
    full = settings(name, delta)
    if not quick:
        return full
    return [s for s in full if s.components <= 2 and s.lam == "auto" and s.gamma == GAMMAS[0]]


def _mean(results: dict[int, dict[Any, float]], seeds: tuple[int, ...], key: Any) -> float:
    return float(np.nanmean([results[s][key] for s in seeds]))


def _values(results: dict[int, dict[Any, float]], seeds: tuple[int, ...], key: Any) -> list[float]:
    return [results[s][key] for s in seeds]


def per_setting_table(name: str, delta: float, results: dict[int, dict[Any, float]],
                      seeds: tuple[int, ...], epsilons: tuple[float, ...],
                      quick: bool) -> harness.Table:
    """Every setting's accuracy on the reporting seeds, with its own non-private fit."""
    table = harness.Table(
        f"{name}, δ = {delta:g}: test accuracy, reporting seeds {seeds[0]}..{seeds[-1]}",
        ["setting", *[f"ε = {e:g}" for e in epsilons], "same setting, mechanism='none'"])
    for s in grid(name, delta, quick):
        table.add(s.label(), *[_values(results, seeds, (s, delta, e)) for e in epsilons],
                  _values(results, seeds, (s, delta, "none")))
    defaults = Setting(1, None, DEFAULTS, "auto", 1e-2)
    plain = _values(results, seeds, (defaults, delta, "none"))
    table.add(f"{harness.NON_PRIVATE} (defaults, mechanism='none')", *[plain] * len(epsilons), plain)
    majority = _values(results, seeds, "majority")
    table.add(harness.MAJORITY, *[majority] * len(epsilons), majority)
    return table


class Cell(NamedTuple):
    """One (data set, δ, ε): the best K = 1 and K >= 2 settings on the choosing seeds."""

    name: str
    delta: float
    epsilon: float
    single: Setting
    mixture: Setting
    gain: float  # mean over the choosing seeds of (mixture − single) accuracy
    gain_se: float  # its standard error (paired by seed)

    def is_gain(self) -> bool:
        """Above :data:`GAIN` and above :data:`GAIN_SE` standard errors."""
        return self.gain > GAIN and self.gain > GAIN_SE * self.gain_se

    def line(self) -> str:
        return (f"{self.name}, δ = {self.delta:g}, ε = {self.epsilon:g}: {self.mixture.label()} "
                f"against {self.single.label()}: {self.gain:+.3f} ± {self.gain_se:.3f}")


def best(results: dict[int, dict[Any, float]], seeds: tuple[int, ...], candidates: list[Setting],
         delta: float, eps: float) -> Setting:
    """The candidate with the best mean accuracy on ``seeds`` at (δ, ε)."""
    means = [_mean(results, seeds, (s, delta, eps)) for s in candidates]
    return candidates[int(np.nanargmax(means))]


def choose_cell(name: str, results: dict[int, dict[Any, float]], choose: tuple[int, ...],
                candidates: list[Setting], delta: float, eps: float) -> Cell:
    """The best K = 1 and K >= 2 settings on the choosing seeds, and the paired gain there."""
    single = best(results, choose, [s for s in candidates if s.components == 1], delta, eps)
    mixture = best(results, choose, [s for s in candidates if s.components > 1], delta, eps)
    diff = np.array(_values(results, choose, (mixture, delta, eps))) - np.array(
        _values(results, choose, (single, delta, eps)))
    se = float(np.nanstd(diff, ddof=1) / np.sqrt(diff.size)) if diff.size > 1 else float("nan")
    return Cell(name, delta, eps, single, mixture, float(np.nanmean(diff)), se)


def summary_table(name: str, results: dict[int, dict[Any, float]], choose: tuple[int, ...],
                  report: tuple[int, ...], epsilons: tuple[float, ...],
                  quick: bool) -> tuple[harness.Table, list[Cell]]:
    """K = 1 against K >= 2, each the best on the choosing seeds, shown on the reporting seeds."""
    table = harness.Table(
        f"{name}: K = 1 against K >= 2, each the setting best on the choosing seeds "
        f"{choose[0]}..{choose[-1]}, accuracy on the reporting seeds {report[0]}..{report[-1]}",
        ["δ", "row", *[f"ε = {e:g}" for e in epsilons]])
    cells = []
    for delta in DELTAS:
        candidates = grid(name, delta, quick)
        found = [choose_cell(name, results, choose, candidates, delta, e) for e in epsilons]
        rows = {"K = 1, defaults": [_values(results, report, (candidates[0], delta, e))
                                    for e in epsilons],
                "K = 1, best": [_values(results, report, (c.single, delta, c.epsilon))
                                for c in found],
                "K >= 2, best": [_values(results, report, (c.mixture, delta, c.epsilon))
                                 for c in found],
                "gain of K >= 2 on the choosing seeds (± s.e.)": [
                    f"{c.gain:+.3f} ± {c.gain_se:.3f}" for c in found]}
        for label, row in rows.items():
            table.add(f"{delta:g}", label, *row)
        cells += found
    defaults = grid(name, 0.0, quick)[0]
    plain = _values(results, report, (defaults, 0.0, "none"))
    table.add("-", f"{harness.NON_PRIVATE} (defaults, mechanism='none')", *[plain] * len(epsilons))
    majority = _values(results, report, "majority")
    table.add("-", harness.MAJORITY, *[majority] * len(epsilons))
    table.notes += [c.line() for c in cells]
    return table, cells


def regularization_table(names: list[str], results: dict[str, dict[int, dict[Any, float]]],
                         choose: tuple[int, ...], epsilons: tuple[float, ...], delta: float,
                         loss: str, quick: bool) -> harness.Table:
    """Mean accuracy of each (lam, gamma) of the ``loss`` settings on the choosing seeds at δ,
    over the data sets with the full grid, the assignments, K >= 2 (or K = 1) and ε."""
    full = [n for n in names if n != "digits"]
    table = harness.Table(
        f"{loss}, δ = {delta:g}: mean accuracy by lam and gamma on the choosing seeds "
        f"{choose[0]}..{choose[-1]} (the mean over {', '.join(full)}, K, the assignments and ε)",
        ["lam", "gamma", "K >= 2", f"K = 1, {loss}", "K >= 2, mechanism='none'",
         f"K = 1, {loss}, mechanism='none'"])
    objective = [(n, s) for n in full for s in grid(n, delta, quick) if s.loss == loss]
    for lam, gamma in sorted({(s.lam, s.gamma) for _, s in objective}, key=str):
        def mean_of(mixture: bool, at: tuple[Any, ...], lam: Any = lam, gamma: float = gamma) -> float:
            return float(np.nanmean([
                results[n][seed][(s, delta, e)] for n, s in objective
                if (s.lam, s.gamma) == (lam, gamma) and (s.components > 1) == mixture
                for e in at for seed in choose]))
        table.add(str(lam), f"{gamma:g}" if loss == "pairwise" else "-",
                  mean_of(True, epsilons), mean_of(False, epsilons),
                  mean_of(True, ("none",)), mean_of(False, ("none",)))
    defaults = Setting(1, None, DEFAULTS, "auto", 1e-2)
    plain = float(np.mean([results[n][seed][(defaults, delta, "none")]
                           for n in full for seed in choose]))
    majority = float(np.mean([results[n][seed]["majority"] for n in full for seed in choose]))
    table.add(f"{harness.NON_PRIVATE} (defaults)", "-", *[plain] * 4)
    table.add(harness.MAJORITY, "-", *[majority] * 4)
    return table


def main() -> None:
    ap = harness.parser(__doc__)
    ap.add_argument("--procs", type=int, default=1, help="processes over (data set, seed)")
    ap.add_argument("--sets", default=",".join(SETS), help=f"data sets (default {','.join(SETS)})")
    args = ap.parse_args()
    names = args.sets.split(",")
    choose, report, epsilons = CHOOSING_SEEDS, REPORTING_SEEDS, EPSILONS
    if args.quick:  # a smoke run: wine, one seed each, ε = 1, K <= 2
        names, choose, report, epsilons = ["wine"], CHOOSING_SEEDS[:1], REPORTING_SEEDS[:1], (1.0,)
    jobs = [(n, s, args.quick) for n in names for s in (*choose, *report)]
    results: dict[str, dict[int, dict[Any, float]]] = {n: {} for n in names}
    t0 = time.time()
    with harness.Run(__file__, args) as run:
        run.note(f"choosing seeds {choose[0]}..{choose[-1]}, reporting seeds "
                 f"{report[0]}..{report[-1]} (split seed = noise seed); {args.procs} process(es)")
        with mp.get_context("fork").Pool(max(1, args.procs)) as pool:
            for i, (name, seed, out) in enumerate(pool.imap_unordered(fit_split, jobs), 1):
                results[name][seed] = out
                print(f"{i}/{len(jobs)} splits, {time.time() - t0:.0f} s", file=sys.stderr,
                      flush=True)
        failed = sum(np.isnan(v) for r in results.values() for o in r.values() for v in o.values())
        run.note(f"{len(jobs)} splits fitted in {time.time() - t0:.0f} s; failed solves "
                 f"(SolverError, left out of the means): {failed}")
        cells = []
        for name in names:
            for delta in DELTAS:
                run.table(per_setting_table(name, delta, results[name], report, epsilons, args.quick))
            table, found = summary_table(name, results[name], choose, report, epsilons, args.quick)
            run.table(table)
            cells += found
        if any(n != "digits" for n in names):
            for delta in DELTAS:
                for loss in losses(delta):
                    run.table(regularization_table(names, results, choose, epsilons, delta, loss,
                                                   args.quick))
        above = [c for c in cells if c.gain > GAIN]
        gains = [c for c in cells if c.is_gain()]
        run.note(f"Gain of K >= 2 (the mean over the choosing seeds of its accuracy minus the "
                 f"best K = 1 setting's above {GAIN:g} and above {GAIN_SE:g} paired standard "
                 f"errors): {len(gains)} of {len(cells)} (data set, δ, ε) cells"
                 + "".join(f"\n  {c.line()}" for c in gains)
                 + f"\nMean above {GAIN:g} alone: {len(above)} cells"
                 + "".join(f"\n  {c.line()}" for c in above))
        run.data["cells"] = [{**c._asdict(), "single": c.single.label(),
                              "mixture": c.mixture.label(), "is_gain": c.is_gain()} for c in cells]


if __name__ == "__main__":
    main()
