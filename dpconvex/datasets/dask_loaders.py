"""Out-of-core loaders: KDD Cup 1999 streamed into a Dask array, and your own tables.

:func:`load_kddcup99_dask` encodes ``kddcup.data.gz`` chunk by chunk with the per-record map
of :func:`~dpconvex.datasets.load_kddcup99` into an on-disk chunk store (a gzip file cannot be read from the
middle), so no step holds the whole matrix; :func:`from_dataframe` encodes your own Dask DataFrame per
partition with a :class:`~dpconvex.PublicSchema` (an example: docs/guide/dask.md#dask-own-tables).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import zlib
from collections.abc import Iterator, Sequence
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .._validation import check_array_entries, check_int
from ..data.encoder import PublicEncoder, category_codes, encode
from ..data.row_scaling import check_row_norm, normalize_rows_lazy
from ..data.schema import PublicSchema, UniformSchema
from ..data.validation import LabelArray
from ..errors import DatasetError, ParameterError
from ._files import _DEFAULT_HOME, check_flags, data_search_path, fetch_file, stage_folder
from .schemas import _KDD_COLUMNS, KDDCUP99_CATEGORIES, KDDCUP99_CLASSES, KDDCUP99_SCHEMA
from .uci import _KDD_NUMERIC_IDX, _kdd_fields, _kdd_numeric

if TYPE_CHECKING:  # pragma: no cover
    import dask.array as da

__all__ = ["KDDCUP99_FULL_FILE", "from_dataframe", "kddcup99_chunk_store", "load_kddcup99_dask"]

#: The full KDD Cup 1999 training file (4,898,431 records), looked up in the data folders.
KDDCUP99_FULL_FILE = "kddcup.data.gz"
_KDD_10_PERCENT = "kddcup.data_10_percent.gz"
#: Bumped when the chunk-store layout or the encoding changes (old stores are not reused).
_STORE_VERSION = 1
_VOCABULARIES = {col: [v.encode("ascii") for v in voc] for col, voc in KDDCUP99_CATEGORIES.items()}


def _encode_lines(
    lines: list[bytes], path: Path, first: int, caller: str
) -> tuple[np.ndarray, np.ndarray]:
    """Encode KDD'99 records exactly as :func:`~dpconvex.datasets.load_kddcup99` does."""
    protocol, service, flag, labels = _kdd_fields(lines, path, first, caller)
    numeric = _kdd_numeric(b"\n".join(lines), path, caller)
    values = {_KDD_COLUMNS[i]: numeric[:, k] for k, i in enumerate(_KDD_NUMERIC_IDX)}
    raw = {"protocol_type": protocol, "service": service, "flag": flag}
    codes = {col: category_codes(raw[col], voc) for col, voc in _VOCABULARIES.items()}
    X = encode(KDDCUP99_SCHEMA, values, codes)
    y = np.fromiter((lab != b"normal." for lab in labels), dtype=np.int64, count=len(labels))
    return X, y


def _records(path: Path, chunksize: int, caller: str) -> Iterator[list[bytes]]:
    """Non-empty lines of a gzip file, ``chunksize`` at a time (one chunk in memory)."""
    try:
        with gzip.open(path, "rb") as fh:
            lines = (ln for ln in fh if ln.strip())
            while chunk := list(islice(lines, chunksize)):
                yield [ln.rstrip(b"\r\n") for ln in chunk]
    except (OSError, EOFError, zlib.error) as exc:
        raise DatasetError(f"{caller}: cannot decompress {path}: {exc}. Replace it with the UCI "
                           "file (gzip).") from exc


def _load_chunk(file: str) -> np.ndarray:
    return np.load(file)


def _find_source(path: Any, data_home: Any, download: bool, verify_checksum: bool | None,
                 caller: str) -> Path:
    if path is not None:
        p = Path(path).expanduser()
        if not p.is_file():
            raise DatasetError(f"{caller}: no file at {p}. Pass the path of a KDD Cup 1999 file, "
                               "or path=None to use the data folders.")
        return p
    folders, _ = data_search_path(data_home, caller)
    for folder in folders:
        if (folder / KDDCUP99_FULL_FILE).is_file():
            return folder / KDDCUP99_FULL_FILE
    return fetch_file(_KDD_10_PERCENT, data_home, download, verify_checksum, caller)


