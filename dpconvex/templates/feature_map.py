"""Public feature maps and structured parameterizations for the softmax large-margin template.

The model is linear in a public per-record feature vector u(x), ||u|| <= 1: with x̂ = x/q, public weights (wq,
wl, wc) >= 0 and N their norm, ``"full"`` u = [wq·svec(x̂x̂ᵀ), wl·x̂, wc]/N, ``"diagonal"`` u = [wq·(x̂∘x̂),
wl·x̂, wc]/N, ``"linear"`` u = [wl·x̂, wc]/N. Every softmax constant holds for u in place of zzᵀ; the
parameter is Θ ∈ R^{C×m}, a_c = ⟨Θ_c, u⟩, noise i.i.d. of shape (C, m). Each u is a public linear image of
zzᵀ, so Θ_c is released as Φ_c for z = [x; 1]/sqrt(q² + 1) (:meth:`FeatureMap.to_blocks`, adjoint
:meth:`FeatureMap.from_blocks`), which also serves records held anywhere (Dask). Derivations:
docs/privacy/large_margin_softmax.md#privacy-feature-map-structures.

References
----------
.. [KST] D. Kifer, A. Smith, A. Thakurta. Private Convex Empirical Risk
   Minimization and High-dimensional Regression. COLT 2012, Thm. 2.
.. [SS] F. Sha, L. K. Saul. Large Margin Gaussian Mixture Modeling for Phonetic
   Classification and Recognition. ICASSP 2006.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import MAX_MAGNITUDE, MIN_MAGNITUDE, _short_repr, check_option
from ..errors import ParameterError
from ..privacy.certificate import PublicFeatureMap
from ..privacy.checks import exact_number
from .base import EuclideanSpace
from .large_margin_rows import AugmentedRows

__all__ = [
    "DEFAULT_WEIGHTS",
    "STRUCTURES",
    "FeatureMap",
    "FeatureMapSpace",
    "check_feature_options",
    "feature_map_of",
]

#: The structures of ``PrivateLargeMarginGaussian(loss="softmax", structure=...)``.
STRUCTURES = ("full", "diagonal", "linear")

#: (wq, wl, wc) of ``feature_weights=None`` for the structured maps ("full" with None is
#: the z′ map of privacy-softmax-feature-map). Chosen on validation splits of the training parts
#: (docs/privacy/large_margin_softmax.md#privacy-feature-map-structures).
DEFAULT_WEIGHTS = {"diagonal": (0.25, 1.0, 0.05), "linear": (0.0, 1.0, 0.1)}

#: Rows per block where a check forms the features of in-memory rows (about 2 MB of them).
_BLOCK_BYTES = 1 << 21


def _in_range(v: float) -> bool:
    """Whether |v| lies in [1e-100, 1e100], the magnitudes of an estimator's float parameters."""
    return MIN_MAGNITUDE <= abs(v) <= MAX_MAGNITUDE


def _weights_refusal(weights: tuple[float, ...], name: str, owner: str,
                     given: Any) -> ParameterError | None:
    """The :class:`ParameterError` for a nonzero weight of magnitude outside [1e-100, 1e100]
    (:data:`~dpconvex._validation.MIN_MAGNITUDE`, :data:`~dpconvex._validation.MAX_MAGNITUDE`),
    else None.

    Each weight, not only the largest: a weight w enters the products w·w of the norm N and
    w·x of the features. With every nonzero weight (and q) in that range, every factor of the
    map (w/N · r/q, w/N · r²/q² and their intermediate products, r = sqrt(q² + 1)) lies
    between about 7e-201 and 1e200, a normal float64, whatever the ratio of the largest
    weight to the smallest; a product w·x that underflows (|x| < 1e-208) is off by at most
    5e-324, 5e-224 once divided by N >= 1e-100: no bound on that ratio is needed.
    """
    if all(w == 0.0 or _in_range(w) for w in weights):
        return None
    return ParameterError(
        f"The '{name}' parameter of {owner} must hold weights that are 0 or of magnitude "
        f"between {MIN_MAGNITUDE:g} and {MAX_MAGNITUDE:g}: outside that range float64 products "
        "such as w*w (the norm N of the weights) or w*x (the features) underflow or overflow, "
        f"and N no longer bounds the features. Got {_short_repr(given)} instead. The features "
        "do not change when every weight is multiplied by the same number: divide the weights "
        "by the largest one.")


