"""Regularized linear ERM as a declarative template ([CMS]_ eq. 1, Alg. 1-2).

    J(w) = (1/n) Σ_i ℓ(y_i wᵀx_i) + ((Λ + Δ)/2) ||w||^2 + (1/n) bᵀw

with labels y_i in {-1, +1}, rows ||x_i|| <= q (a public bound, enforced by
clipping before the template is built), the noise ``b`` and the total
regularization ``Λ + Δ`` held as :class:`cvxpy.Parameter` so that a new draw
re-solves without rebuilding. An intercept is a constant feature appended to
every row *before* the template (so it is regularized and inside the norm
bound, docs/privacy.md §2.3).

References
----------
.. [CMS] Chaudhuri, Monteleoni, Sarwate. Differentially Private Empirical Risk
   Minimization. JMLR 12 (2011).
"""

from __future__ import annotations

from typing import Any

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from .._validation import row_norms
from ..certificate import Condition
from ..errors import ParameterError
from ..losses import Loss
from ..solvers.base import SolveResult, SolveStatus
from ..solvers.cvxpy_backend import solve_problem
from ..solvers.native_smooth import minimize_smooth
from ..verify import PrivacyConstants, check_dcp_convex, probe_loss

__all__ = ["LinearERMTemplate", "RESIDUAL_TOL"]

#: Largest gradient norm of the perturbed objective at which a solve is
#: accepted as the exact minimizer (docs/privacy.md §5).
RESIDUAL_TOL = 1e-6

#: The native solver's products use a CSR copy of the rows when at most this
#: fraction of the entries is non-zero and the matrix has at least
#: ``_SPARSE_MIN_ENTRIES`` entries. Measured on Adult (n = 30,162, p = 105, 11.6%
#: non-zero, one thread): a product costs 0.3 ms sparse vs 2.3 ms dense and the
#: Hessian 11 ms vs 27 ms (``python benchmarks/run.py --only adult``).
_SPARSE_MAX_DENSITY = 0.25
_SPARSE_MIN_ENTRIES = 50_000

#: Up to this many coefficients the Newton polish forms the dense Hessian;
#: above it, Newton-CG on Hessian-vector products (memory O(n·p), never O(p²)).
_DENSE_HESSIAN_MAX_P = 1000


