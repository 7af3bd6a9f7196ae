"""Where PrivateLinearRegression's noise PrivacyWarning fires, against the release's held-out R²
(dpconvex.privacy.rules.noise_level, docs/privacy/sufficient_statistics.md#privacy-noise-warning-ssp).

Question: is the public ratio ρ_SSP = R / (n q̃²/p) (R = s_A √(p log(2p²/ρ)), Wang's bound
on the noise in XᵀX; n q̃²/p the largest smallest eigenvalue n rows can give XᵀX) large
exactly where ``PrivateLinearRegression`` is no better than a constant prediction, and
which threshold separates the two?

Data: the regression corpus (``corpus.REGRESSION_TABLES``, 18 tables, each label with its
public ``label_range``), on its SELECTION seeds 9300–9304 only (the report seeds are not
read), at each table's whole training split and at seeded subsamples of 4,000, 1,000 and 250
training rows (``corpus_run.load_split(..., train_rows=M)``; a table with fewer rows is left
out at that size); the test rows whole. Fits: ``PrivateLinearRegression(epsilon=ε,
delta=δ, label_range=RANGE, random_state=seed)`` at its defaults (``lam="auto"``),
ε ∈ {0.1, 0.25, 0.5, 1, 2, 4, 8}, δ ∈ {0, 1/n²}; baselines per split: scikit-learn's
non-private ``Ridge()`` and the constant prediction (the training labels' mean). Per fit:
ρ_SSP (``dpconvex.privacy.rules.noise_level.estimator_noise_dominance``: public quantities
only), whether the fit raised the "noise is large" warning, and test R².

A cell is (table, training rows, ε, δ), its R² the mean over the seeds (ρ_SSP is the same
for every seed). Tables: cells by ρ_SSP range (the share at or below the constant
prediction, the median R² minus the constant's, and the median share of the non-private
gain over the constant kept, over the cells whose non-private gain is above 0.05); the
cells each candidate threshold warns on and leaves silent; fits whose warning disagrees
with ρ_SSP > ``SSP_NOISE_RATIO`` (none expected).

Run: ``DPCONVEX_DATA=/work/shared/datasets OMP_NUM_THREADS=1 python
benchmarks/noise_warning_ssp.py`` (about 15 s on one core). ``--quick``: two tables,
the first seed, ε ∈ {0.5, 2}, the whole (``--quick``-subsampled, 800 rows) split and 250
rows (a smoke run, not a measurement).
"""

from __future__ import annotations

import statistics
import warnings
from typing import Any

import corpus
import corpus_run
import harness
import numpy as np

EPSILONS = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
#: training rows: None (the whole split), then seeded subsamples
TRAIN_ROWS = (None, 4000, 1000, 250)
#: the ρ_SSP ranges of the first table and the thresholds of the second
BINS = (0.0, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 2.0, 5.0, float("inf"))
THRESHOLDS = (0.1, 0.2, 0.3, 0.5, 1.0, 2.0)


def fits(name: str, seed: int, rows: int | None, epsilons: tuple[float, ...], quick: bool
         ) -> list[dict[str, Any]]:
    """Every (ε, δ) fit of one split, with the split's baselines (empty: too few rows)."""
    from sklearn.linear_model import Ridge
    from sklearn.metrics import r2_score

    import dpconvex as dp
    from dpconvex.errors import PrivacyWarning
    from dpconvex.privacy.rules.noise_level import estimator_noise_dominance

    sp = corpus_run.load_split(name, seed, quick, rows)
    n = len(sp.y_train)
    if rows is not None and n < rows:
        return []
    label_range = corpus.table(name).learner_label_range
    constant = float(r2_score(sp.y_test, np.full(len(sp.y_test), float(np.mean(sp.y_train)))))
    ridge = float(r2_score(sp.y_test, Ridge().fit(sp.X_train, sp.y_train).predict(sp.X_test)))
    out = []
    for eps in epsilons:
        for dname, delta in (("0", 0.0), ("1/n²", 1.0 / n**2)):
            params = {"epsilon": eps, "delta": delta, "label_range": label_range,
                      "random_state": seed}
            rho = estimator_noise_dominance(dp.PrivateLinearRegression(**params), sp.X_train,
                                            sp.y_train)[0]
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                model = dp.PrivateLinearRegression(**params).fit(sp.X_train, sp.y_train)
            warned = any(issubclass(w.category, PrivacyWarning) and "noise is large" in str(w.message)
                         for w in caught)
            out.append({"table": name, "rows": "all" if rows is None else rows, "n": n, "seed": seed,
                        "epsilon": eps, "delta": dname, "rho": rho, "warned": warned,
                        "r2": float(r2_score(sp.y_test, model.predict(sp.X_test))),
                        "constant": constant, "ridge": ridge})
    return out


