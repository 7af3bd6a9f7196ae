"""KDDCup99 at ε = 0.1: do public choices reach the targets?

Nothing in the package is changed: every knob is an existing public parameter of the
estimators / loaders (``intercept_scaling``, ``fit_intercept``, ``h``, loader ``drop=``) or
an explicit ``lam=`` computed by a public rule from (n, ε, δ, q̃, p, loss constants) only.

Knobs
-----
* ``icpt``: "none" (``fit_intercept=False``) or s ∈ {0.1, 0.25, 0.5} (``intercept_scaling``).
* ``drop``: loader column blocks left out ("" = none, "service", "service+flag", "flag",
  "protocol_type"); "rownorm=None" (optionally ",<drop>") loads KDDCup99 with
  ``row_norm="none"`` (rows divided by the public constant √41 instead of scaled to norm 1).
* ``h``: Huber width (PrivateHuberSVM only; curvature bound 1/(2h)); est "SmoothHinge" is
  ``PrivateHuberSVM(loss="smooth_hinge")`` (curvature 3/(4h)).
* ``lam``: "auto" (the shipped rule, R = 16), "R<x>" (the shipped rule
  :func:`dpconvex.privacy.rules.noise_level.auto_lam` with ``reference_norm=x``), or "share<a>":
  the slack-share rule Λ = c q̃² / (n (e^{a ε} − 1)), i.e. the Λ at which the one-sided
  Jacobian slack log(1 + c q̃²/(nΛ)) spends exactly the share a of ε (a = 0.5 is the
  Δ-branch threshold, :func:`~dpconvex.privacy.rules.noise_level.delta_floor`). Public: n, ε, q̃, c.

Protocol
--------
KDDCup99 ``load_kddcup99(n_samples=70000, random_state=1999)``: rows [:50000] training,
[50000:] test. Validation (selection): the 50,000 training rows permuted with seed 0,
first 40,000 fit, last 10,000 scored; noise seeds 100..109. Test (report only): fit on the
50,000, score on the 20,000; noise seeds 0..9 (as benchmarks/mechanisms_by_epsilon.py).
Adult: adult.data → adult.test (validation: adult.data permuted with seed 0, 80/20).
``--ds bc``: breast cancer (683 rows, 80/20 validation split only), a sanity check of
``intercept_scaling`` on data without one-hot blocks.
ε = 0.1 (``--eps`` for the robustness check at other ε); Gaussian mechanism δ = 1/n_fit².
Results are appended to a JSONL cache (``--cache``), keyed by the full setting, so runs
can be resumed.

Run (one process, ``OMP_NUM_THREADS=1``)::

    export DPCONVEX_DATA=/work/shared/datasets OMP_NUM_THREADS=1 MPLBACKEND=Agg
    P=".venv/bin/python benchmarks/kdd_public_knobs.py"
    $P bias                                   # non-private Λ screen (validation)
    $P validate --mechs objective --ests Huber --drops none --icpts none,0.25 \
        --hs 0.5,1.0 --lams auto,R8,R4,R3     # a private validation grid, 10 seeds
    $P test --mechs objective --ests Huber --drops flag --icpts none --hs 1.0 --lams R4
    $P table                                  # markdown pivots of the cache
    $P log-counts                             # other public scalings of the count columns
    $P floor [--quadratic]                    # what the linear model's 1 % floor is made of

``validate`` and ``test`` run the product of their filters (defaults: the whole grid), so
give ``test`` only the settings selected on validation. The exact commands of the
measurements and the results: benchmarks/recorded/kdd_public_knobs.md. ``--quick`` (a smoke
run, not a measurement): 1,500 fit / 1,000 evaluation rows, one noise seed, a cache in the
results folder (never the recorded one).

``log-counts``: ``count``, ``srv_count`` (public cap 511) and ``dst_host_count``,
``dst_host_srv_count`` (cap 255) are scaled linearly by the shipped schema. The variant
"log counts" maps them by ``log1p(x) / log1p(cap)`` like the other counters (a public
per-record map; the schema's ``log_scaled`` option). The variants "events ≤ 15 / 255 /
65535" keep the log scale of the ten per-connection event counters (``wrong_fragment``,
``hot``, ...) but with that public cap instead of 2³² − 1 (values above it clipped).
Nothing in ``dpconvex/`` is changed: the variants are built with ``dataclasses.replace``
on ``KDDCUP99_SCHEMA`` for this run only. Validation = the training rows permuted with seed
0, 40,000 fit / 10,000 scored, noise seeds 100..109; test = fit on the 50,000, noise seeds
0..9; estimators at their defaults, Gaussian objective perturbation with δ = 1/n_fit²; also
the non-private validation error of scikit-learn's ``LogisticRegression(C = 1/(n Λ),
fit_intercept=False)`` at Λ ∈ {1e-4, 3e-4, 1e-3, 3e-3}. About 2 minutes.

``floor``: (diagnostic, on the TEST rows; no choice is made from it) the test errors of
scikit-learn's non-private ``LogisticRegression(C = 1/(n Λ), fit_intercept=False)`` at
Λ ∈ {1e-5, 1e-4, 1e-3}, by the record's attack label (read from the raw file with the
loader's own sample indices) and by service. With ``--quadratic`` (validation split as
above, ~6 min): ``PrivateLargeMarginGaussian`` with ``structure="full"`` (a quadratic score
per class, which can express a service × bytes interaction) against the linear structure,
non-private and at (ε, δ) = (0.1, 1/n²) with ``lam="auto"`` and the rule's κ multiplied by
0.5, 2, 4; 10 noise seeds each.
"""

