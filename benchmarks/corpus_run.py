"""The selection corpus, scored: the front door (or a candidate rule) against every single learner.

Question: on the tables of ``benchmarks/corpus/`` (``corpus.TABLES``), for every cell
table × ε × δ, how does ``dpconvex.PrivateClassifier`` (or the rule named by ``--rule``)
compare with each single dpconvex estimator at its defaults, diffprivlib 0.6.6, non-private
logistic regression and the majority class? The summary counts, per cell (means over the
seeds):

(a) cells where the rule is below the majority class by more than 0.5 points;
(b) the share of cells where the rule is within 1 point of the best single dpconvex
    estimator, that best chosen on the test set (optimistic for the single estimators);
(c) with ``--diffprivlib``, the share of cells where the rule is at or above diffprivlib's
    best, the best of the four models ``benchmarks/baselines/front_door_diffprivlib.py``
    fits (``LogisticRegression(epsilon, data_norm=1)`` and ``GaussianNB(epsilon, bounds)``,
    each on the divisor rows and on x / ||x||), chosen on the test set per cell.

Learners (the registry :data:`LEARNERS`, name -> :class:`Learner`; each factory takes
``(epsilon, delta, classes, seed)`` and returns an unfitted estimator, or None where the
learner does not apply):

* ``front_door``: ``PrivateClassifier(epsilon, delta, classes, random_state=seed)``
  (its safeguard on, the default); ``front_door_unguarded`` the same with
  ``safeguard=False``;
* single estimators at their defaults with only ε, δ, ``classes`` and the seed set:
  ``logistic`` (``PrivateLogisticRegression``), ``huber`` (``PrivateHuberSVM``),
  ``large_margin`` (``PrivateLargeMarginGaussian``, ``delta=None`` at δ = 0),
  ``noisy_gd`` (``NoisyGradientDescent``, δ > 0 only) and ``centroid``
  (``PrivateGaussianCentroid``). The linear learners and noisy GD are one-vs-rest on more
  than two classes (their own), the others multiclass.

Baselines, in every table: ``non-private`` (scikit-learn ``LogisticRegression(max_iter=2000)``
on the same encoded rows) and ``majority`` (the training labels' majority class scored on
the test rows; it reads the labels, so it is not private either).

Rules (``--rule``): the column scored by (a)-(c). A learner name scores that learner's fits
(default ``front_door``); a choice rule, :data:`RULES` name -> ``rule(n, C, d, epsilon,
delta)`` returning a learner name, scores the fits of the learner it picks per (table,
seed, ε, δ), so a candidate rule costs no fit beyond the learners it picks (``library`` is
the library's own rule, :func:`dpconvex.privacy.rules.front_door.choose_front_door_learner`).
Extending: another script adds entries to :data:`LEARNERS` or :data:`RULES` and calls
:func:`main`; or, on the command line, ``--learners module:function`` (a factory, scored as
a variant, not a single estimator) and ``--rule module:function`` (a choice rule).

Data: ``corpus.split(name, seed)`` (norm <= 1 rows, stratified 70/30 split); the seed is
also the noise seed of every private fit. δ "1/n2" is 1 / n_train². ``--seeds selection``
(default) or ``report`` picks ``corpus.SELECTION_SEEDS`` or ``corpus.REPORT_SEEDS``;
``--n-seeds K`` the first K of them. diffprivlib is pure ε: its ε-cells are shown in every
δ column of that ε (pure ε-DP is (ε, δ)-DP for every δ).

Run (from the repository root)::

    DPCONVEX_DATA=/work/shared/datasets python benchmarks/corpus_run.py \
        [--tables NAME ...] [--seeds selection|report] [--n-seeds K] [--epsilons 0.5 1 2] \
        [--deltas 0 1/n2] [--learners front_door logistic ...] [--rule front_door] \
        [--diffprivlib] [--procs 2] [--tag TAG] [--out DIR] [--train-rows M] [--quick]

``--train-rows M``: every fit sees a seeded subsample of M of the split's training rows (the
test rows whole; tables with fewer are left out; results in ``corpus_run-rowsM.*``): the
corpus at the sizes of small tables, where n·ε/(C(d + 1)) is small. ``--tables binary`` (or
``multiclass``) names that group of tables.

``--quick``: one binary and one multiclass table (else the first two), the first seed,
ε = 1, δ = 0, the front door and ``logistic`` (plus the baselines), at most 800 training and
800 test rows (a seeded subsample): seconds, a smoke run.

Parallel over (table, seed) with ``--procs`` processes, one BLAS thread each. Every fit is
appended to ``<out>/corpus_run[-quick].jsonl``, keyed by (tag, table, seed, the split's
SHA-256, ε, δ, learner); a rerun, or a run with added learners, fits only what is missing.
The tag is the dpconvex commit (``git rev-parse --short HEAD``), followed by a hash of the
uncommitted changes under ``dpconvex/`` if there are any, or ``--tag``. Tables are printed
and written to ``<out>/corpus_run[-quick].json`` and ``.md`` (``harness.Run``). A table
whose split fails is named and left out (the run fails if every table does).
"""

from __future__ import annotations

