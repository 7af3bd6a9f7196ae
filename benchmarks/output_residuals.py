"""The residual output perturbation's solves reach against the tolerance γ(n) = κG/n it needs.

Not a test. Synthetic logistic regression (``--d`` features, rows of unit norm, labels a
noisy linear rule), for each n of ``--n`` and Λ of ``--lam``:

1. fits ``PrivateLogisticRegression(mechanism="output")`` with each solver of ``--solvers``
   ("native"; "dask": the same rows as a 4-chunk Dask array, native solver; "clarabel",
   "scs") and prints the residual of the released solve (``collect_diagnostics``) beside
   γ(n) = κG/n (:func:`dpconvex.privacy.mechanisms.base.output_solve_tolerance`);
2. for the native solver, times the solve of the same template aimed at the template's
   ``residual_tol`` (the baseline) and at γ(n), in the same run, and prints the ratio.

Usage (``--quick``: 2,000 rows, the native solver; ``--out``: the results folder)::

    python benchmarks/output_residuals.py --n 20000 1000000 5000000 --solvers native dask
    python benchmarks/output_residuals.py --n 20000 --solvers clarabel scs
"""

from __future__ import annotations

import argparse
import time
import warnings

import harness  # benchmarks/ is the script's folder, first on sys.path
import numpy as np

import dpconvex as dp
from dpconvex.objectives.losses import Logistic
from dpconvex.privacy.mechanisms.base import (
    OUTPUT_SOLVE_MARGIN,
    _aimed_at,
    output_solve_tolerance,
)
from dpconvex.solvers import LbfgsNewton
from dpconvex.templates.linear_erm import LinearERMTemplate

#: The row counts of a run (``--quick``: 2,000 rows, native only).
ROWS = [20_000, 1_000_000]
SOLVERS = ["native", "dask"]


def _rows(n: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X, y


def _fit(X: np.ndarray, y: np.ndarray, lam: float, solver: str) -> tuple[float, float, float]:
    """(the released solve's residual, γ(n), seconds) of one output-perturbation fit."""
    Xa, ya, name = X, y, None if solver in ("native", "dask") else solver
    if solver == "dask":
        import dask.array as da
        Xa = da.from_array(X, chunks=(len(y) // 4, X.shape[1]))
        ya = da.from_array(y, chunks=len(y) // 4)
    t0 = time.perf_counter()
    with dp.collect_diagnostics() as diag:
        model = dp.PrivateLogisticRegression(epsilon=1.0, mechanism="output", classes=[0, 1],
                                             lam=lam, solver=name, random_state=0).fit(Xa, ya)
    seconds = time.perf_counter() - t0
    residual = [r.residual for r in diag if getattr(r, "residual", None) is not None][-1]
    q = model.certificate_.quantities
    gamma = OUTPUT_SOLVE_MARGIN * q["per-record gradient bound G"] / q["n"]
    return residual, gamma, seconds


def _solve_ratio(X: np.ndarray, y: np.ndarray, lam: float) -> tuple[float, float]:
    """Seconds of the native solve aimed at residual_tol and at γ(n) (the same template)."""
    t = LinearERMTemplate(Logistic(), lam, 1.0, X, np.where(y == 1, 1.0, -1.0))
    gamma, _ = output_solve_tolerance(t, lam, t.privacy_constants().grad_bound)
    t0 = time.perf_counter()
    LbfgsNewton().solve(t, None)
    base = time.perf_counter() - t0
    t0 = time.perf_counter()
    LbfgsNewton().solve(_aimed_at(t, gamma), None)
    return base, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="+", default=ROWS)
    ap.add_argument("--d", type=int, default=5)
    ap.add_argument("--lam", type=float, nargs="+", default=[1e-3, 1e-5])
    ap.add_argument("--solvers", nargs="+", default=SOLVERS)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    for n in args.n:
        X, y = _rows(n, args.d)
        for lam in args.lam:
            for solver in args.solvers:
                residual, gamma, seconds = _fit(X, y, lam, solver)
                print(f"n={n:>9,} lam={lam:g} {solver:>8}: residual {residual:.2g} "
                      f"<= gamma {gamma:.2g}: {residual <= gamma}  ({seconds:.1f} s)",
                      flush=True)
            if "native" in args.solvers:
                base, aimed = _solve_ratio(X, y, lam)
                print(f"n={n:>9,} lam={lam:g}   native solve aimed at gamma / at residual_tol: "
                      f"{aimed:.2f} s / {base:.2f} s = {aimed / base:.2f}", flush=True)


if __name__ == "__main__":
    harness.run_script(__file__, main, globals(), quick={"ROWS": [2_000], "SOLVERS": ["native"]})
