"""PublicSchema.every_column: one public declaration for every column, the width from the table.

The encoder applies it to the fitted table's columns (a public fact) as the named schema of those
columns, held as schema_: the rows, their public ranges, the feature names and the refusals are
those of that named schema.
"""

import pickle

import numpy as np
import pytest
from _helpers import traced_peak
from sklearn.pipeline import make_pipeline

import dpconvex as dp
from dpconvex import Binary, Categorical, Numeric, PublicEncoder, PublicSchema
from dpconvex.data import RangedRows, UniformSchema, UniformWidth
from dpconvex.errors import (
    DataTypeError,
    DataValidationError,
    NotFittedError,
    ParameterError,
    PrivacyLeakWarning,
)
from dpconvex.estimators.gaussian_nb import FeatureRange, feature_bounds

PIXELS = PublicSchema.every_column(Numeric(0, 16))

#: Two encodings of the same rows by the same arithmetic (the same schema's constants) agree to
#: the last bit; a few ulp of relative tolerance leave no room for any other computation.
SAME = {"rtol": 1e-15, "atol": 0.0}


@pytest.mark.parametrize("width", [3, 7])
def test_an_array_is_encoded_as_the_named_schema_of_its_width(width):
    X = np.random.default_rng(width).uniform(-4, 20, (25, width))
    enc = PublicEncoder(PIXELS).fit(X)
    named = PublicSchema.from_ranges([(0, 16)] * width)
    assert enc.schema_ == named and enc.n_features_in_ == width
    assert enc.get_feature_names_out().tolist() == [f"x{k}" for k in range(width)]
    Z = enc.transform(X)
    np.testing.assert_allclose(Z, PublicEncoder(named).fit_transform(X), **SAME)
    np.testing.assert_allclose(Z * np.sqrt(width), np.clip(X, 0, 16) / 16, rtol=1e-12)
    assert isinstance(Z, RangedRows) and Z.source is None  # public ranges, the schema's constants
    np.testing.assert_allclose(Z.feature_range, np.column_stack(named.encoded_range()), **SAME)


def test_another_width_at_transform_is_refused_in_scikit_learns_words():
    enc = PublicEncoder(PIXELS).fit(np.zeros((4, 5)))
    with pytest.raises(DataValidationError, match="X has 3 features, but PublicEncoder is "
                       "expecting 5 features as input: its uniform schema took the width"):
        enc.transform(np.zeros((4, 3)))
    assert PublicEncoder(PIXELS).fit(np.zeros((4, 3))).transform(np.zeros((2, 3))).shape == (2, 3)


def test_transform_refuses_a_schema_set_after_fit_and_reads_row_norm_at_each_call():
    """set_params(schema=...) after fit: transform refuses a schema other than the one fit
    applied (schema_ would encode in its place), and takes an equal one; row_norm and data_norm
    shape nothing fit keeps, so transform reads them as they are at the call."""
    X = np.full((2, 3), 8.0)
    named = PublicSchema({"p": Numeric(0, 1), "q": Numeric(0, 1), "r": Numeric(0, 1)})
    for fitted, other, same in (
            (PIXELS, named, PublicSchema.every_column(Numeric(0, 16))),
            (PIXELS, PublicSchema.every_column(Numeric(0, 1)), PIXELS.for_columns(3)),
            (named, PIXELS, PublicSchema.every_column(Numeric(0, 1)).for_columns(["p", "q", "r"]))):
        enc = PublicEncoder(fitted).fit(X)
        expected = enc.transform(X)
        with pytest.raises(NotFittedError, match="PublicEncoder.transform: the 'schema' "
                           "parameter is not the schema this encoder was fitted with"):
            enc.set_params(schema=other).transform(X)
        np.testing.assert_array_equal(enc.set_params(schema=same).transform(X), expected)
    enc = PublicEncoder(PIXELS).fit(X).set_params(row_norm="unit", data_norm=2.0)
    np.testing.assert_allclose(
        enc.transform(X), PublicEncoder(PIXELS, row_norm="unit", data_norm=2.0).fit_transform(X),
        **SAME)


@pytest.mark.parametrize("fit", ["fit", "fit_transform"])
def test_transform_takes_the_uniform_schema_it_was_fitted_with_without_resolving_it(
        monkeypatch, fit):
    """The uniform schema fit applied is recognised as it is (its declaration and centered), not
    resolved again for the fitted columns at every transform (a named schema of every column)."""
    X = np.full((2, 3), 8.0)
    enc = PublicEncoder(PublicSchema.every_column(Numeric(0, 16)))
    getattr(enc, fit)(X)
    expected = PublicEncoder(PIXELS.for_columns(3)).fit_transform(X)

    def resolved(*args, **kwargs):
        raise AssertionError("the uniform schema was resolved again")

    monkeypatch.setattr(UniformSchema, "for_columns", resolved)
    np.testing.assert_array_equal(enc.set_params(schema=PIXELS).transform(X), expected)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(enc)).transform(X), expected)


