"""Multiclass for the binary learners: one-vs-rest with the budget split inside
(docs/privacy/tuning_gd_ledger.md#privacy-one-vs-rest)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.pipeline import Pipeline, make_pipeline

import dpconvex as dp
from dpconvex.privacy.budget import BudgetAccountant


def _blobs(n=300, C=3, seed=0):
    rng = np.random.default_rng(seed)
    centers = 0.5 * rng.normal(size=(C, 4))
    y = np.arange(n) % C
    return centers[y] + 0.15 * rng.normal(size=(n, 4)), y


@pytest.mark.slow
@pytest.mark.parametrize("make", [
    lambda: dp.PrivateLogisticRegression(epsilon=6.0, lam=1e-2),
    lambda: dp.PrivateHuberSVM(epsilon=6.0, lam=1e-2),
    lambda: dp.NoisyGradientDescent(epsilon=6.0),
    lambda: make_pipeline(dp.RandomFourierFeatures(n_components=50, gamma=0.5, random_state=0),
                          dp.PrivateLogisticRegression(epsilon=6.0, lam=1e-2)),
], ids=["LR", "Huber", "NoisyGD", "RFF+LR"])
def test_three_classes_one_model_per_class_and_one_certificate(make):
    X, y = _blobs()
    est = make()
    pipe = isinstance(est, Pipeline)
    est.set_params(**{f"{est.steps[-1][0]}__random_state" if pipe else "random_state": 0})
    est.fit(X, y)
    clf = est.steps[-1][1] if pipe else est
    assert clf.coef_.shape[0] == 3 and list(clf.classes_) == [0, 1, 2]
    cert = clf.certificate_
    assert len(cert.parts) == 3 and cert.epsilon <= 6.0 * (1 + 1e-12)
    assert all(p.epsilon <= 2.0 * (1 + 1e-12) for p in cert.parts)  # eps / C each
    assert cert.mechanism.startswith("one-vs-rest over 3 classes")
    assert est.score(X, y) > 0.5  # majority class is 1/3
    proba = clf.predict_proba(est[:-1].transform(X[:5]) if pipe else X[:5])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


def test_one_vs_rest_charges_the_whole_budget_once():
    X, y = _blobs()
    acc = BudgetAccountant(epsilon=3.0)
    dp.PrivateLogisticRegression(epsilon=3.0, accountant=acc, random_state=0).fit(X, y)
    assert acc.spent[0] == pytest.approx(3.0) and len(acc.spends) == 1
    with pytest.raises(dp.BudgetError):
        dp.PrivateLogisticRegression(epsilon=0.5, accountant=acc).fit(X, y)


def test_public_label_set_with_more_than_two_labels_selects_one_vs_rest():
    X, y = _blobs()
    y2 = np.where(y == 2, 0, y)  # class 2 absent from the data, but public
    est = dp.PrivateLogisticRegression(epsilon=3.0, classes=[0, 1, 2], random_state=0).fit(X, y2)
    assert est.coef_.shape == (3, 4) and set(est.predict(X)) <= {0, 1, 2}


@pytest.mark.parametrize("make", [
    lambda: dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1, 2], random_state=0),
    lambda: dp.NoisyGradientDescent(epsilon=1.0, steps=5, classes=[0, 1, 2], random_state=0),
], ids=["LR", "NoisyGD"])
def test_ovr_predict_proba_sums_to_one_and_agrees_with_predict_at_large_scores(make):
    X, y = _blobs(n=60)
    est = make().fit(X, y)
    # rows of X pick the scores: an identity design with zero intercepts
    est.coef_, est.intercept_, est.n_features_in_ = np.eye(3), np.zeros(3), 3
    scores = np.array([[-800.0, -900.0, -1000.0],  # every σ(f_c) underflows
                       [40.0, 50.0, 30.0],  # every σ(f_c) rounds to 1
                       [-40.0, -38.0, -39.0],
                       [0.3, -1.2, 2.0], [-0.5, 0.1, 0.05]])  # ordinary scores
    P = est.predict_proba(scores)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(P.argmax(axis=1), est.predict(scores))
    sigmoid = 1 / (1 + np.exp(-scores[3:]))  # the one-vs-rest normalization, ordinary scores
    np.testing.assert_allclose(P[3:], sigmoid / sigmoid.sum(axis=1, keepdims=True), rtol=1e-12)


def test_ovr_noise_warning_once_naming_the_split():
    X, y = _blobs(n=60)
    with pytest.warns(dp.PrivacyWarning) as caught:
        dp.PrivateLogisticRegression(epsilon=0.3, classes=[0, 1, 2], random_state=0).fit(X, y)
    noise = [str(w.message) for w in caught if "the noise is large" in str(w.message)]
    assert len(noise) == 1
    assert "at epsilon = 0.1 for each of the 3 one-vs-rest models (the fit's epsilon = 0.3 " \
           "split over them)" in noise[0]


@pytest.mark.parametrize("unknown_labels", ["raise", "ignore"])
def test_each_binary_model_gets_the_labels_its_own_encoding_would_give(unknown_labels):
    """One-vs-rest encodes the labels once and derives each binary model's labels from them:
    the same classes, indices, records outside and dropped, signs and label source as encoding
    that model's labels {0, 1} (-1 outside the set) from scratch, with rows left out."""
    from dpconvex.data.validation import encode_labels
    from dpconvex.estimators.base import NO_CONTEXT

    rng = np.random.default_rng(3)
    X, y = _blobs(n=60)
    if unknown_labels == "ignore":
        y = np.where(rng.random(60) < 0.2, 7, y)  # records outside classes=[0, 1, 2]
    excluded = rng.random(60) < 0.25
    est = dp.PrivateLogisticRegression(classes=[0, 1, 2], unknown_labels=unknown_labels)
    context = NO_CONTEXT.inner(None, excluding=excluded)
    data = est._validated(X, y, context)
    for c in range(3):
        got = est._binary_data(data, c)
        y_binary = np.where(data.labels.outside, -1, (data.labels.index == c).astype(int))
        want = encode_labels(y_binary, [0, 1], "Test.fit", unknown_labels=unknown_labels,
                             excluded=excluded)
        for field in ("classes", "index", "outside", "dropped", "signs"):
            np.testing.assert_array_equal(getattr(got.labels, field), getattr(want, field))
        assert got.labels.assumption == want.assumption
        assert got.X is data.X
