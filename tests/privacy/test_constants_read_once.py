"""A user's constants are read once: the bounds a certificate states are those of the form
solved, and the noise is calibrated from the numbers the checks read.

A CVXPY form is read from CVXPY's own classes only (a subclass of an atom or of ``cp.Constant``
could answer each read differently), its constants copied once when the loss is stated; a
declared bound is read once as a built-in float (a number of a type of its own is refused by
name).
"""

from fractions import Fraction

import cvxpy as cp
import numpy as np
import pytest
import scipy.sparse as sp

import dpconvex as dp
from dpconvex.errors import ParameterError
from dpconvex.objectives import Logistic, Loss
from dpconvex.objectives.atoms import CompiledForm, derive_bounds, foreign_part
from dpconvex.privacy.checks import (
    beyond_float_range,
    check_loss,
    declared_number,
    exact_number,
    solved_loss,
)
from dpconvex.templates.linear_erm import LinearERMTemplate


class GrowingM(cp.Constant):
    """huber's M whose value is small for its first reads and large after: the bound derived
    from an early read would not be the slope of the form solved."""

    reads = 0

    @property
    def value(self):
        self.reads += 1
        return np.array(0.25 if self.reads <= 20 else 50.0)


class MyHuber(cp.huber):
    """A subclass of CVXPY's huber: a class of the user's own, named as the atom it extends."""


class Liar(float):
    """float() gives the true bound; a product gives a millionth of it."""

    def __mul__(self, other):
        return 1e-6 * float(self) * other

    __rmul__ = __mul__


