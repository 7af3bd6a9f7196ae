"""Privacy mechanisms, one class each, in one registry (:data:`MECHANISMS`)."""

from . import bounds as _bounds  # noqa: F401  ("quantile_range", "stable_vocabulary")
from . import gaussian as _gaussian  # noqa: F401  ("gaussian", "norm_gamma_sum", "knorm_sum")
from . import gaussian_linear as _gaussian_linear  # noqa: F401  (the Gaussian ERM mechanisms)
from . import noisy_gd as _noisy_gd  # noqa: F401  (registers "noisy_gd")
from . import ssp as _ssp  # noqa: F401  ("ssp", "gaussian_ssp", "none_ssp")
from .amp import ApproximateMinima
from .base import (
    MECHANISMS,
    PLACEMENTS,
    Calibration,
    ExactMinimizer,
    Mechanism,
    MechanismMenu,
    NonPrivate,
    NonPrivateBaseline,
    ObjectivePerturbation,
    OutputPerturbation,
    build_mechanism,
    calibrate_objective_perturbation,
    calibrate_output_perturbation,
    get_mechanism,
    half_epsilon_modulus,
    hessian_trace_bound,
    jacobian_slack,
    jacobian_slack_two_sided,
    mechanism_names,
    no_noise_law,
    register,
)
from .kmeans import DPKMeans
from .scalar import Exponential  # also registers "laplace_mean"

__all__ = [
    "MECHANISMS",
    "PLACEMENTS",
    "ApproximateMinima",
    "Calibration",
    "ExactMinimizer",
    "DPKMeans",
    "Exponential",
    "Mechanism",
    "MechanismMenu",
    "NonPrivateBaseline",
    "build_mechanism",
    "NonPrivate",
    "ObjectivePerturbation",
    "OutputPerturbation",
    "calibrate_objective_perturbation",
    "calibrate_output_perturbation",
    "get_mechanism",
    "half_epsilon_modulus",
    "hessian_trace_bound",
    "jacobian_slack",
    "jacobian_slack_two_sided",
    "mechanism_names",
    "no_noise_law",
    "register",
]
