"""Checks of a privacy proof's conditions: DCP convexity and numerical probes of declared bounds.

A probe cannot prove a bound, only refute it; certificates say how each
condition was established ("CVXPY DCP analysis", "numerical probe").
"""

from __future__ import annotations

import math

import cvxpy as cp
import numpy as np

from ..errors import PrivacyError
from ..objectives.losses import Loss
from .certificate import Condition

__all__ = ["PROBE_RTOL", "check_dcp_convex", "probe_loss"]

#: Relative tolerance of the numerical probes of declared bounds.
PROBE_RTOL = 1e-6


def check_dcp_convex(expr: cp.Expression, what: str, caller: str = "check_dcp_convex") -> Condition:
    """Convexity of a CVXPY expression by DCP analysis; raises PrivacyError if not convex.

    ``caller``: the public call that checks (``"LinearERMTemplate.conditions"``), opening
    the message.

    Examples
    --------
    >>> import cvxpy as cp
    >>> from dpconvex.privacy.checks import check_dcp_convex
    >>> w = cp.Variable(3)
    >>> c = check_dcp_convex(cp.sum_squares(w) + cp.norm1(w), "the objective")
    >>> c.holds, c.how
    (True, 'CVXPY DCP analysis')
    """
    if not expr.is_convex():
        raise PrivacyError(
            f"{caller}: convexity: {what} is not convex under CVXPY's DCP rules, so the "
            "privacy proofs (which need a convex objective) do not apply. Rewrite it "
            "with DCP-convex atoms (see https://www.cvxpy.org/tutorial/dcp/)."
        )
    return Condition("convexity", True, "CVXPY DCP analysis", f"{what} is DCP-convex")


def _probe_grid(kinks: tuple[float, ...]) -> np.ndarray:
    base = np.linspace(-50.0, 50.0, 20001)
    far = np.array([-1e6, -1e4, -1e3, -200.0, 200.0, 1e3, 1e4, 1e6])
    near = [k + s for k in kinks for s in (-1e-3, -1e-6, 0.0, 1e-6, 1e-3)]
    return np.unique(np.concatenate([base, far, np.asarray(near, dtype=float)]))


