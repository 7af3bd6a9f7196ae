"""Exact privacy loss of the private bounds on tiny inputs (docs/privacy/bounds.md#privacy-bounds-checks).

The laws below are written from the mechanisms' definitions (docs/privacy/bounds.md#privacy-bounds-range,
privacy-bounds-vocabulary) with the library's constants — the grid of :mod:`dpconvex.data.log_grid`, and the
Laplace scale, threshold and ε per level that ``QuantileRange.calibrate`` and
``StableVocabulary.calibrate`` return — not with the mechanisms' code, which a check
compares with them (:func:`test_the_exact_laws_are_those_of_the_code`).

**What is exact.**

* ``"quantile_range"``: the law of the released range (lo, hi), over every outcome. The
  kept octaves are independent indicators {noisy count > τ} with closed-form Laplace tails,
  so P(first kept = f, last kept = l) = p_f p_l Π_{o ∉ [f, l]} (1 − p_o) for f < l; the span
  of one octave f adds the fallback P(nothing kept, argmax = f) = ∫_{−∞}^{τ} φ_f Π_{o≠f} F_o,
  a 1-D integral of a piecewise-analytic function (Gauss–Legendre on panels between the
  kinks; the fallbacks sum to Π_o (1 − p_o) to 10⁻¹² relative, checked). All N_OCTAVES = 167
  octaves enter (no reduced grid): the octaves empty in both tables have identical factors,
  which cancel in the ratio of a kept-set outcome but not in the fallback's integral. The
  refinement's two picks given the coarse range are closed-form softmaxes over the edges,
  and the law of (lo, hi) = (min, max) of the picks (with the code's tie rule) is summed
  over all coarse ranges by prefix sums; outputs are enumerated by classes of edges with the
  same utilities under both tables and the same octave (equal probabilities within a class).
  The laws sum to 1 (checked).
* The released median is a function of the noisy octave histogram alone (post-processing,
  checked on the code path in tests/privacy/test_bounds.py). Its part of the loss is the
  histogram's: the density ratio of the noisy histogram of two neighbours is that of the
  two octaves whose counts differ (the other coordinates' densities are equal), measured on
  a grid of their noise values (the L1 argument, not an exact law of the median).
* ``"stable_vocabulary"``: δ(ε) = Σ_S max(0, P_D(S) − e^ε P_D′(S)) over every released set S,
  every product of closed-form tails.

Every neighbouring pair (one record replaced) of the tiny tables is enumerated. Mutants
(a Laplace scale halved, the histogram given the whole ε, the exponential mechanism's
utility doubled, the vocabulary threshold lowered by 3) exceed the claimed ε or δ: the
checks can fail. Deterministic (the comparisons with the code are seeded).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace
from functools import cache

import numpy as np
import pytest

import dpconvex as dp
from dpconvex.data.log_grid import N_CELLS, N_OCTAVES, cell_edges, cell_of, octave_of_cell
from dpconvex.privacy.budget import Budget
from dpconvex.privacy.mechanisms.bounds import QuantileRange, StableVocabulary
from dpconvex.templates.statistics import RangeTemplate, VocabularyTemplate

#: The tiny tables' values: a negative octave, the cell around 0, two cells of one octave, the
#: next octave, and a missing value (counted in no cell).
VALUES = (-1.5, 0.0, 1.0, 1.5, 3.0, None)
N_RECORDS = 3
#: q n = 1 and 2: replacing a record moves the utility of an edge between its two cells by 1.
LEVELS = (1 / 3, 2 / 3)
#: A claimed bound is met when the measured loss is at most claim · (1 + TOL) (floating point).
TOL = 1e-9

OCTAVE = octave_of_cell(np.arange(N_CELLS))
FIRST = np.searchsorted(OCTAVE, np.arange(N_OCTAVES), side="left")
LAST = np.searchsorted(OCTAVE, np.arange(N_OCTAVES), side="right") - 1
#: The octave of cell e − 1 for every edge e >= 1: edge e can be the upper end of a range
#: whose last octave is at least this one.
UPPER_OCTAVE = np.concatenate([[-1], OCTAVE])
EDGES = cell_edges()
#: Gauss–Legendre nodes and weights on [−1, 1] (24 points), the rule of :func:`fallback`.
GAUSS_LEGENDRE = np.polynomial.legendre.leggauss(24)


# ------------------------------------------------------------------ the tiny tables
def tables(n: int = N_RECORDS, k: int = len(VALUES)) -> list[tuple[int, ...]]:
    """Every multiset of n of the k values, as sorted indices (the mechanisms read counts)."""
    return list(itertools.combinations_with_replacement(range(k), n))


def neighbours(n: int = N_RECORDS, k: int = len(VALUES)) -> list[tuple[tuple, tuple]]:
    """Every unordered pair of tables that differ in one record (replace-one adjacency)."""
    pairs = set()
    for table in tables(n, k):
        for i, w in itertools.product(range(n), range(k)):
            other = tuple(sorted(table[:i] + (w,) + table[i + 1:]))
            if other != table:
                pairs.add((table, other) if table < other else (other, table))
    return sorted(pairs)


def cells_of(table: tuple[int, ...]) -> np.ndarray:
    """The grid's cell counts of a table (a missing value counts in no cell)."""
    finite = np.array([VALUES[i] for i in table if VALUES[i] is not None], dtype=float)
    return np.bincount(cell_of(finite), minlength=N_CELLS) if finite.size else \
        np.zeros(N_CELLS, dtype=np.int64)


