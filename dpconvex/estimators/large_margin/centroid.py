"""``mechanism="centroid"`` and ``row_norm`` of :class:`~dpconvex.PrivateLargeMarginGaussian`.

DP class centroids (:class:`~dpconvex.estimators.centroids.PrivateGaussianCentroid`,
docs/privacy.md §4.9) released in the large-margin estimator's own form: with
z = [x; 1]/√(q² + 1) (``augment_and_scale``) and μ_c the released class mean in
u = x/q units,

    Φ_c = (q² + 1)·N_cᵀ N_c,   N_c = [I/q, −μ_c]   (d × (d + 1)),

so zᵀΦ_c z = ‖x/q − μ_c‖² exactly: Φ_c is PSD and ``predict`` is the nearest-mean rule.
Φ is a function of the released means only (post-processing), so the privacy of the
fit is that of §4.9. It is the Gaussian classifier of Pathak & Raj with the identity
covariance, the λ → ∞ limit of the large-margin objective.
Derivation and measurements: docs/privacy.md §11.13.

The per-record map of ``row_norm="unit"`` (x ↦ q·x/‖x‖ after clipping to q, zero
rows stay zero; DESIGN.md §5, docs/privacy.md §12.1) is applied here for both
paths, in fit, certify and predict.

References
----------
.. [PR10] M. A. Pathak, B. Raj. Large Margin Multiclass Gaussian Classification
   with Differential Privacy. PSDM 2010.
.. [BW18] B. Balle, Y.-X. Wang. Improving the Gaussian Mechanism for Differential
   Privacy: Analytical Calibration and Optimal Denoising. ICML 2018.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from ..._random import NoiseSource, assign_noise
from ..._validation import check_float, is_dask_collection
from ...data.labels import one_label_warning
from ...data.preprocess import clip_rows
from ...data.row_scaling import normalize_rows
from ...errors import ParameterError
from ...privacy.certificate import Certificate
from ...privacy.rules.large_margin import CENTROID, positive_delta, resolved_row_norm, uses_centroid
from ..centroids import PrivateGaussianCentroid

__all__ = ["PHI_NOTE", "ROW_MAP_NOTE", "centroid_mechanism", "certify_centroid",
           "check_centroid_params", "fit_centroid", "map_rows", "phi_from_means",
           "prepared_rows", "row_notes", "uses_centroid"]

#: Certificate line of ``row_norm="unit"`` (the public per-record map).
ROW_MAP_NOTE = ("row_norm='unit': every row clipped to data_norm q, then scaled to the bound, "
                "x -> q x / ||x|| (zero rows stay zero), in training and prediction: a public "
                "map reading only the record itself (docs/privacy.md §12.1, §11.13)")

#: Certificate line of ``mechanism="centroid"``: Φ from the released class means.
PHI_NOTE = ("Phi_c = (q^2 + 1) N_c^T N_c with N_c = [I/q, -mu_c], mu_c the released class "
            "mean in x/q units, so z^T Phi_c z = ||x/q - mu_c||^2: a post-processing of the "
            "class means (Pathak & Raj's Gaussian classifier with identity covariance, the "
            "lam -> infinity limit of the large-margin objective; docs/privacy.md §11.13)")


def map_rows(est: Any, Xc: Any) -> Any:
    """The public per-record map of ``row_norm`` on rows already clipped to q."""
    if resolved_row_norm(est) != "unit":
        return Xc
    return normalize_rows(Xc, float(est.data_norm))


def row_notes(est: Any) -> list[str]:
    """The certificate line of the row map (empty for ``"none"``)."""
    return [ROW_MAP_NOTE] if resolved_row_norm(est) == "unit" else []


def _lazy_block(B: np.ndarray, q: float, unit: bool) -> np.ndarray:
    Xc = clip_rows(np.asarray(B, dtype=float), q)[0]
    return normalize_rows(Xc, q) if unit else Xc


def prepared_rows(est: Any, Xv: Any) -> Any:
    """Rows clipped to q and mapped by ``row_norm``: an ndarray, or lazily per Dask chunk."""
    q = float(est.data_norm)
    if is_dask_collection(Xv):
        return Xv.map_blocks(_lazy_block, q=q, unit=resolved_row_norm(est) == "unit",
                             dtype=float)
    return map_rows(est, clip_rows(Xv, q)[0])


def centroid_mechanism(est: Any) -> str:
    """The inner mechanism: "gaussian" with ``delta > 0``, else "norm_gamma_sum" (pure ε)."""
    return "gaussian" if positive_delta(est) else "norm_gamma_sum"


def _inner(est: Any, random_state: Any = None) -> PrivateGaussianCentroid:
    """The §4.9 estimator on the prepared rows (already mapped: row_norm "none" there).

    ``accountant=None``: the large-margin fit holds the (ε, δ) reservation and commits
    the certificate through it, so the ledger is charged once.
    """
    mech = centroid_mechanism(est)
    delta = est.delta if positive_delta(est) else None  # the Gaussian mechanism's δ
    return PrivateGaussianCentroid(epsilon=est.epsilon, delta=delta, mechanism=mech,
                                   data_norm=est.data_norm, classes=est.classes,
                                   random_state=random_state, accountant=None,
                                   row_norm="none")


def check_centroid_params(est: Any) -> None:
    """``mechanism="centroid"``: one component, no extra terms, no AMP; (ε, δ) as §4.9."""
    owner = type(est).__name__
    k = est.n_components
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or int(k) != 1:
        raise ParameterError(f"{owner}: mechanism={CENTROID!r} releases one class mean per "
                             f"class (n_components=1); got n_components={k!r}.")
    if est.extra_terms:
        raise ParameterError(f"{owner}: mechanism={CENTROID!r} has no objective, so "
                             "extra_terms cannot be used; drop them or use "
                             "mechanism='objective' with loss='pairwise'.")
    if est.optimality_tol is not None:
        raise ParameterError(f"{owner}: mechanism={CENTROID!r} solves nothing; "
                             "optimality_tol must be None.")
    if est.delta is not None:  # None or 0: pure epsilon; > 0: Gaussian (§4.9)
        check_float("delta", est.delta, owner, low_inclusive=True, high=1.0)
    _inner(est)._validate_params()


def phi_from_means(mu: np.ndarray, q: float) -> np.ndarray:
    """Φ of shape (C, 1, d + 1, d + 1) with zᵀΦ_c z = ‖x/q − μ_c‖² for z = [x; 1]/√(q² + 1)."""
    mu = np.asarray(mu, dtype=float)
    C, d = mu.shape
    s = q * q + 1.0
    Phi = np.zeros((C, 1, d + 1, d + 1))
    Phi[:, 0, :d, :d] = np.eye(d) * (s / (q * q))
    Phi[:, 0, :d, d] = -mu * (s / q)
    Phi[:, 0, d, :d] = -mu * (s / q)
    Phi[:, 0, d, d] = s * np.einsum("ij,ij->i", mu, mu)
    return Phi


def _finish(est: Any, cert: Certificate) -> Certificate:
    cert.assumptions += [*row_notes(est), PHI_NOTE]
    return cert


def certify_centroid(est: Any, rows: Any, y: Any) -> Certificate:
    """The certificate of a centroid fit on the prepared rows, without drawing noise."""
    with one_label_warning(issued=True):  # the outer fit has read the label set (and warned)
        return _finish(est, _inner(est).certify(rows, y))


def fit_centroid(est: Any, rows: Any, y: Any, hold: Any, noise: NoiseSource) -> Any:
    """Release the class means on the prepared rows and store them as ``Phi_`` (§11.13).

    ``hold`` is the large-margin fit's reservation (committed here with the centroid
    certificate); ``noise`` the fit's generator (:func:`dpconvex._random.noise_source`),
    handed to the inner fit through :func:`dpconvex._random.assign_noise`.
    Only ``Phi_``, ``classes_``, ``n_features_in_``, ``certificate_``, ``centers_`` (None)
    and ``component_assignment_`` are stored: no counts, no inner estimator.
    """
    inner = _inner(est, est.random_state)
    with assign_noise({inner: noise.rng}, seeded=noise.seeded), one_label_warning(issued=True):
        inner.fit(rows, y)  # the outer fit has read the label set (and warned)
    cert = _finish(est, inner.certificate_)
    hold.commit_certificate(cert)
    q = float(est.data_norm)
    est.certificate_ = cert
    est.classes_ = inner.classes_
    est.n_features_in_ = int(inner.n_features_in_)
    est.Phi_ = phi_from_means(inner.means_ / q, q)
    est.centers_ = None
    est.component_assignment_ = "trivial"  # as the objective path with K = 1
    return est
