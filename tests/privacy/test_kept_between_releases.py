"""A template released again after the caller changed its records in place: the second
release's products read the records as they are, as its conditions do, not what a parameterization
or a space kept of them from the first release (features, a sparse copy).

Oracle: the release with the same noise seed from a new template over a copy of the changed
records (equal up to rounding: the same arithmetic on the same numbers).
"""

from __future__ import annotations

import numpy as np
import pytest

from dpconvex.data.preprocess import augment_and_scale
from dpconvex.privacy.budget import Budget
from dpconvex.privacy.release import release
from dpconvex.templates.feature_map import FeatureMap
from dpconvex.templates.large_margin import LargeMarginGaussianTemplate
from dpconvex.templates.large_margin_softmax import LargeMarginSoftmaxTemplate
from dpconvex.templates.parameterizations import SymmetricShift


def _symmetric_shift(Z, y):
    return LargeMarginGaussianTemplate(Z, y, n_classes=2, n_components=1, lam=0.1,
                                       parameterization=SymmetricShift), "objective", Budget(1.0)


def _feature_map(Z, y):
    return LargeMarginSoftmaxTemplate(
        Z, y, n_classes=2, lam=0.3, data_norm=1.0,
        feature_map=FeatureMap("diagonal", (0.5, 1.0, 0.25), 1.0, Z.shape[1] - 1),
    ), "gaussian_objective_lm", Budget(1.0, 1e-5)


@pytest.mark.parametrize("build", [_symmetric_shift, _feature_map],
                         ids=["symmetric shift: a CSR copy", "feature map: the features"])
def test_records_changed_in_place_between_releases_are_read_as_they_are(build):
    rng = np.random.default_rng(0)
    n, d = 80, 8  # 2 of 9 entries non-zero: SymmetricShift keeps a CSR copy
    X = np.zeros((n, d))
    X[np.arange(n), rng.integers(0, d, n)] = 0.9  # one-hot rows: mostly zeros
    y = rng.integers(0, 2, n)
    Z = augment_and_scale(X, data_norm=1.0)
    template, mechanism, budget = build(Z, y)
    release(template, mechanism, budget, rng=1)
    Z[:, :-1] = Z[::-1, :-1].copy()  # the records reordered in place: the same norms
    got = release(template, mechanism, budget, rng=2)
    fresh_template, _, _ = build(Z.copy(), y)
    fresh = release(fresh_template, mechanism, budget, rng=2)
    assert got.certificate.all_hold
    np.testing.assert_allclose(got.theta, fresh.theta, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("mechanism", ["objective", "output"])
def test_linear_erm_rows_changed_in_place_between_releases_are_read_as_they_are(mechanism):
    """LinearERMTemplate over the caller's dense rows (a margin loss: the label signs inside the
    products) keeps no signed copy of them: released again after the rows were reordered in
    place, it gives the release of a new template over the changed rows."""
    from dpconvex.objectives.losses import Logistic
    from dpconvex.templates.linear_erm import LinearERMTemplate

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    y = np.where(rng.random(X.shape[0]) > 0.5, 1.0, -1.0)
    template = LinearERMTemplate(Logistic(), 0.1, 1.0, X, y)
    release(template, mechanism, Budget(1.0), rng=1)
    X[:] = X[::-1].copy()  # the records reordered in place: the same norms
    got = release(template, mechanism, Budget(1.0), rng=2)
    fresh = release(LinearERMTemplate(Logistic(), 0.1, 1.0, X.copy(), y), mechanism,
                    Budget(1.0), rng=2)
    np.testing.assert_allclose(got.theta, fresh.theta, rtol=1e-9, atol=1e-12)


def test_a_cache_held_under_any_attribute_name_is_forgotten():
    """A part of the caller's keeping a transposed copy of sparse rows (named in its _caches),
    held under a name no template uses, inside a dict and a list: forget_kept reaches it, so its
    next product reads the entries as they are (doubled in place), not the copy kept before."""
    import scipy.sparse as sp

    from dpconvex.objectives.losses import Logistic
    from dpconvex.privacy.user_parts import forget_kept
    from dpconvex.templates.linear_erm import LinearERMTemplate

    class KeepsTransposed:
        _caches = ("AT",)

        def __init__(self, A):
            self.A, self.AT = A, None

        def rmatvec(self, v):
            if self.AT is None:
                self.AT = self.A.T.tocsr()
            return self.AT @ v

    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 4)) * (rng.uniform(size=(30, 4)) < 0.5)
    ops = KeepsTransposed(sp.csr_array(X))
    v = rng.normal(size=30)
    ops.rmatvec(v)  # a product: the transposed copy is kept
    template = LinearERMTemplate(Logistic(), 0.1, 1.0, X, np.where(X[:, 0] > 0, 1.0, -1.0))
    template.odd_holder = type("Holder", (), {})()
    template.odd_holder.things = {"rows": [ops]}
    ops.A.data *= 2.0
    forget_kept(template)
    np.testing.assert_allclose(ops.rmatvec(v), 2.0 * X.T @ v, rtol=1e-12, atol=1e-12)


def test_caches_named_in_a_list_are_forgotten_and_any_other_form_is_refused():
    """A class naming its caches in a list has them forgotten like a tuple's; a bare string
    (whose characters would be taken for names) or a non-str name is refused."""
    from dpconvex.errors import ParameterError
    from dpconvex.privacy.user_parts import forget_kept

    class Listed:
        _caches = ["_kept"]

    holder = Listed()
    holder._kept = np.ones(3)
    forget_kept({"part": holder})
    assert holder._kept is None
    for names in ("_kept", ("_kept", 3)):
        odd = type("Odd", (), {"_caches": names})()
        odd._kept = 1.0
        with pytest.raises(ParameterError, match=r"Odd\._caches is"):
            forget_kept([odd])
