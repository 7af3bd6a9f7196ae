"""What both front doors share: the safeguard, and the input of a table through a public schema.

The safeguard (docs/privacy/front_door.md#privacy-classifier-safeguard) splits the rows by a
permutation drawn independently of the data into a fitting part and a validation part whose
sizes depend on n only, fits the learner with the validation rows left out
(:class:`~dpconvex.estimators.base.FitContext` ``excluded``), and selects the model or a
constant with the exponential mechanism ([MT07]_) on the validation part: private tuning
([CMS11]_ Alg. 4) with one trained candidate, (ε, δ)-DP by parallel composition.

With ``schema=`` a :class:`~dpconvex.PublicSchema`, both front doors take the table itself
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

import warnings
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._validation import Constraint, check_fitted, checks_feature_names, is_dask_collection
from ..data.validation import check_array
from ..errors import ParameterError, PrivacyWarning, user_stacklevel
from ..privacy.budget import Budget
from ..privacy.certificate import Certificate
from ..privacy.release import release
from ..templates.statistics import SelectionTemplate
from .base import FitContext
from .parts import check_rows, predicted

__all__ = ["ConstantClassifier", "ConstantRegressor", "SchemaInputMixin", "SchemaOrNone",
           "constant_name", "safeguard_mistakes",
           "select_release", "squared_error_utilities", "take_rows",
           "warn_constant_released"]


class _Constant:
    """A released constant of a front door: it checks the rows' width only."""

    n_features_in_: int

    def _rows(self, X: Any) -> int:
        rows = check_array(X, f"{type(self).__name__}.predict", accept_sparse=True, accept_dask=True,
                           n_features=self.n_features_in_)
        return int(rows.shape[0])


class ConstantClassifier(_Constant):
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
    >>> import numpy as np
    >>> from dpconvex.estimators.safeguard import ConstantClassifier
    >>> model = ConstantClassifier(1, [0, 1], 3)
    >>> model.predict(np.zeros((2, 3))).tolist(), model.predict_proba(np.zeros((1, 3))).tolist()
    ([1, 1], [[0.0, 1.0]])
    """

    def __init__(self, constant: Any, classes: Any, n_features: int):
        self.classes_ = np.asarray(list(classes))
        self.constant_ = constant
        self.n_features_in_ = int(n_features)

    def __repr__(self) -> str:
        return f"ConstantClassifier(constant={_plain(self.constant_)!r})"

    def _index(self) -> int:
        return int(np.flatnonzero(self.classes_ == self.constant_)[0])

    @checks_feature_names
    def predict(self, X: Any) -> np.ndarray:
        """The constant class for every row."""
        return np.full(self._rows(X), self.constant_, dtype=self.classes_.dtype)

    @checks_feature_names
    def predict_proba(self, X: Any) -> np.ndarray:
        """Probability 1 on the constant class (columns in the order of ``classes_``)."""
        proba = np.zeros((self._rows(X), self.classes_.size))
        proba[:, self._index()] = 1.0
        return proba

    @checks_feature_names
    def decision_function(self, X: Any) -> np.ndarray:
        """For two classes ±1 (+1: the second class of ``classes_``); else one-hot rows."""
        if self.classes_.size == 2:
            return np.full(self._rows(X), 1.0 if self._index() == 1 else -1.0)
        return self.predict_proba(X)

    def score(self, X: Any, y: Any) -> float:
        """Mean accuracy on (X, y)."""
        return float(np.mean(self.predict(X) == np.asarray(y)))


class ConstantRegressor(_Constant):
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
    >>> import numpy as np
    >>> from dpconvex.estimators.safeguard import ConstantRegressor
    >>> model = ConstantRegressor(2.5, 3)
    >>> model.predict(np.zeros((2, 3))).tolist(), model.score(np.zeros((2, 3)), [2.0, 3.0])
    ([2.5, 2.5], 0.0)
    """

    def __init__(self, constant: float, n_features: int):
        self.constant_ = float(constant)
        self.n_features_in_ = int(n_features)

    def __repr__(self) -> str:
        return f"ConstantRegressor(constant={self.constant_!r})"

    @checks_feature_names
    def predict(self, X: Any) -> np.ndarray:
        """The constant for every row."""
        return np.full(self._rows(X), self.constant_)

    def score(self, X: Any, y: Any) -> float:
        """R² of the constant on (X, y)."""
        from sklearn.metrics import r2_score

        return float(r2_score(np.asarray(y, dtype=float), self.predict(X)))


