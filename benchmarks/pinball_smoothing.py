"""The cap on a regression loss's h under ``smoothing="auto"``: which keeps the pinball's coverage?

Question: ``smoothing="auto"`` picks the half-width h of a kinked loss from the Λ rule's bound
plus the smoothing's largest change of the loss (docs/privacy/user_objectives.md
#privacy-smoothing). For a regression loss that change does not weigh how far the smoothed
loss's minimizer moves from the τ-quantile (towards (2τ − 1)h above the residuals' centre when
h is wide against their spread), so the rule searches h only up to a cap times the width of
the label range (``dpconvex.privacy.rules.noise_level.REGRESSION_SMOOTHING_MAX``). Which cap?

Per candidate cap (10 = the whole grid, no cap; 0.1, 0.0316, 0.01, 0.00316), the pinball loss
stated in CVXPY, ``cp.maximum(τ * (y - z), (τ - 1) * (y - z))`` for τ ∈ {0.8, 0.5}, fitted by
``PrivateLinearRegressor(loss=..., label_range=..., epsilon=ε, random_state=seed)`` (its
defaults otherwise: ``mechanism="auto"``, ``lam="auto"``, ``smoothing="auto"``) on the tables
of ``corpus.REGRESSION_TABLES`` (labels and their ranges as the corpus gives them to a
learner), split seeds ``corpus.SELECTION_SEEDS`` (the noise seed equal to the split seed).
Per table the held-out coverage (the share of test labels at or below the prediction) and
the held-out mean pinball loss over that of the training τ-quantile, averaged over the seeds;
per cap the mean over the tables of |coverage − τ|, the number of tables whose coverage is
within 0.05 of τ, and the mean pinball ratio. Beside them the non-private fit of the same loss
at h = 0.001 of the range (``mechanism="none"``) and the training τ-quantile (a constant).

The cap is chosen here, on the selection seeds only: the smallest mean |coverage − τ| at
τ = 0.8 and ε = 1, the pinball ratio and τ = 0.5 as checks. ``--quick``: two tables, one seed.
``--epsilons``: the ε of the private fits (default 1).
"""

from __future__ import annotations

import warnings

import corpus
import cvxpy as cp
import harness
import numpy as np
from sklearn.metrics import mean_pinball_loss

import dpconvex as dp
import dpconvex.privacy.rules.noise_level as noise_level

CAPS = (10.0, 0.1, 10.0 ** -1.5, 0.01, 10.0 ** -2.5)
TAUS = (0.8, 0.5)
BAND = 0.05


def pinball(tau: float):
    """The pinball loss at τ, stated in CVXPY."""
    def loss(z: cp.Expression, y: cp.Expression) -> cp.Expression:
        return cp.maximum(tau * (y - z), (tau - 1.0) * (y - z))
    return loss


def score(tau: float, yte: np.ndarray, pred: np.ndarray, base: float) -> tuple[float, float]:
    """(coverage, held-out pinball loss over the constant's) of one fit."""
    return float(np.mean(yte <= pred)), float(mean_pinball_loss(yte, pred, alpha=tau)) / base


def main() -> None:
    ap = harness.parser(__doc__)
    ap.add_argument("--epsilons", type=float, nargs="+", default=[1.0])
    args = ap.parse_args()
    names = list(corpus.REGRESSION_TABLES)[:2] if args.quick else list(corpus.REGRESSION_TABLES)
    seeds = corpus.SELECTION_SEEDS[:1] if args.quick else corpus.SELECTION_SEEDS
    default_cap = noise_level.REGRESSION_SMOOTHING_MAX
    with harness.Run(__file__, args) as run, warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)
        for eps in args.epsilons:
            # model -> tau -> table -> per-seed (coverage, ratio)
            got: dict[str, dict[float, dict[str, list[tuple[float, float]]]]] = {}
            for tau in TAUS:
                for name in names:
                    lr = corpus.REGRESSION_TABLES[name].learner_label_range
                    for seed in seeds:
                        s = corpus.split(name, seed)
                        ytr, yte = np.clip(s.y_train, *lr), np.clip(s.y_test, *lr)
                        q = float(np.quantile(ytr, tau))
                        base = float(mean_pinball_loss(yte, np.full(len(yte), q), alpha=tau))
                        fits = {}
                        for cap in CAPS:
                            noise_level.REGRESSION_SMOOTHING_MAX = cap
                            reg = dp.PrivateLinearRegressor(loss=pinball(tau), label_range=lr,
                                                            epsilon=eps, random_state=seed)
                            fits[f"private, cap {cap:.3g}"] = reg.fit(s.X_train, ytr).predict(
                                s.X_test)
                        noise_level.REGRESSION_SMOOTHING_MAX = default_cap
                        exact = dp.Loss.from_cvxpy(pinball(tau), kind="regression",
                                                   smoothing=0.002)
                        fits[harness.NON_PRIVATE + " (h = 0.001 of the range)"] = \
                            dp.PrivateLinearRegressor(loss=exact, label_range=lr,
                                                      mechanism="none").fit(s.X_train, ytr) \
                            .predict(s.X_test)
                        fits[harness.CONSTANT + " (training τ-quantile)"] = np.full(len(yte), q)
                        for model, pred in fits.items():
                            got.setdefault(model, {}).setdefault(tau, {}).setdefault(
                                name, []).append(score(tau, yte, pred, base))
            columns = ["model"]
            for tau in TAUS:
                columns += [f"τ = {tau:g}: mean |coverage − τ|",
                            f"τ = {tau:g}: tables within ± {BAND:g}",
                            f"τ = {tau:g}: mean pinball / constant's"]
            table = harness.Table(
                f"Pinball loss stated in CVXPY, ε = {eps:g}, {len(names)} regression tables × "
                f"{len(seeds)} selection seeds: held-out coverage and pinball loss per cap on h "
                "(widths of the label range)", columns, kind="regression")
            for model, by_tau in got.items():
                cells: list[object] = [model]
                for tau in TAUS:
                    per_table = np.array([np.mean(v, axis=0) for v in by_tau[tau].values()])
                    cov, ratio = per_table[:, 0], per_table[:, 1]
                    cells += [f"{np.mean(np.abs(cov - tau)):.4f}",
                              f"{int(np.sum(np.abs(cov - tau) <= BAND))} of {len(cov)}",
                              f"{np.mean(ratio):.4f}"]
                table.add(*cells)
            run.table(table)


if __name__ == "__main__":
    main()
