"""Closed convex parameter sets with exact Euclidean projections, and their CVXPY forms.

The native projected gradient needs the exact projection Π_S (``space.project``): each set
here (:class:`L2Ball`, :class:`Box`, :class:`NonNegative`, :class:`L1Ball`,
:class:`Simplex`, :class:`Intersection` of sets on disjoint coordinates) has it, and its
CVXPY form. :func:`recognize` reads CVXPY constraints as one of them, exactly, or gives
None; any other set stated with the constraints of :data:`ALLOWED_CONSTRAINTS` is a
:class:`CVXPYSet`, compiled once to a small cone program
(:class:`CompiledSetQP`: its projection and the native projected Newton solver's models are
SCS solves in the parameter's coordinates). A parameter of any
shape is read row-major; ``indices=`` restricts a set to some coordinates. Sets on the same
coordinates (a ball and the orthant) are not offered: the projection onto their
intersection is not the composition (docs/privacy/user_objectives.md#privacy-constraints).

References
----------
.. [DSSC] J. Duchi, S. Shalev-Shwartz, Y. Singer, T. Chandra. Efficient projections onto
   the l1-ball for learning in high dimensions. ICML 2008, Fig. 1 (simplex) and Section 4
   (l1 ball).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Sequence
from typing import Any

import cvxpy as cp
import numpy as np
import scipy.sparse as sp
from cvxpy.atoms.suppfunc import SuppFuncAtom
from cvxpy.transforms.indicator import indicator
from cvxpy.transforms.partial_optimize import PartialProblem

from .._validation import _short_repr, check_float
from ..errors import ParameterError, SolverError, record_diagnostic

__all__ = ["Box", "CVXPYSet", "ConvexSet", "Intersection", "L1Ball", "L2Ball", "NonNegative",
           "Simplex", "recognize"]

#: Distance to the set below which :meth:`ConvexSet.contains` counts a point as inside.
CONTAINS_TOL = 1e-9

#: SCS's stopping tolerances (``eps_abs`` = ``eps_rel``) for each solve of a
#: :class:`CompiledSetQP`: its residuals at most this.
SET_QP_EPS = 1e-11

#: The error counted for one projection onto a :class:`CVXPYSet` (a Euclidean distance):
#: the accuracy check adds it to the natural residual it measures with the solved
#: projection, so the residual it accepts bounds the one of the exact projection when each
#: projection is within it. Measured: at most 1.1e-10 from the exact projection, on 600
#: points projected onto two sets with a closed-form projection in R^20 (tests/objectives/
#: test_set_qp.py checks a sample).
PROJECTION_TOL = 1e-9


#: SCS's iteration cap for each solve of a :class:`CompiledSetQP`.
PROJECTION_MAX_ITERS = 100_000


def _fmt(value: float | np.ndarray | None) -> str:
    """A scalar as ``repr(float)``, an array in NumPy's summarized form (``[0, 1, ..., 9]``)."""
    if value is None or np.ndim(value) == 0:
        return repr(value if value is None else float(value))  # type: ignore[arg-type]
    return np.array2string(np.asarray(value), separator=", ", threshold=8, edgeitems=3)


def _check_indices(indices: Any, owner: str) -> np.ndarray | None:
    """``indices`` as a read-only 1-D int array (distinct, >= 0), or None."""
    if indices is None:
        return None
    msg = (f"The 'indices' parameter of {owner} must be None or a non-empty 1-D sequence of "
           f"distinct non-negative ints. Got {_short_repr(indices)} instead.")
    try:
        arr = np.asarray(list(indices) if isinstance(indices, range) else indices)
    except (TypeError, ValueError):
        raise ParameterError(msg) from None
    if (arr.ndim != 1 or arr.size == 0 or arr.dtype == bool
            or not np.issubdtype(arr.dtype, np.integer)
            or arr.min() < 0 or np.unique(arr).size != arr.size):
        raise ParameterError(msg)
    out = arr.astype(np.intp)
    out.setflags(write=False)
    return out


class ConvexSet:
    """A closed convex set of parameters with an exact Euclidean projection.

    Subclasses define the projection of the constrained sub-vector and its CVXPY form;
    this base reads a parameter of any shape as its row-major flattening and applies
    the set to ``indices`` of it (all coordinates when None).

    Attributes
    ----------
    indices : ndarray of int or None
        The coordinates of the flattened parameter the set constrains (None: all).
    exact_projection : bool
        Whether ``project`` is exact, a closed form the native solvers may use (False for
        a :class:`CVXPYSet`, whose projection is a solve).

    Examples
    --------
    >>> from dpconvex.objectives import ConvexSet, L2Ball
    >>> ball = L2Ball(1.0, indices=[0, 1])        # the last coordinate stays free
    >>> isinstance(ball, ConvexSet)
    True
    >>> ball.project(np.array([3.0, 4.0, 10.0]))
    array([ 0.6,  0.8, 10. ])
    >>> ball.contains(np.array([0.6, 0.8, 10.0]))
    True
    """

    indices: np.ndarray | None = None
    exact_projection: bool = True

    # -------------------------------------------------------------- to override
    def _project_vector(self, v: np.ndarray) -> np.ndarray:
        """Π of the constrained sub-vector ``v`` (1-D, a fresh array that may be changed)."""
        raise NotImplementedError

    def _constraints_on(self, x: cp.Expression) -> list[cp.Constraint]:
        """The set's constraints on the constrained sub-vector ``x`` (a 1-D expression)."""
        raise NotImplementedError

    def _statement(self, w: str) -> str:
        """The set in words, the constrained sub-vector written ``w``."""
        raise NotImplementedError

    def _size_of_bounds(self) -> int | None:
        """Entries of the set's own per-coordinate arrays (None: none)."""
        return None

    def _check_bounds_per_index(self, name: str) -> None:
        """Refuse per-coordinate bounds (parameter ``name``) of another width than ``indices``."""
        own = self._size_of_bounds()
        if self.indices is not None and own is not None and own != self.indices.size:
            raise ParameterError(
                f"The '{name}' parameter of {type(self).__name__} must be a scalar or have one "
                f"entry per index ({self.indices.size}). Got {own} entries instead.")

    def params(self) -> dict[str, Any]:
        """The constructor's parameters (scalars, arrays, ``indices``).

        Examples
        --------
        >>> from dpconvex.objectives import Box, L2Ball
        >>> L2Ball(2.0).params(), Box(0.0, 1.0).params()
        ({'radius': 2.0, 'center': None, 'indices': None}, {'lower': 0.0, 'upper': 1.0, 'indices': None})
        """
        raise NotImplementedError

    # ---------------------------------------------------------------- shared
    def check_dimension(self, p: int, caller: str) -> None:
        """Refuse a parameter of ``p`` coordinates the set cannot apply to.

        Parameters
        ----------
        p : int
            Coordinates of the (flattened) parameter.
        caller : str
            "Owner.method" of the public callable, opening the message.

        Raises
        ------
        ParameterError
            When an index is at least ``p`` or the set's per-coordinate arrays do not
            have one entry per constrained coordinate.

        Examples
        --------
        >>> from dpconvex.objectives import L2Ball
        >>> L2Ball(1.0, indices=[0, 1]).check_dimension(3, "example")
        >>> try:
        ...     L2Ball(1.0, indices=[0, 5]).check_dimension(3, "example")
        ... except ValueError as err:
        ...     print(str(err)[:60])
        example: the set constrains coordinate 5 of the flattened pa
        """
        if self.indices is not None and int(self.indices.max()) >= p:
            raise ParameterError(
                f"{caller}: the set constrains coordinate {int(self.indices.max())} of the "
                f"flattened parameter, which has {p} coordinates. Pass indices below {p}.")
        width = p if self.indices is None else self.indices.size
        own = self._size_of_bounds()
        if own is not None and own != width:
            raise ParameterError(
                f"{caller}: the set's per-coordinate bounds have {own} entries but it constrains "
                f"{width} coordinates. Pass bounds with one entry per constrained coordinate "
                "(row-major order), or scalars.")

    def project(self, theta: np.ndarray) -> np.ndarray:
        """The Euclidean projection of ``theta`` (any shape; a new float array of that shape).

        Examples
        --------
        >>> from dpconvex.objectives import NonNegative
        >>> NonNegative().project(np.array([[1.0, -2.0], [-3.0, 4.0]]))
        array([[1., 0.],
               [0., 4.]])
        """
        arr = np.asarray(theta, dtype=float)
        flat = arr.ravel().copy()  # row-major
        self.check_dimension(flat.size, f"{type(self).__name__}.project")
        if self.indices is None:
            flat = self._project_vector(flat)
        else:
            flat[self.indices] = self._project_vector(flat[self.indices])
        return flat.reshape(arr.shape)

    def contains(self, theta: np.ndarray, tol: float = CONTAINS_TOL) -> bool:
        """Whether ``theta`` lies within Euclidean distance ``tol`` of the set.

        Examples
        --------
        >>> from dpconvex.objectives import L1Ball
        >>> ball = L1Ball(1.0)
        >>> ball.contains(np.array([0.5, -0.5])), ball.contains(np.array([0.5, -0.6]))
        (True, False)
        >>> ball.contains(np.array([0.5, -0.6]), tol=0.1)
        True
        """
        tol = check_float(
            "tol", tol, f"{type(self).__name__}.contains", low=0.0, low_inclusive=True
        )
        arr = np.asarray(theta, dtype=float)
        return bool(np.linalg.norm(arr - self.project(arr)) <= tol)

    def cvxpy_constraints(self, var: cp.Expression) -> list[cp.Constraint]:
        """The same set as CVXPY constraints on ``var`` (any shape, read row-major).

        Examples
        --------
        >>> import cvxpy as cp
        >>> from dpconvex.objectives import L2Ball
        >>> x = cp.Variable(3)
        >>> problem = cp.Problem(cp.Minimize(cp.sum_squares(x - [3.0, 4.0, 0.0])),
        ...                      L2Ball(1.0).cvxpy_constraints(x))
        >>> _ = problem.solve(solver=cp.CLARABEL)
        >>> x.value.round(4)
        array([0.6, 0.8, 0. ])
        """
        self.check_dimension(int(var.size), f"{type(self).__name__}.cvxpy_constraints")
        x = var if var.ndim == 1 else cp.reshape(var, (int(var.size),), order="C")
        if self.indices is not None:
            x = x[self.indices.tolist()]
        return self._constraints_on(x)

    def describe(self) -> str:
        """The set in words, for a certificate.

        Examples
        --------
        >>> from dpconvex.objectives import L2Ball
        >>> L2Ball(0.5).describe()
        'the l2 ball ||w||_2 <= 0.5'
        >>> L2Ball(0.5, indices=[0, 1, 2]).describe()
        'the l2 ball ||w_S||_2 <= 0.5 on the coordinates S = [0, 1, 2] of w (row-major)'
        """
        if self.indices is None:
            return self._statement("w")
        return f"{self._statement('w_S')} on the coordinates S = {_fmt(self.indices)} of w (row-major)"

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={_fmt(v)}" for k, v in self.params().items() if v is not None)
        return f"{type(self).__name__}({shown})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ConvexSet) or self._family() != other._family():
            return NotImplemented
        mine, theirs = self._key(), other._key()
        return mine.keys() == theirs.keys() and all(
            (mine[k] is None) == (theirs[k] is None)
            and (mine[k] is None or (np.shape(mine[k]) == np.shape(theirs[k])
                                     and np.array_equal(mine[k], theirs[k])))
            for k in mine)

    __hash__ = None  # type: ignore[assignment]

    def _family(self) -> type:
        return type(self)

    def _key(self) -> dict[str, Any]:
        return self.params()


