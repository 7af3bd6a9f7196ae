"""The selection corpus, scored: the front door (or a candidate rule) against every single learner.

Question: on the tables of ``benchmarks/corpus/`` (``corpus.TABLES``), for every cell
table × ε × δ, how does ``dpconvex.PrivateClassifier`` (or the rule named by ``--rule``)
compare with each single dpconvex estimator at its defaults, diffprivlib 0.6.6, non-private
logistic regression and the majority class? The summary counts, per cell (means over the
seeds):

(a) cells where the rule is below the majority class by more than 0.5 points;
(b) the share of cells where the rule is within 1 point of the best single dpconvex
    estimator, that best chosen on the test set (optimistic for the single estimators);
(c) with ``--diffprivlib``, the share of cells where the rule is at or above diffprivlib's
    best, the best of the four models ``benchmarks/baselines/front_door_diffprivlib.py``
    fits (``LogisticRegression(epsilon, data_norm=1)`` and ``GaussianNB(epsilon, bounds)``,
    each on the divisor rows and on x / ||x||), chosen on the test set per cell.

Learners (the registry :data:`LEARNERS`, name -> :class:`Learner`; each factory takes
``(epsilon, delta, classes, seed)`` and returns an unfitted estimator, or None where the
learner does not apply):

* ``front_door``: ``PrivateClassifier(epsilon, delta, classes, random_state=seed,
  feature_range=...)`` (its safeguard on, the default; ``feature_range`` the table's public
  per-feature range of an encoded row, what a fit with ``schema=`` takes by itself);
  ``front_door_unguarded`` and ``front_door_guarded`` the same with ``safeguard=False`` and
  ``safeguard=True``; ``front_door_rows`` without
  ``feature_range`` (rows known only to lie within ``data_norm``); ``front_door_pipeline``
  without ``feature_range`` on rows that carry the ranges (``RangedRows``, as
  ``make_pipeline(PublicEncoder(schema), PrivateClassifier(...))`` hands them);
* single estimators at their defaults with only ε, δ, ``classes`` and the seed set:
  ``logistic`` (``PrivateLogisticRegression``), ``huber`` (``PrivateHuberSVM``),
  ``large_margin`` (``PrivateLargeMarginGaussian``, ``delta=None`` at δ = 0),
  ``noisy_gd`` (``NoisyGradientDescent``, δ > 0 only), ``centroid``
  (``PrivateGaussianCentroid``) and ``gaussian_nb`` (``PrivateGaussianNB``, ``delta=None`` at
  δ = 0, ``feature_range`` the table's public per-feature range of an encoded row,
  ``schema.encoded_range()``, as diffprivlib's GaussianNB gets its bounds). The linear
  learners and noisy GD are one-vs-rest on more than two classes (their own), the others
  multiclass;
* variants: ``logistic_unit`` and ``huber_unit`` on x/‖x‖; ``softmax``; ``logistic_gaussian``
  and ``huber_gaussian`` with ``mechanism="gaussian_objective"`` (δ > 0 only), the form δ
  names, against which ``mechanism="auto"`` keeps the lower Λ-rule bound.

Baselines, in every table: ``non-private`` (scikit-learn ``LogisticRegression(max_iter=2000)``
on the same encoded rows) and ``majority`` (the training labels' majority class scored on
the test rows; it reads the labels, so it is not private either).

Rules (``--rule``): the column scored by (a)-(c). A learner name scores that learner's fits
(default ``front_door``); a choice rule, :data:`RULES` name -> ``rule(n, C, d, epsilon,
delta)`` returning a learner name, scores the fits of the learner it picks per (table,
seed, ε, δ), so a candidate rule costs no fit beyond the learners it picks (``library`` is
the library's own rule, :func:`dpconvex.privacy.rules.front_door.choose_front_door_learner`);
a rule may return (name, δ column) to score that learner's fits at another δ of the same ε
(the library's rule does, with "0", where δ > 0 buys the front door nothing).
Extending: another script adds entries to :data:`LEARNERS` or :data:`RULES` and calls
:func:`main`; or, on the command line, ``--learners module:function`` (a factory, scored as
a variant, not a single estimator) and ``--rule module:function`` (a choice rule).

Data: ``corpus.split(name, seed)`` (norm <= 1 rows, stratified 70/30 split); the seed is
also the noise seed of every private fit. δ "1/n2" is 1 / n_train². ``--seeds selection``
(default) or ``report`` picks ``corpus.SELECTION_SEEDS`` or ``corpus.REPORT_SEEDS``;
``--n-seeds K`` the first K of them. diffprivlib is pure ε: its ε-cells are shown in every
δ column of that ε (pure ε-DP is (ε, δ)-DP for every δ).

The held-out checks: ``--tables check --seeds check`` runs the held-out check of the task,
``corpus.check_tables(task)``, on ``corpus.CHECK_SEEDS``: with ``--task classification`` (the
default) the five tables of ``corpus.CLASSIFICATION_CHECK_TABLES``, scored as the corpus is;
with ``--task regression`` those of ``corpus.REGRESSION_CHECK_TABLES``
(``benchmarks/regression_check.py`` drives that one and reports it). A check table runs only
on the check seeds, with its own task and with no other table, and the check seeds only on
check tables. A run on the check seeds adds ``-check`` to the names of its files
(``corpus_run[-regression]-check[-quick].*``), apart from the corpus's.

Regression (``--task regression``): the tables of ``corpus.REGRESSION_TABLES``, each label
with its public ``label_range`` (the learners get ``learner_label_range``). Learners (the
registry :data:`REGRESSION_LEARNERS`; each factory takes ``(epsilon, delta, label_range,
seed)``): ``huber`` and ``pinball``, ``PrivateLinearRegressor(loss=...)`` at its defaults;
``quantile_objective`` and ``quantile_output``, ``PrivateQuantileRegressor()`` (the median)
with objective or output perturbation (their Gaussian forms at δ > 0), the comparison behind
its ``mechanism="auto"``, and ``huber_by_delta`` and ``pinball_by_delta``, objective
perturbation by δ alone (Gaussian at δ > 0), against which ``mechanism="auto"`` keeps the
lower Λ-rule bound (variants, not defaults);
``front_door``, ``dpconvex.PrivateRegressor`` when the installed dpconvex has it; and any
other name of a dpconvex regressor class, added when ``hasattr(dpconvex, name)`` at run time
(``PrivateLinearRegression``, ``PrivateHuberRegressor``, ``PrivateQuantileRegressor``, ...),
each with ε, δ, ``label_range`` and the seed. The rule column is ``front_door`` if present,
else ``huber`` (the regressor's default loss), or ``--rule NAME``. Baselines: ``non-private``
(scikit-learn ``Ridge()``), ``non-private huber`` (``HuberRegressor(max_iter=1000)``) and
``mean`` (the training labels' mean, a constant prediction). Metrics: test R² and MAE in the
label's units (after the table's ``label_transform``). The summary counts, per cell:

(a) cells where the rule's R² is below −0.005 (clearly worse than a constant);
(b) at ε >= 1 on tables with >= 5,000 training rows and a positive non-private R², the
    cells where the rule's R² is at least 0.9 × the non-private R² (the better of ``Ridge``
    and ``HuberRegressor``, chosen on the test set);
(c) with ``--diffprivlib``, the cells where the rule's R² is at least diffprivlib's − 0.005:
    ``diffprivlib.models.LinearRegression(epsilon, bounds_X, bounds_y=label_range)``, pure ε,
    bounds_X the encoding's public per-feature range, run by
    ``benchmarks/baselines/corpus_regression_diffprivlib.py`` in ``benchmarks/.venv``;
(d) at ε = 2 on tables with >= 2,000 training rows and a positive non-private R², the cells
    where the rule's R² is at least 0.5 × the non-private R².

Splits are not stratified; fits are cached in ``<out>/corpus_run-regression[-quick].jsonl``.

What a rule could reach (``--ceiling-from selection|report``): the column ``ceiling`` scores,
per cell, the fits of the single learner whose mean on the *other* seed set is the highest
(those fits read from the same cache: run that seed set first, with the same tag). It is
the best a look-up table of one learner per cell, learnt on independent seeds, does; the
criteria measure the seeds' noise with the rule (the best single learner is chosen on the
test seeds). The summary adds the column's criteria and, for classification, those of an
oracle that knows each cell's best single learner (:func:`oracle_resample`: chosen over both
seed sets and scored on resamples of them, so optimistic). A target above both asks for
better learners or more seeds, not a better rule.

Run (from the repository root)::

    DPCONVEX_DATA=/work/shared/datasets python benchmarks/corpus_run.py \
        [--task classification|regression] [--tables NAME ...] [--seeds selection|report|check] \
        [--n-seeds K] [--epsilons 0.5 1 2] [--deltas 0 1/n2] [--learners front_door ...] \
        [--rule front_door] [--diffprivlib] [--procs 2] [--tag TAG] [--out DIR] \
        [--train-rows M] [--ceiling-from selection|report] [--quick]

``--train-rows M``: every fit sees a seeded subsample of M of the split's training rows (the
test rows whole; tables with fewer are left out; results in ``corpus_run-rowsM.*``): the
corpus at the sizes of small tables, where n·ε/(C(d + 1)) is small. ``--tables binary`` (or
``multiclass``) names that group of tables; ``--tables check`` the task's held-out check.

``--quick``: one binary and one multiclass table (else the first two; regression: the first
two regression tables), the first seed, ε = 1, δ = 0, the front door and ``logistic``
(regression: the default learners) plus the baselines, at most 800 training and 800 test
rows (a seeded subsample): seconds, a smoke run.

Parallel over (table, seed) with ``--procs`` processes, one BLAS thread each. Every fit is
appended to ``<out>/corpus_run[-quick].jsonl``, keyed by (tag, table, seed, the split's
SHA-256, ε, δ, learner); a rerun, or a run with added learners, fits only what is missing.
The tag is the dpconvex commit (``git rev-parse --short HEAD``), followed by a hash of the
uncommitted changes under ``dpconvex/`` if there are any, or ``--tag``. Tables are printed
and written to ``<out>/corpus_run[-quick].json`` and ``.md`` (``harness.Run``). A table
whose split fails is named and left out (the run fails if every table does).
"""

from __future__ import annotations

import os

if __name__ == "__main__":  # one BLAS thread per process, set before NumPy is imported
    for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_var] = "1"

import dataclasses  # noqa: E402
import hashlib  # noqa: E402
import importlib  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import multiprocessing as mp  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from collections.abc import Callable, Sequence  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import corpus  # noqa: E402
import front_door_data  # noqa: E402
import harness  # noqa: E402

