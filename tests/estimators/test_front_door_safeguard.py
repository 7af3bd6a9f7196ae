"""The front door's safeguard (docs/privacy/front_door.md#privacy-classifier-safeguard):
the model or a constant class, chosen privately.

Exact privacy loss on tiny problems: the whole procedure (a learner with an exactly
computable law that is (1 − s) ε-DP, the mistakes counted by the library's
``safeguard_mistakes`` on the same rows, the model's with the public handicap, and the
exponential mechanism's law at s ε) is
enumerated over every data set and every replace-one neighbour; the worst ratio of output
probabilities must be at most e^ε, and a mutant whose selection spends 4 s ε must exceed it.
The audit fits the real estimator (false-alarm rate <= 1 %, as tests/audit/test_audit.py).
"""

from __future__ import annotations

import itertools
import math
import pickle
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone, is_classifier

from dpconvex import BudgetAccountant, PrivateClassifier
from dpconvex.audit import EstimatorMechanism, audit
from dpconvex.errors import DataValidationError, ParameterError, PrivacyWarning
from dpconvex.estimators.front_door import ConstantClassifier, safeguard_mistakes
from dpconvex.privacy.certificate import DeltaRows
from dpconvex.privacy.rules.front_door import CONSTANT, MODEL_HANDICAP, SELECTION_SHARE

EPS = 1.0


# ------------------------------------------------------------ exact privacy loss
class _Threshold:
    """A fitted stand-in learner: predicts 1 where x >= t (x an integer feature)."""

    def __init__(self, t: int):
        self.t = t

    def predict(self, X: np.ndarray) -> np.ndarray:
        return (np.asarray(X)[:, 0] >= self.t).astype(int)


THRESHOLDS = (0, 1, 2, 3)
VALUES = [(x, y) for x in (0, 1, 2) for y in (0, 1)]  # a record: feature x, label y


def _softmax(u: np.ndarray, eps: float) -> np.ndarray:
    w = np.exp(eps * (u - u.max()) / 2.0)
    return w / w.sum()


def _learner_law(X: np.ndarray, y: np.ndarray, eps: float) -> np.ndarray:
    """P(threshold t): the exponential mechanism on minus the rows' mistakes (ε-DP)."""
    z = np.array([np.sum(_Threshold(t).predict(X) != y) for t in THRESHOLDS], float)
    return _softmax(-z, eps)


def _output_law(data: tuple[tuple[int, int], ...], fit_eps: float,
                select_eps: float) -> np.ndarray:
    """P(release) over outputs (threshold t released, or constant 0, or constant 1): the
    learner's law at ``fit_eps`` on every row, then the selection's law at ``select_eps``
    from the library's mistake counts of that model and each constant on the same rows."""
    X = np.array([[x] for x, _ in data])
    y = np.array([label for _, label in data])
    law = np.zeros(len(THRESHOLDS) + 2)
    for t, pt in enumerate(_learner_law(X, y, fit_eps)):
        z = safeguard_mistakes(_Threshold(THRESHOLDS[t]), X, y, np.array([0, 1]))
        z[0] += MODEL_HANDICAP * len(y)
        p_sel = _softmax(-z, select_eps)
        law[t] += pt * p_sel[0]
        law[len(THRESHOLDS):] += pt * p_sel[1:]
    return law


def _worst_log_ratio(n: int, fit_eps: float, select_eps: float) -> float:
    laws = {data: _output_law(data, fit_eps, select_eps)
            for data in itertools.product(VALUES, repeat=n)}
    worst = 0.0
    for data, law in laws.items():
        for i in range(n):
            for v in VALUES:
                if v != data[i]:
                    other = laws[data[:i] + (v,) + data[i + 1:]]
                    worst = max(worst, float(np.max(np.log(law) - np.log(other))))
    return worst


def test_exact_privacy_loss_of_the_whole_safeguard_is_at_most_epsilon():
    share = SELECTION_SHARE
    worst = _worst_log_ratio(4, (1 - share) * EPS, share * EPS)
    assert worst <= EPS + 1e-12
    assert worst > 0.5 * EPS  # the check sees the mechanism's loss, it is not vacuous


def test_exact_check_catches_a_selection_that_spends_four_times_its_share():
    share = SELECTION_SHARE
    assert _worst_log_ratio(4, (1 - share) * EPS, 4 * share * EPS) > EPS  # caught


