"""The template contract, and the solver backends that read it.

A template is a problem statement (data through a design operator, public constants, the
objective, its parameter space); it never chooses a solver nor calibrates noise. The
contract: :class:`Template`'s members (:data:`TEMPLATE_MEMBERS`) and, per name in
``template.capabilities``, the members of :data:`CAPABILITY_MEMBERS` (read off the Protocol
classes), both checked by :func:`missing_members` (docs/architecture.md#architecture;
``tests/solvers/test_backends.py`` checks every registered template against it).

A solver backend (:class:`Backend`) declares the capabilities it requires and returns a
:class:`SolveResult` with a :class:`SolveStatus`; the one registry matches the two.
``solver=`` names: :func:`backend_names` (``"auto"`` and every registered name). A name may
stand for several classes (the native solvers): the registry picks the one whose required
capabilities the template has, so no code outside this module chooses a solver by the
template's type. :func:`get_backend` with ``"auto"`` reads the template's capabilities only
(never the data): a native backend when one fits (L-BFGS + Newton for ``"smooth"``,
accelerated projected gradient for ``"projection"``), else the first CVXPY backend that fits
(Clarabel, then SCS), else :class:`ParameterError`. Native comes first because Clarabel
misses the release tolerance on the PSD cone and is much slower where it meets it
(docs/privacy/large_margin.md#privacy-lm-solver-accuracy); a CVXPY backend or a
:class:`PolishedBackend` stays available by name or object. Backends that need the rows in
memory (``Backend.in_memory``) are never chosen for out-of-core rows (Dask); a request by
name raises :class:`ParameterError`. The shipped backends live in :mod:`dpconvex.solvers`.
"""

from __future__ import annotations

import abc
import enum
import inspect
import math
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar, runtime_checkable

import numpy as np
from threadpoolctl import ThreadpoolController

from .._validation import _short_repr
from ..errors import ParameterError
from ..objectives.sets import ConvexSet

if TYPE_CHECKING:
    from ..objectives.losses import Regularizer
    from ..privacy.budget import Condition

__all__ = ["CAPABILITY_MEMBERS", "PARAM_SPACE_MEMBERS", "TEMPLATE_MEMBERS", "Backend",
           "CVXPYTemplate", "ConstrainedSpace", "EuclideanSpace", "ObjectiveTemplate",
           "ParamSpace", "PolishedBackend", "PrivacyConstants", "ProjectionTemplate",
           "RecordDomain", "SmoothTemplate", "SolveResult", "SolveStatus", "SolverSpace",
           "StatisticTemplate", "Template", "backend_names", "check_solver_name", "get_backend",
           "missing_members", "natural_residual", "needs_of", "other_backends", "retry_advice",
           "sample_step", "solve", "suitable_backends"]


@dataclass(frozen=True)
class PrivacyConstants:
    """Public constants a template declares for its privacy proof.

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

    Examples
    --------
    >>> PrivacyConstants(grad_bound=1.0, hessian_rank=1, hessian_term_bound=0.25,
    ...                  strong_convexity=0.1, dimension=3).hessian_trace_bound is None
    True
    """

    grad_bound: float
    hessian_rank: int
    hessian_term_bound: float
    strong_convexity: float
    dimension: int
    hessian_trace_bound: float | None = None


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
                "RecordDomain.__init__: give exactly one of labels (a finite set) and label_range (lo, "
                "hi): the verifier probes every label a record can carry.")
        if not (float(self.data_norm) > 0 and np.isfinite(float(self.data_norm))):
            raise ParameterError(f"The 'data_norm' parameter of RecordDomain must be a finite "
                                 f"float > 0. Got {self.data_norm!r} instead.")

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
        """Establish the conditions of the proof for a mechanism's needs (raise on failure)."""

    def assumptions(self, needs: Iterable[str]) -> list[str]:
        """What the guarantee assumes, for the certificate."""


