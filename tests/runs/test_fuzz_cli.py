"""The command line under bad input: a fixed, seeded table of cases over run, list, verify and demo.

Every bad case (a flag, a number, a problem file with a wrong-typed, unknown or out-of-range
field, a name that would leave the output folder, an unusable ``--out``) must:

* exit with status 2 (no case may be accepted: status 0 or 1);
* print exactly one line on stderr, starting with ``dpconvex``, and no traceback;
* raise nothing but ``SystemExit`` out of ``dpconvex.cli.main`` (no raw exception);
* write no file anywhere under the sandbox (the working folder, the problem folder and
  the parent the escaping names aim at);
* finish within its time cap (a thread joined with a timeout: no hang).

The valid cases check the other side: a good problem runs, writes its two files in the
output folder only, and ``list`` reports broken files as INVALID without hiding the
others. Most cases run in-process (``main([...])``); a few run ``python -m dpconvex``.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _helpers import placeholder_plot

from dpconvex.cli import main

#: Time cap of one in-process case that is refused (seconds; the refusals take milliseconds,
#: the cap leaves room for a first import of the numerics on a loaded machine).
CAP_BAD = 20.0
#: Time cap of one in-process case that runs a problem or loads data.
CAP_OK = 60.0
#: Time cap of one ``python -m dpconvex`` case (interpreter start and imports included).
CAP_SUBPROCESS = 60.0
DELETE = object()  # a mutation that removes the key

#: A small valid problem: one private method, one ε, one run (about a second).
BASE: dict[str, Any] = {
    "name": "fuzzbase",
    "title": "fuzz",
    "reference": "none",
    "description": "a problem for the command-line fuzz table",
    "data": {"dataset": "sklearn_breast_cancer", "split": "random", "test_size": 0.3},
    "grid": {"epsilon": [1.0], "runs": 1, "seed": 0},
    "method": [{"label": "LR", "estimator": "PrivateLogisticRegression",
                "params": {"mechanism": "objective", "lam": 0.01}}],
    "expect": [{"method": "LR", "epsilon": 1.0, "max_error": 1.0}],
    "quick": {"runs": 1, "epsilon": [1.0], "max_train": 200},
}


# ------------------------------------------------------------------------------ TOML writing
def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf") if math.isinf(v) else repr(v)
    if isinstance(v, str):
        return json.dumps(v)  # JSON escapes (\u0000, \\, \") are TOML basic-string escapes
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(type(v))


def _dump(doc: dict[str, Any]) -> str:
    """Every top-level key as ``key = value`` (inline tables and arrays of inline tables)."""
    return "".join(f"{json.dumps(k)} = {_value(v)}\n" for k, v in doc.items())


def _mutate(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    doc = json.loads(json.dumps(BASE))  # a deep copy
    node = doc
    for key in path[:-1]:
        node = node[key]
    if value is DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return doc


# ------------------------------------------------------------------------------ the table
@dataclass
class Case:
    id: str
    argv: list[str] | None = None  # in-process; {tmp}, {out}, {file} are filled in
    text: str | bytes | None = None  # the problem file's content, when the case writes one
    ok: bool = False  # a valid case: exit 0 or 1, files only in {out}
    subprocess: bool = False
    env: dict[str, str] = field(default_factory=dict)


NAN, INF = float("nan"), float("inf")
WRONG = [5, 1.5, True, [1], {"a": 1}]  # one value of each TOML type but string
FIELD_CASES: list[tuple[tuple[Any, ...], list[Any]]] = [
    (("title",), WRONG),
    (("reference",), WRONG),
    (("description",), WRONG),
    (("name",), [*WRONG, "", "..", ".", "../escaped", "../../escaped", "a/b", "a\\b", "nul\x00x",
                 "x" * 300, " lead", "{tmp}/escaped_abs"]),
    (("bogus_top",), [1]),
    (("data",), [5, [1], "x"]),
    (("data", "dataset"), [5, "nope", [1], {"a": 1}, True, DELETE]),
    (("data", "split"), [5, "nope", [1]]),
    (("data", "test_size"), [0, -1, 1.5, 0.0, "x", True, [1], NAN, INF]),
    (("data", "train_size"), [0, -1, 1.5, "x", True, NAN]),
    (("data", "options"), [5, "x", [1], {"bogus": 1}]),
    (("data", "bogus"), [1]),
    (("grid",), [5, [1]]),
    (("grid", "epsilon"), [5, [], [0], [-1.0], ["x"], [True], [INF], [NAN], "x", [[1.0]], DELETE]),
    (("grid", "runs"), [0, -1, 1.5, "x", True, [1], 10**5, 10**20]),
    (("grid", "seed"), [-1, 1.5, "x", True, [1]]),
    (("grid", "train_sizes"), [5, [], [0], ["x"], [1.5], [10**9]]),
    (("grid", "bogus"), [1]),
    (("method",), [5, [], {"label": "LR"}, [5], DELETE]),
    (("method", 0, "label"), [5, "", [1], True]),
    (("method", 0, "estimator"), [5, "Nope", [1], DELETE]),
    (("method", 0, "params"), [5, [1], "x", {"bogus": 1}, {"epsilon": 1.0}, {"random_state": 1},
                               {"mechanism": [1]}, {"mechanism": 5}, {"mechanism": "nope"},
                               {"lam": -1.0}, {"lam": "x"}, {"lam": NAN}, {"lam": INF}]),
    (("method", 0, "tune"), [5, {"lam": []}, {"lam": 5}, {"bogus": [1.0]}, {"lam": ["x"]}]),
    (("method", 0, "bogus"), [1]),
    (("expect",), [5, [5], {"method": "LR"}]),
    (("expect", 0, "method"), [5, "nope", [1], DELETE]),
    (("expect", 0, "epsilon"), [0, -1, "x", True, INF, NAN]),
    (("expect", 0, "max_error"), [DELETE, "x", 2, -1, True]),
    (("expect", 0, "min_error"), ["x", 2, [1]]),
    (("expect", 0, "train_size"), [0, "x"]),
    (("expect", 0, "bogus"), [1]),
    (("quick",), [5, [1]]),
    (("quick", "runs"), [0, 10**5, "x"]),
    (("quick", "epsilon"), [[], [0], "x"]),
    (("quick", "max_train"), [0, "x", 1.5]),
    (("quick", "expect"), [5, [{"method": "nope", "max_error": 1.0}]]),
    (("quick", "train_sizes"), [5, []]),
    (("quick", "bogus"), [1]),
]

RUN = ["run", "{file}", "--runs", "1", "--no-progress", "--out", "{out}"]


def _cases() -> list[Case]:
    cases: list[Case] = []
    for path, values in FIELD_CASES:
        for v in values:
            if path == ("name",):  # a name's folder: the default results/NAME under {tmp}
                argv = ["run", "{file}", "--runs", "1", "--no-progress"]
            else:
                argv = RUN
            shown = "DELETE" if v is DELETE else repr(v)[:24]
            cases.append(Case(f"{'.'.join(map(str, path))}={shown}", argv, text=_mutate(path, v)))
    dup = json.loads(json.dumps(BASE))
    dup["method"].append(dict(dup["method"][0]))
    cases.append(Case("method.label duplicated", RUN, text=dup))
    # files that are not a valid problem at all
    cases += [
        Case("file: TOML syntax error", RUN, text="title = \n"),
        Case("file: not UTF-8", RUN, text=b"\xff\xfe\x00garbage"),
        Case("file: empty", RUN, text=""),
        Case("file: a folder named .toml", ["run", "{tmp}/folder.toml", "--out", "{out}"]),
        Case("file: missing path", ["run", "{tmp}/missing/x.toml", "--out", "{out}"]),
        Case("problem: NUL in the argument", ["run", "a\x00b.toml", "--out", "{out}"]),
        Case("problem: unknown name", ["run", "no_such_problem", "--out", "{out}"]),
        Case("problem: empty name", ["run", "", "--out", "{out}"]),
        Case("problem: very long name", ["run", "p" * 5000, "--out", "{out}"]),
    ]
    # unusable output folders (as root, permissions do not stop writes: files and bad paths do)
    good = _dump(BASE)
    cases += [
        Case("--out is a file", ["run", "{file}", "--no-progress", "--out", "{tmp}/afile"], good),
        Case("--out under a file", ["run", "{file}", "--no-progress", "--out", "{tmp}/afile/sub"], good),
        Case("--out with NUL", ["run", "{file}", "--no-progress", "--out", "{tmp}/o\x00ut"], good),
        Case("--out too long", ["run", "{file}", "--no-progress", "--out", "{tmp}/" + "o" * 5000], good),
    ]
    # flags and numbers
    flags = [
        ["run"], ["run", "{file}", "--runs"], ["run", "{file}", "--runs", "0"],
        ["run", "{file}", "--runs", "-1"], ["run", "{file}", "--runs", "1.5"],
        ["run", "{file}", "--runs", "1e3"], ["run", "{file}", "--runs", ""],
        ["run", "{file}", "--runs", "10001"], ["run", "{file}", "--runs", str(10**20)],
        ["run", "{file}", "--runs", "9" * 5000], ["run", "{file}", "--out"],
        ["run", "{file}", "--quick=3"], ["run", "{file}", "--bogus"], ["run", "{file}", "extra"],
        ["demo", "--seed", "-1"], ["demo", "--seed", "1.5"], ["demo", "--seed", "x"],
        ["demo", "--seed", str(2**130)], ["demo", "--runs", "0"], ["demo", "--runs", str(10**20)],
        ["demo", "--runs", "-5"], ["demo", "--lam", "x"], ["demo", "--lam", "-1"],
        ["demo", "--lam", "0"], ["demo", "--lam", "nan"], ["demo", "--lam", "inf"],
        ["demo", "--lam", "1e400"], ["demo", "--bogus"], ["verify"], ["verify", "no_such_problem"],
        ["verify", "{file}", "extra"], ["list", "extra"], ["bogus"], ["--bogus"],
    ]
    cases += [Case("argv: " + " ".join(a)[:60], a, good) for a in flags]
    return cases


def _seeded_mutations(k: int = 40, seed: int = 0) -> list[Case]:
    """k problem files with two or three bad fields at once, drawn with a fixed seed."""
    rng = np.random.default_rng(seed)
    flat = [(p, v) for p, vs in FIELD_CASES for v in vs if p != ("name",) and len(p) > 1]
    out = []
    for i in range(k):
        doc = json.loads(json.dumps(BASE))
        picks = rng.choice(len(flat), size=int(rng.integers(2, 4)), replace=False)
        for j in sorted(picks, key=lambda j: len(flat[j][0])):
            path, v = flat[j]
            node = doc
            try:
                for key in path[:-1]:
                    node = node[key]
                if v is DELETE:
                    node.pop(path[-1], None)
                else:
                    node[path[-1]] = v
            except (KeyError, IndexError, TypeError):  # an earlier pick replaced the parent
                pass
        out.append(Case(f"seeded mutation {i}", RUN, text=doc))
    return out


BAD = _cases() + _seeded_mutations()


# ------------------------------------------------------------------------------ running a case
def _fill(a: str, tmp: Path, file: Path) -> str:
    return a.replace("{tmp}", str(tmp)).replace("{file}", str(file)).replace("{out}", str(tmp / "out"))


def _sandbox(tmp: Path, case: Case) -> tuple[Path, list[str]]:
    """Write the case's problem file under tmp/problems; return it and the argv."""
    (tmp / "problems").mkdir(exist_ok=True)
    (tmp / "afile").write_text("a file, not a folder\n")
    (tmp / "folder.toml").mkdir(exist_ok=True)
    file = tmp / "problems" / "case.toml"
    text = case.text if case.text is not None else BASE
    if isinstance(text, dict):
        text = _dump(text).replace("{tmp}", str(tmp))
    file.write_bytes(text if isinstance(text, bytes) else text.encode())
    return file, [_fill(a, tmp, file) for a in (case.argv or RUN)]


