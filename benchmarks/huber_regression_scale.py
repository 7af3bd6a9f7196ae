"""Private Huber regression at n = 10⁶, d = 50 against scikit-learn's HuberRegressor: time, memory, R².

``PrivateHuberRegressor(epsilon=1, label_range=(-1, 1), random_state=0)`` (the Huber loss
with M = 0.5 on the unit label scale, objective perturbation, lam="auto", data_norm=1,
fit_intercept=True; the model of ``PrivateLinearRegressor(loss="huber")``) and scikit-learn's
non-private ``HuberRegressor()`` at its defaults (epsilon=1.35, alpha=1e-4, max_iter=100,
tol=1e-5, fit_intercept=True, L-BFGS-B; it also fits a scale σ) are fitted on the same
synthetic rows in the same run. Goals stated before the run: the private fit takes at most
1.0× scikit-learn's time and at most 0.5× the data's bytes of memory above the data.

How each number is taken (the rules of ``speed.py``, whose counter this script reuses):

* every fit runs in a fresh Python process (this script's ``--child`` option) with one BLAS
  thread, after a warm-up fit of the same learner on the first 2,000 rows; the learners'
  processes alternate (scikit-learn, dpconvex, scikit-learn, ...) ``--repeats`` times (3),
  and the median of the repeats is reported (every repeat is in the JSON file);
* time: wall time of one ``fit``, and its process CPU time (``time.process_time``; one
  thread, so on a loaded shared machine it moves less than the wall time);
* memory above the data: the ``tracemalloc`` peak of a second fit in the same process,
  traced from after the rows exist;
* passes: outermost calls of dpconvex's row kernels (``speed.Counter`` wrapped around the
  design operators' ``matvec``, ``rmatvec``, fused ``matvec_rmatvec`` (two) and
  ``weighted_gram`` (Gram-type, about p times a product's work), as in ``speed.py``);
  scikit-learn's: 2 per call of ``sklearn.linear_model._huber._huber_loss_and_gradient``
  (X·w, then the gradient's products over the inlier and the outlier rows, which it copies
  out of X on every call);
* R²: ``r2_score`` on 10,000 held-out rows from the same generator, beside the constant
  prediction (the training labels' mean).

Data (:func:`make_regression`, seeded, generated in blocks of 65,536 rows): a unit
direction u ~ N(0, I) / norm (seed ``[seed, d, 0]``); rows with entries N(0, 1/4) clipped
to [-1, 1] and divided by √d (a public rule: every row has norm <= 1); labels
y = clip(√d·uᵀx + 0.25·t₃, -1, 1) with t₃ Student's t with 3 degrees of freedom (heavy
tails, the case Huber's loss is for), clipped to the public range (-1, 1).

``--quick``: n = 20,000, d = 10, one repeat, every fit in one child process (a smoke run).
``--profile``: also run cProfile on one more dpconvex fit in each child and print its top
functions.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import statistics
import sys
import time
import tracemalloc
import warnings
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
TAG = "SCALE-RESULT "
LABEL_RANGE = (-1.0, 1.0)

#: learner -> (data set, text shown in the tables)
LEARNERS = {
    "sklearn_huber": ("regression", "scikit-learn HuberRegressor() (non-private)"),
    "huber_regressor": ("regression", "PrivateHuberRegressor(epsilon=1)"),
    "huber": ("regression", "PrivateLinearRegressor(loss='huber', epsilon=1)"),
    "huber_cvxpy": ("regression", "PrivateLinearRegressor(loss=from_cvxpy huber, epsilon=1)"),
    "logistic": ("binary", "PrivateLinearClassifier(loss='logistic', epsilon=1)"),
    "logistic_cvxpy": ("binary", "PrivateLinearClassifier(loss=from_cvxpy logistic, epsilon=1)"),
}


def make_regression(n: int, d: int, seed: int, n_test: int
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Seeded rows of norm <= 1 and Huber-type labels in (-1, 1) (train, then test).

    The direction depends on ``seed`` and ``d`` only; the training rows on them and ``n``
    (generated in blocks, so the first rows of a larger set are those of a smaller one).
    """
    u = np.random.default_rng([seed, d, 0]).normal(size=d)
    u /= np.linalg.norm(u)

    def rows(m: int, stream: int) -> tuple[np.ndarray, np.ndarray]:
        X = np.empty((m, d))
        y = np.empty(m)
        block = 1 << 16
        for k, s in enumerate(range(0, m, block)):
            rng = np.random.default_rng([seed, d, stream, k])
            e = min(m, s + block)
            B = np.clip(rng.normal(scale=0.5, size=(e - s, d)), -1.0, 1.0)
            B /= math.sqrt(d)  # public rule: entries in [-1/sqrt(d), 1/sqrt(d)], norm <= 1
            X[s:e] = B
            y[s:e] = np.clip(math.sqrt(d) * (B @ u) + 0.25 * rng.standard_t(3, size=e - s),
                             *LABEL_RANGE)
        return X, y

    X, y = rows(n, 1)
    Xt, yt = rows(n_test, 2)
    return X, y, Xt, yt


