"""PrivateRandomSearch (Liu & Talwar 2019; Papernot & Steinke 2022, Cor. 3) and param_grid="auto".

Exact privacy loss of the repetition on tiny problems (with a mutant that must be
caught), the law of K and of the score noise, the budget accounting, what is fitted
and released, and the named parameter errors.
"""

from __future__ import annotations

import array
import itertools
import math
import warnings
from typing import Any

import numpy as np
import pytest
from _helpers import fit_drawing_from
from scipy.stats import binomtest, chi2
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.estimator_checks import parametrize_with_checks

from dpconvex import (
    BudgetAccountant,
    Certificate,
    NoisyGradientDescent,
    PrivacyWarning,
    PrivateGridSearch,
    PrivateLogisticRegression,
)
from dpconvex.errors import (
    BudgetError,
    DataValidationError,
    ParameterError,
    PrivacyError,
    SolverError,
)
from dpconvex.estimators.selection.grid import AUTO_LAM_FACTORS, auto_lam_grid
from dpconvex.estimators.selection.random import PrivateRandomSearch, Repetitions, discrete_laplace
from dpconvex.privacy.budget import split_even
from dpconvex.privacy.certificate import DeltaRows

FITS: list[Any] = []


class Mistakes(ClassifierMixin, BaseEstimator):
    """Test double: makes exactly ``k`` mistakes on any >= k rows with all-ones labels
    (predicts 0 on the first k rows); records every fit (X[:, 0] holds the row ids)."""

    def __init__(self, k: int = 0, epsilon: float = 1.0, random_state: Any = None,
                 accountant: Any = None, delta: float = 0.0):
        self.k = k
        self.epsilon = epsilon
        self.random_state = random_state
        self.accountant = accountant
        self.delta = delta

    def fit(self, X, y):
        FITS.append((self, np.asarray(X)[:, 0].astype(int).copy(), self.epsilon,
                     self.accountant))
        self.classes_ = np.array([0, 1])
        self.certificate_ = Certificate("test double", self.epsilon, self.epsilon,
                                        delta=self.delta)
        return self

    def predict(self, X):
        out = np.ones(len(X), dtype=int)
        out[: self.k] = 0
        return out


def _data(n: int) -> tuple[np.ndarray, np.ndarray]:
    return np.arange(n, dtype=float).reshape(-1, 1), np.ones(n, dtype=int)


# --- exact privacy loss of best-of-K on tiny problems -----------------------------------
def _best_of_k_pmf(pmf: np.ndarray, pgf) -> np.ndarray:
    """Law of the best of K i.i.d. scores with law ``pmf`` on an ordered finite set."""
    cdf = np.concatenate([[0.0], np.cumsum(pmf)])
    cdf[-1] = 1.0
    return np.array([pgf(cdf[s + 1]) - pgf(cdf[s]) for s in range(pmf.size)])


def _pair(p: np.ndarray, t: np.ndarray, eps1: float) -> np.ndarray:
    """q = p · e^{ε₁ clip(t + c, -1, 1)} with c (bisection) making Σq = 1: |log p/q| <= ε₁."""
    lo, hi = -2.0, 2.0
    for _ in range(100):
        c = 0.5 * (lo + hi)
        if float(np.sum(p * np.exp(eps1 * np.clip(t + c, -1, 1)))) > 1:
            hi = c
        else:
            lo = c
    q = p * np.exp(eps1 * np.clip(t + lo, -1, 1))
    return q / q.sum()


def _max_loss(pgf, eps1: float, trials: int, rng: np.random.Generator) -> float:
    """Largest |log P(best = s | D) / P(best = s | D')| over ε₁-DP laws of one run's score.

    A run outputs one of L ordered scores with law p (on D) and q (on D'), every ratio
    p_s/q_s within e^{±ε₁}: random pairs, and the extreme ones (t_s = ±1) on 2 and 3
    points with a small mass on the top score.
    """
    laws = []
    for L in (2, 3):
        for signs in itertools.product([-1.0, 1.0], repeat=L):
            for top in (0.5, 0.1, 1e-2, 1e-3):
                base = np.r_[np.full(L - 1, (1 - top) / (L - 1)), top]
                laws.append((base, np.array(signs)))
    for _ in range(trials):
        L = int(rng.integers(2, 6))
        laws.append((rng.dirichlet(np.full(L, 0.5)), rng.uniform(-1.5, 1.5, L)))
    worst = 0.0
    for p, t in laws:
        q = _pair(p, t, eps1)
        assert np.all(np.abs(np.log(p / q)) <= eps1 + 1e-9)  # one run is ε₁-DP
        a, b = _best_of_k_pmf(p, pgf), _best_of_k_pmf(q, pgf)
        keep = (a > 1e-300) & (b > 1e-300)
        worst = max(worst, float(np.max(np.abs(np.log(a[keep] / b[keep])))))
    return worst


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["geometric", "logarithmic"])
@pytest.mark.parametrize("mean", [2.0, 10.0, 100.0])
def test_exact_loss_of_repetition_within_the_theorem(kind, mean):
    # Papernot & Steinke 2022 Cor. 3: ((2 + η) ε₁)-DP. Exact loss via the library's own pgf.
    reps = Repetitions.with_mean(kind, mean)
    assert reps.mean == pytest.approx(mean, rel=1e-9)
    eps1 = 0.7
    rng = np.random.default_rng(3)
    loss = _max_loss(reps.pgf, eps1, 300, rng)
    assert loss <= reps.multiplier * eps1 + 1e-9
    assert loss > 1.2 * eps1  # the selection is not free: a 1 × ε₁ claim would be wrong
    if mean >= 10:  # nearly tight: a claim of (1 + η) ε₁ (one ε₁ too few) would be caught
        assert loss > (reps.multiplier - 1) * eps1


def test_fixed_number_of_runs_mutant_is_caught():
    # A point mass K = 10 (naive best-of-10) must exceed the 3 ε₁ of the random K.
    eps1 = 0.7
    loss = _max_loss(lambda x: x**10, eps1, 50, np.random.default_rng(4))
    assert loss > 3 * eps1


@pytest.mark.parametrize("kind", ["geometric", "logarithmic"])
def test_pmf_pgf_and_sampler_agree(kind):
    reps = Repetitions.with_mean(kind, 5.0)
    ks = np.arange(1, 4000)
    pmf = np.array([reps.pmf(int(k)) for k in ks])
    assert pmf.sum() == pytest.approx(1.0, abs=1e-12)
    assert float(np.sum(ks * pmf)) == pytest.approx(5.0, rel=1e-9)
    for x in (0.0, 0.3, 0.9, 1.0):
        assert reps.pgf(x) == pytest.approx(float(np.sum(pmf * x**ks)), abs=1e-12)
    # sampler: Pearson chi-square on bins {1..9, >= 10}, 9 dof, false-alarm rate 1e-3
    rng = np.random.default_rng(11)
    draws = np.array([reps.sample(rng) for _ in range(20000)])
    assert draws.min() >= 1
    obs = np.r_[[np.sum(draws == k) for k in range(1, 10)], np.sum(draws >= 10)]
    exp = 20000 * np.r_[pmf[:9], 1 - pmf[:9].sum()]
    assert float(np.sum((obs - exp) ** 2 / exp)) < chi2.ppf(1 - 1e-3, 9)


def test_discrete_laplace_law():
    # P(k) ∝ exp(-ε|k|): Pearson chi-square on bins {<=-3, -2..2, >=3}, 6 dof, rate 1e-3;
    # the mutant law exp(-ε|k|/2) (scale twice too small a rate) must be rejected.
    eps, N = 0.8, 20000
    rng = np.random.default_rng(5)
    xi = np.array([discrete_laplace(eps, rng) for _ in range(N)])

    def probs(e: float) -> np.ndarray:
        ks = np.arange(-200, 201)
        w = np.exp(-e * np.abs(ks))
        w /= w.sum()
        mid = [w[ks == k][0] for k in range(-2, 3)]
        return np.r_[w[ks <= -3].sum(), mid, w[ks >= 3].sum()]

    obs = np.r_[np.sum(xi <= -3), [np.sum(xi == k) for k in range(-2, 3)], np.sum(xi >= 3)]
    crit = chi2.ppf(1 - 1e-3, 6)
    assert float(np.sum((obs - N * probs(eps)) ** 2 / (N * probs(eps)))) < crit
    assert float(np.sum((obs - N * probs(eps / 2)) ** 2 / (N * probs(eps / 2)))) > crit


