"""Record the issue-13 release oracle: the cases of ``issue13_cases()``.

Runs every case of :func:`release_oracle_cases_issue13.issue13_cases` on the ``dpconvex``
importable from ``PYTHONPATH`` and writes

* ``release_oracle_issue13.npz``: one array per ``"<case>/<array>"``;
* ``release_oracle_issue13_meta.json``: the commit, library versions, BLAS, date.

These mechanisms did not exist at d960a4d (the commit of ``release_oracle.npz``), so
they are recorded from a clean export of a later commit (no worktree, no checkout)::

    mkdir /tmp/oracle13 && git archive <commit> | tar -x -C /tmp/oracle13
    PYTHONPATH=/tmp/oracle13 .venv/bin/python tests/data/make_release_oracle_issue13.py \\
        --commit $(git rev-parse <commit>)

The cases themselves are read from this checkout's ``tests/release_oracle_cases.py``
(test code: only the package under ``PYTHONPATH`` is what is recorded; the meta file
names the folder it was imported from). Regenerate only to record a *deliberate*
change of released values and say why; otherwise list the case in
``ISSUE13_DOCUMENTED_CHANGES`` of ``tests/test_release_oracle.py``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import sys
import time
import warnings
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from release_oracle_cases_issue13 import issue13_cases  # noqa: E402


def _version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


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
    arrays: dict[str, np.ndarray] = {}
    seconds: dict[str, float] = {}
    for name, run in issue13_cases().items():
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = run()
        seconds[name] = time.perf_counter() - t0
        for key, value in out.items():
            arrays[f"{name}/{key}"] = np.asarray(value)
    np.savez(args.out / "release_oracle_issue13.npz", **arrays)
    try:
        from threadpoolctl import threadpool_info
        blas = [{k: d.get(k) for k in ("internal_api", "version", "architecture", "num_threads")}
                for d in threadpool_info()]
    except ImportError:  # pragma: no cover
        blas = []
    meta = {
        "commit": args.commit,
        "source": "git archive export (clean by construction)",
        "dirty_files": [],
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
    (args.out / "release_oracle_issue13_meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    print(f"{len(seconds)} cases, {len(arrays)} arrays, {sum(seconds.values()):.1f} s; "
          f"commit {args.commit[:7]}, dpconvex from {pkg}")


if __name__ == "__main__":
    main()
