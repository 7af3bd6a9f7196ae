"""The centroid switch's thresholds as the docs, the problem files and the docstrings state them.

Oracle: the constants the rules read, :data:`dpconvex.privacy.rules.large_margin.CENTROID_BELOW`
(three or more classes: pure ε and δ > 0) and
:data:`dpconvex.privacy.rules.front_door.BINARY_CENTROID_BELOW` (two classes, pure ε).

Each entry of :data:`STATEMENTS` is a sentence that states a threshold, found by a pattern
whose named groups are the numbers it states: ``pure`` and ``delta`` for
``CENTROID_BELOW``, ``binary`` for ``BINARY_CENTROID_BELOW``. A number that differs from
its constant fails, and so does a sentence reworded so that its pattern finds nothing: the
sentence and its entry change together. :func:`test_every_stated_bound_is_a_threshold`
sweeps every "n·ε/(C(d + 1)) < N" (and "n*eps/(C(d + 1)) < N") for statements not listed.

The wine errors at ε = 1 that the large-margin guide and the problem file quote are the
ones of the results page (docs/guide/results.md, from ``dpconvex run wine_large_margin``).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from dpconvex.privacy.rules.front_door import BINARY_CENTROID_BELOW
from dpconvex.privacy.rules.large_margin import CENTROID_BELOW

ROOT = Path(__file__).resolve().parents[1]

#: The constant each named group states.
CONSTANTS = {"pure": CENTROID_BELOW[False], "delta": CENTROID_BELOW[True],
             "binary": BINARY_CENTROID_BELOW}

_NUM = r"\d+(?:\.\d+)?"
_R = r"n·ε/\(C\(d \+ 1\)\)"
_R_ASCII = r"n\*eps/\(C\(d \+ 1\)\)"

#: (file, pattern, how many matches at least): the sentences that state the thresholds.
STATEMENTS: list[tuple[str, str, int]] = [
    ("docs/api/index.rst", rf"{_R} < (?P<delta>{_NUM}) \(δ > 0\) or (?P<pure>{_NUM}) "
                           r"\(pure ε\)", 1),
    ("docs/privacy/front_door.md", rf"{_R} < (?P<delta>{_NUM}) \(δ > 0\) or "
                                   rf"(?P<pure>{_NUM}) \(pure ε\)", 1),
    ("docs/privacy/front_door.md", rf"δ = 0 and r = {_R} < (?P<binary>{_NUM}) "
                                   r"\(`BINARY_CENTROID_BELOW`", 1),
    ("docs/privacy/large_margin_softmax.md", rf"{_R} < (?P<delta>{_NUM}) \(δ > 0\) or "
                                             rf"(?P<pure>{_NUM}) \(pure ε\)", 1),
    ("docs/privacy/large_margin_softmax.md", rf"`CENTROID_BELOW\[δ > 0\]` \((?P<delta>"
                                             rf"{_NUM}) with δ > 0, (?P<pure>{_NUM}) "
                                             r"for pure ε", 1),
    ("docs/guide/which_estimator.md", rf"C ≥ 3 and r = {_R} < (?P<pure>{_NUM}) \(δ = 0\) "
                                      rf"or < (?P<delta>{_NUM}) \(δ > 0\)", 1),
    ("docs/guide/which_estimator.md",
     rf"C = 2, δ = 0 \(or δ buys nothing\) and r = {_R} < (?P<binary>{_NUM}) ", 1),
    ("docs/guide/results.md", rf"pure ε; K-norm DP class centroids released as Φ while {_R} < "
                              rf"(?P<pure>{_NUM}),", 1),
    ("docs/guide/results.md", rf"Gaussian centroids while {_R} < (?P<delta>{_NUM})\)", 1),
    ("docs/index.md", rf"centroids with pure ε while {_R} < (?P<binary>{_NUM});", 1),
    ("README.md", rf"centroids with pure ε while {_R} < (?P<binary>{_NUM});", 1),
    ("problems/wine_large_margin.toml", rf"\(K-norm noise\) instead while {_R_ASCII} < "
                                        rf"(?P<pure>{_NUM}) ", 1),
    ("problems/wine_large_margin.toml", rf"released as Phi when {_R_ASCII} < "
                                        rf"(?P<delta>{_NUM}) ", 1),
    ("problems/wine_large_margin.toml", rf"pure epsilon: K-norm DP class centroids while "
                                        rf"{_R_ASCII} < (?P<pure>{_NUM}),", 1),
    ("problems/wine_large_margin.toml", rf"Gaussian centroids while\s+#?\s*{_R_ASCII} < "
                                        rf"(?P<delta>{_NUM})\)", 1),
    ("dpconvex/privacy/rules/large_margin.py", rf":data:`CENTROID_BELOW` \((?P<delta>"
                                               rf"{_NUM}) with δ > 0, (?P<pure>{_NUM})"
                                               r" for\s+pure ε", 1),
    ("dpconvex/privacy/rules/front_door.py", rf"CENTROID_BELOW` \((?P<delta>{_NUM}) with "
                                             rf"δ > 0, (?P<pure>{_NUM}) for\s+pure ε", 1),
    ("dpconvex/estimators/large_margin/estimator.py", rf"CENTROID_BELOW`: (?P<pure>{_NUM})"
                                                      rf" with δ = 0\s+\(``delta`` None or 0\),"
                                                      rf" (?P<delta>{_NUM}) with δ > 0", 1),
]

#: Where the sweep looks: the docs, the README, the problem files, the notebooks, the package.
SWEPT = ("docs", "README.md", "problems", "notebooks", "dpconvex")

#: A bound on n·ε/(C(d + 1)) written with "<" (either spelling).
BOUND = re.compile(rf"(?:{_R}|{_R_ASCII}) < ({_NUM})")


def _text(path: str) -> str:
    return (ROOT / path).read_text(encoding="utf-8")


@pytest.mark.parametrize(("path", "pattern", "at_least"), STATEMENTS,
                         ids=[f"{p}:{i}" for i, (p, _, _) in enumerate(STATEMENTS)])
def test_the_stated_thresholds_are_the_constants(path, pattern, at_least):
    matches = list(re.finditer(pattern, _text(path)))
    assert len(matches) >= at_least, f"{path}: the statement {pattern!r} was not found"
    for match in matches:
        for group, stated in match.groupdict().items():
            assert float(stated) == CONSTANTS[group], (
                f"{path}: states {stated} for the {group!r} threshold, the code uses "
                f"{CONSTANTS[group]:g}: {match.group(0)!r}")


def _swept_files() -> list[Path]:
    out: list[Path] = []
    for name in SWEPT:
        path = ROOT / name
        found = [path] if path.is_file() else sorted(path.rglob("*"))
        out += [p for p in found if p.suffix in {".md", ".rst", ".toml", ".ipynb", ".py"}
                and "__pycache__" not in p.parts
                and not any(part.startswith(".") for part in p.relative_to(ROOT).parts)]
    return out


def test_every_stated_bound_is_a_threshold():
    thresholds = set(CONSTANTS.values())
    stated = {(str(path.relative_to(ROOT)), float(match.group(1)))
              for path in _swept_files()
              for match in BOUND.finditer(path.read_text(encoding="utf-8"))}
    assert len(stated) >= 8  # the statements of STATEMENTS are among them
    wrong = sorted((path, value) for path, value in stated if value not in thresholds)
    assert not wrong, f"bounds on n·ε/(C(d + 1)) that are no threshold of the code: {wrong}"


def test_the_wine_problem_names_the_epsilons_that_release_centroids():
    text = _text("problems/wine_large_margin.toml")
    match = re.search(r"here n = (\d+), C = (\d+), d = (\d+): epsilon ([\d.]+) and ([\d.]+)\)",
                      text)
    assert match is not None
    n, C, d = (int(v) for v in match.groups()[:3])
    named = sorted(float(v) for v in match.groups()[3:])
    grid = tomllib.loads(text)["grid"]["epsilon"]
    for below in CENTROID_BELOW.values():
        centroids = sorted(eps for eps in grid if n * eps / (C * (d + 1)) < below)
        assert centroids == named, (below, centroids)


def _wine_row() -> str:
    rows = [line for line in _text("docs/guide/results.md").splitlines()
            if line.startswith("| `wine_large_margin`")]
    assert len(rows) == 1
    return rows[0]


def test_the_wine_numbers_quoted_are_the_results_page():
    row = _wine_row()
    defaults = re.search(r"Estimator defaults \(.*?\): (\d\.\d+) \(ε = 1\)", row)
    paper = re.search(r"Paper's LM template: (\d\.\d+) \(ε = 1\)", row)
    assert defaults is not None and paper is not None
    guide = re.search(r"wine\s+at ε = 1 in `problems/wine_large_margin.toml`: error (\d\.\d+) "
                      r"with the defaults against (\d\.\d+)\s+for the paper's template",
                      _text("docs/guide/large_margin.md"))
    assert guide is not None
    assert guide.groups() == (defaults.group(1), paper.group(1))
    problem = re.search(r"error (\d\.\d+) ± \d\.\d+ at epsilon = 1,",
                        _text("problems/wine_large_margin.toml"))
    assert problem is not None and problem.group(1) == defaults.group(1)
