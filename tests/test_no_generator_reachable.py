"""No random generator is reachable from a fitted object or its pickle
(docs/privacy/accuracy_randomness.md#privacy-accuracy-randomness).

A numpy Generator kept on a model carries its SeedSequence, whose entropy survives
``spawn`` and pickling: whoever holds the model could rebuild the split and the exact noise
and replay the release. The object-graph walker below follows ``__dict__``,
``__slots__``, containers, dataclass fields, closures and the ``__reduce_ex__`` state, and
collects every numpy Generator, BitGenerator, SeedSequence, RandomState and
``random.Random``. It is run over a fitted instance of every public estimator (enumerated
from the dpconvex modules, so a new one cannot be forgotten), both searches, the result
of ``epsilon_sweep``, a Pipeline, one-vs-rest fits and every large-margin path, each
fitted with ``random_state=None`` and with an int, and over their unpickled copies.
Then: the walker finds planted generators; a generator ``random_state`` is refused by
name; stored sub-estimators keep the caller's ``random_state``; the certificate says
"seeded" exactly when the caller seeded; and an audit of ``PrivateRandomSearch`` through
its real fit, with an attacker who searches the pickle for a generator to replay.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import importlib
import inspect
import pickle
import pkgutil
import random
import types
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone
from sklearn.pipeline import Pipeline, make_pipeline

import dpconvex as dp
from dpconvex._validation import NoiseSource, noise_source
from dpconvex.audit import EstimatorMechanism, audit, epsilon_lower_bound, linear_erm_pair
from dpconvex.estimators.base import NO_CONTEXT, fit_with
from dpconvex.estimators.selection.random import PrivateRandomSearch

SEED = 3
#: What replays a stream of random numbers (independent of the library's own list).
GENERATOR_TYPES = (np.random.Generator, np.random.BitGenerator,
                   np.random.bit_generator.ISeedSequence, np.random.RandomState, random.Random)
_ATOMS = (str, bytes, bytearray, int, float, complex, bool, type(None), np.generic, range,
          types.ModuleType, type)


# ------------------------------------------------------------------ the walker
def _children(obj: Any, path: str) -> list[tuple[Any, str]]:
    """Everything ``obj`` refers to that a pickle (or a holder of the object) can reach."""
    out: list[tuple[Any, str]] = []
    if isinstance(obj, types.BuiltinFunctionType):  # a bound sampler such as rng.normal
        owner = getattr(obj, "__self__", None)
        return [] if isinstance(owner, types.ModuleType) else [(owner, f"{path}.__self__")]
    if isinstance(obj, np.ndarray):
        if obj.dtype == object:
            out += [(v, f"{path}[{i}]") for i, v in enumerate(obj.ravel().tolist())]
        return out  # numeric arrays hold numbers only
    if isinstance(obj, Mapping):
        for k, v in list(obj.items()):
            out += [(k, f"{path}.keys()"), (v, f"{path}[{k!r}]")]
    elif isinstance(obj, (list, tuple, set, frozenset)):
        out += [(v, f"{path}[{i}]") for i, v in enumerate(obj)]
    if isinstance(obj, types.FunctionType):  # closures and defaults, not the module globals
        cells = [c.cell_contents for c in obj.__closure__ or () if c.cell_contents is not None]
        out += [(v, f"{path}.<closure>") for v in cells]
        out += [(obj.__defaults__, f"{path}.__defaults__"),
                (obj.__kwdefaults__, f"{path}.__kwdefaults__")]
    if type(obj) in (dict, list, tuple, set, frozenset, types.FunctionType):
        return out  # pickled natively (functions by reference): the items are the content
    if hasattr(obj, "__dict__") and isinstance(vars(obj), Mapping):
        out += [(v, f"{path}.{k}") for k, v in vars(obj).items()]
    for cls in type(obj).__mro__:  # __slots__ (and slotted dataclasses)
        slots = cls.__dict__.get("__slots__", ())
        for name in [slots] if isinstance(slots, str) else slots:
            if name not in ("__dict__", "__weakref__") and hasattr(obj, name):
                out.append((getattr(obj, name), f"{path}.{name}"))
    if dataclasses.is_dataclass(obj):
        out += [(getattr(obj, f.name), f"{path}.{f.name}") for f in dataclasses.fields(obj)
                if hasattr(obj, f.name)]
    if isinstance(obj, types.MethodType):
        out.append((obj.__self__, f"{path}.__self__"))
    try:  # what pickle would write: constructor arguments, state, list and dict items
        reduced = obj.__reduce_ex__(4)
    except Exception:  # noqa: BLE001 - an unpicklable object: its attributes were walked
        reduced = None
    if isinstance(reduced, tuple):
        for i, part in enumerate(reduced):
            if i >= 3 and part is not None:  # listitems, dictitems iterators
                part = list(part)
            out.append((part, f"{path}.<reduce {i}>"))
    return out


def find_generators(root: Any) -> list[str]:
    """Paths (from ``root``) of every generator-like object reachable from ``root``."""
    return [path for path, _ in _walk(root)]


def _walk(root: Any) -> list[tuple[str, Any]]:
    """(path, object) of every generator-like object reachable from ``root``."""
    found: list[tuple[str, Any]] = []
    seen: dict[int, Any] = {}  # id -> object, kept alive so that no id is reused meanwhile
    stack = [(root, "obj")]
    while stack:
        obj, path = stack.pop()
        if isinstance(obj, _ATOMS) or id(obj) in seen:
            continue
        seen[id(obj)] = obj
        if isinstance(obj, GENERATOR_TYPES):
            found.append((f"{path}: {type(obj).__name__}", obj))
            continue
        stack.extend(_children(obj, path))
    return found


def _generators_in(obj: Any) -> list[str]:
    """Generators reachable from ``obj`` and from its unpickled copy."""
    copied = pickle.loads(pickle.dumps(obj))
    return find_generators(obj) + [f"(unpickled) {p}" for p in find_generators(copied)]


# ------------------------------------------------------------------ data and recipes
def _binary(n: int = 60, d: int = 3, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = 0.5 * rng.normal(size=(n, d))
    return X, (X @ np.arange(1.0, d + 1) > 0).astype(int)


def _multiclass(n: int = 90, d: int = 3, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 3
    return 0.4 * np.eye(3)[y][:, :d] + 0.2 * rng.normal(size=(n, d)), y


XB, YB = _binary()
XM, YM = _multiclass()
LIN = dict(lam=0.1, solver="native")
LM = dict(classes=[0, 1, 2], solver="native")


def _lr(rs: Any = None, **kw: Any) -> dp.PrivateLogisticRegression:
    return dp.PrivateLogisticRegression(**{**LIN, "random_state": rs, **kw})


def _pipe(rs: Any) -> Pipeline:
    return make_pipeline(dp.RandomFourierFeatures(n_components=8, gamma=0.5, random_state=rs),
                         _lr(rs, lam=0.05))


def _non_negative(coef: Any) -> list[Any]:
    """Coefficients in the non-negative orthant (a module-level function: a model pickles)."""
    return [coef >= 0]


def _on_dask(est: Any, X: np.ndarray, y: np.ndarray) -> Any:
    """``est`` fitted on X and y held in Dask arrays (threads; two row chunks)."""
    import dask
    import dask.array as da

    with dask.config.set(scheduler="threads"):
        chunk = (X.shape[0] + 1) // 2
        return est.fit(da.from_array(X, chunks=(chunk, X.shape[1])), da.from_array(y, chunks=chunk))


#: name -> (random_state -> fitted object). Every public estimator class is the subject of
#: at least one recipe (test_every_public_estimator_has_a_recipe).
def _table(X: np.ndarray) -> Any:
    """The rows as a table with named columns (a schema's input)."""
    import pandas as pd

    return pd.DataFrame(X, columns=[f"c{k}" for k in range(X.shape[1])])


RECIPES: dict[str, Callable[[Any], Any]] = {
    "PrivateLogisticRegression": lambda rs: _lr(rs).fit(XB, YB),
    "PrivateLogisticRegression one-vs-rest": lambda rs: _lr(rs).fit(XM, YM),
    "PrivateHuberSVM": lambda rs: dp.PrivateHuberSVM(**LIN, random_state=rs).fit(XB, YB),
    "PrivateLinearClassifier": lambda rs: dp.PrivateLinearClassifier(
        **LIN, mechanism="output", random_state=rs).fit(XB, YB),
    "PrivateLinearRegressor": lambda rs: dp.PrivateLinearRegressor(
        epsilon=1.0, label_range=(-2.0, 2.0), random_state=rs).fit(XB, XB[:, 0]),
    "PrivateLinearRegressor pinball over the orthant": lambda rs: dp.PrivateLinearRegressor(
        loss="pinball", constraints=_non_negative, epsilon=1.0, label_range=(-2.0, 2.0),
        random_state=rs).fit(XB, XB[:, 0]),
    "PrivateLinearRegressor in a Pipeline": lambda rs: make_pipeline(
        dp.PublicEncoder(dp.PublicSchema.from_ranges([(-3.0, 3.0)] * XB.shape[1])),
        dp.PrivateLinearRegressor(epsilon=1.0, label_range=(-2.0, 2.0), random_state=rs)).fit(
        XB, XB[:, 0]),
    "PrivateLinearRegressor on Dask rows": lambda rs: _on_dask(dp.PrivateLinearRegressor(
        epsilon=1.0, label_range=(-2.0, 2.0), random_state=rs), XB, XB[:, 0]),
    "PrivateHuberRegressor": lambda rs: dp.PrivateHuberRegressor(
        epsilon=1.0, label_range=(-2.0, 2.0), random_state=rs).fit(XB, XB[:, 0]),
    "PrivateQuantileRegressor": lambda rs: dp.PrivateQuantileRegressor(
        quantile=0.8, epsilon=1.0, label_range=(-2.0, 2.0), random_state=rs).fit(XB, XB[:, 0]),
    "PrivateQuantileRegressor on Dask rows": lambda rs: _on_dask(dp.PrivateQuantileRegressor(
        epsilon=1.0, delta=1e-5, label_range=(-2.0, 2.0), random_state=rs), XB, XB[:, 0]),
    "PrivateLinearRegression": lambda rs: dp.PrivateLinearRegression(
        epsilon=1.0, label_range=(-2.0, 2.0), random_state=rs).fit(XB, XB[:, 0]),
    "PrivateLinearRegression gaussian": lambda rs: dp.PrivateLinearRegression(
        epsilon=1.0, delta=1e-5, label_range=(-2.0, 2.0), random_state=rs).fit(XB, XB[:, 0]),
    "PrivateRegressor": lambda rs: dp.PrivateRegressor(
        epsilon=1.0, label_range=(-2.0, 2.0), random_state=rs).fit(XB, XB[:, 0]),
    "PrivateRegressor with a private label range": lambda rs: dp.PrivateRegressor(
        epsilon=20.0, label_range="private", random_state=rs).fit(XB, XB[:, 0]),
    "PrivateLinearRegression with a private label range": lambda rs: dp.PrivateLinearRegression(
        epsilon=20.0, label_range=dp.PrivateBounds(0.2), random_state=rs).fit(XB, XB[:, 0]),
    "PrivateClassifier on a released schema": lambda rs: dp.PrivateClassifier(
        epsilon=1.0, classes=[0, 1], random_state=rs,
        schema=dp.draft_schema(_table(XB), epsilon=XB.shape[1] * 2.0, random_state=rs)).fit(
            _table(XB), YB),
    "PrivateRegressor safeguarded model": lambda rs: dp.PrivateRegressor(
        epsilon=500.0, label_range=(-2.0, 2.0), safeguard=True, random_state=rs).fit(
        XB, XB[:, 0]),
    "NoisyGradientDescent": lambda rs: dp.NoisyGradientDescent(
        epsilon=1.0, steps=5, radius=2.0, random_state=rs).fit(XB, YB),
    "NoisyGradientDescent one-vs-rest": lambda rs: dp.NoisyGradientDescent(
        epsilon=1.0, steps=5, radius=2.0, random_state=rs).fit(XM, YM),
    "PrivateGaussianCentroid": lambda rs: dp.PrivateGaussianCentroid(
        epsilon=1.0, random_state=rs).fit(XM, YM),
    "PrivateGaussianNB": lambda rs: dp.PrivateGaussianNB(
        epsilon=1.0, random_state=rs).fit(XM, YM),
    "PrivateGaussianNB gaussian on Dask rows": lambda rs: _on_dask(dp.PrivateGaussianNB(
        epsilon=1.0, delta=1e-5, random_state=rs), XM, YM),
    "RandomFourierFeatures": lambda rs: dp.RandomFourierFeatures(
        n_components=8, random_state=rs).fit(XB),
    "PrivateClassifier binary": lambda rs: dp.PrivateClassifier(
        epsilon=1.0, random_state=rs).fit(XB, YB),
    "PrivateClassifier multiclass": lambda rs: dp.PrivateClassifier(
        epsilon=1.0, delta=1e-5, random_state=rs).fit(XM, YM),
    "PrivateClassifier naive Bayes": lambda rs: dp.PrivateClassifier(
        epsilon=1.0, feature_range=(-1.0, 1.0), random_state=rs).fit(XM, YM),
    "PrivateLargeMarginGaussian softmax": lambda rs: dp.PrivateLargeMarginGaussian(
        **LM, random_state=rs).fit(XM, YM),
    "PrivateLargeMarginGaussian pairwise": lambda rs: dp.PrivateLargeMarginGaussian(
        **LM, loss="pairwise", lam=1.0, random_state=rs).fit(XM, YM),
    "PrivateLargeMarginGaussian centroid switch": lambda rs: dp.PrivateLargeMarginGaussian(
        classes=[0, 1, 2], delta=1e-5, random_state=rs).fit(XM, YM),
    "PrivateLargeMarginGaussian K=2 dp_kmeans": lambda rs: dp.PrivateLargeMarginGaussian(
        classes=[0, 1], n_components=2, component_assignment="dp_kmeans", solver="native",
        random_state=rs).fit(XB, YB),
    "PrivateGridSearch": lambda rs: dp.PrivateGridSearch(
        _lr(), {"lam": [0.05, 0.5]}, epsilon=1.0, random_state=rs).fit(XB, YB),
    "PrivateGridSearch over a Pipeline": lambda rs: dp.PrivateGridSearch(
        _pipe(None), {"privatelogisticregression__lam": [0.05, 0.5]}, epsilon=1.0,
        random_state=rs).fit(XB, YB),
    "PrivateRandomSearch": lambda rs: PrivateRandomSearch(
        _lr(), {"lam": [0.05, 0.5]}, epsilon=1.0, mean_runs=3, random_state=rs).fit(XB, YB),
    "PrivateRandomSearch over a Pipeline": lambda rs: PrivateRandomSearch(
        _pipe(None), {"privatelogisticregression__lam": [0.05, 0.5]}, epsilon=1.0,
        mean_runs=3, random_state=rs).fit(XB, YB),
    "Pipeline": lambda rs: _pipe(rs).fit(XB, YB),
    "epsilon_sweep": lambda rs: dp.epsilon_sweep(_lr(), XB, YB, [0.5, 2.0], runs=2,
                                                 random_state=rs),
    "epsilon_sweep large margin K=2 dp_kmeans": lambda rs: dp.epsilon_sweep(
        dp.PrivateLargeMarginGaussian(classes=[0, 1], n_components=2, solver="native",
                                      component_assignment="dp_kmeans"),
        XB, YB, [1.0, 4.0], random_state=rs),
    "epsilon_sweep of a search": lambda rs: dp.epsilon_sweep(
        dp.PrivateGridSearch(_lr(), {"lam": [0.05, 0.5]}, epsilon=1.0), XB, YB, [1.0],
        random_state=rs),
}


def _fit(name: str, rs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # noise-dominance warnings on these tiny sets
        return RECIPES[name](rs)


@functools.cache
def _fitted(name: str, rs: int | None) -> Any:
    """``_fit(name, rs)``, fitted once per test process for the tests that only read the
    fitted object (walk it, pickle it, read its parameters and certificate); a test that
    changes the object works on a deep copy."""
    return _fit(name, rs)


def _subjects(obj: Any) -> set[type]:
    """Classes of the estimators a recipe fits (the fitted object and what it stores)."""
    out = {type(obj)}
    for est in getattr(obj, "estimators", [[]])[0]:  # EpsilonSweep
        out.add(type(est))
    if isinstance(obj, Pipeline):
        out |= {type(s) for _, s in obj.steps}
    if hasattr(obj, "best_estimator_"):
        out |= _subjects(obj.best_estimator_)
    if hasattr(obj, "estimator_"):  # the front door's learner
        out |= _subjects(obj.estimator_)
    return out


@functools.cache
def _public_estimators() -> dict[str, type]:
    """Every public estimator class defined in a dpconvex module (a base class that takes no
    ``random_state``, such as the estimators' common base, is not an estimator to fit)."""
    found = {}
    for info in pkgutil.walk_packages(dp.__path__, "dpconvex."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if (inspect.isclass(obj) and issubclass(obj, BaseEstimator)
                    and obj.__module__.startswith("dpconvex") and not name.startswith("_")
                    and "random_state" in inspect.signature(obj).parameters):
                found[name] = obj
    return found


# ------------------------------------------------------------------ the scan
@pytest.mark.slow
def test_every_public_estimator_has_a_recipe():
    public = _public_estimators()
    exported = {n for n in dp.__all__ if inspect.isclass(getattr(dp, n))
                and issubclass(getattr(dp, n), BaseEstimator)
                and "random_state" in inspect.signature(getattr(dp, n)).parameters}
    assert exported <= set(public)
    assert {"PrivateRandomSearch", "PrivateGridSearch", "RandomFourierFeatures"} <= set(public)
    covered: set[type] = set()
    for name in RECIPES:
        covered |= _subjects(_fit(name, SEED))
    missing = sorted(n for n, cls in public.items() if cls not in covered)
    assert not missing, f"add a recipe for {missing} to RECIPES"


@pytest.mark.parametrize("rs", [None, SEED], ids=["random_state=None", "random_state=int"])
@pytest.mark.parametrize("name", list(RECIPES))
def test_no_generator_reachable(name, rs):
    fitted = _fitted(name, rs)
    assert _generators_in(fitted) == []


def test_no_generator_reachable_from_a_sweep_seeded_with_a_generator():
    sweep = _fit("epsilon_sweep", np.random.default_rng(SEED))
    assert _generators_in(sweep) == []
    assert all(est.random_state is None for row in sweep.estimators for est in row)


# ------------------------------------------------------------------ the walker can fail
@dataclasses.dataclass(frozen=True, slots=True)
class _Slotted:
    payload: Any


class _Slots:
    __slots__ = ("payload",)

    def __init__(self, payload: Any):
        self.payload = payload


class _HiddenInPickle:
    """Holds nothing, but its pickle carries a generator (only ``__reduce_ex__`` shows it)."""

    def __reduce__(self):
        return (_HiddenInPickle._rebuild, (np.random.default_rng(0),))

    @staticmethod
    def _rebuild(_: Any) -> _HiddenInPickle:
        return _HiddenInPickle()


def _closure_over(g: Any) -> Callable[[], Any]:
    return lambda: g


PLANTS: dict[str, Callable[[], Any]] = {
    "attribute": lambda: np.random.default_rng(),
    "nested containers": lambda: {"a": [(1, {np.random.default_rng()})]},
    "dict key": lambda: {np.random.default_rng(): 1},
    "slots": lambda: _Slots(np.random.default_rng()),
    "slotted dataclass": lambda: _Slotted(np.random.default_rng()),
    "object array": lambda: np.array([None, np.random.default_rng()], dtype=object),
    "closure": lambda: _closure_over(np.random.default_rng()),
    "bound sampler": lambda: np.random.default_rng().normal,
    "partial": lambda: functools.partial(np.random.Generator.normal, np.random.default_rng()),
    "reduce state only": _HiddenInPickle,
    "bit generator": lambda: np.random.PCG64(),
    "seed sequence": lambda: np.random.default_rng().bit_generator.seed_seq,
    "spawned child": lambda: np.random.default_rng().spawn(1),
    "RandomState": lambda: np.random.RandomState(0),
    "random.Random": lambda: random.Random(0),
}


@pytest.mark.parametrize("where", list(PLANTS))
def test_the_walker_finds_a_planted_generator(where):
    est = copy.deepcopy(_fitted("PrivateLogisticRegression", SEED))
    assert find_generators(est) == []
    est.extra_ = PLANTS[where]()
    assert find_generators(est), where
    if where != "closure":  # a lambda does not pickle; everything else must be found there too
        assert find_generators(pickle.loads(pickle.dumps(est))), where


def test_the_walker_finds_a_generator_stored_as_a_sub_estimator_parameter():
    # a search that set a spawned child generator as its candidates' random_state would
    # store it on best_estimator_
    gs = copy.deepcopy(_fitted("PrivateGridSearch", None))
    gs.best_estimator_.random_state = np.random.default_rng().spawn(1)[0]
    assert any("best_estimator_" in p for p in _generators_in(gs))


# ------------------------------------------------------------------ refusal and stored values
GENERATORS: dict[str, Callable[[], Any]] = {
    "Generator": np.random.default_rng,
    "BitGenerator": np.random.PCG64,
    "SeedSequence": np.random.SeedSequence,
    "RandomState": np.random.RandomState,
    "random.Random": random.Random,
}


@pytest.mark.parametrize("kind", list(GENERATORS))
@pytest.mark.parametrize("name", sorted(_public_estimators()))
def test_a_generator_random_state_is_refused_by_name(name, kind):
    cls = _public_estimators()[name]
    if name in ("PrivateGridSearch", "PrivateRandomSearch"):
        est = cls(_lr(), {"lam": [0.05, 0.5]}, epsilon=1.0, random_state=GENERATORS[kind]())
    else:
        required = [k for k, v in inspect.signature(cls).parameters.items()
                    if v.default is inspect.Parameter.empty and k != "self"]
        assert set(required) <= {"epsilon"}, required
        est = cls(**dict.fromkeys(required, 1.0), random_state=GENERATORS[kind]())
    args = (XB,) if name == "RandomFourierFeatures" else (XB, YB)
    with pytest.raises(dp.ParameterError, match="random_state") as err:
        est.fit(*args)
    msg = str(err.value)
    assert name in msg and "replay" in msg and "None" in msg and "int" in msg


@pytest.mark.parametrize("where", ["search estimator", "search Pipeline step", "Pipeline step"])
def test_a_generator_in_a_candidate_or_step_is_refused(where):
    # the search keeps its unfitted estimator: a generator there would be reachable too
    rff = dp.RandomFourierFeatures(8, random_state=np.random.default_rng())
    make = {
        "search estimator": lambda: dp.PrivateGridSearch(
            _lr(np.random.default_rng()), {"lam": [0.05, 0.5]}, epsilon=1.0),
        "search Pipeline step": lambda: PrivateRandomSearch(
            make_pipeline(rff, _lr()), {"privatelogisticregression__lam": [0.05]}, epsilon=1.0),
        "Pipeline step": lambda: make_pipeline(rff, _lr()),
    }[where]
    with pytest.raises(dp.ParameterError, match="replay"):
        make().fit(XB, YB)


@pytest.mark.parametrize("rs", [None, SEED])
def test_stored_sub_estimators_keep_the_callers_random_state(rs):
    for name in ("PrivateGridSearch", "PrivateRandomSearch"):
        assert _fitted(name, rs).best_estimator_.random_state == rs
    for name in ("PrivateGridSearch over a Pipeline", "PrivateRandomSearch over a Pipeline"):
        best = _fitted(name, rs).best_estimator_
        assert [s.random_state for _, s in best.steps] == [rs, rs]
    sweep = _fitted("epsilon_sweep", rs)
    assert [e.random_state for row in sweep.estimators for e in row] == [rs] * 4


@pytest.mark.parametrize("name", ["PrivateLogisticRegression one-vs-rest", "PrivateGridSearch",
                                  "PrivateRandomSearch", "epsilon_sweep",
                                  "PrivateLargeMarginGaussian K=2 dp_kmeans",
                                  "PrivateLargeMarginGaussian centroid switch",
                                  "NoisyGradientDescent one-vs-rest"])
def test_certificate_says_seeded_exactly_when_the_caller_seeded(name):
    def seeded(obj: Any) -> bool:  # the certificate or one of its parts
        if hasattr(obj, "estimators"):
            return any(seeded(e) for row in obj.estimators for e in row)
        certificates = [obj.certificate_]
        while certificates:
            certificate = certificates.pop()
            if certificate.seeded:
                return True
            certificates += certificate.parts
        return False

    assert not seeded(_fitted(name, None))
    assert seeded(_fitted(name, SEED))


def test_search_draws_are_those_of_the_seed():
    # the int seed reproduces the fit bit for bit; None draws afresh
    a, b = _fit("PrivateRandomSearch", SEED), _fit("PrivateRandomSearch", SEED)
    np.testing.assert_array_equal(a.best_estimator_.coef_, b.best_estimator_.coef_)
    c, d = _fit("PrivateGridSearch", None), _fit("PrivateGridSearch", None)
    assert not np.array_equal(c.best_estimator_.coef_, d.best_estimator_.coef_)


def test_noise_handed_to_a_fit_is_that_fits_only():
    est = _lr(classes=[0, 1])
    twin = clone(est)
    rng = np.random.default_rng(SEED)

    def handed(to):  # a copy of rng, handed to the fit of ``to``
        return [(to, NoiseSource(copy.deepcopy(rng), seeded=True))]

    a = fit_with(est, XB, YB, NO_CONTEXT, handed(est)).coef_.copy()
    b = fit_with(twin, XB, YB, NO_CONTEXT, handed(est)).coef_.copy()  # another object: OS entropy
    c = fit_with(est, XB, YB, NO_CONTEXT, handed(est)).coef_.copy()
    d = est.fit(XB, YB).coef_.copy()  # a plain fit: OS entropy again
    np.testing.assert_array_equal(a, c)
    assert not np.array_equal(a, b) and not np.array_equal(a, d)
    assert not est.certificate_.seeded


# ------------------------------------------------------------------ audit and replay attack
AUDIT_EPS = 1.0
AUDIT_CONFIDENCE = 0.95  # each bound exceeds the true epsilon with probability <= 5 %


def _audit_pair() -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    # record 0: x = e_0 at the norm bound, label +1 in D and -1 in D' (the other 9 rows are
    # zero rows with alternating labels): coefficient 0 is the differing record's alone
    X, y, Xp, yp = linear_erm_pair(10, 1, random_state=0)
    return (X, y), (Xp, yp)


def _search(epsilon: float = AUDIT_EPS, cls: type = PrivateRandomSearch) -> Any:
    """The audited release: random search over lam, the real estimator, random_state=None."""
    base = dp.PrivateLogisticRegression(classes=[-1.0, 1.0], solver="native")
    return cls(base, {"lam": [0.5, 1.0]}, epsilon=epsilon, mean_runs=2, classes=[-1.0, 1.0])


def _released(search: Any) -> np.ndarray:
    best = search.best_estimator_
    return np.r_[best.coef_.ravel(), best.intercept_]


def _as_generator(g: Any) -> np.random.Generator | None:
    if isinstance(g, np.random.Generator):
        return copy.deepcopy(g)
    if isinstance(g, np.random.BitGenerator):
        return np.random.Generator(copy.deepcopy(g))
    if isinstance(g, np.random.SeedSequence):
        return np.random.default_rng(g)
    return None


class _ReplayAttack:
    """The audited output of each run, and on the side the attack of a holder of the pickle.

    The attacker knows D. It unpickles the released search and looks for a generator; for
    each one it refits a search with the released parameters on D, drawing from a copy of
    that generator, and says "D" (flag 1) when the refit releases the same parameters bit
    for bit. ``found`` counts the generators it found.
    """

    def __init__(self, D: tuple[np.ndarray, np.ndarray]):
        self.D, self.flags, self.found = D, [], 0

    def __call__(self, search: Any) -> np.ndarray:
        released = _released(search)
        held = pickle.loads(pickle.dumps(search))
        gens = [g for g in (_as_generator(obj) for _, obj in _walk(held)) if g is not None]
        self.found += len(gens)
        self.flags.append(float(any(self._replays(held, g, released) for g in gens)))
        return released

    def _replays(self, held: Any, rng: np.random.Generator, released: np.ndarray) -> bool:
        trial = PrivateRandomSearch(**held.get_params(deep=False))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit_with(trial, *self.D, NO_CONTEXT, [(trial, NoiseSource(rng, seeded=True))])
        return bool(np.array_equal(_released(trial), released))


def _keeps_its_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    """Mutant: the shipped search keeps a copy of the generator it draws from (before any
    draw). Set on the class dpconvex ships, since a subclass of the user's is not handed the
    audit's context (only the exact shipped class is)."""
    shipped = PrivateRandomSearch._fit_with

    def keeps(self: Any, X: Any, y: Any, context: Any) -> Any:
        self.noise_generator_ = copy.deepcopy(noise_source(self, context.noise).rng)
        return shipped(self, X, y, context)

    monkeypatch.setattr(PrivateRandomSearch, "_fit_with", keeps)


def _audit_search(search: Any, n_runs: int, seed: int) -> tuple[Any, Any, _ReplayAttack]:
    """Audit ``search`` through EstimatorMechanism (one real fit per run) on the pair; the
    model bound (default statistic: projection, chosen on held-out runs) and the replay
    bound (the attacker's flag, event and direction fixed in advance: {flag = 1}, D on top)."""
    D, Dp = _audit_pair()
    attack = _ReplayAttack(D)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = audit(EstimatorMechanism(search, output=attack), D, Dp, n_runs=n_runs,
                      confidence=AUDIT_CONFIDENCE, random_state=seed)
    flags = np.array(attack.flags)  # audit runs D first, then D'
    replay = epsilon_lower_bound(flags[:n_runs], flags[n_runs:], statistic=None, threshold=0.5,
                                 direction="above:D", confidence=AUDIT_CONFIDENCE)
    return model, replay, attack


@pytest.mark.slow
def test_random_search_audit_through_the_real_fit():
    # random_state=None; every run is PrivateRandomSearch.fit with the audit's generator
    # handed to it. 200 runs per data set (100 select the event, 100 evaluate). With fixed
    # seeds the outcome is deterministic; the false-alarm rate of each bound is <= 5 %.
    model, replay, attack = _audit_search(_search(), n_runs=200, seed=2024)
    assert model.epsilon_lower_bound <= AUDIT_EPS, f"PRIVACY BUG? {model}"
    assert attack.found == 0 and replay.epsilon_lower_bound == 0.0, replay


@pytest.mark.slow
def test_random_search_audit_has_power():
    # the same pair, statistic and audit detect a loss above 1 when there is one: the search
    # at epsilon = 50 (claimed 50), 100 runs: bound 2.30 at this seed (1.90, 2.43 at seeds 1, 2)
    model, _, _ = _audit_search(_search(50.0), n_runs=100, seed=2025)
    assert model.epsilon_lower_bound > AUDIT_EPS, model


@pytest.mark.slow
def test_replay_attack_catches_a_kept_generator(monkeypatch):
    # the mutant keeps its generator: the attacker finds it in every pickle, and its replay
    # on D reproduces the release exactly when the run was on D (on D' only when the
    # differing record fell in the validation part and the same run won: 3 of 60 here);
    # the replay bound is 1.91 at this seed
    _keeps_its_generator(monkeypatch)
    _, replay, attack = _audit_search(_search(), n_runs=60, seed=2026)
    assert attack.found == 120
    assert sum(attack.flags[:60]) == 60
    assert replay.epsilon_lower_bound > AUDIT_EPS, replay


@pytest.mark.slow
def test_random_search_audit_through_the_real_fit_many_runs():
    model, replay, attack = _audit_search(_search(), n_runs=2000, seed=2027)
    assert model.epsilon_lower_bound <= AUDIT_EPS, f"PRIVACY BUG? {model}"
    assert attack.found == 0 and replay.epsilon_lower_bound == 0.0, replay
