"""A public rule for the regularization strength Λ of the linear learners (``lam="auto"``).

Λ trades the regularization bias against the privacy noise: a larger Λ shrinks
the model (bias ∝ Λ) but makes the minimizer less sensitive to any one record,
so less noise is needed (objective perturbation: the noise's effect ∝ 1/Λ;
output perturbation: the noise norm ∝ 1/Λ). :func:`auto_lam` picks Λ as the
minimizer of a public bound on the excess regularized risk, built from
quantities that are public before the data are read (n, ε, the norm bound q,
the dimension p, the loss constants |ℓ'| <= L and ℓ'' <= c, the mechanism) and
one constant, the reference norm R of a good predictor, fixed once on
validation splits of training data (docs/privacy.md §3.4). It never reads X or y.

With G = L q and μ_eff = Λ + Δ(Λ) (Δ: objective perturbation's extra
regularization, read from the mechanism's own calibration):

    bound(Λ) = μ_eff R²/2            (bias: the penalty at the reference predictor)
             + G²/(n μ_eff)          (stability: generalization of Λ-regularized ERM)
             + noise(Λ)

    objective:  noise = E||b||² / (2 n² μ_eff),  E||b||² = p(p+1)/β², β = ε'/(2G)
    output:     noise = (Λ + c q²/p) E||b||² / 2,  β = ε n Λ / (2G)
    none:       noise = 0

(the objective term is the exact excess of a quadratic objective perturbed by the
linear term bᵀθ/n; the output term is the second-order excess of θ̂ + b for a
uniformly oriented b, whose squared projection on a row is ||x||²||b||²/p).
For objective perturbation the result is never below the Δ-branch threshold
c q² / (n (e^{ε/2} - 1)) (for the one-sided slack log(1 + c q²/(nΛ)); in general, the
smallest Λ for which the calibration adds no Δ): below it the calibration would
raise the modulus to the threshold anyway and spend only ε/2 on the noise.
"""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import numpy as np

from ..errors import ParameterError

__all__ = ["AUTO", "REFERENCE_NORM", "REFERENCE_NORMS", "auto_lam", "check_lam", "delta_floor",
           "reference_norm_for", "resolve_lam"]

#: The accepted string value of ``lam``.
AUTO = "auto"

#: R, the reference predictor norm of the bias term (the rule's one constant), per family of
#: mechanism: objective perturbation (and its Gaussian and approximate-minima variants) and
#: output perturbation (and its Gaussian variant). Chosen on validation splits of the
#: TRAINING data of Adult (adult.data 80/20) and KDDCup99 (inside the 50,000 training rows
#: of the 70,000-row sample), never on a test set: experiments/lam_auto.py, docs/privacy.md §3.4.
REFERENCE_NORMS = {"objective": 16.0, "output": 8.0}
# Validation, 10 noise seeds, intercept_scaling 0.25 (2026-11-23; `lam_auto.py --validate-only
# 10`): mean relative excess of the error over the best grid Λ for R = 1, 2, 4, 8, 16, 32 —
# objective: Adult 0.243 0.161 0.069 0.013 -0.008 0.029, KDDCup99 2.59 0.905 0.307 0.092
# 0.018 0.063 (R = 16 on both); output: Adult 0.119 0.083 0.022 0.005 0.090 0.235, KDDCup99
# 1.33 0.320 0.030 0.006 0.932 2.79 (R = 8 on both). The Gaussian variants take their
# family's R (not validated separately).
#: R of the objective family (the default mechanism), kept as the module's one-number summary.
REFERENCE_NORM = REFERENCE_NORMS["objective"]
_OUTPUT_FAMILY = ("output", "gaussian_output")


def reference_norm_for(mechanism: Any) -> float:
    """R of :data:`REFERENCE_NORMS` for a mechanism name or object (AMP: its inner one)."""
    name, _ = _mechanism_parts(mechanism, 1.0)
    return REFERENCE_NORMS["output" if name in _OUTPUT_FAMILY else "objective"]


