"""Past one machine's memory: the front door on N synthetic rows held by a 2-worker Dask cluster.

Not a test. The rows are generated chunk-wise on the workers, every pass anew, and never
stored: chunk c (``--chunk`` rows) comes from its own seed ``[seed, c]``, so the first 1M
rows of any N are the same rows and can be built in memory. Each entry is one of 256 levels,
uniform on [-a, a] with a = 1.6/sqrt(d) (row norms about 0.92, some above the bound 1, so
the clipping runs); the labels are a fixed linear rule of the row with 10% flipped.

The script

1. starts a ``LocalCluster`` of 2 worker processes (1 thread each, loopback) whose
   per-worker ``memory_limit`` is ``--memory-fraction`` (default 0.09) of the data's bytes
   (8 N d), below a tenth of them, so the rows cannot be persisted and every pass
   regenerates its chunks;
2. fits ``PrivateClassifier(epsilon=1, classes=[0, 1], random_state=...)`` on the N Dask
   rows, counting passes (products over the rows: X w, Xᵀ v, row norms, Gram-type) and
   polling every worker's memory (the process memory each worker reports to the scheduler);
3. fits the same estimator on the first 1M rows in memory (one BLAS thread, passes counted
   the same way) and on the same 1M rows through the cluster, and checks that the two
   releases agree to ``--tol`` (1e-12);
4. times a pass that only regenerates the chunks (the data source's own cost per pass);
5. writes a JSON log to ``--out`` (a ``.json`` path, or a folder that gets
   ``dask_scale.json``): rows, d, chunks, workers, memory limit, per-worker peak memory,
   fit seconds, passes, seconds per pass per million rows on Dask and in memory (over the
   whole fit, and inside the passes only), their ratios, the source's share, and the agreement.

Usage::

    python benchmarks/dask_scale.py --rows 50000000 --d 20 --out benchmarks/recorded/dask_scale.json
    python benchmarks/dask_scale.py --rows 5000000 --memory-limit 720e6 --out /tmp/dask_scale_5m.json

``--quick`` (a smoke run, not a measurement): 200,000 rows of d = 5, a 100,000-row prefix,
1 GB per worker.

A per-pass ratio compares seconds per pass per million rows: the Dask pass regenerates
its rows and runs on 2 workers; the in-memory pass reads stored rows on one thread. On
Dask one pass is one round trip over the chunks: the linear learners' objective, gradient
and sampled Hessian at a point come from one pass (``DaskRows.margin_sums``), counted
once; in memory the sampled Hessian is counted as its own Gram-type pass. The net ratio
subtracts the source pass (regenerating the chunks, which no estimator can avoid when
nothing is stored).
"""

from __future__ import annotations

import json
import math
import platform
import sys
import threading
import time
import warnings
from pathlib import Path
from typing import Any

import harness  # benchmarks/ is the script's folder, first on sys.path
import numpy as np

PREFIX = 1_000_000


# ---------------------------------------------------------------------------- data
def _weights(seed: int, d: int) -> np.ndarray:
    return np.random.default_rng([seed, d, 2**31]).normal(size=d)


def chunk_rows(c: int, rows: int, d: int, seed: int) -> np.ndarray:
    """The rows of chunk c: 256 levels per entry, uniform on [-1.6/sqrt(d), 1.6/sqrt(d)]."""
    rng = np.random.default_rng([seed, d, c])
    U = np.frombuffer(rng.bytes(rows * d), dtype=np.uint8).reshape(rows, d)
    X = U.astype(np.float64)
    X -= 127.5
    X *= 1.6 / (127.5 * math.sqrt(d))
    return X


def chunk_sizes(n: int, chunk: int) -> list[int]:
    """Rows of each chunk of n rows cut every ``chunk`` rows."""
    return [min(chunk, n - start) for start in range(0, n, chunk)]


def chunk_labels(c: int, rows: int, d: int, seed: int) -> np.ndarray:
    """The labels of chunk c: sign of a fixed linear rule, 10% flipped."""
    X = chunk_rows(c, rows, d, seed)
    flip = np.random.default_rng([seed, d, c, 1]).random(rows) < 0.1
    return ((X @ _weights(seed, d) > 0) ^ flip).astype(np.int64)


def dask_data(n: int, d: int, chunk: int, seed: int) -> tuple[Any, Any]:
    import dask
    import dask.array as da

    sizes = chunk_sizes(n, chunk)
    X = da.concatenate([da.from_delayed(dask.delayed(chunk_rows, pure=True)(c, r, d, seed),
                                        shape=(r, d), dtype=np.float64)
                        for c, r in enumerate(sizes)])
    y = da.concatenate([da.from_delayed(dask.delayed(chunk_labels, pure=True)(c, r, d, seed),
                                        shape=(r,), dtype=np.int64)
                        for c, r in enumerate(sizes)])
    return X, y


