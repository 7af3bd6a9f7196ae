"""Every shipped loss and regularizer gets the probes a user's gets: these tests walk the classes
dpconvex ships and probe each, at its defaults and at representative values of each parameter,
far from its default on both sides; a fit states a shipped loss's derivation without a probe
(docs/privacy/linear_erm.md#privacy-loss-constants, dpconvex/privacy/checks.py::shipped_loss_conditions).

A class that states a false bound is refused by the walk, and a class whose parameters are not
probed far from their defaults is refused by the demand on its representative values: shown with
classes made to look shipped (defined under a dpconvex module's name and registered for the test
only).
"""

from __future__ import annotations

import inspect
import numbers

import cvxpy as cp
import numpy as np
import pytest

import dpconvex as dp
from dpconvex._validation import is_dpconvex_class
from dpconvex.objectives import losses
from dpconvex.objectives.losses import (
    LOSSES,
    REGRESSION_LOSSES,
    REGULARIZERS,
    HuberRegression,
    Loss,
    Regularizer,
    shipped_derivation,
)
from dpconvex.privacy import checks
from dpconvex.privacy.declarations import RTOL, probed_modulus

#: Parameters each shipped class is probed at besides its defaults. Every parameter its
#: constructor takes but those of NOT_SPREAD needs values here, far from its default on both
#: sides (:func:`spread_gaps`), so that a bound true only near the default is caught: a
#: narrow and a wide smoothing, a quantile near each end, labels off the unit range.
REPRESENTATIVE = {
    "HuberHinge": [{"h": 0.05}, {"h": 5.0}],
    "SmoothHinge": [{"h": 0.05}, {"h": 5.0}],
    "HuberRegression": [{"M": 0.05}, {"M": 5.0, "label_range": (-3.0, 10.0)}],
    "Pinball": [{"quantile": 0.9, "smoothing": 0.01},
                {"quantile": 0.05, "label_range": (0.0, 5.0), "smoothing": 1.0}],
}
#: Constructor parameters :func:`spread_gaps` leaves out: a loss's label range (a public range
#: of the data, which entries above vary) and a regularizer's λ (the regularizer test's sweep).
NOT_SPREAD = {Loss: {"label_range"}, Regularizer: {"lam"}}
#: How far from a positive default the representative values reach, where the class accepts
#: them: at most a tenth of it and at least ten times it.
SPREAD = 10.0
#: The λ a regularizer is built with to learn whether it accepts a parameter's value.
LAM = 1.0


def shipped_classes(base: type) -> list[type]:
    """The subclasses of ``base`` that dpconvex ships with a derivation of their own."""
    found, stack = [], [base]
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        if vars(cls).get("derivation") and is_dpconvex_class(cls):
            found.append(cls)
    return sorted(found, key=lambda cls: cls.__qualname__)


def tuned_parameters(cls: type) -> dict[str, object]:
    """The parameters of ``cls``'s constructor but those of :data:`NOT_SPREAD`, with their
    defaults (``inspect.Parameter.empty`` for a required one)."""
    params = inspect.signature(cls).parameters.values()
    assert all(p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params), (
        f"{cls.__name__}: name the constructor's parameters (no *args, **kwargs)")
    left_out = NOT_SPREAD[Loss if issubclass(cls, Loss) else Regularizer]
    return {p.name: p.default for p in params if p.name not in left_out}


def parameter_sets(cls: type) -> list[dict]:
    """The parameters ``cls`` is probed at: its defaults (when it has one for every parameter
    of :func:`tuned_parameters`) and its :data:`REPRESENTATIVE` entries."""
    required = inspect.Parameter.empty in tuned_parameters(cls).values()
    return ([] if required else [{}]) + REPRESENTATIVE.get(cls.__name__, [])


def _accepts(cls: type, name: str, value: float) -> bool:
    """Whether ``cls`` takes ``value`` for parameter ``name`` (else a ParameterError)."""
    try:
        cls(LAM, **{name: value}) if issubclass(cls, Regularizer) else cls(**{name: value})
    except dp.ParameterError:
        return False
    return True


