"""Every registered mechanism's drawn law pays at most its certificate on a neighbouring pair.

Registry-driven: every name of :func:`mechanism_names` is probed here through a builder of
:data:`BUILDERS` (a registered subclass of a probed class runs on its parent's pair, so a new
class with a false calibration is probed without editing this file) or named in
:data:`EXEMPT` with the reason its law is tested elsewhere; a test demands it.

For each probed mechanism the release runs on both data sets of a pair of neighbours with
every noise draw replaced by zero: :meth:`Noise.add`, through which every additive release
goes (tests/privacy/test_noise_laws.py keeps it the one place), is swapped for a recorder that
keeps the law it was called on and the exact value it was asked to mask, and returns that
value. On D′ each call returns D's value instead, so that every later query of D′ is asked
on D's outputs so far (the coupling of adaptive composition: k-means iterations, gradient
steps); the calls on D and D′ pair up in order, and both orders of the pair are run. The
exact worst privacy loss of the laws drawn at those differences is then set against the
certificate:

* Laplace(b): ‖Δ‖₁/b; norm-Gamma(β) (density ∝ exp(−β‖·‖), in the orthonormal coordinates of
  symmetric matrices where it is symmetric): β‖Δ‖₂, per row where it is drawn per row;
  sup-norm Gamma: β Σ_rows ‖Δ_row‖_∞; the pure losses of one run add up (composition);
* Gaussian(σ): δ(ε) of N(μ, 1) against N(0, 1) at μ = √(Σ_k ‖Δ_k‖²/σ_k²) (Gaussian laws
  compose exactly so, adaptively too: Dong, Roth & Su 2022, Cor. 3.3), the closed form of
  Balle & Wang (2018, Thm. 8) computed here from ``scipy.stats.norm``;
* the exponential mechanism: max over outcomes of |ln p_D(i) − ln p_D′(i)|, from the
  probabilities the noise module's sampler hands ``Generator.choice`` (recorded as
  tests/privacy/test_exponential_certificate.py records them, through the generator
  ``check_random_state`` gives it).

For an adaptive release this is the loss along the transcript probed (D's outputs without
noise), which the worst over transcripts bounds from above: the check is necessary, and a
failure proves the certificate false. Each loss is at most the certificate's ε (δ at ε)
within a relative :data:`RTOL` = 1e-9: the losses are a few floating-point operations on
numbers of order 1 (their rounding is below 1e-13; the solved minimizers of output
perturbation are the points the noise is centred on, their solver error being what the
calibration's κ covers). Each pair is built to reach most of the budget (``tight``,
asserted: 99 % of ε for the pure laws, 95 % of δ or more for the Gaussian ones), so a law
with 2 % less noise than its pair needs fails the check. No check reads a random draw (no
false alarm: the test is exact). The whole file (30 tests) runs in about 1 s.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from scipy.stats import norm

from dpconvex import Budget, release
from dpconvex.data.sufficient import sufficient_statistics
from dpconvex.estimators.centroids import ClassSumTemplate
from dpconvex.objectives.losses import HuberHinge
from dpconvex.privacy import noise
from dpconvex.privacy.mechanisms import MECHANISMS, mechanism_names
from dpconvex.privacy.mechanisms.scalar import BoundedMeanTemplate, SelectionTemplate
from dpconvex.privacy.noise import Gaussian, Laplace, Noise, NormGamma, SupNormGamma
from dpconvex.templates import LinearERMTemplate
from dpconvex.templates.statistics import (
    EmpiricalRiskTemplate,
    KMeansTemplate,
    RangeTemplate,
    SufficientStatisticsTemplate,
    VocabularyTemplate,
)

#: Relative tolerance of loss <= ε and δ(ε) <= δ (the module docstring's reason).
RTOL = 1e-9


@dataclasses.dataclass(frozen=True)
class Pair:
    """Two neighbouring problems, the budget, ``release``'s keywords, the share of the
    budget the pair is built to reach (0: no claim) and the mechanism's own parameters."""

    D: Any
    Dp: Any
    budget: Budget
    kwargs: dict[str, Any] = dataclasses.field(default_factory=dict)
    tight: float = 0.0
    settings: dict[str, Any] = dataclasses.field(default_factory=dict)  # the mechanism's


