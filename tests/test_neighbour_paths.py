"""Every public entry point that reads data × its options, on neighbouring data sets.

The neighbour test of ``test_release_hygiene`` fits every public estimator; this
table drives the other public paths that read data — ``certify(X, y)``,
``plan_for``, ``prepare`` then ``fit_prepared``, ``epsilon_sweep``,
``draft_schema``, ``release_range``, ``release_vocabulary`` and ``release`` of a
template (its fit and its dry run) — and the options whose code paths the
estimator table does not take (a kinked user loss smoothed at
``smoothing="auto"``, ``label_range=None``, ``fit_intercept=False``,
``row_norm="unit"``, ``feature_range``, a regressor with n·ε/p ≥ 100, which
releases no label centre, sparse and DataFrame input, Dask arrays and DataFrames
read by the synchronous scheduler), with a fit of a private label range
(``label_range=PrivateBounds``) and one by output perturbation beside them,
through one harness: the same call with the same seed on D and on D′ (one record
replaced, by the neighbour pairs of ``test_release_hygiene``), and on D and its
complement (every record changed, the public facts kept: ``COMPLEMENTS``),
comparing everything but the noised numbers: the class and public parts of the
returned value (a certificate's text, ``to_dict`` and pickle, its released
outputs masked; a plan's pickle and a release's calibration's — everything they
hold, not their repr —; a fitted estimator's whole pickle with its released
attributes masked to their type, shape, dtype and a dict's keys), and what the
call shows (``test_release_hygiene._shown``, which the estimator table uses
too): the warnings (category, text, the message's attributes, file and line),
the log records of every logger at every level (every field but the clock's),
stdout and stderr written through ``sys`` or to the file descriptors (also under
``verbosity(1)``, the elapsed times aside), and the exception raised. The mutant
tests prove the harness can fail: on every path, a patch that writes the replaced
record's label or value into a warning, a log record, stdout or stderr is
flagged, and so is one that hides it in a warning's attribute, another logger, a
log record's field, ``sys.__stderr__`` or the file descriptors, one that writes
the first record (flagged by the complement), and one that keeps it in a
certificate's attribute, an estimator's pickle or a plan's attribute that its
repr does not show.
"""

from __future__ import annotations

import copyreg
import io
import logging
import os
import pickle
import re
import sys
import warnings
from collections.abc import Callable
from types import MappingProxyType
from typing import Any

import cvxpy as cp
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from test_release_hygiene import (
    LABEL_RANGE,
    RELEASED,
    _classifier_neighbours,
    _masked,
    _regressor_neighbours,
    _shown,
    _state,
)

import dpconvex as dp
from dpconvex.estimators import base, front_door, regression
from dpconvex.estimators.selection.grid import SelectedEstimator
from dpconvex.estimators.sweep import EpsilonSweep
from dpconvex.objectives import Logistic
from dpconvex.privacy import bounds
from dpconvex.privacy.budget import Budget
from dpconvex.privacy.certificate import SmoothingRule
from dpconvex.privacy.mechanisms.base import ObjectivePerturbation
from dpconvex.privacy.release import Release
from dpconvex.privacy.rules.noise_level import label_center_share
from dpconvex.templates import LinearERMTemplate, statistics

SEED = 7


# ------------------------------------------------------------------ what a call shows
def _estimator_part(est: Any) -> Any:
    """A fitted estimator's public part: the pickle of its state apart from the released
    parameters, certificate text and ``to_dict`` (``_state``), its set of attributes, its
    repr and the shapes of its released arrays."""
    return (type(est).__name__, _state(est), sorted(vars(est)), repr(est),
            {k: np.shape(v) for k, v in vars(est).items() if k in RELEASED})


def _pickled(value: Any) -> bytes:
    """The pickle of everything ``value`` holds (every attribute, recursively), its read-only
    mappings (a plan's ``options`` and ``parts``) pickled as the dicts they show."""
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer)
    pickler.dispatch_table = {**copyreg.dispatch_table,
                              MappingProxyType: lambda proxy: (dict, (dict(proxy),))}
    pickler.dump(value)
    return buffer.getvalue()


def _unreleased(cert: dp.Certificate) -> dp.Certificate:
    """A copy of ``cert`` (and of its parts) whose ``released`` values are masked
    (``_masked``): the outputs a mechanism released, which the same seed need not repeat on
    data sets further apart than neighbours (a drafted schema's fingerprint)."""
    copy = pickle.loads(pickle.dumps(cert))
    stack = [copy]
    while stack:
        c = stack.pop()
        c.released = {k: _masked(v) for k, v in c.released.items()}
        stack.extend(c.parts)
    return copy


