"""Running a problem: every method at every ε (or training-set size) for every run; and the
embedded default job (:func:`run_demo`: the front door and private logistic regression on
breast-cancer data from :func:`dpconvex.datasets.load_sklearn`, whose warning says what the
guarantee covers). Experiments seed their noise (``[grid] seed``) to be reproducible: a
model trained with a known seed is not private; real releases use ``random_state=None``.
"""

from __future__ import annotations

import csv
import math
import sys
import time
import warnings
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .._validation import (
    NoiseSource,
    check_bool,
    check_float,
    check_int,
    conversion_failure,
    float_rows,
)
from ..data.schema import _number
from ..data.validation import LabelArray, check_array, check_labels, computed, declared_classes
from ..errors import DatasetError, DataValidationError, ParameterError
from ..estimators.base import NO_CONTEXT, _takes_context, fit_with
from ..estimators.sweep import epsilon_sweep
from .band import score
from .report import CONSTANT_PREDICTION, MAJORITY, ProblemResult, WarningTally, release_name
from .spec import (
    DATASETS,
    MAX_RUNS,
    Method,
    Problem,
    _err,
    build_estimator,
    check_fits,
    count_fits,
    load_problem,
    model_of,
)

if TYPE_CHECKING:
    from sklearn.base import BaseEstimator

__all__ = ["constant_r2", "load_data", "majority_error", "run_problem"]


def majority_error(y_train: Any, y_test: Any) -> float:
    """Test error of predicting the most frequent training label for every row.

    Ties go to the smallest label, so the baseline is deterministic.

    Examples
    --------
    >>> from dpconvex.runs import majority_error
    >>> majority_error([0, 0, 1], [0, 1, 1, 1])
    0.75
    """
    train = _label_column(y_train, "majority_error", "y_train")
    test = _label_column(y_test, "majority_error", "y_test")
    error = None
    try:  # labels of types that do not compare fail here; the text can name a label
        labels, counts = np.unique(train, return_counts=True)
        majority = labels[int(np.argmax(counts))]
        error = float(np.mean(np.asarray(test != majority, dtype=bool)))
    except (TypeError, ValueError, ArithmeticError):
        pass
    if error is None:
        raise DataValidationError(
            "majority_error: y_train and y_test hold labels that cannot be compared (e.g. "
            "numbers and strings mixed, or containers). Pass labels of one type.")
    return error


def constant_r2(y_train: Any, y_test: Any) -> float:
    """Test R² of predicting the mean training label for every row.

    About 0 (below 0 when the test mean differs from the training mean): a regressor is useful only above it.

    Examples
    --------
    >>> from dpconvex.runs import constant_r2
    >>> constant_r2([1.0, 2.0, 3.0], [1.0, 3.0])
    0.0
    >>> constant_r2([0.0, 0.0], [1.0, 3.0])
    -4.0
    """
    from sklearn.metrics import r2_score

    train = _label_column(float_rows(y_train, "constant_r2", "y_train"), "constant_r2",
                          "y_train")
    truth = _label_column(float_rows(y_test, "constant_r2", "y_test"), "constant_r2", "y_test")
    for name, y in (("y_train", train), ("y_test", truth)):
        if not np.isfinite(y).all():
            raise DataValidationError(
                f"constant_r2: {name} holds NaN or an infinity; pass finite labels.")
    with np.errstate(over="ignore"):
        center = float(np.mean(train))
    if not math.isfinite(center):  # a sum beyond float64: the mean of the scaled labels
        scale = float(np.max(np.abs(train)))
        center = float(np.mean(train / scale)) * scale
    with np.errstate(over="ignore", invalid="ignore"):  # labels near the float64 maximum
        return float(r2_score(truth, np.full(truth.shape, center)))


def _label_column(y: Any, caller: str, name: str) -> np.ndarray:
    """``y`` as a 1-D array of at least one label, or a
    :class:`~dpconvex.errors.DataValidationError` that quotes no label (raised outside the
    ``except`` block, so that no context holds NumPy's text, which can quote one)."""
    failure = None
    try:
        column = np.asarray(y)
    except (TypeError, ValueError, OverflowError) as exc:
        failure = type(exc)
    if failure is not None:
        raise DataValidationError(
            f"{caller}: {name} could not be read as an array ({conversion_failure(failure)}). "
            "Pass a 1-D array of labels.")
    if column.ndim != 1 or column.size == 0:
        raise DataValidationError(
            f"{caller}: {name} must be a 1-D array of at least one label; got shape "
            f"{column.shape}.")
    return column


def _make_estimator(method: Method, epsilon: float | None) -> BaseEstimator:
    """The method's unfitted estimator (``random_state=None``: the run hands the fit its noise)."""
    import dpconvex

    est = build_estimator(method, epsilon, caller="run_problem")
    if method.tune and method.private:
        return dpconvex.PrivateGridSearch(est, method.tune, epsilon=epsilon)
    return est


