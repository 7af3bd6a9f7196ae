"""Audit of the softmax-mixture (K = 2) Gaussian release through ``dpconvex.audit``.

Claimed vs audited ε of ``PrivateLargeMarginGaussian(epsilon=1, delta=1e-5,
loss="softmax", n_components=2, mechanism="gaussian_objective",
component_assignment="nearest_public_center", centers=...)`` with its other defaults
(structure "linear", u = [wl·x/q, wc]/N with (0, 1, 0.1), lam="auto"), each run one
``release`` on the template the estimator builds
(:class:`dpconvex.audit.adapters.EstimatorReleaseMechanism`; public centers
spend no budget and draw no randomness, so the template is reusable), and of mutants
whose noise is multiplied by s < 1 while the certificate still claims (1, 1e-5)
(``noise_scale``). Statistic: the white-box log-likelihood ratio of the change of
variables (docs/privacy/large_margin_softmax.md#privacy-softmax-audit), threshold and
direction chosen on the first half of the runs, Clopper–Pearson bound on the other half,
confidence 0.95 (docs/privacy/large_margin_softmax.md#privacy-softmax-mixtures, "Exact
Gaussian check").

Pairs (d = 1, ||x|| = q = 1, C = 2, K = 2; public centers: class 0 at (+1, −1),
class 1 at (−1, +1), so x = +1 is component 0 of class 0 and component 1 of class 1):

* ``flipmix``: n = 4, X = [1, −1, 1, −1], y = [0, 1, 0, 1]; D′ flips the first
  label, which also moves it to the other component (same x, other label and
  component: the active sets differ, so the Jacobians do not cancel).
* ``neg``: n = 4, X = [1, −1, 1, −1], y = [0, 1, 0, 1]; D′ replaces record 0
  (x = 1, y = 0, component 0) by (x = −1, y = 1, component 0).

Run (one core; about 6 ms per release, so --runs 20000 takes ~4 min per noise scale):
``OMP_NUM_THREADS=1 python benchmarks/audited_epsilon_softmax_mixture.py --pair flipmix
--runs 20000 --scales 1 0.25 0.125``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

import dpconvex as dp
from dpconvex.audit.adapters import EstimatorReleaseMechanism

sys.path.insert(0, str(Path(__file__).parent))
import harness  # noqa: E402
from audited_epsilon_large_margin_softmax import audit_line, audit_result, parse_audit_args  # noqa: E402

DELTA = 1e-5
#: Public centers (C, K, d): class 0 at +1 / −1, class 1 at −1 / +1.
CENTERS = np.array([[[1.0], [-1.0]], [[-1.0], [1.0]]])


def pair(kind: str) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """(D, D′) of the pair ``kind`` ("flipmix" or "neg"), see the module docstring."""
    X = np.array([[1.0], [-1.0], [1.0], [-1.0]])
    y = np.array([0, 1, 0, 1])
    Xp, yp = X.copy(), y.copy()
    if kind == "flipmix":
        yp[0] = 1
    elif kind == "neg":
        Xp[0], yp[0] = -1.0, 1
    else:
        raise ValueError(f"unknown pair {kind!r}")
    return (X, y), (Xp, yp)


def mechanism(noise_scale: float, epsilon: float = 1.0) -> EstimatorReleaseMechanism:
    """The K = 2 Gaussian release at (ε, 1e-5), noise multiplied by ``noise_scale``."""
    est = dp.PrivateLargeMarginGaussian(
        epsilon=epsilon, delta=DELTA, loss="softmax", n_components=2,
        mechanism="gaussian_objective", component_assignment="nearest_public_center",
        centers=CENTERS, classes=[0, 1])
    return EstimatorReleaseMechanism(est, noise_scale=noise_scale)


def components(m: EstimatorReleaseMechanism, data) -> np.ndarray:
    """The public component index of every record (row of the template's one-hot target)."""
    t = m.prepare(data)[0]
    return np.argmax(t._onehot, axis=1)


def run(pair_kind: str, scale: float, n_runs: int, seed: int = 0) -> dict:
    """One audit: claimed (ε, δ), audited lower bound, counts, time."""
    D, Dp = pair(pair_kind)
    return audit_result(mechanism(scale), D, Dp, n_runs, seed)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pair", choices=("flipmix", "neg"), default="flipmix")
    args = parse_audit_args(ap, [1.0, 0.25, 0.125])
    D, Dp = pair(args.pair)
    m = mechanism(1.0)
    t = m.prepare(D)[0]
    cal = m.calibration(D)
    q = {k: cal.extra.get(k) for k in ("noise std", "k", "bound")}
    print(f"pair {args.pair} (C = 2, K = 2, n = 4): components D {components(m, D)}, D' "
          f"{components(m, Dp)}; lam = {t.lam:.4g}, slack = {cal.slack:.4f}, Delta = "
          f"{cal.extra_strong_convexity:.4g}, {q}", flush=True)
    for s in args.scales:
        r = run(args.pair, s, args.runs, args.seed)
        print(audit_line(s, r, args.runs), flush=True)


#: module constants replaced in --quick mode (a smoke run, not a measurement)
QUICK: dict = {}

if __name__ == "__main__":
    harness.run_script(__file__, main, globals(), QUICK)
