"""A user template with a matrix parameter: multinomial logistic regression, W of shape (d, C).

Written against the template contract of :mod:`dpconvex.templates.base` only (no dpconvex
template class is reused), as a user would write one:

    J(W) = (1/n) Σ_i [log Σ_c exp(x_iᵀ w_c) − x_iᵀ w_{y_i}] + ((λ + Δ)/2) ||W||²_F + ⟨B, W⟩/n,

rows ||x_i|| <= q. One record's loss has gradient x_i (p_i − e_{y_i})ᵀ, of norm <= √2·q,
and Hessian (x_i x_iᵀ) ⊗ (diag p_i − p_i p_iᵀ): rank <= C − 1, eigenvalues <= q²/2, trace
<= q²(1 − 1/C). Vectorizing W row by row (``W.ravel()``) makes the dense Hessian
(1/n) Σ_i (x_i x_iᵀ) ⊗ (diag p_i − p_i p_iᵀ) + (λ + Δ) I.

:class:`MultinomialTemplate` offers the native L-BFGS / Newton capabilities (``smooth``,
``hessian``, ``hessp``) and a CVXPY form; :class:`BallMultinomialTemplate` the same
objective over the Frobenius ball ||W||_F <= radius (capability ``projection``, for the
accelerated projected gradient).
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
from scipy.special import log_softmax, softmax

from dpconvex.objectives.losses import L2
from dpconvex.privacy.certificate import Condition
from dpconvex.templates.base import EuclideanSpace, PrivacyConstants, RecordDomain


def multinomial_data(n: int = 60, d: int = 3, C: int = 3, seed: int = 0
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Rows of norm <= 1 and labels in {0, ..., C − 1} from C shifted Gaussian clouds."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % C
    X = 0.6 * rng.normal(size=(C, d))[y] + 0.3 * rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    return X, y


class MultinomialTemplate:
    """Multinomial logistic regression with an L2 regularizer; the parameter W is (d, C)."""

    name = "multinomial logistic (2-D parameter)"
    kind = "multinomial_test"
    noise_symmetric = False
    residual_tol = 1e-6
    cvxpy_options: dict = {}
    capabilities = frozenset({"objective", "smooth", "hessian", "hessp", "cvxpy", "per_record"})

    def __init__(self, X: np.ndarray, y: np.ndarray, n_classes: int, lam: float,
                 data_norm: float = 1.0):
        self.X, self.y = np.asarray(X, dtype=float), np.asarray(y, dtype=np.int64)
        self.n, self.d = self.X.shape
        self.C, self.q = int(n_classes), float(data_norm)
        self.Y = np.eye(self.C)[self.y]
        self.regularizer = L2(lam)
        self.space = EuclideanSpace((self.d, self.C))
        self.noise_shape = self.space.shape
        self._cvx: dict | None = None

    # ------------------------------------------------------------ privacy
    def privacy_constants(self) -> PrivacyConstants:
        q2 = self.q ** 2
        return PrivacyConstants(grad_bound=np.sqrt(2.0) * self.q, hessian_rank=self.C - 1,
                                hessian_term_bound=0.5 * q2,
                                strong_convexity=self.regularizer.strong_convexity,
                                dimension=self.space.dimension,
                                hessian_trace_bound=q2 * (1.0 - 1.0 / self.C))

    @property
    def record_domain(self) -> RecordDomain:
        """Rows of norm <= q, labels in {0, ..., C − 1}: what the verifier probes."""
        return RecordDomain(self.d, self.q, labels=tuple(float(c) for c in range(self.C)))

    def record_gradients(self, theta, X, y) -> np.ndarray:
        """x_i (p_i − e_{y_i})ᵀ for each record: shape (k, d, C)."""
        X = np.asarray(X, dtype=float)
        P = softmax(X @ np.asarray(theta, dtype=float), axis=1)
        P[np.arange(len(y)), np.asarray(y, dtype=np.int64)] -= 1.0
        return X[:, :, None] * P[:, None, :]

    def conditions(self, needs) -> list[Condition]:
        mu = self.regularizer.strong_convexity
        return [Condition("strong convexity", mu > 0, "declared", f"mu = {mu:g}"),
                Condition("curvature bound", True, "declared", f"c_u = {self.q ** 2 / 2:g}")]

    def assumptions(self, needs) -> list[str]:
        return [f"rows have norm <= {self.q:g} (the caller clips)"]

    # ---------------------------------------------------------- objective
    def _probs(self, W: np.ndarray) -> np.ndarray:
        return softmax(self.X @ W, axis=1)

    def objective(self, theta, b=None, extra_reg=0.0):
        W = np.asarray(theta, dtype=float)
        assert W.shape == self.space.shape, W.shape  # the solvers pass the space's shape
        scores = self.X @ W
        mu = self.regularizer.strong_convexity + extra_reg
        value = -float(np.sum(log_softmax(scores, axis=1) * self.Y)) / self.n
        value += 0.5 * mu * float(np.vdot(W, W))
        grad = self.X.T @ (softmax(scores, axis=1) - self.Y) / self.n + mu * W
        if b is not None:
            value += float(np.vdot(b, W)) / self.n
            grad = grad + np.asarray(b, dtype=float).reshape(W.shape) / self.n
        return value, grad

    def residual(self, theta, b=None, extra_reg=0.0) -> float:
        return float(np.linalg.norm(self.objective(theta, b, extra_reg)[1]))

    def distance_bound(self, residual: float, mu: float) -> float:
        return residual / mu

    def hessian(self, theta, extra_reg=0.0) -> np.ndarray:
        W = np.asarray(theta, dtype=float)
        assert W.shape == self.space.shape, W.shape
        P = self._probs(W)
        p = self.d * self.C
        H = np.zeros((p, p))
        for x, pi in zip(self.X, P, strict=True):
            H += np.kron(np.outer(x, x), np.diag(pi) - np.outer(pi, pi))
        return H / self.n + (self.regularizer.strong_convexity + extra_reg) * np.eye(p)

    def hessp(self, theta, extra_reg=0.0):
        W = np.asarray(theta, dtype=float)
        assert W.shape == self.space.shape, W.shape
        P = self._probs(W)
        mu = self.regularizer.strong_convexity + extra_reg

        def product(V):
            V = np.asarray(V, dtype=float)
            assert V.shape == self.space.shape, V.shape
            S = self.X @ V
            R = P * S - P * np.sum(P * S, axis=1, keepdims=True)
            return self.X.T @ R / self.n + mu * V

        return product

    # --------------------------------------------------------------- cvxpy
    def cvxpy_problem(self) -> dict:
        if self._cvx is None:
            W = cp.Variable(self.space.shape)
            B = cp.Parameter(self.space.shape, value=np.zeros(self.space.shape))
            reg = cp.Parameter(nonneg=True, value=self.regularizer.strong_convexity)
            scores = self.X @ W
            loss = (cp.sum(cp.log_sum_exp(scores, axis=1))
                    - cp.sum(cp.multiply(self.Y, scores))) / self.n
            objective = loss + 0.5 * reg * cp.sum_squares(W) + cp.sum(cp.multiply(B, W)) / self.n
            self._cvx = {"problem": cp.Problem(cp.Minimize(objective)), "W": W, "B": B, "reg": reg}
        return self._cvx

    def cvxpy_set(self, b, extra_reg: float) -> None:
        cvx = self.cvxpy_problem()
        cvx["B"].value = np.zeros(self.space.shape) if b is None else np.asarray(b, dtype=float)
        cvx["reg"].value = self.regularizer.strong_convexity + extra_reg

    def cvxpy_solution(self):
        value = self.cvxpy_problem()["W"].value
        return (None if value is None else np.asarray(value, dtype=float)), {}


class _FrobeniusBall(EuclideanSpace):
    """{W : ||W||_F <= radius}: the projection rescales; released values are projected too."""

    def __init__(self, shape: tuple[int, ...], radius: float):
        super().__init__(shape)
        self.radius = float(radius)

    def project(self, theta: np.ndarray) -> np.ndarray:
        norm = float(np.linalg.norm(theta))
        return theta if norm <= self.radius else theta * (self.radius / norm)

    def postprocess(self, theta: np.ndarray) -> np.ndarray:
        return self.project(theta)


class BallMultinomialTemplate(MultinomialTemplate):
    """The same objective over ||W||_F <= radius: the accelerated projected gradient solves it."""

    name = "multinomial logistic over a Frobenius ball (2-D parameter)"
    capabilities = frozenset({"objective", "projection"})

    def __init__(self, X: np.ndarray, y: np.ndarray, n_classes: int, lam: float, radius: float,
                 data_norm: float = 1.0):
        super().__init__(X, y, n_classes, lam, data_norm)
        self.space = _FrobeniusBall((self.d, self.C), radius)

    def residual(self, theta, b=None, extra_reg=0.0) -> float:
        grad = self.objective(theta, b, extra_reg)[1]
        return float(np.linalg.norm(theta - self.space.project(theta - grad)))

    def lipschitz_bound(self, extra_reg: float = 0.0) -> float:
        """The data term's Hessian is at most q²/2 in norm; plus the modulus."""
        return 0.5 * self.q ** 2 + self.regularizer.strong_convexity + extra_reg
