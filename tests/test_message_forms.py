"""Every message dpconvex raises has one of two forms (the house style for messages).

1. A parameter error, generated from the parameter's constraint in scikit-learn's words:
   ``"The 'epsilon' parameter of PrivateLogisticRegression must be a float in (0, inf). Got
   -1 instead."`` (or ``"The 'n' argument of PrivateClassifier.plan must be ..."`` for a
   method's argument).
2. Everything else: ``"{Owner}.{method}: what failed. What to do."`` -- the public callable
   the user called, then what failed and what to change, with the proof's condition and
   section at the end where a privacy condition failed. A module-level function writes its
   name (``"load_adult: ..."``); a shared check is handed the caller's name as ``caller``
   (``f"{caller}: ..."``).

The form of a message is read from the syntax tree by ``benchmarks/style_counts.py`` (its
docstring states the rules); a message built in a variable is not read. Three wordings are
scikit-learn's or Python's own and stay as they are (:data:`KEPT_WORDINGS`).
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

from _helpers import syntax_nodes

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import style_counts  # noqa: E402

PACKAGE = ROOT / "dpconvex"

#: The two forms (``style_counts.message_form``); a function's name before the colon is
#: the second form for a module-level function.
ACCEPTED = frozenset({"sklearn", "owner_method"})

#: Wordings other code matches: a module's ``__getattr__`` (Python's), a model used before
#: ``fit`` and a column count other than the fitted one (scikit-learn's estimator checks).
KEPT_WORDINGS = (
    re.compile("^module .* has no attribute "),
    re.compile("^This .* instance is not fitted yet"),
    re.compile("^.* has .* features, but .* is expecting .* features as input"),
)

def _public_defs() -> frozenset[str]:
    names = set()
    for path in PACKAGE.rglob("*.py"):
        for node in syntax_nodes(path):
            if isinstance(node, ast.FunctionDef | ast.ClassDef) and not node.name.startswith("_"):
                names.add(node.name)
    return frozenset(names)


def _third_forms(path: Path, defs: frozenset[str]) -> list[str]:
    """The literal messages of ``path`` in neither form: ``line: form: leading text``."""
    out = []
    for node in syntax_nodes(path):
        if not isinstance(node, ast.Raise):
            continue
        form, text = style_counts.classify_raise(node)
        if form not in style_counts.MESSAGE_FORMS or form in ACCEPTED:
            continue
        if form == "topic" and text.split(":", 1)[0] in defs:
            continue  # a module-level function's name
        if any(p.match(text) for p in KEPT_WORDINGS):
            continue
        out.append(f"{node.lineno}: {form}: {text[:90]}")
    return out


def _relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def test_every_message_has_one_of_the_two_forms():
    defs = _public_defs()
    bad = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        found = _third_forms(path, defs)
        if found:
            bad[_relative(path)] = found
    assert not bad, "messages in a third form:\n" + "\n".join(
        f"{name}:{line}" for name, lines in bad.items() for line in lines)


def test_a_third_form_is_found(tmp_path):
    module = tmp_path / "mod.py"
    module.write_text(
        "def f(owner):\n"
        "    raise ValueError(f'{owner}: X has no rows.')\n"
        "def g(owner):\n"
        "    raise ValueError(f'{owner}.fit: X has no rows. Pass at least two.')\n"
        "def h():\n"
        "    raise ValueError('strong convexity: lam = 0.')\n"
        "def k(caller):\n"
        "    raise ValueError(f'{caller}: X has no rows.')\n")
    assert [line.split(":")[0] for line in _third_forms(module, frozenset({"f", "g", "k"}))] \
        == ["2", "6"]
