"""The held-out regression check: the front door against diffprivlib and the non-private fits.

Question: on five regression tables nobody chose anything on
(``corpus.REGRESSION_CHECK_TABLES``, ``benchmarks/corpus/regression_check.py``: chosen by a
rule written down before any candidate was read; its docstring gives the rule and every
candidate it skipped), at
ε ∈ {0.5, 1, 2} and δ ∈ {0, 1/n²}, on the check's own seeds ``corpus.CHECK_SEEDS``
(9500..9509, apart from the corpus's selection and report seeds), is
``dpconvex.PrivateRegressor`` at its defaults

(1) never clearly worse than a constant: test R² >= −0.005 (R² 0 is the test rows' own
    mean; the training mean's R², a constant fitted on the training rows, is shown beside
    it);
(2) at or above diffprivlib's ``LinearRegression`` − 0.005 in R²: on the pure-ε cells
    (δ = 0), and, counted apart, on the δ = 1/n² cells against diffprivlib at δ = 0 and
    the same ε (diffprivlib has no (ε, δ) form; a pure ε release is (ε, δ)-DP for every
    δ, so the comparison is at the same ε, the front door spending a δ diffprivlib does
    not);
(3) at ε >= 1 on the tables with >= 5,000 training rows (and a positive non-private R²),
    at >= 0.9 × the non-private R² (the better on the test rows of scikit-learn's
    ``Ridge()`` and ``HuberRegressor(max_iter=1000)``)?

Learners, per table × seed × ε × δ: ``PrivateRegressor(epsilon=ε, delta=δ,
label_range=table.learner_label_range, random_state=seed)`` and nothing else set; when the
installed dpconvex has no ``PrivateRegressor`` the script says so and scores
``PrivateLinearRegressor(loss="huber")`` with the same arguments in its place (so the
harness runs before the front door exists: not the check's result). Beside it, fitted
once per split: the non-private ``Ridge()`` and ``HuberRegressor``, the training mean, and
diffprivlib 0.6's ``LinearRegression(epsilon=ε, bounds_X, bounds_y=label_range,
random_state=seed)`` (pure ε; ``baselines/corpus_regression_diffprivlib.py`` in
``benchmarks/.venv``, or the interpreter ``--dpl-python`` names; skipped with the reason
when missing, or with ``--no-diffprivlib``).

The fits are ``corpus_run.py``'s (``--task regression --tables check --seeds check``):
``corpus.split`` rows (every encoded row of norm <= 1, a 70/30 split by the seed, which is
also the noise seed), test R² and MAE, the per-table tables and the per-cell summary, fits
cached in ``<out>/regression_check[-quick].jsonl`` by (dpconvex commit, table, seed, rows,
ε, δ, learner). This script adds the three counts above. ``--record`` (a full run only)
also writes ``benchmarks/recorded/regression_check.md``.

Run (from the repository root; 90 s on the shared 2-core machine with diffprivlib and the
Huber fallback in the front door's place, plus the front door's own fit time)::

    OMP_NUM_THREADS=1 DPCONVEX_DATA=/work/shared/datasets python benchmarks/regression_check.py \\
        --procs 1 [--dpl-python benchmarks/.venv/bin/python] [--record]

``--quick``: two check tables, the first seed, ε = 1, δ = 0, at most 800 training and 800
test rows (a smoke run, not the check). ``--tables`` and ``--n-seeds`` run a part (not
recordable).
"""

from __future__ import annotations

import os

if __name__ == "__main__":  # one BLAS thread per process, set before NumPy is imported
    for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_var] = "1"

import shutil  # noqa: E402
import sys  # noqa: E402
from collections.abc import Sequence  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import corpus  # noqa: E402
import corpus_run  # noqa: E402
import harness  # noqa: E402

RECORD = HERE / "recorded" / "regression_check.md"
EPSILONS = (0.5, 1.0, 2.0)
DELTAS = ("0", "1/n2")
#: the check's tables, and those of a --quick run: the first two of the check
CHECK_TABLES = corpus.REGRESSION_CHECK_TABLES
QUICK_TABLES = tuple(CHECK_TABLES)[:2]


