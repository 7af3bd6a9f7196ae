"""A schema released by ``draft_schema``: what it reads, what it costs, what it releases.

docs/privacy/bounds.md#privacy-bounds. A released range reads its column through the counts of the
public grid only (privacy-bounds-grid), so a table whose every value is replaced by another value of the
same grid cell gives the same schema for the same seed; a vocabulary reads the categories'
counts only. Two neighbouring tables (one record replaced) give schemas that differ only in
the released numbers: the same certificate, the same kinds of declarations, no warning on
either but the note of a range released at the grid's end (``grid_end_note``, a function of
the released range). The remaining tests: coverage of a released range, the δ = 0 refusal, declared
columns, the ledger, the encoder, ``to_code`` and the pickled release.
"""

from __future__ import annotations

import io
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

import dpconvex as dp
import dpconvex.privacy.bounds as bounds_module
import dpconvex.templates.statistics as statistics_module
from dpconvex.data.log_grid import cell_edges, cell_of
from dpconvex.data.tables import category_texts, dtype_kind
from dpconvex.errors import PrivacyLeakWarning
from dpconvex.privacy.bounds import (
    column_budgets,
    grid_end_note,
    release_range,
    release_vocabulary,
)
from dpconvex.privacy.budget import Budget
from dpconvex.privacy.rules.bounds import refine_range


