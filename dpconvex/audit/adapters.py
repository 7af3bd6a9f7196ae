"""Auditable mechanisms: thin adapters over the library's one release path.

Every run is one call of :func:`dpconvex.privacy.release.release` with the library's own template and
:class:`~dpconvex.privacy.mechanisms.Mechanism`, so an audit checks the library, not a copy: ``adapter(data,
np.random.default_rng(seed))`` equals, bit for bit, what an estimator releases with ``random_state=seed``
(tests/audit/test_audit.py). An adapter builds the template once per data set, memoizes the randomness-free
steps and the unperturbed solve (:class:`Audited`, :class:`OnceUnperturbed`; they change nothing ``release``
computes) and may scale the noise by ``noise_scale`` < 1, a deliberately mis-calibrated mutant that checks an
audit has power.

:class:`EstimatorReleaseMechanism` audits an estimator's own ``plan``/``prepare``/``fit``
path and gives the white-box log-likelihood ratio of the change of variables of objective
perturbation ([CMS]_ Section 3.2), exact for unconstrained templates only; over a parameter
set audit a threshold on a projection of θ instead
(docs/privacy/large_margin_softmax.md#privacy-softmax-audit,
docs/privacy/auditing.md#privacy-audit-regression-forms).

References
----------
.. [CMS] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially Private
   Empirical Risk Minimization. JMLR 12 (2011), Alg. 1 and 2; Section 3.2 (change of variables).
.. [MT07] F. McSherry, K. Talwar. Mechanism Design via Differential Privacy.
   FOCS 2007.
.. [JUO20] M. Jagielski, J. Ullman, A. Oprea. Auditing Differentially Private
   Machine Learning: How Private is Private SGD? NeurIPS 2020.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import numpy as np

from .._validation import (
    NoiseSource,
    check_float,
    check_int,
    check_option,
    describe_value,
)
from ..data.preprocess import clip_rows
from ..data.validation import check_array
from ..errors import ParameterError
from ..estimators.base import PrivateEstimator
from ..estimators.linear import LINEAR_MENU
from ..estimators.regression import PrivateBounds
from ..objectives.losses import LOSSES, HuberHinge, Loss, get_loss
from ..privacy.budget import Budget
from ..privacy.mechanisms import MECHANISMS, Calibration, Mechanism, get_mechanism
from ..privacy.mechanisms.noisy_gd import NoisyGD, default_delta
from ..privacy.mechanisms.scalar import SelectionTemplate
from ..privacy.release import _release_checked, release
from ..solvers import check_solver_name
from ..solvers.registry import Backend, SolveResult
from ..templates.large_margin import LargeMarginGaussianTemplate
from ..templates.linear_erm import LinearERMTemplate
from ..templates.statistics import EmpiricalRiskTemplate
from .statistics import (
    LLR_DECIMALS,
    float_array,
    gaussian_noise_term,
    objective_llr,
    pure_noise_term,
)

if TYPE_CHECKING:
    from sklearn.base import BaseEstimator

    from ..estimators.noisy_gd import NoisyGradientDescent
    from ..privacy.certificate import Certificate, Condition
    from ..templates.base import ObjectiveTemplate, SmoothTemplate, Template

__all__ = ["EstimatorMechanism", "EstimatorReleaseMechanism", "ExponentialMechanism",
           "LargeMarginMechanism", "LinearERMMechanism", "NoisyGDMechanism"]

Data = tuple[np.ndarray, np.ndarray]
T = TypeVar("T")


# ----------------------------------------------------------------------------- memoized steps
def data_key(*arrays: np.ndarray) -> str:
    """A hash of the arrays' dtypes, shapes and bytes (the adapters' cache key)."""
    h = hashlib.sha1()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(str((a.dtype.str, a.shape)).encode())
        h.update(a.tobytes())
    return h.hexdigest()


#: The calibration entries that set the scale of a mechanism's noise (:class:`Audited`): a rate
#: (norm-Gamma β, each statistic's β_j of pure SSP, DP k-means's ε of the Laplace counts, whose
#: scale is 2/ε) is divided by the factor, a scale (a Gaussian σ or one per statistic, a Laplace
#: scale) multiplied; "inner" is the calibration of the mechanism an approximate-minima cover wraps.
_NOISE_RATES = ("noise rate", "eps_cnt")
_NOISE_SCALES = ("noise std", "laplace scale")


def _scaled_calibration(cal: Calibration, s: float) -> Calibration:
    """``cal`` with every noise it calibrates ``s`` times as large, its claim (ε, δ) unchanged.

    The rate β of the norm-Gamma noise is divided by s, and so is every rate of :data:`_NOISE_RATES`; every
    scale of :data:`_NOISE_SCALES` is multiplied by s; the noise law the calibration holds, which the
    mechanism draws, is the law of s times its draw (:meth:`~dpconvex.privacy.noise.Noise.scaled`); an
    inner calibration (approximate minima) is scaled alike, so that the mechanism's noise and its cover
    both are.

    Examples
    --------
    >>> from dpconvex.audit.adapters import _scaled_calibration
    >>> from dpconvex.privacy.mechanisms import Calibration
    >>> cal = Calibration(mechanism="laplace_mean", epsilon_requested=1.0, sensitivity=0.02,
    ...                   noise_rate=50.0, extra={"laplace scale": 0.02})
    >>> half = _scaled_calibration(cal, 0.5)
    >>> half.noise_rate, half.extra["laplace scale"], half.epsilon
    (100.0, 0.01, 1.0)
    """
    extra = dict(cal.extra)
    for key in (*_NOISE_SCALES, *_NOISE_RATES):
        if key in extra:  # a number, or a mapping of numbers: one per released statistic
            value, factor = extra[key], s if key in _NOISE_SCALES else 1.0 / s
            extra[key] = (
                {name: item * factor for name, item in value.items()}
                if isinstance(value, dict)
                else value * factor
            )
    if isinstance(extra.get("inner"), Calibration):
        extra["inner"] = _scaled_calibration(extra["inner"], s)
    noise = None if cal.noise is None else cal.noise.scaled(s)  # the law the mechanism draws
    return dataclasses.replace(cal, noise_rate=cal.noise_rate / s, extra=extra, noise=noise)


#: What a mechanism states of itself (:class:`~dpconvex.privacy.mechanisms.Mechanism`'s class
#: attributes), which the release pipeline reads to choose its checks: :class:`Audited` states
#: the inner mechanism's, so that an audited run is refused wherever the estimator's is.
_STATED = ("name", "needs", "private", "solves", "pure", "adds_output_noise", "wraps",
           "amp_derived", "placement", "alternative", "budget_name")


class Audited(Mechanism["Template"]):
    """A library mechanism with its public steps memoized (and, for power checks, mis-calibrated).

    It states what the inner mechanism states (:data:`_STATED`: its name, placement, ...), so the
    release pipeline runs the same checks and refusals on it; ``check_budget``, ``run`` and
    ``solve_conditions`` are the inner mechanism's. ``conditions``,
    ``calibrate`` and ``certificate`` are the inner mechanism's too, computed once per (template, budget):
    they draw no randomness and give the same result on every run. With ``noise_scale`` s != 1 every noise
    the calibration sets is s times as large (:func:`_scaled_calibration`: norm-Gamma rate β/s, Gaussian std
    s·σ, Laplace scale s·b, the inner mechanism's noise under an approximate-minima cover) while ε stays the
    claimed one; a mechanism that adds no noise (the exponential mechanism) is refused with s != 1.
    """

    def __init__(self, inner: Mechanism, noise_scale: float = 1.0):
        if float(noise_scale) != 1.0 and inner.private and inner.placement is None:
            raise ParameterError(
                f"Audited.__init__: mechanism '{inner.name}' adds no noise, so noise_scale = "
                f"{describe_value(noise_scale)} "
                "would audit the library's own calibration as a mutant. Use noise_scale=1.0 with "
                "it."
            )
        self.inner = inner
        self.noise_scale = float(noise_scale)
        for attr in _STATED:  # what the release pipeline reads of a mechanism: the inner's
            setattr(self, attr, getattr(inner, attr))
        self._memo: dict[tuple[str, int, Budget], tuple[Template, Any]] = {}

    def _once(self, what: str, template: Template, budget: Budget, compute: Callable[[], T]) -> T:
        key = (what, id(template), budget)
        if key not in self._memo:  # the template is kept alive with its entry
            self._memo[key] = (template, compute())
        return self._memo[key][1]

    def check_budget(self, budget: Budget) -> Budget:
        return self.inner.check_budget(budget)

    def conditions(self, template: Template, budget: Budget) -> list[Condition]:
        return list(self._once("conditions", template, budget,
                               lambda: self.inner.conditions(template, budget)))

    def calibrate(self, template: Template, budget: Budget) -> Calibration | None:
        def compute() -> Calibration | None:
            cal = self.inner.calibrate(template, budget)
            if cal is None or self.noise_scale == 1.0:
                return cal
            return _scaled_calibration(cal, self.noise_scale)

        return self._once("calibrate", template, budget, compute)

    def certificate(self, template: Template, budget: Budget, cal: Calibration | None,
                    conditions: list[Condition]) -> Certificate:
        cert = self._once("certificate", template, budget,
                          lambda: self.inner.certificate(template, budget, cal, conditions))
        # the release pipeline appends the solve's conditions: hand it a fresh list every run
        return dataclasses.replace(cert, conditions=list(cert.conditions),
                                   assumptions=list(cert.assumptions))

    def run(self, template: Template, cal: Calibration | None, backend: Backend,
            rng: np.random.Generator, **solve: Any) -> tuple[np.ndarray, SolveResult | None, bool]:
        return self.inner.run(template, cal, backend, rng, **solve)

    def solve_conditions(self, template: Template, result: SolveResult | None,
                         cal: Calibration | None) -> list[Condition]:
        return self.inner.solve_conditions(template, result, cal)


class Sampled:
    """An adapter whose runs are one run of the release pipeline each (the pipeline
    :func:`~dpconvex.privacy.release.release` runs after its checks, on the adapter's own
    arguments): ``sample`` stacks ``n_runs`` of them, flattened to shape (n_runs, p);
    ``adapter(data, rng)`` is one."""

    #: The declared constants the adapter's caller states and vouches for (the pipeline's
    #: ``vouch=``).
    vouch: tuple[str, ...] = ()

    def _runs(self, data: Any) -> tuple[Any, Mechanism, Budget, Any, int]:
        """(template, mechanism, budget, backend, p) of the runs on ``data``."""
        raise NotImplementedError

    def sample(self, data: Any, n_runs: int, rng: np.random.Generator) -> np.ndarray:
        """``n_runs`` independent releases (one run of the release pipeline each), shape
        (n_runs, p)."""
        template, mechanism, budget, backend, p = self._runs(data)
        out = np.empty((n_runs, p))
        for r in range(n_runs):
            # the adapter's own arguments: an Audited mechanism, its backend, its vouch
            out[r] = np.ravel(_release_checked(template, mechanism, budget, backend, rng,
                                             vouch=self.vouch).theta)
        return out

    def __call__(self, data: Any, rng: np.random.Generator) -> np.ndarray:
        return self.sample(data, 1, rng)[0]


def _problem(template: ObjectiveTemplate) -> tuple[Any, ...]:
    """What identifies the problem ``template`` states, whatever tolerance it is solved to: its
    class and the identity of each public member (and of the rows operator) but
    ``residual_tol``, which the copy output perturbation solves at its own tolerance shares with
    the template (:func:`~dpconvex.privacy.mechanisms.base._aimed_at`); the template's own
    identity where it holds no ``__dict__``."""
    members = getattr(template, "__dict__", None)
    if members is None:
        return type(template), id(template)
    return type(template), *sorted(
        (name, id(value)) for name, value in members.items()
        if (not name.startswith("_") or name == "_ops") and name != "residual_tol")


class OnceUnperturbed:
    """A solver backend that solves each problem's unperturbed form once per tolerance.

    The unperturbed solve (no noise, no extra regularization, no warm start) is a deterministic
    function of the data; output perturbation solves it on a fresh copy of the template at each
    release, at its own tolerance, and the copy states the same problem (:func:`_problem`). Each
    (problem, tolerance) is solved once and kept with the first template that stated it (so
    the identities in its key stay its own); every other solve is delegated.
    """

    def __init__(self, backend: Backend):
        self.backend = backend
        self._memo: dict[tuple[Any, ...], tuple[ObjectiveTemplate, SolveResult]] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.backend, name)

    def solve(self, template: ObjectiveTemplate, b: np.ndarray | None, extra_reg: float = 0.0, *,
              warm_start: np.ndarray | None = None, max_iter: int | None = None) -> SolveResult:
        if b is not None or warm_start is not None:
            return self.backend.solve(
                template, b, extra_reg, warm_start=warm_start, max_iter=max_iter
            )
        key = (_problem(template), float(template.residual_tol), float(extra_reg), max_iter)
        if key not in self._memo:
            self._memo[key] = (
                template,
                self.backend.solve(template, None, extra_reg, max_iter=max_iter),
            )
        return self._memo[key][1]


def backend_for(solver: Any, template: Template) -> OnceUnperturbed:
    """The registry's backend for ``solver`` (a name or a backend), solving the unperturbed
    problem once per tolerance."""
    from ..solvers import get_backend

    return OnceUnperturbed(solver if hasattr(solver, "solve") else get_backend(solver, template))


# ----------------------------------------------------------------------------- adapters

#: The private mechanisms a linear ERM adapter can audit (the linear estimators' menu).
_PRIVATE_LINEAR = tuple(n for n in LINEAR_MENU.offered if MECHANISMS[n].private)


def _data(data: Any, owner: str, *, labels: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(X, y) of an audited data set: X a finite 2-D float array, y finite floats, one per row.

    With ``labels=False`` y is only checked for its length (the caller encodes it).
    """
    if not isinstance(data, (tuple, list)) or len(data) != 2:
        raise ParameterError(
            f"{owner}.prepare: data must be a tuple (X, y). Got {type(data).__name__}."
        )
    X = check_array(data[0], f"{owner}.prepare")
    if not labels:
        if np.shape(data[1]) != (X.shape[0],):
            raise ParameterError(
                f"{owner}.prepare: y must hold one label per row of X ({X.shape[0]})."
            )
        return X, np.empty(0)
    try:
        y = np.asarray(data[1], dtype=float)
    except (TypeError, ValueError, OverflowError):  # refused after the handler: NumPy's text
        y = None  # can quote a label
    if y is None:
        raise ParameterError(f"{owner}.prepare: the labels y must be numbers.")
    if y.shape != (X.shape[0],) or not np.all(np.isfinite(y)):
        raise ParameterError(f"{owner}.prepare: y must hold one finite label per row of X "
                             f"({X.shape[0]}); got shape {y.shape}.")
    return X, y


#: The template an adapter builds per data set.
TemplateT = TypeVar("TemplateT", bound="ObjectiveTemplate")


class _TemplateAdapter(Sampled, Generic[TemplateT]):
    """Shared part of the adapters that solve a template: one template, backend and center per data set."""

    owner = ""
    #: δ of the claimed guarantee (the Gaussian mechanisms; 0 for the pure ones).
    delta: float = 0.0

    def __init__(self, mechanism: str, epsilon: float, noise_scale: float, solver: Any):
        self.mechanism = mechanism
        self.epsilon = check_float("epsilon", epsilon, self.owner)
        self.noise_scale = check_float("noise_scale", noise_scale, self.owner)
        if not hasattr(solver, "solve"):  # a backend object, or a registered name
            check_solver_name(solver, self.owner)
        self.solver = solver
        self._library = get_mechanism(mechanism)
        self._mech = Audited(self._library, self.noise_scale)
        self._cache: dict[str, tuple[TemplateT, Calibration, np.ndarray]] = {}
        self._backends: dict[str, OnceUnperturbed] = {}

    def _template(self, data: Any) -> tuple[str, Callable[[], TemplateT]]:
        raise NotImplementedError

    def _prepare(self, data: Any) -> tuple[str, tuple[TemplateT, Calibration, np.ndarray]]:
        key, build = self._template(data)
        if key not in self._cache:
            t = build()
            backend = backend_for(self.solver, t)
            budget = Budget(self.epsilon, self.delta)
            cal = release(t, self._library, budget, dry_run=True).calibration
            assert cal is not None
            x0 = release(t, "none", Budget.unlimited(), backend).theta
            assert x0 is not None
            self._backends[key] = backend
            self._cache[key] = (t, cal, np.array(x0, copy=True))
        return key, self._cache[key]

    def prepare(self, data: Any) -> tuple[TemplateT, Calibration, np.ndarray]:
        """(template, the library's calibration, non-private minimizer) for ``data``, cached."""
        return self._prepare(data)[1]

    def calibration(self, data: Any) -> Calibration:
        """The library's calibration on ``data`` (ε split, Δ, noise rate): what is claimed."""
        return self.prepare(data)[1]

    def minimizer(self, data: Any) -> np.ndarray:
        """The non-private minimizer θ* on ``data`` (the center of output perturbation)."""
        return self.prepare(data)[2].copy()

    def _runs(self, data: Any) -> tuple[TemplateT, Audited, Budget, OnceUnperturbed, int]:
        key, (t, _, x0) = self._prepare(data)
        return t, self._mech, Budget(self.epsilon, self.delta), self._backends[key], x0.size


class LinearERMMechanism(_TemplateAdapter[LinearERMTemplate]):
    """Output or objective perturbation ([CMS]_ Alg. 1 / 2) on :class:`LinearERMTemplate`.

    One call is one run of the release pipeline (that of
    :func:`~dpconvex.privacy.release.release`) of the library's mechanism on the template built
    once per data set (calibration, noise, solve, accuracy check, snapping): ``coef_`` of a
    linear estimator with ``fit_intercept=False``, the same parameters and seed.

    Parameters
    ----------
    loss : str or Loss
        "logistic", "huber", "smooth_hinge" or a Loss instance.
    epsilon : float
        Claimed ε.
    mechanism : {"output", "objective"}
    lam : float
        Λ.
    data_norm : float, default=1.0
        q (rows are clipped to it, as the estimators do).
    h : float, default=0.5
        Width of the Huber/smooth hinge.
    noise_scale : float, default=1.0
        Multiplies every noise draw: < 1 is a deliberately mis-calibrated mutant (0.5: true ε
        doubled) that checks an audit has power.
    solver : str, default="native"
        Backend name (the registry's) or a backend.
    delta : float, default=0.0
        Claimed δ: > 0 for the Gaussian mechanisms ("gaussian_objective",
        "gaussian_output", docs/privacy/gaussian_linear.md#privacy-gaussian-linear), 0 for the pure ones.

    Notes
    -----
    ``data`` is a tuple (X, y) with labels in {−1, +1}; no intercept column is
    added (append one to X yourself to audit an intercept).

    Examples
    --------
    >>> from dpconvex.audit import LinearERMMechanism, audit, linear_erm_pair
    >>> X, y, X_prime, y_prime = linear_erm_pair(20, 2, random_state=0)
    >>> mech = LinearERMMechanism("huber", epsilon=1.0, mechanism="output", lam=0.1)
    >>> mech.sample((X, y), 4, np.random.default_rng(0)).shape
    (4, 2)
    >>> r = audit(mech, (X, y), (X_prime, y_prime), n_runs=200, random_state=0)
    >>> r.epsilon_lower_bound <= 1.0
    True
    """

    owner = "LinearERMMechanism"

    def __init__(self, loss: str | Loss, *, epsilon: float, mechanism: str, lam: float,
                 data_norm: float = 1.0, h: float = 0.5, noise_scale: float = 1.0,
                 solver: str = "native", delta: float = 0.0):
        owner = self.owner
        self.delta = check_float("delta", delta, owner, low_inclusive=True, high=1.0)
        h = check_float("h", h, owner)
        if not isinstance(loss, Loss) and not (isinstance(loss, str) and loss in LOSSES):
            raise ParameterError(
                f"The 'loss' parameter of {owner} must be one of {sorted(LOSSES)} "
                f"or a dpconvex.objectives.Loss instance. Got {describe_value(loss)} instead."
            )
        self.loss = loss if isinstance(loss, Loss) else get_loss(
            loss, **({} if loss == "logistic" else {"h": h}))
        self.lam = check_float("lam", lam, owner)
        self.data_norm = check_float("data_norm", data_norm, owner)
        super().__init__(check_option("mechanism", mechanism, _PRIVATE_LINEAR, owner),
                         epsilon, noise_scale, solver)

    def _template(self, data: Data) -> tuple[str, Callable[[], LinearERMTemplate]]:
        X, y = _data(data, self.owner)
        return data_key(X, y), lambda: LinearERMTemplate(
            self.loss, self.lam, self.data_norm, clip_rows(X, self.data_norm)[0], y)

    def log_likelihood_ratio(self, D: Data, D_prime: Data) -> Callable[[np.ndarray], float]:
        """A statistic: the log density ratio ln f_D(θ)/f_D′(θ) of one release θ (a callable).

        By Neyman–Pearson, thresholding it gives the most powerful events for the pair, so
        audits with it come closest to the true ε (white-box; the bound stays valid whatever
        statistic is used). Rounded to :data:`~dpconvex.audit.statistics.LLR_DECIMALS`
        decimals, so that it audits the real-valued calibration, not the last bits of the
        floats (``float_consistency_statistic`` audits those). From the library's calibration
        (rate β, Δ) and the two templates:

        * output perturbation: β(||θ − θ*_D′|| − ||θ − θ*_D||);
        * objective perturbation (change of variables b ↦ θ, [CMS]_ Section 3.2): with
          b_X(θ) = −n ∇J_X(θ), β(||b_D′(θ)|| − ||b_D(θ)||) + ln det ∇²J_D(θ) − ln det ∇²J_D′(θ);
        * the Gaussian mechanisms (docs/privacy/gaussian_linear.md#privacy-gaussian-objective,
          privacy-gaussian-output): the same with (‖·_D′‖² − ‖·_D‖²)/(2σ²) for the norm term.
        """
        tD, calD, xD = self.prepare(D)
        tDp, calDp, xDp = self.prepare(D_prime)
        mech = MECHANISMS[self.mechanism]
        noise = (pure_noise_term(calD.noise_rate) if mech.pure
                 else gaussian_noise_term(calD.extra["noise std"]))
        if mech.adds_output_noise:
            def llr_output(theta: np.ndarray) -> float:
                th = np.asarray(theta, dtype=float).ravel()
                return round(noise(th - xD, th - xDp), LLR_DECIMALS)
            return llr_output
        return objective_llr(tD, calD.extra_strong_convexity, tDp, calDp.extra_strong_convexity,
                             noise, _hessian_logdet)


def _hessian_logdet(t: SmoothTemplate, th: np.ndarray, extra: float) -> float:
    return float(np.linalg.slogdet(t.hessian(th, extra))[1])


class LargeMarginMechanism(_TemplateAdapter[LargeMarginGaussianTemplate]):
    """Objective perturbation on :class:`LargeMarginGaussianTemplate`, through the release
    pipeline.

    As :class:`LinearERMMechanism`, on the large-margin template; the output is Φ flattened
    (C·K·D·D entries). ``data`` is (X, y) with class indices y in {0, ..., C − 1}; rows are
    clipped to ``data_norm`` and mapped to z = [x; 1]/sqrt(q² + 1), as in
    :class:`~dpconvex.PrivateLargeMarginGaussian`.

    Parameters
    ----------
    epsilon : float
    lam : float
        λ > 0.
    gamma : float, default=0.0
    h : float, default=0.5
        Huber width.
    data_norm : float, default=1.0
    n_classes : int, default=2
    n_components : int, default=1
        K; with K > 1 the components are assigned by a public rule (record i
        gets component i mod K), which reads no other record.
    noise_scale : float, default=1.0
        < 1 mis-calibrates deliberately (see :class:`LinearERMMechanism`).
    solver : str, default="native"

    Examples
    --------
    >>> from dpconvex.audit import LargeMarginMechanism, large_margin_pair
    >>> X, y, X_prime, y_prime = large_margin_pair(8, 1, random_state=0)
    >>> mech = LargeMarginMechanism(epsilon=1.0, lam=1.0)
    >>> mech((X, y), np.random.default_rng(0)).shape  # C * K * (d + 1)**2 entries of Phi
    (8,)
    """

    owner = "LargeMarginMechanism"

    def __init__(self, *, epsilon: float, lam: float, gamma: float = 0.0, h: float = 0.5,
                 data_norm: float = 1.0, n_classes: int = 2, n_components: int = 1,
                 noise_scale: float = 1.0, solver: str = "native"):
        owner = self.owner
        self.lam = check_float("lam", lam, owner)
        self.gamma = check_float("gamma", gamma, owner, low_inclusive=True)
        self.loss = HuberHinge(h)
        self.data_norm = check_float("data_norm", data_norm, owner)
        self.n_classes = check_int("n_classes", n_classes, owner, low=2)
        self.n_components = check_int("n_components", n_components, owner)
        super().__init__("objective", epsilon, noise_scale, solver)

    def _template(self, data: Data) -> tuple[str, Callable[[], LargeMarginGaussianTemplate]]:
        X, yf = _data(data, self.owner)
        if np.any(yf != np.round(yf)) or np.any(yf < 0) or np.any(yf >= self.n_classes):
            raise ParameterError(
                f"{self.owner}.prepare: the labels of data must be class indices in "
                f"0, ..., {self.n_classes - 1} (n_classes - 1)."
            )
        y = yf.astype(np.int64)

        def build() -> LargeMarginGaussianTemplate:
            return LargeMarginGaussianTemplate.from_features(
                X, y, np.arange(y.size) % self.n_components, data_norm=self.data_norm,
                n_classes=self.n_classes, n_components=self.n_components, lam=self.lam,
                gamma=self.gamma, loss=self.loss, assignment="public rule: component i mod K")
        return data_key(X, y), build

    def log_likelihood_ratio(self, D: Data, D_prime: Data) -> Callable[[np.ndarray], float]:
        """A statistic approximating ln f_D(Φ)/f_D′(Φ) (white-box; one flattened Φ -> float).

        β(||b_D′(Φ)||_F − ||b_D(Φ)||_F) with b_X(Φ) = −n ∇J_X(Φ) the noise that makes Φ
        stationary on X; the Jacobian term and the PSD constraint's normal cone are ignored.
        Any statistic gives a valid bound; this one gives power.
        """
        tD, calD, _ = self.prepare(D)
        tDp, calDp, _ = self.prepare(D_prime)
        beta = calD.noise_rate

        def llr_large_margin(phi: np.ndarray) -> float:
            P = np.asarray(phi, dtype=float).reshape(tD.noise_shape)
            bD = -tD.n * tD.objective(P, None, calD.extra_strong_convexity)[1]
            bDp = -tDp.n * tDp.objective(P, None, calDp.extra_strong_convexity)[1]
            return round(beta * float(np.linalg.norm(bDp) - np.linalg.norm(bD)), LLR_DECIMALS)
        return llr_large_margin


class NoisyGDMechanism(Sampled):
    """:class:`~dpconvex.NoisyGradientDescent`'s release, one run of the release pipeline per
    run.

    Per data set the :class:`EmpiricalRiskTemplate` is built as the estimator builds it, and
    the :class:`~dpconvex.privacy.mechanisms.noisy_gd.NoisyGD` mechanism gets the estimator's
    parameters: ``mechanism(data, np.random.default_rng(seed))`` is the estimator's
    ``[coef_, intercept_]`` with ``random_state=seed``.

    Parameters
    ----------
    estimator : NoisyGradientDescent
        Unfitted, with the parameters to audit (its ``random_state`` is ignored).
    noise_scale : float, default=1.0
        < 1 mis-calibrates deliberately (the Gaussian std is multiplied by it).

    Examples
    --------
    >>> from dpconvex import NoisyGradientDescent
    >>> from dpconvex.audit import NoisyGDMechanism, linear_erm_pair
    >>> X, y, X_prime, y_prime = linear_erm_pair(20, 2, random_state=0)
    >>> mech = NoisyGDMechanism(NoisyGradientDescent(epsilon=1.0, delta=1e-5, steps=5, radius=2.0,
    ...                                              accounting="rdp", classes=[-1, 1]))
    >>> mech.sample((X, y), 3, np.random.default_rng(0)).shape  # [coef_, intercept_] per run
    (3, 3)
    """

    def __init__(self, estimator: NoisyGradientDescent, *, noise_scale: float = 1.0):
        from ..estimators.noisy_gd import NoisyGradientDescent

        owner = type(self).__name__
        if not isinstance(estimator, NoisyGradientDescent):
            raise ParameterError(f"The 'estimator' parameter of {owner} must be an unfitted "
                                 f"NoisyGradientDescent. Got {type(estimator).__name__}.")
        self.estimator = estimator
        self.noise_scale = check_float("noise_scale", noise_scale, owner)
        p = estimator.get_params()
        # None leaves a setting to the mechanism's public rules, as the estimator does
        self._library = NoisyGD(steps=p["steps"], radius=p["radius"], clip=p["clip"],
                                learning_rate=p["learning_rate"], accounting=p["accounting"],
                                average=p["average"], delta_rule=p["delta"] is None)
        self._mech = Audited(self._library, self.noise_scale)
        self._epsilon, self._delta = float(p["epsilon"]), p["delta"]
        self._cache: dict[str, EmpiricalRiskTemplate] = {}

    def budget(self, template: EmpiricalRiskTemplate) -> Budget:
        """The (ε, δ) of a run on ``template`` (δ = 1/n² when the estimator's delta is None)."""
        delta = default_delta(template.n) if self._delta is None else float(self._delta)
        return Budget(self._epsilon, delta)

    def prepare(self, data: Data) -> EmpiricalRiskTemplate:
        """The template of ``data`` (clipped rows with intercept, ±1 labels), cached."""
        from ..data.validation import encode_labels, zero_rows

        X, _ = _data(data, type(self).__name__, labels=False)
        key = data_key(X, np.asarray(data[1]))
        if key not in self._cache:
            p = self.estimator.get_params()
            q = float(p["data_norm"])
            loss = p["loss"] if isinstance(p["loss"], Loss) else get_loss(p["loss"])
            Xc, _ = clip_rows(X, q)
            # as the estimator: classes=, else read (warned); its unknown_labels policy
            labels = encode_labels(
                np.asarray(data[1]),
                p.get("classes"),
                f"{type(self).__name__}.prepare",
                binary=True,
                unknown_labels=p.get("unknown_labels", "raise"),
            )
            ys = labels.signs
            if p["fit_intercept"]:
                Xc = np.hstack([Xc, np.ones((Xc.shape[0], 1))])
                q = math.sqrt(q * q + 1.0)
            Xc = zero_rows(Xc, labels.dropped)  # records outside the label set: no gradient
            self._cache[key] = EmpiricalRiskTemplate(loss, q, Xc, ys)
        return self._cache[key]

    def certificate(self, data: Data) -> Certificate:
        """The library's certificate on ``data`` (claimed ε and δ), from a dry run."""
        t = self.prepare(data)
        return release(t, self._library, self.budget(t), dry_run=True).certificate

    def _runs(self, data: Data) -> tuple[EmpiricalRiskTemplate, Audited, Budget, None, int]:
        t = self.prepare(data)  # a run releases the averaged iterate, intercept last
        return t, self._mech, self.budget(t), None, t.p


class ExponentialMechanism(Sampled):
    """The library's exponential mechanism ([MT07]_) through the release pipeline, as in
    private tuning.

    ``data`` is the utility vector; each run is one run of the release pipeline (that of
    :func:`~dpconvex.privacy.release.release`) of the ``"exponential"``
    mechanism on a :class:`SelectionTemplate`; the output is the selected index (as a length-1 float array).

    Parameters
    ----------
    epsilon : float
    sensitivity : float, default=1.0
        Δu declared in the template (a mis-calibrated mechanism declares half the true
        sensitivity): the caller's declaration, vouched for in each release
        (``vouch=("sensitivity",)``).

    Examples
    --------
    >>> from dpconvex.audit import ExponentialMechanism, audit, exponential_mechanism_pair
    >>> u, u_prime = exponential_mechanism_pair(gap=2.0)
    >>> r = audit(ExponentialMechanism(epsilon=1.0), u, u_prime, n_runs=400, random_state=0)
    >>> r.epsilon_lower_bound <= 1.0
    True
    """

    vouch = ("sensitivity",)

    def __init__(self, *, epsilon: float, sensitivity: float = 1.0):
        owner = type(self).__name__
        self.epsilon = check_float("epsilon", epsilon, owner)
        self.sensitivity = check_float("sensitivity", sensitivity, owner)
        self._mech = Audited(get_mechanism("exponential"))
        self._cache: dict[str, SelectionTemplate] = {}

    def prepare(self, data: Any) -> SelectionTemplate:
        """The selection template of the utilities ``data`` (n = 1: no records behind them)."""
        owner = type(self).__name__
        msg = (
            f"{owner}.prepare: data must be the utility vector, a non-empty 1-D array of finite "
            "floats (one utility per candidate)."
        )
        u = float_array(data, msg)
        if u.ndim != 1 or u.size == 0 or not np.all(np.isfinite(u)):
            raise ParameterError(msg)
        key = data_key(u)
        if key not in self._cache:
            self._cache[key] = SelectionTemplate(u, self.sensitivity, 1)
        return self._cache[key]

    def _runs(self, data: Any) -> tuple[SelectionTemplate, Audited, Budget, None, int]:
        return self.prepare(data), self._mech, Budget(self.epsilon), None, 1  # the index


def _default_estimator_output(estimator: BaseEstimator) -> np.ndarray:
    if hasattr(estimator, "Phi_"):
        return np.asarray(estimator.Phi_, dtype=float).ravel()
    if not hasattr(estimator, "coef_"):
        raise ParameterError(
            f"EstimatorMechanism.__call__: {type(estimator).__name__} holds no coef_ or Phi_ to "
            "output (a front door releases a learner or a constant). Pass output=, e.g. "
            "output=lambda model: model.predict(X_probe) on public probe rows.")
    parts = [np.asarray(estimator.coef_, dtype=float).ravel()]
    if hasattr(estimator, "intercept_"):
        parts.append(np.asarray(estimator.intercept_, dtype=float).ravel())
    return np.concatenate(parts)


class EstimatorMechanism:
    """Any dpconvex estimator, end to end: one ``fit`` per run (slow, but every step of a fit).

    Each run fits a clone on ``data = (X, y)`` with the audit's generator handed to the fit
    (:func:`dpconvex.estimators.base.fit_with`), never stored on it. The output is
    ``[coef_, intercept_]`` (``Phi_`` for the large-margin classifier), or ``output(fitted_estimator)``.

    Parameters
    ----------
    estimator : estimator
        Unfitted dpconvex estimator (or meta-estimator, e.g.
        :class:`~dpconvex.estimators.selection.random.PrivateRandomSearch`) with a
        ``random_state`` parameter; its value (None or an int) is kept on the
        clones and not used for the draws.
    output : callable, optional
        Fitted estimator -> array.

    Examples
    --------
    >>> from dpconvex import PrivateLogisticRegression
    >>> from dpconvex.audit import EstimatorMechanism, linear_erm_pair
    >>> X, y, X_prime, y_prime = linear_erm_pair(20, 2, random_state=0)
    >>> mech = EstimatorMechanism(PrivateLogisticRegression(epsilon=1.0, lam=0.1, classes=[-1, 1]))
    >>> mech((X, y), np.random.default_rng(0)).shape  # [coef_, intercept_] of one fit
    (3,)
    """

    def __init__(
        self, estimator: BaseEstimator, output: Callable[[Any], np.ndarray] | None = None
    ):
        owner = type(self).__name__
        if isinstance(estimator, type) or not (hasattr(estimator, "get_params") and hasattr(
                estimator, "fit")) or "random_state" not in estimator.get_params():
            raise ParameterError(f"The 'estimator' parameter of {owner} must be an unfitted "
                                 "dpconvex estimator (with a random_state parameter). Got "
                                 f"{type(estimator).__name__}.")
        if output is not None and not callable(output):
            raise ParameterError(f"The 'output' parameter of {owner} must be None or a callable "
                                 f"(fitted estimator -> array). Got {type(output).__name__}.")
        self.estimator = estimator
        self.output = output or _default_estimator_output

    def __call__(self, data: Data, rng: np.random.Generator) -> np.ndarray:
        from sklearn.base import clone

        if not isinstance(data, (tuple, list)) or len(data) != 2:
            raise ParameterError(
                f"{type(self).__name__}.__call__: data must be a tuple (X, y). Got "
                f"{type(data).__name__}."
            )
        X, y = data
        est = clone(self.estimator)
        from ..estimators.base import NO_CONTEXT, fit_with

        # the audit's stream, handed to the fit, not stored
        fit_with(est, X, y, NO_CONTEXT, [(est, NoiseSource(rng, seeded=True))],
                 caller=f"{type(self).__name__}.__call__")
        out = self.output(est)
        try:
            return np.asarray(out, dtype=float).ravel()
        except (TypeError, ValueError, OverflowError):  # refused after the handler: NumPy's
            pass  # text can quote an entry
        raise ParameterError(f"{type(self).__name__}.__call__: output(estimator) returned "
                             f"{type(out).__name__}, not an array of floats.")


class EstimatorReleaseMechanism(Sampled):
    """The release of a private estimator with its parameters: plan, prepare, one run of the
    release pipeline per run.

    The template is built once per data set; each run outputs the released θ, flattened
    (module docstring).

    Parameters
    ----------
    estimator : PrivateEstimator
        Unfitted, with the parameters to audit (``random_state`` is ignored): a
        :class:`~dpconvex.PrivateLargeMarginGaussian`, a
        :class:`~dpconvex.PrivateLinearRegressor` or a binary linear classifier
        (:class:`~dpconvex.PrivateLogisticRegression`, :class:`~dpconvex.PrivateHuberSVM`,
        :class:`~dpconvex.PrivateLinearClassifier`). The build must be reusable (it
        draws no randomness, spends no budget and does not depend on ε): K = 1, or K > 1 with public
        ``centers``, on the objective path (the centroid release of
        docs/privacy/large_margin_softmax.md#privacy-centroid-switch is audited through
        ``PrivateGaussianCentroid``); a number for ``lam`` on the linear learners, and for the
        half-width of a loss with kinks (``smoothing``).
    noise_scale : float, default=1.0
        Multiplies every noise draw (rate β/s, std s·σ), the claim unchanged: s < 1 is a
        mis-calibrated mutant (see :class:`LinearERMMechanism`).

    Examples
    --------
    >>> from dpconvex import PrivateLargeMarginGaussian, PrivateLinearRegressor
    >>> from dpconvex.audit import EstimatorReleaseMechanism, large_margin_pair, linear_erm_pair
    >>> X, y, X_prime, y_prime = large_margin_pair(8, 2, random_state=0)
    >>> mech = EstimatorReleaseMechanism(PrivateLargeMarginGaussian(epsilon=1.0, classes=[0, 1]))
    >>> mech.sample((X, y), 3, np.random.default_rng(0)).shape  # theta of each run, flattened
    (3, 6)
    >>> X, y, X_prime, y_prime = linear_erm_pair(10, 1)  # labels at the ends of (-1, 1)
    >>> reg = PrivateLinearRegressor(epsilon=1.0, lam=0.5, fit_intercept=False,
    ...                              constraints=lambda w: [w >= 0])
    >>> theta = EstimatorReleaseMechanism(reg).sample((X, y), 4, np.random.default_rng(0))
    >>> theta.shape, bool((theta >= 0).all())  # projected onto the orthant
    ((4, 1), True)
    """

    def __init__(self, estimator: PrivateEstimator, *, noise_scale: float = 1.0):
        owner = type(self).__name__
        if not isinstance(estimator, PrivateEstimator) or not callable(
                getattr(estimator, "_mechanism", None)):
            raise ParameterError(
                f"The 'estimator' parameter of {owner} must be an unfitted private estimator "
                "that releases one template (PrivateLargeMarginGaussian, PrivateLinearRegressor, "
                f"PrivateLogisticRegression, PrivateHuberSVM, PrivateLinearClassifier). Got "
                f"{type(estimator).__name__}.")
        estimator._validate_params()
        if isinstance(getattr(estimator, "label_range", None), (str, PrivateBounds)):
            raise ParameterError(
                f"The 'estimator' parameter of {owner} must have a public label_range=(lo, hi): "
                "a private label range is a release of its own, before the template; audit the "
                "whole fit with EstimatorMechanism(estimator). "
                f"Got {describe_value(estimator.label_range)} "
                "instead."
            )
        self.estimator = estimator
        self.noise_scale = check_float("noise_scale", noise_scale, owner)
        self._library = estimator._mechanism()
        self._mech = Audited(self._library, self.noise_scale)
        self._cache: dict[str, tuple[Any, Budget, OnceUnperturbed]] = {}

    @property
    def pure(self) -> bool:
        """True for pure ε-DP (norm-Gamma noise), False for the Gaussian mechanism: the
        mechanism of the plan of the data last prepared (before any, the one δ names)."""
        return bool(self._library.pure)

    def prepare(self, data: Data) -> tuple[Any, Budget, OnceUnperturbed]:
        """(template, budget, backend) of ``data`` as ``fit`` builds them, cached."""
        from ..estimators.large_margin.learners import CENTROID_LEARNER, objective_part

        _data(data, "EstimatorReleaseMechanism", labels=False)  # a pair (the estimator reads y)
        X, y = (np.asarray(a) for a in data)
        key = data_key(np.asarray(X, dtype=float), y)
        if key not in self._cache:
            plan = self.estimator.plan_for(X, y)  # the public plan of fit (Λ, budget)
            if plan.sub_plans:
                raise ParameterError(
                    "EstimatorReleaseMechanism.prepare: the plan fits one binary model per class "
                    f"(one-vs-rest, {plan.n_classes} classes), not one release. Audit a binary "
                    "problem: two labels, or classes= with two entries.")
            prep = self.estimator.prepare(X, y, plan)
            est = type(self.estimator).__name__
            if (
                plan.learner == CENTROID_LEARNER
                or prep.template is None
                or not plan.mechanism.solves
            ):
                raise ParameterError(
                    f"EstimatorReleaseMechanism.prepare: {est} releases class sums, centroids or "
                    "sufficient statistics, with no template to solve once per run. Audit it end "
                    "to end with EstimatorMechanism(estimator) (one fit per run).")
            if not prep.reusable:
                raise ParameterError(
                    f"EstimatorReleaseMechanism.prepare: {est}: building the template draws "
                    "randomness or "
                    "spends budget (DP k-means components), or depends on epsilon (lam='auto' or "
                    "a kink "
                    "smoothed at smoothing='auto' on a linear learner), so one build cannot "
                    "serve every "
                    "run. Audit K = 1 or public centers, pass a number for lam (and for "
                    "smoothing), or "
                    f"audit end to end with EstimatorMechanism(estimator)."
                )
            t = prep.template
            budget = objective_part(plan)
            if plan.mechanism.name != self._library.name:  # "auto" by the Λ rule's bounds
                self._library = plan.mechanism
                self._mech = Audited(self._library, self.noise_scale)
            self._cache[key] = (t, budget, backend_for(self.estimator.solver, t))
        return self._cache[key]

    def calibration(self, data: Data) -> Calibration:
        """The calibration the runs use (the library's, times ``noise_scale``)."""
        t, budget, _ = self.prepare(data)
        cal = self._mech.calibrate(t, budget)
        assert cal is not None
        return cal

    def budget(self, data: Data) -> Budget:
        """The claimed (ε, δ) of one release on ``data``."""
        return self.prepare(data)[1]

    def _runs(self, data: Data) -> tuple[Any, Audited, Budget, OnceUnperturbed, int]:
        t, budget, backend = self.prepare(data)
        # θ as released, flattened: the solver's shape (full symmetric blocks of the
        # PSD template, not its p = dimension of distinct entries)
        return t, self._mech, budget, backend, int(np.prod(t.space.shape))

    def log_likelihood_ratio(self, D: Data, D_prime: Data) -> Callable[[np.ndarray], float]:
        """The statistic ln f_D(θ)/f_D′(θ) of one release (module docstring), rounded.

        From the runs' calibration (for a mis-calibrated mechanism, the mutant's own ratio)
        and the two templates, rounded to :data:`~dpconvex.audit.statistics.LLR_DECIMALS`
        decimals; one θ -> float. Objective perturbation on an unconstrained template only;
        anything else raises :class:`~dpconvex.errors.ParameterError`.
        """
        tD, _, _ = self.prepare(D)
        tDp, _, _ = self.prepare(D_prime)
        if self._library.adds_output_noise or self._library.wraps or not (
                self._library.private and self._library.solves):
            # (approximate minima: its output carries the cover's noise, which the change of
            # variables b -> θ does not see, and its calibration's rate is the cover's)
            raise ParameterError(
                "EstimatorReleaseMechanism.log_likelihood_ratio: the statistic is the change of "
                "variables "
                "of objective perturbation, and the estimator's mechanism is "
                f"'{self._library.name}'. Pass a "
                f"threshold statistic on a projection of θ instead (e.g. lambda theta: theta[0])."
            )
        if not all("hessp" in t.capabilities for t in (tD, tDp)):
            raise ParameterError(
                "EstimatorReleaseMechanism.log_likelihood_ratio: the change of variables b -> θ "
                "is a bijection only for an unconstrained minimizer; over the parameter set of "
                "'constraints' the released law has mass on the boundary. Pass a threshold "
                "statistic on a projection of θ instead (e.g. lambda theta: theta[0]).")
        cal = self.calibration(D)
        delta_reg = float(cal.extra_strong_convexity)
        noise = (pure_noise_term(float(cal.noise_rate)) if self.pure
                 else gaussian_noise_term(float(cal.extra["noise std"])))

        def logdet(t: SmoothTemplate, th: np.ndarray, extra: float) -> float:
            hv = t.hessp(th, extra)
            H = np.column_stack([np.ravel(hv(e)) for e in np.eye(th.size)])
            return float(np.linalg.slogdet(0.5 * (H + H.T))[1])

        return objective_llr(tD, delta_reg, tDp, delta_reg, noise, logdet)