def probe_loss(loss: Loss, *, need_curvature: bool, caller: str = "probe_loss") -> list[Condition]:
    """Check a margin loss's declared constants against its own code, numerically.

    Probes, on a fine grid of margins (with points around declared kinks and far
    out): (i) convexity (finite-difference and declared ℓ'' >= 0); (ii) the
    declared derivative matches finite differences of the value, and
    ``value_and_deriv`` (what the native solver calls) matches both; (iii)
    |ℓ'| <= ``deriv_bound``; (iv) ℓ'' <= ``curvature`` (when needed). A probe
    cannot prove a bound, only refute it: the certificate says so. ``caller``: the public
    call that checks (``"LinearERMTemplate.conditions"``), opening the messages.

    Raises
    ------
    PrivacyError
        Naming the violated bound, where, and how to fix it.

    Examples
    --------
    >>> from dpconvex.objectives import HuberHinge
    >>> from dpconvex.privacy.checks import probe_loss
    >>> conds = probe_loss(HuberHinge(h=0.5), need_curvature=True)
    >>> [c.name for c in conds]
    ['loss convexity', "|ℓ'| bound", "ℓ'' bound (c)"]
    >>> all(c.holds for c in conds)
    True
    """
    conds: list[Condition] = []
    m = _probe_grid(loss.kinks)
    d1 = np.asarray(loss.deriv(m), dtype=float)
    v = np.asarray(loss.value(m), dtype=float)
    if not (np.all(np.isfinite(d1)) and np.all(np.isfinite(v))):
        raise PrivacyError(f"{caller}: loss '{loss.name}': value or derivative is not finite on "
                           "the probe grid. Fix the loss's value() and deriv().")
    # (ii) derivative consistent with value (central differences on the interior grid)
    hstep = 1e-5
    mi = np.linspace(-20.0, 20.0, 4001)
    fd = (loss.value(mi + hstep) - loss.value(mi - hstep)) / (2 * hstep)
    err = np.abs(fd - loss.deriv(mi))
    if np.max(err) > 1e-4 * max(1.0, float(np.max(np.abs(fd)))):
        k = int(np.argmax(err))
        raise PrivacyError(
            f"{caller}: derivative: loss '{loss.name}' declares deriv({mi[k]:.4g}) = "
            f"{float(loss.deriv(mi[k])):.6g} but finite differences of value give {fd[k]:.6g}. "
            "Fix the loss's deriv() so the declared bounds are about the real derivative."
        )
    # (ii-b) the fused value_and_deriv the solvers use is the same function
    vf, df = (np.asarray(a, dtype=float) for a in loss.value_and_deriv(m))
    bad = ~(np.isclose(vf, v, rtol=1e-10, atol=1e-300) & np.isclose(df, d1, rtol=1e-10, atol=1e-15))
    if np.any(bad):
        k = int(np.argmax(bad))
        raise PrivacyError(
            f"{caller}: value_and_deriv: loss '{loss.name}' returns ({float(vf[k]):.6g}, "
            f"{float(df[k]):.6g}) "
            f"at m = {m[k]:.4g}, but value() and deriv() give ({float(v[k]):.6g}, "
            f"{float(d1[k]):.6g}). Fix value_and_deriv (or remove it) so the solver minimizes the "
            "loss whose bounds were checked."
        )
    # (i) convexity: derivative non-decreasing
    dd = np.diff(d1)
    if np.min(dd) < -1e-9:
        k = int(np.argmin(dd))
        raise PrivacyError(
            f"{caller}: convexity: loss '{loss.name}' has a decreasing derivative near m = {m[k]:.4g} "
            "(the numerical probe found it non-convex). Use a convex loss."
        )
    conds.append(Condition("loss convexity", True, "numerical probe",
                           f"ℓ' non-decreasing on {m.size} margins in [-1e6, 1e6]"))
    # (iii) derivative bound
    obs = float(np.max(np.abs(d1)))
    if obs > loss.deriv_bound * (1 + PROBE_RTOL):
        k = int(np.argmax(np.abs(d1)))
        raise PrivacyError(
            f"{caller}: derivative bound: loss '{loss.name}' declares |ℓ'| <= "
            f"{loss.deriv_bound:g}, but the "
            f"numerical probe found |ℓ'({m[k]:.4g})| = {obs:.6g}. Declare deriv_bound >= "
            f"{obs:.6g} (the noise scales with it) or bound the loss's slope."
        )
    conds.append(Condition("|ℓ'| bound", True, "declared; numerical probe",
                           f"declared {loss.deriv_bound:g}, max observed {obs:.6g}"))
    if need_curvature:
        c = float(loss.curvature)
        d2 = np.asarray(loss.deriv2(m), dtype=float)
        fd2 = np.diff(d1) / np.diff(m)
        obs2 = float(max(np.max(d2), np.max(fd2)))
        if np.min(d2) < -1e-12:
            raise PrivacyError(
                f"{caller}: convexity: loss '{loss.name}' declares a negative second derivative "
                f"({np.min(d2):.3g}). Use a convex loss."
            )
        if not math.isfinite(c) or obs2 > c * (1 + 1e-3) + 1e-12:
            raise PrivacyError(
                f"{caller}: curvature bound: loss '{loss.name}' declares ℓ'' <= {c:g}, but the numerical "
                f"probe found {obs2:.6g}. Declare curvature >= {obs2:.6g} (the Jacobian slack "
                "scales with it)."
            )
        conds.append(Condition("ℓ'' bound (c)", True, "declared; numerical probe",
                               f"declared {c:g}, max observed {obs2:.6g}"))
    return conds
