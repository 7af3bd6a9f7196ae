"""Private learner templates: declarative problems the verifier can read.

A template declares its privacy constants (``privacy_constants()``), the
conditions of its proof (``conditions(mechanism)``), its assumptions, the shape
of its noise (``noise_shape``, ``noise_symmetric``), and solves its perturbed
objective (``solve(b, extra_reg, solver=...)``), with a CVXPY problem whose
noise term is a :class:`cvxpy.Parameter`.
"""

from __future__ import annotations

from .large_margin import LargeMarginGaussianTemplate
from .linear_erm import LinearERMTemplate

#: Registry of templates by name.
TEMPLATES: dict[str, type] = {
    LinearERMTemplate.name: LinearERMTemplate,
    LargeMarginGaussianTemplate.name: LargeMarginGaussianTemplate,
}

__all__ = ["TEMPLATES", "LargeMarginGaussianTemplate", "LinearERMTemplate"]