import os

if __name__ == "__main__":  # one BLAS thread per process, set before NumPy is imported
    for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_var] = "1"

import dataclasses  # noqa: E402
import hashlib  # noqa: E402
import importlib  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import multiprocessing as mp  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from collections.abc import Callable, Sequence  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import corpus  # noqa: E402
import front_door_data  # noqa: E402
import harness  # noqa: E402

VENV_PYTHON = HERE / ".venv" / "bin" / "python"
DPL_SCRIPT = HERE / "baselines" / "front_door_diffprivlib.py"
#: rows kept (train, test) per split by ``--quick``
QUICK_ROWS = (800, 800)
#: the four diffprivlib models of DPL_SCRIPT (its result keys, without the ε)
DPL_MODELS = ("dp_lr/divisor", "dp_lr/unit", "dp_gnb/divisor", "dp_gnb/unit")
DPL_LABELS = {"dp_lr/divisor": "diffprivlib LR (divisor rows)", "dp_lr/unit": "diffprivlib LR (x/‖x‖)",
              "dp_gnb/divisor": "diffprivlib GaussianNB (divisor rows)",
              "dp_gnb/unit": "diffprivlib GaussianNB (x/‖x‖)"}
MAJORITY, NON_PRIVATE = "majority", "non-private"
#: slack of the criteria's comparisons, in points (float noise of a difference of means)
TOL = 1e-9


# ---------------------------------------------------------------------------- registry
@dataclasses.dataclass(frozen=True)
class Learner:
    """A registry entry: ``factory(epsilon, delta, classes, seed)`` -> unfitted estimator or None.

    ``single`` marks a single dpconvex estimator: criterion (b) compares the rule with the
    best of these. ``label`` is the table's row label.
    """

    factory: Callable[[float, float, list[int], int], Any]
    single: bool = False
    label: str = ""


def _front_door(**fixed: Any) -> Callable:
    def factory(eps: float, delta: float, classes: list[int], seed: int) -> Any:
        import dpconvex as dp

        return dp.PrivateClassifier(epsilon=eps, delta=delta, classes=classes, random_state=seed,
                                    **fixed)

    factory.__name__ = "_front_door" + "".join(f"_{k}_{v}" for k, v in fixed.items())
    return factory


def _single(cls_name: str, *, delta_none: bool = False, needs_delta: bool = False,
            **fixed: Any) -> Callable:
    def factory(eps: float, delta: float, classes: list[int], seed: int) -> Any:
        import dpconvex as dp

        if needs_delta and delta <= 0:
            return None
        return getattr(dp, cls_name)(epsilon=eps, delta=(delta or None) if delta_none else delta,
                                     classes=classes, random_state=seed, **fixed)

    factory.__name__ = f"_{cls_name}"
    return factory


def _unit_rows(factory: Callable) -> Callable:
    """``factory``'s estimator on the rows x / ||x|| (a per-record map: scikit-learn's Normalizer)."""
    def unit(eps: float, delta: float, classes: list[int], seed: int) -> Any:
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import Normalizer

        est = factory(eps, delta, classes, seed)
        return None if est is None else make_pipeline(Normalizer(), est)

    unit.__name__ = f"{factory.__name__}_unit"
    return unit


LEARNERS: dict[str, Learner] = {
    "front_door": Learner(_front_door(), False, "front door (PrivateClassifier)"),
    "logistic": Learner(_single("PrivateLogisticRegression"), True, "PrivateLogisticRegression"),
    "huber": Learner(_single("PrivateHuberSVM"), True, "PrivateHuberSVM"),
    "large_margin": Learner(_single("PrivateLargeMarginGaussian", delta_none=True), True,
                            "PrivateLargeMarginGaussian"),
    "noisy_gd": Learner(_single("NoisyGradientDescent", needs_delta=True), True,
                        "NoisyGradientDescent (δ > 0 only)"),
    "centroid": Learner(_single("PrivateGaussianCentroid"), True, "PrivateGaussianCentroid"),
    # variants, not defaults: the linear learners on unit rows; the front door without its
    # safeguard (every row fits the learner); the large-margin softmax without its own
    # switch to centroids
    "logistic_unit": Learner(_unit_rows(_single("PrivateLogisticRegression")), False,
                             "PrivateLogisticRegression on x/‖x‖"),
    "huber_unit": Learner(_unit_rows(_single("PrivateHuberSVM")), False, "PrivateHuberSVM on x/‖x‖"),
    "front_door_unguarded": Learner(_front_door(safeguard=False), False,
                                    "PrivateClassifier(safeguard=False)"),
    "softmax": Learner(_single("PrivateLargeMarginGaussian", delta_none=True, loss="softmax"), False,
                       "PrivateLargeMarginGaussian(loss='softmax')"),
}
DEFAULT_LEARNERS = ("front_door", "logistic", "huber", "large_margin", "noisy_gd", "centroid")


