"""Adversarial adjacent pairs: the data sets an audit runs a mechanism on.

An audit's bound is only as strong as its pair: these put the differing record where it moves the output the
most (at the norm bound, on an axis of its own), as in [NST+21]_.

References
----------
.. [NST+21] M. Nasr, S. Song, A. Thakurta, N. Papernot, N. Carlini. Adversary
   Instantiation: Lower Bounds for Differentially Private Machine Learning.
   IEEE S&P 2021 (worst-case adjacent data sets for auditing).
.. [CMS] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially Private
   Empirical Risk Minimization. JMLR 12 (2011), Alg. 1 and 2.
.. [MT07] F. McSherry, K. Talwar. Mechanism Design via Differential Privacy.
   FOCS 2007.
"""

from __future__ import annotations

import numpy as np

from .._validation import (
    RandomStateLike,
    check_array_entries,
    check_float,
    check_int,
    check_random_state,
    describe_value,
)
from ..errors import ParameterError
from ..objectives.losses import parse_label_range

__all__ = ["exponential_mechanism_pair", "large_margin_pair", "linear_erm_pair"]


def _sizes(n: int, d: int, data_norm: float, owner: str) -> tuple[int, int, float]:
    """n >= 2 records of d >= 1 features (two n x d arrays that fit), and q > 0."""
    n = check_int("n", n, owner, low=2)
    d = check_int("d", d, owner)
    check_array_entries(2 * n * d, f"the pair (two {n} x {d} arrays)", owner, "Lower n or d.")
    return n, d, check_float("data_norm", data_norm, owner)


def _shared_rows(n: int, d: int, q: float, rng: np.random.Generator) -> np.ndarray:
    """n rows: row 0 zero, the others of norm in [q/4, q] on the axes e_1, ..., e_{d−1}."""
    X = np.zeros((n, d))
    if d > 1:
        G = rng.standard_normal((n - 1, d - 1))
        G /= np.maximum(np.linalg.norm(G, axis=1, keepdims=True), 1e-12)
        X[1:, 1:] = G * (q * rng.uniform(0.25, 1.0, size=(n - 1, 1)))
    return X