def load_kddcup99_dask(path: str | os.PathLike[str] | None = None, *, chunksize: int = 100_000,
                       data_home: str | os.PathLike[str] | None = None,
                       cache_dir: str | os.PathLike[str] | None = None, download: bool = False,
                       verify_checksum: bool | None = None, row_norm: str = "unit",
                       columns: Sequence[str] | None = None, drop: Sequence[str] = ()
                      ) -> tuple[da.Array, np.ndarray]:
    """KDD Cup 1999 as a Dask array of encoded rows, streamed from the ``.gz`` file chunk by chunk.

    Parameters
    ----------
    path : str, path-like or None
        A KDD'99 file (gzip, UCI format). None: ``kddcup.data.gz`` in the data
        folders (:func:`~dpconvex.datasets.get_data_home`), else the 10% file
        ``kddcup.data_10_percent.gz`` (checked against its pinned SHA-256).
    chunksize : int, default=100_000
        Records per chunk (about 98 MB of float64 rows per chunk). The number
        of chunks is your choice, so it is public (certificates record it).
    data_home : str, path-like or None
        See :func:`~dpconvex.datasets.get_data_home`.
    cache_dir : str, path-like or None
        Folder of the on-disk chunk store (``~/.cache/dpconvex/dask`` if None). A store is keyed by the source
        file (path, size, modification time) and ``chunksize``, written once and reused by later calls.
    download : bool, default=False
        Download the 10% file if no file is found.
    verify_checksum : bool or None
        As in :func:`~dpconvex.datasets.load_kddcup99` (for the 10% file; the
        full file has no pinned checksum here).
    row_norm : {"unit", "none"}, default="unit"
    columns, drop : sequence of str
        As in :func:`~dpconvex.datasets.load_kddcup99`, applied lazily per
        chunk (the chunk store keeps all columns, divided by ``sqrt(41)``).

    Returns
    -------
    X : dask.array.Array of shape (n, 122), float64, chunks of ``chunksize`` rows
        The rows of :func:`~dpconvex.datasets.load_kddcup99` with the same options for the same records, in
        file order (that loader's ``shuffle=False``), up to rounding (every row has norm <= 1); fewer columns
        with ``columns`` / ``drop``.
    y : LabelArray of shape (n,), dtype int64
        1 = attack, 0 = normal (n numbers: small enough for the driver), carrying
        the public label set :data:`~dpconvex.datasets.KDDCUP99_CLASSES`
        (``y.classes``; :mod:`dpconvex.data.validation`).

    Raises
    ------
    ParameterError
        A ``chunksize`` that is not an int >= 1, or an invalid row option.
    DatasetError
        No file, an unreadable or malformed file.
    """
    import dask
    import dask.array as da

    owner = "load_kddcup99_dask"
    row_norm = check_row_norm(row_norm, owner)
    schema = KDDCUP99_SCHEMA.select(columns, drop, caller=owner)
    store = kddcup99_chunk_store(path, chunksize=chunksize, data_home=data_home,
                                 cache_dir=cache_dir, download=download,
                                 verify_checksum=verify_checksum)
    meta = json.loads((store / "meta.json").read_text())
    p = KDDCUP99_SCHEMA.n_features
    load = dask.delayed(_load_chunk, pure=True)
    blocks = [
        da.from_delayed(load(str(store / f"X-{i:05d}.npy")), shape=(rows, p), dtype=np.float64)
        for i, rows in enumerate(meta["chunks"])
    ]
    X = da.concatenate(blocks, axis=0)
    if schema is not KDDCUP99_SCHEMA:  # keep the selected features, divided by their own divisor
        names = KDDCUP99_SCHEMA.feature_names
        keep = set(schema.feature_names)
        X = X[:, np.array([i for i, f in enumerate(names) if f in keep])]
        X = X * (KDDCUP99_SCHEMA.divisor / schema.divisor)
    if row_norm == "unit":
        X = normalize_rows_lazy(X, 1.0)
    return X, LabelArray(np.load(store / "y.npy"), KDDCUP99_CLASSES)


