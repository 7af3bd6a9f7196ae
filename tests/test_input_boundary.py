"""The input boundary of every estimator and of the CLI.

Table-driven: each row is one bad input, the *exact* dpconvex exception it must
raise (never a bare ValueError/TypeError/IndexError from numpy or scikit-learn),
a regex on the message showing that it says what to change, and a check that
nothing was produced (no fitted attribute, no ledger spend, no results folder).

Rows marked ``xfail(strict=True, reason="BUG: ...")`` are inputs that currently
produce a model or an un-named error; they are reported to be fixed in the
library, and will turn into failures (XPASS) once fixed, so the mark is removed
then.
"""

from __future__ import annotations

import copy
import re

import numpy as np
import pytest
import scipy.sparse as sp

import dpconvex as dp
from dpconvex import cli
from dpconvex.errors import DPConvexError
from dpconvex.estimators.kernels import RandomFourierFeatures
from dpconvex.runs import ProblemError

BARE = (ValueError, TypeError, IndexError, KeyError, AttributeError, RuntimeError, OSError)

rng = np.random.default_rng(0)
X = rng.normal(size=(30, 3)) / 3
y = (X[:, 0] > 0).astype(int)  # two classes of 15 rows each (seed 0)
y3 = np.arange(30) % 3
X_nan = np.where(X > 0.3, np.nan, X)
X_pinf = np.where(X > 0.3, np.inf, X)
X_minf = np.where(X > 0.3, -np.inf, X)
X_str = np.array([["a", "b", "c"]] * 6)
X_dicts = np.array([{"a": 1.0}] * 6, dtype=object).reshape(3, 2)
RAGGED = [[1.0, 2.0, 0.1], [3.0], [0.5, 0.5, 0.5]]
BUG = "BUG: "


def xbug(reason: str):
    return pytest.mark.xfail(strict=True, reason=BUG + reason)


# -- estimator factories (fresh, unfitted) --------------------------------------------
def LR(**kw):
    return dp.PrivateLogisticRegression(**kw)


def HUB(**kw):
    return dp.PrivateHuberSVM(**kw)


def PLC(**kw):
    return dp.PrivateLinearClassifier(**kw)


def LMG(**kw):
    return dp.PrivateLargeMarginGaussian(**kw)


def NGD(**kw):
    return dp.NoisyGradientDescent(**{"epsilon": 1.0, "delta": 1e-5, "steps": 5, "radius": 5.0,
                                      **kw})


def PGS(grid=None, estimator=None, **kw):
    est = estimator if estimator is not None else dp.PrivateLogisticRegression()
    return dp.PrivateGridSearch(est, {"lam": [0.01, 0.1]} if grid is None else grid,
                                **{"epsilon": 1.0, **kw})


def RFF(**kw):
    return RandomFourierFeatures(**kw)


def fitted_attributes(obj) -> list[str]:
    """Public attributes set by fit (scikit-learn convention: trailing underscore)."""
    return sorted(k for k in vars(obj) if k.endswith("_") and not k.startswith("_"))


def check_named(excinfo, exc: type) -> None:
    """The exception is exactly ``exc``, a dpconvex error, not a bare Python/numpy one."""
    assert excinfo.type is exc, f"expected exactly {exc.__name__}, got {excinfo.type.__name__}"
    assert isinstance(excinfo.value, DPConvexError)
    assert excinfo.type not in BARE


