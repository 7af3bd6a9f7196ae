"""Private logistic regression on KDD Cup 1999 with the Dask backend, worker memory below the data.

Usage (from the repository root)::

    DPCONVEX_DATA=../shared/datasets python benchmarks/dask_kdd.py \\
        [--sizes 500000 1000000 2000000 4898431] [--memory-limit 2GB] [--epsilon 0.1] \\
        [--lam 1e-4] [--chunksize 100000] [--no-in-memory] [--no-persist] [--label _x]

For each n: ``PrivateLogisticRegression(epsilon=0.1)`` (objective perturbation)
fitted on a Dask array on a ``LocalCluster`` of 2 worker processes (1 thread
each, loopback), each with ``memory_limit`` below the size of the data
(4.9M x 123 x 8 B = 4.8 GB vs 2 x 2 GB). Reports the wall time of the fit, the
peak resident memory of each worker process (psutil, sampled every 0.1 s), the
test error on held-out rows, whether the rows were persisted on the workers or
recomputed from the on-disk chunks on every pass (``DaskRows.compact``), the
time of one epoch (X w then Xᵀv on the template's operator) with Dask and in
memory, and the in-memory fit (same seed: the largest coefficient difference)
where the machine has room for it.

Data. The full file ``kddcup.data.gz`` (4,898,431 records) is used when it is
in the data folder. When it is absent (as in ../shared/datasets), the 10% file
stands in: its records with index % 10 == 0 (49,403) are held out for the test
error, and the other 444,618 are tiled 12 times and cut to n rows (4,898,431
for the largest, the size of the full file). Each tile reads its own copies of
the on-disk chunks, so a pass over n rows does the work of n distinct rows; the
tiled records are duplicates, so the test error is optimistic about nothing but
says little beyond the 10% file. Encoding: ``load_kddcup99_dask`` (the public
ranges of ``load_kddcup99``).

Writes ``benchmarks/results/dask_kdd<label>.json`` (after every size) and
``benchmarks/results/dask_kdd<label>_scaling.png`` (time vs n, log-log).
``--no-persist`` turns persisting off (every pass recomputes the rows from the
on-disk chunks: the path for data that does not fit even as CSR).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
FULL_SIZE = 4_898_431


class PeakRSS:
    """Sample the resident memory of some processes every ``interval`` s; keep each one's peak."""

    def __init__(self, pids: dict[str, int], interval: float = 0.1):
        import psutil

        self.procs = {name: psutil.Process(pid) for name, pid in pids.items()}
        self.peak = dict.fromkeys(pids, 0)
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            for name, proc in self.procs.items():
                try:
                    self.peak[name] = max(self.peak[name], proc.memory_info().rss)
                except Exception:  # noqa: BLE001 - a restarted worker: keep what was seen
                    pass
            self._stop.wait(self.interval)

    def __enter__(self) -> PeakRSS:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def tiled_kdd(n_max: int, chunksize: int):
    """(X_train as a Dask array of n_max rows, y_train, X_test, y_test, description)."""
    import dask
    import dask.array as da

    from dpconvex.datasets import load_kddcup99_dask
    from dpconvex.datasets._files import data_search_path
    from dpconvex.datasets.dask_loaders import KDDCUP99_FULL_FILE, kddcup99_chunk_store

    folders, _ = data_search_path()
    if any((f / KDDCUP99_FULL_FILE).is_file() for f in folders):
        X, y = load_kddcup99_dask(chunksize=chunksize)
        Xs, ys = load_kddcup99_dask(Path(next(f for f in folders if (f / "kddcup.data_10_percent.gz")
                                                .is_file())) / "kddcup.data_10_percent.gz",
                                    chunksize=chunksize)
        test = np.arange(ys.size) % 10 == 0
        return (X[:n_max], y[:n_max], Xs[test].compute(), ys[test],
                "full kddcup.data.gz (the held-out 10%-file rows are also in the training file)")
    X10, y10 = load_kddcup99_dask(chunksize=chunksize)  # the 10% file (full file absent)
    test = np.arange(y10.size) % 10 == 0
    store = kddcup99_chunk_store(chunksize=chunksize)  # the on-disk chunks behind X10
    meta = json.loads((store / "meta.json").read_text())
    p = X10.shape[1]
    offsets = np.concatenate([[0], np.cumsum(meta["chunks"])])
    tiles, ys = [], []
    total = 0
    t = 0
    while total < n_max:
        blocks = []
        for i in range(len(meta["chunks"])):
            keep = ~test[offsets[i]:offsets[i + 1]]
            load = dask.delayed(_load_rows, pure=True)(str(store / f"X-{i:05d}.npy"), keep,
                                                       dask_key_name=f"kdd-tile{t}-chunk{i}")
            blocks.append(da.from_delayed(load, shape=(int(keep.sum()), p), dtype=np.float64))
        tiles.append(da.concatenate(blocks))
        ys.append(y10[~test])
        total += int((~test).sum())
        t += 1
    X = da.concatenate(tiles)[:n_max]
    y = np.concatenate(ys)[:n_max]
    X10np = X10.compute()
    return (X, y, X10np[test], y10[test],
            f"10% file stand-in: {int((~test).sum())} training records tiled {t} times and cut "
            f"to n; {int(test.sum())} records (index % 10 == 0) held out for the test error")


