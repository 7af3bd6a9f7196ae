"""Rows held in a Dask array, split into row chunks: the out-of-core design operator.

:class:`DaskRows` answers the :class:`~dpconvex.data.operators.DesignOperator` products with
the rows left on the workers: each chunk runs the in-memory operator's own code and the partials are summed in
a fixed tree, so only vectors of length n or p and the p×p Gram reach the driver; the per-record maps run
lazily per chunk (docs/privacy/data_backends.md#privacy-data-backends: what runs where, failures and
timeouts). When the rows are persisted on the workers and when they are recomputed on every pass:
docs/guide/dask.md#dask-memory (:data:`PERSIST_FRACTION`). Every blocking computation on a distributed cluster
(:func:`compute`) is bounded by the Dask config values ``dpconvex.dask.timeout`` (:data:`COMPUTE_TIMEOUT`) and
``dpconvex.dask.no-workers-timeout`` (:data:`NO_WORKERS_TIMEOUT`); past either it releases the computation's
futures (the scheduler drops the tasks no client holds) and raises
:class:`~dpconvex.errors.SolverError`.
"""

from __future__ import annotations

import contextlib
import copy
import math
import time
import warnings
from collections.abc import Callable
from functools import partial
from typing import Any, Protocol

import dask
import dask.array as da
import numpy as np
import scipy.sparse as sp

from .._validation import check_matrix_body, check_numeric_dtype, conversion_failure
from ..errors import (
    DataTypeError,
    DataValidationError,
    DPConvexError,
    ParameterError,
    SolverError,
    record_diagnostic,
)
from ..privacy.certificate import RowMap
from .operators import (
    _SPARSE_MAX_DENSITY,
    _SPARSE_MIN_ENTRIES,
    CSRRows,
    DenseRows,
    ScaledRows,
    clip_scale,
)
from .preprocess import add_intercept as _add_intercept
from .preprocess import clip_rows as _clip_dense_rows

__all__ = [
    "COMPUTE_TIMEOUT",
    "NO_WORKERS_TIMEOUT",
    "PERSIST_FRACTION",
    "DaskRows",
    "check_dask",
    "compute",
    "known_chunks",
    "persist",
    "split_rows",
    "wait_persisted",
    "whole_rows",
]

#: The preprocessed rows are persisted on the workers when they take at most this
#: fraction of the cluster's worker memory (docs/guide/dask.md#dask-memory).
PERSIST_FRACTION = 0.4
#: Seconds one blocking computation on a distributed cluster may take (Dask config
#: ``dpconvex.dask.timeout`` overrides it).
COMPUTE_TIMEOUT = 600.0
#: Seconds a computation may wait while the scheduler has no worker (Dask config
#: ``dpconvex.dask.no-workers-timeout``).
NO_WORKERS_TIMEOUT = 30.0
#: Seconds between two looks at the cluster while a computation runs.
_POLL = 0.5


# --------------------------------------------------------- per-chunk kernels (run on workers)
# A chunk B (an ndarray, or CSR after ``compact``) runs the in-memory operator's arithmetic
# (``_op``). ``s``, its row scaling ((c, 1), or None), is folded into the vectors when every
# s_i is in {-1, 0, 1} (``signs``: exact, the same terms in the same order, no scaled copy);
# otherwise the rows are formed per task by ``scale_rows``.
def _op(B: Any, s: np.ndarray | None = None) -> Any:
    op = B if isinstance(B, ScaledRows) else CSRRows(B) if sp.issparse(B) else DenseRows(B)
    return op if s is None else op.scale_rows(s[:, 0])


def _signed(B: Any, s: np.ndarray | None, signs: bool) -> tuple[Any, np.ndarray | None]:
    """(the chunk's operator, the signs s_i kept out of it, or None: the factors are in it)."""
    if s is not None and signs:
        return _op(B), s[:, 0]
    return _op(B, s), None


#: Rows with norms up to this are clipped inside the products (:func:`_implicit_block`), as
#: the in-memory linear learners do; beyond it a chunk is clipped on a copy.
_IMPLICIT_MAX_NORM = 1e100



