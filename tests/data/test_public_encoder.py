"""PublicEncoder and PublicSchema: per-record maps only, a fit that reads nothing, refusals by name.

The bundled loaders are checked against the encoder applied to the raw files read
independently with pandas: the rows must be equal bit for bit.
"""

from __future__ import annotations

import io
import math
import pickle
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import dpconvex as dp
from dpconvex import Binary, Categorical, Numeric, PublicEncoder, PublicSchema
from dpconvex.data.ranged_rows import SUGGESTED_SOURCE
from dpconvex.errors import DataTypeError, DataValidationError, ParameterError, PrivacyLeakWarning

pd = pytest.importorskip("pandas")

SCHEMA = PublicSchema({
    "age": Numeric(0, 100),
    "income": Numeric(0, 1e6, log=True),
    "region": Categorical(("north", "south", "east")),
    "smoker": Binary(positive="yes"),
    "id": None,
})


def frame(n: int = 40, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "age": rng.integers(-10, 130, n).astype(float),
        "income": rng.exponential(5e4, n),
        "region": rng.choice(["north", "south", "east", "west"], n),
        "smoker": rng.choice(["yes", "no"], n),
        "id": np.arange(n),
    })


# ------------------------------------------------------------------ the map
def test_the_map_by_hand():
    df = pd.DataFrame({"age": [150.0, 25.0], "income": [0.0, 1e6], "region": ["west", "south"],
                       "smoker": ["no", "yes"], "id": [7, 8]})
    Z = PublicEncoder(SCHEMA).fit_transform(df)
    assert SCHEMA.divisor == 2.0  # sqrt(2 numeric + 1 categorical + 1 binary)
    want = np.array([[1.0, 0.0, 0, 0, 0, 1, 0],      # 150 clipped to 100; west -> other
                     [0.25, 1.0, 0, 1, 0, 0, 1]]) / 2.0
    np.testing.assert_array_equal(Z, want)
    assert PublicEncoder(SCHEMA).fit(df).get_feature_names_out().tolist() == [
        "age", "income", "region=north", "region=south", "region=east", "region=<other>", "smoker"]


def test_log_scale_and_clipping():
    s = PublicSchema({"x": Numeric(0, 1e4, log=True)})
    Z = PublicEncoder(s).fit_transform(pd.DataFrame({"x": [-5.0, 0.0, 99.0, 1e9]}))
    np.testing.assert_allclose(Z[:, 0], [0.0, 0.0, math.log1p(99) / math.log1p(1e4), 1.0],
                               rtol=0, atol=1e-15)


def test_unknown_category_goes_to_other_or_to_an_empty_block():
    values = pd.DataFrame({"c": ["a", "zzz", None, "b"]})
    with_other = PublicEncoder(PublicSchema({"c": Categorical(("a", "b"))})).fit_transform(values)
    np.testing.assert_array_equal(with_other, [[1, 0, 0], [0, 0, 1], [0, 0, 1], [0, 1, 0]])
    no_other = PublicEncoder(PublicSchema({"c": Categorical(("a", "b"), other=False)}))
    np.testing.assert_array_equal(no_other.fit_transform(values), [[1, 0], [0, 0], [0, 0], [0, 1]])


def test_rows_bounded_and_unit_rows_and_data_norm():
    df = frame(200)
    for row_norm in ("none", "unit"):
        for q in (1.0, 3.0):
            Z = PublicEncoder(SCHEMA, row_norm=row_norm, data_norm=q).fit_transform(df)
            norms = np.linalg.norm(Z, axis=1)
            assert np.all(norms <= q * (1 + 1e-15))
            if row_norm == "unit":
                np.testing.assert_allclose(norms, q, rtol=1e-15)


def test_transform_is_per_record():
    df = frame(60, seed=1)
    enc = PublicEncoder(SCHEMA, row_norm="unit").fit(df)
    batch = enc.transform(df)
    for i in (0, 17, 59):
        np.testing.assert_array_equal(enc.transform(df.iloc[[i]]), batch[[i]])
    changed = df.copy()
    changed.loc[5, ["age", "income", "region"]] = [1e9, 1e12, "mars"]  # one record replaced
    rows = np.any(enc.transform(changed) != batch, axis=1)
    assert rows.tolist() == [i == 5 for i in range(60)]


# ------------------------------------------------------------------ fit reads nothing
def test_fit_reads_no_statistic():
    a, b = frame(30, seed=2), frame(500, seed=3)
    ea, eb = PublicEncoder(SCHEMA).fit(a), PublicEncoder(SCHEMA).fit(b)
    assert pickle.dumps(ea) == pickle.dumps(eb)
    fitted = sorted(k for k in vars(ea) if k.endswith("_"))
    assert fitted == ["feature_names_in_", "n_features_in_", "schema_"]
    assert ea.schema_ is SCHEMA
    assert list(ea.feature_names_in_) == list(SCHEMA.columns) and ea.n_features_in_ == 5


def test_refuses_frames_whose_columns_differ_by_name():
    df = frame(10)
    enc = PublicEncoder(SCHEMA).fit(df)
    cases = [
        (df.drop(columns="id"), r"missing column\(s\) 'id'\."),
        (df.assign(extra=1), r"not in the schema 'extra'\."),
        (df.rename(columns={"age": "Age"}), r"missing column\(s\) 'age'; .* 'Age'\."),
        (df[["income", "age", "region", "smoker", "id"]], "different order"),
    ]
    for bad, says in cases:
        with pytest.raises(DataValidationError, match=says):
            PublicEncoder(SCHEMA).fit(bad)
        with pytest.raises(DataValidationError):
            enc.transform(bad)
    with pytest.raises(DataValidationError, match="X\\[list\\(schema.columns\\)\\]"):
        PublicEncoder(SCHEMA).fit(df.drop(columns="id"))


@pytest.mark.parametrize("labels", ["MultiIndex", "ints"])
def test_a_frame_whose_labels_are_not_str_names_is_refused_under_a_named_schema(labels):
    """Swapped columns under labels that are not str names (a MultiIndex, ints) are refused
    by the encoder's fit, a front door's fit and plan_for's check alike, in the same words,
    and by a fitted encoder's transform in those words too (without the way out by position,
    which an encoder fitted on names refuses); a uniform schema reads such a frame by
    position."""
    from dpconvex.data.encoder import check_table_columns

    df = frame(10)
    swapped = df[["age", "income", "smoker", "region", "id"]].copy()  # the text columns swapped
    swapped.columns = (pd.MultiIndex.from_tuples([("x", c) for c in swapped.columns])
                       if labels == "MultiIndex" else list(range(5)))
    said = []
    for caller, call in (
            ("Demo.plan_for", lambda: check_table_columns(SCHEMA, swapped, "Demo.plan_for")),
            ("PublicEncoder.fit", lambda: PublicEncoder(SCHEMA).fit(swapped)),
            ("PublicEncoder.fit_transform", lambda: dp.PrivateClassifier(
                schema=SCHEMA, classes=[0, 1]).fit(swapped, np.arange(10) % 2))):
        with pytest.raises(DataValidationError, match="Name the columns as the schema does") \
                as refused:
            call()
        said.append(str(refused.value).removeprefix(f"{caller}: "))
    assert len(set(said)) == 1
    with pytest.raises(DataValidationError, match="swapped columns") as refused:
        PublicEncoder(SCHEMA).fit(df).transform(swapped)
    assert str(refused.value) == "PublicEncoder.transform: " + said[0].replace(
        ", or pass X.to_numpy() to read them by position", "")
    uniform = PublicSchema.every_column(Numeric(0, 1))
    values = np.random.default_rng(0).uniform(size=(4, 3))
    by_position = pd.DataFrame(values, columns=pd.MultiIndex.from_tuples([("x", "a")] * 3)
                               if labels == "MultiIndex" else [0, 1, 2])
    np.testing.assert_array_equal(PublicEncoder(uniform).fit_transform(by_position),
                                  PublicEncoder(uniform).fit_transform(values))


