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
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

sys.path.insert(0, str(HERE))
from make_release_oracle import environment, record  # noqa: E402
from release_oracle_cases_issue13 import issue13_cases  # noqa: E402


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
    arrays, seconds = record(issue13_cases)
    np.savez(args.out / "release_oracle_issue13.npz", **arrays)
    meta = {
        "commit": args.commit,
        "source": "git archive export (clean by construction)",
        "dirty_files": [],
        **environment(arrays, seconds),
    }
    (args.out / "release_oracle_issue13_meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    print(f"{len(seconds)} cases, {len(arrays)} arrays, {sum(seconds.values()):.1f} s; "
          f"commit {args.commit[:7]}, dpconvex from {pkg}")


if __name__ == "__main__":
    main()
