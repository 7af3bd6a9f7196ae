"""A shipped loss is established by its derivation, with no probe at a fit (the fast tests probe
every shipped class: test_shipped_classes_probed.py); a user's loss is probed once per description
of its code and state, and again whenever that description changes
(dpconvex/privacy/checks.py::check_loss, docs/privacy/user_objectives.md#privacy-margin-loss-bounds)."""

from __future__ import annotations

import copy
import re

import cvxpy as cp
import numpy as np
import pytest
from scipy.special import expit

import dpconvex as dp
from dpconvex.objectives import HuberHinge, HuberRegression, Logistic, Loss, Pinball, SmoothHinge
from dpconvex.privacy import checks

SHIPPED = (Logistic(), SmoothHinge(0.3), HuberRegression(1.0, (0.0, 4.0)),
           HuberHinge(0.5), Pinball(0.7, (0.0, 4.0), smoothing=0.1))


@pytest.mark.parametrize("loss", SHIPPED, ids=repr)
def test_shipped_loss_is_established_by_its_derivation(probes, loss):
    """Hand-written or stated in CVXPY, a shipped loss as built states its derivation and
    runs no probe."""
    conds = checks.check_loss(loss, need_curvature=True)
    assert probes == []
    assert checks.check_loss(copy.deepcopy(loss), need_curvature=True) == conds
    derived = f"derived ({loss.derivation})"
    assert all(c.holds for c in conds)
    assert all(c.how == derived for c in conds if c.name != "label range")
    named = {c.name: c for c in conds}
    assert f"loss '{loss.name}'" in named["loss convexity"].detail
    if loss.kind == "regression":  # both regression losses here are given labels in [0, 4]
        assert named["label range"].detail.startswith("labels in [0, 4]")
    # the bounds it states are the loss's |ℓ'| and ℓ'' on a grid of 480 001 points over
    # [-60, 60] (the shipped ones attain theirs there): bounds (none below), and tight (within
    # the 6 digits the detail prints)
    z = np.linspace(-60.0, 60.0, 480_001)
    at = (z,) if loss.kind == "margin" else (z, np.zeros_like(z))
    for name, on_grid in (("|ℓ'| bound", np.abs(loss.deriv(*at)).max()),
                          ("ℓ'' bound (c)", loss.deriv2(*at).max())):
        stated = float(re.fullmatch(r"declared (\S+) on all of ℝ", named[name].detail)[1])
        assert on_grid <= stated * (1 + 1e-5) and stated <= on_grid * (1 + 1e-5), name


def test_shipped_loss_changed_after_construction_is_probed_again(probes):
    """A shipped loss with state its constructor did not leave is no longer what its derivation
    is about: it is described by its state and checked (here a slope bound below the Huber
    hinge's 1, which the probe refutes)."""
    loss = HuberHinge(0.5)
    assert loss.as_built()
    checks.check_loss(loss, need_curvature=True)
    changed = HuberHinge(0.5)
    changed.deriv_bound = 0.5  # the hinge's |ℓ'| reaches 1
    assert not changed.as_built() and changed.derived_conditions(need_curvature=True) is None
    with pytest.raises(dp.PrivacyError, match="derivative bound"):
        checks.check_loss(changed, need_curvature=True)


def test_a_shipped_loss_is_as_built_on_its_copies_and_not_once_changed():
    """As built while its state is exactly its parameters, as its constructor takes them, on
    the instance and on its copies: its constants are read from the parameters, so a parameter
    set to another value the constructor takes is that loss; a value it refuses, an attribute
    removed or added, is not."""
    loss = Pinball(0.3, smoothing=0.2)
    assert loss.as_built() and copy.deepcopy(loss).as_built() and copy.copy(loss).as_built()
    loss.label_range = (0.0, 4.0)
    assert loss.as_built() and loss.derived_conditions(need_curvature=True) == Pinball(
        0.3, (0.0, 4.0), smoothing=0.2).derived_conditions(need_curvature=True)
    refused, removed, added = (Pinball(0.3, smoothing=0.2) for _ in range(3))
    refused.quantile = 1.5  # no quantile: the constructor refuses it
    del removed.label_range  # the class's attribute, if any, would be read in its place
    added.extra = 1.0
    assert not refused.as_built() and not removed.as_built() and not added.as_built()


