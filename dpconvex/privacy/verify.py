"""The privacy verifier: a template's conditions and calibration, without training.

:func:`verify` is :func:`dpconvex.privacy.release.release` with ``dry_run=True``; each
constant has its home elsewhere (docs/privacy/constants.md#privacy-constants): calibrations
in :mod:`dpconvex.privacy.mechanisms`, checks in :mod:`dpconvex.privacy.checks`, declared
constants in :class:`dpconvex.templates.base.PrivacyConstants`, float-safe budget
arithmetic in :mod:`dpconvex.privacy.budget`.
"""

from __future__ import annotations

import math

from .._validation import check_float
from ..templates.base import Template
from .budget import Budget
from .certificate import Certificate
from .mechanisms import Calibration, build_mechanism, mechanism_names
from .release import release

__all__ = ["MECHANISMS", "verify"]

#: Mechanisms that solve a template and may be named here (read from the registry); the
#: covers around an inner mechanism (approximate minima) are chosen through ``optimality_tol``.
MECHANISMS = mechanism_names(solves=True, wraps=False)


def verify(template: Template, *, epsilon: float, mechanism: str, delta: float = 0.0,
           optimality_tol: float | None = None, amp_fraction: float = 0.1
           ) -> tuple[Certificate, Calibration | None]:
    """Verify a template for a mechanism and compute its calibration (no noise, no solve).

    The dry run of an estimator's ``certify()`` (:func:`~dpconvex.privacy.release.release`
    with ``dry_run=True``): the calibration is the one a fit would use.

    Parameters
    ----------
    template : Template
    epsilon, delta : float, float (default 0.0)
        Requested ε > 0 and δ (0 for the pure mechanisms); ignored for ``mechanism="none"``.
    mechanism : str
        A registered mechanism name that is not a cover.
    optimality_tol, amp_fraction : float or None, float (default None, 0.1)
        As the estimators': approximate-minima perturbation around the mechanism, with
        that share of (ε, δ) on its cover.

    Returns
    -------
    certificate, calibration : Certificate, Calibration or None
        Every condition and the derived quantities (ε never above the request); None for
        the non-private baseline.

    Raises
    ------
    ParameterError
        Unknown mechanism, invalid ε or δ, or δ that does not fit the mechanism.
    PrivacyError
        When a condition of the proof fails (nothing may be released).

    Examples
    --------
    >>> from dpconvex.privacy.verify import verify
    >>> # np, X (40 rows of norm 1), y (labels ±1): the doctest namespace, conftest.py
    >>> cert, cal = verify(LinearERMTemplate(Logistic(), 0.1, 1.0, X, y), epsilon=1.0, mechanism="objective")
    >>> cert.all_hold, cert.epsilon
    (True, 1.0)
    >>> round(cal.noise_rate, 4)
    0.4697
    """
    # a template the mechanism cannot serve is refused by its capabilities (in release)
    mech = build_mechanism(mechanism, "verify", None, optimality_tol=optimality_tol,
                           amp_fraction=amp_fraction)
    if not mech.private:
        budget = Budget(math.inf)
    else:
        eps = check_float("epsilon", epsilon, "verify")
        dlt = check_float("delta", delta, "verify", low_inclusive=True, high=1.0)
        budget = mech.check_budget(Budget(eps, dlt))  # δ = 0 pure, δ > 0 Gaussian (named)
    rel = release(template, mech, budget, dry_run=True)
    return rel.certificate, rel.calibration
