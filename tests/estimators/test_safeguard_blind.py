"""The front door's warning where its safeguard's selection cannot tell a model clearly below
the best constant class from it (docs/privacy/front_door.md#privacy-classifier-safeguard-blind)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import dpconvex as dp
from dpconvex.estimators.front_door import _select_release
from dpconvex.privacy.rules.front_door import (
    MODEL_HANDICAP,
    SAFEGUARD_GAP,
    SAFEGUARD_WARNING_LEVEL,
    SELECTION_SHARE,
    safeguard_blind,
)

BLIND = "cannot tell a model"


def _rows(n, seed=0, d=3):
    """n rows of norm <= 1 with a weak binary signal."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, d)) / math.sqrt(d)
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


def _fit_warnings(X, y, **params):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dp.PrivateClassifier(classes=[0, 1], random_state=0, **params).fit(X, y)
    return [str(w.message) for w in caught]


def test_warns_at_breast_cancers_rows_with_small_epsilon_not_where_the_selection_tells():
    """398 rows (breast cancer's training part) at ε = 0.1: one warning, naming the public
    facts; at n ε >= 586 (the defaults' threshold; ε = 1 on 1,257 rows) none."""
    X, y = _rows(398)
    mine = [m for m in _fit_warnings(X, y, epsilon=0.1) if BLIND in m]
    assert len(mine) == 1
    assert "n = 398" in mine[0] and "epsilon = 0.1" in mine[0] and "s = 0.15" in mine[0]
    assert "0.48" in mine[0]  # 1 / (1 + exp(0.015 * 0.025 * 398 / 2))
    assert "larger epsilon" in mine[0] and "held-out rows" in mine[0]
    X, y = _rows(1257)
    assert not any(BLIND in m for m in _fit_warnings(X, y, epsilon=1.0))
    # the threshold in n ε: 2 ln(1/β − 1) / (s (g + h))
    edge = 2 * math.log(1 / SAFEGUARD_WARNING_LEVEL - 1) / (
        SELECTION_SHARE * (SAFEGUARD_GAP + MODEL_HANDICAP))
    assert safeguard_blind(math.floor(edge), 1.0)[0]
    assert not safeguard_blind(math.ceil(edge), 1.0)[0]


def test_no_warning_where_the_safeguard_is_off_and_one_where_every_candidate_is_weak():
    """safeguard=False and n > 100,000 ("auto" off) give none; where every candidate's noise
    check fires that warning alone is given."""
    X, y = _rows(398)
    assert not any(BLIND in m for m in _fit_warnings(X, y, epsilon=0.1, safeguard=False))
    door = dp.PrivateClassifier(epsilon=0.001, classes=[0, 1])  # n ε = 200 at 200,000 rows
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        door._warn(door.plan(200_000, 2, 3))
    assert not any(BLIND in str(w.message) for w in caught)
    assert safeguard_blind(200_000, 0.001)[0]  # the safeguard would be blind if it ran
    X, y = _rows(60, d=30)
    caught = _fit_warnings(X, y, epsilon=0.05)
    assert sum("every learner it can choose" in m for m in caught) == 1
    assert not any(BLIND in m for m in caught)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_the_bound_is_the_selections_probability_at_its_worst_label_law(n_classes):
    """P = 1 / (1 + exp(ε_2 (g + h) n / 2)) against the exponential mechanism's own law
    (P(k) ∝ exp(−ε_2 z_k / 2)): equal when the other constants are far from the best, below
    for every other placement of theirs; and, with three constants, against the library's
    selection drawn 12,000 times (4 standard errors: false-alarm rate < 10⁻⁴)."""
    n, epsilon = 398, 1.0
    eps2 = SELECTION_SHARE * epsilon
    best = 0.374 * n  # the best constant's mistakes
    model = best + (SAFEGUARD_GAP + MODEL_HANDICAP) * n  # g n below it, with the handicap
    p = safeguard_blind(n, epsilon)[1]

    def law(others):
        z = np.array([model, best, *others])
        w = np.exp(-eps2 * (z - z.min()) / 2)
        return w[0] / w.sum()

    far = [best + 10_000.0] * (n_classes - 1)
    assert law(far) == pytest.approx(p, rel=1e-9)  # the two-candidate form, exactly
    for others in ([best] * (n_classes - 1), [best + 5.0] * (n_classes - 1)):
        assert law(others) < p
    if n_classes == 2:
        return
    draws, rng = 12_000, np.random.default_rng(17)
    hits = sum(_select_release(-np.array([model, best, *far]), eps2, n, rng, True)[0] == 0
               for _ in range(draws))
    assert abs(hits / draws - p) <= 4 * math.sqrt(p * (1 - p) / draws)


def test_the_warning_carries_no_data_statistic():
    """Neighbouring data (one record replaced, its label flipped) give the same message."""
    X, y = _rows(398)
    X2, y2 = X.copy(), y.copy()
    X2[0], y2[0] = -X[0], 1 - y[0]
    first = [m for m in _fit_warnings(X, y, epsilon=0.5) if BLIND in m]
    second = [m for m in _fit_warnings(X2, y2, epsilon=0.5) if BLIND in m]
    assert len(first) == 1 and first == second
