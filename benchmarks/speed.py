"""How fast and how heavy is dpconvex? Fit time, passes over the rows and peak memory per learner.

For n synthetic rows (10^4, 10^5, 10^6 by default, 10^7 with ``--large``; d = 50, ``--d``)
every default learner (``PrivateLogisticRegression``, ``PrivateHuberSVM``,
``PrivateLargeMarginGaussian``, all at ε = 1, ``NoisyGradientDescent`` at ε = 1, δ = 1e-8, on a
two-class set; ``PrivateGaussianCentroid`` at ε = 1 on a three-class set) and the front door
``PrivateClassifier(epsilon=1)`` is fitted, and each of its fit time, passes over the rows
and peak memory above the data is given as a ratio to scikit-learn's non-private
``LogisticRegression()`` fitted on the same rows in the same run. A second table sets the
front door and ``PrivateLogisticRegression`` against diffprivlib's ``LogisticRegression``.
Held-out accuracy is printed next to every fit, with the majority-class rate.

How each number is taken:

* every fit runs in a fresh Python process (started by this script with its ``--child``
  option) with one BLAS thread (``threadpoolctl`` and ``OMP_NUM_THREADS=1``), after a
  warm-up fit of the same learner on the first rows (the imports and first-call costs);
* time: wall time of one ``fit`` (``time.perf_counter``);
* peak memory above the data: a second fit in the same process under ``tracemalloc``
  (NumPy and SciPy register their arrays with it), started after the rows exist, so the
  rows are not in the trace and the peak is the most memory the fit held at once on top
  of the data (copies of the rows included). Memory allocated outside Python's and
  NumPy's allocators (BLAS buffers, compiled solvers) is not seen;
* passes, counted in the child by wrapping (not changing) the row kernels. A pass is one
  outermost call of a row kernel: ``matvec``, ``rmatvec`` or ``row_norms`` of the design
  operators in ``dpconvex.data.operators`` (their fused ``matvec_rmatvec``, both products
  of a gradient, counts two, as a ``loss_gradient`` of scikit-learn does), or ``forms``,
  ``adjoint`` or ``features`` of a
  large-margin space in ``dpconvex.templates`` (about n·p work each; a kernel calling
  another counts once; the records' fused ``forms_adjoint`` counts two). A Gram-type pass
  is an outermost call in which a Gram-type kernel ran: an operator's or the large-margin
  records' ``weighted_gram`` (or ``forms_gram``), ``dpconvex.data.gram``'s ``weighted_gram`` /
  ``quadratic_forms``, or the quadratic parameterizations' ``forms`` / ``adjoint`` /
  ``gram_operator_norm`` (each reads the rows once but costs about p times a product); they
  have their own column. ``PrivateGaussianCentroid`` sums its classes outside the design
  operators: its passes are not counted ("n/c"). scikit-learn's and diffprivlib's passes:
  2 per call of scikit-learn's ``LinearModelLoss.loss_gradient`` (X·w and Xᵀg; L-BFGS calls
  it once per function evaluation, line searches included), 1 per ``loss``, 2 per
  ``gradient``;
* data: a seeded linear model; rows drawn N(0, I/4), clipped to [-1, 1] and divided by
  sqrt(d) (a public rule, so every row has norm <= 1), labels sign(x·w + noise) (three
  classes: argmax of three such scores); 10,000 held-out rows from the same model.

Sparse rows (``--sparse DENSITY``, e.g. ``python benchmarks/speed.py --n 1000000 --d 20
--sparse 0.25``, about 30 s): the training and held-out rows are a SciPy CSR array
(``scipy.sparse.csr_array``) in which every row stores k = ``DENSITY``·d (rounded, at least 1)
entries, at k distinct columns drawn uniformly, each N(0, 1/4) clipped to [-1, 1] and divided
by sqrt(k) (a public rule, so every row has norm <= 1; the density is k/d exactly); labels
as above from the same model. Every learner, scikit-learn's ``LogisticRegression()`` (the
baseline of the ratios) included, is given these CSR rows; a learner that refuses them (its
warm-up fit on the sparse rows raises, the same fit on those rows made dense does not) is
not run and is shown as skipped, with its message in a note. "Above the data" is then above
the CSR arrays (values, column indices, row pointers). The results files are
``speed-sparse[-quick].json`` and ``.md``; ``--record`` writes ``recorded/speed-sparse.md``.

The dpconvex learners are given the public label set (``classes``) and, as every private
learner here, the noise seed ``random_state=0`` (a measurement, not a release).
"""

