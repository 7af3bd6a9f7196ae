"""Float overflow in norms, snapping and parameters; unusable labels.

Each case gives the right result or a named dpconvex error that says what to change,
never a wrong result (a row "clipped" to zero) or a raw
``OverflowError``/``ZeroDivisionError``/``TypeError``.
"""

from __future__ import annotations

import fractions
import math
import warnings

import numpy as np
import pytest

import dpconvex as dp
from dpconvex._validation import MAX_MAGNITUDE, MIN_MAGNITUDE, check_float
from dpconvex.data.operators import row_norms
from dpconvex.data.preprocess import clip_rows
from dpconvex.data.validation import check_array, check_labels
from dpconvex.errors import DataValidationError, ParameterError, PrivacyError
from dpconvex.privacy import noise


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3)) / 3
    return X, (X[:, 0] > 0).astype(int)


# ----------------------------------------------------------------------------- row norms, clipping
def test_huge_row_is_clipped_to_the_bound_not_to_zero():
    Xc, n_clipped = clip_rows(np.array([[1e200, 1e200], [3.0, 4.0]]), 1.0)
    np.testing.assert_allclose(Xc, [[math.sqrt(0.5), math.sqrt(0.5)], [0.6, 0.8]], rtol=1e-15)
    assert n_clipped == 2


def test_row_norms_without_overflow_or_underflow():
    X = np.array([[1e200, 1e200], [1.7e308, 1.7e308], [1e-170, 1e-170], [0.0, 0.0],
                  [-1e300, 1.0], [3.0, 4.0]])
    norms = row_norms(X)
    np.testing.assert_allclose(norms[[0, 2]], [math.sqrt(2) * 1e200, math.sqrt(2) * 1e-170],
                               rtol=1e-15)
    assert np.isinf(norms[1])  # the true norm (2.4e308) is above the float64 maximum
    assert norms[3] == 0.0 and norms[4] == 1e300 and norms[5] == 5.0
    Xc, _ = clip_rows(X, 1.0)  # even the row whose norm is not representable
    np.testing.assert_allclose(np.linalg.norm(Xc[[0, 1, 4, 5]], axis=1), 1.0, rtol=1e-15)
    np.testing.assert_allclose(Xc[1], [math.sqrt(0.5)] * 2, rtol=1e-15)
    np.testing.assert_array_equal(Xc[[2, 3]], X[[2, 3]])  # below the bound: untouched


def test_row_norms_unchanged_for_ordinary_rows():
    X = np.random.default_rng(1).normal(size=(500, 7))
    np.testing.assert_array_equal(row_norms(X), np.sqrt(np.einsum("ij,ij->i", X, X)))


def test_estimator_fits_rows_with_huge_entries(data):
    X, y = data
    Xh = X.copy()
    Xh[:5] *= 1e200  # each is clipped to norm data_norm, keeping its direction
    model = dp.PrivateLogisticRegression(epsilon=1.0, random_state=0).fit(Xh, y)
    assert np.all(np.isfinite(model.coef_))


# ----------------------------------------------------------------------------- snapping
@pytest.mark.parametrize("scale, word", [(1e300, "large"), (1e308, "large"), (1e-303, "small"),
                                         (1e-320, "small")])
def test_snap_refuses_unrepresentable_noise_scales(scale, word):
    """Noise of scale 1e300 would overflow float64 and 1e-320 would give NaN: both refused."""
    with pytest.raises(ParameterError, match=f"too {word} to represent"):
        noise.snap(np.array([1.0, -2.0]), scale)


@pytest.mark.parametrize("s", [noise.SNAP_SCALE_MIN, np.nextafter(noise.SNAP_SCALE_MAX, 0.0),
                               1e-150, 1e150])
def test_snap_up_to_the_limits_is_on_grid_and_finite(s):
    g = noise.snap_grid(s)
    y = noise.snap(np.array([0.3, -7.0, np.inf, -np.inf]) * s, s)
    assert np.all(np.isfinite(y)) and np.all(np.mod(y[:2] / g, 1.0) == 0)
    assert abs(y[0] - 0.3 * s) <= g / 2
    assert y[2] == noise.SNAP_BOUND == -y[3]  # inf is clamped


