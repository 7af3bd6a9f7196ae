"""The product says what is, not how it got there.

No tracker references (issue numbers, a number after a hash in brackets) and no
relocation notes (where a module went, where it was, what keeps running for
compatibility, what is kept for a release, the name of a restructuring step) in the
package, the tests, the docs, the README, the problem files or the notebooks' source
cells, nor in their file names. Development history belongs in ``CHANGELOG.md``, which
is not scanned. The patterns (:data:`PATTERNS`) are assembled from pieces so that this
file does not match them itself.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest


def _root() -> Path:
    here = Path(__file__).resolve().parent
    for folder in (here, *here.parents):
        if (folder / "pyproject.toml").is_file() and (folder / "dpconvex").is_dir():
            return folder
    raise RuntimeError("test_no_history.py: the repository root (pyproject.toml) was not found")


ROOT = _root()

#: Folders and files scanned, relative to the repository root.
SCANNED = ("dpconvex", "tests", "docs", "README.md", "problems", "notebooks")

#: Text files read (others, e.g. .npz arrays and images, are skipped).
SUFFIXES = {".py", ".md", ".toml", ".txt", ".rst", ".cfg", ".ini", ".json", ".yaml", ".yml",
            ".ipynb"}

_ISSUE = "iss" + "ue"
PATTERNS: dict[str, re.Pattern[str]] = {
    "an issue number": re.compile(rf"\b{_ISSUE}s?[ _-]?#?\d", re.IGNORECASE),
    "a tracker reference": re.compile(r"\(" + "#" + r"\d+\)"),
    "a restructuring step": re.compile("architecture" + r"\s+" + "step", re.IGNORECASE),
    "a relocation note": re.compile("moved" + r"\s+" + "to" + r"\b", re.IGNORECASE),
    "a former location": re.compile("old" + r"\s+" + "location", re.IGNORECASE),
    "a compatibility promise": re.compile("keeps?" + r"\s+" + "working", re.IGNORECASE),
    "a deprecation window": re.compile("kept" + r"\s+for\s+one\s+" + "release", re.IGNORECASE),
}


def _files() -> list[Path]:
    out = []
    for name in SCANNED:
        path = ROOT / name
        if path.is_file():
            out.append(path)
        elif path.is_dir():
            out.extend(p for p in sorted(path.rglob("*"))
                       if p.is_file() and "__pycache__" not in p.parts
                       and not any(part.startswith(".") for part in p.relative_to(path).parts))
    return [p for p in out if p.name != "CHANGELOG.md"]


def _lines(path: Path) -> list[tuple[str, str]]:
    """(where, text) for every line of a text file; notebooks: source cells only."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix != ".ipynb":
        return [(str(i), line) for i, line in enumerate(text.splitlines(), 1)]
    out = []
    for c, cell in enumerate(json.loads(text).get("cells", [])):
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else source
        out.extend((f"cell {c} line {i}", line) for i, line in enumerate(source.splitlines(), 1))
    return out


def find_history(lines: list[tuple[str, str]]) -> list[tuple[str, str, str]]:
    """(where, kind, text) of every line matching one of :data:`PATTERNS`."""
    return [(where, kind, line.strip()) for where, line in lines
            for kind, pattern in PATTERNS.items() if pattern.search(line)]


@pytest.mark.parametrize("sample", [
    f"see {_ISSUE} 13", f"({_ISSUE}-14 item 5)", f"{_ISSUE.capitalize()}s 13", f"{_ISSUE}13",
    "fixed in (" + "#12)", "after the architecture" + " step", "now moved" + " to x",
    "the old" + " location", "existing code keeps" + " working", "kept for one" + " release",
])
def test_patterns_catch_history(sample):
    assert find_history([("1", sample)]), sample


@pytest.mark.parametrize("sample", [
    "Privacy and Security Issues in Data Mining", "the warning is issued once per fit",
    "docs/privacy/large_margin_softmax.md#privacy-centroid-switch", "the minimizer moves by 2q/(nΛ)",
])
def test_patterns_spare_present_tense_text(sample):
    assert not find_history([("1", sample)]), sample


def test_no_history_in_the_product():
    hits = []
    for path in _files():
        rel = path.relative_to(ROOT)
        if any(p.search(part) for part in rel.parts for p in PATTERNS.values()):
            hits.append(f"{rel}: file name")
        if path.suffix in SUFFIXES:
            hits.extend(f"{rel}:{where}: {kind}: {text[:120]}"
                        for where, kind, text in find_history(_lines(path)))
    assert not hits, ("development history in the product (rewrite it in the present tense, "
                      "or move it to CHANGELOG.md):\n" + "\n".join(hits))
