"""Statistical tests of the noise samplers.

Each KS test runs at level ALPHA = 1e-3 with a fixed seed: a correct sampler
would fail a given seed with probability 1e-3 (false-alarm rate), and the same
seed always gives the same outcome. Power checks show that the same tests
reject plausible wrong samplers.
"""

import numpy as np
import pytest
from scipy import stats

from dpconvex.errors import ParameterError
from dpconvex.privacy import noise

ALPHA = 1e-3
N = 4000


def _draw(shape, beta, symmetric, seed=0, n=N):
    rng = np.random.default_rng(seed)
    return np.stack([noise.norm_gamma(shape, beta, rng, symmetric=symmetric) for _ in range(n)])


def _sym_coords(B):
    """Coordinates of symmetric matrices in the orthonormal basis E_ii, (E_ij+E_ji)/sqrt2."""
    k = B.shape[-1]
    iu = np.triu_indices(k, 1)
    diag = B[..., np.arange(k), np.arange(k)]
    off = B[..., iu[0], iu[1]] * np.sqrt(2.0)
    return np.concatenate([diag.reshape(B.shape[0], -1), off.reshape(B.shape[0], -1)], axis=1)


def _direction_pvalue(coords, seed=1):
    """KS of <u, b/||b||> against the law of one coordinate of a uniform point on S^{p-1}."""
    p = coords.shape[1]
    u = np.random.default_rng(seed).standard_normal(p)
    u /= np.linalg.norm(u)
    t = coords @ u / np.linalg.norm(coords, axis=1)
    a = (p - 1) / 2.0
    return stats.kstest((t + 1) / 2, stats.beta(a, a).cdf).pvalue


@pytest.mark.parametrize("shape,beta", [((1,), 1.0), ((5,), 2.0), ((31,), 0.3), ((4, 3), 5.0)])
def test_vector_norm_is_gamma_and_direction_uniform(shape, beta):
    b = _draw(shape, beta, symmetric=False)
    assert b.shape == (N, *shape)
    p = int(np.prod(shape))
    flat = b.reshape(N, -1)
    norms = np.linalg.norm(flat, axis=1)
    assert stats.kstest(norms, stats.gamma(a=p, scale=1 / beta).cdf).pvalue > ALPHA
    if p > 1:
        assert _direction_pvalue(flat) > ALPHA


@pytest.mark.slow
@pytest.mark.parametrize("shape,beta", [((3, 3), 1.0), ((2, 3, 3), 0.5), ((2, 2, 4, 4), 3.0)])
def test_symmetric_norm_is_gamma_in_symmetric_dimension(shape, beta):
    B = _draw(shape, beta, symmetric=True)
    assert np.allclose(B, np.swapaxes(B, -1, -2))
    p = noise.symmetric_dimension(shape)
    k = shape[-1]
    assert p == int(np.prod(shape[:-2])) * k * (k + 1) // 2
    norms = np.sqrt((B.reshape(N, -1) ** 2).sum(axis=1))
    assert stats.kstest(norms, stats.gamma(a=p, scale=1 / beta).cdf).pvalue > ALPHA
    # direction uniform on the sphere of the symmetric subspace
    mats = B.reshape(N, -1, k, k)
    coords = np.concatenate([_sym_coords(mats[:, j]) for j in range(mats.shape[1])], axis=1)
    assert np.allclose(np.linalg.norm(coords, axis=1), norms)  # isometry
    assert _direction_pvalue(coords) > ALPHA


def test_power_full_space_symmetrized_sampler_is_rejected():
    """The papers' recipe (draw in dimension k^2, symmetrize) fails the norm test."""
    k, beta = 4, 1.0
    rng = np.random.default_rng(0)
    bad = np.stack([noise.norm_gamma((k, k), beta, rng) for _ in range(N)])
    bad = (bad + np.swapaxes(bad, -1, -2)) / 2
    norms = np.linalg.norm(bad.reshape(N, -1), axis=1)
    p = k * (k + 1) // 2
    assert stats.kstest(norms, stats.gamma(a=p, scale=1 / beta).cdf).pvalue < ALPHA


