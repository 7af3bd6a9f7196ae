"""The package's shape: imports flow one way (no cycle), and the top level stays small.

The import graph is built with :mod:`ast` from every module of ``dpconvex`` (module-level and
function-level imports alike): an edge ``a -> b`` for every ``from b import ...`` /
``import b`` inside ``a``, where ``b`` is a dpconvex module (a name imported from a package
that is itself a submodule counts as an import of that submodule). A package's ``__init__``
imported by its own submodules is not an edge (Python runs it first anyway).
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

from _helpers import syntax_nodes

PKG = Path(__file__).resolve().parents[1] / "dpconvex"


def _modules() -> dict[str, Path]:
    out = {}
    for p in PKG.rglob("*.py"):
        parts = p.relative_to(PKG.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    return out


def import_graph() -> dict[str, set[str]]:
    """Module -> the dpconvex modules it imports (a fresh copy: the tests may change it)."""
    return {m: set(targets) for m, targets in _import_graph().items()}


@cache
def _import_graph() -> dict[str, frozenset[str]]:
    """The graph, built once per test run (parsing the package is most of its cost)."""
    mods = _modules()
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for m, p in mods.items():
        is_pkg = p.name == "__init__.py"
        for node in syntax_nodes(p):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = m.split(".")
                    base = base[: len(base) - node.level + (1 if is_pkg else 0)]
                    t = ".".join(base + ([node.module] if node.module else []))
                else:
                    t = node.module or ""
                targets = [t] + [f"{t}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            for t in targets:
                if t in mods and t != m and not (mods[t].name == "__init__.py"
                                                 and m.startswith(t + ".")):
                    graph[m].add(t)
    return {m: frozenset(targets) for m, targets in graph.items()}


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm: the components with more than one module (each holds a cycle)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_graph_sees_the_imports():
    g = import_graph()
    assert "dpconvex.privacy.release" in g["dpconvex.estimators.linear"]
    assert "dpconvex.errors" in g["dpconvex._validation"]


def test_no_import_cycle():
    cycles = strongly_connected(import_graph())
    assert not cycles, "import cycles (modules that import each other, directly or not): " + \
        "; ".join(" <-> ".join(c) for c in cycles)


def test_the_cycle_finder_finds_a_cycle():
    assert strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


#: The layers, lowest first: a module may import its own layer and the layers below it.
#: The privacy package has two levels: its vocabulary, which objectives and templates use to
#: state their proofs — the certificate and its composition, then the budget and its ledger,
#: the noise laws and the accounting of composed Gaussian noise, then the checks of a loss —
#: and its machinery, which runs templates through solvers: the mechanisms, the rules that
#: weigh them (Λ, "auto", the front doors' learner), the guards on a user's parts, the release
#: pipeline, and what is built on the release (the verifier, the private bounds).
LAYERS: tuple[tuple[str, ...], ...] = (
    ("dpconvex.errors",),
    ("dpconvex._validation",),
    ("dpconvex.privacy.certificate", "dpconvex.privacy.composition"),
    ("dpconvex.privacy.budget", "dpconvex.privacy.noise", "dpconvex.privacy.accounting"),
    ("dpconvex.data",),
    ("dpconvex.objectives",),
    ("dpconvex.privacy.checks",),
    ("dpconvex.templates",),
    ("dpconvex.solvers",),
    ("dpconvex.privacy.mechanisms",),
    ("dpconvex.privacy.rules",),
    ("dpconvex.privacy.declarations", "dpconvex.privacy.user_parts"),
    ("dpconvex.privacy.release",),
    ("dpconvex.privacy",),
    ("dpconvex.datasets",),
    ("dpconvex.estimators",),
    ("dpconvex.audit",),
    ("dpconvex.runs", "dpconvex.cli"),
    ("dpconvex", "dpconvex.__main__"),
)


def layer_of(module: str) -> int:
    """The index in :data:`LAYERS` of the longest prefix naming ``module``."""
    best, length = -1, -1
    for i, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > length:
                best, length = i, len(prefix)
    assert best >= 0, f"{module} is in no layer: add it to LAYERS"
    return best


def test_imports_flow_one_way():
    up = sorted(f"{a} -> {b}" for a, targets in import_graph().items() for b in targets
                if layer_of(b) > layer_of(a))
    assert not up, "imports from a higher layer (move the shared piece down): " + "; ".join(up)


def test_the_schema_declarations_import_neither_the_encoder_nor_the_drafting():
    """The declarations read no data: the encoder and the drafting import them, not the reverse."""
    g = import_graph()
    readers = {"dpconvex.data.encoder", "dpconvex.data.schema_draft", "dpconvex.data.tables"}
    assert not g["dpconvex.data.schema"] & readers, sorted(g["dpconvex.data.schema"] & readers)
    assert "dpconvex.data.schema" in g["dpconvex.data.encoder"]
    assert "dpconvex.data.schema" in g["dpconvex.data.schema_draft"]
    assert "dpconvex.data.encoder" not in g["dpconvex.data.schema_draft"]


def test_the_top_level_holds_only_the_public_surface_and_private_helpers():
    top = sorted(p.name for p in PKG.glob("*.py"))
    assert top == ["__init__.py", "__main__.py", "_validation.py",
                   "cli.py", "errors.py"], top


def _mechanism_name_comparisons() -> list[str]:
    """Comparisons of a mechanism (or its name) with registered mechanism names, outside
    ``privacy/mechanisms/``: an ``ast.Compare`` with one operand a registered name (a string,
    or a tuple/list/set of them) and another whose source reads as a mechanism or a name."""
    from dpconvex.privacy.mechanisms import MECHANISMS

    names = set(MECHANISMS) | {"amp", "gaussian_amp"}

    def is_names(node: ast.AST) -> bool:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value in names
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return bool(node.elts) and all(is_names(e) for e in node.elts)
        return False

    def reads_as_mechanism(src: str) -> bool:
        return any(k in src.lower() for k in ("mech", "name", "inner")) or src.strip() == "m"

    hits = []
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG.parent).as_posix()
        if rel.startswith("dpconvex/privacy/mechanisms/"):
            continue
        text = path.read_text()
        for node in syntax_nodes(path):
            if isinstance(node, ast.Compare):
                ops = [node.left, *node.comparators]
                if any(isinstance(o, (ast.Attribute, ast.Name))
                       and getattr(o, "attr", getattr(o, "id", "")) == "placement" for o in ops):
                    continue  # where the noise enters, not which mechanism
                if any(is_names(o) for o in ops) and any(
                        not is_names(o) and reads_as_mechanism(ast.get_source_segment(text, o) or "")
                        for o in ops):
                    hits.append(f"{rel}:{node.lineno}: {ast.get_source_segment(text, node)}")
    return hits


def test_no_mechanism_is_compared_by_name_outside_the_mechanisms():
    hits = _mechanism_name_comparisons()
    assert not hits, ("a mechanism's behaviour is read from the mechanism (its calibration's "
                      "noise law, placement, needs), not from its name: " + "; ".join(hits))
