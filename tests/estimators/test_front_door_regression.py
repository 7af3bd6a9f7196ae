"""The regression front door
(docs/privacy/front_door_regression.md#privacy-front-door-regression): the rule, the
safeguard and its privacy.

Exact privacy loss on tiny problems: the whole safeguard (the data-independent split, a
stand-in learner with an exactly computable ε-DP law, the private mean's Laplace density
with the library's ε_c and sensitivity, the utilities computed by the library's
``squared_error_utilities`` with its handicap and κ, the exponential mechanism's law) is
evaluated on a grid of released means for every data set and replace-one neighbour; the
worst log-ratio of output densities must be at most ε, and a mutant that spends ε on the
selection twice over must exceed it. The audit fits the real estimator (false-alarm rate
<= 1 %, as tests/audit/test_audit.py).
"""

from __future__ import annotations

import itertools
import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone, is_regressor

import dpconvex as dp
from dpconvex import BudgetAccountant, PrivateRegressor
from dpconvex.audit import EstimatorMechanism, audit
from dpconvex.errors import BudgetError, DataValidationError, ParameterError, PrivacyWarning
from dpconvex.estimators.front_door import ConstantRegressor, squared_error_utilities
from dpconvex.privacy.certificate import DeltaRows
from dpconvex.privacy.rules import front_door as rules
from dpconvex.privacy.rules.front_door import (
    MEDIAN,
    PRIVATE_MEAN,
    REGRESSION_VALIDATION,
    choose_regression_learner,
    mean_epsilon,
    safeguard_sizes,
    selection_handicap,
)

EPS = 1.0


# ------------------------------------------------------------ exact privacy loss
# Labels and levels within κ of each other, so that the clipped terms min(1, (r/κ)²) do not
# all saturate at 1 and the check can see a mutant's loss.
LEVELS = (-0.25, 0.25)  # the stand-in learner releases one of these constant predictions
VALUES = (-0.5, 0.0, 0.5)  # a record's label on the unit scale (its row plays no part)


def _softmax(u: np.ndarray, eps: float) -> np.ndarray:
    w = np.exp(eps * (u - u.max()) / 2.0)
    return w / w.sum()


def _learner_law(labels: list[float], eps: float) -> np.ndarray:
    """P(level t): the exponential mechanism on minus the fitting part's clipped squared
    errors (terms in [0, 1]: sensitivity 1), an exactly computable ε-DP learner."""
    u = np.array(labels)
    return _softmax(squared_error_utilities([np.full(u.size, t) for t in LEVELS], u,
                                            [0.0] * len(LEVELS), clip=rules.RESIDUAL_CLIP), eps)


def _laplace_density(c: np.ndarray, centre: float, scale: float) -> np.ndarray:
    return np.exp(-np.abs(c - centre) / scale) / (2.0 * scale)


def _output_density(data: tuple[float, ...], n_fit: int, select_eps: float,
                    grid: np.ndarray) -> np.ndarray:
    """Density over (released mean c on the grid, learner level t, selection s)."""
    n = len(data)
    eps_mean = mean_epsilon(n, EPS)
    rest = EPS - eps_mean
    density_c = _laplace_density(grid, float(np.mean(data)),
                                 2.0 / n / eps_mean)  # the mean's sensitivity, 2/n
    out = np.zeros((grid.size, len(LEVELS), 2))
    splits = list(itertools.combinations(range(n), n_fit))
    for fit in splits:
        val = [i for i in range(n) if i not in fit]
        p_model = _learner_law([data[i] for i in fit], rest)
        u_val = np.array([data[i] for i in val])
        for t, pt in enumerate(p_model):
            for k, c in enumerate(grid):
                utilities = squared_error_utilities(
                    [np.full(u_val.size, LEVELS[t]), np.full(u_val.size, c)], u_val,
                    [selection_handicap(rest), 0.0], clip=rules.RESIDUAL_CLIP)
                out[k, t] += pt * _softmax(utilities, select_eps)
    return out * density_c[:, None, None] / len(splits)