def spread_gaps(cls: type) -> list[str]:
    """What :data:`REPRESENTATIVE` lacks for ``cls``: for each parameter of
    :func:`tuned_parameters` with a positive default d, a value <= d/SPREAD (or, where the class
    refuses d/SPREAD, one below d) and one >= SPREAD·d (or above d); for any other parameter
    (no default, or one not a positive number), two values other than its default."""
    entries = REPRESENTATIVE.get(cls.__name__, [])
    gaps = []
    for name, default in tuned_parameters(cls).items():
        given = [e[name] for e in entries if name in e]
        real = [v for v in given if isinstance(v, numbers.Real) and not isinstance(v, bool)]
        if not (isinstance(default, numbers.Real) and not isinstance(default, bool)
                and 0 < default < np.inf):
            if len({repr(v) for v in given} - {repr(default)}) < 2:
                of = "" if default is inspect.Parameter.empty else f" other than {default!r}"
                gaps.append(f"{name}: two values{of}")
            continue
        low, high = default / SPREAD, default * SPREAD
        low = low if _accepts(cls, name, low) else default
        high = high if _accepts(cls, name, high) else default
        if not any(v <= low and v < default for v in real):
            gaps.append(f"{name}: a value <= {low!r} (default {default!r})")
        if not any(v >= high and v > default for v in real):
            gaps.append(f"{name}: a value >= {high!r} (default {default!r})")
    return gaps


def probe_shipped_loss(cls: type) -> list[Loss]:
    """Each representative instance of ``cls``, its derivation stated for the conditions the
    probes a user's loss gets check, and those probes passed."""
    instances = [cls(**params) for params in parameter_sets(cls)]
    for loss in instances:
        for need_curvature in (True, False):
            derived = checks.shipped_loss_conditions(loss, need_curvature=need_curvature)
            assert derived is not None, f"{cls.__name__} as built states no derivation"
            if loss.has_cvxpy:  # the DCP analysis a user's loss gets at its fit
                checks.check_dcp_convex(loss.dcp_form(), f"loss '{loss.name}'")
            probed = checks.probe_loss(loss, need_curvature=need_curvature)
            assert [c.name for c in derived] == [c.name for c in probed]
            assert all(c.holds for c in derived + probed)
    return instances


def test_every_shipped_loss_class_is_registered():
    """The walk below finds what the registries name, and the registries name every class."""
    registered = set(LOSSES.values()) | set(REGRESSION_LOSSES.values())
    assert set(shipped_classes(Loss)) == registered
    assert set(shipped_classes(Regularizer)) == set(REGULARIZERS.values())


@pytest.mark.parametrize("cls", shipped_classes(Loss) + shipped_classes(Regularizer),
                         ids=lambda cls: cls.__name__)
def test_every_parameter_of_a_shipped_class_is_probed_far_from_its_default(cls):
    """The representative values the probes below build each class at reach a tenth and ten
    times each parameter's default (or the side of its valid range)."""
    gaps = spread_gaps(cls)
    assert not gaps, f"{cls.__name__}: give REPRESENTATIVE values: {'; '.join(gaps)}"


@pytest.mark.parametrize("cls", shipped_classes(Loss), ids=lambda cls: cls.__name__)
def test_every_shipped_loss_survives_the_probes(probes, cls):
    for loss in probe_shipped_loss(cls):
        conds = checks.check_loss(loss, need_curvature=True)
        how = f"derived ({shipped_derivation(loss)})"
        assert {c.how for c in conds if c.name != "label range"} == {how}
    assert probes  # the probes ran