def _chunk_count(c: int, rows: int, d: int, seed: int) -> int:
    return int(chunk_rows(c, rows, d, seed).shape[0])


def source_pass_seconds(n: int, d: int, chunk: int, seed: int, repeats: int = 2) -> float:
    """Seconds of one pass that only regenerates every chunk on the workers (the data
    source's own cost, which every pass of a fit pays), the fastest of ``repeats``."""
    import dask

    from dpconvex.data.dask_rows import compute

    sizes = chunk_sizes(n, chunk)
    best = math.inf
    for _ in range(repeats):
        t = time.perf_counter()
        total = sum(compute(*[dask.delayed(_chunk_count, pure=False)(c, r, d, seed)
                              for c, r in enumerate(sizes)]))
        best = min(best, time.perf_counter() - t)
        assert total == n
    return best


def memory_data(n: int, d: int, chunk: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    sizes = chunk_sizes(n, chunk)
    return (np.concatenate([chunk_rows(c, r, d, seed) for c, r in enumerate(sizes)]),
            np.concatenate([chunk_labels(c, r, d, seed) for c, r in enumerate(sizes)]))


# ---------------------------------------------------------------------------- counting
def instrument() -> Any:
    """speed.py's pass counter on dpconvex's in-memory kernels, and on DaskRows' products;
    it also sums the seconds spent inside the counted calls (``seconds``)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import functools

    import speed

    from dpconvex.data.dask_rows import DaskRows

    class TimedCounter(speed.Counter):
        def reset(self) -> None:
            super().reset()
            self.seconds = 0.0

        def wrap(self, fn: Any, kind: str, weight: int = 1) -> Any:
            inner = super().wrap(fn, kind, weight)

            @functools.wraps(fn)
            def timed(*args: Any, **kwargs: Any) -> Any:
                if self.depth:
                    return inner(*args, **kwargs)
                t = time.perf_counter()
                try:
                    return inner(*args, **kwargs)
                finally:
                    self.seconds += time.perf_counter() - t

            timed.__speed_wrapped__ = True  # type: ignore[attr-defined]
            return timed

    counter = TimedCounter()
    counter.reset()
    speed.instrument_dpconvex(counter)
    speed._patch_class(counter, DaskRows, {"matvec": ("pass", 1), "rmatvec": ("pass", 1),
                                           "row_norms": ("pass", 1), "chunk_sum": ("pass", 1),
                                           "margin_sums": ("pass", 1), "max_row_norm": ("pass", 1),
                                           "weighted_gram": ("gram", 1)})
    return counter


class MemoryPoll:
    """The largest process memory each worker reported to the scheduler, polled every 0.5 s."""

    def __init__(self, client: Any):
        self.client, self.peak, self._stop = client, {}, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                for addr, w in self.client.scheduler_info()["workers"].items():
                    mem = float(w.get("metrics", {}).get("memory", 0.0))
                    self.peak[addr] = max(self.peak.get(addr, 0.0), mem)
            except Exception:  # the cluster is closing
                pass
            self._stop.wait(0.5)

    def __enter__(self) -> MemoryPoll:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()


def _theta(est: Any) -> np.ndarray:
    inner = est.estimator_
    if hasattr(inner, "coef_"):
        return np.r_[np.ravel(inner.coef_), np.ravel(inner.intercept_)]
    return np.ravel(inner.Phi_)


def _fit(make: Any, counter: Any, X: Any, y: Any) -> tuple[Any, float, int, int]:
    counter.reset()
    t = time.perf_counter()
    est = make().fit(X, y)
    seconds = time.perf_counter() - t
    return est, seconds, counter.counts["pass"], counter.counts["gram"]


def _record(rows: int, seconds: float, passes: int, gram: int, counter: Any) -> dict[str, Any]:
    """A fit's line: seconds, passes, and seconds per pass per million rows, over the whole
    fit and inside the passes only (the rest: checks, labels, persisting, solver, noise)."""
    per = max(passes + gram, 1) * rows / PREFIX
    return {"rows": rows, "seconds": seconds, "passes": passes, "gram_passes": gram,
            "seconds_in_passes": counter.seconds,
            "seconds_per_pass_per_1M_rows": seconds / per,
            "seconds_in_passes_per_pass_per_1M_rows": counter.seconds / per}


def main(argv: list[str] | None = None) -> None:
    ap = harness.parser(__doc__)
    ap.add_argument("--rows", type=int, default=50_000_000)
    ap.add_argument("--d", type=int, default=20)
    ap.add_argument("--chunk", type=int, default=250_000, help="rows per chunk (divides 1M)")
    ap.add_argument("--seed", type=int, default=0, help="data seed")
    ap.add_argument("--random-state", type=int, default=0, help="the fits' noise seed")
    ap.add_argument("--memory-fraction", type=float, default=0.09,
                    help="per-worker memory_limit as a share of the data's bytes")
    ap.add_argument("--memory-limit", type=float, default=None,
                    help="per-worker memory_limit in bytes (overrides --memory-fraction)")
    ap.add_argument("--tol", type=float, default=1e-12)
    args = ap.parse_args(argv)
    prefix = PREFIX
    if args.quick:
        args.rows, args.d, args.chunk, prefix = 200_000, 5, 25_000, 100_000
        args.memory_limit = args.memory_limit or 1e9
    if prefix % args.chunk or args.rows < prefix:
        ap.error(f"--chunk must divide {prefix:,} and --rows be at least {prefix:,}")
    out = args.out if args.out.suffix == ".json" else (
        args.out / f"dask_scale{'-quick' if args.quick else ''}.json")

    import dask
    import distributed
    from threadpoolctl import threadpool_limits

    import dpconvex as dp

    warnings.simplefilter("ignore")  # seeded fits warn that they are not private releases
    data_bytes = 8 * args.rows * args.d
    limit = int(args.memory_limit or args.memory_fraction * data_bytes)
    make = lambda: dp.PrivateClassifier(epsilon=1.0, classes=[0, 1],  # noqa: E731
                                        random_state=args.random_state)
    counter = instrument()
    log: dict[str, Any] = {
        "command": " ".join([Path(sys.argv[0]).name, *(argv if argv is not None else sys.argv[1:])]),
        "rows": args.rows, "d": args.d, "chunk_rows": args.chunk,
        "chunks": math.ceil(args.rows / args.chunk), "data_bytes": data_bytes,
        "workers": 2, "threads_per_worker": 1, "memory_limit_per_worker": limit,
        "memory_limit_share_of_data": limit / data_bytes, "python": platform.python_version(),
        "dask_version": dask.__version__, "distributed_version": distributed.__version__,
    }

    # in memory: the 1M-row prefix, one BLAS thread
    Xm, ym = memory_data(prefix, args.d, args.chunk, args.seed)
    with threadpool_limits(1):
        mem, t_mem, p_mem, g_mem = _fit(make, counter, Xm, ym)
    log["in_memory_prefix"] = {**_record(prefix, t_mem, p_mem, g_mem, counter),
                               "learner": mem.learner_}
    print(json.dumps(log["in_memory_prefix"]), flush=True)
    del Xm, ym

    with dask.config.set({"distributed.worker.daemon": False}):
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                           host="127.0.0.1", dashboard_address=None,
                                           memory_limit=limit)
    client = distributed.Client(cluster)
    try:
        client.run(lambda: __import__("dpconvex.data.dask_rows"))
        # the same 1M rows through the cluster: the release must be the in-memory one
        Xp, yp = dask_data(prefix, args.d, args.chunk, args.seed)
        pre, t_pre, p_pre, g_pre = _fit(make, counter, Xp, yp)
        gap = float(np.max(np.abs(_theta(pre) - _theta(mem))))
        log["dask_prefix"] = {**_record(prefix, t_pre, p_pre, g_pre, counter),
                              "max_abs_difference_to_in_memory": gap, "tol": args.tol,
                              "equal_within_tol": gap <= args.tol}
        print(json.dumps(log["dask_prefix"]), flush=True)

        X, y = dask_data(args.rows, args.d, args.chunk, args.seed)
        with MemoryPoll(client) as poll:
            big, t_big, p_big, g_big = _fit(make, counter, X, y)
        line = _record(args.rows, t_big, p_big, g_big, counter)
        base = log["in_memory_prefix"]
        source = source_pass_seconds(args.rows, args.d, args.chunk, args.seed) / (args.rows / PREFIX)
        log["dask"] = {
            **line,
            "per_pass_ratio_to_in_memory": (line["seconds_per_pass_per_1M_rows"]
                                            / base["seconds_per_pass_per_1M_rows"]),
            "source_seconds_per_pass_per_1M_rows": source,
            "source_ratio_to_in_memory": source / base["seconds_per_pass_per_1M_rows"],
            "per_pass_ratio_net_of_source": ((line["seconds_per_pass_per_1M_rows"] - source)
                                             / base["seconds_per_pass_per_1M_rows"]),
            "in_passes_ratio_to_in_memory": (line["seconds_in_passes_per_pass_per_1M_rows"]
                                             / base["seconds_in_passes_per_pass_per_1M_rows"]),
            "worker_peak_memory": sorted(poll.peak.values()),
            "worker_peak_memory_share_of_limit": [m / limit for m in sorted(poll.peak.values())],
            "learner": big.learner_, "certificate_epsilon": big.certificate_.epsilon,
            "backend": next((f"dask ({c.row_map.chunks} chunks)" for c in
                             (big.certificate_, *big.certificate_.parts)
                             if c.row_map and c.row_map.chunks), None),
        }
        print(json.dumps(log["dask"]), flush=True)
    finally:
        client.close()
        cluster.close()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(log, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