def test_numpy_is_read_by_position():
    s = PublicSchema.from_ranges([(0.0, 10.0), (-1.0, 1.0)])
    X = np.array([[5.0, 0.0], [20.0, -3.0]])
    enc = PublicEncoder(s).fit(X)
    assert not hasattr(enc, "feature_names_in_")
    np.testing.assert_array_equal(enc.transform(X), [[0.5, 0.5], [1.0, 0.0]] / np.sqrt(2))
    named = pd.DataFrame(X, columns=list(s.columns))
    np.testing.assert_array_equal(PublicEncoder(s).fit_transform(named), enc.transform(X))
    with pytest.raises(DataValidationError, match="3 column"):
        enc.transform(np.zeros((2, 3)))
    mixed = np.array([[30, "south", "yes", 1, 5e4]], dtype=object)[:, [0, 4, 1, 2, 3]]
    np.testing.assert_array_equal(PublicEncoder(SCHEMA).fit_transform(mixed),
                                  PublicEncoder(SCHEMA).fit_transform(pd.DataFrame(
                                      mixed, columns=list(SCHEMA.columns))))


# ------------------------------------------------------------------ dtype against declaration
PLAN = Categorical(("basic", "plus", "pro"))
CODES = [101, 202, 303, 101]  # values that must not appear in a message


def _states(cert, fact) -> bool:
    """Whether ``cert`` or one of its parts (depth first) states ``fact``."""
    return cert.states(fact) or any(_states(part, fact) for part in cert.parts)


def _tz_dates():
    return pd.Series(pd.to_datetime(["2020-01-01"] * 4)).dt.tz_localize("UTC")


@pytest.mark.parametrize("decl,column,says", [
    (PLAN, pd.Series(CODES), "holds numbers, .*no vocabulary entry .* is the text of any such value"),
    (PLAN, pd.Series(CODES, dtype="category"), "holds numbers"),
    (PLAN, pd.Series([*CODES[:3], None], dtype="Int64"), "holds numbers"),
    (Categorical(("x", "y")), pd.Series([101.0, np.nan, 202.0, 303.0]), "holds numbers"),
    (Categorical(("yes", "no")), pd.Series([True, False, True, True]), "Binary"),
    (PLAN, pd.Series(pd.to_datetime(["2020-01-01"] * 4)), "dates"),
    (Numeric(0, 1), pd.Series(["101", "202", "303", "101"]), "declared Numeric but holds text"),
    (Numeric(0, 1), pd.Series(["101"] * 4, dtype="string[python]"), "declared Numeric"),
    (Numeric(0, 1), pd.Series(["basic"] * 4, dtype="category"), "declared Numeric"),
    (Numeric(0, 1), _tz_dates(), "dates"),
    (Binary(positive=1), pd.Series(["101"] * 4, dtype="category"), "no text equals"),
    (Binary(positive="yes"), pd.Series(CODES), "Binary\\(positive=1\\)"),
    (Binary(positive=2), pd.Series([True, False, True, True]), "none of them equals"),
    (Binary(positive=0.5), pd.Series(CODES), "none of them equals"),
    (Binary(positive=True), _tz_dates(), "dates"),
])
def test_a_declaration_the_dtype_cannot_match_is_refused(decl, column, says):
    schema = PublicSchema({"c": decl})
    X = pd.DataFrame({"c": column})
    with pytest.raises(DataTypeError, match=f"column 'c' .*{says}") as caught:
        PublicEncoder(schema).fit(X)
    message = str(caught.value)
    assert not any(str(v) in message for v in CODES)  # the dtype and the declaration only
    with pytest.raises(DataTypeError):  # the same rule for a mapping of columns
        PublicEncoder(schema).fit({"c": column})


def test_a_vocabulary_of_codes_and_a_text_code_fits_whether_or_not_a_record_holds_the_text():
    """A code list of numbers and a text answer ("refused") encodes a column the reader made int
    (no record answered "refused") as one it made text: the refusal is for a vocabulary no value
    of the dtype can match, not for one entry that none matches, so one record switches nothing."""
    schema = PublicSchema({"c": Categorical(("1", "2", "3", "refused"))})
    as_int = pd.read_csv(io.StringIO("c\n1\n2\n3\n1\n"))
    as_text = pd.read_csv(io.StringIO("c\n1\n2\n3\nrefused\n"))
    assert as_int["c"].dtype.kind == "i" and as_text["c"].dtype.kind == "O"
    np.testing.assert_array_equal(PublicEncoder(schema).fit_transform(as_int)[:3],
                                  PublicEncoder(schema).fit_transform(as_text)[:3])


def test_the_refusal_of_names_over_codes_is_one_text_for_int_and_float_columns():
    """One missing value makes a reader's column of codes float: the refusal's text stays the same."""
    schema = PublicSchema({"c": Categorical(("yes", "no"))})
    texts = []
    for csv in ("c\n1\n2\n1\n", "c\n1\nNA\n1\n"):
        with pytest.raises(DataTypeError) as caught:
            PublicEncoder(schema).fit(pd.read_csv(io.StringIO(csv)))
        texts.append(str(caught.value))
    assert texts[0] == texts[1] and "holds numbers" in texts[0]


def test_the_dtype_rule_reads_no_value():
    """The refusal is decided, and worded, by the dtype alone: the same for any data."""
    schema = PublicSchema({"plan": PLAN})
    messages = set()
    for values in ([0, 1, 2], [7], [-5, 10**12]):
        with pytest.raises(DataTypeError) as caught:
            PublicEncoder(schema).fit(pd.DataFrame({"plan": values}))
        messages.add(str(caught.value))
    assert len(messages) == 1
    with pytest.raises(DataTypeError, match="column 'x0'"):  # an array: its dtype for every column
        PublicEncoder(PublicSchema({"x0": PLAN})).fit(np.array([[1], [2]]))


