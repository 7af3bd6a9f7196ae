"""Classification front-door variants for ``corpus_run.py --learners corpus.classification_variants:NAME``
(with ``PYTHONPATH=$PWD/benchmarks``): alternatives to the rule and its safeguard, measured in
``benchmarks/recorded/front_door_alternatives.md``; none is the package's.

``pair_large_margin`` and ``pair_centroids``: where ``safeguard="auto"`` runs, the fitting part
is split into two disjoint halves; the rule's learner (``PrivateClassifier(safeguard=False)``)
is fitted on one and a second learner on the other, each with the whole (ε, δ), and the
exponential mechanism with ε selects one of them or a constant class on the validation part
by the mistake counts (sensitivity 1). A record lies in one part only, so the release is
(ε, δ)-DP by parallel composition, as in Chaudhuri, Monteleoni & Sarwate (2011), Algorithm 3.
The second learner is the large-margin softmax (``pair_large_margin``) or the class centroids
(``pair_centroids``); where the rule's learner is that one already, the other of the two.
Elsewhere the variant is the front door itself.

``rule_binary_5``, ``rule_binary_20``, ``rule_binary_20_nb_500`` and ``rule_binary_5_nb_500``:
the front door (its safeguard at ``"auto"``) whose rule reads other values of
``BINARY_CENTROID_BELOW`` (5 or 20) and ``NB_MULTICLASS_ROWS_PER_CLASS_AT_LEAST`` (0 or 500)
while it chooses (:func:`_candidate`): candidate rules scored guarded, as the package's rule
is (docs/privacy/front_door.md#privacy-private-classifier); ``rule_binary_5_nb_500`` is the
package's rule.

``sequential_*`` and ``handicap_*``: the safeguard's selection on every row
(:class:`SequentialSelection`): the rule's learner (``PrivateClassifier(safeguard=False)``)
with (1 − s) ε on every row, then the exponential mechanism with s ε over the model and each
constant class by their mistakes on the same rows (sequential composition), s fixed or a
function of (n, ε); ``handicap_*`` add a public handicap h · n to the model's mistakes.
``handicap_005_s15`` (s = 0.15, h = 0.005) is the package's safeguard
(docs/privacy/front_door.md#privacy-classifier-safeguard-share).
"""

from __future__ import annotations

import sys

import numpy as np

#: The registry's entry type of the running corpus_run (its ``Learner``, for the ranges).
Learner = getattr(sys.modules.get("__main__"), "Learner", None)


