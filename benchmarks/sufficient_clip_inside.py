"""The cost of reading each block of rows once for the sufficient statistics, against reading
the caller's rows twice (norms, then products).

Not a test. :func:`dpconvex.data.sufficient.sufficient_statistics` copies each block of rows
(dense: about 2 MB; CSR: its stored entries) once, then computes the block's norms, clip factors
and products from the copy, so a row changed in place by another thread is clipped as the
statistic reads it (docs/privacy/row_scaling.md#privacy-rows-read-in-place). The baseline
computes the same sums from the caller's rows directly: dense, each block's norms and then its
scaled copy read from the rows; CSR, the norms of every row in one pass, then the blocks read
again. This script times both, in one run, on 10^6 dense rows of d = 20 and 10^6 CSR rows of
d = 1,000 storing 20 entries each (norms about 1, about half the rows above q = 1), the two
alternated ``--repeats`` times after a warm-up; it prints the fastest of each, their ratio and
the largest difference of the statistics.

Usage::

    python benchmarks/sufficient_clip_inside.py
    python benchmarks/sufficient_clip_inside.py --kinds dense --repeats 15
    python benchmarks/sufficient_clip_inside.py --quick   # a smoke run (20,000 rows, one call)
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import harness  # benchmarks/ is the script's folder, first on sys.path
import numpy as np
import scipy.sparse as sp

from dpconvex.data import sufficient
from dpconvex.data.operators import _GRAM_ENTRIES, CSRRows, canonical_csr, clip_scale, row_norms


def _baseline_dense(X: np.ndarray, u: np.ndarray, bound: float, intercept: float | None
                    ) -> np.ndarray:
    n, d = X.shape
    p = d + (intercept is not None)
    H = np.zeros((p + 1, p + 1))
    clipped = 0
    step = max(1, _GRAM_ENTRIES // (p + 1))
    buf = np.empty((min(step, max(n, 1)), p + 1))
    if intercept is not None:
        buf[:, d] = intercept
    for a in range(0, n, step):
        k = min(step, n - a)
        B, block = X[a:a + k], buf[:k]
        scale, over = clip_scale(row_norms(B), bound)
        clipped += over
        np.multiply(B, scale[:, None], out=block[:, :d])
        block[:, p] = u[a:a + k]
        H += block.T @ block
    return np.append(H.ravel(), float(clipped))


def _baseline_sparse(X: Any, u: np.ndarray, bound: float, intercept: float | None
                     ) -> np.ndarray:
    A = canonical_csr(X)
    n, d = A.shape
    p = d + (intercept is not None)
    scale, clipped = clip_scale(CSRRows(A).row_norms(), bound)
    H = np.zeros((p + 1, p + 1))
    step = max(1, _GRAM_ENTRIES // (int(A.nnz // max(n, 1)) + 1))
    for a in range(0, n, step):
        rows = slice(a, min(n, a + step))
        lo, hi = A.indptr[a], A.indptr[rows.stop]
        data = A.data[lo:hi] * np.repeat(scale[rows], np.diff(A.indptr[a:rows.stop + 1]))
        block = sp.csr_array((data, A.indices[lo:hi], A.indptr[a:rows.stop + 1] - lo),
                             shape=(rows.stop - a, d))
        H[:d, :d] += (block.T @ block).toarray()
        H[:d, p] += block.T @ u[rows]
        if intercept is not None:
            H[:d, d] += intercept * np.asarray(block.sum(axis=0)).ravel()
    if intercept is not None:
        H[d, d] = n * intercept * intercept
        H[d, p] = intercept * float(u.sum())
        H[d, :d] = H[:d, d]
    H[p, p] = float(u @ u)
    H[p, :p] = H[:p, p]
    return np.append(H.ravel(), float(clipped))


def _rows(kind: str, n: int, rng: np.random.Generator) -> Any:
    if kind == "dense":
        return rng.normal(size=(n, 20)) / np.sqrt(20.0) * rng.uniform(0.5, 1.5, size=(n, 1))
    k, p = 20, 1000
    cols = np.sort(rng.integers(0, p, size=(n, k)), axis=1)
    vals = rng.normal(size=(n, k)) / np.sqrt(k) * rng.uniform(0.5, 1.5, size=(n, 1))
    X = sp.csr_array((vals.ravel(), cols.ravel(), np.arange(0, n * k + 1, k)), shape=(n, p))
    X.sum_duplicates()
    return X


#: Rows of each case and calls of each kind (``--quick``: a smoke run, not a measurement).
ROWS, REPEATS = 1_000_000, 3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=ROWS)
    parser.add_argument("--repeats", type=int, default=REPEATS)
    parser.add_argument("--kinds", nargs="+", choices=("dense", "sparse"),
                        default=["dense", "sparse"])
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print(f"{'rows':>10} {'kind':>6} {'once s':>8} {'twice s':>8} {'once/twice':>11} "
          f"{'max |diff|':>11}")
    for kind in args.kinds:
        X = _rows(kind, args.rows, rng)
        u = np.clip(rng.normal(size=args.rows), -1.0, 1.0)
        shipped = sufficient._sparse_moments if kind == "sparse" else sufficient.moments_of_block
        baseline = _baseline_sparse if kind == "sparse" else _baseline_dense
        shipped(X, u, 1.0, 0.25)  # warm-up
        once = twice = np.inf
        for _ in range(args.repeats):  # alternated: a change of the machine's load hits both
            start = time.perf_counter()
            a = shipped(X, u, 1.0, 0.25)
            once = min(once, time.perf_counter() - start)
            start = time.perf_counter()
            b = baseline(X, u, 1.0, 0.25)
            twice = min(twice, time.perf_counter() - start)
        diff = float(np.max(np.abs(a - b)))
        print(f"{args.rows:>10} {kind:>6} {once:>8.3f} {twice:>8.3f} {once / twice:>11.3f} "
              f"{diff:>11.1e}")


if __name__ == "__main__":
    harness.run_script(__file__, main, globals(), {"ROWS": 20_000, "REPEATS": 1})
