"""Releases of one number or one index: a bounded mean (Laplace) and a selection
(exponential), with the templates they read (:class:`BoundedMeanTemplate`,
:class:`SelectionTemplate`).

``"laplace_mean"`` ([DMNS06]_; docs/privacy/front_door_regression.md#privacy-private-mean)
    For n values in [−b, b] with n public, replacing one record moves the mean by at most
    2b/n; adding Laplace noise of scale 2b/(nε), snapping to the scale's public grid and
    clipping to [−b, b] (both post-processing) is ε-DP.
``"exponential"`` ([MT07]_; private selection, [CMS11]_ Alg. 4)
    Index i is chosen with probability ∝ exp(ε u_i / (2 Δu)); with utilities of sensitivity Δu this is ε-DP.

References
----------
.. [DMNS06] C. Dwork, F. McSherry, K. Nissim, A. Smith. Calibrating Noise to Sensitivity in
   Private Data Analysis. TCC 2006.
.. [MT07] F. McSherry, K. Talwar. Mechanism Design via Differential Privacy. FOCS 2007.
.. [CMS11] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially Private Empirical
   Risk Minimization. JMLR 12 (2011), Alg. 4.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cached_property
from typing import Any

import numpy as np

from ..._validation import check_int, describe_value, is_dpconvex_class, is_dpconvex_function
from ...errors import ParameterError, PrivacyError
from ...solvers.registry import Backend
from ...templates.base import EuclideanSpace, StatisticTemplate
from ..budget import Budget
from ..certificate import Certificate, Condition, stated_by_template
from ..checks import exact_number
from ..noise import Laplace, exponential_mechanism
from .base import Calibration, Mechanism, register
from .facts import public_count, public_number

__all__ = ["BoundedMeanTemplate", "Exponential", "LaplaceMean", "SelectionTemplate"]


# ---------------------------------------------------------------------- bounded mean
class BoundedMeanTemplate(StatisticTemplate):
    """n values uᵢ (per-record public maps) clipped to [−1, 1], seen through their sum.

    Offers the capability ``"bounded_sum"``: ``total`` (Σ clip(uᵢ, −1, 1), computed here from
    the values: a statistic of the private data) and ``bound`` (1, the public bound on
    |uᵢ|). The clip is what the mean's sensitivity 2/n rests on, so no caller's sum is taken.

    Parameters
    ----------
    values : array-like of shape (n,)
        One finite value per record (n, their number, is public).

    Raises
    ------
    ParameterError
        ``values`` is not a non-empty 1-D array of finite numbers.

    Examples
    --------
    >>> from dpconvex import Budget, release
    >>> from dpconvex.privacy.mechanisms.scalar import BoundedMeanTemplate
    >>> template = BoundedMeanTemplate([0.5, -0.2, 3.0])
    >>> template.kind, sorted(template.capabilities), template.n, round(template.total, 6)
    ('bounded_mean', ['bounded_sum'], 3, 1.3)
    >>> release(template, "laplace_mean", Budget(1.0), rng=0).theta.shape
    (1,)
    """

    name = "bounded mean"
    kind = "bounded_mean"
    derivation = "docs/privacy/front_door_regression.md#privacy-private-mean"
    capabilities = frozenset({"bounded_sum"})
    space = EuclideanSpace((1,))
    #: The public bound on every |uᵢ| (the label map's range).
    bound = 1.0

    def __init__(self, values: Any):
        try:
            u = np.asarray(values, dtype=float)
        except (TypeError, ValueError):
            u = np.full((1, 1), np.nan)
        if u.ndim != 1 or u.size == 0 or not np.all(np.isfinite(u)):
            raise ParameterError(
                "BoundedMeanTemplate.__init__: the values are not a non-empty 1-D array of "
                "finite numbers. Give one finite value per record (each is clipped to [-1, 1] "
                "and summed here).")
        self.n, bound = int(u.size), float(self.bound)
        self._total: float | None = float(np.sum(np.clip(u, -bound, bound)))

    @classmethod
    def of_problem(cls, n: int) -> BoundedMeanTemplate:
        """The template of the public problem alone: n records, no values read (a dry run:
        ``certify``).

        Parameters
        ----------
        n : int
            Number of records (public).

        Returns
        -------
        BoundedMeanTemplate
            A template holding ``n`` and no values; reading its ``total`` is refused.

        Raises
        ------
        ParameterError
            ``n`` is not a positive number of records.

        Examples
        --------
        >>> from dpconvex.privacy.mechanisms.scalar import BoundedMeanTemplate
        >>> BoundedMeanTemplate.of_problem(10**9).n
        1000000000
        """
        if int(n) < 1:
            raise ParameterError(f"The 'n' parameter of BoundedMeanTemplate.of_problem must be a "
                                 f"positive number of records. Got {describe_value(n)} instead.")
        problem = cls.__new__(cls)
        problem.n, problem._total = int(n), None
        return problem

    @property
    def total(self) -> float:
        """Σ clip(uᵢ, −1, 1) over the n values."""
        if self._total is None:
            raise ParameterError("BoundedMeanTemplate.total: the template of the public problem "
                                 "alone holds no values. Build the template over the values.")
        return self._total


# ---------------------------------------------------------------------- selection
#: The utility of the classifiers' selections: minus the mistakes on the rows scored
#: (formatted with the sensitivity).
MISTAKES = ("u_i = -(mistakes of candidate i on the rows scored); for fixed candidates, "
            "replacing one of those records changes each u_i by at most {sensitivity:g}")

#: The utility sensitivity the docs derive for dpconvex's own scorings (mistake counts,
#: clipped squared errors): a stated Δu below it is the caller's declaration.
DERIVED_SENSITIVITY = 1.0


def _utility_sensitivity(value: Any, owner: str) -> float:
    """Δu read once, as a built-in float (:func:`~dpconvex.privacy.checks.exact_number`): the
    number the condition, the rate ε/(2Δu) and the draw read.

    Parameters
    ----------
    value : float
        The stated utility sensitivity.
    owner : str
        Who reads it (named in the error).

    Returns
    -------
    float

    Raises
    ------
    ParameterError
        ``value`` is not a number of an exact type (int, float, ``Fraction``, a NumPy scalar):
        a string, a subclass of float, an object with a ``__float__`` of its own, named by its
        type; or it is not > 0 (the selection's rate is ε/(2Δu)).

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.scalar import _utility_sensitivity
    >>> _utility_sensitivity(np.float32(0.5), "doc"), type(_utility_sensitivity(1, "doc")).__name__
    (0.5, 'float')
    """
    number = exact_number(value)
    if type(number) is not float:
        raise ParameterError(
            f"The 'sensitivity' parameter of {owner} must be a number of an exact type (int, "
            "float, Fraction, a NumPy scalar). Got a value of type "
            f"{type(value).__qualname__} instead: its conversions and arithmetic would be its "
            "author's, in the condition and in the selection's rate; pass a built-in float.")
    if not number > 0.0:
        raise ParameterError(
            f"The 'sensitivity' parameter of {owner} must be a number > 0 (the bound on how "
            "much one record moves a utility; the selection's rate is epsilon/(2 sensitivity)). "
            f"Got {describe_value(value)} instead.")
    return number


class SelectionTemplate(StatisticTemplate):
    """Utilities u_i of candidates computed on the private data, with their sensitivity Δu.

    The template cannot recompute the utilities, so Δu is what the caller states. The docs
    derive Δu = :data:`DERIVED_SENSITIVITY` (1) for dpconvex's own scorings only: minus the
    mistakes a search or a front door counts, and the front doors' clipped squared errors
    (docs/privacy/tuning_gd_ledger.md#privacy-private-tuning,
    docs/privacy/front_door_regression.md). The certificate states Δu as derived when the
    utilities are built by dpconvex's own code (``utilities`` a callable compiled from a file
    of dpconvex, which dpconvex's scorings hand over; the template does not check what the
    callable computes) or the template is the public problem's alone (:meth:`of_problem`),
    *and* the stated Δu is at least the derived 1 (an overstatement only adds noise).
    Otherwise the condition is "declared, not verified" (``unverified="sensitivity"``), which
    :func:`~dpconvex.privacy.release.release` refuses unless the caller vouches for it
    (``vouch=("sensitivity",)``).

    Parameters
    ----------
    utilities : array-like of shape (m,), or callable returning it
        u_i (higher is better), e.g. minus the validation mistakes of candidate i; a callable
        is called once, on first use. None is refused (:meth:`of_problem` builds the
        template of the public problem alone).
    sensitivity : float
        Bound on |u_i(D) − u_i(D′)| for adjacent D, D′ (1 for mistake counts).
    n : int
        Number of records the utilities read (public).
    description : str or None, default=None
        What u_i is and why one record moves it by at most ``sensitivity`` (the
        certificate's line); None: minus the validation mistakes (:data:`MISTAKES`).

    Raises
    ------
    ParameterError
        ``utilities`` is None.

    Examples
    --------
    >>> from dpconvex import Budget, release
    >>> from dpconvex.privacy.mechanisms.scalar import SelectionTemplate
    >>> template = SelectionTemplate([0.2, 0.9, 0.4], sensitivity=1.0, n=100)
    >>> template.kind, sorted(template.capabilities), template.conditions(())[0].unverified
    ('selection', ['utilities'], 'sensitivity')
    >>> release(template, "exponential", Budget(1.0), rng=0, vouch=("sensitivity",)).theta.shape
    (1,)
    """

    name = "selection by utility"
    kind = "selection"
    derivation = "docs/privacy/tuning_gd_ledger.md#privacy-private-tuning"
    capabilities = frozenset({"utilities"})
    space = EuclideanSpace((1,))  # the released value is one index

    def __init__(self, utilities: Any, sensitivity: float, n: int, description: str | None = None):
        if utilities is None:
            raise ParameterError(
                "SelectionTemplate.__init__: the utilities are None. Give one utility per "
                "candidate (or a function computing them); SelectionTemplate.of_problem builds "
                "the template of the public problem alone.")
        self._set(utilities, sensitivity, n, description)
        if not callable(utilities):  # given: held as they are
            self.utilities = np.asarray(utilities, dtype=float)

    def _set(self, utilities: Any, sensitivity: float, n: int, description: str | None) -> None:
        self._utilities = utilities
        self.sensitivity = sensitivity
        self.n = int(n)
        self.description = (MISTAKES.format(sensitivity=self.sensitivity) if description is None
                            else str(description))

    @classmethod
    def of_problem(cls, m: int, sensitivity: float, n: int,
                   description: str | None = None) -> SelectionTemplate:
        """The template of the public problem alone: no utilities (a dry run: ``certify``).

        Parameters
        ----------
        m : int
            Number of candidates (public).
        sensitivity : float
            Bound on |u_i(D) − u_i(D′)| the fit's utilities will have; stated as derived
            only if at least :data:`DERIVED_SENSITIVITY` (see :attr:`derived`).
        n : int
            Number of records the fit's utilities will read (public).
        description : str or None, default=None
            The certificate's line on the utilities; None: minus the validation mistakes.

        Returns
        -------
        SelectionTemplate
            A template whose ``noise_shape`` is ``(m,)``; reading its ``utilities`` is
            refused.

        Raises
        ------
        ParameterError
            ``m`` is not a positive number of candidates.

        Examples
        --------
        >>> from dpconvex.privacy.mechanisms.scalar import SelectionTemplate
        >>> t = SelectionTemplate.of_problem(3, 1.0, n=100)
        >>> t.noise_shape, t.derived
        ((3,), True)
        >>> SelectionTemplate.of_problem(3, 1e-9, n=100).derived
        False
        """
        m = check_int("m", m, "SelectionTemplate.of_problem")  # a positive number of candidates
        problem = cls.__new__(cls)
        problem._set(None, sensitivity, n, description)
        problem._m = int(m)
        return problem

    @property
    def sensitivity(self) -> float:
        """Δu: the stated utility sensitivity, a built-in float read once where it is set (a
        number of a type of its own refused by its type, :class:`ParameterError`)."""
        return self._sensitivity

    @sensitivity.setter
    def sensitivity(self, value: Any) -> None:
        self._sensitivity = _utility_sensitivity(value, "SelectionTemplate")

    @property
    def derived(self) -> bool:
        """Whether the certificate may state Δu as derived: the utilities are built by
        dpconvex's own code (a callable compiled from dpconvex; what it computes is not
        checked here) or absent (the public problem alone), and the stated Δu is at least
        the :data:`DERIVED_SENSITIVITY` the docs derive for dpconvex's scorings."""
        return self._derived_at(self.sensitivity)

    def _derived_at(self, sensitivity: float) -> bool:
        """:attr:`derived` where the stated Δu is ``sensitivity``."""
        ours = self._utilities is None or is_dpconvex_function(self._utilities)
        return ours and sensitivity >= DERIVED_SENSITIVITY

    @cached_property
    def utilities(self) -> np.ndarray:
        """u_i, one per candidate (given, or computed once on first use: a statistic of the
        data)."""
        if self._utilities is None:
            raise ParameterError("SelectionTemplate.utilities: the template of the public problem "
                                 "alone holds no utilities. Build the template over them.")
        return np.asarray(self._utilities(), dtype=float)

    @property
    def noise_shape(self) -> tuple[int, ...]:
        return (self._m if self._utilities is None else int(self.utilities.size),)

    def conditions(self, needs: Iterable[str] | str) -> list[Condition]:
        """The condition on Δu: derived where :attr:`derived` holds, else the caller's
        declaration, not verified.

        Parameters
        ----------
        needs : iterable of str or str
            The capabilities the mechanism reads (``"utilities"``); the condition is the same
            for any.

        Returns
        -------
        list of Condition
            One condition, "utility sensitivity": "computed from public parameters" when
            :attr:`derived`, else "declared, not verified" with
            ``unverified="sensitivity"`` (refused by
            :func:`~dpconvex.privacy.release.release` unless vouched for).

        Examples
        --------
        >>> from dpconvex.privacy.mechanisms.scalar import SelectionTemplate
        >>> (derived,) = SelectionTemplate.of_problem(3, 1.0, n=10).conditions(("utilities",))
        >>> derived.how, derived.unverified
        ('computed from public parameters', '')
        >>> (declared,) = SelectionTemplate.of_problem(3, 1e-9, n=10).conditions(("utilities",))
        >>> declared.how, declared.unverified
        ('declared, not verified', 'sensitivity')
        """
        return [self.sensitivity_condition(self.sensitivity)]

    def sensitivity_condition(self, sensitivity: float) -> Condition:
        """The condition "utility sensitivity" where the stated Δu is ``sensitivity`` (Δu read
        once, by :meth:`conditions`; the exponential mechanism's certificate compares it with
        the one at the Δu its calibration read).

        Parameters
        ----------
        sensitivity : float
            The stated Δu, as read.

        Returns
        -------
        Condition

        Examples
        --------
        >>> from dpconvex.privacy.mechanisms.scalar import SelectionTemplate
        >>> problem = SelectionTemplate.of_problem(3, 1.0, n=10)
        >>> problem.sensitivity_condition(2.0).how, problem.sensitivity_condition(0.5).detail[:13]
        ('computed from public parameters', 'declared 0.5 ')
        """
        if self._derived_at(sensitivity):
            return Condition("utility sensitivity", True, "computed from public parameters",
                             self.description)
        return Condition(
            "utility sensitivity", True, "declared, not verified",
            f"declared {sensitivity:g} by the caller, who computed the utilities: "
            f"{self.description}", unverified="sensitivity")


