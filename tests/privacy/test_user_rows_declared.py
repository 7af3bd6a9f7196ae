"""Rows, labels and a distance bound of the user's are declared, not verified.

Noisy gradient descent's clipping and its sensitivity 2C/n hold for per-record gradients only:
where the rows or labels it reads are the user's code (a template class of the user's, or an
object of the user's set as a shipped template's ``X``), the release states it as the condition
"per-example gradients", refused unless the caller vouches for it (``"objective"``); k-means
and the class sums state rows of the user's as declared (``"data_norm"``). A
``distance_bound`` set on a shipped template's instance is the user's too (``"distance_bound"``).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import dpconvex as dp
from dpconvex.errors import ParameterError, PrivacyError
from dpconvex.estimators.centroids import ClassSumTemplate
from dpconvex.objectives import Logistic
from dpconvex.objectives.sets import L2Ball
from dpconvex.privacy.certificate import Condition
from dpconvex.privacy.mechanisms import get_mechanism
from dpconvex.templates import LinearERMTemplate
from dpconvex.templates.statistics import EmpiricalRiskTemplate, KMeansTemplate

BUDGET = dp.Budget(1.0, 1e-5)


def _data(n: int = 60) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 3))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return X, np.where(X[:, 0] > 0, 1.0, -1.0)


def _gd() -> dp.privacy.mechanisms.Mechanism:
    return get_mechanism("noisy_gd", steps=20, accounting="rdp")


class OneRecordEverywhere(EmpiricalRiskTemplate):
    """Every row and label it hands over is record 0's: one record moves all n gradients."""

    @property
    def X(self) -> np.ndarray:
        return np.repeat(self._X[:1], len(self._X), axis=0)

    @X.setter
    def X(self, value: np.ndarray) -> None:
        self._X = value

    @property
    def y(self) -> np.ndarray:
        return np.repeat(self._y[:1], len(self._y))

    @y.setter
    def y(self, value: np.ndarray) -> None:
        self._y = value


class Rows:
    """A rows object of the user's whose "sum of clipped gradients" is record 0's, n times."""

    def __init__(self, X: np.ndarray, y: np.ndarray):
        self.X, self.y = X, y

    def chunk_sum(self, fn, theta, deriv, C):  # noqa: ANN001, ANN201 - the operator's protocol
        return len(self.X) * C * self.y[0] * self.X[0]

    def compact(self) -> Rows:
        return self


def _users_rows_template() -> EmpiricalRiskTemplate:
    X, y = _data()
    template = EmpiricalRiskTemplate(Logistic(), 1.0, X, y)
    template.X = Rows(X, y)
    return template


def _declared(cert: dp.Certificate, name: str) -> Condition:
    """The one condition ``name`` of ``cert`` or of its parts (a composition's)."""
    (found,) = [c for c in _conditions(cert) if c.name == name]
    return found


def _conditions(cert: dp.Certificate) -> list[Condition]:
    return [*cert.conditions, *(c for part in cert.parts for c in _conditions(part))]


def test_a_users_template_class_reading_its_rows_is_refused_unless_vouched():
    """A subclass whose X and y are its own code: refused without the vouch; with it released,
    the certificate stating the condition as vouched for, after the user template's line."""
    X, y = _data()
    with pytest.raises(PrivacyError, match=r"per-example gradients \[objective\]"):
        dp.release(OneRecordEverywhere(Logistic(), 1.0, X, y), _gd(), BUDGET, rng=0)
    rel = dp.release(OneRecordEverywhere(Logistic(), 1.0, X, y), _gd(), BUDGET, rng=0,
                     vouch=("objective",))
    names = [c.name for c in rel.certificate.conditions]
    assert names.index("user template") < names.index("per-example gradients")
    assert _declared(rel.certificate, "per-example gradients").vouched


def test_a_users_rows_object_on_a_shipped_template_is_refused_unless_vouched():
    """A shipped template whose X is an object of the user's (its gradient sums its own):
    named as the user's rows, refused without the vouch, released with it."""
    with pytest.raises(PrivacyError, match=r"per-example gradients \[objective\]"):
        dp.release(_users_rows_template(), _gd(), BUDGET, rng=0)
    rel = dp.release(_users_rows_template(), _gd(), BUDGET, rng=0,
                     vouch=("data_norm", "objective"))
    assert _declared(rel.certificate, "per-example gradients").vouched
    assert _declared(rel.certificate, "rows").vouched
    assert "Rows" in _declared(rel.certificate, "user template").detail


