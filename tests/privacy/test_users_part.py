"""The one predicate deciding whether the guards on a user's parts run (``users_part``): every
part dpconvex's, none runs; a part of the user's (a subclass of a shipped class defined here, a
stated CVXPY form, something set on an instance, a registered backend of the user's), all of
them, as strictly: a template, a mechanism or a backend of the user's that changes what the
calibration read during the solve releases nothing."""

from __future__ import annotations

import types

import cvxpy as cp
import numpy as np
import pytest

import dpconvex as dp
from dpconvex.errors import PrivacyError, SolverError
from dpconvex.objectives import (
    CVXPYSet,
    HuberHinge,
    HuberRegression,
    Logistic,
    Loss,
    MatrixTerm,
    losses,
    psi_frobenius,
)
from dpconvex.privacy import checks
from dpconvex.privacy import user_parts as user_parts_module
from dpconvex.privacy.mechanisms.base import ObjectivePerturbation, get_mechanism
from dpconvex.privacy.user_parts import users_part
from dpconvex.solvers import ClarabelBackend, LbfgsNewton, PolishedBackend, registry
from dpconvex.templates import LinearERMTemplate


def _rows(n: int = 120):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 3))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    return X, np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)


def _template(loss=None, cls=LinearERMTemplate, **kwargs):
    return cls(Logistic() if loss is None else loss, 0.1, 1.0, *_rows(), **kwargs)


OBJECTIVE = get_mechanism("objective")


class MyLogistic(Logistic):
    pass


class MyTemplate(LinearERMTemplate):
    pass


class MyMechanism(ObjectivePerturbation):
    pass


class MyBackend(LbfgsNewton):
    pass


class MyArray(np.ndarray):
    pass


# ------------------------------------------------------------------ what the predicate decides
@pytest.mark.parametrize("backend", [None, "auto", "native", LbfgsNewton(),
                                     PolishedBackend(ClarabelBackend(), LbfgsNewton())])
def test_a_release_of_dpconvexs_parts_only_has_no_users_part(backend):
    assert users_part(_template(), OBJECTIVE, backend) is None
    assert users_part(_template(), get_mechanism("output"), backend, np.zeros(3), 50) is None


def _set_on_instance(attribute, value, of=lambda t: t):
    def build():
        template = _template()
        setattr(of(template), attribute, value)
        return template
    return build


@pytest.mark.parametrize("build, mechanism, backend, options", [
    (lambda: _template(MyLogistic()), OBJECTIVE, None, ()),
    (lambda: _template(cls=MyTemplate), OBJECTIVE, None, ()),
    (_template, MyMechanism(), None, ()),
    (_template, OBJECTIVE, MyBackend(), ()),  # a subclass of a shipped backend
    (_template, OBJECTIVE, PolishedBackend(ClarabelBackend(), MyBackend()), ()),  # held by one
    (_template, OBJECTIVE, None, (np.zeros(3).view(MyArray),)),  # a warm start of the user's
    (_set_on_instance("residual_tol", 1e-3), OBJECTIVE, None, ()),  # a member its class states
    (_set_on_instance("y", _rows()[1].view(MyArray)), OBJECTIVE, None, ()),  # a member's class
    (_set_on_instance("_buffers", {"w": np.zeros(3).view(MyArray)}), OBJECTIVE, None,
     ()),  # held in a dict a shipped part holds
    (lambda: _template(Loss()), OBJECTIVE, None, ()),  # a shipped class with no derivation
    (lambda: _template(_bound_set(Logistic())), OBJECTIVE, None, ()),  # a bound set on a
    (lambda: _template(_bound_set(HuberHinge())), OBJECTIVE, None, ()),  # shipped loss, built
    (_set_on_instance("grad", lambda w: w, of=lambda t: t.regularizer), OBJECTIVE, None, ()),
    (_set_on_instance("lam", np.float64(0.1).item, of=lambda t: t.regularizer), OBJECTIVE, None,
     ()),  # a callable member of a shipped part
    (lambda: _template(Loss.from_cvxpy(lambda m: cp.logistic(-m), name="mine")), OBJECTIVE,
     None, ()),  # a loss stated in CVXPY
    (lambda: _template(constraint_set=CVXPYSet([(w := cp.Variable(3))[0] <= 1], w)), OBJECTIVE,
     None, ()),  # a set stated in CVXPY
])
def test_a_part_of_the_users_is_found(build, mechanism, backend, options):
    assert users_part(build(), mechanism, backend, *options) is not None


