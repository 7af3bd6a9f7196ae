"""The problem-file schema (``problems/README.md``): registries, lookup, parsing and validation.

Problem files are looked up (:func:`problem_dirs`) as an explicit ``.toml`` path, then in the
folders of ``$DPCONVEX_PROBLEMS`` (``os.pathsep``-separated), the source checkout's
``problems/`` and the copy installed with the package; the first file of a name wins. A
learner, value or loader may be named ``"package.module:object"`` (:func:`import_object`),
imported from the problem file's folder first: code you trust, like a ``conftest.py``.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import inspect
import math
import os
import re
import sys
import sysconfig
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import DPConvexError
from ..estimators.selection.grid import PRIVACY_PARAMETERS

__all__ = ["DATASETS", "ESTIMATORS", "MAX_PROBLEM_FITS", "MAX_RUNS", "METRICS", "Expect", "Method",
           "Problem", "ProblemError", "check_fits", "check_problem", "count_fits", "find_problem",
           "import_object", "list_problems", "load_problem", "problem_dirs"]

#: Environment variable naming extra folders of problem files.
PROBLEMS_ENV = "DPCONVEX_PROBLEMS"
#: Where the installed copy of ``problems/`` lives, relative to the install scheme's data path.
INSTALLED_SUBDIR = ("share", "dpconvex", "problems")
#: Most randomized runs of a problem (``[grid] runs``, ``[quick] runs``, ``--runs``): a
#: test error lies in [0, 1], so the standard error of its mean over this many runs is
#: at most 0.5/sqrt(10,000) = 0.005, finer than any band a problem can usefully state.
MAX_RUNS = 10_000
#: Most fits of a problem's run: runs x the fits of one run (every method at every
#: point, baselines included); at the ~10 ms of the smallest fit, about three hours.
MAX_PROBLEM_FITS = 10**6
#: A problem's name becomes a folder name (``results/NAME``): one plain path component.
NAME_PATTERN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]{0,127}")
#: An import path: dotted module names, ``:``, a dotted attribute path.
IMPORT_PATTERN = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
#: What a problem reports per fit on the test rows: ``"error"`` (1 - accuracy, lower is
#: better) or ``"r2"`` (the coefficient of determination R², higher is better).
METRICS = ("error", "r2")


class ProblemError(DPConvexError, ValueError):
    """A problem file (or a band file) is invalid: the message names the file, the key and the fix.

    Examples
    --------
    >>> from dpconvex.runs import ProblemError, import_object
    >>> try:
    ...     import_object("not an import path")
    ... except ProblemError as exc:
    ...     print(type(exc).__name__, isinstance(exc, ValueError))
    ProblemError True
    """


# ----------------------------------------------------------------------------- registries
def _loader(name: str, *args: str, split: bool = False) -> Callable[..., Any]:
    """``dpconvex.datasets.<name>(*args, **options)``, imported when called; with ``split``,
    its "train" and "test" subsets."""
    def load(**options: Any) -> Any:
        from .. import datasets

        loader = getattr(datasets, name)
        if split:
            return {part: loader(part, **options) for part in ("train", "test")}
        return loader(*args, **options)
    return load


#: Datasets by name: a loader returning (X, y) or {"train": (X, y), "test": (X, y)}; the
#: scikit-learn sets take no options (any is an error).
DATASETS: dict[str, Callable[..., Any]] = {
    "adult": _loader("load_adult", split=True),
    "kddcup99": _loader("load_kddcup99"),
    "breast_cancer_wisconsin": _loader("load_breast_cancer_wisconsin"),
    **{f"sklearn_{name}": _loader("load_sklearn", name)
       for name in ("breast_cancer", "wine", "digits", "diabetes")},
}

#: Estimators a problem may name (public dpconvex classes); any other by import path.
ESTIMATORS = (
    "PrivateLogisticRegression", "PrivateHuberSVM", "PrivateLinearClassifier",
    "PrivateLinearRegressor", "PrivateLinearRegression", "PrivateHuberRegressor",
    "PrivateQuantileRegressor", "PrivateRegressor", "PrivateLargeMarginGaussian",
    "NoisyGradientDescent", "PrivateGaussianCentroid", "PrivateClassifier", "PrivateGaussianNB",
)

#: Constructor parameters set by the runner, never by a problem file.
_GRID_PARAMS = ("epsilon", "random_state")

#: What a problem's ``dataset`` may be, for messages.
_DATASET_CHOICE = (f"choose one of {sorted(DATASETS)}, the import path of a loader "
                   "(\"package.module:function\") or the path of a .csv file.")
_TOP_KEYS = {"name", "title", "reference", "description", "metric", "data", "grid", "method",
             "expect", "quick"}
_DATA_KEYS = {"dataset", "target", "split", "test_size", "train_size", "options"}
_GRID_KEYS = {"epsilon", "runs", "seed", "train_sizes"}
_METHOD_KEYS = {"label", "estimator", "params", "tune"}
_EXPECT_KEYS = {"method", "epsilon", "train_size", "max_error", "min_error", "max_r2", "min_r2"}
_QUICK_KEYS = {"runs", "epsilon", "max_train", "expect", "train_sizes"}


@dataclass
class Method:
    """One ``[[method]]`` table: a learner and its constructor parameters.

    ``estimator`` is a registered name (:data:`ESTIMATORS`) or an import path
    ``"package.module:Object"`` of a class or a factory returning an estimator;
    ``params`` hold the values of ``{import = "module:object"}`` tables imported.
    :func:`load_problem` builds the estimator once and sets ``private`` from it.

    Examples
    --------
    >>> from dpconvex.runs import load_problem
    >>> method = load_problem("wine_large_margin").methods[0]
    >>> method.label, method.estimator, method.params
    ('LM-Gaussian', 'PrivateLargeMarginGaussian', {'loss': 'pairwise', 'lam': 0.02, 'gamma': 0.001})
    >>> method.private
    True
    """

    label: str
    estimator: str
    params: dict[str, Any]
    tune: dict[str, list[Any]] | None = None
    #: False for a non-private baseline: a mechanism the registry marks not private, or an
    #: estimator without an ``epsilon`` parameter (run once per run, not per ε)
    private: bool = True
    #: the class or factory ``estimator`` names (None: the registered dpconvex class)
    factory: Callable[..., Any] | None = field(default=None, repr=False, compare=False)
    #: (problem file, key prefix of its table, e.g. ``"method[0]."``), named in errors
    where: tuple[Path, str] | None = field(default=None, repr=False, compare=False)


@dataclass
class Expect:
    """One band of ``[[expect]]``: the mean score of a method at one point, in [low, high].

    The score is the problem's metric: the test error (``max_error``, ``min_error``) or
    the test R² (``min_r2``, ``max_r2``).

    Examples
    --------
    >>> from dpconvex.runs import load_problem
    >>> band = load_problem("wine_large_margin").expect[0]
    >>> band.method, band.epsilon, band.high, band.metric
    ('LM-Gaussian', 100.0, 0.15, 'error')
    """

    method: str
    epsilon: float | None
    high: float
    low: float = 0.0
    train_size: int | None = None
    metric: str = "error"


@dataclass
class Problem:
    """A parsed, validated problem file.

    ``dataset`` is as written: a registered name, an import path of a loader or a CSV path; ``loader`` is the
    loader it names, ``csv`` the CSV file (relative paths are resolved against the problem file's folder).

    Examples
    --------
    >>> from dpconvex.runs import Problem, load_problem
    >>> problem = load_problem("wine_large_margin")
    >>> isinstance(problem, Problem), problem.dataset, problem.quick_runs, problem.metric
    (True, 'sklearn_wine', 2, 'error')
    >>> [m.label for m in problem.methods][:2]
    ['LM-Gaussian', 'LM-Gaussian defaults']
    """

    name: str
    path: Path
    title: str
    reference: str
    dataset: str
    split: str
    test_size: float | int | None
    train_size: float | int | None
    options: dict[str, Any]
    epsilons: list[float]
    runs: int
    seed: int
    methods: list[Method]
    expect: list[Expect]
    quick_runs: int
    quick_epsilons: list[float]
    quick_max_train: int | None
    quick_expect: list[Expect]
    train_sizes: list[int] | None = None
    quick_train_sizes: list[int] | None = None
    #: "error" (test error, lower is better) or "r2" (test R², higher is better)
    metric: str = "error"
    #: the label column of a CSV file or of a loader's DataFrame
    target: str | None = None
    loader: Callable[..., Any] | None = field(default=None, repr=False, compare=False)
    csv: Path | None = None

    @property
    def x_axis(self) -> str:
        """"epsilon" (score vs ε) or "train_size" (a learning curve at the first ε)."""
        return "train_size" if self.train_sizes else "epsilon"


# ----------------------------------------------------------------------------- lookup
def _checkout_dir() -> Path | None:
    """``problems/`` of the source checkout this package is imported from, if any."""
    root = Path(__file__).resolve().parents[2]
    d = root / "problems"
    return d if (root / "pyproject.toml").is_file() and d.is_dir() else None


def _installed_dir() -> Path | None:
    """The copy of ``problems/`` installed as data files with the package, if any."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        dist = distribution("dpconvex")
        files = dist.files or []
    except PackageNotFoundError:  # pragma: no cover - imported from a checkout, not installed
        files = []
    n = len(INSTALLED_SUBDIR)
    for f in files:
        if f.suffix == ".toml" and tuple(f.parts[-n - 1:-1]) == INSTALLED_SUBDIR:
            d = Path(dist.locate_file(f)).resolve().parent
            if d.is_dir():
                return d
    for scheme in (None, f"{os.name}_user"):
        try:
            base = sysconfig.get_path("data", scheme) if scheme else sysconfig.get_path("data")
        except KeyError:  # pragma: no cover - scheme unknown on this platform
            continue
        d = Path(base).joinpath(*INSTALLED_SUBDIR)
        if d.is_dir():
            return d
    return None


def problem_dirs() -> list[Path]:
    """Folders searched for problem files, in the order of the module docstring, without repeats.

    Examples
    --------
    >>> from dpconvex.runs import problem_dirs
    >>> all(d.is_dir() for d in problem_dirs())
    True
    """
    env = os.environ.get(PROBLEMS_ENV, "")
    dirs = [Path(p).expanduser() for p in env.split(os.pathsep) if p]
    dirs += [d for d in (_checkout_dir(), _installed_dir()) if d is not None]
    return list(dict.fromkeys(dirs))


def list_problems() -> list[Path]:
    """All problem files, sorted by name; the first folder holding a name wins.

    Examples
    --------
    >>> from dpconvex.runs import list_problems
    >>> "wine_large_margin.toml" in [p.name for p in list_problems()]
    True
    """
    seen: dict[str, Path] = {}
    for d in problem_dirs():
        if d.is_dir():
            for p in sorted(d.glob("*.toml")):
                seen.setdefault(p.stem, p)
    return [seen[k] for k in sorted(seen)]


def find_problem(name: str | os.PathLike[str]) -> Path:
    """The file of a problem given by name or by path.

    Raises
    ------
    ProblemError
        No such file and no problem of that name in :func:`problem_dirs`.

    Examples
    --------
    >>> from dpconvex.runs import find_problem
    >>> find_problem("wine_large_margin").name
    'wine_large_margin.toml'
    """
    try:
        p = Path(name)
        if p.suffix == ".toml" and p.is_file():
            return p
    except (TypeError, ValueError, OSError) as exc:  # NUL bytes, names too long, not a path
        raise ProblemError(f"find_problem: {name!r} is not a usable problem name or path ({exc}). "
                           "Pass a problem name (dpconvex list) or the path of a .toml file."
                           ) from None
    known = list_problems()
    for cand in known:
        if cand.stem == str(name):
            return cand
    if p.suffix == ".toml" and any(sep in str(name) for sep in (os.sep, os.altsep) if sep):
        raise ProblemError(f"find_problem: no problem file {str(name)!r}: it does not exist or is "
                           "not a file. Check the path, or pass a problem name (dpconvex list).")
    names = ", ".join(c.stem for c in known) or "(none found)"
    where = ", ".join(str(d) for d in problem_dirs()) or "(no folder)"
    raise ProblemError(
        f"find_problem: no problem named {str(name)!r}. Known problems: {names}. Pass a "
        f"path to a .toml file or one of these names (dpconvex list). Searched: {where}; "
        f"set {PROBLEMS_ENV} to a folder of problem files to add one."
    )


# ----------------------------------------------------------------------------- validation
def _err(path: Path, key: str, msg: str, caller: str) -> ProblemError:
    """The error of a problem file's ``key``, opening with ``caller``, the public call that
    read the file."""
    return ProblemError(f"{caller}: {path}: key '{key}': {msg}")


def _import_error(where: tuple[str, Path, str] | None, text: str) -> ProblemError:
    """The error of an import path: at ``where`` = (the public call reading the problem file,
    the file, the key), or of import_object."""
    if where is None:
        return ProblemError(f"import_object: {text}")
    caller, path, key = where
    return _err(path, key, text, caller)


def _import(target: str, where: tuple[str, Path, str] | None) -> Any:
    """The object ``target`` names, imported with the problem file's folder searched first
    (``where`` = (the public call reading the file, the file, the key), named in the errors;
    None: the Python path only)."""
    if not isinstance(target, str) or not IMPORT_PATTERN.fullmatch(target):
        raise _import_error(
            where,
            f"{target!r} is not an import path. Write "
            "\"package.module:object\" (dotted module, a colon, the object's name).",
        )
    module_name, _, attribute = target.partition(":")
    folder = str(where[1].resolve().parent) if where is not None else None
    added = folder is not None and folder not in sys.path
    if added:
        sys.path.insert(0, folder)
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (module_name + ".").startswith(exc.name + "."):
            raise _import_error(
                where,
                f"cannot import {target!r}: no module named "
                f"{exc.name!r}. Put the module next to the problem file, on PYTHONPATH "
                "or in an installed package, or fix the name before ':'.",
            ) from None
        raise _import_error(where, f"importing {module_name!r} for {target!r} raised "
                            f"ModuleNotFoundError: {exc}. Install what the module needs or fix "
                            "the module.") from exc
    except (Exception, SystemExit) as exc:  # the module's own code failed (or exited): name it
        raise _import_error(where, f"importing {module_name!r} for {target!r} raised "
                            f"{type(exc).__name__}: {exc}. Fix the module (its code runs when the "
                            "problem file is loaded).") from exc
    finally:
        if added:
            with contextlib.suppress(ValueError):  # (ValueError: the module removed it itself)
                sys.path.remove(folder)
    obj: Any = module
    for part in attribute.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise _import_error(where, f"cannot import {target!r}: {module_name!r} has no "
                                f"attribute {part!r}. Fix the name after ':'.") from None
    return obj


def import_object(target: str) -> Any:
    """The object an import path ``"package.module:object"`` names, as a problem file reads it.

    The module is imported from the Python path (a problem file also searches its own
    folder first). Importing runs the module's code: name only modules you trust.

    Parameters
    ----------
    target : str
        ``"package.module:object"``; the object may be a dotted path (``"mod:Class.attr"``).

    Raises
    ------
    ProblemError
        ``target`` is not an import path, the module cannot be imported (what it raised
        is named) or it has no such object.

    Examples
    --------
    >>> from dpconvex.runs import ProblemError, import_object
    >>> import_object("dpconvex:PrivateLinearRegressor").__name__
    'PrivateLinearRegressor'
    >>> try:
    ...     import_object("no_such_module_xyz:make_model")
    ... except ProblemError as exc:
    ...     print(str(exc).split(". ")[0])
    import_object: cannot import 'no_such_module_xyz:make_model': no module named 'no_such_module_xyz'
    """
    return _import(target, None)


def _resolve_imports(caller: str, path: Path, key: str, value: Any) -> Any:
    """``value`` with every ``{import = "module:object"}`` table replaced by that object."""
    if isinstance(value, dict):
        if "import" in value:
            if set(value) != {"import"}:
                raise _err(path, key, f"an import table has the one key 'import', got "
                           f"{sorted(value)}. Write {{ import = \"module:object\" }}.", caller)
            return _import(value["import"], (caller, path, key))
        return {k: _resolve_imports(caller, path, f"{key}.{k}", v) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve_imports(caller, path, f"{key}[{i}]", v) for i, v in enumerate(value)]
    return value


def _check_keys(caller: str, path: Path, where: str, got: Any, allowed: set[str]) -> None:
    if not isinstance(got, dict):
        raise _err(path, where.rstrip(".") or "(top level)",
                   f"must be a table (key = value pairs), got {got!r}. See problems/README.md.",
                   caller)
    extra = set(got) - allowed
    if extra:
        k = sorted(extra)[0]
        raise _err(path, f"{where}{k}",
                   f"unknown key. Allowed keys here: {sorted(allowed)}. "
                   "Fix the spelling or remove it (see problems/README.md).", caller)


def _floats(caller: str, path: Path, key: str, v: Any) -> list[float]:
    if not isinstance(v, list) or not v or not all(
            isinstance(x, (int, float)) and not isinstance(x, bool) for x in v):
        raise _err(path, key, f"must be a non-empty list of numbers, got {v!r}.", caller)
    if not all(0 < x <= sys.float_info.max for x in v):  # an int beyond float64 included
        raise _err(path, key, f"every epsilon must be a finite number > 0, got {v!r}.", caller)
    out = [float(x) for x in v]
    if len(set(out)) != len(out):  # (results are keyed by the value)
        twice = next(x for x in out if out.count(x) > 1)
        raise _err(path, key, f"lists {twice!r} more than once: list each value once.", caller)
    return out


def _int(
    caller: str,
    path: Path, key: str, v: Any, low: int = 1, high: int | None = None, why: str = ""
) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or v < low:
        raise _err(path, key, f"must be an integer >= {low}, got {v!r}.", caller)
    if high is not None and v > high:
        raise _err(path, key, f"must be an integer in [{low}, {high:,}]{why}, got {v!r}.", caller)
    return v


def _runs(caller: str, path: Path, key: str, v: Any) -> int:
    return _int(caller, path, key, v, high=MAX_RUNS, why=": the standard error of a mean test "
                f"error over {MAX_RUNS:,} runs is at most 0.005")


def _str(caller: str, path: Path, key: str, v: Any) -> str:
    if not isinstance(v, str):
        raise _err(path, key, f"must be a string (in quotes), got {v!r}.", caller)
    return v


def _name(caller: str, path: Path, raw: dict[str, Any]) -> str:
    """The problem's name: a plain folder name (it becomes ``results/NAME``)."""
    name = _str(caller, path, "name", raw["name"]) if "name" in raw else path.stem
    if not NAME_PATTERN.fullmatch(name):
        where = (
            ""
            if "name" in raw
            else " (taken from the file name; set name = \"...\" to choose one)"
        )
        raise _err(
            path,
            "name",
            f"{name!r}{where} must be one folder name: letters, digits and "
            "'_' '.' '+' '-', starting with a letter, digit or '_', at most 128 characters (no "
            "'/', "
            "'\\', spaces, absolute paths or names like '..': the results go to results/NAME).",
            caller,
        )
    return name


def check_fits(path: Path, runs: int, cells: int, key: str = "grid.runs",
               caller: str = "load_problem") -> None:
    """Refuse a problem of more than :data:`MAX_PROBLEM_FITS` fits (runs x cells).

    The message names ``caller`` (the public function that set the runs), ``path`` and ``key``.

    Examples
    --------
    >>> from pathlib import Path
    >>> from dpconvex.runs import MAX_PROBLEM_FITS, ProblemError
    >>> from dpconvex.runs.spec import check_fits
    >>> check_fits(Path("demo.toml"), runs=5, cells=21)
    >>> try:
    ...     check_fits(Path("demo.toml"), runs=MAX_PROBLEM_FITS, cells=2)
    ... except ProblemError:
    ...     print("too many fits")
    ...
    too many fits
    """
    if runs * cells > MAX_PROBLEM_FITS:
        raise _err(
            path,
            key,
            f"{runs:,} runs x {cells:,} fits per run is above the cap of "
            f"{MAX_PROBLEM_FITS:,} fits. Use fewer runs, epsilons, sizes or methods.",
            caller,
        )


#: The TOML keys of a band by metric: (upper key, lower key), the required one first.
_BAND_KEYS = {"error": ("max_error", "min_error"), "r2": ("min_r2", "max_r2")}


def _band(caller: str, path: Path, k: str, e: dict[str, Any], metric: str) -> tuple[float, float]:
    """(low, high) of one [[expect]] table, in the keys of ``metric``."""
    required, optional = _BAND_KEYS[metric]
    other = next(
        iter(set(e) & {key for m, keys in _BAND_KEYS.items() if m != metric for key in keys}), None
    )
    if other is not None:
        raise _err(
            path,
            k + other,
            f"this problem reports {'R²' if metric == 'r2' else 'the test error'} "
            f"(metric = \"{metric}\"): state the band with {required} and {optional}.",
            caller,
        )
    if required not in e:
        end = "upper" if metric == "error" else "lower"
        raise _err(path, k + required, f"is required (the {end} end of the band).", caller)
    span = "[0, 1]" if metric == "error" else "(-inf, 1]"
    for key in (required, optional):
        v = e.get(key, 0.0)
        if (
            isinstance(v, bool)
            or not isinstance(v, (int, float))
            or not abs(v) <= sys.float_info.max
        ):
            raise _err(path, k + key, f"must be a finite number in {span}, got {v!r}.", caller)
    if metric == "error":
        lo, hi = float(e.get("min_error", 0.0)), float(e["max_error"])
        if not 0 <= lo <= hi <= 1:
            raise _err(
                path, k + "max_error", f"band [{lo}, {hi}] must satisfy 0 <= min <= max <= 1.",
                caller
            )
    else:
        lo, hi = float(e["min_r2"]), float(e.get("max_r2", 1.0))
        if not lo <= hi <= 1:
            raise _err(path, k + "min_r2",
                       f"band [{lo}, {hi}] must satisfy min <= max <= 1 "
                       "(R² is at most 1).", caller)
    return lo, hi


def _expects(caller: str, path: Path, where: str, items: Any, labels: set[str],
             metric: str | None) -> list[Expect]:
    """The bands of ``items``; their values unchecked (NaN) where ``metric`` is None."""
    if items is None:
        return []
    if not isinstance(items, list):
        raise _err(path, where, "must be an array of tables ([[expect]]).", caller)
    out = []
    for i, e in enumerate(items):
        k = f"{where}[{i}]."
        if not isinstance(e, dict):
            raise _err(path, f"{where}[{i}]", "must be a table.", caller)
        _check_keys(caller, path, k, e, _EXPECT_KEYS)
        if not isinstance(e.get("method"), str) or e["method"] not in labels:
            raise _err(
                path,
                k + "method",
                f"{e.get('method')!r} is not the label of a [[method]]; labels: {sorted(labels)}.",
                caller,
            )
        lo, hi = math.nan, math.nan
        if metric is not None:
            lo, hi = _band(caller, path, k, e, metric)
        eps = e.get("epsilon")
        if eps is not None and (isinstance(eps, bool) or not isinstance(eps, (int, float))
                                or not 0 < eps <= sys.float_info.max):
            raise _err(
                path, k + "epsilon", f"must be a finite number > 0 or omitted, got {eps!r}.", caller
            )
        ts = e.get("train_size")
        if ts is not None:
            ts = _int(caller, path, k + "train_size", ts)
        out.append(Expect(e["method"], None if eps is None else float(eps), hi, lo, ts,
                          metric or ""))
    return out


def _check_points(caller: str, path: Path, where: str, expects: list[Expect], methods: list[Method],
                  epsilons: list[float], sizes: list[int] | None, grid: str,
                  built: bool = True) -> None:
    """Refuse a band at a point the run does not produce: an ε outside ``grid`` (the ε list
    ``epsilons``), a training size outside ``sizes``, an ε on a non-private method (fitted
    once per run) or none on a private one (which the methods' estimators, when ``built``,
    tell; otherwise the ε of a band is not checked)."""
    private = {m.label: m.private if built else None for m in methods}
    for i, e in enumerate(expects):
        k = f"{where}[{i}]."
        if sizes:
            if e.train_size not in sizes:
                raise _err(path, k + "train_size",
                           f"must be one of the training sizes {sizes} "
                           f"(a learning curve checks its bands by size), got {e.train_size!r}.",
                           caller)
        elif e.train_size is not None:
            raise _err(path, k + "train_size",
                       "is for a learning curve (grid.train_sizes); this "
                       "problem has none: omit it.", caller)
        elif private[e.method] is None:
            continue
        elif not private[e.method] and e.epsilon is not None:
            raise _err(path, k + "epsilon",
                       f"{e.method!r} is not private: it is fitted once per "
                       "run, not at each epsilon; omit epsilon.", caller)
        elif private[e.method] and e.epsilon not in epsilons:
            got = "is required" if e.epsilon is None else f"{e.epsilon!r} is not in {grid}"
            raise _err(path, k + "epsilon",
                       f"{got}: the band of a private method is at one "
                       f"epsilon of {grid} = {epsilons}.", caller)


def _mechanism_private(name: Any) -> bool:
    """False for a mechanism the registry marks not private; True for others and unknown ones."""
    from ..privacy.mechanisms import MECHANISMS

    mech = MECHANISMS.get(name) if isinstance(name, str) else None
    return mech is None or mech.private


def _factory(method: Method) -> Callable[..., Any]:
    if method.factory is not None:
        return method.factory
    import dpconvex

    return getattr(dpconvex, method.estimator)


def _takes_epsilon(factory: Callable[..., Any]) -> bool:
    """Whether ``factory`` accepts an ``epsilon`` keyword: by name, or through ``**params``."""
    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):  # no signature to read (a builtin): it names none
        return False
    return any(p.kind == p.VAR_KEYWORD or (p.name == "epsilon" and p.kind in (
        p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)) for p in params)


