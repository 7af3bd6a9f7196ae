"""A user's template: each constant it declares is checked, or named as declared and not verified.

A template dpconvex does not ship (:func:`~dpconvex.objectives.losses.shipped_derivation`: a
class written in a notebook, or a subclass of a shipped one) has its declarations checked
against its own functions by :func:`declaration_conditions`: p, μ, G (and r, c_u, T) probed
on records of its public ``record_domain``, its objective, gradient, residual and CVXPY form
compared (docs/privacy/user_objectives.md#privacy-user-objectives). A probe refutes, it does
not prove; a constant nothing can check is "declared, not verified"
(:attr:`Condition.unverified`), which :func:`~dpconvex.privacy.release.release` refuses
unless the caller vouches for it (:func:`vouched`). The checks that read the template's own
records refuse only false declarations (docs/privacy/user_objectives.md#privacy-vouch).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import describe_value, is_dpconvex_class
from ..errors import ParameterError, PrivacyError
from ..objectives.losses import shipped_derivation
from ..templates.base import PrivacyConstants, Template, natural_residual
from ..templates.linear_erm import RESIDUAL_TOL  # what dpconvex's own templates are solved to
from .certificate import Condition
from .checks import declared_number, user_code
from .mechanisms.facts import public_count
from .mechanisms.record_sets import record_set_read

__all__ = ["HESSIAN_PROBE_MAX_DIM", "THETA_SCALES", "VOUCHABLE", "DeclaredFacts",
           "declaration_conditions", "declared_facts", "probed_modulus",
           "users_objective", "vouch_names", "vouched"]

#: The constants a caller may vouch for (``vouch=``), as :attr:`Condition.unverified` names
#: them (a cell-sum row bound: ``"data_norm"``).
VOUCHABLE: tuple[str, ...] = (
    "deriv_bound",
    "curvature",
    "grad_bound",
    "hessian",
    "strong_convexity",
    "gradient_span",
    "space",
    "mechanism",
    "objective",
    "cvxpy_form",
    "distance_bound",
    "sensitivity",
    "data_norm",
    "backend",
    "convexity",
    "loss_forms",
    "template_conditions",
)


def vouch_names(value: str | Iterable[str]) -> tuple[str, ...]:
    """The names of a ``vouch`` value, as a tuple: a single name is a tuple of one. The one
    rule of every reader of ``vouch`` (an estimator's parameter, ``release``'s argument,
    :func:`vouched`); the names are not checked against :data:`VOUCHABLE` here.

    Parameters
    ----------
    value : str or iterable of str
        A name, or names.

    Returns
    -------
    tuple of str

    Examples
    --------
    >>> from dpconvex.privacy.declarations import vouch_names
    >>> vouch_names("curvature"), vouch_names(["curvature", "grad_bound"]), vouch_names(())
    (('curvature',), ('curvature', 'grad_bound'), ())
    """
    return (value,) if isinstance(value, str) else tuple(value)


#: Norms of the parameter points at which per-record gradients are probed: from 0 to far
#: beyond any minimizer a release is likely to reach (the noise is unbounded).
THETA_SCALES: tuple[float, ...] = (0.0, 1e-2, 1.0, 10.0, 1e2, 1e4, 1e8)

#: Largest parameter dimension at which per-record Hessians are probed by finite differences
#: (2p gradient evaluations per point).
HESSIAN_PROBE_MAX_DIM = 64

#: Relative tolerance of the probes of declared bounds (G, c_u, T, μ) and of the
#: consistency checks of objective, gradient and residual (double-precision sums of the
#: same terms agree to ~1e-12 relative; 1e-6 leaves room for reordering over many rows).
RTOL = 1e-6

#: Rows per chunk when a check sums per-record gradients over the template's own records.
_CHUNK = 8192


def _probe_rng() -> np.random.Generator:
    # the probe's points are public and reproducible; nothing here is noise of a release
    return np.random.default_rng(20_111)


def _probe_records(domain: Any) -> tuple[np.ndarray, np.ndarray]:
    """Records of the public domain: rows of norm q and q/2 (random directions and the
    coordinate axes), each with every probe label."""
    d, q = int(domain.n_features), float(domain.data_norm)
    rng = _probe_rng()
    unit = [Z / np.maximum(np.linalg.norm(Z, axis=1, keepdims=True), 1e-300)
            for Z in (rng.normal(size=(24, d)), rng.normal(size=(8, d)))]
    axes = np.eye(d)[: min(d, 8)] * q
    R = np.vstack([q * unit[0], 0.5 * q * unit[1], axes, -axes])
    labels = domain.probe_labels()
    return np.repeat(R, len(labels), axis=0), np.tile(np.asarray(labels, dtype=float), R.shape[0])


def _theta_points(shape: tuple[int, ...]) -> list[np.ndarray]:
    rng = _probe_rng()
    out = []
    for scale in THETA_SCALES:
        for _ in range(1 if scale == 0.0 else 2):
            t = rng.normal(size=shape)
            out.append(scale * t / max(float(np.linalg.norm(t)), 1e-300))
    return out


def _users(template: Any, name: str) -> bool:
    """Whether member ``name`` of ``template`` is the user's: set on the instance, or first
    stated by a class dpconvex does not ship."""
    owner = next((c for c in type(template).__mro__ if name in vars(c)), None)
    return name in getattr(template, "__dict__", {}) or (
        owner is not None and not is_dpconvex_class(owner)
    )


#: The members that compute what the checks of the objective and the records read: one set on
#: a shipped template's instance makes them the user's code (:func:`users_objective`).
_OBJECTIVE_MEMBERS = frozenset({"objective", "residual", "record_gradients", "record_domain"})


def users_objective(template: Any, changed: Iterable[str] = ()) -> bool:
    """Whether the objective of ``template`` (and its gradient, residual, record gradients and
    record domain) is the user's code: its class is not one dpconvex ships
    (:func:`~dpconvex.objectives.losses.shipped_derivation`, the test
    :func:`~dpconvex.privacy.user_parts.users_part` applies to a template), or one of those
    members is set on the instance (``changed``:
    :func:`~dpconvex.privacy.user_parts.user_parts`). A check of such code at probe points can
    refute it, never prove it: its conditions are declared, not verified (``"objective"``).

    Parameters
    ----------
    template : Template
        The template of a release.
    changed : iterable of str, default=()
        What of it is the user's although its class may be shipped
        (:func:`~dpconvex.privacy.user_parts.user_parts`).

    Returns
    -------
    bool

    Examples
    --------
    >>> from dpconvex.privacy.declarations import users_objective
    >>> t = LinearERMTemplate(Logistic(), 0.1, 1.0, X, y)
    >>> users_objective(t), users_objective(t, ["objective"])
    (False, True)
    >>> class Mine(LinearERMTemplate):
    ...     name = "mine"
    >>> users_objective(Mine(Logistic(), 0.1, 1.0, X, y))
    True
    """
    # a rows operator of the user's runs the user's code in every product the objective reads
    return (shipped_derivation(template) is None or bool(_OBJECTIVE_MEMBERS & set(changed))
            or _users_records(changed))


def _users_records(changed: Iterable[str]) -> bool:
    """Whether the rows or the labels are read through an object of the user's (the parts
    "rows ..." and "labels ..." of :func:`~dpconvex.privacy.user_parts.user_parts`)."""
    return any(part.startswith(("rows ", "labels ")) for part in changed)


#: What the caller vouches for with ``"objective"`` where the objective is the user's code.
_OBJECTIVE_CODE = (
    "objective() is the user's code, which a check at probe points can refute, never prove: "
    "that it is, at every point a solve reaches, the mean over the template's records of a "
    "convex loss plus the regularizer and the noise terms, its gradient and residual of that "
    "objective, reading those records only, rests on it"
)


#: What the caller vouches for with ``"objective"`` where noisy gradient descent reads the rows
#: and labels through code of the user's (capability ``"per_example_gradients"``).
_PER_EXAMPLE = (
    "the rows and labels (X, y) are read through code of the user's (the template's class, or "
    "an object of the user's it holds): that they are the template's n records, one row and one "
    "label per record, so that record i's gradient reads record i only, rests on it; the "
    "per-example clipping and the sensitivity 2C/n hold for per-record gradients only"
)


def _caller_name(template: Template) -> str:
    return getattr(template, "name", type(template).__name__)


def _unverified(name: str, constant: str, detail: str) -> Condition:
    return Condition(name, True, "declared, not verified", detail, unverified=constant)


def _check_grad_bound(template: Template, consts: PrivacyConstants, caller: str) -> Condition:
    domain, G, worst = template.record_domain, consts.grad_bound, 0.0
    X, y = _probe_records(domain)
    points = _theta_points(tuple(template.space.shape))
    for theta in points:
        grads = np.asarray(template.record_gradients(theta, X, y), dtype=float)
        norms = np.linalg.norm(grads.reshape(grads.shape[0], -1), axis=1)
        if not np.all(np.isfinite(norms)):
            raise PrivacyError(
                f"{caller}: G: record_gradients of template '{_caller_name(template)}' "
                "is not finite on a record of its public domain. Fix it."
            )
        worst = max(worst, float(np.max(norms, initial=0.0)))
    if worst > G * (1 + RTOL):
        raise PrivacyError(
            f"{caller}: G: template '{_caller_name(template)}' declares a per-record gradient "
            f"bound G = {G:g}, but record_gradients gives {worst!r} on a record of its public "
            f"domain (rows of norm <= {float(domain.data_norm):g}). That is a value G must "
            "exceed, "
            "not G: declare a grad_bound you have proved for every record of the domain and every "
            "parameter (the noise scales with it), or bound the loss's slope."
        )
    return _unverified(
        "G (per-record gradient bound)",
        "grad_bound",
        f"declared {G:g}; the probe of record_gradients on the public record domain found at "
        f"most {worst:.6g} over {X.shape[0]} records x {len(points)} parameter points of norm "
        f"up to {max(THETA_SCALES):g} (a probe refutes a bound, it does not prove one)",
    )


_HESSIAN = "Hessian rank r, term bound c_u, trace T"


def _check_hessians(template: Template, consts: PrivacyConstants, caller: str) -> Condition:
    shape = tuple(template.space.shape)
    p = int(np.prod(shape))
    r, c_u = consts.hessian_rank, consts.hessian_term_bound
    T = c_u * r if consts.hessian_trace_bound is None else consts.hessian_trace_bound
    if p > HESSIAN_PROBE_MAX_DIM:
        return _unverified(_HESSIAN, "hessian", f"declared r = {r}, c_u = {c_u:g}, T = {T:g}; "
                           f"p = {p} > {HESSIAN_PROBE_MAX_DIM}: not probed")
    X, y = _probe_records(template.record_domain)
    X, y = X[::3], y[::3]
    worst_eig, worst_trace, worst_rank, lowest = 0.0, 0.0, 0, 0.0
    for theta in _theta_points(shape)[:7]:
        h = 1e-5 * max(1.0, float(np.linalg.norm(theta)))
        cols = []
        for j in range(p):
            e = np.zeros(p)
            e[j] = h
            gp = np.asarray(template.record_gradients(theta + e.reshape(shape), X, y), dtype=float)
            gm = np.asarray(template.record_gradients(theta - e.reshape(shape), X, y), dtype=float)
            cols.append(((gp - gm) / (2 * h)).reshape(X.shape[0], p))
        H = np.stack(cols, axis=2)
        H = 0.5 * (H + np.transpose(H, (0, 2, 1)))
        eig = np.linalg.eigvalsh(H)
        worst_eig = max(worst_eig, float(eig.max(initial=0.0)))
        lowest = min(lowest, float(eig.min(initial=0.0)))
        worst_trace = max(worst_trace, float(np.max(np.trace(H, axis1=1, axis2=2), initial=0.0)))
        worst_rank = max(
            worst_rank, int(np.max(np.sum(eig > 1e-4 * max(1.0, c_u), axis=1), initial=0))
        )
    name = _caller_name(template)
    if lowest < -1e-4 * max(1.0, c_u):
        raise PrivacyError(f"{caller}: convexity: template '{name}': a per-record loss Hessian "
                           f"has eigenvalue {lowest:.3g} < 0 (finite differences of "
                           "record_gradients). Use a convex loss.")
    if (
        worst_eig > c_u * (1 + 1e-3) + 1e-6
        or worst_trace > T * (1 + 1e-3) + 1e-6
        or worst_rank > r
    ):
        raise PrivacyError(
            f"{caller}: Hessian: template '{name}' declares r = {r}, c_u = {c_u:g}, T = {T:g}, "
            f"but finite differences of record_gradients give rank {worst_rank}, largest "
            f"eigenvalue {worst_eig:.6g}, trace {worst_trace:.6g}. Declare constants at least "
            "these (the Jacobian slack grows with them).")
    return _unverified(
        _HESSIAN,
        "hessian",
        f"declared r = {r}, c_u = {c_u:g}, T = {T:g}; finite differences of record_gradients "
        f"on the public record domain found rank <= {worst_rank}, eigenvalue <= "
        f"{worst_eig:.6g}, trace <= {worst_trace:.6g} (a probe refutes, it does not prove)",
    )


def probed_modulus(reg: Any, shape: tuple[int, ...]) -> float:
    """The least ⟨∇R(a) − ∇R(b), a − b⟩ / ||a − b||² over public probe pairs of
    parameters of ``shape`` (norms from 1e-2 to 1e4): a strong-convexity modulus above it is
    false.

    Examples
    --------
    >>> from dpconvex.objectives import L2
    >>> from dpconvex.privacy.declarations import probed_modulus
    >>> round(probed_modulus(L2(0.5), (3,)), 12)
    0.5
    """
    rng, low = _probe_rng(), math.inf
    for scale in (1e-2, 1.0, 1e2, 1e4):
        a, b = scale * rng.normal(size=shape), scale * rng.normal(size=shape)
        diff = (a - b).ravel()
        gap = float(np.dot((np.asarray(reg.grad(a)) - np.asarray(reg.grad(b))).ravel(), diff))
        low = min(low, gap / float(diff @ diff))
    return low


def _check_modulus(template: Template, consts: PrivacyConstants, caller: str) -> Condition:
    reg = template.regularizer
    mu = consts.strong_convexity
    derivation = shipped_derivation(reg)
    name = _caller_name(template)
    if derivation is not None:
        have = float(reg.strong_convexity)
        if mu > have * (1 + 1e-12):
            raise PrivacyError(f"{caller}: strong convexity: template '{name}' declares mu = "
                               f"{mu:g}, but its regularizer {reg!r} is {have:g}-strongly convex. "
                               "Declare the regularizer's modulus.")
        return Condition(
            "strong convexity mu",
            True,
            f"derived from the regularizer ({derivation})",
            f"declared {mu:g} <= {reg!r}'s modulus {have:g}",
        )
    low = probed_modulus(reg, tuple(template.space.shape))
    if low < mu * (1 - RTOL):
        raise PrivacyError(f"{caller}: strong convexity: template '{name}' declares mu = {mu:g}, "
                           f"but its regularizer's gradient gives a modulus as low as {low:.6g}. "
                           "Declare the regularizer's real modulus.")
    return _unverified("strong convexity mu", "strong_convexity",
                       f"declared {mu:g}; the probe of the regularizer's gradient found "
                       f"<grad R(a) - grad R(b), a - b> / ||a - b||^2 >= {low:.6g} at the probed "
                       "pairs (a probe refutes, it does not prove)")


def _check_records(template: Template, caller: str, users: bool, n: int) -> Condition:
    """The template's own records lie in its public record domain, and there are ``n`` of them
    (its ``n`` as the release read it);
    where the objective is the user's code (``users``, :func:`users_objective`), that it reads
    these records is declared, not verified (``"objective"``).

    Reads the records (one pass) only to refuse a template whose declarations are false:
    the message names no statistic of them.
    """
    domain = template.record_domain
    name = _caller_name(template)
    X, y = template.X, np.asarray(template.y, dtype=float).reshape(-1)
    rows, cols = X.shape
    if rows != n or y.size != rows:
        raise PrivacyError(f"{caller}: records: template '{name}' declares n = {n}, but "
                           "its X and y hold another number of records. Declare n as the number "
                           "of records (every noise scale divides by it).")
    if cols != int(domain.n_features):
        raise PrivacyError(f"{caller}: records: template '{name}': its rows have {cols} entries, "
                           f"its record_domain {int(domain.n_features)}. Make them agree.")
    q = float(domain.data_norm)
    top = 0.0
    for start in range(0, rows, _CHUNK):
        block = X[start:start + _CHUNK]
        block = block.toarray() if hasattr(block, "toarray") else np.asarray(block, dtype=float)
        top = max(top, float(np.max(np.linalg.norm(block, axis=1), initial=0.0)))
    if not top <= q * (1 + 1e-12):
        raise PrivacyError(f"{caller}: records: template '{name}' has rows of norm above its "
                           f"record_domain's bound q = {q:g}. Clip the rows to q before building "
                           "the template.")
    if domain.labels is not None:
        inside = np.isin(y, np.asarray(domain.labels, dtype=float))
    else:
        lo, hi = (float(v) for v in domain.label_range)
        inside = (y >= lo) & (y <= hi)
    if not bool(np.all(inside)):
        raise PrivacyError(
            f"{caller}: records: template '{name}' has labels outside its record_domain. "
            "Encode the labels into the domain, or declare the domain they come from."
        )
    found = f"n = {rows} records, rows of norm <= q = {q:g}, labels in the domain"
    if users:
        return _unverified("records in the public record domain", "objective",
                           f"{found}: checked on every record the template holds (X, y); "
                           f"{_OBJECTIVE_CODE}")
    return Condition("records in the public record domain", True, "checked on every record",
                     found)


def _mean_record_gradient(template: Template, theta: np.ndarray) -> np.ndarray:
    X, y = template.X, np.asarray(template.y)
    n = X.shape[0]
    total = np.zeros(theta.size)
    for start in range(0, n, _CHUNK):
        block = np.asarray(template.record_gradients(theta, X[start:start + _CHUNK],
                                                     y[start:start + _CHUNK]), dtype=float)
        total += block.reshape(block.shape[0], -1).sum(axis=0)
    return total.reshape(theta.shape) / n


def _check_objective(template: Template, consts: PrivacyConstants, caller: str, users: bool,
                     n: int) -> list[Condition]:
    """objective = mean per-record loss + R + ⟨b, θ⟩/n (gradients compared), its value and
    gradient agree, the residual is at least the optimality residual over the space, and its
    modulus is at least the declared μ (of ``consts``, the record the other checks read).
    Where the objective is the user's code (``users``, :func:`users_objective`), these probes
    refute it or leave it declared, not verified (``"objective"``)."""
    name = _caller_name(template)
    shape, rng = tuple(template.space.shape), _probe_rng()
    theta = rng.normal(size=shape)
    b = rng.normal(size=shape)
    value, grad = template.objective(theta, b, 0.0)
    grad = np.asarray(grad, dtype=float).reshape(shape)
    conds = []
    if "per_record" in template.capabilities:
        expect = (
            _mean_record_gradient(template, theta)
            + np.asarray(template.regularizer.grad(theta)).reshape(shape)
            + b / n
        )
        err = float(np.linalg.norm(grad - expect))
        if err > RTOL * max(1.0, float(np.linalg.norm(expect))):
            raise PrivacyError(
                f"{caller}: objective: template '{name}': the gradient of objective() is not the "
                "mean of record_gradients over its records plus the regularizer's gradient and "
                "b/n. The constants are checked on record_gradients and the solvers minimize "
                "objective(): make them the same objective.")
        same = "objective = mean per-record loss + regularizer + noise term"
        conds.append(
            _unverified(same, "objective", f"not refuted at the probe point: the gradients of "
                        f"objective() and of the mean of record_gradients over the template's "
                        f"records agree there within {RTOL:g} (relative); {_OBJECTIVE_CODE}")
            if users else
            Condition(same, True, "numerical comparison of gradients on the template's records",
                      f"agree within {RTOL:g} (relative)"))
    else:  # no records to compare with: the noise term is checked, the rest declared
        zero = np.zeros(shape)
        moved = grad - np.asarray(template.objective(theta, zero, 0.0)[1], dtype=float).reshape(
            shape
        )
        if float(np.linalg.norm(moved - b / n)) > RTOL * max(1.0, float(np.linalg.norm(b / n))):
            raise PrivacyError(
                f"{caller}: objective: template '{name}': objective(theta, b) does not add <b, "
                "theta>/n "
                f"(n = {n}): its gradient moves by other than b/n. The noise is calibrated for "
                "that "
                "term: make objective() add it."
            )
        conds.append(
            _unverified(
                "objective = mean per-record loss + regularizer + noise term",
                "objective",
                f"declared (n = {n}); no record_gradients to compare it with: the "
                "convexity of its data part and n rest on it",
            )
        )
    mu, zero = consts.strong_convexity, np.zeros(shape)
    for scale in (1e-2, 1.0, 1e2):  # the objective's own modulus, probed: it refutes a false mu
        a, c = scale * rng.normal(size=shape), scale * rng.normal(size=shape)
        ga, gc = (
            np.asarray(template.objective(v, zero, 0.0)[1], dtype=float).reshape(shape)
            for v in (a, c)
        )
        if float(np.vdot(ga - gc, a - c)) < mu * (1 - RTOL) * float(np.vdot(a - c, a - c)):
            raise PrivacyError(
                f"{caller}: strong convexity: template '{name}' declares mu = {mu:g}, but its "
                "objective's gradient gives a lower modulus at a probed pair. Declare the modulus "
                "of "
                "the objective it minimizes."
            )
    # Δ of objective perturbation: the term ((λ + Δ)/2)||θ||² must grow by (Δ/2)||θ||²
    delta = 0.37
    value_d, grad_d = template.objective(theta, b, delta)
    grad_d = np.asarray(grad_d, dtype=float).reshape(shape)
    shift = delta * theta
    if float(np.linalg.norm(grad_d - grad - shift)) > RTOL * max(
        1.0, float(np.linalg.norm(shift))
    ) or abs(value_d - value - 0.5 * delta * float(np.vdot(theta, theta))) > RTOL * max(
        1.0, abs(float(value_d))
    ):
        raise PrivacyError(
            f"{caller}: objective: template '{name}': objective(theta, b, extra_reg) does not add "
            "(extra_reg/2)||theta||^2 to the objective (and extra_reg*theta to its gradient). "
            "Objective perturbation's extra strong convexity Δ is passed as extra_reg; a template "
            "that ignores it is solved with less strong convexity than its calibration assumes.")
    if float(template.residual(theta, b, delta)) < natural_residual(
            theta, grad_d, template.space.project) * (1 - RTOL):
        raise PrivacyError(
            f"{caller}: residual: template '{name}': residual(theta, b, extra_reg) is below the "
            "optimality residual of the objective with extra_reg: return at least "
            "||θ - Π(θ - ∇J(θ))|| for the objective it is given.")
    direction = rng.normal(size=shape)
    direction /= float(np.linalg.norm(direction))
    h = 1e-4
    vp = template.objective(theta + h * direction, b, 0.0)[0]
    vm = template.objective(theta - h * direction, b, 0.0)[0]
    fd, slope = (vp - vm) / (2 * h), float(np.sum(grad * direction))
    if abs(fd - slope) > 1e-4 * max(1.0, abs(fd), abs(float(value))):
        raise PrivacyError(
            f"{caller}: objective: template '{name}': the gradient objective() returns is not the "
            "derivative of the value it returns (central differences disagree). Fix the gradient: "
            "the solvers stop where it vanishes.")
    if float(template.residual(theta, b, 0.0)) < natural_residual(
            theta, grad, template.space.project) * (1 - RTOL):
        raise PrivacyError(
            f"{caller}: residual: template '{name}': residual() is below the optimality residual "
            "||θ - Π(θ - ∇J(θ))|| over its parameter space, so the accuracy check could accept a "
            "point that is not the minimizer. Return at least that residual.")
    consistent = "objective, gradient and residual consistent"
    conds.append(
        _unverified(consistent, "objective", "not refuted at the probe points (central "
                    "differences; residual >= ||θ - Π(θ - ∇J(θ))||; extra_reg adds "
                    f"(extra_reg/2)||θ||²; the modulus >= μ); {_OBJECTIVE_CODE}")
        if users else
        Condition(consistent, True, "numerical comparison (central differences; residual >= "
                  "||θ - Π(θ - ∇J(θ))||)", "at a probe point"))
    return conds


#: Scales of the random points whose projections onto the space a CVXPY form's constraints are
#: probed at (the objectives are compared at the last one).
_FORM_SCALES: tuple[float, ...] = (1.0, 10.0, 1e3)
#: The relative tolerance of the CVXPY form's objective against the template's objective().
_FORM_RTOL = 1e-6


def _check_cvxpy_form(template: Template, caller: str) -> Condition:
    """No constraint in the CVXPY form that the parameter space lacks, and the same objective,
    at probe points: refuted there, or stated as probed. Not a premise of the guarantee: a
    release with a user's part judges any backend's point by the template's residual
    (:func:`~dpconvex.privacy.user_parts.judged`)."""
    name = _caller_name(template)
    problem = template.cvxpy_problem()["problem"]
    shape = tuple(template.space.shape)
    candidates = [v for v in problem.variables() if tuple(v.shape) == shape]
    if len(candidates) != 1:
        return _unverified(
            "CVXPY form",
            "cvxpy_form",
            f"{len(candidates)} variables of the parameter shape {shape}: the CVXPY "
            "form could not be compared with the parameter space",
        )
    var = candidates[0]
    rng = _probe_rng()
    for scale in _FORM_SCALES:
        z = np.asarray(template.space.project(scale * rng.normal(size=shape)), dtype=float)
        var.value = z
        for constraint in problem.constraints:
            try:
                violation = float(np.max(constraint.violation()))
            except (ValueError, TypeError):  # involves other variables: not checkable here
                return _unverified("CVXPY form", "cvxpy_form",
                                   f"constraint {constraint} involves variables other than the "
                                   "parameter: it could not be compared with the parameter space")
            if violation > 1e-7 * (1.0 + float(np.linalg.norm(z))):
                raise PrivacyError(
                    f"{caller}: constraints: template '{name}': its CVXPY form has the constraint "
                    f"{constraint}, which its parameter space ({template.space!r}) does not hold. "
                    "The "
                    "native solvers minimize over the space and the accuracy check measures the "
                    "residual there, so no backend can honour the constraint for this template: "
                    "declare "
                    "the set in the space (a project() onto it) or drop the constraint."
                )
    b = rng.normal(size=shape)
    for delta in (0.0, 0.37):
        template.cvxpy_set(b, delta)
        var.value = z
        cvx = float(problem.objective.value)
        ref = float(template.objective(z, b, delta)[0])
        if not abs(cvx - ref) <= _FORM_RTOL * max(1.0, abs(ref)):
            raise PrivacyError(
                f"{caller}: forms: template '{name}': its CVXPY objective (after cvxpy_set(b, "
                f"extra_reg={delta:g})) and objective() disagree at a probe point. The CVXPY "
                "backends and the native solvers would minimize different objectives: make them "
                "one, with the noise b and Δ = extra_reg entering both.")
    template.cvxpy_set(None, 0.0)
    return Condition(
        "CVXPY form = objective over the parameter space",
        True,
        "probed (a probe refutes, it does not prove)",
        f"{len(problem.constraints)} constraint(s), each holding at the space's projections of "
        f"{len(_FORM_SCALES)} points of scale {', '.join(f'{v:g}' for v in _FORM_SCALES)}; "
        "the CVXPY objective after cvxpy_set(b, extra_reg) equal to objective(theta, b, "
        f"extra_reg) within {_FORM_RTOL:g} max(1, |objective|) at one point theta and one noise "
        "b, for extra_reg = 0 and 0.37. Not a premise of the guarantee: the point any backend "
        "returns is judged by the template's residual() (the accuracy check), so a CVXPY form "
        "that departs from objective() elsewhere releases nothing",
    )


def declaration_conditions(template: Template, needs: Iterable[str], caller: str = "release",
                           changed: Iterable[str] = (),
                           facts: DeclaredFacts | None = None) -> list[Condition]:
    """Check what a user's template declares for a mechanism's ``needs`` (a shipped template,
    one with a :func:`~dpconvex.objectives.losses.shipped_derivation`, is checked here only for
    the parts of it that are the user's, ``changed``:
    :func:`~dpconvex.privacy.user_parts.user_parts`).

    Returns how each declared constant was established (those nobody could check carry
    :attr:`Condition.unverified`); raises :class:`PrivacyError` when a probe refutes a
    declaration or two forms of the template disagree. ``caller`` opens the messages.
    ``facts``: the template's ``privacy_constants()``, ``n``, ``gradient_difference_rank`` and
    distance per unit of residual as the release read them once (:func:`declared_facts`), the
    record checked here (None: read here).

    Examples
    --------
    >>> from dpconvex.privacy.declarations import declaration_conditions
    >>> class Mine(LinearERMTemplate):      # a subclass is a user's template
    ...     name = "mine"
    >>> # np, X (40 rows of norm 1), y (labels ±1): the doctest namespace, conftest.py
    >>> t = Mine(Logistic(), 0.1, 1.0, X, np.where(X[:, 0] > 0, 1.0, -1.0))
    >>> [c.name for c in declaration_conditions(t, {"strong_convexity"})][:3]
    ['user template', 'dimension p', 'strong convexity mu']
    """
    needs = frozenset(needs)
    caps = frozenset(getattr(template, "capabilities", ()))
    changed = list(changed)
    what = (
        "a template dpconvex ships"
        if shipped_derivation(template) is not None
        else "not a template dpconvex ships"
    ) + (f", with parts that are the user's ({', '.join(changed)})" if changed else "")
    conds = [
        Condition(
            "user template",
            True,
            "named",
            f"{type(template).__qualname__} is {what}: each "
            "constant it declares is checked below, or named as not verified",
        )
    ]
    if any(part.startswith("rows ") for part in changed):
        conds.append(
            _unverified(
                "rows",
                "data_norm",
                "read through an operator of the user's: the norms "
                "and products it reports are its own",
            )
        )
    with user_code(caller, f"template '{_caller_name(template)}'", _CONTRACT):
        return conds + _declarations(template, needs, caps, caller, changed, facts)


#: The advice of a refusal of a user's template's code raising while its declarations are read.
_CONTRACT = ("while its declarations were checked. Follow the template contract "
             "(dpconvex.templates.base): arrays of the space's shape from objective and "
             "record_gradients (one row per record), a RecordDomain, a PrivacyConstants.")


@dataclass(frozen=True)
class DeclaredFacts:
    """The public facts a user's template declares, as a release read them once for its checks
    (:func:`declared_facts`): the record :func:`declaration_conditions` checks, and what the
    calibration and the solve tolerance must have used.

    Parameters
    ----------
    constants : Any
        What its ``privacy_constants()`` returned (its type checked by
        :func:`declaration_conditions`).
    n : int or None
        The number of records the template declares (its ``n``; None: the class sums' template
        states no number of records, which a calibration that reads one refuses).
    rank : Any, default=None
        Its ``gradient_difference_rank`` where the mechanism reads one (``"gradient_span"``),
        else None.
    per_residual : float or None, default=None
        Its ``distance_bound(1.0, mu)`` at the declared modulus μ, the distance to its exact
        minimizer per unit of residual an output placement's solve tolerance is computed from
        (None: its constants are not a PrivacyConstants, or its code raised: the checks read
        it again and refuse).
    record_set : Any, default=None
        The set one record's vector of the class sums lies in (capability ``"cell_sums"``):
        its ``record_set``, else the ball of its ``data_norm``
        (:func:`~dpconvex.privacy.mechanisms.record_sets.record_set_read`), what the condition
        "row norm bound of the cell sums" states and the class sums' calibration must have
        read (None: no class sums, or a ``data_norm`` that is no number, which the calibration
        refuses).
    data_norm : Any, default=None
        The ``data_norm`` that ball was read from (None where the template declares its
        ``record_set``).
    sensitivity : Any, default=None
        A selection's utility sensitivity Δu (capability ``"utilities"``), what the declared
        condition "utility sensitivity" states and the selection's calibration must have read.
    """

    constants: Any
    n: int | None
    rank: Any = None
    per_residual: float | None = None
    record_set: Any = None
    data_norm: Any = None
    sensitivity: Any = None


def declared_facts(template: Template, needs: Iterable[str],
                   caller: str = "release") -> DeclaredFacts | None:
    """A user's template's public facts, each read once for a release whose mechanism reads
    its constants (``needs``), where the template offers them (capability ``"objective"``):
    its ``privacy_constants()``, its ``n``, its ``gradient_difference_rank`` where the
    mechanism reads it (``"gradient_span"`` in ``needs``) and its ``distance_bound(1.0, mu)``;
    for a mechanism of the class sums (``"cell_sums"``), its record set and its ``n``; for a
    selection (``"utilities"``), its ``sensitivity`` and its ``n``.
    What :func:`declaration_conditions` checks and states, and what the calibration and the
    solve tolerance must have used. An exception of the template's code reading the constants,
    n, k, the record set or Δu is a :class:`PrivacyError`
    (:func:`~dpconvex.privacy.checks.user_code`).

    Parameters
    ----------
    template : Template
        The user's template.
    needs : iterable of str
        The capabilities the mechanism reads.
    caller : str, default="release"
        Who reads (named in the error).

    Returns
    -------
    DeclaredFacts or None
        The facts as read, or None where the mechanism reads no constants, class sums or
        utilities, or the template offers no constants.

    Examples
    --------
    >>> from dpconvex.privacy.declarations import declared_facts
    >>> class Mine(LinearERMTemplate):      # a subclass is a user's template
    ...     name = "mine"
    >>> t = Mine(Logistic(), 0.1, 1.0, X, np.where(X[:, 0] > 0, 1.0, -1.0))
    >>> facts = declared_facts(t, {"strong_convexity", "gradient_span"})
    >>> facts.constants.dimension, facts.n, facts.rank, facts.per_residual > 0
    (3, 40, 2, True)
    >>> declared_facts(t, {"sufficient_statistics"}) is None
    True
    """
    needs = frozenset(needs)
    if "cell_sums" in needs:
        return _class_sum_facts(template, caller)
    if "utilities" in needs:
        return _selection_facts(template, caller)
    if not (needs & {"strong_convexity", "curvature", "distance_bound"}
            and "objective" in frozenset(getattr(template, "capabilities", ()))):
        return None
    with user_code(caller, f"template '{_caller_name(template)}'", _CONTRACT):
        constants = template.privacy_constants()
        rank = (getattr(template, "gradient_difference_rank", None)
                if "gradient_span" in needs else None)
        n = int(template.n)
    per_residual = None
    if isinstance(constants, PrivacyConstants):
        try:  # a bound that raises is read again, and refused, by the checks
            per_residual = float(template.distance_bound(1.0, constants.strong_convexity))
        except Exception:
            per_residual = None
    return DeclaredFacts(constants, n, rank, per_residual)


def _class_sum_facts(template: Template, caller: str) -> DeclaredFacts:
    """The record set and ``n`` of a template of the class sums, each read once
    (:func:`declared_facts`): a ``data_norm`` missing or no number leaves the record set None,
    an ``n`` that is no number of records leaves n None (the calibration refuses either where
    it reads it)."""
    with user_code(caller, f"template '{_caller_name(template)}'", _CONTRACT):
        try:
            records, norm = record_set_read(template)
        except (AttributeError, TypeError, ValueError):  # the calibration refuses it
            records, norm = None, None
        n = getattr(template, "n", None)
    return DeclaredFacts(None, _count_or_none(n, caller), record_set=records, data_norm=norm)


def _selection_facts(template: Template, caller: str) -> DeclaredFacts:
    """A selection's Δu (its ``sensitivity``, None where it has none) and ``n`` (None: no
    number of records, which the calibration refuses), each read once
    (:func:`declared_facts`)."""
    with user_code(caller, f"template '{_caller_name(template)}'", _CONTRACT):
        sensitivity = getattr(template, "sensitivity", None)
        n = getattr(template, "n", None)
    return DeclaredFacts(None, _count_or_none(n, caller), sensitivity=sensitivity)


def _count_or_none(n: Any, caller: str) -> int | None:
    """``n`` as a number of records (:func:`~dpconvex.privacy.mechanisms.facts.public_count`),
    or None where it is none (the calibration that reads it refuses it)."""
    try:
        return public_count(n, caller)
    except PrivacyError:
        return None


def _check_constants(template: Template, consts: Any, caller: str) -> None:
    """Declared constants: a :class:`PrivacyConstants` of a class dpconvex ships (whose
    numbers were each read once, as built-in floats and ints), each number in its range (else
    a named error)."""
    name = _caller_name(template)
    if not (isinstance(consts, PrivacyConstants) and is_dpconvex_class(type(consts))):
        raise ParameterError(
            f"{caller}: template '{name}': privacy_constants() returned a "
            f"{type(consts).__qualname__}, not a PrivacyConstants (of a class dpconvex ships, "
            "which reads each number once): return PrivacyConstants(...).")
    for field_name, zero_ok, finite in (("grad_bound", False, True),
                                        ("hessian_term_bound", True, False),
                                        ("strong_convexity", False, True)):
        value = getattr(consts, field_name)
        if declared_number(value, zero_ok=zero_ok, finite=finite) is None:
            raise ParameterError(f"{caller}: template '{name}' declares {field_name} = "
                                 f"{describe_value(value)}; "
                                 "declare a finite float > 0 (hessian_term_bound: >= 0).")


def _constant_conditions(template: Template, consts: PrivacyConstants, needs: frozenset[str],
                         caps: frozenset[str], caller: str, users: bool, n: int
                         ) -> list[Condition]:
    """The declared constants, the records (``n`` of them), the objective and its CVXPY form,
    checked or named (``users``: the objective is the user's code, :func:`users_objective`)."""
    _check_constants(template, consts, caller)
    p = int(template.space.dimension)
    if consts.dimension != p:
        raise PrivacyError(f"{caller}: dimension: template '{_caller_name(template)}' declares "
                           f"p = {consts.dimension}, but its parameter space has dimension {p}. "
                           "Declare the space's dimension (the noise is drawn in it).")
    conds = [Condition("dimension p", True, "compared with the parameter space", f"p = {p}"),
             _check_modulus(template, consts, caller)]
    if "per_record" in caps:
        conds += [_check_records(template, caller, users, n),
                  _check_grad_bound(template, consts, caller)]
        if "curvature" in needs:
            conds.append(_check_hessians(template, consts, caller))
    else:
        none = "the template has no record_gradients (capability 'per_record') to check"
        conds.append(_unverified("G (per-record gradient bound)", "grad_bound",
                                 f"declared {consts.grad_bound:g}; {none} it on"))
        if "curvature" in needs:
            conds.append(_unverified(_HESSIAN, "hessian", f"declared; {none} them on"))
    conds += _check_objective(template, consts, caller, users, n)
    if "cvxpy" in caps:
        conds.append(_check_cvxpy_form(template, caller))
    return conds


#: Members set on a shipped template's instance that only its targeted conditions concern (the
#: rest of it is still what dpconvex derives).
_TARGETED = frozenset(
    {"residual_tol", "distance_bound", "gradient_difference_rank", "noise_symmetric"}
)


def _declarations(template: Template, needs: frozenset[str], caps: frozenset[str], caller: str,
                  changed: list[str], facts: DeclaredFacts | None) -> list[Condition]:
    targeted = (
        bool(changed) and shipped_derivation(template) is not None and set(changed) <= _TARGETED
    )
    conds: list[Condition] = []
    if needs & {"strong_convexity", "curvature", "distance_bound"}:
        if "objective" not in caps:
            raise PrivacyError(f"{caller}: template '{_caller_name(template)}' does not offer the "
                               "capability 'objective' (privacy_constants, objective, residual, "
                               "regularizer, distance_bound), which this mechanism reads.")
        facts = declared_facts(template, needs, caller) if facts is None else facts
        assert facts is not None  # the mechanism reads constants, and the template offers them
        consts = facts.constants
        conds += [] if targeted else _constant_conditions(
            template, consts, needs, caps, caller, users_objective(template, changed),
            int(facts.n))
        space = template.space
        symmetric = bool(getattr(template, "noise_symmetric", False))
        if (
            not is_dpconvex_class(type(space))
            or symmetric != bool(getattr(space, "symmetric", False))
            or any(part.startswith("space ") for part in changed)
        ):
            conds.append(
                _unverified(
                    "parameter space",
                    "space",
                    f"{type(space).__qualname__}: its map of "
                    "the noise (project_noise), projection and post-processing, and "
                    "the noise's symmetry, declared: not verified",
                )
            )
        tol, mu = float(template.residual_tol), consts.strong_convexity
        # the unconstrained
        per_residual = (float(template.distance_bound(1.0, mu)) if facts.per_residual is None
                        else facts.per_residual)
        # r/mu: a lower bound of any valid one
        below = not (float(template.distance_bound(RESIDUAL_TOL, mu))
                     >= RESIDUAL_TOL / mu * (1 - RTOL) and per_residual >= 1.0 / mu * (1 - RTOL))
        if (_users(template, "residual_tol") and not tol <= RESIDUAL_TOL) or (
                _users(template, "distance_bound") and below):
            conds.append(
                _unverified(
                    "solve accuracy",
                    "distance_bound",
                    f"residual_tol = {tol:g} (above "
                    f"{RESIDUAL_TOL:g}) or a distance_bound below residual/mu declared: the "
                    "accuracy check and the uncovered distance rest on them",
                )
            )
        if "gradient_span" in needs and (
            not targeted or _users(template, "gradient_difference_rank")
        ):
            C = int(getattr(consts, "softmax_classes", 0) or 0)
            conds.append(
                _unverified(
                    "span of per-record gradient differences",
                    "gradient_span",
                    f"k = {facts.rank} (the "
                    "template's gradient_difference_rank, which sets the Gaussian sigma)"
                    + (f" and the softmax form of {C} classes" if C >= 2 else "")
                    + ": not verified",
                )
            )
        if "distance_bound" in needs and (not targeted or _users(template, "distance_bound")):
            conds.append(_unverified("distance bound", "distance_bound",
                                     "declared distance_bound(residual, mu): not verified"))
    if targeted:
        return conds

    if "per_example_gradients" in needs and (
            shipped_derivation(template) is None or _users_records(changed)):
        conds.append(_unverified("per-example gradients", "objective", _PER_EXAMPLE))
    for need, constant in (("sufficient_statistics", "data_norm"), ("bounded_sum", "sensitivity"),
                           ("grid_counts", "sensitivity"), ("category_counts", "sensitivity")):
        if need in needs:  # statistics the template computes by itself, on bounds it declares
            conds.append(
                _unverified(
                    f"record bounds of the {need.replace('_', ' ')}",
                    constant,
                    "declared by the template, whose statistics are its own: not verified",
                )
            )
    if "utilities" in needs:  # Δu as read once (DeclaredFacts.sensitivity)
        facts = _selection_facts(template, caller) if facts is None else facts
        conds.append(
            _unverified(
                "utility sensitivity",
                "sensitivity",
                "declared "
                f"{'?' if facts.sensitivity is None else facts.sensitivity}: not verified",
            )
        )
    if "cell_sums" in needs:  # the record set as read once (DeclaredFacts.record_set)
        facts = _class_sum_facts(template, caller) if facts is None else facts
        shown = (f"data_norm {facts.data_norm}" if facts.data_norm is not None
                 else f"record_set {facts.record_set!r}" if facts.record_set is not None
                 else "data_norm ?")
        conds.append(_unverified("row norm bound of the cell sums", "data_norm",
                                 f"declared {shown}: not verified"))
    return conds


def vouched(conditions: list[Condition], vouch: Iterable[str], caller: str = "release",
            unused: str = "refuse") -> list[Condition]:
    """``conditions`` with the caller's vouching applied; raises while any stays unverified.

    Each condition with :attr:`Condition.unverified` set must name a constant in ``vouch``
    (else :class:`PrivacyError`); it is then :attr:`~Condition.vouched`, and its ``how``
    says that the caller vouched for it. A
    name in ``vouch`` that no condition needs is refused as a typo (ParameterError), unless
    ``unused="ignore"`` (an estimator's vouch, which serves whichever mechanism it chooses).

    Examples
    --------
    >>> from dpconvex import Condition, PrivacyError
    >>> from dpconvex.privacy.declarations import vouched
    >>> c = Condition("ℓ'' bound (c)", True, "declared, not verified", "declared 2", unverified="curvature")
    >>> vouched([c], ["curvature"])[0].vouched
    True
    >>> vouched([c], ["curvature"])[0].how
    'declared; vouched for by the caller (vouch=), not verified'
    >>> try:
    ...     vouched([c], [])
    ... except PrivacyError:
    ...     print("refused")
    refused
    """
    names = set(vouch_names(vouch))
    unknown = sorted(map(str, names - set(VOUCHABLE)))
    if unknown:
        raise ParameterError(
            f"{caller}: vouch names {unknown}, which are not constants a caller can "
            f"vouch for; use names from {list(VOUCHABLE)}."
        )
    unverified = {c.unverified for c in conditions if c.unverified}
    missing = [c for c in conditions if c.unverified and c.unverified not in names]
    extra = sorted(names - unverified)
    if extra and unused != "ignore":
        raise ParameterError(
            f"{caller}: vouch names {extra}, which no condition of this release rests on (the "
            f"unverified constants are {sorted(unverified) or 'none'}). Vouch only for what is "
            "listed."
        )
    if missing:
        lines = "; ".join(f"{c.name} [{c.unverified}]: {c.detail}" for c in missing)
        raise PrivacyError(
            f"{caller}: the proof rests on constants nobody verified: {lines}. Use what dpconvex "
            "ships for them (a loss stated with the atoms of dpconvex.objectives.atoms.ATOMS in "
            "a template dpconvex ships derives its constants; a selection's utilities computed "
            "by dpconvex's scoring have a derived sensitivity; its mechanisms, spaces and "
            "backends are reviewed), since a probe can refute a declaration, never prove it; "
            + ("what a template of the user's states in its own conditions() is its own "
               "statement, which no check of dpconvex reads; "
               if any(c.unverified == "template_conditions" for c in missing) else "")
            + "or, if you have proved them yourself, pass "
            f"vouch={tuple(sorted({c.unverified for c in missing} | names))!r} and the "
            "certificate will say that you vouched for them."
        )
    return [
        Condition(
            c.name,
            c.holds,
            "declared; vouched for by the caller (vouch=), not verified",
            c.detail,
            c.unverified,
            vouched=True,
        )
        if c.unverified
        else c
        for c in conditions
    ]
