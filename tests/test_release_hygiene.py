"""A fitted model releases its noised parameters and public facts only (DESIGN.md §4).

The main tests fit every estimator × mechanism on neighbouring data sets D and
D′ (same n, one record replaced) with the SAME seed and check that everything
reachable except the released parameters is identical: the pickled state, the
certificate's text, the repr, the warnings issued (category and text) and the
exceptions. Whatever differs besides the parameters would be an un-noised
function of the data (e.g. a solver's iteration count, a label set read from
y, a warning that counts clipped rows). The replaced record has a label the
other records lack (declared in ``classes=``), a label outside ``classes=``
(with ``unknown_labels="ignore"``; the default refuses such a fit), or a huge
norm. With ``classes=None`` the label set is read from the data: then
the models may differ (that is the leak the warning names), but the warning
itself is the same on both.
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from sklearn.pipeline import Pipeline, make_pipeline

import dpconvex as dp
from dpconvex._diagnostics import collect_diagnostics, record_diagnostic
from dpconvex.data.labels import LabelArray, declared_classes
from dpconvex.estimators.selection.random import PrivateRandomSearch
from dpconvex.objectives.losses import HuberHinge

#: Attributes that ARE the release (noised parameters, or a private selection).
RELEASED = {"coef_", "intercept_", "Phi_", "centers_", "means_", "counts_", "best_index_",
            "best_params_", "best_estimator_", "certificate_",
            "class_prior_", "within_class_var_",  # these two: functions of the class sums
            "theta_", "var_", "class_count_"}  # naive Bayes: functions of the class moments


def _pair(n=120, d=4, C=2, seed=0, relabel=True):
    """Adjacent (D, D′): the last record replaced by an extreme one with another label."""
    rng = np.random.default_rng(seed)
    X = 0.4 * rng.normal(size=(n, d))
    y = np.arange(n) % C
    X2, y2 = X.copy(), y.copy()
    X2[-1] = 0.0
    X2[-1, 0] = 3.0
    if relabel:
        y2[-1] = (y[-1] + 1) % C
    return (X, y), (X2, y2)


def _state(est):
    """Everything a pickled fitted model holds, except the released parameters."""
    state = {k: v for k, v in vars(est).items() if k not in RELEASED}
    if "estimator_" in state:  # the front door: its learner's state, likewise
        state["estimator_"] = _state(state["estimator_"])
    return pickle.dumps(state), str(est.certificate_), est.certificate_.to_dict()


LINEAR = [
    ("logreg-objective", lambda: dp.PrivateLogisticRegression(epsilon=1.0, lam=0.05)),
    ("logreg-output", lambda: dp.PrivateLogisticRegression(epsilon=1.0, lam=0.05,
                                                           mechanism="output")),
    ("logreg-objective-amp", lambda: dp.PrivateLogisticRegression(
        epsilon=1.0, lam=0.05, optimality_tol=1e-4)),
    ("logreg-output-amp", lambda: dp.PrivateLogisticRegression(
        epsilon=1.0, lam=0.05, mechanism="output", optimality_tol=1e-4)),
    ("logreg-objective-clarabel", lambda: dp.PrivateLogisticRegression(
        epsilon=1.0, lam=0.05, solver="clarabel")),
    ("huber-objective", lambda: dp.PrivateHuberSVM(epsilon=1.0, lam=0.05)),
    ("huber-output-scs", lambda: dp.PrivateHuberSVM(epsilon=1.0, lam=0.05, mechanism="output",
                                                    solver="scs")),
    ("smoothhinge-objective", lambda: dp.PrivateHuberSVM(epsilon=1.0, lam=0.05,
                                                         loss="smooth_hinge")),
    ("lincls-objective", lambda: dp.PrivateLinearClassifier(loss=HuberHinge(0.3), epsilon=1.0,
                                                            lam=0.05)),
    ("noisy-gd", lambda: dp.NoisyGradientDescent(epsilon=1.0, delta=1e-5, steps=20, radius=2.0)),
    ("rff-pipeline", lambda: make_pipeline(
        dp.RandomFourierFeatures(n_components=20, gamma=0.5, random_state=1),
        dp.PrivateLogisticRegression(epsilon=1.0, lam=0.05))),
]

LARGE_MARGIN = [
    ("lmg-native", dict(solver="native")),
    ("lmg-auto", dict()),
    ("lmg-amp", dict(solver="native", optimality_tol=1e-3)),
    ("lmg-K2-public-centers", dict(n_components=2, solver="native")),
    ("lmg-K2-dp-kmeans", dict(n_components=2, component_assignment="dp_kmeans",
                              solver="native")),
]


def _fit_both(make, D, Dp, seed=7):
    a, b = make(), make()
    key = f"{a.steps[-1][0]}__random_state" if isinstance(a, Pipeline) else "random_state"
    a.set_params(**{key: seed})
    b.set_params(**{key: seed})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a.fit(*D)
        b.fit(*Dp)
    return a, b


@pytest.mark.parametrize("name,make", LINEAR, ids=[n for n, _ in LINEAR])
def test_linear_models_differ_only_in_released_parameters(name, make):
    D, Dp = _pair(C=2)
    a, b = _fit_both(make, D, Dp)
    a, b = (a.steps[-1][1], b.steps[-1][1]) if isinstance(a, Pipeline) else (a, b)
    assert _state(a) == _state(b)
    assert not hasattr(a, "solve_result_") and not hasattr(a, "n_iter_")
    text = str(a.certificate_)
    assert "residual 0" not in text and "iterations" not in text and "seconds" not in text


@pytest.mark.parametrize("name,kw", LARGE_MARGIN, ids=[n for n, _ in LARGE_MARGIN])
def test_large_margin_models_differ_only_in_released_parameters(name, kw):
    D, Dp = _pair(n=90, d=3, C=3)

    def make():
        return dp.PrivateLargeMarginGaussian(epsilon=2.0, classes=[0, 1, 2], **kw)

    a, b = _fit_both(make, D, Dp)
    assert _state(a) == _state(b)
    assert a.Phi_.shape == b.Phi_.shape


def test_grid_search_differs_only_in_released_parts():
    D, Dp = _pair(n=200, C=2)

    def make():
        return dp.PrivateGridSearch(dp.PrivateLogisticRegression(), {"lam": [0.01, 0.1]},
                                    epsilon=1.0)

    a, b = _fit_both(make, D, Dp)
    assert _state(a) == _state(b)


def test_label_set_is_a_public_parameter():
    """With classes= the label set, C and the ±1 sign are not read from y."""
    X = np.random.default_rng(0).normal(size=(60, 3)) * 0.3
    y = np.zeros(60, dtype=int)  # one class only: still a model, of the declared shape
    m = dp.PrivateLargeMarginGaussian(epsilon=1.0, classes=[0, 1, 2], solver="native",
                                      random_state=0).fit(X, y)
    assert m.Phi_.shape == (3, 1, 4, 4) and list(m.classes_) == [0, 1, 2]
    lin = dp.PrivateLogisticRegression(epsilon=1.0, classes=["no", "yes"], random_state=0)
    lin.fit(X, np.array(["yes"] * 60))
    assert list(lin.classes_) == ["no", "yes"]
    assert "given by the caller" in str(lin.certificate_)
    inferred = dp.PrivateLogisticRegression(epsilon=1.0, random_state=0).fit(X, (X[:, 0] > 0))
    assert "assumed public" in str(inferred.certificate_)


def test_records_outside_the_label_set_contribute_no_loss():
    """Records whose label is outside classes= do not influence the model; no warning says so."""
    rng = np.random.default_rng(1)
    X = 0.4 * rng.normal(size=(100, 3))
    y = (X[:, 0] > 0).astype(int)
    y[:5] = 7  # outside classes=[0, 1]
    X_other = X.copy()
    X_other[:5] = rng.normal(size=(5, 3))  # other features for the outside records...
    y_other = y.copy()
    y_other[:5] = 9  # ...and other outside labels
    for make in (lambda: dp.PrivateLogisticRegression(epsilon=1.0, lam=0.05, classes=[0, 1],
                                                      random_state=3, unknown_labels="ignore"),
                 lambda: dp.PrivateLargeMarginGaussian(epsilon=1.0, classes=[0, 1],
                                                       solver="native", random_state=3,
                                                       unknown_labels="ignore")):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            a = make().fit(X, y)
            b = make().fit(X_other, y_other)
        assert not [w for w in caught if "outside" in str(w.message)]
        for attr in ("coef_", "intercept_", "Phi_"):
            if hasattr(a, attr):
                np.testing.assert_array_equal(getattr(a, attr), getattr(b, attr))


def test_a_class_smaller_than_K_still_gets_a_model():
    X = 0.4 * np.random.default_rng(2).normal(size=(40, 2))
    y = np.r_[np.zeros(39, dtype=int), [1]]  # class 1 has one record, K = 2
    m = dp.PrivateLargeMarginGaussian(epsilon=1.0, n_components=2, classes=[0, 1],
                                      component_assignment="dp_kmeans", solver="native",
                                      random_state=0).fit(X, y)
    assert m.Phi_.shape == (2, 2, 3, 3) and np.all(np.isfinite(m.Phi_))


def test_grid_search_parts_missing_a_class_still_train():
    """A random part without one of the classes does not make the search fail."""
    rng = np.random.default_rng(3)
    X = 0.4 * rng.normal(size=(30, 2))
    y = np.r_[np.zeros(28, dtype=int), [1, 1]]  # most parts have class 0 only
    gs = dp.PrivateGridSearch(dp.PrivateLogisticRegression(), {"lam": [0.01, 0.1, 1.0]},
                              epsilon=1.0, random_state=0).fit(X, y)
    assert list(gs.classes_) == [0, 1]


def test_seeded_release_is_marked_not_private():
    X, y = _pair()[0]
    seeded = dp.PrivateLogisticRegression(epsilon=1.0, random_state=0).fit(X, y)
    fresh = dp.PrivateLogisticRegression(epsilon=1.0).fit(X, y)
    assert "noise seeded by the caller" in str(seeded.certificate_)
    assert "noise seeded by the caller" not in str(fresh.certificate_)


def test_diagnostics_only_through_the_explicit_channel():
    X, y = _pair()[0]
    with collect_diagnostics() as diag:
        m = dp.PrivateLogisticRegression(epsilon=1.0, mechanism="output",
                                         random_state=0).fit(X, y)
    assert len(diag) == 1 and diag[0].residual <= 1e-6
    blob = pickle.dumps(m)
    assert diag[0].x.tobytes() not in blob  # the non-private minimizer is nowhere in the model
    assert "solved to optimality residual <= 1e-06" in str(m.certificate_)
    assert "uncovered distance" in str(m.certificate_)


# ------------------------------------------------- neighbouring data: all but the noise
def _set(est, **params):
    """Set parameters on a search, an estimator, or a pipeline's last (private) step."""
    if isinstance(est, Pipeline):
        name = est.steps[-1][0]
        params = {f"{name}__{k}": v for k, v in params.items()}
    return est.set_params(**params)


