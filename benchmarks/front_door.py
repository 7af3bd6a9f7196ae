"""The front door against every single estimator, the defaults of 0.2.0, non-private and majority.

Question: does ``dpconvex.PrivateClassifier(epsilon, delta, classes)`` (the learner chosen from
(n, C, d, ε, δ) only) come within 1 point of the best single estimator chosen *on the test
set*, and never fall below the majority class where non-private logistic regression beats
it by >= 3 points?

Data, splits and seeds: ``benchmarks/front_door_data.py`` (seeds 8100..8109, used nowhere
else; no rule or threshold was chosen on them). δ ∈ {0, 1/n²} (n the training rows).

Sides (``--side``):

* ``current`` (default): the front door and the single estimators at their defaults with
  only ε, δ and ``classes`` set: ``PrivateLogisticRegression``, ``PrivateHuberSVM``,
  ``PrivateGaussianCentroid``, ``PrivateLargeMarginGaussian`` (all "auto"), the
  large-margin softmax objective without its centroid switch (``mechanism`` named), and
  ``NoisyGradientDescent`` (δ > 0 only); plus non-private scikit-learn
  ``LogisticRegression`` and the majority class of the training labels;
* ``v0.2.0``: what a user got from the README's estimators at 0.2.0 (``PYTHONPATH`` set to
  a clean export of that commit): ``PrivateLogisticRegression(epsilon, delta)`` for two
  classes, ``PrivateLargeMarginGaussian(epsilon, delta)`` for more. A refusal is recorded
  as such (0.2.0 refused δ > 0 without a named Gaussian mechanism).

Usage (from the repository root)::

    DPCONVEX_DATA=/work/shared/datasets OMP_NUM_THREADS=1 python benchmarks/front_door.py \
        [--only NAME ...] [--seeds K]
    git archive 195581e | tar -x -C /tmp/v020 && DPCONVEX_DATA=... PYTHONPATH=/tmp/v020 \
        python benchmarks/front_door.py --side v0.2.0
    python benchmarks/front_door.py --report     # benchmarks/recorded/front_door.md
    python benchmarks/front_door.py --check      # the front door refitted against the record

``--check`` refits ``PrivateClassifier`` at its defaults on every data set and seed and
compares each accuracy and learner with ``benchmarks/recorded/front_door.jsonl`` (the record
behind the README's and the results page's tables): the largest difference and every cell
that moved are printed.

Results are appended to ``front_door.jsonl`` in the ``--out`` folder (default
``benchmarks/results/``; one line per fit; a rerun skips what is there; ``--report`` reads
that file) and the report adds diffprivlib 0.6.6 from
``benchmarks/recorded/front_door_baselines.json`` (``benchmarks/baselines/``).
"""

from __future__ import annotations

import json
import math
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import front_door_data as fdd  # noqa: E402
import harness  # noqa: E402

RESULTS = HERE / "results" / "front_door.jsonl"
REPORT = HERE / "recorded" / "front_door.md"
BASELINES = HERE / "recorded" / "front_door_baselines.json"


def _deltas(n: int) -> tuple[float, float]:
    return 0.0, 1.0 / float(n) ** 2


def _current(C: int, eps: float, delta: float, classes: list[int], seed: int) -> dict[str, Any]:
    import dpconvex as dp

    kw = {"epsilon": eps, "classes": classes, "random_state": seed}
    out = {
        "front door": dp.PrivateClassifier(delta=delta, **kw),
        "logistic regression": dp.PrivateLogisticRegression(delta=delta, **kw),
        "Huber SVM": dp.PrivateHuberSVM(delta=delta, **kw),
        "class centroids": dp.PrivateGaussianCentroid(delta=delta, **kw),
        "large margin (auto)": dp.PrivateLargeMarginGaussian(delta=delta or None, **kw),
        "large-margin softmax objective": dp.PrivateLargeMarginGaussian(
            delta=delta or None, mechanism="gaussian_objective" if delta else "objective", **kw),
    }
    if delta > 0:
        out["noisy GD"] = dp.NoisyGradientDescent(delta=delta, **kw)
    return out


def _v020(C: int, eps: float, delta: float, classes: list[int], seed: int) -> dict[str, Any]:
    import dpconvex as dp

    kw = {"epsilon": eps, "classes": classes, "random_state": seed}
    if C == 2:
        return {"0.2.0 default": dp.PrivateLogisticRegression(delta=delta, **kw)}
    return {"0.2.0 default": dp.PrivateLargeMarginGaussian(delta=delta or None, **kw)}


