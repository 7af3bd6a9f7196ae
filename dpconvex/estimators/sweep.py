"""ε sweeps: one estimator fitted at several ε, several randomized runs each, on one data set.

A sweep builds the template once (validation, clipping, the sparse copy of the rows, the compiled CVXPY
problem with the noise as a :class:`cvxpy.Parameter`) and, on the native path, warm-starts every solve from
the previous solve of the sweep. Each fit is a separate release with its own certificate; the sweep holds
their sequential composition on the estimator's accountant before any data are read.

A warm start changes only how the solver reaches the minimizer, which it must reach to the
same residual tolerance before anything is released; the noise and the calibration do not
depend on it (docs/privacy/accuracy_randomness.md#privacy-accuracy-randomness).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sklearn.base import clone, is_classifier

from .._validation import (
    NoiseSource,
    RandomStateLike,
    check_bool,
    check_float,
    check_int,
    check_random_state,
    describe_value,
    feature_names_of,
    is_dask_collection,
    with_feature_names,
)
from ..data.validation import INFERRED, check_array, computed
from ..errors import ParameterError, collect_diagnostics
from ..privacy.budget import Budget, delta_rows_note, hold_budget
from ..privacy.certificate import Certificate
from ..privacy.composition import compose_sequential
from .base import (
    NO_CONTEXT,
    PrivateEstimator,
    carry_ledger,
    charge_not_public,
    fit_with,
    issued,
    not_public_source,
    prepared_plan_differences,
    public_label_source,
    refuse_users_learner,
    state_rows_source,
)
from .regression import private_bounds
from .selection.grid import (
    SelectedEstimator,
    grid_without_ledgers,
    public_size,
    state_vouched_steps,
)

__all__ = ["MAX_FITS", "EpsilonSweep", "epsilon_sweep"]

#: Largest number of fits of one sweep (len(epsilons) x runs): every fitted model is kept.
MAX_FITS = 10**5


@dataclass
class EpsilonSweep:
    """Result of :func:`epsilon_sweep`.

    Attributes
    ----------
    epsilons : tuple of float
        The ε grid, in the order given.
    estimators : list of list
        ``estimators[i][r]`` is the estimator fitted at ``epsilons[i]`` in run ``r``. Its
        ``random_state`` is the sweep's seed (:func:`epsilon_sweep`) when that is None or an
        int, and None when the sweep was given a Generator (which is not stored). The fits draw
        from one generator in order, so the sweep with that seed reproduces every model, and a
        model refitted alone (``clone(model).fit``) draws as the sweep's first fit does, not as
        its own.
    templates_built : int
        How many times a template was built (1 when it was reused throughout).
    n_samples : int or None
        The rows of the data set (public), for the certificate's line on δ against 1/n; None
        where X did not tell it before its rows were read.
    certificate : Certificate
        The sequential composition of every fit's certificate (a property).

    Examples
    --------
    >>> import numpy as np
    >>> from dpconvex import EpsilonSweep, PrivateLogisticRegression, epsilon_sweep
    >>> X = np.random.default_rng(0).normal(size=(40, 3))
    >>> X /= np.linalg.norm(X, axis=1, keepdims=True); y = np.where(X[:, 0] > 0, 1, -1)
    >>> sweep = epsilon_sweep(PrivateLogisticRegression(lam=0.1, classes=[-1, 1]), X, y,
    ...                       epsilons=[0.5, 1.0], random_state=0)
    >>> isinstance(sweep, EpsilonSweep), sweep.templates_built  # a fixed lam: one template
    (True, 1)
    >>> [fits[0].coef_.shape for fits in sweep.estimators]
    [(1, 3), (1, 3)]
    """

    epsilons: tuple[float, ...]
    estimators: list[list[Any]] = field(default_factory=list)
    templates_built: int = 0
    n_samples: int | None = None

    def score(self, X: Any, y: Any) -> np.ndarray:
        """Every fit's ``score`` on (X, y) (a classifier's accuracy, a regressor's R²): array
        of shape (len(epsilons), runs).

        A Dask array or DataFrame is predicted per chunk on the workers (one pass per fit): a
        classifier's predicted labels, or a regressor's predictions, come back.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows to score on.
        y : array-like of shape (n_samples,)
            Their labels or targets.

        Returns
        -------
        ndarray of shape (len(epsilons), runs)
            Entry (i, r): the score of ``estimators[i][r]``.

        Examples
        --------
        >>> import numpy as np
        >>> from dpconvex import PrivateLogisticRegression, epsilon_sweep
        >>> X = np.random.default_rng(0).normal(size=(40, 3))
        >>> X /= np.linalg.norm(X, axis=1, keepdims=True); y = np.where(X[:, 0] > 0, 1, -1)
        >>> sweep = epsilon_sweep(PrivateLogisticRegression(lam=0.1, classes=[-1, 1]), X, y,
        ...                       epsilons=[0.5, 1.0], random_state=0)
        >>> scores = sweep.score(X, y)
        >>> scores.shape, bool(((scores >= 0) & (scores <= 1)).all())
        ((2, 1), True)
        """
        if is_dask_collection(X) and is_classifier(self.estimators[0][0]):
            from .parts import mistakes

            labels = np.asarray(computed(y))
            n = labels.shape[0]
            return np.array(
                [
                    [
                        (n - mistakes(fitted, X, labels, "EpsilonSweep.score")) / n
                        for fitted in fits
                    ]
                    for fits in self.estimators
                ]
            )
        return np.array(
            [[float(fitted.score(X, y)) for fitted in fits] for fits in self.estimators]
        )

    @property
    def certificates(self) -> list[list[Any]]:
        """``certificate_`` of every fit, shaped like ``estimators``."""
        return [[fitted.certificate_ for fitted in fits] for fits in self.estimators]

    @property
    def certificate(self) -> Certificate:
        """The sweep's guarantee for its X: the sequential composition of every fit's
        certificate (ε and δ add up); a schema released by ``draft_schema`` that encodes every
        fit's table is counted once, before the fits (its ε and δ were charged by
        ``draft_schema``); pipeline steps outside dpconvex that a swept search vouched for
        (its ``vouch="preprocessing"``) are stated among its conditions."""
        release = self._schema_release
        fits = self._charged()
        if release is None:
            return fits
        whole = compose_sequential(
            [release, fits],
            mechanism=f"the schema released by draft_schema, then {fits.mechanism}",
            epsilon_requested=release.epsilon + fits.epsilon_requested,
            labels=["schema", "fits"],
        )
        whole.state(fits.label_source, delta_rows_note(whole.delta, self.n_samples))
        state_vouched_steps(whole, [fits])
        return whole

    @property
    def _schema_release(self) -> Certificate | None:
        """The release of the schema (drafted with ε) that encodes every fit's table, if any."""
        return getattr(getattr(self.estimators[0][0], "schema", None), "release", None)

    def _charged(self) -> Certificate:
        """The sequential composition of what the fits charge: each fit's certificate, without the
        release of the schema it encodes its table by (charged by ``draft_schema``); what the sweep
        charges its estimator's ledger."""
        release = self._schema_release
        parts = [fitted.certificate_ for fits in self.estimators for fitted in fits]
        # the front door's certificate: the schema's release, then the model
        if release is not None:
            parts = [
                part.parts[-1] if part.parts and part.parts[0] is release else part
                for part in parts
            ]
        labels = [f"epsilon={epsilon:g}, run {run}" for epsilon, fits
                  in zip(self.epsilons, self.estimators, strict=True) for run in range(len(fits))]
        whole = compose_sequential(
            parts, mechanism=f"epsilon sweep of {len(parts)} fits: {parts[0].mechanism}",
            epsilon_requested=math.fsum(part.epsilon_requested for part in parts),
            labels=labels)
        # one label set for every fit, as a search states it; δ against the n rows of the data set
        whole.state(parts[0].label_source, delta_rows_note(whole.delta, self.n_samples))
        # a search's pipeline steps outside dpconvex, vouched for by its vouch=: at the top
        state_vouched_steps(whole, parts)
        return whole