def test_encode_and_encode_parts_take_one_declaration_for_every_column():
    """The functions that encode columns already split by kind take every_column(...) as the
    named schema of the columns given, in their order."""
    from dpconvex.data.encoder import encode, encode_parts

    columns = {"b": np.array([0.0, 16.0]), "a": np.array([4.0, 8.0])}
    named = PIXELS.for_columns(["b", "a"])
    expected = encode(named, columns)
    np.testing.assert_allclose(encode(PIXELS, columns), expected, **SAME)
    np.testing.assert_allclose(encode_parts(PIXELS, columns, {}), expected, **SAME)
    with pytest.raises(ParameterError, match="'codes' has no values for column"):
        encode(PublicSchema.every_column(Categorical(("x", "y"))), columns)


def test_a_dataframe_gives_its_column_names_and_its_dtypes_are_checked_by_name():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"red": [0, 255], "green": [51, 102]})
    enc = PublicEncoder(PublicSchema.every_column(Numeric(0, 255))).fit(df)
    assert list(enc.schema_.columns) == ["red", "green"] == enc.feature_names_in_.tolist()
    assert enc.get_feature_names_out().tolist() == ["red", "green"]
    with pytest.raises(DataValidationError, match="feature names should match"):
        enc.transform(df[["green", "red"]])
    with pytest.raises(DataTypeError, match="column 'plan' is declared Numeric but holds text"):
        PublicEncoder(PIXELS).fit(df.assign(plan=["basic", "pro"]))


def test_categorical_and_binary_declarations_apply_to_every_column():
    bases = PublicSchema.every_column(Categorical(("A", "C", "G", "T"), other=False))
    Z = PublicEncoder(bases).fit_transform(np.array([["A", "T"], ["G", "C"]]))
    assert Z.shape == (2, 8)
    np.testing.assert_allclose(Z * np.sqrt(2), [[1, 0, 0, 0, 0, 0, 0, 1],
                                                [0, 0, 1, 0, 0, 1, 0, 0]], **SAME)
    flags = PublicEncoder(PublicSchema.every_column(Binary(positive=1))).fit(np.eye(3, dtype=int))
    assert flags.schema_.binary == {"x0": 1, "x1": 1, "x2": 1}


def test_a_fitted_encoder_pickles_and_two_fits_of_one_width_leave_the_same_bytes():
    rng = np.random.default_rng(0)
    a, b = PublicEncoder(PIXELS).fit(rng.uniform(0, 16, (10, 4))), PublicEncoder(PIXELS).fit(
        rng.uniform(0, 16, (90, 4)))
    assert pickle.dumps(a) == pickle.dumps(b)  # fit reads the width only
    X = rng.uniform(0, 16, (5, 4))
    np.testing.assert_allclose(pickle.loads(pickle.dumps(a)).transform(X), a.transform(X), **SAME)
    assert pickle.loads(pickle.dumps(PIXELS)) == PIXELS
    assert hash(PIXELS) == hash(PublicSchema.every_column(Numeric(0.0, 16.0)))
    assert PIXELS != PublicSchema.every_column(Numeric(0, 16), centered=True)


def test_the_source_and_the_repr_rebuild_an_equal_schema():
    for schema in (PIXELS, PublicSchema.every_column(Categorical(("a", "b")), centered=True)):
        scope: dict = {}
        exec(schema.to_code("rebuilt"), scope)  # noqa: S102 - the source printed for the user
        assert scope["rebuilt"] == schema
        assert eval(repr(schema), vars(dp)) == schema  # noqa: S307 - repr of declarations only


def test_a_bad_declaration_and_a_schema_without_columns_are_named():
    for bad in (None, (0, 255), PublicSchema({"x": Numeric(0, 1)})):
        with pytest.raises(ParameterError, match="'declaration' parameter of PublicSchema.every"):
            PublicSchema.every_column(bad)
    with pytest.raises(AttributeError, match="UniformSchema.feature_names: .* no columns.*schema_"):
        PIXELS.feature_names  # noqa: B018
    with pytest.raises(ParameterError, match="must be a PublicSchema.*PublicSchema.every_column"):
        PublicEncoder(Numeric(0, 1)).fit(np.zeros((2, 2)))
    assert isinstance(PIXELS, UniformSchema) and not isinstance(PIXELS, PublicSchema)


