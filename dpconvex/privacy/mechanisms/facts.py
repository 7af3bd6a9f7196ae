"""The public facts a calibration reads of a template, each read once: a number as a built-in
float (:func:`~dpconvex.privacy.checks.exact_number`), a number of records as a built-in int.
The calibration records what it read (:attr:`~dpconvex.privacy.mechanisms.Calibration.n`, its
``extra``), and its run and certificate read the record, never the template again
(docs/privacy/release.md#privacy-release)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._validation import describe_value
from ...errors import PrivacyError
from ..checks import exact_number

__all__ = ["public_count", "public_number"]


def public_number(value: Any, caller: str, what: str) -> float:
    """``value``, a public number a calibration reads of a template, as a built-in float read
    once; refused unless it is a finite number > 0 of an exact type.

    Parameters
    ----------
    value : object
        What the template answered.
    caller : str
        Who reads it (opens the message).
    what : str
        What it is, e.g. ``"distance_bound(0.0001, 0.1)"`` (named in the message).

    Returns
    -------
    float

    Raises
    ------
    PrivacyError
        ``value`` is not a finite number > 0 of an exact type (int, float, ``Fraction``, a
        NumPy scalar): a subclass of float, a string or an array is refused by its type.

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex.privacy.mechanisms.facts import public_number
    >>> public_number(np.float64(0.5), "doc", "bound"), type(public_number(2, "doc", "b"))
    (0.5, <class 'float'>)
    """
    number = exact_number(value)
    if type(number) is not float or not (math.isfinite(number) and number > 0.0):
        raise PrivacyError(
            f"{caller}: the template's {what} is {describe_value(value)}, which the noise would "
            "be calibrated from; nothing is released. Return a finite built-in float > 0.")
    return number


def public_count(value: Any, caller: str) -> int:
    """``value``, a template's number of records n, as a built-in int read once; refused unless
    it is an integer >= 1 (an int, a NumPy integer, or a float that is a whole number).

    Parameters
    ----------
    value : object
        The template's ``n``.
    caller : str
        Who reads it (opens the message).

    Returns
    -------
    int

    Raises
    ------
    PrivacyError
        ``value`` is not a whole number >= 1 of an exact type.

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex.privacy.mechanisms.facts import public_count
    >>> public_count(np.int64(40), "doc"), type(public_count(40.0, "doc"))
    (40, <class 'int'>)
    """
    number = exact_number(value)
    if type(number) is not float or not (math.isfinite(number) and number >= 1.0
                                         and number == math.floor(number)):
        raise PrivacyError(
            f"{caller}: the template's n is {describe_value(value)}, which the noise would be "
            "calibrated for; nothing is released. Make n the number of records, an int >= 1.")
    # an integer as it is (a float holds integers exactly up to 2**53 only)
    return int(value) if isinstance(value, (int, np.integer)) else int(number)
