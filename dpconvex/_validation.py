"""The checks any module of dpconvex may import (this one imports only :mod:`dpconvex.errors`),
in scikit-learn's message style: the parameter rules of ``_parameter_constraints``
(:class:`Constraint`), the random-number generators, the entries of an array
(:func:`check_numeric_dtype`: real numbers; :func:`check_matrix_body`: shape and finiteness,
shared by the dense, sparse and Dask forms of X), feature names and the signing of refusals.
Which form X and y take and how a label set encodes y is the data layer's
(:mod:`dpconvex.data.validation`).

Random-number generators are parameters too, and this is the one place that hands out the
noise of a fit. A fitted model never holds a generator (whoever holds the model or its pickle
could replay the noise of the release): an estimator's ``random_state`` is None or a non-negative int
(:func:`check_seed`), every fit takes its generator from :func:`noise_source`, a
meta-estimator hands its sub-fits a :class:`NoiseSource` as an argument, and function-level
APIs that do not keep their generator accept one through :func:`check_random_state`
(docs/privacy/accuracy_randomness.md#privacy-accuracy-randomness, "No generator on a model").
"""

from __future__ import annotations

import contextlib
import datetime
import decimal
import functools
import itertools
import math
import numbers
import os
import random
import re
import sys
import types
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import (
    DataTypeError,
    DataValidationError,
    NotFittedError,
    ParameterError,
    PrivacyError,
    SolverError,
)

#: Accepted magnitudes of a nonzero float parameter: outside them float64 products such as
#: n·λ, ε/Δ or Δ/ε over- or underflow (``lam=1e308``: n·λ = inf; ``epsilon=5e-324``: ε/(4r) = 0).
MIN_MAGNITUDE = 1e-100
MAX_MAGNITUDE = 1e100



def is_dpconvex_class(cls: Any) -> bool:
    """Whether dpconvex defines the class ``cls``: the object a module of dpconvex names
    ``cls.__qualname__`` (a class that only says so in its ``__module__`` is not).

    Read at each call, never kept per class: what it reads can change for the same class
    object (``__module__`` and ``__qualname__`` are assignable, and ``sys.modules`` and a
    module's names can be rebound), and a dict keyed by the class would run the hashing and
    comparison of its metaclass, which may be the user's.

    Examples
    --------
    >>> from dpconvex._validation import is_dpconvex_class
    >>> forged = type("Logistic", (Logistic,), {"__module__": "dpconvex.objectives.losses"})
    >>> is_dpconvex_class(Logistic), is_dpconvex_class(forged)
    (True, False)
    """
    name = getattr(cls, "__module__", None) or ""
    found: Any = sys.modules.get(name) if name.startswith("dpconvex.") else None
    for part in str(getattr(cls, "__qualname__", "")).split("."):
        found = getattr(found, part, None)
    return found is not None and found is cls


def is_dpconvex_function(fn: Any) -> bool:
    """Whether ``fn`` is a function whose code was compiled from a file of dpconvex (a function that
    only says so in its ``__module__`` is not).

    Examples
    --------
    >>> from dpconvex._validation import is_dpconvex_function
    >>> from dpconvex.objectives.losses import hinge
    >>> is_dpconvex_function(hinge), is_dpconvex_function(lambda m: m)
    (True, False)
    """
    code = getattr(fn, "__code__", None) if isinstance(fn, types.FunctionType) else None
    # ("<string>" of python -c is not a file of dpconvex)
    path = "" if code is None else code.co_filename
    return os.path.isabs(path) and path.startswith(_PACKAGE + os.sep)


_PACKAGE = os.path.dirname(os.path.abspath(__file__))


#: Containers of at most this many plain scalars are shown as typed (``classes=[0, 1, 1]``);
#: longer ones, and any holding an array, a container or an object, by type and length only.
SHOWN_ITEMS = 8

#: Scalars a user types. A NumPy scalar is not one inside a container: ``list(X[0])`` holds
#: NumPy scalars read from an array, so such a container is described, not shown.
_PLAIN_SCALARS = (numbers.Number, str, bytes, type(None))

#: Items of a long container whose types a description names (the rest are not read).
_SAMPLED_ITEMS = 64


def _is_plain(value: Any) -> bool:
    """Whether ``value`` is a scalar a user types: a number, a string or None (not NumPy's)."""
    return isinstance(value, _PLAIN_SCALARS) and not isinstance(value, (np.generic, np.ndarray))


def describe_value(value: Any, limit: int = 60) -> str:
    """``value`` described for a message on a parameter: what was passed, never the user's data.

    A scalar (a NumPy scalar included), a string, a ``range``, and a list, tuple, set or dict
    of at most :data:`SHOWN_ITEMS` plain scalars (Python numbers, strings, None), is its
    ``repr`` cut to ``limit`` characters: what a user types, so ``classes=[0, 1, 1]`` still
    shows the repeated label. An array, a pandas object, anything with a ``shape``, a longer
    container, one holding NumPy scalars (``list(X[0])``), arrays, containers or other
    objects, and any other iterable (a deque, a generator, ``dict.values()``) is named by its
    type, shape or length and dtype only, cut to ``limit``: such a value is likely a slice of
    the data passed where a parameter belongs (``classes=y``), and a message may be logged or
    shown. An int too long to print is named by its number of digits.

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex._validation import describe_value
    >>> describe_value([0, 1, 1]), describe_value(0.5)
    ('[0, 1, 1]', '0.5')
    >>> describe_value(np.array([[789.0, 1.5], [2.0, 3.0]]))
    'an array of shape (2, 2) and dtype float64'
    >>> describe_value(list(np.array([789.0, 1.5])))
    'a list of length 2 holding float64'
    >>> describe_value(list(range(500)))
    'a list of length 500 holding int'
    """
    if isinstance(value, (np.generic, str, bytes, range)) or _is_plain(value):
        return _cut(_repr(value), limit)
    shape = _shape_of(value)
    if shape is not None:
        return _cut(_describe_array(value, shape), limit)
    if isinstance(value, (list, tuple, set, frozenset, Mapping)):
        size = _length(value)
        if size is not None and size <= SHOWN_ITEMS:
            flat = _sampled_parts(value)
            if all(_is_plain(part) for part in flat):
                return _cut(_repr(value), limit)
        return _cut(_describe_container(value), limit)
    if isinstance(value, Iterable):
        return _cut(_describe_container(value), limit)
    return _cut(_repr(value), limit)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _repr(value: Any) -> str:
    """``repr(value)``; an int too long to print by its digits, a failing repr by its type."""
    try:
        return repr(value)
    except ValueError:  # int above sys.get_int_max_str_digits(), or a value holding one
        if isinstance(value, int):
            return f"an int of about {int(value.bit_length() * 0.30103)} digits"
        return f"{_article(type(value).__name__)} holding an int too long to print"
    except Exception:  # noqa: BLE001 - a message must not fail on the value it describes
        return f"{_article(type(value).__name__)} object"


def _shape_of(value: Any) -> Any:
    """``value.shape``, or None when it has none or reading it fails."""
    try:
        return getattr(value, "shape", None)
    except Exception:  # noqa: BLE001 - a property that raises: described by type
        return None


def _length(value: Any) -> int | None:
    """``len(value)``, or None when it has none (a generator) or it cannot be read."""
    try:
        return len(value)
    except Exception:  # noqa: BLE001 - range(10**30), objects without a length
        return None