def _done(results: Path) -> set[tuple]:
    if not results.exists():
        return set()
    keys = set()
    for line in results.read_text().splitlines():
        r = json.loads(line)
        keys.add((r["data"], r["seed"], r["epsilon"], r["delta"] > 0, r["model"]))
    return keys


def measure(names: list[str], seeds: tuple[int, ...], side: str,
            results: Path = RESULTS) -> None:
    """Fit every model on ``names`` × ``seeds`` and append one line per fit to ``results``."""
    from sklearn.linear_model import LogisticRegression

    done = _done(results)
    results.parent.mkdir(parents=True, exist_ok=True)
    make = _current if side == "current" else _v020
    for name in names:
        for seed in seeds:
            Xtr, ytr, Xte, yte, classes, epsilons = fdd.split(name, seed)
            classes, C = list(classes), len(classes)
            rows = []
            if side == "current" and (name, seed, None, False, "non-private LR") not in done:
                lr = LogisticRegression(max_iter=2000).fit(Xtr, ytr)
                values, counts = np.unique(ytr, return_counts=True)
                rows += [("non-private LR", None, 0.0, float(lr.score(Xte, yte)), None, 0.0),
                         ("majority", None, 0.0,
                          float(np.mean(yte == values[np.argmax(counts)])), None, 0.0)]
            for eps in epsilons:
                for delta in _deltas(len(ytr)):
                    for model, est in make(C, eps, delta, classes, seed).items():
                        if (name, seed, eps, delta > 0, model) in done:
                            continue
                        t0 = time.perf_counter()
                        try:
                            with warnings.catch_warnings():
                                warnings.simplefilter("ignore")
                                est.fit(Xtr, ytr)
                            acc, err = float(est.score(Xte, yte)), None
                            learner = getattr(est, "learner_", None)
                        except Exception as exc:  # a refusal is a result of the defaults
                            acc, err, learner = None, f"{type(exc).__name__}: {exc}"[:200], None
                        rows.append((model, eps, delta, acc, err, time.perf_counter() - t0,
                                     learner))
            with results.open("a") as fh:
                for row in rows:
                    model, eps, delta, acc, err, secs = row[:6]
                    fh.write(json.dumps({
                        "data": name, "seed": seed, "epsilon": eps, "delta": delta,
                        "model": model, "accuracy": acc, "error": err,
                        "learner": row[6] if len(row) > 6 else None,
                        "seconds": round(secs, 3), "side": side}) + "\n")
            print(f"{name} seed {seed}: {len(rows)} fits", flush=True)


def _mean_se(values: list[float]) -> tuple[float, float]:
    v = np.asarray(values, dtype=float)
    return float(v.mean()), float(v.std(ddof=1) / math.sqrt(v.size)) if v.size > 1 else 0.0


def report(results: Path = RESULTS) -> str:
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    base = json.loads(BASELINES.read_text()) if BASELINES.exists() else None
    lines = ["# The front door against single estimators, 0.2.0 defaults, diffprivlib, "
             "non-private, majority", "",
             "Test accuracy, mean ± standard error over the seeds of "
             "`benchmarks/front_door_data.py` (8100..8109). δ = 1/n² (n training rows) where "
             "marked. \"best single (test-chosen)\" is the best of the single estimators' mean "
             "accuracies, chosen on the test set (optimistic). diffprivlib 0.6.6 (pure ε only) "
             "on the same rows, the better of its two row maps (divisor, x/||x||) per cell "
             "(`benchmarks/recorded/front_door_baselines.md`). Generated by "
             "`python benchmarks/front_door.py --report`.", "",
             "| data | ε | δ | front door (learner) | best single (test-chosen) | gap | 0.2.0 default "
             "| diffprivlib LR | diffprivlib GaussianNB | non-private LR | majority |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    single = ["logistic regression", "Huber SVM", "class centroids", "large margin (auto)",
              "large-margin softmax objective", "noisy GD"]
    for name in dict.fromkeys(r["data"] for r in rows):
        mine = [r for r in rows if r["data"] == name]
        npv = _mean_se([r["accuracy"] for r in mine if r["model"] == "non-private LR"])
        maj = _mean_se([r["accuracy"] for r in mine if r["model"] == "majority"])
        for eps in sorted({r["epsilon"] for r in mine if r["epsilon"] is not None}):
            for approx in (False, True):
                cell = [r for r in mine if r["epsilon"] == eps and (r["delta"] > 0) == approx]

                def stat(model: str, cell: list = cell) -> tuple[float, float] | str | None:
                    got = [r for r in cell if r["model"] == model]
                    if not got:
                        return None
                    if any(r["accuracy"] is None for r in got):
                        return "refused: " + next(r["error"] for r in got if r["error"])[:60]
                    return _mean_se([r["accuracy"] for r in got])

                fd = stat("front door")
                if fd is None or isinstance(fd, str):
                    continue
                learners = sorted({r["learner"] for r in cell if r["model"] == "front door"})
                best = max(((m, s) for m in single if isinstance(s := stat(m), tuple)),
                           key=lambda t: t[1][0])
                old = stat("0.2.0 default")
                dpl = _baseline(base, name, eps, approx)
                lines.append(
                    f"| {name} | {eps:g} | {'1/n²' if approx else '0'} | {show(fd)} "
                    f"({', '.join(learners)}) | {show(best[1])} ({best[0]}) | "
                    f"{100 * (fd[0] - best[1][0]):+.1f} | {show(old)} | {show(dpl[0])} | "
                    f"{show(dpl[1])} | {show(npv)} | {show(maj)} |")
    return "\n".join(lines) + "\n"


