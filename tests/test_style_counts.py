"""benchmarks/style_counts.py counts what its docstring says, on small synthetic packages."""

from __future__ import annotations

import ast
import json
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks"
sys.path.insert(0, str(BENCH))

import style_counts  # noqa: E402

BASE = '''
"""A module docstring."""
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Prepared:
    template: Any
    meta: dict[str, Any] = field(default_factory=dict)


class PrivateEstimator:
    def fit(self, X, y):
        return self
'''

ESTIMATORS = '''
from typing import Any

from .base import PrivateEstimator, check


class _Linear(PrivateEstimator):
    _parameter_constraints: dict = {
        "epsilon": check,
        "delta": lambda name, v, owner: check(name, v, owner, high=1.0),
        "lam": [lambda name, v, owner: v, "no_validation"],
    }


class Logistic(_Linear):
    _parameter_constraints = {**_Linear._parameter_constraints, "C": lambda n, v, o: v}

    def certify(self, X=None):
        return None


class Gaussian(_Linear):
    def fit(self, X, y):
        return self


class Unrelated:
    _parameter_constraints = dict(a=lambda v: v)

    def fit(self, X, y):
        table = {"b": lambda v: v}
        return table
'''


def _package(tmp_path: Path, **modules: str) -> Path:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for name, text in modules.items():
        (pkg / f"{name}.py").write_text(textwrap.dedent(text))
    return pkg


def _summary(tmp_path: Path, **modules: str) -> dict:
    return style_counts.summary(style_counts.measure([_package(tmp_path, **modules)]))


def test_fit_overrides_are_found_through_the_package_classes(tmp_path):
    s = _summary(tmp_path, base=BASE, estimators=ESTIMATORS)
    assert s["estimators"]["classes"] == ["Gaussian", "Logistic", "_Linear"]
    assert s["estimators"]["fit_overrides"] == ["Gaussian"]
    assert s["estimators"]["certify_overrides"] == ["Logistic"]


def test_only_lambdas_in_class_constraint_tables_are_counted(tmp_path):
    s = _summary(tmp_path, base=BASE, estimators=ESTIMATORS)
    assert s["constraints"] == {"tables": 2, "entries": 4, "lambdas": 3}


@pytest.mark.parametrize(("message", "form"), [
    ("f\"The '{name}' parameter of {owner} must be a float. Got {v!r} instead.\"", "sklearn"),
    ("\"The 'lam' argument of PrivateLogisticRegression must be > 0.\"", "sklearn"),
    ("\"The 'ranges' parameter must be a non-empty sequence.\"", "sklearn_no_owner"),
    ("f\"{owner}.fit: the plan is for {n} rows.\"", "owner_method"),
    ("f\"{type(self).__name__}.{method}: nothing to release.\"", "owner_method"),
    ("\"PrivateClassifier.fit: X has no rows.\"", "owner_method"),
    ("f\"{caller}: X has no rows.\"", "owner_method"),
    ("f\"{self.caller}: the rows are not finite.\"", "owner_method"),
    ("f\"{called}: X has no rows.\"", "other"),
    ("f\"{owner}: X has {n} rows; at least 2 are needed.\"", "owner"),
    ("f\"{self.owner}: labels must be class indices.\"", "owner"),
    ("\"PrivateGridSearch: \" + detail", "owner"),
    ("\"strong convexity: lam = 0 is not allowed.\"", "topic"),
    ("f\"noisy gradient descent: steps = {T} is above the cap.\"", "topic"),
    ("f\"{path}: not valid TOML.\"", "other"),
    ("f\"{owner}.certify needs (X, y).\"", "other"),
    ("\"random_state must be None or an int\"", "other"),
    ("\"unknown loss {}; choose one of {}.\".format(a, b)", "other"),
    ("msg", "non_literal"),
    ("message + \" Select the fitted columns.\"", "non_literal"),
    ("_message(owner)", "non_literal"),
])
def test_message_forms(message, form):
    node = ast.parse(f"raise ValueError({message}) from None").body[0]
    assert style_counts.classify_raise(node)[0] == form


def test_raises_without_a_message_are_kept_apart(tmp_path):
    s = _summary(tmp_path, mod='''
        def f(x):
            """Raise ``ValueError("x: ...")`` (a docstring: not a statement)."""
            try:
                g()
            except KeyError:
                raise
            if x:
                raise NotImplementedError
            if x > 1:
                raise TypeError()
            raise ValueError(f"{x}: bad", x)
        ''')
    r = s["raise"]
    assert (r["count"], r["reraise"], r["no_call"], r["no_message"], r["literal_messages"]) == (4, 1, 1, 1, 1)
    assert r["forms"]["other"] == 1  # "{x}:" is a placeholder that names no owner
    assert r["per_1000_code_lines"] == pytest.approx(1000 * 4 / s["code_lines"])