# --- the selector ------------------------------------------------------------------------
@pytest.mark.parametrize("kind,mult", [("geometric", 3), ("logarithmic", 2)])
def test_budget_accounting_and_ledger_charged_once(kind, mult):
    FITS.clear()
    X, y = _data(200)
    acc = BudgetAccountant(epsilon=1.0)
    s = PrivateRandomSearch(Mistakes(), {"k": [0, 5, 9]}, epsilon=0.9, repetitions=kind,
                            mean_runs=6, random_state=0, accountant=acc,
                            vouch="learner").fit(X, y)
    eps1 = split_even(0.9, mult)
    cert = s.certificate_
    assert cert.private and cert.all_hold and cert.delta == 0.0
    assert cert.epsilon == mult * eps1 and cert.epsilon <= 0.9
    assert cert.quantities["epsilon per run"] == eps1
    assert len(cert.parts) == 1 and cert.parts[0].epsilon == eps1  # the released run
    assert [p.epsilon for p in cert.parts[0].parts] == [eps1, eps1]  # model ‖ score
    assert len(acc.spends) == 1 and acc.spent[0] == pytest.approx(cert.epsilon)
    assert all(e == eps1 and a is None for _, _, e, a in FITS)  # every run: ε₁, no ledger
    assert {c.name: c.holds for c in cert.conditions}["epsilon accounting"]


def test_runs_read_the_training_part_and_release_one_of_them():
    FITS.clear()
    X, y = _data(300)
    s = PrivateRandomSearch(Mistakes(), {"k": [0, 50]}, vouch="learner", epsilon=1.0, mean_runs=8,
                            validation_fraction=0.2, random_state=2).fit(X, y)
    n_train, n_val = s.part_sizes_
    assert (n_train, n_val) == (240, 60)
    seen = [rows for _, rows, _, _ in FITS]
    assert all(np.array_equal(np.sort(r), np.sort(seen[0])) for r in seen)  # one split
    assert seen[0].size == n_train and len(set(seen[0])) == n_train
    assert any(s.best_estimator_ is est for est, _, _, _ in FITS)  # a fitted run, as is
    assert s.best_estimator_.certificate_.private
    assert s.best_params_ == s.candidates_[s.best_index_]
    fitted = [k for k in vars(s) if k.endswith("_")]
    assert not any("run" in k or "score" in k for k in fitted)  # no K, no scores stored


@pytest.mark.slow
def test_prefers_the_clearly_better_candidate():
    # k = 0 vs k = 60 mistakes on the 100 validation rows (gap 60; the score noise has
    # P(k) ∝ e^{-|k|/2}, so a flip has probability < 1e-10 even over many runs). The bad
    # model is released only when all K runs drew it: P = E[(1/2)^K] = pgf(1/2).
    # Two-sided binomial test, false-alarm rate 1e-3; the mutant "K = mean fixed"
    # (P = 2^-10) is rejected by the same test.
    X, y = _data(1000)
    rng = np.random.default_rng(7)
    N = 300
    bad = 0
    for _ in range(N):
        s = fit_drawing_from(PrivateRandomSearch(Mistakes(), {"k": [0, 60]}, epsilon=1.0,
                                                 mean_runs=10, repetitions="logarithmic",
                                                 vouch="learner"),
                             rng, X, y)
        bad += s.best_index_ == 1
    p_bad = Repetitions.with_mean("logarithmic", 10).pgf(0.5)
    assert binomtest(bad, N, p_bad).pvalue > 1e-3, (bad, N * p_bad)
    assert binomtest(bad, N, 2.0**-10).pvalue < 1e-3
    assert bad < N / 2  # it prefers the better one


def test_real_estimator_end_to_end_and_auto_grid():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 3)) / 2
    y = (X[:, 0] - X[:, 1] > 0).astype(int)
    s = PrivateRandomSearch(PrivateLogisticRegression(epsilon=50.0), "auto", epsilon=1.0,
                            mean_runs=3, random_state=1).fit(X, y)
    assert s.best_estimator_.epsilon == split_even(1.0, 2)
    grid = auto_lam_grid(PrivateLogisticRegression(), s.part_sizes_[0], 3, split_even(1.0, 2),
                         "t")["lam"]
    assert [c["lam"] for c in s.candidates_] == grid
    assert s.score(X, y) > 0.8
    assert s.certificate_.epsilon <= 1.0


