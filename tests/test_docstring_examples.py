"""Every public name has a numpydoc Examples section with code that runs.

The examples themselves run as doctests (``--doctest-modules`` over ``dpconvex``,
pyproject.toml); this file checks that every name exported in an ``__all__`` of
the modules below has one, that no example is skipped without a listed reason,
and runs the examples that need dataset files when those files are present.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import re
import warnings

import pytest

#: Modules whose ``__all__`` must be documented with examples.
MODULES = (
    "dpconvex",
    "dpconvex.audit",
    "dpconvex.data",
    "dpconvex.datasets",
    "dpconvex.errors",
    "dpconvex.estimators",
    # the privacy layer (dpconvex.privacy, its accounting and its rules have no __all__ of
    # their own: their modules are listed), templates, objectives, solvers and runs
    "dpconvex.privacy.accounting.analytic_gaussian",
    "dpconvex.privacy.accounting.gaussian",
    "dpconvex.privacy.accounting.objective_gaussian",
    "dpconvex.privacy.budget",
    "dpconvex.privacy.certificate",
    "dpconvex.privacy.checks",
    "dpconvex.privacy.mechanisms",
    "dpconvex.privacy.mechanisms.amp",
    "dpconvex.privacy.mechanisms.base",
    "dpconvex.privacy.mechanisms.gaussian",
    "dpconvex.privacy.mechanisms.gaussian_linear",
    "dpconvex.privacy.mechanisms.kmeans",
    "dpconvex.privacy.mechanisms.noisy_gd",
    "dpconvex.privacy.mechanisms.scalar",
    "dpconvex.privacy.noise",
    "dpconvex.privacy.release",
    "dpconvex.privacy.user_parts",
    "dpconvex.privacy.rules.front_door",
    "dpconvex.privacy.rules.large_margin",
    "dpconvex.privacy.rules.noise_level",
    "dpconvex.privacy.verify",
    "dpconvex.templates",
    "dpconvex.templates.base",
    "dpconvex.templates.feature_map",
    "dpconvex.templates.large_margin",
    "dpconvex.templates.large_margin_softmax",
    "dpconvex.templates.linear_erm",
    "dpconvex.templates.parameterizations",
    "dpconvex.templates.statistics",
    "dpconvex.objectives",
    "dpconvex.objectives.losses",
    "dpconvex.objectives.sets",
    "dpconvex.solvers",
    "dpconvex.solvers.cvxpy_backend",
    "dpconvex.solvers.lbfgs_newton",
    "dpconvex.solvers.projected_gradient",
    "dpconvex.runs",
    "dpconvex.runs.band",
    "dpconvex.runs.report",
    "dpconvex.runs.runner",
    "dpconvex.runs.spec",
)

_TABLE = "a data table (constant) documented in its module; it has no docstring of its own"
_SCHEMA = "a PublicSchema instance (constant): its __doc__ is the class's, which has an example"

_CONSTANT = ("a constant (number, string, tuple, array) or a registry dict, documented by its #: "
             "comment in the module; it has no docstring of its own")

#: The constants and registries exported by the privacy layer, templates, objectives,
#: solvers and runs (module -> names).
_PRIVACY_LAYER_CONSTANTS: dict[str, tuple[str, ...]] = {
    "dpconvex.privacy.accounting.analytic_gaussian": ("ANALYTIC_RTOL",),
    "dpconvex.privacy.accounting.gaussian": ("ACCOUNTING", "PLD_MAX_POINTS"),
    "dpconvex.privacy.budget": ("BUDGET_RTOL", "DEFAULT_DELTA", "DELTA_RULE"),
    "dpconvex.privacy.certificate": ("PREPROCESSING", "SEEDED"),
    "dpconvex.privacy.checks": ("FORM_RTOL", "PROBE_RTOL"),
    "dpconvex.privacy.mechanisms": ("MECHANISMS", "PLACEMENTS"),
    "dpconvex.privacy.mechanisms.base": ("MECHANISMS", "OUTPUT_SOLVE_MARGIN", "PLACEMENTS",
                                         "SLACK_RULES"),
    "dpconvex.privacy.mechanisms.gaussian": ("KNORM_COUNT_WEIGHT",),
    "dpconvex.privacy.mechanisms.gaussian_linear": ("GAUSSIAN_OBJECTIVE_LM",),
    "dpconvex.privacy.mechanisms.noisy_gd": ("AVERAGING", "DELTA_RULE"),
    "dpconvex.privacy.noise": ("SNAP_BITS",),
    "dpconvex.privacy.rules.front_door": ("AUTO_VALIDATION", "BINARY_CENTROID_BELOW", "DELTA_UNUSED",
                                          "HUBER_INTERCEPT_SCALING",
                                          "CENTROID", "CONSTANT", "GAUSSIAN_NB",
                                          "NB_BINARY_FEATURES_AT_MOST",
                                          "NB_MULTICLASS_FEATURES_AT_MOST",
                                          "NB_MULTICLASS_ROWS_PER_CLASS_AT_LEAST",
                                          "GD_ROWS_AT_MOST", "LARGE_MARGIN", "LINEAR",
                                          "MODEL_HANDICAP", "NOISY_GD",
                                          "SAFEGUARD_GAP", "SAFEGUARD_ROWS_AT_MOST",
                                          "SAFEGUARD_WARNING_LEVEL", "SELECTION_SHARE",
                                          "SELECTION_TAIL",
                                          "UNIT_ROWS_AT_LEAST",
                                          "GAUSSIAN_ROWS_AT_LEAST", "HANDICAP_LEVEL",
                                          "MEAN_BELOW", "MEAN_RECORDS", "MEAN_SHARE",
                                          "MEAN_WARNING_RECORDS", "MEDIAN",
                                          "PRIVATE_MEAN", "REGRESSION_VALIDATION",
                                          "RESIDUAL_CLIP"),
    "dpconvex.privacy.rules.large_margin": ("AUTO", "CENTROID", "CENTROID_BELOW",
                                            "DEFAULT_STRUCTURE", "PAIRWISE", "ROW_NORMS"),
    "dpconvex.privacy.rules.noise_level": (
        "AUTO", "CENTROID_NOISE_RATIO", "GD_NOISE_RATIO", "LABEL_CENTER_SHARE", "LAM_GRID",
        "LARGE_MARGIN_NOISE_RATIO", "LINEAR_NOISE_RATIO", "NB_NOISE_RATIO", "PUBLIC_CHECK_NOTE",
        "REFERENCE_NORM", "REFERENCE_NORMS", "REGRESSION_CHECK_NOTE", "REGRESSION_RECORDS",
        "SOFTMAX_NOISE_RATIO", "SSP_NOISE_RATIO", "STABILITY_WEIGHTS", "THRESHOLDS"),
    "dpconvex.privacy.verify": ("MECHANISMS",),
    "dpconvex.templates": ("TEMPLATES",),
    "dpconvex.templates.base": ("CAPABILITY_MEMBERS", "PARAM_SPACE_MEMBERS", "TEMPLATE_MEMBERS"),
    "dpconvex.templates.feature_map": ("DEFAULT_WEIGHTS", "STRUCTURES"),
    "dpconvex.templates.large_margin": ("RESIDUAL_TOL",),
    "dpconvex.templates.large_margin_softmax": ("CONSTANT_WEIGHT", "SOFTMAX_RESIDUAL_TOL"),
    "dpconvex.templates.linear_erm": ("MARGIN_LABELS", "RESIDUAL_TOL"),
    "dpconvex.templates.parameterizations": ("PARAMETERIZATIONS",),
    "dpconvex.objectives": ("LOSSES", "REGRESSION_LOSSES", "REGULARIZERS"),
    "dpconvex.objectives.losses": ("LOSSES", "REGRESSION_LOSSES", "REGULARIZERS"),
    "dpconvex.solvers": ("BACKENDS", "CVXPY_STATUS_MAP"),
    "dpconvex.solvers.cvxpy_backend": ("DEFAULT_OPTIONS",),
    "dpconvex.runs": ("CONSTANT_PREDICTION", "DATASETS", "ESTIMATORS", "MAJORITY",
                      "MAX_PROBLEM_FITS", "MAX_RUNS", "METRICS"),
    "dpconvex.runs.report": ("CONSTANT_PREDICTION", "MAJORITY"),
    "dpconvex.runs.spec": ("DATASETS", "ESTIMATORS", "MAX_PROBLEM_FITS", "MAX_RUNS", "METRICS"),
}

#: Exported names exempt from the check: only values that are not classes or functions
#: (they have no docstring of their own), each with the reason.
NO_DOCSTRING_OF_THEIR_OWN: dict[tuple[str, str], str] = {
    ("dpconvex", "__version__"): "the version string",
    ("dpconvex.audit", "DIRECTIONS"): "a tuple of the four event directions (constant)",
    **{("dpconvex.datasets", name): _TABLE for name in (
        "ADULT_CATEGORIES", "ADULT_CLASSES", "ADULT_FEATURE_NAMES", "ADULT_LOG_SCALED",
        "ADULT_NUMERIC_RANGES", "BREAST_CANCER_CLASSES", "BREAST_CANCER_ENCODINGS",
        "BREAST_CANCER_FEATURE_NAMES", "BREAST_CANCER_NUMERIC_RANGES", "CHECKSUM_ENV_VAR",
        "DATASET_SHA256", "DATASET_URLS", "DATA_ENV_VAR", "DIGITS_PIXEL_RANGE",
        "KDDCUP99_CATEGORIES", "KDDCUP99_CLASSES", "KDDCUP99_FEATURE_NAMES", "KDDCUP99_LOG_SCALED",
        "KDDCUP99_NUMERIC_RANGES", "KDDCUP99_ORDER_SEED", "KDDCUP99_TEST_FRACTION",
        "SKLEARN_BREAST_CANCER_RANGES", "SKLEARN_CLASSES", "SKLEARN_DIABETES_RANGE",
        "SKLEARN_LABEL_RANGES", "SKLEARN_SCHEMAS", "SKLEARN_WINE_RANGES",
    )},
    **{("dpconvex.datasets", name): _SCHEMA for name in (
        "ADULT_SCHEMA", "BREAST_CANCER_SCHEMA", "KDDCUP99_SCHEMA",
    )},
    **{(module, name): _CONSTANT for module, names in _PRIVACY_LAYER_CONSTANTS.items()
       for name in names},
}

#: Examples allowed to be skipped in the doctest run (``# doctest: +SKIP``): the loaders
#: that read dataset files, which a checkout without $DPCONVEX_DATA does not have.
#: Name -> the files the example needs; :func:`test_dataset_examples_run_with_the_files`
#: runs them when the files are there.
NEEDS_DATA_FILES: dict[str, tuple[str, ...]] = {
    "load_adult": ("adult.data", "adult.test"),
    "load_breast_cancer_wisconsin": ("breast-cancer-wisconsin.data",),
    "load_kddcup99": ("kddcup.data_10_percent.gz",),
}

_HEADING = re.compile(r"^(?P<title>[A-Z][A-Za-z ]*)\n-{3,}[ \t]*$", re.MULTILINE)


def examples_section(doc: str | None) -> str | None:
    """The text of the numpydoc ``Examples`` section of ``doc`` (None if it has none)."""
    if not doc:
        return None
    doc = inspect.cleandoc(doc)
    headings = list(_HEADING.finditer(doc))
    for i, h in enumerate(headings):
        if h.group("title") == "Examples":
            end = headings[i + 1].start() if i + 1 < len(headings) else len(doc)
            return doc[h.end():end]
    return None


def example_problem(obj: object) -> str | None:
    """What is wrong with the examples of ``obj``'s own docstring, or None."""
    section = examples_section(obj.__doc__)  # __doc__, not inspect.getdoc: no inherited text
    if section is None:
        return "no 'Examples' section in its docstring"
    found = doctest.DocTestParser().get_examples(section)
    if not found:
        return "an 'Examples' section without a '>>>' line"
    if all(ex.options.get(doctest.SKIP) for ex in found):
        return "every example is marked +SKIP"
    return None