class LinearERMTemplate:
    """Linear ERM template: loss + L2 regularizer + linear noise term.

    Parameters
    ----------
    loss : Loss
        Margin loss with declared constants.
    lam : float
        Λ > 0 (the regularizer (Λ/2)||w||^2 is Λ-strongly convex).
    data_norm : float
        Public bound q on ||x_i|| of the rows given (after any intercept column).
    X : ndarray (n, p)
        Rows with ||x_i|| <= data_norm (the caller clips).
    y : ndarray (n,)
        Labels in {-1, +1}.
    """

    name = "linear ERM"
    noise_symmetric = False
    residual_tol = RESIDUAL_TOL

    def __init__(self, loss: Loss, lam: float, data_norm: float, X: np.ndarray, y: np.ndarray):
        self.loss = loss
        self.lam = float(lam)
        self.data_norm = float(data_norm)
        self.X = np.asarray(X, dtype=float)
        self.y = np.asarray(y, dtype=float)
        self.n, self.p = self.X.shape
        self._cvx: dict[str, Any] | None = None
        # Products for the native solver: A = diag(y) X and Aᵀ, in CSR when that pays.
        # The choice changes only the arithmetic, not the objective or its minimizer.
        nonzero = self.X != 0
        nnz = int(np.count_nonzero(nonzero))
        self.sparse = bool(self.X.size >= _SPARSE_MIN_ENTRIES
                           and nnz <= _SPARSE_MAX_DENSITY * self.X.size)
        if self.sparse:
            A = _dense_to_csr(self.X, nonzero)
            A.data *= np.repeat(self.y, np.diff(A.indptr))
            self._A: Any = A
            self._AT: Any = A.T.tocsr()
        else:
            self._A = self.X * self.y[:, None]
            self._AT = self._A.T

    @property
    def noise_shape(self) -> tuple[int, ...]:
        return (self.p,)

    # ----------------------------------------------------------------- privacy
    def privacy_constants(self) -> PrivacyConstants:
        """G = |ℓ'|·q, r = 1, c_u = c·q^2, μ = Λ (docs/privacy.md §2-3)."""
        q = self.data_norm
        return PrivacyConstants(
            grad_bound=self.loss.deriv_bound * q,
            hessian_rank=1,
            hessian_term_bound=self.loss.curvature * q**2,
            strong_convexity=self.lam,
            dimension=self.p,
        )

    def conditions(self, mechanism: str) -> list[Condition]:
        conds = []
        if self.loss.has_cvxpy:
            m = cp.Variable(3)
            conds.append(check_dcp_convex(cp.sum(self.loss.cvxpy_expr(m)), f"loss '{self.loss.name}'"))
        conds += probe_loss(self.loss, need_curvature=mechanism == "objective")
        norms = row_norms(self.X)
        ok = bool(np.all(norms <= self.data_norm * (1 + 1e-12)))
        conds.append(Condition(
            "row norm bound", ok, "enforced by clipping to the public bound",
            f"every row has ||x|| <= q = {self.data_norm:g}" if ok
            else "rows exceed the bound q: clip them before building the template",
        ))
        return conds

    def assumptions(self, mechanism: str) -> list[str]:
        a = [
            "adjacency: datasets differing in one record (replace-one)",
            f"rows clipped to the public norm bound q = {self.data_norm:g} (intercept column "
            "included); preprocessing that reads the data is not covered",
            "labels in {-1, +1}; the proof is for the exact minimizer of the perturbed objective: "
            "see the solve condition for how the released point relates to it",
        ]
        if mechanism == "objective" and self.loss.name == "huber":
            a.append("Huber hinge is C^1 with ℓ'' bounded and piecewise constant; "
                     "the change-of-variables argument is used as in CMS §3.4.2")
        return a

    @staticmethod
    def distance_bound(residual: float, mu: float) -> float:
        """||w - w*|| <= ||∇J(w)|| / μ for a μ-strongly convex J (docs/privacy.md §5)."""
        return residual / mu

    # ---------------------------------------------------------------- numerics
    def objective(self, w: np.ndarray, b: np.ndarray, reg: float) -> tuple[float, np.ndarray]:
        """J(w) and ∇J(w) in NumPy (reg = Λ + Δ)."""
        m = self._A @ w
        lv, ld = self.loss.value_and_deriv(m)
        val = float(np.mean(lv)) + 0.5 * reg * float(w @ w) + float(b @ w) / self.n
        grad = self._AT @ ld / self.n + reg * w + b / self.n
        return val, grad

    def hessian(self, w: np.ndarray, reg: float) -> np.ndarray:
        """∇²J(w) = (1/n) Xᵀ diag(ℓ''(m)) X + (Λ + Δ) I (y_i² = 1, so A = diag(y) X serves)."""
        d2 = self.loss.deriv2(self._A @ w)
        if self.sparse:
            H = (self._AT.multiply(d2[None, :]).tocsr() @ self._A).toarray() / self.n
        else:
            H = (self._AT * d2) @ self._A / self.n
        H[np.diag_indices_from(H)] += reg
        return H

    def hessp(self, w: np.ndarray, reg: float):
        """v -> ∇²J(w) v without forming the Hessian: (1/n) Aᵀ(ℓ''(m) ⊙ (A v)) + (Λ + Δ) v."""
        d2 = self.loss.deriv2(self._A @ w) / self.n
        return lambda v: self._AT @ (d2 * (self._A @ v)) + reg * v

    # ------------------------------------------------------------------ CVXPY
    def cvxpy_problem(self) -> dict[str, Any]:
        """Build (once) and return the CVXPY problem with its parameters.

        Returns a dict with keys ``problem``, ``w`` (Variable), ``b`` (Parameter,
        the noise) and ``reg`` (Parameter, Λ + Δ).
        """
        if not self.loss.has_cvxpy:
            raise ParameterError(
                f"loss '{self.loss.name}' has no DCP form in CVXPY, so the CVXPY backends "
                "(clarabel, scs) cannot solve it: missing capability 'cvxpy_expr'. Use "
                "solver='native'."
            )
        if self._cvx is None:
            w = cp.Variable(self.p)
            b = cp.Parameter(self.p, value=np.zeros(self.p))
            reg = cp.Parameter(nonneg=True, value=self.lam)
            margins = self._A @ w
            obj = (cp.sum(self.loss.cvxpy_expr(margins)) / self.n
                   + 0.5 * reg * cp.sum_squares(w) + (b @ w) / self.n)
            self._cvx = {"problem": cp.Problem(cp.Minimize(obj)), "w": w, "b": b, "reg": reg}
        return self._cvx

    def solve(self, b: np.ndarray | None, extra_reg: float = 0.0, *, solver: str = "native",
              warm_start: np.ndarray | None = None, max_iter: int | None = None) -> SolveResult:
        """Minimize J for noise ``b`` and extra regularization Δ = ``extra_reg``.

        ``max_iter`` caps the solver's iterations (None: the backend's default); a
        capped solve is still checked by its residual before anything is released.
        """
        b = np.zeros(self.p) if b is None else np.asarray(b, dtype=float)
        reg = self.lam + float(extra_reg)
        if solver == "native":
            x0 = np.zeros(self.p) if warm_start is None else warm_start
            kw = {} if max_iter is None else {"max_iter": max_iter, "newton_steps": 0}
            dense = self.p <= _DENSE_HESSIAN_MAX_P
            return minimize_smooth(
                lambda w: self.objective(w, b, reg),
                (lambda w: self.hessian(w, reg)) if dense else None,
                x0, hessp=None if dense else (lambda w: self.hessp(w, reg)),
                tol=RESIDUAL_TOL * 1e-2, **kw,
            )
        cv = self.cvxpy_problem()
        cv["b"].value = b
        cv["reg"].value = reg
        opts = {} if max_iter is None else {"max_iter" if solver == "clarabel" else "max_iters": max_iter}
        status, seconds, raw = solve_problem(cv["problem"], solver, **opts)
        w = cv["w"].value
        if w is None:
            return SolveResult(None, SolveStatus.FAILED if status == SolveStatus.OPTIMAL else status,
                               np.nan, np.inf, solver, seconds=seconds, info={"raw_status": raw})
        w = np.asarray(w, dtype=float)
        f, g = self.objective(w, b, reg)
        return SolveResult(w, status, f, float(np.linalg.norm(g)), solver,
                           iterations=int(cv["problem"].solver_stats.num_iters or 0),
                           seconds=seconds, info={"raw_status": raw})


def _dense_to_csr(M: np.ndarray, nonzero: np.ndarray) -> sp.csr_array:
    """CSR copy of a dense matrix given its mask ``M != 0`` (row-major scan; ~4x faster
    than SciPy's conversion through COO)."""
    indptr = np.zeros(M.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.count_nonzero(nonzero, axis=1), out=indptr[1:])
    flat = np.flatnonzero(nonzero)
    return sp.csr_array((M.ravel()[flat], flat % M.shape[1], indptr), shape=M.shape)
