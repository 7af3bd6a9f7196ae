"""Where one record's contribution to the class sums lies, and the sensitivities that follow.

A record (x, c) adds e_c ⊗ (u, w) to the joint vector V ∈ R^{C × (k + 1)} of the class-sum
mechanisms (:mod:`dpconvex.privacy.mechanisms.gaussian`), u a public per-record map of x and w
the public count weight. The set u lies in fixes the replace-one sensitivity of V in each norm
of :data:`NORMS` (‖V‖₂; Σ_c ‖V_c‖₂ of ``"knorm_sum"``; Σ_c ‖V_c‖_∞ of ``"knorm_sup_sum"``):
the largest change over the set of one row (same class), two rows (another class) or one row
(a record outside the label set). :class:`NormBall` (‖u‖₂ <= B, the class centroids:
docs/privacy/large_margin.md#privacy-class-centroids) and :class:`MomentBox` (u = (t, 2t² − 1),
t ∈ [−1, 1]^d, Gaussian naive Bayes: docs/privacy/gaussian_nb.md#privacy-nb-sensitivities). A
template declares its set as ``record_set`` (default: ``NormBall(template.data_norm)``,
:func:`record_set_of`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ..._validation import check_option

if TYPE_CHECKING:
    from ...templates.base import Template

__all__ = ["MOMENT_SAME_CLASS_L2", "NORMS", "MomentBox", "NormBall", "RecordSet", "record_set_of",
           "record_set_read"]

#: The norms a record set states its replace-one sensitivity in.
NORMS: tuple[str, ...] = ("l2", "block_l2", "block_linf")

#: G = max over t, t′ ∈ [−1, 1] of (t − t′)² + (2t² − 2t′²)² = 71/16 + √2/2 (at t = 1,
#: t′ = (√2 − 2)/4): the squared L2 change of one feature's (t, 2t² − 1)
#: (docs/privacy/gaussian_nb.md#privacy-nb-sensitivities).
MOMENT_SAME_CLASS_L2 = 71.0 / 16.0 + math.sqrt(2.0) / 2.0


class RecordSet(Protocol):
    """What the class-sum mechanisms read of the set U of one record's vector u: ``width``
    (the entries of u in terms of the features d, "d" or "2d"), the certificate's statements
    of U (``bound_line``) and of the public map that puts every record in U
    (``assumption``), and the replace-one sensitivity of V in a norm of :data:`NORMS` with
    its certificate line (each kind of neighbour's change and the maximum)."""

    width: str
    bound_line: str
    assumption: str

    def sensitivity(self, norm: str, count_weight: float) -> float: ...

    def sensitivity_detail(self, norm: str, count_weight: float) -> str: ...


def _check_norm(norm: str, owner: str) -> str:
    return check_option("norm", norm, NORMS, f"{owner}.sensitivity")


@dataclass(frozen=True)
class NormBall:
    """U = {u : ‖u‖₂ <= B}: the class centroids' feature vectors
    (docs/privacy/large_margin.md#privacy-class-centroids).

    Same class: ‖u − u′‖ <= 2B in every norm used here (‖·‖_∞ <= ‖·‖₂); two classes: the rows
    (u, w) and (u′, w), of L2 norm <= √(B² + w²) and sup norm <= max(B, w).

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.record_sets import NormBall
    >>> ball = NormBall(1.0)
    >>> ball.sensitivity("l2", 1.0), round(ball.sensitivity("block_l2", 0.5), 4)
    (2.0, 2.2361)
    >>> ball.sensitivity("block_linf", 1.0)
    2.0
    """

    bound: float = 1.0
    width = "d"

    @property
    def bound_line(self) -> str:
        return f"every feature vector u has ||u|| <= {self.bound:g}"

    @property
    def assumption(self) -> str:
        return (
            f"feature vectors u are a per-record public map, clipped to ||u|| <= {self.bound:g}; "
            "preprocessing that reads the data is not covered"
        )

    def sensitivity(self, norm: str, count_weight: float) -> float:
        b, w = float(self.bound), float(count_weight)
        norm = _check_norm(norm, type(self).__name__)
        if norm == "l2":
            return max(2.0 * b, math.sqrt(2.0 * (b * b + w * w)))
        if norm == "block_l2":
            return max(2.0 * b, 2.0 * math.sqrt(b * b + w * w))
        return max(2.0 * b, 2.0 * max(b, w))

    def sensitivity_detail(self, norm: str, count_weight: float) -> str:
        b, w = float(self.bound), float(count_weight)
        sens = self.sensitivity(norm, w)
        if norm == "l2":
            return (f"rows (s_c, w n_c), w = {w:g}: same class ||u - u'|| <= {2 * b:g}; "
                    f"two classes sqrt(2 (B^2 + w^2)) = {math.sqrt(2 * (b * b + w * w)):.6g}; "
                    f"L2 sensitivity {sens:.6g}")
        if norm == "block_l2":
            return (f"rows (s_c, w n_c), w = {w:g}, in the norm sum_c ||V_c||: same class "
                    f"||u - u'|| <= {2 * b:g}; two classes ||(u, w)|| + ||(u', w)|| <= "
                    f"2 sqrt(B^2 + w^2) = {2 * math.sqrt(b * b + w * w):.6g}; label outside the "
                    f"set ||(u, w)|| <= {math.sqrt(b * b + w * w):.6g}; sensitivity {sens:.6g}")
        return (
            f"rows (s_c, w n_c), w = {w:g}, in the norm sum_c ||V_c||_inf: same class ||u - "
            "u'||_inf "
            f"<= {2 * b:g}; two classes 2 max(B, w) = {2 * max(b, w):g}; sensitivity {sens:.6g}"
        )


@dataclass(frozen=True)
class MomentBox:
    """U = {(t, 2t² − 1) : t ∈ [−1, 1]^d}: one record's features and their squares.

    The features x are clipped to their public ranges [lo_j, hi_j] and mapped onto
    t_j = (2x_j − lo_j − hi_j)/(hi_j − lo_j) ∈ [−1, 1]; the squares are mapped onto
    s_j = 2t_j² − 1 ∈ [−1, 1] (docs/privacy/gaussian_nb.md#privacy-nb-sensitivities).
    Per feature, with a = t − t′ and σ = t + t′ (|a| + |σ| <= 2):

    * same class: (t − t′)² + (s − s′)² = a²(1 + 4σ²) <= G = :data:`MOMENT_SAME_CLASS_L2`,
      and max(|t − t′|, |s − s′|) <= 2 (at t = −t′ = 1), |t − t′| + |s − s′| <= 25/8;
    * one row: t² + s² <= 2 and max(|t|, |s|) <= 1 (at t = ±1).

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.record_sets import MomentBox
    >>> box = MomentBox(13)
    >>> round(box.sensitivity("l2", 1.0), 4), box.sensitivity("block_linf", 1.0)
    (8.178, 2.0)
    >>> round(MomentBox(1).sensitivity("l2", 1.0) ** 2, 6)  # two classes: 2 (2d + w^2)
    6.0
    """

    n_features: int
    width = "2d"

    @property
    def bound_line(self) -> str:
        return (f"every record's vector u = (t, 2 t^2 - 1) has t in [-1, 1]^{self.n_features} "
                "(features clipped to their public ranges and mapped onto [-1, 1])")

    @property
    def assumption(self) -> str:
        return (
            "feature vectors u = (t, 2 t^2 - 1) are a per-record public map: each feature "
            "clipped to its public range [lo, hi] and mapped onto t = (2x - lo - hi) / (hi - lo); "
            "preprocessing that reads the data is not covered"
        )

    def _parts(self, norm: str, w: float) -> tuple[float, float]:
        """(same class, two classes): the change of one pair of records in ``norm``."""
        d = float(self.n_features)
        if norm == "l2":
            return math.sqrt(MOMENT_SAME_CLASS_L2 * d), math.sqrt(2.0 * (2.0 * d + w * w))
        if norm == "block_l2":
            return math.sqrt(MOMENT_SAME_CLASS_L2 * d), 2.0 * math.sqrt(2.0 * d + w * w)
        return 2.0, 2.0 * max(1.0, w)

    def sensitivity(self, norm: str, count_weight: float) -> float:
        return max(self._parts(_check_norm(norm, type(self).__name__), float(count_weight)))

    def sensitivity_detail(self, norm: str, count_weight: float) -> str:
        w = float(count_weight)
        same, two = self._parts(_check_norm(norm, type(self).__name__), w)
        d = self.n_features
        if norm == "block_linf":
            return (f"rows (sum t, sum (2 t^2 - 1), w n_c), w = {w:g}, in the norm sum_c "
                    f"||V_c||_inf: same class max(|t - t'|, |s - s'|) <= 2; two classes "
                    f"2 max(1, w) = {two:g}; sensitivity {max(same, two):.6g}")
        name = "L2" if norm == "l2" else "sum_c ||V_c||"
        return (f"rows (sum t, sum (2 t^2 - 1), w n_c), w = {w:g}, d = {d}, in the {name} norm: "
                f"same class sqrt(G d) = {same:.6g} (G = 71/16 + sqrt(2)/2); two classes "
                f"{'sqrt(2 (2d + w^2))' if norm == 'l2' else '2 sqrt(2d + w^2)'} = {two:.6g}; "
                f"sensitivity {max(same, two):.6g}")


def record_set_of(template: Template) -> RecordSet:
    """The template's declared ``record_set``, else the ball of its ``data_norm``.

    Examples
    --------
    >>> from dpconvex.estimators.centroids import ClassSumTemplate
    >>> from dpconvex.privacy.mechanisms.record_sets import record_set_of
    >>> record_set_of(ClassSumTemplate(np.eye(2), np.array([0, 1]), 2))
    NormBall(bound=1.0)
    """
    return record_set_read(template)[0]


def record_set_read(template: Template) -> tuple[RecordSet, Any]:
    """:func:`record_set_of`, each member read once, with the ``data_norm`` read for it (None
    where the template declares its ``record_set``): what a release's checks state and
    compare with the record set of the calibration.

    Parameters
    ----------
    template : Template
        A template of the class sums (its ``record_set``, else its ``data_norm``).

    Returns
    -------
    tuple
        (the record set, the ``data_norm`` as read or None).

    Raises
    ------
    TypeError, ValueError
        The template declares no record set and its ``data_norm`` is no number.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from dpconvex.privacy.mechanisms.record_sets import MomentBox, record_set_read
    >>> record_set_read(SimpleNamespace(record_set=None, data_norm=2))
    (NormBall(bound=2.0), 2)
    >>> record_set_read(SimpleNamespace(record_set=MomentBox(3), data_norm=2))
    (MomentBox(n_features=3), None)
    """
    declared = getattr(template, "record_set", None)
    if declared is not None:
        return declared, None
    norm = template.data_norm
    return NormBall(float(norm)), norm