def test_what_the_dtype_allows_is_encoded():
    three = Categorical(("0", "1", "2"))
    cases = [
        (three, pd.Series([0, 2, 1])),
        (three, pd.Series([0, 2, 1], dtype="category")),
        (Categorical(("0.0", "1.5")), pd.Series([0.0, 1.5, 3.0])),
        (Categorical(("False", "True")), pd.Series([False, True, True])),
        (three, pd.Series(["0", "2", "1"])),  # text against a vocabulary of digits: not proven wrong
        (PLAN, pd.Series(["basic", 1, None], dtype=object)),  # an object column proves nothing
        (Binary(positive="1"), pd.Series([1, 0, 1])),
        (Binary(positive=1), pd.Series([True, False, True])),
        (Numeric(0, 10), pd.Series([1, 5, 9], dtype="category")),  # numeric categories
    ]
    for decl, column in cases:
        PublicEncoder(PublicSchema({"c": decl})).fit_transform(pd.DataFrame({"c": column}))
    # integer codes with a missing value are read as integers, not as floats ("1.0")
    for column in (pd.Series([0, None, 2], dtype="Int64"), pd.Series([0, None, 2], dtype="category")):
        Z = PublicEncoder(PublicSchema({"c": three})).fit_transform(pd.DataFrame({"c": column}))
        np.testing.assert_array_equal(Z, [[1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]])


def test_binary_text_rule_is_one_rule():
    """A numeric positive value over text: the same refusal from the dtype and from an object column."""
    schema = PublicSchema({"smoker": Binary(positive=1)})
    by_dtype, by_value = (pd.DataFrame({"smoker": pd.Series(["yes", "no"], dtype=dt)})
                          for dt in ("str", object))
    messages = []
    for X in (by_dtype, by_value):
        with pytest.raises(DataTypeError, match="binary column 'smoker' holds") as caught:
            PublicEncoder(schema).fit(X)
        messages.append(str(caught.value))
    assert messages[0].split(" holds ")[0] == messages[1].split(" holds ")[0]
    assert messages[0].split(", but ")[1] == messages[1].split(", but ")[1]


# ------------------------------------------------------------------ arrays after a named fit
def test_an_encoder_fitted_on_names_refuses_an_array():
    df = frame(6)
    enc = PublicEncoder(SCHEMA).fit(df)
    swapped = df[["income", "age", "region", "smoker", "id"]].to_numpy()
    for unnamed in (swapped, df.to_numpy()):
        with pytest.raises(DataValidationError, match=r"no column names.*schema's columns by name"):
            enc.transform(unnamed)
    with pytest.raises(DataValidationError, match=r"column labels are int labels, not the str"):
        enc.transform(df.set_axis(range(5), axis=1))  # a frame: its labels named, as fit names them
    np.testing.assert_array_equal(enc.transform({c: df[c] for c in df}), enc.transform(df))
    by_mapping = PublicEncoder(SCHEMA).fit({c: df[c] for c in df})
    with pytest.raises(DataValidationError, match="no column names"):
        by_mapping.transform(df.to_numpy())
    np.testing.assert_array_equal(by_mapping.transform(df), enc.transform(df))


