"""mechanism="auto": one rule, by δ and the template kind, stated in the certificate."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dpconvex as dp
from dpconvex.privacy.rules.mechanism import AUTO_MECHANISMS, resolve_mechanism


@pytest.mark.parametrize("kind", sorted(AUTO_MECHANISMS))
@pytest.mark.parametrize("delta", [None, 0, 0.0, 1e-6, 0.5])
def test_the_rule_reads_only_delta(kind, delta):
    got = resolve_mechanism("auto", delta, kind)
    pure, approximate = AUTO_MECHANISMS[kind]
    assert got.name == (approximate if delta else pure)
    assert "because delta" in got.reason


def test_a_named_mechanism_is_returned_as_given():
    assert resolve_mechanism("output", 1e-6, "linear_erm") == ("output", None)
    assert resolve_mechanism("auto", 1e-6, "no such kind") == ("auto", None)


def test_every_auto_mechanism_is_registered_for_its_kind():
    from dpconvex.privacy.mechanisms import mechanism_names, registered_name

    for kind, names in AUTO_MECHANISMS.items():
        for name in names:
            assert registered_name(name, kind) in mechanism_names(template_kind=kind), (kind, name)


def _binary(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return X, (X[:, 0] > 0).astype(int)


@pytest.mark.parametrize("cls", [dp.PrivateLogisticRegression, dp.PrivateHuberSVM,
                                 dp.PrivateLinearClassifier])
def test_delta_alone_selects_the_gaussian_mechanism_for_the_linear_learners(cls):
    X, y = _binary()
    pure = cls(epsilon=1.0, classes=[0, 1], random_state=0).fit(X, y)
    approx = cls(epsilon=1.0, delta=1e-6, classes=[0, 1], random_state=0).fit(X, y)
    assert pure.certificate_.delta == 0 and approx.certificate_.delta == pytest.approx(1e-6)
    assert "Gaussian" not in pure.certificate_.mechanism
    assert "Gaussian" in approx.certificate_.mechanism
    assert any("'gaussian_objective'" in a for a in approx.certificate_.assumptions)
    assert any("'objective'" in a and "delta = 0" in a for a in pure.certificate_.assumptions)


def test_delta_alone_works_on_every_estimator():
    """Every public estimator with a ``delta`` fits with only epsilon and delta set."""
    X, y = _binary(300)
    rng = np.random.default_rng(1)
    y3 = rng.integers(0, 3, size=300)
    for cls, labels in [(dp.PrivateLogisticRegression, y), (dp.PrivateHuberSVM, y),
                        (dp.PrivateLinearClassifier, y), (dp.PrivateLargeMarginGaussian, y3),
                        (dp.PrivateGaussianCentroid, y3), (dp.NoisyGradientDescent, y),
                        (dp.PrivateClassifier, y3), (dp.PrivateClassifier, y)]:
        classes = sorted(set(labels.tolist()))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", dp.PrivacyWarning)  # the noise warnings (§6.7)
            est = cls(epsilon=1.0, delta=1e-5, classes=classes, random_state=0).fit(X, labels)
        assert est.certificate_.delta == pytest.approx(1e-5), cls.__name__
        assert est.certificate_.epsilon <= 1.0 + 1e-12

