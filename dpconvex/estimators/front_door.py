"""The front doors: :class:`PrivateClassifier` and :class:`PrivateRegressor` pick their learner
from public quantities only (:mod:`dpconvex.privacy.rules.front_door`;
docs/privacy/front_door.md#privacy-private-classifier,
docs/privacy/front_door_regression.md#privacy-regressor-rule), and what they share.

The safeguards select the model or a constant with the exponential mechanism ([MT07]_).
The classifier's (docs/privacy/front_door.md#privacy-classifier-safeguard) fits the learner on
every row with (1 − s) ε and selects by the candidates' mistakes on the same rows with s ε:
(ε, δ)-DP by sequential composition. The regressor's (privacy-regressor-safeguard) splits the
rows by a permutation drawn independently of the data into a fitting part and a validation
part whose sizes depend on n only, fits the learner with the validation rows left out
(:class:`~dpconvex.estimators.base.FitContext` ``excluded``) and selects on the validation
part: private tuning ([CMS11]_ Alg. 4) with one trained candidate, by parallel composition.

With ``schema=`` a :class:`~dpconvex.PublicSchema` (or one declaration for every column,
:meth:`~dpconvex.PublicSchema.every_column`), both front doors take the table itself
(:class:`SchemaInputMixin`): every record is encoded by :class:`~dpconvex.PublicEncoder`, and
a schema released by :func:`~dpconvex.draft_schema` is composed with the model
(docs/privacy/bounds.md#privacy-bounds-composition).

References
----------
.. [CMS11] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially Private
   Empirical Risk Minimization. JMLR 12 (2011), Section 5.2, Alg. 4, Theorem 24.
.. [MT07] F. McSherry, K. Talwar. Mechanism Design via Differential Privacy.
   FOCS 2007 (the exponential mechanism).
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any, ClassVar, NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, clone

from .._validation import (
    ACCOUNTANT,
    DATA_NORM,
    DELTA,
    EPSILON,
    RANDOM_STATE,
    Auto,
    Bool,
    CheckedParamNames,
    Constraint,
    Float,
    NoiseSource,
    NoValidation,
    Optional,
    Options,
    check_fitted,
    check_numeric_dtype,
    checks_feature_names,
    describe_value,
    feature_names_of,
    is_dask_collection,
    signed_by,
    unchecked,
)
from ..data.validation import (
    LABEL_POLICY,
    LabelSet,
    LabelWarning,
    check_array,
    check_classes,
    check_labels,
    check_numeric_labels,
    computed,
    declared_classes,
    encode_labels,
)
from ..errors import (
    ParameterError,
    PrivacyWarning,
    user_stacklevel,
)
from ..privacy.budget import Budget, delta_rows_note, remaining
from ..privacy.certificate import Certificate, Condition, LabelSource
from ..privacy.composition import compose_sequential, compose_tuning, fixed_candidates
from ..privacy.mechanisms.scalar import (
    DERIVED_SENSITIVITY,
    Exponential,
    LaplaceMean,
    SelectionTemplate,
)
from ..privacy.release import Release, _release_checked
from ..privacy.rules.front_door import (
    CENTROID,
    CONSTANT,
    GAUSSIAN_NB,
    HANDICAP_LEVEL,
    LARGE_MARGIN,
    LINEAR,
    MEAN_WARNING_RECORDS,
    MODEL_HANDICAP,
    NOISY_GD,
    PRIVATE_MEAN,
    REGRESSION_VALIDATION,
    RESIDUAL_CLIP,
    SAFEGUARD_GAP,
    SAFEGUARD_ROWS_AT_MOST,
    SAFEGUARD_WARNING_LEVEL,
    SELECTION_SHARE,
    FrontDoorChoice,
    RegressionChoice,
    delta_spent,
    front_door_rule,
    mean_epsilon,
    regression_rule,
    safeguard_applies,
    safeguard_blind,
    safeguard_sizes,
    selection_handicap,
)
from ..privacy.rules.noise_level import PUBLIC_CHECK_NOTE, noise_dominates
from .base import (
    NO_CONTEXT,
    ROWS_RANGES_NOTE,
    CheckedData,
    ClassifierScoreMixin,
    FitContext,
    FitPlan,
    PrivateEstimator,
    _given_shape,
    carry_ledger,
    certify_part,
    check_holdable_shape,
    check_shape_fact,
    fit_part,
    given_source,
    issued,
    public_label_source,
    state_rows_source,
)
from .centroids import PrivateGaussianCentroid
from .gaussian_nb import (
    FeatureRange,
    PrivateGaussianNB,
    feature_bounds,
    refuse_ranges_given_twice,
)
from .large_margin import PrivateLargeMarginGaussian
from .large_margin.learners import CENTROID_LEARNER, noise_family, objective_part
from .linear import PrivateHuberSVM
from .noisy_gd import NoisyGradientDescent
from .parts import check_rows, predicted
from .regression import (
    RELEASED_RANGE,
    LabelRange,
    LabelRangeMixin,
    PrivateBounds,
    PrivateLinearRegressor,
    RegressionScoreMixin,
    mean_release,
    rows_backend,
)

__all__ = ["ConstantClassifier", "ConstantRegressor", "INFERRED_CHOICE", "INFERRED_CHOICE_WARNING",
           "PrivateClassifier", "PrivateRegressor", "SAFEGUARD_SELECTED", "SCHEMA",
           "SELECTION_UTILITY", "ChosenClassifier", "ChosenLearner", "SafeguardParts", "SchemaInputMixin",
           "constant_name",
           "safeguard_mistakes", "squared_error_utilities",
           "warn_constant_released"]


class _Constant(CheckedParamNames, BaseEstimator):
    """A released constant of a front door: made from the release, not learned, its fitted attributes
    read from its parameters; it checks the rows' width only, and ``fit`` returns it as it is (for
    scikit-learn's tools, which refit clones); ``set_params`` refuses a name that is not one of
    its parameters by name, as every estimator's."""

    constant: Any
    n_features: int

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def __sklearn_is_fitted__(self) -> bool:
        return True

    @property
    def n_features_in_(self) -> int:
        return int(self.n_features)

    def fit(self, X: Any, y: Any = None, **fit_params: Any) -> Any:
        """This constant as it is: the width of X is checked, no row or label is read."""
        self._rows(X, "fit")
        return self

    def _rows(self, X: Any, method: str) -> int:
        rows = check_array(
            X,
            f"{type(self).__name__}.{method}",
            accept_sparse=True,
            accept_dask=True,
            n_features=self.n_features_in_,
        )
        return int(rows.shape[0])


class ConstantClassifier(ClassifierScoreMixin, _Constant):
    """A released constant: every row gets the same class.

    What :class:`~dpconvex.PrivateClassifier` releases when its safeguard selects a
    constant class (docs/privacy/front_door.md#privacy-classifier-safeguard), made from the
    selection's output, not fitted; the front door sets its ``certificate_``.

    Parameters
    ----------
    constant : label
        The class predicted for every row (``constant_``).
    classes : sequence of labels
        The public label set (``classes_``).
    n_features : int
        Number of columns the rows have (``n_features_in_``).

    Examples
    --------
    >>> from dpconvex.estimators.front_door import ConstantClassifier
    >>> model = ConstantClassifier(1, [0, 1], 3)
    >>> model.predict(np.zeros((2, 3))).tolist(), model.predict_proba(np.zeros((1, 3))).tolist()
    ([1, 1], [[0.0, 1.0]])
    """

    def __init__(self, constant: Any, classes: Any, n_features: int):
        self.constant, self.classes, self.n_features = constant, classes, n_features

    constant_ = property(lambda self: self.constant)
    classes_ = property(lambda self: np.asarray(list(self.classes)))

    def __repr__(self) -> str:
        return f"ConstantClassifier(constant={_plain(self.constant)!r})"

    def _one_hot(self, X: Any, method: str) -> np.ndarray:
        """1 in the column of the first class equal to the constant, on every row of X."""
        classes, constant = self.classes_.tolist(), self.constant
        index = next(
            (i for i, c in enumerate(classes) if np.ndim(constant) == 0 and c == constant), -1
        )
        if index < 0:
            raise ParameterError(
                f"ConstantClassifier.{method}: constant={describe_value(_plain(self.constant))} is "
                f"not one of classes={classes}. Give one of the classes."
            )
        one_hot = np.zeros((self._rows(X, method), len(classes)))
        one_hot[:, index] = 1.0
        return one_hot

    @checks_feature_names
    def predict(self, X: Any) -> np.ndarray:
        """The constant class for every row.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        ndarray of shape (n_samples,)

        Examples
        --------
        >>> from dpconvex.estimators.front_door import ConstantClassifier
        >>> model = ConstantClassifier(1, [-1, 1], 3)
        >>> model.predict(np.zeros((2, 3))).tolist()
        [1, 1]
        """
        return self.classes_[np.argmax(self._one_hot(X, "predict"), axis=1)]

    @checks_feature_names
    def predict_proba(self, X: Any) -> np.ndarray:
        """Probability 1 on the constant class (columns in the order of ``classes_``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)

        Examples
        --------
        >>> from dpconvex.estimators.front_door import ConstantClassifier
        >>> model = ConstantClassifier(1, [-1, 1], 3)
        >>> model.predict_proba(np.zeros((1, 3))).tolist()
        [[0.0, 1.0]]
        """
        return self._one_hot(X, "predict_proba")

    # 0 on the constant class, −inf on the others
    def _log_proba(self, X: Any, method: str) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.log(self._one_hot(X, method))

    @checks_feature_names
    def decision_function(self, X: Any) -> np.ndarray:
        """For two classes ±1 (+1: the second class of ``classes_``); else one-hot rows.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)

        Examples
        --------
        >>> from dpconvex.estimators.front_door import ConstantClassifier
        >>> model = ConstantClassifier(1, [-1, 1], 3)
        >>> model.decision_function(np.zeros((2, 3))).tolist()
        [1.0, 1.0]
        """
        one_hot = self._one_hot(X, "decision_function")
        return 2.0 * one_hot[:, 1] - 1.0 if one_hot.shape[1] == 2 else one_hot


class ConstantRegressor(RegressionScoreMixin, _Constant):
    """A released constant prediction: every row gets the private mean of the labels.

    What :class:`~dpconvex.PrivateRegressor` releases when its rule or its safeguard
    chooses the constant (docs/privacy/front_door_regression.md#privacy-private-mean), made
    from the release, not fitted; the front door sets its ``certificate_``.

    Parameters
    ----------
    constant : float
        The prediction for every row, in the labels' units (``constant_``).
    n_features : int
        Number of columns the rows have (``n_features_in_``).

    Examples
    --------
    >>> from dpconvex.estimators.front_door import ConstantRegressor
    >>> model = ConstantRegressor(2.5, 3)
    >>> model.predict(np.zeros((2, 3))).tolist(), model.score(np.zeros((2, 3)), [2.0, 3.0])
    ([2.5, 2.5], 0.0)
    """

    def __init__(self, constant: float, n_features: int):
        self.constant, self.n_features = constant, n_features

    constant_ = property(lambda self: float(self.constant))

    def __repr__(self) -> str:
        return f"ConstantRegressor(constant={self.constant_!r})"

    @checks_feature_names
    def predict(self, X: Any) -> np.ndarray:
        """The constant for every row.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        ndarray of shape (n_samples,)

        Examples
        --------
        >>> from dpconvex.estimators.front_door import ConstantRegressor
        >>> ConstantRegressor(2.5, 3).predict(np.zeros((2, 3))).tolist()
        [2.5, 2.5]
        """
        return np.full(self._rows(X, "predict"), self.constant_)


def squared_error_utilities(unit_predictions: list[np.ndarray], u: np.ndarray,
                            handicaps: list[float], clip: float = 2.0) -> np.ndarray:
    """u_k = −Σᵢ min(1, ((ûₖᵢ − uᵢ)/κ)²) − m_k on the validation rows (unit label scale).

    Each term lies in [0, 1] (the residual clipped at the public κ = ``clip``; with κ = 2
    no residual of predictions and labels in [−1, 1] is clipped), so replacing one validation
    record moves each u_k by at most 1
    (docs/privacy/front_door_regression.md#privacy-regressor-safeguard). ``handicaps`` m_k
    are public constants.

    Parameters
    ----------
    unit_predictions : list of ndarray
        Each candidate's predictions on the validation rows, on the unit label scale.
    u : ndarray
        The validation labels, on the unit label scale.
    handicaps : list of float
        m_k, one per candidate.
    clip : float, default=2.0
        κ.

    Returns
    -------
    ndarray
        u_k, one per candidate.

    Examples
    --------
    >>> from dpconvex.estimators.front_door import squared_error_utilities
    >>> squared_error_utilities([np.array([1.0, 1.0]), np.zeros(2)], np.array([1.0, -1.0]),
    ...                         [0.5, 0.0]).tolist()
    [-1.5, -0.5]
    >>> squared_error_utilities([np.array([0.25, 1.0])], np.zeros(2), [0.0], clip=0.5).tolist()
    [-1.25]
    """
    # (candidates, rows); a prediction that is not a number (a record near the float range) is 0
    p = np.clip(np.nan_to_num(np.asarray(unit_predictions, dtype=float), nan=0.0), -1.0, 1.0)
    residual = (p - np.asarray(u, dtype=float)) / clip
    return -np.sum(np.minimum(1.0, residual**2), axis=1) - np.asarray(handicaps, dtype=float)


