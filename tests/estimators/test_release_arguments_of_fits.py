"""What an estimator hands its release is checked where the estimator checks it: a wrong
``solver``, ``max_iter`` or ``vouch`` is refused by name (ParameterError) by ``fit``, a wrong
``solver`` or ``max_iter`` (read off the estimator, not its plan) by ``fit_prepared`` after a
``set_params`` since the plan; a start point (``fit_prepared``'s ``warm_start``) of another
width than the template's parameters, not finite, or complex, is refused by name, in
``fit_prepared``'s, before anything is released. ``_release_checked``, the pipeline behind
``release``, releases what ``release`` does on the same arguments."""

from __future__ import annotations

import numpy as np
import pytest

import dpconvex as dp
from dpconvex import Budget, release
from dpconvex.errors import ParameterError
from dpconvex.objectives import Logistic
from dpconvex.privacy.mechanisms import get_mechanism
from dpconvex.privacy.release import _release_checked
from dpconvex.templates import LinearERMTemplate


def _rows(d: int = 3, n: int = 40) -> tuple[np.ndarray, np.ndarray]:
    X = np.random.default_rng(d).normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    return X, np.where(X[:, 0] > 0, 1.0, -1.0)


ESTIMATORS = {
    "classifier": lambda: dp.PrivateLinearClassifier(classes=[-1.0, 1.0], random_state=0),
    "regressor": lambda: dp.PrivateLinearRegressor(label_range=(-1.0, 1.0), label_center=0.0,
                                               random_state=0),
    "large margin": lambda: dp.PrivateLargeMarginGaussian(classes=[-1.0, 1.0], random_state=0),
}


class NotABackend:
    """An object with a ``solve``, which no ``solver=`` takes (a name or None only)."""

    def solve(self, *args, **kwargs):
        raise AssertionError("solve called")


def _parameter_of(name: str, est: object) -> str:
    """The start of the estimator's own refusal of its parameter ``name``."""
    return rf"^The '{name}' parameter of {type(est).__name__} must"


def _start_point_of(est: object) -> str:
    """The start of the refusal of a ``warm_start`` handed to the estimator's fit_prepared."""
    return rf"^The 'warm_start' argument of {type(est).__name__}\.fit_prepared must"


BAD_PARAMETERS = [("solver", NotABackend()), ("solver", object()), ("max_iter", 0),
                  ("vouch", ("no such constant",))]


@pytest.mark.parametrize("which", ESTIMATORS)
@pytest.mark.parametrize("name, value", BAD_PARAMETERS)
def test_fit_refuses_a_wrong_parameter_the_release_reads(which, name, value):
    est = ESTIMATORS[which]()
    if name not in est._parameter_constraints:
        pytest.skip(f"{type(est).__name__} has no {name}")
    # the estimator's own refusal (a backend's lookup names get_backend instead)
    with pytest.raises(ParameterError, match=_parameter_of(name, est)):
        est.set_params(**{name: value}).fit(*_rows())
    assert not hasattr(est, "certificate_")


@pytest.mark.parametrize("which", ESTIMATORS)
@pytest.mark.parametrize("name, value", BAD_PARAMETERS[:3])
def test_fit_prepared_refuses_a_parameter_set_after_the_plan(which, name, value):
    X, y = _rows()
    est = ESTIMATORS[which]()
    if name not in est._parameter_constraints:
        pytest.skip(f"{type(est).__name__} has no {name}")
    plan = est.plan_for(X, y)
    prep = est.prepare(X, y, plan)
    est.set_params(**{name: value})
    with pytest.raises(ParameterError, match=_parameter_of(name, est)):
        est.fit_prepared(prep, plan)
    assert not hasattr(est, "certificate_")


@pytest.mark.parametrize("which", ESTIMATORS)
def test_fit_prepared_refuses_a_start_point_of_another_width(which):
    """A start point for a fit on 3 columns, handed to a fit on 5: refused by name."""
    est = ESTIMATORS[which]()
    X, y = _rows(3)
    start = np.zeros(est.prepare(X, y, est.plan_for(X, y)).template.space.shape)
    X, y = _rows(5)
    plan = est.plan_for(X, y)
    prep = est.prepare(X, y, plan)
    assert start.size != np.prod(prep.template.space.shape)
    with pytest.raises(ParameterError, match=_start_point_of(est)):
        est.fit_prepared(prep, plan, warm_start=start)
    with pytest.raises(ParameterError, match=_start_point_of(est)):
        est.fit_prepared(prep, plan, warm_start=np.full(prep.template.space.shape, np.nan))
    # a start point of the template's width is taken
    fitted = est.fit_prepared(prep, plan, warm_start=np.zeros(prep.template.space.shape))
    assert fitted.n_features_in_ == 5


def test_release_checked_releases_what_release_does():
    X, y = _rows()
    template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y)
    public = release(template, "objective", Budget(1.0), rng=0)
    checked = _release_checked(template, get_mechanism("objective"), Budget(1.0), rng=0)
    # the same pipeline on the same seed: the same draws and solve, up to the solver's
    # tolerance (a template's solves are run afresh, forget_kept)
    np.testing.assert_allclose(checked.theta, public.theta, rtol=0, atol=1e-9)
    assert checked.certificate.seeded and public.certificate.seeded
    assert checked.certificate.mechanism_name == public.certificate.mechanism_name == "objective"


@pytest.mark.parametrize("which", ESTIMATORS)
def test_fit_prepared_refuses_a_complex_start_point(which):
    """A start point must be real: a float conversion would drop its imaginary part."""
    est = ESTIMATORS[which]()
    X, y = _rows()
    plan = est.plan_for(X, y)
    prep = est.prepare(X, y, plan)
    start = np.zeros(prep.template.space.shape, dtype=complex)
    start.flat[0] = 1 + 2j
    with pytest.raises(ParameterError, match=_start_point_of(est)):
        est.fit_prepared(prep, plan, warm_start=start)
    assert not hasattr(est, "certificate_")