class L2Ball(ConvexSet):
    """The Euclidean ball ||w − center||_2 <= radius.

    Parameters
    ----------
    radius : float
        r > 0.
    center : float or array-like or None, default=None
        c: the origin when None; a float c is the point (c, ..., c); an array has one
        entry per constrained coordinate (row-major).
    indices : sequence of int or None, default=None
        Coordinates of the flattened parameter the ball constrains (None: all).

    Examples
    --------
    >>> from dpconvex.objectives import L2Ball
    >>> ball = L2Ball(0.5)
    >>> ball
    L2Ball(radius=0.5)
    >>> ball.project(np.array([3.0, 4.0]))
    array([0.3, 0.4])
    >>> L2Ball(1.0, center=[1.0, 1.0]).project(np.array([1.0, 3.0]))
    array([1., 2.])
    """

    def __init__(self, radius: float, center: Any = None, indices: Any = None):
        self.radius = check_float("radius", radius, "L2Ball")
        self.center = None
        if center is not None:
            c = np.asarray(center, dtype=float) if _is_numeric(center) else None
            if c is None or not np.all(np.isfinite(c)):
                raise ParameterError(
                    "The 'center' parameter of L2Ball must be None, a finite float or an "
                    f"array-like of finite floats. Got {_short_repr(center)} instead.")
            self.center = float(c) if c.ndim == 0 else c.ravel()
        self.indices = _check_indices(indices, "L2Ball")
        self._check_bounds_per_index("center")

    def _size_of_bounds(self) -> int | None:
        return None if np.ndim(self.center) == 0 else int(np.size(self.center))

    def _project_vector(self, v: np.ndarray) -> np.ndarray:
        c = 0.0 if self.center is None else self.center
        offset = v - c
        norm = float(np.linalg.norm(offset))
        if norm <= self.radius:
            return v
        return c + offset * (self.radius / norm)

    def _constraints_on(self, x: cp.Expression) -> list[cp.Constraint]:
        shifted = x if self.center is None else x - self.center
        return [cp.norm(shifted, 2) <= self.radius]

    def _statement(self, w: str) -> str:
        inner = w if self.center is None else f"{w} - c"
        tail = "" if self.center is None else f" with c = {_fmt(self.center)}"
        return f"the l2 ball ||{inner}||_2 <= {self.radius:g}{tail}"

    def params(self) -> dict[str, Any]:
        return {"radius": self.radius, "center": self.center, "indices": self.indices}


class Box(ConvexSet):
    """The box lower <= w <= upper, coordinate by coordinate (±inf: no bound on that side).

    Parameters
    ----------
    lower, upper : float or array-like
        Bounds, scalars or one entry per constrained coordinate (row-major when an array has the parameter's
        shape); lower <= upper, lower < inf, upper > -inf. A coordinate with lower = upper is fixed.
    indices : sequence of int or None, default=None
        Coordinates of the flattened parameter the box constrains (None: all).

    Examples
    --------
    >>> from dpconvex.objectives import Box
    >>> box = Box(-1.0, [1.0, 2.0, np.inf])
    >>> box
    Box(lower=-1.0, upper=[ 1.,  2., inf])
    >>> box.project(np.array([5.0, 5.0, 5.0]))
    array([1., 2., 5.])
    >>> box.describe()
    'the box l <= w <= u with l = -1, u = [ 1.,  2., inf]'
    """

    def __init__(self, lower: Any, upper: Any, indices: Any = None):
        owner = type(self).__name__
        self.lower = _check_bound("lower", lower, owner, bad=math.inf)
        self.upper = _check_bound("upper", upper, owner, bad=-math.inf)
        try:
            ordered = bool(np.all(np.asarray(self.lower) <= np.asarray(self.upper)))
        except ValueError:  # shapes that do not broadcast
            ordered = False
        if not ordered:
            raise ParameterError(
                f"The 'upper' parameter of {owner} must be at least 'lower' at every "
                f"coordinate, with the same number of entries. Got {_short_repr(upper)} instead.")
        self.indices = _check_indices(indices, owner)
        self._check_bounds_per_index("upper")

    def _size_of_bounds(self) -> int | None:
        sizes = {int(np.size(b)) for b in (self.lower, self.upper) if np.ndim(b) == 1}
        return sizes.pop() if sizes else None

    def _project_vector(self, v: np.ndarray) -> np.ndarray:
        return np.clip(v, self.lower, self.upper)

    def _constraints_on(self, x: cp.Expression) -> list[cp.Constraint]:
        out = []
        for bound, is_lower in ((self.lower, True), (self.upper, False)):
            finite = np.flatnonzero(np.isfinite(np.ravel(bound)))
            if finite.size == 0:
                continue
            if np.ndim(bound) == 0 or finite.size == np.size(bound):
                part, value = x, bound
            else:
                part, value = x[finite.tolist()], np.asarray(bound)[finite]
            out.append(part >= value if is_lower else part <= value)
        return out

    def _statement(self, w: str) -> str:
        if np.ndim(self.lower) == 0 and np.ndim(self.upper) == 0:
            lo = "" if np.isneginf(self.lower) else f"{self.lower:g} <= "
            hi = "" if np.isposinf(self.upper) else f" <= {self.upper:g}"
            body = f"{lo}{w}{hi}" if (lo or hi) else f"{w} free"
            return f"the box {body} (each coordinate)"
        lo = f"{self.lower:g}" if np.ndim(self.lower) == 0 else _fmt(self.lower)
        hi = f"{self.upper:g}" if np.ndim(self.upper) == 0 else _fmt(self.upper)
        return f"the box l <= {w} <= u with l = {lo}, u = {hi}"

    def params(self) -> dict[str, Any]:
        return {"lower": self.lower, "upper": self.upper, "indices": self.indices}

    def _family(self) -> type:
        return Box

    _key = params  # NonNegative's params leave the bounds out; its key keeps them