def _build_error(method: Method, text: str, caller: str) -> ProblemError:
    """The error of a method's estimator at its ``[[method]]`` table (when loaded from a file)."""
    if method.where is None:
        return ProblemError(f"{caller}: method {method.label!r}: {text}")
    return _err(method.where[0], method.where[1] + "estimator", text, caller)


def build_estimator(method: Method, epsilon: float | None, *, private: bool | None = None,
                    caller: str = "build_estimator") -> Any:
    """The method's unfitted estimator; a private one at ``epsilon``, as the class or factory built it.

    A private method's ε reaches the class or factory as the argument ``epsilon`` (a factory
    takes it by name or through ``**params``), with the method's ``params`` (its δ among them);
    nothing is set on the estimator it returns. ``private`` overrides ``method.private``
    (:func:`load_problem` builds before it knows).

    The model is read through :func:`model_of` (a ``Pipeline``'s last step, a
    ``TransformedTargetRegressor``'s regressor). Another meta-estimator that holds a private
    estimator (a key of its ``get_params(deep=True)`` ending in ``__epsilon``, with a private
    mechanism) is refused: the run could not read the guarantee of what it fits. So is a
    ``TransformedTargetRegressor`` whose label transform is fitted on the labels (a
    ``transformer``): only its stateless form (``transformer=None``, with ``func`` and
    ``inverse_func`` or neither) is accepted.

    Raises
    ------
    ProblemError
        A private method whose factory takes no ``epsilon`` argument yet returns an estimator with
        an ``epsilon`` parameter (the grid's ε cannot reach it), or returns one whose ``epsilon``
        (or ``delta``) is not the one it was given, or returns a meta-estimator other than these
        two holding a private estimator (a ``BaggingRegressor``), or a
        ``TransformedTargetRegressor`` with a ``transformer`` (or only one of ``func`` and
        ``inverse_func``): the message says what to change.

    Examples
    --------
    >>> from dpconvex.runs import load_problem
    >>> from dpconvex.runs.spec import build_estimator
    >>> method = load_problem("wine_large_margin").methods[0]
    >>> build_estimator(method, 3.0).epsilon
    3.0
    """
    private = method.private if private is None else private
    factory = _factory(method)
    kwargs = dict(method.params)
    takes = _takes_epsilon(factory)
    if private and takes:
        kwargs["epsilon"] = epsilon
    try:
        est = factory(**kwargs)
    except Exception as exc:
        if method.factory is None or caller == "load_problem":
            raise  # a registered class's own error; load_problem names the file and the key
        text = (f"{method.estimator}(**{kwargs!r}) raised {type(exc).__name__}: {exc}"
                + ("" if private else ": the model it built with epsilon holds no private "
                   "estimator the run can read, so the run fits it as a non-private comparison, "
                   "without epsilon") + ". Fix the factory.")
        raise _build_error(method, text, caller) from exc
    built = _params_of(model_of(est))
    name = type(est).__name__
    inside = _private_keys(est) if private and "epsilon" not in built else []
    if inside:
        raise _build_error(
            method,
            f"{method.estimator} returned a {name} holding a private estimator "
            f"({', '.join(inside)}): the run reads the epsilon and the certificate of the one "
            "model it fits, a Pipeline's last step or a TransformedTargetRegressor's regressor, "
            f"and cannot read what a {name} spends (it may fit the estimator more than once, "
            "or on rows it draws). Return the private estimator itself, a Pipeline ending "
            "with it, or a TransformedTargetRegressor around it.",
            caller,
        )
    if not private or "epsilon" not in built or not _mechanism_private(built.get("mechanism")):
        return est  # a non-private comparison: run once per run, no epsilon claimed
    _check_target_transform(method, est, caller)
    if not takes:
        raise _build_error(
            method,
            f"{method.estimator} takes no epsilon argument and returns a "
            f"{name}, which has one: the grid's epsilon cannot reach the model it "
            "builds. Give the factory an epsilon parameter (or **params) and pass "
            f"it on, e.g. def make(**params): return {name}(..., **params).",
            caller,
        )
    # no delta in params: none set on the model (a mechanism may still take its own default)
    for key, given in (("epsilon", epsilon), ("delta", method.params.get("delta", 0.0))):
        if given is not None and key in built and (built[key] or 0.0) != given:
            what = (
                f"{key} = {given!r}"
                if key == "epsilon" or "delta" in method.params
                else "no delta"
            )
            raise _build_error(
                method,
                f"{method.estimator} was given {what} and returned "
                f"a {name} with {key} = {built[key]!r}: the run fits and scores the "
                f"model at the grid's epsilon and the params' delta. Pass {key} to "
                "the estimator unchanged.",
                caller,
            )
    return est


