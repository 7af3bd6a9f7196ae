"""Noise laws and samplers: the one place where noise is added to a release.

A mechanism names its noise as a law (:class:`Laplace`, :class:`Gaussian`,
:class:`NormGamma` of [CMS]_ Alg. 1 and 2, :class:`SupNormGamma`, or a :class:`NoiseSum` of them) built from
public parameters. The law draws (:meth:`Noise.sample`: noise that enters an objective), adds and snaps
(:meth:`Noise.add`: every additive release), and carries its public per-coordinate scale and moments for the
reports and warnings. No mechanism draws from a generator or calls :func:`snap` itself (a test reads the
package's source to keep it so). The samplers take ``random_state`` (None: seeded from the OS) and validate
their scales. The guarantees are for the idealized real-valued mechanism; snapping and what it does not prove:
docs/privacy/accuracy_randomness.md#privacy-accuracy-randomness.

References
----------
.. [CMS] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially Private
   Empirical Risk Minimization. JMLR 12 (2011), Alg. 1 and 2.
"""

from __future__ import annotations

import contextvars
import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import numpy as np

from .._validation import (
    RandomStateLike,
    check_float,
    check_random_state,
    describe_value,
)
from ..errors import ParameterError, PrivacyError

__all__ = ["SNAP_BITS", "Gaussian", "Laplace", "Noise", "NoiseSum", "NormGamma", "SupNormGamma",
           "exponential_mechanism", "norm_gamma", "sup_norm_gamma", "snap", "snap_grid",
           "symmetric_dimension"]

#: The snapping grid is 2^-SNAP_BITS of the noise scale (rounded down to a power of two).
SNAP_BITS = 20
#: A coordinate x is rounded to a step of at least 2^SNAP_ULP_BITS times its float spacing:
#: max(grid, 2^(⌊log2 |x|⌋ − 52 + SNAP_ULP_BITS)), the grid coarsened where |x| >= 2^33 grid
#: steps (between 2^12 and 2^13 noise scales).
SNAP_ULP_BITS = 20
#: Released coordinates are clamped to ±SNAP_BOUND = 2^1024 − 2^991, the largest multiple of
#: the step of the top binade (an infinite coordinate, or one within 2^991 of the float maximum).
SNAP_BOUND = math.ldexp(1.0 - 2.0**-33, 1024)
#: Noise scales :func:`snap` accepts: the grid 2^(⌊log2 s⌋ - SNAP_BITS) stays a normal
#: float (>= 2^-1020), and a draw of up to 2^28 scales stays finite (<= 2^1023, one binade
#: of margin because ``math.log2`` can round up just below a power of two).
SNAP_SCALE_MIN = 2.0 ** (-1020 + SNAP_BITS)
SNAP_SCALE_MAX = 2.0 ** 995

#: The owner named by a refused noise scale. Internal scales are products of parameters:
#: ``check_float(..., magnitude=False)`` checks only positivity and finiteness (the
#: parameters' magnitudes are checked by the estimators, snap checks its range).
_OWNER = "dpconvex.privacy.noise"

#: The draw records of the holds open in this context (:func:`watch_draws`), innermost last.
_WATCHES: contextvars.ContextVar[tuple[DrawRecord, ...]] = contextvars.ContextVar(
    "dpconvex_noise_watches", default=())


class DrawRecord:
    """Whether noise was drawn while a :func:`watch_draws` block was open (``drawn``).

    Attributes
    ----------
    drawn : bool
        True once any sampler of this module drew while the block holding this record was
        open.

    Examples
    --------
    >>> from dpconvex.privacy.noise import DrawRecord
    >>> DrawRecord().drawn
    False
    """

    __slots__ = ("drawn",)

    def __init__(self) -> None:
        self.drawn = False