def _plain(label: Any) -> Any:
    return label.item() if isinstance(label, np.generic) else label


def constant_name(label: Any) -> str:
    """The candidate's name in the certificate: ``"constant <label>"``.

    Parameters
    ----------
    label : object
        The class (a NumPy scalar is shown as its Python value).

    Returns
    -------
    str

    Examples
    --------
    >>> from dpconvex.estimators.front_door import constant_name
    >>> constant_name(np.int64(3))
    'constant 3'
    """
    return f"constant {_plain(label)!r}"


#: The key of :attr:`~dpconvex.Certificate.released` naming the candidate the safeguard's
#: selection chose: a private output of the release, not a public quantity.
SAFEGUARD_SELECTED = "safeguard selected"

#: The regressor's safeguard's condition on its disjoint parts (``format``: ``n``, ``n_fit``,
#: ``n_val``).
_DISJOINT_PARTS = (
    "a permutation drawn independently of the data splits the {n} rows into a fitting part of "
    "{n_fit} and a validation part of {n_val} (sizes from n only); the learner reads the "
    "first, the selection the second"
)


def warn_constant_released(owner: str, constant: str, learner: str, epsilon: float,
                           anchor: str, delta_helps: bool) -> None:
    """The :class:`~dpconvex.errors.PrivacyWarning` of a safeguard that released ``constant``
    (what the selection chose, a part of the release) instead of the ``learner`` model;
    ``delta_helps``: δ is 0 and a δ > 0 would change the rule's choice (public facts only).

    Parameters
    ----------
    owner : str
        The estimator.
    constant : str
        The released candidate's name.
    learner : str
        The learner whose model was not released.
    epsilon : float
        ε of the fit.
    anchor : str
        The documentation anchor the message cites.
    delta_helps : bool
        Whether to suggest δ > 0.

    Warns
    -----
    PrivacyWarning
        Always.

    Examples
    --------
    >>> import warnings
    >>> from dpconvex.estimators.front_door import warn_constant_released
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_constant_released("Demo", "constant 1", "linear", 1.0, "docs", False)
    >>> type(caught[0].message).__name__
    'PrivacyWarning'
    """
    remedy = f"a larger epsilon{', delta > 0' if delta_helps else ''}, more rows or fewer features"
    warnings.warn(
        f"{owner}.fit: the safeguard released {constant} instead of the {learner} model: the "
        f"private selection favoured it (a part of the release, {anchor}); "
        "it favours the model where the model predicts the rows clearly better. At epsilon = "
        f"{epsilon:g} their signal is weak or below the noise, and the constant may be the best "
        f"release. For a model use {remedy}; compare settings on public rows or on rows set "
        "aside before any fit, not by refitting these (each fit spends budget).",
        PrivacyWarning, stacklevel=user_stacklevel())


#: Entries of X per block of the safeguard's predictions (512 KB of float64).
_MISTAKE_BLOCK_ENTRIES = 1 << 16


def safeguard_mistakes(model: Any, X: Any, y: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """Mistakes z_0 of ``model`` and z_c of each constant class on the rows (X, y), X as the
    fit checked it (in memory: predicted by the model's ``_predict_rows``; Dask rows per chunk).

    For a fixed ``model``, replacing one record changes each count by at most 1 (the utility's
    sensitivity under replace-one, docs/privacy/front_door.md#privacy-classifier-safeguard). A
    label outside ``classes`` (``unknown_labels="ignore"``) is a mistake of every candidate.

    Parameters
    ----------
    model : estimator
        The fitted model.
    X : array-like
        The validation rows, as the fit checked them.
    y : ndarray
        Their labels.
    classes : ndarray
        The public label set (one constant candidate per class).

    Returns
    -------
    ndarray of float
        (z_0, z_1, ..., z_C).

    Examples
    --------
    >>> from dpconvex import PrivateLogisticRegression
    >>> from dpconvex.estimators.front_door import safeguard_mistakes
    >>> model = PrivateLogisticRegression(classes=[-1, 1], random_state=0).fit(X, y)
    >>> z = safeguard_mistakes(model, X, y, np.array([-1, 1]))
    >>> z.shape, bool(z[1] + z[2] == len(y))
    ((3,), True)
    """
    y = np.asarray(y)
    if is_dask_collection(X) or not hasattr(model, "_predict_rows"):
        z_model = int(np.sum(predicted(model, X) != y))
    else:  # in blocks of rows: a learner's scores of every row at once would copy X
        step = max(1, _MISTAKE_BLOCK_ENTRIES // max(X.shape[1], 1))
        z_model = 0
        with np.errstate(all="ignore"):  # a warning would tell a record's size
            for start in range(0, X.shape[0], step):
                rows = slice(start, start + step)
                z_model += int(np.sum(np.asarray(model._predict_rows(X[rows])) != y[rows]))
    z_const = [int(np.sum(y != constant)) for constant in classes]
    return np.array([z_model, *z_const], dtype=float)


def _select_release(utilities: np.ndarray, epsilon: float, n_val: int,
                    rng: np.random.Generator, seeded: bool, description: str | None = None
                    ) -> tuple[int, Certificate]:
    """The exponential mechanism on ``utilities`` of sensitivity 1 (``description``; None: minus
    the mistakes), ε-DP for fixed candidates, ``n_val`` the rows it reads
    (privacy-classifier-safeguard, privacy-regressor-safeguard).

    Parameters
    ----------
    utilities : ndarray
        One utility per candidate, computed by a front door's scoring
        (:func:`safeguard_mistakes`, :func:`squared_error_utilities`: Δu = 1, derived in its
        docs). The certificate states Δu = 1 as derived on that ground alone: nothing here
        checks what the utilities are, so only dpconvex's scorings call this. A user's
        utilities go through :func:`~dpconvex.privacy.release.release` with
        ``vouch=("sensitivity",)``.
    epsilon : float
        ε of the selection.
    n_val : int
        The rows it reads.
    rng : numpy.random.Generator
        The noise source.
    seeded : bool
        Whether the caller fixed the seed.
    description : str or None, default=None
        What the utilities are (None: minus the mistakes).

    Returns
    -------
    tuple of (int, Certificate)
        The index selected and the selection's certificate.

    References
    ----------
    [MT07]_ (the exponential mechanism).

    Examples
    --------
    >>> from dpconvex.estimators.front_door import _select_release
    >>> chosen, certificate = _select_release(np.array([-1.0, -30.0]), 1.0, 40,
    ...                                       np.random.default_rng(0), seeded=True)
    >>> chosen in (0, 1), certificate.epsilon
    (True, 1.0)
    """
    # the utilities a front door's scoring computed (Δu = 1, derived in its docs); the lambda
    # computes nothing: compiled here, it marks them as handed over by dpconvex's own code,
    # which is what SelectionTemplate.derived rests on
    template = SelectionTemplate(lambda: utilities, DERIVED_SENSITIVITY, n_val, description)
    selection = _release_checked(template, Exponential(), Budget(float(epsilon)), None, rng,
                                 seeded=seeded)
    return int(selection.theta[0]), selection.certificate


def dry_selection(n_candidates: int, epsilon: float, n_val: int,
                  description: str | None = None, seeded: bool = False) -> Certificate:
    """The selection's certificate without data (``certify``; ``seeded``: the fit's will be)."""
    return _release_checked(SelectionTemplate.of_problem(n_candidates, DERIVED_SENSITIVITY, n_val,
                                                          description),
                            Exponential(), Budget(float(epsilon)), dry_run=True,
                            seeded=seeded).certificate


class _Schema(Constraint):
    """A :class:`~dpconvex.PublicSchema` or a :class:`~dpconvex.data.UniformSchema` (checked
    without importing the schema module at import)."""

    def check(self, name: str, value: Any, owner: str, noun: str = "parameter") -> Any:
        from ..data.schema import PublicSchema, UniformSchema, check_shipped_schema

        if not isinstance(value, (PublicSchema, UniformSchema)):
            raise ParameterError(f"The '{name}' {noun} of {owner} must be None (X holds "
                                 f"encoded rows) or {self}. Got {type(value).__name__} instead.")
        check_shipped_schema(value, owner)
        return value

    def __str__(self) -> str:
        return ("a PublicSchema (X is a table encoded by it; e.g. draft_schema(df, epsilon=...)) "
                "or one declaration for every column, PublicSchema.every_column(Numeric(0, 255))")


#: The front doors' ``schema``: None (X holds encoded rows), a PublicSchema or a UniformSchema.
SCHEMA = Optional(_Schema())


class SchemaInputMixin:
    """``schema=``: encode the table, fit the front door on the rows, compose the certificates.

    The host has ``schema``, ``data_norm``, ``epsilon`` and ``accountant`` parameters.

    Examples
    --------
    >>> from dpconvex import PrivateClassifier, PrivateRegressor
    >>> from dpconvex.estimators.front_door import SchemaInputMixin
    >>> [issubclass(door, SchemaInputMixin) for door in (PrivateClassifier, PrivateRegressor)]
    [True, True]
    """

    def _schema_row_params(self, schema: Any) -> dict[str, Any]:
        """Parameters the front door takes from ``schema`` (the schema of the table's columns:
        the encoder's, or :meth:`_table_schema`'s without rows) for its encoded rows (public:
        the schema's constants only); none by default."""
        return {}

    def _table_schema(self, n_columns: Any, method: str) -> Any:
        """The schema of a table of ``n_columns`` columns without rows: ``schema`` itself, or a
        uniform schema's facts for that many columns, none of them named
        (:meth:`~dpconvex.data.UniformSchema.for_width`: equal to those of the schema
        :class:`~dpconvex.PublicEncoder` applies at ``fit``, made in memory independent of the
        width; the width is public where the columns were fixed without reading the records).
        ``method``, the public call (``plan``, ``certify``), opens the refusal of a uniform
        schema without the width."""
        from ..data.schema import UniformSchema, _names_shown

        owner = type(self).__name__
        if not isinstance(self.schema, UniformSchema):
            width = len(self.schema.columns)
            if n_columns is not None and check_shape_fact(
                    "n_features", n_columns, owner, low=1, method=method) != width:
                raise ParameterError(
                    f"{owner}.{method}: n_features={n_columns!r} is not the number of columns "
                    f"of the table schema={type(self.schema).__name__}(...) declares ({width}: "
                    f"{_names_shown(self.schema.columns)}). Pass n_features={width}, or leave "
                    "it out.")
            return self.schema
        if n_columns is None:
            raise ParameterError(
                f"{owner}.{method}: schema={self.schema!r} declares every column of the table, "
                "and its number of columns is missing. Pass n_features, the number of columns "
                "of the table (the encoded features follow from it), or the table X."
            )
        return self.schema.for_width(
            check_shape_fact("n_features", n_columns, owner, low=1, method=method))

    def plan_for(self, X: Any, y: Any) -> FitPlan:
        """``plan(*public_shape(X, y))``, with a schema the table X read as
        :class:`~dpconvex.PublicEncoder` reads it first (its columns, names and dtypes checked
        against the schema, no value compared: :func:`~dpconvex.data.encoder.check_table_columns`);
        the width of X is the table's.

        Parameters
        ----------
        X : DataFrame or array-like
            The table of the fit (with a schema: its raw columns).
        y : array-like
            The labels of the fit.

        Returns
        -------
        FitPlan
            The plan ``fit(X, y)`` follows.

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> from dpconvex import Numeric, PrivateClassifier, PublicSchema
        >>> door = PrivateClassifier(schema=PublicSchema({"a": Numeric(0, 1)}), classes=[0, 1])
        >>> table = pd.DataFrame({"a": np.linspace(0, 1, 50)})
        >>> door.plan_for(table, np.arange(50) % 2).n
        50
        """
        from ..data.encoder import check_table_columns

        caller = f"{type(self).__name__}.plan_for"
        table = check_table_columns(self.schema, X, caller)  # (n, its columns) as encoded
        if table is None:  # X holds encoded rows
            return super().plan_for(X, y)  # type: ignore[misc]
        shape = np.broadcast_to(np.float64(0.0), table)  # the table's shape, no value of X
        with signed_by(self, caller):
            return super().plan_for(shape, y)  # type: ignore[misc]

    def _learners(self, method: str, X: Any) -> Any:
        """The learner's ``method`` on the rows of X (their names checked by this estimator; encoded
        by the fitted encoder when a schema is given), its data errors signed with this estimator's
        name and method (the encoder's text, which may name the encoder, kept)."""
        check_fitted(self, "estimator_")
        caller = f"{type(self).__name__}.{method}"
        if self.schema is not None:
            check_fitted(self, "encoder_")
            with signed_by(self.encoder_, caller, rename=False):
                X = self.encoder_.transform(X)
        with signed_by(self.estimator_, caller):
            return unchecked(getattr(self.estimator_, method))(_rows_for(self.learner_, X))

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Accuracy (a classifier) or R² (a regressor) of the predictions on the table X.

        Parameters
        ----------
        X : DataFrame or array-like
            The table (with a schema: its raw columns, encoded here).
        y : array-like of shape (n_samples,)
            The labels or targets.
        sample_weight : array-like of shape (n_samples,) or None, default=None
            Weights of the rows in the score.

        Returns
        -------
        float

        Examples
        --------
        >>> import pandas as pd
        >>> import dpconvex as dp
        >>> schema = dp.PublicSchema({c: dp.Numeric(-1, 1) for c in ("a", "b", "c")})
        >>> X = rng.normal(size=(400, 3)); X /= np.linalg.norm(X, axis=1, keepdims=True)
        >>> table, y = pd.DataFrame(X, columns=["a", "b", "c"]), (X[:, 0] > 0).astype(int)
        >>> clf = dp.PrivateClassifier(schema=schema, classes=[0, 1], random_state=0)
        >>> 0.0 <= clf.fit(table, y).score(table, y) <= 1.0
        True
        """
        if self.schema is None or self.__sklearn_tags__().estimator_type != "classifier":
            return super().score(X, y, sample_weight=sample_weight)
        with signed_by(self, f"{type(self).__name__}.score"):
            # the table encoded; its labels checked as ClassifierScoreMixin's
            predicted = self.predict(X)
        labels, weights = self._score_labels(y, predicted.size, sample_weight)  # type: ignore[attr-defined]
        return float(np.average(predicted == labels, weights=weights))

    def _fit_routed(self, X: Any, y: Any, context: FitContext) -> Any:
        """With a schema: the table encoded and this front door fitted on the rows
        (:meth:`_fit_on_schema`)."""
        if self.schema is not None:
            return self._fit_on_schema(X, y, context)
        return super()._fit_routed(X, y, context)  # type: ignore[misc]

    def _fit_on_schema(self, X: Any, y: Any, context: FitContext) -> Any:
        """Encode X by the schema, fit this front door on the rows, state the schema's part.

        The front door on the rows draws from this fit's generator (``context.noise``, else
        ``random_state``). A named schema gives its rows' parameters (a ``feature_range`` given
        twice refused, :meth:`_schema_row_params`) before the table is read; a uniform one
        once the encoder has the table's columns."""
        from ..data.encoder import PublicEncoder
        from ..data.schema import UniformSchema, issued_release

        self._validate_params()
        issued_release(self.schema, f"{type(self).__name__}.fit")  # before anything is charged
        on_rows = None if isinstance(self.schema, UniformSchema) else self._on_rows(self.schema)
        encoder = PublicEncoder(self.schema, data_norm=float(self.data_norm))
        rows = encoder.fit_transform(X)  # a uniform schema given the table's columns: schema_
        if on_rows is None:
            on_rows = self._on_rows(encoder.schema_)
        inner = self._fit_as(on_rows, rows, y, context)
        self.encoder_ = encoder
        self.n_features_in_ = encoder.n_features_in_
        if getattr(encoder, "feature_names_in_", None) is not None:
            self.feature_names_in_ = encoder.feature_names_in_
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        self.certificate_ = self._with_schema_part(inner.certificate_, encoder.schema_)
        return self

    def _with_schema_part(self, model: Any, schema: Any) -> Any:
        """The model's certificate, after the release of ``schema`` (the schema of the table's
        columns, as :meth:`_schema_row_params` takes it) when it was released: a release
        draft_schema returned in this process only (:func:`~dpconvex.data.schema.issued_release`;
        the fit and certify paths refuse any other before anything is charged)."""
        from ..data.schema import issued_release

        release = issued_release(schema, type(self).__name__)
        note = ("rows encoded record by record by the public schema (PublicEncoder: clipped "
                "to its ranges, one-hot over its vocabularies, within data_norm)")
        if release is None:
            model.assumptions.append(f"{note}; {schema.provenance or _DECLARED_SCHEMA}")
            return model
        return compose_sequential(
            [release, model],
            mechanism=f"{type(self).__name__} on a table: the schema released by draft_schema, "
                      "then the model on the rows it encodes "
            "(docs/privacy/bounds.md#privacy-bounds-composition)",
            epsilon_requested=release.epsilon + model.epsilon_requested,
            delta_requested=release.delta + model.delta,
            quantities={"schema epsilon": release.epsilon, "model epsilon": model.epsilon},
            assumptions=[model.label_source, model.lam_rule, note,
                         "the schema's release was charged to the ledger given to "
                         "draft_schema; the model's epsilon (what is left) to this fit's"],
            labels=["schema", "model"])

    def _on_rows(self, schema: Any) -> Any:
        """This front door on the rows ``schema`` (the schema of the table's columns, as
        :meth:`_schema_row_params` takes it) encodes: no schema, the schema's row parameters."""
        return clone(self).set_params(schema=None, **self._schema_row_params(schema))

    def _on_rows_of_shape(self, schema: Any, n: int, method: str) -> Any:
        """:meth:`_on_rows` without rows, for n rows of the features ``schema`` encodes: the
        shape checked first as :meth:`plan` checks it (n rows of them within one numpy array,
        :func:`~dpconvex.estimators.base.check_holdable_shape`), per-feature arrays beyond this
        machine's memory refused by name; ``method``, the public call (``plan``, ``certify``),
        opens the refusals."""
        owner = type(self).__name__
        check_holdable_shape(owner, n, schema.n_features, method)
        try:
            # a named schema's per-feature ranges: arrays of the encoded width (a uniform
            # schema's: a view of one pair, UniformWidth.range_rows, so only a named schema
            # runs out of memory here)
            return self._on_rows(schema)
        except MemoryError:
            raise ParameterError(
                f"{owner}.{method}: its public problem of {len(schema.columns):,} columns "
                f"({schema.n_features:,} encoded features) needs arrays of "
                f"{schema.n_features:,} entries, more than this machine's memory. "
                f"{method.capitalize()} on the machine that fits, or with fewer columns."
            ) from None

    def _certify_routed(self, X: Any, y: Any, shape: dict[str, Any], context: FitContext) -> Any:
        """With a schema: the certificate of this front door on the encoded rows, after the
        schema's part (:meth:`_certify_on_schema`)."""
        if self.schema is not None:
            return self._certify_on_schema(X, y, **shape)
        return super()._certify_routed(X, y, shape, context)  # type: ignore[misc]

    def _certify_on_schema(self, X: Any, y: Any, **shape: Any) -> Any:
        """:meth:`certify` of this front door on the rows the schema encodes (the table X, or
        the width of the shape given), its schema's part stated (:meth:`_with_schema_part`).
        Without X the shape is refused as :meth:`plan` refuses it (the table's, then n rows of
        its encoded features, :meth:`_on_rows_of_shape`) before arrays of the width are
        made."""
        from ..data.encoder import PublicEncoder
        from ..data.schema import issued_release

        issued_release(self.schema, f"{type(self).__name__}.certify")
        if X is not None:
            encoder = PublicEncoder(self.schema, data_norm=float(self.data_norm))
            X = encoder.fit_transform(X)
            schema = encoder.schema_
            inner = self._on_rows(schema)
        else:  # n_features: the number of columns of the table
            schema = self._table_schema(shape.get("n_features"), "certify")
            # the shape refused as plan refuses it, by the table (n checked >= 2 there)
            n = _given_shape(self, **shape, method="certify")[0]
            if shape.get("n_features") is not None:
                shape["n_features"] = schema.n_features
            inner = self._on_rows_of_shape(schema, n, "certify")
        return state_rows_source(
            self._with_schema_part(inner.certify(X, y, **shape), schema), None, self)