# ------------------------------------------------------------------ the pairs
def _laplace_mean() -> Pair:
    # one value moved across the whole range [-1, 1]: the mean moves by the sensitivity 2/n
    values = np.array([0.2, -0.7, 0.5, 0.0])
    other = values.copy()
    other[0] = -1.0
    values[0] = 1.0
    return Pair(BoundedMeanTemplate(values), BoundedMeanTemplate(other), Budget(1.0),
                tight=0.999)


def _exponential() -> Pair:
    # Δu = 1: candidate 1, far below candidate 0, gains 1 where candidate 0 loses 1; at the
    # outcome 1 the log-ratio is ε/2 from its own utility and nearly ε/2 from the normaliser
    u = np.array([0.0, -40.0])
    vouch = {"vouch": ("sensitivity",)}
    return Pair(SelectionTemplate(u, 1.0, n=50), SelectionTemplate(u + [-1.0, 1.0], 1.0, n=50),
                Budget(1.0), vouch, tight=0.999)


def _class_sums() -> Pair:
    # a unit row changes class: both classes' sums and counts move by a unit row each
    U = np.array([[1.0, 0.0], [0.0, 1.0], [-0.6, 0.8], [0.3, -0.4]])
    y = np.array([0, 1, 2, 0])
    U2, y2 = U.copy(), y.copy()
    U2[0], y2[0] = [0.0, 1.0], 1
    return Pair(ClassSumTemplate(U, y, 3), ClassSumTemplate(U2, y2, 3), Budget(1.0, 1e-5),
                tight=0.999)


def _class_sums_pure() -> Pair:
    return dataclasses.replace(_class_sums(), budget=Budget(1.0))


def _kmeans() -> Pair:
    # three iterations (D′'s asked at D's centres): a row of norm q in class 0, nearest the
    # first centre at every iteration, moves to the second centre's side: at each iteration
    # two counts move by 1 and two cells' sums by q each
    centers = np.array([[[1.0, 0.0], [-1.0, 0.0]]])
    X = np.array([[0.9, 0.1], [-0.8, 0.3], [0.5, -0.5], [-0.2, -0.9]])
    Xp = X.copy()
    X[0], Xp[0] = [1.0, 0.0], [-1.0, 0.0]
    y = np.zeros(4, dtype=int)

    def template(rows: np.ndarray) -> KMeansTemplate:
        return KMeansTemplate(rows, y, 1, 2, data_norm=1.0, n_iter=3, init_centers=centers)

    return Pair(template(X), template(Xp), Budget(1.0), tight=0.999)


def _ssp_templates() -> tuple[SufficientStatisticsTemplate, SufficientStatisticsTemplate]:
    # unit rows at cos = -1/4 with the same label: where the joint bound is attained
    X = np.array([[1.0, 0.0], [0.3, -0.2], [0.1, 0.5]])
    u = np.array([1.0, -0.5, 0.25])
    Xp = X.copy()
    Xp[0] = [-0.25, math.sqrt(15.0) / 4.0]

    def template(rows: np.ndarray) -> SufficientStatisticsTemplate:
        return SufficientStatisticsTemplate(sufficient_statistics(rows, u, 1.0, None), 3, 2,
                                            1.0)

    return template(X), template(Xp)


#: The statistics are the caller's here (the rows and labels above are within the bounds).
_VOUCHED_NORM = {"vouch": ("data_norm",)}


def _ssp() -> Pair:
    return Pair(*_ssp_templates(), Budget(1.0), _VOUCHED_NORM, tight=0.99)


def _gaussian_ssp() -> Pair:
    return Pair(*_ssp_templates(), Budget(1.0, 1e-5), _VOUCHED_NORM, tight=0.999)


