"""Private hyperparameter selection (CMS 2011 Alg. 4; Liu & Talwar 2019; Papernot & Steinke 2022).

- :mod:`~dpconvex.estimators.selection.grid`: :class:`PrivateGridSearch`, disjoint splits
  and the exponential mechanism over validation errors;
- :mod:`~dpconvex.estimators.selection.random`: :class:`PrivateRandomSearch`, a random
  number of repetitions of a randomly drawn candidate.
"""

from __future__ import annotations

from .grid import PrivateGridSearch
from .random import PrivateRandomSearch

__all__ = ["PrivateGridSearch", "PrivateRandomSearch"]