def _load_rows(file: str, keep: np.ndarray) -> np.ndarray:
    return np.load(file)[keep]


def epoch_seconds(ops, reps: int = 3) -> float:
    """Mean time of X w then Xᵀv on an operator."""
    rng = np.random.default_rng(0)
    w = rng.normal(size=ops.p) * 0.01
    best = []
    for _ in range(reps):
        if hasattr(ops, "_memo"):
            ops._memo = None  # a fresh product each time
        t = time.perf_counter()
        m = ops.matvec(w)
        ops.rmatvec(np.tanh(m))
        best.append(time.perf_counter() - t)
    return float(np.mean(best))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[500_000, 1_000_000, 2_000_000, FULL_SIZE])
    ap.add_argument("--memory-limit", default="2GB")
    ap.add_argument("--epsilon", type=float, default=0.1)
    ap.add_argument("--lam", type=float, default=1e-4)
    ap.add_argument("--chunksize", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-in-memory", action="store_true")
    ap.add_argument("--no-persist", action="store_true",
                    help="never persist the rows: recompute them from the on-disk chunks every pass")
    ap.add_argument("--label", default="", help="suffix of the result files")
    args = ap.parse_args()
    out_json = RESULTS / f"dask_kdd{args.label}.json"

    import dask
    import psutil
    from dask.distributed import Client, LocalCluster

    import dpconvex as dp
    from dpconvex.data import dask_rows
    from dpconvex.data.operators import DenseRows

    if args.no_persist:
        dask_rows.PERSIST_FRACTION = 0.0  # the rule of DaskRows.compact, turned off

    RESULTS.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    X_all, y_all, X_test, y_test, source = tiled_kdd(max(args.sizes), args.chunksize)
    print(f"data: {source}; loaded in {time.perf_counter() - t0:.1f} s", flush=True)
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                           dashboard_address=None, memory_limit=args.memory_limit)
    client = Client(cluster)
    client.run(lambda: __import__("dpconvex.data.dask_rows"))
    limits = [w["memory_limit"] for w in client.scheduler_info()["workers"].values()]
    out = {"source": source, "epsilon": args.epsilon, "lam": args.lam, "chunksize": args.chunksize,
           "worker_memory_limit_bytes": limits, "machine": {"cores": os.cpu_count(),
           "memory_bytes": psutil.virtual_memory().total}, "dask": dask.__version__,
           "python": sys.version.split()[0], "runs": []}
    for n in sorted(args.sizes):
        X, y = X_all[:n], y_all[:n]
        row = {"n": n, "data_bytes": 8 * n * (X.shape[1] + 1), "chunks": len(X.chunks[0])}
        print(f"\nn = {n:,}: {row['data_bytes'] / 1e9:.2f} GB of rows (with the intercept), "
              f"{row['chunks']} chunks, worker limit {limits[0] / 1e9:.1f} GB x {len(limits)}",
              flush=True)
        kw = dict(epsilon=args.epsilon, lam=args.lam, classes=[0, 1], random_state=args.seed)
        pids = client.run(os.getpid)
        est = dp.PrivateLogisticRegression(**kw)
        with PeakRSS(pids) as mem, dp.collect_diagnostics() as diag:
            t = time.perf_counter()
            est.fit(X, y)
            row["dask_fit_s"] = time.perf_counter() - t
        row["peak_worker_rss_bytes"] = sorted(mem.peak.values())
        row["iterations"] = int(diag[-1].iterations) if diag else None
        row["test_error"] = float(1.0 - est.score(X_test, y_test))
        # the epoch: the operator the template solves on (clipped, intercept, signed rows)
        template, _, _ = est._prepare(X, y)
        row["persisted"] = bool(template.rows.persisted)
        row["stored_bytes"] = int(template.rows.stored_bytes)
        row["dask_epoch_s"] = epoch_seconds(template._ops)
        del template
        where = (f"persisted ({row['stored_bytes'] / 1e9:.2f} GB)" if row["persisted"]
                 else "recomputed per pass")
        print(f"  dask: fit {row['dask_fit_s']:.1f} s ({row['iterations']} solver iterations), "
              f"rows {where}, peak worker RSS "
              f"{[round(b / 1e9, 2) for b in row['peak_worker_rss_bytes']]} GB, test error "
              f"{row['test_error']:.4f}, epoch {row['dask_epoch_s']:.2f} s", flush=True)
        if not args.no_in_memory and psutil.virtual_memory().available > 3 * row["data_bytes"]:
            Xm = X.compute(scheduler="threads")  # on the driver, not through a 2 GB worker
            mem_est = dp.PrivateLogisticRegression(**kw)
            t = time.perf_counter()
            mem_est.fit(Xm, y)
            row["memory_fit_s"] = time.perf_counter() - t
            row["max_coef_diff"] = float(np.max(np.abs(mem_est.coef_ - est.coef_)))
            row["memory_test_error"] = float(1.0 - mem_est.score(X_test, y_test))
            tm, _, _ = mem_est._prepare(Xm, y)
            row["memory_epoch_s"] = epoch_seconds(tm._ops)
            row["memory_operator"] = type(tm._ops).__name__
            row["epoch_ratio"] = row["dask_epoch_s"] / row["memory_epoch_s"]
            row["memory_dense_epoch_s"] = epoch_seconds(DenseRows(Xm))  # same rows, no CSR copy
            del Xm, tm, mem_est
            print(f"  in memory: fit {row['memory_fit_s']:.1f} s, epoch {row['memory_epoch_s']:.3f} s "
                  f"({row['memory_operator']}; dense {row['memory_dense_epoch_s']:.3f} s); "
                  f"Dask/in-memory epoch {row['epoch_ratio']:.1f}x; "
                  f"max |coef diff| {row['max_coef_diff']:.2e}", flush=True)
        out["runs"].append(row)
        tmp = out_json.with_suffix(".tmp")
        tmp.write_text(json.dumps(out, indent=2))
        tmp.replace(out_json)
        plot(out["runs"], RESULTS / f"dask_kdd{args.label}_scaling.png", source)
    client.close()
    cluster.close()


def plot(runs: list[dict], path: Path, source: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = [r["n"] for r in runs]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.loglog(n, [r["dask_fit_s"] for r in runs], "o-", label="Dask fit (2 workers, limit < data)")
    mem = [(r["n"], r["memory_fit_s"]) for r in runs if "memory_fit_s" in r]
    if mem:
        ax.loglog(*zip(*mem, strict=True), "s--", label="in-memory fit")
    ax.loglog(n, [r["dask_epoch_s"] for r in runs], "^:", label="Dask epoch (Xw + Xᵀv)")
    ax.set_xlabel("n (records)")
    ax.set_ylabel("seconds")
    ax.set_title("Private LR, ε = 0.1, KDD Cup 99" + (" (10% file tiled)" if "10%" in source else ""))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    main()