def linear_erm_pair(
    n: int, d: int, *, data_norm: float = 1.0, label_range: tuple[float, float] = (-1.0, 1.0),
    anchors: int = 0, random_state: RandomStateLike = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Adversarial replace-one pair for linear ERM, a classifier's or a regressor's: (X, y, X′, y′).

    Record 0 differs: x_0 = q·e_0 (at the norm bound, on an axis of its own) with label hi
    in D and lo in D′, the ends of ``label_range``; the other records are shared, on the axes
    e_1, ..., e_{d−1} (zero rows when d = 1), labels alternating. Coordinate 0 of the
    minimizer then depends on the records on e_0 alone, and for small n with the Huber and
    smooth hinges or the Huber regression loss it moves by the whole sensitivity 2q/(nΛ) of
    [CMS]_ Alg. 1. ``anchors`` = k copies record 0 of D into records 1, ..., k of both data
    sets, so that over the orthant projected output perturbation still moves by the whole
    sensitivity (docs/privacy/auditing.md#privacy-audit-regression-forms).

    Parameters
    ----------
    n : int
        Records (>= 2).
    d : int
        Features (>= 1).
    data_norm : float
        Public bound q.
    label_range : (float, float), default=(-1.0, 1.0)
        (lo, hi), lo < hi: the labels of record 0 in D′ and in D.
    anchors : int, default=0
        k in [0, n − 1]: records that copy record 0 of D in both data sets.
    random_state : None, int or Generator
        For the other records (public randomness of the test design).

    Returns
    -------
    X, y, X_prime, y_prime : ndarray
        Rows (n, d) and labels of D and D′.

    Examples
    --------
    >>> from dpconvex.audit import linear_erm_pair
    >>> X, y, X_prime, y_prime = linear_erm_pair(5, 2, random_state=0)
    >>> X[0].tolist(), int(y[0]), int(y_prime[0])  # record 0 at the norm bound, label flipped
    ([1.0, 0.0], 1, -1)
    >>> bool((X[1:] == X_prime[1:]).all() and (y[1:] == y_prime[1:]).all())
    True
    >>> X, y, _, y_prime = linear_erm_pair(4, 1, label_range=(0, 10), anchors=1)
    >>> X[:, 0].tolist(), y.tolist(), y_prime.tolist()  # one anchor copies record 0 of D
    ([1.0, 1.0, 0.0, 0.0], [10.0, 10.0, 10.0, 0.0], [0.0, 10.0, 10.0, 0.0])
    """
    owner = "linear_erm_pair"
    n, d, q = _sizes(n, d, data_norm, owner)
    labels = parse_label_range(label_range)
    if labels is None:
        raise ParameterError(f"The 'label_range' parameter of {owner} must be (lo, hi) with "
                             f"finite lo < hi. Got {describe_value(label_range)} instead.")
    lo, hi = labels
    k = check_int("anchors", anchors, owner, low=0, high=n - 1,
                  why="the anchors are records 1, ..., k of the n records")
    rng = check_random_state(random_state, owner)
    X = _shared_rows(n, d, q, rng)
    y = np.where(np.arange(n) % 2 == 0, hi, lo)
    X[: k + 1] = 0.0
    X[: k + 1, 0] = q
    y[: k + 1] = hi
    Xp, yp = X.copy(), y.copy()
    yp[0] = lo
    return X, y, Xp, yp


def large_margin_pair(
    n: int, d: int, *, n_classes: int = 2, data_norm: float = 1.0,
    random_state: RandomStateLike = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Adversarial replace-one pair for the large-margin Gaussian templates: (X, y, X′, y′).

    Record 0 is x_0 = q·e_0 (so z_0 = [x_0; 1]/sqrt(q² + 1) has norm 1, the bound of
    ``docs/privacy/large_margin.md#privacy-large-margin``), class 0 in D and class 1 in D′ (its rank-one term
    z zᵀ moves from one class's matrices to another's). The other records are shared, on the axes e_1, ...,
    e_{d−1} (zero rows when d = 1), with classes assigned round-robin so every class is present. Labels are
    class indices 0, ..., C − 1.

    Parameters
    ----------
    n : int
        Records (>= 2).
    d : int
        Features (>= 1).
    n_classes : int, default=2
        C (>= 2).
    data_norm : float, default=1.0
        Public bound q.
    random_state : None, int or Generator
        For the other records.

    Returns
    -------
    X, y, X_prime, y_prime : ndarray
        Rows (n, d) and class indices of D and D′.

    Examples
    --------
    >>> from dpconvex.audit import large_margin_pair
    >>> X, y, X_prime, y_prime = large_margin_pair(6, 3, n_classes=3, random_state=0)
    >>> X.shape, bool((X == X_prime).all()), int((y != y_prime).sum())  # record 0 changes class
    ((6, 3), True, 1)
    """
    owner = "large_margin_pair"
    n, d, q = _sizes(n, d, data_norm, owner)
    C = check_int("n_classes", n_classes, owner, low=2)
    rng = check_random_state(random_state, owner)
    X = _shared_rows(n, d, q, rng)
    y = np.arange(n, dtype=np.int64) % C
    X[0, 0] = q
    y[0] = 0
    Xp, yp = X.copy(), y.copy()
    yp[0] = 1
    return X, y, Xp, yp


def exponential_mechanism_pair(
    *, sensitivity: float = 1.0, gap: float = 2.0
) -> tuple[np.ndarray, np.ndarray]:
    """Worst-case utility vectors (u, u′) for the exponential mechanism ([MT07]_).

    u = (0, g) and u′ = (−Δu, g + Δu): every utility moves by the sensitivity Δu, in
    opposite directions. With a = εg/(2Δu), P[0 | u]/P[0 | u′] = (1 + e^{a+ε})/(1 + e^a)
    grows with g towards e^ε (candidate 0 becomes rare: more runs). In [CMS]_ Alg. 4
    (Δu = 1) a held-out record that only candidate 0 classifies right is swapped for one
    that only candidate 1 does.

    Parameters
    ----------
    sensitivity : float, default=1.0
        Δu.
    gap : float, default=2.0
        g >= 0.

    Returns
    -------
    u, u_prime : ndarray of shape (2,)

    Examples
    --------
    >>> from dpconvex.audit import exponential_mechanism_pair
    >>> u, u_prime = exponential_mechanism_pair(sensitivity=1.0, gap=2.0)
    >>> u.tolist(), u_prime.tolist()  # each utility moves by the sensitivity
    ([0.0, 2.0], [-1.0, 3.0])
    """
    owner = "exponential_mechanism_pair"
    s = check_float("sensitivity", sensitivity, owner)
    g = check_float("gap", gap, owner, low_inclusive=True)
    return np.array([0.0, g]), np.array([-s, g + s])
