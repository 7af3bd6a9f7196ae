"""Public rules that weigh a mechanism's noise against the problem, before any data are read.

Both read the noise law of the mechanism's :class:`~dpconvex.privacy.mechanisms.Calibration`
and public quantities only (n, p or d, C, ε, δ, q, the declared constants), never a value of X
or y.

**Λ** (``lam="auto"`` of the linear learners; docs/privacy/perturbation.md#privacy-lambda-rule).
:func:`resolve_lam` computes, from public quantities only:

1. linear ERM's constants G = L q, c_u = c q², p (``LinearERMTemplate.constants_for``);
2. the mechanism's calibration on :data:`LAM_GRID` (``Mechanism.calibrate_grid``): E‖b‖²
   and μ_eff = Λ + Δ(Λ) at every Λ of the grid (:func:`grid_calibration`);
3. the bound at each Λ::

       bound(Λ) = μ_eff R²/2 + w G²/(n μ_eff) + noise(Λ)
       objective placement:  noise = E‖b‖² / (2 n² μ_eff)
       output placement:     noise = (Λ + c q²/p) E‖b‖² / 2
       no noise (baseline):  noise = 0

4. the choice: the grid's minimizer to 3 significant digits, on the objective never below
   the calibration's ``modulus_floor``.

R (:data:`REFERENCE_NORMS`) and w (:data:`STABILITY_WEIGHTS`) are fixed per placement of the
noise (:func:`reference_norm_for`, :func:`stability_weight_for`). :func:`resolve_smoothing`
chooses a stated loss's smoothing width with Λ.

**The noise warning** (:func:`warn_if_noise_dominates`, raised before the noise is drawn).
Every learner compares the expected noise in what it releases with the largest signal the
public problem allows, ρ = noise / signal, and warns (a :class:`PrivacyWarning` naming the
public quantities and the remedies, ending with :data:`PUBLIC_CHECK_NOTE` or
:data:`REGRESSION_CHECK_NOTE`) when ρ exceeds its family's threshold (:data:`THRESHOLDS`).
The families, their ρ (E‖b‖ = p/β for norm-Gamma noise, √p σ for Gaussian):

* ``linear``: objective E‖b‖/(n |ℓ'(0)| q), output E‖b‖ Λ/(|ℓ'(0)| q);
* ``gd``: max(1, C/2) · s √p ‖w‖₂ / (min(C_clip, |ℓ'(0)| q) ‖w‖₁);
* ``centroid``: s C / n (the noise on a class mean at the class count n/C);
* ``ssp``: s_A √(p log(2p²/0.05)) / (n q̃²/p + λ_given);
* ``large_margin``, ``softmax``: √p s / (n G), s the objective noise's coordinate scale.

``worst_case=True`` (linear, gd) compares with the data part's bound at any θ instead of at
θ = 0. Derivations and the measurements behind the thresholds:
docs/privacy/tuning_gd_ledger.md#privacy-noise-warning-linear, privacy-noise-warning-gd-centroids,
privacy-large-margin-defaults, privacy-noise-warning-ssp.
"""

from __future__ import annotations

import contextlib
import math
import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from ...errors import DPConvexError, ParameterError, PrivacyError, PrivacyWarning, user_stacklevel
from ...templates.linear_erm import LinearERMTemplate
from ..budget import Budget
from ..certificate import LamRule, SmoothingRule
from ..mechanisms.base import calibrated_constants

if TYPE_CHECKING:
    from sklearn.base import BaseEstimator

    from ...objectives.losses import Loss
    from ...templates.base import PrivacyConstants
    from ..mechanisms.base import Calibration, ConstantsSource, Mechanism

__all__ = [
    "AUTO",
    "CENTROID_NOISE_RATIO",
    "GD_NOISE_RATIO",
    "LABEL_CENTER_SHARE",
    "LAM_GRID",
    "LARGE_MARGIN_NOISE_RATIO",
    "LINEAR_NOISE_RATIO",
    "NB_NOISE_RATIO",
    "PUBLIC_CHECK_NOTE",
    "REFERENCE_NORM",
    "REFERENCE_NORMS",
    "REGRESSION_CHECK_NOTE",
    "REGRESSION_RECORDS",
    "SOFTMAX_NOISE_RATIO",
    "SSP_NOISE_RATIO",
    "STABILITY_WEIGHTS",
    "THRESHOLDS",
    "auto_lam",
    "delta_floor",
    "estimator_noise_dominance",
    "form_bounds",
    "grid_calibration",
    "label_center_share",
    "lam_rule",
    "noise_dominates",
    "noise_ratio",
    "ovr_noise_warning",
    "reference_norm_for",
    "resolve_lam",
    "stability_weight_for",
    "warn_if_noise_dominates",
]


#: The accepted string value of ``lam``.
AUTO = "auto"

#: R, the reference predictor norm of the bias term, per placement of the noise (the
#: objective, also for the non-private baseline, or the output); "regression": the floor of
#: a regression loss's R (:data:`REGRESSION_RECORDS`); "centered regression": that floor for
#: labels mapped around a released centre (:data:`LABEL_CENTER_SHARE`). Chosen on validation
#: splits of the TRAINING data of Adult and KDDCup99, never on a test set
#: (benchmarks/lam_rule_validation.py, docs/privacy/perturbation.md#privacy-lambda-rule), the
#: regression floors on the regression corpus's selection seeds.
REFERENCE_NORMS = {"objective": 16.0, "output": 8.0, "regression": 1.0, "centered regression": 0.5}
#: R of objective placement (the default mechanism), kept as the module's one-number summary.
REFERENCE_NORM = REFERENCE_NORMS["objective"]

#: A regression loss (labels on [-1, 1]) on the objective: R = n·ε/(p · REGRESSION_RECORDS)
#: within [1, 16]: a large Λ where the noise dominates, the classifiers' R with many records.
#: Chosen on the regression corpus's selection seeds among one R for all fits (0.5 to 16) and
#: k = 25, 50, 100, 200, 400 (docs/privacy/perturbation.md#privacy-lambda-rule).
REGRESSION_RECORDS = 100.0

#: ``label_center="auto"`` of the linear regressors: where r = n·ε/p is below
#: :data:`REGRESSION_RECORDS` (R at its floor, the noise dominating), this share of ε releases
#: the labels' mean, the centre a large Λ shrinks the predictions to; R's floor is then
#: ``REFERENCE_NORMS["centered regression"]``. Chosen on the regression corpus's selection
#: seeds among shares 0.1, 0.2, 0.3 and floors 1, 0.5, 0.25
#: (docs/privacy/perturbation.md#privacy-label-center).
LABEL_CENTER_SHARE = 0.1

#: w, the weight of the stability term G²/(n μ_eff) (a worst case over distributions that
#: over-regularizes at full weight where n is large against the noise), per placement of
#: the noise: objective chosen among 1, 1/4, 1/16 and 0 on the corpus's selection seeds,
#: output the 1 that R = 8 was chosen with (privacy-lambda-rule).
STABILITY_WEIGHTS = {"objective": 1.0 / 16.0, "output": 1.0}