def _public_part(value: Any) -> Any:
    """What must be the same on D and D′ of a returned value (its class and public parts)."""
    if isinstance(value, dp.Certificate):  # its text, dict and everything it holds
        value = _unreleased(value)
        return "Certificate", str(value), value.to_dict(), _pickled(value)
    if isinstance(value, base.FitPlan):
        return "FitPlan", _pickled(value)
    if isinstance(value, Release):  # its theta: the noised parameters (None in a dry run)
        return ("Release", np.shape(value.theta), _public_part(value.certificate),
                _pickled(value.calibration))
    if isinstance(value, EpsilonSweep):
        return ("EpsilonSweep", sorted(vars(value)), value.epsilons, value.templates_built,
                value.n_samples,
                [[_estimator_part(m) for m in fits] for fits in value.estimators],
                _public_part(value.certificate))
    if isinstance(value, dp.PublicSchema):
        # released: the ranges, the vocabularies and which ranges are log-scaled (read from
        # the released range and median)
        return ("PublicSchema", value.columns, value.suggested, value.centered,
                sorted(value.numeric), sorted(value.categories), sorted(value.other),
                sorted(value.binary), _public_part(value.release))
    if isinstance(value, tuple):  # release_range's (lo, hi, median, cert): the numbers released
        return tuple(_public_part(v) if isinstance(v, dp.Certificate) else type(v).__name__
                     for v in value)
    if hasattr(value, "certificate_"):
        return _estimator_part(value)
    raise AssertionError(f"no public part declared for a {type(value).__name__}")


def _grid_end_notes(value: Any) -> list[tuple[str, str]]:
    """The warnings a released range at the grid's end issues (``bounds.grid_end_note``),
    recomputed from the ranges ``value`` released: release_range's (lo, hi, ...) or a drafted
    schema's ranges. They are functions of the released numbers, so they are left out of the
    comparison with them; any other warning is compared."""
    if isinstance(value, tuple) and len(value) == 4 and isinstance(value[3], dp.Certificate):
        ranges = [(value[0], value[1], "values", "release_range")]
    elif isinstance(value, dp.PublicSchema):
        ranges = [(lo, hi, f"values of column {name!r}", "draft_schema")
                  for name, (lo, hi) in value.numeric.items()]
    else:
        return []
    notes = (bounds.grid_end_note(*released) for released in ranges)
    return [("PrivacyWarning", note) for note in notes if note is not None]


def _observe(call: Callable[[Any], Any], data: Any, verbose: int = 0) -> dict[str, Any]:
    """Everything ``call(data)`` shows at ``dp.verbosity(verbose)``: its value's public part,
    and its exception, warnings (but the notes of its released ranges, ``_grid_end_notes``),
    log records, stdout and stderr (``_shown``)."""
    value, shown = _shown(lambda: call(data), verbose)
    error = shown.pop("error")
    released = _grid_end_notes(value)
    shown["warnings"] = [w for w in shown["warnings"] if w[:2] not in released]
    return {"error": error, "value": None if error else _public_part(value), **shown}


def _check(name: str, case: str, verbose: int = 0, complement: bool = False
           ) -> dict[str, Any]:
    """The call of ``name`` on D and D′ of ``case`` (or on D and its complement,
    ``_complement``): the same everything but the noise."""
    call, neighbours, form = PATHS[name]
    D, Dp, params = neighbours(case)
    if complement:
        Dp = COMPLEMENTS[neighbours](D)
    a, b = (_observe(lambda data: call(form(data), params), data, verbose) for data in (D, Dp))
    assert a["error"] is None, a["error"]
    for key in a:
        assert a[key] == b[key], key
    return a


# ------------------------------------------------------------------ the neighbour pairs
def _values(case: str, n: int = 200, seed: int = 0):
    """(D, D′, {}) of one numeric column: the last value replaced by one at the far end of
    the grid ("huge"), or by one below every other value ("below")."""
    values = np.random.default_rng(seed).normal(40.0, 10.0, n)
    other = values.copy()
    other[-1] = {"huge": 1e12, "below": -500.0}[case]
    return values, other, {}


def _words(case: str, n: int = 400):
    """(D, D′, {}) of one text column: the last record's word a word no other record has
    ("new-word") or a missing value ("missing")."""
    words = np.array(["basic"] * (n // 2) + ["pro"] * (n // 2 - 1) + ["pro"], dtype=object)
    other = words.copy()
    other[-1] = {"new-word": "record-only", "missing": None}[case]
    return words, other, {}


def _table(case: str):
    """(D, D′, {}) of a three-column DataFrame: a record's numbers and its word replaced."""
    (X, y), (X2, y2), _ = _classifier_neighbours("huge-norm" if case == "huge" else "relabel",
                                                 n=200, d=2)

    def frame(X, y):
        return pd.DataFrame({"a": X[:, 0], "b": X[:, 1],
                             "plan": np.where(y == 1, "pro", "basic")})

    D, Dp = frame(X, y), frame(X2, y2)
    Dp.loc[len(Dp) - 1, "plan"] = "record-only"
    return D, Dp, {}


def _labels_read(case: str):
    """The classifier pairs with ``classes=None``: the label set read from y (the same set
    on D and D′ in these cases; the warning that it is read is compared)."""
    D, Dp, _ = _classifier_neighbours(case)
    return D, Dp, {"classes": None}


def _same(data):
    return data


def _sparse(data):
    X, y = data
    return sp.csr_matrix(X), y


def _frame(data):
    X, y = data
    return pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])]), y