def test_estimator_with_unrepresentable_noise_scale_releases_nothing():
    """All parameters in range, but Δ/ε = 2·1e100/(2·1e-100·1e-100) ~ 1e300: a named error."""
    X, y = np.array([[0.1, 0.2], [0.3, -0.1]]), np.array([0, 1])
    est = dp.PrivateLogisticRegression(epsilon=1e-100, lam=1e-100, data_norm=1e100,
                                       mechanism="output", random_state=0)
    with pytest.raises(ParameterError, match="noise scale .* too large to represent"):
        est.fit(X, y)
    assert not hasattr(est, "coef_")


@pytest.mark.parametrize("make", [
    lambda: dp.PrivateLogisticRegression(epsilon=1e-9, classes=[0, 1], random_state=0),
    lambda: dp.PrivateLargeMarginGaussian(epsilon=1e-9, classes=[0, 1, 2], loss="pairwise", random_state=0),
])
def test_noise_beyond_what_float64_resolves_to_the_tolerance_is_refused_on_every_data_set(make):
    """At ε = 1e-9 the noise term's gradient E‖b‖/n is beyond float64's reach of the tolerance:
    whether a solve reaches it would depend on the records, so every data set, and the dry run, is
    refused from public quantities."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    X /= np.linalg.norm(X, axis=1, keepdims=True) * 1.2
    y = np.arange(30) % (3 if isinstance(make(), dp.PrivateLargeMarginGaussian) else 2)
    neighbour = X.copy()
    neighbour[3] = [0.0, 0.5]
    for rows in (X, neighbour):
        with pytest.raises(PrivacyError, match="beyond what float64 resolves"):
            make().fit(rows, y)
    with pytest.raises(PrivacyError, match="beyond what float64 resolves"):
        make().certify(X, y)


@pytest.mark.parametrize("delta", [0.0, 1e-6])
@pytest.mark.parametrize("M", [1e200, 1e300])
def test_a_huge_slope_bound_is_refused_by_the_public_float64_check(M, delta):
    """A Huber threshold of 1e200 or 1e300 gives a slope bound whose noise rate is below 1e-154:
    the calibration's E‖b‖² is inf (not a ZeroDivisionError), so the release is refused from
    public quantities on any data, and the loss's probes do not overflow."""
    cvxpy = pytest.importorskip("cvxpy")
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, (200, 3))
    y = 3 * X[:, 0] + rng.normal(0, 0.5, 200)
    est = dp.PrivateLinearRegressor(loss=lambda z, t: cvxpy.huber(z - t, M), epsilon=1.0, delta=delta,
                                    label_range=(-10, 10), random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(PrivacyError, match="beyond what float64 resolves"):
            est.fit(X, y)
        with pytest.raises(PrivacyError, match="beyond what float64 resolves"):
            est.certify(X, y)
    assert not hasattr(est, "coef_")


def test_snap_refuses_nan():
    with pytest.raises(PrivacyError, match="NaN"):
        noise.snap(np.array([0.0, np.nan]), 1.0)


# ----------------------------------------------------------------------------- parameters
@pytest.mark.parametrize("value", [10**400, -(10**400), fractions.Fraction(10**400, 3), 10**5000],
                         ids=["1e400", "-1e400", "Fraction", "int-5000-digits"])
def test_numbers_too_large_for_float64(value):
    with pytest.raises(ParameterError, match="does not fit in a float64") as info:
        check_float("epsilon", value, "Owner")
    assert len(str(info.value)) < 400


@pytest.mark.parametrize("make", [
    lambda: dp.Numeric(0, 10**5000),
    lambda: dp.PublicSchema.from_ranges([(0, 10**5000)]),
])
def test_a_range_holding_an_int_too_long_to_print_is_refused_by_name(make):
    with pytest.raises(ParameterError, match="holding an int too long to print") as info:
        make()
    assert len(str(info.value)) < 400


@pytest.mark.parametrize("value", [5e-324, 1e-320, 1e-101, 1e101, 1e308])
def test_magnitudes_outside_the_documented_range(value):
    with pytest.raises(ParameterError, match=r"magnitude between 1e-100 and 1e\+100"):
        check_float("lam", value, "Owner")
    assert check_float("lam", value, "Owner", magnitude=False) == value


def test_documented_range_is_accepted():
    for v in (MIN_MAGNITUDE, MAX_MAGNITUDE, 1, fractions.Fraction(1, 3), np.float32(0.5)):
        assert check_float("x", v, "Owner") == float(v)
    assert check_float("x", 0.0, "Owner", low_inclusive=True) == 0.0
    assert check_float("x", math.inf, "Owner", allow_inf=True) == math.inf


@pytest.mark.parametrize("kwargs", [
    {"epsilon": 5e-324},                                 # was ZeroDivisionError (expm1(eps/4) = 0)
    {"epsilon": 5e-324, "mechanism": "output"},          # was ZeroDivisionError (p / beta)
    {"epsilon": 1e-300, "mechanism": "output"},          # was OverflowError in snap
    {"lam": 1e308, "mechanism": "output"},               # was ZeroDivisionError (n*lam = inf)
    {"lam": 1e-320, "mechanism": "output"},              # was ZeroDivisionError (sensitivity inf)
    {"epsilon": 10**400},                                # was OverflowError
    {"epsilon": fractions.Fraction(10**400, 7)},         # was OverflowError
    {"data_norm": 1e300},
])
def test_estimator_parameters_overflow_to_named_errors(data, kwargs):
    X, y = data
    with pytest.raises(ParameterError, match="float64|magnitude"):
        dp.PrivateLogisticRegression(**kwargs).fit(X, y)


@pytest.mark.parametrize("make", [
    lambda: dp.PrivateHuberSVM(lam=1e308, mechanism="output"),
    lambda: dp.PrivateLargeMarginGaussian(epsilon=5e-324),
    lambda: dp.NoisyGradientDescent(epsilon=1.0, delta=1e-6, steps=5, radius=1.0, clip=1e-320),
    lambda: dp.NoisyGradientDescent(epsilon=10**400, delta=1e-6, steps=5, radius=1.0),
])
def test_other_estimators_refuse_out_of_range_parameters(data, make):
    X, y = data
    with pytest.raises(ParameterError):
        make().fit(X, y)


# ----------------------------------------------------------------------------- labels
pd = pytest.importorskip("pandas")


@pytest.mark.parametrize("y", [
    np.array(["a", 1, "a", 1], dtype=object),
    ["a", 1, "a", 1],                       # np.asarray would make them all strings
    pd.Series(["a", 1, "a", 1]),
])
def test_mixed_label_types(y):
    with pytest.raises(DataValidationError, match="mixes label types.*cannot be sorted.*astype"):
        check_labels(y, 4, "Owner")


@pytest.mark.parametrize("y", [
    np.array(["a", np.nan, "a", "b"], dtype=object),
    ["a", float("nan"), "a", "b"],          # np.asarray would give the string 'nan'
    np.array(["a", None, "a", "b"], dtype=object),
    pd.array(["a", pd.NA, "a", "b"]),
    pd.Series(["a", None, "a", "b"]),
    pd.Categorical(["a", None, "a", "b"]),
])
def test_missing_labels(y):
    with pytest.raises(DataValidationError, match="labels; drop those rows"):
        check_labels(y, 4, "Owner")


def test_good_labels_pass_unchanged():
    for y in (["a", "b", "a", "b"], np.array([0, 1, 1, 0]), pd.Series([True, False] * 2),
              np.array([1, 2.0, 1, 2], dtype=object), pd.array(["x", "y", "x", "y"])):
        assert check_labels(y, 4, "Owner").shape == (4,)


@pytest.mark.parametrize("classes", [[2**53, 2**53 + 1], None])
def test_a_float_label_does_not_round_the_integer_labels_of_other_records(data, classes):
    # NumPy reads [2**53 + 1, 2.0**53] as floats, where 2**53 + 1 is 2**53: one record's
    # label type merged the two classes (a model on one class, or a refusal with classes=None)
    X, y01 = data
    ints = [2**53 + int(v) for v in y01]
    mixed = list(ints)
    mixed[ints.index(2**53)] = float(2**53)
    assert check_labels(mixed, len(mixed), "Owner").tolist() == ints
    fits = []
    for y in (ints, mixed):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", dp.PrivacyWarning)
            fits.append(dp.PrivateLogisticRegression(epsilon=1.0, lam=0.05, classes=classes,
                                                     random_state=0).fit(X, y).coef_)
    np.testing.assert_array_equal(fits[0], fits[1])


def test_estimators_name_the_label_problem(data):
    X, y = data
    y_obj = y.astype(object)
    y_obj[3] = np.nan
    for est in (dp.PrivateLogisticRegression(), dp.PrivateLargeMarginGaussian()):
        with pytest.raises(DataValidationError, match="labels; drop those rows"):
            est.fit(X, y_obj)  # a NaN label is refused, not counted as one more class
    y_mixed = y.astype(object)
    y_mixed[y == 1] = "one"
    with pytest.raises(DataValidationError, match="mixes label types"):
        dp.PrivateLogisticRegression().fit(X, y_mixed)
    with pytest.raises(DataValidationError, match="labels; drop those rows"):
        dp.PrivateLogisticRegression().fit(X, pd.array(["a", "b"] * 29 + [pd.NA, "a"]))


# ----------------------------------------------------------------------------- masked arrays
def test_masked_arrays_with_masked_entries_are_refused(data):
    X, y = data
    Xm = np.ma.masked_array(X, mask=np.zeros_like(X, dtype=bool))
    Xm[0, 1] = np.ma.masked
    with pytest.raises(DataValidationError, match=r"masked.*filled"):
        check_array(Xm, "Owner")
    with pytest.raises(DataValidationError, match="masked"):
        dp.PrivateLogisticRegression().fit(Xm, y)
    ym = np.ma.masked_array(y, mask=np.arange(len(y)) == 2)
    with pytest.raises(DataValidationError, match="masked"):
        check_labels(ym, len(y), "Owner")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        unmasked = np.ma.masked_array(X)  # nothing masked: the values are the data
        np.testing.assert_array_equal(check_array(unmasked, "Owner"), X)


# ------------------------------------------------------- a record near the float range stays silent
HUGE = np.array([1.7e308, -1.7e308, 1.7e308, -1.7e308])  # finite; its norm and products overflow


def _quiet(fit):
    """Run ``fit`` with numpy's warnings as errors: one record's size must switch none on."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        return fit()


def test_an_ignored_record_near_the_float_range_warns_nothing():
    """A record whose label is outside ``classes=`` contributes nothing, its features included
    (the large-margin rows zero it; its stored norm is inf)."""
    rng = np.random.default_rng(1)
    X = 0.4 * rng.normal(size=(240, 4))
    y = np.arange(240) % 3
    X[-1], y[-1] = HUGE, 9
    est = dp.PrivateLargeMarginGaussian(epsilon=2.0, classes=[0, 1, 2], unknown_labels="ignore",
                                        random_state=0)
    _quiet(lambda: est.certify(X, y))
    assert _quiet(lambda: est.fit(X, y)).certificate_.epsilon <= 2.0


def test_validation_records_near_the_float_range_neither_refuse_nor_warn():
    """The regression safeguard scores its validation rows as given: a prediction that is not
    a number counts as the unit scale's centre, and no overflow warning is shown."""
    from dpconvex.estimators.front_door import squared_error_utilities

    rng = np.random.default_rng(1)
    X = 0.3 * rng.normal(size=(240, 4))
    y = 4 * X[:, 0] - 4 * X[:, 1]
    X[:40], y[:40] = [1.7e308, 1.7e308, 0.0, 0.0], 0.0  # inf − inf: a NaN prediction
    model = _quiet(lambda: dp.PrivateRegressor(epsilon=5.0, label_range=(-5, 5),
                                               random_state=5).fit(X, y))
    assert np.all(np.isfinite(model.predict(X[40:])))
    import dask
    import dask.array as da

    with dask.config.set(scheduler="threads"):  # the chunks' products in worker threads
        on_dask = _quiet(lambda: dp.PrivateRegressor(epsilon=5.0, label_range=(-5, 5), random_state=5)
                         .fit(da.from_array(X, chunks=60), y))
    # the in-memory fit's release; chunked sums round in another order
    np.testing.assert_allclose(on_dask.predict(X[40:]), model.predict(X[40:]), rtol=1e-9, atol=1e-12)
    utilities = squared_error_utilities([np.array([np.nan, 1.0])], np.zeros(2), [0.0])
    assert utilities.tolist() == [-0.25]


def test_random_features_of_a_record_near_the_float_range():
    rff = dp.RandomFourierFeatures(n_components=50, random_state=0).fit(np.zeros((2, 4)))
    Z = _quiet(lambda: rff.transform(np.vstack([HUGE, np.full(4, 0.1)])))
    assert np.all(np.isfinite(Z)) and np.all(np.linalg.norm(Z, axis=1) <= 1.0)
    # the other record's features as alone (BLAS may sum a product of two rows in another order)
    np.testing.assert_allclose(Z[1], rff.transform(np.full((1, 4), 0.1))[0], rtol=1e-12)


def test_predictions_of_rows_near_the_float_range_are_not_nan(data):
    X, y = data
    big = np.vstack([np.full(3, 1e308), [1e308, -1e308, 1e308], np.full(3, 0.1)])
    for est in (dp.PrivateLinearRegressor(epsilon=1.0, label_range=(0, 1), random_state=0),
                dp.PrivateLogisticRegression(epsilon=1.0, classes=[0, 1], random_state=0)):
        fitted = est.fit(X, y)
        out = _quiet(lambda f=fitted: f.predict(big) if hasattr(f, "label_range")
                     else f.decision_function(big))
        assert not np.any(np.isnan(out))
        # the scaled product's sign is the exact one: sign(x · w) for x = 1e308 · u
        u = big[:2] / 1e308
        expected = np.sign(u @ fitted.coef_.reshape(-1))
        got = out[:2] if hasattr(fitted, "label_range") else np.sign(out[:2])
        if hasattr(fitted, "label_range"):  # clipped to the label range's end of that sign
            np.testing.assert_array_equal(got, np.where(expected > 0, 1.0, 0.0))
        else:
            np.testing.assert_array_equal(got, expected)


def test_a_label_too_large_for_float64_is_named(data):
    X, _ = data
    y = np.array([10**400] + [1] * (len(X) - 1), dtype=object)
    with pytest.raises(DataValidationError, match="y holds a number too large for float64"):
        dp.PrivateRegressor(epsilon=1.0, label_range=(0, 2)).fit(X, y)


def test_a_schema_range_beyond_float64_names_the_limit():
    with pytest.raises(ParameterError, match=r"hi - lo < 1\.8e308"):
        dp.Numeric(-1e308, 1e308)


def test_a_long_double_beyond_float64_is_named_and_switches_no_warning(data):
    X, y = data
    wide = X.astype(np.longdouble)
    wide[3, 0] = np.longdouble("1e4000")
    if not np.isfinite(wide[3, 0]):  # a platform whose long double is float64
        pytest.skip("np.longdouble is float64 here")
    labels = y.astype(np.longdouble)
    labels[3] = np.longdouble("1e4000")
    for fit in (lambda: dp.PrivateGaussianCentroid(epsilon=1.0, classes=[0, 1]).fit(wide, y),
                lambda: dp.PrivateLinearRegression(epsilon=1.0, label_range=(0, 1)).fit(X, labels)):
        with pytest.raises(DataValidationError, match="too large for float64"):
            _quiet(fit)
    from dpconvex.privacy.bounds import release_range
    lo, hi, _, _ = _quiet(lambda: release_range(wide[:, 0], dp.Budget(1.0), rng=0))
    assert lo < hi


def test_a_one_vs_rest_split_below_the_documented_range_names_the_split():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2)) / 3
    for est in (dp.PrivateLogisticRegression(mechanism="gaussian_objective", delta=1.2e-100),
                dp.NoisyGradientDescent(epsilon=1.0, delta=1.2e-100, steps=5)):
        with pytest.raises(ParameterError, match=r"split over the 3 one-vs-rest models is 4e-101"):
            est.set_params(classes=[0, 1, 2]).fit(X, np.arange(60) % 3)


