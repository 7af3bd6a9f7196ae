"""Kinked losses stated in one line: how close do their smoothed private fits come?

Part 1, the hinge. ``PrivateLinearClassifier(loss=lambda m: cp.pos(1 - m), epsilon=ε,
classes=[0, 1])`` (``smoothing="auto"``: the half-width chosen with Λ; ``mechanism="auto"``:
objective perturbation) on scikit-learn's breast cancer (``dp.datasets.load_sklearn``: rows of
norm <= 1), beside ``PrivateHuberSVM`` (the same hinge Huberized at h = 0.5) at the same ε,
the non-private fit of the same stated loss (``mechanism="none"``) and the majority class;
test accuracy.

Part 2, the kinked regression losses on scikit-learn's diabetes, prepared as in
docs/guide/regression.md and docs/guide/custom_objective.md (``load_sklearn("diabetes")``: rows
of norm <= 1 by the features' documented range; ``label_range=(0, 400)``, the public
``SKLEARN_LABEL_RANGES["diabetes"]``):
``PrivateLinearRegressor(loss=fn)`` for the absolute loss ``cp.abs(z - y)``, the pinball
loss at τ = 0.9 ``cp.maximum(0.9 * (y - z), -0.1 * (y - z))`` and the ε-insensitive loss
``cp.pos(cp.abs(z - y) - 0.05)``, beside the non-private fit of the same loss and the
constant that loss chooses (the training τ-quantile); the held-out mean pinball loss at τ
(0.5 for the absolute and ε-insensitive losses, which is half the MAE). R² is not the
measure here: each loss estimates its own functional.

Part 3, coverage: the pinball loss at τ = 0.8 ``cp.maximum(0.8 * (y - z), -0.2 * (y - z))``
on diabetes as in part 2, private at ε ∈ {0.5, 1, 2} and non-private; the share of held-out
labels at or below the prediction (τ = 0.8 is the goal), beside the training 0.8-quantile.

Splits ``train_test_split(test_size=0.3, random_state=s)`` (stratified for the classifier)
for s in 9400..9404, the noise seed of each private fit equal to its split seed; ε ∈ {0.5, 1,
2} (parts 1 and 3) and {2, 10} (part 2); cells mean ± sd over the seeds. Chosen before any result
was seen. ``--quick``: two seeds, one ε per part.
"""

from __future__ import annotations

import warnings

import cvxpy as cp
import harness
import numpy as np
from sklearn.metrics import mean_pinball_loss
from sklearn.model_selection import train_test_split

import dpconvex as dp

SEEDS = tuple(range(9400, 9405))
CLASSIFIER_EPSILONS = (0.5, 1.0, 2.0)
REGRESSOR_EPSILONS = (2.0, 10.0)
LABELS = dp.datasets.SKLEARN_LABEL_RANGES["diabetes"]
KINKED = {"absolute": (lambda z, y: cp.abs(z - y), 0.5),
          "pinball 0.9": (lambda z, y: cp.maximum(0.9 * (y - z), -0.1 * (y - z)), 0.9),
          "eps-insensitive": (lambda z, y: cp.pos(cp.abs(z - y) - 0.05), 0.5)}


def pinball_08(z: cp.Expression, y: cp.Expression) -> cp.Expression:
    """The pinball loss at τ = 0.8 of part 3."""
    return cp.maximum(0.8 * (y - z), -0.2 * (y - z))


def hinge(run: harness.Run, seeds: tuple[int, ...], epsilons: tuple[float, ...]) -> None:
    X, y = dp.datasets.load_sklearn("breast_cancer")
    stated = dp.PrivateLinearClassifier(loss=lambda m: cp.pos(1 - m), classes=[0, 1])
    table = harness.Table("The hinge cp.pos(1 - m) on breast cancer: test accuracy",
                          ["model", *(f"ε = {e:g}" for e in epsilons)])
    rows: dict[str, list[list[float]]] = {k: [[] for _ in epsilons] for k in
                                          ("stated hinge (smoothed)", "PrivateHuberSVM")}
    exact, majority = [], []
    for seed in seeds:
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, stratify=y, random_state=seed)
        exact.append(stated.set_params(mechanism="none").fit(Xtr, ytr).score(Xte, yte))
        majority.append(1.0 - harness.majority_error(ytr, yte))
        for j, eps in enumerate(epsilons):
            private = stated.set_params(mechanism="auto", epsilon=eps, random_state=seed)
            rows["stated hinge (smoothed)"][j].append(private.fit(Xtr, ytr).score(Xte, yte))
            huber = dp.PrivateHuberSVM(epsilon=eps, classes=[0, 1], random_state=seed)
            rows["PrivateHuberSVM"][j].append(huber.fit(Xtr, ytr).score(Xte, yte))
    for name, cells in rows.items():
        table.add(name, *cells)
    table.add(harness.NON_PRIVATE + " (the stated hinge, smoothed)", *([exact] * len(epsilons)))
    table.add(harness.MAJORITY, *([majority] * len(epsilons)))
    run.table(table)


