"""The on-disk chunk store of load_kddcup99_dask appears whole or not at all."""

import gzip
import os
import shutil
import socket
import stat
import subprocess
import sys
import time

import pytest

from dpconvex.datasets._files import STALE_STAGE_SECONDS
from dpconvex.datasets.dask_loaders import _remove_incomplete, kddcup99_chunk_store
from dpconvex.errors import DatasetError

#: A KDD Cup 1999 record (41 features and its label), as in the UCI file.
RECORD = (b"0,tcp,http,SF,181,5450,0,0,0,0,0,1,0,0,0,0,0,0,0,0,0,0,8,8,0.00,0.00,0.00,0.00,"
          b"1.00,0.00,0.00,9,9,1.00,0.00,0.11,0.00,0.00,0.00,0.00,0.00,normal.")


def _gz(path, records):
    path.write_bytes(gzip.compress(b"\n".join(records) + b"\n"))
    return path


@pytest.mark.parametrize("bad", [RECORD.replace(b",181,", b",abc,"), b"0,tcp,http"],
                         ids=["a field not a number", "too few fields"])
def test_a_bad_record_after_some_chunks_leaves_no_partial_store(tmp_path, bad):
    """Two chunks are written before the bad record of the third is read: the error names the
    file, and the cache folder holds neither a partial store nor a temporary folder."""
    cache = tmp_path / "cache"
    source = _gz(tmp_path / "kdd.gz", [RECORD] * 5 + [bad])
    with pytest.raises(DatasetError, match="kdd.gz"):
        kddcup99_chunk_store(source, chunksize=2, cache_dir=cache)
    assert [p for p in cache.rglob("*")] == []
    store = kddcup99_chunk_store(_gz(source, [RECORD] * 5), chunksize=2, cache_dir=cache)
    assert sorted(p.name for p in store.iterdir()) == [
        "X-00000.npy", "X-00001.npy", "X-00002.npy", "meta.json", "y.npy"]
    assert [p.name for p in cache.iterdir()] == [store.name]  # no hidden folder beside it


def test_a_write_removes_the_stage_folders_killed_writers_of_its_store_left(tmp_path):
    """A process killed while writing leaves its hidden folder: the next write of that store
    removes it once it is older than STALE_STAGE_SECONDS, and leaves a running writer's
    folder, a killed writer's younger one and another store's folder alone."""
    cache = tmp_path / "cache"
    source = _gz(tmp_path / "kdd.gz", [RECORD] * 3)
    name = kddcup99_chunk_store(source, chunksize=2, cache_dir=cache).name
    shutil.rmtree(cache / name)
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()  # its id names no running process
    host = socket.gethostname()
    killed = cache / f".{name}.{host}-{ended.pid}-abcdefgh.tmp"
    young = cache / f".{name}.{host}-{ended.pid}-abcdefg_.tmp"
    running = cache / f".{name}.{host}-{os.getpid()}-abcdefgh.tmp"
    other = cache / f".other-{name}.{host}-{ended.pid}-abcdefgh.tmp"
    old = time.time() - STALE_STAGE_SECONDS - 60
    for folder in (killed, young, running, other):
        (folder / "X-00000.npy").parent.mkdir(parents=True)
        (folder / "X-00000.npy").write_bytes(b"chunk")
        if folder is not young:
            for path in (folder / "X-00000.npy", folder):
                os.utime(path, (old, old))
    kddcup99_chunk_store(source, chunksize=2, cache_dir=cache)
    assert sorted(p.name for p in cache.iterdir()) == sorted(
        [name, young.name, running.name, other.name])


@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_the_store_has_a_folders_mode_under_the_umask(tmp_path, umask):
    """The store is created as mkdir creates a folder (0o777 minus the umask): readable by
    the users a cache folder is shared with where the umask lets them."""
    source = _gz(tmp_path / "kdd.gz", [RECORD] * 3)
    old = os.umask(umask)
    try:
        store = kddcup99_chunk_store(source, chunksize=2, cache_dir=tmp_path / "cache")
    finally:
        os.umask(old)
    assert stat.S_IMODE(store.stat().st_mode) == 0o777 & ~umask


def test_an_incomplete_store_another_process_removed_first_is_no_error(tmp_path):
    """Two processes that find the same incomplete store: the one that comes second finds it
    gone and goes on to put its own in place."""
    store = tmp_path / "kdd-store"
    store.mkdir()
    _remove_incomplete(store)
    assert not store.exists()
    _remove_incomplete(store)  # the second process: nothing left to remove
    assert list(tmp_path.iterdir()) == []