def cvxpy_losses() -> dict[str, Any]:
    """The Huber and logistic losses stated in CVXPY atoms (dp.Loss.from_cvxpy)."""
    import cvxpy as cp

    import dpconvex as dp

    return {"huber": dp.Loss.from_cvxpy(lambda z, y: cp.huber(z - y, 0.5), kind="regression",
                                        label_range=(-1, 1)),
            "logistic": dp.Loss.from_cvxpy(lambda m: cp.logistic(-m), kind="margin")}


def build(learner: str) -> Any:
    """A fresh estimator (noise seed 0: a measurement, not a release)."""
    if learner == "sklearn_huber":
        from sklearn.linear_model import HuberRegressor

        return HuberRegressor()
    import dpconvex as dp

    if learner == "huber_regressor":
        return dp.PrivateHuberRegressor(epsilon=1, label_range=LABEL_RANGE, random_state=0)
    if learner.startswith("huber"):
        loss = cvxpy_losses()["huber"] if learner.endswith("_cvxpy") else "huber"
        return dp.PrivateLinearRegressor(loss=loss, epsilon=1, label_range=LABEL_RANGE, random_state=0)
    loss = cvxpy_losses()["logistic"] if learner.endswith("_cvxpy") else "logistic"
    return dp.PrivateLinearClassifier(loss=loss, epsilon=1, classes=[0, 1], random_state=0)


def instrument_sklearn_huber(counter: Any) -> None:
    """Count 2 passes per call of scikit-learn's Huber loss-and-gradient (X·w, then Xᵀ·r)."""
    from sklearn.linear_model import _huber

    fn = _huber._huber_loss_and_gradient
    if not getattr(fn, "__speed_wrapped__", False):
        _huber._huber_loss_and_gradient = counter.wrap(fn, "pass", 2)


def _profile(est: Any, X: np.ndarray, y: np.ndarray, top: int = 18) -> str:
    import cProfile
    import io
    import pstats

    prof = cProfile.Profile()
    prof.enable()
    est.fit(X, y)
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(top)
    return out.getvalue()