class PairSelection:
    """Two learners on disjoint halves of the fitting part, then the private selection."""

    def __init__(self, epsilon, delta, classes, seed, second, feature_range=None):
        self.epsilon, self.delta, self.classes, self.seed = epsilon, delta, list(classes), seed
        self.second, self.feature_range = second, feature_range

    def fit(self, X, y):
        import dpconvex as dp
        from dpconvex.privacy.rules.front_door import (
            AUTO_VALIDATION,
            LARGE_MARGIN,
            choose_front_door_learner,
            safeguard_applies,
            safeguard_sizes,
        )

        n, d = X.shape
        C, ranged = len(self.classes), self.feature_range is not None
        common = dict(epsilon=self.epsilon, delta=self.delta, classes=self.classes,
                      random_state=self.seed)
        rule = choose_front_door_learner(n, C, d, self.epsilon, self.delta,
                                         ranges_known=ranged).learner
        if not safeguard_applies(n, "auto"):
            self.model_ = dp.PrivateClassifier(**common, feature_range=self.feature_range).fit(X, y)
            return self
        n_fit, _ = safeguard_sizes(n, "auto", "PairSelection.fit", AUTO_VALIDATION)
        rng = np.random.default_rng([self.seed, 1])
        order = rng.permutation(n)
        first, other, val = order[:n_fit // 2], order[n_fit // 2:n_fit], order[n_fit:]
        a = dp.PrivateClassifier(**common, feature_range=self.feature_range, safeguard=False)
        use_lm = (self.second == LARGE_MARGIN) != (rule == self.second)
        b = (dp.PrivateLargeMarginGaussian(**{**common, "delta": self.delta or None}) if use_lm
             else dp.PrivateGaussianCentroid(**common))
        models = [a.fit(X[first], y[first]), b.fit(X[other], y[other])]
        labels = np.asarray(y)[val]
        mistakes = np.array([np.sum(m.predict(X[val]) != labels) for m in models]
                            + [np.sum(labels != c) for c in self.classes], dtype=float)
        weights = np.exp(-self.epsilon * (mistakes - mistakes.min()) / 2)
        k = rng.choice(len(mistakes), p=weights / weights.sum())
        self.model_ = models[k] if k < 2 else self.classes[k - 2]
        return self

    def predict(self, X):
        if not hasattr(self.model_, "predict"):  # a constant class
            return np.full(len(X), self.model_)
        return self.model_.predict(X)

    def score(self, X, y):
        return float(np.mean(self.predict(X) == np.asarray(y)))


def _pair(second: str):
    def factory(eps: float, delta: float, classes, seed: int, feature_range=None) -> PairSelection:
        return PairSelection(eps, delta, classes, seed, second, feature_range)

    return factory if Learner is None else Learner(factory, False, f"pair with {second}", bounds=True)


pair_large_margin = _pair("large-margin softmax")
pair_centroids = _pair("class centroids")


# ------------------------------------------------------------------ candidate rules, guarded
def _candidate_class(constants: dict, centroid_below: dict | None):
    """``PrivateClassifier`` (its safeguard as given) whose rule reads ``constants`` in place
    of :mod:`dpconvex.privacy.rules.front_door`'s (and ``centroid_below`` in place of
    ``CENTROID_BELOW``) while it chooses; the learners' fits read the package's own."""
    import dpconvex as dp
    from dpconvex.privacy.rules import front_door as rules
    from dpconvex.privacy.rules.large_margin import CENTROID_BELOW

    class CandidateRule(dp.PrivateClassifier):
        def _choice(self, n, n_classes, n_features, epsilon):
            kept = {name: getattr(rules, name) for name in constants}
            below = dict(CENTROID_BELOW)
            try:
                for name, value in constants.items():
                    setattr(rules, name, value)
                CENTROID_BELOW.update(centroid_below or {})
                return super()._choice(n, n_classes, n_features, epsilon)
            finally:
                for name, value in kept.items():
                    setattr(rules, name, value)
                CENTROID_BELOW.update(below)

    return CandidateRule


def _candidate(centroid_below: dict | None = None, **constants):
    """The front door (``safeguard="auto"``) with a candidate rule's constants."""
    def factory(eps: float, delta: float, classes, seed: int, feature_range=None):
        cls = _candidate_class(constants, centroid_below)
        return cls(epsilon=eps, delta=delta, classes=classes, random_state=seed,
                   feature_range=feature_range)

    shown = {**constants, **({"CENTROID_BELOW": centroid_below} if centroid_below else {})}
    label = ", ".join(f"{k}={v}" for k, v in shown.items())
    return factory if Learner is None else Learner(factory, False, f"front door, {label}",
                                                   bounds=True)


#: Candidate rules of the refit on the 56-table corpus, each the front door with its safeguard:
#: the binary centroids below r = 5 or 20 (``BINARY_CENTROID_BELOW``) and naive Bayes on more
#: than two classes at any n / C or from n / C >= 500 (``NB_MULTICLASS_ROWS_PER_CLASS_AT_LEAST``).
rule_binary_5 = _candidate(BINARY_CENTROID_BELOW=5.0, NB_MULTICLASS_ROWS_PER_CLASS_AT_LEAST=0)
rule_binary_20 = _candidate(BINARY_CENTROID_BELOW=20.0, NB_MULTICLASS_ROWS_PER_CLASS_AT_LEAST=0)
rule_binary_20_nb_500 = _candidate(BINARY_CENTROID_BELOW=20.0,
                                   NB_MULTICLASS_ROWS_PER_CLASS_AT_LEAST=500)
rule_binary_5_nb_500 = _candidate(BINARY_CENTROID_BELOW=5.0,
                                  NB_MULTICLASS_ROWS_PER_CLASS_AT_LEAST=500)


# ---------------------------------------------- the selection on every row, ε shared in sequence
class SequentialSelection:
    """The rule's learner on every row with (1 − s) ε, then the exponential mechanism with s ε
    over the model and each constant class, scored on every row (sequential composition); the
    model's mistakes counted with a public handicap of ``handicap`` · n (0: none). ``share`` a
    number or a function of (n, ε)."""

    def __init__(self, epsilon, delta, classes, seed, share, feature_range=None, handicap=0.0):
        self.epsilon, self.delta, self.classes, self.seed = epsilon, delta, list(classes), seed
        self.share, self.feature_range, self.handicap = share, feature_range, handicap

    def fit(self, X, y):
        import dpconvex as dp
        from dpconvex.privacy.rules.front_door import safeguard_applies

        n = X.shape[0]
        common = dict(delta=self.delta, classes=self.classes, random_state=self.seed,
                      feature_range=self.feature_range)
        if not safeguard_applies(n, "auto"):
            self.model_ = dp.PrivateClassifier(epsilon=self.epsilon, **common).fit(X, y)
            return self
        share = self.share(n, self.epsilon) if callable(self.share) else self.share
        model = dp.PrivateClassifier(epsilon=(1 - share) * self.epsilon, safeguard=False,
                                     **common).fit(X, y)
        labels = np.asarray(y)
        mistakes = np.array([np.sum(model.predict(X) != labels) + self.handicap * n]
                            + [np.sum(labels != c) for c in self.classes], dtype=float)
        weights = np.exp(-share * self.epsilon * (mistakes - mistakes.min()) / 2)
        rng = np.random.default_rng([self.seed, 2])
        k = rng.choice(len(mistakes), p=weights / weights.sum())
        self.model_ = model if k == 0 else self.classes[k - 1]
        return self

    predict = PairSelection.predict
    score = PairSelection.score


def _sequential(share):
    def factory(eps: float, delta: float, classes, seed: int, feature_range=None):
        return SequentialSelection(eps, delta, classes, seed, share, feature_range)

    return factory if Learner is None else Learner(factory, False, f"sequential, s={share}",
                                                   bounds=True)


def _share_by_n(n: int, eps: float) -> float:
    return min(0.3, max(0.15, 300 / (eps * n)))


sequential_05 = _sequential(0.05)
sequential_10 = _sequential(0.1)
sequential_15 = _sequential(0.15)
sequential_20 = _sequential(0.2)
sequential_30 = _sequential(0.3)
sequential_auto = _sequential(lambda n, eps: min(0.3, max(0.1, 300 / (eps * n))))
sequential_auto2 = _sequential(lambda n, eps: min(0.3, max(0.1, 1000 / (eps * n))))
sequential_auto3 = _sequential(_share_by_n)
sequential_auto4 = _sequential(lambda n, eps: min(0.25, max(0.1, 500 / (eps * n))))


def _handicapped(handicap: float, share=_share_by_n):
    def factory(eps: float, delta: float, classes, seed: int, feature_range=None):
        return SequentialSelection(eps, delta, classes, seed, share, feature_range, handicap)

    return factory if Learner is None else Learner(factory, False, f"handicap {handicap}",
                                                   bounds=True)


handicap_005 = _handicapped(0.005)
handicap_01 = _handicapped(0.01)
handicap_002 = _handicapped(0.002)
handicap_005_s15 = _handicapped(0.005, 0.15)
handicap_005_s20 = _handicapped(0.005, 0.2)
