"""Every Python code block of the user guide (``docs/guide/*.md``) and of the landing page runs.

The blocks of one page run in order, in one namespace, as a reader would paste
them; any exception fails the page's test. A block is left out only when its
info string is ``python-skip`` or when the line before its opening fence is
``<!-- no-test -->``; the page says why next to it. Pages whose blocks take
more than about 5 s are listed in :data:`SLOW_PAGES` and marked ``slow``.

The numbers a page quotes from what its own blocks print are what they print: each sentence
of :data:`QUOTED` is found on its page, and each number it quotes must be one the page's
blocks printed in the same run, rounded to the digits quoted (half up). The blocks are
seeded, so an installation prints the same numbers at every run; a change that makes a page
print others (a default, a rule, NumPy's random streams) fails here, and the page's sentence
is to be rewritten from what the page now prints. A sentence reworded so that its pattern
finds nothing fails too: the sentence and its entry change together.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "guide"
LANDING = ROOT / "docs" / "index.md"

#: Pages whose blocks take more than about 5 s together (measured on 2 shared cores).
SLOW_PAGES = frozenset({"auditing", "dask"})

_N = r"(-?\d+(?:\.\d+)?)"

#: Sentences that quote what a page's blocks print, by page: a pattern over the page's text
#: (every run of white space read as one space), each group a number the blocks print.
QUOTED: dict[str, list[str]] = {
    "quickstart": [
        rf"a test accuracy of {_N} and a majority-class accuracy of {_N}\.",
        rf"the pure-ε centroids reach {_N} and the Gaussian ones {_N}, against {_N} for the "
        r"majority class\.",
    ],
    "epsilon_delta": [
        rf"\(a factor {_N}\), ε = 1 a common one \({_N}\), ε = 5 a weak one \({_N}\)",
        rf"at ε = 0\.5, 1 and 2, {_N}, {_N} and {_N} with δ = 0 and {_N}, {_N} and {_N} with "
        rf"δ = 1/n², against {_N} for the majority class\.",
    ],
    "own_data": [
        rf"schema_\.divisor\) # {_N} {_N}",
        rf"every row moves except those at the minimum age \({_N} of the 600 here\)",
    ],
    "custom_objective": [
        rf"\(h = {_N} in the certificate above\)",
        rf"against {_N} for the non-private fit with the Λ of ε = 10",
        rf"without it have norm {_N}, and inside it the non-private model reaches {_N} against "
        rf"{_N} without it \(majority class {_N};",
    ],
    "large_margin": [
        rf"p = 3·1·3·4/2 = {_N}\.",
        rf"\(K = 2 at ε = 1: {_N} against {_N} for the softmax mixture\)",
        rf"\(pairwise {_N} against {_N}, softmax {_N} against {_N};",
        rf"\({_N} and {_N} here, against {_N} above\)",
    ],
    "regression": [
        rf"gives the private mean ε_c = {_N}:",
        rf"keeps part of the signal \({_N} at ε = 0\.03,",
        rf"released the mean where the Huber model was better \({_N}\)",
    ],
    "reproducing": [rf"\(R² {_N} against {_N}\)"],
    "private_bounds": [
        rf"# released: age \({_N}, {_N}\), income \({_N}, {_N}\)",
        rf"# Huber SVM \({_N}, {_N}\) {_N}",
    ],
    "budget": [rf"# \({_N}, {_N}\): one record is in one half only"],
}

_PRINTED = re.compile(r"-?\d+(?:\.\d+)?")


def quoted_numbers(page: str, text: str) -> list[str]:
    """The numbers the sentences of :data:`QUOTED` quote on ``page``, whose text is ``text``.

    A pattern that finds nothing on the page raises ``AssertionError`` naming it.
    """
    flat = re.sub(r"\s+", " ", text)
    numbers: list[str] = []
    for pattern in QUOTED.get(page, []):
        m = re.search(pattern, flat)
        assert m, f"{page}.md: no sentence matches {pattern!r} (reworded? change its entry)"
        numbers.extend(m.groups())
    return numbers


def printed(quoted: str, output: str) -> bool:
    """Whether ``output`` holds a number that, rounded half up to the digits of ``quoted``, is it.

    A printed number with fewer decimals than the quote does not count (``0.1`` is not
    ``0.10``'s source), so a quote is never met by a coarser number.
    """
    q = Decimal(quoted)
    step = Decimal(1).scaleb(q.as_tuple().exponent)
    for token in _PRINTED.findall(output):
        d = Decimal(token)
        if d.as_tuple().exponent <= q.as_tuple().exponent and \
                d.quantize(step, rounding=ROUND_HALF_UP) == q:
            return True
    return False


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
                              tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = page.read_text(encoding="utf-8")
    quoted = quoted_numbers(page.stem, text)
    monkeypatch.chdir(tmp_path)  # a block that writes files writes them here
    monkeypatch.setenv("MPLBACKEND", "Agg")
    namespace: dict[str, object] = {"__name__": f"guide_{page.stem}"}
    for line, source in python_blocks(text):
        code = compile(source, f"{page.name}:{line}", "exec")
        exec(code, namespace)  # noqa: S102 - the guide's own code
    output = capsys.readouterr().out
    missing = [q for q in quoted if not printed(q, output)]
    assert not missing, (f"{page.name} quotes {missing}, which its blocks did not print: "
                         f"rewrite its sentences from its output (patterns: QUOTED[{page.stem!r}])")


def test_quoted_numbers_are_read_at_their_digits() -> None:
    assert quoted_numbers("reproducing", "scores below (R² 0.345\n against 0.415) at") == [
        "0.345", "0.415"]
    with pytest.raises(AssertionError, match="no sentence matches"):
        quoted_numbers("reproducing", "(R² 0.345 versus 0.415)")
    assert printed("0.415", "R² 0.4145 ± 0.03")          # half up at the quoted digits
    assert not printed("0.415", "R² 0.4144 and 0.41")    # another value, or too coarse
    assert printed("148", "at most 148.41 x") and printed("16", "(16.0, 128.0)")
    assert not printed("0.56", "0.5")


def test_every_quoting_page_is_a_guide_page_with_code() -> None:
    assert set(QUOTED) <= {p.stem for p in _pages_with_code()}


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


def test_the_toy_table_releases_a_constant_for_the_seeds_the_landing_pages_name() -> None:
    """The toy table of README.md and docs/index.md releases a constant at the seeds they name.

    Their own model is refitted at each seed of 0..N they state (20 fits of 200 rows, about
    0.3 s); the seeds at which its safeguard released a constant class must be those named.
    """
    import warnings

    pattern = (r"released a constant class instead of the model for (\d+) of (\d+) seeds "
               r"\(`random_state` 0–(\d+): ([^)]*)\)")
    stated = set()
    for path in (ROOT / "README.md", LANDING):
        m = re.search(pattern, re.sub(r"\s+", " ", path.read_text(encoding="utf-8")))
        assert m, f"{path.name}: no sentence matches {pattern!r} (reworded? change the test)"
        count, total, last, seeds = int(m[1]), int(m[2]), int(m[3]), m[4]
        named = [int(s) for s in re.findall(r"\d+", seeds)]
        assert total == last + 1 and count == len(named), f"{path.name}: {m[0]!r}"
        stated.add((total, tuple(named)))
    assert len(stated) == 1, f"README.md and docs/index.md differ: {stated}"
    (total, named), = stated
    source = next(src for _, src in python_blocks((ROOT / "README.md").read_text(encoding="utf-8"))
                  if "PublicEncoder(schema)" in src)
    namespace: dict[str, object] = {"__name__": "readme_toy"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # each fit warns that the safeguard cannot vouch at n = 200
        exec(compile(source, "README.md", "exec"), namespace)  # noqa: S102 - the README's code
        model, df, y = namespace["model"], namespace["df"], namespace["y"]
        constant = []
        for seed in range(total):
            model.set_params(privateclassifier__random_state=seed).fit(df, y)
            if model[-1].learner_ == "constant class":
                constant.append(seed)
    assert tuple(constant) == named, (f"the toy table released a constant class at seeds "
                                      f"{constant}, the landing pages say {list(named)}")
