"""The templates of one statistic compute it from the records, or name what they take on trust.

* ``BoundedMeanTemplate`` clips each value to [-1, 1] and sums: no caller's total, so the
  mean's sensitivity 2/n holds for any values;
* ``RangeTemplate`` and ``VocabularyTemplate`` count the values themselves: no caller's
  counts, so replacing one record moves them by at most 2 in L1;
* ``SelectionTemplate`` cannot recompute its utilities: a caller's sensitivity is
  "declared, not verified" and refused unless vouched for; dpconvex's own scorings (a
  function of dpconvex hands the utilities over) and the dry runs state it as derived when
  it is at least the Δu = 1 the docs derive.

Every test here is deterministic (fixed seeds or no noise drawn).
"""

from __future__ import annotations

import numpy as np
import pytest

from dpconvex._validation import NoiseSource
from dpconvex.data.log_grid import cell_edges
from dpconvex.errors import ParameterError, PrivacyError
from dpconvex.estimators.front_door import _select_release, dry_selection
from dpconvex.estimators.regression import mean_release
from dpconvex.privacy.bounds import release_range, release_vocabulary
from dpconvex.privacy.budget import Budget
from dpconvex.privacy.mechanisms.scalar import BoundedMeanTemplate, SelectionTemplate
from dpconvex.privacy.release import release
from dpconvex.templates.statistics import RangeTemplate, VocabularyTemplate

LEVELS = (0.01, 0.99)


# ------------------------------------------------------------------ the bounded mean
def test_the_mean_template_sums_the_values_clipped_to_the_unit_interval():
    """Values far outside [-1, 1] (an impossible total for n unit values) count as ±1 each."""
    values = np.array([1e6, -5.0, 0.25, 1.0, -1.0])
    template = BoundedMeanTemplate(values)
    assert template.n == 5
    assert template.total == pytest.approx(1.0 - 1.0 + 0.25 + 1.0 - 1.0, abs=1e-12)


def test_replacing_one_value_moves_the_total_by_at_most_twice_the_bound():
    """The condition the certificate states: |Σ − Σ′| <= 2 for any replaced value (exact up to
    the rounding of a sum of 200 unit floats, 1e-9)."""
    rng = np.random.default_rng(0)
    values = rng.normal(scale=10.0, size=200)
    base = BoundedMeanTemplate(values).total
    for i, v in zip(rng.integers(0, 200, 20), rng.normal(scale=1e3, size=20), strict=True):
        neighbour = values.copy()
        neighbour[i] = v
        assert abs(BoundedMeanTemplate(neighbour).total - base) <= 2.0 + 1e-9


@pytest.mark.parametrize("values", [30.0, [[0.5, 0.5]], [], [0.5, np.nan], ["a"]])
def test_a_total_or_anything_but_finite_values_is_refused(values):
    with pytest.raises(ParameterError, match="one finite value per record"):
        BoundedMeanTemplate(values)


def test_the_public_problem_alone_holds_no_total():
    template = BoundedMeanTemplate.of_problem(100)
    assert template.n == 100
    with pytest.raises(ParameterError, match="public problem"):
        _ = template.total


def test_mean_release_reads_one_value_per_record_and_its_dry_run_states_the_same():
    noise = NoiseSource(np.random.default_rng(3), seeded=True)
    fit = mean_release(np.full(50, 0.5), 50, 1.0, noise).certificate
    dry = mean_release(None, 50, 1.0, seeded=True).certificate
    assert fit.conditions == dry.conditions and fit.quantities == dry.quantities
    with pytest.raises(ParameterError, match="one value per record"):
        mean_release(np.full(50, 0.5), 100, 1.0, noise)


# ------------------------------------------------------------------ range and vocabulary
def test_the_range_template_counts_the_finite_values_itself():
    """The counts per cell of the public grid, worked out by hand (cells of 1/16 of an octave,
    numbered from the most negative; the middle cell is 1328): -7 in cell 963
    ((-7.25, -7]), 1 in 1649 ([1, 1.0625)), 2 and 2.1 both in 1665 ([2, 2.125)), 300 in 1779
    ([288, 304)); NaN and inf uncounted."""
    values = np.array([1.0, 2.0, 2.1, 300.0, np.nan, np.inf, -7.0])
    expected = {963: 1, 1649: 1, 1665: 2, 1779: 1}
    edges = cell_edges()
    assert [(float(edges[c]), float(edges[c + 1])) for c in expected] == [
        (-7.25, -7.0), (1.0, 1.0625), (2.0, 2.125), (288.0, 304.0)]
    counts = RangeTemplate(values, 7, LEVELS, refine=False).cell_counts
    assert {int(c): int(counts[c]) for c in np.flatnonzero(counts)} == expected


