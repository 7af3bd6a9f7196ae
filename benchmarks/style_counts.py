"""The house style, counted on the syntax tree: functions, ``fit`` overrides, messages, types, names.

Question: how far is a package's source from the house style of ``STYLE.md`` items 17-21
(``fit`` written once, constraints as data, one form per kind of message, types that mean
something, names for readers)? The script parses every ``*.py`` file under the given paths
(default: the ``dpconvex/`` package of this repository) with :mod:`ast` and counts; it runs
no code of the package and uses only the standard library. It prints a markdown table, or
with ``--json`` the same counts as JSON; ``--messages`` lists every ``raise`` with the form
it was given (to check the classification by eye).

Run ``python benchmarks/style_counts.py [PATH ...] [--json] [--messages]``.

The rules, exactly (every count is over all files found; a file that does not parse is an
error):

*Code lines.* A line of a file is a code line if a token other than a comment, a newline or
an indent covers it, it is not blank, and it is not a line of a docstring (the first
statement of a module, class or function body when that statement is a string literal).
Lines inside a multi-line string that is not a docstring are code lines when not blank.

1. *Functions*: every ``def`` and ``async def`` (methods and nested functions included;
   lambdas not). A function's code lines are the code lines from the first line of its body
   to the last (its signature and decorators excluded, the code lines of nested functions
   included). Reported: the count, and the median and 90th percentile (nearest rank:
   the value at position ceil(0.9 n) of the sorted list) of code lines per function.
2. *fit overrides*: a class derives from ``PrivateEstimator`` if one of its bases (a name
   ``B`` or an attribute ``a.B``, by its last name) is ``PrivateEstimator`` or, resolved by
   class name among the classes defined in the files, derives from it (transitively).
   ``PrivateEstimator`` itself is not counted. Reported: the derived classes whose own body
   defines ``fit``, and those whose own body defines ``certify`` (names, sorted).
3. *Constraint lambdas*: ``lambda`` expressions anywhere inside the value of a class-body
   assignment (``=`` or annotated) to ``_parameter_constraints`` whose value is a dict
   literal. Also reported: the number of entries of those dicts (``**`` unpackings not
   counted) and of classes with such a table.
4. *raise*: every ``raise`` statement, per 1,000 code lines. Each is sorted into one kind:

   - ``reraise``: bare ``raise``;
   - ``no_call``: ``raise E`` or ``raise exc`` (no call, so no message here);
   - ``no_message``: ``raise E()`` with no positional argument;
   - ``non_literal``: the first positional argument of the raised call is not a string
     literal, an f-string, ``"...".format(...)``, or a ``+`` chain whose leftmost operand is
     one of those: a variable (``raise E(msg)``), a call, ``message + "..."``, or a helper
     that builds the exception from an owner or a path (``raise _err(path, "...")``);
   - otherwise the message's *leading text* is classified. The leading text is the literal
     text with each ``{...}`` of an f-string replaced by a placeholder: ``O`` when the
     expression names an owner (a name or attribute containing "owner", such as ``owner``
     or ``self.owner``, or a ``__name__`` / ``__qualname__`` attribute, such as
     ``type(self).__name__``), ``Q`` when it names the caller (a name or attribute
     containing "caller": a shared check's ``caller``, "Owner.method" or a function's
     name), ``N`` when it is the name ``noun`` (a constraint's "parameter" or "argument"),
     else ``P``. ``--messages`` shows every ``{expression}``.
     The leading text is matched against, in this order (``:`` below means a colon
     followed by a space or the end of the text):

     (a) ``sklearn``: ``The X parameter of `` or ``The X argument of `` (or ``The X N of ``)
         at the start, where ``X`` is ``'...'``, ``"..."``, ``O`` or ``P``
         (``f"The '{name}' parameter of {owner} must be ..."``,
         ``f"The '{name}' {noun} of {owner} must be ..."``);
     (a') ``sklearn_no_owner``: the same without ``of`` (``"The 'ranges' parameter must
         be ..."``: scikit-learn's form with the owner left out);
     (b) ``owner_method``: ``W.M:`` or ``W.M():`` at the start, where ``W`` is ``O`` or a
         capitalised identifier and ``M`` is ``O``, ``P`` or an identifier
         (``f"{owner}.fit: ..."``, ``"PrivateClassifier.fit: ..."``), or ``Q:``
         (``f"{caller}: ..."``);
     (c) ``owner``: ``W:`` at the start, ``W`` as in (b) (``f"{owner}: ..."``,
         ``"PrivateGridSearch: ..."``). A placeholder that is not an owner before the
         colon (``f"{path}: ..."``, ``f"{c.name}: ..."``) is not (c) but (e);
     (d) ``topic``: ``t:`` at the start, where ``t`` is one to four words separated by
         single spaces, the first starting with a lowercase letter, each of letters,
         digits, ``_`` or ``-`` (``"strong convexity: ..."``, ``"analytic Gaussian
         calibration: ..."``). A function's name written as the topic
         (``"load_kddcup99_dask: ..."``) is (d) too; how many topics are the name of a
         ``def`` or ``class`` of the files is reported beside the count;
     (e) ``other``: anything else (a sentence, ``"unknown solver ..."``, ``"This X ..."``,
         ``"{path}: ..."``, ``"{Owner}.certify needs ..."`` without the colon).

   A ``raise`` inside a string (a doctest) is not a statement and is not counted.
5. *Annotations*: the parameters of every ``def`` (positional-only, positional, ``*args``,
   keyword-only, ``**kwargs``) except those named ``self`` or ``cls``. Reported: how many
   there are, how many are annotated, how many of those are annotated ``Any``
   (``Any``, ``typing.Any`` or the string ``"Any"``; ``Any | None`` or ``Optional[Any]``
   are not ``Any``), and the share of annotated parameters that are ``Any``; and for the
   core names ``template``, ``consts``, ``est``, ``hold``, ``plan``, ``prep``,
   ``mechanism``: per name, how many parameters so named there are and how many are ``Any``.
6. *Local names*: per function, the distinct names bound in its own body (not in a nested
   ``def``, ``class`` or ``lambda``; comprehensions inside it do count): targets of ``=``,
   ``+=`` and the like, annotated assignments, ``:=``, ``for`` / ``async for`` targets,
   ``with ... as`` targets and comprehension ``for`` targets, unpacked through tuples,
   lists and ``*``. Not parameters, attributes, subscripts, imports, ``except ... as`` or
   the throwaway ``_``. Each distinct name counts once per function. Reported: the median
   length of those names and the share of length <= 3.
7. *Module aliases*: ``import a.b as y`` always, and ``from m import x as y`` when ``m.x``
   is a module (a ``.py`` file, a package folder or an extension module found on disk: in
   the scanned tree for relative imports and for the scanned package's own absolute name,
   else under the installed top-level package, which is located without importing it),
   where ``y`` is neither a community convention (``np``, ``pd``, ``plt``, ``cp``, ``da``,
   ``dd``, ``sp``, ``mpl``) nor, leading underscores aside, the module's own last name
   (``from .. import errors as diagnostics``, ``from . import gaussian as _gaussian``).
   Listed as ``file:line module as alias``.
   Aliases of functions and classes (``from .ops import row_norms as _row_norms``) are not
   module aliases.
8. *Prepared.meta*: the annotation of the field ``meta`` of a class ``Prepared`` (the
   first found), shown as source, and called ``untyped`` if it is ``Any`` or a ``dict``,
   ``Dict``, ``Mapping`` or ``MutableMapping`` (bare or subscripted, with or without a
   module prefix), else ``typed`` (a type variable or a class). Reported with it: the
   reads by string key, ``E.meta["key"]`` (a subscript load whose key is a string
   literal) and ``E.meta.get("key", ...)``; and, separately, the same reads on a bare
   name ``meta`` (``meta["key"]``, ``meta.get("key")``), which may be other dicts.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import io
import json
import math
import re
import statistics
import sys
import tokenize
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PATHS = (ROOT / "dpconvex",)

#: the base whose subclasses' ``fit`` / ``certify`` overrides are counted
BASE_ESTIMATOR = "PrivateEstimator"
#: parameters central to the fit pipeline whose ``Any`` annotations are counted by name
CORE_PARAMETERS = ("template", "consts", "est", "hold", "plan", "prep", "mechanism")
#: module aliases every reader of scientific Python knows
CONVENTIONAL_ALIASES = frozenset({"np", "pd", "plt", "cp", "da", "dd", "sp", "mpl"})
#: the message forms, in the order they are tried (then "other")
MESSAGE_FORMS = ("sklearn", "sklearn_no_owner", "owner_method", "owner", "topic", "other")
#: the kinds of raise that carry no classifiable literal message
RAISE_KINDS = ("reraise", "no_call", "no_message", "non_literal")
MAPPING_NAMES = frozenset({"dict", "Dict", "Mapping", "MutableMapping"})

#: what a ``{...}`` of an f-string becomes in the leading text: an owner, a caller, or
#: anything else
OWNER_PLACEHOLDER, CALLER_PLACEHOLDER, PLACEHOLDER = "\x01", "\x02", "\x00"
#: ``{noun}``: what a constraint names, "parameter" (the default) or "argument"
NOUN_PLACEHOLDER = "\x03"
_P = f"[{OWNER_PLACEHOLDER}{PLACEHOLDER}]"
_NOUN = rf"(?:parameter|argument|{NOUN_PLACEHOLDER})"
_OWNER = rf"(?:{OWNER_PLACEHOLDER}|[A-Z][A-Za-z0-9_]*)"
_END = r"(?:\s|$)"
_FORMS = (
    ("sklearn", re.compile(rf"^The (?:'[^'\n]*'|\"[^\"\n]*\"|{_P}) {_NOUN} of ")),
    ("sklearn_no_owner", re.compile(rf"^The (?:'[^'\n]*'|\"[^\"\n]*\"|{_P}) {_NOUN} ")),
    ("owner_method", re.compile(rf"^(?:{_OWNER}\.(?:{_P}|[A-Za-z_][A-Za-z0-9_]*)(?:\(\))?"
                                rf"|{CALLER_PLACEHOLDER}):{_END}")),
    ("owner", re.compile(rf"^{_OWNER}:{_END}")),
    ("topic", re.compile(rf"^[a-z][A-Za-z0-9_-]*(?: [A-Za-z0-9_-]+){{0,3}}:{_END}")),
)


@dataclass
class Source:
    """One parsed file: its path, text, tree and code lines."""

    path: Path
    text: str
    tree: ast.Module
    code_lines: frozenset[int]


@dataclass
class Raise:
    """One ``raise`` statement: where, its kind or message form, and its leading text."""

    where: str
    kind: str
    text: str = ""


@dataclass
class Counts:
    """Everything measured, filled by :func:`measure`."""

    files: int = 0
    code_lines: int = 0
    function_lines: list[int] = field(default_factory=list)
    fit_overrides: list[str] = field(default_factory=list)
    certify_overrides: list[str] = field(default_factory=list)
    estimator_classes: list[str] = field(default_factory=list)
    constraint_tables: int = 0
    constraint_entries: int = 0
    constraint_lambdas: int = 0
    raises: list[Raise] = field(default_factory=list)
    defined: set[str] = field(default_factory=set)
    parameters: int = 0
    annotated: int = 0
    annotated_any: int = 0
    core_parameters: dict[str, list[int]] = field(default_factory=dict)
    local_names: list[str] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)
    meta_annotation: str | None = None
    meta_reads: int = 0
    bare_meta_reads: int = 0


# ---------------------------------------------------------------- files and code lines


def python_files(paths: list[Path]) -> list[Path]:
    """Every ``*.py`` file under ``paths`` (a file is taken as is), sorted, caches skipped."""
    found: set[Path] = set()
    for path in paths:
        if path.is_file():
            found.add(path.resolve())
        else:
            found.update(p.resolve() for p in path.rglob("*.py") if "__pycache__" not in p.parts)
    return sorted(found)


def _docstring_lines(tree: ast.Module) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                lines.update(range(body[0].lineno, body[0].end_lineno + 1))
    return lines


def code_lines(text: str, tree: ast.Module) -> frozenset[int]:
    """The code lines of a file: covered by a token that is not a comment or layout, not
    blank, not in a docstring."""
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
            tokenize.ENDMARKER, tokenize.ENCODING}
    covered: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type not in skip:
            covered.update(range(tok.start[0], tok.end[0] + 1))
    lines = text.splitlines()
    blank = {i + 1 for i, line in enumerate(lines) if not line.strip()}
    return frozenset(covered - blank - _docstring_lines(tree))


def parse(path: Path) -> Source:
    """Read and parse one file."""
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text, filename=str(path))
    return Source(path, text, tree, code_lines(text, tree))


def _functions(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def _body_start(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    first = fn.body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
            and isinstance(first.value.value, str):
        return first.end_lineno + 1  # the docstring's lines are not code lines anyway
    return first.lineno


def function_code_lines(src: Source) -> list[int]:
    """Code lines of each function's body (docstring excluded, nested functions included)."""
    return [sum(1 for i in range(_body_start(fn), fn.end_lineno + 1) if i in src.code_lines)
            for fn in _functions(src.tree)]


