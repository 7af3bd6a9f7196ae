"""Random-number generators: seeded from the OS unless the user fixes a seed."""

from __future__ import annotations

import numbers

import numpy as np

from .errors import ParameterError

RandomStateLike = None | int | np.random.Generator


def check_random_state(random_state: RandomStateLike) -> np.random.Generator:
    """Turn ``random_state`` into a :class:`numpy.random.Generator`.

    Parameters
    ----------
    random_state : None, int or numpy.random.Generator
        ``None`` gives a fresh generator seeded from the operating system's
        entropy source (the only choice fit for releasing a private model);
        an int or a Generator makes the draw reproducible (for tests and
        experiments).

    .. warning:: A fixed seed makes the noise predictable to anyone who knows
       it; a model trained with a published seed is not private.
    """
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if int(random_state) < 0:
            raise ParameterError(
                f"random_state must be a non-negative int, a numpy Generator or None. "
                f"Got {random_state!r} instead."
            )
        return np.random.default_rng(int(random_state))
    raise ParameterError(
        "random_state must be None (seed from the OS), a non-negative int or a "
        f"numpy.random.Generator. Got {random_state!r} instead."
    )
