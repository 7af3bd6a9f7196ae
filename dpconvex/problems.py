"""Canonical experiments as declarative TOML files, with their expected bands.

A problem file names a dataset and its split, the learners and their
parameters, the ε grid, the number of randomized runs, and the band each result
must fall in (the regression oracle). ``dpconvex run NAME`` runs it; the test
suite runs every problem in its ``--quick`` form. The file format is documented
in ``problems/README.md``; adding a problem means writing a file, not code.

Experiments seed their noise (``[grid] seed``) so that results are
reproducible; seeded noise is fine for measuring utility but a model trained
with a known seed is not private: real releases use ``random_state=None``.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .errors import DPConvexError
from .sweep import epsilon_sweep

__all__ = [
    "DATASETS",
    "ESTIMATORS",
    "Problem",
    "ProblemError",
    "ProblemResult",
    "find_problem",
    "list_problems",
    "load_problem",
    "plot_result",
    "run_problem",
]


class ProblemError(DPConvexError, ValueError):
    """A problem file is invalid: the message names the file, the key and the fix."""


# ----------------------------------------------------------------------------- registries
def _sk(name: str):
    from .datasets import load_sklearn

    return load_sklearn(name)


def _load_adult(**kw: Any):
    from .datasets import load_adult

    return {"train": load_adult("train", **kw), "test": load_adult("test", **kw)}


def _load_kddcup99(**kw: Any):
    from .datasets import load_kddcup99

    return load_kddcup99(**kw)


def _load_bcw(**kw: Any):
    from .datasets import load_breast_cancer_wisconsin

    return load_breast_cancer_wisconsin(**kw)


#: Datasets by name: a loader returning (X, y) or {"train": (X, y), "test": (X, y)}.
DATASETS: dict[str, Callable[..., Any]] = {
    "adult": _load_adult,
    "kddcup99": _load_kddcup99,
    "breast_cancer_wisconsin": _load_bcw,
    "sklearn_breast_cancer": lambda **_: _sk("breast_cancer"),
    "sklearn_wine": lambda **_: _sk("wine"),
    "sklearn_digits": lambda **_: _sk("digits"),
}

#: Estimators a problem may name (public dpconvex classes).
ESTIMATORS = (
    "PrivateLogisticRegression",
    "PrivateHuberSVM",
    "PrivateLargeMarginGaussian",
    "NoisyGradientDescent",
)

_TOP_KEYS = {"name", "title", "reference", "description", "data", "grid", "method", "expect",
             "quick"}
_DATA_KEYS = {"dataset", "split", "test_size", "train_size", "options"}
_GRID_KEYS = {"epsilon", "runs", "seed", "train_sizes"}
_METHOD_KEYS = {"label", "estimator", "params", "tune"}
_EXPECT_KEYS = {"method", "epsilon", "train_size", "max_error", "min_error"}
_QUICK_KEYS = {"runs", "epsilon", "max_train", "expect", "train_sizes"}


@dataclass
class Method:
    label: str
    estimator: str
    params: dict[str, Any]
    tune: dict[str, list[Any]] | None = None

    @property
    def private(self) -> bool:
        return self.params.get("mechanism", "objective") != "none"


@dataclass
class Expect:
    method: str
    epsilon: float | None
    max_error: float
    min_error: float = 0.0
    train_size: int | None = None


@dataclass
class Problem:
    """A parsed, validated problem file."""

    name: str
    path: Path
    title: str
    reference: str
    dataset: str
    split: str
    test_size: float | int | None
    train_size: float | int | None
    options: dict[str, Any]
    epsilons: list[float]
    runs: int
    seed: int
    methods: list[Method]
    expect: list[Expect]
    quick_runs: int
    quick_epsilons: list[float]
    quick_max_train: int | None
    quick_expect: list[Expect]
    train_sizes: list[int] | None = None
    quick_train_sizes: list[int] | None = None

    @property
    def x_axis(self) -> str:
        """"epsilon" (error vs ε) or "train_size" (a learning curve at the first ε)."""
        return "train_size" if self.train_sizes else "epsilon"


@dataclass
class ProblemResult:
    """Errors per method and ε (ε = inf for non-private methods), with the band checks."""

    problem: Problem
    quick: bool
    runs: int
    #: errors[method][x] with x = ε (inf for non-private) or the training-set size
    errors: dict[str, dict[float, list[float]]] = field(default_factory=dict)
    seconds: float = 0.0
    checks: list[dict[str, Any]] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(c["ok"] for c in self.checks)

    def summary(self) -> dict[str, dict[float, tuple[float, float]]]:
        return {m: {e: (float(np.mean(v)), float(np.std(v))) for e, v in d.items()}
                for m, d in self.errors.items()}

    def table(self) -> str:
        curve = self.problem.x_axis == "train_size"
        xs = sorted({e for d in self.errors.values() for e in d if math.isfinite(e)})
        head = [f"n={int(x)}" for x in xs] if curve else [f"ε={x:g}" for x in xs] + ["non-private"]
        title = f"{self.problem.name}: test error, mean ± std over {self.runs} runs"
        if curve:
            title += f" (learning curve at ε = {self._curve_eps():g})"
        lines = [title + (" (quick)" if self.quick else ""),
                 "| method | " + " | ".join(head) + " |", "|---" * (len(head) + 1) + "|"]
        for m, d in self.errors.items():
            keys = xs if curve else [*xs, math.inf]
            cells = [f"{np.mean(d[x]):.4f} ± {np.std(d[x]):.4f}" if x in d else "" for x in keys]
            lines.append(f"| {m} | " + " | ".join(cells) + " |")
        for c in self.checks:
            mark = "ok  " if c["ok"] else "FAIL"
            at = f"n={c['train_size']}" if c.get("train_size") else f"ε={c['epsilon']}"
            lines.append(f"[{mark}] {c['method']} at {at}: error {c['observed']:.4f} "
                         f"in [{c['min_error']:g}, {c['max_error']:g}]")
        return "\n".join(lines)

    def _curve_eps(self) -> float:
        eps = self.problem.quick_epsilons if self.quick else self.problem.epsilons
        return eps[0]

    def to_dict(self) -> dict[str, Any]:
        return {
            "problem": self.problem.name,
            "file": str(self.problem.path),
            "quick": self.quick,
            "runs": self.runs,
            "seconds": round(self.seconds, 2),
            "x_axis": self.problem.x_axis,
            "results": {m: {("inf" if math.isinf(e) else repr(e)): {"mean": float(np.mean(v)),
                                                                    "std": float(np.std(v)),
                                                                    "errors": [float(x) for x in v]}
                            for e, v in d.items()} for m, d in self.errors.items()},
            "checks": self.checks,
            "passed": self.passed,
        }


# ----------------------------------------------------------------------------- loading
def problem_dirs() -> list[Path]:
    """Where problem files are looked up: $DPCONVEX_PROBLEMS, then the repository's problems/."""
    dirs = []
    if os.environ.get("DPCONVEX_PROBLEMS"):
        dirs.append(Path(os.environ["DPCONVEX_PROBLEMS"]))
    dirs.append(Path(__file__).resolve().parents[1] / "problems")
    return dirs


