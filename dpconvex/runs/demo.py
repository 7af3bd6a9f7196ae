"""The embedded default job: private logistic regression on scikit-learn's breast-cancer data.

Preprocessing: :func:`dpconvex.datasets.load_sklearn` (published column ranges, see
its warning about what the guarantee covers).
"""

from __future__ import annotations

import time

import numpy as np

from .._random import assign_noise
from ..datasets import load_sklearn
from ..errors import ParameterError


def run_demo(epsilons: tuple[float, ...] = (0.1, 0.5, 1.0, 2.0, 5.0), runs: int = 10,
             lam: float = 1e-3, seed: int | None = None) -> dict:
    """Train private logistic regression at several ε and print test accuracy and a certificate.

    Parameters
    ----------
    epsilons : sequence of float
        The ε grid (each > 0).
    runs : int
        Noise draws per ε, in [1, :data:`~dpconvex.runs.spec.MAX_RUNS`].
    lam : float
        Regularization Λ > 0.
    seed : int >= 0 or None
        Seeds the noise (None: from the OS; a seeded model is not private).

    Returns
    -------
    dict
        Mean accuracies (for tests and scripts).

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

    X, y = load_sklearn("breast_cancer")
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    print("dpconvex demo: private logistic regression (CMS objective perturbation)")
    print(f"data: scikit-learn breast cancer, {len(ytr)} train / {len(yte)} test rows, "
          f"{X.shape[1]} features, ||x|| <= 1 by public ranges; lambda = {lam:g}, {runs} runs")
    t0 = time.perf_counter()
    base = PrivateLogisticRegression(mechanism="none", lam=lam).fit(Xtr, ytr)
    majority = float(np.mean(yte == np.bincount(ytr).argmax()))
    results = {"non-private": base.score(Xte, yte), "majority class": majority}
    rng = np.random.default_rng(seed)
    print(f"\n{'epsilon':>10} {'objective':>18} {'output':>18}")
    print(f"{'inf':>10} {results['non-private']:>18.3f} {'(non-private)':>18}")
    print(f"{'trivial':>10} {majority:>18.3f} {'(majority class)':>18}")
    last = None
    for eps in epsilons:
        row = []
        for i, mech in enumerate(("objective", "output")):
            accs = []
            for _ in range(runs):
                m = PrivateLogisticRegression(epsilon=eps, lam=lam, mechanism=mech,
                                              random_state=seed)
                with assign_noise({m: rng}, seeded=seed is not None):  # one stream, in order
                    m.fit(Xtr, ytr)
                accs.append(m.score(Xte, yte))
                if i == 0:
                    last = m
            results[(mech, eps)] = float(np.mean(accs))
            row.append(f"{np.mean(accs):.3f} ± {np.std(accs):.3f}")
        print(f"{eps:>10g} {row[0]:>18} {row[1]:>18}")
    print(f"\n(test accuracy, mean ± std over {runs} noise draws; {time.perf_counter() - t0:.1f} s)")
    print(f"A private model is useful only above the majority class ({majority:.3f}); rows "
          "at or below it are no better than guessing.")
    if last is not None:
        print("\nCertificate of the last objective-perturbation model:")
        print(last.certificate_)
    return results
