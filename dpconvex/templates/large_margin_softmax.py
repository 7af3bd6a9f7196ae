"""Large-margin Gaussian classifier with the softmax (cross-entropy) loss: the template.

Same model as :mod:`dpconvex.templates.large_margin` (one symmetric D × D matrix
Φ_c per class, z = [x; 1]/sqrt(q² + 1) with ||z|| <= 1, class argmin_c zᵀΦ_c z),
trained with the multinomial logistic loss on the scores −a_c, a_c = zᵀΦ_c z:

    ℓ(Φ; z, y) = log Σ_c exp(−a_c) + a_y,

    J(Φ) = (1/n) Σ_i ℓ(Φ; z_i, y_i) + ((lam + Δ)/2) Σ_c ||Φ_c||²_F + (1/n) Σ_c ⟨b_c, Φ_c⟩,

either **unconstrained** (``constrained=False``, the default: smooth and
lam-strongly convex, solved by L-BFGS / Newton-CG to ||∇J|| <= tolerance; the
released matrices are the minimizer plus the common shift tI,
t = max(0, −min_c λ_min(Φ_c)), which makes every block PSD and changes no
prediction because zᵀ(Φ_c + tI)z = zᵀΦ_c z + t||z||² for every c) or over the
PSD cone (``constrained=True``, projected gradient; the convex-domain extension
of Kifer, Smith & Thakurta is then assumed, as for the pairwise template).

Privacy constants (derived in ``docs/privacy/large_margin_softmax.md#privacy-large-margin-softmax``,
||z|| <= 1; for K = 1 below, for K > 1 components per class see
:mod:`~dpconvex.templates.softmax_mixture` and privacy-softmax-mixtures):

* per-record gradient (e_y − p) ⊗ zzᵀ, p = softmax(−a): G = √2;
* per-record Hessian (diag p − ppᵀ) ⊗ vec(zzᵀ)vec(zzᵀ)ᵀ: rank <= C − 1, each
  eigenvalue <= 1/2 (Gershgorin), trace (1 − Σp²)||z||⁴ <= T = 1 − 1/C;
* every per-record gradient lies in the (C − 1)-dimensional subspace
  {Σ_c α_c e_c ⊗ zzᵀ : Σ_c α_c = 0}, fixed by the record: the replace-one
  gradient differences of one pair span at most k = 2(C − 1) dimensions;
* μ = lam from :class:`~dpconvex.objectives.regularizers.Frobenius`.

With ``data_norm=q`` the template first applies the public per-record map
z′ = [x; w q]/(q √(1 + w²)) (``constant_weight`` w, privacy-softmax-feature-map; ||z′|| <= 1) and learns Φ′
for z′; :meth:`LargeMarginSoftmaxTemplate.release_shift` returns Φ = SΦ′S for the
original z (then the PSD shift). With ``feature_map`` (a
:class:`~dpconvex.templates.feature_map.FeatureMap`, privacy-feature-map-structures) it
learns Θ ∈ R^{C×m} on a public u(x), ||u|| <= 1, instead (same constants), released as
Φ_c for z.

Every data access goes through the parameterization's ``space.forms(Z, Φ)`` and
``space.adjoint(Z, W)`` (so a design operator that implements them, e.g. rows
on Dask workers, serves this template unchanged), except on the public feature map
linear in z with the rows in memory (``structure="linear"``, an array or
:class:`~dpconvex.templates.large_margin_rows.AugmentedRows`): there the scores, the
softmax and the adjoint of each block of rows are computed together, so an objective
and its gradient read the rows once (two classes: through the difference of the two
scores, one matrix-vector product each way), and the dense Hessian (p <= 128) is one
weighted Gram pass, or a pass over every k-th record for the sampled Hessian that the
native solver's Newton steps use on many rows.

References
----------
.. [SS] F. Sha, L. K. Saul. Large Margin Gaussian Mixture Modeling for Phonetic
   Classification and Recognition. ICASSP 2006.
.. [PR10] M. A. Pathak, B. Raj. Large Margin Multiclass Gaussian Classification
   with Differential Privacy. PSDM 2010.
.. [CMS] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially Private
   Empirical Risk Minimization. JMLR 12 (2011), Alg. 2.
.. [KST] D. Kifer, A. Smith, A. Thakurta. Private Convex Empirical Risk
   Minimization and High-dimensional Regression. COLT 2012, Thm. 2.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import check_float
from ..errors import DataValidationError, ParameterError, PrivacyError
from ..objectives.regularizers import Frobenius
from ..privacy.certificate import Condition
from .base import PrivacyConstants, natural_residual, needs_of, sample_step
from .feature_map import FeatureMap, FeatureMapSpace
from .large_margin_rows import AugmentedRows
from .parameterizations import (
    FullPSD,
    QuadraticParameterization,
    SymmetricShift,
    project_psd,
    psd_shift,
)
from .softmax_mixture import active_scores, mixture_constants, softmax_constants, softmax_rows

__all__ = [
    "CONSTANT_WEIGHT",
    "SOFTMAX_RESIDUAL_TOL",
    "feature_scale",
    "LargeMarginSoftmaxTemplate",
    "SoftmaxPrivacyConstants",
    "softmax_constants",
]

#: Weight w of the constant coordinate relative to the largest ||x||
#: (privacy-softmax-feature-map): the template uses z' = [x; w q]/(q sqrt(1 + w²));
#: chosen on validation splits of training data.
CONSTANT_WEIGHT = 0.25


def feature_scale(D: int, data_norm: float | None, constant_weight: float) -> np.ndarray:
    """Column scales S of z' = S z for z = [x; 1]/sqrt(q² + 1): z' = [x; w q]/(q sqrt(1 + w²)).

    ||z'||² = (||x||² + w²q²)/(q²(1 + w²)) <= 1 for ||x|| <= q (public q, public w > 0).
    ``data_norm=None``: the identity (Z used as given).

    Examples
    --------
    >>> from dpconvex.templates.large_margin_softmax import feature_scale
    >>> feature_scale(4, data_norm=1.0, constant_weight=0.25).round(4)
    array([1.372, 1.372, 1.372, 0.343])
    """
    s = np.ones(D)
    if data_norm is None:
        return s
    q, w = float(data_norm), float(constant_weight)
    if not (q > 0 and w > 0 and math.isfinite(q) and math.isfinite(w)):
        raise ParameterError(f"feature_scale: need data_norm > 0 and constant_weight > 0; got "
                             f"{data_norm!r}, {constant_weight!r}.")
    r = math.sqrt(q * q + 1.0)
    s[:-1] = r / (q * math.sqrt(1.0 + w * w))
    s[-1] = w * q * r / (q * math.sqrt(1.0 + w * w))
    return s


#: Up to this dimension the template on a public feature map linear in z offers the dense
#: Hessian (capability ``"hessian"``, one weighted-Gram pass over the rows): the native
#: backend then finishes L-BFGS with Newton steps on it instead of Newton-CG, whose every
#: conjugate-gradient step reads the rows once more.
DENSE_HESSIAN_MAX_P = 128



#: Largest optimality residual at which a solve counts as the exact minimizer
#: (||∇J||_F unconstrained; the natural residual over the PSD cone otherwise).
SOFTMAX_RESIDUAL_TOL = 1e-6


@dataclass(frozen=True)
class SoftmaxPrivacyConstants(PrivacyConstants):
    """:class:`PrivacyConstants` plus the dimension of one record's gradient subspace.

    Attributes
    ----------
    gradient_span_dimension : int
        m: every per-record gradient ∇ℓ(θ; z, y), for every θ, lies in a subspace
        of dimension <= m that depends only on the record (C − 1 for the softmax
        loss). The replace-one differences of one pair then lie in a fixed
        subspace of dimension <= 2m (docs/privacy/large_margin_softmax.md#privacy-softmax-gaussian-objective).
    softmax_classes : int
        C when the per-record gradient is (e_y − p) ⊗ zzᵀ with ||z|| <= 1 (the softmax
        form the bound of :mod:`~dpconvex.privacy.accounting.softmax_gaussian` uses); 0 else.

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex.data.preprocess import augment_and_scale
    >>> rng = np.random.default_rng(0)
    >>> Z = augment_and_scale(rng.normal(size=(30, 3)) / 3.0, data_norm=1.0)
    >>> y = np.arange(30) % 3
    >>> from dpconvex.templates.large_margin_softmax import (
    ...     LargeMarginSoftmaxTemplate, SoftmaxPrivacyConstants)
    >>> consts = LargeMarginSoftmaxTemplate(Z, y, n_classes=3, lam=0.5).privacy_constants()
    >>> isinstance(consts, SoftmaxPrivacyConstants), consts.gradient_span_dimension, consts.softmax_classes
    (True, 2, 3)
    """

    gradient_span_dimension: int = 0
    softmax_classes: int = 0


def _contiguous_rows(Z: np.ndarray) -> np.ndarray:
    """Z as C-contiguous float64 rows; a broadcast constant (a plan's shape-only rows) as is."""
    Z = np.asarray(Z, dtype=float)
    if Z.ndim == 2 and Z.strides == (0, 0):  # one value for every entry: nothing to lay out
        return Z
    return np.ascontiguousarray(Z)


class LargeMarginSoftmaxTemplate:
    """Softmax-loss large-margin Gaussian (mixture) classifier, unconstrained or PSD-constrained.

    Parameters
    ----------
    Z : array of shape (n, D)
        Augmented, scaled records, ||z_i|| <= 1
        (:func:`~dpconvex.data.preprocess.augment_and_scale`).
    y : ndarray of shape (n,)
        Class indices in {0, ..., C − 1}.
    n_classes : int
        C >= 2.
    lam : float
        μ >= 0, modulus of (lam/2) Σ||Φ_c||²_F (> 0 for any private mechanism).
    n_components : int
        K >= 1; K > 1 needs ``components`` (public assignment) and constrained=False
        (privacy-softmax-mixtures).
    constrained : bool
        False (default): unconstrained, smooth (capabilities ``smooth``, ``hessp``);
        True: over the PSD cone (capability ``projection``).
    assignment : str
        Certificate text for the component assignment (trivial for K = 1).
    parameterization : class or None
        The form of Φ, built as ``cls(C, K, D)``: a
        :class:`~dpconvex.templates.parameterizations.QuadraticParameterization` (default:
        :class:`~dpconvex.templates.parameterizations.SymmetricShift` unconstrained,
        :class:`~dpconvex.templates.parameterizations.FullPSD` constrained; every form in
        :data:`~dpconvex.templates.parameterizations.PARAMETERIZATIONS` qualifies).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex.data.preprocess import augment_and_scale
    >>> rng = np.random.default_rng(0)
    >>> Z = augment_and_scale(rng.normal(size=(30, 3)) / 3.0, data_norm=1.0)
    >>> y = np.arange(30) % 3
    >>> from dpconvex.templates.large_margin_softmax import LargeMarginSoftmaxTemplate
    >>> template = LargeMarginSoftmaxTemplate(Z, y, n_classes=3, lam=0.5)
    >>> template.space.shape
    (48,)
    >>> consts = template.privacy_constants()
    >>> round(consts.grad_bound, 4), consts.hessian_rank, consts.softmax_classes
    (1.4142, 2, 3)
    """

    name = "large-margin Gaussian classifier (softmax loss)"
    kind = "large_margin"
    #: Where the constants of this class are derived (a subclass is checked as a user's
    #: template, docs/privacy/user_objectives.md#privacy-user-objectives).
    derivation = "docs/privacy/large_margin_softmax.md#privacy-large-margin-softmax"
    residual_tol = SOFTMAX_RESIDUAL_TOL

    def __init__(self, Z: Any, y: np.ndarray, components: np.ndarray | None = None, *,
                 n_classes: int, lam: float, n_components: int = 1, constrained: bool = False,
                 assignment: str = "trivial (one component per class)",
                 parameterization: type[QuadraticParameterization] | None = None,
                 data_norm: float | None = None,
                 constant_weight: float = CONSTANT_WEIGHT, feature_map: FeatureMap | None = None):
        owner = type(self).__name__
        # an ndarray is laid out as C-contiguous rows; AugmentedRows (the stored rows with the
        # per-record scale and constant, no copy) and design operators (Dask) are kept as given
        self.Z = Z if not isinstance(Z, np.ndarray) else _contiguous_rows(Z)
        if len(self.Z.shape) != 2 or self.Z.shape[1] < 2:
            raise DataValidationError(
                f"{owner}.__init__: Z must be 2-D (n, d + 1) with the appended constant; got shape "
                f"{self.Z.shape}. Build it with augment_and_scale(X, data_norm).")
        # the public feature map of privacy-softmax-feature-map: z' = S z, S = diag(α, ..., α, β), ||z'|| <= 1
        self.feature_map = feature_map  # or u(x) of privacy-feature-map-structures on the unscaled z
        if feature_map is not None and (constrained or feature_map.d + 1 != self.Z.shape[1]):
            raise ParameterError(f"{owner}.__init__: a feature map needs constrained=False and D = d + 1 "
                                 f"= {feature_map.d + 1} columns; got {self.Z.shape[1]}.")
        self.scale = feature_scale(self.Z.shape[1], data_norm, constant_weight)
        self.constant_weight = (float(constant_weight) if data_norm is not None
                                and feature_map is None else None)
        if data_norm is not None and feature_map is None:
            self.Z = (self.Z.rescaled(1.0, self.scale[0], self.scale[-1])
                      if isinstance(self.Z, AugmentedRows) else self.Z * self.scale)
        self.n, self.D = (int(s) for s in self.Z.shape)
        self.d = self.D - 1
        self.C, self.K = int(n_classes), int(n_components)
        if self.C < 2:
            raise ParameterError(f"{owner}.__init__: n_classes must be >= 2; got {self.C}. Pass at "
                                 "least two classes.")
        self.y = np.asarray(y).astype(np.int64)
        if self.y.shape != (self.n,) or self.y.min() < 0 or self.y.max() >= self.C:
            raise DataValidationError(
                f"{owner}.__init__: y must hold n = {self.n} class indices in [0, {self.C - 1}].")
        self.regularizer = Frobenius(check_float("lam", lam, owner, low_inclusive=True))
        self.constrained = bool(constrained)
        self.assignment = assignment
        default = FullPSD if self.constrained else SymmetricShift
        self.space: QuadraticParameterization = (parameterization or default)(self.C, self.K,
                                                                              self.D)
        if feature_map is not None:
            self.space = FeatureMapSpace(feature_map, self.C * self.K, self.space)
        self.capabilities = frozenset({"objective", "projection"} if self.constrained
                                      else {"objective", "smooth", "hessp"})
        target, self._logmask = active_scores(self.y, components, self.C, self.K, f"{owner}.__init__",
                                              self.constrained)  # mask: None for K = 1
        # flat index of each record's target score in a C-contiguous (n, C·K) array
        self._target_flat = np.arange(self.n, dtype=np.int64) * (self.C * self.K) + target
        self._buffers: dict[str, np.ndarray] = {}  # (n, C·K) and (n,) work arrays, reused
        self._gram_norm: float | None = None
        self._linear: tuple[AugmentedRows, np.ndarray] | None = None  # built at the first use
        self._last: tuple[Any, ...] | None = None  # the last objective call and its value
        self._sample_step = sample_step(self.n, self.dimension)
        if self._linear_map() and self.space.dimension <= DENSE_HESSIAN_MAX_P:
            self.capabilities = self.capabilities | {"hessian"}
            if self._sample_step:
                self.capabilities = self.capabilities | {"sampled_hessian"}

    # ------------------------------------------------------------------ shapes
    @property
    def lam(self) -> float:
        return self.regularizer.lam

    @property
    def noise_shape(self) -> tuple[int, ...]:
        """(C, K, D, D): one symmetric noise block per (class, component); may store Φ flat."""
        return self.space.blocks

    @property
    def noise_symmetric(self) -> bool:
        return self.space.symmetric

    @property
    def dimension(self) -> int:
        return self.space.dimension

    @property
    def gradient_difference_rank(self) -> int:
        """k = 2(C − 1)K: dimension of a subspace holding one pair's gradient differences.

        Only for the unconstrained template: the Gaussian bound (★) uses the
        change of variables b = −n∇J(Φ) at an unconstrained minimizer.
        """
        if self.constrained:
            raise PrivacyError(
                f"{type(self).__name__}.gradient_difference_rank: unconstrained minimizer: "
                "Gaussian objective perturbation uses the change of variables b = -n grad J(Phi), "
                "valid for an unconstrained minimizer; build the template with "
                "constrained=False "
                "(docs/privacy/large_margin_softmax.md#privacy-softmax-gaussian-objective).")
        # privacy-softmax-gaussian-objective (K = 1), privacy-softmax-mixtures
        return 2 * (self.C - 1) * self.K

    # ----------------------------------------------------------------- privacy
    def privacy_constants(self) -> SoftmaxPrivacyConstants:
        """G = √2, r = S − 1, c_u = 1/2, T = 1 − 1/S, m = S − 1, S = 1 + (C − 1)K
        (privacy-softmax-constants, privacy-softmax-mixtures)."""
        k = mixture_constants(self.C, self.K)
        fields = {f.name for f in dataclasses.fields(SoftmaxPrivacyConstants)}
        kw = {key: v for key, v in k.items() if key in fields}
        return SoftmaxPrivacyConstants(strong_convexity=self.regularizer.strong_convexity,
                                       dimension=self.dimension, **kw)

    def conditions(self, needs: Iterable[str] | str) -> list[Condition]:
        """Conditions of the proof; raises PrivacyError on the first failure."""
        needs = needs_of(needs)
        conds: list[Condition] = []
        if "strong_convexity" in needs and not self.lam > 0:
            raise PrivacyError(
                f"{type(self).__name__}.conditions: strong convexity: lam = {self.lam:g}; the "
                "perturbation proofs need the "
                "objective to be strongly convex (the softmax loss is not): use lam > 0 or "
                "lam='auto'.")
        if "unconstrained" in needs and self.constrained:
            raise PrivacyError(
                f"{type(self).__name__}.conditions: unconstrained minimizer: Gaussian objective "
                "perturbation uses the change of "
                "variables b = -n grad J(Phi), valid for an unconstrained minimizer; use "
                "structure='unconstrained'.")
        r, where = (self.C - 1) * self.K, ("privacy-softmax-constants" if self.K == 1 else
                                           "privacy-softmax-mixtures, K > 1")
        conds.append(Condition(
            "softmax loss constants", True, f"derived (docs/privacy.md {where})",
            f"G = sqrt(2), Hessian rank <= {r}, eigenvalues <= 1/2, trace <= "
            f"1 - 1/S = {1 - 1 / (r + 1):.6g} (S = {r + 1} active scores), gradient subspace "
            f"dimension {r}"))
        fm = self.feature_map
        zmax = self._max_row_norm() if fm is None else float(np.max(self._feature_norms()))
        ok, name = zmax <= 1.0 + 1e-12, ("z = [x; 1]/sqrt(q^2 + 1)" if fm is None else "u(x)")
        conds.append(Condition(
            "record norm bound", ok, "checked on the scaled records",
            f"every {name} has ||{name[0]}|| <= 1" if ok
            else f"a record has ||{name[0]}|| > 1: clip x to ||x|| <= q and scale "
                 "with augment_and_scale(X, q)"))
        if not ok:
            raise PrivacyError(f"{type(self).__name__}.conditions: record norm bound: "
                               f"{conds[-1].detail}")
        return conds

    def _feature_norms(self) -> np.ndarray:
        """||u_i|| of every record; for :class:`AugmentedRows` from their stored norms (no pass)."""
        fm = self.feature_map
        assert fm is not None
        if not isinstance(self.Z, AugmentedRows) or fm.structure == "diagonal":
            return fm.feature_norms(self.Z)
        q = float(fm.data_norm)
        wq, wl, wc = fm.weights
        s2 = self.Z.head_norms() ** 2 * ((q * q + 1.0) / (q * q))  # ||x̂||², x̂ = (r/q) z_x
        t2 = self.Z.column ** 2 * (q * q + 1.0)  # t = r z_1
        return np.sqrt(wq * wq * s2 * s2 + wl * wl * t2 * s2 + wc * wc * t2 * t2) / fm.norm

    def _max_row_norm(self) -> float:
        norms = getattr(self.Z, "row_norms", None)
        if callable(norms):  # a design operator computes its row norms where the rows live
            return float(np.max(norms()))
        return float(np.max(np.linalg.norm(np.asarray(self.Z), axis=1)))

    def assumptions(self, needs: Iterable[str] | str) -> list[str]:
        """What the guarantee assumes, for the certificate."""
        a = [
            "adjacency: datasets differing in one record (replace-one)",
            "rows clipped to the public norm bound q and mapped to z = [x; 1]/sqrt(q^2 + 1), "
            "so ||z|| <= 1; preprocessing that reads the data is not covered",
            f"component assignment: {self.assignment}",
            "loss: softmax (cross-entropy) on the scores -z'Phi_c z "
            "(docs/privacy/large_margin_softmax.md#privacy-softmax-constants)",
        ]
        if self.constant_weight is not None:
            a.append(f"public feature map z' = [x; w q]/(q sqrt(1 + w^2)), w = "
                     f"{self.constant_weight:g}, ||z'|| <= 1; Phi released for z = [x; 1]/"
                     "sqrt(q^2 + 1) as S Phi' S "
                     "(docs/privacy/large_margin_softmax.md#privacy-softmax-feature-map)")
        if self.feature_map is not None:
            a[3] = ("loss: softmax (cross-entropy) on the scores -<Theta_c, u(x)> "
                    "(privacy-softmax-constants, privacy-feature-map-structures)")
            a.append(self.feature_map.describe())
        if self.constrained:
            a.append(
                "PSD constraints: the guarantee relies on the extension of objective perturbation "
                "to convex sets by Kifer, Smith & Thakurta (COLT 2012, Thm. 2), stated for "
                "rank-one Hessians and extended to rank C - 1 by dpconvex's trace bound "
                "(docs/privacy/large_margin.md#privacy-lm-psd-constraint)")
        else:
            a.append(
                "unconstrained, smooth, strongly convex objective: b -> Phi is a bijection "
                "(change of variables of CMS, no convex-domain extension); the released Phi is "
                "the minimizer plus the common shift t*I, t = max(0, -min eigenvalue over the "
                "classes), which makes every block PSD and changes no prediction "
                "(docs/privacy/large_margin_softmax.md#privacy-softmax-psd-shift)")
        a.append("the released Phi is the minimizer of the perturbed objective, accepted only "
                 f"when its optimality residual is <= {self.residual_tol:g}")
        return a

    # ---------------------------------------------------------------- numerics
    @property
    def _onehot(self) -> np.ndarray:
        """The (n, C·K) indicator of each record's target score (built on demand)."""
        Y = np.zeros((self.n, self.C * self.K))
        Y.ravel()[self._target_flat] = 1.0
        return Y

    def _buffer(self, name: str, shape: tuple[int, ...]) -> np.ndarray:
        buf = self._buffers.get(name)
        if buf is None or buf.shape != shape:
            buf = self._buffers[name] = np.empty(shape)
        return buf

    def _softmax(self, A: np.ndarray, out: np.ndarray) -> np.ndarray:
        """p = softmax(−a) over the active set, written to ``out``; returns log Σ exp(−a)."""
        np.negative(A, out=out)
        if self._logmask is not None:  # inactive scores: −inf
            out += self._logmask
        return softmax_rows(out, self._buffer("lse", (self.n,)))

    def _probs(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Scores a = (z_iᵀΦ_j z_i), shape (n, C·K), and p = softmax(−a) over the active set."""
        A = self.space.forms(self.Z, theta.reshape(self.noise_shape))  # (n, C·K)
        P = np.empty(np.shape(A))
        self._softmax(A, P)
        return A, P

    # ------------------------------------------- the feature map linear in z, in one pass
    def _linear_map(self) -> bool:
        """Whether the scores are linear in z with rows in memory (``structure="linear"``).

        Then ⟨Θ_c, u_i⟩ = ρ_i (k ∘ Θ_c) · z_i with ρ_i = r z_{i,1} (r = sqrt(q² + 1)) and the
        public column weights k of :class:`~.feature_map.FeatureMapSpace`: the objective, its
        gradient and a Hessian-vector product each read the rows once
        (:meth:`AugmentedRows.forms_adjoint`).
        """
        fm = self.feature_map
        return (fm is not None and fm.structure == "linear"
                and isinstance(self.Z, (np.ndarray, AugmentedRows)))

    def _linear_rows(self) -> tuple[AugmentedRows, np.ndarray]:
        """(the rows ρ_i z_i, as views of the stored rows; the column weights k)."""
        if self._linear is None:
            fm = self.feature_map
            assert fm is not None
            q, N = float(fm.data_norm), fm.norm
            r = math.sqrt(q * q + 1.0)
            _, wl, wc = fm.weights
            k = np.full(fm.d + 1, wl * r / (q * N))
            k[-1] = wc * r / N
            rows = self.Z if isinstance(self.Z, AugmentedRows) else AugmentedRows.from_array(self.Z)
            self._linear = (rows.rescaled(rows.column * r), k)
        return self._linear

    def _softmax_block(self, F: np.ndarray, rows: slice, P: np.ndarray,
                       lse: np.ndarray | None = None) -> np.ndarray:
        """p = softmax(−F) over the active set of a block of rows, written to ``P``; its lse."""
        np.negative(F, out=P)
        if self._logmask is not None:
            P += self._logmask[rows]
        return softmax_rows(P, lse)

    @property
    def _binary(self) -> bool:
        """Two scores, both active: the loss reads their difference only (one product each way)."""
        return self.C * self.K == 2 and self._logmask is None

    def _data_binary(self, Phi: np.ndarray) -> tuple[float, np.ndarray]:
        """Two classes: ℓ_i = log(1 + exp(σ_i δ_i)), δ_i = a_1 − a_0, σ_i = ±1 (y_i = 1 / 0).

        The softmax loss of the two scores, log(e^{−a_0} + e^{−a_1}) + a_y, read through
        the difference δ = ρ z·(k ∘ (Θ_1 − Θ_0)): one matrix-vector product each way. With
        e = exp(−|δ|) and h = 1/(1 + e) = sigmoid(|δ|): ℓ = log1p(e) + (σδ + |δ|)/2, and
        dℓ/da_1 = [y = 1] − p_1 = (y − 1/2) + copysign(h − 1/2, δ) = −dℓ/da_0, so the
        gradient is +g for Θ_1 and −g for Θ_0. h is kept for :meth:`hessp` (p_0 p_1 = h(1 − h)).
        """
        rows, k = self._linear_rows()
        n = self.n
        half = self._buffers.get("sign")
        if half is None:  # y − 1/2 = σ/2
            half = self._buffers["sign"] = np.where(self.y == 1, 0.5, -0.5)
        h = self._buffer("scores", (n,))
        tmp = np.empty(min(n, rows.block_rows()))
        total = [0.0]

        def weights(F: np.ndarray, sl: slice) -> np.ndarray:
            t = tmp[:F.shape[0]]
            hb = h[sl]
            np.abs(F, out=t)
            total[0] += 0.5 * float(np.sum(t)) + float(F @ half[sl])  # Σ (|δ| + σδ)/2
            np.negative(t, out=t)
            np.exp(t, out=t)  # e in (0, 1]
            np.add(t, 1.0, out=hb)
            np.log1p(t, out=t)
            total[0] += float(np.sum(t))
            np.reciprocal(hb, out=hb)  # h = sigmoid(|δ|)
            np.subtract(hb, 0.5, out=t)
            np.copysign(t, F, out=F)
            F += half[sl]
            F *= 1.0 / n
            return F

        g = rows.forms_adjoint((Phi[1] - Phi[0]) * k, weights) * k
        self._scores_at = Phi.copy()
        return total[0] / n, np.stack([-g, g])

    def _data_linear(self, Phi: np.ndarray) -> tuple[float, np.ndarray]:
        """(1/n) Σ_i ℓ_i and its gradient (C·K, m) in one pass; p kept for :meth:`hessp`."""
        if self._binary:
            return self._data_binary(Phi)
        rows, k = self._linear_rows()
        n, J = self.n, Phi.shape[0]
        P = self._buffer("scores", (n, J))
        lse = self._buffer("lse", (n,))
        total = [0.0]

        def weights(F: np.ndarray, sl: slice) -> np.ndarray:
            target = self._target_flat[sl] - sl.start * J  # within the block
            lb = self._softmax_block(F, sl, P[sl], lse[sl])
            total[0] += float(np.sum(lb)) + float(np.sum(F.ravel()[target]))
            np.negative(P[sl], out=F)  # dℓ/da = [j = target] − p, over n
            F.ravel()[target] += 1.0
            F /= n
            return F

        G = rows.forms_adjoint(Phi * k, weights) * k
        self._scores_at = Phi.copy()
        return total[0] / n, G

    def _probs_linear(self, Phi: np.ndarray) -> np.ndarray:
        """p at Φ, shape (n, C·K) (two classes: sigmoid(|δ|), shape (n,)), an array of the
        caller's own (from the last objective at Φ)."""
        at = getattr(self, "_scores_at", None)
        if at is not None and np.array_equal(at, Phi) and "scores" in self._buffers:
            self._scores_at = None
            return self._buffers.pop("scores")  # the next objective allocates its own
        if self._binary:
            self._data_binary(Phi)
            self._scores_at = None
            return self._buffers.pop("scores")
        rows, k = self._linear_rows()
        P = np.empty((self.n, Phi.shape[0]))

        def keep(F: np.ndarray, sl: slice) -> np.ndarray:
            self._softmax_block(F, sl, P[sl])
            F[:] = 0.0
            return F

        rows.forms_adjoint(Phi * k, keep)
        return P

    def _cached(self, Phi: np.ndarray, b: Any, reg: float) -> tuple[float, np.ndarray] | None:
        """The value and gradient of the last call when it was at the same (Φ, b, modulus)."""
        last = self._last
        if last is None or last[2] != reg or not np.array_equal(last[0], Phi):
            return None
        if (b is None) != (last[1] is None) or (b is not None and not np.array_equal(
                np.asarray(b, dtype=float).reshape(self.noise_shape), last[1])):
            return None
        return last[3], last[4]

    def objective(self, theta: np.ndarray, b: np.ndarray | None = None,
                  extra_reg: float = 0.0) -> tuple[float, np.ndarray]:
        """J and ∇J (returned in the shape of ``theta``; flat in, flat out).

        One fused, stable log-sum-exp / softmax on a work array reused across calls; on a
        feature map linear in z, one pass over the rows. A repeated call at the same point
        (a solver's last iterate, the release's residual check) returns the value computed.
        """
        shape = np.shape(theta)
        Phi = np.asarray(theta, dtype=float).reshape(self.noise_shape)
        reg = self.regularizer.lam + float(extra_reg)
        hit = self._cached(Phi, b, reg)
        if hit is not None:
            return hit[0], hit[1].reshape(shape).copy()
        if self._linear_map():
            val, grad = self._data_linear(Phi)
        else:
            A = np.asarray(self.space.forms(self.Z, Phi), dtype=float)  # (n, C·K)
            W = self._buffer("scores", A.shape)
            lse = self._softmax(A, W)  # W holds p
            val = float(np.sum(lse) + np.sum(A.ravel()[self._target_flat])) / self.n
            # dℓ/da_c = [c = y] − p_c, over n
            np.negative(W, out=W)
            W.ravel()[self._target_flat] += 1.0
            W /= self.n
            grad = self.space.adjoint(self.Z, W).reshape(self.noise_shape)
        val += 0.5 * reg * float(np.sum(Phi * Phi))
        grad = grad + reg * Phi
        bb = None
        if b is not None:
            bb = np.array(b, dtype=float).reshape(self.noise_shape)
            val += float(np.vdot(bb, Phi)) / self.n
            grad = grad + bb / self.n
        self._last = (Phi.copy(), bb, reg, val, grad.copy())
        return val, grad.reshape(shape)

    def hessp(self, theta: np.ndarray, extra_reg: float = 0.0
              ) -> Callable[[np.ndarray], np.ndarray]:
        """v -> ∇²J(θ) v: (1/n) Σ_i (diag p_i − p_i p_iᵀ) ⊗ z_iz_iᵀ applied, + (lam + Δ) v."""
        Phi = np.asarray(theta, dtype=float).reshape(self.noise_shape)
        reg = self.regularizer.lam + float(extra_reg)
        if self._linear_map():
            rows, k = self._linear_rows()
            Pl = self._probs_linear(Phi)  # the closure's own (outlives later objective calls)
            n = self.n
            if self._binary:  # the difference direction, weight p_0 p_1 = h(1 − h), over n
                Pl *= 1.0 - Pl
                Pl /= n

                def hv_binary(v: np.ndarray) -> np.ndarray:
                    V = np.asarray(v, dtype=float).reshape(self.noise_shape)
                    h = rows.forms_adjoint((V[1] - V[0]) * k, lambda S, sl: S * Pl[sl]) * k
                    return (np.stack([-h, h]) + reg * V).reshape(np.shape(v))

                return hv_binary

            def weights(S: np.ndarray, sl: slice) -> np.ndarray:
                Pb = Pl[sl]
                S -= np.einsum("ij,ij->i", Pb, S)[:, None]
                S *= Pb
                S /= n
                return S

            def hv_linear(v: np.ndarray) -> np.ndarray:
                V = np.asarray(v, dtype=float).reshape(self.noise_shape)
                out = rows.forms_adjoint(V * k, weights) * k + reg * V
                return out.reshape(np.shape(v))

            return hv_linear
        _, P = self._probs(Phi)  # P is the closure's own (outlives later objective calls)

        def hv(v: np.ndarray) -> np.ndarray:
            V = np.asarray(v, dtype=float).reshape(self.noise_shape)
            S = np.array(self.space.forms(self.Z, V), dtype=float)  # own copy: updated in place
            ps = np.einsum("ij,ij->i", P, S)
            S -= ps[:, None]
            S *= P
            S /= self.n
            return (self.space.adjoint(self.Z, S).reshape(V.shape) + reg * V).reshape(np.shape(v))

        return hv

    def hessian(self, theta: np.ndarray, extra_reg: float = 0.0) -> np.ndarray:
        """∇²J(θ) as a dense (p, p) matrix (capability ``"hessian"``: a feature map linear in z).

        (1/n) Σ_i (diag p_i − p_i p_iᵀ) ⊗ (k ∘ ρ_i z_i)(k ∘ ρ_i z_i)ᵀ + (lam + Δ) I, from one
        pass of weighted Gram matrices (one per pair of scores; one in all for two classes).
        """
        return self._hessian_on(theta, extra_reg, 1, bound=False)

    def sampled_hessian(self, theta: np.ndarray, extra_reg: float = 0.0, *,
                        bound: bool = False) -> np.ndarray:
        """An estimate of ∇²J(θ) from every k-th record (capability ``"sampled_hessian"``).

        :meth:`hessian` over the records S = {0, k, 2k, ...} (k up to 20, at least 100
        records per coefficient), averaged over |S|. With ``bound`` the softmax weights
        diag p − ppᵀ are replaced by a majorant at every θ (p_0 p_1 <= 1/4 for two classes,
        (1/2) I otherwise: privacy-softmax-constants), for a safe first Newton step from any start. A solver
        uses it for search directions only; the gradient is always exact.
        """
        return self._hessian_on(theta, extra_reg, max(1, self._sample_step), bound=bound)

    def _hessian_on(self, theta: np.ndarray, extra_reg: float, step: int, *,
                    bound: bool) -> np.ndarray:
        """The (sampled, with ``step`` > 1) Hessian of the feature map linear in z."""
        if not self._linear_map():
            raise ParameterError(f"{type(self).__name__}.hessian: the dense Hessian is offered for a "
                                 "feature map linear in z (structure='linear') only; use hessp.")
        Phi = np.asarray(theta, dtype=float).reshape(self.noise_shape)
        J, m = Phi.shape
        rows, k = self._linear_rows()
        mask = self._logmask
        if step > 1:
            rows = rows.every(step)
            mask = None if mask is None else mask[::step]
        two = J == 2 and mask is None  # p_0 + p_1 = 1: one Gram, weight p_0 p_1
        pairs = [(j, j2) for j in range(J) for j2 in range(j, J)]

        def weights(F: np.ndarray, sl: slice) -> np.ndarray:
            if bound:
                return np.full((F.shape[0], 1), 0.25 if two else 0.5)
            P = np.negative(F)
            if mask is not None:
                P += mask[sl]
            softmax_rows(P)
            if two:
                return (P[:, 0] * P[:, 1])[:, None]
            Wt = np.empty((F.shape[0], len(pairs)))
            for i, (j, j2) in enumerate(pairs):
                np.multiply(P[:, j], -P[:, j2], out=Wt[:, i])
                if j == j2:
                    Wt[:, i] += P[:, j]
            return Wt

        G = rows.forms_gram(Phi * k, weights) * (np.outer(k, k) / max(1, rows.n))
        H = np.zeros((J, m, J, m))
        if two:
            H[0, :, 0, :] = H[1, :, 1, :] = G[0]
            H[0, :, 1, :] = H[1, :, 0, :] = -G[0]
        elif bound:  # (1/2) I ⊗ the Gram: a majorant of diag p − ppᵀ ⊗ the Gram
            for j in range(J):
                H[j, :, j, :] = G[0]
        else:
            for i, (j, j2) in enumerate(pairs):
                H[j, :, j2, :] = G[i]
                H[j2, :, j, :] = G[i].T
        H = H.reshape(J * m, J * m)
        H[np.diag_indices_from(H)] += self.regularizer.lam + float(extra_reg)
        return H

    def residual(self, theta: np.ndarray, b: np.ndarray | None = None,
                 extra_reg: float = 0.0) -> float:
        """||∇J||_F (unconstrained) or the natural residual over the PSD cone."""
        grad = self.objective(theta, b, extra_reg)[1]
        if not self.constrained:
            return float(np.linalg.norm(grad))
        return natural_residual(theta, grad, self.space.project)

    def lipschitz_bound(self, extra_reg: float = 0.0) -> float:
        """μ + Δ + (1/2)·λ_max(M): the data Hessian is <= (1/2)·M
        (privacy-softmax-constants, privacy-lm-solver-accuracy)."""
        if self._gram_norm is None:
            Z = self.Z if isinstance(self.Z, AugmentedRows) else np.asarray(self.Z)
            self._gram_norm = self.space.gram_operator_norm(Z)
        return self.regularizer.strong_convexity + float(extra_reg) + 0.5 * self._gram_norm

    def distance_bound(self, residual: float, mu: float) -> float:
        """||Φ − Φ*||_F from a residual: res/μ unconstrained, (1 + L)/μ·res over the cone (L = μ + 1/2)."""
        if not self.constrained:
            return float(residual) / float(mu)
        return (1.0 + float(mu) + 0.5) / float(mu) * float(residual)

    def postprocess(self, theta: np.ndarray) -> np.ndarray:
        """PSD shift (unconstrained) or PSD projection (constrained); free post-processing."""
        return self.space.postprocess(np.asarray(theta).reshape(self.space.shape))

    def release_shift(self, theta: np.ndarray) -> tuple[np.ndarray, float]:
        """The released matrices for z = [x; 1]/sqrt(q² + 1), SΦ'S, and the common shift t.

        t = 0 when constrained (then the PSD projection); S is the public feature map.
        """
        s = self.scale
        if self.feature_map is not None:
            return psd_shift(self.feature_map.to_blocks(theta)[:, None])
        Phi = np.asarray(theta, dtype=float).reshape(self.noise_shape) * s[:, None] * s[None, :]
        if self.constrained:
            return project_psd(Phi), 0.0
        return psd_shift(Phi)
