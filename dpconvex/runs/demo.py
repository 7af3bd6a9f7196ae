"""The embedded default job: the front door and private logistic regression on breast-cancer data.

Preprocessing: :func:`dpconvex.datasets.load_sklearn` (published column ranges, see
its warning about what the guarantee covers).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from .._random import NoiseSource
from ..datasets import load_sklearn
from ..errors import ParameterError
from ..estimators.base import NO_CONTEXT, fit_with
from .report import WarningTally, release_name

if TYPE_CHECKING:
    from sklearn.base import BaseEstimator

#: The row of the front door in the demo's table and result.
FRONT_DOOR = "front door"


def _rows(lam: float) -> list[tuple[str, str, Callable[[float], BaseEstimator]]]:
    """(key, model as constructed, factory of ε): the front door first, then the comparisons."""
    from .. import PrivateClassifier, PrivateLogisticRegression

    def logistic(mechanism: str) -> Callable[[float], BaseEstimator]:
        return lambda eps: PrivateLogisticRegression(epsilon=eps, lam=lam, mechanism=mechanism)

    return [(FRONT_DOOR, "PrivateClassifier(epsilon=ε)", lambda eps: PrivateClassifier(epsilon=eps)),
            *((mech, f"PrivateLogisticRegression(lam={lam:g}, mechanism='{mech}')", logistic(mech))
              for mech in ("objective", "output"))]


def _label(model: str, released: dict[str, list[float]]) -> str:
    """``model → release`` from the certificates, with its ε when the release changes with ε."""
    if len(released) == 1:
        return f"{model} → {next(iter(released))}"
    return f"{model} → " + "; ".join(f"{name} (ε = {', '.join(f'{e:g}' for e in eps)})"
                                     for name, eps in released.items())


def run_demo(epsilons: tuple[float, ...] = (0.1, 0.5, 1.0, 2.0, 5.0), runs: int = 10,
             lam: float = 1e-3, seed: int | None = None) -> dict:
    """Print the test accuracy of the front door and of private logistic regression at several ε.

    The first row is the front door, :class:`~dpconvex.PrivateClassifier` with
    only ε set; the comparison rows are private logistic regression at a fixed
    Λ with objective and with output perturbation. Every row names the learner
    and mechanism its fits released, read from their certificates
    (:func:`~dpconvex.runs.release_name`); the non-private model and the
    majority class are the baselines. The warnings of the fits are summarized
    after the table on stderr, each distinct text once on one line with how
    many fits raised it. Last, the certificate of the front door at the largest ε.

    Parameters
    ----------
    epsilons : sequence of float
        The ε grid (each > 0).
    runs : int
        Noise draws per ε, in [1, :data:`~dpconvex.runs.spec.MAX_RUNS`].
    lam : float
        Regularization Λ > 0 of the logistic-regression rows (the front door
        chooses its own).
    seed : int >= 0 or None
        Seeds the noise (None: from the OS; a seeded model is not private).

    Returns
    -------
    dict
        Mean accuracies: ``"non-private"``, ``"majority class"`` and
        ``(row, ε)`` with row ``"front door"``, ``"objective"`` or ``"output"``;
        ``"rows"``, the printed row labels in order; ``"warnings"``, the
        distinct warnings in full (``{category, message, fits, methods}``).

    Raises
    ------
    ParameterError
        A parameter outside its range, before any data are loaded.
    """
    from sklearn.model_selection import train_test_split

    from .._validation import check_float, check_int
    from ..estimators.linear import PrivateLogisticRegression
    from .spec import MAX_RUNS

    runs = check_int("runs", runs, "run_demo", high=MAX_RUNS,
                     why="the standard error of a mean accuracy over that many runs is at most 0.005")
    lam = check_float("lam", lam, "run_demo")
    if seed is not None:
        seed = check_int("seed", seed, "run_demo", low=0, high=2**128 - 1,
                         why="NumPy's generators take at most 128 bits of seed entropy")
    try:
        epsilons = tuple(check_float("epsilons", e, "run_demo") for e in epsilons)
    except TypeError:
        epsilons = ()
    if not epsilons:
        raise ParameterError("The 'epsilons' parameter of run_demo must be a non-empty sequence of "
                             "numbers > 0. Got an empty or non-iterable value instead.")

    tally = WarningTally()
    with tally.capture("data", fits=0):
        X, y = load_sklearn("breast_cancer")
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    print("dpconvex demo: private classifiers on scikit-learn's breast-cancer data")
    print(f"data: {len(ytr)} train / {len(yte)} test rows, {X.shape[1]} features, ||x|| <= 1 by "
          f"public ranges; {runs} noise draws per epsilon")
    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    rows = _rows(lam)
    results: dict[Any, Any] = {}
    cells: dict[str, list[str]] = {}
    labels: dict[str, str] = {}
    last = None
    for key, model, make in rows:
        released: dict[str, list[float]] = {}
        for eps in epsilons:
            accs = []
            for _ in range(runs):
                m = make(eps)
                with tally.capture(model):  # one stream, in order
                    fit_with(m, Xtr, ytr, NO_CONTEXT, [(m, NoiseSource(rng, seed is not None))])
                accs.append(m.score(Xte, yte))
                eps_list = released.setdefault(release_name(m), [])
                if eps not in eps_list:
                    eps_list.append(eps)
                if key == FRONT_DOOR:
                    last = m
            results[(key, eps)] = float(np.mean(accs))
            cells.setdefault(key, []).append(f"{np.mean(accs):.3f} ± {np.std(accs):.3f}")
        labels[key] = _label(model, released)
    with tally.capture("non-private"):
        base = PrivateLogisticRegression(mechanism="none", lam=lam).fit(Xtr, ytr)
    majority = float(np.mean(yte == np.bincount(ytr).argmax()))
    results["non-private"], results["majority class"] = base.score(Xte, yte), majority

    width = len(epsilons)
    maj = f"{majority:.3f}"
    print(f"\ntest accuracy, mean ± std over {runs} noise draws; each row names the model and, "
          "after →, the learner and mechanism its fits released (from their certificates)")
    print("| model → release | " + " | ".join(f"ε={e:g}" for e in epsilons)
          + " | non-private | majority class |")
    print("|---" * (width + 3) + "|")
    for key, _, _ in rows:
        print(f"| {labels[key]} | " + " | ".join(cells[key]) + f" |  | {maj} |")
    nonprivate = f"PrivateLogisticRegression(lam={lam:g}, mechanism='none') → {release_name(base)}"
    print(f"| {nonprivate} | " + " | ".join([""] * width + [f"{results['non-private']:.3f}", maj])
          + " |")
    print(f"\n({time.perf_counter() - t0:.1f} s; majority class: predict the most frequent "
          "training label; a private model is useful only above it)", flush=True)
    results["rows"] = [labels[key] for key, _, _ in rows] + [nonprivate]
    results["warnings"] = tally.summary()
    for line in tally.lines():  # after the table: each distinct warning once, one line each
        print(f"dpconvex demo: {line}", file=sys.stderr)
    if last is not None:
        print(f"\nCertificate of the front door at epsilon = {epsilons[-1]:g}:")
        print(last.certificate_)
    return results