def _dask_array(data):
    import dask.array as da

    X, y = data
    return da.from_array(X, chunks=(40, X.shape[1])), da.from_array(y, chunks=40)


def _dask_frame(data):
    import dask.dataframe as dd

    X, y = _frame(data)
    return dd.from_pandas(X, npartitions=3), dd.from_pandas(pd.Series(y), npartitions=3)


def _synchronous(call):
    """``call`` run by Dask's synchronous scheduler (in this process: its warnings, log
    records and output are caught)."""
    def run(data, params):
        import dask

        with dask.config.set(scheduler="synchronous"):
            return call(data, params)
    return run


def _template(data):
    """The classifier pair as ``release``'s template: logistic loss, the rows scaled to
    norm <= 1 (the template's bound), the labels 1 -> +1 and every other -> -1."""
    X, y = data
    X = X / np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    return LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=np.where(y == 1, 1.0, -1.0))


# ------------------------------------------------------------------ the paths
def _lr(**kw):
    return dp.PrivateLogisticRegression(**{"epsilon": 1.0, "lam": 0.05, "random_state": SEED,
                                           **kw})


def _hinge_atoms(m):
    """The hinge in CVXPY atoms (a module function: the fitted model pickles)."""
    return cp.pos(1 - m)


#: A user's kinked loss, its kink smoothed at "auto". One object for both fits (each
#: construction numbers its CVXPY expression anew); the harness pickles it after each fit.
HINGE = dp.Loss.from_cvxpy(_hinge_atoms, name="user_hinge", smoothing="auto")


def _fit(make):
    def call(data, params):
        return make().set_params(random_state=SEED, **params).fit(*data)
    return call


def _certify(make):
    def call(data, params):
        return make().set_params(**params).certify(*data)
    return call


def _plan_for(make):
    def call(data, params):
        return make().set_params(**params).plan_for(*data)
    return call


def _prepared(make):
    def call(data, params):
        est = make().set_params(random_state=SEED, **params)
        plan = est.plan_for(*data)
        return est.fit_prepared(est.prepare(*data, plan), plan)
    return call


def _sweep(make):
    def call(data, params):
        return dp.epsilon_sweep(make().set_params(**params), *data, [0.5, 2.0],
                                random_state=SEED)
    return call


#: n·ε/p = 120·4/4 = 120 ≥ REGRESSION_RECORDS: label_center="auto" releases no label centre.
UNCENTERED_EPSILON = 4.0

C, R = _classifier_neighbours, _regressor_neighbours

