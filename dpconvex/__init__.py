"""dpconvex: differentially private convex learning on CVXPY.

Private ERM (Chaudhuri, Monteleoni & Sarwate, JMLR 2011: output and objective
perturbation), with a verifier that checks every condition of the privacy
proof and a certificate for each release.
"""

from __future__ import annotations

from . import kernels, losses, noise, regularizers, verify
from .accountant import BudgetAccountant
from .certificate import Certificate, Condition
from .errors import (
    BudgetError,
    DatasetError,
    DataTypeError,
    DataValidationError,
    DPConvexError,
    NotFittedError,
    ParameterError,
    PrivacyError,
    PrivacyWarning,
    SolverError,
)
from .estimators import PrivateHuberSVM, PrivateLinearClassifier, PrivateLogisticRegression
from .large_margin import PrivateLargeMarginGaussian
from .noisy_gd import NoisyGradientDescent
from .sweep import EpsilonSweep, epsilon_sweep
from .tuning import PrivateGridSearch

__version__ = "0.1.0"

__all__ = [
    "BudgetAccountant",
    "BudgetError",
    "Certificate",
    "Condition",
    "DPConvexError",
    "DataValidationError",
    "DataTypeError",
    "DatasetError",
    "EpsilonSweep",
    "NoisyGradientDescent",
    "NotFittedError",
    "ParameterError",
    "PrivacyError",
    "PrivacyWarning",
    "PrivateGridSearch",
    "PrivateHuberSVM",
    "PrivateLargeMarginGaussian",
    "PrivateLinearClassifier",
    "PrivateLogisticRegression",
    "SolverError",
    "epsilon_sweep",
    "kernels",
    "losses",
    "noise",
    "regularizers",
    "verify",
]
