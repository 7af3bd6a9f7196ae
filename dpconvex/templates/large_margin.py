"""Large-margin Gaussian (mixture) classifier as a declarative PSD template.

The Sha & Saul classifier as Pathak & Raj made it private (PSDM 2010, K = 1; IEEE TDSC
2012, eq. 11, K components per class), calibration corrected: records z = [x; 1]/sqrt(q² + 1)
(||z|| <= 1), one PSD Φ_{c,m} ∈ S^{D} per class and component, class argmin_c min_m zᵀΦ_{c,m}z,
objective J(Φ) (margin loss, trace term, Frobenius regularizer, noise ⟨b, Φ⟩, user
:class:`~dpconvex.objectives.losses.MatrixTerm` terms) over Φ ⪰ 0:
docs/privacy/large_margin.md#privacy-lm-model.

:class:`LargeMarginProblem` (records, labels, classes, μ from
:class:`~dpconvex.objectives.losses.Frobenius`) is shared with
:mod:`dpconvex.templates.large_margin_softmax`; the form of Φ is a parameterization
(:class:`~dpconvex.templates.parameterizations.FullPSD` by default).

Privacy constants (L = loss.deriv_bound, c = loss.curvature; derived in
docs/privacy/large_margin.md#privacy-lm-sensitivity and privacy-lm-jacobian-slack):
G = L·sqrt(C(C − 1)); Hessian rank r = (C − 1)K with c_u = 2c (K = 1) or max(2c, L/2)
(K > 1); μ = 2λ; p = C·K·D(D + 1)/2.

References
----------
.. [SS] F. Sha, L. K. Saul. Large Margin Gaussian Mixture Modeling for Phonetic
   Classification and Recognition. ICASSP 2006; Large margin hidden Markov
   models for automatic speech recognition, NIPS 2006.
.. [PR10] M. A. Pathak, B. Raj. Large Margin Multiclass Gaussian Classification
   with Differential Privacy. ECML/PKDD Workshop on Privacy and Security Issues
   in Data Mining and Machine Learning (PSDM), 2010.
.. [PR12] M. A. Pathak, B. Raj. Large Margin Gaussian Mixture Models with
   Differential Privacy. IEEE TDSC 9(4):463-469, 2012, eq. 11.
.. [CMS] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially Private
   Empirical Risk Minimization. JMLR 12 (2011), Alg. 2.
.. [KST] D. Kifer, A. Smith, A. Thakurta. Private Convex Empirical Risk
   Minimization and High-dimensional Regression. COLT 2012.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import cvxpy as cp
import numpy as np

from .._validation import check_float, describe_value
from ..data.preprocess import augment_and_scale, clip_rows
from ..errors import DataValidationError, ParameterError, PrivacyError
from ..objectives.losses import Frobenius, HuberHinge, Loss, MatrixTerm, probe_term, psi_frobenius
from ..privacy.certificate import Condition
from ..privacy.checks import check_dcp_convex, check_loss, exact_number, solved_loss
from .base import PrivacyConstants, natural_residual, needs_of
from .parameterizations import (
    BlockParameterization,
    FullPSD,
    QuadraticParameterization,
    max_row_norm,
)

__all__ = ["RESIDUAL_TOL", "LargeMarginGaussianTemplate", "LargeMarginProblem", "MatrixTerm",
           "augment_and_scale", "psi_frobenius", "softmax_rows"]

#: Largest natural residual ||Φ − Π_PSD(Φ − ∇J(Φ))||_F at which a solve is accepted as the
#: exact minimizer of the perturbed objective (docs/privacy/large_margin.md#privacy-lm-solver-accuracy).
RESIDUAL_TOL = 1e-6

#: Up to this many scores per row, the row maxima and sums are taken column by column
#: (NumPy's reductions along a short last axis cost several times more per entry).
_COLUMNWISE_MAX_SCORES = 16


def softmax_rows(N: np.ndarray, lse: np.ndarray | None = None) -> np.ndarray:
    """Softmax over the last axis of ``N``, in place; returns the log-sum-exp of every row.

    ``N`` (writeable, C-contiguous float64, shape (..., S)) is overwritten with
    p = softmax(N): the row maxima m, then exp(N − m) and its row sums s, then N / s; the
    result is m + log s (written to ``lse`` when given). Every exponent is <= 0; entries
    of −inf (inactive scores) give p = 0 as long as every row has a finite entry.

    Examples
    --------
    >>> from dpconvex.templates.large_margin import softmax_rows
    >>> N = np.array([[0.0, np.log(3.0)], [1000.0, 1000.0]])
    >>> softmax_rows(N).round(6).tolist(), N.round(6).tolist()
    ([1.386294, 1000.693147], [[0.25, 0.75], [0.5, 0.5]])
    """
    if not (N.flags.c_contiguous and N.flags.writeable and N.dtype == np.float64):
        raise ParameterError(
            "softmax_rows: it works in place, so N must be a writeable, C-contiguous "
            f"float64 array; got dtype {N.dtype}. Pass np.array(N, dtype=float)."
        )
    S = N.shape[-1]
    R = N.reshape(-1, S)  # a view: N is C-contiguous
    out = np.empty(R.shape[0]) if lse is None else lse.reshape(-1)
    columnwise = S <= _COLUMNWISE_MAX_SCORES
    if columnwise:
        np.copyto(out, R[:, 0])
        for j in range(1, S):
            np.maximum(out, R[:, j], out=out)
    else:
        np.max(R, axis=1, out=out)
    R -= out[:, None]
    np.exp(R, out=R)
    if columnwise:
        s = R[:, 0].copy()
        for j in range(1, S):
            s += R[:, j]
    else:
        s = R.sum(axis=1)
    R /= s[:, None]
    np.log(s, out=s)
    out += s
    return lse if lse is not None else out.reshape(N.shape[:-1])


class LargeMarginProblem:
    """The problem both large-margin templates state: records, labels, classes, modulus.

    The pairwise and the softmax template share the records z (n × D, ||z|| <= 1), the class
    indices y, C, K, the Frobenius regularizer (μ = lam), the parameterization ``space``
    and the certificate's common lines; each adds its loss, constants and numerics.

    Examples
    --------
    >>> from dpconvex.templates import LargeMarginGaussianTemplate
    >>> template = LargeMarginGaussianTemplate(np.eye(4) / 2, np.array([0, 1, 0, 1]), n_classes=2, lam=0.5)
    >>> template.n, template.D, template.C, template.lam, template.dimension
    (4, 4, 2, 0.5, 20)
    """

    kind = "large_margin"
    space: QuadraticParameterization
    # None: computed
    _caches: tuple[str, ...] = ("_cvx", "_gram_norm", "_last", "_linear", "_scores_at")
    #: Over the feasible set of ``space`` (the PSD cone); False: unconstrained (softmax).
    constrained = True

    def _set_problem(self, y: np.ndarray, n_classes: int, n_components: int, lam: float,
                     assignment: str) -> None:
        """Check the records ``self.Z`` and the labels; set n, D, d, C, K, y and the regularizer."""
        owner = type(self).__name__
        if len(self.Z.shape) != 2 or self.Z.shape[1] < 2:
            raise DataValidationError(
                f"{owner}.__init__: Z must be 2-D (n, d + 1) with the appended constant; got "
                "shape "
                f"{self.Z.shape}. Build it with augment_and_scale(X, data_norm)."
            )
        self._set_shape(*self.Z.shape, n_classes, n_components, lam, assignment)
        self.y = np.asarray(y).astype(np.int64)
        if self.y.shape != (self.n,) or self.y.min() < 0 or self.y.max() >= self.C:
            raise DataValidationError(
                f"{owner}.__init__: y must hold n = {self.n} class indices in [0, {self.C - 1}].")

    def _set_shape(self, n: int, D: int, n_classes: int, n_components: int, lam: float,
                   assignment: str) -> None:
        """Set the public problem: n records of D entries, C, K, the regularizer, the
        component assignment."""
        owner = type(self).__name__
        self.n, self.D = int(n), int(D)
        self.d = self.D - 1
        self.C, self.K = int(n_classes), int(n_components)
        if self.C < 2 or self.K < 1:
            raise ParameterError(
                f"{owner}.__init__: n_classes must be >= 2 and n_components >= 1; got {self.C} "
                f"and {self.K}. Pass at least two classes and one component.")
        self.regularizer = Frobenius(check_float("lam", lam, owner, low_inclusive=True))
        self.assignment = assignment

    @property
    def lam(self) -> float:
        """The modulus μ of the regularizer (lam/2) Σ||Φ||²_F (the paper's λ = lam/2)."""
        return self.regularizer.lam

    @property
    def noise_shape(self) -> tuple[int, ...]:
        """One noise block per class and component (``space.blocks``)."""
        return self.space.blocks

    @property
    def noise_symmetric(self) -> bool:
        return self.space.symmetric

    @property
    def dimension(self) -> int:
        """p, the dimension of the parameter (and noise) space."""
        return self.space.dimension

    def _common_assumptions(self) -> list[str]:
        return [
            "adjacency: datasets differing in one record (replace-one)",
            "rows clipped to the public norm bound q and mapped to z = [x; 1]/sqrt(q^2 + 1), "
            "so ||z|| <= 1; preprocessing that reads the data is not covered",
            f"component assignment: {self.assignment}",
        ]

    def objective(self, theta: np.ndarray, b: np.ndarray | None = None,
                  extra_reg: float = 0.0) -> tuple[float, np.ndarray]:
        raise NotImplementedError  # each template's loss

    def residual(
        self, theta: np.ndarray, b: np.ndarray | None = None, extra_reg: float = 0.0
    ) -> float:
        """The optimality residual (same for every backend): ||∇J||_F unconstrained, else the
        natural residual ||Φ − Π(Φ − ∇J(Φ))||_F over the feasible set."""
        grad = self.objective(theta, b, extra_reg)[1]
        if not self.constrained:
            return float(np.linalg.norm(grad))
        return natural_residual(theta, grad, self.space.project)

    def postprocess(self, theta: np.ndarray) -> np.ndarray:
        """The release's post-processing (no privacy cost): the PSD projection, or the common
        PSD shift of an unconstrained form."""
        return self.space.postprocess(np.asarray(theta).reshape(self.space.shape))

    @staticmethod
    def _norm_condition(zmax: float | None, name: str = "z = [x; 1]/sqrt(q^2 + 1)") -> Condition:
        """The record-norm condition: every record (``name``) inside the unit ball (``zmax``
        None: the public problem alone, stated as its fit checks it on the records it maps)."""
        ok = zmax is None or zmax <= 1.0 + 1e-12
        return Condition(
            "record norm bound", ok, "checked on the scaled records",
            f"every {name} has ||{name[0]}|| <= 1" if ok
            else f"a record has ||{name[0]}|| > 1: clip x to ||x|| <= q and scale "
                 "with augment_and_scale(X, q)")


class LargeMarginGaussianTemplate(LargeMarginProblem):
    """Private large-margin Gaussian (mixture) classifier: the pairwise template.

    Parameters
    ----------
    Z : ndarray of shape (n, D)
        Augmented, scaled records, ||z_i|| <= 1 (see :func:`augment_and_scale`).
    y : ndarray of shape (n,)
        Class indices in {0, ..., C − 1}.
    components : ndarray of shape (n,) or None
        Component index m_i in {0, ..., K − 1} of each record within its class
        (None: all 0, required when K = 1). The rule that produced it must read
        only the record and public or already-privatized data
        (:mod:`dpconvex.estimators.large_margin.components`); ``assignment`` describes it.
    n_classes, n_components : int
        C >= 2 and K >= 1.
    lam : float
        μ >= 0, the strong-convexity modulus of ``Frobenius(lam)`` = (lam/2) Σ||Φ||²_F
        (the paper's λ is lam/2; lam > 0 is required for objective perturbation).
    gamma : float
        γ >= 0, weight of the trace term Σ tr(Ψ).
    loss : Loss or None
        Convex margin loss with declared ``deriv_bound`` and ``curvature``; default ``HuberHinge(0.5)``. For K
        > 1 it must be non-increasing (the margin is concave in Φ), which the verifier probes.
    extra_terms : sequence of MatrixTerm
        Additional data-independent convex terms.
    assignment : str
        Human-readable description of the component assignment (certificate).
    parameterization : class or None
        The form of Φ, built as ``cls(C, K, D)`` (default
        :class:`~dpconvex.templates.parameterizations.FullPSD`): a
        :class:`~dpconvex.templates.parameterizations.BlockParameterization`, e.g. any
        form in :data:`~dpconvex.templates.parameterizations.PARAMETERIZATIONS`.

    Attributes
    ----------
    name, kind, n, capabilities, space, noise_shape, noise_symmetric, residual_tol
        The template contract (:mod:`dpconvex.templates.base`).
    regularizer : Frobenius
        The one source of the strong-convexity modulus μ = 2λ.

    Examples
    --------
    >>> from dpconvex.data.preprocess import augment_and_scale
    >>> rng = np.random.default_rng(0)
    >>> Z = augment_and_scale(rng.normal(size=(30, 3)) / 3.0, data_norm=1.0)
    >>> y = np.arange(30) % 3
    >>> from dpconvex.templates import LargeMarginGaussianTemplate
    >>> template = LargeMarginGaussianTemplate(Z, y, n_classes=3, lam=0.5)
    >>> template.space.shape, "cvxpy" in template.capabilities
    ((3, 1, 4, 4), True)
    >>> consts = template.privacy_constants()
    >>> round(consts.grad_bound, 4), consts.hessian_rank, consts.strong_convexity
    (2.4495, 2, 0.5)
    """

    name = "large-margin Gaussian classifier"
    derivation = "docs/privacy/large_margin.md#privacy-large-margin"
    residual_tol = RESIDUAL_TOL
    space: BlockParameterization
    #: Options for the CVXPY backends: the SciPy canonicalization backend (the
    #: default C++ one was by far the slowest at digits size, see CVXPY_NOTES).
    cvxpy_options: dict[str, Any] = {"canon_backend": "SCIPY"}  # noqa: RUF012

    def __init__(self, Z: np.ndarray, y: np.ndarray, components: np.ndarray | None = None, *,
                 n_classes: int, n_components: int = 1, lam: float, gamma: float = 0.0,
                 loss: Loss | None = None, extra_terms: Sequence[MatrixTerm] = (),
                 assignment: str = "trivial (one component per class)",
                 parameterization: type[BlockParameterization] | None = None):
        owner = type(self).__name__
        # records on Dask workers (a DaskGram, dpconvex/estimators/large_margin/dask) stay there; its
        # in_memory flag, read through ``rows``, keeps them from the CVXPY backends
        self.Z = (
            Z if getattr(Z, "in_memory", True) is False else np.ascontiguousarray(Z, dtype=float)
        )
        self.rows = None if isinstance(self.Z, np.ndarray) else self.Z
        self._set_problem(y, n_classes, n_components, lam, assignment)
        comp = np.zeros(self.n, dtype=np.int64) if components is None else np.asarray(components)
        self.components = comp.astype(np.int64)
        if (self.components.shape != (self.n,) or self.components.min() < 0
                or self.components.max() >= self.K):
            raise DataValidationError(
                f"{owner}.__init__: components must hold n = {self.n} indices in [0, "
                f"{self.K - 1}]."
            )
        self._set_objective(gamma, loss, extra_terms, parameterization)
        self._own_col = self.y * self.K + self.components
        self._mask = self.y[:, None] != np.arange(self.C)[None, :]

    @classmethod
    def of_problem(cls, n: int, d: int, *, n_classes: int, n_components: int = 1, lam: float,
                   gamma: float = 0.0, loss: Loss | None = None,
                   extra_terms: Sequence[MatrixTerm] = (),
                   assignment: str = "trivial (one component per class)",
                   parameterization: type[BlockParameterization] | None = None,
                   ) -> LargeMarginGaussianTemplate:
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
        n_classes, n_components, lam, gamma, loss, extra_terms, assignment, parameterization
            As :class:`LargeMarginGaussianTemplate`.

        Returns
        -------
        LargeMarginGaussianTemplate
            The template, its records, labels and components None.

        Examples
        --------
        >>> t = LargeMarginGaussianTemplate.of_problem(10**12, 3, n_classes=2, lam=0.5)
        >>> t.n, t.dimension, t.Z is None, t.conditions({"curvature"})[-1].holds
        (1000000000000, 20, True, True)
        """
        template = cls.__new__(cls)
        template.Z = template.rows = template.y = template.components = None
        template._set_shape(n, d + 1, n_classes, n_components, lam, assignment)
        template._set_objective(gamma, loss, extra_terms, parameterization)
        return template

    def _set_objective(self, gamma: float, loss: Loss | None, extra_terms: Sequence[MatrixTerm],
                       parameterization: type[BlockParameterization] | None) -> None:
        """Set the objective of the public problem: γ, the loss, the extra terms, the space and
        the capabilities (its caches empty)."""
        owner = type(self).__name__
        self.gamma = check_float("gamma", gamma, owner, low_inclusive=True)
        self.loss = HuberHinge(0.5) if loss is None else loss
        if not isinstance(self.loss, Loss):
            raise ParameterError(
                f"The 'loss' parameter of {owner} must be a dpconvex.objectives.losses.Loss (with "
                "value, "
                f"deriv, deriv2, deriv_bound, curvature). Got {describe_value(loss)} instead."
            )
        # a user's loss with a CVXPY form: solved as compiled from it (one form, the bounds')
        self.loss = solved_loss(self.loss)
        self.extra_terms = tuple(extra_terms)
        for t in self.extra_terms:
            if not isinstance(t, MatrixTerm):
                raise ParameterError(
                    f"The 'extra_terms' parameter of {owner} must hold MatrixTerm objects "
                    f"(cvxpy_fn, value_fn, grad_fn). Got {describe_value(t)} instead."
                )
        self.space = (parameterization or FullPSD)(self.C, self.K, self.D)
        self.J = self.C * self.K
        self.capabilities = frozenset({"objective", "projection"}
                                      | ({"cvxpy"} if self.loss.has_cvxpy else set()))
        self._cvx: dict[str, Any] | None = None
        self._gram_norm: float | None = None

    @classmethod
    def from_features(cls, X: np.ndarray, y: np.ndarray, components: np.ndarray | None = None,
                      *, data_norm: float, **kwargs: Any) -> LargeMarginGaussianTemplate:
        """Clip rows of X to the public bound ``data_norm`` and build the template."""
        q = check_float("data_norm", data_norm, cls.__name__)
        Xc, _ = clip_rows(np.asarray(X, dtype=float), q)
        return cls(augment_and_scale(Xc, q), y, components, **kwargs)

    # ----------------------------------------------------------------- privacy
    def _loss_bounds(self, caller: str) -> tuple[float, float]:
        """(L, c): the loss's ``deriv_bound`` and ``curvature``, each read once as a built-in
        float (:func:`~dpconvex.privacy.checks.exact_number`), the numbers the constants and
        the accuracy bounds compute with; a bound of another type (a subclass of float, an
        object with a ``__float__`` of its own) refused by its type (ParameterError), the
        message opened by ``caller``."""
        bounds = []
        for attr in ("deriv_bound", "curvature"):
            value = getattr(self.loss, attr)
            number = exact_number(value)
            if type(number) is not float:
                raise ParameterError(
                    f"{caller}: loss {getattr(self.loss, 'name', '?')!r} declares "
                    f"{attr} as a value of type {type(value).__qualname__}, not a number of an "
                    "exact type (int, float, Fraction, a NumPy scalar): its conversions and "
                    "arithmetic would be its author's, in the checks and in the noise's "
                    f"calibration. Declare {attr} as a built-in float.")
            bounds.append(number)
        return bounds[0], bounds[1]

    def privacy_constants(self) -> PrivacyConstants:
        """G = L·sqrt(C(C−1)), r = (C−1)K, c_u = 2c (K = 1) or max(2c, L/2), μ = 2λ, and the
        Hessian trace bound T = (C−1)(2c + L(1 − 1/K)) of the one-sided slack.

        ||z|| <= 1, L = ``loss.deriv_bound``, c = ``loss.curvature``
        (docs/privacy/large_margin.md#privacy-lm-sensitivity to privacy-lm-jacobian-slack).
        """
        L, c = self._loss_bounds(f"{type(self).__name__}.privacy_constants")
        C, K = self.C, self.K
        c_u = 2.0 * c if K == 1 else max(2.0 * c, 0.5 * L)
        return PrivacyConstants(
            grad_bound=L * math.sqrt(C * (C - 1)),
            hessian_rank=(C - 1) * K,
            hessian_term_bound=c_u,
            strong_convexity=self.regularizer.strong_convexity,
            dimension=self.dimension,
            hessian_trace_bound=(C - 1) * (2.0 * c + L * (1.0 - 1.0 / K)),
        )

    def conditions(self, needs: Iterable[str] | str) -> list[Condition]:
        """The conditions of the proof for a mechanism's ``needs`` (``"strong_convexity"``,
        ``"curvature"``, ... or a mechanism name); PrivacyError on failure."""
        needs = needs_of(needs)
        owner = type(self).__name__
        conds: list[Condition] = []
        if "strong_convexity" in needs and not self.lam > 0:
            raise PrivacyError(
                f"{owner}.conditions: strong convexity: lam = {self.lam:g}, but the mechanism "
                "needs a "
                "strongly convex objective. The Huber loss is not strongly convex and the trace "
                "term gamma "
                "* tr(Psi) is linear, so the objective of Pathak & Raj (PSDM 2010) without the "
                "lam * "
                "||Phi||_F^2 term of the TDSC 2012 version is NOT strongly convex: its minimizer "
                "is not a "
                "bijective function of the noise and the privacy proof fails. Use lam > 0 (e.g. "
                "lam=2e-2)."
            )
        # (1) convexity of the whole CVXPY objective (same structure, public surrogate rows)
        if self.loss.has_cvxpy:
            conds.append(check_dcp_convex(
                self._surrogate_objective(),
                f"the large-margin objective with loss '{self.loss.name}'"
                + (f" and terms {[t.name for t in self.extra_terms]}" if self.extra_terms else ""),
                f"{owner}.conditions"))
        elif self.extra_terms:
            raise PrivacyError(
                f"{owner}.conditions: convexity: extra terms can only be checked through CVXPY, "
                f"but loss '{self.loss.name}' has no cvxpy_expr. Use a loss with a DCP form."
            )
        # (2) the loss's declared constants against its own code; ℓ'' for every mechanism: a residual
        # certifies a smooth objective's minimizer only, and ρ over the cone reads c
        conds += check_loss(self.loss, need_curvature=True, caller=f"{owner}.conditions")
        if self.K > 1:
            conds.append(self._probe_monotone())
        # (3) extra terms: gradient consistent with value (differentiable, as declared)
        for t in self.extra_terms:
            conds.append(probe_term(t, self.noise_shape))
        # (4) records inside the unit ball (per chunk for Dask records: a check, not a calibration)
        conds.append(self._norm_condition(None if self.Z is None else max_row_norm(self.Z)))
        # (5) the Hessian-term bound needs ℓ'' bounded (objective perturbation)
        if "curvature" in needs and self.K > 1:
            conds.append(Condition(
                "mixture Hessian term", True,
                "derived (docs/privacy/large_margin.md#privacy-lm-jacobian-slack)",
                "ℓ'·(log-sum-exp Hessian) has rank <= K - 1 and eigenvalues <= L/2 "
                "(Gershgorin on diag(p) - p pᵀ)",
            ))
        return conds

    def assumptions(self, needs: Iterable[str] | str) -> list[str]:
        """What the guarantee assumes, for the certificate."""
        needs = needs_of(needs)
        a = [*self._common_assumptions(),
             "noise: a distinct symmetric matrix b_{c,m} per class and component (not one b "
             "shared by all classes), the blocks drawn jointly with density "
             "∝ exp(-beta ||b||_F) on the product of the symmetric subspaces, of dimension "
             f"p = C K (d+1)(d+2)/2 = {self.dimension}"]
        if self.rows is not None:  # an out-of-core backend says so
            a.append(self.rows.certificate_note)
        if "curvature" in needs:
            a.append(
                "PSD constraints: the minimizer may lie on the boundary of the PSD cone, where "
                "the "
                "change-of-variables proof of CMS (which assumes an unconstrained minimizer) does "
                "not apply directly; the guarantee relies on the extension of objective "
                "perturbation to convex constraint sets by Kifer, Smith & Thakurta (COLT 2012, "
                "Thm. 2), stated for rank-one per-record Hessians and extended to rank r by "
                "dpconvex's trace (AM-GM) bound "
                "(docs/privacy/large_margin.md#privacy-lm-psd-constraint), "
                "with the same slack and noise rate"
            )
            a.append(
                f"loss '{self.loss.name}' is C^1 with a bounded, piecewise-continuous second "
                "derivative; the change of variables is used as in CMS Section 3.4.2 (Huber)")
            a.append(
                "the released Phi is the minimizer of the perturbed objective, accepted only when "
                f"its natural residual ||Phi - P_psd(Phi - grad J)||_F <= {self.residual_tol:g}")
        return a

    def _probe_monotone(self) -> Condition:
        m = np.concatenate([np.linspace(-50.0, 50.0, 20001), [-1e6, -1e4, -1e3, 1e3, 1e4, 1e6]])
        d1 = np.asarray(self.loss.deriv(m), dtype=float)
        worst = float(np.max(d1))
        if worst > 1e-12:
            k = int(np.argmax(d1))
            raise PrivacyError(
                f"{type(self).__name__}.conditions: convexity: with n_components > 1 the margin "
                "-z'Phi_own z - logsumexp(-z'Phi z) is concave in Phi, so the loss must be "
                f"non-increasing; loss '{self.loss.name}' has derivative {worst:.3g} > 0 at "
                "margin "
                f"{m[k]:.4g}. Use a non-increasing margin loss (huber, logistic) or "
                "n_components=1."
            )
        from ..objectives.losses import shipped_derivation  # (a CVXPY form's: the DCP check above)
        proved = self.loss.has_cvxpy or shipped_derivation(self.loss) is not None
        return Condition(
            "loss non-increasing",
            True,
            "numerical probe",
            f"ℓ' <= 0 on {m.size} margins (needed for K > 1)",
            unverified="" if proved else "convexity",
        )

    # ---------------------------------------------------------------- numerics
    def margins(self, Phi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Margins μ_{i,c} (n, C) and component responsibilities p (n, C, K)."""
        A = self.space.forms(self.Z, Phi).reshape(self.n, self.C, self.K)
        own = A.reshape(self.n, self.J)[np.arange(self.n), self._own_col]
        if self.K == 1:
            M = A[:, :, 0] - own[:, None]
            P = np.ones_like(A)
        else:
            P = np.negative(A)  # softmax over the components, in place
            M = -own[:, None] - softmax_rows(P)
        return M, P

    def data_loss(self, Phi: np.ndarray) -> tuple[float, np.ndarray]:
        """(1/n) Σ_i Σ_{c≠y_i} ℓ(μ_{i,c}) and its gradient, shape (C, K, D, D)."""
        if self.rows is not None:  # Dask records: this method per chunk, one pass (DaskGram)
            return self.rows.data_loss(self, Phi)
        M, P = self.margins(Phi)
        val = float(np.sum(np.where(self._mask, self.loss.value(M), 0.0))) / self.n
        g = np.where(self._mask, self.loss.deriv(M), 0.0)  # dℓ/dμ, (n, C)
        W = g[:, :, None] * P  # dμ/da_{c,m} = p_{c,m} for c != y
        W = W.reshape(self.n, self.J)
        W[np.arange(self.n), self._own_col] -= g.sum(axis=1)  # dμ/da_own = -1
        grad = self.space.adjoint(self.Z, W / self.n)
        return val, grad

    def objective(self, Phi: np.ndarray, b: np.ndarray | None = None,
                  extra_reg: float = 0.0) -> tuple[float, np.ndarray]:
        """J(Φ) and ∇J(Φ) in NumPy (the perturbed objective, Frobenius gradient).

        The regularizer's term becomes (λ + Δ/2) Σ||Φ||²_F: its modulus grows by Δ.
        """
        val, grad = self.data_loss(Phi)
        d = self.d
        reg = self.regularizer.weight + 0.5 * float(extra_reg)
        tr = self.space.psi_trace(Phi, d)
        val += self.gamma * tr + reg * float(np.sum(Phi * Phi))
        grad = grad + 2.0 * reg * Phi
        self.space.add_psi_trace_grad(grad, d, self.gamma)
        if b is not None:
            val += float(np.vdot(b, Phi)) / self.n
            grad = grad + b / self.n
        for t in self.extra_terms:
            P = np.reshape(Phi, self.noise_shape)  # terms read the (C, K, D, D) blocks
            val += float(t.value_fn(P))
            grad = grad + np.asarray(t.grad_fn(P), dtype=float).reshape(np.shape(Phi))
        return val, grad

    def public_lipschitz_bound(self, mu: float) -> float:
        """Lipschitz constant of ∇J from public constants only: μ + 2cC + [K > 1]·L/2.

        The data term's gradient is (2cC + [K > 1] L/2)·λ_max(M)-Lipschitz, λ_max(M) <= max ||z||⁴ <= 1
        (privacy-lm-solver-accuracy); ``inf`` with extra terms (no declared Lipschitz constant).
        """
        L, c = self._loss_bounds(f"{type(self).__name__}.public_lipschitz_bound")
        if self.extra_terms or not math.isfinite(c):
            return math.inf
        return float(mu) + 2.0 * c * self.C + (0.5 * L if self.K > 1 else 0.0)

    def distance_bound(self, residual: float, mu: float) -> float:
        """||Φ − Φ*||_F <= (1 + L)/μ · res(Φ) for the natural residual: the error bound of a
        μ-strongly monotone, L-Lipschitz variational inequality (F = ∇J over the PSD cone),
        L = :meth:`public_lipschitz_bound` (public: it calibrates the AMP cover noise;
        docs/privacy/large_margin.md#privacy-lm-solver-accuracy)."""
        L = self.public_lipschitz_bound(mu)
        if not math.isfinite(L):
            raise PrivacyError(
                f"{type(self).__name__}.distance_bound: approximate minima: the template has "
                "extra terms (or "
                "a loss with unbounded curvature) without a declared Lipschitz constant, so the "
                "distance to "
                f"the exact minimizer cannot be bounded from a residual. Use optimality_tol=None."
            )
        return (1.0 + L) / float(mu) * float(residual)

    def lipschitz_bound(self, extra_reg: float = 0.0) -> float:
        """Initial Lipschitz estimate of ∇J (the solver's first step; it backtracks from there):
        :meth:`public_lipschitz_bound` when finite, else μ_total + (2cC + [K>1]·L/2)·λ_max(M),
        M: V ↦ (1/n) Σ ⟨z zᵀ, V⟩ z zᵀ by power iteration (privacy-lm-solver-accuracy)."""
        mu = self.regularizer.strong_convexity + float(extra_reg)
        public = self.public_lipschitz_bound(mu)
        if math.isfinite(public):
            return public
        if self._gram_norm is None:
            self._gram_norm = self.space.gram_operator_norm(self.Z)
        L, c = self._loss_bounds(f"{type(self).__name__}.lipschitz_bound")
        c = c if math.isfinite(c) else 1.0
        data = (2.0 * c * self.C + (0.5 * L if self.K > 1 else 0.0)) * self._gram_norm
        return self.regularizer.strong_convexity + float(extra_reg) + data

    # ------------------------------------------------------------------- CVXPY
    # Margins zᵀΦz for all rows through an auxiliary variable Q (n × C·K) with Q[:, j] == A @ hvec(Φ_j), A the
    # half-vectorized z zᵀ rows (the form that canonicalizes fastest at scale, see CVXPY_NOTES); the noise is
    # one symmetric 2-D cvxpy.Parameter per block and λ + Δ/2 a parameter, so a new draw re-solves without
    # rebuilding. The noise arrives in the iterate's shape ``space.shape`` and is read per block through
    # ``space.blocks``; the solution goes back in ``space.shape``.
    def _build(self, Z: np.ndarray, y: np.ndarray, comp: np.ndarray) -> dict[str, Any]:
        """CVXPY problem for records Z (the template's, or a structural surrogate)."""
        n, d, C, K = Z.shape[0], self.d, self.C, self.K
        J = C * K
        sp_ = self.space
        A = sp_.cvxpy_form_rows(Z)
        Phi = sp_.cvxpy_variables()
        B = sp_.cvxpy_noise()
        reg = cp.Parameter(nonneg=True, value=self.regularizer.weight, name="reg")
        flat = [P for row in Phi for P in row]
        hv = [sp_.cvxpy_hvec(P) for P in flat]
        hv_w = [sp_.cvxpy_hvec_weighted(P) for P in flat]
        Q = cp.Variable((n, J), name="Q")
        cons = [Q[:, j] == A @ hv[j] for j in range(J)]
        own_col = y * K + comp
        own = Q[np.arange(n), own_col]
        parts = []
        for c in range(C):
            rows = np.flatnonzero(y != c)
            if rows.size == 0:
                continue
            if K == 1:
                parts.append(Q[rows, c] - own[rows])
            else:
                parts.append(-own[rows] - cp.log_sum_exp(-Q[rows, c * K:(c + 1) * K], axis=1))
        margins = cp.hstack(parts)
        obj = cp.sum(self.loss.cvxpy_expr(margins)) / n
        if self.gamma > 0:
            obj = obj + self.gamma * sum(sp_.cvxpy_psi_trace(P, d) for P in flat)
        obj = obj + reg * sum(cp.sum_squares(h) for h in hv_w)
        obj = obj + sum(cp.sum(cp.multiply(Bp, P)) for Brow, Prow in zip(B, Phi, strict=True)
                        for Bp, P in zip(Brow, Prow, strict=True)) / n
        for t in self.extra_terms:
            obj = obj + t.cvxpy_fn(Phi)
        return {"problem": cp.Problem(cp.Minimize(obj), cons), "Phi": Phi, "B": B, "reg": reg,
                "objective": obj}

    def _surrogate_objective(self) -> cp.Expression:
        """The objective's structure on public rows (one record per class and component).

        DCP convexity depends on the atoms and signs, not on the records' values, so the
        check runs on a few public rows and never builds the full problem.
        """
        rng = np.random.default_rng(0)
        y = np.repeat(np.arange(self.C), self.K)
        comp = np.tile(np.arange(self.K), self.C)
        Z = rng.standard_normal((y.size, self.D))
        Z /= np.linalg.norm(Z, axis=1, keepdims=True)
        return self._build(Z, y, comp)["objective"]

    def cvxpy_problem(self) -> dict[str, Any]:
        """Build (once) the CVXPY problem: ``problem``, ``Phi`` (``Phi[c][m]``), ``B`` (the
        symmetric noise parameters) and ``reg`` (the parameter λ + Δ/2)."""
        if not self.loss.has_cvxpy:
            raise ParameterError(
                f"{type(self).__name__}.cvxpy_problem: loss '{self.loss.name}' has no DCP form in "
                "CVXPY, "
                "so the CVXPY backends (clarabel, scs) cannot solve it: missing capability "
                "'cvxpy'. Use "
                "solver='native'."
            )
        if self._cvx is None:
            self._cvx = self._build(self.Z, self.y, self.components)
        return self._cvx

    def cvxpy_set(self, b: np.ndarray | None, extra_reg: float) -> None:
        """Set the noise parameters from ``b`` of shape ``space.shape`` (zero when None) and λ + Δ/2."""
        cv = self.cvxpy_problem()
        B = None if b is None else np.reshape(b, self.space.blocks)
        for c in range(self.C):
            for m in range(self.K):
                cv["B"][c][m].value = np.zeros((self.D, self.D)) if B is None else B[c, m]
        cv["reg"].value = self.regularizer.weight + 0.5 * extra_reg

    def cvxpy_solution(self) -> tuple[np.ndarray | None, dict[str, Any]]:
        """The solved Φ (shape ``space.shape``) projected onto the feasible set, and the
        minimum eigenvalue over the blocks before projecting (CVXPY's PSD variables may
        carry eigenvalues slightly below 0; the residual is computed at the projection)."""
        Phi_raw = self.space.cvxpy_value(self.cvxpy_problem()["Phi"])
        if Phi_raw is None:
            return None, {}
        blocks = np.reshape(Phi_raw, self.space.blocks)
        min_eig = float(np.min(np.linalg.eigvalsh(0.5 * (blocks + np.swapaxes(blocks, -1, -2)))))
        return self.space.project(Phi_raw), {"min_eig_before_projection": min_eig}
