"""Fuzz suite over the public boundary: estimators, meta-estimators, the transformer, loaders, audit.

A seeded table of bad and borderline inputs, run against every public estimator
(enumerated from ``dpconvex.__all__``, so a new one must be added to
:data:`MAKERS` or :func:`test_every_public_estimator_is_fuzzed` fails), the
private selections, :func:`dpconvex.epsilon_sweep`, the dataset loaders and
encoders, and the auditor's public functions. Each case ends in one of

* a named dpconvex error (a :class:`~dpconvex.errors.DPConvexError`), leaving no
  fitted attribute behind (no model from a bad input), or
* for a borderline value that is valid, a result that is sound: every released
  array of a fitted model is finite, ``predict`` gives labels from ``classes_``,
  probabilities and scores are finite.

Counted as failures: a raw exception (not a dpconvex error), a non-finite (or
otherwise unsound) release, a bad input accepted (a result from a case marked
bad, or a refused fit that left fitted attributes), a hang (a case over its
wall-clock cap :data:`CAP_SECONDS`, SIGALRM), and a warning that is neither
dpconvex's nor scikit-learn's. Each test prints its counts; ``python
tests/test_fuzz.py`` runs every family and prints the totals.

The table is deterministic (fixed data, fixed values, ``random_state=0``), so
a failure is reproducible from its case id.
"""

from __future__ import annotations

import atexit
import contextlib
import datetime
import faulthandler
import functools
import gzip
import inspect
import math
import shutil
import signal
import sys
import tempfile
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator, is_classifier, is_regressor

import dpconvex as dp
from dpconvex.data.operators import row_norms
from dpconvex.errors import DPConvexError, PrivacyWarning

pd = pytest.importorskip("pandas")

#: Wall-clock cap of one case (seconds); a case over it counts as a hang. The slowest
#: legitimate case, noisy gradient descent calibrating its noise by privacy-loss
#: distributions at δ = 0.5, takes about 4 s on an idle core; the cap leaves room for a
#: loaded two-core CI machine.
CAP_SECONDS = 15.0
#: A family of cases still running this long (a case stuck in C code, where the alarm cannot
#: reach it) ends the process with a dump of every thread's stack: no hang can block CI.
HARD_LIMIT_SECONDS = 300.0

KINDS = ("raw", "nonfinite", "accepted", "hang", "warning")


class Hang(BaseException):
    """Raised by the alarm in a case over its cap (a BaseException: library code cannot swallow it)."""


@contextlib.contextmanager
def time_cap(seconds: float) -> Iterator[None]:
    """Raise :class:`Hang` in the running case after ``seconds`` of wall-clock time."""
    def _alarm(signum, frame):  # noqa: ARG001
        raise Hang()

    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0.0)
        signal.signal(signal.SIGALRM, old)


@dataclass
class Case:
    """One call at the boundary.

    ``bad``: only a named error is right. ``check``: for an accepted call, the
    problems of its result (an empty list when sound). ``target``: an object
    whose fitted attributes must stay empty when the call is refused.
    """

    id: str
    call: Callable[[], Any]
    bad: bool
    check: Callable[[Any], list[str]] | None = None
    target: Any = None


@dataclass
class Tally:
    """Counts of one family of cases and the ids of the failures."""

    cases: int = 0
    counts: Counter = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        self.cases += other.cases
        self.counts.update(other.counts)
        self.failures += other.failures

    def line(self, name: str) -> str:
        return (f"fuzz {name}: cases={self.cases}, raw exceptions={self.counts['raw']}, "
                f"non-finite releases={self.counts['nonfinite']}, bad inputs accepted="
                f"{self.counts['accepted']}, hangs={self.counts['hang']}, foreign warnings="
                f"{self.counts['warning']}")


def fitted_attributes(obj: Any) -> list[str]:
    """Public attributes a fit sets (scikit-learn convention: a trailing underscore)."""
    try:
        names = vars(obj)
    except TypeError:
        return []
    return sorted(k for k in names if k.endswith("_") and not k.startswith("_"))


def _allowed_warning(w: warnings.WarningMessage) -> bool:
    cat = w.category
    if issubclass(cat, PrivacyWarning) or cat.__module__.split(".")[0] in ("dpconvex", "sklearn"):
        return True
    # UserWarning/FutureWarning raised by scikit-learn itself (e.g. feature names)
    return issubclass(cat, (UserWarning, FutureWarning)) and "/sklearn/" in str(w.filename)


def run_case(case: Case) -> tuple[str, str]:
    """(kind, detail): kind "ok" or "named", or one of :data:`KINDS`."""
    kind, detail = "ok", ""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with time_cap(CAP_SECONDS):
                result = case.call()
        except Hang:
            return "hang", f"over {CAP_SECONDS:g} s"
        except DPConvexError as exc:
            kind, detail = "named", type(exc).__name__
            left = fitted_attributes(case.target) if case.target is not None else []
            if left:
                kind, detail = "accepted", f"refused ({type(exc).__name__}) but left {left}"
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as exc:  # noqa: BLE001 - the point: nothing else may escape
            return "raw", f"{type(exc).__name__}: {str(exc)[:200]}"
        else:
            problems = []
            if case.check is not None:
                try:
                    with time_cap(CAP_SECONDS):
                        problems = case.check(result)
                except Hang:
                    return "hang", "check over the cap"
                except DPConvexError as exc:
                    problems = [f"the result's check raised {type(exc).__name__}: {exc}"[:300]]
                except Exception as exc:  # noqa: BLE001
                    return "raw", f"in check: {type(exc).__name__}: {str(exc)[:200]}"
            if problems:  # an unsound result counts as such, from a bad input or not
                kind, detail = "nonfinite", "; ".join(problems)[:300]
            elif case.bad:
                kind, detail = "accepted", f"returned {type(result).__name__}"
    foreign = [w for w in caught if not _allowed_warning(w)]
    if foreign and kind in ("ok", "named"):
        w = foreign[0]
        return "warning", f"{w.category.__name__} at {Path(w.filename).name}:{w.lineno}: " \
                          f"{str(w.message)[:160]}"
    return kind, detail


def run_cases(cases: list[Case]) -> Tally:
    tally = Tally()
    seen = set()
    faulthandler.dump_traceback_later(HARD_LIMIT_SECONDS, exit=True)
    try:
        for case in cases:
            assert case.id not in seen, f"duplicate case id {case.id}"
            seen.add(case.id)
            kind, detail = run_case(case)
            tally.cases += 1
            if kind in KINDS:
                tally.counts[kind] += 1
                tally.failures.append(f"[{kind}] {case.id}: {detail}")
    finally:
        faulthandler.cancel_dump_traceback_later()
    return tally