#: The :class:`~dpconvex.errors.PrivacyLeakWarning` of a fit whose label set is read from y
#: (after the estimator's name): that set also chooses the learner.
INFERRED_CHOICE_WARNING = (
    "the label set was read from the data (classes=None) and is treated as public: it fixes the "
    "model's "
    "classes and, through their number C, also chooses the learner (the front door's rule reads "
    "n, C, d, "
    "epsilon and delta), so one record with a new label can change which model is released, not "
    "only its "
    "classes. Pass the public label set, e.g. classes=[0, 1, 2] (or y as the dpconvex.datasets "
    "loaders "
    "return it, or a pandas Categorical with the public categories)."
)

#: The certificate line of a fit whose label set was read from y.
INFERRED_CHOICE = ("the learner was chosen with the label set read from the data (classes=None), "
                   "assumed public: one record with a new label can change the learner; pass "
                   "classes=[...] so that neither is read from the records")

def _noise_dominates(learner: PrivateEstimator, n: int, n_classes: int, n_features: int) -> bool:
    """Whether ``learner``'s public noise check fires on the shape-only problem of its plan.

    The verdict of the check's own ratio and threshold, without its warning: the same
    comparison as the warning a fit of ``learner`` would give (public quantities only).
    """
    plan = learner.plan_checked(n, n_classes, n_features)  # the shape of the holder's plan
    template = learner.public_template(plan)
    if (
        isinstance(learner, (PrivateGaussianCentroid, PrivateGaussianNB))
        or plan.learner == CENTROID_LEARNER
    ):
        # the large-margin learner's centroids
        family = getattr(learner, "_noise_family", "centroid")
        return noise_dominates(family, template, plan.mechanism, plan.budget, n=n)
    if isinstance(learner, PrivateLargeMarginGaussian):
        return noise_dominates(
            noise_family(template), template, plan.mechanism, objective_part(plan)
        )
    # "linear", "gd"
    return noise_dominates(learner._ovr_noise_family, template, plan.mechanism, plan.budget)


def _rows_for(learner: str, X: Any) -> Any:
    """X as the learner takes it: scipy.sparse rows densified for the large-margin learner (its
    template holds the design densely) and noisy gradient descent (dense rows only)."""
    return X.toarray() if learner in (LARGE_MARGIN, NOISY_GD) and sp.issparse(X) else X


class ChosenClassifier(NamedTuple):
    """The classifier's rule on a public shape, made once by its plan
    (:attr:`~dpconvex.estimators.base.FitPlan.chosen`), which the fit follows.

    Examples
    --------
    >>> from dpconvex import PrivateClassifier
    >>> chosen = PrivateClassifier(epsilon=1.0, classes=[0, 1]).plan(400, 2, 3).chosen
    >>> chosen.choice.learner, chosen.guarded, chosen.plan.budget.epsilon < 1.0
    ('Huber SVM', True, True)
    """

    #: The rule's learner, the reason and the learner's ``row_norm``.
    choice: FrontDoorChoice
    #: The learner's own plan (its ε the whole ε, or (1 − s) ε with the safeguard); None in
    #: the rule's choice the plan starts from (:meth:`PrivateClassifier._chosen`).
    plan: FitPlan | None
    #: Whether the safeguard runs (the selection with s ε after the learner).
    guarded: bool
    #: The learner's ε: (1 − s) ε with the safeguard, else ε.
    epsilon: float
    #: The δ the fit spends: 0 when none is given or it buys the rule nothing.
    delta: float
    #: The learner the plan was made with, unfitted (the fit that made the plan fits it).
    learner: PrivateEstimator
    #: The plan's and the certificate's line on the safeguard: on, or off by "auto" (public).
    note: tuple[str, ...]


@dataclasses.dataclass(frozen=True, eq=False)
class _PublicShape(CheckedData):
    """X and y as given, with the public shape of a fit (:meth:`PrivateEstimator.public_shape`):
    what :class:`PrivateClassifier` reads before its plan (it checks the records in its hold)."""

    shape_read: tuple[int, int, int] = (0, 0, 0)

    @property
    def shape(self) -> tuple[int, int, int]:
        """(n, n_classes, n_features) as :meth:`PrivateEstimator.public_shape` read them."""
        return self.shape_read