def _named(mechanism: str | Mechanism, loss: str | Loss | None) -> tuple[Mechanism, Loss | None]:
    """The mechanism and the loss of the rule, each given as an object or a registered name."""
    if isinstance(mechanism, str):
        from ..mechanisms import get_mechanism

        mechanism = get_mechanism(mechanism, "lam='auto'")
    if isinstance(loss, str):
        from ...objectives.losses import get_loss

        loss = get_loss(loss)
    return mechanism, loss


def _weights(mech: Mechanism, loss: Loss | None, records: float | None,
             centered: bool = False) -> tuple[float, float]:
    """(R, w) of the rule for the placement of ``mech``'s noise and ``loss`` (None: a margin
    loss), r = ``records`` = n·ε/p (:func:`reference_norm_for`, :func:`stability_weight_for`);
    ``centered``: the labels mapped around a released centre (a regression loss's lower floor)."""
    key = "output" if mech.placement == "output" else "objective"
    if key == "output" or getattr(loss, "kind", "margin") != "regression":
        return REFERENCE_NORMS[key], STABILITY_WEIGHTS[key]
    r = 0.0 if records is None or math.isnan(float(records)) else float(records)
    low = REFERENCE_NORMS["centered regression" if centered else "regression"]
    R = min(REFERENCE_NORMS["objective"], max(low, r / REGRESSION_RECORDS))
    return float(R), STABILITY_WEIGHTS[key]


def label_center_share(n: int, p: int, epsilon: float) -> float:
    """The share of ε ``label_center="auto"`` spends on the labels' private mean:
    :data:`LABEL_CENTER_SHARE` where r = n·ε/p is below :data:`REGRESSION_RECORDS`, else 0 (the
    centre of ``label_range``). Public: n, p (the intercept column counted) and ε only.

    Parameters
    ----------
    n : int
        The number of rows.
    p : int
        The number of parameters (intercept column counted).
    epsilon : float
        ε of the fit.

    Returns
    -------
    float
        The share of ε (0: the centre of ``label_range``).

    Examples
    --------
    >>> from dpconvex.privacy.rules.noise_level import label_center_share
    >>> label_center_share(354, 25, 1.0), label_center_share(20000, 11, 1.0)
    (0.1, 0.0)
    """
    return (
        LABEL_CENTER_SHARE
        if float(n) * float(epsilon) / max(int(p), 1) < REGRESSION_RECORDS
        else 0.0
    )


def stability_weight_for(mechanism: str | Mechanism) -> float:
    """w of :data:`STABILITY_WEIGHTS` for the placement of a mechanism's noise (name or object).

    Parameters
    ----------
    mechanism : str or Mechanism
        The mechanism, by registered name or object.

    Returns
    -------
    float
        w.

    Examples
    --------
    >>> from dpconvex.privacy.rules.noise_level import stability_weight_for
    >>> stability_weight_for("objective"), stability_weight_for("output")
    (0.0625, 1.0)
    """
    return _weights(_named(mechanism, None)[0], None, None)[1]


def reference_norm_for(mechanism: str | Mechanism, loss: str | Loss | None = None,
                       records: float | None = None, *, centered: bool = False) -> float:
    """R of :data:`REFERENCE_NORMS` for the placement of a mechanism's noise (name or object);
    for a regression loss on the objective, r / :data:`REGRESSION_RECORDS` within [1, 16]
    (``records``: r = n·ε/p; None: 1), within [0.5, 16] for labels mapped around a released
    centre (``centered``).

    Parameters
    ----------
    mechanism : str or Mechanism
        The mechanism, by registered name or object.
    loss : str, Loss or None, default=None
        The loss (a regression loss on the objective scales R with ``records``).
    records : float or None, default=None
        r = n·ε/p (None: 1).
    centered : bool, default=False
        Labels mapped around a released centre.

    Returns
    -------
    float
        R.

    Examples
    --------
    >>> from dpconvex.privacy.rules.noise_level import reference_norm_for
    >>> reference_norm_for("objective"), reference_norm_for("output")
    (16.0, 8.0)
    >>> from dpconvex.objectives.losses import get_regression_loss
    >>> huber = get_regression_loss("huber", (-1.0, 1.0))
    >>> [reference_norm_for("objective", huber, r) for r in (20.0, 400.0, 1e5)]
    [1.0, 4.0, 16.0]
    >>> reference_norm_for("objective", huber, 20.0, centered=True)
    0.5
    """
    return _weights(*_named(mechanism, loss), records, centered)[0]


#: Log-spaced candidates searched for the minimum of the bound (public, fixed).
LAM_GRID = np.logspace(-9, 3, 1201)
LAM_GRID.flags.writeable = False


def _calibrate_grid(mech: Mechanism, problem: PrivacyConstants,
                    budget: Budget) -> Calibration | None:
    """Step 2 of the rule: ``mech``'s calibration at ``budget`` on :data:`LAM_GRID` of linear
    ERM's public problem (``LinearERMTemplate.constants_for`` with n: k = 2 gradient
    differences); None where there is no noise to weigh (the non-private baseline, ε = ∞, or a
    calibration that cannot be made: the release reports it). A placement other than the
    objective or the output is refused."""
    if not mech.private or not budget.private:
        return None
    if mech.placement is not None and mech.placement not in ("objective", "output"):
        raise ParameterError(
            f"auto_lam: lam='auto' weighs noise on the objective or the output; mechanism "
            f"{mech.name!r} places its noise on the {mech.placement} "
            "(no Λ to choose): pass a numeric lam.")
    try:  # a mechanism without a calibration on a grid raises the ParameterError naming it
        return mech.calibrate_grid(problem, budget, LAM_GRID)
    except PrivacyError:  # e.g. objective perturbation with an unbounded curvature
        return None


def _bound(mech: Mechanism, problem: PrivacyConstants, R: float, w: float,
           grid: Calibration | None) -> tuple[np.ndarray, float]:
    """Step 3 of the rule: the bound of the module docstring at each Λ of :data:`LAM_GRID`,
    from linear ERM's public problem (n, G, c_u = c q², p) and the calibration on the grid
    (None: no noise); and the floor of Λ (the calibration's ``modulus_floor`` on the
    objective, else 0)."""
    n, G, c_u, p = problem.n, problem.grad_bound, problem.hessian_term_bound, problem.dimension
    lam, floor = LAM_GRID, 0.0
    if grid is None:
        mu_eff, noise = lam, np.zeros_like(lam)  # no noise (or a refusal follows in release)
    elif mech.placement == "output":
        mu_eff = lam
        if math.isfinite(c_u):
            noise = (lam + c_u / p) * grid.expected_sq_norm / 2.0
        else:  # Lipschitz form for a loss without a curvature bound
            noise = lam * grid.expected_sq_norm / 2.0 + G * grid.expected_norm / math.sqrt(p)
    else:  # on the objective (_calibrate_grid refuses any other placement it names)
        mu_eff, floor = grid.modulus_eff, grid.modulus_floor
        noise = grid.expected_sq_norm / (2.0 * n * n * mu_eff)
    return mu_eff * R * R / 2.0 + w * G * G / (n * mu_eff) + noise, floor


