"""The walk of X through every default learner's fit: validated once, clipped once, never copied.

A C-contiguous float64 X (with rows above ``data_norm``, so the clip acts) goes through each
default estimator and the front door. Three things are counted on the way:

* the finiteness check (``dpconvex._validation.check_matrix_body``) on X's entries: once;
* the row norms of X itself (``dpconvex.data.operators.row_norms`` on memory shared with X,
  which every clip computes): at most once, and at most twice for the front door with its
  safeguard, whose selection predicts every row once more after the fit (its model's clip);
* the peak memory the fit allocates (``tracemalloc``, which NumPy reports to): below half of X's
  bytes, so no copy of X (or of X with a column appended) is ever held.

n = 40,000 rows at d = 50, as the speed benchmark's d (16 MB): a copy would be 16 MB; a fit's
O(n + d²) work is a few n-vectors (320 KB each), its 2 MB blocks and d² matrices.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest
from _helpers import traced_peak

import dpconvex as dp
from dpconvex import _validation
from dpconvex.data import operators

N, D = 40_000, 50


@functools.cache
def _rows(n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """The rows and labels, drawn once per label count and shared read-only by the tests."""
    rng = np.random.default_rng(11)
    X = rng.normal(size=(N, D)) * 0.3  # row norms around 2.1: above data_norm = 1, clipped
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int) if n_classes == 2 else \
        np.digitize(X[:, 0], [-0.4, 0.4])
    X = np.ascontiguousarray(X)
    X.flags.writeable = False
    y.flags.writeable = False
    return X, y


LEARNERS: dict[str, tuple[int, Callable[[], Any]]] = {
    "logistic": (2, lambda: dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1],
                                                           random_state=0)),
    "huber": (2, lambda: dp.PrivateHuberSVM(epsilon=1.0, classes=[0, 1], random_state=0)),
    "large_margin": (2, lambda: dp.PrivateLargeMarginGaussian(epsilon=1.0, classes=[0, 1],
                                                              random_state=0)),
    "noisy_gd": (2, lambda: dp.NoisyGradientDescent(epsilon=1.0, delta=1e-8, classes=[0, 1],
                                                    steps=20, random_state=0)),
    "centroid": (3, lambda: dp.PrivateGaussianCentroid(epsilon=1.0, classes=[0, 1, 2],
                                                       random_state=0)),
    "front_door_binary": (2, lambda: dp.PrivateClassifier(epsilon=1.0, classes=[0, 1],
                                                          random_state=0)),
    "front_door_three": (3, lambda: dp.PrivateClassifier(epsilon=1.0, classes=[0, 1, 2],
                                                         random_state=0)),
}


@contextmanager
def _counting(module: Any, name: str, counts: list[int], of: Callable[..., int]) -> Iterator[None]:
    """Add ``of(*args)`` per call of ``module.name`` (wherever dpconvex imported it by name)."""
    original = getattr(module, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        counts.append(of(*args))
        return original(*args, **kwargs)

    patched = [(mod, attr) for mod in list(sys.modules.values())
               if getattr(mod, "__name__", "").startswith("dpconvex")
               for attr, value in list(vars(mod).items()) if value is original]
    for mod, attr in patched:
        setattr(mod, attr, wrapper)
    try:
        yield
    finally:
        for mod, attr in patched:
            setattr(mod, attr, original)


@pytest.mark.parametrize("learner", sorted(LEARNERS))
def test_a_fit_validates_once_clips_once_and_copies_nothing(learner):
    n_classes, make = LEARNERS[learner]
    X, y = _rows(n_classes)
    make().fit(X[:200], y[:200])  # first-call costs (imports, caches) outside the count
    checked: list[int] = []
    normed: list[int] = []
    with _counting(_validation, "check_matrix_body", checked,
                   lambda A, v, *a: int(not callable(v) and np.size(v) == X.size)), \
            _counting(operators, "row_norms", normed,  # rows of X normed (blocks add up)
                      lambda A, *a: A.shape[0] if isinstance(A, np.ndarray)
                      and np.shares_memory(A, X) else 0):
        est, peak = traced_peak(lambda: make().fit(X, y))
    assert sum(checked) == 1, f"X's finiteness checked {sum(checked)} times"
    passes = 2 if learner.startswith("front_door") else 1  # the safeguard's predictions
    assert sum(normed) <= passes * N, f"{sum(normed) / N:.1f} passes of row norms over X"
    assert peak < 0.5 * X.nbytes, f"peak {peak / X.nbytes:.2f}x X's bytes"
    assert (est.predict(X[:50]) >= 0).all()


def test_the_memory_count_sees_a_copy():
    """The tracemalloc bound above fails for a fit that copies X (the check can fail)."""
    X, _ = _rows(2)
    _, peak = traced_peak(lambda: np.hstack([X, np.ones((X.shape[0], 1))]))
    assert peak >= 0.5 * X.nbytes
