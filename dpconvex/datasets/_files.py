"""Dataset files: where they are looked up, their pinned SHA-256, and downloads.

A file is looked up in the folders of :func:`data_search_path` (the ``data_home`` argument, else
``DPCONVEX_DATA``, else the defaults), checked against :data:`DATASET_SHA256` (once per process for each path,
size and modification time), and downloaded from UCI only when it is found nowhere and ``download=True``.
"""

from __future__ import annotations

import contextlib
import functools
import glob
import hashlib
import os
import re
import secrets
import shutil
import socket
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from .._validation import check_bool
from ..errors import DatasetError, ParameterError

__all__ = [
    "CHECKSUM_ENV_VAR",
    "DATASET_SHA256",
    "DATASET_URLS",
    "DATA_ENV_VAR",
    "data_search_path",
    "fetch_file",
    "get_data_home",
    "project_root",
]

_UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases"

#: Where each file is fetched from when it is missing and ``download=True``.
DATASET_URLS: dict[str, str] = {
    "adult.data": f"{_UCI}/adult/adult.data",
    "adult.test": f"{_UCI}/adult/adult.test",
    "breast-cancer-wisconsin.data": (
        f"{_UCI}/breast-cancer-wisconsin/breast-cancer-wisconsin.data"
    ),
    # Plain http: this is how the UCI KDD archive serves it. The SHA-256 check is what guards the content.
    "kddcup.data_10_percent.gz": (
        "http://kdd.ics.uci.edu/databases/kddcup99/kddcup.data_10_percent.gz"
    ),
}

#: SHA-256 of the canonical UCI files (shared/datasets/README.md). A download
#: that does not match is refused; a local file that does not match raises
#: :class:`~dpconvex.errors.DatasetError` unless the check is turned off
#: (``verify_checksum=False`` or ``DPCONVEX_SKIP_CHECKSUM=1``).
DATASET_SHA256: dict[str, str] = {
    "adult.data": "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
    "adult.test": "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
    "breast-cancer-wisconsin.data": (
        "402c585309c399237740f635ef9919dc512cca12cbeb20de5e563a4593f22b64"
    ),
    "kddcup.data_10_percent.gz": (
        "8045aca0d84e70e622d1148d7df782496f6333bf6eb979a1b0837c42a9fd9561"
    ),
}

#: Environment variable naming the data folder (absolute, or relative: see
#: :func:`data_search_path`).
DATA_ENV_VAR = "DPCONVEX_DATA"
#: Environment variable that, set to ``1`` (or ``true``/``yes``/``on``), turns
#: the SHA-256 check of local files off when a loader gets ``verify_checksum=None``.
CHECKSUM_ENV_VAR = "DPCONVEX_SKIP_CHECKSUM"

_DOWNLOAD_TIMEOUT = 20.0  # seconds, per network operation
_DEFAULT_HOME = "~/.cache/dpconvex"
_TRUTHY = frozenset({"1", "true", "yes", "on"})


#: A stage folder (:func:`stage_folder`) whose writer is not found on this host is removed
#: only once nothing in it has changed for this long (seconds, an hour): a writer of this
#: host in another process-id namespace (a container on the host's network) is not found by
#: its pid, and a stage it writes in is kept that long.
STALE_STAGE_SECONDS = 3600.0

#: The length of the random part of a stage folder's name (hexadecimal digits, as written).
_STAGE_RANDOM = 8


def _stage_name(name: str) -> re.Pattern[str]:
    """The whole name of a stage folder :func:`stage_folder` makes on this host for ``name``
    (its group 1: the writer's pid)."""
    host = re.escape(socket.gethostname())
    return re.compile(rf"\.{re.escape(name)}\.{host}-([0-9]+)-[a-z0-9_]{{{_STAGE_RANDOM}}}\.tmp")


def _writer_alive(pid: int) -> bool:
    """Whether process ``pid`` of this host may be running: True where this system cannot
    tell, or where ``pid`` is no process id of this system (not a stage of a writer here)."""
    if os.name != "posix":
        return True
    try:
        os.kill(pid, 0)  # signal 0: checks the process exists, sends nothing
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):  # e.g. another user's process; a pid beyond C's int
        return True
    return True


def _unchanged_for(folder: Path) -> float:
    """Seconds since anything in ``folder`` (the folder, or a file or folder in it) changed."""
    newest = folder.lstat().st_mtime
    for root, dirs, files in os.walk(folder):
        for entry in dirs + files:
            with contextlib.suppress(OSError):
                newest = max(newest, os.lstat(os.path.join(root, entry)).st_mtime)
    return time.time() - newest


