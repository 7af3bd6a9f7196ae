"""Bad input gets a named error whose message says what to change, and produces no model."""

import numpy as np
import pytest

import dpconvex as dp

rng = np.random.default_rng(0)
X = rng.normal(size=(40, 3)) / 3
y = (X[:, 0] > 0).astype(int)

X_nan = X.copy()
X_nan[3, 1] = np.nan
X_inf = X.copy()
X_inf[0, 0] = np.inf

ESTIMATORS = [dp.PrivateLogisticRegression, dp.PrivateHuberSVM]

# (id, constructor kwargs, X, y, exception, message fragment)
CASES = [
    ("nan", {}, X_nan, y, dp.DataValidationError, "NaN or infinite"),
    ("inf", {}, X_inf, y, dp.DataValidationError, "NaN or infinite"),
    ("X 1-D", {}, X[:, 0], y, dp.DataValidationError, "reshape"),
    ("X 3-D", {}, X[None], y, dp.DataValidationError, "2-D"),
    ("y 2-D", {}, X, np.c_[y, y], dp.DataValidationError, "1-D"),
    ("length mismatch", {}, X, y[:-1], dp.DataValidationError, "must match"),
    ("one class", {}, X, np.zeros(40), dp.DataValidationError, "classes="),
    ("n < 2", {}, X[:1], y[:1], dp.DataValidationError, "at least 2"),
    ("empty", {}, np.empty((0, 3)), np.empty(0), dp.DataValidationError, "at least 2"),
    ("strings in X", {}, np.array([["a", "b"]] * 4), [0, 1, 0, 1], dp.DataValidationError,
     "Encode categorical"),
    ("ragged", {}, [[1.0, 2.0], [3.0]], [0, 1], dp.DataValidationError, "2-D"),
    ("eps 0", {"epsilon": 0}, X, y, dp.ParameterError, "'epsilon' parameter"),
    ("eps < 0", {"epsilon": -1.0}, X, y, dp.ParameterError, r"\(0, inf\)"),
    ("eps nan", {"epsilon": float("nan")}, X, y, dp.ParameterError, "'epsilon'"),
    ("eps str", {"epsilon": "1"}, X, y, dp.ParameterError, "'epsilon'"),
    ("eps inf", {"epsilon": float("inf")}, X, y, dp.ParameterError, "'epsilon'"),
    ("lam 0", {"lam": 0.0}, X, y, dp.ParameterError, "'lam'"),
    ("lam < 0", {"lam": -1e-3}, X, y, dp.ParameterError, "'lam'"),
    ("data_norm 0", {"data_norm": 0}, X, y, dp.ParameterError, "'data_norm'"),
    ("data_norm < 0", {"data_norm": -2.0}, X, y, dp.ParameterError, "'data_norm'"),
    ("X None", {}, None, y, dp.DataValidationError, "X is None; pass a 2-D array"),
    ("mechanism", {"mechanism": "laplace"}, X, y, dp.ParameterError, "'mechanism'"),
    ("a cover as the mechanism", {"mechanism": "amp"}, X, y, dp.ParameterError,
     "'amp' is a cover over another mechanism: pass that one and optimality_tol="),
    ("solver", {"solver": "ecos"}, X, y, dp.ParameterError, "'solver'"),
    ("fit_intercept", {"fit_intercept": "yes"}, X, y, dp.ParameterError, "'fit_intercept'"),
    ("random_state", {"random_state": "seed"}, X, y, dp.ParameterError, "random_state"),
]


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: e.__name__)
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bad_fit_input(est, case):
    _, kwargs, Xb, yb, exc, msg = case
    model = est(**kwargs)
    with pytest.raises(exc, match=msg):
        model.fit(Xb, yb)
    assert not hasattr(model, "coef_") and not hasattr(model, "certificate_")


@pytest.mark.parametrize("kwargs,msg", [({"h": 0}, "'h'"), ({"loss": "hinge"}, "'loss'")])
def test_bad_huber_params(kwargs, msg):
    with pytest.raises(dp.ParameterError, match=msg):
        dp.PrivateHuberSVM(**kwargs).fit(X, y)


def test_predict_checks():
    m = dp.PrivateLogisticRegression(random_state=0)
    with pytest.raises(dp.NotFittedError):
        m.predict(X)
    m.fit(X, y)
    with pytest.raises(dp.DataValidationError, match="expecting 3 features"):
        m.predict(X[:, :2])
    with pytest.raises(dp.DataValidationError, match="NaN"):
        m.predict(X_nan)


def test_errors_are_value_errors_for_sklearn():
    assert issubclass(dp.ParameterError, ValueError)
    assert issubclass(dp.DataValidationError, ValueError)
    assert issubclass(dp.SolverError, RuntimeError)


@pytest.mark.parametrize("make", [
    lambda: dp.PrivateLogisticRegression(classes=[0, 1]),
    lambda: dp.PrivateRegressor(label_range=(0, 1)),
])
def test_a_refusal_of_text_names_no_length_of_a_value(make):
    """numpy's text dtype holds the longest value's length (<U5, <U39): one record's."""
    texts = []
    for longest in ("0.5", "0.5" * 13):
        X = np.array([["0.1", "0.2"]] * 9 + [[longest, "0.3"]])
        with pytest.raises(dp.DataTypeError) as caught:
            make().fit(X, np.arange(10) % 2)
        texts.append(str(caught.value))
    assert texts[0] == texts[1] and "dtype str" in texts[0]


@pytest.mark.parametrize("other", [0.25, __import__("decimal").Decimal("0.25"), 2**70, None])
def test_a_refusal_of_text_in_a_list_does_not_depend_on_another_record(other):
    # NumPy reads [[0.5, "a"], [0.25, 1.0]] as str and [[0.5, "a"], [Decimal, 1.0]] as object
    rows = [[0.5, "a"], [other, 1.0], [0.1, 0.2]]
    with pytest.raises(dp.DataTypeError) as got:
        dp.PrivateLogisticRegression(classes=[0, 1]).fit(rows, [0, 1, 0])
    assert str(got.value) == (
        "PrivateLogisticRegression.fit: X must be an array of numbers; it holds strings or bytes, and "
        "dpconvex does not read numbers from text: convert numeric columns yourself (e.g. "
        "pandas.to_numeric). Encode categorical columns first.")


@pytest.mark.parametrize("kind", ["numeric", "codes"])
def test_encode_refuses_a_ragged_column_by_name(kind):
    from dpconvex.data.encoder import encode

    ragged = [30.0, [1.0, 2.0]]
    schema = dp.PublicSchema({"age": dp.Numeric(0, 100)} if kind == "numeric" else
                             {"plan": dp.Categorical(["a", "b"])})
    columns = ({"age": ragged}, {}) if kind == "numeric" else ({}, {"plan": ragged})
    with pytest.raises(dp.ParameterError, match="one value per record"):
        encode(schema, *columns)