def values_of(table: tuple[int, ...]) -> np.ndarray:
    """The table's values, one per record (NaN where missing), as a range's template reads
    them."""
    return np.array([np.nan if VALUES[i] is None else VALUES[i] for i in table], dtype=float)


def octaves_of(cells: np.ndarray) -> np.ndarray:
    return np.bincount(OCTAVE, weights=cells, minlength=N_OCTAVES)


# ------------------------------------------------------------------ the library's constants
@dataclass(frozen=True)
class RangeNoise:
    """What the law of a range depends on: Laplace scale and threshold of the histogram, ε
    of each level, and a factor on the utility (1: the library; 2: a mutant)."""

    scale: float
    threshold: float
    epsilon_q: float
    utility_scale: float = 1.0


def range_noise(epsilon: float, refine: bool) -> RangeNoise:
    """The constants ``QuantileRange.calibrate`` gives a range at ε."""
    template = RangeTemplate.of_problem(N_RECORDS, LEVELS, refine=refine)
    extra = QuantileRange().calibrate(template, Budget(epsilon)).extra
    return RangeNoise(extra["laplace scale"], extra["threshold"], extra["epsilon of each level"])


# ------------------------------------------------------------------ Laplace tails
def log_tails(counts: np.ndarray, scale: float, tau: float) -> tuple[np.ndarray, np.ndarray]:
    """(ln P(c + L > τ), ln P(c + L <= τ)) for L ~ Laplace(0, scale), elementwise."""
    z = (tau - np.asarray(counts, dtype=float)) / scale
    near = np.log1p(-0.5 * np.exp(-np.abs(z)))
    far = math.log(0.5) - np.abs(z)
    return np.where(z >= 0, far, near), np.where(z >= 0, near, far)


def _log_cdf(x: np.ndarray, scale: float) -> np.ndarray:
    z = x / scale
    return np.where(z < 0, math.log(0.5) + np.minimum(z, 0.0),
                    np.log1p(-0.5 * np.exp(-np.maximum(z, 0.0))))


def fallback(octave_counts: np.ndarray, scale: float, tau: float) -> np.ndarray:
    """P(no octave passes τ, argmax = o) = ∫_{−∞}^{τ} φ(x − c_o) Π_{j≠o} F(x − c_j) dx, per o.

    Octaves of equal count share the integrand; Gauss–Legendre (24 nodes) on panels of a
    quarter scale between the kinks (the counts and τ), from 60 scales below the smallest count
    (below it the product of the 160 and more CDFs of the empty octaves is 0 in doubles).
    """
    values, multiplicity = np.unique(octave_counts, return_counts=True)
    start = float(values.min()) - 60.0 * scale
    points = np.unique(np.concatenate([[start, tau], values[values < tau]]))
    x0, w0 = GAUSS_LEGENDRE
    cuts = [np.linspace(a, b, max(1, math.ceil((b - a) / (0.25 * scale))) + 1)
            for a, b in itertools.pairwise(points)]
    left = np.concatenate([c[:-1] for c in cuts])  # the panels [left, right], in order
    right = np.concatenate([c[1:] for c in cuts])
    half = (0.5 * (right - left))[:, None]
    x = (half * x0 + (0.5 * (left + right))[:, None]).ravel()
    w = (half * w0).ravel()
    log_cdf = np.stack([_log_cdf(x - v, scale) for v in values])
    total = multiplicity @ log_cdf
    log_pdf = -math.log(2.0 * scale) - np.abs(x[None, :] - values[:, None]) / scale
    per_value = (w * np.exp(log_pdf + total - log_cdf)).sum(axis=1)
    return per_value[np.searchsorted(values, octave_counts)]


