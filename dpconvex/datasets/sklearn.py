"""Datasets bundled with scikit-learn, encoded by public ranges so that every row has norm <= 1."""

from __future__ import annotations

import numpy as np

from ..data.encoder import PublicEncoder
from ..data.labels import LabelArray
from ..errors import ParameterError
from .schemas import SKLEARN_CLASSES, SKLEARN_SCHEMAS

__all__ = ["load_sklearn"]


def load_sklearn(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Load a dataset bundled with scikit-learn, scaled so that every row has norm <= 1.

    The columns are encoded by :class:`dpconvex.PublicEncoder` (columns read by
    position) with the public schemas of
    :data:`~dpconvex.datasets.schemas.SKLEARN_SCHEMAS`.

    Parameters
    ----------
    name : {"breast_cancer", "wine", "digits"}
        ``breast_cancer`` and ``wine``: each column is clipped to the (min, max)
        published in the dataset's description
        (:data:`SKLEARN_BREAST_CANCER_RANGES`, :data:`SKLEARN_WINE_RANGES`),
        mapped linearly to ``[-1/2, 1/2]``, and rows are divided by
        ``sqrt(d)/2``. ``digits``: pixels are in ``[0, 16]`` by the format,
        mapped to ``[0, 1]``, and rows divided by ``sqrt(64) = 8``.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), dtype float64
        Encoded features; every row has norm <= 1. Breast cancer: (569, 30);
        wine: (178, 13); digits: (1797, 64).
    y : LabelArray of shape (n_samples,)
        The labels as scikit-learn gives them: a NumPy array carrying the
        documented label set :data:`SKLEARN_CLASSES` ``[name]`` (``y.classes``;
        :mod:`dpconvex.data.labels`), so a fit needs no ``classes=``.

    Raises
    ------
    ParameterError
        If ``name`` is not one of the three datasets.

    .. warning:: The published ranges of breast_cancer and wine were computed by
       the data's publishers from the same records, so that preprocessing is not
       covered by a privacy guarantee; it stands in for ranges a data owner knows
       before seeing the data (as the digits format range is). Never take ranges
       from your own private data.

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex.datasets import load_sklearn
    >>> X, y = load_sklearn("wine")
    >>> X.shape, y.classes.tolist()
    ((178, 13), [0, 1, 2])
    >>> bool(np.linalg.norm(X, axis=1).max() <= 1.0)
    True
    """
    from sklearn.datasets import load_breast_cancer, load_digits, load_wine

    loaders = {
        "breast_cancer": load_breast_cancer,
        "wine": load_wine,
        "digits": load_digits,
    }
    if not isinstance(name, str) or name not in loaders:
        raise ParameterError(
            f"The 'name' parameter of load_sklearn must be one of ('breast_cancer', 'wine', "
            f"'digits'). Got {name!r} instead."
        )
    X, y = loaders[name](return_X_y=True)
    return PublicEncoder(SKLEARN_SCHEMAS[name]).fit_transform(X), LabelArray(y, SKLEARN_CLASSES[name])
