"""Fixed release cases for the release oracle (``tests/test_release_oracle.py``).

Each case builds small synthetic data with its own seeded :class:`numpy.random.Generator`,
fits one dpconvex estimator, meta-estimator or template-level release with an integer
``random_state`` and returns the released arrays. ``tests/fixtures/release_oracle.npz``
(written by ``tests/fixtures/make_release_oracle.py`` from a clean export of the commit named
in ``tests/fixtures/release_oracle_meta.json``) records them; code that does not mean to
change what is released must reproduce them within each case's :class:`Tolerance` (bit for
bit only in the opt-in comparison, where the recording's BLAS and versions match).

The cases cover every estimator path: the linear learners with every mechanism and
backend (objective, output, approximate-minima, Gaussian, the Δ branch, sparse rows,
p > 1000, no intercept, one-vs-rest), the large-margin classifier (pairwise and softmax
templates, mixtures with public centers and DP k-means, the centroid path), the DP class
centroids, noisy gradient descent, both private searches, a Pipeline with random
features, ``epsilon_sweep`` and the template-level ``release``; the regressors (every
perturbation mechanism of ``PrivateLinearRegressor``, on a box where it is covered, the
Huber and quantile regressors, a private label range, sufficient-statistics perturbation
pure and Gaussian with the chosen and a fixed ridge), the regression front door (the
private mean, the guarded learner pure and Gaussian, the learner unguarded),
``PrivateGaussianNB`` (pure and Gaussian), ``draft_schema`` and the classification front
door. Every option that enters
the release is pinned explicitly, so a change of a default does not move a case. Each
case has its own fixed seeds (explicit, or derived from the case name by :func:`_seed`),
so adding a case never changes another.

Every case carries a :class:`Tolerance` (``cases()[name].tolerance``): the public facts of
its release path (the optimality residual the release accepts, the strong-convexity modulus,
the distance bound's constant, the post-processing and where the release is snapped) from
which ``tests/test_release_oracle.py`` derives how far another CPU's arithmetic may move
each released array (the derivation is in that module's docstring).
"""

from __future__ import annotations

import dataclasses
import math
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

Arrays = dict[str, np.ndarray]

__all__ = ["AMP_TOL", "RESIDUAL_TOL", "ROUNDING_RTOL", "SNAP_BITS", "Tolerance", "cases",
           "grid_step"]

#: δ of the (ε, δ) cases: a number, so that no default rule enters.
DELTA = 1e-4

#: The optimality residual every exact-minimizer release (and the non-private baseline)
#: must reach: ``residual_tol`` of the linear, pairwise and softmax templates (checked by
#: ``test_release_oracle.py`` against the library's constants).
RESIDUAL_TOL = 1e-6
#: ``optimality_tol`` of the approximate-minima cases: the residual their solve must reach.
AMP_TOL = 1e-4
#: ``dpconvex.privacy.noise.SNAP_BITS``: the grid of a noise scale s is 2^⌊log2 s⌋ · 2^-20.
SNAP_BITS = 20
#: Rounding of the arithmetic around the solve (sums of n <= 3400 terms in other BLAS
#: kernels and SIMD loops: relative error <= n · 2^-53 < 4e-13), amplified by the solve's
#: conditioning 1/μ <= 1/Λ <= 1e3: below 4e-10 relative; 1e-9 leaves a factor 2.5.
ROUNDING_RTOL = 1e-9


def grid_step(recorded: np.ndarray) -> float:
    """The largest power of two dividing every non-zero entry of ``recorded`` (0.0 if none).

    A release snapped to the grid g = 2^k is an integer multiple of g in every entry, so
    this is >= g: an upper bound on one grid step read off the recorded (public) array. For
    an array that is not on a grid it is the spacing of its finest entry (~1e-16 · |x|).

    Examples
    --------
    >>> grid_step(np.array([0.75, -1.5, 3.0]))
    0.25
    """
    a = np.asarray(recorded, dtype=float).ravel()
    a = a[np.isfinite(a) & (a != 0)]
    if a.size == 0:
        return 0.0
    mant, exp = np.frexp(np.abs(a))  # |a| = mant · 2^exp, mant in [0.5, 1): 53-bit integer
    ints = (mant * 2.0**53).astype(np.int64)
    trailing = np.array([(int(i) & -int(i)).bit_length() - 1 for i in ints])
    return float(np.min(np.ldexp(1.0, exp - 53 + trailing)))


@dataclass(frozen=True)
class Tolerance:
    """Public facts of a case's release path that bound a cross-CPU difference.

    Parameters
    ----------
    residual : float
        Optimality residual the release path accepts (``RESIDUAL_TOL``, or ``AMP_TOL`` for
        approximate minima); 0.0 for releases without an iterative solve with a stopping test.
    mu : float
        Lower bound on the strong-convexity modulus of the solved objective (its ``lam``:
        μ = Λ; the Δ of objective perturbation only adds to it).
    lipschitz : float
        L of the error bound ||θ − θ*|| <= (1 + L)/μ · residual (the variational inequality
        of the PSD-constrained templates); 0.0 for the unconstrained bound residual/μ.
    scale : float
        Lipschitz constant (Frobenius / Euclidean) of the public map from the solution to the
        released arrays (1 for θ itself and for a PSD projection; 1 + √D for the PSD shift).
    snap : {"none", "last", "inner"}
        Where the release is snapped to its public grid: "last" (the released array is on
        the grid: one step is read off the record by :func:`grid_step`), "inner" (a
        post-processing follows the snap: one step is bounded by 2^-SNAP_BITS of the
        largest released coordinate, the noise scale being of the order of the released
        noisy values), "none".
    snaps : int
        How many snaps in sequence can each move the release by a step (noisy gradient
        descent snaps every step).
    range_scale : str
        Name of a recorded (lo, hi) array (a released label range): ``scale`` is multiplied
        by its half width (hi − lo)/2, the factor from the unit labels to the labels' units.
        "" for none.
    equal : tuple of str
        Arrays that are discrete choices (a released range's grid edges, a vocabulary, the
        learner a selection picked): they must be equal. Integer, bool and string arrays
        must always be equal.
    through : callable or None
        ``through(record, name)``: a bound on how far one grid step of each statistic snapped
        *inside* a closed form (sufficient statistics, class sums, a mean) moves the array
        ``name``, derived from public constants and the case's recorded (released) arrays
        ``record``; its docstring gives the derivation. None for none.
    reason : str
        Where the tolerance comes from (the release path's public facts), in words.
    """

    residual: float = 0.0
    mu: float = 1.0
    lipschitz: float = 0.0
    scale: float = 1.0
    snap: Literal["none", "last", "inner"] = "none"
    snaps: int = 1
    range_scale: str = ""
    equal: tuple[str, ...] = ()
    through: Callable[[Arrays, str], float] | None = None
    reason: str = ""

    @property
    def solve(self) -> float:
        """2 · scale · (1 + L)/μ · residual: two solves within the distance bound of θ*."""
        return 2.0 * self.scale * (1.0 + self.lipschitz) / self.mu * self.residual

    def atol(self, recorded: np.ndarray, record: Arrays | None = None, name: str = "") -> float:
        """Largest allowed |released − recorded| over the entries of the float array ``name``
        (``recorded``) of a case whose recorded arrays are ``record``; 0.0 for an array in
        ``equal``."""
        if name in self.equal:
            return 0.0
        a = np.asarray(recorded, dtype=float)
        top = float(np.max(np.abs(a))) if a.size else 0.0
        step = 0.0
        if self.snap == "last":
            step = grid_step(a)
        elif self.snap == "inner":
            step = max(grid_step(a), math.ldexp(top, -SNAP_BITS))
        solve = self.solve
        if self.range_scale:
            assert record is not None, "range_scale reads the case's record"
            lo, hi = np.asarray(record[self.range_scale], dtype=float)
            solve *= 0.5 * (hi - lo)
        inside = self.through(record or {}, name) if self.through is not None else 0.0
        return solve + self.snaps * step + inside + ROUNDING_RTOL * max(top, 1.0)


