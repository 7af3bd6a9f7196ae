"""dpconvex: differentially private convex learning on CVXPY.

Private ERM (Chaudhuri, Monteleoni & Sarwate, JMLR 2011: output and objective perturbation), private
large-margin Gaussian classifiers (Pathak & Raj) and noisy gradient descent, with a verifier that checks every
condition of the privacy proof and a certificate for each release.

Submodules and the names below are imported lazily on first access (PEP 562),
so ``import dpconvex`` and ``dpconvex --help`` stay fast.
"""

import importlib as _importlib
from typing import Any as _Any

__version__ = "0.2.0"

#: Public name -> submodule that defines it.
_EXPORTS: dict[str, str] = {
    "Budget": "privacy.budget",
    "BudgetAccountant": "privacy.budget",
    **dict.fromkeys(("Certificate", "Condition"), "privacy.certificate"),
    **dict.fromkeys((
        "BudgetError", "BudgetPickleError", "BudgetProcessError", "DPConvexError", "DataTypeError",
        "DataValidationError", "DatasetError", "NotFittedError", "ParameterError", "PrivacyError",
        "PrivacyLeakWarning", "PrivacyWarning", "SolverCostWarning", "SolverError"), "errors"),
    **dict.fromkeys((
        "EpsilonSweep", "NoisyGradientDescent", "PrivateClassifier", "PrivateGaussianCentroid",
        "PrivateGaussianNB", "PrivateGridSearch", "PrivateHuberRegressor", "PrivateHuberSVM",
        "PrivateLargeMarginGaussian", "PrivateLinearClassifier", "PrivateLinearRegression",
        "PrivateLinearRegressor", "PrivateLogisticRegression", "PrivateQuantileRegressor",
        "PrivateRandomSearch", "PrivateRegressor", "RandomFourierFeatures", "epsilon_sweep"),
        "estimators"),
    **dict.fromkeys(("Binary", "Categorical", "Numeric", "PublicSchema"), "data.schema"),
    "release": "privacy.release",
    **dict.fromkeys(("collect_diagnostics", "verbosity"), "errors"),
    "PublicEncoder": "data.encoder",
    "draft_schema": "privacy.bounds",
    "PrivateBounds": "estimators.regression",
    "Loss": "objectives.losses",
}

#: Subpackages reachable as attributes (``dpconvex.datasets`` without importing it first).
_SUBMODULES = (
    "audit", "data", "datasets", "errors", "estimators", "objectives", "privacy", "runs",
    "solvers", "templates",
)

__all__ = sorted([*_EXPORTS, "__version__"])


def __getattr__(name: str) -> _Any:
    if name in _EXPORTS:
        value = getattr(_importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    elif name in _SUBMODULES:
        value = _importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module 'dpconvex' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({n for n in globals() if not n.startswith("_")} | set(_EXPORTS)
                  | set(_SUBMODULES) | {"__version__"})
