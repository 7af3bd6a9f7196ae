"""Fixtures of the privacy tests."""

from __future__ import annotations

import pytest

from dpconvex.privacy import checks


@pytest.fixture
def probes(monkeypatch):
    """The probes of a loss run during a test (calls of the probe grid), with an empty record
    of the user losses already probed."""
    monkeypatch.setattr(checks, "_PROBED", {})
    count = []
    grid = checks._probe_grid

    def counted(kinks):
        count.append(kinks)
        return grid(kinks)

    monkeypatch.setattr(checks, "_probe_grid", counted)
    return count