def _lr(**kw):
    return dp.PrivateLogisticRegression(**{"epsilon": 1.0, "lam": 0.05, **kw})


#: Every estimator family and release path: name -> unfitted estimator (classes set per case).
NEIGHBOUR_ESTIMATORS = {
    **dict(LINEAR),
    "logreg-gaussian-objective": lambda: _lr(mechanism="gaussian_objective", delta=1e-5),
    "logreg-gaussian-output": lambda: _lr(mechanism="gaussian_output", delta=1e-5),
    "centroid-pure": lambda: dp.PrivateGaussianCentroid(epsilon=1.0),
    "centroid-gaussian": lambda: dp.PrivateGaussianCentroid(epsilon=1.0, delta=1e-5),
    "gaussian-nb-pure": lambda: dp.PrivateGaussianNB(epsilon=1.0),
    "gaussian-nb-gaussian": lambda: dp.PrivateGaussianNB(epsilon=1.0, delta=1e-5),
    "front-door-pure": lambda: dp.PrivateClassifier(epsilon=1.0),
    "front-door-delta": lambda: dp.PrivateClassifier(epsilon=1.0, delta=1e-5),
    **{name: (lambda kw=kw: dp.PrivateLargeMarginGaussian(epsilon=2.0, **kw))
       for name, kw in LARGE_MARGIN},
    "lmg-pairwise": lambda: dp.PrivateLargeMarginGaussian(epsilon=2.0, loss="pairwise",
                                                          solver="native"),
    "lmg-gaussian-objective": lambda: dp.PrivateLargeMarginGaussian(
        epsilon=2.0, delta=1e-5, mechanism="gaussian_objective", solver="native"),
    "lmg-centroid": lambda: dp.PrivateLargeMarginGaussian(epsilon=2.0, delta=1e-5,
                                                          mechanism="centroid"),
    "grid-search": lambda: dp.PrivateGridSearch(_lr(), {"lam": [0.01, 0.1]}, epsilon=1.0),
    # one candidate: which run wins is a private selection, and the winner's certificate is
    # part of the search's (identical here because every run has the same candidate)
    "random-search": lambda: PrivateRandomSearch(_lr(), {"lam": [0.05]}, epsilon=1.0,
                                                 mean_runs=2.0),
}