def _remove_stale_stages(parent: Path, name: str) -> None:
    """Remove the stage folders of ``name`` in ``parent`` that a writer of this host no longer
    running left, unchanged for :data:`STALE_STAGE_SECONDS`; leave every other folder."""
    pattern = _stage_name(name)
    for old in parent.glob(f".{glob.escape(name)}.*.tmp"):
        match = pattern.fullmatch(old.name)
        if match is None or old.is_symlink() or not old.is_dir():
            continue  # not a stage this writer names: a user's folder, kept
        try:
            stale = (not _writer_alive(int(match.group(1)))
                     and _unchanged_for(old) > STALE_STAGE_SECONDS)
        except OSError:  # removed by another process meanwhile
            continue
        if stale:
            shutil.rmtree(old, ignore_errors=True)


def stage_folder(parent: Path, name: str) -> Path:
    """A new hidden folder in ``parent`` to write the folder ``name`` in whole before renaming it
    into place, with a folder's mode (0o777 minus the umask), after removing the stage folders
    of ``name`` left by a writer no longer running (killed before it could remove its own).

    Its name is ``.{name}.{host}-{pid}-{random}.tmp`` (``random``: 8 of ``a-z0-9_``). A folder
    is removed only when its whole name is of that form with this host's name, no process
    ``pid`` is found, and nothing in it has changed for :data:`STALE_STAGE_SECONDS` (an hour):
    any other folder (a user's ``.{name}.backup.tmp``, another host's stage, a running
    writer's) is left as it is.

    Parameters
    ----------
    parent : Path
        The folder that holds ``name`` (created if missing).
    name : str
        The folder written.

    Returns
    -------
    Path
        The stage folder, empty.

    Examples
    --------
    >>> import shutil, tempfile
    >>> from pathlib import Path
    >>> from dpconvex.datasets._files import stage_folder
    >>> parent = Path(tempfile.mkdtemp())
    >>> (parent / ".store.backup.tmp").mkdir()  # not a name this writer makes: kept
    >>> stage = stage_folder(parent, "store")
    >>> sorted(p.name for p in parent.iterdir() if p != stage)
    ['.store.backup.tmp']
    >>> stage.name.startswith(f".store.{socket.gethostname()}-{os.getpid()}-")
    True
    >>> shutil.rmtree(parent)
    """
    parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_stages(parent, name)
    prefix = f".{name}.{socket.gethostname()}-{os.getpid()}-"
    while True:
        stage = parent / f"{prefix}{secrets.token_hex(_STAGE_RANDOM // 2)}.tmp"
        try:
            os.mkdir(stage, 0o777)  # a folder's mode: mkdir applies the umask
        except FileExistsError:
            continue
        return stage


def check_flags(download: Any, verify_checksum: Any, owner: str) -> tuple[bool, bool | None]:
    """``download`` (a bool) and ``verify_checksum`` (a bool or None), checked."""
    if verify_checksum is not None:
        verify_checksum = check_bool("verify_checksum", verify_checksum, owner)
    return check_bool("download", download, owner), verify_checksum


# ------------------------------------------------ Where files are looked up


@functools.lru_cache(maxsize=1)
def project_root() -> Path | None:
    """The source checkout dpconvex is imported from (the folder above the package holding
    the ``pyproject.toml`` of ``dpconvex``: a checkout or an editable install), else None."""
    root = Path(__file__).resolve().parents[2]
    try:
        text = (root / "pyproject.toml").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if not re.search(r'^name\s*=\s*"dpconvex"', text, flags=re.MULTILINE):
        return None
    return root


def data_search_path(data_home: str | os.PathLike[str] | None = None,
                     caller: str = "get_data_home") -> tuple[list[Path], Path]:
    """(the folders a dataset file is looked up in, in order, ``~`` expanded; the folder a
    download is saved in), by the order of :func:`get_data_home`; ``caller``, the public
    function called, opens the messages."""
    if data_home is not None and not isinstance(data_home, str | os.PathLike):
        raise ParameterError(f"The 'data_home' parameter of {caller} must be None, a str or a "
                             f"path-like object. Got {data_home!r} instead.")
    if data_home is not None:
        home = Path(data_home).expanduser()
        return [home], home
    root = project_root()
    env = os.environ.get(DATA_ENV_VAR)
    if env:
        path = Path(env).expanduser()
        if path.is_absolute():
            return [path], path
        folders = [(Path.cwd() / path).resolve()]
        if root is not None and (root / path).resolve() != folders[0]:
            folders.append((root / path).resolve())
        save_to = next((f for f in folders if f.is_dir()), folders[0])
        return folders, save_to
    folders = []
    if root is not None:
        folders.append((root.parent / "shared" / "datasets").resolve())
    cache = Path(_DEFAULT_HOME).expanduser()
    folders.append(cache)
    return folders, cache