def test_power_wrong_rate_and_nonuniform_direction_are_rejected():
    b = _draw((5,), 2.0, symmetric=False)
    norms = np.linalg.norm(b, axis=1)
    # halved noise scale (rate doubled) is detected
    assert stats.kstest(norms, stats.gamma(a=5, scale=1 / 1.0).cdf).pvalue < ALPHA
    # a direction biased toward one axis is detected
    skew = b.copy()
    skew[:, 0] = np.abs(skew[:, 0])
    assert _direction_pvalue(skew, seed=3) < ALPHA or _direction_pvalue(skew, seed=4) < ALPHA


def test_reproducible_with_seed_and_fresh_without():
    a = noise.norm_gamma(7, 1.0, random_state=42)
    b = noise.norm_gamma(7, 1.0, random_state=42)
    assert np.array_equal(a, b)
    c = noise.norm_gamma(7, 1.0)
    d = noise.norm_gamma(7, 1.0)
    assert not np.array_equal(c, d)


@pytest.mark.parametrize("beta", [0, -1, np.nan, np.inf, "1"])
def test_bad_rate_raises(beta):
    with pytest.raises(ParameterError, match="beta"):
        noise.norm_gamma(3, beta)


def test_bad_shapes_raise():
    with pytest.raises(ParameterError):
        noise.norm_gamma((0,), 1.0)
    with pytest.raises(ParameterError, match="square"):
        noise.norm_gamma((3, 4), 1.0, symmetric=True)


def test_gaussian_and_laplace_scales():
    g = noise.Gaussian(2.0).sample((20000,), np.random.default_rng(0))
    assert stats.kstest(g, stats.norm(scale=2.0).cdf).pvalue > ALPHA
    lap = noise.Laplace(0.5).sample((20000,), np.random.default_rng(0))
    assert stats.kstest(lap, stats.laplace(scale=0.5).cdf).pvalue > ALPHA
    with pytest.raises(ParameterError):
        noise.Gaussian(0.0)


@pytest.mark.slow
def test_exponential_mechanism_frequencies():
    """Selection frequencies match exp(eps*u/2) weights: chi-square at level 1e-3 (fixed seed)."""
    u = np.array([0.0, -1.0, -2.0, -4.0])
    eps = 1.0
    w = np.exp(eps * u / 2)
    w /= w.sum()
    rng = np.random.default_rng(0)
    n = 20000
    picks = np.bincount([noise.exponential_mechanism(u, eps, random_state=rng) for _ in range(n)],
                        minlength=4)
    assert stats.chisquare(picks, n * w).pvalue > ALPHA
    # power: the weights exp(eps*u) (forgetting the 1/2) are rejected
    w2 = np.exp(eps * u)
    w2 /= w2.sum()
    assert stats.chisquare(picks, n * w2).pvalue < ALPHA


def test_snap_grid_is_public_power_of_two_and_fine():
    rng = np.random.default_rng(0)
    for s in (1e-6, 0.3, 1.0, 7.5, 1e4):
        g = noise.snap_grid(s)
        assert g == 2.0 ** np.floor(np.log2(g))  # a power of two
        assert s * 2.0**-21 < g <= s * 2.0**-20
        x = rng.normal(size=50) * s * 10
        y = noise.snap(x, s)
        assert np.all(np.abs(y - x) <= g / 2)
        assert np.all(np.mod(y / g, 1.0) == 0)  # on the grid
        assert np.array_equal(noise.snap(y, s), y)  # idempotent
    with pytest.raises(ParameterError):
        noise.snap(np.zeros(2), 0.0)


def test_snap_erases_the_center_from_the_low_bits():
    """Mironov's round-trip test separates fl(c + b) from fl(c' + b); after snapping it cannot."""
    c1, c2 = np.array([0.1]), np.array([0.1 + 3e-17 * 7])  # centers a few ulps apart
    rng = np.random.default_rng(1)
    b = rng.laplace(0, 1.0, size=(4000, 1))

    def fails(o, c):
        return np.any((o - c) + c != o, axis=1).mean()

    raw1, raw2 = c1 + b, c2 + b
    assert fails(raw2, c2) == 0 and fails(raw1, c2) > 0.05
    s1, s2 = noise.snap(raw1, 1.0), noise.snap(raw2, 1.0)
    assert abs(fails(s1, c2) - fails(s2, c2)) < 0.05