def test_function_code_lines_leave_out_docstring_comments_and_blank_lines(tmp_path):
    s = _summary(tmp_path, mod='''
        def one(a):
            """Docstring.

            Two paragraphs.
            """
            # a comment

            b = a + 1  # a trailing comment keeps the line
            return (b,
                    a)


        def two():
            return 1
        ''')
    assert s["functions"]["count"] == 2
    assert s["code_lines"] == 2 + 4  # two def lines and the four code lines of the bodies
    assert style_counts.percentile([1, 3], 0.9) == 3
    assert s["functions"]["code_lines_median"] == 2  # (3 + 1) / 2


def test_any_parameters_and_the_core_names(tmp_path):
    s = _summary(tmp_path, mod='''
        import typing
        from typing import Any

        class C:
            def m(self, template: Any, plan: "FitPlan", est: typing.Any, *rest: int, **kw) -> Any:
                return template

            @classmethod
            def make(cls, prep: Any | None = None, hold: "Any" = None):
                return cls
        ''')
    a = s["annotations"]
    assert (a["parameters"], a["annotated"], a["annotated_any"]) == (7, 6, 3)
    assert a["any_share"] == pytest.approx(0.5, abs=1e-3)
    core = {name: (v["parameters"], v["any"]) for name, v in a["core"].items()}
    assert core == {"template": (1, 1), "consts": (0, 0), "est": (1, 1), "hold": (1, 1), "plan": (1, 0),
                    "prep": (1, 0), "mechanism": (0, 0)}


def test_local_names_are_counted_once_per_function_and_not_in_nested_ones():
    fn = ast.parse(textwrap.dedent('''
        def f(param, self):
            a = param
            a, (idx, *rest) = 1, (2, 3)
            total: int = 0
            total += 1
            for row in rows:
                pass
            with open(p) as handle, lock:
                pass
            values = [q for q in range(3) if (w := q)]
            self.attr = 1
            d["k"] = 2
            _ = 3

            def inner():
                hidden = 1
        ''')).body[0]
    assert style_counts.local_names(fn) == {"a", "idx", "rest", "total", "row", "handle", "values",
                                            "q", "w"}


def test_local_name_lengths(tmp_path):
    s = _summary(tmp_path, mod='''
        def f():
            ab = 1
            ab = 2
            longer_name = ab

        def g():
            ab = 1
        ''')
    assert s["local_names"]["count"] == 3  # ab twice (two functions), longer_name once
    assert s["local_names"]["length_median"] == 2
    assert s["local_names"]["share_at_most_3"] == pytest.approx(2 / 3, abs=1e-3)


def test_module_aliases_that_are_not_conventions(tmp_path):
    s = _summary(tmp_path, helpers="def row_norms(X):\n    return X\n", _progress="", mod='''
        import numpy as np
        import os.path as osp
        from . import helpers as hl
        from . import _progress as progress
        from .helpers import row_norms as _row_norms
        from . import helpers
        from . import helpers as _helpers
        ''')
    assert s["module_aliases"] == ["pkg/mod.py:3 os.path as osp", "pkg/mod.py:4 .helpers as hl"]


def test_prepared_meta_annotation_and_reads_by_key(tmp_path):
    s = _summary(tmp_path, base=BASE, mod='''
        def f(prep, meta, key):
            prep.meta["d"] = 1
            x = prep.meta["d"] + prep.meta.get("label_note", 0) + prep.meta[key]
            return x + meta["chunks"] + meta.get("n")
        ''')
    assert s["prepared_meta"] == {"annotation": "dict[str, Any]", "typed": False, "key_reads": 2,
                                  "bare_name_key_reads": 2}
    assert style_counts.meta_typed("MetaT") is True
    assert style_counts.meta_typed("typing.Mapping[str, int]") is False


def test_command_line_prints_the_table_and_json(tmp_path, capsys):
    pkg = _package(tmp_path, base=BASE, estimators=ESTIMATORS)
    style_counts.main([str(pkg), "--json"])
    assert json.loads(capsys.readouterr().out)["estimators"]["fit_overrides"] == ["Gaussian"]
    style_counts.main([str(pkg)])
    out = capsys.readouterr().out
    assert "| `_parameter_constraints` tables / entries / lambdas | 2 / 4 / 3 |" in out
    assert "`fit` overrides: Gaussian" in out