def parser() -> Any:
    ap = harness.parser(__doc__)
    ap.add_argument("--tables", nargs="*", default=None,
                    help=f"check tables (default: all of {', '.join(CHECK_TABLES)})")
    ap.add_argument("--n-seeds", type=int, default=None, help="the first K check seeds only")
    ap.add_argument("--procs", type=int, default=1, help="processes over (table, seed)")
    ap.add_argument("--tag", default=None, help="cache key (default: the dpconvex commit)")
    ap.add_argument("--no-diffprivlib", action="store_true", help="leave diffprivlib out")
    ap.add_argument("--dpl-python", type=Path, default=None,
                    help=f"a Python with diffprivlib (default {corpus_run.VENV_PYTHON})")
    ap.add_argument("--record", action="store_true", help=f"also write {RECORD} (full run only)")
    return ap


def corpus_run_argv(args: Any) -> list[str]:
    """The ``corpus_run.py`` arguments of this check (its plan, parsed by corpus_run)."""
    learner = "front_door" if corpus_run.dpconvex_has(corpus_run.FRONT_DOOR_REGRESSOR) \
        else corpus_run.FALLBACK_REGRESSION_RULE
    tables = args.tables or (list(QUICK_TABLES) if args.quick else ["check"])
    argv = ["--task", "regression", "--tables", *tables, "--seeds", "check",
            "--epsilons", *map(str, EPSILONS), "--deltas", *DELTAS, "--learners", learner,
            "--rule", "front_door", "--procs", str(args.procs)]
    if args.n_seeds:
        argv += ["--n-seeds", str(args.n_seeds)]
    return argv + (["--quick"] if args.quick else [])


def _share(got: int, of: int) -> str:
    return f"{got} / {of}" + (f" = {100 * got / of:.0f}%" if of else "")