def _sampled_parts(value: Any) -> list[Any]:
    """The first :data:`_SAMPLED_ITEMS` items of a sized container (keys and values of a
    mapping); nothing of an iterator, which reading would consume."""
    if isinstance(value, Iterator) or _length(value) is None:
        return []
    try:
        items = value.items() if isinstance(value, Mapping) else value
        sample = list(itertools.islice(iter(items), _SAMPLED_ITEMS))
    except Exception:  # noqa: BLE001 - a container that fails to iterate: described by type
        return []
    if isinstance(value, Mapping):
        return [part for item in sample for part in item]
    return sample


def _article(word: str) -> str:
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"


def _describe_array(value: Any, shape: Any) -> str:
    """An array-like by type, shape and dtype (a DataFrame has dtypes, one per column).

    A dtype is read only when it is one (NumPy's or a pandas extension dtype): a DataFrame
    with a column named ``dtype`` answers ``df.dtype`` with that column.
    """
    try:  # a lazy frame's unknown length is "?" (a Dask row count is not computed)
        dims = tuple(int(d) if isinstance(d, (int, np.integer)) else "?" for d in shape)
        shown = str(dims).replace("'?'", "?")
    except Exception:  # noqa: BLE001 - a shape that is not a tuple
        shown = "unknown"
    kind = "array" if isinstance(value, np.ndarray) else type(value).__name__
    text = f"{_article(kind)} of shape {shown}"
    try:
        dtype = getattr(value, "dtype", None)
    except Exception:  # noqa: BLE001 - a property that raises: no dtype shown
        dtype = None
    if not (isinstance(dtype, np.dtype) or hasattr(type(dtype), "kind")):
        return text
    return f"{text} and dtype {dtype}"


def _describe_container(value: Any) -> str:
    """A container by type, length and the types of its first items (at most three named)."""
    kinds = sorted({type(part).__name__ for part in _sampled_parts(value)})
    held = ", ".join(kinds[:3]) + (", ..." if len(kinds) > 3 else "")
    size = _length(value)
    text = _article(type(value).__name__)
    if size is not None:
        text = f"{text} of length {size}"
    return f"{text} holding {held}" if held else text


def _short_repr(value: Any, limit: int = 60) -> str:
    """:func:`describe_value`: what a parameter's refusal shows of the value passed."""
    return describe_value(value, limit)


def _interval(low: float, high: float, low_inclusive: bool, high_inclusive: bool) -> str:
    """The interval as the messages write it: "(0, inf)", "[0, 1)"."""
    top = "inf" if math.isinf(high) else f"{high:g}"
    return f"{'[' if low_inclusive else '('}{low:g}, {top}{']' if high_inclusive else ')'}"


def _as_float(value: Any) -> float:
    """``float(value)`` of a real number (:func:`check_float`): a finite ``Decimal`` beyond
    float64 raises OverflowError, as an int's does (``float`` would round it to inf), and a
    Decimal NaN, signalling or quiet, is NaN."""
    if isinstance(value, decimal.Decimal):
        if value.is_nan():
            return math.nan
        if value.is_finite() and math.isinf(float(value)):
            raise OverflowError  # refused by check_float as a number beyond float64
    return float(value)


def check_float(name: str, value: Any, owner: str, *, low: float = 0.0, high: float = math.inf,
                low_inclusive: bool = False, high_inclusive: bool = False, allow_inf: bool = False,
                magnitude: bool = True, noun: str = "parameter") -> float:
    """Return ``value`` as a float in the stated interval, or raise :class:`ParameterError`.

    ``value`` is an int, float, NumPy scalar, ``Fraction`` or ``Decimal`` (the nearest float;
    a Decimal NaN or infinity is refused as the float's is): bool, non-numbers and numbers too
    large for float64 (``10**400``, ``Decimal("1e400")``) are refused, not rounded to inf.
    ``allow_inf`` accepts +inf (an unlimited budget).
    ``magnitude`` also requires a nonzero finite value to lie in [:data:`MIN_MAGNITUDE`,
    :data:`MAX_MAGNITUDE`] = [1e-100, 1e100], so the calibrations (products and quotients of a few parameters
    and n) stay finite and nonzero in float64. The message names ``name`` of ``owner`` (its
    ``noun``: "parameter", or "argument" of a function) and the accepted range.
    """
    real = (numbers.Real, np.floating, np.integer, decimal.Decimal)
    if isinstance(value, bool) or not isinstance(value, real):
        raise Float(low, high, low_inclusive, high_inclusive).refusal(name, value, owner, noun)
    v: float | None = None
    try:
        v = _as_float(value)
    except (OverflowError, ValueError, TypeError):
        pass  # refused below, outside the handler: no context holds the conversion's text
    if v is None:
        raise ParameterError(
            f"The '{name}' {noun} of {owner} must be a finite float in "
            f"{_interval(low, high, low_inclusive, high_inclusive)}; {_short_repr(value)} does "
            "not fit in a float64 (largest about 1.8e308). Pass a float of magnitude at most "
            f"{MAX_MAGNITUDE:g}."
        )
    # NaN is in no interval; an infinity only where allow_inf takes +inf
    inside = ((v >= low if low_inclusive else v > low)
              and (v <= high if high_inclusive else v < high))
    if not (inside and math.isfinite(v) or allow_inf and v == math.inf):
        raise Float(low, high, low_inclusive, high_inclusive).refusal(name, value, owner, noun)
    if magnitude and math.isfinite(v) and v != 0.0 and not (
            MIN_MAGNITUDE <= abs(v) <= MAX_MAGNITUDE):
        raise ParameterError(
            f"The '{name}' {noun} of {owner} must be a float in "
            f"{_interval(low, high, low_inclusive, high_inclusive)} of magnitude between "
            f"{MIN_MAGNITUDE:g} and {MAX_MAGNITUDE:g}: outside that range float64 products "
            "such as n*lam or epsilon/sensitivity overflow or underflow (division by zero, "
            f"infinite noise). Got {_short_repr(value)} instead."
        )
    return v


#: Cap of every integer parameter without a tighter one of its own: 2**53, the largest
#: int float64 counts exactly (iteration counts and sizes enter float arithmetic, where
#: an int such as 10**400 does not even convert).
MAX_INT = 2**53
#: Cap of solver iterations (``max_iter``): a solve that has not met its tolerance in a
#: million iterations will not; the cap bounds the time of a fit.
MAX_ITER = 10**6
#: Cap of the float64 entries one parameter array may take (800 MB): a model or feature map
#: above it would not fit in memory on ordinary machines (checked where its shape is known).
MAX_ARRAY_ENTRIES = 10**8


def check_int(
    name: str, value: Any, owner: str, *, low: int = 1, high: int = MAX_INT, why: str = "",
    noun: str = "parameter"
) -> int:
    """Return ``value`` (an int or NumPy integer; not a bool) in [low, high], or raise
    :class:`ParameterError` naming the ``noun`` ``name`` of ``owner``; ``why`` (memory, time)
    is the reason given for ``high``. A parameter with a bound of its own (``high`` below
    :data:`MAX_INT`) gets one message for every value refused, the range and ``why``."""
    is_int = not isinstance(value, bool) and isinstance(value, (numbers.Integral, np.integer))
    if is_int and low <= int(value) <= high:
        return int(value)
    above = is_int and int(value) > high
    if high >= MAX_INT and not above:
        raise ParameterError(
            f"The '{name}' {noun} of {owner} must be an int >= {low}. Got {_short_repr(value)} "
            "instead."
        )
    reason = why or ("larger values are not representable in the float64 arithmetic that "
                     "uses it" if above else "")
    raise ParameterError(
        f"The '{name}' {noun} of {owner} must be an int in [{low}, {high:,}]"
        f"{': ' + reason if reason else ''}. Got {_short_repr(value)} instead."
    )