def squared_error_utilities(unit_predictions: list[np.ndarray], u: np.ndarray,
                            handicaps: list[float], clip: float = 2.0) -> np.ndarray:
    """u_k = −Σᵢ min(1, ((ûₖᵢ − uᵢ)/κ)²) − m_k on the validation rows (unit label scale).

    Each term lies in [0, 1] (the residual clipped at the public κ = ``clip``; with κ = 2
    no residual of predictions and labels in [−1, 1] is clipped), so replacing one validation
    record moves each u_k by at most 1
    (docs/privacy/front_door_regression.md#privacy-regressor-safeguard). ``handicaps`` m_k
    are public constants.

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex.estimators.safeguard import squared_error_utilities
    >>> squared_error_utilities([np.array([1.0, 1.0]), np.zeros(2)], np.array([1.0, -1.0]),
    ...                         [0.5, 0.0]).tolist()
    [-1.5, -0.5]
    >>> squared_error_utilities([np.array([0.25, 1.0])], np.zeros(2), [0.0], clip=0.5).tolist()
    [-1.25]
    """
    p = np.clip(np.asarray(unit_predictions, dtype=float), -1.0, 1.0)  # (candidates, rows)
    residual = (p - np.asarray(u, dtype=float)) / clip
    return -np.sum(np.minimum(1.0, residual**2), axis=1) - np.asarray(handicaps, dtype=float)


def _plain(label: Any) -> Any:
    return label.item() if isinstance(label, np.generic) else label


def constant_name(label: Any) -> str:
    """The candidate's name in the certificate: ``"constant <label>"``."""
    return f"constant {_plain(label)!r}"


def take_rows(X: Any, rows: np.ndarray, n: int, owner: str, estimator: Any) -> Any:
    """Rows ``rows`` of X (the safeguard's validation part), read after the learner's fit
    validated X: a frame's rows by position, an array's or sparse matrix's by index, a Dask
    collection's lazily (its chunks stay on the workers).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex.estimators.safeguard import take_rows
    >>> take_rows(np.arange(8).reshape(4, 2), np.array([1, 3]), 4, "Demo", None).tolist()
    [[2, 3], [6, 7]]
    """
    if is_dask_collection(X):
        return check_rows(X, np.zeros(n), f"{owner}.fit", estimator)[0][rows]
    if hasattr(X, "iloc"):
        return X.iloc[rows]
    return X[rows] if sp.issparse(X) or isinstance(X, np.ndarray) else np.asarray(X)[rows]


def warn_constant_released(owner: str, constant: str, learner: str, epsilon: float,
                           anchor: str) -> None:
    """The :class:`~dpconvex.errors.PrivacyWarning` of a safeguard that released ``constant``
    (what the selection chose, a part of the release) instead of the ``learner`` model."""
    warnings.warn(
        f"{owner}.fit: the safeguard released {constant} instead of the {learner} model: the "
        f"private selection on the validation rows favoured it (a part of the release, {anchor}). "
        f"The signal in these rows does not outweigh the noise at epsilon = {epsilon:g}: use a "
        "larger epsilon, delta > 0, more rows or fewer features, or compare with "
        "safeguard=False on held-out rows.", PrivacyWarning, stacklevel=user_stacklevel())


