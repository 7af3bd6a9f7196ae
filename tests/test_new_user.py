"""What a new user meets first: lazy imports, --version, a fast --help, clipping facts in diagnostics."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest

import dpconvex as dp


@pytest.mark.slow
def test_submodules_and_names_resolve_lazily():
    code = ("import sys, dpconvex; assert 'dpconvex.estimators.linear' not in sys.modules; "
            "dpconvex.datasets.load_sklearn; dpconvex.RandomFourierFeatures; "
            "dpconvex.PrivateLogisticRegression; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ok"
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        dp.nope  # noqa: B018


def test_version_and_help_do_not_import_the_numerics():
    out = subprocess.run([sys.executable, "-m", "dpconvex", "--version"], capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == f"dpconvex {dp.__version__}"
    code = ("import sys; from dpconvex import cli; sys.argv = ['dpconvex', '--help']\n"
            "try:\n    cli.main()\nexcept SystemExit:\n    pass\n"
            "assert 'cvxpy' not in sys.modules and 'sklearn' not in sys.modules, 'heavy import'")
    subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)


def test_heavy_clipping_is_told_through_diagnostics_never_a_warning():
    """How many rows were clipped is a data statistic: the data holder reads it in diagnostics."""
    import warnings

    rng = np.random.default_rng(0)
    X = 10.0 * rng.normal(size=(50, 3))  # raw features: every row above data_norm = 1
    y = (X[:, 0] > 0).astype(int)
    for make in (lambda: dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1], random_state=0),
                 lambda: dp.PrivateLargeMarginGaussian(epsilon=1.0, classes=[0, 1], solver="native",
                                                       random_state=0)):
        with warnings.catch_warnings(record=True) as caught, dp.collect_diagnostics() as diag:
            warnings.simplefilter("always")
            est = make().fit(X, y)
        note = diag.note("scaled down")
        assert (note.count, note.n) == (50, 50) and "data_norm=1" in note.what
        assert not [w for w in caught if "scaled down" in str(w.message) or "%" in str(w.message)]
        # never part of the release: rows inside the bound give the same certificate
        assert est.certificate_ == make().fit(X / 100, y).certificate_


def test_no_warning_when_rows_fit_the_bound():
    import warnings

    rng = np.random.default_rng(0)
    X = 0.1 * rng.normal(size=(50, 3))
    y = (X[:, 0] > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("error", dp.PrivacyWarning)
        dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1], random_state=0).fit(X, y)


def test_verbose_progress_goes_to_stderr_and_is_not_stored(capsys):
    rng = np.random.default_rng(0)
    X = 0.3 * rng.normal(size=(80, 3))
    y = np.arange(80) % 3
    m = dp.PrivateLargeMarginGaussian(epsilon=1.0, solver="native", verbose=1,
                                      random_state=0).fit(X, y)
    err = capsys.readouterr().err
    # the class sums: a release with no solve says so
    assert "building the template" in err and "no solve, so no accuracy check" in err
    quiet = dp.PrivateLargeMarginGaussian(epsilon=1.0, solver="native", random_state=0).fit(X, y)
    assert m.certificate_ == quiet.certificate_  # the progress is not in the certificate
    with pytest.raises(dp.ParameterError, match="'verbose'"):
        dp.PrivateLargeMarginGaussian(verbose="loud").fit(X, y)
    from dpconvex.errors import verbosity

    with verbosity(2):
        dp.NoisyGradientDescent(epsilon=1.0, delta=1e-5, classes=[0, 1], steps=5,
                                random_state=0).fit(X, (y > 0).astype(int))
        assert "no solve, so no accuracy check" in capsys.readouterr().err
        dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1], random_state=0).fit(
            X, (y > 0).astype(int))
        err = capsys.readouterr().err
    assert "solved and accepted by the accuracy check" in err and "no solve" not in err


def test_the_first_level_of_progress_is_the_same_for_neighbouring_data(capsys):
    """Level 1 names the steps only: a record outside the label set (left out with
    unknown_labels="ignore") changed the count of a class sum's rows that it printed."""
    from dpconvex.errors import verbosity

    rng = np.random.default_rng(0)
    X = 0.4 * rng.normal(size=(120, 3))
    y = (X[:, 0] > 0).astype(int)
    neighbour = y.copy()
    neighbour[-1] = 99
    shown = []
    for labels in (y, neighbour):
        with verbosity(1):
            dp.PrivateGaussianCentroid(epsilon=1.0, classes=[0, 1], unknown_labels="ignore",
                                       random_state=7).fit(X, labels)
        shown.append(re.sub(r"\[dpconvex +[0-9.]+ s\]", "", capsys.readouterr().err))
    assert shown[0] and shown[0] == shown[1]