def _library_rule(n: int, n_classes: int, d: int, epsilon: float, delta: float) -> str:
    """The library's front-door rule, mapped onto this registry's learner names."""
    from dpconvex.privacy.rules.front_door import (
        CENTROID,
        LARGE_MARGIN,
        LINEAR,
        NOISY_GD,
        choose_front_door_learner,
    )

    name = choose_front_door_learner(n, n_classes, d, epsilon, delta).learner
    return {LINEAR: "huber", CENTROID: "centroid", LARGE_MARGIN: "large_margin",
            NOISY_GD: "noisy_gd"}[name]


#: choice rules: ``rule(n, C, d, epsilon, delta)`` -> a LEARNERS name
RULES: dict[str, Callable[[int, int, int, float, float], str]] = {"library": _library_rule}


def _import(spec: str) -> Any:
    module, _, attr = spec.partition(":")
    return getattr(importlib.import_module(module), attr)


def register(spec: str, *, rule: bool = False) -> str:
    """Make ``spec`` usable: a registered name, or ``module:function`` added under that text.

    Raises
    ------
    KeyError
        ``spec`` is neither registered nor of the form ``module:function``.
    """
    if spec in (RULES if rule else {}) or spec in LEARNERS:
        return spec
    if ":" not in spec:
        known = sorted(LEARNERS) + (sorted(RULES) if rule else [])
        raise KeyError(f"unknown {'rule' if rule else 'learner'} {spec!r}; choose from {known} "
                       "or give module:function")
    fn = _import(spec)
    if rule:
        RULES[spec] = fn
    else:
        LEARNERS[spec] = fn if isinstance(fn, Learner) else Learner(fn, False, spec)
    return spec


# ---------------------------------------------------------------------------- data
def delta_value(spec: str, n_train: int) -> float:
    """δ of a ``--deltas`` entry: "0", "1/n2" (1 / n_train²) or a number."""
    if spec == "1/n2":
        return 1.0 / float(n_train) ** 2
    return float(spec)


def load_split(name: str, seed: int, quick: bool, train_rows: int | None = None) -> corpus.Split:
    """``corpus.split(name, seed)``; with ``quick``, seeded subsamples of QUICK_ROWS rows;
    with ``train_rows`` M, a seeded subsample of M training rows (the test rows whole)."""
    sp = corpus.split(name, seed)
    if train_rows is not None:
        X, y = harness.subsample(sp.X_train, sp.y_train, train_rows, seed)
        sp = corpus.Split(X, y, sp.X_test, sp.y_test, sp.classes)
    if not quick:
        return sp
    X, y = harness.subsample(sp.X_train, sp.y_train, QUICK_ROWS[0], seed)
    Xt, yt = harness.subsample(sp.X_test, sp.y_test, QUICK_ROWS[1], seed)
    return corpus.Split(X, y, Xt, yt, sp.classes)


def fingerprint(sp: corpus.Split) -> str:
    """SHA-256 (first 16 hex digits) of a split's arrays: the cache's key to the rows."""
    h = hashlib.sha256()
    for a in sp[:4]:
        a = np.ascontiguousarray(a)
        h.update(f"{a.shape}{a.dtype.str}".encode())
        h.update(a.tobytes())
    return h.hexdigest()[:16]


# ---------------------------------------------------------------------------- fits (worker)
def _one_thread_env() -> dict[str, str]:
    return {**os.environ, **{k: "1" for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                               "MKL_NUM_THREADS")}}


def diffprivlib_python() -> tuple[str | None, str]:
    """The interpreter of benchmarks/.venv if diffprivlib imports there, or why not."""
    if not VENV_PYTHON.exists():
        return None, "benchmarks/.venv is missing (run bash benchmarks/setup_env.sh)"
    probe = subprocess.run([str(VENV_PYTHON), "-c", "import diffprivlib, sklearn; "
                            "print(diffprivlib.__version__, sklearn.__version__)"],
                           capture_output=True, text=True, env=_one_thread_env(), timeout=300)
    if probe.returncode != 0:
        return None, "diffprivlib does not import in benchmarks/.venv"
    v = probe.stdout.split()
    return str(VENV_PYTHON), f"benchmarks/.venv (diffprivlib {v[0]}, scikit-learn {v[1]})"


def run_diffprivlib(python: str, name: str, seed: int, sp: corpus.Split,
                    epsilons: Sequence[float]) -> dict[tuple[float, str], float]:
    """(ε, model) -> test accuracy of DPL_SCRIPT's models on this split (pure ε)."""
    lo, hi = front_door_data.schema_bounds(corpus.TABLES[name].schema)
    with tempfile.TemporaryDirectory(prefix="corpus_dpl_") as tmp:
        d = Path(tmp)
        np.savez(d / f"{name}_{seed}.npz", X_train=sp.X_train, y_train=sp.y_train,
                 X_test=sp.X_test, y_test=sp.y_test, lo=lo, hi=hi, classes=np.asarray(sp.classes),
                 epsilons=np.asarray(epsilons, dtype=float))
        meta = {"seeds": [seed], "datasets": {name: {
            "label": name, "epsilons": list(epsilons), "classes": list(sp.classes),
            "split": f"corpus.split({name!r}, {seed})"}}}
        (d / "meta.json").write_text(json.dumps(meta))
        proc = subprocess.run([python, str(DPL_SCRIPT), "--data", str(d), "--out", str(d / "dpl")],
                              capture_output=True, text=True, env=_one_thread_env(), timeout=3600)
        if proc.returncode != 0:
            raise RuntimeError(f"{DPL_SCRIPT.name} failed: {proc.stderr.strip()[-300:]}")
        acc = json.loads((d / "dpl.json").read_text())["cells"][name]["accuracy"]
    return {(eps, m): float(acc[f"{m}/{eps:g}"]["per_seed"][0]) for eps in epsilons for m in DPL_MODELS}


