"""What a meta-estimator hands the fits of its parts travels as an argument (``FitContext``).

The package's context variables are the user-facing contexts only (diagnostics, verbosity,
the ledger's ``parallel()`` blocks, a reservation's ``with`` block recording whether noise
was drawn in it); noise sources, rows left out, the budget hold and the label-set warning are
arguments, so no fit reads them from an ambient state (the draw record is written by the
samplers and read by the reservation alone, when its block exits).
"""

from __future__ import annotations

import ast
import pickle
import warnings
from pathlib import Path

import numpy as np
import pytest
from _helpers import syntax_nodes
from sklearn.base import clone
from sklearn.pipeline import make_pipeline

import dpconvex as dp
import dpconvex.privacy.release as release_module
from dpconvex._validation import NoiseSource
from dpconvex.data.validation import LabelWarning
from dpconvex.estimators.base import (
    NO_CONTEXT,
    CheckedData,
    FitContext,
    certify_part,
    fit_part,
    fit_with,
    issued,
)
from dpconvex.privacy.certificate import DeltaRows

PACKAGE = Path(dp.__file__).parent

#: The context variables of the package: name -> what the user opens.
USER_FACING = {"dpconvex_diagnostics": "collect_diagnostics()",
               "dpconvex_verbose": "verbose=",
               "dpconvex_parallel_blocks": "BudgetAccountant.parallel()",
               "dpconvex_noise_watches": "with BudgetAccountant.reserve(...)"}


