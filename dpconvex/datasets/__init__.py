"""Loaders for the UCI datasets of the CMS experiments, with privacy-safe preprocessing.

Chaudhuri, Monteleoni & Sarwate ([CMS]_, Section 7) run their experiments on UCI Adult
[ADULT]_ and KDD Cup 1999 [KDD99]_; this package also loads the small Wisconsin breast-cancer
set [BCW]_ and scikit-learn's bundled breast-cancer, wine, digits and diabetes sets. CMS scale
every column by its largest value in the data, which makes one record change every row; every
loader here applies one fixed per-record map instead, :class:`dpconvex.PublicEncoder` with the
public schemas of :mod:`dpconvex.datasets.schemas` (ranges and vocabularies from the datasets'
documentation, each with its source), so every row has ``||x|| <= 1`` for every possible
record and replacing one record changes one row (docs/privacy/row_scaling.md#privacy-public-schemas;
``row_norm="unit"``, ``columns=``, ``drop=``: privacy-row-scaling, privacy-column-selection).
Dropping records with missing values, as CMS did, is a per-record rule.

**Labels.** y is a :class:`dpconvex.data.validation.LabelArray` carrying the public label set of
the dataset's encoding (:data:`ADULT_CLASSES`, :data:`KDDCUP99_CLASSES`,
:data:`BREAST_CANCER_CLASSES`, :data:`SKLEARN_CLASSES`), so a fit needs no ``classes=``; a
regression target's public range is in :data:`SKLEARN_LABEL_RANGES`.

**Files** are looked up under their UCI names in the folders of :func:`get_data_home`, checked against their
pinned SHA-256 (:data:`DATASET_SHA256`) and downloaded from UCI only with ``download=True``.

References
----------
.. [CMS] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially Private
   Empirical Risk Minimization. JMLR 12:1069-1109, 2011, Section 7 (data sets and preprocessing).
.. [ADULT] B. Becker, R. Kohavi. Adult. UCI Machine Learning Repository, 1996.
   doi:10.24432/C5XW20.
.. [KDD99] S. Stolfo, W. Fan, W. Lee, A. Prodromidis, P. Chan. KDD Cup 1999
   Data. UCI Machine Learning Repository, 1999. doi:10.24432/C51C7N.
.. [BCW] W. H. Wolberg. Breast Cancer Wisconsin (Original). UCI Machine
   Learning Repository, 1992. doi:10.24432/C5HP4Z.
"""

from __future__ import annotations

from ..data.encoder import encode
from ._files import (
    CHECKSUM_ENV_VAR,
    DATA_ENV_VAR,
    DATASET_SHA256,
    DATASET_URLS,
    get_data_home,
)
from .breast_cancer import BREAST_CANCER_ENCODINGS, load_breast_cancer_wisconsin
from .dask_loaders import load_kddcup99_dask as load_kddcup99_dask  # Dask imported on call
from .schemas import (
    ADULT_CATEGORIES,
    ADULT_CLASSES,
    ADULT_FEATURE_NAMES,
    ADULT_LOG_SCALED,
    ADULT_NUMERIC_RANGES,
    ADULT_SCHEMA,
    BREAST_CANCER_CLASSES,
    BREAST_CANCER_FEATURE_NAMES,
    BREAST_CANCER_NUMERIC_RANGES,
    BREAST_CANCER_SCHEMA,
    DIGITS_PIXEL_RANGE,
    KDDCUP99_CATEGORIES,
    KDDCUP99_CLASSES,
    KDDCUP99_FEATURE_NAMES,
    KDDCUP99_LOG_SCALED,
    KDDCUP99_NUMERIC_RANGES,
    KDDCUP99_SCHEMA,
    SKLEARN_BREAST_CANCER_RANGES,
    SKLEARN_CLASSES,
    SKLEARN_DIABETES_RANGE,
    SKLEARN_LABEL_RANGES,
    SKLEARN_SCHEMAS,
    SKLEARN_WINE_RANGES,
)
from .sklearn import load_sklearn
from .uci import KDDCUP99_ORDER_SEED, KDDCUP99_TEST_FRACTION, load_adult, load_kddcup99

__all__ = [
    "ADULT_CATEGORIES",
    "ADULT_CLASSES",
    "ADULT_FEATURE_NAMES",
    "ADULT_LOG_SCALED",
    "ADULT_NUMERIC_RANGES",
    "ADULT_SCHEMA",
    "BREAST_CANCER_ENCODINGS",
    "BREAST_CANCER_CLASSES",
    "BREAST_CANCER_FEATURE_NAMES",
    "BREAST_CANCER_NUMERIC_RANGES",
    "BREAST_CANCER_SCHEMA",
    "CHECKSUM_ENV_VAR",
    "DATASET_SHA256",
    "DATASET_URLS",
    "DATA_ENV_VAR",
    "DIGITS_PIXEL_RANGE",
    "KDDCUP99_CATEGORIES",
    "KDDCUP99_CLASSES",
    "KDDCUP99_FEATURE_NAMES",
    "KDDCUP99_LOG_SCALED",
    "KDDCUP99_NUMERIC_RANGES",
    "KDDCUP99_ORDER_SEED",
    "KDDCUP99_SCHEMA",
    "KDDCUP99_TEST_FRACTION",
    "SKLEARN_BREAST_CANCER_RANGES",
    "SKLEARN_CLASSES",
    "SKLEARN_DIABETES_RANGE",
    "SKLEARN_LABEL_RANGES",
    "SKLEARN_SCHEMAS",
    "SKLEARN_WINE_RANGES",
    "encode",
    "get_data_home",
    "load_adult",
    "load_breast_cancer_wisconsin",
    "load_kddcup99",
    "load_sklearn",
]
