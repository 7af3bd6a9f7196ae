"""Design operators and per-record maps: dense and CSR agree, sparse input is never densified.

Oracles: the dense NumPy formulas (products, norms, Gram matrix, clipping) on
the same rows; a CSR fit against the dense fit with the same seed; and a
tracemalloc bound on the peak memory of a sparse fit (below the dense array's
size).
"""

from __future__ import annotations

import math
import tracemalloc
from types import SimpleNamespace

import numpy as np
import pytest
import scipy.sparse as sp
from _doubles import ScaleOnSolve
from _helpers import release_template, traced_peak

import dpconvex as dp
from dpconvex.data import CSRRows, DenseRows, add_intercept, clip_rows, row_blocks
from dpconvex.data.preprocess import clip_rows as dense_clip_rows
from dpconvex.data.validation import as_design, check_array
from dpconvex.errors import DataValidationError
from dpconvex.objectives.losses import HuberHinge, Logistic
from dpconvex.solvers import solve
from dpconvex.templates.linear_erm import LinearERMTemplate

OBJECTIVE_NEEDS = frozenset({"strong_convexity", "curvature"})


def _sparse_rows(n=400, p=30, density=0.15, seed=0, scale=1.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) * (rng.uniform(size=(n, p)) < density) * scale
    X[::7] = 0.0  # some empty rows
    return X


