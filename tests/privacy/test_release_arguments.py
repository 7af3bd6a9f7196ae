"""``release``'s arguments are checked before anything is read: a wrong one is refused by
name (ParameterError), never met as a raw TypeError/AttributeError inside a solver, nor read
as something else ('no' as True)."""

from __future__ import annotations

import numpy as np
import pytest

from dpconvex import Budget, release
from dpconvex.errors import ParameterError
from dpconvex.objectives import Logistic
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
    ("noise_warning", {"family": "nope", "owner": "A"}, r"'family' parameter of release's noise"),
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
