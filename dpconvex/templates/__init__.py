"""Private learner templates: problem statements the mechanisms and solvers read.

A template declares its privacy constants (``privacy_constants()``), the conditions of its proof
(``conditions(needs)``), its assumptions, its parameter space (``space``: shape, projection, noise subspace)
and its objective; the optional capabilities (``capabilities``) add Hessians, a projection or a CVXPY form
whose noise term is a :class:`cvxpy.Parameter`. The written contract is
:mod:`dpconvex.templates.base`; solving is :func:`dpconvex.solvers.solve`.
"""

from __future__ import annotations

from .base import (
    ConstrainedSpace,
    EuclideanSpace,
    ParamSpace,
    PrivacyConstants,
    RecordDomain,
    Template,
)
from .large_margin import LargeMarginGaussianTemplate
from .linear_erm import LinearERMTemplate
from .parameterizations import FullPSD

#: Registry of templates by name.
TEMPLATES: dict[str, type] = {
    LinearERMTemplate.name: LinearERMTemplate,
    LargeMarginGaussianTemplate.name: LargeMarginGaussianTemplate,
}

__all__ = ["TEMPLATES", "ConstrainedSpace", "EuclideanSpace", "FullPSD",
           "LargeMarginGaussianTemplate", "LinearERMTemplate", "ParamSpace", "PrivacyConstants",
           "RecordDomain", "Template"]