class MarginLoss(Protocol):
    """What the chunk sums read of a loss of the rows' products m_i = a_iᵀw: a margin loss
    ℓ(m) (the labels folded into the rows as signs), or a loss of the prediction ℓ(z, y) of
    ``kind`` "regression", which also reads the rows' labels (:meth:`DaskRows.with_labels`)."""

    def value_and_deriv(self, m: np.ndarray, *labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(ℓ, ∂ℓ/∂m) at the products m (and the labels of their rows, for a regression loss)."""
        ...

    def deriv2(self, m: np.ndarray, *labels: np.ndarray) -> np.ndarray:
        """∂²ℓ/∂m² at the products m (and the labels of their rows, for a regression loss)."""
        ...


def _implicit_block(B: np.ndarray, bound: float, value: float | None, s: np.ndarray | None) -> Any:
    """The chunk clipped to ``bound``, with the intercept column ``value``, as the in-memory
    learners' :class:`~dpconvex.data.operators.ScaledRows` (on a copy if the norms of its kept
    rows could overflow; a row whose factor in ``s`` is 0, a record left out, is zeroed unread)."""
    rows = DenseRows(B)
    norms = rows.row_norms()
    dropped = np.zeros(len(B), dtype=bool) if s is None else s[:, 0] == 0
    if not (np.all(norms[~dropped] <= _IMPLICIT_MAX_NORM) and bound >= 1.0 / _IMPLICIT_MAX_NORM):
        out = _clip_block(B, bound)
        return out if value is None else _add_intercept(out, value=value)
    column = None if value is None else np.where(dropped, 0.0, value)
    factors = np.where(dropped, 0.0, clip_scale(norms, bound)[0])
    return ScaledRows(rows, factors, column)


def _matvec_block(B: Any, s: np.ndarray | None, signs: bool, w: np.ndarray) -> np.ndarray:
    op, sign = _signed(B, s, signs)
    with np.errstate(over="ignore", invalid="ignore"):  # a worker's: the driver redoes such rows
        return op.matvec(w) if sign is None else op.matvec(w) * sign


def _rmatvec_block(B: Any, s: np.ndarray | None, signs: bool, v: np.ndarray) -> np.ndarray:
    if s is not None and signs:
        v = v * s
    elif s is not None:
        B = _op(B, s).matrix
    if isinstance(B, ScaledRows):  # the factors applied to v, the chunk read in place
        return np.asarray(B.rmatvec(v[:, 0]))[None, :]
    return np.asarray(B.T @ v[:, 0])[None, :]  # CSR: the CSC transpose, no conversion


def _gram_block(B: Any, s: np.ndarray | None, signs: bool, d: np.ndarray) -> np.ndarray:
    op, sign = _signed(B, s, signs)
    return op.weighted_gram(d[:, 0] if sign is None else d[:, 0] * (sign * sign))[None, :, :]


def _margin_block(B: Any, s: np.ndarray | None, signs: bool, w: np.ndarray, loss: MarginLoss,
                  gradient: bool, start: int, step: int, labels: np.ndarray | None = None
                  ) -> np.ndarray:
    """One chunk's [Σ ℓ(m_i), |S|, Σ ℓ'(m_i) a_i, Σ_{i∈S} ℓ''(m_i) a_i a_iᵀ], m = A w, flat
    (a_i = s_i x_i; S, ``labels``: :meth:`DaskRows.margin_sums`)."""
    op, sign = _signed(B, s, signs)
    sign = None if sign is None else sign.astype(float)
    p = w.shape[0]
    out = np.zeros(2 + p + (p * p if step else 0))
    if gradient:
        def weights(mb: np.ndarray, rows: slice) -> np.ndarray:  # per block of rows, in cache
            if sign is not None:
                mb *= sign[rows]  # the margins of the signed rows (kept in m)
            value, d1 = loss.value_and_deriv(mb, *(() if labels is None else (labels[rows],)))
            out[0] += float(np.sum(value))
            return d1 if sign is None else d1 * sign[rows]

        fused = getattr(op, "matvec_rmatvec", None)
        if fused is not None:
            m, out[2:2 + p] = fused(w, weights)
        else:
            m = op.matvec(w)
            out[2:2 + p] = op.rmatvec(weights(m, slice(0, m.shape[0])))
    else:
        m = op.matvec(w)
        if sign is not None:
            m = m * sign
    if step and start < m.shape[0]:
        d2 = loss.deriv2(m[start::step], *(() if labels is None else (labels[start::step],)))
        if sign is not None:
            d2 = d2 * (sign[start::step] * sign[start::step])
        out[1] = d2.shape[0]
        out[2 + p:] = _op(_every_block(B, start, step), None if s is None or signs
                          else s[start::step]).weighted_gram(d2).ravel()
    return out


def _margin_source_block(B: np.ndarray, s: np.ndarray | None, signs: bool, w: np.ndarray,
                         loss: MarginLoss, gradient: bool, start: int, step: int,
                         labels: np.ndarray | None = None, *, bound: float, value: float | None
                         ) -> np.ndarray:
    """:func:`_margin_block` of a recomputed chunk, clipped (:func:`_implicit_block`) in the task."""
    rows = _implicit_block(B, bound, value, s)
    return _margin_block(rows, s, signs, w, loss, gradient, start, step, labels)


def _sum_parts(*parts: np.ndarray) -> np.ndarray:
    out = np.array(parts[0], dtype=float, copy=True)
    for part in parts[1:]:
        out += part
    return out


def _norms_block(B: Any, s: np.ndarray | None, signs: bool) -> np.ndarray:
    op, sign = _signed(B, s, signs)
    return op.row_norms() if sign is None else op.row_norms() * np.abs(sign)


def _max_norm_block(B: Any, s: np.ndarray | None, signs: bool) -> float:
    return float(np.max(_norms_block(B, s, signs), initial=0.0))


def _every_block(B: Any, start: int, step: int) -> Any:
    if isinstance(B, ScaledRows):
        return ScaledRows(DenseRows(B.base.matrix[start::step]), B.scale[start::step],
                          None if B.column is None else B.column[start::step])
    return B[start::step]


def _compact_block(B: np.ndarray, s: np.ndarray | None) -> Any:
    """The chunk as the in-memory operator would store it (CSR when mostly zero), a row whose
    factor in ``s`` is 0 (a record left out) neither counted nor stored."""
    kept = np.ones(len(B)) if s is None else (s[:, 0] != 0) * 1.0
    return ScaledRows(DenseRows(B), kept).compact().base.matrix


def _stored_bytes(B: Any) -> int:
    if sp.issparse(B):
        return int(B.data.nbytes + B.indices.nbytes + B.indptr.nbytes)
    return int(B.nbytes)


def _compact_bytes(B: np.ndarray, s: np.ndarray | None) -> int:
    """Bytes of ``_compact_block(B, s)`` (int64 CSR indices), without building it."""
    nnz = int(np.count_nonzero(B if s is None else B[s[:, 0] != 0]))
    if B.size >= _SPARSE_MIN_ENTRIES and nnz <= _SPARSE_MAX_DENSITY * B.size:
        return 16 * nnz + 8 * (B.shape[0] + 1)
    return 8 * B.size


def _clip_block(B: np.ndarray, bound: float) -> np.ndarray:
    return _clip_dense_rows(B, bound)[0]


def _map_block(B: np.ndarray, f: Callable[[np.ndarray], Any], width: int) -> np.ndarray:
    out = np.asarray(f(B), dtype=float)
    if out.shape != (B.shape[0], width):
        raise ValueError(
            f"DaskRows.map_rows: a per-record map must return one row of {width} values per "
            f"record: got shape {out.shape} for a chunk of {B.shape[0]} rows. Map each record "
            "to one row of the width the map declares."
        )
    return out


def _nonfinite_block(B: np.ndarray) -> np.ndarray:
    return np.array([np.count_nonzero(~np.isfinite(B))])


def _float_block(B: Any, caller: str, name: str, block_info: dict | None = None) -> np.ndarray:
    """A chunk of the rows as float64, refused by name unless it is what the array's metadata
    declares: a NumPy array (not, e.g., a scipy.sparse matrix from ``from_delayed``) of its
    shape holding numbers, read as the in-memory path reads a NumPy array
    (:func:`~dpconvex._validation.check_numeric_dtype`: text, dates, complex numbers and
    missing values refused; no entry is quoted)."""
    if not isinstance(B, np.ndarray):
        raise _dense_chunks_only(B, caller, name)
    declared = tuple(int(hi - lo) for lo, hi in block_info[0]["array-location"])
    if B.shape != declared:
        raise _ChunkUnlikeMetadata(
            f"{caller}: a chunk of {name} does not have the shape {declared} the Dask array's "
            "metadata declares (its shape: dpconvex.collect_diagnostics). Make every chunk the "
            "shape its metadata declares (the chunks= of da.from_delayed or map_blocks), or "
            "declare unknown sizes (np.nan) to have them measured.", B.shape, caller, name)
    if B.dtype == np.float64:
        return B
    check_numeric_dtype(B, caller, name)
    return _as_float(B, caller, name)


def _frame_block(part: Any, columns: list[Any], caller: str, name: str,
                 lengths: tuple[int, ...] | None = None,
                 partition_info: dict | None = None) -> Any:
    """A partition of a Dask DataFrame as float64 columns, refused by name unless it holds the
    ``columns`` its metadata declares, in their order, of numbers (read as the in-memory path
    reads a pandas DataFrame: its values checked by
    :func:`~dpconvex._validation.check_numeric_dtype`; no entry is quoted), and the rows
    ``lengths`` declares for it (measured once by :func:`check_dask`: a source that yields
    other rows on a later pass is refused by the declared length alone)."""
    if lengths is not None and partition_info is not None:
        declared = lengths[int(partition_info["number"])]
        if len(part) != declared:
            raise _ChunkUnlikeMetadata(
                f"{caller}: a partition of {name} does not hold the {declared} rows it held "
                "when its lengths were measured (its rows: dpconvex.collect_diagnostics). "
                "Make every pass over the partitions read the same rows (a deterministic "
                "source; or persist the DataFrame first).", part.shape, caller, name)
    if list(part.columns) != columns:
        held = (f"{part.shape[1]} column(s) where the metadata declares {len(columns)}"
                if part.shape[1] != len(columns) else "other column names or another order")
        raise _unlike_metadata(caller, name, held)
    if all(_numeric_dtype(t) for t in part.dtypes):  # pandas' nullable ones too (NA: NaN)
        return part if all(t == np.float64 for t in part.dtypes) else part.astype("float64")
    values = np.asarray(part)  # object, or the one dtype of the columns (dates)
    check_numeric_dtype(values, caller, name, inferred=True)
    return type(part)(_as_float(values, caller, name), index=part.index, columns=part.columns)


def _numeric_dtype(t: Any) -> bool:
    """Whether a column's dtype is of real numbers (bool, int, float; pandas' nullable ones)."""
    from pandas.api.types import is_complex_dtype, is_numeric_dtype

    return bool(is_numeric_dtype(t) and not is_complex_dtype(t))


def _as_float(values: np.ndarray, caller: str, name: str) -> np.ndarray:
    """Checked values (of numbers) as float64; a failed conversion refused by its type alone
    (:func:`~dpconvex._validation.conversion_failure`: its text may quote an entry)."""
    try:
        with np.errstate(over="ignore"):  # beyond float64: inf, refused by the finiteness count
            return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError, OverflowError) as exc:
        raise DataTypeError(
            f"{caller}: {name} must be a 2-D array of numbers (n_samples, n_features); a chunk "
            f"could not be converted to float: {conversion_failure(exc)}. Encode categorical "
            "columns first.") from None


def _unlike_metadata(caller: str, name: str, held: str) -> DataValidationError:
    return DataValidationError(
        f"{caller}: a partition of {name} does not hold what its Dask metadata declares "
        f"({held}). Make every partition hold the declared columns, in the declared order, "
        "of the declared dtypes (e.g. part[columns].astype(dtypes) in map_partitions), or "
        "declare what the partitions hold in meta=.")


#: How Dask's own check of a partition against its metadata opens its refusal (the columns;
#: in ``from_delayed(verify_meta=True)``, their dtypes too).
_DASK_META_REFUSALS = ("Metadata mismatch found",
                       "The columns in the computed data do not match the columns in the "
                       "provided metadata")


class _ChunkUnlikeMetadata(DataValidationError):
    """A chunk of another shape than its metadata declares (or a partition of other rows than
    measured), raised in its task: the message names the declared shape only; the chunk's own
    (``held``: a group's size when the chunks follow an attribute of the records) goes to the
    diagnostics of ``caller`` on the caller's side (:func:`_named_refusal`), where a task's
    collector is not open. It never reaches the caller: :func:`compute` and :func:`persist`
    raise the named :class:`DataValidationError` in its place."""

    def __init__(self, message: str, held: tuple[int, ...] | None, caller: str = "",
                 name: str = "X"):
        super().__init__(message)
        self.held, self.caller, self.name = held, caller, name

    def __reduce__(self) -> tuple:  # from a distributed worker: the message and the shape
        return type(self), (self.args[0], self.held, self.caller, self.name)


def _named_refusal(run: Callable[..., Any], *args: Any) -> Any:
    """``run(*args)``, a :class:`_ChunkUnlikeMetadata` raised in its tasks turned into the
    named :class:`DataValidationError` (its message alone): the chunk's shape goes to the
    diagnostics, and the refusal is raised outside the handler, so neither its context nor a
    traceback frame keeps the task's exception or the chunk it read."""
    try:
        return run(*args)
    except _ChunkUnlikeMetadata as exc:
        message, caller, note = (exc.args[0], exc.caller,
                                 f"a chunk of {exc.name} has shape {exc.held}")
    record_diagnostic(caller or "dpconvex.data.dask_rows", note)
    raise DataValidationError(message)


@contextlib.contextmanager
def _declared_partitions(caller: str, name: str) -> Any:
    """Turn Dask's own refusal of a partition unlike its metadata (a ValueError), and a
    chunk's of another shape than declared, into a DataValidationError naming only what is
    declared; the text naming columns and dtypes, or the chunk's shape, goes to the
    diagnostics."""
    try:
        yield
    except _ChunkUnlikeMetadata as exc:
        record_diagnostic(caller, f"a chunk of {name} has shape {exc.held}")
        # the refusal below has this one as its context (it is raised in the with statement's
        # handling of it): the chunk's shape and the frames reading the chunk are dropped first
        exc.held = None
        exc.with_traceback(None)
        raise DataValidationError(exc.args[0]) from None
    except DPConvexError:
        raise
    except ValueError as exc:
        if not str(exc).startswith(_DASK_META_REFUSALS):
            raise
        record_diagnostic(caller, f"Dask refused a partition: {exc}")
        raise _unlike_metadata(caller, name, "Dask's own check refused its columns or their "
                               "dtypes; its text: dpconvex.collect_diagnostics") from None


def _dense_chunks_only(chunk: Any, caller: str, name: str) -> DataTypeError:
    kind = f"{type(chunk).__module__.split('.')[0]} {type(chunk).__name__}"
    return DataTypeError(
        f"{caller}: {name} is a Dask array of {kind} chunks, and the Dask backend reads dense "
        "NumPy "
        f"chunks. Make them dense ({name}.map_blocks(lambda b: b.toarray()) for scipy.sparse "
        "chunks) "
        "if the dense chunks fit in the workers' memory, or pass the rows in memory as a SciPy "
        "CSR "
        "matrix (read without densifying)."
    )


def _part_block(B: Any, part: np.ndarray, i: int) -> Any:
    return B[part == i]


# ------------------------------------------------------------------------------ helpers
#: Partial sums are added in groups of this many per task (a tree over the chunks).
_FAN_IN = 8


def _delayed(f: Callable[..., Any]) -> Any:
    return dask.delayed(f, pure=False)


def _in_tree(parts: list[Any], add: Callable[..., Any]) -> Any:
    """The partials added by ``add`` in a fixed tree, ``_FAN_IN`` per node."""
    while len(parts) > 1:
        parts = [add(*parts[i:i + _FAN_IN]) for i in range(0, len(parts), _FAN_IN)]
    return parts[0]


def _tree_sum(parts: list[Any]) -> Any:
    """One Delayed sum of the per-chunk partials, added in a fixed tree on the cluster."""
    return _in_tree(parts, _delayed(_sum_parts))


#: The per-chunk partials of a product are brought to the driver and added there when they
#: take at most this many bytes together (else they are added on the cluster).
_DRIVER_SUM_BYTES = 64 << 20


def _reduce(parts: list[Any], nbytes: int) -> np.ndarray:
    """Σ of the per-chunk partials (``nbytes`` each), in the fixed tree of :func:`_tree_sum`:
    on the driver, same groups and order, when at most :data:`_DRIVER_SUM_BYTES` together."""
    if len(parts) * nbytes > _DRIVER_SUM_BYTES:
        return np.asarray(compute(_tree_sum(parts))[0])
    return np.asarray(_in_tree(list(compute(*parts)), _sum_parts))


def _timeouts(caller: str) -> tuple[float, float]:
    """(timeout, no-workers timeout) in seconds, from the Dask config;
    ``caller`` (the public function waiting) opens the message of a bad value."""
    out = []
    for key, default in (("dpconvex.dask.timeout", COMPUTE_TIMEOUT),
                         ("dpconvex.dask.no-workers-timeout", NO_WORKERS_TIMEOUT)):
        v = dask.config.get(key, default=default)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not (0 < v < math.inf):
            raise ParameterError(f"{caller}: the Dask config value {key!r} must be a finite "
                                 f"number of seconds > 0. Got {v!r} instead; set it with "
                                 f"dask.config.set({{{key!r}: 600}}).")
        out.append(float(v))
    return out[0], out[1]


def _distributed_client(collections: tuple[Any, ...]) -> Any:
    """The ``distributed.Client`` that ``dask.compute`` would use for ``collections``, or None."""
    try:
        from distributed import Client
    except ImportError:  # pragma: no cover - distributed is a dependency
        return None
    from dask.base import get_scheduler

    sched = get_scheduler(collections=[c for c in collections if dask.is_dask_collection(c)])
    client = getattr(sched, "__self__", sched)  # ``Client.get``, bound to its client
    return client if isinstance(client, Client) else None


def _no_workers(client: Any) -> bool:
    try:
        return not client.scheduler_info()["workers"]
    except Exception:  # the scheduler itself is unreachable: no worker either
        return True


def _timed_out(caller: str, what: str, seconds: float, key: str) -> SolverError:
    return SolverError(
        f"{caller}: the Dask cluster {what} {seconds:g} s ({key}); the computation was cancelled, "
        "no "
        "model is released (the budget is charged only if the fit had drawn its noise: "
        "docs/privacy/messages.md#privacy-refusal-charge). Check that the cluster has live "
        f"workers (client.wait_for_workers(1)), or allow more time with dask.config.set("
        f"{{{key!r}: seconds}}), then fit again."
    )


def _wait(caller: str, client: Any, futures: list[Any], timeout: float, idle_limit: float) -> None:
    """Wait for ``futures`` within the timeouts; release them and raise SolverError past one.

    Released, not cancelled: a release travels on the client's ordered stream, so the next fit's graph, which
    may hold the same keys (the same rows and products), reaches the scheduler after it; ``client.cancel`` is
    a separate message that can overtake that graph and cancel the next fit's futures.
    """
    from distributed import wait

    t0 = time.monotonic()
    idle_since: float | None = None
    try:
        while True:
            now = time.monotonic()
            if now - t0 >= timeout:
                raise _timed_out(caller, "did not finish a computation within", timeout,
                                 "dpconvex.dask.timeout")
            try:
                wait(futures, timeout=min(_POLL, timeout - (now - t0)))
                return
            except TimeoutError:
                pass
            if _no_workers(client):
                idle_since = time.monotonic() if idle_since is None else idle_since
                if time.monotonic() - idle_since >= idle_limit:
                    raise _timed_out(caller, "has had no worker for", idle_limit,
                                     "dpconvex.dask.no-workers-timeout")
            else:
                idle_since = None
    except BaseException:  # timed out, or interrupted: the futures are not waited for
        with contextlib.suppress(Exception):
            for future in futures:
                future.release()
        raise


@contextlib.contextmanager
def _cluster_failures(caller: str, during: str, fix: str) -> Any:
    """Turn a cluster's failure (``KilledWorker``, a lost connection, ...) into a SolverError."""
    try:
        yield
    except DPConvexError:
        raise
    except Exception as exc:
        if not _cluster_failure(exc):
            raise
        from ..errors import record_diagnostic  # its text names tasks, whose keys hash the data

        record_diagnostic(caller, f"the Dask cluster failed: {type(exc).__name__}: {exc}")
        raise SolverError(f"{caller}: the Dask cluster failed {during} ({type(exc).__name__}; "
                          f"its text: dpconvex.collect_diagnostics). {fix}") from None


def compute(*arrays: Any) -> tuple[Any, ...]:
    """``dask.compute`` within the timeouts (futures on a distributed cluster: the same tasks);
    SolverError when the cluster gave up (e.g. ``KilledWorker``), timed out or has no worker;
    DataValidationError (named, no data in its message or context) when a chunk or partition
    is unlike what was declared or measured (:func:`_named_refusal`)."""
    return _named_refusal(_compute, *arrays)


def persist(*collections: Any) -> tuple[Any, ...]:
    """``dask.persist``, a chunk or partition unlike what was declared or measured refused as
    :func:`compute` refuses it (the local schedulers compute while persisting).

    Parameters
    ----------
    *collections : Dask collections
        What to persist, as ``dask.persist`` takes them.

    Returns
    -------
    tuple
        The persisted collections, in the order given.

    Raises
    ------
    DataValidationError
        A chunk or partition held other rows or another shape than its metadata declared or
        its lengths were measured at; nothing of it in the message or the exception's context
        (its shape goes to :func:`~dpconvex.collect_diagnostics`).

    Examples
    --------
    >>> import dask.array as da
    >>> from dpconvex.data.dask_rows import persist
    >>> (X,) = persist(da.ones((4, 2), chunks=2))
    >>> float(X.sum().compute())
    8.0
    """
    return _named_refusal(dask.persist, *collections)


def _compute(*arrays: Any) -> tuple[Any, ...]:
    """:func:`compute` without the conversion of :class:`_ChunkUnlikeMetadata`."""
    with _cluster_failures(
            "compute", "during a distributed product",
            "Dask retries a task on another worker and recomputes lost chunks from their "
            "source, and gave up here; no model is released (the budget is charged only if "
            "the fit had drawn its noise: docs/privacy/messages.md#privacy-refusal-charge). "
            "Restart the workers (client.restart()) or give them more memory "
            "(LocalCluster(memory_limit=...)), then fit again."), warnings.catch_warnings():
        # the n-vectors of a product travel with its graph
        warnings.filterwarnings("ignore", "Sending large graph", UserWarning)
        client = _distributed_client(arrays)
        if client is None:
            return dask.compute(*arrays)
        limits = _timeouts("compute")
        pieces = [_pieces(a) for a in arrays]
        flat = [p for ps, _ in pieces for p in ps]
        futures = {f.key: f for f in client.compute(flat)}
        _wait("compute", client, list(futures.values()), *limits)
        values = dict(zip(futures, client.gather(list(futures.values())), strict=True))
        return tuple(_joined([values[p.key] for p in ps], grid) for ps, grid in pieces)


def _pieces(x: Any) -> tuple[list[Any], Any]:
    """A collection as delayed pieces and how to join their values: (pieces, grid).

    Fetched one by one and joined on the client (``client.compute`` would join them in one
    worker task, which a result over its memory limit restarts). ``grid``: the array's block
    grid; "frame": partitions in order; None: one value.
    """
    from dask.delayed import Delayed

    if isinstance(x, da.Array):
        delayed = x.to_delayed()
        return list(delayed.ravel()), delayed.shape
    module = type(x).__module__
    if module.startswith("dask.dataframe") or module.startswith("dask_expr"):
        return list(x.to_delayed()), "frame"
    return [x if isinstance(x, Delayed) else dask.delayed(x)], None


def _joined(values: list[Any], grid: Any) -> Any:
    """The values of :func:`_pieces` joined in their order."""
    if grid is None:
        return values[0]
    if grid == "frame":
        import pandas as pd

        return pd.concat(values)
    blocks = np.empty(len(values), dtype=object)
    blocks[:] = values
    return np.block(blocks.reshape(grid).tolist())


def wait_persisted(collections: list[Any]) -> None:
    """Wait, within the timeouts of :func:`compute`, for persisted collections to be in memory
    (a chunk unlike its metadata refused as :func:`compute` refuses it)."""
    _named_refusal(_wait_persisted, collections)


def _wait_persisted(collections: list[Any]) -> None:
    """:func:`wait_persisted` without the conversion of :class:`_ChunkUnlikeMetadata`."""
    from distributed import futures_of

    client = _distributed_client(tuple(collections))
    futures = futures_of(collections)
    if client is None or not futures:
        return
    limits = _timeouts("wait_persisted")
    with _cluster_failures("wait_persisted", "while storing the rows",
                           "No model is released (the budget is charged only if the fit "
                           "had drawn its noise: "
                           "docs/privacy/messages.md#privacy-refusal-charge). Restart the "
                           "workers, then fit again."):
        _wait("wait_persisted", client, futures, *limits)


def _chunk_shape(B: Any) -> np.ndarray:
    return np.array(B.shape, dtype=np.int64)[(None,) * B.ndim]


def whole_rows(X: da.Array) -> da.Array:
    """``X`` with known chunk sizes (:func:`known_chunks`) and one chunk along the columns."""
    X = known_chunks(X)
    return X.rechunk({1: -1}) if len(X.chunks[1]) > 1 else X


def known_chunks(X: da.Array) -> da.Array:
    """``X`` with its chunk sizes known: ``X.compute_chunk_sizes()`` within the timeouts.

    Like ``compute_chunk_sizes``, sets the sizes on ``X`` itself (the caller's layout; n is public).
    """
    if not any(math.isnan(c) for cs in X.chunks for c in cs):
        return X
    shapes = X.map_blocks(_chunk_shape, dtype=np.int64, new_axis=X.ndim,
                          chunks=tuple(len(c) * (1,) for c in X.chunks) + ((X.ndim,),))
    grid = compute(shapes)[0]
    sizes = []
    for i in range(X.ndim):
        at: list[Any] = [0] * X.ndim + [i]
        at[i] = slice(None)
        sizes.append(tuple(int(v) for v in grid[tuple(at)]))
    X._chunks = tuple(sizes)
    return X


def split_rows(X: da.Array, part: np.ndarray, k: int) -> list[da.Array]:
    """The rows of ``X`` (n, p) in each of the parts 0, ..., k - 1, lazily per chunk, in row order.

    ``part[i]``, a public assignment (drawn independently of the data), is the part of row i
    (another value: no part); part j is a Dask array of the rows with ``part == j``, selected on
    the workers (labels ``y[part == j]``). Nothing is computed here.
    """
    X = whole_rows(X)
    part = np.asarray(part)
    if part.shape != (X.shape[0],):
        raise ValueError(f"split_rows: expected one part per row ({X.shape[0]}); got shape "
                         f"{part.shape}. Pass one part index per row of X.")
    part = part.astype(np.min_scalar_type(k), copy=False)
    bounds = np.cumsum((0, *X.chunks[0]))
    pieces = [part[lo:hi] for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)]
    counts = [np.bincount(pc, minlength=k) for pc in pieces]
    held = persist(*[dask.delayed(pc, pure=True) for pc in pieces])
    blocks = X.to_delayed().ravel()
    out = []
    for j in range(k):
        rows = [da.from_delayed(_delayed(_part_block)(b, lab, j), shape=(int(c[j]), X.shape[1]),
                                dtype=X.dtype)
                for b, lab, c in zip(blocks, held, counts, strict=True) if c[j]]
        if not rows:
            rows = [da.zeros((0, X.shape[1]), dtype=X.dtype)]
        out.append(da.concatenate(rows, axis=0) if len(rows) > 1 else rows[0])
    return out