def _check_target_transform(method: Method, est: Any, caller: str) -> None:
    """Refuse a ``TransformedTargetRegressor`` on the way to the model (:func:`model_of`) whose
    label transform is not stateless: a ``transformer`` is fitted on the private labels (a
    ``StandardScaler`` keeps their mean and spread in ``transformer_``), and ``func`` without
    ``inverse_func`` (or the reverse) maps predictions back with no inverse."""
    from sklearn.compose import TransformedTargetRegressor
    from sklearn.pipeline import Pipeline

    piped = False
    while True:
        if isinstance(est, Pipeline) and est.steps:
            est, piped = est.steps[-1][1], True
            continue
        if not isinstance(est, TransformedTargetRegressor):
            return
        if piped:
            raise _build_error(
                method,
                f"{method.estimator} returned a Pipeline ending with a "
                "TransformedTargetRegressor: the run fits a Pipeline's steps itself, and a "
                "TransformedTargetRegressor is not one it can fit that way. Put the Pipeline "
                "inside it: TransformedTargetRegressor(make_pipeline(..., model), func=..., "
                "inverse_func=...).",
                caller,
            )
        if est.transformer is not None:
            raise _build_error(
                method,
                f"{method.estimator} returned a TransformedTargetRegressor whose transformer "
                f"({type(est.transformer).__name__}) is fitted on the labels: what it learns (a "
                "scaler's mean_) would be released with the model, outside the guarantee. The "
                "label transform must be stateless: pass transformer=None, with func and "
                "inverse_func (or neither): scale the labels by public constants in func.",
                caller,
            )
        if (est.func is None) != (est.inverse_func is None):
            given, lacking = ("func", "inverse_func") if est.inverse_func is None else (
                "inverse_func", "func")
            raise _build_error(
                method,
                f"{method.estimator} returned a TransformedTargetRegressor with {given} and no "
                f"{lacking}: the run maps the labels by func and the predictions back by "
                "inverse_func. Pass both (or neither).",
                caller,
            )
        est = est.regressor