# ---------------------------------------------------------------- classes


def _base_name(expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Subscript):  # Generic[T]
        expr = expr.value
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return expr.attr
    return None


def _defines(cls: ast.ClassDef, name: str) -> bool:
    return any(isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef) and s.name == name for s in cls.body)


def estimator_classes(sources: list[Source], base: str = BASE_ESTIMATOR) -> list[ast.ClassDef]:
    """Classes deriving from ``base``, directly or through classes of the files (by name)."""
    classes = [n for s in sources for n in ast.walk(s.tree) if isinstance(n, ast.ClassDef)]
    bases: dict[str, set[str]] = {}
    for cls in classes:
        bases.setdefault(cls.name, set()).update(b for b in map(_base_name, cls.bases) if b)
    derived: dict[str, bool] = {}

    def derives(name: str, seen: frozenset[str]) -> bool:
        if name not in derived:
            parents = bases.get(name, set())
            derived[name] = base in parents or any(
                derives(p, seen | {name}) for p in parents if p not in seen and p != name)
        return derived[name]

    return [c for c in classes if c.name != base and derives(c.name, frozenset())]


def constraint_tables(tree: ast.AST) -> list[ast.Dict]:
    """The dict literals assigned to ``_parameter_constraints`` in class bodies."""
    tables = []
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        for stmt in cls.body:
            if isinstance(stmt, ast.Assign):
                targets = stmt.targets
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                targets = [stmt.target]
            else:
                continue
            if any(isinstance(t, ast.Name) and t.id == "_parameter_constraints" for t in targets) \
                    and isinstance(stmt.value, ast.Dict):
                tables.append(stmt.value)
    return tables


