"""Every Python code block of the user guide (``docs/guide/*.md``) and of the landing page runs.

The blocks of one page run in order, in one namespace, as a reader would paste
them; any exception fails the page's test. A block is left out only when its
info string is ``python-skip`` or when the line before its opening fence is
``<!-- no-test -->``; the page says why next to it. Pages whose blocks take
more than about 5 s are listed in :data:`SLOW_PAGES` and marked ``slow``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "guide"
LANDING = ROOT / "docs" / "index.md"

#: Pages whose blocks take more than about 5 s together (measured on 2 shared cores).
SLOW_PAGES = frozenset({"auditing", "dask"})

_FENCE = re.compile(r"^(`{3,})([^`\n]*)$")
NO_TEST = "<!-- no-test -->"


def python_blocks(text: str) -> list[tuple[int, str]]:
    """(line number, source) of every fenced ``python`` block that is not marked to skip.

    A block counts when its info string's first word is exactly ``python``;
    ``python-skip`` blocks and blocks whose opening fence follows a
    ``<!-- no-test -->`` line (blank lines between are allowed) are left out.
    """
    lines = text.splitlines()
    blocks: list[tuple[int, str]] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i].strip())
        if not m:
            i += 1
            continue
        fence, info = m.group(1), m.group(2).strip()
        start = i
        j = i + 1
        while j < len(lines) and lines[j].strip() != fence:
            j += 1
        body = "\n".join(lines[start + 1:j])
        k = start - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        skipped = k >= 0 and lines[k].strip() == NO_TEST
        if info.split()[:1] == ["python"] and not skipped:
            blocks.append((start + 1, body))
        i = j + 1
    return blocks


def _pages() -> list[Path]:
    return sorted(p for p in GUIDE.glob("*.md") if p.name != "index.md")


def _pages_with_code() -> list[Path]:
    """The pages that have at least one block to run (a page of tables only has none)."""
    return [p for p in _pages() if python_blocks(p.read_text(encoding="utf-8"))]


def test_block_extraction_skips_marked_blocks() -> None:
    text = ("```python\na = 1\n```\n\n```python-skip\nb = 2\n```\n<!-- no-test -->\n\n"
            "```python\nc = 3\n```\n```bash\nls\n```\n````python\nd = 4\n````\n")
    assert [src for _, src in python_blocks(text)] == ["a = 1", "d = 4"]


def test_guide_has_pages_listed_in_its_index() -> None:
    pages = _pages()
    assert len(pages) >= 13
    index = (GUIDE / "index.md").read_text(encoding="utf-8")
    assert "{toctree}" in index
    missing = [p.stem for p in pages if p.stem not in index]
    assert not missing, f"guide pages not in docs/guide/index.md's toctree: {missing}"


@pytest.mark.parametrize(
    "page",
    [pytest.param(p, id=p.stem, marks=[pytest.mark.slow] if p.stem in SLOW_PAGES else [])
     for p in _pages_with_code()],
)
def test_guide_page_code_runs(page: Path, monkeypatch: pytest.MonkeyPatch,
                              tmp_path: Path) -> None:
    blocks = python_blocks(page.read_text(encoding="utf-8"))
    monkeypatch.chdir(tmp_path)  # a block that writes files writes them here
    monkeypatch.setenv("MPLBACKEND", "Agg")
    namespace: dict[str, object] = {"__name__": f"guide_{page.stem}"}
    for line, source in blocks:
        code = compile(source, f"{page.name}:{line}", "exec")
        exec(code, namespace)  # noqa: S102 - the guide's own code


#: Data files a landing-page block reads (through ``DPCONVEX_DATA``), by the loader it calls.
LANDING_DATA_FILES = {"load_adult": ("adult.data", "adult.test")}


def test_landing_page_shows_the_readme_code() -> None:
    """The landing page opens with the README's two examples, block for block."""
    readme = python_blocks((ROOT / "README.md").read_text(encoding="utf-8"))
    landing = python_blocks(LANDING.read_text(encoding="utf-8"))
    assert [src for _, src in landing] == [src for _, src in readme]
    assert len(landing) >= 2
    text = LANDING.read_text(encoding="utf-8")
    assert text.index("```python") < text.index("## Where to read on") < text.index("{toctree}")


def _landing_params() -> list:
    """One parameter per landing-page block; blocks that load a data set are ``slow`` (~6 s)."""
    params = []
    for line, source in python_blocks(LANDING.read_text(encoding="utf-8")):
        loads = any(loader in source for loader in LANDING_DATA_FILES)
        params.append(pytest.param(source, id=f"line{line}",
                                   marks=[pytest.mark.slow] if loads else []))
    return params


@pytest.mark.parametrize("source", _landing_params())
def test_landing_page_code_runs(source: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each landing-page block is a complete example and runs on its own.

    A block that loads a data set is skipped when its files are not in the data folder
    (as the loaders' doctests are). The blocks write no files; they run in the current
    folder, where a relative ``DPCONVEX_DATA`` (the README's) is resolved.
    """
    from dpconvex.datasets import get_data_home

    for loader, files in LANDING_DATA_FILES.items():
        if loader in source:
            missing = [f for f in files if not (Path(get_data_home()) / f).is_file()]
            if missing:
                pytest.skip(f"{missing} not in the data folder (DPCONVEX_DATA)")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    exec(compile(source, "index.md", "exec"), {"__name__": "landing"})  # noqa: S102
