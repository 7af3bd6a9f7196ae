"""UCI loaders: Adult and KDD Cup 1999 (10%), encoded by the public schemas of
:mod:`dpconvex.datasets.schemas` (the package docstring states the preprocessing)."""

from __future__ import annotations

import gzip
import io
import math
import os
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .._validation import RandomStateLike, check_bool, check_int, check_option, check_random_state
from ..data.encoder import PublicEncoder
from ..data.row_scaling import check_row_norm
from ..data.validation import LabelArray
from ..errors import DatasetError, ParameterError
from ._files import fetch_file, labelled_csv
from .schemas import (
    _ADULT_COLUMNS,
    _KDD_COLUMNS,
    ADULT_CLASSES,
    ADULT_NUMERIC_RANGES,
    ADULT_SCHEMA,
    KDDCUP99_CLASSES,
    KDDCUP99_NUMERIC_RANGES,
    KDDCUP99_SCHEMA,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["KDDCUP99_ORDER_SEED", "KDDCUP99_TEST_FRACTION", "load_adult", "load_kddcup99"]

# -------------------------------------------------------------------- Adult

_ADULT_LABELS = {">50K": 1, "<=50K": 0}


def _to_float(values: Sequence[str], column: str, path: Path | str, caller: str) -> np.ndarray:
    try:
        x = np.array([float(v) for v in values], dtype=np.float64)
    except ValueError as exc:
        raise DatasetError(f"{caller}: {path}: non-numeric value in column {column!r}: {exc}. "
                           "Replace the file with the UCI file.") from exc
    if not np.all(np.isfinite(x)):
        raise DatasetError(f"{caller}: {path}: non-finite value in column {column!r}. Replace "
                           "the file with the UCI file.")
    return x


def load_adult(subset: str = "train", *, data_home: str | os.PathLike[str] | None = None,
               download: bool = True, return_frame: bool = False,
               verify_checksum: bool | None = None, row_norm: str = "unit",
               columns: Sequence[str] | None = None, drop: Sequence[str] = ()
              ) -> tuple[np.ndarray, np.ndarray] | tuple[pandas.DataFrame, pandas.Series]:
    """Load UCI Adult (census income) with public, per-record preprocessing.

    Rows with a missing value (``?``) are dropped, as in CMS Section 7: 30,162 training rows
    (``adult.data``), 15,060 test rows (``adult.test``). The encoding is
    :data:`ADULT_SCHEMA` (104 features, :data:`ADULT_FEATURE_NAMES`: 5 numeric attributes on
    public ranges, capital-gain and capital-loss log-scaled, 8 one-hot; ``fnlwgt``, with no
    public bound, dropped), rows divided by ``sqrt(13)``
    (docs/privacy/row_scaling.md#privacy-row-scaling).

    Parameters
    ----------
    subset : {"train", "test", "all"}, default="train"
        ``"train"`` reads ``adult.data``, ``"test"`` reads ``adult.test``
        (whose first line ``|1x3 Cross validator`` is skipped and whose labels
        end with ``.``), ``"all"`` both, training rows first.
    data_home : str, path-like or None
        Folder holding the files; None: the folders of :func:`get_data_home`.
    download : bool, default=True
        Download a missing file from UCI (checked against :data:`DATASET_SHA256`).
    verify_checksum : bool or None, default=None
        Check a local file against its pinned SHA-256 once per process (a mismatch raises
        DatasetError). None checks unless ``DPCONVEX_SKIP_CHECKSUM=1``; False loads your own
        copy unchecked. Downloads are always checked.
    return_frame : bool, default=False
        Return a ``pandas.DataFrame`` and a ``pandas.Series`` (needs pandas).
    row_norm : {"unit", "none"}, default="unit"
        "unit": every non-zero row scaled to norm 1. "none": the rows divided by the public constant.
    columns : sequence of str or None, default=None
        Attribute names (file column names, e.g. ``"age"``) to keep; None keeps all 13.
    drop : sequence of str, default=()
        Attributes to leave out, e.g. ``("native-country",)``; the divisor counts the kept
        attributes (docs/privacy/row_scaling.md#privacy-column-selection: the trade-off).

    Returns
    -------
    X : ndarray of shape (n_samples, 104), dtype float64
        Encoded features (fewer with ``columns`` / ``drop``: names in
        ``ADULT_SCHEMA.select(...).feature_names``), every row of norm <= 1.
    y : LabelArray of shape (n_samples,), dtype int64
        1 for income ``>50K``, 0 for ``<=50K``, carrying the public label set
        :data:`ADULT_CLASSES` (a fit needs no ``classes=``); with ``return_frame=True`` a
        category-dtype ``pandas.Series``.

    Raises
    ------
    ParameterError
        An unknown ``subset`` or ``row_norm``, a flag that is not a bool, or ``columns`` /
        ``drop`` naming an unknown attribute or keeping none.
    DatasetError
        A file missing and not downloadable, malformed, or not matching its SHA-256.
    ImportError
        ``return_frame=True`` without pandas.

    Examples
    --------
    Needs ``adult.data`` and ``adult.test`` in the data folder
    (:func:`get_data_home`), so the doctest run skips it:

    >>> from dpconvex.datasets import load_adult  # doctest: +SKIP
    >>> X, y = load_adult(download=False)  # doctest: +SKIP
    >>> X.shape, y.classes.tolist()  # doctest: +SKIP
    ((30162, 104), [0, 1])
    >>> X_test, y_test = load_adult("test", download=False, drop=("native-country",))  # doctest: +SKIP
    >>> X_test.shape  # doctest: +SKIP
    (15060, 63)
    """
    owner = "load_adult"
    check_option("subset", subset, ("train", "test", "all"), owner)
    return_frame = check_bool("return_frame", return_frame, owner)
    row_norm = check_row_norm(row_norm, owner)
    schema = ADULT_SCHEMA.select(columns, drop, caller=owner)
    if return_frame:
        try:
            import pandas as pd
        except ImportError as exc:
            raise ImportError(
                "load_adult: return_frame=True needs pandas, which is not installed "
                "(pip install pandas), or use return_frame=False for numpy arrays."
            ) from exc

    files = {"train": ["adult.data"], "test": ["adult.test"], "all": ["adult.data", "adult.test"]}
    paths = [
        fetch_file(name, data_home, download, verify_checksum, owner) for name in files[subset]
    ]

    raw: dict[str, list[str]] = {c: [] for c in _ADULT_COLUMNS}
    labels: list[int] = []
    for path in paths:
        part, part_labels = labelled_csv(
            path, _ADULT_COLUMNS, 0, _ADULT_LABELS, "the UCI Adult file", owner
        )
        for col in _ADULT_COLUMNS:
            raw[col].extend(part[col])
        labels.extend(part_labels)
    if not labels:
        raise DatasetError(f"load_adult: no complete records found in "
                           f"{', '.join(map(str, paths))}. Replace the files with the UCI files.")

    where = ", ".join(map(str, paths))
    table = {c: _to_float(raw[c], c, where, owner) if c in ADULT_NUMERIC_RANGES else raw[c]
             for c in schema.columns}
    X = PublicEncoder(schema, row_norm=row_norm).fit_transform(table)
    y = np.asarray(labels, dtype=np.int64)
    if return_frame:
        return (
            pd.DataFrame(X, columns=list(schema.feature_names)),
            pd.Series(pd.Categorical(y, categories=list(ADULT_CLASSES)), name="income>50K"),
        )
    return X, LabelArray(y, ADULT_CLASSES)


# ------------------------------------------------------------- KDD Cup 1999

_KDD_FILE = "kddcup.data_10_percent.gz"

#: Seed of the public permutation that orders the rows of :func:`load_kddcup99` and
#: splits them into ``subset="train"`` / ``"test"``:
#: ``numpy.random.default_rng(KDDCUP99_ORDER_SEED).permutation(n_rows)``. It depends on
#: the number of rows only, never on a value in the file (which holds its records in 534
#: runs of one label, the mix of attack types drifting along it).
KDDCUP99_ORDER_SEED = 99

#: Share of the rows in ``load_kddcup99(subset="test")``: the last
#: ``ceil(KDDCUP99_TEST_FRACTION * n_rows)`` positions of the public permutation
#: (98,805 of the 494,021 rows); ``subset="train"`` holds the others (395,216).
KDDCUP99_TEST_FRACTION = 0.2

_KDD_NUMERIC_IDX: tuple[int, ...] = tuple(
    i for i, c in enumerate(_KDD_COLUMNS) if c in KDDCUP99_NUMERIC_RANGES
)


def _kdd_numeric(source: bytes, path: Path, caller: str) -> np.ndarray:
    """Parse the numeric columns of KDD'99 lines (C parser, ~3 s for the 10% file)."""
    try:
        values = np.loadtxt(
            io.BytesIO(source),
            delimiter=",",
            usecols=_KDD_NUMERIC_IDX,
            dtype=np.float64,
            ndmin=2,
            encoding="ascii",
        )
    except ValueError as exc:
        raise DatasetError(f"{caller}: {path}: malformed numeric field: {exc}. Replace the "
                           "file with the UCI KDD Cup 1999 file.") from exc
    bad = ~np.isfinite(values)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise DatasetError(
            f"{caller}: {path}: non-finite value in column "
            f"{_KDD_COLUMNS[_KDD_NUMERIC_IDX[col]]!r} of "
            f"record {row + 1}. Replace the file with the UCI KDD Cup 1999 file."
        )
    return values


def _kdd_fields(lines: list[bytes], path: Any, first: int, caller: str
                ) -> tuple[list[bytes], list[bytes], list[bytes], list[bytes]]:
    """The categorical fields (protocol, service, flag) and the label of each KDD'99 record
    (``first``: the record number of ``lines[0]``, for the message of a malformed record)."""
    n_fields = len(_KDD_COLUMNS) + 1
    protocol: list[bytes] = []
    service: list[bytes] = []
    flag: list[bytes] = []
    labels: list[bytes] = []
    for lineno, line in enumerate(lines, start=first):
        if line.count(b",") != n_fields - 1:
            raise DatasetError(
                f"{caller}: {path}, record {lineno}: expected {n_fields} comma-separated fields, "
                f"found {line.count(b',') + 1}. Is this the UCI KDD Cup 1999 file?"
            )
        _, p, s, f, rest = line.split(b",", 4)
        protocol.append(p)
        service.append(s)
        flag.append(f)
        labels.append(rest.rpartition(b",")[2].strip())
    return protocol, service, flag, labels


def _kdd_order(n_total: int) -> np.ndarray:
    """The public permutation of ``range(n_total)``: a function of the row count only."""
    return np.random.default_rng(KDDCUP99_ORDER_SEED).permutation(n_total)


def _kdd_rows(n_total: int, subset: str, shuffle: bool, n_samples: int | None,
              rng: np.random.Generator | None, caller: str, path: Path) -> np.ndarray | None:
    """Record numbers (0-based, in output order) :func:`load_kddcup99` returns; None: all, file order.

    The subsets and the default order come from :func:`_kdd_order`; a sample indexes the subset's records in
    file order, so ``subset="all"`` draws ``rng.choice(n_total, n_samples, replace=False)`` itself.
    """
    if subset == "all":
        pool = None
    else:
        order = _kdd_order(n_total)
        n_test = math.ceil(KDDCUP99_TEST_FRACTION * n_total)
        part = order[n_total - n_test:] if subset == "test" else order[: n_total - n_test]
        if part.size == 0:
            raise DatasetError(
                f"{caller}: {path} holds {n_total} record(s), too few for subset={subset!r}: the "
                "test "
                f"subset takes the last ceil({KDDCUP99_TEST_FRACTION} * n) positions of the "
                "public permutation. Use subset='all'."
            )
        if n_samples is None:
            return part if shuffle else np.sort(part)
        pool = np.sort(part)
    if n_samples is None:
        return _kdd_order(n_total) if shuffle else None
    n_pool = n_total if pool is None else pool.size
    if n_samples > n_pool:
        rows = "the number of rows" if pool is None else f"the number of rows of subset={subset!r}"
        raise ParameterError(
            f"The 'n_samples' parameter of {caller} must be at most {rows} "
            f"({n_pool}). Got {n_samples!r} instead."
        )
    assert rng is not None
    idx = rng.choice(n_pool, size=int(n_samples), replace=False)
    if pool is not None:
        idx = pool[idx]
    return idx if shuffle else np.sort(idx)


def load_kddcup99(n_samples: int | None = None, *, subset: str = "all", shuffle: bool = True,
                  random_state: RandomStateLike = None,
                  data_home: str | os.PathLike[str] | None = None, download: bool = True,
                  verify_checksum: bool | None = None, row_norm: str = "unit",
                  columns: Sequence[str] | None = None, drop: Sequence[str] = ()
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Load the KDD Cup 1999 10% training set with public, per-record preprocessing.

    Reads ``kddcup.data_10_percent.gz`` (494,021 connection records). As in CMS Section 7 the
    task is binary: ``y = 1`` for an attack, ``y = 0`` for ``normal.`` (97,278 rows). The
    encoding is :data:`KDDCUP99_SCHEMA` (122 features, :data:`KDDCUP99_FEATURE_NAMES`: 38
    numeric on public ranges, counts log-scaled, 3 one-hot), rows divided by ``sqrt(41)``
    (docs/privacy/row_scaling.md#privacy-row-scaling).

    The file holds its records in runs of one label, so a prefix is not a sample: the rows come in the order
    of a fixed public permutation (:data:`KDDCUP99_ORDER_SEED`), whose last positions form ``subset="test"``
    (:data:`KDDCUP99_TEST_FRACTION`), a shared held-out set; make validation splits inside ``subset="train"``.

    Parameters
    ----------
    n_samples : int or None, default=None
        A uniform random sample of this many distinct rows of ``subset`` (drawn with
        ``random_state``), as CMS used 70,000 rows; None: every row of ``subset``.
    subset : {"all", "train", "test"}, default="all"
        Every row, or one of the two disjoint parts of the fixed public split above.
    shuffle : bool, default=True
        True: in the order of the public permutation (of the sample, with ``n_samples``).
        False: in file order. The rows a subset holds do not depend on it.
    random_state : None, int or numpy.random.Generator
        Randomness of the sample; ignored when ``n_samples`` is None (the public permutation is fixed).
    data_home, download, verify_checksum, row_norm
        As in :func:`load_adult`.
    columns, drop : sequence of str
        Attributes to keep (None: all 41) or leave out, as in :func:`load_adult`.
        ``drop=("service", "flag")`` helps pure-ε and hurts Gaussian-objective logistic
        regression, so it is not the default (benchmarks/recorded/kdd_public_knobs.md).

    Returns
    -------
    X : ndarray of shape (n_samples, 122), dtype float64
        Encoded features (fewer with ``columns`` / ``drop``), every row of norm <= 1 (all
        494,021 rows take about 480 MB).
    y : LabelArray of shape (n_samples,), dtype int64
        1 = attack, 0 = normal, carrying the public label set :data:`KDDCUP99_CLASSES`.

    Raises
    ------
    ParameterError
        ``n_samples`` not None or an int in ``[1, rows of subset]``, an unknown ``subset``,
        a bad ``shuffle`` or ``random_state``, or a row option as in :func:`load_adult`.
    DatasetError
        As in :func:`load_adult`, or too few records for the requested subset.

    Examples
    --------
    Needs ``kddcup.data_10_percent.gz`` in the data folder (:func:`get_data_home`),
    so the doctest run skips it:

    >>> from dpconvex.datasets import load_kddcup99  # doctest: +SKIP
    >>> X_test, y_test = load_kddcup99(subset="test", download=False)  # doctest: +SKIP
    >>> X_test.shape, y_test.classes.tolist()  # doctest: +SKIP
    ((98805, 122), [0, 1])
    >>> float(y_test.mean().round(2))  # attack share, as in the whole file  # doctest: +SKIP
    0.8

    ``load_kddcup99(subset="train")`` gives the other 395,216 rows.
    """
    owner = "load_kddcup99"
    check_option("subset", subset, ("all", "train", "test"), owner)
    if n_samples is not None:
        n_samples = check_int("n_samples", n_samples, owner)
    shuffle = check_bool("shuffle", shuffle, owner)
    rng = check_random_state(random_state, "load_kddcup99") if n_samples is not None else None
    row_norm = check_row_norm(row_norm, owner)
    schema = KDDCUP99_SCHEMA.select(columns, drop, caller=owner)

    path = fetch_file(_KDD_FILE, data_home, download, verify_checksum, owner)
    try:
        with gzip.open(path, "rb") as fh:
            raw = fh.read()
    except (OSError, EOFError, zlib.error) as exc:
        raise DatasetError(f"load_kddcup99: cannot decompress {path}: {exc}. Replace it with "
                           "the UCI file (gzip).") from exc

    lines = [ln for ln in raw.splitlines() if ln.strip()]
    n_total = len(lines)
    if n_total == 0:
        raise DatasetError(
            f"load_kddcup99: {path} holds no records. Replace it with the UCI file."
        )

    protocol, service, flag, labels = _kdd_fields(lines, path, 1, owner)

    idx = _kdd_rows(n_total, subset, shuffle, n_samples, rng, owner, path)
    if idx is not None:
        lines, protocol, service, flag, labels = ([column[i] for i in idx] for column in
                                                  (lines, protocol, service, flag, labels))
    del raw

    numeric = _kdd_numeric(b"\n".join(lines), path, owner)
    del lines
    values: dict[str, Any] = {
        _KDD_COLUMNS[i]: numeric[:, k] for k, i in enumerate(_KDD_NUMERIC_IDX)
    }
    values.update(protocol_type=protocol, service=service, flag=flag)  # bytes match the vocabulary
    X = PublicEncoder(schema, row_norm=row_norm).fit_transform(
        {c: values[c] for c in schema.columns}
    )
    y = np.fromiter((lab != b"normal." for lab in labels), dtype=np.int64, count=len(labels))
    return X, LabelArray(y, KDDCUP99_CLASSES)