def kddcup99_chunk_store(path: str | os.PathLike[str] | None = None, *, chunksize: int = 100_000,
                         data_home: str | os.PathLike[str] | None = None,
                         cache_dir: str | os.PathLike[str] | None = None, download: bool = False,
                         verify_checksum: bool | None = None) -> Path:
    """The folder of the on-disk chunk store behind :func:`load_kddcup99_dask` (written if needed).

    It holds ``X-00000.npy``, ``X-00001.npy``, ... (the encoded rows of each
    chunk), ``y.npy`` and ``meta.json`` (``"chunks"``: the rows per chunk),
    written last. Parameters as in :func:`load_kddcup99_dask`.
    """
    owner = "load_kddcup99_dask"
    chunksize = check_int("chunksize", chunksize, owner)
    check_array_entries(chunksize * KDDCUP99_SCHEMA.n_features,
                        f"one chunk (chunksize x {KDDCUP99_SCHEMA.n_features} features)", owner,
                        "Lower chunksize.")
    for name, value in (("path", path), ("data_home", data_home), ("cache_dir", cache_dir)):
        if value is not None and not isinstance(value, str | os.PathLike):
            raise ParameterError(f"The '{name}' parameter of {owner} must be None, a str or a "
                                 f"path-like object. Got {type(value).__name__} instead.")
    download, verify_checksum = check_flags(download, verify_checksum, owner)
    source = _find_source(path, data_home, download, verify_checksum, owner).resolve()
    stat = source.stat()
    key = hashlib.sha256(
        f"{source}|{stat.st_size}|{stat.st_mtime_ns}|{chunksize}|{_STORE_VERSION}".encode()
    ).hexdigest()[:16]
    root = Path(_DEFAULT_HOME) / "dask" if cache_dir is None else Path(cache_dir)
    # absolute: the lazy array reads the chunks later, from whatever the working folder is then
    store = root.expanduser().resolve() / f"{source.name.split('.')[0]}-{key}"
    if not (store / "meta.json").is_file():
        _write_store(source, store, chunksize, owner)
    return store


def _write_store(source: Path, store: Path, chunksize: int, caller: str) -> None:
    """Stream, encode and write the chunks into a hidden folder beside ``store``
    (:func:`~dpconvex.datasets._files.stage_folder`), renamed into place when whole
    (``meta.json`` written last): a bad record, a full disk or an interruption that Python sees
    (an exception, Ctrl-C) leaves no partial store and no temporary folder; a process killed
    meanwhile (e.g. SIGTERM, SIGKILL) leaves its hidden folder, which the next write of this
    store removes. Of two processes writing the same store, each finishes with a whole store in
    place (the other's, where that one renamed its folder first)."""
    stage = stage_folder(store.parent, store.name)
    try:
        sizes: list[int] = []
        ys: list[np.ndarray] = []
        first = 1
        for lines in _records(source, chunksize, caller):
            X, y = _encode_lines(lines, source, first, caller)
            np.save(stage / f"X-{len(sizes):05d}.npy", X)
            sizes.append(len(lines))
            ys.append(y)
            first += len(lines)
        if not sizes:
            raise DatasetError(f"{caller}: {source} holds no records. Pass a KDD Cup 1999 file.")
        np.save(stage / "y.npy", np.concatenate(ys))
        meta = {"source": str(source), "chunks": sizes,
                "n_features": KDDCUP99_SCHEMA.n_features, "version": _STORE_VERSION}
        (stage / "meta.json").write_text(json.dumps(meta))
        if store.is_dir() and not (store / "meta.json").is_file():
            _remove_incomplete(store)
        try:
            os.rename(stage, store)
        except OSError:
            if not (store / "meta.json").is_file():  # not a store another process completed
                raise
    finally:
        shutil.rmtree(stage, ignore_errors=True)  # gone once renamed into place


def _remove_incomplete(store: Path) -> None:
    """Remove ``store``, a folder without ``meta.json`` (incomplete: written again), by one
    rename out of its place: a process racing this one finds it gone and goes on."""
    aside = stage_folder(store.parent, store.name)
    try:
        os.rename(store, aside / "incomplete")
    except FileNotFoundError:  # another process moved it first
        pass
    finally:
        shutil.rmtree(aside, ignore_errors=True)


def _encode_partition(part: Any, schema: PublicSchema) -> np.ndarray:
    """A partition's feature columns through :class:`~dpconvex.PublicEncoder` (``schema``: features only)."""
    return PublicEncoder(schema).fit_transform(part[list(schema.columns)])