def check_array_entries(entries: int, what: str, caller: str, fix: str) -> None:
    """Refuse a parameter array of more than :data:`MAX_ARRAY_ENTRIES` float64 entries
    (``entries`` from public shapes and parameters, before allocation; ``fix``: what to lower)."""
    if entries > MAX_ARRAY_ENTRIES:
        raise ParameterError(
            f"{caller}: {what} would hold {entries:,} float64 entries, above the cap of "
            f"{MAX_ARRAY_ENTRIES:,} (800 MB) that keeps a fit in memory. {fix}"
        )


def check_option(
    name: str, value: Any, options: Iterable[Any], owner: str, *, meaning: str = ""
) -> Any:
    """Check ``value`` is one of ``options`` (:class:`Options`); ``meaning`` (what each does)
    joins the message."""
    return Options(tuple(options), meaning).check(name, value, owner)


def check_bool(name: str, value: Any, owner: str) -> bool:
    """Return ``value`` as a bool (Python or NumPy), or raise :class:`ParameterError`."""
    return Bool().check(name, value, owner)


# ---------------------------------------------------------------- random-number generators
#: What the function-level APIs accept as ``random_state``.
RandomStateLike = None | int | np.random.Generator

#: Objects whose state replays a stream of random numbers: never stored on a model.
GENERATOR_TYPES: tuple[type, ...] = (
    np.random.Generator, np.random.BitGenerator, np.random.bit_generator.ISeedSequence,
    np.random.RandomState, random.Random)


def check_random_state(random_state: RandomStateLike, caller: str,
                       name: str = "random_state") -> np.random.Generator:
    """Turn a function-level ``random_state`` into a :class:`numpy.random.Generator`.

    For APIs that do not keep it. None: seeded from the OS (the only choice fit for a release);
    an int or a Generator (used as is) makes the draw reproducible.

    Only these exact types are taken: a subclass of Generator (or of a bit generator) could
    draw other noise than the calibration's, so it is refused here, before any data is read.

    .. warning:: A fixed seed makes the noise predictable to anyone who knows
       it; a model trained with a published seed is not private.

    Examples
    --------
    >>> type(check_random_state(0, "doc")).__name__
    'Generator'
    """
    if type(random_state) is np.random.Generator \
            and type(random_state.bit_generator) in NUMPY_BIT_GENERATORS:
        return random_state
    if random_state is None:
        return np.random.default_rng()
    if type(random_state) in _INT_TYPES and int(random_state) >= 0:
        return np.random.default_rng(int(random_state))
    raise ParameterError(
        f"The '{name}' argument of {caller} must be None (seed from the OS), a non-negative "
        "int or a numpy Generator over a bit generator of numpy's (numpy.random.Generator "
        f"itself, not a subclass). Got {_short_repr(random_state)} instead."
    )


#: The bit generators of NumPy's a generator given as ``random_state`` may draw from.
NUMPY_BIT_GENERATORS: tuple[type, ...] = (
    np.random.PCG64, np.random.PCG64DXSM, np.random.MT19937, np.random.Philox, np.random.SFC64)

#: The exact types of an int seed (no subclass: its own ``__int__`` could change the seed).
_INT_TYPES = frozenset({int} | {np.dtype(code).type for code in np.typecodes["AllInteger"]})


def check_seed(random_state: Any, owner: str) -> int | None:
    """Validate an estimator's ``random_state`` (``owner``: its name) by :data:`RANDOM_STATE`:
    None or a non-negative int, never a generator (:data:`GENERATOR_TYPES`)."""
    return RANDOM_STATE.check("random_state", random_state, owner)


@dataclass(frozen=True)
class NoiseSource:
    """The generator one fit draws from, and whether the caller seeded it.

    Attributes
    ----------
    rng : numpy.random.Generator
        Used during the fit only; never stored.
    seeded : bool
        True when the caller fixed the seed: the certificate says the noise is reproducible.
    """

    rng: np.random.Generator
    seeded: bool


def noise_source(owner: Any, given: NoiseSource | None = None, *,
                 stream: int | None = None) -> NoiseSource:
    """The generator a fit of ``owner`` draws its noise from: the caller's, else one from
    ``owner.random_state``.

    ``given`` (a meta-estimator's, or the one a fit's skeleton hands its steps) if any, else a
    new one from ``owner.random_state``, validated either way (:data:`RANDOM_STATE`). With
    ``stream``, an int ``random_state``'s generator is that seed's child of spawn key
    ``(stream,)``: numbers no generator of the plain seed draws (e.g. released random
    features, never a learner's noise).

    Parameters
    ----------
    owner : estimator
        Whose ``random_state`` (None or a non-negative int) seeds a new generator.
    given : NoiseSource or None, default=None
        The caller's generator, used as it is.
    stream : int or None, default=None
        The spawn key of a stream of its own for an int ``random_state``.

    Returns
    -------
    NoiseSource

    Examples
    --------
    >>> from dpconvex import PrivateLogisticRegression
    >>> from dpconvex._validation import NoiseSource, noise_source
    >>> noise_source(PrivateLogisticRegression(random_state=3)).seeded
    True
    >>> given = NoiseSource(np.random.default_rng(0), seeded=False)
    >>> noise_source(PrivateLogisticRegression(random_state=3), given) is given
    True
    """
    seed = RANDOM_STATE.check(
        "random_state", getattr(owner, "random_state", None), type(owner).__name__
    )
    if given is not None:
        return given
    if stream is not None and seed is not None:
        return NoiseSource(np.random.default_rng(np.random.SeedSequence(
            int(seed), spawn_key=(int(stream),))), True)
    return NoiseSource(np.random.default_rng(seed), seed is not None)  # None: from the OS


