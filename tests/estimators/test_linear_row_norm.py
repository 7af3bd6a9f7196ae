"""``row_norm="unit"`` of the linear learners, and the front door's public rule for it.

The map x ↦ q·x/‖x‖ is held as a per-row factor in a fit (X is not copied) and applied to
the scores in ``decision_function``; a fit with it equals, up to rounding, the same fit on
rows scaled beforehand by :func:`dpconvex.data.row_scaling.normalize_rows` (same seed, same
noise, same template). The tolerance 1e-8 is far above the rounding of a per-row factor
(about 1e-16 relative, through a solve with a gradient tolerance of 1e-10) and far below
any change a different map or noise draw would make (coefficients of order 0.1 to 10).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import dpconvex as dp
from dpconvex.data.row_scaling import normalize_rows
from dpconvex.errors import ParameterError
from dpconvex.estimators.linear import UNIT_ROWS_NOTE
from dpconvex.privacy.rules.front_door import UNIT_ROWS_AT_LEAST, choose_front_door_learner


def _rows(n=240, d=9, seed=0):
    """Rows of very different lengths (the map matters), one zero row, a linear label."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.01, 0.4, size=(n, 1))
    X[5] = 0.0
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    return X, y


@pytest.mark.parametrize("estimator", [dp.PrivateHuberSVM, dp.PrivateLogisticRegression])
@pytest.mark.parametrize("sparse", [False, True])
def test_unit_rows_fit_equals_the_fit_on_scaled_rows(estimator, sparse):
    X, y = _rows()
    rows = sp.csr_array(X) if sparse else X
    unit = estimator(epsilon=1.0, classes=[0, 1], random_state=3, row_norm="unit").fit(rows, y)
    scaled = estimator(epsilon=1.0, classes=[0, 1], random_state=3).fit(normalize_rows(X), y)
    np.testing.assert_allclose(unit.coef_, scaled.coef_, rtol=0, atol=1e-8)
    np.testing.assert_allclose(unit.intercept_, scaled.intercept_, rtol=0, atol=1e-8)
    np.testing.assert_allclose(unit.decision_function(rows),
                               scaled.decision_function(normalize_rows(X)), rtol=0, atol=1e-8)
    assert unit.decision_function(X[5:6])[0] == pytest.approx(unit.intercept_[0])  # zero row
    assert unit.certificate_.row_map == UNIT_ROWS_NOTE
    assert unit.certificate_.row_map.row_norm == "unit" and scaled.certificate_.row_map is None
    if not sparse:  # the rows are read in place
        assert unit.decision_function(X * 7.0) == pytest.approx(unit.decision_function(X))


def test_unit_rows_differ_from_clipped_rows():
    """The check above can fail: without the map the same seed gives another model."""
    X, y = _rows()
    unit = dp.PrivateHuberSVM(epsilon=1.0, classes=[0, 1], random_state=3, row_norm="unit").fit(X, y)
    plain = dp.PrivateHuberSVM(epsilon=1.0, classes=[0, 1], random_state=3).fit(X, y)
    assert np.max(np.abs(unit.coef_ - plain.coef_)) > 1e-3


def test_one_vs_rest_keeps_the_map():
    X, _ = _rows()
    y = np.digitize(X[:, 0] / (np.linalg.norm(X, axis=1) + 1e-12), [-0.3, 0.3])
    unit = dp.PrivateHuberSVM(epsilon=3.0, classes=[0, 1, 2], random_state=0,
                              row_norm="unit").fit(X, y)
    scaled = dp.PrivateHuberSVM(epsilon=3.0, classes=[0, 1, 2], random_state=0).fit(
        normalize_rows(X), y)
    assert unit.decision_function(X).shape == (len(X), 3)
    np.testing.assert_allclose(unit.decision_function(X),
                               scaled.decision_function(normalize_rows(X)), rtol=0, atol=1e-8)


def test_a_bad_row_norm_is_refused_by_name():
    X, y = _rows()
    with pytest.raises(ParameterError, match="'row_norm' parameter of PrivateHuberSVM"):
        dp.PrivateHuberSVM(row_norm="l2", classes=[0, 1]).fit(X, y)


@pytest.mark.parametrize("d, expected", [(UNIT_ROWS_AT_LEAST, "unit"),
                                         (UNIT_ROWS_AT_LEAST - 1, "none")])
def test_the_front_door_scales_rows_for_the_huber_svm_from_d_only(d, expected):
    choice = choose_front_door_learner(2000, 2, d, 1.0, 0.0)
    assert (choice.learner, choice.row_norm) == ("Huber SVM", expected)
    X, y = _rows(n=400, d=d, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = dp.PrivateClassifier(epsilon=1.0, classes=[0, 1], random_state=0,
                                   safeguard=False).fit(X, y)
    assert clf.estimator_.row_norm == expected
    row_map = clf.certificate_.row_map
    assert (row_map.row_norm if row_map else "none") == expected
    assert choice.reason in clf.certificate_.assumptions


def test_the_front_door_keeps_noisy_gradient_descent_unscaled():
    assert choose_front_door_learner(2000, 2, 20, 1.0, 1e-6)[::2] == ("noisy gradient descent",
                                                                      "none")


def test_row_norm_none_keeps_every_learners_rows():
    """The opt-out for rows whose length carries the label: no learner scales them."""
    X, y = _rows(n=400, d=UNIT_ROWS_AT_LEAST, seed=2)
    y3 = np.digitize(X[:, 0], [-0.05, 0.05])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for labels, classes, epsilon in [(y, [0, 1], 1.0), (y3, [0, 1, 2], 0.5),
                                         (y3, [0, 1, 2], 50.0)]:
            kept = dp.PrivateClassifier(epsilon=epsilon, classes=classes, random_state=0,
                                        safeguard=False, row_norm="none").fit(X, labels)
            auto = dp.PrivateClassifier(epsilon=epsilon, classes=classes, random_state=0,
                                        safeguard=False).fit(X, labels)
            assert kept.learner_ == auto.learner_
            assert kept.estimator_.row_norm == "none"
            assert auto.estimator_.row_norm in ("unit", "auto")  # the learner's own default
    assert "row_norm='none'" in choose_front_door_learner(400, 2, 20, 1.0, 0.0, "none").reason


def test_extreme_row_lengths_are_scaled_without_overflow():
    """Subnormal and huge rows: the factors would overflow, so those rows are scaled on a
    copy by the overflow-safe map; the fit and the scores still equal the scaled rows'."""
    X, y = _rows(seed=4)
    X[3] *= 1e-310
    X[4] *= 1e200
    unit = dp.PrivateHuberSVM(classes=[0, 1], random_state=0, row_norm="unit").fit(X, y)
    scaled = dp.PrivateHuberSVM(classes=[0, 1], random_state=0).fit(normalize_rows(X), y)
    np.testing.assert_allclose(unit.coef_, scaled.coef_, rtol=0, atol=1e-8)
    scores = unit.decision_function(X)
    assert np.all(np.isfinite(scores))
    np.testing.assert_allclose(scores, scaled.decision_function(normalize_rows(X)), rtol=0, atol=1e-8)