def _context_variables() -> dict[str, str]:
    """Name of every ``ContextVar(...)`` built in the package -> its file."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        for node in syntax_nodes(path):
            if isinstance(node, ast.Call) and getattr(node.func, "attr",
                                                      getattr(node.func, "id", None)) == "ContextVar":
                found[ast.literal_eval(node.args[0])] = str(path.relative_to(PACKAGE))
    return found


def test_the_context_variables_are_the_user_facing_ones():
    assert set(_context_variables()) == set(USER_FACING)


def test_a_pipeline_step_draws_from_the_source_it_is_handed():
    X = np.random.default_rng(0).normal(size=(40, 3)) * 0.3
    y = (X[:, 0] > 0).astype(int)
    rff = dp.RandomFourierFeatures(n_components=6, gamma=0.5)
    pipe = make_pipeline(rff, dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1]))
    fit_with(pipe, X, y, NO_CONTEXT, [(rff, NoiseSource(np.random.default_rng(5), seeded=True))])
    handed = np.random.default_rng(5).normal(0.0, 1.0, size=(3, 6))  # sqrt(2 gamma) = 1
    np.testing.assert_array_equal(rff.random_weights_, handed)
    assert rff.random_state is None  # handed to the fit, not set as a parameter
    assert "FitContext" not in str(pickle.dumps(pipe))


def test_one_label_warning_for_the_fits_inside_one_context():
    X = np.random.default_rng(1).normal(size=(40, 3)) * 0.3
    y = (X[:, 0] > 0).astype(int)
    context = NO_CONTEXT.one_label_warning()
    assert context.one_label_warning() is context  # the fits inside share the caller's
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for seed in range(3):
            fit_with(dp.PrivateLogisticRegression(epsilon=1.0, random_state=seed), X, y, context)
        fit_with(dp.PrivateLogisticRegression(epsilon=1.0, random_state=0), X, y,
                 FitContext(label_warning=LabelWarning(issued=True)))  # warned by its caller
    leaks = [w for w in caught if issubclass(w.category, dp.errors.PrivacyLeakWarning)]
    assert len(leaks) == 1 and context.label_warning.issued


def test_the_rows_left_out_are_a_boolean_mask():
    with pytest.raises(dp.errors.ParameterError, match="1-D boolean mask"):
        NO_CONTEXT.inner(None, excluding=np.array([0, 1]))


def test_a_noise_warning_of_a_fit_made_of_fits_names_the_users_line():
    """One-vs-rest, the front door's learner and the large-margin fit warn at the caller's line."""
    import warnings

    import numpy as np

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3)) * 0.3
    y = np.arange(60) % 3
    fits = [dp.PrivateLogisticRegression(epsilon=0.01, classes=[0, 1, 2]),
            dp.PrivateClassifier(epsilon=0.01, classes=[0, 1, 2]),
            dp.PrivateLargeMarginGaussian(epsilon=0.01, classes=[0, 1, 2], lam=0.1)]
    for est in fits:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            est.fit(X, y)
        noisy = [w for w in caught if "noise is large" in str(w.message)]
        assert noisy and all(w.filename == __file__ for w in noisy), type(est).__name__


def test_checked_rows_are_the_handing_fits_word_only():
    """A meta-estimator marks the rows it checked for its own part; a fit inside that part
    (its context's ``inner``) checks what it is handed again."""
    part = NO_CONTEXT.inner(None, checked=True)
    assert part.checked and not NO_CONTEXT.checked
    assert not part.inner(None).checked


def test_a_mechanism_against_delta_is_refused_alike_by_every_path():
    """Validation alone, the plan and the fit refuse a pure mechanism with δ > 0 by one message
    (the plan resolves the mechanism once for both)."""
    X = np.random.default_rng(2).normal(size=(40, 3)) * 0.3
    y = (X[:, 0] > 0).astype(int)
    est = dp.PrivateLogisticRegression(mechanism="objective", delta=1e-6, classes=[0, 1])
    messages = []
    for call in (est._validate_params, lambda: est.plan(40, 2, 3), lambda: est.fit(X, y)):
        with pytest.raises(dp.errors.ParameterError) as refused:
            call()
        messages.append(str(refused.value).split(": ", 1)[1])
    assert len(set(messages)) == 1 and "pure epsilon-DP" in messages[0]


def _forged_contexts(X, y):
    """Contexts a caller can make: each would skip a step of the fit if ``fit`` took it."""
    other_rows = np.zeros_like(X)
    return {
        "held (no δ check)": NO_CONTEXT.inner(None, held=True),
        "checked (no data checks)": NO_CONTEXT.inner(None, checked=True),
        "other rows (data=)": NO_CONTEXT.inner(None, data=CheckedData(other_rows, y)),
        "rows left out": NO_CONTEXT.inner(None, excluding=np.arange(len(y)) < 5),
        "a plan (no parameter checks)": NO_CONTEXT.inner(None, plan=dp.PrivateLogisticRegression(
            epsilon=50.0, classes=[-1, 1]).plan(len(y), 2, X.shape[1])),
        "made directly": FitContext(held=True, checked=True),
    }


@pytest.mark.parametrize("kind", ["held (no δ check)", "checked (no data checks)",
                                  "other rows (data=)", "rows left out",
                                  "a plan (no parameter checks)", "made directly"])
def test_a_context_the_caller_made_is_refused_by_fit_and_charges_nothing(kind):
    """fit(context=) takes only a context a meta-estimator issued to its part (fit_part):
    one the caller made is refused by name before anything is read or held."""
    X = np.random.default_rng(3).normal(size=(30, 2)) * 0.3
    y = np.where(X[:, 0] > 0, 1, -1)
    ledger = dp.BudgetAccountant(epsilon=5.0)
    est = dp.PrivateLogisticRegression(classes=[-1, 1], random_state=0, accountant=ledger)
    with pytest.raises(dp.errors.PrivacyError, match=r"^PrivateLogisticRegression\.fit: "
                                                     r"context= takes only"):
        est.fit(X, y, context=_forged_contexts(X, y)[kind])
    assert ledger.spent == (0.0, 0.0) and not hasattr(est, "coef_")


def test_an_issued_context_is_refused_once_its_fit_has_ended():
    """The context fit_part issues is taken for that call only; a copy of it never."""
    X = np.random.default_rng(4).normal(size=(30, 2)) * 0.3
    y = np.where(X[:, 0] > 0, 1, -1)
    est = dp.PrivateLogisticRegression(classes=[-1, 1], random_state=0)
    context = NO_CONTEXT.inner(None, held=True)
    fit_part(est, X, y, context)
    for later in (context, FitContext(**vars(context))):
        with pytest.raises(dp.errors.PrivacyError, match="context= takes only"):
            est.fit(X, y, context=later)


def test_a_part_fitted_through_fit_is_the_part_fitted_by_its_hook():
    """fit_part (public fit with the issued context) and the hook on the same context and
    seed release the same model and certificate (the same draws: equal up to rounding)."""
    X = np.random.default_rng(5).normal(size=(40, 3)) * 0.3
    y = np.where(X[:, 0] > 0, 1, -1)

    def context():
        return NO_CONTEXT.inner(NoiseSource(np.random.default_rng(9), seeded=True), held=True)

    public = fit_part(dp.PrivateLogisticRegression(classes=[-1, 1]), X, y, context())
    hook = dp.PrivateLogisticRegression(classes=[-1, 1])._fit_with(X, y, context())
    np.testing.assert_allclose(public.coef_, hook.coef_, rtol=0, atol=1e-12)
    assert public.certificate_.to_dict() == hook.certificate_.to_dict()


def test_every_fit_that_takes_a_context_refuses_one_the_caller_made():
    """The front doors, the searches and the random features (a search's step) refuse it too,
    before anything is charged."""
    X = np.random.default_rng(6).normal(size=(30, 2)) * 0.3
    y = np.where(X[:, 0] > 0, 1, -1)
    ledger = dp.BudgetAccountant(epsilon=10.0)
    forged = NO_CONTEXT.inner(None, held=True)
    for est in (dp.PrivateRegressor(label_range=(-1, 1), accountant=ledger),
                dp.PrivateClassifier(classes=[-1, 1], accountant=ledger),
                dp.PrivateGridSearch(dp.PrivateLogisticRegression(), {"lam": [0.1, 1.0]},
                                     epsilon=1.0, classes=[-1, 1], accountant=ledger),
                dp.RandomFourierFeatures(n_components=4)):
        name = type(est).__name__
        with pytest.raises(dp.errors.PrivacyError, match=rf"^{name}\.fit: context= takes only"):
            est.fit(X, y, context=forged)
    assert ledger.spent == (0.0, 0.0)


def test_a_meta_estimator_fits_its_parts_through_their_public_fit():
    """``_fit_with`` is called on the estimator itself only (its own fit, super()): a part is
    fitted through its ``fit(context=...)`` (fit_part), never through its hook."""
    calls = []
    for path in PACKAGE.rglob("*.py"):
        for node in syntax_nodes(path):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "_fit_with":
                owner = node.func.value
                if not (isinstance(owner, ast.Name) and owner.id == "self") and not (
                        isinstance(owner, ast.Call) and getattr(owner.func, "id", "") == "super"):
                    calls.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert calls == []


def test_the_fit_skeleton_is_written_once_per_family():
    """``_fit_with`` is defined by the base of the private fits (PrivateEstimator) and by the
    base of the searches (SelectedEstimator) only: an estimator fills the skeleton's hooks and
    never writes its own skeleton; a step that releases nothing private (PublicEncoder,
    RandomFourierFeatures) keeps a plain ``fit``."""
    skeletons = []
    for path in PACKAGE.rglob("*.py"):
        for node in syntax_nodes(path):
            if isinstance(node, ast.ClassDef):
                skeletons += [f"{path.relative_to(PACKAGE).as_posix()}:{node.name}"
                              for item in node.body
                              if isinstance(item, ast.FunctionDef) and item.name == "_fit_with"]
    assert sorted(skeletons) == ["estimators/base.py:PrivateEstimator",
                                 "estimators/selection/grid.py:SelectedEstimator"]


def test_rows_handed_to_prepare_are_held_against_the_plans_shape():
    # the noise is calibrated for the plan's n: rows of another count are refused, also when a
    # context says a fit checked them (otherwise 200 rows would get the noise of 1,000)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] > 0).astype(int)
    est = dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1], random_state=0)
    plan = est.plan(1000, 2, 3)
    data = est._validated(X, y, NO_CONTEXT)
    with issued(NO_CONTEXT.inner(None, checked=True, data=data)) as context, \
            pytest.raises(dp.ParameterError, match="the plan is for n = 1000 rows"):
        est.prepare(X, y, plan, context=context)