# ---------------------------------------------------------------- parameter constraints
class Constraint:
    """A rule on one estimator parameter: the check of ``_parameter_constraints`` and its doc.

    A frozen object with scikit-learn's constraint interface (``is_satisfied_by``, ``str``);
    ``check(name, value, owner)`` returns the value normalized or raises
    :class:`ParameterError` in scikit-learn's form ("The 'epsilon' parameter of Owner must
    be a float in (0, inf). Got -1 instead."), whose rule is ``str(rule)``; ``noun="argument"``
    names an argument of a function instead ("The 'max_iter' argument of release ...").
    """

    def is_satisfied_by(self, val: Any) -> bool:
        """Whether :meth:`check` accepts ``val`` (scikit-learn's constraint interface)."""
        try:
            self.check("value", val, "Constraint")
        except ParameterError:
            return False
        return True

    def refusal(self, name: str, value: Any, owner: str,
                noun: str = "parameter") -> ParameterError:
        """The error of a refused ``value``: "The 'name' parameter of owner must be {self}. Got
        ..." (``noun``: "parameter", or "argument" of a function)."""
        return ParameterError(f"The '{name}' {noun} of {owner} must be {self}. "
                              f"Got {_short_repr(value)} instead.")

    def check(self, name: str, value: Any, owner: str, noun: str = "parameter") -> Any:
        """Return ``value`` (normalized) if it satisfies the rule, else raise
        :class:`ParameterError` naming the parameter ``name`` of the class ``owner``.

        Parameters
        ----------
        name : str
            The parameter's name, for the message.
        value : object
            Its value.
        owner : str
            The class the parameter belongs to, for the message.
        noun : str, default="parameter"
            What ``name`` is of ``owner``, for the message: "argument" for a function's.

        Returns
        -------
        object
            ``value``, normalized as the rule says (e.g. a float for :class:`Float`).

        Raises
        ------
        ParameterError
            ``value`` breaks the rule (in a subclass).
        NotImplementedError
            Here, in the base: each rule implements it.

        Examples
        --------
        >>> from dpconvex._validation import Float
        >>> Float().check("epsilon", 2, "Demo")
        2.0
        >>> Float().check("epsilon", -1, "Demo")
        Traceback (most recent call last):
        ...
        dpconvex.errors.ParameterError: The 'epsilon' parameter of Demo must be ...
        >>> Float().check("scale", -1, "demo", "argument")
        Traceback (most recent call last):
        ...
        dpconvex.errors.ParameterError: The 'scale' argument of demo must be ...
        """
        raise NotImplementedError


@dataclass(frozen=True)
class Float(Constraint):
    """A float in an interval, by :func:`check_float` (default: (0, inf)).

    Examples
    --------
    >>> str(Float(low_inclusive=True, high=1.0))
    'a float in [0, 1)'
    >>> Float().check("epsilon", 2, "Model")
    2.0
    """

    low: float = 0.0
    high: float = math.inf
    low_inclusive: bool = False
    high_inclusive: bool = False
    allow_inf: bool = False

    def check(self, name: str, value: Any, owner: str, noun: str = "parameter") -> float:
        return check_float(name, value, owner, low=self.low, high=self.high,
                           low_inclusive=self.low_inclusive, high_inclusive=self.high_inclusive,
                           allow_inf=self.allow_inf, noun=noun)

    def __str__(self) -> str:
        return "a float in " + _interval(
            self.low, self.high, self.low_inclusive, self.high_inclusive
        )


@dataclass(frozen=True)
class Int(Constraint):
    """An int in [low, high], by :func:`check_int`; ``why`` is the reason for ``high``.

    Examples
    --------
    >>> str(Int(low=0, high=2))
    'an int in [0, 2]'
    """

    low: int = 1
    high: int = MAX_INT
    why: str = ""

    def check(self, name: str, value: Any, owner: str, noun: str = "parameter") -> int:
        return check_int(name, value, owner, low=self.low, high=self.high, why=self.why,
                         noun=noun)

    def __str__(self) -> str:
        return f"an int in [{self.low}, {self.high:,}]"


@dataclass(frozen=True)
class Options(Constraint):
    """One of ``values``; ``meaning`` says what each does (in the message).

    Examples
    --------
    >>> str(Options(("raise", "ignore")))
    "one of ['raise', 'ignore']"
    """

    values: tuple[Any, ...]
    meaning: str = ""

    def check(self, name: str, value: Any, owner: str, noun: str = "parameter") -> Any:
        try:  # False where the comparison is not a bool (an array, ...)
            if value in self.values:
                return value
        except (TypeError, ValueError):
            pass
        said = f": {self.meaning}" if self.meaning else ""
        raise ParameterError(f"The '{name}' {noun} of {owner} must be one of "
                             f"{list(self.values)!r}{said}. Got {_short_repr(value)} instead.")

    def __str__(self) -> str:
        return f"one of {list(self.values)!r}"


@dataclass(frozen=True)
class Bool(Constraint):
    """A bool (Python or NumPy).

    Examples
    --------
    >>> Bool().check("fit_intercept", np.bool_(False), "Model")
    False
    """

    def check(self, name: str, value: Any, owner: str, noun: str = "parameter") -> bool:
        if isinstance(value, (bool, np.bool_)):
            return bool(value)
        raise self.refusal(name, value, owner, noun)

    def __str__(self) -> str:
        return "a bool"


@dataclass(frozen=True)
class Seed(Constraint):
    """None or a non-negative int, by :func:`check_seed`: never a generator
    (:data:`GENERATOR_TYPES`), which a model would keep.

    Examples
    --------
    >>> Seed().check("random_state", np.int64(3), "Model")
    3
    """

    def check(self, name: str, value: Any, owner: str, noun: str = "parameter") -> int | None:
        if value is None:
            return None
        if isinstance(value, numbers.Integral) and not isinstance(value, bool) \
                and int(value) >= 0:
            return int(value)
        if isinstance(value, GENERATOR_TYPES):
            raise ParameterError(
                f"The '{name}' {noun} of {owner} must be None (noise seeded from the OS, for "
                "a release) or a non-negative int (a reproducible seed, for experiments). Got a "
                f"{type(value).__name__}: an estimator keeps its parameters, and a generator "
                "kept on a model lets whoever holds the model or its pickle replay the noise of "
                "the release. Pass None or an int; to draw several fits from one generator, use "
                "dpconvex.epsilon_sweep(..., random_state=generator)."
            )
        raise ParameterError(
            f"The '{name}' {noun} of {owner} must be None (noise seeded from the OS) "
            f"or a non-negative int. Got {_short_repr(value)} instead.")

    def __str__(self) -> str:
        return "None or a non-negative int"


@dataclass(frozen=True)
class NoValidation(Constraint):
    """No check here; ``reason`` says where the parameter is checked (and why there).

    Examples
    --------
    >>> str(NoValidation("checked with the labels"))
    'checked elsewhere: checked with the labels'
    """

    reason: str

    def check(self, name: str, value: Any, owner: str, noun: str = "parameter") -> Any:
        return value

    def __str__(self) -> str:
        return f"checked elsewhere: {self.reason}"


@dataclass(frozen=True)
class Optional(Constraint):
    """None, or what ``inner`` accepts.

    Examples
    --------
    >>> rule = Optional(Float(high=1.0))
    >>> rule.check("delta", None, "Model") is None, rule.check("delta", 0.5, "Model")
    (True, 0.5)
    >>> str(rule)
    'None or a float in (0, 1)'
    """

    inner: Constraint

    def check(self, name: str, value: Any, owner: str, noun: str = "parameter") -> Any:
        return None if value is None else self.inner.check(name, value, owner, noun)

    def __str__(self) -> str:
        return f"None or {self.inner}"


@dataclass(frozen=True)
class Auto(Constraint):
    """The word "auto" (a public rule chooses), or what ``inner`` accepts.

    Any other value is refused with the message of ``inner`` followed by the accepted values.

    Examples
    --------
    >>> str(Auto(Float()))
    "'auto' or a float in (0, inf)"
    """

    inner: Constraint

    def check(self, name: str, value: Any, owner: str, noun: str = "parameter") -> Any:
        if isinstance(value, str) and value == "auto":
            return "auto"
        if isinstance(value, str):  # another word
            raise self.refusal(name, value, owner, noun)
        try:
            return self.inner.check(name, value, owner, noun)
        except ParameterError as err:
            rule = str(err).removeprefix(f"The '{name}' {noun} of {owner} ")
            raise ParameterError(f"The '{name}' {noun} of {owner} {rule} "
                                 f"Accepted values: {self}.") from None

    def __str__(self) -> str:
        return f"'auto' or {self.inner}"


