"""Private estimators: scikit-learn classifiers whose fit is one certified release.

- :mod:`~dpconvex.estimators.linear`: private ERM with any margin loss (Chaudhuri,
  Monteleoni & Sarwate 2011): logistic regression, Huber SVM, a user's :class:`~dpconvex.objectives.Loss`;
- :mod:`~dpconvex.estimators.large_margin`: the private large-margin Gaussian (mixture)
  classifier (Pathak & Raj 2010, 2012);
- :mod:`~dpconvex.estimators.front_door`: :class:`PrivateClassifier` and
  :class:`PrivateRegressor`, which pick one of the learners below from public quantities;
- :mod:`~dpconvex.estimators.regression`, :mod:`~dpconvex.estimators.ssp`: private linear
  regression with a loss of bounded slope, and ridge regression by sufficient-statistics perturbation;
- :mod:`~dpconvex.estimators.centroids`: DP class centroids;
- :mod:`~dpconvex.estimators.gaussian_nb`: DP Gaussian naive Bayes, from the same release of
  class sums with the sums of squares beside them;
- :mod:`~dpconvex.estimators.noisy_gd`: noisy gradient descent with Gaussian noise;
- :mod:`~dpconvex.estimators.kernels`: random Fourier features (a public map);
- :mod:`~dpconvex.estimators.selection`: private hyperparameter selection;
- :mod:`~dpconvex.estimators.sweep`: one estimator over a grid of ε.

Estimators import the privacy, template, solver and data layers; nothing below imports them.
"""

from __future__ import annotations

import importlib
from typing import Any

#: Public name -> the module that defines it, imported on first access (PEP 562): a fit of
#: one estimator does not import the others' dependencies (e.g. scikit-learn's
#: model_selection for the searches).
_EXPORTS: dict[str, str] = {
    "EpsilonSweep": "sweep",
    "NoisyGradientDescent": "noisy_gd",
    "PrivateClassifier": "front_door",
    "PrivateGaussianCentroid": "centroids",
    "PrivateGaussianNB": "gaussian_nb",
    "PrivateGridSearch": "selection",
    "PrivateHuberRegressor": "regression",
    "PrivateHuberSVM": "linear",
    "PrivateLargeMarginGaussian": "large_margin",
    "PrivateLinearClassifier": "linear",
    "PrivateLinearRegression": "ssp",
    "PrivateLinearRegressor": "regression",
    "PrivateLogisticRegression": "linear",
    "PrivateQuantileRegressor": "regression",
    "PrivateRandomSearch": "selection",
    "PrivateRegressor": "front_door",
    "RandomFourierFeatures": "kernels",
    "epsilon_sweep": "sweep",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
