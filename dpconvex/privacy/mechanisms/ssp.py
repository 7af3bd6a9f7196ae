"""Sufficient-statistics perturbation: a private ridge regression from noisy XᵀX and Xᵀy.

Sufficient-statistics perturbation ([Wan18]_) on a
:class:`~dpconvex.templates.statistics.SufficientStatisticsTemplate` (rows ‖x̃‖ <= q̃, labels
|u| <= 1) releases Ã = A + E (E symmetric), b̃ = b + e and, with an intercept, the label sum
S = Σ u (A = Σ x̃x̃ᵀ, b = Σ u x̃), each snapped to the public grid of its noise
scale, and post-processes them into θ = (Π₊(Ã) + λI)⁻¹ b̃ (:func:`ridge_solution`), with λ given
or chosen among public candidates by an estimate of the risk computed from the released
statistics (:func:`select_ridge`). The replace-one sensitivities and the joint bound on the
scaled statistics (docs/privacy/sufficient_statistics.md#privacy-ssp-sensitivities), the
calibrations (privacy-ssp-calibration) and the post-processing (privacy-ssp-release) are
derived there.

``"gaussian_ssp"`` ((ε, δ)-DP): :class:`GaussianSSP`; ``"ssp"`` (pure ε-DP):
:class:`PureSSP`; ``"none_ssp"`` (offered as ``mechanism="none"``): the exact
(minimum-norm) ridge solution, NOT private.

References
----------
.. [Wan18] Y.-X. Wang. Revisiting differentially private linear regression: optimal and
   adaptive prediction & estimation in unbounded domain. UAI 2018 (SSP, AdaSSP: Alg. 2).
.. [BW18] B. Balle, Y.-X. Wang. Improving the Gaussian Mechanism for Differential
   Privacy: Analytical Calibration and Optimal Denoising. ICML 2018, Theorem 8.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple, Protocol

import numpy as np

from ...solvers.registry import Backend
from ...templates.base import Template
from ..accounting.analytic_gaussian import analytic_gaussian_delta, analytic_gaussian_sigma
from ..budget import Budget
from ..certificate import Certificate, Condition
from ..noise import Gaussian, Laplace, Noise, NormGamma, symmetric_dimension
from .base import Calibration, Mechanism, NonPrivateBaseline, register
from .facts import public_count, public_number

__all__ = ["FAILURE_PROBABILITY", "RIDGE_STEPS", "RISK_MARGIN", "TOTAL_SENSITIVITY", "GaussianSSP",
           "NonPrivateSSP", "PureSSP", "RidgeCandidate", "cross_sensitivity", "estimated_risk",
           "gram_sensitivity", "joint_sensitivity", "noise_norm_bound", "ridge_candidates",
           "ridge_solution", "risk_noise", "select_ridge", "statistics_of"]

#: ρ of :func:`noise_norm_bound`: the noise on A has spectral norm above √(p log(2p²/ρ)) s_A
#: with probability at most ρ ([Wan18]_'s analysis of Alg. 2). Public.
FAILURE_PROBABILITY = 0.05

#: The candidates of ``lam="auto"``: λ = max(2^k R, s_A) for these 2^k, R = :func:`noise_norm_bound`
#: (and λ = ∞, θ at the centre). Public.
RIDGE_STEPS: tuple[float, ...] = tuple(2.0**k for k in range(-6, 7))

#: z: a candidate's estimated risk is raised by z times the standard deviation of the noise in
#: its plug-in risk relative to θ₀'s (:func:`select_ridge`), so that a ridge is taken over the
#: private mean only for a gain the noise does not explain. Public; measured on the regression
#: corpus's selection seeds (docs/privacy/sufficient_statistics.md#privacy-ssp-release).
RISK_MARGIN = 0.5

#: Replace-one sensitivity of the label sum S = Σ u with |u| <= 1: 2
#: (docs/privacy/sufficient_statistics.md#privacy-ssp-sensitivities).
TOTAL_SENSITIVITY = 2.0


class SSPTemplate(Template, Protocol):
    """What the mechanisms read of a template (capability ``"sufficient_statistics"``)."""

    gram: np.ndarray  #: A = Σ x̃x̃ᵀ, shape (p, p)
    cross: np.ndarray  #: b = Σ u x̃, shape (p,)
    data_norm: float  #: q̃, the public bound on ‖x̃‖ (|u| <= 1 by the label map)
    ridge: float | None  #: λ given by the caller (None: chosen by select_ridge)
    free: int | None  #: the intercept column (None: no intercept)
    free_value: float | None  #: its public value s in every row
    p: int


def gram_sensitivity(row_bound: float) -> float:
    """Replace-one Frobenius sensitivity of A = Σ x̃x̃ᵀ: √2 q̃²
    (docs/privacy/sufficient_statistics.md#privacy-ssp-sensitivities).

    ‖xxᵀ − x′x′ᵀ‖_F² = ‖x‖⁴ + ‖x′‖⁴ − 2(xᵀx′)² <= 2q̃⁴, with equality for orthogonal rows of norm q̃.

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.ssp import gram_sensitivity
    >>> round(gram_sensitivity(1.0), 6)
    1.414214
    """
    return math.sqrt(2.0) * float(row_bound) ** 2


def cross_sensitivity(row_bound: float) -> float:
    """Replace-one L2 sensitivity of b = Σ u x̃ with |u| <= 1: 2q̃
    (docs/privacy/sufficient_statistics.md#privacy-ssp-sensitivities).

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.ssp import cross_sensitivity
    >>> cross_sensitivity(1.5)
    3.0
    """
    return 2.0 * float(row_bound)


#: c* = (√33 − 1)/16 maximizes √(1 − c²) + √((1 + c)/2) on [0, 1] (8c² + c − 1 = 0).
_C_STAR = (math.sqrt(33.0) - 1.0) / 16.0


def joint_sensitivity(parts: tuple[str, ...], norm: str) -> float:
    """Bound on the joint replace-one change of the statistics scaled by their sensitivities.

    For (A, b): 25/16 on the sum of squares, G₂ = √(1 − c*²) + √((1 + c*)/2) on the sum;
    the label sum adds at most 1 to either (derived in
    docs/privacy/sufficient_statistics.md#privacy-ssp-sensitivities).

    ``parts``: the released statistics among "gram", "cross", "total"; ``norm`` "l2": the bound
    on √(Σ_j (‖Δf_j‖/Δ_j)²) (Gaussian noise), "l1": on Σ_j ‖Δf_j‖/Δ_j (norm-based pure noise).

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.ssp import joint_sensitivity
    >>> joint_sensitivity(("gram", "cross"), "l2"), round(joint_sensitivity(("gram", "cross"), "l1"), 4)
    (1.25, 1.7602)
    >>> round(joint_sensitivity(("gram", "cross", "total"), "l2") ** 2, 4)
    2.5625
    """
    both = "gram" in parts and "cross" in parts
    alone = sum(1 for part in parts if not (both and part in ("gram", "cross")))  # each <= 1
    if norm == "l2":
        return math.sqrt((25.0 / 16.0 if both else 0.0) + alone)
    pair = math.sqrt(1.0 - _C_STAR**2) + math.sqrt((1.0 + _C_STAR) / 2.0) if both else 0.0
    return pair + alone


def statistics_of(template: SSPTemplate, facts: dict[str, Any]) -> dict[str, Any]:
    """The released statistics of ``template`` before noise: A, b and, with an intercept column
    of public value s, the label sum S = b_s/s; ``facts`` are the public facts a calibration
    read (its ``extra``: the released parts, the free column and s).

    Parameters
    ----------
    template : SSPTemplate
        The sufficient statistics of the rows (A = XᵀX, b = Xᵀy).
    facts : dict
        The calibration's ``extra``: ``"parts"`` (the names released), and with ``"total"``
        among them ``"free"`` (the intercept column) and ``"free value"`` (its value s).

    Returns
    -------
    dict of str to ndarray
        Each released part before noise: ``"gram"`` A, ``"cross"`` b, ``"total"`` [S].

    Examples
    --------
    >>> from dpconvex.data.sufficient import Moments
    >>> from dpconvex.privacy.mechanisms.ssp import statistics_of
    >>> from dpconvex.templates.statistics import SufficientStatisticsTemplate
    >>> t = SufficientStatisticsTemplate(Moments(np.diag([2.0, 1.0]), np.ones(2), 0), 3, 2, 1.0)
    >>> sorted(statistics_of(t, {"parts": ("gram", "cross")}))
    ['cross', 'gram']
    """
    b = np.asarray(template.cross, dtype=float)
    out = {"gram": np.asarray(template.gram, dtype=float), "cross": b}
    if "total" in facts["parts"]:
        out["total"] = np.asarray([b[facts["free"]] / facts["free value"]])
    return out


def _sensitivities_at(q: float) -> dict[str, float]:
    """Δ of each statistic for rows of norm at most q̃ = ``q`` (the norms of
    docs/privacy/sufficient_statistics.md#privacy-ssp-sensitivities)."""
    return {"gram": gram_sensitivity(q), "cross": cross_sensitivity(q),
            "total": TOTAL_SENSITIVITY}


def noise_norm_bound(gram_scale: float, p: int, rho: float = FAILURE_PROBABILITY) -> float:
    """R = s_A √(p log(2p²/ρ)): a bound on the spectral norm of the Gaussian noise on A that
    fails with probability at most ρ ([Wan18]_, the ridge of Alg. 2 at λ_min = 0); public. For
    the pure form's norm-Gamma noise of the same per-coordinate scale it is a scale (exceeded
    in 5.2 %, 2.2 % and 0.6 % of draws at p = 2, 3, 4).

    ``gram_scale`` s_A is the public per-coordinate scale of the noise on A (Gaussian: σ_A).

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.ssp import noise_norm_bound
    >>> round(noise_norm_bound(1.0, 2), 4)
    3.186
    """
    return float(gram_scale) * math.sqrt(p * math.log(2.0 * p * p / float(rho)))


def estimated_risk(theta: np.ndarray, gram: np.ndarray, cross: np.ndarray, inverse: np.ndarray,
                   var_gram: float, follow: float) -> float:
    """Σ(θᵀx̃ − u)² − Σu², estimated from released statistics: θᵀMθ − 2θᵀb̃ + 2·``follow`` +
    v_A(θᵀHθ + tr(H)‖θ‖²).

    The plug-in θᵀMθ − 2θᵀb̃ is optimistic because θ follows the noise; the other terms are its
    bias to second order in the noise: ``follow`` = E[θᵀe] for the noise e on b̃ (v_b tr(H) for
    θ = Hb̃, v_b the variance per coordinate; :func:`select_ridge` gives it with a centre), and
    v_A(θᵀHθ + tr(H)‖θ‖²) for the noise on Ã (v_A per coordinate of the orthonormal basis of
    symmetric matrices: E[EHE] = (v_A/2)(H + tr(H) I)), H = (M + λI)⁻¹ = ``inverse``
    (docs/privacy/sufficient_statistics.md#privacy-ssp-release). Post-processing.

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.ssp import estimated_risk
    >>> theta, A, b = np.array([1.0]), np.array([[2.0]]), np.array([2.0])
    >>> H = np.array([[0.5]])
    >>> estimated_risk(theta, A, b, H, 0.0, 0.0), estimated_risk(theta, A, b, H, 1.0, 0.5)
    (-2.0, 0.0)
    """
    return _risk(theta, gram, cross, float(theta @ inverse @ theta), float(np.trace(inverse)),
                 var_gram, follow)


def _risk(theta: np.ndarray, gram: np.ndarray, cross: np.ndarray, curvature: float,
          trace: float, var_gram: float, follow: float) -> float:
    """:func:`estimated_risk` given θᵀHθ = ``curvature`` and tr(H) = ``trace``."""
    plug_in = float(theta @ gram @ theta - 2.0 * theta @ cross)
    return plug_in + 2.0 * float(follow) + var_gram * (curvature + trace * float(theta @ theta))


def risk_noise(step: np.ndarray, start: np.ndarray, var_gram: float, var_cross: float) -> float:
    """The standard deviation of the noise in the plug-in risk of θ = θ₀ + Δ relative to θ₀'s,
    at a fixed Δ = ``step``: √(4v_b‖Δ‖² + (v_A/2)(‖Δ‖²‖w‖² + (Δᵀw)²)), w = Δ + 2θ₀.

    The plug-in difference moves with the noise by ΔᵀEw − 2Δᵀe. For symmetric noise E with
    variance v_A on the diagonal and v_A/2 off it (isotropic in the orthonormal basis),
    Var(uᵀEv) = (v_A/2)(‖u‖²‖v‖² + (uᵀv)²); Var(2Δᵀe) <= 4v_b‖Δ‖²
    (docs/privacy/sufficient_statistics.md#privacy-ssp-release). Post-processing.

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.ssp import risk_noise
    >>> risk_noise(np.array([1.0, 0.0]), np.zeros(2), 1.0, 1.0) ** 2
    5.0
    """
    w = step + 2.0 * start
    s2, sw = float(step @ step), float(step @ w)
    return math.sqrt(4.0 * var_cross * s2 + 0.5 * var_gram * (s2 * float(w @ w) + sw * sw))


def _centred_system(gram: np.ndarray, free: int | None, free_diagonal: float | None,
                    centre: float, psd: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """M = Π₊(Ã) (with A's public intercept entry a when given) and the centre θ₀."""
    matrix, start, _ = _decomposed_system(gram, free, free_diagonal, centre, psd)
    return matrix, start


def _decomposed_system(gram: np.ndarray, free: int | None, free_diagonal: float | None,
                       centre: float, psd: bool = True
                       ) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray] | None]:
    """:func:`_centred_system`'s M and θ₀, and M's eigendecomposition (w, V), M = V diag(w) Vᵀ,
    where it comes with the projection (None where the public entry changed M)."""
    e, V = np.linalg.eigh(0.5 * (gram + gram.T))
    e = np.maximum(e, 0.0) if psd else e
    matrix = (V * e) @ V.T
    start = np.zeros(len(gram))
    if free is not None and free_diagonal is not None:
        matrix[free, free] = float(free_diagonal)
        start[free] = float(centre)
        return matrix, start, None
    return matrix, start, (e, V)


class RidgeCandidate(NamedTuple):
    """One candidate of :func:`select_ridge`: λ, θ, its estimated risk and the noise's spread."""

    ridge: float
    theta: np.ndarray
    risk: float  #: :func:`estimated_risk`
    noise: float  #: :func:`risk_noise`, relative to λ = ∞


def ridge_candidates(gram: np.ndarray, cross: np.ndarray, candidates: tuple[float, ...],
                     var_gram: float, var_cross: float, *, free: int | None = None,
                     free_diagonal: float | None = None, centre: float = 0.0,
                     var_free: float | None = None) -> list[RidgeCandidate]:
    """λ = ∞ and each λ of ``candidates`` whose matrix is positive definite, with
    :func:`ridge_solution`'s θ, its estimated risk and the spread of the noise in it.

    With ``free_diagonal`` a, θ = θ₀ + (M + λI)⁻¹(b̃ − Mθ₀) and θ₀ = centre·e_s: E[θᵀe] =
    v_b(tr H − H_ss) + v_s H_ss (1 + λ/a), v_s = ``var_free`` the variance of b̃'s intercept
    coordinate (default v_b), since θ₀ = b̃_s/a follows the noise too; λ = ∞ is θ₀ (E[θᵀe] =
    v_s/a). With ``free`` alone, the intercept is left unpenalised (λ = ∞: the intercept
    alone, b̃_s/M_ss). Post-processing of the released statistics and public quantities
    (docs/privacy/sufficient_statistics.md#privacy-ssp-release).

    Every candidate's H = (M + λD)⁻¹ is applied through an eigendecomposition M + λD =
    V diag(w) Vᵀ (θ, tr H, H_ss and θᵀHθ from V and w, in O(p²) each). Where D = I (no
    intercept, or the centred one) one decomposition of M serves every λ, w = w(M) + λ;
    without a centre the intercept's D ≠ I does not commute with M, and each λ has its own.

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.ssp import ridge_candidates
    >>> A, b = np.diag([100.0, 100.0]), np.array([50.0, 0.0])
    >>> [(c.ridge, round(c.risk, 2)) for c in ridge_candidates(A, b, (1.0, 100.0), 1.0, 1.0)]
    [(inf, 0.0), (1.0, -24.95), (100.0, -18.73)]
    """
    matrix, start, spectrum = _decomposed_system(gram, free, free_diagonal, centre)
    var_free = var_cross if var_free is None else float(var_free)
    p = len(cross)
    penalty = np.eye(p)
    centred = free is not None and free_diagonal is not None
    if free is not None and not centred:
        penalty[free, free] = 0.0  # ridge_solution's unpenalised intercept
        if matrix[free, free] > 0.0:
            start[free] = cross[free] / matrix[free, free]
    follow = (
        var_free / float(matrix[free, free])
        if free is not None and matrix[free, free] > 0
        else 0.0
    )
    out = [
        RidgeCandidate(
            math.inf,
            start,
            estimated_risk(start, matrix, cross, np.zeros_like(matrix), var_gram, follow),
            0.0,
        )
    ]
    origin = start if centred else np.zeros(p)  # the point the ridge shrinks towards
    residual = cross - matrix @ origin
    shifted = free is None or centred  # the penalty is I: M + λI = V diag(w + λ) Vᵀ
    if shifted and spectrum is None:
        spectrum = np.linalg.eigh(matrix)
    for ridge in candidates:
        # H = (M + λD)⁻¹ = V diag(1/e) Vᵀ, e the eigenvalues of M + λD (ascending)
        if shifted:
            e, V = spectrum[0] + float(ridge), spectrum[1]
        else:
            e, V = np.linalg.eigh(matrix + float(ridge) * penalty)
        if e[0] <= 0.0:
            continue
        theta = origin + V @ ((V.T @ residual) / e)
        trace = float(np.sum(1.0 / e))
        follow = var_cross * trace
        if free is not None:
            h = float(np.sum(V[free] ** 2 / e))  # H_ss
            follow += (var_free - var_cross) * h + (
                var_free * h * float(ridge) / float(free_diagonal) if centred else 0.0
            )
        curvature = float(np.sum((V.T @ theta) ** 2 / e))  # θᵀHθ
        out.append(RidgeCandidate(float(ridge), theta,
                                  _risk(theta, matrix, cross, curvature, trace, var_gram, follow),
                                  risk_noise(theta - start, start, var_gram, var_cross)))
    return out


def select_ridge(gram: np.ndarray, cross: np.ndarray, candidates: tuple[float, ...],
                 var_gram: float, var_cross: float, **kw: Any) -> tuple[float, np.ndarray]:
    """(λ, θ) of the :func:`ridge_candidates` of least risk + :data:`RISK_MARGIN` × noise
    (keyword arguments as there; docs/privacy/sufficient_statistics.md#privacy-ssp-release).

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.ssp import select_ridge
    >>> A, b = np.diag([100.0, 100.0]), np.array([50.0, 0.0])
    >>> lam, theta = select_ridge(A, b, (1.0, 100.0), 1.0, 1.0)
    >>> lam, theta.round(3).tolist()
    (1.0, [0.495, 0.0])
    >>> select_ridge(A, b, (1.0, 100.0), 1.0, 1e4)[0]  # noise on b outweighs the signal
    inf
    """
    def score(c: RidgeCandidate) -> float:
        value = c.risk + RISK_MARGIN * c.noise
        return value if math.isfinite(value) else math.inf

    best = min(ridge_candidates(gram, cross, candidates, var_gram, var_cross, **kw), key=score)
    return best.ridge, best.theta


def ridge_solution(gram: np.ndarray, cross: np.ndarray, ridge: float, *,
                   psd: bool = True, free: int | None = None,
                   free_diagonal: float | None = None, centre: float = 0.0) -> np.ndarray:
    """θ = (Π₊(Ã) + λD)⁻¹ b̃, post-processing (docs/privacy/sufficient_statistics.md#privacy-ssp-release).

    Π₊ is the projection onto the PSD cone (``psd=False``: none, the non-private baseline); D the identity,
    without the coordinate ``free`` (the unshrunk intercept); singular: the minimum-norm solution. With
    ``free_diagonal`` a = n·s² (A's public intercept entry) and θ₀ = ``centre`` on that coordinate: θ = θ₀ +
    (M + λI)⁺(b̃ − Mθ₀), M = Π₊(Ã) with that entry set to a.

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.ssp import ridge_solution
    >>> ridge_solution(np.diag([3.0, -1.0]), np.array([4.0, 1.0]), 1.0).tolist()
    [1.0, 1.0]
    >>> ridge_solution(np.diag([3.0, 2.0]), np.array([4.0, 1.0]), 1.0, free=1).tolist()
    [1.0, 0.5]
    >>> ridge_solution(np.diag([3.0, 5.0]), np.array([4.0, 1.0]), 1e9, free=1,
    ...                free_diagonal=2.0, centre=0.5).round(6).tolist()
    [0.0, 0.5]
    """
    if free is not None and free_diagonal is not None:
        matrix, start = _centred_system(gram, free, free_diagonal, centre, psd)
        step = np.linalg.lstsq(matrix + float(ridge) * np.eye(len(cross)),
                               cross - matrix @ start, rcond=None)[0]
        return start + step
    e, V = np.linalg.eigh(0.5 * (gram + gram.T))
    if psd:
        e = np.maximum(e, 0.0)
    if free is not None:
        matrix = (V * e) @ V.T + float(ridge) * np.eye(len(e))
        matrix[free, free] -= float(ridge)
        return np.linalg.lstsq(matrix, cross, rcond=None)[0]
    total = e + float(ridge)
    keep = total > (0.0 if psd else 1e-12 * max(float(np.abs(total).max()), 1e-300))
    coef = np.zeros_like(total)
    coef[keep] = (V[:, keep].T @ cross) / total[keep]
    return V @ coef


class _SufficientStatistics(Mechanism[SSPTemplate]):
    """Shared part: what is released, the post-processing, the certificate. A private
    subclass gives ``scales(cal)`` (each statistic's per-coordinate noise scale),
    ``noise_law(cal, part)``, ``variance(cal, part)`` (per coordinate) and
    ``noise_description(cal)``."""

    needs = frozenset({"sufficient_statistics"})
    solves = False
    placement = "sum"
    noise_label = ""

    def _facts(self, template: SSPTemplate) -> tuple[int, dict[str, Any]]:
        """n and the public facts the noise and its post-processing read, each read once (n,
        p as built-in ints, q̃ as a built-in float; the free column, its value s, the released
        parts): the calibration records them, and the run and the certificate read them there
        (the release compares the calibration's n with the one it read, release.py)."""
        owner = f"{type(self).__name__}.calibrate"
        n, p = public_count(template.n, owner), public_count(template.p, owner)
        q = public_number(template.data_norm, owner, "data_norm")
        free, value = template.free, template.free_value
        free = None if free is None else int(free)
        value = None if free is None or value is None else float(value)
        # the label sum S is released only with an intercept column of public value s > 0
        total = value is not None and value > 0
        return n, {"dimension p": p, "data_norm": q, "free": free, "free value": value,
                   "parts": ("gram", "cross", "total") if total else ("gram", "cross")}

    def _intercept_cross(self, noisy: dict[str, Any], cal: Calibration, template: SSPTemplate
                         ) -> tuple[np.ndarray, float]:
        """b̃ with its intercept coordinate the inverse-variance mean of b̃_s and s·S̃, two
        released estimates of the same s·Σu, and that coordinate's noise variance on the scale
        of q̃ (that of b̃_s/q̃; inf without S; post-processing; privacy-ssp-release)."""
        cross = np.array(noisy["cross"], dtype=float)
        if "total" not in noisy:
            return cross, math.inf
        x = cal.extra  # the facts the calibration read
        free, s, unit = x["free"], x["free value"], x["data_norm"]
        # variances on the scale of q̃ (their ratio and, times q̃², the combined one)
        v_cross, v_total = self.variance(cal, "cross", unit), self.variance(cal, "total", unit / s)
        weight = v_cross / (v_cross + v_total)
        cross[free] = (1.0 - weight) * cross[free] + weight * s * float(noisy["total"][0])
        return cross, v_cross * v_total / (v_cross + v_total)

    def run(self, template: SSPTemplate, cal: Calibration | None, backend: Backend,
            rng: np.random.Generator, **_: Any) -> tuple[np.ndarray, None, bool]:
        """Noise on each statistic (A, b, S in this order), snapped; then θ in closed form, at
        the given ridge or at the candidate of least estimated risk."""
        assert cal is not None
        # the public facts as the calibration read them: n, q̃, the free column, s, the parts
        x = cal.extra
        free, s, n = x["free"], x["free value"], cal.n
        stats = statistics_of(template, x)
        noisy = {part: self.noise_law(cal, part).add(stats[part], rng) for part in x["parts"]}
        cross, var_free = self._intercept_cross(noisy, cal, template)
        # n·s², A's entry at the intercept column (every row holds s there): public; θ₀ is then the
        # released mean Σu/n on the scale 1/s, clipped to the labels' range [−1, 1]
        diagonal = None if free is None or s is None else n * s * s
        centre = (
            0.0
            if diagonal is None
            else float(np.clip(cross[free] / diagonal, -1 / s, 1 / s))
        )
        if template.ridge is not None:
            return ridge_solution(noisy["gram"], cross, template.ridge, free=free,
                                  free_diagonal=diagonal, centre=centre), None, False
        # the selection on the statistics divided by the public q̃² (θ is unchanged), so that
        # no squared noise scale leaves the floating-point range
        unit = x["data_norm"] ** 2
        _, theta = select_ridge(
            noisy["gram"] / unit,
            cross / unit,
            tuple(r / unit for r in self.ridge_grid(template, cal)),
            self.variance(cal, "gram", unit),
            self.variance(cal, "cross", unit),
            free=free,
            free_diagonal=None if diagonal is None else diagonal / unit,
            centre=centre,
            var_free=var_free / unit if np.isfinite(var_free) else None,
        )
        return theta, None, False

    def ridge_grid(self, template: SSPTemplate, cal: Calibration) -> tuple[float, ...]:
        """λ = max(2^k R, s_A) for 2^k in :data:`RIDGE_STEPS`, R = :func:`noise_norm_bound`:
        public (docs/privacy/sufficient_statistics.md#privacy-ssp-release)."""
        scale = float(self.scales(cal)["gram"])
        bound = noise_norm_bound(scale, cal.extra["dimension p"])
        return tuple(sorted({max(step * bound, scale) for step in RIDGE_STEPS}))

    def certificate(self, template: SSPTemplate, budget: Budget, cal: Calibration | None,
                    conditions: list[Condition]) -> Certificate:
        assert cal is not None
        q, p, parts = cal.extra["data_norm"], cal.extra["dimension p"], cal.extra["parts"]
        sens = _sensitivities_at(q)
        noise_conds, noise_q = self.noise_description(cal)
        ridge_rule = (
            f"given: lambda = {template.ridge:.6g} (n * lam)"
            if template.ridge is not None
            else "chosen from the released statistics: among lambda = max(2^k R, s_A), "
            f"k = {round(math.log2(RIDGE_STEPS[0]))} ... {round(math.log2(RIDGE_STEPS[-1]))}, "
            f"R = s_A sqrt(p log(2 p^2 / rho)) with rho = {FAILURE_PROBABILITY:g}, "
            "and lambda = infinity (the released mean), "
            f"the one of least estimated risk plus {RISK_MARGIN:g} times the spread of "
            "its noise (post-processing)"
        )
        clipped = [] if any(c.unverified == "data_norm" for c in conditions) else [
            Condition("row bound", True, "enforced by dpconvex (per-record clipping)",
                      f"every row x~ (intercept column included) has ||x~|| <= q~ = {q:.6g}"),
            Condition("label bound", True, "enforced by dpconvex (per-record clipping to "
                      "label_range and the map onto [-1, 1])", "every label has |u| <= 1")]
        conds = [
            *conditions,
            *clipped,
            Condition("replace-one sensitivity", True,
                      "derived (docs/privacy/sufficient_statistics.md#privacy-ssp-sensitivities)",
                      "; ".join(f"{part} {sens[part]:.6g}" for part in parts)
                      + " (A in Frobenius norm: sqrt(2) q~^2; b: 2 q~; "
                      "the label sum S: 2)"),
            *noise_conds,
        ]
        released = ("the noisy A, b (and S) are computed inside the mechanism and "
                    "discarded; the guarantee covers their joint release, so theta, the ridge "
                    "and every function of them are post-processing; the fitted model stores "
                    "theta (coef_, intercept_) only")
        return Certificate(
            mechanism=f"sufficient-statistics perturbation (Wang 2018), {self.noise_label}",
            epsilon_requested=budget.epsilon,
            epsilon=cal.epsilon,
            delta=cal.delta,
            private=True,
            conditions=conds,
            quantities={"dimension p": p, "released statistics": ", ".join(parts),
                        **{f"sensitivity of {part}": sens[part] for part in parts},
                        **noise_q, "ridge": ridge_rule},
            assumptions=[
                "adjacency: replace one record (row and label)",
                f"rows x~ = [clip(x, q), s] with ||x~|| <= {q:.6g} and labels u in [-1, 1]: "
                "per-record public maps; preprocessing that reads the data is not covered",
                released,
                "theta = (P(A~) + lambda I)^-1 b~, P the projection onto the PSD cone (with an "
                "intercept column: its public entry n s^2 of A, b~'s intercept coordinate "
                "combined with s S~, the ridge centred at the released mean): post-processing "
                "(docs/privacy/sufficient_statistics.md#privacy-ssp-release)",
                "idealized real-valued noise, rounded to a public grid "
                "(docs/privacy/accuracy_randomness.md#privacy-accuracy-randomness)",
                *template.assumptions(self.needs),
            ],
        )


@register
class GaussianSSP(_SufficientStatistics):
    """Sufficient-statistics perturbation with Gaussian noise σ_j = Δ_j J σ₁ on each statistic, J =
    :func:`joint_sensitivity` ("l2") and σ₁ the analytic σ for sensitivity 1 ([BW18]_):
    (ε, δ)-DP (docs/privacy/sufficient_statistics.md#privacy-ssp-calibration).

    Examples
    --------
    >>> from dpconvex.data.sufficient import sufficient_statistics
    >>> from dpconvex.templates.statistics import SufficientStatisticsTemplate
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(500, 2)) / 2; u = np.clip(X @ [1.0, -0.5], -1, 1)
    >>> t = SufficientStatisticsTemplate(sufficient_statistics(X, u, 1.0, None), 500, 2, 1.0)
    >>> # statistics computed here, not by an estimator: their row and label bounds are vouched for
    >>> rel = release(t, get_mechanism("gaussian_ssp"), Budget(1.0, 1e-6), rng=0, vouch=("data_norm",))
    >>> rel.theta.shape, rel.certificate.delta
    ((2,), 1e-06)
    """

    name = "gaussian_ssp"
    pure = False
    alternative = "ssp"
    noise_label = "analytic Gaussian noise (Balle & Wang 2018)"

    def calibrate(self, template: SSPTemplate, budget: Budget) -> Calibration:
        n, facts = self._facts(template)
        parts = facts["parts"]
        unit = analytic_gaussian_sigma(budget.epsilon, budget.delta, 1.0)
        joint = joint_sensitivity(parts, "l2")
        sens = _sensitivities_at(facts["data_norm"])
        sigmas = {part: sens[part] * joint * unit for part in parts}
        return Calibration(
            mechanism=self.name, epsilon_requested=budget.epsilon, sensitivity=joint,
            noise_rate=math.nan, delta=budget.delta, n=n,
            extra={"unit sigma": unit, "joint sensitivity": joint, "noise std": sigmas,
                   "delta at sigma": analytic_gaussian_delta(budget.epsilon, unit, 1.0),
                   **facts})

    def scales(self, cal: Calibration) -> dict[str, float]:
        return dict(cal.extra["noise std"])

    def variance(self, cal: Calibration, part: str, unit: float = 1.0) -> float:
        """σ_j² per coordinate, of the statistic divided by ``unit``."""
        return (float(cal.extra["noise std"][part]) / unit) ** 2

    def noise_law(self, cal: Calibration, part: str) -> Noise:
        """N(0, σ²) per coordinate; on A in the orthonormal basis of symmetric matrices."""
        return Gaussian(cal.extra["noise std"][part], symmetric=part == "gram")

    def noise_description(self, cal: Calibration) -> tuple[list[Condition], dict[str, Any]]:
        unit, dlt = cal.extra["unit sigma"], cal.extra["delta at sigma"]
        sigmas, joint = cal.extra["noise std"], cal.extra["joint sensitivity"]
        cond = Condition(
            "noise calibration", dlt <= cal.delta,
            "analytic Gaussian (Balle & Wang 2018, Thm. 8) on the scaled statistics",
            f"sigma_j = Delta_j * J * {unit:.6g} for each statistic j, J = {joint:.6g} the "
            "bound on sqrt(sum_j (||f_j(D) - f_j(D')|| / Delta_j)^2): the statistics divided "
            f"by sigma_j move by at most 1 / {unit:.6g}, and delta(epsilon) = {dlt:.6g} <= "
            f"delta = {cal.delta:g} at epsilon = {cal.epsilon:g}")
        return [cond], {**{f"noise std of {part}": s for part, s in sigmas.items()},
                        "joint sensitivity J": joint, "delta at sigma": dlt}


@register
class PureSSP(_SufficientStatistics):
    """Sufficient-statistics perturbation with pure ε-DP noise ∝ exp(−(β/Δ_j)‖·‖) on each
    statistic (Laplace on S, norm-Gamma on A in the symmetric subspace and on b), β = ε/G,
    G = :func:`joint_sensitivity` ("l1"): ε-DP
    (docs/privacy/sufficient_statistics.md#privacy-ssp-calibration).

    Examples
    --------
    >>> from dpconvex.data.sufficient import sufficient_statistics
    >>> from dpconvex.templates.statistics import SufficientStatisticsTemplate
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(500, 2)) / 2; u = np.clip(X @ [1.0, -0.5], -1, 1)
    >>> t = SufficientStatisticsTemplate(sufficient_statistics(X, u, 1.0, None), 500, 2, 1.0)
    >>> # statistics computed here, not by an estimator: their row and label bounds are vouched for
    >>> rel = release(t, get_mechanism("ssp"), Budget(1.0), rng=0, vouch=("data_norm",))
    >>> rel.theta.shape, rel.certificate.epsilon <= 1.0
    ((2,), True)
    """

    name = "ssp"
    pure = True
    alternative = "gaussian_ssp"
    noise_label = "pure epsilon-DP Laplace and norm-Gamma noise"

    def calibrate(self, template: SSPTemplate, budget: Budget) -> Calibration:
        n, facts = self._facts(template)
        parts, p = facts["parts"], facts["dimension p"]
        joint = joint_sensitivity(parts, "l1")
        beta = budget.epsilon / joint
        while beta * joint > budget.epsilon:  # the stated epsilon is beta * G, never above
            beta = math.nextafter(beta, 0.0)
        sens = _sensitivities_at(facts["data_norm"])
        rates = {part: beta / sens[part] for part in parts}
        return Calibration(
            mechanism=self.name, epsilon_requested=budget.epsilon, epsilon=beta * joint,
            sensitivity=joint, noise_rate=beta, n=n,
            extra={"joint sensitivity": joint, "noise rate": rates,
                   "dimension": {"total": 1, "gram": symmetric_dimension((p, p)), "cross": p},
                   **facts})

    def scales(self, cal: Calibration) -> dict[str, float]:
        """E‖noise‖/√m = √m/β: the rms scale per coordinate of norm-Gamma noise on m coordinates
        (for S, m = 1: the Laplace scale 1/β)."""
        dims = cal.extra["dimension"]
        return {
            part: math.sqrt(dims[part]) / rate for part, rate in cal.extra["noise rate"].items()
        }

    def variance(self, cal: Calibration, part: str, unit: float = 1.0) -> float:
        """(m + 1)/β_j²: E‖noise‖² = m(m + 1)/β_j² of norm-Gamma noise on m coordinates,
        shared evenly (Laplace, m = 1: 2/β_j²); of the statistic divided by ``unit``."""
        m = cal.extra["dimension"][part]
        return (m + 1.0) / (cal.extra["noise rate"][part] * unit) ** 2

    def noise_law(self, cal: Calibration, part: str) -> Noise:
        """Laplace on S; norm-Gamma on A (symmetric subspace) and on b."""
        rate = cal.extra["noise rate"][part]
        if part == "total":
            return Laplace(1.0 / rate)
        return NormGamma(rate, symmetric=part == "gram")

    def noise_description(self, cal: Calibration) -> tuple[list[Condition], dict[str, Any]]:
        rates, joint = cal.extra["noise rate"], cal.extra["joint sensitivity"]
        cond = Condition(
            "noise calibration", cal.epsilon <= cal.epsilon_requested,
            "norm-based densities, computed from public parameters",
            f"each statistic j: density exp(-beta_j ||noise_j||), beta_j = beta / Delta_j, "
            f"beta = {cal.noise_rate:.6g}; density ratio <= exp(beta * G), G = {joint:.6g} the "
            f"bound on sum_j ||f_j(D) - f_j(D')|| / Delta_j: epsilon = {cal.epsilon:.6g}")
        return [cond], {**{f"noise rate of {part}": r for part, r in rates.items()},
                        "joint sensitivity G": joint}


@register
class NonPrivateSSP(NonPrivateBaseline, _SufficientStatistics):
    """The explicit NON-private baseline: the exact ridge (minimum-norm least-squares) solution.

    Examples
    --------
    >>> from dpconvex.data.sufficient import Moments
    >>> from dpconvex.templates.statistics import SufficientStatisticsTemplate
    >>> t = SufficientStatisticsTemplate(Moments(np.diag([2.0, 0.0]), np.array([4.0, 0.0]), 0),
    ...                                  3, 2, 1.0)
    >>> release(t, get_mechanism("none_ssp"), Budget.unlimited()).theta.tolist()
    [2.0, 0.0]
    """

    name = "none_ssp"

    def run(self, template: SSPTemplate, cal: Calibration | None, backend: Backend,
            rng: np.random.Generator, **_: Any) -> tuple[np.ndarray, None, bool]:
        ridge = 0.0 if template.ridge is None else template.ridge
        return ridge_solution(template.gram, template.cross, ridge, psd=False,
                              free=template.free), None, False
