"""Shared test helpers."""

from __future__ import annotations

import sys


def patch_noise(monkeypatch, fn):
    """Replace ``norm_gamma`` in every dpconvex module that bound it by name; return the real one."""
    from dpconvex import noise

    real = noise.norm_gamma
    for name, mod in list(sys.modules.items()):
        if name.startswith("dpconvex") and getattr(mod, "norm_gamma", None) is real:
            monkeypatch.setattr(mod, "norm_gamma", fn)
    return real