def _public_names() -> list[tuple[str, str]]:
    return [(m, n) for m in MODULES for n in importlib.import_module(m).__all__]


@pytest.mark.parametrize(("module", "name"), _public_names(),
                         ids=[f"{m}.{n}" for m, n in _public_names()])
def test_public_name_has_a_runnable_example(module, name):
    obj = getattr(importlib.import_module(module), name)
    if (module, name) in NO_DOCSTRING_OF_THEIR_OWN:
        assert not (inspect.isclass(obj) or inspect.isroutine(obj)), (
            f"{module}.{name} is a class or function: give it an Examples section instead "
            "of listing it in NO_DOCSTRING_OF_THEIR_OWN")
        return
    assert inspect.isclass(obj) or inspect.isroutine(obj), (
        f"{module}.{name} is a {type(obj).__name__}, not a class or function: list it in "
        "NO_DOCSTRING_OF_THEIR_OWN with the reason")
    problem = example_problem(obj)
    if problem == "every example is marked +SKIP" and name in NEEDS_DATA_FILES:
        return
    assert problem is None, f"{module}.{name}: {problem}"


def test_exemptions_name_exported_values():
    exported = set(_public_names())
    stale = sorted(set(NO_DOCSTRING_OF_THEIR_OWN) - exported)
    assert not stale, f"NO_DOCSTRING_OF_THEIR_OWN lists names that are not exported: {stale}"
    datasets = importlib.import_module("dpconvex.datasets")
    for name in NEEDS_DATA_FILES:
        assert example_problem(getattr(datasets, name)) == "every example is marked +SKIP", name


