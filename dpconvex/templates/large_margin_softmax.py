"""Large-margin Gaussian classifier with the softmax (cross-entropy) loss: the template.

The model of :mod:`dpconvex.templates.large_margin` trained with the multinomial logistic
loss ℓ(Φ; z, y) = log Σ_c exp(−a_c) + a_y on the scores a_c = zᵀΦ_c z, either
unconstrained (default: smooth, lam-strongly convex; released with the common PSD shift
of docs/privacy/large_margin_softmax.md#privacy-softmax-psd-shift) or over the PSD cone
(``constrained=True``, Kifer–Smith–Thakurta). Mixtures (K > 1, a public component per
record, :func:`active_scores`): docs/privacy/large_margin_softmax.md#privacy-softmax-mixtures.

Privacy constants (privacy-softmax-constants, privacy-softmax-mixtures; S = 1 + (C − 1)K
active scores): G = √2, Hessian rank S − 1 with eigenvalues <= 1/2 and trace <= 1 − 1/S,
gradient span k = 2(C − 1)K (``softmax_classes`` is C for K = 1, else 0), μ = lam.

Score column j = c·K + m. ``data_norm`` applies the public map of
privacy-softmax-feature-map (released Φ = SΦ′S, :meth:`LargeMarginSoftmaxTemplate.release_shift`);
``feature_map`` learns on a public u(x) (privacy-feature-map-structures). Data access is
``space.forms`` / ``space.adjoint`` (any design operator, e.g. Dask), fused into one pass
over in-memory rows for ``structure="linear"`` (docs/privacy/data_backends.md#privacy-data-backends).

References
----------
.. [SS] F. Sha, L. K. Saul. Large Margin Gaussian Mixture Modeling for Phonetic
   Classification and Recognition. ICASSP 2006.
.. [PR12] M. A. Pathak, B. Raj. Large Margin Gaussian Mixture Models with Differential
   Privacy. IEEE TDSC 9(4), 2012, eq. 11 (the mixture model and the component
   assignment; the softmax loss and its constants are dpconvex's).
.. [KST] D. Kifer, A. Smith, A. Thakurta. Private Convex Empirical Risk
   Minimization and High-dimensional Regression. COLT 2012, Thm. 2.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import describe_value
from ..errors import DataValidationError, ParameterError, PrivacyError
from ..privacy.certificate import Condition, Line
from .base import PrivacyConstants, needs_of, sample_step
from .feature_map import FeatureMap, FeatureMapSpace
from .large_margin import LargeMarginProblem, softmax_rows
from .large_margin_rows import AugmentedRows
from .parameterizations import (
    FullPSD,
    QuadraticParameterization,
    SymmetricShift,
    project_psd,
    psd_shift,
)

__all__ = [
    "CONSTANT_WEIGHT",
    "SOFTMAX_RESIDUAL_TOL",
    "LargeMarginSoftmaxTemplate",
    "SoftmaxPrivacyConstants",
    "active_scores",
    "feature_scale",
    "mixture_constants",
]

#: Weight w of the constant coordinate relative to the largest ||x||
#: (privacy-softmax-feature-map): the template uses z' = [x; w q]/(q sqrt(1 + w²));
#: chosen on validation splits of training data.
CONSTANT_WEIGHT = 0.25

#: Up to this dimension the template on a public feature map linear in z offers the dense
#: Hessian (capability ``"hessian"``, one weighted-Gram pass over the rows): the native
#: backend then finishes L-BFGS with Newton steps on it instead of Newton-CG, whose every
#: conjugate-gradient step reads the rows once more.
DENSE_HESSIAN_MAX_P = 128

#: Largest optimality residual at which a solve counts as the exact minimizer
#: (||∇J||_F unconstrained; the natural residual over the PSD cone otherwise).
SOFTMAX_RESIDUAL_TOL = 1e-6


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
                             f"{describe_value(data_norm)}, {describe_value(constant_weight)}.")
    r = math.sqrt(q * q + 1.0)
    s[:-1] = r / (q * math.sqrt(1.0 + w * w))
    s[-1] = w * q * r / (q * math.sqrt(1.0 + w * w))
    return s


def mixture_constants(n_classes: int, n_components: int = 1) -> dict[str, float]:
    """G = √2, r = S − 1, c_u = 1/2, T = 1 − 1/S and gradient span m = S − 1 for
    S = 1 + (C − 1)K active scores (privacy-softmax-constants; K > 1: privacy-softmax-mixtures);
    ``softmax_classes`` = C for K = 1, 0 for K > 1 (★★ is derived for K = 1 only).

    Examples
    --------
    >>> from dpconvex.templates.large_margin_softmax import mixture_constants
    >>> c = mixture_constants(3)
    >>> round(c["grad_bound"], 4), c["hessian_rank"], round(c["hessian_trace_bound"], 4)
    (1.4142, 2, 0.6667)
    >>> mixture_constants(3, 2)["hessian_rank"], mixture_constants(3, 2)["softmax_classes"]
    (4, 0)
    """
    C, K = int(n_classes), int(n_components)
    S = 1 + (C - 1) * K  # = C for K = 1
    return {"grad_bound": math.sqrt(2.0), "hessian_rank": S - 1, "hessian_term_bound": 0.5,
            "hessian_trace_bound": 1.0 - 1.0 / S, "gradient_span_dimension": S - 1,
            "softmax_classes": C if K == 1 else 0}


def _check_mixture_form(n_components: int, caller: str, constrained: bool) -> None:
    """Refuse a PSD-constrained softmax mixture (K > 1): derived unconstrained only."""
    if n_components > 1 and constrained:
        raise ParameterError(
            f"{caller}: the softmax mixture (n_components = {n_components}) is derived for the "
            "unconstrained template only "
            "(docs/privacy/large_margin_softmax.md#privacy-softmax-mixtures); "
            "use constrained=False, or n_components=1 for the PSD-constrained softmax template."
        )


def active_scores(y: np.ndarray, components: Any, n_classes: int, n_components: int,
                  caller: str, constrained: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """(target column y·K + m_i per record, additive log-mask of shape (n, C·K) or None).

    The mask is 0 on the active scores and −inf on the K − 1 other components of the true class; None for K =
    1 (every score active). Raises ParameterError for K > 1 with ``constrained=True`` (not derived) and
    DataValidationError for components missing, of the wrong shape or outside [0, K − 1].

    Examples
    --------
    >>> from dpconvex.templates.large_margin_softmax import active_scores
    >>> target, mask = active_scores(np.array([0, 2, 1]), None, 3, 1, "demo", False)
    >>> target, mask is None
    (array([0, 2, 1]), True)
    """
    C, K = int(n_classes), int(n_components)
    y = np.asarray(y, dtype=np.int64)
    if K == 1:
        return y, None
    _check_mixture_form(K, caller, constrained)
    comps = None if components is None else np.asarray(components)
    if comps is None or comps.shape != y.shape or (comps.size and (
            comps.min() < 0 or comps.max() >= K or not np.all(comps == np.round(comps)))):
        raise DataValidationError(
            f"{caller}: n_components = {K} needs one component index in [0, {K - 1}] per "
            "record (components=, e.g. from "
            "dpconvex.estimators.large_margin.components.assign_components)."
        )
    target = y * K + comps.astype(np.int64)
    mask = np.zeros((y.shape[0], C * K))
    rows = np.arange(y.shape[0])
    for m in range(K):
        mask[rows, y * K + m] = -np.inf
    mask[rows, target] = 0.0
    return target, mask


@dataclass(frozen=True)
class SoftmaxPrivacyConstants(PrivacyConstants):
    """:class:`PrivacyConstants` plus the dimension of one record's gradient subspace.

    Attributes
    ----------
    gradient_span_dimension : int
        m: every per-record gradient lies, for every θ, in a subspace of dimension <= m
        that depends only on the record (S − 1), so the replace-one differences of one
        pair lie in a fixed subspace of dimension <= 2m
        (docs/privacy/large_margin_softmax.md#privacy-softmax-gaussian-objective).
    softmax_classes : int
        C when the per-record gradient is (e_y − p) ⊗ zzᵀ with ||z|| <= 1 (the form the
        softmax bound of :mod:`~dpconvex.privacy.accounting.objective_gaussian` uses); 0 else.

    Examples
    --------
    >>> from dpconvex.templates.large_margin_softmax import (
    ...     SoftmaxPrivacyConstants, mixture_constants)
    >>> consts = SoftmaxPrivacyConstants(strong_convexity=0.5, dimension=48, **mixture_constants(3))
    >>> consts.gradient_span_dimension, consts.softmax_classes
    (2, 3)
    """

    gradient_span_dimension: int = 0
    softmax_classes: int = 0

    counts = (*PrivacyConstants.counts, "gradient_span_dimension", "softmax_classes")


class LargeMarginSoftmaxTemplate(LargeMarginProblem):
    """Softmax-loss large-margin Gaussian (mixture) classifier, unconstrained or PSD-constrained.

    Parameters
    ----------
    Z : array of shape (n, D)
        Augmented, scaled records, ||z_i|| <= 1
        (:func:`~dpconvex.data.preprocess.augment_and_scale`), an
        :class:`~dpconvex.templates.large_margin_rows.AugmentedRows` or a design operator.
    y : ndarray of shape (n,)
        Class indices in {0, ..., C − 1}.
    components : ndarray of shape (n,) or None
        Public component index of each record (K > 1 only).
    n_classes, lam, assignment
        As :class:`~dpconvex.templates.large_margin.LargeMarginGaussianTemplate`.
    n_components : int
        K >= 1; K > 1 needs ``components`` and constrained=False (privacy-softmax-mixtures).
    constrained : bool
        False (default): unconstrained, smooth (capabilities ``smooth``, ``hessp``);
        True: over the PSD cone (capability ``projection``).
    parameterization : class or None
        The form of Φ, built as ``cls(C, K, D)`` (default
        :class:`~dpconvex.templates.parameterizations.SymmetricShift` unconstrained,
        :class:`~dpconvex.templates.parameterizations.FullPSD` constrained).
    data_norm, constant_weight : float
        The public map z′ of privacy-softmax-feature-map (None: Z as given).
    feature_map : FeatureMap or None
        A public u(x) (privacy-feature-map-structures); needs constrained=False.

    Examples
    --------
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
    derivation = "docs/privacy/large_margin_softmax.md#privacy-large-margin-softmax"
    residual_tol = SOFTMAX_RESIDUAL_TOL

    def __init__(self, Z: Any, y: np.ndarray, components: np.ndarray | None = None, *,
                 n_classes: int, lam: float, n_components: int = 1, constrained: bool = False,
                 assignment: str = "trivial (one component per class)",
                 parameterization: type[QuadraticParameterization] | None = None,
                 data_norm: float | None = None,
                 constant_weight: float = CONSTANT_WEIGHT, feature_map: FeatureMap | None = None):
        owner = type(self).__name__
        # an ndarray is laid out as C-contiguous rows; AugmentedRows and design operators
        # (Dask) are kept as given
        if isinstance(Z, np.ndarray):
            Z = np.ascontiguousarray(Z, dtype=float)
        self.Z = Z
        self._set_problem(y, n_classes, n_components, lam, assignment)  # reads the shape of Z only
        self._set_objective(constrained, parameterization, data_norm, constant_weight,
                            feature_map)
        if data_norm is not None and feature_map is None:
            self.Z = (self.Z.rescaled(1.0, self.scale[0], self.scale[-1])
                      if isinstance(self.Z, AugmentedRows) else self.Z * self.scale)
        target, self._logmask = active_scores(
            self.y, components, self.C, self.K, f"{owner}.__init__", self.constrained
        )  # mask: None for K = 1
        # flat index of each record's target score in a C-contiguous (n, C·K) array
        self._target_flat = np.arange(self.n, dtype=np.int64) * (self.C * self.K) + target

    @classmethod
    def of_problem(cls, n: int, d: int, *, n_classes: int, lam: float, n_components: int = 1,
                   constrained: bool = False,
                   assignment: str = "trivial (one component per class)",
                   parameterization: type[QuadraticParameterization] | None = None,
                   data_norm: float | None = None, constant_weight: float = CONSTANT_WEIGHT,
                   feature_map: FeatureMap | None = None) -> LargeMarginSoftmaxTemplate:
        """The template of the public problem alone: n records of d features, no records,
        labels or components read.

        Its constants, conditions, assumptions and capabilities are those of the template a
        fit on n records in memory builds (the record norm bound stated as that fit checks it
        on its records); it holds no records and solves nothing (a dry run).

        Parameters
        ----------
        n : int
            Number of records (public).
        d : int
            Number of features (the records' augmented dimension is d + 1).
        n_classes, lam, n_components, constrained, assignment, parameterization
            As :class:`LargeMarginSoftmaxTemplate`.
        data_norm, constant_weight, feature_map
            As :class:`LargeMarginSoftmaxTemplate`.

        Returns
        -------
        LargeMarginSoftmaxTemplate
            The template, its records and labels None.

        Raises
        ------
        ParameterError
            A mixture (K > 1) asked for with constrained=True, or a feature map with it.

        Examples
        --------
        >>> t = LargeMarginSoftmaxTemplate.of_problem(10**12, 3, n_classes=2, lam=0.5)
        >>> t.n, t.dimension, t.Z is None, t.conditions(set())[-1].holds
        (1000000000000, 20, True, True)
        """
        template = cls.__new__(cls)
        template.Z = template.y = None
        template._set_shape(n, d + 1, n_classes, n_components, lam, assignment)
        _check_mixture_form(template.K, f"{cls.__name__}.__init__", constrained)
        template._set_objective(constrained, parameterization, data_norm, constant_weight,
                                feature_map)
        return template

    def _set_objective(self, constrained: bool,
                       parameterization: type[QuadraticParameterization] | None,
                       data_norm: float | None, constant_weight: float,
                       feature_map: FeatureMap | None) -> None:
        """Set the objective of the public problem: the feature map or the public scale of z,
        the space, the capabilities and the sampled Hessian's step (its caches empty)."""
        owner = type(self).__name__
        # the public map of privacy-softmax-feature-map: z' = S z, S = diag(α, ..., α, β), ||z'|| <= 1,
        # or u(x) of privacy-feature-map-structures on the unscaled z
        self.feature_map = feature_map
        if feature_map is not None and (constrained or feature_map.d + 1 != self.D):
            raise ParameterError(
                f"{owner}.__init__: a feature map needs constrained=False and D = d + 1 "
                f"= {feature_map.d + 1} columns; got {self.D}."
            )
        self.scale = feature_scale(self.D, data_norm, constant_weight)
        self.constant_weight = (float(constant_weight) if data_norm is not None
                                and feature_map is None else None)
        self.constrained = bool(constrained)
        default = FullPSD if self.constrained else SymmetricShift
        self.space = (parameterization or default)(self.C, self.K, self.D)
        if feature_map is not None:
            self.space = FeatureMapSpace(feature_map, self.C * self.K, self.space)
        self.capabilities = frozenset({"objective", "projection"} if self.constrained
                                      else {"objective", "smooth", "hessp"})
        self._buffers: dict[str, np.ndarray] = {}  # (n, C·K) and (n,) work arrays, reused
        self._gram_norm: float | None = None
        self._linear: tuple[AugmentedRows, np.ndarray] | None = None  # built at the first use
        self._last: tuple[Any, ...] | None = None  # the last objective call and its value
        self._sample_step = sample_step(self.n, self.dimension)
        if self._linear_map() and self.space.dimension <= DENSE_HESSIAN_MAX_P:
            self.capabilities = self.capabilities | {"hessian"}
            if self._sample_step:
                self.capabilities = self.capabilities | {"sampled_hessian"}

    @property
    def gradient_difference_rank(self) -> int:
        """k = 2(C − 1)K: dimension of a subspace holding one pair's gradient differences.

        Only for the unconstrained template: the Gaussian bound (★) uses the change of
        variables b = −n∇J(Φ) at an unconstrained minimizer.
        """
        if self.constrained:
            raise PrivacyError(
                f"{type(self).__name__}.gradient_difference_rank: unconstrained minimizer: "
                "Gaussian "
                "objective perturbation uses the change of variables b = -n grad J(Phi), valid "
                "for an "
                "unconstrained minimizer; build the template with constrained=False "
                "(docs/privacy/large_margin_softmax.md#privacy-softmax-gaussian-objective)."
            )
        return 2 * (self.C - 1) * self.K

    # ----------------------------------------------------------------- privacy
    def privacy_constants(self) -> SoftmaxPrivacyConstants:
        """The constants of :func:`mixture_constants`, μ = lam and p."""
        return SoftmaxPrivacyConstants(strong_convexity=self.regularizer.strong_convexity,
                                       dimension=self.dimension,
                                       **mixture_constants(self.C, self.K))

    def conditions(self, needs: Iterable[str] | str) -> list[Condition]:
        """Conditions of the proof; raises PrivacyError on the first failure."""
        needs = needs_of(needs)
        owner = type(self).__name__
        if "strong_convexity" in needs and not self.lam > 0:
            raise PrivacyError(
                f"{owner}.conditions: strong convexity: lam = {self.lam:g}; the perturbation "
                "proofs need the "
                "objective to be strongly convex (the softmax loss is not): use lam > 0 or "
                "lam='auto'."
            )
        if "unconstrained" in needs and self.constrained:
            raise PrivacyError(
                f"{owner}.conditions: unconstrained minimizer: Gaussian objective perturbation "
                "uses the change of variables b = -n grad J(Phi), valid for an unconstrained "
                "minimizer; use structure='unconstrained'.")
        r, where = (self.C - 1) * self.K, ("privacy-softmax-constants" if self.K == 1 else
                                           "privacy-softmax-mixtures, K > 1")
        conds = [Condition(
            "softmax loss constants", True, f"derived (docs/privacy.md {where})",
            f"G = sqrt(2), Hessian rank <= {r}, eigenvalues <= 1/2, trace <= 1 - 1/S = "
            f"{1 - 1 / (r + 1):.6g} (S = {r + 1} active scores), gradient subspace dimension {r}")]
        if self.Z is None:  # the public problem alone: stated as its fit checks its records
            conds.append(self._norm_condition(None, *(["u(x)"] if self.feature_map else [])))
        elif self.feature_map is None:
            norms = getattr(self.Z, "row_norms", None)  # a design operator's, where the rows live
            zmax = (float(np.max(norms())) if callable(norms)
                    else float(np.max(np.linalg.norm(np.asarray(self.Z), axis=1))))
            conds.append(self._norm_condition(zmax))
        else:
            norms = self.feature_map.feature_norms(self.Z)
            conds.append(self._norm_condition(float(np.max(norms)), "u(x)"))
        if not conds[-1].holds:
            raise PrivacyError(f"{owner}.conditions: record norm bound: {conds[-1].detail}")
        return conds

    def assumptions(self, needs: Iterable[str] | str) -> list[str | Line]:
        """What the guarantee assumes, for the certificate: adjacency, the record map and the
        component assignment, the softmax loss, the public feature map (a
        :class:`~dpconvex.privacy.certificate.PublicFeatureMap` line) where one is used, the
        proof's form (over the PSD cone, or unconstrained with the PSD shift) and the
        accuracy of the released minimizer.

        Parameters
        ----------
        needs : iterable of str or str
            What the mechanism's proof uses (``mechanism.needs``; not read: the lines are the
            same for every need).

        Returns
        -------
        list of str or Line
            Lines, or typed lines whose fields the certificate keeps.

        Examples
        --------
        >>> t = LargeMarginSoftmaxTemplate.of_problem(10**12, 3, n_classes=2, lam=0.5)
        >>> lines = t.assumptions(get_mechanism("objective").needs)
        >>> len(lines), lines[0]
        (6, 'adjacency: datasets differing in one record (replace-one)')
        """
        a: list[str | Line] = [*self._common_assumptions(),
             "loss: softmax (cross-entropy) on the scores -z'Phi_c z "
             "(docs/privacy/large_margin_softmax.md#privacy-softmax-constants)"]
        if self.constant_weight is not None:
            a.append(
                "public feature map z' = [x; w q]/(q sqrt(1 + w^2)), w = "
                f"{self.constant_weight:g}, "
                "||z'|| <= 1; Phi released for z = [x; 1]/sqrt(q^2 + 1) as S Phi' S "
                "(docs/privacy/large_margin_softmax.md#privacy-softmax-feature-map)"
            )
        if self.feature_map is not None:
            a[3] = ("loss: softmax (cross-entropy) on the scores -<Theta_c, u(x)> "
                    "(privacy-softmax-constants, privacy-feature-map-structures)")
            a.append(self.feature_map.stated())
        if self.constrained:
            a.append(
                "PSD constraints: the guarantee relies on the extension of objective perturbation "
                "to convex sets by Kifer, Smith & Thakurta (COLT 2012, Thm. 2), stated for "
                "rank-one Hessians and extended to rank C - 1 by dpconvex's trace bound "
                "(docs/privacy/large_margin.md#privacy-lm-psd-constraint)")
        else:
            a.append(
                "unconstrained, smooth, strongly convex objective: b -> Phi is a bijection "
                "(change of "
                "variables of CMS, no convex-domain extension); the released Phi is the minimizer "
                "plus the "
                "common shift t*I, t = max(0, -min eigenvalue over the classes), which makes "
                "every block PSD "
                "and changes no prediction "
                "(docs/privacy/large_margin_softmax.md#privacy-softmax-psd-shift)"
            )
        a.append("the released Phi is the minimizer of the perturbed objective, accepted only "
                 f"when its optimality residual is <= {self.residual_tol:g}")
        if getattr(self.Z, "certificate_note", None):  # an out-of-core backend says so
            a.append(self.Z.certificate_note)
        return a

    # ---------------------------------------------------------------- numerics
    def _buffer(self, name: str, shape: tuple[int, ...]) -> np.ndarray:
        buf = self._buffers.get(name)
        if buf is None or buf.shape != shape:
            buf = self._buffers[name] = np.empty(shape)
        return buf

    # ------------------------------------------- the feature map linear in z, in one pass
    def _linear_map(self) -> bool:
        """Whether the scores are linear in z with rows in memory (``structure="linear"``):
        ⟨Θ_c, u_i⟩ = ρ_i (k ∘ Θ_c) · z_i (:meth:`FeatureMap.linear_weights`), so the objective,
        its gradient and a Hessian-vector product each read the rows once."""
        fm = self.feature_map
        return (fm is not None and fm.structure == "linear"  # rows in memory, or none held
                and (self.Z is None or isinstance(self.Z, (np.ndarray, AugmentedRows))))

    def _linear_rows(self) -> tuple[AugmentedRows, np.ndarray]:
        """(the rows ρ_i z_i, as views of the stored rows; the column weights k)."""
        if self._linear is None:
            assert self.feature_map is not None
            r, k = self.feature_map.linear_weights()
            rows = (
                self.Z if isinstance(self.Z, AugmentedRows) else AugmentedRows.from_array(self.Z)
            )
            self._linear = (rows.rescaled(rows.column * r), k)
        return self._linear

    def _softmax_block(self, F: np.ndarray, rows: slice, P: np.ndarray,
                       lse: np.ndarray | None = None) -> np.ndarray:
        """p = softmax(−F) over the active set of a block of rows (inactive scores: −inf),
        written to ``P``; returns log Σ exp(−F)."""
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
        """J and ∇J in the shape of ``theta``: one stable log-sum-exp / softmax on a reused work
        array (one pass over the rows on a feature map linear in z); a repeated call at the
        same point (the release's residual check) returns the value computed."""
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
            lse = self._softmax_block(A, slice(None), W, self._buffer("lse", (self.n,)))  # W: p
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

    def hessp(
        self, theta: np.ndarray, extra_reg: float = 0.0
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
        A = self.space.forms(self.Z, Phi)  # (n, C·K)
        P = np.empty(np.shape(A))  # the closure's own (outlives later objective calls)
        self._softmax_block(A, slice(None), P)

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
        """:meth:`hessian` over every k-th record (k up to 20, at least 100 records per
        coefficient), averaged (capability ``"sampled_hessian"``): search directions only.
        ``bound``: diag p − ppᵀ replaced by a majorant at every θ (p_0 p_1 <= 1/4 for two
        classes, (1/2) I otherwise), for a safe first Newton step from any start."""
        return self._hessian_on(theta, extra_reg, max(1, self._sample_step), bound=bound)

    def _hessian_on(
        self, theta: np.ndarray, extra_reg: float, step: int, *, bound: bool
    ) -> np.ndarray:
        """The (sampled, with ``step`` > 1) Hessian of the feature map linear in z."""
        if not self._linear_map():
            raise ParameterError(
                f"{type(self).__name__}.hessian: the dense Hessian is offered for a "
                "feature map linear in z (structure='linear') only; use hessp."
            )
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