def _worst_log_ratio(n: int, n_fit: int, select_scale: float) -> float:
    grid = np.linspace(-1.0, 1.0, 41)
    laws = {}
    for data in itertools.product(VALUES, repeat=n):
        rest = EPS - mean_epsilon(n, EPS)
        laws[data] = _output_density(data, n_fit, select_scale * rest, grid)
    worst = 0.0
    for data, law in laws.items():
        for i in range(n):
            for v in VALUES:
                if v == data[i]:
                    continue
                other = laws[data[:i] + (v,) + data[i + 1:]]
                worst = max(worst, float(np.max(np.log(law) - np.log(other))))
    return worst


@pytest.mark.slow
def test_exact_privacy_loss_of_the_regression_safeguard_is_at_most_epsilon():
    # n = 4 records, 2 fit and 2 validate; ε_c = ε/2 (the rule's ceiling at n = 4)
    assert mean_epsilon(4, EPS) == 0.5 * EPS
    worst = _worst_log_ratio(4, 2, 1.0)
    assert worst <= EPS + 1e-9
    assert worst > 0.5 * EPS  # the check sees the mechanism's loss: it is not vacuous


@pytest.mark.slow
def test_exact_check_catches_a_selection_that_spends_twice_epsilon():
    assert _worst_log_ratio(4, 2, 4.0) > EPS  # the mutant overspends: caught


def test_utilities_move_by_at_most_one_under_replace_one():
    rng = np.random.default_rng(0)
    for _ in range(300):
        u = rng.uniform(-1, 1, size=6)
        up = u.copy()
        up[rng.integers(6)] = rng.uniform(-1, 1)
        preds = [rng.uniform(-1, 1, size=6), np.full(6, rng.uniform(-1, 1))]
        a, b = (squared_error_utilities(preds, v, [3.0, 0.0], clip=rules.RESIDUAL_CLIP)
                for v in (u, up))
        assert np.max(np.abs(a - b)) <= 1.0 + 1e-12


def test_a_model_no_better_than_the_mean_is_selected_with_probability_at_most_the_level():
    for eps in (0.1, 1.0, 4.0):
        m = selection_handicap(eps)
        p_model = _softmax(np.array([-m, 0.0]), eps)[0]  # equal errors: gap 0
        assert p_model <= rules.HANDICAP_LEVEL + 1e-12
        assert p_model > 0.5 * rules.HANDICAP_LEVEL


# --------------------------------------------------------------- audit, real path
def _prediction(est: PrivateRegressor) -> np.ndarray:
    return est.predict(np.array([[0.5, 0.0]])).astype(float)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::dpconvex.errors.PrivacyWarning")  # 8 rows: weak by design
def test_audit_through_the_real_estimator_stays_below_epsilon():
    X = np.tile([0.5, 0.0], (8, 1))
    y = np.array([0.0, 0.0, 0.0, 0.0, 10.0, 10.0, 10.0, 10.0])
    yp = y.copy()
    yp[0] = 10.0
    mech = EstimatorMechanism(
        PrivateRegressor(epsilon=EPS, label_range=(0, 10), safeguard=True,
                         validation_fraction=0.5), output=_prediction)
    r = audit(mech, (X, y), (X, yp), n_runs=200, confidence=0.99, random_state=15)
    assert r.epsilon_lower_bound <= EPS, f"PRIVACY BUG? {r}"


# ------------------------------------------------------------- behaviour
def _table(n=3000, signal=True, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-0.5, 0.5, size=(n, 3))
    noise = rng.normal(scale=5.0, size=n)
    y = 50 + (60 * X[:, 0] if signal else 0.0) + noise
    return X, y