def check_tally(name: str, tally: Tally, min_cases: int) -> None:
    print(tally.line(name))
    assert tally.cases >= min_cases, f"{name}: only {tally.cases} cases (expected >= {min_cases})"
    shown = "\n".join(tally.failures[:40])
    assert not tally.failures, f"{len(tally.failures)} failing cases:\n{shown}"


# =====================================================================================
# data
# =====================================================================================
_rng = np.random.default_rng(0)
X = _rng.normal(size=(12, 3)) / 3
Y2 = np.array([0, 1] * 6)
Y3 = np.arange(12) % 3
COLUMNS = ["a", "b", "c"]


def frame(A: np.ndarray = X, columns: list[str] | None = None) -> Any:
    return pd.DataFrame(A, columns=COLUMNS if columns is None else columns)


def _with(A: np.ndarray, value: Any, dtype: Any = None) -> np.ndarray:
    B = np.array(A, dtype=dtype if dtype is not None else A.dtype, copy=True)
    B[1, 1] = value
    return B


def _masked() -> np.ma.MaskedArray:
    M = np.ma.masked_array(X.copy(), mask=np.zeros(X.shape, dtype=bool))
    M[2, 0] = np.ma.masked
    return M


#: (id, X) that every fit must refuse (with a good y).
BAD_X: list[tuple[str, Any]] = [
    ("X NaN", _with(X, np.nan)),
    ("X +inf", _with(X, np.inf)),
    ("X -inf", _with(X, -np.inf)),
    ("X float32 NaN", _with(X.astype(np.float32), np.nan)),
    ("X empty", np.empty((0, 3))),
    ("X one row", X[:1]),
    ("X zero features", np.empty((12, 0))),
    ("X 1-D", X[:, 0]),
    ("X 3-D", X[None]),
    ("X scalar", 5.0),
    ("X None", None),
    ("X dict", {"a": 1.0}),
    ("X ragged", [[1.0, 2.0, 0.1], [3.0]] * 6),
    ("X letters", np.array([["a", "b", "c"]] * 12)),
    ("X numeric strings", X.astype(str)),
    ("X numeric strings object", X.astype(str).astype(object)),
    ("X numeric strings list", X.astype(str).tolist()),
    ("X one numeric string", _with(X.astype(object), "1.5")),
    ("X bytes", X.astype(str).astype(bytes)),
    ("X one bytes", _with(X.astype(object), b"1")),
    ("X datetime64", (np.datetime64("2020-01-01") + (X * 100).astype("timedelta64[D]"))),
    ("X timedelta64", (X * 100).astype("timedelta64[s]")),
    ("X datetime objects", _with(X.astype(object), datetime.datetime(2020, 1, 1))),
    ("X complex", X.astype(complex)),
    ("X complex object", _with(X.astype(object), 1 + 2j)),
    ("X None entry", _with(X.astype(object), None)),
    ("X pd.NA entry", _with(X.astype(object), pd.NA)),
    ("X dicts", np.array([{"a": 1.0}] * 36, dtype=object).reshape(12, 3)),
    ("X masked", _masked()),
    ("X sparse complex", sp.csr_matrix(X.astype(complex))),
    ("X sparse NaN", sp.csr_matrix(_with(X, np.nan))),
    ("X frame strings", frame().astype(str)),
    ("X frame NaN", frame(_with(X, np.nan))),
    ("X frame Int64 NA", frame((X * 10).astype(int)).astype("Int64").mask(np.eye(12, 3) > 0)),
    ("X frame mixed column names", pd.DataFrame(X, columns=["a", 1, "c"])),
    ("X frame datetime column", frame().assign(b=pd.Timestamp("2020-01-01"))),
    ("X overflowing int", np.array([[10**400, 1, 1]] * 12, dtype=object)),
]

#: (id, y) that every fit must refuse (with a good X).
BAD_Y: list[tuple[str, Any]] = [
    ("y None", None),
    ("y NaN", np.where(Y2 > 0, np.nan, 0.0)),
    ("y inf", np.where(Y2 > 0, np.inf, 0.0)),
    ("y continuous", X[:, 0]),
    ("y continuous object", (X[:, 0] + 0.0).astype(object)),
    ("y complex", Y2.astype(complex)),
    ("y complex imag", Y2 + 1j * Y2),
    ("y 2-D", np.c_[Y2, Y2]),
    ("y short", Y2[:-1]),
    ("y scalar", 1),
    ("y None entry", np.array([None, 1] * 6, dtype=object)),
    ("y mixed str int", np.array(["a", 1] * 6, dtype=object)),
    ("y one class", np.zeros(12)),
    ("y pd.NA", pd.array([0, 1] * 5 + [pd.NA, 1], dtype="Int64")),
    ("y dicts", np.array([{"a": 1}] * 12, dtype=object)),
    ("y bytes", np.array([b"a", b"b"] * 6)),
]

#: (id, X, y) that are valid: the fit must give a sound model (or a named refusal).
EDGE_DATA: list[tuple[str, Any, Any]] = [
    ("ints", (X * 10).astype(int), Y2),
    ("bools", X > 0, Y2),
    ("float32", X.astype(np.float32), Y2),
    ("list", X.tolist(), Y2.tolist()),
    ("huge entries", X * 1e300, Y2),
    ("subnormal entries", X * 1e-310, Y2),
    ("zero rows", np.zeros_like(X), Y2),
    ("str labels", X, np.array(["no", "yes"] * 6)),
    ("bool labels", X, Y2.astype(bool)),
    ("Series labels", frame(), pd.Series(Y2)),
    ("column-vector y", X, Y2[:, None]),
    ("three classes", X, Y3),
    ("frame", frame(), Y2),
    ("frame int column names", pd.DataFrame(X), Y2),
    ("two rows", X[:2], Y2[:2]),
    ("object numbers", X.astype(object), Y2.astype(object)),
]


# =====================================================================================
# estimators
# =====================================================================================
def _ngd(**kw: Any) -> Any:
    return dp.NoisyGradientDescent(**{"epsilon": 1.0, "delta": 1e-5, "steps": 5, "radius": 5.0,
                                      "accounting": "rdp", "random_state": 0, **kw})


def _grid(**kw: Any) -> Any:
    return dp.PrivateGridSearch(dp.PrivateLogisticRegression(solver="native"),
                                {"lam": [0.01, 0.1]}, **{"epsilon": 1.0, "random_state": 0, **kw})


