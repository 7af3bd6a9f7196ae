"""Private bounds on the corpus: the front door on a privately drafted schema, at one total ε.

Question: on the corpus tables with at least :data:`MIN_ROWS` rows (``corpus.tables(task)``
for classification and regression; the held-out check tables are not among them), what
does it cost to release the bounds privately instead of writing them from documentation?
For each table × seed × total ε (δ = 0):

(A) **hand-written schema**: the front door (``PrivateClassifier(epsilon=ε, classes=...)``
    or ``PrivateRegressor(epsilon=ε, label_range=table.learner_label_range)``) on the rows
    ``PublicEncoder(table.schema)`` encodes, as ``corpus.split`` and ``corpus_run.py`` do;
(B) **drafted schema**: one ``BudgetAccountant(epsilon=ε)`` is charged with everything.
    ``draft_schema(train_df, epsilon=share·ε, declared=..., accountant=ledger,
    random_state=seed)`` releases every numeric column's range (``declared`` gives the
    hand-written schema's categorical and binary columns, whose vocabularies are documented
    public knowledge, and the columns it leaves out); the front door is then fitted on the
    table with ``schema=`` the drafted schema, ``accountant=ledger`` and the ε the ledger has
    left ((1 − share)·ε; all of ε on a table whose every column is declared, where the draft
    releases nothing and spends nothing). A regressor also releases its label range inside
    the fit, ``label_range=PrivateBounds(share=s_l)`` with s_l = share·ε / (its ε), so the
    label costs share·ε too: schema + label + model = ε. Every fit checks that the ledger
    spent at most ε and that the model's certificate states at most ε.

Both fits see the same split (``train_test_split(test_size=corpus.TEST_SIZE, stratify=y
for classification, random_state=seed)``, as ``corpus.split``) and the same seed as
``random_state``. Scores: test accuracy (classification) or test R² (regression, on the
labels ``corpus.frame`` gives: the documented clip to ``label_range`` moves no label of
these tables, so B's labels are the raw ones through the public ``label_transform``); the
cost of a cell (table × ε) is mean(A) − mean(B) over the seeds. Baselines of every table:
non-private (scikit-learn ``LogisticRegression(max_iter=2000)`` / ``Ridge()`` on A's rows)
and the majority class / the training mean (a constant prediction).

Targets (cells at ε >= 1): cost <= 1 point of accuracy, or <= 0.02 of R². Printed: every
table's rows, the cost by ε (mean, median and worst over the tables), the cells missing
the target, and the coverage of every released range: the share of the column's training
values inside it (mean over the seeds) at each ε, and whether it was refined to the
quantile levels (0.01, 0.99), nominally 98 % of the values, or is the coarse range over
octaves (``schema.release.parts[k].quantities["refined"]``); a regressor's label range the
same (its refinement by the public rule ``refine_range(n, share·ε, levels)``).

The share: chosen on the selection seeds (``--seeds selection --shares 0.05 0.1 0.2``) by
the rule written here before the run: the share with the most cells meeting the targets
at ε >= 1 (both tasks), ties to the smaller mean cost at ε >= 1. The run prints what the
rule picks; :data:`SHARE` holds the choice, and the report seeds (``--seeds report``) run
with it only.

Run (from the repository root; about 3 minutes each on 2 cores)::

    OMP_NUM_THREADS=1 DPCONVEX_DATA=/work/shared/datasets python benchmarks/drafted_schema.py \\
        --seeds selection --shares 0.05 0.1 0.2 --procs 2 --record
    OMP_NUM_THREADS=1 DPCONVEX_DATA=/work/shared/datasets python benchmarks/drafted_schema.py \\
        --seeds report --procs 2 --record

``--record`` writes ``benchmarks/recorded/drafted_schema.md`` (report seeds) or
``recorded/drafted_schema_selection.md`` (selection seeds). ``--quick``: the first
classification and the first regression table, the first seed, ε = 1, at most 800 training
rows (a smoke run). ``--tables`` and ``--task`` run a part.
"""

from __future__ import annotations

import os

if __name__ == "__main__":  # one BLAS thread per process, set before NumPy is imported
    for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_var] = "1"

import multiprocessing as mp  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from collections.abc import Sequence  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import corpus  # noqa: E402
import corpus_run  # noqa: E402
import harness  # noqa: E402

