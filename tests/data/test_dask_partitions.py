"""A Dask partition or chunk unlike its metadata is refused by name at every entry point.

Dask reads a DataFrame's dtypes and an array's dtype and chunk shapes from its metadata
(``dd.read_csv`` infers them from the first block), so one partition can hold text,
dates, complex numbers or other columns than the metadata says. Every entry point that
reads Dask rows refuses such a partition with the exception and message the in-memory
path gives for the same values, quoting no entry; numbers of another dtype (bool, int, an
object column of floats) are read as the in-memory path reads them. ``normalize_rows`` (a
per-record map over the chunks) and ``release_range`` (the private range of a column) read
their chunks the same way. All on the synchronous scheduler, 40 rows.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("dask.array")
pd = pytest.importorskip("pandas")

import dask  # noqa: E402
import dask.array as da  # noqa: E402
import dask.dataframe as dd  # noqa: E402

import dpconvex as dp  # noqa: E402
from dpconvex.errors import DataTypeError, DataValidationError  # noqa: E402
from dpconvex.estimators.sweep import epsilon_sweep  # noqa: E402

N, CHUNK = 40, 10
SECRET = "patient-4711-secret"  # a record's text: no message may quote it
_rng = np.random.default_rng(0)
FRAME = pd.DataFrame(0.3 * _rng.normal(size=(N, 3)), columns=["a", "b", "c"])
Y = np.arange(N) % 2
YR = 0.3 * _rng.normal(size=N)


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the public plan's warnings at this tiny n
        yield


# -------------------------------------------------------- partitions unlike their metadata
def _text(part):
    part = part.astype(object)
    part.iloc[-1, 1] = SECRET
    return part


def _missing(part):
    part = part.astype(object)
    part.iloc[-1, 1] = None
    return part


PARTITIONS = {  # the last partition as the source gives it; the metadata says float64
    "text": _text,
    "missing": _missing,
    "complex": lambda part: part.astype(complex),
    "dates": lambda part: part.assign(b=pd.Timestamp("2020-01-01")),
}


def _last_partition(make):
    """FRAME in 4 partitions whose metadata says float64, the last one made by ``make``."""
    def f(part):
        return make(part) if len(part) and part.index[0] >= N - CHUNK else part
    return dd.from_pandas(FRAME, npartitions=N // CHUNK).map_partitions(f, meta=FRAME.iloc[:0])


def _last_chunk(make):
    """FRAME's values in 4 chunks whose metadata says float64, the last one made by ``make``."""
    def f(block, block_info=None):
        return make(block) if block_info[None]["chunk-location"][0] == 3 else block
    return da.from_array(FRAME.to_numpy(), chunks=(CHUNK, 3)).map_blocks(f, dtype=float)


def _refusal(call, *args):
    with pytest.raises(DataValidationError) as info:
        call(*args)
    return info.value


def _fit(X):
    return dp.PrivateLogisticRegression(classes=[0, 1], random_state=0).fit(X, Y)


@pytest.mark.parametrize("kind", list(PARTITIONS))
def test_a_partition_unlike_its_metadata_gets_the_in_memory_refusal(kind):
    """The partition's refusal is the in-memory fit's refusal of that partition as a pandas
    DataFrame: the same exception type and text."""
    make = PARTITIONS[kind]
    dask_error = _refusal(_fit, _last_partition(make))
    memory_error = _refusal(_fit, make(FRAME.iloc[-CHUNK:]))
    assert type(dask_error) is type(memory_error)
    assert str(dask_error) == str(memory_error)
    assert SECRET not in str(dask_error)


CHUNKS = {  # the last chunk as the source gives it; the metadata says float64
    "text": lambda b: np.where(np.arange(b.shape[1]) == 1, SECRET, b.astype(object)),
    "strings": lambda b: b.astype(str),
    "missing": lambda b: np.where(np.arange(b.shape[1]) == 1, None, b.astype(object)),
    "complex": lambda b: b.astype(complex),
    "dates": lambda b: (b * 1e9).astype("datetime64[ns]"),
}


@pytest.mark.parametrize("kind", list(CHUNKS))
def test_a_chunk_unlike_its_metadata_gets_the_in_memory_refusal(kind):
    """A Dask array's chunk is refused as the in-memory fit refuses that chunk as a NumPy array."""
    make = CHUNKS[kind]
    dask_error = _refusal(_fit, _last_chunk(make))
    memory_error = _refusal(_fit, make(FRAME.to_numpy()[-CHUNK:]))
    assert type(dask_error) is type(memory_error)
    assert str(dask_error) == str(memory_error)
    assert SECRET not in str(dask_error)