# ---------------------------------------------------------------- raise


def caller_like(expr: ast.expr) -> bool:
    """Whether an f-string's ``{expr}`` names the caller, "Owner.method" or a function's name
    (a name or attribute containing "caller", such as ``caller`` or ``self.caller``)."""
    if isinstance(expr, ast.Attribute):
        return "caller" in expr.attr.lower()
    return isinstance(expr, ast.Name) and "caller" in expr.id.lower()


def owner_like(expr: ast.expr) -> bool:
    """Whether an f-string's ``{expr}`` names an owner: ``owner``, ``self._owner``,
    ``type(self).__name__``, ``cls.__qualname__`` (a name or attribute containing "owner",
    or a ``__name__`` / ``__qualname__`` attribute)."""
    if isinstance(expr, ast.Attribute):
        return expr.attr in ("__name__", "__qualname__") or "owner" in expr.attr.lower()
    return isinstance(expr, ast.Name) and "owner" in expr.id.lower()


def _literal_text(expr: ast.expr) -> str | None:
    """The leading text of a literal message (placeholders for ``{...}``), or None."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return expr.value
    if isinstance(expr, ast.JoinedStr):
        return "".join(str(v.value) if isinstance(v, ast.Constant)
                       else NOUN_PLACEHOLDER if isinstance(v.value, ast.Name)
                       and v.value.id == "noun"
                       else OWNER_PLACEHOLDER if owner_like(v.value)
                       else CALLER_PLACEHOLDER if caller_like(v.value) else PLACEHOLDER
                       for v in expr.values)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "format":
        return _literal_text(expr.func.value)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        return _literal_text(expr.left)
    return None


def _shown(expr: ast.expr) -> str:
    """The leading text as a reader sees it: ``{expression}`` for each placeholder."""
    if isinstance(expr, ast.JoinedStr):
        return "".join(str(v.value) if isinstance(v, ast.Constant) else "{" + ast.unparse(v.value)
                       + ("" if v.conversion == -1 else "!" + chr(v.conversion)) + "}" for v in expr.values)
    if isinstance(expr, ast.Call):
        return _shown(expr.func.value)  # "...".format(...)
    if isinstance(expr, ast.BinOp):
        return _shown(expr.left) + " + ..."
    return str(expr.value)


def message_form(text: str) -> str:
    """The form of a literal message's leading text (``PLACEHOLDER`` for each ``{...}``)."""
    for name, pattern in _FORMS:
        if pattern.match(text):
            return name
    return "other"