# ------------------------------------------------------------------ the coarse range
def coarse_law(octave_counts: np.ndarray, scale: float, tau: float) -> np.ndarray:
    """P(first kept octave = f, last kept = l), an upper-triangular (N_OCTAVES, N_OCTAVES)
    matrix; the diagonal adds the fallback (nothing kept: the argmax octave)."""
    log_p, log_q = log_tails(octave_counts, scale, tau)
    before = np.concatenate([[0.0], np.cumsum(log_q)[:-1]])  # Σ_{o<f} ln(1 − p_o)
    after = np.concatenate([np.cumsum(log_q[::-1])[::-1][1:], [0.0]])  # Σ_{o>l} ln(1 − p_o)
    law = np.triu(np.exp(log_p[:, None] + log_p[None, :] + before[:, None] + after[None, :]), 1)
    law[np.diag_indices(N_OCTAVES)] = (np.exp(log_p + before + after)
                                       + fallback(octave_counts, scale, tau))
    return law


@cache
def _coarse(table: tuple[int, ...], scale: float, tau: float) -> np.ndarray:
    return coarse_law(octaves_of(cells_of(table)), scale, tau)


# ------------------------------------------------------------------ the refinement
def edge_weights(cells: np.ndarray, level: float, noise: RangeNoise) -> np.ndarray:
    """exp(ε_q u(e)/2) on every edge e, u(e) = −|#{values below e} − q n| (unnormalized)."""
    below = np.concatenate([[0], np.cumsum(cells)])
    return np.exp(-noise.utility_scale * noise.epsilon_q * np.abs(below - level * N_RECORDS) / 2)


def normalizers(w: np.ndarray) -> np.ndarray:
    """Z[f, l] = Σ of w over the candidate edges FIRST[f] ... LAST[l] + 1 (sums of positives)."""
    per_octave = np.bincount(OCTAVE, weights=w[:N_CELLS], minlength=N_OCTAVES)
    upper = np.triu(np.broadcast_to(per_octave, (N_OCTAVES, N_OCTAVES)))
    return np.cumsum(upper, axis=1) + w[LAST + 1][None, :]


def refined_parts(cells: np.ndarray, coarse: np.ndarray, noise: RangeNoise):
    """(w_lo, w_hi, S, T): the two levels' edge weights, S[i, j] = Σ_{f<=i, l>=j} A[f, l] and
    T[l] = Σ_f A[f, l], with A = P(f, l)/(Z_lo Z_hi) (the coarse law over both normalizers)."""
    w = [edge_weights(cells, q, noise) for q in LEVELS]
    a = np.triu(coarse / (normalizers(w[0]) * normalizers(w[1])))
    s = np.cumsum(a, axis=0)[:, ::-1].cumsum(axis=1)[:, ::-1]
    return w[0], w[1], s, a.sum(axis=0)


def apart_probability(e1: np.ndarray, e2: np.ndarray, parts) -> np.ndarray:
    """P(lo = edge e1, hi = edge e2) for e1 <= e2 − 2 (no tie): the two picks, min and max.
    ``e1`` and ``e2`` broadcast (a column of lower ends against a row of upper ends: a matrix);
    e1 < N_CELLS (edge N_CELLS is no lower end)."""
    w_lo, w_hi, s, _ = parts
    return (w_lo[e1] * w_hi[e2] + w_lo[e2] * w_hi[e1]) * s[OCTAVE[e1], UPPER_OCTAVE[e2]]


def pair_probability(e1: np.ndarray, e2: np.ndarray, parts) -> np.ndarray:
    """P(lo = edge e1, hi = edge e2) for e1 < e2: the two picks, min and max, and the code's
    tie rule (equal picks e give (e, e + 1), or (e − 1, e) on the last candidate edge)."""
    w_lo, w_hi, s, t = parts
    p = apart_probability(e1, e2, parts)
    adjacent = e2 == e1 + 1
    if np.any(adjacent):
        o = OCTAVE[e1]
        both_on_e1 = w_lo[e1] * w_hi[e1] * s[o, o]
        both_on_last = np.where(e1 == LAST[o], w_lo[e2] * w_hi[e2] * t[o], 0.0)
        p = p + np.where(adjacent, both_on_e1 + both_on_last, 0.0)
    return p


def refined_law(cells: np.ndarray, coarse: np.ndarray, noise: RangeNoise) -> dict:
    """Every outcome (e1, e2) of a refined range with its probability (all 3.6 million)."""
    parts = refined_parts(cells, coarse, noise)
    law = {}
    for e1 in range(N_CELLS):
        law[e1] = pair_probability(e1, np.arange(e1 + 1, N_CELLS + 1), parts)
    return law