class StatisticTemplate:
    """The shared part of the templates whose mechanism releases a noisy statistic.

    Nothing is solved (``residual_tol`` is inf), the proof has no condition beyond the
    bounds of the caller's per-record maps, and the noise has the space's shape.

    Examples
    --------
    >>> from dpconvex.templates.base import StatisticTemplate
    >>> from dpconvex.privacy.mechanisms.scalar import BoundedMeanTemplate
    >>> template = BoundedMeanTemplate(3.0, n=10)
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

    def hessp(self, theta: np.ndarray, extra_reg: float = 0.0) -> Callable[[np.ndarray], np.ndarray]:
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
        want += [m for m in CAPABILITY_MEMBERS.get(cap, (f"<unknown capability {cap!r}>",)) if m not in want]
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


# -------------------------------------------------------------------------- backends
#: The registry: every backend class, in order of preference within a name (the native
#: solvers first). :mod:`dpconvex.solvers` registers the shipped ones (``register_backend``).
_CLASSES: list[type[Backend]] = []
#: ``solver=`` name -> backend class (for "native", the first native class; :func:`get_backend`
#: picks among the classes sharing a name by capability).
BACKENDS: dict[str, type[Backend]] = {}


class SolveStatus(enum.Enum):
    """One status set for every backend (as cvxpy's STATUS_MAP per solver).

    Examples
    --------
    >>> from dpconvex.solvers import CVXPY_STATUS_MAP, SolveStatus
    >>> SolveStatus.OPTIMAL.value
    'optimal'
    >>> CVXPY_STATUS_MAP["optimal_inaccurate"]
    <SolveStatus.INACCURATE: 'inaccurate'>
    """

    OPTIMAL = "optimal"
    INACCURATE = "inaccurate"
    MAX_ITERATIONS = "max_iterations"
    FAILED = "failed"
    UNBOUNDED = "unbounded"
    INFEASIBLE = "infeasible"


#: Map of CVXPY problem statuses onto :class:`SolveStatus`.
CVXPY_STATUS_MAP: dict[str, SolveStatus] = {
    "optimal": SolveStatus.OPTIMAL,
    "optimal_inaccurate": SolveStatus.INACCURATE,
    "infeasible": SolveStatus.INFEASIBLE,
    "infeasible_inaccurate": SolveStatus.INFEASIBLE,
    "unbounded": SolveStatus.UNBOUNDED,
    "unbounded_inaccurate": SolveStatus.UNBOUNDED,
    "user_limit": SolveStatus.MAX_ITERATIONS,
    "solver_error": SolveStatus.FAILED,
}


@dataclass
class SolveResult:
    """Outcome of one solve.

    Attributes
    ----------
    x : numpy.ndarray or None
        The solution (parameters), None when the solver produced none.
    status : SolveStatus
    objective : float
        Objective value at ``x`` computed by dpconvex's NumPy code.
    residual : float
        Optimality residual computed by dpconvex (gradient norm, or
        gradient-mapping norm for constrained problems).
    solver : str
    iterations : int
    seconds : float
    info : dict
        Backend-specific details (raw status, ...).

    Examples
    --------
    >>> # template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y): conftest.py
    >>> from dpconvex.solvers import SolveResult, SolveStatus, solve
    >>> res = solve(template)
    >>> isinstance(res, SolveResult), res.status is SolveStatus.OPTIMAL, res.x.shape
    (True, True, (3,))
    >>> sorted(res.summary())
    ['iterations', 'objective', 'residual', 'seconds', 'solver', 'status']
    """

    x: np.ndarray | None
    status: SolveStatus
    objective: float
    residual: float
    solver: str
    iterations: int = 0
    seconds: float = 0.0
    info: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        return {
            "solver": self.solver,
            "status": self.status.value,
            "residual": float(self.residual),
            "objective": float(self.objective),
            "iterations": int(self.iterations),
            "seconds": round(float(self.seconds), 4),
        }


#: The template a backend solves: an :class:`~dpconvex.templates.base.ObjectiveTemplate`
#: with the capabilities in the backend's ``requires`` (e.g. a ``CVXPYTemplate``).
TemplateT = TypeVar("TemplateT", bound="ObjectiveTemplate")


class Backend(abc.ABC, Generic[TemplateT]):
    """A solver backend: what it needs from a template, and how it solves.

    Attributes
    ----------
    name : str
        The ``solver=`` name (several classes may share one, e.g. the native
        solvers: the registry picks the one whose requirements the template meets).
    requires : frozenset of str
        Template capabilities the backend needs (keys of
        :data:`dpconvex.templates.base.CAPABILITY_MEMBERS`).
    in_memory : bool
        Whether it needs the rows in one process's memory (CVXPY canonicalizes the
        whole design matrix). Such a backend refuses a template whose rows are
        out of core (its ``rows`` operator has ``in_memory`` False: a Dask array).

    Examples
    --------
    >>> # template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y): conftest.py
    >>> from dpconvex.solvers import Backend, get_backend
    >>> backend = get_backend("native", template)
    >>> isinstance(backend, Backend), backend.supports(template), backend.label
    (True, True, 'native')
    >>> backend.solve(template, None).status.name
    'OPTIMAL'
    """

    name: ClassVar[str] = ""
    requires: ClassVar[frozenset[str]] = frozenset()
    in_memory: ClassVar[bool] = True
    #: What a certificate states about this backend: the solver(s) that may produce its point
    #: (its :attr:`name` unless the class sets it). A public fact: it depends on the backend,
    #: which the caller or the ``"auto"`` policy chose from public parameters, never on the
    #: solve (a backend that runs a second solver only when the first one's residual misses
    #: the tolerance names both and not which of them ran: docs/privacy/release.md#privacy-release).
    label: str = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "label" not in cls.__dict__:
            cls.label = cls.name

    @abc.abstractmethod
    def solve(self, template: TemplateT, b: np.ndarray | None, extra_reg: float = 0.0, *,
              warm_start: np.ndarray | None = None, max_iter: int | None = None) -> SolveResult:
        """Minimize the template's objective with noise ``b`` and extra strong convexity Δ.

        Parameters
        ----------
        template : Template
            With every capability in ``requires`` (:meth:`admit` checks it first).
        b : ndarray or None
            Noise of shape ``template.space.shape`` (projected onto the noise
            subspace by :meth:`admit`); None means zero.
        extra_reg : float
            Δ >= 0 (objective perturbation's extra regularization).
        warm_start : ndarray or None
            Starting point (backends that cannot warm-start ignore it).
        max_iter : int or None
            Cap on the iterations (None: the backend's default); a capped solve
            is still checked by its residual before anything is released.

        Returns
        -------
        SolveResult
        """

    def admit(self, template: TemplateT, b: np.ndarray | None,
              extra_reg: float) -> tuple[np.ndarray | None, float]:
        """What :meth:`solve` starts with: the template checked (:meth:`check` where it is not
        :meth:`supports`), ``b`` in the noise subspace and Δ a float."""
        if not self.supports(template):
            self.check(template)  # raises, naming what is missing and a backend that fits
        return (None if b is None else template.space.project_noise(b)), float(extra_reg)

    def supports(self, template: Template) -> bool:
        """Whether the template has every capability this backend requires (and its rows
        are in memory, if the backend needs them there)."""
        return (self.requires <= frozenset(getattr(template, "capabilities", ()))
                and not (self.in_memory and not rows_in_memory(template)))

    def check(self, template: Template) -> None:
        """Raise :class:`ParameterError` naming what is missing and a backend that fits."""
        if self.in_memory and not rows_in_memory(template):
            rows = getattr(template, "rows", None)
            fits = other_backends(template, self.name)  # backends that read the rows in place
            use = ("Use " + " or ".join(f"solver={name!r}" for name in fits) + " or solver=None "
                   "(they read the rows through products summed on the workers), or" if fits
                   else "No registered backend reads these rows in place:")
            raise ParameterError(
                f"{type(self).__name__}.check: solver {self.name!r} needs the rows in one process's "
                "memory (it builds the whole design matrix into its problem), but the template "
                f"'{getattr(template, 'name', template)}' reads them from {rows!r}, which stays on the "
                f"Dask workers. {use} pass X.compute() if the rows fit in memory."
            )
        have = frozenset(getattr(template, "capabilities", ()))
        missing = self.requires - have
        if not missing:
            return
        fits = other_backends(template, ())
        hint = (f"Use solver={fits[0]!r}" + (f" (or one of {fits[1:]!r})" if fits[1:] else "")
                + "." if fits else "No registered backend can solve it.")
        raise ParameterError(
            f"{type(self).__name__}.check: solver {self.name!r} cannot solve the template "
            f"'{getattr(template, 'name', template)}': missing "
            f"capabilit{'y' if len(missing) == 1 else 'ies'} {sorted(missing)!r} (it has "
            f"{sorted(have)!r}). {hint}"
        )

    @property
    def solvers(self) -> tuple[str, ...]:
        """The registered names of the solvers a solve runs (a polished backend: two)."""
        return (self.name,)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def other_backends(template: Template, failed: Iterable[str] | str) -> list[str]:
    """The registered backends that can solve ``template``, except those that ran and ``failed``.

    Parameters
    ----------
    template : Template
    failed : str or iterable of str
        The solvers that ran: registered names, or a solve's ``SolveResult.solver``
        (``"clarabel+native"``: both).

    Examples
    --------
    >>> # template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y): conftest.py
    >>> from dpconvex.templates.base import other_backends
    >>> other_backends(template, "native"), other_backends(template, "clarabel+native")
    (['clarabel', 'scs'], ['scs'])
    """
    ran = set(failed.split("+") if isinstance(failed, str) else failed)
    fits = suitable_backends(template)
    return [name for name in dict.fromkeys(fits) if name not in ran]


def retry_advice(template: Template, failed: Iterable[str] | str) -> str:
    """What to do when the solvers in ``failed`` did not solve ``template`` to its tolerance.

    Names the other registered backends that can solve the template
    (:func:`other_backends`), never one that failed; when there is none, says so and
    names what is left (more iterations, a larger lam). It reads the template's
    capabilities only, never a residual or any other statistic of the data.

    Examples
    --------
    >>> # template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y): conftest.py
    >>> from dpconvex.templates.base import retry_advice
    >>> print(retry_advice(template, "clarabel"))
    Try solver='native' or solver='scs' (the other registered backends that can solve this
    template), or raise max_iter if you capped the iterations
    >>> print(retry_advice(template, ["native", "clarabel", "scs"]))
    No other registered backend can solve this template: raise max_iter if you capped the
    iterations, or use a larger lam (a better-conditioned objective)
    """
    others = other_backends(template, failed)
    if others:
        return ("Try " + " or ".join(f"solver={name!r}" for name in others)
                + " (the other registered backends that can solve this template), or raise "
                "max_iter if you capped the iterations")
    return ("No other registered backend can solve this template: raise max_iter if you capped "
            "the iterations, or use a larger lam (a better-conditioned objective)")


def rows_in_memory(template: Template) -> bool:
    """False when the template's rows are out of core (a design operator with ``in_memory`` False).

    Reads the optional member ``rows`` (the templates over a design operator have it;
    a template without it is taken to hold its data in memory).
    """
    return bool(getattr(getattr(template, "rows", None), "in_memory", True))


#: One cached :class:`threadpoolctl.ThreadpoolController`: ``threadpool_limits`` scans every
#: loaded shared library on each call (measured 2.9 ms per call with scikit-learn, SciPy and
#: CVXPY loaded); the controller scans once and its ``limit`` costs about 0.02 ms.
_controller: ThreadpoolController | None = None


def single_threaded(user_api: str | None = None) -> AbstractContextManager:
    """Context manager limiting the BLAS / OpenMP pools (or only ``user_api``) to one thread."""
    global _controller
    if _controller is None:  # lazily: the BLAS libraries are loaded by then
        _controller = ThreadpoolController()
    return _controller.limit(limits=1, user_api=user_api)


def register_backend(backend_class: type[Backend]) -> type[Backend]:
    """Add ``backend_class`` to the registry, after the classes registered before it."""
    _CLASSES.append(backend_class)
    BACKENDS.setdefault(backend_class.name, backend_class)
    return backend_class


class PolishedBackend(Backend["ObjectiveTemplate"]):
    """A backend whose solution, if it misses the template's tolerance, is polished by another.

    The polish starts from the first solution with the same noise; the result is named
    ``"<first>+<polish>"`` (a diagnostic: whether the polish ran depends on the data) and
    records the first solve (``info["polished_from"]``); a certificate states :attr:`label`,
    which names both. ``"auto"`` never builds one; pass one as the ``backend`` of
    :func:`dpconvex.release` to start from a CVXPY solve.

    Examples
    --------
    >>> # template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y): conftest.py
    >>> from dpconvex.solvers import ClarabelBackend, LbfgsNewton, PolishedBackend
    >>> backend = PolishedBackend(ClarabelBackend(), LbfgsNewton())
    >>> print(backend.label)
    clarabel (polished by native if clarabel's residual missed the tolerance;
    whether it was depends on the data and is not stated)
    >>> res = backend.solve(template, None)
    >>> res.status.name, res.residual <= template.residual_tol
    ('OPTIMAL', True)
    """

    name = "auto"

    def __init__(self, first: Backend, polish: Backend):
        self.first = first
        self.polish = polish
        #: Both solvers, and not which of them produced the point (that depends on the data).
        self.label = (f"{first.label} (polished by {polish.label} if {first.label}'s residual "
                      "missed the tolerance; whether it was depends on the data and is not stated)")

    def supports(self, template: Template) -> bool:
        return self.first.supports(template) and self.polish.supports(template)

    def check(self, template: Template) -> None:
        self.first.check(template)
        self.polish.check(template)

    @property
    def solvers(self) -> tuple[str, ...]:
        """Both solvers' names (a failed polished solve ran both)."""
        return (*self.first.solvers, *self.polish.solvers)

    def solve(self, template: ObjectiveTemplate, b: np.ndarray | None, extra_reg: float = 0.0,
              *, warm_start: np.ndarray | None = None, max_iter: int | None = None) -> SolveResult:
        if not self.supports(template):  # both, before the first solve
            self.check(template)
        first = self.first.solve(template, b, extra_reg, warm_start=warm_start, max_iter=max_iter)
        if first.x is not None and first.residual <= template.residual_tol:
            return first
        polished = self.polish.solve(template, b, extra_reg, warm_start=first.x, max_iter=max_iter)
        polished.info["polished_from"] = first.summary()
        polished.solver = f"{first.solver}+{polished.solver}"
        polished.seconds += first.seconds
        return polished

    def __repr__(self) -> str:
        return f"PolishedBackend({self.first!r}, {self.polish!r})"


def backend_names() -> tuple[str, ...]:
    """The accepted ``solver=`` names: "auto" and every registered backend name.

    Examples
    --------
    >>> from dpconvex.solvers import backend_names
    >>> names = backend_names()
    >>> names[0], "clarabel" in names
    ('auto', True)
    """
    return ("auto", *BACKENDS)


def check_solver_name(solver: Any, owner: str) -> str | None:
    """Return ``solver`` if it is None, "auto" or a registered name; else raise ParameterError.

    Examples
    --------
    >>> from dpconvex import ParameterError
    >>> from dpconvex.solvers import check_solver_name
    >>> check_solver_name("auto", "demo"), check_solver_name(None, "demo")
    ('auto', None)
    >>> try:
    ...     check_solver_name("gurobi", "demo")
    ... except ParameterError:
    ...     print("unknown solver")
    ...
    unknown solver
    """
    if solver is not None and (not isinstance(solver, str) or solver not in backend_names()):
        raise ParameterError(
            f"The 'solver' parameter of {owner} must be one of {[None, *backend_names()]!r}. "
            f"Got {solver!r} instead."
        )
    return solver


def suitable_backends(template: Template) -> list[str]:
    """Names of the registered backends whose requirements the template meets.

    Examples
    --------
    >>> # template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y): conftest.py
    >>> from dpconvex.solvers import suitable_backends
    >>> suitable_backends(template)
    ['native', 'clarabel', 'scs']
    """
    names: list[str] = []
    for backend_class in _CLASSES:
        if backend_class.name not in names and backend_class().supports(template):
            names.append(backend_class.name)
    return names


def get_backend(name: str | None, template: Template) -> Backend:
    """The backend for ``solver=name`` on ``template``; None or "auto": the policy of the module
    docstring (the native solver where one fits, else CVXPY).

    Raises
    ------
    ParameterError
        Unknown name, or a backend whose required capabilities the template
        lacks (the message names them and a backend that fits).

    Examples
    --------
    >>> from dpconvex.data.preprocess import augment_and_scale
    >>> from dpconvex.templates import LargeMarginGaussianTemplate, LinearERMTemplate
    >>> # template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y): conftest.py
    >>> from dpconvex.solvers import get_backend
    >>> type(get_backend("auto", template)).__name__   # smooth and unconstrained: L-BFGS + Newton
    'LbfgsNewton'
    >>> type(get_backend("clarabel", template)).__name__
    'ClarabelBackend'
    >>> psd = LargeMarginGaussianTemplate(augment_and_scale(X / 2, 1.0), np.arange(40) % 2,
    ...                                   n_classes=2, lam=0.1)
    >>> sorted(psd.capabilities), type(get_backend(None, psd)).__name__   # over the PSD cone
    (['cvxpy', 'objective', 'projection'], 'ProjectedGradient')
    """
    auto = name is None or name == "auto"
    if not auto:
        check_solver_name(name, "get_backend")
    for backend_class in _CLASSES:  # "auto": every class, the native ones first
        if (auto or backend_class.name == name) and (backend := backend_class()).supports(template):
            return backend
    have = sorted(getattr(template, "capabilities", ()))
    if auto:
        requirements = sorted({tuple(sorted(backend_class.requires)) for backend_class in _CLASSES})
        raise ParameterError(
            f"get_backend: no registered solver backend can solve the template "
            f"'{getattr(template, 'name', template)}' (capabilities {have!r}); the "
            f"backends need one of {requirements!r}.")
    candidates = [backend_class() for backend_class in _CLASSES if backend_class.name == name]
    if len(candidates) > 1:
        needs = " or ".join(repr(sorted(candidate.requires)) for candidate in candidates)
        fits = suitable_backends(template)
        raise ParameterError(
            f"get_backend: solver {name!r} cannot solve the template '{getattr(template, 'name', template)}'"
            f": it needs the capabilities {needs}; the template has {have!r}. "
            + (f"Use solver={fits[0]!r}." if fits else "No registered backend can solve it."))
    candidates[0].check(template)  # raises, naming what is missing
    return candidates[0]  # pragma: no cover


def solve(template: ObjectiveTemplate, b: np.ndarray | None = None, extra_reg: float = 0.0, *,
          solver: str | None = "auto", warm_start: np.ndarray | None = None,
          max_iter: int | None = None) -> SolveResult:
    """Minimize ``template``'s objective with noise ``b`` and extra strong convexity Δ.

    ``get_backend(solver, template).solve(template, b, extra_reg, ...)``; see
    :meth:`dpconvex.templates.base.Backend.solve`.

    Examples
    --------
    >>> # template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y): conftest.py
    >>> from dpconvex.solvers import solve
    >>> res = solve(template)
    >>> res.status.name, res.residual <= template.residual_tol
    ('OPTIMAL', True)
    >>> noisy = solve(template, b=np.ones(3), extra_reg=0.05, solver="clarabel")
    >>> noisy.status.name
    'OPTIMAL'
    """
    return get_backend(solver, template).solve(template, b, extra_reg, warm_start=warm_start,
                                               max_iter=max_iter)