def _rows(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    return X, (X @ np.array([1.0, -1.0, 0.5]) > 0).astype(int)


@pytest.mark.parametrize("fn", [
    lambda z, y: cp.huber(z - y, GrowingM(0.25)),
    lambda z, y: MyHuber(z - y, 0.25),
    lambda z, y: cp.huber(z - y, 0.25) + 0.0 * cp.power(z - y, Liar(2.0)),
], ids=["constant-subclass", "atom-subclass", "datum-subclass"])
def test_a_form_with_a_class_of_the_users_own_is_refused_by_name(fn):
    with pytest.raises(ParameterError, match="not CVXPY's own"):
        Loss.from_cvxpy(fn, kind="regression", label_range=(-1.0, 1.0))
    z, y = cp.Variable(), cp.Parameter()
    assert foreign_part(fn(z, y)) is not None
    # the table derives nothing from such a form, and compiles no program of it
    assert derive_bounds(fn, label_range=(-1.0, 1.0)) is None
    assert not CompiledForm(fn, with_label=True).supported


def test_a_sparse_constant_is_refused_as_a_value_not_read():
    """cp.Constant is CVXPY's own: a sparse one is refused for its value, which no bound or
    program reads, and the refusal says how to state it."""
    A = cp.Constant(sp.csc_array(np.array([[2.0]])))
    with pytest.raises(ParameterError, match=r"holds a Constant whose value is a SciPy sparse "
                       r"csc_array, a value dpconvex does not read .* State the constant as a "
                       r"dense NumPy array") as refused:
        Loss.from_cvxpy(lambda m: cp.logistic(-cp.sum(A @ cp.reshape(m, (1,), order="F"))))
    assert "not CVXPY's own" not in str(refused.value)


def test_the_estimator_refuses_a_growing_huber_threshold():
    """The attack: every condition held and |ℓ'| <= 0.5 was certified while the form solved
    had slope 2·50; the fit is refused before anything is derived."""
    X, y = _rows()
    est = dp.PrivateLinearRegressor(loss=lambda z, t: cp.huber(z - t, GrowingM(0.25)),
                                    epsilon=1.0, label_range=(-1, 1), random_state=0)
    with pytest.raises(ParameterError, match="GrowingM .*not CVXPY's own"):
        est.fit(X, X[:, 0])


def test_a_constant_changed_in_place_after_the_loss_is_stated_changes_nothing():
    """huber's M is read once: the certified slope bound 2M is the slope of every form of the
    loss (compiled, smoothed, as a template solves it), whatever happens to the caller's array."""
    M = cp.Constant(np.array(0.25))
    loss = Loss.from_cvxpy(lambda z, y: cp.huber(z - y, M), kind="regression",
                           label_range=(-1.0, 1.0))
    M.value[...] = 50.0
    z, y = np.array([-10.0, 0.1, 10.0]), np.zeros(3)
    assert loss.deriv_bound == pytest.approx(0.5, rel=1e-15)
    # |slope| reaches 2M = 0.5 at |z - y| >= M, and no more
    assert np.abs(loss.deriv(z, y)).max() == pytest.approx(0.5, rel=1e-15)
    solved = solved_loss(loss)
    assert solved.deriv_bound == pytest.approx(0.5, rel=1e-15)
    assert np.abs(solved.deriv(z, y)).max() == pytest.approx(0.5, rel=1e-15)
    assert float(loss.cvxpy_expr(cp.Variable(1), np.zeros(1)).M.value) == 0.25


def _power_loss(p):
    return Loss.from_cvxpy(lambda m: cp.power(cp.Constant(2.0), p) * cp.logistic(-m), name="pw")


def test_a_powers_exponent_changed_in_place_after_the_loss_is_stated_changes_nothing():
    """A power's p is a datum of its atom, not a cp.Constant: it is read once too. The loss
    2**p · logistic(-m) with p = 1 has |ℓ'| <= 2; after the caller's p becomes 5 the bounds,
    the NumPy program, the CVXPY form and the certificate are those of p = 1 (each compared
    with a loss stated with p = 1.0 never changed: the same arithmetic on the same numbers,
    equal to rounding)."""
    X, y = _rows()
    m = np.array([-3.0, 0.0, 1.0])
    p = np.array(1.0)
    loss, honest = _power_loss(p), _power_loss(1.0)
    p[...] = 5.0
    solved, expected = solved_loss(loss), solved_loss(honest)
    assert (solved.deriv_bound, solved.curvature) == pytest.approx(
        (expected.deriv_bound, expected.curvature), rel=1e-12)
    assert solved.deriv_bound == pytest.approx(2.0, rel=1e-12)
    np.testing.assert_allclose(loss.value(m), honest.value(m), rtol=1e-12)
    np.testing.assert_allclose(solved.value(m), honest.value(m), rtol=1e-12)
    np.testing.assert_allclose(loss.cvxpy_expr(m).value, honest.cvxpy_expr(m).value,
                               rtol=1e-12)
    certified = [dp.PrivateLinearClassifier(loss=each, epsilon=1.0, classes=[0, 1], lam=0.1)
                 .certify(X, y).quantities["per-record gradient bound G"]
                 for each in (loss, honest)]
    assert certified[0] == pytest.approx(certified[1], rel=1e-12)


def _arrays(data, found):
    """The arrays and lists among an atom's data (in tuples, lists and slices too)."""
    for d in data:
        if isinstance(d, (np.ndarray, list)):
            found.append(d)
        if isinstance(d, (tuple, list)):
            _arrays(d, found)
        elif isinstance(d, slice):
            _arrays((d.start, d.stop, d.step), found)
    return found


def _nodes(expr):
    stack, seen = [expr], []
    while stack:
        e = stack.pop()
        seen.append(e)
        if e.args:
            stack.extend(e.args)
            stack.extend(d for d in e.get_data() or () if isinstance(d, cp.Expression))
    return seen


_v = cp.Variable(2)
#: A form of every atom of the table that holds data, each datum given as an object the
#: caller keeps (a NumPy array or a list) where CVXPY accepts one.
_WITH_DATA = {
    "PowerApprox": lambda z: cp.power(cp.pos(z), np.array(2.0)),
    "huber": lambda z: cp.huber(z, np.array(0.5)),
    "log_sum_exp": lambda z: cp.log_sum_exp(cp.vstack([cp.hstack([z, 0.0])] * 2),
                                            axis=np.array(0))[0],
    "Sum": lambda z: cp.sum(cp.vstack([cp.hstack([z, 0.0])] * 2), axis=np.array([0]))[0],
    "reshape": lambda z: cp.sum(cp.reshape(cp.hstack([z, z]), [2, 1], order="F")),
    "index": lambda z: cp.hstack([z, 0.0])[np.int64(0)],
    "Promote": lambda z: cp.sum(z + np.zeros(2)),
}


def test_every_datum_of_a_stated_form_is_a_copy_no_caller_holds():
    from cvxpy.utilities.canonical import Canonical

    from dpconvex.objectives.atoms import _OWN_ATOMS, frozen

    holding = {name for cls, name in _OWN_ATOMS.items() if cls.get_data is not Canonical.get_data}
    assert holding == set(_WITH_DATA)
    z = cp.Variable()
    for name, fn in _WITH_DATA.items():
        given = fn(z)
        assert name in {type(e).__name__ for e in _nodes(given)}
        held = {id(a) for e in _nodes(given) if e.args for a in _arrays(e.get_data() or (), [])}
        kept = [a for e in _nodes(frozen(given)) if e.args for a in _arrays(e.get_data() or (), [])]
        assert not held.intersection(map(id, kept)), name
        assert not any(isinstance(a, np.ndarray) and a.ndim == 0 for a in kept), name


def _with(attr, base):
    loss = Logistic() if base == "shipped" else Loss.from_cvxpy(lambda m: cp.logistic(-m))
    setattr(loss, attr, Liar(getattr(loss, attr)))
    return loss


@pytest.mark.parametrize("attr", ["deriv_bound", "curvature"])
@pytest.mark.parametrize("base", ["shipped", "from_cvxpy"])
def test_a_declared_bound_of_a_type_of_its_own_is_refused(attr, base):
    """The attack: float() of the bound passed every check while the calibration multiplied
    the object (G a millionth of the bound); the fit is refused by name."""
    X, y = _rows()
    est = dp.PrivateLinearClassifier(loss=_with(attr, base), epsilon=1.0, classes=[0, 1],
                                     mechanism="output", random_state=0)
    with pytest.raises(ParameterError, match=f"{attr} is a Liar"):
        est.fit(X, y)
    with pytest.raises(ParameterError, match=f"{attr} is a Liar"):
        LinearERMTemplate.constants_for(_with(attr, base), 1.0, 0.1, 3)


@pytest.mark.parametrize("value", [10**400, Fraction(-(10**400), 3)], ids=["int", "Fraction"])
@pytest.mark.parametrize("attr", ["deriv_bound", "curvature"])
def test_a_declared_bound_beyond_the_float_range_is_refused_as_such(attr, value):
    """An int is of an exact type: refused because no float holds it, not for its type."""
    loss = Logistic()
    setattr(loss, attr, value)
    assert beyond_float_range(value) and not beyond_float_range(10**300)
    with pytest.raises(ParameterError, match=f"{attr} \\(a {type(value).__name__}\\) is beyond "
                       "float64's range"):
        LinearERMTemplate.constants_for(loss, 1.0, 0.1, 3)
    with pytest.raises(ParameterError, match=f"declares {attr} \\(a {type(value).__name__}\\) "
                       "beyond float64's range"):
        check_loss(loss, need_curvature=True)


def test_a_declared_bound_is_read_once_as_a_built_in_float():
    # the checks and the calibration read the float, never the object given
    loss = Logistic()
    loss.deriv_bound = np.float32(2.0)
    solved = solved_loss(loss)
    assert type(solved.deriv_bound) is float and solved.deriv_bound == 2.0
    consts = LinearERMTemplate.constants_for(solved, 1.5, 0.1, 3)
    assert type(consts.grad_bound) is float and consts.grad_bound == 3.0
    assert type(exact_number(np.int64(3))) is float
    assert exact_number(Liar(1.0)).__class__ is Liar
    assert declared_number(Liar(1.0), zero_ok=False, finite=True) is None
    assert declared_number(np.float64(0.5), zero_ok=False, finite=True) == 0.5