def model_of(est: Any) -> Any:
    """The model a method's estimator fits: the last step of a scikit-learn ``Pipeline``, the
    regressor of a ``TransformedTargetRegressor`` (once fitted, its fitted copy ``regressor_``),
    each read through in turn, else the estimator itself (its ``epsilon``, ``delta`` and
    ``certificate_`` are the model's).

    Examples
    --------
    >>> from sklearn.compose import TransformedTargetRegressor
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import FunctionTransformer
    >>> import dpconvex as dp
    >>> type(model_of(make_pipeline(FunctionTransformer(), dp.PrivateClassifier()))).__name__
    'PrivateClassifier'
    >>> model_of(TransformedTargetRegressor(dp.PrivateRegressor(epsilon=2.0))).epsilon
    2.0
    """
    from sklearn.compose import TransformedTargetRegressor
    from sklearn.pipeline import Pipeline

    while True:
        if isinstance(est, Pipeline) and est.steps:
            est = est.steps[-1][1]
        elif isinstance(est, TransformedTargetRegressor) and est.regressor is not None:
            est = getattr(est, "regressor_", est.regressor)
        else:
            return est


def _private_keys(est: Any) -> list[str]:
    """The keys of ``est.get_params(deep=True)`` naming the ``epsilon`` of a private estimator
    inside it (one whose mechanism the registry does not mark not private)."""
    try:
        deep = dict(est.get_params(deep=True))
    except Exception:  # noqa: BLE001 - a user's estimator: no parameters to read
        return []
    return [key for key in deep if key.endswith("__epsilon") and _mechanism_private(
        deep.get(key.removesuffix("epsilon") + "mechanism"))]