@pytest.mark.filterwarnings("ignore::dpconvex.errors.PrivacyWarning")
def test_a_pipeline_and_an_estimator_fitted_on_a_frame_do_not_take_an_array_silently():
    from sklearn.pipeline import make_pipeline

    rng = np.random.default_rng(3)
    df = pd.DataFrame({"a": rng.normal(size=60), "b": rng.normal(size=60)})
    y = (df["a"] > 0).astype(int).to_numpy()
    schema = PublicSchema({"a": Numeric(-3, 3), "b": Numeric(-3, 3)})
    model = make_pipeline(PublicEncoder(schema),
                          dp.PrivateLogisticRegression(classes=[0, 1], random_state=0)).fit(df, y)
    with pytest.raises(DataValidationError, match="no column names"):
        model.predict(df[["b", "a"]].to_numpy())
    est = dp.PrivateLogisticRegression(classes=[0, 1], random_state=0).fit(df, y)
    with pytest.warns(UserWarning, match="X does not have valid feature names, but "
                                         "PrivateLogisticRegression was fitted with feature names"):
        est.predict(df.to_numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est.predict(df)


@pytest.mark.filterwarnings("ignore::dpconvex.errors.PrivacyWarning")
def test_a_front_door_on_a_schema_reads_a_mapping_of_columns_by_name_without_a_warning():
    df = frame(200, seed=4)
    y = (df["age"] > 50).astype(int).to_numpy()
    model = dp.PrivateClassifier(epsilon=1.0, classes=[0, 1], schema=SCHEMA, random_state=0).fit(df, y)
    columns = {c: df[c].tolist() for c in df}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(model.predict(columns), model.predict(df))
    with pytest.raises(DataValidationError, match=r"PrivateClassifier.predict: The feature names should"):
        model.predict(dict(reversed(columns.items())))


# ------------------------------------------------------------------ the drafted mark
def test_a_rebuilt_draft_keeps_its_mark():
    df = frame(20).drop(columns="id")
    with pytest.warns(PrivacyLeakWarning):
        draft = dp.draft_schema(df)
    rebuilt = PublicSchema(draft.declarations)
    assert rebuilt.suggested and rebuilt == draft and hash(rebuilt) == hash(draft)
    assert all(d.drafted for d in rebuilt.declarations.values())
    assert "drafted=True" in repr(rebuilt.declarations["age"]) and "suggested=True" in repr(rebuilt)
    with pytest.warns(PrivacyLeakWarning, match="drafted by draft_schema"):
        PublicEncoder(rebuilt).fit(df)
    # a schema that keeps any drafted declaration is a draft; one written in code is not
    reviewed_age = PublicSchema({**draft.declarations, "age": Numeric(0, 120)})
    assert reviewed_age.suggested and not reviewed_age.declarations["age"].drafted
    assert reviewed_age.declarations["income"].drafted
    assert reviewed_age.select(["income"]).suggested and not reviewed_age.select(["age"]).suggested
    reviewed = PublicSchema({c: replace(d, drafted=False) for c, d in draft.declarations.items()})
    assert not reviewed.suggested and reviewed != draft and draft != reviewed
    assert reviewed.feature_names == draft.feature_names
    assert Numeric(0, 1, drafted=True) != Numeric(0, 1) and repr(Numeric(0, 1)).endswith("log=False)")
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        PublicEncoder(reviewed).fit(df)
    # a schema declared suggested marks every feature column; the mark survives pickling
    flagged = PublicSchema(("a", "b"), numeric={"a": (0.0, 1.0)}, suggested=True)
    assert flagged.declarations["a"].drafted and pickle.loads(pickle.dumps(flagged)) == flagged
    with pytest.raises(ParameterError, match="'drafted'"):
        Categorical(("a",), drafted="yes")


def test_bad_values_and_parameters_are_named():
    df = frame(5)
    with pytest.raises(DataValidationError, match="'age' contains NaN"):
        PublicEncoder(SCHEMA).fit(df.assign(age=np.nan))
    with pytest.raises(DataTypeError, match="column 'age'"):
        PublicEncoder(SCHEMA).fit(df.assign(age="old"))
    with pytest.raises(DataValidationError, match="binary column 'smoker'"):
        PublicEncoder(SCHEMA).fit(df.assign(smoker=None))
    with pytest.raises(ParameterError, match="'schema'"):
        PublicEncoder({"age": Numeric(0, 1)}).fit(df)
    with pytest.raises(ParameterError, match="'row_norm'"):
        PublicEncoder(SCHEMA, row_norm="l2").fit(df)
    with pytest.raises(dp.NotFittedError):
        PublicEncoder(SCHEMA).transform(df)
    for bad in [lambda: Numeric(1, 0), lambda: Categorical("abc"), lambda: Categorical(("a", "a")),
                lambda: Binary(None), lambda: PublicSchema({"a": (0, 1)}),
                lambda: PublicSchema({"a": Numeric(0, 1)}, numeric={"a": (0, 1)})]:
        with pytest.raises(ParameterError):
            bad()


# ------------------------------------------------------------------ draft_schema
def test_draft_schema_warns_and_round_trips_through_to_code():
    df = frame(50).assign(flag=lambda d: (d["age"] > 50).astype(int), ok=True)
    with pytest.warns(PrivacyLeakWarning, match="read the data"):
        draft = dp.draft_schema(df)
    assert draft.suggested
    decl = draft.declarations
    assert decl["age"] == Numeric(df["age"].min(), df["age"].max(), drafted=True)
    assert decl["region"] == Categorical(("east", "north", "south", "west"), drafted=True)
    assert decl["flag"] == Binary(1, drafted=True) and decl["ok"] == Binary(True, drafted=True)
    code = draft.to_code()
    assert code.startswith("# Drafted by draft_schema")
    namespace: dict = {}
    exec(code, namespace)  # noqa: S102 - the printed source is meant to be pasted and run
    frozen = namespace["schema"]
    assert not frozen.suggested and frozen != draft  # a reviewed schema is not the draft
    assert frozen.declarations == {c: d if d is None else replace(d, drafted=False)
                                   for c, d in decl.items()}
    assert PublicSchema(frozen.declarations).to_code() == frozen.to_code()
    # the draft warns again at every fit; the frozen schema does not
    with pytest.warns(PrivacyLeakWarning, match="drafted by draft_schema"):
        Z = PublicEncoder(draft).fit_transform(df)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        np.testing.assert_array_equal(PublicEncoder(frozen).fit_transform(df), Z)


def test_to_code_of_a_bundled_schema_rebuilds_it():
    from dpconvex.datasets import ADULT_SCHEMA, KDDCUP99_SCHEMA

    # a long vocabulary of texts with spaces, a tab, a newline and quotes: whole items per line
    texts = dp.PublicSchema({"city": dp.Categorical(
        (*(f"city number {i} of the region" for i in range(6)), "a\tb", "a      b", "x\ny", 'q"z'))})
    for schema in (ADULT_SCHEMA, KDDCUP99_SCHEMA, SCHEMA, texts):
        namespace: dict = {}
        exec(schema.to_code(), namespace)  # noqa: S102
        assert namespace["schema"] == schema
        assert namespace["schema"].feature_names == schema.feature_names


# ------------------------------------------------------------------ scikit-learn
def test_sklearn_conventions():
    from sklearn.base import clone
    from sklearn.utils.estimator_checks import (
        check_get_params_invariance,
        check_no_attributes_set_in_init,
        check_parameters_default_constructible,
        check_set_params,
        check_transformers_unfitted,
    )

    enc = PublicEncoder(PublicSchema.from_ranges([(-5.0, 5.0)] * 5), row_norm="unit")
    for check in (check_no_attributes_set_in_init, check_get_params_invariance, check_set_params,
                  check_parameters_default_constructible, check_transformers_unfitted):
        check("PublicEncoder", enc)
    assert clone(enc).get_params() == enc.get_params()
    out = PublicEncoder(SCHEMA).set_output(transform="pandas").fit_transform(frame(8))
    assert list(out.columns) == list(SCHEMA.feature_names)



def test_set_params_refuses_a_name_that_is_no_parameter_setting_nothing():
    """As dpconvex's estimators: a ParameterError (a ValueError) listing the parameters, raised
    before any name of the call is set."""
    enc = PublicEncoder(SCHEMA, data_norm=1.0)
    with pytest.raises(ParameterError, match=r"^PublicEncoder.set_params: got 'n_jobs', which "
                       r"is not a parameter of PublicEncoder\. Set its parameters only: "
                       r"\['data_norm', 'row_norm', 'schema'\]\.$") as refused:
        enc.set_params(data_norm=2.0, n_jobs=2)
    assert isinstance(refused.value, ValueError) and enc.data_norm == 1.0
    assert enc.set_params(data_norm=2.0).data_norm == 2.0

def test_pipeline_in_ten_lines():
    rng = np.random.default_rng(7)
    df = pd.DataFrame({"age": rng.integers(18, 90, 400), "plan": rng.choice(["basic", "pro"], 400),
                       "visits": rng.poisson(3, 400)})
    y = (df["plan"] == "pro").astype(int).to_numpy()
    # --- the user's ten lines -------------------------------------------------------------
    from sklearn.pipeline import make_pipeline
    schema = PublicSchema({"age": Numeric(0, 120), "plan": Categorical(("basic", "pro")),
                           "visits": Numeric(0, 100, log=True)})
    model = make_pipeline(PublicEncoder(schema, row_norm="unit"),
                          dp.PrivateLogisticRegression(epsilon=1, classes=[0, 1], random_state=0))
    model.fit(df, y)
    accuracy = model.score(df, y)
    # ---------------------------------------------------------------------------------------
    assert accuracy > 0.9  # the label is one of the columns: a strong signal at eps = 1
    with pytest.raises(DataValidationError):
        model.predict(df[["plan", "age", "visits"]])


# ------------------------------------------------------------------ the bundled loaders
def _data_file(name: str) -> Path:
    from dpconvex.datasets import get_data_home

    path = Path(get_data_home()) / name
    if not path.is_file():
        pytest.skip(f"{name} is not in the data folder")
    return path


@pytest.mark.slow
@pytest.mark.parametrize("row_norm", ["none", "unit"])
def test_adult_loader_is_the_encoder_bit_for_bit(row_norm):
    from dpconvex.datasets import ADULT_SCHEMA, load_adult

    raw = pd.read_csv(_data_file("adult.data"), header=None, skipinitialspace=True,
                      na_values="?", names=[*ADULT_SCHEMA.columns, "income"]).dropna()
    Z = PublicEncoder(ADULT_SCHEMA, row_norm=row_norm).fit_transform(raw[list(ADULT_SCHEMA.columns)])
    X, _ = load_adult("train", row_norm=row_norm)
    assert Z.tobytes() == X.tobytes()


def test_breast_cancer_loader_is_the_encoder_bit_for_bit():
    import dataclasses

    from dpconvex.datasets import BREAST_CANCER_SCHEMA, load_breast_cancer_wisconsin

    cols = list(BREAST_CANCER_SCHEMA.columns)
    raw = pd.read_csv(_data_file("breast-cancer-wisconsin.data"), header=None, na_values="?",
                      names=["id", *cols, "class"]).dropna()
    log_centered = dataclasses.replace(BREAST_CANCER_SCHEMA, log_scaled=frozenset(cols),
                                       centered=True)
    for schema, encoding in ((BREAST_CANCER_SCHEMA, "linear"), (log_centered, "log-centered")):
        Z = PublicEncoder(schema).fit_transform(raw[cols])
        X, _ = load_breast_cancer_wisconsin(encoding=encoding)
        assert Z.tobytes() == X.tobytes()


def test_sklearn_loader_is_the_encoder_bit_for_bit():
    from sklearn.datasets import load_wine

    from dpconvex.datasets import SKLEARN_SCHEMAS, load_sklearn

    Z = PublicEncoder(SKLEARN_SCHEMAS["wine"]).fit_transform(load_wine(as_frame=True).data.to_numpy())
    assert Z.tobytes() == load_sklearn("wine")[0].tobytes()


@pytest.mark.slow  # reads the 494,021 records of the 10% file (about 10 s)
def test_kddcup99_loader_is_the_encoder_bit_for_bit():
    from dpconvex.datasets import KDDCUP99_SCHEMA, load_kddcup99

    cols = list(KDDCUP99_SCHEMA.columns)
    raw = pd.read_csv(_data_file("kddcup.data_10_percent.gz"), header=None,
                      names=[*cols, "label"], nrows=60_000)
    X, _ = load_kddcup99(row_norm="unit", shuffle=False)
    Z = PublicEncoder(KDDCUP99_SCHEMA, row_norm="unit").fit_transform(raw[cols])
    assert Z.tobytes() == X[:60_000].tobytes()


def test_a_front_door_given_a_draft_releases_no_guarantee_and_says_why():
    """A schema read from the data makes the fit's certificate that of a release that is not
    private (ε = ∞, as any step its certificate marks NOT private); the reviewed schema's is (1, 0)."""
    from dpconvex.data.schema import SUGGESTED_SOURCE

    df = frame(200).drop(columns="id")
    y = (df["age"] > 60).astype(int).to_numpy()
    with pytest.warns(PrivacyLeakWarning):
        draft = dp.draft_schema(df)
    reviewed = PublicSchema({c: replace(d, drafted=False) for c, d in draft.declarations.items()})
    for schema, public in ((draft, False), (reviewed, True)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cert = dp.PrivateClassifier(epsilon=1.0, classes=[0, 1], schema=schema,
                                        random_state=0).fit(df, y).certificate_
        model = cert if public else cert.parts[0]
        lines = [a for a in model.assumptions if "rows encoded record by record" in str(a)]
        assert len(lines) == 1 and ("as the caller declares it (not checked" in lines[0]) is public
        assert ("NOT public, and no guarantee covers them" in lines[0]) is not public
        # a sum of two parts' epsilon (the safeguard's): equal up to rounding
        assert cert.private is public and cert.epsilon == (pytest.approx(1.0, rel=1e-12) if public
                                                           else math.inf)
        assert (SUGGESTED_SOURCE in cert.assumptions) is not public


def test_every_route_of_a_draft_is_not_private_and_a_finite_ledger_refuses_it_before_the_data():
    """schema=, a pipeline after PublicEncoder(draft), feature_range=draft, the staged fit, a sweep
    and certify: ε = ∞ in the certificate; a ledger of finite budget refuses the fit and is left as
    it was; one without a limit records ε = ∞. A private search refuses such candidates before
    reading the data."""
    from sklearn.pipeline import make_pipeline

    df = frame(300).drop(columns="id")
    y = (df["age"] > 60).astype(int).to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        draft = dp.draft_schema(df)
        rows = PublicEncoder(draft).fit_transform(df)
        common = {"epsilon": 1.0, "classes": [0, 1], "random_state": 0}

        def staged(acc):
            nb = dp.PrivateGaussianNB(feature_range=draft, accountant=acc, **common)
            plan = nb.plan_for(np.asarray(rows), y)
            return nb.fit_prepared(nb.prepare(np.asarray(rows), y, plan), plan)

        def staged_rows(acc):  # the rows' mark, through the plan plan_for makes on them
            lr = dp.PrivateLogisticRegression(accountant=acc, **common)
            plan = lr.plan_for(rows, y)
            return lr.fit_prepared(lr.prepare(rows, y, plan), plan)

        fits = {
            "schema=": lambda acc: dp.PrivateClassifier(schema=draft, accountant=acc, **common).fit(df, y),
            "regressor schema=": lambda acc: dp.PrivateRegressor(
                schema=draft, label_range=(0, 200), accountant=acc, epsilon=1.0).fit(df, df["age"]),
            "pipeline": lambda acc: make_pipeline(PublicEncoder(draft), dp.PrivateClassifier(
                accountant=acc, **common)).fit(df, y)[-1],
            "feature_range=": lambda acc: dp.PrivateGaussianNB(feature_range=draft, accountant=acc,
                                                              **common).fit(rows, y),
            "staged": staged,
            "staged rows": staged_rows,
            "sweep": lambda acc: dp.epsilon_sweep(dp.PrivateLogisticRegression(
                classes=[0, 1], accountant=acc), rows, y, [0.5, 1.0], random_state=0).estimators[0][0],
        }
        for route, fit in fits.items():
            assert not fit(None).certificate_.private, route
            finite = dp.BudgetAccountant(epsilon=5.0)
            with pytest.raises(dp.BudgetError, match="on a schema read from the data"):
                fit(finite)
            assert finite.spent == (0.0, 0.0), route
            unlimited = dp.BudgetAccountant(epsilon=math.inf)
            fit(unlimited)
            assert math.isinf(unlimited.spent[0]), route
        dry = dp.PrivateClassifier(schema=draft, **common)
        assert not dry.certify(df, y).private and not dry.certify(
            n=300, n_features=len(draft.columns)).private
        searches = [dp.PrivateGridSearch(dp.PrivateLogisticRegression(classes=[0, 1]), {"lam": [0.01, 0.1]},
                                         epsilon=1.0, random_state=0),
                    dp.PrivateRandomSearch(dp.PrivateClassifier(schema=draft, classes=[0, 1]),
                                           {"data_norm": [0.5, 1.0]}, epsilon=1.0, random_state=0)]
        for search, X in zip(searches, (rows, df), strict=True):
            for call in (search.fit, search.certify):
                with pytest.raises(dp.PrivacyError, match="fitted on a schema read from the data"):
                    call(X, y)


def test_a_schema_given_to_the_encoder_and_the_estimator_is_refused_with_the_reason():
    from sklearn.pipeline import make_pipeline

    df = frame(100)
    y = (df["age"] > 60).astype(int).to_numpy()
    twice = make_pipeline(PublicEncoder(SCHEMA), dp.PrivateClassifier(classes=[0, 1], schema=SCHEMA))
    with pytest.raises(DataValidationError, match="encoded already: give the schema to one of the two"):
        twice.fit(df, y)


def test_a_dask_frame_is_refused_with_the_step_that_comes_first():
    """Drafting is how a schema is made: its refusal says where to draft, then how to encode."""
    import dask.dataframe as dd

    frame = dd.from_pandas(pd.DataFrame({"a": [1.0, 2.0] * 20}), npartitions=2)
    with pytest.raises(dp.DataTypeError, match=r"^draft_schema: .*draft the schema on rows in memory"):
        dp.draft_schema(frame, epsilon=1.0)
    with pytest.raises(dp.DataTypeError, match=r"Dask collection; encode a Dask DataFrame"):
        dp.PublicEncoder(dp.PublicSchema({"a": dp.Numeric(0, 3)})).fit_transform(frame)


def test_a_date_column_is_refused_with_the_way_to_leave_it_out():
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0] * 10, "when": pd.date_range("2020-01-01", periods=30)})
    with pytest.raises(dp.ParameterError, match=r"'when': None \(present, not used\)"):
        dp.draft_schema(frame)
    draft = dp.draft_schema(frame.drop(columns=["when"]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows = dp.PublicEncoder(dp.PublicSchema({**draft.declarations, "when": None})).fit_transform(frame)
    assert rows.shape == (30, 1)


def test_a_schema_that_encodes_nothing_is_refused_when_it_is_built():
    for columns in ({"id": None}, {}):
        with pytest.raises(ParameterError, match="uses no column"):
            PublicSchema(columns)
    with pytest.raises(ParameterError, match="when other=False"):
        Categorical((), other=False)
    assert PublicSchema({"plan": Categorical(())}).feature_names == ("plan=<other>",)
    with pytest.raises(ParameterError, match="column 'c'.*when other=False"):  # the tables' form
        PublicSchema(("a", "c"), numeric={"a": (0, 1)}, categories={"c": ()})
    for vocabulary in [("1", "1.0"), ("1e+20", "100000000000000000000")]:  # one number twice
        with pytest.raises(ParameterError, match="two texts of one number"):
            Categorical(vocabulary)


def test_a_bool_column_outside_its_numeric_range_is_refused_and_inside_it_is_read_as_0_1():
    frame = pd.DataFrame({"b": [True, False]})
    with pytest.raises(DataTypeError, match=r"Binary\(positive=True\)"):
        PublicEncoder(PublicSchema({"b": Numeric(18, 100)})).fit_transform(frame)
    Z = PublicEncoder(PublicSchema({"b": Numeric(0, 1)})).fit_transform(frame)
    assert np.asarray(Z).ravel().tolist() == [1.0, 0.0]
    for lo, hi in [(0.5, 2), (-1, 0.5)]:  # 0 and 1 clipped apart: they still differ
        Z = np.asarray(PublicEncoder(PublicSchema({"b": Numeric(lo, hi)})).fit_transform(frame))
        assert Z[0, 0] != Z[1, 0]


def test_a_repeated_column_is_named_as_repeated():
    frame = pd.DataFrame([[30, 40]], columns=["age", "age"])
    with pytest.raises(DataValidationError, match=r"repeats column name\(s\) \['age'\]"):
        PublicEncoder(PublicSchema({"age": Numeric(0, 100)})).fit(frame)


@pytest.mark.parametrize("vocabulary", [("0", "1", "2"), ("0.0", "1.0", "2.0")])
def test_a_missing_code_changes_no_other_records_encoding(vocabulary):
    """Integer codes match their int and float text alike: one missing or unlisted code, which
    makes the column float (or object), goes to <other> and leaves the other rows as they were."""
    codes = pd.Series([0, 1, 2, 1, 0, 2])
    schema = PublicSchema({"c": Categorical(vocabulary)})
    rows = PublicEncoder(schema).fit_transform(pd.DataFrame({"c": codes}))
    for odd in (np.nan, None, 2.5):
        column = codes.astype(object if odd is None else float)
        column[0] = odd
        other = PublicEncoder(schema).fit_transform(pd.DataFrame({"c": column}))
        assert np.array_equal(np.asarray(other)[1:], np.asarray(rows)[1:])
        assert np.asarray(other)[0].tolist() == [0.0, 0.0, 0.0, 1.0]
    flags = pd.DataFrame({"c": [1.0, np.nan, 0.0]})
    Z = PublicEncoder(PublicSchema({"c": Binary(positive="1")}))
    with pytest.raises(DataValidationError, match="missing"):
        Z.fit_transform(flags)
    assert np.asarray(Z.fit_transform(flags.fillna(0.0))).ravel().tolist() == [1.0, 0.0, 0.0]


def test_a_list_column_reads_each_value_as_given_whatever_the_other_records_hold():
    """A list that mixes text with numbers or NaN is not turned into text: one record's "x" leaves
    another record's 1.0 the code "1", and a NaN among texts is a missing value."""
    schema = PublicSchema({"c": Categorical(("1", "2", "x"))})
    for column in ([1.0, 2.0], [1.0, "x"], [1.0, None], (1.0, "x")):
        rows = np.asarray(PublicEncoder(schema).fit_transform({"c": column}))
        assert rows[0].tolist() == [1.0, 0.0, 0.0, 0.0]
    with pytest.raises(DataValidationError, match="missing"):
        PublicEncoder(PublicSchema({"b": Binary(positive="yes")})).fit_transform({"b": ["yes", np.nan]})
    rows_schema = PublicSchema({"age": Numeric(0, 100), "plan": Categorical(("a", "b"))})
    Z = PublicEncoder(rows_schema).fit_transform([[25, "a"], [50.0, "b"]])  # records as lists
    assert (np.asarray(Z) * rows_schema.divisor).tolist() == [[0.25, 1, 0, 0], [0.5, 0, 1, 0]]


def test_a_list_of_records_reads_a_bool_as_a_bool_whatever_the_other_records_hold():
    """NumPy reads bools among numbers as numbers: the records' bools encode alike (and the fit does
    not switch to a refusal) whether or not one record's text makes the list an object array."""
    schema = PublicSchema({"a": Numeric(0, 10), "b": Categorical(("False", "True", "0", "1")),
                           "c": Categorical(("1", "2"))})
    numbers = [[1.0, True, 1], [2.0, False, 2], [3.0, True, 1]]
    with_text = [*numbers[:2], [3.0, True, "unknown"]]
    a, b = (np.asarray(PublicEncoder(schema).fit_transform(X)) for X in (numbers, with_text))
    assert a[:2].tolist() == b[:2].tolist()
    names = PublicEncoder(schema).fit(numbers).get_feature_names_out()
    assert [name for name, v in zip(names, a[0], strict=True) if v and name.startswith("b=")] == ["b=True"]
    flags = PublicSchema({"b": Categorical(("False", "True"))})
    for column in ([True, False], [True, 2], [True, 0.5]):  # one column of a mapping
        assert np.asarray(PublicEncoder(flags).fit_transform({"b": column}))[0].tolist() == [0.0, 1.0, 0.0]
    codes = PublicSchema({"c": Categorical((str(2**60 + 1),))})
    for column in ([2**60 + 1, 5], [2**60 + 1, 0.5], [2**60 + 1, 2**63]):  # an int a float would round
        assert np.asarray(PublicEncoder(codes).fit_transform({"c": column}))[0].tolist() == [1.0, 0.0]


def test_a_masked_column_of_a_mapping_is_refused():
    schema = PublicSchema({"age": Numeric(0, 100), "plan": Categorical(("a", "b"))})
    for name, column in (("age", np.ma.array([1.0, 2.0], mask=[0, 1])),
                         ("plan", np.ma.array(["a", "b"], mask=[0, 1]))):
        table = {"age": [1.0, 2.0], "plan": ["a", "b"], name: column}
        with pytest.raises(DataValidationError, match=f"column '{name}' is a masked array"):
            PublicEncoder(schema).fit_transform(table)


def test_a_code_beyond_the_float_range_is_its_own_text():
    schema = PublicSchema({"c": Categorical(("1",))})
    column = pd.Series([10**400, 1], dtype=object)
    rows = np.asarray(PublicEncoder(schema).fit_transform(pd.DataFrame({"c": column})))
    assert rows.tolist() == [[0.0, 1.0], [1.0, 0.0]]  # <other>, then "1"


def test_minus_zero_and_zero_are_one_code_whichever_comes_first():
    schema = PublicSchema({"c": Categorical(("0.0", "1"))})
    for column in ([-0.0, 0.0, 1.0], [0.0, -0.0, 1.0]):
        rows = np.asarray(PublicEncoder(schema).fit_transform(pd.DataFrame({"c": column})))
        assert rows.tolist() == [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]


def test_a_models_certificate_names_a_schema_that_is_not_public_knowledge():
    """Rows a drafted or released schema encodes carry that fact to the model's certificate,
    through a pipeline and a private search alike (a drafted schema's candidates are not private:
    the search refuses them); a public schema's rows state nothing."""
    from sklearn.pipeline import make_pipeline

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(200, 2)), columns=["a", "b"])
    y = (X["a"] > 0).astype(int).to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        drafted = dp.draft_schema(X)
        released = dp.draft_schema(X, epsilon=2.0, random_state=0)
    public = PublicSchema({"a": Numeric(-4.0, 4.0), "b": Numeric(-4.0, 4.0)})
    learners = (lambda: dp.PrivateClassifier(epsilon=1.0, classes=[0, 1], random_state=0),
                lambda: dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1], random_state=0))
    assert public.provenance is None and None not in (drafted.provenance, released.provenance)
    assert released.release.epsilon == 2.0
    for schema in (drafted, released, public):
        for make in learners:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", PrivacyLeakWarning)
                model = make_pipeline(PublicEncoder(schema), make()).fit(X, y)[-1]
                dry = make().certify(PublicEncoder(schema).fit_transform(X), y)
                search = dp.PrivateGridSearch(make_pipeline(PublicEncoder(schema), make()),
                                              {"privatelogisticregression__lam": [0.1]}
                                              if isinstance(make(), dp.PrivateLogisticRegression)
                                              else {"privateclassifier__safeguard": [False]},
                                              epsilon=1.0, classes=[0, 1], random_state=0)
                if schema is drafted:
                    with pytest.raises(dp.PrivacyError, match="fitted on a schema read from the data"):
                        search.fit(X, y)
                else:
                    search.fit(X, y)
            for cert in (model.certificate_, dry) + (() if schema is drafted else (search.certificate_,)):
                assert cert.private is (schema is not drafted)
                # the schema's provenance is stated (by the certificate or a part), a public
                # schema's none
                stated = {s.provenance for s in (drafted, released) if _states(cert, s.provenance)}
                assert stated == ({schema.provenance} - {None})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        rows = PublicEncoder(drafted).fit_transform(X)
    assert pickle.loads(pickle.dumps(rows[3:9])).source == drafted.provenance