def test_a_drafted_declaration_warns_as_a_drafted_schema_does():
    drafted = PublicSchema.every_column(Numeric(0, 16, drafted=True))
    with pytest.warns(PrivacyLeakWarning, match="drafted by draft_schema"):
        enc = PublicEncoder(drafted).fit(np.zeros((3, 2)))
    assert enc.schema_.suggested and drafted.to_code().startswith("# Drafted by draft_schema")


def test_a_pipeline_releases_what_it_releases_on_the_named_schema_of_the_width():
    """The learner reads the rows and their public ranges, the same as from the named schema."""
    rng = np.random.default_rng(1)
    X = rng.uniform(0, 16, (200, 6))
    y = (X[:, 0] > 8).astype(int)
    named = PublicSchema.from_ranges([(0, 16)] * 6)
    for make in (lambda: dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1],
                                                      random_state=0),
                 lambda: dp.PrivateGaussianNB(epsilon=1.0, classes=[0, 1], random_state=0)):
        uniform = make_pipeline(PublicEncoder(PIXELS), make()).fit(X, y)
        reference = make_pipeline(PublicEncoder(named), make()).fit(X, y)
        assert str(uniform[-1].certificate_) == str(reference[-1].certificate_)
        np.testing.assert_allclose(uniform.predict_proba(X), reference.predict_proba(X), **SAME)


@pytest.mark.parametrize("declaration", [Numeric(0, 16), Numeric(-1, 1, log=True),
                                         Categorical(("A", "C", "G", "T")),
                                         Categorical(("a", "b"), other=False), Binary("yes"),
                                         Numeric(0, 1, drafted=True)])
@pytest.mark.parametrize("centered", [False, True])
def test_the_facts_of_a_width_are_those_of_the_named_schema_of_that_width(declaration,
                                                                          centered):
    """for_width computes, without naming a column, the facts for_columns's schema has: the
    same arithmetic on the same constants, so equal to the last bit (SAME)."""
    uniform = PublicSchema.every_column(declaration, centered=centered)
    for width in (1, 3, 10):
        named, facts = uniform.for_columns(width), uniform.for_width(width)
        assert facts.n_features == named.n_features
        np.testing.assert_allclose(facts.divisor, named.divisor, **SAME)
        assert (facts.provenance, facts.release) == (named.provenance, named.release)
        for data_norm in (1.0, 2.5):
            for ours, theirs in zip(facts.encoded_range(data_norm),
                                    named.encoded_range(data_norm), strict=True):
                np.testing.assert_allclose(ours, theirs, **SAME)
    with pytest.raises(ParameterError, match="'n_columns' parameter of UniformSchema.for_width"):
        uniform.for_width(0)


def _no_column_named(monkeypatch):
    """Fail a call that names the columns of a uniform schema (what a dry run needs not)."""
    def named(self, columns, caller):
        raise AssertionError(f"{caller} named the columns of a uniform schema in a dry run")

    monkeypatch.setattr(UniformSchema, "_named_for", named)


def test_a_dry_run_of_a_width_of_ten_billion_columns_makes_nothing_per_column(monkeypatch):
    """A regressor's plan and certificate without rows read the number of encoded features
    only: at 10**10 columns no column is named and the memory used stays that of one column
    (traced below 10 MB, where the names alone would take hundreds of GB)."""
    import tracemalloc

    _no_column_named(monkeypatch)
    door = dp.PrivateRegressor(epsilon=1.0, label_range=(0, 1), schema=PIXELS)
    door.plan(1000, n_features=2)  # the modules imported before the memory is traced
    tracemalloc.start()
    try:
        plan = door.plan(1000, n_features=10**10)
        certificate = door.certify(n=1000, n_features=10**10)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert plan.n_features == 10**10 and certificate.epsilon == 1.0
    assert peak < 10 * 2**20