# =====================================================================================
# fit: (make, X, y, exception, message regex)
# =====================================================================================
FIT_CASES = [
    # ---- non-finite / empty / wrong dtype -----------------------------------------
    pytest.param(LMG, X_nan, y, dp.DataValidationError, r"X contains NaN or infinite.*Impute or drop",
                 id="X NaN | LargeMarginGaussian"),
    pytest.param(NGD, X_pinf, y, dp.DataValidationError, r"NaN or infinite value.*Impute or drop",
                 id="X +inf | NoisyGD"),
    pytest.param(PLC, X_minf, y, dp.DataValidationError, r"NaN or infinite value.*Impute or drop",
                 id="X -inf | LinearClassifier"),
    pytest.param(RFF, X_nan, None, dp.DataValidationError, r"NaN or infinite value",
                 id="X NaN | RandomFourierFeatures"),
    pytest.param(PGS, np.empty((0, 3)), np.empty(0), dp.DataValidationError,
                 r"0 sample\(s\); at least 1 are needed", id="X empty | GridSearch"),
    pytest.param(LMG, np.empty((0, 3)), np.empty(0), dp.DataValidationError,
                 r"0 sample\(s\); at least 2 are needed", id="X empty | LargeMarginGaussian"),
    pytest.param(NGD, X[:1], y[:1], dp.DataValidationError, r"1 sample\(s\); at least 2",
                 id="X one row | NoisyGD"),
    pytest.param(HUB, np.empty((30, 0)), y, dp.DataValidationError,
                 r"0 feature\(s\).*minimum of 1", id="X zero features | HuberSVM"),
    pytest.param(LMG, X_str, [0, 1] * 3, dp.DataTypeError, r"array of numbers.*Encode categorical",
                 id="X strings | LargeMarginGaussian"),
    pytest.param(NGD, X.astype(complex), y, dp.DataValidationError,
                 r"Complex data not supported.*pass real numbers", id="X complex | NoisyGD"),
    pytest.param(PGS, {"a": 1.0}, y, dp.DataTypeError, r"array of numbers.*could not be converted",
                 id="X dict | GridSearch"),
    pytest.param(LR, X_dicts, [0, 1, 0], dp.DataTypeError, r"array of numbers.*could not be converted",
                 id="X object array of dicts | LogisticRegression"),
    pytest.param(NGD, RAGGED, [0, 1, 0], dp.DataTypeError, r"2-D array of numbers",
                 id="X ragged list | NoisyGD"),
    pytest.param(RFF, RAGGED, None, dp.DataTypeError, r"2-D array of numbers",
                 id="X ragged list | RandomFourierFeatures"),
    pytest.param(LMG, sp.csr_matrix(X), y, dp.DataValidationError, r"sparse.*pass a dense array",
                 id="X sparse | LargeMarginGaussian"),
    pytest.param(LR, X.astype(str), y, dp.DataTypeError,
                 r"holds strings.*does not read numbers from text", id="X numeric strings | LR"),
    pytest.param(PLC, X.astype(str).astype(object), y, dp.DataTypeError,
                 r"strings or bytes \(in an object array\).*pandas\.to_numeric",
                 id="X numeric strings in object array | LinearClassifier"),
    pytest.param(HUB, X.astype(str).astype(bytes), y, dp.DataTypeError, r"holds bytes",
                 id="X bytes | HuberSVM"),
    pytest.param(NGD, (X * 100).astype("timedelta64[s]"), y, dp.DataTypeError,
                 r"time spans.*public map", id="X timedelta64 | NoisyGD"),
    pytest.param(LMG, np.datetime64("2020-01-01") + (X * 100).astype("timedelta64[D]"), y,
                 dp.DataTypeError, r"dates.*days since a fixed date",
                 id="X datetime64 | LargeMarginGaussian"),
    pytest.param(PGS, np.where(X > 0.3, None, X), y, dp.DataValidationError,
                 r"missing values \(None or pandas NA\)", id="X None entries | GridSearch"),
    pytest.param(RFF, np.array([[10**400, 1, 1]] * 3, dtype=object), None, dp.DataValidationError,
                 r"too large for float64", id="X int above float64 | RandomFourierFeatures"),
    # ---- shapes ---------------------------------------------------------------------
    pytest.param(NGD, X[:, 0], y, dp.DataValidationError, r"must be 2-D.*X\.reshape\(-1, 1\)",
                 id="X 1-D | NoisyGD"),
    pytest.param(PGS, X[None], y, dp.DataValidationError, r"must be 2-D.*3 dimension",
                 id="X 3-D | GridSearch"),
    pytest.param(RFF, X[:, 0], None, dp.DataValidationError, r"must be 2-D.*reshape",
                 id="X 1-D | RandomFourierFeatures"),
    pytest.param(LMG, X, np.c_[y, y], dp.DataValidationError, r"y must be 1-D.*y\.ravel\(\)",
                 id="y 2-D | LargeMarginGaussian"),
    pytest.param(NGD, X, y[:-1], dp.DataValidationError, r"30 rows but y has 29 labels.*must match",
                 id="length mismatch | NoisyGD"),
    pytest.param(PGS, X, y[:-1], dp.DataValidationError, r"30 rows but y has 29 labels.*must match",
                 id="length mismatch | GridSearch"),
    # ---- labels ---------------------------------------------------------------------
    pytest.param(LMG, X, None, dp.DataValidationError, r"target y is None\. Pass the labels",
                 id="y None | LargeMarginGaussian"),
    pytest.param(LMG, X, np.where(y > 0, np.nan, 0.0), dp.DataValidationError,
                 r"NaN or infinite labels; drop those rows", id="y NaN | LargeMarginGaussian"),
    pytest.param(PLC, X, np.array([None, 1] * 15, dtype=object), dp.DataValidationError,
                 r"None labels; drop those rows", id="y with None | LinearClassifier"),
    pytest.param(NGD, X, X[:, 0], dp.DataValidationError, r"continuous.*Encode the classes",
                 id="y continuous | NoisyGD"),
    pytest.param(LMG, X, np.array(["a", 1] * 15, dtype=object), dp.DataValidationError,
                 r"cannot be sorted.*labels of one type", id="y mixed str/int | LargeMarginGaussian"),
    pytest.param(LMG, X, np.zeros(30), dp.DataValidationError,
                 r"could not read the label set.*classes=",
                 id="one class | LargeMarginGaussian"),
    pytest.param(NGD, X, np.ones(30), dp.DataValidationError,
                 r"could not read the label set.*classes=", id="one class | NoisyGD"),
    pytest.param(PGS, X, np.zeros(30), dp.DataValidationError,
                 r"could not read the label set.*classes=", id="one class | GridSearch"),
    pytest.param(LR, X, y.astype(complex), dp.DataValidationError,
                 r"Unknown label type: complex", id="y complex | LR"),
    pytest.param(LMG, X, np.where(y > 0, "b", "a").astype(bytes), dp.DataTypeError,
                 r"bytes.*y\.astype\(str\)", id="y bytes | LargeMarginGaussian"),
    pytest.param(NGD, X, (X[:, 0] + 0.0).astype(object), dp.DataValidationError,
                 r"Unknown label type: continuous", id="y continuous object | NoisyGD"),
    # three classes: one-vs-rest inside the estimator (tests/estimators/test_ovr.py)
    # ---- epsilon --------------------------------------------------------------------
    pytest.param(lambda: LMG(epsilon=0), X, y, dp.ParameterError,
                 r"'epsilon' parameter of PrivateLargeMarginGaussian must be a float in \(0, inf\)",
                 id="epsilon=0 | LargeMarginGaussian"),
    pytest.param(lambda: NGD(epsilon=-1.0), X, y, dp.ParameterError,
                 r"'epsilon' parameter of NoisyGradientDescent must be a float in \(0, inf\)",
                 id="epsilon<0 | NoisyGD"),
    pytest.param(lambda: NGD(epsilon=float("nan")), X, y, dp.ParameterError,
                 r"'epsilon' parameter.*\(0, inf\)\. Got nan", id="epsilon=NaN | NoisyGD"),
    pytest.param(lambda: PGS(epsilon="1"), X, y, dp.ParameterError,
                 r"'epsilon' parameter of PrivateGridSearch must be a float.*Got '1'",
                 id="epsilon='1' (str) | GridSearch"),
    pytest.param(lambda: PLC(epsilon=float("inf")), X, y, dp.ParameterError,
                 r"'epsilon' parameter.*\(0, inf\)\. Got inf", id="epsilon=inf | LinearClassifier"),
    pytest.param(lambda: HUB(epsilon=True), X, y, dp.ParameterError, r"'epsilon' parameter.*Got True",
                 id="epsilon=True (bool) | HuberSVM"),
    pytest.param(lambda: LMG(epsilon=None), X, y, dp.ParameterError, r"'epsilon' parameter.*Got None",
                 id="epsilon=None | LargeMarginGaussian"),
    # ---- delta (NoisyGD) ------------------------------------------------------------
    pytest.param(lambda: NGD(delta=0), X, y, dp.ParameterError,
                 r"'delta' parameter of NoisyGradientDescent must be a float in \(0, 1\)",
                 id="delta=0 | NoisyGD"),
    pytest.param(lambda: NGD(delta=1), X, y, dp.ParameterError, r"'delta'.*\(0, 1\)\. Got 1",
                 id="delta=1 | NoisyGD"),
    pytest.param(lambda: NGD(delta=1.5), X, y, dp.ParameterError, r"'delta'.*\(0, 1\)",
                 id="delta=1.5 | NoisyGD"),
    pytest.param(lambda: NGD(delta=-0.1), X, y, dp.ParameterError, r"'delta'.*\(0, 1\)",
                 id="delta<0 | NoisyGD"),
    pytest.param(lambda: NGD(delta=float("nan")), X, y, dp.ParameterError, r"'delta'.*Got nan",
                 id="delta=NaN | NoisyGD"),
    pytest.param(lambda: NGD(delta="1e-5"), X, y, dp.ParameterError, r"'delta'.*Got '1e-5'",
                 id="delta='1e-5' (str) | NoisyGD"),
    # ---- lambda, data_norm ----------------------------------------------------------
    pytest.param(lambda: LMG(lam=0.0), X, y, dp.PrivacyError,
                 r"strong convexity.*Use lam > 0.*or mechanism='none'", id="lam=0 | LargeMarginGaussian"),
    pytest.param(lambda: LMG(lam=-1.0), X, y, dp.PrivacyError, r"strong convexity.*Use lam > 0",
                 id="lam<0 | LargeMarginGaussian"),
    pytest.param(lambda: LMG(lam=float("nan")), X, y, dp.ParameterError,
                 r"'lam' parameter.*\(0, inf\)", id="lam=NaN | LargeMarginGaussian"),
    pytest.param(lambda: LMG(lam=-1.0, mechanism="none"), X, y, dp.ParameterError,
                 r"'lam' parameter.*\[0, inf\)", id="lam<0 non-private | LargeMarginGaussian"),
    pytest.param(lambda: PLC(lam=0), X, y, dp.ParameterError,
                 r"'lam' parameter of PrivateLinearClassifier must be a float in \(0, inf\)",
                 id="lam=0 | LinearClassifier"),
    pytest.param(lambda: NGD(data_norm=0), X, y, dp.ParameterError,
                 r"'data_norm' parameter of NoisyGradientDescent must be a float in \(0, inf\)",
                 id="data_norm=0 | NoisyGD"),
    pytest.param(lambda: LMG(data_norm=-1.0), X, y, dp.ParameterError,
                 r"'data_norm' parameter.*\(0, inf\)", id="data_norm<0 | LargeMarginGaussian"),
    pytest.param(lambda: PLC(data_norm=float("nan")), X, y, dp.ParameterError,
                 r"'data_norm' parameter.*Got nan", id="data_norm=NaN | LinearClassifier"),
    # ---- PrivateLargeMarginGaussian specifics ---------------------------------------
    # n_components above a class's size is not refused (a refusal read from one
    # record's label would be a release): tests/test_release_hygiene.py
    pytest.param(lambda: LMG(n_components=0), X, y, dp.ParameterError,
                 r"'n_components'.*int in \[1, 10,000\]: ", id="n_components=0 | LargeMarginGaussian"),
    pytest.param(lambda: LMG(n_components=1.5), X, y, dp.ParameterError,
                 r"'n_components'.*int in \[1, 10,000\]: .*\. Got 1\.5",
                 id="n_components=1.5 | LargeMarginGaussian"),
    pytest.param(lambda: LMG(gamma=-1.0), X, y, dp.ParameterError, r"'gamma'.*\[0, 1e\+06\]",
                 id="gamma<0 | LargeMarginGaussian"),
    pytest.param(lambda: LMG(h=0), X, y, dp.ParameterError, r"'h' parameter.*\(0, inf\)",
                 id="h=0 | LargeMarginGaussian"),
    pytest.param(lambda: LMG(kmeans_epsilon_fraction=1.0), X, y, dp.ParameterError,
                 r"'kmeans_epsilon_fraction'.*\(0, 1\)", id="kmeans_epsilon_fraction=1 | LMG"),
    pytest.param(lambda: LMG(component_assignment="kmeans"), X, y, dp.ParameterError,
                 r"'component_assignment'.*must be one of", id="component_assignment unknown | LMG"),
    pytest.param(lambda: LMG(n_components=2, centers=np.zeros((3, 3))), X, y, dp.ParameterError,
                 r"'centers'.*shape \(n_classes, n_components, n_features\) = \(2, 2, 3\)",
                 id="centers wrong shape | LargeMarginGaussian"),
    pytest.param(lambda: LMG(loss="huber"), X, y, dp.ParameterError,
                 r"'loss'.*'auto', 'softmax', 'pairwise', None or a dpconvex\.objectives\.Loss instance",
                 id="loss str | LargeMarginGaussian"),
    pytest.param(lambda: LMG(loss="pairwise", extra_terms=[1]), X, y, dp.ParameterError,
                 r"'extra_terms'.*sequence of MatrixTerm", id="extra_terms garbage | LargeMarginGaussian"),
    pytest.param(lambda: LMG(random_state="seed"), X, y, dp.ParameterError,
                 r"'random_state' parameter of PrivateLargeMarginGaussian must be None.*"
                 r"non-negative int", id="random_state str | LMG"),
    # ---- NoisyGradientDescent specifics ---------------------------------------------
    pytest.param(lambda: NGD(steps=0), X, y, dp.ParameterError, r"'steps'.*int in \[1, [\d,]+\]: .*\. Got 0",
                 id="steps=0 | NoisyGD"),
    pytest.param(lambda: NGD(steps=2.5), X, y, dp.ParameterError,
                 r"'steps'.*int in \[1, [\d,]+\]: .*\. Got 2\.5",
                 id="steps=2.5 | NoisyGD"),
    pytest.param(lambda: NGD(radius=0), X, y, dp.ParameterError, r"'radius'.*\(0, inf\)",
                 id="radius=0 | NoisyGD"),
    pytest.param(lambda: NGD(radius=float("inf")), X, y, dp.ParameterError, r"'radius'.*Got inf",
                 id="radius=inf | NoisyGD"),
    pytest.param(lambda: NGD(clip=-1.0), X, y, dp.ParameterError, r"'clip'.*\(0, inf\)",
                 id="clip<0 | NoisyGD"),
    pytest.param(lambda: NGD(clip=0.0), X, y, dp.ParameterError, r"'clip'.*\(0, inf\)",
                 id="clip=0 | NoisyGD"),
    pytest.param(lambda: NGD(learning_rate=0.0), X, y, dp.ParameterError,
                 r"'learning_rate'.*\(0, inf\)", id="learning_rate=0 | NoisyGD"),
    pytest.param(lambda: NGD(accounting="moments"), X, y, dp.ParameterError,
                 r"'accounting'.*one of \['gdp', 'pld', 'rdp'\]", id="accounting unknown | NoisyGD"),
    pytest.param(lambda: NGD(loss="hinge"), X, y, dp.ParameterError, r"'loss'.*must be one of",
                 id="loss unknown | NoisyGD"),
    pytest.param(lambda: NGD(fit_intercept=1), X, y, dp.ParameterError, r"'fit_intercept'.*bool",
                 id="fit_intercept=1 | NoisyGD"),
    # ---- PrivateGridSearch specifics ------------------------------------------------
    pytest.param(lambda: PGS(grid={}), X, y, dp.ParameterError,
                 r"'param_grid'.*non-empty lists of values", id="param_grid {} | GridSearch"),
    pytest.param(lambda: PGS(grid=[]), X, y, dp.ParameterError, r"'param_grid'.*non-empty list of dicts",
                 id="param_grid [] | GridSearch"),
    pytest.param(lambda: dp.PrivateGridSearch(LR(), None, epsilon=1.0), X, y,
                 dp.ParameterError, r"'param_grid'.*Got None", id="param_grid None | GridSearch"),
    pytest.param(lambda: PGS(grid={"lam": 0.1}), X, y, dp.ParameterError,
                 r"values of 'lam' must be a list.*Got 0\.1", id="grid value scalar | GridSearch"),
    pytest.param(lambda: PGS(grid={"mechanism": "output"}), X, y, dp.ParameterError,
                 r"values of 'mechanism' must be a list", id="grid value str | GridSearch"),
    pytest.param(lambda: PGS(grid={"lam": {0.1, 0.2}}), X, y, dp.ParameterError,
                 r"values of 'lam' must be a list", id="grid value set | GridSearch"),
    pytest.param(lambda: PGS(grid={"lam": []}), X, y, dp.ParameterError,
                 r"values of 'lam' must be a non-empty 1-D list", id="grid value [] | GridSearch"),
    pytest.param(lambda: PGS(grid={"lam": np.ones((2, 2))}), X, y, dp.ParameterError,
                 r"non-empty 1-D list", id="grid value 2-D array | GridSearch"),
    pytest.param(lambda: PGS(grid={"lamda": [0.1]}), X, y, dp.ParameterError,
                 r"'lamda' is not a parameter of the estimator\. Valid parameters",
                 id="grid key unknown | GridSearch"),
    pytest.param(lambda: PGS(grid={"epsilon": [0.1, 1.0]}), X, y, dp.ParameterError,
                 r"must not hold privacy parameters .*'epsilon' sets the guarantee",
                 id="grid tunes epsilon | GridSearch"),
    pytest.param(lambda: PGS(grid=[{"lam": [0.1]}, 3]), X, y, dp.ParameterError,
                 r"'param_grid'.*list of dicts", id="grid list with non-dict | GridSearch"),
    pytest.param(lambda: PGS(grid={"lam": [-1.0, 0.1]}, random_state=0), X, y, dp.ParameterError,
                 r"'lam' parameter of PrivateLogisticRegression.*\(0, inf\)",
                 id="grid candidate lam<0 | GridSearch"),
    pytest.param(lambda: dp.PrivateGridSearch("LR", {"lam": [0.1]}, epsilon=1.0), X, y,
                 dp.ParameterError, r"'estimator'.*must be a scikit-learn estimator",
                 id="estimator str | GridSearch"),
    pytest.param(lambda: PGS(grid={"lam": [0.1, 0.2, 0.3]}), X[:6], y[:6], dp.DataValidationError,
                 r"cannot be split into 4 parts.*Use fewer candidates or more data",
                 id="too few rows for the grid | GridSearch"),
    pytest.param(lambda: PGS(public_validation=X), X, y, dp.ParameterError,
                 r"'public_validation'.*tuple \(X_val, y_val\)", id="public_validation ndarray | GridSearch"),
    pytest.param(lambda: PGS(public_validation=(X[:, :2], y)), X, y, dp.DataValidationError,
                 r"X_val has 2 features.*expecting 3", id="public_validation features | GridSearch"),
    pytest.param(lambda: PGS(estimator=LR(mechanism="none"), random_state=0), X, y, dp.PrivacyError,
                 r"non-private model.*use\s+sklearn\.model_selection\.GridSearchCV",
                 id="non-private candidate | GridSearch"),
    # ---- RandomFourierFeatures --------------------------------------------------------
    pytest.param(lambda: RFF(n_components=0), X, None, dp.ParameterError,
                 r"'n_components'.*int in \[1, 1,000,000\]: ",
                 id="n_components=0 | RandomFourierFeatures"),
    pytest.param(lambda: RFF(gamma=-1.0), X, None, dp.ParameterError, r"'gamma'.*\(0, inf\)",
                 id="gamma<0 | RandomFourierFeatures"),
    pytest.param(lambda: RFF(gamma=float("nan")), X, None, dp.ParameterError, r"'gamma'.*Got nan",
                 id="gamma=NaN | RandomFourierFeatures"),
    pytest.param(lambda: RFF(random_state=-1), X, None, dp.ParameterError,
                 r"'random_state' parameter of RandomFourierFeatures must be None.*non-negative int",
                 id="random_state<0 | RandomFourierFeatures"),
    # ---- budget ledger ----------------------------------------------------------------
    pytest.param(lambda: LR(epsilon=2.0, accountant=dp.BudgetAccountant(1.0)), X, y, dp.BudgetError,
                 r"over the budget.*Lower the epsilon of PrivateLogisticRegression",
                 id="over epsilon budget | LogisticRegression"),
    pytest.param(lambda: NGD(accountant=dp.BudgetAccountant(10.0)), X, y, dp.BudgetError,
                 r"delta=1e-05.*over the budget.*pure epsilon-DP \(delta=0\).*delta=\.\.\.",
                 id="delta budget 0 | NoisyGD"),
    pytest.param(lambda: PGS(accountant=dp.BudgetAccountant(0.5)), X, y, dp.BudgetError,
                 r"over the budget", id="over epsilon budget | GridSearch"),
    pytest.param(lambda: LMG(accountant="ledger"), X, y, dp.ParameterError,
                 r"'accountant'.*BudgetAccountant or None", id="accountant str | LargeMarginGaussian"),
]