def test_a_refusal_names_a_pandas_dtype_without_what_the_values_chose():
    """A unit or subtype pandas infers from the values (one record with a nanosecond makes a
    column [ns]; one float end makes an interval column float64) is not in the text."""
    texts = []
    for last in ("2020-01-02", "2020-01-02 00:00:00.000000001"):
        last = pd.Timestamp(last, tz="UTC")
        table = pd.DataFrame({"when": pd.Series([pd.Timestamp("2020-01-01", tz="UTC")] * 5 + [last])})
        with pytest.raises(DataTypeError) as caught:
            PublicEncoder(PublicSchema({"when": Numeric(0.0, 1.0)})).fit(table)
        texts.append(str(caught.value))
    assert texts[0] == texts[1] and "(dtype datetime64)" in texts[0]


def test_a_drafted_schemas_rows_are_named_through_unit_rows_features_searches_and_sweeps():
    from sklearn.pipeline import make_pipeline

    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.normal(size=(150, 2)), columns=["a", "b"])
    y = (X["a"] > 0).astype(int).to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        drafted = dp.draft_schema(X)
        learner = dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1], random_state=0)
        unit = make_pipeline(PublicEncoder(drafted, row_norm="unit"), learner).fit(X, y)[-1]
        features = make_pipeline(PublicEncoder(drafted), dp.RandomFourierFeatures(n_components=8,
                                 random_state=0), learner).fit(X, y)[-1]
        Z = PublicEncoder(drafted).fit_transform(X)
        search = dp.PrivateGridSearch(learner, {"lam": [0.1, 1.0]}, epsilon=1.0, classes=[0, 1],
                                      random_state=0)
        with pytest.raises(dp.PrivacyError, match="fitted on a schema read from the data"):
            search.fit(Z, y)  # private tuning needs private candidates
        sweep = dp.epsilon_sweep(learner, Z, y, [0.5, 1.0], random_state=0)
    assert drafted.provenance == SUGGESTED_SOURCE
    for cert in (unit.certificate_, features.certificate_, sweep.certificate, *sweep.certificates[0]):
        assert _states(cert, SUGGESTED_SOURCE) and not cert.private
    assert SUGGESTED_SOURCE in learner.plan_for(Z, y).notes
    regressor = dp.PrivateRegressor(epsilon=1.0, label_range=(-4, 4), random_state=0)
    assert _states(regressor.certify(Z, X["a"].to_numpy()), SUGGESTED_SOURCE)
    assert _states(regressor.fit(Z, X["a"].to_numpy()).certificate_, SUGGESTED_SOURCE)
    plain = pd.DataFrame({"source": [1.0, 2.0]})  # a column named like the attribute: no source
    assert SUGGESTED_SOURCE not in learner.plan_for(plain, np.array([0, 1])).notes