def _tree(root: Path) -> set[str]:
    """Every path under ``root``."""
    out: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(root):
        out.update(os.path.join(dirpath, n) for n in dirnames + filenames)
    return out


def _in_process(argv: list[str], cap: float) -> dict[str, Any]:
    """main(argv) in a thread joined with a timeout; status, raw exception, stdout, stderr."""
    box: dict[str, Any] = {}
    out, err = io.StringIO(), io.StringIO()

    def target() -> None:
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                box["status"] = main(argv)
        except SystemExit as exc:
            box["status"] = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        except BaseException as exc:  # a raw exception: what the fuzz looks for
            box["raw"] = exc

    t0 = time.monotonic()
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(cap)
    box["hang"] = thread.is_alive()
    box["seconds"] = time.monotonic() - t0
    box["stdout"], box["stderr"] = out.getvalue(), err.getvalue()
    return box


def _verdict(box: dict[str, Any], bad: bool, new_files: set[str]) -> str:
    """"ok", or the first failure: hang, raw exception, accepted, status, message, files."""
    if box["hang"]:
        return "hang"
    if "raw" in box:
        return f"raw {type(box['raw']).__name__}: {box['raw']}"
    lines = [ln for ln in box["stderr"].splitlines() if ln.strip()]
    if bad:
        if box["status"] in (0, 1):
            return f"bad input accepted (status {box['status']})"
        if box["status"] != 2:
            return f"status {box['status']}"
        if len(lines) != 1 or not lines[0].startswith("dpconvex") or "Traceback" in box["stderr"]:
            return f"message not one line: {box['stderr'][:300]!r}"
    elif box["status"] not in (0, 1):
        return f"status {box['status']}: {box['stderr'][:300]!r}"
    if new_files:
        return f"wrote {sorted(new_files)[:3]}"
    return "ok"