def _quantile_range() -> Pair:
    # one value moves from the octave of 1 to that of 1000: two histogram counts move by 1
    values = np.array([1.0, 2.0, 3.0, 50.0, 60.0])
    other = values.copy()
    other[0] = 1000.0
    return Pair(RangeTemplate(values, 5, (0.1, 0.9), refine=False),
                RangeTemplate(other, 5, (0.1, 0.9), refine=False), Budget(1.0), tight=0.999)


def _stable_vocabulary() -> Pair:
    # one record changes category among categories both data sets hold: two counts move by 1
    # (a category only one of them holds is what δ pays; not probed here)
    plans = np.array(["basic", "basic", "pro", "pro", "rare"])
    other = plans.copy()
    other[0] = "pro"
    return Pair(VocabularyTemplate(plans, 5), VocabularyTemplate(other, 5), Budget(1.0, 1e-6),
                tight=0.999)


def _linear(budget: Budget, tight: float) -> Pair:
    # output perturbation: the Huber hinge's gradient has norm |y| ||x|| = 1 wherever the margin
    # is in its linear part, as at both minimizers here (|margin| <= 1/6 at lam = 2): flipping
    # the unit row's label moves the minimizer by the sensitivity 2G/(n mu) (the calibration's
    # (1 + kappa) for the solve is the share it does not reach)
    X = np.array([[1.0, 0.0], [0.0, 0.6], [0.0, -0.6]])
    y = np.array([1.0, 1.0, -1.0])
    yp = y.copy()
    yp[0] = -1.0
    return Pair(LinearERMTemplate(HuberHinge(), 2.0, 1.0, X, y),
                LinearERMTemplate(HuberHinge(), 2.0, 1.0, X, yp), budget, tight=tight)


def _noisy_gd() -> Pair:
    # every iterate stays in the ball of radius 0.2, where every margin is in the Huber
    # hinge's linear part: each unit row's gradient has norm 1, clipped to C = 0.5, and
    # flipping a label moves every step's mean gradient by the sensitivity 2C/n
    X = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8], [-0.8, 0.6]])
    y = np.array([1.0, 1.0, -1.0, 1.0])
    yp = y.copy()
    yp[0] = -1.0
    return Pair(EmpiricalRiskTemplate(HuberHinge(), 1.0, X, y),
                EmpiricalRiskTemplate(HuberHinge(), 1.0, X, yp), Budget(1.0, 1e-5),
                tight=0.999, settings={"steps": 20, "radius": 0.2, "clip": 0.5})


#: A neighbouring pair per registered mechanism name (a subclass uses its parent's).
BUILDERS: dict[str, Callable[[], Pair]] = {
    "laplace_mean": _laplace_mean,
    "exponential": _exponential,
    "gaussian": _class_sums,
    "norm_gamma_sum": _class_sums_pure,
    "knorm_sum": _class_sums_pure,
    "knorm_sup_sum": _class_sums_pure,
    "dp_kmeans": _kmeans,
    "ssp": _ssp,
    "gaussian_ssp": _gaussian_ssp,
    "quantile_range": _quantile_range,
    "stable_vocabulary": _stable_vocabulary,
    "output": lambda: _linear(Budget(1.0), 0.99),
    "gaussian_output": lambda: _linear(Budget(1.0, 1e-5), 0.95),
    "noisy_gd": _noisy_gd,
}

