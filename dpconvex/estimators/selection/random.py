"""Private hyperparameter selection by random repetition ([LT19]_, [PS22]_).

Every run trains a random candidate on the same training split (a share of all rows drawn independently of the
data) with ε₁ and scores it on the disjoint validation split with two-sided geometric noise; after K runs, K
drawn from a truncated negative binomial law D_{η,γ} ([PS22]_ Definition 1), only the best-scoring model is
released. By [PS22]_ Corollary 3 the release is ((2 + η) ε₁)-DP (parallel composition within a run, [McS09]_),
and the search sets ε₁ = ε / (2 + η). K, the scores and the other runs' models are not
released (nor in the fitted search or its pickle); the run time and the data holder's NOT
PRIVATE channels (:func:`~dpconvex.verbosity`, :func:`~dpconvex.collect_diagnostics`: each
run's release and solve) reveal K.
Derivation: docs/privacy/tuning_gd_ledger.md#privacy-random-search.

References
----------
.. [LT19] J. Liu, K. Talwar. Private Selection from Private Candidates. STOC 2019
   (arXiv:1811.07971), random stopping with a geometric number of runs: 3ε.
.. [PS22] N. Papernot, T. Steinke. Hyperparameter Tuning with Renyi Differential
   Privacy. ICLR 2022 (arXiv:2110.03620v2), Definition 1 (truncated negative
   binomial D_{η,γ}), Theorem 2, Corollary 3 (pure DP: (2 + η)ε).
.. [McS09] F. McSherry. Privacy Integrated Queries. SIGMOD 2009 (parallel
   composition).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone

from ..._validation import NoiseSource, check_float, check_option, describe_value
from ...errors import DataValidationError, ParameterError, PrivacyError, user_stacklevel
from ...privacy.budget import Budget, split_even
from ...privacy.certificate import Certificate, Condition
from ...privacy.composition import compose_parallel, compose_repetitions
from ..base import NO_CONTEXT, FitContext, fit_with
from ..parts import Parts, mistakes
from .grid import (
    Selected,
    SelectedEstimator,
    _find_certificate,
    _unfitted,
    naming_candidate,
    public_size,
    refuse_declared_learner,
    search_vouch,
    state_vouched_steps,
)

__all__ = ["PrivateRandomSearch", "Repetitions", "discrete_laplace"]

#: Largest ``mean_runs``: every run is one fit of a candidate, so the expected time of the
#: search grows linearly with it (and the heavy-tailed number of runs much beyond it).
MAX_MEAN_RUNS = 1e5

#: η of the truncated negative binomial family ([PS22]_ Definition 1) for each name.
_ETA = {"geometric": 1.0, "logarithmic": 0.0}


@dataclass(frozen=True)
class _RunSelected(Selected):
    """:class:`~dpconvex.estimators.selection.grid.Selected` with the released run's warnings
    (``shown``), issued once the search's hold has committed (``_set_selected``): they are
    functions of that run's release."""

    shown: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Repetitions:
    """The law of the number of runs K: D_{η,γ} of [PS22]_ Definition 1 for η ∈ {0, 1}.

    Parameters
    ----------
    kind : {"geometric", "logarithmic"}
        η = 1: P(K = k) = γ (1 − γ)^{k−1}; η = 0: P(K = k) = (1 − γ)^k / (k log(1/γ)).
    gamma : float
        γ in (0, 1).

    References
    ----------
    [PS22]_ Definition 1 (the truncated negative binomial law D_{η,γ}) and Corollary 3;
    [LT19]_ (η = 1).

    Examples
    --------
    >>> from dpconvex.estimators.selection.random import Repetitions
    >>> law = Repetitions.with_mean("geometric", 10.0)
    >>> law.gamma, law.multiplier, law.pmf(1)
    (0.1, 3.0, 0.1)
    """

    kind: str
    gamma: float

    @property
    def eta(self) -> float:
        return _ETA[self.kind]

    @property
    def multiplier(self) -> float:
        """2 + η: the search is ((2 + η) ε₁)-DP when one run is ε₁-DP ([PS22]_ Cor. 3).

        References
        ----------
        [PS22]_ Corollary 3 (pure DP: (2 + η) ε₁).
        """
        return 2.0 + self.eta

    @classmethod
    def with_mean(cls, kind: str, mean: float) -> Repetitions:
        """The member of the family with E[K] = ``mean`` (> 1); γ by bisection (public).

        Parameters
        ----------
        kind : {"geometric", "logarithmic"}
            η = 1 or η = 0.
        mean : float
            E[K], finite and > 1.

        Returns
        -------
        Repetitions
            The law of that kind with that mean (geometric: γ = 1/mean exactly).

        Raises
        ------
        ParameterError
            An unknown ``kind``, or a ``mean`` that is not a finite float > 1.

        Examples
        --------
        >>> from dpconvex.estimators.selection.random import Repetitions
        >>> Repetitions.with_mean("geometric", 10.0).gamma
        0.1
        >>> round(Repetitions.with_mean("logarithmic", 10.0).mean, 6)
        10.0
        """
        if not isinstance(kind, str) or kind not in _ETA:
            raise ParameterError(f"The 'kind' argument of Repetitions.with_mean must be one of "
                                 f"{sorted(_ETA)}. Got {describe_value(kind)} instead.")
        real = isinstance(mean, (int, float, np.integer, np.floating))
        if not real or isinstance(mean, (bool, np.bool_)) or not (math.isfinite(mean)
                                                                  and mean > 1.0):
            raise ParameterError(f"The 'mean' argument of Repetitions.with_mean (the mean number "
                                 "of runs) must be a finite float > 1. "
                                 f"Got {describe_value(mean)} instead.")
        if kind == "geometric":
            return cls(kind, 1.0 / mean)
        low, high = 1e-300, 1.0 - 1e-16  # E[K] = (1 − γ)/(γ log(1/γ)) decreases in γ
        for _ in range(200):
            middle = math.sqrt(low * high) if high / low > 4 else 0.5 * (low + high)
            if cls(kind, middle).mean > mean:
                low = middle
            else:
                high = middle
        return cls(kind, high)

    @property
    def mean(self) -> float:
        g = self.gamma
        if self.kind == "geometric":
            return 1.0 / g
        return (1.0 - g) / (g * math.log(1.0 / g))

    def pmf(self, k: int) -> float:
        """P(K = k), k >= 1.

        Parameters
        ----------
        k : int
            The number of runs.

        Returns
        -------
        float
            Its probability (0 for k < 1).

        Examples
        --------
        >>> from dpconvex.estimators.selection.random import Repetitions
        >>> law = Repetitions("geometric", 0.1)
        >>> law.pmf(0), law.pmf(1), round(law.pmf(2), 12)
        (0.0, 0.1, 0.09)
        """
        g = self.gamma
        if k < 1:
            return 0.0
        if self.kind == "geometric":
            return g * (1.0 - g) ** (k - 1)
        return (1.0 - g) ** k / (k * math.log(1.0 / g))

    def pgf(self, x: float) -> float:
        """E[x^K] for x in [0, 1]: P(best of K runs <= s) = pgf(P(one run <= s)).

        Parameters
        ----------
        x : float
            A probability, in [0, 1].

        Returns
        -------
        float
            E[x^K] (1 at x = 1, up to rounding).

        Examples
        --------
        >>> from dpconvex.estimators.selection.random import Repetitions
        >>> Repetitions("geometric", 0.1).pgf(0.5)  # 0.1 · 0.5 / (1 − 0.9 · 0.5)
        0.0909090909...
        """
        g = self.gamma
        if self.kind == "geometric":
            return g * x / (1.0 - (1.0 - g) * x)
        return math.log1p(-(1.0 - g) * x) / math.log(g)

    def sample(self, rng: np.random.Generator) -> int:
        """One draw of K (>= 1) from public randomness.

        Parameters
        ----------
        rng : numpy.random.Generator
            The public random source.

        Returns
        -------
        int
            K >= 1.

        Examples
        --------
        >>> from dpconvex.estimators.selection.random import Repetitions
        >>> Repetitions.with_mean("geometric", 10.0).sample(np.random.default_rng(0)) >= 1
        True
        """
        if self.kind == "geometric":
            return int(rng.geometric(self.gamma))  # support {1, 2, ...}
        return int(rng.logseries(1.0 - self.gamma))  # P(k) = -(1-γ)^k / (k log γ), k >= 1


