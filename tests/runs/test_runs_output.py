"""dpconvex run: the output folder is checked before any fit, and results are written atomically."""

import json
import os
from pathlib import Path

import pytest
from _helpers import PLACEHOLDER_PNG, placeholder_plot

from dpconvex import cli
from dpconvex.errors import DPConvexError
from dpconvex.runs import report, runner
from dpconvex.runs.report import OutputError, check_output_dir, write_outputs
from dpconvex.runs.runner import run_problem

GOOD = """
[data]
dataset = "sklearn_breast_cancer"
[grid]
epsilon = [1.0]
runs = 1
[[method]]
label = "LR"
estimator = "PrivateLogisticRegression"
params = { lam = 0.01 }
[[method]]
label = "LR non-private"
estimator = "PrivateLogisticRegression"
params = { lam = 0.01, mechanism = "none" }
"""


@pytest.fixture
def problem(tmp_path):
    p = tmp_path / "good.toml"
    p.write_text(GOOD)
    return p


@pytest.fixture
def no_fitting(monkeypatch):
    """Fail the test if the run starts (the check must come before any fit)."""
    def boom(*a, **k):
        raise AssertionError("the run started although the output folder is unusable")

    monkeypatch.setattr(runner, "run_problem", boom)


def _run(problem, out):
    return cli.main(["run", str(problem), "--out", str(out), "--no-progress"])


def test_output_error_is_named():
    assert issubclass(OutputError, DPConvexError) and issubclass(OutputError, OSError)


def _permissions_enforced(folder: Path) -> bool:
    try:
        (folder / "probe").write_text("x")
    except PermissionError:
        return True
    (folder / "probe").unlink()
    return False


def test_read_only_output_folder_fails_before_fitting(problem, tmp_path, capsys, no_fitting):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        if not _permissions_enforced(ro):
            pytest.skip("this user writes into read-only folders (root with CAP_DAC_OVERRIDE)")
        assert _run(problem, ro) == 2
        assert _run(problem, ro / "sub" / "dir") == 2
    finally:
        ro.chmod(0o755)
    err = capsys.readouterr().err
    assert "dpconvex: error: cannot" in err and "--out" in err
    assert list(ro.iterdir()) == []


def test_unwritable_output_folder_fails_before_fitting(problem, tmp_path, capsys, no_fitting,
                                                       monkeypatch):
    """The same check when running as root: the probe write is refused (EACCES)."""
    out = tmp_path / "out"
    out.mkdir()

    def refuse(*a, **k):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(report.tempfile, "NamedTemporaryFile", refuse)
    monkeypatch.setattr(report.tempfile, "mkdtemp", refuse)
    assert _run(problem, out) == 2
    assert _run(problem, out / "new") == 2
    err = capsys.readouterr().err
    assert err.count("Permission denied") == 2 and "Choose a writable folder with --out" in err


def test_output_path_under_a_file_fails_before_fitting(problem, tmp_path, capsys, no_fitting):
    f = tmp_path / "a_file"
    f.write_text("x")
    assert _run(problem, f) == 2
    assert _run(problem, f / "sub") == 2
    err = capsys.readouterr().err
    assert "exists and is not a folder" in err and "is a file, not a folder" in err


def test_an_empty_output_path_fails_before_fitting(problem, tmp_path, capsys, no_fitting, monkeypatch):
    """--out "" names no folder: refused, not read as the current folder or the default one."""
    monkeypatch.chdir(tmp_path)
    assert _run(problem, "") == 2
    assert capsys.readouterr().err.startswith(
        "dpconvex: error: check_output_dir: '' is not a usable output folder (an empty path). "
        "Choose another path with --out.")
    with pytest.raises(OutputError, match="an empty path"):
        check_output_dir("")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["good.toml"]


def test_check_output_dir_leaves_nothing_behind(tmp_path):
    out = tmp_path / "a" / "b"
    assert check_output_dir(out) == out
    assert not (tmp_path / "a").exists() and list(tmp_path.iterdir()) == []
    out.mkdir(parents=True)
    check_output_dir(out)
    assert list(out.iterdir()) == []


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    p = tmp_path_factory.mktemp("prob") / "good.toml"
    p.write_text(GOOD)
    return run_problem(p, progress=False)