def edge_classes(cells_d: np.ndarray, cells_p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First and last edge of each class of edges with the same rank below them in both tables
    and the same octaves (as a lower and as an upper end): P(lo, hi) is constant on classes.
    Every part of the key is non-decreasing along the edges, so the classes are runs."""
    below = [np.concatenate([[0], np.cumsum(c)]) for c in (cells_d, cells_p)]
    key = np.stack([below[0], below[1], np.concatenate([OCTAVE, [N_OCTAVES]]), UPPER_OCTAVE])
    starts = np.concatenate([[0], 1 + np.flatnonzero(np.any(np.diff(key, axis=1) != 0, axis=0))])
    return starts, np.concatenate([starts[1:] - 1, [N_CELLS]])


def _log_ratio(a: np.ndarray, b: np.ndarray) -> float:
    """max |ln a − ln b| over outcomes of positive probability under both (0 for none)."""
    assert np.all(a > 0) and np.all(b > 0)
    return float(np.abs(np.log(a) - np.log(b)).max(initial=0.0))


def refined_log_law(cells: np.ndarray, parts) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A table's refined law by the classes of its own edges (:func:`edge_classes` of the table
    with itself), on which P(lo, hi) is constant: the classes' first edges, ln P(first[a],
    last[b]) for first[a] <= last[b] − 2 (NaN elsewhere; the last class, edge N_CELLS alone, is
    no lower end) and P(lo = e, hi = e + 1) for every edge e. ``parts``: :func:`refined_parts`."""
    first, last = edge_classes(cells, cells)
    e1, e2 = first[:-1, None], last[None, :]
    apart = e1 <= e2 - 2
    p = apart_probability(e1, e2, parts)
    assert np.all(p[apart] > 0)
    adjacent = np.arange(N_CELLS)
    return (first, np.log(p, out=np.full(p.shape, np.nan), where=apart),
            pair_probability(adjacent, adjacent + 1, parts))


def refined_log_ratio(cells_d, cells_p, law_d, law_p) -> float:
    """max |ln P_D(lo, hi) − ln P_D′(lo, hi)| over every outcome of a refined range, by the
    classes of edges of the pair (:func:`edge_classes`); ``law_d`` and ``law_p``: the two
    tables' :func:`refined_log_law`. Each class of the pair lies in one class of each table."""
    first, last = edge_classes(cells_d, cells_p)
    apart = first[:-1, None] <= last[None, :] - 2  # some e1 in class i, e2 >= e1 + 2 in class j
    log_p = []
    for table_first, log_apart, _ in (law_d, law_p):
        rows = np.searchsorted(table_first, first[:-1], side="right") - 1
        columns = np.searchsorted(table_first, last, side="right") - 1
        log_p.append(log_apart[rows][:, columns])
    ratio = np.abs(log_p[0] - log_p[1])[apart]
    assert np.all(np.isfinite(ratio))  # positive probabilities under both
    return max(float(ratio.max(initial=0.0)), _log_ratio(law_d[2], law_p[2]))


def range_log_ratio(noise: RangeNoise, refine: bool) -> tuple[float, tuple]:
    """The largest |ln P_D(lo, hi) − ln P_D′(lo, hi)| over all neighbours and all outcomes
    (each table's law computed once)."""
    coarse = {t: _coarse(t, noise.scale, noise.threshold) for t in tables()}
    cells = {t: cells_of(t) for t in tables()}
    laws = {t: refined_log_law(cells[t], refined_parts(cells[t], coarse[t], noise))
            for t in tables()} if refine else {}
    upper = np.triu_indices(N_OCTAVES)
    worst, where = 0.0, ()
    for d, d_prime in neighbours():
        if refine:
            value = refined_log_ratio(cells[d], cells[d_prime], laws[d], laws[d_prime])
        else:
            value = _log_ratio(coarse[d][upper], coarse[d_prime][upper])
        if value > worst:
            worst, where = value, (d, d_prime)
    return worst, where


#: Coarse ranges around the tiny tables' octaves (−1.5: 62, 0: 83, 1 and 1.5: 104, 3: 105).
SPANS = [(f, l) for f, l in itertools.combinations_with_replacement((61, 62, 83, 104, 105, 106), 2)]
#: The edges FIRST[f] ... LAST[l] + 1 of the coarse ranges of SPANS laid end to end: where each
#: range's edges start.
SPAN_OFFSETS = np.cumsum([0] + [LAST[l] + 2 - FIRST[f] for f, l in SPANS])[:-1].tolist()


def conditional_laws(cells: np.ndarray, noise: RangeNoise) -> tuple[np.ndarray, ...]:
    """Given each coarse range (f, l) of SPANS, laid end to end in their order: the two
    exponential mechanisms' pick probabilities over the edges FIRST[f] ... LAST[l] + 1 (adaptive
    composition's second step, privacy-bounds-range), and P(lo = e, hi = e + 1 | f, l) for each
    of those edges but the last (ties included)."""
    w = [edge_weights(cells, q, noise) for q in LEVELS]
    p_lo, p_hi, near = [], [], []
    for f, l in SPANS:
        edges = slice(FIRST[f], LAST[l] + 2)
        lo, hi = (v[edges] / v[edges].sum() for v in w)
        adjacent = lo[:-1] * hi[1:] + lo[1:] * hi[:-1] + lo[:-1] * hi[:-1]
        adjacent[-1] += lo[-1] * hi[-1]
        p_lo.append(lo)
        p_hi.append(hi)
        near.append(adjacent)
    return np.concatenate(p_lo), np.concatenate(p_hi), np.concatenate(near)


def conditional_log_ratio(cells_d: np.ndarray, cells_p: np.ndarray, laws_d: tuple,
                          laws_p: tuple) -> float:
    """max |ln| of the ratio of the laws of (lo, hi) given the coarse range (f, l), over the
    coarse ranges of SPANS and their outcomes; ``laws_d`` and ``laws_p``: the two tables'
    :func:`conditional_laws`. The outcomes e1 <= e2 − 2 are enumerated by classes of edges
    with the same rank below them in both tables (runs: the probabilities are constant on
    classes)."""
    below = np.stack([np.concatenate([[0], np.cumsum(c)]) for c in (cells_d, cells_p)])
    # the edges k from which a rank changes at edge k + 1
    moves = np.flatnonzero(np.any(np.diff(below, axis=1), axis=0)).tolist()
    e1, e2 = [], []
    for (f, l), offset in zip(SPANS, SPAN_OFFSETS, strict=True):
        first, last = int(FIRST[f]), int(LAST[l])
        # the first and last edge of each class, counted from edge FIRST[f]
        starts = [0] + [k + 1 - first for k in moves if first <= k <= last]
        ends = [start - 1 for start in starts[1:]] + [last + 1 - first]
        # some e1 in class i and e2 >= e1 + 2 in class j
        apart = [(a, b) for a in starts for b in ends if a <= b - 2]
        e1 += [offset + a for a, _ in apart]
        e2 += [offset + b for _, b in apart]
    e1, e2 = np.array(e1, dtype=np.intp), np.array(e2, dtype=np.intp)
    return max(_log_ratio(*(p_lo[e1] * p_hi[e2] + p_lo[e2] * p_hi[e1]
                            for p_lo, p_hi, _ in (laws_d, laws_p))),
               _log_ratio(laws_d[2], laws_p[2]))


# ------------------------------------------------------------------ the vocabulary
CATEGORIES = ("a", "b", "c", None)  # None: a missing value, in no category


def vocabulary_law(table: tuple[int, ...], scale: float, tau: float) -> dict[frozenset, float]:
    """P(released set = S) for every S: each category seen passes independently."""
    counts: dict[str, int] = {}
    for i in table:
        if CATEGORIES[i] is not None:
            counts[CATEGORIES[i]] = counts.get(CATEGORIES[i], 0) + 1
    seen = sorted(counts)
    log_p, log_q = log_tails(np.array([counts[c] for c in seen], dtype=float), scale, tau)
    law = {}
    for mask in itertools.product((False, True), repeat=len(seen)):
        m = np.array(mask, dtype=bool)
        law[frozenset(c for c, k in zip(seen, mask, strict=True) if k)] = float(
            np.exp(log_p[m].sum() + log_q[~m].sum()))
    return law


def vocabulary_delta(epsilon: float, delta: float, threshold_shift: float = 0.0) -> float:
    """max over neighbours (both directions) of Σ_S max(0, P_D(S) − e^ε P_D′(S))."""
    extra = StableVocabulary().calibrate(VocabularyTemplate.of_problem(1),
                                         Budget(epsilon, delta)).extra
    scale, tau = extra["laplace scale"], extra["threshold"] + threshold_shift
    worst = 0.0
    for d, d_prime in neighbours(n=N_RECORDS, k=len(CATEGORIES)):
        laws = vocabulary_law(d, scale, tau), vocabulary_law(d_prime, scale, tau)
        for p, q in (laws, laws[::-1]):
            worst = max(worst, sum(max(0.0, v - math.exp(epsilon) * q.get(s, 0.0))
                                   for s, v in p.items()))
    return worst


# ================================================================== the checks
# ------------------------------------------------------------------ the laws are exact
@pytest.mark.parametrize("epsilon", [1.0, 15.0])
def test_the_coarse_law_sums_to_one_and_its_fallback_to_the_closed_form(epsilon):
    noise = range_noise(epsilon, refine=False)
    for table in [(0, 2, 4), (1, 1, 3), (5, 5, 5)]:
        counts = octaves_of(cells_of(table))
        law = coarse_law(counts, noise.scale, noise.threshold)
        assert law.sum() == pytest.approx(1.0, rel=1e-12)
        nothing_kept = np.exp(log_tails(counts, noise.scale, noise.threshold)[1].sum())
        assert fallback(counts, noise.scale, noise.threshold).sum() == pytest.approx(
            nothing_kept, rel=1e-12)


def test_the_refined_law_sums_to_one():
    noise = range_noise(2.0, refine=True)
    table = (0, 2, 4)
    law = refined_law(cells_of(table), _coarse(table, noise.scale, noise.threshold), noise)
    assert math.fsum(float(v.sum()) for v in law.values()) == pytest.approx(1.0, rel=1e-10)


EVENTS = {  # events on the released (lo, hi)
    "lo < -1": lambda lo, hi: lo < -1.0,
    "lo < 0.5": lambda lo, hi: lo < 0.5,
    "hi > 1.25": lambda lo, hi: hi > 1.25,
    "hi > 2": lambda lo, hi: hi > 2.0,
    "lo < 0 and hi > 2": lambda lo, hi: (lo < 0.0) & (hi > 2.0),
    "hi - lo < 1": lambda lo, hi: hi - lo < 1.0,
}


def _exact_events(table: tuple[int, ...], epsilon: float, refine: bool) -> dict[str, float]:
    noise = range_noise(epsilon, refine)
    coarse = _coarse(table, noise.scale, noise.threshold)
    if not refine:
        f, l = np.triu_indices(N_OCTAVES)
        lo, hi, p = EDGES[FIRST[f]], EDGES[LAST[l] + 1], coarse[f, l]
        return {k: float(p[event(lo, hi)].sum()) for k, event in EVENTS.items()}
    out = dict.fromkeys(EVENTS, 0.0)
    for e1, p in refined_law(cells_of(table), coarse, noise).items():
        hi = EDGES[e1 + 1:]
        for k, event in EVENTS.items():
            out[k] += float(p[event(EDGES[e1], hi)].sum())
    return out


@pytest.mark.parametrize("runs", [2_500, pytest.param(10_000, marks=pytest.mark.slow)])
@pytest.mark.parametrize(("table", "epsilon", "refine"), [
    ((0, 2, 4), 4.0, False), pytest.param((0, 2, 4), 30.0, False, marks=pytest.mark.slow),
    ((1, 2, 3), 8.0, True), pytest.param((0, 4, 5), 8.0, True, marks=pytest.mark.slow)])
def test_the_exact_laws_are_those_of_the_code(table, epsilon, refine, runs):
    """The code's ranges (``QuantileRange.run``) fall in each event with the exact law's
    probability: |frequency − p| <= 5 sd + 1/runs (a false alarm per event < 10⁻⁶ at any run
    count; seeded). 2,500 runs in the fast suite, 10,000 marked slow."""
    template = RangeTemplate(values_of(table), N_RECORDS, LEVELS, refine=refine)
    mechanism = QuantileRange()
    calibration = mechanism.calibrate(template, Budget(epsilon))
    rng = np.random.default_rng(20)
    out = np.array([mechanism.run(template, calibration, None, rng)[0] for _ in range(runs)])
    exact = _exact_events(table, epsilon, refine)
    for k, event in EVENTS.items():
        freq = float(np.mean(event(out[:, 0], out[:, 1])))
        p = exact[k]
        assert abs(freq - p) <= 5 * math.sqrt(p * (1 - p) / runs) + 1 / runs, (k, freq, p)


@pytest.mark.parametrize("runs", [5_000, pytest.param(20_000, marks=pytest.mark.slow)])
def test_the_exact_vocabulary_law_is_that_of_the_code(runs):
    """As the range's laws: |frequency − p| <= 5 sd + 1/runs for each of the 8 sets."""
    epsilon, delta = 1.0, 0.05
    counts = np.array([5, 6, 1])  # near the threshold 5.6: every set has a fair probability
    template = VocabularyTemplate(np.repeat(["a", "b", "c"], counts), int(counts.sum()))
    mechanism = StableVocabulary()
    calibration = mechanism.calibrate(template, Budget(epsilon, delta))
    rng = np.random.default_rng(21)
    seen = [frozenset(mechanism.run(template, calibration, None, rng)[0].tolist())
            for _ in range(runs)]
    scale, tau = calibration.extra["laplace scale"], calibration.extra["threshold"]
    log_p, log_q = log_tails(counts, scale, tau)  # the product form of vocabulary_law
    for mask in itertools.product((False, True), repeat=3):
        m = np.array(mask)
        p = float(np.exp(log_p[m].sum() + log_q[~m].sum()))
        freq = seen.count(frozenset(np.flatnonzero(m).tolist())) / runs
        assert abs(freq - p) <= 5 * math.sqrt(p * (1 - p) / runs) + 1 / runs, (mask, freq, p)


# ------------------------------------------------------------------ the range
# Measured worst log-ratios over the 315 pairs (docs/privacy/bounds.md#privacy-bounds-checks): coarse only
# 0.511, 1.082, 15.000 at ε = 1, 2, 15; refined 0.502, 1.004, 9.249.
@pytest.mark.parametrize(("epsilon", "refine"), [
    (1.0, False), pytest.param(2.0, False, marks=pytest.mark.slow),
    pytest.param(15.0, False, marks=pytest.mark.slow), (1.0, True),
    pytest.param(2.0, True, marks=pytest.mark.slow),
    pytest.param(15.0, True, marks=pytest.mark.slow)])
def test_exact_privacy_loss_of_the_range_is_at_most_epsilon(epsilon, refine):
    worst, _ = range_log_ratio(range_noise(epsilon, refine), refine)
    assert worst <= epsilon * (1 + TOL)


def test_the_coarse_range_attains_epsilon():
    """At ε = 15, τ = 1.51 lies between 1 and 2. On {−1.5, −1.5, −1.5} against
    {−1.5, −1.5, 3}, the outcome "the octave of 3 kept, that of −1.5 not" has both octaves'
    factors at e^{ε/2} (3 and 2 values above τ, 0 and 1 below): the bound is tight."""
    worst, where = range_log_ratio(range_noise(15.0, refine=False), refine=False)
    assert worst == pytest.approx(15.0, rel=TOL)
    assert where == ((0, 0, 0), (0, 0, 4))


@pytest.mark.parametrize(("epsilon", "refine", "mutant"), [
    (1.0, False, "scale halved"),
    pytest.param(15.0, True, "histogram at the whole epsilon", marks=pytest.mark.slow),
    pytest.param(15.0, True, "scale halved", marks=pytest.mark.slow)])
def test_a_mutant_range_exceeds_epsilon(epsilon, refine, mutant):
    noise = range_noise(epsilon, refine)
    if mutant == "scale halved":
        noise = replace(noise, scale=noise.scale / 2)
    else:  # the split forgotten: ε on the histogram and ε/4 on each level
        coarse = range_noise(epsilon, refine=False)
        noise = replace(noise, scale=coarse.scale, threshold=coarse.threshold)
    worst, _ = range_log_ratio(noise, refine)
    assert worst > epsilon * 1.05


@pytest.mark.parametrize("epsilon", [1.0, pytest.param(8.0, marks=pytest.mark.slow)])
def test_the_refinement_given_its_coarse_range_costs_at_most_its_share(epsilon):
    """Given the coarse range, the two picks are 2ε_q-DP (utility sensitivity 1); a utility
    doubled exceeds 2ε_q. (The unconditional law above is a mixture over coarse ranges.)"""
    noise = range_noise(epsilon, refine=True)
    cells = {t: cells_of(t) for t in tables()}
    worst = {1.0: 0.0, 2.0: 0.0}
    for scale in worst:
        mutant = replace(noise, utility_scale=scale)
        laws = {t: conditional_laws(c, mutant) for t, c in cells.items()}
        for d, d_prime in neighbours():
            worst[scale] = max(worst[scale], conditional_log_ratio(cells[d], cells[d_prime],
                                                                   laws[d], laws[d_prime]))
    share = 2 * noise.epsilon_q
    assert worst[1.0] <= share * (1 + TOL) and worst[2.0] > share * 1.05


@pytest.mark.parametrize("table", [(0, 2, 4), (1, 1, 3), (3, 3, 3)])
@pytest.mark.parametrize("epsilon", [1.0, 15.0])
@pytest.mark.parametrize("lift", [0.0, 100.0], ids=["the fullest octave", "every octave held"])
def test_the_code_draws_each_level_with_the_modelled_weights(table, epsilon, lift, monkeypatch):
    """``QuantileRange.run`` picks each level by the exponential mechanism that
    :func:`edge_weights` models, over the edges of the coarse range. The histogram's noise is
    replaced by a fixed ``lift`` of the octaves that hold records, so the coarse range is known
    (none passes the threshold: the fullest octave; lifted by 100, every octave held) and the
    weights exp(ε u / (2 s)) the code passes can be compared with the model's, edge by edge."""
    from dpconvex.privacy.mechanisms import bounds

    class Noiseless:
        def __init__(self, scale: float) -> None:
            pass

        def add(self, values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
            return np.asarray(values, dtype=float) + lift * (np.asarray(values) > 0)

    drawn = []

    def capture(utility, eps, sensitivity, rng):
        drawn.append(np.exp(eps * np.asarray(utility, dtype=float) / (2 * sensitivity)))
        return 0

    monkeypatch.setattr(bounds, "Laplace", Noiseless)
    monkeypatch.setattr(bounds, "exponential_mechanism", capture)
    noise = range_noise(epsilon, refine=True)
    cells = cells_of(table)
    template = RangeTemplate(values_of(table), N_RECORDS, LEVELS, refine=True)
    mechanism = QuantileRange()
    mechanism.run(template, mechanism.calibrate(template, Budget(epsilon)), None,
                  np.random.default_rng(0))
    octaves = octaves_of(cells) + lift * (octaves_of(cells) > 0)
    kept = np.flatnonzero(octaves > noise.threshold)
    kept = kept if kept.size else np.array([int(np.argmax(octaves))])
    edges = slice(FIRST[kept[0]], LAST[kept[-1]] + 2)
    assert len(drawn) == len(LEVELS) and (kept.size > 1) == (lift > 0 and len(set(table)) > 1)
    for q, weights in zip(LEVELS, drawn, strict=True):
        np.testing.assert_allclose(weights, edge_weights(cells, q, noise)[edges], rtol=1e-12)


def test_the_noisy_histogram_the_median_reads_costs_epsilon_one():
    """The median octave is read from the noisy octave histogram only. For each neighbouring
    pair the histogram's density ratio is that of the octaves whose counts differ; on a grid
    of their noisy values it reaches exactly ε₁ when a record moves between octaves, never
    more (L1 sensitivity 2); a halved scale doubles it."""
    noise = range_noise(1.0, refine=True)
    epsilon_1 = 2.0 / noise.scale
    grid = np.linspace(-8.0, 12.0, 401)
    octaves = {t: octaves_of(cells_of(t)) for t in tables()}
    worst, halved = 0.0, 0.0
    for d, d_prime in neighbours():
        a, b = octaves[d], octaves[d_prime]
        differ = np.flatnonzero(a != b)
        assert np.abs(a - b).sum() <= 2 and differ.size <= 2
        x = np.meshgrid(*([grid] * differ.size), indexing="ij", sparse=True)  # broadcast axes
        loss = sum(np.abs(x[k] - b[o]) - np.abs(x[k] - a[o]) for k, o in enumerate(differ))
        largest = float(np.abs(loss).max())
        worst = max(worst, largest / noise.scale)
        halved = max(halved, largest / (noise.scale / 2))
    assert worst == pytest.approx(epsilon_1, rel=1e-12) and halved > epsilon_1 * 1.05


# ------------------------------------------------------------------ the vocabulary
@pytest.mark.parametrize(("epsilon", "delta"), [(1.0, 1e-3), (0.5, 1e-2), (2.0, 1e-6),
                                                (0.1, 0.1)])
def test_exact_delta_of_the_vocabulary_is_at_most_delta(epsilon, delta):
    """(0.1, 0.1): δ > 1 − e^{−ε/2}, where the ratio on the sets without the lone category
    exceeds e^ε and δ still covers it (privacy-bounds-vocabulary)."""
    assert vocabulary_delta(epsilon, delta) <= delta * (1 + TOL)


def test_the_vocabulary_attains_delta_and_a_lower_threshold_exceeds_it():
    epsilon, delta = 1.0, 1e-3
    assert vocabulary_delta(epsilon, delta) == pytest.approx(delta, rel=TOL)
    assert vocabulary_delta(epsilon, delta, threshold_shift=-3.0) > 2 * delta


# ------------------------------------------------------------------ the label range
@pytest.mark.parametrize("label_range", ["private", dp.PrivateBounds(share=0.3)])
def test_a_private_label_range_composes_to_the_requested_epsilon(label_range):
    rng = np.random.default_rng(3)
    X = rng.uniform(-0.5, 0.5, size=(2000, 2))
    y = 50 + 20 * X[:, 0] + rng.normal(0, 2, 2000)
    ledger = dp.BudgetAccountant(epsilon=2.0)
    model = dp.PrivateLinearRegression(epsilon=1.0, label_range=label_range, accountant=ledger,
                                       random_state=0).fit(X, y)
    cert = model.certificate_
    share = 0.1 if label_range == "private" else 0.3
    assert cert.epsilon == pytest.approx(1.0, rel=1e-12) and cert.epsilon <= 1.0
    assert ledger.spent[0] == pytest.approx(1.0, rel=1e-12)
    label, fit = cert.parts
    assert label.mechanism.startswith("range of the labels")
    assert label.epsilon == pytest.approx(share, rel=1e-12)
    assert fit.epsilon_requested == pytest.approx(1.0 - share, rel=1e-12)
    assert cert.conditions[0].detail.endswith("(label range; model)")
    assert model.certify(X, y).epsilon == pytest.approx(cert.epsilon, rel=1e-12)
