"""Noisy projected gradient descent with per-example clipping and a maintained accountant.

Full-batch projected gradient descent on the empirical risk (1/n) Σ ℓ(y_i θᵀx_i)
over the ball ||θ|| <= R, where each step releases the mean of the per-example
gradients, clipped to norm C, plus Gaussian noise (the Gaussian mechanism;
Dwork & Roth 2014, App. A), and the model is the average of the iterates.

Calibration (derived in ``docs/privacy.md`` §6.3). Under replace-one adjacency
with n public, replacing record i changes the mean of the clipped gradients
g̃_i = g_i · min(1, C/||g_i||) by at most

    Δ = ||g̃_i - g̃'_i|| / n <= 2C / n

in L2, whatever θ is. Each step adds N(0, s² I_p) with s = z · Δ, so one step
is a Gaussian mechanism with noise multiplier z = s / Δ (ratio of the noise
std to the L2 distance between neighbouring outputs). The T steps are an
adaptive composition of T such mechanisms; ``dp_accounting`` composes them
(RDP, Mironov 2017; or PLD, Koskela et al. 2020 / Doroshenko et al. 2022) and
a bisection finds the smallest z whose composed ε at the target δ is at most
ε. Projection and averaging are post-processing.

.. note:: ``dp_accounting.GaussianDpEvent(z)`` is a Gaussian mechanism whose
   neighbouring outputs are at L2 distance <= 1 from each other *under the
   accountant's neighbouring relation*: with ``ADD_OR_REMOVE_ONE`` (used here)
   this is exactly "std / distance = z", so passing z = s / (2C/n) is right
   for replace-one. The PLD accountant with ``REPLACE_ONE`` would instead
   read z as std / C (distance 2), and the RDP accountant ignores the relation
   for Gaussian events; mixing these conventions silently halves or doubles
   the sensitivity.

References
----------
.. [CMS] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially Private
   Empirical Risk Minimization. JMLR 12 (2011) (the ERM setting, §2).
.. [ACG+16] M. Abadi, A. Chu, I. Goodfellow, H. B. McMahan, I. Mironov,
   K. Talwar, L. Zhang. Deep Learning with Differential Privacy. CCS 2016
   (per-example clipping, noise multiplier, moments accountant).
.. [Mir17] I. Mironov. Rényi Differential Privacy. CSF 2017 (RDP of the
   Gaussian mechanism, α/(2z²); composition; conversion to (ε, δ)).
.. [BST14] R. Bassily, A. Smith, A. Thakurta. Private Empirical Risk
   Minimization: Efficient Algorithms and Tight Error Bounds. FOCS 2014
   (noisy projected gradient methods for convex ERM).
.. [DRS22] J. Dong, A. Roth, W. Su. Gaussian Differential Privacy. JRSS B 84
   (2022) (composition of Gaussian mechanisms is exactly Gaussian; used by
   the tests as an independent check).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from ._random import check_random_state
from ._validation import (
    check_array,
    check_bool,
    check_float,
    check_int,
    check_labels,
    check_option,
    clip_rows,
)
from .certificate import Certificate
from .errors import ParameterError, PrivacyError
from .estimators import LinearDecisionMixin, check_binary_labels
from .losses import LOSSES, Loss, get_loss
from .privacy.accounting import reserve_budget
from .privacy.accounting.gaussian import (
    ACCOUNTING,
    calibrate_noise_multiplier,
    default_learning_rate,
    gaussian_composition_epsilon,
    gdp_epsilon,
)
from .privacy.budget import Budget
from .privacy.mechanisms.noisy_gd import NoisyGD
from .privacy.release import release
from .templates.risk import EmpiricalRiskTemplate

__all__ = [
    "ACCOUNTING",
    "NoisyGradientDescent",
    "calibrate_noise_multiplier",
    "default_learning_rate",
    "gaussian_composition_epsilon",
    "gdp_epsilon",
]


class NoisyGradientDescent(LinearDecisionMixin, ClassifierMixin, BaseEstimator):
    """(ε, δ)-DP linear classifier by noisy projected gradient descent ([ACG+16]_, [BST14]_).

    Minimizes the empirical risk (1/n) Σ ℓ(y_i θᵀx̃_i), x̃ = [x; 1] with an
    intercept, over the ball ||θ|| <= R by T steps of

        θ_t = Π_R(θ_{t-1} - η (ĝ_t + N(0, s² I))),   θ_0 = 0,

    where ĝ_t is the mean of the per-example gradients each clipped to norm
    C, and returns the average θ̄ = (1/T) Σ_t θ_t. The noise standard deviation
    is s = z · 2C/n, with the noise multiplier z found by ``dp_accounting``
    (bisection) so that the T-fold composition is (ε, δ)-DP under replace-one
    adjacency (see the module docstring and ``docs/privacy.md`` §6.3). Every
    iterate is private, not only the released average.

    Parameters
    ----------
    loss : {"logistic", "huber", "smooth_hinge"} or Loss, default="logistic"
        Margin loss (convex, |ℓ'| <= 1); "huber" and "smooth_hinge" use h = 0.5.
    epsilon : float
        ε > 0 of the whole run.
    delta : float
        δ in (0, 1) of the whole run; choose δ << 1/n (e.g. 1/n²).
    steps : int
        Number T of gradient steps (public).
    radius : float
        Radius R of the L2 ball the parameters (intercept included) are
        projected onto (public).
    learning_rate : float or None, default=None
        Step η. None chooses it from public quantities only (see
        :func:`default_learning_rate`): for a loss with a curvature bound c,
        η = min(1/L, R / (s sqrt(T p))) with L = c (q² + 1) (q² without
        intercept) the smoothness bound of the (clipped) empirical risk and
        p the number of parameters, which balances the optimization term
        R²/(2ηT) against the noise term η p s²/2 of averaged projected SGD;
        without a curvature bound, R / (sqrt(T) sqrt(C² + p s²)).
    clip : float, default=1.0
        Per-example gradient norm bound C (public). If C is at least the
        Lipschitz bound |ℓ'|_max · sqrt(data_norm² + fit_intercept), clipping
        never acts and the run minimizes the true empirical risk.
    data_norm : float, default=1.0
        Public bound q on ||x||: rows above it are scaled down to it.

        .. warning:: Never set it from the data (e.g. the max row norm).
    fit_intercept : bool, default=True
        Append a constant feature 1 (inside the ball like every coordinate).
    accounting : {"rdp", "pld"}, default="rdp"
        The ``dp_accounting`` accountant that calibrates z: Rényi DP
        ([Mir17]_, as in [ACG+16]_) or privacy-loss distributions (tighter).
    random_state : None, int or numpy.random.Generator, default=None
        None seeds the noise from the OS (required for a real release).
    accountant : BudgetAccountant or None, default=None
        Ledger charged with the (ε, δ) of the fit (checked before it).

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
    intercept_ : ndarray of shape (1,)
    classes_ : ndarray of shape (2,)
        The two labels (any two distinct values); ``classes_[1]`` is +1.
    noise_multiplier_ : float
        z.
    noise_std_ : float
        s = z · 2C / n, per coordinate of the noisy mean gradient.
    learning_rate_ : float
        η used.
    certificate_ : Certificate
        Names the accountant, z, s and the sensitivity.

    References
    ----------
    [ACG+16]_, [Mir17]_, [BST14]_; CMS JMLR 2011 for the ERM setting.
    """

    def __init__(self, *, loss: str | Loss = "logistic", epsilon: float, delta: float,
                 steps: int, radius: float, learning_rate: float | None = None,
                 clip: float = 1.0, data_norm: float = 1.0, fit_intercept: bool = True,
                 accounting: str = "rdp", random_state: Any = None, accountant: Any = None):
        self.loss = loss
        self.epsilon = epsilon
        self.delta = delta
        self.steps = steps
        self.radius = radius
        self.learning_rate = learning_rate
        self.clip = clip
        self.data_norm = data_norm
        self.fit_intercept = fit_intercept
        self.accounting = accounting
        self.random_state = random_state
        self.accountant = accountant

    def __sklearn_tags__(self):  # type: ignore[no-untyped-def]
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.non_deterministic = True  # noise is drawn from the OS unless random_state is set
        return tags

    def _make_loss(self) -> Loss:
        owner = type(self).__name__
        if isinstance(self.loss, Loss):
            loss = self.loss
        elif isinstance(self.loss, str) and self.loss in LOSSES:
            loss = get_loss(self.loss)
        else:
            raise ParameterError(
                f"The 'loss' parameter of {owner} must be one of {sorted(LOSSES)} or a Loss "
                f"instance. Got {self.loss!r} instead."
            )
        if not (math.isfinite(loss.deriv_bound) and loss.deriv_bound > 0):
            raise PrivacyError(f"loss '{loss.name}' declares no finite derivative bound.")
        return loss

    def _mechanism(self) -> tuple[NoisyGD, Budget]:
        """Validate the parameters; the mechanism object and the requested (ε, δ)."""
        owner = type(self).__name__
        epsilon = check_float("epsilon", self.epsilon, owner)
        delta = check_float("delta", self.delta, owner, high=1.0)
        T = check_int("steps", self.steps, owner)
        R = check_float("radius", self.radius, owner)
        C = check_float("clip", self.clip, owner)
        check_float("data_norm", self.data_norm, owner)
        lr = None if self.learning_rate is None else check_float(
            "learning_rate", self.learning_rate, owner)
        check_bool("fit_intercept", self.fit_intercept, owner)
        accounting = check_option("accounting", self.accounting, ACCOUNTING, owner)
        self._make_loss()
        check_random_state(self.random_state)
        mech = NoisyGD(steps=T, radius=R, clip=C, learning_rate=lr, accounting=accounting)
        return mech, Budget(epsilon, delta)

    def _prepare(self, X: Any, y: Any) -> tuple[EmpiricalRiskTemplate, np.ndarray, int]:
        """Validate and clip the rows, append the intercept column, build the template."""
        owner = type(self).__name__
        q = float(self.data_norm)
        Xv = check_array(X, owner, min_samples=2)
        yv = check_labels(y, Xv.shape[0], owner)
        classes, ys = check_binary_labels(yv, owner)
        Xc, _ = clip_rows(Xv, q)
        if self.fit_intercept:
            Xc = np.hstack([Xc, np.ones((Xc.shape[0], 1))])
        q_aug = math.sqrt(q * q + 1.0) if self.fit_intercept else q
        return EmpiricalRiskTemplate(self._make_loss(), q_aug, Xc, ys), classes, Xv.shape[1]

    def certify(self, X: Any, y: Any) -> Certificate:
        """The certificate a fit on (X, y) would carry, without training (no noise drawn).

        :func:`dpconvex.privacy.release.release` with ``dry_run=True``: the noise
        multiplier is calibrated by the accountant, nothing is run or charged.
        """
        mech, budget = self._mechanism()
        template, _, _ = self._prepare(X, y)
        return release(template, mech, budget, dry_run=True).certificate

    def fit(self, X: Any, y: Any) -> NoisyGradientDescent:
        """Run noisy projected gradient descent.

        Raises
        ------
        ParameterError, DataValidationError, PrivacyError, BudgetError
        """
        owner = type(self).__name__
        mech, budget = self._mechanism()
        # the ledger is checked (and the budget held) before the data are read
        with reserve_budget(self.accountant, budget.epsilon, budget.delta, owner) as hold:
            template, classes, d = self._prepare(X, y)
            rel = release(template, mech, budget, None, check_random_state(self.random_state))
            theta_bar, cert, cal = rel.theta, rel.certificate, rel.calibration
            hold.commit_certificate(cert)

        self.classes_ = classes
        self.n_features_in_ = d
        self.coef_ = theta_bar[:d].reshape(1, d)
        self.intercept_ = np.array([theta_bar[d] if self.fit_intercept else 0.0])
        self.noise_multiplier_ = cal.extra["noise multiplier"]
        self.noise_std_ = cal.extra["noise std"]
        self.learning_rate_ = cal.extra["learning rate"]
        self.certificate_ = cert
        return self