def test_a_dry_run_reads_the_uniform_schemas_ranges_without_naming_columns(monkeypatch):
    """The classifier's plan and certificate and naive Bayes's plan take the per-feature ranges
    of a uniform schema for a width given without rows from for_width: equal to the ranges of
    the named schema of that width, so the plan is the one a fit on such a table makes."""
    schema = PublicSchema.every_column(Categorical(("A", "C", "G", "T")))
    named_door = dp.PrivateClassifier(epsilon=1.0, classes=[0, 1], schema=schema.for_columns(6))
    named, named_certificate = named_door.plan(500, n_features=6), named_door.certify(
        n=500, n_features=6)
    nb_named = dp.PrivateGaussianNB(epsilon=1.0, classes=[0, 1],
                                    feature_range=schema.for_columns(6)).plan(500, n_features=30)
    named_ranges = named_door._on_rows(schema.for_columns(6)).feature_range
    nb_named_ranges = feature_bounds(schema.for_columns(6), 30, "Demo")
    _no_column_named(monkeypatch)
    door = dp.PrivateClassifier(epsilon=1.0, classes=[0, 1], schema=schema)
    plan = door.plan(500, n_features=6)
    assert (plan.n_features, plan.learner, plan.budget) == (30, named.learner, named.budget)
    assert door.certify(n=500, n_features=6).epsilon == named_certificate.epsilon
    # the per-feature ranges the dry run gives the rows' front door: the named schema's
    dry_ranges = door._on_rows_of_shape(door._table_schema(6, "plan"), 500, "plan").feature_range
    assert dry_ranges.shape == named_ranges.shape == (30, 2)
    np.testing.assert_allclose(dry_ranges, named_ranges, **SAME)
    nb = dp.PrivateGaussianNB(epsilon=1.0, classes=[0, 1], feature_range=schema)
    assert nb.plan(500, n_features=30).budget == nb_named.budget
    for ours, theirs in zip(feature_bounds(schema, 30, "Demo"), nb_named_ranges, strict=True):
        np.testing.assert_allclose(ours, theirs, **SAME)


@pytest.mark.parametrize("args, said", [
    ((PIXELS, 0), r"'n_columns' parameter of UniformWidth must be an int >= 1 .* Got 0"),
    ((PIXELS, -2), r"'n_columns' parameter of UniformWidth must be an int >= 1 .* Got -2"),
    ((PIXELS, 2.0), r"'n_columns' parameter of UniformWidth must be an int >= 1 .* Got 2\.0"),
    (("not a schema", 3), r"'schema' parameter of UniformWidth must be a UniformSchema.* Got str"),
    ((PublicSchema({"a": Numeric(0, 1)}), 3), r"must be a UniformSchema.* Got PublicSchema"),
])
def test_uniform_width_refuses_what_is_not_a_uniform_schema_and_a_width_by_name(args, said):
    """UniformWidth made directly checks its arguments as for_width does: a ParameterError
    that names the parameter, never an error of its arithmetic (a division by zero)."""
    with pytest.raises(ParameterError, match=said):
        UniformWidth(*args)
    assert UniformWidth(PIXELS, np.int64(4)).n_columns == 4


@pytest.mark.parametrize("declaration", [Numeric(0, 255), Categorical(("A", "C", "G", "T")),
                                         Binary("yes")])
@pytest.mark.parametrize("centered", [False, True])
def test_range_rows_are_a_read_only_view_of_the_one_range_of_every_feature(declaration,
                                                                            centered):
    """range_rows holds the entries of np.column_stack(encoded_range(...)) (the same float
    operations: equal to the last bit, SAME) as a view of one (lo, hi) pair: its rows' stride
    is 0, it cannot be written to, and a data_norm not > 0 is refused as encoded_range refuses
    it."""
    uniform = PublicSchema.every_column(declaration, centered=centered)
    for width in (1, 3, 10):
        facts = uniform.for_width(width)
        for data_norm in (1.0, 2.5):
            rows = facts.range_rows(data_norm)
            assert rows.shape == (facts.n_features, 2) and rows.strides[0] == 0
            assert not rows.flags.writeable
            np.testing.assert_allclose(rows, np.column_stack(facts.encoded_range(data_norm)),
                                       **SAME)
            assert tuple(rows[0]) == pytest.approx(facts.encoded_pair(data_norm), rel=1e-15)
    with pytest.raises(ParameterError, match="data_norm"):
        uniform.for_width(3).range_rows(0.0)


#: The dry runs of the front doors, each from a shape whose rule chooses a learner that needs
#: no array of the features for its own problem (class centroids, the private mean).
_DRY_RUNS = {
    "classifier, uniform schema": lambda: dp.PrivateClassifier(classes=[0, 1], schema=PIXELS),
    "classifier, one feature_range pair": lambda: dp.PrivateClassifier(classes=[0, 1],
                                                                       feature_range=(0, 16)),
    "classifier, default ranges": lambda: dp.PrivateClassifier(classes=[0, 1]),
    "regressor, uniform schema": lambda: dp.PrivateRegressor(label_range=(0, 1),
                                                             schema=PIXELS),
    "regressor, default": lambda: dp.PrivateRegressor(label_range=(0, 1)),
}


