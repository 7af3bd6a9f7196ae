"""Labels, weights and the values a user's code hands back are refused by a named dpconvex
exception raised outside the handler of NumPy's (or the user's own) error: nothing is chained
to it (``__context__`` and ``__cause__`` are None), so no traceback quotes a label or an entry
("could not convert string to float: 'SECRETZ'"), and neither does its message."""

from __future__ import annotations

import numbers
from types import SimpleNamespace

import numpy as np
import pytest
from _doubles import NUMBER, TEXT, refused

import dpconvex as dp
from dpconvex import PrivateLogisticRegression
from dpconvex._validation import check_sample_weight
from dpconvex.audit.adapters import EstimatorMechanism, _data
from dpconvex.audit.bounds import _counts
from dpconvex.audit.runner import _run
from dpconvex.audit.statistics import _as_float, float_array, statistic_values
from dpconvex.data.validation import (
    check_classes,
    check_labels,
    check_numeric_labels,
    encode_labels,
)
from dpconvex.errors import DPConvexError, ParameterError, PrivacyError
from dpconvex.estimators.large_margin.components import assign_components
from dpconvex.objectives import Logistic
from dpconvex.privacy.checks import _check_forms_agree
from dpconvex.runs.runner import _as_xy, _read_csv
from dpconvex.solvers import LbfgsNewton
from dpconvex.templates import LinearERMTemplate

QUOTED = f"could not convert string to float: '{TEXT}' ({NUMBER})"  # as NumPy words it


class Entry:
    """An entry whose float() raises with a text that quotes the sentinels."""

    def __float__(self) -> float:
        raise ValueError(QUOTED)


class RealEntry(Entry):
    """A real number to an isinstance check, whose float() raises with the sentinels."""


numbers.Real.register(RealEntry)


class Quoting:
    """A column NumPy cannot read: its conversion's text quotes the sentinels."""

    def __len__(self) -> int:
        return 2

    def __array__(self, dtype=None, copy=None):
        raise ValueError(QUOTED)


class Unordered:
    """A user's label that hashes but whose comparison raises with the sentinels."""

    def __lt__(self, other):
        raise TypeError(QUOTED)

    __gt__ = __lt__

    def __eq__(self, other):
        return self is other

    def __hash__(self) -> int:
        return id(self)


class Unhashable:
    """A user's label whose hash raises with the sentinels."""

    def __hash__(self) -> int:
        raise TypeError(QUOTED)


@pytest.mark.parametrize("y", [[Entry(), 1.0], Quoting(), [TEXT, "1"], [10**400, 1]],
                         ids=["float raises", "array raises", "text", "huge int"])
def test_numeric_labels_are_refused_with_nothing_chained(y):
    refused(DPConvexError, check_numeric_labels, y, 2, "Doc.fit")


@pytest.mark.parametrize("classes", [[Unordered(), Unordered()], [Unhashable(), 1]],
                         ids=["unordered", "unhashable"])
def test_label_sets_of_user_objects_are_refused_with_nothing_chained(classes):
    refused(ParameterError, check_classes, classes, "Doc.fit")


def test_labels_that_do_not_sort_are_refused_with_nothing_chained():
    y = np.array([Unordered(), Unordered(), Unordered()], dtype=object)
    refused(DPConvexError, check_labels, y, 3, "Doc.fit")
    refused(DPConvexError, encode_labels, y, None, "Doc.fit")


@pytest.mark.parametrize("w", [Quoting(), [Entry(), 1.0]], ids=["array raises", "float raises"])
def test_sample_weights_are_refused_with_nothing_chained(w):
    refused(DPConvexError, check_sample_weight, w, 2, "Doc.score")


def test_an_unreadable_loss_form_and_centers_are_refused_with_nothing_chained():
    def form(m):
        raise RuntimeError("its own words")

    err = refused(PrivacyError, _check_forms_agree, None,
                  SimpleNamespace(name="mine", cvxpy_expr=form), "Doc.check")
    assert "its own words" in str(err)  # the text of the user's code is the user's, shown
    refused(ParameterError, assign_components, None, np.zeros((2, 1)), np.array([0, 1]), 2, 1,
            data_norm=1.0, centers=[[[Entry()]], [[1.0]]])


def test_a_solver_exception_is_refused_with_nothing_chained(monkeypatch):
    def raises(self, template, b, extra_reg, *, warm_start=None, max_iter=None):
        raise ValueError(QUOTED)

    monkeypatch.setattr(LbfgsNewton, "solve", raises)
    X = np.random.default_rng(0).normal(size=(40, 3))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X,
                                 y=np.where(X[:, 0] > 0, 1, -1))
    with dp.collect_diagnostics() as diagnostics:
        refused(dp.SolverError, dp.release, template, "objective", dp.Budget(1.0),
                backend="native", rng=0)
    assert TEXT in diagnostics.note("the solve failed").what  # the curator's channel only


def test_a_run_reads_its_data_with_nothing_chained(tmp_path):
    (tmp_path / "data.csv").write_text(f"a,y\n1.0,0\n{TEXT},1\n", encoding="utf-8")
    problem = SimpleNamespace(csv=tmp_path / "data.csv", target="y", path=tmp_path / "p.toml")
    err = refused(DPConvexError, _read_csv, problem)
    assert "line 3" in str(err) and "'a'" in str(err)
    refused(DPConvexError, _as_xy, SimpleNamespace(target=None, path=problem.path),
            ([Quoting(), Quoting()], [0, 1]))


def test_audit_values_are_refused_with_nothing_chained():
    X = np.zeros((2, 1))
    refused(ParameterError, _data, (X, [Entry(), 1.0]), "Doc")
    refused(ParameterError, statistic_values, [Entry()], None, "Doc", "outputs")
    refused(ParameterError, _as_float, Entry(), "Doc")
    refused(ParameterError, float_array, [Entry()], "Doc: not floats.")
    refused(ParameterError, _counts, [RealEntry()], 3, 0.05, "Doc")
    refused(ParameterError, _counts, [1, 2], [3, 4, 5], 0.05, "Doc")
    refused(ParameterError, _run, lambda data, rng: [Entry()], None, 2, np.random.default_rng(0))
    mechanism = EstimatorMechanism(PrivateLogisticRegression(epsilon=1.0, lam=0.1,
                                                             classes=[-1, 1]),
                                   output=lambda est: [Entry()])
    X, y = np.array([[0.5, 0.1], [-0.5, 0.2], [0.3, -0.4]]), np.array([1, -1, 1])
    refused(ParameterError, mechanism, (X, y), np.random.default_rng(0))
