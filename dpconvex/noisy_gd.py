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
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import dp_accounting
import numpy as np
from dp_accounting import pld, rdp
from scipy.optimize import brentq
from scipy.special import log_ndtr, ndtr
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
from .accountant import charge, check_budget
from .certificate import Certificate, Condition
from .errors import ParameterError, PrivacyError
from .estimators import LinearDecisionMixin, check_binary_labels
from .losses import LOSSES, Loss, get_loss
from .noise import snap

__all__ = [
    "ACCOUNTING",
    "NoisyGradientDescent",
    "calibrate_noise_multiplier",
    "default_learning_rate",
    "gaussian_composition_epsilon",
    "gdp_epsilon",
]

#: Accountants of ``dp_accounting`` that may calibrate the noise.
ACCOUNTING = ("rdp", "pld")

#: Relative precision of the bisection on the noise multiplier (the returned
#: multiplier is feasible; it is at most this much above the smallest one).
CALIBRATION_RTOL = 1e-6

#: Rényi orders of the RDP accountant: dp_accounting's default grid (1.1 ... 1024)
#: extended below to 1.01 and above to 1e6, because small ε at small δ needs
#: large orders (ε >= log(1/δ)/(α - 1)); with the default grid ε = 0.01 at
#: δ = 1/n² is out of reach for any noise.
RDP_ORDERS: tuple[float, ...] = tuple(sorted(
    {1.0 + x / 100.0 for x in range(1, 10)}
    | {1.0 + x / 10.0 for x in range(1, 100)}
    | {float(a) for a in range(11, 64)}
    | {float(round(a, 3)) for a in np.logspace(np.log10(64.0), 6.0, 61)}
))

#: PLD discretization (dp_accounting's default); the PLD accountant is
#: pessimistic, so its ε is an upper bound.
PLD_DISCRETIZATION = 1e-4


def _dp_accounting_version() -> str:
    try:
        return version("dp-accounting")
    except PackageNotFoundError:  # pragma: no cover
        return "unknown"


def _make_accountant(accounting: str) -> dp_accounting.PrivacyAccountant:
    add_remove = dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE
    if accounting == "rdp":
        return rdp.RdpAccountant(orders=list(RDP_ORDERS), neighboring_relation=add_remove)
    return pld.PLDAccountant(neighboring_relation=add_remove,
                             value_discretization_interval=PLD_DISCRETIZATION)


def _accountant_name(accounting: str) -> str:
    cls = "rdp.RdpAccountant" if accounting == "rdp" else "pld.PLDAccountant"
    return f"dp_accounting.{cls} (dp-accounting {_dp_accounting_version()})"


def gaussian_composition_epsilon(noise_multiplier: float, steps: int, delta: float,
                                 accounting: str = "rdp") -> float:
    """ε at δ of ``steps`` Gaussian mechanisms with noise multiplier z, by ``dp_accounting``.

    z is the ratio of the noise standard deviation to the L2 distance between
    the outputs on neighbouring data sets (see the module note).

    Parameters
    ----------
    noise_multiplier : float
        z > 0.
    steps : int
        T >= 1 (adaptive composition).
    delta : float
        In (0, 1).
    accounting : {"rdp", "pld"}

    Returns
    -------
    float
        The accountant's ε (an upper bound on the true one).
    """
    check_option("accounting", accounting, ACCOUNTING, "gaussian_composition_epsilon")
    acc = _make_accountant(accounting)
    acc.compose(dp_accounting.SelfComposedDpEvent(
        dp_accounting.GaussianDpEvent(float(noise_multiplier)), int(steps)))
    return float(acc.get_epsilon(float(delta)))


def gdp_epsilon(noise_multiplier: float, steps: int, delta: float) -> float:
    """Exact ε at δ of T Gaussian mechanisms with noise multiplier z (second opinion).

    The adaptive composition of T Gaussian mechanisms of ratio z is exactly
    μ-GDP with μ = sqrt(T)/z ([DRS22]_, Cor. 3.3), whose (ε, δ) curve is
    δ(ε) = Φ(-ε/μ + μ/2) - e^ε Φ(-ε/μ - μ/2) (the analytic Gaussian mechanism
    of Balle & Wang, ICML 2018, Thm. 8). Solved for ε by bracketing. Used to
    check the accountant: a sound accountant never reports less than this.
    """
    mu = math.sqrt(int(steps)) / float(noise_multiplier)

    def delta_of(eps: float) -> float:
        a = -eps / mu + mu / 2.0
        b = -eps / mu - mu / 2.0
        return float(ndtr(a) - math.exp(eps + log_ndtr(b)))

    if delta_of(0.0) <= delta:
        return 0.0
    hi = 1.0
    while delta_of(hi) > delta:
        hi *= 2.0
    return float(brentq(lambda e: delta_of(e) - delta, 0.0, hi, xtol=1e-12, rtol=1e-12))