def check_feature_options(structure: Any, weights: Any, owner: str, *, softmax: bool
                          ) -> tuple[float, float, float] | None:
    """Validate ``structure`` / ``feature_weights``; the weights to use (None: the z′ path).

    ParameterError for an unknown structure, structure/weights without ``loss="softmax"``,
    weights not three finite reals >= 0, a nonzero weight of magnitude outside [1e-100, 1e100],
    all zero, or wq > 0 with ``"linear"``.

    Examples
    --------
    >>> from dpconvex.templates.feature_map import check_feature_options
    >>> check_feature_options("diagonal", None, "demo", softmax=True)
    (0.25, 1.0, 0.05)
    >>> check_feature_options("full", None, "demo", softmax=True) is None
    True
    """
    check_option("structure", structure, STRUCTURES, owner)
    if structure == "full" and weights is None:
        return None
    if not softmax:
        raise ParameterError(
            f"{owner}.fit: structure={structure!r} / feature_weights need loss='softmax' (the "
            "pairwise template learns full blocks on z); set loss='softmax', or leave "
            "structure='full' and feature_weights=None.")
    if weights is None:
        return DEFAULT_WEIGHTS[structure]
    try:
        w = tuple(weights)
    except TypeError:
        w = ()
    if len(w) != 3 or not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in w):
        raise ParameterError(f"The 'feature_weights' parameter of {owner} must be None or "
                             f"three numbers (wq, wl, wc). Got {_short_repr(weights)} instead.")
    wq, wl, wc = (float(v) for v in w)
    if not all(math.isfinite(v) and v >= 0 for v in (wq, wl, wc)):
        raise ParameterError(f"The 'feature_weights' parameter of {owner} must hold finite "
                             f"weights >= 0. Got {_short_repr(weights)} instead.")
    refusal = _weights_refusal((wq, wl, wc), "feature_weights", owner, weights)
    if refusal is not None:
        raise refusal
    if structure == "linear" and wq != 0:
        raise ParameterError(
            f"{owner}.fit: structure='linear' has no quadratic part, so wq must be 0; got "
            f"feature_weights={_short_repr(weights)}. Pass (0, wl, wc), or "
            "structure='diagonal'/'full'.")
    if wq == wl == wc == 0:
        raise ParameterError(f"The 'feature_weights' parameter of {owner} must have a weight "
                             f"> 0. Got {_short_repr(weights)} instead.")
    return wq, wl, wc


def _number(name: str, value: Any) -> float:
    """``value`` read once as a built-in float (:func:`~dpconvex.privacy.checks.exact_number`),
    else a :class:`ParameterError` naming its type."""
    number = exact_number(value)
    if type(number) is not float:
        raise ParameterError(
            f"The '{name}' parameter of FeatureMap must hold numbers of an exact type (int, "
            "float, Fraction, a NumPy scalar). Got a value of type "
            f"{type(value).__qualname__} instead: its conversions and arithmetic would be its "
            "author's; pass a built-in float.")
    return number