def list_problems() -> list[Path]:
    """All problem files, by name."""
    seen: dict[str, Path] = {}
    for d in problem_dirs():
        if d.is_dir():
            for p in sorted(d.glob("*.toml")):
                seen.setdefault(p.stem, p)
    return [seen[k] for k in sorted(seen)]


def find_problem(name: str | os.PathLike) -> Path:
    p = Path(name)
    if p.suffix == ".toml" and p.is_file():
        return p
    for cand in list_problems():
        if cand.stem == str(name):
            return cand
    known = ", ".join(c.stem for c in list_problems()) or "(none found)"
    raise ProblemError(f"No problem named {str(name)!r}. Known problems: {known}. Pass a path to a "
                       ".toml file or one of these names (dpconvex list).")


def _err(path: Path, key: str, msg: str) -> ProblemError:
    return ProblemError(f"{path}: key '{key}': {msg}")


def _check_keys(path: Path, where: str, got: Any, allowed: set[str]) -> None:
    if not isinstance(got, dict):
        raise _err(path, where.rstrip(".") or "(top level)",
                   f"must be a table (key = value pairs), got {got!r}. See problems/README.md.")
    extra = set(got) - allowed
    if extra:
        k = sorted(extra)[0]
        raise _err(path, f"{where}{k}", f"unknown key. Allowed keys here: {sorted(allowed)}. "
                   "Fix the spelling or remove it (see problems/README.md).")


