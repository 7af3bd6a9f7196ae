"""Labels outside the public label set: ``unknown_labels="raise"`` (default) or ``"ignore"``.

"raise" refuses the fit before any noise is drawn or budget spent, with a message that
names the declared classes and the fixes and carries nothing of y (no count, no label);
"ignore" fits with those records contributing no loss. docs/privacy.md, "Input errors
that depend on the data".
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _helpers import certificate_facts
from sklearn.pipeline import make_pipeline

import dpconvex as dp
from dpconvex.data.validation import encode_labels
from dpconvex.errors import collect_diagnostics
from dpconvex.estimators.selection.random import PrivateRandomSearch
from dpconvex.privacy.budget import BudgetAccountant

CLASSES = ["no", "yes"]


def _data(n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = 0.4 * rng.normal(size=(n, 3))
    return X, np.where(X[:, 0] > 0, "yes", "no")


def _lr(**kw):
    return dp.PrivateLogisticRegression(**{"epsilon": 1.0, "lam": 0.1, **kw})


#: Every estimator family that takes ``classes`` (and a ledger): name -> maker(**params).
FAMILIES = {
    "logreg": _lr,
    "huber": lambda **kw: dp.PrivateHuberSVM(epsilon=1.0, lam=0.1, **kw),
    "linear": lambda **kw: dp.PrivateLinearClassifier(epsilon=1.0, lam=0.1, **kw),
    "noisy-gd": lambda **kw: dp.NoisyGradientDescent(epsilon=1.0, delta=1e-5, steps=5, **kw),
    "centroid": lambda **kw: dp.PrivateGaussianCentroid(epsilon=1.0, **kw),
    "large-margin": lambda **kw: dp.PrivateLargeMarginGaussian(epsilon=1.0, solver="native",
                                                               **kw),
    "large-margin-centroid": lambda **kw: dp.PrivateLargeMarginGaussian(
        epsilon=1.0, delta=1e-5, mechanism="centroid", **kw),
    "front-door": lambda **kw: dp.PrivateClassifier(epsilon=1.0, **kw),
    "grid-search": lambda **kw: dp.PrivateGridSearch(_lr(), {"lam": [0.1, 1.0]}, epsilon=1.0,
                                                     **kw),
    "random-search": lambda **kw: PrivateRandomSearch(_lr(), {"lam": [0.1]}, epsilon=1.0,
                                                      mean_runs=2.0, **kw),
}


def _fitted(est):
    """The fitted attributes (scikit-learn's trailing underscore) an estimator holds."""
    return sorted(k for k in vars(est) if k.endswith("_") and not k.startswith("_"))


def _refusal(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)  # the public noise checks
        with pytest.raises(dp.DataValidationError) as info:
            est.fit(X, y)
    return str(info.value)


@pytest.mark.filterwarnings("ignore:PrivateClassifier.fit. the safeguard released a constant")
@pytest.mark.parametrize("name", list(FAMILIES))
def test_raise_refuses_labels_outside_classes_and_releases_nothing(name):
    X, y = _data()
    wrong_case = np.char.capitalize(y)  # 'No'/'Yes' against classes=['no', 'yes']
    stray = y.copy()
    stray[7] = "maybe"  # one record outside the set
    many = y.copy()
    many[:5] = "unsure"
    messages = set()
    for labels in (wrong_case, stray, many):
        acc = BudgetAccountant(epsilon=1.0, delta=1e-4)
        est = FAMILIES[name](classes=CLASSES, random_state=0, accountant=acc)
        msg = _refusal(est, X, labels)
        messages.add(msg)
        assert _fitted(est) == []  # no coef_, certificate_, classes_, ...: nothing released
        assert acc.spent == (0.0, 0.0) and not acc.spends  # the hold was given back
        FAMILIES[name](classes=CLASSES, random_state=0, accountant=acc).fit(X, y)  # nothing held
    assert len(messages) == 1  # the same text whatever the labels and the number of records
    msg = messages.pop()
    assert "['no', 'yes']" in msg and "unknown_labels='ignore'" in msg
    assert "exactly as it appears in y" in msg and "map the labels" in msg
    assert not any(ch.isdigit() for ch in msg)  # no count, no share
    for value in ("'No'", "'Yes'", "maybe", "unsure"):
        assert value not in msg


def test_the_default_is_raise_on_every_family():
    for make in FAMILIES.values():
        assert make().get_params()["unknown_labels"] == "raise"


@pytest.mark.parametrize("name", ["logreg", "noisy-gd", "centroid", "large-margin",
                                  "large-margin-centroid", "front-door"])
def test_ignore_zeroes_the_records_outside_the_set(name):
    """A record outside the set contributes nothing: its row and its label do not matter."""
    X, y = _data()
    X2, y2 = X.copy(), y.copy()
    y[7], y2[7] = "maybe", "perhaps"
    X2[7] = [0.9, -0.3, 0.2]
    fits = []
    for data in ((X, y), (X2, y2)):
        with collect_diagnostics() as diag, warnings.catch_warnings():
            warnings.simplefilter("ignore", dp.PrivacyWarning)
            fits.append(FAMILIES[name](classes=CLASSES, random_state=3,
                                       unknown_labels="ignore").fit(*data))
        note = diag.note("outside")
        assert (note.count, note.n) == (1, 40) and "ignore" in note.what
    a, b = fits
    model_a = getattr(a, "estimator_", a)
    model_b = getattr(b, "estimator_", b)
    for attr in ("coef_", "intercept_", "Phi_", "means_"):
        if hasattr(model_a, attr):
            np.testing.assert_array_equal(getattr(model_a, attr), getattr(model_b, attr))
    assert {s.unknown_labels for s in certificate_facts(a.certificate_, "label_source")} == {"ignore"}


@pytest.mark.parametrize("name", list(FAMILIES))
def test_ignore_takes_any_value_of_a_stray_label_as_outside_the_set(name):
    """With "ignore", no value of one record's label decides between a release and a refusal:
    a non-integer, missing or other-typed label is outside the set like any other (as a list,
    the other labels keep their type, whichever record comes first), and the model is the one
    a stray 9 gives (the same φ(D), the same seed: the same arithmetic)."""
    rng = np.random.default_rng(0)
    X = 0.4 * rng.normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(int)
    neighbours = {}
    for where, value in ((7, 9), (7, 1.5), (7, float("nan")), (7, float("inf")), (7, None),
                         (7, "maybe"), (0, "maybe"), (7, 1j), (7, b"x"), (7, (0,)), (7, [0]),
                         (7, {"a": 1})):
        labels = y.tolist()
        labels[where] = value
        neighbours[(where, repr(value))] = (np.asarray(labels, dtype=float)
                                            if isinstance(value, float) else labels)
    neighbours[(7, "masked")] = np.ma.array(y, mask=np.arange(40) == 7)
    models = {}
    for key, labels in neighbours.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", dp.PrivacyWarning)
            est = FAMILIES[name](classes=[0, 1], random_state=3, unknown_labels="ignore").fit(X, labels)
        models[key] = getattr(est, "best_estimator_", getattr(est, "estimator_", est))
    reference = models[(7, "9")]
    for key, model in models.items():
        if key[0] != 7:  # another record outside the set: another φ(D)
            continue
        for attr in ("coef_", "intercept_", "Phi_", "means_"):
            if hasattr(reference, attr):
                np.testing.assert_allclose(getattr(model, attr), getattr(reference, attr), rtol=0, atol=0)
    with pytest.raises(dp.DataValidationError, match="continuous"):  # "raise": refused by name
        FAMILIES[name](classes=[0, 1], random_state=3).fit(X, neighbours[(7, "1.5")])


@pytest.mark.parametrize("name", ["grid-search", "random-search"])
def test_searches_pass_ignore_to_every_candidate(name):
    X, y = _data(n=60)
    y[3] = "maybe"
    search = FAMILIES[name](classes=CLASSES, random_state=0, unknown_labels="ignore").fit(X, y)
    assert search.best_estimator_.get_params()["unknown_labels"] == "ignore"
    with pytest.raises(dp.ParameterError, match="cannot be tuned"):
        FAMILIES[name](classes=CLASSES).set_params(
            param_grid={"unknown_labels": ["raise", "ignore"]}).fit(X, y)


def test_one_vs_rest_and_the_front_door_pass_the_policy_down():
    rng = np.random.default_rng(1)
    X = 0.4 * rng.normal(size=(45, 3))
    y = np.arange(45) % 3
    y[4] = 7
    with pytest.raises(dp.DataValidationError, match=r"classes=\[0, 1, 2\]"):
        _lr(classes=[0, 1, 2]).fit(X, y)  # refused before the three binary fits
    m = _lr(classes=[0, 1, 2], unknown_labels="ignore", random_state=0).fit(X, y)
    assert m.coef_.shape == (3, 3)
    assert m._binary_clone(3).get_params()["unknown_labels"] == "ignore"
    front = dp.PrivateClassifier(classes=[0, 1, 2], unknown_labels="ignore", safeguard=False,
                                 random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)
        front.fit(X, y)
    assert front.estimator_.get_params()["unknown_labels"] == "ignore"


@pytest.mark.parametrize("name", list(FAMILIES))
@pytest.mark.parametrize("bad", ["Raise", "warn", None, True, ["raise"]])
def test_unknown_labels_is_validated(name, bad):
    X, y = _data()
    est = FAMILIES[name](classes=CLASSES, unknown_labels=bad)
    with pytest.raises(dp.ParameterError, match="'unknown_labels' parameter of"):
        est.fit(X, y)
    assert _fitted(est) == []


def test_the_certificate_states_the_policy():
    X, y = _data()
    raised = _lr(classes=CLASSES, random_state=0).fit(X, y)
    assert raised.certificate_.label_source.unknown_labels == "raise"
    ignored = _lr(classes=CLASSES, random_state=0, unknown_labels="ignore").fit(X, y)
    assert ignored.certificate_.label_source.unknown_labels == "ignore"


def test_a_declared_label_set_is_held_to_the_same_policy():
    from dpconvex.data.validation import LabelArray

    X, y = _data()
    yl = LabelArray(np.where(y == "yes", 1, 0), classes=[0, 1])
    yl[2] = 5
    with pytest.raises(dp.DataValidationError, match="declared with y"):
        _lr().fit(X, yl)
    _lr(unknown_labels="ignore", random_state=0).fit(X, yl)


def test_the_type_mismatch_message_asks_for_the_labels_as_they_are_in_y():
    X, y = _data()
    with pytest.raises(dp.DataValidationError, match="labels in y are of type str") as info:
        _lr(classes=[0, 1]).fit(X, y)
    assert "exactly as they appear in y" in str(info.value)
    assert "'no'" not in str(info.value)


def test_dask_paths_refuse_with_one_pass_over_the_labels():
    da = pytest.importorskip("dask.array")
    X, y = _data()
    y[7] = "maybe"
    Xd = da.from_array(X, chunks=(20, 3))
    for make in (FAMILIES["logreg"], FAMILIES["noisy-gd"], FAMILIES["centroid"],
                 FAMILIES["large-margin"]):
        acc = BudgetAccountant(epsilon=1.0, delta=1e-4)
        est = make(classes=CLASSES, accountant=acc)
        assert "unknown_labels='ignore'" in _refusal(est, Xd, da.from_array(y, chunks=20))
        assert _fitted(est) == [] and acc.spent == (0.0, 0.0)


def test_the_audit_adapter_follows_the_estimator():
    from dpconvex.audit import NoisyGDMechanism

    X, y = _data()
    ys = np.where(y == "yes", 1, -1)
    ys[0] = 0
    est = dp.NoisyGradientDescent(epsilon=1.0, delta=1e-5, steps=5, radius=2.0, classes=[-1, 1])
    with pytest.raises(dp.DataValidationError, match="unknown_labels"):
        NoisyGDMechanism(est).prepare((X, ys))
    template = NoisyGDMechanism(est.set_params(unknown_labels="ignore")).prepare((X, ys))
    assert not np.any(np.asarray(template.X)[0])  # the record outside the set: a zero row


def test_encode_labels_checks_its_policy():
    with pytest.raises(dp.ParameterError, match="unknown_labels"):
        encode_labels(np.array([0, 1]), [0, 1], "owner", unknown_labels="skip")
    labels = encode_labels(np.array([0, 1, 2]), [0, 1], "owner", unknown_labels="ignore")
    assert labels.outside.tolist() == [False, False, True] and labels.index.tolist() == [0, 1, 0]


def test_pipelines_take_the_policy_on_their_private_step():
    X, y = _data()
    y[0] = "maybe"
    pipe = make_pipeline(dp.RandomFourierFeatures(n_components=10, gamma=0.5, random_state=0),
                         _lr(classes=CLASSES, random_state=0))
    with pytest.raises(dp.DataValidationError, match="unknown_labels"):
        pipe.fit(X, y)
    pipe.set_params(privatelogisticregression__unknown_labels="ignore").fit(X, y)


@pytest.mark.parametrize("classes", [[0, 1], [1.0, 2], [True, 5], [0, 1, 2], [np.int64(3), 7.5, 0],
                                     [0.0, 2.0**53], [2**53, 2**53 + 1]])
@pytest.mark.parametrize("dtype", [np.int64, np.int8, np.uint16, np.uint64, bool, float])
def test_labels_map_as_the_dict_lookup_does(classes, dtype):
    """Numeric labels against a numeric set: the index is the one a dict lookup of each label
    in the sorted set gives (1, 1.0 and True one label; 2**53 + 1 not 2.0**53), -1 outside it."""
    from dpconvex.data import validation as label_module

    base = np.random.default_rng(5).integers(0, 4, size=500)
    values = (base + (2**53 if max(classes) >= 2**53 else 0)).astype(dtype)
    for set_dtype in (None, object):
        declared = np.sort(np.array(classes, dtype=set_dtype))
        index = {v: i for i, v in enumerate(declared.tolist())}
        want = [index.get(v, -1) for v in values.tolist()]
        assert label_module._lookup(values, declared).tolist() == want


def test_the_diagnostics_note_names_the_setting_the_fit_used():
    """The default 'raise' with every label in the set: the note says no record was outside
    and that one would have stopped the fit, not that rows were zeroed."""
    X, y = _data()
    with collect_diagnostics() as diag, warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)
        FAMILIES["logreg"](classes=CLASSES, random_state=3).fit(X, y)
    note = diag.note("outside")
    assert note.count == 0 and "unknown_labels='raise'" in note.what
    assert "zeroed" not in note.what


