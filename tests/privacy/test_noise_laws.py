"""Noise laws: the one place where noise is added to a release, and what it guarantees.

Every additive release (means, counts, sums, sufficient statistics, output perturbation,
the naive-Bayes moments, noisy gradients) goes through :meth:`Noise.add`, which snaps the
noisy value to the public grid of the law's scale (Mironov, CCS 2012). A source scan keeps
mechanisms from drawing or snapping by hand; the floating-point audits run the project's
round-trip statistic on two releases and check that the lower bound on ε stays at or below
the claim.

Statistical tests: moments at a relative tolerance of 5 standard errors (two-sided
false-alarm rate < 1e-6 per check, fixed seeds); audits at confidence 0.99 (false alarm
<= 1 % per test, fixed seeds).
"""

from __future__ import annotations

import ast
import pathlib

import numpy as np
import pytest
from _helpers import fit_drawing_from, syntax_nodes
from scipy import stats

import dpconvex as dp
from dpconvex.audit import audit, float_consistency_statistic
from dpconvex.errors import ParameterError
from dpconvex.estimators.centroids import ClassSumTemplate
from dpconvex.privacy.budget import Budget
from dpconvex.privacy.mechanisms.gaussian import class_sums
from dpconvex.privacy.mechanisms.scalar import BoundedMeanTemplate
from dpconvex.privacy.noise import (
    Gaussian,
    Laplace,
    Noise,
    NoiseSum,
    NormGamma,
    SupNormGamma,
    snap,
    snap_grid,
)
from dpconvex.privacy.release import release

PACKAGE = pathlib.Path(dp.__file__).parent
SAFE = 0.99

LAWS = [Laplace(0.7), Gaussian(1.3), Gaussian(0.4, symmetric=True), NormGamma(2.0),
        NormGamma(0.5, symmetric=True), NormGamma(3.0, rows=True), SupNormGamma(1.5),
        NoiseSum(NormGamma(2.0), Gaussian(0.2))]
SHAPES = {id(law): (4, 4) if getattr(law, "symmetric", False) else (3, 5) for law in LAWS}


# ------------------------------------------------------------------ one place
#: Generator draws outside the noise module, each with why it is not noise added to a release.
NOT_RELEASE_NOISE = {
    "audit/pairs.py": "builds the auditor's adjacent data sets",
    "datasets/uci.py": "orders and subsamples public data files",
    "runs/runner.py": "subsamples the rows of a problem's quick form",
    "estimators/kernels.py": "random Fourier features: data-independent, public",
    "estimators/large_margin/components.py": "public component centres and assignments",
    "estimators/front_door.py": "the safeguard's random split of the rows",
    "estimators/selection/grid.py": "the random split of the rows into parts",
    "estimators/selection/random.py": "the split, the candidate index and the stopping time "
                                      "of a private random search (a selection), and its score "
                                      "noise: integers (geometric), exact above "
                                      "DISCRETE_LAPLACE_MIN_EPSILON",
    "objectives/losses.py": "probe points of a declared constant",
    "privacy/declarations.py": "probe points of a declared constant",
    "templates/large_margin.py": "probe points of the compiled problem",
    "templates/parameterizations.py": "a fixed public basis",
}
DRAWS = {"normal", "standard_normal", "laplace", "gamma", "standard_gamma", "exponential",
         "uniform", "random", "choice", "integers", "gumbel", "permutation", "shuffle",
         "binomial", "poisson", "beta", "chisquare", "multivariate_normal", "geometric", "logseries",
         "standard_exponential", "standard_cauchy", "hypergeometric", "negative_binomial"}
#: What a mechanism may import from the noise module: laws and public helpers, no sampler
#: (``watch_draws``, ``DrawRecord``: the budget hold's record of whether noise was drawn).
NOISE_IMPORTS = {"Noise", "NoiseSum", "Laplace", "Gaussian", "NormGamma", "SupNormGamma",
                 "exponential_mechanism", "symmetric_dimension", "snap_grid", "SNAP_BITS",
                 "watch_draws", "DrawRecord"}


