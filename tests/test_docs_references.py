"""Every reference into the documentation names a section that exists, and none is a number.

The privacy derivations are cited by named labels: ``{ref}`privacy-private-mean``` on the
documentation pages, ``docs/privacy/front_door_regression.md#privacy-private-mean`` or the bare
label in the code, the tests, the benchmarks, the notebooks and the README. A section number
goes stale without a sound when a section moves, so none is written: no ``§`` followed by a
digit (a paper's section is "Section 4"), except in CHANGELOG.md (history) and where the
number is a section of DESIGN.md, ARCHITECTURE.md or STYLE.md (documents outside this
repository), and no heading of the derivations carries a number.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SECTION_SIGN = "\u00a7"

#: Where references are looked for, and in which files.
SWEPT = ("dpconvex", "tests", "benchmarks", "docs", "notebooks", "problems", "README.md")
SUFFIXES = {".py", ".md", ".rst", ".ipynb", ".toml"}
#: Words of the prose that look like labels (the privacy-profile bound, a privacy-loss ...).
PROSE = {"privacy-profile", "privacy-loss", "privacy-loss-distribution", "privacy-safe",
         "privacy-budget", "privacy-preserving"}

NUMBER = re.compile(SECTION_SIGN + r"[ \t]?\d")
THEIRS = re.compile(r"(?:DESIGN|ARCHITECTURE|STYLE)\.md`{0,2}\s*$")
LABEL_REF = re.compile(r"privacy-[a-z0-9]+(?:-[a-z0-9]+)*(?![\w-])")
PATH_REF = re.compile(r"\bdocs/([\w/]+\.md)#([\w-]+)")
LABEL_DEF = re.compile(r"^\(([\w-]+)\)=[ \t]*$", re.M)
RST_LABEL_DEF = re.compile(r"^\.\. _([\w-]+):[ \t]*$", re.M)
NUMBERED_HEADING = re.compile(r"^#{1,6} \d+[a-z]?(?:\.\d+)*\.? ", re.M)


def _files() -> list[Path]:
    out = []
    for name in SWEPT:
        path = ROOT / name
        if path.is_file():
            out.append(path)
            continue
        out.extend(p for p in sorted(path.rglob("*"))
                   if p.suffix in SUFFIXES and p.is_file() and "_build" not in p.parts
                   and "__pycache__" not in p.parts
                   and not any(part.startswith(".") for part in p.relative_to(path).parts))
    return out


def _text(path: Path) -> str:
    """The file's text; for a notebook, its cells' sources and text outputs."""
    raw = path.read_text(encoding="utf-8")
    if path.suffix != ".ipynb":
        return raw
    parts = []
    for cell in json.loads(raw).get("cells", []):
        parts.append(_joined(cell.get("source", "")))
        for out in cell.get("outputs", []):
            parts.append(_joined(out.get("text", "")))
            parts.extend(_joined(v) for k, v in out.get("data", {}).items() if k.startswith("text/"))
    return "\n".join(parts)


def _joined(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def labels() -> dict[str, str]:
    """Every label defined on a documentation page -> the page (relative to docs/)."""
    out: dict[str, str] = {}
    for page in sorted((ROOT / "docs").rglob("*")):
        if page.suffix not in (".md", ".rst") or "_build" in page.parts:
            continue
        text = page.read_text(encoding="utf-8")
        for m in (*LABEL_DEF.finditer(text), *RST_LABEL_DEF.finditer(text)):
            out[m[1]] = page.relative_to(ROOT / "docs").as_posix()
    return out


def numbered_references(text: str) -> list[str]:
    """The lines that cite a section by its number."""
    hits = []
    for m in NUMBER.finditer(text):
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        line = text[start:end if end >= 0 else len(text)]
        if not THEIRS.search(text[start:m.start()]) and line.strip() not in hits:
            hits.append(line.strip())
    return hits


def dead_references(text: str, known: dict[str, str]) -> list[str]:
    """The labels and page#label references of the text that name no section."""
    dead = [m[0] for m in LABEL_REF.finditer(text)
            if m[0] not in known and m[0] not in PROSE
            and not (m.start() and (text[m.start() - 1].isalnum() or text[m.start() - 1] in "_/.#-"))]
    for m in PATH_REF.finditer(text):
        page, label = m.groups()
        if known.get(label) != page:
            dead.append(m[0])
    return dead


@pytest.mark.parametrize("sample", [
    "docs/privacy.md " + SECTION_SIGN + "17.2", "(" + SECTION_SIGN + "4.9.1)",
    SECTION_SIGN + " 5", "see " + SECTION_SIGN + "5a",
])
def test_a_section_number_is_caught(sample):
    assert numbered_references(sample), sample


@pytest.mark.parametrize("sample", [
    "DESIGN.md " + SECTION_SIGN + "4", "``DESIGN.md`` " + SECTION_SIGN + "2", "CMS Section 7",
    "the " + SECTION_SIGN + "IV-B of the paper",
])
def test_what_is_not_a_section_number_is_spared(sample):
    assert not numbered_references(sample), sample


def test_a_dead_reference_is_caught():
    known = labels()
    assert "privacy-private-mean" in known
    missing = "privacy" + "-no-such-section"
    assert dead_references(f"see {missing}.", known) == [missing]
    wrong_page = "docs/privacy/bounds.md#" + "privacy-private-mean"
    assert dead_references(wrong_page, known) == [wrong_page]
    old_label = "privacy" + "-17-2"
    assert dead_references("{ref}`" + old_label + "`", known) == [old_label]
    assert not dead_references("docs/privacy/front_door_regression.md#privacy-private-mean, "
                               "{ref}`privacy-private-mean` and the privacy-profile bound", known)


def test_no_section_numbers_and_no_dead_references():
    known = labels()
    numbered, dead = [], []
    for path in _files():
        rel = path.relative_to(ROOT).as_posix()
        text = _text(path)
        numbered.extend(f"{rel}: {line[:110]}" for line in numbered_references(text))
        dead.extend(f"{rel}: {ref}" for ref in dead_references(text, known))
    assert not numbered, ("sections cited by number (cite the label, e.g. "
                          "docs/privacy/front_door_regression.md#privacy-private-mean; a "
                          "paper's section as 'Section 4'):\n" + "\n".join(numbered))
    assert not dead, "references to no label of docs/:\n" + "\n".join(dead)


def test_no_numbered_heading_in_the_derivations():
    hits = [f"{page.name}: {m[0]}" for page in sorted((ROOT / "docs/privacy").glob("*.md"))
            for m in NUMBERED_HEADING.finditer(page.read_text(encoding="utf-8"))]
    assert not hits, "numbered headings (name the section by its label instead):\n" + "\n".join(hits)