def fit_seeded(est: BaseEstimator, X: Any, y: Any, source: NoiseSource, *,
               private: bool = True) -> BaseEstimator:
    """Fit a method's estimator with the noise of ``source``, handed to the model it fits
    (:func:`~dpconvex.runs.spec.model_of`): the estimator itself, a ``Pipeline``'s last step, or
    a ``TransformedTargetRegressor``'s regressor, which is fitted here (scikit-learn's fit would
    fit a clone of it, drawing from its own ``random_state``). A seeded ``source`` spawns a
    stream for each other step of a ``Pipeline`` (nested ones included) that takes its part's
    context and holds a ``random_state`` (a ``RandomFourierFeatures``), and for nothing else:
    the parts inside the model draw from the model's noise (a search spawns its candidates'
    streams from it). Any other part that draws (a step outside dpconvex) draws from its own
    ``random_state``.

    The regressor of a stateless ``TransformedTargetRegressor`` (no ``transformer``: for a
    private model ``build_estimator`` refuses one, as it is fitted on the labels) learns
    ``func(y)``; ``check_inverse`` is not run, as it compares ``inverse_func(func(y))`` with the
    private labels. Its other fitted attributes are the ones scikit-learn's fit sets:
    ``predict`` maps the regressor's predictions back by ``inverse_func``. One with a
    ``transformer`` (a non-private comparison) is fitted by scikit-learn.

    A non-private comparison (``private=False``: :attr:`~dpconvex.runs.spec.Method.private`,
    its row labelled non-private) releases nothing under a guarantee: scikit-learn's own fit
    fits it, steps that learn from the rows (a ``StandardScaler``) included. In a seeded run,
    each of its parts outside the model whose ``random_state`` is None (a ``Pipeline``'s
    ``RandomFourierFeatures``, a ``TransformedTargetRegressor``'s ``transformer``) is first
    seeded with an int drawn from a stream spawned from ``source``. The model and its parts
    keep their ``random_state``: a model that draws with ``random_state=None`` (scikit-learn's
    ``SGDRegressor``) gives other numbers at each run.

    Parameters
    ----------
    est : estimator
        The unfitted estimator :func:`~dpconvex.runs.spec.build_estimator` returned.
    X, y : array-like
        The training rows and labels.
    source : NoiseSource
        The run's generator.
    private : bool, default=True
        Whether ``est`` is a private method's estimator (False: a non-private comparison,
        fitted by scikit-learn's fit).

    Returns
    -------
    estimator
        ``est``, fitted.

    Raises
    ------
    PrivacyError
        A private method's ``Pipeline`` with a step outside dpconvex that learns from its
        rows (:func:`~dpconvex.estimators.base.fit_with`).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.compose import TransformedTargetRegressor
    >>> import dpconvex as dp
    >>> from dpconvex._validation import NoiseSource
    >>> from dpconvex.runs.runner import fit_seeded
    >>> X = np.random.default_rng(0).uniform(-0.5, 0.5, (60, 2))
    >>> y = X @ [1.0, -1.0]
    >>> def fit(seed):
    ...     model = dp.PrivateLinearRegressor(epsilon=5.0, label_range=(-1, 1))
    ...     est = TransformedTargetRegressor(model, func=np.negative, inverse_func=np.negative)
    ...     return fit_seeded(est, X, y, NoiseSource(np.random.default_rng(seed), True))
    >>> bool(np.allclose(fit(3).predict(X), fit(3).predict(X), rtol=1e-9, atol=0))
    True
    """
    from sklearn.base import clone
    from sklearn.compose import TransformedTargetRegressor
    from sklearn.preprocessing import FunctionTransformer

    if not private:
        return _fit_comparison(est, X, y, source)
    if not (
        isinstance(est, TransformedTargetRegressor)
        and est.regressor is not None
        and est.transformer is None
        and (est.func is None) == (est.inverse_func is None)
    ):  # a non-private comparison may have a transformer: scikit-learn fits it
        return fit_with(est, X, y, NO_CONTEXT, _sources(est, source))
    labels = np.asarray(y)
    column = labels.reshape(-1, 1) if labels.ndim == 1 else labels
    transform = FunctionTransformer(func=est.func, inverse_func=est.inverse_func, validate=True,
                                    check_inverse=False).set_output(transform="default")
    mapped = transform.fit(column).transform(column)
    if mapped.ndim == 2 and mapped.shape[1] == 1 and labels.ndim == 1:
        mapped = mapped.squeeze(axis=1)
    est._training_dim = labels.ndim  # what TransformedTargetRegressor.predict reads
    est.transformer_ = transform
    est.regressor_ = fit_seeded(clone(est.regressor), X, mapped, source)
    if hasattr(est.regressor_, "feature_names_in_"):
        est.feature_names_in_ = est.regressor_.feature_names_in_
    return est


def _fit_comparison(est: BaseEstimator, X: Any, y: Any, source: NoiseSource) -> BaseEstimator:
    """Fit a non-private comparison by scikit-learn's fit; in a seeded run, each part outside
    the model (:func:`_parts_outside`) whose ``random_state`` is None first gets an int seed
    drawn from a stream of its own, spawned from ``source``."""
    parts = _parts_outside(est, model_of(est)) if source.seeded else []
    for (key, seed), stream in zip(parts, source.rng.spawn(len(parts)) if parts else [],
                                   strict=True):
        if seed is None:
            est.set_params(**{key: int(stream.integers(2**32))})
    return est.fit(X, y)


