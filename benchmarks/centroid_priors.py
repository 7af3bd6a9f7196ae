"""DP class centroids with class priors from the released counts: where do they beat the majority class?

Usage::

    DPCONVEX_DATA=/work/shared/datasets python benchmarks/centroid_priors.py [--seeds 10] [--record]

``PrivateGaussianCentroid`` with ``priors="empirical"`` (π from the released noisy counts,
weight 2σ̂² with σ̂² the within-class variance estimated from the release,
docs/privacy/large_margin.md#privacy-centroid-priors) against ``priors="uniform"`` (the
nearest class mean), for the analytic Gaussian mechanism at δ = 1/n² and the pure ε-DP
``knorm_sum`` (the default ``mechanism="auto"`` with δ not given), at ε ∈ {0.1, 0.5, 1, 2,
5}; test accuracy, mean ± std (population) over 10 noise seeds ``random_state = 7000 ..
7009``. Nothing is tuned on a test set.

Data sets:

* Adult (``dpconvex.datasets.load_adult``: adult.data 30,162 rows → adult.test 15,060 rows,
  the loader's public encoding, unit rows);
* RAND Health Insurance Experiment (``statsmodels.datasets.randhie``, 20,190 rows, not
  bundled with dpconvex; ``pip install statsmodels``): target "any outpatient visit to an
  MD" (mdvis > 0), the other nine columns as features, encoded by ``dpconvex.PublicEncoder``
  with the hand-written schema :data:`RANDHIE_SCHEMA` (ranges from the variable definitions
  in statsmodels' description; where a definition gives no upper bound, a round public cap
  stated there; written by someone who had seen the data set's summary table, not tuned on
  any accuracy); split ``train_test_split(test_size=0.3, stratify=y, random_state=s)`` with
  the split seed s equal to the noise seed.

Baselines on the same feature vectors u (unit rows): the majority class of the training
split; the non-private nearest centroid (scikit-learn's ``NearestCentroid``, equal priors);
the non-private form of the same model (true class means, empirical priors, the pooled
within-class variance W/d: what ``priors="empirical"`` tends to as ε grows); scikit-learn's
``NearestCentroid(priors="empirical")`` (per-feature variances: another model). One
diagnostic row, not a release: the non-private rule with the prior weighted by the
within-class variance along the difference of the two class means, which the release does
not contain.
"""

from __future__ import annotations

import math
import time
import warnings

import harness  # benchmarks/ is the script's folder, first on sys.path
import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.neighbors import NearestCentroid

import dpconvex as dp

EPSILONS = (0.1, 0.5, 1.0, 2.0, 5.0)
SEED0 = 7000
RECORD = harness.HERE / "recorded" / "centroid_priors.md"

#: The public schema of randhie's nine features (statsmodels' variable definitions).
RANDHIE_SCHEMA = dp.PublicSchema({
    "lncoins": dp.Numeric(0.0, math.log(101.0)),  # ln(coinsurance + 1), 0 <= coinsurance <= 100
    "idp": dp.Binary(positive=1),                  # individual deductible plan
    "lpi": dp.Numeric(0.0, math.log(1e4)),         # ln(max(1, incentive)); cap: $10,000 a year
    "fmde": dp.Numeric(0.0, math.log(1e4)),        # 0 or ln(max(1, MDE/coinsurance)); same cap
    "physlm": dp.Binary(positive=1),               # physical limitation
    "disea": dp.Numeric(0.0, 40.0),                # number of chronic diseases; cap 40
    "hlthg": dp.Binary(positive=1),                # self-rated health good / fair / poor
    "hlthf": dp.Binary(positive=1),
    "hlthp": dp.Binary(positive=1),
})


def unit_rows(Z: np.ndarray) -> np.ndarray:
    """x/||x|| per record (zero rows stay zero): the estimator's row_norm="unit" map."""
    n = np.linalg.norm(Z, axis=1, keepdims=True)
    return np.divide(Z, n, out=np.zeros_like(Z), where=n > 0)


def randhie(quick: bool) -> tuple[np.ndarray, np.ndarray]:
    """The encoded randhie features and the binary target mdvis > 0."""
    from statsmodels.datasets import randhie as rh

    df = rh.load_pandas().data
    y = (df["mdvis"] > 0).to_numpy().astype(int)
    feats = df[list(RANDHIE_SCHEMA.columns)]
    X = dp.PublicEncoder(RANDHIE_SCHEMA).fit_transform(feats)
    X = np.asarray(X, dtype=float)
    return harness.subsample(X, y, harness.QUICK_ROWS[0] + harness.QUICK_ROWS[1]) if quick else (X, y)


def splits(name: str, seeds: int, quick: bool) -> list[tuple[np.ndarray, ...]]:
    """(X, y, Xt, yt) per seed: Adult's fixed files (one split), randhie split seed = noise seed."""
    if name == "Adult":
        s = harness.load("adult", quick=quick)
        return [(s.X, s.y, s.Xt, s.yt)] * seeds
    X, y = randhie(quick)
    out = []
    for i in range(seeds):
        Xa, Xb, ya, yb = train_test_split(X, y, test_size=0.3, stratify=y, random_state=SEED0 + i)
        out.append((Xa, ya, Xb, yb))
    return out