def _scan(root: pathlib.Path = PACKAGE) -> tuple[dict[str, list[str]], list[str]]:
    draws: dict[str, list[str]] = {}
    imports = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel == "privacy/noise.py":
            continue
        for node in syntax_nodes(path):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in DRAWS):
                draws.setdefault(rel, []).append(f"{node.lineno}: {ast.unparse(node.func)}")
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[-1] == "noise":
                imports += [f"{rel}: {a.name}" for a in node.names if a.name not in NOISE_IMPORTS]
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id in ("snap", "norm_gamma", "sup_norm_gamma"):
                imports.append(f"{rel}:{node.lineno}: calls {node.func.id}")
    return draws, imports


def test_noise_is_drawn_and_snapped_in_the_noise_module_only():
    draws, imports = _scan()
    by_hand = {rel: calls for rel, calls in draws.items() if rel not in NOT_RELEASE_NOISE}
    assert not by_hand, ("draw noise through a law of dpconvex.privacy.noise (Noise.add for an "
                         f"additive release, Noise.sample for an objective): {by_hand}")
    assert not imports, f"samplers or snap used outside the noise module: {imports}"
    stale = set(NOT_RELEASE_NOISE) - set(draws)
    assert not stale, f"listed as drawing but draws nothing: {stale}"


def test_the_scan_sees_a_mechanism_that_adds_noise_by_hand(tmp_path):
    """Power: the scan flags the pattern the rule forbids (rng.laplace, snap by name)."""
    src = "def run(rng, mean):\n    return snap(mean + rng.laplace(0.0, 1.0), 1.0)\n"
    (tmp_path / "privacy").mkdir()
    (tmp_path / "privacy" / "mean.py").write_text(src)
    draws, imports = _scan(tmp_path)
    assert draws == {"privacy/mean.py": ["2: rng.laplace"]}
    assert imports == ["privacy/mean.py:2: calls snap"]


# ------------------------------------------------------------------ the laws
@pytest.mark.parametrize("law", LAWS, ids=repr)
def test_add_is_the_value_plus_one_draw_snapped(law):
    shape = SHAPES[id(law)]
    value = np.random.default_rng(1).normal(size=shape) * 3.0
    out = law.add(value, np.random.default_rng(2))
    expected = snap(value + law.sample(shape, np.random.default_rng(2)),
                    law.coordinate_scale(shape))
    np.testing.assert_array_equal(out, expected)  # same stream, same arithmetic
    g = snap_grid(law.coordinate_scale(shape))
    assert np.array_equal(out, np.round(out / g) * g)
    flat = law.add(value.ravel(), np.random.default_rng(2), shape=shape)  # drawn in shape
    np.testing.assert_array_equal(flat, expected.ravel())


@pytest.mark.parametrize("law", LAWS, ids=repr)
def test_moments_are_those_of_the_draws(law):
    shape, n = SHAPES[id(law)], 4000
    rng = np.random.default_rng(3)
    draws = np.stack([law.sample(shape, rng) for _ in range(n)])  # n draws, one call each
    sq = np.sum(draws ** 2, axis=tuple(range(1, draws.ndim)))  # ||b||^2 of each draw
    norm, second = law.moments(shape)
    # E||b||^2 within 5 standard errors; E||b|| never above its stated value (a bound)
    assert abs(sq.mean() - second) <= 5 * sq.std() / np.sqrt(n)
    assert np.sqrt(sq).mean() <= norm * (1 + 5 / np.sqrt(n))


@pytest.mark.parametrize("law", LAWS, ids=repr)
def test_a_scaled_law_draws_the_law_s_draws_times_the_factor(law):
    """The same stream: draws and moments times the factor (rounding only: rtol 1e-12)."""
    shape, factor = SHAPES[id(law)], 2.5
    scaled = law.scaled(factor)
    assert type(scaled) is type(law) and scaled != law
    np.testing.assert_allclose(scaled.sample(shape, np.random.default_rng(5)),
                               factor * law.sample(shape, np.random.default_rng(5)), rtol=1e-12)
    norm, second = law.moments(shape)
    np.testing.assert_allclose(scaled.moments(shape), (factor * norm, factor**2 * second),
                               rtol=1e-12)


