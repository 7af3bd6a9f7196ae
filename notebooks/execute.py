"""Execute the notebooks in place, so that the committed files carry their outputs and figures.

Usage, from the project root (the data files through ``DPCONVEX_DATA``)::

    DPCONVEX_DATA=../shared/datasets python notebooks/execute.py [NOTEBOOK ...]

Without arguments every ``notebooks/*.ipynb`` is run. Uses nbclient (installed
with the ``test`` extra, through nbmake), runs each notebook from its own folder
as nbmake does, drops the per-cell execution timestamps (they would change every
file on every run) and prints each file's run time and size. The figures are
small PNGs (the notebooks draw at 72 dpi); keep each file well under 300 KB.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent


def execute(path: Path, timeout: int = 600) -> None:
    """Run ``path`` top to bottom and write it back with its outputs."""
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    NotebookClient(nb, timeout=timeout, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
    nbformat.write(nb, path)
    print(f"{path.name}: {time.perf_counter() - start:.1f} s, {path.stat().st_size / 1024:.0f} KB")


if __name__ == "__main__":
    paths = [Path(p).resolve() for p in sys.argv[1:]] or sorted(HERE.glob("*.ipynb"))
    for p in paths:
        execute(p)