def test_a_number_beyond_float64_in_a_numeric_column_is_named_as_such():
    from decimal import Decimal

    schema = PublicSchema({"a": Numeric(0, 10)})
    table = pd.DataFrame({"a": [1, Decimal("1e500"), 3]}, dtype=object)
    with pytest.raises(DataValidationError, match="numbers beyond float64"):
        PublicEncoder(schema).fit_transform(table)


def test_kinds_naming_a_column_not_in_the_table_lists_the_tables_names():
    """A table without text column labels has columns x0, x1, ...: the refusal says so."""
    table = pd.DataFrame({0: np.linspace(0, 10, 50), 1: ["x", "y"] * 25})
    with pytest.raises(ParameterError, match=r"whose columns are \['x0', 'x1'\]"):
        dp.draft_schema(table, epsilon=1.0, delta=1e-6, kinds={1: "categorical"})


@pytest.mark.parametrize("data_norm", [-1.0, 0.0, math.nan, math.inf, "1"])
def test_encoded_range_refuses_a_data_norm_not_above_zero(data_norm):
    schema = PublicSchema({"age": Numeric(0, 120)})
    with pytest.raises(ParameterError, match="'data_norm' parameter of PublicSchema.encoded_range"):
        schema.encoded_range(data_norm)
    lo, hi = schema.encoded_range(2.0)
    assert np.all(lo <= hi)


