"""A public rule for the regularization strength Λ of the linear learners (``lam="auto"``).

:func:`auto_lam` picks Λ as the minimizer over :data:`LAM_GRID` of a public bound on the
excess regularized risk (derived in docs/privacy/perturbation.md#privacy-lambda-rule), with
G = L q and the mechanism's :class:`~dpconvex.privacy.mechanisms.NoiseReport` on the grid:

    bound(Λ) = μ_eff R²/2 + w G²/(n μ_eff) + noise(Λ)
    objective placement:  noise = E‖b‖² / (2 n² μ_eff)
    output placement:     noise = (Λ + c q²/p) E‖b‖² / 2
    no noise (baseline):  noise = 0

R (:data:`REFERENCE_NORMS`) and w (:data:`STABILITY_WEIGHTS`) are fixed per placement of the
noise before any data are read; on the objective the result is never below the report's
``modulus_floor``. It reads n, ε, q, p, the loss constants and the mechanism, never X or y.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ...errors import ParameterError, PrivacyError
from ..budget import Budget
from ..certificate import LamRule

if TYPE_CHECKING:
    from ...objectives.losses import Loss
    from ..mechanisms.base import Mechanism, NoiseReport, PublicProblem

__all__ = ["AUTO", "LAM_GRID", "REFERENCE_NORM", "REFERENCE_NORMS", "REGRESSION_RECORDS",
           "STABILITY_WEIGHTS", "auto_lam", "delta_floor", "grid_report", "reference_norm_for",
           "resolve_lam", "stability_weight_for"]

#: The accepted string value of ``lam``.
AUTO = "auto"

#: R, the reference predictor norm of the bias term, per placement of the noise (the
#: objective, also for the non-private baseline, or the output); "regression": the floor of
#: a regression loss's R (:data:`REGRESSION_RECORDS`). Chosen on validation splits of the
#: TRAINING data of Adult and KDDCup99, never on a test set
#: (benchmarks/lam_rule_validation.py, docs/privacy/perturbation.md#privacy-lambda-rule).
REFERENCE_NORMS = {"objective": 16.0, "output": 8.0, "regression": 1.0}
#: R of objective placement (the default mechanism), kept as the module's one-number summary.
REFERENCE_NORM = REFERENCE_NORMS["objective"]

#: A regression loss (labels on [-1, 1]) on the objective: R = n·ε/(p · REGRESSION_RECORDS)
#: within [1, 16]: a large Λ where the noise dominates, the classifiers' R with many records.
#: Chosen on the regression corpus's selection seeds among one R for all fits (0.5 to 16) and
#: k = 25, 50, 100, 200, 400 (docs/privacy/perturbation.md#privacy-lambda-rule).
REGRESSION_RECORDS = 100.0

#: w, the weight of the stability term G²/(n μ_eff) (a worst case over distributions that
#: over-regularizes at full weight where n is large against the noise), per placement of
#: the noise: objective chosen among 1, 1/4, 1/16 and 0 on the corpus's selection seeds,
#: output the 1 that R = 8 was chosen with (privacy-lambda-rule).
STABILITY_WEIGHTS = {"objective": 1.0 / 16.0, "output": 1.0}


def _rule_constants(mechanism: str | Mechanism, loss: str | Loss | None, records: float | None
                    ) -> tuple[Mechanism, Loss | None, float, float]:
    """(mechanism, loss, R, w) of the rule for a mechanism and a loss (names or objects; loss
    None: a margin loss) and r = n·ε/p (:func:`reference_norm_for`, :func:`stability_weight_for`)."""
    if isinstance(mechanism, str):
        from ..mechanisms import get_mechanism

        mechanism = get_mechanism(mechanism, "lam='auto'")
    if isinstance(loss, str):
        from ...objectives.losses import get_loss

        loss = get_loss(loss)
    placement = getattr(mechanism, "placement", None)
    key = "output" if placement == "output" else "objective"
    w = STABILITY_WEIGHTS[key]
    if key == "output" or loss is None or getattr(loss, "kind", "margin") != "regression":
        return mechanism, loss, REFERENCE_NORMS[key], w
    r = 0.0 if records is None or math.isnan(float(records)) else float(records)
    low, high = REFERENCE_NORMS["regression"], REFERENCE_NORMS["objective"]
    return mechanism, loss, float(min(high, max(low, r / REGRESSION_RECORDS))), w


def stability_weight_for(mechanism: str | Mechanism) -> float:
    """w of :data:`STABILITY_WEIGHTS` for the placement of a mechanism's noise (name or object).

    Examples
    --------
    >>> from dpconvex.privacy.rules.lam import stability_weight_for
    >>> stability_weight_for("objective"), stability_weight_for("output")
    (0.0625, 1.0)
    """
    return _rule_constants(mechanism, None, None)[3]


def reference_norm_for(mechanism: str | Mechanism, loss: str | Loss | None = None,
                       records: float | None = None) -> float:
    """R of :data:`REFERENCE_NORMS` for the placement of a mechanism's noise (name or object);
    for a regression loss on the objective, r / :data:`REGRESSION_RECORDS` within [1, 16]
    (``records``: r = n·ε/p; None: 1).

    Examples
    --------
    >>> from dpconvex.privacy.rules.lam import reference_norm_for
    >>> reference_norm_for("objective"), reference_norm_for("output")
    (16.0, 8.0)
    >>> from dpconvex.objectives.losses import get_regression_loss
    >>> huber = get_regression_loss("huber", (-1.0, 1.0))
    >>> [reference_norm_for("objective", huber, r) for r in (20.0, 400.0, 1e5)]
    [1.0, 4.0, 16.0]
    """
    return _rule_constants(mechanism, loss, records)[2]


#: Log-spaced candidates searched for the minimum of the bound (public, fixed).
LAM_GRID = np.logspace(-9, 3, 1201)
LAM_GRID.flags.writeable = False


def _constants(n: int, q: float, p: int, loss: Loss) -> PublicProblem:
    """The public problem of a linear fit before its template exists (Λ left at 1)."""
    from ...templates.base import PrivacyConstants
    from ..mechanisms import PublicProblem

    c_u = float(loss.curvature) * q * q
    consts = PrivacyConstants(grad_bound=loss.deriv_bound * q, hessian_rank=1,
                              hessian_term_bound=c_u, strong_convexity=1.0, dimension=p,
                              hessian_trace_bound=c_u)
    return PublicProblem(n=n, constants=consts, gradient_difference_rank=2,
                         name="linear ERM (public shape)")


def grid_report(mechanism: str | Mechanism, n: int, epsilon: float, q: float, p: int,
                loss: str | Loss, *, delta: float = 0.0) -> NoiseReport | None:
    """The mechanism's :class:`~dpconvex.privacy.mechanisms.NoiseReport` on :data:`LAM_GRID`.

    Computed once per rule application; None when there is no noise to weigh (the
    non-private baseline, ε = ∞, or a calibration that cannot be made: the release
    reports it).

    Raises
    ------
    ParameterError
        The mechanism does not report its noise (named), or the report needs a δ > 0.

    Examples
    --------
    >>> from dpconvex.privacy.rules.lam import LAM_GRID, grid_report
    >>> rep = grid_report("objective", 1000, 1.0, 1.0, 5, "logistic")
    >>> rep.placement, rep.expected_norm.shape == LAM_GRID.shape
    ('objective', True)
    """
    mech, loss, _, _ = _rule_constants(mechanism, loss, None)
    if not getattr(mech, "private", False) or not math.isfinite(float(epsilon)):
        return None
    problem = _constants(int(n), float(q), int(p), loss)
    try:  # a mechanism without a report raises the ParameterError naming it
        return mech.noise_report(problem, Budget(float(epsilon), float(delta)), LAM_GRID)
    except PrivacyError:  # e.g. objective perturbation with an unbounded curvature
        return None


def delta_floor(n: int, epsilon: float, q: float, loss: str | Loss) -> float:
    """Smallest Λ at which objective perturbation adds no Δ: c q² / (n (e^{ε/2} - 1)) for the
    one-sided slack, read from
    :func:`~dpconvex.privacy.mechanisms.perturbation.objective_modulus_floor`.

    Examples
    --------
    >>> from dpconvex.privacy.rules.lam import delta_floor
    >>> round(delta_floor(1000, 1.0, 1.0, "logistic"), 6)
    0.000385
    """
    from ..mechanisms.perturbation import objective_modulus_floor

    if isinstance(loss, str):
        from ...objectives.losses import get_loss

        loss = get_loss(loss)
    if not math.isfinite(loss.curvature * q * q):
        return 0.0
    return objective_modulus_floor(epsilon, int(n), _constants(int(n), float(q), 1, loss).constants)


def auto_lam(mechanism: str | Mechanism, n: int, epsilon: float, q: float, p: int,
             loss: str | Loss, *, reference_norm: float | None = None,
             stability_weight: float | None = None, delta: float = 0.0,
             report: NoiseReport | None = None) -> float:
    """Λ from public quantities only: the minimizer of the bound of the module docstring.

    ``mechanism`` (or its name) reports its noise on the objective or the output (else a
    :class:`ParameterError`), or is the non-private baseline; n, ε, q (the row-norm bound)
    and p count the intercept column; ``loss`` declares ``deriv_bound`` and ``curvature``;
    R and w default to :func:`reference_norm_for`, :func:`stability_weight_for`; ``report``
    is :func:`grid_report`'s (None computes it). Returns Λ > 0 to 3 significant digits,
    never below the report's modulus floor.

    Examples
    --------
    >>> from dpconvex.privacy.rules.lam import auto_lam
    >>> lam = auto_lam("objective", n=1000, epsilon=1.0, q=1.0, p=5, loss="logistic")
    >>> lam > 0
    True
    >>> auto_lam("objective", 10000, 1.0, 1.0, 5, "logistic") <= lam   # more rows: less regularization
    True
    """
    return resolve_lam(AUTO, mechanism, n, epsilon, q, p, loss, delta=delta, report=report,
                       reference_norm=reference_norm, stability_weight=stability_weight)[0]


def _bound(mech: Mechanism, n: int, q: float, p: int, loss: Loss, R: float, w: float,
           report: NoiseReport | None) -> tuple[np.ndarray, float]:
    """The bound of the module docstring on :data:`LAM_GRID`, and the floor of Λ (the
    smallest Λ at which objective perturbation adds no Δ; 0 elsewhere)."""
    G = loss.deriv_bound * q
    c = float(loss.curvature)
    c_u = c * q * q
    lam = LAM_GRID
    floor = 0.0
    if report is None:
        mu_eff, noise = lam, np.zeros_like(lam)  # no noise (or a refusal follows in release)
    elif report.placement == "output":
        mu_eff, sq_norm = lam, report.expected_sq_norm
        curv = c_u / p if math.isfinite(c_u) else 0.0
        noise = (lam + curv) * sq_norm / 2.0
        if not math.isfinite(c_u):  # Lipschitz form for a loss without a curvature bound
            noise = lam * sq_norm / 2.0 + G * report.expected_norm / math.sqrt(p)
    elif report.placement == "objective":
        mu_eff = report.modulus_eff
        noise = report.expected_sq_norm / (2.0 * n * n * mu_eff)
        floor = report.modulus_floor
    else:
        raise ParameterError(
            f"auto_lam: lam='auto' weighs noise on the objective or the output; mechanism "
            f"{getattr(mech, 'name', mech)!r} places its noise on the {report.placement} "
            "(no Λ to choose): pass a numeric lam.")
    return mu_eff * R * R / 2.0 + w * G * G / (n * mu_eff) + noise, floor


#: Half-widths h searched by :func:`resolve_smoothing`, in units of the loss's scale (a
#: margin for a margin loss, the width of the label range for a regression loss).
SMOOTHING_GRID = np.logspace(-3, 1, 17)
SMOOTHING_GRID.flags.writeable = False


def resolve_smoothing(loss: Loss, lam: Any, mechanism: str | Mechanism, n: int, epsilon: float,
                      q: float, p: int, *, delta: float = 0.0) -> tuple[Loss, str | None]:
    """The loss at the half-width h of its kinks chosen with Λ from public quantities only.

    For a loss stated with kinks and ``smoothing="auto"``
    (:meth:`~dpconvex.objectives.Loss.from_cvxpy`), h minimizes the Λ rule's bound (at the
    Λ it chooses, or at the given ``lam``) plus the smoothing's largest change of the loss,
    over :data:`SMOOTHING_GRID` times the loss's scale: a small h keeps the loss close to the
    stated one but raises its curvature (the Jacobian slack and Δ of objective
    perturbation), a large h the reverse (docs/privacy/user_objectives.md#privacy-smoothing).
    Any other loss is returned as it is, with no note.

    Examples
    --------
    >>> import cvxpy as cp
    >>> from dpconvex.objectives import Loss
    >>> from dpconvex.privacy.rules.lam import resolve_smoothing
    >>> hinge = Loss.from_cvxpy(lambda m: cp.pos(1 - m))
    >>> smoothed, note = resolve_smoothing(hinge, "auto", "objective", 1000, 1.0, 1.0, 5)
    >>> smoothed.smoothed_kinks.h > 0, smoothed.curvature < float("inf"), note.startswith("loss")
    (True, True, True)
    """
    if not getattr(loss, "smoothing_unresolved", False):
        return loss, None
    mech, _, R, w = _rule_constants(mechanism, loss, float(n) * float(epsilon) / max(int(p), 1))
    lo_hi = loss.label_range
    scale = 1.0 if lo_hi is None else float(lo_hi[1]) - float(lo_hi[0])
    given = not (isinstance(lam, str) and lam == AUTO)
    best: tuple[float, float, Loss] | None = None
    for h in SMOOTHING_GRID * scale:
        h = float(f"{h:.3g}")
        candidate = loss.smoothed(h)
        report = grid_report(mech, int(n), epsilon, float(q), int(p), candidate, delta=delta)
        bound, floor = _bound(mech, int(n), float(q), int(p), candidate, R, w, report)
        if given:
            value = float(np.interp(np.log(float(lam)), np.log(LAM_GRID), bound))
        else:
            value = float(np.min(bound[LAM_GRID >= floor])) if np.any(LAM_GRID >= floor) \
                else float(bound[-1])
        total = value + candidate.smoothed_kinks.gap
        if best is None or total < best[0]:
            best = (total, h, candidate)
    assert best is not None
    _, h, smoothed = best
    return smoothed, (
        f"loss smoothed at half-width h = {h:g} chosen by the public rule smoothing='auto' "
        "(dpconvex.privacy.rules.lam.resolve_smoothing, "
        "docs/privacy/user_objectives.md#privacy-smoothing): the h of "
        f"{SMOOTHING_GRID.size} candidates minimizing the Λ rule's bound plus the largest "
        f"change of the loss, from n, epsilon, q, p and the loss's constants only")


def resolve_lam(lam: Any, mechanism: str | Mechanism, n: int, epsilon: float, q: float, p: int,
                loss: str | Loss, *, delta: float = 0.0, reference_norm: float | None = None,
                stability_weight: float | None = None, report: NoiseReport | None = None
                ) -> tuple[float, LamRule]:
    """(Λ, the certificate's Λ rule): ``lam`` itself, or for ``lam="auto"`` the rule of
    :func:`auto_lam` (its arguments ``reference_norm``, ``stability_weight`` and ``report``).

    The mechanism's noise is evaluated once (:func:`grid_report`) for both the rule and
    the note.

    Examples
    --------
    >>> from dpconvex.privacy.rules.lam import resolve_lam
    >>> resolve_lam(0.1, "objective", 1000, 1.0, 1.0, 5, "logistic")[0]
    0.1
    >>> lam, rule = resolve_lam("auto", "objective", 1000, 1.0, 1.0, 5, "logistic")
    >>> lam > 0, rule.rule, rule.lam == lam
    (True, 'auto', True)
    """
    if not (isinstance(lam, str) and lam == AUTO):
        value = float(lam)
        return value, LamRule(value)
    mech, loss, R, w = _rule_constants(mechanism, loss, float(n) * float(epsilon) / max(int(p), 1))
    R = float(R if reference_norm is None else reference_norm)
    w = float(w if stability_weight is None else stability_weight)
    if report is None:
        report = grid_report(mech, int(n), epsilon, float(q), int(p), loss, delta=delta)
    bound, floor = _bound(mech, int(n), float(q), int(p), loss, R, w, report)
    value = max(float(f"{float(LAM_GRID[int(np.argmin(bound))]):.3g}"), floor)
    mech_name = report.mechanism if report is not None else mech.name
    eps = report.epsilon if report is not None else float(epsilon)
    return value, LamRule(value, AUTO, (
        "lam='auto' "
        "(dpconvex.privacy.rules.lam.auto_lam, docs/privacy/perturbation.md#privacy-lambda-rule): the "
        "minimizer of "
        f"a bias + stability + noise bound from public quantities only: mechanism "
        f"{mech_name}, n = {int(n)}, epsilon = {eps:g}, delta = {float(delta):g}, "
        f"q = {q:.6g}, p = {int(p)}, "
        f"|l'| <= {loss.deriv_bound:g}, l'' <= {loss.curvature:g}, reference norm "
        f"R = {R:g}, stability weight w = {w:g}; no data value is read"))
