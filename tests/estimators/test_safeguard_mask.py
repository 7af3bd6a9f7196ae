"""Rows left out of a fit are a mask (``FitContext.excluded``; the regressor's safeguard,
docs/privacy/front_door_regression.md#privacy-regressor-safeguard), and the classifier's
safeguard takes labels of any magnitude
(docs/privacy/front_door.md#privacy-classifier-safeguard).

A learner fitted with rows left out keeps the user's labels (classes of any magnitude,
strings, bools) and gives the rows left out zero factors inside the products. With the
noise seed fixed, neighbouring data sets that differ only in left-out rows (their X and
labels changed arbitrarily, norms that would overflow a product included) give the same
parameters and the same storage and guard choices. The exact check computes the
classifier's selection law on neighbours under a label set holding 2**53; the audit runs the
real estimator with such labels (false-alarm rate <= 1 %, as tests/audit/test_audit.py).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from _helpers import certificate_facts

import dpconvex as dp
from dpconvex import (
    NoisyGradientDescent,
    PrivateClassifier,
    PrivateGaussianCentroid,
    PrivateGaussianNB,
    PrivateHuberSVM,
    PrivateLargeMarginGaussian,
    PrivateLogisticRegression,
)
from dpconvex.audit import EstimatorMechanism, audit
from dpconvex.data.operators import DenseRows, ScaledRows
from dpconvex.data.validation import encode_labels
from dpconvex.errors import DataValidationError, ParameterError, PrivacyError
from dpconvex.estimators.base import NO_CONTEXT, PrivateEstimator, issued
from dpconvex.estimators.front_door import safeguard_mistakes
from dpconvex.privacy.budget import Budget
from dpconvex.privacy.mechanisms import get_mechanism
from dpconvex.privacy.mechanisms.scalar import SelectionTemplate
from dpconvex.templates.large_margin_rows import AugmentedRows

EPS = 1.0
BIG = 2**53

#: Label sets whose placeholder "max + 1" would be a class or overflow, and plain ones.
LABEL_SETS = {
    "2**53": [0, BIG],
    "2**53 and 2**53+1": [BIG, BIG + 1],
    "float 1e16": [0.0, 1e16],
    "int 10**20": [0, 10**20],
    "float 1e20": [0.0, 1e20],
    "uint64 max": [np.uint64(0), np.uint64(2**64 - 1)],
    "strings": ["no", "yes"],
    "bools": [False, True],
}


def _labels(bits: np.ndarray, classes: list) -> np.ndarray:
    """Labels classes[bit] as y holds them (object for ints beyond int64)."""
    if any(isinstance(c, int) and not isinstance(c, bool) and c > np.iinfo(np.int64).max
           for c in classes):
        return np.array([classes[int(b)] for b in bits], dtype=object)
    return np.asarray(classes)[bits.astype(int)]


def _table(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return X, (X[:, 0] > 0).astype(int)


def _wild(X: np.ndarray, y: np.ndarray, rows: np.ndarray, classes: list, seed: int = 1):
    """(X, y) with the records ``rows`` replaced: huge, tiny, zero and dense rows, other labels."""
    rng = np.random.default_rng(seed)
    Xw, yw = X.copy(), y.copy()
    kinds = [1e200, 1e-200, 0.0, 1.0]
    for k, i in enumerate(rows):
        Xw[i] = kinds[k % 4] * rng.uniform(0.5, 1.0, size=X.shape[1])
        yw[i] = classes[(list(classes).index(y[i]) + 1) % len(classes)]
    return Xw, yw


# ----------------------------------------------------------------- labels of any magnitude
@pytest.mark.parametrize("name", list(LABEL_SETS))
def test_a_safeguarded_fit_with_any_labels_releases_the_model_of_the_encoded_labels(name):
    classes = LABEL_SETS[name]
    X, bits = _table()
    kw = dict(epsilon=EPS, safeguard=True, random_state=0)
    reference = PrivateClassifier(classes=[0, 1], **kw).fit(X, bits)
    clf = PrivateClassifier(classes=classes, **kw).fit(X, _labels(bits, classes))
    assert clf.learner_ == reference.learner_ == "Huber SVM"
    assert clf.classes_.tolist() == list(classes)
    assert clf.certificate_.epsilon == EPS
    # the labels enter the learner as class indices only: the same model as for [0, 1]
    np.testing.assert_allclose(clf.estimator_.coef_, reference.estimator_.coef_, rtol=1e-12)
    np.testing.assert_allclose(clf.estimator_.intercept_, reference.estimator_.intercept_,
                               rtol=1e-12)
    assert clf.predict(X[:3]).tolist() == _labels(reference.predict(X[:3]), classes).tolist()


def _learners():
    common = dict(epsilon=EPS, random_state=0)
    return {
        "huber dense": (PrivateHuberSVM(fit_intercept=True, classes=[0, BIG], **common), 2),
        "huber unit rows": (PrivateHuberSVM(fit_intercept=True, row_norm="unit",
                                            classes=[0, BIG], **common), 2),
        "huber sparse": (PrivateHuberSVM(fit_intercept=True, classes=[0, BIG], **common), 2),
        "noisy gd": (NoisyGradientDescent(delta=1e-5, fit_intercept=True, classes=[0, BIG],
                                          **common), 2),
        "centroids": (PrivateGaussianCentroid(classes=[0, BIG, BIG + 1], **common), 3),
        "centroids sparse": (PrivateGaussianCentroid(classes=[0, BIG, BIG + 1], **common), 3),
        "large margin": (PrivateLargeMarginGaussian(classes=[0, BIG, BIG + 1], **common), 3),
        "logistic": (PrivateLogisticRegression(classes=[0, BIG], **common), 2),
        "linear classifier": (dp.PrivateLinearClassifier(loss="smooth_hinge", classes=[0, BIG],
                                                         **common), 2),
        "naive bayes": (PrivateGaussianNB(classes=[0, BIG, BIG + 1], feature_range=(-1.0, 1.0),
                                          **common), 3),
    }


def _params(est) -> list[np.ndarray]:
    names = ("coef_", "intercept_", "means_", "counts_", "Phi_", "theta_", "var_",
             "class_count_")
    return [np.asarray(getattr(est, a)) for a in names if hasattr(est, a)]


def _storage(est, X, y, mask) -> str:
    """The rows the learner's template holds: the kind of operator and of its stored rows."""
    with warnings.catch_warnings(), issued(NO_CONTEXT.inner(None, excluding=mask)) as context:
        warnings.simplefilter("ignore")
        template = est.prepare(X, y, est.plan_for(X, y), context=context).template
    rows = getattr(template, "_ops", None) or getattr(template, "Z", None)
    if rows is None:
        rows = template.X if hasattr(template, "X") else template.rows
    base = getattr(rows, "base", None)
    return f"{type(rows).__name__}({type(base).__name__})"