def epsilon_sweep(estimator: Any, X: Any, y: Any, epsilons: Sequence[float], *, runs: int = 1,
                  random_state: RandomStateLike = None, warm_start: bool = True) -> EpsilonSweep:
    """Fit ``estimator`` at every ε of ``epsilons``, ``runs`` times each, on (X, y).

    Parameters
    ----------
    estimator : estimator
        An unfitted dpconvex estimator (or a model with an ``epsilon`` and a
        ``certificate_``); it is not modified. Its parameters are used for every fit except
        ``epsilon`` and ``random_state``.
    X, y : array-like
        Training data, as for ``fit``. A Dask array or DataFrame is checked once for the whole sweep (its rows
        stay on the workers; y, a vector of length n, is computed once) and then given to every fit.
    epsilons : sequence of float
        ε values, each > 0, in the order of the sweep (a mapping or a set, with no such
        order, is refused with a ParameterError).
    runs : int, default=1
        Randomized runs (independent noise draws) per ε; ``runs * len(epsilons)`` is
        at most :data:`MAX_FITS` (every fitted model is kept).
    random_state : None, int or Generator
        Seeds all draws of the sweep: one generator, handed to the fits in order, never
        stored (each model's ``random_state`` is this value, or None for a Generator).
        None seeds from the OS (the certificates then carry no "seeded" note). The sweep
        with the same seed reproduces every model; a model refitted alone with its own
        parameters reproduces the first fit of the sweep only (the others drew further along
        the sweep's generator).
    warm_start : bool, default=True
        Start each native solve from the previous solve of the sweep (the released models
        have the same distribution either way).

    Returns
    -------
    EpsilonSweep
        The fitted models per ε and run, and the sweep's certificate.

    Raises
    ------
    ParameterError
        ``estimator`` is not an unfitted estimator the sweep can refit, or a parameter is
        out of its range.
    BudgetError
        The ``accountant`` cannot hold the sum of the fits' budgets (nothing charged).
    PrivacyError
        A swept search over a pipeline step outside dpconvex, without its
        ``vouch="preprocessing"`` (the search's refusal, before any fit; nothing charged).

    Notes
    -----
    A :class:`~dpconvex.estimators.base.PrivateEstimator` is fitted through ``plan`` /
    ``prepare`` / ``fit_prepared``, one prepared template shared across the sweep when it
    spends no budget and does not depend on ε (``Prepared.reusable``; a linear model's: Λ given and
    no kink smoothed at the half-width ``smoothing="auto"`` chooses from ε) and the next plan
    differs from its own in what the release reads off the plan alone
    (:func:`~dpconvex.estimators.base.prepared_plan_differences`); one-vs-rest plans and
    other estimators are refitted at each point. The sweep costs the sum of the fits' (ε, δ)
    (``EpsilonSweep.certificate``): a dpconvex estimator's ``accountant`` (a private search's
    ``charged_ledger()``, each of its fits stating its budget by ``budget_for``) holds that sum
    before any data are read, and refuses the whole sweep
    (:class:`~dpconvex.BudgetError`, nothing charged) when it does not fit; the fitted models
    keep the ``accountant``. The ledger is charged what the fits charge: a schema released by
    ``draft_schema`` was charged there, and the certificate counts it once. δ >= 1/n of the
    sum warns and is stated, as in a single fit's hold.

    What the certificate covers: a sweep is a series of fits of ``estimator`` itself on X as
    given, with no step between, and its certificate composes those fits' certificates as
    they stand. A dpconvex private estimator or private search certifies each fit for X, and
    so the sweep's certificate is a guarantee for X. A :class:`~sklearn.pipeline.Pipeline`
    has no ``epsilon`` and is not swept; pipeline steps reach a sweep only inside a search,
    whose own ``vouch=`` refuses a step outside dpconvex (a ``FunctionTransformer``) before
    anything is charged, or vouches for it (``vouch="preprocessing"``): the sweep's
    certificate then states those steps among its own conditions, declared and vouched for,
    not verified, as the search's does. An estimator outside dpconvex that has an
    ``epsilon`` (a user's model) is fitted by its own ``fit(X, y)`` and holds no ledger: its
    ``certificate_`` is its own statement, which the sweep composes unchecked.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(40, 3))
    >>> X /= np.linalg.norm(X, axis=1, keepdims=True); y = np.where(X[:, 0] > 0, 1, -1)
    >>> from dpconvex import PrivateLogisticRegression, epsilon_sweep
    >>> sweep = epsilon_sweep(PrivateLogisticRegression(classes=[-1, 1]), X, y,
    ...                       epsilons=[0.5, 1.0], runs=2, random_state=0)
    >>> sweep.epsilons, len(sweep.estimators), len(sweep.estimators[0])
    ((0.5, 1.0), 2, 2)
    >>> [fits[0].certificate_.epsilon <= eps for eps, fits in zip(sweep.epsilons, sweep.estimators)]
    [True, True]
    """
    epsilon_grid = _check_epsilons(epsilons)
    runs = check_int("runs", runs, "epsilon_sweep", high=MAX_FITS // len(epsilon_grid),
                     why=f"the sweep keeps every fitted model, at most {MAX_FITS:,} "
                         f"(runs x {len(epsilon_grid)} epsilons)")
    warm_start = check_bool("warm_start", warm_start, "epsilon_sweep")
    if isinstance(estimator, type) or not (
        hasattr(estimator, "get_params") and hasattr(estimator, "fit")
    ):
        raise ParameterError(
            "The 'estimator' parameter of epsilon_sweep must be an unfitted dpconvex estimator. "
            + (f"Got the class {estimator.__name__}; pass an instance, {estimator.__name__}()."
               if isinstance(estimator, type) else f"Got {type(estimator).__name__} instead.")
        )
    if "epsilon" not in estimator.get_params(deep=False):
        raise ParameterError(
            "The 'estimator' parameter of epsilon_sweep must be an estimator with an 'epsilon' "
            f"parameter. Got {type(estimator).__name__}, which has none.")
    if isinstance(estimator, PrivateEstimator) and type(estimator).fit is not PrivateEstimator.fit:
        raise ParameterError(
            f"epsilon_sweep: {type(estimator).__name__} overrides fit, which the sweep "
            "never calls (it fits by plan, prepare and fit_prepared): call fit per epsilon."
        )
    # the sweep composes its fits' certificates: each must be dpconvex's fit as shipped
    refuse_users_learner(estimator, "epsilon_sweep")
    # recorded on every model, as fit does (a Dask DataFrame is checked into an array once)
    names = feature_names_of(X, "epsilon_sweep")
    if is_dask_collection(X):  # checked once; the rows stay on the workers, y comes to the driver
        X = check_array(X, "epsilon_sweep", min_samples=2, accept_dask=True)
        y = computed(y)
    noise = NoiseSource(
        check_random_state(random_state, "epsilon_sweep"), random_state is not None
    )
    # a dpconvex estimator plans each fit from the public shape, and a private search states the
    # budget its fit holds: the sweep holds the sum on the ledger before any data are read, and
    # its fits charge nothing (their ledgers set to None, and put back once the sweep is charged)
    planned = isinstance(estimator, PrivateEstimator)
    search = isinstance(estimator, SelectedEstimator)
    # the label set is read from y: a search's (its classes, else its estimator's) or an
    # estimator's label source (a given set is checked later, by the fit's name)
    reads = (
        estimator.public_classes() is None
        if search
        else getattr(estimator, "classes", None) is None
        and public_label_source(estimator) is INFERRED
    )
    # one label-set warning per sweep (not per fit), before a plan or hold reads the set from y
    context = NO_CONTEXT.one_label_warning(owner=type(estimator).__name__ if reads else "", y=y,
                                           text=getattr(estimator, "_inferred_warning", None))
    stored = None if isinstance(random_state, np.random.Generator) else random_state
    params = estimator.get_params(deep=False)
    given = estimator.get_params(deep=True)
    ledgers = (
        [key for key in given if key.rsplit("__", 1)[-1] == "accountant"]
        if planned or search
        else []
    )
    ledger = (estimator.charged_ledger() if search
              else given.get("accountant") if planned else None)
    if search:  # its estimator's and its grid's ledgers set aside in copies, not the caller's
        params = {**params, "estimator": clone(params["estimator"]),
                  "param_grid": grid_without_ledgers(params["param_grid"])}
    put_back = [*ledgers, "param_grid"] if search else ledgers  # the caller's, once charged
    models = [[type(estimator)(**params).set_params(
        epsilon=epsilon, random_state=stored, **dict.fromkeys(ledgers))
        for _ in range(runs)] for epsilon in epsilon_grid]
    # a label range released inside the fit has no plan before it, and rows that carry their
    # public ranges are fitted by a clone that takes them: the fit's dry run (certify, public
    # shape only) states its whole budget, and it is fitted as a plain fit
    later = planned and (private_bounds(params.get("label_range")) is not None
                         or (estimator.takes_rows_ranges
                             and estimator._with_rows_ranges(X) is not None))
    # one plan per epsilon, followed by each of its runs (the same parameters and public shape)
    plans = [[fits[0].plan_for(X, y) if planned and not later else None] * runs
             for fits in models]
    owner = f"epsilon_sweep({type(estimator).__name__})"
    # each fit's budget, stated once per epsilon (its runs hold the same)
    if later:
        budgets = [Budget(c.epsilon, c.delta) for c in (fits[0].certify(X, y) for fits in models)
                   for _ in range(runs)]
    elif search:
        budgets = [fits[0].budget_for(X, y) for fits in models for _ in range(runs)]
    else:
        budgets = [plan.budget for fit_plans in plans for plan in fit_plans if plan is not None]
    sweep = EpsilonSweep(epsilon_grid, n_samples=public_size(X)[0])
    prepared = None
    previous: np.ndarray | None = None
    context = context.inner(None, held=True)  # δ against 1/n: the sweep's hold, for the whole
    with charge_not_public(ledger if not_public_source(estimator, X) else None, owner), \
            hold_budget(ledger, Budget(math.fsum(b.epsilon for b in budgets),
                                       math.fsum(b.delta for b in budgets)) if budgets else None,
                        owner, n=sweep.n_samples) as hold:
        for fits, fit_plans in zip(models, plans, strict=True):
            for model, plan in zip(fits, fit_plans, strict=True):
                # one-vs-rest, estimators without prepare / fit_prepared (e.g.
                # PrivateGridSearch) and a regressor releasing its labels' centre first are
                # plain fits, drawing from the sweep's generator: a fit on X itself (a
                # search's pipeline steps answer to the search's own vouch=)
                if plan is None or plan.sub_plans or "label center" in plan.parts or \
                        type(model).prepare is PrivateEstimator.prepare:
                    fit_with(model, X, y, context, [(model, noise)], caller=owner)
                    continue
                with issued(context.inner(noise)) as model_context:  # inside the sweep's hold
                    # one preparation across ε where it serves this plan (reusable, and made
                    # for a plan that differs from this one in what its release reads alone)
                    if prepared is None or not prepared.reusable or \
                            prepared_plan_differences(model, prepared, plan):
                        prepared = model.prepare(X, y, plan, context=model_context)
                        sweep.templates_built += 1
                    # the previous solve's point (a start point only:
                    # docs/privacy/accuracy_randomness.md#privacy-accuracy-randomness) comes
                    # from the not-private diagnostic channel; nothing of it is stored on the
                    # models
                    with collect_diagnostics() as diagnostics:
                        model.fit_prepared(prepared, plan,
                                           warm_start=previous if warm_start else None,
                                           context=model_context)
                state_rows_source(model, X)  # a drafted or released schema's rows, named
                if diagnostics and diagnostics[-1].x is not None:
                    previous = np.asarray(diagnostics[-1].x, dtype=float)
            sweep.estimators.append([with_feature_names(model, names) for model in fits])
        if planned or search:
            hold.commit_certificate(sweep._charged())
            for fits in models:  # a refit of a model charges the ledger, as fit does
                for model in fits:
                    model.set_params(**{key: given[key] for key in put_back})
                    carry_ledger(model, ledger)
                    model.certificate_.state(
                        delta_rows_note(model.certificate_.delta, sweep.n_samples)
                    )
    return sweep