def _floats(path: Path, key: str, v: Any, positive: bool = True) -> list[float]:
    if not isinstance(v, list) or not v or not all(
            isinstance(x, (int, float)) and not isinstance(x, bool) for x in v):
        raise _err(path, key, f"must be a non-empty list of numbers, got {v!r}.")
    out = [float(x) for x in v]
    if positive and any(not (x > 0 and math.isfinite(x)) for x in out):
        raise _err(path, key, f"every epsilon must be a finite number > 0, got {v!r}.")
    return out


def _int(path: Path, key: str, v: Any, low: int = 1) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or v < low:
        raise _err(path, key, f"must be an integer >= {low}, got {v!r}.")
    return v


def _expects(path: Path, where: str, items: Any, labels: set[str]) -> list[Expect]:
    if items is None:
        return []
    if not isinstance(items, list):
        raise _err(path, where, "must be an array of tables ([[expect]]).")
    out = []
    for i, e in enumerate(items):
        k = f"{where}[{i}]."
        if not isinstance(e, dict):
            raise _err(path, f"{where}[{i}]", "must be a table.")
        _check_keys(path, k, e, _EXPECT_KEYS)
        if e.get("method") not in labels:
            raise _err(path, k + "method", f"{e.get('method')!r} is not the label of a [[method]]; "
                       f"labels: {sorted(labels)}.")
        if "max_error" not in e:
            raise _err(path, k + "max_error", "is required (the upper end of the band).")
        for key in ("max_error", "min_error"):
            v = e.get(key, 0.0)
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise _err(path, k + key, f"must be a number in [0, 1], got {v!r}.")
        eps = e.get("epsilon")
        if eps is not None and not (isinstance(eps, (int, float)) and eps > 0):
            raise _err(path, k + "epsilon", f"must be a number > 0 or omitted, got {eps!r}.")
        lo, hi = float(e.get("min_error", 0.0)), float(e["max_error"])
        if not 0 <= lo <= hi <= 1:
            raise _err(path, k + "max_error", f"band [{lo}, {hi}] must satisfy 0 <= min <= max <= 1.")
        ts = e.get("train_size")
        if ts is not None:
            ts = _int(path, k + "train_size", ts)
        out.append(Expect(e["method"], None if eps is None else float(eps), hi, lo, ts))
    return out


def _check_params(path: Path, key: str, estimator: str, params: dict[str, Any]) -> None:
    """Construct the estimator with ``params`` and validate them now, not mid-run."""
    import dpconvex

    cls = getattr(dpconvex, estimator)
    try:
        est = cls(**params)
    except TypeError as exc:
        raise _err(path, key, f"{exc}. Valid parameters of {estimator}: "
                   f"{sorted(cls().get_params())}.") from None
    validate = getattr(est, "_validate_params", None)
    if validate is not None:
        try:
            validate()
        except DPConvexError as exc:
            raise _err(path, key, str(exc)) from None