def regression(run: harness.Run, seeds: tuple[int, ...], epsilons: tuple[float, ...]) -> None:
    X, y = dp.datasets.load_sklearn("diabetes")
    for name, (fn, tau) in KINKED.items():
        table = harness.Table(f"{name} on diabetes: held-out mean pinball loss at τ = {tau:g} "
                              "(lower is better)",
                              ["model", *(f"ε = {e:g}" for e in epsilons)],
                              kind="regression")
        private: list[list[float]] = [[] for _ in epsilons]
        exact, constant = [], []
        for seed in seeds:
            Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=seed)
            reg = dp.PrivateLinearRegressor(loss=fn, label_range=LABELS)
            exact.append(mean_pinball_loss(
                yte, reg.set_params(mechanism="none").fit(Xtr, ytr).predict(Xte), alpha=tau))
            constant.append(mean_pinball_loss(
                yte, np.full(len(yte), np.quantile(ytr, tau)), alpha=tau))
            for j, eps in enumerate(epsilons):
                reg.set_params(mechanism="auto", epsilon=eps, random_state=seed)
                private[j].append(mean_pinball_loss(yte, reg.fit(Xtr, ytr).predict(Xte),
                                                    alpha=tau))
        table.add(f"{name} (smoothed, private)", *private)
        table.add(harness.NON_PRIVATE, *([exact] * len(epsilons)))
        table.add(harness.CONSTANT + f" (training {tau:g}-quantile)",
                  *([constant] * len(epsilons)))
        run.table(table)


def coverage(run: harness.Run, seeds: tuple[int, ...], epsilons: tuple[float, ...]) -> None:
    X, y = dp.datasets.load_sklearn("diabetes")
    tau = 0.8
    table = harness.Table(f"pinball {tau:g} on diabetes: share of held-out labels at or below "
                          f"the prediction (goal {tau:g})",
                          ["model", *(f"ε = {e:g}" for e in epsilons)], kind="regression")
    private: list[list[float]] = [[] for _ in epsilons]
    exact, constant = [], []
    for seed in seeds:
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=seed)
        reg = dp.PrivateLinearRegressor(loss=pinball_08, label_range=LABELS)
        exact.append(float(np.mean(yte <= reg.set_params(mechanism="none").fit(Xtr, ytr)
                                   .predict(Xte))))
        constant.append(float(np.mean(yte <= np.quantile(ytr, tau))))
        for j, eps in enumerate(epsilons):
            reg.set_params(mechanism="auto", epsilon=eps, random_state=seed)
            private[j].append(float(np.mean(yte <= reg.fit(Xtr, ytr).predict(Xte))))
    table.add(f"pinball {tau:g} (smoothed, private)", *private)
    table.add(harness.NON_PRIVATE, *([exact] * len(epsilons)))
    table.add(harness.CONSTANT + f" (training {tau:g}-quantile)", *([constant] * len(epsilons)))
    run.table(table)


def main() -> None:
    args = harness.parser(__doc__).parse_args()
    seeds = SEEDS[:2] if args.quick else SEEDS
    with harness.Run(__file__, args) as run, warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)
        hinge(run, seeds, (1.0,) if args.quick else CLASSIFIER_EPSILONS)
        regression(run, seeds, (10.0,) if args.quick else REGRESSOR_EPSILONS)
        coverage(run, seeds, (1.0,) if args.quick else CLASSIFIER_EPSILONS)


if __name__ == "__main__":
    main()
