"""Approximate-minima perturbation ([INS+19]_ Alg. 1), pure and Gaussian.

The budget is split: (1 - fraction) for the inner mechanism (objective or output
perturbation) and ``fraction`` for extra output noise covering the distance ρ <=
``template.distance_bound(γ, μ)`` between the released point and the exact minimizer; the
solve must reach residual <= γ. The pure cover is norm-Gamma noise of rate ε₂/(2ρ)
(docs/privacy/accuracy_randomness.md#privacy-accuracy-randomness); the Gaussian cover
(:class:`GaussianApproximateMinima`) is the analytic Gaussian σ ([BW18]_) for the
sensitivity 2ρ at a share of (ε, δ) (adaptive composition:
docs/privacy/gaussian_linear.md#privacy-gaussian-amp).

References
----------
.. [INS+19] R. Iyengar, J. P. Near, D. Song, O. Thakkar, A. Thakurta, L. Wang.
   Towards Practical Differentially Private Convex Optimization. IEEE S&P 2019.
.. [BW18] B. Balle, Y.-X. Wang. Improving the Gaussian Mechanism for
   Differential Privacy. ICML 2018, Theorem 8.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ..._validation import check_float
from ...errors import ParameterError, PrivacyError
from ...solvers.registry import Backend, SolveResult
from ..accounting.analytic_gaussian import analytic_gaussian_delta, analytic_gaussian_sigma
from ..budget import Budget, split_budget
from ..certificate import Certificate, Condition
from ..composition import compose_sequential
from ..noise import Gaussian, Noise, NoiseSum, NormGamma
from .base import (
    Calibration,
    Mechanism,
    calibrated_constants,
    get_mechanism,
    register,
    require_exact,
)
from .facts import public_number

if TYPE_CHECKING:
    from ...templates.base import ObjectiveTemplate
    from .base import ConstantsSource

__all__ = ["ApproximateMinima", "GaussianApproximateMinima"]

#: The key of the residual γ a cover's distance bound ρ = ``distance_bound(γ, μ)`` is read at,
#: in its :attr:`Calibration.extra` (with ``"mu"`` and ``"radius"``: what the release compares
#: with the distance per unit of residual the checks read).
GAMMA_KEY = "optimality_tol gamma"


@register
class ApproximateMinima(Mechanism["ObjectiveTemplate"]):
    """Approximate-minima perturbation around an inner perturbation mechanism.

    Parameters
    ----------
    inner : str
        The inner mechanism's registry name: any registered mechanism that places its noise
        on the objective or the output, calibrates on a grid of moduli
        (:meth:`~Mechanism.calibrate_grid`) and is pure (:class:`GaussianApproximateMinima`:
        (ε, δ)), e.g. "objective" or "output". An output-placement inner's calibration holds
        the law of the noise it adds to the minimizer (:attr:`Calibration.noise`; the cover is
        added to it before the one snap).
    gamma : float
        Optimality residual the solve must reach (``optimality_tol``).
    fraction : float
        Share of ε spent on the cover noise, in (0, 1).

    Examples
    --------
    >>> # template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y): conftest.py
    >>> mech = get_mechanism("amp", inner="objective", fraction=0.1)
    >>> mech.wraps, mech.pure
    (True, True)
    >>> rel = release(template, mech, Budget(1.0), rng=0)
    >>> rel.theta.shape, rel.certificate.epsilon <= 1.0
    ((3,), True)
    """

    name = "amp"
    wraps = True

    def __init__(self, inner: str = "objective", gamma: float = 1e-4, fraction: float = 0.1):
        self.gamma = check_float("optimality_tol", gamma, "the approximate-minima mechanism")
        self.fraction = check_float(
            "amp_fraction", fraction, "the approximate-minima mechanism", high=1.0
        )
        self.inner = self._check_inner(get_mechanism(inner, type(self).__name__))

    @property
    def needs(self) -> frozenset[str]:  # type: ignore[override]
        """The inner mechanism's needs and the distance bound (derived from ``inner``, never set)."""
        return self.inner.needs | {"distance_bound"}

    @property
    def placement(self) -> str:  # type: ignore[override]
        """The inner mechanism's placement of its noise."""
        return self.inner.placement

    def _check_inner(self, mech: Mechanism) -> Mechanism:
        """The inner mechanism: reports objective or output noise (its calibration on a grid of
        moduli), and is pure as this cover."""
        kind = "pure epsilon-DP" if self.pure else "(epsilon, delta)-DP"
        if (mech.wraps or not mech.private or mech.pure != self.pure
                or type(mech).calibrate_grid is Mechanism.calibrate_grid
                or not mech.amp_derived or mech.placement not in ("objective", "output")):
            raise ParameterError(
                f"{type(self).__name__}.__init__: the inner mechanism {mech.name!r} cannot be "
                "covered: "
                f"approximate minima wraps a {kind} mechanism that places its noise on the "
                "objective or the output and calibrates on a grid of moduli (calibrate_grid), "
                "and whose cover is derived "
                "(amp_derived). Use optimality_tol=None with it."
            )
        return mech

    def _split(self, budget: Budget) -> tuple[Budget, Budget]:
        main, cover = split_budget(budget, (1.0 - self.fraction, self.fraction))
        return main, cover

    def conditions(self, template: ObjectiveTemplate, budget: Budget) -> list[Condition]:
        """The inner mechanism's conditions at its share (1 − fraction) of the budget, once the
        cover can serve ``template``: it declares a distance bound, and ``optimality_tol`` is
        not below the tolerance its solvers aim for.

        Parameters
        ----------
        template : ObjectiveTemplate
            The problem (its ``distance_bound`` and ``residual_tol``).
        budget : Budget
            The (ε, δ) of the whole release.

        Returns
        -------
        list of Condition
            The inner mechanism's (:meth:`Mechanism.conditions`).

        Raises
        ------
        ParameterError
            The inner mechanism cannot be covered, or ``optimality_tol`` is below the
            template's ``residual_tol``.
        PrivacyError
            The template declares no ``distance_bound``.

        Examples
        --------
        >>> # template: LinearERMTemplate(Logistic(), 0.1, 1.0, X, y), conftest.py
        >>> conditions = get_mechanism("amp").conditions(template, Budget(1.0))
        >>> "row norm bound" in [c.name for c in conditions], all(c.holds for c in conditions)
        (True, True)

        References
        ----------
        .. [1] R. Iyengar, J. P. Near, D. Song, O. Thakkar, A. Thakurta and L. Wang, "Towards
           practical differentially private convex optimization", IEEE S&P 2019, Algorithm 1.
        """
        self._check_inner(self.inner)  # as built, or set since
        if getattr(template, "distance_bound", None) is None:
            raise PrivacyError(
                f"{type(self).__name__}.conditions: template '{template.name}' declares no "
                "distance_bound("
                "residual, mu) relating its optimality residual to the distance from the exact "
                "minimizer, so AMP cannot cover an inexact solve. Use optimality_tol=None "
                "(exact-minimizer mode)."
            )
        if self.gamma < template.residual_tol:  # public: the parameter and the template's class
            raise ParameterError(
                f"{type(self).__name__}.conditions: optimality_tol={self.gamma:g} is below the "
                "tolerance "
                f"{template.residual_tol:g} the solvers aim for on template '{template.name}', so "
                "a "
                "solve would meet it by chance and whether a model is released would depend on "
                "the "
                f"data. Use optimality_tol >= {template.residual_tol:g}, or None (the exact "
                "minimizer)."
            )
        return self.inner.conditions(template, self._split(budget)[0])

    def calibrate(self, template: ObjectiveTemplate, budget: Budget) -> Calibration:
        """The inner mechanism's calibration at (1 − fraction) of the budget, and the cover's
        at ``fraction``: the cover masks a distance ρ = ``distance_bound(gamma, mu)`` to the
        exact minimizer of the perturbed objective (sensitivity 2ρ), at the modulus μ the
        inner calibration gives.

        Parameters
        ----------
        template : ObjectiveTemplate
            The problem (its declared constants; no rows are read).
        budget : Budget
            The (ε, δ) of the whole release.

        Returns
        -------
        Calibration
            ε and δ the sums of the two parts'; the noise law the inner one's (the one that
            masks the data); its n the inner one's; ``extra`` holds the inner calibration, the
            two budgets, μ, γ (:data:`GAMMA_KEY`) and ρ, read once as a built-in float.

        Raises
        ------
        PrivacyError
            ``distance_bound(gamma, mu)`` is not a finite float > 0 (of an exact type).

        Examples
        --------
        >>> # template: LinearERMTemplate(Logistic(), 0.1, 1.0, X, y), conftest.py
        >>> cal = get_mechanism("amp").calibrate(template, Budget(1.0))
        >>> cal.epsilon, cal.extra["inner"].mechanism, cal.sensitivity == 2 * cal.extra["radius"]
        (1.0, 'objective', True)

        References
        ----------
        .. [1] R. Iyengar, J. P. Near, D. Song, O. Thakkar, A. Thakurta and L. Wang, "Towards
           practical differentially private convex optimization", IEEE S&P 2019, Algorithm 1
           and Theorem 1.
        """
        main, cover = self._split(budget)
        cal = self.inner.calibrate(template, main)
        assert cal is not None
        mu = calibrated_constants(template, cal).strong_convexity + cal.extra_strong_convexity
        # the solve's distance bound ρ, read once: the cover, the certificate and the release's
        # comparison with the distance the checks read (release.py) read the calibration
        radius = public_number(template.distance_bound(self.gamma, mu),
                               f"{type(self).__name__}.calibrate",
                               f"distance_bound({self.gamma:g}, {mu:.6g})")
        rate, extra = self._cover_noise(cover, 2.0 * radius)
        # the noise that masks the data is the inner mechanism's at its share of the budget:
        # the cover masks the solver's error, and is not in the law the rules weigh
        return Calibration(
            mechanism=self.name, epsilon_requested=budget.epsilon,
            epsilon=cal.epsilon + cover.epsilon, epsilon_noise=cal.epsilon_noise,
            slack=cal.slack, extra_strong_convexity=cal.extra_strong_convexity,
            sensitivity=2.0 * radius, noise_rate=rate, delta=cal.delta + cover.delta,
            extra={"inner": cal, "main": main, "cover": cover, "mu": mu, "radius": radius,
                   GAMMA_KEY: self.gamma, **extra},
            constants=cal.constants, noise=cal.noise, noise_shape=cal.noise_shape, n=cal.n)

    def calibrate_grid(self, problem: ConstantsSource, budget: Budget,
                       moduli: np.ndarray) -> Calibration:
        """The inner mechanism's calibration on the grid at its share (1 − fraction) of the
        budget (the cover masks the solver's error, not the data).

        Parameters
        ----------
        problem : Template or PrivacyConstants
            The problem (its declared constants).
        budget : Budget
            The (ε, δ) of the whole release; the inner mechanism calibrates at its share.
        moduli : ndarray
            The moduli of the grid.

        Returns
        -------
        Calibration
            The inner mechanism's, its fields arrays over ``moduli``.

        Examples
        --------
        >>> # template: LinearERMTemplate(Logistic(), 0.1, 1.0, X, y), conftest.py
        >>> cal = get_mechanism("amp").calibrate_grid(template, Budget(1.0), np.array([0.1, 1.0]))
        >>> cal.mechanism, cal.epsilon.tolist()
        ('objective', [0.9, 0.9])
        """
        return self.inner.calibrate_grid(problem, self._split(budget)[0], moduli)

    def _cover_noise(self, cover: Budget, sensitivity: float) -> tuple[float, dict[str, Any]]:
        """(rate, extra quantities) of the cover noise for the sensitivity 2ρ: norm-Gamma of
        rate ε₂/(2ρ) (Gaussian: :class:`GaussianApproximateMinima`)."""
        return cover.epsilon / sensitivity, {}

    #: The certificate's words for the cover and the whole (:class:`GaussianApproximateMinima`:
    #: the Gaussian form).
    cover_label = "AMP output cover (Iyengar et al. 2019)"
    composition_label = "approximate-minima perturbation"
    composition_assumption = (
        "the exact minimizer of the perturbed objective is private by the mechanism's proof; "
        "the released point differs from it by at most the distance bound, which the cover "
        "noise masks (Iyengar et al. 2019)")

    def _cover_description(self, template: ObjectiveTemplate, cal: Calibration
                           ) -> tuple[list[Condition], dict[str, Any]]:
        """The cover's calibration conditions and quantities."""
        return [], {"distance bound": cal.extra["radius"],
                    "sensitivity 2*distance": cal.sensitivity, "noise rate beta": cal.noise_rate,
                    "expected noise norm":
                        calibrated_constants(template, cal).dimension / cal.noise_rate}

    def certificate(self, template: ObjectiveTemplate, budget: Budget, cal: Calibration | None,
                    conditions: list[Condition]) -> Certificate:
        """The sequential composition of the inner mechanism's certificate and the cover's.

        Parameters
        ----------
        template : ObjectiveTemplate
            The problem.
        budget : Budget
            The (ε, δ) of the whole release.
        cal : Calibration
            This mechanism's calibration (:meth:`calibrate`).
        conditions : list of Condition
            The conditions checked (:meth:`conditions`).

        Returns
        -------
        Certificate
            Its parts the inner mechanism's and the cover's, ε their sum.

        Examples
        --------
        >>> # template: LinearERMTemplate(Logistic(), 0.1, 1.0, X, y), conftest.py
        >>> mech, budget = get_mechanism("amp"), Budget(1.0)
        >>> cal = mech.calibrate(template, budget)
        >>> cert = mech.certificate(template, budget, cal, mech.conditions(template, budget))
        >>> cert.epsilon, cert.mechanism.startswith("approximate-minima perturbation")
        (1.0, True)
        """
        assert cal is not None
        main_cert = self.inner.certificate(
            template, cal.extra["main"], cal.extra["inner"], conditions
        )
        main_cert.mechanism_name = self.inner.name  # the part's (release names the whole)
        cover = cal.extra["cover"]
        conds, quantities = self._cover_description(template, cal)
        cover_cert = Certificate(
            mechanism=self.cover_label, epsilon_requested=cover.epsilon, epsilon=cover.epsilon,
            delta=cover.delta,
            conditions=[Condition(
                "approximate solve", True, "declared tolerance; checked after the solve",
                f"residual <= gamma = {self.gamma:g}; distance to the exact minimizer "
                f"<= {cal.extra['radius']:.3g} (modulus {cal.extra['mu']:.3g})"), *conds],
            quantities={"gamma": self.gamma, "strong convexity (with Delta)": cal.extra["mu"],
                        **quantities})
        cert = compose_sequential(
            [main_cert, cover_cert],
            mechanism=f"{self.composition_label}: {main_cert.mechanism} + "
                      f"{'output cover' if self.pure else 'cover'}",
            epsilon_requested=budget.epsilon, delta_requested=None if self.pure else budget.delta,
            quantities={"amp_fraction": self.fraction},
            assumptions=[self.composition_assumption], labels=["mechanism", "AMP cover"])
        cert.loss = main_cert.loss
        return cert

    def run(self, template: ObjectiveTemplate, cal: Calibration | None, backend: Backend,
            rng: np.random.Generator, *, warm_start: np.ndarray | None = None,
            max_iter: int | None = None, tol: float | None = None
            ) -> tuple[np.ndarray, SolveResult | None, bool]:
        """The inner mechanism's run accepting a residual <= ``gamma``, then the cover noise
        on its output (an output-noise inner mechanism: the solve, then the sum of both noises
        drawn at once).

        Parameters
        ----------
        template : ObjectiveTemplate
            The problem.
        cal : Calibration
            This mechanism's calibration (:meth:`calibrate`).
        backend : Backend
            The solver.
        rng : numpy.random.Generator
            The noise source.
        warm_start : ndarray or None, default=None
            A start point for the solver.
        max_iter : int or None, default=None
            The solver's iteration cap.
        tol : float or None, default=None
            Not used: the residual accepted is ``gamma``.

        Returns
        -------
        tuple
            (θ, the solve, True: noise was added to the output).

        Examples
        --------
        >>> from dpconvex.solvers import LbfgsNewton
        >>> # template: LinearERMTemplate(Logistic(), 0.1, 1.0, X, y), conftest.py
        >>> mech = get_mechanism("amp")
        >>> cal = mech.calibrate(template, Budget(1.0))
        >>> theta, solve, noised = mech.run(template, cal, LbfgsNewton(), np.random.default_rng(0))
        >>> theta.shape, solve.status.name, noised
        ((3,), 'OPTIMAL', True)
        """
        assert cal is not None
        inner, cover = cal.extra["inner"], self.cover_law(template, cal)
        if self.inner.adds_output_noise:
            # one snap, after the cover (docs/privacy/accuracy_randomness.md#privacy-accuracy-randomness): the
            # cover then hides the exact real-valued output, and the grid is the coarser of the two noises'
            # grids
            res = require_exact(template, backend.solve(template, None, warm_start=warm_start,
                                                        max_iter=max_iter),
                                tol=self.gamma, caller=f"{type(self).__name__}.run",
                                backend=backend)
            law: Noise = NoiseSum(inner.law(), cover)  # the inner calibration's law
            return law.add(res.x, rng, shape=template.noise_shape), res, True
        theta, res, _ = self.inner.run(template, inner, backend, rng, warm_start=warm_start,
                                       max_iter=max_iter, tol=self.gamma)
        return cover.add(theta, rng, shape=template.noise_shape), res, True

    def cover_law(self, template: ObjectiveTemplate, cal: Calibration) -> Noise:
        """The cover's noise: norm-Gamma of the cover's rate (Gaussian in the Gaussian form).

        Parameters
        ----------
        template : ObjectiveTemplate
            The problem (whether its noise is symmetric).
        cal : Calibration
            This mechanism's calibration (:meth:`calibrate`).

        Returns
        -------
        Noise
            The law ``run`` adds to the solver's output.

        Examples
        --------
        >>> # template: LinearERMTemplate(Logistic(), 0.1, 1.0, X, y), conftest.py
        >>> mech = get_mechanism("amp")
        >>> type(mech.cover_law(template, mech.calibrate(template, Budget(1.0)))).__name__
        'NormGamma'
        """
        return NormGamma(cal.noise_rate, symmetric=template.noise_symmetric)