def test_auto_grid_is_the_public_rule_and_reads_no_data():
    rng = np.random.default_rng(1)
    X1 = rng.normal(size=(500, 4))
    y1 = (X1[:, 0] > 0).astype(int)
    X2, y2 = 10 * rng.normal(size=(500, 4)), np.zeros(500, dtype=int)
    y2[:3] = 1
    g = auto_lam_grid(PrivateLogisticRegression(), 500, 4, 0.3, "t")["lam"]
    assert len(g) == len(AUTO_LAM_FACTORS)
    cert1 = PrivateLogisticRegression(epsilon=0.3, random_state=0).fit(X1, y1).certificate_
    cert2 = PrivateLogisticRegression(epsilon=0.3, random_state=0).fit(X2, y2).certificate_
    assert cert1.lam_rule.rule == cert2.lam_rule.rule == "auto"
    assert cert1.lam_rule.lam == cert2.lam_rule.lam
    assert g[1] == pytest.approx(cert1.lam_rule.lam, rel=5e-3)  # centre = Λ_auto
    assert g[0] == pytest.approx(g[1] / 4, rel=5e-3) and g[2] == pytest.approx(4 * g[1],
                                                                              rel=5e-3)
    # the CMS search with "auto": Λ_auto for the part size n // (m + 1)
    gs = PrivateGridSearch(PrivateLogisticRegression(), "auto", epsilon=0.3,
                           random_state=0).fit(X1, y1)
    assert [c["lam"] for c in gs.candidates_] == auto_lam_grid(
        PrivateLogisticRegression(), 500 // 4, 4, 0.3, "t")["lam"]
    with pytest.raises(ParameterError, match="param_grid='auto'"):
        PrivateRandomSearch(Mistakes(), "auto", vouch="learner", epsilon=1.0).fit(*_data(50))


def test_certificate_does_not_depend_on_the_number_of_runs(monkeypatch):
    X, y = _data(200)
    dicts = []
    for k in (1, 7):
        monkeypatch.setattr(Repetitions, "sample", lambda self, rng, k=k: k)
        s = PrivateRandomSearch(Mistakes(), {"k": [0]}, vouch="learner", epsilon=1.0,
                                random_state=0).fit(X, y)
        dicts.append(s.certificate_.to_dict())
    assert dicts[0] == dicts[1]


def test_the_warnings_do_not_depend_on_the_number_of_runs(monkeypatch):
    """Each run's "noise is large" warning would count K, which the theorem keeps hidden:
    only the released run's warnings are shown (here one, whatever K is)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3)) * 0.3
    y = (X[:, 0] > 0).astype(int)
    shown = []
    for k in (1, 7):
        monkeypatch.setattr(Repetitions, "sample", lambda self, rng, k=k: k)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            PrivateRandomSearch(PrivateLogisticRegression(classes=[0, 1]), {"lam": [0.01, 0.1]},
                                epsilon=0.2, random_state=0).fit(X, y)
        shown.append([str(w.message) for w in caught if issubclass(w.category, PrivacyWarning)])
    assert len(shown[0]) == len(shown[1]) == 1 and "noise is large" in shown[0][0]


def test_certify_matches_fit_accounting():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 2)) / 2
    y = (X[:, 0] > 0).astype(int)
    s = PrivateRandomSearch(PrivateLogisticRegression(), {"lam": [0.01, 0.1]}, epsilon=0.6,
                            repetitions="geometric")
    c = s.certify(X, y)
    assert c.epsilon == 3 * split_even(0.6, 3) and c.parts[0].epsilon == split_even(0.6, 3)



@pytest.mark.parametrize("search", [PrivateGridSearch, PrivateRandomSearch])
def test_certify_of_a_candidate_that_is_not_private_is_not_private(search):
    """A non-private candidate (its fit is refused) is certified as no guarantee, by either
    search, never as an epsilon-DP release."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2)) / 2
    y = (X[:, 0] > 0).astype(int)
    c = search(PrivateLogisticRegression(mechanism="none"), {"lam": [0.1]}, epsilon=1.0,
               classes=[0, 1]).certify(X, y)
    assert not c.private and c.epsilon == math.inf

@pytest.mark.parametrize("kw,match", [
    ({"epsilon": 0}, "epsilon"),
    ({"epsilon": -1.0}, "epsilon"),
    ({"repetitions": "poisson"}, "repetitions"),
    ({"mean_runs": 1.0}, "mean_runs"),
    ({"mean_runs": float("inf")}, "mean_runs"),
    ({"validation_fraction": 1.0}, "validation_fraction"),
    ({"validation_fraction": 0}, "validation_fraction"),
    ({"param_grid": {"k": []}}, "param_grid"),
    ({"param_grid": {"epsilon": [1.0]}}, "epsilon"),
    ({"param_grid": {"delta": [1e-6]}}, "delta"),
    ({"estimator": "not an estimator"}, "estimator"),
])
def test_parameter_errors_are_named(kw, match):
    args = {"estimator": Mistakes(), "param_grid": {"k": [0, 1]}, "epsilon": 1.0,
            "vouch": "learner"}
    args.update(kw)
    est, grid = args.pop("estimator"), args.pop("param_grid")
    with pytest.raises(ParameterError, match=match):
        PrivateRandomSearch(est, grid, **args).fit(*_data(50))


def test_refusals_for_data_and_candidates():
    X, y = _data(50)
    with pytest.raises(DataValidationError, match="validation_fraction"):
        PrivateRandomSearch(Mistakes(), {"k": [0]}, vouch="learner", epsilon=1.0).fit(X[:2], y[:2])
    rng = np.random.default_rng(0)
    Xr = rng.normal(size=(200, 2))
    yr = (Xr[:, 0] > 0).astype(int)
    with pytest.raises(PrivacyError, match="pure epsilon-DP"):
        PrivateRandomSearch(PrivateLogisticRegression(mechanism="none"), {"lam": [0.1]},
                            epsilon=1.0, random_state=0).fit(Xr, yr)
    with pytest.raises(ParameterError, match="delta"):
        PrivateRandomSearch(NoisyGradientDescent(epsilon=1.0, delta=1e-6, steps=5),
                            {"radius": [1.0]}, epsilon=1.0).fit(Xr, yr)
    assert math.isfinite(Repetitions.with_mean("logarithmic", 1000).gamma)


@pytest.mark.slow
@parametrize_with_checks([PrivateRandomSearch(PrivateLogisticRegression(), {"lam": [0.01, 0.1]},
                                              epsilon=1.0, mean_runs=2.0, random_state=0)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("search", [PrivateRandomSearch, PrivateGridSearch])
def test_predict_proba_is_the_selected_models(search):
    X, y = _data(50)
    assert not hasattr(search(Mistakes(), {"k": [0]}, vouch="learner", epsilon=1.0),
                       "predict_proba")
    rng = np.random.default_rng(0)
    Xr = rng.normal(size=(200, 2))
    yr = (Xr[:, 0] > 0).astype(int)
    s = search(PrivateLogisticRegression(), {"lam": [0.1, 1.0]}, epsilon=1.0, classes=[0, 1],
               random_state=0).fit(Xr, yr)
    np.testing.assert_array_equal(s.predict_proba(Xr[:5]), s.best_estimator_.predict_proba(Xr[:5]))


def test_a_class_and_sample_weight_are_refused_by_name():
    X, y = _data(50)
    with pytest.raises(ParameterError, match=r"instance, e\.g\. Mistakes\(\)"):
        PrivateRandomSearch(Mistakes, {"k": [0]}, epsilon=1.0).fit(X, y)
    with pytest.raises(ParameterError, match="sensitivity"):
        PrivateRandomSearch(Mistakes(), {"k": [0]}, vouch="learner",
                            epsilon=1.0).fit(X, y, sample_weight=y)
    with pytest.raises(ParameterError,
                       match=r"fit: got \['sample_weight'\]; it takes X and y only.*sensitivity"):
        PrivateLogisticRegression(classes=[0, 1]).fit(X, y, sample_weight=np.ones(len(y)))


@pytest.mark.parametrize("search", [PrivateGridSearch, PrivateRandomSearch])
def test_certify_gives_the_candidates_the_public_label_set_as_fit_does(search):
    """Not the set of each candidate's part of y: a record relabelled to a third declared class
    changes neither the dry run nor its warnings, and both dry runs certify one-vs-rest."""
    rng = np.random.default_rng(0)
    X = 0.4 * rng.normal(size=(120, 3))
    y = (X[:, 0] > 0).astype(int)
    certified = []
    for row in (0, 119):  # a row of a candidate's part, whichever the search certifies on
        neighbour = y.copy()
        neighbour[row] = 2
        for labels in (y, neighbour):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                cert = search(PrivateLogisticRegression(), {"lam": [0.01, 0.1]}, epsilon=1.0,
                              classes=[0, 1, 2]).certify(X, labels)
            assert not caught, [str(w.message) for w in caught]
            certified.append(str(cert))
    assert len(set(certified)) == 1 and "one-vs-rest" in certified[0]


@pytest.mark.parametrize("form", ["estimator", "pipeline", "list", "tuple", "array rows"])
def test_a_candidates_auto_delta_is_held_before_the_data_are_read(form):
    """Noisy gradient descent's δ = None is a δ > 0 of its part's size: the grid search holds
    it (a pure ledger refuses before any candidate reads its part), and random repetition
    refuses it by name before any run; also as a Pipeline's private step, and for X a list."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    import dpconvex as dp

    rng = np.random.default_rng(0)
    X = 0.4 * rng.normal(size=(300, 3))
    y = (X[:, 0] > 0).astype(int)
    gd, clip = NoisyGradientDescent(epsilon=1.0, steps=10), {"clip": [0.5, 1.0]}
    if form == "pipeline":
        gd, clip = make_pipeline(FunctionTransformer(), gd), {"noisygradientdescent__clip": [0.5, 1.0]}
    X = {"list": X.tolist(), "tuple": tuple(map(tuple, X)),
         "array rows": [array.array("d", row) for row in X]}.get(form, X)
    vouch = {"vouch": "preprocessing"} if form == "pipeline" else {}  # FunctionTransformer
    grid = PrivateGridSearch(gd, clip, epsilon=0.5, classes=[0, 1],
                             accountant=BudgetAccountant(1.0), **vouch)
    with dp.collect_diagnostics() as diag, pytest.raises(dp.BudgetError, match="pure epsilon-DP"):
        grid.fit(X, y)
    assert not [note for note in diag.notes if note.owner == "NoisyGradientDescent"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        held = grid.set_params(accountant=BudgetAccountant(1.0, 1e-3)).fit(X, y).certificate_
    assert held.delta == pytest.approx(1 / 100**2)  # parts of 100 rows, δ = 1/n² each
    search = PrivateRandomSearch(gd, clip, epsilon=1.0, classes=[0, 1])
    with dp.collect_diagnostics() as diag, pytest.raises(ParameterError, match="spends delta > 0"):
        search.fit(X, y)
    assert not [note for note in diag.notes if note.owner == "NoisyGradientDescent"]


@pytest.mark.parametrize("search", [PrivateGridSearch, PrivateRandomSearch])
def test_without_classes_the_delta_of_the_label_set_read_from_y_is_refused_before_any_fit(search):
    """No public label set: the δ of the set a fit reads from y (three classes, one-vs-rest) is
    held by the grid search (a pure ledger refuses it at the hold) and refused by name by random
    repetition, before any candidate reads its part, and after the one label-set warning (as a
    single estimator's hold refuses it after the warning)."""
    import dpconvex as dp

    rng = np.random.default_rng(0)
    X = 0.4 * rng.normal(size=(300, 3))
    y = np.digitize(X[:, 0], [-0.2, 0.2])
    fit = search(NoisyGradientDescent(epsilon=1.0, steps=5), {"clip": [0.5, 1.0]}, epsilon=1.0,
                 accountant=BudgetAccountant(10.0), random_state=0)
    refused = (dp.BudgetError, "reserve") if search is PrivateGridSearch else (ParameterError, "delta > 0")
    with warnings.catch_warnings(record=True) as caught, dp.collect_diagnostics() as diag, \
            pytest.raises(refused[0], match=refused[1]):
        warnings.simplefilter("always")
        fit.fit(X, y)
    assert not [note for note in diag.notes if note.owner == "NoisyGradientDescent"]
    assert [type(w.message) for w in caught].count(dp.PrivacyLeakWarning) == 1
    single = NoisyGradientDescent(epsilon=1.0, steps=5, accountant=BudgetAccountant(10.0))
    with warnings.catch_warnings(record=True) as caught, pytest.raises(dp.BudgetError, match="reserve"):
        warnings.simplefilter("always")
        single.fit(X, y)
    assert [type(w.message) for w in caught].count(dp.PrivacyLeakWarning) == 1


def test_random_search_certify_warns_of_the_label_set_before_refusing_a_delta():
    """certify without classes=: the label-set warning comes before the refusal of a candidate
    spending δ (whose text depends on the set read from y), on D and on a neighbour D′."""
    import dpconvex as dp

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3)) / 3
    y = np.arange(60) % 2
    y3 = y.copy()
    y3[0] = 2
    for labels in (y, y3):
        search = PrivateRandomSearch(dp.PrivateClassifier(delta=1e-5),
                                     {"selection_share": [0.2, 0.3]}, epsilon=1.0,
                                     random_state=0)
        with warnings.catch_warnings(record=True) as caught, \
                pytest.raises(ParameterError, match="pure epsilon-DP"):
            warnings.simplefilter("always")
            search.certify(X, labels)
        assert [type(w.message) for w in caught] == [dp.PrivacyLeakWarning]


@pytest.mark.parametrize("search", [PrivateGridSearch, PrivateRandomSearch])
def test_a_search_dry_run_warns_before_refusing_labels_read_from_y(search):
    """certify without classes=: the label-set warning precedes the refusal of a NaN label."""
    import dpconvex as dp

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3)) / 3
    y = (np.arange(60) % 2).astype(float)
    y[0] = np.nan
    dry = search(NoisyGradientDescent(epsilon=1.0, steps=5), {"clip": [0.5, 1.0]}, epsilon=1.0,
                 random_state=0)
    with warnings.catch_warnings(record=True) as caught, pytest.raises(dp.DataValidationError):
        warnings.simplefilter("always")
        dry.certify(X, y)
    assert [type(w.message) for w in caught] == [dp.PrivacyLeakWarning]


