"""The shared data checks open their messages with the public call that reached them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import dpconvex as dp
from dpconvex.data.validation import check_array, check_labels, encode_labels
from dpconvex.errors import DataTypeError, DataValidationError, ParameterError


def _fitted() -> dp.PrivateLogisticRegression:
    X = np.array([[0.5, 0.1], [0.1, 0.2], [0.3, 0.1], [0.2, 0.4]])
    return dp.PrivateLogisticRegression(classes=[0, 1], random_state=0).fit(X, [0, 1, 0, 1])


def test_check_array_opens_with_its_caller():
    with pytest.raises(DataValidationError, match=r"^load_x: X contains NaN"):
        check_array(np.array([[np.nan, 1.0]]), "load_x")
    with pytest.raises(DataTypeError, match=r"^Model\.fit: X must be an array of numbers"):
        check_array(np.array([["a"]]), "Model.fit")


def test_the_fitted_column_count_keeps_scikit_learns_words():
    with pytest.raises(DataValidationError,
                       match=r"^X has 3 features, but Model is expecting 2 features as input"):
        check_array(np.ones((2, 3)), "Model.predict", n_features=2)


def test_fit_and_score_name_their_method():
    X = np.array([[0.5, np.nan], [0.1, 0.2], [0.3, 0.1]])
    with pytest.raises(DataValidationError,
                       match=r"^PrivateLogisticRegression\.fit: X contains NaN"):
        dp.PrivateLogisticRegression(classes=[0, 1]).fit(X, [0, 1, 0])
    model = _fitted()
    with pytest.raises(DataValidationError,
                       match=r"^PrivateLogisticRegression\.score: X has 2 rows but y has 1"):
        model.score(np.ones((2, 2)) / 4, [0])
    with pytest.raises(DataValidationError,
                       match=r"^PrivateLogisticRegression\.score: sample_weight contains negative"):
        model.score(np.ones((2, 2)) / 4, [0, 1], sample_weight=[-1.0, 1.0])


def test_label_checks_open_with_the_caller_and_keep_the_parameter_form():
    with pytest.raises(DataValidationError, match=r"^Model\.fit: y must be 1-D"):
        check_labels(np.zeros((2, 2)), 2, "Model.fit")
    with pytest.raises(ParameterError,
                       match=r"^The 'classes' parameter of Model must list at least two labels"):
        encode_labels(np.array([0, 1]), [0], "Model.fit")
    with pytest.raises(ParameterError, match=r"^The 'unknown_labels' parameter of Model must be"):
        encode_labels(np.array([0, 1]), [0, 1], "Model.fit", unknown_labels="skip")
    with pytest.raises(DataValidationError, match=r"^Model\.fit: y has labels that are not in"):
        encode_labels(np.array([0, 2]), [0, 1], "Model.fit")


def test_the_encoder_names_fit_and_transform():
    schema = dp.PublicSchema({"a": dp.Numeric(0, 1)})
    with pytest.raises(DataValidationError, match=r"^PublicEncoder\.fit: the columns of X differ"):
        dp.PublicEncoder(schema).fit(pd.DataFrame({"b": [0.1]}))
    encoder = dp.PublicEncoder(schema).fit(pd.DataFrame({"a": [0.1, 0.2]}))
    with pytest.raises(DataValidationError, match=r"^PublicEncoder\.transform: the encoder was "
                                                  r"fitted on a table with named columns"):
        encoder.transform(np.ones((2, 1)))