def test_the_rule_reads_public_quantities_only():
    assert choose_regression_learner(300, 13, 0.5, 0.0).learner == PRIVATE_MEAN  # r = 10.7
    assert choose_regression_learner(3000, 13, 0.5, 0.0).learner == MEDIAN
    assert choose_regression_learner(3000, 13, 0.5, 1e-7).mechanism == "objective"
    assert choose_regression_learner(30000, 13, 0.5, 1e-9).mechanism == "gaussian_objective"
    assert [safeguard_sizes(n, "auto", "x", REGRESSION_VALIDATION)[1]
            for n in (100, 10_000, 30_000)] == [20, 2000, 3000]
    assert mean_epsilon(100, 1.0) == 0.5 and mean_epsilon(10**7, 2.0) == 0.1


@pytest.mark.parametrize("n, d, eps, delta, safeguard", [
    (300, 13, 0.5, 0.0, "auto"), (3000, 13, 0.5, 1e-7, "auto"), (30000, 13, 0.5, 1e-9, False),
    (200_000, 3, 2.0, 0.0, "auto"), (200_000, 3, 2.0, 0.0, True)])
def test_the_estimators_rule_on_checked_facts_is_the_public_rule(n, d, eps, delta, safeguard):
    """The estimator runs the rule on its checked parameters and shape (regression_rule);
    choose_regression_learner checks the facts, then gives the same choice."""
    assert rules.regression_rule(n, d, eps, delta, safeguard) == choose_regression_learner(
        n, d, eps, delta, safeguard)
    with pytest.raises(ParameterError, match="'epsilon' parameter of choose_regression_learner"):
        choose_regression_learner(n, d, -eps, delta, safeguard)


def test_delta_helps_exactly_where_a_delta_would_give_the_learner_its_gaussian_mechanism():
    """``RegressionChoice.delta_helps`` (the remedy of the safeguard's warning): δ is 0 and the
    rule at δ = 1/n² picks another mechanism; the constant and a given δ never."""
    for n, d, eps, delta in itertools.product((300, 4999, 5000, 200_000), (3, 13), (0.5, 2.0),
                                              (0.0, 1e-9)):
        choice = rules.regression_rule(n, d, eps, delta, "auto")
        by_delta = rules.regression_rule(n, d, eps, 1.0 / n**2, "auto")
        assert choice.delta_helps == (delta == 0 and by_delta.mechanism != choice.mechanism)
    assert rules.regression_rule(5000, 3, 2.0, 0.0, "auto").delta_helps


def test_a_useful_model_is_released_and_the_certificate_composes_the_parts():
    X, y = _table()
    acc = BudgetAccountant(epsilon=2.0)
    reg = PrivateRegressor(epsilon=1.0, label_range=(0, 100), random_state=0,
                           accountant=acc).fit(X, y)
    cert = reg.certificate_
    assert reg.learner_ == MEDIAN and reg.score(X, y) > 0.8
    assert cert.epsilon == pytest.approx(1.0) and cert.delta == 0.0
    assert acc.spent == pytest.approx((1.0, 0.0))
    eps_mean = mean_epsilon(3000, 1.0)
    assert cert.quantities["epsilon of the mean"] == eps_mean
    assert cert.quantities["part sizes"] == [2400, 600]
    assert cert.released == {"safeguard selected": MEDIAN}  # a private output, not public
    assert "safeguard selected" not in cert.quantities
    mean_part, rest = cert.parts
    assert mean_part.epsilon == pytest.approx(eps_mean)
    assert rest.epsilon == pytest.approx(1.0 - eps_mean) and len(rest.parts) == 2
    assert rest.parts[0].quantities["n"] == 3000  # the validation rows' loss zeroed, not cut
    certified = PrivateRegressor(epsilon=1.0, label_range=(0, 100)).certify(n=3000, n_features=3)
    assert certified.epsilon == pytest.approx(cert.epsilon)
    assert [p.epsilon for p in certified.parts] == pytest.approx([p.epsilon for p in cert.parts])


