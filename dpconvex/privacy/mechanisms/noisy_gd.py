"""Noisy projected gradient descent: T adaptively composed Gaussian mechanisms.

Each step releases the mean of per-example gradients clipped to norm C plus N(0, s² I), s = z · 2C/n;
the exact μ-GDP curve (or ``dp_accounting``) calibrates z for the T-fold composition
(:mod:`dpconvex.privacy.accounting.gaussian`, docs/privacy/tuning_gd_ledger.md#privacy-noisy-gd).
Projection onto the ball and averaging of the iterates (the last half, [SZ13]_, or all) are post-processing.

Any of ``steps``, ``radius``, ``clip`` and ``learning_rate`` left at None is set by a rule that reads only
public quantities (n, p, the row-norm bound q̃, the loss constants, (ε, δ)); the certificate lists each rule
with its value. With G = |ℓ'|max q̃, L = c q̃² and μ the Gaussian-DP parameter of (ε, δ): clip C =
:data:`CLIP_FRACTION` · G; step η = min(:data:`STEP_FACTOR`/L, R/(s√(Tp))); steps T = ⌈D/(ηC)⌉ in
[:data:`MIN_STEPS`, :data:`MAX_STEPS`] with travel D = :data:`TRAVEL` · nμ/q̃; radius
R = η(CT + :data:`RADIUS_NOISE_SDS` · s√(Tp)). Why each rule, and the measurements behind
the constants (validation splits of training data only): docs/privacy/tuning_gd_ledger.md#privacy-noisy-gd.

References
----------
.. [ACG+16] M. Abadi et al. Deep Learning with Differential Privacy. CCS 2016.
.. [BST14] R. Bassily, A. Smith, A. Thakurta. Private Empirical Risk
   Minimization: Efficient Algorithms and Tight Error Bounds. FOCS 2014.
.. [SZ13] O. Shamir, T. Zhang. Stochastic Gradient Descent for Non-smooth
   Optimization: Convergence Results and Optimal Averaging Schemes. ICML 2013.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import scipy.sparse as sp

from ..._validation import describe_value
from ...errors import ParameterError, PrivacyError
from ...objectives.losses import Loss, shipped_as_built
from ...solvers.registry import Backend
from ...templates.base import PrivacyConstants, Template
from ..accounting.gaussian import (
    accountant_name,
    calibrate_noise_multiplier,
    gdp_epsilon,
    gdp_mu,
)
from ..budget import Budget
from ..certificate import Certificate, Condition, NoisyGDRule
from ..checks import is_compiled, solved_loss
from ..noise import Gaussian
from .base import Calibration, Mechanism, register
from .facts import public_count, public_number

__all__ = ["AVERAGING", "DELTA_RULE", "NoisyGD", "NoisyGDSettings", "clip_rule", "default_delta",
           "default_learning_rate", "default_settings", "max_steps", "steps_rule"]

#: Iterate averaging (post-processing): the last half of the iterates, or all of them.
AVERAGING = ("last_half", "all")

#: The public rule for δ when none is given: 1/n², n public (the usual "δ << 1/n").
DELTA_RULE = "delta chosen by the public rule 1/n^2 (n public)"

#: C = CLIP_FRACTION x the Lipschitz bound |l'|max q̃.
CLIP_FRACTION = 0.5
#: η = STEP_FACTOR / L with L = c q̃² the smoothness bound (the stability limit of GD).
STEP_FACTOR = 2.0
#: The travel D = ηCT of the steps rule is TRAVEL x nμ / q̃ (benchmarks/noisy_gd_steps.py).
TRAVEL = 1.3
#: Bounds of the steps rule (the upper one bounds the running time).
MIN_STEPS, MAX_STEPS = 20, 1000
#: The radius rule adds this many standard deviations of the accumulated noise to ηCT.
RADIUS_NOISE_SDS = 3.0
#: Cap of the gradient work T·n·p of an explicit ``steps`` (:func:`max_steps`).
MAX_STEP_WORK = 10**11
#: Cap of an explicit ``steps`` whatever n and p (:func:`max_steps`).
MAX_EXPLICIT_STEPS = 10**6


def max_steps(n: int, p: int) -> int:
    """The largest ``steps`` accepted for n records and p parameters (public quantities).

    T_max = min(:data:`MAX_EXPLICIT_STEPS`, max(:data:`MAX_STEPS`, ⌊:data:`MAX_STEP_WORK`
    / (n p)⌋)): a bound on running time only (about 3.5 ns per entry and step), privacy
    does not depend on T (docs/privacy/tuning_gd_ledger.md#privacy-noisy-gd).

    Parameters
    ----------
    n : int
        The number of records.
    p : int
        The number of parameters.

    Returns
    -------
    int
        T_max.

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.noisy_gd import max_steps
    >>> max_steps(1000, 5)
    1000000
    """
    work = max(int(n), 1) * max(int(p), 1)
    return int(min(MAX_EXPLICIT_STEPS, max(MAX_STEPS, MAX_STEP_WORK // work)))


def default_delta(n: int) -> float:
    """δ = 1/n² (:data:`DELTA_RULE`): n is public under replace-one adjacency.

    Parameters
    ----------
    n : int
        The number of records (public).

    Returns
    -------
    float
        1/n².

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.noisy_gd import default_delta
    >>> default_delta(1000)
    1e-06
    """
    return 1.0 / (float(n) * float(n))


#: The key of the calibration's ``extra`` that names the class whose CVXPY form the run's
#: loss is compiled from (None: a loss dpconvex ships, as its constructor built it).
_COMPILED_FROM = "loss compiled from"


def _compiled_from(loss: Loss) -> str | None:
    """The class whose CVXPY form the run reads the rows through, compiled by dpconvex
    (:func:`~dpconvex.privacy.checks.solved_loss`), or None for a loss dpconvex ships as its
    constructor built it (read as it is). A loss ``solved_loss`` compiled names the class it
    was compiled from; any other is compiled by :meth:`NoisyGD.run` before it reads a row
    (refused there where its form does not compile) and names its own class."""
    if shipped_as_built(loss):
        return None
    if is_compiled(loss):
        return str(loss.solved_from)
    return type(loss).__qualname__


def _compiled_form_condition(source: str | None) -> list[Condition]:
    """The condition stating that a user's loss read the rows through the NumPy form dpconvex
    compiled from its CVXPY form (none for a loss dpconvex ships as built)."""
    if source is None:
        return []
    return [Condition(
        "loss read through its compiled form", True, "compiled from the CVXPY form",
        f"the per-example gradients read the margins only through l' of the NumPy form "
        f"dpconvex compiled from the CVXPY form of class {source}, elementwise (record i's "
        "gradient reads its own margin); no method of the loss given is called on the rows, "
        "and a loss whose form does not compile is refused before any row is read")]


class PerExampleGradientsTemplate(Template, Protocol):
    """What noisy gradient descent reads of a template (capability ``"per_example_gradients"``)."""

    loss: Loss  #: the margin loss ℓ(y x·θ); its slope bound times ``data_norm`` bounds a gradient
    data_norm: float  #: public bound on the norm of a row
    X: Any  #: the rows: array, sparse matrix or row operator (Dask: on the workers)
    y: np.ndarray  #: labels in {-1, +1}
    p: int  #: number of parameters


@dataclass(frozen=True)
class NoisyGDSettings:
    """The resolved public settings of a noisy gradient descent run.

    ``rules`` names every value set by a rule (certificate assumptions): the clip and the steps
    as typed lines (:class:`~dpconvex.privacy.certificate.NoisyGDRule`), the radius and the
    learning rate as text.

    Parameters
    ----------
    steps : int
        T.
    radius : float
        R, the radius of the parameter ball.
    clip : float
        C, the per-example clip.
    learning_rate : float
        η.
    noise_multiplier : float
        z.
    epsilon : float
        The ε the accountant reports at z.
    noise_std : float
        s, the standard deviation of the gradient noise.
    rules : tuple of (str or NoisyGDRule)
        The lines of the rules that set values.

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.noisy_gd import default_settings
    >>> s = default_settings(Logistic(), n=1000, p=5, q=1.0, budget=Budget(1.0, 1e-6), accounting="rdp")
    >>> type(s).__name__, s.steps, s.clip
    ('NoisyGDSettings', 77, 0.5)
    >>> round(s.noise_multiplier, 3), s.epsilon <= 1.0
    (39.758, True)
    """

    steps: int
    radius: float
    clip: float
    learning_rate: float
    noise_multiplier: float
    epsilon: float
    noise_std: float
    rules: tuple[str | NoisyGDRule, ...]


def _step_cap(loss: Loss, q: float) -> float:
    """2/L, L = c q̃² the smoothness bound (|l'|max q̃² for a loss without a curvature bound)."""
    c = float(loss.curvature)
    smooth = math.isfinite(c) and c > 0
    return STEP_FACTOR / ((c if smooth else loss.deriv_bound) * q * q)


def default_learning_rate(loss: Loss, q: float, radius: float, steps: int, p: int, clip: float,
                          noise_std: float, step_factor: float = 1.0) -> float:
    """Step size from public quantities: min(k/L, R / (s sqrt(T p))), L = c q², k = ``step_factor``.

    The clipped mean gradient is the gradient of a convex surrogate of smoothness at most
    L = c q² (docs/privacy/tuning_gd_ledger.md#privacy-noisy-gd); averaged projected SGD with
    step η <= 1/L and gradient noise of variance p s² has error at most R²/(2ηT) + η p s²/2,
    minimized at R / (s sqrt(T p)), capped at k/L (noisy gradient descent's rule uses k = 2, the
    stability limit, where the averaging absorbs the oscillation). Without a finite curvature
    bound: R / (sqrt(T) sqrt(C² + p s²)).

    Parameters
    ----------
    loss : Loss
        The margin loss (its ``deriv_bound`` and ``curvature``).
    q : float
        q̃, the public row-norm bound (intercept column included).
    radius : float
        R, the radius of the parameter ball.
    steps : int
        T.
    p : int
        The number of parameters.
    clip : float
        C, the per-example clip.
    noise_std : float
        s, the standard deviation of the gradient noise per coordinate.
    step_factor : float, default=1.0
        k.

    Returns
    -------
    float
        The step size η.

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.noisy_gd import default_learning_rate
    >>> eta = default_learning_rate(Logistic(), q=1.0, radius=10.0, steps=100, p=5,
    ...                             clip=1.0, noise_std=0.1)
    >>> round(eta, 3)
    4.0
    """
    c = float(loss.curvature)
    if math.isfinite(c) and c > 0:
        L = c * q * q
        if noise_std <= 0:
            return step_factor / L
        return min(step_factor / L, radius / (noise_std * math.sqrt(steps * p)))
    return radius / (math.sqrt(steps) * math.sqrt(clip * clip + p * noise_std * noise_std))


def clip_rule(loss: Loss, q: float) -> tuple[float, NoisyGDRule]:
    """The clip C = :data:`CLIP_FRACTION` · |l'|max · q̃ (q̃ the rows' norm bound, their
    intercept column included if any) and the line the certificate lists under its assumptions.

    Parameters
    ----------
    loss : Loss
        The margin loss (its ``deriv_bound`` and ``curvature``).
    q : float
        q̃, the public row-norm bound (intercept column included).

    Returns
    -------
    tuple of (float, NoisyGDRule)
        C and the certificate's line.

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.noisy_gd import clip_rule
    >>> clip, line = clip_rule(Logistic(), 1.0)
    >>> clip, line.setting, line.q
    (0.5, 'clip', 1.0)
    """
    clip = CLIP_FRACTION * (loss.deriv_bound * q)
    return clip, NoisyGDRule("clip", clip, q=q, fraction=CLIP_FRACTION)


def steps_rule(loss: Loss, n: int, q: float, budget: Budget, clip: float,
               learning_rate: float | None = None) -> tuple[int, NoisyGDRule]:
    """The number of steps T = ⌈D/(ηC)⌉ in [:data:`MIN_STEPS`, :data:`MAX_STEPS`] and its line.

    D = :data:`TRAVEL` · nμ/q̃ is the travel, μ the Gaussian-DP parameter of (ε, δ)
    (:func:`~dpconvex.privacy.accounting.gaussian.gdp_mu`) and η the given ``learning_rate``
    or 2/L: public quantities only (why: docs/privacy/tuning_gd_ledger.md#privacy-noisy-gd).

    Parameters
    ----------
    loss : Loss
        The margin loss (its ``deriv_bound`` and ``curvature``).
    n : int
        The number of records.
    q : float
        q̃, the public row-norm bound (intercept column included).
    budget : Budget
        The run's (ε, δ).
    clip : float
        C.
    learning_rate : float or None, default=None
        η (None: 2/L).

    Returns
    -------
    tuple of (int, NoisyGDRule)
        T and the certificate's line.

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.noisy_gd import steps_rule
    >>> steps_rule(Logistic(), 1000, 1.0, Budget(1.0, 1e-6), clip=0.5)[0]
    77
    """
    eta = _step_cap(loss, q) if learning_rate is None else float(learning_rate)
    mu = gdp_mu(budget.epsilon, budget.delta)
    travel = TRAVEL * n * mu / q
    steps = int(min(MAX_STEPS, max(MIN_STEPS, math.ceil(travel / (eta * clip)))))
    return steps, NoisyGDRule("steps", steps, eta=eta, travel=travel, travel_factor=TRAVEL,
                              mu=mu, low=MIN_STEPS, high=MAX_STEPS)


def default_settings(loss: Loss, n: int, p: int, q: float, budget: Budget, *,
                     steps: int | None = None, radius: float | None = None,
                     clip: float | None = None, learning_rate: float | None = None,
                     accounting: str = "gdp") -> NoisyGDSettings:
    """Fill the settings left at None by the public rules of the module docstring.

    ``loss`` (its ``deriv_bound`` and ``curvature``), n records (public), p parameters, q̃
    the public row-norm bound (intercept included), the run's ``budget``; ``steps``,
    ``radius``, ``clip`` and ``learning_rate`` given are kept (η left at None:
    min(2/L, R/(s sqrt(Tp))), :func:`default_learning_rate`).

    Parameters
    ----------
    loss : Loss
        The margin loss (its ``deriv_bound`` and ``curvature``).
    n : int
        The number of records.
    p : int
        The number of parameters.
    q : float
        q̃, the public row-norm bound (intercept column included).
    budget : Budget
        The run's (ε, δ).
    steps, radius, clip, learning_rate : optional
        Kept where given; None: the public rules.
    accounting : {"gdp", "pld", "rdp"}, default="gdp"
        The accountant that calibrates the noise multiplier.

    Returns
    -------
    NoisyGDSettings
        Every setting filled, with the lines of the rules applied.

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.noisy_gd import default_settings
    >>> s = default_settings(Logistic(), n=1000, p=5, q=1.0, budget=Budget(1.0, 1e-6), steps=50,
    ...                      accounting="rdp")
    >>> s.steps, s.clip, round(s.learning_rate, 3)
    (50, 0.5, 8.0)
    >>> len(s.rules)
    3
    """
    eps, delta = budget.epsilon, budget.delta
    rules: list[str | NoisyGDRule] = []
    c = float(loss.curvature)
    smooth = math.isfinite(c) and c > 0
    # the step the steps and radius rules assume: 2/L (a unit curvature without a bound)
    eta_cap = _step_cap(loss, q)
    eta_plan = eta_cap if learning_rate is None else float(learning_rate)
    if clip is None:
        clip, rule = clip_rule(loss, q)
        rules.append(rule)
    rule_steps = steps is None
    if rule_steps:
        steps, rule = steps_rule(loss, n, q, budget, clip, learning_rate)
        rules.append(rule)
    z, eps_achieved = calibrate_noise_multiplier(eps, delta, steps, accounting)
    s = z * (2.0 * clip / n)  # this order of the product fixes the released bits
    rule_radius = radius is None
    if rule_radius:
        radius = eta_plan * (clip * steps + RADIUS_NOISE_SDS * s * math.sqrt(steps * p))
        rules.append(
            f"radius R = {radius:.6g} by the public rule R = eta (C T + {RADIUS_NOISE_SDS:g} s "
            f"sqrt(T p)) (the clipped steps' reach plus {RADIUS_NOISE_SDS:g} standard "
            "deviations of the summed noise: the projection rarely acts)"
        )
    assert radius is not None
    if learning_rate is None:
        if smooth:
            learning_rate = default_learning_rate(
                loss, q, radius, steps, p, clip, s, step_factor=STEP_FACTOR
            )
            rules.append(f"learning rate eta = {learning_rate:.6g} by the public rule eta = "
                         f"min({STEP_FACTOR:g}/L, R/(s sqrt(T p))), L = c q~^2 = "
                         f"{c * q * q:.6g} (the smoothness bound)")
        elif rule_steps or rule_radius:
            learning_rate = eta_cap
            rules.append(f"learning rate eta = {learning_rate:.6g} by the public rule eta = "
                         f"{STEP_FACTOR:g} / (|l'|max q~^2) (no curvature bound)")
        else:
            learning_rate = default_learning_rate(loss, q, radius, steps, p, clip, s)
            rules.append(f"learning rate eta = {learning_rate:.6g} by the public rule eta = "
                         "R / (sqrt(T) sqrt(C^2 + p s^2)) (no curvature bound)")
    return NoisyGDSettings(int(steps), float(radius), float(clip), float(learning_rate), z,
                           eps_achieved, s, tuple(rules))


@register
class NoisyGD(Mechanism[PerExampleGradientsTemplate]):
    """Noisy projected gradient descent with per-example clipping ([ACG+16]_, [BST14]_).

    Parameters
    ----------
    steps : int or None
        T; None: the public rule (:func:`default_settings`).
    radius : float or None
        R of the ball the iterates are projected onto; None: the public rule.
    clip : float or None
        Per-example gradient norm bound C; None: the public rule.
    learning_rate : float or None
        η; None: the public rule (or, with explicit ``steps`` and ``radius``,
        :func:`default_learning_rate`).
    accounting : {"gdp", "pld", "rdp"}, default="gdp"
    average : {"last_half", "all"}, default="last_half"
        Which iterates the released model averages (post-processing).
    delta_rule : bool, default=False
        The budget's δ was set by :func:`default_delta`: the certificate says so
        (and the rule is checked against n).

    References
    ----------
    [ACG+16]_ (per-example clipping and Gaussian noise); [BST14]_ (noisy projected gradient
    descent).

    Examples
    --------
    >>> from dpconvex.templates.statistics import EmpiricalRiskTemplate
    >>> # np, X (40 rows of norm 1), y (labels ±1): the doctest namespace, conftest.py
    >>> template = EmpiricalRiskTemplate(Logistic(), 1.0, X, np.where(X[:, 0] > 0, 1, -1))
    >>> mech = get_mechanism("noisy_gd", steps=20, accounting="rdp")
    >>> cal = mech.calibrate(template, Budget(1.0, 1e-5))
    >>> cal.extra["steps"], round(cal.extra["noise multiplier"], 2)
    (20, 18.09)
    >>> release(template, mech, Budget(1.0, 1e-5), rng=0).theta.shape
    (3,)
    """

    name = "noisy_gd"
    needs = frozenset({"per_example_gradients"})
    solves = False
    pure = False

    def __init__(self, steps: int | None = None, radius: float | None = None,
                 clip: float | None = None, learning_rate: float | None = None,
                 accounting: str = "gdp", average: str = "last_half", delta_rule: bool = False):
        self.steps = None if steps is None else int(steps)
        self.radius = None if radius is None else float(radius)
        self.clip = None if clip is None else float(clip)
        self.learning_rate = None if learning_rate is None else float(learning_rate)
        self.accounting = accounting
        if not isinstance(average, str) or average not in AVERAGING:
            raise ParameterError(f"The 'average' parameter of {type(self).__name__} must be one "
                                 f"of {list(AVERAGING)!r}. Got {describe_value(average)} instead.")
        self.average = average
        self.delta_rule = bool(delta_rule)

    def check_budget(self, budget: Budget) -> Budget:
        """Validate the budget: noisy gradient descent is (ε, δ)-DP, so it needs a finite ε
        and δ > 0.

        Parameters
        ----------
        budget : Budget
            The (ε, δ) of the release.

        Returns
        -------
        Budget
            ``budget`` itself.

        Raises
        ------
        ParameterError
            Not a Budget, an infinite ε, or δ = 0.

        Examples
        --------
        >>> get_mechanism("noisy_gd").check_budget(Budget(1.0, 1e-5))
        Budget(epsilon=1.0, delta=1e-05)
        >>> get_mechanism("noisy_gd").check_budget(Budget(1.0))
        Traceback (most recent call last):
        ...
        dpconvex.errors.ParameterError: NoisyGD.check_budget: noisy gradient descent is ...
        """
        # a Budget's ε > 0 and δ < 1 were checked when it was made: a finite ε and δ > 0 here
        if not (isinstance(budget, Budget) and budget.private and budget.delta > 0):
            raise ParameterError(
                f"{type(self).__name__}.check_budget: noisy gradient descent is (epsilon, "
                "delta)-DP: it "
                "needs a finite epsilon > 0 and 0 < delta < 1. "
                f"Got {describe_value(budget)} instead."
            )
        return budget

    def conditions(self, template: PerExampleGradientsTemplate, budget: Budget) -> list[Condition]:
        """None before the run: the gradients are clipped by dpconvex, so no declared constant
        of the template is relied on (the certificate states the clipping).

        Parameters
        ----------
        template : PerExampleGradientsTemplate
            The problem (not read).
        budget : Budget
            The (ε, δ) of the release (not read).

        Returns
        -------
        list of Condition
            The empty list.

        Examples
        --------
        >>> from dpconvex.templates.statistics import EmpiricalRiskTemplate
        >>> # np, X (40 rows of norm 1), y (labels ±1): the doctest namespace, conftest.py
        >>> template = EmpiricalRiskTemplate(Logistic(), 1.0, X, y)
        >>> mech, budget = get_mechanism("noisy_gd", steps=20, accounting="rdp"), Budget(1.0, 1e-5)
        >>> mech.conditions(template, budget)
        []
        """
        return []

    def calibrate(self, template: PerExampleGradientsTemplate, budget: Budget) -> Calibration:
        """The settings of the run (steps T, clip C, learning rate, radius R, noise multiplier
        z) from public parameters only (:func:`default_settings`), and the law of the noise on
        the released average: the T steps' draws N(0, s² I_p), s = z · 2C/n, weighted by the
        share of averaged iterates after each step.

        Parameters
        ----------
        template : PerExampleGradientsTemplate
            The problem (its loss, n, p and data_norm; no rows are read).
        budget : Budget
            The (ε, δ) of the release.

        Returns
        -------
        Calibration
            Sensitivity 2C/n; ``extra`` holds the settings and the rules that set them.

        Raises
        ------
        ParameterError
            ``template`` is a public problem's constants (a ``PrivacyConstants``), or ``steps``
            above :func:`max_steps` for n and p.
        PrivacyError
            ``delta_rule`` set and δ is not 1/n².

        Examples
        --------
        >>> from dpconvex.templates.statistics import EmpiricalRiskTemplate
        >>> # np, X (40 rows of norm 1), y (labels ±1): the doctest namespace, conftest.py
        >>> template = EmpiricalRiskTemplate(Logistic(), 1.0, X, y)
        >>> mech, budget = get_mechanism("noisy_gd", steps=20, accounting="rdp"), Budget(1.0, 1e-5)
        >>> cal = mech.calibrate(template, budget)
        >>> cal.extra["steps"], cal.sensitivity == 2 * cal.extra["clip"] / template.n
        (20, True)

        References
        ----------
        .. [1] R. Bassily, A. Smith and A. Thakurta, "Private empirical risk minimization:
           efficient algorithms and tight error bounds", FOCS 2014, Algorithm 1.
        .. [2] M. Abadi et al., "Deep learning with differential privacy", CCS 2016.
        """
        if isinstance(template, PrivacyConstants):
            raise ParameterError(
                f"{type(self).__name__}.calibrate: noisy gradient descent calibrates on a "
                "template (its loss, its rows' bound and p), not on a public problem's "
                "constants: pass a template (an estimator's public_template(plan) is one).")
        # n, p and q̃ read once, as built-in numbers: the certificate and the run read the
        # calibration (its n, noise_shape and extra), and the release compares its n with the
        # one it read (release.py)
        owner = f"{type(self).__name__}.calibrate"
        n, p = public_count(template.n, owner), public_count(template.p, owner)
        if self.steps is not None and self.steps > max_steps(n, p):
            raise ParameterError(
                f"{type(self).__name__}.calibrate: steps = {self.steps:,} is above the "
                f"cap {max_steps(n, p):,} for n = {n:,} records and p = {p} parameters "
                "(a bound on running time, "
                "docs/privacy/tuning_gd_ledger.md#privacy-noisy-gd). Lower steps."
            )
        if self.delta_rule and budget.delta != default_delta(n):
            raise PrivacyError(f"{type(self).__name__}.calibrate: delta = {budget.delta:g} is not "
                               f"the public rule 1/n^2 = {default_delta(n):g} for n = {n}. Use "
                               "delta=1/n**2, or delta_rule=False.")
        q, loss = public_number(template.data_norm, owner, "data_norm"), template.loss
        st = default_settings(loss, n, p, q, budget, steps=self.steps,
                              radius=self.radius, clip=self.clip,
                              learning_rate=self.learning_rate, accounting=self.accounting)
        # the noise on the released average: the weighted sum of the T steps' N(0, s² I_p)
        # draws, w_t the share of averaged iterates after step t, of scale s ‖w‖₂/‖w‖₁
        # (docs/privacy/tuning_gd_ledger.md#privacy-noise-warning-linear)
        first = int(self._averaged(st.steps)[0])
        w = (st.steps - np.maximum(np.arange(st.steps), first)) / float(st.steps - first)
        share = float(np.linalg.norm(w)) / float(np.sum(w))
        return Calibration(
            mechanism=self.name, epsilon_requested=budget.epsilon, epsilon=st.epsilon,
            sensitivity=2.0 * st.clip / n, noise_rate=math.nan, delta=budget.delta,
            extra={"noise multiplier": st.noise_multiplier, "noise std": st.noise_std,
                   "learning rate": st.learning_rate, "steps": st.steps, "radius": st.radius,
                   "clip": st.clip, "rules": st.rules, "data_norm": q, "loss": loss.name,
                   "stated Lipschitz bound": loss.deriv_bound * q,
                   _COMPILED_FROM: _compiled_from(loss)},
            noise=Gaussian(st.noise_std * share), noise_shape=(p,), n=n,
        )

    placement = "gradient"

    def _averaged(self, T: int) -> tuple[int, str]:
        """Index of the first averaged iterate and a description."""
        if self.average == "all":
            return 0, "the average of all T iterates"
        first = T - (T + 1) // 2
        return first, f"the average of the last {T - first} of the T iterates (t > T/2)"

    def certificate(
        self,
        template: PerExampleGradientsTemplate,
        budget: Budget,
        cal: Calibration | None,
        conditions: list[Condition],
    ) -> Certificate:
        """The certificate of the T adaptively composed Gaussian steps: the clipping, the
        replace-one sensitivity 2C/n (a user's loss: the class whose CVXPY form, compiled by
        dpconvex, read the rows), the accountant's ε at δ (and, for an accountant other
        than GDP, the exact Gaussian-DP curve as a second opinion), and the settings' rules.

        Parameters
        ----------
        template : PerExampleGradientsTemplate
            The problem.
        budget : Budget
            The (ε, δ) of the release.
        cal : Calibration
            This mechanism's calibration (:meth:`calibrate`).
        conditions : list of Condition
            The conditions of the release (:meth:`conditions`: none; those on the user's parts
            of the release, where one is), stated first.

        Returns
        -------
        Certificate

        Examples
        --------
        >>> from dpconvex.templates.statistics import EmpiricalRiskTemplate
        >>> # np, X (40 rows of norm 1), y (labels ±1): the doctest namespace, conftest.py
        >>> template = EmpiricalRiskTemplate(Logistic(), 1.0, X, y)
        >>> mech, budget = get_mechanism("noisy_gd", steps=20, accounting="rdp"), Budget(1.0, 1e-5)
        >>> cert = mech.certificate(template, budget, mech.calibrate(template, budget), [])
        >>> cert.epsilon <= 1.0, [c.name for c in cert.conditions][:2]
        (True, ['per-example clipping', 'replace-one sensitivity'])
        """
        assert cal is not None
        x = cal.extra
        # the public facts the calibration read, once (never the template's anew)
        loss, n, (p,) = x["loss"], cal.n, cal.noise_shape
        T, C, R = x["steps"], x["clip"], x["radius"]
        z, s, eta = x["noise multiplier"], x["noise std"], x["learning rate"]
        epsilon, delta, eps_achieved, sensitivity = (budget.epsilon, budget.delta, cal.epsilon,
                                                     cal.sensitivity)
        lipschitz = x["stated Lipschitz bound"]
        name = accountant_name(self.accounting)
        exact = gdp_epsilon(z, T, delta)
        clip_note = ("never active (clip >= Lipschitz bound): the run minimizes the empirical "
                     "risk" if C >= lipschitz else
                     "may be active (clip < Lipschitz bound): the run minimizes the convex "
                     "surrogate with psi_i' = l' clipped to [-C/||x_i||, C/||x_i||] (both "
                     "signs); privacy is unaffected")
        # the release's conditions (a user's part's among them), then the run's; the exact
        # curve is a second opinion on an accountant
        conds = [
            *conditions,
            Condition(
                "per-example clipping",
                True,
                "enforced by dpconvex",
                f"every per-example gradient scaled to norm <= C = {C:g}; {clip_note}",
            ),
            Condition(
                "replace-one sensitivity",
                True,
                "computed from public parameters",
                f"||mean clipped gradient(D) - (D')|| <= 2C/n = {sensitivity:.6g}",
            ),
            *_compiled_form_condition(x[_COMPILED_FROM]),
            Condition(
                "noise calibration",
                True,
                f"accountant: {name}",
                f"{T} adaptively composed Gaussian mechanisms with noise multiplier z = {z:.6g} "
                f"give epsilon = {eps_achieved:.6g} <= {epsilon:g} at delta = {delta:g}",
            ),
        ] + (
            []
            if self.accounting == "gdp"
            else [
                Condition(
                    "second opinion",
                    eps_achieved >= exact * (1 - 1e-6) - 1e-12,
                    "exact Gaussian-DP curve (Dong, Roth & Su 2022)",
                    f"exact epsilon of the composition {exact:.6g} <= accountant's "
                    f"{eps_achieved:.6g}",
                )
            ]
        )
        averaged = self._averaged(T)[1]
        assumptions: list[str | NoisyGDRule] = [
            "replace-one adjacency; n is public",
            "rows are clipped to the public data_norm; labels are mapped to +-1 by a public rule "
            "(the two "
            "label values are released in classes_); preprocessing that reads the data is not "
            "covered",
            f"the guarantee covers all T iterates; the released model, {averaged}, is "
            "post-processing",
            "idealized real-valued Gaussian noise (floating point: docs/privacy.md)",
        ]
        if self.delta_rule:  # DELTA_RULE, with its fields
            assumptions.append(NoisyGDRule("delta", delta, n=n))
        assumptions.extend(x["rules"])
        return Certificate(
            mechanism=(f"noisy projected gradient descent ({loss} loss, Gaussian "
                       f"mechanism x {T} steps, {self.accounting.upper()} accountant)"),
            loss=loss,
            epsilon_requested=epsilon,
            epsilon=eps_achieved,
            delta=delta,
            private=True,
            conditions=conds,
            quantities={
                "n": n,
                "dimension p": p,
                "steps T": T,
                "clip C": C,
                "sensitivity 2C/n": sensitivity,
                "noise multiplier z": z,
                "noise std s = z * 2C/n": s,
                "accountant": name,
                "exact epsilon (Gaussian DP)": exact,
                "learning rate": eta,
                "radius R": R,
                "stated Lipschitz bound |l'|max q~": lipschitz,  # sets C, T, eta only
                "averaging": averaged,
            },
            assumptions=assumptions,
        )

    def run(self, template: PerExampleGradientsTemplate, cal: Calibration | None, backend: Backend,
            rng: np.random.Generator, **_: Any) -> tuple[np.ndarray, None, bool]:
        """T steps of projected gradient descent on the clipped per-example gradients, each
        step's mean gradient noised (then snapped), projected onto the ball of radius R; the
        average of the iterates of :attr:`average` is released.

        Parameters
        ----------
        template : PerExampleGradientsTemplate
            The problem (its rows are read here).
        cal : Calibration
            This mechanism's calibration (:meth:`calibrate`).
        backend : Backend
            Not used: the descent is its own solver.
        rng : numpy.random.Generator
            The noise source.
        **_
            The solver options of :meth:`Mechanism.run` (not used).

        Returns
        -------
        tuple
            (θ, None: no solve, False: no noise added to an output).

        Examples
        --------
        >>> from dpconvex.templates.statistics import EmpiricalRiskTemplate
        >>> # np, X (40 rows of norm 1), y (labels ±1): the doctest namespace, conftest.py
        >>> template = EmpiricalRiskTemplate(Logistic(), 1.0, X, y)
        >>> mech, budget = get_mechanism("noisy_gd", steps=20, accounting="rdp"), Budget(1.0, 1e-5)
        >>> cal = mech.calibrate(template, budget)
        >>> theta, solve, noised = mech.run(template, cal, None, np.random.default_rng(0))
        >>> theta.shape, solve, noised
        ((3,), None, False)
        """
        assert cal is not None
        _check_rows(template.X, f"{type(self).__name__}.run")
        # the rows are read by a shipped loss as built, or by the NumPy form dpconvex compiled
        # from a user's CVXPY form (elementwise: record i's gradient reads its margin only);
        # never by a method of the user's object, which could read every margin or keep them.
        # An estimator's template holds the form its plan compiled, run as it is; a template
        # built with the user's object (release(template, "noisy_gd")) has it compiled here
        loss = template.loss
        if not (shipped_as_built(loss) or is_compiled(loss)):
            loss = solved_loss(loss)
        if not (shipped_as_built(loss) or is_compiled(loss)):
            raise PrivacyError(
                f"{type(self).__name__}.run: loss '{getattr(loss, 'name', type(loss).__name__)}'"
                f" of class {type(loss).__qualname__} has no CVXPY form that Loss.from_cvxpy "
                "compiles: noisy gradient descent reads the rows only through a loss dpconvex "
                "ships or the NumPy form it compiles from a user's CVXPY form (the sensitivity "
                "2C/n holds for per-record gradients only). State the loss with "
                "Loss.from_cvxpy(fn, deriv_bound=...), or use a loss dpconvex ships.")
        # n and p as the calibration read them (the mean gradient's sensitivity 2C/n is its n's)
        Xc, n, (p,) = template.X, cal.n, cal.noise_shape
        x = cal.extra
        s, eta, C, R, T = (x["noise std"], x["learning rate"], x["clip"], x["radius"], x["steps"])
        first = self._averaged(T)[0]
        if hasattr(Xc, "chunk_sum"):
            # rows on Dask workers (DaskRows, labels folded in): one distributed pass per step
            # (DaskRows.chunk_sum of _clipped_gradient_block); the rest of the loop on the driver
            chunks = Xc.compact()

            def gradient_sum(theta: np.ndarray) -> np.ndarray:
                return chunks.chunk_sum(_clipped_gradient_block, theta, loss.deriv, C)
        else:
            rows = _signed_rows(Xc, template.y)

            def clipped(m: np.ndarray, idx: slice, norms: np.ndarray) -> np.ndarray:
                """l'(m_i) min(1, C/||g_i||) for the block's rows: the clipped gradients' weights.

                The per-example gradient is l'(r_i theta) r_i, of norm |l'(r_i theta)| ||r_i||,
                ``norms`` the ||r_i|| of the signed rows r_i = y_i x_i as this block reads them.
                """
                d1 = loss.deriv(m)
                return d1 * np.minimum(1.0, C / np.maximum(np.abs(d1) * norms, 1e-300))

            def gradient_sum(theta: np.ndarray) -> np.ndarray:
                # one pass: R theta, then R^T v, each block's norms read with its products
                return rows.matvec_rmatvec(theta, clipped, with_norms=True)[1]

        theta = np.zeros(p)
        total = np.zeros(p)
        step_noise = Gaussian(s)
        for t in range(T):
            # the released quantity of each step: the noisy gradient, snapped (Noise.add)
            theta = theta - eta * step_noise.add(gradient_sum(theta) / n, rng)
            nrm = float(np.linalg.norm(theta))
            if nrm > R:
                theta *= R / nrm
            if t >= first:
                total += theta
        return total / (T - first), None, False


def _check_rows(X: Any, caller: str) -> None:
    """Refuse rows :meth:`NoisyGD.run` cannot read: anything but a NumPy array or a row operator
    (dpconvex's ``DenseRows``, ``CSRRows``, ``ScaledRows``, ``DaskRows``; one of the user's is
    read only where the release declared it and the caller vouched for it:
    :func:`~dpconvex.privacy.user_parts.user_parts`)."""
    if isinstance(X, np.ndarray) or (hasattr(X, "chunk_sum") and hasattr(X, "compact")) or (
            hasattr(X, "matvec_rmatvec") and hasattr(X, "scale_rows")):
        return
    raise ParameterError(
        f"{caller}: the template's X is a {type(X).__qualname__}, which noisy gradient descent "
        "does not read: pass the rows as a NumPy array, or as a row operator of "
        "dpconvex.data.operators (CSRRows(X) for a SciPy sparse matrix).")


def _signed_rows(X: Any, y: np.ndarray) -> Any:
    """The rows r_i = y_i x_i as an operator over the stored rows (no copy of them).

    ``X`` is an array (the labels ``y`` in {-1, +1} become a per-row factor of
    :class:`~dpconvex.data.operators.ScaledRows`) or a design operator with the
    labels already folded into its row factors (``y`` all ones).
    """
    from ...data.operators import DenseRows, ScaledRows

    y = np.asarray(y, dtype=float)
    if isinstance(X, np.ndarray):
        return ScaledRows(DenseRows(X), y)
    if np.all(y == 1.0):
        return X
    return X.scale_rows(y)


def _clipped_gradient_block(B: Any, scale: np.ndarray | None, signs: bool, theta: np.ndarray,
                            deriv: Any, clip: float) -> np.ndarray:
    """Σ_i min(1, C/||g_i||) g_i, g_i = ℓ'(r_iᵀθ) r_i, over one chunk's rows r_i = s_i x_i.

    Runs on a Dask worker; ``B`` is a dense or CSR chunk and ``scale`` its (c, 1)
    row factors (the ±1 labels, 0 for records outside the label set) or None.
    """
    from ...data.operators import CSRRows, DenseRows

    if scale is not None and not signs:  # general factors: form the scaled rows
        B = (CSRRows(B) if sp.issparse(B) else DenseRows(B)).scale_rows(scale[:, 0]).matrix
        scale = None
    op = CSRRows(B) if sp.issparse(B) else DenseRows(B)
    m, norms = op.matvec(theta), op.row_norms()
    f = np.ones(B.shape[0]) if scale is None else scale[:, 0]  # in {-1, 0, 1}: exact
    d1 = deriv(m * f)
    v = d1 * np.minimum(1.0, clip / np.maximum(np.abs(d1) * (norms * np.abs(f)), 1e-300))
    return np.asarray(B.T @ (v * f))[None, :]