def _parts_outside(est: BaseEstimator, model: Any) -> list[tuple[str, Any]]:
    """The keys of ``est.get_params(deep=True)`` naming the ``random_state`` of a part outside
    ``model``, each with its value: neither the model nor a part of it (a search's
    ``estimator``), whose noise is the model's own. None when ``est`` is the model, or a user's
    estimator without parameters to read."""
    if est is model:
        return []
    try:
        deep = est.get_params(deep=True)
    except Exception:  # noqa: BLE001 - a user's estimator: no parameters to read
        return []
    inside = tuple(key + "__" for key, value in deep.items() if value is model)
    return [(key, value) for key, value in deep.items() if key.endswith("__random_state")
            and deep[key.rpartition("__")[0]] is not model and not key.startswith(inside)]


def _streamed_steps(est: Any, model: Any) -> list[Any]:
    """The steps :func:`~dpconvex.estimators.base.fit_with` hands a stream of their own, in the
    order it fits them: each step of a ``Pipeline`` (or of a ``Pipeline`` among its steps)
    other than ``model`` that takes its part's context and holds a ``random_state`` (a
    ``RandomFourierFeatures``). None of any other estimator: the parts inside the model draw
    from the model's noise (a search spawns its candidates' streams from it)."""
    from sklearn.pipeline import Pipeline

    if not isinstance(est, Pipeline):
        return []
    steps: list[Any] = []
    for _, step in est.steps:
        if isinstance(step, Pipeline):
            steps += _streamed_steps(step, model)
        elif (step is not model and _takes_context(step)
              and "random_state" in step.get_params(deep=False)):
            steps.append(step)
    return steps


def _sources(est: BaseEstimator, source: NoiseSource) -> dict[int, NoiseSource]:
    """The noise of each part of ``est`` the fit hands a source, by ``id``: ``source`` for the
    model it fits (:func:`~dpconvex.runs.spec.model_of`); in a seeded run, a stream spawned from
    ``source`` for each of :func:`_streamed_steps` (none spawned without them: the model's own
    spawns, such as a search's, are as when it is fitted alone)."""
    model = model_of(est)
    given = {id(model): source}
    if not source.seeded:  # the others draw from their own random_state
        return given
    steps = _streamed_steps(est, model)
    for step, stream in zip(steps, source.rng.spawn(len(steps)) if steps else [], strict=True):
        given.setdefault(id(step), NoiseSource(stream, seeded=True))
    return given


def _record(result: ProblemResult, label: str, key: float, est: BaseEstimator, value: float,
            certified: bool = False) -> None:
    """Store one fit's score and what it released (from its certificate, if it has one); with
    ``certified`` (a private method's fit), the (ε, δ) its certificate states (None: none)."""
    result.errors.setdefault(label, {}).setdefault(key, []).append(value)
    names = result.released.setdefault(label, {}).setdefault(key, {})
    cert = getattr(model_of(est), "certificate_", None)
    if cert is not None:
        name = release_name(model_of(est))
        names[name] = names.get(name, 0) + 1
    if certified:
        pair = None if cert is None else (float(cert.epsilon), float(cert.delta))
        counts = result.certified.setdefault(label, {}).setdefault(key, {})
        counts[pair] = counts.get(pair, 0) + 1


def _check_release(problem: Problem, method: Method, epsilon: float, est: BaseEstimator) -> None:
    """Refuse a private fit whose certificate states another ε than the grid's, or a δ above the
    method's ``delta``: the run would score and report a model other than the one it names."""
    cert = getattr(model_of(est), "certificate_", None)
    # nothing stated: the model was built with the grid's epsilon (build_estimator)
    if cert is None:
        return
    asked = method.params.get("delta")  # none stated: the mechanism's own (a Gaussian's default)
    wrong_eps = not math.isclose(cert.epsilon_requested, epsilon, rel_tol=1e-9)
    if wrong_eps or (isinstance(asked, (int, float)) and cert.delta > asked * (1 + 1e-9)):
        where = method.where or (problem.path, "method.")
        raise _err(where[0], where[1] + "estimator", f"its fit at epsilon = {epsilon:g} released "
                   f"a model whose certificate requests epsilon = {cert.epsilon_requested:g} and "
                   f"guarantees ({cert.epsilon:g}, {cert.delta:g})-DP, not the grid's epsilon"
                   + (f" and the params' delta = {asked:g}" if asked is not None else "")
                   + f": the run scores the model {method.estimator} builds. Spend the epsilon "
                   "(and delta) it is given, unchanged.", "run_problem")


#: The non-private row of a problem whose methods are all private, by metric.
NON_PRIVATE_BASELINE = {"error": "non-private (scikit-learn LogisticRegression)",
                        "r2": "non-private (scikit-learn Ridge)"}