def classify_raise(node: ast.Raise) -> tuple[str, str]:
    """``(kind or form, shown text)`` of one ``raise`` statement."""
    if node.exc is None:
        return "reraise", ""
    if not isinstance(node.exc, ast.Call):
        return "no_call", ast.unparse(node.exc)
    if not node.exc.args:
        return "no_message", ast.unparse(node.exc)
    first = node.exc.args[0]
    text = _literal_text(first)
    if text is None:
        return "non_literal", ast.unparse(first)
    return message_form(text), _shown(first)


# ---------------------------------------------------------------- annotations and names


def _is_any(annotation: ast.expr) -> bool:
    if isinstance(annotation, ast.Constant):
        return annotation.value == "Any"
    return (isinstance(annotation, ast.Name) and annotation.id == "Any") or (
        isinstance(annotation, ast.Attribute) and annotation.attr == "Any")


def parameters(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.arg]:
    """A function's parameters, ``self`` and ``cls`` left out."""
    a = fn.args
    every = [*a.posonlyargs, *a.args, *([a.vararg] if a.vararg else []), *a.kwonlyargs,
             *([a.kwarg] if a.kwarg else [])]
    return [p for p in every if p.arg not in ("self", "cls")]


def _target_names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Tuple | ast.List):
        return [n for elt in target.elts for n in _target_names(elt)]
    if isinstance(target, ast.Starred):
        return _target_names(target.value)
    return []  # attributes and subscripts bind no local name


