"""The regression guide's table and plot, from a ``corpus_run.py --task regression`` output.

Question: per table of the regression corpus, what test R² does the front door
(``dpconvex.PrivateRegressor``, the ``front_door`` learner of ``corpus_run.py``) reach at each
ε, with δ = 0 and δ = 1/n², next to the non-private fits, the training mean (a constant
prediction) and diffprivlib where the run measured it? This script fits nothing: it reads
the ``<out>/corpus_run-regression.json`` that ``corpus_run.py`` writes (its ``data.cells``,
the mean ± standard error of every learner over the seeds per table × ε × δ, and
``data.splits``, the training rows of each table) and prints

* the guide's markdown table: a row per table with its training rows, the front door's R²
  at each ε (a cell "δ = 0 / δ = 1/n²" when the run has both), diffprivlib's
  ``LinearRegression`` (pure ε) at each ε when present, the non-private scikit-learn
  ``Ridge()`` and ``HuberRegressor``, and the training mean; a last row the median over the
  tables;
* a summary table of the medians over the tables (a :class:`harness.Table` of kind
  regression, with its non-private and constant-prediction rows), and how many tables the
  front door has above the training mean's R² at each (ε, δ);

and saves a plot, R² against ε: one small panel per table (``--layout tables``, the
default) or the median over the tables in one panel (``--layout median``), the front door
at each δ with ± standard-error bars, diffprivlib when present, and horizontal lines for the
non-private fits and the training mean. R² below ``--floor`` (default −0.25) is drawn at the
floor with a downward marker.

Run (from the repository root), after the corpus run it reads::

    python benchmarks/corpus_run.py --task regression --seeds report --diffprivlib
    python benchmarks/regression_guide_table.py [benchmarks/results/corpus_run-regression.json] \
        [--plot docs/img/regression_r2_vs_epsilon.png] [--layout tables|median] \
        [--learner front_door] [--floor -0.25] [--out DIR]

The first argument is the JSON file or its folder (default
``benchmarks/results/corpus_run-regression.json``); ``--learner`` the column of the corpus
run to show as the front door (default ``front_door``, else the run's rule).

``--quick`` without a results file: runs ``corpus_run.py --task regression --quick`` (two
tables, one seed, ε = 1, δ = 0, at most 800 rows each) into ``<out>/corpus_run-quick`` and
reads that: a smoke run of a few seconds, not a measurement.
"""

from __future__ import annotations

import json
import math
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import harness  # noqa: E402

#: the corpus run's output read by default
DEFAULT_RESULTS = harness.RESULTS / "corpus_run-regression.json"
#: corpus_run's keys: the front door, its baselines, diffprivlib's model
FRONT_DOOR, RIDGE, HUBER, MEAN = "front_door", "non-private", "non-private huber", "mean"
DIFFPRIVLIB = "diffprivlib:lr"
#: the baselines' columns and plot lines: (corpus_run key, label, line style)
BASELINES = ((RIDGE, "non-private Ridge", "--"), (HUBER, "non-private HuberRegressor", "-."),
             (MEAN, "training mean", ":"))
DELTA_LABELS = {"0": "δ = 0", "1/n2": "δ = 1/n²"}
#: R² margins against the training mean: not clearly below it, clearly above it
SLACK, CLEARLY = 0.005, 0.05


def parser() -> Any:
    ap = harness.parser(__doc__)
    ap.add_argument("results", nargs="?", type=Path, default=None,
                    help=f"corpus_run-regression.json or its folder (default {DEFAULT_RESULTS})")
    ap.add_argument("--plot", type=Path, default=None,
                    help="where to save the plot (default <out>/regression_guide_table[-quick].png)")
    ap.add_argument("--layout", choices=("tables", "median"), default="tables",
                    help="one panel per table (default) or the median over the tables")
    ap.add_argument("--learner", default=None,
                    help="the corpus run's column shown as the front door (default front_door)")
    ap.add_argument("--floor", type=float, default=-0.25,
                    help="R² below this is drawn at it (default -0.25)")
    return ap


# ---------------------------------------------------------------------------- reading
def results_file(path: Path | None) -> Path:
    """The JSON file a path names: the file itself, or the corpus run's file in a folder."""
    path = DEFAULT_RESULTS if path is None else Path(path)
    if path.is_dir():
        for name in ("corpus_run-regression.json", "corpus_run-regression-quick.json"):
            if (path / name).is_file():
                return path / name
        raise FileNotFoundError(f"{path} holds no corpus_run-regression[-quick].json: run "
                                "python benchmarks/corpus_run.py --task regression --out "
                                f"{path} first")
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist: run python benchmarks/corpus_run.py "
                                "--task regression first (or pass its output)")
    return path