def test_replacing_one_value_moves_the_range_counts_by_at_most_two():
    rng = np.random.default_rng(1)
    values = rng.lognormal(3, 2, 100) * rng.choice([-1.0, 1.0], 100)
    base = RangeTemplate(values, 100, LEVELS, refine=False).cell_counts
    for i, v in zip(rng.integers(0, 100, 20), [np.nan, *rng.normal(scale=1e4, size=19)],
                    strict=True):
        neighbour = values.copy()
        neighbour[i] = v
        moved = RangeTemplate(neighbour, 100, LEVELS, refine=False).cell_counts - base
        assert int(np.abs(moved).sum()) <= 2


def test_more_values_than_records_are_refused_and_the_public_problem_holds_none():
    with pytest.raises(ParameterError, match="Give one value per record"):
        _ = RangeTemplate(np.arange(10.0), 5, LEVELS, refine=False).cell_counts
    with pytest.raises(ParameterError, match="public problem"):
        _ = RangeTemplate.of_problem(5, LEVELS, refine=False).cell_counts


def test_the_vocabulary_template_counts_the_categories_itself():
    values = np.array(["b", "a", "b", None, "c", "b"], dtype=object)
    template = VocabularyTemplate(values, 6)
    assert template.categories == ("a", "b", "c")
    assert template.category_counts.tolist() == [1, 3, 1]
    with pytest.raises(ParameterError, match="Give one value per record"):
        VocabularyTemplate(values, 4)


@pytest.mark.parametrize("values, got", [
    ("abc", "a str"), (b"abc", "a bytes"), (np.array([[1, 2], [3, 4]]), "an array of 2 dim"),
    (np.array(5.0), "an array of 0 dim"), ([[1.0, 2.0], [3.0, 4.0]], "a table"),
    ([["a"], ["b"]], "a table"), ((np.zeros(2), np.ones(2)), "a table")])
def test_a_text_or_a_table_is_no_column_of_categories_or_numbers(values, got):
    """A text's characters or a table's rows would be counted as records; refused by name."""
    calls = [(lambda: VocabularyTemplate(values, 4), "VocabularyTemplate.__init__"),
             (lambda: release_vocabulary(values, Budget(1.0, 1e-6), rng=0),
              "release_vocabulary"),
             (lambda: RangeTemplate(values, 4, LEVELS, refine=False), "RangeTemplate"),
             (lambda: RangeTemplate(lambda: values, 4, LEVELS, refine=False).cell_counts,
              "RangeTemplate.cell_counts"),
             (lambda: release_range(values, Budget(1.0), rng=0), "release_range")]
    for call, owner in calls:
        with pytest.raises(ParameterError, match=rf"{owner}.*: the values are {got}"):
            call()


def test_release_vocabulary_names_the_categories_the_template_kept():
    plans = ["basic"] * 600 + ["pro"] * 300 + ["rare"]
    kept, certificate = release_vocabulary(plans, Budget(1.0, 1e-6), rng=0)
    assert kept == ("basic", "pro") and certificate.quantities["records"] == 901


# ------------------------------------------------------------------ selection
def test_a_callers_sensitivity_is_declared_and_refused_unless_vouched_for():
    """An understated Δu (0.5 for mistake counts) is no longer certified as derived."""
    template = SelectionTemplate([-3.0, -10.0, -4.0], sensitivity=0.5, n=40)
    with pytest.raises(PrivacyError, match=r"utility sensitivity \[sensitivity\]"):
        release(template, "exponential", Budget(1.0), rng=0)
    released = release(template, "exponential", Budget(1.0), rng=0, vouch=("sensitivity",))
    (condition,) = [c for c in released.certificate.conditions
                    if c.name == "utility sensitivity"]
    assert condition.unverified == "sensitivity" and condition.vouched
    assert released.certificate.quantities["utility sensitivity"] == 0.5  # the declared Δu


