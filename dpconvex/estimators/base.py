"""What every private estimator shares: the plan of a fit, the prepared problem a fit builds
before it spends budget, and a ``score`` that validates its labels like ``fit``.

A fit is ``plan`` (public facts only, :class:`FitPlan`), ``prepare`` (:class:`Prepared`) and the release;
``certify`` is the dry run of the same plan. A meta-estimator fits its parts with a :class:`FitContext`
(:func:`fit_with`), never stored on a model. The whole path: docs/architecture.md.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import inspect
import math
import numbers
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar, runtime_checkable

import numpy as np
from scipy.special import log_softmax
from sklearn.base import BaseEstimator, ClassifierMixin, clone, is_regressor
from sklearn.pipeline import Pipeline
from sklearn.utils import get_tags

from .._validation import (
    NO_SAMPLE_WEIGHTS,
    NO_SUCH_PARAMETER,
    CheckedParamNames,
    Constraint,
    NoiseSource,
    Options,
    check_fitted,
    check_sample_weight,
    checks_feature_names,
    describe_value,
    feature_names_of,
    is_dask_collection,
    is_dpconvex_class,
    noise_source,
    signed_by,
    signed_refusal,
    unchecked,
    with_feature_names,
)
from ..data.ranged_rows import SUGGESTED_SOURCE, RangedRows, rows_feature_range
from ..data.row_scaling import ROW_NORMS
from ..data.validation import (
    INFERRED,
    LabelWarning,
    check_array,
    check_classes,
    check_excluded,
    check_labels,
    computed,
    declared_classes,
    encode_labels,
    label_set_of,
)
from ..errors import (
    DataValidationError,
    DPConvexError,
    ParameterError,
    PrivacyError,
    SolverError,
    verbosity,
)
from ..privacy.budget import Budget, hold_budget, reserve_budget
from ..privacy.certificate import PREPROCESSING, LabelSource, UncheckedSteps
from ..privacy.composition import compose_sequential
from ..privacy.declarations import VOUCHABLE, vouch_names
from ..privacy.release import check_warm_start
from ..solvers import backend_names

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from ..data.validation import LabelSet
    from ..objectives.losses import Loss
    from ..privacy.budget import Spend
    from ..privacy.certificate import Certificate, Fact, LabelSource
    from ..privacy.mechanisms.base import Mechanism
    from ..templates.base import Template

__all__ = ["NO_CONTEXT", "PARAMETER_DOCS", "ROWS_RANGES_NOTE", "ROW_NORM", "SOLVER",
           "CertificateHold", "CheckedData", "ClassifierScoreMixin", "FitContext", "FitPlan",
           "LossParameter", "ParameterSet", "Prepared", "PrivateEstimator",
           "Vouch", "carry_ledger", "charge_not_public", "check_holdable_shape",
           "check_shape_fact", "fill_docs", "fit_with", "keep_argmax", "not_public_source",
           "refuse_users_learner", "state_rows_source", "state_users_class"]

#: The certificate line of a fit whose per-feature ranges came with its rows.
ROWS_RANGES_NOTE = ("the per-feature ranges are those the rows carry (RangedRows; PublicEncoder's "
                    "are the schema's encoded_range, constants of the schema), taken as public "
                    "as a feature_range would be")

#: scikit-learn's parameter names of a class (from its ``__init__``'s signature), read once per class.
_PARAM_NAMES = functools.cache(lambda cls: tuple(BaseEstimator._get_param_names.__func__(cls)))

#: The parameter entries the private estimators share, each written into a docstring at its
#: ``{name}`` line by :func:`fill_docs` (as scikit-learn's shared docs).
PARAMETER_DOCS = {
    "random_state": """\
    random_state : None or int, default=None
        None seeds the noise from the OS at each fit (required for a real release); an int
        fixes the seed (experiments only). A generator is refused: it would be kept on the
        model, and its holder could replay the noise (docs/privacy/release.md#privacy-release).
""",
    "accountant": """\
    accountant : BudgetAccountant or None, default=None
        A privacy-budget ledger: checked before the fit (:class:`BudgetError` if it would
        overspend), charged the certificate's (ε, δ) after it.
""",
    "unknown_labels": """\
    unknown_labels : {"raise", "ignore"}, default="raise"
        What a label of y outside the public label set does. "raise": the fit is refused
        with a :class:`~dpconvex.errors.DataValidationError` before any noise is drawn or
        budget spent (naming no count or label of y). "ignore": such records contribute
        nothing to the fit (a per-record map). Either way
        :func:`dpconvex.collect_diagnostics` records them for the data holder.
""",
    "data_norm": """\
    data_norm : float, default=1.0
        Public bound q on ‖x‖; rows above it are scaled down to it. Never set it from the
        data (e.g. the max row norm): that leaks. :class:`~dpconvex.PublicEncoder` builds
        rows within 1.
""",
    "public_check": """\
        The check reads public quantities only (n, p, ε, δ and the public bounds), not the
        strength of the data's signal: a model can be no better than the majority class
        without the warning too, so compare it with the majority class on held-out rows
        (``sklearn.dummy.DummyClassifier``).
""",
    "class_sum_delta": """\
    delta : float or None, default=None
        None or 0: pure ε-DP under ``mechanism="auto"``. δ in (0, 1): the Gaussian
        mechanism's δ. With ``mechanism="gaussian"`` named explicitly, None uses the public
        rule δ = min(1e-5, 1/n²), n the number of rows (a line of the certificate). Must be
        None or 0 for a pure mechanism.
""",
    "priors": """\
    priors : {"empirical", "uniform"} or array-like of shape (n_classes,), default="empirical"
        Class priors π of the decision rule (as in scikit-learn's
        :class:`~sklearn.neighbors.NearestCentroid`). "empirical": from the released noisy
        counts, π_c ∝ max(ñ_c, f) (post-processing, no privacy cost); "uniform": 1/C; an
        array: public priors in the order of ``classes_``, positive, normalized to sum to 1.
""",
    "label_range": """\
    label_range : (float, float), "private", PrivateBounds or None, default=None
        The labels' public range (lo, hi), from documentation, never from the data: labels
        are clipped to it (a per-record map; the count goes to
        :func:`~dpconvex.collect_diagnostics` only) and predictions too. "private" or
        :class:`~dpconvex.PrivateBounds`: released from the labels with a share of ε inside
        the fit (``label_range_``; docs/privacy/bounds.md#privacy-private-label-range).
        None: (−1, 1), with a :class:`~dpconvex.PrivacyWarning` at each fit that says so
        (labels in other units would all be clipped to ±1).
""",
    "public_check_regression": """\
        The check reads public quantities only (n, p, ε, δ and the public bounds), not the
        strength of the data's signal: compare the model with the training labels' mean on
        held-out rows (``sklearn.dummy.DummyRegressor``) even without the warning.
""",
    "classes_none": """\
        None takes the set declared with y (the ``dpconvex.datasets`` loaders' labels, a
        pandas Categorical), else reads it from y with a
        :class:`~dpconvex.errors.PrivacyLeakWarning` ("assumed public" in the certificate;
        :mod:`dpconvex.data.validation`). ``classes_`` holds the set sorted, whatever its order
        here, as scikit-learn's classifiers do (its scorers read ``classes_[-1]`` as the
        positive class).
""",
}


def fill_docs(doc: str | None) -> str | None:
    """``doc`` with each ``{name}`` line of :data:`PARAMETER_DOCS` replaced by its entry.

    Parameters
    ----------
    doc : str or None
        A docstring.

    Returns
    -------
    str or None
        The docstring filled (None: None).

    Examples
    --------
    >>> from dpconvex.estimators.base import fill_docs
    >>> print(fill_docs("Parameters\\n----------\\n    {accountant}\\n").splitlines()[2])
        accountant : BudgetAccountant or None, default=None
    """
    return doc and re.sub(r"^ *\{(\w+)\}\n", lambda line: PARAMETER_DOCS.get(line[1], line[0]),
                          doc, flags=re.MULTILINE)


# The parameter constraints that name a registered loss or solver (the generic ones, Float,
# Int, Options, ..., live in dpconvex._validation, below every registry).
@dataclass(frozen=True)
class LossParameter(Constraint):
    """A loss named in ``names`` or a :class:`dpconvex.objectives.Loss` instance.

    Parameters
    ----------
    names : tuple
        The registered names (and None) accepted.
    callables : bool, default=False
        Also a callable stating the loss in CVXPY atoms.

    Examples
    --------
    >>> str(LossParameter(("huber", None)))
    "one of 'huber', None or a dpconvex.objectives.Loss instance"
    """

    names: tuple[Any, ...]
    #: Also a callable stating the loss in CVXPY atoms (``lambda m: cp.pos(1 - m)``), which
    #: the estimator compiles with :meth:`dpconvex.objectives.Loss.from_cvxpy`.
    callables: bool = False

    def check(self, name: str, value: Any, owner: str, noun: str = "parameter") -> Any:
        """``value`` checked against this constraint, or the refusal naming it.

        Parameters
        ----------
        name : str
            The parameter's name.
        value : object
            Its value.
        owner : str
            The estimator, named in the refusal.

        Returns
        -------
        object
            ``value`` itself.

        Raises
        ------
        ParameterError
            ``value`` does not satisfy the constraint.

        Examples
        --------
        >>> LossParameter(("huber", None)).check("loss", "huber", "Demo")
        'huber'
        >>> LossParameter(("huber", None)).check("loss", "hinge", "Demo")
        Traceback (most recent call last):
        ...
        dpconvex.errors.ParameterError: The 'loss' parameter of Demo must be one of 'huber', ...
        """
        from ..objectives.losses import Loss

        stated = self.callables and callable(value) and not isinstance(value, (Loss, type))
        if not (stated or isinstance(value, Loss) or Options(self.names).is_satisfied_by(value)):
            raise self.refusal(name, value, owner, noun)
        if isinstance(value, Loss) and getattr(value, "kind", "margin") != "margin":
            raise ParameterError(
                f"The '{name}' {noun} of {owner} must be a margin loss, of the margin "
                "m = y * w'x (a regression loss fits with PrivateLinearRegressor(loss="
                f"...)). Got loss '{value.name}' of kind '{value.kind}' instead."
            )
        return value

    def __str__(self) -> str:
        names = ", ".join(map(repr, self.names))
        stated = ", a callable stating it in CVXPY atoms" if self.callables else ""
        return f"one of {names}{stated} or a dpconvex.objectives.Loss instance"


#: The solver backend: None (the native solver) or a registered name
#: (:func:`dpconvex.solvers.backend_names`).
SOLVER = Options((None, *backend_names()))


#: ``row_norm`` of the linear learners and the class centroids: "unit" scales every
#: non-zero row to the norm bound (a per-record public map,
#: docs/privacy/row_scaling.md#privacy-row-norm-unit), "none" only clips.
ROW_NORM = Options(ROW_NORMS)


#: What ``prepare`` and ``fit_prepared`` say of an estimator that releases inside ``fit`` only (a front
#: door, whose parts split its budget and its rows).
FIT_ONLY = (
    "prepares and releases inside fit only (its learner and the parts of its budget follow from "
    "the plan); call fit. Its plan and certificate before the data: plan_for, certify."
)


@dataclass(frozen=True)
class Vouch(Constraint):
    """A tuple of the constant names a caller may vouch for
    (:data:`dpconvex.privacy.declarations.VOUCHABLE`).

    Examples
    --------
    >>> from dpconvex.estimators.base import Vouch
    >>> Vouch().check("vouch", ["curvature"], "Demo")
    ('curvature',)
    """

    def check(self, name: str, value: Any, owner: str, noun: str = "parameter") -> Any:
        """``value`` checked against this constraint, or the refusal naming it.

        Parameters
        ----------
        name : str
            The parameter's name.
        value : object
            Its value.
        owner : str
            The estimator, named in the refusal.

        Returns
        -------
        object
            The names, as a tuple (a single name: a tuple of one).

        Raises
        ------
        ParameterError
            ``value`` does not satisfy the constraint.

        Examples
        --------
        >>> from dpconvex.estimators.base import Vouch
        >>> Vouch().check("vouch", "curvature", "Demo")
        ('curvature',)
        """
        names = vouch_names(value) if isinstance(value, (str, tuple, list)) else None
        if names is None or any(v not in VOUCHABLE for v in names):
            raise self.refusal(name, value, owner, noun)
        return names

    def __str__(self) -> str:
        return f"a tuple of names from dpconvex.privacy.declarations.VOUCHABLE {VOUCHABLE}"


@dataclass(frozen=True)
class ParameterSet(Constraint):
    """None, or a callable taking the coefficient variable and returning CVXPY constraints.

    Examples
    --------
    >>> from dpconvex.estimators.base import ParameterSet
    >>> ParameterSet().check("constraints", None, "Demo") is None
    True
    """

    def check(self, name: str, value: Any, owner: str, noun: str = "parameter") -> Any:
        """``value`` checked against this constraint, or the refusal naming it.

        Parameters
        ----------
        name : str
            The parameter's name.
        value : object
            Its value.
        owner : str
            The estimator, named in the refusal.

        Returns
        -------
        object
            ``value`` itself.

        Raises
        ------
        ParameterError
            ``value`` does not satisfy the constraint.

        Examples
        --------
        >>> from dpconvex.estimators.base import ParameterSet
        >>> ParameterSet().check("constraints", lambda w: [w >= 0], "Demo") is not None
        True
        """
        if value is None or callable(value):
            return value
        raise self.refusal(name, value, owner, noun)

    def __str__(self) -> str:
        return ("None or a callable taking the coefficient variable (a cvxpy.Variable) and "
                "returning a list of CVXPY constraints")


@dataclass(frozen=True, eq=False)
class CheckedData:
    """X and y of a fit, validated once (:meth:`PrivateEstimator._validated`); nothing is
    released by a check, so a fit validates before its plan and holds its budget after.

    Attributes
    ----------
    X : ndarray, SciPy sparse array or Dask array
        The rows as :func:`~dpconvex.data.validation.check_array` returns them.
    y : array-like
        The labels: a classifier's as :func:`~dpconvex.data.validation.check_labels` returns
        them, a regressor's as given (its ``prepare`` maps them by its label range).
    labels : LabelSet or None
        A classifier's labels encoded against its public label set; None for a regressor.

    Examples
    --------
    >>> from dpconvex import PrivateLogisticRegression
    >>> from dpconvex.estimators.base import NO_CONTEXT
    >>> data = PrivateLogisticRegression(classes=[-1, 1])._validated(X, y, NO_CONTEXT)
    >>> data.shape
    (40, 2, 3)
    """

    X: Any
    y: Any
    labels: LabelSet | None = None

    @property
    def shape(self) -> tuple[int, int, int]:
        """(n, n_classes, n_features): the public shape the plan of the fit reads (a
        regressor's ``n_classes`` is 1)."""
        n_classes = 1 if self.labels is None else int(self.labels.classes.size)
        return int(self.X.shape[0]), n_classes, int(self.X.shape[1])


@dataclass(frozen=True, eq=False)
class FitContext:
    """What the caller of a fit hands it besides (X, y): an argument, never stored.

    ``fit(X, y)`` runs with :data:`NO_CONTEXT`; a meta-estimator fits each part with
    :meth:`inner` of its own context. ``fit``, ``prepare`` and ``fit_prepared`` take any other
    context only while the fit that made it has it issued (:func:`issued`).

    Attributes
    ----------
    noise : NoiseSource or None
        The generator this fit draws from; None: one from its ``random_state``
        (:func:`dpconvex._validation.noise_source`).
    excluded : ndarray of bool or None
        Records left out of the fit (the front door's validation rows), one entry
        per record: their labels are not read past the encoding and their rows
        contribute no loss (:func:`dpconvex.data.validation.encode_labels`).
    held : bool
        The fit runs inside another fit's budget hold, which compared δ with 1/n
        (:func:`~dpconvex.privacy.budget.hold_budget`).
    label_warning : LabelWarning or None
        The label-set warning shared by the fits of one fit made of fits (issued
        at most once); None: each read of a label set from y warns.
    checked : bool
        X and y reach this fit as the meta-estimator that holds it checked them (X by
        :func:`~dpconvex.data.validation.check_array`, a regressor's labels numbers, one per
        row, a classifier's by :func:`~dpconvex.data.validation.check_labels`, with their
        diagnostic note given), so the fit does not check them again; it still clips and maps
        every record and encodes the labels. Its rows are then an array (no column names): the
        part, made for that fit, records no ``feature_names_in_``.
    data : CheckedData or None
        X and y as validated for this fit, once, before its plan: by the fit itself
        (:meth:`PrivateEstimator.fit` hands them to its ``prepare``), or by the fit that holds it
        (one-vs-rest's binary models: the rows checked once, each model's labels encoded from
        the whole set's). ``prepare`` reads them instead of checking (X, y) again.
    plan : FitPlan or None
        The plan this fit follows, made by the fit that holds it with this estimator's own
        :meth:`~PrivateEstimator.plan` on the same parameters (a front door's learner: its
        parameters checked there), so the fit neither checks them nor plans again; None: the
        fit plans from the shape of its rows.
    label_set : LabelSet or None
        The label set the fit that holds this one read once for all its parts (a search's,
        from the whole y), with its source: a fit of an estimator whose ``classes`` is None
        encodes its labels against it and states its source (e.g. read from the data)
        instead of reading a set from its own rows; its ``classes`` stays None. None: the
        fit's own ``classes``, else the set declared with or read from its y.
    range_warned : bool
        The fit that holds this one issues the warning of a regressor without ``label_range``
        in the name the user called (the regression front door), so this fit does not issue
        its own.
    noise_guarded : bool
        The fit that holds this one guards against this fit's noise (the regression front
        door's safeguard selects between its model and the private mean,
        docs/privacy/front_door_regression.md#privacy-regressor-safeguard), so this fit runs
        no public noise check of its release.

    Examples
    --------
    >>> from dpconvex import PrivateLogisticRegression
    >>> from dpconvex._validation import NoiseSource
    >>> from dpconvex.estimators.base import NO_CONTEXT, fit_with
    >>> noise = NoiseSource(np.random.default_rng(1), seeded=True)
    >>> est = PrivateLogisticRegression(classes=[-1, 1])
    >>> fit_with(est, X, y, NO_CONTEXT.inner(noise)).random_state is None  # nothing stored
    True
    """

    noise: NoiseSource | None = None
    excluded: np.ndarray | None = None
    held: bool = False
    label_warning: LabelWarning | None = None
    checked: bool = False
    data: CheckedData | None = None
    plan: FitPlan | None = None
    label_set: LabelSet | None = None
    range_warned: bool = False
    noise_guarded: bool = False

    def inner(self, noise: NoiseSource | None, *, held: bool = False,
              excluding: np.ndarray | None = None, checked: bool = False,
              data: CheckedData | None = None, plan: FitPlan | None = None,
              range_warned: bool = False, noise_guarded: bool = False) -> FitContext:
        """The context of a fit inside this one: the same rows left out, hold and label
        warning; ``noise`` its own source (None: from its ``random_state``); ``held``
        when it runs inside this fit's budget hold; ``excluding`` a boolean mask of
        further records left out (a fit made of fits inside another's part); ``checked``
        when this fit hands it X and y as it checked them; ``data`` the inner fit's rows and
        labels as this fit validated and encoded them (:class:`CheckedData`); ``plan`` the
        inner fit's plan, as this fit made it with the inner estimator's ``plan``;
        ``range_warned`` and ``noise_guarded`` when this fit answers for the inner fit's
        warning of a missing label range and its noise check.

        Parameters
        ----------
        noise : NoiseSource or None
            The inner fit's noise source (None: from its ``random_state``).
        held : bool, default=False
            The inner fit runs inside this fit's budget hold (kept True once this one is).
        excluding : ndarray of bool or None, default=None
            Further records left out, or'ed with this context's (None: the same rows).
        checked : bool, default=False
            This fit hands the inner fit X and y as it checked them.
        data : CheckedData or None, default=None
            The inner fit's rows and labels as this fit validated and encoded them.
        plan : FitPlan or None, default=None
            The inner fit's plan, made with the inner estimator's ``plan``.
        range_warned : bool, default=False
            This fit issues the warning of a missing ``label_range`` in its own name.
        noise_guarded : bool, default=False
            This fit guards against the inner fit's noise: the inner fit runs no noise check.

        Returns
        -------
        FitContext
            A new context; this one is unchanged (frozen).

        Raises
        ------
        ParameterError
            ``excluding`` is not a 1-D boolean mask (of this context's length, if it has one).

        Examples
        --------
        >>> from dpconvex.estimators.base import NO_CONTEXT
        >>> part = NO_CONTEXT.inner(None, held=True, excluding=np.arange(40) < 10)
        >>> part.held, int(part.excluded.sum()), NO_CONTEXT.excluded is None
        (True, 10, True)
        """
        excluded = self.excluded
        if excluding is not None:
            mask = np.asarray(excluding)
            mask = check_excluded(
                mask, mask.size if excluded is None else excluded.size, "FitContext.inner"
            )
            excluded = mask if excluded is None else excluded | mask
        return dataclasses.replace(self, noise=noise, held=self.held or held, excluded=excluded,
                                   checked=checked, data=data, plan=plan,
                                   range_warned=range_warned, noise_guarded=noise_guarded)

    def every_row(self, owner: str) -> FitContext:
        """This context, for a fit that reads every row (its statistics, splits or selection
        take no row mask); :class:`PrivacyError` when it leaves rows out, since the rows
        a meta-estimator keeps for another part would reach this fit.

        Parameters
        ----------
        owner : str
            The class name of the fit, named in the refusal.

        Returns
        -------
        FitContext
            This context itself.

        Raises
        ------
        PrivacyError
            The context leaves rows out (:attr:`excluded` is set).

        Examples
        --------
        >>> from dpconvex.estimators.base import NO_CONTEXT
        >>> NO_CONTEXT.every_row("Demo") is NO_CONTEXT
        True
        >>> NO_CONTEXT.inner(None, excluding=np.arange(40) < 10).every_row("Demo")
        Traceback (most recent call last):
        ...
        dpconvex.errors.PrivacyError: Demo.fit: this fit reads every row ...
        """
        if self.excluded is not None:
            raise PrivacyError(
                f"{owner}.fit: this fit reads every row and cannot leave rows out of its fit, "
                "but the fit that contains it asked for that (FitContext.inner(excluding=...)). "
                "Fit a learner that leaves rows out (PrivateEstimator.takes_row_mask) inside that fit."
            )
        return self

    def one_label_warning(self, *, issued: bool = False, owner: str = "", y: Any = None,
                          text: str | None = None) -> FitContext:
        """This context with one label-set warning for the fits inside it: the caller's (marked issued
        when ``issued``), else a new :class:`~dpconvex.data.validation.LabelWarning`. With ``owner``, where
        the set is read from ``y`` (none declared with it), issued here (``owner``'s ``text``),
        first.

        Parameters
        ----------
        issued : bool, default=False
            Mark the warning issued (the caller issued it already).
        owner : str, default=""
            The class name of the fit that reads the label set; empty: nothing issued here.
        y : array-like or None, default=None
            The labels, read only for a label set declared with them.
        text : str or None, default=None
            ``owner``'s text of the warning (None: the shared text).

        Returns
        -------
        FitContext
            This context where it has a label warning, else a copy with a new one.

        Examples
        --------
        >>> from dpconvex.estimators.base import NO_CONTEXT
        >>> context = NO_CONTEXT.one_label_warning()
        >>> context.label_warning.issued, NO_CONTEXT.label_warning is None
        (False, True)
        """
        context = (
            self if self.label_warning else dataclasses.replace(self, label_warning=LabelWarning())
        )
        if owner and declared_classes(y) is None:
            context.label_warning.issue(owner, text)
        context.label_warning.issued |= issued
        return context


#: The context of a fit called by the user: its own noise, every row, no outer hold.
NO_CONTEXT = FitContext()

#: The verbosity of a fit with no ``verbose`` parameter: the caller's (:func:`verbosity`).
NO_PROGRESS = contextlib.nullcontext()


def _progress(estimator: Any) -> AbstractContextManager[None]:
    """The progress lines of ``estimator``'s fit (its hold, objective and release) at its
    ``verbose`` parameter, checked with its parameters, where it has one; else the caller's."""
    return verbosity(estimator.verbose) if hasattr(estimator, "verbose") else NO_PROGRESS

#: The contexts issued now, by identity, each for the calls of the fit that made it inside its
#: budget hold (:func:`issued`): the only contexts ``fit``, ``prepare`` and ``fit_prepared``
#: take besides :data:`NO_CONTEXT` (:func:`check_context`). A context the caller made
#: (``held``, ``checked``, ``data``, ``plan``, rows left out) would skip the δ check and its
#: certificate note, the data's or the parameters' checks, or the rows.
_ISSUED: dict[int, FitContext] = {}


@contextlib.contextmanager
def issued(context: FitContext) -> Iterator[FitContext]:
    """``context``, issued to the ``fit``, ``prepare`` or ``fit_prepared`` calls of the with
    block: the fit that made it hands it to its own steps or to a part it holds the budget of.

    Parameters
    ----------
    context : FitContext
        The context the calling fit made.

    Yields
    ------
    FitContext
        ``context`` itself, accepted by :func:`check_context` until the block ends (where it
        was issued already, it stays issued after the block).

    Examples
    --------
    >>> from dpconvex import PrivateLogisticRegression
    >>> from dpconvex.estimators.base import NO_CONTEXT, issued
    >>> est = PrivateLogisticRegression(classes=[-1, 1], random_state=0)
    >>> with issued(NO_CONTEXT.inner(None)) as context:
    ...     prep = est.prepare(X, y, est.plan_for(X, y), context=context)
    >>> prep.template.n
    40
    """
    fresh = id(context) not in _ISSUED  # one context handed on by a part stays issued
    _ISSUED[id(context)] = context
    try:
        yield context
    finally:
        if fresh:
            del _ISSUED[id(context)]


def fit_part(part: PrivateEstimator, X: Any, y: Any, context: FitContext) -> PrivateEstimator:
    """Fit ``part`` (a meta-estimator's learner) through its public ``fit`` inside ``context``,
    the context of its part that the calling fit made, issued to ``fit`` for this call only.

    Parameters
    ----------
    part : PrivateEstimator
        The learner to fit; its ``fit`` must take ``context=`` (or ``**kwargs``).
    X, y : array-like
        The rows and labels the part is fitted on.
    context : FitContext
        The context of the part, made by the calling fit (e.g. :meth:`FitContext.inner`).

    Returns
    -------
    PrivateEstimator
        What ``part.fit`` returns (the fitted part).

    Raises
    ------
    ParameterError
        ``part.fit`` takes no ``context=`` keyword.

    Examples
    --------
    >>> from dpconvex import PrivateLogisticRegression
    >>> from dpconvex.estimators.base import NO_CONTEXT, fit_part
    >>> part = PrivateLogisticRegression(classes=[-1, 1], random_state=0)
    >>> fit_part(part, X, y, NO_CONTEXT.inner(None)).certificate_.private
    True
    """
    params = inspect.signature(part.fit).parameters
    if "context" not in params and all(p.kind is not p.VAR_KEYWORD for p in params.values()):
        raise ParameterError(
            f"{type(part).__name__}.fit: it takes no context=, and a dpconvex meta-estimator "
            "hands each learner it fits the context of its part. Give its fit the keyword "
            "(def fit(self, X, y, *, context=NO_CONTEXT)) and pass it on to "
            "PrivateEstimator.fit.")
    with issued(context):
        return part.fit(X, y, context=context)


def certify_part(part: PrivateEstimator, X: Any, y: Any, context: FitContext) -> Any:
    """The certificate of ``part`` (a meta-estimator's learner) through its public ``certify``
    on (X, y) inside ``context``, issued to ``certify`` for this call only: what
    :func:`fit_part` fits, certified without training (the caller states its rows' source).

    Parameters
    ----------
    part : PrivateEstimator
        The learner to certify.
    X, y : array-like
        The rows and labels a fit of the part would read.
    context : FitContext
        The context of the part, made by the calling fit.

    Returns
    -------
    Certificate
        What ``part.certify(X, y, context=context)`` returns.

    Examples
    --------
    >>> from dpconvex import PrivateLogisticRegression
    >>> from dpconvex.estimators.base import NO_CONTEXT, certify_part
    >>> part = PrivateLogisticRegression(classes=[-1, 1])
    >>> certify_part(part, X, y, NO_CONTEXT.inner(None)).private
    True
    """
    with issued(context):
        return part.certify(X, y, context=context)


def check_context(context: FitContext, caller: str) -> FitContext:
    """``context`` where it is :data:`NO_CONTEXT` or one issued to this call by the fit that
    made it (:func:`issued`); else :class:`PrivacyError`, before anything is read or held.
    ``caller``: the public call (``fit``, ``prepare`` or ``fit_prepared``).

    Parameters
    ----------
    context : FitContext
        The context handed to the call.
    caller : str
        The call, named in the refusal (e.g. ``"PrivateLogisticRegression.fit"``).

    Returns
    -------
    FitContext
        ``context`` itself.

    Raises
    ------
    PrivacyError
        ``context`` is neither :data:`NO_CONTEXT` nor issued (one made by the caller).

    Examples
    --------
    >>> from dpconvex.estimators.base import NO_CONTEXT, FitContext, check_context, issued
    >>> check_context(NO_CONTEXT, "Demo.fit") is NO_CONTEXT
    True
    >>> context = NO_CONTEXT.inner(None)
    >>> with issued(context):
    ...     check_context(context, "Demo.fit") is context
    True
    >>> check_context(FitContext(held=True), "Demo.fit")
    Traceback (most recent call last):
    ...
    dpconvex.errors.PrivacyError: Demo.fit: context= takes only the context ...
    """
    if context is not NO_CONTEXT and _ISSUED.get(id(context)) is not context:
        raise PrivacyError(
            f"{caller}: context= takes only the context a dpconvex fit hands its own steps or "
            "its part while it holds their budget; this one was not issued by such a fit (one "
            "made by the caller could skip the data's checks, the δ check or rows). "
            f"Call {caller} without context=."
        )
    return context


def refuse_fit_params(caller: str, fit_params: Mapping[str, Any]) -> None:
    """ParameterError naming any keyword a private ``fit`` was given besides X and y."""
    if fit_params:
        weights = (f"{NO_SAMPLE_WEIGHTS}. Fit without sample_weight."
                   if "sample_weight" in fit_params else
                   "Set the estimator's options as its parameters (set_params).")
        raise ParameterError(
            f"{caller}: got {sorted(fit_params)!r}; it takes X and y only. {weights}"
        )


def fit_with(estimator: Any, X: Any, y: Any, context: FitContext,
             noise: Iterable[tuple[Any, NoiseSource]] | Mapping[int, NoiseSource] = (), *,
             caller: str = "fit_with", vouch: Iterable[str] | str | None = None) -> Any:
    """Fit ``estimator`` on (X, y) inside ``context``: the fit of a meta-estimator's part.

    A private fit, or any fit that declares ``context=`` (a search, a
    :class:`~dpconvex.PublicEncoder`, random features), takes the context through
    :func:`fit_part`; ``noise`` names the noise source of each
    object that draws (the estimator itself, or steps of a
    :class:`~sklearn.pipeline.Pipeline`, whose steps are then fitted in turn, each with
    its own source); any other estimator is fitted with ``fit(X, y)``. Returns the fitted estimator.

    Parameters
    ----------
    estimator : estimator
        The part to fit.
    X, y : array-like
        Its rows and labels.
    context : FitContext
        The context of the part.
    noise : iterable of (object, NoiseSource) or mapping of int to NoiseSource, default=()
        The noise source of each object that draws (a mapping: by ``id``).
    caller : str, default="fit_with"
        The public call, named in a refusal.
    vouch : str, iterable of str or None, default=None
        The caller's ``vouch=`` where its guarantee covers the rows it hands over (a search):
        a pipeline step outside dpconvex (:class:`~dpconvex.privacy.certificate.UncheckedSteps`)
        is then a declared, not verified condition, refused unless it names
        ``"preprocessing"``, and stated vouched among the model's conditions; and a learner
        (the estimator, or a pipeline's last step) standing in for a fit dpconvex ships (a
        class of the user's derived from it) is refused (:func:`refuse_users_learner`).
        None: the guarantee is the model's, on the rows its pipeline gives it (a run, an
        audit, as a pipeline scikit-learn fits); the steps are stated unchecked.

    Returns
    -------
    estimator
        The fitted estimator.

    Raises
    ------
    PrivacyError
        A pipeline step outside dpconvex that learns from its rows (scikit-learn's
        ``requires_fit`` tag): what it learns would be released beside the model, outside
        the guarantee; with ``vouch`` given, any step outside dpconvex unless it names
        ``"preprocessing"``, and a learner of the user's derived from a fit dpconvex ships
        (:func:`refuse_users_learner`). Decided from the pipeline's steps,
        before they are fitted (``caller``: the public call).

    Examples
    --------
    >>> from sklearn.preprocessing import StandardScaler
    >>> from dpconvex import PrivateLogisticRegression
    >>> from dpconvex.estimators.base import NO_CONTEXT, fit_with
    >>> part = PrivateLogisticRegression(classes=[-1, 1], random_state=0)
    >>> fit_with(part, X, y, NO_CONTEXT).coef_.shape  # through fit_part
    (1, 3)
    >>> fit_with(StandardScaler(), X, None, NO_CONTEXT).mean_.shape  # fit(X, y)
    (3,)
    """
    given = noise if isinstance(noise, Mapping) else {id(owner): source for owner, source in noise}
    if vouch is not None:  # the caller's certificate composes what this fit releases
        refuse_users_learner(estimator, caller)
    if _takes_context(estimator):
        return state_rows_source(
            fit_part(estimator, X, y, context.inner(given.get(id(estimator)))), X
        )
    outside = _check_steps(estimator, caller) if isinstance(estimator, Pipeline) else []
    _refuse_unvouched(outside, vouch, caller)
    if isinstance(estimator, Pipeline) and any(_takes_context(step) or isinstance(step, Pipeline)
                                               for _, step in estimator.steps):
        if outside:
            context.every_row(type(estimator).__name__)
        estimator.steps = list(estimator.steps)
        estimator._validate_steps()
        rows = X
        for _, step in estimator.steps[:-1]:
            if step is None or step == "passthrough":
                continue
            if _shipped_step(step) or isinstance(step, Pipeline):  # its steps checked above
                rows = fit_with(step, rows, y, context, given, caller=caller).transform(rows)
            else:  # every row: refused under a mask above; a record near the float range
                with np.errstate(all="ignore"):  # switches no warning of numpy's
                    rows = step.fit_transform(rows, y)
        final = estimator.steps[-1][1]
        if final is not None and final != "passthrough":
            fit_with(final, rows, y, context, given, caller=caller)
            # the user's, unverified: vouched for where the caller's guarantee covers them
            if outside and getattr(final, "certificate_", None) is not None:
                line = UncheckedSteps(tuple(outside), vouched=vouch is not None)
                final.certificate_.state(line)
                if line.vouched:
                    final.certificate_.conditions.append(line.condition())
        return estimator
    context.every_row(type(estimator).__name__)  # a fit outside dpconvex reads every row
    return estimator.fit(X, y)


def not_public_source(estimator: Any, X: Any = None) -> str | None:
    """:data:`~dpconvex.data.ranged_rows.SUGGESTED_SOURCE` where a fit's encoding or per-feature
    ranges come from a schema read from the data (``suggested=True``: ``draft_schema`` without ε):
    carried by its rows, or the ``schema`` or ``feature_range`` of the estimator, of a step of its
    pipeline or of the estimator a search tunes; else None.

    Parameters
    ----------
    estimator : estimator
        The estimator (a pipeline, a search or a learner).
    X : array-like or None, default=None
        The rows (a :class:`~dpconvex.data.RangedRows` carries its source).

    Returns
    -------
    str or None

    Examples
    --------
    >>> from dpconvex import PrivateLogisticRegression
    >>> from dpconvex.estimators.base import not_public_source
    >>> not_public_source(PrivateLogisticRegression(), X) is None
    True
    """
    if isinstance(X, RangedRows) and X.source == SUGGESTED_SOURCE:
        return SUGGESTED_SOURCE
    for part in _source_parts(estimator):
        if part is not None and (
            getattr(part, "suggested", False) is True or not_public_source(part) is not None
        ):
            return SUGGESTED_SOURCE
    return None


def _source_parts(estimator: Any) -> list[Any]:
    """What may carry a schema read from the data (None: not given): the steps of a pipeline;
    else the estimator's ``schema``, its ``feature_range`` and the ``estimator`` a search
    tunes."""
    if isinstance(estimator, Pipeline):
        return [step for _, step in estimator.steps]
    return [getattr(estimator, name, None) for name in ("schema", "feature_range", "estimator")]


@contextlib.contextmanager
def charge_not_public(accountant: Any, owner: str) -> Iterator[None]:
    """A fit of ``owner`` (the public call) on a schema read from the data
    (:func:`not_public_source`) is not private: a ledger of finite budget refuses it before the data
    are read (BudgetError), one without a limit records ε = ∞; no ledger, nothing.

    Parameters
    ----------
    accountant : BudgetAccountant or None
        The fit's ledger.
    owner : str
        The public call, labelling the charge.

    Yields
    ------
    None

    Raises
    ------
    BudgetError
        A ledger of finite budget (ε = ∞ does not fit).

    Examples
    --------
    >>> import math
    >>> from dpconvex import BudgetAccountant
    >>> from dpconvex.estimators.base import charge_not_public
    >>> ledger = BudgetAccountant(epsilon=math.inf)
    >>> with charge_not_public(ledger, "Demo.fit"):
    ...     pass
    >>> ledger.spent
    (inf, 0.0)
    """
    if accountant is None:
        yield
        return
    with reserve_budget(
        accountant, math.inf, 0.0, f"{owner} on a schema read from the data"
    ) as held:
        yield
        held.commit(math.inf, 0.0)


def hold_plan(estimator: Any, plan: FitPlan, context: FitContext
              ) -> AbstractContextManager[CertificateHold]:
    """The hold of a private fit: ``plan.budget`` on ``estimator``'s ledger (its
    ``accountant``, where it has one), δ checked against 1/n unless the fit runs inside the
    hold of the fit that holds it (``context.held``: that one checks the whole δ).

    Parameters
    ----------
    estimator : PrivateEstimator
        The estimator whose fit holds the budget (its class names the hold).
    plan : FitPlan
        The fit's plan (its ``budget`` and ``n``).
    context : FitContext
        The fit's context.

    Returns
    -------
    context manager of CertificateHold
        :func:`~dpconvex.privacy.budget.hold_budget` of the plan's budget.

    Raises
    ------
    BudgetError
        The ledger cannot hold the plan's budget.

    Examples
    --------
    >>> from dpconvex import BudgetAccountant, PrivateLogisticRegression
    >>> from dpconvex.estimators.base import NO_CONTEXT, hold_plan
    >>> est = PrivateLogisticRegression(classes=[-1, 1], accountant=BudgetAccountant(2.0))
    >>> with hold_plan(est, est.plan(40, 2, 3), NO_CONTEXT) as hold:
    ...     est.accountant.remaining  # the plan's (1.0, 0.0) held
    (1.0, 0.0)
    """
    return hold_budget(getattr(estimator, "accountant", None), plan.budget,
                       type(estimator).__name__, n=None if context.held else plan.n)


def carry_ledger(fitted: Any, ledger: Any) -> Any:
    """``fitted`` with ``ledger`` as the ``accountant`` of the released models it holds: its
    ``estimator_`` or ``best_estimator_``, their Pipeline steps, and the models these hold.

    Such a model was fitted charging no ledger (the fit that holds it held the budget); a refit of
    it is a new release and charges ``ledger``, as fit does. Returns ``fitted``.

    Parameters
    ----------
    fitted : estimator
        A fitted meta-estimator (a front door, a search).
    ledger : BudgetAccountant or None
        The ledger its released models charge on a refit.

    Returns
    -------
    estimator
        ``fitted`` itself.

    Examples
    --------
    >>> from dpconvex import BudgetAccountant, PrivateClassifier
    >>> ledger = BudgetAccountant(epsilon=2.0)
    >>> front = PrivateClassifier(classes=[-1, 1], safeguard=False, random_state=0,
    ...                           accountant=ledger).fit(X, y)
    >>> front.estimator_.accountant is ledger
    True
    """
    for name in ("estimator_", "best_estimator_"):
        model = getattr(fitted, name, None)
        for part in (
            model,
            *(step for _, step in (model.steps if isinstance(model, Pipeline) else ())),
        ):
            if hasattr(part, "get_params") and "accountant" in part.get_params(deep=False):
                part.accountant = ledger
            if part is not None:
                carry_ledger(part, ledger)
    return fitted


def state_rows_source(fitted: Any, X: Any, estimator: Any = None, *, draft: bool = False) -> Any:
    """``fitted`` (a certificate, or an estimator with ``certificate_``) stating where its rows'
    encoding came from where that is not public knowledge (``X.source`` of a drafted or released
    schema's :class:`~dpconvex.data.RangedRows`); where it is a schema read from the data
    (``draft``, or :func:`not_public_source` of ``estimator``, by default ``fitted``), the
    certificate is that of a release that is not private (ε = ∞), as for any step its certificate
    marks NOT private.

    Parameters
    ----------
    fitted : Certificate or estimator
        A certificate, or a fitted estimator with ``certificate_``.
    X : array-like or None
        The rows of the fit.
    estimator : estimator or None, default=None
        Whose sources :func:`not_public_source` reads (None: ``fitted``).
    draft : bool, default=False
        The rows' encoding is a schema read from the data.

    Returns
    -------
    Certificate or estimator
        ``fitted``, its certificate stating the source (composed as not private where the
        source is a schema read from the data).

    Examples
    --------
    >>> from dpconvex import PrivateLogisticRegression
    >>> from dpconvex.estimators.base import state_rows_source
    >>> est = PrivateLogisticRegression(classes=[-1, 1], random_state=0).fit(X, y)
    >>> state_rows_source(est, X) is est, est.certificate_.private
    (True, True)
    """
    certificate = fitted if hasattr(fitted, "state") else getattr(fitted, "certificate_", None)
    if certificate is None:
        return fitted
    if isinstance(X, RangedRows) and X.source is not None:
        certificate.state(X.source)
    source = (
        SUGGESTED_SOURCE
        if draft
        else not_public_source(fitted if estimator is None else estimator, X)
    )
    if source is None or not certificate.private:
        return fitted
    marked = compose_sequential(
        [certificate], mechanism=f"{certificate.mechanism}, on a schema read from the data",
        epsilon_requested=certificate.epsilon_requested, private=False,
        assumptions=[certificate.label_source, certificate.lam_rule, source], labels=["model"])
    if certificate is fitted:
        return marked
    fitted.certificate_ = marked
    return fitted


def fitted_attributes(estimator: Any) -> dict[str, Any]:
    """The fitted attributes ``estimator`` holds: its public attributes whose names end in "_"
    (scikit-learn's convention; parameters never do).

    Examples
    --------
    >>> from dpconvex import PrivateLogisticRegression
    >>> est = PrivateLogisticRegression(classes=[-1, 1], random_state=0)
    >>> fitted_attributes(est)
    {}
    >>> sorted(fitted_attributes(est.fit(X, y)))[:3]
    ['certificate_', 'classes_', 'coef_']
    """
    return {key: value for key, value in vars(estimator).items()
            if key.endswith("_") and not key.startswith("_")}


@contextlib.contextmanager
def fresh_fit(estimator: Any) -> Iterator[None]:
    """A fit of ``estimator`` that starts from no fitted state: the attributes of an earlier
    fit (:func:`fitted_attributes`: another release, maybe on other data) are removed before it
    runs, so none survives beside the new model outside its certificate; a fit refused on the
    way leaves the earlier model as it was (and nothing of its own).

    Examples
    --------
    >>> from dpconvex import PrivateLogisticRegression
    >>> est = PrivateLogisticRegression(classes=[-1, 1], random_state=0).fit(X, y)
    >>> est.stale_ = "of an earlier fit"
    >>> with fresh_fit(est):
    ...     hasattr(est, "stale_"), hasattr(est, "coef_")
    (False, False)
    """
    earlier = fitted_attributes(estimator)
    for key in earlier:
        delattr(estimator, key)
    try:
        yield
    except BaseException:
        for key in fitted_attributes(estimator):
            delattr(estimator, key)
        vars(estimator).update(earlier)
        raise


def _takes_context(estimator: Any) -> bool:
    """Whether a meta-estimator hands ``estimator`` its part's context (:func:`fit_part`): a
    private fit (the learner, whose certificate the meta-estimator reads), or a step dpconvex
    ships (:func:`_shipped_step`). A private fit that dropped the keyword is refused by
    :func:`fit_part`."""
    if _replaced_methods(estimator):
        return False
    return isinstance(estimator, PrivateEstimator) or _shipped_step(estimator)


def _shipped_step(estimator: Any) -> bool:
    """Whether ``estimator`` is a step whose fit dpconvex trusts with its part's context: an
    instance of the exact class dpconvex ships (a private estimator, a search, a
    :class:`~dpconvex.PublicEncoder`, random features) whose ``fit`` declares ``context=``,
    with nothing set on the instance in place of a method. A fit of the user's that declares
    ``context=`` is not: what it learns from the rows is nobody's check."""
    cls = type(estimator)
    fit = getattr(cls, "fit", None)
    return (is_dpconvex_class(cls) and not _replaced_methods(estimator) and callable(fit)
            and "context" in inspect.signature(fit).parameters)


def _replaced_methods(estimator: Any) -> bool:
    """Whether the instance holds, under a name its class defines as a method or property,
    a value of its own (``est.fit = ...``): its class no longer says what it does."""
    own = getattr(estimator, "__dict__", None)
    if not isinstance(own, dict):
        return False
    cls = type(estimator)
    for key in own:
        attr = inspect.getattr_static(cls, key, None)
        if isinstance(attr, (property, staticmethod, classmethod)) or inspect.isfunction(attr):
            return True
    return False


def refuse_users_learner(estimator: Any, caller: str) -> None:
    """PrivacyError where ``estimator``, or the last step of it (a
    :class:`~sklearn.pipeline.Pipeline`: its learner), stands in for a fit dpconvex ships
    without being it as shipped: an instance of a class of the user's derived from it, or of
    the shipped class with a method or property set on the instance. (The other steps are
    checked as steps: :func:`_check_steps`.)

    What a caller whose guarantee covers its part (a search: its certificate composes each
    candidate's) asks of the learner it fits: that learner's fit, not its certificate, is what
    releases, and a fit of the user's may keep a row, release twice or replace the noised
    model, under a certificate that dpconvex's own fit wrote. Fitted directly, such a class
    is the user's own: its certificate covers the shipped fit it calls, no more.

    Parameters
    ----------
    estimator : estimator
        The learner (or pipeline) a search is about to fit.
    caller : str
        The public call, named in the refusal (e.g. ``"PrivateGridSearch.fit"``).

    Raises
    ------
    PrivacyError
        ``estimator`` or its last step is such an instance, named with the shipped class.

    Examples
    --------
    >>> from dpconvex import PrivateLogisticRegression
    >>> from dpconvex.estimators.base import refuse_users_learner
    >>> refuse_users_learner(PrivateLogisticRegression(), "Demo.fit")  # shipped: nothing
    >>> class Mine(PrivateLogisticRegression):
    ...     pass
    >>> refuse_users_learner(Mine(), "Demo.fit")
    Traceback (most recent call last):
    ...
    dpconvex.errors.PrivacyError: Demo.fit: the learner Mine is a class of the user's ...
    """
    named = f"the learner {type(estimator).__name__}"
    steps = estimator.steps if isinstance(estimator, Pipeline) else None
    if isinstance(steps, list) and steps and isinstance(steps[-1], tuple) and len(steps[-1]) == 2:
        key, estimator = steps[-1]  # (steps of another form: refused by the pipeline's fit)
        named = f"the pipeline's learner {key!r} ({type(estimator).__name__})"
    shipped = _shipped_base(estimator)
    if shipped is None or _shipped_step(estimator):
        return
    base = shipped.__name__
    what = (f"an instance of {base} with a method or property set on the instance"
            if type(estimator) is shipped else
            f"a class of the user's derived from dpconvex's {base}")
    owner = caller.partition(".")[0]
    raise PrivacyError(
        f"{caller}: {named} is {what}, and the certificate of {owner} takes each fit it makes "
        f"to release what the shipped {base}.fit releases, once, which nobody checked of this "
        "one (a fit of the user's may keep a row, release twice or replace the noised model). "
        f"Use {base} as dpconvex ships it (options set with set_params, no method set on the "
        "instance); fit a class of your own directly, where its certificate covers the "
        "shipped fit it calls and what it adds is yours to account for."
    )


def state_users_class(fitted: Any) -> Any:
    """``fitted``, its certificate stating, where its class is not the one dpconvex ships as
    shipped (a class of the user's derived from it, or a method or property set on the
    instance), that its own methods are not checked: the guarantee is that of the shipped fit
    it called; what the user's methods add (a value read from the data kept on the model,
    another release, a replaced model) is nobody's check. A shipped class states nothing.

    Parameters
    ----------
    fitted : estimator
        A fitted estimator (one without ``certificate_`` is returned as it is).

    Returns
    -------
    estimator
        ``fitted`` itself.

    Examples
    --------
    >>> from dpconvex import PrivateLogisticRegression
    >>> from dpconvex.estimators.base import state_users_class
    >>> class Mine(PrivateLogisticRegression):
    ...     pass
    >>> est = Mine(classes=[-1, 1], random_state=0).fit(X, y)  # PrivateEstimator.fit states it
    >>> [line for line in est.certificate_.assumptions if line.startswith("the estimator is")]
    ["the estimator is Mine, a class of the user's derived from dpconvex's ..."]
    """
    certificate = getattr(fitted, "certificate_", None)
    shipped = _shipped_base(fitted)
    if certificate is None or shipped is None or _shipped_step(fitted):
        return fitted
    name, base = type(fitted).__name__, shipped.__name__
    what = (f"{base} with a method or property set on the instance" if type(fitted) is shipped
            else f"{name}, a class of the user's derived from dpconvex's {base}")
    certificate.state(
        f"the estimator is {what}: this certificate is that of {base}.fit as dpconvex ships it, "
        "which its fit called; what its own methods do (keep a value read from the data on the "
        "model, release again, replace the released model) is not checked"
    )
    return fitted


def _shipped_base(estimator: Any) -> type | None:
    """The first class in the MRO of ``estimator``'s class that dpconvex ships with a ``fit``
    declaring ``context=`` (a fit whose certificate a meta-estimator reads); None: none."""
    for cls in type(estimator).__mro__:
        fit = getattr(cls, "fit", None)
        if (is_dpconvex_class(cls) and callable(fit)
                and "context" in inspect.signature(fit).parameters):
            return cls
    return None


def _check_steps(pipeline: Pipeline, caller: str, learner: bool = True) -> list[tuple[str, str]]:
    """Refuse a pipeline (nested ones included) that scikit-learn would fit by its cache, or with
    a step outside dpconvex that learns from its rows (its ``requires_fit`` tag); the others
    outside dpconvex, each as (its name, its class's name) for the certificate. A step is
    dpconvex's where :func:`_shipped_step` says so (a fit of the user's that declares
    ``context=`` is not); the last step of the outermost pipeline (``learner``) also where it
    is a private estimator (the learner whose certificate is read)."""
    outside: list[tuple[str, str]] = []
    if pipeline.memory is not None:
        raise PrivacyError(f"{caller}: a pipeline with memory= is fitted through scikit-learn's "
                           "cache, outside the private fit (its noise source and row checks). "
                           "Pass memory=None.")
    last = len(pipeline.steps) - 1
    for index, (name, step) in enumerate(pipeline.steps):
        trusted = (_takes_context(step) if learner and index == last else _shipped_step(step))
        if isinstance(step, Pipeline):
            outside += _check_steps(step, caller, learner=False)
        elif not (step is None or step == "passthrough" or trusted):
            if get_tags(step).requires_fit:
                raise PrivacyError(
                    f"{caller}: the pipeline step {name!r} ({type(step).__name__}) is fitted on "
                    "the rows "
                    "(scikit-learn's requires_fit tag): what it learns (a scaler's mean_) would "
                    "be released "
                    "with the model, outside the guarantee. Use a step that reads no statistic: "
                    "PublicEncoder with a public schema, RandomFourierFeatures, or a stateless "
                    "map."
                )
            outside.append((name, type(step).__name__))
    return outside


def _refuse_unvouched(outside: list[tuple[str, str]], vouch: Iterable[str] | str | None,
                      caller: str) -> None:
    """PrivacyError where ``outside`` (steps outside dpconvex, :func:`_check_steps`) are to be
    fitted under the caller's guarantee (``vouch`` not None) and the caller did not vouch for
    :data:`~dpconvex.privacy.certificate.PREPROCESSING`."""
    if not outside or vouch is None or PREPROCESSING in vouch_names(vouch):
        return
    owner = caller.partition(".")[0]
    raise PrivacyError(
        f"{caller}: the pipeline step(s) {UncheckedSteps(tuple(outside)).named()} are outside "
        "dpconvex, and the guarantee takes each to map each record by itself alone, which "
        "nobody verified (a function that reads the whole X, its maximum say, lets one record "
        "move every row). Use dpconvex's public maps (PublicEncoder with a public schema, "
        "RandomFourierFeatures), or, if you have checked the steps yourself, pass "
        f"vouch=({PREPROCESSING!r},) to {owner} and the certificate will say that you vouched "
        "for them."
    )


@runtime_checkable
class CertificateHold(Protocol):
    """The budget a fit holds while it releases
    (:func:`~dpconvex.privacy.budget.hold_budget`).

    A :class:`~dpconvex.privacy.budget.Reservation`, or the
    :class:`~dpconvex.privacy.budget.Hold` that adds the fit's public certificate
    line before committing; the release commits its certificate's (ε, δ) to it once.

    Examples
    --------
    >>> from dpconvex import BudgetAccountant
    >>> from dpconvex.privacy.budget import reserve_budget
    >>> from dpconvex.estimators.base import CertificateHold
    >>> with reserve_budget(BudgetAccountant(epsilon=1.0), 0.5, label="model") as hold:
    ...     isinstance(hold, CertificateHold)
    True
    """

    def commit_certificate(self, certificate: Certificate) -> Spend | None:
        """Charge the certificate's (ε, δ) to the ledger the budget was held on.

        Parameters
        ----------
        certificate : Certificate
            The release's certificate.

        Returns
        -------
        Spend or None
            The recorded spend (None: no ledger).

        Examples
        --------
        >>> from dpconvex import BudgetAccountant
        >>> from dpconvex.privacy.budget import reserve_budget
        >>> from dpconvex.privacy.certificate import Certificate
        >>> with reserve_budget(BudgetAccountant(epsilon=1.0), 0.5, label="model") as hold:
        ...     hold.commit_certificate(Certificate("m", 0.5, 0.5)).epsilon
        0.5
        """
        ...


FactsT = TypeVar("FactsT")


@dataclass
class Prepared(Generic[FactsT]):
    """What a fit builds before it spends any budget: the template, the labels it was built on
    and what the learner carries from its preparation.

    ``template`` is the declarative problem on validated, clipped data (None for a learner with
    a closed form built at release). ``labels`` is the classifier's label set as the fit
    validated and encoded it before its plan (:attr:`CheckedData.labels`: its ``classes`` the
    model's ``classes_``, its ``assumption`` the certificate's ``label_source``); None for a
    regressor and for the public problem alone. The shape of the problem is the plan's
    (``plan.n_features``). ``meta`` holds what a learner's release needs besides these, a
    frozen record of its own (the large-margin learners' rows and component assignment, noisy
    gradient descent's backend notes); None for the other learners. ``reusable`` is False when
    building it drew on the budget or on randomness that belongs to one fit (e.g. DP k-means
    component assignment), so a sweep must rebuild it per fit. ``noise`` is the generator such
    a build drew from when no caller handed one (``prepare`` called on its own):
    :meth:`PrivateEstimator.fit_prepared` draws the release from it, so the fit's steps share
    one stream, as in ``fit``, rather than a second generator of the same ``random_state``
    replaying the first's draws (docs/privacy/accuracy_randomness.md#privacy-accuracy-randomness).
    It is never stored on a model. ``plan`` (read-only) is the plan it was made for, bound by
    the ``prepare`` that built it and by nothing else: no argument of the constructor or of
    :func:`dataclasses.replace` sets it, so a Prepared made or copied by hand records none.
    :meth:`PrivateEstimator.fit_prepared` releases it with that plan only, or, where it is
    ``reusable``, with a plan that differs from it in what ε sets alone
    (:func:`prepared_plan_differences`), and refuses one that records no plan.

    Parameters
    ----------
    template : Template or None
        The problem on validated, clipped rows.
    labels : LabelSet or None, default=None
        The classifier's encoded label set.
    meta : object or None, default=None
        The learner's own frozen record.
    reusable : bool, default=True
        Whether another fit may reuse it.
    noise : NoiseSource or None, default=None
        The generator its build drew from.

    Examples
    --------
    >>> from dpconvex import PrivateLogisticRegression
    >>> est = PrivateLogisticRegression(epsilon=1.0, classes=[-1, 1])
    >>> plan = est.plan_for(X, y)
    >>> prep = est.prepare(X, y, plan)
    >>> plan.n_features, prep.labels.classes.tolist()
    (3, [-1, 1])
    >>> est.fit_prepared(prep, plan).classes_.tolist()
    [-1, 1]
    """

    template: Template | None
    labels: LabelSet | None = None
    meta: FactsT | None = None
    reusable: bool = True
    noise: NoiseSource | None = None
    # bound by _bind_plan alone (every prepare calls it): not an argument of __init__/replace
    _plan: FitPlan | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def plan(self) -> FitPlan | None:
        """The plan the ``prepare`` that built it was made for; None for a Prepared made (or
        copied with :func:`dataclasses.replace`) by hand, which
        :meth:`PrivateEstimator.fit_prepared` refuses."""
        return self._plan


def _bind_plan(prep: Prepared[FactsT], plan: FitPlan) -> Prepared[FactsT]:
    """``prep``, bound to the ``plan`` its ``prepare`` made it for (the one setter of
    :attr:`Prepared.plan`, called by every ``prepare``); a Prepared binds once.

    Parameters
    ----------
    prep : Prepared
        What ``prepare`` built on ``plan``, not yet bound.
    plan : FitPlan
        The plan it was made for.

    Returns
    -------
    Prepared
        ``prep`` itself.

    Raises
    ------
    ParameterError
        ``prep`` is bound to another plan already.

    Examples
    --------
    >>> from dpconvex import PrivateLogisticRegression
    >>> plan = PrivateLogisticRegression(classes=[-1, 1]).plan(40, 2, 3)
    >>> _bind_plan(Prepared(template=None), plan).plan is plan
    True
    """
    if prep._plan is not None and prep._plan is not plan:
        owner = plan.estimator
        raise ParameterError(
            f"{owner}.prepare: the preparation is bound to the plan it was made for "
            "already. Make another with prepare(X, y, plan) for this plan.")
    prep._plan = plan
    return prep


class ClassifierScoreMixin(ClassifierMixin):
    """The classifiers' mixin: scikit-learn's ``ClassifierMixin`` (tags, ``is_classifier``) with
    a ``score`` that validates its labels like ``fit`` does (named errors, no silent mistakes).

    Labels never seen in ``fit`` raise :class:`DataValidationError` instead of being counted as mistakes.

    Examples
    --------
    >>> from dpconvex import PrivateLogisticRegression
    >>> from dpconvex.estimators.base import ClassifierScoreMixin
    >>> est = PrivateLogisticRegression(classes=[-1, 1], random_state=0).fit(X, y)
    >>> isinstance(est, ClassifierScoreMixin), 0.0 <= est.score(X, y) <= 1.0
    (True, True)
    """

    @checks_feature_names
    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Mean accuracy on (X, y), weighted by ``sample_weight`` (finite, >= 0, not all 0).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows.
        y : array-like of shape (n_samples,)
            The true labels, each one of ``classes_``.
        sample_weight : array-like of shape (n_samples,) or None, default=None
            The rows' weights.

        Returns
        -------
        float
            The (weighted) share of rows predicted right.

        Raises
        ------
        DataValidationError
            y holds a label unseen in ``fit``, or the rows or weights fail their checks.

        Examples
        --------
        >>> from dpconvex import PrivateLogisticRegression
        >>> est = PrivateLogisticRegression(classes=[-1, 1], random_state=0).fit(X, y)
        >>> 0.0 <= est.score(X, y) <= 1.0
        True
        """
        owner = type(self).__name__
        check_fitted(self, "classes_")
        # Dask rows pass here; predict() refuses them where the estimator has no Dask backend
        rows = check_array(
            X,
            f"{owner}.score",
            accept_sparse=self.__sklearn_tags__().input_tags.sparse,
            accept_dask=True,
        )
        labels, weights = self._score_labels(y, rows.shape[0], sample_weight)
        with signed_by(self, f"{owner}.score"):  # the names checked above, once
            predicted = unchecked(self.predict)(rows)
        return float(np.average(predicted == labels, weights=weights))

    @checks_feature_names
    def predict_log_proba(self, X: Any) -> np.ndarray:
        """log P(c | x), computed in log space (no row underflows to −inf); its argmax is
        ``predict``'s.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)

        Examples
        --------
        >>> from dpconvex import PrivateLogisticRegression
        >>> est = PrivateLogisticRegression(classes=[-1, 1], random_state=0).fit(X, y)
        >>> est.predict_log_proba(X).shape
        (40, 2)
        """
        return self._log_proba(X, "predict_log_proba")

    def _log_proba(self, X: Any, method: str) -> np.ndarray:  # the log-softmax of the class scores
        scores = self._scores(X, method)  # type: ignore[attr-defined]
        # shifted by the row's maximum first
        return keep_argmax(log_softmax(scores, axis=1), scores)

    def _score_labels(
        self, y: Any, n: int, sample_weight: Any
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """The labels and weights of ``score`` on n rows, checked as ``fit`` checks labels."""
        owner = type(self).__name__
        labels = check_labels(computed(y), n, f"{owner}.score")
        known = np.array([any(label == known_class for known_class in self.classes_)
                          for label in labels.tolist()]) \
            if labels.dtype.kind == "O" or self.classes_.dtype.kind != labels.dtype.kind else \
            np.isin(labels, self.classes_)
        if not np.all(known):
            unseen = sorted({repr(label) for label in labels[~known].tolist()})[:5]
            raise DataValidationError(
                f"{owner}.score: y has labels unseen in fit ({', '.join(unseen)}); the model "
                f"knows {self.classes_.tolist()!r}. Map the labels to those classes."
            )
        return labels, None if sample_weight is None else check_sample_weight(
            sample_weight, len(labels), f"{owner}.score")


def keep_argmax(proba: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """``proba`` (class probabilities or scores from ``scores``, higher wins) with each row's argmax
    that of its scores: where rounding tied them, the top one becomes the next float above.

    Parameters
    ----------
    proba : ndarray of shape (n_samples, n_classes)
        The probabilities (changed in place).
    scores : ndarray of shape (n_samples, n_classes)
        The scores they come from.

    Returns
    -------
    ndarray
        ``proba`` itself.

    Examples
    --------
    >>> from dpconvex.estimators.base import keep_argmax
    >>> bool(keep_argmax(np.array([[0.5, 0.5]]), np.array([[0.0, 1e-17]]))[0, 1] > 0.5)
    True
    """
    rows, top = np.arange(len(scores)), np.argmax(scores, axis=1)
    # the top left out
    others = np.where(np.arange(proba.shape[1]) == top[:, None], -np.inf, proba)
    lost = np.argmax(proba, axis=1) != top
    proba[rows[lost], top[lost]] = np.nextafter(others[lost].max(axis=1), np.inf)
    return proba


def _show(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    return repr(value) if isinstance(value, str) else str(value)


@dataclass(frozen=True, eq=False)
class FitPlan:
    """What a fit will do, from the parameters and the public shape of the data only.

    A frozen record of public facts, made by :meth:`PrivateEstimator.plan` before any data
    are read; equal to what the fitted model's certificate reports.

    Attributes
    ----------
    estimator : str
        The estimator's class name.
    n, n_classes, n_features : int
        The public shape of the data: rows, size of the label set, columns of X.
    template : str
        The kind of template the fit builds ("linear ERM", "large-margin softmax", ...).
    options : mapping
        The template's options, every "auto" resolved (read-only).
    mechanism : Mechanism
        The resolved mechanism object (for one-vs-rest: the binary models' one).
    budget : Budget
        The (ε, δ) the fit holds on the ledger and its certificate states.
    parts : mapping of str to Budget
        Its shares (one-vs-rest: per class; DP k-means and the objective; read-only).
    lam : float or None
        Λ of the regularizer (None where the learner has none).
    lam_rule : str
        How Λ was chosen ("given", or the public rule and its reason).
    backend : str
        The solver (or closed form) the release uses, "auto" resolved.
    learner : str
        The learner ("linear ERM", "noisy gradient descent", "softmax", ...).
    notes : tuple of str or typed facts
        The certificate notes the plan determines (:meth:`~dpconvex.Certificate.states` holds for each).
    sub_plans : tuple of FitPlan
        One-vs-rest: the plans of the C binary models.
    loss : Loss or None
        The loss the template states, its kinks smoothed at the plan's h (the linear
        models; None where the learner states none here).
    vouch : tuple of str
        The declared constants the caller vouches for (``vouch=``; none unless a user's
        loss needs it, docs/privacy/user_objectives.md#privacy-user-objectives).
    reads_epsilon : bool
        Whether a choice of the plan reads ε (Λ or a kink's half-width h by its public
        rule): the problem prepared with it serves no fit at another ε
        (:attr:`Prepared.reusable`).
    chosen : Any
        A front door's choice, which its fit follows: its rule's output on this public shape
        and its learner's own plan (:class:`~dpconvex.estimators.front_door.ChosenClassifier`,
        :class:`~dpconvex.estimators.front_door.ChosenLearner`); None for a learner.
    params : tuple of (str, Any)
        The parameters of the estimator the plan was made from (public: the caller's
        settings), each in a form that pickles and compares (:func:`planned_params`);
        ``prepare`` and ``fit_prepared`` refuse an estimator whose parameters differ from
        them (:func:`check_planned_params`). Recorded in the plan :meth:`~PrivateEstimator.plan`
        hands to its caller (and a one-vs-rest plan's binary sub-plans); empty, and not
        checked, in a plan a fit makes for itself or a part within it. Neither printed nor
        compared with the plan. An object parameter other than an estimator is recorded by
        its repr: one changed in place (a user's loss whose bounds are set on the same
        object) may not be seen.

    Examples
    --------
    >>> from dpconvex import PrivateLogisticRegression
    >>> plan = PrivateLogisticRegression(epsilon=1.0, classes=[0, 1]).plan(500, 2, 3)
    >>> plan.n, plan.n_features, plan.budget.epsilon, plan.mechanism_name
    (500, 3, 1.0, 'objective')
    >>> plan.options["fit_intercept"]
    True
    """

    estimator: str
    n: int
    n_classes: int
    n_features: int
    template: str
    mechanism: Mechanism
    budget: Budget
    learner: str
    backend: str
    options: Mapping[str, Any] = field(default_factory=dict)
    parts: Mapping[str, Budget] = field(default_factory=dict)
    lam: float | None = None
    lam_rule: str = ""
    notes: tuple[str | Fact, ...] = ()
    sub_plans: tuple[FitPlan, ...] = ()
    loss: Loss | None = None
    vouch: tuple[str, ...] = ()
    reads_epsilon: bool = False
    chosen: Any = None
    params: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "options", MappingProxyType(dict(self.options or {})))
        object.__setattr__(self, "parts", MappingProxyType(dict(self.parts or {})))
        object.__setattr__(self, "notes", tuple(self.notes))
        object.__setattr__(self, "sub_plans", tuple(self.sub_plans))
        object.__setattr__(self, "params", tuple(self.params))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FitPlan):
            return NotImplemented
        return str(self) == str(other) and type(self.mechanism) is type(other.mechanism)

    __hash__ = None  # type: ignore[assignment]

    @property
    def mechanism_name(self) -> str:
        """The registry name of :attr:`mechanism`."""
        return str(getattr(self.mechanism, "name", self.mechanism))

    def __str__(self) -> str:
        budget = self.budget
        lines = [f"FitPlan of {self.estimator} (n = {self.n}, classes = {self.n_classes}, "
                 f"features = {self.n_features})",
                 f"  learner:   {self.learner}",
                 f"  template:  {self.template}"]
        lines += [f"    {key} = {_show(value)}" for key, value in self.options.items()]
        lines.append(f"  mechanism: {self.mechanism_name}")
        lines.append(
            f"  budget:    epsilon = {_show(budget.epsilon)}, delta = {_show(budget.delta)}"
        )
        lines += [f"    {key}: epsilon = {_show(value.epsilon)}, delta = {_show(value.delta)}"
                  for key, value in self.parts.items()]
        lam_shown = "unused" if self.lam is None else _show(self.lam)
        lines.append(
            f"  lam:       {lam_shown}" + (f" ({self.lam_rule})" if self.lam_rule else "")
        )
        lines.append(f"  backend:   {self.backend}")
        if self.notes:
            lines.append("  certificate notes:")
            lines += [f"    - {note}" for note in self.notes]
        for sub_plan in self.sub_plans[:1]:
            lines.append(f"  each of the {len(self.sub_plans)} binary models:")
            lines += ["    " + line for line in str(sub_plan).splitlines()[1:]]
        return "\n".join(lines)


#: The parameters a plan does not read, which may change between a plan and its release:
#: the solver, its iteration cap and its output (checked again by ``fit_prepared``), and the
#: ledger (the release holds the plan's budget on the one set when it runs). ``random_state``
#: may change too where the preparation drew nothing from it (the release draws from it).
RELEASE_PARAMETERS = ("solver", "max_iter", "verbose", "accountant")


#: The rows of an array parameter hashed at a time (:func:`_param_form`).
_HASHED_ROWS = 4096

#: The integers float64 holds exactly: an integer array within them is hashed as its floats (so
#: (-1, 1) and np.array([-1.0, 1.0]) compare equal), one beyond them as its integers.
_EXACT_INT = 2**53


@dataclass(frozen=True)
class _Recorded:
    """A parameter as a plan records it: ``form`` (:func:`_param_form`), compared, and
    ``shown``, its description for a refusal (:func:`describe_value`), not compared."""

    form: Any
    shown: str = field(compare=False)


def _param_form(value: Any) -> Any:
    """``value`` in a form that pickles and compares by value: numbers, strings and None as
    they are; numbers in an array, list, tuple or pandas Index or Series by their shape and the
    SHA-256 of their values (:func:`_numbers_form`; no copy of them kept); other sequences and
    mappings entry by entry, an estimator by its class and parameters, anything else by its
    repr (an object changed in place, e.g. a user's loss whose bounds are set on the same
    object, is seen only where its repr changes)."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        return value
    if _is_pandas_vector(value):  # an Index or Series: by its values
        value = value.to_numpy()
    if isinstance(value, (np.ndarray, list, tuple)):
        numbers_in = _numbers_in(value)
        if numbers_in is not None:
            return _numbers_form(numbers_in)
        items = value.tolist() if isinstance(value, np.ndarray) else value
        return ("sequence", tuple(_param_form(item) for item in items))
    if isinstance(value, Mapping):
        return ("mapping", tuple((repr(key), _param_form(item)) for key, item in value.items()))
    if hasattr(value, "get_params") and not isinstance(value, type):
        return (type(value).__name__, _param_form(value.get_params(deep=False)))
    return repr(value)


def _is_pandas_vector(value: Any) -> bool:
    """Whether ``value`` is a pandas Index or Series (pandas is not imported here)."""
    return (type(value).__module__.partition(".")[0] == "pandas"
            and getattr(value, "ndim", None) == 1 and hasattr(value, "to_numpy"))


def _numbers_in(value: Any) -> np.ndarray | None:
    """``value`` as an array of real numbers or bools (an array as it is), else None (strings,
    objects, ragged or empty sequences)."""
    if isinstance(value, np.ndarray):
        return value if value.dtype.kind in "biuf" else None
    try:
        array = np.asarray(value)
    except (ValueError, TypeError):
        return None
    return array if array.dtype.kind in "biuf" and array.size else None


def _numbers_form(array: np.ndarray) -> tuple[Any, ...]:
    """The kind, shape and SHA-256 of the values of ``array``, hashed a block of rows at a
    time: floats as float64 with -0.0 read as 0.0, integers as float64 where float64 holds them
    all exactly and as int64 ("ints") where it does not, bools as bools. An axis of stride 0 (a
    view that broadcasts one range to every feature) is hashed once, with the shape and a
    "broadcast" tag naming such axes: the view is never made whole or read row by row."""
    broadcast = tuple(axis for axis in range(array.ndim) if array.size
                      and array.strides[axis] == 0 and array.shape[axis] > 1)
    core = array[tuple(0 if axis in broadcast else slice(None) for axis in range(array.ndim))]
    kind, dtype = "numbers", np.dtype(np.float64)
    if core.dtype.kind == "b":
        kind, dtype = "bools", np.dtype(np.bool_)
    elif core.dtype.kind in "iu" and core.size and not (
            -_EXACT_INT <= core.min() and core.max() <= _EXACT_INT):
        kind = "ints"
        dtype = np.dtype(np.int64 if core.max() <= np.iinfo(np.int64).max else np.uint64)
    digest = hashlib.sha256(dtype.str.encode() if kind == "ints" else b"")
    rows = core.reshape(1, -1) if core.ndim < 1 else core
    for start in range(0, rows.shape[0], _HASHED_ROWS):
        block = np.ascontiguousarray(rows[start:start + _HASHED_ROWS], dtype=dtype)
        if kind == "numbers":
            block = block + 0.0  # -0.0 as 0.0 (equal numbers, one form)
        digest.update(block.tobytes())
    shape = tuple(array.shape)
    if broadcast:
        return (kind, shape, digest.hexdigest(), "broadcast", broadcast)
    return (kind, shape, digest.hexdigest())


def _recorded(value: Any) -> Any:
    """``value`` as a plan records it: a number, string or None as it is, anything else as a
    :class:`_Recorded` (its form, and its description for a refusal)."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        return value
    return _Recorded(_param_form(value), describe_value(value))


def planned_params(estimator: Any) -> tuple[tuple[str, Any], ...]:
    """The parameters of ``estimator`` (``get_params(deep=False)``, by name) in the form a
    :class:`FitPlan` records them: each value as it pickles and compares (a number, string or
    None as it is; an array or list of numbers by the hash of its values; an object other than
    an estimator by its repr), with a description for a refusal.

    Parameters
    ----------
    estimator : PrivateEstimator
        The estimator a plan is made from.

    Returns
    -------
    tuple of (str, Any)
        One (name, value) per parameter, sorted by name.

    Examples
    --------
    >>> from dpconvex import PrivateLogisticRegression
    >>> dict(planned_params(PrivateLogisticRegression(epsilon=2.0)))["epsilon"]
    2.0
    """
    return tuple((name, _recorded(value))
                 for name, value in sorted(estimator.get_params(deep=False).items()))


def check_planned_params(estimator: Any, plan: FitPlan, caller: str, *,
                         drawn: bool = False, names: tuple[str, ...] | None = None) -> None:
    """Refuse, by name, the parameters of ``estimator`` that differ from those ``plan`` was made
    from (a ``set_params`` since :meth:`~PrivateEstimator.plan`), saying the plan's value of
    each: the plan's budget, mechanism, Λ, template and certificate are of its parameters, and
    the release would follow neither. The :data:`RELEASE_PARAMETERS` may differ, and
    ``random_state`` unless ``drawn`` (the preparation draws or drew from it).

    Parameters are compared by value (:func:`planned_params`); an object other than an
    estimator by its repr, so one changed in place (a user's :class:`~dpconvex.objectives.Loss`
    whose bounds are set on the same object) is seen only where its repr changes.

    Parameters
    ----------
    estimator : PrivateEstimator
        The estimator that prepares or releases on ``plan``.
    plan : FitPlan
        The plan, with the parameters it was made from (:attr:`FitPlan.params`).
    caller : str
        The call named in the refusal ("PrivateLogisticRegression.fit_prepared").
    drawn : bool, default=False
        Whether the preparation draws or drew from the estimator's ``random_state``.
    names : tuple of str or None, default=None
        The parameters compared (None: every one), e.g. ``("random_state",)`` where the others
        were checked already and the preparation then turns out to draw.

    Raises
    ------
    ParameterError
        A parameter other than those differs from the plan's (a plan that records none, made
        by hand or by an estimator's ``_plan`` hook, is not checked).

    Examples
    --------
    >>> from dpconvex import PrivateLogisticRegression
    >>> est = PrivateLogisticRegression(classes=[-1, 1])
    >>> plan = est.plan(40, 2, 3)
    >>> check_planned_params(est.set_params(max_iter=50), plan, "demo")  # not read by the plan
    >>> check_planned_params(est.set_params(epsilon=2.0), plan, "demo")
    Traceback (most recent call last):
    ...
    dpconvex.errors.ParameterError: demo: the parameter epsilon differs from the one the plan ...
    """
    if not plan.params:  # a plan made by hand or by the _plan hook: the caller's to match
        return
    recorded = {name: value for name, value in plan.params if names is None or name in names}
    current = {name: _recorded(value)  # in planned_params' form, of the names compared alone
               for name, value in estimator.get_params(deep=False).items()
               if names is None or name in names}
    changed = _changed_params(recorded, current, drawn)
    if changed:
        names = ", ".join(changed)
        which = (f"parameter {names} differs from the one" if len(changed) == 1
                 else f"parameters {names} differ from those")
        planned = ", ".join(f"{name}={_shown(recorded.get(name, _MISSING))}" for name in changed)
        ranged = ("; or plan_for on rows that carry their feature ranges, which plans with them"
                  if "feature_range" in changed else "")
        raise ParameterError(
            f"{caller}: the {which} the plan was made with (the plan's: {planned}; a set_params "
            f"since the plan{ranged}): the plan's budget, mechanism, template and certificate "
            "are of its parameters. Call plan_for(X, y) (or plan) and prepare again with these "
            "parameters, or set them to the plan's.")


def _shown(recorded: Any) -> str:
    """A recorded parameter (:func:`_recorded`) described for a refusal."""
    if recorded is _MISSING:
        return "not a parameter"
    return recorded.shown if isinstance(recorded, _Recorded) else describe_value(recorded)


_MISSING = object()


def _changed_params(recorded: dict[str, Any], current: dict[str, Any], drawn: bool,
                    *also_free: str) -> list[str]:
    """The names, sorted, of the parameters whose recorded forms differ, but the
    :data:`RELEASE_PARAMETERS`, ``random_state`` unless ``drawn`` (the preparation drew from
    it), and ``also_free``."""
    free = (*RELEASE_PARAMETERS, *(() if drawn else ("random_state",)), *also_free)
    return [name for name in sorted(set(recorded) | set(current))
            if name not in free and recorded.get(name, _MISSING) != current.get(name, _MISSING)]


#: The fields of a plan a preparation is made for, compared by :func:`prepared_plan_differences`:
#: every field but the parameters, compared on their own.
_PLAN_FIELDS = tuple(f.name for f in dataclasses.fields(FitPlan) if f.name != "params")


def _plan_field_form(plan: FitPlan, name: str) -> Any:
    """The field ``name`` of ``plan`` in a form that compares by value: a mechanism by its class
    and name, the budgets by their (ε, δ), notes and the binary models' plans by their text."""
    if name == "mechanism":
        return type(plan.mechanism).__name__, plan.mechanism_name
    if name == "sub_plans":
        return tuple(str(sub_plan) for sub_plan in plan.sub_plans)
    if name == "notes":
        return tuple(str(note) for note in plan.notes)
    if name == "budget":
        return plan.budget.epsilon, plan.budget.delta
    if name == "parts":
        return tuple((key, part.epsilon, part.delta) for key, part in plan.parts.items())
    return _param_form(getattr(plan, name))


def prepared_plan_differences(estimator: Any, prep: Prepared, plan: FitPlan) -> list[str]:
    """What makes ``plan`` another plan than the one ``prep`` was made for (``prep.plan``), by
    name: its fields and parameters that differ, none where ``prep`` may be released with it.

    ``prep`` may be released with the plan it was made for; with a plan equal to it field by
    field and made from the same parameters (:data:`RELEASE_PARAMETERS` aside, and
    ``random_state`` where the preparation drew nothing); and, where ``prep.reusable`` (not
    one-vs-rest), with a plan made from the same parameters but ``epsilon`` that differs from it
    in the fields ``estimator._fields_read_at_release`` alone: those of the plan's ε that its
    template does not hold, which the release reads off the plan it is handed (as
    :func:`~dpconvex.estimators.sweep.epsilon_sweep` releases one preparation at each ε).

    Parameters
    ----------
    estimator : PrivateEstimator
        The estimator that releases.
    prep : Prepared
        What ``prepare`` built, with the plan it was made for.
    plan : FitPlan
        The plan the release is to follow.

    Returns
    -------
    list of str
        The differing fields ("lam") and parameters ("parameter epsilon"); ["plan"] where
        ``prep`` records none (a Prepared made by hand).

    Examples
    --------
    >>> from dpconvex import PrivateLogisticRegression
    >>> est = PrivateLogisticRegression(classes=[-1, 1], lam=0.1)
    >>> prep = est.prepare(X, y, est.plan_for(X, y))
    >>> prepared_plan_differences(est, prep, est.set_params(epsilon=2.0).plan_for(X, y))
    []
    >>> prepared_plan_differences(est, prep, est.set_params(lam=0.5).plan_for(X, y))
    ['lam', 'parameter lam']
    """
    made = prep.plan
    if made is plan:
        return []
    if made is None:
        return ["plan"]
    reused = prep.reusable and not made.sub_plans  # at another epsilon: its fields read later
    read_at_release = tuple(estimator._fields_read_at_release) if reused else ()
    fields = [name for name in _PLAN_FIELDS if name not in read_at_release
              and _plan_field_form(made, name) != _plan_field_form(plan, name)]
    changed = _changed_params(dict(made.params), dict(plan.params), prep.noise is not None,
                              *(("epsilon",) if reused else ()))
    return [*fields, *(f"parameter {name}" for name in changed)]


def check_prepared_plan(estimator: Any, prep: Prepared, plan: FitPlan, caller: str) -> None:
    """Refuse, by name, to release ``prep`` with a plan other than the one it was made for
    (:func:`prepared_plan_differences`): its template, Λ, rows and label set are of that plan,
    and a certificate of another would mis-state the release.

    Parameters
    ----------
    estimator : PrivateEstimator
        The estimator that releases.
    prep : Prepared
        What ``prepare`` built, with the plan it was made for.
    plan : FitPlan
        The plan the release is asked to follow.
    caller : str
        The call named in the refusal ("PrivateLogisticRegression.fit_prepared").

    Raises
    ------
    ParameterError
        ``prep`` records no plan (made by hand), or was made for another plan.

    Examples
    --------
    >>> from dpconvex import PrivateLogisticRegression
    >>> est = PrivateLogisticRegression(classes=[-1, 1])
    >>> plan = est.plan_for(X, y)
    >>> prep = est.prepare(X, y, plan)
    >>> check_prepared_plan(est, prep, plan, "demo")
    >>> check_prepared_plan(est, prep, est.set_params(epsilon=2.0).plan_for(X, y), "demo")
    Traceback (most recent call last):
    ...
    dpconvex.errors.ParameterError: demo: the preparation was made for another plan (differing: ...
    """
    differences = prepared_plan_differences(estimator, prep, plan)
    if differences == ["plan"]:
        raise ParameterError(
            f"{caller}: the preparation records no plan (a Prepared made by hand): its template "
            "cannot be checked against the plan's. Make it with prepare(X, y, plan).")
    if differences:
        reason = ("" if prep.reusable else
                  "; this preparation serves no other plan (a choice of its plan reads epsilon, "
                  "or its build spent budget or drew randomness)")
        raise ParameterError(
            f"{caller}: the preparation was made for another plan (differing: "
            f"{', '.join(differences)}){reason}: its template, lam and rows are of that plan, "
            "and the release would not be the one this plan's certificate states. Prepare "
            "again: prepare(X, y, plan) with this plan, then fit_prepared.")


class PrivateEstimator(CheckedParamNames, BaseEstimator):
    """The base of the private estimators: one validation, a public plan, prepare, release.

    Classifiers add :class:`ClassifierScoreMixin` and regressors
    :class:`~dpconvex.estimators.regression.RegressionScoreMixin` (the estimator type, ``score`` and tags).

    Subclasses declare ``_parameter_constraints`` (every ``__init__`` parameter -> its
    :class:`~dpconvex._validation.Constraint`, both the check and its documentation) and
    implement

    * ``_validate_params()`` extended where rules involve several parameters (the only
      validation written as code);
    * ``_plan(n, n_classes, n_features) -> FitPlan``: every "auto" resolved, once;
    * ``prepare(X, y, plan) -> Prepared``;
    * ``_release(prep, plan, hold, warm_start)``: the noise, the release, the fitted
      attributes (``hold``: the ledger reservation of the plan's budget);
    * ``public_template(plan) -> Template``: the template of the plan's public problem alone
      (no rows read), which :meth:`certify` without data certifies and the noise warnings
      read;

    and, where their fit differs from these steps, ``_fit_routed`` (a fit made of another fit
    of the estimator) or ``_prepare_fit`` (a front door, :attr:`fits_only`, prepares inside
    its fit only).

    Examples
    --------
    >>> from dpconvex import PrivateLogisticRegression
    >>> from dpconvex.estimators.base import PrivateEstimator
    >>> est = PrivateLogisticRegression(epsilon=1.0, classes=[-1, 1], random_state=0)
    >>> isinstance(est, PrivateEstimator)
    True
    >>> est.fit(X, y).certificate_.epsilon
    1.0
    """

    _parameter_constraints: ClassVar[dict[str, Constraint]] = {}
    #: Sparse (CSR/CSC) rows accepted by ``fit`` (the public shape is read from them); the
    #: ``sparse`` input tag.
    _accepts_sparse: ClassVar[bool] = False
    #: Why it has none of these parameters of scikit-learn's estimators (its ``set_params``'
    #: refusal: :func:`~dpconvex._validation.refuse_unknown_params`).
    _absent_param_reasons: ClassVar[Mapping[str, str]] = NO_SUCH_PARAMETER

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.__doc__ = fill_docs(cls.__doc__)  # the shared parameter entries

    # a fresh list, as scikit-learn's
    _get_param_names = classmethod(lambda cls: list(_PARAM_NAMES(cls)))

    def _store_params(self, params: dict[str, Any]) -> None:
        """Store an ``__init__``'s arguments (its ``locals()``) unchanged, as scikit-learn asks."""
        for name, value in params.items():
            if name not in ("self", "__class__"):
                setattr(self, name, value)

    def __sklearn_tags__(self):  # type: ignore[no-untyped-def]
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self._accepts_sparse
        return tags

    # ------------------------------------------------------------------ validation
    def _validate_params(self, *, planned: bool = False) -> None:  # type: ignore[override]
        """Every parameter check, once: the table (a learner with rules across parameters,
        the mechanism against δ, ..., extends this with them).

        ``planned``: the plan is made at once (:meth:`plan`, :meth:`fit`); a rule the plan
        applies itself, refusing by the same names (a linear model's mechanism against δ), is
        left to it.
        """
        owner = type(self).__name__
        for name, constraint in self._parameter_constraints.items():
            constraint.check(name, getattr(self, name), owner)

    # ------------------------------------------------------------------------ plan
    def plan(self, n: int, n_classes: int | None = None, n_features: int | None = None) -> FitPlan:
        """What a fit on n rows, ``n_classes`` labels and ``n_features`` columns will do.

        Validates the parameters and resolves every "auto" from them and the public
        shape; reads no data, draws no noise, charges nothing. ``n_classes`` may be left
        out where ``classes`` lists the labels, and for a regressor (no label set). The shape
        is checked here, once, and planned on by :meth:`plan_checked`.

        Parameters
        ----------
        n : int
            The number of rows (at least 2).
        n_classes : int or None, default=None
            The size of the label set (None: from ``classes``, or 1 for a regressor).
        n_features : int or None, default=None
            The number of columns of X (at least 1).

        Returns
        -------
        FitPlan

        Raises
        ------
        ParameterError, PrivacyError

        Examples
        --------
        >>> from dpconvex import PrivateLogisticRegression
        >>> plan = PrivateLogisticRegression(classes=[0, 1]).plan(500, n_features=3)
        >>> plan.n, plan.n_classes, plan.n_features
        (500, 2, 3)
        """
        # what classes= or a regression states, n_classes against classes (as certify), and
        # each fact checked; the plan handed to the caller records the parameters it was made
        # from, which its prepare and fit_prepared compare (a holder's plan_checked, followed
        # within its fit, records none)
        plan = self.plan_checked(*_given_shape(self, n, n_classes, n_features, "plan"))
        return dataclasses.replace(plan, params=planned_params(self))

    def plan_checked(self, n: int, n_classes: int, n_features: int) -> FitPlan:
        """:meth:`plan` on a public shape already checked: the plan a fit that holds this
        estimator (a front door) makes for it on the shape that fit checked.

        The shape is taken as :meth:`plan` checks it (ints, n >= 2, n_classes >= 2 for a
        classifier, n_features >= 1, rows a numpy array can hold); the parameters are validated
        here, and the plan made by the estimator's ``_plan``.

        Parameters
        ----------
        n, n_classes, n_features : int
            The public shape, checked by the caller as :meth:`plan` checks it.

        Returns
        -------
        FitPlan

        Raises
        ------
        ParameterError, PrivacyError

        Examples
        --------
        >>> from dpconvex import PrivateLogisticRegression
        >>> PrivateLogisticRegression(classes=[0, 1]).plan_checked(500, 2, 3).n
        500
        """
        self._validate_params(planned=True)
        try:
            return self._plan(n, n_classes, n_features)
        except MemoryError:
            caller = f"{type(self).__name__}.plan"
            raise _beyond_memory(caller, n_classes, n_features) from None

    def _plan(self, n: int, n_classes: int, n_features: int) -> FitPlan:
        raise NotImplementedError

    #: Whether a fit reads a label set (``n_classes``); a regression has none, plans
    #: ``n_classes`` = 1 and maps its labels by its label range (:meth:`_checked_data`).
    _reads_label_set: ClassVar[bool] = True

    def public_shape(self, X: Any, y: Any,
                     context: FitContext = NO_CONTEXT) -> tuple[int, int, int]:
        """(n, n_classes, n_features) of a fit on (X, y): the shape of X and the label set.

        Reads the shape of X (public) and the label set (``classes``, else the set the fit
        holding this one hands it in ``context``, else the set declared with y, or the labels
        of y, which a fit then reports as assumed public; 1 for a regression). Where they cannot be made out,
        the data check raises its named error; a label set of fewer than two labels is planned as two
        (``prepare`` refuses it by name).

        Parameters
        ----------
        X, y : array-like
            The rows and labels of the fit.
        context : FitContext, default=NO_CONTEXT
            The fit's context (the label set a holding fit hands this one).

        Returns
        -------
        tuple of int
            (n, n_classes, n_features).

        Examples
        --------
        >>> from dpconvex import PrivateLogisticRegression
        >>> PrivateLogisticRegression().public_shape(X, y)
        (40, 2, 3)
        """
        owner = type(self).__name__
        shape = getattr(X, "shape", None)  # (n, p) from the shape alone, public under replace-one
        try:
            n = shape[0]
            if not isinstance(n, numbers.Integral) and is_dask_collection(X):
                from ..data.dask_rows import compute, known_chunks

                # a Dask array of unknown chunk sizes has them counted (within the timeouts)
                n = known_chunks(X).shape[0] if hasattr(X, "chunks") and math.isnan(float(n)) \
                    else compute(n)[0]
            n, p = (int(n), int(shape[1])) if len(shape) == 2 else (0, 0)
        except (TypeError, IndexError, ValueError, DPConvexError):
            n, p = 0, 0
        if n < 2 or p < 1:
            rows = check_array(
                X,
                f"{owner}.fit",
                min_samples=2,
                accept_sparse=self._accepts_sparse,
                accept_dask=True,
            )
            n, p = int(rows.shape[0]), int(rows.shape[1])
        if not self._reads_label_set:
            return n, 1, p
        classes = self._fit_classes(context)[0]
        try:  # where the set cannot be made out, prepare raises the named error
            if classes is not None:
                label_set = np.asarray(list(classes))
                return n, max(2, int(label_set.size) if label_set.ndim == 1 else 2), p
            label_set = label_set_of(
                check_labels(computed(y), n, f"{owner}.fit"), None, f"{owner}.fit"
            )
        except (DPConvexError, IndexError, TypeError, ValueError):
            return n, 2, p
        return n, max(2, 2 if label_set is None else int(label_set.size)), p

    def plan_for(self, X: Any, y: Any) -> FitPlan:
        """``plan(*public_shape(X, y))``: the plan ``fit(X, y)`` follows.

        Parameters
        ----------
        X, y : array-like
            The rows and labels of the fit.

        Returns
        -------
        FitPlan
            With the line on where the rows' encoding came from, where they carry one.

        Examples
        --------
        >>> from dpconvex import PrivateLogisticRegression
        >>> PrivateLogisticRegression(classes=[-1, 1]).plan_for(X, y).n
        40
        """
        ranged = self._with_rows_ranges(X) if self.takes_rows_ranges else None
        if ranged is not None:
            return ranged.plan_for(X, y)
        return _with_rows_source(self.plan(*self.public_shape(X, y)), X)

    #: Whether the estimator leaves the rows of ``FitContext.excluded`` out of its fit (its
    #: preparation zeroes their loss and reads no label of theirs); a fit that does not
    #: refuses a context that leaves rows out (:meth:`FitContext.every_row`).
    takes_row_mask: ClassVar[bool] = False

    #: Whether the estimator prepares and releases inside its fit only (a front door, which
    #: splits its budget and its rows between its parts): ``prepare`` and ``fit_prepared``
    #: refuse it by name; its fit's steps are its ``_prepare_fit`` and ``_release``.
    fits_only: ClassVar[bool] = False

    #: The fields of a plan made at another ε that a ``reusable`` preparation of this estimator
    #: may be released with (:func:`prepared_plan_differences`): those its template does not
    #: hold, which its release reads off the plan it is handed. Here the budget and its shares
    #: (a template that states its plan's notes and mechanism choice holds those).
    _fields_read_at_release: ClassVar[tuple[str, ...]] = ("budget", "parts")

    #: Whether the estimator takes public per-feature ranges (``feature_range``) from rows
    #: that carry them (:class:`~dpconvex.data.RangedRows`) when none are given.
    takes_rows_ranges: ClassVar[bool] = False

    def _with_rows_ranges(self, X: Any) -> PrivateEstimator | None:
        """This estimator with ``feature_range`` the public per-feature ranges its rows carry
        (:class:`~dpconvex.data.RangedRows`: :class:`~dpconvex.PublicEncoder`'s, the schema's
        constants), where none are given; else None (a ``feature_range`` given within them,
        a narrower clip in the encoded rows' units, or the schema that encoded them, is this
        estimator's own; one beyond them is refused by :meth:`_refuse_ranges_beyond`).
        Called where it :attr:`takes_rows_ranges`."""
        if getattr(self, "schema", None) is not None:
            return None
        ranges = rows_feature_range(X)
        if ranges is None:
            return None
        if getattr(self, "feature_range", None) is not None:
            self._refuse_ranges_beyond(ranges)
            return None
        return clone(self).set_params(feature_range=ranges)

    def _refuse_ranges_beyond(self, carried: np.ndarray) -> None:
        """Refuse (:class:`ParameterError`) the given ``feature_range`` where it reaches beyond
        ``carried``, the (lo, hi) rows its rows carry: ranges given twice. An estimator that
        :attr:`takes_rows_ranges` states it; this one takes none."""
        raise NotImplementedError(
            f"{type(self).__name__}._refuse_ranges_beyond: takes_rows_ranges is set and this "
            "method is not: state how a given feature_range is checked against the rows' ranges."
        )

    def _fit_as(
        self, inner: PrivateEstimator, rows: Any, y: Any, context: FitContext
    ) -> PrivateEstimator:
        """Fit ``inner`` (a clone of this estimator with other parameters) on the rows, drawing
        from this fit's generator and charging this fit's ledger, and take its fitted
        attributes."""
        if hasattr(self, "accountant"):  # clone copies a ledger; the same one is charged
            inner.accountant = self.accountant
        fit_part(inner, rows, y, context.inner(noise_source(self, context.noise)))
        self._take_fitted(inner)
        return inner

    def _take_fitted(self, inner: PrivateEstimator) -> None:
        """Set the fitted attributes (public names ending in "_") of ``inner``, a fit made for
        this estimator, on this estimator."""
        for key, value in vars(inner).items():
            if key.endswith("_") and not key.startswith("_"):
                setattr(self, key, value)

    # ----------------------------------------------------------------- prepare/fit
    def prepare(self, X: Any, y: Any, plan: FitPlan, *,
                context: FitContext = NO_CONTEXT) -> Prepared:
        """Validated, clipped data and the template of ``plan`` (no budget spent).

        ``context``: what the fit that prepares hands it (:class:`FitContext`: the rows as it
        validated them, the rows left out, the label-set warning, the noise source of a
        preparation that draws), issued by that fit (:func:`issued`); any other is refused
        (:class:`PrivacyError`) before the rows are read. An estimator that prepares inside
        its fit only (a front door, which splits its budget and its rows between its parts)
        refuses it by name.

        Parameters
        ----------
        X, y : array-like
            The rows and labels of the fit.
        plan : FitPlan
            The plan of this estimator on their public shape (:meth:`plan_for`).
        context : FitContext, default=NO_CONTEXT
            The context the preparing fit issued (:func:`issued`).

        Returns
        -------
        Prepared
            The template on validated, clipped rows, the label set and the learner's facts.

        Raises
        ------
        ParameterError
            The plan is for another shape than X's; a parameter it was made with changed since
            (:func:`check_planned_params`); or the estimator prepares inside its fit only (this
            base's ``prepare``).
        DataValidationError
            X or y fails the data checks.
        PrivacyError
            ``context`` was not issued by the fit that prepares.

        Examples
        --------
        >>> from dpconvex import PrivateLogisticRegression
        >>> est = PrivateLogisticRegression(classes=[-1, 1])
        >>> prep = est.prepare(X, y, est.plan_for(X, y))
        >>> prep.template.n, prep.labels.classes.tolist()
        (40, [-1, 1])
        """
        raise ParameterError(f"{type(self).__name__}.prepare: {type(self).__name__} {FIT_ONLY}")

    def _validated(self, X: Any, y: Any, context: FitContext, *,
                   binary: bool = False) -> CheckedData:
        """X and y validated, once: X by :func:`~dpconvex.data.validation.check_array` (rows in
        memory, sparse if the estimator takes them, or Dask), a classifier's labels by
        :func:`~dpconvex.data.validation.check_labels` and encoded against ``classes``
        (:func:`~dpconvex.data.validation.encode_labels`), a regressor's left to its
        ``prepare``. ``context``: X and y as a meta-estimator checked them, the rows left out,
        the label-set warning; ``binary``: two labels exactly.

        Releases nothing and charges nothing: a label outside the public set is refused here,
        before the plan, with nothing held.
        """
        caller = f"{type(self).__name__}.fit"
        X_checked = X if context.checked else check_array(
            X, caller, min_samples=2, accept_sparse=self._accepts_sparse, accept_dask=True
        )
        if not self._reads_label_set:
            return CheckedData(X_checked, y)
        classes, given = self._fit_classes(context)
        y_checked = y if context.checked else check_labels(
            computed(y), int(X_checked.shape[0]), caller, classes=classes,
            unknown_labels=self.unknown_labels
        )
        labels = encode_labels(y_checked, classes, caller, binary=binary,
                               unknown_labels=self.unknown_labels, excluded=context.excluded,
                               warning=context.label_warning, noted=context.checked)
        return CheckedData(X_checked, y_checked, given_source(labels, given))

    def _fit_classes(self, context: FitContext) -> tuple[Any, LabelSet | None]:
        """The label set a fit inside ``context`` encodes its labels against, and the holding
        fit's set where it is that one: ``classes``, else the set the fit that holds this one
        hands it (``context.label_set``), else None (the set declared with or read from y)."""
        classes = getattr(self, "classes", None)
        if classes is not None or context.label_set is None:
            return classes, None
        return context.label_set.classes, context.label_set

    def _checked_data(self, X: Any, y: Any, plan: FitPlan, context: FitContext, *,
                      binary: bool = False) -> tuple[Any, Any]:
        """X and its labels for ``prepare``: as the fit validated them before its plan
        (``context.data``), else validated here (:meth:`_validated`) and held against the plan's
        n rows and ``n_features`` columns. A classifier's labels come encoded (a
        :class:`LabelSet`), a regressor's mapped onto [−1, 1] by its public label range
        (``LabelRangeMixin._unit_labels``). ``binary``: two labels, a one-vs-rest plan refused
        (its binary models are prepared with their own plans). ``context``: NO_CONTEXT or one
        the preparing fit issued (:func:`check_context`), the first thing read."""
        owner = type(self).__name__
        check_context(context, f"{owner}.prepare")  # before the rows are read
        check_planned_params(self, plan, f"{owner}.prepare")
        data = context.data or self._validated(X, y, context, binary=binary)
        self._check_plan_shape(data.X, plan, f"{owner}.prepare")
        if binary and plan.sub_plans:
            raise ParameterError(
                f"{owner}.prepare: the plan is one-vs-rest over {plan.n_classes} classes; prepare "
                "each binary model with its plan (plan.sub_plans[c]) or call fit.")
        if not self._reads_label_set:  # a regressor's labels (a meta-estimator's: its note)
            return data.X, self._unit_labels(
                data.y, plan.n, f"{owner}.fit", note=context.excluded is None,
                checked=context.checked, warn=not context.range_warned
            )
        return data.X, data.labels

    def _check_plan_shape(self, X: Any, plan: FitPlan, caller: str) -> None:
        """Refuse rows X not of the plan's shape (n, n_features): the plan's noise, Λ and notes
        are of its (n, d). :meth:`_checked_data` (``prepare``) and :meth:`_fit_with` (for a
        plan handed in ``context.plan``; a plan the fit makes is of its rows' shape) call it, so
        rows of another shape are refused however they reach a fit. ``caller``: the call named
        in the refusal."""
        if tuple(X.shape) != (plan.n, plan.n_features):
            raise ParameterError(
                f"{caller}: the plan is for n = {plan.n} rows and {plan.n_features} "
                f"features; X has shape {tuple(X.shape)}. Make the plan with "
                "plan(n, n_classes, n_features) of these data (or plan_for(X, y)).")

    def fit_prepared(self, prep: Prepared, plan: FitPlan, *,
                     warm_start: np.ndarray | None = None,
                     context: FitContext = NO_CONTEXT) -> PrivateEstimator:
        """The private part of a fit: hold the plan's budget, release, store the model.

        ``warm_start`` is a start point for the solver only
        (docs/privacy/accuracy_randomness.md#privacy-accuracy-randomness); ``context``
        what the fit that calls it hands it (:class:`FitContext`: e.g. its noise source, its
        budget hold), issued by that fit (:func:`issued`); any other is refused
        (:class:`PrivacyError`) before anything is held or charged.

        Parameters
        ----------
        prep : Prepared
            What :meth:`prepare` built on ``plan``.
        plan : FitPlan
            The plan ``prep`` was built on; its budget is held and charged.
        warm_start : ndarray or None, default=None
            A start point for the solver (None: the solver's own).
        context : FitContext, default=NO_CONTEXT
            The context the calling fit issued (:func:`issued`).

        Returns
        -------
        PrivateEstimator
            The estimator, fitted.

        Raises
        ------
        ParameterError
            The estimator prepares and releases inside its fit only (:attr:`fits_only`); a
            preparation made for another plan (:func:`check_prepared_plan`, before anything is
            held); a parameter the plan was made with changed since (:func:`check_planned_params`,
            before anything is held; ``solver``, ``max_iter``, ``verbose`` and ``accountant``
            may change, and ``random_state`` where the preparation drew nothing); a ``solver``,
            ``max_iter`` or ``verbose`` set to a wrong value since the plan; a ``warm_start``
            not of the template's parameter shape (where the estimator's solver takes one).
        PrivacyError, SolverError, BudgetError
            ``context`` not issued; a refused release (in this call's name); the ledger
            cannot hold the plan's budget.

        Examples
        --------
        >>> from dpconvex import PrivateLogisticRegression
        >>> est = PrivateLogisticRegression(classes=[-1, 1], random_state=0)
        >>> plan = est.plan_for(X, y)
        >>> est.fit_prepared(est.prepare(X, y, plan), plan).coef_.shape
        (1, 3)
        """
        caller, ledger = f"{type(self).__name__}.fit_prepared", getattr(self, "accountant", None)
        if self.fits_only:
            raise ParameterError(f"{caller}: {type(self).__name__} {FIT_ONLY}")
        check_context(context, caller)
        check_planned_params(self, plan, caller, drawn=prep.noise is not None)
        check_prepared_plan(self, prep, plan, caller)
        # a draft as its schema or ranges, or rows of one (the plan plan_for made on them states it)
        draft = not_public_source(self) is not None or SUGGESTED_SOURCE in plan.notes
        # one stream: the caller's generator, else the preparation's, else one from random_state
        noise = context.noise if context.noise is not None else prep.noise
        context = dataclasses.replace(context, noise=noise_source(self, noise))
        try:
            with (
                fresh_fit(self),  # nothing of an earlier fit (another release) is kept
                charge_not_public(ledger if draft else None, caller),
                hold_plan(self, plan, context) as hold,
            ):
                self._check_release_parameters()
                if warm_start is not None and self._uses_warm_start(plan):
                    check_warm_start(prep.template, warm_start, caller)
                fitted = self._release(prep, plan, hold, context, warm_start)
        except (PrivacyError, SolverError) as exc:  # a part's refusal: in this call's name
            raise signed_refusal(exc, caller) from None
        return state_rows_source(fitted, None, draft=True) if draft else fitted

    def _check_release_parameters(self) -> None:
        """The parameters an estimator's release reads off the estimator, not its plan
        (``solver``, ``max_iter``, ``verbose``), checked by their constraints, each refused by
        name (:class:`ParameterError`): in :meth:`fit_prepared`, whose plan checked them before a
        ``set_params`` could change them. (:meth:`fit` checks every parameter once,
        :meth:`_validate_params`.)"""
        owner = type(self).__name__
        for name in ("solver", "max_iter", "verbose"):
            if name in self._parameter_constraints:
                self._parameter_constraints[name].check(name, getattr(self, name), owner)

    def _uses_warm_start(self, plan: FitPlan) -> bool:
        """Whether the release of ``plan`` hands a ``warm_start`` to a solver (then
        :meth:`fit_prepared` checks one against the prepared template,
        :func:`~dpconvex.privacy.release.check_warm_start`): where its mechanism solves
        (:attr:`~dpconvex.privacy.mechanisms.base.Mechanism.solves`)."""
        return plan.mechanism.solves

    def _warn(self, plan: FitPlan) -> None:
        """The fit's public warnings on its plan, after the plan and before anything is held:
        none here (the classifier front door's noise check of every candidate learner)."""

    def _release(self, prep: Prepared, plan: FitPlan, hold: CertificateHold,
                 context: FitContext, warm_start: np.ndarray | None) -> PrivateEstimator:
        """Noise, release and the fitted attributes: the private part of a fit. ``context.noise``
        is this fit's generator (set by :meth:`fit` and :meth:`fit_prepared`)."""
        raise ParameterError(
            f"{type(self).__name__}.fit_prepared: {type(self).__name__} {FIT_ONLY}"
        )

    def fit(self, X: Any, y: Any, *, context: FitContext = NO_CONTEXT,
            **fit_params: Any) -> PrivateEstimator:
        """Validate X and y once, plan from their public shape, hold the budget, build the
        objective from the rows, release, commit, set the model: nothing is held or charged
        for a fit refused before its release. ``fit_params`` (e.g. ``sample_weight``) are
        refused by name.

        ``context``: where this estimator is a meta-estimator's part, the context that fit
        issued to it (:func:`fit_part`; the fit that holds it states its rows' source); any
        other context is refused (:class:`PrivacyError`), before anything is read or held.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training rows.
        y : array-like of shape (n_samples,)
            The labels (a classifier's) or targets (a regressor's).
        context : FitContext, default=NO_CONTEXT
            The context a meta-estimator issued to this part (:func:`fit_part`).
        **fit_params
            Refused by name (:class:`ParameterError`).

        Returns
        -------
        PrivateEstimator
            The estimator, fitted (``certificate_`` states what the release spent).

        Raises
        ------
        ParameterError, DataValidationError, PrivacyError, SolverError, BudgetError

        Examples
        --------
        >>> from dpconvex import PrivateLogisticRegression
        >>> est = PrivateLogisticRegression(epsilon=1.0, classes=[-1, 1], random_state=0)
        >>> est.fit(X, y).certificate_.epsilon, est.coef_.shape
        (1.0, (1, 3))
        """
        caller = f"{type(self).__name__}.fit"
        if fit_params:
            refuse_fit_params(caller, fit_params)
        try:
            with fresh_fit(self):  # nothing of an earlier fit (another release) is kept
                if context is not NO_CONTEXT:  # a meta-estimator's part
                    fitted = self._fit_with(X, y, check_context(context, caller))
                # (a released schema's rows: their source stated)
                elif not_public_source(self, X) is None:
                    fitted = self._fit_with(X, y, NO_CONTEXT)
                    if isinstance(X, RangedRows):
                        fitted = state_rows_source(fitted, X)
                else:  # a schema read from the data (draft): not private, charged and stated
                    with charge_not_public(getattr(self, "accountant", None), caller):
                        fitted = state_rows_source(self._fit_with(X, y, NO_CONTEXT), X,
                                                   draft=True)
                return state_users_class(fitted)  # a class of the user's: its methods unchecked
        except (PrivacyError, SolverError) as exc:  # a part's refusal: in this call's name
            raise signed_refusal(exc, caller) from None

    def _fit_with(self, X: Any, y: Any, context: FitContext) -> PrivateEstimator:
        """:meth:`fit` inside ``context`` (what a meta-estimator hands this fit): the skeleton of
        every private fit, validate once → plan → warn → hold the budget → prepare the rows →
        release (commit, set the model).

        Its hooks: ``_plan``, ``_prepare_fit`` and ``_release``; :meth:`_warn` for the public
        warnings on the plan (a front door's); ``_fit_sub_plans`` for a plan of binary models
        (one-vs-rest); :meth:`_fit_routed` for a fit made of another fit of this estimator (rows
        that carry their ranges, a schema, a label range or centre released in the fit), which
        fits it through its public ``fit`` (:func:`fit_part`). One generator serves
        every step: ``context.noise``, else a new one from ``random_state``. An estimator with a
        ``verbose`` parameter prints the progress of its hold, objective and release at that
        level. ``context.plan``: the plan the fit that holds this one made for it, followed as
        it is on rows of its shape (:meth:`_check_plan_shape`)."""
        owner = type(self).__name__
        if not self.takes_row_mask:
            context.every_row(owner)
        routed = self._fit_routed(X, y, context)
        if routed is not None:
            return routed
        if context.plan is None:  # else checked by the plan() that made the plan handed here
            self._validate_params(planned=True)
        if self._reads_label_set and self._fit_classes(context)[0] is None:  # read from y
            context = context.one_label_warning(
                owner=owner, y=y, text=getattr(self, "_inferred_warning", None))
        # (a part's rows as the fit that holds it checked them: an array, no column names)
        names = None if context.checked else feature_names_of(X, f"{owner}.fit")
        data = context.data or self._validated(X, y, context)  # once; a check releases nothing
        if context.plan is None:  # this fit's plan, on its rows' public shape
            try:
                plan = self._plan(*data.shape)
            except (DataValidationError, ParameterError) as exc:  # in the name of this fit
                raise signed_refusal(exc, f"{owner}.fit") from None
        else:  # the holder's plan: of these rows' shape, or refused; followed as it is (e.g. on
            # the label set the holder set since), not checked against these parameters again
            self._check_plan_shape(data.X, context.plan, f"{owner}.fit")
            plan = (context.plan if not context.plan.params
                    else dataclasses.replace(context.plan, params=()))
        self._warn(plan)  # public: before anything is held
        # one generator for every step of the fit (e.g. a component assignment, the release):
        # the caller's, else a new one from random_state (as _validate_params checked it)
        context = dataclasses.replace(context, data=data, noise=noise_source(self, context.noise))
        if plan.sub_plans:
            fitted = self._fit_sub_plans(data.X, data.y, plan, context)
        else:  # the hold before the objective is built
            with hold_plan(self, plan, context) as hold, _progress(self):
                fitted = self._release(
                    self._prepare_fit(data.X, data.y, plan, context), plan, hold, context, None
                )
        return fitted if context.checked else with_feature_names(fitted, names)

    def _fit_routed(self, X: Any, y: Any, context: FitContext) -> PrivateEstimator | None:
        """The fit where it is made of another fit of this estimator, else None (the
        skeleton's): here, a clone with the public per-feature ranges its rows carry
        (:attr:`takes_rows_ranges`); a schema or a label range released in the fit route
        their own (:class:`~dpconvex.estimators.front_door.SchemaInputMixin`,
        :class:`~dpconvex.estimators.regression.LabelRangeMixin`), as does a label centre
        released in the fit (:class:`~dpconvex.estimators.regression.PrivateLinearRegressor`).
        Each fits its part through the part's public ``fit`` (:func:`fit_part`)."""
        if not self.takes_rows_ranges:
            return None
        ranged = self._with_rows_ranges(X)
        if ranged is None:
            return None
        self._fit_as(ranged, X, y, context).certificate_.assumptions.append(ROWS_RANGES_NOTE)
        return self

    def _prepare_fit(self, X: Any, y: Any, plan: FitPlan, context: FitContext) -> Any:
        """The fit's preparation, inside its hold: :meth:`prepare` of the rows and labels the
        fit validated (``context.data``), ``context`` issued to it (:func:`issued`). A learner
        that builds from ``context.data`` as the fit validated and planned it needs no second
        check and has its own (the linear classifiers); so has an estimator that prepares
        inside its fit only (:attr:`fits_only`)."""
        with issued(context):
            return self.prepare(X, y, plan, context=context)

    # --------------------------------------------------------------------- certify
    def certify(self, X: Any = None, y: Any = None, *, n: int | None = None,
                n_classes: int | None = None, n_features: int | None = None,
                context: FitContext = NO_CONTEXT) -> Any:
        """The certificate a fit would carry, without training: no noise drawn, nothing charged.

        ``certify(X, y)`` on the template a fit on (X, y) builds; ``certify(n=...,
        n_classes=..., n_features=...)`` from the plan alone, before any data exist. A
        certificate made of other certificates (a front door's learner, a schema, a released
        label range or centre) goes by :meth:`_certify_routed`, each part certified through
        its own public ``certify``.

        Parameters
        ----------
        X, y : array-like or None
            The rows and labels a fit would read; None: the public shape alone.
        n, n_classes, n_features : int or None
            The public shape without (X, y) (a regressor's ``n_classes`` may be left out).
        context : FitContext
            Where this estimator is a meta-estimator's part, the context that meta-estimator
            issued to it (:func:`certify_part`; the call that holds it states its rows'
            source), its plan and rows (``context.plan``, ``context.data``) followed as a fit
            follows them; any other context is refused (:class:`PrivacyError`).

        Returns
        -------
        Certificate

        Raises
        ------
        ParameterError, DataValidationError, PrivacyError, SolverError
            Exactly what ``fit`` would raise (:class:`PrivacyError` for a part's refusal,
            in this call's name).

        Examples
        --------
        >>> from dpconvex import PrivateLogisticRegression
        >>> est = PrivateLogisticRegression(epsilon=1.0, classes=[0, 1])
        >>> certificate = est.certify(n=1000, n_classes=2, n_features=5)
        >>> certificate.epsilon, certificate.private
        (1.0, True)
        """
        caller = f"{type(self).__name__}.certify"
        try:
            check_context(context, caller)
            given = {"n": n, "n_classes": n_classes, "n_features": n_features}
            try:
                routed = self._certify_routed(X, y, given, context)
            except MemoryError:  # a composed public problem whose arrays exceed this machine's
                if X is not None:
                    raise
                raise _beyond_memory(caller, n_classes, n_features) from None
            if routed is not None:
                return routed
            if X is None:  # the dry run of the public problem (n a number, no rows held)
                shape = _given_shape(self, n, n_classes, n_features)
                try:
                    plan = context.plan or self.plan(*shape)
                    model = (self._certify_sub_plans(plan) if plan.sub_plans else
                             self._certify_problem(plan))
                except MemoryError:  # a public problem whose own arrays exceed this machine's
                    raise _beyond_memory(caller, shape[1], shape[2]) from None
                model = _as_a_fit_states(model, plan, self, held=context.held)
                # a meta-estimator's part: the call that holds it states its rows' source
                return model if context is not NO_CONTEXT else state_rows_source(model, None, self)
            if context is not NO_CONTEXT:  # a meta-estimator's part
                return self._certify_with(X, y, context)
            feature_names_of(X, caller)  # refused as a fit refuses them
            return state_rows_source(self._certify_with(X, y, NO_CONTEXT), X, self)
        except (PrivacyError, SolverError) as exc:  # a part's refusal: in this call's name
            raise signed_refusal(exc, caller) from None
        except ParameterError as exc:  # plan's refusal of the shape certify was given
            raise _as_called(exc, f"{type(self).__name__}.plan", caller) from None

    def _certify_routed(self, X: Any, y: Any, shape: dict[str, int | None],
                        context: FitContext) -> Any:
        """The certificate where it is made of other certificates, else None (the skeleton's):
        the parts' public ``certify`` composed as a fit composes their releases
        (:class:`~dpconvex.estimators.front_door.SchemaInputMixin`,
        :class:`~dpconvex.estimators.regression.LabelRangeMixin`, the front doors).
        ``shape``: the public shape given without (X, y)."""
        return None

    def _certify_with(self, X: Any, y: Any, context: FitContext) -> Any:
        """:meth:`certify` of (X, y) inside ``context`` (e.g. with rows left out; the plan and
        the validated rows its holder hands it, ``context.plan`` and ``context.data``)."""
        if self._reads_label_set and self._fit_classes(context)[0] is None:  # the set read from y
            context = context.one_label_warning(owner=type(self).__name__, y=y)
        ranged = self._with_rows_ranges(X) if self.takes_rows_ranges else None
        if ranged is not None:  # through its public certify, as _fit_as fits it
            part = context.inner(context.noise, checked=context.checked)
            certificate = certify_part(ranged, X, y, part)
            certificate.assumptions.append(ROWS_RANGES_NOTE)
            return certificate
        # once, as a fit validates them (one-vs-rest's binary model: as its holder did)
        data = context.data or self._validated(X, y, context)
        plan = _with_rows_source(context.plan or self.plan(*data.shape), X)
        context = dataclasses.replace(context, data=data)
        if plan.sub_plans:  # one-vs-rest: the binary models' dry runs, by their plans
            certificate = self._certify_sub_plans(plan, data.X, data.y, context)
        else:
            with issued(context):
                certificate = self._certify_data(data.X, data.y, plan, context)
        return _as_a_fit_states(certificate, plan, self, y, held=context.held)

    def _certify_data(self, X: Any, y: Any, plan: FitPlan, context: FitContext) -> Any:
        """The dry run of ``plan`` on (X, y): the template a fit builds, no noise, no charge.

        A learner whose ``prepare`` draws randomness or spends budget (a private component
        assignment) builds its certificate's template here without them.
        """
        return self._certify(self.prepare(X, y, plan, context=context), plan)

    def _fit_sub_plans(
        self, X: Any, y: Any, plan: FitPlan, context: FitContext
    ) -> PrivateEstimator:
        raise NotImplementedError

    def _certify_sub_plans(self, plan: FitPlan, X: Any = None, y: Any = None,
                           context: FitContext = NO_CONTEXT) -> Any:
        raise NotImplementedError

    def public_template(self, plan: FitPlan) -> Template:
        """The template of ``plan``'s public problem alone: the template a fit of n rows builds,
        its constants, conditions and assumptions stated as that fit checks them, with no rows
        or labels read (each learner's template has its ``of_problem``).

        For dry runs and the noise warnings, which read the template's public constants
        (n, p, the loss, the norm bound) and never its rows.

        Parameters
        ----------
        plan : FitPlan
            The plan of this estimator.

        Returns
        -------
        Template
            The template of the plan's public problem, no rows or labels read.

        Raises
        ------
        NotImplementedError
            Here, in the base: each learner implements it.

        Examples
        --------
        >>> from dpconvex import PrivateLogisticRegression
        >>> est = PrivateLogisticRegression(epsilon=1.0)
        >>> template = est.public_template(est.plan(10**12, 2, 5))
        >>> template.n, template.p, template.rows is None
        (1000000000000, 6, True)
        """
        raise NotImplementedError

    def _certify_problem(self, plan: FitPlan) -> Any:
        """The dry run of ``plan``'s public problem alone (:meth:`public_template`, no rows or
        labels read), certified as a fit's template is (:meth:`_certify`)."""
        template = self.public_template(plan)
        return self._certify(Prepared(template=template), plan)

    def _certify(self, prep: Prepared, plan: FitPlan) -> Any:
        from ..privacy.release import release

        certificate = release(prep.template, plan.mechanism, plan.budget, dry_run=True,
                              vouch=plan.vouch, vouch_unused="ignore").certificate
        # where the label set came from, where labels were read (not for the public problem)
        certificate.state(None if prep.labels is None else prep.labels.assumption, *plan.notes)
        return certificate


def _with_rows_source(plan: FitPlan, X: Any) -> FitPlan:
    """``plan`` with the line on where the encoding of rows ``X`` came from, where they carry one
    (a drafted or released schema's :class:`~dpconvex.data.RangedRows`)."""
    source = X.source if isinstance(X, RangedRows) else None
    return plan if source is None else dataclasses.replace(plan, notes=(*plan.notes, source))


def _as_a_fit_states(certificate: Any, plan: FitPlan, owner: Any, y: Any = None, *,
                     held: bool = False) -> Any:
    """The dry run's certificate with what a fit's would state from public parameters: the
    line when δ >= 1/n (not where ``held``: a fit inside another's budget hold, whose hold
    states it), and the seed line where ``owner`` fixes ``random_state``."""
    from ..privacy.budget import delta_rows_note

    if not held:
        certificate.state(delta_rows_note(plan.budget.delta, plan.n))
    if certificate.label_source is None:
        certificate.state(public_label_source(owner, y))
    # seeded: a composition with a seeded part (as compose_sequential marks it), a private
    # release where random_state is given
    certificate.seeded = certificate.seeded or (
        certificate.private and getattr(owner, "random_state", None) is not None)
    return certificate


def given_source(labels: LabelSet, given: LabelSet | None) -> LabelSet:
    """``labels`` with the source of ``given``, the label set the fit that holds this one read
    and handed it (``FitContext.label_set``); ``labels`` as they are where none was handed.

    Examples
    --------
    >>> import dataclasses
    >>> from dpconvex.data.validation import INFERRED, encode_labels
    >>> part = encode_labels(np.array([1, 1]), [0, 1], "Demo.fit")  # a part's labels
    >>> whole = dataclasses.replace(part, assumption=INFERRED)  # a set read from the whole y
    >>> part.assumption.source, given_source(part, whole).assumption.source
    ('parameter', 'inferred')
    """
    return labels if given is None else dataclasses.replace(labels, assumption=given.assumption)


def public_label_source(est: Any, y: Any = None) -> LabelSource | None:
    """The label source a fit of ``est`` on labels ``y`` states: ``classes=``, else the set
    declared with y, else the set read from y (None: the fit reads no label set)."""
    if not getattr(est, "_reads_label_set", False):
        return None
    classes, source = getattr(est, "classes", None), "parameter"
    if classes is None:
        classes, source = (None if y is None else declared_classes(y)), "declared"
        if classes is None:
            return INFERRED
    classes = check_classes(classes, f"{type(est).__name__}.certify")
    return LabelSource(source, tuple(classes.tolist()), getattr(est, "unknown_labels", "raise"))


def _given_shape(est: Any, n: Any, n_classes: Any, n_features: Any,
                 method: str = "certify") -> tuple[int, int, int]:
    """(n, n_classes, n_features) given to ``certify`` (or ``plan``) without data, each checked
    (:func:`check_shape_fact`, :func:`check_holdable_shape`), or its named error; n_classes
    may be left out where ``classes`` states it, and for a regressor (1: a regressor has no
    label set, and any other n_classes is refused by name).

    A ``classes`` parameter is checked as a fit checks it (:func:`check_classes`), and
    n_classes, where given, must be the size of that set: the plan and certificate of a
    problem are those of the fit that runs it."""
    owner = type(est).__name__
    reads_labels = getattr(est, "_reads_label_set", not is_regressor(est))
    if is_regressor(est) and n_classes is not None and not (
            isinstance(n_classes, numbers.Integral) and not isinstance(n_classes, bool)
            and n_classes == 1):
        raise ParameterError(
            f"The 'n_classes' argument of {owner}.{method} must be None or 1: a regressor has "
            "no label set (n_classes is the size of a classifier's). Leave n_classes out. "
            f"Got {describe_value(n_classes)} instead.")
    classes = getattr(est, "classes", None) if reads_labels else None
    stated = None if classes is None else len(check_classes(classes, f"{owner}.{method}"))
    if n_classes is None and (stated is not None or is_regressor(est)):
        n_classes = 1 if stated is None else stated
    missing = [fact for fact, value in (("n", n), ("n_classes", n_classes),
                                        ("n_features", n_features)) if value is None]
    if missing:
        needed = "n and n_features" if is_regressor(est) else "n, n_classes and n_features"
        raise ParameterError(
            f"{owner}.{method}: without (X, y) it needs the public shape, and "
            f"{', '.join(missing)} {'is' if len(missing) == 1 else 'are'} missing. Pass "
            f"{needed}{' or (X, y)' if method == 'certify' else ''} before the data.")
    n = check_shape_fact("n", n, owner, low=2, method=method)  # a fit needs two rows
    n_classes = check_shape_fact("n_classes", n_classes, owner, method=method,
                                 low=2 if reads_labels else 1)  # a classifier's two
    n_features = check_shape_fact("n_features", n_features, owner, low=1, method=method)
    if stated is not None and n_classes != stated:
        raise ParameterError(
            f"{owner}.{method}: n_classes{_given(n_classes)} contradicts classes "
            f"({stated} labels). Pass n_classes={stated}, or change classes.")
    # an estimator with a schema counts a table's columns in n_features (encoded into more)
    unit = "columns" if getattr(est, "schema", None) is not None else "features"
    check_holdable_shape(owner, n, n_features, method, n_classes=n_classes, unit=unit)
    return n, n_classes, n_features


def _count(value: int, spec: str = ",") -> str:
    """An int as a message writes it (``spec``: ``","``, thousands separated), or its number
    of digits where it is too long to print."""
    try:
        return format(value, spec)
    except ValueError:  # above sys.get_int_max_str_digits()
        return describe_value(value)


def _given(value: int) -> str:
    """``=value`` as a message writes an argument given, or its number of digits in
    parentheses where it is too long to print."""
    text = _count(value, "d")
    return f"={text}" if text[:1].isdigit() or text[:1] == "-" else f" ({text})"


def _as_called(exc: ParameterError, inner: str, caller: str) -> ParameterError:
    """``exc``, a refusal raised by ``inner`` (``"Owner.plan"``) on the shape ``caller``
    (``"Owner.certify"``) was given, in the name of ``caller``, the call the user made."""
    text = str(exc)
    if text.startswith(f"{inner}: "):
        return type(exc)(f"{caller}: {text[len(inner) + 2:]}")
    if f" argument of {inner} " in text:
        return type(exc)(text.replace(f" argument of {inner} ", f" argument of {caller} ", 1))
    return exc


def _beyond_memory(caller: str, n_classes: Any, n_features: Any) -> ParameterError:
    """The refusal of a dry run (a public shape, no rows) during which this machine ran out
    of memory: the shape named, the cause not asserted (the arrays a shape needs beyond
    memory are refused by arithmetic first, :func:`check_holdable_shape`)."""
    classes = f" and {_count(n_classes)} classes" if isinstance(n_classes, numbers.Integral) else ""
    features = (f" of {_count(n_features)} features" if isinstance(n_features, numbers.Integral)
                else "")
    verb = caller.rsplit(".", 1)[-1].capitalize()
    return ParameterError(
        f"{caller}: this machine ran out of memory while it worked on the public problem"
        f"{features}{classes} (no rows read). {verb} on a machine with more memory, or with "
        f"fewer features{' or classes' if classes else ''}.")


#: The bytes a 64-bit process addresses at most (a 57-bit virtual address space, x86-64's
#: five-level paging; 128 PiB): a model beyond it has no fit on any machine, so plan and
#: certify refuse it alike, whatever the memory of the machine that plans.
ADDRESSABLE_BYTES = 2**57


def check_holdable_shape(owner: str, n: int, n_features: int, method: str, *,
                         n_classes: int = 1, unit: str = "features") -> None:
    """Refuse, by name, a public shape whose rows or model no fit can hold: n rows of
    ``n_features`` columns and an intercept, n x (n_features + 1) float64 entries, or one block
    of ``n_features`` + 1 coefficients per class (a one-vs-rest fit's binary models, a softmax's
    class blocks, the class centroids), n_classes x (n_features + 1) float64 entries, beyond
    the bytes one numpy array can address; and a model beyond :data:`ADDRESSABLE_BYTES`, which
    no 64-bit machine holds (a plan of a model larger than this machine's memory is still
    made: the dry run reads its size only, and the fit runs on the machine that holds it).

    The bound on ``n_classes`` is that of the rows: a fit holds its model as one array of
    n_classes x (n_features + 1) floats, so a label set larger than that array can address has
    no fit; the check refuses it by name before any number of the shape is read as a float or
    an index.

    Parameters
    ----------
    owner : str
        The estimator, named in the refusal.
    n : int
        The number of rows.
    n_features : int
        The number of columns.
    method : str
        The call (``"plan"``, ``"certify"``, ...).
    n_classes : int, default=1
        The size of the label set (1: a regressor's single model).
    unit : str, default="features"
        What ``n_features`` counts, as the refusals name it: ``"columns"`` where it is a
        table's number of columns (a front door's schema encodes them into more features).

    Raises
    ------
    ParameterError
        n × (n_features + 1) or n_classes × (n_features + 1) float64 entries exceed one numpy
        array.

    Examples
    --------
    >>> from dpconvex.estimators.base import check_holdable_shape
    >>> check_holdable_shape("Demo", 10**6, 100, "plan")
    >>> check_holdable_shape("Demo", 10**18, 3, "plan")
    Traceback (most recent call last):
    ...
    dpconvex.errors.ParameterError: Demo.plan: its checks hold n = 1,000,...,000 rows of 3 ...
    >>> check_holdable_shape("Demo", 100, 3, "plan", n_classes=10**30)
    Traceback (most recent call last):
    ...
    dpconvex.errors.ParameterError: Demo.plan: n_classes = 1,000,...,000 classes of 3 features ...
    """
    limit = np.iinfo(np.intp).max // 8  # numpy's addressable bytes, in float64 entries
    if n * (n_features + 1) > limit:
        raise ParameterError(
            f"{owner}.{method}: its checks hold n = {_count(n)} rows of {_count(n_features)} "
            f"{unit}, more "
            "than one numpy array holds. Give the shape of a table a fit can read.")
    if n_classes * (n_features + 1) > limit:
        raise ParameterError(
            f"{owner}.{method}: n_classes = {_count(n_classes)} classes of "
            f"{_count(n_features)} {unit} "
            "need one block of coefficients per class, more than one numpy array holds. Give "
            "the size of a label set a fit can hold (n_classes, or classes).")
    if 8 * n_classes * (n_features + 1) > ADDRESSABLE_BYTES:
        raise ParameterError(
            f"{owner}.{method}: its model of {_count(n_classes)} block"
            f"{'s' if n_classes > 1 else ''} of {_count(n_features + 1)} float64 coefficients "
            f"needs {_count(8 * n_classes * (n_features + 1))} bytes, more than a 64-bit "
            f"machine addresses (2**57 bytes). Give a shape whose model a fit can hold: fewer "
            f"features{' or classes' if n_classes > 1 else ''}.")


def check_shape_fact(name: str, value: Any, owner: str, *, low: int, method: str = "plan") -> int:
    """A public shape fact given to ``owner.method`` (n, n_classes, n_features) as an int >= ``low``,
    or the :class:`ParameterError` naming it.

    Parameters
    ----------
    name : str
        The fact's name.
    value : object
        Its value.
    owner : str
        The estimator.
    low : int
        The smallest value accepted.
    method : str, default="plan"
        The call.

    Returns
    -------
    int

    Raises
    ------
    ParameterError
        ``value`` is not an int (a bool is not) or is below ``low``.

    Examples
    --------
    >>> from dpconvex.estimators.base import check_shape_fact
    >>> check_shape_fact("n", 500, "Demo", low=2)
    500
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < low:
        raise ParameterError(f"The '{name}' argument of {owner}.{method} must be an int >= {low}. "
                             f"Got {describe_value(value)} instead.")
    return int(value)