RECORDED = HERE / "recorded"
#: the smallest table (rows of ``corpus.frame``) in the comparison
MIN_ROWS = 2000
EPSILONS = (0.5, 1.0, 2.0, 4.0)
#: the share of ε spent on the schema (and, for a regressor, as much again on the label
#: range), chosen on the selection seeds (recorded/drafted_schema_selection.md)
SHARE = 0.1
#: the quantile levels asked of every released range (the library's default)
LEVELS = (0.01, 0.99)
#: the targets at ε >= TARGET_MIN_EPSILON: the largest cost A − B that meets them
TARGETS = {"classification": 0.01, "regression": 0.02}
TARGET_MIN_EPSILON = 1.0
#: training rows kept by --quick (a seeded subsample)
QUICK_TRAIN_ROWS = 800
#: "trivial" cells: A and B both no better than the constant (majority class: to float
#: noise; the training mean: R² within this slack)
TOL, R2_SLACK = 1e-9, 0.005
TRIVIAL_TEXT = {"classification": "at the majority class's accuracy",
                "regression": f"within {R2_SLACK} R² of the constant prediction or below"}
CONSTANT_OF = {"classification": harness.MAJORITY, "regression": harness.CONSTANT}
HAND, DRAFTED = "hand-written schema (A)", "drafted schema (B)"


# ---------------------------------------------------------------------------- tables
def eligible(task: str) -> list[str]:
    """The corpus tables of ``task`` with at least :data:`MIN_ROWS` rows."""
    return [name for name in corpus.tables(task) if len(corpus.frame(name)[1]) >= MIN_ROWS]


def declared_of(schema: Any) -> dict[str, Any]:
    """The hand-written schema's public vocabulary knowledge: its categorical and binary
    declarations, and the columns it leaves out (None). Numeric ranges are not given."""
    import dpconvex as dp

    return {c: d for c, d in schema.declarations.items() if not isinstance(d, dp.Numeric)}


def split_frames(name: str, seed: int, quick: bool) -> tuple[Any, np.ndarray, Any, np.ndarray]:
    """The raw training and test rows of ``name`` for ``seed``: ``corpus.split``'s split."""
    from sklearn.model_selection import train_test_split

    t = corpus.table(name)
    X, y = corpus.frame(name)
    strata = y if t.task == "classification" else None
    tr, te = train_test_split(np.arange(len(y)), test_size=corpus.TEST_SIZE, stratify=strata,
                              random_state=seed)
    if quick and len(tr) > QUICK_TRAIN_ROWS:
        tr = np.sort(np.random.default_rng(seed).permutation(tr)[:QUICK_TRAIN_ROWS])
    return (X.iloc[tr].reset_index(drop=True), y[tr], X.iloc[te].reset_index(drop=True), y[te])


# ---------------------------------------------------------------------------- fits (worker)
def _score(task: str, y_true: np.ndarray, predicted: np.ndarray) -> float:
    from sklearn.metrics import accuracy_score, r2_score

    if task == "classification":
        return float(accuracy_score(y_true, predicted))
    return float(r2_score(y_true, predicted))


def _range_parts(schema: Any, released: list[str]) -> dict[str, bool]:
    """Column -> whether its released range was refined, read from the schema's certificate."""
    parts = schema.release.parts if schema.release is not None else []
    out = {}
    for column, part in zip(released, parts, strict=True):
        if repr(column) not in part.mechanism:
            raise AssertionError(f"part {part.mechanism!r} is not the range of {column!r}")
        out[column] = bool(part.quantities["refined"])
    return out


def _coverage(values: Any, lo: float, hi: float) -> float:
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    return float(np.mean((v >= lo) & (v <= hi))) if v.size else float("nan")


def _baselines(task: str, X_train: np.ndarray, y_train: np.ndarray, X_test: np.ndarray,
               y_test: np.ndarray) -> dict[str, float]:
    from sklearn.linear_model import LogisticRegression, Ridge

    if task == "classification":
        values, counts = np.unique(y_train, return_counts=True)
        constant = np.full(len(y_test), values[np.argmax(counts)])
        model = LogisticRegression(max_iter=2000)
        label = harness.MAJORITY
    else:
        constant = np.full(len(y_test), float(np.mean(y_train)))
        model = Ridge()
        label = harness.CONSTANT
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted = model.fit(X_train, y_train)
    return {harness.NON_PRIVATE: _score(task, y_test, fitted.predict(X_test)),
            label: _score(task, y_test, constant)}


