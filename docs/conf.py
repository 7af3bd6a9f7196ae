"""Sphinx configuration of the dpconvex documentation site.

Build (from the repository root, with the ``docs`` extra installed)::

    python -m sphinx -W --keep-going -n -b html docs docs/_build/html

``-W`` turns every warning into an error and ``-n`` (``nitpicky``) reports every
cross-reference that does not resolve. Each build writes the API reference's pages of
objects (``docs/api/generated/``, ignored by git) anew: the folder is emptied before
autosummary writes it, so a page of an object that no longer exists is never read. The
site is built offline: the notebooks are rendered from their committed outputs (never
executed), and no intersphinx inventory is fetched (see ``nitpick_ignore_regex`` below for
what that means for references to NumPy, scikit-learn, pandas, CVXPY and the standard
library).
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import importlib
import inspect
import os
import re
import shutil
import sys
from pathlib import Path

from docutils import nodes
from docutils.statemachine import StringList
from sphinx import addnodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

import dpconvex

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
logger = logging.getLogger(__name__)

# -- Project -------------------------------------------------------------------

project = "dpconvex"
author = "the dpconvex authors"
copyright = "the dpconvex authors"
release = dpconvex.__version__
version = ".".join(release.split(".")[:2])

# -- Extensions ----------------------------------------------------------------

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_nb",  # MyST markdown (myst-parser) and notebooks
    "sphinx_copybutton",
]

templates_path = ["_templates"]
exclude_patterns = ["_build", "**.ipynb_checkpoints", "img", "Thumbs.db", ".DS_Store"]
root_doc = "index"

# -- API reference: autosummary + autodoc + numpydoc ---------------------------

autosummary_generate = True
autosummary_generate_overwrite = True
#: Where autosummary writes a page per object of the API reference (the ``:toctree:`` of the
#: pages of docs/api/); emptied at the start of every build (:func:`_clear_generated`).
GENERATED = Path("api") / "generated"
autodoc_typehints = "signature"
autodoc_member_order = "bysource"
autodoc_preserve_defaults = True
autodoc_inherit_docstrings = True
# Classes list their members through the autosummary class template
# (``_templates/autosummary/class.rst``), not through numpydoc's member tables.
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = False
# Citation labels such as [NST+21] (numpydoc's default pattern has no "+").
numpydoc_citation_re = r"[\w.+-]+"

# -- Markdown and notebooks (MyST, myst-nb) ------------------------------------

myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 4
# The notebooks are rendered from their committed outputs; the test suite
# executes them (nbmake), the documentation build never does.
nb_execution_mode = "off"

# The notebooks live in the top-level notebooks/ folder (their one source); the
# build copies them next to the pages (docs/notebooks/, ignored by git).
_NB_SRC = ROOT / "notebooks"
_NB_DST = DOCS / "notebooks"
if _NB_SRC.is_dir():
    _NB_DST.mkdir(exist_ok=True)
    for _nb in sorted(_NB_SRC.glob("*.ipynb")):
        _target = _NB_DST / _nb.name
        if not _target.exists() or _target.read_bytes() != _nb.read_bytes():
            shutil.copyfile(_nb, _target)

# -- HTML ----------------------------------------------------------------------

html_theme = "pydata_sphinx_theme"
html_title = f"dpconvex {release}"
html_static_path = ["_static"]
html_css_files = ["dpconvex.css"]
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
html_show_sourcelink = False

# -- Cross-references ----------------------------------------------------------

nitpicky = True

# These machines reach no documentation server, so intersphinx inventories
# (docs.python.org, numpy.org, scikit-learn.org, pandas, CVXPY, Dask) cannot be
# fetched: a reference to a name of the standard library or of a dependency has
# no target to link to and is shown as plain code instead of a warning. Only
# these namespaces are exempted; every reference into dpconvex must resolve.
_EXTERNAL_PACKAGES = (
    "numpy", "np", "scipy", "sklearn", "pandas", "pd", "cvxpy", "cp", "dask", "distributed",
    "dp_accounting", "matplotlib", "threadpoolctl", "clarabel", "scs", "numpy.typing", "npt",
)
_STDLIB = sorted(n for n in sys.stdlib_module_names if not n.startswith("_"))
_BUILTINS = sorted(n for n in dir(builtins) if not n.startswith("_"))
nitpick_ignore_regex = [
    (r"py:.*", rf"({'|'.join(map(re.escape, _EXTERNAL_PACKAGES))})(\..+)?"),
    (r"py:.*", rf"({'|'.join(map(re.escape, _STDLIB))})(\..+)?"),
    (r"py:.*", rf"({'|'.join(map(re.escape, _BUILTINS))})"),
    # typing names that autodoc writes unqualified in signatures
    (r"py:.*", r"(Any|Callable|Iterable|Iterator|Mapping|Sequence|Literal|Self|NoReturn|Optional|Union)"),
]


def _import(name: str):
    """The object a dotted ``dpconvex`` name points to, or ``None``."""
    if not name.startswith("dpconvex") or "__main__" in name:
        return None
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        try:
            for attr in parts[i:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return None
        return obj
    return None


def _key(obj):
    return id(obj.__func__) if inspect.ismethod(obj) else id(obj)


def _is_data(obj) -> bool:
    return not (inspect.ismodule(obj) or inspect.isclass(obj) or callable(obj)
                or isinstance(obj, property))


_DOCUMENTED: dict[int, str] = {}


def _documented(env) -> dict[int, str]:
    """Map each documented object (by identity) to the name it is documented under."""
    if not _DOCUMENTED:
        objects = env.get_domain("py").objects
        for fullname in sorted(objects, key=lambda n: (n.count("."), len(n), n)):
            obj = _import(fullname)
            if obj is not None and not _is_data(obj):
                _DOCUMENTED.setdefault(_key(obj), fullname)
    return _DOCUMENTED


def _object_contexts(full: str) -> list[str]:
    """``full`` and where the object it names is defined (module, class)."""
    names: list[str] = []
    obj = _import(full)
    if inspect.isclass(obj) or inspect.isfunction(obj):
        defined = getattr(obj, "__qualname__", "").replace(".<locals>", "")
        names.append(f"{obj.__module__}.{defined}")
        if "." in defined:  # a method: its class
            names.append(f"{obj.__module__}.{defined.rsplit('.', 1)[0]}")
        names.append(obj.__module__)
    names.append(full)
    names.append(full.rsplit(".", 1)[0])
    return names


def _enclosing_contexts(node) -> list[str]:
    """Dotted names to resolve a relative reference against, innermost first.

    The objects whose description holds the reference (a method, its class) or
    whose row of an autosummary table holds it, where they are defined, and the
    modules named by the reference's context.
    """
    names: list[str] = []
    parent = node.parent
    while parent is not None:
        if isinstance(parent, addnodes.desc):
            sig = next((c for c in parent.children if isinstance(c, addnodes.desc_signature)), None)
            if sig is not None and sig.get("fullname"):
                full = f"{sig.get('module')}.{sig['fullname']}" if sig.get("module") else sig["fullname"]
                names.extend(_object_contexts(full))
        elif isinstance(parent, nodes.row) and parent.children:
            # the first cell names the object: by now a resolved reference whose
            # anchor is the object's full name
            ref = next(iter(parent.children[0].findall(nodes.reference)), None)
            if ref is not None and "#" in ref.get("refuri", ""):
                names.extend(_object_contexts(ref["refuri"].rsplit("#", 1)[1]))
        parent = parent.parent
    modname = node.get("py:module") or ""
    clsname = node.get("py:class") or ""
    if modname and clsname:
        names.extend(_object_contexts(f"{modname}.{clsname}"))
    if modname:
        names.append(modname)
        while "." in modname:  # enclosing packages
            modname = modname.rsplit(".", 1)[0]
            names.append(modname)
    return list(dict.fromkeys(names))


_ANNOTATION_IMPORTS: dict[str, dict[str, str]] = {}


def _annotation_imports(modname: str) -> dict[str, str]:
    """Names a module imports for its annotations only (under ``if TYPE_CHECKING:``).

    Such a name is not an attribute of the module at run time, so a signature that uses it
    is resolved where it is imported from: name -> the dotted name it stands for.
    """
    if modname not in _ANNOTATION_IMPORTS:
        found: dict[str, str] = {}
        module = _import(modname)
        source = getattr(module, "__file__", None) if inspect.ismodule(module) else None
        if source:
            package = modname if source.endswith("__init__.py") else modname.rsplit(".", 1)[0]
            for block in ast.walk(ast.parse(Path(source).read_text())):
                if not (isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)):
                    continue
                for stmt in block.body:
                    if isinstance(stmt, ast.ImportFrom):
                        base = package.split(".")
                        base = base[: len(base) - stmt.level + 1] if stmt.level else []
                        origin = ".".join(base + ([stmt.module] if stmt.module else []))
                        for alias in stmt.names:
                            found[alias.asname or alias.name] = f"{origin}.{alias.name}"
        _ANNOTATION_IMPORTS[modname] = found
    return _ANNOTATION_IMPORTS[modname]


def _resolve_alias(app, env, node, contnode):
    """Resolve a reference to a dpconvex object written under another of its names.

    A docstring may name an object where it is defined
    (``dpconvex.privacy.budget.Budget``), where it is exported
    (``dpconvex.Budget``) or relative to the module or class it is written in
    (``Budget``, ``Reservation.commit``); the API reference documents each
    object once. The reference is resolved to the documented name of the same
    object. A reference to a dpconvex object that exists but is not public (a
    private helper, a module without its own page) is shown as code without a
    link. A name that does not exist stays a warning.
    """
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"].lstrip(".~")
    contexts = _enclosing_contexts(node)
    candidates = [target] + [f"{ctx}.{target}" for ctx in contexts]
    head, _, rest = target.partition(".")
    for ctx in contexts:  # a name imported for annotations only, where it comes from
        origin = _annotation_imports(ctx).get(head)
        if origin is not None:
            full = f"{origin}.{rest}" if rest else origin
            if not full.startswith("dpconvex"):  # a dependency's class: code, no link
                return contnode
            candidates.append(full)
    domain = env.get_domain("py")
    documented = _documented(env)
    for cand in candidates:
        obj = _import(cand)
        if obj is None and "." in cand:
            # a field of a documented dataclass (no class attribute to import):
            # the reference links to the class, whose Attributes section lists it
            owner, field = cand.rsplit(".", 1)
            cls = _import(owner)
            if inspect.isclass(cls) and field in getattr(cls, "__dataclass_fields__", {}):
                obj = cls
        if obj is None:
            continue
        if _is_data(obj):
            short = cand.rsplit(".", 1)[-1]
            names = [n for n in domain.objects if n.rsplit(".", 1)[-1] == short and _import(n) is obj]
            fullname = names[0] if names else None
        else:
            fullname = documented.get(_key(obj))
        if fullname is not None:
            return domain.resolve_xref(env, node["refdoc"], app.builder, "obj", fullname, node, contnode)
        logger.verbose("dpconvex docs: %s is not public; shown without a link", cand)
        return contnode
    return None


# scikit-learn's own API on every estimator (metadata routing, set_output and
# the mixins' methods) is documented by scikit-learn; its docstrings point into
# scikit-learn's site, which this build cannot link to.
_SKLEARN_MACHINERY = re.compile(r"set_\w+_request|get_metadata_routing|set_output|fit_transform|fit_predict")


def _clear_generated(app) -> None:
    """Delete the pages autosummary wrote in an earlier build, before it writes this build's.

    autosummary writes a page for each object the API reference lists and deletes none: the
    page of an object since removed or renamed would stay, be read as a document and fail to
    import (a warning, so an error under ``-W``). Connected to ``builder-inited`` ahead of
    autosummary's own handler (a lower priority runs first).
    """
    shutil.rmtree(Path(app.srcdir) / GENERATED, ignore_errors=True)


def _skip_member(app, what, name, obj, skip, options):
    if _SKLEARN_MACHINERY.fullmatch(name):
        return True
    return None


# Docstrings write mathematics as plain text (|ℓ'| <= 1, ||f||^2); in reST a pair of
# bars is a substitution reference, so the bars of such text are escaped before
# numpydoc reads the docstring. Inline literals, literal and doctest blocks,
# directive bodies and line blocks are left as written.
_NORMS = re.compile(r"(?<!\\)\|\|(?=\S)([^|\n]*?\S)\|\|")
_ABS = re.compile(r"(?<!\\)\|(?=[^\s|])([^|\n]*?[^\s|\\])\|")


def _escape_bars(text: str) -> str:
    parts = re.split(r"(``.*?``|`[^`]*`)", text)
    for j in range(0, len(parts), 2):
        parts[j] = _ABS.sub(r"\\|\1\\|", _NORMS.sub(r"\\|\\|\1\\|\\|", parts[j]))
    return "".join(parts)


def _escape_plain_math(app, what, name, obj, options, lines):
    block_indent = None  # indentation of the line that opened a literal block or directive
    in_doctest = False
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if block_indent is not None:
            if stripped and indent <= block_indent:
                block_indent = None
            else:
                continue
        if in_doctest:
            if not stripped:
                in_doctest = False
            continue
        if stripped.startswith(">>>"):
            in_doctest = True
            continue
        if stripped == "|" or stripped.startswith(("| ", "+-", "+=")):  # line blocks, grid tables
            continue
        if "|" in line:
            lines[i] = _escape_bars(line)
        if stripped.endswith("::"):
            block_indent = indent


def _dataclass_signature(app, what, name, obj, options, signature, return_annotation):
    """Show a dataclass field's default factory as a call (``dict()``), not ``<factory>``.

    ``<factory>`` is not Python, so the signature could not be parsed into
    parameters and their annotations.
    """
    if signature and "<factory>" in signature and dataclasses.is_dataclass(obj):
        for field in dataclasses.fields(obj):  # in the order of the signature
            if field.default_factory is not dataclasses.MISSING:
                factory = getattr(field.default_factory, "__qualname__", "factory")
                signature = signature.replace("<factory>", f"{factory}()", 1)
        return signature, return_annotation
    return None


def _data_docstring(app, what, name, obj, options, lines):
    """A module constant without its own docstring is not described by its type's docstring."""
    if what in ("data", "attribute") and not inspect.isclass(obj) and lines:
        own = inspect.getdoc(type(obj))
        if own and "\n".join(lines).strip() == inspect.cleandoc(own).strip():
            lines.clear()