@pytest.mark.parametrize("make,Xb,yb,exc,match", FIT_CASES)
def test_bad_fit_input(make, Xb, yb, exc, match):
    model = make()
    acc = getattr(model, "accountant", None)
    inner = getattr(model, "estimator", None)
    with pytest.raises(exc, match=match) as excinfo:
        model.fit(Xb, yb)
    check_named(excinfo, exc)
    assert fitted_attributes(model) == [], "a failed fit left fitted attributes behind"
    if hasattr(inner, "get_params"):
        assert fitted_attributes(inner) == []
    if isinstance(acc, dp.BudgetAccountant):
        assert acc.spends == [], "a refused fit was charged to the ledger"


# =====================================================================================
# predict / transform / score on fitted (or unfitted) models
# =====================================================================================
@pytest.fixture(scope="module")
def fitted():
    return {
        "LR": LR(random_state=0).fit(X, y),
        "HUB": HUB(random_state=0).fit(X, y),
        "PLC": PLC(random_state=0).fit(X, y),
        "LMG": LMG(random_state=0, solver="native").fit(X, y3),
        "NGD": NGD(random_state=0).fit(X, y),
        "PGS": PGS(random_state=0).fit(X, y),
        "RFF": RFF(n_components=8, random_state=0).fit(X),
    }


