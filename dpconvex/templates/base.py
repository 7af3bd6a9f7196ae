"""The template contract.

A template is a problem statement (data through a design operator, public constants, the
objective, its parameter space); it never chooses a solver nor calibrates noise. The
contract: :class:`Template`'s members (:data:`TEMPLATE_MEMBERS`) and, per name in
``template.capabilities``, the members of :data:`CAPABILITY_MEMBERS` (read off the Protocol
classes), both checked by :func:`missing_members` (docs/architecture.md#architecture;
``tests/solvers/test_backends.py`` checks every registered template against it). The solver
backends that read it, and their registry: :mod:`dpconvex.solvers.registry`.
"""
from __future__ import annotations

import decimal
import inspect
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from .._validation import _as_float, _short_repr, check_float
from ..errors import ParameterError
from ..objectives.sets import ConvexSet
from ..privacy.checks import beyond_float_range, exact_number

if TYPE_CHECKING:
    from ..objectives.losses import Regularizer
    from ..privacy.certificate import Condition, Line

__all__ = ["CAPABILITY_MEMBERS", "PARAM_SPACE_MEMBERS", "TEMPLATE_MEMBERS", "CVXPYTemplate",
           "ConstrainedSpace", "EuclideanSpace", "ObjectiveTemplate", "ParamSpace",
           "PrivacyConstants", "ProjectionTemplate", "RecordDomain", "SmoothTemplate",
           "SolverSpace", "StatisticTemplate", "Template", "missing_members", "natural_residual",
           "needs_of", "sample_step"]


#: The real-valued fields of :class:`PrivacyConstants` (G, c_u, μ, T), each read as a built-in
#: float (its counts, each read as a built-in int: :attr:`PrivacyConstants.counts`).
_REAL_FIELDS = ("grad_bound", "hessian_term_bound", "strong_convexity", "hessian_trace_bound")

#: The fields that may be None (not stated).
_OPTIONAL_FIELDS = ("hessian_trace_bound", "n", "gradient_difference_rank")


def _not_a_number(field_name: str, value: Any, what: str) -> ParameterError:
    types = ("int, float, Fraction, Decimal, a NumPy scalar" if what == "a real number"
             else "int, float, Fraction, a NumPy scalar")
    return ParameterError(
        f"The '{field_name}' parameter of PrivacyConstants must be {what} of an exact type "
        f"({types}). Got a value of type {type(value).__qualname__} "
        "instead: its conversions and arithmetic would be its author's, in the checks and in "
        f"the noise's calibration; declare a built-in "
        f"{'float' if what == 'a real number' else 'int'}.")


def _real(field_name: str, value: Any) -> float | np.ndarray:
    """``value`` read once as a built-in float (a grid of moduli, an array of floats that
    :func:`~dpconvex.privacy.mechanisms.base.at_modulus` states, as a float array; a
    ``Decimal`` as its nearest float, as the estimators read ε, δ and λ), else a
    :class:`ParameterError` naming its type, or saying it is beyond float64's range."""
    if (field_name == "strong_convexity" and type(value) is np.ndarray
            and value.dtype.kind in "fiu"):
        return np.asarray(value, dtype=float)
    if type(value) is decimal.Decimal:  # not a subclass: its conversion would be its author's
        return _decimal(field_name, value)
    number = exact_number(value)
    if beyond_float_range(value):
        raise _beyond_float(field_name, type(value).__name__)
    if type(number) is not float:
        raise _not_a_number(field_name, value, "a real number")
    return number


def _decimal(field_name: str, value: decimal.Decimal) -> float:
    """A ``Decimal`` read once as its nearest built-in float (NaN and infinity as the float's,
    for the checks to judge), one beyond float64's range refused by name."""
    try:
        return _as_float(value)
    except OverflowError:
        raise _beyond_float(field_name, "Decimal") from None


def _beyond_float(field_name: str, kind: str) -> ParameterError:
    """The refusal of a real constant (an int, Fraction or Decimal) beyond float64's range."""
    return ParameterError(
        f"The '{field_name}' parameter of PrivacyConstants must be a real number that fits in "
        f"a float64 (largest about 1.8e308); the {kind} given does not. Declare a bound within "
        "that range.")