@pytest.mark.parametrize("search", [PrivateGridSearch, PrivateRandomSearch])
def test_a_pipeline_whose_transforms_change_the_width_is_searched(search):
    """The private step is planned at the width of X; where its checks refuse that width (its
    ranges are those of the encoded rows), the search still runs and the ledger is charged."""
    import pandas as pd
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    import dpconvex as dp

    rng = np.random.default_rng(0)
    schema = dp.PublicSchema({"age": dp.Numeric(0, 100), "plan": dp.Categorical(("a", "b", "c"))})
    table = pd.DataFrame({"age": rng.uniform(0, 100, 300), "plan": rng.choice(["a", "b", "c"], 300)})
    y = (table.age > 50).astype(int).to_numpy()
    pipe = make_pipeline(dp.PublicEncoder(schema), dp.PrivateGaussianNB(feature_range=schema))
    ledger = BudgetAccountant(2.0)
    extra = {"mean_runs": 2} if search is PrivateRandomSearch else {}
    fitted = search(pipe, {"privategaussiannb__var_floor": [1e-3, 1e-2]}, epsilon=1.0, classes=[0, 1],
                    random_state=0, accountant=ledger, **extra).fit(table, y)
    assert ledger.spent[0] == fitted.certificate_.epsilon <= 1.0
    read = []  # a bad parameter of the private step is still refused before any candidate reads rows
    pipe = make_pipeline(FunctionTransformer(lambda rows: read.append(1) or rows),
                         dp.PrivateGaussianNB(feature_range=(-1, 1)))
    with pytest.raises(ParameterError, match="var_floor"):
        search(pipe, {"privategaussiannb__var_floor": [1e-3, -1.0]}, epsilon=1.0, classes=[0, 1],
               random_state=0, **extra).fit(np.zeros((300, 2)), y)
    assert not read


@pytest.mark.parametrize("classes", [None, [0, 1]])
def test_a_searchs_refusal_of_bad_list_rows_names_the_search(classes):
    """Rows given as a list are sized for the δ plan; with no public label set the plan reads the
    labels as the fit does, and a bad row is refused by the search's name, not its candidate's."""
    rows = (0.4 * np.random.default_rng(0).normal(size=(60, 3))).tolist()
    rows[5][1] = float("nan")
    y = [i % 2 for i in range(60)]
    grid = PrivateGridSearch(NoisyGradientDescent(epsilon=1.0, steps=10), {"clip": [0.5, 1.0]},
                             epsilon=1.0, classes=classes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(DataValidationError, match=r"^PrivateGridSearch\.fit: X contains NaN"):
            grid.fit(rows, y)


def _unit_rows(n: int = 300) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 3))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return X, (X[:, 0] > 0).astype(int)


_SEARCHES = [(PrivateGridSearch, {}), (PrivateRandomSearch, {"mean_runs": 2})]


@pytest.mark.parametrize("search,extra", _SEARCHES)
@pytest.mark.parametrize("given", ["search", "estimator"])
def test_a_refit_of_the_released_model_charges_the_ledger_given(search, extra, given):
    """The search charges its (ε, δ) once; best_estimator_ carries the ledger given to the
    search or to its estimator, so a refit of it is charged as a fit is; pickle and clone work."""
    import pickle

    from sklearn.base import clone

    X, y = _unit_rows()
    acc = BudgetAccountant(epsilon=5.0)
    estimator = PrivateLogisticRegression(accountant=acc if given == "estimator" else None)
    fitted = search(estimator, {"lam": [0.1, 1.0]}, epsilon=1.0, classes=[0, 1], random_state=0,
                    accountant=acc if given == "search" else None, **extra).fit(X, y)
    assert len(acc.spends) == 1 and acc.spent[0] == pytest.approx(fitted.certificate_.epsilon)
    assert fitted.best_estimator_.accountant is acc
    fitted.best_estimator_.fit(X, y)
    assert len(acc.spends) == 2
    assert pickle.loads(pickle.dumps(fitted)).best_estimator_.accountant.spent == acc.spent
    assert clone(fitted).get_params()["accountant"] is fitted.accountant