def get_data_home(data_home: str | os.PathLike[str] | None = None) -> Path:
    """Return the folder where dataset files are looked up and saved.

    The search order:

    1. ``data_home``, if given (used as given, ``~`` expanded; a relative path
       is relative to the current directory).
    2. The environment variable ``DPCONVEX_DATA``, if set and non-empty; a relative path
       (the README's ``DPCONVEX_DATA=../shared/datasets``) against the current directory,
       else against the project root of a source checkout (so it works from a notebook
       run in ``notebooks/`` too).
    3. Otherwise ``<project root>/../shared/datasets`` if that folder exists
       (source checkouts only), then ``~/.cache/dpconvex``, which is created
       if missing and is where downloads are saved.

    The result is the first existing folder of that order, else the folder where downloads
    would be saved; a folder given explicitly or through the environment is not created.

    Parameters
    ----------
    data_home : str, path-like or None
        The folder to use, or None for the search above.

    Raises
    ------
    ParameterError
        If ``data_home`` is not None, a string or a path-like object.
    DatasetError
        If the default folder does not exist and cannot be created.

    Examples
    --------
    >>> from dpconvex.datasets import get_data_home
    >>> get_data_home("~/my_data").name
    'my_data'
    >>> from pathlib import Path
    >>> isinstance(get_data_home(), Path)  # $DPCONVEX_DATA, else the defaults above
    True
    """
    folders, save_to = data_search_path(data_home)
    found = next((f for f in folders if f.is_dir()), None)
    if found is not None:
        return found
    if data_home is None and not os.environ.get(DATA_ENV_VAR):
        try:
            save_to.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise DatasetError(
                f"get_data_home: cannot create the default data folder {save_to} ({exc}). Set "
                f"{DATA_ENV_VAR} to a writable folder, or pass data_home=."
            ) from exc
    return save_to


# ---------------------------------------------------------------- Checksums

#: SHA-256 of each local file read in this process, by (path, size, mtime in ns).
_DIGESTS: dict[tuple[str, int, int], str] = {}
_DIGESTS_LOCK = threading.Lock()


def _digest_key(path: Path) -> tuple[str, int, int]:
    st = path.stat()
    return (str(path.resolve()), st.st_size, st.st_mtime_ns)


def file_sha256(path: Path) -> str:
    """SHA-256 of a file, computed once per process for each (path, size, mtime)."""
    key = _digest_key(path)
    with _DIGESTS_LOCK:
        digest = _DIGESTS.get(key)
    if digest is None:
        h = hashlib.sha256()
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
        digest = h.hexdigest()
        with _DIGESTS_LOCK:
            _DIGESTS[key] = digest
    return digest


def verify_file(path: Path, filename: str, verify_checksum: bool | None, caller: str) -> None:
    """Raise DatasetError (opened by ``caller``) if ``path`` is not the canonical ``filename``
    (SHA-256); checked if ``verify_checksum``, or if it is None and ``DPCONVEX_SKIP_CHECKSUM``
    is not set."""
    if verify_checksum is None:
        verify_checksum = os.environ.get(CHECKSUM_ENV_VAR, "").strip().lower() not in _TRUTHY
    expected = DATASET_SHA256.get(filename)
    if expected is None or not verify_checksum:
        return
    try:
        digest = file_sha256(path)
        size = path.stat().st_size
    except OSError as exc:
        raise DatasetError(f"{caller}: cannot read dataset file {path}: {exc}. Check that it "
                           "is a readable file.") from exc
    if digest != expected:
        raise DatasetError(
            f"{caller}: dataset file {path} ({size:,} bytes) has SHA-256 {digest}, not the pinned "
            f"{expected} "
            f"of the UCI file {filename!r}: it is damaged, truncated or a different version. "
            "Replace it with "
            f"the UCI file ({DATASET_URLS[filename]}), or delete it to download it again; if it "
            "is your own "
            f"copy on purpose, pass verify_checksum=False (or set {CHECKSUM_ENV_VAR}=1) to load "
            "it unchecked."
        )


# -------------------------------------------------- Finding and downloading


def _download(url: str, timeout: float) -> bytes:
    """Fetch ``url`` and return its bytes (the only function that uses the network)."""
    request = urllib.request.Request(url, headers={"User-Agent": "dpconvex"})
    with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
        return response.read()