@pytest.mark.parametrize("name", list(_learners()))
def test_each_learner_reads_no_left_out_row(name):
    est, n_classes = _learners()[name]
    n, d = 300, 4
    rng = np.random.default_rng(3)
    X = rng.normal(size=(n, d)) * 0.4
    bits = np.digitize(X[:, 0], [-0.2, 0.2] if n_classes == 3 else [0.0])
    classes = list(est.classes)
    y = _labels(bits, classes)
    mask = np.zeros(n, dtype=bool)
    mask[rng.choice(n, 60, replace=False)] = True
    Xw, yw = _wild(X, y, np.flatnonzero(mask), classes)
    if name.endswith("sparse"):
        X, Xw = sp.csr_array(X), sp.csr_array(Xw)
    fits = []
    for data in ((X, y), (Xw, yw)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = type(est)(**est.get_params())
            fits.append(_params(model._fit_with(*data, NO_CONTEXT.inner(None, excluding=mask))))
    for a, b in zip(*fits, strict=True):
        np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-12)
    # the guards choose the factors inside the products (no copy) on both: the huge and tiny
    # left-out rows are not read
    expected = {"huber dense": "ScaledRows(DenseRows)", "huber unit rows": "ScaledRows(DenseRows)",
                "huber sparse": "ScaledRows(CSRRows)", "noisy gd": "ScaledRows(DenseRows)",
                "large margin": "AugmentedRows(NoneType)"}
    if name in expected:
        assert _storage(est, X, y, mask) == _storage(est, Xw, yw, mask) == expected[name]


