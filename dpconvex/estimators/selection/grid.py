"""End-to-end private hyperparameter tuning ([CMS]_ Alg. 4).

Cross-validation on the private data leaks: the choice depends on every record. CMS Alg. 4 splits the rows at
random into m + 1 disjoint parts, trains candidate i on part i with the full ε, counts the mistakes z_i of
each on the last part and picks one with the exponential mechanism ([MT07]_), probability ∝ exp(−ε z_i / 2):
ε-DP end to end by parallel composition ([McS09]_, [CMS]_ Theorem 24;
docs/privacy/tuning_gd_ledger.md#privacy-private-tuning). With a *public* validation set the rows are split
into m parts and only the training costs privacy.

References
----------
.. [CMS] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially Private
   Empirical Risk Minimization. JMLR 12 (2011), Section 5.2, Alg. 4, Theorem 24.
.. [MT07] F. McSherry, K. Talwar. Mechanism Design via Differential Privacy.
   FOCS 2007 (the exponential mechanism).
.. [McS09] F. McSherry. Privacy Integrated Queries. SIGMOD 2009 (parallel
   composition).
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone, is_regressor
from sklearn.model_selection import ParameterGrid
from sklearn.pipeline import Pipeline
from sklearn.utils import get_tags
from sklearn.utils.metaestimators import available_if

from ..._validation import (
    CheckedParamNames,
    Constraint,
    NoiseSource,
    check_fitted,
    check_float,
    check_seed,
    checks_feature_names,
    describe_value,
    feature_names_of,
    is_dask_collection,
    noise_source,
    signed_by,
    signed_refusal,
    unchecked,
    with_feature_names,
)
from ...data.ranged_rows import rows_feature_range
from ...data.validation import (
    LABEL_POLICY,
    LabelWarning,
    check_array,
    check_classes,
    check_labels,
    encode_labels,
)
from ...errors import (
    DataValidationError,
    DPConvexError,
    ParameterError,
    PrivacyError,
    SolverError,
)
from ...privacy.budget import Budget, hold_budget
from ...privacy.certificate import PREPROCESSING, Certificate, Condition, UncheckedSteps
from ...privacy.composition import compose_tuning
from ...privacy.declarations import vouch_names
from ...privacy.mechanisms.scalar import DERIVED_SENSITIVITY, SelectionTemplate
from ...privacy.release import release
from ..base import (
    NO_CONTEXT,
    PARAMETER_DOCS,
    FitContext,
    PrivateEstimator,
    _shipped_base,
    carry_ledger,
    certify_part,
    check_context,
    fill_docs,
    fit_with,
    fresh_fit,
    not_public_source,
    refuse_fit_params,
    refuse_users_learner,
    state_rows_source,
    state_users_class,
)
from ..parts import Parts, check_rows, mistakes

__all__ = [
    "AUTO_LAM_FACTORS", "PRIVACY_PARAMETERS", "PrivateGridSearch", "auto_lam_grid", "public_size",
]

#: Privacy parameters: the guarantee of every candidate and its ledger, fixed before the data
#: are read (not allowed in the grid: a search that chose them would release the guarantee it chose).
PRIVACY_PARAMETERS = ("epsilon", "delta", "accountant")

#: Parameters the search sets on every candidate itself (not allowed in the grid).
_RESERVED = ("random_state", "unknown_labels", "classes")

#: The privacy parameters of an estimator value of the grid (a Pipeline's step, say) that the
#: search sets on every candidate itself, over the value's own: its ``epsilon``, its noise
#: (``random_state``; a value's may be None or an int, never a generator) and its label policy.
_SET_BY_THE_SEARCH = ("epsilon", "random_state", "unknown_labels")

#: Why the grid cannot tune each privacy parameter the search does not set on every candidate:
#: an estimator value must carry the estimator's (or leave it None: ``classes``), as the grid
#: cannot name them. ``classes`` is set on every candidate where the search or its estimator
#: lists a label set, and is carried as stated otherwise.
_CARRIED = {
    "delta": "it sets the guarantee of every candidate, and the search holds the estimator's",
    "classes": "the search lists no label set to give every candidate, and the estimator lists "
               "none",
}

#: ``param_grid="auto"``: Λ_auto times these factors (fixed before any data is read).
AUTO_LAM_FACTORS = (0.25, 1.0, 4.0)


def auto_lam_grid(estimator: Any, n: int, d: int, epsilon: float, owner: str,
                  factors: Sequence[float] = AUTO_LAM_FACTORS) -> dict[str, list[float]]:
    """``{"lam": [Λ_auto · f for f in factors]}``: candidates centred on the public rule
    (docs/privacy/perturbation.md#privacy-lambda-rule, privacy-private-tuning).

    Λ_auto is what ``lam="auto"`` gives ``estimator`` (a dpconvex linear classifier) with
    ``epsilon`` on n rows of d features, from its public plan (no data is read).

    Parameters
    ----------
    estimator : estimator
        A dpconvex linear classifier with a ``lam`` parameter, binary.
    n : int
        The number of rows each candidate is fitted on.
    d : int
        The number of features.
    epsilon : float
        ε of each candidate's fit.
    owner : str
        The search, named in a refusal.
    factors : sequence of float, default=AUTO_LAM_FACTORS
        The multiples of Λ_auto.

    Returns
    -------
    dict of str to list of float
        ``{"lam": [...]}``.

    Raises
    ------
    ParameterError
        The estimator has no ``lam`` (not a dpconvex linear estimator), or more than two
        classes.

    Examples
    --------
    >>> from dpconvex import PrivateLogisticRegression
    >>> from dpconvex.estimators.selection.grid import auto_lam_grid
    >>> grid = auto_lam_grid(PrivateLogisticRegression(classes=[0, 1]), 1000, 5, 1.0, "Demo")
    >>> len(grid["lam"]), grid["lam"][0] < grid["lam"][1] < grid["lam"][2]
    (3, True)
    """
    from ..linear import _PrivateLinearClassifier

    keys = [key for key in estimator.get_params(deep=True) if _leaf(key) == "lam"]
    if keys != ["lam"] or not isinstance(estimator, _PrivateLinearClassifier):
        raise ParameterError(
            f"The 'param_grid' parameter of {owner} must be an explicit grid for this "
            "estimator: param_grid='auto' needs a dpconvex linear estimator with a 'lam' "
            f"parameter (PrivateLogisticRegression, PrivateHuberSVM, PrivateLinearClassifier); "
            f"got {type(estimator).__name__}. Pass an explicit grid instead.")
    classes = estimator.get_params().get("classes")
    if classes is not None and len(classes) > 2:
        raise ParameterError(
            f"The 'param_grid' parameter of {owner} must be an explicit grid for more than two "
            "classes: param_grid='auto' is for binary problems (one-vs-rest splits epsilon by "
            f"class); got classes={describe_value(classes)}. Pass an explicit grid instead.")
    candidate = clone(estimator).set_params(lam="auto", epsilon=float(epsilon), classes=None)
    lam = float(candidate.plan(int(n), 2, int(d)).lam)  # the public plan: Λ reads n, d only
    return {"lam": [float(f"{lam * factor:.3g}") for factor in factors]}


def _leaf(key: str) -> str:
    return key.rsplit("__", 1)[-1]


def _same(value: Any, given: Any) -> bool:
    """Whether a grid value's privacy parameter ``value`` is the estimator's ``given``: the
    same object, equal strings or numbers, or label sets listing the same labels in the same
    order (a generator is only itself: a value's is a copy of another state)."""
    if value is given:
        return True
    kinds = (str, bytes, np.random.Generator, np.random.RandomState, type(None))
    if isinstance(value, kinds) or isinstance(given, kinds):
        return isinstance(value, (str, bytes)) and type(value) is type(given) and value == given
    if np.ndim(value) or np.ndim(given):  # label sets
        labels = (np.asarray(value, dtype=object), np.asarray(given, dtype=object))
        return bool(np.array_equal(*labels))
    try:
        return bool(value == given)
    except (TypeError, ValueError):
        return False


def _valid_seed(random_state: Any) -> bool:
    """Whether the estimator's ``random_state`` passes :func:`check_seed` (else it is refused as
    the estimator's, not as a grid value's)."""
    try:
        check_seed(random_state, "")
    except (ParameterError, TypeError, ValueError):
        return False
    return True


def _unfitted(params: Mapping[str, Any]) -> dict[str, Any]:
    """A candidate's grid point to set on it, as scikit-learn's searches set them
    (``clone(params, safe=False)``): every estimator among the values (a Pipeline step, say)
    an unfitted clone, any other value a deep copy (a ledger stays itself). A candidate fits
    its own copy, never the caller's object in ``param_grid``, which ``candidates_`` and
    ``best_params_`` hold: a fit of one candidate is not reachable through another's, nor
    through the search's parameters (only the selected candidate's model is released)."""
    return clone(dict(params), safe=False)


def grid_without_ledgers(param_grid: Any) -> Any:
    """``param_grid`` with every estimator among its values (a Pipeline's step, say) an unfitted
    clone whose ``accountant`` parameters are None: the grid of a search whose whole budget a
    caller holds on the ledger itself (:func:`~dpconvex.estimators.sweep.epsilon_sweep`), so
    that its fits charge nothing. Other values, and a grid that is not a dict or a list of
    dicts ("auto"), are kept as given.

    Parameters
    ----------
    param_grid : dict, list of dict, or str
        A search's ``param_grid``.

    Returns
    -------
    dict, list of dict, or str
        The grid, its estimator values' ledgers set aside.

    Examples
    --------
    >>> from dpconvex import BudgetAccountant, PrivateLogisticRegression
    >>> from dpconvex.estimators.selection.grid import grid_without_ledgers
    >>> grid = {"clf": [PrivateLogisticRegression(accountant=BudgetAccountant(epsilon=1.0))]}
    >>> grid_without_ledgers(grid)["clf"][0].accountant is None
    True
    """
    if isinstance(param_grid, Mapping):
        return {key: _without_ledgers(values) for key, values in param_grid.items()}
    if isinstance(param_grid, (list, tuple)):
        return type(param_grid)([grid_without_ledgers(grid) for grid in param_grid])
    return param_grid


def _without_ledgers(value: Any) -> Any:
    """``value``, an estimator in it (itself, or in a list or tuple) an unfitted clone without
    its ledgers."""
    if hasattr(value, "get_params") and not isinstance(value, type):
        keys = [key for key in value.get_params(deep=True) if _leaf(key) == "accountant"]
        return clone(value).set_params(**dict.fromkeys(keys))
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)([_without_ledgers(item) for item in value])
    return value


def _check_param_grid(param_grid: Any, valid: Sequence[str], owner: str) -> list[dict[str, Any]]:
    """Validate a grid (dict or list of dicts of non-empty lists) and expand it."""
    grids = [param_grid] if isinstance(param_grid, Mapping) else param_grid
    if (not isinstance(grids, (list, tuple)) or len(grids) == 0
            or not all(isinstance(grid, Mapping) and len(grid) > 0 for grid in grids)):
        raise ParameterError(
            f"The 'param_grid' parameter of {owner} must be a dict, or a non-empty list of "
            "dicts, mapping parameter names to non-empty lists of values fixed before seeing "
            f"the data. Got {describe_value(param_grid)} instead.")
    for grid in grids:
        for key, values in grid.items():
            if not isinstance(key, str) or key not in valid:
                raise ParameterError(
                    f"The 'param_grid' parameter of {owner} must name the estimator's parameters: "
                    f"{key!r} is not a parameter of the estimator. Valid parameters: "
                    f"{sorted(valid)}."
                )
            if _leaf(key) in PRIVACY_PARAMETERS:
                raise ParameterError(
                    f"The 'param_grid' parameter of {owner} must not hold privacy parameters "
                    f"{PRIVACY_PARAMETERS}: {key!r} sets the guarantee of every candidate, and a "
                    "search that chose it from the data would release the guarantee it chose. Set "
                    "epsilon on the search and delta (or the accountant) on the estimator, one "
                    "value "
                    "for every candidate; to compare guarantees, run one search per value, each "
                    "its "
                    "own release."
                )
            if _leaf(key) in _RESERVED:
                raise ParameterError(
                    f"The 'param_grid' parameter of {owner} must leave {_RESERVED} to the search: "
                    f"{key!r} cannot be tuned: the search sets them on every candidate itself "
                    "(classes is its public label set). Drop it from the grid."
                )
            if isinstance(values, (str, bytes)) or not isinstance(
                values, (list, tuple, np.ndarray)
            ):
                raise ParameterError(
                    f"The 'param_grid' parameter of {owner} must map names to lists of "
                    f"candidates: the values of {key!r} must be a list (or tuple, or 1-D array) "
                    f"of candidates. Got {describe_value(values)} instead."
                )
            if len(values) == 0 or (isinstance(values, np.ndarray) and values.ndim != 1):
                raise ParameterError(
                    f"The 'param_grid' parameter of {owner} must map names to lists of "
                    "candidates: the "
                    f"values of {key!r} must be a non-empty 1-D list. "
                    f"Got {describe_value(values)} instead."
                )
    return list(ParameterGrid(list(grids)))


def public_size(X: Any) -> tuple[int | None, int | None]:
    """(n, d) where X tells them before its rows are read (its shape; for rows given as
    sequences their number and the first row's length; for a mapping of columns of one length,
    that length and the number of columns), else None for each.

    Parameters
    ----------
    X : array-like
        The rows, unread.

    Returns
    -------
    tuple of (int or None, int or None)
        (n, d).

    Examples
    --------
    >>> from dpconvex.estimators.selection.grid import public_size
    >>> public_size(np.zeros((5, 2))), public_size([[1, 2, 3], [4, 5, 6]]), public_size("rows")
    ((5, 2), (2, 3), (None, None))
    >>> public_size({"a": [1, 2, 3], "b": ["x", "y", "z"]})
    (3, 2)
    """
    if isinstance(X, Mapping) and not hasattr(X, "shape") and len(X):  # columns (not a DOK)
        try:
            lengths = {len(column) for column in X.values()}
        except (TypeError, ValueError):  # a column without a length (a lazy one)
            return None, None
        return (lengths.pop(), len(X)) if len(lengths) == 1 else (None, None)
    shape = tuple(getattr(X, "shape", ()))
    # rows as sequences: n and the first row's length
    if not shape and isinstance(X, (list, tuple)) and X and hasattr(X[0], "__len__") \
            and not isinstance(X[0], (str, bytes)):
        shape = (len(X), len(X[0]))
    n, d = shape if len(shape) == 2 else (None, None)
    return (n if isinstance(n, int) else None), d


def _counted_size(X: Any) -> tuple[int | None, int | None]:
    """:func:`public_size`, with n of a Dask collection whose chunk sizes are unknown counted
    as a fit's plan counts it (:meth:`~dpconvex.estimators.base.PrivateEstimator.public_shape`:
    n is public under replace-one; no value of a row is read), so that its candidates are
    planned, and their δ held, before the data are read."""
    n, d = public_size(X)
    if n is None and d is not None and is_dask_collection(X):
        from ...data.dask_rows import compute, known_chunks

        try:
            n = int(known_chunks(X).shape[0] if hasattr(X, "chunks") else compute(X.shape[0])[0])
        except (TypeError, ValueError, DPConvexError):
            n = None
    return n, d


@contextlib.contextmanager
def naming_candidate(params: Mapping[str, Any], caller: str) -> Iterator[None]:
    """A candidate's refusal (:class:`PrivacyError`, :class:`SolverError`) raised in this block,
    of the same type, opening with ``caller`` and the candidate's parameters as ``key=value``
    (public: the grid is public; each value as :func:`describe_value` shows a parameter), its
    text after the opening kept (:func:`signed_refusal`); nothing else added. A refusal that
    opens with ``caller`` already is the search's own (e.g. of a pipeline step every candidate
    shares) and is raised as it is.

    Examples
    --------
    >>> from dpconvex.errors import SolverError
    >>> try:
    ...     with naming_candidate({"max_iter": 1}, "PrivateGridSearch.fit"):
    ...         raise SolverError("PrivateLogisticRegression.fit: the solve did not converge.")
    ... except SolverError as exc:
    ...     print(exc)
    PrivateGridSearch.fit: candidate max_iter=1: the solve did not converge.
    """
    try:
        yield
    except (PrivacyError, SolverError) as exc:
        if str(exc).startswith(f"{caller}: "):  # the search's own refusal
            raise
        text = str(signed_refusal(exc, caller))
        if text.startswith(f"{caller}: "):
            text = text[len(caller) + 2:]
        named = ", ".join(f"{key}={describe_value(value)}" for key, value in params.items())
        raise type(exc)(f"{caller}: candidate {named}: {text}") from None


def _find_certificate(estimator: Any, owner: str) -> Certificate:
    """The certificate of a fitted estimator, or of the single private step of a Pipeline."""
    certificate = getattr(estimator, "certificate_", None)
    if certificate is not None:
        return certificate
    steps = [step for _, step in getattr(estimator, "steps", [])]
    certificates = [
        step.certificate_ for step in steps if getattr(step, "certificate_", None) is not None
    ]
    if len(certificates) != 1:
        raise PrivacyError(
            f"{owner}.fit: the fitted candidate {type(estimator).__name__} exposes "
            f"{len(certificates)} privacy certificates (certificate_); exactly one is needed "
            "to account for it. Use a dpconvex private estimator (or a Pipeline ending in one)."
        )
    return certificates[0]


#: The searches' ledger and label-set entries, written into their docstrings at ``{search_ledger_labels}``.
PARAMETER_DOCS["search_ledger_labels"] = fill_docs("""\
    {accountant}
        The search's whole (ε, δ) is charged once, to this ledger or else to one the
        estimator or an estimator among the values of ``param_grid`` holds (two different
        ledgers among these are refused with a ParameterError).
    classes : sequence of labels or None, default=None
        The public label set, given to every candidate; None and an estimator that
        declares ``classes``: its set (a different set on each is refused).
        {classes_none}
    {unknown_labels}
    vouch : str or tuple of str, default=()
        Names from ``("preprocessing", "learner")``, or nothing. ``"preprocessing"``: the
        caller vouches that the pipeline steps outside dpconvex (a ``FunctionTransformer``,
        a ``Normalizer``) each map each record by itself alone, which dpconvex cannot check
        (a function that reads the whole X lets one record move every row). ``"learner"``:
        the caller vouches that a learner of a class dpconvex does not ship (one of the
        user's with an ``epsilon`` and a ``certificate_``) releases in its fit only what its
        ``certificate_`` states, the user's own statement, which dpconvex cannot check.
        Without the vouch such a step or learner is refused by a PrivacyError before any
        candidate is fitted (nothing charged); with it the certificate states the condition
        as declared and vouched for, not verified (ignored where nothing needs it).
""")


#: The name a caller vouches for (a search's ``vouch=``) that a learner of a class dpconvex
#: does not ship releases, in its fit, only what its own ``certificate_`` states: that
#: certificate is the learner's own statement, which dpconvex cannot check
#: (:func:`refuse_declared_learner`).
LEARNER = "learner"

#: What a search's ``vouch`` may name.
SEARCH_VOUCHABLE = (PREPROCESSING, LEARNER)


def declared_learner(estimator: Any) -> str | None:
    """The name of the learner of ``estimator`` (itself, or a Pipeline's last step) where its
    class is not one dpconvex ships (no shipped class with a private ``fit`` in its MRO): its
    ``certificate_`` is declared by the user's own code, not verified; None for a shipped
    learner (a class of the user's derived from one is
    :func:`~dpconvex.estimators.base.refuse_users_learner`'s).

    Parameters
    ----------
    estimator : estimator
        The learner, or a Pipeline ending in it (nested Pipelines: their last step).

    Returns
    -------
    str or None

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> from dpconvex import PrivateLogisticRegression
    >>> from dpconvex.estimators.selection.grid import declared_learner
    >>> declared_learner(PrivateLogisticRegression()) is None
    True
    >>> declared_learner(LogisticRegression())
    'LogisticRegression'
    """
    while isinstance(estimator, Pipeline) and estimator.steps:
        estimator = estimator.steps[-1][-1] if isinstance(estimator.steps[-1], tuple) else None
    if estimator is None or _shipped_base(estimator) is not None:
        return None
    return type(estimator).__name__


def refuse_declared_learner(estimator: Any, vouch: tuple[str, ...], caller: str) -> None:
    """PrivacyError where the learner of ``estimator`` is of a class dpconvex does not ship
    (:func:`declared_learner`) and ``vouch`` does not name :data:`LEARNER`: the search would
    compose the ``certificate_`` the user's fit sets into its own (ε, δ) claim, and nothing
    checks that the fit releases only what it states (it may read the rows freely).

    Parameters
    ----------
    estimator : estimator
        The search's estimator (or a candidate).
    vouch : tuple of str
        The search's ``vouch``, checked (:func:`search_vouch`).
    caller : str
        The public call, named in the refusal.

    Raises
    ------
    PrivacyError
        The learner is a user's and ``vouch`` does not name ``"learner"``.

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> from dpconvex.estimators.selection.grid import refuse_declared_learner
    >>> refuse_declared_learner(LogisticRegression(), ("learner",), "Demo.fit")  # vouched
    >>> refuse_declared_learner(LogisticRegression(), (), "Demo.fit")
    Traceback (most recent call last):
    ...
    dpconvex.errors.PrivacyError: Demo.fit: the learner LogisticRegression is not a class ...
    """
    name = declared_learner(estimator)
    if name is None or LEARNER in vouch:
        return
    owner = caller.partition(".")[0]
    raise PrivacyError(
        f"{caller}: the learner {name} is not a class dpconvex ships, and the certificate of "
        f"{owner} would compose the certificate_ its fit sets, a statement of the user's code "
        "that nobody checked (its fit may read the rows freely and state any epsilon). Use a "
        "dpconvex private estimator, or pass vouch=('learner',) to vouch that its fit "
        "releases only what its certificate_ states (the certificate then states it as "
        "declared, not verified)."
    )


def learner_condition(name: str, vouched: bool) -> Condition:
    """The condition a certificate that composes the ``certificate_`` of a learner of the
    user's (``name``, :func:`declared_learner`) rests on: declared, not verified
    (:attr:`~dpconvex.privacy.certificate.Condition.unverified` :data:`LEARNER`), vouched for
    by the caller where ``vouched``.

    Parameters
    ----------
    name : str
        The learner's class name.
    vouched : bool
        Whether the caller vouched for it (``vouch=("learner",)``).

    Returns
    -------
    Condition

    Examples
    --------
    >>> from dpconvex.estimators.selection.grid import learner_condition
    >>> c = learner_condition("Mine", vouched=True)
    >>> c.unverified, c.vouched, c.how
    ('learner', True, 'declared; vouched for by the caller (vouch=), not verified')
    """
    how = ("declared; vouched for by the caller (vouch=), not verified" if vouched
           else "declared, not verified")
    return Condition("the learner's fit releases only what its certificate_ states", True, how,
                     f"the learner {name} is not a class dpconvex ships: its certificate_ is "
                     "its own statement, not checked by dpconvex", LEARNER, vouched=vouched)


def state_declared_learner(certificate: Certificate, estimator: Any,
                           parts: Sequence[Certificate] = (), vouched: bool = True) -> None:
    """State on ``certificate`` that the certificate of a learner of the user's it composes is
    the learner's own statement (:func:`learner_condition`), where the learner of
    ``estimator`` is one (:func:`declared_learner`); and, each once, such conditions the
    certificates ``parts`` state (a swept search's).

    Parameters
    ----------
    certificate : Certificate
        The composing certificate.
    estimator : estimator or None
        The learner (or a Pipeline ending in it) whose fits' certificates are composed.
    parts : sequence of Certificate, default=()
        Composed certificates whose learner conditions are stated at the top.
    vouched : bool, default=True
        Whether the caller vouched for the learner of ``estimator`` (a search: it refuses
        one otherwise; an ε sweep of a model of the user's: not vouched, its fits being the
        model's own).

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> from dpconvex import Certificate
    >>> from dpconvex.estimators.selection.grid import state_declared_learner
    >>> whole = Certificate("search", 1.0, 1.0)
    >>> state_declared_learner(whole, LogisticRegression())
    >>> [c.unverified for c in whole.conditions], whole.assumptions[0].startswith("vouched")
    (['learner'], True)
    """
    name = None if estimator is None else declared_learner(estimator)
    found = [c for part in parts for c in part.conditions if c.unverified == LEARNER]
    if name is not None:
        found.append(learner_condition(name, vouched=vouched))
    for condition in dict.fromkeys(found):
        if condition in certificate.conditions:
            continue
        certificate.conditions.append(condition)
        by = (f"vouched for by the caller (vouch={LEARNER!r}): " if condition.vouched
              else "not checked by dpconvex: ")
        certificate.state(f"{by}{condition.detail}; this certificate composes it as stated")


@dataclass(frozen=True)
class _SearchVouch(Constraint):
    """A search's ``vouch``: a name of :data:`SEARCH_VOUCHABLE`, or a tuple of them."""

    def check(self, name: str, value: Any, owner: str, noun: str = "parameter") -> Any:
        names = vouch_names(value) if isinstance(value, (str, tuple, list)) else None
        if names is None or any(v not in SEARCH_VOUCHABLE for v in names):
            raise self.refusal(name, value, owner, noun)
        return names

    def __str__(self) -> str:
        return (f"a tuple of names from {SEARCH_VOUCHABLE} (a learner's constants are vouched "
                "for by its own vouch parameter)")


def search_vouch(value: Any, owner: str) -> tuple[str, ...]:
    """A search's ``vouch``, checked: a tuple of names from :data:`SEARCH_VOUCHABLE`.

    Parameters
    ----------
    value : str or sequence of str
        The parameter's value.
    owner : str
        The search, named in the refusal.

    Returns
    -------
    tuple of str

    Raises
    ------
    ParameterError
        ``value`` names something else.

    Examples
    --------
    >>> from dpconvex.estimators.selection.grid import search_vouch
    >>> search_vouch("preprocessing", "PrivateGridSearch"), search_vouch((), "PrivateGridSearch")
    (('preprocessing',), ())
    """
    return _SearchVouch().check("vouch", value, owner)


def state_vouched_steps(certificate: Certificate, parts: Sequence[Certificate]) -> None:
    """State on a search's ``certificate`` the pipeline steps outside dpconvex its candidates'
    certificates (``parts``) state as vouched for
    (:class:`~dpconvex.privacy.certificate.UncheckedSteps`): their condition among its
    conditions, their line among its assumptions, each once.

    Parameters
    ----------
    certificate : Certificate
        The search's certificate.
    parts : sequence of Certificate
        Its candidates' certificates.

    Examples
    --------
    >>> from dpconvex import Certificate
    >>> from dpconvex.privacy.certificate import UncheckedSteps
    >>> line = UncheckedSteps((("f", "FunctionTransformer"),), vouched=True)
    >>> part = Certificate("m", 1.0, 1.0, assumptions=[line])
    >>> whole = Certificate("search", 1.0, 1.0)
    >>> state_vouched_steps(whole, [part, part])
    >>> [c.unverified for c in whole.conditions], whole.line(UncheckedSteps).vouched
    (['preprocessing'], True)
    """
    lines = [line for part in parts for line in part.lines
             if isinstance(line, UncheckedSteps) and line.vouched]
    for line in dict.fromkeys(lines):
        certificate.conditions.append(line.condition())
        certificate.state(line)


@dataclass(frozen=True)
class Selected:
    """What a search released: the candidates, the index of the selected one and its model,
    the sizes of the parts, the certificate, and (a public validation set only) the
    mistakes of every candidate on it."""

    candidates: list[dict[str, Any]]
    best: int
    model: Any
    sizes: list[int]
    certificate: Certificate
    validation_mistakes: np.ndarray | None = None


class SelectedEstimator(CheckedParamNames):
    """What a private selection shares: its ``fit`` (one skeleton, :meth:`_fit_with`; each
    search fills :meth:`_check_params`, :meth:`_budget` and :meth:`_select`) and ``certify``
    (each search's :meth:`_certify_with`), the public facts a caller that holds the search's
    budget reads (:meth:`budget_for`, :meth:`charged_ledger`, :meth:`public_classes`), the
    inner estimator's tags, the parameter keys of a leaf name, and predictions delegated to
    ``best_estimator_`` (post-processing)."""

    estimator: Any
    _store_params = PrivateEstimator._store_params
    _absent_param_reasons = PrivateEstimator._absent_param_reasons

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.__doc__ = fill_docs(cls.__doc__)  # the shared parameter entries

    def __sklearn_tags__(self):  # type: ignore[no-untyped-def]
        tags = super().__sklearn_tags__()  # type: ignore[misc]
        inner = get_tags(self.estimator)
        tags.classifier_tags = inner.classifier_tags
        tags.input_tags = inner.input_tags
        # split, noise and selection are drawn from random_state: as deterministic as the
        # estimator it tunes
        tags.non_deterministic = inner.non_deterministic
        return tags

    def _keys(self, leaf: str, base: dict[str, Any] | None = None) -> list[str]:
        """The estimator's parameters named ``leaf`` (``base``: its ``get_params(deep=True)``,
        read here where not given)."""
        params = self.estimator.get_params(deep=True) if base is None else base
        return [key for key in params if _leaf(key) == leaf]

    def _noise_owners(self, candidate: Any) -> list[Any]:
        """The objects of ``candidate`` that hold a ``random_state`` parameter, in the order
        of ``_keys("random_state")`` (``candidate`` itself, or Pipeline steps): the fits that
        the search hands a generator (:func:`~dpconvex.estimators.base.fit_with`)."""
        params = candidate.get_params(deep=True)
        return [params[key.rpartition("__")[0]] if "__" in key else candidate
                for key in self._keys("random_state")]

    def _sources(self, candidate: Any, stream: np.random.Generator, seeded: bool
                 ) -> list[tuple[Any, NoiseSource]]:
        """Each of :meth:`_noise_owners` with its own stream spawned from ``stream``; unseeded, one whose
        draws are released (no ``epsilon``: random features) draws from fresh OS entropy: SeedSequence's
        mixing is invertible, so its released outputs would lead back to every learner's noise."""
        owners = self._noise_owners(candidate)
        streams = [stream, *stream.spawn(max(len(owners) - 1, 0))]
        return [
            (
                o,
                NoiseSource(
                    s if seeded or "epsilon" in o.get_params() else np.random.default_rng(), seeded
                ),
            )
            for o, s in zip(owners, streams, strict=False)
        ]

    def fit(self, X: Any, y: Any, *, context: FitContext = NO_CONTEXT, **fit_params: Any) -> Any:
        """Split the rows, train the candidates, select one privately; return self
        (``fit_params``, e.g. ``sample_weight``, are refused by name). ``context``: as
        :meth:`PrivateEstimator.fit <dpconvex.estimators.base.PrivateEstimator.fit>` takes it
        (a meta-estimator's part: the context that fit issued; any other is refused).

        Raises
        ------
        ParameterError, DataValidationError, PrivacyError, BudgetError
            And any error of a candidate's fit (nothing is released then).
        """
        refuse_fit_params(f"{type(self).__name__}.fit", fit_params)
        try:
            with fresh_fit(self):  # nothing of an earlier fit (another release) is kept
                if check_context(context, f"{type(self).__name__}.fit") is not NO_CONTEXT:
                    return state_users_class(self._fit_with(X, y, context))
                fitted = state_rows_source(self._fit_with(X, y, NO_CONTEXT), X)
        except (PrivacyError, SolverError) as exc:  # a candidate's refusal: in this call's name
            raise signed_refusal(exc, f"{type(self).__name__}.fit") from None
        state_rows_source(getattr(fitted, "best_estimator_", None), X)  # the released model's too
        return state_users_class(fitted)  # a class of the user's: its methods unchecked

    def certify(self, X: Any, y: Any) -> Certificate:
        """The certificate a fit on (X, y) would carry, without training (no noise drawn,
        nothing charged).

        The candidates a fit trains are certified through their public ``certify`` (a dry
        run of the release) on parts of the sizes they would get, the selection by a dry run
        of its mechanism (:meth:`_certify_with`). A random search certifies its first
        candidate: every run has the same bound ε₁, so the ε accounting does not depend on
        which is released.

        Raises
        ------
        ParameterError, DataValidationError, PrivacyError
            What ``fit`` would raise for the candidates (a learner of the user's derived from
            one dpconvex ships among them:
            :func:`~dpconvex.estimators.base.refuse_users_learner`).
        """
        self._refuse_a_draft(X, f"{type(self).__name__}.certify")
        owner = type(self).__name__
        refuse_users_learner(self.estimator, f"{owner}.certify")
        refuse_declared_learner(self.estimator, search_vouch(self.vouch, owner),
                                f"{owner}.certify")
        self._refuse_ranges_given_twice(X, owner)
        certificate = self._certify_with(X, y)  # type: ignore[attr-defined]
        state_declared_learner(certificate, self.estimator)  # vouched: refused above otherwise
        return certificate

    def budget_for(self, X: Any, y: Any) -> Budget:
        """The (ε, δ) a fit on (X, y) holds on its ledger, known before the data are read
        (from the parameters and the public shape; nothing drawn or charged).

        What a caller that holds the search's budget itself needs (e.g. an ε sweep holding
        the sum of its fits' budgets before any data are read).

        Raises
        ------
        ParameterError, DataValidationError
            What ``fit`` would raise for the parameters or a candidate's plan.

        Examples
        --------
        >>> import numpy as np
        >>> from dpconvex import PrivateGridSearch, PrivateLogisticRegression
        >>> X = np.random.default_rng(0).normal(size=(60, 3)) / 2; y = (X[:, 0] > 0).astype(int)
        >>> search = PrivateGridSearch(PrivateLogisticRegression(classes=[0, 1]),
        ...                            {"lam": [0.1, 1.0]}, epsilon=1.0)
        >>> search.budget_for(X, y)
        Budget(epsilon=1.0, delta=0.0)
        """
        owner = type(self).__name__
        params, _ = self._check_params(owner)
        return self._budget(X, y, params, self._public_classes(owner), owner)[0]

    def charged_ledger(self) -> Any:
        """The ledger a fit charges its whole (ε, δ) to, once: ``accountant``, else the one
        its estimator or an estimator among the values of ``param_grid`` holds (None: none
        holds one).

        Raises
        ------
        ParameterError
            Where these hold two different ledgers, or a value of ``param_grid`` is refused.
        PrivacyError
            Where a value of ``param_grid`` gives candidates fitted on a schema read from the
            data.

        Examples
        --------
        >>> from dpconvex import BudgetAccountant, PrivateGridSearch, PrivateLogisticRegression
        >>> ledger = BudgetAccountant(epsilon=5.0)
        >>> search = PrivateGridSearch(PrivateLogisticRegression(accountant=ledger),
        ...                            {"lam": [0.1, 1.0]}, epsilon=1.0)
        >>> search.charged_ledger() is ledger
        True
        """
        return self._ledger(type(self).__name__)

    def public_classes(self) -> Any:
        """The public label set every candidate is given: ``classes``, else the set its
        estimator declares (None: a fit reads the set from y).

        Raises
        ------
        ParameterError
            Where the two list different labels, or a set is not a valid label set.

        Examples
        --------
        >>> from dpconvex import PrivateGridSearch, PrivateLogisticRegression
        >>> PrivateGridSearch(PrivateLogisticRegression(classes=[0, 1]), {"lam": [0.1]},
        ...                   epsilon=1.0).public_classes()
        [0, 1]
        >>> PrivateGridSearch(PrivateLogisticRegression(), {"lam": [0.1]},
        ...                   epsilon=1.0).public_classes() is None
        True
        """
        return self._public_classes(type(self).__name__)

    def _fit_with(self, X: Any, y: Any, context: FitContext) -> Any:
        """:meth:`fit` inside ``context``, the skeleton of every search: refuse a draft and a
        learner of the user's standing in for a shipped one
        (:func:`~dpconvex.estimators.base.refuse_users_learner`), check the parameters
        (:meth:`_check_params`, each value of the grid given its candidate once, the ledgers
        these hold handed on to :meth:`_ledger`) and the public label set (once, for every
        step that reads it), one label-set warning for every candidate (first), its budget
        (:meth:`_budget`) and generator, hold the budget, check the rows,
        train and select (:meth:`_select`), commit, set the selected model. The candidates
        draw from generators spawned from this fit's (``context.noise``, else
        ``random_state``); its parts and selection read every row."""
        owner = type(self).__name__
        self._refuse_a_draft(X, f"{owner}.fit")
        refuse_users_learner(self.estimator, f"{owner}.fit")  # each candidate's: fit_with
        self._refuse_ranges_given_twice(X, owner)
        names = feature_names_of(X, f"{owner}.fit")
        params, grid_ledgers = self._check_params(owner)
        # a learner of a class dpconvex does not ship: its certificate_ the user's statement
        refuse_declared_learner(self.estimator, search_vouch(self.vouch, owner), f"{owner}.fit")
        classes = self._public_classes(owner)
        context = context.every_row(owner).one_label_warning(  # one label warning for all, first
            owner=owner if classes is None else "", y=y)
        budget, n_public = self._budget(X, y, params, classes, owner)
        noise = self._noise(owner, context.noise)
        # the ledger is checked (and the budget held) before the data are read; δ against the n
        # rows of the whole set, once: the candidates fit inside this hold
        ledger = self._ledger(owner, grid_ledgers)
        with hold_budget(ledger, budget, owner, n=None if context.held else n_public) as hold:
            X_checked, y_checked = self._checked_rows(X, y, classes, f"{owner}.fit")
            if isinstance(X, Mapping):  # a mapping of columns: named by its keys, as a fit names it
                names = feature_names_of(X_checked, f"{owner}.fit")
            selected = self._select(X_checked, y_checked, params, classes, context, noise)
            state_declared_learner(selected.certificate, self.estimator)
            hold.commit_certificate(selected.certificate)
        return self._set_selected(selected, X_checked.shape[1], names, ledger)

    def _check_params(self, owner: str) -> tuple[Any, list[tuple[str, Any]]]:
        """The search's parameters, checked before anything is read: (ε, ``unknown_labels``),
        and the ledgers the grid's values hold (:meth:`_checked`)."""
        epsilon, unknown, grid_ledgers = self._checked(owner)
        return (epsilon, unknown), grid_ledgers

    def _budget(self, X: Any, y: Any, params: Any, classes: Any,
                owner: str) -> tuple[Budget, int | None]:
        """The (ε, δ) a fit on (X, y) holds, known before the data are read, and n where X
        tells it; ``params``: :meth:`_check_params`'s first, ``classes``:
        :meth:`_public_classes`'s."""
        raise NotImplementedError

    def _select(self, X: Any, y: Any, params: Any, classes: Any, context: FitContext,
                noise: NoiseSource) -> Selected:
        """Train the candidates on the checked rows and select one privately, inside the
        search's hold; ``params``: :meth:`_check_params`'s first, ``classes``:
        :meth:`_public_classes`'s."""
        raise NotImplementedError

    def _refuse_a_draft(self, X: Any, caller: str) -> None:
        """Private tuning needs private candidates: fitted on a schema read from the data
        (:func:`~dpconvex.estimators.base.not_public_source`) none is, so the search is refused
        before the data are read; so is a private step that encodes its table by a schema released
        by ``draft_schema`` (its certificate composes that release before its model). The
        values of the grid are checked alike by :meth:`_grid_values`."""
        if not_public_source(self.estimator, X) is not None:
            raise PrivacyError(
                f"{caller}: its candidates would be fitted on a schema read from the data "
                "(suggested=True: "
                "draft_schema without epsilon), so none is private, and private tuning needs "
                "private "
                "candidates. Declare the reviewed schema in code or draft it with epsilon=...; "
                "for a "
                "non-private baseline use sklearn.model_selection.GridSearchCV."
            )
        params = (
            {}
            if isinstance(self.estimator, type)
            else getattr(self.estimator, "get_params", dict)()
        )
        for key, value in params.items():
            release = getattr(value, "release", None) if _leaf(key) == "schema" else None
            prefix = key[:-len("schema")]  # "" or a Pipeline step's "name__"
            if release is not None and f"{prefix}epsilon" in params:
                step = type(params[prefix[:-2]] if prefix else self.estimator).__name__
                raise ParameterError(
                    f"{caller}: its estimator's {key!r} is a schema released by draft_schema "
                    "(epsilon = "
                    f"{release.epsilon:g}), which every candidate's certificate composes before "
                    "its model: "
                    "the candidates would not compose within the search's epsilon. Encode the "
                    "table in a "
                    "pipeline step and tune the pipeline, e.g. "
                    "make_pipeline(PublicEncoder(schema), "
                    f"{step}(...)) (the schema's release stays charged to draft_schema's ledger)."
                )

    def _refuse_ranges_given_twice(self, X: Any, owner: str) -> None:
        """Refuse, before the data are read, rows X that carry their public ranges
        (:class:`~dpconvex.data.RangedRows`, :class:`~dpconvex.PublicEncoder`'s) given to a
        search whose estimator, or a candidate of its ``param_grid``, takes such ranges and has
        a ``feature_range`` beyond them: the ranges given twice, refused as that estimator's own
        fit refuses them (its ``_with_rows_ranges``). A candidate that cannot be made is left
        to the refusals of the grid's checks."""
        if rows_feature_range(X) is None:
            return
        grid = self.param_grid
        auto = isinstance(grid, str) and grid == "auto"  # lam factors alone
        try:
            settings = [{}, *([] if auto else self._grid_candidates(owner))]
        except DPConvexError:  # the grid's form: refused by its checks
            return
        for params in settings:
            try:
                candidate = clone(self.estimator).set_params(**_unfitted(params))
            except (DPConvexError, ValueError, TypeError, AttributeError):
                continue  # refused by name by the grid's checks
            if getattr(candidate, "takes_rows_ranges", False):
                candidate._with_rows_ranges(X)  # the refusal, if any; nothing is fitted

    def _checked_rows(self, X: Any, y: Any, classes: Any, caller: str) -> tuple[Any, Any]:
        """(X, y) checked once for every candidate, against the public label set ``classes``
        (:meth:`_public_classes`; Dask rows stay on the workers)."""
        return check_rows(
            X,
            y,
            caller,
            self.estimator,
            classes=classes,
            unknown_labels=self.unknown_labels,
        )

    def _grid_candidates(self, owner: str, part: tuple[int, int] | None = None,
                         epsilon: float = 1.0) -> list[dict[str, Any]]:
        """The expanded ``param_grid``; for "auto", Λ_auto × factors on a part of ``part``
        = (rows, features) at ``epsilon``, or the factors alone before the size is known."""
        valid = list(self.estimator.get_params(deep=True))
        grid = self.param_grid
        if isinstance(grid, str) and grid == "auto":
            if part is None:
                return [{"lam": factor} for factor in AUTO_LAM_FACTORS]
            grid = auto_lam_grid(self.estimator, part[0], part[1], epsilon, owner)
        return _check_param_grid(grid, valid, owner)

    def _planned_delta(self, part: tuple[Any, Any], epsilon: float, classes: Any, owner: str,
                       rows: tuple[Any, Any] | None = None) -> float | None:
        """The largest δ a candidate's plan spends on a part of ``part`` = (rows, features) (its "auto" δ
        included): from the part's shape and the public label set, else the one a fit reads from the labels
        of ``rows`` = (X, y) (None where these or a plan are not at hand). A bad candidate is refused here,
        by its own name, before any candidate is fitted. A Pipeline's private step is planned at the width of
        X (its transforms' is known once they run): None where its checks refuse that width or X's columns."""
        key = self._epsilon_key(owner)
        path = key.rpartition("__")[0]  # the private step of a Pipeline ("": the estimator itself)
        private = self.estimator.get_params(deep=True)[path] if path else self.estimator
        classes = classes if getattr(private, "_reads_label_set", True) else [0]
        if (not hasattr(private, "plan") or (classes is None and rows is None)
                or not isinstance(part[0], int) or part[0] < 2 or not int(part[1]) >= 1):
            return None  # the search refuses such data itself
        models = [clone(self.estimator).set_params(**_unfitted(params), **{key: epsilon})
                  for params in self._grid_candidates(owner, part, epsilon)]
        steps = [m.get_params(deep=True)[path] if path else m for m in models]
        for step in steps:  # its parameters refused by name here; only its input width is unknown
            step._validate_params()
        try:
            # the label set read as fit does, refused as the search
            with signed_by(private, f"{owner}.fit"):
                schema = private.get_params(deep=False).get("schema")  # a front door's table
                if rows is not None and schema is not None:  # X's width is planned
                    from ...data.encoder import check_table_columns

                    check_table_columns(schema, rows[0], f"{owner}.fit")
                classes = range(private.public_shape(*rows)[1]) if classes is None else classes
            return max(
                (s.plan(part[0], len(classes), int(part[1])).budget.delta for s in steps),
                default=0.0,
            )
        except (ParameterError, DataValidationError):
            if not path:
                raise
            return None

    def _checked(self, owner: str) -> tuple[float, str, list[tuple[str, Any]]]:
        """(ε, ``unknown_labels``), checked, after checking the estimator has one ``epsilon``
        and each value of the grid (its candidate built once, :meth:`_grid_values`; the public
        label set: :meth:`_public_classes`); and the ledgers these candidates hold
        (:meth:`_grid_ledgers`, handed to :meth:`_ledger`)."""
        epsilon = check_float("epsilon", self.epsilon, owner)
        unknown = LABEL_POLICY.check("unknown_labels", self.unknown_labels, owner)
        search_vouch(self.vouch, owner)
        self._epsilon_key(owner)
        named = self._grid_values(owner)  # every value of the grid, refused by name before data
        return epsilon, unknown, self._grid_ledgers(named)

    def _grid_values(self, owner: str) -> list[tuple[str, Any]]:
        """Each value of ``param_grid`` named ("value i of 'key' (a Type)") with the unfitted
        candidate it gives, set alone on a clone of the estimator ("auto": none, its values
        are Λ's), checked before any data are read.

        Refused by a ParameterError naming the value: one whose candidate is not shaped as the
        estimator (other keys of the parameters the search sets on every candidate: ``epsilon``,
        ``accountant``, :data:`_RESERVED`), a value carrying a privacy parameter the
        search does not set other than the estimator's (:meth:`_refuse_carried`), or one whose
        private step encodes its table by a schema released by ``draft_schema``; by a
        PrivacyError: one whose candidate would be fitted on a schema read from the data (as
        the estimator itself is refused: :meth:`_refuse_a_draft`), and one whose learner is a class
        of the user's standing in for a shipped one or, without ``vouch="learner"``, of a class
        dpconvex does not ship (as the estimator's: ``refuse_users_learner``,
        :func:`refuse_declared_learner`).
        """
        if isinstance(self.param_grid, str) and self.param_grid == "auto":
            return []
        self._grid_candidates(owner)  # the grid's form checked
        grids = [self.param_grid] if isinstance(self.param_grid, Mapping) else self.param_grid
        base = self.estimator.get_params(deep=True)
        public = not_public_source(self.estimator) is None  # else refused as the estimator's
        named: list[tuple[str, Any]] = []
        for grid in grids:
            for key, values in grid.items():
                for position, value in enumerate(values):
                    name = f"value {position} of {key!r} (a {type(value).__name__})"
                    candidate, params = self._grid_candidate(key, value, name, owner, base)
                    if public and not_public_source(candidate) is not None:
                        raise PrivacyError(
                            f"The 'param_grid' parameter of {owner} must give private "
                            f"candidates: {name} gives candidates fitted on a schema read from "
                            "the data (suggested=True: draft_schema without epsilon), so none "
                            "is private, and private tuning needs private candidates. Declare "
                            "the reviewed schema in code or draft it with epsilon=...; for a "
                            "non-private baseline use sklearn.model_selection.GridSearchCV.")
                    # the learner a value gives: as the estimator's, before any candidate is fit
                    refuse_users_learner(candidate, f"{owner}.fit")
                    refuse_declared_learner(candidate, search_vouch(self.vouch, owner),
                                            f"{owner}.fit")
                    for inner, schema in params.items():
                        prefix = inner[:-len("schema")]  # "" or a step's "name__"
                        if (_leaf(inner) == "schema" and f"{prefix}epsilon" in params
                                and getattr(schema, "release", None) is not None
                                and getattr(base.get(inner), "release", None) is None):
                            raise ParameterError(
                                f"The 'param_grid' parameter of {owner} must not give its "
                                f"private step a schema released by draft_schema: {name} "
                                f"sets {inner!r} to one (epsilon = "
                                f"{schema.release.epsilon:g}), which every candidate's "
                                "certificate would compose before its model, beyond the "
                                "search's epsilon. Encode the table in a pipeline step "
                                "(PublicEncoder(schema)) and tune the pipeline (the schema's "
                                "release stays charged to draft_schema's ledger).")
                    named.append((name, candidate))
        return named

    def _grid_candidate(self, key: str, value: Any, name: str, owner: str,
                        base: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """The unfitted candidate ``value`` of ``param_grid``'s ``key`` gives, set alone on a
        clone of the estimator, and its ``get_params(deep=True)``; refused by a ParameterError
        naming it (``name``) where it cannot be set or does not keep the keys of the parameters
        the search sets (``base``: the estimator's ``get_params(deep=True)``). A clone of the
        estimator that fails is the estimator's (:meth:`_refuse_uncloned`), and a DPConvexError
        the estimator raises is its own."""
        try:
            estimator = clone(self.estimator)
        except (ValueError, TypeError, AttributeError) as exc:
            raise self._refuse_uncloned(owner, exc) from None
        try:
            candidate = estimator.set_params(**_unfitted({key: value}))
            params = candidate.get_params(deep=True)
        except DPConvexError:
            raise
        except (ValueError, TypeError, AttributeError):
            raise ParameterError(
                f"The 'param_grid' parameter of {owner} must give values its estimator takes: "
                f"{name} cannot be set as {key!r} on {type(self.estimator).__name__}. Give "
                "a value of the kind the estimator holds there.") from None
        for leaf in ("epsilon", "accountant", *_RESERVED):
            keys = [inner for inner in params if _leaf(inner) == leaf]
            estimators = self._keys(leaf, base)
            if keys != estimators:
                raise ParameterError(
                    f"The 'param_grid' parameter of {owner} must give candidates shaped as its "
                    f"estimator: {name} gives candidates whose {leaf!r} parameters are {keys} "
                    f"where the estimator's are {estimators} (the search sets them on "
                    "every candidate). Give a value of the kind the estimator holds there (a "
                    "dpconvex private classifier for its private step).")
        self._refuse_carried(params, name, owner, base)
        return candidate, params

    def _refuse_uncloned(self, owner: str, exc: Exception) -> DPConvexError:
        """The refusal of an estimator ``sklearn.clone`` cannot copy (``exc``: what the clone
        raised), whose every candidate would be a clone: its label set refused by name where
        that is the cause (a generator, :func:`~dpconvex.data.validation.check_classes`), else
        a ParameterError naming the estimator and what the clone raised."""
        try:
            self._public_classes(owner)
        except DPConvexError as refusal:
            return refusal
        return ParameterError(
            f"The 'estimator' parameter of {owner} must be an estimator sklearn.clone copies "
            f"(every candidate is a clone of it): cloning {type(self.estimator).__name__} raised "
            f"{type(exc).__name__}: {exc}. Give the estimator parameters that copy (numbers, "
            "strings, lists, estimators).")

    def _refuse_carried(self, params: dict[str, Any], name: str, owner: str,
                        base: dict[str, Any]) -> None:
        """Refuse by a ParameterError naming it (``name``) a value of ``param_grid`` whose
        candidate (``params``: its parameters, the value set alone on a clone of the estimator,
        so any difference is the value's: an estimator, a Pipeline's ``steps``, ...) carries a
        privacy parameter the search does not set on every candidate (:data:`_CARRIED`: δ;
        ``classes`` where neither the search nor its estimator lists a label set) other than the
        estimator's (``classes`` may be None), or a generator as its ``random_state``: the grid
        cannot tune these by value, as it cannot by name. The ones the search sets
        (:data:`_SET_BY_THE_SEARCH`, and ``classes`` where a set is listed) are overridden on
        every candidate, whatever the value states; its ledger is the search's
        (:meth:`_ledger`). ``base``: the estimator's ``get_params(deep=True)``."""
        listed = self.classes is not None or any(base[inner] is not None
                                                 for inner in self._keys("classes", base))
        for inner in self._keys("random_state", base):
            if _valid_seed(base[inner]):  # overridden, but a generator is never kept
                check_seed(params[inner], f"{owner} ({name}'s {inner!r})")
        for leaf, why in _CARRIED.items():
            if leaf == "classes" and listed:  # the listed set is set on every candidate
                continue
            for inner in self._keys(leaf, base):
                left = params[inner] is None and leaf == "classes"
                if not left and not _same(params[inner], base[inner]):
                    raise ParameterError(
                        f"The 'param_grid' parameter of {owner} must leave the privacy "
                        f"parameters to the estimator and the search: {name} sets {inner!r} to "
                        f"{describe_value(params[inner])} where the estimator's is "
                        f"{describe_value(base[inner])}, and the grid cannot tune {leaf!r} ({why})."
                        f" Give the value the estimator's {leaf}, or set it on the estimator (one "
                        "for every candidate); to compare guarantees, run one search per value.")

    def _grid_ledgers(self, named: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
        """The ledgers the values of ``param_grid`` hold (not the estimator's own), each named
        ("value i of 'key' (a Type)'s 'step__accountant'"); ``named``: the values' candidates
        (:meth:`_grid_values`)."""
        base = self.estimator.get_params(deep=True)
        keys = self._keys("accountant", base)
        given: list[tuple[str, Any]] = []
        for name, candidate in named:
            params = candidate.get_params(deep=True)
            given += [(f"{name}'s {key!r}", params[key]) for key in keys
                      if params[key] is not None and params[key] is not base[key]]
        return given

    def _set_selected(self, selected: Selected, n_features: int, names: np.ndarray | None,
                      ledger: Any) -> Any:
        """Store the released candidate (with the search's ``ledger``, :meth:`_ledger`'s: a refit
        of it charges that ledger, as fit does) and the search's public facts; return self."""
        candidates, best, model = selected.candidates, selected.best, selected.model
        self.candidates_ = candidates
        self.best_index_ = best
        self.best_params_ = candidates[best]
        self.best_estimator_ = model
        carry_ledger(self, ledger)
        self.part_sizes_ = [int(size) for size in selected.sizes]
        self.certificate_ = selected.certificate
        if selected.validation_mistakes is not None:  # scored on a public set only
            self.validation_mistakes_ = selected.validation_mistakes
        self.classes_ = getattr(model, "classes_", None)
        self.n_features_in_ = n_features
        return with_feature_names(self, names)

    def _ledger(self, owner: str, grid_ledgers: list[tuple[str, Any]] | None = None) -> Any:
        """The ledger the search charges its whole (ε, δ) to, once: its ``accountant``, else
        the one its estimator or a value of its grid holds (a ledger is never bypassed); two
        different ledgers are refused by name. ``grid_ledgers``: the ledgers the grid's values
        hold where the call checked these already (:meth:`_checked`), else read here."""
        params = self.estimator.get_params(deep=True)
        given = [(key, params[key]) for key in self._keys("accountant") if params[key] is not None]
        ledger = self.accountant
        for key, inner in given:
            if ledger is None:
                ledger = inner
            elif inner is not ledger:
                raise ParameterError(
                    f"The 'accountant' parameter of {owner} and its estimator's {key!r} must be "
                    "the same "
                    "ledger (or one of them None): the search charges its whole (epsilon, delta) "
                    "once, "
                    "to one ledger. Got two different ledgers; pass the ledger to the search only."
                )
        if grid_ledgers is None:
            grid_ledgers = self._grid_ledgers(self._grid_values(owner))
        for name, inner in grid_ledgers:  # a ledger in the grid: charged, once
            if ledger is None:
                ledger = inner
            elif inner is not ledger:
                raise ParameterError(
                    f"The 'param_grid' parameter of {owner} must hold the ledger the search "
                    f"charges or none: {name} is another one. The search charges its whole "
                    "(epsilon, delta) once, to one ledger (its 'accountant', else the one its "
                    "estimator or its grid's values hold). Pass the ledger to the search only.")
        return ledger

    def _public_classes(self, owner: str) -> Any:
        """The search's ``classes``, else the label set its estimator declares; two sets
        that do not list the same labels are refused by name."""
        params = self.estimator.get_params(deep=True)
        given = [(f"its estimator's {key!r}", params[key]) for key in self._keys("classes")
                 if params[key] is not None]
        if self.classes is not None:
            given.insert(0, ("its 'classes' parameter", self.classes))
        # refused as "the 'classes' parameter of {owner}" or "{owner}.fit: the estimator's 'classes'"
        sets = [
            set(check_classes(value, f"{owner}.fit", source=name.removeprefix("its ")).tolist())
            for name, value in given
        ]
        for (name, value), labels in zip(given[1:], sets[1:], strict=True):
            if labels != sets[0]:
                raise ParameterError(
                    f"The '{'estimator' if self.classes is None else 'classes'}' parameter of "
                    f"{owner} must list the labels {name} lists, {describe_value(list(value))}: "
                    "the search gives one public label set to every candidate (pass the same "
                    "labels to both, or classes= to one of them only). "
                    f"Got {describe_value(list(given[0][1]))} instead.")
        return given[0][1] if given else None

    def _epsilon_key(self, owner: str) -> str:
        """The estimator's one ``epsilon`` parameter key, after checking it is an estimator."""
        if isinstance(self.estimator, type):
            raise ParameterError(
                f"The 'estimator' parameter of {owner} must be an estimator instance, e.g. "
                f"{self.estimator.__name__}(). Got the class {self.estimator.__name__} instead.")
        if not hasattr(self.estimator, "get_params") or not hasattr(self.estimator, "fit"):
            raise ParameterError(
                f"The 'estimator' parameter of {owner} must be a scikit-learn estimator. "
                f"Got {describe_value(self.estimator)} instead.")
        if is_regressor(self.estimator):  # the selection counts mistakes: a classifier's score
            raise ParameterError(
                f"The 'estimator' parameter of {owner} must be a classifier (the selection counts "
                "mistakes). Got a regressor: tune none here; lam='auto' sets Λ by a public rule.")
        keys = self._keys("epsilon")
        if len(keys) != 1:
            raise ParameterError(
                f"The 'estimator' parameter of {owner} must have exactly one 'epsilon' parameter "
                "(a dpconvex "
                f"private estimator or a Pipeline with one private step). Got one with {keys!r} "
                "instead."
            )
        return keys[0]

    def _overrides(self, epsilon: float, unknown: str, y: Any, classes: Any, owner: str,
                   context: FitContext) -> tuple[dict[str, Any], Any]:
        """What the search sets on every candidate, and the public labels (or None).

        The candidates' ``random_state`` is the caller's (their noise comes through
        :func:`~dpconvex.estimators.base.fit_with`); with a ``classes`` parameter they take
        the label set given by the caller as theirs, and a label outside it is refused
        ("raise") before any fit. A set declared with or read from y is handed to their fits
        instead (:meth:`_candidate_context`): their ``classes`` stay as the caller gave them,
        and their certificates state the set's source.
        """
        labels = None
        if self._keys("classes"):
            labels = encode_labels(y, classes, f"{owner}.fit",
                                   unknown_labels=unknown,
                                   excluded=context.excluded, warning=context.label_warning)
        return {
            **self._settings(epsilon, unknown, labels),
            **dict.fromkeys(self._keys("accountant")),
        }, labels

    def _settings(self, epsilon: float, unknown: str, labels: Any, *,
                  any_source: bool = False) -> dict[str, Any]:
        """The ``epsilon``, ``random_state``, ``unknown_labels`` and label set the search gives
        every candidate: the set of ``labels`` where the caller gave it (``any_source``: from
        wherever it came; None: no set)."""
        given = labels is not None and (any_source or labels.assumption.source == "parameter")
        return {
            self._keys("epsilon")[0]: epsilon,
            **{key: self.random_state for key in self._keys("random_state")},
            **{key: unknown for key in self._keys("unknown_labels")},
            **{key: list(labels.classes) for key in self._keys("classes") if given},
        }

    @staticmethod
    def _candidate_context(context: FitContext, labels: Any) -> FitContext:
        """``context`` for a candidate's fit, with the label set the search read (``labels``;
        None: none): a candidate whose ``classes`` is None encodes its part's labels against
        it and states its source, instead of reading a set from its part."""
        return dataclasses.replace(context, label_set=labels)

    def _certify_labels(self, y: Any, unknown: str, classes: Any, owner: str) -> Any:
        """The label set a fit gives every candidate: the public one, else read once from y."""
        if not self._keys("classes"):
            return None
        return encode_labels(
            y,
            classes,
            f"{owner}.certify",
            unknown_labels=unknown,
            warning=LabelWarning(True),
        )  # (certify's warning came first)

    def _certified(self, params: dict[str, Any], epsilon: float, unknown: str, rows: Any,
                   owner: str, labels: Any) -> Certificate:
        """The certificate a candidate's fit on ``rows`` (its part) would carry (a dry run)."""
        if not hasattr(self.estimator, "certify"):
            raise ParameterError(
                f"{owner}.certify: the estimator {type(self.estimator).__name__} has no certify() "
                "method; a certificate without training needs a dpconvex estimator. Call fit "
                "instead."
            )
        handed = (labels is not None and labels.assumption.source != "parameter"
                  and isinstance(self.estimator, PrivateEstimator))
        candidate = clone(self.estimator).set_params(
            **_unfitted(params), **self._settings(epsilon, unknown, labels, any_source=not handed)
        )
        refuse_users_learner(candidate, f"{owner}.certify")  # a value of the grid's among them
        if handed:  # the set read from y handed to the candidate, as its fit takes it
            part = self._candidate_context(NO_CONTEXT.inner(None), labels)
            certificate = state_rows_source(certify_part(candidate, *rows, part), rows[0],
                                            candidate)
        else:
            certificate = candidate.certify(*rows)
        if labels is not None:  # the source of the set, as the candidate's fit states it
            certificate.state(labels.assumption)
        return certificate

    def _noise(self, owner: str, given: NoiseSource | None) -> NoiseSource:
        """The search's generator (:func:`dpconvex._validation.noise_source`: ``given``, else
        from ``random_state``), after checking that no ``random_state`` of the kept
        unfitted ``estimator`` is a generator."""
        params = self.estimator.get_params(deep=True)
        for key in self._keys("random_state"):
            check_seed(params[key], f"{owner} (its estimator's {key})")
        return noise_source(self, given)

    def _best(self, method: str, X: Any, *args: Any, **kwargs: Any) -> Any:
        """``best_estimator_``'s ``method`` on X (whose names this search checked: a dpconvex model
        does not check them again), its data errors signed with this search's name and method."""
        check_fitted(self, "best_estimator_")
        with signed_by(self.best_estimator_, f"{type(self).__name__}.{method}"):
            return unchecked(getattr(self.best_estimator_, method))(X, *args, **kwargs)

    @checks_feature_names
    def predict(self, X: Any) -> np.ndarray:
        """Predictions of ``best_estimator_``."""
        return self._best("predict", X)

    @checks_feature_names
    def decision_function(self, X: Any) -> np.ndarray:
        """Decision function of ``best_estimator_``."""
        return self._best("decision_function", X)

    @available_if(
        lambda self: hasattr(getattr(self, "best_estimator_", self.estimator), "predict_proba")
    )
    @checks_feature_names
    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities of ``best_estimator_`` (where it has ``predict_proba``)."""
        return self._best("predict_proba", X)

    @available_if(
        lambda self: hasattr(getattr(self, "best_estimator_", self.estimator), "predict_log_proba")
    )
    @checks_feature_names
    def predict_log_proba(self, X: Any) -> np.ndarray:
        """Log class probabilities of ``best_estimator_`` (where it has ``predict_log_proba``)."""
        return self._best("predict_log_proba", X)

    @checks_feature_names
    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Accuracy of ``best_estimator_`` (weighted by ``sample_weight``)."""
        return float(self._best("score", X, y, sample_weight=sample_weight))


class PrivateGridSearch(SelectedEstimator, MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """ε-DP choice among fixed candidate hyperparameters ([CMS]_ Alg. 4).

    .. note:: Each candidate sees only 1/(m+1) of the rows; for Λ, prefer ``lam="auto"``
       without tuning (docs/privacy/tuning_gd_ledger.md#privacy-tuning-pays).

    Rows in memory, or a Dask array or DataFrame (for an estimator with a Dask backend;
    :mod:`dpconvex.estimators.parts`).

    Parameters
    ----------
    estimator : estimator
        A dpconvex private classifier (an ``epsilon`` parameter, a ``certificate_`` after fit; a regressor is
        refused), or a Pipeline whose single private step has them; its other steps must read no statistic
        (dpconvex's public maps, or stateless per-record maps such as ``Normalizer`` with
        ``vouch="preprocessing"``; a step that learns from its rows is refused). The private
        step is the class dpconvex ships, as shipped: a class of the user's derived from it
        (or one with a method set on the instance) is refused, its fit being unchecked; a
        learner of a class dpconvex does not ship (its own ``certificate_``) is refused unless
        ``vouch="learner"``. Cloned for each candidate.
    param_grid : dict, list of dict, or "auto"
        Parameter names to lists of values, as in ``GridSearchCV``, fixed before seeing the data; the privacy
        parameters (:data:`PRIVACY_PARAMETERS`: ``epsilon``, ``delta``, ``accountant``) and ``random_state``,
        ``unknown_labels`` and ``classes`` cannot be tuned. ``"auto"``: Λ_auto × (1/4, 1,
        4) (:func:`auto_lam_grid`; docs/privacy/tuning_gd_ledger.md#privacy-tuning-grid-auto).
        Every value is set on a copy for each candidate (an estimator, e.g. a Pipeline's step,
        an unfitted clone; any other value a deep copy), never on the caller's object. An
        estimator value (a Pipeline's step, say) may differ from the estimator's in any other
        parameter (``lam``, ``mechanism``, ...: the δ a candidate spends is planned, at most
        its ``delta``). Of its privacy parameters, the search sets these on every candidate,
        whatever the value states: ``epsilon`` (the search's), ``random_state`` (the search's
        noise; None or an int, never a generator), ``unknown_labels`` (the search's policy)
        and ``classes`` where the search or its estimator lists a label set (that set). The
        ones it does not set must be the estimator's at that place: ``delta`` (the search
        holds the estimator's), and ``classes`` where no set is listed (None, or the
        estimator's). A ledger it holds (its ``accountant``) is the search's, charged as the
        estimator's is (below), and one holding another ledger is refused. Each value is
        checked before the data are read, and refused by a ParameterError naming it where it
        carries another ``delta`` or label set, or a generator as its ``random_state``, where its
        candidate is not shaped as the estimator (another kind of step where the search sets
        ``epsilon`` or the parameters above) or its private step would encode the table by a
        schema released by ``draft_schema``, by a PrivacyError where a candidate would be
        fitted on a schema read from the data.
    epsilon : float
        ε > 0 of the whole search, set as the epsilon of every candidate and used for the
        selection (plus the δ of (ε, δ) candidates).
    {random_state}
        It seeds the split, each candidate's noise and the selection.
    public_validation : tuple (X_val, y_val) or None, default=None
        A *public* labelled set: the candidate with the fewest mistakes on it is taken
        (ties: the first). A held-out split of the private data here is not private.
    {search_ledger_labels}

    Attributes
    ----------
    best_estimator_ : estimator
        The selected candidate, trained on its part only. It holds the ledger the search
        charged, so a refit of it is charged as a fit is.
    best_params_ : dict
        The selected candidate's grid values as given; an estimator value's ``epsilon``,
        ``random_state``, ``unknown_labels`` and a listed ``classes`` are the search's on the
        fitted step (``best_estimator_``).
    best_index_ : int
        Index of the selected candidate in ``candidates_``.
    candidates_ : list of dict
        The candidate parameter settings, in grid order: the grid values as given; an
        estimator value's ``epsilon``, ``random_state``, ``unknown_labels`` and a listed
        ``classes`` are the search's on the fitted candidates.
    part_sizes_ : list of int
        Sizes of the training parts (and of the validation part); they depend only on n.
    validation_mistakes_ : ndarray of int
        Only with ``public_validation``: the mistakes of each candidate on the public set.
    certificate_ : Certificate
        ε = max(max_i ε_i, ε_select), δ = max_i δ_i; the parts in ``certificate_.parts``.

    References
    ----------
    [CMS]_ Algorithm 4 (private tuning); [McS09]_ (parallel composition).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import PrivateGridSearch, PrivateLogisticRegression
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 3)); X /= np.linalg.norm(X, axis=1, keepdims=True)
    >>> y = (X[:, 0] > 0).astype(int)
    >>> search = PrivateGridSearch(PrivateLogisticRegression(), {"lam": [0.01, 0.1]},
    ...                            epsilon=1.0, classes=[0, 1], random_state=0).fit(X, y)
    >>> search.best_params_["lam"] in (0.01, 0.1), len(search.part_sizes_)  # 2 training parts + 1
    (True, 3)
    >>> search.certificate_.epsilon <= 1.0
    True
    """

    def __init__(self, estimator: Any, param_grid: Any, *, epsilon: float,
                 random_state: int | None = None, public_validation: Any = None,
                 accountant: Any = None, classes: Any = None, unknown_labels: str = "raise",
                 vouch: Any = ()):
        self._store_params(locals())

    def _select(self, X: Any, y: Any, checked: tuple[float, str], classes: Any,
                context: FitContext, noise: NoiseSource) -> Selected:
        """Split the rows, train every candidate on its part, select one by its mistakes on the
        last part (the exponential mechanism) or on the public set. The candidates draw from
        generators spawned from ``noise`` and share one label-set warning."""
        owner = type(self).__name__
        epsilon, unknown = checked
        m = len(self._grid_candidates(owner))  # "auto": the factors (m) before n is read
        public = self.public_validation is not None
        noise_rng = noise.rng
        if public:
            X_public, y_public = self._public_set(owner, X.shape[1])
        n = X.shape[0]
        n_parts = self._check_split(n, m, f"{owner}.fit")
        parts = np.array_split(noise_rng.permutation(n), n_parts)
        rows = Parts(X, y, parts)
        # "auto": Λ_auto for the smallest part (public: n, d, ε only)
        candidates = self._grid_candidates(owner, (n // n_parts, X.shape[1]), epsilon)
        children = noise_rng.spawn(m)

        overrides_base, labels = self._overrides(epsilon, unknown, y, classes, owner, context)
        if public and labels is not None and not set(np.asarray(y_public).tolist()) <= set(
                labels.classes.tolist()):  # every candidate would miss them alike
            raise DataValidationError(
                f"{owner}.fit: y_val of public_validation holds labels outside the "
                "candidates' "
                "label set: every candidate would miss them alike. Pass validation labels "
                "from "
                "that set, or list them in classes=[...]."
            )
        models, certificates = [], []
        for index, params in enumerate(candidates):
            candidate = clone(self.estimator)
            candidate.set_params(**_unfitted(params), **overrides_base)
            refuse_declared_learner(candidate, search_vouch(self.vouch, owner), f"{owner}.fit")
            with naming_candidate(params, f"{owner}.fit"):
                fit_with(
                    candidate,
                    *rows[index],
                    self._candidate_context(context.inner(context.noise, held=True), labels),
                    self._sources(candidate, children[index], noise.seeded),
                    caller=f"{owner}.fit", vouch=search_vouch(self.vouch, owner),
                )
            certificate = _find_certificate(candidate, owner)
            if not certificate.private:
                raise PrivacyError(
                    f"{owner}.fit: candidate {describe_value(params)} produced a non-private model "
                    f"({certificate.mechanism}). Private tuning needs private candidates; for "
                    "a "
                    "non-private baseline use sklearn.model_selection.GridSearchCV."
                )
            models.append(candidate)
            certificates.append(certificate)

        X_score, y_score = (X_public, y_public) if public else rows[n_parts - 1]
        validation_mistakes = np.array([mistakes(model, X_score, y_score, f"{owner}.fit")
                                        for model in models])
        if public:
            best = int(np.argmin(validation_mistakes))
            selection_certificate = self._public_selection(y_public)
        else:
            # minus the mistakes dpconvex counted (Δu = 1, docs/privacy/tuning_gd_ledger.md)
            template = SelectionTemplate(lambda: -validation_mistakes.astype(float),
                                         DERIVED_SENSITIVITY,
                                         int(parts[-1].size))
            selection = release(template, "exponential", Budget(epsilon), None, noise_rng,
                                seeded=noise.seeded)
            best, selection_certificate = int(selection.theta[0]), selection.certificate

        sizes = [int(part.size) for part in parts]
        certificate = self._certificate(f"{owner}.fit", epsilon, certificates,
                                        selection_certificate, m, sizes, public)
        state_vouched_steps(certificate, certificates)
        if labels is not None:
            certificate.state(labels.assumption)
        return Selected(candidates, best, models[best], sizes, certificate,
                        validation_mistakes if public else None)

    def _budget(self, X: Any, y: Any, params: tuple[float, str], classes: Any,
                owner: str) -> tuple[Budget, int | None]:
        """The (ε, δ) a fit on (X, y) holds, known before the data are read, and n where X tells
        it; ``params``: (ε, ``unknown_labels``), checked (:meth:`_check_params`).

        δ is the largest the candidates' plans spend on the smallest part (:meth:`_planned_delta`;
        n of a Dask collection counted, :func:`_counted_size`);
        where no plan is at hand, or the private step is a Pipeline's (planned at the width of X,
        which its transforms may change), at least the estimator's ``delta`` parameter (one for every
        candidate: the grid holds no privacy parameter).
        """
        epsilon, _ = params
        candidates = self._grid_candidates(owner)  # "auto": the factors (m) before n is read
        m = len(candidates)
        n, d = _counted_size(X)
        # np.array_split's first n % k parts hold one row more
        k = m + (self.public_validation is None)
        part = (n // k + (m <= n % k) if n is not None else None, d)
        delta = self._planned_delta(part, epsilon, classes, owner, (X, y))
        if delta is None or "__" in self._epsilon_key(owner):
            # no plan, or a Pipeline's step planned at the width of X where its transforms may
            # give another (and a mechanism chosen by the width may spend δ): its delta parameters
            base = self.estimator.get_params(deep=True)
            delta = max(
                delta or 0.0,
                max(
                    (
                        float(candidate.get(key, base[key]) or 0.0)
                        for candidate in candidates
                        for key in self._keys("delta")
                    ),
                    default=0.0,
                ),
            )
        return Budget(epsilon, delta), n

    def _certify_with(self, X: Any, y: Any) -> Certificate:
        """:meth:`certify`: each candidate on its part, the selection on the validation part
        (or on ``public_validation``)."""
        owner = type(self).__name__
        epsilon, unknown, _ = self._checked(owner)
        classes = self._public_classes(owner)
        candidates = self._grid_candidates(owner)
        NO_CONTEXT.one_label_warning(owner=owner if classes is None else "", y=y)
        X_checked, y_checked = self._checked_rows(X, y, classes, f"{owner}.certify")
        labels = self._certify_labels(y_checked, unknown, classes, owner)
        public = self.public_validation is not None
        m = len(candidates)
        parts = np.array_split(np.arange(X_checked.shape[0]),
                               self._check_split(X_checked.shape[0], m, f"{owner}.certify"))
        rows = Parts(X_checked, y_checked, parts)
        candidates = self._grid_candidates(
            owner, (X_checked.shape[0] // len(parts), X_checked.shape[1]), epsilon)
        certificates = []
        for index, params in enumerate(candidates):  # a refusal names its candidate, as fit's
            with naming_candidate(params, f"{owner}.certify"):
                certificates.append(
                    self._certified(params, epsilon, unknown, rows[index], owner, labels))
        if public:
            selection = self._public_selection(
                self._public_set(owner, X_checked.shape[1], "certify")[1])
        else:
            selection = release(SelectionTemplate.of_problem(m, DERIVED_SENSITIVITY,
                                                             int(parts[-1].size)),
                                "exponential", Budget(epsilon), dry_run=True,
                                seeded=self.random_state is not None).certificate
        certificate = self._certificate(f"{owner}.certify", epsilon, certificates, selection, m,
                                        [int(part.size) for part in parts], public)
        certificate.state(labels.assumption if labels is not None else None)
        return certificate

    def _check_split(self, n: int, m: int, caller: str) -> int:
        """The number of parts of n rows for m candidates (and a validation part without
        ``public_validation``); DataValidationError where a part would hold fewer than 2 rows."""
        public = self.public_validation is not None
        n_parts = m if public else m + 1
        if n < 2 * n_parts:
            raise DataValidationError(
                f"{caller}: n_samples = {n} rows cannot be split into {n_parts} parts of at least "
                f"2 rows ({m} candidates{'' if public else ' + 1 validation part'}). Use fewer "
                "candidates or more data."
            )
        return n_parts

    def _public_set(self, owner: str, d: int, method: str = "fit") -> tuple[Any, np.ndarray]:
        """(X_val, y_val), checked (refused in the name of ``owner.method``); a pipeline's table
        as given (its first step reads it, as X)."""
        caller = f"{owner}.{method}"
        public_validation = self.public_validation
        if not isinstance(public_validation, (tuple, list)) or len(public_validation) != 2:
            raise ParameterError(
                f"The 'public_validation' parameter of {owner} must be None or a tuple "
                f"(X_val, y_val). Got {type(public_validation).__name__} instead."
            )
        X_public, y_public = public_validation
        if not (isinstance(self.estimator, Pipeline) and hasattr(X_public, "iloc")
                and not is_dask_collection(X_public)):
            X_public = check_array(X_public, caller, name="X_val", n_features=d)
        y_public = check_labels(y_public, X_public.shape[0], caller, ("X_val", "y_val"))
        return X_public, y_public

    @staticmethod
    def _public_selection(y_public: np.ndarray) -> Certificate:
        """The certificate of the selection on ``public_validation`` (its checked labels
        ``y_public``), as a fit and its dry run state it: ε = 0 under the assumption that the
        user declares the set public."""
        return Certificate(
            mechanism="selection on a public validation set (argmin of mistakes)",
            epsilon_requested=0.0, epsilon=0.0, private=True,
            conditions=[Condition("public validation set", True, "assumption",
                                  "the user declares (X_val, y_val) public")],
            quantities={"validation size": int(y_public.shape[0])},
        )

    @staticmethod
    def _certificate(
        caller: str,
        epsilon: float,
        certificates: list[Certificate],
        selection: Certificate,
        m: int,
        sizes: list[int],
        public: bool,
    ) -> Certificate:
        selection_by = "public validation set" if public else "exponential mechanism on part m + 1"
        return compose_tuning(
            certificates, selection,
            mechanism=("private tuning (CMS Alg. 4): parallel composition over disjoint "
                       "parts " + ("+ selection on public data" if public
                                   else "+ exponential mechanism on the held-out part")),
            epsilon_requested=epsilon,
            candidates=f"{m} candidates from param_grid (a constructor parameter)",
            split=f"random permutation (independent of the data) split into {len(sizes)} "
            f"parts of sizes {sizes}; candidate i reads part i only; selection by "
            f"{selection_by}",
            quantities={"candidates m": m, "part sizes": sizes,
                        "epsilon (training, max)": max(certificate.epsilon
                                                       for certificate in certificates),
                        "epsilon (selection)": selection.epsilon},
            assumptions=["replace-one adjacency; n is public (it fixes the part sizes)",
                         "the released model is the selected candidate only (trained on "
                         "its part); releasing all candidates too would also be covered"],
            labels=[*(f"candidate {index}" for index in range(m)), "selection"],
            caller=caller)