def calibrate_noise_multiplier(epsilon: float, delta: float, steps: int,
                               accounting: str = "rdp", rtol: float = CALIBRATION_RTOL
                               ) -> tuple[float, float]:
    """Smallest noise multiplier z (to ``rtol``) such that T Gaussian steps are (ε, δ)-DP.

    Bisection on z with the ``dp_accounting`` accountant as the oracle,
    keeping the upper end feasible: the returned z always satisfies
    ``gaussian_composition_epsilon(z, steps, delta, accounting) <= epsilon``.
    The PLD search starts from the RDP solution (cheap, and PLD is tighter).
    The result is checked against the exact Gaussian-DP curve
    (:func:`gdp_epsilon`); an accountant reporting less than the exact ε
    raises instead of releasing.

    Parameters
    ----------
    epsilon : float
        Target ε > 0.
    delta : float
        Target δ in (0, 1).
    steps : int
        T >= 1.
    accounting : {"rdp", "pld"}
    rtol : float
        Relative width of the final bracket.

    Returns
    -------
    z : float
        Noise multiplier.
    epsilon_achieved : float
        The accountant's ε at z (<= ``epsilon``).

    Raises
    ------
    PrivacyError
        If no multiplier up to 2^60 reaches the target, or the accountant
        disagrees with the exact curve.
    """
    owner = "calibrate_noise_multiplier"
    epsilon = check_float("epsilon", epsilon, owner)
    delta = check_float("delta", delta, owner, high=1.0)
    steps = check_int("steps", steps, owner)
    check_option("accounting", accounting, ACCOUNTING, owner)

    def eps_of(z: float) -> float:
        return gaussian_composition_epsilon(z, steps, delta, accounting)

    hi = 1.0
    if accounting == "pld":
        hi = calibrate_noise_multiplier(epsilon, delta, steps, "rdp", rtol=1e-3)[0]
    e_hi = eps_of(hi)
    while e_hi > epsilon:
        hi *= 2.0
        if hi > 2.0**60:
            raise PrivacyError(
                f"noise calibration: no noise multiplier reaches epsilon={epsilon:g} at "
                f"delta={delta:g} with {steps} steps. Raise epsilon or delta, or use fewer steps."
            )
        e_hi = eps_of(hi)
    lo = hi / 2.0
    while eps_of(lo) <= epsilon:
        hi, lo = lo, lo / 2.0
        if lo < 1e-12:  # pragma: no cover - needs an absurd epsilon
            break
    e_hi = eps_of(hi)
    while hi - lo > rtol * hi:
        mid = 0.5 * (lo + hi)
        e_mid = eps_of(mid)
        if e_mid <= epsilon:
            hi, e_hi = mid, e_mid
        else:
            lo = mid
    exact = gdp_epsilon(hi, steps, delta)
    if e_hi < exact * (1.0 - 1e-6) - 1e-12:
        raise PrivacyError(
            f"noise calibration: the {accounting.upper()} accountant reports epsilon={e_hi:.6g} "
            f"at noise multiplier {hi:.6g}, below the exact Gaussian-DP value {exact:.6g}; the "
            "accountant is not trusted here. Try accounting='pld' or 'rdp'."
        )
    return hi, e_hi