def test_the_dense_or_csr_choice_counts_the_kept_rows_only():
    rng = np.random.default_rng(5)
    n, d = 2000, 30  # 60,000 entries: past the size where CSR is considered
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < 0.15) * 0.2  # 15 % non-zero
    y = (X[:, 0] > 0).astype(int)
    mask = np.zeros(n, dtype=bool)
    mask[:600] = True
    dense = X.copy()
    dense[mask] = rng.normal(size=(600, d)) * 0.05  # left-out rows fully dense: 39 % overall
    est = PrivateHuberSVM(epsilon=EPS, classes=[0, 1], fit_intercept=True, random_state=0)
    assert _storage(est, X, y, mask) == _storage(est, dense, y, mask) == "ScaledRows(CSRRows)"
    with issued(NO_CONTEXT.inner(None, excluding=mask)) as context:
        template = est.prepare(dense, y, est.plan_for(dense, y), context=context).template
    assert template._ops.base.nnz == int(np.count_nonzero(X[~mask]))  # no left-out entry stored
    # without a mask the same rows are dense enough to stay dense
    assert "DenseRows" in _storage(est, dense, y, np.zeros(n, dtype=bool))


def test_zeroed_rows_give_exact_zero_products_whatever_they_hold():
    X = np.array([[1e300, 1e300], [0.5, 0.25], [1e-310, 0.0]])
    rows = ScaledRows(DenseRows(X), np.array([0.0, 2.0, 0.0]), np.array([0.0, 1.0, 0.0]))
    w = np.array([1e10, 1e10, 3.0])
    assert rows.matvec(w).tolist() == [0.0, 2.0 * 0.75e10 + 3.0, 0.0]
    assert rows.row_norms()[[0, 2]].tolist() == [0.0, 0.0]
    m, g = rows.matvec_rmatvec(w, lambda mb, r: np.ones_like(mb))
    assert m.tolist() == rows.matvec(w).tolist() and np.all(np.isfinite(g))
    Z = AugmentedRows(X, np.array([0.0, 2.0, 0.0]), np.array([0.0, 1.0, 0.0]))
    F = Z.forms_adjoint(np.array([1e10, 1e10, 3.0]), lambda F, r: F)
    assert np.all(np.isfinite(F)) and Z.head_norms()[0] == 0.0


def test_the_mask_is_checked_by_name():
    y = np.array([0, 1, 1])
    with pytest.raises(ParameterError, match="boolean mask"):
        NO_CONTEXT.inner(None, excluding=np.array([0, 1, 0]))
    with pytest.raises(ParameterError, match="boolean mask"):
        encode_labels(y, [0, 1], "Owner.fit", excluded=np.array([0, 1, 0]))
    with pytest.raises(DataValidationError, match="one entry per record"):
        encode_labels(y, [0, 1], "Owner.fit", excluded=np.array([True, False]))


# ----------------------------------------------------------------------- certificate
@pytest.mark.parametrize("policy", ["raise", "ignore"])
def test_the_certificate_states_the_users_unknown_labels(policy):
    X, bits = _table()
    est = PrivateClassifier(epsilon=EPS, classes=[0, BIG], safeguard=True,
                            unknown_labels=policy, random_state=0)
    for certificate in (est.fit(X, _labels(bits, [0, BIG])).certificate_,
                        est.certify(X, _labels(bits, [0, BIG]))):
        sources = certificate_facts(certificate, "label_source")
        assert sources and {source.unknown_labels for source in sources} == {policy}