@pytest.mark.slow
@pytest.mark.parametrize("failure", ["json_oserror", "json_other", "png", "replace", "json_replace"])
def test_failed_write_keeps_the_earlier_results(result, tmp_path, monkeypatch, failure):
    out = tmp_path / "out"
    js, png = write_outputs(result, out)
    png.write_bytes(b"an earlier plot")  # not the plot this result draws
    before = (js.read_bytes(), png.read_bytes())
    assert json.loads(before[0])["passed"] is True

    def disk_full(*a, **k):
        raise OSError(28, "No space left on device")

    def bug(*a, **k):
        raise RuntimeError("boom")

    if failure == "json_oserror":
        monkeypatch.setattr(json, "dump", disk_full)
    elif failure == "json_other":
        monkeypatch.setattr(json, "dump", bug)
    elif failure == "png":
        monkeypatch.setattr(report, "_save_png", disk_full)
    elif failure == "replace":
        monkeypatch.setattr(report.os, "replace", disk_full)
    else:  # the plot replaced, then the JSON cannot be: the earlier plot is put back
        real = os.replace
        monkeypatch.setattr(report.os, "replace",
                            lambda a, b: disk_full() if str(b).endswith(".json") else real(a, b))
    expected = RuntimeError if failure == "json_other" else OutputError
    with pytest.raises(expected) as ei:
        write_outputs(result, out)
    if expected is OutputError:
        assert "No space left on device" in str(ei.value) and "unchanged" in str(ei.value)
    assert (js.read_bytes(), png.read_bytes()) == before
    assert sorted(p.name for p in out.iterdir()) == ["error_vs_epsilon.png", "results.json"]


def test_an_earlier_plot_is_put_back_as_it_was(result, tmp_path, monkeypatch):
    """results.json cannot replace its own: the earlier plot, a symlink here, is put back as the
    same symlink (a second name for it, not a copy of what it points to)."""
    out = tmp_path / "out"
    with monkeypatch.context() as m:  # the earlier results; their plot becomes the symlink
        placeholder_plot(m)
        js, png = write_outputs(result, out)
    (tmp_path / "mine.png").write_bytes(b"the user's plot")
    png.unlink()
    png.symlink_to(tmp_path / "mine.png")
    real = os.replace
    monkeypatch.setattr(report.os, "replace",
                        lambda a, b: (_ for _ in ()).throw(OSError(28, "full")) if str(b).endswith(".json")
                        else real(a, b))
    with pytest.raises(OutputError, match="unchanged"):
        write_outputs(result, out)
    assert png.is_symlink() and png.read_bytes() == b"the user's plot"
    assert sorted(p.name for p in out.iterdir()) == ["error_vs_epsilon.png", "results.json"]


@pytest.mark.parametrize("stop", [SystemExit(143), KeyboardInterrupt()])
def test_an_interruption_between_the_renames_keeps_the_earlier_pair(result, tmp_path, monkeypatch,
                                                                     stop):
    """SIGTERM (SystemExit in dpconvex run) or Ctrl-C after the new plot is renamed into place and
    before results.json is: the earlier plot is put back, so the folder holds the earlier pair,
    and no temporary file is left."""
    out = tmp_path / "out"
    with monkeypatch.context() as m:
        placeholder_plot(m)
        js, png = write_outputs(result, out)
    png.write_bytes(b"an earlier plot")  # the plot the new write would replace
    before = (js.read_bytes(), png.read_bytes())
    placeholder_plot(monkeypatch)
    real = os.replace

    def interrupted(a, b):
        if str(b).endswith(".json"):
            raise stop
        return real(a, b)

    monkeypatch.setattr(report.os, "replace", interrupted)
    with pytest.raises(type(stop)):
        write_outputs(result, out)
    assert (js.read_bytes(), png.read_bytes()) == before
    assert sorted(p.name for p in out.iterdir()) == ["error_vs_epsilon.png", "results.json"]


def test_write_outputs_replaces_files_and_keeps_their_mode(result, tmp_path, monkeypatch):
    out = tmp_path / "out"
    with monkeypatch.context() as m:  # the earlier results: a placeholder plot, replaced below
        placeholder_plot(m)
        js, png = write_outputs(result, out)
    assert png.read_bytes() == PLACEHOLDER_PNG
    mask = os.umask(0)
    os.umask(mask)
    assert (js.stat().st_mode & 0o777) == (0o666 & ~mask)
    js.chmod(0o640)
    js.write_text("{}")
    write_outputs(result, out)
    assert json.loads(js.read_text())["problem"] == "good"
    assert (js.stat().st_mode & 0o777) == 0o640
    assert png.stat().st_size > 1000
    assert sorted(p.name for p in Path(out).iterdir()) == ["error_vs_epsilon.png", "results.json"]


