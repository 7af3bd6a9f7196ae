"""An estimator's release step as an auditable mechanism (one ``release`` call per run).

:class:`EstimatorReleaseMechanism` audits exactly what an estimator releases
with its *defaults*: the template is built by the estimator's public ``plan`` and
``prepare`` (clipping, the public feature map, Λ of ``lam="auto"``), the budget is the
plan's objective-perturbation share, and
each run is one :func:`dpconvex.privacy.release.release` with the estimator's
mechanism — the path of ``fit``. Only the template and the public steps are
cached (:class:`~dpconvex.audit._memo.Audited`), so a run costs one solve
instead of one ``fit``. The output with ``np.random.default_rng(seed)`` is the
parameter vector θ whose post-processing is the estimator's ``Phi_`` with
``random_state=seed`` (tests/audit/test_audit_large_margin_softmax.py).

It also gives the white-box statistic of the change of variables of
objective perturbation ([CMS]_ §3.2; docs/privacy.md §11.3, §11.12): with
b_X(θ) = −n ∇J_X(θ) the noise that makes θ the minimizer on X,

* pure (norm-Gamma noise, density ∝ exp(−β‖b‖)):
  ln f_D(θ)/f_D′(θ) = β(‖b_D′(θ)‖ − ‖b_D(θ)‖) + ln det ∇²J_D(θ) − ln det ∇²J_D′(θ);
* Gaussian (b ~ N(0, σ²I)):
  (‖b_D′(θ)‖² − ‖b_D(θ)‖²)/(2σ²) + the same log-determinants,

exact for the unconstrained softmax template (b ↦ θ is a bijection). By
Neyman–Pearson, thresholding it gives the most powerful events for the pair;
any statistic gives a valid bound.

References
----------
.. [CMS] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially Private
   Empirical Risk Minimization. JMLR 12 (2011), §3.2 (change of variables).
.. [JUO20] M. Jagielski, J. Ullman, A. Oprea. Auditing Differentially Private
   Machine Learning: How Private is Private SGD? NeurIPS 2020.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ParameterError
from ..privacy.budget import Budget
from ..privacy.mechanisms import Calibration
from ..privacy.release import release
from ._memo import Audited, OnceUnperturbed, backend_for, check_noise_scale, data_key
from .statistics import gaussian_noise_term, objective_llr, pure_noise_term

if TYPE_CHECKING:
    from ..estimators.large_margin.estimator import PrivateLargeMarginGaussian
    from ..templates.base import SmoothTemplate

__all__ = ["EstimatorReleaseMechanism"]

Data = tuple[np.ndarray, np.ndarray]


class EstimatorReleaseMechanism:
    """The release of a :class:`~dpconvex.PrivateLargeMarginGaussian` with its parameters.

    Per data set the template is built once by the estimator's ``plan_for`` and
    ``prepare`` (Λ and the budget from the plan); each run is one
    :func:`~dpconvex.privacy.release.release` of the estimator's mechanism
    (noise, solve, residual check), output θ flattened.

    Parameters
    ----------
    estimator : PrivateLargeMarginGaussian
        Unfitted, with the parameters to audit (``random_state`` is ignored). The
        build must be reusable (it draws no randomness and spends no budget): K = 1,
        or K > 1 with public ``centers``, on the objective path (the centroid release
        of docs/privacy.md §11.13 is audited through ``PrivateGaussianCentroid``).
    noise_scale : float, default=1.0
        Multiplies every noise draw (norm-Gamma rate β/s, Gaussian std s·σ)
        while the claimed (ε, δ) stays the library's: s < 1 is a deliberately
        MIS-CALIBRATED mechanism, to check that an audit has power.

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import PrivateLargeMarginGaussian
    >>> from dpconvex.audit import EstimatorReleaseMechanism, large_margin_pair
    >>> X, y, X_prime, y_prime = large_margin_pair(8, 2, random_state=0)
    >>> mech = EstimatorReleaseMechanism(PrivateLargeMarginGaussian(epsilon=1.0, classes=[0, 1]))
    >>> mech.sample((X, y), 3, np.random.default_rng(0)).shape  # theta of each run, flattened
    (3, 6)
    """

    def __init__(self, estimator: PrivateLargeMarginGaussian, *, noise_scale: float = 1.0):
        from ..estimators.large_margin.estimator import PrivateLargeMarginGaussian

        owner = type(self).__name__
        if not isinstance(estimator, PrivateLargeMarginGaussian):
            raise ParameterError(f"The 'estimator' parameter of {owner} must be an unfitted "
                                 f"PrivateLargeMarginGaussian. Got {type(estimator).__name__}.")
        estimator._validate_params()
        self.estimator = estimator
        self.noise_scale = check_noise_scale(noise_scale, owner)
        self._library = estimator._mechanism()
        self._mech = Audited(self._library, self.noise_scale)
        self._cache: dict[str, tuple[Any, Budget, OnceUnperturbed]] = {}

    @property
    def pure(self) -> bool:
        """True for pure ε-DP (norm-Gamma noise), False for the Gaussian mechanism."""
        return bool(self._library.pure)

    def prepare(self, data: Data) -> tuple[Any, Budget, OnceUnperturbed]:
        """(template, budget, backend) of ``data`` as ``fit`` builds them, cached."""
        from ..estimators.large_margin.learners import CENTROID_LEARNER, objective_part

        X, y = (np.asarray(a) for a in data)
        key = data_key(np.asarray(X, dtype=float), y)
        if key not in self._cache:
            plan = self.estimator.plan_for(X, y)  # the public plan of fit (Λ, budget)
            prep = self.estimator.prepare(X, y, plan)
            if not prep.reusable or plan.learner == CENTROID_LEARNER:
                raise ValueError("EstimatorReleaseMechanism.prepare: the build draws randomness or "
                                 "spends budget (DP k-means), or releases class centroids (no "
                                 "template); audit K = 1 or public centers on the objective "
                                 "path, e.g. mechanism='gaussian_objective'.")
            t = prep.template
            budget = objective_part(plan)
            self._cache[key] = (t, budget, backend_for(self.estimator.solver, t))
        return self._cache[key]

    def calibration(self, data: Data) -> Calibration:
        """The calibration the runs use (the library's, times ``noise_scale``)."""
        t, budget, _ = self.prepare(data)
        cal = self._mech.calibrate(t, budget)
        assert cal is not None
        return cal

    def budget(self, data: Data) -> Budget:
        """The claimed (ε, δ) of one release on ``data``."""
        return self.prepare(data)[1]

    def sample(self, data: Data, n_runs: int, rng: np.random.Generator) -> np.ndarray:
        """``n_runs`` independent releases θ (one ``release`` each), shape (n_runs, p)."""
        t, budget, backend = self.prepare(data)
        out = np.empty((n_runs, int(t.dimension)))
        for r in range(n_runs):
            theta = release(t, self._mech, budget, backend, rng).theta
            assert theta is not None
            out[r] = np.ravel(theta)
        return out

    def __call__(self, data: Data, rng: np.random.Generator) -> np.ndarray:
        return self.sample(data, 1, rng)[0]

    def log_likelihood_ratio(self, D: Data, D_prime: Data) -> Callable[[np.ndarray], float]:
        """The statistic ln f_D(θ)/f_D′(θ) of one release (module docstring), rounded.

        Computed from the runs' calibration (so for a mis-calibrated mechanism it is
        the mutant's own log-likelihood ratio) and the two templates; rounded to
        :data:`~dpconvex.audit.statistics.LLR_DECIMALS` decimals.

        Parameters
        ----------
        D, D_prime : tuple (X, y)

        Returns
        -------
        callable
            One θ -> float.
        """
        tD, _, _ = self.prepare(D)
        tDp, _, _ = self.prepare(D_prime)
        cal = self.calibration(D)
        delta_reg = float(cal.extra_strong_convexity)
        noise = (pure_noise_term(float(cal.noise_rate)) if self.pure
                 else gaussian_noise_term(float(cal.extra["noise std"])))

        def logdet(t: SmoothTemplate, th: np.ndarray, extra: float) -> float:
            hv = t.hessp(th, extra)
            H = np.column_stack([np.ravel(hv(e)) for e in np.eye(th.size)])
            return float(np.linalg.slogdet(0.5 * (H + H.T))[1])

        return objective_llr(tD, delta_reg, tDp, delta_reg, noise, logdet)
