"""Empirical privacy audit of every dpconvex mechanism: claimed ε vs audited lower bound.

Run:  python benchmarks/audited_epsilon.py [--scale 1.0] [--seed 2020] [--confidence 0.95] [--quick]

For each mechanism, ``dpconvex.audit.audit`` runs it ``runs`` times on each data set
of an adversarial adjacent pair (half the runs choose the event, the other half give
the Clopper–Pearson bound), and prints a markdown table. A lower bound above the
claimed ε is a privacy bug (at the stated confidence); the deliberately mis-calibrated
mechanisms at the end must be flagged, which shows the audit has power. ``--scale``
multiplies every run count (0.1 for a quick look; ``--quick`` is scale 0.001, a
smoke run). Single-threaded BLAS. Every run is
one call of the library's ``release`` (the estimators' path; see ``dpconvex.audit.adapters``):
39 s at ``--scale 0.05`` on one core, so roughly 15 minutes at scale 1.

Pairs (``dpconvex.audit``): "ERM n=10 (d=1)" is ``linear_erm_pair(10, 1)`` with
Λ = 0.5 (argmin moves by exactly the sensitivity for the hinge losses); "ERM n=5,
Δ branch" is ``linear_erm_pair(5, 1)`` with Λ = 0.05, where objective perturbation
takes CMS's Δ branch; "LM n=8" is ``large_margin_pair(8, 1)``; "EM gap g" is
``exponential_mechanism_pair(gap=g)``. "LLR" marks audits whose statistic is the
mechanism's log-likelihood ratio (white-box, most powerful events, rounded so that it
tests the real-valued calibration); "float test (Mironov)" marks audits of the
floating-point release with ``float_consistency_statistic`` (the round trip
(o − θ*_D′) + θ*_D′ == o); the others use the default projection statistic.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import harness  # benchmarks/ is the script's folder, first on sys.path
import numpy as np
from sklearn.base import clone

from dpconvex import (
    NoisyGradientDescent,
    PrivateHuberSVM,
    PrivateLargeMarginGaussian,
    PrivateLogisticRegression,
)
from dpconvex.audit import (
    EstimatorMechanism,
    ExponentialMechanism,
    LargeMarginMechanism,
    LinearERMMechanism,
    NoisyGDMechanism,
    audit,
    exponential_mechanism_pair,
    float_consistency_statistic,
    large_margin_pair,
    linear_erm_pair,
)

EPS = 1.0
#: --scale of a --quick run (every row at its floor of 20 runs or a little above)
QUICK_SCALE = 0.001


@dataclass
class Row:
    mechanism: str
    pair: str
    runs: int
    build: Callable[[], tuple[Any, Any, Any, float, Any, float]]  # mech, D, D', claimed, stat, δ
    miscalibrated: bool = False


def _erm(n: int, d: int = 1) -> tuple[tuple, tuple]:
    X, y, Xp, yp = linear_erm_pair(n, d, random_state=0)
    return (X, y), (Xp, yp)


def linear_row(loss: str, mechanism: str, n: int, lam: float, runs: int, *, d: int = 1,
               llr: bool = True, noise_scale: float = 1.0, pair: str = "",
               float_test: bool = False) -> Row:
    def build():
        D, Dp = _erm(n, d)
        m = LinearERMMechanism(loss, epsilon=EPS, mechanism=mechanism, lam=lam,
                               noise_scale=noise_scale)
        cal = m.calibration(D)
        if float_test:
            stat = float_consistency_statistic(m.minimizer(Dp))
        else:
            stat = m.log_likelihood_ratio(D, Dp) if llr else None
        return m, D, Dp, cal.epsilon, stat, 0.0

    name = f"{mechanism} perturbation, {loss}"
    if noise_scale != 1.0:
        name += f" — MIS-CALIBRATED (noise × {noise_scale:g})"
    tag = " + LLR" if llr else ""
    if float_test:
        name += " — floating-point release"
        tag = " + float test (Mironov)"
    return Row(name, (pair or f"ERM n={n}, d={d}, Λ={lam:g}") + tag, runs, build,
               noise_scale != 1.0)


def large_margin_row(runs: int, *, eps: float = EPS, n_components: int = 1, llr: bool = True,
                     noise_scale: float = 1.0) -> Row:
    def build():
        X, y, Xp, yp = large_margin_pair(8, 1, random_state=0)
        m = LargeMarginMechanism(epsilon=eps, lam=1.0, n_components=n_components,
                                 noise_scale=noise_scale)
        stat = m.log_likelihood_ratio((X, y), (Xp, yp)) if llr else None
        return m, (X, y), (Xp, yp), m.calibration((X, y)).epsilon, stat, 0.0

    name = f"large-margin Gaussian, objective (K={n_components})"
    if noise_scale != 1.0:
        name += f" — MIS-CALIBRATED (noise × {noise_scale:g})"
    return Row(name, "LM n=8, d=1, λ=0.5" + (" + LLR" if llr else ""), runs, build,
               noise_scale != 1.0)


def gd_row(steps: int, runs: int, noise_scale: float = 1.0) -> Row:
    def build():
        D, Dp = _erm(10)
        m = NoisyGDMechanism(NoisyGradientDescent(
            epsilon=EPS, delta=1e-5, steps=steps, radius=2.0, loss="huber",
            fit_intercept=False), noise_scale=noise_scale)
        cert = m.certificate(D)
        return m, D, Dp, cert.epsilon, None, cert.delta

    name = f"noisy GD (T={steps}, δ=1e-5)"
    if noise_scale != 1.0:
        name += f" — MIS-CALIBRATED (noise × {noise_scale:g})"
    return Row(name, "ERM n=10, d=1", runs, build, noise_scale != 1.0)


def em_row(gap: float, runs: int, declared_sensitivity: float = 1.0) -> Row:
    def build():
        u, up = exponential_mechanism_pair(sensitivity=1.0, gap=gap)
        return (ExponentialMechanism(epsilon=EPS, sensitivity=declared_sensitivity), u, up,
                EPS, None, 0.0)

    name = "exponential mechanism"
    if declared_sensitivity != 1.0:
        name += f" — MIS-CALIBRATED (sensitivity declared {declared_sensitivity:g}, true 1)"
    return Row(name, f"EM gap {gap:g}", runs, build, declared_sensitivity != 1.0)


def estimator_row(name: str, est: Any, runs: int, pair: str = "ERM n=10, d=1",
                  large_margin: bool = False, float_test: bool = False) -> Row:
    claimed = float(est.get_params()["epsilon"])

    def build():
        if large_margin:
            X, y, Xp, yp = large_margin_pair(8, 1, random_state=0)
            D, Dp = (X, y), (Xp, yp)
        else:
            D, Dp = _erm(10)
        stat = None
        if float_test:  # center: the estimator's own non-private fit on D'
            center = EstimatorMechanism(clone(est).set_params(mechanism="none"))(
                Dp, np.random.default_rng(0))
            stat = float_consistency_statistic(center)
        return EstimatorMechanism(est), D, Dp, claimed, stat, 0.0

    tag = " + float test (Mironov)" if float_test else ""
    return Row(f"{name} (end to end, fit per run)", pair + tag, runs, build)


def rows(scale: float) -> list[Row]:
    def r(k: int) -> int:
        return max(int(k * scale), 20)

    out: list[Row] = []
    for loss in ("logistic", "huber", "smooth_hinge"):
        out.append(linear_row(loss, "output", 10, 0.5, r(100_000), llr=False))
    for loss in ("logistic", "huber", "smooth_hinge"):
        out.append(linear_row(loss, "objective", 10, 0.5, r(6000)))
    for loss in ("logistic", "huber", "smooth_hinge"):
        out.append(linear_row(loss, "objective", 5, 0.05, r(6000),
                              pair="ERM n=5, d=1, Λ=0.05 (Δ branch)"))
    out.append(linear_row("huber", "objective", 10, 0.5, r(3000), d=2, llr=False))
    out.append(linear_row("huber", "objective", 10, 0.5, r(3000), d=2))
    out.append(large_margin_row(r(1500)))
    out.append(large_margin_row(r(1500), eps=4.0, llr=False))
    out.append(large_margin_row(r(600), eps=4.0, n_components=2, llr=False))
    out.append(gd_row(1, r(200_000)))
    out.append(gd_row(10, r(200_000)))
    out.append(em_row(2.0, r(100_000)))
    out.append(em_row(4.0, r(100_000)))
    out.append(estimator_row("PrivateLogisticRegression objective, intercept",
                             PrivateLogisticRegression(epsilon=EPS, lam=0.5), r(1000)))
    out.append(estimator_row("PrivateHuberSVM output, intercept",
                             PrivateHuberSVM(epsilon=EPS, lam=0.5, mechanism="output"), r(1000)))
    out.append(estimator_row("PrivateLargeMarginGaussian",
                             PrivateLargeMarginGaussian(epsilon=4.0, lam=1.0, solver="native"),
                             r(300), pair="LM n=8, d=1", large_margin=True))
    # floating point: the release fl(theta* + b) (Mironov 2012)
    out.append(linear_row("huber", "output", 10, 0.5, r(20_000), float_test=True))
    out.append(estimator_row("PrivateHuberSVM output, intercept",
                             PrivateHuberSVM(epsilon=EPS, lam=0.5, mechanism="output"), r(1000),
                             float_test=True))
    # deliberately mis-calibrated: must be flagged
    out.append(linear_row("huber", "output", 10, 0.5, r(100_000), noise_scale=0.5, llr=False))
    out.append(linear_row("huber", "objective", 10, 0.5, r(6000), noise_scale=0.5))
    out.append(em_row(2.0, r(100_000), declared_sensitivity=0.5))
    out.append(large_margin_row(r(1500), eps=2.0, llr=False, noise_scale=0.5))
    out.append(large_margin_row(r(1500), eps=2.0, llr=False, noise_scale=0.25))
    out.append(gd_row(1, r(200_000), noise_scale=0.5))
    out.append(gd_row(1, r(200_000), noise_scale=0.25))
    return out


def main(argv: list[str] | None = None) -> None:
    ap = harness.parser(__doc__)
    ap.add_argument("--scale", type=float, default=1.0, help="multiplies every run count")
    ap.add_argument("--seed", type=int, default=2020)
    ap.add_argument("--confidence", type=float, default=0.95)
    args = ap.parse_args(argv)
    if args.quick:
        args.scale = min(args.scale, QUICK_SCALE)
    table = harness.Table(
        f"Audit at confidence {args.confidence} (false alarm <= {1 - args.confidence:.2g} per "
        f"row), seed {args.seed}; runs = per data set (half select the event, half evaluate)",
        ["mechanism", "adjacent pair", "runs", "claimed ε", "audited lower bound",
         "bound > claimed?", "s"], kind="audit")
    seeds = np.random.SeedSequence(args.seed).spawn(64)
    n_bugs = 0
    with harness.Run(__file__, args, argv) as run:
        for i, row in enumerate(rows(args.scale)):
            t0 = time.perf_counter()
            mech, D, Dp, claimed, stat, delta = row.build()
            res = audit(mech, D, Dp, n_runs=row.runs, confidence=args.confidence, statistic=stat,
                        delta=delta, random_state=np.random.default_rng(seeds[i]))
            flagged = res.epsilon_lower_bound > claimed
            if flagged and not row.miscalibrated:
                n_bugs += 1
            verdict = ("**FLAGGED** (expected)" if row.miscalibrated else "**YES: PRIVACY BUG**") \
                if flagged else ("no — NOT flagged" if row.miscalibrated else "no")
            table.add(row.mechanism, row.pair, row.runs, f"{claimed:.4g}",
                      f"{res.epsilon_lower_bound:.3f} (k = {res.counts[0]}/{res.counts[1]} of "
                      f"{res.n_eval[0]})", verdict, f"{time.perf_counter() - t0:.0f}")
            print(f"  {row.mechanism} | {row.pair}: {res.epsilon_lower_bound:.3f} vs {claimed:.4g}",
                  file=sys.stderr, flush=True)
        table.notes.append(f"{n_bugs} correctly calibrated mechanism(s) with a bound above the claimed ε.")
        run.table(table)
        run.data["correctly_calibrated_flagged"] = n_bugs


if __name__ == "__main__":
    main(sys.argv[1:])