class PrivateClassifier(SchemaInputMixin, ClassifierScoreMixin, PrivateEstimator):
    """A differentially private classifier that chooses its learner from public quantities.

    The front door of dpconvex: set ε (and δ) and the public label set; the learner follows
    from (n, C, d, ε, δ) by the rule of docs/privacy/front_door.md#privacy-private-classifier
    (:func:`~dpconvex.privacy.rules.front_door.choose_front_door_learner`), among
    :class:`~dpconvex.NoisyGradientDescent` (logistic loss, [BST14]_),
    :class:`~dpconvex.PrivateHuberSVM` (objective perturbation, [CMS11]_ Alg. 2; Gaussian
    when δ > 0, [KST12]_), :class:`~dpconvex.PrivateGaussianCentroid`,
    :class:`~dpconvex.PrivateGaussianNB` (only with public per-feature ranges) and
    :class:`~dpconvex.PrivateLargeMarginGaussian` with the softmax loss ([PR10]_). The
    chosen learner is fitted with every option at its default; the certificate states the
    choice and why, and :meth:`plan` shows it before any data are read. SciPy sparse rows are
    taken by every learner (densified for the large-margin learner and noisy gradient descent).

    Parameters
    ----------
    epsilon : float, default=1.0
        ε > 0 of the release.
    delta : float, default=0.0
        δ in [0, 1): 0 for pure ε-DP; δ > 0 (e.g. 1/n²) lets the learner use its Gaussian
        mechanism; with two classes only where it buys the Huber SVM its Gaussian form (else
        the fit is that of δ = 0 and its certificate says δ is unused).
    classes : sequence of labels or None, default=None
        The public label set (C = len(classes)). None takes the set declared with y
        (the ``dpconvex.datasets`` loaders, a pandas Categorical), else reads it from
        y with a :class:`~dpconvex.errors.PrivacyLeakWarning`: C then also chooses the
        learner, so one record with a new label can change which model is released.
    {unknown_labels}
    {data_norm}
    {random_state}
    {accountant}
    safeguard : "auto" or bool, default="auto"
        Release the learner's model or a constant class, whichever the exponential
        mechanism selects by their mistakes on the rows (the model's with a public handicap
        of 0.005 n, :data:`~dpconvex.privacy.rules.front_door.MODEL_HANDICAP`); the learner
        spends (1 − s) ε and the selection s ε, so the release stays (ε, δ)-DP (sequential
        composition,
        docs/privacy/front_door.md#privacy-classifier-safeguard, where its cost and gain are
        measured). A released constant comes with a
        :class:`~dpconvex.errors.PrivacyWarning`, and so does a fit, before it reads the data,
        where the selection cannot tell a model 2 points below the best constant class from
        it (n ε below about 586 with the defaults;
        :func:`~dpconvex.privacy.rules.front_door.safeguard_blind`). "auto" is True where n ≤
        :data:`~dpconvex.privacy.rules.front_door.SAFEGUARD_ROWS_AT_MOST`, whichever learner
        the rule chooses.
    selection_share : float in (0, 1), default=0.15
        With the safeguard, the share s of ε the selection spends
        (:data:`~dpconvex.privacy.rules.front_door.SELECTION_SHARE`).
    row_norm : {"auto", "none"}, default="auto"
        "auto": the learners scale rows to the norm bound, x ↦ q·x/‖x‖
        (docs/privacy/row_scaling.md#privacy-row-norm-unit), where the rule says so
        (docs/privacy/front_door.md#privacy-private-classifier). "none": every learner keeps
        the rows as given (clipped to ``data_norm``); pass it when a row's length carries the label.
    schema : PublicSchema, UniformSchema or None, default=None
        None: X holds rows (e.g. from :class:`~dpconvex.PublicEncoder`). A schema: X is the
        table, encoded by ``PublicEncoder(schema, data_norm=data_norm)`` (``encoder_``) in
        ``fit`` and every prediction; a schema drafted with a budget is composed into the
        certificate (docs/privacy/bounds.md#privacy-bounds-composition), and gives the
        per-feature ranges when ``feature_range`` is None. One declaration for every column
        (:meth:`~dpconvex.PublicSchema.every_column`) is given the table's columns at ``fit``
        (``encoder_.schema_``); ``plan`` and ``certify`` without X take ``n_features`` as the
        number of columns of the table.
    feature_range : None, (float, float), array-like of shape (n_features, 2) or PublicSchema, default=None
        The public range of each feature of the rows the learner reads, as
        :class:`~dpconvex.PrivateGaussianNB` takes it (never the data's min and max). Given, the
        rule may choose Gaussian naive Bayes; None: the ranges of the schema or of the
        encoder's rows, else naive Bayes is not chosen. With ``schema`` (or on the rows of
        :class:`~dpconvex.PublicEncoder`) it is in the units of the encoded rows, not of the
        table's columns (a numeric column of ``Numeric(0, 100)`` spans [0, 1/divisor] once
        encoded): the columns' ranges belong in the schema. Given with them, it must be that
        schema (or one of the same encoding), read at ``data_norm`` 1 as
        :class:`~dpconvex.PrivateGaussianNB` reads it whatever ``data_norm`` encodes the rows,
        or lie within the encoded rows' ranges,
        ``np.column_stack(schema.encoded_range(data_norm))`` (a narrower clip, up to 5e-3 of
        each width), else it is refused by name (the ranges given twice).

    Attributes
    ----------
    estimator_ : estimator
        The released model: the fitted learner (its noised parameters and public facts),
        or, when the safeguard selected a constant class, a
        :class:`~dpconvex.estimators.front_door.ConstantClassifier`. A learner holds this
        estimator's ``accountant``, so a refit of it is charged as a fit is. The learner is
        fitted on the rows as this estimator validated them, so it records no
        ``feature_names_in_`` of a DataFrame: this estimator keeps them and checks them in
        ``predict``.
    learner_ : str
        Which learner the rule chose ("constant class" when the safeguard released one).
    classes_ : ndarray of shape (C,)
    n_features_in_ : int
    certificate_ : Certificate
        The learner's certificate, with the front door's choice among its assumptions.

    References
    ----------
    .. [CMS11] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially Private
       Empirical Risk Minimization. JMLR 12 (2011), Alg. 2.
    .. [KST12] D. Kifer, A. Smith, A. Thakurta. Private Convex Empirical Risk
       Minimization and High-dimensional Regression. COLT 2012, Thm. 2.
    .. [BST14] R. Bassily, A. Smith, A. Thakurta. Private Empirical Risk Minimization:
       Efficient Algorithms and Tight Error Bounds. FOCS 2014.
    .. [PR10] M. A. Pathak, B. Raj. Large Margin Multiclass Gaussian Classification
       with Differential Privacy. PSDM 2010.

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import PrivateClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 3)); X /= np.linalg.norm(X, axis=1, keepdims=True)
    >>> y = (X[:, 0] > 0).astype(int)
    >>> clf = PrivateClassifier(epsilon=1.0, classes=[0, 1], random_state=0).fit(X, y)
    >>> clf.learner_
    'Huber SVM'
    >>> clf.certificate_.epsilon <= 1.0
    True
    """

    _accepts_sparse: ClassVar[bool] = True
    _inferred_warning: ClassVar[str] = INFERRED_CHOICE_WARNING  # a sweep's too
    takes_rows_ranges = True
    fits_only = True

    _parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "epsilon": EPSILON, "delta": Optional(DELTA),
        "data_norm": DATA_NORM,
        "classes": NoValidation("checked with the labels by the learner"),
        "unknown_labels": LABEL_POLICY, "random_state": RANDOM_STATE,
        "accountant": ACCOUNTANT, "safeguard": Auto(Bool()),
        "selection_share": Float(high=1.0),
        "row_norm": Options(("auto", "none")),
        "schema": SCHEMA, "feature_range": Optional(FeatureRange()),
    }

    def __init__(self, *, epsilon: float = 1.0, delta: float = 0.0, classes: Any = None,
                 data_norm: float = 1.0, random_state: int | None = None, accountant: Any = None,
                 unknown_labels: str = "raise", safeguard: bool | str = "auto",
                 selection_share: float = SELECTION_SHARE, row_norm: str = "auto",
                 schema: Any = None, feature_range: Any = None):
        self._store_params(locals())

    # ------------------------------------------------------------------------ plan
    def _chosen(self, n: int, n_classes: int, n_features: int) -> ChosenClassifier:
        """The rule's choice for n rows, C classes and d features, the rule run once: whether
        the safeguard runs (n and the parameter), the learner's ε ((1 − s) ε under it, else ε),
        the rule's learner at that ε, the δ the fit spends, the line on the safeguard, and the
        learner, unfitted (its plan is :meth:`_plan`'s)."""
        if self.feature_range is not None:  # one range per column, whichever learner is chosen
            feature_bounds(self.feature_range, n_features, type(self).__name__)
        guarded = safeguard_applies(n, self.safeguard)
        # under the safeguard what the selection leaves of ε (the two add up to at most ε)
        epsilon = (remaining(float(self.epsilon), self._selection_epsilon()) if guarded
                   else float(self.epsilon))
        choice = self._choice(n, n_classes, n_features, epsilon)
        given = float(self.delta or 0.0)
        delta = given if given > 0 and not choice.delta_unused else 0.0
        note = (self._safeguard_note(n, n_classes),) if guarded else self._unguarded_note(n)
        learner = self._make(choice.learner, epsilon, delta, row_norm=choice.row_norm)
        return ChosenClassifier(choice, None, guarded, epsilon, delta, learner, note)

    def _make(self, learner: str, epsilon: float, delta: float, *, objective: bool = False,
              row_norm: str = "none") -> PrivateEstimator:
        """The unfitted learner of that name at ``epsilon`` and ``delta`` (the rule's choice's)
        and this front door's public bounds.

        ``objective=True`` names the large-margin objective's mechanism (no centroid switch),
        for the noise checks of :meth:`_warn`. The front door holds the budget, so the learner
        charges no ledger. ``row_norm``: the rule's per-record map for the Huber SVM.
        """
        common = {"epsilon": epsilon,
                  "classes": self.classes, "data_norm": self.data_norm,
                  "unknown_labels": self.unknown_labels, "random_state": self.random_state}
        if learner == LINEAR:
            return PrivateHuberSVM(delta=delta, fit_intercept=True, row_norm=row_norm, **common)
        if learner == NOISY_GD:
            return NoisyGradientDescent(delta=delta, fit_intercept=True, **common)
        if learner == GAUSSIAN_NB:  # the rows as given: their public ranges are of these rows
            del common["data_norm"]
            return PrivateGaussianNB(delta=delta if delta > 0 else None,
                                     feature_range=self.feature_range, **common)
        kept = {"row_norm": "none"} if self.row_norm == "none" else {}  # the user's rows as given
        if learner == CENTROID:
            return PrivateGaussianCentroid(delta=delta, **kept, **common)
        mechanism = ("gaussian_objective" if delta > 0 else "objective") if objective else "auto"
        return PrivateLargeMarginGaussian(delta=delta if delta > 0 else None, mechanism=mechanism,
                                          **kept, **common)

    def _choice(self, n: int, n_classes: int, n_features: int, epsilon: float) -> Any:
        """The rule's choice for this shape at the learner's ε, ``epsilon`` (public quantities
        and the parameters only)."""
        return front_door_rule(n, n_classes, n_features, epsilon, float(self.delta or 0.0),
                               self.row_norm, ranges_known=self.feature_range is not None,
                               data_norm=float(self.data_norm))

    def _selection_epsilon(self) -> float:
        """The safeguard's selection's ε: s ε."""
        return float(self.selection_share) * float(self.epsilon)

    def _plan(self, n: int, n_classes: int, n_features: int) -> FitPlan:
        """The rule's choice on (n, C, d) and the plan of its release: the learner's own plan
        with this front door's budget (ε, δ), the safeguard's parts and the notes; the choice,
        the learner and its plan ride in ``chosen`` (:class:`ChosenClassifier`), which the fit
        follows."""
        if self.schema is not None:  # the fit's plan: the encoded rows, the schema's ranges
            schema = self._table_schema(n_features, "plan")  # n_features: the table's columns
            inner = self._on_rows_of_shape(schema, n, "plan")
            return inner.plan(n, n_classes, schema.n_features)
        chosen = self._chosen(n, n_classes, n_features)
        learner_plan = chosen.learner.plan_checked(n, n_classes, n_features)  # the shape checked
        parts = dict(learner_plan.parts)
        if chosen.guarded:  # the learner on every row, then the selection on the same rows
            parts.update({"model (every row)": learner_plan.budget,
                          "selection (every row)": Budget(self._selection_epsilon())})
        # the learner's binary models are its plan's (chosen.plan), fitted by the learner
        return dataclasses.replace(
            learner_plan, estimator=type(self).__name__, learner=chosen.choice.learner,
            budget=Budget(float(self.epsilon), chosen.delta), parts=parts, sub_plans=(),
            notes=(*learner_plan.notes, chosen.choice.reason, *chosen.note),
            chosen=chosen._replace(plan=learner_plan))

    def _unguarded_note(self, n: int) -> tuple[str, ...]:
        """The certificate's line when safeguard="auto" leaves the safeguard off (public)."""
        if not isinstance(self.safeguard, str):
            return ()
        return (
            f"PrivateClassifier: safeguard='auto' is off for n = {n} > {SAFEGUARD_ROWS_AT_MOST} "
            "rows: the learner is fitted on every row and nothing compares its model with the "
            "majority class (docs/privacy/front_door.md#privacy-classifier-safeguard)",
        )

    def _safeguard_note(self, n: int, n_classes: int) -> str:
        return (
            f"PrivateClassifier: safeguard on: the learner is fitted on the {n} rows with "
            f"(1 - s) epsilon, and the exponential mechanism selects the model or one of the "
            f"{n_classes} constant classes by their mistakes on the same rows with s epsilon, "
            f"the model's with a public handicap of {MODEL_HANDICAP:g} n = "
            f"{MODEL_HANDICAP * n:.4g} (s = selection_share = {float(self.selection_share):g}; "
            "docs/privacy/front_door.md#privacy-classifier-safeguard)"
        )

    def _schema_row_params(self, schema: Any) -> dict[str, Any]:
        """The public per-feature ranges of the rows ``schema`` encodes, unless given: one row
        per feature; a uniform schema's for a width (a dry run's) a read-only view of its one
        range (:meth:`~dpconvex.data.UniformWidth.range_rows`, the same entries), which holds
        no array as wide as the rows. A given ``feature_range`` is kept where it is the schema
        (of the same encoding, at any ``data_norm``) or lies within them (a narrower clip, in
        the encoded rows' units), else refused by name: the ranges given twice
        (:func:`~dpconvex.estimators.gaussian_nb.refuse_ranges_given_twice`)."""
        from ..data.schema import UniformWidth

        q = float(self.data_norm)
        if isinstance(schema, UniformWidth):
            carried = schema.range_rows(q)
        else:
            carried = np.column_stack(schema.encoded_range(q))
        if self.feature_range is None:
            return {"feature_range": carried}
        refuse_ranges_given_twice(self.feature_range, carried, type(self).__name__,
                                  f"schema={type(self.schema).__name__}(...)",
                                  "np.column_stack(schema.encoded_range(data_norm))")
        return {}

    def _refuse_ranges_beyond(self, carried: np.ndarray) -> None:
        """Refuse a given ``feature_range`` beyond the ranges the rows carry
        (:func:`~dpconvex.estimators.gaussian_nb.refuse_ranges_given_twice`)."""
        refuse_ranges_given_twice(self.feature_range, carried, type(self).__name__,
                                  "the schema of the PublicEncoder that encoded X",
                                  "X.feature_range, the schema's encoded_range(data_norm)")

    # --------------------------------------------------------------------- fit
    # fit is the base's (validate → plan → warn → hold → prepare → release); a schema or rows
    # carrying their ranges go first (SchemaInputMixin, PrivateEstimator._fit_routed); the hooks
    # below.
    def _warn(self, plan: FitPlan) -> None:
        """At most one warning, from the public facts of this fit's plan (``plan.chosen``),
        after the plan and before anything is held: when the public noise check of every
        candidate learner fires (privacy-defaults-blind-spots), else when the safeguard runs
        and its selection cannot tell a model clearly below the best constant class from it
        (:func:`_warn_safeguard_blind`, privacy-classifier-safeguard-blind).

        Each noise check reads (n, C, d, ε, δ) and the public bounds only
        (docs/privacy/tuning_gd_ledger.md#privacy-noise-warning-linear,
        privacy-noise-warning-gd-centroids, privacy-softmax-measurements), on the shape-only
        problem of the candidate's plan; nothing is fitted.
        """
        chosen, n, n_classes, n_features = plan.chosen, plan.n, plan.n_classes, plan.n_features
        learner_name = chosen.choice.learner
        # naive Bayes has no public noise check (docs/privacy/gaussian_nb.md#privacy-gaussian-nb)
        if learner_name == GAUSSIAN_NB:
            self._warn_safeguard_blind(plan)
            return
        candidates = (CENTROID, LARGE_MARGIN, *([LINEAR] if n_classes <= 2 else []),
                      *([NOISY_GD] if learner_name == NOISY_GD else []))
        for name in candidates:
            learner = self._make(name, chosen.epsilon, chosen.delta, objective=True)
            if not _noise_dominates(learner, n, n_classes, n_features):
                # a candidate the public checks do not rule out
                self._warn_safeguard_blind(plan)
                return
        warnings.warn(
            f"{type(self).__name__}: at epsilon = {float(self.epsilon):g} the public noise checks "
            "predict "
            f"every learner it can choose ({', '.join(candidates)}) no better than the majority "
            "class for n "
            f"= {n} rows, C = {n_classes} classes and d = {n_features} features (public "
            "quantities only; "
            "docs/privacy/front_door.md#privacy-defaults-blind-spots). Use a larger epsilon, "
            "delta > 0, "
            f"more rows or fewer features before spending the budget. {PUBLIC_CHECK_NOTE}",
            PrivacyWarning,
            stacklevel=user_stacklevel(),
        )

    def _warn_safeguard_blind(self, plan: FitPlan) -> None:
        """The warning that the safeguard's selection can release a model
        :data:`~dpconvex.privacy.rules.front_door.SAFEGUARD_GAP` below the best constant class
        with probability above
        :data:`~dpconvex.privacy.rules.front_door.SAFEGUARD_WARNING_LEVEL`
        (:func:`~dpconvex.privacy.rules.front_door.safeguard_blind`: n, ε, s and h only); none
        where the safeguard is off."""
        if not plan.chosen.guarded:
            return
        n, epsilon, share = plan.n, float(self.epsilon), float(self.selection_share)
        blind, p = safeguard_blind(n, epsilon, share)
        if not blind:
            return
        warnings.warn(
            f"{type(self).__name__}: with n = {n} rows and epsilon = {epsilon:g}, the "
            f"safeguard's selection (selection_share s = {share:g}, epsilon_2 = "
            f"{share * epsilon:.4g}, the model's handicap {MODEL_HANDICAP:g} n) cannot tell a "
            f"model {100 * SAFEGUARD_GAP:g} points below the best constant class from it: it "
            f"can release such a model with probability up to {p:.2f} (above "
            f"{SAFEGUARD_WARNING_LEVEL:g}; public quantities only, "
            "docs/privacy/front_door.md#privacy-classifier-safeguard-blind). The released model "
            "may be no better than predicting one class. Use a larger epsilon or more rows, or "
            "check the model on held-out rows against the majority class before using it.",
            PrivacyWarning,
            stacklevel=user_stacklevel(),
        )

    def _validated(self, X: Any, y: Any, context: FitContext, *,
                   binary: bool = False) -> CheckedData:
        """The public shape the plan reads, X's dtype refused before y is read; the rows and
        labels are checked inside the hold (:meth:`_prepare_fit`), so an exhausted ledger
        refuses a fit before a record could."""
        if isinstance(X, np.ndarray) and X.dtype.kind != "O":
            check_numeric_dtype(X, f"{type(self).__name__}.fit")
        return _PublicShape(X, y, shape_read=self.public_shape(X, y, context))

    def _prepare_fit(self, X: Any, y: Any, plan: FitPlan,
                     context: FitContext) -> tuple[PrivateEstimator, CheckedData]:
        """The learner this fit's plan made (``plan.chosen.learner``, unfitted) and the rows and
        labels checked once, inside the hold, in this estimator's name (its learner is a name the
        user never wrote): the labels against the public set, then the rows as the learner takes
        them (:func:`_rows_for`), for the learner and the selection."""
        owner, choice = f"{type(self).__name__}.fit", plan.chosen.choice
        learner = plan.chosen.learner  # made by this fit's plan, for this fit only
        classes, given = self._fit_classes(context)
        y_checked = check_labels(computed(y), plan.n, owner, classes=classes,
                                 unknown_labels=self.unknown_labels)
        labels = given_source(encode_labels(
            y_checked, classes, owner, excluded=context.excluded,
            unknown_labels=self.unknown_labels, warning=context.label_warning), given)
        X_checked = check_array(_rows_for(choice.learner, X), owner, min_samples=2,
                                accept_sparse=learner._accepts_sparse, accept_dask=True)
        return learner, CheckedData(X_checked, y_checked, labels)

    def _release(self, prep: tuple[PrivateEstimator, CheckedData], plan: FitPlan, hold: Any,
                 context: FitContext, warm_start: Any) -> PrivateClassifier:
        """The plan's choice released inside its hold, committed, and set as the model: the
        learner on every row, or under the safeguard the model or a constant class (the
        selection, :meth:`_select`, after the learner's fit); ``prep``: the learner and the rows
        and labels (:meth:`_prepare_fit`), ``context.noise`` this fit's generator (under the
        safeguard, the learner's and the selection's are spawned from it).

        Raises
        ------
        ParameterError, DataValidationError, PrivacyError, SolverError
        """
        (learner, data), chosen = prep, plan.chosen
        labels, noise, selection = data.labels, context.noise, None
        with signed_by(learner, f"{type(self).__name__}.fit"):
            if chosen.guarded:  # the learner on this fit's label set; two generators spawned
                learner.set_params(classes=list(labels.classes))
                fit_rng, select_rng = noise.rng.spawn(2)
                selection = NoiseSource(select_rng, noise.seeded)
                noise = NoiseSource(fit_rng, noise.seeded)
            fit_part(learner, data.X, data.y, context.inner(
                noise, held=True, checked=True, data=data, plan=chosen.plan))
            if not chosen.guarded:  # the learner's model is the release
                best, certificate = 0, learner.certificate_
                certificate.assumptions.extend((chosen.choice.reason, *chosen.note))
            else:  # 0 the learner's model, c + 1 the constant class c
                best, certificate = self._select(learner, data, plan, selection)
            if labels.assumption.source == "inferred":  # the set read from y chose the learner
                certificate.assumptions.append(INFERRED_CHOICE)
            hold.commit_certificate(certificate)
        if best == 0:
            self.estimator_, self.learner_ = learner, chosen.choice.learner
        else:
            self._set_constant(labels.classes[best - 1], labels.classes, plan, certificate)
        self.classes_ = np.asarray(labels.classes)
        self.n_features_in_ = plan.n_features
        self.certificate_ = certificate
        return carry_ledger(self, self.accountant)

    def _set_constant(self, constant: Any, classes: Any, plan: FitPlan,
                      certificate: Certificate) -> None:
        """The constant class the safeguard's selection chose released as the model, with the
        warning that it was chosen over the rule's learner (:func:`warn_constant_released`;
        whether a δ > 0 would change the rule: public facts of ``plan`` only)."""
        n, chosen = plan.n, plan.chosen
        self.estimator_ = ConstantClassifier(constant, classes, plan.n_features)
        self.estimator_.certificate_ = certificate
        self.learner_ = CONSTANT
        warn_constant_released(
            type(self).__name__, f"a constant class ({certificate.released[SAFEGUARD_SELECTED]})",
            chosen.choice.learner, float(self.epsilon),
            "docs/privacy/front_door.md#privacy-classifier-safeguard",
            not (self.delta or 0.0) > 0  # and the rule would spend a δ = 1/n²
            and delta_spent(n, plan.n_classes, plan.n_features, chosen.epsilon, 1.0 / n**2,
                            float(self.data_norm)))

    def _select(self, learner: PrivateEstimator, prep: CheckedData, plan: FitPlan,
                noise: NoiseSource) -> tuple[int, Certificate]:
        """The safeguard's selection (docs/privacy/front_door.md#privacy-classifier-safeguard),
        after the learner's fit with (1 − s) ε on every row: the exponential mechanism with
        s ε over the model and each constant class by their mistakes on the same rows (the
        model's handicapped).

        Parameters
        ----------
        learner : PrivateEstimator
            The rule's learner at (1 − s) ε, fitted.
        prep : CheckedData
            The rows as the learner takes them and the labels, validated and encoded once.
        plan : FitPlan
            This fit's plan (its ``chosen``: the rule's choice and the learner's plan).
        noise : NoiseSource
            The selection's generator (spawned from this fit's beside the learner's).

        Returns
        -------
        best : int
            The candidate selected: 0 the model, c + 1 the constant class c.
        certificate : Certificate
            The composed certificate (committed by the caller).
        """
        labels, n = prep.labels, plan.n
        learner.certificate_.state(labels.assumption)  # this fit's set, not the learner's
        mistakes = safeguard_mistakes(learner, prep.X, prep.y, labels.classes)
        mistakes[0] += MODEL_HANDICAP * n  # public: fixed before the data
        best, selection = _select_release(-mistakes, self._selection_epsilon(), n, noise.rng,
                                         noise.seeded)
        certificate = self._safeguard_certificate(
            learner.certificate_, selection, plan.chosen, n, labels.classes, best,
            labels.assumption)
        return best, certificate

    def _safeguard_certificate(self, model: Certificate, selection: Certificate,
                               chosen: ChosenClassifier, n: int, classes: Any,
                               selected: int | None = None, label_source: Any = None
                               ) -> Certificate:
        """The sequential composition of the learner's release and the selection
        (privacy-classifier-safeguard) of the rule's choice ``chosen``; ``label_source``: where
        this fit's label set came from."""
        name = chosen.choice.learner
        candidates = [name, *(constant_name(label) for label in classes)]
        quantities: dict[str, Any] = {
            "safeguard selection share": float(self.selection_share),
            "safeguard model handicap": MODEL_HANDICAP * n, "safeguard candidates": candidates}
        conditions = [
            fixed_candidates(f"the rule's learner ({name}) and the {len(classes)} constant "
                             "classes of the public label set"),
            Condition("selection utility of sensitivity 1", True, "enforced by dpconvex",
                      "for the learner's model (fixed by its release), each candidate's mistakes "
                      "on the rows change by at most 1 when one record is replaced; the model's "
                      "handicap is public"),
        ]
        certificate = compose_sequential(
            [model, selection],
            mechanism=(
                "PrivateClassifier with its safeguard: the learner with (1 - s) epsilon, "
                "then the exponential mechanism with s epsilon over the model and each "
                "constant class by their mistakes on the rows (the model's handicapped) "
                "(docs/privacy/front_door.md#privacy-classifier-safeguard)"
            ),
            epsilon_requested=float(self.epsilon),
            delta_requested=chosen.delta,
            conditions=conditions,
            quantities=quantities,
            assumptions=[
                label_source,
                model.lam_rule,
                chosen.choice.reason,
                *chosen.note,
                "replace-one adjacency; n is public (it fixes the model's handicap)",
            ],
            labels=["model", "selection"],
            caller=f"{type(self).__name__}.fit",
        )
        if selected is not None:  # the selection's output (private)
            certificate.released[SAFEGUARD_SELECTED] = candidates[selected]
        return certificate

    def _certify_routed(self, X: Any, y: Any, shape: dict[str, Any], context: FitContext) -> Any:
        """:meth:`certify`: the schema's, the rows' ranges', the safeguard's or the chosen
        learner's (through its public ``certify``), with the rule's reason."""
        if self.schema is not None:
            return super()._certify_routed(X, y, shape, context)
        ranged = self._with_rows_ranges(X)
        if ranged is not None:
            certificate = state_rows_source(ranged.certify(X, y), X)
            certificate.assumptions.append(ROWS_RANGES_NOTE)
            return certificate
        self._validate_params()
        given = self._fit_classes(context)[1]  # the set a search read from its y, or None
        if X is None:
            plan = self.plan(*_given_shape(self, **shape))  # validates them
            size, chosen = (plan.n, plan.n_classes, plan.n_features), plan.chosen
        else:
            feature_names_of(X, f"{type(self).__name__}.certify")  # refused as a fit refuses them
            size = self.public_shape(X, y, context)
            if self._fit_classes(context)[0] is None and declared_classes(y) is None:  # as fit
                LabelWarning().issue(type(self).__name__, INFERRED_CHOICE_WARNING)
            chosen = self._chosen(*size)
        if chosen.guarded:
            return self._certify_safeguarded(X, y, size, chosen, context)
        learner = chosen.learner
        with signed_by(learner, f"{type(self).__name__}.certify"):
            if X is None:
                certificate = learner.certify(**shape)
            else:  # (the learner's label warning issued: certify's came first)
                rows = _rows_for(chosen.choice.learner, X)
                part = FitContext(label_warning=LabelWarning(True), label_set=given)
                certificate = state_rows_source(certify_part(learner, rows, y, part), rows)
        certificate.assumptions.extend((chosen.choice.reason, *chosen.note))
        return self._inferred_choice(certificate, y, given)

    def _inferred_choice(self, certificate: Certificate, y: Any,
                         given: LabelSet | None = None) -> Certificate:
        """The dry run with the fit's line on a learner chosen by a label set read from y
        (``given``: the set the search holding this one read, with its source)."""
        if given is not None:
            inferred = given.assumption.source == "inferred"
        else:
            inferred = self.classes is None and (y is None or declared_classes(y) is None)
        if inferred:
            certificate.state(INFERRED_CHOICE)
        return certificate

    def _certify_safeguarded(self, X: Any, y: Any, size: tuple[int, int, int],
                             chosen: ChosenClassifier,
                             context: FitContext = NO_CONTEXT) -> Certificate:
        """The safeguard's certificate: the learner's dry run at (1 − s) ε on the rows and the
        selection's dry run at s ε; ``chosen``: the rule's choice on ``size`` and its learner;
        ``context``: the label set a search holding this one read from its y, as a fit takes it
        (:meth:`_fit_classes`)."""
        owner = type(self).__name__
        n, n_classes, n_features = size
        learner = chosen.learner
        classes, given = self._fit_classes(context)
        # (without a set: read from y, as a fit reads it)
        source = public_label_source(self) if given is None else given.assumption
        if X is None:
            with signed_by(learner, f"{owner}.certify"):
                model = learner.certify(n=n, n_classes=n_classes, n_features=n_features)
            classes = (
                check_classes(classes, f"{owner}.certify")
                if classes is not None
                else range(n_classes)
            )
        else:
            X_checked, y_checked = check_rows(X, y, f"{owner}.certify", self, classes=classes,
                                              unknown_labels=self.unknown_labels)
            labels = given_source(encode_labels(
                y_checked,
                classes,
                f"{owner}.certify",
                unknown_labels=self.unknown_labels,
                warning=LabelWarning(True),
            ), given)  # (certify's warning came first)
            classes, source = labels.classes, labels.assumption
            learner.set_params(classes=list(classes))
            rows = _rows_for(chosen.choice.learner, X_checked)
            model = certify_part(learner, rows, y_checked, FitContext())
            model.state(source)
        classes = list(classes)
        selection = dry_selection(len(classes) + 1, self._selection_epsilon(), n,
                                  seeded=self.random_state is not None)
        certificate = self._safeguard_certificate(model, selection, chosen, n, classes,
                                                  label_source=source)
        # as a fit's budget hold states it
        certificate.state(delta_rows_note(chosen.delta, n))
        return self._inferred_choice(certificate, y, given)

    # ----------------------------------------------------------------- predict
    @checks_feature_names
    def predict(self, X: Any) -> np.ndarray:
        """The learner's predictions.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels from ``classes_``.

        Examples
        --------
        >>> from dpconvex import PrivateClassifier
        >>> X = rng.normal(size=(400, 3)); X /= np.linalg.norm(X, axis=1, keepdims=True)
        >>> clf = PrivateClassifier(classes=[0, 1], random_state=0).fit(X, X[:, 0] > 0)
        >>> set(clf.predict(X).tolist()) <= {0, 1}
        True
        """
        return self._learners("predict", X)

    @checks_feature_names
    def predict_proba(self, X: Any) -> np.ndarray:
        """The learner's class probabilities (columns in the order of ``classes_``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)

        Examples
        --------
        >>> from dpconvex import PrivateClassifier
        >>> X = rng.normal(size=(400, 3)); X /= np.linalg.norm(X, axis=1, keepdims=True)
        >>> clf = PrivateClassifier(classes=[0, 1], random_state=0).fit(X, X[:, 0] > 0)
        >>> clf.predict_proba(X[:3]).shape
        (3, 2)
        """
        return self._learners("predict_proba", X)

    # the learner's, computed in log space
    def _log_proba(self, X: Any, method: str) -> np.ndarray:
        return self._learners(method, X)

    @checks_feature_names
    def decision_function(self, X: Any) -> np.ndarray:
        """The learner's decision function.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)

        Examples
        --------
        >>> from dpconvex import PrivateClassifier
        >>> X = rng.normal(size=(400, 3)); X /= np.linalg.norm(X, axis=1, keepdims=True)
        >>> clf = PrivateClassifier(classes=[0, 1], random_state=0).fit(X, X[:, 0] > 0)
        >>> clf.decision_function(X[:3]).shape
        (3,)
        """
        return self._learners("decision_function", X)