def test_a_sum_adds_in_order_and_snaps_on_the_coarser_grid():
    a, b = Gaussian(0.1), Laplace(3.0)
    assert NoiseSum(a, b).laws == (a, b)
    value = np.linspace(-1, 1, 6)
    out = NoiseSum(a, b).add(value, np.random.default_rng(4))
    rng = np.random.default_rng(4)
    first = value + a.sample((6,), rng)
    np.testing.assert_array_equal(out, snap(first + b.sample((6,), rng), 3.0))


def test_an_int_seed_makes_one_generator_for_every_row_and_law():
    """An int seed seeds one generator that a draw's rows, and a sum's laws, draw from in turn:
    the draw is the one of the Generator it seeds (same stream, same arithmetic: exact). The rows
    of one draw differ: two continuous draws coincide with probability 0 (no false alarm)."""
    law, shape = SupNormGamma(1.0), (3, 2)
    rows = law.sample(shape, 0)
    assert len({tuple(row) for row in rows}) == shape[0]
    np.testing.assert_array_equal(rows, law.sample(shape, np.random.default_rng(0)))
    both, rng = NoiseSum(law, law), np.random.default_rng(0)
    first = law.sample(shape, rng)
    np.testing.assert_array_equal(both.sample(shape, 0), first + law.sample(shape, rng))
    value = np.zeros(shape)
    np.testing.assert_array_equal(both.add(value, 0), both.add(value, np.random.default_rng(0)))


def test_the_rows_of_an_int_seeded_draw_are_independent_with_gamma_sup_norms():
    """Over 2,000 seeds, the sup norms of a draw's first two rows: Kendall's independence test
    and a KS test of the second row against Gamma(k, 1/β), each at level 1e-3 (false alarm
    0.1 % per check, fixed seeds)."""
    k, beta = 4, 2.0
    draws = np.stack([SupNormGamma(beta).sample((2, k), seed) for seed in range(2000)])
    sup = np.abs(draws).max(axis=2)
    assert stats.kendalltau(sup[:, 0], sup[:, 1]).pvalue > 1e-3
    assert stats.kstest(sup[:, 1], stats.gamma(a=k, scale=1 / beta).cdf).pvalue > 1e-3


@pytest.mark.parametrize("shape,rng,match", [((3, 0), 0, "'shape' argument of SupNormGamma"),
                                             ((), 0, "'shape' argument of SupNormGamma"),
                                             ((2, 2), -1, "'rng' argument of SupNormGamma")])
def test_a_bad_shape_or_seed_of_a_sup_norm_draw_is_refused_by_name(shape, rng, match):
    with pytest.raises(ParameterError, match=match):
        SupNormGamma(1.0).sample(shape, rng)


@pytest.mark.parametrize("make", [lambda: Laplace(0.0), lambda: Gaussian(-1.0),
                                  lambda: NormGamma(np.inf), lambda: SupNormGamma("1"),
                                  lambda: NormGamma(1.0, symmetric=True, rows=True),
                                  lambda: NoiseSum()])
def test_bad_laws_are_refused_by_name(make):
    with pytest.raises(ParameterError):
        make()


def test_a_law_is_a_noise():
    assert all(isinstance(law, Noise) for law in LAWS)


# ------------------------------------------------------------ floating point (Mironov)
def _labels(n: int = 40) -> tuple[np.ndarray, np.ndarray]:
    """(D, D') for a mean of labels in [-1, 1]: one label moved from one end to the other.

    The other labels are 0, so the two centres ∓1/n have short binary expansions: the case
    where the low-order bits of fl(c + b) tell the centres apart (with labels drawn at
    random the unsnapped round trip fired on neither data set in 1000 releases).
    """
    y = np.zeros(n)
    y[-1] = -1.0
    yp = y.copy()
    yp[-1] = 1.0
    return y, yp