def run_split(job: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Fit what the cache lacks on one (table, seed): (split facts, new cache records).

    BLAS runs on one thread (``threadpoolctl``), also when :func:`main` is called from
    another script that did not set the environment variables.
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        return _run_split(job)


def _run_split(job: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    from sklearn.linear_model import LogisticRegression

    name, seed, tag = job["table"], job["seed"], job["tag"]
    t0 = time.perf_counter()
    try:
        sp = load_split(name, seed, job["quick"], job["train_rows"])
    except Exception as exc:  # a broken table is reported and left out, the others run
        return {"table": name, "seed": seed, "error": f"{type(exc).__name__}: {exc}"[:200],
                "seconds": time.perf_counter() - t0}, []
    if job["train_rows"] is not None and len(sp.y_train) < job["train_rows"]:
        return {"table": name, "seed": seed, "seconds": time.perf_counter() - t0,
                "skipped": f"{len(sp.y_train)} training rows < --train-rows"}, []
    fp = fingerprint(sp)
    n, d, C = len(sp.y_train), sp.X_train.shape[1], len(sp.classes)
    info = {"table": name, "seed": seed, "data": fp, "n_train": n, "n_test": len(sp.y_test),
            "d": d, "classes": C}
    done = {k[1:] for k in job["done"] if k[0] == fp}
    rows: list[dict[str, Any]] = []

    def record(learner: str, eps: float | None, dspec: str | None, acc: float | None,
               err: str | None = None, secs: float = 0.0, chose: str | None = None) -> None:
        rows.append({"tag": tag, "table": name, "seed": seed, "data": fp, "epsilon": eps,
                     "delta": dspec, "delta_value": None if dspec is None else delta_value(dspec, n),
                     "learner": learner, "accuracy": acc, "error": err, "chose": chose,
                     "seconds": round(secs, 3)})

    if (None, None, MAJORITY) not in done:
        values, counts = np.unique(sp.y_train, return_counts=True)
        record(MAJORITY, None, None, float(np.mean(sp.y_test == values[np.argmax(counts)])))
    if (None, None, NON_PRIVATE) not in done:
        s = time.perf_counter()
        lr = LogisticRegression(max_iter=2000).fit(sp.X_train, sp.y_train)
        record(NON_PRIVATE, None, None, float(lr.score(sp.X_test, sp.y_test)),
               secs=time.perf_counter() - s)
    rule = RULES.get(job.get("rule", ""))
    for eps in job["epsilons"]:
        for dspec in job["deltas"]:
            delta = delta_value(dspec, n)
            names = list(job["learners"])
            if rule is not None:  # the learner the rule picks is fitted too
                names.append(rule(n, C, d, eps, delta))
            for learner in dict.fromkeys(names):
                if (eps, dspec, learner) in done:
                    continue
                est = LEARNERS[learner].factory(eps, delta, list(sp.classes), seed)
                if est is None:
                    continue
                s = time.perf_counter()
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        est.fit(sp.X_train, sp.y_train)
                    acc, err = float(est.score(sp.X_test, sp.y_test)), None
                except Exception as exc:  # a refusal is a result of the defaults
                    acc, err = None, f"{type(exc).__name__}: {exc}"[:200]
                record(learner, eps, dspec, acc, err, time.perf_counter() - s,
                       getattr(est, "learner_", None) if acc is not None else None)
    if job["dpl_python"]:
        missing = [e for e in job["epsilons"]
                   if any((e, "0", f"diffprivlib:{m}") not in done for m in DPL_MODELS)]
        if missing:
            s = time.perf_counter()
            try:
                got = run_diffprivlib(job["dpl_python"], name, seed, sp, missing)
            except (RuntimeError, OSError, subprocess.SubprocessError) as exc:  # not cached: retried
                got, info["diffprivlib_error"] = {}, f"{type(exc).__name__}: {exc}"[:300]
            secs = (time.perf_counter() - s) / max(len(got), 1)
            for (eps, m), acc in got.items():
                record(f"diffprivlib:{m}", eps, "0", acc, secs=secs)
    info["seconds"] = time.perf_counter() - t0
    return info, rows


# ---------------------------------------------------------------------------- cache
def read_cache(path: Path, tag: str) -> list[dict[str, Any]]:
    """The cache's records of ``tag`` (a partly written last line is skipped)."""
    if not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            r = json.loads(line)
        except json.JSONDecodeError:
            continue
        if r.get("tag") == tag:
            out.append(r)
    return out


def cache_key(r: dict[str, Any]) -> tuple:
    """(table, seed, data, ε, δ, learner) of a cache record."""
    return r["table"], r["seed"], r["data"], r["epsilon"], r["delta"], r["learner"]


def default_tag() -> str:
    """The dpconvex commit, plus a hash of uncommitted changes under dpconvex/ if any."""
    root = HERE.parent

    def git(*a: str) -> str:
        try:
            return subprocess.run(["git", *a], cwd=root, capture_output=True, text=True,
                                  timeout=30).stdout
        except (OSError, subprocess.SubprocessError):
            return ""

    commit = git("rev-parse", "--short", "HEAD").strip() or "unknown"
    dirty = git("diff", "HEAD", "--", "dpconvex") + git("ls-files", "--others", "--exclude-standard",
                                                        "dpconvex")
    return f"{commit}+{hashlib.sha256(dirty.encode()).hexdigest()[:8]}" if dirty.strip() else commit


# ---------------------------------------------------------------------------- cells and criteria
def mean_se(values: Sequence[float]) -> tuple[float, float]:
    """Mean and standard error (sample std / sqrt(k)) of ``values``."""
    v = np.asarray(values, dtype=float)
    return float(v.mean()), (float(v.std(ddof=1) / math.sqrt(v.size)) if v.size > 1 else 0.0)


@dataclasses.dataclass
class Cell:
    """One table × ε × δ: per learner, the per-seed accuracies (None: refused) and refusals."""

    table: str
    epsilon: float
    delta: str
    seeds: list[int]
    acc: dict[str, dict[int, float | None]] = dataclasses.field(default_factory=dict)
    errors: dict[str, str] = dataclasses.field(default_factory=dict)
    chose: dict[str, list[str]] = dataclasses.field(default_factory=dict)

    def stat(self, learner: str) -> tuple[float, float] | str | None:
        """(mean, se) over every seed; the refusal's text; None if not measured on every seed."""
        if learner in self.errors:
            return "refused: " + self.errors[learner][:60]
        got = self.acc.get(learner, {})
        if any(s not in got for s in self.seeds) or not self.seeds:
            return None
        return mean_se([got[s] for s in self.seeds])

    def mean(self, learner: str) -> float | None:
        s = self.stat(learner)
        return s[0] if isinstance(s, tuple) else None


def build_cells(records: Sequence[dict[str, Any]], infos: dict[tuple[str, int], dict[str, Any]],
                epsilons: Sequence[float], deltas: Sequence[str], rule: str,
                learners: Sequence[str] | None = None, rule_label: str = "rule") -> list[Cell]:
    """The cells of the run from the cache records of the splits in ``infos``.

    Records of another split (a different ``data`` hash) are ignored. Baselines fill every
    cell of their table; diffprivlib (pure ε) every δ of its ε. The rule's column
    (``rule_label``) is the named learner's fits, or, for a choice rule, the fits of the
    learner it picks on each seed. ``learners`` (None: all in the records) are the columns
    kept besides the rule and the baselines; diffprivlib's are kept if it names
    ``"diffprivlib"``.
    """
    by_split: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for r in records:
        info = infos.get((r["table"], r["seed"]))
        if info is not None and r["data"] == info["data"]:
            by_split.setdefault((r["table"], r["seed"]), []).append(r)
    tables = list(dict.fromkeys(t for t, _ in infos))
    cells = []
    for table in tables:
        seeds = sorted(s for t, s in infos if t == table)
        for eps in epsilons:
            for dspec in deltas:
                cell = Cell(table, float(eps), dspec, seeds)
                for seed in seeds:
                    info = infos[(table, seed)]
                    for r in by_split.get((table, seed), []):
                        base = r["epsilon"] is None
                        dpl = r["learner"].startswith("diffprivlib:") and r["epsilon"] == eps
                        if not (base or dpl or (r["epsilon"] == eps and r["delta"] == dspec)):
                            continue
                        if r["accuracy"] is None:
                            cell.errors.setdefault(r["learner"], r["error"] or "error")
                        cell.acc.setdefault(r["learner"], {})[seed] = r["accuracy"]
                        if r.get("chose"):
                            cell.chose.setdefault(r["learner"], []).append(r["chose"])
                    if rule in RULES:
                        pick = RULES[rule](info["n_train"], info["classes"], info["d"], float(eps),
                                           delta_value(dspec, info["n_train"]))
                        cell.chose.setdefault(rule_label, []).append(pick)
                        if seed in cell.acc.get(pick, {}):
                            cell.acc.setdefault(rule_label, {})[seed] = cell.acc[pick][seed]
                            if pick in cell.errors:
                                cell.errors[rule_label] = cell.errors[pick]
                    elif seed in cell.acc.get(rule, {}):
                        cell.acc.setdefault(rule_label, {})[seed] = cell.acc[rule][seed]
                        if rule in cell.errors:
                            cell.errors[rule_label] = cell.errors[rule]
                        cell.chose[rule_label] = cell.chose.get(rule, [])
                if learners is not None:
                    keep = {*learners, rule_label, MAJORITY, NON_PRIVATE}
                    for k in list(cell.acc):
                        if k not in keep and not (k.startswith("diffprivlib:") and "diffprivlib" in keep):
                            del cell.acc[k]
                            cell.errors.pop(k, None)
                cells.append(cell)
    return cells


def cell_means(cell: Cell, rule_label: str = "rule") -> dict[str, Any]:
    """The means criteria() reads: rule, majority, non-private, singles and diffprivlib models."""
    singles = {k: m for k in cell.acc if k in LEARNERS and LEARNERS[k].single
               and (m := cell.mean(k)) is not None}
    dpl = {k: m for k in cell.acc if k.startswith("diffprivlib:") and (m := cell.mean(k)) is not None}
    return {"table": cell.table, "epsilon": cell.epsilon, "delta": cell.delta,
            "rule": cell.mean(rule_label), "majority": cell.mean(MAJORITY),
            "non_private": cell.mean(NON_PRIVATE), "singles": singles, "diffprivlib": dpl}


def criteria(cells: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The issue's criteria over per-cell means (each a :func:`cell_means` dict).

    (a) ``below_majority``: cells where majority − rule > 0.5 points; (b) ``within_1pt``:
    cells where best single − rule <= 1 point, over the cells with a single estimator;
    (c) ``at_least_diffprivlib``: cells where rule >= diffprivlib's best, over the cells
    with diffprivlib. Cells where the rule has no mean (refused, missing) are counted in
    ``no_rule`` and in none of the three.
    """
    out = {"cells": len(cells), "no_rule": 0, "below_majority": 0, "below_majority_cells": [],
           "within_1pt": 0, "with_singles": 0, "at_least_diffprivlib": 0, "with_diffprivlib": 0}
    for c in cells:
        rule = c["rule"]
        where = (c["table"], c["epsilon"], c["delta"])
        if rule is None:
            out["no_rule"] += 1
            continue
        if c["majority"] is not None and 100 * (c["majority"] - rule) > 0.5 + TOL:
            out["below_majority"] += 1
            out["below_majority_cells"].append(where)
        if c["singles"]:
            out["with_singles"] += 1
            out["within_1pt"] += 100 * (max(c["singles"].values()) - rule) <= 1 + TOL
        if c["diffprivlib"]:
            out["with_diffprivlib"] += 1
            out["at_least_diffprivlib"] += 100 * (rule - max(c["diffprivlib"].values())) >= -TOL
    for k, m in (("within_1pt", "with_singles"), ("at_least_diffprivlib", "with_diffprivlib")):
        out[f"{k}_share"] = out[k] / out[m] if out[m] else None
    return out


# ---------------------------------------------------------------------------- output
def show(s: Any) -> str:
    """A cell in percent: "mean ± se", a refusal's text, or "–" when not measured."""
    if s is None:
        return "–"
    return s if isinstance(s, str) else f"{100 * s[0]:.1f} ± {100 * s[1]:.1f}"


def _best(cell: Cell, names: Sequence[str]) -> tuple[str, tuple[float, float]] | None:
    got = [(k, s) for k in names if isinstance(s := cell.stat(k), tuple)]
    return max(got, key=lambda t: t[1][0]) if got else None


def table_of(table: str, cells: Sequence[Cell], infos: dict, rule: str, rule_label: str = "rule"
             ) -> harness.Table:
    """One table's markdown table: a row per learner and baseline, a column per (ε, δ)."""
    mine = [c for c in cells if c.table == table]
    info = next(v for (t, _), v in infos.items() if t == table)
    seeds = mine[0].seeds
    cols = [f"ε={c.epsilon:g}, δ={'1/n²' if c.delta == '1/n2' else c.delta}" for c in mine]
    t = harness.Table(f"{table}: n train / test {info['n_train']} / {info['n_test']}, d = {info['d']}, "
                      f"C = {info['classes']}; seeds {seeds[0]}..{seeds[-1]} ({len(seeds)})",
                      ["learner", *cols])
    learners = list(dict.fromkeys(k for c in mine for k in c.acc))
    singles = [k for k in learners if k in LEARNERS and LEARNERS[k].single]
    others = [k for k in learners if k in LEARNERS and not LEARNERS[k].single and k != rule]
    dpl = [k for k in learners if k.startswith("diffprivlib:")]

    def chose(c: Cell, k: str) -> str:
        got = c.chose.get(k, [])
        return ", ".join(f"{v} ×{got.count(v)}" for v in dict.fromkeys(got)) or "–"

    t.add(f"**rule: {rule}**", *(show(c.stat(rule_label)) for c in mine))
    t.add("rule chose", *(chose(c, rule_label) for c in mine))
    for k in others:
        t.add(LEARNERS[k].label or k, *(show(c.stat(k)) for c in mine))
    for k in singles:
        t.add(LEARNERS[k].label or k, *(show(c.stat(k)) for c in mine))
    t.add("best single (test-chosen)", *(
        f"{show(b[1])} ({b[0]})" if (b := _best(c, singles)) else "–" for c in mine))
    if dpl:
        for k in dpl:
            t.add(DPL_LABELS.get(k.split(":", 1)[1], k) + ", pure ε", *(show(c.stat(k)) for c in mine))
        t.add("diffprivlib best (test-chosen)", *(
            f"{show(b[1])} ({b[0].split(':', 1)[1]})" if (b := _best(c, dpl)) else "–" for c in mine))
    t.add(f"{harness.NON_PRIVATE} (scikit-learn LogisticRegression)",
          *(show(c.stat(NON_PRIVATE)) for c in mine))
    t.add(f"{harness.MAJORITY} (training labels' majority; non-private)",
          *(show(c.stat(MAJORITY)) for c in mine))
    t.notes.append("Test accuracy in %, mean ± standard error over the seeds.")
    return t


def _pts(rule: float | None, other: float | None) -> str:
    return "–" if rule is None or other is None else f"{100 * (rule - other):+.1f}"


def _pct(share: float | None) -> str:
    return "n/a" if share is None else f"{100 * share:.0f}%"


def summary_lines(cells: Sequence[Cell], crit: dict[str, Any], rule: str,
                  rule_label: str = "rule") -> list[str]:
    """Per-cell gaps and the criteria, as markdown lines."""
    lines = [f"## Summary: rule `{rule}`", "",
             "| table | ε | δ | rule | rule − majority | best single (test-chosen) | rule − best single "
             "| diffprivlib best (test-chosen) | rule − diffprivlib best | non-private |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for c in cells:
        m = cell_means(c, rule_label)
        best = max(m["singles"].items(), key=lambda kv: kv[1]) if m["singles"] else None
        dpl = max(m["diffprivlib"].items(), key=lambda kv: kv[1]) if m["diffprivlib"] else None
        best_txt = f"{100 * best[1]:.1f} ({best[0]})" if best else "–"
        dpl_txt = f"{100 * dpl[1]:.1f} ({dpl[0].split(':', 1)[1]})" if dpl else "–"
        lines.append(
            f"| {c.table} | {c.epsilon:g} | {c.delta} | {show(c.stat(rule_label))} | "
            f"{_pts(m['rule'], m['majority'])} | {best_txt} | "
            f"{_pts(m['rule'], best[1] if best else None)} | {dpl_txt} | "
            f"{_pts(m['rule'], dpl[1] if dpl else None)} | {show(c.stat(NON_PRIVATE))} |")
    lines += ["", f"Cells: {crit['cells']} ({crit['no_rule']} without a rule mean: refused or missing).",
              f"(a) rule below the majority class by > 0.5 points: {crit['below_majority']} cell(s)"
              + (f" {crit['below_majority_cells']}" if crit["below_majority_cells"] else "") + ".",
              f"(b) rule within 1 point of the best single dpconvex estimator (test-chosen): "
              f"{crit['within_1pt']} / {crit['with_singles']} = {_pct(crit['within_1pt_share'])}.",
              f"(c) rule >= diffprivlib's best (test-chosen of {len(DPL_MODELS)} models, pure ε): "
              + (f"{crit['at_least_diffprivlib']} / {crit['with_diffprivlib']} = "
                 f"{_pct(crit['at_least_diffprivlib_share'])}." if crit["with_diffprivlib"]
                 else "not measured (run with --diffprivlib).")]
    return lines


# ---------------------------------------------------------------------------- main
def quick_tables() -> list[str]:
    """One binary and one multiclass table (the first of each), else the first two."""
    names = list(corpus.TABLES)
    two = [n for n in names if len(corpus.TABLES[n].class_names) == 2][:1]
    many = [n for n in names if len(corpus.TABLES[n].class_names) > 2][:1]
    return (two + many) if two and many else names[:2]


def parser() -> Any:
    ap = harness.parser(__doc__)
    ap.add_argument("--tables", nargs="*", default=None,
                    help="corpus table names, or binary / multiclass (default: all)")
    ap.add_argument("--seeds", choices=("selection", "report"), default="selection")
    ap.add_argument("--n-seeds", type=int, default=None, help="the first K seeds only")
    ap.add_argument("--epsilons", nargs="*", type=float, default=[0.5, 1.0, 2.0])
    ap.add_argument("--deltas", nargs="*", default=["0", "1/n2"], help='"0", "1/n2" or numbers')
    ap.add_argument("--learners", nargs="*", default=list(DEFAULT_LEARNERS),
                    help=f"names ({', '.join(LEARNERS)}) or module:function factories")
    ap.add_argument("--rule", default="front_door",
                    help="the scored column: a learner, a rule (library) or module:function")
    ap.add_argument("--diffprivlib", action="store_true", help="add diffprivlib (benchmarks/.venv)")
    ap.add_argument("--procs", type=int, default=1, help="processes over (table, seed)")
    ap.add_argument("--tag", default=None, help="cache key (default: the dpconvex commit)")
    ap.add_argument("--train-rows", type=int, default=None, metavar="M",
                    help="fit on a seeded subsample of M training rows (tables with fewer are "
                         "left out); the test rows stay whole")
    return ap


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Run the harness (arguments as on the command line); returns the run's data."""
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = parser()
    args = ap.parse_args(argv)
    for dspec in args.deltas:
        if dspec != "1/n2":
            try:
                float(dspec)
            except ValueError:
                ap.error(f"--deltas takes 0, 1/n2 or numbers, got {dspec!r}")
    try:
        learners = [register(s) for s in args.learners]
        rule = register(args.rule, rule=True)
    except (KeyError, ImportError, AttributeError) as exc:
        ap.error(str(exc))
    if rule in LEARNERS and rule not in learners:
        learners.insert(0, rule)
    seeds = list(corpus.SELECTION_SEEDS if args.seeds == "selection" else corpus.REPORT_SEEDS)
    groups = {"binary": [t for t, v in corpus.TABLES.items() if len(v.class_names) == 2],
              "multiclass": [t for t, v in corpus.TABLES.items() if len(v.class_names) > 2]}
    tables = list(dict.fromkeys(x for t in (args.tables or list(corpus.TABLES))
                                for x in groups.get(t, [t])))
    if args.quick:
        tables = tables if args.tables else quick_tables()
        seeds, args.epsilons, args.deltas = seeds[:1], [1.0], ["0"]
        if args.learners == list(DEFAULT_LEARNERS):
            learners = list(dict.fromkeys([*([rule] if rule in LEARNERS else []), "front_door",
                                           "logistic"]))
    if args.n_seeds:
        seeds = seeds[: args.n_seeds]
    unknown = [t for t in tables if t not in corpus.TABLES]
    if unknown or not tables:
        ap.error(f"unknown or no tables {unknown}; the corpus has {sorted(corpus.TABLES)}")
    tag = args.tag or default_tag()
    run_name = ("corpus_run" + (f"-rows{args.train_rows}" if args.train_rows else "")
                + ("-quick" if args.quick else ""))  # the name harness.Run gives its files
    cache = Path(args.out) / f"{run_name}.jsonl"
    cache.parent.mkdir(parents=True, exist_ok=True)
    with harness.Run(__file__, args, argv, f"rows{args.train_rows}" if args.train_rows else "") as run:
        dpl_python, dpl_where = diffprivlib_python() if args.diffprivlib else (None, "not asked")
        run.note(f"tag {tag}; tables {tables}; seeds {seeds}; ε {args.epsilons}; δ {args.deltas}; "
                 f"learners {learners}; rule {rule}; diffprivlib: {dpl_where}; procs {args.procs}")
        done: dict[tuple[str, int], set] = {}
        for r in read_cache(cache, tag):
            done.setdefault((r["table"], r["seed"]), set()).add(cache_key(r)[2:])
        jobs = [{"table": t, "seed": s, "tag": tag, "quick": args.quick,
                 "train_rows": args.train_rows, "epsilons": args.epsilons,
                 "deltas": args.deltas, "learners": learners, "rule": rule,
                 "dpl_python": dpl_python, "done": done.get((t, s), set())}
                for t in tables for s in seeds]
        infos: dict[tuple[str, int], dict[str, Any]] = {}
        if args.procs > 1 and len(jobs) > 1:
            pool = mp.get_context("fork").Pool(min(args.procs, len(jobs)))
            results = pool.imap_unordered(run_split, jobs)
        else:
            pool, results = None, map(run_split, jobs)
        try:
            for info, rows in results:
                infos[(info["table"], info["seed"])] = info
                with cache.open("a", encoding="utf-8") as fh:
                    fh.writelines(json.dumps(r) + "\n" for r in rows)
                print(f"{info['table']} seed {info['seed']}: "
                      + (f"split failed ({info['error']})" if "error" in info else
                         f"left out ({info['skipped']})" if "skipped" in info else
                         f"{len(rows)} new fit(s), {info['seconds']:.1f} s"), flush=True)
                if "diffprivlib_error" in info:
                    run.note(f"{info['table']} seed {info['seed']}: diffprivlib failed "
                             f"({info['diffprivlib_error']}); its cells lack diffprivlib")
        finally:
            if pool is not None:
                pool.close()
                pool.join()
        failed = sorted({t for (t, _), v in infos.items() if "error" in v})
        if failed:
            run.note(f"left out (a split failed): {failed}")
        small = sorted({t for (t, _), v in infos.items() if "skipped" in v})
        if small:
            run.note(f"left out (fewer than {args.train_rows} training rows): {small}")
        tables = [t for t in tables if t not in failed and t not in small]
        if not tables:
            raise RuntimeError(f"no table left to score: splits failed {failed}, fewer training "
                               f"rows than --train-rows {small}")
        infos = {(t, s): infos[(t, s)] for t in tables for s in seeds}
        shown = [*learners, *(["diffprivlib"] if dpl_python else [])]
        cells = build_cells(read_cache(cache, tag), infos, args.epsilons, args.deltas, rule, shown)
        for t in tables:
            run.table(table_of(t, cells, infos, rule))
        crit = criteria([cell_means(c) for c in cells])
        for line in summary_lines(cells, crit, rule):
            run.note(line)
        run.data.update(tag=tag, tables=tables, seeds=seeds, rule=rule, learners=learners,
                        criteria=crit, splits=list(infos.values()),
                        cells=[{**cell_means(c), "stats": {k: c.stat(k) for k in c.acc}}
                               for c in cells])
    return run.data


if __name__ == "__main__":
    main()