# -- The command line: one directive that reads the parser ---------------------


class DPConvexCLI(SphinxDirective):
    """Document ``dpconvex`` and each subcommand from :func:`dpconvex.cli._parser`."""

    has_content = False

    def run(self):
        import argparse

        from dpconvex.cli import _parser

        os.environ.setdefault("COLUMNS", "100")
        parser = _parser()
        lines: list[str] = []

        def document(prog: str, p: argparse.ArgumentParser, summary: str | None) -> None:
            lines.extend([f".. program:: {prog}", ""])
            if summary:
                lines.extend([summary[0].upper() + summary[1:] + ".", ""])
            lines.extend(["::", ""])
            lines.extend(f"   {line}" for line in p.format_help().rstrip().splitlines())
            lines.append("")
            for action in p._actions:
                if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                    continue
                if action.option_strings:
                    meta = "" if action.nargs == 0 else f" {action.metavar or action.dest.upper()}"
                    sig = ", ".join(f"{o}{meta}" for o in action.option_strings)
                else:
                    sig = action.metavar or action.dest
                lines.extend([f".. option:: {sig}", "", f"   {action.help or ''}", ""])

        document("dpconvex", parser, None)
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        helps = {c.dest: c.help for c in sub._choices_actions}
        for name, p in sub.choices.items():
            lines.extend([f".. rubric:: dpconvex {name}", ""])
            document(f"dpconvex {name}", p, helps.get(name))
        container = nodes.container()
        self.state.nested_parse(StringList(lines, source="dpconvex.cli"), self.content_offset, container)
        return container.children


def setup(app):
    app.connect("builder-inited", _clear_generated, priority=100)  # autosummary's runs at 500
    app.connect("missing-reference", _resolve_alias)
    app.connect("autodoc-skip-member", _skip_member)
    app.connect("autodoc-process-signature", _dataclass_signature)
    app.connect("autodoc-process-docstring", _data_docstring, priority=400)
    app.connect("autodoc-process-docstring", _escape_plain_math, priority=450)
    app.add_directive("dpconvex-cli", DPConvexCLI)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

