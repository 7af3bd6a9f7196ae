"""The floor on a margin loss's h under ``smoothing="auto"``: does h >= 0.5 cost accuracy?

Question: ``smoothing="auto"`` picks the half-width h of a kinked loss from the Λ rule's bound
plus the smoothing's largest change of the loss (docs/privacy/user_objectives.md
#privacy-smoothing); at large n·ε the bound prefers a small h for the hinge, whose fit takes
more Newton steps. Does the floor h >= 0.5 (``PrivateHuberSVM``'s h;
``dpconvex.privacy.rules.noise_level.MARGIN_SMOOTHING_MIN``) cost accuracy?

The hinge stated in CVXPY, ``PrivateLinearClassifier(loss=Loss.from_cvxpy(lambda m:
cp.pos(1 - m)), classes=[0, 1], epsilon=ε, random_state=seed)``, on the binary tables of
``corpus.TABLES``, split seeds ``corpus.SELECTION_SEEDS`` (noise seed = split seed),
ε ∈ {0.5, 1, 2}: with the h the bound picks from the whole grid (the floor set to the
grid's smallest h for the run) and with the floor (the library's rule); test accuracy per
table averaged over the seeds, then the mean over the tables, and the change the floor makes
(mean, worst, best, tables moved by more than a point either way); the non-private fit of the
stated hinge and the majority class beside them. ``--quick``: two tables, one seed, ε = 1.
"""

from __future__ import annotations

import warnings

import corpus
import cvxpy as cp
import harness
import numpy as np

import dpconvex as dp
import dpconvex.privacy.rules.noise_level as noise_level


def hinge(m: cp.Expression) -> cp.Expression:
    """The hinge, stated in CVXPY."""
    return cp.pos(1 - m)


def main() -> None:
    args = harness.parser(__doc__).parse_args()
    names = [k for k, t in corpus.TABLES.items() if len(t.class_names) == 2]
    names = names[:2] if args.quick else names
    seeds = corpus.SELECTION_SEEDS[:1] if args.quick else corpus.SELECTION_SEEDS
    epsilons = (1.0,) if args.quick else (0.5, 1.0, 2.0)
    floor = noise_level.MARGIN_SMOOTHING_MIN
    rules = {"whole grid": float(noise_level.SMOOTHING_GRID[0]), f"h >= {floor:g} (the rule)": floor}
    with harness.Run(__file__, args) as run, warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)
        # rule -> eps -> table -> per-seed accuracy
        acc: dict[str, dict[float, dict[str, list[float]]]] = {r: {} for r in rules}
        majority: dict[str, list[float]] = {}
        exact: dict[str, list[float]] = {}
        for name in names:
            for seed in seeds:
                s = corpus.split(name, seed)
                majority.setdefault(name, []).append(
                    1.0 - harness.majority_error(s.y_train, s.y_test))
                clf = dp.PrivateLinearClassifier(loss=dp.Loss.from_cvxpy(hinge), classes=[0, 1],
                                                 mechanism="none")
                exact.setdefault(name, []).append(
                    float(clf.fit(s.X_train, s.y_train).score(s.X_test, s.y_test)))
                for eps in epsilons:
                    for rule, h_min in rules.items():
                        noise_level.MARGIN_SMOOTHING_MIN = h_min
                        clf = dp.PrivateLinearClassifier(loss=dp.Loss.from_cvxpy(hinge),
                                                         classes=[0, 1], epsilon=eps,
                                                         random_state=seed)
                        acc[rule].setdefault(eps, {}).setdefault(name, []).append(
                            float(clf.fit(s.X_train, s.y_train).score(s.X_test, s.y_test)))
                    noise_level.MARGIN_SMOOTHING_MIN = floor
        table = harness.Table(
            f"The stated hinge on {len(names)} binary tables × {len(seeds)} selection seeds: "
            "test accuracy (per-table means over the seeds; mean over the tables)",
            ["model", *(f"ε = {e:g}" for e in epsilons)])
        for rule in rules:
            table.add(f"stated hinge, h from the {rule}",
                      *(f"{np.mean([np.mean(v) for v in acc[rule][e].values()]):.4f}"
                        for e in epsilons))
        table.add(harness.NON_PRIVATE + " (the stated hinge, mechanism='none')",
                  *(f"{np.mean([np.mean(v) for v in exact.values()]):.4f}" for _ in epsilons))
        table.add(harness.MAJORITY, *(f"{np.mean([np.mean(v) for v in majority.values()]):.4f}"
                                      for _ in epsilons))
        run.table(table)
        (whole, ruled) = rules
        for e in epsilons:
            d = 100 * np.array([np.mean(acc[ruled][e][n]) - np.mean(acc[whole][e][n])
                                for n in names])
            run.note(f"ε = {e:g}: the floor's change, points: mean {d.mean():+.2f}, worst "
                     f"{d.min():+.2f}, best {d.max():+.2f}; tables up > 1 point "
                     f"{int(np.sum(d > 1))}, down > 1 point {int(np.sum(d < -1))}")


if __name__ == "__main__":
    main()