def _random_search(**kw: Any) -> Any:
    from dpconvex.estimators.selection.random import PrivateRandomSearch

    return PrivateRandomSearch(dp.PrivateLogisticRegression(solver="native"), {"lam": [0.01, 0.1]},
                               **{"epsilon": 1.0, "random_state": 0, **kw})


#: Every public estimator: a fast configuration (tiny data, the native solver).
MAKERS: dict[str, Callable[..., Any]] = {
    "PrivateLogisticRegression": lambda **kw: dp.PrivateLogisticRegression(
        **{"random_state": 0, "solver": "native", **kw}),
    "PrivateHuberSVM": lambda **kw: dp.PrivateHuberSVM(**{"random_state": 0, "solver": "native", **kw}),
    "PrivateLinearClassifier": lambda **kw: dp.PrivateLinearClassifier(
        **{"random_state": 0, "solver": "native", **kw}),
    "PrivateLargeMarginGaussian": lambda **kw: dp.PrivateLargeMarginGaussian(
        **{"random_state": 0, "solver": "native", **kw}),
    "PrivateLinearRegressor": lambda **kw: dp.PrivateLinearRegressor(
        **{"random_state": 0, "solver": "native", **kw}),
    "PrivateLinearRegression": lambda **kw: dp.PrivateLinearRegression(**{"random_state": 0, **kw}),
    "PrivateHuberRegressor": lambda **kw: dp.PrivateHuberRegressor(
        **{"random_state": 0, "solver": "native", **kw}),
    "PrivateQuantileRegressor": lambda **kw: dp.PrivateQuantileRegressor(
        **{"random_state": 0, "solver": "native", **kw}),
    "PrivateGaussianCentroid": lambda **kw: dp.PrivateGaussianCentroid(**{"random_state": 0, **kw}),
    "PrivateGaussianNB": lambda **kw: dp.PrivateGaussianNB(**{"random_state": 0, **kw}),
    "PrivateClassifier": lambda **kw: dp.PrivateClassifier(**{"random_state": 0, **kw}),
    "PrivateRegressor": lambda **kw: dp.PrivateRegressor(**{"random_state": 0, **kw}),
    "NoisyGradientDescent": _ngd,
    "PrivateGridSearch": _grid,
    "PrivateRandomSearch": _random_search,
    "RandomFourierFeatures": lambda **kw: dp.RandomFourierFeatures(
        **{"n_components": 8, "random_state": 0, **kw}),
    "PublicEncoder": lambda **kw: dp.PublicEncoder(
        **{"schema": dp.PublicSchema({c: dp.Numeric(-1.0, 1.0) for c in COLUMNS}), **kw}),
}

#: Further configurations, for the parameters that only act in them: (settings, parameters
#: fuzzed there; None: all).
VARIANTS: dict[str, tuple[dict[str, Any], tuple[str, ...] | None]] = {
    "PrivateLargeMarginGaussian[dp_kmeans]": (
        {"n_components": 2, "component_assignment": "dp_kmeans"},
        ("centers", "component_assignment", "kmeans_epsilon_fraction", "kmeans_iter",
         "n_components")),
    "PrivateLargeMarginGaussian[pairwise]": (
        {"loss": "pairwise"}, ("extra_terms", "gamma", "h", "lam", "max_iter", "optimality_tol")),
    "PrivateLargeMarginGaussian[centroid]": ({"mechanism": "centroid", "delta": 1e-5}, None),
    "PrivateLogisticRegression[gaussian]": (
        {"mechanism": "gaussian_objective", "delta": 1e-5}, ("delta", "epsilon", "lam")),
    "PrivateLogisticRegression[amp]": ({"optimality_tol": 1e-3}, ("max_iter", "optimality_tol")),
}


def maker(name: str) -> Callable[[], Any]:
    base = name.split("[")[0]
    extra = VARIANTS[name][0] if name in VARIANTS else {}
    return lambda: MAKERS[base](**extra)


def is_transformer(est: Any) -> bool:
    return hasattr(est, "transform") and not hasattr(est, "predict")


def _finite_arrays(obj: Any, prefix: str = "", depth: int = 0) -> list[str]:
    """Names of the fitted numeric arrays (also inside fitted sub-estimators) that are not finite."""
    bad = []
    for name in fitted_attributes(obj):
        v = getattr(obj, name)
        if isinstance(v, BaseEstimator) and depth < 3:
            bad += _finite_arrays(v, f"{prefix}{name}.", depth + 1)
            continue
        if isinstance(v, (list, tuple)) and v and all(isinstance(t, BaseEstimator) for t in v):
            continue
        if isinstance(v, (bool, str)) or v is None:
            continue
        try:
            a = np.asarray(v)
        except Exception:  # noqa: BLE001 - not an array
            continue
        if a.dtype.kind in "fc" and not np.all(np.isfinite(a)):
            bad.append(prefix + name)
        elif a.dtype.kind == "O":
            flat = [t for t in a.ravel().tolist() if isinstance(t, (float, np.floating))]
            if any(not math.isfinite(t) for t in flat):
                bad.append(prefix + name)
    return bad


def release_problems(est: Any, Xp: Any = X) -> list[str]:
    """What is unsound about a fitted estimator: non-finite released arrays or predictions."""
    problems = [f"non-finite {n}" for n in _finite_arrays(est)]
    if is_transformer(est):
        Z = np.asarray(est.transform(Xp))
        if not np.all(np.isfinite(Z)):
            problems.append("non-finite transform")
        bound = getattr(est, "data_norm", 1.0)
        if np.any(row_norms(Z) > bound * (1.0 + 1e-12)):
            problems.append(f"transform row above its norm bound {bound}")
        return problems
    if not hasattr(est, "classes_"):  # a regressor: finite predictions inside its label range
        pred = np.asarray(est.predict(Xp), dtype=float)
        lo, hi = est._label_bounds()  # label_range=None: (-1, 1)
        if pred.shape != (len(Xp),) or not np.all((pred >= lo) & (pred <= hi)):
            problems.append(f"predict outside the label range {(lo, hi)!r}")
        return problems
    classes = np.asarray(est.classes_)
    pred = np.asarray(est.predict(Xp))
    known = classes.tolist()
    if pred.shape != (len(Xp),) or any(v not in known for v in pred.tolist()):
        problems.append(f"predict gives labels outside classes_ {known!r}: {pred.tolist()[:4]}")
    if hasattr(est, "decision_function"):
        s = np.asarray(est.decision_function(Xp), dtype=float)
        if not np.all(np.isfinite(s)):
            problems.append("non-finite decision_function")
    if hasattr(est, "predict_proba"):
        P = np.asarray(est.predict_proba(Xp), dtype=float)
        if not (np.all(np.isfinite(P)) and np.allclose(P.sum(axis=1), 1.0)):
            problems.append("predict_proba not finite probabilities")
    return problems