@contextmanager
def watch_draws() -> Iterator[DrawRecord]:
    """Record whether any noise is drawn in this context while the block is open: every
    sampler of this module marks the records of all the open blocks (a release's hold nests
    the holds of the fits it runs: their noise is its noise too).

    Yields
    ------
    DrawRecord
        ``drawn`` turns True at the first draw.

    Examples
    --------
    >>> from dpconvex.privacy.noise import Laplace, watch_draws
    >>> with watch_draws() as record:
    ...     before = record.drawn
    ...     _ = Laplace(1.0).sample((2,), np.random.default_rng(0))
    >>> before, record.drawn
    (False, True)
    """
    record = DrawRecord()
    token = _WATCHES.set((*_WATCHES.get(), record))
    try:
        yield record
    finally:
        _WATCHES.reset(token)


def _mark_drawn() -> None:
    """Mark every open :func:`watch_draws` record: noise is being drawn."""
    for record in _WATCHES.get():
        record.drawn = True


def _parameter(name: str, value: float | np.ndarray) -> float | np.ndarray:
    """A law's scale or rate: a float > 0, or an array (a family of laws, one per entry, e.g.
    one per modulus of the Λ rule's grid: its moments and coordinate scales are arrays, as the
    arithmetic gives them at the ends, e.g. infinite at a rate 0; a family does not draw)."""
    if not isinstance(value, np.ndarray):
        return check_float(name, value, _OWNER, magnitude=False)
    family = np.array(value, dtype=float)  # a copy, read-only
    family.flags.writeable = False
    return family


def _one_law(law: Noise, parameter: float | np.ndarray) -> None:
    """Refuse a draw from a family of laws (:func:`_parameter`)."""
    if isinstance(parameter, np.ndarray):
        raise ParameterError(f"{type(law).__name__}.sample: a family of laws (an array "
                             "parameter) gives moments only. Build the law from one scale.")


def _check_shape(
    shape: int | Sequence[int], caller: str, *, scalar: bool = False
) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    shape = tuple(map(int, shape))
    if (len(shape) == 0 and not scalar) or min(shape, default=1) <= 0:
        kind = "a tuple of positive ints (() for one number)" if scalar else \
            "a non-empty tuple of positive ints"
        raise ParameterError(
            f"The 'shape' argument of {caller} must be {kind}. Got {describe_value(shape)} instead."
        )
    return shape


def symmetric_dimension(shape: Sequence[int]) -> int:
    """Dimension of the space of arrays of ``shape`` symmetric in the last two axes.

    ``shape = (..., k, k)`` gives ``prod(...) * k (k + 1) / 2``.

    Examples
    --------
    >>> from dpconvex.privacy.noise import symmetric_dimension
    >>> symmetric_dimension((2, 3, 3))
    12
    """
    shape = _check_shape(shape, "symmetric_dimension")
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ParameterError(
            "symmetric_dimension: symmetric=True needs the last two axes of shape to be equal "
            f"(square matrices). Got shape {describe_value(shape)}. Pass a shape (..., k, k)."
        )
    k = shape[-1]
    return int(np.prod(shape[:-2], dtype=np.int64)) * k * (k + 1) // 2


def _norm_gamma_coordinates(p: int, rate: float, rng: np.random.Generator) -> np.ndarray:
    """One draw of density ∝ exp(−rate‖b‖) on R^p (rate a checked float > 0): ‖b‖ ~
    Gamma(p, 1/rate) times a uniform direction [CMS]_."""
    _mark_drawn()
    g = rng.standard_normal(p)
    nrm = float(np.linalg.norm(g))
    while nrm == 0.0:  # probability zero; keeps the direction well defined
        g = rng.standard_normal(p)
        nrm = float(np.linalg.norm(g))
    radius = rng.gamma(shape=p, scale=1.0 / rate)
    return g * (radius / nrm)


def _sup_norm_gamma_coordinates(p: int, rate: float, rng: np.random.Generator) -> np.ndarray:
    """One draw of density ∝ exp(−rate‖b‖_∞) on R^p (rate a checked float > 0): a radius
    Gamma(p + 1, 1/rate) times a point uniform in [−1, 1]^p (:func:`sup_norm_gamma`)."""
    _mark_drawn()
    radius = rng.gamma(shape=p + 1, scale=1.0 / rate)
    return radius * rng.uniform(-1.0, 1.0, size=p)