def test_the_check_flags_a_missing_or_skipped_example():
    def no_section():
        """Summary.

        Parameters
        ----------
        x : int
        """

    def no_code():
        """Summary.

        Examples
        --------
        Call it.
        """

    def skipped():
        """Summary.

        Examples
        --------
        >>> 1 + 1  # doctest: +SKIP
        2
        """

    def fine():
        """Summary.

        Examples
        --------
        >>> 1 + 1
        2

        References
        ----------
        None.
        """

    assert example_problem(no_section) == "no 'Examples' section in its docstring"
    assert example_problem(no_code) == "an 'Examples' section without a '>>>' line"
    assert example_problem(skipped) == "every example is marked +SKIP"
    assert example_problem(fine) is None


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(NEEDS_DATA_FILES))
def test_dataset_examples_run_with_the_files(name):
    # The loaders' examples are skipped by the doctest run (the files may be absent);
    # here they run, +SKIP removed, when the data folder holds the files.
    datasets = importlib.import_module("dpconvex.datasets")
    home = datasets.get_data_home()
    missing = [f for f in NEEDS_DATA_FILES[name] if not (home / f).is_file()]
    if missing:
        pytest.skip(f"{missing} not in {home}")
    obj = getattr(datasets, name)
    test = doctest.DocTestParser().get_doctest(examples_section(obj.__doc__), {}, name, None, 0)
    for ex in test.examples:
        ex.options.pop(doctest.SKIP, None)
    flags = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
    runner = doctest.DocTestRunner(optionflags=flags)
    out: list[str] = []
    result = runner.run(test, out=out.append)
    assert result.attempted == len(test.examples) > 0
    assert result.failed == 0, "".join(out)