def quick_corpus(out: Path) -> Path:
    """Run ``corpus_run.py --task regression --quick`` into ``out`` and return its JSON file."""
    import corpus_run

    folder = out / "corpus_run-quick"
    corpus_run.main(["--task", "regression", "--quick", "--procs", "1", "--out", str(folder)])
    return folder / "corpus_run-regression-quick.json"


def load(path: Path) -> dict[str, Any]:
    """The corpus run's ``data`` (task, cells, splits, ...), checked to be a regression run."""
    data = json.loads(Path(path).read_text(encoding="utf-8")).get("data", {})
    if data.get("task") != "regression" or "cells" not in data:
        raise ValueError(f"{path} is not the output of corpus_run.py --task regression "
                         f"(task {data.get('task')!r})")
    return data


def stat(cell: dict[str, Any], key: str) -> tuple[float, float] | str | None:
    """(mean, se) of a learner in a cell, a refusal's text, or None (not measured)."""
    value = cell.get("stats", {}).get(key)
    if isinstance(value, list | tuple) and len(value) == 2 and value[0] is not None:
        return float(value[0]), float(value[1])
    return value if isinstance(value, str) else None


def mean_of(cell: dict[str, Any] | None, key: str) -> float | None:
    s = None if cell is None else stat(cell, key)
    return s[0] if isinstance(s, tuple) else None


class Corpus:
    """The cells of a corpus run, indexed by (table, ε, δ), with the tables' training rows."""

    def __init__(self, data: dict[str, Any], learner: str | None = None):
        self.cells = {(c["table"], float(c["epsilon"]), str(c["delta"])): c for c in data["cells"]}
        self.tables = list(dict.fromkeys(c["table"] for c in data["cells"]))
        self.epsilons = sorted({float(c["epsilon"]) for c in data["cells"]})
        self.deltas = list(dict.fromkeys(str(c["delta"]) for c in data["cells"]))
        self.n_train = {s["table"]: s["n_train"] for s in data.get("splits", [])
                        if "n_train" in s}
        self.seeds = list(data.get("seeds", []))
        present = {k for c in data["cells"] for k in c.get("stats", {})}
        self.learner = learner or (FRONT_DOOR if FRONT_DOOR in present else "rule")
        if self.learner not in present:
            raise KeyError(f"the corpus run has no column {self.learner!r}; it has "
                           f"{sorted(present)}")
        self.diffprivlib = DIFFPRIVLIB in present

    def cell(self, table: str, eps: float, delta: str) -> dict[str, Any] | None:
        return self.cells.get((table, eps, delta))

    def first(self, table: str) -> dict[str, Any]:
        """A cell of ``table`` (the baselines are the same in every cell of a table)."""
        return next(c for (t, _, _), c in self.cells.items() if t == table)

    def medians(self, key: str, eps: float | None = None, delta: str | None = None
                ) -> float | None:
        """The median over the tables of a learner's mean R² (a baseline: eps None)."""
        values = [mean_of(self.first(t) if eps is None else self.cell(t, eps, delta), key)
                  for t in self.tables]
        values = [v for v in values if v is not None]
        return statistics.median(values) if values else None


# ---------------------------------------------------------------------------- table
def r2(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:.3f}" if abs(value) < 1000 else f"{value:.3g}"


def shown(s: tuple[float, float] | str | None) -> str:
    if isinstance(s, tuple):
        return r2(s[0])
    return "refused" if isinstance(s, str) else "–"


