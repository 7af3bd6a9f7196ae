"""Release-oracle cases of issues 13-14 (the second oracle, tests/data/release_oracle_issue13.npz).

The (ε, δ) mechanisms of the linear learners, the softmax large-margin template and
the DP class centroids, every option pinned; recorded and checked like
:mod:`release_oracle_cases` (split from it to keep each module small).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from release_oracle_cases import Arrays, _linear_case, _lmg, _multiclass, _seed

# ------------------------------------------------ issues 13-14 (second oracle)
#: δ of the (ε, δ) cases: a number, so that no default rule enters.
DELTA = 1e-4


def _issue13_linear_cases() -> dict[str, Callable[[], Arrays]]:
    """(ε, δ) mechanisms of the linear learners; intercept_scaling, data_norm, lam pinned."""
    out: dict[str, Callable[[], Arrays]] = {}
    pinned = {"epsilon": 1.0, "delta": DELTA, "data_norm": 1.0, "intercept_scaling": 1.0,
              "fit_intercept": True, "optimality_tol": None, "max_iter": None}
    for kind, solver in (("logreg", "native"), ("huber", "native"), ("logreg", "clarabel")):
        for mech in ("gaussian_objective", "gaussian_output"):
            name = f"{kind}-{mech}-{solver}"
            out[name] = _linear_case(kind, _seed(name), **{**pinned, "lam": 0.05,
                                                           "mechanism": mech, "solver": solver})
    # approximate-minima perturbation with Gaussian noise (mechanism "gaussian_amp")
    for kind, mech in (("logreg", "gaussian_objective"), ("logreg", "gaussian_output"),
                       ("huber", "gaussian_objective")):
        name = f"{kind}-{mech}-native-amp"
        out[name] = _linear_case(kind, _seed(name), **{
            **pinned, "lam": 0.05, "mechanism": mech, "solver": "native",
            "optimality_tol": 1e-4})
    # the Delta branch (slack above eps/2 at lam = 1e-3), no intercept, the issue-13 default
    # constant 0.5, a data_norm != 1, and lam="auto" (the rule reads n, eps, delta, q, p)
    out["logreg-gaussian_objective-native-delta"] = _linear_case(
        "logreg", 1301, **{**pinned, "lam": 1e-3, "mechanism": "gaussian_objective",
                           "solver": "native"})
    out["logreg-gaussian_objective-native-nointercept"] = _linear_case(
        "logreg", 1302, **{**pinned, "lam": 0.05, "mechanism": "gaussian_objective",
                           "solver": "native", "fit_intercept": False})
    out["logreg-gaussian_objective-native-scaling05"] = _linear_case(
        "logreg", 1303, **{**pinned, "lam": 0.05, "mechanism": "gaussian_objective",
                           "solver": "native", "intercept_scaling": 0.5})
    out["huber-gaussian_output-native-datanorm2"] = _linear_case(
        "huber", 1304, **{**pinned, "lam": 0.05, "mechanism": "gaussian_output",
                          "solver": "native", "data_norm": 2.0})
    for mech in ("gaussian_objective", "gaussian_output"):
        name = f"logreg-{mech}-native-lamauto"
        out[name] = _linear_case("logreg", _seed(name), **{
            **pinned, "lam": "auto", "mechanism": mech, "solver": "native"})
    return out


def _softmax_case(seed: int, *, mechanism: str, lam: float | str, delta: float | None,
                  solver: str = "native", n: int = 90, d: int = 3, C: int = 3,
                  data_norm: float = 1.0) -> Callable[[], Arrays]:
    """PrivateLargeMarginGaussian(loss="softmax"): every constructor option pinned."""
    def run() -> Arrays:
        import dpconvex as dp
        X, y = _multiclass(seed, n, d, C)
        est = dp.PrivateLargeMarginGaussian(
            epsilon=1.0, delta=delta, gamma=1e-2, lam=lam, h=0.5, n_components=1,
            mechanism=mechanism, data_norm=data_norm, component_assignment=None, centers=None,
            kmeans_epsilon_fraction=0.2, kmeans_iter=3, loss="softmax", extra_terms=None,
            solver=solver, random_state=seed + 100, optimality_tol=None, max_iter=None,
            classes=None, structure="full", feature_weights=None,
            row_norm="none")  # recorded before row_norm (issue 14: "auto" = "unit" for softmax)
        return _lmg(est.fit(X, y))
    return run


def _issue13_softmax_cases() -> dict[str, Callable[[], Arrays]]:
    """loss="softmax" with pure and Gaussian objective perturbation, numeric and "auto" lam."""
    out: dict[str, Callable[[], Arrays]] = {}
    for mech, delta in (("objective", 0.0), ("gaussian_objective", DELTA)):
        for lam in (0.1, "auto"):
            tag = "lamauto" if lam == "auto" else "lam01"
            name = f"softmax-{mech}-native-{tag}"
            out[name] = _softmax_case(_seed(name), mechanism=mech, lam=lam, delta=delta)
    out["softmax-gaussian_objective-auto-lam01"] = _softmax_case(
        1310, mechanism="gaussian_objective", lam=0.1, delta=DELTA, solver=None)
    out["softmax-gaussian_objective-native-binary-datanorm2"] = _softmax_case(
        1311, mechanism="gaussian_objective", lam=0.1, delta=DELTA, n=80, d=2, C=2,
        data_norm=2.0)
    return out


def _centroid_case(seed: int, *, mechanism: str, delta: float | None, row_norm: str = "unit",
                   data_norm: float = 1.0, C: int = 3) -> Callable[[], Arrays]:
    def run() -> Arrays:
        import dpconvex as dp
        X, y = _multiclass(seed, C=C)
        est = dp.PrivateGaussianCentroid(epsilon=1.0, delta=delta, mechanism=mechanism,
                                         data_norm=data_norm, row_norm=row_norm,
                                         temperature=None, classes=None,
                                         random_state=seed + 100).fit(X, y)
        return {"means_": np.asarray(est.means_), "counts_": np.asarray(est.counts_)}
    return run


def _issue13_centroid_cases() -> dict[str, Callable[[], Arrays]]:
    return {
        "centroid-gaussian-unit": _centroid_case(1320, mechanism="gaussian", delta=DELTA),
        # delta=None: the public rule min(1e-5, 1/n^2)
        "centroid-gaussian-unit-deltarule": _centroid_case(1321, mechanism="gaussian",
                                                           delta=None),
        "centroid-gaussian-none-datanorm2": _centroid_case(
            1322, mechanism="gaussian", delta=DELTA, row_norm="none", data_norm=2.0, C=2),
        # the pure mechanism with delta=None (no delta)
        "centroid-norm_gamma_sum-unit": _centroid_case(1323, mechanism="norm_gamma_sum",
                                                       delta=None),
        "centroid-norm_gamma_sum-none": _centroid_case(1324, mechanism="norm_gamma_sum",
                                                       delta=None, row_norm="none"),
    }


def issue13_cases() -> dict[str, Callable[[], Arrays]]:
    """The issue-13/14 oracle cases: name -> callable returning the released arrays."""
    out: dict[str, Callable[[], Arrays]] = {}
    out.update(_issue13_linear_cases())
    out.update(_issue13_softmax_cases())
    out.update(_issue13_centroid_cases())
    return out