# (model key or factory, method, args, exception, regex)
PREDICT_CASES = [
    pytest.param("LR", "predict", (X[:, :2],), dp.DataValidationError,
                 r"2 features, but PrivateLogisticRegression is expecting 3",
                 id="predict 2 of 3 features | LR"),
    pytest.param("LR", "predict_proba", (np.c_[X, X],), dp.DataValidationError,
                 r"6 features.*expecting 3 features", id="predict_proba 6 of 3 features | LR"),
    pytest.param("HUB", "predict", (X[0],), dp.DataValidationError,
                 r"must be 2-D.*X\.reshape\(1, -1\)", id="predict 1-D row | HuberSVM"),
    pytest.param("PLC", "decision_function", (np.empty((0, 3)),), dp.DataValidationError,
                 r"0 sample\(s\)", id="decision_function empty | LinearClassifier"),
    pytest.param("LMG", "predict", (X[:, :2],), dp.DataValidationError,
                 r"expecting 3 features", id="predict 2 of 3 features | LargeMarginGaussian"),
    pytest.param("LMG", "predict", (X_nan,), dp.DataValidationError, r"NaN or infinite",
                 id="predict NaN | LargeMarginGaussian"),
    pytest.param("LMG", "decision_function", ({"a": 1},), dp.DataTypeError, r"array of numbers",
                 id="decision_function dict | LargeMarginGaussian"),
    pytest.param("NGD", "predict", (X_pinf,), dp.DataValidationError, r"NaN or infinite",
                 id="predict inf | NoisyGD"),
    pytest.param("NGD", "predict", (X[None],), dp.DataValidationError, r"must be 2-D",
                 id="predict 3-D | NoisyGD"),
    pytest.param("PGS", "predict", (X_str[:, :3],), dp.DataTypeError, r"Encode categorical",
                 id="predict strings | GridSearch"),
    pytest.param("PGS", "predict", (X[:, :1],), dp.DataValidationError, r"expecting 3 features",
                 id="predict 1 of 3 features | GridSearch"),
    pytest.param("RFF", "transform", (X[:, :2],), dp.DataValidationError,
                 r"RandomFourierFeatures is expecting 3 features", id="transform 2 of 3 features | RFF"),
    pytest.param("RFF", "approximate_kernel", (X, X.astype(complex)), dp.DataValidationError,
                 r"Complex data", id="approximate_kernel complex Y | RFF"),
    # unfitted
    pytest.param(LMG, "predict", (X,), dp.NotFittedError, r"not fitted yet\. Call 'fit'",
                 id="predict before fit | LargeMarginGaussian"),
    pytest.param(NGD, "decision_function", (X,), dp.NotFittedError, r"not fitted yet",
                 id="decision_function before fit | NoisyGD"),
    pytest.param(PLC, "predict_proba", (X,), dp.NotFittedError, r"not fitted yet",
                 id="predict_proba before fit | LinearClassifier"),
    pytest.param(RFF, "transform", (X,), dp.NotFittedError, r"not fitted yet",
                 id="transform before fit | RandomFourierFeatures"),
    pytest.param(PGS, "predict", (X,), dp.NotFittedError, r"not fitted yet",
                 id="predict before fit | GridSearch"),
    # labels at score time
    pytest.param("LMG", "score", (X, y3[:-1]), dp.DataValidationError, r"must match",
                 id="score length mismatch | LargeMarginGaussian"),
    pytest.param("NGD", "score", (X, y[:-1]), dp.DataValidationError, r"must match",
                 id="score length mismatch | NoisyGD"),
    pytest.param("LR", "score", (X, np.full(30, 7)), dp.DataValidationError, r"unseen|not seen|classes_",
                 id="score labels unseen in fit | LR"),
    pytest.param("PGS", "score", (X, np.full(30, "z")), dp.DataValidationError, r"label",
                 id="score str labels vs int classes | GridSearch"),
    pytest.param("LR", "score", (X, y, np.where(y > 0, np.nan, 1.0)), dp.DataValidationError,
                 r"sample_weight contains NaN or infinite", id="score weights NaN | LR"),
    pytest.param("LMG", "score", (X, y3, -np.ones(30)), dp.DataValidationError,
                 r"sample_weight contains negative", id="score weights negative | LargeMarginGaussian"),
    pytest.param("NGD", "score", (X, y, np.zeros(30)), dp.DataValidationError,
                 r"every sample_weight is zero", id="score weights all zero | NoisyGD"),
    pytest.param("PGS", "score", (X, y, np.ones(29)), dp.DataValidationError,
                 r"sample_weight has shape \(29,\); it must be \(30,\)",
                 id="score weights short | GridSearch"),
]


