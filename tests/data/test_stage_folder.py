"""The stage folder a writer fills before renaming it into place: which folders beside it go."""

import os
import socket
import stat
import subprocess
import sys
import time

import pytest

from dpconvex.datasets._files import STALE_STAGE_SECONDS, stage_folder


def _ended_pid() -> int:
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()  # its id names no running process
    return ended.pid


def _folder(path, age=0.0):
    """A folder holding a file, nothing in it changed for ``age`` seconds."""
    path.mkdir()
    (path / "data.txt").write_text("kept?")
    then = time.time() - age
    for p in (path / "data.txt", path):
        os.utime(p, (then, then))
    return path


def test_only_an_old_stage_of_this_hosts_ended_writer_is_removed(tmp_path):
    """Names the old loose rule matched (a user's backups, a too-large pid, a random part of
    another length) are kept at any age, as is a stage of an ended writer changed within
    STALE_STAGE_SECONDS; the stage of this host's ended writer older than that goes."""
    host, pid, old = socket.gethostname(), _ended_pid(), STALE_STAGE_SECONDS + 60
    kept = [_folder(tmp_path / n, old) for n in (
        ".results.backup.tmp", ".results.2024-01.tmp", ".results.old-copy.tmp",
        f".results.{host}-{pid}-abc.tmp", f".results.{host}-{pid}-abcdefgh.extra.tmp",
        f".results.other-host-{pid}-abcdefgh.tmp", f".results.{host}-{2**80}-abcdefgh.tmp")]
    kept.append(_folder(tmp_path / f".results.{host}-{pid}-young___.tmp", age=60))
    stale = _folder(tmp_path / f".results.{host}-{pid}-abcdefgh.tmp", old)
    stage = stage_folder(tmp_path, "results")
    assert not stale.exists()
    assert sorted(p.name for p in tmp_path.iterdir() if p != stage) == sorted(
        p.name for p in kept)
    assert all((p / "data.txt").read_text() == "kept?" for p in kept)


@pytest.mark.skipif(os.name != "posix", reason="the umask is POSIX")
def test_the_stage_is_this_writers_with_a_folders_mode(tmp_path):
    """Its name is .{name}.{host}-{pid}-{8 random}.tmp; its mode 0o777 minus the umask."""
    old = os.umask(0o027)
    try:
        stage = stage_folder(tmp_path, "results")
    finally:
        os.umask(old)
    prefix = f".results.{socket.gethostname()}-{os.getpid()}-"
    assert stage.name.startswith(prefix) and len(stage.name) == len(prefix) + 8 + len(".tmp")
    assert stat.S_IMODE(stage.stat().st_mode) == 0o750
