"""How far a reader follows one fit: package files, distinct functions and the deepest stack.

Traces ``fit`` of ``PrivateLogisticRegression(epsilon=1)`` or ``PrivateRegressor(epsilon=1)``
on 2,000 × 10 rows (one warm-up fit first, so that imports and caches are not counted) with
:func:`sys.setprofile` and counts, over the frames of dpconvex's own files only: the files
entered, the distinct functions called (comprehensions included) and the deepest nesting of
dpconvex frames. Reads the package, no data files: no ``--quick`` or ``--out``.

Usage::

    python benchmarks/trace_fit.py logistic
    python benchmarks/trace_fit.py regressor --list   # also every file and function, with calls
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import warnings

import numpy as np

import dpconvex as dp

PACKAGE = os.path.dirname(dp.__file__)


def _estimator(which: str) -> tuple[dp.PrivateLogisticRegression | dp.PrivateRegressor,
                                   tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 10))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    if which == "logistic":
        return (dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1], random_state=0),
                (X, (X[:, 0] > 0).astype(int)))
    y = 3.0 + 2.0 * X[:, 0] + rng.normal(size=2000)
    return dp.PrivateRegressor(epsilon=1.0, label_range=(-2, 8), random_state=0), (X, y)


def trace(which: str) -> tuple[set[str], collections.Counter[tuple[str, str]], int]:
    """(files, calls per (file, function), deepest nesting of dpconvex frames) of one fit."""
    warnings.simplefilter("ignore")
    warm, data = _estimator(which)
    warm.fit(*data)
    est, data = _estimator(which)
    calls: collections.Counter[tuple[str, str]] = collections.Counter()
    stack: list[bool] = []
    depth = deepest = 0

    def profile(frame, event, arg):  # noqa: ARG001 (the profiler's signature)
        nonlocal depth, deepest
        if event == "call":
            inside = frame.f_code.co_filename.startswith(PACKAGE)
            stack.append(inside)
            if inside:
                depth += 1
                deepest = max(deepest, depth)
                calls[(os.path.relpath(frame.f_code.co_filename, PACKAGE),
                       frame.f_code.co_qualname)] += 1
        elif event == "return" and stack and stack.pop():
            depth -= 1

    sys.setprofile(profile)
    try:
        est.fit(*data)
    finally:
        sys.setprofile(None)
    return {f for f, _ in calls}, calls, deepest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fit", choices=["logistic", "regressor"])
    parser.add_argument("--list", action="store_true", help="every file and function, with calls")
    args = parser.parse_args()
    files, calls, deepest = trace(args.fit)
    print(f"{args.fit}: files {len(files)}, functions {len(calls)}, depth {deepest}")
    if args.list:
        for (path, name), count in sorted(calls.items()):
            print(f"  {path} {name} {count}")


if __name__ == "__main__":
    main()