def _choice(bound: np.ndarray, floor: float) -> float:
    """Step 4 of the rule: the Λ of the grid minimizing ``bound``, to 3 significant digits,
    never below ``floor``."""
    return max(float(f"{float(LAM_GRID[int(np.argmin(bound))]):.3g}"), floor)


def lam_rule(mech: Mechanism, loss: Loss, n: int, budget: Budget, q: float, p: int, *,
             centered: bool = False, weights: tuple[float, float] | None = None,
             grid: Calibration | None = None) -> LamRule:
    """The certificate's Λ rule for ``lam="auto"``: the rule of the module docstring, in its
    four steps, on a mechanism and a loss object (a plan's; :func:`resolve_lam` takes names).

    ``mech`` places its noise on the objective or the output and calibrates on a grid of
    moduli (else a :class:`ParameterError`), or is the non-private baseline; ``budget`` is the
    fit's (ε, δ) (checked when it was made); n, q (the row-norm bound) and p count the
    intercept column; ``loss`` declares ``deriv_bound`` and ``curvature``. ``weights``: (R, w)
    of the bound (None: :func:`reference_norm_for` and :func:`stability_weight_for`, with
    ``centered`` a regression loss on labels mapped around a released centre); ``grid``: the
    calibration on :data:`LAM_GRID` to weigh (None: the mechanism's, :func:`grid_calibration`).
    Returns the rule with its Λ (:attr:`~dpconvex.privacy.certificate.LamRule.lam`).

    Parameters
    ----------
    mech : Mechanism
        The mechanism (noise on the objective or the output, or the non-private baseline).
    loss : Loss
        The loss (its ``deriv_bound`` and ``curvature``).
    n : int
        The number of rows (public).
    budget : Budget
        The fit's (ε, δ).
    q : float
        The row-norm bound (intercept column counted).
    p : int
        The number of parameters (intercept column counted).
    centered : bool, default=False
        A regression loss on labels mapped around a released centre.
    weights : tuple of (float, float) or None, default=None
        (R, w) of the bound (None: :func:`reference_norm_for`, :func:`stability_weight_for`).
    grid : Calibration or None, default=None
        The calibration on ``LAM_GRID`` (None: :func:`grid_calibration`).

    Returns
    -------
    LamRule
        The rule, with its Λ.

    Raises
    ------
    ParameterError
        The mechanism neither places its noise on the objective or the output nor
        calibrates on a grid of moduli (and is not the non-private baseline).

    Examples
    --------
    >>> from dpconvex import Budget
    >>> from dpconvex.objectives.losses import Logistic
    >>> from dpconvex.privacy.rules.noise_level import lam_rule
    >>> rule = lam_rule(get_mechanism("objective"), Logistic(), 1000, Budget(1.0), 1.0, 5)
    >>> rule.rule, rule.lam > 0, rule.reference_norm
    ('auto', True, 16.0)
    """
    R, w = (_weights(mech, loss, n * budget.epsilon / max(p, 1), centered) if weights is None
            else weights)
    problem = LinearERMTemplate.constants_for(loss, q, 1.0, p, n)  # 1. (μ: each Λ of the grid)
    if grid is None:  # 2.
        grid = _calibrate_grid(mech, problem, budget)
    value = _choice(*_bound(mech, problem, R, w, grid))  # 3. and 4.
    # the calibration's mechanism and ε (approximate minima: its inner mechanism's share)
    name, eps = ((mech.name, budget.epsilon) if grid is None
                 else (grid.mechanism, grid.epsilon_requested))
    return LamRule(value, AUTO, "", name, n, eps, budget.delta, q, p, loss.deriv_bound,
                   loss.curvature, R, w)


def resolve_lam(lam: Any, mechanism: str | Mechanism, n: int, budget: Budget, q: float, p: int,
                loss: str | Loss, *, reference_norm: float | None = None,
                stability_weight: float | None = None, grid: Calibration | None = None,
                centered: bool = False) -> tuple[float, LamRule]:
    """(Λ, the certificate's Λ rule): ``lam`` itself, or for ``lam="auto"`` the rule of the
    module docstring (:func:`lam_rule`), the mechanism and the loss given as objects or
    registered names.

    The arguments are :func:`lam_rule`'s; R and w default to :func:`reference_norm_for`
    and :func:`stability_weight_for` (``reference_norm``, ``stability_weight`` replace them).

    Parameters
    ----------
    lam : float or "auto"
        Λ given, or "auto".
    mechanism : str or Mechanism
        The mechanism, by registered name or object.
    n : int
        The number of rows (public).
    budget : Budget
        The fit's (ε, δ).
    q : float
        The row-norm bound (intercept column counted).
    p : int
        The number of parameters (intercept column counted).
    loss : str or Loss
        The loss, by registered name or object.
    reference_norm, stability_weight : float or None, default=None
        R and w replacing the rule's defaults.
    grid : Calibration or None, default=None
        As for :func:`lam_rule`.
    centered : bool, default=False
        As for :func:`lam_rule`.

    Returns
    -------
    tuple of (float, LamRule)
        Λ and the certificate's rule.

    Examples
    --------
    >>> from dpconvex import Budget
    >>> from dpconvex.privacy.rules.noise_level import resolve_lam
    >>> resolve_lam(0.1, "objective", 1000, Budget(1.0), 1.0, 5, "logistic")[0]
    0.1
    >>> lam, rule = resolve_lam("auto", "objective", 1000, Budget(1.0), 1.0, 5, "logistic")
    >>> lam > 0, rule.rule, rule.lam == lam
    (True, 'auto', True)
    """
    if not (isinstance(lam, str) and lam == AUTO):
        value = float(lam)
        return value, LamRule(value)
    mech, loss = _named(mechanism, loss)
    n, q, p = int(n), float(q), int(p)
    R, w = _weights(mech, loss, n * budget.epsilon / max(p, 1), centered)
    weights = (float(R if reference_norm is None else reference_norm),
               float(w if stability_weight is None else stability_weight))
    rule = lam_rule(mech, loss, n, budget, q, p, weights=weights, grid=grid)
    return rule.lam, rule


def auto_lam(mechanism: str | Mechanism, n: int, epsilon: float, q: float, p: int,
             loss: str | Loss, *, reference_norm: float | None = None,
             stability_weight: float | None = None, delta: float = 0.0,
             grid: Calibration | None = None) -> float:
    """Λ from public quantities only: :func:`resolve_lam`'s value for ``lam="auto"`` (its
    arguments, the budget given as ``epsilon`` and ``delta``, refused by name where they are
    not a budget). Returns Λ > 0 to 3 significant digits, never below the grid's modulus floor.

    Parameters
    ----------
    mechanism : str or Mechanism
        The mechanism, by registered name or object.
    n : int
        The number of rows (public).
    epsilon : float
        ε of the fit.
    q : float
        The row-norm bound.
    p : int
        The number of parameters.
    loss : str or Loss
        The loss.
    reference_norm, stability_weight : float or None, default=None
        As for :func:`resolve_lam`.
    delta : float, default=0.0
        δ of the fit.
    grid : Calibration or None, default=None
        As for :func:`lam_rule`.

    Returns
    -------
    float
        Λ > 0, to 3 significant digits.

    Examples
    --------
    >>> from dpconvex.privacy.rules.noise_level import auto_lam
    >>> lam = auto_lam("objective", n=1000, epsilon=1.0, q=1.0, p=5, loss="logistic")
    >>> lam > 0
    True
    >>> auto_lam("objective", 10000, 1.0, 1.0, 5, "logistic") <= lam  # more rows: smaller Λ
    True
    """
    return resolve_lam(AUTO, mechanism, n, Budget(epsilon, delta), q, p, loss, grid=grid,
                       reference_norm=reference_norm, stability_weight=stability_weight)[0]