def _is_numeric(value: Any) -> bool:
    """Whether ``value`` is a real number or an array-like of them (no bools, no strings)."""
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        return False
    return arr.dtype.kind in "iuf"


def _check_bound(name: str, value: Any, owner: str, bad: float) -> float | np.ndarray:
    """A bound as a float or a read-only 1-D float array (row-major), without NaN or ``bad``."""
    shown = "-inf" if bad < 0 else "inf"
    msg = (f"The '{name}' parameter of {owner} must be a float or a non-empty array-like of "
           f"floats, none NaN or {shown}. Got {_short_repr(value)} instead.")
    if not _is_numeric(value):
        raise ParameterError(msg)
    arr = np.asarray(value, dtype=float)
    if arr.size == 0 or np.any(np.isnan(arr)) or np.any(arr == bad):
        raise ParameterError(msg)
    if arr.ndim == 0:
        return float(arr)
    out = arr.ravel().copy()
    out.setflags(write=False)
    return out


class NonNegative(Box):
    """The nonnegative orthant w >= 0 (the box with lower = 0, upper = inf).

    Parameters
    ----------
    indices : sequence of int or None, default=None
        Coordinates of the flattened parameter that must be nonnegative (None: all).

    Examples
    --------
    >>> from dpconvex.objectives import Box, NonNegative
    >>> NonNegative(indices=[0]).project(np.array([-1.0, -1.0]))
    array([ 0., -1.])
    >>> NonNegative() == Box(0.0, np.inf)
    True
    """

    def __init__(self, indices: Any = None):
        super().__init__(0.0, math.inf, indices=indices)

    def _statement(self, w: str) -> str:
        return f"the nonnegative orthant {w} >= 0"

    def params(self) -> dict[str, Any]:
        return {"indices": self.indices}


def _project_simplex(v: np.ndarray, total: float) -> np.ndarray:
    """Π onto {x >= 0, Σ x = total}: [DSSC]_ Fig. 1 (sort, then the threshold τ).

    Π(v + c·1) = Π(v) on the simplex, so v is first shifted to max(v) = 0: the running
    sums then carry no cancellation between huge coordinates and ``total``.
    """
    v = v - v.max()
    mu = np.sort(v)[::-1]
    excess = np.cumsum(mu) - total
    positive = np.flatnonzero(mu - excess / np.arange(1, v.size + 1) > 0)
    rho = int(positive[-1]) if positive.size else 0  # j = 1 always qualifies in exact arithmetic
    tau = excess[rho] / (rho + 1)
    return np.maximum(v - tau, 0.0)


class L1Ball(ConvexSet):
    """The ℓ1 ball ||w||_1 <= radius (projection: Duchi et al. 2008, Section 4).

    Parameters
    ----------
    radius : float
        r > 0.
    indices : sequence of int or None, default=None
        Coordinates of the flattened parameter the ball constrains (None: all).

    Examples
    --------
    >>> from dpconvex.objectives import L1Ball
    >>> L1Ball(1.0).project(np.array([2.0, -0.5, 0.1]))
    array([ 1., -0.,  0.])
    >>> L1Ball(1.0).describe()
    'the l1 ball ||w||_1 <= 1'
    """

    def __init__(self, radius: float, indices: Any = None):
        self.radius = check_float("radius", radius, "L1Ball")
        self.indices = _check_indices(indices, "L1Ball")

    def _project_vector(self, v: np.ndarray) -> np.ndarray:
        if float(np.abs(v).sum()) <= self.radius:
            return v
        return np.sign(v) * _project_simplex(np.abs(v), self.radius)

    def _constraints_on(self, x: cp.Expression) -> list[cp.Constraint]:
        return [cp.norm1(x) <= self.radius]

    def _statement(self, w: str) -> str:
        return f"the l1 ball ||{w}||_1 <= {self.radius:g}"

    def params(self) -> dict[str, Any]:
        return {"radius": self.radius, "indices": self.indices}


class Simplex(ConvexSet):
    """The scaled probability simplex {w >= 0, Σ w = total} (projection: Duchi et al. 2008, Fig. 1,
    O(p log p)).

    Parameters
    ----------
    total : float, default=1.0
        t > 0, the sum of the coordinates.
    indices : sequence of int or None, default=None
        Coordinates of the flattened parameter on the simplex (None: all).

    Examples
    --------
    >>> from dpconvex.objectives import Simplex
    >>> Simplex().project(np.array([1.0, 0.5, 0.0]))   # tau = 0.25
    array([0.75, 0.25, 0.  ])
    >>> Simplex(total=2.0).describe()
    'the simplex w >= 0, sum(w) = 2'
    """

    def __init__(self, total: float = 1.0, indices: Any = None):
        self.total = check_float("total", total, "Simplex")
        self.indices = _check_indices(indices, "Simplex")

    def _project_vector(self, v: np.ndarray) -> np.ndarray:
        return _project_simplex(v, self.total)

    def _constraints_on(self, x: cp.Expression) -> list[cp.Constraint]:
        return [x >= 0, cp.sum(x) == self.total]

    def _statement(self, w: str) -> str:
        return f"the simplex {w} >= 0, sum({w}) = {self.total:g}"

    def params(self) -> dict[str, Any]:
        return {"total": self.total, "indices": self.indices}


class Intersection(ConvexSet):
    """An intersection whose projection is exact: sets on disjoint coordinates; boxes merged.

    Boxes on the same ``indices`` merge into one box; sets on disjoint coordinates (a ball
    on the coefficients, a box on the intercept) are projected block by block. Anything
    else raises :class:`~dpconvex.ParameterError` (the projection would not be exact).

    Parameters
    ----------
    *sets : ConvexSet
        The members (an :class:`Intersection` among them is unpacked).

    Attributes
    ----------
    sets : tuple of ConvexSet
        The members after merging the boxes.

    Examples
    --------
    >>> from dpconvex.objectives import Box, Intersection, L2Ball, NonNegative
    >>> Intersection(Box(-1.0, 1.0), NonNegative()).sets
    (Box(lower=0.0, upper=1.0),)
    >>> both = Intersection(L2Ball(1.0, indices=[0, 1]), Box(-0.5, 0.5, indices=[2]))
    >>> both.project(np.array([3.0, 4.0, 2.0]))
    array([0.6, 0.8, 0.5])
    """

    def __init__(self, *sets: ConvexSet):
        members: list[ConvexSet] = []
        for s in sets:
            if not isinstance(s, ConvexSet):
                raise ParameterError(
                    "The 'sets' parameter of Intersection must be ConvexSet instances "
                    f"(L2Ball, Box, ...). Got {_short_repr(s)} instead.")
            members.extend(s.sets if isinstance(s, Intersection) else (s,))
        if not members:
            raise ParameterError("The 'sets' parameter of Intersection must hold at least one "
                                 "ConvexSet. Got none instead.")
        self.sets = tuple(_merge_boxes(members))
        _check_disjoint(self.sets)

    @property
    def exact_projection(self) -> bool:  # type: ignore[override]
        return all(s.exact_projection for s in self.sets)  # a solver's member: not exact

    def check_dimension(self, p: int, caller: str) -> None:
        for s in self.sets:
            s.check_dimension(p, caller)

    def project(self, theta: np.ndarray) -> np.ndarray:
        out = np.array(theta, dtype=float)
        for s in self.sets:
            out = s.project(out)
        return out

    def cvxpy_constraints(self, var: cp.Expression) -> list[cp.Constraint]:
        return [c for s in self.sets for c in s.cvxpy_constraints(var)]

    def describe(self) -> str:
        if len(self.sets) == 1:
            return self.sets[0].describe()
        return "the intersection of " + "; ".join(s.describe() for s in self.sets)

    def params(self) -> dict[str, Any]:
        return {"sets": self.sets}

    def __repr__(self) -> str:
        return f"Intersection({', '.join(repr(s) for s in self.sets)})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Intersection):
            return NotImplemented
        return self.sets == other.sets

    __hash__ = None  # type: ignore[assignment]


