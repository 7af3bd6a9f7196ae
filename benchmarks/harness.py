"""The benchmarks' shared harness: data, seeds, splits, tables with baselines, results files.

Every script in ``benchmarks/`` answers one question and is built on this module:

* :func:`parser` gives the common options (``--quick`` for a smoke run of a few seconds,
  ``--seeds``, ``--out``);
* :func:`load` returns a :class:`Split` of a bundled data set (``dpconvex.datasets``; the data
  folder is ``$DPCONVEX_DATA``, nothing is downloaded) with the split every script uses, and in
  quick mode a small public subsample of it;
* :class:`Table` is a result table that always carries a non-private row and a majority-class
  row (accuracy tables), a non-private row and a constant-prediction row (regression tables:
  the constant is a regression's majority class), or says why it has none (speed tables
  carry a ratio against a baseline measured in the same run; audit tables compare with the
  claimed ε);
* :class:`Run` prints every table and note as it goes and, at the end, writes
  ``benchmarks/results/<script>[-quick].json`` (every table, the command, the seconds) and the
  same tables as markdown, both atomically.

Seeds: noise seeds are ``random_state = 0 .. seeds-1`` unless a script says otherwise; split
seeds are fixed per data set below. Models fitted with a known seed are not private: these
are measurements, not releases.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import functools
import io
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results"
#: rows kept (train, test) by ``load(..., quick=True)``: a smoke run, not a measurement
QUICK_ROWS = (1500, 1000)
NON_PRIVATE = "non-private"
#: set by :func:`run_script` for a ``--quick`` run (scripts on :func:`run_script` read it)
QUICK = False
MAJORITY = "majority class"
#: a regression's majority-class baseline: one constant (the training mean) for every row
CONSTANT = "constant prediction"
#: the rows a table of each kind must carry (a label in one of a row's first three cells)
BASELINES = {"accuracy": (NON_PRIVATE, MAJORITY), "regression": (NON_PRIVATE, CONSTANT)}


class Split(NamedTuple):
    """Training and test rows of one data set."""

    name: str
    X: np.ndarray
    y: np.ndarray
    Xt: np.ndarray
    yt: np.ndarray


def data_home() -> str:
    """The data folder: ``$DPCONVEX_DATA`` (the loaders' own default if unset)."""
    from dpconvex.datasets import get_data_home

    return str(get_data_home())


@functools.cache
def _load(name: str) -> Split:
    from sklearn.model_selection import train_test_split

    from dpconvex.datasets import load_adult, load_breast_cancer_wisconsin, load_kddcup99, load_sklearn

    if name in ("adult", "adult-nnc"):
        drop = ("native-country",) if name == "adult-nnc" else ()
        X, y = load_adult("train", drop=drop, download=False)
        Xt, yt = load_adult("test", drop=drop, download=False)
        return Split(name, X, y, Xt, yt)
    if name == "kddcup99":  # the 70,000-row sample: first 50,000 rows train, last 20,000 test
        X, y = load_kddcup99(n_samples=70000, random_state=1999, download=False)
        return Split(name, X[:50000], y[:50000], X[50000:], y[50000:])
    if name == "breast_cancer_wisconsin":  # UCI original, 683 rows; split by split_rows()
        X, y = load_breast_cancer_wisconsin(download=False, encoding="log-centered")
        return Split(name, X, y, X[:0], y[:0])
    if name in ("breast_cancer", "wine", "digits"):  # scikit-learn sets, 70/30 (stratified: binary)
        X, y = load_sklearn(name)
        strat = y if name == "breast_cancer" else None
        X, Xt, y, yt = train_test_split(X, y, test_size=0.3, random_state=0, stratify=strat)
        return Split(name, X, y, Xt, yt)
    raise ValueError(f"unknown data set {name!r}")


def load(name: str, *, quick: bool = False) -> Split:
    """The standard split of ``name``; with ``quick``, a seeded subsample of it (QUICK_ROWS)."""
    s = _load(name)
    if not quick:
        return s
    rng = np.random.default_rng(0)
    tr = np.sort(rng.permutation(len(s.y))[:QUICK_ROWS[0]])
    te = np.sort(rng.permutation(len(s.yt))[:QUICK_ROWS[1]])
    return Split(s.name, s.X[tr], s.y[tr], s.Xt[te], s.yt[te])


def subsample(X: np.ndarray, y: np.ndarray, n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """At most ``n`` rows of ``(X, y)``, drawn without replacement with split seed ``seed``."""
    if len(y) <= n:
        return X, y
    idx = np.sort(np.random.default_rng(seed).permutation(len(y))[:n])
    return X[idx], y[idx]


def quick_loader(load: Any, quick: bool, n: int = QUICK_ROWS[0]) -> Any:
    """``load`` itself, or (``quick``) ``load`` followed by :func:`subsample` to ``n`` rows."""
    if not quick:
        return load

    @functools.wraps(load)
    def small(*args: Any, **kwargs: Any) -> Any:
        X, y = load(*args, **kwargs)
        return subsample(X, y, n)

    return small


def kdd_split(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, ...]:
    """The KDDCup99 sample's split (first 50,000 rows train, the rest test); with
    :data:`QUICK`, seeded subsamples of QUICK_ROWS rows of each part."""
    parts = (X[:50000], y[:50000], X[50000:], y[50000:])
    if not QUICK:
        return parts
    return (*subsample(parts[0], parts[1], QUICK_ROWS[0]), *subsample(parts[2], parts[3], QUICK_ROWS[1]))


def split_rows(n: int, n_train: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A random split of ``range(n)`` (split seed ``seed``): ``n_train`` rows, then the rest."""
    perm = np.random.default_rng(seed).permutation(n)
    return perm[:n_train], perm[n_train:]


def majority_error(y: np.ndarray, yt: np.ndarray) -> float:
    """Test error of predicting the most frequent training label."""
    values, counts = np.unique(y, return_counts=True)
    return float(np.mean(yt != values[np.argmax(counts)]))


def mean_std(values: Sequence[float], digits: int = 4) -> str:
    """``mean ± std`` (population std) of ``values``."""
    a = np.asarray(values, dtype=float)
    return f"{a.mean():.{digits}f} ± {a.std():.{digits}f}" if a.size > 1 else f"{a.mean():.{digits}f}"


def _cell(v: Any) -> Any:
    if isinstance(v, (list, tuple, np.ndarray)):
        a = np.asarray(v, dtype=float)
        return {"mean": float(a.mean()), "std": float(a.std()), "n": int(a.size)}
    if isinstance(v, (np.floating, np.integer)):
        return v.item()
    return v


def _show(v: Any) -> str:
    if isinstance(v, dict) and "mean" in v:
        return f"{v['mean']:.4f} ± {v['std']:.4f}" if v["n"] > 1 else f"{v['mean']:.4f}"
    if isinstance(v, float):
        return "" if math.isnan(v) else f"{v:.4g}"
    return str(v)


@dataclasses.dataclass
class Table:
    """A result table. Accuracy tables (``kind="accuracy"``) cannot be shown without a row
    labelled non-private and a row labelled majority class, regression tables
    (``kind="regression"``, e.g. of R²) without a row labelled non-private and a row labelled
    constant prediction; ``kind="speed"`` needs a column
    whose name contains "ratio" or "×"; ``kind="audit"`` needs a column of the claimed ε
    (a name containing "claimed").

    A cell is a number, a string, or a list of per-seed values (shown as mean ± std, stored
    as mean, std and count).
    """

    title: str
    columns: list[str]
    kind: str = "accuracy"
    rows: list[list[Any]] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)

    def add(self, *cells: Any) -> None:
        if len(cells) != len(self.columns):
            raise ValueError(f"{self.title}: {len(cells)} cells for {len(self.columns)} columns")
        self.rows.append([_cell(c) for c in cells])

    def check(self) -> None:
        """Raise unless the table carries what its kind requires."""
        if self.kind in BASELINES:
            labels = " ".join(str(c).lower() for r in self.rows for c in r[:3])
            missing = [b for b in BASELINES[self.kind] if b not in labels]
            if missing:
                raise ValueError(f"table {self.title!r} has no {' and no '.join(missing)} row")
        elif self.kind == "speed":
            if not any("ratio" in c or "×" in c for c in self.columns):
                raise ValueError(f"speed table {self.title!r} has no ratio column")
        elif self.kind == "audit":
            if not any("claimed" in c for c in self.columns):
                raise ValueError(f"audit table {self.title!r} has no claimed-ε column")
        else:
            raise ValueError(f"unknown table kind {self.kind!r}")

    def markdown(self) -> str:
        self.check()
        out = [f"### {self.title}", "", "| " + " | ".join(self.columns) + " |",
               "|" + "---|" * len(self.columns)]
        out += ["| " + " | ".join(_show(c) for c in r) + " |" for r in self.rows]
        return "\n".join(out + ([""] + self.notes if self.notes else []))


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def parser(doc: str | None, *, seeds: int | None = None) -> argparse.ArgumentParser:
    """An argument parser with ``--quick``, ``--out`` and (if ``seeds``) ``--seeds``."""
    ap = argparse.ArgumentParser(description=(doc or "").strip().splitlines()[0] if doc else None)
    ap.add_argument("--quick", action="store_true", help="smoke run on a small subsample (seconds)")
    ap.add_argument("--out", type=Path, default=RESULTS, help=f"results folder (default {RESULTS})")
    if seeds is not None:
        ap.add_argument("--seeds", type=int, default=seeds, help=f"noise seeds (default {seeds})")
    return ap


def _git_head() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, timeout=10).stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


class _Tee(io.TextIOBase):
    def __init__(self, *streams: Any):
        self.streams = streams

    def write(self, text: str) -> int:
        for s in self.streams:
            s.write(text)
        return len(text)

    def flush(self) -> None:
        for s in self.streams:
            s.flush()


class Run:
    """One run of a benchmark script: prints tables and notes, then writes the results files.

    Use as a context manager; the files are written only if the block finishes. Everything
    printed to stdout inside the block is kept too (``printed`` in the JSON file). ``part``
    (e.g. the script's ``--only`` choice) is added to the file names.
    """

    def __init__(self, script: str, args: argparse.Namespace, argv: Sequence[str] | None = None,
                 part: str = ""):
        self.name = (Path(script).stem + (f"-{part}" if part else "")
                     + ("-quick" if getattr(args, "quick", False) else ""))
        self.out: Path = getattr(args, "out", RESULTS)
        self.argv = list(sys.argv[1:] if argv is None else argv)
        self.command = f"python benchmarks/{Path(script).name} " + " ".join(self.argv)
        self.tables: list[Table] = []
        self.notes: list[str] = []
        self.data: dict[str, Any] = {}
        self._t0 = time.perf_counter()
        self._printed = io.StringIO()
        self._stdout: Any = None

    def __enter__(self) -> Run:
        import dpconvex

        self._stdout = sys.stdout
        sys.stdout = _Tee(self._stdout, self._printed)
        self.note(f"{self.command.strip()}  (dpconvex {dpconvex.__version__}, git {_git_head()}, "
                  f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC)")
        return self

    def note(self, text: str) -> None:
        """Print ``text`` and keep it for the results files."""
        print(text, flush=True)
        self.notes.append(text)

    def table(self, table: Table) -> Table:
        """Print ``table`` (after checking its baselines) and keep it."""
        print("\n" + table.markdown() + "\n", flush=True)
        self.tables.append(table)
        return table

    def __exit__(self, exc_type, exc, tb) -> None:
        sys.stdout = self._stdout
        if exc_type is not None:
            return
        seconds = time.perf_counter() - self._t0
        payload = {"script": self.name, "command": self.command.strip(), "seconds": seconds,
                   "notes": self.notes, "data": self.data,
                   "tables": [dataclasses.asdict(t) for t in self.tables],
                   "printed": self._printed.getvalue()}
        md = f"# {self.name}\n\n{self._printed.getvalue()}\n({seconds:.0f} s)"
        write_atomic(self.out / f"{self.name}.json", json.dumps(payload, indent=1, default=str) + "\n")
        write_atomic(self.out / f"{self.name}.md", md + "\n")
        print(f"wrote {self.out / self.name}.json and .md ({seconds:.1f} s)", flush=True)


#: loaders wrapped by :func:`quick_loader` in a ``--quick`` run of :func:`run_script`
#: (``load_kddcup99`` is not: its sample is split by position, see :func:`kdd_split`)
_LOADERS = ("load_adult", "load_sklearn", "load_breast_cancer_wisconsin")


def run_script(script: str, main: Any, namespace: dict[str, Any],
               quick: dict[str, Any] | None = None) -> None:
    """Run a script's own ``main()`` inside a :class:`Run`, with the common options.

    ``--quick`` and ``--out`` are taken out of ``sys.argv`` (the rest is the script's). With
    ``--quick`` the data loaders the script imported are wrapped by :func:`quick_loader`,
    and the module constants named in ``quick`` (e.g. a smaller grid) are replaced.
    """
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args, rest = ap.parse_known_args(sys.argv[1:])
    global QUICK
    QUICK = args.quick
    if args.quick:
        for name in _LOADERS:
            if name in namespace:
                namespace[name] = quick_loader(namespace[name], True)
        namespace.update(quick or {})
    sys.argv = [sys.argv[0], *rest]
    with Run(script, args, [*(["--quick"] if args.quick else []), *rest]):
        main()