def grid_calibration(mechanism: str | Mechanism, n: int, budget: Budget, q: float, p: int,
                     loss: str | Loss) -> Calibration | None:
    """The mechanism's :class:`~dpconvex.privacy.mechanisms.Calibration` at ``budget`` on
    :data:`LAM_GRID` (:meth:`~dpconvex.privacy.mechanisms.Mechanism.calibrate_grid`) for linear
    ERM with ``loss`` on rows of norm at most q in p dimensions: step 2 of the rule.

    None when there is no noise to weigh (the non-private baseline, ε = ∞, or a calibration
    that cannot be made: the release reports it).

    Parameters
    ----------
    mechanism : str or Mechanism
        The mechanism, by registered name or object.
    n : int
        The number of rows (public).
    budget : Budget
        The fit's (ε, δ).
    q : float
        The row-norm bound (intercept column counted).
    p : int
        The number of parameters (intercept column counted).
    loss : str or Loss
        The loss.

    Returns
    -------
    Calibration or None
        The calibration on the grid, or None where there is no noise to weigh.

    Raises
    ------
    ParameterError
        The mechanism does not report its noise (named), places it where there is no Λ to
        choose, or needs a δ > 0.

    Examples
    --------
    >>> from dpconvex import Budget
    >>> from dpconvex.privacy.rules.noise_level import LAM_GRID, grid_calibration
    >>> cal = grid_calibration("objective", 1000, Budget(1.0), 1.0, 5, "logistic")
    >>> cal.mechanism, cal.expected_norm.shape == LAM_GRID.shape
    ('objective', True)
    """
    mech, loss = _named(mechanism, loss)
    problem = LinearERMTemplate.constants_for(loss, float(q), 1.0, int(p), int(n))
    return _calibrate_grid(mech, problem, budget)


def delta_floor(n: int, epsilon: float, q: float, loss: str | Loss) -> float:
    """Smallest Λ at which objective perturbation adds no Δ: c q² / (n (e^{ε/2} - 1)) for the
    one-sided slack, the ``modulus_floor`` of its :func:`grid_calibration` (the floor the Λ
    rule keeps to; 0 where there is no calibration: ε = ∞, or a curvature without a bound).

    Parameters
    ----------
    n : int
        The number of rows.
    epsilon : float
        ε of the fit.
    q : float
        The row-norm bound.
    loss : str or Loss
        The loss.

    Returns
    -------
    float
        The floor (0 where there is no calibration).

    Examples
    --------
    >>> from dpconvex.privacy.rules.noise_level import delta_floor
    >>> round(delta_floor(1000, 1.0, 1.0, "logistic"), 6)
    0.000385
    """
    grid = grid_calibration("objective", n, Budget(epsilon), q, 1, loss)
    return 0.0 if grid is None else float(grid.modulus_floor)


#: Half-widths h searched by :func:`resolve_smoothing`, in units of the loss's scale (a
#: margin for a margin loss, the width of the label range for a regression loss).
SMOOTHING_GRID = np.logspace(-3, 1, 17)
SMOOTHING_GRID.flags.writeable = False
#: The largest h :func:`resolve_smoothing` searches for a regression loss, in widths of the
#: label range: a smoothed kink moves the loss's minimizer by up to h (a quantile towards the
#: residuals within h of it), which the bound's gap term does not weigh; chosen on the
#: regression corpus's selection seeds (docs/privacy/user_objectives.md#privacy-smoothing).
REGRESSION_SMOOTHING_MAX = 10.0 ** -1.5
#: The smallest h :func:`resolve_smoothing` searches for a margin loss: the h of
#: ``PrivateHuberSVM``, a candidate itself; on the classification corpus's
#: selection seeds the hinge at h >= 0.5 is as accurate as at the smaller h the bound prefers at
#: large n·ε, and the solver takes fewer Newton steps
#: (docs/privacy/user_objectives.md#privacy-smoothing).
MARGIN_SMOOTHING_MIN = 0.5


def resolve_smoothing(loss: Loss, lam: Any, mechanism: str | Mechanism, n: int, budget: Budget,
                      q: float, p: int, *, centered: bool = False
                      ) -> tuple[Loss, SmoothingRule | None]:
    """The loss at the half-width h of its kinks chosen with Λ from public quantities only.

    For a loss stated with kinks and ``smoothing="auto"``
    (:meth:`~dpconvex.objectives.Loss.from_cvxpy`), h minimizes the Λ rule's bound (at the
    Λ it chooses, or at the given ``lam``) plus the smoothing's largest change of the loss, over
    :data:`SMOOTHING_GRID` times the loss's scale (for a regression loss, those up to
    :data:`REGRESSION_SMOOTHING_MAX` times it; for a margin loss, :data:`MARGIN_SMOOTHING_MIN`
    and those above it): a small h keeps the loss close to the stated one but raises
    its curvature (the Jacobian slack and Δ of objective perturbation), a large h the reverse
    (docs/privacy/user_objectives.md#privacy-smoothing). Any other loss is returned as it is,
    with no note. ``budget`` and ``centered``: as for :func:`resolve_lam`.

    Examples
    --------
    >>> import cvxpy as cp
    >>> from dpconvex import Budget
    >>> from dpconvex.objectives import Loss
    >>> from dpconvex.privacy.rules.noise_level import resolve_smoothing
    >>> hinge = Loss.from_cvxpy(lambda m: cp.pos(1 - m))
    >>> smoothed, note = resolve_smoothing(hinge, "auto", "objective", 1000, Budget(1.0), 1.0, 5)
    >>> smoothed.smoothed_kinks.h == note.h, smoothed.curvature < float("inf")
    (True, True)
    """
    if not getattr(loss, "smoothing_unresolved", False):
        return loss, None
    mech = _named(mechanism, None)[0]
    n, q, p = int(n), float(q), int(p)
    R, w = _weights(mech, loss, n * budget.epsilon / max(p, 1), centered)
    lo_hi = loss.label_range
    scale = 1.0 if lo_hi is None else float(lo_hi[1]) - float(lo_hi[0])
    given = not (isinstance(lam, str) and lam == AUTO)
    best: tuple[float, float] | None = None
    # the candidates' constants only: the loss is smoothed (compiled) at the h chosen
    constants_at = getattr(loss, "smoothing_candidate", loss.smoothed)
    grid = SMOOTHING_GRID * scale
    if lo_hi is not None:  # a regression loss: h at most REGRESSION_SMOOTHING_MAX of the range
        grid = grid[grid <= REGRESSION_SMOOTHING_MAX * scale * (1.0 + 1e-9)]
    else:  # a margin loss: h at least MARGIN_SMOOTHING_MIN, which is a candidate
        grid = np.concatenate([[MARGIN_SMOOTHING_MIN], grid[grid > MARGIN_SMOOTHING_MIN]])
    for h in grid:
        h = float(f"{h:.3g}")
        candidate = constants_at(h)
        problem = LinearERMTemplate.constants_for(candidate, q, 1.0, p, n)
        cal = _calibrate_grid(mech, problem, budget)
        bound, floor = _bound(mech, problem, R, w, cal)
        if given:
            value = float(np.interp(np.log(float(lam)), np.log(LAM_GRID), bound))
        else:
            value = (
                float(np.min(bound[LAM_GRID >= floor]))
                if np.any(LAM_GRID >= floor)
                else float(bound[-1])
            )
        total = value + candidate.smoothed_kinks.gap
        if best is None or total < best[0]:
            best = (total, h)
    assert best is not None
    _, h = best
    smoothed = loss.smoothed(h)
    return smoothed, SmoothingRule(h, grid.size)