def test_the_private_mean_is_released_where_there_is_nothing_to_learn():
    X, y = _table(signal=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fits = [PrivateRegressor(epsilon=1.0, label_range=(0, 100), random_state=s).fit(X, y)
                for s in range(10)]
    constants = [f for f in fits if f.learner_ == PRIVATE_MEAN]
    said = [w for w in caught if issubclass(w.category, PrivacyWarning)
            and "released the private mean" in str(w.message)]
    assert len(constants) >= 8 and len(said) == len(constants)
    for f in constants:
        assert isinstance(f.estimator_, ConstantRegressor)
        assert abs(f.estimator_.constant_ - np.mean(y)) < 2.0  # Laplace scale 100/(3000·0.5)
        assert np.all(f.predict(X[:5]) == f.estimator_.constant_)
    released = constants[0].estimator_  # a scikit-learn regressor, as the learner it stands for
    assert is_regressor(released) and type(clone(released)) is ConstantRegressor
    assert released.score(X, y, sample_weight=np.ones(len(y))) == pytest.approx(released.score(X, y))
    with pytest.raises(DataValidationError, match="labels for"):
        released.score(X, y[:-1])


def test_few_records_per_coordinate_release_the_mean_with_the_whole_epsilon():
    X, y = _table(n=60)
    reg = PrivateRegressor(epsilon=0.5, label_range=(0, 100), random_state=0).fit(X, y)
    assert reg.learner_ == PRIVATE_MEAN and reg.certificate_.epsilon == 0.5
    assert reg.certificate_.mechanism_name == "laplace_mean"
    choice = PrivateRegressor(epsilon=0.5, label_range=(0, 100)).plan_for(X, y).chosen.choice
    assert (choice.learner, choice.mechanism) == (PRIVATE_MEAN, "laplace_mean")
    assert reg.certificate_.states(choice.reason)  # the rule's reason, stated


def test_without_the_safeguard_the_learner_gets_every_row_and_the_whole_budget():
    X, y = _table()
    reg = PrivateRegressor(epsilon=1.0, label_range=(0, 100), safeguard=False,
                           random_state=0).fit(X, y)
    assert reg.learner_ == MEDIAN and reg.certificate_.epsilon == 1.0
    assert not reg.certificate_.parts and reg.score(X, y) > 0.8


@pytest.mark.parametrize("safeguard", [False, True])
def test_the_warning_of_a_missing_label_range_names_the_front_door(safeguard):
    """The labels' warning names the call the user made, once, whichever learner reads them."""
    X, y = _table()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        PrivateRegressor(epsilon=1.0, safeguard=safeguard, random_state=0).fit(X, y / 100)
    texts = [str(w.message) for w in caught if "label_range was not given" in str(w.message)]
    assert len(texts) == 1 and texts[0].startswith("PrivateRegressor.fit: "), texts


def test_two_rows_too_few_for_the_safeguard_are_refused_as_the_searches_refuse_them():
    """Too few rows to split: a DataValidationError in the call's name saying what to change,
    the form the classifier's safeguard and the searches use; without the safeguard the rows fit."""
    X, y = np.array([[0.1], [0.3]]), np.array([0.5, -0.2])
    reg = PrivateRegressor(epsilon=1e4, label_range=(-1, 1), random_state=0)
    for method, call in (("fit", lambda: reg.fit(X, y)), ("certify", lambda: reg.certify(X, y)),
                         ("plan", lambda: reg.plan(n=2, n_features=1))):
        with pytest.raises(DataValidationError, match=rf"^PrivateRegressor\.{method}: n_samples = 2 rows "
                           r"cannot be split .* Use more rows, another validation_fraction, or "
                           r"safeguard=False\.$"):
            call()
    assert reg.set_params(safeguard=False).fit(X, y).learner_ == MEDIAN


@pytest.mark.parametrize("safeguard", [True, False])
def test_the_fit_follows_its_plan_made_once(monkeypatch, safeguard):
    """One fit makes its rule's choice, its learner and the learner's plan once, in its plan
    (the learner is the plan's, and follows the plan the fit hands it): the released learner's
    budget is that plan's, its parameters the planned learner's."""
    planned, made = [], []
    learner_plan, make = dp.PrivateLinearRegressor._plan, PrivateRegressor._make
    monkeypatch.setattr(dp.PrivateLinearRegressor, "_plan",
                        lambda self, *shape: planned.append(shape) or learner_plan(self, *shape))
    monkeypatch.setattr(PrivateRegressor, "_make",
                        lambda self, *args: made.append(args) or make(self, *args))
    X, y = _table()
    reg = PrivateRegressor(epsilon=1.0, label_range=(0, 100), safeguard=safeguard,
                           random_state=0)
    chosen = reg.plan(n=len(y), n_features=X.shape[1]).chosen
    planned.clear()
    made.clear()
    reg.fit(X, y)
    assert planned == [(3000, 1, 3)] and made == [(chosen.choice.mechanism,
                                                   chosen.plan.budget.epsilon)]
    assert not hasattr(chosen.learner, "coef_")  # the plan handed back holds its learner unfitted
    if reg.learner_ == MEDIAN:
        assert reg.estimator_.get_params() == chosen.learner.get_params()
    assert (chosen.parts is not None) == safeguard
    model = reg.certificate_.parts[1].parts[0] if safeguard else reg.certificate_
    assert model.epsilon_requested == chosen.plan.budget.epsilon


@pytest.mark.parametrize("label_range", [(0, 100), "private"])
def test_a_refit_of_the_released_learner_charges_the_front_doors_ledger(label_range):
    """The learner in estimator_ carries the front door's ledger (with a public or a released
    label range): refitting it is a new release, charged as fit charges."""
    X, y = _table()
    acc = BudgetAccountant(epsilon=3.0)
    reg = PrivateRegressor(epsilon=1.0, label_range=label_range, safeguard=False, accountant=acc,
                           random_state=0).fit(X, y)
    assert acc.spent[0] == pytest.approx(1.0) and reg.estimator_.accountant is acc
    reg.estimator_.fit(X, y)
    assert acc.spent[0] == pytest.approx(1.0 + reg.estimator_.certificate_.epsilon)


def test_changing_a_validation_row_leaves_the_model_equal():
    X, y = _table()
    reg = PrivateRegressor(epsilon=1.0, label_range=(0, 100), random_state=3).fit(X, y)
    order = np.random.default_rng(3).permutation(3000)  # the fit's first draw: the split
    i = int(order[-1])  # a validation row
    X2, y2 = X.copy(), y.copy()
    X2[i], y2[i] = [0.5, -0.5, 0.5], 100.0
    reg2 = PrivateRegressor(epsilon=1.0, label_range=(0, 100), random_state=3).fit(X2, y2)
    if reg.learner_ == reg2.learner_ == MEDIAN:
        np.testing.assert_allclose(reg.estimator_.coef_, reg2.estimator_.coef_, rtol=0, atol=1e-9)


def _median_fit(X, y, seed):
    reg = PrivateRegressor(epsilon=1.0, label_range=(0, 100), random_state=seed).fit(X, y)
    assert reg.learner_ == MEDIAN  # a strong signal: the selection keeps the learner's model
    return reg


def test_the_validation_labels_do_not_reach_the_learner():
    # The learner gets the centre of label_range for every validation row
    # (privacy-regressor-safeguard step 3), so its coefficients are the same bit for bit
    # whatever those labels are. Exact equality is justified: one process, the same seed,
    # the same code path and the same inputs to the learner. A validation label that reached
    # the objective's value (the constant ℓ(0, u_i) of a zero-weighted row, read by the
    # solver's line search) would move them by about 7e-15 in the labels' units on this
    # table (4 of the 10 single changes and the 40 changes at once).
    seed, n = 3, 300
    X, y = _table(n=n)
    n_fit, _ = safeguard_sizes(n, "auto", "x", REGRESSION_VALIDATION)
    validation = np.sort(np.random.default_rng(seed).permutation(n)[n_fit:])  # the fit's split
    base = _median_fit(X, y, seed)
    labels = np.random.default_rng(1)
    changes = []
    for i in validation[:10]:  # one label at a time
        changes.append(y.copy())
        changes[-1][i] = labels.uniform(0.0, 100.0)
    changes.append(y.copy())
    changes[-1][validation[:40]] = labels.uniform(0.0, 100.0, size=40)
    changes.append(y.copy())
    changes[-1][validation] = labels.uniform(-50.0, 150.0, size=validation.size)  # some clipped
    for changed in changes:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrivacyWarning)  # labels outside the range: clipped
            other = _median_fit(X, changed, seed)
        assert np.array_equal(other.estimator_.coef_, base.estimator_.coef_)
        assert other.estimator_.intercept_ == base.estimator_.intercept_
    # the check is not vacuous: a fitting row's label moves the coefficients
    fitting = y.copy()
    fitting[np.setdiff1d(np.arange(n), validation)[0]] = 37.0
    assert not np.array_equal(_median_fit(X, fitting, seed).estimator_.coef_, base.estimator_.coef_)


