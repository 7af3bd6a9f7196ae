"""A refusal after a release's noise is drawn is charged; one before any draw is not.

The notes that are functions of a release (a released range at the grid's end, a random
search's repeated warnings of the run it released) are issued after the release's hold has
committed, so a warning turned into an error (``warnings.simplefilter("error")``,
``pytest -W error``) never refuses a release the ledger has not charged
(docs/privacy/messages.md#privacy-refusal-charge). A Dask source that yields other rows on a
later pass is refused by name, with no row count or chunk in the refusal or its context.
"""

from __future__ import annotations

import warnings

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

import dpconvex as dp
from dpconvex import Budget
from dpconvex.errors import (
    DataValidationError,
    PrivacyWarning,
    SolverCostWarning,
    SolverError,
)
from dpconvex.privacy.budget import hold_budget
from dpconvex.privacy.noise import Laplace


def _unit_rows(n: int, seed: int = 0) -> np.ndarray:
    X = np.random.default_rng(seed).normal(size=(n, 3))
    return X / np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]


def _tiny_labels(n: int, ones: int) -> np.ndarray:
    # most labels at 1e-9, a few at 1: the released range is, for most seeds, the grid's
    # cell around 0, which notes it (grid_end_note)
    y = np.full(n, 1e-9)
    y[:ones] = 1.0
    return y


def test_an_exception_in_a_hold_is_charged_once_noise_is_drawn_and_not_before():
    ledger = dp.BudgetAccountant(epsilon=2.0)
    with pytest.raises(RuntimeError), hold_budget(ledger, Budget(0.5), "before"):
        raise RuntimeError("refused before any noise")
    assert ledger.spent == (0.0, 0.0) and ledger.reserved == []
    # a draw in a release nested in the hold (a fit inside a search's or a sweep's hold,
    # holding no ledger of its own) is the outer release's draw too
    with pytest.raises(RuntimeError), hold_budget(ledger, Budget(0.5), "outer") as outer:
        with hold_budget(None, Budget(0.5), "inner"):
            Laplace(1.0).add(np.zeros(2), np.random.default_rng(0))
        assert outer.reservation is not None and outer.reservation.noise_drawn
        raise RuntimeError("refused after the noise")
    assert ledger.spent == (0.5, 0.0) and ledger.reserved == []


def test_a_solve_that_fails_after_the_noise_is_charged_a_refusal_before_it_is_not():
    X = _unit_rows(200)
    y = (X[:, 0] > 0).astype(int)
    ledger = dp.BudgetAccountant(epsilon=3.0)
    # refused inside the hold before any noise (a NaN in X): nothing charged
    X_nan = X.copy()
    X_nan[3, 1] = np.nan
    est = dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1], random_state=0,
                                       accountant=ledger)
    with pytest.raises(DataValidationError):
        est.fit(X_nan, y)
    assert ledger.spent == (0.0, 0.0) and ledger.reserved == []
    # objective perturbation draws b, then solves; a solve capped at one iteration misses
    # the tolerance: refused after the noise, charged the fit's epsilon
    est = dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1], random_state=0,
                                       mechanism="objective", max_iter=1, accountant=ledger)
    with pytest.raises(SolverError):
        est.fit(X, y)
    assert not hasattr(est, "coef_")
    assert ledger.spent == (1.0, 0.0) and ledger.reserved == []


def test_draft_schema_notes_its_range_after_the_ledger_is_charged():
    df = pd.DataFrame({"a": _tiny_labels(400, 21)})
    ledger = dp.BudgetAccountant(epsilon=3.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyWarning)
        with pytest.raises(PrivacyWarning, match="released range"):  # seed 0 notes it
            dp.draft_schema(df, epsilon=1.0, kinds={"a": "numeric"}, accountant=ledger,
                            random_state=0)
    assert ledger.spent == (1.0, 0.0) and ledger.reserved == []


def test_a_private_label_range_notes_after_the_fit_is_charged():
    X, y = _unit_rows(1000), _tiny_labels(1000, 50)
    ledger = dp.BudgetAccountant(epsilon=4.0)
    est = dp.PrivateLinearRegressor(label_range="private", random_state=1, accountant=ledger)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyWarning)
        with pytest.raises(PrivacyWarning, match="released range of the labels"):
            est.fit(X, y)
    # the certificate's epsilon composes the range's share and the model's: 1 up to the
    # rounding of the split (a few ulps)
    assert ledger.spent[0] == pytest.approx(1.0, abs=1e-12) and ledger.reserved == []
    first = ledger.spent[0]
    # in a sweep, the fit's note comes inside the sweep's hold, after the noise: the sweep's
    # held sum is charged
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyWarning)
        with pytest.raises(PrivacyWarning, match="released range of the labels"):
            dp.epsilon_sweep(dp.PrivateLinearRegressor(label_range="private", random_state=1,
                                                       accountant=ledger), X, y, [1.0, 1.5])
    assert ledger.spent == (first + 2.5, 0.0) and ledger.reserved == []


def test_a_random_search_repeats_its_run_warnings_after_the_ledger_is_charged():
    X = _unit_rows(300)
    y = (X[:, 0] > 0).astype(int)
    ledger = dp.BudgetAccountant(epsilon=3.0)
    # a candidate on 'clarabel' warns of its cost; the search repeats the released run's
    search = dp.PrivateRandomSearch(dp.PrivateLogisticRegression(classes=[0, 1]),
                                    [{"solver": ["clarabel"]}], epsilon=1.0, random_state=0,
                                    accountant=ledger)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(SolverCostWarning):
            search.fit(X, y)
    assert ledger.spent == (1.0, 0.0) and ledger.reserved == []


def test_a_dask_frame_yielding_other_rows_on_a_later_pass_is_refused_by_name():
    X0 = _unit_rows(400)
    y = (X0[:, 0] > 0).astype(int)
    calls = [0]

    def part(i: int) -> pd.DataFrame:  # 5 more rows from the third read of a partition on
        calls[0] += 1
        rows = X0[200 * i:200 * (i + 1)]
        if calls[0] > 2:
            rows = np.vstack([rows, np.full((5, 3), 0.5)])
        return pd.DataFrame(rows, columns=["a", "b", "c"])

    meta = pd.DataFrame({"a": [], "b": [], "c": []}, dtype=float)
    for est in (dp.PrivateLogisticRegression(classes=[0, 1], random_state=0),
                dp.PrivateLargeMarginGaussian(classes=[0, 1], random_state=0, data_norm=1.0)):
        calls[0] = 0
        Xd = dd.from_delayed([dask.delayed(part)(i) for i in range(2)], meta=meta)
        with dask.config.set(scheduler="synchronous"), dp.collect_diagnostics() as diag, \
                pytest.raises(DataValidationError, match="does not hold the 200 rows") as err:
            est.fit(Xd, y)
        # the refusal names the declared rows only, keeps no exception (nor its frames,
        # which read the partition) as context, and the rows held go to the diagnostics
        assert "205" not in str(err.value)
        assert err.value.__context__ is None and err.value.__cause__ is None
        assert "(205, 3)" in diag.note("a chunk of X has shape").what