@register
class LaplaceMean(Mechanism["BoundedMeanTemplate"]):
    """The mean of n values in [−1, 1] plus Laplace(2/(nε)) noise, snapped, clipped to [−1, 1].

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.scalar import BoundedMeanTemplate
    >>> template = BoundedMeanTemplate(np.full(100, 0.5))
    >>> released = release(template, "laplace_mean", Budget(1.0), rng=0)
    >>> abs(float(released.theta[0]) - 0.5) < 0.2, released.certificate.epsilon
    (True, 1.0)
    """

    name = "laplace_mean"
    needs = frozenset({"bounded_sum"})
    solves = False
    placement = "sum"

    def conditions(self, template: BoundedMeanTemplate, budget: Budget) -> list[Condition]:
        return [_mean_condition(int(template.n), float(template.bound))]

    def calibrate(self, template: BoundedMeanTemplate, budget: Budget) -> Calibration:
        # b and n read once, as built-in numbers: the sensitivity, the certificate and the
        # mean and clip of run read the calibration, and the release compares its n with the
        # one it read (release.py)
        owner = f"{type(self).__name__}.calibrate"
        bound = public_number(template.bound, owner, "bound")
        n = public_count(template.n, owner)
        sens = 2.0 * bound / n  # the mean's sensitivity, 2b/n
        scale = sens / budget.epsilon
        return Calibration(
            mechanism=self.name, epsilon_requested=budget.epsilon, sensitivity=sens,
            noise_rate=budget.epsilon / sens,
            extra={"laplace scale": scale, BOUND_KEY: bound, "records": n},
            noise=Laplace(scale), noise_shape=(1,), n=n)

    def certificate(self, template: BoundedMeanTemplate, budget: Budget, cal: Calibration | None,
                    conditions: list[Condition]) -> Certificate:
        assert cal is not None
        if not is_dpconvex_class(type(template)):  # a user's b or n, read anew at each read
            _refuse_bound_read_anew(template, cal, conditions)
        return Certificate(

            mechanism="Laplace mechanism on the mean of the labels mapped onto [-1, 1] (Dwork et al. "
            "2006), snapped to the public grid of its scale, clipped to [-1, 1]",
            epsilon_requested=budget.epsilon,
            epsilon=budget.epsilon,
            private=True,
            conditions=list(conditions),
            assumptions=[
                "every value in [-1, 1] (a per-record public map, e.g. labels clipped to a "
                "public range); preprocessing that reads the data is not covered"
            ],
            quantities={
                "mean sensitivity": cal.sensitivity,
                "laplace scale": cal.extra["laplace scale"],
                "records": cal.extra["records"],
            },
        )

    def run(self, template: BoundedMeanTemplate, cal: Calibration | None, backend: Backend,
            rng: np.random.Generator, **_: Any) -> tuple[np.ndarray, None, bool]:
        assert cal is not None
        noisy = cal.law().add(np.array([template.total / cal.n]), rng)
        bound = cal.extra[BOUND_KEY]
        return np.clip(noisy, -bound, bound), None, False