#: ε > 0 of a release.
EPSILON = Float()
#: δ in [0, 1): 0 for pure ε-DP.
DELTA = Float(low_inclusive=True, high=1.0)
#: The public bound q > 0 on a row's norm.
DATA_NORM = Float()
#: The strength of the regularizer: "auto" (the public rule) or Λ > 0.
LAM = Auto(Float())
#: A solver's iteration cap (None: the solver's default).
MAX_ITER_RULE = Optional(Int(
    high=MAX_ITER, why="a solve that has not met its tolerance in a million iterations will not"))
#: A solver's optimality tolerance (None: the solver's default).
OPTIMALITY_TOL = Optional(Float())
#: The noise seed: None (from the OS, for a release) or an int (experiments).
RANDOM_STATE = Seed()
#: The ledger charged with the release (any object with the accountant's methods).
ACCOUNTANT = NoValidation("a BudgetAccountant or None, used as it is when the fit charges it")
#: The public label set.
CLASSES = NoValidation("checked once, with the labels it encodes (encode_labels), before the plan")


def is_dask_collection(x: Any) -> bool:
    """Whether ``x`` is a Dask collection (array, DataFrame, Series); never imports Dask."""
    dask = sys.modules.get("dask")
    return dask is not None and bool(dask.is_dask_collection(x))


_TEXT_TYPES = (str, bytes, np.str_, np.bytes_)


def dtype_shown(dtype: Any) -> str:
    """A dtype as a message may name it: for text, void and time kinds, and pandas's, without the
    item size, unit or subtype (``<U39`` is the longest value's length; ``[ns, UTC]`` or
    ``[float64, right]`` may be inferred from the values)."""
    if not isinstance(dtype, np.dtype):  # pandas: its name without the unit or subtype in brackets
        return str(getattr(dtype, "name", dtype)).split("[")[0]
    return {"U": "str", "S": "bytes", "V": "void", "M": "datetime64", "m": "timedelta64"}.get(
        dtype.kind, str(dtype))
_TIME_TYPES = (datetime.date, datetime.time, datetime.timedelta, np.datetime64, np.timedelta64)


def _is_missing_type(t: type) -> bool:
    return t is type(None) or (
        t.__module__.startswith("pandas") and t.__name__ in ("NAType", "NaTType")
    )


def conversion_failure(exc: BaseException | type[BaseException]) -> str:
    """Why the user's values could not be read as an array of numbers, as a message on the
    private path says it: the exception's type, never its text, which can quote an entry (an
    object's ``__float__`` or ``__array__`` writes what it likes; NumPy's text of a ragged
    sequence gives its shape).

    Parameters
    ----------
    exc : BaseException or type
        The exception the conversion raised, or its type (what a caller keeps once it has
        left the ``except`` block, so that no context of its own refusal holds the text).

    Returns
    -------
    str
        Its type and what it commonly means, without its text (a TypeError's says what
        NumPy's says of an entry of another type, as scikit-learn's checks expect).

    Examples
    --------
    >>> from dpconvex._validation import conversion_failure
    >>> conversion_failure(ValueError("value 7.123456 is secret"))
    'ValueError, as from an entry that is not a number or rows of different lengths (its \
text is not shown: it may quote an entry)'
    """
    kind = exc if isinstance(exc, type) else type(exc)
    cause = ("a number too large for float64" if issubclass(kind, OverflowError)
             else "an entry that is neither a number nor text (a float() argument must be a "
             "string or a real number)" if issubclass(kind, TypeError)
             else "an entry that is not a number or rows of different lengths")
    return (f"{kind.__name__}, as from {cause} (its text is not shown: it may quote an "
            "entry)")


def float_rows(X: Any, caller: str, name: str = "X") -> np.ndarray:
    """Dense rows as a float64 array, by the checks every reader of dense rows shares.

    A masked entry, what is not a real number (:func:`check_numeric_dtype`, before float64),
    what NumPy cannot read as an array (ragged rows) and a number beyond float64 are refused
    by name, in messages that quote no entry; no refusal holds NumPy's text (which can quote
    one) as its ``__cause__`` or ``__context__``. The shape is the caller's to check.

    Parameters
    ----------
    X : array-like
        The rows (not sparse, not a Dask collection).
    caller : str
        "Owner.method", opening every message.
    name : str, default="X"
        What the messages call the rows.

    Returns
    -------
    ndarray
        ``X`` as float64, of its own shape (``X`` itself when it is a float64 ndarray).

    Raises
    ------
    DataTypeError
        An entry is text or another object that is not a number, or the rows are ragged.
    DataValidationError
        A masked entry, a missing value, a complex number or a number beyond float64.

    Examples
    --------
    >>> from dpconvex._validation import float_rows
    >>> float_rows([[1, 2], [3, 4]], "Doc.fit").dtype
    dtype('float64')
    >>> try:
    ...     float_rows([[1.0, 2.0], [3.0]], "Doc.fit")
    ... except DataTypeError as exc:
    ...     print(str(exc)[:60])
    Doc.fit: X must be a 2-D array of numbers (n_samples, n_feat
    """
    if type(X) is np.ndarray and X.dtype == np.float64:
        return X
    _reject_masked(X, caller, name)
    A = _rows_as(X, None, caller, name)  # as given: ragged nested lists fail here
    # a sequence: the dtype NumPy read from it
    check_numeric_dtype(A, caller, name,
                        inferred=not isinstance(X, np.ndarray) and not hasattr(X, "dtype"))
    if A.dtype == np.float64:
        return A
    given, A = A, _rows_as(A, np.float64, caller, name)
    if given.dtype.kind == "f" and given.dtype.itemsize > 8 and \
            np.count_nonzero(np.isinf(A)) > np.count_nonzero(np.isinf(given)):
        raise _too_large(caller, name)  # a long double beyond float64
    return A


def float_matrix(X: Any, caller: str, name: str = "X") -> np.ndarray:
    """:func:`float_rows` of rows that must be 2-D (n_samples, n_features), the shape refused
    by name with the reshape that fixes a single feature or a single sample.

    Parameters
    ----------
    X, caller, name
        As :func:`float_rows` takes them.

    Returns
    -------
    ndarray of shape (n_samples, n_features)

    Raises
    ------
    DataValidationError
        As :func:`float_rows`, or rows that are not 2-D.

    Examples
    --------
    >>> from dpconvex._validation import float_matrix
    >>> float_matrix([[1, 2]], "Doc.fit").shape
    (1, 2)
    """
    A = float_rows(X, caller, name)
    if A.ndim != 2:
        raise DataValidationError(
            f"{caller}: {name} must be 2-D (n_samples, n_features); got an array with "
            f"{A.ndim} dimension(s) and shape {A.shape}. Reshape your data: a single feature "
            "with X.reshape(-1, 1) or a single sample with X.reshape(1, -1).")
    return A


def _rows_as(X: Any, dtype: Any, caller: str, name: str) -> np.ndarray:
    """``np.asarray(X, dtype)``, a failure refused by its type alone and outside the
    ``except`` block (NumPy's text can quote an entry; a long double beyond float64 becomes
    inf here, refused by :func:`float_rows`)."""
    try:
        with np.errstate(over="ignore"):
            return np.asarray(X, dtype=dtype)
    except (TypeError, ValueError, OverflowError) as exc:
        failure = type(exc)
    if issubclass(failure, OverflowError):
        raise _too_large(caller, name)
    raise DataTypeError(
        f"{caller}: {name} must be a 2-D array of numbers (n_samples, n_features); it could "
        f"not be converted to float: {conversion_failure(failure)}. Encode categorical "
        "columns first.")


