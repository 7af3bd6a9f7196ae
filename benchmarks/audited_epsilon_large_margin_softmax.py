"""Audit of PrivateLargeMarginGaussian's default release (softmax, structure="linear").

Claimed vs audited ε (dpconvex.audit) of ``PrivateLargeMarginGaussian(epsilon=1)``
(pure ε-DP objective perturbation, norm-Gamma noise) and
``PrivateLargeMarginGaussian(epsilon=1, delta=1e-5)`` (Gaussian objective
perturbation), each run one ``release`` on the template the estimator builds
(:class:`dpconvex.audit.adapters.EstimatorReleaseMechanism`: clipping,
public feature map u = [wl x/q, wc]/N with (0, 1, 0.1), lam="auto"), and of
mutants whose noise is multiplied by 1/2 and 1/4 while the certificate still
claims ε = 1 (``noise_scale``, the Audited calibration of dpconvex.audit).
Statistic: the white-box log-likelihood ratio ln f_D(θ)/f_D′(θ) of the change
of variables (b_X(θ) = −n∇J_X(θ) plus the log-determinants), threshold and
direction chosen on the first half of the runs, Clopper–Pearson bound on the
other half, confidence 0.95 (docs/privacy/large_margin_softmax.md#privacy-softmax-audit).

Pairs (d = 1, ||x|| = q = 1):

* ``flip``: C = 2, n = 4, X = [1, −1, 1, −1], y = [0, 1, 0, 1]; D′ flips the
  first label (same x). The gradient difference (e_0 − e_1) ⊗ u is constant
  (norm √2 ||u|| = √2) and the Hessians agree, so the privacy loss is exactly
  that of the noise law shifted by a fixed vector: the cleanest pair.
* ``neg``: C = 3, n = 200, record 0 = (x = 1, y = 0), then 99 × (1, class 1)
  and 100 × (−1, class 2); D′ replaces record 0 by (x = −1, y = 0). The
  target is misclassified on both sides (class 1 at +1, class 2 at −1), so the
  gradient difference (2e_0 − p(u) − p(u′)) ⊗ u ≈ reaches ~2.1 of the declared
  2G = 2√2 (measured quantiles printed).

Run (one core; at --runs 20000 one noise scale takes 4 min for "flip", 4-6 min for
"neg" (n = 200), so pass one ``--scales`` value per process to stay near 5 min):
``OMP_NUM_THREADS=1 python benchmarks/audited_epsilon_large_margin_softmax.py --pair flip
--mechanism pure --runs 20000 [--scales 1 0.5 0.25]`` (and ``--pair neg --mechanism
gaussian`` / ``--pair neg --mechanism pure``). Results:
docs/privacy/large_margin_softmax.md#privacy-softmax-audit.
"""

from __future__ import annotations

import argparse
import time
import warnings

import harness  # benchmarks/ is the script's folder, first on sys.path
import numpy as np

import dpconvex as dp
from dpconvex.audit import audit
from dpconvex.audit.adapters import EstimatorReleaseMechanism
from dpconvex.errors import PrivacyWarning

DELTA = 1e-5


def pair(kind: str) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray], int]:
    """(D, D′, C) of the pair ``kind`` ("flip" or "neg"), see the module docstring."""
    if kind == "flip":
        X = np.array([[1.0], [-1.0], [1.0], [-1.0]])
        y = np.array([0, 1, 0, 1])
        Xp, yp = X.copy(), y.copy()
        yp[0] = 1
        return (X, y), (Xp, yp), 2
    if kind == "neg":
        X = np.array([[1.0]] * 100 + [[-1.0]] * 100)
        y = np.array([0] + [1] * 99 + [2] * 100)
        Xp = X.copy()
        Xp[0] = -1.0
        return (X, y), (Xp, y.copy()), 3
    raise ValueError(f"unknown pair {kind!r}")


def mechanism(kind: str, C: int, noise_scale: float) -> EstimatorReleaseMechanism:
    """The estimator's softmax release at ε = 1 (pure) or (1, 1e-5) (Gaussian), scaled noise.

    The mechanism is named: at these tiny n "auto" would release class centroids (privacy-centroid-switch).
    """
    delta = None if kind == "pure" else DELTA
    est = dp.PrivateLargeMarginGaussian(
        epsilon=1.0, delta=delta, classes=list(range(C)),
        mechanism="objective" if delta is None else "gaussian_objective")
    return EstimatorReleaseMechanism(est, noise_scale=noise_scale)