def fit_case(id: str, make: Callable[[], Any], Xf: Any, yf: Any, *, bad: bool) -> Case:
    est = make()
    args = (Xf,) if is_transformer(est) else (Xf, yf)
    # an encoder fitted on named columns transforms frames only: check it on the frame it took
    Xp = Xf if is_transformer(est) and isinstance(Xf, pd.DataFrame) else X
    return Case(id, lambda: est.fit(*args), bad, check=lambda m: release_problems(m, Xp), target=est)


#: Values that no parameter may accept (not a number of any use, or not representable).
BAD_VALUES: list[tuple[str, Any]] = [
    ("nan", math.nan),
    ("np.float32 nan", np.float32("nan")),
    ("-inf", -math.inf),
    ("1e400", 10**400),
    ("-1e400", -(10**400)),
    ("object", object()),
    ("str", "x"),
    ("bytes", b"1"),
    ("complex", 1 + 1j),
    ("one-element list", [1.0]),
    ("dict", {"a": 1}),
    ("nan list", [math.nan, 1.0]),
    ("function", lambda *args, **kwargs: "junk"),
]
#: Values that may be valid for some parameters: either a sound model or a named error.
EDGE_VALUES: list[tuple[str, Any]] = [
    ("inf", math.inf),
    ("None", None),
    ("True", True),
    ("False", False),
    ("0", 0),
    ("-1", -1),
    ("1", 1),
    ("2", 2),
    ("0.5", 0.5),
    ("1e-300", 1e-300),
    ("1e300", 1e300),
    ("2**31", 2**31),
    ("2**63", 2**63),
    ("np.int64 max", np.int64(2**63 - 1)),
    ("np.uint64 max", np.uint64(2**64 - 1)),
    ("classes-like", [0, 1]),
    ("empty list", []),
    ("np.float64 2", np.float64(2.0)),
]
#: (owner, parameter, value id) where a value of BAD_VALUES is valid by design ("*": any owner).
BAD_VALUE_VALID: set[tuple[str, str, str]] = {
    ("*", "random_state", "1e400"),  # any int >= 0 seeds numpy's SeedSequence
    ("epsilon_sweep", "epsilons", "one-element list"),
    ("*", "data_home", "str"),  # a folder name (then: no such file, a DatasetError)
    ("load_kddcup99_dask", "cache_dir", "str"),  # a folder for the chunk store
    ("get_data_home", "data_home", "str"),
    *[("norm_divisor", "numeric", v) for v in ("dict", "one-element list", "nan list")],
}


def is_bad_value(owner: str, param: str, vid: str) -> bool:
    return (owner, param, vid) not in BAD_VALUE_VALID and ("*", param, vid) not in BAD_VALUE_VALID


def param_cases(name: str) -> list[Case]:
    make = maker(name)
    est0 = make()
    params = VARIANTS[name][1] if name in VARIANTS else None
    cases = []
    for param in sorted(est0.get_params(deep=False)):
        if params is not None and param not in params:
            continue
        for table, bad in ((BAD_VALUES, True), (EDGE_VALUES, False)):
            for vid, value in table:
                def build(param: str = param, value: Any = value) -> Any:
                    return make().set_params(**{param: value})
                is_bad = bad and is_bad_value(name.split("[")[0], param, vid)
                cases.append(fit_case(f"{name}({param}={vid})", build, X, Y2, bad=is_bad))
    return cases


def data_cases(name: str) -> list[Case]:
    make = maker(name)
    transformer = is_transformer(make())
    cases = [fit_case(f"{name}.fit({xid})", make, Xb, Y2, bad=not (transformer and xid == "X one row"))
             for xid, Xb in BAD_X]
    if not transformer:
        regressor = is_regressor(make())
        cases += [fit_case(f"{name}.fit({yid})", make, X, yb,
                           bad=not (regressor and yid in REGRESSION_LABELS)) for yid, yb in BAD_Y]
    cases += [fit_case(f"{name}.fit({did})", make, Xe, ye, bad=False)
              for did, Xe, ye in EDGE_DATA]
    sparse_ok = getattr(make().__sklearn_tags__().input_tags, "sparse", False)
    cases.append(fit_case(f"{name}.fit(sparse)", make, sp.csr_matrix(X), Y2, bad=not sparse_ok))
    return cases


# ---- predict-time inputs ----------------------------------------------------------
#: (id, X at predict time) that must be refused by a model fitted on ``frame()``.
BAD_PREDICT_X: list[tuple[str, Any]] = [
    *[(xid, Xb) for xid, Xb in BAD_X if xid not in ("X one row", "X frame mixed column names")],
    ("frame reordered columns", frame()[["c", "a", "b"]]),
    ("frame renamed column", frame(columns=["a", "b", "z"])),
    ("frame missing column", frame()[["a", "b"]]),
    ("frame extra column", frame().assign(d=1.0)),
    ("wrong width", X[:, :2]),
]
#: (id, X at predict time) that a model fitted on ``frame()`` takes as it is (no names to match).
GOOD_PREDICT_X: list[tuple[str, Any]] = [
    ("numpy after frame fit", X),
    ("frame int column names", pd.DataFrame(X)),
    ("same frame", frame()),
    ("list", X.tolist()),
]
#: (id, y, sample_weight) that score must refuse.
BAD_SCORE: list[tuple[str, Any, Any]] = [
    ("y unseen label", np.full(12, 7), None),
    ("y short", Y2[:-1], None),
    ("y NaN", np.where(Y2 > 0, np.nan, 0.0), None),
    ("y complex", Y2.astype(complex), None),
    ("y continuous", X[:, 0], None),
    ("weights NaN", Y2, np.where(Y2 > 0, np.nan, 1.0)),
    ("weights inf", Y2, np.where(Y2 > 0, np.inf, 1.0)),
    ("weights negative", Y2, np.where(Y2 > 0, -1.0, 1.0)),
    ("weights all zero", Y2, np.zeros(12)),
    ("weights short", Y2, np.ones(11)),
    ("weights 2-D", Y2, np.ones((12, 1))),
    ("weights strings", Y2, np.array(["1"] * 12)),
    ("weights complex", Y2, np.ones(12, dtype=complex)),
    ("weights scalar", Y2, 1.0),
    ("weights object", Y2, np.array([object()] * 12)),
    ("weights 1e400", Y2, np.array([10**400] + [1] * 11, dtype=object)),
]
#: (id, X, y, sample_weight) that score must accept with a finite accuracy in [0, 1].
GOOD_SCORE: list[tuple[str, Any, Any, Any]] = [
    ("frame", frame(), Y2, None),
    ("numpy after frame fit", X, Y2, None),
    ("weights", frame(), Y2, np.arange(12.0)),
    ("weights some zero", frame(), Y2, np.r_[np.zeros(6), np.ones(6)]),
    ("weights huge", frame(), Y2, np.full(12, 1e300)),
    ("weights list", frame(), Y2, [1] * 12),
]


