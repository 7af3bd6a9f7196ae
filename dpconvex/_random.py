"""Random-number generators: the one place that hands out the noise of a fit.

A fitted model must not hold a generator: whoever holds the model (or its
pickle) could rebuild the generator's stream and replay the exact noise of the
release. So

* an estimator's ``random_state`` parameter is None (a fresh generator seeded
  from the operating system at each fit) or a non-negative int (a reproducible
  seed, for experiments): :func:`check_seed` refuses anything else, generators
  included, with a :class:`~dpconvex.errors.ParameterError`;
* every fit takes its generator from :func:`noise_source`, which builds it from
  ``random_state`` unless the caller of the fit handed it one;
* a meta-estimator (the searches, :func:`~dpconvex.epsilon_sweep`,
  one-vs-rest, the front doors, the large-margin centroid path, the audit
  adapters) hands the fit of a sub-estimator its :class:`NoiseSource` as an
  argument (:class:`~dpconvex.estimators.base.FitContext`), never by storing it
  on the sub-estimator. The source also carries whether the caller seeded the
  noise, which the certificate states (``Certificate.seeded``).

Function-level APIs that do not keep their argument (the samplers of
:mod:`dpconvex.privacy.noise`, :func:`~dpconvex.privacy.release.release`,
:func:`~dpconvex.epsilon_sweep`, the audit helpers) accept a generator through
:func:`check_random_state`.
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

    For APIs that use the generator and do not keep it (estimators use :func:`noise_source`).
    None: a fresh generator seeded from the OS (the only choice fit for a release); an int
    or a Generator (used as is, its stream advances) makes the draw reproducible. ``caller``
    and ``name``, the public function and its argument, open the message.

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

    Anything else raises :class:`ParameterError`; a generator (numpy Generator,
    BitGenerator, SeedSequence, RandomState, :class:`random.Random`) with the reason: stored
    on a model, it lets whoever holds the model or its pickle replay its noise.
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
        True when the caller fixed the seed (an int ``random_state``, or a
        meta-estimator or function seeded by its caller): the certificate then
        says that the noise is reproducible by whoever knows the seed.
    """

    rng: np.random.Generator
    seeded: bool


def noise_source(owner: Any, given: NoiseSource | None = None) -> NoiseSource:
    """The generator a fit of ``owner`` draws its noise from.

    ``given``, the source the caller of the fit handed it (a meta-estimator's), if
    any; otherwise a new one from ``owner.random_state`` (None: seeded from the
    OS; an int: that seed), validated either way (:func:`check_seed`).

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