def local_names(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Distinct names bound in a function's own body (see the module docstring, item 6)."""
    names: set[str] = set()
    todo: list[ast.AST] = list(fn.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AugAssign | ast.AnnAssign | ast.NamedExpr | ast.For | ast.AsyncFor
                        | ast.comprehension):
            targets = [node.target]
        elif isinstance(node, ast.withitem):
            targets = [node.optional_vars] if node.optional_vars is not None else []
        else:
            targets = []
        for target in targets:
            names.update(_target_names(target))
        todo.extend(ast.iter_child_nodes(node))
    names.discard("_")
    return names


# ---------------------------------------------------------------- module aliases


def _module_on_disk(folder: Path, parts: list[str]) -> bool:
    *inner, last = parts
    here = folder.joinpath(*inner)
    return (here / f"{last}.py").is_file() or (here / last / "__init__.py").is_file() or any(
        here.glob(f"{last}.*.so")) or any(here.glob(f"{last}.*.pyd"))


def _is_module(src: Source, node: ast.ImportFrom, name: str, package_dirs: dict[str, Path]) -> bool:
    module = (node.module or "").split(".") if node.module else []
    if node.level:
        folder = src.path.parent
        for _ in range(node.level - 1):
            folder = folder.parent
        return _module_on_disk(folder, [*module, name])
    top, *rest = module
    if top in package_dirs:
        return _module_on_disk(package_dirs[top], [*rest, name])
    try:
        spec = importlib.util.find_spec(top)  # a top-level name: located, not imported
    except (ImportError, ValueError):
        return False
    if spec is None or not spec.submodule_search_locations:
        return False
    return any(_module_on_disk(Path(loc), [*rest, name]) for loc in spec.submodule_search_locations)


def module_aliases(src: Source, package_dirs: dict[str, Path], relative_to: Path) -> list[str]:
    """``file:line module as alias`` for each module alias that is not a convention."""
    found = []
    where = src.path.relative_to(relative_to) if src.path.is_relative_to(relative_to) else src.path
    for node in ast.walk(src.tree):
        if isinstance(node, ast.Import):
            modules = [(a.name, a.asname) for a in node.names if a.asname]
        elif isinstance(node, ast.ImportFrom):
            prefix = "." * node.level + (node.module or "")
            modules = [(f"{prefix}.{a.name}" if node.module else f"{prefix}{a.name}", a.asname)
                       for a in node.names if a.asname and _is_module(src, node, a.name, package_dirs)]
        else:
            continue
        for module, alias in modules:
            own = module.rsplit(".", 1)[-1].lstrip("_")
            if alias not in CONVENTIONAL_ALIASES and alias.lstrip("_") != own:
                found.append(f"{where}:{node.lineno} {module} as {alias}")
    return found


# ---------------------------------------------------------------- Prepared.meta


def meta_annotation(sources: list[Source]) -> str | None:
    """Source text of the annotation of ``Prepared.meta`` (the first class ``Prepared``)."""
    for src in sources:
        for cls in (n for n in ast.walk(src.tree) if isinstance(n, ast.ClassDef) and n.name == "Prepared"):
            for stmt in cls.body:
                if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) \
                        and stmt.target.id == "meta":
                    return ast.unparse(stmt.annotation)
    return None


