"""Fixtures of the runner's tests: a user's module written where a problem file can import it."""

from __future__ import annotations

import sys
import uuid
from collections.abc import Callable, Iterator

import pytest


@pytest.fixture
def write_user_module(tmp_path, monkeypatch) -> Iterator[Callable[[str], str]]:
    """A function that writes ``text`` as a fresh module on sys.path and returns its name (a
    unique name: modules are cached); the modules are forgotten after the test."""
    names: list[str] = []
    folder = tmp_path / "site"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))

    def write(text: str) -> str:
        name = f"dpc_user_{uuid.uuid4().hex[:12]}"
        (folder / f"{name}.py").write_text(text)
        names.append(name)
        return name

    yield write
    for name in names:
        sys.modules.pop(name, None)