def gradient_difference_norms(m: EstimatorReleaseMechanism, D, Dp, thetas) -> np.ndarray:
    """||n∇J_D(θ) − n∇J_D′(θ)|| at released θ: the realized replace-one sensitivity."""
    tD, tDp = m.prepare(D)[0], m.prepare(Dp)[0]
    return np.array([np.linalg.norm(tD.n * tD.objective(t)[1] - tDp.n * tDp.objective(t)[1])
                     for t in thetas])


def run(pair_kind: str, mech_kind: str, scale: float, n_runs: int, seed: int = 0) -> dict:
    """One audit: claimed (ε, δ), audited lower bound, counts, time."""
    D, Dp, C = pair(pair_kind)
    m = mechanism(mech_kind, C, scale)
    return {"pair": pair_kind, "mechanism": mech_kind, "noise_scale": scale,
            **audit_result(m, D, Dp, n_runs, seed), "lam": m.prepare(D)[0].lam}


def audit_result(m, D, Dp, n_runs: int, seed: int) -> dict:
    """Audit ``m`` on (D, D′) with its white-box log-likelihood ratio; the printed fields."""
    budget = m.budget(D)
    t0 = time.time()
    r = audit(m, D, Dp, n_runs=n_runs, statistic=m.log_likelihood_ratio(D, Dp),
              random_state=seed, delta=budget.delta, confidence=0.95)
    return {"claimed": (budget.epsilon, budget.delta), "lb": r.epsilon_lower_bound,
            "counts": r.counts, "n_eval": r.n_eval, "direction": r.direction,
            "threshold": r.threshold, "seconds": time.time() - t0}



def audit_line(scale: float, r: dict, runs: int) -> str:
    """One printed line of an audit result (shared with audit_softmax_mixture_gaussian.py)."""
    return (f"noise x {scale:g}: claimed (eps, delta) = {r['claimed']}, audited lower bound "
            f"{r['lb']:.3f} (confidence 0.95, {runs} runs per data set, evaluation "
            f"{r['n_eval']}, counts {r['counts']}, event {r['direction']} "
            f"t = {r['threshold']:.4g}; {r['seconds']:.0f} s)")



def parse_audit_args(ap: argparse.ArgumentParser, scales: list[float]) -> argparse.Namespace:
    """Add --scales/--runs/--seed, parse, and silence the noise warnings of the tiny pairs."""
    ap.add_argument("--scales", type=float, nargs="*", default=scales)
    ap.add_argument("--runs", type=int, default=20000, help="runs per data set")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    warnings.simplefilter("ignore", PrivacyWarning)
    return args

def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pair", choices=("flip", "neg"), default="flip")
    ap.add_argument("--mechanism", choices=("pure", "gaussian"), default="pure")
    args = parse_audit_args(ap, [1.0, 0.5, 0.25])
    D, Dp, C = pair(args.pair)
    m = mechanism(args.mechanism, C, 1.0)
    dn = gradient_difference_norms(m, D, Dp, m.sample(D, 200, np.random.default_rng(99)))
    cal = m.calibration(D)
    print(f"pair {args.pair} (C = {C}, n = {D[1].size}), {args.mechanism}: lam = "
          f"{m.prepare(D)[0].lam:.4g}, calibration eps_noise = {cal.epsilon_noise:.4f}, slack = "
          f"{cal.slack:.4f}, rate = {cal.noise_rate:.4g}, std = {cal.extra.get('noise std')}; "
          f"||grad difference|| quantiles (10/50/90 %, 200 runs on D): "
          f"{np.round(np.quantile(dn, [0.1, 0.5, 0.9]), 3)} (declared 2G = {2 * 2 ** 0.5:.3f})",
          flush=True)
    for s in args.scales:
        r = run(args.pair, args.mechanism, s, args.runs, args.seed)
        print(audit_line(s, r, args.runs), flush=True)


#: module constants replaced in --quick mode (a smoke run, not a measurement)
QUICK: dict = {}

if __name__ == "__main__":
    harness.run_script(__file__, main, globals(), QUICK)
