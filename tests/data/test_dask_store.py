"""The on-disk chunk store of load_kddcup99_dask appears whole or not at all."""

import gzip

import pytest

from dpconvex.datasets.dask_loaders import kddcup99_chunk_store
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
