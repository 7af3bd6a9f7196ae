"""Dask input for :class:`~dpconvex.estimators.large_margin.estimator.PrivateLargeMarginGaussian`.

The estimator's ``fit``, ``certify`` and ``class_scores`` call these functions when X is a
Dask collection. The records stay on the workers: every chunk applies the estimator's own
per-record maps (``_train_z``) and, for K > 1, the nearest-public-center assignment (a rule
reading only the record and public centers). The template is the in-memory one over a
:class:`~dpconvex.data.dask_gram.DaskGram` (the loss and its gradient summed per chunk in
one pass per solver iteration); the solver, noise, calibration and residual check run on the
driver from public parameters (docs/privacy/data_backends.md#privacy-large-margin-dask).
DP k-means and the non-private GMM read the data set as a whole and are refused by name.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import TYPE_CHECKING, Any

import dask.array as da
import numpy as np

from ...data.dask_gram import DaskGram
from ...data.dask_rows import compute
from ...data.validation import LabelSet, check_array, zero_rows
from ...errors import ParameterError
from ...privacy.certificate import Certificate
from ...privacy.release import release
from ...privacy.rules.large_margin import (
    resolved_components,
    single_component,
    uses_centroid,
)
from ...templates.statistics import assign_nearest
from ..base import NO_CONTEXT, FitContext, Prepared, check_context
from .centroid import certify_centroid, clip_and_map, prepared_rows
from .components import assign_components
from .learners import LargeMarginFacts, build_template, fit_budget, fit_states, objective_budget

if TYPE_CHECKING:
    from ...privacy.rules.large_margin import LargeMarginSettings

__all__ = ["DASK_ASSIGNMENTS", "build_dask", "certify_dask", "class_scores_dask"]

#: Component assignments available on Dask input (per-record rules).
DASK_ASSIGNMENTS = (None, "nearest_public_center")


# --------------------------------------------------------- per-chunk kernels (run on workers)
def _chunk_labels(stub: LabelSet, L: np.ndarray) -> LabelSet:
    dropped = L[:, 1].astype(bool)
    return dataclasses.replace(
        stub, index=L[:, 0].astype(np.int64), outside=dropped, dropped=dropped
    )


# A chunk of ``_with_records``: the d feature columns, then (class index, dropped).
def _z_block(block: np.ndarray, est: LargeMarginSettings, stub: LabelSet) -> np.ndarray:
    labels = _chunk_labels(stub, block[:, -2:])
    clipped = clip_and_map(est, zero_rows(block[:, :-2], labels.dropped))[0]
    return np.asarray(est._train_z(clipped, labels), dtype=float)


def _components_block(
    block: np.ndarray, centers: np.ndarray, est: LargeMarginSettings
) -> np.ndarray:
    labels = block[:, -2:]
    clipped = clip_and_map(est, zero_rows(block[:, :-2], labels[:, 1].astype(bool)))[0]
    return assign_nearest(clipped, labels[:, 0].astype(np.int64), centers)


def _scores_block(block: np.ndarray, est: LargeMarginSettings) -> np.ndarray:
    # an ndarray chunk: the in-memory code (its names checked)
    return est._scores(block, "class_scores")


# ------------------------------------------------------------------------------ build
def _shippable(est: LargeMarginSettings) -> Any:
    """A shallow copy of the estimator to send to the workers: without its ledger (a
    ledger refuses to be pickled, so that no copy records spends) and its noise source."""
    shipped = copy.copy(est)
    shipped.accountant, shipped.random_state = None, None
    return shipped


def _with_records(rows: da.Array, labels: LabelSet) -> da.Array:
    """The rows with two columns appended, (class index, dropped), chunked like the rows.

    Both are small integers, exact in float64; every chunk splits them off again.
    """
    records = np.column_stack([labels.index, labels.dropped]).astype(float)
    record_columns = da.from_array(records, chunks=(rows.chunks[0], (2,)), name=False)
    return da.concatenate([rows, record_columns], axis=1).rechunk({1: -1})


def build_dask(est: LargeMarginSettings, X: Any, y: Any, *, persist: bool | None = None,
               lam: float | None = None, context: FitContext = NO_CONTEXT) -> Prepared:
    """The estimator's ``prepare`` for Dask X: the same template over a :class:`DaskGram`.

    ``lam``: Λ of the fit's plan (None: the rule is applied here); ``context``: the fit's.
    y (n labels) is brought to the driver, the rows never are. Raises ParameterError for a
    ``component_assignment`` other than None / "nearest_public_center" with K > 1.
    """
    owner = type(est).__name__
    check_context(context, f"{owner}.prepare")  # before the rows are read (the fit issued it)
    method = est.component_assignment
    if not single_component(est) and method not in DASK_ASSIGNMENTS:
        raise ParameterError(
            f"The 'component_assignment' parameter of {owner} must be None or "
            "'nearest_public_center' (a per-record rule) on Dask input with n_components > 1. "
            f"Got {method!r} instead, which reads the whole data set at once. Pass X.compute() "
            "if the rows fit in memory, or use public centers (centers=...)."
        )
    # the rows and labels as the fit (or dry run) validated them, else validated here
    data = context.data or est._validated(X, y, context)
    X_checked, y_checked, labels = data.X, data.y, data.labels
    n, d = (int(size) for size in X_checked.shape)
    C = int(labels.classes.size)
    K = resolved_components(est, n, C, d)
    q = float(est.data_norm)
    facts = LargeMarginFacts(n_components=K, n_rows=n,
                             rows=prepared_rows(est, X_checked),  # lazy, per chunk
                             y=y_checked)
    # DP class centroids (privacy-centroid-switch): summed per chunk
    if uses_centroid(est, n, C, d):
        return Prepared(template=None, labels=labels, reusable=False, meta=facts)
    rows_with_records = _with_records(X_checked, labels)
    # per chunk, ``outside`` holds the records that contribute no loss (the dropped column)
    stub = dataclasses.replace(labels, index=np.zeros(0, np.int64), outside=np.zeros(0, bool),
                               dropped=np.zeros(0, bool))
    # the assignment's description and centers from the public rule; components per chunk
    assignment = assign_components(method, np.zeros((1, d)), np.zeros(1, np.int64), C, K,
                                   data_norm=q, centers=est.centers)
    if K == 1:
        components = np.zeros(n, dtype=np.int64)
    else:
        parts = rows_with_records.map_blocks(_components_block, centers=assignment.centers,
                                             est=_shippable(est), drop_axis=1, dtype=np.int64)
        components = np.asarray(compute(parts)[0], dtype=np.int64)
    assignment = dataclasses.replace(assignment, components=components)
    width = int(
        est._train_z(np.zeros((1, d)), _chunk_labels(stub, np.zeros((1, 2), np.int64))).shape[1]
    )
    Z = rows_with_records.map_blocks(_z_block, est=_shippable(est), stub=stub,
                                     chunks=(X_checked.chunks[0], (width,)), dtype=float)
    mechanism = est._mechanism()  # the in-memory build's template, over the Dask records
    template = build_template(est, DaskGram(Z, persist=persist), labels.index, components, C, K,
                              assignment.description, mechanism,
                              objective_budget(est, mechanism, assignment.epsilon, n), lam=lam)
    return Prepared(template=template, labels=labels, reusable=True,
                    meta=dataclasses.replace(facts, assign=assignment))


def certify_dask(est: LargeMarginSettings, X: Any, y: Any, lam: float | None,
                 context: FitContext = NO_CONTEXT) -> Certificate:
    """The estimator's ``certify`` for Dask X (checks and calibration, no noise drawn), with
    the plan's Λ (``lam``, for lam="auto") and what a fit states."""
    prep = build_dask(est, X, y, context=context)
    if prep.template is None:
        return certify_centroid(est, prep.meta.rows, prep.meta.y, context)
    if lam is not None:
        prep.template.regularizer = type(prep.template.regularizer)(lam)
    mechanism = est._mechanism()
    budget = fit_budget(est, mechanism, float(est.epsilon), prep.template.n)
    certificate = release(prep.template, mechanism, budget, dry_run=True, vouch=est.vouch,
                          vouch_unused="ignore").certificate
    facts = prep.meta
    certificate.state(*fit_states(est, prep.template, prep.labels.assumption, facts.n_rows,
                                  prep.labels.classes.size, int(X.shape[1])))
    return certificate


def class_scores_dask(est: LargeMarginSettings, X: Any, caller: str | None = None) -> np.ndarray:
    """The estimator's ``class_scores`` per chunk of a Dask X; (n, C) numbers to the driver
    (``caller``: the method named in errors, default ``class_scores``)."""
    X_checked = check_array(X, caller or f"{type(est).__name__}.class_scores", accept_dask=True,
                            n_features=est.n_features_in_)
    C = int(est.Phi_.shape[0])
    scores = X_checked.map_blocks(_scores_block, est=_shippable(est),
                                  chunks=(X_checked.chunks[0], (C,)), dtype=float)
    return np.asarray(compute(scores)[0], dtype=float)
