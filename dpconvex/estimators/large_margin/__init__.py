"""The private large-margin Gaussian (mixture) classifier (Pathak & Raj, PSDM 2010; TDSC 2012).

- :mod:`~.estimator`: :class:`PrivateLargeMarginGaussian`;
- :mod:`~.learners`: its parameters resolved into a problem (budget, Λ, template) and the
  three learners (pairwise, softmax, centroid);
- :mod:`~.centroid`: the row maps and the DP class-centroid learner released as Φ;
- :mod:`~.components`: the mixture's component assignment (public centers, DP k-means);
- :mod:`~.dask`: the path for Dask collections.
"""

from __future__ import annotations

from .estimator import PrivateLargeMarginGaussian

__all__ = ["PrivateLargeMarginGaussian"]