#: Registered mechanisms not probed here, each with where its law is tested.
EXEMPT: dict[str, str] = {
    "none": "the non-private baseline: no law, certificate epsilon = inf",
    "none_ssp": "the non-private baseline of the sufficient statistics",
    "objective": "not additive (the noise enters the objective: the release's density needs "
                 "the Jacobian): exact loss in tests/privacy/test_slack_exact.py",
    "gaussian_objective": "not additive (the noise enters the objective): exact privacy "
                          "profile in tests/privacy/test_gaussian_linear.py",
    "gaussian_objective_lm": "not additive (the noise enters the objective): exact loss in "
                             "tests/templates/test_large_margin_softmax.py",
    "amp": "a cover around objective perturbation (not additive; the cover's output noise "
           "masks the solver's error): the inner law is the objective's, and the split of "
           "the budget is tests/privacy/test_amp.py's",
    "gaussian_amp": "a cover around Gaussian objective perturbation: its cover's sigma is "
                    "tests/privacy/test_gaussian_linear.py's, the split "
                    "tests/privacy/test_amp.py's",
}


def _builder(name: str) -> Callable[[], Pair] | None:
    """The builder of ``name`` or of the nearest registered class it derives from."""
    keys = {cls: key for key, cls in MECHANISMS.items()}
    for cls in MECHANISMS[name].__mro__:
        if keys.get(cls) in BUILDERS:
            return BUILDERS[keys[cls]]
    return None


# ------------------------------------------------------------------ the recorder
class _Choices:
    """The generator the noise module's sampler is handed, keeping the probabilities its
    ``choice`` is asked to sample from (everything else is the generator's)."""

    def __init__(self, rng: np.random.Generator, kept: list[np.ndarray]) -> None:
        self.rng, self.kept = rng, kept

    def choice(self, a: Any, *args: Any, p: Any = None, **kwargs: Any) -> Any:
        self.kept.append(np.asarray(p, dtype=float))
        return self.rng.choice(a, *args, p=p, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.rng, name)


@dataclasses.dataclass
class _Run:
    calls: list[tuple[Noise, np.ndarray, tuple[int, ...]]]
    choices: list[np.ndarray]
    certificate: Any


def _run(template: Any, name: str, pair: Pair, monkeypatch: pytest.MonkeyPatch,
         transcript: _Run | None = None) -> _Run:
    """Release ``template`` with every draw of :meth:`Noise.add` replaced by zero: the laws
    it was called on, the values they masked and the shapes they were drawn in.

    ``transcript`` (the run on D), for the run on D′: each call returns D's released value
    instead of its own, so that every later query of D′ is asked on D's outputs so far (the
    coupling of adaptive composition: the log density ratio at one output sequence)."""
    calls: list[tuple[Noise, np.ndarray, tuple[int, ...]]] = []

    def add(law: Noise, value: Any, rng: Any, *, shape: tuple[int, ...] | None = None):
        value = np.array(value, dtype=float)
        calls.append((law, value, value.shape if shape is None else tuple(shape)))
        if transcript is not None:
            assert len(calls) <= len(transcript.calls), f"{name}: more draws on D' than on D"
            return transcript.calls[len(calls) - 1][1].copy()
        return value

    choices: list[np.ndarray] = []
    checked = noise.check_random_state

    def recording(rng: Any, *args: Any) -> _Choices:
        return _Choices(checked(rng, *args), choices)

    monkeypatch.setattr(Noise, "add", add)
    monkeypatch.setattr(noise, "check_random_state", recording)
    mech = MECHANISMS[name](**pair.settings)
    rel = release(template, mech, pair.budget, rng=0, **pair.kwargs)
    monkeypatch.undo()
    return _Run(calls, choices, rel.certificate)


def _pure_loss(law: Noise, diff: np.ndarray) -> float:
    """The supremum over outputs of the log density ratio of ``law`` shifted by ``diff``."""
    if isinstance(law, Laplace):
        return float(np.abs(diff).sum() / law.scale)
    if isinstance(law, NormGamma):  # symmetric: Frobenius = the orthonormal coordinates' norm
        blocks = diff.reshape(diff.shape[0], -1) if law.rows else diff.reshape(1, -1)
        return float(law.rate * np.linalg.norm(blocks, axis=1).sum())
    if isinstance(law, SupNormGamma):
        return float(law.rate * np.abs(diff.reshape(diff.shape[0], -1)).max(axis=1).sum())
    raise AssertionError(f"no exact loss for the law {law!r}: add it here")


