"""``mechanism="auto"``: one rule for every estimator, from δ and the template kind only.

The rule (docs/privacy.md §14.1):

* δ = 0 (or None, "not given"): the pure ε-DP mechanism of the template kind;
* δ > 0: the (ε, δ) mechanism of the template kind, which spends δ for less noise.

=================  ==============================  =====================================
template kind      δ = 0 (pure ε-DP)               δ > 0 ((ε, δ)-DP)
=================  ==============================  =====================================
``linear_erm``     ``"objective"`` (CMS Alg. 2)    ``"gaussian_objective"`` (§10.2)
``large_margin``   ``"objective"`` (§11.2)         ``"gaussian_objective"`` (§11.3)
``centroid``       ``"knorm_sum"`` (§4.9)          ``"gaussian"`` (§4.9)
=================  ==============================  =====================================

Objective perturbation is the mechanism the measurements of §3 and §10.6 favour for
the linear learners at every ε tried; the Gaussian variants add noise of scale
O(√log(1/δ)/ε) per coordinate instead of a norm of O(p/ε), the gain that δ buys.
The choice reads only ``mechanism`` and ``delta`` (parameters, public), never the
data, and its reason is a line of the certificate (:func:`resolve_mechanism`).
"""

from __future__ import annotations

import numbers
from typing import Any, NamedTuple

__all__ = ["AUTO", "AUTO_MECHANISMS", "AutoMechanism", "has_positive_delta", "resolve_mechanism"]

#: The value of ``mechanism=`` that this rule resolves.
AUTO = "auto"

#: Per template kind: (the pure ε-DP mechanism, the (ε, δ) mechanism) of ``mechanism="auto"``.
AUTO_MECHANISMS: dict[str, tuple[str, str]] = {
    "linear_erm": ("objective", "gaussian_objective"),
    "large_margin": ("objective", "gaussian_objective"),
    "centroid": ("knorm_sum", "gaussian"),
}

_WHY = {
    "objective": "objective perturbation, pure epsilon-DP",
    "gaussian_objective": "Gaussian objective perturbation, (epsilon, delta)-DP",
    "knorm_sum": "K-norm noise on the class sums and counts, pure epsilon-DP",
    "gaussian": "the analytic Gaussian mechanism on the class sums and counts, (epsilon, delta)-DP",
}


class AutoMechanism(NamedTuple):
    """The mechanism ``mechanism=`` resolves to, and the certificate's line on why (None: given).

    Examples
    --------
    >>> from dpconvex.privacy.rules.mechanism import resolve_mechanism
    >>> auto = resolve_mechanism("auto", 0.0, "linear_erm")
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


def resolve_mechanism(mechanism: Any, delta: Any, kind: str) -> AutoMechanism:
    """The mechanism of ``mechanism=`` for a template kind; "auto" by δ alone (module docstring).

    Parameters
    ----------
    mechanism : str or object
        The estimator's ``mechanism=``; anything but ``"auto"`` is returned as given
        (the registry names it and refuses what the kind does not offer).
    delta : float or None
        The estimator's ``delta=``: 0 or None for pure ε-DP, > 0 for (ε, δ)-DP.
    kind : str
        The template kind ("linear_erm", "large_margin", "centroid").

    Returns
    -------
    AutoMechanism
        ``name`` and, for "auto", the reason (public: the rule and δ's sign).

    Examples
    --------
    >>> resolve_mechanism("auto", 1e-6, "linear_erm").name
    'gaussian_objective'
    >>> resolve_mechanism("auto", 0.0, "centroid").name
    'knorm_sum'
    >>> resolve_mechanism("output", 0.0, "linear_erm")
    AutoMechanism(name='output', reason=None)
    """
    if not (isinstance(mechanism, str) and mechanism == AUTO) or kind not in AUTO_MECHANISMS:
        return AutoMechanism(mechanism, None)
    pure, approximate = AUTO_MECHANISMS[kind]
    if has_positive_delta(delta):
        name, because = approximate, "delta > 0 was given"
    else:
        name, because = pure, "delta = 0 (not given)"
    return AutoMechanism(name, f"mechanism='auto' -> {name!r} ({_WHY[name]}) because {because}: "
                               "the one rule of dpconvex.privacy.rules.mechanism "
                               "(docs/privacy.md §14.1)")