def _cluster_failure(exc: BaseException) -> bool:
    import asyncio
    import concurrent.futures

    names = {"KilledWorker", "FutureCancelledError", "FuturesCancelledError", "CommClosedError"}
    return (isinstance(exc, (asyncio.CancelledError, concurrent.futures.CancelledError,
                             ConnectionError, TimeoutError))
            or any(c.__name__ in names for c in type(exc).__mro__))


def _cluster_memory() -> float:
    """Bytes of memory the rows may use: the workers' ``memory_limit`` summed, else this machine's."""
    import psutil

    try:
        from distributed import default_client

        client = default_client()
    except (ImportError, ValueError):
        return float(psutil.virtual_memory().available)
    workers = client.scheduler_info()["workers"].values()
    limits = [float(w.get("memory_limit") or 0) for w in workers]
    if not limits or min(limits) <= 0:  # no limit set: the machine's memory
        return float(psutil.virtual_memory().total)
    return float(sum(limits))


class DaskRows:
    """Rows held in a ``dask.array.Array`` with row chunks; products summed on the workers.

    Parameters
    ----------
    X : dask.array.Array of shape (n, p)
        The rows (converted to float64 lazily; columns in one chunk). The row chunking is the
        caller's choice, kept (public: the certificate records it).
    persist : bool or None, default=None
        Whether :meth:`compact` persists the rows on the workers; None applies
        the rule of docs/guide/dask.md#dask-memory.

    Attributes
    ----------
    n, p : int
    n_chunks : int
        Number of row chunks.
    persisted : bool
        Whether the rows are persisted (set by :meth:`compact`).
    """

    _caches = ("_memo",)  # the last product X w

    is_sparse = False
    #: The rows stay on the Dask workers: backends that need them in one process's
    #: memory (CVXPY) refuse this operator (:attr:`dpconvex.solvers.registry.Backend.in_memory`).
    in_memory = False

    def __init__(self, X: Any, *, persist: bool | None = None):
        self._scale: list[np.ndarray] | None = None  # per-chunk row scaling (int8 if signs)
        self._signs = False  # every scale factor in {-1, 0, 1}: folded into the vectors
        self._scale_tasks: list[Any] | None = None  # the factors persisted on the workers
        self._labels: list[Any] | None = None  # per-chunk labels on the workers (with_labels)
        if not isinstance(X, da.Array):
            raise TypeError(f"DaskRows.__init__: needs a dask.array.Array; got "
                            f"{type(X).__name__}. Pass dask.array.from_array(X).")
        if X.ndim != 2:
            raise ValueError(f"DaskRows.__init__: needs a 2-D array; got shape {X.shape}. "
                             "Pass the rows as a 2-D Dask array.")
        X = whole_rows(X)
        self.X = X if X.dtype == np.float64 else X.astype(np.float64)
        self.n, self.p = (int(s) for s in X.shape)
        self.persist = persist
        self.persisted = False
        self._memo: tuple[bytes, np.ndarray] | None = None
        self._delayed_blocks: list[Any] | None = None
        # (unclipped rows, bound, intercept or None): rows that are recomputed per pass are
        # clipped and augmented inside the products (_implicit_block), not on a copy
        self._implicit: tuple[da.Array, float, float | None] | None = None

    # --------------------------------------------------------------- description
    @property
    def matrix(self) -> da.Array:
        """The (lazy) Dask array of the rows."""
        if self._scale is None:
            return self.X
        s = np.concatenate(self._scale).astype(float)  # (n, 1): B * s per chunk
        return self.X * da.from_array(s, chunks=(self.X.chunks[0], (1,)), name=False)

    @property
    def n_chunks(self) -> int:
        return len(self.X.chunks[0])

    @property
    def nbytes(self) -> int:
        return 8 * self.n * self.p

    @property
    def certificate_note(self) -> RowMap:
        """The certificate's backend fact (Dask; not its chunking)."""
        return RowMap(dask=True)

    # ------------------------------------------------------------------ products
    def matvec(self, w: np.ndarray) -> np.ndarray:
        """X w, shape (n,), on the driver (read-only; the last one is kept for a repeat call)."""
        w = np.ascontiguousarray(w, dtype=float)
        key = w.tobytes()
        if self._memo is not None and self._memo[0] == key:
            return self._memo[1]
        m = np.concatenate(compute(*[_delayed(_matvec_block)(b, s, self._signs, w)
                                      for b, s in self._pairs()]))
        m.flags.writeable = False
        self._memo = (key, m)
        return m

    def rmatvec(self, v: np.ndarray) -> np.ndarray:
        """Xᵀ v, shape (p,): per-chunk X_cᵀ v_c, summed on the cluster."""
        parts = [
            _delayed(_rmatvec_block)(b, s, self._signs, vc)
            for (b, s), vc in zip(self._pairs(), self._split(v, "DaskRows.rmatvec"), strict=True)
        ]
        return np.array(_reduce(parts, 8 * self.p)[0])

    def weighted_gram(self, d: np.ndarray) -> np.ndarray:
        """Σ_i d_i x_i x_iᵀ, a dense (p, p) array: per-chunk Grams summed on the cluster."""
        parts = [
            _delayed(_gram_block)(b, s, self._signs, dc)
            for (b, s), dc in zip(
                self._pairs(), self._split(d, "DaskRows.weighted_gram"), strict=True
            )
        ]
        return np.array(_reduce(parts, 8 * self.p * self.p)[0])

    def margin_sums(self, w: np.ndarray, loss: MarginLoss, *, gradient: bool = True, step: int = 0
                    ) -> tuple[float, np.ndarray | None, np.ndarray | None, int]:
        """(Σ_i ℓ(m_i), Σ_i ℓ'(m_i) a_i, Σ_{i∈S} ℓ''(m_i) a_i a_iᵀ, |S|) at the margins m_i = a_iᵀw.

        One pass; S = rows 0, step, 2·step, ... (:meth:`every`; no Gram when ``step`` is 0; no
        value or gradient without ``gradient``); a loss of the prediction reads :meth:`with_labels`.

        Raises
        ------
        ParameterError
            A loss of the prediction on rows that hold no labels.
        """
        w = np.ascontiguousarray(w, dtype=float)
        p, step = self.p, int(step)
        lows = np.cumsum((0, *self.X.chunks[0]))[:-1]
        pairs = self._pairs()
        labels: list[Any] = [None] * self.n_chunks
        if getattr(loss, "kind", "margin") == "regression":  # ℓ(z, y) reads a label per row
            if self._labels is None:
                raise ParameterError(
                    f"DaskRows.margin_sums: loss '{getattr(loss, 'name', type(loss).__name__)}' "
                    "reads a label per row, and these rows hold none. Attach the labels with "
                    "rows.with_labels(y) first.")
            labels = self._labels
        kernel: Callable[..., np.ndarray] = _margin_block
        if self._implicit is not None and not self.persisted:
            # recomputed rows: clipped inside the same task as the sums (no stored chunk between)
            source, bound, value = self._implicit
            kernel = partial(_margin_source_block, bound=bound, value=value)
            pairs = list(zip(source.to_delayed().ravel(), (s for _, s in pairs), strict=True))
        parts = [_delayed(kernel)(b, s, self._signs, w, loss, gradient,
                                  int(-lo % step) if step else 0, step, lab)
                 for (b, s), lo, lab in zip(pairs, lows, labels, strict=True)]
        total = np.asarray(_reduce(parts, 8 * (2 + p + (p * p if step else 0))))
        grad = total[2:2 + p].copy() if gradient else None
        gram = total[2 + p:].reshape(p, p).copy() if step else None
        return float(total[0]), grad, gram, int(round(total[1]))

    def with_labels(self, y: np.ndarray) -> DaskRows:
        """The same rows (and products) with a label per row, sent to the workers once, for a
        loss of the prediction ℓ(z_i, y_i) in :meth:`margin_sums`."""
        pieces = [c[:, 0] for c in self._split(y, "DaskRows.with_labels")]
        out = copy.copy(self)
        out._labels = list(persist(*[dask.delayed(c) for c in pieces]))
        return out

    def chunk_sum(self, k: Callable[..., Any], *a: Any) -> np.ndarray:
        """Σ over the chunks of k(chunk, its row scaling, signs, *a)[0]: one pass, tree-summed."""
        return compute(_tree_sum([_delayed(k)(b, s, self._signs, *a)
                                  for b, s in self._pairs(arrays=True)]))[0][0]

    def row_norms(self) -> np.ndarray:
        """||x_i||_2 for every row, shape (n,) (the overflow-safe dense kernel per chunk)."""
        return np.concatenate(
            compute(*[_delayed(_norms_block)(b, s, self._signs) for b, s in self._pairs()])
        )

    def max_row_norm(self) -> float:
        """max_i ||x_i||_2, taken per chunk on the workers (one pass; no vector of length n)."""
        tops = compute(*[_delayed(_max_norm_block)(b, s, self._signs) for b, s in self._pairs()])
        return float(np.max(np.asarray(tops, dtype=float), initial=0.0))  # a NaN stays NaN

    # ------------------------------------------------------------ per-record maps
    def scale_rows(self, s: np.ndarray) -> DaskRows:
        """Row i times s_i, lazily per chunk, over the same (persisted) chunks.

        Factors in {-1, 0, 1} (labels, zeroed records) are held as int8 (exact) on the workers;
        other factors travel with the tasks unless the rows are persisted.
        """
        s = np.asarray(s, dtype=float)
        signs = bool(np.all((s == 1.0) | (s == -1.0) | (s == 0.0)))
        if self._scale is not None:
            if not (signs and self._signs):  # scale the scaled rows (exactly as two maps would)
                return DaskRows(self.matrix, persist=self.persist).scale_rows(s)
            s = np.concatenate(self._scale)[:, 0] * s  # products of signs: exact
        out = DaskRows(self.X, persist=self.persist)
        out.persisted, out._implicit = self.persisted, self._implicit
        out._delayed_blocks = self._delayed_blocks
        pieces = self._split(s, "DaskRows.scale_rows")
        out._scale, out._signs = [c.astype(np.int8) for c in pieces] if signs else pieces, signs
        if self.persisted or signs:  # the factors go to the workers once, not with every product
            out._scale_tasks = list(persist(*[dask.delayed(c) for c in out._scale]))
        return out

    def map_rows(self, f: Callable[[np.ndarray], Any]) -> DaskRows:
        """Rows f(chunk of rows), lazily per chunk (f treats each row on its own; its width is
        read from f of one zero row)."""
        width = int(np.asarray(f(np.zeros((1, self.p)))).shape[1])
        X = self.matrix
        return DaskRows(X.map_blocks(_map_block, f=f, width=width, chunks=(X.chunks[0], (width,)),
                                     dtype=float), persist=self.persist)

    def clip(self, bound: float) -> DaskRows:
        """Rows with norm above the public ``bound`` scaled down to it (per chunk, lazily;
        recomputed rows are clipped inside the products, :func:`_implicit_block`)."""
        out = self.map_rows(partial(_clip_block, bound=float(bound)))
        if self._scale is None and self._implicit is None and not self.persisted:
            out._implicit = (self.X, float(bound), None)
        return out

    def add_intercept(self, value: float = 1.0) -> DaskRows:
        """A constant column ``value`` appended to every row (per chunk, lazily; after
        :meth:`clip`, inside the products as the clipping)."""
        out = self.map_rows(partial(_add_intercept, value=float(value)))
        if self._implicit is not None and self._implicit[2] is None and self._scale is None:
            out._implicit = (self._implicit[0], self._implicit[1], float(value))
        return out

    def every(self, step: int) -> DaskRows:
        """Rows 0, step, 2·step, ... (global positions; sliced on the workers, with their factors)."""
        step = int(step)
        bounds = np.cumsum((0, *self.X.chunks[0]))
        blocks, arrays, scale, sizes = [], [], [], []
        for i, (b, a, lo, hi) in enumerate(zip(self._blocks(), self.X.to_delayed().ravel(),
                                               bounds[:-1], bounds[1:], strict=True)):
            start = int(-lo % step)
            if start >= hi - lo:
                continue  # no row of this chunk is sampled
            blocks.append(_delayed(_every_block)(b, start, step))
            arrays.append(_delayed(_every_block)(a, start, step))
            sizes.append(len(range(start, int(hi - lo), step)))
            if self._scale is not None:  # the factors of those rows (int8 signs: n/step bytes)
                scale.append(self._scale[i][start::step])
        X = da.concatenate([da.from_delayed(a, shape=(c, self.p), dtype=np.float64)
                            for a, c in zip(arrays, sizes, strict=True)])
        out = DaskRows(X, persist=False)
        out.persisted, out._delayed_blocks = self.persisted, blocks
        if self._scale is not None:
            out._scale, out._signs = scale, self._signs
        return out

    def compact(self) -> DaskRows:
        """Persist the rows on the workers, in place, if their dense or compacted size fits
        (docs/guide/dask.md#dask-memory); return self."""
        if self.persisted or self.persist is False:
            return self
        budget = np.inf if self.persist else PERSIST_FRACTION * _cluster_memory()
        dense = list(
            zip(self.X.to_delayed().ravel(), self._scale or [None] * self.n_chunks, strict=True)
        )
        size = self.nbytes
        if size > budget:  # count the non-zeros: the CSR chunks may fit
            size = sum(compute(*[_delayed(_compact_bytes)(b, s) for b, s in dense]))
        if size <= budget:
            self._delayed_blocks = list(
                persist(*[_delayed(_compact_block)(b, s) for b, s in dense])
            )
            self.persisted, self._memo = True, None
        return self

    @property
    def stored_bytes(self) -> int:
        """Bytes of the persisted chunks (0 when they are recomputed on every pass)."""
        if not self.persisted:
            return 0
        return int(sum(compute(*[_delayed(_stored_bytes)(b) for b in self._blocks()])))

    # --------------------------------------------------------------------- helpers
    def _split(self, v: np.ndarray, caller: str) -> list[np.ndarray]:
        """A length-n vector cut along the row chunks, as (c, 1) columns (``caller``: the
        method reading it, for the message)."""
        v = np.asarray(v, dtype=float)
        if v.shape != (self.n,):
            raise ValueError(f"{caller}: expected a vector of length n = {self.n}; got shape "
                             f"{v.shape}. Pass one value per row.")
        return np.split(v[:, None], np.cumsum(self.X.chunks[0])[:-1])

    def _blocks(self) -> list[Any]:
        """The row chunks as Delayed objects (built once per array: the graph is reused):
        persisted chunks, or chunks recomputed per pass (clipped inside the products when
        :meth:`clip` allows it)."""
        if self._delayed_blocks is None:
            if self._implicit is not None:
                source, bound, value = self._implicit
                self._delayed_blocks = [
                    _delayed(_implicit_block)(b, bound, value, s)
                    for b, s in zip(
                        source.to_delayed().ravel(),
                        self._scale or [None] * self.n_chunks,
                        strict=True,
                    )
                ]
            else:
                self._delayed_blocks = list(self.X.to_delayed().ravel())
        return self._delayed_blocks

    def _pairs(self, arrays: bool = False) -> list[tuple[Any, np.ndarray | None]]:
        """(chunk, its row scaling or None) for every row chunk; ``arrays``: every chunk an
        array (for the kernels of :meth:`chunk_sum`), never a clipped-in-place one."""
        scale = self._scale_tasks or self._scale or [None] * self.n_chunks
        blocks = self._blocks()
        if arrays and self._implicit is not None and not self.persisted:
            blocks = list(self.X.to_delayed().ravel())
        return list(zip(blocks, scale, strict=True))

    def __repr__(self) -> str:
        return (f"DaskRows(n={self.n}, p={self.p}, chunks={self.n_chunks}"
                f"{', persisted' if self.persisted else ''})")