@pytest.mark.parametrize("est, n_classes", [
    (dp.PrivateLogisticRegression(classes=[-1, 1]), 2),
    (dp.PrivateLinearRegressor(label_range=(-2, 2), label_center=0.0), None)])
@pytest.mark.parametrize("n, d", [(30, 3), (40, 2)])
def test_rows_a_fit_prepares_itself_are_held_against_a_handed_plans_shape(est, n_classes, n, d):
    """A fit following a plan handed in its context (``context.plan``) refuses rows of another
    shape before its template is built (the fit-only preparations, which build from the rows
    the fit validated)."""
    X = np.random.default_rng(0).uniform(-1, 1, (40, 3))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    context = NO_CONTEXT.inner(NoiseSource(np.random.default_rng(1), seeded=True),
                               plan=est.plan(n, n_classes, d))
    with pytest.raises(dp.ParameterError, match=f"fit: the plan is for n = {n} rows and {d} "):
        fit_part(est, X, y, context)


def _binary_data(n=30, seed=7):
    X = np.random.default_rng(seed).normal(size=(n, 2)) * 0.3
    return X, np.where(X[:, 0] > 0, 1, -1)


def test_a_context_the_caller_made_is_refused_by_fit_prepared_before_the_hold():
    """A held=True context the caller made would hide the δ >= 1/n warning and its
    certificate line: fit_prepared refuses it before anything is held or charged."""
    X, y = _binary_data()
    ledger = dp.BudgetAccountant(epsilon=5.0, delta=0.5)
    est = dp.PrivateLogisticRegression(classes=[-1, 1], delta=0.1, random_state=0,
                                       accountant=ledger)
    plan = est.plan_for(X, y)
    prep = est.prepare(X, y, plan)
    for forged in (NO_CONTEXT.inner(None, held=True), FitContext(held=True)):
        with pytest.raises(dp.errors.PrivacyError, match=r"^PrivateLogisticRegression\."
                                                         r"fit_prepared: context= takes only"):
            est.fit_prepared(prep, plan, context=forged)
    assert ledger.spent == (0.0, 0.0) and not hasattr(est, "coef_")
    with pytest.warns(dp.errors.PrivacyWarning, match="at least 1/n"):  # NO_CONTEXT: checked
        est.fit_prepared(prep, plan)
    assert est.certificate_.states(DeltaRows(0.1, 30))
    assert ledger.spent[0] == pytest.approx(1.0, rel=1e-12)


