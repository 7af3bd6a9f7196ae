"""Canonical experiments as declarative TOML files, with their expected bands.

A problem file names a dataset and its split, the learners and their
parameters, the ε grid, the number of randomized runs, and the band each result
must fall in (the regression oracle). ``dpconvex run NAME`` runs it; the test
suite runs every problem in its ``--quick`` form. The file format is documented
in ``problems/README.md``; adding a problem means writing a file, not code.

- :mod:`dpconvex.runs.spec`: the schema, the registries, lookup and validation;
- :mod:`dpconvex.runs.runner`: :func:`run_problem`;
- :mod:`dpconvex.runs.report`: what each fit released (from its certificate) and the
  warnings of the fits, each distinct text once with its count; :class:`ProblemResult`, the
  table, ``results.json``, the plot, safe writing;
- :mod:`dpconvex.runs.band`: :func:`record_band` and :func:`assert_within_band`, a
  regression test for your own model (the spread of its score over recorded seeds).

A problem file may name a learner, a parameter value or a dataset loader by import path
(:mod:`dpconvex.runs.spec`): code you trust, like a ``conftest.py``. Experiments seed their
noise (``[grid] seed``): a model trained with a known seed is not private.
"""

from __future__ import annotations

from .band import Band, assert_within_band, record_band
from .report import (
    CONSTANT_PREDICTION,
    MAJORITY,
    OutputError,
    ProblemResult,
    WarningTally,
    check_output_dir,
    first_sentence,
    format_table,
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
    find_problem,
    import_object,
    list_problems,
    load_problem,
    problem_dirs,
)

__all__ = [
    "CONSTANT_PREDICTION", "DATASETS", "ESTIMATORS", "MAJORITY", "MAX_PROBLEM_FITS", "MAX_RUNS",
    "METRICS", "Band", "Expect", "Method", "OutputError", "Problem", "ProblemError",
    "ProblemResult", "WarningTally", "assert_within_band", "check_output_dir", "constant_r2",
    "find_problem", "first_sentence", "format_table", "import_object", "list_problems", "load_data",
    "load_problem", "majority_error", "plot_result", "problem_dirs", "record_band", "release_name",
    "result_to_dict", "run_problem", "warning_lines", "write_outputs",
]