def safeguard_mistakes(model: Any, X: Any, y: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """Mistakes z_0 of ``model`` and z_c of each constant class on the validation rows.

    A record of the validation part changes each count by at most 1 (the utility's
    sensitivity under replace-one,
    docs/privacy/front_door.md#privacy-classifier-safeguard). A label outside
    ``classes`` (``unknown_labels="ignore"``) is a mistake of every candidate.
    """
    y = np.asarray(y)
    z_model = int(np.sum(predicted(model, X) != y))
    z_const = [int(np.sum(y != constant)) for constant in classes]
    return np.array([z_model, *z_const], dtype=float)


def select_release(mistakes: np.ndarray, epsilon: float, n_val: int, rng: np.random.Generator,
                   seeded: bool, *, utilities: np.ndarray | None = None,
                   description: str | None = None) -> tuple[int, Certificate]:
    """The exponential mechanism on u = −mistakes (or the given ``utilities`` of sensitivity
    1, with their ``description``), ε-DP in the validation part
    (privacy-classifier-safeguard, privacy-regressor-safeguard)."""
    u = -np.asarray(mistakes, dtype=float) if utilities is None else np.asarray(utilities)
    selection = release(SelectionTemplate(u, 1.0, n_val, description), "exponential",
                        Budget(float(epsilon)), None, rng, seeded=seeded)
    return int(selection.theta[0]), selection.certificate


def dry_selection(n_candidates: int, epsilon: float, n_val: int,
                  description: str | None = None) -> Certificate:
    """The selection's certificate without data (``certify``)."""
    return release(SelectionTemplate(np.zeros(n_candidates), 1.0, n_val, description),
                   "exponential",
                   Budget(float(epsilon)), dry_run=True).certificate


class SchemaOrNone(Constraint):
    """None or a :class:`~dpconvex.PublicSchema` (checked without importing the schema module)."""

    def check(self, name: str, value: Any, owner: str) -> Any:
        if value is None:
            return value
        from ..data.schema import PublicSchema

        if not isinstance(value, PublicSchema):
            raise ParameterError(f"The '{name}' parameter of {owner} must be {self}. Got "
                                 f"{type(value).__name__} instead.")
        return value

    def __str__(self) -> str:
        return ("None (X holds encoded rows) or a PublicSchema (X is a table encoded by it; "
                "e.g. draft_schema(df, epsilon=...))")


class SchemaInputMixin:
    """``schema=``: encode the table, fit the front door on the rows, compose the certificates.

    The host has ``schema``, ``data_norm``, ``epsilon`` and ``accountant`` parameters.
    """

    def _schema_row_params(self) -> dict[str, Any]:
        """Parameters the front door takes from the schema for its encoded rows (public: the
        schema's constants only); none by default."""
        return {}

    def _encoded(self, X: Any) -> Any:
        """The rows of X: encoded by the fitted encoder when a schema is given."""
        if self.schema is None:
            return X
        check_fitted(self, "encoder_")
        return self.encoder_.transform(X)

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Accuracy (a classifier) or R² (a regressor) of the predictions on the table X."""
        if self.schema is None or self.__sklearn_tags__().estimator_type != "classifier":
            return super().score(X, y, sample_weight=sample_weight)
        from sklearn.metrics import accuracy_score

        from .._validation import check_sample_weight

        labels = self.predict(X)
        weights = None if sample_weight is None else check_sample_weight(
            sample_weight, labels.size, f"{type(self).__name__}.score")
        return float(accuracy_score(np.asarray(y), labels, sample_weight=weights))

    def _fit_on_schema(self, X: Any, y: Any, context: FitContext) -> Any:
        """Encode X by the schema, fit this front door on the rows, state the schema's part.

        The front door on the rows draws from this fit's generator (``context.noise``, else
        ``random_state``)."""
        from ..data.encoder import PublicEncoder

        self._validate_params()
        encoder = PublicEncoder(self.schema, data_norm=float(self.data_norm))
        rows = encoder.fit_transform(X)
        inner = self._fit_as(self._on_rows(), rows, y, context)
        self.encoder_ = encoder
        self.n_features_in_ = encoder.n_features_in_
        if getattr(encoder, "feature_names_in_", None) is not None:
            self.feature_names_in_ = encoder.feature_names_in_
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        self.certificate_ = self._with_schema_part(inner.certificate_)
        return self

    def _with_schema_part(self, model: Any) -> Any:
        """The model's certificate, after the schema's release when it was released."""
        release = self.schema.release
        note = ("rows encoded record by record by the public schema (PublicEncoder: clipped "
                "to its ranges, one-hot over its vocabularies, within data_norm)")
        if release is None:
            model.assumptions.append(note + "; the schema is public knowledge")
            return model
        from ..privacy.certificate import compose_sequential

        return compose_sequential(
            [release, model],
            mechanism=f"{type(self).__name__} on a table: the schema released by draft_schema, "
                      "then the model on the rows it encodes "
            "(docs/privacy/bounds.md#privacy-bounds-composition)",
            epsilon_requested=release.epsilon + model.epsilon_requested,
            delta_requested=release.delta + model.delta,
            quantities={"schema epsilon": release.epsilon, "model epsilon": model.epsilon},
            assumptions=[note, "the schema's release was charged to the ledger given to "
                         "draft_schema; the model's epsilon (what is left) to this fit's"],
            labels=["schema", "model"])

    def _on_rows(self) -> Any:
        """This front door on the encoded rows: no schema, the schema's row parameters."""
        from sklearn.base import clone

        return clone(self).set_params(schema=None, **self._schema_row_params())

    def _certify_on_schema(self, X: Any, y: Any, **shape: Any) -> Any:
        from ..data.encoder import PublicEncoder

        inner = self._on_rows()
        if X is not None:
            X = PublicEncoder(self.schema, data_norm=float(self.data_norm)).fit_transform(X)
        elif shape.get("n_features") is not None:
            shape["n_features"] = len(self.schema.feature_names)
        return self._with_schema_part(inner.certify(X, y, **shape))