def _fitted_on_frame(name: str) -> Any:
    est = maker(name)()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)  # tiny data: the noise warnings
        return est.fit(frame()) if is_transformer(est) else est.fit(frame(), Y2)


def _output_problems(est: Any, method: str, r: Any) -> list[str]:
    """A prediction-time output: labels from ``classes_``, or finite numbers."""
    if method == "predict" and is_regressor(est):
        lo, hi = est._label_bounds()  # label_range=None: (-1, 1)
        pred = np.asarray(r, dtype=float)
        return [] if np.all((pred >= lo) & (pred <= hi)) else ["prediction outside label_range"]
    if method == "predict":
        known = np.asarray(est.classes_).tolist()
        return [] if all(v in known for v in np.asarray(r).tolist()) else ["label outside classes_"]
    return [] if np.all(np.isfinite(np.asarray(r, dtype=float))) else [f"non-finite {method}"]


def _score_ok(v: Any) -> list[str]:
    return [] if isinstance(v, float) and 0.0 <= v <= 1.0 else [f"score {v!r} not in [0, 1]"]


def _r2_ok(v: Any) -> list[str]:
    return [] if isinstance(v, float) and v <= 1.0 and np.isfinite(v) else [f"R^2 {v!r}"]


#: Labels a regressor takes (continuous, or all equal) that every classifier refuses.
REGRESSION_LABELS = frozenset({"y continuous", "y continuous object", "y one class",
                               "y unseen label"})


def predict_cases(name: str) -> list[Case]:
    est = _fitted_on_frame(name)
    problems = release_problems(est, frame())
    assert not problems, f"{name} fitted on a frame: {problems}"
    names = getattr(est, "feature_names_in_", None)
    assert names is not None and list(names) == COLUMNS, f"{name}: feature_names_in_ = {names!r}"
    methods = [m for m in ("predict", "decision_function", "predict_proba", "transform",
                           "approximate_kernel") if hasattr(est, m)]
    cases = []
    for m in methods:
        for xid, Xb in BAD_PREDICT_X:
            cases.append(Case(f"{name}.{m}({xid})", lambda m=m, Xb=Xb: getattr(est, m)(Xb), True))
        for gid, Xg in GOOD_PREDICT_X:
            cases.append(Case(f"{name}.{m}({gid})", lambda m=m, Xg=Xg: getattr(est, m)(Xg), False,
                              check=lambda r, m=m: _output_problems(est, m, r)))
    unfitted = maker(name)()
    for m in methods:
        cases.append(Case(f"{name}.{m}(unfitted)", lambda m=m: getattr(unfitted, m)(X), True))
    if hasattr(est, "score") and not is_transformer(est):
        regressor = is_regressor(est)
        for sid, ys, w in BAD_SCORE:
            cases.append(Case(f"{name}.score({sid})",
                              lambda ys=ys, w=w: est.score(frame(), ys, sample_weight=w),
                              not (regressor and sid in REGRESSION_LABELS)))
        for sid, Xs, ys, w in GOOD_SCORE:
            cases.append(Case(f"{name}.score({sid})",
                              lambda Xs=Xs, ys=ys, w=w: est.score(Xs, ys, sample_weight=w), False,
                              check=_r2_ok if regressor else _score_ok))
    return cases


ESTIMATOR_NAMES = list(MAKERS)
PARAM_NAMES = ESTIMATOR_NAMES + list(VARIANTS)


def public_estimators() -> set[str]:
    """Estimator classes exported by dpconvex (and its private-selection module)."""
    from dpconvex.estimators.selection import random as private_selection

    found = set()
    for module in (dp, private_selection):
        for n in module.__all__:
            obj = getattr(module, n)
            if inspect.isclass(obj) and issubclass(obj, BaseEstimator):
                found.add(n)
    return found


def test_every_public_estimator_is_fuzzed():
    public = public_estimators()
    assert len(public) >= 8, f"too few estimators found: {sorted(public)}"
    assert public <= set(MAKERS), f"not fuzzed: {sorted(public - set(MAKERS))}; add them to MAKERS"


@pytest.mark.slow
@pytest.mark.parametrize("name", PARAM_NAMES)
def test_fuzz_parameters(name):
    check_tally(f"parameters of {name}", run_cases(param_cases(name)), 60)


@pytest.mark.slow
@pytest.mark.parametrize("name", ESTIMATOR_NAMES)
def test_fuzz_fit_data(name):
    check_tally(f"fit data of {name}", run_cases(data_cases(name)), 40)


@pytest.mark.parametrize("name", ESTIMATOR_NAMES)
def test_fuzz_predict_data(name):
    check_tally(f"predict/score data of {name}", run_cases(predict_cases(name)), 30)


@pytest.mark.filterwarnings("ignore::dpconvex.errors.PrivacyWarning")
def test_feature_names_follow_scikit_learn():
    """Names recorded on frames, refused when reordered/renamed/missing, dropped by an array refit."""
    est = MAKERS["PrivateLogisticRegression"]()
    with pytest.raises(dp.DataTypeError, match="every column name is a string"):
        est.fit(pd.DataFrame(X, columns=["a", 1, "c"]), Y2)
    assert fitted_attributes(est) == []
    est.fit(frame(), Y2)
    assert list(est.feature_names_in_) == COLUMNS
    with pytest.warns(UserWarning, match="X does not have valid feature names"):  # as scikit-learn
        np.testing.assert_array_equal(est.predict(frame()), est.predict(X))
    for bad, says in [(frame()[["b", "a", "c"]], "same order"), (frame(columns=["a", "b", "z"]),
                      "unseen at fit time:\n- z"), (frame()[["a", "b"]], "now missing:\n- c")]:
        with pytest.raises(dp.DataValidationError, match=f"(?s){says}.*feature_names_in_"):
            est.predict(bad)
        with pytest.raises(dp.DataValidationError, match=says):
            est.score(bad, Y2)
    est.fit(X, Y2)
    assert not hasattr(est, "feature_names_in_")