def test_the_certificate_states_the_selection_utility_that_runs(monkeypatch):
    import dpconvex.estimators.front_door as front_door

    clips = []

    def spy(predictions, u, handicaps, clip=2.0):
        clips.append(clip)
        return squared_error_utilities(predictions, u, handicaps, clip=clip)

    monkeypatch.setattr(front_door, "squared_error_utilities", spy)
    X, y = _table(n=300)
    cert = _median_fit(X, y, 3).certificate_
    (kappa,) = clips
    assert kappa == rules.RESIDUAL_CLIP
    selection = cert.parts[1].parts[1]
    (stated,) = [c.detail for c in selection.conditions if c.name == "utility sensitivity"]
    assert stated == front_door.SELECTION_UTILITY
    assert f"kappa = {kappa:g}" in stated
    assert "u_model = -sum_i min(1, ((u^_i - u_i)/kappa)^2) - m" in stated
    assert "u_mean = -sum_i min(1, ((c - u_i)/kappa)^2)" in stated
    # the stated formula, evaluated as written, is what the function computes
    rng = np.random.default_rng(0)
    u, model, c, m = rng.uniform(-1, 1, 50), rng.uniform(-1.5, 1.5, 50), 0.3, 2.0
    stated_model = -np.sum(np.minimum(1.0, ((np.clip(model, -1, 1) - u) / kappa) ** 2)) - m
    stated_mean = -np.sum(np.minimum(1.0, ((c - u) / kappa) ** 2))
    np.testing.assert_allclose(
        squared_error_utilities([model, np.full(50, c)], u, [m, 0.0], clip=kappa),
        [stated_model, stated_mean], rtol=1e-12)  # one formula, summed in another order