@register
class GaussianApproximateMinima(ApproximateMinima):
    """Approximate-minima perturbation around a Gaussian mechanism, with Gaussian cover noise.

    Parameters
    ----------
    inner : str
        The inner mechanism's registry name: an (ε, δ) mechanism that places its noise on the
        objective or the output and gives :meth:`~Mechanism.calibrate_grid` (e.g.
        "gaussian_objective", "gaussian_output").
    gamma : float
        Optimality residual the solve must reach (``optimality_tol``).
    fraction : float
        Share a of ε and of δ spent on the cover noise, in (0, 1).

    Examples
    --------
    >>> # template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y): conftest.py
    >>> mech = get_mechanism("gaussian_amp")
    >>> mech.pure
    False
    >>> rel = release(template, mech, Budget(1.0, 1e-5), rng=0)
    >>> rel.theta.shape, rel.certificate.delta <= 1e-5
    ((3,), True)
    """

    name = "gaussian_amp"
    pure = False
    alternative = "objective"

    def __init__(
        self, inner: str = "gaussian_objective", gamma: float = 1e-4, fraction: float = 0.1
    ):
        super().__init__(inner, gamma, fraction)
        self.budget_name = f"{self.inner.name} with optimality_tol"

    cover_label = "Gaussian AMP output cover (Iyengar et al. 2019, analytic Gaussian)"
    composition_label = "Gaussian approximate-minima perturbation"
    composition_assumption = (
        "adaptive composition: the exact minimizer is (eps1, delta1)-DP; given it, the "
        "solver's error (norm <= rho) plus the cover noise is a Gaussian mechanism of "
        "sensitivity 2 rho (docs/privacy/gaussian_linear.md#privacy-gaussian-amp)")

    def _cover_noise(self, cover: Budget, sensitivity: float) -> tuple[float, dict[str, Any]]:
        """σ₂: the analytic Gaussian σ at (ε₂, δ₂) for the sensitivity 2ρ."""
        sigma = analytic_gaussian_sigma(cover.epsilon, cover.delta, sensitivity)
        return math.nan, {"noise std": sigma, "delta at sigma": analytic_gaussian_delta(
            cover.epsilon, sigma, sensitivity)}

    def _cover_description(self, template: ObjectiveTemplate, cal: Calibration
                           ) -> tuple[list[Condition], dict[str, Any]]:
        cover = cal.extra["cover"]
        sigma, dlt = float(cal.extra["noise std"]), cal.extra["delta at sigma"]
        return [Condition("cover calibration", dlt <= cover.delta,
                          "analytic Gaussian (Balle & Wang 2018, Thm. 8), sensitivity 2 rho",
                          f"sigma = {sigma:.6g}: delta({cover.epsilon:.6g}) = {dlt:.3g} <= "
                          f"{cover.delta:.3g}")], {
            "distance bound rho": cal.extra["radius"], "sensitivity 2*rho": cal.sensitivity,
            "cover noise std": sigma}

    def cover_law(self, template: ObjectiveTemplate, cal: Calibration) -> Noise:
        """The cover's noise: N(0, σ²) per coordinate, σ for the sensitivity 2ρ.

        Parameters
        ----------
        template : ObjectiveTemplate
            The problem.
        cal : Calibration
            This mechanism's calibration (:meth:`calibrate`), holding σ.

        Returns
        -------
        Gaussian
            The law ``run`` adds to the solver's output.

        Examples
        --------
        >>> # template: LinearERMTemplate(Logistic(), 0.1, 1.0, X, y), conftest.py
        >>> mech = get_mechanism("gaussian_amp")
        >>> cal = mech.calibrate(template, Budget(1.0, 1e-5))
        >>> mech.cover_law(template, cal).sigma == cal.extra["noise std"]
        True
        """
        return Gaussian(float(cal.extra["noise std"]))
