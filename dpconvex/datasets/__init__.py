"""Loaders for the UCI datasets of the CMS experiments, with privacy-safe preprocessing.

Chaudhuri, Monteleoni & Sarwate ([CMS]_, JMLR 2011, Section 7) run their experiments on
UCI Adult [ADULT]_ and on KDD Cup 1999 [KDD99]_; this package also loads the small Wisconsin
breast-cancer set [BCW]_ for quick checks, and scikit-learn's bundled breast-cancer,
wine and digits sets and its diabetes regression set. CMS turn categorical attributes into binary indicators,
scale every column so that its *largest value in the data* is 1, and then bring
every row to norm at most 1. Scaling by data maxima is not private: the maximum
of a column is a function of the data set, so a single record (say one very
large capital gain) changes how every *other* record is encoded, and the
privacy proofs (which bound the influence of one record through its own row
only) do not cover such a pipeline. ``DESIGN.md`` §2 ("Per-record clipping")
therefore asks for public ranges.

Every loader here applies one fixed, per-record map,
:class:`dpconvex.PublicEncoder` (:mod:`dpconvex.data.encoder`), driven by the
public schemas of :mod:`dpconvex.datasets.schemas` (:class:`dpconvex.PublicSchema`),
whose constants are never computed from the loaded data:

1. **Numeric columns** are clipped to a public range ``[lo, hi]`` and mapped to
   ``[0, 1]``, linearly, ``(x - lo) / (hi - lo)``, or, for heavy-tailed
   columns (KDD'99 durations, byte and event counts; Adult capital-gain and
   capital-loss), logarithmically, ``log1p(x - lo) / log1p(hi - lo)``. The
   ranges are in :data:`ADULT_NUMERIC_RANGES` (with :data:`ADULT_LOG_SCALED`),
   :data:`KDDCUP99_NUMERIC_RANGES` (with :data:`KDDCUP99_LOG_SCALED`),
   :data:`BREAST_CANCER_NUMERIC_RANGES`, :data:`SKLEARN_BREAST_CANCER_RANGES`,
   :data:`SKLEARN_WINE_RANGES` and :data:`SKLEARN_DIABETES_RANGE`, each with the
   source of the bound. The scikit-learn breast-cancer, wine and diabetes features
   are then centered to ``[-1/2, 1/2]`` (:func:`scale_by_public_ranges`).
2. **Categorical columns** are one-hot encoded over the category list from the
   dataset's documentation (:data:`ADULT_CATEGORIES`,
   :data:`KDDCUP99_CATEGORIES`). A value not in the list maps to an all-zero
   block; the vocabulary is never extended from the data.
3. **Row norm.** After steps 1-2 each numeric feature has absolute value at
   most ``b`` (1, or 1/2 when centered) and each one-hot block has at most one
   1, so the squared norm of any row is at most
   ``D = b**2 * (#numeric columns) + (#categorical columns)``. Every row is
   divided by the public constant ``sqrt(D)`` (see
   :func:`dpconvex.data.schema.norm_divisor`), so
   ``||x|| <= 1`` holds by construction, for every possible record, with no
   per-row or per-column statistic of the data.

4. **Per-record scaling** (``row_norm="unit"``, the default of the Adult
   and KDD Cup 1999 loaders, an option of the breast-cancer loader, where a
   row's length carries the label): every non-zero row is then scaled to norm exactly 1,
   ``x / ||x||`` (:func:`dpconvex.data.normalize_rows`). Step 3 guarantees
   the bound for the worst-case record, so typical rows use only a part of
   it (mean row norm 0.82 on Adult, 0.47 on KDD Cup 1999), while the noise is
   calibrated to the bound. ``row_norm="none"`` stops after step 3.
   ``columns=`` / ``drop=`` (e.g. ``drop=("native-country",)``) select
   attributes on the public schema before step 1 (the divisor counts the
   kept ones).

**Labels.** Every loader returns y as a :class:`dpconvex.data.labels.LabelArray`
(a NumPy array) carrying its public label set, the classes of the dataset's
encoding (:data:`ADULT_CLASSES`, :data:`KDDCUP99_CLASSES`,
:data:`BREAST_CANCER_CLASSES`, :data:`SKLEARN_CLASSES`), never read from the
loaded labels: a fit on it needs no ``classes=`` and reads nothing about the
label set from the records (``load_adult(return_frame=True)`` returns a
category-dtype ``pandas.Series`` with those categories instead). A regression
target (scikit-learn's diabetes) is a float array; its public range, for a
regressor's ``label_range``, is in :data:`SKLEARN_LABEL_RANGES`.

Because the map is applied to each record on its own, replacing one record
changes one row of ``X`` and nothing else, which is what the per-record norm
bound ``q = 1`` of the privacy analysis needs
(docs/privacy/linear_erm.md#privacy-intercept, privacy-row-scaling). (Dropping records
with missing values, as CMS did, is also a per-record rule.)

Files are looked up under their exact UCI names in the folders of
:func:`get_data_home` (``data_home=``, else ``DPCONVEX_DATA``, a relative value
being tried against the current directory and then the project root, else
``<project root>/../shared/datasets`` and ``~/.cache/dpconvex``). A file found
locally is checked against its pinned SHA-256 (:data:`DATASET_SHA256`) once
per process; a mismatch raises :class:`~dpconvex.errors.DatasetError` unless
the loader gets ``verify_checksum=False`` or the environment sets
``DPCONVEX_SKIP_CHECKSUM=1`` (for your own copies). A missing file is
downloaded from UCI (and checked) only when ``download=True``.

Modules: ``_files`` (locations, checksums, downloads), ``encoding`` (functional
encoders over a schema), ``schemas`` (public columns and ranges), ``uci`` (Adult, KDD Cup
1999), ``breast_cancer`` (Breast Cancer Wisconsin), ``_rows`` (the ``row_norm``,
``columns`` and ``drop`` options), ``sklearn`` (scikit-learn's bundled sets).

References
----------
.. [CMS] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially Private
   Empirical Risk Minimization. JMLR 12:1069-1109, 2011, Section 7 (data sets and
   preprocessing).
.. [ADULT] B. Becker, R. Kohavi. Adult. UCI Machine Learning Repository, 1996.
   doi:10.24432/C5XW20.
.. [KDD99] S. Stolfo, W. Fan, W. Lee, A. Prodromidis, P. Chan. KDD Cup 1999
   Data. UCI Machine Learning Repository, 1999. doi:10.24432/C51C7N.
.. [BCW] W. H. Wolberg. Breast Cancer Wisconsin (Original). UCI Machine
   Learning Repository, 1992. doi:10.24432/C5HP4Z.
"""