def _non_private_baseline(result: ProblemResult, Xtr: Any, ytr: Any, Xte: Any, yte: Any,
                          sizes: list[int] | None, run: int) -> None:
    """Fit and score :data:`NON_PRIVATE_BASELINE` on this run's split (at each training size of a
    learning curve, on rows drawn from a generator of its own, so the methods' draws are as without it;
    a sample of one class predicts it, what the fit of any classifier on it would)."""
    from sklearn.dummy import DummyClassifier
    from sklearn.linear_model import LogisticRegression, Ridge

    metric = result.problem.metric
    rng = np.random.default_rng([result.problem.seed, run])
    for size in sizes or [None]:
        Xs, ys = Xtr, ytr
        if size is not None and size <= len(ytr):
            idx = rng.choice(len(ytr), size, replace=False)
            Xs, ys = Xtr[idx], ytr[idx]
        # labels held by Dask: one number per row, read on the driver as the fits read them
        ys = computed(ys)
        est = (
            Ridge()
            if metric == "r2"
            else LogisticRegression(max_iter=2000)
            if len(np.unique(ys)) > 1
            else DummyClassifier(strategy="most_frequent")
        ).fit(Xs, ys)
        _record(
            result,
            NON_PRIVATE_BASELINE[metric],
            math.inf if size is None else float(size),
            est,
            score(est, Xte, yte, metric),
        )


def _split(problem: Problem, data: Any, rng: np.random.Generator) -> tuple[Any, Any]:
    if isinstance(data, dict):
        return data["train"], data["test"]
    if problem.split == "given":
        raise _err(problem.path, "data.split", f"'given': {problem.dataset} has no train and test "
                   "files of its own. Use split = \"random\" (with test_size).", "run_problem")
    X, y = data
    n = len(y)
    ts = problem.test_size if problem.test_size is not None else 0.3
    n_test = int(ts if ts >= 1 else round(ts * n))
    perm = rng.permutation(n)
    test, train = perm[:n_test], perm[n_test:]
    if (tr := problem.train_size) is not None:
        k = int(tr if tr >= 1 else round(tr * n))
        if k > train.size:
            raise _err(
                problem.path,
                "data.train_size",
                f"{k} rows asked of the {train.size} the split "
                f"leaves for training (a fraction is one of all {n} rows). Use fewer.",
                "run_problem",
            )
        train = train[:k]
    low = 2 if problem.metric == "r2" else 1  # R² is undefined on one test row
    if test.size < low or train.size < 2:
        need = "; R² needs 2" if low > 1 else ""
        fix = (
            f"Use a test_size of {low} to {n - 2} rows (or a fraction) and a train_size that "
            "keeps at "
            "least 2 rows."
            if n - 2 >= low
            else f"No split of {n} rows leaves 2 training and {low} test rows: use a data set of at least "
            f"{low + 2} rows."
        )
        raise _err(
            problem.path,
            "data.test_size",
            f"the split of the {n} rows leaves {train.size} training "
            f"and {test.size} test rows{need}. {fix}",
            "run_problem",
        )
    return (X[train], y[train]), (X[test], y[test])


class _Progress:
    """A bar redrawn in place on a terminal; into a file or a pipe, a line at each tenth."""

    def __init__(self, total: int, enabled: bool, label: str):
        self.total, self.done, self.enabled, self.label = total, 0, enabled, label
        self.t0 = time.perf_counter()
        self.redraw = enabled and sys.stderr.isatty()

    def step(self) -> None:
        self.done += 1
        if not self.enabled:
            return
        el = time.perf_counter() - self.t0
        total = max(self.total, 1)
        if self.redraw:
            w = 30
            k = int(w * self.done / total)
            sys.stderr.write(
                f"\r{self.label} [{'#' * k}{'.' * (w - k)}] {self.done}/{self.total} {el:.0f}s"
            )
            if self.done == self.total:
                sys.stderr.write("\n")
        elif 10 * self.done // total > 10 * (self.done - 1) // total:
            sys.stderr.write(f"{self.label}: {self.done}/{self.total} fits, {el:.0f}s\n")
        sys.stderr.flush()


def _check_bands(result: ProblemResult, expect: list[Any]) -> None:
    """One check per band: the mean score at its point, in [low, high] (keys by metric:
    ``min_error``/``max_error`` or ``min_r2``/``max_r2``)."""
    for e in expect:
        d = result.errors.get(e.method, {})
        key = float(e.train_size) if e.train_size else math.inf if e.epsilon is None else e.epsilon
        check = {"method": e.method, "epsilon": e.epsilon, "observed": math.nan,
                 "train_size": e.train_size, f"min_{e.metric}": e.low,
                 f"max_{e.metric}": e.high, "ok": False}
        if key not in d:
            check["why"] = "no result at this point (not in the grid?)"
        else:
            check["observed"] = float(np.mean(d[key]))
            check["ok"] = e.low <= check["observed"] <= e.high
        result.checks.append(check)


def _data_error(problem: Problem, key: str, text: str) -> Exception:
    """The error of the problem's data at ``key``, raised while :func:`load_data` reads them."""
    return _err(problem.path, key, text, "load_data")