def guide_table(corpus: Corpus) -> list[str]:
    """The guide's markdown table: a row per table, then the median over the tables."""
    deltas = " / ".join(DELTA_LABELS.get(d, f"δ = {d}") for d in corpus.deltas)
    head = ["table", "n train", *(f"front door ε = {e:g}" for e in corpus.epsilons)]
    if corpus.diffprivlib:
        head += [f"diffprivlib ε = {e:g}" for e in corpus.epsilons]
    head += [label for _, label, _ in BASELINES]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]

    def row(name: str, n: str, front: list[str], dpl: list[str], base: list[str]) -> None:
        lines.append("| " + " | ".join([name, n, *front, *(dpl if corpus.diffprivlib else []),
                                        *base]) + " |")

    for t in corpus.tables:
        front = [" / ".join(shown(stat(c, corpus.learner)) if (c := corpus.cell(t, e, d))
                            else "–" for d in corpus.deltas) for e in corpus.epsilons]
        dpl = [shown(stat(c, DIFFPRIVLIB)) if (c := corpus.cell(t, e, corpus.deltas[0])) else "–"
               for e in corpus.epsilons]
        base = [shown(stat(corpus.first(t), key)) for key, _, _ in BASELINES]
        row(t, str(corpus.n_train.get(t, "–")), front, dpl, base)
    row("**median over tables**", "",
        [" / ".join(r2(corpus.medians(corpus.learner, e, d)) for d in corpus.deltas)
         for e in corpus.epsilons],
        [r2(corpus.medians(DIFFPRIVLIB, e, corpus.deltas[0])) for e in corpus.epsilons],
        [r2(corpus.medians(key)) for key, _, _ in BASELINES])
    seeds = (f"seeds {corpus.seeds[0]}..{corpus.seeds[-1]} ({len(corpus.seeds)})"
             if corpus.seeds else "the run's seeds")
    lines += ["", f"Test R², mean over {seeds}; front-door cells {deltas}"
              + (" (diffprivlib is pure ε)" if corpus.diffprivlib else "")
              + "; the non-private fits and the training mean read the labels."]
    return lines


def summary_table(corpus: Corpus) -> harness.Table:
    """Medians over the tables, and the tables where the front door beats the training mean."""
    n = len(corpus.tables)
    t = harness.Table(f"Regression corpus: median test R² over {n} tables",
                      ["learner", "median R²", f"tables not below the mean − {SLACK:g}",
                       f"tables above the mean + {CLEARLY:g}"], kind="regression")

    def counts(key: str, eps: float, delta: str) -> list[str]:
        gaps = [v - m for tb in corpus.tables
                if (v := mean_of(corpus.cell(tb, eps, delta), key)) is not None
                and (m := mean_of(corpus.first(tb), MEAN)) is not None]
        return [f"{sum(g >= -SLACK for g in gaps)} / {n}", f"{sum(g >= CLEARLY for g in gaps)} / {n}"]

    for e in corpus.epsilons:
        for d in corpus.deltas:
            t.add(f"front door ({corpus.learner}) ε = {e:g}, {DELTA_LABELS.get(d, d)}",
                  r2(corpus.medians(corpus.learner, e, d)), *counts(corpus.learner, e, d))
    if corpus.diffprivlib:
        for e in corpus.epsilons:
            t.add(f"diffprivlib LinearRegression ε = {e:g} (pure ε)",
                  r2(corpus.medians(DIFFPRIVLIB, e, corpus.deltas[0])),
                  *counts(DIFFPRIVLIB, e, corpus.deltas[0]))
    t.add(f"{harness.NON_PRIVATE} (scikit-learn Ridge)", r2(corpus.medians(RIDGE)), "", "")
    t.add(f"{harness.NON_PRIVATE} (scikit-learn HuberRegressor)", r2(corpus.medians(HUBER)), "", "")
    t.add(f"{harness.CONSTANT} (the training mean)", r2(corpus.medians(MEAN)), "", "")
    t.notes.append("Medians over the tables of the mean test R² over the seeds. A table counts "
                   f"as not below the mean when the learner's R² is at least the training mean's "
                   f"− {SLACK:g} (corpus_run.py's criterion (a)), as above it from + {CLEARLY:g}.")
    return t


# ---------------------------------------------------------------------------- plot
def _series(corpus: Corpus, table: str | None, key: str, delta: str
            ) -> tuple[list[float], list[float], list[float]]:
    """(ε, mean, se) of a learner on a table, or its medians over the tables (se 0)."""
    xs, ys, es = [], [], []
    for e in corpus.epsilons:
        if table is None:
            value, se = corpus.medians(key, e, delta), 0.0
        else:
            s = stat(corpus.cell(table, e, delta) or {}, key)
            value, se = (s if isinstance(s, tuple) else (None, 0.0))
        if value is not None and math.isfinite(value):
            xs.append(e)
            ys.append(value)
            es.append(se)
    return xs, ys, es


