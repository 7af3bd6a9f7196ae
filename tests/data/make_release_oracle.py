"""Record the release oracle: ``python tests/data/make_release_oracle.py``.

Runs every case of ``tests/release_oracle_cases.py`` on the code importable as
``dpconvex`` and writes

* ``tests/data/release_oracle.npz``: one array per ``"<case>/<array>"``;
* ``tests/data/release_oracle_meta.json``: the commit, library versions, BLAS, date.

The recorded oracle was generated from a clean worktree of commit d960a4d (before
the architecture refactor of issue 11)::

    git worktree add /work/oracle d960a4d
    cd /work/oracle && PYTHONPATH=/work/oracle python tests/data/make_release_oracle.py

Regenerate it only to record a *deliberate* change of released values, and say why
in the commit message; otherwise list the case in ``DOCUMENTED_CHANGES`` of
``tests/test_release_oracle.py``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import subprocess
import sys
import time
import warnings
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE.parent))

from release_oracle_cases import cases  # noqa: E402


def _git(*args: str) -> str:
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


def record(case_fn: Any = None) -> tuple[dict[str, np.ndarray], dict[str, float]]:
    """Run every case of ``case_fn()`` (default :func:`cases`); return the arrays keyed
    "<case>/<array>" and the seconds per case."""
    arrays: dict[str, np.ndarray] = {}
    seconds: dict[str, float] = {}
    for name, run in (case_fn or cases)().items():
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = run()
        seconds[name] = time.perf_counter() - t0
        for key, value in out.items():
            arrays[f"{name}/{key}"] = np.asarray(value)
    return arrays, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE, help="output directory")
    args = parser.parse_args()
    arrays, seconds = record()
    np.savez(args.out / "release_oracle.npz", **arrays)
    meta = {
        "commit": _git("rev-parse", "HEAD"),
        "dirty_files": _git("status", "--porcelain", "--", "dpconvex").splitlines(),
        **environment(arrays, seconds),
    }
    (args.out / "release_oracle_meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    print(f"{len(seconds)} cases, {len(arrays)} arrays, {sum(seconds.values()):.1f} s; "
          f"commit {meta['commit'][:7]}{' (DIRTY)' if meta['dirty_files'] else ''}")


def environment(arrays: dict[str, np.ndarray], seconds: dict[str, float]) -> dict[str, Any]:
    """The meta file's record of where and how the arrays were made (library, versions, BLAS)."""
    import dpconvex
    try:
        from threadpoolctl import threadpool_info
        blas = [{k: d.get(k) for k in ("internal_api", "version", "architecture", "num_threads")}
                for d in threadpool_info()]
    except ImportError:  # pragma: no cover
        blas = []
    return {
        "dpconvex_file": dpconvex.__file__,
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "machine": platform.machine(),
        "versions": {name: _version(name) for name in (
            "numpy", "scipy", "cvxpy", "clarabel", "scs", "scikit-learn", "dp-accounting",
            "threadpoolctl")},
        "blas": blas,
        "n_cases": len(seconds),
        "n_arrays": len(arrays),
        "seconds_total": round(sum(seconds.values()), 3),
        "seconds": {k: round(v, 4) for k, v in seconds.items()},
    }


if __name__ == "__main__":
    main()
