"""Private bounds: a range from a noisy octave histogram and quantiles, a stable vocabulary.

``"quantile_range"`` (ε-DP, docs/privacy/bounds.md#privacy-bounds-range): Laplace counts of
the octaves of the public grid (L1 sensitivity 2), the coarse range where a noisy count passes
:func:`coarse_threshold` ([Wil20]_), then, when the refinement rule says so, each bound by the
exponential mechanism over the cell edges ([Smith11]_); the noisy histogram's median octave is released with
it. ``"stable_vocabulary"`` ((ε, δ)-DP, privacy-bounds-vocabulary): the categories whose Laplace count passes
:func:`vocabulary_threshold` ([KKMN09]_; [BNS16]_); counts are never released.

References
----------
.. [Smith11] A. Smith. Privacy-preserving statistical estimation with optimal convergence
   rates. STOC 2011.
.. [Wil20] R. J. Wilson, C. Y. Zhang, W. Lam, D. Desfontaines, D. Simmons-Marengo,
   B. Gipson. Differentially Private SQL with Bounded User Contribution. PoPETs 2020
   (ApproxBounds).
.. [KKMN09] A. Korolova, K. Kenthapadi, N. Mishra, A. Ntoulas. Releasing search queries and
   clicks privately. WWW 2009.
.. [BNS16] M. Bun, K. Nissim, U. Stemmer. Simultaneous private learning of multiple
   concepts. ITCS 2016 (stability-based histograms).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ...data.log_grid import N_CELLS, N_OCTAVES, cell_edges, octave_of_cell
from ...solvers.registry import Backend
from ..budget import Budget
from ..certificate import Certificate, Condition
from ..noise import Laplace, exponential_mechanism
from .base import Calibration, Mechanism, register
from .facts import public_count

if TYPE_CHECKING:
    from ...templates.statistics import RangeTemplate, VocabularyTemplate

__all__ = ["COARSE_SHARE", "FAILURE_PROBABILITY", "QuantileRange", "StableVocabulary",
           "coarse_threshold", "vocabulary_threshold"]

#: The share of a range's ε spent on the coarse histogram when the range is refined (the
#: rest is split evenly between the two levels).
COARSE_SHARE = 0.5
#: β: the probability allowed for an empty octave passing the coarse threshold (all octaves
#: together: such an octave would widen the range by orders of magnitude), and for a refined
#: bound missing its level by more than half its tail.
FAILURE_PROBABILITY = 1e-3

#: The key of whether a range refines its levels, in its :attr:`Calibration.extra` (read once
#: there by the certificate and the run) and its certificate's quantities.
REFINED_KEY = "refined"

_OCTAVE = octave_of_cell(np.arange(N_CELLS))
#: First and last cell of every octave (the grid numbers both increasing).
_FIRST = np.searchsorted(_OCTAVE, np.arange(N_OCTAVES), side="left")
_LAST = np.searchsorted(_OCTAVE, np.arange(N_OCTAVES), side="right") - 1


def coarse_threshold(epsilon: float) -> float:
    """τ = (2/ε) ln(N_OCTAVES/(2β)): an empty octave passes it with probability ≤ β/N_OCTAVES.

    Parameters
    ----------
    epsilon : float
        ε of the coarse histogram.

    Returns
    -------
    float
        τ.

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.bounds import coarse_threshold
    >>> round(coarse_threshold(1.0), 3)
    22.665
    """
    return 2.0 / epsilon * math.log(N_OCTAVES / (2.0 * FAILURE_PROBABILITY))


def vocabulary_threshold(epsilon: float, delta: float) -> float:
    """τ = 1 + (2/ε) ln(1/(2δ)): a category of one record passes it with probability δ.

    Parameters
    ----------
    epsilon, delta : float
        (ε, δ) of the vocabulary.

    Returns
    -------
    float
        τ.

    Examples
    --------
    >>> from dpconvex.privacy.mechanisms.bounds import vocabulary_threshold
    >>> round(vocabulary_threshold(1.0, 1e-6), 3)
    27.245
    """
    return 1.0 + 2.0 / epsilon * math.log(1.0 / (2.0 * delta))


@register
class QuantileRange(Mechanism["RangeTemplate"]):
    """A range [lo, hi] of n values without any starting bound (pure ε).

    Examples
    --------
    >>> from dpconvex.templates.statistics import RangeTemplate
    >>> income = np.random.default_rng(1).lognormal(10, 1, 20000)
    >>> template = RangeTemplate(income, 20000, (0.01, 0.99), refine=False)
    >>> lo, hi, median = release(template, "quantile_range", Budget(0.5), rng=0).theta
    >>> bool(lo <= 4096 and hi >= 2 ** 18), bool(lo <= median <= hi)
    (True, True)
    """

    name = "quantile_range"
    needs = frozenset({"grid_counts"})
    solves = False
    placement = "sum"

    def conditions(self, template: RangeTemplate, budget: Budget) -> list[Condition]:
        """The one condition of the proof: the octave histogram's sensitivity, from the public
        grid alone.

        Parameters
        ----------
        template : RangeTemplate
            The values' counts on the public grid.
        budget : Budget
            The ε of the release (not read: the sensitivity does not depend on it).

        Returns
        -------
        list of Condition
            ``"count sensitivity"``, computed from public parameters.

        Examples
        --------
        >>> from dpconvex.templates.statistics import RangeTemplate
        >>> income = np.random.default_rng(1).lognormal(10, 1, 20000)
        >>> template = RangeTemplate(income, 20000, (0.01, 0.99), refine=False)
        >>> mech, budget = get_mechanism("quantile_range"), Budget(0.5)
        >>> [(c.name, c.holds) for c in mech.conditions(template, budget)]
        [('count sensitivity', True)]
        """
        return [Condition(
            "count sensitivity", True, "computed from public parameters",
            f"the {template.n} {template.values_name} are counted on a public grid of signed "
            "octaves fixed before the data (a record's cell is a function of that record); "
            "replacing one record moves one count down and one up by 1: the octave histogram "
            "changes by at most 2 in L1, every count below an edge by at most 1")]

    def calibrate(self, template: RangeTemplate, budget: Budget) -> Calibration:
        """The Laplace scale and threshold of the histogram, and the ε of each refined level.

        With ``template.refine``, :data:`COARSE_SHARE` of ε goes to the histogram and the rest
        is split evenly between the two levels; otherwise the histogram spends all of ε.

        Parameters
        ----------
        template : RangeTemplate
            The problem (whether it is refined; no value is read).
        budget : Budget
            The ε of the release.

        Returns
        -------
        Calibration
            L1 sensitivity 2, the histogram's noise rate ε/2, and in ``extra`` the ε of the
            histogram and of each level, the Laplace scale and :func:`coarse_threshold`.

        Examples
        --------
        >>> from dpconvex.templates.statistics import RangeTemplate
        >>> income = np.random.default_rng(1).lognormal(10, 1, 20000)
        >>> template = RangeTemplate(income, 20000, (0.01, 0.99), refine=False)
        >>> mech, budget = get_mechanism("quantile_range"), Budget(0.5)
        >>> cal = mech.calibrate(template, budget)
        >>> cal.sensitivity, cal.extra["laplace scale"], cal.extra["epsilon of each level"]
        (2.0, 4.0, 0.0)
        """
        # whether it refines, and n, read once: the certificate and the run read the record
        refine, n = bool(template.refine), public_count(template.n, "QuantileRange.calibrate")
        # ε of the histogram and of each level: 2 ε_q + ε₁ <= ε in floats
        coarse = COARSE_SHARE * budget.epsilon if refine else budget.epsilon
        level = 0.5 * (budget.epsilon - coarse) * (1.0 - 1e-12) if refine else 0.0
        return Calibration(
            mechanism=self.name, epsilon_requested=budget.epsilon, sensitivity=2.0,
            noise_rate=coarse / 2.0, n=n,
            extra={"epsilon of the histogram": coarse, "epsilon of each level": level,
                   "laplace scale": 2.0 / coarse, "threshold": coarse_threshold(coarse),
                   REFINED_KEY: refine})

    def certificate(self, template: RangeTemplate, budget: Budget, cal: Calibration | None,
                    conditions: list[Condition]) -> Certificate:
        """The range's certificate: pure ε, the records, the levels and the calibration's
        quantities.

        Parameters
        ----------
        template : RangeTemplate
            The problem (its records, levels and refinement).
        budget : Budget
            The ε of the release.
        cal : Calibration
            Its calibration (:meth:`calibrate`).
        conditions : list of Condition
            The conditions checked (:meth:`conditions`).

        Returns
        -------
        Certificate
            A pure ε-DP certificate at the ε asked.

        Examples
        --------
        >>> from dpconvex.templates.statistics import RangeTemplate
        >>> income = np.random.default_rng(1).lognormal(10, 1, 20000)
        >>> template = RangeTemplate(income, 20000, (0.01, 0.99), refine=False)
        >>> mech, budget = get_mechanism("quantile_range"), Budget(0.5)
        >>> cal = mech.calibrate(template, budget)
        >>> cert = mech.certificate(template, budget, cal, mech.conditions(template, budget))
        >>> cert.epsilon, cert.delta, cert.quantities["records"], cert.quantities["refined"]
        (0.5, 0.0, 20000, False)
        """
        assert cal is not None
        lo, hi = template.levels
        refined = (f", then the exponential mechanism (Smith 2011) for the levels ({lo:g}, "
                   f"{hi:g}) inside it" if cal.extra[REFINED_KEY] else "")
        return Certificate(
            mechanism=f"range of the {template.values_name}: Laplace histogram over signed octaves, the "
            f"octaves above a threshold{refined} (docs/privacy/bounds.md#privacy-bounds-range)",
            epsilon_requested=budget.epsilon,
            epsilon=budget.epsilon,
            private=True,
            conditions=list(conditions),
            quantities={
                "records": cal.n,
                "levels": [lo, hi],
                REFINED_KEY: cal.extra[REFINED_KEY],
                **cal.extra,
            },
        )

    def run(self, template: RangeTemplate, cal: Calibration | None, backend: Backend,
            rng: np.random.Generator, **_: Any) -> tuple[np.ndarray, None, bool]:
        """Draw the noisy octave histogram, keep the octaves above the threshold, and (refined)
        pick each level's edge by the exponential mechanism; everything after the draws is
        post-processing.

        Parameters
        ----------
        template : RangeTemplate
            The values' counts on the public grid.
        cal : Calibration
            Its calibration (:meth:`calibrate`).
        backend : Backend
            Not used: nothing is solved.
        rng : numpy.random.Generator
            The noise source.
        **_ : Any
            The solver options :meth:`Mechanism.run` takes (not used).

        Returns
        -------
        tuple
            ([lo, hi, the median octave's midpoint clipped to [lo, hi]], None, False).

        Examples
        --------
        >>> from dpconvex.templates.statistics import RangeTemplate
        >>> income = np.random.default_rng(1).lognormal(10, 1, 20000)
        >>> template = RangeTemplate(income, 20000, (0.01, 0.99), refine=False)
        >>> mech, budget = get_mechanism("quantile_range"), Budget(0.5)
        >>> from dpconvex.solvers import LbfgsNewton
        >>> cal = mech.calibrate(template, budget)
        >>> (lo, hi, median), solve, noised = mech.run(template, cal, LbfgsNewton(), rng)
        >>> bool(lo <= median <= hi), solve, noised
        (True, None, False)
        """
        assert cal is not None
        counts = template.cell_counts
        octaves = np.bincount(_OCTAVE, weights=counts, minlength=N_OCTAVES)
        noisy = Laplace(cal.extra["laplace scale"]).add(octaves, rng)
        kept = np.flatnonzero(noisy > cal.extra["threshold"])
        if kept.size == 0:  # post-processing of the noisy histogram
            kept = np.array([int(np.argmax(noisy))])
        first, last = int(_FIRST[kept[0]]), int(_LAST[kept[-1]])
        edges = cell_edges()
        mass = np.clip(noisy[kept[0]:kept[-1] + 1], 0.0, None)
        middle = kept[0] + int(np.searchsorted(np.cumsum(mass), 0.5 * mass.sum()))
        median = 0.5 * (edges[_FIRST[middle]] + edges[_LAST[middle] + 1])
        lo_edge, hi_edge = first, last + 1
        if cal.extra[REFINED_KEY]:
            below = np.concatenate([[0], np.cumsum(counts)])[first:last + 2]
            picks = []
            for q in template.levels:
                utility = -np.abs(below - q * cal.n)
                picks.append(first + exponential_mechanism(
                    utility, cal.extra["epsilon of each level"], 1.0, rng))
            lo_edge, hi_edge = min(picks), max(picks)
            if lo_edge == hi_edge:
                hi_edge = min(hi_edge + 1, last + 1)
                lo_edge = hi_edge - 1
        lo, hi = float(edges[lo_edge]), float(edges[hi_edge])
        return np.array([lo, hi, min(hi, max(lo, float(median)))]), None, False


@register
class StableVocabulary(Mechanism["VocabularyTemplate"]):
    """The categories whose Laplace-noised count passes a threshold ((ε, δ)-DP).

    Examples
    --------
    >>> from dpconvex.templates.statistics import VocabularyTemplate
    >>> plans = np.repeat(["basic", "pro", "rare"], [900, 40, 1])
    >>> release(VocabularyTemplate(plans, 941), "stable_vocabulary",
    ...         Budget(1.0, 1e-6), rng=0).theta.tolist()
    [0, 1]
    """

    name = "stable_vocabulary"
    needs = frozenset({"category_counts"})
    solves = False
    pure = False
    placement = "sum"

    def conditions(self, template: VocabularyTemplate, budget: Budget) -> list[Condition]:
        """The one condition of the proof: the counts' sensitivity, and what a category of one
        record risks.

        Parameters
        ----------
        template : VocabularyTemplate
            The categories' counts.
        budget : Budget
            The (ε, δ) of the release (not read).

        Returns
        -------
        list of Condition
            ``"count sensitivity"``, computed from public parameters.

        Examples
        --------
        >>> from dpconvex.templates.statistics import VocabularyTemplate
        >>> plans = np.repeat(["basic", "pro", "rare"], [900, 40, 1])
        >>> template = VocabularyTemplate(plans, 941)
        >>> mech, budget = get_mechanism("stable_vocabulary"), Budget(1.0, 1e-6)
        >>> [(c.name, c.holds) for c in mech.conditions(template, budget)]
        [('count sensitivity', True)]
        """
        return [Condition(
            "count sensitivity", True, "computed from public parameters",
            f"replacing one of the {template.n} {template.values_name} moves one count down "
            "and one up by 1 (L1 sensitivity 2); a category held by one record passes the "
            "threshold with probability delta, and only the set of categories is released")]

    def calibrate(self, template: VocabularyTemplate, budget: Budget) -> Calibration:
        """The Laplace scale 2/ε of the counts and :func:`vocabulary_threshold` of (ε, δ).

        Parameters
        ----------
        template : VocabularyTemplate
            The problem (no count is read).
        budget : Budget
            The (ε, δ) of the release.

        Returns
        -------
        Calibration
            L1 sensitivity 2, noise rate ε/2, δ, and in ``extra`` the Laplace scale and the
            threshold.

        Examples
        --------
        >>> from dpconvex.templates.statistics import VocabularyTemplate
        >>> plans = np.repeat(["basic", "pro", "rare"], [900, 40, 1])
        >>> template = VocabularyTemplate(plans, 941)
        >>> mech, budget = get_mechanism("stable_vocabulary"), Budget(1.0, 1e-6)
        >>> cal = mech.calibrate(template, budget)
        >>> cal.sensitivity, cal.delta, round(cal.extra["threshold"], 3)
        (2.0, 1e-06, 27.245)
        """
        eps, delta = budget.epsilon, budget.delta
        return Calibration(
            mechanism=self.name, epsilon_requested=eps, sensitivity=2.0, noise_rate=eps / 2.0,
            delta=delta, extra={"laplace scale": 2.0 / eps,
                                "threshold": vocabulary_threshold(eps, delta)},
            n=public_count(template.n, "StableVocabulary.calibrate"))

    def certificate(self, template: VocabularyTemplate, budget: Budget, cal: Calibration | None,
                    conditions: list[Condition]) -> Certificate:
        """The vocabulary's certificate: (ε, δ), the records and the calibration's quantities.

        Parameters
        ----------
        template : VocabularyTemplate
            The problem (its records).
        budget : Budget
            The (ε, δ) of the release.
        cal : Calibration
            Its calibration (:meth:`calibrate`).
        conditions : list of Condition
            The conditions checked (:meth:`conditions`).

        Returns
        -------
        Certificate
            (ε, δ)-DP at the budget asked.

        Examples
        --------
        >>> from dpconvex.templates.statistics import VocabularyTemplate
        >>> plans = np.repeat(["basic", "pro", "rare"], [900, 40, 1])
        >>> template = VocabularyTemplate(plans, 941)
        >>> mech, budget = get_mechanism("stable_vocabulary"), Budget(1.0, 1e-6)
        >>> cal = mech.calibrate(template, budget)
        >>> cert = mech.certificate(template, budget, cal, mech.conditions(template, budget))
        >>> cert.epsilon, cert.delta, cert.quantities["records"]
        (1.0, 1e-06, 941)
        """
        assert cal is not None
        return Certificate(
            mechanism=f"vocabulary of the {template.values_name}: the categories whose Laplace-"
                      "noised count passes a threshold (Korolova et al. 2009; "
                      "docs/privacy/bounds.md#privacy-bounds-vocabulary)",
            epsilon_requested=budget.epsilon, epsilon=budget.epsilon, delta=budget.delta,
            private=True, conditions=list(conditions),
            quantities={"records": cal.n, **cal.extra})

    def run(self, template: VocabularyTemplate, cal: Calibration | None, backend: Backend,
            rng: np.random.Generator, **_: Any) -> tuple[np.ndarray, None, bool]:
        """Add Laplace noise to the counts (one draw at least) and keep the indices of the
        categories above the threshold; the counts are never released.

        Parameters
        ----------
        template : VocabularyTemplate
            The categories' counts.
        cal : Calibration
            Its calibration (:meth:`calibrate`).
        backend : Backend
            Not used: nothing is solved.
        rng : numpy.random.Generator
            The noise source.
        **_ : Any
            The solver options :meth:`Mechanism.run` takes (not used).

        Returns
        -------
        tuple
            (the indices of the categories kept, None, False).

        Examples
        --------
        >>> from dpconvex.templates.statistics import VocabularyTemplate
        >>> plans = np.repeat(["basic", "pro", "rare"], [900, 40, 1])
        >>> template = VocabularyTemplate(plans, 941)
        >>> mech, budget = get_mechanism("stable_vocabulary"), Budget(1.0, 1e-6)
        >>> from dpconvex.solvers import LbfgsNewton
        >>> cal = mech.calibrate(template, budget)
        >>> kept, solve, noised = mech.run(template, cal, LbfgsNewton(), rng)
        >>> kept.tolist(), solve, noised
        ([0, 1], None, False)
        """
        assert cal is not None
        counts = template.category_counts
        # one draw at least, as for one category, when no value was seen
        padded = np.zeros(max(1, counts.size))
        padded[:counts.size] = counts
        noisy = Laplace(cal.extra["laplace scale"]).add(padded, rng)[:counts.size]
        return np.flatnonzero(noisy > cal.extra["threshold"]), None, False