#: name -> (call(data, params), neighbour pairs, form of the data).
PATHS: dict[str, tuple[Callable[..., Any], Callable[..., Any], Callable[[Any], Any]]] = {
    # fit, with the options the estimator table does not take
    "fit-smoothing-auto-user-loss": (_fit(lambda: dp.PrivateLinearClassifier(
        loss=HINGE, epsilon=1.0)), C, _same),
    "fit-no-intercept": (_fit(lambda: _lr(fit_intercept=False)), C, _same),
    "fit-unit-rows": (_fit(lambda: _lr(row_norm="unit")), C, _same),
    "fit-nb-feature-range": (_fit(lambda: dp.PrivateGaussianNB(
        epsilon=1.0, feature_range=(-1.0, 1.0))), C, _same),
    "fit-front-door-feature-range": (_fit(lambda: dp.PrivateClassifier(
        epsilon=1.0, feature_range=(-1.0, 1.0))), C, _same),
    "fit-sparse": (_fit(_lr), C, _sparse),
    "fit-centroid-sparse": (_fit(lambda: dp.PrivateGaussianCentroid(epsilon=1.0)), C, _sparse),
    "fit-dataframe": (_fit(lambda: dp.PrivateClassifier(epsilon=1.0)), C, _frame),
    "fit-reg-no-label-range": (_fit(lambda: dp.PrivateLinearRegressor(
        epsilon=1.0, lam=0.05)), R, _same),
    "fit-reg-uncentered": (_fit(lambda: dp.PrivateLinearRegressor(
        epsilon=UNCENTERED_EPSILON, label_range=LABEL_RANGE)), R, _same),
    "fit-reg-huber-uncentered-no-intercept": (_fit(lambda: dp.PrivateHuberRegressor(
        epsilon=UNCENTERED_EPSILON, label_range=LABEL_RANGE, fit_intercept=False)), R, _same),
    "fit-ssp-sparse": (_fit(lambda: dp.PrivateLinearRegression(
        epsilon=1.0, label_range=LABEL_RANGE)), R, _sparse),
    "fit-reg-dataframe": (_fit(lambda: dp.PrivateRegressor(
        epsilon=1.0, label_range=LABEL_RANGE)), R, _frame),
    "fit-reg-private-range": (_fit(lambda: dp.PrivateLinearRegressor(
        epsilon=1.0, label_range=dp.PrivateBounds(0.5))), R, _same),
    "fit-output": (_fit(lambda: _lr(mechanism="output")), C, _same),
    # the dry run
    "certify-logreg": (_certify(_lr), C, _same),
    "certify-front-door": (_certify(lambda: dp.PrivateClassifier(epsilon=1.0)), C, _same),
    "certify-reg": (_certify(lambda: dp.PrivateLinearRegressor(
        epsilon=1.0, label_range=LABEL_RANGE)), R, _same),
    "certify-reg-front-door-dataframe": (_certify(lambda: dp.PrivateRegressor(
        epsilon=1.0, label_range=LABEL_RANGE)), R, _frame),
    "certify-grid-search": (_certify(lambda: dp.PrivateGridSearch(
        _lr(), {"lam": [0.01, 0.1]}, epsilon=1.0)), C, _same),
    "certify-random-search": (_certify(lambda: dp.PrivateRandomSearch(
        _lr(), {"lam": [0.05]}, epsilon=1.0, mean_runs=2.0)), C, _same),
    "certify-noisy-gd": (_certify(lambda: dp.NoisyGradientDescent(
        epsilon=1.0, delta=1e-5, steps=5)), C, _same),
    "certify-lmg": (_certify(lambda: dp.PrivateLargeMarginGaussian(
        epsilon=2.0, solver="native")), C, _same),
    "certify-reg-private-range": (_certify(lambda: dp.PrivateLinearRegressor(
        epsilon=1.0, label_range=dp.PrivateBounds(0.5))), R, _same),
    # the plan
    "plan-for-logreg": (_plan_for(_lr), C, _same),
    "plan-for-labels-read": (_plan_for(_lr), _labels_read, _same),
    "plan-for-reg-sparse": (_plan_for(lambda: dp.PrivateLinearRegressor(
        epsilon=1.0, label_range=LABEL_RANGE)), R, _sparse),
    # prepare, then the private part of the fit
    "prepared-logreg": (_prepared(_lr), C, _same),
    "prepared-centroid": (_prepared(lambda: dp.PrivateGaussianCentroid(epsilon=1.0)), C, _same),
    "prepared-nb": (_prepared(lambda: dp.PrivateGaussianNB(epsilon=1.0)), C, _same),
    "prepared-lmg": (_prepared(lambda: dp.PrivateLargeMarginGaussian(
        epsilon=2.0, solver="native")), C, _same),
    "prepared-ssp": (_prepared(lambda: dp.PrivateLinearRegression(
        epsilon=1.0, label_range=LABEL_RANGE)), R, _same),
    # the sweep
    "sweep-logreg": (_sweep(_lr), C, _same),
    "sweep-reg": (_sweep(lambda: dp.PrivateHuberRegressor(
        label_range=LABEL_RANGE)), R, _same),
    # the private bounds
    "release-range": (lambda v, _: bounds.release_range(v, Budget(1.0), rng=SEED),
                      _values, _same),
    "release-vocabulary": (lambda v, _: bounds.release_vocabulary(v, Budget(1.0, 1e-6),
                                                                  rng=SEED), _words, _same),
    "draft-schema": (lambda t, _: dp.draft_schema(
        t, epsilon=2.0, delta=1e-6, kinds={"plan": "categorical"}, random_state=SEED),
        _table, _same),
    # a mechanism run on a template of the rows
    "release-template": (lambda t, _: dp.release(t, "objective", Budget(1.0), rng=SEED),
                         C, _template),
    "release-template-dry-run": (lambda t, _: dp.release(t, "objective", Budget(1.0),
                                                         dry_run=True), C, _template),
    # Dask collections, read chunk by chunk
    "dask-logreg": (_synchronous(_fit(_lr)), C, _dask_array),
    "dask-logreg-output": (_synchronous(_fit(lambda: _lr(mechanism="output"))), C, _dask_array),
    "dask-centroid": (_synchronous(_fit(lambda: dp.PrivateGaussianCentroid(epsilon=1.0))), C,
                      _dask_array),
    "dask-noisy-gd": (_synchronous(_fit(lambda: dp.NoisyGradientDescent(
        epsilon=1.0, delta=1e-5, steps=5))), C, _dask_array),
    "dask-front-door-dataframe": (_synchronous(_fit(lambda: dp.PrivateClassifier(
        epsilon=1.0))), C, _dask_frame),
    "dask-ssp": (_synchronous(_fit(lambda: dp.PrivateLinearRegression(
        epsilon=1.0, label_range=LABEL_RANGE))), R, _dask_array),
    "dask-huber-reg": (_synchronous(_fit(lambda: dp.PrivateHuberRegressor(
        epsilon=1.0, label_range=LABEL_RANGE))), R, _dask_array),
    "dask-certify": (_synchronous(_certify(_lr)), C, _dask_array),
    "dask-sweep": (_synchronous(_sweep(_lr)), C, _dask_array),
}

