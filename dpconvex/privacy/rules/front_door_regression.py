"""The learner and the safeguard of :class:`~dpconvex.PrivateRegressor`, from public quantities only.

The rule (docs/privacy/front_door_regression.md#privacy-regressor-rule), with r = n·ε/(d + 1):
below :data:`CONSTANT_BELOW` the private mean of the labels (privacy-private-mean); otherwise
the smoothed median regression with an intercept, objective perturbation, its Gaussian form
where δ > 0 and n >= :data:`GAUSSIAN_ROWS_AT_LEAST`. The safeguard
(privacy-regressor-safeguard), where n <= :data:`SAFEGUARD_ROWS_AT_MOST`: the private mean with
a share of ε (:func:`mean_epsilon`), then the learner on a fitting part and the exponential
mechanism over {the model, the mean} on a validation part, the model's utility lowered by a
public handicap (:func:`selection_handicap`). n, d, ε and δ only; no data value is read. The
constants were chosen on the regression corpus's selection seeds
(docs/privacy/front_door_regression.md).
"""

from __future__ import annotations

import math
from typing import NamedTuple

from ..budget import has_positive_delta

__all__ = ["CONSTANT", "CONSTANT_BELOW", "GAUSSIAN_ROWS_AT_LEAST", "HANDICAP_LEVEL", "MEAN_RECORDS",
           "MEAN_SHARE", "MEDIAN", "RESIDUAL_CLIP", "RegressionChoice", "SAFEGUARD_ROWS_AT_MOST",
           "VALIDATION", "choose_regression_learner", "mean_epsilon", "selection_handicap"]

#: Learner names of the rule.
MEDIAN = "median regression"
CONSTANT = "constant (private mean)"

#: r = n·ε/(d + 1) below this: the private mean. The measurements behind these constants:
#: docs/privacy/front_door_regression.md#privacy-regressor-rule, privacy-regressor-safeguard.
CONSTANT_BELOW = 25.0
#: δ > 0: the Gaussian objective perturbation from this many rows (pure ε below: at δ = 1/n²
#: its noise is the larger on small tables).
GAUSSIAN_ROWS_AT_LEAST = 5_000
#: ``safeguard="auto"``: on up to this many rows.
SAFEGUARD_ROWS_AT_MOST = 100_000
#: The private mean's share of ε: n·ε_c = MEAN_RECORDS, kept between (floor, ceiling) · ε
#: (labels may spread over a thirtieth of their documented range, e.g. log hours worked over
#: [0, log 8,784]: sd 0.28 of 9.09).
MEAN_RECORDS = 1500.0
MEAN_SHARE = (0.05, 0.5)
#: The selection releases a model no better than the mean with probability at most this.
HANDICAP_LEVEL = 0.05
#: κ: the selection's residuals on the unit label scale are clipped at κ, and each record's
#: term is min(1, (residual/κ)²), so the utility's sensitivity stays 1 while its scale grows
#: by (2/κ)² over unclipped residuals of the range [−1, 1].
RESIDUAL_CLIP = 0.5
#: Validation rows: (share, cap, floor share), as the classifier's safeguard.
VALIDATION = (0.2, 2_000, 0.1)


class RegressionChoice(NamedTuple):
    """The learner :func:`choose_regression_learner` picked, its mechanism, the reason and
    whether the safeguard runs.

    Examples
    --------
    >>> from dpconvex.privacy.rules.front_door_regression import choose_regression_learner
    >>> choice = choose_regression_learner(20000, 10, 1.0, 0.0)
    >>> choice.learner, choice.mechanism, choice.safeguard
    ('median regression', 'objective', True)
    """

    learner: str
    mechanism: str
    reason: str
    safeguard: bool = False


def choose_regression_learner(n: int, n_features: int, epsilon: float, delta: float | None,
                              safeguard: bool | str = "auto") -> RegressionChoice:
    """The learner for n rows, d features, ε and δ, and whether the safeguard runs (the
    module's rule; public only).

    The safeguard: ``"auto"`` for a model on at most :data:`SAFEGUARD_ROWS_AT_MOST` rows; a
    bool as given; never for the constant, which is the safeguard's fallback.

    Examples
    --------
    >>> from dpconvex.privacy.rules.front_door_regression import choose_regression_learner
    >>> choose_regression_learner(300, 13, 0.5, 0.0).learner
    'constant (private mean)'
    >>> choose_regression_learner(30000, 20, 1.0, 1e-9).mechanism
    'gaussian_objective'
    >>> choose_regression_learner(10**6, 20, 1.0, 0.0).safeguard
    False
    """
    r = float(n) * float(epsilon) / (int(n_features) + 1)  # records per unit of ε and coordinate
    approx = has_positive_delta(delta)
    if r < CONSTANT_BELOW:
        return RegressionChoice(CONSTANT, "laplace_mean", (
            f"PrivateRegressor: n epsilon / (d + 1) = {r:.4g} < {CONSTANT_BELOW:g} -> the "
            "private mean of the labels (Laplace mechanism, the whole epsilon): the front "
            "door's rule (docs/privacy/front_door_regression.md#privacy-regressor-rule; n, d, epsilon and "
            "delta only)"))
    gaussian = approx and int(n) >= GAUSSIAN_ROWS_AT_LEAST
    mechanism = "gaussian_objective" if gaussian else "objective"
    form = ("Gaussian objective perturbation ((epsilon, delta)-DP)" if gaussian else
            "objective perturbation (pure epsilon-DP" + (
                f", delta unused: n = {int(n)} < {GAUSSIAN_ROWS_AT_LEAST})" if approx else ")"))
    return RegressionChoice(MEDIAN, mechanism, (
        f"PrivateRegressor: n epsilon / (d + 1) = {r:.4g} >= {CONSTANT_BELOW:g} -> median "
        f"regression (smoothed pinball loss, tau = 0.5) with an intercept, {form}: the front "
        "door's rule (docs/privacy/front_door_regression.md#privacy-regressor-rule; n, d, epsilon and delta "
        "only)"), int(n) <= SAFEGUARD_ROWS_AT_MOST if isinstance(safeguard, str) else bool(safeguard))


def mean_epsilon(n: int, epsilon: float) -> float:
    """ε_c, the safeguard's share for the private mean: MEAN_RECORDS/n within the shares.

    Examples
    --------
    >>> from dpconvex.privacy.rules.front_door_regression import mean_epsilon
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

    Examples
    --------
    >>> from dpconvex.privacy.rules.front_door_regression import selection_handicap
    >>> round(selection_handicap(1.0), 3)
    5.991
    """
    return 2.0 * float(sensitivity) / float(epsilon) * math.log(1.0 / HANDICAP_LEVEL)