def from_dataframe(df: Any, schema: PublicSchema | UniformSchema, *, label: str | None = None,
                   row_norm: str = "none") -> tuple[da.Array, da.Array | None]:
    """Encode a Dask DataFrame with a public schema, partition by partition.

    Parameters
    ----------
    df : dask.dataframe.DataFrame
        E.g. from ``dd.read_parquet`` or ``dd.read_csv``; every column of ``schema.numeric`` and
        ``schema.categories`` must be present (other columns are ignored).
    schema : PublicSchema or UniformSchema
        Public ranges and vocabularies (:mod:`dpconvex.data.schema`): each partition's feature columns go
        through :class:`~dpconvex.PublicEncoder`, so each record is encoded from itself and these constants
        only, every row has norm <= 1 and the partitioning does not change any row. One declaration
        for every column (:meth:`~dpconvex.PublicSchema.every_column`) declares every column of
        ``df`` but ``label`` (:meth:`~dpconvex.data.UniformSchema.for_columns` of their names:
        public when the columns were fixed without reading the records, not when they were made
        from the values, e.g. by ``get_dummies``).
    label : str or None
        A column returned as ``y`` (unchanged); None returns ``y = None``.
    row_norm : {"none", "unit"}, default="none"
        "unit": every non-zero row then scaled to norm 1, lazily per partition
        (:func:`dpconvex.data.normalize_rows`, a per-record map).

    Returns
    -------
    X : dask.array.Array of shape (n, schema.n_features), float64
        One chunk per partition.
    y : dask.array.Array of shape (n,) or None

    Notes
    -----
    The partition lengths are computed once (a pass over the data): the number of records n is a public
    parameter of the privacy analysis, and the chunk sizes never enter a release.
    """
    import dask
    import dask.array as da

    row_norm = check_row_norm(row_norm, "from_dataframe")
    if not isinstance(schema, (PublicSchema, UniformSchema)):
        raise ParameterError(
            "The 'schema' parameter of from_dataframe must be a PublicSchema, or one declaration "
            "for every column, PublicSchema.every_column(Numeric(0, 255)). Got "
            f"{type(schema).__name__} instead."
        )
    if not hasattr(df, "map_partitions"):
        raise ParameterError(f"The 'df' parameter of from_dataframe must be a Dask DataFrame. Got "
                             f"{type(df).__name__} instead; wrap it, dd.from_pandas(df, "
                             "npartitions=...), or encode it in memory with PublicEncoder.")
    if schema.suggested:  # a Dask array cannot carry the mark that makes a fit on it not private
        raise ParameterError(
            "from_dataframe: the schema is read from the data (suggested=True: draft_schema "
            "without "
            "epsilon), so a fit on the rows it encodes is not private, and the Dask array it "
            "returns cannot "
            "say so to the fit. Declare the reviewed schema in code (print(schema.to_code())) or "
            "draft it "
            "with epsilon=...."
        )
    if isinstance(schema, UniformSchema):  # every column of df but the label: their names
        try:
            schema = schema.for_columns([c for c in df.columns if c != label])
        except ParameterError as exc:
            raise ParameterError(f"from_dataframe: {exc}") from None
    # the feature columns only (other columns of df are ignored), declared as in ``schema``
    schema = PublicSchema({c: d for c, d in schema.declarations.items() if d is not None},
                          centered=schema.centered)
    if label is not None and label in schema.columns:  # else X would hold y as well
        raise ParameterError(
            f"from_dataframe: the label {label!r} is also a feature of the schema, so the "
            "labels would be encoded into X too. Leave it out of the schema, or pass another "
            "label column.")
    missing = [c for c in schema.columns if c not in df.columns]
    if label is not None and label not in df.columns:
        missing.append(label)
    if missing:
        raise ParameterError(f"from_dataframe: the DataFrame has no column(s) {missing!r}. Pass "
                             "a DataFrame with every column of the schema (and the label).")
    from ..data.dask_rows import compute

    lengths = tuple(int(v) for v in compute(df.map_partitions(len))[0])
    enc = dask.delayed(_encode_partition, pure=True)
    blocks = [da.from_delayed(enc(part, schema), shape=(rows, schema.n_features), dtype=np.float64)
              for part, rows in zip(df.to_delayed(), lengths, strict=True)]
    X = da.concatenate(blocks, axis=0)
    X = normalize_rows_lazy(X, 1.0) if row_norm == "unit" else X
    y = df[label].to_dask_array(lengths=lengths) if label is not None else None
    return X, y
