"""Fits with bounds released from the data: a private label range, a released schema.

The label range and the schema are parts of the release: one ledger is charged their (ε, δ)
with the model's, the certificate composes them, and the front door's rule sees the ε left.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import dpconvex as dp

RNG = np.random.default_rng(7)
X = RNG.uniform(-1, 1, size=(3000, 3)) / 2
Y = 300 + 100 * X[:, 0] - 40 * X[:, 1] + RNG.normal(0, 10, 3000)

REGRESSORS = [
    lambda **kw: dp.PrivateLinearRegression(**kw),
    lambda **kw: dp.PrivateLinearRegressor(**kw),
    lambda **kw: dp.PrivateHuberRegressor(**kw),
    lambda **kw: dp.PrivateQuantileRegressor(**kw),
    lambda **kw: dp.PrivateRegressor(**kw),
]


@pytest.mark.parametrize("make", REGRESSORS)
def test_a_private_label_range_is_a_part_of_the_one_budget(make):
    ledger = dp.BudgetAccountant(epsilon=3.0)
    model = make(epsilon=2.0, label_range="private", random_state=0, accountant=ledger)
    model.fit(X, Y)
    lo, hi = model.label_range_
    assert lo < 300 < hi
    cert = model.certificate_
    assert [round(p.epsilon_requested, 12) for p in cert.parts] == [0.2, 1.8]
    assert cert.epsilon <= 2.0 and ledger.spent[0] == pytest.approx(cert.epsilon, abs=1e-12)
    pred = model.predict(X[:50])
    assert np.all((pred >= lo) & (pred <= hi))
    # certify states the same parts without reading a label or drawing noise
    assert model.certify(X, Y).epsilon == pytest.approx(cert.epsilon, abs=1e-12)


def test_the_front_doors_rule_sees_the_epsilon_left():
    model = dp.PrivateRegressor(epsilon=1.0, label_range=dp.PrivateBounds(share=0.25),
                                random_state=0).fit(X, Y)
    label, rest = model.certificate_.parts
    assert label.epsilon == pytest.approx(0.25) and rest.epsilon_requested == pytest.approx(0.75)


@pytest.mark.parametrize("bad", [0.0, 1.0, -0.1, "half"])
def test_a_share_outside_zero_one_is_refused(bad):
    with pytest.raises(dp.ParameterError, match="share"):
        dp.PrivateBounds(share=bad)


def test_a_label_range_that_is_neither_public_nor_private_is_refused():
    with pytest.raises(dp.ParameterError, match="'private'"):
        dp.PrivateRegressor(label_range="documented").fit(X, Y)


def _table(n: int = 2500, seed: int = 1) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"age": rng.integers(18, 90, n), "income": rng.lognormal(10, 1, n),
                       "plan": rng.choice(["basic", "pro"], n)})
    y = ((df["age"] > 50) ^ (df["plan"] == "pro")).astype(int).to_numpy()
    return df, y


def test_a_front_door_on_a_released_schema_composes_its_certificate():
    df, y = _table()
    ledger = dp.BudgetAccountant(epsilon=2.0)
    schema = dp.draft_schema(df, epsilon=0.3, declared={"plan": dp.Categorical(("basic", "pro"))},
                             accountant=ledger, random_state=0)
    clf = dp.PrivateClassifier(epsilon=1.7, classes=[0, 1], schema=schema, accountant=ledger,
                               random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", dp.PrivacyLeakWarning)  # a released schema is public
        clf.fit(df, y)
    cert = clf.certificate_
    assert cert.parts[0] is not None and cert.parts[0].epsilon == pytest.approx(0.3)
    assert cert.epsilon == pytest.approx(2.0) and ledger.spent[0] == pytest.approx(2.0)
    assert clf.n_features_in_ == 3 and list(clf.feature_names_in_) == ["age", "income", "plan"]
    assert clf.predict(df.head(5)).shape == (5,)
    assert 0.0 <= clf.score(df, y) <= 1.0
    assert clf.certify(df, y).epsilon == pytest.approx(2.0)


def test_a_hand_written_schema_adds_nothing_to_the_certificate():
    df, y = _table()
    schema = dp.PublicSchema({"age": dp.Numeric(0, 120), "income": dp.Numeric(0, 1e6, log=True),
                              "plan": dp.Categorical(("basic", "pro"))})
    clf = dp.PrivateClassifier(epsilon=1.0, classes=[0, 1], schema=schema,
                               random_state=0).fit(df, y)
    rows = dp.PublicEncoder(schema).fit_transform(df)
    same = dp.PrivateClassifier(epsilon=1.0, classes=[0, 1], random_state=0).fit(rows, y)
    assert clf.certificate_.epsilon == pytest.approx(1.0, rel=1e-12)  # a sum of two parts' ε
    # the same seed and the same rows: the same release (solver tolerance 1e-9 on the scores)
    assert np.allclose(clf.decision_function(df), same.decision_function(rows), atol=1e-9)


def test_a_schema_that_is_not_a_public_schema_is_refused():
    df, y = _table()
    with pytest.raises(dp.ParameterError, match="'schema' parameter of PrivateClassifier"):
        dp.PrivateClassifier(classes=[0, 1], schema={"age": (0, 120)}).fit(df, y)


def _notes(cert) -> list[list[str]]:
    """The stated lines of the certificate and of each part, depth first."""
    return [sorted(cert.notes())] + [lines for part in cert.parts for lines in _notes(part)]


@pytest.mark.parametrize("make", [
    lambda: dp.PrivateHuberRegressor(epsilon=2.0, label_range="private", random_state=0),
    lambda: dp.PrivateLinearRegressor(epsilon=2.0, label_range=dp.PrivateBounds(share=0.2)),
    lambda: dp.PrivateRegressor(epsilon=2.0, label_range="private", random_state=0)])
def test_certify_of_a_private_label_range_states_what_the_fit_states(make):
    """The dry run names the range as released by the fit, not its placeholder, and refuses
    the budget the fit refuses (n·ε of the range below its floor: public facts)."""
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, (3000, 3))
    y = 50 + 20 * X[:, 0] + rng.normal(0, 5, 3000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dry, fitted = make().certify(X, y), make().fit(X, y)
    lo, hi = fitted.label_range_
    solve_lines = ("accurate solve", "labels clipped to the public label_range")
    stated = [[line.replace(f"[{lo:g}, {hi:g}]", "(known after the fit)") for line in part
               if not line.startswith(solve_lines)] for part in _notes(fitted.certificate_)]
    assert [[line for line in part if not line.startswith(solve_lines)]
            for part in _notes(dry)] == stated
    assert "label_range [-1, 1]" not in str(dry)  # the placeholder's, in no part
    assert dict(dry.quantities) == dict(fitted.certificate_.quantities)
    assert dry.mechanism == fitted.certificate_.mechanism
    for refused in (lambda m: m.certify(X[:200], y[:200]), lambda m: m.fit(X[:200], y[:200])):
        with pytest.raises(dp.ParameterError, match="needs n \\* epsilon >= 60"):
            refused(make().set_params(epsilon=1.0))


def test_a_private_range_dry_run_states_a_read_schema_as_the_fit_does():
    """Rows encoded with a schema read from the data: the dry run states that no guarantee
    covers the schema, as the fit's certificate does."""
    from dpconvex.privacy.bounds import draft_schema

    rng = np.random.default_rng(0)
    table = pd.DataFrame({"a": rng.uniform(0, 1, 3000), "b": rng.uniform(-1, 1, 3000)})
    y = 3 * table.a.to_numpy() + rng.normal(size=3000)
    rows = dp.PublicEncoder(draft_schema(table)).fit_transform(table)
    for make in (dp.PrivateLinearRegressor, dp.PrivateLinearRegression, dp.PrivateRegressor):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = make(epsilon=1.0, label_range="private", random_state=0)
            assert rows.source in est.certify(rows, y).assumptions
            assert rows.source in est.fit(rows, y).certificate_.assumptions