def _same_indices(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    return (a is None and b is None) or (a is not None and b is not None and np.array_equal(a, b))


def _merge_boxes(members: list[ConvexSet]) -> list[ConvexSet]:
    """The members with the boxes on identical coordinates merged into one box each."""
    out: list[ConvexSet] = []
    for s in members:
        twin = next((i for i, t in enumerate(out) if isinstance(s, Box) and isinstance(t, Box)
                     and _same_indices(s.indices, t.indices)), None)
        if twin is None:
            out.append(s)
            continue
        t = out[twin]
        assert isinstance(s, Box) and isinstance(t, Box)
        try:
            lower = np.maximum(s.lower, t.lower)
            upper = np.minimum(s.upper, t.upper)
            empty = bool(np.any(lower > upper))
        except ValueError:
            empty = True
        if empty:
            raise ParameterError(
                f"Intersection.__init__: {t!r} and {s!r} have no common point (or bounds of "
                "different sizes). Pass boxes whose bounds overlap at every coordinate.")
        nonneg = np.all(lower == 0) and np.all(np.isposinf(upper))
        out[twin] = (
            NonNegative(indices=s.indices) if nonneg else Box(lower, upper, indices=s.indices)
        )
    return out


def _check_disjoint(members: Sequence[ConvexSet]) -> None:
    """Refuse members that share a coordinate (the projection would not be exact)."""
    for i, a in enumerate(members):
        for b in members[:i]:
            if a.indices is None or b.indices is None or np.intersect1d(a.indices, b.indices).size:
                raise ParameterError(
                    f"Intersection.__init__: {b!r} and {a!r} constrain the same coordinates; the "
                    "projection onto their intersection is not the composition of their "
                    "projections. "
                    "Constrain disjoint coordinates (indices=), or solve with a CVXPY backend."
                )


# ------------------------------------------------------------------ sets stated in CVXPY


def _substitute(node: Any, old: cp.Variable, new: cp.Expression) -> Any:
    """``node`` (an expression or a constraint) with the variable ``old`` replaced by ``new``."""
    if isinstance(node, cp.Variable) and node.id == old.id:
        return new
    if not node.args:
        return node
    return node.copy([_substitute(arg, old, new) for arg in node.args])


def _text(constraint: cp.Constraint) -> str:
    """A constraint as CVXPY prints it, on one line."""
    return " ".join(str(constraint).split())


def _entries(value: Any) -> np.ndarray:
    """The stored entries of a constant's value (a SciPy sparse one's nonzeros), as an array."""
    return np.asarray(value.data if sp.issparse(value) else value)


#: Problem data where CVXPY lets an infinite entry stand (a bound's side left free).
_INF_ALLOWED = ("b", "G", "lower_bounds", "upper_bounds")

#: The largest coefficient of a :class:`CVXPYSet`'s problem data: its square stays finite in
#: float64 (a solver's norms and scalings square the coefficients).
LARGEST_COEFFICIENT = math.sqrt(np.finfo(float).max)


def _finite_data(constraints: list[cp.Constraint]) -> bool:
    """Whether Clarabel's problem data of the constraints are numbers a solver can square: no
    NaN, and no coefficient infinite or above :data:`LARGEST_COEFFICIENT` (a constant too large
    for float64 once the constants are multiplied out)."""
    problem = cp.Problem(cp.Minimize(0), constraints)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            data = problem.get_problem_data("CLARABEL")[0]
    except (cp.error.SolverError, cp.error.DCPError, ValueError):
        return True  # not compiled here: the solve that follows reports it
    for key, value in data.items():
        if not (sp.issparse(value) or isinstance(value, np.ndarray)):
            continue
        entries = _entries(value)
        if entries.dtype.kind not in "fc":
            continue
        if np.isnan(entries).any() or (key not in _INF_ALLOWED and not np.all(
                np.abs(entries) <= LARGEST_COEFFICIENT)):
            return False
    return True


#: The CVXPY constraint classes (exact types) a :class:`CVXPYSet` holds: with DCP arguments
#: each states a closed convex set, which CVXPY compiles exactly to SCS's and Clarabel's cones
#: (``Inequality``/``Equality`` as ``<=``/``>=``/``==`` with DCP sides; ``NonNeg`` of a concave
#: expression, ``NonPos`` of a convex one, ``Zero`` of an affine one; ``SOC``, ``PSD`` (the
#: symmetric part of a square matrix positive semidefinite), ``ExpCone``, ``PowCone3D`` and
#: ``PowConeND`` of affine arguments).
ALLOWED_CONSTRAINTS: tuple[type, ...] = (
    cp.constraints.Inequality, cp.constraints.Equality, cp.constraints.NonNeg,
    cp.constraints.NonPos, cp.constraints.Zero, cp.constraints.SOC, cp.constraints.PSD,
    cp.constraints.ExpCone, cp.constraints.PowCone3D, cp.constraints.PowConeND,
)

#: Why a constraint class CVXPY offers is refused, and what to write instead.
_REFUSED_CONSTRAINTS = {
    "FiniteSet": (
        "a finite set of values is not convex (CVXPY compiles it with integer variables, "
        "which a cone solver drops: the set solved over would be all of the space)",
        "State a convex set instead, e.g. its convex hull (w >= -1, w <= 1 for the values "
        "{-1, 0, 1})"),
    "PowCone3DApprox": (
        "CVXPY compiles it to second-order cones approximating the power cone",
        "Write cp.constraints.PowCone3D(x, y, z, alpha), which is compiled exactly"),
    "RelEntrConeQuad": (
        "CVXPY compiles it to a quadrature approximation of the relative entropy cone",
        "Write cp.rel_entr(x, y) <= z (the exponential cone, compiled exactly)"),
    "OpRelEntrConeQuad": (
        "CVXPY compiles it to a quadrature approximation of the operator relative entropy cone",
        "State the set with the constraints a parameter set holds"),
}


#: Expressions carrying constraints (or a problem) of their own, which CVXPY compiles with
#: the set they sit in: ``cp.transforms.indicator``, ``cp.transforms.suppfunc``'s atom,
#: ``partial_optimize``'s problem. Their constraints escape the checks here: refused.
_CARRIERS: tuple[type, ...] = (indicator, SuppFuncAtom, PartialProblem)


def _allowed_names() -> str:
    return ", ".join(cls.__name__ for cls in ALLOWED_CONSTRAINTS)


def _check_allowed_class(constraint: Any, shown: str) -> None:
    """Refuse a constraint whose class (exact type) is not in :data:`ALLOWED_CONSTRAINTS`, and
    one holding an expression with constraints of its own (:data:`_CARRIERS`) or an atom CVXPY
    compiles by a quadrature approximation (``quad_approx``) or with its exponent rounded to a
    fraction (``approx_error`` > 0)."""
    kind = type(constraint).__name__
    if type(constraint) not in ALLOWED_CONSTRAINTS:
        why, instead = _REFUSED_CONSTRAINTS.get(kind, (
            "dpconvex states and compiles exactly only those",
            "State the set with them"))
        raise ParameterError(
            f"CVXPYSet.__init__: the constraint {shown} is a cvxpy {kind}, which a parameter "
            f"set does not hold (it holds {_allowed_names()}): {why}. {instead}.")
    for node in _nodes(constraint):
        if isinstance(node, _CARRIERS):
            raise ParameterError(
                f"CVXPYSet.__init__: the constraint {shown} holds cvxpy's "
                f"{type(node).__name__}, which carries constraints of its own (CVXPY compiles "
                "them with the set, unchecked here). State the set by constraints in the list "
                "itself, on the parameter variable.")
        if getattr(node, "quad_approx", None):
            raise ParameterError(
                f"CVXPYSet.__init__: the constraint {shown} holds cvxpy's "
                f"{type(node).__name__}, which CVXPY compiles by a quadrature approximation "
                "(quad_approx): the set solved over would not be the set stated. State the set "
                "without it.")
        if getattr(node, "approx_error", 0.0):
            raise ParameterError(
                f"CVXPYSet.__init__: the constraint {shown} holds cvxpy's "
                f"{type(node).__name__}, whose exponent CVXPY compiles rounded to a fraction "
                f"(error {node.approx_error:.2g}): the set solved over would not be the set "
                "written. Write the exponent as a decimal of a few digits or a fraction of a "
                "small denominator (e.g. 3.14 or Fraction(22, 7)), which CVXPY keeps exactly, "
                "or pass approx=False (CVXPY's power cones).")


def _nodes(node: Any) -> Iterable[Any]:
    """``node`` (an expression or a constraint) and every expression below it, down to a
    :data:`_CARRIERS` expression (not entered)."""
    yield node
    if not isinstance(node, _CARRIERS):
        for arg in node.args:
            yield from _nodes(arg)


def _check_public_convex(constraint: cp.Constraint, var: cp.Variable) -> None:
    """Refuse a constraint of a class not in :data:`ALLOWED_CONSTRAINTS` (or holding an
    approximated atom), with a parameter, on another variable (or none), with a NaN constant,
    or not DCP."""
    shown = _short_repr(_text(constraint), limit=120)
    _check_allowed_class(constraint, shown)
    if constraint.parameters():
        raise ParameterError(
            f"CVXPYSet.__init__: the constraint {shown} holds a cvxpy.Parameter, whose value may "
            "change after the set is checked. Write its value as a constant.")
    if [v.id for v in constraint.variables()] != [var.id]:
        raise ParameterError(
            f"CVXPYSet.__init__: the constraint {shown} is not on the parameter variable alone "
            "(it reads "
            "another variable, or none). State every constraint on the variable passed in."
        )
    if any(np.isnan(_entries(c.value)).any() for c in constraint.constants()):
        raise ParameterError(
            f"CVXPYSet.__init__: the constraint {shown} holds a NaN constant, which states no "
            "set. "
            "Write every bound and coefficient as a number (drop a constraint to leave a side "
            "free)."
        )
    if not constraint.is_dcp():
        raise ParameterError(
            f"CVXPYSet.__init__: the constraint {shown} does not follow CVXPY's DCP rules, so it "
            "need not "
            "state a convex set. Restate it in DCP form (e.g. cp.norm(w, 2) <= r, not cp.norm(w, "
            "2) >= r)."
        )


class CVXPYSet(ConvexSet):
    """A DCP constraint set of the classes CVXPY compiles exactly, held as CVXPY constraints.

    The constraints are restated on the set's own variable ``w`` and checked once (each of a
    class in :data:`ALLOWED_CONSTRAINTS`, whose set CVXPY compiles exactly, so a ``FiniteSet``
    or an approximated cone is refused; no atom compiled by a quadrature approximation or
    with its exponent rounded, no
    :class:`cvxpy.Parameter`, no other variable, no NaN constant, DCP, coefficients finite and
    at most :data:`LARGEST_COEFFICIENT` once multiplied out, feasible by a Clarabel solve on
    the public set); a SciPy sparse matrix is a constant as a NumPy array is. The set is
    compiled once to a small cone program in its own coordinates (:class:`CompiledSetQP`):
    :meth:`project` solves min ||v − θ||² with SCS to its tolerance
    :data:`SET_QP_EPS` (not exactly; each projection's error is counted as
    :data:`PROJECTION_TOL` by the accuracy check), and the native projected Newton solver
    minimizes its quadratic models over the set the same way.

    .. warning::
       The set is public: build the constraints without looking at the private data
       (a matrix or bound read from the data leaks it through every released parameter
       that touches the boundary).

    Parameters
    ----------
    constraints : cvxpy.Constraint or list of cvxpy.Constraint
        Constraints on ``var`` (at least one).
    var : cvxpy.Variable
        The parameter variable, declared without attributes (``nonneg=True``, ``bounds=``
        would constrain it outside the list); the set reads its row-major flattening.

    Attributes
    ----------
    constraints : tuple of cvxpy.Constraint
        The constraints, on the set's own variable.
    shape : tuple of int
        The parameter's shape (that of ``var``).

    Examples
    --------
    >>> import cvxpy as cp
    >>> from dpconvex.objectives import CVXPYSet
    >>> w = cp.Variable(2)
    >>> half_plane = CVXPYSet([w[0] + w[1] <= 1], w)
    >>> half_plane.exact_projection
    False
    >>> half_plane.project(np.array([1.0, 1.0])).round(6)
    array([0.5, 0.5])
    >>> print(half_plane.describe())
    the set {w : w[0] + w[1] <= 1.0} stated in CVXPY (projection solved by SCS to residuals <=
    1e-11, counted as a distance of 1e-09 from the exact projection in the accuracy check)
    """

    #: The error the accuracy check counts for each projection (a Euclidean distance).
    projection_tol = PROJECTION_TOL

    @property
    def exact_projection(self) -> bool:  # type: ignore[override]  # a solver's, whatever an instance says
        return False

    def __init__(self, constraints: Iterable[cp.Constraint] | cp.Constraint, var: cp.Variable):
        if not isinstance(var, cp.Variable) or _has_attributes(var):
            raise ParameterError(
                "The 'var' parameter of CVXPYSet must be a cvxpy.Variable declared without "
                "attributes (state nonneg=True, bounds= and the like as constraints in the "
                "list: w >= 0, w <= u; boolean=True and integer=True state no convex set). "
                f"Got {_short_repr(var)} instead.")
        listed = _listed(constraints)
        if not listed:
            raise ParameterError(
                "The 'constraints' parameter of CVXPYSet must be a cvxpy constraint or a "
                f"non-empty list of them. Got {_short_repr(constraints)} instead.")
        for c in listed:
            _check_public_convex(c, var)
        self.shape = tuple(int(s) for s in var.shape)
        self._var = cp.Variable(self.shape, name="w")
        self.constraints = tuple(_substitute(c, var, self._var) for c in listed)
        self._qp: CompiledSetQP | None = None
        if not _finite_data(list(self.constraints)):
            pairs = zip(listed, self.constraints, strict=True)
            shown = next(
                (_short_repr(_text(c), limit=120) for c, own in pairs if not _finite_data([own])),
                self._statement("w"),
            )
            raise ParameterError(
                f"CVXPYSet.__init__: the constraint {shown} holds a constant too large for "
                "float64 "
                "arithmetic: a coefficient, multiplied out, is infinite or above "
                f"{LARGEST_COEFFICIENT:.3g} (a solver squares it). Rescale the constraint (divide "
                "both "
                "sides by a public constant)."
            )
        feasibility = cp.Problem(cp.Minimize(0), list(self.constraints))
        status = _solve_quietly(feasibility, "CLARABEL", {})
        if status != "optimal":
            verb = ("found no point in" if status.startswith("infeasible")
                    else "could not decide whether there is a point in")
            raise ParameterError(
                f"CVXPYSet.__init__: Clarabel {verb} the set {self._statement('w')} (status "
                f"{status}). Pass constraints with a common point.")

    @property
    def size(self) -> int:
        """Coordinates of the flattened parameter."""
        return math.prod(self.shape)

    def check_dimension(self, p: int, caller: str) -> None:
        if p != self.size:
            raise ParameterError(
                f"{caller}: the set is stated on a variable of {self.size} coordinates, but the "
                f"parameter has {p}. State it on a variable of the parameter's size.")

    @property
    def qp(self) -> CompiledSetQP:
        """The set compiled to SCS's cone program (built at first use, kept)."""
        if self._qp is None:
            self._qp = CompiledSetQP(list(self.constraints), self._var)
        return self._qp

    def reset_projection(self) -> None:
        """Start the projections anew (:meth:`CompiledSetQP.reset`): every solve over the set
        calls it first, so nothing of an earlier solve's points reaches a later one's."""
        if self._qp is not None:
            self._qp.reset()

    def project(self, theta: np.ndarray) -> np.ndarray:
        """The projection onto the set, solved by SCS to :data:`SET_QP_EPS` (any shape; a new array).

        Raises
        ------
        SolverError
            When SCS does not report the projection solved (status ``solved``): one text
            whatever its status, which goes to :func:`dpconvex.collect_diagnostics`.

        Examples
        --------
        >>> import cvxpy as cp
        >>> from dpconvex.objectives import CVXPYSet
        >>> w = cp.Variable(3)
        >>> ball_and_orthant = CVXPYSet([cp.norm(w, 2) <= 1, w >= 0], w)
        >>> ball_and_orthant.project(np.array([3.0, 4.0, -1.0])).round(6) + 0.0  # (no -0.)
        array([0.6, 0.8, 0. ])
        """
        arr = np.asarray(theta, dtype=float)
        self.check_dimension(arr.size, "CVXPYSet.project")
        return self.qp.project(arr.ravel()).reshape(arr.shape)

    def cvxpy_constraints(self, var: cp.Expression) -> list[cp.Constraint]:
        """The constraints on ``var`` (its row-major flattening has the set's size).

        Examples
        --------
        >>> import cvxpy as cp
        >>> from dpconvex.objectives import CVXPYSet
        >>> w = cp.Variable(2)
        >>> x = cp.Variable(2, name="x")
        >>> [str(c) for c in CVXPYSet([w[0] + w[1] <= 1], w).cvxpy_constraints(x)]
        ['x[0] + x[1] <= 1.0']
        """
        self.check_dimension(int(var.size), "CVXPYSet.cvxpy_constraints")
        x = var if var.shape == self.shape else cp.reshape(var, self.shape, order="C")
        return [_substitute(c, self._var, x) for c in self.constraints]

    def _statement(self, w: str) -> str:
        return "{" + f"{w} : " + "; ".join(_text(c) for c in self.constraints) + "}"

    def describe(self) -> str:
        """The set in words, for a certificate: its constraints as CVXPY prints them.

        Examples
        --------
        >>> import cvxpy as cp
        >>> from dpconvex.objectives import CVXPYSet
        >>> w = cp.Variable(2)
        >>> print(CVXPYSet([w >= 0, cp.sum(w) <= 1], w).describe())
        the set {w : 0.0 <= w; Sum(w, None, False) <= 1.0} stated in CVXPY (projection solved by
        SCS to residuals <= 1e-11, counted as a distance of 1e-09 from the exact projection in the
        accuracy check)
        """
        return (f"the set {self._statement('w')} stated in CVXPY (projection solved by SCS to "
                f"residuals <= {SET_QP_EPS:g}, counted as a distance of {self.projection_tol:g} "
                "from the exact projection in the accuracy check)")

    def params(self) -> dict[str, Any]:
        """``constraints`` (as CVXPY prints them) and ``shape``."""
        return {"constraints": tuple(_text(c) for c in self.constraints), "shape": self.shape}

    def __repr__(self) -> str:
        return f"CVXPYSet({list(self.params()['constraints'])!r}, shape={self.shape})"

    def __eq__(self, other: object) -> bool:
        # constraints print rounded: equal texts need not be equal sets
        return other is self if isinstance(other, ConvexSet) else NotImplemented

    __hash__ = None  # type: ignore[assignment]


class CompiledSetQP:
    """min_v gᵀv + ½ vᵀHv over a set of CVXPY constraints, compiled once to SCS's conic form.

    The constraints are compiled once (CVXPY, to SCS's cone program in the set's variable
    and CVXPY's auxiliary variables); each solve then calls SCS directly, with no CVXPY
    work. The Euclidean projection (H = I) keeps one SCS workspace (only the linear term
    changes; each projection starts cold) until :meth:`reset`, which every solve over the
    set calls first: SCS's workspace keeps state between solves (its scaling), so a
    projection's last digits depend on the projections since the reset, the points of one
    solve and its release only. A solve with another H sets up SCS anew. Every solve must
    end with SCS's status ``solved`` at
    :data:`SET_QP_EPS`, else :class:`~dpconvex.SolverError` (one text: the point may be
    read from the data).

    Parameters
    ----------
    constraints : list of cvxpy.Constraint
        On ``var`` only.
    var : cvxpy.Variable
        The set's variable (read row-major).

    Examples
    --------
    >>> import cvxpy as cp
    >>> from dpconvex.objectives.sets import CompiledSetQP
    >>> w = cp.Variable(2)
    >>> qp = CompiledSetQP([w[0] + w[1] <= 1], w)
    >>> qp.project(np.array([1.0, 1.0])).round(8)
    array([0.5, 0.5])
    >>> qp.minimize(np.diag([1.0, 3.0]), np.array([-1.0, -3.0])).round(8)  # KKT: λ = 3/4
    array([0.25, 0.75])
    """

    def __init__(self, constraints: Sequence[cp.Constraint], var: cp.Variable):
        from cvxpy.reductions.solvers.conic_solvers.scs_conif import dims_to_solver_dict

        self.size = int(var.size)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            data = cp.Problem(cp.Minimize(0), list(constraints)).get_problem_data(cp.SCS)[0]
        if data.get("lower_bounds") is not None or data.get("upper_bounds") is not None:
            raise ParameterError(
                "CompiledSetQP.__init__: CVXPY compiles the constraints with bounds on variables "
                "(lower_bounds, upper_bounds: e.g. a FiniteSet's integer variables), which SCS's "
                "cone program here does not hold. State the set with the constraints a CVXPYSet "
                "holds (dpconvex.objectives.sets.ALLOWED_CONSTRAINTS).")
        self._A = sp.csc_matrix(data["A"])
        self._b = np.asarray(data["b"], dtype=float)
        self._cone = dims_to_solver_dict(data["dims"])
        self._columns = int(self._A.shape[1])
        start = int(data["param_prob"].var_id_to_col[var.id])
        # CVXPY's column of each coordinate of var, in var's row-major order (CVXPY stacks a
        # matrix variable column-major)
        order = (
            np.arange(self.size).reshape(var.shape, order="F").ravel(order="C")
            if var.ndim > 1
            else np.arange(self.size)
        )
        self._cols = start + order
        self._workspace: Any = None

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_workspace"] = None  # SCS's workspace is rebuilt at the next projection
        return state

    def _embed(self, H: np.ndarray | None) -> sp.csc_matrix:
        """The cone program's P (upper triangle, SCS's form): H (or I) on the set's columns."""
        rows, cols = np.meshgrid(self._cols, self._cols, indexing="ij")
        block = np.eye(self.size) if H is None else np.asarray(H, dtype=float)
        full = sp.coo_matrix((block.ravel(), (rows.ravel(), cols.ravel())),
                             shape=(self._columns, self._columns))
        return sp.triu(full, format="csc")

    def _linear(self, g: np.ndarray) -> np.ndarray:
        c = np.zeros(self._columns)
        c[self._cols] = np.asarray(g, dtype=float).ravel()
        return c

    def _solver(self, P: sp.csc_matrix, c: np.ndarray) -> Any:
        import scs

        return scs.SCS({"P": P, "A": self._A, "b": self._b, "c": c}, self._cone,
                       eps_abs=SET_QP_EPS, eps_rel=SET_QP_EPS, max_iters=PROJECTION_MAX_ITERS,
                       verbose=False)

    def _result(self, solution: dict[str, Any]) -> np.ndarray | None:
        x = np.asarray(solution["x"], dtype=float)[self._cols]
        solved = solution["info"]["status"] == "solved" and np.all(np.isfinite(x))
        return x if solved else None

    def _refuse(self, caller: str, what: str, solution: dict[str, Any]) -> None:
        record_diagnostic(caller, f"{what}: SCS status {solution['info']['status']}, "
                                  f"{solution['info']['iter']} iterations")
        raise SolverError(
            f"{caller}: SCS did not solve the {what} over the set to its tolerance "
            f"{SET_QP_EPS:g} (its status: dpconvex.collect_diagnostics); nothing is released "
            "from a point it would give. Restate the set with better-scaled constraints, or use "
            "solver='clarabel' (the whole problem as one cone program).")

    def reset(self) -> None:
        """Drop the projection's SCS workspace: the next projection sets SCS up anew."""
        self._workspace = None

    def project(self, theta: np.ndarray) -> np.ndarray:
        """The projection of the flat ``theta`` (SCS, on the workspace kept since :meth:`reset`)."""
        c = self._linear(-np.asarray(theta, dtype=float).ravel())
        if self._workspace is None:
            self._workspace = self._solver(self._embed(None), c)
            solution = self._workspace.solve()
        else:
            self._workspace.update(c=c)
            solution = self._workspace.solve(warm_start=False)
        x = self._result(solution)
        if x is None:
            self._workspace = None
            self._refuse("CVXPYSet.project", "projection", solution)
        return x  # type: ignore[return-value]

    def minimize(self, H: np.ndarray, g: np.ndarray) -> np.ndarray:
        """argmin over the set of gᵀv + ½ vᵀHv (H symmetric positive definite, size x size)."""
        solution = self._solver(self._embed(H), self._linear(g)).solve()
        x = self._result(solution)
        if x is None:
            self._refuse("CompiledSetQP.minimize", "quadratic model", solution)
        return x  # type: ignore[return-value]


def _has_attributes(var: cp.Variable) -> bool:
    """Whether ``var`` constrains itself (``nonneg=True``, ``bounds=``, ``integer=True``)."""
    return any(v is not None and v is not False for v in var.attributes.values())


def _listed(constraints: Any) -> list[cp.Constraint]:
    """One constraint or an iterable of them as a list; [] for anything else."""
    listed = ([constraints] if isinstance(constraints, cp.Constraint)
              else list(constraints) if isinstance(constraints, Iterable) else [])
    return listed if all(isinstance(c, cp.Constraint) for c in listed) else []


def _solve_quietly(problem: cp.Problem, solver: str, options: dict[str, Any]) -> str:
    """Solve ``problem`` with ``solver`` (a CVXPY name); its status, "solver_error" on a failure."""
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Solution may be inaccurate")
            problem.solve(solver=solver, **options)
    except cp.error.SolverError:
        return "solver_error"
    return str(problem.status)


# ------------------------------------------------------------------------- recognize
# A recognized constraint is a piece on coordinates ``idx`` (flat indices of var):
#   ("box", idx, lower, upper)  per-entry arrays (duplicates in idx allowed)
#   ("l2", idx, radius, center) ("l1", idx, radius, None) ("sum", idx, total, None)


class _Unrecognized(Exception):
    """A constraint, or a combination, that is not exactly one of the sets."""


#: Entries of a SciPy sparse constant that :func:`recognize` reads densely; a larger one is
#: never a set's scalar or per-coordinate bound (it stays a :class:`CVXPYSet`).
_DENSE_LIMIT = 2**16


def _constant(expr: cp.Expression) -> np.ndarray | None:
    """The value of an expression without variables or parameters (None otherwise)."""
    if expr.variables() or expr.parameters():
        return None
    value = expr.value
    if sp.issparse(value):  # a SciPy sparse matrix or array: a bound or a matrix A in A @ w
        if math.prod(value.shape) > _DENSE_LIMIT:
            raise _Unrecognized
        value = value.toarray()
    value = np.asarray(value, dtype=float)
    if not np.all(np.isfinite(value)):
        raise _Unrecognized
    return value


_SELECTIONS = ("index", "special_index", "reshape", "transpose")


def _selection(expr: cp.Expression, var: cp.Variable) -> np.ndarray:
    """The flat indices of ``var`` that ``expr`` selects, in ``expr``'s shape."""
    if expr is var:
        return np.arange(int(var.size)).reshape(var.shape)
    if type(expr).__name__ not in _SELECTIONS or len(expr.args) != 1:
        raise _Unrecognized
    inner = _selection(expr.args[0], var)
    return np.rint(np.asarray(expr.numeric([inner]), dtype=float)).astype(np.intp)


def _scalar(value: np.ndarray) -> float:
    """A constant that is one number (possibly promoted to an array of equal entries)."""
    flat = value.ravel()
    if flat.size == 0 or not np.all(flat == flat[0]):
        raise _Unrecognized
    return float(flat[0])


def _affine(expr: cp.Expression, var: cp.Variable) -> tuple[float, np.ndarray, np.ndarray]:
    """``expr`` = a · var[idx] + b with a a nonzero scalar: (a, idx, b), idx and b in its shape."""
    name = type(expr).__name__
    if expr is var or name in _SELECTIONS:
        idx = _selection(expr, var)
        return 1.0, idx, np.zeros(idx.shape)
    if name == "NegExpression":
        a, idx, b = _affine(expr.args[0], var)
        return -a, idx, -b
    if name == "AddExpression":
        parts = [(arg, _constant(arg)) for arg in expr.args]
        live = [arg for arg, value in parts if value is None]
        if len(live) != 1:
            raise _Unrecognized
        a, idx, b = _affine(live[0], var)
        b = sum((value for _, value in parts if value is not None), b)
        if b.shape != idx.shape:
            raise _Unrecognized
        return a, idx, b
    if name in ("multiply", "MulExpression", "DivExpression") and len(expr.args) == 2:
        values = [_constant(arg) for arg in expr.args]
        if name == "DivExpression":
            if values[0] is not None or values[1] is None:
                raise _Unrecognized
            factor, live = 1.0 / _scalar(values[1]), expr.args[0]
        elif (values[0] is None) == (values[1] is None):
            raise _Unrecognized
        else:
            k = 0 if values[0] is not None else 1
            if name == "MulExpression" and values[k].size != 1:  # type: ignore[union-attr]
                raise _Unrecognized  # a matrix product A @ w: equal entries do not make it a·w
            factor, live = _scalar(values[k]), expr.args[1 - k]  # type: ignore[arg-type]
        if factor == 0 or not math.isfinite(factor):
            raise _Unrecognized
        a, idx, b = _affine(live, var)
        if np.shape(idx) != expr.shape:
            raise _Unrecognized
        return factor * a, idx, factor * b
    raise _Unrecognized


def _box_piece(
    expr: cp.Expression, var: cp.Variable, lo: np.ndarray | None, hi: np.ndarray | None
) -> tuple:
    """lo <= expr <= hi (either None: that side free) as a box piece on var's coordinates."""
    a, idx, b = _affine(expr, var)
    shape = idx.shape
    try:
        lo_x = None if lo is None else (np.broadcast_to(lo, shape) - b) / a
        hi_x = None if hi is None else (np.broadcast_to(hi, shape) - b) / a
    except ValueError:
        raise _Unrecognized from None
    if a < 0:
        lo_x, hi_x = hi_x, lo_x
    lower = np.full(shape, -np.inf) if lo_x is None else lo_x
    upper = np.full(shape, np.inf) if hi_x is None else hi_x
    return ("box", idx.ravel(), lower.ravel(), upper.ravel())


#: The atoms (CVXPY class names, subclasses included) whose bound gives a ball or a box.
_NORMS = ("Pnorm", "norm1", "norm_inf", "quad_over_lin")


def _has(expr: cp.Expression, name: str) -> bool:
    return name in (c.__name__ for c in type(expr).__mro__)


def _norm_piece(expr: cp.Expression, var: cp.Variable, bound: np.ndarray) -> tuple:
    """A norm atom of an affine expression of var, at most ``bound``, as a piece."""
    if getattr(expr, "axis", None) is not None or np.ndim(bound) > 0 and np.size(bound) != 1:
        raise _Unrecognized
    r = float(np.ravel(bound)[0])
    if _has(expr, "Pnorm") and float(expr.p) == 2.0:
        kind = "l2"
    elif _has(expr, "norm1"):
        kind = "l1"
    elif _has(expr, "norm_inf"):
        kind = "inf"
    elif type(expr).__name__ == "quad_over_lin":
        denominator = _constant(expr.args[1])
        if denominator is None or denominator.size != 1 or float(denominator.ravel()[0]) != 1.0:
            raise _Unrecognized
        kind, r = "l2", math.sqrt(r) if r >= 0 else -1.0
    else:
        raise _Unrecognized
    if not r > 0:
        raise _Unrecognized
    if kind == "inf":
        return _box_piece(expr.args[0], var, np.asarray(-r), np.asarray(r))
    a, idx, b = _affine(expr.args[0], var)
    if kind == "l1" and np.any(b != 0):
        raise _Unrecognized
    center = None if not np.any(b) else (-b / a).ravel() + 0.0  # + 0.0: no -0.0
    return (kind, idx.ravel(), r / abs(a), center)


def _piece(constraint: cp.Constraint, var: cp.Variable) -> tuple:
    """One CVXPY constraint on var as a piece, or :class:`_Unrecognized`."""
    if constraint.parameters() or [v.id for v in constraint.variables()] != [var.id]:
        raise _Unrecognized
    kind = type(constraint).__name__
    if kind in ("NonNeg", "NonPos"):
        zero = np.zeros(())
        return _box_piece(constraint.args[0], var, zero if kind == "NonNeg" else None,
                          zero if kind == "NonPos" else None)
    if kind not in ("Inequality", "Equality") or len(constraint.args) != 2:
        raise _Unrecognized
    lhs, rhs = constraint.args
    left, right = _constant(lhs), _constant(rhs)
    if (left is None) == (right is None):
        raise _Unrecognized
    if kind == "Equality":
        expr, value = (rhs, left) if right is None else (lhs, right)
        if type(expr).__name__ == "Sum":
            if expr.axis is not None or value.size != 1:  # type: ignore[union-attr]
                raise _Unrecognized
            a, idx, b = _affine(expr.args[0], var)
            return ("sum", idx.ravel(), (float(value.ravel()[0]) - float(b.sum())) / a, None)
        return _box_piece(expr, var, value, value)
    if left is not None:  # constant <= expr
        return _box_piece(rhs, var, left, None)
    if any(_has(lhs, name) for name in _NORMS):
        return _norm_piece(lhs, var, right)  # type: ignore[arg-type]
    return _box_piece(lhs, var, None, right)


def _indices_or_none(idx: np.ndarray, p: int) -> np.ndarray | None:
    return None if idx.size == p and np.array_equal(idx, np.arange(p)) else idx


def _combine(pieces: list[tuple], p: int) -> ConvexSet:
    """The set the pieces describe together, when it is exactly one of the sets."""
    lower, upper = np.full(p, -np.inf), np.full(p, np.inf)
    boxed = np.zeros(p, dtype=bool)
    others = []
    for kind, idx, first, second in pieces:
        if kind == "box":
            np.maximum.at(lower, idx, first)
            np.minimum.at(upper, idx, second)
            boxed[idx] = True
        else:
            if np.unique(idx).size != idx.size:
                raise _Unrecognized  # a norm of repeated coordinates is not a ball
            order = np.argsort(idx)
            center = None if second is None else second[order]
            if center is not None and np.all(center == center[0]):
                center = float(center[0])
            others.append((kind, idx[order], first, center))
    if np.any(lower > upper):
        raise _Unrecognized  # empty
    taken = np.zeros(p, dtype=bool)
    sets: list[ConvexSet] = []
    for kind, idx, value, center in others:
        if taken[idx].any():
            raise _Unrecognized  # two sets on the same coordinates
        taken[idx] = True
        indices = _indices_or_none(idx, p)
        if kind == "sum":
            if not (
                boxed[idx].all() and np.all(lower[idx] == 0) and np.all(np.isposinf(upper[idx]))
            ):
                raise _Unrecognized  # a hyperplane alone, or with other bounds
            boxed[idx] = False
            sets.append(Simplex(value, indices=indices))
        elif boxed[idx].any():
            raise _Unrecognized  # a ball with bounds on its coordinates
        elif kind == "l2":
            sets.append(L2Ball(value, center=center, indices=indices))
        else:
            sets.append(L1Ball(value, indices=indices))
    if boxed.any():
        idx = np.flatnonzero(boxed)
        lo, hi = lower[idx], upper[idx]
        indices = _indices_or_none(idx, p)
        if np.all(lo == 0) and np.all(np.isposinf(hi)):
            sets.append(NonNegative(indices=indices))
        else:
            sets.append(Box(lo[0] if np.all(lo == lo[0]) else lo,
                            hi[0] if np.all(hi == hi[0]) else hi, indices=indices))
    sets.sort(key=lambda s: -1 if s.indices is None else int(s.indices[0]))  # by their first index
    return sets[0] if len(sets) == 1 else Intersection(*sets)




def recognize(
    constraints: Iterable[cp.Constraint] | cp.Constraint, var: cp.Variable
) -> ConvexSet | None:
    """The set a list of CVXPY constraints on ``var`` describes, when it is exactly one here.

    Each constraint is read from its expression tree; the list is the intersection of
    its constraints. Recognized, on ``var`` or a selection of it (``var[2:]``,
    ``var[[0, 3]]``, ``var[:, 0]``, ``cp.vec(var, order="C")``), scaled and shifted by
    constants (``2 * var - 1``), with numeric constants on the other side:

    * ``var >= lo``, ``lo <= var``, ``var <= hi``, ``var == v``, ``cp.norm(var, "inf") <= r``
      (scalars or arrays; all bounds combine into one :class:`Box`, or
      :class:`NonNegative` for ``var >= 0``);
    * ``cp.norm(var, 2) <= r``, ``cp.norm2(var) <= r``, ``cp.pnorm(var, 2) <= r``,
      ``cp.norm(var, "fro") <= r``, ``cp.sum_squares(var) <= r**2``, and
      ``cp.norm(var - c, 2) <= r`` (:class:`L2Ball`, centre ``c``);
    * ``cp.norm(var, 1) <= r``, ``cp.norm1(var) <= r`` (:class:`L1Ball`);
    * ``cp.sum(var) == t`` together with ``var >= 0`` on the same coordinates
      (:class:`Simplex`);
    * such sets on disjoint coordinates together (an :class:`Intersection`).

    Anything else gives None, never a set that differs from the constraints: a
    :class:`cvxpy.Parameter`, another variable, a matrix (``A @ var <= b``), a spectral or
    per-axis norm, a hyperplane alone, two sets on the same coordinates, an empty box, a
    radius <= 0, or a ``var`` with attributes (``nonneg=True``, ``bounds=``, ...).

    Parameters
    ----------
    constraints : list of cvxpy.Constraint, or one
        The constraints, as a user writes them (e.g. ``[w >= 0]``).
    var : cvxpy.Variable
        The parameter variable; a matrix variable is read row-major (``indices`` of the
        set count in ``var``'s row-major flattening).

    Returns
    -------
    ConvexSet or None
        The set, or None when the constraints are not exactly one of the sets (an
        empty list gives None: no constraint).

    Examples
    --------
    >>> import cvxpy as cp
    >>> from dpconvex.objectives import recognize
    >>> w = cp.Variable(4)
    >>> recognize([w >= 0], w)
    NonNegative()
    >>> recognize([cp.norm(w, 2) <= 0.5], w)
    L2Ball(radius=0.5)
    >>> recognize([cp.sum(w) == 1, w >= 0], w)
    Simplex(total=1.0)
    >>> recognize([cp.norm1(w[:3]) <= 2, w[3] >= -1, w[3] <= 1], w)
    Intersection(L1Ball(radius=2.0, indices=[0, 1, 2]), Box(lower=-1.0, upper=1.0, indices=[3]))
    >>> recognize([w >= 0, cp.norm(w, 2) <= 1], w) is None   # the projection is not exact
    True
    """
    if not isinstance(var, cp.Variable):
        raise ParameterError(
            f"The 'var' argument of recognize must be a cvxpy.Variable. Got {_short_repr(var)} "
            "instead."
        )
    listed = _listed(constraints)
    if not listed or _has_attributes(var):
        return None
    try:
        return _combine([_piece(c, var) for c in listed], int(var.size))
    except (_Unrecognized, ParameterError):
        return None
