"""scikit-learn's estimator checks on the private linear classifiers.

The non-private baseline (mechanism="none") and objective perturbation at ε = 1 pass
all of them. Output perturbation fails only the accuracy check, which asks for
> 83% training accuracy on tiny data sets where its ε = 1 noise dominates
(expected, not a bug).
"""

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

import dpconvex as dp

#: A released model holds its parameters and public facts only (DESIGN.md §4): the
#: solver's iteration count depends on the data, so there is no ``n_iter_``.
NO_N_ITER = {"check_non_transformer_estimators_n_iter":
             "n_iter_ depends on the data and is not released (DESIGN.md §4)"}


def _expected_failures(est):
    # Every estimator, the output-perturbed Huber SVM included, passes sklearn's 83% bar in
    # check_classifiers_train at its defaults (lam="auto"), so no xfail remains.
    return dict(NO_N_ITER)


@pytest.mark.slow
@parametrize_with_checks(
    [
        dp.PrivateLogisticRegression(mechanism="none"),
        dp.PrivateHuberSVM(mechanism="none"),
        dp.PrivateHuberSVM(mechanism="none", loss="smooth_hinge"),
        dp.PrivateLogisticRegression(epsilon=1.0, random_state=0),
        dp.PrivateHuberSVM(epsilon=1.0, mechanism="output", random_state=0),
        dp.PrivateHuberSVM(epsilon=1.0, random_state=0, row_norm="unit"),
    ],
    expected_failed_checks=_expected_failures,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