def _search(kind):
    learner = dp.PrivateLogisticRegression() if kind == "grid" else dp.PrivateHuberSVM()
    cls = dp.PrivateGridSearch if kind == "grid" else dp.PrivateRandomSearch
    extra = {} if kind == "grid" else {"mean_runs": 2}
    return cls(learner, {"lam": [0.1, 1.0]}, epsilon=1.0, classes=[0, 1], random_state=0,
               **extra)


def _predict(X, y):
    model = dp.PrivateLogisticRegression(classes=[0, 1], random_state=0).fit(FRAME, Y)
    return model.predict(X)


ENTRIES = {  # every entry point that reads Dask rows, on the labels it takes
    "logistic": lambda X, y: dp.PrivateLogisticRegression(classes=[0, 1]).fit(X, y),
    "Huber SVM": lambda X, y: dp.PrivateHuberSVM(classes=[0, 1]).fit(X, y),
    "linear classifier": lambda X, y: dp.PrivateLinearClassifier(classes=[0, 1]).fit(X, y),
    "classifier": lambda X, y: dp.PrivateClassifier(classes=[0, 1]).fit(X, y),
    "Gaussian NB": lambda X, y: dp.PrivateGaussianNB(classes=[0, 1],
                                                     feature_range=(-1, 1)).fit(X, y),
    "centroid": lambda X, y: dp.PrivateGaussianCentroid(classes=[0, 1]).fit(X, y),
    "large margin": lambda X, y: dp.PrivateLargeMarginGaussian(classes=[0, 1]).fit(X, y),
    "noisy GD": lambda X, y: dp.NoisyGradientDescent(classes=[0, 1]).fit(X, y),
    "linear regression": lambda X, y: dp.PrivateLinearRegression(
        label_range=(-1, 1)).fit(X, YR),
    "private label range": lambda X, y: dp.PrivateLinearRegression(
        label_range="private", epsilon=40.0).fit(X, YR),
    "linear regressor": lambda X, y: dp.PrivateLinearRegressor(label_range=(-1, 1)).fit(X, YR),
    "Huber regressor": lambda X, y: dp.PrivateHuberRegressor(label_range=(-1, 1)).fit(X, YR),
    "quantile": lambda X, y: dp.PrivateQuantileRegressor(label_range=(-1, 1)).fit(X, YR),
    "regressor": lambda X, y: dp.PrivateRegressor(label_range=(-1, 1)).fit(X, YR),
    "certify": lambda X, y: dp.PrivateLogisticRegression(classes=[0, 1]).certify(X, y),
    "grid search": lambda X, y: _search("grid").fit(X, y),
    "grid certify": lambda X, y: _search("grid").certify(X, y),
    "random search": lambda X, y: _search("random").fit(X, y),
    "epsilon_sweep": lambda X, y: epsilon_sweep(dp.PrivateLogisticRegression(classes=[0, 1]),
                                                X, y, [0.5, 1.0], random_state=0),
    "predict": _predict,
}