def run_case(case: Case, tmp: Path) -> tuple[str, dict[str, Any]]:
    """Run one case in the sandbox ``tmp`` (the working folder); its verdict and raw result."""
    file, argv = _sandbox(tmp, case)
    before = _tree(tmp) | {str(p) for p in tmp.parent.iterdir()}
    box = _in_process(argv, CAP_OK if case.ok else CAP_BAD)
    after = _tree(tmp) | {str(p) for p in tmp.parent.iterdir()}
    allowed = str(tmp / "out") if case.ok else None
    new = {p for p in after - before if not (allowed and (p == allowed or p.startswith(allowed + os.sep)))}
    if case.ok and not any(p.startswith(str(tmp / "out")) for p in after - before):
        new.add("(no output written)")
    return _verdict(box, not case.ok, new), box


@pytest.fixture(scope="module")
def sandboxes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder that holds the parent folder of every test's sandbox (one per module)."""
    return tmp_path_factory.mktemp("fuzz_cli")


@pytest.fixture
def sandbox(sandboxes, monkeypatch):
    """An empty working folder of its own, in an empty parent of its own (the parent is
    checked for escapes too): ``tempfile.mkdtemp`` makes the parent in one call, which
    spares each of the few hundred cases pytest's numbered ``tmp_path`` (a scan of its
    base folder and a fresh ``-current`` link)."""
    tmp = Path(tempfile.mkdtemp(dir=sandboxes)) / "work"
    tmp.mkdir()
    monkeypatch.chdir(tmp)
    monkeypatch.setenv("DPCONVEX_PROBLEMS", str(tmp / "problems"))
    return tmp