def measure(spec: dict[str, Any], counter: Any) -> dict[str, Any]:
    """One learner at one n: warm-up fit, timed fit (counted), traced fit; held-out score."""
    import speed
    from sklearn.metrics import r2_score

    learner, n, d = spec["learner"], spec["n"], spec["d"]
    if LEARNERS[learner][0] == "regression":
        X, y, Xt, yt = make_regression(n, d, spec["seed"], spec["n_test"])
    else:
        X, y, Xt, yt = speed.make_data(n, d, 2, spec["seed"], spec["n_test"])
    warm = min(n, spec["warm"])
    build(learner).fit(X[:warm], y[:warm])
    gc.collect()
    counter.reset()
    est = build(learner)
    t0, c0 = time.perf_counter(), time.process_time()
    est.fit(X, y)
    seconds, cpu_seconds = time.perf_counter() - t0, time.process_time() - c0
    counts = dict(counter.counts)
    if LEARNERS[learner][0] == "regression":
        score = float(r2_score(yt, est.predict(Xt)))
        baseline = float(r2_score(yt, np.full(len(yt), y.mean())))
    else:
        score = float(np.mean(est.predict(Xt) == yt))
        values, freq = np.unique(y, return_counts=True)
        baseline = float(np.mean(yt == values[np.argmax(freq)]))
    coef = np.r_[np.ravel(est.coef_), np.ravel(est.intercept_)].tolist()
    extra = {"n_iter": int(np.max(est.n_iter_))} if hasattr(est, "n_iter_") else {}
    del est
    gc.collect()
    est = build(learner)
    tracemalloc.start()
    try:
        est.fit(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    if spec.get("cprofile") and learner != "sklearn_huber":
        extra["profile"] = _profile(build(learner), X, y)
    return {**spec, "seconds": seconds, "cpu_seconds": cpu_seconds, "passes": counts["pass"],
            "gram": counts["gram"], "peak": peak, "data_bytes": X.nbytes, "score": score,
            "baseline": baseline, "coef": coef, **extra}


def child(specs: list[dict[str, Any]]) -> None:
    """Run ``specs`` in this process and print one tagged JSON line per result."""
    import speed
    from threadpoolctl import threadpool_limits

    counter = speed.Counter()
    speed.instrument_dpconvex(counter)
    instrument_sklearn_huber(counter)
    warnings.simplefilter("ignore")
    with threadpool_limits(limits=1):
        for spec in specs:
            print(TAG + json.dumps(measure(spec, counter)), flush=True)


def run_repeats(learners: list[str], n: int, d: int, *, repeats: int, quick: bool, seed: int = 0,
                n_test: int = 10000, profile: bool = False, timeout: float = 3600
                ) -> dict[str, list[dict[str, Any]]]:
    """Every learner ``repeats`` times, in alternating fresh processes (one process if quick)."""
    import speed

    specs = [{"learner": lr, "n": n, "d": d, "seed": seed, "n_test": n_test,
              "warm": 200 if quick else 2000, "cprofile": profile} for lr in learners]
    results: dict[str, list[dict[str, Any]]] = {lr: [] for lr in learners}
    for r in range(repeats):
        batches = [specs] if quick else [[s] for s in specs]
        for batch in batches:
            out = speed.spawn(batch, timeout=timeout, script=__file__, tag=TAG)
            if isinstance(out, str):
                raise RuntimeError(f"{[s['learner'] for s in batch]}: {out}")
            for res in out:
                results[res["learner"]].append(res)
                print(f"  repeat {r + 1}: {res['learner']} {res['seconds']:.3f} s "
                      f"(CPU {res['cpu_seconds']:.3f} s), "
                      f"{res['passes']} passes (+{res['gram']} Gram), peak {res['peak'] / 2**20:.1f} MB",
                      flush=True)
    return results


def median(results: list[dict[str, Any]], key: str) -> float:
    return float(statistics.median(r[key] for r in results))


def times_text(results: list[dict[str, Any]]) -> str:
    """The median and every repeat: ``0.52 (0.50, 0.52, 0.61)``."""
    each = ", ".join(f"{r['seconds']:.3g}" for r in results)
    return f"{median(results, 'seconds'):.3g} ({each})"


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.3g}" if b else "n/a"


