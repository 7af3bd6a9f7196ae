"""Datasets bundled with scikit-learn, encoded by public ranges so that every row has norm <= 1."""

from __future__ import annotations

import numpy as np

from .._validation import check_option
from ..data.encoder import PublicEncoder
from ..data.validation import LabelArray
from .schemas import SKLEARN_CLASSES, SKLEARN_LABEL_RANGES, SKLEARN_SCHEMAS

__all__ = ["load_sklearn"]


def load_sklearn(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Load a dataset bundled with scikit-learn, scaled so that every row has norm <= 1.

    The columns are encoded by :class:`dpconvex.PublicEncoder` (read by position) with the
    public schemas of :data:`~dpconvex.datasets.schemas.SKLEARN_SCHEMAS`: breast cancer, wine
    and diabetes centered on their published ranges (:data:`SKLEARN_BREAST_CANCER_RANGES`,
    :data:`SKLEARN_WINE_RANGES`, :data:`SKLEARN_DIABETES_RANGE`), digits on the format's
    pixel range.

    Parameters
    ----------
    name : {"breast_cancer", "wine", "digits", "diabetes"}
        The dataset (diabetes: regression).

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), dtype float64
        Encoded features; every row has norm <= 1. Breast cancer: (569, 30);
        wine: (178, 13); digits: (1797, 64); diabetes: (442, 10).
    y : LabelArray or ndarray of shape (n_samples,)
        The labels as scikit-learn gives them, carrying the label set
        :data:`SKLEARN_CLASSES` ``[name]`` (a fit needs no ``classes=``). Diabetes: the
        float targets (public range :data:`SKLEARN_LABEL_RANGES` ``["diabetes"]``).

    Raises
    ------
    ParameterError
        If ``name`` is not one of the four datasets.

    .. warning:: The published ranges of breast_cancer, wine and the diabetes
       features were computed by the data's publishers from the same records (and the diabetes features are
       scikit-learn's standardization of those records), so that preprocessing is not covered by a privacy
       guarantee; it stands in for ranges a data owner knows before seeing the data (as the digits format
       range is). Never take ranges from your own private data.

    Examples
    --------
    >>> from dpconvex.datasets import load_sklearn
    >>> X, y = load_sklearn("wine")
    >>> X.shape, y.classes.tolist()
    ((178, 13), [0, 1, 2])
    >>> bool(np.linalg.norm(X, axis=1).max() <= 1.0)
    True
    >>> from dpconvex.datasets import SKLEARN_LABEL_RANGES
    >>> Xd, yd = load_sklearn("diabetes")
    >>> Xd.shape, SKLEARN_LABEL_RANGES["diabetes"]
    ((442, 10), (0.0, 400.0))
    """
    from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits, load_wine

    loaders = {
        "breast_cancer": load_breast_cancer,
        "wine": load_wine,
        "digits": load_digits,
        "diabetes": load_diabetes,
    }
    check_option("name", name, loaders, "load_sklearn")
    X, y = loaders[name](return_X_y=True)
    encoded = PublicEncoder(SKLEARN_SCHEMAS[name]).fit_transform(X)
    if name in SKLEARN_LABEL_RANGES:  # a regression target: no label set
        return encoded, np.asarray(y, dtype=np.float64)
    return encoded, LabelArray(y, SKLEARN_CLASSES[name])