def _snapshot(model):
    return {k: copy.deepcopy(v) for k, v in vars(model).items() if k.endswith("_")}


@pytest.mark.parametrize("key,method,args,exc,match", PREDICT_CASES)
def test_bad_predict_input(fitted, key, method, args, exc, match):
    model = fitted[key] if isinstance(key, str) else key()
    before = _snapshot(model)
    with pytest.raises(exc, match=match) as excinfo:
        getattr(model, method)(*args)
    check_named(excinfo, exc)
    after = _snapshot(model)
    assert before.keys() == after.keys()
    for k, v in before.items():
        if isinstance(v, np.ndarray):
            np.testing.assert_array_equal(v, after[k])


# =====================================================================================
# BudgetAccountant
# =====================================================================================
def _nested_parallel(acc):
    with acc.parallel(), acc.parallel():
        pass


LEDGER_CASES = [
    pytest.param(lambda a: dp.BudgetAccountant(0), dp.ParameterError,
                 r"'epsilon' parameter of BudgetAccountant must be a float in \(0, inf\)",
                 id="budget epsilon=0"),
    pytest.param(lambda a: dp.BudgetAccountant(-1.0), dp.ParameterError, r"'epsilon'.*\(0, inf\)",
                 id="budget epsilon<0"),
    pytest.param(lambda a: dp.BudgetAccountant(float("nan")), dp.ParameterError, r"'epsilon'.*Got nan",
                 id="budget epsilon=NaN"),
    pytest.param(lambda a: dp.BudgetAccountant("1"), dp.ParameterError, r"'epsilon'.*Got '1'",
                 id="budget epsilon str"),
    pytest.param(lambda a: dp.BudgetAccountant(None), dp.ParameterError, r"'epsilon'.*Got None",
                 id="budget epsilon None"),
    pytest.param(lambda a: dp.BudgetAccountant(1.0, delta=1.0), dp.ParameterError,
                 r"'delta' parameter of BudgetAccountant must be a float in \[0, 1\)", id="budget delta=1"),
    pytest.param(lambda a: dp.BudgetAccountant(1.0, delta=-0.1), dp.ParameterError, r"'delta'.*\[0, 1\)",
                 id="budget delta<0"),
    pytest.param(lambda a: a.spend(-1.0), dp.ParameterError, r"'epsilon'.*\[0, inf\)", id="spend epsilon<0"),
    pytest.param(lambda a: a.spend(float("nan")), dp.ParameterError, r"'epsilon'.*Got nan",
                 id="spend epsilon=NaN"),
    pytest.param(lambda a: a.spend(2.0), dp.BudgetError, r"over the budget.*Remaining: \(epsilon=1",
                 id="spend over epsilon budget"),
    pytest.param(lambda a: a.spend(0.1, 1e-6), dp.BudgetError, r"delta=1e-06.*over the budget",
                 id="spend delta with delta budget 0"),
    pytest.param(lambda a: a.check(0.5, 2.0), dp.ParameterError, r"'delta'.*\[0, 1\]",
                 id="check delta>1"),
    pytest.param(_nested_parallel, dp.ParameterError, r"cannot be nested.*Close the outer block",
                 id="nested parallel blocks"),
]


