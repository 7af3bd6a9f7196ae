"""A refusal's remedy applies to the call that was refused (texts only, no data facts)."""

import warnings

import numpy as np
import pandas as pd
import pytest

import dpconvex as dp
from dpconvex.errors import SolverCostWarning


def _rows(n=60):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 3)) * 0.4
    return X, (X[:, 0] > 0).astype(int)


@pytest.mark.parametrize("call", [
    lambda: dp.draft_schema(np.arange(100.0)),
    lambda: dp.PublicEncoder(dp.PublicSchema({"a": dp.Numeric(0, 100)})).fit_transform(
        pd.Series(np.arange(10.0), name="a")),
], ids=["draft_schema", "PublicEncoder"])
def test_a_one_dimensional_table_is_one_column(call):
    with pytest.raises(dp.DataValidationError) as info:
        call()
    message = str(info.value)
    assert "reshape(-1, 1)" in message and "to_frame()" in message
    assert "reshape(1, -1)" not in message


def test_solver_cost_warning_names_the_documented_default():
    X, y = _rows()
    with pytest.warns(SolverCostWarning) as caught:
        dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1], solver="clarabel",
                                     random_state=0).fit(X, y)
    message = str(caught[0].message)
    assert "solver=None" in message and "'auto'" not in message


@pytest.mark.parametrize("kw, remedy, absent", [
    (dict(optimality_tol=1e-3, max_iter=1), "larger optimality_tol", "exact minimizer only"),
    (dict(max_iter=1), "exact minimizer only", "optimality_tol"),
])
def test_solver_error_speaks_of_the_mode_asked_for(kw, remedy, absent):
    X, y = _rows()
    with warnings.catch_warnings(), pytest.raises(dp.SolverError) as info:
        warnings.simplefilter("ignore")
        dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1], random_state=0, **kw).fit(X, y)
    message = str(info.value)
    assert remedy in message and absent not in message
    assert "before its optimality residual" not in message


def test_draft_schema_refusals_speak_of_draft_schema():
    df = pd.DataFrame({"a": np.arange(100.0)})
    with pytest.raises(dp.ParameterError) as info:
        dp.draft_schema(df, epsilon=1.0, random_state=np.random.default_rng(0))
    assert "draft_schema" in str(info.value) and "estimator keeps" not in str(info.value)
    with pytest.raises(dp.BudgetError, match="Lower the epsilon of draft_schema"):
        dp.draft_schema(df, epsilon=1.0, accountant=dp.BudgetAccountant(epsilon=0.1))


def test_the_package_namespace_is_its_public_names():
    public = set(dp.__all__)
    assert "verbosity" in public and "collect_diagnostics" in public
    assert dp.verbosity.__module__ == "dpconvex.errors"
    shown = {n for n in dir(dp) if not n.startswith("_")}
    assert not shown & {"Any", "annotations", "importlib"}
    assert public - {"__version__"} <= shown


@pytest.mark.parametrize("verbose", [True, 3, -1, 1.5])
def test_a_refused_verbose_gets_one_message(verbose):
    with pytest.raises(dp.ParameterError, match=r"'verbose' .* must be an int in \[0, 2\]: 0 is "
                                                r"silent"):
        dp.PrivateLargeMarginGaussian(epsilon=1.0, classes=[0, 1], verbose=verbose).fit(*_rows())


def _constant_released(est, X, y) -> str:
    """The safeguard's warning when it released its constant (the test's data have no signal)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X, y)
    released = [str(w.message) for w in caught if "the safeguard released" in str(w.message)]
    assert est.learner_.startswith("constant") and len(released) == 1
    return released[0]


@pytest.mark.parametrize("n, delta, suggested", [
    (600, 0.0, False),           # below 5,000 rows the rule takes the pure form at any delta
    (600, 1 / 600**2, False),
    (5000, 0.0, True),           # delta > 0 would give median regression its Gaussian form
    (5000, 1 / 5000**2, False),  # already given
])
def test_the_regressor_safeguard_suggests_delta_only_where_the_rule_would_use_it(n, delta,
                                                                                 suggested):
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.25, 0.25, size=(n, 3))
    y = 5 + rng.normal(scale=0.3, size=n)  # no signal: the mean is the right release
    message = _constant_released(dp.PrivateRegressor(epsilon=1.0, delta=delta, label_range=(0, 10),
                                                     random_state=0), X, y)
    assert ("delta > 0" in message) == suggested
    assert "safeguard=False" not in message and "not by refitting" in message


@pytest.mark.parametrize("d, delta, suggested", [
    (3, 0.0, False),           # the Huber SVM's pure form has the lower bound: delta is unused
    (40, 0.0, True),           # delta > 0 buys the Gaussian form
    (40, 1 / 3000**2, False),  # already given
])
def test_the_classifier_safeguard_suggests_delta_only_where_the_rule_would_use_it(d, delta,
                                                                                  suggested):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = (rng.random(3000) < 0.8).astype(int)  # no signal, a majority class of 80 %
    message = _constant_released(dp.PrivateClassifier(epsilon=1.0, delta=delta, classes=[0, 1],
                                                      random_state=0), X, y)
    assert ("delta > 0" in message) == suggested


@pytest.mark.parametrize("level, shown", [("x", "a str"), (None, "None"), (-1, "-1"),
                                          (1.5, "a float"), (True, "a bool"), (3, "3"),
                                          (10**400, "an int of more than six digits")])
def test_verbosity_refuses_a_level_outside_zero_to_two(level, shown):
    with pytest.raises(dp.ParameterError, match=r"'level' argument of verbosity must be an int "
                       rf"in \[0, 2\] .* Got {shown} instead"):
        with dp.verbosity(level):
            pass
    with dp.verbosity(np.int64(2)):  # a NumPy int is an int
        pass
