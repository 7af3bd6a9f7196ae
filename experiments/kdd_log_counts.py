"""KDDCup99 at ε = 0.1: do other public scalings of the count columns help? (issue 13)

Usage::

    DPCONVEX_DATA=/work/shared/datasets OMP_NUM_THREADS=1 python experiments/kdd_log_counts.py

``count``, ``srv_count`` (public cap 511) and ``dst_host_count``, ``dst_host_srv_count``
(cap 255) are scaled linearly by the shipped schema. The variant "log counts" maps them by
``log1p(x) / log1p(cap)`` like the other counters (a public per-record map; the schema's
``log_scaled`` option). The variants "events ≤ 15 / 255 / 65535" keep the log scale of the
ten per-connection event counters (``wrong_fragment``, ``hot``, ...) but with that public cap
instead of 2³² − 1 (values above it clipped). Nothing in ``dpconvex/`` is changed: the
variants are built with ``dataclasses.replace`` on ``KDDCUP99_SCHEMA`` for this script only.

Protocol (as experiments/kdd_public_knobs.py): ``load_kddcup99(n_samples=70000,
random_state=1999)``, rows [:50000] training, [50000:] test; validation = the training
rows permuted with seed 0, 40,000 fit / 10,000 scored, noise seeds 100..109; test = fit on
the 50,000, noise seeds 0..9. Estimators at their defaults (lam="auto", intercept_scaling
0.25); Gaussian objective perturbation with δ = 1/n_fit². Also the non-private
validation error of scikit-learn's ``LogisticRegression(C = 1/(n Λ), fit_intercept=False)``
at Λ ∈ {1e-4, 3e-4, 1e-3, 3e-3}. Runtime about 2 minutes.
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
from sklearn.linear_model import LogisticRegression

import dpconvex.datasets.uci as uci
from dpconvex import PrivateHuberSVM, PrivateLogisticRegression
from dpconvex.datasets.schemas import KDDCUP99_SCHEMA

EPSILON = 0.1
COUNTS = ("count", "srv_count", "dst_host_count", "dst_host_srv_count")
EVENTS = ("wrong_fragment", "urgent", "hot", "num_failed_logins", "num_compromised",
          "num_root", "num_file_creations", "num_shells", "num_access_files",
          "num_outbound_cmds")
VARIANTS = {"shipped": (False, None), "log counts": (True, None), "events <= 15": (False, 15),
            "events <= 255": (False, 255), "events <= 65535": (False, 65535)}
ESTIMATORS = {
    "Huber, pure ε": lambda s, n: PrivateHuberSVM(epsilon=EPSILON, random_state=s),
    "LR, pure ε": lambda s, n: PrivateLogisticRegression(epsilon=EPSILON, random_state=s),
    "Huber, (ε, 1/n²)": lambda s, n: PrivateHuberSVM(
        epsilon=EPSILON, delta=1 / n**2, mechanism="gaussian_objective", random_state=s),
    "LR, (ε, 1/n²)": lambda s, n: PrivateLogisticRegression(
        epsilon=EPSILON, delta=1 / n**2, mechanism="gaussian_objective", random_state=s),
}


def load(log_counts: bool, event_cap: float | None) -> tuple[np.ndarray, np.ndarray]:
    """The 70,000-row sample with the shipped schema or one variant of the docstring."""
    shipped = uci.KDDCUP99_SCHEMA
    numeric = dict(KDDCUP99_SCHEMA.numeric)
    if event_cap is not None:
        numeric.update({c: (0.0, float(event_cap)) for c in EVENTS})
    logs = KDDCUP99_SCHEMA.log_scaled | (frozenset(COUNTS) if log_counts else frozenset())
    uci.KDDCUP99_SCHEMA = dataclasses.replace(KDDCUP99_SCHEMA, numeric=numeric, log_scaled=logs)
    try:
        return uci.load_kddcup99(n_samples=70000, random_state=1999)
    finally:
        uci.KDDCUP99_SCHEMA = shipped


def main() -> None:
    warnings.simplefilter("ignore")
    print("| encoding | model | validation error | test error |")
    print("|---|---|---|---|")
    for name, (log_counts, event_cap) in VARIANTS.items():
        X, y = load(log_counts, event_cap)
        Xtr, ytr, Xte, yte = X[:50000], y[:50000], X[50000:], y[50000:]
        perm = np.random.default_rng(0).permutation(50000)
        fit, val = perm[:40000], perm[40000:]
        errs = []
        for lam in (1e-4, 3e-4, 1e-3, 3e-3):
            m = LogisticRegression(C=1 / (fit.size * lam), fit_intercept=False, max_iter=3000)
            errs.append(1 - m.fit(Xtr[fit], ytr[fit]).score(Xtr[val], ytr[val]))
        print(f"| {name} | non-private LR, Λ = 1e-4 / 3e-4 / 1e-3 / 3e-3 | "
              f"{' / '.join(f'{e:.4f}' for e in errs)} | |", flush=True)
        for est, make in ESTIMATORS.items():
            v = [1 - make(100 + s, fit.size).fit(Xtr[fit], ytr[fit]).score(Xtr[val], ytr[val])
                 for s in range(10)]
            t = [1 - make(s, 50000).fit(Xtr, ytr).score(Xte, yte) for s in range(10)]
            print(f"| {name} | {est} | {np.mean(v):.4f} ± {np.std(v):.4f} | "
                  f"{np.mean(t):.4f} ± {np.std(t):.4f} |", flush=True)


if __name__ == "__main__":
    main()