#: Log-spaced candidates searched for the minimum of the bound (public, fixed).
_GRID = np.logspace(-9, 3, 1201)


def check_lam(value: Any, owner: str) -> float | str:
    """Return ``"auto"`` or ``value`` as a float > 0; raise :class:`ParameterError` otherwise."""
    from .._validation import check_float

    if isinstance(value, str):
        if value == AUTO:
            return AUTO
        raise ParameterError(
            f"The 'lam' parameter of {owner} must be 'auto' or a float in (0, inf). "
            f"Got {value!r} instead."
        )
    try:
        return check_float("lam", value, owner)
    except ParameterError as err:
        raise ParameterError(f"{err} Accepted values: 'auto' or a float in (0, inf).") from None


def _mechanism_parts(mechanism: Any, epsilon: float) -> tuple[str, float]:
    """(inner mechanism name, ε it calibrates with) for a name or a Mechanism object."""
    name = mechanism if isinstance(mechanism, str) else getattr(mechanism, "name", "")
    if name in ("amp", "gaussian_amp"):  # approximate minima: the inner one gets (1 - fraction) ε
        inner = getattr(mechanism, "inner", None)
        fraction = float(getattr(mechanism, "fraction", 0.1))
        default = "objective" if name == "amp" else "gaussian_objective"
        inner_name = inner.name if inner is not None else default
        return inner_name, epsilon * (1.0 - fraction)
    return name, epsilon


def _consts(mu: float, G: float, c_u: float, p: int) -> SimpleNamespace:
    return SimpleNamespace(strong_convexity=mu, grad_bound=G, hessian_term_bound=c_u,
                           hessian_rank=1, dimension=p, hessian_trace_bound=c_u)


def delta_floor(n: int, epsilon: float, q: float, loss: Any) -> float:
    """Smallest Λ at which objective perturbation adds no Δ (the calibration's own threshold).

    For the one-sided slack log(1 + c q²/(nΛ)) (docs/privacy.md §3.3) this is
    c q² / (n (e^{ε/2} - 1)) (it was c q² / (n (e^{ε/4} - 1)) for CMS's two-sided
    slack 2 log(1 + c q²/(nΛ)) before issue 13). Read from
    :func:`calibrate_objective_perturbation`, so it follows any change of the slack.
    """
    from .mechanisms.perturbation import calibrate_objective_perturbation

    loss = _as_loss(loss)
    c_u = loss.curvature * q * q
    if not math.isfinite(c_u):
        return 0.0
    tiny = 1e-300
    cal = calibrate_objective_perturbation(epsilon, n, _consts(tiny, loss.deriv_bound * q, c_u, 1))
    return tiny + cal.extra_strong_convexity


def _as_loss(loss: Any) -> Any:
    if isinstance(loss, str):
        from ..losses import get_loss

        return get_loss(loss)
    return loss