def _check_epsilons(epsilons: Sequence[float]) -> tuple[float, ...]:
    if isinstance(epsilons, (Mapping, Set)):  # a dict's values or a set's order would be dropped
        raise ParameterError(
            "The 'epsilons' parameter of epsilon_sweep must be a sequence of floats in (0, inf), "
            f"in the order of the sweep (a list or tuple). Got a {type(epsilons).__name__} "
            "instead; "
            "pass list(...) of the epsilons."
        )
    try:
        if isinstance(epsilons, (str, bytes)):
            raise TypeError
        grid = tuple(epsilons)
        if len(grid) > MAX_FITS:
            raise ParameterError(
                f"The 'epsilons' parameter of epsilon_sweep has {len(grid):,} values; at most "
                f"{MAX_FITS:,} (the sweep keeps every fitted model).")
    except TypeError:
        raise ParameterError(
            f"The 'epsilons' parameter of epsilon_sweep must be a sequence of floats in (0, inf). "
            f"Got {describe_value(epsilons)} instead."
        ) from None
    if not grid:
        raise ParameterError("The 'epsilons' parameter of epsilon_sweep is empty; give at least "
                             "one epsilon > 0.")
    checked = []
    for index, value in enumerate(grid):  # the refusal describes the sequence, not an entry
        try:
            checked.append(check_float("epsilons", value, "epsilon_sweep"))
        except ParameterError:
            raise ParameterError(
                "The 'epsilons' parameter of epsilon_sweep must be a sequence of floats in "
                f"(0, inf); entry {index} is not. Got {describe_value(epsilons)} instead."
            ) from None
    return tuple(checked)
