"""Privacy mechanisms, one class each, in one registry (:data:`MECHANISMS`)."""

from . import gaussian as _gaussian  # noqa: F401  (registers "gaussian", "norm_gamma_sum")
from . import noisy_gd as _noisy_gd  # noqa: F401  (registers "noisy_gd")
from .amp import ApproximateMinima
from .base import (
    MECHANISMS,
    Calibration,
    Mechanism,
    build_mechanism,
    get_mechanism,
    mechanism_names,
    register,
    require_accurate,
)
from .exponential import Exponential
from .kmeans import DPKMeans
from .perturbation import (
    NonPrivate,
    ObjectivePerturbation,
    OutputPerturbation,
    calibrate_objective_perturbation,
    calibrate_output_perturbation,
    coordinate_scale,
    jacobian_slack,
)

__all__ = [
    "MECHANISMS",
    "ApproximateMinima",
    "Calibration",
    "DPKMeans",
    "Exponential",
    "Mechanism",
    "build_mechanism",
    "NonPrivate",
    "ObjectivePerturbation",
    "OutputPerturbation",
    "calibrate_objective_perturbation",
    "calibrate_output_perturbation",
    "coordinate_scale",
    "get_mechanism",
    "jacobian_slack",
    "mechanism_names",
    "register",
    "require_accurate",
]