def form_bounds(lam: Any, forms: list[tuple[str | Mechanism, Budget]], n: int, q: float,
                p: int, loss: Loss, *, centered: bool = False) -> list[float]:
    """Per (mechanism, budget) of ``forms``: the bound :func:`resolve_lam` and
    :func:`resolve_smoothing` minimize, at their choices of Λ (``lam``: "auto" or given) and h,
    on one public problem (∞ where the noise cannot be calibrated). ``mechanism="auto"`` keeps
    the lower of a linear learner's two forms, each with its own budget
    (docs/privacy/front_door.md#privacy-mechanism-auto); ``centered``: as for
    :func:`resolve_lam`.

    Parameters
    ----------
    lam : float or "auto"
        Λ given, or "auto".
    forms : list of (str or Mechanism, Budget)
        The forms weighed, each with its own budget.
    n : int
        The number of rows.
    q : float
        The row-norm bound.
    p : int
        The number of parameters.
    loss : Loss
        The loss.
    centered : bool, default=False
        As for :func:`resolve_lam`.

    Returns
    -------
    list of float
        One bound per form (inf where the noise cannot be calibrated).

    Examples
    --------
    >>> from dpconvex import Budget
    >>> from dpconvex.objectives.losses import get_regression_loss
    >>> from dpconvex.privacy.rules.noise_level import form_bounds
    >>> forms = [("gaussian_objective", Budget(1.0, 2e-6)), ("objective", Budget(1.0))]
    >>> gaussian, pure = form_bounds("auto", forms, 700, 1.4, 10,
    ...                              get_regression_loss("huber", (-1.0, 1.0)))
    >>> pure < gaussian   # few coordinates: the norm-Gamma noise is the smaller
    True
    """
    n, q, p = int(n), float(q), int(p)
    bounds = []
    for mechanism, budget in forms:
        mech = _named(mechanism, None)[0]
        smoothed = resolve_smoothing(loss, lam, mech, n, budget, q, p, centered=centered)[0]
        R, w = _weights(mech, smoothed, n * budget.epsilon / max(p, 1), centered)
        # the rule's four steps once, for its Λ and for its bound there
        problem = LinearERMTemplate.constants_for(smoothed, q, 1.0, p, n)
        grid = _calibrate_grid(mech, problem, budget)
        bound, floor = _bound(mech, problem, R, w, grid)
        value = _choice(bound, floor) if isinstance(lam, str) and lam == AUTO else float(lam)
        gap = getattr(getattr(smoothed, "smoothed_kinks", None), "gap", 0.0)
        uncalibrated = grid is None and mech.private and budget.private
        bounds.append(math.inf if uncalibrated else
                      float(np.interp(np.log(value), np.log(LAM_GRID), bound)) + gap)
    return bounds


# ----------------------------------------------------------------- the noise warning
#: ``linear``: derived, the released direction is within arcsin(1/ρ) of a random one
#: (privacy-noise-warning-linear).
LINEAR_NOISE_RATIO = 1.0
#: ``gd``: measured between breast cancer at ε = 0.1 (0.959) and wine at ε = 1 (0.855)
#: (privacy-noise-warning-gd-centroids).
GD_NOISE_RATIO = 0.9
#: ``centroid``: measured (privacy-noise-warning-gd-centroids).
CENTROID_NOISE_RATIO = 1.0
#: ``nb``: the noise on a class's mean of a mapped feature against that mean's half-range 1
#: (privacy-nb-noise-warning).
NB_NOISE_RATIO = 1.0
#: ``ssp``: measured on the regression corpus's selection seeds (privacy-noise-warning-ssp).
SSP_NOISE_RATIO = 0.5
#: ``large_margin``: the noise term's gradient E‖b‖/n against the largest data gradient G.
LARGE_MARGIN_NOISE_RATIO = 1.0
#: ``softmax``: measured at the defaults (benchmarks/recorded/large_margin_noise_dominance.md).
SOFTMAX_NOISE_RATIO = 0.5
#: The threshold of each family.
THRESHOLDS: dict[str, float] = {
    "linear": LINEAR_NOISE_RATIO, "gd": GD_NOISE_RATIO, "centroid": CENTROID_NOISE_RATIO,
    "nb": NB_NOISE_RATIO,
    "ssp": SSP_NOISE_RATIO, "large_margin": LARGE_MARGIN_NOISE_RATIO,
    "softmax": SOFTMAX_NOISE_RATIO}

#: The last sentences of every classifier's "noise is large" warning: what a check on public
#: quantities cannot see (docs/privacy/tuning_gd_ledger.md#privacy-noise-warning-linear). No
#: data statistic enters it.
PUBLIC_CHECK_NOTE = (
    "This check reads public quantities only (n, p, epsilon, delta and the public bounds), not "
    "the strength "
    "of the signal in the data: a model can be no better than the majority class without this "
    "warning too. "
    "Compare any private model with the majority class on held-out rows (e.g. "
    "sklearn.dummy.DummyClassifier)."
)

#: The same note for a regressor: its baseline is a constant prediction (the training mean).
REGRESSION_CHECK_NOTE = (
    "This check reads public quantities only (n, p, epsilon, delta and the public bounds), "
    "not the strength of the signal in the data: a model can be no better than a constant "
    "prediction without this warning too. Compare any private model with the training "
    "labels' mean on held-out rows (e.g. sklearn.dummy.DummyRegressor)."
)

#: A phrase of the noisy-GD message (the one-vs-rest fit folds its C binary warnings into one).
_GD_PHRASE = "the noise on the averaged gradient steps"
#: The phrase of each family's message that a one-vs-rest fit silences in its binary fits.
_OVR_PHRASES = {"gd": _GD_PHRASE, "linear": "x the largest possible data gradient at the start"}


