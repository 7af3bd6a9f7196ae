"""Rows changed in place after they were first read (a stand-in for another thread writing to X)
are clipped where the statistic reads them: the sufficient statistics and the large-margin
records (docs/privacy/row_scaling.md#privacy-rows-read-in-place)."""

import numpy as np
import pytest
import scipy.sparse as sp
from _doubles import ScaleOnSolve

import dpconvex as dp
from dpconvex.data import sufficient
from dpconvex.data.preprocess import clip_rows


def _rows(n=400, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.1, 0.5, size=(n, 1))  # norms ~0.2 to 1.1
    X[rng.uniform(size=(n, d)) < 0.4] = 0.0
    return X, np.clip(rng.normal(size=n), -1.0, 1.0)


def _exact_moments(X, u, q, s):
    """A and b of the rows X clipped to q with the column s, by the definition."""
    Z = np.hstack([clip_rows(X, q)[0], np.full((len(X), 1), s)])
    return Z.T @ Z, Z.T @ u


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_sufficient_statistics_clip_the_rows_as_they_read_them(sparse, monkeypatch):
    """The rows are multiplied by 100 in place as soon as the first clip factors are computed
    (a stand-in for another thread): the statistics are those of the rows as each block read
    them, clipped to q (the first block unchanged, the others changed), and the trace of A
    stays within the bound n (q² + s²) that the sensitivity assumes. Tolerance 1e-12: sums of
    400 terms of size <= 1 (~1e-14)."""
    monkeypatch.setattr(sufficient, "_GRAM_ENTRIES", 300)  # blocks of ~50 rows
    X0, u = _rows()
    X = X0.copy()
    rows = sp.csr_array(X) if sparse else X
    stored = rows.data if sparse else X
    first_read = []
    original = sufficient.clip_scale

    def scale_then_write(norms, bound):
        out = original(norms, bound)
        if not first_read:
            first_read.append(norms.size)  # the rows of the block read before the write
            stored[...] *= 100.0  # in place: the caller's rows
        return out

    monkeypatch.setattr(sufficient, "clip_scale", scale_then_write)
    m = sufficient.sufficient_statistics(rows, u, bound=1.0, intercept=0.5)
    k = first_read[0]
    assert 0 < k < len(X0)  # a block, not the whole matrix
    as_read = np.vstack([X0[:k], 100.0 * X0[k:]])
    A, b = _exact_moments(as_read, u, 1.0, 0.5)
    np.testing.assert_allclose(m.gram, A, rtol=0, atol=1e-12)
    np.testing.assert_allclose(m.cross, b, rtol=0, atol=1e-12)
    assert np.trace(m.gram) <= len(X0) * (1.0 + 0.25) * (1 + 1e-12)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_sufficient_statistics_equal_those_of_the_clipped_rows(sparse):
    """Unchanged rows: the statistics are those of the clipped rows with their column
    (tolerance 1e-12, sums of 400 terms of size <= 1)."""
    X, u = _rows(seed=1)
    X[::7] *= 5.0  # some rows above q
    m = sufficient.sufficient_statistics(sp.csr_array(X) if sparse else X, u, 1.0, 0.5)
    A, b = _exact_moments(X, u, 1.0, 0.5)
    np.testing.assert_allclose(m.gram, A, rtol=0, atol=1e-12)
    np.testing.assert_allclose(m.cross, b, rtol=0, atol=1e-12)
    assert m.n_clipped == int(np.count_nonzero(np.linalg.norm(X, axis=1) > 1.0))


@pytest.mark.parametrize("row_norm", ["none", "unit"])
def test_large_margin_rows_scaled_in_place_during_a_fit_are_clipped_in_the_solve(
    row_norm, monkeypatch
):
    """PrivateLargeMarginGaussian (softmax loss, one component: the records read X in place):
    rows multiplied by 100 after the checks and before the solve give the release on the
    changed rows clipped to data_norm (the same seed, the same noise), and every record the
    products read has norm <= 1. Tolerance 1e-9: the two designs differ by the rounding of a
    clip factor (~1e-16); measured ~1e-15."""
    from sklearn.base import clone

    from dpconvex.templates import large_margin_rows

    rng = np.random.default_rng(0)
    X0 = rng.normal(size=(600, 3))
    X0 /= np.maximum(1.0, np.linalg.norm(X0, axis=1))[:, None]
    y = (X0 @ np.array([1.0, -1.0, 0.5]) > 0).astype(int)
    est = dp.PrivateLargeMarginGaussian(epsilon=1.0, data_norm=1.0, classes=[0, 1],
                                        row_norm=row_norm, random_state=0, verbose=1)
    X = X0.copy()
    hook = ScaleOnSolve(X)
    seen = []
    blocks = large_margin_rows.AugmentedRows._blocks

    def watched(self):
        for rows, B, s, c in blocks(self):
            if hook.fired:
                z = np.hypot(np.linalg.norm(B, axis=1) * (1.0 if s is None else np.abs(s)), c)
                seen.append(float(z.max()))
            yield rows, B, s, c

    monkeypatch.setattr(large_margin_rows.AugmentedRows, "_blocks", watched)
    monkeypatch.setattr("sys.stderr", hook)
    changed = clone(est).fit(X, y)
    monkeypatch.undo()
    assert hook.fired == 1 and seen
    assert max(seen) <= 1.0 + 1e-15
    reference = clone(est).set_params(verbose=0).fit(clip_rows(X0 * 100.0, 1.0)[0], y)
    np.testing.assert_allclose(changed.Phi_, reference.Phi_, rtol=0, atol=1e-9)


@pytest.mark.parametrize("kw", [{"n_components": 2}, {"loss": "pairwise"}],
                         ids=["mixture", "pairwise"])
def test_large_margin_copy_is_read_once(kw, monkeypatch):
    """The learners that work on a clipped copy of the rows read the caller's rows once: rows
    multiplied by 100 in place as soon as the clip has computed their norms (a stand-in for
    another thread) do not reach the release, which equals the release on the rows as given
    (the same seed; tolerance 1e-12, the same arithmetic)."""
    from dpconvex.data import preprocess

    rng = np.random.default_rng(0)
    X0 = rng.normal(size=(300, 3))
    X0 /= np.maximum(1.0, np.linalg.norm(X0, axis=1))[:, None]
    y = (X0 @ np.array([1.0, -1.0, 0.5]) > 0).astype(int)
    est = dp.PrivateLargeMarginGaussian(epsilon=1.0, data_norm=1.0, classes=[0, 1],
                                        row_norm="none", random_state=0, **kw)
    reference = est.fit(X0, y).Phi_.copy()
    X = X0.copy()
    norms = preprocess.row_norms
    fired = []

    def norms_then_write(A):
        out = norms(A)
        if not fired:
            fired.append(1)
            X[...] *= 100.0  # in place: the caller's rows
        return out

    monkeypatch.setattr(preprocess, "row_norms", norms_then_write)
    changed = est.fit(X, y).Phi_
    assert fired
    np.testing.assert_allclose(changed, reference, rtol=0, atol=1e-12)
