"""The data holder's channel on Dask input: the notes of ``collect_diagnostics`` for naive Bayes,
the class centroids and the large-margin estimator, against the in-memory fits.

docs/privacy/messages.md#privacy-messages (the diagnostics list). Tiny Dask arrays on the
default local scheduler (no cluster); every fit is seeded.
"""

from __future__ import annotations

import pickle
import warnings
from collections import Counter
from contextlib import nullcontext

import numpy as np
import pytest
import scipy.sparse as sp

import dpconvex as dp
from dpconvex.errors import DiagnosticNote
from dpconvex.privacy.user_parts import users_part

da = pytest.importorskip("dask.array")

CLASSES = [0, 1, 2]


def _data() -> tuple[np.ndarray, np.ndarray]:
    """40 rows of 3 features in (-1, 1) but for two kept rows far outside (norm 1e3 and 2), and
    one label outside ``CLASSES`` on a row also far outside (left out: counted as a label only)."""
    rng = np.random.default_rng(3)
    y = (np.arange(40) % 3).astype(object)
    X = np.clip(0.3 * np.eye(3)[y.astype(int)] + 0.1 * rng.normal(size=(40, 3)), -0.9, 0.9)
    X[7] = [1e3, 0.0, 0.0]
    X[20] = [0.0, -2.0, 0.0]
    X[33], y[33] = [5.0, 5.0, 5.0], "other"
    return X, y


def _inputs(X: np.ndarray, y: np.ndarray) -> dict[str, tuple[object, object]]:
    return {"dense": (X, y), "sparse": (sp.csr_matrix(X), y),
            "dask": (da.from_array(X, chunks=(20, 3)), da.from_array(y, chunks=20))}


def _notes(make, X, y) -> list[DiagnosticNote]:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning on these public settings, none with a count
        with dp.collect_diagnostics() as diag:
            make().fit(X, y)
    return list(diag.notes)


def _each_once(notes: list[DiagnosticNote]) -> None:
    repeated = [note for note, k in Counter(notes).items() if k > 1]
    assert not repeated, repeated


def _naive_bayes() -> dp.PrivateGaussianNB:
    return dp.PrivateGaussianNB(classes=CLASSES, feature_range=(-1, 1), random_state=0,
                                unknown_labels="ignore")


def _centroids() -> dp.PrivateGaussianCentroid:
    return dp.PrivateGaussianCentroid(classes=CLASSES, random_state=0, unknown_labels="ignore")


@pytest.mark.parametrize("make, count_what", [
    (_naive_bayes, "outside feature_range"),
    (_centroids, "scaled down to data_norm=1"),
], ids=["naive_bayes", "centroids"])
def test_dask_sparse_and_dense_fits_give_the_same_notes_each_once(make, count_what):
    X, y = _data()
    notes = {kind: _notes(make, *data) for kind, data in _inputs(X, y).items()}
    assert notes["dask"] == notes["dense"] == notes["sparse"]
    _each_once(notes["dask"])
    owner = type(make()).__name__
    # the rows the map alters, counted in the pass that sums the classes: the two kept rows
    # outside (the row of the label outside classes= is left out, and noted as a label)
    assert [(note.owner, note.count, note.n) for note in notes["dask"]
            if count_what in note.what] == [(owner, 2, 40)]
    assert [(note.owner, note.count, note.n, note.values) for note in notes["dask"]
            if "labels outside" in note.what] == [(owner, 1, 40, ("other",))]


@pytest.mark.parametrize("collecting", [False, True], ids=["no_collector", "collector_open"])
@pytest.mark.parametrize("make", [_naive_bayes, _centroids], ids=["naive_bayes", "centroids"])
def test_a_prepared_template_holds_no_part_of_the_users(make, collecting):
    # the note the summing pass records is asked for with public values only: dpconvex's own
    # template stays dpconvex's, so no guard on the user's parts runs on its release
    X, y = _data()
    est = make()
    with dp.collect_diagnostics() if collecting else nullcontext():
        plan = est.plan_for(X, y)
        prep = est.prepare(X, y, plan)
        assert users_part(prep.template, plan.mechanism, None) is None


@pytest.mark.parametrize("mechanism", ["auto", "objective"])
def test_large_margin_on_dask_notes_the_labels_outside_once(mechanism):
    X, y = _data()
    # epsilon large enough for 40 rows that the public noise check stays silent
    kw = dict(classes=CLASSES, solver="native", random_state=0, unknown_labels="ignore",
              mechanism=mechanism, epsilon=50.0)

    def make():
        return dp.PrivateLargeMarginGaussian(**kw)

    dask = _notes(make, *_inputs(X, y)["dask"])
    dense = _notes(make, X, y)
    _each_once(dask)
    _each_once(dense)
    own = "PrivateLargeMarginGaussian"
    assert [(note.count, note.n) for note in dask
            if note.owner == own and "labels outside" in note.what] == [(1, 40)]
    # Dask rows are clipped lazily per chunk: the estimator's own count of rows scaled down is
    # the one note of the in-memory fit the Dask fit does not give (the diagnostics list)
    assert [note for note in dense
            if not (note.owner == own and "scaled down" in note.what)] == dask


def test_the_count_reaches_only_an_open_collector_and_changes_no_release():
    X, y = _data()
    Xd, yd = _inputs(X, y)["dask"]
    kw = dict(classes=CLASSES, feature_range=(-1, 1), random_state=5, unknown_labels="ignore")
    with dp.collect_diagnostics() as diag:
        noted = dp.PrivateGaussianNB(**kw).fit(Xd, yd)
    noted_count = diag.note("outside feature_range")
    assert (noted_count.owner, noted_count.count, noted_count.n) == ("PrivateGaussianNB", 2, 40)
    plain = dp.PrivateGaussianNB(**kw).fit(Xd, yd)  # no collector open: nothing counted
    # same seed, same sums added in the same order (the count is an entry of its own, dropped
    # before the release): the fitted estimators pickle alike, no note stored on either
    assert pickle.dumps(noted) == pickle.dumps(plain)


def test_a_sweep_over_one_preparation_notes_the_count_once():
    X, y = _data()
    est = dp.PrivateGaussianNB(classes=CLASSES, random_state=1, unknown_labels="ignore")
    with dp.collect_diagnostics() as diag:
        dp.epsilon_sweep(est, *_inputs(X, y)["dask"], [0.5, 2.0])
    _each_once(diag.notes)
    assert [(note.owner, note.count, note.n) for note in diag.notes
            if "outside feature_range" in note.what] == [("PrivateGaussianNB", 2, 40)]