def _too_large(caller: str, name: str) -> DataValidationError:
    """The refusal of a number beyond float64 in the rows."""
    return DataValidationError(
        f"{caller}: {name} holds a number too large for float64 (above about 1.8e308); "
        "rescale that column with a public constant.")


def check_numeric_dtype(
    raw: np.ndarray, caller: str, name: str = "X", *, inferred: bool = False
) -> None:
    """Refuse what is not a real number, before any conversion to float64.

    Strings, bytes (also numeric strings in an object array: unlike scikit-learn's ``check_array``), dates,
    complex numbers and missing values (None, pandas NA) are refused with a :class:`DataTypeError` or
    :class:`DataValidationError` opened by ``caller``; bool, int, float and object arrays of numbers pass.
    ``inferred``: ``raw`` is NumPy's reading of a sequence, whose dtype the entries chose (``[[0.5, "a"]]``
    is str, ``[[Decimal("0.5"), "a"]]`` object): text is refused with one message whatever that dtype.
    """
    kind = raw.dtype.kind
    if kind in "biuf":
        return
    types = set(map(type, raw.ravel().tolist())) if kind == "O" else set()

    def holds(*classes: type) -> bool:  # an entry of an object array of one of the classes
        return any(issubclass(t, classes) for t in types)

    if kind in "US" or holds(*_TEXT_TYPES):
        held, how = (("strings or bytes", "pandas.to_numeric") if inferred else
                     (f"{'strings' if kind == 'U' else 'bytes'} (dtype {dtype_shown(raw.dtype)})",
                      "X.astype(float) once they are checked") if kind in "US" else
                     ("strings or bytes (in an object array)", "pandas.to_numeric"))
        raise DataTypeError(
            f"{caller}: {name} must be an array of numbers; it holds {held}, and dpconvex does "
            f"not read numbers from text: convert numeric columns yourself (e.g. {how}). "
            "Encode categorical columns first.")
    if any(_is_missing_type(t) for t in types):
        raise DataValidationError(
            f"{caller}: {name} contains missing values (None or pandas NA). Impute or drop them "
            "before fitting (with a public rule: imputing from data statistics costs privacy)."
        )
    if kind == "c" or holds(complex, np.complexfloating):
        raise DataValidationError(
            f"{caller}: Complex data not supported in {name}; pass real numbers (e.g. split real "
            "and imaginary parts into columns).")
    if kind in "Mm" or holds(*_TIME_TYPES):
        held = (f"{'dates' if kind == 'M' else 'time spans'} (dtype {dtype_shown(raw.dtype)})"
                if kind in "Mm" else "dates or times")
        raise DataTypeError(
            f"{caller}: {name} holds {held}; convert them to numbers with a public map first "
            "(e.g. days since a fixed date, divided by a public range).")
    if kind != "O":
        raise DataTypeError(
            f"{caller}: {name} must be an array of numbers; got dtype {dtype_shown(raw.dtype)}. "
            "Convert it "
            "to a plain numeric array first."
        )


#: The methods of a fitted model that read new rows (their NaN message names the rows passed).
_PREDICTS = frozenset({"predict", "predict_proba", "predict_log_proba", "decision_function",
                       "class_scores", "score", "transform"})
#: Entries per block of :func:`check_matrix_body`'s finiteness fallback (a 512 KB boolean
#: mask at most).
_FINITE_BLOCK = 1 << 19


