"""PublicSchema.every_column wherever a PublicSchema is taken: the front doors' ``schema=``,
``feature_range=`` (PrivateGaussianNB, PrivateClassifier), ``from_dataframe`` and the plan.

Each entry point resolves the uniform declaration for the table's columns (public: fixed
without reading the records) by
UniformSchema.for_columns, so its release is the one made with the named schema of those
columns: the same seed gives the same predictions and an equal certificate.
"""

import numpy as np
import pandas as pd
import pytest

import dpconvex as dp
from dpconvex import Categorical, Numeric, PublicEncoder, PublicSchema
from dpconvex.data.encoder import encode, encode_parts
from dpconvex.errors import ParameterError

#: Two fits by the same arithmetic on the same rows and seed agree to the last bit; a few ulp
#: of relative tolerance leave no room for any other computation.
SAME = {"rtol": 1e-15, "atol": 0.0}

PIXELS = PublicSchema.every_column(Numeric(0, 16))
BASES = PublicSchema.every_column(Categorical(("A", "C", "G", "T")))


def _pixels(n=80, width=3, seed=0):
    X = np.random.default_rng(seed).uniform(0, 16, (n, width))
    return X, (X[:, 0] + X[:, 1] > 16).astype(int)


def _bases(n=80, width=3, seed=0):
    rng = np.random.default_rng(seed)
    table = pd.DataFrame(rng.choice(list("ACGT"), (n, width)),
                         columns=[f"p{k}" for k in range(width)])
    return table, (table["p0"] == "A").astype(int).to_numpy()


def _same_release(uniform, named, X, y, method="predict"):
    """Both fitted on (X, y): equal certificates, the same predictions, the named schema fitted."""
    uniform.fit(X, y)
    named.fit(X, y)
    assert uniform.certificate_ == named.certificate_
    np.testing.assert_allclose(getattr(uniform, method)(X), getattr(named, method)(X), **SAME)
    return uniform


@pytest.mark.parametrize("door", ["classifier", "regressor"])
def test_a_front_door_on_a_uniform_schema_releases_as_on_the_named_schema_of_the_table(door):
    X, y = _pixels()
    named = PublicSchema.from_ranges([(0, 16)] * 3)
    if door == "classifier":
        def make(schema):
            return dp.PrivateClassifier(epsilon=50.0, classes=[0, 1], schema=schema,
                                        random_state=0)
        method = "predict_proba"
    else:
        y = X[:, 0] / 16

        def make(schema):
            return dp.PrivateRegressor(epsilon=50.0, label_range=(0, 1), schema=schema,
                                       random_state=0)
        method = "predict"
    fitted = _same_release(make(PIXELS), make(named), X, y, method)
    assert fitted.encoder_.schema_ == named and fitted.schema is PIXELS  # the parameter kept
    assert make(PIXELS).certify(X, y) == make(named).certify(X, y)


def test_a_categorical_declaration_takes_a_dataframes_column_names():
    table, y = _bases()
    named = BASES.for_columns(["p0", "p1", "p2"])

    def make(schema):
        return dp.PrivateClassifier(epsilon=50.0, classes=[0, 1], schema=schema, random_state=0)

    fitted = _same_release(make(BASES), make(named), table, y, "predict_proba")
    assert fitted.encoder_.schema_ == named and fitted.feature_names_in_.tolist() == ["p0", "p1",
                                                                                     "p2"]


def test_the_plan_and_the_dry_run_take_n_features_as_the_tables_columns():
    """n_features is the number of columns of the table; the encoded features follow from the
    declaration (here 5 per column: four bases and the other slot)."""
    named = BASES.for_columns(3)
    for make in (lambda s: dp.PrivateClassifier(classes=[0, 1], schema=s),
                 lambda s: dp.PrivateRegressor(label_range=(0, 1), schema=s)):
        plan = make(BASES).plan(500, n_features=3)
        assert plan == make(named).plan(500, n_features=3) and plan.n_features == 15
        assert make(BASES).certify(n=500, n_features=3) == make(named).certify(n=500,
                                                                                n_features=3)
    with pytest.raises(ParameterError, match=r"PrivateClassifier.certify: schema=.*every_"
                                             r"column.*Pass n_features, the number of columns"):
        dp.PrivateClassifier(classes=[0, 1], schema=BASES).certify(n=500)
    with pytest.raises(ParameterError, match="'n_features' .*PrivateRegressor"):
        dp.PrivateRegressor(label_range=(0, 1), schema=BASES).plan(500, n_features=0)


@pytest.mark.parametrize("learner", ["gaussian_nb", "classifier"])
def test_feature_range_takes_a_uniform_schema_for_the_table_its_rows_encode(learner):
    table, y = _bases()
    rows = np.asarray(PublicEncoder(BASES).fit_transform(table))  # no ranges carried: given
    named = BASES.for_columns(3)

    def make(schema):
        if learner == "gaussian_nb":
            return dp.PrivateGaussianNB(epsilon=50.0, classes=[0, 1], feature_range=schema,
                                        random_state=0)
        return dp.PrivateClassifier(epsilon=50.0, classes=[0, 1], feature_range=schema,
                                    random_state=0)

    _same_release(make(BASES), make(named), rows, y, "predict_proba")
    assert make(BASES).plan(80, n_features=15) == make(named).plan(80, n_features=15)


def test_feature_range_refuses_rows_no_table_under_the_uniform_schema_makes():
    rows = np.full((10, 7), 0.1)  # 7 is no multiple of the 5 features of a column
    with pytest.raises(ParameterError, match="makes 5 features of every column, and X has 7"):
        dp.PrivateGaussianNB(classes=[0, 1], feature_range=BASES).fit(rows, np.arange(10) % 2)


def test_from_dataframe_declares_every_column_but_the_label():
    dd = pytest.importorskip("dask.dataframe")
    X, _ = _pixels(n=40, width=3)
    frame = pd.DataFrame(X, columns=["a", "b", "c"]).assign(y=np.arange(40) % 2)
    named = PublicSchema({c: Numeric(0, 16) for c in "abc"})
    got = [dp.datasets.dask_loaders.from_dataframe(dd.from_pandas(frame, npartitions=2), schema,
                                                   label="y") for schema in (PIXELS, named)]
    (Xu, yu), (Xn, yn) = (tuple(part.compute() for part in pair) for pair in got)
    np.testing.assert_allclose(Xu, Xn, **SAME)
    assert Xu.shape == (40, 3) and (yu == yn).all()


def test_draft_schema_refuses_a_uniform_declared_schema_and_says_what_to_pass():
    frame = pd.DataFrame({"a": [1.0, 2.0], "b": [3.0, 4.0]})
    with pytest.raises(ParameterError, match=r"declares every column.*for_columns\(\['a', 'b'\]"):
        dp.draft_schema(frame, epsilon=1.0, declared=PIXELS, random_state=0)


@pytest.mark.parametrize("call, signed", [
    (lambda u: encode(u, {}), "encode: the table has no column"),
    (lambda u: encode(u, {0: np.array([0.5])}), r"encode: column names must be str"),
    (lambda u: encode_parts(u, {}, {}), "encode_parts: the table has no column"),
])
def test_encode_with_a_uniform_schema_signs_its_refusals_of_the_columns(call, signed):
    """The columns are the ones encode was given: its refusal opens with encode."""
    with pytest.raises(ParameterError, match=r"^" + signed):
        call(PublicSchema.every_column(Numeric(0, 1)))
