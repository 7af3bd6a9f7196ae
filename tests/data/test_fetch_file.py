"""A downloaded dataset file is saved whole or not at all (no network: the download is faked)."""

import hashlib
import os

import pytest

from dpconvex.datasets import _files
from dpconvex.errors import DatasetError

NAME = "adult.data"
CONTENT = b"39, State-gov, 77516, Bachelors, 13, Never-married, <=50K\n"


@pytest.fixture
def download(monkeypatch):
    """fetch_file downloads CONTENT, stated as the file's SHA-256."""
    monkeypatch.setattr(_files, "_download", lambda url, timeout: CONTENT)
    monkeypatch.setitem(_files.DATASET_SHA256, NAME, hashlib.sha256(CONTENT).hexdigest())


@pytest.mark.parametrize("stop", [OSError(28, "No space left on device"), KeyboardInterrupt()],
                         ids=["full disk", "Ctrl-C"])
def test_a_download_that_cannot_be_saved_leaves_no_file(tmp_path, monkeypatch, download, stop):
    """The rename of the downloaded file into place fails or is interrupted: a named error (an
    interruption passes through), and the data folder holds no file and no temporary file."""
    def stopped(a, b):
        raise stop

    monkeypatch.setattr(_files.os, "replace", stopped)
    expected = DatasetError if isinstance(stop, OSError) else KeyboardInterrupt
    with pytest.raises(expected):
        _files.fetch_file(NAME, tmp_path, True, True, "load_adult")
    assert os.listdir(tmp_path) == []


def test_a_saved_download_is_the_only_file(tmp_path, download):
    path = _files.fetch_file(NAME, tmp_path, True, True, "load_adult")
    assert path.read_bytes() == CONTENT and os.listdir(tmp_path) == [NAME]