def check_counts(cells: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The check's three counts over per-cell R² means (``corpus_run.regression_cell_means``).

    ``floor``: cells whose rule R² >= −R2_SLACK, of the cells with a rule mean;
    ``diffprivlib_pure`` / ``diffprivlib_delta``: cells at or above diffprivlib − R2_SLACK,
    of the δ = 0 / δ > 0 cells with diffprivlib (its δ = 0 fit at the same ε);
    ``non_private``: cells at >= NON_PRIVATE_RATIO × the non-private R², of the cells at
    ε >= RATIO_MIN_EPSILON with >= RATIO_MIN_ROWS training rows and a positive non-private R².
    """
    crit = corpus_run.regression_criteria(cells)
    pure = corpus_run.regression_criteria([c for c in cells if c["delta"] == "0"])
    delta = corpus_run.regression_criteria([c for c in cells if c["delta"] != "0"])
    scored = crit["cells"] - crit["no_rule"]
    return {"cells": crit["cells"], "no_rule": crit["no_rule"],
            "floor": (scored - crit["below_floor"], scored), "below_floor": crit["below_floor_cells"],
            "diffprivlib_pure": (pure["at_least_diffprivlib"], pure["with_diffprivlib"]),
            "diffprivlib_delta": (delta["at_least_diffprivlib"], delta["with_diffprivlib"]),
            "non_private": (crit["near_non_private"], crit["with_non_private"]),
            "below_ratio": crit["below_ratio_cells"]}


def count_lines(counts: dict[str, Any], cells: Sequence[dict[str, Any]], rule: str,
                dpl_where: str, dpl_ran: bool) -> list[str]:
    """The three counts as markdown lines, with the training mean's R² per table (``dpl_ran``:
    diffprivlib was run, ``dpl_where`` says where or why not)."""
    slack, ratio = corpus_run.R2_SLACK, corpus_run.NON_PRIVATE_RATIO
    means = {c["table"]: c["mean"] for c in cells if c["mean"] is not None}
    no_dpl = "no such cell" if dpl_ran else f"not measured ({dpl_where})"
    lines = ["## The check's counts", "",
             f"Rule column: `{rule}`. Cells: {counts['cells']} ({counts['no_rule']} without a rule "
             "mean: refused or missing).", "",
             f"1. R² >= −{slack:g} (never clearly worse than a constant): {_share(*counts['floor'])}"
             + (f"; below: {counts['below_floor']}" if counts["below_floor"] else "") + ". The "
             "training mean's test R² per table: "
             + ", ".join(f"{t} {corpus_run._r2(m)}" for t, m in means.items()) + ".",
             f"2. R² >= diffprivlib LinearRegression's − {slack:g}: pure ε cells (δ = 0) "
             + (_share(*counts["diffprivlib_pure"]) if counts["diffprivlib_pure"][1] else no_dpl)
             + "; δ = 1/n² cells against diffprivlib at δ = 0 and the same ε (it has no δ form) "
             + (_share(*counts["diffprivlib_delta"]) if counts["diffprivlib_delta"][1] else no_dpl)
             + ".",
             f"3. R² >= {ratio:g} × non-private at ε >= {corpus_run.RATIO_MIN_EPSILON:g} on tables "
             f"with >= {corpus_run.RATIO_MIN_ROWS:,} training rows (non-private R² > 0): "
             f"{_share(*counts['non_private'])}"
             + (f"; below: {counts['below_ratio']}" if counts["below_ratio"] else "") + "."]
    return lines


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Run the check (arguments as on the command line); returns the run's data."""
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = parser()
    args = ap.parse_args(argv)
    partial = bool(args.tables or args.n_seeds)
    if args.record and (args.quick or partial):
        ap.error("--record writes the full check only (no --quick, --tables or --n-seeds)")
    if args.record and not corpus_run.dpconvex_has(corpus_run.FRONT_DOOR_REGRESSOR):
        ap.error(f"--record: dpconvex has no {corpus_run.FRONT_DOOR_REGRESSOR}; the check is its")
    unknown = sorted(set(args.tables or ()) - set(CHECK_TABLES))
    if unknown:
        ap.error(f"unknown check tables {unknown}; the check has {list(CHECK_TABLES)}")
    if args.dpl_python is not None:
        corpus_run.VENV_PYTHON = args.dpl_python
    cr_ap = corpus_run.parser()
    cr_args = cr_ap.parse_args(corpus_run_argv(args))
    plan = corpus_run.plan_of(cr_ap, cr_args)
    tag = args.tag or corpus_run.default_tag()
    name = "regression_check" + ("-quick" if args.quick else "")
    cache = Path(args.out) / f"{name}.jsonl"
    cache.parent.mkdir(parents=True, exist_ok=True)
    with harness.Run(__file__, args, argv) as run:
        dpl_python, dpl_where = ((None, "left out (--no-diffprivlib)") if args.no_diffprivlib
                                 else corpus_run.diffprivlib_python())
        for note in plan.notes:
            run.note(f"NOT THE CHECK'S RESULT: {note}")
        run.note(f"tag {tag}; tables {plan.tables}; seeds {plan.seeds}; ε {plan.epsilons}; "
                 f"δ {plan.deltas}; rule {plan.rule}; diffprivlib: {dpl_where}; procs {args.procs}")
        infos = corpus_run._fit_all(run, plan, cr_args, cache, tag, dpl_python)
        failed = sorted({t for (t, _), v in infos.items() if "error" in v})
        if failed:
            raise RuntimeError(f"check tables {failed} failed to split: "
                               f"{[v['error'] for v in infos.values() if 'error' in v]}")
        shown = [*plan.learners, *(["diffprivlib"] if dpl_python else [])]
        corpus_run._score_regression(run, plan, corpus_run.read_cache(cache, tag), infos, shown,
                                     dpl_where)
        counts = check_counts(run.data["cells"])
        for line in ["", *count_lines(counts, run.data["cells"], plan.rule, dpl_where,
                                        dpl_python is not None)]:
            run.note(line)
        run.data.update(check=counts, tag=tag, tables=plan.tables, seeds=plan.seeds,
                        rule=plan.rule, splits=list(infos.values()))
    if args.record:
        shutil.copyfile(Path(args.out) / f"{name}.md", RECORD)
        print(f"recorded {RECORD}")
    return run.data


if __name__ == "__main__":
    main()