def _adult_like(n=30_000, seed=0):
    """One-hot rows like Adult: 8 categorical fields (99 columns) and 6 numeric columns,
    a quarter of them zero; ~12.5 non-zeros per row of 105 (about 12 % dense). Built as CSR."""
    rng = np.random.default_rng(seed)
    cards = [9, 16, 7, 15, 6, 5, 2, 39]  # 99 one-hot columns
    offsets = np.concatenate([[0], np.cumsum(cards)[:-1]])
    cat = np.stack([offsets[j] + rng.integers(0, c, n) for j, c in enumerate(cards)], axis=1)
    num = rng.uniform(0, 1, size=(n, 6)) * (rng.uniform(size=(n, 6)) < 0.75)
    num_cols = 99 + np.arange(6)
    rows = np.repeat(np.arange(n), 8 + 6)
    cols = np.concatenate([cat, np.broadcast_to(num_cols, (n, 6))], axis=1).ravel()
    vals = np.concatenate([np.full((n, 8), 0.3), num], axis=1).ravel()
    keep = vals != 0
    X = sp.csr_array((vals[keep], (rows[keep], cols[keep])), shape=(n, 105))
    w = rng.normal(size=105)
    y = np.where(X @ w + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


# ------------------------------------------------------------------ operators


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_csr_rows_match_dense_formulas(fmt):
    X = _sparse_rows()
    S = sp.csr_array(X).asformat(fmt)
    dense, csr = DenseRows(X), CSRRows(S)
    assert csr.is_sparse and not dense.is_sparse
    assert isinstance(csr.matrix, sp.csr_array) and csr.matrix.has_canonical_format
    rng = np.random.default_rng(1)
    w, v = rng.normal(size=30), rng.normal(size=400)
    d, s = rng.uniform(size=400), rng.normal(size=400)
    np.testing.assert_allclose(csr.matvec(w), X @ w, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(csr.rmatvec(v), X.T @ v, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(csr.row_norms(), np.linalg.norm(X, axis=1), rtol=1e-14, atol=0)
    gram = X.T @ (d[:, None] * X)
    np.testing.assert_allclose(csr.weighted_gram(d), gram, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(dense.weighted_gram(d), gram, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(csr.scale_rows(s).matrix.toarray(), X * s[:, None], rtol=0, atol=0)
    np.testing.assert_array_equal(dense.scale_rows(s).matrix, X * s[:, None])
    doubled = csr.map_rows(lambda A: 2.0 * A)
    np.testing.assert_array_equal(doubled.matrix.toarray(), 2.0 * X)
    with pytest.raises(ValueError, match="one row per record"):
        dense.map_rows(lambda A: A[:-1])


def test_duplicates_are_summed_and_the_input_is_not_modified():
    rows, cols = np.array([0, 0, 1, 1]), np.array([2, 2, 0, 1])
    vals = np.array([1.0, 2.0, 3.0, 4.0])
    coo = sp.coo_array((vals, (rows, cols)), shape=(2, 3))
    csr = CSRRows(coo)
    np.testing.assert_array_equal(csr.matrix.toarray(), [[0, 0, 3.0], [3.0, 4.0, 0]])
    np.testing.assert_array_equal(coo.data, vals)


def test_row_blocks_cover_every_stored_entry_once():
    A = sp.csr_array(_sparse_rows(n=1000, p=40, density=0.2))
    seen = np.zeros(A.nnz, dtype=int)
    rows_seen = []
    for rows, idx in row_blocks(A.indptr, max_entries=64):
        assert idx.shape[0] == rows.size and idx.size <= max(64, idx.shape[1])
        seen[idx.ravel()] += 1
        rows_seen.append(rows)
    assert np.all(seen == 1)
    nonempty = np.flatnonzero(np.diff(A.indptr))
    np.testing.assert_array_equal(np.sort(np.concatenate(rows_seen)), nonempty)


def test_as_design_wraps_arrays_sparse_and_operators():
    X = _sparse_rows(n=20, p=5)
    assert isinstance(as_design(X), DenseRows)
    assert isinstance(as_design(sp.csc_matrix(X)), CSRRows)
    op = CSRRows(sp.csr_array(X))
    assert as_design(op) is op


def test_dense_compact_switches_to_csr_only_for_mostly_zero_rows():
    sparse = DenseRows(_sparse_rows(n=3000, p=40, density=0.1))
    dense = DenseRows(np.random.default_rng(0).normal(size=(3000, 40)))
    assert sparse.compact().is_sparse
    assert dense.compact() is dense


# ------------------------------------------------------------- preprocessing


def test_sparse_clipping_equals_dense_clipping_without_densifying(monkeypatch):
    X = _sparse_rows(scale=3.0)
    X[3, :2] = [1e200, -1e200]  # overflowing norm: the shared overflow-safe clip
    Xd, kd = dense_clip_rows(X, 1.0)
    monkeypatch.setattr(sp.csr_array, "toarray", lambda *a, **k: pytest.fail("densified"))
    Xs, ks = clip_rows(sp.csr_matrix(X), 1.0)
    monkeypatch.undo()
    assert ks == kd > 0
    assert isinstance(Xs, sp.csr_array)
    np.testing.assert_allclose(Xs.toarray(), Xd, rtol=1e-15, atol=0)
    norms = CSRRows(Xs).row_norms()
    assert np.all(norms <= 1.0 + 1e-12)
    # nothing to clip: the same matrix back, nothing copied
    A = sp.csr_array(Xd)
    same, k = clip_rows(A, 10.0)
    assert k == 0 and np.shares_memory(same.data, A.data)


def test_sparse_intercept_equals_dense_intercept():
    X = _sparse_rows(n=50, p=6)
    Xs = add_intercept(sp.csr_array(X))
    assert isinstance(Xs, sp.csr_array) and Xs.has_canonical_format
    np.testing.assert_array_equal(Xs.toarray(), add_intercept(X))
    np.testing.assert_array_equal(add_intercept(X), np.hstack([X, np.ones((50, 1))]))


def test_check_array_accepts_sparse_only_when_asked():
    X = sp.csc_matrix(_sparse_rows(n=30, p=4))
    with pytest.raises(DataValidationError, match="sparse"):
        check_array(X, "Owner")
    A = check_array(X, "Owner", accept_sparse=True)
    assert isinstance(A, sp.csr_array) and A.dtype == np.float64
    bad = sp.csr_array(X)
    bad.data[0] = np.nan
    with pytest.raises(DataValidationError, match="NaN or infinite"):
        check_array(bad, "Owner", accept_sparse=True)
    with pytest.raises(DataValidationError, match="expecting 5 features"):
        check_array(X, "Owner", accept_sparse=True, n_features=5)
    with pytest.raises(DataValidationError, match="at least 40"):
        check_array(X, "Owner", accept_sparse=True, min_samples=40)


# ------------------------------------------------------------ sparse templates


@pytest.mark.slow
@pytest.mark.parametrize("loss", [Logistic(), HuberHinge(0.5)], ids=lambda lo: lo.name)
def test_csr_template_equals_dense_template(loss):
    X = _sparse_rows(n=3000, p=40, density=0.1)
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = np.where(np.random.default_rng(2).uniform(size=3000) < 0.5, 1.0, -1.0)
    td = LinearERMTemplate(loss, 1e-3, 1.0, X, y)
    ts = LinearERMTemplate(loss, 1e-3, 1.0, sp.csc_matrix(X), y)
    assert ts.sparse and td.sparse and isinstance(ts.X, sp.csr_array)
    rng = np.random.default_rng(3)
    w, b = rng.normal(size=(2, 40))
    fd, gd = td.objective(w, b, 0.5)
    fs, gs = ts.objective(w, b, 0.5)
    assert fs == pytest.approx(fd, rel=1e-14)
    np.testing.assert_allclose(gs, gd, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(ts.hessian(w, 0.5), td.hessian(w, 0.5), rtol=1e-13, atol=1e-15)
    assert ts.conditions(OBJECTIVE_NEEDS)[-1].holds
    rn, rc = solve(ts, b, 0.0, solver="native"), solve(ts, b, 0.0, solver="clarabel")
    assert rc.residual <= 1e-6 and rn.residual <= 1e-8
    assert np.max(np.abs(rn.x - rc.x)) <= 2 * rc.residual / 1e-3 + 1e-9
    np.testing.assert_allclose(rn.x, solve(td, b, 0.0).x, rtol=0, atol=1e-10)


def test_csr_fit_equals_dense_fit_with_the_same_seed():
    """Clip, intercept, template and an objective-perturbation release: CSR vs dense rows."""
    X, y = _adult_like(n=4000, seed=1)
    X = X * 2.0  # some rows above the bound q = 1: clipping matters
    q = 1.0
    fits = []
    for rows in (X.toarray(), X):
        Xc, k = clip_rows(rows, q)
        t = LinearERMTemplate(Logistic(), 1e-3, math.sqrt(q * q + 1.0), add_intercept(Xc), y)
        theta, cert, _ = release_template(t, epsilon=1.0, mechanism="objective",
                                                 solver="native", random_state=7)
        fits.append((theta, k, cert.epsilon))
    (td, kd, ed), (ts, ks, es) = fits
    assert kd == ks > 0 and ed == es
    assert np.max(np.abs(ts - td)) <= 1e-10


def test_sparse_fit_peak_memory_stays_below_the_dense_array():
    """A 30,000 x 105 one-hot CSR fit (clip, intercept, template, conditions, native solve)
    peaks below the dense array's 25.2 MB (tracemalloc counts NumPy's buffers)."""
    X, y = _adult_like()
    dense_bytes = X.shape[0] * X.shape[1] * 8
    b = np.random.default_rng(0).normal(size=106)
    tracemalloc.start()
    try:
        Xc, _ = clip_rows(X, 1.0)
        t = LinearERMTemplate(Logistic(), 1e-4, math.sqrt(2.0), add_intercept(Xc), y)
        t.conditions(OBJECTIVE_NEEDS)
        res = solve(t, b, 0.0, solver="native")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert res.residual <= 1e-8 and t.sparse
    print(f"sparse fit peak {peak / 1e6:.1f} MB vs dense array {dense_bytes / 1e6:.1f} MB "
          f"(nnz {X.nnz}, density {X.nnz / (X.shape[0] * X.shape[1]):.3f})")
    assert peak < dense_bytes


def test_template_release_takes_delta_for_the_gaussian_mechanisms():
    """A template-level release with delta reaches the (ε, δ) mechanisms; δ = 0 is refused by
    name."""
    from dpconvex.errors import ParameterError

    X, y = _adult_like(n=2000, seed=2)
    Xc, _ = clip_rows(X, 1.0)
    t = LinearERMTemplate(Logistic(), 1e-2, math.sqrt(2.0), add_intercept(Xc), y)
    theta, cert, _ = release_template(t, epsilon=1.0, delta=1e-6,
                                             mechanism="gaussian_objective", solver="native",
                                             random_state=3)
    assert cert.delta == pytest.approx(1e-6) and np.all(np.isfinite(theta))
    with pytest.raises(ParameterError, match="needs delta > 0"):
        release_template(t, epsilon=1.0, mechanism="gaussian_objective", solver="native")


# ------------------------------------------------------ row factors, in place


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_scaled_rows_products_equal_the_materialized_rows(sparse, monkeypatch):
    from dpconvex.data import operators
    from dpconvex.data.operators import ScaledRows

    monkeypatch.setattr(operators, "_BLOCK_ENTRIES", 64)  # blocks of 19 rows: many blocks
    rng = np.random.default_rng(4)
    X = _sparse_rows(n=300, p=12)
    s, t, d = rng.uniform(-1, 1, 300), rng.uniform(size=300), rng.uniform(size=300)
    s[::5] = 0.0
    M = np.hstack([X * s[:, None], t[:, None]])
    ops = ScaledRows(CSRRows(sp.csr_array(X)) if sparse else DenseRows(X), s, t)
    w, v = rng.normal(size=13), rng.normal(size=300)
    assert (ops.n, ops.p, ops.is_sparse) == (300, 13, sparse)
    np.testing.assert_allclose(ops.matvec(w), M @ w, atol=1e-13)
    np.testing.assert_allclose(ops.rmatvec(v), M.T @ v, atol=1e-12)
    np.testing.assert_allclose(ops.weighted_gram(d), (M.T * d) @ M, atol=1e-12)
    np.testing.assert_allclose(ops.row_norms(), np.linalg.norm(M, axis=1), atol=1e-14)
    m, r = ops.matvec_rmatvec(w, lambda m, rows: v[rows] * m)
    np.testing.assert_allclose(m, M @ w, atol=1e-13)
    np.testing.assert_allclose(r, M.T @ (v * (M @ w)), atol=1e-12)
    if not sparse:
        m, r = ops.base.matvec_rmatvec(w[:12], lambda m, rows: v[rows] * m)
        np.testing.assert_allclose(r, X.T @ (v * (X @ w[:12])), atol=1e-12)
    got = ops.matrix.toarray() if sparse else ops.matrix
    np.testing.assert_array_equal(got, M)
    signed = ops.scale_rows(np.where(v > 0, 1.0, -1.0))
    np.testing.assert_allclose(signed.matvec(w), np.where(v > 0, 1.0, -1.0) * (M @ w), atol=1e-13)
    assert ops.nnz == np.count_nonzero(M) or not sparse


def test_dense_gram_in_blocks_equals_the_one_product(monkeypatch):
    from dpconvex.data import operators

    monkeypatch.setattr(operators, "_BLOCK_ENTRIES", 1000)
    rng = np.random.default_rng(5)
    X = rng.normal(size=(2000, 7))
    for d in (rng.uniform(size=2000), rng.uniform(-1, 1, size=2000)):  # d >= 0 takes sqrt(d)
        np.testing.assert_allclose(DenseRows(X).weighted_gram(d), (X.T * d) @ X, rtol=1e-10,
                                   atol=1e-11)


def test_linear_fit_reads_dense_rows_in_place():
    """Clipping, the intercept column and the label signs act inside the products: the
    template's rows are the caller's float64 array, not a copy."""
    from dpconvex import PrivateLogisticRegression
    from dpconvex.data.operators import ScaledRows
    from dpconvex.estimators.linear import design_rows

    rng = np.random.default_rng(6)
    X = rng.normal(size=(500, 4))  # norms ~2: most rows are clipped to data_norm=1
    y = (X[:, 0] > 0).astype(int)
    est = PrivateLogisticRegression(epsilon=1.0, classes=[0, 1], random_state=0)
    prep = est.prepare(X, y, est._plan(500, 2, 4))
    ops = prep.template._ops
    assert np.shares_memory(ops.base.matrix, X)
    explicit = np.hstack([clip_rows(X, 1.0)[0], np.full((500, 1), 0.25)])
    signed = explicit * np.where(y == 1, 1.0, -1.0)[:, None]  # the rows y_i x_i the loss reads
    np.testing.assert_allclose(prep.template.rows.matrix, signed, atol=1e-15)
    assert ops is prep.template.rows  # one operator: the signs are factors of design_rows's rows
    assert prep.template.rows.row_norms().max() <= math.sqrt(1 + 0.25**2) * (1 + 1e-12)
    outside = np.zeros(500, dtype=bool)
    outside[:3] = True
    params = SimpleNamespace(data_norm=1.0, fit_intercept=True, intercept_scaling=0.25)
    rows = design_rows(params, X, outside, "M")
    assert isinstance(rows, ScaledRows) and np.shares_memory(rows.base.matrix, X)
    assert not np.any(rows.matrix[:3]) and np.all(rows.matrix[3:, -1] == 0.25)
    signs = np.where(y == 1, 1.0, -1.0)
    signed_rows = design_rows(params, X, outside, "M", signs=signs)
    assert np.shares_memory(signed_rows.base.matrix, X)
    np.testing.assert_array_equal(signed_rows.matrix, rows.matrix * signs[:, None])
    for scale, copy in ((1.0, False), (1e120, True)):  # 1e120: products could overflow, a copy
        scaled = X * scale
        with dp.collect_diagnostics() as diag:
            rows = design_rows(params, scaled, outside, "M")
        assert isinstance(rows, ScaledRows) and not np.any(rows.matrix[:3])
        assert np.shares_memory(rows.base.matrix, scaled) != copy
        # the left-out rows uncounted
        kept = int(np.sum(np.linalg.norm(X[3:] * scale, axis=1) > 1.0))
        assert [note.count for note in diag.notes if "scaled down" in note.what] == [kept]


def test_every_kth_row_of_each_operator():
    from dpconvex.data.operators import ScaledRows

    rng = np.random.default_rng(0)
    X = rng.normal(size=(23, 4)) * (rng.uniform(size=(23, 4)) < 0.5)
    s, t = rng.uniform(size=23), rng.normal(size=23)
    dense = DenseRows(X).every(5)
    assert np.shares_memory(dense.X, X) and np.array_equal(dense.matrix, X[::5])
    assert np.array_equal(CSRRows(sp.csr_array(X)).every(5).matrix.toarray(), X[::5])
    for base in (DenseRows(X), CSRRows(sp.csr_array(X))):
        sub = ScaledRows(base, s, t).every(5)
        M = np.column_stack([X * s[:, None], t])[::5]
        got = sub.matrix.toarray() if sp.issparse(sub.matrix) else sub.matrix
        np.testing.assert_allclose(got, M, rtol=0, atol=1e-15)
        d = rng.uniform(size=sub.n)
        np.testing.assert_allclose(sub.weighted_gram(d), M.T @ (M * d[:, None]), rtol=1e-12)


@pytest.mark.parametrize("sparse", [False, True])
def test_the_row_norm_condition_reads_the_rows_as_they_are(sparse):
    """An operator's row norms come from its stored rows at each call. The stored rows are the
    caller's array (not copied): the template's row norm condition reads them as they are when
    it is checked, so rows scaled up after a first norm computation fail it."""
    from dpconvex.data.operators import ScaledRows

    X = 10.0 * _sparse_rows(n=200, p=8)
    A = sp.csr_array(X)
    base = CSRRows(A) if sparse else DenseRows(X)
    norms = base.row_norms()
    np.testing.assert_allclose(norms, np.linalg.norm(X, axis=1), rtol=1e-14)
    y = np.where(np.arange(200) % 2 == 0, 1.0, -1.0)
    clip = np.minimum(1.0, 1.0 / np.maximum(norms, 1e-300))
    for factors, holds in ((y, False), (clip * y, True)):
        template = LinearERMTemplate(Logistic(), 0.1, 1.0, ScaledRows(base, factors), y)
        assert template.conditions(OBJECTIVE_NEEDS)[-1].holds is holds
    stored = base.A.data if sparse else base.X
    assert np.shares_memory(stored, A.data if sparse else X)
    stored *= 60.0  # the caller's rows, changed after the clipping factors were computed
    template = LinearERMTemplate(Logistic(), 0.1, 1.0, ScaledRows(base, clip * y), y)
    assert template.conditions(OBJECTIVE_NEEDS)[-1].holds is False


def test_a_changed_row_after_a_first_norm_computation_is_refused():
    """A release from rows of norm 0.5 multiplied by 60 after their norms were first read is
    refused by the row norm condition."""
    from dpconvex.data.operators import ScaledRows
    from dpconvex.errors import PrivacyError
    from dpconvex.privacy.budget import Budget
    from dpconvex.privacy.release import release

    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3))
    X *= 0.5 / np.linalg.norm(X, axis=1, keepdims=True)
    y = np.where(np.arange(50) % 2 == 0, 1.0, -1.0)
    rows = DenseRows(X)
    rows.row_norms()
    X *= 60.0
    with pytest.raises(PrivacyError, match="row norm bound"):
        release(LinearERMTemplate(Logistic(), 0.1, 1.0, ScaledRows(rows, y), y), "objective",
                Budget(1.0))


def test_stored_rows_changed_between_releases_are_the_rows_the_products_read():
    """CSR rows of norm 30 released clipped, then divided by 60 in place and released again
    unclipped over the same operator: the row norm condition holds on the rows as they are, and
    the products read those same rows, so θ is the release on fresh rows of norm 0.5 with the
    same noise (equal up to rounding: the products sum the same entries in the same order)."""
    from dpconvex.data.operators import ScaledRows
    from dpconvex.privacy.budget import Budget
    from dpconvex.privacy.release import release

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4)) * (rng.uniform(size=(60, 4)) < 0.6)
    X[:, 0] += 1.0  # no empty row
    X *= 0.5 / np.linalg.norm(X, axis=1, keepdims=True)
    y = np.where(np.arange(60) % 2 == 0, 1.0, -1.0)
    A = sp.csr_array(X * 60.0)
    base = CSRRows(A)
    clip = np.minimum(1.0, 1.0 / base.row_norms())
    release(LinearERMTemplate(Logistic(), 0.1, 1.0, ScaledRows(base, clip * y), y), "objective",
            Budget(1.0), rng=1)
    A.data /= 60.0
    got = release(LinearERMTemplate(Logistic(), 0.1, 1.0, ScaledRows(base, y), y), "objective",
                  Budget(1.0), rng=2)
    fresh = release(LinearERMTemplate(Logistic(), 0.1, 1.0, ScaledRows(CSRRows(sp.csr_array(X)),
                                                                       y), y),
                    "objective", Budget(1.0), rng=2)
    assert got.certificate.all_hold
    np.testing.assert_allclose(got.theta, fresh.theta, rtol=1e-12, atol=1e-14)


def _clipped(X, s, t, q, unit):
    """The rows [s_i g_i x_i, t_i] built as an array, g_i the clip (``unit``) factor of x_i."""
    norms = np.linalg.norm(X, axis=1)
    g = np.ones(len(X))
    scaled = norms > q if not unit else norms > 0
    g[scaled] = q / norms[scaled]
    return np.hstack([X * (s * g)[:, None], t[:, None]])


@pytest.mark.parametrize("unit", [False, True], ids=["clip", "unit"])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_clip_factors_follow_the_rows_as_each_product_reads_them(sparse, unit, monkeypatch):
    """With ``clip=q`` every product, Gram and norm reads the stored rows' norms per block as it
    reads the rows: after the caller's array is multiplied by 100 in place, they equal those of
    the clipped (``unit``: normalized) changed rows, and no row norm exceeds ‖[q, t_i]‖
    (tolerances: sums of 12 terms of size <= 1, ~1e-15 each)."""
    from dpconvex.data import operators
    from dpconvex.data.operators import ScaledRows

    monkeypatch.setattr(operators, "_GRAM_ENTRIES", 64)  # many blocks of rows
    rng = np.random.default_rng(11)
    X = _sparse_rows(n=300, p=12, density=0.4)  # norms ~1.4: some rows above q = 1, some below
    A = sp.csr_array(X)
    s, t = np.where(rng.uniform(size=300) < 0.5, -1.0, 1.0), np.full(300, 0.5)
    s[::5] = 0.0
    t[::10] = 0.0  # zero rows: s_i = t_i = 0
    ops = ScaledRows(CSRRows(A) if sparse else DenseRows(X), s, t, clip=1.0, unit=unit)
    w, v = rng.normal(size=13), rng.normal(size=300)
    for factor in (1.0, 100.0):
        stored = ops.base.A.data if sparse else ops.base.X
        assert np.shares_memory(stored, A.data if sparse else X)
        stored *= factor  # in place: the caller's rows
        M = _clipped(A.toarray() if sparse else X, s, t, 1.0, unit)
        np.testing.assert_allclose(ops.matvec(w), M @ w, atol=1e-13)
        np.testing.assert_allclose(ops.rmatvec(v), M.T @ v, atol=1e-12)
        m, r = ops.matvec_rmatvec(w, lambda m, rows: v[rows] * m)
        np.testing.assert_allclose(m, M @ w, atol=1e-13)
        np.testing.assert_allclose(r, M.T @ (v * (M @ w)), atol=1e-12)
        for d in (rng.uniform(size=300), rng.uniform(-1, 1, size=300)):
            np.testing.assert_allclose(ops.weighted_gram(d), (M.T * d) @ M, atol=1e-12)
        norms = ops.row_norms()
        np.testing.assert_allclose(norms, np.linalg.norm(M, axis=1), atol=1e-14)
        assert np.all(norms <= np.hypot(1.0, t) * (1 + 1e-15))
        got = ops.matrix.toarray() if sparse else ops.matrix
        np.testing.assert_allclose(got, M, atol=1e-15)
        np.testing.assert_allclose(ops.every(3).matvec(w), (M @ w)[::3], atol=1e-13)
        np.testing.assert_allclose(ops.scale_rows(-v).matvec(w), -v * (M @ w), atol=1e-12)


@pytest.mark.parametrize("case", ["logistic-dense", "logistic-csr", "huber-dense"])
def test_rows_scaled_in_place_during_a_fit_are_clipped_in_the_solve(case, monkeypatch):
    """Rows multiplied by 100 in place after the checks and before the solve: the release is
    the release on the changed rows clipped to data_norm (the same seed, the same noise), and
    the certificate's row norm bound holds on the rows as read. Tolerance 1e-9: the two
    designs differ by the rounding of a clip factor (~1e-16), the solves stop at a residual of
    1e-6 but follow the same iterations (measured: ~1e-15)."""
    from sklearn.base import clone

    from dpconvex.errors import verbosity

    rng = np.random.default_rng(0)
    X0 = rng.normal(size=(2000, 3))
    X0 /= np.maximum(1.0, np.linalg.norm(X0, axis=1))[:, None]
    score = X0 @ np.array([1.0, -1.0, 0.5])
    learner = dp.PrivateLogisticRegression if case.startswith("logistic") else dp.PrivateHuberSVM
    est = learner(epsilon=1.0, data_norm=1.0, classes=[0, 1], random_state=0)
    y = (score > 0).astype(int)
    X = X0.copy()
    rows = sp.csr_array(X) if case.endswith("csr") else X
    hook = ScaleOnSolve(rows.data if case.endswith("csr") else X)
    monkeypatch.setattr("sys.stderr", hook)
    with verbosity(1):
        changed = clone(est).fit(rows, y)
    monkeypatch.undo()
    assert hook.fired == 1
    reference = est.fit(dense_clip_rows(X0 * 100.0, 1.0)[0], y)
    np.testing.assert_allclose(changed.coef_, reference.coef_, rtol=0, atol=1e-9)
    np.testing.assert_allclose(changed.intercept_, reference.intercept_, rtol=0, atol=1e-9)
    bound = [c.holds for c in changed.certificate_.conditions if c.name == "row norm bound"]
    assert bound == [True]


def test_one_row_broadcast_is_kept_as_is():
    """A plan's shape-only rows (one zero row broadcast): compact keeps the view."""
    Z = np.broadcast_to(0.0, (100_000, 3))
    ops = DenseRows(Z).compact()
    assert isinstance(ops, DenseRows) and ops.X.strides[0] == 0


def test_blocked_gram_with_mostly_zero_weights_reads_only_their_rows():
    """Rows with d_i = 0 add exact zeros: skipping them leaves the Gram matrix as it is."""
    from dpconvex.data.operators import _GRAM_ENTRIES, ScaledRows

    rng = np.random.default_rng(0)
    n, p = 3000, 200
    assert n > 2 * (_GRAM_ENTRIES // (p + 1))  # several blocks
    X = rng.normal(size=(n, p))
    s, t = rng.uniform(size=n), rng.normal(size=n)
    d = rng.uniform(size=n) * (rng.uniform(size=n) < 0.2)  # 80% zeros
    M = np.column_stack([X * s[:, None], t])
    np.testing.assert_allclose(ScaledRows(DenseRows(X), s, t).weighted_gram(d),
                               M.T @ (M * d[:, None]), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(DenseRows(X).weighted_gram(d), X.T @ (X * d[:, None]),
                               rtol=1e-10, atol=1e-10)


def test_finiteness_is_checked_without_an_n_by_p_mask():
    X = np.ones((200_000, 10))  # a boolean mask of it would take 2 MB
    _, peak = traced_peak(lambda: check_array(X, "demo"))
    assert peak < 2**20, f"peak {peak / 2**20:.1f} MB"
    big = np.full((4, 3), 1e308)  # finite entries whose sum overflows
    assert check_array(big, "demo") is not None
    big[3, 2] = np.nan
    with pytest.raises(DataValidationError, match="NaN or infinite"):
        check_array(big, "demo")


@pytest.mark.parametrize("call,caller", [(dp.data.operators.row_norms, "row_norms"),
                                         (DenseRows, "DenseRows.__init__")])
def test_rows_that_are_not_2d_are_refused_by_name(call, caller):
    with pytest.raises(DataValidationError,
                       match=rf"{caller}: needs a 2-D array; got shape \(3,\)"):
        call(np.ones(3))


@pytest.mark.parametrize("gain", [0.0, math.inf], ids=["sparse blocks", "dense blocks"])
def test_csr_gram_in_blocks_equals_the_materialized_rows(gain, monkeypatch):
    """Both ways of summing a CSR Gram matrix block by block (the blocks' sparse products, or
    the blocks scattered into a dense buffer), over many blocks, weights of either sign and
    empty rows, with and without row factors and an appended column. Tolerance: sums of 400
    products of O(1) numbers in another order, ~1e-13."""
    from dpconvex.data import operators
    from dpconvex.data.operators import ScaledRows

    monkeypatch.setattr(operators, "_DENSE_GRAM_GAIN", gain)
    monkeypatch.setattr(operators, "_GRAM_ENTRIES", 64)  # ~2-6 rows a block: many blocks
    rng = np.random.default_rng(7)
    X = _sparse_rows(n=400, p=12, density=0.3)
    s, t = rng.uniform(-1, 1, 400), rng.normal(size=400)
    M = np.hstack([X * s[:, None], t[:, None]])
    for d in (rng.uniform(size=400), rng.uniform(-1, 1, 400)):  # d >= 0 takes sqrt(d)
        np.testing.assert_allclose(CSRRows(sp.csr_array(X)).weighted_gram(d), (X.T * d) @ X,
                                   rtol=1e-12, atol=1e-13)
        ops = ScaledRows(CSRRows(sp.csr_array(X)), s, t)
        np.testing.assert_allclose(ops.weighted_gram(d), (M.T * d) @ M, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(ScaledRows(CSRRows(sp.csr_array(X)), s).weighted_gram(d),
                                   (X.T * (d * s * s)) @ X, rtol=1e-12, atol=1e-13)


def test_csr_fused_products_and_norms_over_many_blocks(monkeypatch):
    """The fused (A w, Aᵀ f(A w)) and the row norms read CSR rows in blocks of entries: over
    many blocks they equal the materialized rows' (tolerance: sums of 12 terms, ~1e-14)."""
    from dpconvex.data import operators
    from dpconvex.data.operators import ScaledRows

    monkeypatch.setattr(operators, "_GRAM_ENTRIES", 50)
    rng = np.random.default_rng(8)
    X = _sparse_rows(n=300, p=12, density=0.4)
    s, t, v = rng.uniform(-1, 1, 300), rng.normal(size=300), rng.normal(size=300)
    s[::5] = 0.0
    M = np.hstack([X * s[:, None], t[:, None]])
    w = rng.normal(size=13)
    seen = []
    m, r = ScaledRows(CSRRows(sp.csr_array(X)), s, t).matvec_rmatvec(
        w, lambda m, rows: seen.append(rows) or v[rows] * m)
    assert len(seen) > 5 and sum(b.stop - b.start for b in seen) == 300
    np.testing.assert_allclose(m, M @ w, atol=1e-13)
    np.testing.assert_allclose(r, M.T @ (v * (M @ w)), atol=1e-12)
    m, r = CSRRows(sp.csr_array(X)).matvec_rmatvec(w[:12], lambda m, rows: v[rows] * m)
    np.testing.assert_allclose(r, X.T @ (v * (X @ w[:12])), atol=1e-12)
    np.testing.assert_allclose(CSRRows(sp.csr_array(X)).row_norms(), np.linalg.norm(X, axis=1),
                               rtol=1e-14, atol=0)



@pytest.mark.parametrize("sparse", [False, True])
def test_fused_products_hand_each_block_its_rows_norms_as_read(monkeypatch, sparse):
    """With ``with_norms=True`` the weight function gets each block's row norms ||[s_i x_i,
    t_i]|| read from the block (clip, column, zero rows: those of row_norms, exactly on
    unchanged rows), and a row written between two blocks' reads has its norm as read then."""
    from dpconvex.data import operators
    from dpconvex.data.operators import ScaledRows

    monkeypatch.setattr(operators, "_GRAM_ENTRIES", 50)
    rng = np.random.default_rng(9)
    X = _sparse_rows(n=300, p=12, density=0.4) * 3.0
    s, t = np.where(rng.random(300) < 0.5, -1.0, 1.0), np.full(300, 0.5)
    s[::7], t[::7] = 0.0, 0.0
    stored = CSRRows(sp.csr_array(X)) if sparse else DenseRows(X)
    ops = ScaledRows(stored, s, t, clip=1.0)
    want = ops.row_norms()
    got = np.full(300, np.nan)

    def weights(m, rows, norms):
        got[rows] = norms
        return m

    ops.matvec_rmatvec(rng.normal(size=13), weights, with_norms=True)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(ops.matvec_rmatvec(np.ones(13), lambda m, rows: m)[0],
                                  ops.matvec(np.ones(13)))  # f(m, rows) without the flag
    plain = CSRRows(sp.csr_array(X)) if sparse else DenseRows(X)
    seen = []
    plain.matvec_rmatvec(np.ones(12), lambda m, rows, norms: seen.append(norms) or m,
                         with_norms=True)
    np.testing.assert_array_equal(np.concatenate(seen), plain.row_norms())
    values = stored.A.data if sparse else X  # the stored rows, written in place
    last = np.full(300, np.nan)

    def grow_last(m, rows, norms):  # after the first block: the last row's entries times 10
        if rows.start == 0:
            values[-(np.count_nonzero(X[-1]) if sparse else 1):] *= 10.0
        last[rows] = norms
        return m

    before = np.linalg.norm(X[-1])
    ScaledRows(stored, np.ones(300)).matvec_rmatvec(np.ones(12), grow_last, with_norms=True)
    assert last[-1] == pytest.approx(10.0 * before, rel=1e-14)  # (12 terms: ~1e-15)


def test_csr_row_kernels_hold_no_copy_of_the_rows(monkeypatch):
    """Aᵀ v, the fused products, the row norms and the Gram matrix of CSR rows hold a few
    blocks of rows and the vectors they return, never a copy of the entries or a transposed
    one (a copy of the values alone: 4.8 MB here; the n-vectors returned: 1.6 MB)."""
    from dpconvex.data import operators
    from dpconvex.data.operators import ScaledRows

    monkeypatch.setattr(operators, "_GRAM_ENTRIES", 1 << 12)  # blocks of ~50 KB
    n, p, k = 200_000, 10, 3
    rng = np.random.default_rng(9)
    cols = np.sort(rng.permuted(np.tile(np.arange(p), (n, 1)), axis=1)[:, :k], axis=1)
    A = sp.csr_array((rng.normal(size=n * k), cols.ravel(), np.arange(0, n * k + 1, k)),
                     shape=(n, p))
    ops = ScaledRows(CSRRows(A), rng.uniform(size=n), rng.normal(size=n))
    v, w, d = rng.normal(size=n), rng.normal(size=p + 1), rng.uniform(size=n)
    vector = 8 * n  # one returned n-vector
    for name, fn, returned in (
        ("rmatvec", lambda: ops.base.rmatvec(v), 0),
        ("matvec_rmatvec", lambda: ops.matvec_rmatvec(w, lambda m, rows: 2.0 * m), vector),
        ("row_norms", ops.row_norms, vector),
        ("weighted_gram", lambda: ops.weighted_gram(d), 0),
    ):
        _, peak = traced_peak(fn)
        assert peak < returned + vector // 2, f"{name}: peak {peak / 2**20:.2f} MB"


def test_the_rows_built_as_an_array_are_clipped_by_the_copys_own_norms(monkeypatch):
    """``ScaledRows.matrix`` (the rows of a CVXPY form) reads the stored rows once, into its
    copy, and clips the copy by its own norms: rows changed in place while it builds (here, at
    the read into the copy) are built at norm <= q."""
    from dpconvex.data.operators import ScaledRows

    X = np.array([[0.3, 0.4], [0.0, 0.5]])
    ops = ScaledRows(DenseRows(X), np.ones(2), clip=1.0)
    read = DenseRows.scale_rows

    def scaled_in_place_then_read(self, s):
        if self.X is X:
            X[:] *= 100.0
        return read(self, s)

    monkeypatch.setattr(DenseRows, "scale_rows", scaled_in_place_then_read)
    # the rows as changed (norms 50), clipped to q = 1
    assert np.allclose(np.linalg.norm(ops.matrix, axis=1), [1.0, 1.0], rtol=1e-12)
