"""A fitted model releases its noised parameters and public facts only (DESIGN.md §4).

The main tests fit every public estimator (every class ``dpconvex`` exports that
has ``fit``, enumerated: one without a configuration fails the suite) × its
mechanisms on neighbouring data sets D and D′ (same n, one record replaced)
with the SAME seed and check that everything reachable except the released
parameters is identical: the whole estimator's pickle with its released attributes
masked (``_masked_pickle``), the certificate's text, ``to_dict`` and pickle, the
repr, and what the fit shows at ``verbosity(1)`` (``_shown``): the warnings issued
(category, text, attributes, file and line), the ``logging`` records of every
logger (every field), stdout and stderr at the file descriptors (the progress
lines' elapsed times aside) and the exceptions. Whatever
differs besides the parameters would be an un-noised function of the data (e.g.
a solver's iteration count, a label set read from y, a warning that counts
clipped rows or says that a label was clipped). For a
classifier the replaced record has the other label, a label the other records
lack (declared in ``classes=``), a label outside ``classes=`` (with
``unknown_labels="ignore"``; the default refuses such a fit), or a huge norm;
for a regressor a label moved from one end of ``label_range`` to the other, a
label outside it, or a huge norm; for a front door with its safeguard, the
record is one of the validation part. With ``classes=None`` the label set is
read from the data: then the models may differ (that is the leak the warning
names), but the warning itself is the same on both. The other public paths that read
data (``certify``, ``plan_for``, ``prepare``/``fit_prepared``, ``epsilon_sweep``, the private
bounds, ``release`` of a template) and the options these fits do not take run through the
same pairs and the same ``_shown`` in ``test_neighbour_paths.py``.
"""

from __future__ import annotations

import contextlib
import functools
import io
import logging
import os
import pickle
import re
import sys
import tempfile
import warnings

import numpy as np
import pytest
from sklearn.base import is_regressor
from sklearn.pipeline import Pipeline, make_pipeline

import dpconvex as dp
from dpconvex.data.validation import INFERRED, LabelArray, declared_classes
from dpconvex.errors import collect_diagnostics, record_diagnostic
from dpconvex.estimators.base import FitContext
from dpconvex.estimators.selection.random import PrivateRandomSearch
from dpconvex.objectives.losses import HuberHinge
from dpconvex.privacy.certificate import LabelSource

#: Attributes that ARE the release (noised parameters, or a private selection).
RELEASED = {"coef_", "intercept_", "Phi_", "centers_", "means_", "counts_", "best_index_",
            "best_params_", "best_estimator_", "certificate_",
            "class_prior_", "within_class_var_",  # these two: functions of the class sums
            "theta_", "var_", "class_count_",  # naive Bayes: functions of the class moments
            # a front door's released constant: the class its safeguard's private selection
            # chose, or the private (Laplace) mean of the labels mapped back to their units (and
            # the same value as the parameter of the constant estimator, for get_params and clone)
            "constant_", "constant"}


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


#: Of the released attributes, those compared as the rest is: a search's chosen model (its
#: state, its own released parameters masked) and the certificate (every field and attribute).
COMPARED_WHOLE = {"best_estimator_", "certificate_"}


def _masked(value):
    """What a released value shows of itself: its type, shape and dtype, and a dict's keys."""
    shape = np.shape(value) if isinstance(value, (np.ndarray, np.generic)) else None
    dtype = str(value.dtype) if isinstance(value, (np.ndarray, np.generic)) else None
    keys = sorted(map(repr, value)) if isinstance(value, dict) else None
    return ("released", type(value).__name__, shape, dtype, keys)


class _MaskingPickler(pickle.Pickler):
    """A pickler reducing an estimator (any depth) as its own ``__reduce_ex__`` reduces it —
    what its ``__getstate__`` or ``__reduce__`` adds included —, its released attributes by
    :func:`_masked`; everything else as pickle does."""

    def reducer_override(self, obj):
        if isinstance(obj, type) or not (hasattr(obj, "get_params") and hasattr(obj, "__dict__")):
            return NotImplemented
        reduced = list(obj.__reduce_ex__(pickle.DEFAULT_PROTOCOL))
        if len(reduced) > 2 and isinstance(reduced[2], dict):
            reduced[2] = {k: _masked(v) if k in RELEASED - COMPARED_WHOLE else v
                          for k, v in reduced[2].items()}
        return tuple(reduced)