def _refuse_bound_read_anew(template: BoundedMeanTemplate, cal: Calibration,
                           conditions: list[Condition]) -> None:
    """Refuse a mean whose condition "mean sensitivity" states another b or n than the
    calibration read (a ``bound`` or ``n`` of the user's that answers differently at each
    read): the certificate would state one sensitivity and the noise rest on another."""
    at_calibration = _mean_condition(cal.extra["records"], cal.extra[BOUND_KEY])
    if any(c.name == at_calibration.name and c.detail != at_calibration.detail
           for c in conditions):
        raise PrivacyError(
            f"LaplaceMean.certificate: template '{template.name}' stated another bound or n "
            "for the condition than the calibration read, so the certificate would not state "
            "what the noise used; nothing is released. Return the same bound and n at every "
            "read.")


#: The key of the bound b on every |uᵢ| in the Laplace mean's :attr:`Calibration.extra`.
BOUND_KEY = "value bound b"


def _mean_condition(n: int, bound: float) -> Condition:
    """The Laplace mean's condition "mean sensitivity" for n values in [-b, b]."""
    return Condition(
        "mean sensitivity", True, "computed from public parameters",
        f"each of the n = {n} values lies in [-{bound:g}, {bound:g}] (public per-record "
        f"maps), so replacing one record moves the mean by at most 2b/n = {2.0 * bound / n:.4g}")