from __future__ import annotations

import collections
import dataclasses
import gzip
import itertools
import json
import math
import pathlib
import sys
import time
import warnings

import harness  # benchmarks/ is the script's folder, first on sys.path
import numpy as np
from sklearn.linear_model import LogisticRegression

import dpconvex as dp
import dpconvex.datasets.uci as uci
import dpconvex.estimators.large_margin.learners as large_margin_learners
from dpconvex._validation import check_random_state
from dpconvex.datasets import get_data_home, load_adult, load_breast_cancer_wisconsin, load_kddcup99
from dpconvex.datasets.schemas import KDDCUP99_SCHEMA
from dpconvex.objectives.losses import get_loss
from dpconvex.privacy.rules.noise_level import auto_lam

ROOT = pathlib.Path(__file__).resolve().parent.parent
RECORDED_CACHE = ROOT / "benchmarks/recorded/kdd_public_knobs.jsonl"
EPS = 0.1
DROPS = {"": (), "service": ("service",), "service+flag": ("service", "flag"), "flag": ("flag",),
         "protocol_type": ("protocol_type",)}
ADULT_DROPS = {"": (), "native-country": ("native-country",)}
_DATA: dict = {}
#: --quick: a smoke run on (fit, evaluation) rows of every split, not a measurement
QUICK = False
QUICK_ROWS = (1500, 1000)


def _small(X: np.ndarray, y: np.ndarray, Xe: np.ndarray, ye: np.ndarray) -> tuple:
    """(X, y, Xe, ye), or in --quick mode seeded subsamples of QUICK_ROWS rows."""
    if not QUICK:
        return X, y, Xe, ye
    return (*harness.subsample(X, y, QUICK_ROWS[0]), *harness.subsample(Xe, ye, QUICK_ROWS[1]))


def data(ds: str, drop: str, split: str):
    """(X_fit, y_fit, X_eval, y_eval) for dataset ds, column drop, split 'val' or 'test'."""
    key = (ds, drop, split)
    if key in _DATA:
        return _DATA[key]
    if ds == "bc":  # breast cancer: no one-hot block, an intercept is needed (validation only)
        Xtr, ytr = load_breast_cancer_wisconsin()
        Xte, yte = Xtr[:0], ytr[:0]
    elif ds == "kdd":
        rn = "none" if drop.startswith("rownorm=None") else "unit"  # the loader's other encoding
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
    out = _small(*out)
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
        rule = m.certificate_.lam_rule
        lam_used = rule.lam if rule else lam_v
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