def _count(field_name: str, value: Any) -> int:
    """``value`` read once as a built-in int (a whole number of an exact type), else a
    :class:`ParameterError` naming its type."""
    if type(value) is int:
        return value
    number = exact_number(value)
    if type(number) is not float:
        raise _not_a_number(field_name, value, "a whole number")
    if isinstance(value, np.integer):  # a NumPy integer: exactly, beyond 2**53 too
        return int(value)
    if not number.is_integer():
        raise ParameterError(f"The '{field_name}' parameter of PrivacyConstants must be a "
                             f"whole number. Got {number!r} instead.")
    return int(number)


@dataclass(frozen=True)
class PrivacyConstants:
    """Public constants a template declares for its privacy proof; with ``n`` the public problem
    a mechanism calibrates on before any rows are read.

    A template states its constants (``privacy_constants()``) and its own ``n``, k and name; a
    record that gives ``n`` stands for the problem itself (the Λ rule's: a mechanism's
    ``calibrate`` and ``calibrate_grid`` read ``n``, ``name``, ``privacy_constants()`` and, for
    the Gaussian objective mechanisms, ``gradient_difference_rank`` of either).

    Attributes
    ----------
    grad_bound : float
        G: bound on the norm of one record's loss gradient in the parameters.
    hessian_rank : int
        r: one record's loss Hessian is a sum of at most r PSD rank-one terms ...
    hessian_term_bound : float
        c_u: ... each of spectral norm at most c_u (inf if not twice differentiable).
    strong_convexity : float
        μ: strong-convexity modulus of the data-independent part of the objective
        (read from the template's regularizer, its one source).
    dimension : int
        p: dimension of the parameter (and noise) space.
    hessian_trace_bound : float or None, default=None
        T: bound on the trace of one record's loss Hessian; None means r·c_u.
        The one-sided Jacobian slack r·log(1 + T/(r n μ)) uses min(T, r·c_u)
        (docs/privacy/perturbation.md#privacy-jacobian-slack).
    n : int or None, default=None
        The number of rows of the public problem (None: a template's constants, the template
        states n).
    gradient_difference_rank : int or None, default=None
        k of the public problem, for the Gaussian objective mechanisms (None: none stated).
    name : str, default="a public problem shape"
        The name messages give the public problem.

    Raises
    ------
    ParameterError
        A constant that is not a number of an exact type (int, float, ``Fraction``, a NumPy
        scalar; :func:`~dpconvex.privacy.checks.exact_number`; a ``Decimal`` for G, c_u, μ
        and T, as the estimators' ε, δ and λ): a bool, a string, an array, a subclass of
        float, int or Decimal (whose arithmetic and conversions are its author's), named by
        its type; a Decimal beyond float64's range; a count (r, p, n, k) that is not a whole
        number. Each number is read
        here once, as a built-in float (the counts as built-in ints): the checks and the
        calibration read the same value. Whether it lies in its range (G > 0, ...) is the
        checks' question (:func:`~dpconvex.privacy.declarations.declaration_conditions`).

    Examples
    --------
    >>> PrivacyConstants(grad_bound=1.0, hessian_rank=1, hessian_term_bound=0.25,
    ...                  strong_convexity=0.1, dimension=3).hessian_trace_bound is None
    True
    >>> from dpconvex.privacy.mechanisms import get_mechanism
    >>> problem = PrivacyConstants(grad_bound=1.0, hessian_rank=1, hessian_term_bound=0.25,
    ...                            strong_convexity=0.01, dimension=10, n=1000)
    >>> cal = get_mechanism("objective").calibrate(problem, Budget(1.0))
    >>> cal.noise_shape, round(cal.coordinate_scale, 3)
    ((10,), 6.485)
    >>> type(PrivacyConstants(np.float32(0.5), 1, 0, 0.1, np.int64(3)).dimension).__name__
    'int'
    >>> from decimal import Decimal
    >>> PrivacyConstants(Decimal("0.5"), 1, 0, Decimal("0.1"), 3).grad_bound
    0.5
    """

    grad_bound: float
    hessian_rank: int
    hessian_term_bound: float
    strong_convexity: float
    dimension: int
    hessian_trace_bound: float | None = None
    n: int | None = None
    gradient_difference_rank: int | None = None
    name: str = "a public problem shape"

    #: The fields that are counts (r, p, n, k), each read as a built-in int; a subclass with
    #: counts of its own adds them.
    counts: ClassVar[tuple[str, ...]] = ("hessian_rank", "dimension", "n",
                                         "gradient_difference_rank")

    def __post_init__(self) -> None:
        # each number read once (a frozen record: set through object.__setattr__)
        for field_name in _REAL_FIELDS + self.counts:
            value = getattr(self, field_name)
            if value is None and field_name in _OPTIONAL_FIELDS:
                continue
            read = _real if field_name in _REAL_FIELDS else _count
            object.__setattr__(self, field_name, read(field_name, value))

    def privacy_constants(self) -> PrivacyConstants:
        """The record itself (the template interface's accessor, for a public problem).

        Returns
        -------
        PrivacyConstants
            ``self``.

        Examples
        --------
        >>> problem = PrivacyConstants(1.0, 1, 0.25, 0.1, 3, n=40)
        >>> problem.privacy_constants() is problem
        True
        """
        return self


