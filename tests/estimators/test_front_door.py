"""PrivateClassifier: the learner follows from (n, C, ε, δ) alone, and the certificate says why."""

from __future__ import annotations

import pickle
import sys
import threading
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from _helpers import certificate_facts, traced_peak
from sklearn.base import clone
from sklearn.pipeline import make_pipeline
from sklearn.utils import estimator_checks

import dpconvex as dp
from dpconvex.estimators import front_door as fd
from dpconvex.estimators.base import ROWS_RANGES_NOTE
from dpconvex.privacy.certificate import DeltaRows
from dpconvex.privacy.rules.front_door import (
    BINARY_CENTROID_BELOW,
    CENTROID,
    CONSTANT,
    DELTA_UNUSED,
    GAUSSIAN_NB,
    GD_ROWS_AT_MOST,
    LARGE_MARGIN,
    LINEAR,
    NB_BINARY_FEATURES_AT_MOST,
    NB_MULTICLASS_FEATURES_AT_MOST,
    NB_MULTICLASS_ROWS_PER_CLASS_AT_LEAST,
    NOISY_GD,
    choose_front_door_learner,
    delta_buys,
    delta_spent,
    front_door_rule,
    safeguard_applies,
)
from dpconvex.privacy.rules.large_margin import CENTROID_BELOW


def _data(n, C, d=4, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, C, size=n)
    centers = rng.normal(size=(C, d))
    X = centers[y] + 0.5 * rng.normal(size=(n, d))
    return X / np.linalg.norm(X, axis=1, keepdims=True), y


@pytest.mark.parametrize("delta", [0.0, 1e-6])
def test_the_rule(delta):
    small = NOISY_GD if delta > 0 else LINEAR  # two classes: noisy GD with delta up to the cap
    assert choose_front_door_learner(GD_ROWS_AT_MOST, 2, 40, 1.0, delta).learner == small
    assert choose_front_door_learner(GD_ROWS_AT_MOST + 1, 2, 40, 1.0, delta).learner == LINEAR
    assert choose_front_door_learner(GD_ROWS_AT_MOST, 2, 3, 1.0, delta).learner == LINEAR
    assert choose_front_door_learner(10**7, 2, 3, 10.0, delta).learner == LINEAR
    below = CENTROID_BELOW[delta > 0]
    C, d = 5, 9
    n_at = int(below * C * (d + 1))  # n epsilon / (C (d + 1)) == below at epsilon = 1
    assert choose_front_door_learner(n_at - 1, C, d, 1.0, delta).learner == CENTROID
    assert choose_front_door_learner(n_at, C, d, 1.0, delta).learner == LARGE_MARGIN
    assert choose_front_door_learner(n_at, C, d, 1.0, delta).reason.startswith(
        "PrivateClassifier: C = 5 classes")


@pytest.mark.parametrize("delta", [0.0, 1e-6])
def test_two_classes_switch_to_centroids_below_the_pure_epsilon_threshold_only(delta):
    """Two classes, pure ε, r = n ε / (C (d + 1)) below BINARY_CENTROID_BELOW: the centroids;
    with δ > 0 where it buys the Huber SVM its Gaussian form, noisy GD at every r (its own
    rule); where it buys nothing, the rule of δ = 0."""
    C, d = 2, 9
    n_at = int(BINARY_CENTROID_BELOW * C * (d + 1))  # r == the threshold at epsilon = 1
    below = choose_front_door_learner(n_at - 1, C, d, 1.0, delta)  # delta buys nothing here
    assert below.learner == CENTROID
    assert choose_front_door_learner(n_at, C, d, 1.0, delta).learner == LINEAR
    assert choose_front_door_learner(10, C, 3, 0.01, delta).learner == CENTROID
    assert f"= {(n_at - 1) / (C * (d + 1)):.4g} < 5 -> DP class centroids" in below.reason
    wide = 60
    n_wide = int(BINARY_CENTROID_BELOW * C * (wide + 1))
    assert delta == 0 or delta_buys(n_wide - 1, wide, 1.0, delta)
    for n in (n_wide - 1, n_wide):
        assert choose_front_door_learner(n, C, wide, 1.0, delta).learner == (
            NOISY_GD if delta > 0 else (CENTROID if n < n_wide else LINEAR))
    X, y = _data(80, C, d)  # r = 80 / 20 = 4: the centroids (the learner's model kept)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)
        clf = dp.PrivateClassifier(epsilon=1.0, delta=delta, classes=[0, 1], safeguard=False,
                                   random_state=0).fit(X, y)
    # on 80 rows x 9 features delta buys the Huber SVM nothing: the fit is that of delta = 0
    assert isinstance(clf.estimator_, dp.PrivateGaussianCentroid) and clf.learner_ == CENTROID
    assert clf.certificate_.delta == 0.0
    reason = choose_front_door_learner(80, C, d, 1.0, 0.0).reason
    assert (f"{reason}; {DELTA_UNUSED}" if delta > 0 else reason) in clf.certificate_.assumptions


@pytest.mark.parametrize("n, C, d, eps, delta, ranges", [
    (200, 2, 24, 1.0, 0.0, False), (3000, 2, 6, 1.0, 1e-7, False), (3000, 2, 30, 1.0, 1e-7, False),
    (30000, 2, 104, 1.0, 0.0, False), (50000, 5, 20, 1.0, 0.0, False),
    (20000, 6, 3, 1.0, 0.0, True)])
def test_the_estimators_rule_on_checked_facts_is_the_public_rule(n, C, d, eps, delta, ranges):
    """The estimator runs the rule on its checked parameters and shape (front_door_rule);
    choose_front_door_learner checks the facts, then gives the same choice."""
    assert front_door_rule(n, C, d, eps, delta, ranges_known=ranges) == (
        choose_front_door_learner(n, C, d, eps, delta, ranges_known=ranges))
    with pytest.raises(dp.ParameterError, match="'epsilon' parameter of choose_front_door"):
        choose_front_door_learner(n, C, d, -eps, delta)


@pytest.mark.parametrize("n, d", [(300, 4), (300, 30), (3000, 6), (3000, 30), (50000, 10),
                                  (50000, 100)])
@pytest.mark.parametrize("data_norm", [1.0, 3.0])
def test_delta_is_used_exactly_where_it_buys_the_huber_svm_its_gaussian_form(n, d, data_norm):
    """The rule's delta_buys is the Huber SVM's own "auto" choice at the front door's
    parameters; where delta buys nothing the choice and its delta are those of delta = 0;
    delta_spent (the remedy of the safeguard's warning) states the choice's delta_unused."""
    delta = 1.0 / n**2
    svm = dp.PrivateHuberSVM(epsilon=1.0, delta=delta, data_norm=data_norm, fit_intercept=True)
    gaussian = svm.plan(n, 2, d).mechanism.name == "gaussian_objective"
    assert delta_buys(n, d, 1.0, delta, data_norm) == gaussian
    choice = choose_front_door_learner(n, 2, d, 1.0, delta, data_norm=data_norm)
    pure = choose_front_door_learner(n, 2, d, 1.0, 0.0, data_norm=data_norm)
    assert choice.delta_unused == (not gaussian) == (not delta_spent(n, 2, d, 1.0, delta,
                                                                      data_norm))
    if not gaussian:
        assert (choice.learner, choice.reason) == (pure.learner, f"{pure.reason}; {DELTA_UNUSED}")
    assert not choose_front_door_learner(n, 5, d, 1.0, delta).delta_unused  # C >= 3: its own rules
    assert delta_spent(n, 5, d, 1.0, delta)