def _large_margin(template: ConstantsSource, mech: Mechanism, budget: Budget) -> float | None:
    """√p s/(n G), s the coordinate scale of the objective's noise (approximate minima: its
    inner mechanism at the whole budget)."""
    inner = getattr(mech, "inner", mech)
    if not mech.private or inner.placement != "objective":
        return None
    try:
        cal = inner.calibrate(template, budget)
    except PrivacyError:
        return None  # the release itself reports a calibration that cannot be made
    consts = template.privacy_constants()
    s = float(cal.coordinate_scale)  # a calibration without a noise law: refused by name
    return math.sqrt(consts.dimension) * s / (template.n * consts.grad_bound)


def _ssp(template: ConstantsSource, mech: Mechanism, budget: Budget,
         calibration: Calibration | None) -> float | None:
    """R / (n q̃²/p + λ_given), R the bound on the noise's spectral norm
    (``noise_norm_bound``)."""
    from ..mechanisms.ssp import noise_norm_bound

    if not getattr(mech, "private", False) or "sufficient_statistics" not in mech.needs:
        return None
    cal = calibration if calibration is not None else mech.calibrate(template, budget)
    scale = float(mech.scales(cal)["gram"])  # type: ignore[attr-defined]
    bound = noise_norm_bound(scale, template.p)
    given = 0.0 if template.ridge is None else float(template.ridge)
    return bound / (template.n * template.data_norm**2 / template.p + given)


def _calibrated(template: ConstantsSource, mech: Mechanism,
                budget: Budget) -> Calibration | None:
    """The mechanism's calibration on ``template``, for a caller without the release's; None
    where none can be made (the release itself reports it)."""
    try:
        return mech.calibrate(template, budget)
    except (DPConvexError, ValueError, ArithmeticError):
        return None


def _slope_share(loss: Loss | None) -> float:
    """|ℓ'(0)| / L: the share of its slope bound L a margin loss has at θ = 0, ℓ'(0) as the
    solver evaluates it (1, the worst case, for a loss that cannot say, or none)."""
    try:
        d0 = abs(float(np.ravel(loss.value_and_deriv(np.zeros(1))[1])[0]))
        L = float(loss.deriv_bound)
    except (AttributeError, TypeError, ValueError, IndexError):
        return 1.0
    return d0 / L if 0.0 < d0 <= L and math.isfinite(L) else 1.0


def _gradient(template: ConstantsSource, mech: Mechanism, budget: Budget,
              calibration: Calibration | None, worst_case: bool) -> float | None:
    """ρ₀ (ρ with ``worst_case``) of a margin loss, by where the noise enters (module
    docstring: ``linear``; ``gd`` before its factor for the classes)."""
    cal = calibration if calibration is not None else _calibrated(template, mech, budget)
    if cal is None:
        return None
    noise = float(cal.expected_norm)  # a calibration without a noise law: refused by name
    share = 1.0 if worst_case else _slope_share(getattr(template, "loss", None))
    if mech.placement == "gradient":  # G of one record's loss gradient, and the clip C
        clip, G = float(cal.extra["clip"]), template.loss.deriv_bound * template.data_norm
        return noise / (clip if worst_case else min(clip, share * G))
    consts = calibrated_constants(template, cal)
    if mech.placement == "objective":
        return noise / (template.n * (share * float(consts.grad_bound)))
    if mech.placement == "output":
        return noise * float(consts.strong_convexity) / (share * float(consts.grad_bound))
    return None


def _class_mean(template: ConstantsSource, mech: Mechanism, budget: Budget, n: int,
                norm: bool) -> float | None:
    """s C / n (``norm``: times √d), s the coordinate scale of the noise on the class sums
    (module docstring: ``centroid``, ``nb``)."""
    cal = _calibrated(template, mech, budget)
    if cal is None:
        return None
    rho = float(cal.coordinate_scale) * template.C / n
    return rho * math.sqrt(template.d) if norm else rho


def noise_ratio(family: str, template: ConstantsSource, mech: Mechanism, budget: Budget, *,
                calibration: Calibration | None = None, n: int | None = None,
                n_classes: int = 2, worst_case: bool = False,
                norm: bool = False) -> float | None:
    """ρ of ``family`` (module docstring), from public quantities only; None: nothing to check.

    Only the template's public facts are read; ``budget`` is the release's (one binary
    model's under one-vs-rest); ``calibration`` the release's when already computed (``linear``,
    ``gd``, ``ssp``: read, not recomputed; its noise law weighed); ``n`` the public rows
    (``centroid``; None: no ratio); ``n_classes`` C (``gd``); ``worst_case`` (linear, gd) the
    bound at any θ instead of at θ = 0; ``norm`` (``centroid``) E‖noise on a mean‖ = ρ √d
    instead of its sd along a direction. A private mechanism whose calibration holds no noise
    law raises the :class:`ParameterError` naming it.

    Parameters
    ----------
    family : str
        A key of ``THRESHOLDS`` ("linear", "gd", "centroid", "nb", "ssp", "large_margin",
        "softmax").
    template : Template or PrivacyConstants
        The problem (its public facts only).
    mech : Mechanism
        The release's mechanism.
    budget : Budget
        The release's (ε, δ).
    calibration : Calibration or None, default=None
        The release's calibration, where already computed.
    n : int or None, default=None
        The public rows (``centroid``).
    n_classes : int, default=2
        C (``gd``).
    worst_case : bool, default=False
        The bound at any θ instead of at θ = 0 (``linear``, ``gd``).
    norm : bool, default=False
        E‖noise on a mean‖ instead of its sd along a direction (``centroid``).

    Returns
    -------
    float or None
        ρ, or None: nothing to check.

    Raises
    ------
    ParameterError
        A private mechanism whose calibration holds no noise law.

    Examples
    --------
    >>> from dpconvex.privacy.rules.noise_level import noise_ratio
    >>> from dpconvex.templates.statistics import EmpiricalRiskTemplate
    >>> # template = LinearERMTemplate(Logistic(), lam=0.1, data_norm=1.0, X=X, y=y): conftest.py
    >>> round(noise_ratio("linear", template, get_mechanism("objective"), Budget(1.0)), 3)
    0.319
    >>> noise_ratio("linear", template, get_mechanism("none"), Budget.unlimited()) is None
    True
    >>> gd = EmpiricalRiskTemplate(Logistic(), 1.0, X, y)
    >>> mech = get_mechanism("noisy_gd", steps=20, accounting="rdp")
    >>> round(noise_ratio("gd", gd, mech, Budget(1.0, 1e-5), n_classes=4), 3)
    0.752
    """
    if family in ("linear", "gd", "centroid", "nb") and not getattr(mech, "private", False):
        return None
    if family == "linear":
        return _gradient(template, mech, budget, calibration, worst_case)
    if family == "gd":
        rho = _gradient(template, mech, budget, calibration, worst_case)
        return None if rho is None else rho * max(1.0, n_classes / 2.0)
    if family in ("centroid", "nb"):
        return None if n is None else _class_mean(template, mech, budget, n, norm)
    if family == "ssp":
        return _ssp(template, mech, budget, calibration)
    if family in ("large_margin", "softmax"):
        return _large_margin(template, mech, budget)
    raise ValueError(f"noise_ratio: unknown family {family!r}. Use one of {sorted(THRESHOLDS)}.")