def test_a_new_output_folder_appears_only_complete(result, tmp_path, monkeypatch):
    """While the files are written, the new folder does not exist under its name: a process
    killed then (SIGKILL, a power cut) leaves no results folder, not a partial one."""
    out = tmp_path / "runs" / "out"
    seen = []

    def write(res, target):
        seen.append(out.exists())
        target.write(PLACEHOLDER_PNG)

    monkeypatch.setattr(report, "_save_png", write)
    js, png = write_outputs(result, out)
    assert seen == [False]
    assert sorted(p.name for p in out.iterdir()) == ["error_vs_epsilon.png", "results.json"]
    assert [p.name for p in (tmp_path / "runs").iterdir()] == ["out"]  # no hidden folder left
    mask = os.umask(0)
    os.umask(mask)
    assert (out.stat().st_mode & 0o777) == (0o777 & ~mask)  # a folder's mode, as mkdir makes it
    assert json.loads(js.read_text())["problem"] == "good" and png.read_bytes() == PLACEHOLDER_PNG

    def interrupted(res, target):
        raise KeyboardInterrupt

    monkeypatch.setattr(report, "_save_png", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_outputs(result, tmp_path / "new" / "out")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs"]


@pytest.mark.parametrize("where", ["fits", "writing"])
def test_ctrl_c_exits_130_with_one_line_and_leaves_no_files(problem, result, tmp_path, monkeypatch,
                                                            capsys, where):
    """Ctrl-C during the fits or while the results are written: status 130, one line on stderr (no
    traceback), and neither the results folder nor a hidden folder or temporary file is left."""
    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "run_problem", interrupt if where == "fits" else lambda *a, **k: result)
    if where == "writing":
        monkeypatch.setattr(report, "_save_png", interrupt)
    out = tmp_path / "runs" / "out"
    try:
        code = _run(problem, out)
    except KeyboardInterrupt:
        pytest.fail("Ctrl-C ended dpconvex run in a traceback")
    err = capsys.readouterr().err
    assert code == 130 and err.count("\n") == 1 and err.startswith("dpconvex: interrupted;"), err
    assert not (tmp_path / "runs").exists()


@pytest.mark.slow
@pytest.mark.skipif(os.name != "posix", reason="SIGTERM is POSIX")
def test_sigterm_while_writing_leaves_no_files(problem, tmp_path):
    """dpconvex run stopped by SIGTERM (kill, timeout, a scheduler) while it writes: exit status
    143, and neither the results folder nor a hidden folder or temporary file is left."""
    import subprocess
    import sys

    out = tmp_path / "runs" / "out"
    code = ("import os, signal, sys, time; from dpconvex import cli; from dpconvex.runs import report\n"
            "def terminated(result, target):\n"
            "    os.kill(os.getpid(), signal.SIGTERM); time.sleep(30)\n"
            "report._save_png = terminated\n"
            f"sys.exit(cli.main(['run', {str(problem)!r}, '--out', {str(out)!r}, '--no-progress']))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 143, proc.stderr
    assert not (tmp_path / "runs").exists()


@pytest.mark.slow
@pytest.mark.skipif(os.name != "posix", reason="RLIMIT_FSIZE is POSIX")
def test_file_size_limit_keeps_the_earlier_results(problem, tmp_path):
    """A real write failure (EFBIG under a file-size limit), in a child process."""
    import resource
    import subprocess
    import sys

    out = tmp_path / "out"
    assert _run(problem, out) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    limit = len(before["results.json"]) + 4096  # the JSON fits, the PNG does not

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    code = ("import sys; from dpconvex import cli; "
            f"sys.exit(cli.main(['run', {str(problem)!r}, '--out', {str(out)!r}, '--no-progress']))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          preexec_fn=small_files, timeout=600)
    assert proc.returncode == 2, proc.stderr
    assert "could not write the results" in proc.stderr and "unchanged" in proc.stderr
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