def _gaussian_delta(mu: float, epsilon: float) -> float:
    """δ(ε) of N(μ, 1) against N(0, 1) (Balle & Wang 2018, Thm. 8)."""
    if mu == 0.0:
        return 0.0
    return float(norm.cdf(mu / 2 - epsilon / mu)
                 - math.exp(epsilon) * norm.cdf(-mu / 2 - epsilon / mu))


def _exact_loss(a: _Run, b: _Run) -> tuple[float, float]:
    """(the pure ε lost, μ of the Gaussian laws) between the runs on D and on D′."""
    assert len(a.calls) == len(b.calls) and len(a.choices) == len(b.choices)
    eps, mu_sq = 0.0, 0.0
    for (law, fa, shape), (law_b, fb, shape_b) in zip(a.calls, b.calls, strict=True):
        assert law == law_b and shape == shape_b  # the laws are public: the same on both
        diff = (fa - fb).reshape(shape)
        if isinstance(law, Gaussian):
            mu_sq += float(np.sum(diff**2)) / float(law.sigma) ** 2
        else:
            eps += _pure_loss(law, diff)
    for p, q in zip(a.choices, b.choices, strict=True):
        eps += float(np.max(np.abs(np.log(p) - np.log(q))))
    return eps, math.sqrt(mu_sq)


# ------------------------------------------------------------------ the tests
def test_every_registered_mechanism_is_probed_or_exempt() -> None:
    names = set(mechanism_names())
    unprobed = {n for n in names if _builder(n) is None} - set(EXEMPT)
    assert not unprobed, f"registered mechanisms without a pair in BUILDERS: {sorted(unprobed)}"
    assert set(EXEMPT) <= names and set(BUILDERS) <= names  # nothing stale
    assert not set(EXEMPT) & {n for n in names if _builder(n) is not None}


PROBED = [n for n in mechanism_names() if _builder(n) is not None and n not in EXEMPT]


@pytest.mark.parametrize("name", PROBED)
@pytest.mark.parametrize("order", ["D, D'", "D', D"])
def test_the_law_the_run_draws_pays_at_most_the_certificate(name: str, order: str,
                                                            monkeypatch) -> None:
    pair = _builder(name)()
    first, second = (pair.D, pair.Dp) if order == "D, D'" else (pair.Dp, pair.D)
    a = _run(first, name, pair, monkeypatch)
    b = _run(second, name, pair, monkeypatch, transcript=a)
    assert a.calls or a.choices, f"{name}: the release drew nothing through Noise.add/choice"
    eps, mu = _exact_loss(a, b)
    cert = a.certificate
    assert cert.private and cert.epsilon <= pair.budget.epsilon
    if mu > 0.0:  # an (ε, δ) law: its δ at the certificate's ε (no pure part besides)
        assert eps == 0.0, f"{name}: Gaussian and pure laws in one run are not combined here"
        delta = _gaussian_delta(mu, cert.epsilon)
        assert delta <= cert.delta * (1 + RTOL), (name, delta, cert.delta)
        assert delta >= pair.tight * cert.delta, (name, delta, cert.delta)
    else:
        assert eps <= cert.epsilon * (1 + RTOL), (name, eps, cert.epsilon)
        assert eps >= pair.tight * cert.epsilon, (name, eps, cert.epsilon)


def test_a_halved_laplace_law_is_caught() -> None:
    """The check can fail: the laplace_mean pair's loss at half the scale is twice ε."""
    pair = _laplace_mean()
    diff = np.array([(pair.D.total - pair.Dp.total) / pair.D.n])
    scale = 2.0 / pair.D.n / pair.budget.epsilon  # the mean's sensitivity 2/n over ε
    assert _pure_loss(Laplace(scale), diff) == pytest.approx(1.0, rel=1e-12)
    assert _pure_loss(Laplace(scale / 2), diff) > 1.5 * pair.budget.epsilon