def load_problem(name: str | os.PathLike) -> Problem:
    """Read and validate a problem file (by name or path).

    Raises
    ------
    ProblemError
        Naming the file, the key and the fix, for unknown keys, bad values,
        unknown datasets or estimators.
    """
    path = find_problem(name)
    try:
        raw = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise ProblemError(f"{path}: not valid TOML ({exc}). Fix the syntax.") from None
    _check_keys(path, "", raw, _TOP_KEYS)
    data = raw.get("data")
    if not isinstance(data, dict):
        raise _err(path, "data", "a [data] table with at least 'dataset' is required.")
    _check_keys(path, "data.", data, _DATA_KEYS)
    dataset = data.get("dataset")
    if dataset is None:
        raise _err(path, "data.dataset", f"is required; choose one of {sorted(DATASETS)}.")
    if dataset not in DATASETS:
        raise _err(path, "data.dataset", f"unknown dataset {dataset!r}; choose one of "
                   f"{sorted(DATASETS)}.")
    split = data.get("split", "random")
    if split not in ("random", "given"):
        raise _err(path, "data.split", f"must be 'random' or 'given', got {split!r}.")
    for key in ("test_size", "train_size"):
        v = data.get(key)
        if v is None:
            continue
        ok = (isinstance(v, int) and not isinstance(v, bool) and v >= 1) or \
            (isinstance(v, float) and 0.0 < v < 1.0)
        if not ok:
            raise _err(path, f"data.{key}", f"must be a number of rows (int >= 1) or a fraction "
                       f"in (0, 1), got {v!r}.")
    if not isinstance(data.get("options", {}), dict):
        raise _err(path, "data.options", f"must be a table of loader arguments, got "
                   f"{data['options']!r}.")
    grid = raw.get("grid", {})
    _check_keys(path, "grid.", grid, _GRID_KEYS)
    epsilons = _floats(path, "grid.epsilon", grid.get("epsilon"))
    runs = _int(path, "grid.runs", grid.get("runs", 10))
    seed = _int(path, "grid.seed", grid.get("seed", 0), low=0)
    methods = []
    raw_methods = raw.get("method")
    if not isinstance(raw_methods, list) or not raw_methods:
        raise _err(path, "method", "at least one [[method]] table is required.")
    for i, m in enumerate(raw_methods):
        k = f"method[{i}]."
        _check_keys(path, k, m, _METHOD_KEYS)
        if m.get("estimator") not in ESTIMATORS:
            raise _err(path, k + "estimator", f"unknown estimator {m.get('estimator')!r}; choose "
                       f"one of {list(ESTIMATORS)}.")
        params = m.get("params", {})
        if not isinstance(params, dict):
            raise _err(path, k + "params", "must be a table of constructor parameters.")
        if "epsilon" in params or "random_state" in params:
            raise _err(path, k + "params", "must not set 'epsilon' or 'random_state': the grid "
                       "sets them.")
        tune = m.get("tune")
        if tune is not None and (not isinstance(tune, dict) or not all(
                isinstance(v, list) and v for v in tune.values())):
            raise _err(path, k + "tune", "must be a table of non-empty lists (the candidate grid).")
        _check_params(path, k + "params", m["estimator"], params)
        methods.append(Method(m.get("label") or m["estimator"], m["estimator"], dict(params), tune))
    labels = {m.label for m in methods}
    if len(labels) != len(methods):
        raise _err(path, "method.label", "labels must be unique.")
    expect = _expects(path, "expect", raw.get("expect"), labels)
    quick = raw.get("quick", {})
    _check_keys(path, "quick.", quick, _QUICK_KEYS)
    q_eps = _floats(path, "quick.epsilon", quick["epsilon"]) if "epsilon" in quick else epsilons
    q_expect = _expects(path, "quick.expect", quick.get("expect"), labels) if "expect" in quick \
        else expect
    sizes = grid.get("train_sizes")
    if sizes is not None:
        sizes = [_int(path, "grid.train_sizes", v) for v in
                 (sizes if isinstance(sizes, list) and sizes else [None])]
    q_sizes = quick.get("train_sizes", sizes)
    if q_sizes is not None:
        q_sizes = [_int(path, "quick.train_sizes", v) for v in
                   (q_sizes if isinstance(q_sizes, list) and q_sizes else [None])]
    return Problem(
        train_sizes=sizes, quick_train_sizes=q_sizes,
        name=raw.get("name", path.stem), path=path, title=raw.get("title", path.stem),
        reference=raw.get("reference", ""), dataset=dataset, split=split,
        test_size=data.get("test_size"), train_size=data.get("train_size"),
        options=dict(data.get("options", {})), epsilons=epsilons, runs=runs, seed=seed,
        methods=methods, expect=expect,
        quick_runs=_int(path, "quick.runs", quick.get("runs", 2)), quick_epsilons=q_eps,
        quick_max_train=quick.get("max_train"), quick_expect=q_expect,
    )


