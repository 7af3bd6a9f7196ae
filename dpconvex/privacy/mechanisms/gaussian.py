"""Noisy class sums and counts in one vector: the DP class centroids and Gaussian naive Bayes.

The released statistic is V ∈ R^{C × (d + 1)}, row c = Σ_{i: y_i = c} (u_i, w) = (s_c, w n_c)
(w the public count weight; a record outside the public label set adds nothing). Each
mechanism reads its replace-one sensitivity in its own norm from the set u lies in
(``record_set``: :mod:`~dpconvex.privacy.mechanisms.record_sets`), and snaps the release to
the public grid of its per-coordinate noise scale. Derivations:
docs/privacy/large_margin.md#privacy-class-centroids (the ball) and
docs/privacy/gaussian_nb.md#privacy-nb-mechanisms (the box).

``"gaussian"`` ((ε, δ)): V + N(0, σ² I), analytic σ ([BW18]_ Thm. 8) for Δ₂. ``"norm_gamma_sum"`` (pure ε): V
+ b, density ∝ exp(−β‖b‖_F), β = ε/Δ₂ ([CMS]_ Alg. 1). ``"knorm_sum"`` (pure ε): the K-norm mechanism
([HT10]_) for Σ_c ‖V_c‖₂, β = ε/Δ₁₂, w = :data:`KNORM_COUNT_WEIGHT`. ``"knorm_sup_sum"`` (pure ε, the box):
the K-norm mechanism for Σ_c ‖V_c‖_∞.

References
----------
.. [BW18] B. Balle, Y.-X. Wang. Improving the Gaussian Mechanism for
   Differential Privacy: Analytical Calibration and Optimal Denoising. ICML 2018, Theorem 8 and Algorithm 1.
.. [CMS] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially Private
   Empirical Risk Minimization. JMLR 12 (2011), Alg. 1 (norm-Gamma noise).
.. [HT10] M. Hardt, K. Talwar. On the Geometry of Differential Privacy.
   STOC 2010, Section 2 (the K-norm mechanism).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Protocol

import numpy as np

from ..._validation import check_float
from ...objectives.losses import shipped_derivation
from ...solvers.registry import Backend
from ...templates.base import Template
from ..accounting.analytic_gaussian import analytic_gaussian_delta, analytic_gaussian_sigma
from ..budget import Budget
from ..certificate import Certificate, Condition
from ..noise import Gaussian, Noise, NormGamma, SupNormGamma
from .base import Calibration, Mechanism, register
from .record_sets import NormBall, RecordSet, record_set_of

__all__ = [
    "KNORM_COUNT_WEIGHT",
    "ClassSumGaussian",
    "ClassSumKNorm",
    "ClassSumKNormSup",
    "ClassSumNormGamma",
    "class_sum_block_sensitivity",
    "class_sum_matrix",
    "class_sum_sensitivity",
    "class_sums",
]

#: The public count weight w of ``"knorm_sum"``
#: (docs/privacy/large_margin.md#privacy-class-centroids): it balances the error of a
#: class mean from the sum noise against that from the count noise.
KNORM_COUNT_WEIGHT = 0.5


def class_sum_sensitivity(feature_bound: float, count_weight: float) -> float:
    """L2 sensitivity of the joint vector (s_1, w n_1, ..., s_C, w n_C) under replace-one.

    max(2B, √(2(B² + w²))) for ‖u‖ <= B (docs/privacy/large_margin.md#privacy-class-centroids): the same-class
    change u − u′ (the count coordinate cancels) or the move of (u, w) and
    (u′, w) between two classes. 2 for B = 1 and w <= 1.

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.gaussian import class_sum_sensitivity
    >>> class_sum_sensitivity(1.0, 1.0)
    2.0
    >>> round(class_sum_sensitivity(1.0, 2.0), 4)
    3.1623
    """
    return NormBall(float(feature_bound)).sensitivity("l2", count_weight)


def class_sum_block_sensitivity(feature_bound: float, count_weight: float) -> float:
    """Replace-one sensitivity of V in the block norm ‖V‖_{1,2} = Σ_c ‖V_c‖₂.

    2√(B² + w²) for ‖u‖ <= B (docs/privacy/large_margin.md#privacy-class-centroids): the move of (u, w) and
    (u′, w) between two classes changes two rows by ‖(u, w)‖ + ‖(u′, w)‖; a
    same-class change (2B) and a record outside the label set (√(B² + w²)) change less.

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.gaussian import class_sum_block_sensitivity
    >>> round(class_sum_block_sensitivity(1.0, 0.5), 4)
    2.2361
    """
    return NormBall(float(feature_bound)).sensitivity("block_l2", count_weight)


class ClassSumsTemplate(Template, Protocol):
    """What the class-sum mechanisms read of a template (capability ``"cell_sums"``)."""

    C: int  #: number of classes
    d: int  #: features of a row (the sums have d + 1 entries per class: the counts last)
    X: Any  #: the rows u_i, each of norm at most ``data_norm``
    y: np.ndarray  #: class index of each row, in ``range(C)``
    data_norm: float  #: public bound on the norm of a row

    def class_sums_chunked(self, count_weight: float) -> np.ndarray:
        """The (C, d + 1) class sums and weighted counts, summed where the rows live
        (capability ``"chunked_class_sums"`` only)."""
        ...


def class_sums(template: ClassSumsTemplate, count_weight: float) -> np.ndarray:
    """The joint vector V of shape (C, d + 1): class sums of u, then w times the class counts.

    Examples
    --------
    >>> from dpconvex.estimators.centroids import ClassSumTemplate
    >>> from dpconvex.privacy.mechanisms.gaussian import class_sums
    >>> U = np.array([[0.6, 0.0], [0.0, 0.8], [0.5, 0.5]])
    >>> class_sums(ClassSumTemplate(U, np.array([0, 1, 0]), n_classes=2), count_weight=1.0)
    array([[1.1, 0.5, 2. ],
           [0. , 0.8, 1. ]])
    """
    if "chunked_class_sums" in template.capabilities:  # rows on Dask workers: summed per chunk
        return template.class_sums_chunked(count_weight)
    return class_sum_matrix(template.X, template.y, template.C, count_weight)


def class_sum_matrix(U: Any, label: np.ndarray, C: int, count_weight: float) -> np.ndarray:
    """(Σ_{i: label_i = c} u_i, w · #{i: label_i = c}) for c < C, shape (C, k + 1) (rows of
    another label, -1 for a record outside the label set, add nothing).

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.gaussian import class_sum_matrix
    >>> class_sum_matrix(np.eye(2), np.array([1, -1]), 2, 0.5).tolist()
    [[0.0, 0.0, 0.0], [1.0, 0.0, 0.5]]
    """
    k = U.shape[1]
    V = np.zeros((C, k + 1))
    for c in range(C):  # C is small; a per-class sum keeps the order of the rows
        rows = label == c
        V[c, :k] = U[rows].sum(axis=0)
        V[c, k] = count_weight * float(np.count_nonzero(rows))
    return V


#: The key of the record set a class-sum calibration read (its sensitivity's), in its
#: :attr:`Calibration.extra`: the certificate states that set.
RECORD_SET_KEY = "record set"


class _ClassSumNoise(Mechanism[ClassSumsTemplate]):
    """Shared part of the class-sum mechanisms: sensitivity, certificate, statistic (a
    subclass gives ``noise_law(cal)``: the law its calibration holds, which draws, adds and
    snaps)."""

    needs = frozenset({"cell_sums"})
    solves = False
    noise_label = ""

    def __init__(self, count_weight: float = 1.0):
        self.count_weight = check_float("count_weight", count_weight, type(self).__name__)

    #: The norm the noise is calibrated in (:data:`~dpconvex.privacy.mechanisms.record_sets.NORMS`).
    norm = "l2"

    placement = "sum"

    def _sensitivity(self, template: ClassSumsTemplate) -> tuple[RecordSet, float]:
        """The template's record set, read once (the certificate states the calibration's), and
        Δ in :attr:`norm` for it and this mechanism's count weight."""
        records = record_set_of(template)
        return records, records.sensitivity(self.norm, self.count_weight)

    def _pure_calibration(self, template: ClassSumsTemplate, budget: Budget) -> Calibration:
        """A pure ε-DP calibration: rate β = ε/Δ, the whole ε on the noise (no slack)."""
        records, sens = self._sensitivity(template)
        return self._holding_noise(template, Calibration(
            mechanism=self.name, epsilon_requested=budget.epsilon, sensitivity=sens,
            noise_rate=budget.epsilon / sens,
            extra={"count weight": self.count_weight, RECORD_SET_KEY: records}))

    def _holding_noise(self, template: ClassSumsTemplate, cal: Calibration) -> Calibration:
        """``cal`` holding its law (:meth:`noise_law`, built once: :meth:`run` draws it) on the
        C (d + 1) class sums and counts, C and d read once (the certificate reads them there)."""
        return dataclasses.replace(cal, noise=self.noise_law(cal),
                                   noise_shape=(int(template.C), int(template.d) + 1))

    def run(self, template: ClassSumsTemplate, cal: Calibration | None, backend: Backend,
            rng: np.random.Generator, **_: Any) -> tuple[np.ndarray, None, bool]:
        assert cal is not None
        return cal.law().add(class_sums(template, self.count_weight), rng), None, False

    def noise_description(self, cal: Calibration) -> tuple[list[Condition], dict[str, Any]]:
        """The mechanism's calibration condition and quantities (a pure one: its density's
        :attr:`law_text` on rows of k = d + 1 entries, and the ratio bound exp(β Δ) = e^ε)."""
        k = cal.noise_shape[-1]  # d + 1, as the calibration read d
        return [
            Condition(
                "noise calibration",
                True,
                self.law_source,
                self.law_text.format(k=k, k_plus_one=k + 1)
                + f"density ratio <= exp(beta * sensitivity) = exp({cal.noise_rate:.6g} * "
                f"{cal.sensitivity:.6g}) = exp({cal.epsilon:g})",
            )
        ], {"noise rate beta": cal.noise_rate}

    #: A pure mechanism's noise density and where its bound comes from, for the certificate.
    law_text = ""
    law_source = "K-norm mechanism (Hardt & Talwar 2010), computed from public parameters"

    #: The certificate's name of the sensitivity (the norm it is measured in).
    sensitivity_name = "L2 sensitivity"

    def certificate(self, template: ClassSumsTemplate, budget: Budget, cal: Calibration | None,
                    conditions: list[Condition]) -> Certificate:
        assert cal is not None
        # the record set, C and d the calibration read (its noise is on C rows of d + 1)
        (C, width), records = cal.noise_shape, cal.extra[RECORD_SET_KEY]
        w, d = self.count_weight, width - 1
        noise_conds, noise_q = self.noise_description(cal)
        # a template dpconvex ships clips its rows; a user's declares its row bound (vouched for)
        shipped = shipped_derivation(template)
        conds = [
            *conditions,
            *(
                [
                    Condition(
                        "feature bound",
                        True,
                        "enforced by dpconvex (per-record clipping)",
                        records.bound_line,
                    )
                ]
                if shipped
                else []
            ),
            Condition(
                "replace-one sensitivity",
                True,
                f"derived ({shipped or 'docs/privacy/large_margin.md#privacy-class-centroids'})",
                records.sensitivity_detail(self.norm, w),
            ),
            *noise_conds,
        ]
        return Certificate(
            mechanism=f"{self.noise_label} on the class sums and counts ({C} classes)",
            epsilon_requested=budget.epsilon,
            epsilon=cal.epsilon,
            delta=cal.delta,
            private=True,
            conditions=conds,
            quantities={"classes C": C, "features d": getattr(template, "n_features", d),
                        f"released entries C ({records.width} + 1)": C * (d + 1),
                        "count weight w": w, self.sensitivity_name: cal.sensitivity,
                        **noise_q},
            assumptions=[
                "adjacency: replace one record (label included); records outside the public "
                "label set contribute nothing",
                records.assumption,
                "idealized real-valued noise, rounded to a public grid "
                "(docs/privacy/accuracy_randomness.md#privacy-accuracy-randomness)",
                *template.assumptions(self.needs),
            ],
        )


@register
class ClassSumGaussian(_ClassSumNoise):
    """Analytic Gaussian mechanism ([BW18]_) on the class sums and counts: (ε, δ)-DP.

    Examples
    --------
    >>> from dpconvex.estimators.centroids import ClassSumTemplate
    >>> template = ClassSumTemplate(X, np.arange(40) % 3, n_classes=3)  # X: conftest.py
    >>> mech = get_mechanism("gaussian")
    >>> type(mech).__name__, mech.pure
    ('ClassSumGaussian', False)
    >>> round(mech.calibrate(template, Budget(1.0, 1e-5)).coordinate_scale, 3)
    7.461
    >>> release(template, mech, Budget(1.0, 1e-5), rng=0).theta.shape
    (3, 4)
    """

    name = "gaussian"
    pure = False
    alternative = "knorm_sum"
    noise_label = "analytic Gaussian mechanism (Balle & Wang 2018)"

    def calibrate(self, template: ClassSumsTemplate, budget: Budget) -> Calibration:
        records, sens = self._sensitivity(template)
        sigma = analytic_gaussian_sigma(budget.epsilon, budget.delta, sens)
        return self._holding_noise(template, Calibration(
            mechanism=self.name, epsilon_requested=budget.epsilon, sensitivity=sens,
            noise_rate=math.nan, delta=budget.delta,
            extra={"noise std": sigma, "count weight": self.count_weight,
                   "delta at sigma": analytic_gaussian_delta(budget.epsilon, sigma, sens),
                   RECORD_SET_KEY: records}))

    def noise_description(self, cal: Calibration) -> tuple[list[Condition], dict[str, Any]]:
        s, dlt = cal.extra["noise std"], cal.extra["delta at sigma"]
        cond = Condition(
            "noise calibration", dlt <= cal.delta, "analytic Gaussian (Balle & Wang 2018, Thm. 8)",
            f"sigma = {s:.6g}: Phi(D/(2s) - e s/D) - e^e Phi(-D/(2s) - e s/D) = {dlt:.6g} <= "
            f"delta = {cal.delta:g} at epsilon = {cal.epsilon:g}")
        return [cond], {"noise std sigma": s, "count noise std sigma/w":
                        s / self.count_weight, "delta at sigma": dlt}

    def noise_law(self, cal: Calibration) -> Noise:
        return Gaussian(float(cal.extra["noise std"]))


@register
class ClassSumNormGamma(_ClassSumNoise):
    """Norm-Gamma noise ∝ exp(−β‖b‖), β = ε/Δ, on the class sums and counts: pure ε-DP.

    Examples
    --------
    >>> from dpconvex.estimators.centroids import ClassSumTemplate
    >>> template = ClassSumTemplate(X, np.arange(40) % 3, n_classes=3)  # X: conftest.py
    >>> mech = get_mechanism("norm_gamma_sum")
    >>> cal = mech.calibrate(template, Budget(1.0))
    >>> cal.sensitivity, cal.noise_rate
    (2.0, 0.5)
    >>> release(template, mech, Budget(1.0), rng=0).theta.shape
    (3, 4)
    """

    name = "norm_gamma_sum"
    pure = True
    noise_label = "norm-Gamma noise (density exp(-beta ||b||), CMS Alg. 1)"

    def calibrate(self, template: ClassSumsTemplate, budget: Budget) -> Calibration:
        return self._pure_calibration(template, budget)

    law_source = "computed from public parameters"

    def noise_law(self, cal: Calibration) -> Noise:
        return NormGamma(cal.noise_rate)


@register
class ClassSumKNorm(_ClassSumNoise):
    """K-norm mechanism ([HT10]_) for ‖V‖_{1,2} = Σ_c ‖V_c‖ on the class sums and counts: pure ε-DP.

    b ∝ exp(−β Σ_c ‖b_c‖), β = ε/Δ₁₂ (:func:`class_sum_block_sensitivity`;
    docs/privacy/large_margin.md#privacy-class-centroids): one independent norm-Gamma row per
    class (radius Gamma(d + 1, 1/β)).

    Parameters
    ----------
    count_weight : float, default=0.5
        The public weight w of the count coordinate (> 0).

    Examples
    --------
    >>> from dpconvex.estimators.centroids import ClassSumTemplate
    >>> template = ClassSumTemplate(X, np.arange(40) % 3, n_classes=3)  # X: conftest.py
    >>> mech = get_mechanism("knorm_sum")
    >>> mech.count_weight, mech.pure
    (0.5, True)
    >>> round(mech.calibrate(template, Budget(1.0)).sensitivity, 4)
    2.2361
    >>> release(template, mech, Budget(1.0), rng=0).theta.shape
    (3, 4)
    """

    name = "knorm_sum"
    pure = True
    norm = "block_l2"  # Δ₁₂ = 2√(B² + w²) for the ball (class_sum_block_sensitivity)
    noise_label = "K-norm mechanism for sum_c ||b_c|| (Hardt & Talwar 2010)"
    sensitivity_name = "sensitivity in sum_c ||V_c||"

    def __init__(self, count_weight: float = KNORM_COUNT_WEIGHT):
        super().__init__(count_weight)

    def calibrate(self, template: ClassSumsTemplate, budget: Budget) -> Calibration:
        return self._pure_calibration(template, budget)

    law_text = "density exp(-beta sum_c ||b_c||), each row's norm ~ Gamma({k}, 1/beta): "

    def noise_law(self, cal: Calibration) -> Noise:
        """One independent norm-Gamma law per class row (per-coordinate scale √(d + 1)/β)."""
        return NormGamma(cal.noise_rate, rows=True)

    def log_density(self, cal: Calibration, noise: np.ndarray) -> float:
        """log of the noise density at ``noise`` of shape (C, d + 1): −β Σ_c ‖b_c‖ − C log Z.

        Z = ∫_{R^k} exp(−β‖x‖) dx = 2 π^{k/2} Γ(k) / (Γ(k/2) β^k), k = d + 1 (the
        radius has density ∝ r^{k−1} e^{−βr}, the Gamma(k, 1/β) law :meth:`draw` uses).
        """
        b = np.asarray(noise, dtype=float)
        beta, k = float(cal.noise_rate), b.shape[-1]
        log_z = (math.log(2.0) + 0.5 * k * math.log(math.pi) + math.lgamma(k)
                 - math.lgamma(0.5 * k) - k * math.log(beta))
        rows = b.reshape(-1, k)
        return float(-beta * np.linalg.norm(rows, axis=1).sum() - rows.shape[0] * log_z)


@register
class ClassSumKNormSup(_ClassSumNoise):
    """K-norm mechanism ([HT10]_) for ‖V‖_{1,∞} = Σ_c ‖V_c‖_∞ on the class sums and counts: pure ε-DP.

    b ∝ exp(−β Σ_c ‖b_c‖_∞), β = ε/Δ with Δ the replace-one sensitivity of V in that norm
    (2 max(1, w) for the class moments of Gaussian naive Bayes,
    :class:`~dpconvex.privacy.mechanisms.record_sets.MomentBox`;
    docs/privacy/gaussian_nb.md#privacy-nb-mechanisms), so the density ratio of neighbours is
    at most exp(β‖V − V′‖_{1,∞}) <= e^ε: one independent
    :func:`~dpconvex.privacy.noise.sup_norm_gamma` row per class (radius Gamma(k + 1, 1/β),
    a point uniform in [−1, 1]^k). It suits a box, where every coordinate of a record can
    reach its bound at once.

    Parameters
    ----------
    count_weight : float, default=1.0
        The public weight w of the count coordinate (> 0); w <= 1 leaves Δ unchanged.

    Examples
    --------
    >>> from dpconvex.estimators.gaussian_nb import ClassMomentTemplate
    >>> X = np.random.default_rng(0).uniform(-1, 1, size=(30, 2))
    >>> template = ClassMomentTemplate(X, np.arange(30) % 3, n_classes=3)
    >>> mech = get_mechanism("knorm_sup_sum")
    >>> mech.calibrate(template, Budget(1.0)).sensitivity, mech.pure
    (2.0, True)
    >>> release(template, mech, Budget(1.0), rng=0).theta.shape
    (3, 5)
    """

    name = "knorm_sup_sum"
    pure = True
    norm = "block_linf"
    noise_label = "K-norm mechanism for sum_c ||b_c||_inf (Hardt & Talwar 2010)"
    sensitivity_name = "sensitivity in sum_c ||V_c||_inf"

    def calibrate(self, template: ClassSumsTemplate, budget: Budget) -> Calibration:
        return self._pure_calibration(template, budget)

    law_text = ("density exp(-beta sum_c ||b_c||_inf), each row a Gamma({k_plus_one}, 1/beta) "
                "radius times a point uniform in [-1, 1]^{k}: ")

    def noise_law(self, cal: Calibration) -> Noise:
        """One independent sup-norm-Gamma law per class row (E b_j² = (k + 1)(k + 2)/(3β²))."""
        return SupNormGamma(cal.noise_rate)

    def log_density(self, cal: Calibration, noise: np.ndarray) -> float:
        """log of the noise density at ``noise`` of shape (C, k): −β Σ_c ‖b_c‖_∞ − C log Z.

        Z = ∫_{R^k} exp(−β‖x‖_∞) dx = 2^k k!/β^k (the cube of radius r has volume (2r)^k).
        """
        b = np.asarray(noise, dtype=float)
        beta, k = float(cal.noise_rate), b.shape[-1]
        log_z = k * math.log(2.0) + math.lgamma(k + 1.0) - k * math.log(beta)
        rows = b.reshape(-1, k)
        return float(-beta * np.abs(rows).max(axis=1).sum() - rows.shape[0] * log_z)

