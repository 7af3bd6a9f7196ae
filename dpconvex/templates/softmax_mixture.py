"""The softmax loss for mixtures (K >= 1 components per class): active set and constants.

For a record (u, y) with a PUBLIC component m_i (the nearest public or DP-released
center: a function of the record and public quantities only), the loss of the
large-margin softmax template is a softmax over the S = 1 + (C − 1)K *active* scores
(docs/privacy/large_margin_softmax.md#privacy-softmax-mixtures)

    ℓ(Φ; u, y, m_i) = log( e^{−a_{y,m_i}} + Σ_{c≠y, m} e^{−a_{c,m}} ) + a_{y,m_i},

a_{c,m} = ⟨Φ_{c,m}, u⟩ (u = zzᵀ, or the public feature map u(x) of privacy-feature-map-structures), the other
components of the true class inactive. With p = softmax(−a) over the active set:

* gradient (e_{(y,m_i)} − p) ⊗ u on the active set: G = √2;
* Hessian (diag p − ppᵀ) ⊗ uuᵀ on the active set: rank <= S − 1 = (C − 1)K, every
  eigenvalue <= 1/2, trace <= T = 1 − 1/S;
* the gradient lies in {Σ α_j e_j ⊗ u : α supported on the active set, Σ α = 0}, of
  dimension S − 1 fixed by (u, y, m_i): one replace-one pair's gradient differences span
  <= k = 2(C − 1)K dimensions (the bound ★ of privacy-gaussian-profile-bound).

K = 1 is the softmax loss of privacy-softmax-constants (S = C, every score active; no mask, so the K = 1 path
is the arithmetic of privacy-softmax-constants). The softmax max-difference bound ★★ of
privacy-softmax-gaussian-objective is derived for K = 1 only: ``softmax_classes`` is 0 for K > 1, so only ★
is used.

Score column j = c·K + m (the block order of :class:`~.parameterizations.SymmetricShift`
and of the (C, K, D, D) release).

References
----------
.. [PR12] M. A. Pathak, B. Raj. Large Margin Gaussian Mixture Models with
   Differential Privacy. IEEE TDSC 9(4), 2012, eq. 11 (the mixture model and the
   component assignment; the softmax loss and its constants are dpconvex's).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import DataValidationError, ParameterError

__all__ = ["active_scores", "mixture_constants", "softmax_constants", "softmax_rows"]


def softmax_constants(n_classes: int) -> dict[str, float]:
    """G = √2, r = C − 1, c_u = 1/2, T = 1 − 1/C, m = C − 1
    (docs/privacy/large_margin_softmax.md#privacy-softmax-constants).

    Examples
    --------
    >>> from dpconvex.templates.softmax_mixture import softmax_constants
    >>> c = softmax_constants(3)
    >>> round(c["grad_bound"], 4), c["hessian_rank"], round(c["hessian_trace_bound"], 4)
    (1.4142, 2, 0.6667)
    """
    C = int(n_classes)
    return {"grad_bound": math.sqrt(2.0), "hessian_rank": C - 1, "hessian_term_bound": 0.5,
            "hessian_trace_bound": 1.0 - 1.0 / C, "gradient_span_dimension": C - 1,
            "softmax_classes": C}


def mixture_constants(n_classes: int, n_components: int) -> dict[str, float]:
    """The constants of privacy-softmax-mixtures for K components per class
    (privacy-softmax-constants's for K = 1).

    G = √2, r = (C − 1)K, c_u = 1/2, T = 1 − 1/S with S = 1 + (C − 1)K, gradient span
    dimension (C − 1)K; ``softmax_classes`` = 0 for K > 1 (the bound ★★ of
    privacy-softmax-gaussian-objective is not derived for mixtures).

    Examples
    --------
    >>> from dpconvex.templates.softmax_mixture import mixture_constants, softmax_constants
    >>> mixture_constants(3, 1) == softmax_constants(3)
    True
    >>> round(mixture_constants(3, 2)["grad_bound"], 4)
    1.4142
    """
    C, K = int(n_classes), int(n_components)
    if K == 1:
        return softmax_constants(C)
    S = 1 + (C - 1) * K
    return {"grad_bound": math.sqrt(2.0), "hessian_rank": S - 1, "hessian_term_bound": 0.5,
            "hessian_trace_bound": 1.0 - 1.0 / S, "gradient_span_dimension": S - 1,
            "softmax_classes": 0}


def active_scores(y: np.ndarray, components: Any, n_classes: int, n_components: int,
                  caller: str, constrained: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """(target column y·K + m_i per record, additive log-mask of shape (n, C·K) or None).

    The mask is 0 on the active scores and −inf on the K − 1 other components of the
    true class; None for K = 1 (every score active).

    Raises
    ------
    ParameterError
        K < 1, or K > 1 with ``constrained=True`` (not derived: use constrained=False).
    DataValidationError
        Components missing, of the wrong shape, or outside [0, K − 1] (K > 1).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex.templates.softmax_mixture import active_scores
    >>> target, mask = active_scores(np.array([0, 2, 1]), None, 3, 1, "demo", False)
    >>> target, mask is None
    (array([0, 2, 1]), True)
    """
    C, K = int(n_classes), int(n_components)
    y = np.asarray(y, dtype=np.int64)
    if K < 1:
        raise ParameterError(f"{caller}: n_components must be >= 1; got {n_components}. Pass "
                             "n_components >= 1.")
    if K == 1:
        return y, None
    if constrained:
        raise ParameterError(
            f"{caller}: the softmax mixture (n_components = {K}) is derived for the "
            "unconstrained template only (docs/privacy/large_margin_softmax.md#privacy-softmax-mixtures); "
            "use constrained=False, or n_components=1 for the PSD-constrained softmax template.")
    comps = None if components is None else np.asarray(components)
    if comps is None or comps.shape != y.shape or (comps.size and (
            comps.min() < 0 or comps.max() >= K or not np.all(comps == np.round(comps)))):
        raise DataValidationError(
            f"{caller}: n_components = {K} needs one component index in [0, {K - 1}] per "
            "record (components=, e.g. from dpconvex.estimators.large_margin.components.assign_components).")
    comps = comps.astype(np.int64)
    target = y * K + comps
    mask = np.zeros((y.shape[0], C * K))
    rows = np.arange(y.shape[0])
    for m in range(K):
        mask[rows, y * K + m] = -np.inf
    mask[rows, target] = 0.0
    return target, mask


#: Up to this many scores per row, the row maxima and sums are taken column by column
#: (NumPy's reductions along a short last axis cost several times more per entry).
_COLUMNWISE_MAX_SCORES = 16


def softmax_rows(N: np.ndarray, lse: np.ndarray | None = None) -> np.ndarray:
    """Softmax over the last axis of ``N``, in place, and the log-sum-exp of every row.

    One pass for the row maxima m, then ``N ← exp(N − m)`` and the row sums s in place,
    then ``N ← N / s``: on return N holds p = softmax(N) and the result is
    log Σ_j exp(N_j) = m + log s. Numerically stable (every exponent <= 0, each row's
    largest term is 1); entries of −inf (inactive scores) give p = 0, as long as every
    row has a finite entry.

    Parameters
    ----------
    N : ndarray of float64, C-contiguous, shape (..., S)
        The scores; overwritten with the softmax.
    lse : ndarray of shape N.shape[:-1] or None
        Where to write the log-sum-exp (None: a new array).

    Returns
    -------
    ndarray of shape N.shape[:-1]
        The log-sum-exp of every row (``lse`` when given).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex.templates.softmax_mixture import softmax_rows
    >>> N = np.array([[0.0, np.log(3.0)], [1000.0, 1000.0]])
    >>> softmax_rows(N).round(6).tolist(), N.round(6).tolist()
    ([1.386294, 1000.693147], [[0.25, 0.75], [0.5, 0.5]])
    """
    if not (N.flags.c_contiguous and N.flags.writeable and N.dtype == np.float64):
        raise ParameterError("softmax_rows: it works in place, so N must be a writeable, C-contiguous "
                             f"float64 array; got dtype {N.dtype}. Pass np.array(N, dtype=float).")
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