def _symmetric_from_coordinates(coords: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Map coordinates in the orthonormal basis {E_ii, (E_ij + E_ji)/sqrt 2} to matrices.

    The map is an isometry: the Frobenius norm of the result equals the Euclidean norm of ``coords``.
    """
    k = shape[-1]
    lead = shape[:-2]
    m = int(np.prod(lead, dtype=np.int64))
    coords = coords.reshape(m, k * (k + 1) // 2)
    out = np.zeros((m, k, k))
    iu = np.triu_indices(k, 1)
    out[:, np.arange(k), np.arange(k)] = coords[:, :k]
    off = coords[:, k:] / math.sqrt(2.0)
    out[:, iu[0], iu[1]] = off
    out[:, iu[1], iu[0]] = off
    return out.reshape(shape)


def norm_gamma(shape: int | Sequence[int], beta: float, random_state: RandomStateLike = None,
               symmetric: bool = False) -> np.ndarray:
    """Draw b with density ∝ exp(-beta * ||b||), ||.|| the Euclidean (Frobenius) norm.

    One draw of :class:`NormGamma`: in p dimensions, radius ``||b|| ~ Gamma(p, 1/beta)``
    times a uniform direction [CMS]_.

    ``beta`` > 0 is the rate (objective perturbation: ε'/sensitivity); ``random_state``
    None seeds from the OS; ``symmetric``: the last two axes hold symmetric matrices and
    the draw lives in the symmetric subspace (:func:`symmetric_dimension`; orthonormal basis
    ``E_ii``, ``(E_ij + E_ji)/sqrt(2)``), density ∝ exp(-beta ||b||_F).

    Examples
    --------
    >>> from dpconvex.privacy.noise import norm_gamma
    >>> b = norm_gamma(5, beta=2.0, random_state=0)
    >>> b.shape
    (5,)
    >>> s = norm_gamma((3, 3), beta=2.0, random_state=0, symmetric=True)
    >>> bool(np.allclose(s, s.T))
    True
    """
    shape = _check_shape(shape, "norm_gamma")
    law = NormGamma(beta, symmetric=symmetric)
    return law.sample(shape, check_random_state(random_state, "norm_gamma"))


def sup_norm_gamma(
    shape: int | Sequence[int], beta: float, random_state: RandomStateLike = None
) -> np.ndarray:
    """Draw b with density ∝ exp(-beta * ||b||_inf) over the whole array (rate beta > 0).

    The K-norm sampler for the sup norm (Hardt & Talwar, STOC 2010): r ~ Gamma(p + 1, 1/beta)
    times a point uniform in [-1, 1]^p, whose density is
    ∫_{||b||_inf}^∞ beta^{p+1} r^p e^{-beta r} / p! · (2r)^{-p} dr = beta^p exp(-beta ||b||_inf) / (2^p p!).

    Examples
    --------
    >>> from dpconvex.privacy.noise import sup_norm_gamma
    >>> sup_norm_gamma((2, 3), beta=0.5, random_state=0).shape
    (2, 3)
    """
    shape = _check_shape(shape, "sup_norm_gamma")
    beta = check_float("beta", beta, _OWNER, magnitude=False)
    rng = check_random_state(random_state, "sup_norm_gamma")
    return _sup_norm_gamma_coordinates(_entries(shape), beta, rng).reshape(shape)


def exponential_mechanism(utilities: Sequence[float] | np.ndarray, epsilon: float,
                          sensitivity: float = 1.0, random_state: RandomStateLike = None) -> int:
    """Pick an index with probability ∝ exp(epsilon * u_i / (2 * sensitivity)).

    McSherry & Talwar (FOCS 2007). For CMS Alg. 4, ``u_i = -z_i`` with z_i the
    number of validation mistakes of candidate i (sensitivity 1).

    Returns
    -------
    int, the selected index.

    Examples
    --------
    >>> from dpconvex.privacy.noise import exponential_mechanism
    >>> exponential_mechanism([0.0, 0.0, 100.0], epsilon=1.0, random_state=0)
    2
    """
    u = np.asarray(utilities, dtype=float)
    if u.ndim != 1 or u.size == 0 or not np.all(np.isfinite(u)):
        raise ParameterError("The 'utilities' argument of exponential_mechanism must be a "
                             "non-empty 1-D array of finite floats.")
    epsilon = check_float("epsilon", epsilon, _OWNER, magnitude=False)
    sensitivity = check_float("sensitivity", sensitivity, _OWNER, magnitude=False)
    logits = epsilon * u / (2.0 * sensitivity)
    logits -= logits.max()
    w = np.exp(logits)
    w /= w.sum()
    rng = check_random_state(random_state, "exponential_mechanism")
    _mark_drawn()
    return int(rng.choice(u.size, p=w))


def snap_grid(noise_scale: float) -> float:
    """The public grid step for :func:`snap`: the power of two <= noise_scale · 2^-SNAP_BITS.

    Examples
    --------
    >>> from dpconvex.privacy.noise import snap_grid
    >>> g = snap_grid(0.5)
    >>> g <= 0.5, float.hex(g)
    (True, '0x1.0000000000000p-21')
    """
    noise_scale = check_float("noise_scale", noise_scale, _OWNER, magnitude=False)
    return math.ldexp(1.0, math.floor(math.log2(noise_scale)) - SNAP_BITS)


def snap(x: np.ndarray, noise_scale: float) -> np.ndarray:
    """Round a noisy release to a public power-of-two grid (after Mironov's snapping).

    The low-order bits of fl(c + b) keep a trace of the center c (Mironov, CCS 2012). Rounding every
    coordinate to g = 2^⌊log2 s⌋ · 2^-20 (s = ``noise_scale``) erases them exactly (g is a power of two) and
    moves a coordinate by <= s·2^-21. Where |x| is so large that g would be finer than 2^20 times the
    float spacing of x (|x| >= 2^33 g), x is rounded to 2^(⌊log2 |x|⌋ − 32) instead, a power of two and a
    multiple of g, so that the rounding stays 2^20 ulps coarse (it moves x by at most |x|·2^-33);
    coordinates are clamped to ±``SNAP_BOUND``. What this does and does not prove:
    docs/privacy/accuracy_randomness.md#privacy-accuracy-randomness.

    ``noise_scale`` is the public per-coordinate scale of the noise added to ``x``; every
    entry of the result is an integer multiple of ``snap_grid(noise_scale)`` (infinite ones
    clamped). A scale outside [``SNAP_SCALE_MIN``, ``SNAP_SCALE_MAX``) (the
    grid would not be a normal float, or the noise would overflow) raises
    :class:`ParameterError`; a NaN in ``x`` :class:`PrivacyError`.

    Examples
    --------
    >>> from dpconvex.privacy.noise import snap, snap_grid
    >>> x = snap(np.array([0.123456789, -1.0]), noise_scale=0.5)
    >>> bool(np.all(np.round(x / snap_grid(0.5)) == x / snap_grid(0.5)))
    True
    """
    s = check_float("noise_scale", noise_scale, "dpconvex.privacy.noise.snap", magnitude=False)
    if not SNAP_SCALE_MIN <= s < SNAP_SCALE_MAX:
        raise ParameterError(
            f"snap: the noise scale {s:.3g} is too {'large' if s > 1 else 'small'} to represent: "
            f"snapping needs a noise scale in [{SNAP_SCALE_MIN:.3g}, {SNAP_SCALE_MAX:.3g}) "
            "(above, the noise overflows float64; below, "
            "the grid is not a normal float). Nothing is released. Raise epsilon or lam, or "
            "lower data_norm (or the reverse for a scale that is too small)."
        )
    g = math.ldexp(1.0, math.floor(math.log2(s)) - SNAP_BITS)  # snap_grid(s)
    x = np.asarray(x, dtype=float)
    if np.any(np.isnan(x)):
        raise PrivacyError(
            "snap: the noisy release contains NaN (an overflow upstream, e.g. inf - inf); "
            "nothing is released. Check the scale of the data and of the parameters."
        )
    x = np.clip(x, -SNAP_BOUND, SNAP_BOUND)
    # each coordinate's step: g, or 2^(e − 1 − 52 + SNAP_ULP_BITS) for |x| in [2^(e−1), 2^e) (frexp's e)
    exponent = np.frexp(x)[1]
    step = np.maximum(g, np.ldexp(1.0, exponent - 53 + SNAP_ULP_BITS))
    return np.round(x / step) * step


# ------------------------------------------------------------------------------- laws
class Noise:
    """A public noise law on arrays (module docstring): :meth:`sample`, :meth:`add` (draw and
    snap), :meth:`coordinate_scale` (the snapping unit) and :meth:`moments`. A law built from an
    array of scales or rates (:class:`Laplace`, :class:`Gaussian`, :class:`NormGamma`) is a
    family of laws, one per entry: its moments and coordinate scales are arrays, and it does not
    draw (the Λ rule weighs a calibration on a grid of moduli this way).

    Examples
    --------
    >>> from dpconvex.privacy.noise import Laplace, snap_grid
    >>> law = Laplace(scale=0.5)
    >>> out = law.add(np.array([0.25, -1.0]), np.random.default_rng(0))
    >>> bool(np.all(out / snap_grid(0.5) == np.round(out / snap_grid(0.5))))
    True
    >>> law.moments((2,))
    (1.0, 1.0)
    """

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in vars(self).items())})"

    def __eq__(self, other: object) -> bool:
        """Laws of one kind with the same parameters (a family's: entry by entry)."""
        if type(other) is not type(self):
            return NotImplemented
        mine, theirs = vars(self), vars(other)
        return mine.keys() == theirs.keys() and all(
            np.array_equal(value, theirs[key]) if isinstance(value, np.ndarray)
            else value == theirs[key] for key, value in mine.items())

    def sample(self, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        """One draw of the law on an array of ``shape``."""
        raise NotImplementedError

    def coordinate_scale(self, shape: tuple[int, ...]) -> float:
        """The public per-coordinate scale of the noise on ``shape`` (the snapping unit)."""
        raise NotImplementedError

    def moments(self, shape: tuple[int, ...]) -> tuple[float, float]:
        """(E‖b‖ or an upper bound on it, E‖b‖²) of one draw on ``shape``."""
        raise NotImplementedError

    def scaled(self, factor: float) -> Noise:
        """The law of ``factor`` times a draw of this one (an audit's mis-calibrated noise).

        Examples
        --------
        >>> from dpconvex.privacy.noise import NormGamma
        >>> NormGamma(2.0).scaled(0.5), NormGamma(2.0).scaled(0.5).moments((4,))[0]
        (NormGamma(rate=4.0, symmetric=False, rows=False), 1.0)
        """
        raise NotImplementedError

    def add(self, value: np.ndarray | float, rng: RandomStateLike, *,
            shape: tuple[int, ...] | None = None) -> np.ndarray:
        """``value`` (the exact statistic) plus one draw of this law (of each of a :class:`NoiseSum`'s
        ``laws``, in order) from ``rng`` (a Generator, or a seed for one generator that all the laws
        draw from), snapped to the grid :func:`snap_grid` ``(coordinate_scale(shape))``;
        the laws are drawn in ``shape`` (default: ``value``'s) and reshaped to ``value``'s shape.

        Parameters
        ----------
        value : ndarray or float
            The exact statistic.
        rng : numpy.random.Generator or int or None
            The noise source: a Generator, or a seed for one (None: seeded from the OS).
        shape : tuple of int or None, default=None
            The shape the laws are drawn in (None: ``value``'s), e.g. a template's
            ``noise_shape`` where the law is on blocks.

        Returns
        -------
        ndarray
            ``value`` plus the noise, snapped, of ``value``'s shape.

        Raises
        ------
        ParameterError
            ``rng`` is neither a Generator, a non-negative int nor None.

        Examples
        --------
        >>> from dpconvex.privacy.noise import Laplace
        >>> out = Laplace(scale=0.5).add(np.array([0.25, -1.0]), np.random.default_rng(0))
        >>> out.shape, bool(np.all(out != np.array([0.25, -1.0])))
        ((2,), True)
        """
        rng = check_random_state(rng, f"{type(self).__name__}.add", "rng")
        value = np.asarray(value, dtype=float)
        shape = value.shape if shape is None else tuple(int(s) for s in shape)
        noisy = value
        for law in self.laws if isinstance(self, NoiseSum) else (self,):
            noisy = noisy + law.sample(shape, rng).reshape(value.shape)
        return snap(noisy, self.coordinate_scale(shape))


def _entries(shape: tuple[int, ...]) -> int:
    return int(np.prod(shape, dtype=np.int64))


class Laplace(Noise):
    """I.i.d. Laplace(0, ``scale``) noise: the Laplace mechanism, scale = Δ₁/ε [DMNS06].

    Examples
    --------
    >>> from dpconvex.privacy.noise import Laplace
    >>> Laplace(2.0).sample((3,), np.random.default_rng(0)).shape
    (3,)
    >>> Laplace(2.0).coordinate_scale((3,)), Laplace(2.0).moments((2,))
    (2.0, (4.0, 16.0))
    """

    def __init__(self, scale: float | np.ndarray) -> None:
        self.scale = _parameter("scale", scale)

    def sample(self, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        _one_law(self, self.scale)
        _mark_drawn()
        return rng.laplace(
            0.0, self.scale, size=_check_shape(shape, "Laplace.sample", scalar=True)
        )

    def coordinate_scale(self, shape: tuple[int, ...]) -> float:
        return self.scale

    def moments(self, shape: tuple[int, ...]) -> tuple[float, float]:
        sq = 2.0 * _entries(shape) * self.scale**2
        return np.sqrt(sq) if isinstance(sq, np.ndarray) else math.sqrt(sq), sq

    def scaled(self, factor: float) -> Laplace:
        return Laplace(self.scale * factor)


class Gaussian(Noise):
    """I.i.d. N(0, σ²) noise in orthonormal coordinates: the Gaussian mechanism.

    With ``symmetric=True`` the last two axes hold symmetric matrices and the law is the isotropic Gaussian in
    the orthonormal basis E_ii, (E_ij + E_ji)/√2: N(0, σ²) diagonal and N(0, σ²/2) off-diagonal entries.

    Examples
    --------
    >>> from dpconvex.privacy.noise import Gaussian
    >>> E = Gaussian(1.0, symmetric=True).sample((3, 3), np.random.default_rng(0))
    >>> bool(np.array_equal(E, E.T)), Gaussian(1.0, symmetric=True).moments((3, 3))[1]
    (True, 6.0)
    """

    def __init__(self, sigma: float | np.ndarray, *, symmetric: bool = False) -> None:
        self.sigma = _parameter("sigma", sigma)
        self.symmetric = bool(symmetric)

    def sample(self, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        _one_law(self, self.sigma)
        _mark_drawn()
        G = rng.normal(0.0, self.sigma, size=_check_shape(shape, "Gaussian.sample", scalar=True))
        return 0.5 * (G + np.swapaxes(G, -1, -2)) if self.symmetric else G

    def coordinate_scale(self, shape: tuple[int, ...]) -> float:
        return self.sigma

    def moments(self, shape: tuple[int, ...]) -> tuple[float, float]:
        p = symmetric_dimension(shape) if self.symmetric else _entries(shape)
        return math.sqrt(p) * self.sigma, p * self.sigma * self.sigma

    def scaled(self, factor: float) -> Gaussian:
        return Gaussian(self.sigma * factor, symmetric=self.symmetric)


class NormGamma(Noise):
    """Density ∝ exp(−β‖b‖) ([CMS]_ Alg. 1-2), on the whole array or on each row.

    ``rows=False``: one law on the whole array (of dimension p, the symmetric dimension with
    ``symmetric=True``): ‖b‖ ~ Gamma(p, 1/β), E‖b‖ = p/β. ``rows=True``: one independent law per index of the
    first axis on the k = prod(shape[1:]) entries of that row (the K-norm mechanism for Σ_c ‖b_c‖). The
    per-coordinate scale is E‖b_block‖/√k_block = √k_block/β.

    Examples
    --------
    >>> from dpconvex.privacy.noise import NormGamma
    >>> law = NormGamma(2.0, rows=True)
    >>> law.sample((3, 4), np.random.default_rng(0)).shape, law.coordinate_scale((3, 4))
    ((3, 4), 1.0)
    >>> NormGamma(2.0).moments((4,))
    (2.0, 5.0)
    """

    def __init__(self, rate: float | np.ndarray, *, symmetric: bool = False,
                 rows: bool = False) -> None:
        self.rate = _parameter("beta", rate)
        if symmetric and rows:
            raise ParameterError(
                "NormGamma.__init__: symmetric=True and rows=True together are not "
                "supported. Draw symmetric noise on the whole array (rows=False)."
            )
        self.symmetric, self.rows = bool(symmetric), bool(rows)

    def _block(self, shape: tuple[int, ...]) -> int:
        if self.rows:
            return _entries(shape[1:])
        return symmetric_dimension(shape) if self.symmetric else _entries(shape)

    def sample(self, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        """‖b‖ ~ Gamma(p, 1/β) times a uniform direction [CMS]_ (symmetric: :func:`norm_gamma`)."""
        shape = _check_shape(shape, "NormGamma.sample")
        _one_law(self, self.rate)
        k = self._block(shape)  # the law's dimension (a row's; the symmetric coordinates')
        if self.rows:
            return np.stack([_norm_gamma_coordinates(k, self.rate, rng)
                             for _ in range(shape[0])]).reshape(shape)
        coords = _norm_gamma_coordinates(k, self.rate, rng)
        return (_symmetric_from_coordinates(coords, shape) if self.symmetric
                else coords.reshape(shape))

    def coordinate_scale(self, shape: tuple[int, ...]) -> float:
        k = self._block(shape)
        return k / self.rate / math.sqrt(k)

    def moments(self, shape: tuple[int, ...]) -> tuple[float, float]:
        k = self._block(shape)
        if self.rows:  # E‖b‖² over the rows, and its Jensen bound on E‖b‖
            sq = shape[0] * k * (k + 1.0) / self.rate**2
            return math.sqrt(sq), sq
        scale = 1.0 / self.rate
        return k * scale, (k * scale) * ((k + 1.0) * scale)

    def scaled(self, factor: float) -> NormGamma:
        return NormGamma(self.rate / factor, symmetric=self.symmetric, rows=self.rows)


class SupNormGamma(Noise):
    """Density ∝ exp(−β‖b_c‖_∞) on each row c (the K-norm mechanism for the sup norm).

    One independent :func:`sup_norm_gamma` draw per index of the first axis on the
    k = prod(shape[1:]) entries of that row: E b_j² = (k + 1)(k + 2)/(3β²) per entry, so
    the per-coordinate scale is √((k + 1)(k + 2)/3)/β.

    Examples
    --------
    >>> from dpconvex.privacy.noise import SupNormGamma
    >>> SupNormGamma(1.0).sample((2, 3), np.random.default_rng(0)).shape
    (2, 3)
    >>> round(SupNormGamma(1.0).coordinate_scale((2, 3)), 4)
    2.582
    """

    def __init__(self, rate: float) -> None:
        self.rate = check_float("beta", rate, _OWNER, magnitude=False)

    def sample(self, shape: tuple[int, ...], rng: RandomStateLike) -> np.ndarray:
        """One draw per row from one generator (``rng``: a Generator, or a seed for one).

        Parameters
        ----------
        shape : tuple of int
            The shape of the draw: one row per index of its first axis.
        rng : numpy.random.Generator or int or None
            The noise source: a Generator, or a seed for one (None: seeded from the OS).

        Returns
        -------
        ndarray
            The draw, of ``shape``.

        Raises
        ------
        ParameterError
            ``shape`` is not a non-empty tuple of positive ints, or ``rng`` is not a
            Generator, a non-negative int or None.

        Examples
        --------
        >>> from dpconvex.privacy.noise import SupNormGamma
        >>> SupNormGamma(1.0).sample((2, 3), np.random.default_rng(0)).shape
        (2, 3)
        """
        shape = _check_shape(shape, "SupNormGamma.sample")
        rng = check_random_state(rng, "SupNormGamma.sample", "rng")
        k = _entries(shape[1:])
        return np.stack([_sup_norm_gamma_coordinates(k, self.rate, rng)
                         for _ in range(shape[0])]).reshape(shape)

    def coordinate_scale(self, shape: tuple[int, ...]) -> float:
        k = _entries(shape[1:])
        return math.sqrt((k + 1.0) * (k + 2.0) / 3.0) / self.rate

    def moments(self, shape: tuple[int, ...]) -> tuple[float, float]:
        sq = _entries(shape) * self.coordinate_scale(shape) ** 2
        return math.sqrt(sq), sq

    def scaled(self, factor: float) -> SupNormGamma:
        return SupNormGamma(self.rate / factor)


class NoiseSum(Noise):
    """Independent laws added in order (an inner mechanism's noise and a cover).

    The sum is snapped once, on the coarser of the laws' grids; its second moment is the sum of theirs.

    Examples
    --------
    >>> from dpconvex.privacy.noise import Gaussian, Laplace, NoiseSum
    >>> law = NoiseSum(Gaussian(1.0), Laplace(2.0))
    >>> law.coordinate_scale((3,)), law.moments((1,))[1]
    (2.0, 9.0)
    """

    def __init__(self, *laws: Noise) -> None:
        if not laws or not all(isinstance(law, Noise) for law in laws):
            raise ParameterError("NoiseSum.__init__: no noise law was given, or an argument is "
                                 "not a Noise. Pass one or more laws, e.g. "
                                 "NoiseSum(NormGamma(2.0), Gaussian(0.5)).")
        self.laws = tuple(laws)

    def sample(self, shape: tuple[int, ...], rng: RandomStateLike) -> np.ndarray:
        """Each law's draw in order, from one generator (``rng``: a Generator, or a seed).

        Parameters
        ----------
        shape : tuple of int
            The shape of the draw.
        rng : numpy.random.Generator or int or None
            The noise source: a Generator, or a seed for one (None: seeded from the OS).

        Returns
        -------
        ndarray
            The sum of the laws' draws, of ``shape``.

        Raises
        ------
        ParameterError
            ``rng`` is not a Generator, a non-negative int or None.

        Examples
        --------
        >>> from dpconvex.privacy.noise import Gaussian, Laplace, NoiseSum
        >>> draw = NoiseSum(Gaussian(1.0), Laplace(2.0)).sample((3,), np.random.default_rng(0))
        >>> rng = np.random.default_rng(0)  # the same draws, law after law
        >>> bool(np.array_equal(draw, Gaussian(1.0).sample((3,), rng)
        ...                     + Laplace(2.0).sample((3,), rng)))
        True
        """
        rng = check_random_state(rng, "NoiseSum.sample", "rng")
        out = self.laws[0].sample(shape, rng)
        for law in self.laws[1:]:
            out = out + law.sample(shape, rng)
        return out

    def coordinate_scale(self, shape: tuple[int, ...]) -> float:
        return max(law.coordinate_scale(shape) for law in self.laws)

    def moments(self, shape: tuple[int, ...]) -> tuple[float, float]:
        sq = sum(law.moments(shape)[1] for law in self.laws)
        return math.sqrt(sq), sq

    def scaled(self, factor: float) -> NoiseSum:
        return NoiseSum(*[law.scaled(factor) for law in self.laws])