@dataclass(frozen=True)
class RecordDomain:
    """The public set one record is drawn from: what a user template's constants must hold on.

    The verifier probes a template's per-record functions (capability ``"per_record"``) on
    records of this domain: rows of norm at most ``data_norm`` with ``n_features`` entries,
    labels in ``labels`` (a finite set) or in ``label_range`` (an interval)
    (docs/privacy/user_objectives.md#privacy-user-objectives).

    Attributes
    ----------
    n_features : int
        Entries of one row (after any intercept column).
    data_norm : float
        q: every row has norm at most q.
    labels : tuple of float or None
        The finite label set (e.g. (-1.0, 1.0) for a margin loss).
    label_range : tuple of float or None
        (lo, hi): labels anywhere in [lo, hi]. Exactly one of ``labels`` and
        ``label_range`` is given (else :class:`~dpconvex.ParameterError`).

    Examples
    --------
    >>> from dpconvex.templates.base import RecordDomain
    >>> RecordDomain(3, 1.0, labels=(-1.0, 1.0)).probe_labels()
    (-1.0, 1.0)
    >>> RecordDomain(3, 1.0, label_range=(0.0, 2.0)).probe_labels()
    (0.0, 1.0, 2.0)
    """

    n_features: int
    data_norm: float
    labels: tuple[float, ...] | None = None
    label_range: tuple[float, float] | None = None

    def __post_init__(self) -> None:
        if (self.labels is None) == (self.label_range is None):
            raise ParameterError(
                "RecordDomain.__init__: give exactly one of labels (a finite set) and label_range "
                "(lo, "
                "hi): the verifier probes every label a record can carry."
            )
        check_float("data_norm", self.data_norm, "RecordDomain", magnitude=False)

    def probe_labels(self) -> tuple[float, ...]:
        """The labels a probe uses: the set, or the range's ends and middle."""
        if self.labels is not None:
            return tuple(float(v) for v in self.labels)
        lo, hi = (float(v) for v in self.label_range or (0.0, 0.0))
        return (lo, 0.5 * (lo + hi), hi)


def _stated(protocol: type, but_not: Iterable[str] = ()) -> tuple[str, ...]:
    """The members a Protocol class states in its own body (attributes, then methods)."""
    own = [*vars(protocol).get("__annotations__", {}),
           *(name for name, value in vars(protocol).items() if callable(value))]
    return tuple(m for m in dict.fromkeys(own) if not m.startswith("_") and m not in but_not)