def test_mistake_counts_change_by_at_most_one_under_replace_one():
    rng = np.random.default_rng(0)
    model = _Threshold(1)
    classes = np.array([0, 1, 2])
    for _ in range(200):
        X = rng.integers(0, 3, size=(5, 1))
        y = rng.integers(0, 3, size=5)
        Xp, yp = X.copy(), y.copy()
        i = rng.integers(5)
        Xp[i], yp[i] = rng.integers(0, 3), rng.integers(0, 4)  # 3: a label outside the set
        z, zp = (safeguard_mistakes(model, A, b, classes) for A, b in ((X, y), (Xp, yp)))
        assert np.max(np.abs(z - zp)) <= 1


# --------------------------------------------------------------- audit, real path
def _released_class(est: PrivateClassifier) -> np.ndarray:
    """The released classifier's prediction on the rows' common point (one number per fit)."""
    return est.predict(np.array([[1.0, 0.0]])).astype(float)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::dpconvex.errors.PrivacyWarning")  # 8 rows: weak by design
def test_audit_through_the_real_estimator_stays_below_epsilon():
    # every row the same point: the released prediction is the selection's output, and the
    # differing label moves the counts of every candidate
    X = np.tile([1.0, 0.0], (8, 1))
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    yp = y.copy()
    yp[0] = 1
    mech = EstimatorMechanism(
        PrivateClassifier(epsilon=EPS, classes=[0, 1], safeguard=True, selection_share=0.5),
        output=_released_class)
    r = audit(mech, (X, y), (X, yp), n_runs=120, confidence=0.99, random_state=14)
    assert r.epsilon_lower_bound <= EPS, f"PRIVACY BUG? {r}"


