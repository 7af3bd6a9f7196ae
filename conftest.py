"""The doctest namespace of every docstring example in dpconvex/ (pytest --doctest-modules).

Each example starts from the same names, made anew for every docstring (so no example
sees another's changes): ``np``; ``rng``, a NumPy generator seeded 0 after it drew ``X``;
``X``, 40 rows of 3 features scaled to norm 1; ``y``, the labels sign(X[:, 0]) in {-1, +1};
``template``, ``LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y)``, the
problem the mechanism and backend examples release from; and the names those examples
share, ``Budget``, ``release``, ``get_mechanism``, ``Logistic``, ``LinearERMTemplate`` and
``PrivacyConstants``. An example that needs other data or names makes or imports them.
The examples of the names ``dpconvex`` exports use none of these: they run as a user
copies them (tests/test_docstring_examples.py).

Collection creates a few hundred thousand long-lived objects (the test items, the modules);
the cyclic garbage collector is paused while they are made and then told to leave them out of
its scans (:func:`gc.freeze`), which spares the run its full collections over them. At the
end of the run the collector runs until it finds no more garbage (what it frees reaches
pytest's report of unraisable exceptions) and what survives is frozen too, so that pytest's
own collections at its clean-up (five in a row) scan only what is left after that.
"""

import gc

import numpy as np
import pytest

from dpconvex import Budget, release
from dpconvex.objectives import Logistic
from dpconvex.privacy.mechanisms import get_mechanism
from dpconvex.templates import LinearERMTemplate, PrivacyConstants


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session):
    """Collect without the cyclic collector, then leave what collection made out of its scans
    (in every process: pytest-xdist's controller, which collects nothing, re-enables it too)."""
    gc.disable()
    try:
        return (yield)
    finally:
        gc.collect()
        gc.freeze()
        gc.enable()


def pytest_unconfigure(config: pytest.Config) -> None:
    """Collect the run's garbage until a collection finds none (at most five, as pytest's
    clean-up does: a finalizer may free more), then freeze what survives (pytest's clean-up,
    which runs after this hook, collects five times over whatever is not frozen)."""
    for _ in range(5):
        if not gc.collect():
            break
    gc.freeze()


@pytest.fixture
def doctest_namespace() -> dict:
    """pytest's fixture of the names every docstring example starts from, made anew for each
    example (the tests that are not examples never ask for it)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.where(X[:, 0] > 0, 1, -1)
    template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y)
    return dict(np=np, rng=rng, X=X, y=y, template=template, Budget=Budget, release=release,
                get_mechanism=get_mechanism, Logistic=Logistic, LinearERMTemplate=LinearERMTemplate,
                PrivacyConstants=PrivacyConstants)
