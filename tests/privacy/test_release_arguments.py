"""``release``'s arguments are checked before anything is read: a wrong one is refused by
name (ParameterError), never met as a raw TypeError/AttributeError inside a solver, nor read
as something else ('no' as True, a complex start point as its real part); the values of
``noise_warning``'s keys too, each named."""

from __future__ import annotations

import numpy as np
import pytest

import dpconvex as dp
from dpconvex import Budget, release
from dpconvex.errors import ParameterError
from dpconvex.objectives import Logistic
from dpconvex.privacy.release import check_warm_start
from dpconvex.templates import LinearERMTemplate


@pytest.fixture(scope="module")
def template():
    X = np.random.default_rng(0).normal(size=(40, 3))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.where(X[:, 0] > 0, 1, -1)
    return LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y)


@pytest.mark.parametrize("argument, value, named", [
    ("mechanism", None, r"'mechanism' argument of release must be a Mechanism"),
    ("mechanism", 3, r"'mechanism' argument of release must be a Mechanism"),
    ("max_iter", "5", r"'max_iter' argument of release must be an int in \[1,"),
    ("max_iter", 0, r"'max_iter' argument of release must be an int in \[1,"),
    ("max_iter", -1, r"'max_iter' argument of release must be an int in \[1,"),
    ("warm_start", "abc", r"'warm_start' argument of release must be .* of shape \(3,\)"),
    ("warm_start", np.zeros(5), r"'warm_start' argument .* Got an array of shape \(5,\)"),
    ("warm_start", [np.nan, 0.0, 0.0], r"'warm_start' argument of release must be None or a fin"),
    ("noise_warning", "x", r"'noise_warning' argument of release must be None or a mapping"),
    ("noise_warning", {"x": 1}, r"it does not take \['x'\] and it lacks \['family', 'owner'\]"),
    ("noise_warning", {"family": "nope", "owner": "A"}, r"'family' argument of release's noise"),
    ("noise_warning", {"family": "linear", "owner": 1}, r"must hold an 'owner' str"),
    ("seeded", "no", r"'seeded' argument of release must be a bool"),
    ("dry_run", "yes", r"'dry_run' argument of release must be a bool"),
    ("backend", np.zeros(3), r"'backend' argument of release must be None, the name of a "),
    ("vouch", np.array(["hessian", "curvature"]), r"'vouch' argument of release must be a name"),
    ("vouch", [1.5], r"'vouch' argument of release must be a name or a list, tuple or set"),
    ("vouch_unused", "ignor", r"'vouch_unused' argument of release must be one of"),
    ("vouch_unused", np.zeros(3), r"'vouch_unused' argument of release must be one of"),
])
def test_a_wrong_argument_is_refused_by_name_before_anything_runs(template, argument, value,
                                                                     named):
    given = {"mechanism": "objective", argument: value}
    mechanism = given.pop("mechanism")
    with pytest.raises(ParameterError, match=named):
        release(template, mechanism, Budget(1.0), rng=0, **given)


def test_the_arguments_of_their_kind_are_taken_as_given(template):
    """A warm start of the space's shape (or a list), an int max_iter, a NumPy bool and a
    noise_warning of its keys are taken: the release is of the template's shape."""
    start = release(template, "objective", Budget(1.0), rng=0, warm_start=[0.0, 0.0, 0.0],
                    max_iter=np.int64(200), seeded=np.bool_(False),
                    noise_warning={"family": "linear", "owner": "Demo"})
    plain = release(template, "objective", Budget(1.0), rng=0)
    assert start.theta.shape == plain.theta.shape == (3,)
    assert start.certificate.seeded is False and plain.certificate.seeded is True


WARNING = {"family": "linear", "owner": "M"}


@pytest.mark.parametrize("key, value", [
    ("n_classes", "x"), ("n_classes", 1), ("n_classes", 2.5), ("n_classes", True),
    ("epsilon", "x"), ("epsilon", 0), ("epsilon", -1.0), ("epsilon", np.inf),
    ("n", -1), ("n", "x"), ("n", 0), ("n", 40.0),
    ("regression", "yes"), ("regression", 1),
])
def test_a_wrong_value_of_a_noise_warning_key_is_refused_naming_the_key(template, key, value):
    """Checked before the release runs: at epsilon = 0.01 the warning would be given, so a
    value it reads (n_classes > 2, epsilon:g) would otherwise fail inside it, and a value it
    never reads (n, regression) be taken silently."""
    with pytest.raises(ParameterError) as refused:
        release(template, "objective", Budget(0.01), rng=0,
                noise_warning={**WARNING, "n_classes": 3, key: value})
    assert f"'{key}'" in str(refused.value)


def test_the_values_of_the_noise_warning_keys_are_taken_as_given(template):
    """Values of their kind (NumPy ones included) are taken: the warning is given."""
    with pytest.warns(dp.PrivacyWarning):
        rel = release(template, "objective", Budget(0.01), rng=0, noise_warning={
            **WARNING, "n": np.int64(40), "n_classes": 3, "epsilon": np.float64(0.03),
            "regression": np.bool_(False)})
    assert rel.theta.shape == (3,)


@pytest.mark.parametrize("start", [np.array([1 + 2j, 0, 0]), [1 + 2j, 0.0, 0.0],
                                   np.zeros(3, dtype=complex)])
def test_a_complex_start_point_is_refused_by_name(template, start):
    """A float conversion would drop the imaginary part (with NumPy's ComplexWarning): refused
    by release and by check_warm_start, which an estimator's fit_prepared runs."""
    with pytest.raises(ParameterError) as refused:
        release(template, "objective", Budget(1.0), warm_start=start, rng=0)
    assert "'warm_start'" in str(refused.value)
    with pytest.raises(ParameterError):
        check_warm_start(template, start)


def test_an_unregistered_mechanism_name_is_refused_as_an_argument_of_release(template):
    """As release's other refusals: its 'mechanism' argument, not a parameter of dpconvex."""
    with pytest.raises(ParameterError) as refused:
        release(template, "Objective", Budget(1.0), rng=0)
    assert str(refused.value).startswith("The 'mechanism' argument of release must be one of")