@pytest.mark.parametrize("name", ["1 x", None, 5, "class", ""])
def test_to_code_refuses_a_name_that_is_not_an_identifier(name):
    schema = PublicSchema({"age": Numeric(0, 120)})
    for owner in (schema, PublicSchema.every_column(Numeric(0, 1))):
        with pytest.raises(ParameterError,
                           match="'name' argument of .*must be a Python identifier"):
            owner.to_code(name)


def test_from_ranges_refuses_a_prefix_that_is_not_a_str():
    with pytest.raises(ParameterError, match="'prefix' argument of PublicSchema.from_ranges"):
        PublicSchema.from_ranges([(0, 1)], prefix=5)


def test_an_empty_vocabulary_encodes_the_other_slot_only():
    schema = PublicSchema({"plan": Categorical(())})
    assert schema.feature_names == ("plan=<other>",)
    with pytest.raises(ParameterError, match="must list a category when other=False"):
        Categorical((), other=False)


@pytest.mark.parametrize("table", ["frame", "array", "typed mapping", "mapping of lists",
                                   "list of rows", "list of mixed rows"])
def test_a_tables_header_is_the_columns_names_length_and_dtypes(table):
    """table_header gives what table_columns reads of the same table (names, number of
    records, each column's dtype), the header the encoder's checks before values use."""
    pd = pytest.importorskip("pandas")
    from dpconvex.data.tables import table_columns, table_header

    codes = np.arange(6) % 2
    X = {"frame": lambda: pd.DataFrame({"a": pd.Categorical.from_codes(codes, ["u", "v"]),
                                        "b": pd.array([1, None, 3, 4, 5, 6], dtype="Int64"),
                                        "c": pd.date_range("2020", periods=6, tz="UTC")}),
         "array": lambda: np.zeros((6, 3), dtype=np.float32),
         "typed mapping": lambda: {"a": codes, "b": pd.Series(["u", "v"] * 3, dtype="string")},
         "mapping of lists": lambda: {"a": [1.0, "x"] * 3, "b": [True, 2] * 3},
         "list of rows": lambda: [[1, 2.5]] * 6,
         "list of mixed rows": lambda: [[1.0, "x"]] * 6}[table]()
    names, cols, dtypes = table_columns(X, "Demo.plan_for")
    assert table_header(X, "Demo.plan_for") == (names, len(cols[0]), dtypes)