CASES = {C: ("relabel", "huge-norm", "outside"), R: ("outside-range", "huge-norm"),
         _labels_read: ("relabel", "huge-norm"), _values: ("huge", "below"),
         _words: ("new-word", "missing"), _table: ("word", "huge")}

#: A path of each kind (a fit, a dry run, the private bounds, a template, Dask) run with
#: every mutant in the fast tier; every path with every mutant in the slow one.
SAMPLE = ("fit-no-intercept", "certify-reg", "release-range", "release-template",
          "dask-logreg")


def _tier(name: str, *values: Any, heavy: bool = True) -> Any:
    """``pytest.param(*values)``, in the slow tier unless ``name`` is sampled (or the run is
    light: ``heavy`` False)."""
    slow = heavy and name not in SAMPLE
    return pytest.param(*values, marks=[pytest.mark.slow] if slow else [],
                        id="-".join(map(str, values)))


def _flip_classes(data):
    """Every row negated (the same norm), every label 0 <-> 1 (the same label set)."""
    X, y = data
    return -X, 1 - y


def _mirror_labels(data):
    """Every row negated, every label y -> lo + hi - y (inside the same label range)."""
    X, y = data
    return -X, LABEL_RANGE[0] + LABEL_RANGE[1] - y


def _mirror_values(values):
    """Every value mirrored about the centre 40 of the values' distribution (``_values``)."""
    return 80.0 - values


def _swap_words(words):
    """"basic" <-> "pro" (200 of each: the same counts), any other word kept."""
    swap = {"basic": "pro", "pro": "basic"}
    return np.array([swap.get(w, w) for w in words], dtype=object)


def _complement_table(table):
    """The numbers negated and the words swapped (``_swap_words``)."""
    other = table.copy()
    other[["a", "b"]] = -table[["a", "b"]]
    other["plan"] = _swap_words(table["plan"].to_numpy())
    return other


#: The complement of a data set D of each kind of pair: every record changed, the public
#: facts (n, the columns, the label set or range, the rows' norms, the words' counts) kept.
COMPLEMENTS = {C: _flip_classes, _labels_read: _flip_classes, R: _mirror_labels,
               _values: _mirror_values, _words: _swap_words, _table: _complement_table}

PATH_CASES = [(name, case) for name, (_, pairs, _) in PATHS.items() for case in CASES[pairs]]


@pytest.mark.parametrize("name,case", PATH_CASES, ids=[f"{n}-{c}" for n, c in PATH_CASES])
def test_neighbours_show_the_same_on_every_public_path(name, case):
    _check(name, case)


@pytest.mark.parametrize("name", list(PATHS))
def test_a_data_set_and_its_complement_show_the_same_on_every_public_path(name):
    """D against its complement (``COMPLEMENTS``: every record changed, the public facts kept),
    same seed: nothing but the noised numbers differ, so no record — the first, the last or
    any other — shows in what a path shows or returns."""
    _check(name, LEAKED_CASE[PATHS[name][1]], complement=True)


@pytest.mark.parametrize("name", ["release-range", "draft-schema"])
def test_a_note_of_a_released_range_is_compared_with_the_released_numbers(name):
    """Values below the grid's resolution: the range released is the cell around 0 and its
    note is issued; the harness leaves it with the released numbers (it is a function of
    them) and compares every other warning."""
    call = PATHS[name][0]
    tiny = np.random.default_rng(0).normal(0.0, 1e-8, 400)
    data = tiny if name == "release-range" else pd.DataFrame({"a": tiny, "b": tiny,
                                                               "plan": ["pro"] * 400})
    value, shown = _shown(lambda: call(data, {}))
    notes = _grid_end_notes(value)
    assert notes and all(note in [w[:2] for w in shown["warnings"]] for note in notes)
    assert not [w for w in _observe(call, data)["warnings"] if "grid" in w[1]]


@pytest.mark.parametrize("name", [_tier(name, name, heavy=name.startswith("dask-"))
                                  for name in PATHS])