def _front_door(task: str, name: str, epsilon: float, seed: int, **kw: Any) -> Any:
    import dpconvex as dp

    t = corpus.table(name)
    if task == "classification":
        return dp.PrivateClassifier(epsilon=epsilon, classes=list(range(len(t.class_names))),
                                    random_state=seed, **kw)
    return dp.PrivateRegressor(epsilon=epsilon, random_state=seed,
                               **{"label_range": t.learner_label_range, **kw})


def _drafted_fit(task: str, name: str, eps: float, share: float, seed: int, train: Any,
                 y_train: np.ndarray, test: Any, y_test: np.ndarray) -> dict[str, Any]:
    """B at total ``eps``: schema, (label range,) model, one ledger. Its score and bounds."""
    import dpconvex as dp
    from dpconvex.privacy.budget import remaining
    from dpconvex.privacy.rules.bounds import refine_range

    t = corpus.table(name)
    declared = declared_of(t.schema)
    released = [c for c in train.columns if c not in declared]
    ledger = dp.BudgetAccountant(epsilon=eps)
    schema = dp.draft_schema(train, epsilon=share * eps, declared=declared, levels=LEVELS,
                             accountant=ledger, random_state=seed)
    model_eps = remaining(eps, ledger.spent[0])
    kw: dict[str, Any] = {"schema": schema, "accountant": ledger}
    if task == "regression":
        kw["label_range"] = dp.PrivateBounds(share=share * eps / model_eps, levels=LEVELS)
    model = _front_door(task, name, model_eps, seed, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(train, y_train)
        score = _score(task, y_test, np.asarray(model.predict(test)))
    spent = ledger.spent[0]
    if spent > eps or model.certificate_.epsilon > eps * (1 + 1e-12):
        raise AssertionError(f"{name} seed {seed} ε {eps}: spent {spent}, certificate "
                             f"{model.certificate_.epsilon}: above the budget")
    refined = _range_parts(schema, [c for c in released if c in schema.numeric])
    ranges = {c: {"range": list(schema.numeric[c]), "refined": refined[c],
                  "log": c in schema.log_scaled,
                  "coverage": _coverage(train[c], *schema.numeric[c])}
              for c in released if c in schema.numeric}
    if task == "regression":
        lo, hi = model.label_range_
        ranges["(label)"] = {"range": [float(lo), float(hi)],
                             "refined": refine_range(len(y_train), share * eps, LEVELS).refine,
                             "log": False, "coverage": _coverage(y_train, lo, hi)}
    return {"score": score, "spent": spent, "certificate": model.certificate_.epsilon,
            "schema_epsilon": schema.release.epsilon, "model_epsilon": model_eps,
            "learner": getattr(model, "learner_", None), "ranges": ranges}


def run_job(job: dict[str, Any]) -> list[dict[str, Any]]:
    """Every fit of one (table, seed): the baselines, A at each ε, B at each ε and share."""
    from threadpoolctl import threadpool_limits

    import dpconvex as dp

    task, name, seed = job["task"], job["table"], job["seed"]
    t0 = time.perf_counter()
    with threadpool_limits(1):
        train, y_train, test, y_test = split_frames(name, seed, job["quick"])
        encoder = dp.PublicEncoder(corpus.table(name).schema)
        rows_train = np.asarray(encoder.fit_transform(train), dtype=float)
        rows_test = np.asarray(encoder.transform(test), dtype=float)
        base = {"task": task, "table": name, "seed": seed, "n_train": len(y_train)}
        out = [{**base, "kind": "baseline", "scores": _baselines(task, rows_train, y_train,
                                                                 rows_test, y_test)}]
        for eps in job["epsilons"]:
            model = _front_door(task, name, eps, seed)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model.fit(rows_train, y_train)
                out.append({**base, "kind": "A", "epsilon": eps,
                            "score": _score(task, y_test, np.asarray(model.predict(rows_test))),
                            "learner": getattr(model, "learner_", None)})
            except Exception as exc:  # a refusal is a result
                out.append({**base, "kind": "A", "epsilon": eps, "score": None,
                            "error": f"{type(exc).__name__}: {exc}"[:200]})
            for share in job["shares"]:
                try:
                    got = _drafted_fit(task, name, eps, share, seed, train, y_train, test, y_test)
                except AssertionError:
                    raise
                except Exception as exc:  # a refusal is a result
                    got = {"score": None, "error": f"{type(exc).__name__}: {exc}"[:200]}
                out.append({**base, "kind": "B", "epsilon": eps, "share": share, **got})
    out[0]["seconds"] = time.perf_counter() - t0
    return out


# ---------------------------------------------------------------------------- summaries
def _mean(values: Sequence[float | None]) -> float | None:
    v = [x for x in values if x is not None]
    return float(np.mean(v)) if v and len(v) == len(values) else None


def cells(records: list[dict[str, Any]], shares: Sequence[float]) -> list[dict[str, Any]]:
    """One cell per (task, table, ε, share): per-seed A and B, the means, the cost A − B."""
    out = []
    keys = sorted({(r["task"], r["table"]) for r in records}, key=lambda k: (k[0], k[1]))
    for task, name in keys:
        mine = [r for r in records if r["table"] == name]
        constant = float(np.mean([r["scores"][CONSTANT_OF[task]] for r in mine
                                  if r["kind"] == "baseline"]))
        for eps in sorted({r["epsilon"] for r in mine if r["kind"] == "A"}):
            a = [r["score"] for r in sorted(mine, key=lambda r: r["seed"])
                 if r["kind"] == "A" and r["epsilon"] == eps]
            for share in shares:
                b = [r["score"] for r in sorted(mine, key=lambda r: r["seed"])
                     if r["kind"] == "B" and r["epsilon"] == eps and r["share"] == share]
                ma, mb = _mean(a), _mean(b)
                cost = None if ma is None or mb is None else ma - mb
                out.append({"task": task, "table": name, "epsilon": eps, "share": share,
                            "A": a, "B": b, "mean_A": ma, "mean_B": mb, "cost": cost,
                            "trivial": cost is not None and max(ma, mb) <= constant + (
                                TOL if task == "classification" else R2_SLACK),
                            "meets": None if cost is None or eps < TARGET_MIN_EPSILON
                            else bool(cost <= TARGETS[task] + 1e-12)})
    return out


def selection(all_cells: list[dict[str, Any]], shares: Sequence[float]) -> list[dict[str, Any]]:
    """Per share: cells meeting the targets at ε >= 1 (both tasks), mean cost there."""
    out = []
    for share in shares:
        mine = [c for c in all_cells if c["share"] == share and c["epsilon"] >= TARGET_MIN_EPSILON]
        costs = [c["cost"] for c in mine if c["cost"] is not None]
        out.append({"share": share, "meets": sum(bool(c["meets"]) for c in mine),
                    "cells": len(mine), "mean_cost": float(np.mean(costs)) if costs else None,
                    "by_task": {task: (sum(bool(c["meets"]) for c in mine if c["task"] == task),
                                       sum(c["task"] == task for c in mine))
                                for task in corpus.TASKS}})
    return out


def chosen_share(rows: list[dict[str, Any]]) -> float:
    """The selection rule: most cells meeting the targets, ties to the smaller mean cost."""
    return min(rows, key=lambda r: (-r["meets"], r["mean_cost"] if r["mean_cost"] is not None
                                    else np.inf))["share"]


def _fmt(v: float | None, digits: int = 4) -> str:
    return "–" if v is None else f"{v:+.{digits}f}" if digits < 0 else f"{v:.{digits}f}"


def _cost(task: str, v: float | None) -> str:
    if v is None:
        return "–"
    return f"{100 * v:+.2f} pts" if task == "classification" else f"{v:+.4f}"


def table_rows(task: str, all_cells: list[dict[str, Any]], records: list[dict[str, Any]],
               epsilons: Sequence[float], shares: Sequence[float]) -> harness.Table:
    """Per corpus table: A, B (per share), the cost, the two baselines, one column per ε."""
    metric = "test accuracy" if task == "classification" else "test R²"
    kind = "accuracy" if task == "classification" else "regression"
    table = harness.Table(f"{task}: {metric}, hand-written (A) vs drafted (B) schema at one "
                          "total ε (mean ± std over the seeds)",
                          ["table", "training rows", "row", *[f"ε = {e:g}" for e in epsilons]],
                          kind=kind)
    by = {(c["table"], c["epsilon"], c["share"]): c for c in all_cells if c["task"] == task}
    for name in sorted({c["table"] for c in all_cells if c["task"] == task}):
        base = [r for r in records if r["table"] == name and r["kind"] == "baseline"]
        n = base[0]["n_train"]
        table.add(name, n, HAND, *[by[(name, e, shares[0])]["A"]
                                   if by[(name, e, shares[0])]["mean_A"] is not None else "refused"
                                   for e in epsilons])
        for share in shares:
            label = f"{DRAFTED}, share {share:g}" if len(shares) > 1 else DRAFTED
            table.add("", "", label, *[by[(name, e, share)]["B"]
                                       if by[(name, e, share)]["mean_B"] is not None else "refused"
                                       for e in epsilons])
            table.add("", "", f"cost A − B{f', share {share:g}' if len(shares) > 1 else ''}",
                      *[_cost(task, by[(name, e, share)]["cost"]) for e in epsilons])
        for label in base[0]["scores"]:
            per_seed = [r["scores"][label] for r in sorted(base, key=lambda r: r["seed"])]
            table.add("", "", label, *[per_seed] * len(epsilons))
    return table


def cost_table(all_cells: list[dict[str, Any]], records: list[dict[str, Any]],
               epsilons: Sequence[float], share: float) -> list[harness.Table]:
    """Per task, the cost by ε over the tables: mean, median, worst; cells meeting the target."""
    out = []
    for task in corpus.TASKS:
        mine = [c for c in all_cells if c["task"] == task and c["share"] == share]
        if not mine:
            continue
        unit = "points" if task == "classification" else "R²"
        scale = 100.0 if task == "classification" else 1.0
        kind = "accuracy" if task == "classification" else "regression"
        table = harness.Table(
            f"{task}: cost A − B by ε ({unit}; share {share:g}; over {len({c['table'] for c in mine})} "
            "tables, each the mean over the seeds)",
            ["row", "mean A", "mean B", "mean cost", "median cost", "worst cost (table)",
             f"cells meeting the target (≤ {scale * TARGETS[task]:g} {unit})"], kind=kind)
        for eps in epsilons:
            at = [c for c in mine if c["epsilon"] == eps and c["cost"] is not None]
            if not at:
                continue
            costs = np.array([c["cost"] for c in at]) * scale
            worst = max(at, key=lambda c: c["cost"])
            meets = sum(c["cost"] <= TARGETS[task] + 1e-12 for c in at)
            table.add(f"ε = {eps:g}", float(np.mean([c["mean_A"] for c in at])),
                      float(np.mean([c["mean_B"] for c in at])), f"{costs.mean():+.3f}",
                      f"{np.median(costs):+.3f}", f"{scale * worst['cost']:+.3f} ({worst['table']})",
                      f"{meets}/{len(at)}" + ("" if eps >= TARGET_MIN_EPSILON else " (no target)"))
        for label in (harness.NON_PRIVATE,
                      harness.MAJORITY if task == "classification" else harness.CONSTANT):
            base = [r["scores"][label] for r in records if r["kind"] == "baseline"
                    and r["task"] == task]
            table.add(f"{label} (mean over the tables)", float(np.mean(base)), "", "", "", "", "")
        out.append(table)
    return out


def coverage_lines(records: list[dict[str, Any]], epsilons: Sequence[float], share: float
                   ) -> list[str]:
    """Markdown: per released range, the share of training values inside it at each ε."""
    b = [r for r in records if r["kind"] == "B" and r["share"] == share and "ranges" in r]
    columns = sorted({(r["task"], r["table"], c) for r in b for c in r["ranges"]})
    lines = [f"### Coverage of the released ranges (share {share:g}, levels {LEVELS}: a refined "
             f"range holds {100 * (LEVELS[1] - LEVELS[0]):g} % of the values nominally)", "",
             "Share of the column's training values inside its released range, mean over the "
             "seeds; R k/S = refined to the levels in k of the S seeds (else the coarse range "
             "over octaves); log k/S = encoded on the log scale in k seeds; the hand-written "
             "range beside it; the released range of the first seed at ε = 1.", "",
             "| task | table | column | hand-written | released at ε = 1 (first seed) | "
             + " | ".join(f"ε = {e:g}" for e in epsilons) + " |",
             "|" + "---|" * (5 + len(epsilons))]
    summary: dict[tuple[bool, float], list[float]] = {}
    for task, name, column in columns:
        t = corpus.table(name)
        hand = (t.learner_label_range if column == "(label)"
                else t.schema.numeric.get(column))
        cells_ = []
        first = None
        for eps in epsilons:
            got = sorted((r for r in b if r["table"] == name and r["epsilon"] == eps
                          and column in r["ranges"]), key=lambda r: r["seed"])
            if not got:
                cells_.append("–")
                continue
            cov = [r["ranges"][column]["coverage"] for r in got]
            refined = sum(r["ranges"][column]["refined"] for r in got)
            logged = sum(r["ranges"][column]["log"] for r in got)
            if eps == 1.0:
                first = got[0]["ranges"][column]["range"]
            for r in got:
                summary.setdefault((r["ranges"][column]["refined"], eps), []).append(
                    r["ranges"][column]["coverage"])
            cells_.append(f"{100 * float(np.mean(cov)):.1f} %"
                          + (f" R {refined}/{len(got)}" if refined else "")
                          + (f" log {logged}/{len(got)}" if logged else ""))
        shown = "–" if first is None else f"[{first[0]:.4g}, {first[1]:.4g}]"
        hand_shown = "–" if hand is None else f"[{hand[0]:.4g}, {hand[1]:.4g}]"
        lines.append(f"| {task} | {name} | {column} | {hand_shown} | {shown} | "
                     + " | ".join(cells_) + " |")
    lines += ["", "Summary over every released range and seed (share of training values "
              "inside; mean / 10th percentile / minimum; count):", "",
              "| ε | refined ranges | coarse ranges |", "|---|---|---|"]
    for eps in epsilons:
        parts = []
        for refined in (True, False):
            v = np.array(summary.get((refined, eps), []))
            parts.append("–" if not v.size else
                         f"{100 * v.mean():.1f} % / {100 * np.quantile(v, 0.1):.1f} % / "
                         f"{100 * v.min():.1f} % (n = {v.size})")
        lines.append(f"| {eps:g} | {parts[0]} | {parts[1]} |")
    return lines


def target_lines(all_cells: list[dict[str, Any]], share: float) -> list[str]:
    """The cells at ε >= 1 meeting the targets, and every cell missing them."""
    lines = []
    for task in corpus.TASKS:
        mine = [c for c in all_cells if c["task"] == task and c["share"] == share
                and c["epsilon"] >= TARGET_MIN_EPSILON]
        if not mine:
            continue
        meets = [c for c in mine if c["meets"]]
        missing = [c for c in mine if not c["meets"]]
        trivial = sum(bool(c["trivial"]) for c in meets)
        lines.append(f"{task}: {len(meets)}/{len(mine)} cells (tables × ε >= "
                     f"{TARGET_MIN_EPSILON:g}) meet the target (cost <= "
                     f"{'1 point' if task == 'classification' else '0.02 R²'}), {trivial} of "
                     f"them with A and B both {TRIVIAL_TEXT[task]}; missing: "
                     + (", ".join(f"{c['table']} ε {c['epsilon']:g} ({_cost(task, c['cost'])})"
                                  for c in missing) if missing else "none") + ".")
    return lines


def budget_lines(records: list[dict[str, Any]]) -> list[str]:
    b = [r for r in records if r["kind"] == "B" and r.get("spent") is not None]
    if not b:
        return []
    ratio = max(r["spent"] / r["epsilon"] for r in b)
    refused = [r for r in records if r.get("score") is None and r["kind"] in ("A", "B")]
    return [f"One budget: every drafted fit charged schema (+ label) + model to one "
            f"BudgetAccountant(epsilon=ε): {len(b)} fits, largest spent/ε = {ratio:.12g}, "
            "every model certificate at most ε.",
            f"Refused fits: {len(refused)}" + (": " + "; ".join(
                f"{r['table']} seed {r['seed']} ε {r['epsilon']:g} {r['kind']}: {r['error']}"
                for r in refused[:10]) if refused else "") + "."]


# ---------------------------------------------------------------------------- main
def parser() -> Any:
    ap = harness.parser(__doc__)
    ap.add_argument("--seeds", choices=("selection", "report"), default="selection",
                    help="corpus.SELECTION_SEEDS (choose the share) or REPORT_SEEDS (report)")
    ap.add_argument("--n-seeds", type=int, default=None, help="the first K seeds only")
    ap.add_argument("--epsilons", nargs="*", type=float, default=list(EPSILONS))
    ap.add_argument("--shares", nargs="*", type=float, default=None,
                    help=f"shares of ε spent on the schema (default {SHARE}, the chosen one)")
    ap.add_argument("--task", choices=corpus.TASKS, default=None, help="one task only")
    ap.add_argument("--tables", nargs="*", default=None, help="these tables only")
    ap.add_argument("--procs", type=int, default=1, help="processes over (table, seed)")
    ap.add_argument("--record", action="store_true",
                    help="also write benchmarks/recorded/drafted_schema[_selection].md")
    return ap


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Run the comparison (arguments as on the command line); returns the run's data."""
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = parser()
    args = ap.parse_args(argv)
    shares = list(args.shares or [SHARE])
    if any(not 0 < s < 0.5 for s in shares):
        ap.error("--shares must lie in (0, 0.5): a regressor spends the share twice")
    seeds = list(corpus.SELECTION_SEEDS if args.seeds == "selection" else corpus.REPORT_SEEDS)
    tasks = [args.task] if args.task else list(corpus.TASKS)
    tables = [(task, name) for task in tasks for name in eligible(task)]
    epsilons = list(args.epsilons)
    if args.tables:
        unknown = sorted(set(args.tables) - {n for _, n in tables})
        if unknown:
            ap.error(f"not corpus tables with >= {MIN_ROWS} rows: {unknown}")
        tables = [(task, n) for task, n in tables if n in args.tables]
    if args.quick:
        tables = [next((task, n) for task, n in tables if task == k) for k in tasks]
        seeds, epsilons = seeds[:1], [1.0]
    if args.n_seeds:
        seeds = seeds[: args.n_seeds]
    if args.record and (args.quick or args.tables or args.task):
        ap.error("--record writes a whole run only (no --quick, --tables or --task)")
    jobs = [{"task": task, "table": name, "seed": s, "epsilons": epsilons, "shares": shares,
             "quick": args.quick} for task, name in tables for s in seeds]
    with harness.Run(__file__, args, argv) as run:
        run.note(f"dpconvex tag {corpus_run.default_tag()}; seeds {args.seeds} {seeds}; "
                 f"ε {epsilons}; shares {shares}; levels {LEVELS}; tables with >= {MIN_ROWS:,} "
                 f"rows: {len(tables)} ({', '.join(n for _, n in tables)}); procs {args.procs}")
        records: list[dict[str, Any]] = []
        if args.procs > 1 and len(jobs) > 1:
            with mp.get_context("fork").Pool(min(args.procs, len(jobs))) as pool:
                for got in pool.imap_unordered(run_job, jobs):
                    records.extend(got)
                    print(f"{got[0]['table']} seed {got[0]['seed']}: {got[0]['seconds']:.1f} s",
                          flush=True)
        else:
            for job in jobs:
                got = run_job(job)
                records.extend(got)
                print(f"{got[0]['table']} seed {got[0]['seed']}: {got[0]['seconds']:.1f} s",
                      flush=True)
        all_cells = cells(records, shares)
        if len(shares) > 1:
            picks = selection(all_cells, shares)
            run.note("Selection of the share (cells at ε >= 1 meeting the targets, both tasks; "
                     "mean cost over those cells, accuracy and R² added as they are):")
            for p in picks:
                by_task = "; ".join(f"{k} {m}/{n}" for k, (m, n) in p["by_task"].items() if n)
                run.note(f"  share {p['share']:g}: {p['meets']}/{p['cells']} ({by_task}); mean "
                         f"cost {_fmt(p['mean_cost'])}")
            run.note(f"the rule picks share {chosen_share(picks):g}")
            run.data["selection"] = picks
        for task in tasks:
            if any(c["task"] == task for c in all_cells):
                run.table(table_rows(task, all_cells, records, epsilons, shares))
        for share in shares:
            for table in cost_table(all_cells, records, epsilons, share):
                run.table(table)
            for line in ["", *target_lines(all_cells, share), "",
                         *coverage_lines(records, epsilons, share), ""]:
                run.note(line)
        for line in budget_lines(records):
            run.note(line)
        run.data.update(cells=all_cells, records=records, seeds=seeds, shares=shares,
                        epsilons=epsilons, tables=[n for _, n in tables])
    if args.record:
        name = "drafted_schema" + ("_selection" if args.seeds == "selection" else "")
        shutil.copyfile(Path(args.out) / "drafted_schema.md", RECORDED / f"{name}.md")
        print(f"recorded {RECORDED / name}.md")
    return run.data


if __name__ == "__main__":
    main()