def check_matrix_body(A: Any, values: Any, caller: str, name: str, min_samples: int,
                      n_features: int | None) -> Any:
    """Shape and finiteness checks shared by dense, sparse and Dask input.

    ``values`` are the stored entries (a float64 array), or a function returning whether they
    are all finite (Dask: a pass over the data, made after the shape checks); a column count
    other than the fitted one is refused in scikit-learn's words. The entries are checked without an
    n x p boolean mask: a finite sum has no NaN or infinity among its terms (either makes
    it NaN or infinite), so one reduction answers for most arrays; a sum that is not finite
    (a non-finite entry, or finite ones that overflow it) is decided block by block.
    """
    if A.shape[0] < min_samples:
        raise DataValidationError(
            f"{caller}: {name} has {A.shape[0]} sample(s); at least {min_samples} are needed."
        )
    if A.shape[1] == 0:
        raise DataValidationError(
            f"{caller}: {name} has 0 feature(s) (shape={A.shape}) while a minimum of 1 is "
            "required."
        )
    if n_features is not None and A.shape[1] != n_features:
        raise DataValidationError(
            f"{name} has {A.shape[1]} features, but {caller.split('.')[0]} is expecting "
            f"{n_features} features as input (the number seen in fit). Pass the columns the "
            "model was fitted on, in the same order."
        )
    if callable(values):
        finite = values()
    else:
        with np.errstate(over="ignore", invalid="ignore"):  # an overflowing sum: decided below
            finite = bool(np.isfinite(np.sum(values)))  # (no entry: a sum of 0)
        if not finite:
            flat = values.reshape(len(values), -1) if values.ndim > 1 else values.reshape(-1, 1)
            step = max(1, _FINITE_BLOCK // max(flat.shape[1], 1))
            finite = all(
                bool(np.isfinite(flat[a : a + step]).all()) for a in range(0, flat.shape[0], step)
            )
    if not finite:  # the message counts nothing
        fix = (f"those rows before passing them to {caller}" if caller.rsplit(".", 1)[-1]
               in _PREDICTS else "them before fitting (with a public rule: imputing from data "
               "statistics costs privacy)")
        raise DataValidationError(
            f"{caller}: {name} contains NaN or infinite values. Impute or drop {fix}."
        )
    return A


def _reject_masked(A: Any, caller: str, name: str) -> None:
    """Refuse a :class:`numpy.ma.MaskedArray` with masked entries (np.asarray drops the mask)."""
    if isinstance(A, np.ma.MaskedArray) and np.ma.is_masked(A):
        raise DataValidationError(
            f"{caller}: {name} is a masked array with masked entries; converting it would "
            "silently use the hidden values. Drop those rows, or fill them with a public "
            f"value ({name}.filled(value)) before fitting."
        )


def check_fitted(estimator: Any, attribute: str) -> None:
    """Raise :class:`NotFittedError` if ``estimator`` has no ``attribute`` yet."""
    if not hasattr(estimator, attribute):
        raise NotFittedError(
            f"This {type(estimator).__name__} instance is not fitted yet. Call 'fit' with "
            "appropriate arguments before using this estimator."
        )


def feature_names_of(X: Any, caller: str) -> np.ndarray | None:
    """The column names of a data frame (pandas, Dask) when they are all strings, else None.

    As scikit-learn: no string name (e.g. the default 0, 1, ...) means no feature names;
    string and other names mixed are refused (:class:`DataTypeError`, opened by ``caller``).
    """
    if isinstance(X, np.ndarray) or not hasattr(X, "columns"):
        return None
    try:
        names = list(X.columns)
    except TypeError:
        return None
    strings = sum(isinstance(v, str) for v in names)
    if strings == 0:
        return None
    if strings < len(names):
        kinds = sorted({type(v).__name__ for v in names})
        raise DataTypeError(
            f"{caller}: feature names are only supported when every column name is a string; the "
            "columns "
            f"of X have names of types {kinds}. Convert them, e.g. X.columns = "
            "X.columns.astype(str)."
        )
    return np.asarray(names, dtype=object)


def check_feature_names(estimator: Any, X: Any, caller: str) -> None:
    """Refuse a frame whose columns differ from ``feature_names_in_`` (reordered, renamed, missing).

    A reordered frame would silently feed each coefficient the wrong column. An array
    passed to a model fitted with names is taken by position with scikit-learn's warning;
    a frame passed to a model fitted without names is taken as it is. A mapping of columns
    is named by its keys.
    """
    fitted = getattr(estimator, "feature_names_in_", None)
    if isinstance(X, Mapping):  # a mapping of columns names them by its keys
        names = np.asarray(list(X), dtype=object) if all(isinstance(k, str) for k in X) else None
    else:
        names = feature_names_of(X, caller)
    if fitted is not None and names is None:
        from sklearn.utils.validation import _check_feature_names

        _check_feature_names(estimator, X, reset=False)  # warns, as scikit-learn's estimators do
        return
    if fitted is None or names is None:
        return
    if len(names) == len(fitted) and all(a == b for a, b in zip(names, fitted, strict=True)):
        return
    unseen = sorted(set(names) - set(fitted))
    missing = sorted(set(fitted) - set(names))

    def listed(values: list[str]) -> str:
        return "".join(f"- {v}\n" for v in values[:5]) + ("- ...\n" if len(values) > 5 else "")

    message = f"{caller}: The feature names should match those that were passed during fit.\n"
    if unseen:
        message += "Feature names unseen at fit time:\n" + listed(unseen)
    if missing:
        message += "Feature names seen at fit time, yet now missing:\n" + listed(missing)
    if not unseen and not missing:
        message += "Feature names must be in the same order as they were in fit.\n"
    raise DataValidationError(
        message + "Select the fitted columns in the fitted order: X[model.feature_names_in_]."
    )


def with_feature_names(estimator: Any, names: np.ndarray | None) -> Any:
    """Record ``feature_names_in_`` (from :func:`feature_names_of`, read before any other
    step) at the end of a successful fit, or remove an earlier fit's; return the estimator.

    Each ``fit`` calls it on its return path, except a part's fit on rows its meta-estimator
    checked (``FitContext.checked``), which neither reads nor records names: a refused fit
    leaves no attribute behind (a decorator would add a frame between the caller and the fit's
    warnings).
    """
    if names is None:
        estimator.__dict__.pop("feature_names_in_", None)
    else:
        estimator.feature_names_in_ = names
    return estimator


def checks_feature_names(method: Any) -> Any:
    """Decorate ``method(self, X, ...)`` (predict, transform, score, ...) with :func:`check_feature_names`:
    once per call of a public method (its own calls of others go through :func:`unchecked`)."""
    @functools.wraps(method)
    def wrapper(self: Any, X: Any, *args: Any, **kwargs: Any) -> Any:
        check_feature_names(self, X, f"{type(self).__name__}.{method.__name__}")
        return method(self, X, *args, **kwargs)
    wrapper.checks_feature_names = True  # type: ignore[attr-defined]
    return wrapper


def unchecked(method: Any) -> Any:
    """The bound ``method`` without its :func:`checks_feature_names` check, which its caller made."""
    checks = getattr(method, "checks_feature_names", False) is True
    return functools.partial(method.__wrapped__, method.__self__) if checks else method


@contextlib.contextmanager
def signed_by(estimator: Any, caller: str, rename: bool = True) -> Iterator[None]:
    """The data and parameter errors of ``estimator`` (a model called for the user, or its steps) signed
    with ``caller``, the public method the user called: with ``rename``, the estimator's name wherever
    the text names it; a refusal that opens with another "Owner.method:" opens "caller (Owner.method):"."""
    try:
        yield
    except (DataValidationError, ParameterError) as exc:
        name, text = type(estimator).__name__, str(exc)
        if rename:  # "Owner.method" and "... of Owner" in the text
            text = re.sub(
                rf"\b{name}\b", caller.split(".")[0], re.sub(rf"\b{name}\.\w+", caller, text)
            )
        opening = re.match(r"[A-Za-z_]\w*\.\w+(?=:)", text)
        if opening and opening[0] != caller:
            text = f"{caller} ({opening[0]}){text[opening.end():]}"
        raise type(exc)(text) from None


def signed_refusal(exc: PrivacyError | SolverError, caller: str) -> PrivacyError | SolverError:
    """``exc`` (a :class:`PrivacyError` or :class:`SolverError`) opening with ``caller``, the public
    call the user made, in place of the part that raised it (a template's conditions, a mechanism's
    calibration or run, a Dask computation); its text after the opening is kept. ``exc`` itself
    where it opens with ``caller`` already, or names no call. Called where such an error is caught,
    so a fit that succeeds never runs it."""
    text = str(exc)
    opening = re.match(r"[A-Za-z_][\w.]*(?=: )", text)
    if opening is None or opening[0] == caller:
        return exc
    return type(exc)(f"{caller}: {text[opening.end() + 2:]}")


def check_sample_weight(sample_weight: Any, n: int, caller: str) -> np.ndarray:
    """Validate score weights (real, finite, >= 0, shape (n,), not all zero); return them
    divided by their largest (the weighted mean is unchanged and its sum cannot overflow)."""
    if isinstance(sample_weight, (numbers.Real, np.number)) and not isinstance(
        sample_weight, bool
    ):
        raise DataValidationError(
            f"{caller}: sample_weight must be an array of shape ({n},), one weight per sample; "
            f"got a scalar. Pass None for equal weights."
        )
    # each conversion's failure refused after its handler: NumPy's text can quote a weight
    try:
        raw = np.asarray(sample_weight)
    except (TypeError, ValueError) as exc:
        failure: type[BaseException] | None = type(exc)
    else:
        failure = None
    if failure is not None:
        raise DataTypeError(
            f"{caller}: sample_weight must be an array of numbers: {conversion_failure(failure)}."
        )
    check_numeric_dtype(raw, caller, "sample_weight")
    try:
        w = np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError, OverflowError) as exc:
        failure = type(exc)
    if failure is not None:
        raise DataTypeError(
            f"{caller}: sample_weight must be an array of float64 numbers: "
            f"{conversion_failure(failure)}."
        )
    if w.shape != (n,):
        raise DataValidationError(
            f"{caller}: sample_weight has shape {w.shape}; it must be ({n},), one weight per "
            "sample."
        )
    if not np.all(np.isfinite(w)):
        raise DataValidationError(
            f"{caller}: sample_weight contains NaN or infinite values; pass finite weights."
        )
    if np.any(w < 0):
        raise DataValidationError(
            f"{caller}: sample_weight contains negative values; weights must be >= 0."
        )
    top = float(np.max(w))
    if top == 0.0:
        raise DataValidationError(f"{caller}: every sample_weight is zero; at least one weight "
                                  "must be positive.")
    return w / top


#: Why a private fit takes no sample weights (its ``fit``'s and its ``set_params``' refusal).
NO_SAMPLE_WEIGHTS = ("dpconvex's private fits take no sample weights: a weight changes how much "
                     "one record can move the model (its sensitivity), which the guarantee "
                     "bounds for unweighted records")