def auto_lam(mechanism: Any, n: int, epsilon: float, q: float, p: int, loss: Any, *,
             reference_norm: float | None = None, delta: float = 0.0) -> float:
    """Λ from public quantities only: the minimizer of the bound of the module docstring.

    Parameters
    ----------
    mechanism : str or Mechanism
        "objective", "output", "none", "amp" or a mechanism object (approximate
        minima uses its inner mechanism with (1 - fraction) ε). Other names are
        treated as objective perturbation.
    n : int
        Number of records (public under replace-one adjacency).
    epsilon : float
        The privacy budget of the fit.
    q : float
        Public norm bound of a row as the template sees it (with the intercept column).
    p : int
        Number of parameters (features plus the intercept column).
    loss : str or Loss
        A loss with declared constants ``deriv_bound`` (|ℓ'|) and ``curvature`` (c).
    reference_norm : float or None, default=None
        R in the bias term; None: the mechanism family's :data:`REFERENCE_NORMS` value
        (:func:`reference_norm_for`).
    delta : float, default=0.0
        δ of the fit: the Gaussian mechanisms ("gaussian_objective",
        "gaussian_output", approximate minima around them with (1 - fraction) δ)
        use the noise terms of :mod:`dpconvex.privacy.lam_gaussian`
        (E‖b‖² = p σ², docs/privacy.md §10.5).

    Returns
    -------
    float
        Λ > 0, rounded to 3 significant digits (never below the objective Δ floor).
    """
    from .mechanisms.perturbation import (
        calibrate_objective_perturbation,
        calibrate_output_perturbation,
    )

    loss = _as_loss(loss)
    R = float(reference_norm_for(mechanism) if reference_norm is None else reference_norm)
    n, p, q = int(n), int(p), float(q)
    name, eps = _mechanism_parts(mechanism, float(epsilon))
    from .lam_gaussian import GAUSSIAN_NAMES, gaussian_noise_terms

    dlt = float(delta) * (eps / float(epsilon) if eps < float(epsilon) else 1.0)  # AMP: (1 - a) δ
    G = loss.deriv_bound * q
    c = float(loss.curvature)
    c_u = c * q * q
    lam = _GRID
    floor = 0.0
    lipschitz_ok = name in ("output", "gaussian_output")
    if name == "none" or not math.isfinite(eps) or (not lipschitz_ok and not math.isfinite(c_u)):
        mu_eff, noise = lam, np.zeros_like(lam)  # no noise (or a refusal follows in release)
    elif name in GAUSSIAN_NAMES:
        mu_eff, noise = gaussian_noise_terms(name, lam, eps, dlt, n, G, c_u, p)
        if name == "gaussian_objective":
            floor = delta_floor(n, eps, q, loss)
    elif name == "output":
        mu_eff = lam
        unit = calibrate_output_perturbation(eps, n, _consts(1.0, G, c_u, p))
        rate = unit.noise_rate * lam  # β = ε n Λ/(2G): linear in Λ
        sq_norm = p * (p + 1.0) / rate**2
        curv = c_u / p if math.isfinite(c_u) else 0.0
        noise = (lam + curv) * sq_norm / 2.0
        if not math.isfinite(c_u):  # Lipschitz form for a loss without a curvature bound
            noise = lam * sq_norm / 2.0 + G * (p / rate) / math.sqrt(p)
    else:
        cals = [calibrate_objective_perturbation(eps, n, _consts(mu, G, c_u, p)) for mu in lam]
        mu_eff = lam + np.array([k.extra_strong_convexity for k in cals])
        rate = np.array([k.noise_rate for k in cals])
        noise = p * (p + 1.0) / rate**2 / (2.0 * n * n * mu_eff)
        floor = delta_floor(n, eps, q, loss)
    bound = mu_eff * R * R / 2.0 + G * G / (n * mu_eff) + noise
    best = float(lam[int(np.argmin(bound))])
    return max(float(f"{best:.3g}"), floor)


def resolve_lam(lam: Any, mechanism: Any, n: int, epsilon: float, q: float, p: int,
                loss: Any, *, delta: float = 0.0) -> tuple[float, str]:
    """(Λ, certificate note): ``lam`` itself, or :func:`auto_lam` for ``lam="auto"``."""
    if isinstance(lam, str) and lam == AUTO:
        mech_name, eps = _mechanism_parts(mechanism, float(epsilon))
        value = auto_lam(mechanism, n, epsilon, q, p, loss, delta=delta)
        loss = _as_loss(loss)
        return value, (
            f"lam = {value:.3g} chosen by the public rule lam='auto' "
            f"(dpconvex.privacy.lam_rule.auto_lam, docs/privacy.md §3.4): the minimizer of "
            f"a bias + stability + noise bound from public quantities only: mechanism "
            f"{mech_name}, n = {int(n)}, epsilon = {eps:g}, delta = {float(delta):g}, "
            f"q = {q:.6g}, p = {int(p)}, "
            f"|l'| <= {loss.deriv_bound:g}, l'' <= {loss.curvature:g}, reference norm "
            f"R = {reference_norm_for(mechanism):g}; no data value is read"
        )
    value = float(lam)
    return value, f"lam = {value:g} given explicitly (a public parameter)"