def test_the_grid_search_states_a_delta_of_at_least_one_over_n_once():
    """δ >= 1/n of the whole set (not of a part) is warned once and stated in the search's
    certificate, as a single fit's hold does."""
    X, y = _unit_rows()
    search = PrivateGridSearch(NoisyGradientDescent(steps=5, delta=0.005, classes=[0, 1]),
                               {"clip": [0.5, 1.0]}, epsilon=1.0, random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        certificate = search.fit(X, y).certificate_
    large = [str(w.message) for w in caught if "at least 1/n" in str(w.message)]
    assert len(large) == 1 and large[0].startswith("PrivateGridSearch: delta = 0.005")
    assert certificate.states(DeltaRows(0.005, 300))


def test_the_grid_search_holds_the_delta_its_candidates_plans_spend():
    """Objective perturbation with a δ parameter spends δ = 0: a pure ε ledger takes the search."""
    X, y = _unit_rows()
    acc = BudgetAccountant(epsilon=5.0)
    search = PrivateGridSearch(PrivateLogisticRegression(delta=1e-5, classes=[0, 1], accountant=acc),
                               {"lam": [0.1, 1.0]}, epsilon=1.0, random_state=0).fit(X, y)
    assert search.certificate_.delta == 0.0 and acc.spent == (1.0, 0.0)


def test_the_grid_search_holds_a_pipelines_delta_parameter_before_the_data_are_read():
    """A Pipeline's private step is planned at the width of X, which its transforms change (30
    random features from 3 columns), and a front door chooses a mechanism spending δ by the
    width: its δ parameter is held, so a pure ε ledger refuses the search before any fit."""
    from sklearn.pipeline import make_pipeline

    import dpconvex as dp

    X, y = _unit_rows()
    pipe = make_pipeline(dp.RandomFourierFeatures(n_components=30, random_state=0),
                         dp.PrivateClassifier(epsilon=1.0, delta=1e-5, classes=[0, 1], safeguard=False))
    search = PrivateGridSearch(pipe, {"privateclassifier__data_norm": [1.0, 0.5]}, epsilon=1.0,
                               classes=[0, 1], random_state=0)
    assert search.budget_for(X, y).delta == 1e-5
    acc = BudgetAccountant(epsilon=10.0)
    with pytest.raises(dp.BudgetError, match=r"BudgetAccountant\.reserve: .*pure epsilon-DP"):
        search.set_params(accountant=acc).fit(X, y)
    assert acc.spent == (0.0, 0.0) and not hasattr(search, "best_estimator_")


@pytest.mark.parametrize("search,extra", _SEARCHES)
def test_a_schema_released_by_draft_schema_is_refused_before_the_data_are_read(search, extra):
    """A front door on a drafted schema composes the schema's release into every candidate:
    refused by name before any candidate is fitted; the pipeline it names is searched."""
    import pandas as pd
    from sklearn.pipeline import make_pipeline

    import dpconvex as dp

    rng = np.random.default_rng(0)
    table = pd.DataFrame({"a": rng.normal(size=300), "b": rng.uniform(0, 10, 300)})
    y = (table.a > 0).astype(int).to_numpy()
    acc = BudgetAccountant(epsilon=5.0)
    schema = dp.draft_schema(table, epsilon=0.5, accountant=acc, random_state=0)
    tuned = search(dp.PrivateClassifier(schema=schema), {"row_norm": ["auto", "none"]}, epsilon=1.0,
                   classes=[0, 1], accountant=acc, random_state=0, **extra)
    for call in (tuned.fit, tuned.certify):
        with dp.collect_diagnostics() as diag, pytest.raises(ParameterError, match="make_pipeline"):
            call(table, y)
        assert not diag.notes and acc.spent[0] == 0.5
    pipe = make_pipeline(dp.PublicEncoder(schema), dp.PrivateClassifier())
    search(pipe, {"privateclassifier__row_norm": ["auto", "none"]}, epsilon=1.0, classes=[0, 1],
           accountant=acc, random_state=0, **extra).fit(table, y)
    assert acc.spent[0] == 1.5


@pytest.mark.parametrize("search,extra", _SEARCHES)
def test_messages_name_the_validation_labels_and_the_label_sets(search, extra):
    X, y = _unit_rows(120)
    if search is PrivateGridSearch:
        y_val = np.where(y[:20] == 1, np.nan, 0.0)
        with pytest.raises(DataValidationError, match="fit: y_val contains NaN"):
            search(PrivateLogisticRegression(), {"lam": [0.1, 1.0]}, epsilon=1.0, classes=[0, 1],
                   public_validation=(X[:20], y_val)).fit(X, y)
    with pytest.raises(ParameterError, match=r"^The 'classes' parameter of \w+ must list at least two"):
        search(PrivateLogisticRegression(), {"lam": [0.1, 1.0]}, epsilon=1.0, classes=[0], **extra).fit(X, y)
    with pytest.raises(ParameterError, match=r"fit: the estimator's 'classes' must list at least two"):
        search(PrivateLogisticRegression(classes=[0]), {"lam": [0.1, 1.0]}, epsilon=1.0, **extra).fit(X, y)


@pytest.mark.parametrize("search,rows", [(PrivateGridSearch, 5), (PrivateRandomSearch, 2)])
def test_certify_refuses_rows_too_few_to_split_as_fit_does(search, rows):
    X, y = _unit_rows(120)
    tuned = search(PrivateLogisticRegression(), {"lam": [0.1, 1.0]}, epsilon=1.0, classes=[0, 1])
    for call, method in ((tuned.certify, "certify"), (tuned.fit, "fit")):
        with pytest.raises(DataValidationError, match=f"{method}: n_samples = {rows} rows cannot be split"):
            call(X[:rows], y[:rows])


@pytest.mark.parametrize("search_class", [PrivateGridSearch, PrivateRandomSearch])
def test_public_budget_ledger_and_labels_are_those_a_fit_uses(search_class: Any) -> None:
    """``budget_for`` states the (ε, δ) the fit's certificate carries; ``charged_ledger`` is
    the ledger the fit charges (the estimator's when the search holds none, refused by name
    when the two differ); ``public_classes`` the set every candidate is given."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 3)) / 2
    y = (X[:, 0] > 0).astype(int)
    ledger = BudgetAccountant(epsilon=10.0)
    search = search_class(PrivateLogisticRegression(classes=[0, 1], accountant=ledger),
                          {"lam": [0.1, 1.0]}, epsilon=1.0, random_state=0)
    budget = search.budget_for(X, y)
    assert search.charged_ledger() is ledger and search.public_classes() == [0, 1]
    certificate = search.fit(X, y).certificate_
    assert (budget.epsilon, budget.delta) == (certificate.epsilon, certificate.delta)
    assert math.isclose(ledger.spent[0], budget.epsilon, rel_tol=1e-12)  # one charge, once
    two = search_class(PrivateLogisticRegression(accountant=BudgetAccountant(epsilon=1.0)),
                       {"lam": [0.1]}, epsilon=1.0, accountant=ledger)
    with pytest.raises(ParameterError, match="same ledger"):
        two.charged_ledger()
    assert two.public_classes() is None


def _fitted_models(root: Any) -> list[Any]:
    """Every fitted dpconvex estimator reachable from ``root`` (through attributes, mappings,
    lists, tuples and sets), each once."""
    from dpconvex.estimators.base import PrivateEstimator

    seen, found, stack = set(), [], [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, (str, bytes, int, float, np.ndarray, type)):
            continue
        seen.add(id(obj))
        if isinstance(obj, PrivateEstimator) and hasattr(obj, "certificate_"):
            found.append(obj)
        if isinstance(obj, dict):
            stack.extend([*obj.keys(), *obj.values()])
        elif isinstance(obj, (list, tuple, set, frozenset)):
            stack.extend(obj)
        stack.extend(getattr(obj, "__dict__", {}).values())
    return found


def _step_search(search: Any, steps: Any, seed: int = 0, **extra: Any) -> Any:
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import Normalizer

    pipe = Pipeline([("norm", Normalizer()), ("clf", PrivateLogisticRegression())])
    return search(pipe, steps, epsilon=1.0, classes=[0, 1], random_state=seed,
                  vouch="preprocessing", **extra)


@pytest.mark.parametrize("search,extra", [(PrivateGridSearch, {}),
                                          (PrivateRandomSearch, {"mean_runs": 10})])
def test_a_grid_over_a_pipeline_step_leaves_the_callers_steps_unfitted_and_unchanged(search,
                                                                                    extra):
    """Each candidate (each run) fits its own clone of a step given in param_grid: the caller's
    steps (which param_grid, candidates_ and best_params_ hold) keep their parameters and are
    not fitted by budget_for or fit."""
    X, y = _unit_rows()
    steps = [PrivateLogisticRegression(lam=0.01), PrivateLogisticRegression(lam=1.0)]
    given = [dict(step.get_params()) for step in steps]
    tuner = _step_search(search, {"clf": steps}, **extra)
    tuner.budget_for(X, y)
    fitted = tuner.fit(X, y)
    assert [step.get_params() for step in steps] == given
    assert not any(hasattr(step, "certificate_") or hasattr(step, "coef_") for step in steps)
    assert fitted.best_params_["clf"] is steps[fitted.best_index_]
    assert [candidate["clf"] for candidate in fitted.candidates_] == steps


@pytest.mark.parametrize("search,extra,grid", [
    (PrivateGridSearch, {}, "two points"),
    (PrivateGridSearch, {}, "one step at two points"),
    (PrivateRandomSearch, {"mean_runs": 10}, "two points"),
])
def test_a_search_over_a_pipeline_step_releases_the_selected_fit_and_no_other(search, extra,
                                                                             grid):
    """The released step is the selected candidate's (run's) own fit, whose certificate the
    search composed; no other fitted model is reachable from the fitted search or its pickle
    (docs/privacy/tuning_gd_ledger.md#privacy-random-search: the other runs are not stored).
    One step object at two grid points: seeds 0, 1, ... until each candidate was selected, at
    most 12; were the selection fair (each candidate 1/2, independently per seed), one
    candidate selected at all 12 seeds would have probability 2 * 2**-12 ~ 4.9e-4."""
    import pickle

    X, y = _unit_rows(600)
    if grid == "two points":
        param_grid: Any = {"clf": [PrivateLogisticRegression(lam=0.01),
                                   PrivateLogisticRegression(lam=1.0)]}
    else:
        step = PrivateLogisticRegression(lam=0.1)
        param_grid = [{"clf": [step]}, {"clf": [step]}]
    selected: set[int] = set()
    cap = 12  # seeds tried at most for the two selections (the docstring's false-alarm rate)
    for seed in range(1 if grid == "two points" else cap):
        if selected == {0, 1}:
            break
        fitted = _step_search(search, param_grid, seed, **extra).fit(X, y)
        selected.add(fitted.best_index_)
        released = fitted.best_estimator_.named_steps["clf"]
        composed = (fitted.certificate_.parts[0].parts[0] if search is PrivateRandomSearch
                    else fitted.certificate_.parts[fitted.best_index_])
        assert released.certificate_ is composed
        assert _fitted_models(fitted) == [released]
        unpickled = pickle.loads(pickle.dumps(fitted))
        assert _fitted_models(unpickled) == [unpickled.best_estimator_.named_steps["clf"]]
    if grid == "one step at two points":  # a selection of either candidate checked
        assert selected == {0, 1}, f"one candidate selected at each of the {cap} seeds"


def test_a_sweep_of_a_search_over_a_pipeline_step_keeps_each_fits_model():
    """Each fit of an epsilon sweep of a search holds its own released step, certified at
    its own epsilon; the caller's step stays unfitted."""
    from dpconvex import epsilon_sweep

    X, y = _unit_rows(600)
    steps = [PrivateLogisticRegression(lam=0.01)]
    sweep = epsilon_sweep(_step_search(PrivateGridSearch, {"clf": steps}), X, y, [0.1, 8.0],
                          random_state=0)
    low, high = (fits[0].best_estimator_.named_steps["clf"] for fits in sweep.estimators)
    assert low is not high and not hasattr(steps[0], "certificate_")
    assert low.certificate_.epsilon <= 0.1 < 1.0 < high.certificate_.epsilon <= 8.0


@pytest.mark.parametrize("search,extra", _SEARCHES)
def test_a_ledger_on_a_grid_value_is_charged_once_and_a_second_one_refused(search, extra):
    """A ledger held by an estimator in param_grid is the search's ledger, as its estimator's
    is: charged the whole budget once per fit (a fit that does not fit in what is left is
    refused), and a grid value holding another ledger is refused by name before any fit."""
    X, y = _unit_rows()
    ledger = BudgetAccountant(epsilon=1.5)
    steps = [PrivateLogisticRegression(lam=0.01, accountant=ledger),
             PrivateLogisticRegression(lam=1.0, accountant=ledger)]
    tuner = _step_search(search, {"clf": steps}, **extra)
    assert tuner.charged_ledger() is ledger
    fitted = tuner.fit(X, y)
    assert len(ledger.spends) == 1
    assert ledger.spent[0] == pytest.approx(fitted.certificate_.epsilon, rel=1e-12)
    with pytest.raises(BudgetError):  # 1 + 1 > 1.5
        tuner.fit(X, y)
    assert len(ledger.spends) == 1
    other = [steps[0], PrivateLogisticRegression(accountant=BudgetAccountant(epsilon=9.0))]
    with pytest.raises(ParameterError, match=r"param_grid.*value 1 of 'clf'.*another one"):
        _step_search(search, {"clf": other}, **extra).fit(X, y)
    assert len(ledger.spends) == 1


@pytest.mark.parametrize("search,extra", _SEARCHES)
def test_a_sweep_of_a_search_charges_the_ledger_of_its_grid_values_once(search, extra):
    """An epsilon sweep of a search whose grid values hold the ledger holds the sum of its fits'
    budgets on that ledger (a sum over the budget: refused, nothing spent) and charges it
    once; its fits charge nothing themselves, and hold the caller's grid."""
    from dpconvex import epsilon_sweep

    X, y = _unit_rows()
    ledger = BudgetAccountant(epsilon=1.0)
    tuner = _step_search(search, {"clf": [PrivateLogisticRegression(accountant=ledger)]}, **extra)
    with pytest.raises(BudgetError):
        epsilon_sweep(tuner, X, y, [0.5, 0.8], random_state=0)
    assert ledger.spent == (0.0, 0.0)
    ledger = BudgetAccountant(epsilon=3.0)
    grid = {"clf": [PrivateLogisticRegression(accountant=ledger)]}
    sweep = epsilon_sweep(_step_search(search, grid, **extra), X, y, [0.5, 0.8], random_state=0)
    assert len(ledger.spends) == 1
    assert ledger.spent[0] == pytest.approx(sweep.certificate.epsilon, rel=1e-12)
    assert all(fits[0].param_grid is grid for fits in sweep.estimators)


def _drafted_table() -> tuple[Any, np.ndarray, Any, Any]:
    """A table, its labels, a schema drafted from it with epsilon and one read from it."""
    import pandas as pd

    import dpconvex as dp

    rng = np.random.default_rng(0)
    table = pd.DataFrame({"a": rng.normal(size=300), "b": rng.normal(size=300)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        read = dp.draft_schema(table)  # suggested=True: read from the rows
    drafted = dp.draft_schema(table, epsilon=0.5, kinds={"a": "numeric", "b": "numeric"},
                              random_state=0)
    return table, (table.a > 0).astype(int).to_numpy(), drafted, read


@pytest.mark.parametrize("search,extra", _SEARCHES)
def test_a_schema_drafted_or_read_from_the_data_in_the_grid_is_refused_before_any_fit(search,
                                                                                     extra):
    """A grid value giving the private step a schema released by draft_schema (its
    certificate would compose it beyond the search's epsilon), or giving a candidate a schema
    read from the data (no candidate private), is refused by name before the data are read:
    by budget_for and certify too, nothing charged, no leak warning of a candidate."""
    from sklearn.pipeline import Pipeline

    from dpconvex import PrivateClassifier, PublicEncoder, PublicSchema
    from dpconvex.data.schema import Numeric

    table, y, drafted, read = _drafted_table()
    public = PublicSchema({"a": Numeric(-3, 3), "b": Numeric(-3, 3)})
    cases = [
        (PrivateClassifier(classes=[0, 1]), {"schema": [public, drafted]}, ParameterError,
         r"param_grid.*released by draft_schema: value 1 of 'schema' \(a PublicSchema\)"),
        (Pipeline([("clf", PrivateClassifier(classes=[0, 1]))]),
         {"clf": [PrivateClassifier(schema=drafted)]}, ParameterError,
         r"value 0 of 'clf' \(a PrivateClassifier\) sets 'clf__schema'"),
        (PrivateClassifier(classes=[0, 1]), {"schema": [read]}, PrivacyError,
         r"param_grid.*value 0 of 'schema'.*read from the data"),
        (Pipeline([("enc", PublicEncoder(public)), ("clf", PrivateLogisticRegression())]),
         {"enc": [PublicEncoder(read)]}, PrivacyError,
         r"value 0 of 'enc' \(a PublicEncoder\).*read from the data"),
    ]
    for estimator, grid, error, match in cases:
        ledger = BudgetAccountant(epsilon=10.0)
        tuner = search(estimator, grid, epsilon=1.0, classes=[0, 1], accountant=ledger,
                       random_state=0, **extra)
        for call in (tuner.budget_for, tuner.certify, tuner.fit):
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # no candidate fitted: none warns
                with pytest.raises(error, match=match) as refused:
                    call(table, y)
            assert "low=" not in str(refused.value)  # no range read from the rows
        assert ledger.spent == (0.0, 0.0)


@pytest.mark.parametrize("search,extra", _SEARCHES)
def test_a_grid_value_not_shaped_as_the_estimators_step_is_refused_by_name(search, extra):
    """A grid value whose candidate does not hold the estimator's privacy and search-set
    parameters where the estimator does (a Pipeline, a search or a non-private classifier
    for the private step) is refused by a ParameterError naming it."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import FunctionTransformer

    X, y = _unit_rows()
    for value in (Pipeline([("id", FunctionTransformer()), ("lr", PrivateLogisticRegression())]),
                  PrivateGridSearch(PrivateLogisticRegression(), {"lam": [0.1]}, epsilon=1.0),
                  LogisticRegression()):
        tuner = _step_search(search, {"clf": [PrivateLogisticRegression(), value]}, **extra)
        for call in (tuner.budget_for, tuner.fit):
            with pytest.raises(ParameterError,
                               match=rf"value 1 of 'clf' \(a {type(value).__name__}\)"):
                call(X, y)


def test_certify_states_the_public_validation_set_as_fit_does():
    """With public_validation, the dry run's selection states the assumption that the set is
    public and its size, as the fit's does."""
    X, y = _unit_rows()
    X_val, y_val = X[:50], y[:50]
    search = PrivateGridSearch(PrivateLogisticRegression(), {"lam": [0.01, 0.1]}, epsilon=1.0,
                               classes=[0, 1], public_validation=(X_val, y_val), random_state=0)
    dry = search.certify(X, y).parts[-1]
    fit = search.fit(X, y).certificate_.parts[-1]
    assert dry.mechanism == fit.mechanism
    assert [(c.name, c.holds, c.how, c.detail) for c in dry.conditions] == \
        [(c.name, c.holds, c.how, c.detail) for c in fit.conditions]
    assert dry.quantities == fit.quantities == {"validation size": 50}


@pytest.mark.parametrize("search,extra", _SEARCHES)
@pytest.mark.parametrize("leaf,carried,classes", [
    ("delta", {"delta": 1e-5, "mechanism": "gaussian_output"}, [0, 1]),
    ("classes", {"classes": [0, 1, 2]}, None)])
@pytest.mark.parametrize("form", ["clf", "steps"])
def test_a_grid_value_carrying_other_privacy_parameters_is_refused_before_any_fit(
        search, extra, leaf, carried, classes, form):
    """A value in param_grid (an estimator, or a Pipeline's steps holding one) carrying a
    privacy parameter the search does not set on every candidate other than the estimator's
    (a delta the search would not hold; a label set where neither the search nor its
    estimator lists one) is refused by name, as the grid refuses them by name: by budget_for,
    certify, fit and an epsilon sweep, before the data are read (no candidate fitted, none
    warns, nothing charged)."""
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import Normalizer

    from dpconvex import epsilon_sweep
    from dpconvex.errors import PrivacyLeakWarning

    X, y = _unit_rows(120)
    ledger = BudgetAccountant(epsilon=10.0, delta=1e-3)
    values = [PrivateLogisticRegression(lam=0.1), PrivateLogisticRegression(lam=1.0, **carried)]
    pipe = Pipeline([("norm", Normalizer()), ("clf", PrivateLogisticRegression())])
    grid = {"clf": values} if form == "clf" else {
        "steps": [[("norm", Normalizer()), ("clf", value)] for value in values]}
    kind = r"PrivateLogisticRegression" if form == "clf" else r"list"
    tuner = search(pipe, grid, epsilon=1.0, classes=classes, random_state=0,
                   accountant=ledger, **extra)
    calls = (tuner.budget_for, tuner.certify, tuner.fit,
             lambda X, y: epsilon_sweep(tuner, X, y, [0.5, 1.0], random_state=0))
    for call in calls:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no candidate fitted: none warns
            if classes is None and call is calls[-1]:  # the sweep reads the set once, first
                warnings.filterwarnings("ignore", ".*the label set was read", PrivacyLeakWarning)
            with pytest.raises(ParameterError, match=(
                    rf"param_grid.*value 1 of '{form}' \(a {kind}\) sets "
                    rf"'clf__{leaf}'.*cannot tune '{leaf}'")):
                call(X, y)
    assert ledger.spent == (0.0, 0.0)


@pytest.mark.parametrize("search,extra", _SEARCHES)
def test_a_steps_value_carrying_a_delta_is_refused_where_its_step_is_not_planned(search, extra):
    """A Pipeline's steps in param_grid whose private step carries another delta is refused
    by name before the data are read, also where the search cannot plan that step at the
    width of X (a stateless transform adds the schema's last column), so that budget_for
    would hold the estimator's delta (0) while the fit spends the value's: nothing charged."""
    import pandas as pd
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import FunctionTransformer

    from dpconvex import PrivateClassifier, PublicSchema
    from dpconvex.data.schema import Numeric

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.uniform(0, 1, 60), "b": rng.uniform(0, 1, 60)})
    y = (X["a"] > 0.5).astype(int).to_numpy()
    add = FunctionTransformer(lambda df: df.assign(c=1.0 - df["a"]))  # per record
    schema = PublicSchema({name: Numeric(0, 1) for name in "abc"})

    def door(**params: Any) -> PrivateClassifier:
        return PrivateClassifier(schema=schema, classes=[0, 1], **params)

    ledger = BudgetAccountant(epsilon=10.0, delta=1e-2)
    grid = {"steps": [[("add", add), ("clf", door())], [("add", add), ("clf", door(delta=1e-3))]]}
    tuner = search(Pipeline([("add", add), ("clf", door())]), grid, epsilon=1.0, random_state=0,
                   accountant=ledger, classes=[0, 1], **extra)
    for call in (tuner.budget_for, tuner.fit):
        with pytest.raises(ParameterError, match=(
                r"param_grid.*value 1 of 'steps' \(a list\) sets 'clf__delta' to 0.001.*"
                r"cannot tune 'delta'")):
            call(X, y)
    assert ledger.spent == (0.0, 0.0)


def test_a_grid_value_carrying_a_generator_as_its_seed_is_refused_before_any_fit():
    """A grid value whose random_state is a generator is refused by name before the data are
    read, as the estimator's is (a kept generator replays the noise), nothing charged."""
    X, y = _unit_rows(120)
    ledger = BudgetAccountant(epsilon=10.0, delta=1e-3)
    values = [PrivateLogisticRegression(lam=0.1),
              PrivateLogisticRegression(lam=1.0, random_state=np.random.default_rng(7))]
    tuner = _step_search(PrivateGridSearch, {"clf": values}, accountant=ledger)
    for call in (tuner.budget_for, tuner.fit):
        with pytest.raises(ParameterError, match=(
                r"random_state.*value 1 of 'clf' \(a PrivateLogisticRegression\)'s "
                r"'clf__random_state'.*Got a Generator")):
            call(X, y)
    assert ledger.spent == (0.0, 0.0)


@pytest.mark.parametrize("search,extra", _SEARCHES)
def test_a_grid_value_carrying_the_privacy_parameters_the_search_sets_is_overridden(
        search, extra):
    """An estimator in param_grid carrying an epsilon, seed, label policy or label set (one
    is listed) other than the estimator's is tuned, those set by the search: every
    candidate's certificate states the search's epsilon, the released step holds the
    search's seed, label policy and label set, and the ledger is charged the search's
    epsilon (budget_for holds it too)."""
    from dpconvex import epsilon_sweep

    X, y = _unit_rows(120)
    carried = {"epsilon": 9.0, "random_state": 7, "unknown_labels": "ignore",
               "classes": [0, 1, 2]}
    values = [PrivateLogisticRegression(lam=0.1, **carried),
              PrivateLogisticRegression(lam=1.0, **carried)]
    ledger = BudgetAccountant(epsilon=10.0, delta=1e-3)
    tuner = _step_search(search, {"clf": values}, accountant=ledger, **extra)
    held = tuner.budget_for(X, y)
    fitted = tuner.fit(X, y)
    step = fitted.best_estimator_.named_steps["clf"]
    assert held.epsilon == fitted.certificate_.epsilon == ledger.spent[0] == 1.0
    assert step.epsilon == step.certificate_.epsilon <= 1.0  # the search's, never 9.0
    assert (step.random_state, step.unknown_labels, list(step.classes)) == (0, "raise", [0, 1])
    assert all(part.epsilon <= 1.0 for part in fitted.certificate_.parts)
    sweep = epsilon_sweep(tuner, X, y, [0.5], random_state=0)
    assert [[c.epsilon for c in fits] for fits in sweep.certificates] == [[0.5]]  # never 9.0


def test_a_grid_of_default_steps_under_a_step_of_another_epsilon_is_fitted_at_the_searchs():
    """Grid values built with default parameters (epsilon=1.0) under a step at epsilon=0.5
    are fitted at the search's epsilon=2.0: the certificate and each of its parts state 2.0."""
    from sklearn.pipeline import Pipeline

    X, y = _unit_rows(120)
    pipe = Pipeline([("clf", PrivateLogisticRegression(epsilon=0.5))])
    grid = {"clf": [PrivateLogisticRegression(lam=0.1), PrivateLogisticRegression(lam=1.0)]}
    fitted = PrivateGridSearch(pipe, grid, epsilon=2.0, classes=[0, 1], random_state=0).fit(X, y)
    assert fitted.certificate_.epsilon == 2.0
    assert [part.epsilon for part in fitted.certificate_.parts] == [2.0, 2.0, 2.0]
    assert fitted.best_estimator_.named_steps["clf"].certificate_.epsilon == 2.0


def test_a_grid_value_carrying_the_estimators_privacy_parameters_is_held_as_they_state():
    """A value carrying the estimator's delta (and its label set, as a tuple, or None; no
    seed) is tuned: the search holds the delta its candidates spend, which its certificate
    states and the ledger is charged."""
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import Normalizer

    X, y = _unit_rows(120)
    gaussian = {"delta": 1e-5, "mechanism": "gaussian_output"}
    pipe = Pipeline([("norm", Normalizer()),
                     ("clf", PrivateLogisticRegression(classes=[0, 1], **gaussian))])
    values = [PrivateLogisticRegression(lam=0.1, classes=(0, 1), **gaussian),
              PrivateLogisticRegression(lam=1.0, **gaussian)]
    ledger = BudgetAccountant(epsilon=10.0, delta=1e-3)
    tuner = PrivateGridSearch(pipe, {"clf": values}, epsilon=1.0, accountant=ledger,
                              random_state=0, vouch="preprocessing")
    held = tuner.budget_for(X, y)
    fitted = tuner.fit(X, y)
    assert held.delta == fitted.certificate_.delta == ledger.spent[1] == 1e-5


def test_a_search_on_dask_rows_of_unknown_length_holds_the_delta_its_candidates_spend():
    """Where X is a Dask array whose chunk sizes are unknown, the search counts its n (public,
    as a fit's plan does) and plans its candidates: the delta a Gaussian mechanism's public
    rule spends (delta=None), named by the grid or by a grid value, is held before the data
    are read, and it is the delta the certificate states and the ledger is charged."""
    dd = pytest.importorskip("dask.dataframe")
    import pandas as pd
    from sklearn.pipeline import Pipeline

    from dpconvex import PrivateGaussianNB

    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(200, 2))
    frame = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "y": (X[:, 0] > 0).astype(int)})
    nb = {"feature_range": (-1, 1), "classes": [0, 1]}
    grids = [{"clf__mechanism": ["auto", "gaussian"]},
             {"clf": [PrivateGaussianNB(**nb), PrivateGaussianNB(**nb, mechanism="gaussian")]}]
    for grid in grids:
        rows = dd.from_pandas(frame, npartitions=2).to_dask_array()  # chunk sizes unknown
        X_dask, y_dask = rows[:, :2], rows[:, 2].astype(int)
        assert math.isnan(X_dask.shape[0])
        ledger = BudgetAccountant(epsilon=10.0, delta=1e-3)
        search = PrivateGridSearch(Pipeline([("clf", PrivateGaussianNB(**nb))]), grid,
                                   epsilon=1.0, accountant=ledger, random_state=0)
        held = search.budget_for(X_dask, y_dask)
        fitted = search.fit(X_dask, y_dask)
        assert held.delta == fitted.certificate_.delta == ledger.spent[1] > 0.0


