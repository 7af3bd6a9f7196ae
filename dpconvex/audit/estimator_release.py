"""An estimator's release step as an auditable mechanism (one ``release`` call per run).

:class:`EstimatorReleaseMechanism` audits exactly what an estimator releases with its
parameters: the template built by the estimator's public ``plan`` and ``prepare``, the plan's
objective-perturbation budget, and per run one :func:`dpconvex.privacy.release.release` with
the estimator's mechanism — the path of ``fit``, post-processing onto the parameter set
included, at the cost of one solve (only the public steps are cached,
:class:`~dpconvex.audit._memo.Audited`). With ``np.random.default_rng(seed)`` the output is
the θ behind the estimator's model with ``random_state=seed`` (tests/audit/).

It also gives the white-box statistic of the change of variables of
objective perturbation ([CMS]_ Section 3.2;
docs/privacy/large_margin_softmax.md#privacy-softmax-gaussian-objective,
privacy-softmax-audit): with b_X(θ) = −n ∇J_X(θ) the noise that makes θ the minimizer on
X,

* pure (norm-Gamma noise, density ∝ exp(−β‖b‖)):
  ln f_D(θ)/f_D′(θ) = β(‖b_D′(θ)‖ − ‖b_D(θ)‖) + ln det ∇²J_D(θ) − ln det ∇²J_D′(θ);
* Gaussian (b ~ N(0, σ²I)):
  (‖b_D′(θ)‖² − ‖b_D(θ)‖²)/(2σ²) + the same log-determinants,

exact for an unconstrained template (softmax, linear ERM without ``constraints``:
b ↦ θ is a bijection). By Neyman–Pearson, thresholding it gives the most powerful
events for the pair; any statistic gives a valid bound. Over a parameter set the
minimizer sits on the boundary for a set of noises of positive probability (the
normal cone there), b ↦ θ is no longer a bijection and the released law has mass
on the boundary: audit those releases with a threshold statistic on a projection
of θ (e.g. ``lambda theta: theta[0]``), which is valid for any mechanism.

References
----------
.. [CMS] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially Private
   Empirical Risk Minimization. JMLR 12 (2011), Section 3.2 (change of variables).
.. [JUO20] M. Jagielski, J. Ullman, A. Oprea. Auditing Differentially Private
   Machine Learning: How Private is Private SGD? NeurIPS 2020.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from .._validation import check_float
from ..errors import ParameterError
from ..estimators.base import PrivateEstimator
from ..privacy.budget import Budget
from ..privacy.mechanisms import Calibration
from ._memo import Audited, OnceUnperturbed, Sampled, backend_for, data_key
from .statistics import gaussian_noise_term, objective_llr, pure_noise_term

if TYPE_CHECKING:
    from ..templates.base import SmoothTemplate

__all__ = ["EstimatorReleaseMechanism"]

Data = tuple[np.ndarray, np.ndarray]


class EstimatorReleaseMechanism(Sampled):
    """The release of a private estimator with its parameters: plan, prepare, one ``release`` per run.

    The template is built once per data set; each run outputs the released θ, flattened
    (module docstring).

    Parameters
    ----------
    estimator : PrivateEstimator
        Unfitted, with the parameters to audit (``random_state`` is ignored): a
        :class:`~dpconvex.PrivateLargeMarginGaussian`, a
        :class:`~dpconvex.PrivateLinearRegressor` or a binary linear classifier
        (:class:`~dpconvex.PrivateLogisticRegression`, :class:`~dpconvex.PrivateHuberSVM`,
        :class:`~dpconvex.PrivateLinearClassifier`). The build must be reusable (it
        draws no randomness, spends no budget and does not depend on ε): K = 1, or
        K > 1 with public ``centers``, on the objective path (the centroid release
        of docs/privacy/large_margin_softmax.md#privacy-centroid-switch is audited
        through ``PrivateGaussianCentroid``); a number for ``lam`` on the linear
        learners.
    noise_scale : float, default=1.0
        Multiplies every noise draw (norm-Gamma rate β/s, Gaussian std s·σ)
        while the claimed (ε, δ) stays the library's: s < 1 is a deliberately
        MIS-CALIBRATED mechanism, to check that an audit has power.

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import PrivateLargeMarginGaussian, PrivateLinearRegressor
    >>> from dpconvex.audit import EstimatorReleaseMechanism, large_margin_pair, linear_erm_pair
    >>> X, y, X_prime, y_prime = large_margin_pair(8, 2, random_state=0)
    >>> mech = EstimatorReleaseMechanism(PrivateLargeMarginGaussian(epsilon=1.0, classes=[0, 1]))
    >>> mech.sample((X, y), 3, np.random.default_rng(0)).shape  # theta of each run, flattened
    (3, 6)
    >>> X, y, X_prime, y_prime = linear_erm_pair(10, 1)  # labels at the ends of (-1, 1)
    >>> reg = PrivateLinearRegressor(epsilon=1.0, lam=0.5, fit_intercept=False,
    ...                              constraints=lambda w: [w >= 0])
    >>> theta = EstimatorReleaseMechanism(reg).sample((X, y), 4, np.random.default_rng(0))
    >>> theta.shape, bool((theta >= 0).all())  # projected onto the orthant
    ((4, 1), True)
    """

    def __init__(self, estimator: PrivateEstimator, *, noise_scale: float = 1.0):
        owner = type(self).__name__
        if not isinstance(estimator, PrivateEstimator) or not callable(
                getattr(estimator, "_mechanism", None)):
            raise ParameterError(
                f"The 'estimator' parameter of {owner} must be an unfitted private estimator "
                "that releases one template (PrivateLargeMarginGaussian, PrivateLinearRegressor, "
                f"PrivateLogisticRegression, PrivateHuberSVM, PrivateLinearClassifier). Got "
                f"{type(estimator).__name__}.")
        estimator._validate_params()
        self.estimator = estimator
        self.noise_scale = check_float("noise_scale", noise_scale, owner)
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
            if plan.sub_plans:
                raise ParameterError(
                    "EstimatorReleaseMechanism.prepare: the plan fits one binary model per class "
                    f"(one-vs-rest, {plan.n_classes} classes), not one release. Audit a binary "
                    "problem: two labels, or classes= with two entries.")
            prep = self.estimator.prepare(X, y, plan)
            if not prep.reusable or plan.learner == CENTROID_LEARNER or prep.template is None:
                raise ParameterError(
                    "EstimatorReleaseMechanism.prepare: the build draws randomness or spends "
                    "budget (DP k-means), releases class centroids (no template), or depends on ε "
                    "(lam='auto' on a linear learner), so it cannot serve every run. Audit K = 1 "
                    "or public centers on the objective path (e.g. "
                    "mechanism='gaussian_objective'), or pass a number for lam.")
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

    def _runs(self, data: Data) -> tuple[Any, Audited, Budget, OnceUnperturbed, int]:
        t, budget, backend = self.prepare(data)
        return t, self._mech, budget, backend, int(t.space.dimension)

    def log_likelihood_ratio(self, D: Data, D_prime: Data) -> Callable[[np.ndarray], float]:
        """The statistic ln f_D(θ)/f_D′(θ) of one release (module docstring), rounded.

        From the runs' calibration (for a mis-calibrated mechanism, the mutant's own ratio)
        and the two templates, rounded to :data:`~dpconvex.audit.statistics.LLR_DECIMALS`
        decimals; one θ -> float. Objective perturbation on an unconstrained template only;
        anything else raises :class:`~dpconvex.errors.ParameterError`.
        """
        tD, _, _ = self.prepare(D)
        tDp, _, _ = self.prepare(D_prime)
        if self._library.adds_output_noise or not (self._library.private and self._library.solves):
            raise ParameterError(
                "EstimatorReleaseMechanism.log_likelihood_ratio: the statistic is the change of "
                "variables of objective perturbation, and the estimator's mechanism is "
                f"'{self._library.name}'. Pass a threshold statistic on a projection of θ "
                "instead (e.g. lambda theta: theta[0]).")
        if not all("hessp" in t.capabilities for t in (tD, tDp)):
            raise ParameterError(
                "EstimatorReleaseMechanism.log_likelihood_ratio: the change of variables b -> θ "
                "is a bijection only for an unconstrained minimizer; over the parameter set of "
                "'constraints' the released law has mass on the boundary. Pass a threshold "
                "statistic on a projection of θ instead (e.g. lambda theta: theta[0]).")
        cal = self.calibration(D)
        delta_reg = float(cal.extra_strong_convexity)
        noise = (pure_noise_term(float(cal.noise_rate)) if self.pure
                 else gaussian_noise_term(float(cal.extra["noise std"])))

        def logdet(t: SmoothTemplate, th: np.ndarray, extra: float) -> float:
            hv = t.hessp(th, extra)
            H = np.column_stack([np.ravel(hv(e)) for e in np.eye(th.size)])
            return float(np.linalg.slogdet(0.5 * (H + H.T))[1])

        return objective_llr(tD, delta_reg, tDp, delta_reg, noise, logdet)