@pytest.mark.parametrize("call,exc,match", LEDGER_CASES)
def test_bad_ledger_input(call, exc, match):
    acc = dp.BudgetAccountant(1.0)
    with pytest.raises(exc, match=match) as excinfo:
        call(acc)
    check_named(excinfo, exc)
    assert acc.spends == [] and acc.spent == (0.0, 0.0)


# =====================================================================================
# CLI: problem files (dpconvex run / verify)
# =====================================================================================
GOOD = """\
[data]
dataset = "sklearn_breast_cancer"

[grid]
epsilon = [1.0]
runs = 1

[[method]]
label = "LR"
estimator = "PrivateLogisticRegression"
params = { lam = 0.01 }
"""


def _sub(old, new):
    assert old in GOOD
    return GOOD.replace(old, new)


DATA_HEAD = '[data]\ndataset = "sklearn_breast_cancer"\n'

# (problem text, command, key named in the message, regex on the message)
CLI_CASES = [
    pytest.param("grdi = 1\n" + GOOD, "verify", "grdi", r"unknown key\. Allowed keys here.*Fix the spelling",
                 id="unknown top-level key"),
    pytest.param(_sub(DATA_HEAD, DATA_HEAD + 'datset = "x"\n'), "run", "data.datset",
                 r"unknown key.*'dataset'", id="unknown key in [data]"),
    pytest.param(_sub("runs = 1", "runs = 1\nepsilons = [2.0]"), "verify", "grid.epsilons",
                 r"unknown key.*'epsilon'", id="unknown key in [grid]"),
    pytest.param(_sub('label = "LR"', 'label = "LR"\nparam = 1'), "run", "method[0].param",
                 r"unknown key.*'params'", id="unknown key in [[method]]"),
    pytest.param(GOOD + '\n[[expect]]\nmethod = "LR"\nmax_error = 0.5\nmax_err = 0.4\n', "verify",
                 "expect[0].max_err", r"unknown key.*'max_error'", id="unknown key in [[expect]]"),
    pytest.param(GOOD + "\n[quick]\nrun = 2\n", "verify", "quick.run", r"unknown key.*'runs'",
                 id="unknown key in [quick]"),
    pytest.param(_sub(DATA_HEAD, ""), "run", "data", r"\[data\] table with at least 'dataset' is required",
                 id="missing [data]"),
    pytest.param(_sub('dataset = "sklearn_breast_cancer"', 'split = "random"'), "verify", "data.dataset",
                 r"is required; choose one of", id="missing dataset"),
    pytest.param(_sub("sklearn_breast_cancer", "mnist"), "run", "data.dataset",
                 r"unknown dataset 'mnist'; choose one of", id="unknown dataset"),
    pytest.param(_sub(DATA_HEAD, DATA_HEAD + 'split = "kfold"\n'), "verify", "data.split",
                 r"must be 'random' or 'given'", id="bad split"),
    pytest.param(_sub("epsilon = [1.0]", "epsilon = [-1.0]"), "run", "grid.epsilon",
                 r"every epsilon must be a finite number > 0", id="grid epsilon<0"),
    pytest.param(_sub("epsilon = [1.0]", "epsilon = [0]"), "verify", "grid.epsilon",
                 r"finite number > 0", id="grid epsilon=0"),
    pytest.param(_sub("epsilon = [1.0]", "epsilon = [nan]"), "verify", "grid.epsilon",
                 r"finite number > 0", id="grid epsilon=NaN"),
    pytest.param(_sub("epsilon = [1.0]", "epsilon = [inf]"), "verify", "grid.epsilon",
                 r"finite number > 0", id="grid epsilon=inf"),
    pytest.param(_sub("epsilon = [1.0]", 'epsilon = "1"'), "verify", "grid.epsilon",
                 r"non-empty list of numbers", id="grid epsilon str"),
    pytest.param(_sub("epsilon = [1.0]", "epsilon = []"), "verify", "grid.epsilon",
                 r"non-empty list of numbers", id="grid epsilon empty"),
    pytest.param(_sub("runs = 1", "runs = 0"), "run", "grid.runs", r"integer >= 1, got 0", id="grid runs=0"),
    pytest.param(_sub("runs = 1", "runs = 1.5"), "verify", "grid.runs", r"integer >= 1",
                 id="grid runs float"),
    pytest.param(_sub("runs = 1", "runs = 1\nseed = -1"), "verify", "grid.seed", r"integer >= 0",
                 id="grid seed<0"),
    pytest.param(_sub("runs = 1", "runs = 1\ntrain_sizes = [0]"), "verify", "grid.train_sizes",
                 r"integer >= 1", id="grid train_sizes=0"),
    pytest.param(_sub('"PrivateLogisticRegression"', '"LogisticRegression"'), "run", "method[0].estimator",
                 r"unknown estimator 'LogisticRegression'; choose one of", id="unknown estimator"),
    pytest.param(_sub("lam = 0.01", "lam = 0.01, epsilon = 2.0"), "verify", "method[0].params",
                 r"must not set 'epsilon'", id="params sets epsilon"),
    pytest.param(_sub("params = { lam = 0.01 }", "params = 3"), "verify", "method[0].params",
                 r"table of constructor parameters", id="params not a table"),
    pytest.param(GOOD + "tune = { lam = 0.1 }\n", "verify", "method[0].tune",
                 r"table of non-empty lists", id="tune value not a list"),
    pytest.param(GOOD.split("[[method]]")[0], "verify", "method", r"at least one \[\[method\]\]",
                 id="no [[method]]"),
    pytest.param(GOOD + GOOD.split("runs = 1")[1], "verify", "method.label", r"labels must be unique",
                 id="duplicate method labels"),
    pytest.param(GOOD + '\n[[expect]]\nmethod = "XX"\nmax_error = 0.5\n', "verify", "expect[0].method",
                 r"'XX' is not the label of a \[\[method\]\]", id="expect names unknown method"),
    pytest.param(GOOD + '\n[[expect]]\nmethod = "LR"\n', "verify", "expect[0].max_error", r"is required",
                 id="expect without max_error"),
    pytest.param(GOOD + '\n[[expect]]\nmethod = "LR"\nmax_error = 2.0\n', "verify", "expect[0].max_error",
                 r"0 <= min <= max <= 1", id="expect max_error>1"),
    pytest.param(GOOD + "\n[quick]\nruns = 0\n", "verify", "quick.runs", r"integer >= 1", id="quick runs=0"),
    pytest.param(GOOD + "\n[[method\n", "verify", None, r"not valid TOML.*Fix the syntax", id="invalid TOML"),
    # ---- bugs: crashes or messages without file/key --------------------------------
    pytest.param(_sub("lam = 0.01", "lamda = 0.01"), "verify", "method[0].params",
                 r"lamda", id="params unknown constructor argument"),
    pytest.param(_sub("lam = 0.01", "lam = -1.0"), "verify", "method[0].params",
                 r"'lam'.*\(0, inf\)", id="params bad value (lam<0)"),
    pytest.param(_sub(DATA_HEAD, DATA_HEAD + "options = 5\n"), "verify", "data.options", r"table",
                 id="data.options not a table"),
    pytest.param("grid = 5\n" + _sub("[grid]\nepsilon = [1.0]\nruns = 1\n", ""), "verify", "grid", r"table",
                 id="[grid] not a table"),
    pytest.param("method = [1]\n" + GOOD.split("[[method]]")[0], "verify", "method[0]", r"table",
                 id="[[method]] entry not a table"),
    pytest.param("quick = 5\n" + GOOD, "verify", "quick", r"table", id="[quick] not a table"),
    pytest.param(GOOD + '\n[[expect]]\nmethod = "LR"\nmax_error = "x"\n', "verify", "expect[0].max_error",
                 r"number", id="expect max_error str"),
    pytest.param(_sub(DATA_HEAD, DATA_HEAD + 'test_size = "abc"\n'), "run", "data.test_size", r"number",
                 id="data.test_size str"),
    pytest.param(_sub(DATA_HEAD, DATA_HEAD + "test_size = -0.5\n"), "run", "data.test_size", r"test_size",
                 id="data.test_size<0"),
]


