"""Regularized linear ERM as a declarative template ([CMS]_ eq. 1, Alg. 1-2).

    J(w) = (1/n) Σ_i ℓ(y_i wᵀx_i) + ((Λ + Δ)/2) ||w||^2 + (1/n) bᵀw

with labels y_i in {-1, +1}, rows clipped to ||x_i|| <= q (public), the noise ``b`` and
``Λ + Δ`` held as :class:`cvxpy.Parameter` (a new draw re-solves without rebuilding), an
intercept as a constant feature appended before the template
(docs/privacy/linear_erm.md#privacy-intercept), the rows read through a design operator
(:mod:`dpconvex.data.operators`; sparse rows never densified) and Λ from ``L2(lam)``.

References
----------
.. [CMS] Chaudhuri, Monteleoni, Sarwate. Differentially Private Empirical Risk
   Minimization. JMLR 12 (2011).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable
from typing import Any

import cvxpy as cp
import numpy as np

from .._validation import describe_value, is_dask_collection
from ..data.operators import CSRRows, DenseRows, DesignOperator, ScaledRows
from ..data.validation import as_design, check_array
from ..errors import DataValidationError, ParameterError, PrivacyError
from ..objectives.losses import L2, Loss
from ..objectives.sets import ConvexSet
from ..privacy.certificate import Condition, Line, LossSmoothing, ParameterSet
from ..privacy.checks import (
    beyond_float_range,
    check_dcp_convex,
    check_loss,
    exact_number,
    shipped_loss_conditions,
    solved_loss,
    user_code,
)
from .base import (
    ConstrainedSpace,
    EuclideanSpace,
    PrivacyConstants,
    RecordDomain,
    natural_residual,
    needs_of,
    sample_step,
)

__all__ = ["MARGIN_LABELS", "RESIDUAL_TOL", "LinearERMTemplate"]

#: Largest gradient norm of the perturbed objective at which a solve is
#: accepted as the exact minimizer (docs/privacy/accuracy_randomness.md#privacy-accuracy-randomness).
RESIDUAL_TOL = 1e-6

#: The labels of a margin loss ℓ(y·wᵀx): the proof's |ℓ'(y·wᵀx) y x| <= |ℓ'|·q needs |y| = 1.
MARGIN_LABELS = (-1.0, 1.0)


def _check_numbers(y: Any, n: int, caller: str) -> None:
    """y as one finite number per row, or a :class:`~dpconvex.DataValidationError` saying so."""
    labels = np.asarray(y)
    if labels.dtype.kind == "O":  # numbers held as objects (Decimal, a column of object dtype)
        try:
            labels = labels.astype(float)
        except (TypeError, ValueError):
            pass
    if labels.ndim != 1 or labels.shape[0] != n or labels.dtype.kind not in "biuf":
        raise DataValidationError(
            f"{caller}: y must be a 1-D array of numbers, one per row of X "
            f"({n} rows); got {labels.dtype.kind!r} values of shape {labels.shape}."
        )
    if not np.all(np.isfinite(labels)):
        raise DataValidationError(f"{caller}: y has labels that are not finite (NaN or inf); "
                                  "remove or impute them first.")


#: What the solvers may ask of a template over ℝ^p: the smooth calls.
_SMOOTH = frozenset({"objective", "smooth", "hessian", "hessp", "per_record"})


def _every_kth(ops: DesignOperator | None) -> bool:
    """Whether the rows ``ops`` give every k-th row (None: those a fit of the public problem
    holds do)."""
    return ops is None or hasattr(getattr(ops, "base", ops), "every") and hasattr(ops, "every")


def _check_loss(loss: Any, caller: str) -> None:
    """Refuse, by name, a ``loss`` that is not a :class:`~dpconvex.objectives.losses.Loss`
    (a loss's name is the estimators' ``loss=``; a template takes the instance)."""
    if not isinstance(loss, Loss):
        raise ParameterError(
            f"The 'loss' argument of {caller} must be a Loss, e.g. "
            "dpconvex.objectives.Logistic() or dpconvex.objectives.get_loss('logistic'). Got "
            f"{type(loss).__name__} instead.")


def _reads_prediction(loss: Loss) -> bool:
    """Whether ``loss`` is a loss of the prediction ℓ(wᵀx, y), not of the margin y·wᵀx."""
    return getattr(loss, "kind", "margin") == "regression"


def _read_number(value: Any, what: str) -> Any:
    """``value`` as a built-in float (:func:`~dpconvex.privacy.checks.exact_number`); a real
    number of a type of its own (a subclass of float) or beyond float64's range refused by
    name, anything else as it is (the checks name it)."""
    number = exact_number(value)
    if beyond_float_range(value):
        raise ParameterError(
            f"LinearERMTemplate.constants_for: {what} (a {type(value).__qualname__}) is beyond "
            "float64's range (about 1.8e308), which no float holds; declare a built-in float.")
    if type(number) is not float and isinstance(number, numbers.Real) and not isinstance(
            number, (bool, np.bool_)):
        raise ParameterError(
            f"LinearERMTemplate.constants_for: {what} is a {type(value).__qualname__}, a number "
            "of a type of its own, whose arithmetic would run in the noise's calibration; "
            "declare a built-in float.")
    return number


class LinearERMTemplate:
    """Linear ERM template: loss + L2 regularizer + linear noise term, over ℝ^p or a set.

    J(θ) = (1/n) Σ ℓ(yᵢ θᵀxᵢ) + (Λ/2)‖θ‖² + (1/n) bᵀθ for a margin loss, or
    (1/n) Σ ℓ(θᵀxᵢ, yᵢ) + ... for a loss of the prediction (``loss.kind == "regression"``;
    Kifer, Smith & Thakurta, COLT 2012, Section 3), minimized over ``constraint_set`` when one is
    given (KST Section 4; docs/privacy/user_objectives.md#privacy-prediction-losses, privacy-constraints).

    Parameters
    ----------
    loss : Loss
        A margin loss, or a loss of the prediction, with its constants.
    lam : float
        Λ >= 0: the regularizer ``L2(lam)``, (Λ/2)||w||^2, Λ-strongly convex.
    data_norm : float
        Public bound q on ||x_i|| of the rows given (after any intercept column).
    X : ndarray (n, p), scipy.sparse matrix, or DesignOperator
        Rows with ||x_i|| <= data_norm (the caller clips). Sparse rows are never densified.
        Dense float64 rows are read where they are at each release; dense rows of mostly
        zeros (at most 25 % non-zero, 50,000 entries or more) are stored once as CSR when the
        template is built, so a change to them in place needs a new template.
    y : ndarray (n,)
        Labels in {-1, +1} for a margin loss, in ``loss.label_range`` for a loss of the
        prediction (anything else is refused: :class:`~dpconvex.DataValidationError`).
    constraint_set : ConvexSet or None
        A public closed convex set the parameter is restricted to.

    Attributes
    ----------
    rows : DesignOperator
        The rows as given (by an estimator, :meth:`over_design`: the rows the loss reads).
    sparse : bool
        Whether the products run on a CSR matrix.

    Examples
    --------
    >>> # template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y): conftest.py
    >>> template.name, template.space.shape
    ('linear ERM', (3,))
    >>> consts = template.privacy_constants()
    >>> consts.grad_bound, consts.hessian_term_bound, consts.strong_convexity
    (1.0, 0.25, 0.1)
    >>> [c.name for c in template.conditions({"strong_convexity"})][2:]
    ["|ℓ'| bound", "ℓ'' bound (c)", 'labels in {-1, +1}', 'row norm bound']
    """

    name = "linear ERM"
    kind = "linear_erm"
    #: Where the constants of this class are derived (a subclass is checked as a user's
    #: template, docs/privacy/user_objectives.md#privacy-user-objectives).
    derivation = "docs/privacy/linear_erm.md#privacy-linear-erm, privacy-perturbation"
    noise_symmetric = False
    residual_tol = RESIDUAL_TOL
    #: What it keeps between a solver's calls or builds at first use (None: computed again).
    _caches = ("_last_margins", "_last_objective", "_last_sample", "_cvx")
    _last_margins: tuple[np.ndarray, np.ndarray] | None = None
    _last_objective: tuple[Any, ...] | None = None
    _last_sample: tuple[np.ndarray, np.ndarray, int] | None = None
    _cvx: dict[str, Any] | None = None
    #: k: one replaced record's gradient difference ℓ′ y x − ℓ′ y′ x′ lies in span{x, x′}
    #: for every θ (Gaussian objective perturbation,
    #: docs/privacy/gaussian_linear.md#privacy-gaussian-objective).
    gradient_difference_rank = 2
    cvxpy_options: dict[str, Any] = {}  # noqa: RUF012

    def __init__(self, loss: Loss, lam: float, data_norm: float, X: Any, y: np.ndarray,
                 constraint_set: ConvexSet | None = None):
        caller = f"{type(self).__name__}.__init__"
        _check_loss(loss, caller)
        if getattr(loss, "awaits_label_range", False):
            raise ParameterError(
                f"{caller}: loss '{loss.name}' was stated without label_range, so its bounds "
                "are not derived. Give Loss.from_cvxpy(..., label_range=(lo, hi)), the public "
                "range of the labels, or pass the loss to a regressor, which states it on its "
                "own label_range."
            )
        if not hasattr(X, "matvec") and not is_dask_collection(X):  # a caller's rows
            X = check_array(X, caller, accept_sparse=True)
            _check_numbers(y, X.shape[0], caller)
        rows, labels = as_design(X), np.asarray(y, dtype=float)
        solved = solved_loss(loss)  # what the template holds, and every step below reads
        self._check_labels(solved, labels, caller)
        # Products with A = diag(y) X (and Aᵀ) for a margin loss: the label signs as row factors
        # inside the products, so rows in memory are read as they are at each release (no
        # signed copy); rows of mostly zeros are stored once as CSR (ScaledRows.compact), and
        # rows held by Dask scale lazily
        ops = rows.compact()
        if not _reads_prediction(solved):
            in_memory = isinstance(ops, (DenseRows, CSRRows))
            ops = ScaledRows(ops, labels) if in_memory else ops.scale_rows(labels)
        self._build(solved, lam, data_norm, constraint_set, (rows.n, rows.p), rows, labels, ops)

    @classmethod
    def over_design(cls, loss: Loss, lam: float, data_norm: float, rows: DesignOperator,
                    y: np.ndarray, constraint_set: ConvexSet | None = None) -> LinearERMTemplate:
        """The template over ``rows``, the operator of the rows the loss reads as an estimator
        built it (:func:`~dpconvex.estimators.linear.design_rows`): for a margin loss already
        signed by the labels, y_i x_i; for a loss of the prediction, x_i.

        The estimator's plan stated the loss and its checks took the rows and labels, so nothing
        is checked again here: the labels ``y`` are checked in :meth:`conditions` (at every
        release, before any noise), the row norm bound too.

        Parameters
        ----------
        loss : Loss
            A margin loss, or a loss of the prediction, with its constants.
        lam : float
            Λ >= 0.
        data_norm : float
            Public bound q on ||x_i||.
        rows : DesignOperator
            The rows the loss reads (y_i x_i for a margin loss, x_i for a loss of the
            prediction).
        y : ndarray of shape (n,)
            The labels.
        constraint_set : ConvexSet or None, default=None
            A public closed convex set the parameter is restricted to.

        Returns
        -------
        LinearERMTemplate

        Examples
        --------
        >>> from dpconvex.data.operators import DenseRows, ScaledRows
        >>> signs = np.where(X[:, 0] > 0, 1.0, -1.0)
        >>> rows = ScaledRows(DenseRows(X), signs)
        >>> t = LinearERMTemplate.over_design(Logistic(), 0.1, 1.0, rows, signs)
        >>> t._ops is rows, t.n == X.shape[0]
        (True, True)
        """
        template = cls.__new__(cls)
        template._build(solved_loss(loss), lam, data_norm, constraint_set, (rows.n, rows.p), rows,
                        np.asarray(y, dtype=float), rows.compact())
        return template

    @classmethod
    def of_problem(cls, loss: Loss, lam: float, data_norm: float, n: int, p: int,
                   constraint_set: ConvexSet | None = None) -> LinearERMTemplate:
        """The template of the public problem alone: n records of p entries, no rows read.

        Its constants, conditions, assumptions and capabilities are those of the template a fit
        on n rows in memory builds (:meth:`over_design`): the labels and the row norm bound are
        stated as that fit checks them on its rows. It holds no rows and solves nothing (a dry
        run: an estimator's ``certify(n=...)``, the noise checks of a plan).

        Parameters
        ----------
        loss : Loss
            A margin loss, or a loss of the prediction, with its constants.
        lam : float
            Λ >= 0.
        data_norm : float
            Public bound q on ||x_i||.
        n, p : int
            The public shape: records and entries of a row.
        constraint_set : ConvexSet or None, default=None
            A public closed convex set the parameter is restricted to.

        Returns
        -------
        LinearERMTemplate
            A template that holds no rows.

        Examples
        --------
        >>> from dpconvex.objectives.losses import Logistic
        >>> t = LinearERMTemplate.of_problem(Logistic(), 0.1, 1.0, n=10**9, p=3)
        >>> t.n, t.rows is None, [c.holds for c in t.conditions({"strong_convexity"})][-2:]
        (1000000000, True, [True, True])
        """
        _check_loss(loss, f"{cls.__name__}.of_problem")
        template = cls.__new__(cls)
        template._build(solved_loss(loss), lam, data_norm, constraint_set, (n, p))
        return template

    def _build(self, loss: Loss, lam: float, data_norm: float,
               constraint_set: ConvexSet | None, shape: tuple[int, int],
               rows: DesignOperator | None = None, y: np.ndarray | None = None,
               ops: DesignOperator | None = None) -> None:
        """Hold the public problem (the loss, the regularizer L2(Λ), the bound q, the set, the
        shape (n, p) and the space) and, for a fit, the rows as given, the labels and ``ops``,
        the one operator the objective reads (rows y_i x_i for a margin loss, x_i for a loss of
        the prediction; CSR when that pays: the choice changes only the arithmetic). ``loss``
        is the loss solved (:func:`solved_loss`: a user's loss with a CVXPY form compiled from
        it), read by every step of the template."""
        self.loss = loss
        self.regularizer = L2(lam)
        self.data_norm = float(data_norm)
        #: A public closed convex set the parameter is restricted to (None: all of R^p).
        self.constraint_set = constraint_set
        self.rows = rows
        self.y = y
        #: A margin loss reads y·wᵀx; a regression loss ℓ(wᵀx, y) reads the prediction and y.
        self.regression = _reads_prediction(self.loss)
        self.n, self.p = shape
        self.space = (EuclideanSpace((self.p,)) if constraint_set is None
                      else ConstrainedSpace((self.p,), constraint_set))
        self.noise_shape = self.space.shape
        self._ops = ops
        # Rows on workers (Dask) sum the loss terms where they are stored: one pass gives the
        # objective, the gradient and the sampled Hessian at a point, and no n-vector leaves the
        # workers (DaskRows.margin_sums); a regression loss's labels are sent there once
        self._on_workers = hasattr(ops, "margin_sums")
        if self._on_workers and self.regression:
            self._ops = ops.with_labels(y)
        self._sample_step = sample_step(self.n, self.p)
        self.capabilities = self._capabilities()
        self._zero_noise = np.zeros(self.p)

    def _capabilities(self) -> frozenset[str]:
        """What the solvers may ask of this template: over ℝ^p the smooth calls, over a set
        those of :meth:`_set_capabilities`; the CVXPY backends where the loss has a CVXPY form;
        the sampled Hessian where the rows give every k-th
        (:func:`~dpconvex.templates.base.sample_step`) and the solve is not over a set given
        by its projection alone."""
        convex = self.constraint_set
        found = (_SMOOTH if convex is None else self._set_capabilities(convex)) | (
            {"cvxpy"} if self.loss.has_cvxpy else set())
        # every k-th row: of the rows held, or of those a fit of the public problem holds
        if self._sample_step and _every_kth(self._ops) and (convex is None or "set_qp" in found):
            found |= {"sampled_hessian"}
        return frozenset(found)

    def _set_capabilities(self, convex: ConvexSet) -> frozenset[str]:
        """Over the set ``convex``: a projection (exact, or a set stated in CVXPY: projected
        Newton, its quadratic models over the set solved in the p coordinates), else the CVXPY
        backends alone (:class:`~dpconvex.ParameterError` where the loss has no CVXPY form)."""
        found = ({"objective", "per_record"}
                 | ({"projection"} if convex.exact_projection else set())
                 | ({"projection", "set_qp"} if hasattr(convex, "qp") else set()))
        if "projection" not in found and not self.loss.has_cvxpy:
            raise ParameterError(
                f"{type(self).__name__}.__init__: only the CVXPY backends solve over "
                f"{convex.describe()} (it has no exact projection), and loss "
                f"'{self.loss.name}' has no CVXPY form. Use a loss with a CVXPY form, or a set "
                "with an exact projection (an l2 ball, a box, the orthant, an l1 ball or a "
                "simplex).")
        return frozenset(found)

    @staticmethod
    def _check_labels(loss: Loss, y: np.ndarray | None, caller: str) -> Condition:
        """Labels ``y`` in the domain of ``loss``: {−1, +1} (margin), its label range (regression);
        the condition of the proof this check establishes (``y`` None: the public problem
        alone, whose fit checks its labels).

        Refused before any noise with :class:`~dpconvex.DataValidationError`, naming the
        encoding to use.
        """
        if not _reads_prediction(loss):
            if y is not None and not np.all(np.isin(y, MARGIN_LABELS)):
                raise DataValidationError(
                    f"{caller}: a margin loss takes labels in {{-1, +1}}, but y has labels "
                    "outside it: the per-record gradient bound G = |ℓ'|·q holds only for "
                    "|y| = 1. Encode the labels as -1/+1 (e.g. np.where(y == positive_class, "
                    "1.0, -1.0)), or use an estimator such as "
                    "dp.PrivateLinearClassifier(classes=[...]), which encodes them."
                )
            return Condition("labels in {-1, +1}", True, "checked on every label",
                             "every label is -1 or +1 (the margin loss's label domain)")
        lo, hi = loss.label_range
        if y is not None and not bool(np.all((y >= lo) & (y <= hi))):
            raise DataValidationError(
                f"{caller}: loss '{loss.name}' takes labels in its public label_range "
                f"[{lo:g}, {hi:g}], but y has labels outside it: its bounds are derived over "
                "that range only. Clip the labels to the range (a per-record public map), or "
                "declare the range they come from."
            )
        return Condition("labels in the label range", True, "checked on every label",
                         f"every label the loss reads is in [{lo:g}, {hi:g}] (its public range; "
                         "a regressor's labels clipped to label_range, then mapped onto it)")

    @property
    def X(self) -> Any:
        """The rows as stored (ndarray, or CSR for sparse input)."""
        return self.rows.matrix

    @property
    def sparse(self) -> bool:
        """Whether the products run on a CSR matrix."""
        return bool(self._ops.is_sparse)

    @property
    def lam(self) -> float:
        """Λ, the regularizer's weight (and modulus)."""
        return self.regularizer.lam

    # ----------------------------------------------------------------- privacy
    @staticmethod
    def constants_for(loss: Loss, data_norm: float, lam: float, p: int,
                      n: int | None = None) -> PrivacyConstants:
        """The declared constants of linear ERM with ``loss`` on p-dimensional rows of norm at most
        q = ``data_norm`` and the regularizer's weight Λ = ``lam``, with or without the rows (a
        plan's rules read them before any template exists): G = |ℓ'|·q, r = 1, c_u = T = c·q²,
        μ = Λ (docs/privacy/linear_erm.md#privacy-linear-erm, privacy-perturbation).

        One record's Hessian ℓ''(y θᵀx) x xᵀ is rank one with trace ℓ''·||x||² <= c q²
        (T, the trace bound of the one-sided slack, privacy-jacobian-slack). With ``n``: the
        public problem of n rows the Λ rule calibrates on, k = 2
        (:attr:`gradient_difference_rank`).

        Parameters
        ----------
        loss : Loss
            The loss (its ``deriv_bound`` and ``curvature``).
        data_norm : float
            q, the row-norm bound (intercept column counted).
        lam : float
            Λ, the modulus.
        p : int
            The number of parameters (intercept column counted).
        n : int or None, default=None
            The number of rows of the public problem (None: a template's constants).

        Returns
        -------
        PrivacyConstants

        Examples
        --------
        >>> from dpconvex.objectives.losses import Logistic
        >>> from dpconvex.templates.linear_erm import LinearERMTemplate
        >>> consts = LinearERMTemplate.constants_for(Logistic(), 2.0, 0.1, 3)
        >>> consts.grad_bound, consts.hessian_term_bound, consts.strong_convexity
        (2.0, 1.0, 0.1)
        >>> problem = LinearERMTemplate.constants_for(Logistic(), 2.0, 0.1, 3, n=500)
        >>> problem.n, problem.gradient_difference_rank
        (500, 2)
        """
        # each number read once, as a built-in float: the noise's arithmetic is Python's
        slope = _read_number(loss.deriv_bound, "the loss's deriv_bound")
        curvature = _read_number(loss.curvature, "the loss's curvature")
        data_norm, lam = _read_number(data_norm, "data_norm"), _read_number(lam, "lam")
        c_u = curvature * data_norm**2
        public = {} if n is None else {
            "n": n, "name": "linear ERM (public shape)",
            "gradient_difference_rank": LinearERMTemplate.gradient_difference_rank}
        return PrivacyConstants(grad_bound=slope * data_norm, hessian_rank=1,
                                hessian_term_bound=c_u, strong_convexity=lam, dimension=p,
                                hessian_trace_bound=c_u, **public)

    def privacy_constants(self) -> PrivacyConstants:
        """The constants of :meth:`constants_for` at this template's loss, row bound q, Λ (the
        regularizer's weight, which the objective reads) and dimension p.

        Returns
        -------
        PrivacyConstants

        Raises
        ------
        ParameterError
            The template's regularizer has no numeric ``lam`` (the objective adds
            lam/2 ||w||²).

        Examples
        --------
        >>> # template: LinearERMTemplate(Logistic(), 0.1, 1.0, X, y), conftest.py
        >>> consts = template.privacy_constants()
        >>> consts.grad_bound, consts.hessian_term_bound, consts.strong_convexity, consts.dimension
        (1.0, 0.25, 0.1, 3)
        """
        lam = getattr(self.regularizer, "lam", None)
        if isinstance(lam, bool) or not isinstance(lam, (int, float, np.floating)):
            raise ParameterError(
                f"{type(self).__name__}.privacy_constants: the objective adds lam/2 ||w||², "
                f"but {type(self.regularizer).__qualname__} has no numeric lam "
                f"({describe_value(lam)}). "
                "Use the regularizer L2(lam)."
            )
        # Λ read once as a built-in float (a float of the user's class is code of the user's:
        # the release guards it, and its arithmetic is no part of the calibration)
        return self.constants_for(self.loss, self.data_norm, float(lam), self.p)

    def conditions(self, needs: Iterable[str] | str) -> list[Condition]:
        """Convexity (DCP), the loss's declared constants (probes) and the row norm bound.

        ``needs``: what the mechanism's proof uses (a mechanism's name is refused:
        :func:`~dpconvex.templates.base.needs_of`). The ℓ'' bound is a condition of every
        one: a residual certifies the minimizer of a smooth objective only (none is defined at
        a kink), and over a set the distance bound reads it (L = c q² + μ).

        Parameters
        ----------
        needs : iterable of str or str
            What the mechanism's proof needs (``Mechanism.needs``).

        Returns
        -------
        list of Condition

        Examples
        --------
        >>> conditions = template.conditions(("strong_convexity",))
        >>> [c.name for c in conditions][-2:], all(c.holds for c in conditions)
        (['labels in {-1, +1}', 'row norm bound'], True)
        """
        needs_of(needs)
        owner = f"{type(self).__name__}.conditions"
        conds = shipped_loss_conditions(self.loss, need_curvature=True, caller=owner)
        if conds is None:  # a user's loss: DCP convexity, then its constants (probed once)
            conds = self._user_loss_conditions(owner)
        # the labels (the public problem alone has none: its fit checks them)
        conds.append(self._check_labels(self.loss, self.y, owner))
        if self.constraint_set is not None:
            conds.append(self._set_condition())
        # the rows the objective reads (the public problem alone: those its fit clips)
        ok = self._ops is None or bool(self._max_row_norm() <= self.data_norm * (1 + 1e-12))
        conds.append(Condition(
            "row norm bound", ok, "enforced by clipping to the public bound",
            f"every row has ||x|| <= q = {self.data_norm:g}" if ok
            else "rows exceed the bound q: clip them before building the template",
        ))
        return conds

    def _max_row_norm(self) -> float:
        """The largest norm of the rows the objective reads (signed by the labels: the same
        norms); rows on workers give their maximum."""
        largest = getattr(self._ops, "max_row_norm", None)
        return float(largest() if largest is not None
                     else np.max(self._ops.row_norms(), initial=0.0))

    def _user_loss_conditions(self, owner: str) -> list[Condition]:
        """A user's loss: its CVXPY form checked DCP convex (where it has one), then its declared
        constants probed (:func:`~dpconvex.privacy.checks.check_loss`)."""
        conds = []
        if self.loss.has_cvxpy:
            with user_code(
                owner,
                f"loss '{self.loss.name}'",
                "when its CVXPY form was built on "
                "3 predictions (and, for a regression loss, a cp.Parameter of labels: "
                "convexity is checked for every label). Build it from CVXPY atoms.",
            ):
                form = self.loss.dcp_form()
            conds.append(check_dcp_convex(form, f"loss '{self.loss.name}'", owner))
        return conds + check_loss(self.loss, need_curvature=True, caller=owner)

    def _set_condition(self) -> Condition:
        """The public parameter set, as declared (with an exact projection, or solved by CVXPY)."""
        assert self.constraint_set is not None
        scale = ("; θ on the scale of the labels the loss reads: a regressor's coefficients in the "
                 "labels' units are θ times half the width of its label_range"
                 if self.regression else "")
        how = ("a closed convex set with an exact projection"
               if self.constraint_set.exact_projection
               else "checked DCP, a closed convex set as CVXPY solves it, and non-empty")
        return Condition("parameter set", True, "declared by the caller (public)",
                         f"θ restricted to {self.constraint_set.describe()} ({how}{scale})")

    def assumptions(self, needs: Iterable[str] | str) -> list[str | Line]:
        """What the guarantee assumes, for the certificate: replace-one adjacency, the public
        row bound and label set, the exact minimizer; the parameter set's lines
        (:class:`~dpconvex.privacy.certificate.ParameterSet`) and the loss's smoothing
        (:class:`~dpconvex.privacy.certificate.LossSmoothing`) where they apply.

        Parameters
        ----------
        needs : iterable of str
            What the mechanism's proof uses (``mechanism.needs``; a mechanism's name is
            refused).

        Returns
        -------
        list of str or Line
            Lines, or typed lines whose fields the certificate keeps.

        Raises
        ------
        ParameterError
            ``needs`` is a mechanism's name (from :func:`~dpconvex.templates.base.needs_of`).

        Examples
        --------
        >>> # template: LinearERMTemplate(Logistic(), 0.1, 1.0, X, y), conftest.py
        >>> lines = template.assumptions(get_mechanism("objective").needs)
        >>> len(lines), lines[0]
        (3, 'adjacency: datasets differing in one record (replace-one)')
        """
        needs = needs_of(needs)
        a: list[str | Line] = [
            "adjacency: datasets differing in one record (replace-one)",
            f"rows clipped to the public norm bound q = {self.data_norm:g} (intercept column "
            "included); preprocessing that reads the data is not covered",
            ("labels in the public label range " + str(tuple(self.loss.label_range))
             if self.regression else "labels in {-1, +1}")
            + "; the proof is for the exact minimizer of the perturbed objective: "
            "see the solve condition for how the released point relates to it",
        ]
        if self.constraint_set is not None:
            a += self._set_assumptions()
        smoothing = getattr(self.loss, "smoothed_kinks", None)
        if smoothing is not None:
            a.append(LossSmoothing(self.loss.name, smoothing.kinks, smoothing.h, smoothing.gap))
        if getattr(self.rows, "certificate_note", None):  # an out-of-core backend says so
            a.append(self.rows.certificate_note)
        if "curvature" in needs and self.loss.name == "huber":
            a.append("Huber hinge is C^1 with ℓ'' bounded and piecewise constant; "
                     "the change-of-variables argument is used as in CMS Section 3.4.2")
        return a

    def _set_assumptions(self) -> list[str | Line]:
        """What the guarantee over the public parameter set assumes (KST Section 4), and where
        the set's projection is solved, what the accuracy check then bounds."""
        assert self.constraint_set is not None
        exact = self.constraint_set.exact_projection
        tol = 0.0 if exact else getattr(self.constraint_set, "projection_tol", 0.0)
        a: list[str | Line] = [ParameterSet(self.constraint_set.describe(), exact, tol)]
        if not exact:
            a.append(
                "the set has no exact projection: the accuracy check measures the natural "
                "residual with a projection a solver computes (SCS, to its residual "
                f"tolerance), adds {tol:g} for that projection's distance from the exact "
                "one, and accepts the sum only within the tolerance; the projection is "
                "within the solver's tolerances, not exact, so the check bounds no "
                "distance to the exact minimizer and none is stated"
            )
        return a

    @property
    def record_domain(self) -> RecordDomain:
        """The public record domain: rows of norm <= q, labels in {−1, +1} or the label range."""
        if self.regression:
            return RecordDomain(self.p, self.data_norm, label_range=tuple(self.loss.label_range))
        return RecordDomain(self.p, self.data_norm, labels=MARGIN_LABELS)

    def record_gradients(self, w: np.ndarray, X: Any, y: np.ndarray) -> np.ndarray:
        """∇_w ℓ for each record: ℓ'(y_i wᵀx_i) y_i x_i (margin), ∂ℓ/∂z(wᵀx_i, y_i) x_i
        (regression).

        Parameters
        ----------
        w : ndarray of shape (p,)
            The parameters.
        X : array-like of shape (n, p)
            The rows.
        y : ndarray of shape (n,)
            The labels.

        Returns
        -------
        ndarray of shape (n, p)

        Examples
        --------
        >>> template.record_gradients(np.zeros(3), X, y).shape
        (40, 3)
        """
        X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=float)
        y = np.asarray(y, dtype=float)
        z = X @ np.asarray(w, dtype=float)
        coef = self.loss.deriv(z, y) if self.regression else self.loss.deriv(y * z) * y
        return coef[:, None] * X

    def distance_bound(self, residual: float, mu: float) -> float:
        """||w - w*|| <= res/μ unconstrained; (1 + L)/μ · res over a set, with res the natural
        residual and L = c q² + μ the public Lipschitz bound of ∇J
        (docs/privacy/accuracy_randomness.md#privacy-accuracy-randomness,
        privacy-lm-solver-accuracy).

        Over a set without an exact projection the residual is measured with a solver's
        projection and bounds nothing: :class:`~dpconvex.PrivacyError`.

        Parameters
        ----------
        residual : float
            The (natural) residual of the solve.
        mu : float
            μ, the modulus of the solved objective.

        Returns
        -------
        float

        Raises
        ------
        PrivacyError
            Over a set without an exact projection.

        Examples
        --------
        >>> template.distance_bound(1e-3, 0.1)
        0.01
        """
        if self.constraint_set is None:
            return residual / mu
        if not self.constraint_set.exact_projection:
            raise PrivacyError(
                f"{type(self).__name__}.distance_bound: over {self.constraint_set.describe()} the "
                "natural "
                "residual is measured with a projection a solver computes, not an exact one, so "
                "it bounds "
                "no distance to the exact minimizer. Use optimality_tol=None (the "
                "exact-minimizer mode), or "
                "a set with an exact projection (an l2 ball, a box, the orthant, an l1 ball or a "
                "simplex)."
            )
        return (1.0 + self.loss.curvature * self.data_norm ** 2 + mu) * residual / mu

    def lipschitz_bound(self, extra_reg: float = 0.0) -> float:
        """L = c q² + Λ + Δ: ∇²J = (1/n) Σ ℓ''·x xᵀ + (Λ + Δ) I, ℓ'' <= c, ||x|| <= q (public).

        With an unbounded curvature (a kink), a unit start: projected gradient backtracks.

        Parameters
        ----------
        extra_reg : float, default=0.0
            Δ, added to Λ.

        Returns
        -------
        float
            L (public).

        Examples
        --------
        >>> template.lipschitz_bound(), template.lipschitz_bound(0.5)  # c = 1/4, q = 1, Λ = 0.1
        (0.35, 0.85)
        """
        c = float(self.loss.curvature)
        reg = self.regularizer.lam + float(extra_reg)
        return (c * self.data_norm ** 2 if math.isfinite(c) else 1.0) + reg

    # ---------------------------------------------------------------- numerics
    def objective(self, w: np.ndarray, b: np.ndarray | None = None,
                  extra_reg: float = 0.0) -> tuple[float, np.ndarray]:
        """J(w) and ∇J(w) in NumPy, with the regularizer raised to (Λ + Δ)/2 ||w||², Δ = extra_reg.

        Parameters
        ----------
        w : ndarray of shape (p,)
            The parameters.
        b : ndarray or None, default=None
            The noise of the linear term (None: zero).
        extra_reg : float, default=0.0
            Δ, added to Λ.

        Returns
        -------
        tuple of (float, ndarray)
            J(w) and ∇J(w).

        Examples
        --------
        >>> value, grad = template.objective(np.zeros(3))
        >>> round(value, 4), grad.shape
        (0.6931, (3,))
        """
        if b is None:
            b = self._zero_noise
        reg = self.regularizer.lam + float(extra_reg)
        w = np.asarray(w, dtype=float)
        last = self._last_objective  # a solver often asks again at the point it stopped at
        if (last is not None and np.array_equal(last[0], w) and last[2] == reg
                and np.array_equal(last[1], b)):
            return last[3], last[4].copy()
        total = [0.0]
        if self._on_workers:
            step = self._sample_step if "sampled_hessian" in self.capabilities else 0
            total[0], r, gram, count = self._ops.margin_sums(w, self.loss, step=step)
            if gram is not None:
                self._last_sample = (w.copy(), gram, count)
        else:
            def deriv(m: np.ndarray, rows: slice) -> np.ndarray:
                lv, ld = self.loss.value_and_deriv(
                    m, *((self.y[rows],) if self.regression else ())
                )
                total[0] += float(np.sum(lv))
                return ld

            # Aᵀ ℓ'(A w) in one pass over the rows when the operator fuses the two
            # products; the margins A w are kept
            fused = getattr(self._ops, "matvec_rmatvec", None)
            last = self._last_margins
            if fused is None or (last is not None and np.array_equal(last[0], w)):
                r = self._ops.rmatvec(deriv(self._margins(w), slice(0, self.n)))
            else:
                m, r = fused(w, deriv)
                self._last_margins = (w.copy(), m)
        val = total[0] / self.n + 0.5 * reg * float(w @ w) + float(b @ w) / self.n
        grad = r / self.n + reg * w + b / self.n
        self._last_objective = (w.copy(), np.array(b, dtype=float), reg, val, grad.copy())
        return val, grad

    def _margins(self, w: np.ndarray) -> np.ndarray:
        """The margins y_i wᵀx_i; those of the last point asked for are kept (one n-vector),
        so the Hessian at the point a gradient was just computed at needs no pass."""
        w = np.asarray(w, dtype=float)
        last = self._last_margins
        if last is not None and np.array_equal(last[0], w):
            return last[1]
        m = self._ops.matvec(w)
        self._last_margins = (w.copy(), m)
        return m

    def residual(
        self, w: np.ndarray, b: np.ndarray | None = None, extra_reg: float = 0.0
    ) -> float:
        """||w − Π(w − ∇J(w))||: ||∇J(w)||_2 unconstrained, the natural residual over a set.

        Over a set whose projection is solved (:class:`~dpconvex.objectives.CVXPYSet`), the
        natural residual with the solved projection plus its ``projection_tol``.

        Parameters
        ----------
        w : ndarray of shape (p,)
            The parameters.
        b : ndarray or None, default=None
            The noise of the linear term (None: zero).
        extra_reg : float, default=0.0
            Δ, added to Λ.

        Returns
        -------
        float

        Examples
        --------
        >>> w = np.zeros(3)
        >>> bool(np.isclose(template.residual(w), np.linalg.norm(template.objective(w)[1])))
        True
        """
        grad = self.objective(w, b, extra_reg)[1]
        if self.constraint_set is None:
            return float(np.linalg.norm(grad))
        # a solved projection counts its error: the sum bounds the residual of the exact one
        error = 0.0 if self.constraint_set.exact_projection else float(
            getattr(self.constraint_set, "projection_tol", 0.0))
        return natural_residual(np.asarray(w, dtype=float), grad, self.space.project) + error

    def hessian(self, w: np.ndarray, extra_reg: float = 0.0) -> np.ndarray:
        """∇²J(w) = (1/n) Xᵀ diag(ℓ''(m)) X + (Λ + Δ) I (y_i² = 1, so A = diag(y) X serves).

        Parameters
        ----------
        w : ndarray of shape (p,)
            The parameters.
        extra_reg : float, default=0.0
            Δ, added to Λ.

        Returns
        -------
        ndarray of shape (p, p)

        Examples
        --------
        >>> template.hessian(np.zeros(3)).shape
        (3, 3)
        """
        reg = self.regularizer.lam + float(extra_reg)
        if self._on_workers:
            H = self._ops.margin_sums(w, self.loss, gradient=False, step=1)[2] / self.n
        else:
            labels = (self.y,) if self.regression else ()
            H = self._ops.weighted_gram(self.loss.deriv2(self._margins(w), *labels)) / self.n
        H[np.diag_indices_from(H)] += reg
        return H

    def sampled_hessian(
        self, w: np.ndarray, extra_reg: float = 0.0, *, bound: bool = False
    ) -> np.ndarray:
        """An estimate of ∇²J(w) from every k-th row (capability ``"sampled_hessian"``).

        (1/|S|) Σ_{i∈S} ℓ''(m_i) x_i x_iᵀ + (Λ + Δ) I over S = {0, k, 2k, ...} (k <= 20, at
        least 100 rows per coefficient). ``bound`` puts the declared c for ℓ'' (when finite):
        a majorant of ∇²J at every w, a safe first Newton step from any start. For search
        directions only; the gradient is always exact.

        Parameters
        ----------
        w : ndarray of shape (p,)
            The parameters.
        extra_reg : float, default=0.0
            Δ, added to Λ.
        bound : bool, default=False
            Put the declared bound c for ℓ''.

        Returns
        -------
        ndarray of shape (p, p)

        Examples
        --------
        >>> # 40 rows: too few to sample, so every row is read
        >>> bool(np.allclose(template.sampled_hessian(np.zeros(3)), template.hessian(np.zeros(3))))
        True
        """
        reg = self.regularizer.lam + float(extra_reg)
        k = max(1, self._sample_step)
        c = float(self.loss.curvature)
        if bound and math.isfinite(c):
            sub = self._ops.every(k)
            H = sub.weighted_gram(np.full(sub.n, c)) / sub.n
        elif self._on_workers:
            w = np.asarray(w, dtype=float)
            last = self._last_sample  # the point the last objective pass was at
            if last is None or not np.array_equal(last[0], w):
                last = (w, *self._ops.margin_sums(w, self.loss, gradient=False, step=k)[2:])
            H = last[1] / last[2]
        else:
            sub = self._ops.every(k)
            H = (
                sub.weighted_gram(
                    self.loss.deriv2(
                        self._margins(w)[::k], *((self.y[::k],) if self.regression else ())
                    )
                )
                / sub.n
            )
        H[np.diag_indices_from(H)] += reg
        return H

    def hessp(self, w: np.ndarray, extra_reg: float = 0.0) -> Callable[[np.ndarray], np.ndarray]:
        """v -> ∇²J(w) v without forming the Hessian: (1/n) Aᵀ(ℓ''(m) ⊙ (A v)) + (Λ + Δ) v.

        Parameters
        ----------
        w : ndarray of shape (p,)
            The parameters.
        extra_reg : float, default=0.0
            Δ, added to Λ.

        Returns
        -------
        callable
            v -> ∇²J(w) v.

        Examples
        --------
        >>> w, v = np.zeros(3), np.ones(3)
        >>> bool(np.allclose(template.hessp(w)(v), template.hessian(w) @ v))
        True
        """
        reg = self.regularizer.lam + float(extra_reg)
        d2 = self.loss.deriv2(self._margins(w), *((self.y,) if self.regression else ())) / self.n
        fused = getattr(self._ops, "matvec_rmatvec", None)
        if fused is None:
            return lambda v: self._ops.rmatvec(d2 * self._ops.matvec(v)) + reg * v
        return lambda v: fused(v, lambda m, rows: d2[rows] * m)[1] + reg * v

    # ------------------------------------------------------------------ CVXPY
    def cvxpy_problem(self) -> dict[str, Any]:
        """Build (once) and return the CVXPY problem with its parameters.

        Returns a dict with keys ``problem``, ``w`` (Variable), ``b`` (Parameter,
        the noise) and ``reg`` (Parameter, Λ + Δ). Sparse rows enter as CSR.

        Returns
        -------
        dict
            ``problem``, ``w``, ``b`` and ``reg``.

        Raises
        ------
        ParameterError
            The loss has no DCP form in CVXPY (capability ``"cvxpy"``).

        Examples
        --------
        >>> cv = template.cvxpy_problem()
        >>> sorted(cv), cv["reg"].value
        (['b', 'problem', 'reg', 'w'], 0.1)
        """
        if not self.loss.has_cvxpy:
            raise ParameterError(
                f"{type(self).__name__}.cvxpy_problem: loss '{self.loss.name}' has no DCP form in "
                "CVXPY, "
                "so the CVXPY backends (clarabel, scs) cannot solve it: missing capability "
                "'cvxpy'. Use "
                "solver='native'."
            )
        if self._cvx is None:
            w = cp.Variable(self.p)
            b = cp.Parameter(self.p, value=np.zeros(self.p))
            reg = cp.Parameter(nonneg=True, value=self.lam)
            margins = self._ops.matrix @ w
            terms = (self.loss.cvxpy_expr(margins, self.y) if self.regression
                     else self.loss.cvxpy_expr(margins))
            obj = (cp.sum(terms) / self.n + 0.5 * reg * cp.sum_squares(w) + (b @ w) / self.n)
            constraints = (
                [] if self.constraint_set is None else self.constraint_set.cvxpy_constraints(w)
            )
            self._cvx = {
                "problem": cp.Problem(cp.Minimize(obj), constraints),
                "w": w,
                "b": b,
                "reg": reg,
            }
        return self._cvx

    def cvxpy_set(self, b: np.ndarray | None, extra_reg: float) -> None:
        """Set the noise (zero when ``b`` is None) and Λ + Δ.

        Parameters
        ----------
        b : ndarray of shape (p,) or None
            The noise of the linear term (None: zero).
        extra_reg : float
            Δ, added to Λ.

        Examples
        --------
        >>> template.cvxpy_set(None, 0.5)
        >>> cv = template.cvxpy_problem()
        >>> float(cv["reg"].value), cv["b"].value.tolist()
        (0.6, [0.0, 0.0, 0.0])
        """
        cv = self.cvxpy_problem()
        # the check's projections: this solve's
        if hasattr(self.constraint_set, "reset_projection"):
            self.constraint_set.reset_projection()
        cv["b"].value = self._zero_noise if b is None else b
        cv["reg"].value = self.regularizer.lam + float(extra_reg)

    def cvxpy_solution(self) -> tuple[np.ndarray | None, dict[str, Any]]:
        """The solution of the CVXPY problem's last solve.

        Returns
        -------
        w : ndarray of shape (p,) or None
            The solution (None: not solved).
        extra : dict
            What a solver reports beside it (empty here).

        Examples
        --------
        >>> template.cvxpy_solution()  # before a solve
        (None, {})
        >>> template.cvxpy_set(None, 0.5)
        >>> _ = template.cvxpy_problem()["problem"].solve()
        >>> w, _ = template.cvxpy_solution()
        >>> bool(template.residual(w, extra_reg=0.5) < 1e-4)
        True
        """
        w = self.cvxpy_problem()["w"].value
        return (None if w is None else np.asarray(w, dtype=float)), {}