#: The certificate's line on the safeguard's utility (its sensitivity): the utilities
#: :func:`~dpconvex.estimators.front_door.squared_error_utilities` computes with
#: κ = :data:`~dpconvex.privacy.rules.front_door.RESIDUAL_CLIP`.
SELECTION_UTILITY = (
    "u_model = -sum_i min(1, ((u^_i - u_i)/kappa)^2) - m and u_mean = -sum_i min(1, ((c - "
    f"u_i)/kappa)^2) over the validation rows, kappa = {RESIDUAL_CLIP:g}, labels u_i and "
    "predictions "
    "u^_i on the unit scale [-1, 1] (public maps; predictions clipped to it), c the private mean: "
    "each "
    "term lies in [0, 1], so replacing one validation record moves each utility by at most 1; m "
    "is a "
    "public handicap (docs/privacy/front_door_regression.md#privacy-regressor-safeguard)"
)


class SafeguardParts(NamedTuple):
    """The regressor's safeguard on n rows: its part sizes, its shares of ε and the selection's
    handicap (public: n and the parameters only).

    Examples
    --------
    >>> from dpconvex import PrivateRegressor
    >>> parts = PrivateRegressor(epsilon=1.0)._parts(10_000, "Demo.fit")
    >>> parts.n_fit, parts.n_val, parts.eps_mean, round(parts.rest, 2), round(parts.handicap, 2)
    (8000, 2000, 0.15, 0.85, 7.05)
    """

    #: Rows of the fitting part and of the validation part (n_fit + n_val = n).
    n_fit: int
    n_val: int
    #: ε_c of the private mean of every row's labels.
    eps_mean: float
    #: ε − ε_c, of the learner on the fitting part and of the selection on the validation part.
    rest: float
    #: m, subtracted from the model's utility in the selection (:func:`selection_handicap`
    #: at ``rest``).
    handicap: float