@pytest.mark.parametrize("labels", [[(0,), (1,), (2,)], [[0], [1], [2]], [np.array([0]), np.array([1])]])
def test_classes_that_are_sequences_are_refused_as_such(labels):
    """A tuple, list or array label (three of them read as a column of one) is named, not
    counted as "fewer than two labels"."""
    with pytest.raises(dp.ParameterError,
                       match=r"has a label of type (tuple|list|ndarray); class labels are"):
        dp.PrivateGaussianCentroid(classes=labels).fit(np.zeros((6, 2)), np.arange(6) % 2)


@pytest.mark.parametrize("make", [lambda: iter(CLASSES), lambda: (c for c in CLASSES),
                                  lambda: map(str, CLASSES)])
def test_classes_given_as_an_iterator_are_refused_before_they_are_read(make):
    """An iterator is read once: a first fit would use it up and a refit find it empty, so
    it is refused by name, unread, at the first fit."""
    X, y = _data()
    classes = make()
    with pytest.raises(dp.ParameterError, match=r"^The 'classes' parameter of "
                       r"PrivateLogisticRegression must be a list, tuple or array of labels, "
                       r"not an iterator: .* pass list\(\.\.\.\) of it\. Got a"):
        _lr(classes=classes).fit(X, y)
    assert list(classes) == CLASSES  # not read
    assert _lr(classes=dict.fromkeys(CLASSES).keys()).fit(X, y).classes_.tolist() == CLASSES


def test_ignore_fits_labels_of_another_type_than_the_classes_on_zeroed_rows():
    """Under "ignore" no record's type decides between a release and a refusal: labels all of
    another type than the classes are all outside the set (as one such label is), where
    "raise" refuses them by name."""
    X, y = _data()
    numbers = (y == "yes").astype(int).tolist()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)
        for labels in (numbers, ["no", *numbers[1:]]):
            _lr(classes=CLASSES, unknown_labels="ignore", random_state=0).fit(X, labels)
    with pytest.raises(dp.DataValidationError, match="of type number"):
        _lr(classes=CLASSES, random_state=0).fit(X, numbers)


def test_the_guarded_front_doors_dry_run_takes_ignore_as_its_fit_does():
    X, y = _data()
    labels = (y == "yes").astype(float)
    labels[7] = np.nan
    door = dp.PrivateClassifier(epsilon=1.0, classes=[0, 1], unknown_labels="ignore", safeguard=True,
                                random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dp.PrivacyWarning)
        assert door.certify(X, labels).epsilon <= 1.0
        door.fit(X, labels)