def test_what_a_shipped_part_holds_is_read_to_any_depth():
    """Plain data in a shipped part's dict (a template's work arrays) is no part of the user's;
    a value of the user's class two objects deep is, named with the object holding it."""
    template = _template()
    template._buffers = {"w": np.zeros(3), "count": 2}
    assert users_part(template, OBJECTIVE, None) is None
    template.regularizer.twin = Logistic()
    template.regularizer.twin.scale = np.zeros(1).view(MyArray)
    assert users_part(template, OBJECTIVE, None) == "MyArray in the template's Logistic"


def test_a_subclass_defined_here_is_named_by_the_part_it_is():
    assert users_part(_template(MyLogistic()), OBJECTIVE, None) == "the loss MyLogistic"
    assert users_part(_template(), MyMechanism(), None).startswith("the mechanism MyMechanism")
    assert users_part(_template(), OBJECTIVE, MyBackend()) == "the backend MyBackend"
    assert users_part(_template(cls=MyTemplate), OBJECTIVE, None) == "the template MyTemplate"


def _bound_set(loss):
    loss.deriv_bound = 0.25  # after construction
    return loss


@pytest.mark.parametrize("cls", [Logistic, HuberHinge])
def test_a_shipped_loss_with_a_bound_set_after_construction_is_the_users_and_probed(cls):
    """Both losses' slopes reach 1: a bound of 0.25 set on the instance (of a class with a
    constructor of dpconvex's, or without one) makes the loss the user's, so its declarations
    are probed, not stated by the class's derivation, and the release is refused before any
    noise."""
    template = _template(_bound_set(cls()))
    assert users_part(template, OBJECTIVE, None) == f"the loss {cls.__qualname__}"
    with pytest.raises(PrivacyError, match=f"derivative bound: loss '{cls.name}' declares"):
        dp.release(template, "objective", dp.Budget(1.0), rng=0)


def test_a_backend_of_the_users_in_the_registry_is_a_part_of_the_users(monkeypatch):
    """A name (or "auto") may resolve to a class the user registered: a part of the user's."""
    monkeypatch.setattr(registry, "_CLASSES", [*registry._CLASSES, MyBackend])
    assert users_part(_template(), OBJECTIVE, None) is not None
    assert users_part(_template(), OBJECTIVE, "native") is not None
    assert users_part(_template(), OBJECTIVE, "clarabel") is None  # not a name MyBackend has


def test_the_backend_of_a_release_that_solves_nothing_is_no_part_of_it(monkeypatch):
    """A mechanism that solves nothing runs no backend: a user's backend given, or registered
    under the name, is not read, and the release is the one without it."""
    from dpconvex.privacy.mechanisms.scalar import SelectionTemplate

    monkeypatch.setattr(registry, "_CLASSES", [*registry._CLASSES, MyBackend])
    template, exponential = SelectionTemplate(np.array([-1.0, -5.0, -2.0]), 1.0, 50), \
        get_mechanism("exponential")
    assert not exponential.solves
    for backend in (MyBackend(), None, "native"):
        assert users_part(template, exponential, backend) is None
    assert users_part(_template(), OBJECTIVE, MyBackend()) == "the backend MyBackend"
    given, plain = (dp.release(template, exponential, dp.Budget(1.0), backend, rng=0,
                               vouch=("sensitivity",))  # the utilities' declared sensitivity
                    for backend in (MyBackend(), None))
    assert given.theta.tolist() == plain.theta.tolist()
    assert given.certificate.to_dict() == plain.certificate.to_dict()


