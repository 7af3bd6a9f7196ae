"""NoisyGradientDescent with only epsilon set: test-set accuracy on Adult and KDDCup99.

Adult: adult.data -> adult.test. KDDCup99: the 70,000-row sample (random_state=1999),
per seed s a random 50,000/20,000 split (permutation by default_rng(s)). 5 seeds; noise
random_state=s. The default rules were chosen on validation splits of the training data,
never on these test sets.

Usage::

    DPCONVEX_DATA=../shared/datasets python benchmarks/noisy_gd_only_epsilon.py {adult,kdd} [average]
"""

from __future__ import annotations

import json
import sys
import time

import harness  # benchmarks/ is the script's folder, first on sys.path
import numpy as np

from dpconvex import NoisyGradientDescent
from dpconvex.datasets import load_adult, load_kddcup99


def main() -> None:
    ds = sys.argv[1]
    extra = {"average": sys.argv[2]} if len(sys.argv) > 2 else {}
    if ds == "kdd":
        Xall, yall = load_kddcup99(n_samples=70000, random_state=1999)
        if harness.QUICK:  # a smoke run: 2,500 of the 70,000 rows, 1,000 of them for the test
            Xall, yall = harness.subsample(Xall, yall, 2500)
    else:
        Xtr, ytr = load_adult("train")
        Xte, yte = load_adult("test")
    for eps in [0.1, 1.0]:
        accs, maj, info = [], [], {}
        for s in range(5):
            if ds == "kdd":
                perm = np.random.default_rng(s).permutation(len(yall))
                n_test = 1000 if harness.QUICK else 20000
                te, tr = perm[:n_test], perm[n_test:]
                Xtr, ytr, Xte, yte = Xall[tr], yall[tr], Xall[te], yall[te]
            t0 = time.time()
            est = NoisyGradientDescent(epsilon=eps, random_state=s, **extra).fit(Xtr, ytr)
            accs.append(est.score(Xte, yte))
            maj.append(max(np.mean(yte == np.unique(ytr)[0]), np.mean(yte != np.unique(ytr)[0])))
            info = dict(T=est.steps_, C=round(est.clip_, 4), eta=round(est.learning_rate_, 4),
                        R=round(est.radius_, 1), delta=est.delta_,
                        z=round(est.noise_multiplier_, 3), sec=round(time.time() - t0, 1))
        print(json.dumps(dict(ds=ds, eps=eps, **extra, acc_mean=round(float(np.mean(accs)), 4),
                              acc_sd=round(float(np.std(accs, ddof=1)), 4),
                              accs=[round(float(a), 4) for a in accs],
                              majority=round(float(np.mean(maj)), 4), **info)), flush=True)


#: module constants replaced in --quick mode (a smoke run, not a measurement)
QUICK: dict = {}

if __name__ == "__main__":
    harness.run_script(__file__, main, globals(), QUICK)
