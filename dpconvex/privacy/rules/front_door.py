"""The learners of :class:`~dpconvex.PrivateClassifier` and :class:`~dpconvex.PrivateRegressor`,
and their safeguards' part sizes, from public quantities only.

:func:`choose_front_door_learner` reads n rows, C classes (the public label set), d columns,
ε, δ and whether public per-feature ranges are given, and picks the learner by the lines
listed in :class:`~dpconvex.PrivateClassifier`'s docstring; no data value is read. The
multiclass switch to DP class centroids is the large-margin classifier's own
(:data:`~dpconvex.privacy.rules.large_margin.CENTROID_BELOW` (10 with δ > 0, 15 for pure ε),
:func:`~dpconvex.privacy.rules.large_margin.centroids_preferred`). The measurements behind
each threshold (the selection corpus's seeds, benchmarks/corpus_run.py):
docs/privacy/front_door.md#privacy-private-classifier, privacy-classifier-safeguard.

:func:`choose_regression_learner` (docs/privacy/front_door_regression.md#privacy-regressor-rule),
with r = n·ε/(d + 1): below :data:`MEAN_BELOW` the private mean of the labels
(privacy-private-mean); otherwise the smoothed median regression with an intercept, objective
perturbation, its Gaussian form where δ > 0 and n >= :data:`GAUSSIAN_ROWS_AT_LEAST`. Its safeguard
(privacy-regressor-safeguard), where n <= :data:`SAFEGUARD_ROWS_AT_MOST`: the private mean with a share of ε
(:func:`mean_epsilon`), then the learner on a fitting part and the exponential mechanism over {the model, the
mean} on a validation part, the model's utility lowered by a public handicap (:func:`selection_handicap`). Its
constants were chosen on the regression corpus's selection seeds (docs/privacy/front_door_regression.md).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..._validation import check_float, check_int
from ...errors import DataValidationError
from .large_margin import CENTROID_BELOW, centroids_preferred, records_per_coordinate

__all__ = ["AUTO_VALIDATION", "BINARY_CENTROID_BELOW", "CENTROID", "CONSTANT", "DELTA_UNUSED",
           "GAUSSIAN_NB", "GAUSSIAN_ROWS_AT_LEAST", "GD_ROWS_AT_MOST", "HANDICAP_LEVEL",
           "HUBER_INTERCEPT_SCALING", "LARGE_MARGIN", "LINEAR", "MEAN_BELOW", "MEAN_RECORDS",
           "MEAN_SHARE", "MEAN_WARNING_RECORDS", "MEDIAN", "MODEL_HANDICAP",
           "NB_BINARY_FEATURES_AT_MOST", "NB_MULTICLASS_FEATURES_AT_MOST",
           "NB_MULTICLASS_ROWS_PER_CLASS_AT_LEAST", "NOISY_GD", "PRIVATE_MEAN",
           "REGRESSION_VALIDATION", "RESIDUAL_CLIP", "SAFEGUARD_ROWS_AT_MOST", "SELECTION_SHARE",
           "SAFEGUARD_GAP", "SAFEGUARD_WARNING_LEVEL", "SELECTION_TAIL", "UNIT_ROWS_AT_LEAST",
           "FrontDoorChoice", "RegressionChoice", "choose_front_door_learner",
           "choose_regression_learner", "delta_buys", "delta_spent", "front_door_rule",
           "mean_epsilon", "regression_rule", "safeguard_blind",
           "safeguard_applies", "safeguard_sizes", "selection_error_bound", "selection_handicap"]

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
#: More than two classes: DP Gaussian naive Bayes (the line above) only with at least this many
#: rows per class, n / C (public): its per-class variances are noised with each class's rows,
#: and below this the softmax or the centroids led it on the selection corpus.
NB_MULTICLASS_ROWS_PER_CLASS_AT_LEAST = 500
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

#: ``safeguard="auto"`` of either front door: on up to this many rows, for every learner the rule
#: can choose (privacy-classifier-safeguard, privacy-regressor-safeguard). Above, the learner
#: keeps all of ε and every row: the classifier's selection would cost it ``SELECTION_SHARE``
#: of ε and a pass over the rows, and the regressor's validation part would be a copy of
#: ⌈0.1 n⌉ >= 10,000 rows, held in memory beside a table of 10⁵ rows or more, which may be out
#: of core (a Dask collection).
SAFEGUARD_ROWS_AT_MOST = 100_000

#: Two classes with pure ε: DP class centroids while r = n·ε/(C(d + 1)) is below this, the
#: Huber SVM from it (privacy-private-classifier).
BINARY_CENTROID_BELOW = 5.0


def safeguard_applies(n: int, safeguard: bool | str) -> bool:
    """Whether the front door's safeguard runs (public: n and the parameter only).

    ``"auto"``: n at most :data:`SAFEGUARD_ROWS_AT_MOST`, whatever the learner, C, d and ε
    (privacy-classifier-safeguard, privacy-regressor-safeguard: no learner falls back to the
    majority class or the mean by itself); a bool is taken as given.

    Parameters
    ----------
    n : int
        The number of rows.
    safeguard : bool or "auto"
        The estimator's parameter.

    Returns
    -------
    bool

    Examples
    --------
    >>> from dpconvex.privacy.rules.front_door import safeguard_applies
    >>> safeguard_applies(5000, "auto"), safeguard_applies(10**6, "auto")
    (True, False)
    >>> safeguard_applies(10**6, True), safeguard_applies(1257, False)
    (True, False)
    """
    if isinstance(safeguard, str):  # "auto"
        return int(n) <= SAFEGUARD_ROWS_AT_MOST
    return bool(safeguard)


#: The tail mass of K, the validation rows where two candidates disagree, left out of the sum
#: of :func:`selection_error_bound` on each side (and added to the bound).
SELECTION_TAIL = 1e-15


def selection_error_bound(n_val: int, epsilon: float, worse: float, better: float) -> float:
    """An upper bound on the probability that the safeguard's selection releases a candidate
    over a reference candidate (e.g. a model over the majority class), computed exactly
    (privacy-classifier-safeguard-power).

    On a validation row drawn from the data's law, independently of the candidate (fitted on
    the other part), the candidate errs where the reference does not with probability
    ``worse`` and the other way round with probability ``better``; Δ, the candidate's mistakes
    minus the reference's on the n_val rows, is then a sum of n_val independent steps +1, −1,
    0. The exponential mechanism (utilities minus the mistakes, sensitivity 1) selects the
    candidate with probability at most 1 / (1 + exp(ε Δ / 2)) given Δ (the reference alone in
    the denominator), so the bound is E[1 / (1 + exp(ε Δ / 2))], summed over K, the rows where
    the two disagree (binomial), and the candidate's share of them (binomial), with the two
    tails of K beyond :data:`SELECTION_TAIL` counted as 1. It reads n_val, ε and the two
    probabilities only; a candidate with ``worse - better`` = 0.02 is 2 points below the reference.

    Parameters
    ----------
    n_val : int
        The number of validation rows.
    epsilon : float
        ε of the selection.
    worse : float
        P(the candidate errs where the reference does not).
    better : float
        P(the reference errs where the candidate does not).

    Returns
    -------
    float
        The bound on the probability that the candidate is released.

    Raises
    ------
    DataValidationError
        ``worse + better`` above 1.

    References
    ----------
    [MT07]_ (the exponential mechanism).

    Examples
    --------
    >>> from dpconvex.privacy.rules.front_door import selection_error_bound
    >>> selection_error_bound(600, 1.0, 0.05, 0.0) < 1e-5      # 5 points, no row better
    True
    >>> bound = selection_error_bound(600, 1.0, 0.16, 0.14)     # 2 points, many disagreements
    >>> 0.05 < bound < 0.2
    True
    >>> selection_error_bound(600, 1.0, 0.1, 0.1) > 0.4         # no worse: chosen near half the time
    True
    """
    from scipy.stats import binom

    check_int("n_val", n_val, "selection_error_bound", low=1)
    check_float("epsilon", epsilon, "selection_error_bound")
    for name, value in (("worse", worse), ("better", better)):
        check_float(name, value, "selection_error_bound", low_inclusive=True, high=1.0,
                    high_inclusive=True)
    disagree = float(worse) + float(better)
    if disagree > 1.0:
        raise DataValidationError(f"selection_error_bound: worse + better = {disagree:g} > 1; "
                                  "give the probabilities of two disjoint events of one row.")
    if disagree == 0.0:  # the candidates agree on every row: Δ = 0
        return 0.5
    n_val = int(n_val)
    lo = int(binom.ppf(SELECTION_TAIL, n_val, disagree))
    hi = int(binom.isf(SELECTION_TAIL, n_val, disagree))
    total = 2.0 * SELECTION_TAIL
    share = float(worse) / disagree
    for k in range(lo, hi + 1):
        j = np.arange(k + 1)  # the candidate's mistakes among the k rows: Δ = 2 j - k
        chosen = 0.5 * (1.0 - np.tanh(float(epsilon) * (2 * j - k) / 4.0))  # 1/(1 + e^(εΔ/2))
        total += float(binom.pmf(k, n_val, disagree) * np.dot(binom.pmf(j, k, share), chosen))
    return min(1.0, total)


#: The share s of ε the classifier's safeguard spends on its selection
#: (``PrivateClassifier(selection_share=...)``; the learner spends (1 − s) ε), chosen on the
#: classification corpus's selection seeds (privacy-classifier-safeguard-share).
SELECTION_SHARE = 0.15

#: The classifier's safeguard counts the model's mistakes with MODEL_HANDICAP · n added (a
#: public base measure: fixed before the data, it moves no sensitivity), so a model must beat
#: the best constant class by half a point of the rows it was fitted on to be preferred; chosen
#: with :data:`SELECTION_SHARE` (privacy-classifier-safeguard-share).
MODEL_HANDICAP = 0.005


#: A model this far below the best constant class (a share of the rows: 2 points) is "clearly
#: below" it for :func:`safeguard_blind` (privacy-classifier-safeguard-blind).
SAFEGUARD_GAP = 0.02

#: :func:`safeguard_blind` is true where the selection can release a model
#: :data:`SAFEGUARD_GAP` below the best constant with a probability above this
#: (privacy-classifier-safeguard-blind).
SAFEGUARD_WARNING_LEVEL = 0.25


def safeguard_blind(n: int, epsilon: float, share: float = SELECTION_SHARE,
                    gap: float = SAFEGUARD_GAP, handicap: float = MODEL_HANDICAP
                    ) -> tuple[bool, float]:
    """Whether the classifier's safeguard cannot tell a model ``gap`` below the best constant
    class from it, and the largest probability that its selection releases such a model
    (privacy-classifier-safeguard-blind; public: n, ε, s, the gap and h only).

    The selection (ε_2 = s ε) draws the model with probability
    1 / (1 + exp(ε_2 (g + h) n / 2) S), S = Σ_c exp(−ε_2 (z_c − z*) / 2) over the C constant
    classes, z* the best constant's mistakes: S is in [1, C] and depends on the labels, so
    over every label law the probability is at most P = 1 / (1 + exp(ε_2 (g + h) n / 2)),
    approached as the other constants' mistakes grow. True where P is above
    :data:`SAFEGUARD_WARNING_LEVEL`.

    Parameters
    ----------
    n : int
        The number of rows (the selection counts mistakes on all of them).
    epsilon : float
        The front door's ε.
    share : float, default=SELECTION_SHARE
        s, the selection's share of ε.
    gap : float, default=SAFEGUARD_GAP
        g, how far the model's mistakes exceed the best constant's, as a share of the rows.
    handicap : float, default=MODEL_HANDICAP
        h, the model's public handicap per row.

    Returns
    -------
    tuple of (bool, float)
        Whether P is above the level, and P.

    References
    ----------
    [MT07]_ (the exponential mechanism).

    Examples
    --------
    >>> from dpconvex.privacy.rules.front_door import safeguard_blind
    >>> blind, p = safeguard_blind(398, 0.1)        # breast cancer's training rows
    >>> blind, round(p, 2)
    (True, 0.48)
    >>> safeguard_blind(10_000, 1.0)[0]
    False
    """
    check_int("n", n, "safeguard_blind", low=1)
    check_float("epsilon", epsilon, "safeguard_blind")
    exponent = float(share) * float(epsilon) * (float(gap) + float(handicap)) * int(n) / 2.0
    p = 0.5 * (1.0 - math.tanh(exponent / 2.0))  # 1 / (1 + e^exponent), without overflow
    return p > SAFEGUARD_WARNING_LEVEL, p

#: The default ``auto`` of :func:`safeguard_sizes` (the regressor passes
#: :data:`REGRESSION_VALIDATION`): (share, cap, floor share): ⌈0.2 n⌉ validation rows up to
#: 600, and never fewer than ⌈0.1 n⌉.
AUTO_VALIDATION = (0.2, 600, 0.1)


def safeguard_sizes(n: int, validation_fraction: float | str, caller: str,
                    auto: tuple[float, int, float] = AUTO_VALIDATION) -> tuple[int, int]:
    """(fitting rows, validation rows) of the safeguard for n rows (public: n and the parameter).

    ⌈fraction · n⌉ rows validate, or for ``"auto"`` max(⌈floor · n⌉, min(⌈share · n⌉, cap))
    with ``auto`` = (share, cap, floor), the front door's or the regressor's
    (:data:`REGRESSION_VALIDATION`). ``caller``: the public call ("PrivateClassifier.fit").

    Parameters
    ----------
    n : int
        The number of rows.
    validation_fraction : float or "auto"
        The share of rows that validate.
    caller : str
        The public call, opening a refusal.
    auto : tuple of (float, int, float), default=AUTO_VALIDATION
        (share, cap, floor) of ``"auto"``.

    Returns
    -------
    tuple of int
        (fitting rows, validation rows).

    Raises
    ------
    DataValidationError
        Fewer than 2 fitting rows or no validation row.

    Examples
    --------
    >>> from dpconvex.privacy.rules.front_door import REGRESSION_VALIDATION, safeguard_sizes
    >>> [safeguard_sizes(n, "auto", "Demo")[1] for n in (500, 3000, 5000, 20000)]
    [100, 600, 600, 2000]
    >>> safeguard_sizes(500, 0.3, "Demo"), safeguard_sizes(5000, "auto", "Demo", REGRESSION_VALIDATION)
    ((350, 150), (4000, 1000))
    """
    n = int(n)
    if isinstance(validation_fraction, str):  # "auto"
        share, cap, floor = auto
        n_val = max(math.ceil(floor * n), min(math.ceil(share * n), cap))
    else:
        n_val = math.ceil(float(validation_fraction) * n)
    if n_val < 1 or n - n_val < 2:
        raise DataValidationError(
            f"{caller}: n_samples = {n} rows cannot be split into a fitting part of at least 2 "
            "rows and "
            f"a validation part of at least 1 (validation_fraction = {validation_fraction!r}). "
            "Use more "
            "rows, another validation_fraction, or safeguard=False."
        )
    return n - n_val, n_val


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
    #: δ > 0 was given but buys nothing (:func:`delta_buys`): the rule and fit of δ = 0.
    delta_unused: bool = False


#: The Huber SVM's ``intercept_scaling`` s: its rows' norm bound is √(data_norm² + s²).
HUBER_INTERCEPT_SCALING = 0.25


def delta_buys(
    n: int, n_features: int, epsilon: float, delta: float, data_norm: float = 1.0
) -> bool:
    """Whether δ > 0 buys a two-class front door anything: whether the Huber SVM's
    ``mechanism="auto"`` takes its Gaussian form, the lower Λ-rule bound on the public problem
    (n, d, ε, δ, the row bound; :func:`~dpconvex.privacy.rules.noise_level.form_bounds`,
    docs/privacy/front_door.md#privacy-mechanism-auto).

    Parameters
    ----------
    n : int
        The number of rows.
    n_features : int
        d.
    epsilon, delta : float
        ε and δ of the fit.
    data_norm : float, default=1.0
        The rows' norm bound.

    Returns
    -------
    bool

    Examples
    --------
    >>> from dpconvex.privacy.rules.front_door import delta_buys
    >>> delta_buys(3000, 6, 1.0, 1e-7), delta_buys(3000, 40, 1.0, 1e-7)
    (False, True)
    """
    from ...objectives.losses import HuberHinge
    from ..budget import Budget
    from .noise_level import form_bounds

    q = math.hypot(float(data_norm), HUBER_INTERCEPT_SCALING)
    forms = [("gaussian_objective", Budget(epsilon, delta)), ("objective", Budget(epsilon))]
    gaussian, pure = form_bounds("auto", forms, n, q, int(n_features) + 1, HuberHinge())
    return gaussian <= pure


def delta_spent(n: int, n_classes: int, n_features: int, epsilon: float, delta: float,
                data_norm: float = 1.0) -> bool:
    """Whether the rule spends a δ > 0 on (n, C, d, ε): with more than two classes always (every
    multiclass learner takes δ), with two where it buys the Huber SVM its Gaussian form
    (:func:`delta_buys`); else the rule and fit are those of δ = 0 (public facts only).

    Parameters
    ----------
    n : int
        The number of rows.
    n_classes : int
        C, the number of classes.
    n_features : int
        d, the number of features.
    epsilon : float
        ε of the fit.
    delta : float
        δ of the fit.
    data_norm : float, default=1.0
        The rows' norm bound.

    Returns
    -------
    bool

    Examples
    --------
    >>> from dpconvex.privacy.rules.front_door import delta_spent
    >>> delta_spent(3000, 2, 6, 1.0, 1e-7), delta_spent(3000, 5, 6, 1.0, 1e-7)
    (False, True)
    """
    return int(n_classes) > 2 or delta_buys(n, n_features, epsilon, delta, data_norm)


def choose_front_door_learner(n: int, n_classes: int, n_features: int, epsilon: float,
                              delta: float | None, row_norm: str = "auto",
                              ranges_known: bool = False,
                              data_norm: float = 1.0) -> FrontDoorChoice:
    """The learner for n rows, C classes, d features, ε and δ (the module's rule; public only).

    δ 0 or None is pure ε-DP; with two classes δ > 0 is used only where it buys the Huber SVM its Gaussian
    form (:func:`delta_buys`, with the rows' ``data_norm``), else the rule and the fit are those of δ = 0
    (``delta_unused``); ``row_norm="auto"`` scales the Huber SVM's rows to the norm bound from d >=
    :data:`UNIT_ROWS_AT_LEAST` ("none": every learner's rows as given); Gaussian naive Bayes is chosen only
    when ``ranges_known`` (public per-feature ranges), with more than two classes only from
    :data:`NB_MULTICLASS_ROWS_PER_CLASS_AT_LEAST` rows per class (n / C).

    Parameters
    ----------
    n : int
        The number of rows.
    n_classes : int
        C, the number of classes.
    n_features : int
        d, the number of features.
    epsilon : float
        ε of the fit.
    delta : float or None
        δ of the fit (0 or None: pure ε-DP).
    row_norm : {"auto", "none"}, default="auto"
        Whether the Huber SVM's rows are scaled to the norm bound.
    ranges_known : bool, default=False
        Public per-feature ranges are given (Gaussian naive Bayes may be chosen).
    data_norm : float, default=1.0
        The rows' norm bound.

    Returns
    -------
    FrontDoorChoice

    Examples
    --------
    >>> choose_front_door_learner(30000, 2, 104, 1.0, 0.0)[::2]
    ('Huber SVM', 'unit')
    >>> choose_front_door_learner(30000, 2, 6, 0.1, 0.0)[::2]
    ('Huber SVM', 'none')
    >>> choose_front_door_learner(200, 2, 24, 1.0, 0.0).learner   # r = 4 < 5
    'class centroids'
    >>> choose_front_door_learner(3000, 2, 30, 1.0, 1e-7).learner
    'noisy gradient descent'
    >>> choose_front_door_learner(3000, 2, 6, 1.0, 1e-7)[::3]   # delta buys nothing here
    ('Huber SVM', True)
    >>> choose_front_door_learner(1257, 10, 64, 1.0, 1e-6).learner
    'class centroids'
    >>> choose_front_door_learner(50000, 5, 20, 1.0, 0.0).learner
    'large-margin softmax'
    >>> choose_front_door_learner(20000, 6, 3, 1.0, 0.0, ranges_known=True).learner
    'Gaussian naive Bayes'
    >>> choose_front_door_learner(1260, 5, 4, 1.0, 0.0, ranges_known=True).learner  # n / C < 500
    'large-margin softmax'
    >>> choose_front_door_learner(900, 2, 2, 1.0, 1e-6, ranges_known=True).learner
    'Gaussian naive Bayes'
    """
    for name, value in (("n", n), ("n_classes", n_classes), ("n_features", n_features)):
        check_int(name, value, "choose_front_door_learner", high=10**300)  # (float(n) holds it)
    check_float("epsilon", epsilon, "choose_front_door_learner", allow_inf=True)
    if delta is not None:
        check_float("delta", delta, "choose_front_door_learner", low_inclusive=True, high=1.0)
    return front_door_rule(n, n_classes, n_features, epsilon, float(delta or 0.0), row_norm,
                           ranges_known, data_norm)


def front_door_rule(n: int, n_classes: int, n_features: int, epsilon: float, delta: float,
                    row_norm: str = "auto", ranges_known: bool = False,
                    data_norm: float = 1.0) -> FrontDoorChoice:
    """:func:`choose_front_door_learner` on facts its caller checked: n, C and d positive
    integers (a fit's public shape), ε > 0 and δ in [0, 1) (an estimator's validated
    parameters).

    Parameters
    ----------
    n, n_classes, n_features, epsilon, delta, row_norm, ranges_known, data_norm
        As for :func:`choose_front_door_learner`, checked by the caller.

    Returns
    -------
    FrontDoorChoice

    Examples
    --------
    >>> from dpconvex.privacy.rules.front_door import front_door_rule
    >>> front_door_rule(30000, 2, 104, 1.0, 0.0)[::2]
    ('Huber SVM', 'unit')
    """
    approx = delta > 0
    if approx and not delta_spent(n, n_classes, n_features, epsilon, delta, data_norm):
        choice = front_door_rule(n, n_classes, n_features, epsilon, 0.0, row_norm, ranges_known)
        return choice._replace(reason=f"{choice.reason}; {DELTA_UNUSED}", delta_unused=True)
    privacy = "(epsilon, delta)-DP" if approx else "pure epsilon-DP"
    C, d = int(n_classes), int(n_features)
    ranges = "n, C, d, epsilon, delta and whether the ranges are given"
    if ranges_known and C <= 2 and d <= NB_BINARY_FEATURES_AT_MOST:
        return _chosen(GAUSSIAN_NB, f"C = {C} classes, d = {d} <= {NB_BINARY_FEATURES_AT_MOST} "
                       f"features and public per-feature ranges -> DP Gaussian naive Bayes "
                       f"({privacy})", ranges)
    if C <= 2 and approx and int(n) <= GD_ROWS_AT_MOST:
        return _chosen(NOISY_GD, f"C = {C} classes, delta > 0 (it buys the Huber SVM its "
                       f"Gaussian form at d = {d}) and n = {int(n)} <= {GD_ROWS_AT_MOST} -> noisy "
                       f"gradient descent on the logistic loss with an intercept ({privacy})",
                       "n, C, d, epsilon, delta and data_norm")
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
    per_class = int(n) / C
    if (
        ranges_known
        and d <= NB_MULTICLASS_FEATURES_AT_MOST
        and per_class >= NB_MULTICLASS_ROWS_PER_CLASS_AT_LEAST
    ):
        return _chosen(GAUSSIAN_NB, f"{shape}, d = {d} <= {NB_MULTICLASS_FEATURES_AT_MOST} "
                       f"features, n / C = {per_class:.4g} >= "
                       f"{NB_MULTICLASS_ROWS_PER_CLASS_AT_LEAST} rows per class and public "
                       f"per-feature ranges -> DP Gaussian naive Bayes ({privacy})", ranges)
    return _chosen(LARGE_MARGIN, f"{shape} -> the large-margin Gaussian classifier with the "
                   f"softmax loss ({privacy})")


#: The certificate's line when δ > 0 is given but a two-class fit spends none (public).
DELTA_UNUSED = ("delta > 0 is unused: the Huber SVM's pure form has the lower Lambda-rule "
                "bound here, so the rule, learner and guarantee are those of delta = 0 "
                "(docs/privacy/front_door.md#privacy-private-classifier)")


def _chosen(learner: str, why: str, reads: str = "n, C, d, epsilon and delta",
            row_norm: str = "none") -> FrontDoorChoice:
    """The choice with its certificate line: ``why`` and what the rule read."""
    return FrontDoorChoice(
        learner,
        f"PrivateClassifier: {why}: the front door's rule "
        f"(docs/privacy/front_door.md#privacy-private-classifier; {reads} only)",
        row_norm,
    )


# ------------------------------------------------------------------------- regression
#: Learner names of the regression rule.
MEDIAN = "median regression"
PRIVATE_MEAN = "constant (private mean)"

#: r = n·ε/(d + 1) below this: the private mean. The measurements behind these constants:
#: docs/privacy/front_door_regression.md#privacy-regressor-rule, privacy-regressor-safeguard.
MEAN_BELOW = 25.0
#: δ > 0: the Gaussian objective perturbation from this many rows (pure ε below: at δ = 1/n²
#: its noise is the larger on small tables).
GAUSSIAN_ROWS_AT_LEAST = 5_000
#: The private mean's share of ε: n·ε_c = MEAN_RECORDS, kept between (floor, ceiling) · ε
#: (labels may spread over a thirtieth of their documented range, e.g. log hours worked over
#: [0, log 8,784]: sd 0.28 of 9.09).
MEAN_RECORDS = 1500.0
MEAN_SHARE = (0.05, 0.5)
#: n·ε of the private mean below this: a warning. Its Laplace noise L (scale s = 2/(n ε) on
#: the unit label scale) costs E[L²]/sd² = 2 s²/sd² of R² on labels of sd = 2/30 (a thirtieth
#: of label_range, as for MEAN_RECORDS): more than 0.005 where n ε < 30·√(2/0.005) = 600.
MEAN_WARNING_RECORDS = 600.0
#: The selection releases a model no better than the mean with probability at most this.
HANDICAP_LEVEL = 0.05
#: κ: the selection's residuals on the unit label scale are clipped at κ, and each record's
#: term is min(1, (residual/κ)²), so the utility's sensitivity stays 1 while its scale grows
#: by (2/κ)² over unclipped residuals of the range [−1, 1].
RESIDUAL_CLIP = 0.5
#: ``validation_fraction="auto"`` of the regressor's safeguard: (share, cap, floor share).
REGRESSION_VALIDATION = (0.2, 2_000, 0.1)


class RegressionChoice(NamedTuple):
    """The learner :func:`choose_regression_learner` picked, its mechanism, the reason,
    whether the safeguard runs and whether a δ > 0 would change the mechanism.

    Examples
    --------
    >>> from dpconvex.privacy.rules.front_door import choose_regression_learner
    >>> choice = choose_regression_learner(20000, 10, 1.0, 0.0)
    >>> choice.learner, choice.mechanism, choice.safeguard
    ('median regression', 'objective', True)
    """

    learner: str
    mechanism: str
    reason: str
    safeguard: bool = False
    #: δ is 0 and a δ > 0 would give the learner its Gaussian mechanism (n >=
    #: :data:`GAUSSIAN_ROWS_AT_LEAST`): public facts, for the remedy of a warning.
    delta_helps: bool = False


def choose_regression_learner(n: int, n_features: int, epsilon: float, delta: float | None,
                              safeguard: bool | str = "auto") -> RegressionChoice:
    """The learner for n rows, d features, ε and δ, and whether the safeguard runs (the
    module's rule; public only): :func:`regression_rule` on the facts, checked first.

    The safeguard: ``"auto"`` for a model on at most :data:`SAFEGUARD_ROWS_AT_MOST` rows; a
    bool as given; never for the constant, which is the safeguard's fallback.

    Parameters
    ----------
    n : int
        The number of rows.
    n_features : int
        d.
    epsilon : float
        ε of the fit.
    delta : float or None
        δ of the fit.
    safeguard : bool or "auto", default="auto"
        The estimator's parameter.

    Returns
    -------
    RegressionChoice

    Raises
    ------
    ParameterError
        n or d is not a positive integer, ε not positive, or δ not in [0, 1).

    Examples
    --------
    >>> from dpconvex.privacy.rules.front_door import choose_regression_learner
    >>> choose_regression_learner(300, 13, 0.5, 0.0).learner
    'constant (private mean)'
    >>> choose_regression_learner(30000, 20, 1.0, 1e-9).mechanism
    'gaussian_objective'
    >>> choose_regression_learner(10**6, 20, 1.0, 0.0).safeguard
    False
    """
    for name, value in (("n", n), ("n_features", n_features)):
        check_int(name, value, "choose_regression_learner", high=10**300)  # (float(n) holds it)
    check_float("epsilon", epsilon, "choose_regression_learner", allow_inf=True)
    if delta is not None:
        check_float("delta", delta, "choose_regression_learner", low_inclusive=True, high=1.0)
    return regression_rule(int(n), int(n_features), float(epsilon), float(delta or 0.0),
                           safeguard)


def regression_rule(n: int, n_features: int, epsilon: float, delta: float,
                    safeguard: bool | str) -> RegressionChoice:
    """:func:`choose_regression_learner` on facts its caller checked: n and d positive
    integers (a fit's public shape), ε > 0 and δ in [0, 1) (an estimator's validated
    parameters), ``safeguard`` "auto" or a bool.

    Parameters
    ----------
    n, n_features, epsilon, delta, safeguard
        As for :func:`choose_regression_learner`, checked by the caller.

    Returns
    -------
    RegressionChoice

    Examples
    --------
    >>> from dpconvex.privacy.rules.front_door import regression_rule
    >>> regression_rule(20000, 10, 1.0, 0.0, "auto")[::3]
    ('median regression', True)
    """
    r = n * epsilon / (n_features + 1)  # records per unit of ε and coordinate
    approx = delta > 0
    if r < MEAN_BELOW:
        return RegressionChoice(
            PRIVATE_MEAN,
            "laplace_mean",
            (
                f"PrivateRegressor: n epsilon / (d + 1) = {r:.4g} < {MEAN_BELOW:g} -> the private "
                "mean of the "
                f"labels (Laplace mechanism, the whole epsilon): the front door's rule "
                "(docs/privacy/front_door_regression.md#privacy-regressor-rule; n, d, epsilon "
                "and delta only)"
            ),
        )
    gaussian = approx and n >= GAUSSIAN_ROWS_AT_LEAST
    mechanism = "gaussian_objective" if gaussian else "objective"
    form = ("Gaussian objective perturbation ((epsilon, delta)-DP)" if gaussian else
            "objective perturbation (pure epsilon-DP" + (
                f", delta unused: n = {n} < {GAUSSIAN_ROWS_AT_LEAST})" if approx else ")"))
    return RegressionChoice(
        MEDIAN,
        mechanism,
        (
            f"PrivateRegressor: n epsilon / (d + 1) = {r:.4g} >= {MEAN_BELOW:g} -> median "
            f"regression (smoothed pinball loss, tau = 0.5) with an intercept, {form}: the front "
            "door's rule (docs/privacy/front_door_regression.md#privacy-regressor-rule; n, d, "
            "epsilon and delta "
            "only)"
        ),
        safeguard_applies(n, safeguard),
        not approx and n >= GAUSSIAN_ROWS_AT_LEAST,
    )


def mean_epsilon(n: int, epsilon: float) -> float:
    """ε_c, the safeguard's share for the private mean: MEAN_RECORDS/n within the shares.

    Parameters
    ----------
    n : int
        The number of rows.
    epsilon : float
        ε of the fit.

    Returns
    -------
    float
        ε_c.

    Examples
    --------
    >>> from dpconvex.privacy.rules.front_door import mean_epsilon
    >>> mean_epsilon(1000, 1.0), mean_epsilon(15000, 1.0), mean_epsilon(10**6, 1.0)
    (0.5, 0.1, 0.05)
    """
    low, high = MEAN_SHARE
    return float(min(high * epsilon, max(low * epsilon, MEAN_RECORDS / int(n))))


def selection_handicap(epsilon: float, sensitivity: float = 1.0) -> float:
    """m = (2Δ/ε)·ln(1/β), β = :data:`HANDICAP_LEVEL`: subtracted from the model's utility.

    With two candidates, a model whose utility is at most the mean's is selected with
    probability 1/(1 + exp(ε(m + gap)/(2Δ))) <= β
    (docs/privacy/front_door_regression.md#privacy-regressor-safeguard).

    Parameters
    ----------
    epsilon : float
        ε of the selection.
    sensitivity : float, default=1.0
        Δ, the utilities' sensitivity.

    Returns
    -------
    float
        m.

    References
    ----------
    [MT07]_ (the exponential mechanism).

    Examples
    --------
    >>> from dpconvex.privacy.rules.front_door import selection_handicap
    >>> round(selection_handicap(1.0), 3)
    5.991
    """
    return 2.0 * float(sensitivity) / float(epsilon) * math.log(1.0 / HANDICAP_LEVEL)