#: Releases per data set of the round-trip audits: 1,000 in the fast suite, 3,000 marked slow.
#: Unsnapped (``snap`` replaced by the identity), the mean's audit below measured 2.8 at
#: 1,000 runs and 4.0 at 3,000 (seed 9): the quick form still fails a release that is not
#: snapped.
ROUND_TRIP_RUNS = [1000, pytest.param(3000, marks=pytest.mark.slow)]


@pytest.mark.parametrize("runs", ROUND_TRIP_RUNS)
def test_the_released_mean_passes_the_round_trip_test_alike(runs):
    """The Laplace mean (the constant of PrivateRegressor), at the template: 3000 releases on
    each of D and D' with the round trip against the centre of D'. Unsnapped, the test fires
    on about a fifth of the releases from D and never on D': a bound near 4.5 at ε = 1."""
    y, yp = _labels()

    def mean_release(labels, rng):
        t = BoundedMeanTemplate(labels)
        return release(t, "laplace_mean", Budget(1.0), None, rng).theta

    r = audit(mean_release, y, yp, n_runs=runs, confidence=SAFE, random_state=9,
              statistic=float_consistency_statistic(float(np.sum(yp)) / yp.size))
    assert r.epsilon_lower_bound <= 1.0, f"PRIVACY BUG (floating point): {r}"


@pytest.mark.parametrize("runs", ROUND_TRIP_RUNS)
def test_the_released_class_sums_pass_the_round_trip_test_alike(runs):
    rng = np.random.default_rng(6)
    U = rng.normal(size=(40, 3))
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    labels = np.arange(40) % 2
    Up, labels_p = U.copy(), labels.copy()
    Up[-1], labels_p[-1] = -U[-1], 1 - labels[-1]
    templates = {"D": ClassSumTemplate(U, labels, 2), "Dp": ClassSumTemplate(Up, labels_p, 2)}

    def sums_release(key, rng):
        return release(templates[key], "knorm_sum", Budget(1.0), None, rng).theta.ravel()

    centre = class_sums(templates["Dp"], 0.5).ravel()  # knorm_sum's count weight
    r = audit(sums_release, "D", "Dp", n_runs=runs, confidence=SAFE, random_state=10,
              statistic=float_consistency_statistic(centre))
    assert r.epsilon_lower_bound <= 1.0, f"PRIVACY BUG (floating point): {r}"


@pytest.mark.slow
def test_the_constant_private_regressor_releases_passes_the_round_trip_test_alike():
    """The whole fit: n = 40, ε = 1, label_range=(-1, 1), where the rule releases the mean."""
    y, yp = _labels()
    X = np.random.default_rng(7).normal(size=(y.size, 3)) * 0.3

    def constant(labels, rng):
        est = dp.PrivateRegressor(epsilon=1.0, label_range=(-1, 1))
        model = fit_drawing_from(est, rng, X, labels)
        assert model.learner_ == "constant (private mean)"
        return model.predict(X[:1])  # the label map of (-1, 1) is the identity

    r = audit(constant, y, yp, n_runs=3000, confidence=SAFE, random_state=11,
              statistic=float_consistency_statistic(float(np.sum(yp)) / yp.size))
    assert r.epsilon_lower_bound <= 1.0, f"PRIVACY BUG (floating point): {r}"


def test_a_law_with_a_laws_attribute_of_its_own_is_drawn_as_one_law():
    """Only a NoiseSum draws its laws one after the other; another law's attribute named laws is
    its own business (add draws the law itself)."""
    class Scaled(Laplace):
        def __init__(self, scale):
            super().__init__(scale)
            self.laws = ("a", "name")

    rng, again = np.random.default_rng(5), np.random.default_rng(5)
    out = Scaled(2.0).add(np.zeros(4), rng)
    np.testing.assert_array_equal(out, snap(Laplace(2.0).sample((4,), again), 2.0))
