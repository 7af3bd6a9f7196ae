"""The cost of clipping each row inside every product, against factors computed once.

Not a test. In memory the linear learners read the caller's rows in place and clip them to the
public bound q inside every product (:class:`~dpconvex.data.operators.ScaledRows` with
``clip=q``): each product reads a block of rows, their norms, then their products, so a row
changed in place between two products is never read above q (docs/privacy/row_scaling.md).
This script times, in one run and on the same rows:

1. ``PrivateLogisticRegression(epsilon=1, data_norm=1, classes=[0, 1])`` fitted as shipped
   (the clip factors computed inside every product);
2. the same fit with the clip factors computed once, from the norms the design reads at the
   start, and kept for every product (the factors stored: the baseline of this cost);
3. scikit-learn's ``LogisticRegression()`` (lbfgs, its defaults) on the same rows;

on 10^6 dense rows of d = 20 and on 10^6 CSR rows of d = 1,000 storing 20 entries each
(norms about 1, about half the rows above q = 1). Each fit is run ``--repeats`` times after
one warm-up fit (the two private fits alternated); the fastest of each is kept, and the
ratios are printed (``inside / stored``: the cost of the clipping inside the products;
``inside / sklearn``).

Usage::

    python benchmarks/clip_inside_products.py
    python benchmarks/clip_inside_products.py --quick   # a smoke run (20,000 rows, one fit)
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Callable
from typing import Any

import harness  # benchmarks/ is the script's folder, first on sys.path
import numpy as np
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression

import dpconvex as dp
from dpconvex.data import operators
from dpconvex.estimators import linear


def _stored_factors(base: Any, scale: np.ndarray, column: np.ndarray | None = None, *,
                    clip: float | None = None, unit: bool = False) -> operators.ScaledRows:
    """The operator with the clip factors computed once from the rows' norms and stored."""
    if clip is None:
        return operators.ScaledRows(base, scale, column)
    norms = base.row_norms()
    g = operators.unit_scale(norms, clip) if unit else operators.clip_scale(norms, clip)[0]
    return operators.ScaledRows(base, np.where(scale == 0.0, 0.0, scale * g), column)


def _fastest(fit: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    best, out = np.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fit()
        best = min(best, time.perf_counter() - start)
    return best, out


def _rows(kind: str, n: int, rng: np.random.Generator) -> tuple[Any, np.ndarray]:
    if kind == "dense":
        X = rng.normal(size=(n, 20)) / np.sqrt(20.0) * rng.uniform(0.5, 1.5, size=(n, 1))
        w = rng.normal(size=20)
    else:
        k, p = 20, 1000
        cols = np.sort(rng.random((n, p)).argpartition(k, axis=1)[:, :k], axis=1) \
            if n * p <= 2e8 else np.sort(rng.integers(0, p, size=(n, k)), axis=1)
        vals = rng.normal(size=(n, k)) / np.sqrt(k) * rng.uniform(0.5, 1.5, size=(n, 1))
        X = sp.csr_array((vals.ravel(), cols.ravel(), np.arange(0, n * k + 1, k)), shape=(n, p))
        X.sum_duplicates()
        w = rng.normal(size=p)
    y = (np.asarray(X @ w) + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X, y


#: Rows of each case and fits of each kind (``--quick``: a smoke run, not a measurement).
ROWS, REPEATS = 1_000_000, 3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=ROWS)
    parser.add_argument("--repeats", type=int, default=REPEATS)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(0)
    print(f"{'rows':>10} {'kind':>6} {'inside s':>9} {'stored s':>9} {'sklearn s':>10} "
          f"{'inside/stored':>14} {'inside/sklearn':>15} {'max |diff|':>11}")
    for kind in ("dense", "sparse"):
        X, y = _rows(kind, args.rows, rng)

        def private(X: Any = X, y: np.ndarray = y) -> Any:
            est = dp.PrivateLogisticRegression(epsilon=1.0, data_norm=1.0, classes=[0, 1],
                                               random_state=0)
            return est.fit(X, y).coef_

        private()  # warm-up: imports and first-call costs outside the timings
        inside = stored = np.inf
        shipped = linear.ScaledRows
        for _ in range(args.repeats):  # alternated: a change of the machine's load hits both
            seconds, coef = _fastest(private, 1)
            inside = min(inside, seconds)
            linear.ScaledRows = _stored_factors
            try:
                seconds, coef_stored = _fastest(private, 1)
            finally:
                linear.ScaledRows = shipped
            stored = min(stored, seconds)
        sk, _ = _fastest(lambda X=X, y=y: LogisticRegression().fit(X, y), args.repeats)
        diff = float(np.max(np.abs(coef - coef_stored)))
        print(f"{args.rows:>10} {kind:>6} {inside:>9.3f} {stored:>9.3f} {sk:>10.3f} "
              f"{inside / stored:>14.3f} {inside / sk:>15.3f} {diff:>11.1e}")


if __name__ == "__main__":
    harness.run_script(__file__, main, globals(), {"ROWS": 20_000, "REPEATS": 1})