def _masked_pickle(value):
    """The pickle of ``value`` with every estimator's released attributes masked."""
    buffer = io.BytesIO()
    _MaskingPickler(buffer, pickle.DEFAULT_PROTOCOL).dump(value)
    return buffer.getvalue()


def _state(est):
    """Everything a pickled fitted model holds, except the released parameters: the whole
    estimator pickled (``_masked_pickle``) and its certificate's text, ``to_dict`` and pickle."""
    cert = est.certificate_
    return _masked_pickle(est), str(cert), cert.to_dict(), pickle.dumps(cert)


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
    assert not hasattr(a, "solve_result_")
    # an iteration count only where it is a public fact (noisy GD runs its T steps, all of them)
    assert getattr(a, "n_iter_", None) == getattr(b, "n_iter_", None) == getattr(a, "steps_", None)
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
    assert lin.certificate_.label_source == LabelSource("parameter", ("no", "yes"), "raise")
    inferred = dp.PrivateLogisticRegression(epsilon=1.0, random_state=0).fit(X, (X[:, 0] > 0))
    assert inferred.certificate_.label_source == INFERRED and not INFERRED.public


def test_one_vs_rest_states_its_label_set_once_with_its_source():
    """The binary models' labels {0, 1} map the whole model's set: their certificates state no
    set of their own (a set "given by the caller" there would be false for classes=None)."""
    X, y = _pair(C=3)[0]

    def label_lines(certificate):
        return [line for line in str(certificate).splitlines()
                if line.lstrip("- ").startswith("label set")]

    for classes, source in ((None, "inferred"), ([0, 1, 2], "parameter")):
        est = dp.PrivateLogisticRegression(epsilon=3.0, classes=classes, random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", dp.PrivacyLeakWarning)
            dry, fitted = est.certify(X, y), est.fit(X, y).certificate_
        for certificate in (dry, fitted):
            assert certificate.label_source.source == source
            assert [part.label_source for part in certificate.parts] == [None] * 3
            assert len(label_lines(certificate)) == 1
    public = dp.PrivateLogisticRegression(classes=[0, 1, 2]).certify(n=90, n_features=4)
    assert [part.label_source for part in public.parts] == [None] * 3


def _refit_cases():
    import pandas as pd

    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (200, 3))
    y = np.clip(5 + 4 * X[:, 0], 0, 10)
    schema = dp.PublicSchema({c: dp.Numeric(-1.0, 1.0) for c in "abc"})
    frame = pd.DataFrame(X, columns=list("abc"))
    regressors = {name: (getattr(dp, name), {"label_range": dp.PrivateBounds(0.5)},
                         {"label_range": (0, 10)}, (X, y), (X[:100], y[:100]))
                  for name in ("PrivateLinearRegressor", "PrivateLinearRegression",
                               "PrivateRegressor")}
    return {**regressors,
            "PrivateClassifier": (dp.PrivateClassifier, {"schema": schema, "classes": [0, 1]},
                                  {"schema": None}, (frame, y > 5), (X, y > 5))}