def test_a_user_method_named_description_is_not_the_cache_key():
    """Only a dpconvex class's own description keys the cache; a user's loss is described by
    its code and state whatever methods it defines."""
    stated = Loss.from_cvxpy(lambda m: cp.logistic(-m), name="mine")

    class Mine(type(stated)):
        def description(self):
            return ("always the same",)

    mine = Mine(stated.stated_fn, kind="margin", name="mine")
    assert checks._loss_description(mine) != ("always the same",)


def test_a_fit_with_a_shipped_loss_runs_no_probe(probes):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3)) / 3
    y = (X[:, 0] > 0).astype(int)
    est = dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1], random_state=0).fit(X, y)
    assert probes == []
    hows = {c.name: c.how for c in est.certificate_.conditions}
    assert hows["|ℓ'| bound"] == "derived (docs/privacy/linear_erm.md#privacy-loss-constants)"


class Redeclared(SmoothHinge):
    pass


def test_shipped_instance_changed_after_construction_is_probed(probes):
    loss = SmoothHinge(0.5)
    loss.curvature_note = "mine"  # state beyond the constructor's parameters
    checks.check_loss(loss, need_curvature=True)
    assert len(probes) == 1
    bad = SmoothHinge(0.5)
    bad.h = -1.0  # a value the constructor refuses: not what the derivation is about
    with pytest.raises(dp.ParameterError, match="curvature"):
        checks.check_loss(bad, need_curvature=True)  # refused before any probe
    assert len(probes) == 1
    sub = Redeclared(0.5)  # a subclass is a user's loss
    conds = checks.check_loss(sub, need_curvature=True)
    assert any(c.how == "numerical probe" for c in conds)


def test_a_shipped_instance_with_replaced_methods_is_checked_as_a_users_loss(probes):
    """Logistic() with its forms replaced by one that adds 9·logistic(−(m + 2e6)): slope 10,
    but only below m = −1e6, past the probe grid. Its class's derivation is not about it: the
    atom table derives 10 from its CVXPY form and refuses the declared 1."""
    shift = 2e6
    loss = Logistic()
    loss.cvxpy_expr = lambda m: cp.logistic(-m) + 9 * cp.logistic(-(m + shift))
    loss.value = lambda m: np.logaddexp(0, -m) + 9 * np.logaddexp(0, -(m + shift))
    loss.deriv = lambda m: -expit(-m) - 9 * expit(-(m + shift))
    loss.deriv2 = lambda m: expit(m) * expit(-m) + 9 * expit(m + shift) * expit(-(m + shift))
    loss.value_and_deriv = lambda m: (loss.value(m), loss.deriv(m))
    with pytest.raises(dp.PrivacyError, match="derived on all of ℝ from its CVXPY form is 10"):
        checks.check_loss(loss, need_curvature=True)
    plain = Logistic()
    plain.note = "mine"  # state beyond the constructor's: checked as a user's loss, and holds
    conds = {c.name: c.how for c in checks.check_loss(plain, need_curvature=True)}
    assert conds["|ℓ'| bound"] == "derived on all of ℝ from the CVXPY form's atoms"


def test_user_loss_is_probed_once_and_its_copies_reuse_it(probes):
    """What a template checks is the loss compiled from the user's (solved_loss), a new one at
    each template: described by its tree, so every compile of one statement (a copy's too, as
    sklearn's clone makes) reuses the first probe. The user's object itself holds a compiled
    form of its own, which has no description: checked directly, it is probed every time."""
    loss = Loss.from_cvxpy(lambda m: cp.huber(cp.pos(1 - m), 1.0) / 2, name="mine")
    first = checks.check_loss(checks.solved_loss(loss), need_curvature=True)
    assert len(probes) == 1
    assert checks.check_loss(checks.solved_loss(loss), need_curvature=True) == first
    clone = checks.solved_loss(copy.deepcopy(loss))
    assert checks.check_loss(clone, need_curvature=True) == first
    assert len(probes) == 1
    checks.check_loss(clone, need_curvature=False)  # other conditions: probed for them
    assert len(probes) == 2
    assert checks._loss_description(loss) is None
    checks.check_loss(loss, need_curvature=True)
    checks.check_loss(loss, need_curvature=True)
    assert len(probes) == 4


