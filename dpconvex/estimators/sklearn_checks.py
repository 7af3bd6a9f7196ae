"""scikit-learn's estimator checks on dpconvex's estimators: the checks each one is expected to
fail, with the reason, and the instance of each public estimator the checks run on.

Every public estimator and transformer passes :func:`sklearn.utils.estimator_checks.check_estimator`
but for the checks :data:`EXPECTED_FAILED_CHECKS` names, each made impossible by privacy or by a
public schema:

- ``check_non_transformer_estimators_n_iter`` asks an estimator with ``max_iter`` for ``n_iter_``,
  the iterations its solver ran. That count depends on the data, and a released model holds its
  noised parameters and public facts only (docs/privacy/release.md#privacy-release), so the
  learners whose solve stops at a tolerance keep no ``n_iter_``.
  :class:`~dpconvex.NoisyGradientDescent` runs all of its T steps, fixed before the data are read:
  its ``n_iter_`` is T.
- :class:`~dpconvex.PublicEncoder` is checked twice. With one declaration for every column
  (:meth:`~dpconvex.PublicSchema.every_column`) it takes the width of each table it is fitted on and
  passes every check. With a schema that names its columns, a check that fits rows of another
  width is refused by name, as a table with other columns must be: those checks are declared
  under ``"PublicEncoder (named columns)"``.

The private regressors carry scikit-learn's ``poor_score`` tag (their noise at the checks' ε);
their accuracy check then asks for no R² bar. None carries the ``non_deterministic`` tag
("not deterministic given a fixed ``random_state``"): seeded, every fit draws its noise, splits
and selections from its ``random_state`` alone, so the checks that refit and compare
(``check_pipeline_consistency``, ``check_methods_sample_order_invariance``,
``check_methods_subset_invariance``) run on each. A search is as deterministic as the estimator
it tunes.

Examples
--------
>>> from sklearn.utils.estimator_checks import check_estimator
>>> from dpconvex.estimators.sklearn_checks import checked_estimators, expected_failed_checks
>>> encoder = checked_estimators()["PublicEncoder (named columns)"]
>>> results = check_estimator(encoder, expected_failed_checks=expected_failed_checks(encoder),
...                           on_fail=None)
>>> sorted({r["status"] for r in results} - {"skipped"})
['passed', 'xfail']
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["EXPECTED_FAILED_CHECKS", "checked_estimators", "checked_name",
           "expected_failed_checks"]

_N_ITER = {"check_non_transformer_estimators_n_iter":
           "n_iter_ (the solver's iterations to its tolerance) depends on the data and is not "
           "released: a model holds its noised parameters and public facts only"}

#: The width of the named schema :func:`checked_estimators` gives the second encoder.
_SCHEMA_WIDTH = 3

#: The key of the encoder whose schema names its columns.
_NAMED_ENCODER = "PublicEncoder (named columns)"


def _width(columns: int) -> str:
    return (f"the check fits rows of {columns} column(s); the schema declares {_SCHEMA_WIDTH} "
            "and a public schema fixes the columns, so the encoder refuses them")


#: :func:`checked_name` -> {check name: why the check cannot pass}. A name not listed passes every
#: check.
EXPECTED_FAILED_CHECKS: Mapping[str, Mapping[str, str]] = {
    "PrivateLinearClassifier": _N_ITER,
    "PrivateLogisticRegression": _N_ITER,
    "PrivateHuberSVM": _N_ITER,
    "PrivateLinearRegressor": _N_ITER,
    "PrivateHuberRegressor": _N_ITER,
    "PrivateQuantileRegressor": _N_ITER,
    "PrivateLargeMarginGaussian": _N_ITER,
    _NAMED_ENCODER: {
        "check_estimators_overwrite_params": _width(2),
        "check_estimators_fit_returns_self": _width(2),
        "check_readonly_memmap_input": _width(2),
        "check_fit_idempotent": _width(2),
        "check_fit_check_is_fitted": _width(2),
        "check_n_features_in": _width(2),
        "check_n_features_in_after_fitting": _width(4),
        "check_positive_only_tag_during_fit": _width(4),
        "check_estimators_dtypes": _width(5),
        "check_dtype_object": _width(10),
        "check_fit2d_1sample": _width(10) + " (it asks for a refusal of one sample, or none)",
    },
}


def checked_name(estimator: Any) -> str:
    """The name of ``estimator`` in :func:`checked_estimators` and :data:`EXPECTED_FAILED_CHECKS`:
    its class name, and ``"PublicEncoder (named columns)"`` for an encoder whose schema names its
    columns (a :class:`~dpconvex.PublicSchema`, not :meth:`~dpconvex.PublicSchema.every_column`).

    Examples
    --------
    >>> from dpconvex import Numeric, PublicEncoder, PublicSchema
    >>> from dpconvex.estimators.sklearn_checks import checked_name
    >>> checked_name(PublicEncoder(PublicSchema.every_column(Numeric(0, 1))))
    'PublicEncoder'
    >>> checked_name(PublicEncoder(PublicSchema({"age": Numeric(0, 120)})))
    'PublicEncoder (named columns)'
    """
    return _name_of(type(estimator), estimator)


def _name_of(cls: type, estimator: Any) -> str:
    """The name of class ``cls`` of ``estimator``'s MRO, as :func:`checked_name` gives it."""
    from ..data.schema import PublicSchema

    if cls.__name__ == "PublicEncoder" and isinstance(getattr(estimator, "schema", None),
                                                      PublicSchema):
        return _NAMED_ENCODER
    return cls.__name__