def test_labels_and_predictions_stay_in_the_range():
    X, y = _table()
    y = y.copy()
    y[:10] = 1e6
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        reg = PrivateRegressor(epsilon=1.0, label_range=(0, 100), random_state=0).fit(X, y)
    assert not [w for w in caught if "label_range" in str(w.message)]  # diagnostics only
    pred = reg.predict(np.vstack([X, 100 * np.ones((1, 3))]))
    assert pred.min() >= 0 and pred.max() <= 100


def test_bad_parameters_are_refused_by_name():
    X, y = _table(n=200)
    with pytest.raises(ParameterError, match="label_range"):
        PrivateRegressor(label_range=(5, 1)).fit(X, y)
    with pytest.raises(ParameterError, match="safeguard"):
        PrivateRegressor(label_range=(0, 100), safeguard="yes").fit(X, y)
    with pytest.raises(ParameterError, match="validation_fraction"):
        PrivateRegressor(label_range=(0, 100), validation_fraction=1.5).fit(X, y)
    with pytest.raises(DataValidationError, match="validation_fraction"):
        PrivateRegressor(epsilon=50.0, label_range=(0, 100), safeguard=True,
                         validation_fraction=0.95).fit(X[:10], y[:10])


def test_the_pickle_holds_no_generator_and_no_data():
    X, y = _table()
    reg = PrivateRegressor(epsilon=1.0, label_range=(0, 100), random_state=0).fit(X, y)
    blob = pickle.dumps(reg)
    assert b"Generator" not in blob and b"BitGenerator" not in blob
    assert X[:3].tobytes() not in blob
    again = pickle.loads(blob)
    np.testing.assert_array_equal(again.predict(X[:5]), reg.predict(X[:5]))