@pytest.mark.parametrize("name", list(_refit_cases()))
def test_a_refit_keeps_nothing_of_the_earlier_fit(name):
    """A fit starts from no fitted state: an attribute the earlier fit set (a label range
    released from other data, an encoder) is not kept beside the new model."""
    make, first, second, data, other = _refit_cases()[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = make(epsilon=3.0, random_state=0, **first).fit(*data)
        earlier = set(vars(est))
        est.set_params(**second).fit(*other)
        fresh = make(epsilon=3.0, random_state=0, **{**first, **second}).fit(*other)
    assert earlier - set(vars(fresh))  # the case has an attribute to lose
    assert set(vars(est)) == set(vars(fresh))
    certificate = est.certificate_
    with pytest.raises(dp.ParameterError):  # a refused refit: the model as it was
        est.set_params(epsilon=-1.0).fit(*other)
    assert est.certificate_ is certificate and set(vars(est)) == set(vars(fresh))


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
    assert seeded.certificate_.seeded and not fresh.certificate_.seeded


def test_diagnostics_only_through_the_explicit_channel():
    X, y = _pair()[0]
    with collect_diagnostics() as diag:
        m = dp.PrivateLogisticRegression(epsilon=1.0, mechanism="output",
                                         random_state=0).fit(X, y)
    assert len(diag) == 1 and diag[0].residual <= 1e-6
    blob = pickle.dumps(m)
    assert diag[0].x.tobytes() not in blob  # the non-private minimizer is nowhere in the model
    solve = {c.name: c for c in m.certificate_.conditions}["accurate solve"]
    assert solve.holds and solve.how == "residual computed by dpconvex"
    assert m.certificate_.solver["solved to residual <= tolerance"] == "yes"


def test_a_template_release_holds_the_noised_parameters_and_public_facts_only():
    from dataclasses import fields
    from struct import pack

    from dpconvex.objectives.losses import Logistic
    from dpconvex.privacy.mechanisms.base import Calibration
    from dpconvex.privacy.release import Release
    from dpconvex.templates import LinearERMTemplate

    X, y = _pair()[0]
    X = X / np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    template = LinearERMTemplate(Logistic(), 0.1, 1.0, X, np.where(y == 1, 1.0, -1.0))
    with collect_diagnostics() as diag:  # output perturbation: the solve's point is unnoised
        rel = dp.release(template, "output", dp.Budget(1.0), rng=0)
    assert [f.name for f in fields(Release)] == ["theta", "certificate", "calibration"]
    assert isinstance(rel.certificate, dp.Certificate)
    assert isinstance(rel.calibration, Calibration)
    solve = diag[-1]
    blob = pickle.dumps(rel)
    assert solve.x.tobytes() not in blob  # the unnoised minimizer is nowhere in the release
    for value in (solve.objective, solve.residual):  # pickle's floats: 8 bytes, big-endian
        assert pack(">d", value) not in blob
    assert repr(solve.x) not in repr(rel)


# ------------------------------------------------- neighbouring data: all but the noise
def _set(est, **params):
    """Set parameters on a search, an estimator, or a pipeline's last (private) step."""
    if isinstance(est, Pipeline):
        name = est.steps[-1][0]
        params = {f"{name}__{k}": v for k, v in params.items()}
    return est.set_params(**params)


def _lr(**kw):
    return dp.PrivateLogisticRegression(**{"epsilon": 1.0, "lam": 0.05, **kw})


def _nonnegative(w):
    """A public constraint on the coefficients (one function: the same repr on both fits)."""
    return [w >= 0]


#: The labels' public range in the regression cases.
LABEL_RANGE = (0.0, 10.0)

#: Three numeric columns read by position; their ranges hold every row of norm 2, and the
#: row of norm 1e6 is clipped to them (a per-record map of the encoder).
SCHEMA = dp.PublicSchema({"a": dp.Numeric(-2.0, 2.0), "b": dp.Numeric(-2.0, 2.0),
                          "c": dp.Numeric(-2.0, 2.0)})


def _reg(cls, **kw):
    return cls(**{"epsilon": 1.0, "label_range": LABEL_RANGE, **kw})


#: Every public estimator and release path: name -> unfitted estimator (a classifier's label
#: set is set per case). The cases follow from the estimator (sklearn.base.is_regressor).
#: The two public transformers release nothing by themselves (RandomFourierFeatures reads
#: the shape of X only and draws its map from its own seed; PublicEncoder maps each record by
#: the public schema): they are fitted ahead of a private estimator in a pipeline, whose
#: steps' fitted state is compared too.
NEIGHBOUR_ESTIMATORS = {
    **dict(LINEAR),
    "logreg-gaussian-objective": lambda: _lr(mechanism="gaussian_objective", delta=1e-5),
    "logreg-gaussian-output": lambda: _lr(mechanism="gaussian_output", delta=1e-5),
    "centroid-pure": lambda: dp.PrivateGaussianCentroid(epsilon=1.0),
    "centroid-gaussian": lambda: dp.PrivateGaussianCentroid(epsilon=1.0, delta=1e-5),
    "gaussian-nb-pure": lambda: dp.PrivateGaussianNB(epsilon=1.0),
    "gaussian-nb-gaussian": lambda: dp.PrivateGaussianNB(epsilon=1.0, delta=1e-5),
    "front-door-pure": lambda: dp.PrivateClassifier(epsilon=1.0),  # guarded; mostly the model
    "front-door-delta": lambda: dp.PrivateClassifier(epsilon=1.0, delta=1e-5),
    "front-door-unguarded": lambda: dp.PrivateClassifier(epsilon=1.0, safeguard=False),
    # a weak learner guarded: the selection often releases a constant class
    "front-door-weak": lambda: dp.PrivateClassifier(epsilon=0.1, safeguard=True),
    "front-door-schema": lambda: dp.PrivateClassifier(epsilon=1.0, schema=SCHEMA,
                                                      safeguard=True),  # naive Bayes guarded
    "encoder-pipeline": lambda: make_pipeline(dp.PublicEncoder(SCHEMA), _lr()),
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
    # the regressors: labels clipped to LABEL_RANGE and mapped onto [-1, 1]
    "reg-huber-objective": lambda: _reg(dp.PrivateLinearRegressor, lam=0.05),
    "reg-huber-output": lambda: _reg(dp.PrivateLinearRegressor, lam=0.05, mechanism="output"),
    "reg-pinball-gaussian-objective": lambda: _reg(
        dp.PrivateLinearRegressor, loss="pinball", lam=0.05, delta=1e-5,
        mechanism="gaussian_objective"),
    "reg-huber-gaussian-output": lambda: _reg(dp.PrivateLinearRegressor, lam=0.05, delta=1e-5,
                                              mechanism="gaussian_output"),
    "reg-constrained": lambda: _reg(dp.PrivateLinearRegressor, lam=0.05,
                                    constraints=_nonnegative),
    "reg-private-range": lambda: _reg(dp.PrivateLinearRegressor, lam=0.05,
                                      label_range=dp.PrivateBounds(0.5)),
    "reg-huber": lambda: _reg(dp.PrivateHuberRegressor),
    "reg-quantile": lambda: _reg(dp.PrivateQuantileRegressor, quantile=0.8),
    "reg-ssp": lambda: _reg(dp.PrivateLinearRegression),
    "reg-ssp-gaussian": lambda: _reg(dp.PrivateLinearRegression, delta=1e-5),
    "reg-ssp-fixed-lam": lambda: _reg(dp.PrivateLinearRegression, lam=0.1),
    "reg-ssp-private-range": lambda: _reg(dp.PrivateLinearRegression,
                                          label_range=dp.PrivateBounds(0.5)),
    "reg-front-door": lambda: _reg(dp.PrivateRegressor),  # guarded; mostly the private mean
    "reg-front-door-model": lambda: _reg(dp.PrivateRegressor, epsilon=4.0),  # mostly the model
    "reg-front-door-delta": lambda: _reg(dp.PrivateRegressor, delta=1e-5),
    "reg-front-door-unguarded": lambda: _reg(dp.PrivateRegressor, safeguard=False),
    "reg-front-door-constant": lambda: _reg(dp.PrivateRegressor, epsilon=0.5),  # by the rule
    "reg-front-door-private-range": lambda: _reg(dp.PrivateRegressor,
                                                 label_range=dp.PrivateBounds(0.5)),
    "reg-front-door-schema": lambda: _reg(dp.PrivateRegressor, schema=SCHEMA),
    "reg-encoder-pipeline": lambda: make_pipeline(dp.PublicEncoder(SCHEMA),
                                                  _reg(dp.PrivateHuberRegressor)),
}

#: The configurations whose fit runs a front door's safeguard (checked: the fit must split).
GUARDED = {"front-door-pure", "front-door-delta", "front-door-weak", "front-door-schema",
           "reg-front-door", "reg-front-door-model", "reg-front-door-delta",
           "reg-front-door-schema"}

CLASSIFIER_CASES = ("new-label", "relabel", "outside", "huge-norm", "relabel-huge")
REGRESSOR_CASES = ("range-ends", "outside-range", "huge-norm")


def _public_estimators():
    """Every class ``dpconvex`` exports that has ``fit``."""
    return sorted(name for name in dp.__all__
                  if isinstance(obj := getattr(dp, name), type) and hasattr(obj, "fit"))


def _classes_fitted(est):
    """The classes a configuration fits: the estimator, or every step of a pipeline."""
    if isinstance(est, Pipeline):
        return {type(step).__name__ for _, step in est.steps}
    return {type(est).__name__}


def _cases(name):
    """The neighbour cases of a configuration; "validation" (a record of the validation part)
    where a safeguard sets one aside: the regressor's (the classifier's fits every row)."""
    regressor = is_regressor(NEIGHBOUR_ESTIMATORS[name]())
    cases = REGRESSOR_CASES if regressor else CLASSIFIER_CASES
    return [*cases, *(["validation"] if name in GUARDED and regressor else [])]


NEIGHBOUR_CASES = [(name, case) for name in NEIGHBOUR_ESTIMATORS for case in _cases(name)]


def _rows(n, d, seed):
    """A fifth of the rows have norm 2 > data_norm = 1, the rest norm about 0.4·√d."""
    rng = np.random.default_rng(seed)
    X = 0.4 * rng.normal(size=(n, d))
    X[: n // 5] *= 2.0 / np.linalg.norm(X[: n // 5], axis=1, keepdims=True)  # norm 2 > 1
    return rng, X


def _classifier_neighbours(case, n=90, d=3, seed=0, index=-1):
    """(D, D′, parameters): record ``index`` of D replaced; D has the labels {0, 1} only.

    D sits on edges one record can cross: a fifth of its rows have norm above
    data_norm = 1 (so a rule "warn when more than 20% are clipped" would fire on
    D′ only in the huge-norm case), and it has no record of label 2.
    """
    _, X = _rows(n, d, seed)
    y = (X[:, 0] > 0).astype(int)  # a signal: the front door's safeguard can release a model
    X2, y2 = X.copy(), y.copy()
    X2[index] = -0.5 * X[index]
    huge = 1e6 * np.sign(X[index] + 1e-9)
    params = {"classes": [0, 1]}
    if case == "new-label":  # a label of the public set that no record of D has
        y2[index], params = 2, {"classes": [0, 1, 2]}
    elif case == "relabel":  # the label moved from one end of the set to the other
        y2[index] = 1 - y[index]
    elif case == "outside":  # a label outside the public set: its row zeroed, not refused
        y2[index], params = 9, {"classes": [0, 1], "unknown_labels": "ignore"}
    elif case == "huge-norm":  # far above data_norm = 1 (clipped to it), the same label
        X2[index] = huge
    else:  # "relabel-huge": relabelled and far above data_norm = 1
        y2[index], X2[index] = 1 - y[index], huge
    return (X, y), (X2, y2), params


def _regressor_neighbours(case, n=120, d=3, seed=0, index=-1):
    """(D, D′, parameters): record ``index`` of D replaced; label_range = (0, 10).

    Every label of D lies inside the range (so a rule "warn when a label is clipped"
    would fire on D′ only in the outside-range case), and a fifth of its rows have
    norm above data_norm = 1.
    """
    rng, X = _rows(n, d, seed)
    y = np.clip(5.0 + 4.0 * X[:, 0] + rng.normal(size=n), 0.5, 9.5)
    huge = 1e6 * np.sign(X[index] + 1e-9)
    y[index] = {"range-ends": LABEL_RANGE[0]}.get(case, 9.5)
    X2, y2 = X.copy(), y.copy()
    X2[index] = -0.5 * X[index]
    if case == "range-ends":  # the label moved from one end of the range to the other
        y2[index] = LABEL_RANGE[1]
    elif case == "outside-range":  # 9.5 -> 11: clipped to the range
        y2[index] = 11.0
    elif case == "huge-norm":  # far above data_norm = 1 (clipped to it), the same label
        X2[index] = huge
    else:  # "validation": a record of the safeguard's validation part, outside and huge
        y2[index], X2[index] = 11.0, huge
    return (X, y), (X2, y2), {}


#: A log record's fields that tell when and where it was made, not what it says.
_RECORD_CLOCK = {"created", "msecs", "relativeCreated", "thread", "threadName", "process",
                 "processName", "taskName"}


def _no_address(text):
    return re.sub(r" at 0x[0-9a-fA-F]+", "", text)


class _Records(logging.Handler):
    """Every logging record emitted while it is attached: its logger, level, message and every
    other field (the ``extra`` ones too) but the clock's and the thread's (``_RECORD_CLOCK``)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.seen: list[tuple] = []

    def emit(self, record: logging.LogRecord) -> None:
        fields = sorted((k, _no_address(repr(v))) for k, v in vars(record).items()
                        if k not in _RECORD_CLOCK and k != "exc_info")
        error = record.exc_info[1] if record.exc_info else None
        self.seen.append((record.name, record.levelname, record.getMessage(),
                          _no_address(repr(error)), tuple(fields)))


@contextlib.contextmanager
def _log_records():
    """The records of every logger at every level: the root logger set to DEBUG while they
    are collected (a logger with a level of its own keeps it), the ``dpconvex`` ones too."""
    records, package, root = _Records(), logging.getLogger("dpconvex"), logging.getLogger()
    levels = package.level, root.level
    package.setLevel(logging.DEBUG)
    root.setLevel(logging.DEBUG)
    root.addHandler(records)  # the records propagate to it
    try:
        yield records.seen
    finally:
        root.removeHandler(records)
        package.setLevel(levels[0])
        root.setLevel(levels[1])


@contextlib.contextmanager
def _descriptors(*fds):
    """What is written to the file descriptors ``fds`` (1, 2: stdout, stderr) while it is
    open — by C code, a child process, ``os.write`` or ``sys.__stderr__`` —: a list filled,
    at its end, with the text written to each."""
    for stream in (sys.__stdout__, sys.__stderr__, sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()
    files = [tempfile.TemporaryFile() for _ in fds]
    saved = [os.dup(fd) for fd in fds]
    for fd, file in zip(fds, files, strict=True):
        os.dup2(file.fileno(), fd)
    written: list[str] = []
    try:
        yield written
    finally:
        for stream in (sys.__stdout__, sys.__stderr__):
            if stream is not None:
                stream.flush()
        for fd, copy in zip(fds, saved, strict=True):
            os.dup2(copy, fd)
            os.close(copy)
        for file in files:
            file.seek(0)
            written.append(file.read().decode(errors="replace"))
            file.close()


def _warning(w):
    """A warning as shown, and all it carries: its category, text, the message object's
    attributes and arguments, and where it is attributed (file and line)."""
    message = w.message
    return (w.category.__name__, str(message),
            _no_address(repr(sorted(getattr(message, "__dict__", {}).items()))),
            _no_address(repr(getattr(message, "args", ()))), w.filename, w.lineno)


def _shown(call, verbose=0):
    """``call()`` at ``dp.verbosity(verbose)``: its value (None where it raised) and what it
    shows besides, each channel by name: the exception, the warnings (``_warning``), the log
    records (``_Records``), stdout and stderr, each written through ``sys`` or to its file
    descriptor (the progress lines' elapsed times aside)."""
    out, err = io.StringIO(), io.StringIO()
    value, error = None, None
    with (_descriptors(1, 2) as written, warnings.catch_warnings(record=True) as caught,
          _log_records() as records, contextlib.redirect_stdout(out),
          contextlib.redirect_stderr(err), dp.verbosity(verbose)):
        warnings.simplefilter("always")
        try:
            value = call()
        except Exception as exc:  # noqa: BLE001 - the exception is part of what is shown
            error = (type(exc).__name__, str(exc))
    stdout, stderr = out.getvalue() + written[0], err.getvalue() + written[1]
    return value, {"error": error,
                   "warnings": [_warning(w) for w in caught],
                   "log records": records, "stdout": stdout,
                   "stderr": re.sub(r"^\[dpconvex +[0-9.]+ s\]", "[dpconvex]", stderr,
                                    flags=re.MULTILINE)}


def _observe(est, data):
    """Everything reachable from a fit on ``data`` at ``dp.verbosity(1)`` (its progress lines):
    what the fit shows (``_shown``), the repr, and the state and released shapes."""
    _, out = _shown(lambda: est.fit(*data), verbose=1)
    out["repr"] = repr(est)
    if out["error"] is None:
        model = est.steps[-1][1] if isinstance(est, Pipeline) else est
        out["state"] = (_masked_pickle(est), _state(model))  # a pipeline's every step
        out["released shapes"] = {k: np.shape(v) for k, v in vars(model).items()
                                  if k in RELEASED and isinstance(v, np.ndarray)}
    return out


def _validation_row(name, neighbours):
    """A record of the safeguard's validation part: the mask the regressor's front door leaves
    out of its learner's fit (read from ``FitContext.inner``'s ``excluding``; the split does not
    depend on the data)."""
    masks = []
    inner = FitContext.inner

    def spy(context, noise, **kwargs):
        if kwargs.get("excluding") is not None:
            masks.append(np.asarray(kwargs["excluding"]).copy())
        return inner(context, noise, **kwargs)

    D, _, params = neighbours("validation")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(FitContext, "inner", spy)
        _observe(_set(NEIGHBOUR_ESTIMATORS[name](), random_state=7, **params), D)
    assert len(masks) == 1, f"{name}: the safeguard did not split the rows"
    return int(np.flatnonzero(masks[0])[-1])


def _check_neighbours(name, case):
    """Same-seed fits on D and D′ give the same everything but the noised parameters."""
    make = NEIGHBOUR_ESTIMATORS[name]
    neighbours = _regressor_neighbours if is_regressor(make()) else _classifier_neighbours
    index = _validation_row(name, neighbours) if case == "validation" else -1
    D, Dp, params = neighbours(case, index=index)
    a, b = (_observe(_set(make(), random_state=7, **params), data) for data in (D, Dp))
    assert a["error"] is None, a["error"]
    for key in a:
        assert a[key] == b[key], key
    assert not any(w[0] == "PrivacyLeakWarning" for w in a["warnings"])


def test_a_key_added_to_a_released_dict_is_caught():
    """A released dict is masked to its keys (``_masked``): a patch that adds a key naming the
    last label read to a search's ``best_params_`` is flagged."""
    inner, labels = dp.PrivateGridSearch.fit, []

    def fit(search, X, y, **kwargs):
        labels.append(repr(np.asarray(y, dtype=object)[-1]))
        inner(search, X, y, **kwargs)
        search.best_params_ = {**search.best_params_, f"label {labels[-1]}": None}
        return search

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dp.PrivateGridSearch, "fit", fit)
        with pytest.raises(AssertionError) as caught:
            _check_neighbours("grid-search", "relabel")
    assert len(set(labels)) == 2 and str(caught.value).startswith("state"), str(caught.value)


def _chain(error):
    """``error`` and every exception it holds as its cause or context."""
    while error is not None:
        yield error
        error = error.__cause__ or error.__context__


def test_a_refusal_keeps_no_value_in_its_context():
    """A refusal of the values names none of them, and neither does any exception it holds:
    a text value (NumPy's refusal quotes it) and a Dask chunk of another shape than its
    metadata declares (its shape goes to the diagnostics only)."""
    import dask
    import dask.array as da

    from dpconvex.privacy import bounds
    from dpconvex.privacy.budget import Budget

    values = np.array([1.0] * 99 + ["SECRETWORD"], dtype=object)
    with pytest.raises(dp.DataTypeError) as refused:
        bounds.release_range(values, Budget(1.0), rng=0)
    assert not any("SECRETWORD" in repr((e, vars(e))) for e in _chain(refused.value))
    chunk = dask.delayed(np.ones)((7, 2))
    X = da.from_delayed(chunk, shape=(5, 2), dtype=float)
    with dask.config.set(scheduler="synchronous"), pytest.raises(dp.DataValidationError) as refused:
        _lr(classes=[0, 1]).fit(X, np.zeros(5, dtype=int))
    held = [repr((e.args, vars(e))) for e in _chain(refused.value)]
    assert not any("7" in text for text in held), held


def test_every_public_estimator_has_neighbour_cases():
    """A class exported by dpconvex with fit is fitted by some neighbour configuration."""
    public = _public_estimators()
    assert {"PrivateClassifier", "PrivateRegressor", "PrivateLinearRegression",
            "PublicEncoder", "RandomFourierFeatures"} <= set(public)  # the enumeration works
    fitted = set().union(*(_classes_fitted(make()) for make in NEIGHBOUR_ESTIMATORS.values()))
    missing = [name for name in public if name not in fitted]
    assert not missing, f"add configurations of {missing} to NEIGHBOUR_ESTIMATORS"
    for name in GUARDED:
        assert isinstance(NEIGHBOUR_ESTIMATORS[name](), (dp.PrivateClassifier, dp.PrivateRegressor))


def _first_of_each_regressor():
    """The first configuration of each public regressor, and the front door unguarded."""
    first = {}
    for name, make in NEIGHBOUR_ESTIMATORS.items():
        est = make()
        if not isinstance(est, Pipeline) and is_regressor(est):
            first.setdefault(type(est).__name__, name)
    return [*first.values(), "reg-front-door-unguarded"]


@pytest.mark.parametrize("name", _first_of_each_regressor())
def test_a_label_outside_the_label_range_switches_nothing(name):
    """9.5 -> 11 with label_range=(0, 10): the label is clipped, and no message, certificate
    line or stored attribute says whether some label was (the count is in the diagnostics)."""
    _check_neighbours(name, "outside-range")
    D, Dp, _ = _regressor_neighbours("outside-range")
    with collect_diagnostics() as diag:
        _observe(_set(NEIGHBOUR_ESTIMATORS[name](), random_state=7), Dp)
    counts = [note.count for note in diag.notes if "labels clipped" in note.what]
    assert counts == [1]  # the fit's reading of the labels (a front door's learner: no second note)


def test_a_front_doors_learner_counts_the_rows_it_fits():
    """The regressor's safeguard's learner fits the fitting part, the classifier's every row:
    its rows note counts those rows, and the labels are noted once, by the front door (the
    regressor's learner's are clipped, with placeholders)."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (1000, 3))
    y = 3 * X[:, 0] + rng.normal(0, 0.5, 1000)
    with collect_diagnostics() as diag:
        dp.PrivateRegressor(epsilon=1.0, label_range=(-3, 3), safeguard=True, random_state=0).fit(X, y)
    rows = diag.note("scaled down")
    assert rows.n == 1000 - 200 and 0 < rows.count < rows.n  # validation part: max(100, min(200, 600))
    assert [note.owner for note in diag.notes if "labels clipped" in note.what] == ["PrivateRegressor.fit"]
    with collect_diagnostics() as diag:
        dp.PrivateClassifier(epsilon=1.0, classes=[0, 1], safeguard=True, random_state=0).fit(X, y > 0)
    assert diag.note("scaled down").n == 1000  # the classifier's learner: every row
    assert [note.owner for note in diag.notes if "outside classes" in note.what] == ["PrivateClassifier"]


@pytest.mark.slow
@pytest.mark.parametrize("name,case", NEIGHBOUR_CASES, ids=[f"{n}-{c}" for n, c in NEIGHBOUR_CASES])
def test_neighbouring_data_sets_differ_only_in_the_noised_parameters(name, case):
    _check_neighbours(name, case)


@pytest.mark.parametrize("name", ["logreg-objective", "noisy-gd", "centroid-pure", "lmg-native",
                                  "lmg-centroid", "grid-search", "rff-pipeline"])
def test_a_label_set_read_from_the_data_warns_the_same_on_neighbours(name):
    """classes=None: D has labels {0, 1}, D′ also a 2; the models may differ (the leak), the
    warning may not, and it is issued once per fit."""
    D, Dp, _ = _classifier_neighbours("new-label")
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
    D, _, _ = _classifier_neighbours("outside")
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


def test_a_dry_run_warns_of_a_label_set_read_from_y_as_its_fit_does():
    """certify(X, y) without classes=: one warning, by the estimator certified, on D and on D′
    (a third label: one-vs-rest dry runs, or another learner of the front door)."""
    D, _, _ = _classifier_neighbours("outside")
    X, y = D
    y3 = y.copy()
    y3[0] = 2
    for make in (_lr, lambda: dp.NoisyGradientDescent(epsilon=1.0, steps=5), dp.PrivateClassifier):
        names = [[str(w.message).split(":")[0] for w in _leak_warnings(functools.partial(
            lambda est, labels: est.certify(X, labels), make(), labels))] for labels in (y, y3)]
        assert names[0] == names[1] == [type(make()).__name__]


def test_unknown_dask_categories_and_a_pipeline_read_the_set_from_y_with_the_warning():
    """A Dask categorical whose categories Dask does not know declares no set: the fit warns and
    states the set as read from the data; inside a Pipeline the warning names the user's line."""
    import dask.dataframe as dd
    import pandas as pd
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import Normalizer

    D, _, _ = _classifier_neighbours("outside")
    X, y = D
    unknown = dd.from_pandas(pd.Series(y), npartitions=2).astype("category")
    assert len(_leak_warnings(lambda: _lr(random_state=0).fit(X, unknown))) == 1
    assert _lr(random_state=0).fit(X, unknown).certificate_.label_source.source == "inferred"
    caught = _leak_warnings(lambda: make_pipeline(Normalizer(), _lr(random_state=0)).fit(X, y))
    assert [w.filename for w in caught] == [__file__]
    from sklearn.model_selection import cross_val_score  # (its fits run through joblib)

    caught = _leak_warnings(lambda: cross_val_score(_lr(random_state=0), X, y, cv=2))
    assert caught and {w.filename for w in caught} == {__file__}


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
    assert m.certificate_.label_source.source == "declared"
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
    with pytest.raises(dp.ParameterError, match="y declares another label set, of 3 labels"):
        _lr(classes=[0, 1], random_state=0).fit(X, LabelArray(y, classes=[0, 1, 2]))
    m = _lr(classes=[1, 0], random_state=0).fit(X, LabelArray(y, classes=[0, 1]))
    assert m.classes_.tolist() == [0, 1]  # sorted, as scikit-learn's


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
    assert (clipped.count, clipped.n) == (4, 57)  # of the rows the fit reads (3 labels outside)
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
