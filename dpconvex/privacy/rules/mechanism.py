"""``mechanism="auto"``: one rule for every estimator, from δ and the estimator's menu only.

δ = 0 (or None, "not given") chooses the pure ε-DP mechanism of the estimator's
:class:`~dpconvex.privacy.mechanisms.MechanismMenu` (``auto``), δ > 0 its (ε, δ) mechanism,
which spends δ for less noise (the table of pairs and the measurements behind them:
docs/privacy/front_door.md#privacy-mechanism-auto). The choice reads only ``mechanism``
and ``delta``, never the data, and its reason is a line of the certificate
(:func:`resolve_mechanism`).

δ against n: an (ε, δ) guarantee with δ >= 1/n protects no one (releasing one record drawn
at random is (0, 1/n)-DP). n is public here, so every fit compares δ with 1/n before it
reads the data (:func:`warn_if_delta_not_small`: a
:class:`~dpconvex.errors.PrivacyWarning` that names the fix) and the certificate states the
condition (:func:`delta_rows_note`). It warns rather than refuses: the guarantee is true as
stated.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any, NamedTuple

from ...errors import PrivacyWarning, user_stacklevel

__all__ = ["AUTO", "AutoMechanism", "delta_rows_note", "has_positive_delta",
           "resolve_mechanism", "warn_if_delta_not_small"]

#: The value of ``mechanism=`` that this rule resolves.
AUTO = "auto"

_WHY = {
    "objective": "objective perturbation, pure epsilon-DP",
    "gaussian_objective": "Gaussian objective perturbation, (epsilon, delta)-DP",
    "knorm_sum": "K-norm noise on the class sums and counts, pure epsilon-DP",
    "knorm_sup_sum": "sup-norm K-norm noise on the class sums, sums of squares and counts, "
                     "pure epsilon-DP",
    "gaussian": "the analytic Gaussian mechanism on the class sums and counts, (epsilon, delta)-DP",
    "ssp": "sufficient-statistics perturbation (AdaSSP), pure epsilon-DP",
    "gaussian_ssp": "sufficient-statistics perturbation (AdaSSP), (epsilon, delta)-DP",
}


class AutoMechanism(NamedTuple):
    """The mechanism ``mechanism=`` resolves to, and the certificate's line on why (None: given).

    Examples
    --------
    >>> from dpconvex.privacy.rules.mechanism import resolve_mechanism
    >>> auto = resolve_mechanism("auto", 0.0, ("objective", "gaussian_objective"))
    >>> auto.name, auto.reason is not None
    ('objective', True)
    """

    name: str
    reason: str | None


def has_positive_delta(delta: Any) -> bool:
    """Whether ``delta`` is a real number > 0 (None and 0 mean pure ε-DP).

    Examples
    --------
    >>> from dpconvex.privacy.rules.mechanism import has_positive_delta
    >>> has_positive_delta(1e-6), has_positive_delta(0.0), has_positive_delta(None)
    (True, False, False)
    """
    return isinstance(delta, numbers.Real) and not isinstance(delta, bool) and bool(delta > 0)


def resolve_mechanism(mechanism: object, delta: object, auto: tuple[str, str] | None
                      ) -> AutoMechanism:
    """The mechanism of ``mechanism=``; "auto" by δ alone (module docstring).

    Parameters
    ----------
    mechanism : str or object
        The estimator's ``mechanism=``; anything but ``"auto"`` is returned as given
        (the estimator's menu names it and refuses what it does not offer).
    delta : float or None
        The estimator's ``delta=``: 0 or None for pure ε-DP, > 0 for (ε, δ)-DP.
    auto : tuple of (str, str) or None
        The estimator's pair (pure ε-DP, (ε, δ)-DP) of ``"auto"``
        (:attr:`~dpconvex.privacy.mechanisms.MechanismMenu.auto`); None: no ``"auto"``.

    Returns
    -------
    AutoMechanism
        ``name`` and, for "auto", the reason (public: the rule and δ's sign).

    Examples
    --------
    >>> resolve_mechanism("auto", 1e-6, ("objective", "gaussian_objective")).name
    'gaussian_objective'
    >>> resolve_mechanism("auto", 0.0, ("knorm_sum", "gaussian")).name
    'knorm_sum'
    >>> resolve_mechanism("output", 0.0, ("objective", "gaussian_objective"))
    AutoMechanism(name='output', reason=None)
    """
    if not (isinstance(mechanism, str) and mechanism == AUTO) or auto is None:
        return AutoMechanism(mechanism, None)
    pure, approximate = auto
    if has_positive_delta(delta):
        name, because = approximate, "delta > 0 was given"
    else:
        name, because = pure, "delta = 0 (not given)"
    return AutoMechanism(name, f"mechanism='auto' -> {name!r} ({_WHY[name]}) because {because}: "
                               "the one rule of dpconvex.privacy.rules.mechanism "
                               "(docs/privacy/front_door.md#privacy-mechanism-auto)")


def delta_rows_note(delta: Any, n: Any) -> str | None:
    """The certificate's line when δ >= 1/n (n rows, public), else None.

    Parameters
    ----------
    delta : float or None
        The δ of the release (0 or None: pure ε-DP, no line).
    n : int or None
        The number of rows (public under replace-one adjacency); None: no line.

    Returns
    -------
    str or None

    Examples
    --------
    >>> from dpconvex.privacy.rules.mechanism import delta_rows_note
    >>> delta_rows_note(1e-6, 100) is None, delta_rows_note(0.0, 10) is None
    (True, True)
    >>> delta_rows_note(0.5, 10)[:44]
    'delta = 0.5 is at least 1/n = 0.1 for n = 10'
    """
    if not has_positive_delta(delta) or isinstance(n, bool) or not isinstance(n, numbers.Integral):
        return None
    n = int(n)
    if n < 1 or float(delta) * n < 1.0:
        return None
    return (f"delta = {float(delta):.3g} is at least 1/n = {1.0 / n:.3g} for n = {n} rows (n "
            "public): an (epsilon, delta) guarantee with delta >= 1/n is met by releasing one "
            "whole record at random, so it protects no record; use delta well below 1/n, e.g. "
            f"delta = 1/n^2 = {1.0 / (float(n) * n):.3g}, or delta = 0 (pure epsilon-DP) "
            "(dpconvex.privacy.rules.mechanism)")




def warn_if_delta_not_small(delta: Any, n: Any, owner: str) -> str | None:
    """Warn (a :class:`~dpconvex.errors.PrivacyWarning`) when δ >= 1/n; return the certificate line.

    Reads δ and n only (public). The warning points at the first caller outside dpconvex.

    Examples
    --------
    >>> import warnings
    >>> from dpconvex.privacy.rules.mechanism import warn_if_delta_not_small
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     note = warn_if_delta_not_small(0.5, 10, "demo")
    ...
    >>> len(caught), note is not None
    (1, True)
    >>> warn_if_delta_not_small(1e-4, 10, "demo") is None
    True
    """
    note = delta_rows_note(delta, n)
    if note is not None:
        warnings.warn(f"{owner}: {note}.", PrivacyWarning, stacklevel=user_stacklevel())
    return note