@pytest.mark.parametrize("name", [name for name in ESTIMATOR_NAMES if hasattr(MAKERS[name](), "score")])
def test_score_of_a_frame_reads_its_names_once(name):
    """score(frame) checks the names as predict(frame) does: no "X does not have valid
    feature names" warning from a predict on the bare rows."""
    est = MAKERS[name]()
    labels = Y2 if is_classifier(est) else Y2 - 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(frame(), labels)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*feature names")
        est.score(frame(), labels)


@pytest.mark.parametrize("call,match", [
    (lambda: dp.RandomFourierFeatures(n_components=2**31).fit(X),
     r"'n_components'.*\[1, 1,000,000\]: the private learner .* noise"),
    (lambda: dp.RandomFourierFeatures(n_components=10**6).fit(np.zeros((2, 1000))),
     r"random_weights_ .*above the cap of 100,000,000 .*Lower n_components"),
    (lambda: dp.PrivateLargeMarginGaussian(kmeans_iter=10**5).fit(X, Y2),
     r"'kmeans_iter'.*\[1, 10,000\]: each noisy Lloyd iteration"),
    (lambda: dp.PrivateLargeMarginGaussian(n_components=5000, classes=list(range(3))).fit(
        np.zeros((4, 100)), [0, 1, 2, 0]), r"Phi_ .*above the cap.*Lower n_components"),
    (lambda: dp.PrivateLogisticRegression(max_iter=10**7).fit(X, Y2),
     r"'max_iter'.*\[1, 1,000,000\]: a solve that has not met"),
    (lambda: dp.epsilon_sweep(dp.PrivateLogisticRegression(), X, Y2, [1.0, 2.0], runs=10**5),
     r"'runs'.*\[1, 50,000\]: the sweep keeps every fitted model"),
    (lambda: dp.audit.audit(lambda d, r: 0.0, 0, 1, n_runs=10**8),
     r"'n_runs'.*\[2, 10,000,000\]: the outputs of every run"),
    (lambda: dp.audit.epsilon_from_counts(10**400, 10**401, 0, 1),
     r"'k_D'.*\[0, 9,007,199,254,740,992\]"),
])
def test_size_caps_name_the_cap_and_the_reason(call, match):
    with pytest.raises(dp.ParameterError, match=match):
        call()


# =====================================================================================
# epsilon_sweep
# =====================================================================================
def sweep_cases() -> list[Case]:
    def sweep_ok(res: Any) -> list[str]:
        out = []
        for row in res.estimators:
            for m in row:
                out += release_problems(m)
        return out

    base = {"estimator": dp.PrivateLogisticRegression(solver="native"), "X": X, "y": Y2,
            "epsilons": [0.5, 1.0], "runs": 1, "random_state": 0}
    cases = []
    for key in base:
        for table, bad in ((BAD_VALUES, True), (EDGE_VALUES, False)):
            for vid, value in table:
                kw = {**base, key: value}
                bad_here = (bad and is_bad_value("epsilon_sweep", key, vid)) or key in (
                    "estimator", "X", "y")
                cases.append(Case(f"epsilon_sweep({key}={vid})",
                                  lambda kw=kw: dp.epsilon_sweep(**kw), bad_here, check=sweep_ok))
    for xid, Xb in BAD_X:
        cases.append(Case(f"epsilon_sweep({xid})",
                          lambda Xb=Xb: dp.epsilon_sweep(**{**base, "X": Xb}), True))
    for vid, eps in [("eps grid NaN", [1.0, math.nan]), ("eps grid empty", []),
                     ("eps grid negative", [-1.0]), ("eps grid str", ["1"]),
                     ("eps grid huge", [10**400]), ("eps grid 2-D", [[1.0]])]:
        cases.append(Case(f"epsilon_sweep({vid})",
                          lambda eps=eps: dp.epsilon_sweep(**{**base, "epsilons": eps}), True))
    return cases


def test_fuzz_epsilon_sweep():
    check_tally("epsilon_sweep", run_cases(sweep_cases()), 100)


# =====================================================================================
# loaders and encoders
# =====================================================================================
ADULT_LINES = [
    "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, "
    "White, Male, 2174, 0, 40, United-States, <=50K",
    "52, Self-emp-inc, 287927, HS-grad, 9, Married-civ-spouse, Exec-managerial, Wife, "
    "White, Female, 15024, 0, 40, United-States, >50K",
]
KDD_LINES = [
    "0,tcp,http,SF,181,5450,0,0,0,0,0,1,0,0,0,0,0,0,0,0,0,0,8,8,0.00,0.00,0.00,0.00,"
    "1.00,0.00,0.00,9,9,1.00,0.00,0.11,0.00,0.00,0.00,0.00,0.00,normal.",
    "0,icmp,ecr_i,SF,1032,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,511,511,0.00,0.00,0.00,0.00,"
    "1.00,0.00,0.00,255,255,1.00,0.00,1.00,0.00,0.00,0.00,0.00,0.00,smurf.",
]
BREAST_LINES = ["1000025,5,1,1,1,2,1,3,1,1,2", "1002945,5,4,4,5,7,10,3,2,1,4"]


@functools.cache
def _data_home() -> Path:
    """A folder with tiny copies of the UCI files (checksums off), written once, removed at exit."""
    home = Path(tempfile.mkdtemp(prefix="dpconvex_fuzz_"))
    atexit.register(shutil.rmtree, home, ignore_errors=True)
    (home / "adult.data").write_text("\n".join(ADULT_LINES * 3) + "\n")
    (home / "adult.test").write_text("|1x3 Cross validator\n"
                                     + "\n".join(ln + "." for ln in ADULT_LINES * 3) + "\n")
    with gzip.open(home / "kddcup.data_10_percent.gz", "wt") as fh:
        fh.write("\n".join(KDD_LINES * 3) + "\n")
    (home / "breast-cancer-wisconsin.data").write_text("\n".join(BREAST_LINES * 3) + "\n")
    return home


def _xy_ok(res: Any) -> list[str]:
    Xr, yr = res[0], res[1]
    Xa = np.asarray(Xr, dtype=float)
    out = [] if np.all(np.isfinite(Xa)) else ["non-finite X"]
    if len(Xa) != len(yr):
        out.append("X and y lengths differ")
    if Xa.size and np.any(np.linalg.norm(Xa, axis=1) > 1.0 + 1e-9):
        out.append("a row above norm 1")
    return out