@dataclass(frozen=True)
class FeatureMap:
    """The public map x ↦ u(x) of a ``structure`` ("full", "diagonal", "linear") with
    ``weights`` (wq, wl, wc), on z = [x; 1]/sqrt(q² + 1), q = ``data_norm``, d features
    (module docstring).

    Each number is read once where the map is made, as a built-in float (``d`` as an int):
    the check of the feature norms (:meth:`feature_norms`) and the solve read the same q and
    weights, and the check evaluates ||u_i|| with the factors the solve multiplies the rows by.

    Raises
    ------
    ParameterError
        A weight, ``data_norm`` or ``d`` that is not a number of an exact type (int, float,
        ``Fraction``, a NumPy scalar; :func:`~dpconvex.privacy.checks.exact_number`), named by
        its type; a weight not finite and >= 0, all weights 0, or a nonzero weight of magnitude
        outside [1e-100, 1e100]; ``data_norm`` not finite and > 0, or outside [1e-100, 1e100];
        ``d`` not a whole number >= 1.

    Examples
    --------
    >>> from dpconvex.data.preprocess import augment_and_scale
    >>> from dpconvex.templates.feature_map import FeatureMap
    >>> fmap = FeatureMap("linear", (0.0, 1.0, 0.1), data_norm=1.0, d=3)
    >>> U = fmap.features(augment_and_scale(np.eye(3) / 2, data_norm=1.0))
    >>> U.shape, fmap.m
    ((3, 4), 4)
    >>> bool(np.all(fmap.feature_norms(augment_and_scale(np.eye(3) / 2, 1.0)) <= fmap.norm + 1e-12))
    True
    """

    structure: str
    weights: tuple[float, float, float]
    data_norm: float
    d: int

    def __post_init__(self) -> None:
        check_option("structure", self.structure, STRUCTURES, "FeatureMap")
        try:
            weights = tuple(self.weights)
        except TypeError:
            weights = ()
        if len(weights) != 3:
            raise ParameterError(f"The 'weights' parameter of FeatureMap must be three numbers "
                                 f"(wq, wl, wc). Got {_short_repr(self.weights)} instead.")
        # a frozen record: each number set once, as a built-in float (int), through object
        object.__setattr__(self, "weights", tuple(_number("weights", w) for w in weights))
        if not all(math.isfinite(w) and w >= 0 for w in self.weights) or not any(self.weights):
            raise ParameterError(f"The 'weights' parameter of FeatureMap must be three finite "
                                 f"numbers >= 0, not all 0. Got {self.weights!r} instead.")
        refusal = _weights_refusal(self.weights, "weights", "FeatureMap", self.weights)
        if refusal is not None:
            raise refusal
        q = _number("data_norm", self.data_norm)
        if not (math.isfinite(q) and q > 0):
            raise ParameterError(f"The 'data_norm' parameter of FeatureMap must be a finite "
                                 f"float > 0. Got {q!r} instead.")
        if not _in_range(q):
            raise ParameterError(
                f"The 'data_norm' parameter of FeatureMap must be a float of magnitude between "
                f"{MIN_MAGNITUDE:g} and {MAX_MAGNITUDE:g}, as an estimator's: outside that range "
                f"q*q under- or overflows in the map's factors r²/q². Got {q!r} instead.")
        object.__setattr__(self, "data_norm", q)
        d = _number("d", self.d)
        if not (d.is_integer() and d >= 1):
            raise ParameterError(f"The 'd' parameter of FeatureMap must be an int >= 1. Got "
                                 f"{d!r} instead.")
        object.__setattr__(self, "d", int(d))

    @property
    def norm(self) -> float:
        """N = sqrt(wq² + wl² + wc²) (wq = 0 for ``"linear"``), by :func:`math.hypot`: no
        square of a weight is formed, so none under- or overflows."""
        return math.hypot(*self.weights)

    @property
    def n_quadratic(self) -> int:
        d = self.d
        return {"full": d * (d + 1) // 2, "diagonal": d, "linear": 0}[self.structure]

    @property
    def m(self) -> int:
        """Length of u: the quadratic, d linear and 1 constant coordinates."""
        return self.n_quadratic + self.d + 1

    def linear_weights(self) -> tuple[float, np.ndarray]:
        """(r, k) of ``"linear"``: u_i = t_i · k ∘ z_i with t_i = r·z_{i,1}, r = sqrt(q² + 1).

        u = [wl·t·x̂, wc·t²]/N with x̂ = (r/q) z_x and t² = t·r·z_1, so the scores are t ∘ (Z (k ∘ Θ)ᵀ) and
        the adjoint k ∘ ((t ∘ W)ᵀ Z): products with the rows z themselves, no n × m feature matrix.
        """
        q, N = self.data_norm, self.norm
        r = math.sqrt(q * q + 1.0)
        _, wl, wc = self.weights
        k = np.full(self.d + 1, wl * r / (q * N))
        k[-1] = wc * r / N
        return r, k

    def _k(self) -> tuple[float, float, float]:
        """Entry factors of Φ_c: (r² wq/(N q²), r² wl/(2 N q), r² wc/N)."""
        q = self.data_norm
        r2, N = q * q + 1.0, self.norm
        wq, wl, wc = self.weights
        return r2 * wq / (N * q * q), r2 * wl / (2.0 * N * q), r2 * wc / N

    def stated(self) -> PublicFeatureMap:
        """The map's public facts, as the certificate states them (a line with fields).

        Returns
        -------
        PublicFeatureMap
            The structure, the weights, the bound N on a feature vector's norm and the
            number m of features.

        Examples
        --------
        >>> from dpconvex.templates.feature_map import FeatureMap
        >>> fmap = FeatureMap("linear", (0.0, 1.0, 0.1), data_norm=1.0, d=3)
        >>> line = fmap.stated()
        >>> line.structure, line.weights, line.m, line.norm == fmap.norm
        ('linear', (0.0, 1.0, 0.1), 4, True)
        """
        return PublicFeatureMap(self.structure, tuple(self.weights), self.norm, self.m)

    # ------------------------------------------------------------ records
    def _parts(self, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(x̂, t): x̂ = (r/q) z_x and t = r z_1 (1 for a record, 0 for a zeroed row)."""
        q = self.data_norm
        r = math.sqrt(q * q + 1.0)
        Z = np.asarray(Z, dtype=float)
        return Z[:, :-1] * (r / q), Z[:, -1] * r

    def features(self, Z: np.ndarray) -> np.ndarray:
        """u for every row of the in-memory z, shape (n, m)."""
        xh, t = self._parts(Z)
        wq, wl, wc = self.weights
        cols = []
        if self.structure == "full":
            iu = np.triu_indices(self.d, 1)
            cols += [xh * xh, math.sqrt(2.0) * xh[:, iu[0]] * xh[:, iu[1]]]
        elif self.structure == "diagonal":
            cols.append(xh * xh)
        cols = [wq * c for c in cols]
        cols += [wl * t[:, None] * xh, wc * (t * t)[:, None]]
        return np.hstack(cols) / self.norm

    def feature_norms(self, Z: Any) -> np.ndarray:
        """||u_i|| for every record, evaluated with the factors the solve multiplies by.

        Not the weights and N again: a norm N that is off (rounded, under- or overflowed)
        changes these factors, and so the norms read here, as it changes the features. The
        solve (:class:`FeatureMapSpace`) and this check per kind of rows:

        * ``"diagonal"`` on in-memory rows: the features :meth:`features` themselves, by
          blocks of rows (exact);
        * ``"linear"`` on in-memory rows or :class:`~.large_margin_rows.AugmentedRows`:
          u_i = t_i · k ∘ z_i with (r, k) of :meth:`linear_weights` and t_i = r z_{i,1}, so
          ||u_i|| = |t_i| · ||(k_x ||z_{i,x}||, k_1 z_{i,1})|| (exact; from the stored norms of
          the rows, no pass over them);
        * otherwise the quadratic forms at Φ = :meth:`to_blocks` (Θ): u_i is
          :meth:`from_blocks` (z_i z_iᵀ), of norm ||(kq s_i², 2 kl |t_i| s_i, kc t_i²)|| with
          (kq, kl, kc) the entry factors of Φ, s_i = ||z_{i,x}||, t_i = z_{i,1} (exact for
          ``"full"`` and ``"linear"``; an upper bound for ``"diagonal"``, from
          ||z_x ∘ z_x|| <= ||z_x||²).

        Norms of pairs and triples by :func:`numpy.hypot`: no square of a factor is formed.
        """
        if isinstance(Z, np.ndarray) and self.structure == "diagonal":
            Z = np.asarray(Z, dtype=float)
            out = np.empty(Z.shape[0])
            step = max(1, _BLOCK_BYTES // (8 * self.m))
            for a in range(0, Z.shape[0], step):
                out[a:a + step] = np.linalg.norm(self.features(Z[a:a + step]), axis=1)
            return out
        if isinstance(Z, np.ndarray):  # on views of Z: no copy of the rows
            Z = np.asarray(Z, dtype=float)
            Zx = Z[:, :-1]
            s, t = np.sqrt(np.einsum("ij,ij->i", Zx, Zx)), Z[:, -1]
        elif isinstance(Z, AugmentedRows):
            s, t = Z.head_norms(), Z.column
        else:  # a design operator: ||z_x||² and z_1² by two quadratic forms per record
            P = np.zeros((2, self.d + 1, self.d + 1))
            P[0, :-1, :-1] = np.eye(self.d)
            P[1, -1, -1] = 1.0
            F = np.asarray(Z.forms(P), dtype=float)
            s, t = np.sqrt(np.maximum(F[:, 0], 0.0)), np.sqrt(np.maximum(F[:, 1], 0.0))
        t = np.abs(t)
        if self.structure == "linear" and isinstance(Z, (np.ndarray, AugmentedRows)):
            r, k = self.linear_weights()
            return (t * r) * np.hypot(k[0] * s, k[-1] * t)
        kq, kl, kc = self._k()
        return np.hypot(np.hypot(kq * (s * s), (2.0 * kl) * (t * s)), kc * (t * t))

    # ----------------------------------------------------- the linear map Θ ↔ Φ
    def to_blocks(self, theta: np.ndarray) -> np.ndarray:
        """Φ_c (shape (C, D, D), symmetric) with zᵀΦ_c z = ⟨Θ_c, u(z)⟩ for every z."""
        T = np.asarray(theta, dtype=float)
        T = T.reshape(-1, self.m)
        d, nq = self.d, self.n_quadratic
        kq, kl, kc = self._k()
        P = np.zeros((T.shape[0], d + 1, d + 1))
        idx = np.arange(d)
        if self.structure == "full":
            iu = np.triu_indices(d, 1)
            P[:, idx, idx] = kq * T[:, :d]
            off = kq * T[:, d:nq] / math.sqrt(2.0)
            P[:, iu[0], iu[1]] = off
            P[:, iu[1], iu[0]] = off
        elif self.structure == "diagonal":
            P[:, idx, idx] = kq * T[:, :d]
        P[:, :d, d] = kl * T[:, nq:nq + d]
        P[:, d, :d] = kl * T[:, nq:nq + d]
        P[:, d, d] = kc * T[:, -1]
        return P

    def from_blocks(self, G: np.ndarray) -> np.ndarray:
        """The adjoint of :meth:`to_blocks`: ⟨to_blocks(Θ), G⟩ = ⟨Θ, from_blocks(G)⟩, (C, m)."""
        G = np.asarray(G, dtype=float).reshape(-1, self.d + 1, self.d + 1)
        d = self.d
        kq, kl, kc = self._k()
        idx = np.arange(d)
        cols = []
        if self.structure == "full":
            iu = np.triu_indices(d, 1)
            cols += [
                kq * G[:, idx, idx],
                kq * (G[:, iu[0], iu[1]] + G[:, iu[1], iu[0]]) / math.sqrt(2.0),
            ]
        elif self.structure == "diagonal":
            cols.append(kq * G[:, idx, idx])
        cols += [kl * (G[:, :d, d] + G[:, d, :d]), kc * G[:, d, d][:, None]]
        return np.hstack(cols)


class FeatureMapSpace(EuclideanSpace):
    """Θ ∈ R^{C×m} (orthonormal coordinates, unconstrained): forms ⟨Θ_c, u_i⟩ and their adjoint.

    ``blocks`` = (C, m) is the noise's shape, ``shape`` = (C·m,) the solver's flat iterate.
    Projection and post-processing are the identity and i.i.d. N(0, σ²) coordinates of Θ
    are already the noise law of privacy-feature-map-structures (:class:`EuclideanSpace`: a reshape).

    ``"diagonal"`` on in-memory rows: one product with the n × m features (built once per
    Z); ``"linear"``: one product with the rows z scaled per column and per row
    (:meth:`FeatureMap.linear_weights`, no feature matrix); ``"full"``, or a design
    operator: the quadratic forms of ``quad`` at Φ = :meth:`FeatureMap.to_blocks` (Θ) and
    the adjoint :meth:`FeatureMap.from_blocks`.

    Examples
    --------
    >>> from dpconvex.templates import FullPSD
    >>> from dpconvex.templates.feature_map import FeatureMap, FeatureMapSpace
    >>> fmap = FeatureMap("linear", (0.0, 1.0, 0.1), data_norm=1.0, d=3)
    >>> space = FeatureMapSpace(fmap, n_classes=2, quad=FullPSD(2, 1, 4))
    >>> space.shape
    (8,)
    """

    _caches = ("_cache",)  # the features of the rows, computed at first use

    def __init__(self, fmap: FeatureMap, n_classes: int, quad: Any):
        self.fmap, self.C, self.quad = fmap, int(n_classes), quad
        super().__init__((self.C * fmap.m,))  # the solver's iterate is flat
        self.blocks = (self.C, fmap.m)  # the noise's shape
        self.name = f"feature map {fmap.structure!r}, unconstrained, p = C m = {self.dimension}"
        self._cache: tuple[Any, Any] | None = None

    def _features(self, Z: Any) -> np.ndarray | None:
        if not isinstance(Z, np.ndarray) or self.fmap.structure != "diagonal":
            return None
        if self._cache is None or self._cache[0] is not Z:
            self._cache = (Z, self.fmap.features(Z))
        return self._cache[1]

    def _linear_parts(self, Z: Any) -> tuple[np.ndarray, np.ndarray] | None:
        """``"linear"`` on in-memory rows: (t, k) of :meth:`FeatureMap.linear_weights`."""
        if not isinstance(Z, np.ndarray) or self.fmap.structure != "linear":
            return None
        if self._cache is None or self._cache[0] is not Z:
            r, k = self.fmap.linear_weights()
            self._cache = (Z, (Z[:, -1] * r, k))
        return self._cache[1]

    def forms(self, Z: Any, theta: np.ndarray) -> np.ndarray:
        """⟨Θ_c, u_i⟩ for every row and class, shape (n, C)."""
        T = np.asarray(theta, dtype=float).reshape(self.blocks)
        lin = self._linear_parts(Z)
        if lin is not None:
            t, k = lin
            F = ((T * k) @ Z.T).T  # (n, C), column-major: BLAS's faster order for C << n
            F *= t[:, None]
            return F
        U = self._features(Z)
        if U is not None:
            return U @ T.T
        return self.quad.forms(Z, self.fmap.to_blocks(T)[:, None])

    def adjoint(self, Z: Any, W: np.ndarray) -> np.ndarray:
        """Σ_i W[i, c] u_i, shape (C, m)."""
        lin = self._linear_parts(Z)
        if lin is not None:
            t, k = lin
            return ((np.asarray(W, dtype=float) * t[:, None]).T @ Z) * k
        U = self._features(Z)
        if U is not None:
            return np.asarray(W, dtype=float).T @ U
        G = np.asarray(self.quad.adjoint(Z, W), dtype=float)
        return self.fmap.from_blocks(G.reshape(self.C, self.fmap.d + 1, self.fmap.d + 1))

    @staticmethod
    def gram_operator_norm(Z: Any) -> float:
        """1: λ_max((1/n) Σ_i u_i u_iᵀ) <= max_i ||u_i||² <= 1 (a public bound, no data read)."""
        return 1.0

    def __repr__(self) -> str:
        return f"FeatureMapSpace({self.fmap.structure!r}, C={self.C}, m={self.fmap.m})"


def feature_map_of(weights: tuple[float, float, float] | None, structure: str,
                   data_norm: float, d: int) -> FeatureMap | None:
    """The :class:`FeatureMap` of checked options (None: the z′ path).

    Examples
    --------
    >>> from dpconvex.templates.feature_map import feature_map_of
    >>> fmap = feature_map_of((0.25, 1.0, 0.05), "diagonal", data_norm=1.0, d=4)
    >>> fmap.structure, fmap.m
    ('diagonal', 9)
    >>> feature_map_of(None, "full", 1.0, 4) is None
    True
    """
    if weights is None:
        return None
    return FeatureMap(structure, tuple(float(w) for w in weights), float(data_norm), int(d))