def check_dask(X: Any, caller: str, *, name: str = "X", n_features: int | None = None,
               min_samples: int = 1) -> da.Array:
    """Validate a Dask array or a Dask DataFrame of numeric columns; return a float64 Dask array.

    The checks of :func:`dpconvex.data.validation.check_array`, from the metadata; unknown
    chunk sizes and the finiteness check take one pass each (n is public). The metadata is
    what Dask declares (``dd.read_csv`` infers it from a first block), so every partition and
    chunk the returned array reads (in the finiteness pass and every later pass) is checked
    against it: held as the metadata declares it, or refused by name with the in-memory
    refusal of the same values; numbers of another dtype are read as float64.

    Raises
    ------
    DataTypeError
        Non-numeric columns (encode them first, e.g. with
        :func:`dpconvex.datasets.dask_loaders.from_dataframe`), or a partition or chunk
        holding text or dates where the metadata declares numbers; chunks that are not NumPy
        arrays (scipy.sparse ones: make them dense, or pass a CSR matrix in memory).
    DataValidationError
        Wrong shape, complex values, missing, NaN or infinite values, too few rows; a partition
        with other columns than its metadata declares, a chunk of another shape.
    """
    import dask.dataframe as dd

    framed = isinstance(X, dd.DataFrame)
    if framed:
        bad = [str(c) for c, t in X.dtypes.items() if not _numeric_dtype(t)]
        if bad:
            raise DataTypeError(
                f"{caller}: {name} has non-numeric column(s) {bad[:5]!r}. Encode them with a "
                "public "
                "schema first (dpconvex.datasets.dask_loaders.from_dataframe applies a "
                "PublicSchema "
                "per partition)."
            )
        with _declared_partitions(caller, name):
            lengths = tuple(int(v) for v in compute(X.map_partitions(len))[0])
        meta = X._meta.astype("float64")  # every partition read as the metadata declares it
        read = partial(_frame_block, columns=list(X.columns), caller=caller, name=name,
                       lengths=lengths)
        X = X.map_partitions(read, meta=meta)
        X = X.to_dask_array(lengths=lengths)
    elif not isinstance(X, da.Array):
        raise DataTypeError(
            f"{caller}: {name} must be a dask.array.Array or a dask DataFrame of numeric columns; "
            f"got {type(X).__name__}."
        )
    if X.ndim != 2:
        raise DataValidationError(
            f"{caller}: {name} must be 2-D (n_samples, n_features); got a Dask array with "
            f"{X.ndim} dimension(s). Reshape it (X.reshape(-1, 1) for a single feature)."
        )
    if X.dtype.kind == "O":  # read from the metadata: the values are not computed
        raise DataTypeError(f"{caller}: {name} must hold numbers; got dtype {X.dtype}.")
    check_numeric_dtype(X, caller, name)
    meta = getattr(X, "_meta", None)  # the type of the chunks, from the metadata
    if meta is not None and not isinstance(meta, np.ndarray):
        raise _dense_chunks_only(meta, caller, name)
    if not framed:  # a frame's partitions are read by _frame_block, its chunks with them
        read = partial(_float_block, caller=caller, name=name)  # not map_blocks' name=: its keys
        X = known_chunks(X).map_blocks(read, dtype=np.float64)
    rows = DaskRows(X)
    counts = rows.X.map_blocks(_nonfinite_block, drop_axis=1, chunks=((1,) * rows.n_chunks,),
                               dtype=np.int64)

    def finite() -> bool:
        with _declared_partitions(caller, name):
            return not int(compute(counts.sum())[0])

    return check_matrix_body(rows.X, finite, caller, name, min_samples, n_features)