def test_an_extra_terms_functions_or_what_they_close_over_are_the_users():
    from dpconvex.data.preprocess import augment_and_scale
    from dpconvex.templates import LargeMarginGaussianTemplate

    Z = augment_and_scale(np.random.default_rng(0).normal(size=(20, 2)) / 3.0, data_norm=1.0)
    mine = MatrixTerm("mine", lambda Phi: 0, lambda t: 0.0, lambda t: 0.0 * t)
    for terms, users in (([mine], True), ([psi_frobenius(0.1, 2)], None)):
        t = LargeMarginGaussianTemplate(Z, np.arange(20) % 2, n_classes=2, lam=0.5,
                                        extra_terms=terms)
        if users:
            assert users_part(t, OBJECTIVE, None) == "an extra term"
        else:  # the shipped term is not what makes this template the user's (if anything does)
            assert "extra term" not in str(users_part(t, OBJECTIVE, None))
    term = psi_frobenius(0.1, 2)
    term.value_fn.__closure__[term.value_fn.__code__.co_freevars.index("weight")] \
        .cell_contents = np.asarray(0.1).view(MyArray)  # what a shipped term closes over
    t = LargeMarginGaussianTemplate(Z, np.arange(20) % 2, n_classes=2, lam=0.5, extra_terms=[term])
    assert users_part(t, OBJECTIVE, None) == "an extra term"


def test_the_search_reads_the_template_after_all_it_keeps_is_forgotten(monkeypatch):
    """Forgetting what a part keeps may run code of the user's (here a ``__setattr__``) that
    changes a part the search for the user's objects passes earlier (the regularizer, whose
    weight becomes a float of the user's class). The part is held where the search does not
    look (in the attributes of a function compiled from dpconvex), so the release finds the
    user's object only because everything is forgotten before the search starts: its guards
    run."""
    from dpconvex.objectives.losses import hinge

    template = _template()

    class Mine(float):
        pass

    class Keeper:
        _caches = ("_kept",)

        def __init__(self):
            object.__setattr__(self, "_kept", 1.0)

        def __setattr__(self, name, value):  # run as the release forgets _kept
            template.regularizer.lam = Mine(0.1)
            object.__setattr__(self, name, value)

    function = types.FunctionType(hinge.__code__, hinge.__globals__)  # dpconvex's code
    function.helper = Keeper()
    template.scorer = function
    assert users_part(template, OBJECTIVE, None) is None  # nothing of the user's read yet
    taken = []
    snapshot = user_parts_module.members_snapshot
    monkeypatch.setattr(user_parts_module, "members_snapshot",
                        lambda t: taken.append(t) or snapshot(t))
    assert dp.release(template, "objective", dp.Budget(1.0), rng=0).theta.shape == (3,)
    assert type(template.regularizer.lam) is Mine
    assert len(taken) == 2  # the guards ran: before the solve, and after it to compare


# ---------------------------------------------------------------- the guards run only then
def test_the_snapshot_is_taken_only_when_a_part_is_the_users(monkeypatch):
    taken = []
    snapshot = user_parts_module.members_snapshot

    def counted(template):
        taken.append(template)
        return snapshot(template)

    monkeypatch.setattr(user_parts_module, "members_snapshot", counted)
    dp.release(_template(), "objective", dp.Budget(1.0), rng=0)
    assert taken == []
    dp.release(_template(), "objective", dp.Budget(1.0), backend=MyBackend(), rng=0,
               vouch=("backend",), vouch_unused="ignore")
    assert len(taken) == 2  # before the solve, and after it to compare


def test_the_point_is_judged_by_the_templates_residual_only_when_a_part_is_the_users(
        monkeypatch):
    """Every part dpconvex's: the residual the shipped backend reports decides (the template's:
    tests/solvers/test_reported_residual.py), no backend is wrapped. A template of the user's
    whose residual never meets the tolerance: its own residual decides, under a shipped
    backend too, and nothing is released."""
    from dpconvex.privacy import release as release_module

    wrapped = []
    judged = release_module.judged

    def counted(solver_backend, backend):
        wrapped.append(solver_backend)
        return judged(solver_backend, backend)

    monkeypatch.setattr(release_module, "judged", counted)
    assert dp.release(_template(), "objective", dp.Budget(1.0), rng=0).theta.shape == (3,)
    assert wrapped == []

    class NeverAccurate(LinearERMTemplate):
        def residual(self, w, b=None, extra_reg=0.0):
            # above every tolerance, wherever the solve stops (and never below the truth)
            return LinearERMTemplate.residual(self, w, b, extra_reg) + 1.0

    with pytest.raises(SolverError, match="did not reach the tolerance"):
        dp.release(NeverAccurate(Logistic(), 0.1, 1.0, *_rows()), "objective", dp.Budget(1.0),
                   backend="native", rng=0,
                   vouch=("grad_bound", "hessian", "objective", "template_conditions"),
                   vouch_unused="ignore")
    assert [type(b).__name__ for b in wrapped] == ["LbfgsNewton"]