def loader_cases() -> list[Case]:
    from dpconvex import datasets as ds

    home = _data_home()

    def in_home(fn: Callable[..., Any], kw: dict[str, Any]) -> Any:
        with contextlib.chdir(home):  # a relative folder name (e.g. cache_dir="x") lands here
            return fn(**kw)

    common = {"data_home": home, "download": False, "verify_checksum": False}
    loaders: dict[str, tuple[Callable[..., Any], dict[str, Any]]] = {
        "load_adult": (ds.load_adult, {"subset": "train", **common}),
        "load_kddcup99": (ds.load_kddcup99, {"n_samples": 4, "random_state": 0, **common}),
        "load_breast_cancer_wisconsin": (ds.load_breast_cancer_wisconsin, common),
        "load_kddcup99_dask": (ds.load_kddcup99_dask,
                               {"path": home / "kddcup.data_10_percent.gz", "chunksize": 4,
                                "cache_dir": home / "store", "data_home": home,
                                "verify_checksum": False}),
    }
    cases = []
    for lname, (fn, base) in loaders.items():
        params = [p for p in inspect.signature(fn).parameters if p not in ("download",)]
        for p in params:
            for table, bad in ((BAD_VALUES, True), (EDGE_VALUES, False)):
                for vid, value in table:
                    kw = {**base, p: value}
                    cases.append(Case(f"{lname}({p}={vid})", lambda fn=fn, kw=kw: in_home(fn, kw),
                                      bad and is_bad_value(lname, p, vid), check=_xy_ok))
        schema_cols = {"load_adult": ["age", "age"], "load_kddcup99": ["duration", "duration"],
                       "load_kddcup99_dask": ["duration", "duration"],
                       "load_breast_cancer_wisconsin": ["clump_thickness", "clump_thickness"]}
        for cid, cols in [("duplicate columns", schema_cols[lname]), ("unknown column", ["nope"]),
                          ("no columns", []), ("columns str", "age"), ("columns ints", [1, 2])]:
            cases.append(Case(f"{lname}(columns={cid})",
                              lambda fn=fn, base=base, cols=cols: fn(**{**base, "columns": cols}),
                              True))
        for cid, drop in [("drop unknown", ["nope"]), ("drop str", "age"), ("drop ints", [1])]:
            cases.append(Case(f"{lname}(drop={cid})",
                              lambda fn=fn, base=base, drop=drop: fn(**{**base, "drop": drop}),
                              True))
        cases.append(Case(f"{lname}(download=str)",
                          lambda fn=fn, base=base: fn(**{**base, "download": "yes"}), True))
    for kid, n in [("n_samples 0", 0), ("n_samples -1", -1), ("n_samples 2**63", 2**63),
                   ("n_samples 10**20", 10**20), ("n_samples 1.5", 1.5), ("n_samples True", True)]:
        cases.append(Case(f"load_kddcup99({kid})",
                          lambda n=n: ds.load_kddcup99(**{**loaders["load_kddcup99"][1],
                                                          "n_samples": n}), True))
    for name in ("breast_cancer", "wine", "digits", "diabetes"):
        cases.append(Case(f"load_sklearn({name})", lambda name=name: ds.load_sklearn(name), False,
                          check=_xy_ok))
    for vid, value in BAD_VALUES + [("None", None), ("True", True), ("0", 0), ("bad name", "mnist")]:
        cases.append(Case(f"load_sklearn({vid})", lambda value=value: ds.load_sklearn(value), True))
    for vid, value in BAD_VALUES + [("True", True), ("0", 0)]:
        cases.append(Case(f"get_data_home({vid})", lambda value=value: ds.get_data_home(value),
                          is_bad_value("get_data_home", "data_home", vid), check=lambda r: []))
    # encoders over a public schema
    schema = dp.PublicSchema(columns=("u", "v"), numeric={"u": (0.0, 1.0), "v": (0.0, 10.0)})
    for vid, value in BAD_VALUES:
        cases.append(Case(f"norm_divisor(numeric={vid})",
                          lambda value=value: dp.data.schema.norm_divisor(value),
                          is_bad_value("norm_divisor", "numeric", vid),
                          check=lambda r: [] if math.isfinite(r) and r > 0 else ["divisor"]))
        cases.append(Case(f"encode(values={vid})",
                          lambda value=value: ds.encode(schema, value), True))
    for sid, kw in [("range lo > hi", {"numeric": {"u": (1.0, 0.0)}}),
                    ("range NaN", {"numeric": {"u": (math.nan, 1.0)}}),
                    ("range inf", {"numeric": {"u": (0.0, math.inf)}}),
                    ("range str", {"numeric": {"u": ("0", "1")}}),
                    ("numeric column not in columns", {"numeric": {"u": (0.0, 1.0), "w": (0.0, 1.0)}}),
                    ("duplicate columns", {"columns": ("u", "u")}),
                    ("columns str", {"columns": "u"}),
                    ("categories not a list", {"categories": {"u": 5}})]:
        def build(kw: dict[str, Any] = kw) -> Any:
            args = {"columns": ("u",), "numeric": {"u": (0.0, 1.0)}, **kw}
            return dp.PublicSchema(**args)
        cases.append(Case(f"PublicSchema({sid})", build, True))
    return cases


#: Public names of dpconvex.datasets that take no input to fuzz.
LOADER_CONSTANTS_AND_TYPES: set[str] = set()


def test_every_loader_is_fuzzed():
    from dpconvex import datasets as ds

    callables = {n for n in ds.__all__ if callable(getattr(ds, n)) and not inspect.isclass(getattr(ds, n))}
    ids = {c.id.split("(")[0] for c in loader_cases()}
    assert {"load_adult", "load_kddcup99"} <= callables
    assert callables <= ids, f"not fuzzed: {sorted(callables - ids)}"


@pytest.mark.slow
def test_fuzz_loaders():
    check_tally("loaders", run_cases(loader_cases()), 300)


# =====================================================================================
# audit
# =====================================================================================
def _finite(value: Any) -> list[str]:
    """Problems of a numeric result (arrays, floats, tuples of arrays, an AuditResult)."""
    if hasattr(value, "epsilon_lower_bound"):
        value = [value.epsilon_lower_bound, value.threshold, value.p_lower, value.q_upper]
    parts = value if isinstance(value, tuple) else (value,)
    out = []
    for part in parts:
        a = np.asarray(part, dtype=float)
        if not np.all(np.isfinite(a)):
            out.append(f"non-finite result {part!r}"[:120])
    return out


def _callable_result(f: Any) -> list[str]:
    return _finite(f(np.zeros(2))) if callable(f) else ["not callable"]


def _object_result(obj: Any) -> list[str]:
    return [] if obj is not None else ["None"]


