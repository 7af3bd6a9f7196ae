"""Canonical experiments as declarative TOML files (moved to :mod:`dpconvex.runs`).

This module re-exports the public names of :mod:`dpconvex.runs` so that
``from dpconvex.problems import load_problem, run_problem, ...`` keeps working.
New code imports from :mod:`dpconvex.runs`.
"""

from __future__ import annotations

from .runs.report import OutputError, check_output_dir, plot_result, write_outputs
from .runs.runner import ProblemResult, run_problem
from .runs.runner import _make_estimator as _make_estimator  # used before the split
from .runs.runner import _split as _split
from .runs.spec import (
    DATASETS,
    ESTIMATORS,
    Expect,
    Method,
    Problem,
    ProblemError,
    find_problem,
    list_problems,
    load_problem,
    problem_dirs,
)

__all__ = [
    "DATASETS",
    "ESTIMATORS",
    "Expect",
    "Method",
    "OutputError",
    "Problem",
    "ProblemError",
    "ProblemResult",
    "check_output_dir",
    "find_problem",
    "list_problems",
    "load_problem",
    "plot_result",
    "problem_dirs",
    "run_problem",
    "write_outputs",
]