def main() -> None:
    import harness

    ap = harness.parser(__doc__)
    ap.add_argument("--n", type=int, default=10**6, help="training rows (default 1e6)")
    ap.add_argument("--d", type=int, default=50, help="columns (default 50)")
    ap.add_argument("--repeats", type=int, default=3, help="alternating repeats (default 3; median)")
    ap.add_argument("--profile", action="store_true", help="cProfile one more dpconvex fit per child")
    ap.add_argument("--timeout", type=float, default=3600, help="seconds per child process")
    ap.add_argument("--child", help=argparse.SUPPRESS)  # internal: the fits of one fresh process
    args = ap.parse_args()
    if args.child:
        child(json.loads(args.child))
        return
    n, d = (20000, 10) if args.quick else (args.n, args.d)
    repeats = 1 if args.quick else args.repeats
    with harness.Run(__file__, args, sys.argv[1:]) as run:
        import os

        import speed

        run.note(f"snapshot of {speed.git_state()}; n = {n:,}, d = {d}, {repeats} repeat(s); "
                 f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start")
        if args.quick:
            run.note("--quick: a smoke run (all fits in one child process), not a measurement")
        res = run_repeats(["sklearn_huber", "huber_regressor"], n, d, repeats=repeats,
                          quick=args.quick, profile=args.profile, timeout=args.timeout)
        base, ours = res["sklearn_huber"], res["huber_regressor"]
        data_mb = n * d * 8 / 2**20
        t = harness.Table(
            f"n = {n:,}, d = {d}: medians of {repeats} alternating repeat(s), ratios to "
            "scikit-learn's HuberRegressor() on the same rows",
            ["learner", "fit s: median (each)", "time ratio", "CPU s: median", "CPU time ratio",
             "passes", "passes ratio", "Gram-type passes", "peak above data MB", "memory ratio",
             "memory × data", "test R²"], kind="speed")
        for key, rows in (("sklearn_huber", base), ("huber_regressor", ours)):
            label = LEARNERS[key][1] + (f" ({rows[0]['n_iter']} iterations)" if "n_iter" in rows[0] else "")
            t.add(label, times_text(rows), _ratio(median(rows, "seconds"), median(base, "seconds")),
                  f"{median(rows, 'cpu_seconds'):.3g}",
                  _ratio(median(rows, "cpu_seconds"), median(base, "cpu_seconds")), rows[0]["passes"],
                  _ratio(rows[0]["passes"], base[0]["passes"]), rows[0]["gram"],
                  f"{median(rows, 'peak') / 2**20:.1f}", _ratio(median(rows, "peak"), median(base, "peak")),
                  f"{median(rows, 'peak') / rows[0]['data_bytes']:.3f}", f"{rows[0]['score']:.4f}")
        t.add(f"{harness.CONSTANT} (the training mean)", "", "", "", "", "", "", "", "", "", "",
              f"{base[0]['baseline']:.4f}")
        t.notes.append(f"The rows take {data_mb:.1f} MB (float64). Passes, R² and coefficients are "
                       "the same in every repeat (seeded).")
        run.table(t)
        time_ratio = median(ours, "seconds") / median(base, "seconds")
        cpu_ratio = median(ours, "cpu_seconds") / median(base, "cpu_seconds")
        mem_ratio = median(ours, "peak") / ours[0]["data_bytes"]
        verdict = "met" if max(time_ratio, cpu_ratio) <= 1.0 else "NOT met"
        run.note(f"Goals: time <= 1.0× scikit-learn's: wall {time_ratio:.3f}×, CPU {cpu_ratio:.3f}× -> "
                 f"{verdict}; memory above the data <= 0.5× the data's bytes: {mem_ratio:.3f}× -> "
                 f"{'met' if mem_ratio <= 0.5 else 'NOT met'}.")
        run.note(speed.PASS_RULE.split(" scikit-learn / diffprivlib")[0]
                 + " scikit-learn: 2 per _huber_loss_and_gradient call.")
        for rows in res.values():
            if "profile" in rows[0]:
                run.note(f"cProfile of one more fit of {rows[0]['learner']}:\n{rows[0]['profile']}")
        run.data["results"] = res


if __name__ == "__main__":
    main()