@pytest.mark.parametrize("text,cmd,key,match", CLI_CASES)
def test_bad_problem_file(tmp_path, capsys, text, cmd, key, match):
    path = tmp_path / "bad_problem.toml"
    path.write_text(text)
    out = tmp_path / "out"
    argv = [cmd, str(path)] + (["--quick", "--no-progress", "--out", str(out)] if cmd == "run" else [])
    rc = cli.main(argv)
    err = capsys.readouterr().err
    assert rc == 2, f"exit code {rc}; stderr: {err}"
    assert err.startswith("dpconvex: error: ")
    assert str(path) in err, f"the message does not name the file: {err}"
    if key is not None:
        assert f"key '{key}'" in err, f"the message does not name the key {key!r}: {err}"
    assert re.search(match, err), err
    assert not out.exists(), "a failed run wrote results"


def test_missing_problem_file(tmp_path, capsys):
    path = tmp_path / "nope.toml"
    assert cli.main(["verify", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err
    assert re.search(r"find_problem: no problem file .*does not exist.*dpconvex list", err)


def test_problem_error_is_named():
    """The API behind the CLI raises the named ProblemError, a dpconvex error."""
    assert issubclass(ProblemError, DPConvexError)
    with pytest.raises(ProblemError, match=r"unknown dataset 'mnist'") as excinfo:
        import tempfile
        from pathlib import Path

        from dpconvex.runs import load_problem

        with tempfile.TemporaryDirectory() as d:
            p = Path(d) / "p.toml"
            p.write_text(_sub("sklearn_breast_cancer", "mnist"))
            load_problem(p)
    check_named(excinfo, ProblemError)


def test_table_has_enough_distinct_rows():
    rows = FIT_CASES + PREDICT_CASES + LEDGER_CASES + CLI_CASES
    ids = [r.id for r in rows]
    assert len(set(ids)) == len(ids) >= 30
    estimators = {i.split(" | ")[1].split(" ")[0] for i in ids if " | " in i}
    assert {"LargeMarginGaussian", "NoisyGD", "GridSearch", "RandomFourierFeatures",
            "LinearClassifier", "HuberSVM"} <= estimators