def main(argv: list[str] | None = None) -> None:
    global EPS, QUICK, VAL_SEEDS, TEST_SEEDS
    ap = harness.parser(__doc__)
    ap.add_argument("stage", choices=("bias", "validate", "test", "table", "log-counts", "floor"))
    ap.add_argument("--ds", default="kdd")
    ap.add_argument("--cache", default=None, help="JSONL cache (default: the recorded one; "
                    "--quick: one in the results folder)")
    ap.add_argument("--mechs", default="objective,gaussian_objective")
    ap.add_argument("--ests", default="Huber,LR")
    ap.add_argument("--drops", default=None, help="comma list; 'none' = no drop")
    ap.add_argument("--icpts", default=",".join(ICPTS))
    ap.add_argument("--hs", default=",".join(map(str, HS)))
    ap.add_argument("--lams", default=",".join(LAMS))
    ap.add_argument("--split", default="test")
    ap.add_argument("--eps", type=float, default=0.1)
    ap.add_argument("--quadratic", action="store_true", help="floor: also the quadratic model")
    a = ap.parse_args(argv)
    EPS = a.eps
    QUICK = a.quick
    if QUICK:
        VAL_SEEDS, TEST_SEEDS = VAL_SEEDS[:1], TEST_SEEDS[:1]
    cache = a.cache or (a.out / "kdd_public_knobs-quick.jsonl" if QUICK else RECORDED_CACHE)
    drops = (list(DROPS if a.ds == "kdd" else ADULT_DROPS) if a.drops is None else
             ["" if d == "none" else d for d in a.drops.split(",")])
    with harness.Run(__file__, a, argv, part=a.stage) as run:
        c = Cache(cache)
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
        elif a.stage == "log-counts":
            stage_log_counts(run)
        elif a.stage == "floor":
            stage_floor(a.quadratic)
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


# ------------------------------------------------------------------ log-counts
COUNTS = ("count", "srv_count", "dst_host_count", "dst_host_srv_count")
EVENTS = ("wrong_fragment", "urgent", "hot", "num_failed_logins", "num_compromised",
          "num_root", "num_file_creations", "num_shells", "num_access_files",
          "num_outbound_cmds")
VARIANTS = {"shipped": (False, None), "log counts": (True, None), "events <= 15": (False, 15),
            "events <= 255": (False, 255), "events <= 65535": (False, 65535)}
ESTIMATORS = {
    "Huber, pure ε": lambda s, n: dp.PrivateHuberSVM(epsilon=EPS, random_state=s),
    "LR, pure ε": lambda s, n: dp.PrivateLogisticRegression(epsilon=EPS, random_state=s),
    "Huber, (ε, 1/n²)": lambda s, n: dp.PrivateHuberSVM(
        epsilon=EPS, delta=1 / n**2, mechanism="gaussian_objective", random_state=s),
    "LR, (ε, 1/n²)": lambda s, n: dp.PrivateLogisticRegression(
        epsilon=EPS, delta=1 / n**2, mechanism="gaussian_objective", random_state=s),
}


def load_variant(log_counts: bool, event_cap: float | None) -> tuple[np.ndarray, np.ndarray]:
    """The 70,000-row sample with the shipped schema or one variant of ``log-counts``."""
    shipped = uci.KDDCUP99_SCHEMA
    numeric = dict(KDDCUP99_SCHEMA.numeric)
    if event_cap is not None:
        numeric.update({c: (0.0, float(event_cap)) for c in EVENTS})
    logs = KDDCUP99_SCHEMA.log_scaled | (frozenset(COUNTS) if log_counts else frozenset())
    uci.KDDCUP99_SCHEMA = dataclasses.replace(KDDCUP99_SCHEMA, numeric=numeric, log_scaled=logs)
    try:
        return uci.load_kddcup99(n_samples=70000, random_state=1999)
    finally:
        uci.KDDCUP99_SCHEMA = shipped


def stage_log_counts(run: harness.Run) -> None:
    warnings.simplefilter("ignore")
    variants = dict(list(VARIANTS.items())[:2]) if QUICK else VARIANTS
    n_seeds = 1 if QUICK else 10
    table = harness.Table(f"KDDCup99 at ε = {EPS:g}: public scalings of the count columns "
                          f"({n_seeds} noise seeds, mean ± std)",
                          ["encoding", "model", "validation error", "test error"])
    for name, (log_counts, event_cap) in variants.items():
        X, y = load_variant(log_counts, event_cap)
        Xtr, ytr, Xte, yte = _small(X[:50000], y[:50000], X[50000:], y[50000:])
        perm = np.random.default_rng(0).permutation(len(ytr))
        fit, val = perm[:int(0.8 * len(ytr))], perm[int(0.8 * len(ytr)):]
        errs = []
        for lam in (1e-4, 3e-4, 1e-3, 3e-3):
            m = LogisticRegression(C=1 / (fit.size * lam), fit_intercept=False, max_iter=3000)
            errs.append(1 - m.fit(Xtr[fit], ytr[fit]).score(Xtr[val], ytr[val]))
        table.add(name, f"{harness.NON_PRIVATE} LR, Λ = 1e-4 / 3e-4 / 1e-3 / 3e-3",
                  " / ".join(f"{e:.4f}" for e in errs), "")
        for est, make in ESTIMATORS.items():
            v = [1 - make(100 + s, fit.size).fit(Xtr[fit], ytr[fit]).score(Xtr[val], ytr[val])
                 for s in range(n_seeds)]
            t = [1 - make(s, len(ytr)).fit(Xtr, ytr).score(Xte, yte) for s in range(n_seeds)]
            table.add(name, est, v, t)
        table.add(name, harness.MAJORITY, harness.majority_error(ytr[fit], ytr[val]),
                  harness.majority_error(ytr, yte))
    run.table(table)


