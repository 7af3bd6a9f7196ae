"""The "auto" defaults of :class:`~dpconvex.large_margin.PrivateLargeMarginGaussian`.

A user who sets only ``epsilon`` gets (docs/privacy.md §11.10, where the
measurements behind each choice are):

* ``loss="auto"``: the softmax loss (unconstrained, L-BFGS/Newton, seconds on
  Adult and KDDCup99) when ``n_components == 1``; the paper's pairwise Huber
  template (PSD-constrained) for mixtures (the softmax mixture of §11.11 is
  ``loss="softmax"``; it did not beat K = 1 where measured);
* ``structure="auto"``: ``"linear"`` for the softmax loss (Φ_c linear in x: the
  shared-Ψ structure of §11.9, p = C(d + 1) coordinates of noise), ``"full"``
  (the only one there is) for the pairwise loss;
* ``mechanism="auto"``: pure ε-DP objective perturbation (``"objective"``), or
  Gaussian objective perturbation (``"gaussian_objective"``) when ``delta > 0`` is
  given (softmax only);
* ``lam="auto"``: the public rule of §11.5.

``loss="pairwise"`` (or None) with ``lam=2e-2`` is the paper's estimator of
dpconvex 0.2 (Pathak & Raj, PSDM 2010), kept as the specification and the
regression oracle. Every resolution reads only the parameters, never the data.
"""

from __future__ import annotations

import numbers
from typing import Any

__all__ = ["AUTO", "DEFAULT_STRUCTURE", "PAIRWISE", "resolved_loss", "resolved_mechanism",
           "resolved_structure"]

#: The value of every parameter resolved here.
AUTO = "auto"
#: ``loss="pairwise"``: the paper's pairwise Huber template (same as ``loss=None``).
PAIRWISE = "pairwise"
#: The structure of ``structure="auto"`` with the softmax loss (docs/privacy.md §11.10).
DEFAULT_STRUCTURE = "linear"
_SOFTMAX = "softmax"


def _is(value: Any, name: str) -> bool:
    return isinstance(value, str) and value == name


def resolved_loss(est: Any) -> Any:
    """``"softmax"``, a Loss instance, or None (the pairwise Huber loss HuberHinge(h))."""
    loss = est.loss
    if _is(loss, AUTO):
        n_components = est.n_components
        single = isinstance(n_components, numbers.Integral) and int(n_components) == 1
        return _SOFTMAX if single else None
    if _is(loss, PAIRWISE):
        return None
    return loss


def resolved_structure(est: Any) -> Any:
    """The feature structure: ``DEFAULT_STRUCTURE`` for softmax, "full" otherwise, under "auto"."""
    structure = getattr(est, "structure", "full")
    if _is(structure, AUTO):
        return DEFAULT_STRUCTURE if _is(resolved_loss(est), _SOFTMAX) else "full"
    return structure


def resolved_mechanism(est: Any) -> Any:
    """``"gaussian_objective"`` under "auto" when ``delta > 0`` is given (softmax), else "objective"."""
    mechanism = est.mechanism
    if not _is(mechanism, AUTO):
        return mechanism
    delta = est.delta
    wants_delta = (isinstance(delta, numbers.Real) and not isinstance(delta, bool)
                   and float(delta) > 0)
    return "gaussian_objective" if wants_delta else "objective"
