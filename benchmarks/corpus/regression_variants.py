"""The regression front door's variants on the regression corpus: what its rule and safeguard leave.

Question: per cell table × ε × δ (means over the seeds of test R² − the training mean's), how
does ``PrivateRegressor`` compare with the median regression it guards, fitted without the
safeguard, its Gaussian form at δ > 0, ``PrivateLinearRegression`` (sufficient statistics) at δ > 0 and the
private mean; and how do the safeguard's constants (``HANDICAP_LEVEL``, ``MEAN_RECORDS`` of
:mod:`dpconvex.privacy.rules.front_door`) move it? The variants set those module
constants for the length of a fit (a benchmark, never the package's own path).

Columns: ``fd`` the front door at its defaults; ``med_g`` / ``med_u`` median regression with /
without the safeguard (the rule's constant switch off); ``gmed_g`` / ``gmed_u`` the same with
Gaussian objective perturbation at δ > 0 on every n; ``ssp`` ``PrivateLinearRegression`` at
δ > 0; ``const`` the private mean with the whole ε; ``h<β>/m<M>`` the front door with
``HANDICAP_LEVEL = β`` and ``MEAN_RECORDS = M`` (``--handicaps``); ``k<κ>`` the front door
with ``RESIDUAL_CLIP = κ`` (``--clips``); ``s<c>/h<β>`` the front door with the mean's share
of ε at most c·ε (``MEAN_SHARE = (0.05, c)``) and ``HANDICAP_LEVEL = β`` (``--shares``).
``--centers``: the single learners (Huber, pinball) with ``label_center`` "range" and "auto"
at each share of ε and floor of R of :data:`CENTERS`, on
the tables and their training rows subsampled to :data:`CENTER_ROWS`, in the cells where
r = n·ε/(d + 1) < ``REGRESSION_RECORDS`` (the only ones ``label_center="auto"`` changes);
``--center-summary FILE`` prints docs/privacy/perturbation.md#privacy-label-center's tables.

Run (from the repository root; one process, about 5 minutes per part on 2 shared cores)::

    PYTHONPATH=$PWD DPCONVEX_DATA=... python benchmarks/corpus/regression_variants.py \
        --seeds selection --out /tmp/variants.jsonl [--handicaps | --clips | --shares]

One JSON line per (table, seed, ε, δ); ``--summary FILE`` prints the cell table and counts.

Factories for ``corpus_run.py --task regression --learners corpus.regression_variants:NAME``
(with ``PYTHONPATH=$PWD/benchmarks``): ``stated_huber`` (a user's own loss), ``by_features``
(a rule that reads d as well as n), ``front_door_by_features`` (that rule's loss under the
safeguard), ``front_door_huber`` (the front door with the Huber loss
as its learner), ``huber_m10`` ... ``huber_m50`` (the Huber loss at each of
:data:`HUBER_THRESHOLDS`) and ``spread_k3_s10`` ... ``spread_k12_s05_above`` (the Huber loss on a
label range narrowed around the labels' private mean by their private mean absolute deviation,
:data:`SPREADS`), ``front_door_skew_020`` ... ``_050`` (the front door's learner chosen by the
labels' private mean and median, :data:`SKEW_THRESHOLDS`), ``front_door_huber_centred`` and
``front_door_pinball_centred`` (the safeguard's learner centred at the mean it releases),
``noisy_gd_huber`` (the Huber loss by noisy gradient descent) and ``front_door_noisy_gd`` (that
learner under the safeguard on few rows at δ > 0). ``--reach`` prints, per table and ε, the share
of the constant's validation utility a model must save to be selected half the time.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import corpus  # noqa: E402

EPSILONS = (0.5, 1.0, 2.0)
HANDICAPS = tuple((b, m) for b in (0.05, 0.15, 0.3, 0.5) for m in (1500.0, 500.0))
CLIPS = (0.25, 0.375, 0.5, 0.75)
SHARES = tuple((c, b) for c in (0.5, 0.2) for b in (0.05, 0.2))
#: (share of ε on the labels' mean, R's floor) of ``label_center="auto"`` compared (``--centers``).
CENTERS = tuple((c, f) for c in (0.1, 0.2, 0.3) for f in (1.0, 0.5, 0.25))
#: The training rows of ``--centers``: the table's, and seeded subsamples of these sizes.
CENTER_ROWS = (None, 500, 1000)


def stated_huber(eps: float, delta: float, label_range, seed: int):
    """A user's own loss for ``corpus_run.py --task regression --learners
    corpus.regression_variants:stated_huber``: the Huber loss stated in CVXPY atoms on the unit
    label scale, ``PrivateLinearRegressor`` at its other defaults."""
    import cvxpy as cp

    import dpconvex as dp

    return dp.PrivateLinearRegressor(loss=lambda z, u: cp.huber(z - u, 0.5), epsilon=eps,
                                     delta=delta, label_range=label_range, random_state=seed)


def _huber(threshold: float):
    def factory(eps: float, delta: float, label_range, seed: int):
        import dpconvex as dp

        return dp.PrivateLinearRegressor(loss="huber", huber_threshold=threshold, epsilon=eps,
                                         delta=delta, label_range=label_range, random_state=seed)

    factory.__name__ = f"huber_m{round(threshold * 100):02d}"
    return factory


#: The Huber loss's thresholds M (unit label scale) compared for its default:
#: ``corpus.regression_variants:huber_m10`` ... ``huber_m50``.
HUBER_THRESHOLDS = (0.1, 0.15, 0.25, 0.35, 0.5)
huber_m10, huber_m15, huber_m25, huber_m35, huber_m50 = (_huber(m) for m in HUBER_THRESHOLDS)


def front_door_huber(eps: float, delta: float, label_range, seed: int):
    """``PrivateRegressor`` whose learner is the Huber loss at the single learner's default
    threshold in place of median regression (the same rule, mechanism and safeguard)."""
    import dpconvex as dp

    class FrontDoorHuber(dp.PrivateRegressor):
        def _make(self, mechanism, epsilon):
            learner = super()._make(mechanism, epsilon)
            return learner.set_params(loss="huber")

    return FrontDoorHuber(epsilon=eps, delta=delta, label_range=label_range, random_state=seed)


class _ByFeatures:
    """A rule that reads d as well as n: for n >= 2,000 training rows the Huber regressor where
    d <= 20 and median regression where d > 20, each fitted alone (no safeguard);
    ``PrivateRegressor`` below 2,000 rows (the rule tried in
    docs/privacy/front_door_regression.md#privacy-regressor-measurements, not the package's)."""

    def __init__(self, **common):
        self.common = common

    def fit(self, X, y):
        import dpconvex as dp

        n, d = X.shape
        self.estimator_ = (dp.PrivateRegressor(**self.common) if n < 2000 else
                           dp.PrivateLinearRegressor(loss="huber" if d <= 20 else "pinball",
                                                     **self.common))
        self.estimator_.fit(X, y)
        return self

    def predict(self, X):
        return self.estimator_.predict(X)


def by_features(eps: float, delta: float, label_range, seed: int):
    """:class:`_ByFeatures` for ``corpus_run.py --task regression --learners
    corpus.regression_variants:by_features``."""
    return _ByFeatures(epsilon=eps, delta=delta, label_range=label_range, random_state=seed)


def front_door_by_features(eps: float, delta: float, label_range, seed: int):
    """``PrivateRegressor`` (rule, mechanism and safeguard as they are) whose learner is the
    Huber loss where d <= 20 on at least 2,000 rows, median regression elsewhere: the rule of
    :class:`_ByFeatures` under the safeguard."""
    import dpconvex as dp

    class FrontDoorByFeatures(dp.PrivateRegressor):
        def fit(self, X, y):
            self._shape = np.shape(X)
            return super().fit(X, y)

        def _make(self, mechanism, epsilon):
            learner = super()._make(mechanism, epsilon)
            n, d = self._shape
            return learner.set_params(loss="huber") if n >= 2000 and d <= 20 else learner

    return FrontDoorByFeatures(epsilon=eps, delta=delta, label_range=label_range, random_state=seed)


def _unit_mean(values: np.ndarray, epsilon: float, rng: np.random.Generator) -> float:
    """The package's Laplace mean (:func:`mean_release`) of per-record values in [−1, 1]."""
    from dpconvex._validation import NoiseSource
    from dpconvex.estimators.regression import mean_release

    return float(mean_release(values, values.size, epsilon, NoiseSource(rng, True)).theta[0])


def _unit_labels(y, label_range) -> np.ndarray:
    """Labels clipped to ``label_range`` and mapped onto [−1, 1], as the regressors map them."""
    lo, hi = map(float, label_range)
    return np.clip((2.0 * np.asarray(y, dtype=float) - lo - hi) / (hi - lo), -1.0, 1.0)


class _LabelSpread:
    """The Huber regressor on a label range narrowed from the labels' private mean c and mean
    absolute deviation m (each the package's Laplace mean, :func:`mean_release`, with half of
    ``share`` · ε): [c − k·m, c + k·m] within ``label_range``, then the model with the rest of ε
    and ``label_center="range"`` (the narrowed range's middle). Given (c, m) the clip and map of
    each label are per-record public maps, so the three releases compose to (ε, δ). With
    ``above`` the narrowing only where r = n·ε/(d + 1) is at least ``REGRESSION_RECORDS`` (where
    ``label_center="auto"`` releases nothing), the package's regressor below it."""

    def __init__(self, k: float, share: float, above: bool, **common):
        self.k, self.share, self.above, self.common = k, share, above, common

    def fit(self, X, y):
        import dpconvex as dp
        from dpconvex.privacy.rules.noise_level import REGRESSION_RECORDS

        n, d = X.shape
        eps = float(self.common["epsilon"])
        if self.above and n * eps / (d + 1) < REGRESSION_RECORDS:
            self.estimator_ = dp.PrivateLinearRegressor(**self.common).fit(X, y)
            return self
        lo, hi = map(float, self.common["label_range"])
        u = _unit_labels(y, (lo, hi))
        rng_c, rng_m = np.random.default_rng([int(self.common["random_state"]), 7]).spawn(2)
        half = 0.5 * self.share * eps
        c = _unit_mean(u, half, rng_c)
        # |u − c| ∈ [0, 2] mapped onto [−1, 1]: the same Laplace mean, then mapped back
        dev = _unit_mean(np.abs(u - c) - 1.0, half, rng_m) + 1.0
        # at least two scales of the deviation's Laplace noise (2/(n·ε_m), public): a deviation
        # that its noise pushed to 0 would narrow the range to a sliver
        dev = max(dev, 2.0 * 2.0 / (n * half))
        a, b = max(-1.0, c - self.k * dev), min(1.0, c + self.k * dev)
        narrowed = (lo + 0.5 * (a + 1.0) * (hi - lo), lo + 0.5 * (b + 1.0) * (hi - lo))
        self.estimator_ = dp.PrivateLinearRegressor(
            **{**self.common, "epsilon": eps * (1.0 - self.share), "label_range": narrowed},
            label_center="range").fit(X, y)
        return self

    def predict(self, X):
        return self.estimator_.predict(X)


def _label_spread(k: float, share: float, above: bool):
    def factory(eps: float, delta: float, label_range, seed: int):
        return _LabelSpread(k, share, above, epsilon=eps, delta=delta, label_range=label_range,
                            random_state=seed)

    factory.__name__ = f"spread_k{k:g}_s{round(share * 100):02d}" + ("_above" if above else "")
    return factory


#: (k, share of ε) of the label-spread variants compared for the Huber regressor.
SPREADS = ((3.0, 0.1), (5.0, 0.1), (5.0, 0.05), (8.0, 0.05), (12.0, 0.05))
spread_k3_s10, spread_k5_s10, spread_k5_s05, spread_k8_s05, spread_k12_s05 = (
    _label_spread(k, share, False) for k, share in SPREADS)
spread_k8_s05_above, spread_k12_s05_above = (_label_spread(k, 0.05, True) for k in (8.0, 12.0))


class _BySkew:
    """``PrivateRegressor`` (rule, mechanism and safeguard as they are, with 90 % of ε) whose
    learner is the Huber loss where the labels' private mean c and private median m lie at
    least ``threshold`` apart on the unit scale, median regression otherwise. c is the
    package's Laplace mean (:func:`mean_release`) and m the midpoint of the cell the
    exponential mechanism picks among the 256 cells of a uniform grid on [−1, 1], with utility
    minus the distance from n/2 to [#{u < left edge}, #{u < right edge}] (0 for the cell
    holding the median; sensitivity 1 under replace-one), each with 5 % of ε; the choice is a
    function of (c, m), so the three releases compose sequentially to (ε, δ). Median regression
    estimates the conditional median; where the labels' median is far from their mean, R²
    (about the mean) favours the Huber loss."""

    def __init__(self, threshold: float, **common):
        self.threshold, self.common = threshold, common

    def fit(self, X, y):
        import dpconvex as dp
        from dpconvex.privacy.noise import exponential_mechanism

        n = X.shape[0]
        eps = float(self.common["epsilon"])
        u = _unit_labels(y, self.common["label_range"])
        rng_c, rng_m = np.random.default_rng([int(self.common["random_state"]), 11]).spawn(2)
        c = _unit_mean(u, 0.05 * eps, rng_c)
        edges, ordered = np.linspace(-1.0, 1.0, 257), np.sort(u)
        below = np.searchsorted(ordered, edges, side="left")  # #{u < e}
        below[-1] = n  # the last cell holds u = 1
        # a cell holds the median when #{u < left edge} <= n/2 <= #{u < right edge}
        utility = -np.maximum(0.0, np.maximum(below[:-1] - 0.5 * n, 0.5 * n - below[1:]))
        cell = exponential_mechanism(utility, 0.05 * eps, random_state=rng_m)
        m = float(0.5 * (edges[cell] + edges[cell + 1]))
        loss = "huber" if abs(c - m) >= self.threshold else "pinball"
        self.loss_ = loss

        class Chosen(dp.PrivateRegressor):
            def _make(self, mechanism, epsilon):
                return super()._make(mechanism, epsilon).set_params(loss=loss)

        self.estimator_ = Chosen(**{**self.common, "epsilon": 0.9 * eps}).fit(X, y)
        return self

    def predict(self, X):
        return self.estimator_.predict(X)


def _by_skew(threshold: float):
    def factory(eps: float, delta: float, label_range, seed: int):
        return _BySkew(threshold, epsilon=eps, delta=delta, label_range=label_range,
                       random_state=seed)

    factory.__name__ = f"front_door_skew_{round(threshold * 1000):03d}"
    return factory


#: The thresholds on |private mean − private median| (unit label scale) of ``front_door_skew_*``.
SKEW_THRESHOLDS = (0.02, 0.03, 0.05)
front_door_skew_020, front_door_skew_030, front_door_skew_050 = (_by_skew(t) for t in SKEW_THRESHOLDS)


def _front_door_centred(loss: str):
    """``PrivateRegressor`` (rule, mechanism and safeguard as they are) whose learner, of ``loss``
    ("huber" or "pinball"), is centred at the private mean the safeguard releases before the
    learner fits (``label_center`` = that mean: post-processing of a release, no ε of its own)."""
    def factory(eps: float, delta: float, label_range, seed: int):
        import dpconvex as dp

        class Centred(dp.PrivateRegressor):
            def _fit_with(self, X, y, context):
                made, centres = [], []  # the learners made, the centre once the mean is out
                private_mean, make = self._private_mean, self._make

                def learner(mechanism, epsilon):
                    est = make(mechanism, epsilon)
                    made.append(est.set_params(loss=loss) if loss != "pinball" else est)
                    for c in centres:  # made after the mean's release
                        est.set_params(label_center=c)
                    return made[-1]

                def centred(labels, n, epsilon, noise, **kwargs):
                    u, out = private_mean(labels, n, epsilon, noise, **kwargs)
                    lo, hi = self._label_bounds()
                    c = float(out.theta[0]) * 0.5 * (hi - lo) + 0.5 * (hi + lo)
                    centres.append(min(hi, max(lo, c)))
                    for est in made:  # made before it
                        est.set_params(label_center=centres[-1])
                    return u, out

                self._make, self._private_mean = learner, centred
                try:
                    return super()._fit_with(X, y, context)
                finally:
                    del self._make, self._private_mean

        return Centred(epsilon=eps, delta=delta, label_range=label_range, random_state=seed)

    factory.__name__ = f"front_door_{loss}_centred"
    return factory


front_door_pinball_centred, front_door_huber_centred = (_front_door_centred(loss)
                                                        for loss in ("pinball", "huber"))


class _NoisyGDHuber:
    """The Huber regression loss (``HuberRegression(0.25)`` on the unit label scale, the single
    learner's) fitted by noisy projected gradient descent at (ε, δ > 0): the package's
    :func:`~dpconvex.privacy.mechanisms.noisy_gd.default_settings` (clip, steps, radius,
    learning rate, noise multiplier by the Gaussian-DP accounting), the per-example gradients
    ℓ'(x·θ − u)·x clipped to C, rows clipped to norm 1 with an intercept column of 1 and
    nothing penalized (the projection onto the ball of radius R only). The replace-one
    sensitivity of the clipped mean gradient is 2C/n whatever the loss, so the calibration of
    docs/privacy/tuning_gd_ledger.md#privacy-noisy-gd holds for it; a benchmark of that
    learner, not the package's (its ``NoisyGradientDescent`` takes margin losses only).

    Inside ``PrivateRegressor``'s safeguard (``front_door_noisy_gd``) it reads the fitting
    part only (the context's ``excluded`` rows left out, n = the fitting part's rows) and
    carries the dry-run certificate of ``NoisyGradientDescent`` at that (n, d, ε, δ).
    """

    def __init__(self, epsilon: float, delta: float, label_range, seed: int | None = None):
        self.epsilon, self.delta = float(epsilon), float(delta)
        self.label_range, self.seed = label_range, seed

    def fit(self, X, y, *, context=None):
        """The single learner; with ``context``, the safeguard's learner on its fitting part
        (``PrivateRegressor``'s fit hands it the context of its part)."""
        if context is not None:
            self._release(self.prepare(X, y, None, context=context), None, None, context, None)
            return self
        lo, hi = self.label_range
        u = (np.clip(np.asarray(y, dtype=float), lo, hi) - 0.5 * (hi + lo)) / (0.5 * (hi - lo))
        self._run(np.asarray(X, dtype=float), u, np.random.default_rng([int(self.seed), 99]))
        return self

    def predict(self, X):
        return self._predict_rows(np.asarray(X, dtype=float))

    def plan_checked(self, n, n_classes, n_features):
        """The plan of ``NoisyGradientDescent`` at (n, d, ε, δ), whose certificate it carries
        (the front door plans its learner on the shape it checked, and reads the plan's budget
        and notes)."""
        import dpconvex as dp

        return dp.NoisyGradientDescent(epsilon=self.epsilon, delta=self.delta).plan(
            n, 2, n_features)

    # the safeguard's learner: its fitting part, then its run
    def prepare(self, X, y_unit, plan, *, context):
        keep = np.ones(X.shape[0], dtype=bool) if context.excluded is None else ~context.excluded
        lo, hi = self.label_range
        u = (np.asarray(y_unit, dtype=float)[keep] - 0.5 * (hi + lo)) / (0.5 * (hi - lo))
        return np.asarray(X, dtype=float)[keep], u

    def _release(self, prep, plan, hold, context, warm_start):
        import dpconvex as dp

        X, u = prep
        self._run(X, u, context.noise.rng)
        self.certificate_ = dp.NoisyGradientDescent(epsilon=self.epsilon, delta=self.delta).certify(
            n=X.shape[0], n_classes=2, n_features=X.shape[1])

    def _run(self, X, u, rng):
        import math

        from dpconvex.objectives.losses import HuberRegression
        from dpconvex.privacy.budget import Budget
        from dpconvex.privacy.mechanisms.noisy_gd import default_delta, default_settings

        n, d = X.shape
        loss = HuberRegression(0.25, (-1.0, 1.0))
        rows = np.hstack([X * np.minimum(1.0, 1.0 / np.maximum(np.linalg.norm(X, axis=1), 1e-300))[:, None],
                          np.ones((n, 1))])
        delta = self.delta if self.delta > 0 else default_delta(n)
        s = default_settings(loss, n, d + 1, math.sqrt(2.0), Budget(self.epsilon, delta), accounting="gdp")
        norms = np.linalg.norm(rows, axis=1)
        theta, total, first = np.zeros(d + 1), np.zeros(d + 1), s.steps // 2
        for t in range(s.steps):
            d1 = loss.deriv(rows @ theta, u)
            w = d1 * np.minimum(1.0, s.clip / np.maximum(np.abs(d1) * norms, 1e-300))
            theta = theta - s.learning_rate * (rows.T @ w / n + rng.normal(scale=s.noise_std, size=d + 1))
            nrm = float(np.linalg.norm(theta))
            if nrm > s.radius:
                theta *= s.radius / nrm
            if t >= first:
                total += theta
        self.theta_ = total / (s.steps - first)

    def _predict_rows(self, X):
        X = np.asarray(X, dtype=float)
        X = X * np.minimum(1.0, 1.0 / np.maximum(np.linalg.norm(X, axis=1), 1e-300))[:, None]
        lo, hi = self.label_range
        z = np.clip(X @ self.theta_[:-1] + self.theta_[-1], -1.0, 1.0)
        return z * 0.5 * (hi - lo) + 0.5 * (hi + lo)


def noisy_gd_huber(eps: float, delta: float, label_range, seed: int):
    """The Huber regression loss by noisy gradient descent (:class:`_NoisyGDHuber`; δ = 1/n²
    where the cell's δ is 0)."""
    return _NoisyGDHuber(eps, delta, label_range, seed)


#: ``front_door_noisy_gd``: the safeguard's learner is noisy gradient descent below this many rows.
NOISY_GD_ROWS_BELOW = 2000


def front_door_noisy_gd(eps: float, delta: float, label_range, seed: int):
    """``PrivateRegressor`` (rule, mechanism, private mean and safeguard as they are) whose
    learner is :class:`_NoisyGDHuber` at δ > 0 on fewer than :data:`NOISY_GD_ROWS_BELOW` rows."""
    import dpconvex as dp

    class FrontDoorNoisyGD(dp.PrivateRegressor):
        def _fit_with(self, X, y, context):
            self._rows = X.shape[0]
            return super()._fit_with(X, y, context)

        def _make(self, mechanism, epsilon):
            if float(self.delta or 0.0) > 0 and self._rows < NOISY_GD_ROWS_BELOW:
                return _NoisyGDHuber(epsilon, float(self.delta), self.label_range)
            return super()._make(mechanism, epsilon)

    return FrontDoorNoisyGD(epsilon=eps, delta=delta, label_range=label_range, random_state=seed)


def safeguard_reach(seeds) -> None:
    """Print, per table × ε, the fraction ρ* of the constant's validation utility a model must
    save to be selected with probability 1/2 by ``PrivateRegressor``'s safeguard at its defaults.

    With the package's part sizes, the mean's share ε_c, the handicap m at ε − ε_c and the
    residual clip κ (:mod:`dpconvex.privacy.rules.front_door`), the constant at the training
    labels' mean has utility −S, S = n_val · mean(min(1, ((u − ū)/κ)²)) over the training rows
    (unit label scale). A model that predicts the validation rows with a fraction ρ of that
    utility left over is selected over the constant with probability 1/2 where ρ S = m, so
    ρ* = m/S; ρ* > 1: not even an exact model. "rule": the rule releases the mean (no model).
    The column ``R²`` is scikit-learn's ``Ridge()`` on the table's test rows, seed by seed:
    a model at that R² saves about that fraction where no residual is clipped.
    """
    from sklearn.linear_model import Ridge
    from sklearn.metrics import r2_score

    from dpconvex.privacy.rules import front_door as rules

    print("| table | n train | d | R² (Ridge) | " + " | ".join(f"ρ* at ε = {e:g}" for e in EPSILONS) + " |")
    print("|---|---|---|---|" + "---|" * len(EPSILONS))
    for name in corpus.tables("regression"):
        lo, hi = corpus.table(name).learner_label_range
        rows = []
        for seed in seeds:
            sp = corpus.split(name, seed)
            n, d = sp.X_train.shape
            u = (np.clip(sp.y_train, lo, hi) - 0.5 * (hi + lo)) / (0.5 * (hi - lo))
            per_row = float(np.mean(np.minimum(1.0, ((u - u.mean()) / rules.RESIDUAL_CLIP) ** 2)))
            r2 = r2_score(sp.y_test, Ridge().fit(sp.X_train, sp.y_train).predict(sp.X_test))
            cells = []
            for eps in EPSILONS:
                if n * eps / (d + 1) < rules.MEAN_BELOW:
                    cells.append(np.nan)
                    continue
                n_val = rules.safeguard_sizes(n, "auto", "safeguard_reach", rules.REGRESSION_VALIDATION)[1]
                rest = eps - rules.mean_epsilon(n, eps)
                cells.append(rules.selection_handicap(rest) / (n_val * per_row))
            rows.append((n, d, r2, cells))
        n, d = rows[0][0], rows[0][1]
        r2 = float(np.mean([r[2] for r in rows]))
        shown = []
        for k in range(len(EPSILONS)):
            values = [r[3][k] for r in rows]
            shown.append("rule" if np.isnan(values).any() else f"{np.mean(values):.3g}")
        print(f"| {name} | {n:,} | {d} | {r2:.3f} | " + " | ".join(shown) + " |")


def _fit_r2(est, sp) -> float:
    from sklearn.metrics import r2_score

    return float(r2_score(sp.y_test, est.fit(sp.X_train, sp.y_train).predict(sp.X_test)))


def run(seeds, out: Path, handicaps: bool, clips: bool = False, shares: bool = False) -> None:
    from sklearn.metrics import r2_score

    import dpconvex as dp
    import dpconvex.estimators.front_door as fde
    import dpconvex.privacy.rules.front_door as fdr

    defaults = (fdr.MEAN_BELOW, fdr.GAUSSIAN_ROWS_AT_LEAST, fdr.HANDICAP_LEVEL,
                fdr.MEAN_RECORDS)

    def setting(constant_below, gaussian_rows, handicap, mean_records):
        (fdr.MEAN_BELOW, fdr.GAUSSIAN_ROWS_AT_LEAST, fdr.HANDICAP_LEVEL,
         fdr.MEAN_RECORDS) = constant_below, gaussian_rows, handicap, mean_records

    warnings.simplefilter("ignore")
    with out.open("a") as fh:
        for name in corpus.REGRESSION_TABLES:
            for seed in seeds:
                sp = corpus.split(name, seed)
                lr = corpus.table(name).learner_label_range
                n, d = sp.X_train.shape
                mean = float(r2_score(sp.y_test, np.full(len(sp.y_test), sp.y_train.mean())))
                for eps in EPSILONS:
                    for dl in (0, 1):
                        delta = 1.0 / n**2 if dl else 0.0
                        common = {"epsilon": eps, "delta": delta, "label_range": lr,
                                  "random_state": seed}
                        res = {}
                        cb, gr, hl, mr = defaults
                        variants = {"fd": ((cb, gr, hl, mr), "auto"),
                                    "med_g": ((0.0, gr, hl, mr), True),
                                    "med_u": ((0.0, gr, hl, mr), False),
                                    "const": ((float("inf"), gr, hl, mr), "auto")}
                        if dl:
                            variants.update({"gmed_g": ((0.0, 0, hl, mr), True),
                                             "gmed_u": ((0.0, 0, hl, mr), False)})
                        if handicaps:
                            variants = {f"h{b:g}/m{m:g}": ((cb, gr, b, m), "auto")
                                        for b, m in HANDICAPS}
                        if shares:
                            variants = {}
                            share, level = fdr.MEAN_SHARE, fdr.HANDICAP_LEVEL
                            try:
                                for c, b in SHARES:
                                    fdr.MEAN_SHARE, fdr.HANDICAP_LEVEL = (share[0], c), b
                                    res[f"s{c:g}/h{b:g}"] = _fit_r2(dp.PrivateRegressor(**common), sp)
                            finally:
                                fdr.MEAN_SHARE, fdr.HANDICAP_LEVEL = share, level
                        if clips:
                            variants = {}
                            clip = fdr.RESIDUAL_CLIP
                            try:
                                for k in CLIPS:
                                    fdr.RESIDUAL_CLIP = fde.RESIDUAL_CLIP = k
                                    res[f"k{k:g}"] = _fit_r2(dp.PrivateRegressor(**common), sp)
                            finally:
                                fdr.RESIDUAL_CLIP = fde.RESIDUAL_CLIP = clip
                        try:
                            for key, (consts, guard) in variants.items():
                                setting(*consts)
                                res[key] = _fit_r2(dp.PrivateRegressor(safeguard=guard, **common), sp)
                        finally:
                            setting(*defaults)
                        if dl and not (handicaps or clips or shares):
                            res["ssp"] = _fit_r2(dp.PrivateLinearRegression(**common), sp)
                        fh.write(json.dumps(dict(table=name, seed=seed, eps=eps, dl=dl, n=n, d=d,
                                                 mean=mean, **res)) + "\n")
                fh.flush()
                print(name, seed, flush=True)


def run_centers(seeds, out: Path) -> None:
    """One JSON line per (table, training rows, seed, ε) with r < REGRESSION_RECORDS, δ = 0."""
    from harness import subsample
    from sklearn.metrics import r2_score

    import dpconvex as dp
    import dpconvex.privacy.rules.noise_level as nl

    share, floor = nl.LABEL_CENTER_SHARE, nl.REFERENCE_NORMS["centered regression"]
    warnings.simplefilter("ignore")
    with out.open("a") as fh:
        for name in corpus.REGRESSION_TABLES:
            lr = corpus.table(name).learner_label_range
            for seed in seeds:
                sp = corpus.split(name, seed)
                for rows in CENTER_ROWS:
                    if rows is not None and len(sp.y_train) <= rows:
                        continue
                    X, y = (sp.X_train, sp.y_train) if rows is None else subsample(sp.X_train, sp.y_train,
                                                                                      rows, seed)
                    n, d = X.shape
                    mean = float(r2_score(sp.y_test, np.full(len(sp.y_test), y.mean())))
                    for eps in EPSILONS:
                        if n * eps / (d + 1) >= nl.REGRESSION_RECORDS:
                            continue
                        res = {}
                        for loss in ("huber", "pinball"):
                            common = {"loss": loss, "epsilon": eps, "label_range": lr, "random_state": seed}
                            res[f"{loss}_range"] = _fit_r2(
                                dp.PrivateLinearRegressor(label_center="range", **common), _Rows(X, y, sp))
                            try:
                                for c, f in CENTERS:
                                    nl.LABEL_CENTER_SHARE = c
                                    nl.REFERENCE_NORMS["centered regression"] = f
                                    res[f"{loss}_s{c:g}_f{f:g}"] = _fit_r2(
                                        dp.PrivateLinearRegressor(**common), _Rows(X, y, sp))
                            finally:
                                nl.LABEL_CENTER_SHARE = share
                                nl.REFERENCE_NORMS["centered regression"] = floor
                        fh.write(json.dumps(dict(table=name, rows=rows, seed=seed, eps=eps, n=n, d=d,
                                                 mean=mean, **res)) + "\n")
                fh.flush()
                print(name, seed, flush=True)


class _Rows:
    """A split's training rows replaced by (X, y), its test rows kept."""

    def __init__(self, X, y, sp):
        self.X_train, self.y_train, self.X_test, self.y_test = X, y, sp.X_test, sp.y_test


def _cell_means(path: Path, keys: tuple[str, ...]) -> tuple[list[str], dict]:
    """The result columns of a file of JSON lines and, per cell (the records' values of ``keys``),
    each column's mean over the seeds of R² − the training mean's."""
    recs = [json.loads(line) for line in path.open()]
    fixed = {*keys, "seed", "n", "d", "mean"}
    cols = list(dict.fromkeys(k for r in recs for k in r if k not in fixed))
    cells = collections.defaultdict(lambda: collections.defaultdict(list))
    for r in recs:
        for k in cols:
            if k in r:
                cells[tuple(r[key] for key in keys)][k].append(r[k] - r["mean"])
    return cols, {c: {k: float(np.mean(v)) for k, v in kv.items()} for c, kv in cells.items()}


def center_summary(path: Path) -> None:
    """Per column, over the cells (table × rows × ε, means over the seeds) of R² − the mean's:
    the mean, the mean at ε >= 1 and the cells at ε >= 1 below the mean − 0.05 (the worst)."""
    cols, means = _cell_means(path, ("table", "rows", "eps"))
    print(f"{len(means)} cells ({sum(c[2] >= 1 for c in means)} at eps >= 1)")
    for k in cols:
        high = sorted(((m[k], c) for c, m in means.items() if c[2] >= 1), key=lambda vc: vc[0])
        print(f"{k:16s} mean {np.mean([m[k] for m in means.values()]):+.4f}  at eps >= 1: mean "
              f"{np.mean([v for v, _ in high]):+.4f}, below the mean - 0.05: "
              f"{sum(v < -0.05 for v, _ in high)} (worst {high[0][0]:+.3f} {high[0][1]})")


def summary(path: Path) -> None:
    """Per cell, the means of (R² − the mean's); then the cells below the mean − 0.005 and
    those where the unguarded median beats a column by more than 0.05."""
    cols, means = _cell_means(path, ("table", "eps", "dl"))
    print("table eps dl | " + " ".join(f"{k:>9s}" for k in cols))
    for c in sorted(means):
        print(f"{c[0]:18s} {c[1]:g} {c[2]} | " + " ".join(
            f"{means[c][k]:+9.3f}" if k in means[c] else "        -" for k in cols))
    for k in cols:
        vals = [m[k] for m in means.values() if k in m]
        missed = sum(m["med_u"] - m[k] > 0.05 for m in means.values() if k in m and "med_u" in m)
        print(f"{k:12s} cells {len(vals):3d}  below the mean − 0.005: "
              f"{sum(v < -0.005 for v in vals):3d}  mean {np.mean(vals):+.3f}  worst "
              f"{min(vals):+.3f}  unguarded median better by > 0.05: {missed}")


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", choices=("selection", "report"), default="selection")
    p.add_argument("--out", type=Path)
    p.add_argument("--handicaps", action="store_true")
    p.add_argument("--clips", action="store_true")
    p.add_argument("--shares", action="store_true")
    p.add_argument("--centers", action="store_true")
    p.add_argument("--summary", type=Path)
    p.add_argument("--center-summary", type=Path)
    p.add_argument("--reach", action="store_true")
    a = p.parse_args(argv)
    if a.summary:
        summary(a.summary)
        return
    if a.center_summary:
        center_summary(a.center_summary)
        return
    seeds = corpus.SELECTION_SEEDS if a.seeds == "selection" else corpus.REPORT_SEEDS
    if a.reach:
        safeguard_reach(seeds)
        return
    if a.centers:
        run_centers(seeds, a.out)
        return
    run(seeds, a.out, a.handicaps, a.clips, a.shares)


if __name__ == "__main__":
    main()

