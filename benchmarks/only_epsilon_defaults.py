"""Every estimator with only epsilon set, against the majority class.

Every estimator with only ``epsilon`` (and ``random_state``) set, on Adult
(adult.data -> adult.test), KDDCup99 (70,000-row sample, 50,000 / 20,000), and the
scikit-learn breast cancer (70/30 stratified), wine and digits (70/30) sets; binary
learners only on the binary sets; ε ∈ {0.1, 1, 10}; 3 seeds. Counts the cases whose
mean accuracy beats the majority class by more than 1 point. A fit that takes over
60 s (PrivateLargeMarginGaussian on Adult/KDDCup99) is skipped and marked. The kernel
pipeline uses ``RandomFourierFeatures(n_components="auto", learner_epsilon=ε)`` (D from n and ε,
docs/privacy/tuning_gd_ledger.md#privacy-n-components-auto; it was a fixed D = 200 before). Fits that raise
the noise PrivacyWarning of docs/privacy/tuning_gd_ledger.md#privacy-noise-warning-linear (or
privacy-large-margin-softmax for the large-margin estimator) are counted and listed.

Run: ``DPCONVEX_DATA=/work/shared/datasets python benchmarks/only_epsilon_defaults.py [--seeds 10]
[--datasets Adult KDDCup99]``.
"""

from __future__ import annotations

import multiprocessing as mp
import sys
import time
import warnings

import harness  # benchmarks/ is the script's folder, first on sys.path
import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline

import dpconvex as dp
from dpconvex.datasets import load_adult, load_kddcup99, load_sklearn
from dpconvex.errors import PrivacyWarning
from dpconvex.estimators.kernels import RandomFourierFeatures

EPSILONS = (0.1, 1.0, 10.0)
SEEDS = (0, 1, 2)
TIME_CAP = 60.0


def datasets():
    Xa, ya = load_adult("train")
    Xat, yat = load_adult("test")
    Xk, yk = load_kddcup99(n_samples=70000, random_state=1999)
    out = {"Adult": (Xa, ya, Xat, yat), "KDDCup99": harness.kdd_split(Xk, yk)}
    for name in ("breast_cancer", "wine", "digits"):
        X, y = load_sklearn(name)
        strat = y if name == "breast_cancer" else None
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0, stratify=strat)
        out[name] = (Xtr, ytr, Xte, yte)
    return out


def make(name, eps, seed):
    if name == "PrivateLogisticRegression":
        return dp.PrivateLogisticRegression(epsilon=eps, random_state=seed)
    if name == "PrivateHuberSVM":
        return dp.PrivateHuberSVM(epsilon=eps, random_state=seed)
    if name == "NoisyGradientDescent":
        return dp.NoisyGradientDescent(epsilon=eps, random_state=seed)
    if name == "RFF(auto)+PrivateLogisticRegression":
        # D = auto_components(n, ε)
        # (docs/privacy/tuning_gd_ledger.md#privacy-n-components-auto); a fixed D = 200
        # was below the majority class on Adult at ε = 0.1 (the noise lives in D + 1
        # dimensions)
        return make_pipeline(RandomFourierFeatures(n_components="auto", learner_epsilon=eps,
                                                   random_state=seed),
                             dp.PrivateLogisticRegression(epsilon=eps, random_state=seed))
    if name == "PrivateLargeMarginGaussian":
        return dp.PrivateLargeMarginGaussian(epsilon=eps, random_state=seed)
    return dp.PrivateGaussianCentroid(epsilon=eps, random_state=seed)


BINARY = ("PrivateLogisticRegression", "PrivateHuberSVM", "NoisyGradientDescent",
          "RFF(auto)+PrivateLogisticRegression")


def fit_score(name, eps, seed, X, y, Xt, yt):
    """(test accuracy, whether the fit raised the 'noise is large' PrivacyWarning)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        acc = make(name, eps, seed).fit(X, y).score(Xt, yt)
    warned = any(issubclass(w.category, PrivacyWarning) and "noise is large" in str(w.message)
                 for w in caught)
    return acc, warned


def _fit_score(args, queue):
    queue.put(fit_score(*args))


def timed_score(name, eps, seed, X, y, Xt, yt):
    """Accuracy, or None if the fit exceeds TIME_CAP (run in a child process)."""
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_fit_score, args=((name, eps, seed, X, y, Xt, yt), queue))
    proc.start()
    proc.join(TIME_CAP)
    if proc.is_alive():
        proc.terminate()
        proc.join()
        return None
    return queue.get() if proc.exitcode == 0 else (float("nan"), False)


def main() -> None:
    global SEEDS
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=len(SEEDS), help="noise seeds per case")
    ap.add_argument("--datasets", nargs="*", default=None,
                    help="subset, e.g. Adult KDDCup99 (default: all)")
    args = ap.parse_args()
    SEEDS = tuple(range(args.seeds))
    t0 = time.time()
    data = datasets()
    if args.datasets:
        data = {k: v for k, v in data.items() if k in args.datasets}
    rows, beat, total, skipped = [], 0, 0, []
    for dname, (X, y, Xt, yt) in data.items():
        binary = np.unique(y).size == 2
        majority = max(np.mean(yt == v) for v in np.unique(y))
        names = [*BINARY, "PrivateLargeMarginGaussian"] if binary else [
            "PrivateLargeMarginGaussian", "PrivateGaussianCentroid"]
        for est in names:
            guard = est == "PrivateLargeMarginGaussian" and dname in ("Adult", "KDDCup99")
            for eps in EPSILONS:
                accs, warned = [], 0
                for seed in SEEDS:
                    if guard:
                        r = timed_score(est, eps, seed, X, y, Xt, yt)
                        if r is None:
                            accs = None
                            break
                    else:
                        r = fit_score(est, eps, seed, X, y, Xt, yt)
                    accs.append(r[0])
                    warned += r[1]
                if accs is None:
                    skipped.append((est, dname, eps))
                    rows.append((dname, est, eps, None, majority, 0))
                    print(f"skip {est} {dname} eps={eps}: fit > {TIME_CAP:.0f} s", flush=True)
                    break
                m = float(np.mean(accs))
                total += 1
                beat += m > majority + 0.01
                rows.append((dname, est, eps, (m, float(np.std(accs))), majority, warned))
                print(dname, est, eps, f"{m:.4f}", f"maj {majority:.4f}", f"warned {warned}",
                      flush=True)
    print(f"\n| dataset | estimator | ε | accuracy ({len(SEEDS)} seeds, mean ± std) | majority | "
          "beats by > 1 pt | noise warning (fits) |")
    print("|---|---|---|---|---|---|---|")
    for dname, est, eps, acc, maj, warned in rows:
        if acc is None:
            print(f"| {dname} | {est} | {eps:g} | skipped (fit > {TIME_CAP:.0f} s) | {maj:.4f} | - "
                  "| - |")
        else:
            ok = "yes" if acc[0] > maj + 0.01 else "**no**"
            wtxt = f"**yes** ({warned}/{len(SEEDS)})" if warned else "no"
            print(f"| {dname} | {est} | {eps:g} | {acc[0]:.4f} ± {acc[1]:.4f} | {maj:.4f} | {ok} "
                  f"| {wtxt} |")
    print(f"\n{beat} of {total} estimator × dataset × ε cases beat the majority class by more "
          f"than 1 point; skipped: {skipped or 'none'} ({time.time() - t0:.0f} s)")
    sys.stdout.flush()


#: module constants replaced in --quick mode (a smoke run, not a measurement)
QUICK: dict = {}

if __name__ == "__main__":
    harness.run_script(__file__, main, globals(), QUICK)
