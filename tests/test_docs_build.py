"""The documentation site builds with no warning and no broken cross-reference.

Runs the command of the README, ``python -m sphinx -W --keep-going -n -b html
docs docs/_build/html``, with its output in a temporary folder, over a source tree that holds
the page of an object that does not exist among autosummary's pages (as an earlier build
of a since renamed object leaves it): the build writes those pages anew. Needs the ``docs``
extra (``pip install -e ".[docs]"``); skipped without it.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: The packages of the docs extra the build needs (looked up, not imported: the build runs in a
#: subprocess).
DOCS_PACKAGES = ("sphinx", "numpydoc", "myst_nb", "pydata_sphinx_theme", "sphinx_copybutton")


@pytest.mark.slow
def test_docs_build_without_warnings(tmp_path):
    missing = [m for m in DOCS_PACKAGES if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"the docs extra is not installed ({', '.join(missing)} missing): "
                    "pip install -e '.[docs]'")
    generated = ROOT / "docs" / "api" / "generated"  # autosummary's pages, ignored by git
    generated.mkdir(parents=True, exist_ok=True)
    stale = generated / "dpconvex.NoSuchEstimator.rst"
    stale.write_text("dpconvex.NoSuchEstimator\n========================\n\n"
                     ".. currentmodule:: dpconvex\n\n.. autoclass:: NoSuchEstimator\n")
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-q", "-b", "html",
           "-d", str(tmp_path / "doctrees"), str(ROOT / "docs"), str(tmp_path / "html")]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, f"sphinx failed ({proc.returncode}):\n{proc.stderr[-6000:]}"
    assert not proc.stderr.strip(), f"sphinx printed warnings:\n{proc.stderr[-6000:]}"
    assert not stale.exists()
    html = tmp_path / "html"
    for page in ("index.html", "privacy.html", "privacy/perturbation.html",
                 "privacy/front_door.html", "api/index.html", "api/cli.html",
                 "api/generated/dpconvex.PrivateLogisticRegression.html",
                 "notebooks/01_quickstart.html"):
        assert (html / page).is_file(), page