@pytest.mark.parametrize("safeguard", [True, False])
def test_the_regressor_holds_its_budget_signs_its_refusal_and_states_a_large_delta(safeguard):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(6000, 3)) / 2.0  # from 5,000 rows the rule's learner spends delta
    y = X @ np.array([1.0, -1.0, 0.5]) + 0.1 * rng.normal(size=6000)
    common = {"label_range": (-3.0, 3.0), "safeguard": safeguard}
    with pytest.raises(BudgetError, match="of PrivateRegressor") as refused:
        PrivateRegressor(epsilon=1.0, accountant=BudgetAccountant(0.5), **common).fit(X, y)
    assert "PrivateLinearRegressor" not in str(refused.value)
    acc = BudgetAccountant(epsilon=2.0, delta=0.5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = PrivateRegressor(epsilon=1.0, delta=0.01, accountant=acc, random_state=0,
                               **common).fit(X, y)
    large = [str(w.message) for w in caught if "at least 1/n" in str(w.message)]
    assert len(large) == 1 and large[0].startswith("PrivateRegressor: delta = 0.01")  # once, signed
    assert [s.label for s in acc.spends] == ["PrivateRegressor"]
    assert est.certificate_.states(DeltaRows(0.01, 6000))
    assert est.certificate_.seeded


def test_a_released_mean_with_large_noise_says_so_in_the_labels_units():
    """n = 300, ε = 0.1, label_range (0, 1000): the rule's mean has Laplace scale
    2/(nε)·500 = 33.3 label units (nε = 30 < 600), which the warning states; at ε = 5 the
    safeguard's mean takes ε/2 (nε = 750 >= 600): no such warning."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, (300, 2))
    y = 50 + 10 * X[:, 0] + rng.normal(0, 5, 300)
    with pytest.warns(dp.PrivacyWarning, match=r"Laplace noise of scale 33\.3 in the labels' units"):
        model = dp.PrivateRegressor(epsilon=0.1, label_range=(0, 1000), random_state=0).fit(X, y)
    assert model.learner_ == "constant (private mean)"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dp.PrivateRegressor(epsilon=5.0, label_range=(0, 1000), random_state=0).fit(X, y)
    assert not [w for w in caught if "Laplace noise of scale" in str(w.message)]


def test_a_label_range_beyond_the_float_range_is_refused_by_name():
    X = np.random.default_rng(0).uniform(-0.5, 0.5, (50, 3))
    with pytest.raises(dp.ParameterError, match="'label_range' parameter"):
        PrivateRegressor(label_range=(0, 10**400)).fit(X, X @ [1.0, 2.0, 3.0])


def _stated(cert) -> list[list[str]]:
    """The stated lines of the certificate and of each part, depth first."""
    return [sorted(cert.notes())] + [lines for part in cert.parts for lines in _stated(part)]


@pytest.mark.parametrize("n", [60, 600])  # the mean alone; the model with its safeguard
def test_certify_states_what_the_fit_states(n):
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, (n, 2))
    y = 3.0 + X @ [2.0, -1.0] + rng.normal(0, 0.3, n)
    make = lambda: PrivateRegressor(label_range=(0, 6), random_state=0)  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dry, fitted = make().certify(X, y), make().fit(X, y).certificate_
    assert len(fitted.parts) == (0 if n == 60 else 2)
    assert (dry.label_source, dry.lam_rule) == (fitted.label_source, fitted.lam_rule)
    assert _stated(dry) == _stated(fitted)
