"""The privacy verifier: a template's conditions and calibration, without training.

Since the architecture step this module is a thin layer over the one release
pipeline: :func:`verify` is :func:`dpconvex.privacy.release.release` with
``dry_run=True``, and each constant has its home elsewhere (docs/privacy.md §0):

* calibrations: :mod:`dpconvex.privacy.mechanisms` (objective and output
  perturbation: ``calibrate_objective_perturbation``,
  ``calibrate_output_perturbation``, ``jacobian_slack``);
* checks: :mod:`dpconvex.privacy.checks` (DCP convexity, numerical probes);
* declared constants: :class:`dpconvex.templates.base.PrivacyConstants`;
* float-safe budget arithmetic: :mod:`dpconvex.privacy.budget`.

The names below are re-exported so that existing code keeps working.
"""

from __future__ import annotations

import math
from typing import Any

from .certificate import Certificate
from .privacy.budget import Budget
from .privacy.budget import remaining as _remaining
from .privacy.checks import PROBE_RTOL, check_dcp_convex, probe_loss
from .privacy.mechanisms import (
    Calibration,
    build_mechanism,
    calibrate_objective_perturbation,
    calibrate_output_perturbation,
    jacobian_slack,
    mechanism_names,
)
from .privacy.release import release
from .templates.base import PrivacyConstants, Template

__all__ = [
    "MECHANISMS",
    "PROBE_RTOL",
    "Calibration",
    "PrivacyConstants",
    "Template",
    "_remaining",
    "calibrate_objective_perturbation",
    "calibrate_output_perturbation",
    "check_dcp_convex",
    "jacobian_slack",
    "probe_loss",
    "verify",
]

#: Mechanisms that solve a template and may be named here (read from the registry).
MECHANISMS = tuple(m for m in mechanism_names(solves=True) if m != "amp")


def verify(template: Any, *, epsilon: float, mechanism: str
           ) -> tuple[Certificate, Calibration | None]:
    """Verify a template for a mechanism and compute its calibration (no noise, no solve).

    Parameters
    ----------
    template : Template
    epsilon : float
        Requested ε > 0 (ignored for ``mechanism="none"``).
    mechanism : str
        A registered mechanism name (:data:`MECHANISMS`).

    Returns
    -------
    certificate : Certificate
        Every condition and the derived quantities; its ε never exceeds the request.
    calibration : Calibration or None
        None for the non-private baseline.

    Raises
    ------
    ParameterError
        Unknown mechanism or invalid ε.
    PrivacyError
        When a condition of the proof fails (nothing may be released).
    """
    mech = build_mechanism(mechanism, "verify", None)
    budget = Budget(epsilon) if mech.private else Budget(math.inf)
    rel = release(template, mech, budget, dry_run=True)
    return rel.certificate, rel.calibration