# --------------------------------------------------------------------------- spaces
@runtime_checkable
class ParamSpace(Protocol):
    """Where the parameters live.

    Attributes
    ----------
    shape : tuple of int
        Shape of a parameter (and noise) array.
    dimension : int
        p, the dimension of the space (and of the noise: e.g. symmetric blocks
        count D(D + 1)/2 coordinates each).
    symmetric : bool
        Whether the noise is drawn in the symmetric subspace of each block.

    Examples
    --------
    >>> from dpconvex.templates import EuclideanSpace, ParamSpace
    >>> isinstance(EuclideanSpace((2, 3)), ParamSpace)
    True
    """

    shape: tuple[int, ...]
    dimension: int
    symmetric: bool

    def project(self, theta: np.ndarray) -> np.ndarray:
        """Euclidean projection onto the feasible set (identity when unconstrained)."""

    def postprocess(self, theta: np.ndarray) -> np.ndarray:
        """What the release applies to noisy parameters (free post-processing)."""


@runtime_checkable
class SolverSpace(ParamSpace, Protocol):
    """The parameter space of an objective template: what the solver backends also use.

    Examples
    --------
    >>> from dpconvex.templates.base import EuclideanSpace, SolverSpace
    >>> isinstance(EuclideanSpace((3,)), SolverSpace)
    True
    """

    def project_noise(self, b: np.ndarray) -> np.ndarray:
        """The noise ``b`` as the objective uses it (cast to float, reshaped, projected)."""


#: Members every parameter space has (:class:`ParamSpace`); the spaces of the objective
#: templates also have ``project_noise`` (:class:`SolverSpace`).
PARAM_SPACE_MEMBERS: tuple[str, ...] = _stated(ParamSpace)


class EuclideanSpace:
    """R^shape, unconstrained: projection and post-processing are the identity.

    ``project_noise`` casts noise to float with the space's shape.

    Examples
    --------
    >>> from dpconvex.templates import EuclideanSpace
    >>> space = EuclideanSpace((3,))
    >>> space, space.dimension
    (EuclideanSpace((3,)), 3)
    >>> space.project(np.array([1.0, -2.0, 3.0]))
    array([ 1., -2.,  3.])
    """

    symmetric = False

    def __init__(self, shape: tuple[int, ...]):
        self.shape = tuple(map(int, shape))
        self.dimension = int(np.prod(self.shape))

    def project(self, theta: np.ndarray) -> np.ndarray:
        return theta

    postprocess = project

    def project_noise(self, b: np.ndarray) -> np.ndarray:
        return np.asarray(b, dtype=float).reshape(self.shape)

    def __repr__(self) -> str:
        return f"EuclideanSpace({self.shape})"


class ConstrainedSpace(EuclideanSpace):
    """A closed convex set S in R^shape: projection and post-processing are Π_S.

    ``project`` is the set's Euclidean projection (exact when the set declares ``exact_projection``, else a
    solve, :class:`~dpconvex.objectives.CVXPYSet`); ``postprocess`` projects a noisy output into S
    (post-processing, no privacy cost); ``project_noise`` only casts noise, as :class:`EuclideanSpace`.

    .. warning::
       The set is public: choose it without looking at the private data (a radius
       read from the data's norms, a box from their range, leaks them through every
       released parameter that touches the boundary).

    Parameters
    ----------
    shape : tuple of int
        Shape of a parameter; the set reads its row-major flattening.
    convex_set : ConvexSet
        The set (:mod:`dpconvex.objectives.sets`, e.g. from
        :func:`~dpconvex.objectives.recognize`); its ``indices`` must be below the
        dimension.

    Examples
    --------
    >>> from dpconvex.objectives import L2Ball
    >>> from dpconvex.templates import ConstrainedSpace
    >>> space = ConstrainedSpace((2,), L2Ball(1.0))
    >>> space
    ConstrainedSpace((2,), L2Ball(radius=1.0))
    >>> space.postprocess(np.array([3.0, 4.0])), space.project_noise(np.array([3.0, 4.0]))
    (array([0.6, 0.8]), array([3., 4.]))
    """

    def __init__(self, shape: tuple[int, ...], convex_set: ConvexSet):
        if not isinstance(convex_set, ConvexSet):
            raise ParameterError(
                "The 'convex_set' parameter of ConstrainedSpace must be a ConvexSet (L2Ball, "
                f"Box, NonNegative, L1Ball, Simplex, Intersection, CVXPYSet). Got "
                f"{_short_repr(convex_set)} instead.")
        super().__init__(shape)
        convex_set.check_dimension(self.dimension, "ConstrainedSpace.__init__")
        self.convex_set = convex_set

    def project(self, theta: np.ndarray) -> np.ndarray:
        return self.convex_set.project(theta)

    postprocess = project

    def __repr__(self) -> str:
        return f"ConstrainedSpace({self.shape}, {self.convex_set!r})"


