"""ε sweeps: one estimator fitted at several ε, several randomized runs each, on one data set.

A sweep builds the template once (validation, clipping, the sparse copy of the
rows, the compiled CVXPY problem with the noise as a :class:`cvxpy.Parameter`)
and, on the native path, warm-starts every solve from the previous solve of the
sweep. Each fit is a separate release with its own certificate, charged to the
estimator's accountant like a call to ``fit``.

Warm starts and privacy (docs/privacy.md §5.4): a solve is started from the
solution of the previous solve in the same sweep. For objective perturbation
that is a released model, for output perturbation it is the minimizer of the
unperturbed objective that every run of the sweep perturbs anew. The start point
only changes how the solver reaches the minimizer, which it must reach to the
same residual tolerance (<= 1e-6) before anything is released; the noise and
the calibration do not depend on it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._random import RandomStateLike, check_random_state
from ._validation import check_bool, check_float, check_int
from .errors import ParameterError
from .privacy.release import collect_diagnostics

__all__ = ["EpsilonSweep", "epsilon_sweep"]


@dataclass
class EpsilonSweep:
    """Result of :func:`epsilon_sweep`.

    Attributes
    ----------
    epsilons : tuple of float
        The ε grid, in the order given.
    estimators : list of list
        ``estimators[i][r]`` is the estimator fitted at ``epsilons[i]`` in run ``r``.
    seconds : float
        Wall-clock time of the whole sweep.
    templates_built : int
        How many times a template was built (1 when it was reused throughout).
    """

    epsilons: tuple[float, ...]
    estimators: list[list[Any]] = field(default_factory=list)
    seconds: float = 0.0
    templates_built: int = 0

    def score(self, X: Any, y: Any) -> np.ndarray:
        """Score of every fit on (X, y): array of shape (len(epsilons), runs)."""
        return np.array([[float(e.score(X, y)) for e in row] for row in self.estimators])

    @property
    def certificates(self) -> list[list[Any]]:
        """``certificate_`` of every fit, shaped like ``estimators``."""
        return [[e.certificate_ for e in row] for row in self.estimators]


def _fresh(estimator: Any, **params: Any) -> Any:
    """A new unfitted estimator with the same parameters (the accountant object is shared,
    not copied as :func:`sklearn.base.clone` would) and ``params`` overridden."""
    new = type(estimator)(**estimator.get_params(deep=False))
    return new.set_params(**params)


def epsilon_sweep(
    estimator: Any,
    X: Any,
    y: Any,
    epsilons: Sequence[float],
    *,
    runs: int = 1,
    random_state: RandomStateLike = None,
    warm_start: bool = True,
) -> EpsilonSweep:
    """Fit ``estimator`` at every ε of ``epsilons``, ``runs`` times each, on (X, y).

    Parameters
    ----------
    estimator : estimator
        An unfitted dpconvex estimator; it is not modified. Its parameters are
        used for every fit except ``epsilon`` and ``random_state``.
    X, y : array-like
        Training data, as for ``fit``.
    epsilons : sequence of float
        ε values, each > 0.
    runs : int, default=1
        Randomized runs (independent noise draws) per ε.
    random_state : None, int or Generator
        Seeds all draws of the sweep (one generator, used in order).
    warm_start : bool, default=True
        Start each native solve from the previous solve of the sweep. The
        released models have the same distribution either way (module docstring).

    Returns
    -------
    EpsilonSweep

    Notes
    -----
    Estimators with a ``_build``/``_fit_prepared`` pair (the linear classifiers
    and :class:`~dpconvex.PrivateLargeMarginGaussian`) share one template across
    the sweep when their preparation spends no budget; any other estimator (for
    example :class:`~dpconvex.PrivateGridSearch`) is simply refitted at each
    point. Each fit charges ``estimator.accountant``, if any; the sweep stops at
    the first fit the budget does not allow (:class:`~dpconvex.BudgetError`).
    The composition over the whole sweep is the sum of the fits' ε.
    """
    eps_grid = _check_epsilons(epsilons)
    runs = check_int("runs", runs, "epsilon_sweep")
    warm_start = check_bool("warm_start", warm_start, "epsilon_sweep")
    if "epsilon" not in estimator.get_params(deep=False):
        raise ParameterError(
            f"epsilon_sweep needs an estimator with an 'epsilon' parameter; "
            f"{type(estimator).__name__} has none."
        )
    rng = check_random_state(random_state)
    out = EpsilonSweep(eps_grid)
    t0 = time.perf_counter()
    prepared = None
    previous: np.ndarray | None = None
    for eps in eps_grid:
        row = []
        for _ in range(runs):
            est = _fresh(estimator, epsilon=eps, random_state=rng)
            multiclass = hasattr(est, "_label_set") and est._label_set(X, y) is not None
            if not hasattr(est, "_fit_prepared") or multiclass:  # one-vs-rest: plain fits
                row.append(est.fit(X, y))
                continue
            if prepared is None or not prepared.reusable:
                prepared = est._build(X, y)
                out.templates_built += 1
            # the previous solve's point (a start point only: docs/privacy.md §5) comes from
            # the not-private diagnostic channel; nothing of it is stored on the models
            with collect_diagnostics() as diag:
                est._fit_prepared(prepared, warm_start=previous if warm_start else None)
            if diag and diag[-1].x is not None:
                previous = np.asarray(diag[-1].x, dtype=float)
            row.append(est)
        out.estimators.append(row)
    out.seconds = time.perf_counter() - t0
    return out


def _check_epsilons(epsilons: Sequence[float]) -> tuple[float, ...]:
    try:
        grid = tuple(epsilons)
    except TypeError:
        raise ParameterError(
            f"The 'epsilons' parameter of epsilon_sweep must be a sequence of floats in (0, inf). "
            f"Got {epsilons!r} instead."
        ) from None
    if not grid:
        raise ParameterError("The 'epsilons' parameter of epsilon_sweep is empty; give at least "
                             "one epsilon > 0.")
    return tuple(check_float("epsilons", e, "epsilon_sweep") for e in grid)