def test_the_progress_of_verbosity_one_is_the_same_on_neighbours(name):
    """``dp.verbosity(1)`` prints the steps of each call with the elapsed time (figures of the
    data only from level 2 on): apart from the times, the same lines on D and D′ (every path
    but a dry run and a plan, which draw nothing, prints its steps)."""
    draws_nothing = "certify" in name or name.startswith("plan-for-") or name.endswith("dry-run")
    for case in CASES[PATHS[name][1]]:
        printed = _check(name, case, verbose=1)["stderr"]
        assert "[dpconvex]" in printed or draws_nothing, name


def test_the_option_paths_are_taken():
    """Each option's path is the one named: no label centre where n·ε/p ≥ 100 (p counts the
    intercept column when there is one) and a centre at ε = 1; the kink smoothed at h chosen
    by "auto"; naive Bayes chosen by the front door given a feature range."""
    D, _, _ = _regressor_neighbours("outside-range")
    n, d = D[0].shape
    assert label_center_share(n, d + 1, UNCENTERED_EPSILON) == 0.0
    assert label_center_share(n, d, UNCENTERED_EPSILON) == 0.0
    for name in ("fit-reg-uncentered", "fit-reg-huber-uncentered-no-intercept"):
        cert = PATHS[name][0](D, {}).certificate_
        assert "label center share" not in cert.quantities and not cert.parts
    centered = _fit(lambda: dp.PrivateLinearRegressor(epsilon=1.0, label_range=LABEL_RANGE))
    assert centered(D, {}).certificate_.quantities["label center share"] == 0.1
    C2, _, params = _classifier_neighbours("relabel")
    smoothed = PATHS["fit-smoothing-auto-user-loss"][0](C2, params).certificate_
    assert smoothed.line(SmoothingRule).h > 0
    door = PATHS["fit-front-door-feature-range"][0](C2, params)
    assert isinstance(door.estimator_, dp.PrivateGaussianNB)


def test_the_public_paths_cover_every_entry_point_and_option():
    """The table names a path of each public entry point that reads data, and each option."""
    names = " ".join(PATHS)
    for part in ("fit-", "certify-", "plan-for-", "prepared-", "sweep-", "release-range",
                 "release-vocabulary", "draft-schema", "release-template",
                 "release-template-dry-run", "smoothing-auto", "no-label-range",
                 "private-range", "output", "no-intercept", "unit-rows", "feature-range",
                 "uncentered", "sparse", "dataframe", "dask-"):
        assert part in names, part


# ------------------------------------------------------------------ the harness can fail
def _leak_of(values: Any, index: int = -1) -> str:
    """One record's value as text (by default the last record's: the one the neighbour pairs
    replace; the complement changes every record)."""
    if hasattr(values, "compute"):  # a Dask collection
        values = values.compute()
    if isinstance(values, pd.Series | pd.DataFrame):
        values = values.to_numpy()
    if sp.issparse(values):
        values = values.toarray()
    if isinstance(values, LinearERMTemplate):
        values = values.y
    return f"record {index} reads {np.asarray(values, dtype=object).ravel()[index]!r}"


def _emit(channel: str, text: str) -> None:
    if channel == "warning":
        warnings.warn(text, UserWarning, stacklevel=2)
    elif channel == "log record":
        logging.getLogger("dpconvex.mutant").info(text)
    elif channel == "stdout":
        print(text)
    elif channel == "stderr":
        print(text, file=sys.stderr)
    elif channel == "warning attribute":  # a constant text, the record in an attribute
        message = UserWarning("a step")
        message.seen = text
        warnings.warn(message, stacklevel=2)
    elif channel == "another logger":  # a logger outside the package, at INFO
        logging.getLogger("elsewhere").info(text)
    elif channel == "log extra":  # a constant message, the record in a field of its own
        logging.getLogger("dpconvex.mutant").info("a step", extra={"seen": text})
    elif channel == "sys.__stderr__":
        print(text, file=sys.__stderr__, flush=True)
    else:  # "fd 1" or "fd 2": written to the file descriptor, past sys
        os.write(int(channel[-1]), f"{text}\n".encode())


def _leaky(target: Any, name: str, channel: str, argument: int, hits: list[int],
           index: int = -1) -> Any:
    """``target.name`` wrapped: each call also writes its ``argument``-th positional
    argument's record ``index`` to ``channel``."""
    inner = getattr(target, name)

    def mutant(*args, **kwargs):
        hits.append(1)
        _emit(channel, _leak_of(args[argument], index))
        return inner(*args, **kwargs)

    return mutant