SCALE = 1.0


def _scaled_logistic(m):
    return cp.logistic(-SCALE * m)


def test_a_stated_loss_is_the_tree_its_function_gave_when_stated(probes):
    """One function stated under two values of a global it reads gives two losses, each the
    tree of its own statement: a later change of the global changes neither form, and the
    second is checked on its own tree, not given the checks of the first (whose function
    reads the same global now)."""
    global SCALE
    try:
        SCALE = 5.0
        steep = Loss.from_cvxpy(_scaled_logistic, name="scaled", deriv_bound=1.0, curvature=6.25)
        SCALE = 1.0
        flat = Loss.from_cvxpy(_scaled_logistic, name="scaled", deriv_bound=1.0, curvature=6.25)
        checks.check_loss(flat, need_curvature=True)
        assert len(probes) == 1
        with pytest.raises(dp.PrivacyError, match="bound"):  # slope 5 above the declared 1
            checks.check_loss(steep, need_curvature=True)
        one = cp.Constant(np.array([1.0]))
        assert steep.cvxpy_expr(one).value[0] == pytest.approx(np.logaddexp(0, -5.0))
        assert steep.deriv(np.array([0.0]))[0] == pytest.approx(-2.5)
    finally:
        SCALE = 1.0


class Scaled(Loss):
    """log(1 + exp(-a m)): |ℓ'| <= a, declared 1 (true for a <= 1)."""

    name = "scaled_logistic"
    has_cvxpy = False
    deriv_bound = 1.0
    curvature = 0.25

    def __init__(self, a):
        self.a = a

    def value(self, m):
        return np.logaddexp(0.0, -self.a * np.asarray(m, float))

    def deriv(self, m):
        return -self.a * expit(-self.a * np.asarray(m, float))

    def deriv2(self, m):
        s = expit(self.a * np.asarray(m, float))
        return self.a**2 * s * (1.0 - s)


def test_user_subclass_changed_in_state_or_class_is_probed_again(probes, monkeypatch):
    loss = Scaled(1.0)
    checks.check_loss(loss, need_curvature=True)
    checks.check_loss(loss, need_curvature=True)
    assert len(probes) == 1
    loss.a = 2.0  # an instance attribute
    with pytest.raises(dp.PrivacyError, match="derivative bound"):
        checks.check_loss(loss, need_curvature=True)
    loss.a = 1.0
    checks.check_loss(loss, need_curvature=True)  # the description of the first check
    assert len(probes) == 2
    monkeypatch.setattr(Scaled, "deriv_bound", 0.4)  # a class attribute
    with pytest.raises(dp.PrivacyError, match="derivative bound"):
        checks.check_loss(loss, need_curvature=True)
    monkeypatch.setattr(Scaled, "deriv_bound", 1.0)
    monkeypatch.setattr(Scaled, "deriv", lambda self, m: 0.5 * np.ones_like(m))  # a method
    with pytest.raises(dp.PrivacyError):
        checks.check_loss(loss, need_curvature=True)
    assert len(probes) == 4


class Holder:
    """An object with its own mutable state: no immutable description."""

    def __init__(self, a):
        self.a = a


class HeldScale(Scaled):
    def __init__(self, holder):
        self.holder = holder

    @property
    def a(self):
        return self.holder.a


def test_user_loss_without_a_description_is_probed_at_every_check(probes):
    holder = Holder(1.0)
    loss = HeldScale(holder)
    assert checks._loss_description(loss) is None
    checks.check_loss(loss, need_curvature=True)
    holder.a = 2.0
    with pytest.raises(dp.PrivacyError, match="derivative bound"):
        checks.check_loss(loss, need_curvature=True)
    assert len(probes) == 2
