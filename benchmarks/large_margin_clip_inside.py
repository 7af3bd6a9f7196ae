"""The cost of clipping each row inside the large-margin records' products, against factors
computed once.

Not a test. ``PrivateLargeMarginGaussian`` (softmax loss, one component per class) reads the
caller's dense rows in place (:class:`~dpconvex.templates.large_margin_rows.AugmentedRows`
with ``clip=q``): each product reads a block of rows, their norms, then their products, so a
row changed in place between two products is never read above q
(docs/privacy/row_scaling.md#privacy-rows-read-in-place). This script times, in one run and on
the same rows:

1. ``PrivateLargeMarginGaussian(epsilon=1, data_norm=1, classes=[0, 1], row_norm="none")``
   fitted as shipped (the clip factors computed inside every product);
2. the same fit with the clip factors computed once, from the rows' norms at the start, and
   kept for every product (the factors stored: the baseline of this cost);

on 10^6 dense rows of d = 20 (norms about 1, about half the rows above q = 1). Each fit is
run ``--repeats`` times after one warm-up fit (the two fits alternated); the fastest of each is
kept, and the ratio ``inside / stored`` is printed with the largest difference of the released
``Phi_`` (the two designs differ by the rounding of a factor's product only).

Usage::

    python benchmarks/large_margin_clip_inside.py
    python benchmarks/large_margin_clip_inside.py --quick   # a smoke run (20,000 rows, one fit)
"""

from __future__ import annotations

import argparse
import time
import warnings
from typing import Any

import harness  # benchmarks/ is the script's folder, first on sys.path
import numpy as np

import dpconvex as dp
from dpconvex.estimators.large_margin import centroid, estimator
from dpconvex.templates.large_margin_rows import AugmentedRows


def _stored_factors(est: Any, X: Any, dropped: np.ndarray) -> Any:
    """:func:`centroid.augmented_rows` with the clip factors computed once and stored."""
    out = _SHIPPED(est, X, dropped)
    if out is None:
        return None
    rows, n_clipped = out
    s = rows._factors(rows.stored.row_norms(), slice(None))
    return AugmentedRows(rows.stored, s, rows.column), n_clipped


_SHIPPED = centroid.augmented_rows

#: Rows of the case and fits of each kind (``--quick``: a smoke run, not a measurement).
ROWS, REPEATS = 1_000_000, 3


def _timed(X: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
    est = dp.PrivateLargeMarginGaussian(epsilon=1.0, data_norm=1.0, classes=[0, 1],
                                        row_norm="none", random_state=0)
    start = time.perf_counter()
    est.fit(X, y)
    return time.perf_counter() - start, est.Phi_


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=ROWS)
    parser.add_argument("--repeats", type=int, default=REPEATS)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(args.rows, 20)) / np.sqrt(20.0) * rng.uniform(0.5, 1.5, (args.rows, 1))
    y = (X @ rng.normal(size=20) + 0.3 * rng.normal(size=args.rows) > 0).astype(int)
    _timed(X, y)  # warm-up: imports and first-call costs outside the timings
    inside = stored = np.inf
    for _ in range(args.repeats):  # alternated: a change of the machine's load hits both
        seconds, phi = _timed(X, y)
        inside = min(inside, seconds)
        estimator.augmented_rows = _stored_factors  # the name the fit calls
        try:
            seconds, phi_stored = _timed(X, y)
        finally:
            estimator.augmented_rows = _SHIPPED
        stored = min(stored, seconds)
    diff = float(np.max(np.abs(phi - phi_stored)))
    print(f"{'rows':>10} {'inside s':>9} {'stored s':>9} {'inside/stored':>14} {'max |diff|':>11}")
    print(f"{args.rows:>10} {inside:>9.3f} {stored:>9.3f} {inside / stored:>14.3f} {diff:>11.1e}")


if __name__ == "__main__":
    harness.run_script(__file__, main, globals(), {"ROWS": 20_000, "REPEATS": 1})