#: The regressor's safeguard's parts, as its plan's budgets and its certificate's accounting
#: name them: the private mean, the model and the selection.
_SAFEGUARD_PARTS = ("private mean (every row)", "model (fitting part)",
                    "selection (validation part)")

#: The plan's and the certificate's line of the regressor's safeguard (``format``: the fields
#: of :class:`SafeguardParts`, ``level``, :data:`HANDICAP_LEVEL`, and ``fraction``, the
#: ``validation_fraction`` parameter).
_SAFEGUARD_ON = (
    "PrivateRegressor: safeguard on: the private mean of the labels of every row (epsilon_c = "
    "{eps_mean:.4g}), the learner on {n_fit} rows (the {n_val} validation rows' loss zeroed, "
    "their labels replaced by the centre of label_range) and the exponential mechanism over "
    "(the model, the mean) on those {n_val}, each with epsilon - epsilon_c; the model's utility "
    "lowered by a public handicap (a model no better than the mean is released with probability "
    "<= {level:g}; validation_fraction = {fraction!r}; "
    "docs/privacy/front_door_regression.md#privacy-regressor-safeguard)"
)


class ChosenLearner(NamedTuple):
    """The regressor's rule on a public shape, made once by its plan
    (:attr:`~dpconvex.estimators.base.FitPlan.chosen`), which the fit follows.

    Examples
    --------
    >>> from dpconvex import PrivateRegressor
    >>> chosen = PrivateRegressor(epsilon=1.0).plan(n=10_000, n_features=3).chosen
    >>> chosen.choice.learner, chosen.plan.budget.epsilon < 1.0, chosen.parts.n_val
    ('median regression', True, 2000)
    """

    #: The rule's learner, its mechanism, the reason and whether the safeguard runs.
    choice: RegressionChoice
    #: The learner's own plan (its ε the whole ε, or ε − ε_c with the safeguard); None for
    #: the private mean.
    plan: FitPlan | None
    #: The safeguard's parts; None where it is off.
    parts: SafeguardParts | None
    #: The learner the plan was made with, unfitted (the fit that made the plan fits it);
    #: None for the private mean.
    learner: PrivateLinearRegressor | None = None
    #: The plan's and the certificate's line on the safeguard: on, or off by "auto" (public);
    #: empty for the private mean and where the safeguard is off as asked.
    note: tuple[str, ...] = ()