from __future__ import annotations

import argparse
import gc
import inspect
import json
import math
import os
import subprocess
import sys
import time
import tracemalloc
import warnings
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
VENV_PYTHON = HERE / ".venv" / "bin" / "python"
RECORDED = HERE / "recorded" / "speed.md"
RECORDED_SPARSE = HERE / "recorded" / "speed-sparse.md"
TAG = "SPEED-RESULT "

#: learner -> (data set, constructor text shown in the table)
LEARNERS = {
    "sklearn": ("binary", "scikit-learn LogisticRegression() (non-private)"),
    "logistic": ("binary", "PrivateLogisticRegression(epsilon=1)"),
    "huber": ("binary", "PrivateHuberSVM(epsilon=1)"),
    "large_margin": ("binary", "PrivateLargeMarginGaussian(epsilon=1)"),
    "noisy_gd": ("binary", "NoisyGradientDescent(epsilon=1, delta=1e-8)"),
    "front_door": ("binary", "PrivateClassifier(epsilon=1)"),
    "sklearn_multi": ("three-class", "scikit-learn LogisticRegression() (non-private)"),
    "centroid": ("three-class", "PrivateGaussianCentroid(epsilon=1)"),
    "diffprivlib": ("binary", "diffprivlib LogisticRegression(epsilon=1, data_norm=1)"),
}
DPCONVEX_LEARNERS = ["logistic", "huber", "large_margin", "noisy_gd", "front_door"]


# ---------------------------------------------------------------------------- data


