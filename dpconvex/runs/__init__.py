"""Canonical experiments as declarative TOML files, with their expected bands.

A problem file (format: ``problems/README.md``) names a dataset and split, the learners,
the ε grid, the runs and the band each result must fall in; ``dpconvex run NAME`` runs it
and the test suite runs every problem ``--quick``. Modules: :mod:`~dpconvex.runs.spec`
(schema, registries, validation), :mod:`~dpconvex.runs.runner` (:func:`run_problem`),
:mod:`~dpconvex.runs.report` (:class:`ProblemResult`, what each fit released, the warning
tally, outputs) and :mod:`~dpconvex.runs.band` (:func:`record_band`,
:func:`assert_within_band`: a regression test for your own model).

A problem file may name a learner, a value or a loader by import path: code you trust, like a ``conftest.py``.
Experiments seed their noise (``[grid] seed``): a model trained with a known seed is not private.
"""

from __future__ import annotations

from .band import Band, assert_within_band, record_band
from .report import (
    CONSTANT_PREDICTION,
    MAJORITY,
    OutputError,
    ProblemResult,
    WarningTally,
    certified_lines,
    check_output_dir,
    first_sentence,
    format_table,
    not_private,
    plot_result,
    release_name,
    result_to_dict,
    warning_lines,
    write_outputs,
)
from .runner import constant_r2, load_data, majority_error, run_problem
from .spec import (
    DATASETS,
    ESTIMATORS,
    MAX_PROBLEM_FITS,
    MAX_RUNS,
    METRICS,
    Expect,
    Method,
    Problem,
    ProblemError,
    check_problem,
    find_problem,
    import_object,
    list_problems,
    load_problem,
    problem_dirs,
)

__all__ = [
    "CONSTANT_PREDICTION",
    "DATASETS",
    "ESTIMATORS",
    "MAJORITY",
    "MAX_PROBLEM_FITS",
    "MAX_RUNS",
    "METRICS",
    "Band",
    "Expect",
    "Method",
    "OutputError",
    "Problem",
    "ProblemError",
    "ProblemResult",
    "WarningTally",
    "assert_within_band",
    "certified_lines",
    "check_output_dir",
    "check_problem",
    "constant_r2",
    "find_problem",
    "first_sentence",
    "format_table",
    "import_object",
    "list_problems",
    "load_data",
    "load_problem",
    "majority_error",
    "not_private",
    "plot_result",
    "problem_dirs",
    "record_band",
    "release_name",
    "result_to_dict",
    "run_problem",
    "warning_lines",
    "write_outputs",
]