def _read_csv(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """(X, y) of a CSV file, as floats: a header row, numeric cells; y is the ``target`` column."""
    path, target = Path(str(problem.csv)), str(problem.target)
    try:
        with path.open(newline="", encoding="utf-8") as f:
            reader = csv.reader(f)
            rows = [(reader.line_num, row) for row in reader if any(c.strip() for c in row)]
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise _data_error(problem, "data.dataset", f"cannot read {path} ({exc}). Check the file "
                          "(UTF-8 text, comma-separated).") from None
    if len(rows) < 2:
        raise _data_error(problem, "data.dataset", f"{path} has no records. Write a header row "
                          "naming the columns, then one row per record.")
    header = [name.strip() for name in rows[0][1]]
    if twice := sorted(name for name, count in Counter(header).items() if count > 1):
        raise _data_error(
            problem,
            "data.dataset",
            f"columns {twice} appear more than once in the header of {path}. Rename them.",
        )
    if target not in header:
        raise _data_error(
            problem,
            "data.target",
            f"{target!r} is not a column of {path.name}; its "
            f"columns: {header}. Name the label column.",
        )
    for line, row in rows[1:]:
        if len(row) != len(header):
            raise _data_error(problem, "data.dataset", f"line {line} of {path} has {len(row)} "
                              f"fields and the header {len(header)}. Fix the file.")
    try:
        table = np.array([[float(cell) for cell in row] for _, row in rows[1:]], dtype=float)
        if not np.isfinite(table).all():  # "nan", "inf": read by float(), not values of a record
            raise ValueError
    except ValueError:
        line, column = next((line, header[j]) for line, row in rows[1:]
                            for j, cell in enumerate(row) if not _number(cell))
        raise _data_error(problem, "data.dataset", f"line {line} of {path}, column {column!r}, is "
                          "not a finite number: only numeric columns are read. Encode or drop "
                          "that column (or that record) first.") from None
    table = table.reshape(len(rows) - 1, len(header))
    j = header.index(target)
    return np.delete(table, j, axis=1), table[:, j]


def _plain(values: Any) -> Any:
    """A pandas object or a list as a NumPy array (a Categorical's label set kept); anything else as is."""
    if hasattr(values, "to_numpy"):
        return (
            values.to_numpy() if (c := declared_classes(values)) is None else LabelArray(values, c)
        )
    return np.asarray(values) if isinstance(values, (list, tuple)) else values


def _checked(problem: Problem, X: Any, y: Any) -> tuple[Any, Any]:
    """(X, y) the runner can split and score: sparse X as CSR; y (a column vector's column, as the fits
    read it) checked as class labels, or for R² as finite numbers, before a baseline reads it."""
    col = y[:, 0] if np.ndim(y) == 2 and np.shape(y)[1] == 1 else y
    try:
        if problem.metric == "r2":
            check_array(np.column_stack([col]), problem.dataset, name="y")
        else:
            check_labels(col, len(col), problem.dataset)
    except DataValidationError as exc:
        raise _data_error(problem, "data.dataset", str(exc)) from None
    return (X.tocsr() if hasattr(X, "tocsr") else X), y


def _as_xy(problem: Problem, out: Any) -> tuple[Any, Any]:
    """(X, y) from a loader's (X, y) or DataFrame (with the problem's ``target`` column)."""
    target = problem.target
    if hasattr(out, "columns") and hasattr(out, "drop"):  # a DataFrame
        if target is None:
            raise _data_error(problem, "data.target", "the loader returned a DataFrame: name its "
                              "label column with target = \"...\".")
        if target not in out.columns:
            raise _data_error(
                problem,
                "data.target",
                f"{target!r} is not a column of the "
                f"loader's DataFrame; its columns: {list(out.columns)}. Name the label column.",
            )
        features = out.drop(columns=[target])
        other = [c for c in features.columns if features[c].dtype.kind not in "biuf"]
        if other:
            raise _data_error(problem, "data.dataset", f"only numeric columns are read; not "
                              f"numeric: {other}. Encode or drop them in the loader.")
        return _checked(problem, features.to_numpy(dtype=float), _plain(out[target]))
    if isinstance(out, (tuple, list)) and len(out) == 2:
        if target is not None:
            raise _data_error(problem, "data.target", "the loader returned (X, y): target applies "
                              "to a CSV file or a DataFrame. Remove it.")
        try:
            X, y = _plain(out[0]), _plain(out[1])
        except ValueError as exc:  # ragged lists
            raise _data_error(
                problem,
                "data.dataset",
                f"the loader's X or y is not an array: "
                f"{str(exc).rstrip('.')}. Return arrays of one row per record.",
            ) from None
        if not hasattr(X, "shape") or len(X.shape) != 2 or np.shape(y)[:1] != X.shape[:1]:
            raise _data_error(problem, "data.dataset", f"the loader returned X of shape "
                              f"{getattr(X, 'shape', None)} and y of shape {np.shape(y)}: X "
                              "must be 2-D with one label in y per row.")
        return _checked(problem, X, y)
    raise _data_error(problem, "data.dataset", f"the loader returned a {type(out).__name__}. "
                      "Return (X, y), a DataFrame with the label column, or "
                      "{'train': (X, y), 'test': (X, y)}.")


def load_data(problem: Problem) -> Any:
    """The problem's data: ``(X, y)`` or ``{"train": (X, y), "test": (X, y)}``.

    From the registered loader, the loader an import path names (its ``(X, y)``, or
    a DataFrame whose ``target`` column is y, or the train/test dict), or a CSV
    file (a header row, numeric columns, ``target`` the label column).

    Raises
    ------
    ProblemError
        The loader refuses ``[data] options`` or fails, returns something else or labels the metric
        cannot read, or a CSV file or DataFrame cannot be read as numbers (names the key).
    DatasetError
        A dataset file is missing or malformed.

    Examples
    --------
    >>> from dpconvex.runs import load_data, load_problem
    >>> X, y = load_data(load_problem("wine_large_margin"))
    >>> X.shape, y.shape
    ((178, 13), (178,))
    """
    if problem.csv is not None:
        return _read_csv(problem)
    registered = problem.loader is None
    loader = DATASETS[problem.dataset] if registered else problem.loader
    opts = dict(problem.options)
    if problem.dataset == "kddcup99":
        opts.setdefault("random_state", problem.seed)
    try:
        out = loader(**opts)
    except DatasetError:
        raise
    except (TypeError, ValueError) as exc:  # ParameterError included: name the key
        if registered or opts:
            raise _err(problem.path, "data.options", f"not accepted by the loader: {exc}.",
                       "load_data") from None
        raise _err(problem.path, "data.dataset", f"the loader raised {type(exc).__name__}: {exc}. "
                   "Fix the loader.", "load_data") from exc
    except Exception as exc:
        if registered:
            raise
        raise _err(problem.path, "data.dataset", f"the loader raised {type(exc).__name__}: {exc}. "
                   "Fix the loader or its options.", "load_data") from exc
    if isinstance(out, dict) and set(out) == {"train", "test"}:
        return {part: _as_xy(problem, out[part]) for part in ("train", "test")}
    return _as_xy(problem, out)


def run_problem(problem: Problem | str, *, runs: int | None = None, quick: bool = False,
                progress: bool = True) -> ProblemResult:
    """Run a problem: every method at every ε for every run; check the bands.

    Each fit is scored on the run's test rows in the problem's metric: the test
    error (1 − accuracy) or, for regressors, R² (:func:`~dpconvex.runs.band.score`).

    Parameters
    ----------
    problem : Problem or str
        A loaded problem, or a name/path for :func:`load_problem`.
    runs : int, optional
        Override the number of randomized runs, in [1, :data:`~dpconvex.runs.spec.MAX_RUNS`].
    quick : bool
        The reduced form: ``[quick]`` runs, ε grid, training-set cap and bands.
    progress : bool
        Draw a progress bar on stderr.

    Warns
    -----
    Warning
        Each distinct warning the fits (and the data loader) raised, once, in its own
        category, with how many fits raised it (captured by
        :class:`~dpconvex.runs.WarningTally`, process-global).

    Raises
    ------
    ProblemError
        An invalid problem file, loader options the loader refuses, or more
        fits than :data:`~dpconvex.runs.spec.MAX_PROBLEM_FITS`.
    ParameterError
        ``runs`` is not an integer in [1, :data:`~dpconvex.runs.spec.MAX_RUNS`].

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from dpconvex.runs import load_problem, run_problem
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = pathlib.Path(tmp.name) / "tiny.toml"
    >>> _ = path.write_text('''
    ... [data]
    ... dataset = "sklearn_breast_cancer"
    ... train_size = 100
    ... [grid]
    ... epsilon = [10.0]
    ... runs = 1
    ... seed = 0
    ... [[method]]
    ... label = "LR"
    ... estimator = "PrivateLogisticRegression"
    ... params = { lam = 0.01 }
    ... [[expect]]
    ... method = "LR"
    ... epsilon = 10.0
    ... max_error = 0.6
    ... ''')
    >>> result = run_problem(load_problem(path), progress=False)
    >>> list(result.errors), list(result.errors["LR"])   # and the non-private row every table shows
    (['LR', 'non-private (scikit-learn LogisticRegression)'], [10.0])
    >>> [c["ok"] for c in result.checks]
    [True]
    >>> result.released["LR"][10.0]
    {'objective perturbation on linear ERM': 1}
    >>> tmp.cleanup()
    """
    if runs is not None:
        runs = check_int(
            "runs",
            runs,
            "run_problem",
            high=MAX_RUNS,
            why="the standard error of a mean test error over that many runs is at most 0.005",
        )
    quick = check_bool("quick", quick, "run_problem")
    if not isinstance(problem, Problem):
        problem = load_problem(problem)
    n_runs = runs or (problem.quick_runs if quick else problem.runs)
    epsilons = problem.quick_epsilons if quick else problem.epsilons
    expect = problem.quick_expect if quick else problem.expect
    sizes = problem.quick_train_sizes if quick else problem.train_sizes
    check_fits(problem.path, n_runs, count_fits(problem.methods, epsilons, sizes),
               "runs" if runs else ("quick.runs" if quick else "grid.runs"), "run_problem")
    rng = np.random.default_rng(problem.seed)
    tally = WarningTally()
    with tally.capture("data", fits=0):
        data = load_data(problem)
    result = ProblemResult(problem, quick, n_runs)
    if sizes:  # learning curve: every method at every size, private ones at the first epsilon
        cells = [
            (m, [(epsilons[0] if m.private else math.inf, s) for s in sizes])
            for m in problem.methods
        ]
    else:
        cells = [
            (m, [(e, None) for e in (epsilons if m.private else [math.inf])])
            for m in problem.methods
        ]
    bar = _Progress(n_runs * sum(len(c) for _, c in cells), progress, problem.name)
    t0 = time.perf_counter()
    for _ in range(n_runs):
        (Xtr, ytr), (Xte, yte) = _split(problem, data, rng)
        if quick and problem.quick_max_train and len(ytr) > problem.quick_max_train:
            idx = rng.choice(len(ytr), problem.quick_max_train, replace=False)
            Xtr, ytr = Xtr[idx], ytr[idx]
        # the trivial baseline (majority class, or constant prediction for R²) draws no randomness
        name, value = ((CONSTANT_PREDICTION, constant_r2(ytr, yte)) if problem.metric == "r2"
                       else (MAJORITY, majority_error(ytr, yte)))
        result.baselines.setdefault(name, []).append(value)
        for m, grid in cells:
            if (
                not sizes
                and m.private
                and not m.tune
                and isinstance(m.factory, (type, type(None)))
            ):
                # one template per (split, method), warm-started across the ε grid; a factory function is
                # called at each ε below (the model it builds may depend on ε)
                with tally.capture(m.label, fits=len(grid)):
                    sw = epsilon_sweep(_make_estimator(m, None), Xtr, ytr,
                                       [e for e, _ in grid], random_state=rng)
                for (eps, _), (est,) in zip(grid, sw.estimators, strict=True):
                    _check_release(problem, m, eps, est)
                    _record(result, m.label, eps, est, score(est, Xte, yte, problem.metric), True)
                    bar.step()
                continue
            for eps, size in grid:
                Xs, ys = Xtr, ytr
                if size is not None:
                    if size > len(ytr):
                        raise _err(problem.path, "grid.train_sizes",
                                   f"size {size} exceeds the {len(ytr)} training rows.",
                                   "run_problem")
                    idx = rng.choice(len(ytr), size, replace=False)
                    Xs, ys = Xtr[idx], ytr[idx]
                # noise from the problem's generator, handed to the fit
                with tally.capture(m.label):
                    est = _make_estimator(m, eps)
                    est = fit_seeded(est, Xs, ys, NoiseSource(rng, seeded=True),
                                     private=m.private)
                if m.private:
                    _check_release(problem, m, eps, est)
                key = float(size) if size is not None else eps
                _record(result, m.label, key, est, score(est, Xte, yte, problem.metric), m.private)
                bar.step()
        # every table and plot shows a non-private baseline
        if all(m.private for m in problem.methods):
            _non_private_baseline(result, Xtr, ytr, Xte, yte, sizes, len(result.baselines[name]))
    result.seconds = time.perf_counter() - t0
    result.fits, result.warnings = tally.fits, tally.summary()
    _check_bands(result, expect)
    for entry in result.warnings:  # each distinct warning once, with how many fits raised it
        warnings.warn(f"{entry['message']} [raised by {entry['fits']} of {result.fits} fits of "
                      f"{problem.name}: {', '.join(entry['methods'])}]",
                      tally.categories[entry["category"]], stacklevel=2)
    return result


# ----------------------------------------------------------------------------- the demo
#: The row of the front door in the demo's table and result.
FRONT_DOOR = "front door"


def _rows(lam: float) -> list[tuple[str, str, Callable[[float], BaseEstimator]]]:
    """(key, model as constructed, factory of ε): the front door first, then the comparisons."""
    from .. import PrivateClassifier, PrivateLogisticRegression

    def logistic(mechanism: str) -> Callable[[float], BaseEstimator]:
        return lambda eps: PrivateLogisticRegression(epsilon=eps, lam=lam, mechanism=mechanism)

    return [
        (FRONT_DOOR, "PrivateClassifier(epsilon=ε)", lambda eps: PrivateClassifier(epsilon=eps)),
        *(
            (mech, f"PrivateLogisticRegression(lam={lam:g}, mechanism='{mech}')", logistic(mech))
            for mech in ("objective", "output")
        ),
    ]


def _label(model: str, released: dict[str, list[float]]) -> str:
    """``model → release`` from the certificates, with its ε when the release changes with ε."""
    if len(released) == 1:
        return f"{model} → {next(iter(released))}"
    return f"{model} → " + "; ".join(f"{name} (ε = {', '.join(f'{e:g}' for e in eps)})"
                                     for name, eps in released.items())


def run_demo(epsilons: tuple[float, ...] = (0.1, 0.5, 1.0, 2.0, 5.0), runs: int = 10,
             lam: float = 1e-3, seed: int | None = None) -> dict:
    """Print the test accuracy of the front door and of private logistic regression at several ε.

    Rows: the front door (:class:`~dpconvex.PrivateClassifier`, only ε set), then private
    logistic regression at a fixed Λ with objective and output perturbation, each named by
    :func:`~dpconvex.runs.release_name`, with the non-private and majority-class baselines;
    then the fits' warnings on stderr (each distinct text once, with its count) and the
    front door's certificate at the largest ε.

    Parameters
    ----------
    epsilons : sequence of float
        The ε grid (each > 0).
    runs : int
        Noise draws per ε, in [1, :data:`~dpconvex.runs.spec.MAX_RUNS`].
    lam : float
        Regularization Λ > 0 of the logistic-regression rows (the front door chooses its own).
    seed : int >= 0 or None
        Seeds the noise (None: from the OS; a seeded model is not private).

    Returns
    -------
    dict
        Mean accuracies: ``"non-private"``, ``"majority class"`` and ``(row, ε)`` with row ``"front door"``,
        ``"objective"`` or ``"output"``; ``"rows"``, the printed row labels in order; ``"warnings"``, the
        distinct warnings in full (``{category, message, fits, methods}``).

    Raises
    ------
    ParameterError
        A parameter outside its range, before any data are loaded.
    """
    from sklearn.model_selection import train_test_split

    from ..datasets import load_sklearn
    from ..estimators.linear import PrivateLogisticRegression

    runs = check_int(
        "runs",
        runs,
        "run_demo",
        high=MAX_RUNS,
        why="the standard error of a mean accuracy over that many runs is at most 0.005",
    )
    lam = check_float("lam", lam, "run_demo")
    if seed is not None:
        seed = check_int("seed", seed, "run_demo", low=0, high=2**128 - 1,
                         why="NumPy's generators take at most 128 bits of seed entropy")
    try:
        epsilons = tuple(check_float("epsilons", e, "run_demo") for e in epsilons)
    except TypeError:
        epsilons = ()
    if not epsilons:
        raise ParameterError(
            "The 'epsilons' parameter of run_demo must be a non-empty sequence of "
            "numbers > 0. Got an empty or non-iterable value instead."
        )

    tally = WarningTally()
    with tally.capture("data", fits=0):
        X, y = load_sklearn("breast_cancer")
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    print("dpconvex demo: private classifiers on scikit-learn's breast-cancer data")
    print(f"data: {len(ytr)} train / {len(yte)} test rows, {X.shape[1]} features, ||x|| <= 1 by "
          f"public ranges; {runs} noise draws per epsilon")
    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    rows = _rows(lam)
    results: dict[Any, Any] = {}
    cells: dict[str, list[str]] = {}
    labels: dict[str, str] = {}
    last = None
    for key, model, make in rows:
        released: dict[str, list[float]] = {}
        for eps in epsilons:
            accs = []
            for _ in range(runs):
                m = make(eps)
                with tally.capture(model):  # one stream, in order
                    fit_with(m, Xtr, ytr, NO_CONTEXT, [(m, NoiseSource(rng, seed is not None))])
                accs.append(m.score(Xte, yte))
                eps_list = released.setdefault(release_name(m), [])
                if eps not in eps_list:
                    eps_list.append(eps)
                if key == FRONT_DOOR:
                    last = m
            results[(key, eps)] = float(np.mean(accs))
            cells.setdefault(key, []).append(f"{np.mean(accs):.3f} ± {np.std(accs):.3f}")
        labels[key] = _label(model, released)
    with tally.capture("non-private"):
        base = PrivateLogisticRegression(mechanism="none", lam=lam).fit(Xtr, ytr)
    majority = float(np.mean(yte == np.bincount(ytr).argmax()))
    results["non-private"], results["majority class"] = base.score(Xte, yte), majority

    width = len(epsilons)
    maj = f"{majority:.3f}"
    print(f"\ntest accuracy, mean ± std over {runs} noise draws; each row names the model and, "
          "after →, the learner and mechanism its fits released (from their certificates)")
    print("| model → release | " + " | ".join(f"ε={e:g}" for e in epsilons)
          + " | non-private | majority class |")
    print("|---" * (width + 3) + "|")
    for key, _, _ in rows:
        print(f"| {labels[key]} | " + " | ".join(cells[key]) + f" |  | {maj} |")
    nonprivate = f"PrivateLogisticRegression(lam={lam:g}, mechanism='none') → {release_name(base)}"
    print(
        f"| {nonprivate} | "
        + " | ".join([""] * width + [f"{results['non-private']:.3f}", maj])
        + " |"
    )
    print(f"\n({time.perf_counter() - t0:.1f} s; majority class: predict the most frequent "
          "training label; a private model is useful only above it)", flush=True)
    results["rows"] = [labels[key] for key, _, _ in rows] + [nonprivate]
    results["warnings"] = tally.summary()
    for line in tally.lines():  # after the table: each distinct warning once, one line each
        print(f"dpconvex demo: {line}", file=sys.stderr)
    if last is not None:
        print(f"\nCertificate of the front door at epsilon = {epsilons[-1]:g}:")
        print(last.certificate_)
    return results
