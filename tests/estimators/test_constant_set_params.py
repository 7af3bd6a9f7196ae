"""The front doors' released constants refuse a set_params name that is no parameter of theirs
by name, as every dpconvex estimator does, before anything is set."""
from __future__ import annotations

import pytest

from dpconvex.errors import ParameterError
from dpconvex.estimators.front_door import ConstantClassifier, ConstantRegressor

CONSTANTS = [ConstantClassifier(1, [0, 1], 2), ConstantRegressor(2.0, 2)]


@pytest.mark.parametrize("est", CONSTANTS, ids=lambda e: type(e).__name__)
def test_an_unknown_set_params_name_is_refused_by_name_setting_nothing(est):
    name = type(est).__name__
    with pytest.raises(ParameterError, match=rf"^{name}.set_params: got 'bogus', which is not "
                                             rf"a parameter of {name}.* Set its parameters "
                                             r"only: \[") as err:
        est.set_params(n_features=7, bogus=1)
    assert isinstance(err.value, ValueError) and est.n_features == 2
    assert est.set_params(n_features=3).n_features_in_ == 3