@pytest.mark.parametrize("search", [PrivateGridSearch, PrivateRandomSearch])
@pytest.mark.parametrize("form", ["frame", "mapping"])
@pytest.mark.filterwarnings("ignore::dpconvex.PrivacyWarning")  # the safeguard on 300 rows
def test_a_search_over_a_front_door_with_a_schema_reads_its_table(search, form):
    """A front door with a schema takes its table (a DataFrame with a categorical column, or a
    mapping of columns) as given; so does a search over it: its parts are cut by rows, its
    certificate and certify state the (ε, δ) budget_for holds, and the released candidate
    predicts on the same table form."""
    import pandas as pd

    import dpconvex as dp

    rng = np.random.default_rng(0)
    schema = dp.PublicSchema({"a": dp.Numeric(0, 1), "b": dp.Categorical(("u", "v"))})
    a = rng.uniform(size=300)
    columns = {"a": a, "b": np.where(rng.uniform(size=300) > 0.5, "u", "v").astype(object)}
    table = pd.DataFrame(columns).astype({"b": "category"}) if form == "frame" else columns
    y = (a > 0.5).astype(int)
    door = dp.PrivateClassifier(schema=schema, classes=[0, 1], random_state=0)
    extra = {"mean_runs": 2} if search is PrivateRandomSearch else {}
    ledger = BudgetAccountant(2.0)
    tuner = search(door, {"data_norm": [1.0, 2.0]}, epsilon=1.0, random_state=0,
                   accountant=ledger, **extra)
    held = tuner.budget_for(table, y)
    certified = tuner.certify(table, y)
    fitted = tuner.fit(table, y)
    stated = fitted.certificate_
    assert (stated.epsilon, stated.delta) == (certified.epsilon, certified.delta) \
        == (held.epsilon, held.delta) == (1.0, 0.0)
    assert ledger.spent == (1.0, 0.0)
    assert sum(fitted.part_sizes_) == 300 and fitted.n_features_in_ == 2
    assert list(fitted.feature_names_in_) == list(fitted.best_estimator_.feature_names_in_) \
        == ["a", "b"]
    assert fitted.best_estimator_.predict(table).shape == (300,)
    assert fitted.predict(table).shape == (300,)