VENV_PYTHON = HERE / ".venv" / "bin" / "python"
DPL_SCRIPT = HERE / "baselines" / "front_door_diffprivlib.py"
DPL_REGRESSION_SCRIPT = HERE / "baselines" / "corpus_regression_diffprivlib.py"
#: rows kept (train, test) per split by ``--quick``
QUICK_ROWS = (800, 800)
#: the four diffprivlib models of DPL_SCRIPT (its result keys, without the ε)
DPL_MODELS = ("dp_lr/divisor", "dp_lr/unit", "dp_gnb/divisor", "dp_gnb/unit")
DPL_LABELS = {"dp_lr/divisor": "diffprivlib LR (divisor rows)", "dp_lr/unit": "diffprivlib LR (x/‖x‖)",
              "dp_gnb/divisor": "diffprivlib GaussianNB (divisor rows)",
              "dp_gnb/unit": "diffprivlib GaussianNB (x/‖x‖)"}
MAJORITY, NON_PRIVATE = "majority", "non-private"
#: regression baselines: the training mean (a constant prediction) and HuberRegressor
MEAN, NON_PRIVATE_HUBER = "mean", "non-private huber"
#: diffprivlib's regression model (its cache name, after "diffprivlib:")
DPL_REGRESSION_MODEL = "lr"
#: slack of the criteria's comparisons, in points (float noise of a difference of means)
TOL = 1e-9
#: the regression criteria: R² slack of (a) and (c); (b)'s ratio, smallest ε and training rows
R2_SLACK = 0.005
NON_PRIVATE_RATIO, RATIO_MIN_EPSILON, RATIO_MIN_ROWS = 0.9, 1.0, 5000
#: the regression criterion (d): its ratio, ε and smallest number of training rows
HALF_RATIO, HALF_EPSILON, HALF_MIN_ROWS = 0.5, 2.0, 2000
#: the column of ``--ceiling-from``: per cell, the single learner best on the other seed set
CEILING = "ceiling"
#: resamples of the seeds that score the oracle of :func:`oracle_resample`
ORACLE_DRAWS = 400


# ---------------------------------------------------------------------------- registry
@dataclasses.dataclass(frozen=True)
class Learner:
    """A registry entry: ``factory(epsilon, delta, classes, seed)`` -> unfitted estimator or None
    (``label_range`` in place of ``classes`` in :data:`REGRESSION_LEARNERS`).

    ``single`` marks a single dpconvex estimator: criterion (b) compares the rule with the
    best of these. ``label`` is the table's row label. ``bounds``: the factory also takes
    ``feature_range=(lo, hi)``, the table's public per-feature range of an encoded row
    (``schema.encoded_range()``, from the schema's constants only), as diffprivlib's
    GaussianNB takes its ``bounds``. ``ranged``: the learner is fitted on rows that carry
    those ranges (:class:`dpconvex.data.RangedRows`, what ``PublicEncoder(schema)`` hands the
    next step of a pipeline).
    """

    factory: Callable[..., Any]
    single: bool = False
    label: str = ""
    bounds: bool = False
    ranged: bool = False


def _front_door(**fixed: Any) -> Callable:
    def factory(eps: float, delta: float, classes: list[int], seed: int, **public: Any) -> Any:
        import dpconvex as dp

        return dp.PrivateClassifier(epsilon=eps, delta=delta, classes=classes, random_state=seed,
                                    **fixed, **public)

    factory.__name__ = "_front_door" + "".join(f"_{k}_{v}" for k, v in fixed.items())
    return factory


def _single(cls_name: str, *, delta_none: bool = False, needs_delta: bool = False,
            **fixed: Any) -> Callable:
    def factory(eps: float, delta: float, classes: list[int], seed: int, **public: Any) -> Any:
        import dpconvex as dp

        if needs_delta and delta <= 0:
            return None
        return getattr(dp, cls_name)(epsilon=eps, delta=(delta or None) if delta_none else delta,
                                     classes=classes, random_state=seed, **fixed, **public)

    factory.__name__ = f"_{cls_name}"
    return factory


def _unit_rows(factory: Callable) -> Callable:
    """``factory``'s estimator on the rows x / ||x|| (a per-record map: scikit-learn's Normalizer)."""
    def unit(eps: float, delta: float, classes: list[int], seed: int) -> Any:
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import Normalizer

        est = factory(eps, delta, classes, seed)
        return None if est is None else make_pipeline(Normalizer(), est)

    unit.__name__ = f"{factory.__name__}_unit"
    return unit


LEARNERS: dict[str, Learner] = {
    "front_door": Learner(_front_door(), False, "front door (PrivateClassifier)", bounds=True),
    "logistic": Learner(_single("PrivateLogisticRegression"), True, "PrivateLogisticRegression"),
    "huber": Learner(_single("PrivateHuberSVM"), True, "PrivateHuberSVM"),
    "large_margin": Learner(_single("PrivateLargeMarginGaussian", delta_none=True), True,
                            "PrivateLargeMarginGaussian"),
    "noisy_gd": Learner(_single("NoisyGradientDescent", needs_delta=True), True,
                        "NoisyGradientDescent (δ > 0 only)"),
    "centroid": Learner(_single("PrivateGaussianCentroid"), True, "PrivateGaussianCentroid"),
    "gaussian_nb": Learner(_single("PrivateGaussianNB", delta_none=True), True, "PrivateGaussianNB",
                           bounds=True),
    # variants, not defaults: the linear learners on unit rows; the front door without its
    # safeguard (every row fits the learner); the large-margin softmax without its own
    # switch to centroids
    "logistic_unit": Learner(_unit_rows(_single("PrivateLogisticRegression")), False,
                             "PrivateLogisticRegression on x/‖x‖"),
    "huber_unit": Learner(_unit_rows(_single("PrivateHuberSVM")), False, "PrivateHuberSVM on x/‖x‖"),
    "front_door_guarded": Learner(_front_door(safeguard=True), False,
                                  "PrivateClassifier(safeguard=True)", bounds=True),
    "front_door_unguarded": Learner(_front_door(safeguard=False), False,
                                    "PrivateClassifier(safeguard=False)", bounds=True),
    # the front door told only that its rows lie within data_norm (no per-feature ranges)
    "front_door_rows": Learner(_front_door(), False, "PrivateClassifier without feature_range"),
    "front_door_pipeline": Learner(_front_door(), False, "PrivateClassifier on the encoder's rows",
                                   ranged=True),
    "softmax": Learner(_single("PrivateLargeMarginGaussian", delta_none=True, loss="softmax"), False,
                       "PrivateLargeMarginGaussian(loss='softmax')"),
    # the form δ > 0 names, against which mechanism="auto" keeps the lower Λ-rule bound
    "logistic_gaussian": Learner(
        _single("PrivateLogisticRegression", needs_delta=True, mechanism="gaussian_objective"),
        False, "PrivateLogisticRegression(mechanism='gaussian_objective') (δ > 0 only)"),
    "huber_gaussian": Learner(
        _single("PrivateHuberSVM", needs_delta=True, mechanism="gaussian_objective"), False,
        "PrivateHuberSVM(mechanism='gaussian_objective') (δ > 0 only)"),
}
DEFAULT_LEARNERS = ("front_door", "logistic", "huber", "large_margin", "noisy_gd", "centroid",
                    "gaussian_nb")


def _library_rule(n: int, n_classes: int, d: int, epsilon: float, delta: float
                  ) -> str | tuple[str, str]:
    """The library's front-door rule, mapped onto this registry's learner names (the public
    per-feature ranges given, as ``front_door`` gets them); where δ > 0 buys the rule nothing,
    (name, "0"): its fit at δ = 0, as the front door spends no δ."""
    from dpconvex.privacy.rules.front_door import (
        CENTROID,
        GAUSSIAN_NB,
        LARGE_MARGIN,
        LINEAR,
        NOISY_GD,
        choose_front_door_learner,
    )

    choice = choose_front_door_learner(n, n_classes, d, epsilon, delta, ranges_known=True)
    name = {LINEAR: "huber", CENTROID: "centroid", LARGE_MARGIN: "large_margin",
            NOISY_GD: "noisy_gd", GAUSSIAN_NB: "gaussian_nb"}[choice.learner]
    return (name, "0") if choice.delta_unused else name


#: choice rules: ``rule(n, C, d, epsilon, delta)`` -> a LEARNERS name, or (name, δ column) to
#: score that learner's fits in another δ column of the same ε (e.g. "0")
RULES: dict[str, Callable[[int, int, int, float, float], str | tuple[str, str]]] = {
    "library": _library_rule}


def _import(spec: str) -> Any:
    module, _, attr = spec.partition(":")
    return getattr(importlib.import_module(module), attr)


def register(spec: str, *, rule: bool = False) -> str:
    """Make ``spec`` usable: a registered name, or ``module:function`` added under that text.

    Raises
    ------
    KeyError
        ``spec`` is neither registered nor of the form ``module:function``.
    """
    if spec in (RULES if rule else {}) or spec in LEARNERS:
        return spec
    if ":" not in spec:
        known = sorted(LEARNERS) + (sorted(RULES) if rule else [])
        raise KeyError(f"unknown {'rule' if rule else 'learner'} {spec!r}; choose from {known} "
                       "or give module:function")
    fn = _import(spec)
    if rule:
        RULES[spec] = fn
    else:
        LEARNERS[spec] = fn if isinstance(fn, Learner) else Learner(fn, False, spec)
    return spec


# ---------------------------------------------------------------------------- regression registry
#: the dpconvex class behind the regression front door
FRONT_DOOR_REGRESSOR = "PrivateRegressor"


def _regressor(cls_name: str, **fixed: Any) -> Callable:
    def factory(eps: float, delta: float, label_range: tuple[float, float], seed: int) -> Any:
        import dpconvex as dp

        return getattr(dp, cls_name)(epsilon=eps, delta=delta, label_range=label_range,
                                     random_state=seed, **fixed)

    factory.__name__ = f"_{cls_name}" + "".join(f"_{k}_{v}" for k, v in fixed.items())
    return factory


def _regressor_by_delta(cls_name: str, mechanism: str, **fixed: Any) -> Callable:
    """A factory of ``cls_name`` with ``mechanism`` at δ = 0 and ``"gaussian_" + mechanism``
    at δ > 0 (a mechanism family, pure and Gaussian)."""
    def factory(eps: float, delta: float, label_range: tuple[float, float], seed: int) -> Any:
        import dpconvex as dp

        name = f"gaussian_{mechanism}" if delta > 0 else mechanism
        return getattr(dp, cls_name)(epsilon=eps, delta=delta, label_range=label_range,
                                     mechanism=name, random_state=seed, **fixed)

    factory.__name__ = f"_{cls_name}_{mechanism}" + "".join(f"_{k}_{v}" for k, v in fixed.items())
    return factory