def _neighbours(case, n=90, d=3, seed=0):
    """(D, D′, classes): the last record of D replaced; D has the labels {0, 1} only.

    D sits on edges one record can cross: a fifth of its rows have norm above
    data_norm = 1 (so a rule "warn when more than 20% are clipped" would fire on
    D′ only in the huge-norm case), and it has no record of label 2.
    """
    rng = np.random.default_rng(seed)
    X = 0.4 * rng.normal(size=(n, d))
    X[: n // 5] *= 2.0 / np.linalg.norm(X[: n // 5], axis=1, keepdims=True)  # norm 2 > 1
    y = np.arange(n) % 2
    X2, y2 = X.copy(), y.copy()
    X2[-1] = -0.5 * X[-1]
    if case == "new-label":  # a label of the public set that no record of D has
        y2[-1], classes = 2, [0, 1, 2]
    elif case == "outside":  # a label outside the public set
        y2[-1], classes = 9, [0, 1]
    else:  # "huge-norm": far above data_norm = 1 (clipped to it), the same label
        X2[-1] = 1e6 * np.sign(X[-1] + 1e-9)
        classes = [0, 1]
    return (X, y), (X2, y2), classes


def _observe(est, data):
    """Everything reachable from a fit on ``data``: state, texts, warnings, exception."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            est.fit(*data)
            error = None
        except Exception as exc:  # compared between D and D′, then required to be None
            error = (type(exc).__name__, str(exc))
    seen = [(w.category.__name__, str(w.message)) for w in caught]
    out = {"error": error, "warnings": seen, "repr": repr(est)}
    if error is None:
        model = est.steps[-1][1] if isinstance(est, Pipeline) else est
        steps = [vars(s) for _, s in est.steps[:-1]] if isinstance(est, Pipeline) else []
        out["state"] = pickle.dumps((_state(model), steps))
        out["released shapes"] = {k: np.shape(v) for k, v in vars(model).items()
                                  if k in RELEASED and isinstance(v, np.ndarray)}
    return out


@pytest.mark.slow
@pytest.mark.parametrize("case", ["new-label", "outside", "huge-norm"])
@pytest.mark.parametrize("name", list(NEIGHBOUR_ESTIMATORS))
def test_neighbouring_data_sets_differ_only_in_the_noised_parameters(name, case):
    D, Dp, classes = _neighbours(case)
    obs = []
    for data in (D, Dp):  # a label outside classes=: its row zeroed, not the fit refused
        est = _set(NEIGHBOUR_ESTIMATORS[name](), classes=classes, random_state=7,
                   **({"unknown_labels": "ignore"} if case == "outside" else {}))
        obs.append(_observe(est, data))
    a, b = obs
    assert a["error"] is None, a["error"]
    for key in a:
        assert a[key] == b[key], key
    assert not any(cat == "PrivacyLeakWarning" for cat, _ in a["warnings"])


@pytest.mark.parametrize("name", ["logreg-objective", "noisy-gd", "centroid-pure", "lmg-native",
                                  "lmg-centroid", "grid-search", "rff-pipeline"])
def test_a_label_set_read_from_the_data_warns_the_same_on_neighbours(name):
    """classes=None: D has labels {0, 1}, D′ also a 2; the models may differ (the leak), the
    warning may not, and it is issued once per fit."""
    D, Dp, _ = _neighbours("new-label")
    a, b = (_observe(_set(NEIGHBOUR_ESTIMATORS[name](), random_state=7), data)
            for data in (D, Dp))
    assert a["error"] is None and b["error"] is None
    leak = [[w for w in o["warnings"] if w[0] == "PrivacyLeakWarning"] for o in (a, b)]
    assert len(leak[0]) == 1 and leak[0] == leak[1]
    assert "read from the data" in leak[0][0][1] and "classes=" in leak[0][0][1]
    assert not any(ch.isdigit() for ch in leak[0][0][1].split("e.g.")[0])  # no data facts


# ------------------------------------------------------------- label sets
def _leak_warnings(fit):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit()
    return [w for w in caught if issubclass(w.category, dp.PrivacyLeakWarning)]


def test_label_set_warning_once_per_fit_including_fits_made_of_fits():
    D, _, _ = _neighbours("outside")
    X, y = D
    y3 = np.arange(len(y)) % 3  # one-vs-rest: three binary fits inside one fit
    fits = [
        lambda: _lr(random_state=0).fit(X, y),
        lambda: _lr(random_state=0).fit(X, y3),
        lambda: dp.NoisyGradientDescent(epsilon=1.0, delta=1e-5, steps=5,
                                        random_state=0).fit(X, y3),
        lambda: dp.PrivateLargeMarginGaussian(epsilon=1.0, delta=1e-5, mechanism="centroid",
                                              random_state=0).fit(X, y3),
        lambda: dp.PrivateGridSearch(_lr(), {"lam": [0.01, 0.1]}, epsilon=1.0,
                                     random_state=0).fit(X, y3),
        lambda: PrivateRandomSearch(_lr(), {"lam": [0.05]}, epsilon=1.0, mean_runs=3.0,
                                    random_state=0).fit(X, y),
        lambda: dp.epsilon_sweep(_lr(), X, y3, [0.5, 1.0], runs=2, random_state=0),
        lambda: dp.epsilon_sweep(_lr(lam="auto"), X, y, [0.5, 1.0], random_state=0),
    ]
    for fit in fits:
        assert len(_leak_warnings(fit)) == 1
    m = _lr(random_state=0)
    for _ in range(2):  # each fit warns again: the warning is per fit, not per process
        assert len(_leak_warnings(lambda: m.fit(X, y))) == 1


def test_no_label_set_warning_when_the_set_is_public():
    import pandas as pd

    from dpconvex.datasets import SKLEARN_CLASSES, load_sklearn

    X, y = load_sklearn("wine")
    assert isinstance(y, LabelArray) and y.classes.tolist() == [0, 1, 2]
    part = y[y != 2]  # a slice keeps the public set: still a three-class model
    assert part.classes.tolist() == [0, 1, 2]
    assert not _leak_warnings(lambda: _lr(classes=[0, 1, 2], random_state=0).fit(X, y))
    m = _lr(random_state=0)
    assert not _leak_warnings(lambda: m.fit(X[y != 2], part))
    assert m.classes_.tolist() == [0, 1, 2] and type(m.classes_) is np.ndarray
    assert "declared with y" in str(m.certificate_)
    cat = pd.Series(pd.Categorical(np.asarray(part), categories=[0, 1, 2]))
    c = dp.PrivateGaussianCentroid(epsilon=1.0, random_state=0)
    assert not _leak_warnings(lambda: c.fit(X[y != 2], cat))
    assert c.classes_.tolist() == [0, 1, 2]
    for name, classes in SKLEARN_CLASSES.items():  # the documented sets, never np.unique(y)
        assert load_sklearn(name)[1][:3].classes.tolist() == list(classes)
    assert _leak_warnings(lambda: _lr(random_state=0).fit(X, np.asarray(y)))  # set dropped


def test_label_array_is_an_array_that_keeps_its_public_set():
    y = LabelArray(np.array([0, 1, 1, 0]), classes=[0, 1])
    assert y[1:].classes.tolist() == [0, 1] and y[[0, 2]].classes.tolist() == [0, 1]
    assert type(y == 1) is np.ndarray and type(y + 1) is np.ndarray
    assert type(y.sum()) is np.int64 and int(y.sum()) == 2
    z = pickle.loads(pickle.dumps(y))
    assert type(z) is LabelArray and z.classes.tolist() == [0, 1]
    assert y.astype(str).classes is None  # numbers -> strings: the set does not describe y
    assert declared_classes(np.asarray(y)) is None


@pytest.mark.parametrize("bad", [[np.nan, 1], [None, 1], ["a", 1], [0, np.inf], [0.5, 1]])
def test_malformed_label_sets_are_refused_by_name(bad):
    X, y = _pair()[0]
    for make in (_lr, lambda **kw: dp.PrivateLargeMarginGaussian(solver="native", **kw),
                 lambda **kw: dp.PrivateGaussianCentroid(**kw),
                 lambda **kw: dp.PrivateGaussianNB(**kw)):
        with pytest.raises(dp.ParameterError, match="'classes' parameter of Private"):
            make(classes=bad, random_state=0).fit(X, y)
    pd = pytest.importorskip("pandas")
    with pytest.raises(dp.ParameterError, match="missing value"):
        _lr(classes=[pd.NA, 1], random_state=0).fit(X, y)


def test_labels_of_another_type_than_the_label_set_are_refused():
    """str labels against classes=[0, 1] would all be outside the set: a named error instead."""
    X, y = _pair()[0]
    with pytest.raises(dp.DataValidationError, match="labels in y are of type str"):
        _lr(classes=[0, 1]).fit(X, y.astype(str))
    with pytest.raises(dp.DataValidationError, match="labels in y are of type number"):
        _lr(classes=["0", "1"]).fit(X, y)


def test_classes_must_agree_with_a_declared_set():
    X, y = _pair()[0]
    with pytest.raises(dp.ParameterError, match="declares the label set"):
        _lr(classes=[0, 1], random_state=0).fit(X, LabelArray(y, classes=[0, 1, 2]))
    m = _lr(classes=[1, 0], random_state=0).fit(X, LabelArray(y, classes=[0, 1]))
    assert m.classes_.tolist() == [1, 0]  # the parameter's order wins


# ------------------------------------------------------------- diagnostics, not warnings
def test_diagnostics_carry_the_clipped_count_and_the_outside_labels():
    X = 0.1 * np.random.default_rng(5).normal(size=(60, 3))  # every row far inside the bound
    X[:4] *= 100.0  # four rows above data_norm = 1
    y = np.arange(60) % 2
    y[-3:] = [7, 8, 7]  # three other records outside classes=[0, 1]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with collect_diagnostics() as diag:
            _lr(classes=[0, 1], random_state=0, unknown_labels="ignore").fit(X, y)
    assert not [w for w in caught if "%" in str(w.message) or "outside" in str(w.message)]
    clipped, outside = diag.note("scaled down"), diag.note("outside")
    assert (clipped.count, clipped.n) == (4, 60)
    assert (outside.count, outside.n, outside.values) == (3, 60, (7, 8))
    assert len(diag) == 1 and diag[-1].residual <= 1e-6  # the one solve, with its residual
    for make in (lambda: dp.PrivateGaussianCentroid(epsilon=1.0, classes=[0, 1], random_state=0),
                 lambda: dp.NoisyGradientDescent(epsilon=1.0, delta=1e-5, steps=5,
                                                 classes=[0, 1], random_state=0),
                 lambda: dp.PrivateLargeMarginGaussian(epsilon=1.0, classes=[0, 1],
                                                       solver="native", random_state=0)):
        with collect_diagnostics() as diag:
            make().set_params(unknown_labels="ignore").fit(X, y)
        assert diag.note("scaled down").count == 4 and diag.note("outside").count == 3
    record_diagnostic("nobody", "nothing")  # no collector open: a no-op


def test_nan_refusal_counts_nothing():
    X, y = _pair(n=40)[0]
    messages = set()
    for k in (1, 3):
        Xn = X.copy()
        Xn[:k, 0] = np.nan
        with pytest.raises(dp.DataValidationError, match="NaN or infinite") as info:
            _lr(classes=[0, 1]).fit(Xn, y)
        messages.add(str(info.value))
    assert len(messages) == 1  # the same text whatever the number of bad entries