def _tol(run: Callable[[], Arrays], tolerance: Tolerance) -> Callable[[], Arrays]:
    """Attach ``tolerance`` to a case (``run.tolerance``)."""
    run.tolerance = tolerance  # type: ignore[attr-defined]
    return run


#: Strong-convexity modulus of the released solve where the public rule lam="auto" picks Λ
#: (the certificate's "strong convexity mu", rounded down).
AUTO_MU = {
    "logreg-gaussian_objective-native-lamauto": 0.017,
    "logreg-gaussian_output-native-lamauto": 0.0447,
    "softmax-objective-native-lamauto": 0.116,
    "softmax-gaussian_objective-native-lamauto": 0.117,
    "lmg-auto-delta-large": 0.0034,
}

#: Snapped mechanisms of the linear learners (the release ends with the snap).
_SNAP_LAST = ("output", "gaussian_output")


def _linear_tol(mechanism: Any, lam: Any, optimality_tol: Any, name: str = "") -> Tolerance:
    """The linear learners: θ ↦ (coef_, intercept_ = s·θ_d) with s <= 1; ||w − w*|| <= r/μ."""
    mu = AUTO_MU[name] if lam == "auto" else float(lam)
    amp = optimality_tol is not None and mechanism not in ("none",)
    snap = "last" if (amp or mechanism in _SNAP_LAST or mechanism in (None, "auto")) else "none"
    return Tolerance(residual=AMP_TOL if amp else RESIDUAL_TOL, mu=mu, snap=snap)


def _pairwise_tol(lam: float, C: int, K: int = 1, *, curvature: float = 1.0,
                  deriv_bound: float = 1.0, amp: bool = False, snap: str = "none") -> Tolerance:
    """The pairwise template: (1 + L)/μ · r with L = μ + 2cC + [K > 1]·|ℓ'|/2 (its
    ``public_lipschitz_bound``); Φ_ is θ (PSD-projected: 1-Lipschitz)."""
    L = lam + 2.0 * curvature * C + (0.5 * deriv_bound if K > 1 else 0.0)
    return Tolerance(residual=AMP_TOL if amp else RESIDUAL_TOL, mu=lam, lipschitz=L,
                     snap="inner" if amp else snap)  # type: ignore[arg-type]


def _softmax_tol(lam: float, d: int) -> Tolerance:
    """The softmax template: (1 + L)/μ · r with L = μ + 1/2 (its constrained bound; the
    unconstrained one, r/μ, is smaller); Φ_ = SθS plus a PSD shift t·I (λ_min is
    1-Lipschitz: ||Δt·I||_F <= √D·||Δθ||, D = d + 1), features scaled by S <= 1."""
    return Tolerance(residual=RESIDUAL_TOL, mu=lam, lipschitz=lam + 0.5,
                     scale=1.0 + math.sqrt(d + 1))


#: Releases without a solve: class sums and counts snapped, then divided (centroids).
_CENTROID_TOL = Tolerance(snap="inner")
#: Noisy gradient descent (20 steps, no stopping test): every step snaps its noisy gradient.
_NGD_TOL = Tolerance(snap="inner", snaps=20)


# ------------------------------------------------------------------ data
def _seed(name: str) -> int:
    """A fixed seed derived from a case name (independent of the order of the cases)."""
    return zlib.crc32(name.encode()) % 10_000


