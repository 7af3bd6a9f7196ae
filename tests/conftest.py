"""Shared test helpers.

Dataset files: tests that need the UCI files ask for the ``data_home`` fixture
(or call :func:`missing_data`). Locally they are skipped when the files are not
found; in CI (``CI=true``) they fail, so a missing data folder can never pass
silently there.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NoReturn

import pytest

#: The UCI files the data tests read.
DATA_FILES = (
    "adult.data",
    "adult.test",
    "breast-cancer-wisconsin.data",
    "kddcup.data_10_percent.gz",
)


def find_data_home() -> Path | None:
    """The folder holding every UCI file, searched as the loaders search, or None."""
    from dpconvex.datasets._files import data_search_path

    folders, _ = data_search_path()
    for folder in folders:
        if all((folder / name).is_file() for name in DATA_FILES):
            return folder
    return None


def missing_data(reason: str) -> NoReturn:
    """Skip the calling test, or fail it when running in CI (``CI=true``)."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}. CI=true: data tests fail instead of being skipped.", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def data_home() -> Path:
    """The folder holding the UCI files; skips (locally) or fails (CI) when there is none."""
    home = find_data_home()
    if home is None:
        missing_data(
            "dataset files not found (set DPCONVEX_DATA to the folder holding "
            f"{', '.join(DATA_FILES)}, or put shared/datasets beside the repository)"
        )
    return home


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--bitwise", action="store_true", default=False,
        help="also collect the tests marked bitwise (bit-for-bit oracles; they skip unless "
             "the BLAS, library versions and NumPy CPU features match the recording's)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The notebooks run end to end (tens of seconds each): they are ``slow``. The
    ``bitwise`` tests are deselected unless ``--bitwise`` asks for them."""
    for item in items:
        if item.nodeid.endswith(".ipynb") or ".ipynb::" in item.nodeid:
            item.add_marker(pytest.mark.slow)
    if config.getoption("--bitwise", default=False):
        return
    bitwise = [item for item in items if item.get_closest_marker("bitwise") is not None]
    if bitwise:
        config.hook.pytest_deselected(items=bitwise)
        items[:] = [item for item in items if item.get_closest_marker("bitwise") is None]