@pytest.mark.parametrize("entry", list(ENTRIES))
def test_every_dask_entry_point_refuses_a_text_partition_by_name(entry):
    """Each entry point names its own caller and gives the in-memory text refusal."""
    Xd = _last_partition(_text)
    yd = dd.from_pandas(pd.Series(Y), npartitions=N // CHUNK)
    with pytest.raises(DataTypeError, match=r"X must be an array of numbers; it holds strings "
                       r"or bytes, and dpconvex does not read numbers from text") as info:
        ENTRIES[entry](Xd, yd)
    assert SECRET not in str(info.value)


# ------------------------------------------------ columns and chunk shapes unlike the metadata
OTHER_COLUMNS = {"wider": lambda p: p.assign(d=1.0), "narrower": lambda p: p[["a", "b"]],
                 "reordered": lambda p: p[["a", "c", "b"]]}


@pytest.mark.parametrize("kind", list(OTHER_COLUMNS))
def test_a_partition_with_other_columns_is_refused_by_name(kind):
    """Refused by name where Dask's own check finds it (map_partitions with meta=,
    from_delayed) and where Dask does not check (enforce_metadata=False); Dask's text (it
    names columns) goes to the diagnostics only."""
    make = OTHER_COLUMNS[kind]
    parts = [FRAME.iloc[i:i + CHUNK] for i in range(0, N, CHUNK)]
    parts[-1] = make(parts[-1])
    checked = (_last_partition(make),
               dd.from_delayed([dask.delayed(p) for p in parts], meta=FRAME.iloc[:0]))
    for Xd in checked:
        with dp.collect_diagnostics() as diag:
            with pytest.raises(DataValidationError, match=r"fit: a partition of X does not hold "
                               r"what its Dask metadata declares \(Dask's own check refused "
                               r"its columns or their dtypes"):
                _fit(Xd)
        assert any("Dask refused a partition" in note.what for note in diag.notes)
    unchecked = dd.from_pandas(FRAME, npartitions=N // CHUNK).map_partitions(
        lambda p: make(p) if p.index[0] >= N - CHUNK else p, meta=FRAME.iloc[:0],
        enforce_metadata=False)
    held = (r"other column names or another order" if kind == "reordered" else
            rf"{parts[-1].shape[1]} column\(s\) where the metadata declares 3")
    with pytest.raises(DataValidationError, match=rf"fit: a partition of X does not hold what "
                       rf"its Dask metadata declares \({held}\)"):
        _fit(unchecked)


@pytest.mark.parametrize("make, shape", [(lambda b: np.c_[b, b[:, :1]], (CHUNK, 4)),
                                         (lambda b: b[:-1], (CHUNK - 1, 3))],
                         ids=["wider", "shorter"])
def test_a_chunk_of_another_shape_than_declared_is_refused_by_name(make, shape):
    """The refusal names the declared shape only: a chunk's own row count is a group's size
    when the chunks follow an attribute of the records, so it goes to the diagnostics."""
    with dp.collect_diagnostics() as diag:
        with pytest.raises(DataValidationError, match=rf"fit: a chunk of X does not have the "
                           rf"shape \({CHUNK}, 3\) the Dask array's metadata declares \(its "
                           r"shape: dpconvex.collect_diagnostics\)") as refused:
            _fit(_last_chunk(make))
    assert f"({shape[0]}, {shape[1]})" not in str(refused.value)
    assert [note.what for note in diag.notes] == [f"a chunk of X has shape {shape}"]


# ------------------------------------------------------------ numbers of another dtype
@pytest.mark.parametrize("make", [lambda p: p.astype(object), lambda p: (p > 0),
                                  lambda p: (10 * p).astype(int)],
                         ids=["object of floats", "bool", "int"])
def test_a_partition_of_numbers_of_another_dtype_is_read_as_numbers(make):
    """As the in-memory path reads a pandas DataFrame of such columns: the fit equals the fit
    on the partitions converted to float64 first (the same values; the tolerance allows only
    rounding, the two fits doing the same arithmetic)."""
    given = _fit(_last_partition(make)).coef_
    converted = _fit(_last_partition(lambda p: make(p).astype("float64"))).coef_
    np.testing.assert_allclose(given, converted, rtol=1e-12, atol=0)


@pytest.mark.parametrize("kind", ["text", "complex", "dates"])
def test_normalize_rows_refuses_a_chunk_unlike_its_metadata_as_in_memory(kind):
    """The per-record map reads each chunk (lazily, in the fit's first pass) as it reads rows
    in memory: the same refusal, quoting no entry."""
    from dpconvex.data import normalize_rows

    make = CHUNKS[kind]
    dask_error = _refusal(_fit, normalize_rows(_last_chunk(make)))
    memory_error = _refusal(normalize_rows, make(FRAME.to_numpy()[-CHUNK:]))
    assert type(dask_error) is type(memory_error)
    assert str(dask_error) == str(memory_error)
    assert str(dask_error).startswith("normalize_rows: ") and SECRET not in str(dask_error)


def test_release_range_refuses_text_by_the_failures_type_in_memory_and_on_dask():
    """The private range of a column (in memory, a Dask Series, a Dask array column) names the
    failed conversion by its type, never by its text; a partition with other columns than its
    metadata is refused by name. Nothing is read past the refusal."""
    from dpconvex.privacy.bounds import release_range

    values = np.array([*([0.5] * (N - 1)), SECRET], dtype=object)
    column = _last_partition(_text)["b"]
    for given in (values, column, _last_chunk(CHUNKS["text"])[:, 1]):
        with pytest.raises(DataTypeError, match=r"release_range: values must be numbers, one per "
                           r"record; they could not be converted to float: ValueError") as info:
            release_range(given, dp.Budget(40.0), rng=0)
        assert SECRET not in str(info.value)
    with pytest.raises(DataValidationError, match=r"release_range: a partition of values does "
                       r"not hold what its Dask metadata declares"):
        release_range(_last_partition(OTHER_COLUMNS["wider"])["b"], dp.Budget(40.0), rng=0)


def test_release_vocabulary_refuses_a_partition_with_other_columns_by_name():
    from dpconvex.privacy.bounds import release_vocabulary

    frame = pd.DataFrame({"a": ["x"] * N, "b": ["y"] * N})
    column = dd.from_pandas(frame, npartitions=N // CHUNK).map_partitions(
        lambda p: p.assign(d=1.0) if p.index[0] >= N - CHUNK else p, meta=frame.iloc[:0])["a"]
    with pytest.raises(DataValidationError, match=r"release_vocabulary: a partition of values "
                       r"does not hold what its Dask metadata declares"):
        release_vocabulary(column, dp.Budget(1.0, 1e-6), rng=0)
