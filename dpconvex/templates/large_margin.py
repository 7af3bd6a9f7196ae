"""Large-margin Gaussian (mixture) classifier as a declarative PSD template.

The Sha & Saul large-margin Gaussian classifier, in the form Pathak & Raj made
private (PSDM 2010 for one Gaussian per class; IEEE TDSC 2012, eq. 11, for K
components per class), with the calibration corrected as in ``docs/privacy.md``
§4. Records are augmented and scaled,

    z = [x; 1] / sqrt(q² + 1),   ||x|| <= q (public bound)  =>  ||z|| <= 1,

and each class c and component m owns a PSD matrix Φ_{c,m} ∈ S^{D}, D = d + 1.
A record is classified to argmin_c min_m zᵀ Φ_{c,m} z. The template minimizes

    J(Φ) = (1/n) Σ_i Σ_{c ≠ y_i} ℓ(μ_{i,c}) + γ Σ_{c,m} tr(Ψ_{c,m})
           + (λ + Δ/2) Σ_{c,m} ||Φ_{c,m}||²_F + (1/n) Σ_{c,m} ⟨b_{c,m}, Φ_{c,m}⟩
           + Σ_k R_k(Φ)            subject to Φ_{c,m} ⪰ 0,

where the margin of record i against class c is

    μ_{i,c} = −z_iᵀ Φ_{y_i, m_i} z_i − log Σ_m exp(−z_iᵀ Φ_{c,m} z_i)

(for K = 1 simply z_iᵀΦ_c z_i − z_iᵀΦ_{y_i} z_i), ℓ is a convex non-increasing
margin loss (default: the Huber hinge, ``HuberHinge(h)``, for which
ℓ(μ) = ℓ_h(1 − μ) = ℓ_h(1 + zᵀΦ_{y,m}z + log Σ exp(−zᵀΦ_{c,m}z)), the paper's
loss), Ψ_{c,m} is the top-left d × d block of Φ_{c,m}, b is the noise (one
independent symmetric matrix per block, a :class:`cvxpy.Parameter` each), Δ the
extra regularization of CMS Alg. 2, and R_k optional data-independent convex
terms supplied by the user (:class:`MatrixTerm`).

Privacy constants (derived in ``docs/privacy.md`` §4; L = loss.deriv_bound,
c = loss.curvature, ||z|| <= 1):

* per-record gradient bound G = L·sqrt(C(C − 1)) (replace-one sensitivity 2G);
* per-record Hessian: a sum of at most r = (C − 1)·K PSD rank-one terms, each of
  norm <= c_u = 2c for K = 1 and c_u = max(2c, L/2) for K > 1;
* strong convexity μ = 2λ (the Huber + trace objective of the 2010 paper, λ = 0,
  is not strongly convex: the trace term is linear);
* dimension p = C·K·D(D + 1)/2 (noise drawn in the symmetric subspace).

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
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import cvxpy as cp
import numpy as np
from scipy.special import logsumexp, softmax

from .._validation import check_float, clip_rows
from ..certificate import Condition
from ..errors import DataValidationError, ParameterError, PrivacyError
from ..losses import HuberHinge, Loss
from ..solvers.base import SolveResult, SolveStatus
from ..solvers.cvxpy_backend import solve_problem
from ..solvers.native_sdp import (
    accelerated_projected_gradient,
    gram_operator_norm,
    natural_residual,
    project_psd,
    quadratic_forms,
    weighted_gram,
)
from ..verify import PrivacyConstants, check_dcp_convex, probe_loss

__all__ = [
    "AUTO_CVXPY_MAX_SIZE",
    "RESIDUAL_TOL",
    "LargeMarginGaussianTemplate",
    "MatrixTerm",
    "augment_and_scale",
    "psi_frobenius",
]

#: Largest natural residual ||Φ − Π_PSD(Φ − ∇J(Φ))||_F at which a solve is
#: accepted as the exact minimizer of the perturbed objective (docs/privacy.md
#: §4.7). Both the native solver and CVXPY + Clarabel meet it on the test
#: problems (measured residuals: native <= 1e-9 by construction, Clarabel
#: typically 1e-9 - 1e-7 after projecting its Φ onto the PSD cone).
RESIDUAL_TOL = 1e-6

#: The native solver's own target (a margin of 100 below the acceptance level).
NATIVE_TOL = 1e-8

#: ``solver="auto"`` uses CVXPY + Clarabel when n·C·K·D(D+1)/2 (the number of
#: nonzeros of the margin constraints CVXPY canonicalizes) is at most this,
#: and the native solver above it (see ``cvxpy_size``).
AUTO_CVXPY_MAX_SIZE = 100_000


def augment_and_scale(X: np.ndarray, data_norm: float) -> np.ndarray:
    """z = [x; 1] / sqrt(q² + 1) for rows x already clipped to ||x|| <= q.

    Scaling every z by the same public constant leaves the decision rule
    argmin_c min_m zᵀΦ_{c,m}z unchanged and gives ||z|| <= 1 (the bound the
    privacy constants use; the papers' Lemma 1 takes ||zzᵀ||_F = ||x|| <= 1,
    which ignores the appended 1, see docs/privacy.md §4.1).
    """
    X = np.asarray(X, dtype=float)
    s = 1.0 / math.sqrt(data_norm * data_norm + 1.0)
    return np.hstack([X, np.ones((X.shape[0], 1))]) * s


@dataclass(frozen=True)
class MatrixTerm:
    """A user-supplied convex, differentiable, data-independent term R(Φ).

    It may read only Φ (never the data): its gradient then cancels in the
    replace-one difference and the sensitivity is unchanged, and its Hessian
    (PSD, by convexity) only adds to the Jacobian's strong-convexity floor. It is
    given no credit in the strong-convexity modulus (μ stays 2λ), so a term that
    happens to be strongly convex is used conservatively.

    Parameters
    ----------
    name : str
    cvxpy_fn : callable
        ``Phi -> cvxpy.Expression``, with ``Phi[c][m]`` the CVXPY variable of
        block (c, m); must be DCP-convex (checked by the verifier).
    value_fn : callable
        ``Phi -> float`` for a NumPy array of shape (C, K, D, D).
    grad_fn : callable
        ``Phi -> ndarray (C, K, D, D)``, the gradient in the Frobenius inner
        product (symmetric blocks). Checked against finite differences of
        ``value_fn`` by the verifier; the objective-perturbation proof needs R
        differentiable (a nonsmooth term such as a nuclear norm breaks the
        bijection between noise and minimizer).
    """

    name: str
    cvxpy_fn: Callable[[list[list[cp.Variable]]], cp.Expression]
    value_fn: Callable[[np.ndarray], float]
    grad_fn: Callable[[np.ndarray], np.ndarray]


def psi_frobenius(weight: float, d: int) -> MatrixTerm:
    """weight · Σ_{c,m} ||Ψ_{c,m}||²_F (extra shrinkage of the d × d precision block).

    An example :class:`MatrixTerm`: convex, smooth, data-independent.
    """
    weight = check_float("weight", weight, "psi_frobenius", low_inclusive=True)

    def cvx(Phi: list[list[cp.Variable]]) -> cp.Expression:
        return weight * sum(cp.sum_squares(P[:d, :d]) for row in Phi for P in row)

    def value(Phi: np.ndarray) -> float:
        return weight * float(np.sum(Phi[..., :d, :d] ** 2))

    def grad(Phi: np.ndarray) -> np.ndarray:
        g = np.zeros_like(Phi)
        g[..., :d, :d] = 2.0 * weight * Phi[..., :d, :d]
        return g

    return MatrixTerm(f"psi_frobenius({weight:g})", cvx, value, grad)


def _hvec_weights(D: int) -> tuple[np.ndarray, np.ndarray]:
    iu = np.triu_indices(D, 1)
    return iu[0], iu[1]


class LargeMarginGaussianTemplate:
    """Private large-margin Gaussian (mixture) classifier: the template.

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
        (:mod:`dpconvex.clustering`); ``assignment`` describes it.
    n_classes : int
        C >= 2.
    n_components : int
        K >= 1.
    lam : float
        λ >= 0, weight of Σ||Φ||²_F (λ > 0 required for objective perturbation).
    gamma : float
        γ >= 0, weight of the trace term Σ tr(Ψ).
    loss : Loss or None
        Convex margin loss with declared ``deriv_bound`` and ``curvature``;
        default ``HuberHinge(0.5)``. For K > 1 it must also be non-increasing
        (the margin is concave in Φ), which the verifier probes.
    extra_terms : sequence of MatrixTerm
        Additional data-independent convex terms.
    assignment : str
        Human-readable description of the component assignment (certificate).

    Attributes
    ----------
    name, n, noise_shape, noise_symmetric, residual_tol
        The template contract (see :mod:`dpconvex.templates`).

    References
    ----------
    Sha & Saul (ICASSP 2006); Pathak & Raj (PSDM 2010; IEEE TDSC 2012, eq. 11);
    corrections in ``docs/privacy.md`` §4.
    """

    name = "large-margin Gaussian classifier"
    noise_symmetric = True
    residual_tol = RESIDUAL_TOL

    def __init__(
        self,
        Z: np.ndarray,
        y: np.ndarray,
        components: np.ndarray | None = None,
        *,
        n_classes: int,
        n_components: int = 1,
        lam: float,
        gamma: float = 0.0,
        loss: Loss | None = None,
        extra_terms: Sequence[MatrixTerm] = (),
        assignment: str = "trivial (one component per class)",
    ):
        owner = type(self).__name__
        self.Z = np.ascontiguousarray(Z, dtype=float)
        if self.Z.ndim != 2 or self.Z.shape[1] < 2:
            raise DataValidationError(
                f"{owner}: Z must be 2-D (n, d + 1) with the appended constant; got shape "
                f"{self.Z.shape}. Build it with augment_and_scale(X, data_norm)."
            )
        self.n, self.D = self.Z.shape
        self.d = self.D - 1
        self.C = int(n_classes)
        self.K = int(n_components)
        if self.C < 2 or self.K < 1:
            raise ParameterError(
                f"{owner} needs n_classes >= 2 and n_components >= 1; got {self.C} and {self.K}."
            )
        self.y = np.asarray(y).astype(np.int64)
        if self.y.shape != (self.n,) or self.y.min() < 0 or self.y.max() >= self.C:
            raise DataValidationError(
                f"{owner}: y must hold n = {self.n} class indices in [0, {self.C - 1}]."
            )
        comp = np.zeros(self.n, dtype=np.int64) if components is None else np.asarray(components)
        self.components = comp.astype(np.int64)
        if (self.components.shape != (self.n,) or self.components.min() < 0
                or self.components.max() >= self.K):
            raise DataValidationError(
                f"{owner}: components must hold n = {self.n} indices in [0, {self.K - 1}]."
            )
        self.lam = check_float("lam", lam, owner, low_inclusive=True)
        self.gamma = check_float("gamma", gamma, owner, low_inclusive=True)
        self.loss = HuberHinge(0.5) if loss is None else loss
        if not isinstance(self.loss, Loss):
            raise ParameterError(
                f"The 'loss' parameter of {owner} must be a dpconvex.losses.Loss (with value, "
                f"deriv, deriv2, deriv_bound, curvature). Got {loss!r} instead."
            )
        self.extra_terms = tuple(extra_terms)
        for t in self.extra_terms:
            if not isinstance(t, MatrixTerm):
                raise ParameterError(
                    f"extra_terms of {owner} must be MatrixTerm objects (cvxpy_fn, value_fn, "
                    f"grad_fn). Got {t!r} instead."
                )
        self.assignment = assignment
        self.J = self.C * self.K
        self._own_col = self.y * self.K + self.components
        self._mask = self.y[:, None] != np.arange(self.C)[None, :]
        self._cvx: dict[str, Any] | None = None
        self._gram_norm: float | None = None

    @classmethod
    def from_features(cls, X: np.ndarray, y: np.ndarray, components: np.ndarray | None = None,
                      *, data_norm: float, **kwargs: Any) -> LargeMarginGaussianTemplate:
        """Clip rows of X to the public bound ``data_norm`` and build the template."""
        q = check_float("data_norm", data_norm, cls.__name__)
        Xc, _ = clip_rows(np.asarray(X, dtype=float), q)
        return cls(augment_and_scale(Xc, q), y, components, **kwargs)

    # ------------------------------------------------------------------ shapes
    @property
    def noise_shape(self) -> tuple[int, int, int, int]:
        """(C, K, D, D): one symmetric noise matrix per class and component."""
        return (self.C, self.K, self.D, self.D)

    @property
    def dimension(self) -> int:
        """p = C·K·D(D + 1)/2, the dimension of the parameter (and noise) space."""
        return self.J * self.D * (self.D + 1) // 2

    def cvxpy_size(self) -> int:
        """n·C·K·D(D+1)/2: nonzeros of the margin constraints CVXPY must canonicalize."""
        return self.n * self.dimension

    # ----------------------------------------------------------------- privacy
    def privacy_constants(self) -> PrivacyConstants:
        """G = L·sqrt(C(C−1)), r = (C−1)K, c_u = 2c (K = 1) or max(2c, L/2), μ = 2λ.

        With ||z|| <= 1, L = ``loss.deriv_bound``, c = ``loss.curvature``
        (docs/privacy.md §4.2-4.4).
        """
        L = float(self.loss.deriv_bound)
        c = float(self.loss.curvature)
        C, K = self.C, self.K
        c_u = 2.0 * c if K == 1 else max(2.0 * c, 0.5 * L)
        return PrivacyConstants(
            grad_bound=L * math.sqrt(C * (C - 1)),
            hessian_rank=(C - 1) * K,
            hessian_term_bound=c_u,
            strong_convexity=2.0 * self.lam,
            dimension=self.dimension,
        )

    def conditions(self, mechanism: str) -> list[Condition]:
        """Establish the conditions of the proof; raise PrivacyError on failure."""
        conds: list[Condition] = []
        if mechanism in ("objective", "output") and not self.lam > 0:
            raise PrivacyError(
                f"strong convexity: lam = {self.lam:g}, but {mechanism} perturbation needs a "
                "strongly convex objective. The Huber loss is not strongly convex and the trace "
                "term gamma * tr(Psi) is linear, so the objective of Pathak & Raj (PSDM 2010) "
                "without the lam * ||Phi||_F^2 term of the TDSC 2012 version is NOT strongly "
                "convex: its minimizer is not a bijective function of the noise and the privacy "
                "proof fails. Use lam > 0 (e.g. lam=1e-2)."
            )
        # (1) convexity of the whole CVXPY objective (same structure, public surrogate rows)
        if self.loss.has_cvxpy:
            obj = self._surrogate_objective()
            conds.append(check_dcp_convex(
                obj, f"the large-margin objective with loss '{self.loss.name}'"
                + (f" and terms {[t.name for t in self.extra_terms]}" if self.extra_terms else "")))
        elif self.extra_terms:
            raise PrivacyError(
                f"convexity: extra terms can only be checked through CVXPY, but loss "
                f"'{self.loss.name}' has no cvxpy_expr. Use a loss with a DCP form."
            )
        # (2) the loss's declared constants against its own code
        conds += probe_loss(self.loss, need_curvature=mechanism == "objective")
        if self.K > 1:
            conds.append(self._probe_monotone())
        # (3) extra terms: gradient consistent with value (differentiable, as declared)
        for t in self.extra_terms:
            conds.append(self._probe_term(t))
        # (4) records inside the unit ball
        zmax = float(np.max(np.linalg.norm(self.Z, axis=1)))
        ok = zmax <= 1.0 + 1e-12
        conds.append(Condition(
            "record norm bound", ok, "checked on the scaled records",
            "every z = [x; 1]/sqrt(q^2 + 1) has ||z|| <= 1" if ok
            else f"a record has ||z|| = {zmax:.6g} > 1: clip x to ||x|| <= q and scale "
                 "with augment_and_scale(X, q)",
        ))
        # (5) the Hessian-term bound needs ℓ'' bounded (objective perturbation)
        if mechanism == "objective" and self.K > 1:
            conds.append(Condition(
                "mixture Hessian term", True, "derived (docs/privacy.md §4.4)",
                "ℓ'·(log-sum-exp Hessian) has rank <= K - 1 and eigenvalues <= L/2 "
                "(Gershgorin on diag(p) - p pᵀ)",
            ))
        return conds

    def assumptions(self, mechanism: str) -> list[str]:
        """What the guarantee assumes, for the certificate."""
        a = [
            "adjacency: datasets differing in one record (replace-one)",
            "rows clipped to the public norm bound q and mapped to z = [x; 1]/sqrt(q^2 + 1), "
            "so ||z|| <= 1; preprocessing that reads the data is not covered",
            f"component assignment: {self.assignment}",
            "noise: one independent symmetric matrix per class and component, drawn with "
            "density ∝ exp(-beta ||b||_F) on the symmetric subspace of dimension "
            f"p = C K (d+1)(d+2)/2 = {self.dimension}",
        ]
        if mechanism == "objective":
            a.append(
                "PSD constraints: the minimizer may lie on the boundary of the PSD cone, where the "
                "change-of-variables proof of CMS (which assumes an unconstrained minimizer) does "
                "not apply directly; the guarantee relies on the extension of objective "
                "perturbation to convex constraint sets by Kifer, Smith & Thakurta (COLT 2012), "
                "with the same slack and noise rate")
            a.append(
                f"loss '{self.loss.name}' is C^1 with a bounded, piecewise-continuous second "
                "derivative; the change of variables is used as in CMS §3.4.2 (Huber)")
            a.append(
                "the released Phi is the minimizer of the perturbed objective, accepted only when "
                f"its natural residual ||Phi - P_psd(Phi - grad J)||_F <= {self.residual_tol:g}")
        return a

    def _probe_monotone(self) -> Condition:
        m = np.concatenate([np.linspace(-50.0, 50.0, 20001),
                            [-1e6, -1e4, -1e3, 1e3, 1e4, 1e6]])
        d1 = np.asarray(self.loss.deriv(m), dtype=float)
        worst = float(np.max(d1))
        if worst > 1e-12:
            k = int(np.argmax(d1))
            raise PrivacyError(
                f"convexity: with n_components > 1 the margin -z'Phi_own z - logsumexp(-z'Phi z) "
                f"is concave in Phi, so the loss must be non-increasing; loss '{self.loss.name}' "
                f"has derivative {worst:.3g} > 0 at margin {m[k]:.4g}. Use a non-increasing "
                "margin loss (huber, logistic) or n_components=1."
            )
        return Condition("loss non-increasing", True, "numerical probe",
                         f"ℓ' <= 0 on {m.size} margins (needed for K > 1)")

    def _probe_term(self, t: MatrixTerm) -> Condition:
        rng = np.random.default_rng(12345)  # public, data-independent probe points
        shape = self.noise_shape
        worst = 0.0
        for _ in range(5):
            A = rng.standard_normal(shape)
            A = A @ np.swapaxes(A, -1, -2) / self.D
            V = rng.standard_normal(shape)
            V = V + np.swapaxes(V, -1, -2)
            V /= np.linalg.norm(V)
            g = np.asarray(t.grad_fn(A), dtype=float)
            if g.shape != shape:
                raise PrivacyError(
                    f"extra term '{t.name}': grad_fn returned shape {g.shape}, expected {shape}.")
            hstep = 1e-5 * max(1.0, float(np.linalg.norm(A)))
            fd = (t.value_fn(A + hstep * V) - t.value_fn(A - hstep * V)) / (2 * hstep)
            err = abs(fd - float(np.vdot(g, V)))
            scale = max(1.0, abs(fd), float(np.linalg.norm(g)))
            worst = max(worst, err / scale)
        if worst > 1e-4:
            raise PrivacyError(
                f"extra term '{t.name}': grad_fn disagrees with finite differences of value_fn "
                f"(relative error {worst:.3g}). The proof needs a differentiable term with its "
                "true gradient; fix grad_fn (or the term is not differentiable)."
            )
        return Condition(f"extra term '{t.name}'", True, "numerical probe",
                         f"gradient matches finite differences (rel. err {worst:.2g}); "
                         "data-independent; no strong-convexity credit")

    # ---------------------------------------------------------------- numerics
    def margins(self, Phi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Margins μ_{i,c} (n, C) and component responsibilities p (n, C, K)."""
        A = quadratic_forms(self.Z, Phi.reshape(self.J, self.D, self.D)).reshape(
            self.n, self.C, self.K)
        own = A.reshape(self.n, self.J)[np.arange(self.n), self._own_col]
        if self.K == 1:
            M = A[:, :, 0] - own[:, None]
            P = np.ones_like(A)
        else:
            M = -own[:, None] - logsumexp(-A, axis=2)
            P = softmax(-A, axis=2)
        return M, P

    def data_loss(self, Phi: np.ndarray) -> tuple[float, np.ndarray]:
        """(1/n) Σ_i Σ_{c≠y_i} ℓ(μ_{i,c}) and its gradient, shape (C, K, D, D)."""
        M, P = self.margins(Phi)
        val = float(np.sum(np.where(self._mask, self.loss.value(M), 0.0))) / self.n
        g = np.where(self._mask, self.loss.deriv(M), 0.0)  # dℓ/dμ, (n, C)
        W = g[:, :, None] * P  # dμ/da_{c,m} = p_{c,m} for c != y
        W = W.reshape(self.n, self.J)
        W[np.arange(self.n), self._own_col] -= g.sum(axis=1)  # dμ/da_own = -1
        grad = weighted_gram(self.Z, W / self.n).reshape(self.noise_shape)
        return val, grad

    def objective(self, Phi: np.ndarray, b: np.ndarray | None = None,
                  extra_reg: float = 0.0) -> tuple[float, np.ndarray]:
        """J(Φ) and ∇J(Φ) in NumPy (the perturbed objective, Frobenius gradient)."""
        val, grad = self.data_loss(Phi)
        d = self.d
        reg = self.lam + 0.5 * float(extra_reg)
        tr = float(np.sum(np.trace(Phi[..., :d, :d], axis1=-2, axis2=-1)))
        val += self.gamma * tr + reg * float(np.sum(Phi * Phi))
        grad = grad + 2.0 * reg * Phi
        idx = np.arange(d)
        grad[..., idx, idx] += self.gamma
        if b is not None:
            val += float(np.vdot(b, Phi)) / self.n
            grad = grad + b / self.n
        for t in self.extra_terms:
            val += float(t.value_fn(Phi))
            grad = grad + np.asarray(t.grad_fn(Phi), dtype=float)
        return val, grad

    def residual(self, Phi: np.ndarray, b: np.ndarray | None = None,
                 extra_reg: float = 0.0) -> float:
        """Natural residual ||Φ − Π_PSD(Φ − ∇J(Φ))||_F (same for every backend)."""
        return natural_residual(Phi, self.objective(Phi, b, extra_reg)[1])

    def public_lipschitz_bound(self, mu: float) -> float:
        """Lipschitz constant of ∇J from public constants only: μ + 2cC + [K > 1]·L/2.

        The data term's gradient is (2cC + [K > 1] L/2)·λ_max(M)-Lipschitz with
        λ_max(M) <= max ||z||⁴ <= 1 (docs/privacy.md §4.7); μ = 2λ + Δ is the
        quadratic term's. Extra terms have no declared Lipschitz constant:
        ``inf`` then.
        """
        if self.extra_terms or not math.isfinite(self.loss.curvature):
            return math.inf
        c = float(self.loss.curvature)
        L = float(self.loss.deriv_bound)
        return float(mu) + 2.0 * c * self.C + (0.5 * L if self.K > 1 else 0.0)

    def distance_bound(self, residual: float, mu: float) -> float:
        """||Φ − Φ*||_F <= (1 + L)/μ · res(Φ) for the natural residual (docs/privacy.md §4.7).

        The error bound of a μ-strongly monotone, L-Lipschitz variational
        inequality (here F = ∇J over the PSD cone), with L from
        :meth:`public_lipschitz_bound` (public constants only: it calibrates the
        AMP cover noise of :func:`dpconvex.mechanisms.fit_template`).
        """
        L = self.public_lipschitz_bound(mu)
        if not math.isfinite(L):
            raise PrivacyError(
                "approximate minima: the template has extra terms (or a loss with unbounded "
                "curvature) without a declared Lipschitz constant, so the distance to the exact "
                "minimizer cannot be bounded from a residual. Use optimality_tol=None."
            )
        return (1.0 + L) / float(mu) * float(residual)

    @staticmethod
    def postprocess(theta: np.ndarray) -> np.ndarray:
        """Project released matrices onto the PSD cone (post-processing costs no privacy)."""
        return project_psd(theta)

    def lipschitz_bound(self, extra_reg: float = 0.0) -> float:
        """Initial Lipschitz estimate of ∇J: μ_total + (2cC + [K>1]·L/2)·λ_max(M).

        M is the operator V ↦ (1/n) Σ ⟨z zᵀ, V⟩ z zᵀ (docs/privacy.md §4.7); the
        solver backtracks if this is too small (e.g. with extra terms).
        """
        if self._gram_norm is None:
            self._gram_norm = gram_operator_norm(self.Z)
        c = float(self.loss.curvature) if math.isfinite(self.loss.curvature) else 1.0
        L = float(self.loss.deriv_bound)
        data = (2.0 * c * self.C + (0.5 * L if self.K > 1 else 0.0)) * self._gram_norm
        return 2.0 * self.lam + float(extra_reg) + data

    # ------------------------------------------------------------------ CVXPY
    def _build(self, Z: np.ndarray, y: np.ndarray, comp: np.ndarray) -> dict[str, Any]:
        """CVXPY problem for records Z (the template's, or a structural surrogate)."""
        n, D, d, C, K = Z.shape[0], self.D, self.d, self.C, self.K
        J = C * K
        iu0, iu1 = _hvec_weights(D)
        # half-vectorization: zᵀΦz = Σ_j z_j² Φ_jj + Σ_{j<k} 2 z_j z_k Φ_jk
        A = np.hstack([Z * Z, 2.0 * Z[:, iu0] * Z[:, iu1]])
        Phi = [[cp.Variable((D, D), PSD=True, name=f"Phi_{c}_{m}") for m in range(K)]
               for c in range(C)]
        B = [[cp.Parameter((D, D), symmetric=True, value=np.zeros((D, D)), name=f"b_{c}_{m}")
              for m in range(K)] for c in range(C)]
        reg = cp.Parameter(nonneg=True, value=self.lam, name="reg")
        flat = [P for row in Phi for P in row]
        hv = [cp.hstack([cp.diag(P), cp.vec(cp.upper_tri(P), order="F")]) for P in flat]
        hv_w = [cp.hstack([cp.diag(P), math.sqrt(2.0) * cp.vec(cp.upper_tri(P), order="F")])
                for P in flat]
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
            obj = obj + self.gamma * sum(cp.sum(cp.diag(P)[:d]) for P in flat)
        obj = obj + reg * sum(cp.sum_squares(h) for h in hv_w)
        obj = obj + sum(cp.sum(cp.multiply(Bp, P)) for Brow, Prow in zip(B, Phi, strict=True)
                        for Bp, P in zip(Brow, Prow, strict=True)) / n
        for t in self.extra_terms:
            obj = obj + t.cvxpy_fn(Phi)
        return {"problem": cp.Problem(cp.Minimize(obj), cons), "Phi": Phi, "B": B, "reg": reg,
                "objective": obj}

    def _surrogate_objective(self) -> cp.Expression:
        """The objective's structure on public rows (one record per class and component).

        DCP convexity depends on the atoms and signs, not on the records'
        values, so the check runs on a few public rows and never builds the
        full problem (which is large for big n).
        """
        rng = np.random.default_rng(0)
        y = np.repeat(np.arange(self.C), self.K)
        comp = np.tile(np.arange(self.K), self.C)
        Z = rng.standard_normal((y.size, self.D))
        Z /= np.linalg.norm(Z, axis=1, keepdims=True)
        return self._build(Z, y, comp)["objective"]

    def cvxpy_problem(self) -> dict[str, Any]:
        """Build (once) and return the CVXPY problem with its parameters.

        Returns a dict with ``problem``, ``Phi`` (nested list of PSD variables,
        ``Phi[c][m]``), ``B`` (nested list of symmetric 2-D noise parameters) and
        ``reg`` (parameter λ + Δ/2).
        """
        if not self.loss.has_cvxpy:
            raise ParameterError(
                f"loss '{self.loss.name}' has no DCP form in CVXPY, so the CVXPY backends "
                "(clarabel, scs) cannot solve it: missing capability 'cvxpy_expr'. Use "
                "solver='native'."
            )
        if self._cvx is None:
            self._cvx = self._build(self.Z, self.y, self.components)
        return self._cvx

    # ------------------------------------------------------------------ solve
    def solve(self, b: np.ndarray | None, extra_reg: float = 0.0, *, solver: str = "auto",
              warm_start: np.ndarray | None = None, max_iter: int | None = None) -> SolveResult:
        """Minimize the perturbed objective.

        Parameters
        ----------
        b : ndarray of shape (C, K, D, D) or None
            Noise (symmetric blocks); None means zero.
        extra_reg : float
            Δ >= 0: adds (Δ/2) Σ ||Φ||²_F.
        solver : {"auto", "native", "clarabel", "scs"}
            "auto": CVXPY + Clarabel when ``cvxpy_size() <= AUTO_CVXPY_MAX_SIZE``,
            the native solver otherwise; if Clarabel's solution misses the
            residual tolerance, it is polished by the native solver from that
            point, with the same noise.
        warm_start : ndarray of shape (C, K, D, D) or None
        max_iter : int or None
            Cap on the iterations (native: accelerated steps; Clarabel:
            ``max_iter``; SCS: ``max_iters``); None: the backend's default.

        Returns
        -------
        SolveResult
            ``x`` of shape (C, K, D, D), symmetric PSD; ``residual`` the natural
            residual computed here in NumPy, whatever the backend.
        """
        if b is not None:
            b = np.asarray(b, dtype=float).reshape(self.noise_shape)
            b = 0.5 * (b + np.swapaxes(b, -1, -2))
        extra_reg = float(extra_reg)
        if solver == "auto":
            if self.loss.has_cvxpy and self.cvxpy_size() <= AUTO_CVXPY_MAX_SIZE:
                res = self._solve_cvxpy(b, extra_reg, "clarabel", max_iter)
                if res.x is not None and res.residual <= self.residual_tol:
                    return res
                polished = self._solve_native(b, extra_reg, res.x, max_iter)
                polished.info["polished_from"] = res.summary()
                polished.solver = "clarabel+native"
                polished.seconds += res.seconds
                return polished
            return self._solve_native(b, extra_reg, warm_start, max_iter)
        if solver == "native":
            return self._solve_native(b, extra_reg, warm_start, max_iter)
        if solver in ("clarabel", "scs"):
            return self._solve_cvxpy(b, extra_reg, solver, max_iter)
        raise ParameterError(
            f"solver must be one of ['auto', 'native', 'clarabel', 'scs']. Got {solver!r} instead."
        )

    def _solve_native(self, b: np.ndarray | None, extra_reg: float,
                      warm_start: np.ndarray | None, max_iter: int | None = None) -> SolveResult:
        x0 = np.zeros(self.noise_shape) if warm_start is None else np.asarray(
            warm_start, dtype=float).reshape(self.noise_shape)
        res = accelerated_projected_gradient(
            lambda P: self.objective(P, b, extra_reg), x0,
            mu=2.0 * self.lam + extra_reg, L0=self.lipschitz_bound(extra_reg), tol=NATIVE_TOL,
            **({} if max_iter is None else {"max_iter": int(max_iter)}),
        )
        res.x = project_psd(res.x) if res.x is not None else None
        return res

    def _solve_cvxpy(self, b: np.ndarray | None, extra_reg: float, solver: str,
                     max_iter: int | None = None) -> SolveResult:
        cv = self.cvxpy_problem()
        for c in range(self.C):
            for m in range(self.K):
                cv["B"][c][m].value = np.zeros((self.D, self.D)) if b is None else b[c, m]
        cv["reg"].value = self.lam + 0.5 * extra_reg
        with warnings.catch_warnings():
            # "Solution may be inaccurate": dpconvex computes and checks the residual itself
            warnings.filterwarnings("ignore", message="Solution may be inaccurate",
                                    category=UserWarning)
            opts: dict[str, Any] = {"canon_backend": "SCIPY"}
            if max_iter is not None:
                opts["max_iter" if solver == "clarabel" else "max_iters"] = int(max_iter)
            status, seconds, raw = solve_problem(cv["problem"], solver, **opts)
        vals = [[P.value for P in row] for row in cv["Phi"]]
        if any(v is None for row in vals for v in row):
            return SolveResult(None, SolveStatus.FAILED if status == SolveStatus.OPTIMAL
                               else status, math.nan, math.inf, solver, seconds=seconds,
                               info={"raw_status": raw})
        Phi_raw = np.array(vals, dtype=float)
        min_eig = float(np.min(np.linalg.eigvalsh(0.5 * (Phi_raw + np.swapaxes(Phi_raw, -1, -2)))))
        # CVXPY's PSD variables may carry eigenvalues slightly below 0: project (the
        # released point is the projection, and the residual is computed there).
        Phi = project_psd(Phi_raw)
        f, g = self.objective(Phi, b, extra_reg)
        stats = cv["problem"].solver_stats
        value = cv["problem"].value
        return SolveResult(Phi, status, f, natural_residual(Phi, g), solver,
                           iterations=int(stats.num_iters or 0) if stats else 0,
                           seconds=seconds,
                           info={"raw_status": raw, "min_eig_before_projection": min_eig,
                                 "cvxpy_objective": math.nan if value is None else float(value)})
