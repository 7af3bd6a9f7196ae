"""The data holder's channel on Dask input: the notes of ``collect_diagnostics`` for naive Bayes,
the class centroids and the large-margin estimator, against the in-memory fits.

docs/privacy/messages.md#privacy-messages (the diagnostics list). Tiny Dask arrays on the
default local scheduler (no cluster); every fit is seeded.
"""

from __future__ import annotations

import pickle
import warnings
from collections import Counter

import numpy as np
import pytest
import scipy.sparse as sp

import dpconvex as dp

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


def _notes(make, X, y) -> list[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning on these public settings, none with a count
        with dp.collect_diagnostics() as diag:
            make().fit(X, y)
    return [str(note) for note in diag.notes]


def _each_once(notes: list[str]) -> None:
    repeated = [note for note, k in Counter(notes).items() if k > 1]
    assert not repeated, repeated


@pytest.mark.parametrize("make, count_note", [
    (lambda: dp.PrivateGaussianNB(classes=CLASSES, feature_range=(-1, 1), random_state=0,
                                  unknown_labels="ignore"),
     "PrivateGaussianNB: 2 of 40 records with a feature outside feature_range"),
    (lambda: dp.PrivateGaussianCentroid(classes=CLASSES, random_state=0,
                                        unknown_labels="ignore"),
     "PrivateGaussianCentroid: 2 of 40 rows scaled down to data_norm=1"),
], ids=["naive_bayes", "centroids"])
def test_dask_sparse_and_dense_fits_give_the_same_notes_each_once(make, count_note):
    X, y = _data()
    notes = {kind: _notes(make, *data) for kind, data in _inputs(X, y).items()}
    assert notes["dask"] == notes["dense"] == notes["sparse"]
    _each_once(notes["dask"])
    # the rows the map alters, counted in the pass that sums the classes: the two kept rows
    # outside (the row of the label outside classes= is left out, and noted as a label)
    assert sum(note.startswith(count_note) for note in notes["dask"]) == 1
    assert sum("1 of 40 records with labels outside" in note for note in notes["dask"]) == 1


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
    own = "PrivateLargeMarginGaussian: "
    assert sum(note.startswith(own) and "labels outside" in note for note in dask) == 1
    # Dask rows are clipped lazily per chunk: the estimator's own count of rows scaled down is
    # the one note of the in-memory fit the Dask fit does not give (the diagnostics list)
    assert [note for note in dense
            if not (note.startswith(own) and "scaled down" in note)] == dask


def test_the_count_reaches_only_an_open_collector_and_changes_no_release():
    X, y = _data()
    Xd, yd = _inputs(X, y)["dask"]
    kw = dict(classes=CLASSES, feature_range=(-1, 1), random_state=5, unknown_labels="ignore")
    with dp.collect_diagnostics() as diag:
        noted = dp.PrivateGaussianNB(**kw).fit(Xd, yd)
    assert diag.note("outside feature_range").count == 2
    plain = dp.PrivateGaussianNB(**kw).fit(Xd, yd)  # no collector open: nothing counted
    # same seed, same sums added in the same order (the count is an entry of its own, dropped
    # before the release): the fitted estimators pickle alike, no note stored on either
    assert pickle.dumps(noted) == pickle.dumps(plain)


def test_a_sweep_over_one_preparation_notes_the_count_once():
    X, y = _data()
    est = dp.PrivateGaussianNB(classes=CLASSES, random_state=1, unknown_labels="ignore")
    with dp.collect_diagnostics() as diag:
        dp.epsilon_sweep(est, *_inputs(X, y)["dask"], [0.5, 2.0])
    _each_once([str(note) for note in diag.notes])
    assert sum("outside feature_range" in note.what for note in diag.notes) == 1