def fetch_file(filename: str, data_home: str | os.PathLike[str] | None, download: bool,
               verify_checksum: bool | None, caller: str) -> Path:
    """The path of ``filename`` (a key of :data:`DATASET_URLS`) in the folders of
    ``data_home``, checked against its SHA-256 (:func:`verify_file`), else downloaded if
    ``download`` (always checked); a DatasetError opened by ``caller``, the public loader,
    when it is missing and not downloadable or its SHA-256 is wrong."""
    download, verify_checksum = check_flags(download, verify_checksum, caller)
    folders, home = data_search_path(data_home, caller)
    for folder in folders:
        path = folder / filename
        if path.is_file():
            verify_file(path, filename, verify_checksum, caller)
            return path
    path = home / filename
    url = DATASET_URLS[filename]
    where = str(folders[0]) if len(folders) == 1 else "any of " + ", ".join(map(str, folders))
    fix = f"Set {DATA_ENV_VAR} to a folder holding {filename}, or pass data_home= (the file is at {url})"
    if not download:
        raise DatasetError(
            f"{caller}: dataset file {filename!r} was not found in {where} and download=False. "
            f"{fix}, or "
            "pass download=True."
        )
    try:
        content = _download(url, _DOWNLOAD_TIMEOUT)
    except Exception as exc:  # URLError, HTTPError, TimeoutError, OSError, ...
        raise DatasetError(
            f"{caller}: dataset file {filename!r} was not found in {where}, and downloading it "
            "from "
            f"{url} failed ({type(exc).__name__}: {exc}). {fix}."
        ) from exc
    digest = hashlib.sha256(content).hexdigest()
    if digest != DATASET_SHA256[filename]:
        raise DatasetError(
            f"{caller}: dataset file {filename!r} was not found in {where}, and the copy "
            f"downloaded from {url} has SHA-256 {digest}, not the expected "
            f"{DATASET_SHA256[filename]}; it was not saved. {fix}."
        )
    tmp_name = None
    try:
        home.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=home, prefix=f".{filename}.", delete=False) as tmp:
            tmp_name = tmp.name
            tmp.write(content)
        os.replace(tmp_name, path)
        key = _digest_key(path)
    except OSError as exc:
        raise DatasetError(
            f"{caller}: dataset file {filename!r} was downloaded but could not be saved in {home} "
            f"({exc}). {fix}."
        ) from exc
    finally:  # on any failure or interruption (Ctrl-C too): no temporary file left
        if tmp_name is not None:
            with contextlib.suppress(FileNotFoundError):  # renamed into place
                os.unlink(tmp_name)
    with _DIGESTS_LOCK:
        _DIGESTS[key] = digest
    return path


def labelled_csv(
    path: Path,
    columns: tuple[str, ...],
    skip: int,
    labels: dict[str, int],
    what: str,
    caller: str,
    word: str = "label",
) -> tuple[dict[str, list[str]], list[int]]:
    """The columns and encoded labels of a UCI file's complete records.

    Each record holds ``skip`` leading fields (an id), ``columns``, then the label (a trailing
    '.' dropped, as in adult.test). Blank and banner lines (starting with '|', as in
    adult.test) and records with a missing value ('?') are skipped; an unreadable file, a
    record with another number of fields or an unknown label raises a DatasetError naming
    the line and ``what`` the file should be (opening with ``caller``, the public loader).
    """
    try:
        text = path.read_text(encoding="ascii", errors="strict")
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(f"{caller}: cannot read dataset file {path}: {exc}. Check that it is "
                           "a readable ASCII file (the UCI file).") from exc
    n_fields = skip + len(columns) + 1
    raw: dict[str, list[str]] = {c: [] for c in columns}
    y: list[int] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("|"):
            continue
        fields = [f.strip() for f in stripped.split(",")]
        if len(fields) != n_fields:
            raise DatasetError(
                f"{caller}: {path}, line {lineno}: expected {n_fields} comma-separated fields, "
                f"found {len(fields)}. Is this {what}?"
            )
        if "?" in fields:
            continue
        if fields[-1].rstrip(".") not in labels:
            raise DatasetError(f"{caller}: {path}, line {lineno}: unknown {word} {fields[-1]!r} "
                               f"(expected {' or '.join(map(repr, labels))}). Is this {what}?")
        y.append(labels[fields[-1].rstrip(".")])
        for col, value in zip(columns, fields[skip:-1], strict=True):
            raw[col].append(value)
    return raw, y