def model_rule(U: np.ndarray, y: np.ndarray, Ut: np.ndarray, along_difference: bool = False
               ) -> float:
    """Non-private accuracy of argmin ||u - mu_c||^2 - 2 s2 log pi_c with the true means.

    s2 = W/d (the model's isotropic variance), or (``along_difference``) the within-class
    variance of u along mu_1 - mu_0 (binary only; a diagnostic, not released).
    """
    C = int(y.max()) + 1
    mu = np.stack([U[y == c].mean(axis=0) for c in range(C)])
    pi = np.bincount(y, minlength=C) / y.size
    R = U - mu[y]
    if along_difference:
        w = (mu[1] - mu[0]) / np.linalg.norm(mu[1] - mu[0])
        s2 = float(np.var(R @ w))
    else:
        s2 = float(np.mean(np.sum(R * R, axis=1))) / U.shape[1]
    d2 = ((Ut[:, None, :] - mu[None]) ** 2).sum(axis=2) - 2.0 * s2 * np.log(pi)[None]
    return d2.argmin(axis=1)


def run(seeds: int, quick: bool) -> tuple[harness.Table, harness.Table]:
    """The accuracy table and the table of (accuracy − majority) per split, with seeds below."""
    eps_cols = [f"ε = {e:g}" for e in EPSILONS]
    table = harness.Table(
        f"PrivateGaussianCentroid test accuracy, priors from the released counts vs equal "
        f"priors ({seeds} noise seeds {SEED0}..{SEED0 + seeds - 1})",
        ["data set", "model", "mechanism", *eps_cols, "ms / fit"])
    gap = harness.Table(
        "Accuracy minus the majority-class rate of the same split (mean ± std; in brackets the "
        "number of seeds below the majority class)", ["data set", "model", "mechanism", *eps_cols])
    for name in ("Adult", "randhie (mdvis > 0)"):
        parts = splits(name, seeds, quick)
        majority = [1.0 - harness.majority_error(y, yt) for _, y, _, yt in parts]
        n = len(parts[0][1])
        delta = 1.0 / n**2
        for mech, dl, label in (("gaussian", delta, f"gaussian, δ = 1/n² = {delta:.2g}"),
                                ("auto", None, "auto → knorm_sum (pure ε)")):
            for priors in ("empirical", "uniform"):
                cells, t0, fits = [], time.perf_counter(), 0
                for eps in EPSILONS:
                    acc = []
                    for i, (X, y, Xt, yt) in enumerate(parts):
                        m = dp.PrivateGaussianCentroid(
                            epsilon=eps, delta=dl, mechanism=mech, priors=priors,
                            classes=[0, 1], random_state=SEED0 + i).fit(X, y)
                        acc.append(m.score(Xt, yt))
                        fits += 1
                    cells.append(acc)
                ms = 1e3 * (time.perf_counter() - t0) / fits
                table.add(name, f"priors={priors!r}", label, *cells, f"{ms:.0f}")
                diffs = [np.asarray(c) - np.asarray(majority) for c in cells]
                gap.add(name, f"priors={priors!r}", label,
                        *[f"{harness.mean_std(g)} [{int(np.sum(g < 0))}/{g.size}]" for g in diffs])
        # baselines on the same u (unit rows), per split
        base: dict[str, list[float]] = {k: [] for k in ("maj", "nc", "model", "sk", "diag")}
        for X, y, Xt, yt in parts:
            U, Ut = unit_rows(X), unit_rows(Xt)
            base["maj"].append(1.0 - harness.majority_error(y, yt))
            base["model"].append(float(np.mean(model_rule(U, y, Ut) == yt)))
            with warnings.catch_warnings():  # sklearn warns about constant one-hot columns
                warnings.simplefilter("ignore", UserWarning)
                base["nc"].append(NearestCentroid().fit(U, y).score(Ut, yt))
                base["sk"].append(NearestCentroid(priors="empirical").fit(U, y).score(Ut, yt))
            base["diag"].append(float(np.mean(model_rule(U, y, Ut, along_difference=True) == yt)))
        rows = (("maj", harness.MAJORITY, "-"),
                ("nc", f"{harness.NON_PRIVATE} nearest centroid (equal priors)", "sklearn"),
                ("model", f"{harness.NON_PRIVATE}, same model, empirical priors, σ² = W/d",
                 "true means"),
                ("sk", f"{harness.NON_PRIVATE} NearestCentroid(priors='empirical')",
                 "sklearn (per-feature variances)"),
                ("diag", f"{harness.NON_PRIVATE} diagnostic: prior weighted by the variance "
                         "along μ₁ − μ₀ (not released)", "true means"))
        for key, label, how in rows:
            v = base[key] if name != "Adult" else base[key][0]
            table.add(name, label, how, *[v] * len(EPSILONS), "")
            if key != "maj":
                g = np.asarray(base[key]) - np.asarray(majority)
                gap.add(name, label, how, *[f"{harness.mean_std(g)} [{int(np.sum(g < 0))}/"
                                            f"{g.size}]"] * len(EPSILONS))
        gap.add(name, harness.MAJORITY, "-", *["0"] * len(EPSILONS))
    return table, gap


def main() -> None:
    ap = harness.parser(__doc__, seeds=10)
    ap.add_argument("--record", action="store_true", help=f"also write {RECORD}")
    args = ap.parse_args()
    seeds = 2 if args.quick else args.seeds
    warnings.simplefilter("ignore", dp.PrivacyWarning)
    with harness.Run(__file__, args) as run_:
        t0 = time.perf_counter()
        table, gap = run(seeds, args.quick)
        run_.table(table)
        run_.table(gap)
        seconds = time.perf_counter() - t0
        if args.record and not args.quick:
            harness.write_atomic(RECORD, "# DP class centroids: class priors from the released "
                                 f"counts\n\nCommand: `{run_.command.strip()}`  \nRuntime "
                                 f"{seconds:.0f} s.\n\n{table.markdown()}\n\n{gap.markdown()}\n")


if __name__ == "__main__":
    main()