def make_data(n: int, d: int, classes: int, seed: int, n_test: int
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Seeded synthetic rows of norm <= 1 and labels from a linear model (train, then test).

    The model (``classes`` weight vectors) depends on ``seed`` and ``d`` only; the test rows
    on them and ``n_test``; the training rows on ``seed``, ``d`` and ``n`` (generated in
    blocks, so the first rows of a larger set are those of a smaller one).
    """
    model = np.random.default_rng([seed, d, 0])
    W = model.normal(size=(d, classes if classes > 2 else 1))

    def rows(m: int, stream: int) -> tuple[np.ndarray, np.ndarray]:
        X = np.empty((m, d))
        S = np.empty((m, W.shape[1]))
        block = 1 << 16
        for k, s in enumerate(range(0, m, block)):
            rng = np.random.default_rng([seed, d, stream, k])
            e = min(m, s + block)
            B = np.clip(rng.normal(scale=0.5, size=(e - s, d)), -1.0, 1.0)
            B /= math.sqrt(d)  # public rule: entries in [-1/sqrt(d), 1/sqrt(d)], norm <= 1
            X[s:e] = B
            S[s:e] = B @ W * math.sqrt(d) + 0.5 * rng.normal(size=(e - s, W.shape[1]))
        y = (S[:, 0] > 0).astype(np.int64) if classes == 2 else np.argmax(S, axis=1)
        return X, y

    X, y = rows(n, 1)
    Xt, yt = rows(n_test, 2)
    return X, y, Xt, yt


def stored_per_row(d: int, density: float) -> int:
    """The entries every sparse row stores: ``density``·d rounded half up, at least 1, at most
    d."""
    return min(d, max(1, math.floor(density * d + 0.5)))


def make_sparse_data(n: int, d: int, classes: int, seed: int, n_test: int, density: float
                     ) -> tuple[Any, np.ndarray, Any, np.ndarray]:
    """Seeded synthetic CSR rows of norm <= 1, k = :func:`stored_per_row` entries each, and
    labels from the linear model of :func:`make_data` (train, then test).

    Every row stores k entries at distinct columns drawn uniformly, each N(0, 1/4) clipped to
    [-1, 1] and divided by sqrt(k). As in :func:`make_data`, the first rows of a larger set
    are those of a smaller one.
    """
    import scipy.sparse as sp

    k = stored_per_row(d, density)
    model = np.random.default_rng([seed, d, 0])
    W = model.normal(size=(d, classes if classes > 2 else 1))

    def rows(m: int, stream: int) -> tuple[Any, np.ndarray]:
        cols = np.empty((m, k), dtype=np.int32)
        vals = np.empty((m, k))
        S = np.empty((m, W.shape[1]))
        block = 1 << 16
        for b, s in enumerate(range(0, m, block)):
            # one stream each for the columns, the values and the label noise
            at, value, noise = (np.random.default_rng([seed, d, stream, b, k, j]) for j in range(3))
            e = min(m, s + block)
            chosen = np.sort(np.argsort(at.random((e - s, d)), axis=1)[:, :k], axis=1)
            V = np.clip(value.normal(scale=0.5, size=(e - s, k)), -1.0, 1.0) / math.sqrt(k)
            cols[s:e], vals[s:e] = chosen, V
            scores = np.einsum("ik,ikc->ic", V, W[chosen]) * math.sqrt(k)
            S[s:e] = scores + 0.5 * noise.normal(size=(e - s, W.shape[1]))
        index = np.int32 if m * k < 2**31 else np.int64
        indptr = np.arange(0, m * k + 1, k, dtype=index)
        X = sp.csr_array((vals.ravel(), cols.ravel().astype(index), indptr), shape=(m, d))
        y = (S[:, 0] > 0).astype(np.int64) if classes == 2 else np.argmax(S, axis=1)
        return X, y

    X, y = rows(n, 1)
    Xt, yt = rows(n_test, 2)
    return X, y, Xt, yt


def nbytes(X: Any) -> int:
    """Bytes of the rows: a dense array's, or a CSR array's values, column indices and row
    pointers."""
    if isinstance(X, np.ndarray):
        return int(X.nbytes)
    return int(X.data.nbytes + X.indices.nbytes + X.indptr.nbytes)


# ---------------------------------------------------------------------------- counting (child)


class Counter:
    """Counts outermost calls of the wrapped row kernels: a kernel calling others counts once, as
    Gram-type if a Gram-type kernel ran inside it, else as a pass."""

    def __init__(self) -> None:
        self.depth = 0
        self.gram_inside = False
        self.counts = {"pass": 0, "gram": 0}

    def reset(self) -> None:
        self.counts = {"pass": 0, "gram": 0}

    def wrap(self, fn: Any, kind: str, weight: int = 1) -> Any:
        import functools

        @functools.wraps(fn)
        def counted(*args: Any, **kwargs: Any) -> Any:
            if self.depth == 0:
                self.gram_inside = False
            self.gram_inside |= kind == "gram"
            self.depth += 1
            try:
                return fn(*args, **kwargs)
            finally:
                self.depth -= 1
                if self.depth == 0:
                    self.counts["gram" if self.gram_inside else "pass"] += weight

        counted.__speed_wrapped__ = True  # type: ignore[attr-defined]
        return counted


def _patch_class(counter: Counter, cls: type, methods: dict[str, tuple[str, int]]) -> None:
    for name, (kind, weight) in methods.items():
        fn = cls.__dict__.get(name)  # plain methods only (a static method reads no rows here)
        if inspect.isfunction(fn) and not getattr(fn, "__speed_wrapped__", False):
            setattr(cls, name, counter.wrap(fn, kind, weight))


def instrument_dpconvex(counter: Counter) -> None:
    """Wrap dpconvex's row kernels (operators, Gram kernels, parameterizations, noisy GD)."""

    import importlib
    import pkgutil

    import dpconvex  # noqa: F401  (imports the estimators, templates and kernels)
    import dpconvex.templates as templates
    from dpconvex.data import gram, operators

    for cls in vars(operators).values():
        if inspect.isclass(cls) and cls.__module__ == operators.__name__:
            # the fused Xᵀ f(X w) makes both products of one gradient: two, as scikit-learn's
            # loss_gradient is counted
            _patch_class(counter, cls, {"matvec": ("pass", 1), "rmatvec": ("pass", 1),
                                        "matvec_rmatvec": ("pass", 2),
                                        "row_norms": ("pass", 1), "weighted_gram": ("gram", 1)})
    for info in pkgutil.iter_modules(templates.__path__):
        module = importlib.import_module(f"{templates.__name__}.{info.name}")
        # the quadratic parameterizations read z_i z_iᵀ (p² work per row); the other spaces
        # (feature maps, linear) products of the rows or of their features
        kind = "gram" if info.name == "parameterizations" else "pass"
        for cls in vars(module).values():
            if inspect.isclass(cls) and cls.__module__ == module.__name__:
                # forms_adjoint (the scores and their adjoint from one read of the rows)
                # counts two, as matvec_rmatvec; forms_gram / weighted_gram are Gram-type
                _patch_class(counter, cls, {"forms": (kind, 1), "adjoint": (kind, 1),
                                            "gram_operator_norm": (kind, 1), "features": ("pass", 1),
                                            "forms_adjoint": ("pass", 2), "forms_gram": ("gram", 1),
                                            "weighted_gram": ("gram", 1)})
    originals = {id(getattr(gram, f)): counter.wrap(getattr(gram, f), "gram")
                 for f in ("weighted_gram", "quadratic_forms")}
    for name, mod in list(sys.modules.items()):
        if name.startswith("dpconvex") and mod is not None:
            for attr, value in list(vars(mod).items()):
                if id(value) in originals and callable(value):
                    setattr(mod, attr, originals[id(value)])


def instrument_sklearn(counter: Counter) -> None:
    """Count scikit-learn's (and diffprivlib's) passes through ``LinearModelLoss``."""
    from sklearn.linear_model._linear_loss import LinearModelLoss

    _patch_class(counter, LinearModelLoss, {"loss_gradient": ("pass", 2), "loss": ("pass", 1),
                                            "gradient": ("pass", 2)})


def build(learner: str, classes: list[int]) -> Any:
    if learner in ("sklearn", "sklearn_multi"):
        from sklearn.linear_model import LogisticRegression

        return LogisticRegression()
    if learner == "diffprivlib":
        from diffprivlib.models import LogisticRegression

        return LogisticRegression(epsilon=1.0, data_norm=1.0, random_state=0)
    import dpconvex as dc

    est = {
        "logistic": lambda: dc.PrivateLogisticRegression(epsilon=1, classes=classes),
        "huber": lambda: dc.PrivateHuberSVM(epsilon=1, classes=classes),
        "large_margin": lambda: dc.PrivateLargeMarginGaussian(epsilon=1, classes=classes),
        "noisy_gd": lambda: dc.NoisyGradientDescent(epsilon=1, delta=1e-8, classes=classes),
        "front_door": lambda: dc.PrivateClassifier(epsilon=1, classes=classes),
        "centroid": lambda: dc.PrivateGaussianCentroid(epsilon=1, classes=classes),
    }[learner]()
    if "random_state" in est.get_params():  # a measurement: the noise seed is fixed
        est.set_params(random_state=0)
    return est


def measure(spec: dict[str, Any], counter: Counter) -> dict[str, Any]:
    """One learner at one n: warm-up fit, timed fit (counted), traced fit; accuracy."""
    learner, n, d = spec["learner"], spec["n"], spec["d"]
    k = 3 if LEARNERS[learner][0] == "three-class" else 2
    density = spec.get("density")
    if density is None:
        X, y, Xt, yt = make_data(n, d, k, spec["seed"], spec["n_test"])
    else:
        X, y, Xt, yt = make_sparse_data(n, d, k, spec["seed"], spec["n_test"], density)
    classes = list(range(k))
    warm = min(n, spec["warm"])
    try:
        build(learner, classes).fit(X[:warm], y[:warm])
    except Exception as exc:
        if density is None:
            raise
        # the same rows made dense: an error here is not about sparsity and propagates
        build(learner, classes).fit(X[:warm].toarray(), y[:warm])
        return {**spec, "skipped": f"{type(exc).__name__}: {exc}"}
    gc.collect()
    counter.reset()
    est = build(learner, classes)
    t0 = time.perf_counter()
    est.fit(X, y)
    seconds = time.perf_counter() - t0
    counts = dict(counter.counts)
    accuracy = float(np.mean(est.predict(Xt) == yt))
    extra = {}
    if learner == "front_door":
        extra["chosen"] = str(getattr(est, "learner_", "?"))
    if hasattr(est, "n_iter_"):
        extra["n_iter"] = int(np.max(est.n_iter_))
    if hasattr(est, "steps_"):
        extra["steps"] = int(est.steps_)
    del est
    gc.collect()
    est = build(learner, classes)
    tracemalloc.start()
    try:
        est.fit(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    values, freq = np.unique(y, return_counts=True)
    return {**spec, "seconds": seconds, "passes": counts["pass"], "gram": counts["gram"], "peak": peak,
            "data_bytes": nbytes(X), "accuracy": accuracy,
            "majority": float(np.mean(yt == values[np.argmax(freq)])), **extra}


def child(specs: list[dict[str, Any]]) -> None:
    """Run ``specs`` in this process and print one tagged JSON line per result."""
    from threadpoolctl import threadpool_limits

    counter = Counter()
    if any(s["learner"] not in ("sklearn", "sklearn_multi", "diffprivlib") for s in specs):
        instrument_dpconvex(counter)
    instrument_sklearn(counter)
    warnings.simplefilter("ignore")
    with threadpool_limits(limits=1):
        for spec in specs:
            print(TAG + json.dumps(measure(spec, counter)), flush=True)


# ---------------------------------------------------------------------------- parent


def _env() -> dict[str, str]:
    one = {k: "1" for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
    return {**os.environ, **one}


def spawn(specs: list[dict[str, Any]], python: str = sys.executable, timeout: float = 3600,
          script: str | Path | None = None, tag: str = TAG) -> list[dict[str, Any]] | str:
    """Run ``specs`` in a fresh process of ``script`` (this one by default; its ``--child``
    mode prints one ``tag`` line per spec); the results, or a one-line reason for failure."""
    try:
        path = Path(script or __file__).resolve()
        proc = subprocess.run([python, str(path), "--child", json.dumps(specs)],
                              capture_output=True, text=True, env=_env(), timeout=timeout,
                              cwd=HERE.parent)
    except subprocess.TimeoutExpired:
        return f"timed out after {timeout:.0f} s"
    out = [json.loads(line[len(tag):]) for line in proc.stdout.splitlines() if line.startswith(tag)]
    if proc.returncode != 0 or len(out) != len(specs):
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return f"exit {proc.returncode}: {tail[:200]}"
    return out


def diffprivlib_python() -> tuple[str | None, str]:
    """An interpreter in which diffprivlib imports (this one, else benchmarks/.venv), or why none."""
    try:
        import diffprivlib  # noqa: F401

        return sys.executable, "this interpreter"
    except Exception as exc:  # diffprivlib 0.6.x fails to import with scikit-learn >= 1.8
        here = f"{type(exc).__name__}"
    if not VENV_PYTHON.exists():
        return None, (f"diffprivlib does not import here ({here}) and benchmarks/.venv is missing "
                      "(run benchmarks/setup_env.sh)")
    probe = subprocess.run([str(VENV_PYTHON), "-c", "import diffprivlib, sklearn; "
                            "print(diffprivlib.__version__, sklearn.__version__)"],
                           capture_output=True, text=True, env=_env(), timeout=300)
    if probe.returncode != 0:
        return None, f"diffprivlib does not import in benchmarks/.venv either ({here})"
    v = probe.stdout.split()
    return str(VENV_PYTHON), f"benchmarks/.venv (diffprivlib {v[0]}, scikit-learn {v[1]})"


def _ratio(a: float | None, b: float | None) -> str:
    if a is None or b is None or not b:
        return "n/a"
    return f"{a / b:.3g}"


def _mb(b: float) -> str:
    return f"{b / 2**20:.1f}"


def git_state() -> str:
    root = HERE.parent
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True,
                              text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", "dpconvex"],
                               cwd=root, capture_output=True, text=True, timeout=10).stdout.split("\n")
    except (OSError, subprocess.SubprocessError):
        return "git state unknown"
    files = [line[3:] for line in dirty if line.strip()]
    state = "clean dpconvex/" if not files else f"dpconvex/ dirty: {', '.join(files)} modified"
    return f"commit {head}, {state}"


def main() -> None:
    import harness

    ap = harness.parser(__doc__)
    ap.add_argument("--n", type=int, nargs="+", default=[10**4, 10**5, 10**6],
                    help="training rows (default 1e4 1e5 1e6)")
    ap.add_argument("--large", action="store_true", help="add n = 1e7 (about 4 GB of rows at d = 50)")
    ap.add_argument("--d", type=int, default=50, help="columns (default 50)")
    ap.add_argument("--seed", type=int, default=0, help="data seed (default 0)")
    ap.add_argument("--n-test", type=int, default=10000, help="held-out rows (default 10,000)")
    ap.add_argument("--timeout", type=float, default=1800,
                    help="seconds per child process (a longer fit is reported as timed out)")
    ap.add_argument("--skip", nargs="+", default=[], choices=[k for k in LEARNERS if k != "sklearn"],
                    help="learners not run (shown as skipped)")
    ap.add_argument("--sparse", type=float, metavar="DENSITY",
                    help="rows as a SciPy CSR array storing DENSITY·d entries per row; learners "
                         "that refuse sparse rows are skipped (default: dense rows)")
    ap.add_argument("--record", action="store_true",
                    help=f"also write {RECORDED.relative_to(HERE.parent)} "
                         f"({RECORDED_SPARSE.relative_to(HERE.parent)} with --sparse)")
    ap.add_argument("--child", help=argparse.SUPPRESS)  # internal: the fits of one fresh process
    args = ap.parse_args()
    if args.child:
        child(json.loads(args.child))
        return
    if args.sparse is not None and not 0 < args.sparse <= 1:
        ap.error(f"--sparse takes a density in (0, 1]; got {args.sparse}")
    sizes = [2000] if args.quick else sorted(set(args.n + ([10**7] if args.large else [])))
    d = 10 if args.quick else args.d
    n_test = 1000 if args.quick else args.n_test
    warm = 200 if args.quick else 2000
    argv = sys.argv[1:]
    sparse = {} if args.sparse is None else {"density": args.sparse}
    with harness.Run(__file__, args, argv, part="sparse" if sparse else "") as run:
        state = git_state()
        run.note(f"snapshot of {state}; d = {d}, {n_test} held-out rows, data seed {args.seed}; "
                 f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start")
        if sparse:
            k = stored_per_row(d, args.sparse)
            run.note(f"--sparse {args.sparse:g}: CSR rows storing {k} of {d} entries each "
                     f"(density {k / d:.3g}), every learner given the CSR rows")
        if args.quick:
            run.note("--quick: a smoke run (all fits in one child process), not a measurement")
        dpl_python, dpl_where = (None, "skipped in --quick") if args.quick else diffprivlib_python()
        run.note(f"diffprivlib: {dpl_where}")
        results: dict[tuple[str, int], dict[str, Any] | str] = {}
        order = ["sklearn", *DPCONVEX_LEARNERS, "sklearn_multi", "centroid"]
        for n in sizes:
            specs = [{"learner": lr, "n": n, "d": d, "seed": args.seed, "n_test": n_test,
                      "warm": warm, **sparse} for lr in order]
            if args.quick:
                out = spawn(specs)
                for s, r in zip(specs, out if isinstance(out, list) else [out] * len(specs), strict=True):
                    results[(s["learner"], n)] = r
            else:
                for s in specs:
                    if s["learner"] in args.skip:
                        results[(s["learner"], n)] = "skipped (--skip)"
                        continue
                    r = spawn([s], timeout=args.timeout)
                    results[(s["learner"], n)] = r[0] if isinstance(r, list) else r
                    done = _shown(results[(s["learner"], n)])
                    shown = f"{done['seconds']:.2f} s" if isinstance(done, dict) else done
                    print(f"  n={n} {s['learner']}: {shown}", flush=True)
            if "diffprivlib" in args.skip:
                results[("diffprivlib", n)] = "skipped (--skip)"
            elif dpl_python is not None:
                s = {**specs[0], "learner": "diffprivlib"}
                r = spawn([s], python=dpl_python, timeout=args.timeout)
                results[("diffprivlib", n)] = r[0] if isinstance(r, list) else r
            else:
                results[("diffprivlib", n)] = f"n/a: {dpl_where}"
            run.table(speed_table(n, d, order, results, args.sparse))
        run.table(diffprivlib_table(sizes, results))
        for lr, why in sorted({(lr, r["skipped"]) for (lr, _), r in results.items()
                               if isinstance(r, dict) and "skipped" in r}):
            run.note(f"skipped, refused sparse rows: {LEARNERS[lr][1]}: {why}")
        run.note(PASS_RULE)
        run.data["results"] = {f"{k[0]}@{k[1]}": v for k, v in results.items()}
    if args.record and not args.quick:
        src = Path(args.out) / f"{run.name}.md"
        header = (f"<!-- python benchmarks/speed.py {' '.join(argv)}: {state}; "
                  f"the numbers are a snapshot of that tree on a shared 2-core machine -->\n")
        target = RECORDED_SPARSE if sparse else RECORDED
        harness.write_atomic(target, header + src.read_text(encoding="utf-8"))
        print(f"wrote {target}")


PASS_RULE = (
    "Passes: one = one outermost call of a row kernel: matvec / rmatvec / row_norms of a dpconvex "
    "design operator (the fused matvec_rmatvec counts two), or forms / adjoint / features of a "
    "large-margin feature-map space or of its records (~n·p work each; the fused forms_adjoint "
    "counts two); Gram-type = an outermost call in which a weighted Gram or quadratic-forms "
    "kernel ran (reads the rows once, ~n·p² work). scikit-learn / diffprivlib: 2 per "
    "LinearModelLoss.loss_gradient call (L-BFGS function evaluations, line searches included). "
    "n/c: not counted (the centroids' class sums do not go through the operators). Memory: "
    "tracemalloc peak of a second fit in the same process, started after the rows exist (so: "
    "above the data)."
)


SKIPPED_SPARSE = "skipped: refused sparse rows (see the note)"


def _shown(r: dict[str, Any] | str) -> dict[str, Any] | str:
    """A fit's numbers, or the text shown in its row (a failure, or a skip for sparse rows)."""
    return SKIPPED_SPARSE if isinstance(r, dict) and "skipped" in r else r


def speed_table(n: int, d: int, order: list[str], results: dict, density: float | None = None
                ) -> Any:
    import harness

    rows = "" if density is None else f", CSR rows of density {stored_per_row(d, density) / d:.3g}"
    t = harness.Table(
        f"n = {n:,}, d = {d}{rows}: ratios to scikit-learn's LogisticRegression() on the same rows",
        ["learner", "data", "fit s", "time ratio", "passes", "passes ratio", "Gram-type passes",
         "peak above data MB", "memory ratio", "test accuracy"], kind="speed")
    for lr in order:
        data, text = LEARNERS[lr]
        r = _shown(results[(lr, n)])
        if isinstance(r, str):
            t.add(text, data, r, "", "", "", "", "", "", "")
            continue
        base = _shown(results[("sklearn" if data == "binary" else "sklearn_multi", n)])
        base = base if isinstance(base, dict) else {}
        counted = lr != "centroid"
        passes = f"{r['passes']}" if counted else "n/c"
        label = text + (f" → {r['chosen']}" if "chosen" in r else "")
        label += f" ({r['n_iter']} iterations)" if lr.startswith("sklearn") and "n_iter" in r else ""
        label += f" ({r['steps']} steps)" if "steps" in r else ""
        t.add(label, data, f"{r['seconds']:.3g}", _ratio(r["seconds"], base.get("seconds")), passes,
              _ratio(r["passes"], base.get("passes")) if counted else "n/c",
              r["gram"] if counted else "n/c", _mb(r["peak"]), _ratio(r["peak"], base.get("peak")),
              f"{r['accuracy']:.4f}")
    for data, key in (("binary", "sklearn"), ("three-class", "sklearn_multi")):
        r = _shown(results.get((key, n), ""))
        if isinstance(r, dict):
            t.add(harness.MAJORITY, data, "", "", "", "", "", "", "", f"{r['majority']:.4f}")
    if density is None:
        X_mb = n * d * 8 / 2**20
        t.notes.append(f"The rows take {X_mb:.1f} MB (float64).")
    else:
        sizes = {r["data_bytes"] for r in results.values()
                 if isinstance(r, dict) and r.get("n") == n and "data_bytes" in r}
        stored = f"{', '.join(_mb(b) for b in sorted(sizes))} MB" if sizes else "n/a"
        t.notes.append(f"The rows take {stored} as CSR (float64 values, column indices and row "
                       f"pointers; {stored_per_row(d, density)} stored entries per row).")
    return t


def diffprivlib_table(sizes: list[int], results: dict) -> Any:
    import harness

    t = harness.Table("Against diffprivlib's LogisticRegression(epsilon=1, data_norm=1) on the same rows",
                      ["n", "learner", "fit s", "time ratio", "passes", "passes ratio",
                       "peak above data MB", "memory ratio", "test accuracy"], kind="speed")
    for n in sizes:
        dpl = _shown(results.get(("diffprivlib", n), "n/a"))
        if isinstance(dpl, str):
            t.add(n, LEARNERS["diffprivlib"][1], dpl, "", "", "", "", "", "")
            continue
        t.add(n, LEARNERS["diffprivlib"][1], f"{dpl['seconds']:.3g}", "1", dpl["passes"], "1",
              _mb(dpl["peak"]), "1", f"{dpl['accuracy']:.4f}")
        for lr in ("front_door", "logistic"):
            r = _shown(results.get((lr, n), ""))
            if isinstance(r, dict):
                label = LEARNERS[lr][1] + (f" → {r['chosen']}" if "chosen" in r else "")
                t.add(n, label, f"{r['seconds']:.3g}", _ratio(r["seconds"], dpl["seconds"]),
                      f"{r['passes']} (+{r['gram']} Gram)", _ratio(r["passes"], dpl["passes"]),
                      _mb(r["peak"]), _ratio(r["peak"], dpl["peak"]), f"{r['accuracy']:.4f}")
    return t


if __name__ == "__main__":
    main()