# ------------------------------------------- a user's part changing what was read: refused
@pytest.fixture
def solving(monkeypatch):
    """True once the release has taken its snapshot (from then on, it solves)."""
    armed = []
    snapshot = user_parts_module.members_snapshot

    def arming(template):
        taken = snapshot(template)
        armed.append(True)
        return taken

    monkeypatch.setattr(user_parts_module, "members_snapshot", arming)
    return armed


def test_a_users_template_changing_its_members_during_the_solve_releases_nothing(solving):
    class Understating(LinearERMTemplate):
        """Halves its declared row bound while it is solved (after the calibration read it)."""

        def objective(self, w, b=None, extra_reg=0.0):
            if solving:
                self.data_norm = 0.5
            return LinearERMTemplate.objective(self, w, b, extra_reg)

    template = Understating(Logistic(), 0.1, 1.0, *_rows())
    named = users_part(template, OBJECTIVE, None)
    assert named == "the template " + Understating.__qualname__
    with pytest.raises(PrivacyError, match="members changed during the solve"):
        dp.release(template, "objective", dp.Budget(1.0), rng=0,
                   vouch=("grad_bound", "hessian", "objective", "template_conditions"),
                   vouch_unused="ignore")
    assert solving


def test_a_users_mechanism_changing_the_templates_constants_releases_nothing():
    class Loosening(ObjectivePerturbation):
        """Loosens the template's tolerance as it runs the solve."""

        def run(self, template, calibration, backend, rng, **options):
            template.residual_tol = 1e300
            return super().run(template, calibration, backend, rng, **options)

    with pytest.raises(PrivacyError, match="members changed during the solve"):
        dp.release(_template(), Loosening(), dp.Budget(1.0), rng=0, vouch=("mechanism",))


def test_a_member_of_the_users_class_on_a_shipped_template_is_guarded(solving):
    """A shipped regularizer weighted by a float of the user's class whose sum halves the
    template's declared row bound during the solve: code of the user's, so what the release
    read is compared after the solve and the release refused."""
    template = _template()

    class Understating(float):
        def __add__(self, other):
            if solving:
                template.data_norm = 0.5
            return float(self) + other

        __radd__ = __add__

    template.regularizer.lam = Understating(0.1)
    assert users_part(template, OBJECTIVE, None) == (
        f"{Understating.__qualname__} in the template's L2")
    with pytest.raises(PrivacyError, match="members changed during the solve"):
        dp.release(template, "objective", dp.Budget(1.0), rng=0)
    assert solving


# ------------------------------------------ a shipped part is trusted only because it is checked
class SteepHuber(HuberRegression):
    """huber_M(z − y)/(2M), whose slope reaches 1, stating 0.25."""

    name = "steep_huber_guards"
    derivation = "docs/privacy/user_objectives.md#privacy-prediction-losses"
    deriv_bound = 0.25


def test_a_shipped_loss_with_a_false_bound_skips_the_guards_and_is_caught_by_the_walk(
        monkeypatch):
    """Made to look shipped (named in dpconvex.objectives.losses, registered for this test), it
    is no part of the user's, so the guards do not run; the probes the fast tests give every
    shipped class (tests/privacy/test_shipped_classes_probed.py) refuse its bound."""
    monkeypatch.setattr(SteepHuber, "__module__", losses.__name__)
    monkeypatch.setattr(losses, "SteepHuber", SteepHuber, raising=False)
    monkeypatch.setitem(losses.REGRESSION_LOSSES, SteepHuber.name, SteepHuber)
    X, _ = _rows()
    template = LinearERMTemplate(SteepHuber(0.5), 0.1, 1.0, X, X @ np.array([0.5, -0.2, 0.1]))
    assert users_part(template, OBJECTIVE, None) is None
    with pytest.raises(PrivacyError, match="derivative bound: loss 'steep_huber_guards' declares"):
        checks.probe_loss(SteepHuber(0.5), need_curvature=True)
