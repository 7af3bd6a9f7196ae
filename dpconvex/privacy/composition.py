"""The certificate of a fit made of releases, composed from its parts' by a named rule.

A fit made of several releases (one-vs-rest's binary models, a front door's label range, centre
or safeguard, a schema released before the model, the searches' candidates and selection, a
sweep) carries one certificate, composed from its parts' certificates by one of four rules:

- :func:`compose_sequential`: releases on the same rows, one after another: ε and δ add up
  (Dwork & Roth 2014, Thm. 3.16; a later release may depend on an earlier one);
- :func:`compose_parallel`: releases on disjoint parts of the rows: ε and δ are their maxima
  (McSherry 2009, Thm. 4; replace-one adjacency touches one part);
- :func:`compose_tuning`: private tuning (Chaudhuri, Monteleoni & Sarwate 2011, Alg. 4):
  candidates fixed before the data, each trained on its own part of the rows, and a selection
  on another part: the parallel rule, its two conditions stated;
- :func:`compose_repetitions`: private selection by random repetition (Liu & Talwar 2019;
  Papernot & Steinke 2022, Cor. 3): ε₁-DP runs repeated a random, hidden number of times, the
  best one released: ε = (2 + η) ε₁, δ = 0.

Each rule refuses a composition that spends more than the ε (and δ) requested (``caller``, the
public call refused in, opens its message), and states its arithmetic in the whole's "epsilon
accounting" condition. The ledger
(:mod:`dpconvex.privacy.budget`) charges by the same rules
(docs/privacy/tuning_gd_ledger.md#privacy-budget-ledger, #privacy-private-tuning).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any, Literal

from .._validation import describe_value
from ..errors import ParameterError, PrivacyError
from .certificate import Certificate, Condition, Fact, guarantee_fault

__all__ = ["compose_parallel", "compose_repetitions", "compose_sequential", "compose_tuning",
           "fixed_candidates"]


def fixed_candidates(detail: str) -> Condition:
    """The condition "candidates fixed before the data" of a selection among candidates
    (private tuning, random repetition, a front door's safeguard): each candidate is fixed by
    public choices before any record is read, so the selection's utilities have the stated
    sensitivity.

    Parameters
    ----------
    detail : str
        How the candidates were fixed (the condition's detail).

    Returns
    -------
    Condition
        It holds, enforced by dpconvex.

    Examples
    --------
    >>> from dpconvex.privacy.composition import fixed_candidates
    >>> fixed_candidates("a public grid of lambda").name
    'candidates fixed before the data'
    """
    return Condition("candidates fixed before the data", True, "enforced by dpconvex", detail)


def compose_sequential(parts: Sequence[Certificate], *, mechanism: str, epsilon_requested: float,
                       delta_requested: float | None = None, conditions: Sequence[Condition] = (),
                       quantities: dict[str, Any] | None = None,
                       assumptions: Sequence[Fact | str | None] = (),
                       solver: dict[str, Any] | None = None, labels: Sequence[str] | None = None,
                       private: bool | None = None, caller: str | None = None) -> Certificate:
    """Certificate of releases run one after another on the same rows (basic composition).

    ε and δ add up (Dwork & Roth 2014, Thm. 3.16; adaptive choice of later releases allowed).
    A part that is not private makes the whole not private.

    Parameters
    ----------
    parts : sequence of Certificate
        The parts' certificates, in the order they were released (at least one).
    mechanism : str
        The whole's mechanism line.
    epsilon_requested : float
        The ε the composition must not exceed.
    delta_requested : float or None, default=None
        The δ the composition must not exceed (None: not checked).
    conditions, quantities, assumptions, solver : optional
        The whole's further entries (its conditions follow the "epsilon accounting" one; the
        parts' row maps are merged into its own).
    labels : sequence of str or None, default=None
        The parts' short names, for the accounting line.
    private : bool or None, default=None
        False marks the whole as not private although every part is (e.g. a non-private
        preprocessing step without a certificate of its own).
    caller : str or None, default=None
        The public call the composition is made for (e.g. ``"PrivateClassifier.fit"``): a
        refusal opens with it, then the rule's name.

    Returns
    -------
    Certificate
        The whole, its parts in ``parts``.

    Raises
    ------
    PrivacyError
        No part, or a private composition above ``epsilon_requested`` (or
        ``delta_requested``): nothing is released.

    References
    ----------
    [DR14]_ Theorem 3.16 (basic composition).

    Examples
    --------
    >>> from dpconvex import Certificate
    >>> from dpconvex.privacy.composition import compose_sequential
    >>> a = Certificate("histogram", epsilon_requested=0.25, epsilon=0.25)
    >>> b = Certificate("model", epsilon_requested=0.75, epsilon=0.75, delta=1e-6)
    >>> total = compose_sequential([a, b], mechanism="histogram, then model", epsilon_requested=1.0)
    >>> total.epsilon, total.delta, len(total.parts)
    (1.0, 1e-06, 2)
    """
    return _compose("sequential", parts, mechanism=mechanism,
                    epsilon_requested=epsilon_requested, delta_requested=delta_requested,
                    conditions=conditions, quantities=quantities, assumptions=assumptions,
                    solver=solver, labels=labels, private=private, caller=caller)


def compose_parallel(parts: Sequence[Certificate], *, mechanism: str, epsilon_requested: float,
                     delta_requested: float | None = None,
                     conditions: Sequence[Condition] = (),
                     quantities: dict[str, Any] | None = None,
                     assumptions: Sequence[Fact | str | None] = (),
                     solver: dict[str, Any] | None = None,
                     labels: Sequence[str] | None = None,
                     caller: str | None = None) -> Certificate:
    """Certificate of releases run on disjoint parts of the rows (parallel composition).

    ε and δ are the maxima over the parts (McSherry 2009, Thm. 4; replace-one adjacency
    touches one part). The caller states, among ``conditions``, how the parts are disjoint.

    Parameters
    ----------
    parts : sequence of Certificate
        The parts' certificates, each released on its own part of the rows (at least one).
    mechanism : str
        The whole's mechanism line.
    epsilon_requested : float
        The ε the composition must not exceed.
    delta_requested : float or None, default=None
        The δ the composition must not exceed (None: not checked).
    conditions, quantities, assumptions, solver, labels, caller : optional
        The whole's further entries (among ``conditions``, how the parts are disjoint) and
        the call it is made for, as for :func:`compose_sequential`.

    Returns
    -------
    Certificate
        ε and δ the maxima over the parts; not private where a part is not.

    Raises
    ------
    PrivacyError
        No part, or a private composition above ``epsilon_requested`` (or
        ``delta_requested``): nothing is released.

    References
    ----------
    [McS09]_ Theorem 4 (parallel composition).

    Examples
    --------
    >>> from dpconvex import Certificate
    >>> from dpconvex.privacy.composition import compose_parallel
    >>> parts = [Certificate("model", epsilon_requested=1.0, epsilon=1.0) for _ in range(3)]
    >>> total = compose_parallel(parts, mechanism="one model per disjoint part",
    ...                          epsilon_requested=1.0)
    >>> total.epsilon, len(total.parts)
    (1.0, 3)
    """
    return _compose("parallel", parts, mechanism=mechanism,
                    epsilon_requested=epsilon_requested, delta_requested=delta_requested,
                    conditions=conditions, quantities=quantities, assumptions=assumptions,
                    solver=solver, labels=labels, caller=caller)


def compose_tuning(trained: Sequence[Certificate], selection: Certificate, *, mechanism: str,
                   epsilon_requested: float, candidates: str, split: str,
                   delta_requested: float | None = None,
                   quantities: dict[str, Any] | None = None,
                   assumptions: Sequence[Fact | str | None] = (),
                   labels: Sequence[str] | None = None,
                   caller: str | None = None) -> Certificate:
    """Certificate of private tuning (Chaudhuri, Monteleoni & Sarwate 2011, Alg. 4): candidates
    fixed before the data, each trained on its own part of the rows, and a selection on another
    part (or on public rows), composed in parallel (:func:`compose_parallel`,
    docs/privacy/tuning_gd_ledger.md#privacy-private-tuning).

    Parameters
    ----------
    trained : sequence of Certificate
        The candidates' releases, each on its own part.
    selection : Certificate
        The selection's release, on its part (or on public rows).
    mechanism : str
        The composition's mechanism line.
    epsilon_requested : float
        The ε the composition must not exceed.
    candidates : str
        How the candidates were fixed before the data (the condition's detail).
    split : str
        How the rows were split into disjoint parts (the condition's detail).
    delta_requested : float or None, default=None
        The δ the composition must not exceed (None: not checked).
    quantities, assumptions, labels, caller : optional
        The composition's further entries and the call it is made for, as for
        :func:`compose_sequential`.

    Returns
    -------
    Certificate
        The parallel composition, its conditions "candidates fixed before the data" and
        "disjoint parts" stated.

    Raises
    ------
    PrivacyError
        A part spends more than ``epsilon_requested`` (or ``delta_requested``): nothing is
        released.

    References
    ----------
    [CMS]_ Algorithm 4 (private tuning); [McS09]_ Theorem 4 (parallel composition).

    Examples
    --------
    >>> from dpconvex import Certificate
    >>> from dpconvex.privacy.composition import compose_tuning
    >>> model = Certificate("model", epsilon_requested=1.0, epsilon=1.0)
    >>> select = Certificate("selection", epsilon_requested=1.0, epsilon=1.0)
    >>> tuned = compose_tuning([model], select, mechanism="demo", epsilon_requested=1.0,
    ...                        candidates="one model", split="a random split")
    >>> tuned.epsilon, [c.name for c in tuned.conditions][1:]
    (1.0, ['candidates fixed before the data', 'disjoint parts'])
    """
    conditions = [fixed_candidates(candidates),
                  Condition("disjoint parts", True, "enforced by dpconvex", split)]
    return _compose("parallel", [*trained, selection], mechanism=mechanism,
                    epsilon_requested=epsilon_requested, delta_requested=delta_requested,
                    conditions=conditions, quantities=quantities, assumptions=assumptions,
                    solver=None, labels=labels, caller=caller)


def compose_repetitions(run: Certificate, *, eta: float, epsilon_run: float, mechanism: str,
                        epsilon_requested: float, each_run: str, candidates: str, runs: str,
                        per_run: str, quantities: dict[str, Any] | None = None,
                        assumptions: Sequence[Fact | str | None] = (),
                        caller: str | None = None) -> Certificate:
    """Certificate of private selection by random repetition: ε₁-DP runs, repeated a random
    number K of times (K ~ D_{η,γ}, drawn independently of the data and not released), and only
    the best run's output released, is ((2 + η) ε₁, 0)-DP.

    Papernot & Steinke, Hyperparameter Tuning with Renyi Differential Privacy, ICLR 2022
    (arXiv:2110.03620v2), Corollary 3 (the pure-DP case of Theorem 2; D_{η,γ} the truncated
    negative binomial law of Definition 1); for η = 1 (geometric K) Liu & Talwar, Private
    Selection from Private Candidates, STOC 2019: 3 ε₁. Derivation:
    docs/privacy/tuning_gd_ledger.md#privacy-random-search.

    Parameters
    ----------
    run : Certificate
        The released run's certificate (the whole's one part).
    eta : {0.0, 1.0}
        η of K's law: 1.0 geometric, 0.0 logarithmic (the laws derived in the docs).
    epsilon_run : float
        ε₁: the bound every run was checked to meet (with δ = 0), ``run`` included.
    mechanism : str
        The whole's mechanism line.
    epsilon_requested : float
        The ε the composition must not exceed.
    each_run : str
        Why one run is ε₁-DP (the end of the accounting line).
    candidates, runs, per_run : str
        How the theorem's conditions hold (the details of the conditions "candidates fixed
        before the data", "number of runs random and hidden" and "uniform per-run bound").
    quantities, assumptions, caller : optional
        The composition's further entries and the call it is made for, as for
        :func:`compose_sequential`.

    Returns
    -------
    Certificate
        ε = (2 + η) ε₁, δ = 0, its conditions "epsilon accounting" and the theorem's three
        stated; not private where ``run`` is not.

    Raises
    ------
    ParameterError
        η other than 0 or 1.
    PrivacyError
        ``run`` above (ε₁, 0), or (2 + η) ε₁ above ``epsilon_requested``: nothing is released.

    References
    ----------
    [PS22]_ Corollary 3 (the pure-DP case of Theorem 2; D_{η,γ} of Definition 1);
    [LT19]_ (η = 1, geometric K: 3 ε₁).

    Examples
    --------
    >>> from dpconvex import Certificate
    >>> from dpconvex.privacy.composition import compose_repetitions
    >>> run = Certificate("one run", epsilon_requested=0.25, epsilon=0.25)
    >>> best = compose_repetitions(
    ...     run, eta=1.0, epsilon_run=0.25, mechanism="best of K runs", epsilon_requested=1.0,
    ...     each_run="its certificate", candidates="a fixed list", runs="K ~ geometric",
    ...     per_run="checked after each run")
    >>> best.epsilon, best.delta, [c.name for c in best.conditions][2:]
    (0.75, 0.0, ['number of runs random and hidden', 'uniform per-run bound'])
    """
    if not isinstance(eta, numbers.Real) or eta not in (0.0, 1.0):
        raise ParameterError(f"The 'eta' argument of compose_repetitions must be 0.0 "
                             "(logarithmic) or 1.0 (geometric). "
                             f"Got {describe_value(eta)} instead.")
    multiplier = 2.0 + eta
    total = multiplier * epsilon_run
    caller = _refused_in(caller, "repetitions")  # a refusal's opening
    if run.private and (run.epsilon > epsilon_run or run.delta != 0.0):
        raise PrivacyError(
            f"{caller}: the run spends epsilon = {run.epsilon:.6g}, "
            f"delta = {run.delta:.3g}, above the per-run bound epsilon_1 = {epsilon_run:.6g}, "
            "delta = 0; nothing is released.")
    if run.private and not total <= epsilon_requested:
        raise PrivacyError(
            f"{caller}: (2 + eta) * epsilon_1 = {total:.6g} > "
            f"epsilon = {epsilon_requested:g}; nothing is released.")
    detail = (f"(2 + eta) * epsilon_1 = {multiplier:g} * {epsilon_run:.6g} = {total:.6g} <= "
              f"{epsilon_requested:g}; each run is epsilon_1-DP ({each_run})" if run.private
              else "a part is not private: no guarantee")
    # it holds: a private composition above the request was refused above
    conditions = [
        Condition("epsilon accounting", True,
                  "random repetition (Papernot & Steinke 2022, Corollary 3)", detail),
        fixed_candidates(candidates),
        Condition("number of runs random and hidden", True, "enforced by dpconvex", runs),
        Condition("uniform per-run bound", True, "enforced by dpconvex", per_run),
    ]
    return Certificate(
        mechanism=mechanism, epsilon_requested=epsilon_requested,
        epsilon=total if run.private else math.inf, delta=0.0, private=run.private,
        conditions=conditions, quantities=dict(quantities or {}), assumptions=list(assumptions),
        parts=[run])


def _compose(rule: Literal["sequential", "parallel"], parts: Sequence[Certificate], *,
             mechanism: str, epsilon_requested: float, delta_requested: float | None,
             conditions: Sequence[Condition], quantities: dict[str, Any] | None,
             assumptions: Sequence[Fact | str | None], solver: dict[str, Any] | None,
             labels: Sequence[str] | None, private: bool | None = None,
             caller: str | None = None) -> Certificate:
    """The certificate of ``parts`` composed by ``rule``: ``"sequential"`` (ε and δ add up) or
    ``"parallel"`` (their maxima); :func:`compose_sequential` states the parameters."""
    parts = list(parts)
    if not parts:
        caller = _refused_in(caller, rule)
        raise PrivacyError(
            f"{caller}: no certificates, nothing to compose. Pass at least one part.")
    private = private is not False and all(p.private for p in parts)
    epsilons, deltas = [p.epsilon for p in parts], [p.delta for p in parts]  # each read once
    for k, (part, eps_k, delta_k) in enumerate(zip(parts, epsilons, deltas, strict=True)):
        # a negative (or NaN) part would lower the sum: no guarantee composes from it
        fault = guarantee_fault(part.epsilon_requested, eps_k, delta_k)
        if fault is not None:
            caller = _refused_in(caller, rule)
            raise PrivacyError(
                f"{caller}: part {k} ({part.mechanism_name or 'a certificate'}) is no "
                f"(epsilon, delta) guarantee: {fault}; nothing is released.")
    shown = [f"{e:.6g}" for e in epsilons]
    if rule == "sequential":
        eps, delta, how = math.fsum(epsilons), math.fsum(deltas), " + ".join(shown)
    else:
        eps, delta, how = max(epsilons), max(deltas), f"max({', '.join(shown)})"
    within = eps <= epsilon_requested and (
        delta_requested is None or delta <= delta_requested * (1 + 1e-12))
    if private and not within:
        caller = _refused_in(caller, rule)
        raise PrivacyError(
            f"{caller}: the parts spend epsilon = {eps:.6g}, delta = {delta:.3g} > the "
            f"requested epsilon = {epsilon_requested:g}; nothing is released.")
    detail = (f"{how} = {eps:.6g} <= {epsilon_requested:g}" if private
              else "a part is not private: no guarantee")
    if labels is not None:
        detail += f" ({'; '.join(labels)})"
    # it holds: a private composition above the request was refused above
    accounting = Condition("epsilon accounting", True, f"{rule} composition", detail)
    return Certificate(
        mechanism=mechanism, epsilon_requested=epsilon_requested,
        epsilon=eps if private else math.inf, delta=delta if private else 0.0, private=private,
        conditions=[accounting, *conditions], quantities=dict(quantities or {}),
        # the rows' maps (their backend) of the parts, merged with them (Certificate.state)
        assumptions=[*(p.row_map for p in parts), *assumptions], solver=dict(solver or {}),
        parts=parts, seeded=any(p.seeded for p in parts))  # a seeded part: so is the release


def _refused_in(caller: str | None, rule: str) -> str:
    """A refusal's opening, ``"compose_{rule}"`` after ``caller`` (the public call) where
    given: ``"Owner.method: compose_{rule}"``."""
    name = f"compose_{rule}"
    return name if caller is None else f"{caller}: {name}"