@pytest.mark.parametrize("n, C, d, learner, cls", [
    (300, 2, 4, LINEAR, dp.PrivateHuberSVM),  # with delta > 0 too: it buys the SVM nothing
    (600, 2, 30, LINEAR, dp.PrivateHuberSVM),  # with delta > 0: noisy GD
    (120, 3, 4, CENTROID, dp.PrivateGaussianCentroid),  # r = n ε / (C (d + 1)) = 8, below both
    (1500, 3, 4, LARGE_MARGIN, dp.PrivateLargeMarginGaussian),
])
@pytest.mark.parametrize("delta", [0.0, 1e-5])
def test_fit_follows_the_plan_and_states_the_choice(n, C, d, learner, cls, delta):
    X, y = _data(n, C, d)
    clf = dp.PrivateClassifier(epsilon=1.0, delta=delta, classes=list(range(C)), random_state=0)
    plan = clf.plan(n, C, X.shape[1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)
        clf.fit(X, y)
    if learner == LINEAR and delta > 0 and d > 4:
        learner, cls = NOISY_GD, dp.NoisyGradientDescent
    assert clf.learner_ == learner and isinstance(clf.estimator_, cls)
    cert = clf.certificate_
    assert cert.epsilon <= 1.0 + 1e-12 and cert.delta <= delta * (1 + 1e-12)
    stated = (plan.chosen.choice.reason, *plan.chosen.note)  # the rule's reason, the safeguard
    assert len(stated) == 2 and all(cert.states(fact) and fact in plan.notes for fact in stated)
    assert clf.predict(X).shape == (n,)
    assert np.allclose(clf.predict_proba(X).sum(axis=1), 1.0)
    assert set(np.unique(clf.predict(X))) <= set(range(C))
    dry = clf.certify(n=n, n_classes=C, n_features=X.shape[1])
    assert all(dry.states(fact) for fact in stated)


def test_the_choice_reads_no_data():
    """Two data sets of the same shape and label set get the same learner and plan text."""
    X1, y1 = _data(500, 4, seed=1)
    X2, y2 = _data(500, 4, seed=2)
    y2 = np.zeros_like(y2)  # a data set with one label present: same declared label set
    clf = dp.PrivateClassifier(epsilon=0.5, classes=[0, 1, 2, 3])
    assert str(clf.plan_for(X1, y1)) == str(clf.plan_for(X2, y2))


def test_accountant_is_charged_once_and_refuses_overspend():
    X, y = _data(300, 2)
    acc = dp.BudgetAccountant(epsilon=1.5)
    dp.PrivateClassifier(epsilon=1.0, classes=[0, 1], accountant=acc, random_state=0).fit(X, y)
    assert acc.spent[0] == pytest.approx(1.0)
    with pytest.raises(dp.BudgetError):
        dp.PrivateClassifier(epsilon=1.0, classes=[0, 1], accountant=acc).fit(X, y)


@pytest.mark.parametrize("safeguard", [True, False])
def test_a_refit_of_the_released_learner_charges_the_front_doors_ledger(safeguard):
    """The learner in estimator_ carries the front door's ledger (the fit itself charged it
    once): refitting it is a new release, charged as fit charges; pickle and clone still work."""
    X, y = _data(300, 2)
    acc = dp.BudgetAccountant(epsilon=3.0)
    door = dp.PrivateClassifier(epsilon=1.0, classes=[0, 1], accountant=acc, safeguard=safeguard,
                                random_state=0).fit(X, y)
    assert acc.spent[0] == pytest.approx(1.0) and door.estimator_.accountant is acc
    door.estimator_.fit(X, y)
    assert acc.spent[0] == pytest.approx(1.0 + door.estimator_.certificate_.epsilon)
    assert pickle.loads(pickle.dumps(door)).estimator_.accountant.spent == acc.spent
    assert clone(door).get_params()["accountant"] is acc


@pytest.mark.parametrize("safeguard", [True, False])
def test_the_front_door_holds_its_budget_signs_its_refusal_and_states_a_large_delta(safeguard):
    # three classes, the ranges given: naive Bayes, unguarded unless asked (privacy-private-classifier)
    rng = np.random.default_rng(0)
    X = rng.uniform(0.0, 1.0, size=(900, 4))
    y = (X[:, 0] > 0.5).astype(int) + (X[:, 1] > 0.7)
    common = {"classes": [0, 1, 2], "feature_range": (0.0, 1.0), "safeguard": safeguard}
    with pytest.raises(dp.BudgetError, match="of PrivateClassifier") as refused:
        dp.PrivateClassifier(epsilon=1.0, accountant=dp.BudgetAccountant(0.5), **common).fit(X, y)
    assert "PrivateGaussianNB" not in str(refused.value)
    acc = dp.BudgetAccountant(epsilon=2.0, delta=0.5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = dp.PrivateClassifier(epsilon=1.0, delta=0.01, accountant=acc, random_state=0,
                                   **common).fit(X, y)
    large = [str(w.message) for w in caught if "at least 1/n" in str(w.message)]
    assert len(large) == 1 and large[0].startswith("PrivateClassifier: delta = 0.01")  # once, signed
    assert [s.label for s in acc.spends] == ["PrivateClassifier"]
    assert est.certificate_.states(DeltaRows(0.01, 900))
    assert est.certificate_.seeded  # the composed certificate of a seeded fit says so too


def test_seeded_fits_repeat_and_the_pickle_holds_no_generator():
    X, y = _data(300, 3)
    a = dp.PrivateClassifier(epsilon=1.0, classes=[0, 1, 2], random_state=3).fit(X, y)
    b = clone(a).fit(X, y)
    assert np.array_equal(a.predict_proba(X), b.predict_proba(X))
    blob = pickle.dumps(a)
    assert b"Generator" not in blob and b"BitGenerator" not in blob


@pytest.mark.parametrize("bad", [{"epsilon": 0.0}, {"epsilon": -1.0}, {"delta": 1.0},
                                 {"delta": -0.1}, {"delta": "1e-6"}, {"data_norm": 0.0},
                                 {"random_state": np.random.default_rng(0)}])
def test_bad_parameters_are_refused_by_name(bad):
    X, y = _data(100, 2)
    with pytest.raises(dp.ParameterError, match=next(iter(bad))):
        dp.PrivateClassifier(**{"classes": [0, 1], **bad}).fit(X, y)


def test_a_dataframe_through_the_public_encoder():
    rng = np.random.default_rng(5)
    n = 400
    df = pd.DataFrame({"age": rng.uniform(18, 90, n),
                       "job": rng.choice(["a", "b", "c"], n),
                       "smoker": rng.integers(0, 2, n)})
    y = ((df["age"] > 50) ^ (df["job"] == "a")).astype(int).to_numpy()
    schema = dp.PublicSchema({"age": dp.Numeric(18, 90), "job": dp.Categorical(["a", "b", "c"]),
                              "smoker": dp.Binary()})
    model = make_pipeline(dp.PublicEncoder(schema, row_norm="unit"),
                          dp.PrivateClassifier(epsilon=1.0, classes=[0, 1], random_state=0))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(df, y)
    # the rule picks the Huber SVM for two classes; the safeguard releases it or a constant,
    # and a released constant comes with its PrivacyWarning
    assert model[-1].learner_ in (LINEAR, CONSTANT)
    constant_warnings = [w for w in caught if issubclass(w.category, dp.PrivacyWarning)
                         and "released a constant class" in str(w.message)]
    assert len(constant_warnings) == (model[-1].learner_ == CONSTANT)
    assert model[-1].certificate_.quantities["safeguard candidates"][0] == "Huber SVM"  # the rule's
    assert 0.0 <= model.score(df, y) <= 1.0
    with pytest.raises(dp.DataValidationError):
        model.predict(df[["job", "age", "smoker"]])


def test_one_warning_before_the_fit_when_every_candidate_is_predicted_weak():
    """The candidates' public noise checks all fire at a tiny n·ε: one front-door warning."""
    X, y = _data(60, 2, d=30)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dp.PrivateClassifier(epsilon=0.05, classes=[0, 1], random_state=0).fit(X, y)
    mine = [str(w.message) for w in caught if "every learner it can choose" in str(w.message)]
    assert len(mine) == 1
    assert "Huber SVM" in mine[0] and "class centroids" in mine[0]
    # a step of the fit before its hold: a ledger that refuses the hold comes after it; the
    # plan and the dry run of the same shape spend nothing and issue none
    door = dp.PrivateClassifier(epsilon=0.05, classes=[0, 1], random_state=0,
                                accountant=dp.BudgetAccountant(epsilon=0.01))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(dp.BudgetError):
            door.fit(X, y)
    assert sum("every learner it can choose" in str(w.message) for w in caught) == 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        door.plan(60, 2, 30)
        door.certify(n=60, n_classes=2, n_features=30)
        door.certify(X, y)
    assert not any("every learner" in str(w.message) for w in caught)
    X, y = _data(3000, 2, d=5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dp.PrivateClassifier(epsilon=1.0, classes=[0, 1], random_state=0).fit(X, y)
    assert not any("every learner" in str(w.message) for w in caught)


def _candidates(plan):
    """The learners a front door's noise checks read on ``plan`` (its ε and δ, the classes of
    its shape), made as a user makes them: the centroids, the large-margin objective and, with
    two classes, the Huber SVM."""
    common = {"epsilon": plan.chosen.epsilon, "delta": plan.chosen.delta,
              "classes": list(range(plan.n_classes))}
    return [dp.PrivateGaussianCentroid(**common),
            dp.PrivateLargeMarginGaussian(**{**common, "delta": common["delta"] or None},
                                          mechanism="objective"),
            *([dp.PrivateHuberSVM(fit_intercept=True, **common)] if plan.n_classes == 2 else [])]


@pytest.mark.parametrize("n_classes", [2, 3])
def test_the_noise_checks_hold_no_rows(n_classes):
    """The candidates' checks read the shape only: no n x p array is built for them.

    Each candidate's shape-only problem holds one broadcast zero for its rows, so the
    checks' peak memory stays far below one n x p float64 array (8 MB here).
    """
    import tracemalloc

    n, d = 20_000, 50
    door = dp.PrivateClassifier(epsilon=1.0, classes=list(range(n_classes)))
    plan = door.plan(n, n_classes, d)
    tracemalloc.start()
    try:
        door._warn(plan)
        for learner in _candidates(plan):
            fd._noise_dominates(learner, n, n_classes, d)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 0.5 * n * (d + 1) * 8, f"peak {peak / 2**20:.1f} MB"


def test_a_label_set_read_from_y_warns_that_it_also_chooses_the_learner():
    """classes=None: one warning (the front door's), naming the learner choice and classes=."""
    X, y = _data(120, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf = dp.PrivateClassifier(epsilon=1.0, random_state=0).fit(X, y)
    leaks = [str(w.message) for w in caught if issubclass(w.category, dp.PrivacyLeakWarning)]
    assert len(leaks) == 1 and leaks[0].startswith("PrivateClassifier:")
    assert "chooses the learner" in leaks[0] and "classes=" in leaks[0]
    assert clf.certificate_.states(fd.INFERRED_CHOICE)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf = dp.PrivateClassifier(epsilon=1.0, classes=[0, 1, 2], random_state=0).fit(X, y)
    assert not any(issubclass(w.category, dp.PrivacyLeakWarning) for w in caught)
    assert not clf.certificate_.states(fd.INFERRED_CHOICE)
    assert all(s.public for s in certificate_facts(clf.certificate_, "label_source"))


def test_the_noise_checks_leave_other_threads_warnings_alone():
    """Front-door fits in one thread; every warning of a second thread is still shown."""
    X, y = _data(60, 3)
    shown = []

    def show(message, category, filename, lineno, file=None, line=None):
        shown.append(str(message))

    done, sent = [0], [0]
    warning = threading.Event()  # the fits start once the other thread has warned

    def fits():
        clf = dp.PrivateClassifier(epsilon=1.0, classes=[0, 1, 2], random_state=0)
        warning.wait()
        while done[0] < 20:
            clf.fit(X, y)
            done[0] += 1

    def warn():
        while done[0] < 20:
            warnings.warn("from the other thread", UserWarning, stacklevel=1)
            sent[0] += 1
            warning.set()

    interval = sys.getswitchinterval()
    with warnings.catch_warnings():  # set up before both threads start
        warnings.simplefilter("always")
        warnings.showwarning = show
        sys.setswitchinterval(1e-6)  # many thread switches inside each fit
        try:
            threads = [threading.Thread(target=fits), threading.Thread(target=warn)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        finally:
            sys.setswitchinterval(interval)
    assert sent[0] > 0
    assert shown.count("from the other thread") == sent[0]


@pytest.mark.parametrize("epsilon, learner", [(1.0, CENTROID), (1e3, LARGE_MARGIN)])
def test_sparse_rows_for_every_learner(epsilon, learner):
    """The sparse tag holds whichever learner the rule picks (scikit-learn's sparse checks)."""
    est = dp.PrivateClassifier(epsilon=epsilon, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)
        estimator_checks.check_estimator_sparse_tag("PrivateClassifier", est)
        if learner == CENTROID:  # every sparse format (the large-margin fits take longer)
            estimator_checks.check_estimator_sparse_array("PrivateClassifier", est)
            estimator_checks.check_estimator_sparse_matrix("PrivateClassifier", est)
        X, y = _data(150, 3)
        clf = dp.PrivateClassifier(epsilon=epsilon, classes=[0, 1, 2], random_state=0)
        dense = clone(clf).fit(X, y)
        sparse = clone(clf).fit(sp.csr_array(X), y)
    assert dense.learner_ == sparse.learner_ == learner
    assert np.allclose(dense.predict_proba(X), sparse.predict_proba(sp.csc_matrix(X)), atol=1e-9)


def test_the_noise_checks_read_no_rows():
    """Each candidate's shape-only problem holds no rows: the centroid and linear learners'
    templates are those of their public problems, with the plan's n and p."""
    n, d = 50_000, 20
    centroid, _, huber = _candidates(dp.PrivateClassifier(epsilon=1.0, classes=[0, 1]).plan(n, 2, d))
    template = centroid.public_template(centroid.plan(n, 2, d))
    assert (template.n, template.d) == (n, d) and template.X is None and template.rows is None
    template = huber.public_template(huber.plan(n, 2, d))
    assert (template.n, template.p) == (n, d + 1) and template.rows is None


@pytest.mark.slow
def test_a_fit_imports_neither_the_searches_nor_the_accountants():
    """A front-door fit loads what it uses: no scikit-learn model_selection (the searches),
    no dp_accounting (noisy gradient descent's accountant), no schema module."""
    import subprocess
    import sys

    code = ("import sys, numpy as np, dpconvex\n"
            "rng = np.random.default_rng(0); X = rng.normal(size=(300, 4)) / 3\n"
            "dpconvex.PrivateClassifier(epsilon=1.0, classes=[0, 1], random_state=0)"
            ".fit(X, (X[:, 0] > 0).astype(int))\n"
            "print(sorted(m for m in ('sklearn.model_selection', 'dp_accounting', "
            "'dpconvex.data.schema', 'dpconvex.data.encoder', 'dpconvex.data.schema_draft') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_sparse_rows_for_noisy_gradient_descent():
    """Two classes with delta > 0 take noisy GD, which gets the sparse rows densified."""
    X, y = _data(300, 2, d=30)
    clf = dp.PrivateClassifier(epsilon=1.0, delta=1e-5, classes=[0, 1], random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)
        dense = clone(clf).fit(X, y)
        sparse = clone(clf).fit(sp.csr_array(X), y)
    assert dense.learner_ == sparse.learner_ == NOISY_GD
    assert np.allclose(dense.predict_proba(X), sparse.predict_proba(sp.csc_matrix(X)), atol=1e-9)


@pytest.mark.parametrize("delta", [0.0, 1e-6])
def test_naive_bayes_only_where_the_public_ranges_are_known(delta):
    d_multi, d_binary = NB_MULTICLASS_FEATURES_AT_MOST, NB_BINARY_FEATURES_AT_MOST
    n = 10**5  # far above the centroid switch
    assert choose_front_door_learner(n, 5, d_multi, 1.0, delta, ranges_known=True).learner \
        == GAUSSIAN_NB
    assert choose_front_door_learner(n, 5, d_multi + 1, 1.0, delta, ranges_known=True).learner \
        == LARGE_MARGIN
    assert choose_front_door_learner(n, 5, d_multi, 1.0, delta).learner == LARGE_MARGIN
    # more than two classes: naive Bayes from NB_MULTICLASS_ROWS_PER_CLASS_AT_LEAST rows per
    # class (n / C), the softmax below (r = n ε / (C (d + 1)) near 100, far above the switch)
    n_at = NB_MULTICLASS_ROWS_PER_CLASS_AT_LEAST * 3
    assert choose_front_door_learner(n_at, 3, 4, 1.0, delta, ranges_known=True).learner \
        == GAUSSIAN_NB
    assert choose_front_door_learner(n_at - 1, 3, 4, 1.0, delta, ranges_known=True).learner \
        == LARGE_MARGIN
    assert choose_front_door_learner(1000, 2, d_binary, 1.0, delta, ranges_known=True).learner \
        == GAUSSIAN_NB
    assert choose_front_door_learner(1000, 2, d_binary + 1, 1.0, delta,
                                     ranges_known=True).learner != GAUSSIAN_NB
    # few records per class and coordinate: the centroids, ranges or not
    C, d = 5, 9
    n_below = int(CENTROID_BELOW[delta > 0] * C * (d + 1)) - 1
    assert choose_front_door_learner(n_below, C, d, 1.0, delta, ranges_known=True).learner \
        == CENTROID
    # the safeguard's "auto" guards naive Bayes as every other learner; False leaves it off
    assert safeguard_applies(5000, "auto") and not safeguard_applies(5000, False)
    for safeguard in ("auto", False):
        plan = dp.PrivateClassifier(epsilon=1.0, delta=delta, classes=[0, 1, 2, 3],
                                    feature_range=(0.0, 1.0), safeguard=safeguard).plan(5000, 4, 9)
        assert plan.learner == GAUSSIAN_NB and plan.chosen.guarded == (safeguard == "auto")


def _spread_classes(n, seed=0):
    """Three classes with one mean and different spreads, in [0, 1/2] per feature."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, size=n)
    X = np.clip(0.25 + rng.normal(size=(n, 3)) * np.array([0.01, 0.05, 0.12])[y, None], 0, 0.5)
    return X, y


def test_naive_bayes_from_the_front_door_with_public_ranges():
    X, y = _spread_classes(6000)
    ranges = np.tile([0.0, 0.5], (3, 1))
    clf = dp.PrivateClassifier(epsilon=1.0, classes=[0, 1, 2], feature_range=ranges,
                               random_state=0).fit(X, y)
    assert clf.learner_ == GAUSSIAN_NB
    assert isinstance(clf.estimator_, dp.PrivateGaussianNB)
    assert clf.certificate_.epsilon <= 1.0
    text = " ".join(clf.certificate_.assumptions)
    assert "Gaussian naive Bayes" in text and "safeguard on" in text  # guarded as any learner
    assert clf.certificate_.released == {"safeguard selected": GAUSSIAN_NB}
    unguarded = dp.PrivateClassifier(epsilon=1.0, classes=[0, 1, 2], feature_range=ranges,
                                     safeguard=False, random_state=0).fit(X, y)
    single = dp.PrivateGaussianNB(epsilon=1.0, feature_range=ranges, classes=[0, 1, 2],
                                  random_state=0).fit(X, y)
    # without the safeguard, the same release at the same seed: the front door adds no step
    np.testing.assert_allclose(unguarded.estimator_.theta_, single.theta_, rtol=1e-12,
                               atol=1e-15)
    # classes with one mean: a linear map per class barely separates them, naive Bayes does
    # (held-out rows; the majority class holds about a third, non-private naive Bayes 0.87;
    # over seeds 0-4 the front door scores 0.70-0.71 with the ranges, 0.32-0.53 without)
    X_test, y_test = _spread_classes(3000, seed=1)
    plain = dp.PrivateClassifier(epsilon=1.0, classes=[0, 1, 2], random_state=0).fit(X, y)
    assert plain.learner_ != GAUSSIAN_NB
    assert clf.score(X_test, y_test) > max(0.6, plain.score(X_test, y_test) + 0.1)


def _schema_table(n=3000, seed=3):
    """A table of three classes that differ in the spread of one column, with its schema."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, size=n)
    df = pd.DataFrame({"a": 50 + rng.normal(size=n) * np.array([1.0, 5.0, 15.0])[y],
                       "b": rng.uniform(0, 100, n)})
    return df, y, dp.PublicSchema({"a": dp.Numeric(0, 100), "b": dp.Numeric(0, 100)})


def test_a_schema_gives_the_public_ranges_of_its_rows():
    df, y, schema = _schema_table()
    clf = dp.PrivateClassifier(epsilon=1.0, classes=[0, 1, 2], schema=schema,
                               random_state=0).fit(df, y)
    assert clf.learner_ == GAUSSIAN_NB
    lo, hi = schema.encoded_range()
    np.testing.assert_allclose(clf.estimator_.feature_range, np.column_stack([lo, hi]))
    rows = dp.PublicEncoder(schema).fit_transform(df)
    same = dp.PrivateClassifier(epsilon=1.0, classes=[0, 1, 2], random_state=0,
                                feature_range=np.column_stack([lo, hi])).fit(rows, y)
    np.testing.assert_allclose(clf.predict_proba(df), same.predict_proba(rows), rtol=1e-12,
                               atol=1e-12)
    assert clf.certify(df, y).epsilon == pytest.approx(clf.certificate_.epsilon)
    assert clf.score(df, y, sample_weight=np.ones(len(y))) == same.score(rows, y)
    for bad in (y[:-1], np.full(len(y), 7), np.where(np.arange(len(y)) == 3, np.nan, y), None):
        with pytest.raises(dp.DataValidationError, match="PrivateClassifier.score"):
            clf.score(df, bad)  # the labels checked as the rows' front door checks them
    # the plan, from the shape alone or from the table, is the fit's: on the encoded rows,
    # with the schema's ranges (whatever width of the table the shape names)
    ranged = dp.PrivateClassifier(epsilon=1.0, classes=[0, 1, 2],
                                  feature_range=np.column_stack([lo, hi])).plan(len(y), 3, rows.shape[1])
    for plan in (clf.plan(len(y), 3, df.shape[1]), clf.plan_for(df, y)):
        assert (plan.learner, plan.template, plan.n_features) == (
            ranged.learner, ranged.template, rows.shape[1])


def test_a_bad_feature_range_is_refused_by_name():
    X, y = _data(200, 3)
    with pytest.raises(dp.ParameterError, match="'feature_range' parameter of PrivateClassifier"):
        dp.PrivateClassifier(classes=[0, 1, 2], feature_range=(1.0, 0.0)).fit(X, y)
    with pytest.raises(dp.ParameterError, match="hi - lo >= 1e-100"):
        dp.PrivateClassifier(classes=[0, 1, 2], feature_range=(-1e308, 1e308)).fit(X, y)
    with pytest.raises(dp.ParameterError, match="feature_range"):
        dp.PrivateClassifier(classes=[0, 1, 2], feature_range=np.zeros((3, 2)) + [0, 1],
                             random_state=0).fit(X, y)  # 3 rows of ranges for 4 features
    for text in [("0", "1"), [(0, 1), ("a", 2)], (False, True)]:  # numbers only, as for label_range
        with pytest.raises(dp.ParameterError, match="'feature_range' parameter of PrivateClassifier"):
            dp.PrivateClassifier(classes=[0, 1, 2], feature_range=text).fit(X, y)
    from decimal import Decimal

    dp.PrivateClassifier(classes=[0, 1, 2], feature_range=(Decimal(-1), Decimal(1)), random_state=0).fit(X, y)


def test_the_same_choice_and_release_whichever_way_the_schema_ranges_come():
    """schema=, feature_range=schema after PublicEncoder(schema), and feature_range= the
    encoded ranges: one decision and one release (the rule reads whether ranges are given)."""
    df, y, schema = _schema_table()
    rows = dp.PublicEncoder(schema).fit_transform(df)
    common = {"epsilon": 1.0, "classes": [0, 1, 2], "random_state": 0}
    by_schema = dp.PrivateClassifier(schema=schema, **common).fit(df, y)
    piped = make_pipeline(dp.PublicEncoder(schema),
                          dp.PrivateClassifier(feature_range=schema, **common)).fit(df, y)
    by_ranges = dp.PrivateClassifier(feature_range=np.column_stack(schema.encoded_range()),
                                     **common).fit(rows, y)
    assert by_schema.learner_ == piped[-1].learner_ == by_ranges.learner_ == GAUSSIAN_NB
    for other in (piped.predict_proba(df), by_ranges.predict_proba(rows)):
        np.testing.assert_allclose(by_schema.predict_proba(df), other, rtol=1e-12, atol=1e-12)
    nb = dp.PrivateGaussianNB(feature_range=schema, **common).fit(rows, y)
    unguarded = dp.PrivateClassifier(feature_range=np.column_stack(schema.encoded_range()),
                                     safeguard=False, **common).fit(rows, y)
    np.testing.assert_allclose(nb.theta_, unguarded.estimator_.theta_, rtol=1e-12, atol=1e-15)
    # the README's pipeline, no feature_range: the encoder's rows carry the schema's ranges
    plain_pipe = make_pipeline(dp.PublicEncoder(schema), dp.PrivateClassifier(**common)).fit(df, y)
    assert plain_pipe[-1].learner_ == GAUSSIAN_NB
    np.testing.assert_allclose(plain_pipe.predict_proba(df), by_schema.predict_proba(df),
                               rtol=1e-12, atol=1e-12)
    assert ROWS_RANGES_NOTE in plain_pipe[-1].certificate_.assumptions
    assert plain_pipe[-1].feature_range is None  # a parameter is never set by fit
    front = dp.PrivateClassifier(**common)
    assert front.plan_for(rows, y).learner == by_ranges.plan_for(rows, y).learner
    assert ROWS_RANGES_NOTE in front.certify(rows, y).assumptions
    # rows without their ranges (np.asarray) are rows known only to lie within data_norm
    assert dp.PrivateClassifier(**common).fit(np.asarray(rows), y).learner_ != GAUSSIAN_NB
    with pytest.raises(dp.ParameterError, match="one \\(lo, hi\\) row per feature"):
        dp.PrivateGaussianNB(feature_range=schema, **common).fit(rows[:, :1], y)


GIVEN_TWICE = "ranges are given twice"


def _table_of_percentages(n=300, seed=0):
    """Three columns documented as 0-100 (each spans 1/sqrt(3) once encoded), two classes."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(rng.uniform(0, 100, (n, 3)), columns=list("abc"))
    schema = dp.PublicSchema({c: dp.Numeric(0, 100) for c in "abc"})
    return df, (df.a > 50).astype(int).to_numpy(), schema


@pytest.mark.parametrize("uniform", [False, True])
def test_the_columns_ranges_given_as_feature_range_with_a_schema_are_refused(uniform):
    """schema= and feature_range= in the table's units: the ranges given twice, refused by name
    in fit, plan and certify (public parameters only), nothing charged."""
    df, y, schema = _table_of_percentages()
    if uniform:
        schema = dp.PublicSchema.every_column(dp.Numeric(0, 100))
    ledger = dp.BudgetAccountant(epsilon=2.0)
    door = dp.PrivateClassifier(classes=[0, 1], schema=schema, feature_range=[[0, 100]] * 3,
                                accountant=ledger, random_state=0)
    for call in (lambda: door.fit(df, y), lambda: door.plan(300, 2, 3),
                 lambda: door.certify(n=300, n_classes=2, n_features=3)):
        with pytest.raises(dp.ParameterError, match=GIVEN_TWICE) as refusal:
            call()
        assert "Numeric(" in str(refusal.value)  # what to do: the columns' ranges in the schema
    assert ledger.spent == (0.0, 0.0)
    if not uniform:  # before the table is read: a table the encoder refuses is not reached
        with pytest.raises(dp.ParameterError, match=GIVEN_TWICE):
            door.fit(df.rename(columns={"a": "z"}), y)
    # another number of rows of ranges than the encoded features: the same refusal
    with pytest.raises(dp.ParameterError, match=GIVEN_TWICE):
        door.set_params(feature_range=[[0, 100]] * 2).plan(300, 2, 3)


@pytest.mark.parametrize("learner", ["naive Bayes", "front door"])
def test_the_columns_ranges_given_as_feature_range_after_an_encoder_are_refused(learner):
    """The encoder's rows carry their ranges: a feature_range beyond them is the ranges given
    twice, refused in a pipeline's fit, plan_for and certify and in a search, nothing charged."""
    df, y, schema = _table_of_percentages()
    ledger = dp.BudgetAccountant(epsilon=5.0)
    common = {"classes": [0, 1], "feature_range": [[0, 100]] * 3, "random_state": 0}
    make, tuned = {"naive Bayes": (dp.PrivateGaussianNB, {"var_floor": [0.03, 0.1]}),
                   "front door": (dp.PrivateClassifier, {"selection_share": [0.1, 0.2]})}[learner]
    rows = dp.PublicEncoder(schema).fit_transform(df)
    with pytest.raises(dp.ParameterError, match=GIVEN_TWICE):
        make_pipeline(dp.PublicEncoder(schema), make(accountant=ledger, **common)).fit(df, y)
    for call in (make(**common).plan_for, make(**common).certify):
        with pytest.raises(dp.ParameterError, match=GIVEN_TWICE):
            call(rows, y)
    # a search: its estimator's range, or a value of its grid, refused before its hold
    grids = [(make(**common), tuned),
             (make(classes=[0, 1]), {"feature_range": [None, [[0, 100]] * 3]})]
    for estimator, grid in grids:
        with pytest.raises(dp.ParameterError, match=GIVEN_TWICE):
            dp.PrivateGridSearch(estimator, grid, epsilon=1.0, accountant=ledger).fit(rows, y)
    assert ledger.spent == (0.0, 0.0)


def test_a_narrower_feature_range_in_the_encoded_units_is_taken_as_given():
    """feature_range within the encoded rows' ranges (a narrower clip): accepted with a schema
    and after an encoder, and the release is that of the plain rows with that range."""
    df, y, schema = _table_of_percentages()
    rows = dp.PublicEncoder(schema).fit_transform(df)
    width = 1 / np.sqrt(3)  # each column's encoded range: [0, 1/divisor], divisor sqrt(3)
    narrow = [[0.1 * width, 0.9 * width]] * 3
    common = {"classes": [0, 1], "feature_range": narrow, "random_state": 0}
    plain = dp.PrivateClassifier(**common).fit(np.asarray(rows), y)
    by_schema = dp.PrivateClassifier(schema=schema, **common).fit(df, y)
    assert by_schema.learner_ == plain.learner_ == GAUSSIAN_NB
    np.testing.assert_allclose(by_schema.estimator_.theta_, plain.estimator_.theta_,
                               rtol=1e-12, atol=1e-15)  # the same draws, rounding apart
    piped = make_pipeline(dp.PublicEncoder(schema), dp.PrivateGaussianNB(**common)).fit(df, y)
    alone = dp.PrivateGaussianNB(**common).fit(np.asarray(rows), y)
    np.testing.assert_allclose(piped[-1].theta_, alone.theta_, rtol=1e-12, atol=1e-15)
    # the encoded range (0.57735...) typed to 6, 4 or 3 significant digits, rounded up: within
    # the slack (5e-3 of the width); 1 % wider: beyond it
    for typed in ([[0.0, 0.577351]] * 3, (0, 0.5774), (0, 0.578)):
        dp.PrivateGaussianNB(classes=[0, 1], feature_range=typed).plan_for(rows, y)
        dp.PrivateClassifier(classes=[0, 1], schema=schema, feature_range=typed).plan(300, 2, 3)
    with pytest.raises(dp.ParameterError, match=GIVEN_TWICE):
        dp.PrivateGaussianNB(classes=[0, 1], feature_range=(0, 1.01 * width)).plan_for(rows, y)


@pytest.mark.parametrize("uniform", [False, True])
def test_feature_range_schema_with_the_rows_schema_at_another_data_norm_is_taken(uniform):
    """feature_range=schema (the documented form) with the rows of that schema encoded at
    data_norm 0.5, after an encoder and with schema=: accepted, and read as everywhere, at
    data_norm 1 (the ranges np.column_stack(schema.encoded_range())): the release is that of
    the plain rows with those ranges. A range at data_norm 0.5 typed to 4 digits is accepted;
    a schema of another encoding is refused without asking for what was given."""
    df, y, schema = _table_of_percentages()
    if uniform:
        schema = dp.PublicSchema.every_column(dp.Numeric(0, 100))
    rows = np.asarray(dp.PublicEncoder(schema, data_norm=0.5).fit_transform(df))
    at_one = np.column_stack(dp.PublicEncoder(schema).fit(df).schema_.encoded_range())
    common = {"classes": [0, 1], "random_state": 0}
    piped = make_pipeline(dp.PublicEncoder(schema, data_norm=0.5),
                          dp.PrivateGaussianNB(feature_range=schema, **common)).fit(df, y)
    alone = dp.PrivateGaussianNB(feature_range=at_one, **common).fit(rows, y)
    door = dp.PrivateClassifier(schema=schema, data_norm=0.5, feature_range=schema,
                                **common).fit(df, y)
    plain = dp.PrivateClassifier(data_norm=0.5, feature_range=at_one, **common).fit(rows, y)
    assert door.learner_ == plain.learner_ == GAUSSIAN_NB
    for ours, theirs in ((piped[-1], alone), (door.estimator_, plain.estimator_)):
        for name in ("theta_", "var_", "class_prior_"):  # the same draws, rounding apart
            np.testing.assert_allclose(getattr(ours, name), getattr(theirs, name),
                                       rtol=1e-12, atol=1e-15)
    typed = (0, 0.2887)  # 0.5 / sqrt(3) = 0.288675... to 4 significant digits
    dp.PrivateClassifier(schema=schema, data_norm=0.5, feature_range=typed,
                         **common).plan(300, 2, 3)
    other = dp.PublicSchema({c: dp.Numeric(0, 100) for c in "abc"}, centered=True)
    with pytest.raises(dp.ParameterError, match=GIVEN_TWICE) as refusal:
        make_pipeline(dp.PublicEncoder(schema, data_norm=0.5),
                      dp.PrivateGaussianNB(feature_range=other, **common)).fit(df, y)
    assert "not that of the rows" in str(refusal.value)
    assert "Numeric(" not in str(refusal.value)  # the columns' ranges are in a schema already


@pytest.mark.parametrize("front_door", ["classifier", "regressor"])
def test_rows_of_another_width_are_refused_by_the_front_doors_name(front_door):
    """Not by the learner it chose (a name the user never wrote), and with what to pass."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4)) * 0.3
    if front_door == "classifier":
        est = dp.PrivateClassifier(epsilon=1.0, classes=[0, 1], random_state=0)
        y = (X[:, 0] > 0).astype(int)
    else:
        est = dp.PrivateRegressor(epsilon=1.0, label_range=(-1, 1), random_state=0)
        y = X[:, 0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)
        model = est.fit(X, y)
    name = type(est).__name__
    for call in (model.predict, lambda Z: model.score(Z, y)):
        with pytest.raises(dp.DataValidationError,
                           match=rf"X has 3 features, but {name} is expecting 4 .*Pass the columns"):
            call(X[:, :3])
    for bad, what in ((np.full((1, 4), np.nan), "NaN"), (np.empty((0, 4)), "0 sample"), (X[0], "2-D")):
        with pytest.raises(dp.DataValidationError, match=rf"^{name}\.predict: .*{what}"):
            model.predict(bad)


@pytest.mark.parametrize("safeguard", [True, False, "auto"])
def test_a_bad_label_set_is_refused_by_the_front_doors_name_whether_guarded_or_not(safeguard):
    """Its learner is a name the user never wrote (at n = 60, ε = 0.5 the class centroids,
    guarded under "auto" as under True)."""
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(60, 3)) * 0.3, rng.integers(0, 3, 60)
    cases = [([0, 1, 5], dp.DataValidationError, "not in classes"),
             ([0, 1, 1], dp.ParameterError, "repeated labels"),
             (["a", "b", "c"], dp.DataValidationError, "of type number")]
    for classes, error, what in cases:
        est = dp.PrivateClassifier(epsilon=0.5, classes=classes, safeguard=safeguard, random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", dp.PrivacyWarning)
            with pytest.raises(error, match=what) as caught:
                est.fit(X, y)
        assert "PrivateClassifier" in str(caught.value), (safeguard, classes)
        assert not any(learner in str(caught.value) for learner in
                       ("Centroid", "LargeMargin", "GaussianNB", "HuberSVM", "NoisyGradient"))


def test_a_record_near_the_float_range_switches_no_numpy_warning():
    """Wherever it falls (fitting or validation part), a row of 1.7e308 (its norm and its
    decision values overflow) leaves the fit's and the dry run's warnings as they were."""
    rng = np.random.default_rng(0)
    X = 0.4 * rng.normal(size=(120, 3))
    y = (X[:, 0] > 0).astype(int)
    for row in range(0, 120, 7):
        neighbour = X.copy()
        neighbour[row] = 1.7e308
        est = dp.PrivateClassifier(epsilon=1.0, classes=[0, 1], random_state=7)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            est.fit(neighbour, y)
            est.certify(neighbour, y)
        assert not [str(w.message) for w in caught if w.category is RuntimeWarning], row


@pytest.mark.parametrize("safeguard", [True, False])
def test_the_ledger_is_checked_before_the_labels_are_read(safeguard):
    """An exhausted ledger refuses before a label outside classes could (a refusal decided
    from the data)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 3)) * 0.3
    y = (X[:, 0] > 0).astype(int)
    y[5] = 7
    ledger = dp.BudgetAccountant(1.0)
    ledger.spend(1.0, 0.0)
    with pytest.raises(dp.BudgetError):
        dp.PrivateClassifier(epsilon=1.0, classes=[0, 1], safeguard=safeguard,
                             accountant=ledger).fit(X, y)


def test_a_single_class_is_refused_by_the_front_doors_name_and_a_plan_needs_two():
    X = np.random.default_rng(0).uniform(-0.5, 0.5, (200, 3))
    y = (X[:, 0] > 0).astype(int)
    for delta in (0.0, 1e-5):
        with pytest.raises(dp.ParameterError, match=r"'classes' parameter of PrivateClassifier must"):
            dp.PrivateClassifier(epsilon=1.0, delta=delta, classes=[1]).fit(X, y)
    with pytest.raises(dp.ParameterError, match=r"'n_classes' argument of PrivateClassifier\.plan"):
        dp.PrivateClassifier(epsilon=1.0).plan(200, 1, 3)


@pytest.mark.parametrize("safeguard", [True, False])
def test_the_front_doors_sign_their_learners_data_errors_in_fit(safeguard):
    frame = pd.DataFrame({"a": np.random.default_rng(0).normal(size=300), "b": ["x", "y", "z"] * 100})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)
        with pytest.raises(dp.DataTypeError, match=r"^PrivateClassifier\.fit: X must be an array of numbers"):
            dp.PrivateClassifier(epsilon=1.0, classes=[0, 1], safeguard=safeguard).fit(
                frame, np.arange(300) % 2)
        X = np.random.default_rng(0).normal(size=(300, 2))
        X[3, 0] = np.nan
        with pytest.raises(dp.DataValidationError, match=r"^PrivateRegressor\.fit: X contains NaN"):
            dp.PrivateRegressor(epsilon=1.0, label_range=(-1, 1), safeguard=safeguard).fit(X, np.zeros(300))


def test_the_rules_refuse_shapes_and_budgets_no_fit_can_have():
    from dpconvex.privacy.rules.front_door import choose_front_door_learner, choose_regression_learner

    for args in [(-1, 2, 3, 1.0, 0.0), (100, 2, 3, 0.0, 0.0), (100, 2, 2.5, 1.0, 0.0),
                 (100, 2, 3, 1.0, 1.5)]:
        with pytest.raises(dp.ParameterError, match="parameter of choose_front_door_learner"):
            choose_front_door_learner(*args)
    with pytest.raises(dp.ParameterError, match="'n' parameter of choose_regression_learner"):
        choose_regression_learner(0, 3, 1.0, 0.0)


@pytest.mark.parametrize("front_door", [
    dp.PrivateClassifier(classes=[0, 1]), dp.PrivateRegressor(label_range=(0, 1))])
def test_certify_of_more_rows_than_an_array_holds_is_refused_by_the_front_door(front_door):
    shapes = [(10**30, 3), (10**18, 3)]  # beyond numpy's index; beyond its bytes
    if front_door._reads_label_set:  # (a regressor releases the mean alone at this n/d)
        shapes.append((300, 10**30))
    for n, d in shapes:
        with pytest.raises(dp.ParameterError,
                           match=rf"^{type(front_door).__name__}\.certify: its checks hold"):
            front_door.certify(n=n, n_classes=2 if front_door._reads_label_set else None,
                               n_features=d)
    if front_door._reads_label_set:  # a learner's parameter error, in the front door's name
        with pytest.raises(dp.ParameterError, match="parameter of PrivateClassifier has"):
            clone(front_door).set_params(classes=[0, 0, 1]).certify(n=300, n_features=3)


def _stated(cert) -> list[list[str]]:
    """The stated lines of the certificate and of each part, depth first."""
    return [sorted(cert.notes())] + [lines for part in cert.parts for lines in _stated(part)]


@pytest.mark.parametrize("n_classes", [2, 3])
def test_certify_states_the_label_set_and_lam_rule_the_fit_states(n_classes):
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, (180, 2))
    y = np.digitize(X[:, 0], [-0.15, 0.15]) if n_classes == 3 else (X[:, 0] > 0).astype(int)
    make = lambda: dp.PrivateClassifier(epsilon=2.0, classes=list(range(n_classes)),  # noqa: E731
                                        random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dry, fitted = make().certify(X, y), make().fit(X, y).certificate_
    assert fitted.label_source is not None and fitted.lam_rule is not None
    assert (dry.label_source, dry.lam_rule) == (fitted.label_source, fitted.lam_rule)
    assert _stated(dry) == _stated(fitted)


@pytest.mark.parametrize("front_door", [dp.PrivateClassifier, dp.PrivateRegressor])
def test_plan_and_certify_refuse_a_width_other_than_the_named_schemas_columns(front_door):
    """n_features is the table's number of columns: with a named schema it is known, and
    another is refused by name; the schema's own width is taken, and so is none."""
    named = dp.PublicSchema({c: dp.Numeric(0, 1) for c in "abc"})
    extra = {"classes": [0, 1]} if front_door is dp.PrivateClassifier else {
        "label_range": (0, 1)}
    est = front_door(schema=named, **extra)
    for call in (lambda d: est.plan(500, n_features=d),
                 lambda d: est.certify(n=500, n_features=d)):
        with pytest.raises(dp.ParameterError, match=r"n_features=7 is not the number of "
                           r"columns .* \(3: 'a', 'b', 'c'\)\. Pass n_features=3"):
            call(7)
        assert call(3) is not None


@pytest.mark.parametrize("table", ["extra column", "no names"])
def test_plan_for_and_a_search_name_the_columns_of_x_a_named_schema_does_not_declare(table):
    """The width came from X, not from an n_features given: the refusal names X's columns
    (or, read by position, their number against the schema's)."""
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.uniform(0, 1, 60), "b": rng.uniform(0, 1, 60),
                       "extra": rng.uniform(0, 1, 60)})
    X = df if table == "extra column" else df.to_numpy()
    y = (df["a"] > 0.5).astype(int).to_numpy()
    door = dp.PrivateClassifier(schema=dp.PublicSchema({"a": dp.Numeric(0, 1),
                                                        "b": dp.Numeric(0, 1)}),
                                classes=[0, 1], epsilon=2.0, random_state=0)
    said = (r"the columns of X differ from the schema's: column\(s\) not in the schema "
            r"'extra'\." if table == "extra column" else
            r"X has 3 column\(s\) \(n_features = 3\), but the schema declares 2 \(read by "
            r"position")
    with pytest.raises(dp.DataValidationError, match=r"PrivateClassifier\.plan_for: " + said):
        door.plan_for(X, y)
    search = dp.PrivateGridSearch(door, {"data_norm": [1.0, 2.0]}, epsilon=2.0, random_state=0)
    with pytest.raises(dp.DataValidationError, match=r"PrivateGridSearch\.fit: " + said):
        search.fit(X, y)


@pytest.mark.parametrize("table", ["missing", "extra", "renamed", "reordered", "by position",
                                   "many missing"])
def test_the_encoder_a_plan_and_a_search_refuse_other_columns_in_one_message(table):
    """One check of a table's columns against a named schema: PublicEncoder.fit, plan_for and
    a search's fit say the same after their own name, the names listed in one form (at most
    five, and how many more)."""
    columns = [f"c{k}" for k in range(8)]
    schema = dp.PublicSchema(dict.fromkeys(columns, dp.Numeric(0, 1)))
    df = pd.DataFrame(np.random.default_rng(0).uniform(0, 1, (40, 8)), columns=columns)
    X = {"missing": df.drop(columns="c3"), "extra": df.assign(extra=0.5),
         "renamed": df.rename(columns={"c0": "C0"}), "reordered": df[columns[::-1]],
         "by position": df.to_numpy()[:, :7], "many missing": df[["c0"]]}[table]
    y = np.arange(40) % 2
    said = []
    for call, name in ((lambda: dp.PublicEncoder(schema).fit(X), "PublicEncoder.fit"),
                       (lambda: dp.PrivateClassifier(schema=schema, classes=[0, 1]).plan_for(
                           X, y), "PrivateClassifier.plan_for"),
                       (lambda: dp.PrivateGridSearch(
                           dp.PrivateClassifier(schema=schema, classes=[0, 1]),
                           {"data_norm": [1.0, 2.0]}, epsilon=1.0).fit(X, y),
                        "PrivateGridSearch.fit")):
        with pytest.raises(dp.DataValidationError) as refused:
            call()
        assert str(refused.value).startswith(f"{name}: ")
        said.append(str(refused.value).removeprefix(f"{name}: "))
    assert said[0] == said[1] == said[2]
    expected = {"missing": "missing column(s) 'c3'.", "extra": "not in the schema 'extra'.",
                "renamed": "missing column(s) 'c0'; column(s) not in the schema 'C0'.",
                "reordered": "the columns are in a different order.",
                "by position": "X has 7 column(s) (n_features = 7), but the schema declares 8",
                "many missing": "missing column(s) 'c1', 'c2', 'c3', 'c4', 'c5' and 2 more."}
    assert expected[table] in said[0]


@pytest.mark.parametrize("table", ["keys not str", "repeated name", "sparse", "list too wide"])
def test_plan_for_and_a_search_refuse_a_table_as_the_encoder_does(table):
    """A table the encoder refuses before reading a value, plan_for and a search's fit refuse
    by the same error and text after their own name (one reading of the table's columns)."""
    schema = dp.PublicSchema({"a": dp.Numeric(0, 1), "b": dp.Numeric(0, 1)})
    A = np.random.default_rng(0).uniform(0, 1, (40, 3))
    X = {"keys not str": {0: A[:, 0], 1: A[:, 1]},
         "repeated name": pd.DataFrame(A[:, :2], columns=["a", "a"]),
         "sparse": sp.csr_matrix(A[:, :2]), "list too wide": A.tolist()}[table]
    y = np.arange(40) % 2
    door = dp.PrivateClassifier(schema=schema, classes=[0, 1], epsilon=1.0, random_state=0)
    calls = [(lambda: dp.PublicEncoder(schema).fit(X), "PublicEncoder.fit"),
             (lambda: door.plan_for(X, y), "PrivateClassifier.plan_for")]
    if table != "keys not str":  # a search reads the shape of a mapping before its columns
        calls.append((lambda: dp.PrivateGridSearch(door, {"data_norm": [1.0, 2.0]},
                                                   epsilon=1.0).fit(X, y),
                      "PrivateGridSearch.fit"))
    said = []
    for call, name in calls:
        with pytest.raises((dp.DataValidationError, dp.DataTypeError)) as refused:
            call()
        assert str(refused.value).startswith(f"{name}: ")
        said.append((type(refused.value), str(refused.value).removeprefix(f"{name}: ")))
    assert all(other == said[0] for other in said[1:])


def test_plan_for_takes_a_mapping_of_the_schemas_columns_as_the_encoder_does():
    """A mapping of column name to values is a table the encoder takes: plan_for plans it as
    the data frame of the same columns (n from its values, its width the table's)."""
    schema = dp.PublicSchema({"a": dp.Numeric(0, 1), "b": dp.Categorical(("u", "v"))})
    columns = {"a": np.linspace(0, 1, 50), "b": np.array(["u", "v"] * 25, dtype=object)}
    y = np.arange(50) % 2
    door = dp.PrivateClassifier(schema=schema, classes=[0, 1], epsilon=1.0)
    plan = door.plan_for(columns, y)
    assert (plan.n, plan.n_features) == (50, 4)  # 1 numeric + 2 categories and "other"
    assert str(plan) == str(door.plan_for(pd.DataFrame(columns), y))


def test_plan_for_reads_a_list_of_rows_of_mixed_entries_as_the_encoder_does():
    """A list of rows of text and numbers, which NumPy would make one text array, is read entry
    by entry as the encoder reads it (objects, which no dtype check refuses): plan_for plans
    it, and the encoder refuses its values, not its dtype; all text is refused by both."""
    schema = dp.PublicSchema({"a": dp.Numeric(0, 1), "b": dp.Numeric(0, 1)})
    door = dp.PrivateClassifier(schema=schema, classes=[0, 1], epsilon=1.0)
    y = np.arange(40) % 2
    rows = [["0.5", 0.25], [0.75, 1.0]] * 20
    with pytest.raises(dp.DataTypeError, match=r"'a' must be an array of numbers; it holds "
                       r"strings or bytes \(in an object array\)"):
        dp.PublicEncoder(schema).fit(rows)
    plan = door.plan_for(rows, y)
    assert (plan.n, plan.n_features) == (40, 2)
    for call in (lambda: dp.PublicEncoder(schema).fit([["0.5", "0.25"]] * 40),
                 lambda: door.plan_for([["0.5", "0.25"]] * 40, y)):
        with pytest.raises(dp.DataTypeError, match="'a' is declared Numeric but holds text"):
            call()


def test_certify_refuses_a_uniform_schemas_width_no_array_holds_as_plan_does():
    """Without rows, a width whose table n rows of a numpy array hold but whose n rows of
    encoded features none holds (5 features a column) is refused by certify with plan's words
    (ParameterError, the encoded features named), before arrays of that width are made."""
    schema = dp.PublicSchema.every_column(dp.Categorical(("A", "C", "G", "T")))
    door = dp.PrivateClassifier(epsilon=1.0, classes=[0, 1], schema=schema)
    width = 5 * 10**14  # 1000 x (width + 1) x 8 bytes within numpy's reach, 5 times that not
    said = []
    for method, call in (("plan", lambda: door.plan(1000, n_features=width)),
                         ("certify", lambda: door.certify(n=1000, n_features=width))):
        with pytest.raises(dp.ParameterError, match="more than one numpy array holds") as refused:
            call()
        said.append(str(refused.value).removeprefix(f"PrivateClassifier.{method}: "))
    assert said[0] == said[1]
    assert "rows of 2,500,000,000,000,000 features" in said[1]


@pytest.mark.parametrize("declared", [dp.Categorical(("A", "C", "G", "T")), dp.Numeric(0, 1)])
def test_plan_and_certify_name_the_columns_of_a_table_no_array_holds(declared):
    """Without rows, a table whose n rows of its columns no numpy array holds is refused by
    plan and certify alike, in its columns: the n_features given (whatever the schema
    encodes them into)."""
    door = dp.PrivateClassifier(epsilon=1.0, classes=[0, 1],
                                schema=dp.PublicSchema.every_column(declared))
    for method, call in (("plan", lambda: door.plan(1000, n_features=10**17)),
                         ("certify", lambda: door.certify(n=1000, n_features=10**17))):
        with pytest.raises(dp.ParameterError, match=rf"^PrivateClassifier\.{method}: its checks "
                           r"hold n = 1,000 rows of 100,000,000,000,000,000 columns, more than "
                           r"one numpy array holds\."):
            call()


def test_plan_for_reads_a_typed_table_without_a_copy_of_its_values():
    """plan_for with a schema reads a data frame's header: columns of category or string dtype
    are not converted (an object copy of one column is n x 8 bytes of pointers; the peak stays
    below it), and a date column declared Numeric is refused from its dtype alone."""
    n = 200_000
    codes = np.arange(n) % 2
    schema = dp.PublicSchema({c: dp.Categorical(("u", "v")) for c in "abcd"})
    door = dp.PrivateClassifier(schema=schema, classes=[0, 1], epsilon=1.0)
    door.plan_for(pd.DataFrame({c: ["u", "v"] for c in "abcd"}), [0, 1])  # imports, caches
    for column in (pd.Categorical.from_codes(codes, ["u", "v"]),
                   pd.array(np.where(codes, "u", "v"), dtype="string")):
        X = pd.DataFrame({c: column for c in "abcd"})
        plan, peak = traced_peak(lambda X=X: door.plan_for(X, codes))
        assert (plan.n, plan.n_features) == (n, 12)
        assert peak < n * 8, peak
    dates = dp.PrivateClassifier(schema=dp.PublicSchema({"a": dp.Numeric(0, 1),
                                                         "t": dp.Numeric(0, 1)}), classes=[0, 1])
    X = pd.DataFrame({"a": np.zeros(n), "t": pd.date_range("2020-01-01", periods=n, freq="s",
                                                           tz="UTC")})

    def refused():
        with pytest.raises(dp.DataTypeError, match="'t' is declared Numeric but holds dates"):
            dates.plan_for(X, codes)

    assert traced_peak(refused)[1] < n * 8


def test_plan_and_certify_name_the_columns_and_features_arrays_too_large_for_memory(
        monkeypatch):
    """A named schema's per-feature ranges beyond this machine's memory (a MemoryError,
    simulated) are refused by plan and certify of one problem in one sentence: the table's
    columns and its encoded features. A uniform schema's dry run makes no such arrays (a view
    of one pair, UniformWidth.range_rows): it plans and certifies with them refused."""
    from dpconvex.data.schema import UniformWidth

    def too_large(self, data_norm=1.0):
        raise MemoryError

    monkeypatch.setattr(dp.PublicSchema, "encoded_range", too_large)
    monkeypatch.setattr(UniformWidth, "encoded_range", too_large)
    schema = dp.PublicSchema.every_column(dp.Categorical(("A", "C", "G", "T")))  # 5 a column
    door = dp.PrivateClassifier(epsilon=1.0, classes=[0, 1], schema=schema.for_columns(10))
    said = []
    for method, call in (("plan", lambda: door.plan(1000, n_features=10)),
                         ("certify", lambda: door.certify(n=1000, n_features=10))):
        with pytest.raises(dp.ParameterError, match=r"10 columns \(50 encoded features\) "
                           r"needs arrays of 50 entries, more than this machine's memory") \
                as refused:
            call()
        said.append(str(refused.value).removeprefix(f"PrivateClassifier.{method}: ")
                    .replace(method.capitalize(), "<Method>"))
    assert said[0] == said[1]
    uniform = door.set_params(schema=schema)
    assert uniform.plan(1000, n_features=10).n_features == 50
    assert uniform.certify(n=1000, n_features=10).epsilon == 1.0
