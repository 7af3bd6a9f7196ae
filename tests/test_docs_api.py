"""Every public name has a page in the API reference (docs/api/*.rst), without building the site.

The public names are ``dpconvex.__all__``, the ``__all__`` of every public
package of dpconvex and of ``dpconvex.errors``; a package without its own ``__all__``
(``dpconvex.privacy``, its ``accounting`` and ``rules``) exports through its public modules,
whose ``__all__`` count instead. A name is covered when an ``autosummary`` entry of
docs/api/ resolves to the same object (one page per object: ``dpconvex.PublicSchema`` and
``dpconvex.data.PublicSchema`` share it).
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import dpconvex

API = Path(__file__).resolve().parents[1] / "docs" / "api"


def _public_modules() -> list[str]:
    """dpconvex, its public packages and dpconvex.errors; the public modules of a package without __all__."""
    names = ["dpconvex", "dpconvex.errors"]
    for info in pkgutil.walk_packages(dpconvex.__path__, "dpconvex."):
        parts = info.name.split(".")
        if any(p.startswith("_") for p in parts) or not info.ispkg:
            continue
        names.append(info.name)
    out = []
    for name in names:
        mod = importlib.import_module(name)
        if hasattr(mod, "__all__"):
            out.append(name)
            continue
        for sub in pkgutil.iter_modules(mod.__path__, f"{name}."):
            if not sub.ispkg and not sub.name.rsplit(".", 1)[1].startswith("_"):
                out.append(sub.name)
    return sorted(set(out))


def _import(name: str):
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(name)


def _autosummary_entries() -> list[tuple[str, str]]:
    """(file, dotted name) of every autosummary entry, resolved against its currentmodule."""
    entries = []
    for path in sorted(API.glob("*.rst")):
        current = None
        in_block = False
        for line in path.read_text(encoding="utf-8").splitlines():
            m = re.match(r"\.\. (?:currentmodule|module)::\s*(\S+)", line)
            if m:
                current = None if m.group(1) == "None" else m.group(1)
                in_block = False
                continue
            if line.startswith(".. autosummary::"):
                in_block = True
                continue
            if in_block:
                if not line.strip() or line.strip().startswith(":"):
                    continue
                if not line.startswith("   "):
                    in_block = False
                    continue
                entry = line.strip().lstrip("~")
                entries.append((path.name, f"{current}.{entry}" if current else entry))
    return entries


def test_every_autosummary_entry_imports():
    entries = _autosummary_entries()
    assert len(entries) > 100
    broken = []
    for file, name in entries:
        try:
            _import(name)
        except (ImportError, AttributeError):
            broken.append(f"{file}: {name}")
    assert not broken, f"autosummary entries that do not import: {broken}"


def test_public_modules_found():
    modules = _public_modules()
    for expected in ("dpconvex", "dpconvex.audit", "dpconvex.data", "dpconvex.datasets", "dpconvex.errors",
                     "dpconvex.estimators", "dpconvex.objectives", "dpconvex.privacy.accounting.gaussian",
                     "dpconvex.privacy.mechanisms", "dpconvex.privacy.budget",
                     "dpconvex.privacy.rules.noise_level", "dpconvex.runs", "dpconvex.solvers",
                     "dpconvex.templates"):
        assert expected in modules


@functools.cache
def _documented_objects() -> tuple[object, ...]:
    """The object each autosummary entry of docs/api/ resolves to (read and imported once)."""
    return tuple(_import(name) for _, name in _autosummary_entries())


@pytest.mark.parametrize("module", _public_modules())
def test_every_public_name_has_a_reference_page(module):
    documented = _documented_objects()
    mod = importlib.import_module(module)
    missing = [name for name in mod.__all__
               if not any(obj is getattr(mod, name) for obj in documented)]
    assert not missing, (f"{module}.__all__ names without an autosummary entry in docs/api/*.rst: {missing}; "
                         "add each to the page of its package")


def test_cli_has_a_reference_page():
    text = (API / "cli.rst").read_text(encoding="utf-8")
    assert ".. dpconvex-cli::" in text
    assert "cli" in (API / "index.rst").read_text(encoding="utf-8").split()