def cells(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Means over the seeds per (table, rows, ε, δ)."""
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for r in records:
        groups.setdefault((r["table"], r["rows"], r["epsilon"], r["delta"]), []).append(r)
    return [{"key": k, "rho": float(np.mean([r["rho"] for r in g])),
             **{m: float(np.mean([r[m] for r in g])) for m in ("r2", "constant", "ridge")}}
            for k, g in groups.items()]


def _median(values: list[float]) -> float | str:
    return statistics.median(values) if values else "-"


def by_ratio(cs: list[dict[str, Any]]) -> harness.Table:
    table = harness.Table(
        "cells by ρ_SSP: PrivateLinearRegression's held-out R² against the constant prediction",
        ["ρ_SSP", "cells", "at or below the constant prediction", "median R² − constant",
         "median share of the non-private gain kept"], kind="regression")
    for lo, hi in zip(BINS, BINS[1:], strict=False):
        sub = [c for c in cs if lo < c["rho"] <= hi]
        if not sub:
            continue
        bad = sum(c["r2"] <= c["constant"] for c in sub)
        gain = [(c["r2"] - c["constant"]) / (c["ridge"] - c["constant"]) for c in sub
                if c["ridge"] - c["constant"] > 0.05]
        table.add(f"({lo:g}, {hi:g}]", len(sub), f"{bad} ({bad / len(sub):.0%})",
                  _median([c["r2"] - c["constant"] for c in sub]), _median(gain))
    table.add(f"{harness.NON_PRIVATE} Ridge() (all cells)", len(cs), "-",
              _median([c["ridge"] - c["constant"] for c in cs]), 1.0)
    table.add(f"{harness.CONSTANT} (training mean, all cells)", len(cs), "-", 0.0, 0.0)
    table.notes.append("R² − constant: the cell's R² minus the constant prediction's (the "
                       "training mean's) on the same test rows; share of the non-private gain: "
                       "(R² − constant) / (Ridge R² − constant).")
    return table


def by_threshold(cs: list[dict[str, Any]]) -> harness.Table:
    from dpconvex.privacy.rules.noise_level import SSP_NOISE_RATIO

    table = harness.Table(
        "cells a threshold on ρ_SSP would warn on: how many are at or below the constant prediction",
        ["threshold", "warned cells", "of which at or below the constant", "silent cells",
         "of which at or below the constant"], kind="regression")
    for t in THRESHOLDS:
        fire = [c for c in cs if c["rho"] > t]
        quiet = [c for c in cs if c["rho"] <= t]
        bad_fire = sum(c["r2"] <= c["constant"] for c in fire)
        bad_quiet = sum(c["r2"] <= c["constant"] for c in quiet)
        label = f"{t:g}" + (" (SSP_NOISE_RATIO)" if t == SSP_NOISE_RATIO else "")
        table.add(label, len(fire), f"{bad_fire} ({bad_fire / max(len(fire), 1):.0%})",
                  len(quiet), f"{bad_quiet} ({bad_quiet / max(len(quiet), 1):.0%})")
    table.add(f"{harness.NON_PRIVATE} Ridge(): cells at or below the constant", "-",
              sum(c["ridge"] <= c["constant"] for c in cs), "-", "-")
    table.add(f"{harness.CONSTANT} (the training mean)", "-", "-", "-", "-")
    return table


def main() -> None:
    from dpconvex.privacy.rules.noise_level import SSP_NOISE_RATIO

    ap = harness.parser(__doc__)
    args = ap.parse_args()
    names = list(corpus.REGRESSION_TABLES)[:2] if args.quick else list(corpus.REGRESSION_TABLES)
    seeds = corpus.SELECTION_SEEDS[:1] if args.quick else corpus.SELECTION_SEEDS
    epsilons = (0.5, 2.0) if args.quick else EPSILONS
    sizes = (None, 250) if args.quick else TRAIN_ROWS
    with harness.Run(__file__, args) as run:
        run.note(f"tables {names}; selection seeds {list(seeds)}; ε {list(epsilons)}; δ 0 and "
                 f"1/n²; training rows {['all' if s is None else s for s in sizes]}")
        records = [r for name in names for seed in seeds for rows in sizes
                   for r in fits(name, seed, rows, epsilons, args.quick)]
        cs = cells(records)
        run.table(by_ratio(cs))
        run.table(by_threshold(cs))
        wrong = [r for r in records if r["warned"] != (r["rho"] > SSP_NOISE_RATIO)]
        run.note(f"{len(records)} fits in {len(cs)} cells; fits whose warning disagrees with "
                 f"rho_SSP > {SSP_NOISE_RATIO:g}: {len(wrong)}.")
        run.data["fits"] = records


if __name__ == "__main__":
    main()
