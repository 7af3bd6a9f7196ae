"""The CVXPY form of the large-margin Gaussian classifier (the ``"cvxpy"`` capability).

Margins zᵀΦz for all rows through an auxiliary variable Q (n × C·K) with
``Q[:, j] == A @ hvec(Φ_j)``, A holding the half-vectorized z zᵀ rows (the form
that canonicalizes fastest at scale, see CVXPY_NOTES); the noise is one
symmetric 2-D :class:`cvxpy.Parameter` per block and λ + Δ/2 a parameter, so a
new draw re-solves without rebuilding.

The variables, the noise parameters and the map between the solved blocks and the
iterate come from the parameterization (a
:class:`~dpconvex.templates.parameterizations.BlockParameterization`): the noise
arrives in the iterate's shape ``space.shape`` and is read per block through the
``space.blocks`` view, and the solution goes back in ``space.shape``, the shape
the template's NumPy objective and every other backend use.
"""

from __future__ import annotations

from typing import Any

import cvxpy as cp
import numpy as np

from ..errors import ParameterError
from .parameterizations import BlockParameterization

__all__ = ["LargeMarginCVXPY"]


class LargeMarginCVXPY:
    """Mixin of :class:`~dpconvex.templates.large_margin.LargeMarginGaussianTemplate`: its CVXPY form.

    Uses the template's ``Z``, ``y``, ``components``, ``C``, ``K``, ``d``, ``D``,
    ``lam``, ``gamma``, ``loss``, ``extra_terms`` and ``space`` (a
    :class:`~dpconvex.templates.parameterizations.BlockParameterization`, e.g.
    :class:`~dpconvex.templates.parameterizations.FullPSD`).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex.data.preprocess import augment_and_scale
    >>> rng = np.random.default_rng(0)
    >>> Z = augment_and_scale(rng.normal(size=(30, 3)) / 3.0, data_norm=1.0)
    >>> y = np.arange(30) % 3
    >>> from dpconvex.templates import LargeMarginGaussianTemplate
    >>> from dpconvex.templates.large_margin_cvxpy import LargeMarginCVXPY
    >>> template = LargeMarginGaussianTemplate(Z, y, n_classes=3, lam=0.5)
    >>> isinstance(template, LargeMarginCVXPY), "cvxpy" in template.capabilities
    (True, True)
    """

    _cvx: dict[str, Any] | None
    space: BlockParameterization

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

    #: Options for the CVXPY backends: the SciPy canonicalization backend (the
    #: default C++ one was by far the slowest at digits size, see CVXPY_NOTES).
    cvxpy_options: dict[str, Any] = {"canon_backend": "SCIPY"}  # noqa: RUF012

    def cvxpy_problem(self) -> dict[str, Any]:
        """Build (once) and return the CVXPY problem with its parameters.

        Returns a dict with ``problem``, ``Phi`` (nested list of the parameterization's
        variables, ``Phi[c][m]``), ``B`` (nested list of symmetric 2-D noise parameters)
        and ``reg`` (parameter λ + Δ/2).
        """
        if not self.loss.has_cvxpy:
            raise ParameterError(
                f"{type(self).__name__}.cvxpy_problem: loss '{self.loss.name}' has no DCP form in "
                "CVXPY, so the CVXPY backends "
                "(clarabel, scs) cannot solve it: missing capability 'cvxpy'. Use "
                "solver='native'."
            )
        if self._cvx is None:
            self._cvx = self._build(self.Z, self.y, self.components)
        return self._cvx

    def cvxpy_set(self, b: np.ndarray | None, extra_reg: float) -> None:
        """Set the noise parameters (zero when ``b`` is None) and λ + Δ/2.

        ``b`` has the iterate's shape ``space.shape`` (what the solver backends pass);
        block (c, m) is read through the ``space.blocks`` view.
        """
        cv = self.cvxpy_problem()
        B = None if b is None else np.reshape(b, self.space.blocks)
        for c in range(self.C):
            for m in range(self.K):
                cv["B"][c][m].value = np.zeros((self.D, self.D)) if B is None else B[c, m]
        cv["reg"].value = self.regularizer.weight + 0.5 * extra_reg

    def cvxpy_solution(self) -> tuple[np.ndarray | None, dict[str, Any]]:
        """The solved Φ (shape ``space.shape``) projected onto the feasible set, and the
        minimum eigenvalue over the blocks before projecting.

        CVXPY's PSD variables may carry eigenvalues slightly below 0; the released point
        is the projection, and the residual is computed there.
        """
        Phi_raw = self.space.cvxpy_value(self.cvxpy_problem()["Phi"])
        if Phi_raw is None:
            return None, {}
        blocks = np.reshape(Phi_raw, self.space.blocks)
        min_eig = float(np.min(np.linalg.eigvalsh(0.5 * (blocks + np.swapaxes(blocks, -1, -2)))))
        return self.space.project(Phi_raw), {"min_eig_before_projection": min_eig}