#: Why dpconvex's private estimators and searches have none of these parameters of
#: scikit-learn's estimators (their ``_absent_param_reasons``, read by
#: :func:`refuse_unknown_params`).
NO_SUCH_PARAMETER = types.MappingProxyType({
    "sample_weight": NO_SAMPLE_WEIGHTS,
    "n_jobs": "dpconvex's fits run in the calling process, whose ledger they charge: a "
              "BudgetAccountant spends only in the process that created it; to fit several "
              "models at once, run their fits in threads (joblib's threading backend)",
    "warm_start": "A fit's start point is not a parameter of an estimator: it is the "
                  "warm_start argument of fit_prepared, a start point for the solver only, "
                  "which changes which point within the solver's tolerance is released, "
                  "never the noise, Δ or ε (docs/privacy/accuracy_randomness.md); "
                  "epsilon_sweep(warm_start=True) starts each solve of a sweep from the one "
                  "before. To refit, call fit again",
})


def refuse_unknown_params(estimator: Any, params: Mapping[str, Any]) -> None:
    """Refuse by a :class:`ParameterError`, before ``set_params`` sets anything, a name it is
    given that is not one of ``estimator``'s parameters, listing them.

    A nested ``"step__param"`` name is checked against the parameters of the estimator it
    reaches: the one the same call sets as ``step`` if it does (as scikit-learn's
    ``set_params`` sets it first), else the one ``estimator`` holds; a ``step`` that holds
    no estimator is refused. A name the estimator's class gives a reason for lacking (its
    ``_absent_param_reasons``: :data:`NO_SUCH_PARAMETER` for dpconvex's private estimators
    and searches) is refused with that reason.

    Parameters
    ----------
    estimator : estimator
        The estimator whose ``set_params`` was called.
    params : mapping
        The names and values given.

    Raises
    ------
    ParameterError
        A name that is not a parameter of ``estimator`` or of the estimator a nested name
        reaches (a ValueError, as scikit-learn's ``set_params`` raises).

    Examples
    --------
    >>> from dpconvex import PrivateGridSearch, PrivateLogisticRegression
    >>> refuse_unknown_params(PrivateLogisticRegression(), {"lam": 0.1})
    >>> try:
    ...     refuse_unknown_params(PrivateLogisticRegression(), {"n_jobs": 2})
    ... except ParameterError as exc:
    ...     print(str(exc).split(". ")[0])
    PrivateLogisticRegression.set_params: got 'n_jobs', which is not a parameter of
    PrivateLogisticRegression
    >>> search = PrivateGridSearch(PrivateLogisticRegression(), {"lam": [0.1]}, epsilon=1.0)
    >>> try:
    ...     refuse_unknown_params(search, {"epsilon": 2.0, "estimator__no_such": 1})
    ... except ParameterError as exc:
    ...     print(str(exc).split(". ")[0])
    PrivateGridSearch.set_params: got 'estimator__no_such', which is not a parameter of
    the PrivateLogisticRegression it holds as 'estimator'
    """
    owner = type(estimator).__name__
    _refuse_unknown(estimator, params, estimator._get_param_names(),
                    lambda name: getattr(estimator, name), f"{owner}.set_params", "")


def _refuse_unknown(holder: Any, params: Mapping[str, Any], valid: Sequence[str],
                    held: Callable[[str], Any], caller: str, path: str) -> None:
    """:func:`refuse_unknown_params` for ``holder``, whose parameters are ``valid`` and
    ``held(name)`` their values, reached from the called estimator by ``path`` (``""``:
    the called estimator itself; ``"step__"``: its step)."""
    unknown = sorted({key.partition("__")[0] for key in params} - set(valid))
    if unknown:
        reasons = getattr(type(holder), "_absent_param_reasons", {})
        why = "".join(f" {reasons[name]}." for name in unknown if name in reasons)
        names = ", ".join(repr(f"{path}{name}") for name in unknown)
        which = "is not a parameter" if len(unknown) == 1 else "are not parameters"
        if path:
            raise ParameterError(
                f"{caller}: got {names}, which {which} of the {type(holder).__name__} it "
                f"holds as {path[:-2]!r}.{why} Set the parameters of its {path[:-2]!r} only: "
                f"{list(valid)}."
            )
        raise ParameterError(
            f"{caller}: got {names}, which {which} of {type(holder).__name__}.{why} Set its "
            f"parameters only: {list(valid)}."
        )
    nested: dict[str, dict[str, Any]] = {}
    for key, value in params.items():
        name, _, rest = key.partition("__")
        if rest:
            nested.setdefault(name, {})[rest] = value
    for name, sub in nested.items():
        step = params[name] if name in params else held(name)
        if isinstance(step, type) or not hasattr(step, "set_params"):
            key = f"{path}{name}__{next(iter(sub))}"
            raise ParameterError(
                f"{caller}: got {key!r}, but its {path + name!r} is not an estimator (a "
                f"'step__param' name sets a parameter of an estimator it holds). Set "
                f"{path + name!r} itself, or a parameter of an estimator it holds."
            )
        if hasattr(step, "get_params"):
            # deep: a Pipeline's steps are parameters of its set_params, not of its __init__;
            # the steps a Pipeline (steps) or a FeatureUnion (transformer_list) is given in the
            # same call name the steps its other names reach (scikit-learn sets those lists
            # first; a ColumnTransformer's transformers it does not)
            deep = step.get_params(deep=True)
            listed = {item[0]: item[1] for key in ("steps", "transformer_list")
                      if _named_steps(value := sub.get(key)) for item in value}
            _refuse_unknown(step, sub,
                            sorted({key.partition("__")[0] for key in deep} | set(listed)),
                            lambda key, deep=deep, listed=listed: (
                                listed[key] if key in listed else deep[key]),
                            caller, f"{path}{name}__")


def _named_steps(value: Any) -> bool:
    """Whether ``value`` is a list of named steps, as scikit-learn's compositions hold them:
    tuples (name, estimator, ...) with a str name."""
    return isinstance(value, (list, tuple)) and bool(value) and all(
        isinstance(item, tuple) and len(item) >= 2 and isinstance(item[0], str)
        for item in value)


class CheckedParamNames:
    """A scikit-learn estimator whose ``set_params`` refuses a name that is not one of its
    parameters (nested ones too) before anything is set (:func:`refuse_unknown_params`).
    Placed before ``BaseEstimator`` among an estimator's bases.

    Examples
    --------
    >>> from dpconvex import PrivateLogisticRegression
    >>> isinstance(PrivateLogisticRegression(), CheckedParamNames)
    True
    """

    def set_params(self, **params: Any) -> Any:
        """Set the estimator's parameters (nested ones as ``"step__param"``), as
        scikit-learn's ``set_params``; a name that is not one of them is refused by a
        :class:`~dpconvex.errors.ParameterError` listing them, before anything is set
        (:func:`refuse_unknown_params`).

        Parameters
        ----------
        **params : dict
            Parameter names and values.

        Returns
        -------
        self : estimator
            The estimator.

        Raises
        ------
        ParameterError
            A name that is not a parameter (a ValueError, as scikit-learn's).

        Examples
        --------
        >>> from dpconvex import PrivateLogisticRegression
        >>> PrivateLogisticRegression().set_params(lam=0.1).lam
        0.1
        """
        refuse_unknown_params(self, params)
        return super().set_params(**params)  # type: ignore[misc]