def meta_typed(annotation: str | None) -> bool | None:
    """Whether a ``meta`` annotation names a type (None if there is no annotation)."""
    if annotation is None:
        return None
    node = ast.parse(annotation, mode="eval").body
    if isinstance(node, ast.Subscript):
        node = node.value
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return name not in MAPPING_NAMES and name != "Any"


def _string_key(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def meta_reads(tree: ast.AST) -> tuple[int, int]:
    """``(E.meta reads, bare meta reads)`` by string key: ``[...]`` loads and ``.get(...)``."""
    on_attribute = on_name = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and _string_key(node.slice):
            receiver = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
                and node.args and _string_key(node.args[0]):
            receiver = node.func.value
        else:
            continue
        if isinstance(receiver, ast.Attribute) and receiver.attr == "meta":
            on_attribute += 1
        elif isinstance(receiver, ast.Name) and receiver.id == "meta":
            on_name += 1
    return on_attribute, on_name


# ---------------------------------------------------------------- all together


def measure(paths: list[Path]) -> Counts:
    """Parse every file under ``paths`` and count (see the module docstring)."""
    files = python_files(paths)
    sources = [parse(p) for p in files]
    package_dirs = {p.resolve().name: p.resolve().parent for p in paths if (p / "__init__.py").is_file()}
    relative_to = paths[0].resolve().parent if paths else Path.cwd()
    c = Counts(files=len(sources), core_parameters={n: [0, 0] for n in CORE_PARAMETERS})
    for src in sources:
        where = src.path.relative_to(relative_to) if src.path.is_relative_to(relative_to) else src.path
        c.code_lines += len(src.code_lines)
        c.function_lines += function_code_lines(src)
        for table in constraint_tables(src.tree):
            c.constraint_tables += 1
            c.constraint_entries += sum(k is not None for k in table.keys)
            c.constraint_lambdas += sum(isinstance(n, ast.Lambda) for n in ast.walk(table))
        for node in ast.walk(src.tree):
            if isinstance(node, ast.Raise):
                kind, text = classify_raise(node)
                c.raises.append(Raise(f"{where}:{node.lineno}", kind, text))
        c.defined.update(n.name for n in ast.walk(src.tree)
                         if isinstance(n, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef))
        for fn in _functions(src.tree):
            for p in parameters(fn):
                c.parameters += 1
                if p.annotation is not None:
                    c.annotated += 1
                    c.annotated_any += _is_any(p.annotation)
                if p.arg in c.core_parameters:
                    c.core_parameters[p.arg][0] += 1
                    c.core_parameters[p.arg][1] += p.annotation is not None and _is_any(p.annotation)
            c.local_names += sorted(local_names(fn))
        c.aliases += module_aliases(src, package_dirs, relative_to)
        on_attribute, on_name = meta_reads(src.tree)
        c.meta_reads += on_attribute
        c.bare_meta_reads += on_name
    derived = estimator_classes(sources)
    c.estimator_classes = sorted({cls.name for cls in derived})
    c.fit_overrides = sorted({cls.name for cls in derived if _defines(cls, "fit")})
    c.certify_overrides = sorted({cls.name for cls in derived if _defines(cls, "certify")})
    c.meta_annotation = meta_annotation(sources)
    return c


def percentile(values: list[int], q: float) -> int:
    """Nearest-rank percentile: the value at position ceil(q n) of the sorted values."""
    ordered = sorted(values)
    return ordered[max(math.ceil(q * len(ordered)), 1) - 1]


def summary(c: Counts) -> dict[str, Any]:
    """The counts as a JSON-ready dict."""
    kinds = Counter(r.kind for r in c.raises)
    literal = sum(kinds[f] for f in MESSAGE_FORMS)
    name_lengths = [len(n) for n in c.local_names]
    typed = meta_typed(c.meta_annotation)
    return {
        "files": c.files,
        "code_lines": c.code_lines,
        "functions": {
            "count": len(c.function_lines),
            "code_lines_median": statistics.median(c.function_lines) if c.function_lines else None,
            "code_lines_p90": percentile(c.function_lines, 0.9) if c.function_lines else None,
        },
        "estimators": {
            "derived_from": BASE_ESTIMATOR,
            "classes": c.estimator_classes,
            "fit_overrides": c.fit_overrides,
            "certify_overrides": c.certify_overrides,
        },
        "constraints": {"tables": c.constraint_tables, "entries": c.constraint_entries,
                        "lambdas": c.constraint_lambdas},
        "raise": {
            "count": len(c.raises),
            "per_1000_code_lines": round(1000 * len(c.raises) / c.code_lines, 1) if c.code_lines else None,
            "literal_messages": literal,
            "forms": {f: kinds[f] for f in MESSAGE_FORMS},
            "topic_names_a_def": sum(r.kind == "topic" and r.text.split(":", 1)[0] in c.defined
                                     for r in c.raises),
            **{k: kinds[k] for k in RAISE_KINDS},
        },
        "annotations": {
            "parameters": c.parameters,
            "annotated": c.annotated,
            "annotated_any": c.annotated_any,
            "any_share": round(c.annotated_any / c.annotated, 3) if c.annotated else None,
            "core": {name: {"parameters": total, "any": n_any}
                     for name, (total, n_any) in c.core_parameters.items()},
        },
        "local_names": {
            "count": len(name_lengths),
            "length_median": statistics.median(name_lengths) if name_lengths else None,
            "share_at_most_3": round(sum(n <= 3 for n in name_lengths) / len(name_lengths), 3)
            if name_lengths else None,
        },
        "module_aliases": c.aliases,
        "prepared_meta": {
            "annotation": c.meta_annotation,
            "typed": typed,
            "key_reads": c.meta_reads,
            "bare_name_key_reads": c.bare_meta_reads,
        },
    }


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f} %"


