"""What a user's template states of itself is its statement, not dpconvex's check
(docs/privacy/user_objectives.md#privacy-user-template).

A template of the user's answers ``conditions()`` with its own text ("row norm bound, enforced
by clipping"): the release names each such condition declared, not verified
(``"template_conditions"``) and refuses it unless the caller vouches for it; the comparison of
a CVXPY form with ``objective()`` is stated as the probe it is; a shipped template's conditions
are its checks, unchanged.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit

import dpconvex as dp
from dpconvex.errors import PrivacyError
from dpconvex.objectives import L2, Logistic
from dpconvex.privacy.certificate import Condition
from dpconvex.privacy.mechanisms import get_mechanism
from dpconvex.templates import EuclideanSpace, LinearERMTemplate, PrivacyConstants, RecordDomain

#: What a template of the user's says it needs vouched already (its probed constants, its
#: objective: docs/privacy/user_objectives.md#privacy-user-template).
PROBED = ("grad_bound", "hessian", "objective")


def _rows(n=40, d=3, scale=1.0, seed=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X *= scale / np.linalg.norm(X, axis=1, keepdims=True)
    return X, np.where(X[:, 0] > 0, 1.0, -1.0)


class Claiming:
    """Logistic regression written against dpconvex.templates.base, whose record domain and
    constants are honest for its rows of norm ``q`` while its own conditions state a row norm
    bound of 1 and labels in {-1, +1}."""

    name = "claiming"
    kind = "user"
    noise_symmetric = False
    residual_tol = 1e-6
    capabilities = frozenset({"objective", "smooth", "per_record"})

    def __init__(self, X, y, q, stated=None):
        self.X, self.y = X, y
        self.n, self.p = X.shape
        self.regularizer = L2(0.1)
        self.space = EuclideanSpace((self.p,))
        self.noise_shape = (self.p,)
        self.q = q
        self.record_domain = RecordDomain(self.p, q, labels=(-1.0, 1.0))
        self.stated = stated

    def record_gradients(self, w, X, y):
        m = y * (np.asarray(X) @ w)
        return (-y * expit(-m))[:, None] * np.asarray(X)

    def privacy_constants(self):
        return PrivacyConstants(self.q, 1, 0.25 * self.q**2, 0.1, self.p)

    def objective(self, w, b=None, extra_reg=0.0):
        b = np.zeros(self.p) if b is None else b
        m = self.y * (self.X @ w)
        reg = 0.1 + extra_reg
        val = np.mean(np.logaddexp(0, -m)) + 0.5 * reg * w @ w + b @ w / self.n
        grad = self.X.T @ (-self.y * expit(-m)) / self.n + reg * w + b / self.n
        return float(val), grad

    def residual(self, w, b=None, extra_reg=0.0):
        return float(np.linalg.norm(self.objective(w, b, extra_reg)[1]))

    @staticmethod
    def distance_bound(residual, mu):
        return residual / mu

    def conditions(self, needs):
        if self.stated is not None:
            return list(self.stated)
        return [Condition("row norm bound", True, "enforced by clipping",
                          "every row has ||x|| <= q = 1"),
                Condition("labels in {-1, +1}", True, "checked on every label",
                          "every label is -1 or +1")]

    def assumptions(self, needs):
        return ["a user's logistic template"]


def test_a_row_bound_the_template_states_and_its_rows_break_is_refused_unless_vouched_for():
    """Rows of norm 100 under a stated bound of 1 (the record domain honest at 100): the
    statement is the template's, so it is refused, naming it and the vouch to give, and
    released with that vouch, the certificate saying it was vouched for, not checked."""
    X, y = _rows(scale=100.0)
    with pytest.raises(PrivacyError, match=r"row norm bound \[template_conditions\]: the "
                       r"template states: enforced by clipping.*vouch=\('grad_bound', "
                       r"'hessian', 'objective', 'template_conditions'\)"):
        dp.release(Claiming(X, y, q=100.0), "objective", dp.Budget(1.0), rng=0, vouch=PROBED)
    released = dp.release(Claiming(X, y, q=100.0), "objective", dp.Budget(1.0), rng=0,
                          vouch=(*PROBED, "template_conditions"))
    conds = {c.name: c for c in released.certificate.conditions}
    for name in ("row norm bound", "labels in {-1, +1}"):
        c = conds[name]
        assert (c.unverified, c.vouched) == ("template_conditions", True), name
        assert c.how == "declared; vouched for by the caller (vouch=), not verified"
        assert c.detail.startswith("the template states: ")
    assert conds["row norm bound"].detail.endswith("every row has ||x|| <= q = 1")
    # what dpconvex checked itself is its own line: the rows against the domain's q = 100
    assert "rows of norm <= q = 100" in conds["records in the public record domain"].detail
    assert np.all(np.isfinite(released.theta))


def test_a_condition_the_template_states_as_failing_is_refused_whatever_is_vouched():
    X, y = _rows()
    failing = [Condition("row norm bound", False, "enforced by clipping", "rows exceed q")]
    with pytest.raises(PrivacyError, match=r"release: row norm bound: rows exceed q"):
        dp.release(Claiming(X, y, q=1.0, stated=failing), "objective", dp.Budget(1.0),
                   dry_run=True, vouch=(*PROBED, "template_conditions"))


def test_a_stated_condition_naming_an_unverified_constant_keeps_it_and_is_stated_too():
    """It keeps the constant it names, and the template's statement of it follows, declared,
    not verified, as every statement of the template."""
    X, y = _rows()
    declared = [Condition("utility bound", True, "declared, not verified", "declared 2",
                          unverified="sensitivity")]
    (c, stated) = get_mechanism("objective").conditions(Claiming(X, y, 1.0, stated=declared),
                                                        dp.Budget(1.0))
    assert (c.unverified, c.detail) == ("sensitivity", "declared 2")
    assert c.how == ("stated by the user's template, not checked by dpconvex; "
                     "declared, not verified")
    assert (stated.name, stated.unverified) == ("utility bound (the template's statement)",
                                                "template_conditions")
    assert stated.detail == "the template states: declared, not verified; declared 2"


def test_the_cvxpy_form_comparison_is_stated_as_the_probe_it_is():
    """A subclass of a shipped template is the user's: its CVXPY form is compared with its
    objective at one point, which the certificate says, naming no premise it rests on."""
    X, y = _rows()

    class Same(LinearERMTemplate):
        pass

    cert = dp.release(Same(Logistic(), 0.1, 1.0, X, y), "objective", dp.Budget(1.0),
                      dry_run=True, vouch=(*PROBED, "template_conditions")).certificate
    (form,) = [c for c in cert.conditions
               if c.name == "CVXPY form = objective over the parameter space"]
    assert form.how == "probed (a probe refutes, it does not prove)"
    assert "at one point theta and one noise b" in form.detail
    assert "judged by the template's residual()" in form.detail
    assert not form.unverified
    # the conditions its inherited conditions() stated are its statements, vouched for
    stated = [c for c in cert.conditions if c.unverified == "template_conditions"]
    assert {"row norm bound", "labels in {-1, +1}"} <= {c.name for c in stated}


@pytest.mark.parametrize("mechanism", ["objective", "output"])
def test_a_shipped_templates_conditions_are_its_own_checks_unchanged(mechanism):
    X, y = _rows()
    template = LinearERMTemplate(Logistic(), 0.1, 1.0, X, y)
    mech = get_mechanism(mechanism)
    stated = template.conditions(mech.needs)
    conds = mech.conditions(template, dp.Budget(1.0))
    assert conds[:len(stated)] == stated
    row = next(c for c in conds if c.name == "row norm bound")
    assert (row.how, row.unverified) == ("enforced by clipping to the public bound", "")
    cert = dp.release(template, mechanism, dp.Budget(1.0), dry_run=True).certificate
    assert not any(c.unverified for c in cert.conditions)