def _binary(seed: int, n: int = 150, d: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """Two classes {0, 1}; some rows have norm > 1 (clipped by data_norm=1)."""
    rng = np.random.default_rng(seed)
    w = rng.normal(size=d)
    X = 0.6 * rng.normal(size=(n, d))
    y = (X @ w + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X, y


def _sparse_binary(seed: int, n: int, d: int, density: float) -> tuple[np.ndarray, np.ndarray]:
    """Dense array with mostly zeros (triggers the native solver's CSR path when large)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * (rng.random(size=(n, d)) < density)
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    w = rng.normal(size=d)
    y = (X @ w + 0.1 * rng.normal(size=n) > 0).astype(int)
    return X, y


def _multiclass(seed: int, n: int = 90, d: int = 3, C: int = 3) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    mu = rng.normal(size=(C, d))
    y = np.arange(n) % C
    X = 0.5 * mu[y] + 0.3 * rng.normal(size=(n, d))
    return X, y


def _linear(est: Any) -> Arrays:
    return {"coef_": np.asarray(est.coef_), "intercept_": np.asarray(est.intercept_)}


def _lmg(est: Any) -> Arrays:
    out = {"Phi_": np.asarray(est.Phi_)}
    if getattr(est, "centers_", None) is not None:
        out["centers_"] = np.asarray(est.centers_)
    return out


# ------------------------------------------------------- linear classifiers
#: The appended constant is pinned (its default is a public rule that may change).
PINNED = {"intercept_scaling": 1.0}


def _linear_estimator(kind: str, **kw: Any) -> Any:
    import dpconvex as dp
    from dpconvex.objectives.losses import HuberHinge, SmoothHinge

    kw = {**PINNED, **kw}

    if kind == "logreg":
        return dp.PrivateLogisticRegression(**kw)
    if kind == "huber":
        return dp.PrivateHuberSVM(loss="huber", h=0.5, **kw)
    if kind == "smoothhinge":
        return dp.PrivateHuberSVM(loss="smooth_hinge", h=0.4, **kw)
    if kind == "lincls_huber":  # a Loss instance
        return dp.PrivateLinearClassifier(loss=HuberHinge(0.3), **kw)
    if kind == "lincls_smoothhinge":  # a Loss instance without a CVXPY form
        return dp.PrivateLinearClassifier(loss=SmoothHinge(0.5), **kw)
    raise ValueError(kind)


def _linear_case(kind: str, seed: int, *, n: int = 150, d: int = 4, name: str = "", **kw: Any
                 ) -> Callable[[], Arrays]:
    def run() -> Arrays:
        X, y = _binary(seed, n, d)
        params = {"random_state": seed + 100, **kw}
        return _linear(_linear_estimator(kind, **params).fit(X, y))
    return _tol(run, _linear_tol(kw.get("mechanism"), kw.get("lam"), kw.get("optimality_tol"),
                                 name))


def _linear_cases() -> dict[str, Callable[[], Arrays]]:
    out: dict[str, Callable[[], Arrays]] = {}
    kinds_cvx = ("logreg", "huber", "lincls_huber")
    for kind in (*kinds_cvx, "smoothhinge", "lincls_smoothhinge"):
        solvers = ("native", "clarabel", "scs") if kind in kinds_cvx else ("native",)
        for mech in ("objective", "output", "none"):
            for solver in solvers:
                name = f"{kind}-{mech}-{solver}"
                out[name] = _linear_case(
                    kind, _seed(name), epsilon=1.0, lam=0.05, mechanism=mech, solver=solver)
    # no intercept
    for kind, solver in (("logreg", "native"), ("huber", "clarabel"), ("smoothhinge", "native"),
                         ("logreg", "scs")):
        for mech in ("objective", "output", "none"):
            name = f"{kind}-{mech}-{solver}-nointercept"
            out[name] = _linear_case(
                kind, _seed(name), epsilon=0.8, lam=0.05, mechanism=mech, solver=solver,
                fit_intercept=False)
    # solver=None (the default: native) and the other defaults, with a numeric lam
    out["logreg-defaults"] = _linear_case("logreg", 40, lam=1e-2)
    # data_norm != 1 (clipping to another public bound)
    out["logreg-objective-native-datanorm2"] = _linear_case(
        "logreg", 41, epsilon=1.0, lam=0.05, data_norm=2.0, solver="native")
    # approximate-minima perturbation (Iyengar et al. 2019)
    for kind, solver in (("logreg", "native"), ("huber", "native"), ("smoothhinge", "native"),
                         ("logreg", "clarabel"), ("huber", "scs")):
        for mech in ("objective", "output"):
            name = f"{kind}-{mech}-{solver}-amp"
            out[name] = _linear_case(
                kind, _seed(name), epsilon=1.0, lam=0.05, mechanism=mech, solver=solver,
                optimality_tol=1e-4)
    # AMP with an iteration cap: L-BFGS only (no Newton polish), released at residual <= 1e-4
    out["logreg-objective-native-amp-maxiter"] = _linear_case(
        "logreg", 42, epsilon=1.0, lam=0.05, solver="native", optimality_tol=1e-4, max_iter=30)
    # the Delta branch of objective perturbation: slack 2 log(1 + c_u/(n lam)) > eps/2
    for kind, solver in (("logreg", "native"), ("logreg", "clarabel"), ("huber", "native"),
                         ("smoothhinge", "native")):
        name = f"{kind}-objective-{solver}-delta"
        out[name] = _linear_case(
            kind, _seed(name), epsilon=1.0, lam=1e-3, mechanism="objective", solver=solver)
    out["logreg-objective-native-delta-amp"] = _linear_case(
        "logreg", 47, epsilon=1.0, lam=1e-3, solver="native", optimality_tol=1e-4)
    # p > 1000: Newton-CG on Hessian-vector products (no dense Hessian)
    out["logreg-objective-native-p1100"] = _linear_case(
        "logreg", 43, n=200, d=1100, epsilon=2.0, lam=0.05, solver="native")
    out["logreg-output-native-p1100"] = _linear_case(
        "logreg", 44, n=200, d=1100, epsilon=2.0, lam=0.05, mechanism="output", solver="native")

    # sparse rows (>= 50,000 entries, <= 25% non-zero): the native solver's CSR path
    def sparse(mech: str, solver: str, seed: int) -> Callable[[], Arrays]:
        def run() -> Arrays:
            import dpconvex as dp
            X, y = _sparse_binary(seed, 400, 150, 0.1)
            return _linear(dp.PrivateLogisticRegression(
                epsilon=1.0, lam=0.05, mechanism=mech, solver=solver,
                random_state=seed, **PINNED).fit(X, y))
        return _tol(run, _linear_tol(mech, 0.05, None))
    out["logreg-objective-native-sparse"] = sparse("objective", "native", 45)
    out["logreg-output-native-sparse"] = sparse("output", "native", 46)
    return out


# --------------------------------------------------------- large margin
def _lmg_case(seed: int, *, n: int = 90, d: int = 3, C: int = 3, **kw: Any
              ) -> Callable[[], Arrays]:
    def run() -> Arrays:
        import dpconvex as dp
        X, y = _multiclass(seed, n, d, C)
        params = {"random_state": seed + 100, **kw}
        # the paper's pairwise template with a numeric lam unless the case says otherwise
        params.setdefault("lam", 2e-2)
        params.setdefault("loss", "pairwise")
        if isinstance(params.get("centers"), str):  # "given": fixed public centers
            rng = np.random.default_rng(seed + 7)
            params["centers"] = 0.3 * rng.normal(size=(C, params["n_components"], d))
        return _lmg(dp.PrivateLargeMarginGaussian(**params).fit(X, y))
    # the pairwise template (HuberHinge(0.5): c = |l'| = 1); DP k-means snaps the centers,
    # and "auto" mechanisms may snap: one step through the post-processing
    inner = kw.get("component_assignment") == "dp_kmeans" or "mechanism" not in kw
    return _tol(run, _pairwise_tol(kw.get("lam", 2e-2), C, kw.get("n_components", 1),
                                   amp=kw.get("optimality_tol") is not None,
                                   snap="inner" if inner else "none"))


def _lmg_cases() -> dict[str, Callable[[], Arrays]]:
    out: dict[str, Callable[[], Arrays]] = {}
    # solver=None is "auto": the native solver (accelerated projected gradient), CVXPY never
    # first.
    for i, (mech, solver) in enumerate([
            ("objective", "native"), ("objective", None), ("objective", "scs"),
            ("none", "native"), ("none", None)]):
        out[f"lmg-K1-{mech}-{solver or 'auto'}"] = _lmg_case(
            200 + i, epsilon=1.0, lam=0.1, mechanism=mech, solver=solver)
    # Clarabel alone meets the residual tolerance on these (n = 60, d = 3, C = 2; residuals
    # near 1e-7; other seeds land above 1e-6 and raise); "auto" solves the first natively
    for mech, solver, seed in (("objective", "clarabel", 206), ("none", "clarabel", 210),
                               ("objective", None, 206)):
        out[f"lmg-K1-{mech}-{solver or 'auto'}-small"] = _lmg_case(
            seed, n=60, d=3, C=2, epsilon=1.0, lam=0.1, mechanism=mech, solver=solver)
    # "auto" on a larger problem (n·C·K·D(D+1)/2 = 3400·2·15): the native solver
    out["lmg-K1-objective-auto-large"] = _lmg_case(230, n=3400, d=4, C=2, epsilon=1.0,
                                                   lam=0.1)
    out["lmg-K1-defaults"] = _lmg_case(210)
    out["lmg-K1-objective-native-binary"] = _lmg_case(211, n=80, d=2, C=2, epsilon=1.0,
                                                      lam=0.1, solver="native")
    out["lmg-K1-objective-native-delta"] = _lmg_case(212, epsilon=1.0, lam=2e-3,
                                                     solver="native")
    out["lmg-K1-objective-native-amp"] = _lmg_case(213, epsilon=1.0, lam=0.1, solver="native",
                                                   optimality_tol=1e-4)
    out["lmg-K1-objective-auto-amp"] = _lmg_case(214, epsilon=1.0, lam=0.1, solver=None,
                                                 optimality_tol=1e-4)
    out["lmg-K2-nearest-native"] = _lmg_case(
        215, epsilon=2.0, lam=0.1, n_components=2, solver="native",
        component_assignment="nearest_public_center", centers="given")
    out["lmg-K2-nearest-auto"] = _lmg_case(
        216, epsilon=2.0, lam=0.1, n_components=2, solver=None,
        component_assignment="nearest_public_center", centers="given")
    out["lmg-K2-nearest-default-centers"] = _lmg_case(
        217, epsilon=2.0, lam=0.1, n_components=2, solver="native")
    out["lmg-K2-dpkmeans-native"] = _lmg_case(
        218, epsilon=2.0, lam=0.1, n_components=2, solver="native",
        component_assignment="dp_kmeans")
    out["lmg-K2-dpkmeans-given-auto"] = _lmg_case(
        219, epsilon=2.0, lam=0.1, n_components=2, solver=None,
        component_assignment="dp_kmeans", centers="given", kmeans_epsilon_fraction=0.3,
        kmeans_iter=2)
    out["lmg-K2-dpkmeans-none"] = _lmg_case(
        220, lam=0.1, n_components=2, mechanism="none", solver="native",
        component_assignment="dp_kmeans")
    out["lmg-K2-nearest-native-amp"] = _lmg_case(
        221, epsilon=2.0, lam=0.1, n_components=2, solver="native", optimality_tol=1e-4,
        component_assignment="nearest_public_center", centers="given")

    def logistic_loss() -> Arrays:
        import dpconvex as dp
        from dpconvex.objectives.losses import Logistic
        X, y = _multiclass(222)
        return _lmg(dp.PrivateLargeMarginGaussian(
            epsilon=1.0, lam=0.1, loss=Logistic(), solver="native",
            random_state=5).fit(X, y))
    out["lmg-K1-objective-native-logistic"] = _tol(logistic_loss,
                                                   _pairwise_tol(0.1, 3, curvature=0.25))
    return out


# ------------------------------------------------------------ noisy GD
def _ngd_cases() -> dict[str, Callable[[], Arrays]]:
    def case(seed: int, **kw: Any) -> Callable[[], Arrays]:
        def run() -> Arrays:
            import dpconvex as dp
            X, y = _binary(seed)
            est = dp.NoisyGradientDescent(epsilon=1.0, delta=1e-5, steps=20, radius=2.0,
                                          random_state=seed, **kw)
            return _linear(est.fit(X, y))
        return _tol(run, _NGD_TOL)
    return {
        # clip and average pinned (their defaults are public rules)
        "ngd-rdp": case(300, accounting="rdp", clip=1.0, average="all"),
        "ngd-pld": case(301, accounting="pld", clip=1.0, average="all"),
        "ngd-rdp-nointercept": case(302, accounting="rdp", fit_intercept=False, clip=1.0,
                                    average="all"),
        "ngd-pld-nointercept-huber-lr": case(303, accounting="pld", fit_intercept=False,
                                             loss="huber", learning_rate=0.5, clip=0.5,
                                             average="all"),
    }


# ------------------------------------------------- grid search, pipeline
def _grid(public: bool, seed: int) -> Callable[[], Arrays]:
    def run() -> Arrays:
        import dpconvex as dp
        X, y = _binary(seed, n=180)
        kw: dict[str, Any] = {}
        if public:
            kw["public_validation"] = _binary(seed + 1, n=60)
        gs = dp.PrivateGridSearch(dp.PrivateLogisticRegression(**PINNED),
                                  {"lam": [0.01, 0.1], "mechanism": ["objective", "output"]},
                                  epsilon=1.0, random_state=seed, **kw).fit(X, y)
        return {"best_coef_": np.asarray(gs.best_estimator_.coef_),
                "best_intercept_": np.asarray(gs.best_estimator_.intercept_),
                "best_index_": np.asarray(gs.best_index_)}
    return _tol(run, _linear_tol("output", 0.01, None))  # lam in {0.01, 0.1}


def _pipeline() -> Arrays:
    from sklearn.pipeline import make_pipeline

    import dpconvex as dp
    from dpconvex.estimators.kernels import RandomFourierFeatures
    X, y = _binary(400)
    pipe = make_pipeline(RandomFourierFeatures(n_components=40, gamma=0.5, random_state=3),
                         dp.PrivateLogisticRegression(epsilon=1.0, lam=0.05, random_state=4,
                                                      **PINNED))
    pipe.fit(X, y)
    rff, lr = pipe[0], pipe[-1]
    return {"random_weights_": np.asarray(rff.random_weights_),
            "random_offset_": np.asarray(rff.random_offset_), **_linear(lr)}


_tol(_pipeline, _linear_tol(None, 0.05, None))


# -------------------------------------------------------------- sweeps
def _sweep(kind: str, seed: int, **kw: Any) -> Callable[[], Arrays]:
    def run() -> Arrays:
        import dpconvex as dp
        if kind == "lmg":
            X, y = _multiclass(seed)
            est: Any = dp.PrivateLargeMarginGaussian(lam=0.1, solver="native",
                                                     loss="pairwise")
        else:
            X, y = _binary(seed)
            est = dp.PrivateLogisticRegression(lam=0.05, mechanism=kind, **PINNED)
        res = dp.epsilon_sweep(est, X, y, [0.5, 2.0], runs=2, random_state=seed, **kw)
        out: Arrays = {}
        for i, row in enumerate(res.estimators):
            for r, e in enumerate(row):
                out.update({f"e{i}r{r}_{k}": v
                            for k, v in (_lmg(e) if kind == "lmg" else _linear(e)).items()})
        return out
    return _tol(run, _pairwise_tol(0.1, 3) if kind == "lmg" else _linear_tol(kind, 0.05, None))


# ------------------------------------------------------ template level
def _template_case(which: str, mechanism: str, seed: int, solver: str = "native"
                   ) -> Callable[[], Arrays]:
    def run() -> Arrays:
        from dpconvex.objectives.losses import HuberHinge, Logistic
        from dpconvex.privacy.budget import Budget
        from dpconvex.privacy.mechanisms import build_mechanism
        from dpconvex.privacy.release import release
        if which == "linear":
            from dpconvex.templates.linear_erm import LinearERMTemplate
            X, y = _binary(seed)
            X = X / np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
            t: Any = LinearERMTemplate(Logistic(), 0.05, 1.0, X, np.where(y == 1, 1.0, -1.0))
        else:
            from dpconvex.templates.large_margin import (
                LargeMarginGaussianTemplate,
                augment_and_scale,
            )
            X, y = _multiclass(seed)
            X = X / np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
            t = LargeMarginGaussianTemplate(augment_and_scale(X, 1.0), y, n_classes=3,
                                            lam=0.1, gamma=0.01,
                                            loss=HuberHinge(0.5))
        mech = build_mechanism(mechanism, "oracle", None)
        budget = Budget(1.0) if mech.private else Budget(float("inf"))
        rel = release(t, mech, budget, solver, np.random.default_rng(seed))
        return {"theta": np.asarray(rel.theta)}
    return _tol(run, _linear_tol(mechanism, 0.05, None) if which == "linear" else
                _pairwise_tol(0.1, 3, snap="inner" if mechanism == "output" else "none"))


# ------------------------------------------------ (ε, δ) mechanisms
def _gaussian_linear_cases() -> dict[str, Callable[[], Arrays]]:
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
    # the Delta branch (slack above eps/2 at lam = 1e-3), no intercept, the constant 0.5,
    # a data_norm != 1, and lam="auto" (the rule reads n, eps, delta, q, p)
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
        out[name] = _linear_case("logreg", _seed(name), name=name, **{
            **pinned, "lam": "auto", "mechanism": mech, "solver": "native"})
    return out


def _softmax_case(seed: int, *, mechanism: str, lam: float | str, delta: float | None,
                  solver: str = "native", n: int = 90, d: int = 3, C: int = 3,
                  data_norm: float = 1.0, name: str = "") -> Callable[[], Arrays]:
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
            row_norm="none")
        return _lmg(est.fit(X, y))
    return _tol(run, _softmax_tol(AUTO_MU[name] if lam == "auto" else float(lam), d))


def _softmax_cases() -> dict[str, Callable[[], Arrays]]:
    """loss="softmax" with pure and Gaussian objective perturbation, numeric and "auto" lam."""
    out: dict[str, Callable[[], Arrays]] = {}
    for mech, delta in (("objective", 0.0), ("gaussian_objective", DELTA)):
        for lam in (0.1, "auto"):
            tag = "lamauto" if lam == "auto" else "lam01"
            name = f"softmax-{mech}-native-{tag}"
            out[name] = _softmax_case(_seed(name), mechanism=mech, lam=lam, delta=delta,
                                      name=name)
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
    return _tol(run, _CENTROID_TOL)


def _centroid_cases() -> dict[str, Callable[[], Arrays]]:
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




# ------------------------------------------- meta-estimators and multiclass paths
def _random_search(seed: int) -> Callable[[], Arrays]:
    def run() -> Arrays:
        import dpconvex as dp
        from dpconvex.estimators.selection.random import PrivateRandomSearch
        X, y = _binary(seed, n=240)
        rs = PrivateRandomSearch(
            dp.PrivateLogisticRegression(**PINNED),
            {"lam": [0.01, 0.1], "mechanism": ["objective", "output"]},
            epsilon=1.0, repetitions="logarithmic", mean_runs=3.0, validation_fraction=0.25,
            random_state=seed, classes=[0, 1]).fit(X, y)
        return {"best_coef_": np.asarray(rs.best_estimator_.coef_),
                "best_intercept_": np.asarray(rs.best_estimator_.intercept_)}
    return _tol(run, _linear_tol("output", 0.01, None))  # lam in {0.01, 0.1}


def _ovr_case(kind: str, seed: int, **kw: Any) -> Callable[[], Arrays]:
    """One-vs-rest on three classes: each binary problem spends its share of ε."""
    def run() -> Arrays:
        import dpconvex as dp
        X, y = _multiclass(seed, n=120)
        params = {"random_state": seed + 100, "classes": [0, 1, 2], **kw}
        if kind == "ngd":
            est: Any = dp.NoisyGradientDescent(**params)
        else:
            est = _linear_estimator(kind, **params)
        return _linear(est.fit(X, y))
    return _tol(run, _NGD_TOL if kind == "ngd" else
                _linear_tol(kw.get("mechanism"), kw.get("lam"), None))


def _lmg_auto_case(seed: int, tolerance: Tolerance, *, n: int = 90, C: int = 3, **kw: Any
                   ) -> Callable[[], Arrays]:
    """The large-margin classifier with its "auto" options: the learner the rules pick."""
    def run() -> Arrays:
        import dpconvex as dp
        X, y = _multiclass(seed, n=n, C=C)
        est = dp.PrivateLargeMarginGaussian(random_state=seed + 100,
                                            classes=list(range(C)), **kw).fit(X, y)
        out: Arrays = {}
        for name in ("Phi_", "centers_", "means_", "counts_"):
            value = getattr(est, name, None)
            if value is not None:
                out[name] = np.asarray(value)
        return out
    return _tol(run, tolerance)


def _meta_cases() -> dict[str, Callable[[], Arrays]]:
    return {
        "randomsearch-private": _random_search(520),
        "ovr-logreg-objective-native": _ovr_case(
            "logreg", 530, epsilon=1.0, lam=0.05, mechanism="objective", solver="native"),
        "ovr-logreg-gaussian_objective-native": _ovr_case(
            "logreg", 531, epsilon=1.0, delta=DELTA, lam=0.05, mechanism="gaussian_objective",
            solver="native"),
        "ovr-huber-output-native": _ovr_case(
            "huber", 532, epsilon=1.0, lam=0.05, mechanism="output", solver="native"),
        "ovr-ngd-rdp": _ovr_case(
            "ngd", 533, epsilon=1.0, delta=1e-5, steps=20, radius=2.0, accounting="rdp",
            clip=1.0, average="all"),
        # every "auto" option left to the rules: pure epsilon, (epsilon, delta) at small
        # n epsilon / C (the centroid path), (epsilon, delta) at larger n epsilon / C
        # the centroid path (class sums and counts, no solve); softmax with its rule's Λ
        "lmg-auto-pure": _lmg_auto_case(540, _CENTROID_TOL, epsilon=1.0),
        "lmg-auto-delta-small": _lmg_auto_case(541, _CENTROID_TOL, epsilon=1.0, delta=DELTA),
        "lmg-auto-delta-large": _lmg_auto_case(
            542, _softmax_tol(AUTO_MU["lmg-auto-delta-large"], 3), n=900, epsilon=4.0,
            delta=DELTA),
        "lmg-softmax-K2-nearest": _lmg_auto_case(
            543, _softmax_tol(0.1, 3), epsilon=2.0, lam=0.1, loss="softmax", n_components=2, solver="native",
            component_assignment="nearest_public_center", row_norm="unit"),
    }


# ------------------------------------------------------------------ regressors
#: The public label range of the regression cases: half width R = 4, centre 1. R is a power
#: of two and the centre a multiple of every snap grid (<= 1), so a snapped θ stays on a
#: grid in the labels' units (coef_ = R θ_w, intercept_ = 1 + R s θ_d with s = 1): "last"
#: reads it off the record.
LABELS = (-3.0, 5.0)
#: R = (hi − lo)/2 of ``LABELS``: the Lipschitz constant of θ ↦ (coef_, intercept_) (s = 1).
HALF = 4.0
#: q̃² = q² + s² of the regression cases (data_norm q = 1, intercept_scaling s = 1).
Q2 = 2.0
#: Curvature bound c of the Huber loss at huber_threshold h = 0.5 on the unit labels (1/h).
HUBER_CURVATURE = 2.0

#: Strong-convexity modulus of the front door's median regression (lam="auto"): the learner
#: certificate's "strong convexity mu", rounded down.
FRONT_DOOR_MU = {
    "regressor-guarded": 0.176,
    "regressor-guarded-gaussian": 0.00477,
    "regressor-unguarded": 0.077,
}


def _regression(seed: int, n: int = 200, d: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Labels 1 + 2 xᵀw + noise, some outside ``LABELS`` (clipped); rows of norm ~1."""
    rng = np.random.default_rng(seed)
    X = 0.6 * rng.normal(size=(n, d))
    y = 1.0 + 2.0 * (X @ rng.normal(size=d)) + 0.5 * rng.normal(size=n)
    return X, y


def _box(w: Any) -> list[Any]:
    """A box on the coefficients (labels' units): a set with an exact projection."""
    return [w >= -1.5, w <= 1.5]


def _regressor_tol(mechanism: str, lam: float, *, box: bool = False,
                   curvature: float = HUBER_CURVATURE, range_scale: str = "") -> Tolerance:
    """A linear regressor: θ ↦ (R θ_w, mid + R s θ_d) is R-Lipschitz (s = 1); the solve's
    bound r/μ, or (1 + L)/μ · r over the box with L = c q̃² + μ (``distance_bound``)."""
    snapped = mechanism in _SNAP_LAST
    return Tolerance(
        residual=RESIDUAL_TOL, mu=lam, lipschitz=curvature * Q2 + lam if box else 0.0,
        scale=1.0 if range_scale else HALF, range_scale=range_scale,
        snap="last" if snapped else "none",
        equal=("label_range_",) if range_scale else (),
        reason=("exact minimizer (residual 1e-6) of a lam-strongly convex objective"
                + (" over a box (variational inequality: (1 + L)/mu)" if box else "")
                + ", mapped to the labels' units by R"
                + (" read off the released label range (a grid choice: equal)" if range_scale
                   else " = 4")
                + ("; output noise snapped to its grid, which R = 4 and the centre 1 keep: "
                   "one step read off the record" if snapped else "")))


def _regressor_case(kind: str, seed: int, tol: Tolerance, *, n: int = 200, **kw: Any
                    ) -> Callable[[], Arrays]:
    """PrivateLinearRegressor / PrivateHuberRegressor / PrivateQuantileRegressor, options
    pinned (the labels mapped around the middle of their range: one release per case; the
    centre released first is checked by its exact and audit tests); with a private label range
    the released range is an array of the case."""
    def run() -> Arrays:
        import dpconvex as dp
        X, y = _regression(seed, n)
        cls = {"linear": dp.PrivateLinearRegressor, "huber": dp.PrivateHuberRegressor,
               "quantile": dp.PrivateQuantileRegressor}[kind]
        params = {"epsilon": 1.0, "label_range": LABELS, "data_norm": 1.0,
                  "fit_intercept": True, "intercept_scaling": 1.0, "lam": 0.05,
                  "solver": "native", "max_iter": None, "random_state": seed + 100,
                  "label_center": "range", **kw}
        est = cls(**params).fit(X, y)
        out = _linear(est)
        if hasattr(est, "label_range_"):
            out["label_range_"] = np.asarray(est.label_range_, dtype=float)
        return out
    return _tol(run, tol)


def _ssp_through(p: int, half: float) -> Callable[[Arrays, str], float]:
    """Sufficient-statistics perturbation: θ = (Π₊(Ã) + λI)⁻¹ b̃ from snapped Ã, b̃.

    One grid step of each snapped entry (g_j <= 2^-20 s_j, s_j the statistic's
    per-coordinate noise scale; the cases' entries lie within 2^12 s_j, where the step is g_j)
    moves Ã by ||δA||_F <= p g_A and b̃ by ||δb|| <= √p g_b; with
    M = Π₊(Ã) + λI (||M⁻¹|| <= 1/λ, Π₊ 1-Lipschitz in Frobenius), ||δθ|| <= (||δb|| +
    ||δA||_F ||θ||)/λ at the same λ (``lam="auto"`` picks among public candidates by an
    estimated risk, a choice one grid step changes only at a near tie). The scales are
    proportional to the sensitivities (Δ_A = √2 q̃², Δ_b = 2q̃; the pure form's norm-Gamma
    coordinate scale carries √k more on A), so s_b <= (√2/q̃) s_A, and λ >= s_A (the
    candidates' floor; the cases with a fixed lam take nΛ = 60 above the certificate's s_A,
    15.8 pure and 11.3 Gaussian): ||δθ|| <= 2^-20 (√(2p)/q̃ + p ||θ||). With the centre 0 and
    s = 1 the release is r = Rθ, so every entry moves by at most 2^-20 (R √(2p)/q̃ + p ||r||),
    ||r|| read off the record.
    """
    a = half * math.sqrt(2.0 * p / Q2)
    b = float(p)

    def through(record: Arrays, name: str) -> float:
        norm = math.sqrt(sum(float(np.sum(np.square(record[k])))
                             for k in ("coef_", "intercept_")))
        return math.ldexp(a + b * norm, -SNAP_BITS)
    return through


def _ssp_case(seed: int, *, delta: float, lam: float | str, epsilon: float = 1.0,
              random_state: int | None = None) -> Callable[[], Arrays]:
    """PrivateLinearRegression (sufficient statistics), labels in (-3, 3): centre 0, R = 3, s = 1."""
    def run() -> Arrays:
        import dpconvex as dp
        X, y = _regression(seed, n=300)
        est = dp.PrivateLinearRegression(
            epsilon=epsilon, delta=delta, label_range=(-3.0, 3.0), data_norm=1.0,
            fit_intercept=True, intercept_scaling=1.0, lam=lam, mechanism="auto",
            random_state=seed + 100 if random_state is None else random_state).fit(X, y)
        return _linear(est)
    return _tol(run, Tolerance(through=_ssp_through(4, 3.0), reason=(
        "closed form (no solver) of statistics snapped to their grids: one step of each, "
        "propagated through the ridge solve (_ssp_through), plus rounding")))


def _constant_through(n: int, epsilon: float) -> Callable[[Arrays, str], float]:
    """The private mean: clip(snap(ū + Laplace(2/(nε))), −1, 1) mapped by u ↦ mid + R u.

    One step of the grid g <= 2^-20 · 2/(nε) (the mean lies within 2^12 noise scales of 0, where
    the step is g), through the 1-Lipschitz clip and the factor R.
    """
    def through(record: Arrays, name: str) -> float:
        return HALF * math.ldexp(2.0 / (n * epsilon), -SNAP_BITS) if name == "constant_" else 0.0
    return through


def _front_door_case(seed: int, tol: Tolerance, *, n: int, epsilon: float, delta: float = 0.0,
                     safeguard: bool | str = "auto", random_state: int | None = None
                     ) -> Callable[[], Arrays]:
    """PrivateRegressor: the learner its rule picks, guarded or not; what it released."""
    def run() -> Arrays:
        import dpconvex as dp
        X, y = _regression(seed, n)
        est = dp.PrivateRegressor(epsilon=epsilon, delta=delta, label_range=LABELS,
                                  data_norm=1.0, safeguard=safeguard,
                                  random_state=seed + 100 if random_state is None
                                  else random_state,
                                  validation_fraction="auto").fit(X, y)
        out: Arrays = {"learner_": np.asarray(est.learner_)}
        inner = est.estimator_
        if hasattr(inner, "coef_"):
            out.update(_linear(inner))
        else:
            out["constant_"] = np.asarray(inner.constant_)
        return out
    return _tol(run, tol)


def _front_door_tol(name: str) -> Tolerance:
    """Median regression (smoothed pinball, lam="auto": μ from the certificate), mapped by
    R = 4; the safeguard's pick (learner_) is a discrete choice (equal); when the pick is
    the private mean, its snap (_constant_through)."""
    return Tolerance(residual=RESIDUAL_TOL, mu=FRONT_DOOR_MU[name], scale=HALF,
                     through=_constant_through(200, 1.0), reason=(
                         "exact minimizer of the chosen learner at the rule's lam, mapped by "
                         "R = 4; the selection's pick equal"))


def _regression_cases() -> dict[str, Callable[[], Arrays]]:
    out: dict[str, Callable[[], Arrays]] = {}
    # PrivateLinearRegressor: every perturbation mechanism, on a box where it is covered
    for mech, box in (("objective", True), ("output", True), ("gaussian_objective", False),
                      ("gaussian_output", True)):
        name = f"linreg-huber-{mech}-native" + ("-box" if box else "")
        kw: dict[str, Any] = {"loss": "huber", "huber_threshold": 0.5, "mechanism": mech,
                              "delta": DELTA if mech.startswith("gaussian") else 0.0,
                              "constraints": _box if box else None}
        out[name] = _regressor_case("linear", _seed(name), _regressor_tol(mech, 0.05, box=box),
                                    **kw)
    out["linreg-pinball-gaussian_objective-native"] = _regressor_case(
        "linear", 1401, _regressor_tol("gaussian_objective", 0.05), loss="pinball",
        quantile=0.3, mechanism="gaussian_objective", delta=DELTA)
    out["huberreg-objective-native"] = _regressor_case(
        "huber", 1402, _regressor_tol("objective", 0.05), huber_threshold=0.5,
        mechanism="objective")
    out["quantilereg-objective-native"] = _regressor_case(
        "quantile", 1403, _regressor_tol("objective", 0.05), quantile=0.3, smoothing=0.05,
        mechanism="objective")
    out["quantilereg-output-native"] = _regressor_case(
        "quantile", 1404, _regressor_tol("output", 0.05), quantile=0.3, smoothing=0.05,
        mechanism="output")
    # private label bounds: the range released inside the fit, then the model on it
    out["huberreg-objective-native-privatelabels"] = _regressor_case(
        "huber", 1405, _regressor_tol("objective", 0.05, range_scale="label_range_"), n=600,
        epsilon=3.0, label_range="private", huber_threshold=0.5, mechanism="objective")
    out["quantilereg-objective-native-privatebounds"] = _regressor_case(
        "quantile", 1406, _regressor_tol("objective", 0.05, range_scale="label_range_"),
        n=600, epsilon=2.0, quantile=0.3, smoothing=0.05, mechanism="objective",
        label_range=_private_bounds())
    # sufficient-statistics perturbation: pure and Gaussian, chosen and fixed ridge
    for delta, tag in ((0.0, "pure"), (DELTA, "gaussian")):
        out[f"ssp-{tag}-lamauto"] = _ssp_case(_seed(f"ssp-{tag}-lamauto"), delta=delta,
                                              lam="auto")
        out[f"ssp-{tag}-lam02"] = _ssp_case(_seed(f"ssp-{tag}-lam02"), delta=delta, lam=0.2)
    # the regression front door: the constant, the guarded learner (pure and Gaussian), and
    # the learner without the safeguard
    out["regressor-constant"] = _front_door_case(
        1410, Tolerance(through=_constant_through(60, 0.3), equal=("learner_",), reason=(
            "the private mean, snapped then clipped and mapped by R (_constant_through)")),
        n=60, epsilon=0.3)
    out["regressor-guarded"] = _front_door_case(1411, _front_door_tol("regressor-guarded"),
                                                n=200, epsilon=1.0)
    out["regressor-guarded-gaussian"] = _front_door_case(
        1412, _front_door_tol("regressor-guarded-gaussian"), n=5000, epsilon=1.0, delta=DELTA)
    out["regressor-unguarded"] = _front_door_case(
        1413, _front_door_tol("regressor-unguarded"), n=200, epsilon=1.0, safeguard=False)
    return out


def _private_bounds() -> Any:
    import dpconvex as dp
    return dp.PrivateBounds(share=0.2, levels=(0.05, 0.95))


# ------------------------------------------------------------- naive Bayes
def _nb_through(record: Arrays, name: str) -> float:
    """PrivateGaussianNB: V = (S̃_c, Q̃_c, w ñ_c) snapped on one grid g, then divided.

    The counts ñ = V[:, 2d]/w are on the grid g/w: g <= w · grid_step(class_count_) (w = 1,
    the class-sum mechanisms' count weight), and m_c = max(ñ_c, f) >= min ñ. One step of
    each entry moves μ = clip(S̃/m) by <= (g/m)(1 + 1/w), M = clip((Q̃/m + 1)/2) by
    <= (g/m)(1 + 1/w)/2, v = max(M − μ², φ) + e/m² by <= (g/m)(1 + 1/w)(1/2 + 2|μ|) +
    2 (e/m²) g/(w m), with |μ| <= 1 and e/m² <= v; theta_ = lo + h(μ + 1), var_ = h² v
    (feature_range (−1, 1): h = 1); class_count_ itself ends with the snap (one step).
    """
    counts = np.asarray(record["class_count_"], dtype=float)
    w, half = 1.0, 1.0
    g = w * grid_step(counts)
    x = g / float(np.min(counts))
    if name == "theta_":
        return half * x * (1.0 + 1.0 / w)
    if name == "var_":
        v_max = float(np.max(record["var_"])) / half**2
        return half**2 * (2.5 * x * (1.0 + 1.0 / w) + 2.0 * v_max * x / w)
    return grid_step(counts)


def _nb_case(seed: int, *, mechanism: str, delta: float | None,
             random_state: int | None = None) -> Callable[[], Arrays]:
    def run() -> Arrays:
        import dpconvex as dp
        X, y = _multiclass(seed, n=300)
        est = dp.PrivateGaussianNB(epsilon=1.0, delta=delta, mechanism=mechanism,
                                   feature_range=(-1.0, 1.0), var_floor=0.03,
                                   priors="empirical", classes=[0, 1, 2],
                                   random_state=seed + 100 if random_state is None
                                   else random_state).fit(X, y)
        return {"theta_": np.asarray(est.theta_), "var_": np.asarray(est.var_),
                "class_count_": np.asarray(est.class_count_)}
    return _tol(run, Tolerance(through=_nb_through, reason=(
        "class sums and counts snapped on one grid, then divided (_nb_through)")))


# ------------------------------------------------------------ private schema
#: The columns of the schema case and what each releases (all discrete: grid edges, flags,
#: categories).
SCHEMA_ARRAYS = ("a_range", "a_log", "b_range", "b_log", "c_vocabulary", "c_other",
                 "f_positive")


def _schema_case(random_state: int = 1421, epsilon: float = 1.0) -> Callable[[], Arrays]:
    """dp.draft_schema: two ranges (octave grid, refined by quantiles where the budget
    resolves them), one stable vocabulary, one binary column."""
    def run() -> Arrays:
        return _schema(random_state, epsilon)
    return _tol(run, Tolerance(equal=SCHEMA_ARRAYS, reason=(
        "every released number is a choice from a public finite set (octave-grid and cell "
        "edges, categories seen, flags): equal")))


def _schema(random_state: int, epsilon: float) -> Arrays:
    import pandas as pd

    import dpconvex as dp
    from dpconvex.data.schema import Binary, Categorical, Numeric
    rng = np.random.default_rng(1420)
    n = 3000
    df = pd.DataFrame({"a": rng.uniform(0, 50, n), "b": rng.normal(3, 2, n),
                       "c": rng.choice(["x", "y", "z", "w"], n, p=[0.5, 0.3, 0.195, 0.005]),
                       "f": rng.random(n) < 0.3})
    schema = dp.draft_schema(df, epsilon=epsilon, delta=1e-6, levels=(0.01, 0.99),
                             kinds={"c": "categorical"}, random_state=random_state)
    out: Arrays = {}
    for col, spec in schema.declarations.items():
        if isinstance(spec, Numeric):
            out[f"{col}_range"] = np.array([spec.low, spec.high], dtype=float)
            out[f"{col}_log"] = np.asarray(bool(spec.log))
        elif isinstance(spec, Categorical):
            out[f"{col}_vocabulary"] = np.array([str(v) for v in spec.vocabulary])
            out[f"{col}_other"] = np.asarray(bool(spec.other))
        elif isinstance(spec, Binary):
            out[f"{col}_positive"] = np.asarray(str(spec.positive))
    return out


# --------------------------------------------------- classification front door
#: Strong-convexity modulus of the classification front door's learner (the softmax
#: template at its rule's Λ): its certificate's "strong convexity mu", rounded down.
CLASSIFIER_MU = 0.0348


def _classifier_case(seed: int, random_state: int | None = None) -> Callable[[], Arrays]:
    """PrivateClassifier with its safeguard: the learner its rule picks and what it released."""
    def run() -> Arrays:
        import dpconvex as dp
        X, y = _multiclass(seed, n=300)
        est = dp.PrivateClassifier(epsilon=1.0, delta=0.0, classes=[0, 1, 2], data_norm=1.0,
                                   random_state=seed + 100 if random_state is None
                                   else random_state, safeguard="auto",
                                   selection_share=0.15, row_norm="auto").fit(X, y)
        out: Arrays = {"learner_": np.asarray(est.learner_)}
        for name in ("Phi_", "centers_", "means_", "counts_", "coef_", "intercept_",
                     "constant_"):
            value = getattr(est.estimator_, name, None)
            if value is not None:
                out[name] = np.asarray(value)
        return out
    return _tol(run, dataclasses.replace(_softmax_tol(CLASSIFIER_MU, 3), reason=(
        "the softmax template's exact minimizer at the rule's lam (its (1 + L)/mu bound and "
        "PSD shift); the safeguard's pick (learner_) equal")))


def cases() -> dict[str, Callable[[], Arrays]]:
    """All oracle cases: name -> callable returning the released arrays."""
    out: dict[str, Callable[[], Arrays]] = {}
    out.update(_linear_cases())
    out.update(_gaussian_linear_cases())
    out.update(_lmg_cases())
    out.update(_softmax_cases())
    out.update(_centroid_cases())
    out.update(_ngd_cases())
    out.update(_meta_cases())
    out.update(_regression_cases())
    out["gaussiannb-knorm_sup_sum"] = _nb_case(1415, mechanism="knorm_sup_sum", delta=None)
    out["gaussiannb-gaussian"] = _nb_case(1416, mechanism="gaussian", delta=DELTA)
    out["schema-draft"] = _schema_case()
    out["classifier-guarded"] = _classifier_case(1425)
    out["gridsearch-private"] = _grid(False, 500)
    out["gridsearch-public"] = _grid(True, 510)
    out["pipeline-rff-logreg"] = _pipeline
    out["sweep-logreg-objective"] = _sweep("objective", 600)
    out["sweep-logreg-output"] = _sweep("output", 601)
    out["sweep-logreg-objective-coldstart"] = _sweep("objective", 602, warm_start=False)
    out["sweep-lmg-native"] = _sweep("lmg", 603)
    for i, mech in enumerate(("objective", "output", "none")):
        out[f"template-linear-{mech}"] = _template_case("linear", mech, 700 + i)
        out[f"template-lmg-{mech}"] = _template_case("lmg", mech, 710 + i)
    out["template-linear-objective-clarabel"] = _template_case("linear", "objective", 720,
                                                               "clarabel")
    out["template-lmg-objective-auto"] = _template_case("lmg", "objective", 721, "auto")
    return out