def _params_of(est: object) -> dict[str, Any]:
    try:
        return dict(est.get_params(deep=False))
    except Exception:  # noqa: BLE001 - a user's estimator: no parameters to read
        return {}


def _signature_check(caller: str, path: Path, key: str, method: Method,
                     factory: Callable[..., Any]) -> list[str] | None:
    """Unknown or missing constructor parameters, from the class's or factory's signature (read,
    not called); returns the names it takes, None where it takes any (``**params``) or has no
    signature to read."""
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):  # no signature to read: the constructor decides
        return None
    kinds = {p.kind for p in sig.parameters.values()}
    names = [
        n for n, p in sig.parameters.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    ]
    valid = sorted(n for n in names if n not in _GRID_PARAMS)
    unknown = sorted(set(method.params) - set(names))
    if unknown and inspect.Parameter.VAR_KEYWORD not in kinds:
        raise _err(path, key, f"{method.estimator} has no parameter {unknown[0]!r}. Valid "
                   f"parameters of {method.estimator}: {valid}.", caller)
    missing = [n for n in valid if sig.parameters[n].default is inspect.Parameter.empty
               and n not in method.params]
    if missing:
        raise _err(path, key, f"{method.estimator} requires {missing}: add them to params "
                   f"(e.g. params = {{ {missing[0]} = ... }}). Valid parameters: {valid}.", caller)
    return None if inspect.Parameter.VAR_KEYWORD in kinds else names


