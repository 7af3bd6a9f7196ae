"""What a user's template returns from ``conditions()`` is read once, as a dpconvex
``Condition`` of built-in values (docs/privacy/user_objectives.md#privacy-user-template).

An object that answers otherwise at each read (a ``Condition`` subclass with a property, a
field of a ``str`` subclass, an object with a Condition's fields) is refused by name, so no
statement of the template skips the vouch for ``"template_conditions"``; a ``conditions`` set
on a shipped template's instance is the user's statement; and a statement naming a constant
of its own needs ``"template_conditions"`` as well.
"""

from __future__ import annotations

import pytest
from test_user_template_statements import PROBED, Claiming, _rows

import dpconvex as dp
from dpconvex.errors import PrivacyError
from dpconvex.objectives import Logistic
from dpconvex.privacy.certificate import Condition
from dpconvex.templates import LinearERMTemplate


class Toggling(Condition):
    """A Condition whose ``unverified`` names a constant at its first read only."""

    reads = 0

    @property
    def unverified(self):
        type(self).reads += 1
        return "sensitivity" if type(self).reads == 1 else ""

    @unverified.setter
    def unverified(self, value):
        pass


class TrueOnce(str):
    """A name whose truth holds at its first test only."""

    tests = 0

    def __bool__(self):
        type(self).tests += 1
        return type(self).tests == 1


class Duck:
    """A Condition's fields, not a Condition: ``holds`` False at its first read, then True."""

    name, how, detail, unverified, vouched = "row norm bound", "clipped", "||x|| <= 1", "", False
    reads = 0

    @property
    def holds(self):
        type(self).reads += 1
        return type(self).reads > 1


def _toggling():
    return Toggling("row norm bound", True, "enforced by clipping", "||x|| <= 1")


def _true_once():
    return Condition("row norm bound", True, "enforced by clipping", "||x|| <= 1",
                     unverified=TrueOnce("sensitivity"))


def _holds_one():
    return Condition("row norm bound", 1, "enforced by clipping", "||x|| <= 1")


@pytest.mark.parametrize("stated, match", [
    (_toggling, r"an object of type .*Toggling as a condition, not a dpconvex Condition"),
    (_true_once, r"a condition whose 'unverified' is of type .*TrueOnce, not str"),
    (Duck, r"an object of type .*Duck as a condition, not a dpconvex Condition"),
    (_holds_one, r"a condition whose 'holds' is of type int, not bool"),
])
def test_a_statement_that_is_not_a_condition_of_built_in_values_is_refused(stated, match):
    """Each form released before with the probed vouches only (a statement skipping the vouch,
    a certificate line unverified and not vouched for, a failing statement turned holding):
    refused by name, whatever is vouched."""
    X, y = _rows(scale=100.0)
    with pytest.raises(PrivacyError, match=r"release: the conditions\(\) of template "
                       r"'Claiming' gave " + match):
        dp.release(Claiming(X, y, q=100.0, stated=[stated()]), "objective", dp.Budget(1.0),
                   dry_run=True, vouch=(*PROBED, "template_conditions"))


def test_conditions_set_on_a_shipped_templates_instance_are_the_users_statements():
    """``t.conditions = lambda needs: [...]`` on a LinearERMTemplate: its conditions are the
    user's, refused unless "template_conditions" is vouched for, then stated as such."""
    X, y = _rows()
    template = LinearERMTemplate(Logistic(), 0.1, 1.0, X, y)
    template.conditions = lambda needs: [Condition(
        "labels in {-1, +1}", True, "checked on every label", "every label is -1 or +1")]
    with pytest.raises(PrivacyError, match=r"labels in \{-1, \+1\} \[template_conditions\]"):
        dp.release(template, "objective", dp.Budget(1.0), dry_run=True,
                   vouch=("grad_bound", "hessian"))
    cert = dp.release(template, "objective", dp.Budget(1.0), dry_run=True,
                      vouch=("grad_bound", "hessian", "template_conditions")).certificate
    (labels,) = [c for c in cert.conditions if c.name == "labels in {-1, +1}"]
    assert (labels.unverified, labels.vouched) == ("template_conditions", True)
    assert labels.detail == "the template states: checked on every label; every label is -1 or +1"


def test_a_method_the_shipped_conditions_call_set_on_the_instance_makes_them_statements():
    X, y = _rows()
    template = LinearERMTemplate(Logistic(), 0.1, 1.0, X, y)
    template._max_row_norm = lambda: 0.5  # the row norm bound's check, the user's code
    conds = dp.privacy.mechanisms.get_mechanism("objective").conditions(
        template, dp.Budget(1.0))
    row = next(c for c in conds if c.name == "row norm bound")
    assert row.unverified == "template_conditions"
    assert row.detail.startswith("the template states: enforced by clipping to the public bound")


def test_a_statement_naming_a_constant_of_its_own_needs_template_conditions_as_well():
    """A statement resting on "grad_bound" (which the caller vouches for the probed constants)
    does not borrow that vouch: the template's statement of it asks for its own."""
    X, y = _rows()
    stated = [Condition("row norm bound", True, "enforced by clipping", "||x|| <= 1",
                        unverified="grad_bound")]
    with pytest.raises(PrivacyError, match=r"row norm bound \(the template's statement\) "
                       r"\[template_conditions\]: the template states: enforced by clipping"):
        dp.release(Claiming(X, y, q=1.0, stated=stated), "objective", dp.Budget(1.0),
                   dry_run=True, vouch=PROBED)
    cert = dp.release(Claiming(X, y, q=1.0, stated=stated), "objective", dp.Budget(1.0),
                      dry_run=True, vouch=(*PROBED, "template_conditions")).certificate
    rows = {c.name: c for c in cert.conditions if c.name.startswith("row norm bound")}
    assert {(c.unverified, c.vouched) for c in rows.values()} == {
        ("grad_bound", True), ("template_conditions", True)}


def test_a_users_mechanisms_conditions_are_read_once_too():
    """A shipped mechanism with ``conditions`` set on the instance is the user's: what it
    returns is read once, the Condition subclass refused by name."""
    X, y = _rows()
    mech = dp.privacy.mechanisms.get_mechanism("objective")
    shipped = mech.conditions
    mech.conditions = lambda template, budget: [*shipped(template, budget), _toggling()]
    with pytest.raises(PrivacyError, match=r"release: the conditions\(\) of mechanism "
                       r"ObjectivePerturbation gave an object of type .*Toggling"):
        dp.release(LinearERMTemplate(Logistic(), 0.1, 1.0, X, y), mech, dp.Budget(1.0),
                   dry_run=True, vouch=("mechanism", "sensitivity"))