def test_the_noisy_gd_certificate_states_the_release_conditions_first():
    """NoisyGD.certificate keeps the conditions it is given, in order, before its own."""
    X, y = _data()
    template, mech = EmpiricalRiskTemplate(Logistic(), 1.0, X, y), _gd()
    given = [Condition("a", True, "how", "detail"), Condition("b", True, "how", "detail")]
    cert = mech.certificate(template, BUDGET, mech.calibrate(template, BUDGET), given)
    assert cert.conditions[:2] == given
    assert cert.conditions[2].name == "per-example clipping"


def test_noisy_gd_refuses_rows_it_cannot_read_by_name():
    """A SciPy matrix set as X (no row operator): a ParameterError naming what to pass."""
    X, y = _data()
    template = EmpiricalRiskTemplate(Logistic(), 1.0, X, y)
    template.X = sp.csr_matrix(X)
    with pytest.raises(ParameterError, match="CSRRows"):
        dp.release(template, _gd(), BUDGET, rng=0)


def test_a_distance_bound_set_on_a_shipped_instance_is_refused_unless_vouched():
    """An approximate-minima cover of a shipped template over a constraint set whose instance
    states its own distance_bound (r/mu, below the set's): declared, not verified (and, with a
    method of the instance's own, the template's conditions are its statements)."""
    X, y = _data(200)

    def template() -> LinearERMTemplate:
        t = LinearERMTemplate(Logistic(), 0.01, 1.0, X, y, constraint_set=L2Ball(0.5))
        t.distance_bound = lambda r, mu: r / mu
        return t

    with pytest.raises(PrivacyError, match=r"distance bound \[distance_bound\]"):
        dp.release(template(), get_mechanism("amp"), dp.Budget(1.0), rng=0)
    rel = dp.release(template(), get_mechanism("amp"), dp.Budget(1.0), rng=0,
                     vouch=("distance_bound", "template_conditions"))
    assert _declared(rel.certificate, "distance bound").vouched


class RecordZeroRows:
    """Rows of the user's: record 0's row wherever a reader converts them to an array."""

    def __init__(self, X: np.ndarray):
        self.X, self.shape, self.ndim, self.dtype = X, X.shape, 2, X.dtype

    def __array__(self, dtype=None, copy=None):  # noqa: ANN001, ANN204 - NumPy's protocol
        return np.repeat(self.X[:1], len(self.X), axis=0)

    def __getitem__(self, key):  # noqa: ANN001, ANN204
        return np.asarray(self)[key]


def _kmeans() -> KMeansTemplate:
    X, _ = _data()
    centers = np.random.default_rng(1).normal(size=(2, 2, 3)) / 4
    return KMeansTemplate(X, np.arange(len(X)) % 2, 2, 2, data_norm=1.0, n_iter=2,
                          init_centers=centers)


def _class_sums() -> ClassSumTemplate:
    X, _ = _data()
    return ClassSumTemplate(X, np.arange(len(X)) % 2, 2, data_norm=1.0)


@pytest.mark.parametrize("build, mechanism, budget", [
    (_kmeans, "dp_kmeans", dp.Budget(1.0)),
    (_class_sums, "gaussian", dp.Budget(1.0, 1e-6)),
])
def test_a_users_rows_object_read_by_the_cell_sums_is_refused_unless_vouched(build, mechanism,
                                                                             budget):
    """k-means and the class sums read a shipped template's X: an object of the user's there
    is a part of the user's, its rows declared (``"data_norm"``)."""
    template = build()
    template.X = RecordZeroRows(template.X)
    with pytest.raises(PrivacyError, match=r"rows \[data_norm\]"):
        dp.release(template, mechanism, budget, rng=0)
    rel = dp.release(template, mechanism, budget, rng=0, vouch=("data_norm",))
    assert _declared(rel.certificate, "rows").vouched


class RecordZeroLabels:
    """Labels of the user's: record 0's label wherever a reader converts them to an array."""

    def __init__(self, y: np.ndarray):
        self.y = y

    def __array__(self, dtype=None, copy=None):  # noqa: ANN001, ANN204 - NumPy's protocol
        return np.repeat(self.y[:1], len(self.y)).astype(dtype or float)

    def __len__(self) -> int:
        return len(self.y)


def test_users_labels_on_a_shipped_template_are_refused_unless_vouched():
    """A shipped template whose y is an object of the user's: its labels are a part of the
    user's, and noisy GD's per-example gradients declared."""
    X, y = _data()
    template = EmpiricalRiskTemplate(Logistic(), 1.0, X, y)
    template.y = RecordZeroLabels(y)
    with pytest.raises(PrivacyError, match=r"per-example gradients \[objective\]"):
        dp.release(template, _gd(), BUDGET, rng=0)
    rel = dp.release(template, _gd(), BUDGET, rng=0, vouch=("objective",))
    assert "labels RecordZeroLabels" in _declared(rel.certificate, "user template").detail