def test_a_random_searchs_epsilon_below_its_score_samplers_exact_range_is_refused(data):
    """Below it the two geometric draws saturate in float64: the score noise would be 0."""
    from dpconvex.estimators.selection.random import PrivateRandomSearch

    X, y = data
    search = PrivateRandomSearch(dp.PrivateLogisticRegression(), {"lam": [0.1, 1.0]}, epsilon=1e-30,
                                 classes=[0, 1], random_state=0)
    with pytest.raises(ParameterError, match="lose their exactness in float64"):
        search.fit(X, y)


def test_unit_row_scores_are_taken_row_by_row():
    """With ``row_norm="unit"`` a row's score reads that row only: a record of norm 1e-300 or
    1e300 in the same call (scaled on a copy) leaves every other score bit for bit, so a
    safeguard's validation record moves no other record's count."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 9)) / 3
    est = dp.PrivateHuberSVM(epsilon=1.0, classes=[0, 1], row_norm="unit", random_state=0)
    est.fit(X, (X[:, 0] > 0).astype(int))
    base = est.decision_function(X[:100])
    for size in (1e-300, 1e300):  # record 0 replaced by one of that norm (a neighbour)
        odd = X[:1] * (size / np.linalg.norm(X[0]))
        with_it = _quiet(lambda odd=odd: est.decision_function(np.vstack([odd, X[1:100]])))
        np.testing.assert_array_equal(with_it[1:], base[1:])
        assert np.isfinite(with_it[0])


@pytest.mark.parametrize("epsilon", [1e9, 1e12])
def test_a_huge_epsilon_releases_the_statistics_to_their_relative_precision(epsilon):
    """Where the statistics are 10^7 noise scales or more, each released coordinate is rounded
    to within 2^-33 of itself: the sufficient statistics give the least-squares fit, output
    perturbation the non-private minimizer, naive Bayes the class means. Tolerances: the chosen
    ridge's smallest candidate (s_A, about 1e-8 here) shifts θ by far less than 1e-6; the
    rounding moves each coordinate by at most 2^-33 of itself."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, (500, 3))
    y = X @ [1.0, -1.0, 0.5] + 3.0 + rng.normal(0.0, 0.1, 500)
    ssp = dp.PrivateLinearRegression(epsilon=epsilon, label_range=(0, 6), fit_intercept=False,
                                     random_state=0).fit(X, y)
    np.testing.assert_allclose(ssp.coef_, np.linalg.lstsq(X, y - 3.0, rcond=None)[0], rtol=1e-5)
    Xc = X / np.abs(X).max()
    yc = (X[:, 0] > 0).astype(int)
    kw = {"lam": 0.01, "random_state": 0}
    released = dp.PrivateLogisticRegression(epsilon=epsilon, mechanism="output", **kw).fit(Xc, yc)
    exact = dp.PrivateLogisticRegression(epsilon=epsilon, mechanism="none", **kw).fit(Xc, yc)
    np.testing.assert_allclose(released.coef_, exact.coef_, rtol=1e-5, atol=1e-6)
    nb = dp.PrivateGaussianNB(epsilon=epsilon, random_state=0).fit(Xc, yc)
    np.testing.assert_allclose(nb.theta_, [Xc[yc == c].mean(0) for c in (0, 1)], atol=1e-6)


def test_an_epsilon_whose_label_centre_share_is_too_small_names_the_split():
    """ε = 1e-100 is in range, but label_center='auto' spends a tenth of it on the labels' mean:
    the refusal names the split and the user's ε, not the internal share."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, (200, 3))
    with pytest.raises(ParameterError, match=r"is 1e-100: label_center='auto' spends 0.1 of it"):
        dp.PrivateHuberRegressor(epsilon=1e-100, label_range=(-10, 10)).fit(X, 3 * X[:, 0])