@pytest.mark.parametrize("door", list(_DRY_RUNS))
def test_a_front_doors_dry_run_of_many_features_holds_no_array_as_wide_as_them(door):
    """plan and certify from a shape, with one range for every feature (a uniform schema, one
    feature_range pair, the default), hold no array of the features' width: at 10**6 features
    the peak traced by tracemalloc (which NumPy reports its buffers to) stays below 1 MiB, an
    eighth of one float64 array of that width (8 MB; per-feature (lo, hi) rows are 16 MB)."""
    est = _DRY_RUNS[door]()
    classes = 2 if door.startswith("classifier") else None  # a regressor has no label set
    est.plan(1000, classes, 3)  # the modules imported before the memory is traced
    est.certify(n=1000, n_classes=classes, n_features=3)
    plan, plan_peak = traced_peak(lambda: est.plan(1000, classes, 10**6))
    certificate, certify_peak = traced_peak(
        lambda: est.certify(n=1000, n_classes=classes, n_features=10**6))
    assert plan.learner in ("class centroids", "constant (private mean)")
    assert plan.n_features == 10**6 and certificate.epsilon == 1.0
    assert max(plan_peak, certify_peak) < 2**20


@pytest.mark.parametrize("declaration", [Numeric(0, 255), Categorical(("A", "C", "G", "T"))])
@pytest.mark.parametrize("n, n_classes, width", [(500, 2, 3), (5000, 2, 40), (2000, 5, 4),
                                                 (10**6, 5, 4)])
def test_a_dry_runs_certificate_is_that_of_the_explicit_per_feature_ranges(declaration, n,
                                                                           n_classes, width):
    """The classifier's plan and certificate from a shape under a uniform schema (its ranges a
    view of one pair) are those of the explicit (d, 2) ranges: of the door on rows given
    np.column_stack(encoded_range(...)), and of the door with the named schema of that width.
    The shapes reach naive Bayes, the Huber SVM and the large-margin classifier. The same
    arithmetic on equal entries: the certificates are equal line for line (a tolerance would
    hide a changed statement)."""
    uniform = PublicSchema.every_column(declaration)
    common = {"epsilon": 1.0, "classes": list(range(n_classes)), "data_norm": 2.5}
    door = dp.PrivateClassifier(schema=uniform, **common)
    named = dp.PrivateClassifier(schema=uniform.for_columns(width), **common)
    facts = uniform.for_width(width)
    explicit = dp.PrivateClassifier(
        feature_range=np.column_stack(facts.encoded_range(2.5)), **common)
    on_rows = door._on_rows_of_shape(facts, n, "certify")
    assert on_rows.feature_range.strides[0] == 0
    shape = {"n": n, "n_classes": n_classes, "n_features": facts.n_features}
    assert on_rows.certify(**shape).to_dict() == explicit.certify(**shape).to_dict()
    ours, theirs = door.plan(n, n_classes, width), explicit.plan(n, n_classes, facts.n_features)
    assert (ours.learner, ours.options, ours.notes) == (theirs.learner, theirs.options,
                                                        theirs.notes)
    shape["n_features"] = width
    assert door.certify(**shape).to_dict() == named.certify(**shape).to_dict()


def test_feature_range_rows_that_view_one_pair_are_read_as_that_pair():
    """A feature_range of rows that are views of one pair (as range_rows makes) is checked and
    read as that pair: refused when the pair is (naming the parameter), read as read-only views
    of it otherwise, and naive Bayes releases from it what it releases from the rows written
    out (the same draws: equal to the last bit, SAME)."""
    view = np.broadcast_to(np.array([0.0, 16.0]), (3, 2))
    with pytest.raises(ParameterError, match="'feature_range' parameter of Demo"):
        FeatureRange().check("feature_range", np.broadcast_to(np.array([1.0, 0.0]), (3, 2)),
                             "Demo")
    lo, hi = feature_bounds(view, 3, "Demo")
    assert lo.strides == hi.strides == (0,) and not lo.flags.writeable
    assert (lo.tolist(), hi.tolist()) == ([0.0] * 3, [16.0] * 3)
    rng = np.random.default_rng(0)
    X, y = rng.uniform(0, 16, size=(200, 3)), np.arange(200) % 2
    fitted = [dp.PrivateGaussianNB(epsilon=1.0, classes=[0, 1], feature_range=ranges,
                                   random_state=0).fit(X, y)
              for ranges in (view, np.array(view))]
    for name in ("theta_", "var_", "class_prior_"):
        np.testing.assert_allclose(getattr(fitted[0], name), getattr(fitted[1], name), **SAME)