def test_a_context_the_caller_made_is_refused_by_prepare_before_the_rows_are_read():
    """data= would hand prepare rows that skipped their own checks (here a NaN): prepare
    refuses a context it was not issued before reading them."""
    X, y = _binary_data()
    est = dp.PrivateLogisticRegression(classes=[-1, 1], random_state=0)
    plan = est.plan_for(X, y)
    unchecked = X.copy()
    unchecked[0, 0] = np.nan
    labels = est._validated(X, y, NO_CONTEXT).labels
    for forged in (NO_CONTEXT.inner(None, checked=True, data=CheckedData(unchecked, y, labels)),
                   FitContext(data=CheckedData(unchecked, y, labels))):
        with pytest.raises(dp.errors.PrivacyError, match=r"^PrivateLogisticRegression\."
                                                         r"prepare: context= takes only"):
            est.prepare(unchecked, y, plan, context=forged)
    with pytest.raises(dp.errors.DataValidationError):  # NO_CONTEXT: the rows checked
        est.prepare(unchecked, y, plan)


def test_certify_takes_a_context_only_as_a_part_it_was_issued_to():
    """certify(..., context=): a context the caller made is refused before the rows are read
    (it could hand the dry run rows left out or checks skipped); one issued by certify_part
    gives the part's certificate, the certificate the public call states on the same rows."""
    X, y = _binary_data()
    est = dp.PrivateLogisticRegression(classes=[-1, 1])
    forged = NO_CONTEXT.inner(None)
    with pytest.raises(dp.errors.PrivacyError, match=r"^PrivateLogisticRegression\."
                                                     r"certify: context= takes only"):
        est.certify(X, y, context=forged)
    assert certify_part(est, X, y, forged).to_dict() == est.certify(X, y).to_dict()


def test_an_issued_context_reaches_prepare_and_fit_prepared_for_its_block_only():
    X, y = _binary_data()
    est = dp.PrivateLogisticRegression(classes=[-1, 1], random_state=0)
    plan = est.plan_for(X, y)
    with issued(NO_CONTEXT.inner(NoiseSource(np.random.default_rng(2), seeded=True))) as context:
        est.fit_prepared(est.prepare(X, y, plan, context=context), plan, context=context)
    assert est.certificate_.private
    with pytest.raises(dp.errors.PrivacyError, match="context= takes only"):
        est.prepare(X, y, plan, context=context)