#: The CVXPY statement of each shipped loss that Huberizes a kink in closed form: the kinked
#: loss as a user states it, compiled and smoothed at the class's h by Loss.from_cvxpy.
STATEMENTS = {
    "HuberHinge": lambda loss: Loss.from_cvxpy(losses.hinge, smoothing=loss.h),
    "Pinball": lambda loss: Loss.from_cvxpy(losses.pinball(loss.quantile), kind="regression",
                                            label_range=loss.label_range,
                                            smoothing=loss.smoothing),
}
#: Predictions (margins) of the comparison: around the kinks of every smoothing above, and far.
GRID = np.concatenate([np.linspace(-6.0, 6.0, 2401), [-1e6, -40.0, 40.0, 1e6]])


@pytest.mark.parametrize("cls", [c for c in shipped_classes(Loss) if vars(c).get("has_kinks")],
                         ids=lambda cls: cls.__name__)
def test_a_shipped_huberized_loss_is_its_cvxpy_statement_smoothed(cls):
    """The closed form of a shipped loss with a Huberized kink is what the loss compiler makes
    of its statement: value and derivatives on a grid, the smoothing's record, and bounds at
    least those of the function computed and at most the compiler's (which rounds outward at
    every atom); at h = None, the kinked statement itself. Both are float64 evaluations of one
    function, a few ulps apart (rtol 1e-12, against the probes' 1e-9)."""
    assert cls.__name__ in STATEMENTS, f"{cls.__name__}: state its CVXPY statement here"
    params = parameter_sets(cls)
    if "smoothing" in cls().params():
        params.append({"smoothing": None})
    for loss in (cls(**p) for p in params):
        stated = STATEMENTS[cls.__name__](loss)
        assert loss.smoothed_kinks == stated.smoothed_kinks
        for bound in ("deriv_bound", "curvature"):
            ours, compiled = getattr(loss, bound), getattr(stated, bound)
            assert ours <= compiled and ours == pytest.approx(compiled, rel=1e-14), bound
        lo, hi = loss.label_range or (0.0, 0.0)
        for y in ((None,) if loss.kind == "margin" else (lo, 0.5 * (lo + hi), hi)):
            args = () if y is None else (np.full(GRID.shape, y),)
            for form in ("value", "deriv", "deriv2"):
                np.testing.assert_allclose(getattr(loss, form)(GRID, *args),
                                           getattr(stated, form)(GRID, *args),
                                           rtol=1e-12, atol=1e-12, err_msg=form)