# ------------------------------------------------------------- behaviour
def _table(n=400, signal=True, seed=0, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = (X[:, 0] > 0).astype(int) if signal else (rng.random(n) < 0.8).astype(int)
    return X, y


def test_the_share_is_a_parameter_and_a_bad_one_is_refused_by_name():
    assert PrivateClassifier().selection_share == SELECTION_SHARE
    with pytest.raises(ParameterError, match="selection_share"):
        PrivateClassifier(selection_share="half").fit(*_table())
    with pytest.raises(ParameterError, match="selection_share"):
        PrivateClassifier(safeguard=True, selection_share=1.0).fit(*_table())
    with pytest.raises(ParameterError, match="safeguard"):
        PrivateClassifier(safeguard="yes").fit(*_table())


def test_a_useful_model_is_released_and_the_certificate_says_so():
    X, y = _table()
    clf = PrivateClassifier(epsilon=1.0, classes=[0, 1], safeguard=True, random_state=0).fit(X, y)
    cert = clf.certificate_
    assert clf.learner_ == "Huber SVM" and clf.score(X, y) > 0.9
    assert cert.epsilon == 1.0 and cert.delta == 0.0
    assert cert.quantities["safeguard selection share"] == SELECTION_SHARE
    assert cert.quantities["safeguard model handicap"] == pytest.approx(MODEL_HANDICAP * 400)
    assert [part.epsilon for part in cert.parts] == pytest.approx(
        [1 - SELECTION_SHARE, SELECTION_SHARE], abs=1e-12)
    assert cert.quantities["safeguard candidates"] == ["Huber SVM", "constant 0", "constant 1"]
    assert cert.released == {"safeguard selected": "Huber SVM"}  # a private output, not public
    assert "safeguard selected" not in cert.quantities
    assert len(cert.parts) == 2 and cert.parts[0].quantities["n"] == 400  # every row


def test_a_constant_is_released_where_the_model_has_nothing_to_learn():
    X, y = _table(600, signal=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        chosen = [PrivateClassifier(epsilon=1.0, classes=[0, 1], safeguard=True, random_state=s)
                  .fit(X, y) for s in range(10)]
    constants = [c for c in chosen if c.learner_ == CONSTANT]
    said = [w for w in caught if issubclass(w.category, PrivacyWarning)
            and "released a constant class" in str(w.message)]
    assert len(said) == len(constants)  # each constant is announced, at the caller's line
    assert {Path(w.filename).name for w in said} <= {Path(__file__).name}
    assert constants  # labels independent of X: the model is no better than the majority
    assert {c.estimator_.constant_ for c in constants} == {1}  # the minority never wins here
    c = constants[0]
    assert isinstance(c.estimator_, ConstantClassifier) and c.estimator_.constant_ == 1
    assert c.certificate_.released["safeguard selected"] == "constant 1"
    assert c.predict_proba(X[:2]).tolist() == [[0.0, 1.0], [0.0, 1.0]]
    assert c.decision_function(X[:2]).tolist() == [1.0, 1.0]
    assert not hasattr(c.estimator_, "coef_")  # the unselected model is not reachable
    assert is_classifier(c.estimator_) and type(clone(c.estimator_)) is ConstantClassifier
    assert c.estimator_.score(X, y, sample_weight=np.ones(len(y))) == c.score(X, y)
    with pytest.raises(DataValidationError, match="unseen in fit"):
        c.estimator_.score(X, np.full(len(y), 7))
    loaded = pickle.loads(pickle.dumps(c))
    assert "Generator" not in repr(vars(loaded)) and loaded.predict(X[:3]).tolist() == [1, 1, 1]


@pytest.mark.parametrize("d, spent", [(40, 1e-6), (3, 0.0)])  # on 3 features delta is unused
def test_the_ledger_is_charged_once_and_certify_matches_fit(d, spent):
    X, y = _table(800, d=d)
    acc = BudgetAccountant(epsilon=1.5, delta=1e-5)
    est = PrivateClassifier(epsilon=1.0, delta=1e-6, classes=[0, 1], safeguard=True,
                            accountant=acc, random_state=1)
    dry = est.certify(X, y)
    shape = est.certify(n=800, n_classes=2, n_features=d)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        cert = est.fit(X, y).certificate_
    assert acc.spent == (1.0, spent) and cert.delta == spent
    assert (dry.epsilon, dry.delta) == (cert.epsilon, cert.delta) == (shape.epsilon, shape.delta)
    assert dry.quantities["safeguard selection share"] == cert.quantities[
        "safeguard selection share"]
    plan = est.plan(800, 2, d)
    assert plan.n == 800 and plan.chosen.delta == spent
    # the rule's reason, stated, says whether delta > 0 buys the learner anything
    choice = plan.chosen.choice
    assert choice.delta_unused == (spent == 0) and cert.states(choice.reason)


def test_the_learners_part_and_the_dry_run_state_what_the_fit_states():
    """A label set read from y is stated as such in the learner's part too (the learner is
    handed the set as classes=), and the dry run states the δ >= 1/n line where the fit does."""
    X, y = _table(300, d=40)
    make = lambda: PrivateClassifier(epsilon=1.0, delta=0.01, safeguard=True, random_state=0)  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted, dry = make().fit(X, y), make().certify(X, y)
    for cert in (fitted.certificate_, dry):
        assert cert.delta > 0 and [part.label_source for part in cert.parts[:1]] == [cert.label_source]
        assert cert.label_source.source == "inferred"
        assert cert.lines.count(DeltaRows(0.01, 300)) == 1  # 0.01 >= 1/300
    assert fitted.estimator_.certificate_.label_source.source == "inferred"


@pytest.mark.parametrize("kind", ["sparse", "frame", "three classes"])
def test_inputs_the_front_door_takes(kind):
    X, y = _table(450)
    classes = [0, 1]
    if kind == "sparse":
        X = sp.csr_matrix(X)
    elif kind == "frame":
        pd = pytest.importorskip("pandas")
        X = pd.DataFrame(X, columns=["a", "b", "c"])
    else:
        y = np.digitize(np.asarray(X)[:, 0], [-0.3, 0.3])
        classes = [0, 1, 2]
    clf = PrivateClassifier(epsilon=2.0, delta=1e-5, classes=classes, safeguard=True,
                            random_state=3).fit(X, y)
    assert clf.predict(X).shape == (450,) and set(clf.classes_) == set(classes)
    if kind == "frame":
        assert list(clf.feature_names_in_) == ["a", "b", "c"]


def test_unknown_labels_are_refused_before_anything_is_spent():
    X, y = _table()
    y = y.copy()
    y[0] = 7
    acc = BudgetAccountant(epsilon=1.0)
    with pytest.raises(DataValidationError, match="classes"):
        PrivateClassifier(classes=[0, 1], safeguard=True, accountant=acc).fit(X, y)
    assert acc.spent == (0.0, 0.0)
    clf = PrivateClassifier(classes=[0, 1], safeguard=True, unknown_labels="ignore",
                            random_state=0).fit(X, y)
    assert clf.certificate_.epsilon == 1.0


def test_released_constant_exact_decision_values():
    three = ConstantClassifier("b", ["a", "b", "c"], 2)
    assert three.predict(np.zeros((2, 2))).tolist() == ["b", "b"]
    assert three.decision_function(np.zeros((1, 2))).tolist() == [[0.0, 1.0, 0.0]]
    assert ConstantClassifier(0, [0, 1], 2).decision_function(np.zeros((1, 2))).tolist() == [-1.0]
    assert math.isclose(three.score(np.zeros((4, 2)), ["b", "a", "b", "c"]), 0.5)


def test_auto_is_off_above_the_row_cap_only():
    """safeguard="auto": on up to SAFEGUARD_ROWS_AT_MOST rows whatever the learner and r,
    off above (public quantities only), saying so in the plan and the certificate."""
    from dpconvex.privacy.rules.front_door import SAFEGUARD_ROWS_AT_MOST

    est = PrivateClassifier(epsilon=1.0, classes=[0, 1])
    on = est.plan(SAFEGUARD_ROWS_AT_MOST, 2, 5)
    off = est.plan(SAFEGUARD_ROWS_AT_MOST + 1, 2, 5)
    assert on.chosen.guarded and not off.chosen.guarded
    # on, or off by "auto": one line on the safeguard, in the plan's notes
    assert all(len(p.chosen.note) == 1 and p.chosen.note[0] in p.notes for p in (on, off))
    # no typed field says why the safeguard is off: the line says it, with the public n and cap
    assert on.chosen.note[0].startswith("PrivateClassifier: safeguard on: ")
    assert off.chosen.note[0].startswith(
        f"PrivateClassifier: safeguard='auto' is off for n = {SAFEGUARD_ROWS_AT_MOST + 1} > "
        f"{SAFEGUARD_ROWS_AT_MOST} rows: ")
    forced = PrivateClassifier(epsilon=1.0, classes=[0, 1], safeguard=True)
    assert forced.plan(SAFEGUARD_ROWS_AT_MOST + 1, 2, 5).chosen.guarded
    plain = PrivateClassifier(epsilon=1.0, classes=[0, 1], safeguard=False).plan(400, 2, 5)
    assert not plain.chosen.guarded and plain.chosen.note == ()  # off as asked: no line
    # few records per coordinate (r = n eps / (C (d + 1)) = 100 / 63) and naive Bayes: guarded
    few = PrivateClassifier(epsilon=1.0, classes=[0, 1, 2]).plan(100, 3, 20)
    assert few.chosen.guarded
    nb = PrivateClassifier(epsilon=1.0, classes=[0, 1, 2], feature_range=(0.0, 1.0))
    nb_plan = nb.plan(5000, 3, 5)
    assert nb_plan.learner == "Gaussian naive Bayes"
    assert nb_plan.chosen.guarded


@pytest.mark.parametrize("safeguard", [True, False])
def test_the_classifier_follows_its_plan_made_once(monkeypatch, safeguard):
    """One fit makes its rule's choice, its learner and the learner's plan once, in its plan
    (the learner is the plan's, and follows the plan the fit hands it): the ledger holds the
    plan's budget, and the released learner's budget is the learner's plan's."""
    from dpconvex import PrivateHuberSVM

    planned, made = [], []
    learner_plan, make = PrivateHuberSVM._plan, PrivateClassifier._make
    monkeypatch.setattr(PrivateHuberSVM, "_plan",
                        lambda self, *shape: planned.append(shape) or learner_plan(self, *shape))
    monkeypatch.setattr(PrivateClassifier, "_make", lambda self, name, *args, **kw: (
        made.append(name) if not kw.get("objective") else None) or make(self, name, *args, **kw))
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3)) * 0.4
    y = (X[:, 0] > 0).astype(int)
    ledger = BudgetAccountant(epsilon=5.0)
    clf = PrivateClassifier(epsilon=1.0, classes=[0, 1], safeguard=safeguard, accountant=ledger,
                            random_state=0)
    plan = clf.plan(400, 2, 3)
    assert plan.chosen.choice.learner == plan.learner == "Huber SVM"
    assert plan.chosen.guarded == safeguard
    planned.clear()
    made.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)  # a constant class may be released
        clf.fit(X, y)
    assert planned == [(400, 2, 3)] and made == ["Huber SVM"]  # the noise checks' aside
    assert not hasattr(plan.chosen.learner, "coef_")  # the plan handed back: its learner unfitted
    if clf.learner_ == "Huber SVM":  # the planned learner's parameters, and the fit's ledger
        assert clf.estimator_.set_params(accountant=None).get_params() == (
            plan.chosen.learner.get_params())
    assert ledger.spent[0] == plan.budget.epsilon == 1.0
    model = clf.certificate_.parts[0] if safeguard else clf.certificate_
    assert model.epsilon_requested == plan.chosen.plan.budget.epsilon
    assert (plan.chosen.plan.budget.epsilon < 1.0) == safeguard