def noise_dominates(family: str, template: ConstantsSource, mech: Mechanism, budget: Budget,
                    **public: Any) -> bool:
    """Whether :func:`warn_if_noise_dominates` warns: ρ above the family's threshold.

    Parameters
    ----------
    family, template, mech, budget
        As for :func:`noise_ratio`.
    **public
        The further public quantities of :func:`noise_ratio`.

    Returns
    -------
    bool

    Examples
    --------
    >>> from dpconvex.privacy.rules.noise_level import noise_dominates
    >>> template = LinearERMTemplate(Logistic(), 0.1, 1.0, np.zeros((40, 3)), np.ones(40))
    >>> mech = get_mechanism("objective")
    >>> noise_dominates("linear", template, mech, Budget(0.1))
    True
    >>> noise_dominates("linear", template, mech, Budget(1.0))
    False
    """
    rho = noise_ratio(family, template, mech, budget, **public)
    return rho is not None and rho > THRESHOLDS[family]


def _message(family: str, rho: float, template: ConstantsSource, mech: Mechanism, budget: Budget,
             calibration: Calibration | None, n: int | None, n_classes: int, epsilon: float | None,
             regression: bool) -> str:
    """The warning's text: ρ, the public quantities it reads, the remedies, the closing note."""
    at = f"at epsilon = {budget.epsilon:g} the noise is large for this problem"
    if family == "linear":
        if n_classes > 2 and epsilon is not None:
            at = (f"at epsilon = {budget.epsilon:.3g} for each of the {n_classes} one-vs-rest "
                  f"models (the fit's epsilon = {epsilon:g} split over them) the noise is large "
                  "for this problem")
        angle = math.degrees(math.asin(1.0 / rho))
        baseline = "a constant prediction" if regression else "the majority class"
        note = REGRESSION_CHECK_NOTE if regression else PUBLIC_CHECK_NOTE
        cal = calibration if calibration is not None else mech.calibrate(template, budget)
        p = math.prod(cal.noise_shape)  # the noise coordinates its law is on
        return (
            f"{at}: its expected norm is {rho:.2g} x the largest possible data gradient at the "
            "start (p = "
            f"{p} noise coordinates, n = {template.n}; public quantities only), so the model's "
            "direction "
            f"is within {angle:.0f} degrees of a random one (to first order): the model is "
            f"likely no better than {baseline}. Use a larger epsilon, more rows, or fewer "
            "features "
            f"(docs/privacy/tuning_gd_ledger.md#privacy-noise-warning-linear). {note}"
        )
    if family == "gd":
        where = f"at epsilon = {budget.epsilon:g}, delta = {budget.delta:.3g}"
        if n_classes > 2:
            where = (
                f"at epsilon = {epsilon:g} (epsilon = {budget.epsilon:.3g}, delta = "
                f"{budget.delta:.3g} for each of the {n_classes} one-vs-rest models; ratio x "
                f"{n_classes / 2:g} for the share of a model's gradient that separates the "
                "classes)"
            )
        return (
            f"{where} the noise is large for this problem: {_GD_PHRASE} has expected norm "
            f"{rho:.2g} x "
            f"the largest data gradient at the start (p = {template.p} parameters, n = "
            f"{template.n} "
            f"rows; public quantities only; threshold {GD_NOISE_RATIO:g}), so the model is likely "
            "no "
            "better than the majority class. Use a larger epsilon, a larger delta, more rows, "
            "fewer "
            "features or classes, or PrivateGaussianCentroid (one noisy release, no noise per "
            "step) "
            "(docs/privacy/tuning_gd_ledger.md#privacy-noise-warning-gd-centroids). "
            f"{PUBLIC_CHECK_NOTE}"
        )
    if family == "centroid":
        remedy = (
            "a larger epsilon or more rows"
            if not mech.pure
            else "a larger epsilon, more rows, or delta > 0 (mechanism='auto' then takes the "
            "Gaussian form, whose noise does not grow with the number of classes and features)"
        )
        return (
            f"{at}: the noise on a class mean at the expected class count n/C = {n}/{template.C} "
            "has "
            f"standard deviation {rho:.2g} along any direction (per-coordinate noise scale "
            f"{rho * n / template.C:.3g}, d = {template.d} features; public quantities only, "
            "threshold "
            f"{CENTROID_NOISE_RATIO:g}), while the class means lie in the unit ball, so the model "
            "is "
            f"likely no better than the majority class. Use {remedy}, or fewer classes "
            "(docs/privacy/tuning_gd_ledger.md#privacy-noise-warning-gd-centroids). "
            f"{PUBLIC_CHECK_NOTE}"
        )
    if family == "nb":
        return (
            f"{at}: the noise on a class's mean of each feature (mapped onto [-1, 1] by its "
            "public range) at "
            f"the expected class count n/C = {n}/{template.C} has standard deviation {rho:.2g} "
            "(public "
            f"quantities only, threshold {NB_NOISE_RATIO:g}), as wide as the range the means lie "
            "in, so the "
            "model is likely no better than the majority class. Use a larger epsilon, more rows "
            "or fewer "
            f"classes (docs/privacy/gaussian_nb.md#privacy-nb-noise-warning). {PUBLIC_CHECK_NOTE}"
        )
    if family == "ssp":
        remedy = ("a larger epsilon, more rows, or fewer features" if not mech.pure else
                  "a larger epsilon, more rows, fewer features, or delta > 0 (the Gaussian "
                  "form, whose noise on X^T X does not grow with the number of its entries)")
        return (
            f"{at}: the bound on the noise in X^T X that the ridge must cover is {rho:.2g} x the "
            "largest "
            f"smallest eigenvalue any n rows can give X^T X (n q~^2 / p with n = {template.n}, p "
            "= "
            f"{template.p} columns including the intercept; public quantities only, threshold "
            f"{SSP_NOISE_RATIO:g}), so the ridge or the noise takes over the directions the rows "
            "fill "
            f"least and the model is likely no better than a constant prediction. Use {remedy} "
            "(docs/privacy/sufficient_statistics.md#privacy-noise-warning-ssp). "
            f"{REGRESSION_CHECK_NOTE}"
        )
    return (  # large_margin, softmax
        f"at epsilon = {budget.epsilon:g} the objective's noise is large for this problem: its "
        "expected "
        f"norm over n is {rho:.2g} x the largest possible data gradient (p = "
        f"{template.privacy_constants().dimension} noise coordinates, n = {template.n}); the "
        "released "
        "model is likely no better than the majority class. Use a larger epsilon or fewer "
        "features, DP "
        "class centroids (PrivateGaussianCentroid, or mechanism='centroid': what the defaults "
        "release "
        "with delta > 0 at small n*epsilon/C), or delta > 0 (Gaussian objective perturbation; "
        "docs/privacy/large_margin_softmax.md#privacy-large-margin-softmax, "
        "privacy-centroid-switch). "
        f"{PUBLIC_CHECK_NOTE}"
    )