from __future__ import annotations

from ._files import (
    CHECKSUM_ENV_VAR,
    DATA_ENV_VAR,
    DATASET_SHA256,
    DATASET_URLS,
    get_data_home,
)
from .breast_cancer import BREAST_CANCER_ENCODINGS, load_breast_cancer_wisconsin
from .dask_loaders import load_kddcup99_dask as load_kddcup99_dask  # Dask imported on call
from .encoding import encode, encode_matrix, scale_by_public_ranges
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
    "ADULT_CATEGORIES", "ADULT_CLASSES", "ADULT_FEATURE_NAMES", "ADULT_LOG_SCALED",
    "ADULT_NUMERIC_RANGES", "ADULT_SCHEMA", "BREAST_CANCER_ENCODINGS", "BREAST_CANCER_CLASSES",
    "BREAST_CANCER_FEATURE_NAMES", "BREAST_CANCER_NUMERIC_RANGES", "BREAST_CANCER_SCHEMA",
    "CHECKSUM_ENV_VAR", "DATASET_SHA256", "DATASET_URLS", "DATA_ENV_VAR", "DIGITS_PIXEL_RANGE",
    "KDDCUP99_CATEGORIES", "KDDCUP99_CLASSES", "KDDCUP99_FEATURE_NAMES", "KDDCUP99_LOG_SCALED",
    "KDDCUP99_NUMERIC_RANGES", "KDDCUP99_ORDER_SEED", "KDDCUP99_SCHEMA", "KDDCUP99_TEST_FRACTION",
    "SKLEARN_BREAST_CANCER_RANGES", "SKLEARN_CLASSES", "SKLEARN_DIABETES_RANGE",
    "SKLEARN_LABEL_RANGES", "SKLEARN_SCHEMAS", "SKLEARN_WINE_RANGES", "encode", "encode_matrix",
    "get_data_home", "load_adult", "load_breast_cancer_wisconsin", "load_kddcup99", "load_sklearn",
    "scale_by_public_ranges",
]