#: A sampled Hessian (capability ``"sampled_hessian"``) reads every k-th row, k at most
#: this, with at least :data:`SAMPLE_ROWS_PER_COEF` rows per coefficient; a template offers
#: it only when k >= :data:`SAMPLE_MIN_STEP` (below that a full Gram costs little). The
#: native solver then takes Newton steps from the start (sampled Hessians, the exact one
#: near the end).
SAMPLE_MAX_STEP = 20
SAMPLE_ROWS_PER_COEF = 100
SAMPLE_MIN_STEP = 8


def sample_step(n: int, p: int) -> int:
    """k of a sampled Hessian over n rows and p coefficients: min(20, n // (100 p)) (0: none).

    Examples
    --------
    >>> from dpconvex.templates.base import sample_step
    >>> sample_step(1_000_000, 51), sample_step(30_000, 51)
    (20, 0)
    """
    k = min(SAMPLE_MAX_STEP, int(n) // max(1, SAMPLE_ROWS_PER_COEF * int(p)))
    return k if k >= SAMPLE_MIN_STEP else 0


def natural_residual(theta: np.ndarray, grad: np.ndarray,
                     project: Callable[[np.ndarray], np.ndarray]) -> float:
    """||θ − Π(θ − ∇J(θ))||: the optimality residual over a closed convex set.

    The gradient mapping with unit step: zero exactly at the constrained
    minimizer, ||∇J|| where the constraint is inactive, and independent of any
    solver's step size (docs/privacy/large_margin.md#privacy-lm-solver-accuracy).

    Examples
    --------
    >>> from dpconvex.templates.base import natural_residual
    >>> theta, grad = np.array([1.0, 0.0]), np.array([-0.5, 0.5])
    >>> round(natural_residual(theta, grad, lambda v: v), 4)   # unconstrained: ||grad||
    0.7071
    >>> natural_residual(theta, grad, lambda v: np.clip(v, 0.0, 1.0))   # optimal on the box [0, 1]^2
    0.0
    """
    return float(np.linalg.norm(theta - project(theta - grad)))


# ------------------------------------------------------------------------ templates
@runtime_checkable
class Template(Protocol):
    """Members every template has.

    Attributes
    ----------
    name : str
        Human-readable name (certificates, the ``TEMPLATES`` registry key).
    kind : str
        Which estimators and mechanisms it serves (e.g. ``"linear_erm"``).
    n : int
        Number of records.
    capabilities : frozenset of str
        What it offers beyond this core (keys of :data:`CAPABILITY_MEMBERS`).
    space : ParamSpace
        Parameter space: shape, projection, post-processing, noise subspace.
    noise_shape : tuple of int
        Shape of a noise draw (``space.shape`` for the ERM templates).
    noise_symmetric : bool
        Noise drawn in the symmetric subspace of each block.
    residual_tol : float
        Largest optimality residual at which a solve counts as the exact minimizer.

    Examples
    --------
    >>> from dpconvex.templates import LinearERMTemplate, Template
    >>> # template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y): conftest.py
    >>> isinstance(template, Template), template.kind, sorted(template.capabilities)
    (True, 'linear_erm', ['cvxpy', 'hessian', 'hessp', 'objective', 'per_record', 'smooth'])
    """

    name: str
    kind: str
    n: int
    capabilities: frozenset[str]
    space: ParamSpace
    noise_shape: tuple[int, ...]
    noise_symmetric: bool
    residual_tol: float

    def conditions(self, needs: Iterable[str]) -> list[Condition]:
        """Establish the conditions of the proof for a mechanism's needs (raise on failure).

        Parameters
        ----------
        needs : iterable of str
            What the mechanism's proof uses (``mechanism.needs``).

        Returns
        -------
        list of Condition
            The conditions; :func:`~dpconvex.privacy.release.release` refuses the first whose
            ``holds`` is False.

        Raises
        ------
        ParameterError
            ``needs`` is a mechanism's name, not its needs
            (:func:`~dpconvex.templates.base.needs_of`).

        Examples
        --------
        >>> # template: LinearERMTemplate(Logistic(), 0.1, 1.0, X, y), conftest.py
        >>> conditions = template.conditions(get_mechanism("objective").needs)
        >>> "row norm bound" in [c.name for c in conditions], all(c.holds for c in conditions)
        (True, True)
        """

    def assumptions(self, needs: Iterable[str]) -> list[str | Line]:
        """What the guarantee assumes, for the certificate: lines, or typed lines
        (:data:`~dpconvex.privacy.certificate.Line`, e.g. a
        :class:`~dpconvex.privacy.certificate.ParameterSet`) whose fields the certificate keeps.

        Parameters
        ----------
        needs : iterable of str
            What the mechanism's proof uses (``mechanism.needs``).

        Returns
        -------
        list of str or Line

        Examples
        --------
        >>> # template: LinearERMTemplate(Logistic(), 0.1, 1.0, X, y), conftest.py
        >>> template.assumptions(get_mechanism("objective").needs)[0]
        'adjacency: datasets differing in one record (replace-one)'
        """


class StatisticTemplate:
    """The shared part of the templates whose mechanism releases a noisy statistic.

    Nothing is solved (``residual_tol`` is inf), the proof has no condition beyond the
    bounds of the caller's per-record maps, and the noise has the space's shape.

    Examples
    --------
    >>> from dpconvex.templates.base import StatisticTemplate
    >>> from dpconvex.privacy.mechanisms.scalar import BoundedMeanTemplate
    >>> template = BoundedMeanTemplate(np.zeros(10))
    >>> isinstance(template, StatisticTemplate), template.noise_shape, template.conditions(())
    (True, (1,), [])
    """

    noise_symmetric = False
    residual_tol = math.inf
    space: ParamSpace

    @property
    def noise_shape(self) -> tuple[int, ...]:
        return self.space.shape

    def conditions(self, needs: Iterable[str] | str) -> list[Condition]:
        return []

    def assumptions(self, needs: Iterable[str] | str) -> list[str]:
        return []


@runtime_checkable
class ObjectiveTemplate(Template, Protocol):
    """A regularized ERM objective with declared privacy constants (capability ``"objective"``).

    ``b`` is the noise (None: zero) and ``extra_reg`` objective perturbation's extra strong
    convexity Δ, as the backends pass them; ``regularizer.strong_convexity`` is the declared μ.

    Examples
    --------
    >>> from dpconvex.templates.base import CAPABILITY_MEMBERS
    >>> CAPABILITY_MEMBERS["objective"]   # read off this class
    ('regularizer', 'privacy_constants', 'objective', 'residual', 'distance_bound')
    """

    space: SolverSpace
    regularizer: Regularizer

    def privacy_constants(self) -> PrivacyConstants:
        """The constants the privacy proof uses."""

    def objective(self, theta: np.ndarray, b: np.ndarray | None,
                  extra_reg: float = 0.0) -> tuple[float, np.ndarray]:
        """J(θ) and ∇J(θ) in NumPy."""

    def residual(self, theta: np.ndarray, b: np.ndarray | None, extra_reg: float = 0.0) -> float:
        """The optimality residual at θ (the same definition for every backend)."""

    def distance_bound(self, residual: float, mu: float) -> float:
        """Bound on ||θ − θ*|| from a residual, for a μ-strongly convex objective."""


@runtime_checkable
class SmoothTemplate(ObjectiveTemplate, Protocol):
    """An unconstrained smooth objective (capability ``"smooth"``): the native L-BFGS / Newton.

    Each second-order member is its own capability, of the same name, and is called only
    when the template offers it. The parameter may have any shape (``space.shape``, e.g. a
    (d, C) matrix): the native solver iterates on the flat vector ``θ.ravel()`` and passes
    θ, and v to the ``hessp`` product, in the space's shape; ``hessian`` and
    ``sampled_hessian`` return the p × p matrix of the row-major flattening (an array of p²
    entries, e.g. shape ``space.shape * 2``, is read as that matrix).

    Examples
    --------
    >>> from dpconvex.templates.base import CAPABILITY_MEMBERS
    >>> CAPABILITY_MEMBERS["smooth"], CAPABILITY_MEMBERS["hessp"]
    (('objective', 'residual'), ('hessp',))
    """

    def hessian(self, theta: np.ndarray, extra_reg: float = 0.0) -> np.ndarray:
        """∇²J(θ), dense."""

    def hessp(
        self, theta: np.ndarray, extra_reg: float = 0.0
    ) -> Callable[[np.ndarray], np.ndarray]:
        """v ↦ ∇²J(θ) v."""

    def sampled_hessian(self, theta: np.ndarray, extra_reg: float = 0.0, *,
                        bound: bool = False) -> np.ndarray:
        """An estimate of ∇²J(θ) from a sample of the rows, for search directions only."""


@runtime_checkable
class ProjectionTemplate(ObjectiveTemplate, Protocol):
    """A smooth objective over a closed convex set (capability ``"projection"``).

    ``space.project`` is the Euclidean projection; projected gradient starts its step
    search from ``lipschitz_bound``.

    Examples
    --------
    >>> from dpconvex.templates.base import CAPABILITY_MEMBERS
    >>> CAPABILITY_MEMBERS["projection"]
    ('objective', 'residual', 'regularizer', 'lipschitz_bound')
    """

    def lipschitz_bound(self, extra_reg: float = 0.0) -> float:
        """An initial estimate of the Lipschitz constant of ∇J."""


@runtime_checkable
class CVXPYTemplate(ObjectiveTemplate, Protocol):
    """A CVXPY form with the noise and Δ as parameters (capability ``"cvxpy"``): Clarabel, SCS.

    Examples
    --------
    >>> from dpconvex.templates.base import CAPABILITY_MEMBERS
    >>> CAPABILITY_MEMBERS["cvxpy"]
    ('cvxpy_options', 'cvxpy_problem', 'cvxpy_set', 'cvxpy_solution')
    """

    cvxpy_options: dict[str, Any]  # passed to Problem.solve

    def cvxpy_problem(self) -> dict[str, Any]:
        """The CVXPY problem (key ``"problem"``) and its variables, built once."""

    def cvxpy_set(self, b: np.ndarray | None, extra_reg: float) -> None:
        """Set the noise and Δ parameters of the problem."""

    def cvxpy_solution(self) -> tuple[np.ndarray | None, dict[str, Any]]:
        """The solution in the parameter space's shape (None: none) and diagnostics."""


#: Members of the core :class:`Template`.
TEMPLATE_MEMBERS: tuple[str, ...] = _stated(Template)

#: Members promised by each capability. Solver backends declare the capabilities
#: they require; ``"objective"`` is what the perturbation mechanisms use.
CAPABILITY_MEMBERS: dict[str, tuple[str, ...]] = {
    "objective": _stated(ObjectiveTemplate, but_not=TEMPLATE_MEMBERS),
    # an unconstrained smooth objective (space.project is the identity): L-BFGS / Newton;
    # "hessian", "hessp" and "sampled_hessian" each promise the member of that name
    "smooth": ("objective", "residual"),
    **{member: (member,) for member in _stated(SmoothTemplate)},
    "projection": ("objective", "residual", "regularizer", *_stated(ProjectionTemplate)),
    "cvxpy": _stated(CVXPYTemplate),
    # noisy gradient descent on clipped per-example gradients
    "per_example_gradients": ("loss", "data_norm", "X", "y", "p"),
    # DP k-means: noisy per-cell sums and counts
    "cell_sums": ("X", "y", "C", "K", "d", "data_norm", "n_iter", "init_centers"),
    # exponential mechanism over candidate utilities
    "utilities": ("utilities", "sensitivity", "description"),
    # per-class sums computed chunk by chunk where the rows live (Dask workers)
    "chunked_class_sums": ("rows", "class_sums_chunked"),
    # one record's loss gradient on any record of the public domain, and the template's own
    # records: what the verifier checks a user template's declared constants against
    # (docs/privacy/user_objectives.md#privacy-user-objectives)
    "per_record": ("record_domain", "record_gradients", "X", "y"),
    # the sufficient statistics of a ridge regression, A = sum x x^T and b = sum u x, with the public bounds
    # ||x|| <= data_norm, |u| <= 1, a ridge given or None, and the coordinate the ridge leaves free (the
    # intercept column, or None) with its public value in every row (or None) (sufficient-statistics
    # perturbation, docs/privacy/sufficient_statistics.md#privacy-sufficient-statistics)
    "sufficient_statistics": ("gram", "cross", "data_norm", "ridge", "free", "free_value", "p"),
    # the sum of n values with a public bound |u_i| <= bound (the Laplace mechanism on a
    # mean, docs/privacy/front_door_regression.md#privacy-private-mean)
    "bounded_sum": ("total", "bound"),
    # the counts of n values on the public grid of signed octaves (dpconvex.data.log_grid),
    # the quantile levels of a range and whether to refine it (docs/privacy/bounds.md#privacy-bounds-range)
    "grid_counts": ("cell_counts", "levels", "refine", "values_name"),
    # the counts of the categories seen in a column (docs/privacy/bounds.md#privacy-bounds-vocabulary)
    "category_counts": ("category_counts", "values_name"),
}


def missing_members(candidate: object) -> list[str]:
    """Members a candidate template lacks: of the core, of its capabilities, and of its space.

    Examples
    --------
    >>> from dpconvex.templates.base import missing_members
    >>> # template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y): conftest.py
    >>> missing_members(template)
    []
    >>> class Incomplete:
    ...     name = "incomplete"
    ...
    >>> missing_members(Incomplete())[:2]
    ['kind', 'n']
    """
    caps = getattr(candidate, "capabilities", frozenset())
    want = list(TEMPLATE_MEMBERS)
    for cap in sorted(caps):
        want += [
            m
            for m in CAPABILITY_MEMBERS.get(cap, (f"<unknown capability {cap!r}>",))
            if m not in want
        ]
    missing = [m for m in want if not _has_member(candidate, m)]
    space = getattr(candidate, "space", None)
    if space is not None:
        space_want = list(PARAM_SPACE_MEMBERS)
        if caps & {"smooth", "projection", "cvxpy"}:
            space_want += _stated(SolverSpace)
        missing += [f"space.{m}" for m in space_want if not _has_member(space, m)]
    return missing


def _has_member(obj: object, name: str) -> bool:
    """Whether ``obj`` has ``name``, without running a property (``X`` may build the rows)."""
    if inspect.getattr_static(obj, name, _ABSENT) is not _ABSENT:
        return True
    return hasattr(type(obj), "__getattr__") and hasattr(obj, name)


_ABSENT = object()


def needs_of(needs: Iterable[str]) -> frozenset[str]:
    """A mechanism's needs (what its proof uses, e.g. ``{"strong_convexity", "curvature"}``).

    ``template.conditions`` and ``template.assumptions`` take a mechanism's needs, never its
    name, so that no template compares mechanism names.

    Examples
    --------
    >>> from dpconvex.templates.base import needs_of
    >>> sorted(needs_of(["strong_convexity", "curvature"]))
    ['curvature', 'strong_convexity']
    """
    if isinstance(needs, str):
        raise ParameterError(
            f"needs_of: template conditions take a mechanism's needs (mechanism.needs), not a "
            f"name; got {needs!r}. Pass mechanism.needs.")
    return frozenset(needs)
