"""Random-number generators: the one place that hands out the noise of a fit.

A fitted model never holds a generator (whoever holds the model or its pickle could replay the
noise of the release): an estimator's ``random_state`` is None or a non-negative int
(:func:`check_seed`), every fit takes its generator from :func:`noise_source`, a
meta-estimator hands its sub-fits a :class:`NoiseSource` as an argument, and function-level
APIs that do not keep their generator accept one through :func:`check_random_state`
(docs/privacy/accuracy_randomness.md#privacy-accuracy-randomness, "No generator on a model").
"""

from __future__ import annotations

import numbers
import random
from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import ParameterError

__all__ = ["GENERATOR_TYPES", "NoiseSource", "RandomStateLike", "check_random_state",
           "check_seed", "noise_source"]

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

    .. warning:: A fixed seed makes the noise predictable to anyone who knows
       it; a model trained with a published seed is not private.
    """
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool) \
            and int(random_state) >= 0:
        return np.random.default_rng(int(random_state))
    raise ParameterError(
        f"The '{name}' argument of {caller} must be None (seed from the OS), a non-negative "
        f"int or a numpy.random.Generator. Got {random_state!r} instead."
    )


def check_seed(random_state: Any, owner: str) -> int | None:
    """Validate an estimator's ``random_state`` (``owner``: its name): None or a non-negative int.

    Anything else, a generator (:data:`GENERATOR_TYPES`) included, raises :class:`ParameterError`.
    """
    if random_state is None:
        return None
    if isinstance(random_state, GENERATOR_TYPES):
        raise ParameterError(
            f"The 'random_state' parameter of {owner} must be None (noise seeded from the OS, "
            f"for a release) or a non-negative int (a reproducible seed, for experiments). Got "
            f"a {type(random_state).__name__}: an estimator keeps its parameters, and a "
            "generator kept on a model lets whoever holds the model or its pickle replay the "
            "noise of the release. Pass None or an int; to draw several fits from one "
            "generator, use dpconvex.epsilon_sweep(..., random_state=generator).")
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool) \
            and int(random_state) >= 0:
        return int(random_state)
    raise ParameterError(
        f"The 'random_state' parameter of {owner} must be None (noise seeded from the OS) or "
        f"a non-negative int. Got {random_state!r} instead.")


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


def noise_source(owner: Any, given: NoiseSource | None = None) -> NoiseSource:
    """The generator a fit of ``owner`` draws its noise from.

    ``given`` (a meta-estimator's) if any, else a new one from ``owner.random_state``,
    validated either way (:func:`check_seed`).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import PrivateLogisticRegression
    >>> from dpconvex._random import NoiseSource, noise_source
    >>> noise_source(PrivateLogisticRegression(random_state=3)).seeded
    True
    >>> given = NoiseSource(np.random.default_rng(0), seeded=False)
    >>> noise_source(PrivateLogisticRegression(random_state=3), given) is given
    True
    """
    seed = check_seed(getattr(owner, "random_state", None), type(owner).__name__)
    if given is not None:
        return given
    return NoiseSource(np.random.default_rng(seed), seed is not None)