@pytest.mark.parametrize("form", ["frame", "mapping"])
def test_a_search_over_a_schema_door_plans_a_mapping_as_its_frame(form):
    """A mapping of columns tells its n and d as its data frame does (their common length, the
    number of keys): a search over a door whose δ reaches 1/n holds what its fit spends and
    warns that δ >= 1/n, on either form."""
    import pandas as pd

    import dpconvex as dp

    rng = np.random.default_rng(0)
    schema = dp.PublicSchema({"a": dp.Numeric(0, 1), "b": dp.Categorical(("u", "v"))})
    a = rng.uniform(size=300)
    columns = {"a": a, "b": np.where(rng.uniform(size=300) > 0.5, "u", "v").astype(object)}
    table = pd.DataFrame(columns) if form == "frame" else columns
    y = (a > 0.5).astype(int)
    door = dp.PrivateClassifier(schema=schema, classes=[0, 1], delta=0.1, random_state=0)
    tuner = PrivateGridSearch(door, {"data_norm": [1.0, 2.0]}, epsilon=1.0, random_state=0)
    held = tuner.budget_for(table, y)
    with pytest.warns(dp.PrivacyWarning, match=r"delta = 0\.1 is at least 1/n"):
        fitted = tuner.fit(table, y)
    assert (held.epsilon, held.delta) == (fitted.certificate_.epsilon, fitted.certificate_.delta)