def show(s: Any) -> str:
    """A cell: "mean ± se" in percent, a refusal's text, or "–" when not measured."""
    if s is None:
        return "–"
    return s if isinstance(s, str) else f"{100 * s[0]:.1f} ± {100 * s[1]:.1f}"


def _baseline(base: Any, name: str, eps: float, approx: bool) -> tuple[Any, Any]:
    """diffprivlib's (LR, GaussianNB) cells on the same rows (pure ε only; the better row map)."""
    if base is None or approx or name not in base.get("cells", {}):
        return None, None
    acc = base["cells"][name]["accuracy"]
    out = []
    for model in ("dp_lr", "dp_gnb"):
        got = [acc[k] for k in (f"{model}/divisor/{eps:g}", f"{model}/unit/{eps:g}") if k in acc]
        best = max(got, key=lambda c: c["mean"]) if got else None
        out.append((best["mean"], best["se"]) if best else None)
    return out[0], out[1]


def check(names: list[str], seeds: tuple[int, ...]) -> float:
    """The largest |accuracy − recorded| of the front door over ``names`` × ``seeds``."""
    import dpconvex as dp

    recorded = {}
    for line in (HERE / "recorded" / "front_door.jsonl").read_text().splitlines():
        r = json.loads(line)
        if r["model"] == "front door" and r.get("side") == "current":
            recorded[(r["data"], r["seed"], r["epsilon"], r["delta"] > 0)] = (r["accuracy"],
                                                                              r["learner"])
    worst, fits = 0.0, 0
    for name in names:
        for seed in seeds:
            Xtr, ytr, Xte, yte, classes, epsilons = fdd.split(name, seed)
            for eps in epsilons:
                for delta in _deltas(len(ytr)):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        est = dp.PrivateClassifier(epsilon=eps, delta=delta, classes=list(classes),
                                                   random_state=seed).fit(Xtr, ytr)
                    acc = float(est.score(Xte, yte))
                    old_acc, old_learner = recorded[(name, seed, eps, delta > 0)]
                    worst, fits = max(worst, abs(acc - old_acc)), fits + 1
                    if abs(acc - old_acc) > 1e-9 or est.learner_ != old_learner:
                        print(f"moved: {name} seed {seed} eps {eps:g} delta {delta:g}: "
                              f"{old_acc:.4f} ({old_learner}) -> {acc:.4f} ({est.learner_})")
        print(f"{name}: {fits} fits so far, largest |accuracy - recorded| {worst:.3g}", flush=True)
    return worst


def main() -> None:
    ap = harness.parser(__doc__, seeds=len(fdd.SEEDS))
    ap.add_argument("--only", nargs="*", default=None, help="data set names (default: all)")
    ap.add_argument("--side", choices=("current", "v0.2.0"), default="current")
    ap.add_argument("--report", action="store_true", help="write benchmarks/recorded/front_door.md")
    ap.add_argument("--check", action="store_true",
                    help="refit the front door and compare with benchmarks/recorded/front_door.jsonl")
    args = ap.parse_args()
    results = args.out / RESULTS.name
    if args.report:
        text = report(results)
        harness.write_atomic(REPORT, text)
        print(text)
        return
    names = args.only or [s.name for s in fdd.datasets()]
    if args.quick:  # a smoke run: the two smallest sets, one seed
        names, args.seeds = [n for n in names if n in ("wine", "breast_cancer_wisconsin")], 1
    if args.check:
        check(names, fdd.SEEDS[: args.seeds])
        return
    measure(names, fdd.SEEDS[: args.seeds], args.side, results)


if __name__ == "__main__":
    main()
