"""Private estimators: scikit-learn classifiers whose fit is one certified release.

- :mod:`~dpconvex.estimators.linear`: private ERM with any margin loss (Chaudhuri,
  Monteleoni & Sarwate 2011): logistic regression, Huber SVM, a user's :class:`~dpconvex.objectives.Loss`;
- :mod:`~dpconvex.estimators.large_margin`: the private large-margin Gaussian (mixture)
  classifier (Pathak & Raj 2010, 2012);
- :mod:`~dpconvex.estimators.front_door`: :class:`PrivateClassifier`, which picks one of
  the learners below from public quantities;
- :mod:`~dpconvex.estimators.centroids`: DP class centroids;
- :mod:`~dpconvex.estimators.noisy_gd`: noisy gradient descent with Gaussian noise;
- :mod:`~dpconvex.estimators.kernels`: random Fourier features (a public map);
- :mod:`~dpconvex.estimators.selection`: private hyperparameter selection;
- :mod:`~dpconvex.estimators.sweep`: one estimator over a grid of ε.

Estimators import the privacy, template, solver and data layers; nothing below imports
them.
"""

from __future__ import annotations

from .centroids import PrivateGaussianCentroid
from .front_door import PrivateClassifier
from .kernels import RandomFourierFeatures
from .large_margin import PrivateLargeMarginGaussian
from .linear import PrivateHuberSVM, PrivateLinearClassifier, PrivateLogisticRegression
from .noisy_gd import NoisyGradientDescent
from .selection import PrivateGridSearch, PrivateRandomSearch
from .sweep import EpsilonSweep, epsilon_sweep

__all__ = ["EpsilonSweep", "NoisyGradientDescent", "PrivateClassifier", "PrivateGaussianCentroid",
           "PrivateGridSearch",
           "PrivateHuberSVM", "PrivateLargeMarginGaussian", "PrivateLinearClassifier",
           "PrivateLogisticRegression", "PrivateRandomSearch", "RandomFourierFeatures",
           "epsilon_sweep"]