def _regularizer_forms_agree(reg: Regularizer, w: np.ndarray) -> None:
    """``grad`` is the gradient of ``value`` (central differences along random directions),
    and ``cvxpy_expr`` is ``value``."""
    rng = np.random.default_rng(7)  # public probe directions
    for _ in range(3):
        v = rng.normal(size=w.shape)
        h = 1e-6 * max(1.0, float(np.linalg.norm(w)))
        fd = (reg.value(w + h * v) - reg.value(w - h * v)) / (2 * h)
        # exact for a quadratic but for the rounding of two values of size |R(w)|, over 2h
        tol = 4 * np.finfo(float).eps * max(1.0, abs(reg.value(w))) / h + 1e-9 * max(1.0, abs(fd))
        assert abs(fd - float(np.vdot(reg.grad(w), v))) <= tol
    var = cp.Variable(w.shape)
    var.value = w
    assert float(reg.cvxpy_expr(var).value) == pytest.approx(reg.value(w), rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("cls", shipped_classes(Regularizer), ids=lambda cls: cls.__name__)
@pytest.mark.parametrize("lam", [1e-3, 0.5, 20.0])
def test_every_shipped_regularizer_has_its_modulus(cls, lam):
    """μ probed as a user's regularizer's is (declarations.probed_modulus), on a vector and a
    block-shaped parameter, at each of the class's parameter sets; grad and the CVXPY form are
    value's."""
    for params in parameter_sets(cls):
        reg = cls(lam, **params)
        for shape in ((7,), (2, 1, 3, 3)):
            assert probed_modulus(reg, shape) >= reg.strong_convexity * (1 - RTOL)
            _regularizer_forms_agree(reg, np.random.default_rng(3).normal(size=shape))


# ------------------------------------------------------------ a shipped class with a false bound
class SteepHuber(HuberRegression):
    """huber_M(z − y)/(2M), whose slope reaches 1, stating 0.25."""

    name = "steep_huber"
    derivation = "docs/privacy/user_objectives.md#privacy-prediction-losses"
    deriv_bound = 0.25


@pytest.fixture
def shipped_steep(monkeypatch):
    """:class:`SteepHuber` as if dpconvex shipped it: named in dpconvex.objectives.losses and
    registered, for this test only."""
    monkeypatch.setattr(SteepHuber, "__module__", losses.__name__)
    monkeypatch.setattr(losses, "SteepHuber", SteepHuber, raising=False)
    monkeypatch.setitem(REGRESSION_LOSSES, SteepHuber.name, SteepHuber)
    assert shipped_derivation(SteepHuber()) is not None
    return SteepHuber


def test_a_shipped_loss_with_a_false_bound_is_caught_by_the_registry_walk(shipped_steep):
    assert shipped_steep in shipped_classes(Loss)
    with pytest.raises(dp.PrivacyError, match="derivative bound: loss 'steep_huber' declares"):
        probe_shipped_loss(shipped_steep)


class FlatHuber(HuberRegression):
    """huber_M(z − y)/(2M), of curvature 1/M, stating 2: true at the default M = 0.5 and above,
    false below it."""

    name = "flat_huber"
    derivation = "docs/privacy/user_objectives.md#privacy-prediction-losses"
    curvature = 2.0


def test_a_shipped_parameter_with_a_bound_false_away_from_its_default_is_caught(monkeypatch,
                                                                                probes):
    """Probed at its defaults only, the class passes; the demand on its representative values
    refuses it until they reach M/10, where the probes refuse its curvature."""
    monkeypatch.setattr(FlatHuber, "__module__", losses.__name__)
    monkeypatch.setattr(losses, "FlatHuber", FlatHuber, raising=False)
    monkeypatch.setitem(REGRESSION_LOSSES, FlatHuber.name, FlatHuber)
    assert FlatHuber in shipped_classes(Loss)
    assert probe_shipped_loss(FlatHuber)  # its defaults pass
    assert spread_gaps(FlatHuber) == ["M: a value <= 0.05 (default 0.5)",
                                      "M: a value >= 5.0 (default 0.5)"]
    monkeypatch.setitem(REPRESENTATIVE, "FlatHuber", [{"M": 0.05}, {"M": 5.0}])
    assert spread_gaps(FlatHuber) == []
    with pytest.raises(dp.PrivacyError, match="curvature bound: loss .flat_huber. declares"):
        probe_shipped_loss(FlatHuber)


class Mixing(losses.Logistic):
    """The logistic loss plus 0.1·(−m) in NumPy, whose CVXPY form adds 0.1·log_sum_exp(−m): one
    number of a scalar margin, which on a vector of margins mixes the records."""

    name = "mixing"
    derivation = "docs/privacy/linear_erm.md#privacy-loss-constants"
    deriv_bound = 1.1

    def value(self, m):
        return super().value(m) - 0.1 * np.asarray(m, dtype=float)

    def deriv(self, m):
        return super().deriv(m) - 0.1

    def value_and_deriv(self, m):
        return self.value(m), self.deriv(m)

    def cvxpy_expr(self, m):
        return cp.logistic(-m) + 0.1 * cp.log_sum_exp(-m)


def test_a_shipped_cvxpy_form_that_is_not_elementwise_is_caught_by_the_registry_walk(monkeypatch):
    monkeypatch.setattr(Mixing, "__module__", losses.__name__)
    monkeypatch.setattr(losses, "Mixing", Mixing, raising=False)
    monkeypatch.setitem(LOSSES, Mixing.name, Mixing)
    assert Mixing in shipped_classes(Loss)
    with pytest.raises(dp.PrivacyError, match="forms: loss 'mixing': its CVXPY form gives"):
        probe_shipped_loss(Mixing)
