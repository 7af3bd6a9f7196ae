"""Record the release oracle from a clean export of a commit.

Runs every case of ``tests/release_oracle_cases.py`` on the ``dpconvex`` importable from
``PYTHONPATH`` and writes

* ``tests/data/release_oracle.npz``: one array per ``"<case>/<array>"``;
* ``tests/data/release_oracle_meta.json``: the commit, library versions, BLAS, date.

Record from a clean export (no worktree, no checkout), so that what is recorded is exactly
the named commit::

    mkdir /tmp/oracle && git archive <commit> | tar -x -C /tmp/oracle
    PYTHONPATH=/tmp/oracle .venv/bin/python tests/data/make_release_oracle.py \\
        --commit $(git rev-parse <commit>)

The cases are read from this checkout's ``tests/release_oracle_cases.py`` (test code; the
meta file names the package folder that was recorded). Re-record only for a *deliberate*
change of released values, and give the reason in CHANGELOG.md.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import sys
import time
import warnings
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from release_oracle_cases import cases  # noqa: E402


def _version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


def record(case_fn: Callable[[], dict[str, Any]] = cases
           ) -> tuple[dict[str, np.ndarray], dict[str, float]]:
    """Run every case; return the arrays keyed "<case>/<array>" and the seconds per case."""
    arrays: dict[str, np.ndarray] = {}
    seconds: dict[str, float] = {}
    for name, run in case_fn().items():
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = run()
        seconds[name] = time.perf_counter() - t0
        for key, value in out.items():
            arrays[f"{name}/{key}"] = np.asarray(value)
    return arrays, seconds


def environment(arrays: dict[str, np.ndarray], seconds: dict[str, float]) -> dict[str, Any]:
    """Where and how the arrays were made (package folder, versions, BLAS, timings)."""
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE, help="output directory")
    parser.add_argument("--commit", required=True,
                        help="full hash of the commit exported to PYTHONPATH")
    args = parser.parse_args()
    import dpconvex

    pkg = Path(dpconvex.__file__).resolve().parent
    if (pkg.parent / ".git").exists():
        sys.exit(f"dpconvex imported from a git checkout ({pkg}): record from a clean "
                 "`git archive` export on PYTHONPATH (module docstring)")
    arrays, seconds = record()
    np.savez(args.out / "release_oracle.npz", **arrays)
    meta = {"commit": args.commit, "source": "git archive export (clean by construction)",
            "dirty_files": [], **environment(arrays, seconds)}
    (args.out / "release_oracle_meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    print(f"{len(seconds)} cases, {len(arrays)} arrays, {sum(seconds.values()):.1f} s; "
          f"commit {args.commit[:7]}")


if __name__ == "__main__":
    main()