def _panel(ax: Any, corpus: Corpus, table: str | None, floor: float) -> None:
    markers = ("o", "s", "^", "D")
    drawn: list[float] = []
    for i, d in enumerate(corpus.deltas):
        xs, ys, es = _series(corpus, table, corpus.learner, d)
        xs = [x * 1.04 ** i for x in xs]  # the δ series side by side where they coincide
        low = [max(y, floor) for y in ys]
        drawn += low
        ax.errorbar(xs, low, yerr=es, marker=markers[i % len(markers)], capsize=2, lw=1.4,
                    ms=4, label=f"front door, {DELTA_LABELS.get(d, d)}")
        off = [(x, floor) for x, y in zip(xs, ys, strict=True) if y < floor]
        if off:
            ax.plot(*zip(*off, strict=True), "v", color="C3", ms=6)
    if corpus.diffprivlib:
        xs, ys, _ = _series(corpus, table, DIFFPRIVLIB, corpus.deltas[0])
        drawn += [max(y, floor) for y in ys]
        ax.plot(xs, [max(y, floor) for y in ys], "x-", color="0.45", lw=1,
                label="diffprivlib LinearRegression (pure ε)")
        off = [(x, floor) for x, y in zip(xs, ys, strict=True) if y < floor]
        if off:
            ax.plot(*zip(*off, strict=True), "v", color="0.45", ms=6)
    for key, label, style in BASELINES:
        value = corpus.medians(key) if table is None else mean_of(corpus.first(table), key)
        if value is not None:
            drawn.append(max(value, floor))
            ax.axhline(max(value, floor), ls=style, lw=1.1,
                       color="C3" if key == MEAN else "black", label=label)
    ax.set_xscale("log")
    ax.set_xticks(corpus.epsilons, [f"{e:g}" for e in corpus.epsilons])
    ax.minorticks_off()
    ax.set_ylim(bottom=min([*drawn, 0.0]) - 0.05)
    ax.grid(alpha=0.3)


def plot(corpus: Corpus, path: Path, layout: str, floor: float) -> Path:
    """Save R² against ε: a panel per table, or the median over the tables."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if layout == "median":
        fig, ax = plt.subplots(figsize=(6.0, 4.0))
        _panel(ax, corpus, None, floor)
        ax.set_title(f"Median test R² over {len(corpus.tables)} regression tables")
        ax.set_xlabel("ε")
        ax.set_ylabel("test R²")
        ax.legend(fontsize=8, loc="lower right")
    else:
        cols = min(6, len(corpus.tables))
        rows = math.ceil(len(corpus.tables) / cols)
        height = 2.3 * rows + 1.0
        fig, axes = plt.subplots(rows, cols, figsize=(2.6 * cols, height), squeeze=False,
                                 sharex=True)
        for ax, table in zip(axes.flat, corpus.tables, strict=False):
            _panel(ax, corpus, table, floor)
            ax.set_title(f"{table} (n = {corpus.n_train.get(table, '?')})", fontsize=8)
            ax.tick_params(labelsize=7)
        for ax in list(axes.flat)[len(corpus.tables):]:
            ax.axis("off")
        for ax in axes[-1]:
            ax.set_xlabel("ε", fontsize=8)
        for ax in axes[:, 0]:
            ax.set_ylabel("test R²", fontsize=8)
        handles, labels = axes.flat[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 4), fontsize=8)
        fig.suptitle("Test R² against ε on the regression corpus (mean ± se over the seeds; "
                     f"▼: below {floor:g})", fontsize=9)
        fig.tight_layout(rect=(0, 0.7 / height, 1, 1 - 0.3 / height))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


# ---------------------------------------------------------------------------- main
def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Read the corpus run, print the tables, save the plot; returns the run's data."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser().parse_args(argv)
    if args.quick and args.results is None:
        source = quick_corpus(args.out)
    else:
        source = results_file(args.results)
    corpus = Corpus(load(source), args.learner)
    name = "regression_guide_table" + ("-quick" if args.quick else "")
    with harness.Run(__file__, args, argv) as run:
        run.note(f"read {source}: {len(corpus.tables)} tables, ε {corpus.epsilons}, δ "
                 f"{corpus.deltas}, front door column {corpus.learner!r}, diffprivlib "
                 f"{'present' if corpus.diffprivlib else 'absent'}")
        run.note("\n## Measured on the regression corpus\n")
        for line in guide_table(corpus):
            run.note(line)
        run.table(summary_table(corpus))
        png = plot(corpus, args.plot or args.out / f"{name}.png", args.layout, args.floor)
        run.note(f"plot: {png}")
        run.data.update(source=str(source), plot=str(png), learner=corpus.learner,
                        tables=corpus.tables, epsilons=corpus.epsilons, deltas=corpus.deltas,
                        guide_table=guide_table(corpus))
    return run.data


if __name__ == "__main__":
    main()