def _check_params(caller: str, path: Path, key: str, method: Method, epsilon: float) -> Any:
    """Build the estimator with the method's params and validate them now, not mid-run.

    Private methods are built at ``epsilon`` (the first ε of the grid, as the runner does);
    sets ``method.private`` from the built estimator and returns it.
    """
    factory = _factory(method)
    _signature_check(caller, path, key, method, factory)
    private = _mechanism_private(method.params.get("mechanism"))
    registered = method.factory is None
    try:
        est = build_estimator(method, epsilon, private=private, caller="load_problem")
    except ProblemError:
        raise
    except TypeError as exc:  # a constructor that refuses a combination of parameters
        raise _err(path, key,
                   f"{exc}. Check the parameters of {method.estimator}.", caller) from None
    except Exception as exc:
        if registered:
            raise
        raise _err(path, key,
                   f"building {method.estimator} raised {type(exc).__name__}: {exc}. "
                   "Fix the parameters or the factory.", caller) from exc
    if not (hasattr(est, "fit") and hasattr(est, "get_params")):
        raise _err(path, key.rsplit(".", 1)[0] + ".estimator",
                   f"{method.estimator} returned {type(est).__name__}, not an estimator (an "
                   "object with fit and get_params). Name a class or a factory returning one.",
                   caller)
    params = _params_of(model_of(est))
    method.private = (
        private and "epsilon" in params and _mechanism_private(params.get("mechanism"))
    )
    if callable(getattr(est, "_validate_params", None)) and hasattr(est, "_parameter_constraints"):
        from sklearn.base import clone

        from ..data.validation import check_classes
        from ..privacy.budget import BudgetAccountant

        tune = {name: values for name, values in (method.tune or {}).items() if name in params}
        first = {name: values[0] for name, values in tune.items()}
        # each candidate of a tuned parameter, the others at their first (the base alone is
        # no fit's): the estimator's _parameter_constraints and its cross rules
        others = [{**first, n: v} for n, vs in tune.items() for v in vs[1:]]
        for i, candidate in enumerate([first, *others]):
            built = clone(est).set_params(**candidate)
            try:
                built._validate_params()
                if params.get("classes") is not None:  # (a fit checks them with the labels)
                    check_classes(params["classes"], f"{type(est).__name__}.fit")
                if not isinstance(params.get("accountant"), (BudgetAccountant, type(None))):
                    raise DPConvexError(
                        f"The 'accountant' parameter of {type(est).__name__} must "
                        f"be a BudgetAccountant or None. Got {params['accountant']!r}."
                    )
            except (DPConvexError, ValueError, TypeError) as exc:
                # the first candidate is the base with the grid's first values: the base's key (and
                # its own error) where the base alone fails too, else the grid's
                base = _failure(est) if i == 0 and tune else None
                raise _err(
                    path,
                    key if i == 0 and (not tune or base) else key.rsplit(".", 1)[0] + ".tune",
                    base or str(exc),
                    caller,
                ) from None
            _check_loss(caller, path,
                        key.rsplit(".", 1)[0] + (".tune" if "loss" in tune else ".params"), built)
    return est


def _check_loss(caller: str, path: Path, key: str, est: Any) -> None:
    """State a loss given as a callable or a Loss while the spec is read, as the fit states it
    (``_make_loss``): a function CVXPY refuses (not convex by its rules, wrong arity) fails
    when the spec is read, at ``key.loss``, before any run."""
    loss = getattr(est, "loss", None)
    if isinstance(loss, str) or loss is None or not callable(getattr(est, "_make_loss", None)):
        return
    try:
        est._make_loss()
    except DPConvexError as exc:
        raise _err(path, f"{key}.loss", str(exc), caller) from None
    except Exception as exc:  # the user's function failed on CVXPY variables
        raise _err(path, f"{key}.loss",
                   f"stating the loss {getattr(loss, '__name__', loss)!r} "
                   f"raised {type(exc).__name__}: {exc}. State it in CVXPY atoms "
                   "(e.g. cp.logistic(-m)), or pass a dpconvex.objectives.Loss.", caller) from exc


def _failure(est: Any) -> str | None:
    """The error of ``est``'s own parameter checks (the table and cross rules), or None."""
    try:
        est._validate_params()
    except (DPConvexError, ValueError, TypeError) as exc:
        return str(exc)
    return None


def _callee(obj: Any) -> Any:
    """What a call of ``obj`` runs: read through a ``functools.partial`` (to its ``func``) and
    a bound method (to its function); a builtin bound to an object (``[].append``) is its
    object's class's, and a callable object (not a function, builtin or class) its class's."""
    while True:
        if isinstance(obj, functools.partial):
            obj = obj.func
        elif inspect.ismethod(obj):
            obj = obj.__func__
        else:
            break
    if inspect.isbuiltin(obj) and not isinstance(obj.__module__, str):
        return type(obj.__self__)
    if inspect.isfunction(obj) or inspect.isbuiltin(obj) or inspect.isclass(obj):
        return obj
    return type(obj)


def _standard_library(obj: Any) -> bool:
    """Whether a call of ``obj`` runs Python's standard library (:func:`_callee`): its module's
    top-level package is in ``sys.stdlib_module_names`` (``builtins``, ``os``, ``posix``,
    ``subprocess``, ``shutil`` ...), or it names no module."""
    module = getattr(_callee(obj), "__module__", None)
    return not isinstance(module, str) or module.partition(".")[0] in sys.stdlib_module_names


def _through(obj: Any) -> str:
    """", which calls ..." where a call of ``obj`` runs another object (:func:`_callee`)."""
    callee = _callee(obj) if callable(obj) else obj
    return "" if callee is obj else f", which calls {_kind(callee)}"


def _estimator_class(obj: Any) -> bool:
    """Whether ``obj`` is an estimator class (a class with ``fit`` and ``get_params``)."""
    return inspect.isclass(obj) and hasattr(obj, "fit") and hasattr(obj, "get_params")


def _estimator(caller: str, path: Path, key: str, name: Any) -> Callable[..., Any] | None:
    """The class or factory of an import path (None for a registered name).

    The run calls it with the file's ``params``, so it is refused unless it is an estimator
    class, or a function, ``functools.partial`` or callable object whose call does not run
    Python's standard library (:func:`_standard_library`: not ``os:system``,
    ``subprocess:Popen``, ``shutil:rmtree``, ``builtins:exec``, nor a partial of one).
    """
    if isinstance(name, str) and name in ESTIMATORS:
        return None
    if not isinstance(name, str) or ":" not in name:
        raise _err(path, key,
                   f"unknown estimator {name!r}; choose one of {list(ESTIMATORS)} or "
                   "give the import path of a class or factory, \"package.module:Object\".", caller)
    factory = _import(name, (caller, path, key))
    if _estimator_class(factory):
        return factory
    if inspect.isclass(factory) or not callable(factory) or _standard_library(factory):
        raise _err(path, key,
                   f"{name!r} names {_kind(factory)}{_through(factory)}: the run "
                   "calls a learner with the file's params, so it must be an estimator class "
                   "(with fit and get_params) or a factory (a function, functools.partial or "
                   "callable object) that is not of Python's standard library. Name a class, "
                   "or write def make(**params) in your module.", caller)
    return factory


def _kind(obj: Any) -> str:
    """What ``obj`` is, for a refusal: "an object of type int", "Popen, a class of 'subprocess'"."""
    name = getattr(obj, "__qualname__", None)
    if not isinstance(name, str):
        return f"an object of type {type(obj).__name__}"
    kind = "class" if inspect.isclass(obj) else type(obj).__name__
    return f"{name}, a {kind} of {getattr(obj, '__module__', None)!r}"