@pytest.mark.parametrize("case", BAD, ids=[c.id for c in BAD])
def test_bad_input_is_refused_in_one_line(case, sandbox):
    verdict, box = run_case(case, sandbox)
    assert verdict == "ok", f"{case.id}: {verdict}"
    assert box["seconds"] < CAP_BAD


def test_the_table_is_large_and_reaches_every_subcommand():
    commands = {(c.argv or RUN)[0] for c in BAD}
    assert {"run", "demo", "verify", "list"} <= commands
    assert len(BAD) > 250


# ------------------------------------------------------------------------------ valid cases
@pytest.mark.slow
def test_a_good_problem_writes_its_files_in_the_output_folder_only(sandbox):
    verdict, box = run_case(Case("good run", RUN, _dump(BASE), ok=True), sandbox)
    assert verdict == "ok", verdict
    assert box["status"] == 0
    assert sorted(p.name for p in (sandbox / "out").iterdir()) == ["error_vs_epsilon.png",
                                                                   "results.json"]


def test_default_output_folder_is_results_name(sandbox, monkeypatch):
    placeholder_plot(monkeypatch)  # the claim is where the files go, not the drawing
    file, _ = _sandbox(sandbox, Case("default out"))
    box = _in_process(["run", str(file), "--no-progress"], CAP_OK)
    assert box.get("status") == 0 and not box["hang"], box
    assert sorted(p.name for p in (sandbox / "results" / "fuzzbase").iterdir()) == [
        "error_vs_epsilon.png", "results.json"]