def audit_cases() -> list[Case]:
    from dpconvex import audit as au

    u, u_prime = au.exponential_mechanism_pair()
    fns: dict[str, tuple[Callable[..., Any], dict[str, Any], Callable[[Any], list[str]]]] = {
        "epsilon_from_counts": (au.epsilon_from_counts,
                                {"k_D": 80, "n_D": 100, "k_Dprime": 20, "n_Dprime": 100,
                                 "confidence": 0.95, "delta": 0.0}, _finite),
        "clopper_pearson_lower": (au.clopper_pearson_lower, {"k": 3, "n": 10, "alpha": 0.05}, _finite),
        "clopper_pearson_upper": (au.clopper_pearson_upper, {"k": 3, "n": 10, "alpha": 0.05}, _finite),
        "linear_erm_pair": (au.linear_erm_pair,
                            {"n": 10, "d": 2, "data_norm": 1.0, "label_range": (-1.0, 1.0),
                             "anchors": 1, "random_state": 0}, _finite),
        "large_margin_pair": (au.large_margin_pair, {"n": 10, "d": 2, "n_classes": 2,
                                                     "data_norm": 1.0, "random_state": 0}, _finite),
        "exponential_mechanism_pair": (au.exponential_mechanism_pair,
                                       {"sensitivity": 1.0, "gap": 2.0}, _finite),
        "ExponentialMechanism": (au.ExponentialMechanism, {"epsilon": 1.0, "sensitivity": 1.0},
                                 _object_result),
        "LinearERMMechanism": (au.LinearERMMechanism,
                               {"loss": "logistic", "epsilon": 1.0, "mechanism": "objective",
                                "lam": 0.1, "data_norm": 1.0, "h": 0.5, "noise_scale": 1.0,
                                "solver": "native", "delta": 0.0}, _object_result),
        "LargeMarginMechanism": (au.LargeMarginMechanism,
                                 {"epsilon": 1.0, "lam": 0.1, "gamma": 0.0, "h": 0.5,
                                  "data_norm": 1.0, "n_classes": 2, "n_components": 1,
                                  "noise_scale": 1.0, "solver": "native"}, _object_result),
        "float_consistency_statistic": (au.float_consistency_statistic, {"center": 0.0},
                                        _callable_result),
        "NoisyGDMechanism": (au.NoisyGDMechanism, {"estimator": _ngd(), "noise_scale": 1.0},
                             _object_result),
        "EstimatorReleaseMechanism": (au.EstimatorReleaseMechanism,
                                      {"estimator": dp.PrivateLargeMarginGaussian(),
                                       "noise_scale": 1.0}, _object_result),
        "EstimatorMechanism": (lambda **kw: au.EstimatorMechanism(**kw)(
                                   (X, Y2), np.random.default_rng(0)),
                               {"estimator": dp.PrivateLogisticRegression(solver="native"),
                                "output": None}, _finite),
        "epsilon_lower_bound": (au.epsilon_lower_bound,
                                {"outputs_D": np.linspace(0.0, 1.0, 40),
                                 "outputs_Dprime": np.linspace(0.5, 1.5, 40), "statistic": None,
                                 "threshold": None, "direction": None, "confidence": 0.95,
                                 "delta": 0.0, "selection_fraction": 0.5, "quantiles": None},
                                _finite),
        "audit": (au.audit, {"mechanism": au.ExponentialMechanism(epsilon=1.0), "D": u,
                             "D_prime": u_prime, "n_runs": 40, "confidence": 0.95,
                             "statistic": None, "random_state": 0, "delta": 0.0,
                             "selection_fraction": 0.5, "quantiles": None}, _finite),
    }
    #: (function, parameter): values of BAD_VALUES that are valid there.
    valid = {("epsilon_lower_bound", "quantiles"): {"one-element list"},
             ("clopper_pearson_lower", "k"): {"one-element list"},
             ("clopper_pearson_upper", "k"): {"one-element list"},
             ("float_consistency_statistic", "center"): {"one-element list"},
             ("audit", "quantiles"): {"one-element list"},
             ("audit", "D"): {"one-element list"}, ("audit", "D_prime"): {"one-element list"},
             ("epsilon_lower_bound", "threshold"): set(), }
    cases = []
    for fname, (fn, base, check) in fns.items():
        for p in base:
            for table, bad in ((BAD_VALUES, True), (EDGE_VALUES, False)):
                for vid, value in table:
                    kw = {**base, p: value}
                    bad_here = bad and vid not in valid.get((fname, p), set()) \
                        and is_bad_value(fname, p, vid)
                    cases.append(Case(f"{fname}({p}={vid})", lambda fn=fn, kw=kw: fn(**kw),
                                      bad_here, check=check))
    return cases


def test_every_audit_entry_point_is_fuzzed():
    from dpconvex import audit as au

    public = {n for n in au.__all__ if callable(getattr(au, n))} - {"AuditResult", "BatchMechanism"}
    ids = {c.id.split("(")[0] for c in audit_cases()}
    assert {"audit", "epsilon_lower_bound"} <= public
    assert public <= ids, f"not fuzzed: {sorted(public - ids)}"


@pytest.mark.slow
def test_fuzz_audit():
    check_tally("audit", run_cases(audit_cases()), 300)


# =====================================================================================
FAMILIES: dict[str, Callable[[], list[Case]]] = {
    **{f"parameters of {n}": (lambda n=n: param_cases(n)) for n in PARAM_NAMES},
    **{f"fit data of {n}": (lambda n=n: data_cases(n)) for n in ESTIMATOR_NAMES},
    **{f"predict/score data of {n}": (lambda n=n: predict_cases(n)) for n in ESTIMATOR_NAMES},
    "epsilon_sweep": sweep_cases,
    "loaders": loader_cases,
    "audit": audit_cases,
}


def main() -> int:
    total = Tally()
    t0 = time.perf_counter()
    for name, build in FAMILIES.items():
        try:
            cases = build()
        except Exception as exc:  # noqa: BLE001 - report and go on
            print(f"fuzz {name}: could not build the cases: {type(exc).__name__}: {exc}")
            total.counts["raw"] += 1
            continue
        t1 = time.perf_counter()
        tally = run_cases(cases)
        print(tally.line(name) + f" ({time.perf_counter() - t1:.1f} s)")
        for f in tally.failures:
            print("   ", f)
        total.add(tally)
    print(total.line("TOTAL") + f" ({time.perf_counter() - t0:.1f} s)")
    return 1 if total.failures else 0


if __name__ == "__main__":
    sys.exit(main())
