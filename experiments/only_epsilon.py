"""Issue 16's "only epsilon set" table after lam="auto" (issue 13 item 3).

Every estimator with only ``epsilon`` (and ``random_state``) set, on Adult
(adult.data -> adult.test), KDDCup99 (70,000-row sample, 50,000 / 20,000), and the
scikit-learn breast cancer (70/30 stratified), wine and digits (70/30) sets; binary
learners only on the binary sets; ε ∈ {0.1, 1, 10}; 3 seeds. Counts the cases whose
mean accuracy beats the majority class by more than 1 point. A fit that takes over
60 s (PrivateLargeMarginGaussian on Adult/KDDCup99) is skipped and marked.

Run: ``DPCONVEX_DATA=/work/shared/datasets python experiments/only_epsilon.py``.
"""

from __future__ import annotations

import multiprocessing as mp
import sys
import time

import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline

import dpconvex as dp
from dpconvex.datasets import load_adult, load_kddcup99, load_sklearn
from dpconvex.kernels import RandomFourierFeatures

EPSILONS = (0.1, 1.0, 10.0)
SEEDS = (0, 1, 2)
TIME_CAP = 60.0


def datasets():
    Xa, ya = load_adult("train")
    Xat, yat = load_adult("test")
    Xk, yk = load_kddcup99(n_samples=70000, random_state=1999)
    out = {"Adult": (Xa, ya, Xat, yat), "KDDCup99": (Xk[:50000], yk[:50000], Xk[50000:],
                                                     yk[50000:])}
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
    if name == "RFF(200)+PrivateLogisticRegression":
        return make_pipeline(RandomFourierFeatures(n_components=200, random_state=seed),
                             dp.PrivateLogisticRegression(epsilon=eps, random_state=seed))
    if name == "PrivateLargeMarginGaussian":
        return dp.PrivateLargeMarginGaussian(epsilon=eps, random_state=seed)
    return dp.PrivateGaussianCentroid(epsilon=eps, random_state=seed)


BINARY = ("PrivateLogisticRegression", "PrivateHuberSVM", "NoisyGradientDescent",
          "RFF(200)+PrivateLogisticRegression")


def _fit_score(args, queue):
    name, eps, seed, X, y, Xt, yt = args
    queue.put(make(name, eps, seed).fit(X, y).score(Xt, yt))


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
    return queue.get() if proc.exitcode == 0 else float("nan")


def main() -> None:
    t0 = time.time()
    data = datasets()
    rows, beat, total, skipped = [], 0, 0, []
    for dname, (X, y, Xt, yt) in data.items():
        binary = np.unique(y).size == 2
        majority = max(np.mean(yt == v) for v in np.unique(y))
        names = [*BINARY, "PrivateLargeMarginGaussian"] if binary else [
            "PrivateLargeMarginGaussian", "PrivateGaussianCentroid"]
        for est in names:
            guard = est == "PrivateLargeMarginGaussian" and dname in ("Adult", "KDDCup99")
            for eps in EPSILONS:
                accs = []
                for seed in SEEDS:
                    if guard:
                        a = timed_score(est, eps, seed, X, y, Xt, yt)
                        if a is None:
                            accs = None
                            break
                    else:
                        a = make(est, eps, seed).fit(X, y).score(Xt, yt)
                    accs.append(a)
                if accs is None:
                    skipped.append((est, dname, eps))
                    rows.append((dname, est, eps, None, majority))
                    print(f"skip {est} {dname} eps={eps}: fit > {TIME_CAP:.0f} s", flush=True)
                    break
                m = float(np.mean(accs))
                total += 1
                beat += m > majority + 0.01
                rows.append((dname, est, eps, (m, float(np.std(accs))), majority))
                print(dname, est, eps, f"{m:.4f}", f"maj {majority:.4f}", flush=True)
    print("\n| dataset | estimator | ε | accuracy (3 seeds, mean ± std) | majority | beats by > 1 pt |")
    print("|---|---|---|---|---|---|")
    for dname, est, eps, acc, maj in rows:
        if acc is None:
            print(f"| {dname} | {est} | {eps:g} | skipped (fit > {TIME_CAP:.0f} s) | {maj:.4f} | - |")
        else:
            ok = "yes" if acc[0] > maj + 0.01 else "**no**"
            print(f"| {dname} | {est} | {eps:g} | {acc[0]:.4f} ± {acc[1]:.4f} | {maj:.4f} | {ok} |")
    print(f"\n{beat} of {total} estimator × dataset × ε cases beat the majority class by more "
          f"than 1 point; skipped: {skipped or 'none'} ({time.time() - t0:.0f} s)")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