def _refuse_sensitivity_read_anew(template: SelectionTemplate, cal: Calibration,
                                  conditions: list[Condition]) -> None:
    """Refuse a selection whose calibration read another Δu than its condition did (a
    ``sensitivity`` of the user's that answers differently at each read): the template's
    condition "utility sensitivity" must be the one at the calibrated Δu
    (:meth:`SelectionTemplate.sensitivity_condition`), else the certificate would state one
    Δu and the rate rest on another. The condition is compared as the release states it, a
    user's template's own statement (:func:`~dpconvex.privacy.certificate.stated_by_template`,
    as :meth:`Mechanism.conditions` states it). A template whose conditions are not those of
    :class:`SelectionTemplate` states its own."""
    if is_dpconvex_class(type(template)) or not (  # a shipped class reads Δu once, when set
            isinstance(template, SelectionTemplate)
            and type(template).conditions is SelectionTemplate.conditions
            and type(template).sensitivity_condition is SelectionTemplate.sensitivity_condition):
        return
    (at_calibration,) = stated_by_template(
        [SelectionTemplate.sensitivity_condition(template, cal.sensitivity)])
    checked = next((c for c in conditions if c.name == at_calibration.name), None)
    if checked is not None and (checked.detail, checked.unverified) != (
            at_calibration.detail, at_calibration.unverified):
        raise PrivacyError(
            f"Exponential.certificate: template '{template.name}' stated another sensitivity "
            f"for its condition than the {cal.sensitivity:g} the selection's rate was "
            "calibrated from, so the certificate would not state what the rate used; nothing "
            "is released. Return the same sensitivity at every read.")


