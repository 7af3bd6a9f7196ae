"""A front door fitted on a table through a public schema, the schema's release in its certificate.

With ``schema=`` a :class:`~dpconvex.PublicSchema` (hand-written, or released by
:func:`~dpconvex.draft_schema` with a budget), :class:`~dpconvex.PrivateClassifier` and
:class:`~dpconvex.PrivateRegressor` take the table itself: every record is encoded by
:class:`~dpconvex.PublicEncoder` (per-record public maps, rows within ``data_norm``), the
front door's rule sees the encoded width and its own ε (what is left after the schema), and
a released schema's certificate is composed with the model's
(docs/privacy/bounds.md#privacy-bounds-composition).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import Constraint, check_fitted
from ..errors import ParameterError
from .base import FitContext

__all__ = ["SchemaInputMixin", "SchemaOrNone"]


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

        predicted = self.predict(X)
        weights = None if sample_weight is None else check_sample_weight(
            sample_weight, predicted.size, f"{type(self).__name__}.score")
        return float(accuracy_score(np.asarray(y), predicted, sample_weight=weights))

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