def _parse_methods(caller: str, path: Path, raw_methods: Any, epsilon: float,
                   build: bool = True) -> tuple[list[Method], list[Any]]:
    """The methods and their estimators, built once at the first ε (to check them).

    ``build=False``: no estimator is built (each is None); the parameters' names are checked
    against the class's or factory's signature, and each method is taken as not private.
    """
    if not isinstance(raw_methods, list) or not raw_methods:
        raise _err(path, "method", "at least one [[method]] table is required.", caller)
    methods, built = [], []
    for i, m in enumerate(raw_methods):
        k = f"method[{i}]."
        _check_keys(caller, path, k, m, _METHOD_KEYS)
        if "label" in m and (not isinstance(m["label"], str) or not m["label"]):
            raise _err(path, k + "label",
                       f"must be a non-empty string, got {m['label']!r}.", caller)
        factory = _estimator(caller, path, k + "estimator", m.get("estimator"))
        params = m.get("params", {})
        if not isinstance(params, dict):
            raise _err(path, k + "params", "must be a table of constructor parameters.", caller)
        if any(p in params for p in _GRID_PARAMS):
            raise _err(
                path, k + "params", "must not set 'epsilon' or 'random_state': the grid sets them.",
                caller
            )
        params = _resolve_imports(caller, path, k + "params", params)
        tune = m.get("tune")
        if tune is not None and (not isinstance(tune, dict) or not all(
                isinstance(v, list) and v for v in tune.values())):
            raise _err(
                path, k + "tune", "must be a table of non-empty lists (the candidate grid).", caller
            )
        if tune is not None:
            tune = _resolve_imports(caller, path, k + "tune", tune)
            if privacy := [name for name in tune if name in PRIVACY_PARAMETERS]:
                raise _err(
                    path,
                    k + "tune",
                    f"{privacy[0]!r} is a privacy parameter: a search that "
                    "chose it from the data would release the guarantee it chose. Set delta in "
                    "params (one value for every candidate); epsilon comes from the grid.",
                    caller,
                )
        method = Method(
            m.get("label") or m["estimator"],
            m["estimator"],
            params,
            tune,
            factory=factory,
            where=(path, k),
        )
        if build:
            est = _check_params(caller, path, k + "params", method, epsilon)
            names = list(_params_of(est))
        else:  # the signature alone, read: a class's names are its parameters, a factory's not
            est, method.private = None, False
            names = _signature_check(caller, path, k + "params", method, _factory(method))
            if not (method.factory is None or inspect.isclass(method.factory)):
                names = None
        if tune is not None and names is not None:  # tunable: the parameters the grid does not set
            valid = sorted(n for n in names if n not in _GRID_PARAMS)
            if unknown := sorted(set(tune) - set(valid)):
                raise _err(path, k + "tune", f"{method.estimator} has no tunable parameter "
                           f"{unknown[0]!r}. Valid parameters: {valid}.", caller)
        methods.append(method)
        built.append(est)
    if len({m.label for m in methods}) != len(methods):
        raise _err(path, "method.label", "labels must be unique.", caller)
    return methods, built


def _metric(caller: str, path: Path, raw: dict[str, Any], methods: list[Method],
            built: list[Any] | None) -> str | None:
    """The metric: ``metric`` as given, else "r2" when the learners are regressors (None:
    ``built`` is None, no learner built, and the file states none)."""
    from sklearn.base import is_classifier, is_regressor

    if built is None:
        if "metric" in raw and raw["metric"] not in METRICS:
            raise _err(path, "metric",
                       f"must be one of {list(METRICS)}, got {raw['metric']!r}.", caller)
        return raw.get("metric")
    regressors = [m.label for m, est in zip(methods, built, strict=True) if is_regressor(est)]
    classifiers = [m.label for m, est in zip(methods, built, strict=True) if is_classifier(est)]
    if "metric" not in raw:
        if regressors and classifiers:
            raise _err(
                path,
                "metric",
                f"the learners mix regressors {regressors} and classifiers "
                f"{classifiers}. Compare them in two problems, or set metric = \"r2\" or "
                "\"error\".",
                caller,
            )
        return "r2" if regressors else "error"
    metric = raw["metric"]
    if metric not in METRICS:
        raise _err(path, "metric", f"must be one of {list(METRICS)}, got {metric!r}.", caller)
    wrong = classifiers if metric == "r2" else regressors
    if wrong:
        kind = "classifiers" if metric == "r2" else "regressors"
        fits = "error" if metric == "r2" else "r2"
        raise _err(path, "metric", f"\"{metric}\" does not score {kind} ({wrong}). Use "
                   f"metric = \"{fits}\" or other learners.", caller)
    return metric


#: Where a problem's data come from: (a registered or imported loader, a CSV file, the target).
_Source = tuple[Callable[..., Any] | None, Path | None, str | None]


def _source(caller: str, path: Path, data: dict[str, Any], dataset: str) -> _Source:
    target = data.get("target")
    if target is not None and (not isinstance(target, str) or not target):
        raise _err(
            path, "data.target", f"must be a column name (a non-empty string), got {target!r}.",
            caller
        )
    if dataset.lower().endswith(".csv"):
        csv = Path(dataset).expanduser()
        csv = csv if csv.is_absolute() else path.parent / csv
        try:
            found = csv.is_file()
        except (OSError, ValueError):  # a name too long, a NUL byte
            found = False
        if not found:
            raise _err(path, "data.dataset",
                       f"no CSV file {str(csv)!r}. A relative path is read "
                       "from the problem file's folder; check the path.", caller)
        if target is None:
            raise _err(path, "data.target",
                       "is required with a CSV file: the name of the label "
                       "column (target = \"...\").", caller)
        if "options" in data:
            raise _err(path, "data.options",
                       "a CSV file takes no loader options: remove them.", caller)
        return None, csv, target
    if dataset in DATASETS:
        if target is not None:
            raise _err(path, "data.target",
                       f"{dataset!r} gives (X, y): target applies to a CSV "
                       "file or a loader returning a DataFrame. Remove it.", caller)
        return DATASETS[dataset], None, None
    if ":" not in dataset:
        raise _err(path, "data.dataset", f"unknown dataset {dataset!r}; {_DATASET_CHOICE}", caller)
    loader = _import(dataset, (caller, path, "data.dataset"))
    # the run calls it with the file's options: never a class, nor Python's standard library
    if inspect.isclass(loader) or not callable(loader) or _standard_library(loader):
        raise _err(path, "data.dataset",
                   f"{dataset!r} names {_kind(loader)}{_through(loader)}: "
                   "the run calls a loader with the file's options, so it must be a function, "
                   "functools.partial or callable object that is not of Python's standard "
                   "library, returning (X, y) or a DataFrame. Write def load() in your module.",
                   caller)
    return loader, None, target


def _check_data(caller: str, path: Path, data: Any) -> tuple[str, str, _Source]:
    if not isinstance(data, dict):
        raise _err(path, "data", "a [data] table with at least 'dataset' is required.", caller)
    _check_keys(caller, path, "data.", data, _DATA_KEYS)
    dataset = data.get("dataset")
    if dataset is None:
        raise _err(path, "data.dataset", f"is required; {_DATASET_CHOICE}", caller)
    if not isinstance(dataset, str):
        raise _err(path, "data.dataset", f"unknown dataset {dataset!r}; {_DATASET_CHOICE}", caller)
    split = data.get("split", "random")
    if split not in ("random", "given"):
        raise _err(path, "data.split", f"must be 'random' or 'given', got {split!r}.", caller)
    for key in ("test_size", "train_size"):
        v = data.get(key)
        if v is not None and not ((isinstance(v, int) and not isinstance(v, bool) and v >= 1)
                                  or (isinstance(v, float) and 0.0 < v < 1.0)):
            raise _err(path, f"data.{key}",
                       f"must be a number of rows (int >= 1) or a fraction "
                       f"in (0, 1), got {v!r}.", caller)
    if not isinstance(data.get("options", {}), dict):
        raise _err(
            path, "data.options", f"must be a table of loader arguments, got {data['options']!r}.",
            caller
        )
    return dataset, split, _source(caller, path, data, dataset)