def warn_if_noise_dominates(
    family: str,
    template: ConstantsSource,
    mech: Mechanism,
    budget: Budget,
    owner: str,
    *,
    calibration: Calibration | None = None,
    n: int | None = None,
    n_classes: int = 2,
    epsilon: float | None = None,
    regression: bool = False,
) -> float | None:
    """Warn (a :class:`PrivacyWarning`, before the noise is drawn) when ρ exceeds its threshold.

    Returns ρ (or None). ``owner`` opens the message; ``epsilon`` is the total ε a
    one-vs-rest fit splits over its ``n_classes`` models; ``regression``: a
    regressor's baseline and note (:data:`REGRESSION_CHECK_NOTE`); the others are
    :func:`noise_ratio`'s (a fit's release passes its calibration: ``noise_warning``).

    Parameters
    ----------
    family, template, mech, budget
        As for :func:`noise_ratio`.
    owner : str
        Opens the message.
    calibration, n, n_classes
        As for :func:`noise_ratio`.
    epsilon : float or None, default=None
        The total ε a one-vs-rest fit splits over its ``n_classes`` models.
    regression : bool, default=False
        A regressor's baseline and note.

    Returns
    -------
    float or None
        ρ, or None.

    Warns
    -----
    PrivacyWarning
        ρ above the family's threshold.

    Examples
    --------
    >>> import warnings
    >>> from dpconvex import Budget, PrivacyWarning
    >>> from dpconvex.privacy.rules.noise_level import warn_if_noise_dominates
    >>> template = LinearERMTemplate(Logistic(), 0.1, 1.0, np.zeros((40, 3)), np.ones(40))
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     rho = warn_if_noise_dominates("linear", template, get_mechanism("objective"),
    ...                                   Budget(0.1), "demo")
    ...
    >>> rho > 1, [w.category is PrivacyWarning for w in caught]
    (True, [True])
    """
    rho = noise_ratio(family, template, mech, budget, calibration=calibration, n=n,
                      n_classes=n_classes)
    if rho is not None and rho > THRESHOLDS[family]:
        text = _message(
            family, rho, template, mech, budget, calibration, n, n_classes, epsilon, regression
        )
        warnings.warn(f"{owner}: {text}", PrivacyWarning, stacklevel=user_stacklevel())
    return rho


@contextlib.contextmanager
def _quiet_binary(phrase: str) -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=f".*{phrase}", category=PrivacyWarning)
        yield


def ovr_noise_warning(est: BaseEstimator, plan: Any, owner: str, family: str
                      ) -> contextlib.AbstractContextManager[None]:
    """A one-vs-rest fit's one noise warning (``family`` "gd" or "linear"), before its fits.

    Reads the fit's ``plan`` only (public: n, p, C; one binary model's ε/C, δ/C, through
    ``public_template``); the message names the split. Returns a context manager that
    silences the C binary fits' own warnings of the family (``linear``: the same ratio, C
    times; ``gd``: their ratio, without the factor C/2, is never above the one-vs-rest one).

    Parameters
    ----------
    est : BaseEstimator
        The one-vs-rest estimator.
    plan : FitPlan
        Its plan.
    owner : str
        Opens the message.
    family : {"gd", "linear"}
        The family of the ratio.

    Returns
    -------
    contextlib.AbstractContextManager
        Silences the binary fits' own warnings of the family.

    Examples
    --------
    >>> import warnings
    >>> from dpconvex import NoisyGradientDescent
    >>> from dpconvex.privacy.rules.noise_level import ovr_noise_warning
    >>> est = NoisyGradientDescent(epsilon=0.1, steps=20, accounting="rdp")
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     quiet = ovr_noise_warning(est, est.plan(100, 3, 4), "demo", "gd")
    ...
    >>> len(caught)
    1
    >>> with quiet:
    ...     pass   # the three binary fits run here, without their own warnings
    ...
    """
    one = plan.sub_plans[0]
    try:
        template = est.public_template(one)
    except (DPConvexError, ValueError, TypeError):
        template = None
    if template is not None:
        warn_if_noise_dominates(family, template, one.mechanism, one.budget, owner,
                                n_classes=plan.n_classes, epsilon=float(est.epsilon))
    return _quiet_binary(_OVR_PHRASES[family])


def _shape_problem(
    est: BaseEstimator, X: Any, n_classes: int
) -> tuple[Any, Mechanism, Budget] | None:
    """(template of the public problem, mechanism, budget) of one binary model of ``est`` at
    X's shape (no rows read)."""
    shape = getattr(X, "shape", None)
    if shape is None or len(shape) != 2 or not shape[0] >= 1:
        return None
    try:
        plan = est.plan(int(shape[0]), max(2, int(n_classes)), int(shape[1]))
        one = plan.sub_plans[0] if plan.sub_plans else plan
        return est.public_template(one), one.mechanism, one.budget
    except (DPConvexError, ValueError, TypeError):
        return None


def estimator_noise_dominance(
    est: BaseEstimator,
    X: Any,
    y: Any = None,
    *,
    n_classes: int | None = None,
    worst_case: bool = False,
) -> tuple[float | None, Any, Mechanism | None, Budget | None]:
    """(ρ, template, mechanism, budget) a fit of ``est`` on (X, y) would warn with, unfitted.

    For experiments and tests: with ``n_classes`` (``gd``) the shape of X and C only;
    otherwise the template the fit would build (``plan_for``, ``prepare``; no noise, no
    solve): ``ssp`` for sufficient statistics, ``linear`` for the others.

    Parameters
    ----------
    est : BaseEstimator
        The unfitted estimator.
    X : array-like
        The rows.
    y : array-like or None, default=None
        The labels.
    n_classes : int or None, default=None
        C: with it, the shape of X and C only (``gd``).
    worst_case : bool, default=False
        As for :func:`noise_ratio`.

    Returns
    -------
    tuple
        (ρ, template, mechanism, budget).

    Examples
    --------
    >>> from dpconvex import NoisyGradientDescent, PrivateLogisticRegression
    >>> from dpconvex.privacy.rules.noise_level import estimator_noise_dominance
    >>> est = NoisyGradientDescent(epsilon=1.0, steps=20, accounting="rdp")
    >>> rho, template, mech, budget = estimator_noise_dominance(est, np.zeros((1000, 4)),
    ...                                                         n_classes=2)
    >>> round(rho, 3), template.p, budget.epsilon
    (0.022, 5, 1.0)
    >>> X = np.random.default_rng(0).normal(size=(200, 3))
    >>> est = PrivateLogisticRegression(epsilon=1.0, classes=[0, 1])
    >>> round(estimator_noise_dominance(est, X, (X[:, 0] > 0).astype(int))[0], 3)
    0.105
    """
    if n_classes is not None:
        problem = _shape_problem(est, X, n_classes)
        if problem is None:
            return None, None, None, None
        rho = noise_ratio("gd", *problem, n_classes=n_classes, worst_case=worst_case)
        return (rho, *problem)
    plan = est.plan_for(X, y)
    template = est.prepare(X, y, plan).template
    family = (
        "ssp" if "sufficient_statistics" in getattr(template, "capabilities", ()) else "linear"
    )
    rho = noise_ratio(family, template, plan.mechanism, plan.budget, worst_case=worst_case)
    return rho, template, plan.mechanism, plan.budget