# ------------------------------------------------------------------ floor
def labels_and_services() -> tuple[list[str], list[str]]:
    """The attack label and service of every sampled record (the loader's own sample)."""
    path = get_data_home() / "kddcup.data_10_percent.gz"
    with gzip.open(path, "rb") as fh:
        lines = [ln for ln in fh.read().splitlines() if ln.strip()]
    idx = check_random_state(1999, "kdd_public_knobs").choice(len(lines), size=70000, replace=False)
    fields = [lines[i].split(b",") for i in idx]
    return [f[-1].decode() for f in fields], [f[2].decode() for f in fields]


def error_composition(X: np.ndarray, y: np.ndarray) -> None:
    labels, services = labels_and_services()
    if any((lab != "normal.") != bool(t) for lab, t in zip(labels, y, strict=True)):
        raise SystemExit("sample indices do not match the loader's")
    test_counts = collections.Counter(labels[50000:])
    for lam in (1e-3,) if QUICK else (1e-5, 1e-4, 1e-3):
        m = LogisticRegression(C=1 / (50000 * lam), fit_intercept=False, max_iter=5000)
        wrong = np.flatnonzero(m.fit(X[:50000], y[:50000]).predict(X[50000:]) != y[50000:])
        by_label = collections.Counter(labels[50000 + i] for i in wrong)
        by_service = collections.Counter(services[50000 + i] for i in wrong)
        print(f"Λ = {lam:g}: test error {wrong.size / 20000:.4f} ({wrong.size} of 20000); "
              "missed / present by label: "
              + ", ".join(f"{k} {v}/{test_counts[k]}" for k, v in by_label.most_common(6))
              + "; by service: " + ", ".join(f"{k} {v}" for k, v in by_service.most_common(5)),
              flush=True)
    print(f"majority class: test error {harness.majority_error(y[:50000], y[50000:]):.4f}", flush=True)


def quadratic(X: np.ndarray, y: np.ndarray) -> None:
    perm = np.random.default_rng(0).permutation(50000)
    fit, val = perm[:40000], perm[40000:]
    for structure in ("linear", "full"):
        est = dp.PrivateLargeMarginGaussian(mechanism="none", loss="softmax", structure=structure)
        err = 1 - est.fit(X[fit], y[fit]).score(X[val], y[val])
        print(f"non-private softmax, structure={structure}: validation error {err:.4f}", flush=True)
    rule = large_margin_learners.auto_lam  # the rule the large-margin plan calls
    try:
        for structure, mults in (("linear", (1.0,)), ("full", (0.5, 1.0, 2.0, 4.0))):
            for mult in mults:
                large_margin_learners.auto_lam = (
                    lambda t, m, b, kappa=large_margin_learners.AUTO_LAM_KAPPA, mult=mult:
                    rule(t, m, b, kappa * mult))
                errs = [1 - dp.PrivateLargeMarginGaussian(
                    epsilon=0.1, delta=1 / fit.size**2, structure=structure,
                    random_state=100 + s).fit(X[fit], y[fit]).score(X[val], y[val])
                    for s in range(10)]
                print(f"(0.1, 1/n²), structure={structure}, κ × {mult:g}: validation error "
                      f"{np.mean(errs):.4f} ± {np.std(errs):.4f}", flush=True)
    finally:
        large_margin_learners.auto_lam = rule


def stage_floor(with_quadratic: bool) -> None:
    warnings.simplefilter("ignore")
    X, y = load_kddcup99(n_samples=70000, random_state=1999)
    error_composition(X, y)
    if with_quadratic:
        quadratic(X, y)


if __name__ == "__main__":
    main(sys.argv[1:])