def expected_failed_checks(estimator: Any) -> dict[str, str]:
    """The checks of scikit-learn ``estimator`` is expected to fail, {check name: reason}: those of
    the first class of its MRO in :data:`EXPECTED_FAILED_CHECKS` (none for a class not listed),
    by :func:`checked_name` for the encoder.

    For ``expected_failed_checks=`` of scikit-learn's ``check_estimator`` and
    ``parametrize_with_checks``.

    Examples
    --------
    >>> from dpconvex import PrivateLogisticRegression
    >>> from dpconvex.estimators.sklearn_checks import expected_failed_checks
    >>> list(expected_failed_checks(PrivateLogisticRegression()))
    ['check_non_transformer_estimators_n_iter']
    """
    for cls in type(estimator).__mro__:
        if not cls.__module__.startswith("dpconvex."):
            continue
        name = _name_of(cls, estimator)
        if name in EXPECTED_FAILED_CHECKS:
            return dict(EXPECTED_FAILED_CHECKS[name])
    return {}


def checked_estimators() -> dict[str, Any]:
    """One instance of each public estimator and transformer, by :func:`checked_name`, as
    scikit-learn's checks run it: the default construction, and for those with a required
    argument the argument a user would give (a search of
    :class:`~dpconvex.PrivateLogisticRegression`; the encoder twice, with one numeric
    declaration for every column and with a schema that names 3 numeric columns).

    Examples
    --------
    >>> from dpconvex.estimators.sklearn_checks import checked_estimators
    >>> checked = checked_estimators()
    >>> len(checked), len({type(est) for est in checked.values()})
    (18, 17)
    >>> checked["PublicEncoder"].schema
    PublicSchema.every_column(Numeric(low=-10.0, high=10.0, log=False))
    """
    from sklearn.base import BaseEstimator

    import dpconvex.estimators as estimators

    from ..data.encoder import PublicEncoder
    from ..data.schema import Numeric, PublicSchema
    from .linear import PrivateLogisticRegression
    from .selection import PrivateGridSearch, PrivateRandomSearch

    named = PublicSchema({f"x{k}": Numeric(-10.0, 10.0) for k in range(_SCHEMA_WIDTH)})
    required = {
        "PrivateGridSearch": lambda: PrivateGridSearch(
            PrivateLogisticRegression(), param_grid="auto", epsilon=1.0),
        "PrivateRandomSearch": lambda: PrivateRandomSearch(
            PrivateLogisticRegression(), param_grid={"lam": [0.01, 0.1]}, epsilon=1.0),
        "PublicEncoder": lambda: PublicEncoder(PublicSchema.every_column(Numeric(-10.0, 10.0))),
    }
    classes = [PublicEncoder, *(getattr(estimators, name) for name in estimators.__all__)]
    checked = {cls.__name__: required.get(cls.__name__, cls)()
               for cls in classes if isinstance(cls, type) and issubclass(cls, BaseEstimator)}
    checked[_NAMED_ENCODER] = PublicEncoder(named)
    return checked