#: Where a mutant of each kind of path sits: (owner, function, the argument holding the
#: records) — a function that every call of the path runs on the labels or values.
LABELS = (base, "check_labels", 0)  # a classifier's labels
FRONT_DOOR_LABELS = (front_door, "check_labels", 0)  # checked once, by the front door
RAW_LABELS = (regression, "check_numeric_labels", 0)  # a regressor's labels
FRONT_DOOR_RAW_LABELS = (front_door, "check_numeric_labels", 0)  # checked once, by the front door
MUTANT_SITES = {
    **{name: LABELS for name, (_, pairs, _) in PATHS.items() if pairs in (C, _labels_read)},
    **{name: RAW_LABELS for name, (_, pairs, _) in PATHS.items() if pairs is R},
    "fit-front-door-feature-range": FRONT_DOOR_LABELS,
    "fit-dataframe": FRONT_DOOR_LABELS,
    "fit-reg-dataframe": FRONT_DOOR_RAW_LABELS,
    "dask-front-door-dataframe": FRONT_DOOR_LABELS,
    "plan-for-logreg": (base.PrivateEstimator, "public_shape", 2),  # reads the shape only
    "plan-for-reg-sparse": (base.PrivateEstimator, "public_shape", 2),
    "certify-grid-search": (SelectedEstimator, "_checked_rows", 2),
    "release-range": (bounds, "_float64", 0),
    # the vocabulary's template counts the values: once per value, the last one leaks
    "release-vocabulary": (statistics, "is_missing", 0),
    "draft-schema": (statistics, "is_missing", 0),
    # the mechanism's conditions read the template (self, template, budget)
    "release-template": (ObjectivePerturbation, "conditions", 1),
    "release-template-dry-run": (ObjectivePerturbation, "conditions", 1),
}

#: The first case of each pair: the last record's label (or value) differs on D and D′.
LEAKED_CASE = {pairs: cases[0] for pairs, cases in CASES.items()}

CHANNELS = {"warning": "warnings", "log record": "log records", "stdout": "stdout",
            "stderr": "stderr"}

#: Writes the harness sees past what a channel shows at first sight, and the key it flags.
HIDDEN_CHANNELS = {"warning attribute": "warnings", "another logger": "log records",
                   "log extra": "log records", "sys.__stderr__": "stderr", "fd 1": "stdout",
                   "fd 2": "stderr"}

#: Every path × every channel (a Dask path in the slow tier unless sampled), and every path ×
#: every hidden channel (the sample in the fast tier).
MUTANTS = [_tier(name, name, channel, heavy=name.startswith("dask-")) for name in PATHS
           for channel in CHANNELS]
HIDDEN_MUTANTS = [_tier(name, name, channel) for name in PATHS for channel in HIDDEN_CHANNELS]


def _caught(name: str, channel: str, index: int = -1, complement: bool = False) -> str:
    """The key the harness flags when the path's mutant site (``MUTANT_SITES``) writes record
    ``index`` to ``channel``."""
    owner, function, argument = MUTANT_SITES[name]
    hits: list[int] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(owner, function, _leaky(owner, function, channel, argument, hits, index))
        with pytest.raises(AssertionError) as caught:
            _check(name, LEAKED_CASE[PATHS[name][1]], complement=complement)
    assert hits, f"{function} is not on the path of {name}"
    return str(caught.value)


@pytest.mark.parametrize("name,channel", MUTANTS)
def test_a_mutant_writing_a_record_into_a_channel_is_caught(name, channel):
    """The harness flags a patch that writes the replaced record's label or value to a
    warning, a log record, stdout or stderr, on every path of the table."""
    caught = _caught(name, channel)
    assert caught.startswith(CHANNELS[channel]), caught


@pytest.mark.parametrize("name,channel", HIDDEN_MUTANTS)
def test_a_mutant_hiding_a_record_in_a_channel_is_caught(name, channel):
    """... and one that writes it where a first look at a channel would miss it: a warning's
    attribute, another logger's INFO record, a log record's extra field, ``sys.__stderr__``
    or the file descriptors 1 and 2."""
    caught = _caught(name, channel)
    assert caught.startswith(HIDDEN_CHANNELS[channel]), caught


@pytest.mark.parametrize("name", [_tier(name, name) for name in PATHS])
def test_a_mutant_writing_the_first_record_is_caught_by_the_complement(name):
    """The neighbour pairs replace the last record; a patch that writes the first one's label
    or value into a warning is flagged by the complement, which changes every record."""
    assert _caught(name, "warning", index=0, complement=True).startswith("warnings")


def test_every_path_has_a_mutant():
    assert set(MUTANT_SITES) == set(PATHS)