def test_list_marks_broken_files_and_keeps_the_others(sandbox):
    folder = sandbox / "problems"
    folder.mkdir()
    (folder / "good.toml").write_text(_dump(BASE))
    for i, case in enumerate(BAD[:60]):
        if isinstance(case.text, dict):
            (folder / f"bad{i:02d}.toml").write_text(_dump(case.text).replace("{tmp}", str(sandbox)))
    box = _in_process(["list"], CAP_OK)
    assert box.get("status") == 0 and "raw" not in box and not box["hang"], box
    lines = box["stdout"].splitlines()
    assert any(ln.startswith("fuzzbase") for ln in lines)
    assert sum("INVALID" in ln for ln in lines) >= 40
    assert "please report" not in box["stdout"]


# ------------------------------------------------------------------------------ subprocess cases
SUBPROCESS = [
    Case("python -m dpconvex demo --seed -1", ["demo", "--seed", "-1"], subprocess=True),
    Case("python -m dpconvex run --runs 10**20", ["run", "{file}", "--runs", str(10**20)],
         subprocess=True),
    Case("python -m dpconvex run name=../escaped", ["run", "{file}", "--no-progress"],
         _mutate(("name",), "../escaped"), subprocess=True),
    Case("python -m dpconvex run title=5", RUN, _mutate(("title",), 5), subprocess=True),
]


@pytest.mark.slow
@pytest.mark.parametrize("case", SUBPROCESS, ids=[c.id for c in SUBPROCESS])
def test_console_entry_point_refuses_in_one_line(case, sandbox):
    file, argv = _sandbox(sandbox, case)
    before = _tree(sandbox) | {str(p) for p in sandbox.parent.iterdir()}
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "dpconvex", *argv], capture_output=True, text=True,
                          timeout=CAP_SUBPROCESS, cwd=sandbox,
                          env={**os.environ, "DPCONVEX_PROBLEMS": str(sandbox / "problems")})
    assert time.monotonic() - t0 < CAP_SUBPROCESS
    after = _tree(sandbox) | {str(p) for p in sandbox.parent.iterdir()}
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert proc.returncode == 2, proc.stderr
    assert len(lines) == 1 and lines[0].startswith("dpconvex"), proc.stderr
    assert "Traceback" not in proc.stderr
    assert after == before


# ------------------------------------------------------------------------------ the Python API
def test_python_api_raises_named_errors(sandbox):
    from dpconvex.errors import ParameterError
    from dpconvex.runs import ProblemError, load_problem, run_problem
    from dpconvex.runs.runner import run_demo

    file, _ = _sandbox(sandbox, Case("api"))
    for runs in (0, -1, 10**20, 1.5, "3", True):
        with pytest.raises(ParameterError, match="'runs' parameter of run_problem"):
            run_problem(str(file), runs=runs, progress=False)
    for kw in ({"seed": -1}, {"seed": 1.5}, {"runs": 0}, {"runs": 10**20}, {"lam": -1.0},
               {"epsilons": ()}, {"epsilons": (0.0,)}, {"epsilons": 5}):
        with pytest.raises(ParameterError):
            run_demo(**kw)
    for name in ("../x", "/abs", "a/b", "", ".."):
        file.write_text(_dump(_mutate(("name",), name)))
        with pytest.raises(ProblemError, match="key 'name'"):
            load_problem(file)
    dotdot = sandbox / "problems" / "...toml"  # a file whose stem is '..'
    dotdot.write_text(_dump(_mutate(("name",), DELETE)))
    with pytest.raises(ProblemError, match="taken from the file name"):
        load_problem(dotdot)
    file.write_text(_dump(_mutate(("grid", "epsilon"), [1.0 + i / 1000 for i in range(200)])))
    with pytest.raises(ProblemError, match="above the cap of 1,000,000 fits"):
        run_problem(str(file), runs=10_000, progress=False)


def test_failed_write_removes_the_folders_it_created(sandbox, monkeypatch):
    from dpconvex.runs import report
    from dpconvex.runs.report import OutputError, ProblemResult, write_outputs
    from dpconvex.runs.spec import load_problem

    file, _ = _sandbox(sandbox, Case("write"))
    result = ProblemResult(load_problem(file), quick=False, runs=1, errors={"LR": {1.0: [0.1]}})

    def full_disk(result, target):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(report, "_save_png", full_disk)
    with pytest.raises(OutputError, match="No space left"):
        write_outputs(result, sandbox / "new" / "deeper")
    assert not (sandbox / "new").exists()
