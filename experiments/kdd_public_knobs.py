"""Issue 13, KDDCup99 at ε = 0.1: do PUBLIC choices reach the targets? (helper "kdd")

Nothing in the package is changed: every knob is an existing public parameter of the
estimators / loaders (``intercept_scaling``, ``fit_intercept``, ``h``, loader ``drop=``) or
an explicit ``lam=`` computed by a public rule from (n, ε, δ, q̃, p, loss constants) only.

Knobs
-----
* ``icpt``: "none" (``fit_intercept=False``) or s ∈ {0.1, 0.25, 0.5} (``intercept_scaling``).
* ``drop``: loader column blocks left out ("" = none, "service", "service+flag", "flag",
  "protocol_type"); "rownorm=None" (optionally ",<drop>") loads KDDCup99 with
  ``row_norm=None`` (rows divided by the public constant √41 instead of scaled to norm 1).
* ``h``: Huber width (PrivateHuberSVM only; curvature bound 1/(2h)); est "SmoothHinge" is
  ``PrivateHuberSVM(loss="smooth_hinge")`` (curvature 3/(4h)).
* ``lam``: "auto" (the shipped rule, R = 16), "R<x>" (the shipped rule
  :func:`dpconvex.privacy.lam_rule.auto_lam` with ``reference_norm=x``), or "share<a>":
  the slack-share rule Λ = c q̃² / (n (e^{a ε} − 1)), i.e. the Λ at which the one-sided
  Jacobian slack log(1 + c q̃²/(nΛ)) spends exactly the share a of ε (a = 0.5 is the
  Δ-branch threshold, :func:`~dpconvex.privacy.lam_rule.delta_floor`). Public: n, ε, q̃, c.

Protocol
--------
KDDCup99 ``load_kddcup99(n_samples=70000, random_state=1999)``: rows [:50000] training,
[50000:] test. Validation (selection): the 50,000 training rows permuted with seed 0,
first 40,000 fit, last 10,000 scored; noise seeds 100..109. Test (report only): fit on the
50,000, score on the 20,000; noise seeds 0..9 (as experiments/issue13_table.py).
Adult: adult.data → adult.test (validation: adult.data permuted with seed 0, 80/20).
``--ds bc``: breast cancer (683 rows, 80/20 validation split only), a sanity check of
``intercept_scaling`` on data without one-hot blocks.
ε = 0.1 (``--eps`` for the robustness check at other ε); Gaussian mechanism δ = 1/n_fit².
Results are appended to a JSONL cache (``--cache``), keyed by the full setting, so runs
can be resumed.

Run (one process, ``OMP_NUM_THREADS=1``)::

    export DPCONVEX_DATA=/work/shared/datasets OMP_NUM_THREADS=1 MPLBACKEND=Agg
    P=".venv/bin/python experiments/kdd_public_knobs.py"
    $P bias                                   # non-private Λ screen (validation)
    $P validate --mechs objective --ests Huber --drops none --icpts none,0.25 \
        --hs 0.5,1.0 --lams auto,R8,R4,R3     # a private validation grid, 10 seeds
    $P test --mechs objective --ests Huber --drops flag --icpts none --hs 1.0 --lams R4
    $P table                                  # markdown pivots of the cache

``validate`` and ``test`` run the product of their filters (defaults: the whole grid), so
give ``test`` only the settings selected on validation. The exact commands of the
measurements and the results: experiments/tables/kdd_public_knobs.md.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import pathlib
import sys
import time
import warnings

import numpy as np

import dpconvex as dp
from dpconvex.datasets import load_adult, load_breast_cancer_wisconsin, load_kddcup99
from dpconvex.losses import get_loss
from dpconvex.privacy.lam_rule import auto_lam

ROOT = pathlib.Path(__file__).resolve().parent.parent
EPS = 0.1
DROPS = {"": (), "service": ("service",), "service+flag": ("service", "flag"), "flag": ("flag",),
         "protocol_type": ("protocol_type",)}
ADULT_DROPS = {"": (), "native-country": ("native-country",)}
_DATA: dict = {}


def data(ds: str, drop: str, split: str):
    """(X_fit, y_fit, X_eval, y_eval) for dataset ds, column drop, split 'val' or 'test'."""
    key = (ds, drop, split)
    if key in _DATA:
        return _DATA[key]
    if ds == "bc":  # breast cancer: no one-hot block, an intercept is needed (validation only)
        Xtr, ytr = load_breast_cancer_wisconsin()
        Xte, yte = Xtr[:0], ytr[:0]
    elif ds == "kdd":
        rn = None if drop.startswith("rownorm=None") else "unit"  # the loader's other encoding
        cols = DROPS[drop.split(",", 1)[1] if "," in drop else ("" if rn is None else drop)]
        X, y = load_kddcup99(n_samples=70000, random_state=1999, drop=cols, row_norm=rn)
        Xtr, ytr, Xte, yte = X[:50000], y[:50000], X[50000:], y[50000:]
    else:
        Xtr, ytr = load_adult("train", drop=ADULT_DROPS[drop])
        Xte, yte = load_adult("test", drop=ADULT_DROPS[drop])
    if split == "val":
        idx = np.random.default_rng(0).permutation(len(ytr))
        k = int(0.8 * len(ytr))
        out = (Xtr[idx[:k]], ytr[idx[:k]], Xtr[idx[k:]], ytr[idx[k:]])
    else:
        out = (Xtr, ytr, Xte, yte)
    _DATA[key] = out
    return out


def loss_of(est: str, h: float):
    if est == "SmoothHinge":
        return get_loss("smooth_hinge", h=h)
    return get_loss("huber", h=h) if est == "Huber" else get_loss("logistic")


def public_lam(lam: str, est: str, mech: str, n: int, p_feat: int, icpt: str, h: float,
               delta: float) -> float | str:
    """Λ from public quantities only (n, ε, δ, q̃, p, loss constants)."""
    if lam == "auto":
        return "auto"
    loss = loss_of(est, h)
    s = 0.0 if icpt == "none" else float(icpt)
    q = math.sqrt(1.0 + s * s)
    p = p_feat + (icpt != "none")
    if lam.startswith("R"):
        return auto_lam(mech, n, EPS, q, p, loss, reference_norm=float(lam[1:]), delta=delta)
    if lam.startswith("share"):
        a = float(lam[5:])
        return loss.curvature * q * q / (n * math.expm1(a * EPS))
    if lam.startswith("fix"):
        return float(lam[3:])
    raise ValueError(lam)


def run(ds, split, est, mech, icpt, drop, h, lam, seeds):
    """Error on the evaluation part, one value per noise seed (mech 'none': one fit)."""
    X, y, Xe, ye = data(ds, drop, split)
    n = X.shape[0]
    delta = 1.0 / n**2 if mech.startswith("gaussian") else 0.0
    lam_v = public_lam(lam, est, mech, n, X.shape[1], icpt, h, delta)
    kw = {"epsilon": EPS, "mechanism": mech, "lam": lam_v}
    if delta:
        kw["delta"] = delta
    if icpt == "none":
        kw["fit_intercept"] = False
    else:
        kw["intercept_scaling"] = float(icpt)
    if est in ("Huber", "SmoothHinge"):
        kw["h"] = h
    if est == "SmoothHinge":
        kw["loss"] = "smooth_hinge"
    cls = dp.PrivateLogisticRegression if est == "LR" else dp.PrivateHuberSVM
    errs = []
    lam_used = None
    for s in seeds if mech != "none" else seeds[:1]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = cls(random_state=s, **kw).fit(X, y)
        errs.append(float(1.0 - m.score(Xe, ye)))
        note = m.certificate_.assumptions[-1]
        lam_used = float(note.split("lam = ")[1].split()[0]) if "lam = " in note else lam_v
    return errs, lam_used


class Cache:
    def __init__(self, path):
        self.path = pathlib.Path(path)
        self.rows = {}
        if self.path.exists():
            for line in self.path.read_text().splitlines():
                r = json.loads(line)
                self.rows[r["key"]] = r

    def get(self, ds, split, est, mech, icpt, drop, h, lam, seeds):
        key = "|".join(map(str, (ds, split, est, mech, icpt, drop, h if est != "LR" else "-",
                                 lam, seeds[0], len(seeds))))
        if EPS != 0.1:
            key += f"|eps={EPS:g}"
        if key in self.rows:
            return self.rows[key]
        t = time.time()
        errs, lam_used = run(ds, split, est, mech, icpt, drop, h, lam, seeds)
        r = {"key": key, "ds": ds, "split": split, "est": est, "mech": mech, "icpt": icpt,
             "drop": drop, "h": h if est != "LR" else None, "lam": lam, "lam_value": lam_used,
             "eps": EPS, "errs": errs, "mean": float(np.mean(errs)), "sd": float(np.std(errs)),
             "sec": time.time() - t}
        with self.path.open("a") as f:
            f.write(json.dumps(r) + "\n")
        self.rows[key] = r
        print(f"{key}: {r['mean']:.4f} ± {r['sd']:.4f} (Λ={lam_used:.3g}, {r['sec']:.1f}s)",
              flush=True)
        return r


ICPTS = ("none", "0.1", "0.25", "0.5")
HS = (0.5, 1.0, 2.0, 4.0)
VAL_SEEDS = list(range(100, 110))
TEST_SEEDS = list(range(10))


def stage_bias(c: Cache, ds: str) -> None:
    """Non-private validation error over a Λ grid: the bias floor of each encoding."""
    drops = DROPS if ds == "kdd" else ADULT_DROPS
    for drop, icpt, lam in itertools.product(drops, ICPTS,
                                            ("fix1e-5", "fix1e-4", "fix3e-4", "fix1e-3",
                                             "fix4e-3")):
        c.get(ds, "val", "LR", "none", icpt, drop, 0.5, lam, [0])
        for h in HS:
            c.get(ds, "val", "Huber", "none", icpt, drop, h, lam, [0])


LAMS = ("auto", "R32", "R64", "R128", "share0.5", "share0.35", "share0.25", "share0.15")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("stage", choices=("bias", "validate", "test", "table"))
    ap.add_argument("--ds", default="kdd")
    ap.add_argument("--cache", default=str(ROOT / "experiments/tables/kdd_public_knobs.jsonl"))
    ap.add_argument("--mechs", default="objective,gaussian_objective")
    ap.add_argument("--ests", default="Huber,LR")
    ap.add_argument("--drops", default=None, help="comma list; 'none' = no drop")
    ap.add_argument("--icpts", default=",".join(ICPTS))
    ap.add_argument("--hs", default=",".join(map(str, HS)))
    ap.add_argument("--lams", default=",".join(LAMS))
    ap.add_argument("--split", default="test")
    ap.add_argument("--eps", type=float, default=0.1)
    a = ap.parse_args()
    global EPS
    EPS = a.eps
    c = Cache(a.cache)
    drops = (list(DROPS if a.ds == "kdd" else ADULT_DROPS) if a.drops is None else
             ["" if d == "none" else d for d in a.drops.split(",")])
    if a.stage == "bias":
        stage_bias(c, a.ds)
    elif a.stage in ("validate", "test"):
        split = "val" if a.stage == "validate" else a.split
        seeds = VAL_SEEDS if split == "val" else TEST_SEEDS
        for mech, est, drop, icpt in itertools.product(a.mechs.split(","), a.ests.split(","),
                                                      drops, a.icpts.split(",")):
            for h in ([float(x) for x in a.hs.split(",")] if est != "LR" else [0.5]):
                for lam in a.lams.split(","):
                    c.get(a.ds, split, est, mech, icpt, drop, h, lam, seeds)
    else:
        table(c)


def table(c: Cache) -> None:
    """Markdown pivots of the cache: one table per (dataset, split, ε, mechanism, estimator)."""
    groups: dict = {}
    for r in c.rows.values():
        g = (r["ds"], r["split"], r.get("eps", 0.1), r["mech"], r["est"])
        groups.setdefault(g, []).append(r)
    for g in sorted(groups, key=str):
        rows = groups[g]
        lams = sorted({r["lam"] for r in rows}, key=_lam_order)
        print(f"\n#### {g[0]} {g[1]}, ε = {g[2]:g}, {g[3]}, {g[4]}"
              f"{' (one fit, non-private)' if g[3] == 'none' else ' (mean ± sd, 10 seeds)'}\n")
        print("| intercept | drop | h | " + " | ".join(lams) + " |")
        print("|---|---|---|" + "---|" * len(lams))
        keys = sorted({(r["icpt"], r["drop"], r["h"]) for r in rows}, key=str)
        best = min(r["mean"] for r in rows)
        for k in keys:
            cells = []
            for lam in lams:
                m = [r for r in rows if (r["icpt"], r["drop"], r["h"]) == k and r["lam"] == lam]
                if not m:
                    cells.append("")
                    continue
                r = m[0]
                v = f"{r['mean']:.4f}" + (f" ± {r['sd']:.4f}" if g[3] != "none" else "")
                v += f" (Λ={r['lam_value']:.3g})"
                cells.append(f"**{v}**" if r["mean"] == best and g[1] == "val" else v)
            h = "-" if k[2] is None else f"{k[2]:g}"
            print(f"| {k[0]} | {k[1] or '-'} | {h} | " + " | ".join(cells) + " |")


def _lam_order(lam: str) -> tuple:
    if lam == "auto":
        return (0, 16.0)
    if lam.startswith("R"):
        return (0, float(lam[1:]))
    if lam.startswith("share"):
        return (1, -float(lam[5:]))
    return (2, float(lam[3:]))


if __name__ == "__main__":
    sys.exit(main())