# ----------------------------------------------------------------------------- running
def _make_estimator(method: Method, epsilon: float | None, rng: np.random.Generator):
    import dpconvex

    cls = getattr(dpconvex, method.estimator)
    params = dict(method.params)
    if method.private:
        params["epsilon"] = epsilon
    params["random_state"] = rng
    est = cls(**params)
    if method.tune and method.private:
        return dpconvex.PrivateGridSearch(est, method.tune, epsilon=epsilon, random_state=rng)
    return est


def _split(problem: Problem, data: Any, rng: np.random.Generator):
    if isinstance(data, dict):
        return data["train"], data["test"]
    X, y = data
    n = len(y)
    ts = problem.test_size if problem.test_size is not None else 0.3
    n_test = int(ts if ts >= 1 else round(ts * n))
    perm = rng.permutation(n)
    test, train = perm[:n_test], perm[n_test:]
    if problem.train_size is not None:
        tr = problem.train_size
        train = train[: int(tr if tr >= 1 else round(tr * n))]
    return (X[train], y[train]), (X[test], y[test])


class _Progress:
    def __init__(self, total: int, enabled: bool, label: str):
        self.total, self.done, self.enabled, self.label = total, 0, enabled, label
        self.t0 = time.perf_counter()

    def step(self) -> None:
        self.done += 1
        if self.enabled:
            w = 30
            k = int(w * self.done / max(self.total, 1))
            el = time.perf_counter() - self.t0
            sys.stderr.write(f"\r{self.label} [{'#' * k}{'.' * (w - k)}] {self.done}/{self.total} "
                             f"{el:.0f}s")
            if self.done == self.total:
                sys.stderr.write("\n")
            sys.stderr.flush()