#: Below this ε the geometric draws of :func:`discrete_laplace` (mean about 1/ε) leave float64's
#: exact integers (2^53) with non-negligible probability; numpy's sampler saturates near 1e-19.
DISCRETE_LAPLACE_MIN_EPSILON = 1e-9


def discrete_laplace(epsilon: float, rng: np.random.Generator) -> int:
    """One draw of ξ with P(ξ = k) ∝ exp(−ε|k|), k ∈ ℤ (the geometric mechanism's noise).

    The difference of two i.i.d. geometric variables with success probability
    1 − e^{−ε} (Ghosh, Roughgarden & Sundararajan, STOC 2009). Added to an integer
    count of sensitivity 1 it is ε-DP, with no floating-point output.

    Parameters
    ----------
    epsilon : float
        ε.
    rng : numpy.random.Generator
        The noise source.

    Returns
    -------
    int
        ξ.

    Examples
    --------
    >>> from dpconvex.estimators.selection.random import discrete_laplace
    >>> draws = [discrete_laplace(1.0, np.random.default_rng(i)) for i in range(5)]
    >>> all(isinstance(k, int) for k in draws)
    True
    """
    p = -math.expm1(-float(epsilon))
    return int(rng.geometric(p)) - int(rng.geometric(p))


def _validation_size(n: int, fraction: float, caller: str) -> int:
    """The validation rows of n at ``fraction``; DataValidationError where the training part
    would hold fewer than 2 rows."""
    n_val = int(math.ceil(fraction * n))
    if n_val < 1 or n - n_val < 2:
        raise DataValidationError(
            f"{caller}: n_samples = {n} rows cannot be split into a training part of at least "
            f"2 rows and a validation part of validation_fraction = {fraction:g}. Use more data.")
    return n_val