def default_learning_rate(loss: Loss, q: float, radius: float, steps: int, p: int, clip: float,
                          noise_std: float) -> float:
    """Step size from public quantities: min(1/L, R / (s sqrt(T p))), L = c q².

    With per-example clipping, the clipped mean gradient is the exact gradient
    of the convex surrogate (1/n) Σ ψ_i(y_i θᵀx_i), ψ_i' = max(ℓ', -C/||x_i||)
    (for losses with ℓ' <= 0, as all margin losses here), whose smoothness is
    at most L = c q² (c the loss's curvature bound, q the row-norm bound with
    the intercept). Averaged projected SGD with step η <= 1/L and gradient
    noise of variance p s² has error at most R²/(2ηT) + η p s²/2; the
    minimizing step is R / (s sqrt(T p)), capped at 1/L. Without a finite
    curvature bound: R / (sqrt(T) sqrt(C² + p s²)) (the non-smooth rate).
    """
    c = float(loss.curvature)
    if math.isfinite(c) and c > 0:
        L = c * q * q
        if noise_std <= 0:
            return 1.0 / L
        return min(1.0 / L, radius / (noise_std * math.sqrt(steps * p)))
    return radius / (math.sqrt(steps) * math.sqrt(clip * clip + p * noise_std * noise_std))


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

    def fit(self, X: Any, y: Any) -> NoisyGradientDescent:
        """Run noisy projected gradient descent.

        Raises
        ------
        ParameterError, DataValidationError, PrivacyError, BudgetError
        """
        owner = type(self).__name__
        epsilon = check_float("epsilon", self.epsilon, owner)
        delta = check_float("delta", self.delta, owner, high=1.0)
        T = check_int("steps", self.steps, owner)
        R = check_float("radius", self.radius, owner)
        C = check_float("clip", self.clip, owner)
        q = check_float("data_norm", self.data_norm, owner)
        lr = None if self.learning_rate is None else check_float(
            "learning_rate", self.learning_rate, owner)
        fit_intercept = check_bool("fit_intercept", self.fit_intercept, owner)
        accounting = check_option("accounting", self.accounting, ACCOUNTING, owner)
        loss = self._make_loss()
        rng = check_random_state(self.random_state)
        check_budget(self.accountant, epsilon, delta, owner)

        Xv = check_array(X, owner, min_samples=2)
        yv = check_labels(y, Xv.shape[0], owner)
        classes, ys = check_binary_labels(yv, owner)
        Xc, _ = clip_rows(Xv, q)
        if fit_intercept:
            Xc = np.hstack([Xc, np.ones((Xc.shape[0], 1))])
        n, p = Xc.shape
        q_aug = math.sqrt(q * q + 1.0) if fit_intercept else q
        lipschitz = loss.deriv_bound * q_aug

        # --- calibration: public constants only (n, p, T, C, epsilon, delta) ---
        sensitivity = 2.0 * C / n
        z, eps_achieved = calibrate_noise_multiplier(epsilon, delta, T, accounting)
        s = z * sensitivity
        eta = lr if lr is not None else default_learning_rate(loss, q_aug, R, T, p, C, s)

        # --- T noisy projected steps ---
        row_norms = np.linalg.norm(Xc, axis=1)
        yX = Xc * ys[:, None]
        theta = np.zeros(p)
        total = np.zeros(p)
        for _ in range(T):
            d1 = loss.deriv(yX @ theta)  # per-example gradient = d1_i * y_i x_i
            gnorm = np.abs(d1) * row_norms
            scale = np.minimum(1.0, C / np.maximum(gnorm, 1e-300))
            grad = yX.T @ (d1 * scale) / n
            # the released quantity of each step, snapped to a public grid (noise.snap)
            theta = theta - eta * snap(grad + rng.normal(0.0, s, size=p), s)
            nrm = float(np.linalg.norm(theta))
            if nrm > R:
                theta *= R / nrm
            total += theta
        theta_bar = total / T

        cert = self._certificate(epsilon, delta, eps_achieved, accounting, n, p, T, C, z, s,
                                 sensitivity, eta, R, lipschitz, loss)
        charge(self.accountant, cert, owner)

        d = Xv.shape[1]
        self.classes_ = classes
        self.n_features_in_ = d
        self.coef_ = theta_bar[:d].reshape(1, d)
        self.intercept_ = np.array([theta_bar[d] if fit_intercept else 0.0])
        self.noise_multiplier_ = z
        self.noise_std_ = s
        self.learning_rate_ = eta
        self.certificate_ = cert
        return self

    @staticmethod
    def _certificate(epsilon: float, delta: float, eps_achieved: float, accounting: str, n: int,
                     p: int, T: int, C: float, z: float, s: float, sensitivity: float,
                     eta: float, R: float, lipschitz: float, loss: Loss) -> Certificate:
        name = _accountant_name(accounting)
        exact = gdp_epsilon(z, T, delta)
        clip_note = ("never active (clip >= Lipschitz bound): the run minimizes the empirical "
                     "risk" if C >= lipschitz else
                     "may be active (clip < Lipschitz bound): the run minimizes the convex "
                     "surrogate with psi_i' = max(l', -C/||x_i||); privacy is unaffected")
        conds = [
            Condition("per-example clipping", True, "enforced by dpconvex",
                      f"every per-example gradient scaled to norm <= C = {C:g}; {clip_note}"),
            Condition("replace-one sensitivity", True, "computed from public parameters",
                      f"||mean clipped gradient(D) - (D')|| <= 2C/n = {sensitivity:.6g}"),
            Condition("noise calibration", True, f"accountant: {name}",
                      f"{T} adaptively composed Gaussian mechanisms with noise multiplier "
                      f"z = {z:.6g} give epsilon = {eps_achieved:.6g} <= {epsilon:g} at "
                      f"delta = {delta:g}"),
            Condition("second opinion", eps_achieved >= exact * (1 - 1e-6) - 1e-12,
                      "exact Gaussian-DP curve (Dong, Roth & Su 2022)",
                      f"exact epsilon of the composition {exact:.6g} <= accountant's "
                      f"{eps_achieved:.6g}"),
        ]
        return Certificate(
            mechanism=(f"noisy projected gradient descent ({loss.name} loss, Gaussian "
                       f"mechanism x {T} steps, {accounting.upper()} accountant)"),
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
                "Lipschitz bound |l'| sqrt(q^2 + 1)": lipschitz,
            },
            assumptions=[
                "replace-one adjacency; n is public",
                "rows are clipped to the public data_norm; labels are mapped to +-1 by a "
                "public rule (the two label values are released in classes_)",
                "the guarantee covers all T iterates; the released average is post-processing",
                "idealized real-valued Gaussian noise (floating point: docs/privacy.md)",
            ],
        )