def test_dpconvex_scorings_and_their_dry_runs_state_the_sensitivity_as_derived():
    """A front door's selection (its utilities computed by dpconvex) and its dry run state the
    same derived condition: nothing unverified, nothing vouched."""
    _, fitted = _select_release(np.array([-1.0, -30.0]), 1.0, 40, np.random.default_rng(0),
                               seeded=True)
    dry = dry_selection(2, 1.0, 40, seeded=True)
    assert fitted.conditions == dry.conditions
    (condition,) = [c for c in fitted.conditions if c.name == "utility sensitivity"]
    assert condition.how == "computed from public parameters"
    assert (condition.unverified, condition.vouched) == ("", False)
    assert SelectionTemplate.of_problem(2, 1.0, 40).noise_shape == (2,)


@pytest.mark.parametrize("sensitivity", [1e-9, 0.5, 0.999])
def test_a_sensitivity_below_the_derived_one_is_declared_even_for_the_public_problem(sensitivity):
    """The docs derive Δu = 1 for dpconvex's scorings: a smaller Δu, even over no utilities
    (a dry run) or dpconvex's own, is the caller's declaration, refused unless vouched for."""
    problem = SelectionTemplate.of_problem(3, sensitivity, 10)
    with pytest.raises(PrivacyError, match=r"utility sensitivity \[sensitivity\]"):
        release(problem, "exponential", Budget(1.0), dry_run=True)
    (condition,) = release(problem, "exponential", Budget(1.0), dry_run=True,
                           vouch=("sensitivity",)).certificate.conditions
    assert (condition.unverified, condition.vouched) == ("sensitivity", True)
    # a function compiled from dpconvex as the utilities (never called: conditions only)
    (ours,) = SelectionTemplate(_select_release, sensitivity, 10).conditions(("utilities",))
    assert ours.unverified == "sensitivity"


def test_an_overstated_sensitivity_of_dpconvex_scorings_stays_derived():
    """Δu = 2 over the public problem states more than the derived 1: only more noise."""
    (condition,) = SelectionTemplate.of_problem(3, 2.0, 10).conditions(("utilities",))
    assert (condition.how, condition.unverified) == ("computed from public parameters", "")


def test_a_selection_template_over_no_utilities_is_refused():
    with pytest.raises(ParameterError, match="of_problem builds"):
        SelectionTemplate(None, 1.0, 10)
    with pytest.raises(ParameterError, match="must be an int >= 1"):
        SelectionTemplate.of_problem(0, 1.0, 10)


def test_a_users_selection_template_has_its_sensitivity_declared_whatever_it_states():
    """A template class of the user's that states no condition is still refused unless its
    caller vouches for Δu (the checks of a user's template name it)."""

    class Silent(SelectionTemplate):
        def conditions(self, needs):
            return []

    template = Silent(np.array([-3.0, -10.0]), sensitivity=0.5, n=40)
    with pytest.raises(PrivacyError, match=r"\[sensitivity\]"):
        release(template, "exponential", Budget(1.0), rng=0)
    released = release(template, "exponential", Budget(1.0), rng=0, vouch=("sensitivity",))
    conditions = released.certificate.conditions
    assert [c.unverified for c in conditions if c.unverified] == ["sensitivity"]


def test_a_vocabulary_with_a_value_where_the_public_n_is_zero_is_refused():
    """A value given where the public number of records says there is none is refused, seen or
    missing; with no value given, nothing is released (the certificate of the release)."""
    for values in (["a"], ["a"] * 901, [None]):
        with pytest.raises(ParameterError, match="positive number of records"):
            release_vocabulary(values, Budget(1.0, 1e-6), n=0, rng=0)
    assert release_vocabulary([], Budget(1.0, 1e-6), n=0, rng=0)[0] == ()


def test_more_values_than_records_is_refused_by_the_number_given_not_seen():
    """The refusal reads the number of values given (public), never how many are missing."""
    with pytest.raises(ParameterError, match="3 values given for n = 2"):
        VocabularyTemplate(["a", None, None], 2)
    with pytest.raises(ParameterError, match="3 values given for n = 2"):
        _ = RangeTemplate(np.array([1.0, np.nan, np.nan]), 2, LEVELS, refine=False).cell_counts