# ------------------------------------------------------------------ exact privacy loss
def _selection_law(z: np.ndarray, eps: float, n_val: int) -> np.ndarray:
    """P(candidate k) of the library's exponential mechanism: exp(rate · u_k), normalized."""
    template = SelectionTemplate(-z, 1.0, n_val)
    rate = get_mechanism("exponential").calibrate(template, Budget(eps)).noise_rate
    w = np.exp(rate * (template.utilities - np.max(template.utilities)))
    return w / w.sum()


def _worst_selection_log_ratio(eps_of_selection: float) -> float:
    """Worst |log P(k | D) / P(k | D′)| of the selection over neighbours differing in one
    record, for a fixed model (the learner's release, classes [2**53, 2**53 + 1]), the
    mistakes counted on every row as the classifier's safeguard counts them."""
    classes = [BIG, BIG + 1]
    rng = np.random.default_rng(7)
    n = 12
    X = rng.normal(size=(n, 2)) * 0.5
    y = _labels((X[:, 0] > 0).astype(int), classes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = PrivateHuberSVM(epsilon=EPS, classes=classes, fit_intercept=True,
                                random_state=2).fit(X, y)
    labels = np.array(classes, object)
    law = _selection_law(safeguard_mistakes(model, X, y, labels), eps_of_selection, n)
    worst = 0.0
    replacements = [(x, c) for x in (np.array([0.9, 0.0]), np.array([-0.9, 0.3]),
                                     np.array([1e200, 1e200])) for c in classes]
    for i in range(n):
        for x, label in replacements:
            Xp, yp = X.copy(), y.copy()
            Xp[i], yp[i] = x, label
            z = safeguard_mistakes(model, Xp, yp, labels)
            worst = max(worst, float(np.max(np.abs(np.log(law) - np.log(
                _selection_law(z, eps_of_selection, n))))))
    return worst


def test_exact_privacy_loss_of_the_selection_with_labels_past_2_53():
    worst = _worst_selection_log_ratio(EPS)
    assert worst <= EPS + 1e-12
    assert worst > 0.5 * EPS  # the changed record moves the counts: the check sees the loss


def test_exact_check_catches_a_selection_that_spends_twice_epsilon():
    worst = _worst_selection_log_ratio(4.0 * EPS)
    assert worst > EPS


# --------------------------------------------------------------- audit, real estimator
@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::dpconvex.errors.PrivacyWarning")  # 8 rows: weak by design
def test_audit_of_the_safeguard_with_labels_past_2_53_stays_below_epsilon():
    classes = [BIG, BIG + 1]
    X = np.tile([1.0, 0.0], (8, 1))
    y = np.array([BIG] * 4 + [BIG + 1] * 4)
    yp = y.copy()
    yp[0] = BIG + 1

    def released_index(est: PrivateClassifier) -> np.ndarray:
        return (est.predict(np.array([[1.0, 0.0]])) == BIG + 1).astype(float)

    mech = EstimatorMechanism(
        PrivateClassifier(epsilon=EPS, classes=classes, safeguard=True, selection_share=0.5),
        output=released_index)
    r = audit(mech, (X, y), (X, yp), n_runs=120, confidence=0.99, random_state=15)
    assert r.epsilon_lower_bound <= EPS, f"PRIVACY BUG? {r}"


# ------------------------------------------- a row mask is honoured or refused, never ignored

_REGRESSORS = {"linear": lambda: dp.PrivateLinearRegressor(loss="pinball", **_REG),
               "huber": lambda: dp.PrivateHuberRegressor(**_REG),
               "quantile": lambda: dp.PrivateQuantileRegressor(quantile=0.3, **_REG)}
_REG = dict(epsilon=EPS, label_range=(-2, 2), random_state=0)


@pytest.mark.parametrize("name", list(_REGRESSORS))
def test_a_regressor_reads_no_left_out_row(name):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 4)) * 0.4
    y = X @ np.array([1.0, -0.5, 0.2, 0.0]) + 0.1 * rng.normal(size=300)
    mask = np.zeros(300, dtype=bool)
    mask[rng.choice(300, 60, replace=False)] = True
    Xw, yw = X.copy(), y.copy()
    Xw[mask] = 1e200
    yw[mask] = -1e200  # outside label_range: clipped if it were read
    fits = []
    for data in ((X, y), (Xw, yw)):
        est = _REGRESSORS[name]()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est._fit_with(*data, NO_CONTEXT.inner(None, excluding=mask))
        fits.append(np.append(est.coef_, est.intercept_))
    np.testing.assert_allclose(fits[1], fits[0], rtol=1e-9, atol=1e-12)


