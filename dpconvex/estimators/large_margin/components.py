"""Per-class mixture-component assignment for the large-margin Gaussian mixture classifier.

Pathak & Raj ([PR12]_) take the component m_i of each record from a Gaussian mixture fitted
on the private data, which their proof does not cover. The three rules here, derived in
docs/privacy/large_margin.md#privacy-lm-mixture-budget:

``"nearest_public_center"`` (private, no budget)
    m_i = argmin_m ||x_i − μ_{y_i, m}|| for public centers (``centers``, or
    :func:`public_centers`): a per-record map.
``"dp_kmeans"`` (private, a share of the budget)
    Noisy Lloyd iterations per class ([BDMN]_) started from the public centers, then the
    nearest released center; composed sequentially with the objective (:func:`dp_kmeans`).
``"gmm_nonprivate"`` (NOT private)
    scikit-learn's :class:`~sklearn.mixture.GaussianMixture` per class, as in the paper; explicit only, with a
    :class:`~dpconvex.errors.PrivacyWarning` and a non-private certificate.

References
----------
.. [PR12] M. A. Pathak, B. Raj. Large Margin Gaussian Mixture Models with
   Differential Privacy. IEEE TDSC 9(4), 2012 (component assignment Section 4).
.. [BDMN] A. Blum, C. Dwork, F. McSherry, K. Nissim. Practical Privacy: the SuLQ
   Framework. PODS 2005 (noisy Lloyd iterations).
.. [SCLJ] D. Su, J. Cao, N. Li, E. Bertino, H. Jin. Differentially Private
   k-Means Clustering. CODASPY 2016 (budget split between counts and sums).
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from dataclasses import dataclass, field

import numpy as np

from ..._validation import RandomStateLike, check_float, check_int, check_random_state
from ...errors import DataValidationError, ParameterError, PrivacyWarning, user_stacklevel
from ...privacy.budget import Budget
from ...privacy.certificate import Certificate
from ...privacy.mechanisms.kmeans import lloyd
from ...privacy.release import release
from ...templates.statistics import KMeansTemplate, assign_nearest

__all__ = [
    "ASSIGNMENTS",
    "ComponentAssignment",
    "PUBLIC_CENTER_SEED",
    "assign_components",
    "dp_kmeans",
    "planned_assignment",
    "public_centers",
]

#: Component-assignment rules known to :func:`assign_components`.
ASSIGNMENTS = ("nearest_public_center", "dp_kmeans", "gmm_nonprivate")

#: The fixed public seed of :func:`public_centers` (no secret, no information about the data: anyone
#: can regenerate the centers), drawn under a spawn key no learner's int seed or its children reach.
PUBLIC_CENTER_SEED = 20120401

@dataclass
class ComponentAssignment:
    """Result of a component assignment: the components m_i (n,), the method, whether it is
    private (False for "gmm_nonprivate" and the noiseless k-means of the non-private
    baseline), the ε it spent (0 for public centers and K = 1), the centers used (public or
    DP-released), the k-means step's certificate, and its certificate line
    (``description``)."""

    components: np.ndarray
    method: str
    private: bool
    epsilon: float
    centers: np.ndarray | None = None
    certificate: Certificate | None = None
    description: str = ""
    notes: list[str] = field(default_factory=list)


def public_centers(n_classes: int, n_components: int, n_features: int, radius: float,
                   seed: int = PUBLIC_CENTER_SEED) -> np.ndarray:
    """Data-independent centers of shape (C, K, d): uniform in the ball of radius ``radius``
    (the public row-norm bound q), from the public ``seed`` only."""
    center_rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0x43454E54,)))
    directions = center_rng.standard_normal((n_classes, n_components, n_features))
    directions /= np.linalg.norm(directions, axis=-1, keepdims=True)
    radii = radius * center_rng.random((n_classes, n_components, 1)) ** (1.0 / n_features)
    return directions * radii


def dp_kmeans(X: np.ndarray, y: np.ndarray, n_classes: int, n_components: int, *,
              epsilon: float | None, data_norm: float, n_iter: int = 3,
              init_centers: np.ndarray | None = None, random_state: RandomStateLike = None,
              seeded: bool | None = None) -> tuple[np.ndarray, Certificate]:
    """Per-class differentially private k-means (noisy Lloyd iterations).

    Each of the ``n_iter`` iterations assigns every record to the nearest current center of
    its class, then releases a noisy count (Laplace) and a noisy sum (norm-Gamma) per
    (class, component) cell; ε_km-DP by sequential composition
    (docs/privacy/large_margin.md#privacy-lm-mixture-budget).

    X (n, d) holds rows with ||x|| <= q = ``data_norm`` (the caller clips), y class indices (-1: a record left
    out, in no count or sum: :class:`~dpconvex.templates.statistics.KMeansTemplate`); ``epsilon`` None
    runs noiseless Lloyd (the non-private baseline only); ``init_centers``: public starting centers (default
    :func:`public_centers`); ``seeded``: whether the caller seeded the noise (None: ``random_state is not
    None``). Returns the released centers (C, K, d) and the certificate.
    """
    q = check_float("data_norm", data_norm, "dp_kmeans")
    n_iter = check_int("n_iter", n_iter, "dp_kmeans")
    C, K = int(n_classes), int(n_components)
    d = X.shape[1]
    noise_rng = check_random_state(random_state, "dp_kmeans")
    centers = (public_centers(C, K, d, q) if init_centers is None
               else np.array(init_centers, dtype=float, copy=True))
    template = KMeansTemplate(X, y, C, K, data_norm=q, n_iter=n_iter, init_centers=centers)
    if epsilon is None:
        return lloyd(template), _noiseless_kmeans(n_iter)
    epsilon = check_float("epsilon", epsilon, "dp_kmeans")
    seeded = random_state is not None if seeded is None else bool(seeded)
    released = release(template, "dp_kmeans", Budget(epsilon), None, noise_rng, seeded=seeded)
    return released.theta, released.certificate


def planned_assignment(method: str | None, n_classes: int, n_components: int, n_features: int, *,
                       n: int, data_norm: float, epsilon: float | None = None,
                       centers: np.ndarray | None = None, n_iter: int = 3) -> ComponentAssignment:
    """The assignment a fit on n records makes by ``method``, from public facts only (no rows,
    no noise).

    Its method, privacy, ε, description and, for "dp_kmeans", the k-means step's
    certificate (a dry run on the template of its public problem,
    :meth:`~dpconvex.templates.statistics.KMeansTemplate.of_problem`); the components are
    empty and the centers the public ones (None where the fit releases or fits them).
    Arguments as :func:`assign_components`.

    Examples
    --------
    >>> from dpconvex.estimators.large_margin.components import planned_assignment
    >>> planned = planned_assignment("dp_kmeans", 3, 2, 4, n=10**12, data_norm=1.0, epsilon=0.2)
    >>> planned.private, planned.epsilon, planned.certificate.epsilon
    (True, 0.2, 0.2)
    >>> planned_assignment("gmm_nonprivate", 3, 2, 4, n=500, data_norm=1.0).private
    False
    """
    method = "nearest_public_center" if method is None else method
    C, K, d = int(n_classes), int(n_components), int(n_features)
    empty = np.zeros(0, dtype=np.int64)
    if K == 1:
        return ComponentAssignment(empty, "trivial", True, 0.0,
                                   description="trivial (one component per class)")
    if method == "nearest_public_center":
        center_source = "user-given public centers" if centers is not None else (
            f"public centers uniform in the ball of radius q (seed {PUBLIC_CENTER_SEED})")
        return ComponentAssignment(
            empty, method, True, 0.0,
            centers=centers if centers is not None else public_centers(C, K, d, data_norm),
            description=f"nearest public center per class ({center_source}); reads only the "
                        "record and public data, no budget spent")
    if method == "dp_kmeans":
        if epsilon is None:
            certificate = _noiseless_kmeans(n_iter)
        else:
            # the k-means step's public problem: its fit starts from the public centers
            template = KMeansTemplate.of_problem(
                n, d, C, K, data_norm=data_norm, n_iter=n_iter,
                init_centers=centers if centers is not None else public_centers(C, K, d, data_norm))
            certificate = release(template, "dp_kmeans", Budget(epsilon), dry_run=True).certificate
        return _kmeans_assignment(empty, None, certificate, epsilon is not None, n_iter)
    return ComponentAssignment(
        empty, method, False, 0.0,
        description="NON-PRIVATE: sklearn GaussianMixture fitted per class on the private data; "
                    "privacy is NOT end-to-end",
        notes=["the component assignment reads the whole private data set"])


def _noiseless_kmeans(n_iter: int) -> Certificate:
    return Certificate(
        mechanism=f"k-means (Lloyd, {n_iter} iterations, no noise)",
        epsilon_requested=math.inf, epsilon=math.inf, private=False,
        assumptions=["noiseless k-means for the non-private baseline: NOT private"])


def _kmeans_assignment(components: np.ndarray, centers: np.ndarray | None,
                       certificate: Certificate, private: bool, n_iter: int
                       ) -> ComponentAssignment:
    spent_epsilon = certificate.epsilon if private else 0.0
    return ComponentAssignment(
        components, "dp_kmeans", private, spent_epsilon, centers=centers,
        certificate=certificate,
        description=(f"nearest center of a per-class DP k-means ({n_iter} noisy Lloyd "
                     f"iterations, epsilon = {spent_epsilon:.6g}), composed sequentially"
                     if private else
                     f"nearest center of a per-class k-means without noise ({n_iter} "
                     "Lloyd iterations, no budget: the non-private baseline); NOT private"))


def assign_components(method: str | None, X: np.ndarray, y: np.ndarray, n_classes: int,
                      n_components: int, *, data_norm: float, epsilon: float | None = None,
                      centers: np.ndarray | None = None, n_iter: int = 3,
                      random_state: RandomStateLike = None, seeded: bool | None = None
                      ) -> ComponentAssignment:
    """Assign each record (rows X clipped to ``data_norm``, class indices y; -1: a record left out, whose
    component is arbitrary and which no fitted center reads) a component of its class by ``method``
    (None: "nearest_public_center"; trivial for K = 1).

    ``epsilon``: the budget of "dp_kmeans" (None: noiseless, the non-private baseline);
    ``centers``: public centers (user-given, fixed before seeing the data); ``n_iter``,
    ``random_state`` and ``seeded`` as :func:`dp_kmeans`. The result is
    :func:`planned_assignment`'s with the components (and the centers) of the rows.
    """
    if method is None:
        method = "nearest_public_center"
    if method not in ASSIGNMENTS:
        raise ParameterError(
            "The 'method' argument of assign_components (an estimator's 'component_assignment') "
            "must be "
            f"one of {[None, *ASSIGNMENTS]!r}. Got {method!r} instead."
        )
    n, d = X.shape
    C, K = int(n_classes), int(n_components)
    if centers is not None:
        given = type(centers).__name__
        try:
            centers = np.asarray(centers, dtype=float)
        except (TypeError, ValueError, OverflowError):  # refused after the handler: its text
            centers = None  # can quote an entry
        if centers is None:
            raise ParameterError(
                f"The 'centers' argument of assign_components must be a finite array of floats "
                f"of shape (n_classes, n_components, n_features) = {(C, K, d)}. Got "
                f"{given} values that are not floats."
            )
        if centers.shape != (C, K, d) or not np.all(np.isfinite(centers)):
            raise ParameterError(
                "The 'centers' argument of assign_components must be a finite array of shape "
                f"(n_classes, n_components, n_features) = {(C, K, d)}. Got shape {centers.shape} "
                "instead."
            )
    if K == 1:
        return dataclasses.replace(
            planned_assignment(method, C, K, d, n=n, data_norm=data_norm),
            components=np.zeros(n, dtype=np.int64))
    if method == "nearest_public_center":
        planned = planned_assignment(method, C, K, d, n=n, data_norm=data_norm, centers=centers)
        return dataclasses.replace(planned, components=assign_nearest(X, y, planned.centers))
    if method == "dp_kmeans":
        component_centers, certificate = dp_kmeans(
            X, y, C, K, epsilon=epsilon, data_norm=data_norm, n_iter=n_iter,
            init_centers=centers, random_state=random_state, seeded=seeded)
        return _kmeans_assignment(assign_nearest(X, y, component_centers), component_centers,
                                  certificate, epsilon is not None, n_iter)
    # gmm_nonprivate
    from sklearn.mixture import GaussianMixture

    warnings.warn(
        "component_assignment='gmm_nonprivate' fits a Gaussian mixture on the private data "
        "(as Pathak & Raj 2012 do); the component assignment is NOT covered by the privacy "
        "guarantee, so the released model is not differentially private end to end. Use "
        "'nearest_public_center' or 'dp_kmeans' for a private model.",
        PrivacyWarning, stacklevel=user_stacklevel(),
    )
    seed = int(check_random_state(random_state, "assign_components").integers(2**31 - 1))
    components = np.zeros(n, dtype=np.int64)
    component_centers = np.zeros((C, K, d))
    for class_index in range(C):
        rows = np.flatnonzero(y == class_index)
        if rows.size < K:  # a non-private mode: its refusal may read the data
            raise DataValidationError(
                f"assign_components: component_assignment='gmm_nonprivate' fits {K} components "
                f"to each class's records, and class index {class_index} has fewer. Use fewer "
                "n_components, or 'nearest_public_center' (private, any class size).")
        mixture = GaussianMixture(n_components=K, random_state=seed, reg_covar=1e-4).fit(X[rows])
        components[rows] = mixture.predict(X[rows])
        component_centers[class_index] = mixture.means_
    return dataclasses.replace(planned_assignment(method, C, K, d, n=n, data_norm=data_norm),
                               components=components, centers=component_centers)