def test_one_vs_rest_and_the_sweep_hand_their_parts_issued_contexts():
    """The binary models (fit and certify) and the sweep's models are prepared and released
    with contexts their fit issued: each path runs, and no context stays issued after it."""
    from dpconvex.estimators import base

    rng = np.random.default_rng(8)
    X = rng.normal(size=(60, 2)) * 0.3
    y = np.arange(60) % 3
    est = dp.PrivateLogisticRegression(classes=[0, 1, 2], random_state=0)
    assert est.fit(X, y).coef_.shape == (3, 2)
    assert est.certify(X, y).private
    sweep = dp.epsilon_sweep(dp.PrivateLogisticRegression(classes=[-1, 1], lam=0.1),
                             *_binary_data(), epsilons=[0.5, 1.0])
    assert sweep.templates_built == 1 and len(sweep.estimators) == 2  # one prepare, two fits
    assert base._ISSUED == {}


def test_one_vs_rest_states_the_delta_line_once_for_the_whole_as_its_fit_does():
    """The binary models certify through their public certify inside the whole's hold, as
    they fit: δ/C >= 1/n is stated once, by the whole (δ = 0.3 over C = 3 on n = 60 rows), on
    the rows and on the shape alike, and by no binary model."""
    rng = np.random.default_rng(8)
    X = rng.normal(size=(60, 2)) * 0.3
    y = np.arange(60) % 3
    est = dp.PrivateLogisticRegression(classes=[0, 1, 2], delta=0.3, random_state=0)
    with pytest.warns(dp.errors.PrivacyWarning, match="at least 1/n"):
        fitted = est.fit(X, y).certificate_
    for certificate in (fitted, est.certify(X, y), est.certify(n=60, n_features=2)):
        assert certificate.states(DeltaRows(0.3, 60))
        assert len(certificate.parts) == 3
        assert not any(line for part in certificate.parts for line in part.lines
                       if isinstance(line, DeltaRows))


def test_a_part_whose_fit_takes_no_context_is_refused_by_name():
    class OwnFit(dp.PrivateLogisticRegression):
        def fit(self, X, y):  # a user's override without the keyword
            return super().fit(X, y)

    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(dp.ParameterError, match="takes no context="):
        fit_part(OwnFit(classes=[0, 1]), X, y, NO_CONTEXT.inner(None))


def test_a_context_the_caller_made_is_refused_by_prepare_on_dask_rows():
    """The large-margin preparation of Dask rows (which reads the context's rows left out and
    label-set warning) refuses a context it was not issued, as the in-memory one does."""
    da = pytest.importorskip("dask.array")
    X, y = _binary_data(n=40)
    rows = da.from_array(X, chunks=20)
    est = dp.PrivateLargeMarginGaussian(classes=[-1, 1], lam=0.1, random_state=0)
    forged = FitContext(label_warning=LabelWarning(issued=True))  # would hide the label warning
    with pytest.raises(dp.errors.PrivacyError, match=r"^PrivateLargeMarginGaussian\.prepare: "
                                                     r"context= takes only"):
        est.prepare(rows, y, est.plan_for(rows, y), context=forged)


@pytest.mark.parametrize("safeguard", [True, False])
def test_the_regression_front_doors_learner_builds_no_warning_its_holder_answers_for(
        safeguard, monkeypatch):
    """The front door warns of a missing label range in its own name, and under the safeguard
    its selection guards against the learner's noise (``FitContext.range_warned``,
    ``noise_guarded``): the learner builds neither warning; on every row its noise check runs
    once, as the same learner's fit alone runs it."""
    checks = []
    real = release_module.warn_if_noise_dominates
    monkeypatch.setattr(release_module, "warn_if_noise_dominates",
                        lambda *args, **kwargs: checks.append(kwargs["owner"]) or real(
                            *args, **kwargs))
    rng = np.random.default_rng(3)
    X = rng.uniform(-0.5, 0.5, size=(3000, 3))
    y = np.clip(0.6 * X[:, 0] + 0.05 * rng.normal(size=3000), -1.0, 1.0)
    reg = dp.PrivateRegressor(epsilon=1.0, safeguard=safeguard, random_state=0)
    learner = clone(reg.plan_for(X, y).chosen.learner)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        learner.fit(X, y)
        alone = [str(w.message) for w in caught]
        caught.clear()
        reg.fit(X, y)
    unit = [str(w.message) for w in caught if "label_range was not given" in str(w.message)]
    assert [text.split(":")[0] for text in alone] == ["PrivateLinearRegressor.fit"]
    assert len(unit) == 1 and unit[0].startswith("PrivateRegressor.fit: ")
    assert checks == ["PrivateLinearRegressor"] * (1 if safeguard else 2)