def _sizes(caller: str, path: Path, key: str, sizes: Any) -> list[int] | None:
    if sizes is None:
        return None
    if not isinstance(sizes, list) or not sizes:
        raise _err(path, key,
                   f"must be a non-empty list of training-set sizes, got {sizes!r}.", caller)
    return [_int(caller, path, key, v) for v in sizes]


def count_fits(methods: list[Method], epsilons: list[float], sizes: list[int] | None) -> int:
    """Fits of one run: every method at every point (non-private methods once per run).

    Examples
    --------
    >>> from dpconvex.runs import load_problem
    >>> from dpconvex.runs.spec import count_fits
    >>> problem = load_problem("wine_large_margin")
    >>> count_fits(problem.methods, problem.epsilons, None)   # 4 private methods x 5 epsilons + 1 baseline
    21
    """
    if sizes:
        return len(methods) * len(sizes)
    return sum(len(epsilons) if m.private else 1 for m in methods)


def load_problem(name: str | os.PathLike[str]) -> Problem:
    """Read and validate a problem file (by name or path).

    Every learner is built once at the first ε of the grid, so bad parameters fail
    here, not mid-run. The modules named by import paths (learners, parameter values,
    a dataset loader) are imported here: loading a problem file runs their code.

    Parameters
    ----------
    name : str or path-like
        A problem name (see :func:`list_problems`) or the path of a ``.toml`` file.

    Raises
    ------
    ProblemError
        Naming the file, the key and the fix, for unknown keys, bad values, unknown datasets or estimators,
        import paths that do not import, and a ``metric`` that does not score the learners.

    Examples
    --------
    >>> from dpconvex.runs import load_problem
    >>> problem = load_problem("wine_large_margin")
    >>> problem.name, problem.split, problem.epsilons
    ('wine_large_margin', 'random', [1.0, 3.0, 10.0, 30.0, 100.0])
    """
    return _read_problem(name, True, "load_problem")


def check_problem(name: str | os.PathLike[str], *,
                  caller: str = "check_problem") -> tuple[str, str, str]:
    """Read and check a problem file without building a learner: its (name, dataset, title).

    What ``dpconvex list`` prints. The file is checked as :func:`load_problem` checks it, but no
    learner is built and nothing it names is called: the modules named by import paths are
    imported (their code runs, as at :func:`load_problem`), each learner and loader is checked
    for what it is (an estimator class, or a factory or loader that is not of Python's
    standard library), and the ``params`` are checked by name against the class's or
    factory's signature. What only a built learner tells is left to :func:`load_problem`
    (``dpconvex run`` and ``verify``): the parameters' values, the metric when the file states
    none (and so the bands' values), and which methods are private (the ε of a band, the count
    of fits).

    Parameters
    ----------
    name : str or path-like
        A problem name (see :func:`list_problems`) or the path of a ``.toml`` file.
    caller : str, default="check_problem"
        The public call checking the file, opening each refusal (``dpconvex list`` passes its
        own name).

    Raises
    ------
    ProblemError
        As :func:`load_problem`, for what is checked without a learner, opening with
        ``caller``.

    Examples
    --------
    >>> from dpconvex.runs import check_problem
    >>> check_problem("wine_large_margin")[:2]
    ('wine_large_margin', 'sklearn_wine')
    """
    problem = _read_problem(name, False, caller)
    return problem.name, problem.dataset, problem.title


def _read_problem(name: str | os.PathLike[str], build: bool, caller: str) -> Problem:
    """The problem file ``name``, checked, its learners built once (``build=False``: none
    built, and the Problem is only read for its name, dataset and title); the refusals of its
    checks open with ``caller``, the public call reading it."""
    path = find_problem(name)
    try:
        raw = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise ProblemError(
            f"{caller}: {path}: not valid TOML ({exc}). Fix the syntax."
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ProblemError(
            f"{caller}: {path}: cannot be read ({exc}). Check the file."
        ) from None
    _check_keys(caller, path, "", raw, _TOP_KEYS)
    name = _name(caller, path, raw)
    title = _str(caller, path, "title", raw.get("title", path.stem))
    reference = _str(caller, path, "reference", raw.get("reference", ""))
    _str(caller, path, "description", raw.get("description", ""))
    data = raw.get("data")
    dataset, split, (loader, csv, target) = _check_data(caller, path, data)
    grid = raw.get("grid", {})
    _check_keys(caller, path, "grid.", grid, _GRID_KEYS)
    epsilons = _floats(caller, path, "grid.epsilon", grid.get("epsilon"))
    runs = _runs(caller, path, "grid.runs", grid.get("runs", 10))
    seed = _int(caller, path, "grid.seed", grid.get("seed", 0), low=0)
    methods, built = _parse_methods(caller, path, raw.get("method"), epsilons[0], build)
    metric = _metric(caller, path, raw, methods, built if build else None)
    labels = {m.label for m in methods}
    expect = _expects(caller, path, "expect", raw.get("expect"), labels, metric)
    quick = raw.get("quick", {})
    _check_keys(caller, path, "quick.", quick, _QUICK_KEYS)
    q_eps = (_floats(caller, path, "quick.epsilon", quick["epsilon"]) if "epsilon" in quick
             else epsilons)
    q_expect = _expects(caller, path, "quick.expect", quick.get("expect"), labels, metric) \
        if "expect" in quick else expect
    sizes = _sizes(caller, path, "grid.train_sizes", grid.get("train_sizes"))
    q_sizes = _sizes(caller, path, "quick.train_sizes", quick.get("train_sizes", sizes))
    _check_points(caller, path, "expect", expect, methods, epsilons, sizes, "grid.epsilon", build)
    _check_points(caller, path, "quick.expect" if "expect" in quick else "expect", q_expect,
                  methods, q_eps, q_sizes, "quick.epsilon", build)
    q_runs = _runs(caller, path, "quick.runs", quick.get("runs", 2))
    check_fits(path, runs, count_fits(methods, epsilons, sizes), caller=caller)
    check_fits(path, q_runs, count_fits(methods, q_eps, q_sizes), "quick.runs", caller)
    q_max = (
        None
        if quick.get("max_train") is None
        else _int(caller, path, "quick.max_train", quick["max_train"])
    )
    return Problem(
        name=name,
        path=path,
        title=title,
        reference=reference,
        dataset=dataset,
        split=split,
        test_size=data.get("test_size"),
        train_size=data.get("train_size"),
        options=dict(data.get("options", {})),
        epsilons=epsilons,
        runs=runs,
        seed=seed,
        methods=methods,
        expect=expect,
        train_sizes=sizes,
        quick_runs=q_runs,
        quick_epsilons=q_eps,
        quick_max_train=q_max,
        quick_expect=q_expect,
        quick_train_sizes=q_sizes,
        metric=metric or "",
        target=target,
        loader=loader,
        csv=csv,
    )