def run_problem(problem: Problem | str, *, runs: int | None = None, quick: bool = False,
                progress: bool = True) -> ProblemResult:
    """Run a problem: every method at every ε for every run; check the bands.

    Parameters
    ----------
    problem : Problem or str
        A loaded problem, or a name/path for :func:`load_problem`.
    runs : int, optional
        Override the number of randomized runs.
    quick : bool
        The reduced form: ``[quick]`` runs, ε grid, training-set cap and bands.
    progress : bool
        Draw a progress bar on stderr.
    """
    if not isinstance(problem, Problem):
        problem = load_problem(problem)
    n_runs = runs or (problem.quick_runs if quick else problem.runs)
    epsilons = problem.quick_epsilons if quick else problem.epsilons
    expect = problem.quick_expect if quick else problem.expect
    rng = np.random.default_rng(problem.seed)
    opts = dict(problem.options)
    if problem.dataset == "kddcup99":
        opts.setdefault("random_state", problem.seed)
    try:
        data = DATASETS[problem.dataset](**opts)
    except TypeError as exc:
        raise _err(problem.path, "data.options", f"not accepted by the loader: {exc}.") from None
    result = ProblemResult(problem, quick, n_runs)
    sizes = problem.quick_train_sizes if quick else problem.train_sizes
    if sizes:  # learning curve: every method at every size, private ones at the first epsilon
        cells = [(m, [(epsilons[0] if m.private else math.inf, s) for s in sizes])
                 for m in problem.methods]
    else:
        cells = [(m, [(e, None) for e in (epsilons if m.private else [math.inf])])
                 for m in problem.methods]
    bar = _Progress(n_runs * sum(len(c) for _, c in cells), progress, problem.name)
    t0 = time.perf_counter()
    for _ in range(n_runs):
        (Xtr, ytr), (Xte, yte) = _split(problem, data, rng)
        if quick and problem.quick_max_train and len(ytr) > problem.quick_max_train:
            idx = rng.choice(len(ytr), problem.quick_max_train, replace=False)
            Xtr, ytr = Xtr[idx], ytr[idx]
        for m, grid in cells:
            if not sizes and m.private and not m.tune:
                # one template per (split, method), warm-started across the ε grid
                sw = epsilon_sweep(_make_estimator(m, None, rng), Xtr, ytr,
                                   [e for e, _ in grid], random_state=rng)
                for (eps, _), (est,) in zip(grid, sw.estimators, strict=True):
                    err = 1.0 - float(est.score(Xte, yte))
                    result.errors.setdefault(m.label, {}).setdefault(eps, []).append(err)
                    bar.step()
                continue
            for eps, size in grid:
                Xs, ys = Xtr, ytr
                if size is not None:
                    if size > len(ytr):
                        raise _err(problem.path, "grid.train_sizes",
                                   f"size {size} exceeds the {len(ytr)} training rows.")
                    idx = rng.choice(len(ytr), size, replace=False)
                    Xs, ys = Xtr[idx], ytr[idx]
                est = _make_estimator(m, eps, rng).fit(Xs, ys)
                err = 1.0 - float(est.score(Xte, yte))
                key = float(size) if size is not None else eps
                result.errors.setdefault(m.label, {}).setdefault(key, []).append(err)
                bar.step()
    result.seconds = time.perf_counter() - t0
    for e in expect:
        d = result.errors.get(e.method, {})
        if e.train_size is not None:
            key = float(e.train_size)
        else:
            key = math.inf if e.epsilon is None else e.epsilon
        if key not in d:
            result.checks.append({"method": e.method, "epsilon": e.epsilon, "observed": math.nan,
                                  "train_size": e.train_size, "min_error": e.min_error,
                                  "max_error": e.max_error, "ok": False,
                                  "why": "no result at this point (not in the grid?)"})
            continue
        obs = float(np.mean(d[key]))
        result.checks.append({"method": e.method, "epsilon": e.epsilon, "observed": obs,
                              "train_size": e.train_size, "min_error": e.min_error,
                              "max_error": e.max_error, "ok": e.min_error <= obs <= e.max_error})
    return result


def plot_result(result: ProblemResult, path: str | os.PathLike) -> Path:
    """Error vs ε (log-x), one line per method, non-private as dashed horizontal lines."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    curve = result.problem.x_axis == "train_size"
    eps_all = sorted({e for d in result.errors.values() for e in d if math.isfinite(e)})
    nonprivate = {m.label for m in result.problem.methods if not m.private}
    for m, d in result.errors.items():
        if curve:
            es = sorted(d)
            ax.errorbar(es, [np.mean(d[e]) for e in es], yerr=[np.std(d[e]) for e in es],
                        marker="o", capsize=3, ls="--" if m in nonprivate else "-", label=m)
            continue
        if math.inf in d:
            shade = str(0.15 + 0.3 * (sum(1 for k in result.errors if k < m and math.inf in
                                           result.errors[k]) % 3))
            ax.axhline(np.mean(d[math.inf]), ls="--", lw=1.3, color=shade, label=f"{m}")
            continue
        es = sorted(d)
        mu = np.array([np.mean(d[e]) for e in es])
        sd = np.array([np.std(d[e]) for e in es])
        ax.errorbar(es, mu, yerr=sd, marker="o", capsize=3, label=m)
    ax.set_xscale("log")
    if eps_all:
        ax.set_xlim(min(eps_all) / 1.5, max(eps_all) * 1.5)
    ax.set_xlabel("training-set size n" if curve else "privacy parameter ε")
    ax.set_ylabel("test error")
    title = result.problem.title + (f" (ε = {result._curve_eps():g})" if curve else "")
    ax.set_title(title + (" (quick)" if result.quick else ""), fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def write_outputs(result: ProblemResult, out_dir: str | os.PathLike) -> tuple[Path, Path]:
    """Write results.json and error_vs_epsilon.png into ``out_dir``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    js = out / "results.json"
    js.write_text(json.dumps(result.to_dict(), indent=2))
    png = plot_result(result, out / "error_vs_epsilon.png")
    return js, png