@pytest.mark.parametrize("column,says", [("dask, unknown chunk sizes", "is a Dask collection"),
                                         ("sparse row", "is a sparse matrix")])
def test_a_mapping_column_plan_for_reads_is_the_encoders(column, says):
    """check_table_columns (plan_for's check of a table, without reading its entries) and
    PublicEncoder.fit refuse a mapping's column alike, in the same words: a Dask array and a
    sparse matrix refused by name."""
    from dpconvex.data.encoder import check_table_columns

    values = np.linspace(0.0, 1.0, 6)
    if column == "dask, unknown chunk sizes":
        da = pytest.importorskip("dask.array")
        lazy = da.from_array(np.array(["x", "y"] * 4))
        b = lazy[da.from_array(np.arange(8)) < 6]  # its length unknown until computed
    else:
        sparse = pytest.importorskip("scipy.sparse")
        b = sparse.csr_matrix(np.ones((1, 6)))
    X = {"a": values, "b": b}
    schema = PublicSchema({"a": Numeric(0, 1), "b": Categorical(("x", "y"))})
    said = []
    for caller, call in (("Demo.plan_for", lambda: check_table_columns(schema, X, "Demo.plan_for")),
                         ("PublicEncoder.fit", lambda: PublicEncoder(schema).fit(X))):
        with pytest.raises((DataValidationError, DataTypeError)) as refused:
            call()
        said.append((type(refused.value), str(refused.value).removeprefix(f"{caller}: ")))
    assert said[0] == said[1]
    assert said[0][1].startswith(f"column 'b' {says}")


@pytest.mark.parametrize("kind", ["array", "chunked array"])
def test_a_pyarrow_column_reads_as_its_values(kind):
    """A mapping's pyarrow column (text with a missing value, integers with a missing value,
    an array or a chunked one) is read as the list of its values is: plan_for's check accepts
    it and the encoder gives the same rows (pyarrow copies text and missing values only where
    it is asked to)."""
    pa = pytest.importorskip("pyarrow")
    from dpconvex.data.encoder import check_table_columns

    text, codes = ["x", None, "y", "x"], [1, 2, None, 1]
    arrow = pa.array if kind == "array" else (lambda v: pa.chunked_array([v]))
    schema = PublicSchema({"a": Numeric(0, 1), "b": Categorical(("x", "y")),
                           "c": Categorical(("1", "2"))})
    listed = {"a": [0.0, 0.5, 1.0, 0.25], "b": text, "c": codes}
    given = {**listed, "b": arrow(text), "c": arrow(codes)}
    check_table_columns(schema, given, "Demo.plan_for")
    expected = PublicEncoder(schema).fit(listed).transform(listed)
    np.testing.assert_array_equal(PublicEncoder(schema).fit(given).transform(given), expected)


def test_a_schema_subclass_is_refused_by_name():
    """The encoder divides rows by the divisor dpconvex computes: a subclass overriding it
    (rows of norm up to 1634 under data_norm=1 for 1e-3 on three columns in [-1, 1]) is
    refused, by the encoder, by ``encode`` and by a front door given it, before any row is
    read."""

    class Shrunk(PublicSchema):
        @property
        def divisor(self) -> float:
            return 1e-3

    class ShrunkUniform(dp.data.UniformSchema):
        pass

    schema = Shrunk({c: Numeric(-1, 1) for c in "abc"})
    table = {c: np.array([1.0, -1.0]) for c in "abc"}
    with pytest.raises(ParameterError, match="not the subclass Shrunk"):
        PublicEncoder(schema).fit(table)
    with pytest.raises(ParameterError, match="not the subclass Shrunk"):
        dp.data.encoder.encode(schema, table)
    with pytest.raises(ParameterError, match="of PrivateClassifier .* not the subclass Shrunk"):
        dp.PrivateClassifier(schema=schema, classes=[0, 1], random_state=0).fit(table, [0, 1])
    uniform = ShrunkUniform(Numeric(-1, 1))
    with pytest.raises(ParameterError, match="PublicSchema.every_column"):
        PublicEncoder(uniform).fit(np.ones((2, 3)))