def _every_row_fits():
    """One of each exported estimator that reads every row, and the searches."""
    lr = PrivateLogisticRegression(epsilon=EPS)
    return {
        "ssp": dp.PrivateLinearRegression(epsilon=EPS, label_range=(-1, 1)),
        "classifier front door": PrivateClassifier(epsilon=EPS, classes=[0, 1]),
        "regressor front door": dp.PrivateRegressor(epsilon=EPS, label_range=(-1, 1)),
        "private label range": dp.PrivateLinearRegressor(epsilon=EPS, label_range="private"),
        "grid search": dp.PrivateGridSearch(lr, {"lam": [0.01, 0.1]}, epsilon=EPS),
        "random search": dp.PrivateRandomSearch(lr, {"lam": [0.05]}, epsilon=EPS),
    }


@pytest.mark.parametrize("name", list(_every_row_fits()))
def test_a_fit_that_reads_every_row_refuses_a_row_mask(name):
    est = _every_row_fits()[name]
    X, y = _table(n=200)
    mask = np.arange(200) >= 150
    with pytest.raises(PrivacyError, match="cannot leave rows out"):
        est._fit_with(X, y, NO_CONTEXT.inner(None, excluding=mask))


def test_every_estimator_that_takes_a_row_mask_is_checked_to_read_no_left_out_row():
    """A new estimator is added to the checks above: to the readers of no left-out row if
    it claims takes_row_mask, else to those that refuse a mask."""
    exported = {getattr(dp, n) for n in dp.__all__}
    estimators = {c for c in exported if isinstance(c, type) and issubclass(c, PrivateEstimator)}
    claims = {c.__name__ for c in estimators if c.takes_row_mask}
    checked = {type(est).__name__ for est, _ in _learners().values()}
    checked |= {type(make()).__name__ for make in _REGRESSORS.values()}
    assert claims <= checked, sorted(claims - checked)
    # and every other one is checked to refuse a mask
    readers = {type(est).__name__ for est in _every_row_fits().values()}
    others = {c.__name__ for c in estimators} - claims
    assert others <= readers, sorted(others - readers)


def test_a_mask_inside_a_masked_context_keeps_both():
    outer = NO_CONTEXT.inner(None, excluding=np.array([True, False, False, False]))
    inner = outer.inner(None, excluding=np.array([False, False, True, False]))
    assert inner.excluded.tolist() == [True, False, True, False]
    with pytest.raises(DataValidationError, match="one entry per record"):
        outer.inner(None, excluding=np.array([False, True]))



def test_a_fit_outside_dpconvex_refuses_a_row_mask():
    """Such a fit (alone or as a pipeline step) reads every row it is given."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    from dpconvex.estimators.base import fit_with

    X, y = _table(n=200)
    masked = NO_CONTEXT.inner(None, excluding=np.arange(200) >= 150)
    for est in (LogisticRegression(),
                make_pipeline(FunctionTransformer(), PrivateLogisticRegression(epsilon=EPS))):
        with pytest.raises(PrivacyError, match="cannot leave rows out"):
            fit_with(est, X, y, masked)
    fitted = fit_with(make_pipeline(PrivateLogisticRegression(epsilon=EPS, random_state=0)),
                      X, y, masked)
    assert fitted[-1].coef_.shape == (1, 3)