@pytest.mark.parametrize("name", ["certify-logreg", "fit-reg-uncentered", "draft-schema"])
def test_a_mutant_writing_a_record_into_the_certificate_is_caught(name):
    """The returned value is compared too: a certificate whose text carries the last record
    read (the value's public part) is flagged."""
    owner, function, argument = MUTANT_SITES[name]
    read: list[str] = []
    inner, text = getattr(owner, function), dp.Certificate.__str__

    def mutant(*args, **kwargs):
        read.append(_leak_of(args[argument]))
        return inner(*args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(owner, function, mutant)
        patch.setattr(dp.Certificate, "__str__", lambda cert: f"{text(cert)}\n{read[-1]}")
        with pytest.raises(AssertionError) as caught:
            _check(name, LEAKED_CASE[PATHS[name][1]])
    assert read and str(caught.value).startswith("value"), str(caught.value)


def _reading(name: str, read: list[str]) -> Any:
    """The path's mutant site (``MUTANT_SITES``) wrapped: each call notes the last record."""
    owner, function, argument = MUTANT_SITES[name]
    inner = getattr(owner, function)

    def mutant(*args, **kwargs):
        read.append(_leak_of(args[argument]))
        return inner(*args, **kwargs)

    return owner, function, mutant


@pytest.mark.parametrize("name", ["certify-logreg", "fit-reg-uncentered", "draft-schema",
                                  "release-range", "release-template", "dask-certify"])
def test_a_mutant_hiding_a_record_in_a_certificates_attribute_is_caught(name):
    """A certificate is compared by everything it holds: a patch that keeps the last record
    read in an attribute that is none of its fields (not in its text nor ``to_dict``) is
    flagged."""
    read: list[str] = []
    built = dp.Certificate.__post_init__

    def post_init(cert):
        built(cert)
        if read:
            cert.__dict__["seen"] = read[-1]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(*_reading(name, read))
        patch.setattr(dp.Certificate, "__post_init__", post_init)
        with pytest.raises(AssertionError) as caught:
            _check(name, LEAKED_CASE[PATHS[name][1]])
    assert read and str(caught.value).startswith("value"), str(caught.value)


def _getstate_adds(read: list[str]) -> Callable[[Any], Any]:
    """``__getstate__`` of an estimator: its state and the last record read."""
    def getstate(est):
        return {**BaseEstimator.__getstate__(est), "seen": read[-1] if read else None}
    return getstate


def _reduce_ex_adds(read: list[str]) -> Callable[[Any, int], Any]:
    """``__reduce_ex__`` of an estimator: its reduction, the last record read in its state."""
    def reduce_ex(est, protocol):
        rebuild, args, state, *rest = object.__reduce_ex__(est, protocol)
        return (rebuild, args, {**state, "seen": read[-1] if read else None}, *rest)
    return reduce_ex


@pytest.mark.parametrize("how", ["__getstate__", "__reduce_ex__"])
@pytest.mark.parametrize("name", ["fit-no-intercept", "fit-reg-dataframe", "prepared-ssp",
                                  "sweep-logreg", "dask-logreg"])
def test_a_mutant_adding_a_record_to_an_estimators_pickle_is_caught(name, how):
    """A fitted estimator is compared by its whole pickle, its released values masked: a
    patch whose ``__getstate__`` or ``__reduce_ex__`` adds the last record read to the state
    (no attribute holds it) is flagged."""
    read: list[str] = []
    adds = _getstate_adds(read) if how == "__getstate__" else _reduce_ex_adds(read)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(*_reading(name, read))
        patch.setattr(base.PrivateEstimator, how, adds, raising=False)
        with pytest.raises(AssertionError) as caught:
            _check(name, LEAKED_CASE[PATHS[name][1]])
    assert read and str(caught.value).startswith("value"), str(caught.value)


PLAN_PATHS = [name for name in PATHS if name.startswith("plan-for-")]


@pytest.mark.parametrize("name", PLAN_PATHS)
def test_a_mutant_hiding_a_record_in_a_plan_is_caught(name):
    """A plan is compared by everything it holds, not by its repr: a patch that keeps the last
    record read in an attribute of the plan that its repr does not show is flagged."""
    inner = base._with_rows_source
    hidden: list[str] = []

    def mutant(plan, X):
        plan = inner(plan, X)
        hidden.append(_leak_of(X))
        object.__setattr__(plan, "seen", hidden[-1])  # not a field: not in the repr
        return plan

    call, neighbours, form = PATHS[name]
    D, Dp, params = neighbours(LEAKED_CASE[neighbours])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(base, "_with_rows_source", mutant)
        plans = [call(form(data), params) for data in (D, Dp)]
        with pytest.raises(AssertionError) as caught:
            _check(name, LEAKED_CASE[neighbours])
    assert len(set(hidden)) == 2, "the mutant did not read the replaced record"
    shown = [re.sub(r" at 0x[0-9a-f]+", "", repr(plan)) for plan in plans]  # no addresses
    assert shown[0] == shown[1]  # the repr alone would pass it
    assert str(caught.value).startswith("value"), str(caught.value)