#: regression learners: ``factory(epsilon, delta, label_range, seed)`` -> unfitted estimator
REGRESSION_LEARNERS: dict[str, Learner] = {
    "huber": Learner(_regressor("PrivateLinearRegressor", loss="huber"), True,
                     "PrivateLinearRegressor(loss='huber')"),
    "pinball": Learner(_regressor("PrivateLinearRegressor", loss="pinball"), True,
                       "PrivateLinearRegressor(loss='pinball')"),
    # the two mechanism families of the median regressor, behind its mechanism="auto"
    "quantile_objective": Learner(
        _regressor_by_delta("PrivateQuantileRegressor", "objective"), False,
        "PrivateQuantileRegressor(mechanism='objective', Gaussian at δ > 0)"),
    "quantile_output": Learner(
        _regressor_by_delta("PrivateQuantileRegressor", "output"), False,
        "PrivateQuantileRegressor(mechanism='output', Gaussian at δ > 0)"),
    # the form δ alone names, against which mechanism="auto" keeps the lower Λ-rule bound
    "huber_by_delta": Learner(
        _regressor_by_delta("PrivateLinearRegressor", "objective", loss="huber"), False,
        "PrivateLinearRegressor(loss='huber', mechanism='objective', Gaussian at δ > 0)"),
    "pinball_by_delta": Learner(
        _regressor_by_delta("PrivateLinearRegressor", "objective", loss="pinball"), False,
        "PrivateLinearRegressor(loss='pinball', mechanism='objective', Gaussian at δ > 0)"),
}
DEFAULT_REGRESSION_LEARNERS = ("huber", "pinball")
#: the rule column when dpconvex has no front-door regressor: the regressor's default loss
FALLBACK_REGRESSION_RULE = "huber"


def dpconvex_has(name: str) -> bool:
    """Whether the installed dpconvex exports ``name`` (a learner written after this script)."""
    import dpconvex as dp

    return hasattr(dp, name)


def register_regression(spec: str) -> str:
    """Make ``spec`` usable as a regression learner: a registered name, ``front_door``
    (``dpconvex.PrivateRegressor``), a dpconvex class name, or ``module:function``.

    Raises
    ------
    KeyError
        ``spec`` is none of these in the installed dpconvex.
    """
    if spec in REGRESSION_LEARNERS:
        return spec
    if ":" in spec:
        fn = _import(spec)
        REGRESSION_LEARNERS[spec] = fn if isinstance(fn, Learner) else Learner(fn, False, spec)
        return spec
    cls_name = FRONT_DOOR_REGRESSOR if spec == "front_door" else spec
    if not dpconvex_has(cls_name):
        raise KeyError(f"unknown regression learner {spec!r}: dpconvex has no {cls_name}; choose "
                       f"from {sorted(REGRESSION_LEARNERS)}, a dpconvex regressor's class name "
                       "or module:function")
    label = f"front door ({cls_name})" if spec == "front_door" else cls_name
    REGRESSION_LEARNERS[spec] = Learner(_regressor(cls_name), spec != "front_door", label)
    return spec


def default_regression_learners() -> list[str]:
    """``front_door`` if dpconvex has it, then :data:`DEFAULT_REGRESSION_LEARNERS`."""
    return [*(["front_door"] if dpconvex_has(FRONT_DOOR_REGRESSOR) else []),
            *DEFAULT_REGRESSION_LEARNERS]


def registry(task: str) -> dict[str, Learner]:
    """The learner registry of ``task``: :data:`LEARNERS` or :data:`REGRESSION_LEARNERS`."""
    return REGRESSION_LEARNERS if task == "regression" else LEARNERS


# ---------------------------------------------------------------------------- data
def delta_value(spec: str, n_train: int) -> float:
    """δ of a ``--deltas`` entry: "0", "1/n2" (1 / n_train²) or a number."""
    if spec == "1/n2":
        return 1.0 / float(n_train) ** 2
    return float(spec)


def load_split(name: str, seed: int, quick: bool, train_rows: int | None = None) -> corpus.Split:
    """``corpus.split(name, seed)``; with ``quick``, seeded subsamples of QUICK_ROWS rows;
    with ``train_rows`` M, a seeded subsample of M training rows (the test rows whole)."""
    sp = corpus.split(name, seed)
    if train_rows is not None:
        X, y = harness.subsample(sp.X_train, sp.y_train, train_rows, seed)
        sp = corpus.Split(X, y, sp.X_test, sp.y_test, sp.classes)
    if not quick:
        return sp
    X, y = harness.subsample(sp.X_train, sp.y_train, QUICK_ROWS[0], seed)
    Xt, yt = harness.subsample(sp.X_test, sp.y_test, QUICK_ROWS[1], seed)
    return corpus.Split(X, y, Xt, yt, sp.classes)


def fingerprint(sp: corpus.Split) -> str:
    """SHA-256 (first 16 hex digits) of a split's arrays: the cache's key to the rows."""
    h = hashlib.sha256()
    for a in sp[:4]:
        a = np.ascontiguousarray(a)
        h.update(f"{a.shape}{a.dtype.str}".encode())
        h.update(a.tobytes())
    return h.hexdigest()[:16]


# ---------------------------------------------------------------------------- fits (worker)
def _one_thread_env() -> dict[str, str]:
    return {**os.environ, **{k: "1" for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                               "MKL_NUM_THREADS")}}


def diffprivlib_python() -> tuple[str | None, str]:
    """The interpreter of benchmarks/.venv if diffprivlib imports there, or why not."""
    if not VENV_PYTHON.exists():
        return None, "benchmarks/.venv is missing (run bash benchmarks/setup_env.sh)"
    probe = subprocess.run([str(VENV_PYTHON), "-c", "import diffprivlib, sklearn; "
                            "print(diffprivlib.__version__, sklearn.__version__)"],
                           capture_output=True, text=True, env=_one_thread_env(), timeout=300)
    if probe.returncode != 0:
        return None, "diffprivlib does not import in benchmarks/.venv"
    v = probe.stdout.split()
    return str(VENV_PYTHON), f"benchmarks/.venv (diffprivlib {v[0]}, scikit-learn {v[1]})"


def run_diffprivlib(python: str, name: str, seed: int, sp: corpus.Split,
                    epsilons: Sequence[float]) -> dict[tuple[float, str], float]:
    """(ε, model) -> test accuracy of DPL_SCRIPT's models on this split (pure ε)."""
    lo, hi = front_door_data.schema_bounds(corpus.table(name).schema)
    with tempfile.TemporaryDirectory(prefix="corpus_dpl_") as tmp:
        d = Path(tmp)
        np.savez(d / f"{name}_{seed}.npz", X_train=sp.X_train, y_train=sp.y_train,
                 X_test=sp.X_test, y_test=sp.y_test, lo=lo, hi=hi, classes=np.asarray(sp.classes),
                 epsilons=np.asarray(epsilons, dtype=float))
        meta = {"seeds": [seed], "datasets": {name: {
            "label": name, "epsilons": list(epsilons), "classes": list(sp.classes),
            "split": f"corpus.split({name!r}, {seed})"}}}
        (d / "meta.json").write_text(json.dumps(meta))
        proc = subprocess.run([python, str(DPL_SCRIPT), "--data", str(d), "--out", str(d / "dpl")],
                              capture_output=True, text=True, env=_one_thread_env(), timeout=3600)
        if proc.returncode != 0:
            raise RuntimeError(f"{DPL_SCRIPT.name} failed: {proc.stderr.strip()[-300:]}")
        acc = json.loads((d / "dpl.json").read_text())["cells"][name]["accuracy"]
    return {(eps, m): float(acc[f"{m}/{eps:g}"]["per_seed"][0]) for eps in epsilons for m in DPL_MODELS}


def run_diffprivlib_regression(python: str, name: str, seed: int, sp: corpus.Split,
                               epsilons: Sequence[float]) -> dict[float, tuple[float, float]]:
    """ε -> (test R², test MAE) of diffprivlib's LinearRegression on this split (pure ε)."""
    lo, hi = front_door_data.schema_bounds(corpus.table(name).schema)
    with tempfile.TemporaryDirectory(prefix="corpus_dpl_") as tmp:
        d = Path(tmp)
        np.savez(d / "split.npz", X_train=sp.X_train, y_train=sp.y_train, X_test=sp.X_test,
                 y_test=sp.y_test, lo=lo, hi=hi,
                 label_range=np.asarray(corpus.table(name).learner_label_range, dtype=float),
                 epsilons=np.asarray(epsilons, dtype=float), seed=seed)
        proc = subprocess.run([python, str(DPL_REGRESSION_SCRIPT), "--data", str(d / "split.npz"),
                               "--out", str(d / "dpl.json")],
                              capture_output=True, text=True, env=_one_thread_env(), timeout=3600)
        if proc.returncode != 0:
            raise RuntimeError(f"{DPL_REGRESSION_SCRIPT.name} failed: {proc.stderr.strip()[-300:]}")
        got = json.loads((d / "dpl.json").read_text())["per_epsilon"]
    return {eps: (float(got[f"{eps:g}"]["r2"]), float(got[f"{eps:g}"]["mae"])) for eps in epsilons}


