"""The large-margin classifier on Dask records: agreement with memory, and the cost of one pass.

Not a test. The template is Pathak & Raj's pairwise Huber objective (``loss="pairwise",
lam=2e-2``). On a two-worker ``LocalCluster`` (processes, loopback):

1. one objective evaluation (data loss + gradient: the solver's per-iteration work)
   on n × d synthetic rows, C classes: in memory (``template.data_loss``) against
   the one-pass Dask path (``DaskGram.data_loss``) and against the two-pass path
   through the parameterization (``forms`` to the driver, then ``adjoint``);
   medians of ``--reps`` evaluations at random symmetric Φ after one warm-up pass
   (which persists the chunks); in memory with one BLAS thread, as the solver runs
   it (the Dask workers run one BLAS thread each);
2. a full private fit (``PrivateLargeMarginGaussian``, objective perturbation,
   native solver, same seed) on ``--fit-n`` rows in memory and on Dask: the max
   |Φ_mem − Φ_dask|, the share of equal test predictions, and both wall times.

Usage::

    python benchmarks/dask_large_margin.py --n 200000 --d 20 --classes 3 --chunks 8 --fit-n 20000

``--quick`` (a smoke run, not a measurement): n = 20,000, 2,000 rows for the fit, 2 repetitions.
"""

from __future__ import annotations

import statistics
import sys
import time
import warnings

import harness  # benchmarks/ is the script's folder, first on sys.path
import numpy as np


def _data(n: int, d: int, C: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, C, n)
    means = rng.normal(size=(C, d)) * (0.6 / np.sqrt(d))
    X = means[y] + rng.normal(size=(n, d)) * (0.5 / np.sqrt(d))
    return X, y


def _median_time(f, reps: int) -> float:
    out = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        out.append(time.perf_counter() - t)
    return statistics.median(out)


def main(argv: list[str] | None = None) -> None:
    ap = harness.parser(__doc__)
    ap.add_argument("--n", type=int, default=200_000)
    ap.add_argument("--d", type=int, default=20)
    ap.add_argument("--classes", type=int, default=3)
    ap.add_argument("--chunks", type=int, default=8)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--fit-n", type=int, default=20_000)
    args = ap.parse_args(argv)
    if args.quick:
        args.n, args.fit_n, args.reps = min(args.n, 20_000), min(args.fit_n, 2_000), 2

    import dask.array as da
    import distributed

    import dpconvex as dp
    from dpconvex.solvers._threads import single_threaded

    warnings.simplefilter("ignore")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       host="127.0.0.1", dashboard_address=None)
    client = distributed.Client(cluster)
    res: dict = {"n": args.n, "d": args.d, "C": args.classes, "chunks": args.chunks}
    run = harness.Run(__file__, args, argv)
    try:
        classes = list(range(args.classes))
        X, y = _data(args.n, args.d, args.classes)
        est = dp.PrivateLargeMarginGaussian(classes=classes, loss="pairwise", lam=2e-2,
                                            solver="native", random_state=1)
        mem = est._build(X, y).template
        Xd = da.from_array(X, chunks=(-(-args.n // args.chunks), args.d))
        dsk = est._build(Xd, y).template
        rng = np.random.default_rng(2)

        def phi() -> np.ndarray:
            P = rng.normal(size=mem.space.shape) * 0.1
            return P + np.swapaxes(P, -1, -2)

        dsk.data_loss(phi())  # warm-up: persists the chunks and the chunk views
        with single_threaded("blas"):  # as the solver runs it (Dask workers: 1 BLAS thread each)
            res["pass_in_memory_s"] = _median_time(lambda: mem.data_loss(phi()), args.reps)
        res["pass_dask_one_pass_s"] = _median_time(lambda: dsk.data_loss(phi()), args.reps)

        def two_pass() -> None:
            P = phi()
            A = dsk.space.forms(dsk.Z, P)
            dsk.space.adjoint(dsk.Z, np.ones_like(A) / dsk.n)

        res["pass_dask_two_pass_s"] = _median_time(two_pass, args.reps)
        res["overhead_ratio"] = res["pass_dask_one_pass_s"] / res["pass_in_memory_s"]
        table = harness.Table(f"One objective evaluation, n = {args.n}, d = {args.d}, C = {args.classes}, "
                              f"{args.chunks} chunks (median of {args.reps})",
                              ["path", "seconds", "time ratio to in memory"], kind="speed")
        for label, key in (("in memory (one BLAS thread)", "pass_in_memory_s"),
                           ("Dask, one pass", "pass_dask_one_pass_s"),
                           ("Dask, forms + adjoint (two passes)", "pass_dask_two_pass_s")):
            table.add(label, f"{res[key]:.3f}", f"{res[key] / res['pass_in_memory_s']:.2f}")

        Xf, yf = _data(args.fit_n, args.d, args.classes, seed=3)
        Xt, _ = _data(5000, args.d, args.classes, seed=4)
        make = lambda: dp.PrivateLargeMarginGaussian(  # noqa: E731
            epsilon=1.0, classes=classes, loss="pairwise", lam=2e-2, solver="native", random_state=5)
        t = time.perf_counter()
        m = make().fit(Xf, yf)
        res["fit_in_memory_s"] = time.perf_counter() - t
        t = time.perf_counter()
        k = make().fit(da.from_array(Xf, chunks=(-(-args.fit_n // args.chunks), args.d)), yf)
        res["fit_dask_s"] = time.perf_counter() - t
        res["fit_n"] = args.fit_n
        res["max_abs_phi_diff"] = float(np.max(np.abs(m.Phi_ - k.Phi_)))
        res["equal_predictions"] = float(np.mean(m.predict(Xt) == k.predict(Xt)))
        fit = harness.Table(f"Private fit, n = {args.fit_n}", ["records", "seconds",
                                                                "time ratio to in memory"], kind="speed")
        fit.add("in memory", f"{res['fit_in_memory_s']:.1f}", "1")
        fit.add("Dask", f"{res['fit_dask_s']:.1f}", f"{res['fit_dask_s'] / res['fit_in_memory_s']:.1f}")
        fit.notes.append(f"max |Phi_mem - Phi_dask| = {res['max_abs_phi_diff']:.3g}, equal test "
                         f"predictions {res['equal_predictions']:.4f}")
    finally:
        client.close()
        cluster.close()
    with run:
        run.table(table)
        run.table(fit)
        run.data.update(res)


if __name__ == "__main__":
    main(sys.argv[1:])
