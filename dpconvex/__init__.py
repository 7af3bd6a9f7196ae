"""dpconvex: differentially private convex learning on CVXPY.

Private ERM (Chaudhuri, Monteleoni & Sarwate, JMLR 2011: output and objective
perturbation), with a verifier that checks every condition of the privacy
proof and a certificate for each release.
"""

from __future__ import annotations

from . import losses, noise, regularizers, verify
from .certificate import Certificate, Condition
from .errors import (
    BudgetError,
    DataValidationError,
    DatasetError,
    DPConvexError,
    NotFittedError,
    ParameterError,
    PrivacyError,
    PrivacyWarning,
    SolverError,
)
from .estimators import PrivateHuberSVM, PrivateLogisticRegression

__version__ = "0.1.0"

__all__ = [
    "BudgetError",
    "Certificate",
    "Condition",
    "DPConvexError",
    "DataValidationError",
    "DatasetError",
    "NotFittedError",
    "ParameterError",
    "PrivacyError",
    "PrivacyWarning",
    "PrivateHuberSVM",
    "PrivateLogisticRegression",
    "SolverError",
    "losses",
    "noise",
    "regularizers",
    "verify",
]
