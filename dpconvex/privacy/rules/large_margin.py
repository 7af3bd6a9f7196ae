"""The "auto" defaults of :class:`~dpconvex.estimators.large_margin.estimator.PrivateLargeMarginGaussian`.

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
* ``lam="auto"``: the public rule of §11.5;
* ``row_norm="auto"``: ``"unit"`` (every row clipped to q, then scaled to q: a map
  reading only the record) with the softmax loss, ``"none"`` with the pairwise one
  (§11.13);
* with ``delta > 0``, K = 1 and the objective parameters at their defaults,
  ``mechanism="auto"`` becomes ``"centroid"`` (DP class centroids, §11.13) when
  n·ε/C < :data:`AUTO_CENTROID_BELOW` (n rows and C classes: public shape facts, so
  this is decided once the data's shape is known, never from their values).

``loss="pairwise"`` (or None) with ``lam=2e-2`` is the paper's estimator
(Pathak & Raj, PSDM 2010), the specification and the
regression oracle. Every resolution reads only the parameters, never the data.
"""

from __future__ import annotations

import numbers
from typing import Any

__all__ = ["AUTO", "AUTO_CENTROID_BELOW", "CENTROID", "DEFAULT_STRUCTURE", "PAIRWISE",
           "ROW_NORMS", "is_centroid", "positive_delta", "resolved_loss", "resolved_mechanism",
           "resolved_row_norm", "resolved_structure", "uses_centroid"]

#: The value of every parameter resolved here.
AUTO = "auto"
#: ``loss="pairwise"``: the paper's pairwise Huber template (same as ``loss=None``).
PAIRWISE = "pairwise"
#: The structure of ``structure="auto"`` with the softmax loss (docs/privacy.md §11.10).
DEFAULT_STRUCTURE = "linear"
_SOFTMAX = "softmax"
#: ``mechanism="centroid"``: DP class centroids released as Φ (docs/privacy.md §11.13).
CENTROID = "centroid"
#: Values of ``row_norm``: "auto", "unit" (x ↦ q·x/‖x‖ after clipping) or "none".
ROW_NORMS = ("auto", "unit", "none")
#: ``mechanism="auto"`` with ``delta > 0`` releases DP class centroids when n·ε/C is below
#: this (docs/privacy.md §11.13, benchmarks/large_margin_auto_rules.py).
AUTO_CENTROID_BELOW = 300.0


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
    """``"gaussian_objective"`` under "auto" when ``delta > 0`` is given (softmax), else "objective".

    The objective path's mechanism; whether "auto" releases centroids instead needs n and
    C (:func:`uses_centroid`)."""
    mechanism = est.mechanism
    if not _is(mechanism, AUTO):
        return mechanism
    return "gaussian_objective" if positive_delta(est) else "objective"


def resolved_row_norm(est: Any) -> str:
    """``"unit"`` under "auto" with the softmax loss, ``"none"`` with the pairwise template."""
    row_norm = getattr(est, "row_norm", "none")
    if _is(row_norm, AUTO):
        return "unit" if _is(resolved_loss(est), _SOFTMAX) else "none"
    return row_norm


def is_centroid(est: Any) -> bool:
    """Whether ``mechanism="centroid"`` was asked for explicitly."""
    return _is(est.mechanism, CENTROID)


def positive_delta(est: Any) -> bool:
    """Whether ``delta`` is a real number > 0 (the Gaussian mechanisms' signal)."""
    delta = est.delta
    return isinstance(delta, numbers.Real) and not isinstance(delta, bool) and delta > 0


def uses_centroid(est: Any, n: int, n_classes: int) -> bool:
    """Whether a fit on n rows and C classes releases DP class centroids (§11.13).

    ``mechanism="centroid"``, or ``mechanism="auto"`` with ``delta > 0``, K = 1, the
    objective's parameters at their defaults (``loss``, ``structure``, ``lam`` "auto",
    ``feature_weights``, ``extra_terms`` and ``optimality_tol`` None) and
    n·ε/C < :data:`AUTO_CENTROID_BELOW`. n (the number of rows) and C (the public label
    set) are public under replace-one adjacency; nothing else is read.
    """
    if is_centroid(est):
        return True
    if not _is(est.mechanism, AUTO) or not positive_delta(est):
        return False
    k = est.n_components
    defaults = (isinstance(k, numbers.Integral) and int(k) == 1 and _is(est.loss, AUTO)
                and _is(getattr(est, "structure", AUTO), AUTO) and _is(est.lam, AUTO)
                and getattr(est, "feature_weights", None) is None and not est.extra_terms
                and est.optimality_tol is None)
    return defaults and float(n) * float(est.epsilon) / float(n_classes) < AUTO_CENTROID_BELOW
