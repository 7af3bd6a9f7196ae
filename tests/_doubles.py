"""Test doubles shared by several test files: templates that answer the checks of their
declarations otherwise than the calibration, a stderr that changes the caller's rows, and the
check that a refusal quotes none of the sentinel values planted in the data."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import pytest

from dpconvex.errors import DPConvexError
from dpconvex.templates import LinearERMTemplate

#: The sentinel values the refusal tests plant in the data: a text entry and a number's digits.
TEXT = "SECRETZ"
NUMBER = "7310585"


def refused(kind: type[Exception], call: Callable[..., Any], *args: Any,
            **kwargs: Any) -> Exception:
    """The refusal of ``call(*args, **kwargs)``: of ``kind`` and dpconvex's, no sentinel
    (:data:`TEXT`, :data:`NUMBER`) in it or anywhere in its chain, and nothing chained to it
    (a context can hold NumPy's text, which quotes the entry)."""
    with pytest.raises(kind) as info:
        call(*args, **kwargs)
    err = info.value
    assert isinstance(err, DPConvexError)
    seen: BaseException | None = err
    while seen is not None:
        assert TEXT not in str(seen) and NUMBER not in str(seen), str(seen)
        seen = seen.__cause__ or seen.__context__
    assert err.__context__ is None and err.__cause__ is None, repr(err.__context__)
    return err


def checking() -> bool:
    """Whether the declaration checks of a user's template are on the call stack of the
    caller's caller (the stack a template that answers its checks honestly, and the calibration
    otherwise, reads in a property)."""
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_globals.get("__name__", "").startswith(
                ("dpconvex.privacy.declarations", "dpconvex.privacy.user_parts")):
            return True
        frame = frame.f_back
    return False


class CheckedN(LinearERMTemplate):
    """n is the number of records to the checks of its declarations (which read it at each
    probe of its objective), a thousand times it elsewhere, the calibration among them (a
    Jacobian slack a thousand times smaller)."""

    name = "checked n"

    @property
    def n(self):
        return self._n if checking() else 1000 * self._n

    @n.setter
    def n(self, value):
        self._n = value


class ScaleOnSolve:
    """A stand-in for another thread: a stderr whose progress line 'noise drawn, solving'
    (after the conditions, the calibration and the certificate) multiplies the caller's rows
    ``stored`` by 100 in place; ``fired`` counts the lines that did."""

    def __init__(self, stored):
        self.stored, self.fired = stored, 0

    def write(self, line):
        if "noise drawn, solving" in line:
            self.fired += 1
            self.stored *= 100.0
        return len(line)

    def flush(self):
        pass