class PrivateRegressor(SchemaInputMixin, LabelRangeMixin, PrivateEstimator):
    """A differentially private linear regressor that chooses its learner from public quantities.

    The front door for regression: set ε (and δ) and the labels' public range; the learner follows from (n, d,
    ε, δ) by the rule of docs/privacy/front_door_regression.md#privacy-regressor-rule: the private mean of the
    labels (Laplace, [DMNS06]_) on few records per unit of ε and per coordinate, else median regression with
    an intercept by objective perturbation ([KB78]_, [CMS11]_ Alg. 2,
    [KST12]_ Section 3). The safeguard
    (docs/privacy/front_door_regression.md#privacy-regressor-safeguard) selects the model or
    the private mean on a validation part with the exponential mechanism ([MT07]_). Labels
    and predictions are clipped to ``label_range``.

    Parameters
    ----------
    epsilon : float, default=1.0
        ε > 0 of the release.
    delta : float, default=0.0
        δ in [0, 1): 0 for pure ε-DP; δ > 0 (e.g. 1/n²) lets the learner use its Gaussian
        mechanism on enough rows.
    {label_range}
        With a private range the rule sees the ε left.
    {data_norm}
    {random_state}
    {accountant}
    safeguard : "auto" or bool, default="auto"
        "auto": on for a model on at most 100,000 rows. False fits the learner on every row
        with the whole (ε, δ).
    validation_fraction : "auto" or float in (0, 1), default="auto"
        With the safeguard, the share of rows that validate: ⌈fraction · n⌉, or for "auto"
        max(⌈0.1 n⌉, min(⌈0.2 n⌉, 2,000)).
    schema : PublicSchema, UniformSchema or None, default=None
        None: X holds rows. A schema: X is the table, encoded as for
        :class:`~dpconvex.PrivateClassifier` (``encoder_``); one declaration for every column
        (:meth:`~dpconvex.PublicSchema.every_column`) as there.

    Attributes
    ----------
    estimator_ : estimator
        The released model: the fitted learner, or a
        :class:`~dpconvex.estimators.front_door.ConstantRegressor` holding the private mean. A
        learner holds this estimator's ``accountant``, so a refit of it is charged as a fit is.
        The learner is fitted on the rows as this estimator validated them, so it records no
        ``feature_names_in_`` of a DataFrame: this estimator keeps them (``feature_names_in_``)
        and checks them in ``predict``.
    learner_ : str
        "median regression" or "constant (private mean)".
    n_features_in_ : int
    certificate_ : Certificate

    References
    ----------
    .. [CMS11] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially Private
       Empirical Risk Minimization. JMLR 12 (2011), Alg. 2.
    .. [KST12] D. Kifer, A. Smith, A. Thakurta. Private Convex Empirical Risk
       Minimization and High-dimensional Regression. COLT 2012, Section 3.
    .. [KB78] R. Koenker, G. Bassett. Regression Quantiles. Econometrica 46 (1978).
    .. [DMNS06] C. Dwork, F. McSherry, K. Nissim, A. Smith. Calibrating Noise to
       Sensitivity in Private Data Analysis. TCC 2006.
    .. [MT07] F. McSherry, K. Talwar. Mechanism Design via Differential Privacy. FOCS 2007.

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import PrivateRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-0.5, 0.5, size=(5000, 3))
    >>> y = 50 + 60 * X[:, 0] + rng.normal(scale=5, size=5000)
    >>> reg = PrivateRegressor(epsilon=1.0, label_range=(0, 100), random_state=0).fit(X, y)
    >>> reg.learner_, reg.score(X, y) > 0.5, reg.certificate_.epsilon <= 1.0
    ('median regression', True, True)
    """

    _accepts_sparse: ClassVar[bool] = True
    _parameter_constraints: ClassVar[dict[str, Constraint]] = {
        "epsilon": EPSILON, "delta": Optional(DELTA),
        "label_range": LabelRange(), "data_norm": DATA_NORM,
        "random_state": RANDOM_STATE, "accountant": ACCOUNTANT,
        "safeguard": Auto(Bool()), "validation_fraction": Auto(Float(high=1.0)),
        "schema": SCHEMA,
    }
    #: The learner's intercept column (inside the norm bound, as the regressors' default).
    fit_intercept: ClassVar[bool] = True
    intercept_scaling: ClassVar[float] = 1.0

    def __init__(self, *, epsilon: float = 1.0, delta: float = 0.0,
                 label_range: tuple[float, float] | str | PrivateBounds | None = None,
                 data_norm: float = 1.0,
                 random_state: int | None = None, accountant: Any = None,
                 safeguard: bool | str = "auto", validation_fraction: float | str = "auto",
                 schema: Any = None):
        self._store_params(locals())

    # ------------------------------------------------------------------------ plan
    def _parts(self, n: int, caller: str) -> SafeguardParts:
        """The safeguard's parts on n rows (``caller`` names a refusal of the sizes)."""
        n_fit, n_val = safeguard_sizes(n, self.validation_fraction, caller, REGRESSION_VALIDATION)
        eps_mean = mean_epsilon(n, float(self.epsilon))
        rest = remaining(float(self.epsilon), eps_mean)
        return SafeguardParts(n_fit, n_val, eps_mean, rest, selection_handicap(rest))

    def _make(self, mechanism: str, epsilon: float) -> PrivateLinearRegressor:
        """The learner at ``epsilon`` (the whole ε, or ε − ε_c inside the safeguard); the
        front door holds the budget, so the learner charges no ledger."""
        delta = float(self.delta or 0.0) if mechanism.startswith("gaussian") else 0.0
        # the safeguard releases the mean
        return PrivateLinearRegressor(
            loss="pinball", quantile=0.5, epsilon=epsilon, delta=delta, mechanism=mechanism,
            label_range=self.label_range, data_norm=self.data_norm, fit_intercept=True,
            random_state=self.random_state, label_center="range")

    def _plan(self, n: int, n_classes: int, n_features: int, method: str = "plan") -> FitPlan:
        """The rule's choice on (n, d) and the plan of its release: the private mean's, or the
        learner's own plan with this front door's budget, parts and notes; the choice and the
        learner's plan ride in ``chosen`` (:class:`ChosenLearner`), which the fit follows.
        ``method``: the public call a refusal of the safeguard's sizes names (``certify`` on
        rows)."""
        if self.schema is not None:  # the fit's plan: the encoded rows, the schema's ranges
            schema = self._table_schema(n_features, "plan")  # n_features: the table's columns
            return self._on_rows(schema).plan(n, n_classes, schema.n_features)
        choice = regression_rule(n, n_features, float(self.epsilon), float(self.delta or 0.0),
                                 self.safeguard)
        owner = type(self).__name__
        if choice.learner == PRIVATE_MEAN:
            label_range = self._label_bounds()
            return FitPlan(
                estimator=owner,
                n=n,
                n_classes=1,
                n_features=n_features,
                template="bounded mean",
                mechanism=LaplaceMean(),
                budget=Budget(float(self.epsilon)),
                learner=PRIVATE_MEAN,  # pure: δ unused
                backend="none (closed form)",
                options={"label_range": label_range},
                notes=(LabelSource("label_range", label_range=label_range), choice.reason),
                chosen=ChosenLearner(choice, None, None),
            )
        # the learner: on every row with ε, or with the safeguard on its fitting part with ε − ε_c
        parts = self._parts(n, f"{owner}.{method}") if choice.safeguard else None
        learner = self._make(choice.mechanism,
                             float(self.epsilon) if parts is None else parts.rest)
        learner_plan = learner.plan_checked(n, 1, n_features)  # the shape checked
        if parts is None:  # the learner's budget is the whole budget
            budget, budgets = learner_plan.budget, learner_plan.parts
            note = self._unguarded_note(n)
        else:  # ε_c, then ε − ε_c on disjoint parts; δ: the learner's
            budget = Budget(float(self.epsilon), learner_plan.budget.delta)
            mean_part, model_part, selection_part = _SAFEGUARD_PARTS
            budgets = {mean_part: Budget(parts.eps_mean), model_part: learner_plan.budget,
                       selection_part: Budget(parts.rest)}
            note = (_SAFEGUARD_ON.format(**parts._asdict(), level=HANDICAP_LEVEL,
                                         fraction=self.validation_fraction),)
        return dataclasses.replace(
            learner_plan, estimator=owner, learner=choice.learner, budget=budget, parts=budgets,
            notes=(*learner_plan.notes, choice.reason, *note),
            chosen=ChosenLearner(choice, learner_plan, parts, learner, note))

    def _unguarded_note(self, n: int) -> tuple[str, ...]:
        if not isinstance(self.safeguard, str):
            return ()
        return (f"PrivateRegressor: safeguard='auto' is off for n = {n} rows: the learner is "
                "fitted on every row with the whole budget "
                "(docs/privacy/front_door_regression.md#privacy-regressor-safeguard)",)

    # ------------------------------------------------------------------------- fit
    # fit is the base's (validate → plan → hold → prepare → release); a schema or a released
    # label range goes first (SchemaInputMixin, LabelRangeMixin); the hooks below.
    fits_only: ClassVar[bool] = True

    def _prepare_fit(self, X: Any, y: Any, plan: FitPlan, context: FitContext) -> Any:
        """The labels checked (numbers, one per row) where this fit reads them itself (the
        private mean, the safeguard; inside the hold); None for the learner on every row, which
        reads its own."""
        if plan.chosen.plan is not None and plan.chosen.parts is None:
            return None
        return check_numeric_labels(y, plan.n, f"{type(self).__name__}.fit")

    def _release(self, labels: np.ndarray | None, plan: FitPlan, hold: Any, context: FitContext,
                 warm_start: Any) -> PrivateRegressor:
        """The plan's choice released inside its hold, its certificate committed and the chosen
        release set as the model: the private mean with the whole ε; or the learner, fitted once
        (:meth:`_fit_part`), on every row with the whole budget, or under the safeguard
        (docs/privacy/front_door_regression.md#privacy-regressor-safeguard) on the fitting part
        with ε − ε_c, after the private mean of every row's labels with ε_c and before the
        selection (:meth:`_select`). ``labels``: as :meth:`_prepare_fit` checked them;
        ``context.noise`` this fit's generator (under the safeguard it draws the split, then
        spawns the mean's, the learner's and the selection's); ``context.data`` the rows and
        labels as this fit validated them.

        Raises
        ------
        ParameterError, DataValidationError, PrivacyError, SolverError
        """
        chosen, noise, n = plan.chosen, context.noise, plan.n
        parts = chosen.parts
        half, mid = self._unit_scale()  # u ∈ [−1, 1] <-> the labels' units
        if chosen.plan is None:  # the rule's choice: the private mean
            _, mean = self._private_mean(labels, n, float(self.epsilon), noise)
            certificate, best = mean.certificate, 1
            certificate.state(*plan.notes)  # the label range and the rule's reason
        else:
            if parts is None:  # the learner on every row, with the whole budget
                if self.label_range is None:  # its labels' warning, in the name the user called
                    self._warn_unit_range(f"{type(self).__name__}.fit")
                data = context.data
                inner = context.inner(noise, held=True, data=data, plan=chosen.plan,
                                      range_warned=True)
            else:  # the safeguard: the validation part, drawn independently of the data
                validation = np.zeros(n, dtype=bool)
                validation[noise.rng.permutation(n)[parts.n_fit:]] = True
                mean_rng, fit_rng, select_rng = noise.rng.spawn(3)
                u, mean = self._private_mean(labels, n, parts.eps_mean,
                                             NoiseSource(mean_rng, noise.seeded))
                # the validation rows' labels: the public placeholder, the centre of
                # label_range (u = 0), so no value of theirs reaches the learner (not even its
                # objective's constant); its plan, hold and release leave them out
                data = CheckedData(context.data.X, np.where(validation, mid, labels))
                # the selection guards against the learner's noise (its check not run)
                inner = context.inner(NoiseSource(fit_rng, noise.seeded), held=True,
                                      excluding=validation, checked=True, data=data,
                                      plan=chosen.plan, range_warned=True, noise_guarded=True)
            learner = self._fit_part(chosen, data, inner)
            if parts is None:  # the learner's model is the release
                certificate, best = learner.certificate_, 0
                certificate.assumptions.extend((chosen.choice.reason, *chosen.note))
            else:  # 0 the learner's model, 1 the mean
                best, certificate = self._select(learner, u, mean, validation, plan, context,
                                                 select_rng, half, mid)
        hold.commit_certificate(certificate)
        if best == 0:
            self._set_learner(learner, chosen.choice)
        else:
            self._set_mean(mean, plan, certificate, half, mid)
        self.certificate_ = certificate
        self.n_features_in_ = plan.n_features
        return self

    def _fit_part(self, chosen: ChosenLearner, data: CheckedData,
                  inner: FitContext) -> PrivateLinearRegressor:
        """The learner this fit's plan made (``chosen.learner``, with its plan ``chosen.plan``)
        fitted through its public ``fit`` in ``inner``, the context this fit made for it, its
        refusals signed in this fit's name.

        The learner's warning of a unit label range is this fit's own (issued once, by this
        estimator: ``inner.range_warned``); under the safeguard the selection guards against
        its noise, so it runs no noise check (``inner.noise_guarded``).
        """
        learner = chosen.learner  # made by this fit's plan, for this fit only
        with signed_by(learner, f"{type(self).__name__}.fit"):
            fit_part(learner, data.X, data.y, inner)  # inside this fit's hold
        return learner

    def _select(self, learner: PrivateLinearRegressor, u: np.ndarray, mean: Release,
                validation: np.ndarray, plan: FitPlan, context: FitContext,
                select_rng: np.random.Generator, half: float, mid: float
                ) -> tuple[int, Certificate]:
        """The safeguard's selection
        (docs/privacy/front_door_regression.md#privacy-regressor-safeguard), after the private
        mean with ε_c and the learner's fit with ε − ε_c on the fitting part: the exponential
        mechanism, with ε − ε_c, over (the model, the mean) on the validation part; the
        certificates composed (:meth:`_safeguard_certificate`).

        Parameters
        ----------
        learner : PrivateLinearRegressor
            The learner, fitted on the fitting part.
        u : ndarray
            The labels of every row on the unit scale.
        mean : Release
            The private mean of the unit labels.
        validation : ndarray of bool
            The validation rows (drawn independently of the data).
        plan : FitPlan
            This fit's plan: its ``chosen`` holds the rule's choice, the learner's plan and the
            safeguard's parts.
        context : FitContext
            This fit's context: ``data.X`` the rows as this fit checked them, ``noise`` its
            generator (whether it is seeded).
        select_rng : numpy.random.Generator
            The selection's generator (spawned from this fit's beside the mean's and the
            learner's).
        half, mid : float
            The map between the unit scale and the labels' units, y = mid + half·u
            (:meth:`_unit_scale`).

        Returns
        -------
        best : int
            The candidate selected: 0 the model, 1 the mean.
        certificate : Certificate
            The composed certificate (committed by the caller).
        """
        noise, chosen, X_checked = context.noise, plan.chosen, context.data.X
        parts = chosen.parts
        # the validation rows, as check_array gave them (an array, a CSR array or a Dask array,
        # each indexed by a boolean mask of rows)
        with np.errstate(all="ignore"):  # a warning would tell a validation record's size
            predicted_unit = (learner._predict_rows(X_checked[validation]) - mid) / half
        utilities = squared_error_utilities(
            [predicted_unit, np.full(parts.n_val, float(mean.theta[0]))],
            u[validation], [parts.handicap, 0.0], clip=RESIDUAL_CLIP)
        best, selection = _select_release(utilities, parts.rest, parts.n_val, select_rng,
                                         noise.seeded, SELECTION_UTILITY)
        certificate = self._safeguard_certificate(
            mean.certificate, learner.certificate_, selection, chosen, selected=best)
        return best, certificate

    def _set_learner(self, learner: PrivateLinearRegressor, choice: RegressionChoice) -> None:
        """The learner's model as the release; a refit of the learner charges the ledger."""
        self.estimator_, self.learner_ = learner, choice.learner
        carry_ledger(self, self.accountant)

    def _set_mean(self, mean: Release, plan: FitPlan, certificate: Certificate, half: float,
                  mid: float) -> None:
        """The private mean (unit scale) released as the constant prediction.

        Warns where its Laplace noise, of public scale 2/(n ε) of the range's half-width (ε the
        mean's, as its certificate states it), is large for labels spread over a 30th of the
        range, and where the safeguard's selection chose it over the rule's learner
        (:func:`warn_constant_released`).

        Parameters
        ----------
        mean : Release
            The private mean of the unit labels (its ε the whole ε, or ε_c with the safeguard).
        plan : FitPlan
            This fit's plan: the public shape, the rule's choice and the safeguard's parts.
        certificate : Certificate
            The fit's certificate, carried by the constant model.
        half, mid : float
            The map between the unit scale and the labels' units, y = mid + half·u.
        """
        n, epsilon, chosen = plan.n, mean.certificate.epsilon, plan.chosen  # ε: the mean's
        self.estimator_ = ConstantRegressor(float(mean.theta[0]) * half + mid, plan.n_features)
        self.estimator_.certificate_ = certificate
        self.learner_ = PRIVATE_MEAN
        if n * epsilon < MEAN_WARNING_RECORDS:
            scale = 2.0 / (n * epsilon) * half
            warnings.warn(
                f"{type(self).__name__}.fit: the released constant is the private mean of the "
                "labels, with Laplace "
                f"noise of scale {scale:.3g} in the labels' units (2/(n epsilon) of "
                "label_range's "
                f"half-width, n = {n}, epsilon = {epsilon:g}): it is off by more than "
                f"{3 * scale:.3g} with "
                "probability 5 %, and below the training mean's R² where the labels spread "
                "less than "
                "that. Use a narrower public label_range, a larger epsilon or more rows "
                "(docs/privacy/front_door_regression.md#privacy-private-mean).",
                PrivacyWarning,
                stacklevel=user_stacklevel(),
            )
        if chosen.parts is not None:  # the safeguard's selection chose the mean over the learner
            warn_constant_released(
                type(self).__name__,
                "the private mean of the labels",
                chosen.choice.learner,
                float(self.epsilon),
                "docs/privacy/front_door_regression.md#privacy-regressor-safeguard",
                chosen.choice.delta_helps,
            )

    def _safeguard_certificate(self, mean: Certificate, model: Certificate, selection: Certificate,
                               chosen: ChosenLearner, selected: int | None = None) -> Certificate:
        """Sequential: the mean, then the model and the selection as private tuning composes
        them (:func:`~dpconvex.privacy.composition.compose_tuning`, in parallel), on the parts
        of the rule's choice ``chosen``; a refusal of a composition is signed by the public
        call, ``fit`` or ``certify``."""
        choice, parts, delta = chosen.choice, chosen.parts, float(self.delta or 0.0)
        candidates = [choice.learner, PRIVATE_MEAN]
        quantities: dict[str, Any] = {
            "safeguard validation fraction": self.validation_fraction,
            "part sizes": [parts.n_fit, parts.n_val], "safeguard candidates": candidates,
            "epsilon of the mean": parts.eps_mean, "selection handicap": parts.handicap}
        both = compose_tuning(
            [model], selection,
            mechanism=(
                "the learner on the fitting part, the exponential mechanism over the "
                "model and the mean on the validation part "
                "(docs/privacy/front_door_regression.md#privacy-regressor-safeguard)"
            ),
            epsilon_requested=parts.rest,
            delta_requested=delta,
            candidates=f"the rule's learner ({choice.learner}) and the private mean",
            split=_DISJOINT_PARTS.format(n=parts.n_fit + parts.n_val, n_fit=parts.n_fit,
                                         n_val=parts.n_val),
            labels=_SAFEGUARD_PARTS[1:],
        )
        certificate = compose_sequential(
            [mean, both],
            mechanism=("PrivateRegressor with its safeguard: the private mean of the labels, "
                       "then the learner and the selection on disjoint parts "
                       "(docs/privacy/front_door_regression.md#privacy-regressor-safeguard)"),
            epsilon_requested=float(self.epsilon), delta_requested=delta, quantities=quantities,
            assumptions=[model.label_source, model.lam_rule, choice.reason, *chosen.note,
                         "replace-one adjacency; n is public (it fixes the part sizes)"],
            labels=[_SAFEGUARD_PARTS[0], "model and selection (disjoint parts)"])
        if selected is not None:  # the selection's output (private, the validation part's)
            certificate.released[SAFEGUARD_SELECTED] = candidates[selected]
        return certificate

    # --------------------------------------------------------------------- certify
    def _certify_routed(self, X: Any, y: Any, shape: dict[str, Any], context: FitContext) -> Any:
        """:meth:`certify`: the schema's, a private label range's, or the rule's choice's
        (:meth:`_certify_choice`; ``n_classes`` None or 1: a regression has no label set). A
        meta-estimator's part leaves its rows' source to the call that holds it."""
        if self.schema is not None or isinstance(self.label_range, RELEASED_RANGE):
            return super()._certify_routed(X, y, shape, context)
        certificate = self._certify_choice(X, y, shape["n"], shape.get("n_classes"),
                                           shape["n_features"], context)
        return certificate if context is not NO_CONTEXT else state_rows_source(certificate, X, self)

    def _certify_choice(self, X: Any, y: Any, n: int | None, n_classes: int | None,
                        n_features: int | None, context: FitContext) -> Any:
        """The certificate of the rule's choice on (X, y) or the shape given: the private mean,
        the learner's (through its public ``certify``, on the plan of the choice) or the
        safeguard's; the learner's part states the backend of the rows X (Dask) as a fit on
        them states it. ``context``: the plan of the rows' shape the fit that holds this one
        made (``context.plan``), followed as the fit follows it."""
        self._validate_params()
        owner = type(self).__name__
        plan = context.plan  # the plan of the rows' shape the fit that holds this one made
        if plan is None and X is None:
            plan = self.plan(*_given_shape(self, n, n_classes, n_features))
        elif plan is None:  # the plan of the rows' shape; a refusal in this call's name
            plan = self._plan(*self._certify_checked(X, y).shape, method="certify")
        n_rows, d, chosen = plan.n, plan.n_features, plan.chosen
        choice, parts, learner = chosen.choice, chosen.parts, chosen.learner
        seeded = self.random_state is not None
        if learner is None:  # the private mean
            certificate = mean_release(None, n_rows, float(self.epsilon),
                                       seeded=seeded).certificate
            certificate.state(*plan.notes)  # the label range and the rule's reason
            return certificate
        with signed_by(learner, f"{owner}.certify"), issued(
                NO_CONTEXT.inner(None, plan=chosen.plan)) as part:
            model = learner.certify(n=n_rows, n_classes=1, n_features=d, context=part)
        # the backend of the rows the learner would read, stated as a fit on them states it
        model.state(rows_backend(X))
        if parts is None:
            model.assumptions.extend((choice.reason, *chosen.note))
            return model
        certificate = self._safeguard_certificate(
            mean_release(None, n_rows, parts.eps_mean, seeded=seeded).certificate, model,
            dry_selection(2, parts.rest, parts.n_val, SELECTION_UTILITY, seeded), chosen)
        # as a fit's budget hold states it
        certificate.state(delta_rows_note(float(learner.delta), n_rows))
        return certificate

    # --------------------------------------------------------------------- predict
    @checks_feature_names
    def predict(self, X: Any) -> np.ndarray:
        """The released model's predictions, in the labels' units (within ``label_range``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        ndarray of shape (n_samples,)

        Examples
        --------
        >>> from dpconvex import PrivateRegressor
        >>> X = rng.uniform(-0.5, 0.5, size=(5000, 3))
        >>> targets = 50 + 60 * X[:, 0] + rng.normal(scale=5, size=5000)
        >>> model = PrivateRegressor(label_range=(0, 100), random_state=0).fit(X, targets)
        >>> bool(((model.predict(X) >= 0) & (model.predict(X) <= 100)).all())
        True
        """
        return self._learners("predict", X)


#: The certificate line of a schema without a release: what the caller declares, not checked.
_DECLARED_SCHEMA = (
    "the schema is taken as public knowledge, as the caller declares it (not checked by "
    "dpconvex: a schema released from these data, also one rewritten by to_code(), must "
    "come with its release, PublicSchema(..., release=...))"
)