@register
class Exponential(Mechanism["SelectionTemplate"]):
    """Private selection of one candidate by its utility.

    The candidates and utilities are those of a
    :class:`SelectionTemplate`.

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.scalar import SelectionTemplate
    >>> template = SelectionTemplate([0.1, 0.5, 30.0], sensitivity=1.0, n=40)
    >>> mech = get_mechanism("exponential")
    >>> mech.pure, mech.solves
    (True, False)
    >>> release(template, mech, Budget(1.0), rng=0, vouch=("sensitivity",)).theta
    array([2])
    """

    name = "exponential"
    needs = frozenset({"utilities"})
    solves = False

    def calibrate(self, template: SelectionTemplate, budget: Budget) -> Calibration:
        # Δu and n read once: the rate, the certificate and the draw (run) read the
        # calibration's, and the release compares its n with the one it read (release.py)
        sensitivity = _utility_sensitivity(template.sensitivity, "Exponential.calibrate")
        return Calibration(
            mechanism=self.name,
            epsilon_requested=budget.epsilon,
            sensitivity=sensitivity,
            noise_rate=budget.epsilon / (2.0 * sensitivity),
            n=public_count(template.n, "Exponential.calibrate"),
        )

    def certificate(self, template: SelectionTemplate, budget: Budget, cal: Calibration | None,
                    conditions: list[Condition]) -> Certificate:
        assert cal is not None  # its noise_rate epsilon/(2 Delta_u): the law :meth:`run` samples
        _refuse_sensitivity_read_anew(template, cal, conditions)
        return Certificate(
            mechanism="exponential mechanism (McSherry & Talwar 2007) over fixed candidates",
            epsilon_requested=budget.epsilon, epsilon=budget.epsilon, private=True,
            conditions=list(conditions),
            quantities={"utility sensitivity": cal.sensitivity,
                        "selection rate epsilon/(2 Delta_u)": cal.noise_rate,
                        "selection probability": (
                            "proportional to exp(epsilon * u_i / (2 Delta_u)) = "
                            f"exp({cal.noise_rate:.6g} * u_i)"),
                        "rows scored": cal.n},
        )

    def run(self, template: SelectionTemplate, cal: Calibration | None, backend: Backend,
            rng: np.random.Generator, **_: Any) -> tuple[np.ndarray, None, bool]:
        assert cal is not None
        idx = exponential_mechanism(template.utilities, cal.epsilon,
                                    sensitivity=cal.sensitivity, random_state=rng)
        return np.array([idx]), None, False
