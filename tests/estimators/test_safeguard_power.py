"""The safeguard's power (docs/privacy/front_door.md#privacy-classifier-safeguard-power): on a
table where every model is known to be worse than the majority class, the front door releases
a candidate more than 2 points below it no more often than
:func:`~dpconvex.privacy.rules.front_door.selection_error_bound` says.

The table: labels of four classes with shares 0.5 / 0.3 / 0.15 / 0.05, drawn independently of
8 binary columns, each 1 with probability 0.08 (a one-hot-heavy survey table with nothing to
learn). No model is better than the majority class, and Gaussian naive Bayes, the rule's learner
here (public ranges, C = 4, d = 8), is far below it without the safeguard. Every accuracy is
exact: the rows take 2**8 values of known probability and the labels are independent of them,
so a candidate's accuracy and its disagreements with the majority class on a row are sums
over those values. Each seed's candidates (the fitted model, read where the safeguard scores
it, and the three minority classes) give the bound of releasing one more than 2 points below
the majority class, at the n rows and the selection's s ε; the count of such releases over the
seeds is compared with the 99 % quantile of the Poisson-binomial law of those bounds
(false-alarm rate <= 1 % where the bound holds). The bound is exact for a candidate
independent of the rows it is scored on; the safeguard scores the model on the rows it was
fitted on, so a model that fits its rows' noise is favoured beyond it, and the test fails
if that advantage releases bad models more often than the bound allows.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np

import dpconvex.estimators.front_door as front_door
from dpconvex import PrivateClassifier
from dpconvex.privacy.rules.front_door import GAUSSIAN_NB, SELECTION_SHARE, selection_error_bound

SHARES = np.array([0.5, 0.3, 0.15, 0.05])
D, P_ONE = 8, 0.08
GAP = 0.02  # "more than 2 points below the majority class"
PATTERNS = np.array(list(itertools.product([0.0, 1.0], repeat=D)))
WEIGHTS = np.prod(np.where(PATTERNS == 1.0, P_ONE, 1.0 - P_ONE), axis=1)  # P(x), exact


def _table(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = (rng.uniform(size=(n, D)) < P_ONE).astype(float)
    return X, rng.choice(SHARES.size, size=n, p=SHARES)


def _exact(predicted: np.ndarray) -> tuple[float, float, float]:
    """(accuracy, P(it errs and the majority does not), P(the other way)) of a predictor
    whose prediction on the 2**8 rows is ``predicted`` (exact: y independent of x)."""
    right = SHARES[predicted]  # P(y = its prediction | x)
    other = predicted != 0
    return (float(WEIGHTS @ right), float(WEIGHTS @ (other * SHARES[0])),
            float(WEIGHTS @ (other * right)))


def _poisson_binomial_quantile(p: list[float], level: float) -> int:
    """The smallest k with P(sum of independent Bernoulli(p_i) <= k) >= level."""
    law = np.array([1.0])
    for pi in p:
        law = np.convolve(law, [1.0 - pi, pi])
    return int(np.searchsorted(np.cumsum(law), level))


def test_a_model_worse_than_a_constant_is_released_no_more_often_than_the_bound(monkeypatch):
    n, epsilon, seeds = 4000, 1.0, range(40)
    # every row, at s epsilon; the model's handicap only lowers its chance: the bound holds
    n_val, eps_select = n, SELECTION_SHARE * epsilon
    scored = []  # the model each fit's safeguard scores (a test spy on the library's function)
    original = front_door.safeguard_mistakes

    def spy(model, X, y, classes):
        scored.append(model)
        return original(model, X, y, classes)

    monkeypatch.setattr(front_door, "safeguard_mistakes", spy)
    bounds, bad_releases, bad_models = [], 0, 0
    minority = sum(selection_error_bound(n_val, eps_select, SHARES[0], SHARES[c])
                   for c in range(1, SHARES.size))  # each minority class against the majority
    for seed in seeds:
        X, y = _table(n, seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a released constant's PrivacyWarning
            clf = PrivateClassifier(epsilon=epsilon, classes=[0, 1, 2, 3],
                                    feature_range=(0.0, 1.0), random_state=seed).fit(X, y)
        model = scored[-1]
        assert type(model).__name__ == "PrivateGaussianNB" and clf.plan(n, 4, D).learner == GAUSSIAN_NB
        accuracy, worse, better = _exact(model.predict(PATTERNS))
        bound = minority
        if accuracy < SHARES[0] - GAP:
            bad_models += 1
            bound += selection_error_bound(n_val, eps_select, worse, better)
        bounds.append(min(1.0, bound))
        released = _exact(clf.predict(PATTERNS).astype(int))[0]
        bad_releases += released < SHARES[0] - GAP
    # the setting is the one the bound is about: most fitted models are known to be bad
    assert bad_models >= len(seeds) // 2
    assert bad_releases <= _poisson_binomial_quantile(bounds, 0.99)


def test_the_bound_is_the_exponential_mechanism_on_a_simulated_validation_part():
    """selection_error_bound against the selection's law on sampled validation parts: the
    bound (two candidates, so exact) is within 4 standard errors of the sampled mean
    (false-alarm rate about 6e-5)."""
    rng = np.random.default_rng(11)
    n_val, epsilon, worse, better = 300, 1.0, 0.12, 0.09
    steps = rng.choice([1, -1, 0], p=[worse, better, 1 - worse - better], size=(20000, n_val))
    chosen = 1.0 / (1.0 + np.exp(epsilon * steps.sum(axis=1) / 2.0))
    sampled, stderr = chosen.mean(), chosen.std() / np.sqrt(chosen.size)
    assert abs(selection_error_bound(n_val, epsilon, worse, better) - sampled) < 4 * stderr