def _num(x: float | None) -> str:
    return "–" if x is None else f"{x:g}"


def markdown(s: dict[str, Any]) -> str:
    """The summary as a markdown table followed by the lists it names."""
    f, e, k, r, a, n, m = (s["functions"], s["estimators"], s["constraints"], s["raise"], s["annotations"],
                           s["local_names"], s["prepared_meta"])
    forms = r["forms"]
    core = ", ".join(f"{name} {v['any']}/{v['parameters']}" for name, v in a["core"].items())
    rows = [
        ("files / code lines", f"{s['files']} / {s['code_lines']:,}"),
        ("functions", f"{f['count']:,}"),
        ("code lines per function, median / p90",
         f"{_num(f['code_lines_median'])} / {_num(f['code_lines_p90'])}"),
        (f"classes deriving from {e['derived_from']}", str(len(e["classes"]))),
        ("... that define `fit` / `certify`", f"{len(e['fit_overrides'])} / {len(e['certify_overrides'])}"),
        ("`_parameter_constraints` tables / entries / lambdas",
         f"{k['tables']} / {k['entries']} / {k['lambdas']}"),
        ("`raise` statements / per 1,000 code lines", f"{r['count']} / {r['per_1000_code_lines']}"),
        ("... literal messages", str(r["literal_messages"])),
        ("... (a) `The '<name>' parameter of <Owner> ...`", str(forms["sklearn"])),
        ("... (a') `The '<name>' parameter must ...` (no owner)", str(forms["sklearn_no_owner"])),
        ("... (b) `{Owner}.{method}: ...`", str(forms["owner_method"])),
        ("... (c) `{owner}: ...`", str(forms["owner"])),
        ("... (d) `lowercase topic: ...` (of which the topic names a def or class)",
         f"{forms['topic']} ({r['topic_names_a_def']})"),
        ("... (e) other", str(forms["other"])),
        ("... non-literal message (variable, call)", str(r["non_literal"])),
        ("... no message / no call / bare re-raise", f"{r['no_message']} / {r['no_call']} / {r['reraise']}"),
        ("parameters (no self/cls) / annotated / `Any`",
         f"{a['parameters']:,} / {a['annotated']:,} / {a['annotated_any']:,}"),
        ("share of annotated parameters that are `Any`", _pct(a["any_share"])),
        ("core parameters `Any` / all of that name", core),
        ("local names (distinct per function)", f"{n['count']:,}"),
        ("local name length, median / share <= 3",
         f"{_num(n['length_median'])} / {_pct(n['share_at_most_3'])}"),
        ("module aliases that are not conventions", str(len(s["module_aliases"]))),
        ("`Prepared.meta` annotation", "–" if m["annotation"] is None
         else f"`{m['annotation']}` ({'typed' if m['typed'] else 'untyped'})"),
        ("`.meta[\"key\"]` / `.meta.get(\"key\")` reads (bare `meta`: separately)",
         f"{m['key_reads']} ({m['bare_name_key_reads']})"),
    ]
    lines = ["| measure | count |", "|---|---|", *(f"| {label} | {value} |" for label, value in rows), ""]
    lines.append("`fit` overrides: " + (", ".join(e["fit_overrides"]) or "none"))
    lines.append("")
    lines.append("`certify` overrides: " + (", ".join(e["certify_overrides"]) or "none"))
    lines.append("")
    lines.append("Module aliases: " + ("; ".join(f"`{x}`" for x in s["module_aliases"]) or "none"))
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    """Command line: count the paths given (default the ``dpconvex`` package) and print."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", type=Path, default=list(DEFAULT_PATHS),
                    help="files or folders to scan (default: dpconvex/)")
    ap.add_argument("--json", action="store_true", help="print the counts as JSON")
    ap.add_argument("--messages", action="store_true", help="list every raise with its kind or form")
    args = ap.parse_args(argv)
    counts = measure(args.paths)
    if args.messages:
        for r in counts.raises:
            print(f"{r.kind:12} {r.where}  {r.text[:100]!r}")
        return
    s = summary(counts)
    if args.json:
        print(json.dumps(s, indent=1, ensure_ascii=False))
    else:
        print(markdown(s), end="")


if __name__ == "__main__":
    sys.exit(main())
