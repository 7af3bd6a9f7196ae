"""Per-class k-means as a problem statement (the data and public settings DP k-means runs on)."""

from __future__ import annotations

import numpy as np

from .base import StatisticTemplate

__all__ = ["KMeansTemplate", "assign_nearest"]


class _Centers:
    """Centers in the ball of radius q (the release is projected onto it)."""

    symmetric = False

    def __init__(self, shape: tuple[int, int, int], radius: float):
        self.shape = shape
        self.dimension = int(np.prod(shape))
        self.radius = radius

    def project(self, theta: np.ndarray) -> np.ndarray:
        nrm = np.linalg.norm(theta, axis=-1, keepdims=True)
        return theta * np.minimum(1.0, self.radius / np.maximum(nrm, 1e-300))

    def postprocess(self, theta: np.ndarray) -> np.ndarray:
        return theta


class KMeansTemplate(StatisticTemplate):
    """Rows clipped to a public norm bound, class indices, and the public k-means settings.

    ``X`` (n, d) holds rows with ||x|| <= ``data_norm`` = q (the caller clips), ``y`` class
    indices in {0, ..., C − 1}; ``n_iter`` Lloyd iterations start from the public
    ``init_centers`` (C, K, d).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex.templates.kmeans import KMeansTemplate
    >>> centers = rng.normal(size=(3, 2, 3)) / 4  # np, rng, X: the doctest namespace, conftest.py
    >>> template = KMeansTemplate(X, np.arange(40) % 3, 3, 2, data_norm=1.0, n_iter=2, init_centers=centers)
    >>> template.kind, sorted(template.capabilities), template.K
    ('kmeans', ['cell_sums'], 2)
    """

    name = "per-class k-means"
    kind = "kmeans"
    derivation = "docs/privacy/large_margin.md#privacy-lm-mixture-budget"
    capabilities = frozenset({"cell_sums"})

    def __init__(self, X: np.ndarray, y: np.ndarray, n_classes: int, n_components: int, *,
                 data_norm: float, n_iter: int, init_centers: np.ndarray):
        self.X = X
        self.y = y
        self.C, self.K = int(n_classes), int(n_components)
        self.n, self.d = X.shape
        self.data_norm = float(data_norm)
        self.n_iter = int(n_iter)
        self.init_centers = init_centers
        self.space = _Centers((self.C, self.K, self.d), self.data_norm)

    @property
    def noise_shape(self) -> tuple[int, ...]:
        return (self.C * self.K, self.d)


def assign_nearest(X: np.ndarray, y: np.ndarray, centers: np.ndarray) -> np.ndarray:
    """m_i = argmin_m ||x_i − centers[y_i, m]|| (reads only record i and the centers).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex.templates.kmeans import assign_nearest
    >>> centers = np.array([[[0.0, 0.0], [1.0, 1.0]]])   # class 0, two components
    >>> assign_nearest(np.array([[0.1, 0.0], [0.9, 1.2]]), np.array([0, 0]), centers)
    array([0, 1])
    """
    diff = X[:, None, :] - centers[y]  # (n, K, d); K and d are small
    return np.argmin(np.einsum("ikd,ikd->ik", diff, diff), axis=1).astype(np.int64)