def test_a_candidates_refusal_names_its_grid_values_and_nothing_else():
    """A candidate's refusal stops the search in its own type, opening with the search's call
    and the candidate's parameters (the grid is public), the candidate's own text kept after
    its opening: nothing of the data is added. fit (a solve capped at max_iter=1, which output
    perturbation cannot release from) and certify (a loss overclaiming its curvature) alike."""
    from dpconvex import PrivateLinearClassifier
    from dpconvex.objectives.losses import Logistic

    class Overclaimed(Logistic):
        name = "overclaimed"
        curvature = 0.01

    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, size=(200, 3))
    y = (X[:, 0] > 0).astype(int)
    capped = PrivateLogisticRegression(classes=[0, 1], mechanism="output", max_iter=1)
    with pytest.raises(SolverError) as alone:
        capped.fit(X, y)
    search = PrivateGridSearch(PrivateLogisticRegression(classes=[0, 1], mechanism="output"),
                               {"max_iter": [1, 100]}, epsilon=1.0, random_state=0)
    with pytest.raises(SolverError) as refused:
        search.fit(X, y)
    own = str(alone.value).split(": ", 1)[1]
    assert str(refused.value) == f"PrivateGridSearch.fit: candidate max_iter=1: {own}"

    with pytest.raises(PrivacyError) as alone:
        PrivateLinearClassifier(classes=[0, 1], loss=Overclaimed()).certify(X, y)
    search = PrivateGridSearch(PrivateLinearClassifier(classes=[0, 1]),
                               {"loss": ["logistic", Overclaimed()]}, epsilon=1.0)
    with pytest.raises(PrivacyError) as refused:
        search.certify(X, y)
    own = str(alone.value).split(": ", 1)[1]
    assert str(refused.value) == f"PrivateGridSearch.certify: candidate loss=Overclaimed(): {own}"


def test_a_random_searchs_refusal_names_its_drawn_candidate_and_nothing_else():
    """As the grid search's: the candidate a run draws is drawn from the search's generator,
    whatever the data (a fixed number of draws per run), and is one of the public grid's, so a
    refusal names it. One candidate per grid, so the run that refuses is the first, whatever
    the seed: fit (output perturbation cannot release from a solve capped at max_iter=1) and
    certify (a loss overclaiming its curvature) alike."""
    from dpconvex import PrivateLinearClassifier
    from dpconvex.objectives.losses import Logistic

    class Overclaimed(Logistic):
        name = "overclaimed"
        curvature = 0.01

    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, size=(200, 3))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(SolverError) as alone:
        PrivateLogisticRegression(classes=[0, 1], mechanism="output", max_iter=1).fit(X, y)
    search = PrivateRandomSearch(PrivateLogisticRegression(classes=[0, 1], mechanism="output"),
                                 {"max_iter": [1]}, epsilon=1.0, random_state=0)
    with pytest.raises(SolverError) as refused:
        search.fit(X, y)
    own = str(alone.value).split(": ", 1)[1]
    assert str(refused.value) == f"PrivateRandomSearch.fit: candidate max_iter=1: {own}"

    with pytest.raises(PrivacyError) as alone:
        PrivateLinearClassifier(classes=[0, 1], loss=Overclaimed()).certify(X, y)
    search = PrivateRandomSearch(PrivateLinearClassifier(classes=[0, 1]),
                                 {"loss": [Overclaimed()]}, epsilon=1.0)
    with pytest.raises(PrivacyError) as refused:
        search.certify(X, y)
    own = str(alone.value).split(": ", 1)[1]
    assert str(refused.value) == (f"PrivateRandomSearch.certify: candidate loss=Overclaimed(): "
                                  f"{own}")
