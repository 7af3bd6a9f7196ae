"""The learner of :class:`~dpconvex.PrivateClassifier`, from public quantities only.

:func:`choose_front_door_learner` reads n rows, C classes (the public label set), d columns,
ε, δ and whether public per-feature ranges are given, and picks the learner by the lines
listed in :class:`~dpconvex.PrivateClassifier`'s docstring; no data value is read. The
multiclass switch to DP class centroids is the large-margin classifier's own
(:data:`~dpconvex.privacy.rules.large_margin.CENTROID_BELOW` (10 with δ > 0, 15 for pure ε),
:func:`~dpconvex.privacy.rules.large_margin.centroids_preferred`). The measurements behind
each threshold (the selection corpus's seeds, benchmarks/corpus_run.py):
docs/privacy/front_door.md#privacy-private-classifier, privacy-classifier-safeguard.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from ..budget import has_positive_delta
from .large_margin import CENTROID_BELOW, centroids_preferred, records_per_coordinate

__all__ = ["AUTO_VALIDATION", "BINARY_CENTROID_BELOW", "CENTROID", "CONSTANT", "GAUSSIAN_NB",
           "GD_ROWS_AT_MOST", "LARGE_MARGIN", "LINEAR", "NB_BINARY_FEATURES_AT_MOST",
           "NB_MULTICLASS_FEATURES_AT_MOST", "NOISY_GD", "SAFEGUARD_ROWS_AT_MOST", "SAFEGUARD_R_AT_LEAST",
           "UNIT_ROWS_AT_LEAST", "FrontDoorChoice", "choose_front_door_learner", "safeguard_applies",
           "safeguard_validation_rows"]

#: Learner names of the rule.
LINEAR = "Huber SVM"
CENTROID = "class centroids"
LARGE_MARGIN = "large-margin softmax"
NOISY_GD = "noisy gradient descent"
GAUSSIAN_NB = "Gaussian naive Bayes"

#: More than two classes, r = n·ε/(C(d + 1)) at or above the centroid switch and the public
#: per-feature ranges known: DP Gaussian naive Bayes up to this many features, the large-margin
#: softmax above (privacy-private-classifier, as the thresholds below).
NB_MULTICLASS_FEATURES_AT_MOST = 12
#: Two classes and the public per-feature ranges known: DP Gaussian naive Bayes up to this
#: many features, before every other binary line.
NB_BINARY_FEATURES_AT_MOST = 4
#: Two classes with δ > 0: noisy gradient descent up to this many rows, the Huber SVM above
#: (a noisy-GD fit costs up to 1,000 passes over the rows, the Huber SVM about 20).
GD_ROWS_AT_MOST = 20_000
#: Two classes, the Huber SVM: rows scaled to the norm bound (``row_norm="unit"``) with at
#: least this many features (d, public): a row's length is one of d directions of its
#: information, and the fewer they are the more the map throws away.
UNIT_ROWS_AT_LEAST = 8
#: What :class:`~dpconvex.PrivateClassifier` releases when its safeguard selects a constant
#: class (docs/privacy/front_door.md#privacy-classifier-safeguard).
CONSTANT = "constant class"

#: ``safeguard="auto"``: on up to this many rows (privacy-classifier-safeguard); above, the
#: learner keeps every row and the front door copies no row of X for the parts.
SAFEGUARD_ROWS_AT_MOST = 100_000

#: ``safeguard="auto"``: on only where r = n·ε/(C(d + 1)) is at least this
#: (privacy-classifier-safeguard): below it the learner is dominated by its noise and every
#: row it gives up to the validation part costs it accuracy.
SAFEGUARD_R_AT_LEAST = 5.0

#: Two classes with pure ε: DP class centroids while r = n·ε/(C(d + 1)) is below this, the
#: Huber SVM from it (privacy-private-classifier). It is :data:`SAFEGUARD_R_AT_LEAST`: below
#: it ``safeguard="auto"`` is off, and the centroids, whose priors come from the noisy
#: counts, fall back to the majority class by themselves.
BINARY_CENTROID_BELOW = SAFEGUARD_R_AT_LEAST


def safeguard_applies(n: int, n_classes: int, n_features: int, epsilon: float,
                      safeguard: bool | str, learner: str | None = None) -> bool:
    """Whether the front door's safeguard runs (public: n, C, d, ε, the rule's learner and the
    parameter only).

    ``"auto"``: n at most :data:`SAFEGUARD_ROWS_AT_MOST`, r = n·ε/(C(d + 1)) at least
    :data:`SAFEGUARD_R_AT_LEAST` and the learner not Gaussian naive Bayes (it falls back to the
    majority class by itself: privacy-classifier-safeguard); a bool is taken as given.

    Examples
    --------
    >>> from dpconvex.privacy.rules.front_door import GAUSSIAN_NB, safeguard_applies
    >>> safeguard_applies(5000, 2, 10, 1.0, "auto"), safeguard_applies(10**6, 2, 10, 1.0, "auto")
    (True, False)
    >>> safeguard_applies(1257, 10, 64, 1.0, "auto"), safeguard_applies(1257, 10, 64, 1.0, True)
    (False, True)
    >>> safeguard_applies(5000, 4, 9, 1.0, "auto", learner=GAUSSIAN_NB)
    False
    """
    if isinstance(safeguard, str):  # "auto"
        return (int(n) <= SAFEGUARD_ROWS_AT_MOST and learner != GAUSSIAN_NB
                and records_per_coordinate(n, n_classes, n_features, epsilon)
                >= SAFEGUARD_R_AT_LEAST)
    return bool(safeguard)


#: ``validation_fraction="auto"`` of the safeguard (privacy-classifier-safeguard): (share,
#: cap, floor share): ⌈0.2 n⌉ validation rows up to 600, and never fewer than ⌈0.1 n⌉.
AUTO_VALIDATION = (0.2, 600, 0.1)


def safeguard_validation_rows(n: int, validation_fraction: float | str,
                              auto: tuple[float, int, float] = AUTO_VALIDATION) -> int:
    """Rows of the safeguard's validation part for n rows (public: n and the parameter only).

    ``auto``: (share, cap, floor share) of ``"auto"``, the front door's or the regressor's
    (:data:`~dpconvex.privacy.rules.front_door_regression.VALIDATION`).

    Examples
    --------
    >>> from dpconvex.privacy.rules.front_door import safeguard_validation_rows
    >>> from dpconvex.privacy.rules.front_door_regression import VALIDATION
    >>> [safeguard_validation_rows(n, "auto") for n in (500, 3000, 5000, 20000)]
    [100, 600, 600, 2000]
    >>> safeguard_validation_rows(500, 0.3), safeguard_validation_rows(5000, "auto", VALIDATION)
    (150, 1000)
    """
    if isinstance(validation_fraction, str):  # "auto"
        share, cap, floor = auto
        return max(math.ceil(floor * n), min(math.ceil(share * n), cap))
    return math.ceil(float(validation_fraction) * n)


class FrontDoorChoice(NamedTuple):
    """The learner :func:`choose_front_door_learner` picked and the certificate's line on why.

    Examples
    --------
    >>> from dpconvex.privacy.rules.front_door import FrontDoorChoice, choose_front_door_learner
    >>> choice = choose_front_door_learner(1257, 10, 64, 1.0, 1e-6)
    >>> isinstance(choice, FrontDoorChoice), choice.learner
    (True, 'class centroids')
    """

    learner: str
    reason: str
    #: ``row_norm`` of the learner ("unit" for the Huber SVM with d >= :data:`UNIT_ROWS_AT_LEAST`)
    row_norm: str = "none"


def choose_front_door_learner(n: int, n_classes: int, n_features: int, epsilon: float,
                              delta: float | None, row_norm: str = "auto",
                              ranges_known: bool = False) -> FrontDoorChoice:
    """The learner for n rows, C classes, d features, ε and δ (the module's rule; public only).

    δ 0 or None is pure ε-DP; ``row_norm="auto"`` scales the Huber SVM's rows to the norm
    bound from d >= :data:`UNIT_ROWS_AT_LEAST` ("none": every learner's rows as given);
    Gaussian naive Bayes is chosen only when ``ranges_known`` (public per-feature ranges).

    Examples
    --------
    >>> choose_front_door_learner(30000, 2, 104, 1.0, 0.0)[::2]
    ('Huber SVM', 'unit')
    >>> choose_front_door_learner(30000, 2, 6, 0.1, 0.0)[::2]
    ('Huber SVM', 'none')
    >>> choose_front_door_learner(200, 2, 24, 1.0, 0.0).learner   # r = 4 < 5
    'class centroids'
    >>> choose_front_door_learner(3000, 2, 10, 1.0, 1e-7).learner
    'noisy gradient descent'
    >>> choose_front_door_learner(1257, 10, 64, 1.0, 1e-6).learner
    'class centroids'
    >>> choose_front_door_learner(50000, 5, 20, 1.0, 0.0).learner
    'large-margin softmax'
    >>> choose_front_door_learner(20000, 6, 3, 1.0, 0.0, ranges_known=True).learner
    'Gaussian naive Bayes'
    >>> choose_front_door_learner(900, 2, 2, 1.0, 1e-6, ranges_known=True).learner
    'Gaussian naive Bayes'
    """
    approx = has_positive_delta(delta)
    privacy = "(epsilon, delta)-DP" if approx else "pure epsilon-DP"
    C, d = int(n_classes), int(n_features)
    ranges = "n, C, d, epsilon, delta and whether the ranges are given"
    if ranges_known and C <= 2 and d <= NB_BINARY_FEATURES_AT_MOST:
        return _chosen(GAUSSIAN_NB, f"C = {C} classes, d = {d} <= {NB_BINARY_FEATURES_AT_MOST} "
                       f"features and public per-feature ranges -> DP Gaussian naive Bayes "
                       f"({privacy})", ranges)
    if C <= 2 and approx and int(n) <= GD_ROWS_AT_MOST:
        return _chosen(NOISY_GD, f"C = {C} classes, delta > 0 and n = {int(n)} <= "
                       f"{GD_ROWS_AT_MOST} -> noisy gradient descent on the logistic loss with "
                       f"an intercept ({privacy})", "n, C, epsilon and delta")
    r = records_per_coordinate(n, n_classes, n_features, epsilon)
    if C <= 2 and not approx and r < BINARY_CENTROID_BELOW:
        return _chosen(CENTROID, f"C = {C} classes, {privacy} and n epsilon / (C (d + 1)) = "
                       f"{r:.4g} < {BINARY_CENTROID_BELOW:g} -> DP class centroids with priors "
                       "from the noisy counts")
    if C <= 2:
        unit = row_norm == "auto" and d >= UNIT_ROWS_AT_LEAST
        if row_norm != "auto":
            rows = f"rows clipped only (row_norm={row_norm!r})"
        elif unit:
            rows = f"rows scaled to the norm bound (d = {d} >= {UNIT_ROWS_AT_LEAST})"
        else:
            rows = f"rows clipped only (d = {d} < {UNIT_ROWS_AT_LEAST})"
        return _chosen(LINEAR, f"C = {C} classes -> the Huber SVM with an intercept, objective "
                       f"perturbation ({privacy}), {rows}", row_norm="unit" if unit else "none")
    below = CENTROID_BELOW[approx]
    shape = f"C = {C} classes and n epsilon / (C (d + 1)) = {r:.4g} {'<' if r < below else '>='} {below:g}"
    if centroids_preferred(n, n_classes, n_features, epsilon, delta):
        return _chosen(CENTROID, f"{shape} -> DP class centroids with priors from the noisy "
                       f"counts ({privacy})")
    if ranges_known and d <= NB_MULTICLASS_FEATURES_AT_MOST:
        return _chosen(GAUSSIAN_NB, f"{shape}, d = {d} <= {NB_MULTICLASS_FEATURES_AT_MOST} "
                       f"features and public per-feature ranges -> DP Gaussian naive Bayes "
                       f"({privacy})", ranges)
    return _chosen(LARGE_MARGIN, f"{shape} -> the large-margin Gaussian classifier with the "
                   f"softmax loss ({privacy})")


def _chosen(learner: str, why: str, reads: str = "n, C, d, epsilon and delta",
            row_norm: str = "none") -> FrontDoorChoice:
    """The choice with its certificate line: ``why`` and what the rule read."""
    return FrontDoorChoice(learner, f"PrivateClassifier: {why}: the front door's rule "
                           f"(docs/privacy/front_door.md#privacy-private-classifier; {reads} only)",
                           row_norm)