class PrivateRandomSearch(SelectedEstimator, MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """ε-DP hyperparameter selection by random repetition ([LT19]_, [PS22]_ Cor. 3).

    K runs, each a random candidate trained with ε₁ = ε/(2 + η) and scored with ε₁; the
    best-scoring model is released (docs/privacy/tuning_gd_ledger.md#privacy-random-search).
    Dask rows as in :class:`~dpconvex.estimators.selection.grid.PrivateGridSearch`.

    Parameters
    ----------
    estimator : estimator
        A dpconvex private classifier with a pure ε-DP mechanism (an ``epsilon``
        parameter, ``delta`` 0 if it has one, a ``certificate_`` after fit), or a
        Pipeline whose single private step has them (its other steps, and the class of the
        private step, as in :class:`~dpconvex.estimators.selection.grid.PrivateGridSearch`).
        Cloned for every run.
    param_grid : dict, list of dict, or "auto"
        Candidate settings as in :class:`~dpconvex.estimators.selection.grid.PrivateGridSearch`,
        fixed before seeing the data, or ``"auto"``
        (:func:`dpconvex.estimators.selection.grid.auto_lam_grid` for the training split and ε₁).
    epsilon : float
        ε > 0 of the whole search (each run gets ε₁ = ε/(2 + η)).
    repetitions : {"geometric", "logarithmic"}, default="logarithmic"
        The law of K: geometric (η = 1, [LT19]_, cost 3ε₁) or logarithmic (η = 0, cost 2ε₁).
    mean_runs : float, default=10.0
        E[K] > 1 (public). The number of fits is random and unbounded (tail
        P(K > t) <= e^{−γ t}); it is never capped, since a cap would change the law.
    validation_fraction : float, default=0.1
        Share of the rows in the validation split, in (0, 1).
    {random_state}
        It seeds the split, K, the candidate draws, the runs' noise and the score noise.
    {search_ledger_labels}

    Attributes
    ----------
    best_estimator_ : estimator
        The released model: the best run's fit (on the training split, with ε₁). It holds
        the ledger the search charged, so a refit of it is charged as a fit is.
    best_params_ : dict
        The released candidate's grid values as given; an estimator value's ``epsilon``,
        ``random_state``, ``unknown_labels`` and a listed ``classes`` are the search's on the
        fitted step (``best_estimator_``).
    best_index_ : int
        Index of the released candidate in ``candidates_``.
    candidates_ : list of dict
        The candidate parameter settings, in grid order: the grid values as given; an
        estimator value's ``epsilon``, ``random_state``, ``unknown_labels`` and a listed
        ``classes`` are the search's on the fitted runs.
    part_sizes_ : list of int
        [training rows, validation rows] (they depend only on n).
    certificate_ : Certificate
        ε = (2 + η) ε₁ <= ε; ``parts`` holds the released run's certificate.

    References
    ----------
    [LT19]_ (η = 1, geometric K); [PS22]_ Corollary 3 (the pure-DP case of Theorem 2).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import PrivateLogisticRegression, PrivateRandomSearch
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 3)); X /= np.linalg.norm(X, axis=1, keepdims=True)
    >>> y = (X[:, 0] > 0).astype(int)
    >>> search = PrivateRandomSearch(PrivateLogisticRegression(), {"lam": [0.01, 0.1]},
    ...                              epsilon=1.0, mean_runs=3, classes=[0, 1],
    ...                              random_state=0).fit(X, y)
    >>> search.best_params_["lam"] in (0.01, 0.1)
    True
    >>> search.certificate_.epsilon <= 1.0
    True
    """

    def __init__(self, estimator: Any, param_grid: Any, *, epsilon: float,
                 repetitions: str = "logarithmic", mean_runs: float = 10.0,
                 validation_fraction: float = 0.1, random_state: int | None = None,
                 accountant: Any = None, classes: Any = None, unknown_labels: str = "raise",
                 vouch: Any = ()):
        self._store_params(locals())

    def _check_params(self, owner: str) -> tuple[tuple[float, float, Repetitions, float],
                                                  list[tuple[str, Any]]]:
        """(ε, ε₁, the repetitions' law, the validation fraction), checked before anything is
        read, and the ledgers the grid's values hold (:meth:`_checked`)."""
        epsilon, _, grid_ledgers = self._checked(owner)
        check_option("repetitions", self.repetitions, sorted(_ETA), owner)
        mean = check_float("mean_runs", self.mean_runs, owner, low=1.0, high=MAX_MEAN_RUNS,
                           high_inclusive=True)
        frac = check_float("validation_fraction", self.validation_fraction, owner, high=1.0)
        reps = Repetitions.with_mean(self.repetitions, mean)
        eps1 = split_even(epsilon, int(reps.multiplier))  # (2 + η) ε₁ <= ε in floating point
        # the score noise's sampler: exact above it only
        if not eps1 >= DISCRETE_LAPLACE_MIN_EPSILON:
            raise ParameterError(
                f"{type(self).__name__}.fit: epsilon = {epsilon:g} gives each run epsilon_1 = "
                f"{eps1:.3g}, "
                f"below {DISCRETE_LAPLACE_MIN_EPSILON:g}, where the geometric draws of the score "
                "noise "
                "lose their exactness in float64. Use a larger epsilon."
            )
        return (epsilon, eps1, reps, frac), grid_ledgers

    def _candidates(self, caller: str, n_train: int, d: int, eps1: float, classes: Any,
                    rows: tuple[Any, Any]) -> list[dict[str, Any]]:
        """The grid's candidates, each refused unless pure epsilon-DP (``caller``: the message's
        "Owner.method"; ``rows``: the (X, y) whose label set a run reads when none is public)."""
        candidates = self._grid_candidates(caller.split(".")[0], (n_train, d), eps1)
        planned = self._planned_delta((n_train, d), eps1, classes, caller.split(".")[0], rows)
        if (planned or 0.0) > 0.0:
            raise ParameterError(
                f"{caller}: {type(self.estimator).__name__} spends delta > 0 at the grid's "
                "parameters (its "
                f"plan on {n_train} rows); private selection by random repetition is implemented "
                "for pure "
                "epsilon-DP candidates only. Use its pure epsilon-DP form (delta = 0 where it "
                "has one), or "
                f"PrivateGridSearch (docs/privacy/tuning_gd_ledger.md#privacy-private-tuning)."
            )
        base = self.estimator.get_params(deep=True)
        for candidate in candidates:  # the theorem used here is the pure-ε one: δ must be 0
            for key in self._keys("delta"):
                if float(candidate.get(key, base[key]) or 0.0) != 0.0:
                    raise ParameterError(
                        f"{caller}: candidate {describe_value(candidate)} has {key} = "
                        f"{describe_value(candidate.get(key, base[key]))} > "
                        "0; private selection by random repetition is implemented for pure "
                        "epsilon-DP "
                        f"candidates only. Set {key} to 0 or None in the estimator and the grid "
                        "(delta = 0; "
                        f"docs/privacy/tuning_gd_ledger.md#privacy-private-tuning)."
                    )
        return candidates

    def _budget(self, X: Any, y: Any, params: tuple[float, float, Repetitions, float],
                classes: Any, owner: str) -> tuple[Budget, int | None]:
        """The (ε, 0) a fit on (X, y) holds (its candidates are pure ε-DP), and n where X tells
        it; ``params``: :meth:`_check_params`'s first (ε first)."""
        return Budget(params[0]), public_size(X)[0]

    def _select(self, X: Any, y: Any, checked: tuple[float, float, Repetitions, float],
                classes: Any, context: FitContext, noise: NoiseSource) -> Selected:
        """Split the rows into a training and a validation part, then K runs (K drawn from the
        repetitions' law): a random candidate trained on the training part, scored with
        noise on the validation part; the best-scoring run is released. The runs draw from
        generators spawned from ``noise`` and share one label-set warning."""
        owner = type(self).__name__
        epsilon, eps1, repetitions, fraction = checked
        noise_rng = noise.rng
        n = X.shape[0]
        n_val = _validation_size(n, fraction, f"{owner}.fit")
        order = noise_rng.permutation(n)
        train, validation = order[n_val:], order[:n_val]
        candidates = self._candidates(f"{owner}.fit", train.size, X.shape[1], eps1, classes,
                                      (X, y))
        m = len(candidates)
        overrides, labels = self._overrides(eps1, self.unknown_labels, y, classes, owner, context)
        split = Parts(X, y, [train, validation])
        (X_train, y_train), (X_validation, y_validation) = split[0], split[1]
        k_runs = repetitions.sample(noise_rng)  # public randomness; never stored or released
        best: tuple[float, int, Any, Certificate, list[Any]] | None = None
        for _ in range(k_runs):
            index = int(noise_rng.integers(m))
            candidate = clone(self.estimator)
            candidate.set_params(**_unfitted(candidates[index]), **overrides)
            refuse_declared_learner(candidate, search_vouch(self.vouch, owner), f"{owner}.fit")
            with warnings.catch_warnings(record=True) as caught:  # their count would tell K
                warnings.simplefilter("always")
                with naming_candidate(candidates[index], f"{owner}.fit"):
                    fit_with(candidate, X_train, y_train,
                             self._candidate_context(context, labels),
                             self._sources(candidate, noise_rng.spawn(1)[0], noise.seeded),
                             caller=f"{owner}.fit", vouch=search_vouch(self.vouch, owner))
                run_mistakes = mistakes(candidate, X_validation, y_validation, f"{owner}.fit")
            certificate = _find_certificate(candidate, owner)
            if (
                not certificate.private
                or certificate.delta != 0.0
                or certificate.epsilon > eps1
            ):
                raise PrivacyError(
                    f"{owner}.fit: candidate {describe_value(candidates[index])} released with "
                    "(epsilon, "
                    "delta) = "
                    f"({certificate.epsilon:g}, {certificate.delta:g}), not within the "
                    "per-run "
                    f"budget ({eps1:g}, 0) ({certificate.mechanism}). Random-repetition "
                    "selection "
                    "needs pure epsilon-DP private candidates."
                )
            score = (-float(run_mistakes + discrete_laplace(eps1, noise_rng))
                     + float(noise_rng.uniform()))
            if best is None or score > best[0]:
                best = (score, index, candidate, certificate, caught)
        assert best is not None  # K >= 1
        _, best_index, model, run_certificate, shown = best
        certificate = self._certificate(f"{owner}.fit", epsilon, eps1, repetitions,
                                        run_certificate, m, [train.size, validation.size])
        state_vouched_steps(certificate, [run_certificate])  # every run's vouch is the same
        if labels is not None:
            certificate.state(labels.assumption)
        if noise.seeded:
            certificate.seeded = True
        # the released run's warnings only, issued after the hold commits (_set_selected)
        return _RunSelected(candidates, best_index, model, [train.size, validation.size],
                           certificate, shown=tuple(shown))

    def _set_selected(self, selected: Selected, n_features: int, names: np.ndarray | None,
                      ledger: Any) -> Any:
        """Store the selected run (:meth:`SelectedEstimator._set_selected`), then re-issue its
        warnings: functions of a release, issued once the search's hold has committed (one
        turned into an error inside the hold would refuse after the noise)."""
        fitted = super()._set_selected(selected, n_features, names, ledger)
        for caught_warning in getattr(selected, "shown", ()):
            warnings.warn(caught_warning.message, stacklevel=user_stacklevel())
        return fitted

    def _certificate(self, caller: str, epsilon: float, eps1: float, repetitions: Repetitions,
                     run_certificate: Certificate, m: int, sizes: list[int]) -> Certificate:
        score = Certificate(
            mechanism="noisy validation score (geometric mechanism, Ghosh et al. 2009)",
            epsilon_requested=eps1, epsilon=eps1, private=True,
            conditions=[Condition(
                "score sensitivity", True, "computed from public parameters",
                "z = mistakes on the validation part; replacing one validation record "
                "changes z by at most 1; noise P(k) ∝ exp(-epsilon_1 |k|)")],
            quantities={"validation size": sizes[1], "noise": "two-sided geometric, "
                        f"P(k) ∝ exp(-{eps1:.6g} |k|)"})
        one_run = compose_parallel(
            [run_certificate, score],
            mechanism="one run: a random candidate trained on the training part + its "
                      "noisy score on the disjoint validation part",
            epsilon_requested=eps1, delta_requested=0.0, labels=["model", "score"],
            conditions=[Condition(
                "disjoint parts", True, "enforced by dpconvex",
                f"random permutation (independent of the data): training part of "
                f"{sizes[0]} rows, validation part of {sizes[1]} rows")],
            caller=caller)
        # eps1 = split_even(epsilon, 2 + eta): (2 + eta) * eps1 <= epsilon
        return compose_repetitions(
            one_run, eta=repetitions.eta, epsilon_run=eps1,
            mechanism=(
                f"private selection by random repetition, {repetitions.kind} number of runs (Liu "
                "& Talwar 2019; Papernot & Steinke 2022, Cor. 3)"
            ),
            epsilon_requested=epsilon,
            each_run="parallel composition of its model and its score",
            candidates=f"{m} candidates; each run draws one uniformly at random",
            runs=(f"K ~ {repetitions.kind} (eta = {repetitions.eta:g}, gamma = "
                  f"{repetitions.gamma:.6g}, E[K] = {repetitions.mean:.4g}), drawn from public "
                  "randomness; K and the scores are not stored"),
            per_run=(f"every run's certificate has delta = 0 and epsilon <= {eps1:.6g}, checked "
                     "after each fit"),
            quantities={
                "candidates m": m,
                "part sizes": list(sizes),
                "epsilon per run": eps1,
                "multiplier (2 + eta)": repetitions.multiplier,
                "mean number of runs": repetitions.mean,
            },
            assumptions=[
                "replace-one adjacency; n is public (it fixes the part sizes)",
                "only the best run's model is released: K, the scores and the other runs' "
                "models are not in the model or its pickle; the fit's run time and the data "
                "holder's NOT PRIVATE channels (verbosity, collect_diagnostics: each run's "
                "release and solve) reveal K and are not released",
                "the run certificate in `parts` is the released run's; every run had "
                "the same per-run bound",
            ],
            caller=caller,
        )

    def _certify_with(self, X: Any, y: Any) -> Certificate:
        """:meth:`certify`: the first candidate on a training part of the size a run gets.

        The ε accounting does not depend on which candidate is released (every run
        has the same bound ε₁), so this certifies candidate 0. Raises what ``fit`` would
        raise for that candidate.
        """
        owner = type(self).__name__
        (epsilon, eps1, repetitions, fraction), _ = self._check_params(owner)
        classes = self._public_classes(owner)
        NO_CONTEXT.one_label_warning(owner=owner if classes is None else "", y=y)
        X_checked, y_checked = self._checked_rows(X, y, classes, f"{owner}.certify")
        n = X_checked.shape[0]
        n_val = _validation_size(n, fraction, f"{owner}.certify")
        train_index = np.arange(n_val, n)
        labels = self._certify_labels(y_checked, self.unknown_labels, classes,
                                      owner)  # (its warning first)
        candidates = self._candidates(f"{owner}.certify", train_index.size, X_checked.shape[1],
                                      eps1, classes, (X_checked, y_checked))
        with naming_candidate(candidates[0], f"{owner}.certify"):  # as fit's refusal
            run_certificate = self._certified(
                candidates[0],
                eps1,
                self.unknown_labels,
                Parts(X_checked, y_checked, [train_index])[0],
                owner,
                labels,
            )
        certificate = self._certificate(
            f"{owner}.certify",
            epsilon,
            eps1,
            repetitions,
            run_certificate,
            len(candidates),
            [train_index.size, n_val],
        )
        certificate.state(labels.assumption if labels is not None else None)
        certificate.seeded = self.random_state is not None  # as the fit's, with its seed
        return certificate