class _UndefinedNames(doctest.DocTestRunner):
    """Runs examples and records the names they use without defining or importing them
    (the output is compared by the doctest run itself)."""

    def __init__(self) -> None:
        super().__init__(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
        self.undefined: list[str] = []

    def report_failure(self, out, test, example, got):  # noqa: ARG002 (the output: not here)
        pass

    def report_unexpected_exception(self, out, test, example, exc_info):  # noqa: ARG002
        if issubclass(exc_info[0], NameError):
            self.undefined.append(f"{test.name}: {exc_info[1]}")


def _top_level_examples() -> list[tuple[str, doctest.DocTest]]:
    dp = importlib.import_module("dpconvex")
    finder = doctest.DocTestFinder(recurse=False)
    return [(name, test) for name in dp.__all__
            if inspect.isclass(obj := getattr(dp, name)) or inspect.isfunction(obj)
            for test in finder.find(obj, name, globs={}) if test.examples]


@pytest.mark.parametrize(("name", "test"), _top_level_examples(),
                         ids=[name for name, _ in _top_level_examples()])
def test_a_top_level_example_runs_as_a_user_copies_it(name, test):
    """The Examples of a class or function ``dpconvex`` exports run in an empty namespace,
    what a user copying them from the API page has: every name is imported or made in the
    example (none comes from the suite's doctest namespace, conftest.py)."""
    runner = _UndefinedNames()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runner.run(test, out=lambda text: None)
    assert not runner.undefined, runner.undefined


def test_the_runner_finds_a_name_an_example_does_not_define():
    test = doctest.DocTestParser().get_doctest(">>> X.shape\n(40, 3)\n", {}, "demo", None, 0)
    runner = _UndefinedNames()
    runner.run(test, out=lambda text: None)
    assert runner.undefined == ["demo: name 'X' is not defined"]