def _table(n: int = 3000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    score = rng.normal(0, 3, n)
    score[::50] = np.nan  # missing values: counted in no cell
    return pd.DataFrame({
        "income": rng.lognormal(10, 1, n),
        "score": score,
        "tiny": np.where(rng.random(n) < 0.5, 0.0, rng.normal(0, 1e-7, n)),  # the middle cell
        "visits": rng.integers(100, 5000, n),
        "plan": rng.choice(["basic", "pro", "team"], n, p=[0.6, 0.35, 0.05]),
        "active": rng.random(n) < 0.3,
    })


#: The kind of the table's text column (its dtype is a reader's: declared, privacy-bounds-grid).
TABLE_KINDS = {"plan": "categorical"}

#: The note of the table's 'tiny' column, released as the grid's cell around 0: the tests
#: that check the warnings record it (``_notes``), the others let it pass.
pytestmark = pytest.mark.filterwarnings(
    "ignore:draft_schema. the released range of the values of column 'tiny':"
    "dpconvex.errors.PrivacyWarning")


def _same_cell(values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Every value replaced by another value of its grid cell (integers by integers)."""
    edges = cell_edges()
    out = values.astype(float).copy()
    finite = np.isfinite(out)
    cells = cell_of(out[finite])
    lo, hi = edges[cells], edges[cells + 1]
    if values.dtype.kind in "iu":
        replacement = np.ceil(lo) + np.floor(rng.random(cells.size) * (np.ceil(hi) - np.ceil(lo)))
    else:
        replacement = lo + (0.05 + 0.9 * rng.random(cells.size)) * (hi - lo)
    assert np.array_equal(cell_of(replacement), cells)
    out[finite] = replacement
    return out.astype(values.dtype)


def _replaced_in_cells(df: pd.DataFrame, seed: int) -> pd.DataFrame:
    """The table with every number replaced by another of its cell and the other columns' rows shuffled
    (a permutation keeps every category's count)."""
    rng = np.random.default_rng(seed)
    out = df.copy()
    for name in ("income", "score", "tiny", "visits"):
        out[name] = _same_cell(df[name].to_numpy(), rng)
    for name in ("plan", "active"):
        out[name] = rng.permutation(df[name].to_numpy())
    assert not out.equals(df)
    return out


def _draft(df, **kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        schema = dp.draft_schema(df, **{"epsilon": 1.0, "delta": 1e-6, "kinds": TABLE_KINDS,
                                        **kw})
    return schema, [(w.category.__name__, str(w.message)) for w in caught]


def _notes(schema):
    """The warnings of a drafted schema's ranges at the grid's end, from the released ranges."""
    notes = (grid_end_note(lo, hi, f"values of column {name!r}", "draft_schema")
             for name, (lo, hi) in schema.numeric.items())
    return [("PrivacyWarning", note) for note in notes if note is not None]


# ------------------------------------------------------------------ what is read
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_value_replaced_inside_its_grid_cell_gives_the_same_schema(seed):
    """The ranges read the grid's counts and the vocabularies the categories' counts, nothing
    else: the same counts and the same seed give the same schema, bit for bit."""
    df = _table()
    a, warned_a = _draft(df, random_state=seed)
    b, warned_b = _draft(_replaced_in_cells(df, seed + 10), random_state=seed)
    assert pickle.dumps(a) == pickle.dumps(b) and str(a.release) == str(b.release)
    assert warned_a == warned_b == _notes(a)  # the note of 'tiny', at the cell around 0


def test_a_refined_range_reads_the_cell_counts_only():
    """n = 100,000 at ε = 1: the rule refines (privacy-bounds-range); the same cell counts, the same range."""
    rng = np.random.default_rng(4)
    values = rng.lognormal(3, 1, 100_000)
    assert refine_range(values.size, 1.0, (0.01, 0.99)).refine
    a = release_range(values, Budget(1.0), rng=5)
    b = release_range(_same_cell(values, rng), Budget(1.0), rng=5)
    assert a[:3] == b[:3] and str(a[3]) == str(b[3])


def test_a_coarse_range_reads_the_octave_counts_only():
    """n = 3,000 at ε = 1: the coarse range only. A record replaced by a value in another cell
    of its octave leaves the octave counts, hence the range and the median, unchanged for
    the same seed."""
    values = np.random.default_rng(6).lognormal(3, 1, 3000)
    assert not refine_range(values.size, 1.0, (0.01, 0.99)).refine
    other = values.copy()
    other[0] = 2.0 ** np.floor(np.log2(values[0]))  # the first cell of the same octave
    assert cell_of(other[:1]) != cell_of(values[:1])
    assert release_range(values, Budget(1.0), rng=7)[:3] == release_range(other, Budget(1.0),
                                                                           rng=7)[:3]


def test_the_grid_counts_are_computed_once_per_range_from_the_column_alone(monkeypatch):
    seen = []
    real = statistics_module.cell_counts

    def recording(values):
        seen.append(np.sort(np.asarray(values)))
        return real(values)

    monkeypatch.setattr(statistics_module, "cell_counts", recording)
    df = _table()
    dp.draft_schema(df, epsilon=1.0, delta=1e-6, kinds=TABLE_KINDS, random_state=0)
    numeric = [df[c].to_numpy(dtype=float) for c in ("income", "score", "tiny", "visits")]
    assert len(seen) == len(numeric)
    for got, column in zip(seen, numeric, strict=True):
        assert np.array_equal(got, np.sort(column[np.isfinite(column)]))


def test_same_seed_neighbours_differ_only_in_the_released_numbers():
    df = _table()
    other = df.copy()
    other.loc[0, "income"] = 1e12  # one record replaced: another octave, another plan
    other.loc[0, "score"] = -40.0
    other.loc[0, "plan"] = "enterprise"
    a, warned_a = _draft(df, random_state=3)
    b, warned_b = _draft(other, random_state=3)
    assert str(a.release) == str(b.release)
    assert warned_a == _notes(a) and warned_b == _notes(b)  # of the released ranges alone
    assert [note[1].split(":")[1] for note in warned_a] == [
        " the released range of the values of column 'tiny' is the private-range grid's cell "
        "around 0, (-2^-20, 2^-20) = +-9.5e-07"]
    assert list(a.declarations) == list(b.declarations)
    assert [type(d) for d in a.declarations.values()] == [type(d) for d in b.declarations.values()]
    assert a.release.epsilon == b.release.epsilon == 1.0


# ------------------------------------------------------------------ the kinds: public input
def _unread(*args, **kwargs):
    raise AssertionError("a value was read")


def _read_csv(column: str, tokens: list[str]) -> pd.DataFrame:
    """A one-column table as ``read_csv`` reads it: the dtype is the reader's inference."""
    return pd.read_csv(io.StringIO("\n".join([column, *tokens]) + "\n"))


def _survey_neighbours() -> tuple[pd.DataFrame, pd.DataFrame]:
    """3,000 ages read by ``read_csv``: one record's 'unknown' (a survey's missing marker)
    makes the column text; its neighbour, that record replaced by 30, is read as integers."""
    ages = [str(a) for a in np.random.default_rng(11).integers(18, 90, 3000)]
    with_unknown = _read_csv("age", ["unknown", *ages[1:]])
    without = _read_csv("age", ["30", *ages[1:]])
    assert dtype_kind(with_unknown["age"].dtype) in ("text", "object")
    assert without["age"].dtype.kind == "i"
    return with_unknown, without


@pytest.mark.parametrize("delta", [0.0, 1e-6])
def test_a_column_typed_by_its_reader_is_refused_without_its_kind(monkeypatch, delta):
    """privacy-bounds-grid: without ``kinds``, a column whose dtype is neither a number nor a bool is
    refused by name, with the ``kinds=`` line to write, before a value is read or the ledger
    charged: never released as a vocabulary (δ > 0) nor refused as one (δ = 0)."""
    monkeypatch.setattr(statistics_module, "cell_counts", _unread)
    monkeypatch.setattr(bounds_module, "_vocabulary", _unread)
    ledger = dp.BudgetAccountant(epsilon=2.0, delta=1e-5)
    with_unknown, _ = _survey_neighbours()
    with pytest.raises(dp.ParameterError, match=r"column\(s\) \['age'\] is not public.*"
                       r"kinds=\{'age': 'categorical'\}.*Nothing was read or spent"):
        dp.draft_schema(with_unknown, epsilon=1.0, delta=delta, accountant=ledger,
                        random_state=0)
    assert ledger.spent == (0.0, 0.0)


@pytest.mark.parametrize("delta", [0.0, 1e-6])
def test_with_its_kind_declared_both_neighbours_get_the_same_mechanism(delta):
    """privacy-bounds-grid: with ``kinds={"age": "numeric"}`` the record 'unknown' is a missing value, and
    the neighbours get the same plan: a range (``Numeric``) under the same certificate."""
    with_unknown, without = _survey_neighbours()
    a, warned_a = _draft(with_unknown, delta=delta, kinds={"age": "numeric"}, random_state=3)
    b, warned_b = _draft(without, delta=delta, kinds={"age": "numeric"}, random_state=3)
    assert type(a.declarations["age"]) is type(b.declarations["age"]) is dp.Numeric
    assert str(a.release) == str(b.release) and warned_a == warned_b == []
    assert "each column's kind is public: as given in 'kinds'" in str(a.release)


def test_a_token_that_is_not_a_number_is_missing_in_a_numeric_column(monkeypatch):
    """Each value is parsed alone: '23' and ' 42' are numbers, 'unknown', '', 'NA' and None
    are missing (counted in no cell, privacy-bounds-grid)."""
    seen = []
    real = statistics_module.cell_counts

    def recording(values):
        seen.append(np.sort(np.asarray(values)))
        return real(values)

    monkeypatch.setattr(statistics_module, "cell_counts", recording)
    tokens = np.array(["23", "unknown", "", "NA", " 42", None, 50, "7.5"], dtype=object)
    dp.draft_schema({"age": tokens}, epsilon=10.0, kinds={"age": "numeric"}, random_state=0)
    (got,) = seen
    assert got.tolist() == [7.5, 23.0, 42.0, 50.0]


def test_a_bool_column_with_a_missing_value_is_binary_when_declared():
    """One None makes a column of bools ``object``: refused without ``kinds``; with
    ``kinds={"flag": "binary"}`` it is ``Binary(positive=True)``, as its neighbour of dtype
    bool, under the same certificate."""
    rng = np.random.default_rng(12)
    x, flags = rng.normal(0, 1, 3000), (rng.random(3000) < 0.3).tolist()
    with_none = pd.DataFrame({"x": x, "flag": [None, *flags[1:]]})
    without = pd.DataFrame({"x": x, "flag": [True, *flags[1:]]})
    assert with_none["flag"].dtype == object and without["flag"].dtype == bool
    with pytest.raises(dp.ParameterError, match=r"\['flag'\] is not public.*"
                       r"kinds=\{'flag': 'categorical'\}"):
        dp.draft_schema(with_none, epsilon=1.0, delta=1e-6, random_state=0)
    a, _ = _draft(with_none, kinds={"flag": "binary"}, random_state=0)
    b, _ = _draft(without, kinds={"flag": "binary"}, random_state=0)
    assert a.declarations["flag"] == b.declarations["flag"] == dp.Binary(positive=True)
    assert str(a.release) == str(b.release)


def test_a_category_column_is_refused_without_its_kind():
    """A ``category`` dtype's categories may be the reader's (``dtype="category"``): its
    kind is declared, whatever the categories are."""
    codes = pd.Categorical(np.random.default_rng(13).choice([1, 2, 3], 3000))
    with pytest.raises(dp.ParameterError, match=r"\['code'\] is not public.*'code': category"):
        dp.draft_schema({"code": codes}, epsilon=1.0, random_state=0)
    schema, _ = _draft({"code": codes}, kinds={"code": "categorical"}, random_state=0)
    assert schema.categories["code"] == ("1", "2", "3")


def test_a_categorical_column_reads_each_value_text_whatever_its_number_dtype():
    """A reader makes a column of codes float when one record is missing: the codes' text
    is the same in every dtype, so the neighbours count the same categories."""
    codes = np.random.default_rng(14).choice([1, 2, 3], 3000)
    drafts = [_draft({"code": column}, kinds={"code": "categorical"}, random_state=0)[0]
              for column in (codes, codes.astype(float), codes.astype(str))]
    assert [d.categories["code"] for d in drafts] == [("1", "2", "3")] * 3


def test_whole_codes_have_the_text_of_the_integer_at_any_size():
    """Codes beyond 2⁵³ in a column a missing value made float have the int column's text, and an
    integer of any number of digits has its decimal text (no refusal of one long record)."""
    codes = np.array([10**16, 2 * 10**16])
    assert category_texts(codes) == category_texts(codes.astype(float)) == [
        "10000000000000000", "20000000000000000"]
    assert category_texts(np.array([10**5000, "a"], dtype=object)) == ["1" + "0" * 5000, "a"]
    schema = dp.PublicSchema({"c": dp.Categorical(("a",))})
    rows = dp.PublicEncoder(schema).fit_transform(
        pd.DataFrame({"c": pd.Series([10**5000, "a"], dtype=object)}))
    assert rows.tolist() == [[0.0, 1.0], [1.0, 0.0]]  # the long code in the other slot


def test_two_texts_of_one_number_in_a_released_vocabulary_keep_the_first():
    """'01' and '1' both frequent: the draft keeps the first released text of the number (a
    post-processing of the release), so it never refuses once the release is made."""
    values = np.array(["1"] * 1500 + ["01"] * 1500, dtype=object)
    schema = dp.draft_schema(pd.DataFrame({"code": values}), epsilon=1.0, delta=1e-6,
                             kinds={"code": "categorical"}, random_state=0)
    assert schema.categories["code"] == ("01",)


def test_the_refusal_of_a_text_column_sends_a_yes_no_column_to_declared_and_that_encodes():
    """Binary(positive=True) matches no text, so the refusal sends a column of "yes"/"no" to
    'declared' with its positive text; following it drafts a schema the encoder takes."""
    df = pd.DataFrame({"age": np.arange(3000) % 70 + 18.0, "smoker": ["yes", "no", "no"] * 1000})
    with pytest.raises(dp.ParameterError, match=r"a yes/no column of text goes in 'declared', e\.g\. "
                                                r"declared=\{'smoker': Binary\(positive='yes'\)\}"):
        dp.draft_schema(df, epsilon=1.0, random_state=0)
    schema = dp.draft_schema(df, epsilon=1.0, random_state=0, declared={"smoker": dp.Binary(positive="yes")})
    assert np.asarray(dp.PublicEncoder(schema).fit_transform(df))[:3, 1].tolist() == [1 / np.sqrt(2), 0, 0]


def test_a_released_value_named_as_the_other_slot_encodes_in_it():
    """A frequent value '<other>' would name a second '<other>' feature: the draft leaves it out of
    the vocabulary (a post-processing of the release), where it encodes in the other slot."""
    values = np.array(["a"] * 1500 + ["<other>"] * 1500, dtype=object)
    ledger = dp.BudgetAccountant(epsilon=2.0, delta=1e-5)
    schema = dp.draft_schema(pd.DataFrame({"plan": values}), epsilon=1.0, delta=1e-6, accountant=ledger,
                             kinds={"plan": "categorical"}, random_state=0)
    assert schema.categories["plan"] == ("a",) and ledger.spent == (1.0, 1e-6)
    rows = dp.PublicEncoder(schema).fit_transform(pd.DataFrame({"plan": ["<other>"]}))
    assert np.asarray(rows).tolist() == [[0.0, 1.0]]


@pytest.mark.parametrize("columns, declared, message", [
    (["plan", "plan=a"], None, r"column 'plan' is encoded as features named 'plan=<category>', which the "
                               r"name\(s\) of column\(s\) \['plan=a'\] could repeat"),
    (["plan", "plan=<other>"], {"plan": dp.Categorical(("a",))}, r"feature names \['plan=<other>'\] repeat"),
])
def test_feature_names_a_release_could_repeat_are_refused_before_anything_is_charged(
        monkeypatch, columns, declared, message):
    monkeypatch.setattr(statistics_module, "cell_counts", _unread)
    monkeypatch.setattr(bounds_module, "_vocabulary", _unread)
    df = pd.DataFrame({columns[0]: ["a", "b"] * 1500, columns[1]: np.linspace(0.0, 1.0, 3000)})
    ledger = dp.BudgetAccountant(epsilon=2.0, delta=1e-5)
    with pytest.raises(dp.ParameterError, match=message + r".*Nothing was read or spent"):
        dp.draft_schema(df, epsilon=1.0, delta=1e-6, accountant=ledger, random_state=0, declared=declared,
                        kinds=None if declared else {"plan": "categorical"})
    assert ledger.spent == (0.0, 0.0)


def test_a_declared_category_a_release_could_repeat_is_refused_before_anything_is_charged(monkeypatch):
    """A declared category 'a=b' of column 'plan' is the feature 'plan=a=b', which the released
    vocabulary of a column 'plan=a' names for its category 'b'."""
    monkeypatch.setattr(statistics_module, "cell_counts", _unread)
    monkeypatch.setattr(bounds_module, "_vocabulary", _unread)
    df = pd.DataFrame({"plan": ["a=b", "c"] * 1500, "plan=a": ["b", "d"] * 1500})
    ledger = dp.BudgetAccountant(epsilon=2.0, delta=1e-5)
    with pytest.raises(dp.ParameterError, match=r"column 'plan=a' is encoded as features named "
                       r"'plan=a=<category>', which the name\(s\) of column\(s\) \['plan'\] could repeat"
                       r".*Nothing was read or spent"):
        dp.draft_schema(df, epsilon=1.0, delta=1e-6, accountant=ledger, random_state=0,
                        declared={"plan": dp.Categorical(("a=b", "c"))}, kinds={"plan=a": "categorical"})
    assert ledger.spent == (0.0, 0.0)


def test_a_table_with_a_repeated_column_name_is_refused_before_anything_is_charged():
    df = pd.DataFrame(np.ones((50, 2)), columns=["a", "a"])
    ledger = dp.BudgetAccountant(epsilon=1.0)
    with pytest.raises(dp.DataValidationError, match=r"repeats column name\(s\) \['a'\]"):
        dp.draft_schema(df, epsilon=1.0, accountant=ledger, random_state=0)
    assert ledger.spent == (0.0, 0.0)


@pytest.mark.parametrize("kinds, message", [
    ({"agee": "numeric"}, r"'kinds' names column\(s\) \['agee'\] that are not in the table"),
    ({"visits": "number"}, r"the kind of column 'visits' must be one of 'numeric', 'binary', "
                           r"'categorical'\. Got 'number' instead"),
    (["visits"], r"The 'kinds' parameter of draft_schema must be a mapping"),
    ({"plan": "categorical"}, r"\['plan'\] are in both 'declared' and 'kinds'"),
])
def test_bad_kinds_are_refused_before_anything_is_read_or_charged(monkeypatch, kinds, message):
    monkeypatch.setattr(statistics_module, "cell_counts", _unread)
    monkeypatch.setattr(bounds_module, "_vocabulary", _unread)
    ledger = dp.BudgetAccountant(epsilon=2.0, delta=1e-5)
    with pytest.raises(dp.ParameterError, match=message):
        dp.draft_schema(_table(), epsilon=1.0, delta=1e-6, accountant=ledger, random_state=0,
                        declared={"plan": dp.Categorical(("basic", "pro", "team"))}, kinds=kinds)
    assert ledger.spent == (0.0, 0.0)


def test_the_read_draft_takes_the_same_kinds():
    """Without ``epsilon`` (not private, it warns) ``kinds`` decides as well: the same call
    works both ways."""
    with_unknown, _ = _survey_neighbours()
    ages = pd.to_numeric(with_unknown["age"], errors="coerce")
    zeros_ones = {"visits": np.arange(3000) % 2}
    with pytest.warns(PrivacyLeakWarning):
        read = dp.draft_schema(with_unknown, kinds={"age": "numeric"})
        counts = dp.draft_schema(zeros_ones, kinds={"visits": "numeric"})
        unkinded = dp.draft_schema(with_unknown)
    assert read.declarations["age"] == dp.Numeric(ages.min(), ages.max(), drafted=True)
    assert counts.declarations["visits"] == dp.Numeric(0.0, 1.0, drafted=True)
    assert isinstance(unkinded.declarations["age"], dp.Categorical)


# ------------------------------------------------------------------ what it gives
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_released_range_covers_most_values(seed):
    values = np.random.default_rng(seed).lognormal(10, 1, 20_000)
    schema = dp.draft_schema({"income": values}, epsilon=1.0, random_state=seed)
    lo, hi = schema.numeric["income"]
    assert np.mean((values >= lo) & (values <= hi)) >= 0.95
    assert "income" in schema.log_scaled


def test_a_text_column_with_delta_zero_is_refused_by_name():
    with pytest.raises(dp.ParameterError, match=r"\['plan'\].*Declare them in 'declared'"):
        dp.draft_schema(_table(), epsilon=1.0, kinds=TABLE_KINDS, random_state=0)


def test_declared_columns_are_used_as_given_and_cost_nothing():
    df = _table()
    given = {"income": dp.Numeric(0.0, 1e6, log=True), "score": dp.Numeric(-10.0, 10.0),
             "tiny": dp.Numeric(-1.0, 1.0), "plan": dp.Categorical(("basic", "pro", "team"))}
    ledger = dp.BudgetAccountant(epsilon=3.0)
    schema = dp.draft_schema(df, epsilon=1.0, declared=given, accountant=ledger, random_state=0)
    for name, declaration in given.items():
        assert schema.declarations[name] == declaration
    (part,) = schema.release.parts  # the one released column takes the whole epsilon
    assert part.epsilon_requested == 1.0 and "'visits'" in part.mechanism
    assert ledger.spent == (1.0, 0.0)
    everything = {**given, "visits": dp.Numeric(0, 10_000), "active": dp.Binary()}
    nothing = dp.draft_schema(df, epsilon=1.0, declared=everything, accountant=ledger,
                              random_state=0)
    assert nothing.release.epsilon == 0.0 and ledger.spent == (1.0, 0.0)


def test_the_accountant_is_charged_exactly_epsilon_and_delta():
    ledger = dp.BudgetAccountant(epsilon=2.0, delta=1e-5)
    schema = dp.draft_schema(_table(), epsilon=1.0, delta=1e-6, kinds=TABLE_KINDS,
                             accountant=ledger, random_state=0)
    assert ledger.spent == (1.0, 1e-6)
    assert (schema.release.epsilon, schema.release.delta) == (1.0, 1e-6)
    assert [p.epsilon_requested for p in schema.release.parts] == [0.2] * 5  # 4 ranges, 1 vocabulary


def test_many_columns_compose_by_the_pld_accountant_within_the_budget():
    rng = np.random.default_rng(8)
    table = {f"x{k}": rng.normal(k, 1, 2000) for k in range(40)}
    ledger = dp.BudgetAccountant(epsilon=2.0, delta=1e-5)
    schema = dp.draft_schema(table, epsilon=1.0, delta=1e-6, accountant=ledger, random_state=0)
    release = schema.release
    assert release.quantities["composition"] == "PLD composition"
    assert column_budgets(Budget(1.0, 1e-6), 40, 0).range_epsilon > 1.0 / 40
    assert release.epsilon <= 1.0 and release.delta <= 1e-6
    assert ledger.spent == pytest.approx((release.epsilon, release.delta), rel=1e-12)


def test_a_range_with_too_little_epsilon_is_refused_before_anything_is_read(monkeypatch):
    """n·ε below MIN_RECORDS_EPSILON (public: n and the column's ε) is refused before a value
    is read or a budget is charged (docs/privacy/bounds.md#privacy-bounds-range)."""
    def unread(values):
        raise AssertionError("a value was read")

    monkeypatch.setattr(statistics_module, "cell_counts", unread)
    ledger = dp.BudgetAccountant(epsilon=2.0)
    table = {"a": np.arange(100.0), "b": np.arange(100.0)}  # 100 records at ε = 0.5 each
    with pytest.raises(dp.ParameterError, match=r"n \* epsilon >= 60 .*Nothing was read"):
        dp.draft_schema(table, epsilon=1.0, accountant=ledger, random_state=0)
    assert ledger.spent == (0.0, 0.0)
    y = np.arange(2000.0)  # a label range at 0.1 × 0.1: n·ε = 20
    model = dp.PrivateLinearRegression(epsilon=0.1, label_range="private", accountant=ledger)
    with pytest.raises(dp.ParameterError, match="the range of the labels needs"):
        model.fit(np.zeros((2000, 2)), y)
    assert ledger.spent == (0.0, 0.0)


# ------------------------------------------------------------------ what it releases
def test_the_encoder_does_not_warn_on_a_released_schema():
    df = _table()
    schema = dp.draft_schema(df, epsilon=1.0, delta=1e-6, kinds=TABLE_KINDS, random_state=0)
    assert not schema.suggested
    complete = df.dropna()  # the encoder refuses missing numbers (a public rule)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rows = dp.PublicEncoder(schema).fit_transform(complete)
    assert rows.shape[0] == len(complete) and np.all(np.isfinite(rows))


def test_to_code_carries_the_release():
    schema = dp.draft_schema(_table(), epsilon=1.0, delta=1e-6, kinds=TABLE_KINDS, random_state=0)
    code = schema.to_code()
    assert code.startswith("# Released by draft_schema at (epsilon, delta) = (1, 1e-06),")
    assert "docs/privacy/bounds.md#privacy-bounds" in code
    space: dict = {}
    exec(code, space)
    assert space["schema"].declarations == schema.declarations


def test_a_released_schema_declared_in_a_new_draft_keeps_its_release():
    """Columns a released schema declares in a later draft come from that release: the new
    schema's certificate composes both, and the ledger is charged for the new draft only."""
    df = _table()
    first = dp.draft_schema(df[["income", "score"]], epsilon=0.5, random_state=0)
    ledger = dp.BudgetAccountant(epsilon=2.0)
    second = dp.draft_schema(df[["income", "score", "visits"]], epsilon=1.0, declared=first,
                             accountant=ledger, random_state=0)
    assert ledger.spent == (1.0, 0.0)
    assert second.release.epsilon == 1.5 and second.release.parts[0] is first.release
    assert "released by draft_schema at epsilon = 1.5" in second.provenance


def test_a_release_is_taken_with_its_own_schema_only():
    """``PublicSchema(..., release=)`` takes the certificate draft_schema released with those
    declarations (its fingerprint), as the schema's code rebuilds them; another schema's
    release, or any other certificate, is refused: a certificate does not state a release
    nobody checked."""
    schema = dp.draft_schema(_table(), epsilon=1.0, delta=1e-6, kinds=TABLE_KINDS, random_state=0)
    namespace: dict = {}
    exec(schema.to_code("rebuilt"), namespace)  # the schema as code, then its release given
    rebuilt = dp.PublicSchema(namespace["rebuilt"].declarations, release=schema.release)
    assert rebuilt.fingerprint == schema.fingerprint and rebuilt.release is schema.release
    # released columns selected: post-processing of the release, which the selection keeps
    first = schema.features[:2]
    assert schema.select(list(first)).release is schema.release
    assert dp.PublicSchema({c: schema.declarations[c] for c in first}, release=schema.release)
    other = dp.draft_schema(_table(seed=1), epsilon=1.0, delta=1e-6, kinds=TABLE_KINDS, random_state=0)
    model = dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1], random_state=0).fit(
        np.eye(4), [0, 1, 0, 1])
    for release in (other.release, model.certificate_):
        with pytest.raises(dp.ParameterError, match="release= must be the certificate draft_schema"):
            dp.PublicSchema(schema.declarations, release=release)
    widened = {**schema.declarations, "extra": dp.Numeric(0.0, 1.0)}  # a column not released
    with pytest.raises(dp.ParameterError, match="release= must be the certificate draft_schema"):
        dp.PublicSchema(widened, release=schema.release)


def test_a_certificate_built_by_hand_is_no_schema_release():
    """A Certificate is a record anyone can build, with any epsilon and the schema's
    fingerprint in ``released``: ``PublicSchema(release=)`` refuses it, so a front door never
    states a release nobody made (one of a small epsilon would lower its own; a negative one
    is no certificate at all)."""
    base = dp.PublicSchema({c: dp.Numeric(-1, 1) for c in "abc"})
    with pytest.raises(dp.ParameterError, match="must be a number >= 0"):
        dp.Certificate("draft_schema", epsilon_requested=-0.9, epsilon=-0.9)
    for eps in (1e-9, 0.5):
        forged = dp.Certificate("draft_schema", epsilon_requested=eps, epsilon=eps,
                                released={"released schema": base.fingerprint})
        with pytest.raises(dp.ParameterError, match="certificate draft_schema returned"):
            dp.PublicSchema(base.declarations, release=forged)


def test_a_schema_release_is_kept_by_a_copy_and_refused_once_reloaded():
    """A copy of a released schema (sklearn.clone deep-copies it) keeps its release; one
    reloaded from a pickle holds a certificate this process did not issue, so the front door
    refuses to fit or certify on it before the ledger is charged, and a draft refuses it as
    ``declared``."""
    table = _table(n=400).fillna({"score": 0.0})
    schema = dp.draft_schema(table, epsilon=1.0, delta=1e-6, kinds=TABLE_KINDS, random_state=0)
    y = (table["score"] > 0).astype(int)
    door = dp.PrivateClassifier(schema=schema, classes=[0, 1], epsilon=1.0, random_state=0)
    copied = clone(door)
    assert copied.schema.release is schema.release and copied.schema == schema
    assert copied.certify(table, y).quantities["schema epsilon"] == schema.release.epsilon
    reloaded = pickle.loads(pickle.dumps(schema))
    ledger = dp.BudgetAccountant(5.0)
    door = dp.PrivateClassifier(schema=reloaded, classes=[0, 1], epsilon=1.0, random_state=0,
                                accountant=ledger)
    for call in (lambda: door.fit(table, y), lambda: door.certify(table, y)):
        with pytest.raises(dp.ParameterError, match="reloaded from a pickle"):
            call()
    assert ledger.spent == (0.0, 0.0)
    with pytest.raises(dp.ParameterError, match="reloaded from a pickle"):
        dp.draft_schema(table, epsilon=1.0, declared=reloaded, random_state=0)


@pytest.mark.parametrize("random_state", [0, None])
def test_the_release_pickles_without_a_generator(random_state):
    schema = dp.draft_schema(_table(), epsilon=1.0, delta=1e-6, kinds=TABLE_KINDS,
                             random_state=random_state)
    for obj in (schema.release, schema):
        blob = pickle.dumps(obj)
        assert b"Generator" not in blob and b"PCG64" not in blob and b"SeedSequence" not in blob
    assert str(pickle.loads(pickle.dumps(schema.release))) == str(schema.release)


@pytest.mark.parametrize("random_state", [None, 0])
def test_one_non_missing_value_does_not_change_the_vocabulary_certificate(random_state):
    # an all-missing column has nothing to release; its certificate is the release's, with the
    # seeded line where the caller seeded the noise, so no single value switches a line
    missing = [None] * 200
    one = ["pro"] + [None] * 199
    certificates = [release_vocabulary(v, Budget(1.0, 1e-6), rng=random_state)[1]
                    for v in (missing, one)]
    assert str(certificates[0]) == str(certificates[1])
    assert certificates[0].seeded == (random_state is not None)
    schemas = [dp.draft_schema(pd.DataFrame({"plan": pd.Series(v, dtype=object)}),
                               kinds={"plan": "categorical"}, epsilon=1.0, delta=1e-6,
                               random_state=random_state) for v in (missing, one)]
    assert str(schemas[0].release) == str(schemas[1].release)


def test_off_grid_and_missing_values_are_counted_for_the_data_holder_only():
    # An all-missing column and one beyond the grid (2^63) get ranges of no meaning; no count
    # warns (a data fact: the counts go to collect_diagnostics), only the note of a range
    # released at the grid's end (a function of the release), and the release is the same
    # with or without a collector.
    n = 2000
    df = pd.DataFrame({"empty": np.full(n, np.nan), "huge": np.full(n, 1e200),
                       "age": np.random.default_rng(0).integers(18, 90, n).astype(float)})
    plain, warned = _draft(df, epsilon=3.0, delta=0.0, kinds=None, random_state=0)
    with dp.collect_diagnostics() as diag:
        seen, warned_seen = _draft(df, epsilon=3.0, delta=0.0, kinds=None, random_state=0)
    assert seen.numeric == plain.numeric and warned == warned_seen == _notes(seen)
    assert "values of column 'huge' reaches the private-range grid's end" in warned[-1][1]
    assert diag.note("'empty' missing").count == n and diag.note("'huge' missing").count == 0
    assert diag.note("'huge' beyond").count == n and diag.note("'age' beyond").count == 0
    assert diag.note("'age' missing").n == n


def test_a_bool_column_of_a_list_of_records_reads_as_bools_whatever_another_column_holds(monkeypatch):
    """privacy-bounds-grid: NumPy reads bools among numbers as numbers, and as bools when one record's
    text elsewhere makes the list an object array; the vocabulary mechanism sees the bools' texts in both."""
    seen, release = [], bounds_module._vocabulary  # release_vocabulary inside the draft's hold

    def vocabulary(values, budget, **kw):
        seen.append(sorted({v for v in values if v is not None}))
        return release(values, budget, **kw)

    monkeypatch.setattr(bounds_module, "_vocabulary", vocabulary)
    rows = [[float(k % 10), k % 2 == 0, 1 + k % 2] for k in range(200)]
    kinds = {"x0": "numeric", "x1": "categorical", "x2": "categorical"}
    for table in (rows, [*rows[:-1], [5.0, True, "x"]]):
        dp.draft_schema(table, epsilon=4.0, delta=1e-6, kinds=kinds, random_state=0)
    assert seen[0] == seen[2] == ["False", "True"]


@pytest.mark.parametrize("delta", [0.0, 1e-6])
def test_a_column_given_as_a_list_needs_its_kind_whatever_its_values(monkeypatch, delta):
    """privacy-bounds-grid: NumPy reads a list of numbers as floats and the same list with one
    record 'unknown' as text; neither dtype is the caller's, so both neighbours are refused alike
    without ``kinds`` (nothing read or charged), and get one plan with it."""
    ages = [float(a) for a in range(20, 80)] * 2
    neighbours = ({"age": ages}, {"age": ["unknown", *ages[1:]]},
                  [[a] for a in ages], [["unknown"], *[[a] for a in ages[1:]]])
    monkeypatch.setattr(statistics_module, "cell_counts", _unread)
    monkeypatch.setattr(bounds_module, "_vocabulary", _unread)
    ledger = dp.BudgetAccountant(epsilon=2.0, delta=1e-5)
    for table in neighbours:
        with pytest.raises(dp.ParameterError, match=r"is not public.*values without a dtype.*"
                           r"Nothing was read or spent"):
            dp.draft_schema(table, epsilon=1.0, delta=delta, accountant=ledger, random_state=0)
    assert ledger.spent == (0.0, 0.0)
    monkeypatch.undo()
    plans = [type(dp.draft_schema(t, epsilon=1.0, delta=delta, kinds={name: "numeric"},
                                  random_state=0).declarations[name]).__name__
             for t, name in zip(neighbours, ("age", "age", "x0", "x0"), strict=True)]
    assert plans == ["Numeric"] * 4


def _delta_rows_warnings(caught) -> list[str]:
    return [str(w.message) for w in caught
            if issubclass(w.category, dp.errors.PrivacyWarning) and "1/n" in str(w.message)]


def test_a_draft_at_delta_of_one_over_n_warns_once_and_its_certificate_states_it():
    """A vocabulary's δ is the chance one record's category is published verbatim: a draft at
    δ >= 1/n warns as every fit does, and its certificate states it; below 1/n neither."""
    df = pd.DataFrame({"plan": ["basic"] * 120 + ["pro"] * 80})  # n = 200, 1/n = 0.005
    for delta, stated in ((0.2, True), (1e-6, False)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            schema = dp.draft_schema(df, epsilon=1.0, delta=delta, kinds={"plan": "categorical"},
                                     random_state=0)
        assert len(_delta_rows_warnings(caught)) == int(stated)
        assert any("1/n" in str(a) for a in schema.release.assumptions) is stated


def test_release_vocabulary_at_delta_of_one_over_n_warns_and_states_it():
    with pytest.warns(dp.errors.PrivacyWarning, match=r"release_vocabulary: delta = 0\.2 .*1/n"):
        _, certificate = release_vocabulary(["a"] * 150 + ["b"] * 50, Budget(1.0, 0.2), rng=0)
    assert any("1/n" in str(a) for a in certificate.assumptions)


def test_a_private_label_range_at_delta_of_one_over_n_warns_once_and_states_it():
    """The hold of a regressor's private label range checks δ against 1/n for the whole fit:
    one warning, and the composed certificate states it."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, (200, 3))
    y = np.clip(X @ np.array([0.5, -0.3, 0.2]), -1, 1)
    est = dp.PrivateLinearRegressor(label_range="private", epsilon=4.0, delta=0.2,
                                    random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X, y)
    assert len(_delta_rows_warnings(caught)) == 1
    assert any("1/n" in str(a) for a in est.certificate_.assumptions)


def _one_over_n_lines(certificate) -> list[list[str]]:
    """The δ >= 1/n lines of a certificate and of each of its parts, in order."""
    return [[str(a) for a in c.assumptions if "1/n" in str(a)]
            for c in (certificate, *certificate.parts)]


def test_a_private_label_range_certify_states_delta_of_one_over_n_as_the_fit():
    """A dry run states the δ >= 1/n line where the fit's certificate states it: on the
    composition (the fit's hold), not on the model part (held inside it); below 1/n nowhere."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, (200, 3))
    y = np.clip(X @ np.array([0.5, -0.3, 0.2]), -1, 1)
    est = dp.PrivateLinearRegressor(label_range="private", epsilon=4.0, delta=0.2,
                                    random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.errors.PrivacyWarning)
        fitted = _one_over_n_lines(est.fit(X, y).certificate_)
    assert len(fitted[0]) == 1 and not any(fitted[1:])
    assert _one_over_n_lines(est.certify(X, y)) == fitted
    assert _one_over_n_lines(est.certify(n=200, n_features=3)) == fitted
    assert not any(_one_over_n_lines(est.set_params(delta=1e-6).certify(n=200, n_features=3)))


# ------------------------------------------------------------------ a range at the grid's end
def _released(values, **kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lo, hi, _, _ = release_range(values, Budget(1.0), rng=0, **kw)
    return (lo, hi), [(w.category.__name__, str(w.message)) for w in caught]


@pytest.mark.parametrize("scale,where", [(1e-9, "is the private-range grid's cell around 0"),
                                         (5e19, "reaches the private-range grid's end")])
def test_a_range_released_at_the_grids_end_warns_from_the_release_alone(scale, where):
    """Values below 2^-20 or beyond 2^63 in magnitude: the released range is the grid's cell
    around 0 or reaches its end, and a PrivacyWarning says so, its text the function
    grid_end_note of the released bounds (the same text for any data releasing them)."""
    values = np.random.default_rng(0).uniform(1.0, 9.0, 3000) * scale
    (lo, hi), warned = _released(values, name="thickness")
    assert warned == [("PrivacyWarning", grid_end_note(lo, hi, "thickness"))]
    assert f"release_range: the released range of the thickness {where}" in warned[0][1]
    assert "Rescale them by a public constant" in warned[0][1]


def test_a_range_inside_the_grid_does_not_warn():
    """Ages (one to a hundred) and values from -1e6 to 1e6 are inside the grid: no note."""
    rng = np.random.default_rng(1)
    for values in (rng.integers(1, 100, 3000), rng.uniform(-1e6, 1e6, 3000)):
        (lo, hi), warned = _released(values)
        assert warned == [] and grid_end_note(lo, hi) is None


@pytest.mark.parametrize("cls", [dp.PrivateLinearRegressor, dp.PrivateRegressor])
def test_a_private_label_range_at_the_grids_end_warns(cls):
    """label_range="private" releases the labels' range by release_range: labels around 1e-8
    get the cell around 0, and its note names the labels and opens with the fit called."""
    rng = np.random.default_rng(2)
    X = rng.uniform(-0.5, 0.5, (3000, 2))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        reg = cls(epsilon=5.0, label_range="private", random_state=0).fit(
            X, rng.uniform(1e-8, 2e-8, 3000))
    notes = [str(w.message) for w in caught if "private-range grid" in str(w.message)]
    assert notes == [grid_end_note(*reg.label_range_, "labels", f"{cls.__name__}.fit")]
    assert notes[0].startswith(f"{cls.__name__}.fit: the released range of the labels ")