def run_split(job: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Fit what the cache lacks on one (table, seed): (split facts, new cache records).

    BLAS runs on one thread (``threadpoolctl``), also when :func:`main` is called from
    another script that did not set the environment variables.
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        if job.get("task") == "regression":
            return _run_regression_split(job)
        return _run_split(job)


def _open_split(job: dict[str, Any]) -> tuple[corpus.Split | None, dict[str, Any]]:
    """The job's split, or None and the facts that say why (a failed or too small split)."""
    name, seed = job["table"], job["seed"]
    t0 = time.perf_counter()
    try:
        sp = load_split(name, seed, job["quick"], job["train_rows"])
    except Exception as exc:  # a broken table is reported and left out, the others run
        return None, {"table": name, "seed": seed, "error": f"{type(exc).__name__}: {exc}"[:200],
                      "seconds": time.perf_counter() - t0}
    if job["train_rows"] is not None and len(sp.y_train) < job["train_rows"]:
        return None, {"table": name, "seed": seed, "seconds": time.perf_counter() - t0,
                      "skipped": f"{len(sp.y_train)} training rows < --train-rows"}
    return sp, {}


def _run_regression_split(job: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    from sklearn.linear_model import HuberRegressor, Ridge
    from sklearn.metrics import mean_absolute_error, r2_score

    name, seed, tag = job["table"], job["seed"], job["tag"]
    t0 = time.perf_counter()
    sp, why = _open_split(job)
    if sp is None:
        return why, []
    fp = fingerprint(sp)
    n, d = len(sp.y_train), sp.X_train.shape[1]
    label_range = corpus.table(name).learner_label_range
    info = {"table": name, "seed": seed, "data": fp, "n_train": n, "n_test": len(sp.y_test),
            "d": d, "label_range": list(label_range)}
    done = {k[1:] for k in job["done"] if k[0] == fp}
    rows: list[dict[str, Any]] = []

    def record(learner: str, eps: float | None, dspec: str | None, r2: float | None,
               mae: float | None, err: str | None = None, secs: float = 0.0) -> None:
        rows.append({"tag": tag, "table": name, "seed": seed, "data": fp, "epsilon": eps,
                     "delta": dspec, "delta_value": None if dspec is None else delta_value(dspec, n),
                     "learner": learner, "r2": r2, "mae": mae, "error": err, "chose": None,
                     "seconds": round(secs, 3)})

    def scores(pred: np.ndarray) -> tuple[float, float]:
        return float(r2_score(sp.y_test, pred)), float(mean_absolute_error(sp.y_test, pred))

    if (None, None, MEAN) not in done:
        record(MEAN, None, None, *scores(np.full(len(sp.y_test), float(np.mean(sp.y_train)))))
    for base, model in ((NON_PRIVATE, Ridge()), (NON_PRIVATE_HUBER, HuberRegressor(max_iter=1000))):
        if (None, None, base) not in done:
            s = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                pred = model.fit(sp.X_train, sp.y_train).predict(sp.X_test)
            record(base, None, None, *scores(pred), secs=time.perf_counter() - s)
    for eps in job["epsilons"]:
        for dspec in job["deltas"]:
            delta = delta_value(dspec, n)
            for learner in dict.fromkeys([job["rule"], *job["learners"]]):
                if (eps, dspec, learner) in done:
                    continue
                est = REGRESSION_LEARNERS[learner].factory(eps, delta, label_range, seed)
                s = time.perf_counter()
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        est.fit(sp.X_train, sp.y_train)
                        r2, mae = scores(np.asarray(est.predict(sp.X_test), dtype=float))
                    err = None
                except Exception as exc:  # a refusal is a result of the defaults
                    r2, mae, err = None, None, f"{type(exc).__name__}: {exc}"[:200]
                record(learner, eps, dspec, r2, mae, err, time.perf_counter() - s)
    dpl = f"diffprivlib:{DPL_REGRESSION_MODEL}"
    if job["dpl_python"]:
        missing = [e for e in job["epsilons"] if (e, "0", dpl) not in done]
        if missing:
            s = time.perf_counter()
            try:
                got = run_diffprivlib_regression(job["dpl_python"], name, seed, sp, missing)
            except (RuntimeError, OSError, subprocess.SubprocessError) as exc:  # not cached: retried
                got, info["diffprivlib_error"] = {}, f"{type(exc).__name__}: {exc}"[:300]
            secs = (time.perf_counter() - s) / max(len(got), 1)
            for eps, (r2, mae) in got.items():
                record(dpl, eps, "0", r2, mae, secs=secs)
    info["seconds"] = time.perf_counter() - t0
    return info, rows


def _run_split(job: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    from sklearn.linear_model import LogisticRegression

    name, seed, tag = job["table"], job["seed"], job["tag"]
    t0 = time.perf_counter()
    sp, why = _open_split(job)
    if sp is None:
        return why, []
    fp = fingerprint(sp)
    n, d, C = len(sp.y_train), sp.X_train.shape[1], len(sp.classes)
    info = {"table": name, "seed": seed, "data": fp, "n_train": n, "n_test": len(sp.y_test),
            "d": d, "classes": C}
    done = {k[1:] for k in job["done"] if k[0] == fp}
    rows: list[dict[str, Any]] = []

    def record(learner: str, eps: float | None, dspec: str | None, acc: float | None,
               err: str | None = None, secs: float = 0.0, chose: str | None = None) -> None:
        rows.append({"tag": tag, "table": name, "seed": seed, "data": fp, "epsilon": eps,
                     "delta": dspec, "delta_value": None if dspec is None else delta_value(dspec, n),
                     "learner": learner, "accuracy": acc, "error": err, "chose": chose,
                     "seconds": round(secs, 3)})

    if (None, None, MAJORITY) not in done:
        values, counts = np.unique(sp.y_train, return_counts=True)
        record(MAJORITY, None, None, float(np.mean(sp.y_test == values[np.argmax(counts)])))
    if (None, None, NON_PRIVATE) not in done:
        s = time.perf_counter()
        lr = LogisticRegression(max_iter=2000).fit(sp.X_train, sp.y_train)
        record(NON_PRIVATE, None, None, float(lr.score(sp.X_test, sp.y_test)),
               secs=time.perf_counter() - s)
    from dpconvex.data import RangedRows

    rule = RULES.get(job.get("rule", ""))
    lo, hi = corpus.table(name).schema.encoded_range()  # public: the schema's constants
    bounds = np.column_stack([lo, hi])
    fits: dict[tuple[float, str, str], None] = {}
    for eps in job["epsilons"]:
        for dspec in job["deltas"]:
            fits.update(dict.fromkeys((eps, dspec, learner) for learner in job["learners"]))
            if rule is not None:  # the learner the rule picks is fitted too (in its δ column)
                pick = rule(n, C, d, eps, delta_value(dspec, n))
                picked, column = pick if isinstance(pick, tuple) else (pick, dspec)
                fits[(eps, column, picked)] = None
    for eps, dspec, learner in fits:
        delta = delta_value(dspec, n)
        if (eps, dspec, learner) in done:
            continue
        public = {"feature_range": bounds} if LEARNERS[learner].bounds else {}
        est = LEARNERS[learner].factory(eps, delta, list(sp.classes), seed, **public)
        if est is None:
            continue
        s = time.perf_counter()
        try:
            X_fit = (RangedRows(sp.X_train, bounds) if LEARNERS[learner].ranged
                     else sp.X_train)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est.fit(X_fit, sp.y_train)
            acc, err = float(est.score(sp.X_test, sp.y_test)), None
        except Exception as exc:  # a refusal is a result of the defaults
            acc, err = None, f"{type(exc).__name__}: {exc}"[:200]
        record(learner, eps, dspec, acc, err, time.perf_counter() - s,
               getattr(est, "learner_", None) if acc is not None else None)
    if job["dpl_python"]:
        missing = [e for e in job["epsilons"]
                   if any((e, "0", f"diffprivlib:{m}") not in done for m in DPL_MODELS)]
        if missing:
            s = time.perf_counter()
            try:
                got = run_diffprivlib(job["dpl_python"], name, seed, sp, missing)
            except (RuntimeError, OSError, subprocess.SubprocessError) as exc:  # not cached: retried
                got, info["diffprivlib_error"] = {}, f"{type(exc).__name__}: {exc}"[:300]
            secs = (time.perf_counter() - s) / max(len(got), 1)
            for (eps, m), acc in got.items():
                record(f"diffprivlib:{m}", eps, "0", acc, secs=secs)
    info["seconds"] = time.perf_counter() - t0
    return info, rows


# ---------------------------------------------------------------------------- cache
def read_cache(path: Path, tag: str) -> list[dict[str, Any]]:
    """The cache's records of ``tag`` (a partly written last line is skipped)."""
    if not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            r = json.loads(line)
        except json.JSONDecodeError:
            continue
        if r.get("tag") == tag:
            out.append(r)
    return out


def cache_key(r: dict[str, Any]) -> tuple:
    """(table, seed, data, ε, δ, learner) of a cache record."""
    return r["table"], r["seed"], r["data"], r["epsilon"], r["delta"], r["learner"]


def default_tag() -> str:
    """The dpconvex commit, plus a hash of uncommitted changes under dpconvex/ if any."""
    root = HERE.parent

    def git(*a: str) -> str:
        try:
            return subprocess.run(["git", *a], cwd=root, capture_output=True, text=True,
                                  timeout=30).stdout
        except (OSError, subprocess.SubprocessError):
            return ""

    commit = git("rev-parse", "--short", "HEAD").strip() or "unknown"
    dirty = git("diff", "HEAD", "--", "dpconvex") + git("ls-files", "--others", "--exclude-standard",
                                                        "dpconvex")
    return f"{commit}+{hashlib.sha256(dirty.encode()).hexdigest()[:8]}" if dirty.strip() else commit


# ---------------------------------------------------------------------------- cells and criteria
def mean_se(values: Sequence[float]) -> tuple[float, float]:
    """Mean and standard error (sample std / sqrt(k)) of ``values``."""
    v = np.asarray(values, dtype=float)
    return float(v.mean()), (float(v.std(ddof=1) / math.sqrt(v.size)) if v.size > 1 else 0.0)


@dataclasses.dataclass
class Cell:
    """One table × ε × δ: per learner, the per-seed accuracies (None: refused) and refusals."""

    table: str
    epsilon: float
    delta: str
    seeds: list[int]
    acc: dict[str, dict[int, float | None]] = dataclasses.field(default_factory=dict)
    errors: dict[str, str] = dataclasses.field(default_factory=dict)
    chose: dict[str, list[str]] = dataclasses.field(default_factory=dict)

    def stat(self, learner: str) -> tuple[float, float] | str | None:
        """(mean, se) over every seed; the refusal's text; None if not measured on every seed."""
        if learner in self.errors:
            return "refused: " + self.errors[learner][:60]
        got = self.acc.get(learner, {})
        if any(s not in got for s in self.seeds) or not self.seeds:
            return None
        return mean_se([got[s] for s in self.seeds])

    def mean(self, learner: str) -> float | None:
        s = self.stat(learner)
        return s[0] if isinstance(s, tuple) else None


def build_cells(records: Sequence[dict[str, Any]], infos: dict[tuple[str, int], dict[str, Any]],
                epsilons: Sequence[float], deltas: Sequence[str], rule: str,
                learners: Sequence[str] | None = None, rule_label: str = "rule",
                metric: str = "accuracy") -> list[Cell]:
    """The cells of the run from the cache records of the splits in ``infos``.

    A cell holds the records' ``metric`` ("accuracy"; a regression's "r2" or "mae").

    Records of another split (a different ``data`` hash) are ignored. Baselines fill every
    cell of their table; diffprivlib (pure ε) every δ of its ε. The rule's column
    (``rule_label``) is the named learner's fits, or, for a choice rule, the fits of the
    learner it picks on each seed. ``learners`` (None: all in the records) are the columns
    kept besides the rule and the baselines; diffprivlib's are kept if it names
    ``"diffprivlib"``.
    """
    by_split: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for r in records:
        info = infos.get((r["table"], r["seed"]))
        if info is not None and r["data"] == info["data"]:
            by_split.setdefault((r["table"], r["seed"]), []).append(r)
    tables = list(dict.fromkeys(t for t, _ in infos))
    cells = []
    for table in tables:
        seeds = sorted(s for t, s in infos if t == table)
        for eps in epsilons:
            for dspec in deltas:
                cell = Cell(table, float(eps), dspec, seeds)
                for seed in seeds:
                    info = infos[(table, seed)]
                    for r in by_split.get((table, seed), []):
                        base = r["epsilon"] is None
                        dpl = r["learner"].startswith("diffprivlib:") and r["epsilon"] == eps
                        if not (base or dpl or (r["epsilon"] == eps and r["delta"] == dspec)):
                            continue
                        if r[metric] is None:
                            cell.errors.setdefault(r["learner"], r["error"] or "error")
                        cell.acc.setdefault(r["learner"], {})[seed] = r[metric]
                        if r.get("chose"):
                            cell.chose.setdefault(r["learner"], []).append(r["chose"])
                    if rule in RULES:
                        pick = RULES[rule](info["n_train"], info["classes"], info["d"], float(eps),
                                           delta_value(dspec, info["n_train"]))
                        pick, spent = pick if isinstance(pick, tuple) else (pick, dspec)
                        cell.chose.setdefault(rule_label, []).append(pick)
                        fit = next((r for r in by_split.get((table, seed), [])
                                    if r["learner"] == pick and r["epsilon"] == eps
                                    and r["delta"] == spent), None)
                        if fit is not None:
                            cell.acc.setdefault(rule_label, {})[seed] = fit[metric]
                            if fit[metric] is None:
                                cell.errors[rule_label] = fit["error"] or "error"
                    elif seed in cell.acc.get(rule, {}):
                        cell.acc.setdefault(rule_label, {})[seed] = cell.acc[rule][seed]
                        if rule in cell.errors:
                            cell.errors[rule_label] = cell.errors[rule]
                        cell.chose[rule_label] = cell.chose.get(rule, [])
                if learners is not None:
                    keep = {*learners, rule_label, MAJORITY, NON_PRIVATE, MEAN, NON_PRIVATE_HUBER}
                    for k in list(cell.acc):
                        if k not in keep and not (k.startswith("diffprivlib:") and "diffprivlib" in keep):
                            del cell.acc[k]
                            cell.errors.pop(k, None)
                cells.append(cell)
    return cells


def add_ceiling(cells: Sequence[Cell], records: Sequence[dict[str, Any]], seeds: Sequence[int],
                single: Callable[[str], bool], metric: str = "accuracy") -> list[int]:
    """Add :data:`CEILING` to each cell: the fits of the single learner (``single(name)``)
    whose mean ``metric`` over the ``records`` of ``seeds`` (another seed set's) is the
    highest in the same (table, ε, δ); a cell without such records gets none. Returns the
    seeds whose records were read."""
    other: dict[tuple[str, float, str, str], list[float]] = {}
    read = set()
    for r in records:
        if r["seed"] in seeds and r["epsilon"] is not None and r[metric] is not None \
                and single(r["learner"]):
            other.setdefault((r["table"], r["epsilon"], r["delta"], r["learner"]), []).append(r[metric])
            read.add(r["seed"])
    for c in cells:
        means = {k: float(np.mean(v)) for (t, e, d, k), v in other.items()
                 if (t, e, d) == (c.table, c.epsilon, c.delta) and k in c.acc and k not in c.errors}
        if means:
            pick = max(means, key=means.__getitem__)
            c.acc[CEILING] = dict(c.acc[pick])
            c.chose[CEILING] = [pick] * len(c.seeds)
    return sorted(read)


def oracle_resample(cells: Sequence[Cell], records: Sequence[dict[str, Any]],
                    single: Callable[[str], bool], draws: int = ORACLE_DRAWS, seed: int = 0
                    ) -> dict[str, Any]:
    """The regret criteria of an oracle that knows each cell's best single learner.

    In each cell the oracle takes the single learner (``single(name)``) with the best mean
    over every seed of ``records`` (both seed sets of the cache), and is scored, as the rule
    is, on ``draws`` resamples of as many seeds as the cell has, drawn with replacement from
    those seeds, the learners and the majority class of a seed kept together. Optimistic: the
    oracle is chosen on the seeds it is scored on. Returns the cells scored, the mean number
    of cells with regret <= 1 point, the share of draws with >= 95 % of the cells there, and
    the share of draws with every cell <= 3 points.
    """
    per: dict[tuple[str, float, str], dict[str, dict[int, float]]] = {}
    majority: dict[str, dict[int, float]] = {}
    for r in records:
        if r["accuracy"] is None:
            continue
        if r["epsilon"] is None and r["learner"] == MAJORITY:
            majority.setdefault(r["table"], {})[r["seed"]] = r["accuracy"]
        elif r["epsilon"] is not None and single(r["learner"]):
            per.setdefault((r["table"], r["epsilon"], r["delta"]), {}).setdefault(
                r["learner"], {})[r["seed"]] = r["accuracy"]
    rng = np.random.default_rng(seed)
    within_1, within_3, scored = np.zeros(draws), np.zeros(draws), 0
    for c in cells:
        seeds = sorted(majority.get(c.table, {}))
        got = per.get((c.table, c.epsilon, c.delta), {})
        names = [k for k in sorted(got) if set(seeds) <= set(got[k])]
        if len(seeds) < 2 or not names:
            continue
        acc = 100 * np.array([[got[k][s] for k in names] for s in seeds])
        base = 100 * np.array([majority[c.table][s] for s in seeds])
        best = int(np.argmax(acc.mean(axis=0)))
        idx = rng.integers(0, len(seeds), (draws, len(c.seeds)))
        means = acc[idx].mean(axis=1)
        regret = np.maximum(means.max(axis=1), base[idx].mean(axis=1)) - means[:, best]
        within_1 += regret <= 1 + TOL
        within_3 += regret <= 3 + TOL
        scored += 1
    return {"cells": scored, "regret_1pt_mean": float(within_1.mean()),
            "draws_95pct_within_1pt": float(np.mean(within_1 >= 0.95 * scored)),
            "draws_all_within_3pt": float(np.mean(within_3 == scored))}


def cell_means(cell: Cell, rule_label: str = "rule") -> dict[str, Any]:
    """The means criteria() reads: rule, majority, non-private, singles and diffprivlib models."""
    singles = {k: m for k in cell.acc if k in LEARNERS and LEARNERS[k].single
               and (m := cell.mean(k)) is not None}
    dpl = {k: m for k in cell.acc if k.startswith("diffprivlib:") and (m := cell.mean(k)) is not None}
    return {"table": cell.table, "epsilon": cell.epsilon, "delta": cell.delta,
            "rule": cell.mean(rule_label), "majority": cell.mean(MAJORITY),
            "non_private": cell.mean(NON_PRIVATE), "singles": singles, "diffprivlib": dpl}


def criteria(cells: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The issue's criteria over per-cell means (each a :func:`cell_means` dict).

    (a) ``below_majority``: cells where majority − rule > 0.5 points; (b) ``within_1pt``:
    cells where best single − rule <= 1 point, over the cells with a single estimator;
    (c) ``at_least_diffprivlib``: cells where rule >= diffprivlib's best, over the cells
    with diffprivlib. Cells where the rule has no mean (refused, missing) are counted in
    ``no_rule`` and in none of the three.

    The regret of a cell is max(best single, majority) − rule: (d) ``regret_1pt`` and
    ``regret_3pt``, cells with regret <= 1 and <= 3 points, over the cells with a single
    estimator (``regret_over_3``: the others); (e) ``near_diffprivlib``: cells where rule >=
    diffprivlib's best − 0.5 points.
    """
    out = {"cells": len(cells), "no_rule": 0, "below_majority": 0, "below_majority_cells": [],
           "within_1pt": 0, "with_singles": 0, "at_least_diffprivlib": 0, "with_diffprivlib": 0,
           "regret_1pt": 0, "regret_3pt": 0, "regret_over_3": [], "near_diffprivlib": 0}
    for c in cells:
        rule = c["rule"]
        where = (c["table"], c["epsilon"], c["delta"])
        if rule is None:
            out["no_rule"] += 1
            continue
        if c["majority"] is not None and 100 * (c["majority"] - rule) > 0.5 + TOL:
            out["below_majority"] += 1
            out["below_majority_cells"].append(where)
        if c["singles"]:
            out["with_singles"] += 1
            out["within_1pt"] += 100 * (max(c["singles"].values()) - rule) <= 1 + TOL
            top = max(c["singles"].values())
            if c["majority"] is not None:
                top = max(top, c["majority"])
            regret = 100 * (top - rule)
            out["regret_1pt"] += regret <= 1 + TOL
            out["regret_3pt"] += regret <= 3 + TOL
            if regret > 3 + TOL:
                out["regret_over_3"].append((*where, round(regret, 2)))
        if c["diffprivlib"]:
            out["with_diffprivlib"] += 1
            out["at_least_diffprivlib"] += 100 * (rule - max(c["diffprivlib"].values())) >= -TOL
            out["near_diffprivlib"] += (100 * (rule - max(c["diffprivlib"].values()))
                                        >= -0.5 - TOL)
    for k, m in (("within_1pt", "with_singles"), ("at_least_diffprivlib", "with_diffprivlib"),
                 ("regret_1pt", "with_singles"), ("regret_3pt", "with_singles"),
                 ("near_diffprivlib", "with_diffprivlib")):
        out[f"{k}_share"] = out[k] / out[m] if out[m] else None
    return out


# ---------------------------------------------------------------------------- output
def show(s: Any) -> str:
    """A cell in percent: "mean ± se", a refusal's text, or "–" when not measured."""
    if s is None:
        return "–"
    return s if isinstance(s, str) else f"{100 * s[0]:.1f} ± {100 * s[1]:.1f}"


def _best(cell: Cell, names: Sequence[str]) -> tuple[str, tuple[float, float]] | None:
    got = [(k, s) for k in names if isinstance(s := cell.stat(k), tuple)]
    return max(got, key=lambda t: t[1][0]) if got else None


def table_of(table: str, cells: Sequence[Cell], infos: dict, rule: str, rule_label: str = "rule"
             ) -> harness.Table:
    """One table's markdown table: a row per learner and baseline, a column per (ε, δ)."""
    mine = [c for c in cells if c.table == table]
    info = next(v for (t, _), v in infos.items() if t == table)
    seeds = mine[0].seeds
    cols = [f"ε={c.epsilon:g}, δ={'1/n²' if c.delta == '1/n2' else c.delta}" for c in mine]
    t = harness.Table(f"{table}: n train / test {info['n_train']} / {info['n_test']}, d = {info['d']}, "
                      f"C = {info['classes']}; seeds {seeds[0]}..{seeds[-1]} ({len(seeds)})",
                      ["learner", *cols])
    learners = list(dict.fromkeys(k for c in mine for k in c.acc))
    singles = [k for k in learners if k in LEARNERS and LEARNERS[k].single]
    others = [k for k in learners if k in LEARNERS and not LEARNERS[k].single and k != rule]
    dpl = [k for k in learners if k.startswith("diffprivlib:")]

    def chose(c: Cell, k: str) -> str:
        got = c.chose.get(k, [])
        return ", ".join(f"{v} ×{got.count(v)}" for v in dict.fromkeys(got)) or "–"

    t.add(f"**rule: {rule}**", *(show(c.stat(rule_label)) for c in mine))
    t.add("rule chose", *(chose(c, rule_label) for c in mine))
    for k in others:
        t.add(LEARNERS[k].label or k, *(show(c.stat(k)) for c in mine))
    for k in singles:
        t.add(LEARNERS[k].label or k, *(show(c.stat(k)) for c in mine))
    t.add("best single (test-chosen)", *(
        f"{show(b[1])} ({b[0]})" if (b := _best(c, singles)) else "–" for c in mine))
    if dpl:
        for k in dpl:
            t.add(DPL_LABELS.get(k.split(":", 1)[1], k) + ", pure ε", *(show(c.stat(k)) for c in mine))
        t.add("diffprivlib best (test-chosen)", *(
            f"{show(b[1])} ({b[0].split(':', 1)[1]})" if (b := _best(c, dpl)) else "–" for c in mine))
    t.add(f"{harness.NON_PRIVATE} (scikit-learn LogisticRegression)",
          *(show(c.stat(NON_PRIVATE)) for c in mine))
    t.add(f"{harness.MAJORITY} (training labels' majority; non-private)",
          *(show(c.stat(MAJORITY)) for c in mine))
    t.notes.append("Test accuracy in %, mean ± standard error over the seeds.")
    return t


def _pts(rule: float | None, other: float | None) -> str:
    return "–" if rule is None or other is None else f"{100 * (rule - other):+.1f}"


def _pct(share: float | None) -> str:
    return "n/a" if share is None else f"{100 * share:.0f}%"


def summary_lines(cells: Sequence[Cell], crit: dict[str, Any], rule: str,
                  rule_label: str = "rule") -> list[str]:
    """Per-cell gaps and the criteria, as markdown lines."""
    lines = [f"## Summary: rule `{rule}`", "",
             "| table | ε | δ | rule | rule − majority | best single (test-chosen) | rule − best single "
             "| diffprivlib best (test-chosen) | rule − diffprivlib best | non-private |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for c in cells:
        m = cell_means(c, rule_label)
        best = max(m["singles"].items(), key=lambda kv: kv[1]) if m["singles"] else None
        dpl = max(m["diffprivlib"].items(), key=lambda kv: kv[1]) if m["diffprivlib"] else None
        best_txt = f"{100 * best[1]:.1f} ({best[0]})" if best else "–"
        dpl_txt = f"{100 * dpl[1]:.1f} ({dpl[0].split(':', 1)[1]})" if dpl else "–"
        lines.append(
            f"| {c.table} | {c.epsilon:g} | {c.delta} | {show(c.stat(rule_label))} | "
            f"{_pts(m['rule'], m['majority'])} | {best_txt} | "
            f"{_pts(m['rule'], best[1] if best else None)} | {dpl_txt} | "
            f"{_pts(m['rule'], dpl[1] if dpl else None)} | {show(c.stat(NON_PRIVATE))} |")
    lines += ["", f"Cells: {crit['cells']} ({crit['no_rule']} without a rule mean: refused or missing).",
              f"(a) rule below the majority class by > 0.5 points: {crit['below_majority']} cell(s)"
              + (f" {crit['below_majority_cells']}" if crit["below_majority_cells"] else "") + ".",
              f"(b) rule within 1 point of the best single dpconvex estimator (test-chosen): "
              f"{crit['within_1pt']} / {crit['with_singles']} = {_pct(crit['within_1pt_share'])}.",
              f"(c) rule >= diffprivlib's best (test-chosen of {len(DPL_MODELS)} models, pure ε): "
              + (f"{crit['at_least_diffprivlib']} / {crit['with_diffprivlib']} = "
                 f"{_pct(crit['at_least_diffprivlib_share'])}." if crit["with_diffprivlib"]
                 else "not measured (run with --diffprivlib)."),
              f"(d) regret, max(best single, majority) − rule: <= 1 point in {crit['regret_1pt']} / "
              f"{crit['with_singles']} = {_pct(crit['regret_1pt_share'])}, <= 3 points in "
              f"{crit['regret_3pt']} / {crit['with_singles']}"
              + (f"; above 3: {crit['regret_over_3']}" if crit["regret_over_3"] else "") + ".",
              "(e) rule >= diffprivlib's best − 0.5 points: "
              + (f"{crit['near_diffprivlib']} / {crit['with_diffprivlib']} = "
                 f"{_pct(crit['near_diffprivlib_share'])}." if crit["with_diffprivlib"]
                 else "not measured (run with --diffprivlib).")]
    return lines


# ---------------------------------------------------------------------------- regression scores
def regression_cell_means(cell: Cell, n_train: int, rule_label: str = "rule") -> dict[str, Any]:
    """The R² means :func:`regression_criteria` reads: rule, mean, non-private (the better of
    Ridge and HuberRegressor, test-chosen), singles and diffprivlib, with the table's training
    rows."""
    singles = {k: m for k in cell.acc if k in REGRESSION_LEARNERS and REGRESSION_LEARNERS[k].single
               and (m := cell.mean(k)) is not None}
    dpl = {k: m for k in cell.acc if k.startswith("diffprivlib:") and (m := cell.mean(k)) is not None}
    bases = [m for k in (NON_PRIVATE, NON_PRIVATE_HUBER) if (m := cell.mean(k)) is not None]
    return {"table": cell.table, "epsilon": cell.epsilon, "delta": cell.delta, "n_train": n_train,
            "rule": cell.mean(rule_label), "mean": cell.mean(MEAN),
            "non_private": max(bases) if bases else None, "singles": singles, "diffprivlib": dpl}


def regression_criteria(cells: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The regression criteria over per-cell R² means (each a :func:`regression_cell_means`).

    (a) ``below_floor``: cells where the rule's R² < −R2_SLACK; (b) ``near_non_private``:
    cells where rule >= NON_PRIVATE_RATIO × non-private, over the cells with ε >=
    RATIO_MIN_EPSILON, n_train >= RATIO_MIN_ROWS and a positive non-private R²
    (``with_non_private``); (c) ``at_least_diffprivlib``: cells where rule >= diffprivlib −
    R2_SLACK, over the cells with diffprivlib; (d) ``near_half``: cells where rule >=
    HALF_RATIO × non-private, over the cells with ε = HALF_EPSILON, n_train >= HALF_MIN_ROWS
    and a positive non-private R² (``with_half``). Cells where the rule has no mean (refused,
    missing) are counted in ``no_rule`` and in none of the four.
    """
    out: dict[str, Any] = {"cells": len(cells), "no_rule": 0, "below_floor": 0,
                           "below_floor_cells": [], "near_non_private": 0, "with_non_private": 0,
                           "below_ratio_cells": [], "at_least_diffprivlib": 0,
                           "with_diffprivlib": 0, "near_half": 0, "with_half": 0,
                           "below_half_cells": []}
    for c in cells:
        rule, non_private = c["rule"], c["non_private"]
        where = (c["table"], c["epsilon"], c["delta"])
        if rule is None:
            out["no_rule"] += 1
            continue
        if rule < -R2_SLACK - TOL:
            out["below_floor"] += 1
            out["below_floor_cells"].append(where)
        # (b) and (d): a share of the non-private R², on the cells of their ε and size
        for applies, ratio, near, within, below in (
                (c["epsilon"] >= RATIO_MIN_EPSILON and c["n_train"] >= RATIO_MIN_ROWS,
                 NON_PRIVATE_RATIO, "near_non_private", "with_non_private", "below_ratio_cells"),
                (c["epsilon"] == HALF_EPSILON and c["n_train"] >= HALF_MIN_ROWS,
                 HALF_RATIO, "near_half", "with_half", "below_half_cells")):
            if applies and non_private is not None and non_private > 0:
                out[within] += 1
                if rule >= ratio * non_private - TOL:
                    out[near] += 1
                else:
                    out[below].append(where)
        if c["diffprivlib"]:
            out["with_diffprivlib"] += 1
            out["at_least_diffprivlib"] += rule >= max(c["diffprivlib"].values()) - R2_SLACK - TOL
    for k, m in (("near_non_private", "with_non_private"),
                 ("at_least_diffprivlib", "with_diffprivlib"), ("near_half", "with_half")):
        out[f"{k}_share"] = out[k] / out[m] if out[m] else None
    return out


def show_r2(r2: Cell, mae: Cell, learner: str) -> str:
    """A regression cell: "R² mean ± se (MAE mean)", a refusal's text, or "–"."""
    s = r2.stat(learner)
    if not isinstance(s, tuple):
        return "–" if s is None else s
    m = mae.mean(learner)
    return f"{_r2(s[0])} ± {_r2(s[1])}" + ("" if m is None else f" ({m:.3g})")


def regression_table_of(table: str, r2_cells: Sequence[Cell], mae_cells: Sequence[Cell],
                        infos: dict, rule: str, rule_label: str = "rule") -> harness.Table:
    """One regression table's markdown table: a row per learner and baseline, a column per (ε, δ)."""
    pairs = [(c, m) for c, m in zip(r2_cells, mae_cells, strict=True) if c.table == table]
    info = next(v for (t, _), v in infos.items() if t == table)
    seeds = pairs[0][0].seeds
    lo, hi = info["label_range"]
    cols = [f"ε={c.epsilon:g}, δ={'1/n²' if c.delta == '1/n2' else c.delta}" for c, _ in pairs]
    t = harness.Table(f"{table}: n train / test {info['n_train']} / {info['n_test']}, d = "
                      f"{info['d']}, label range [{lo:g}, {hi:g}]; seeds {seeds[0]}..{seeds[-1]} "
                      f"({len(seeds)})", ["learner", *cols])
    learners = list(dict.fromkeys(k for c, _ in pairs for k in c.acc))
    reg = REGRESSION_LEARNERS
    others = [k for k in learners if k in reg and not reg[k].single and k != rule]
    singles = [k for k in learners if k in reg and reg[k].single]
    t.add(f"**rule: {rule}**", *(show_r2(c, m, rule_label) for c, m in pairs))
    for k in [*others, *singles]:
        t.add(reg[k].label or k, *(show_r2(c, m, k) for c, m in pairs))
    for k in (k for k in learners if k.startswith("diffprivlib:")):
        t.add("diffprivlib LinearRegression, pure ε", *(show_r2(c, m, k) for c, m in pairs))
    t.add(f"{harness.NON_PRIVATE} (scikit-learn Ridge)", *(show_r2(c, m, NON_PRIVATE) for c, m in pairs))
    t.add(f"{harness.NON_PRIVATE} (scikit-learn HuberRegressor)",
          *(show_r2(c, m, NON_PRIVATE_HUBER) for c, m in pairs))
    t.add(f"training mean (a constant prediction, the {harness.MAJORITY}'s analogue; non-private)",
          *(show_r2(c, m, MEAN) for c, m in pairs))
    t.notes.append("Test R², mean ± standard error over the seeds; in brackets the mean test MAE "
                   "in the label's units (after the table's label transform).")
    return t


def _r2(value: float | None) -> str:
    """An R² to three decimals; one of 1,000 or more in size (a diverged fit) to three digits."""
    if value is None:
        return "–"
    return f"{value:.3f}" if abs(value) < 1000 else f"{value:.3g}"


def regression_summary_lines(r2_cells: Sequence[Cell], crit: dict[str, Any], rule: str,
                             n_train: dict[str, int], dpl_where: str) -> list[str]:
    """Per-cell R² gaps and the regression criteria, as markdown lines."""
    lines = [f"## Summary: rule `{rule}` (test R²)", "",
             "| table | n train | ε | δ | rule | rule − mean | non-private (best) | rule / non-private "
             "| best single (test-chosen) | diffprivlib | rule − diffprivlib |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for c in r2_cells:
        m = regression_cell_means(c, n_train[c.table])
        rule_r2, non_private = m["rule"], m["non_private"]
        best = max(m["singles"].items(), key=lambda kv: kv[1]) if m["singles"] else None
        dpl = max(m["diffprivlib"].values()) if m["diffprivlib"] else None
        ratio = (f"{rule_r2 / non_private:.2f}" if rule_r2 is not None and non_private
                 and non_private > 0 else "–")
        lines.append(
            f"| {c.table} | {m['n_train']} | {c.epsilon:g} | {c.delta} | {_r2(rule_r2)} | "
            f"{_pts_r2(rule_r2, m['mean'])} | {_r2(non_private)} | {ratio} | "
            f"{f'{best[1]:.3f} ({best[0]})' if best else '–'} | {_r2(dpl)} | "
            f"{_pts_r2(rule_r2, dpl)} |")
    ratio_cells = crit["below_ratio_cells"]
    lines += ["", f"Cells: {crit['cells']} ({crit['no_rule']} without a rule mean: refused or missing).",
              f"(a) rule R² below −{R2_SLACK:g}: {crit['below_floor']} cell(s)"
              + (f" {crit['below_floor_cells']}" if crit["below_floor_cells"] else "") + ".",
              f"(b) rule R² >= {NON_PRIVATE_RATIO:g} × non-private R² at ε >= {RATIO_MIN_EPSILON:g} "
              f"on tables with >= {RATIO_MIN_ROWS:,} training rows (non-private R² > 0): "
              f"{crit['near_non_private']} / {crit['with_non_private']} = "
              f"{_pct(crit['near_non_private_share'])}"
              + (f"; below: {ratio_cells}" if ratio_cells else "") + ".",
              f"(c) rule R² >= diffprivlib's − {R2_SLACK:g} (LinearRegression, pure ε): "
              + (f"{crit['at_least_diffprivlib']} / {crit['with_diffprivlib']} = "
                 f"{_pct(crit['at_least_diffprivlib_share'])}." if crit["with_diffprivlib"]
                 else f"not measured ({dpl_where})."),
              f"(d) rule R² >= {HALF_RATIO:g} × non-private R² at ε = {HALF_EPSILON:g} on tables "
              f"with >= {HALF_MIN_ROWS:,} training rows (non-private R² > 0): {crit['near_half']} / "
              f"{crit['with_half']} = {_pct(crit['near_half_share'])}"
              + (f"; below: {crit['below_half_cells']}" if crit["below_half_cells"] else "") + "."]
    return lines


def _pts_r2(rule: float | None, other: float | None) -> str:
    return "–" if rule is None or other is None else f"{rule - other:+.3f}"


def regression_overview_lines(r2_cells: Sequence[Cell], columns: Sequence[str],
                              labels: dict[str, str], n_train: dict[str, int]) -> list[str]:
    """Mean test R² per table × ε, one markdown table per δ: a column per learner and ε, then
    the baselines."""
    epsilons = list(dict.fromkeys(c.epsilon for c in r2_cells))
    lines: list[str] = []
    for dspec in dict.fromkeys(c.delta for c in r2_cells):
        mine = {(c.table, c.epsilon): c for c in r2_cells if c.delta == dspec}
        head = [f"{labels.get(k, k)} ε={e:g}" for k in columns for e in epsilons]
        base = [(NON_PRIVATE, "non-private Ridge"), (NON_PRIVATE_HUBER, "non-private Huber"),
                (MEAN, "mean")]
        lines += ["", f"## Mean test R² per table × ε (δ = {'1/n²' if dspec == '1/n2' else dspec})",
                  "", "| table | n train | " + " | ".join([*head, *(b for _, b in base)]) + " |",
                  "|---|---|" + "---|" * (len(head) + len(base))]
        for table in dict.fromkeys(c.table for c in r2_cells):
            row = [_r2(mine[(table, e)].mean(k)) for k in columns for e in epsilons]
            row += [_r2(mine[(table, epsilons[0])].mean(b)) for b, _ in base]
            lines.append(f"| {table} | {n_train[table]} | " + " | ".join(row) + " |")
    return lines


# ---------------------------------------------------------------------------- main
def quick_tables(task: str = "classification") -> list[str]:
    """One binary and one multiclass table (the first of each), else the first two; for
    regression the first two regression tables."""
    names = list(corpus.tables(task))
    if task == "regression":
        return names[:2]
    two = [n for n in names if len(corpus.TABLES[n].class_names) == 2][:1]
    many = [n for n in names if len(corpus.TABLES[n].class_names) > 2][:1]
    return (two + many) if two and many else names[:2]


def parser() -> Any:
    ap = harness.parser(__doc__)
    ap.add_argument("--task", choices=corpus.TASKS, default="classification",
                    help="the classification tables (default) or the regression tables")
    ap.add_argument("--tables", nargs="*", default=None,
                    help="corpus table names, or binary / multiclass, or check (the task's "
                         "held-out check tables; with --seeds check) (default: all)")
    ap.add_argument("--seeds", choices=("selection", "report", "check"), default="selection",
                    help="corpus.SELECTION_SEEDS, REPORT_SEEDS or (check tables only) CHECK_SEEDS")
    ap.add_argument("--n-seeds", type=int, default=None, help="the first K seeds only")
    ap.add_argument("--epsilons", nargs="*", type=float, default=[0.5, 1.0, 2.0])
    ap.add_argument("--deltas", nargs="*", default=["0", "1/n2"], help='"0", "1/n2" or numbers')
    ap.add_argument("--learners", nargs="*", default=None,
                    help=f"names ({', '.join(LEARNERS)}; regression: "
                         f"{', '.join(REGRESSION_LEARNERS)}, front_door or a dpconvex regressor's "
                         f"class name) or module:function factories (default: "
                         f"{' '.join(DEFAULT_LEARNERS)}; regression: front_door if dpconvex has "
                         f"it, {' '.join(DEFAULT_REGRESSION_LEARNERS)})")
    ap.add_argument("--rule", default="front_door",
                    help="the scored column: a learner, a rule (library) or module:function "
                         f"(regression: a learner; front_door falls back to "
                         f"{FALLBACK_REGRESSION_RULE} when dpconvex has no {FRONT_DOOR_REGRESSOR})")
    ap.add_argument("--diffprivlib", action="store_true", help="add diffprivlib (benchmarks/.venv)")
    ap.add_argument("--procs", type=int, default=1, help="processes over (table, seed)")
    ap.add_argument("--tag", default=None, help="cache key (default: the dpconvex commit)")
    ap.add_argument("--ceiling-from", choices=("selection", "report"), default=None,
                    help="score also, per cell, the single learner best on this other seed "
                         "set's fits in the same cache (the column 'ceiling')")
    ap.add_argument("--centered", action="store_true",
                    help="encode every table with its schema centered (PublicSchema(centered=True): "
                         "numeric features on [-1/2, 1/2]; files named -centered)")
    ap.add_argument("--train-rows", type=int, default=None, metavar="M",
                    help="fit on a seeded subsample of M training rows (tables with fewer are "
                         "left out); the test rows stay whole")
    return ap


@dataclasses.dataclass(frozen=True)
class Plan:
    """What one run fits: the task, its learners, the rule column, tables, seeds, the grid."""

    task: str
    learners: list[str]
    rule: str
    tables: list[str]
    seeds: list[int]
    epsilons: list[float]
    deltas: list[str]
    notes: tuple[str, ...] = ()


def _learners_and_rule(args: Any) -> tuple[list[str], str, tuple[str, ...]]:
    """Registered learners and rule of the task (raises KeyError, ImportError, AttributeError)."""
    if args.task == "classification":
        learners = [register(s) for s in (args.learners or DEFAULT_LEARNERS)]
        rule = register(args.rule, rule=True)
        if args.quick and args.learners is None:
            learners = list(dict.fromkeys([*([rule] if rule in LEARNERS else []), "front_door",
                                           "logistic"]))
        return learners, rule, ()
    notes: tuple[str, ...] = ()
    learners = [register_regression(s) for s in (args.learners or default_regression_learners())]
    rule_spec = args.rule
    if rule_spec == "front_door" and not dpconvex_has(FRONT_DOOR_REGRESSOR):
        rule_spec = FALLBACK_REGRESSION_RULE
        notes = (f"dpconvex has no {FRONT_DOOR_REGRESSOR}: the rule column is "
                 f"{FALLBACK_REGRESSION_RULE} ({REGRESSION_LEARNERS[rule_spec].label})",)
    return learners, register_regression(rule_spec), notes


def plan_of(ap: Any, args: Any) -> Plan:
    """The run's :class:`Plan` from the parsed arguments (``ap.error`` on a bad one)."""
    for dspec in args.deltas:
        if dspec != "1/n2":
            try:
                float(dspec)
            except ValueError:
                ap.error(f"--deltas takes 0, 1/n2 or numbers, got {dspec!r}")
    try:
        learners, rule, notes = _learners_and_rule(args)
    except (KeyError, ImportError, AttributeError) as exc:
        ap.error(str(exc).strip("'\""))
    if rule in registry(args.task) and rule not in learners:
        learners.insert(0, rule)
    seeds = list({"selection": corpus.SELECTION_SEEDS, "report": corpus.REPORT_SEEDS,
                  "check": corpus.CHECK_SEEDS}[args.seeds])
    known = corpus.tables(args.task)
    task_check = corpus.check_tables(args.task)
    groups = {"binary": [t for t, v in corpus.TABLES.items() if len(v.class_names) == 2],
              "multiclass": [t for t, v in corpus.TABLES.items() if len(v.class_names) > 2],
              "check": list(task_check)}
    tables = list(dict.fromkeys(x for t in (args.tables or list(known)) for x in groups.get(t, [t])))
    check_task = {n: task for task in corpus.TASKS for n in corpus.check_tables(task)}
    check = [t for t in tables if t in check_task]
    if check:
        tasks = sorted({check_task[t] for t in check})
        if args.seeds != "check" or len(check) < len(tables) or tasks != [args.task]:
            ap.error(f"the check tables {check} run alone, with --task {tasks[0]} --seeds check"
                     if len(tasks) == 1 else
                     f"the check tables {check} are of both checks; run each alone, with its "
                     "--task and --seeds check")
        known = task_check
    elif args.seeds == "check":
        ap.error("--seeds check is for the check tables only (--tables check)")
    if args.ceiling_from is not None and args.ceiling_from == args.seeds:
        ap.error(f"--ceiling-from names the other seed set: the run is on the {args.seeds} seeds")
    epsilons, deltas = list(args.epsilons), list(args.deltas)
    if args.quick:
        tables = tables if args.tables else quick_tables(args.task)
        seeds, epsilons, deltas = seeds[:1], [1.0], ["0"]
    if args.n_seeds:
        seeds = seeds[: args.n_seeds]
    unknown = [t for t in tables if t not in known]
    if unknown or not tables:
        ap.error(f"unknown or no tables {unknown}; the {args.task} corpus has {sorted(known)}")
    return Plan(args.task, learners, rule, tables, seeds, epsilons, deltas, notes)


def _fit_all(run: harness.Run, plan: Plan, args: Any, cache: Path, tag: str,
             dpl_python: str | None) -> dict[tuple[str, int], dict[str, Any]]:
    """Fit what the cache lacks, over (table, seed) in ``--procs`` processes; the splits' facts."""
    done: dict[tuple[str, int], set] = {}
    for r in read_cache(cache, tag):
        done.setdefault((r["table"], r["seed"]), set()).add(cache_key(r)[2:])
    jobs = [{"task": plan.task, "table": t, "seed": s, "tag": tag, "quick": args.quick,
             "train_rows": args.train_rows, "epsilons": plan.epsilons, "deltas": plan.deltas,
             "learners": plan.learners, "rule": plan.rule, "dpl_python": dpl_python,
             "done": done.get((t, s), set())}
            for t in plan.tables for s in plan.seeds]
    infos: dict[tuple[str, int], dict[str, Any]] = {}
    if args.procs > 1 and len(jobs) > 1:
        pool = mp.get_context("fork").Pool(min(args.procs, len(jobs)))
        results = pool.imap_unordered(run_split, jobs)
    else:
        pool, results = None, map(run_split, jobs)
    try:
        for info, rows in results:
            infos[(info["table"], info["seed"])] = info
            with cache.open("a", encoding="utf-8") as fh:
                fh.writelines(json.dumps(r) + "\n" for r in rows)
            print(f"{info['table']} seed {info['seed']}: "
                  + (f"split failed ({info['error']})" if "error" in info else
                     f"left out ({info['skipped']})" if "skipped" in info else
                     f"{len(rows)} new fit(s), {info['seconds']:.1f} s"), flush=True)
            if "diffprivlib_error" in info:
                run.note(f"{info['table']} seed {info['seed']}: diffprivlib failed "
                         f"({info['diffprivlib_error']}); its cells lack diffprivlib")
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    return infos


def _score_classification(run: harness.Run, plan: Plan, records: list[dict[str, Any]],
                          infos: dict, shown: list[str], ceiling: Sequence[int] = ()) -> None:
    cells = build_cells(records, infos, plan.epsilons, plan.deltas, plan.rule, shown)
    for t in plan.tables:
        run.table(table_of(t, cells, infos, plan.rule))
    crit = criteria([cell_means(c) for c in cells])
    for line in summary_lines(cells, crit, plan.rule):
        run.note(line)
    if ceiling:
        read = add_ceiling(cells, records, ceiling, lambda k: k in LEARNERS and LEARNERS[k].single)
        top = criteria([cell_means(c, CEILING) for c in cells])
        run.note(f"(f) {CEILING}, per cell the single learner best on the seeds {read}: "
                 f"regret <= 1 point in {top['regret_1pt']} / {top['with_singles']} = "
                 f"{_pct(top['regret_1pt_share'])}, <= 3 points in {top['regret_3pt']}; below the "
                 f"majority class by > 0.5 points in {top['below_majority']}; >= diffprivlib's "
                 f"best − 0.5 in {top['near_diffprivlib']} / {top['with_diffprivlib']} "
                 f"({top['no_rule']} cell(s) without it).")
        run.data["ceiling_criteria"] = top
        oracle = oracle_resample(cells, records, lambda k: k in LEARNERS and LEARNERS[k].single)
        run.note(f"(g) an oracle knowing each cell's best single learner (its mean over both seed "
                 f"sets; optimistic), scored on {ORACLE_DRAWS} resamples of {len(plan.seeds)} seeds: regret "
                 f"<= 1 point in {oracle['regret_1pt_mean']:.1f} of {oracle['cells']} cells on "
                 f"average; >= 95 % of the cells in {oracle['draws_95pct_within_1pt']:.0%} of the "
                 f"draws; every cell <= 3 points in {oracle['draws_all_within_3pt']:.1%}.")
        run.data["oracle_resample"] = oracle
    run.data.update(criteria=crit, cells=[{**cell_means(c), "stats": {k: c.stat(k) for k in c.acc}}
                                          for c in cells])


def _score_regression(run: harness.Run, plan: Plan, records: list[dict[str, Any]], infos: dict,
                      shown: list[str], dpl_where: str, ceiling: Sequence[int] = ()) -> None:
    r2 = build_cells(records, infos, plan.epsilons, plan.deltas, plan.rule, shown, metric="r2")
    mae = build_cells(records, infos, plan.epsilons, plan.deltas, plan.rule, shown, metric="mae")
    n_train = {t: infos[(t, plan.seeds[0])]["n_train"] for t in plan.tables}
    for t in plan.tables:
        run.table(regression_table_of(t, r2, mae, infos, plan.rule))
    crit = regression_criteria([regression_cell_means(c, n_train[c.table]) for c in r2])
    for line in regression_summary_lines(r2, crit, plan.rule, n_train, dpl_where):
        run.note(line)
    if ceiling:
        read = add_ceiling(r2, records, ceiling,
                           lambda k: k in REGRESSION_LEARNERS and REGRESSION_LEARNERS[k].single, "r2")
        top = regression_criteria([regression_cell_means(c, n_train[c.table], CEILING) for c in r2])
        run.note(f"(e) {CEILING}, per cell the single learner best on the seeds {read}: "
                 f"R² below −{R2_SLACK:g} in {top['below_floor']}; >= {NON_PRIVATE_RATIO:g} × "
                 f"non-private in {top['near_non_private']} / {top['with_non_private']}; >= "
                 f"{HALF_RATIO:g} × in {top['near_half']} / {top['with_half']} "
                 f"({top['no_rule']} cell(s) without it).")
        run.data["ceiling_criteria"] = top
    columns = [*plan.learners, *sorted({k for c in r2 for k in c.acc if k.startswith("diffprivlib:")})]
    labels = {k: "diffprivlib LR" if k.startswith("diffprivlib:") else k for k in columns}
    for line in regression_overview_lines(r2, columns, labels, n_train):
        run.note(line)
    run.data.update(criteria=crit, cells=[
        {**regression_cell_means(c, n_train[c.table]), "stats": {k: c.stat(k) for k in c.acc},
         "mae": {k: m.stat(k) for k in m.acc}} for c, m in zip(r2, mae, strict=True)])


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Run the harness (arguments as on the command line); returns the run's data."""
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = parser()
    args = ap.parse_args(argv)
    plan = plan_of(ap, args)
    tag = args.tag or default_tag()
    part = "-".join(p for p in ("regression" if plan.task == "regression" else "",
                                "check" if args.seeds == "check" else "",
                                f"rows{args.train_rows}" if args.train_rows else "",
                                "centered" if args.centered else "") if p)
    corpus.CENTERED = args.centered  # before any table is read (the fork pool inherits it)
    run_name = ("corpus_run" + (f"-{part}" if part else "")
                + ("-quick" if args.quick else ""))  # the name harness.Run gives its files
    cache = Path(args.out) / f"{run_name}.jsonl"
    cache.parent.mkdir(parents=True, exist_ok=True)
    with harness.Run(__file__, args, argv, part) as run:
        dpl_python, dpl_where = diffprivlib_python() if args.diffprivlib else (None, "not asked")
        for note in plan.notes:
            run.note(note)
        run.note(f"task {plan.task}; tag {tag}; tables {plan.tables}; seeds {plan.seeds}; "
                 f"ε {plan.epsilons}; δ {plan.deltas}; learners {plan.learners}; rule {plan.rule}; "
                 f"diffprivlib: {dpl_where}; procs {args.procs}")
        if args.diffprivlib and dpl_python is None:
            run.note(f"diffprivlib skipped: {dpl_where}")
        infos = _fit_all(run, plan, args, cache, tag, dpl_python)
        failed = sorted({t for (t, _), v in infos.items() if "error" in v})
        if failed:
            run.note(f"left out (a split failed): {failed}")
        small = sorted({t for (t, _), v in infos.items() if "skipped" in v})
        if small:
            run.note(f"left out (fewer than {args.train_rows} training rows): {small}")
        tables = [t for t in plan.tables if t not in failed and t not in small]
        if not tables:
            raise RuntimeError(f"no table left to score: splits failed {failed}, fewer training "
                               f"rows than --train-rows {small}")
        plan = dataclasses.replace(plan, tables=tables)
        infos = {(t, s): infos[(t, s)] for t in tables for s in plan.seeds}
        shown = [*plan.learners, *(["diffprivlib"] if dpl_python else [])]
        records = read_cache(cache, tag)
        ceiling = list({"selection": corpus.SELECTION_SEEDS, "report": corpus.REPORT_SEEDS,
                        None: ()}[args.ceiling_from])
        if plan.task == "regression":
            _score_regression(run, plan, records, infos, shown, dpl_where, ceiling)
        else:
            _score_classification(run, plan, records, infos, shown, ceiling)
        run.data.update(task=plan.task, tag=tag, tables=tables, seeds=plan.seeds, rule=plan.rule,
                        learners=plan.learners, splits=list(infos.values()))
    return run.data


if __name__ == "__main__":
    main()
