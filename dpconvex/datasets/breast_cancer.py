"""UCI Breast Cancer Wisconsin (original): the small set for quick checks.

Parsed like the other UCI loaders (:mod:`dpconvex.datasets.uci`) and encoded by
:class:`dpconvex.PublicEncoder` with the public ranges of
:data:`~dpconvex.datasets.schemas.BREAST_CANCER_SCHEMA`.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence

import numpy as np

from .._validation import check_option
from ..data.encoder import PublicEncoder
from ..data.row_scaling import check_row_norm
from ..data.validation import LabelArray
from ..errors import DatasetError
from ._files import fetch_file, labelled_csv
from .schemas import _BREAST_COLUMNS, BREAST_CANCER_CLASSES, BREAST_CANCER_SCHEMA
from .uci import _to_float

__all__ = ["BREAST_CANCER_ENCODINGS", "load_breast_cancer_wisconsin"]


_BREAST_FILE = "breast-cancer-wisconsin.data"
_BREAST_LABELS = {"4": 1, "2": 0}

#: The public feature maps offered by :func:`load_breast_cancer_wisconsin`:
#: ``"linear"`` (x - 1)/9 in [0, 1], rows divided by 3 (the default), and ``"log-centered"``
#: log(x)/log(10) - 1/2 in [-1/2, 1/2], rows divided by 1.5 (the schema's ``log_scaled`` and
#: ``centered`` options), as public as "linear".
BREAST_CANCER_ENCODINGS: tuple[str, ...] = ("linear", "log-centered")


def load_breast_cancer_wisconsin(*, data_home: str | os.PathLike[str] | None = None,
                                 download: bool = True, verify_checksum: bool | None = None,
                                 row_norm: str = "none", columns: Sequence[str] | None = None,
                                 drop: Sequence[str] = (), encoding: str = "linear"
                                ) -> tuple[np.ndarray, np.ndarray]:
    """Load the original Wisconsin breast-cancer data with public preprocessing.

    Reads ``breast-cancer-wisconsin.data`` (699 rows), drops the 16 rows with a missing ``Bare Nuclei`` value
    (``?``) and the sample-id column, leaving 683 rows: 444 benign and 239 malignant.

    Features: :data:`BREAST_CANCER_SCHEMA` (9 attributes documented as 1 - 10).
    ``row_norm="unit"`` is not the default: all nine grow with malignancy, so a row's length
    carries much of the label (docs/privacy/row_scaling.md#privacy-row-scaling-measurements).

    Parameters
    ----------
    data_home, download, verify_checksum
        As in :func:`~dpconvex.datasets.load_adult`.
    row_norm : {"none", "unit"}, default="none"
        "none": the public-range encoding divided by the public constant.
        "unit": every non-zero row scaled to norm 1 (zero rows stay zero).
    columns, drop : sequence of str
        Attributes to keep (None: all 9) or leave out; see
        :func:`~dpconvex.datasets.load_adult`.
    encoding : {"linear", "log-centered"}, default="linear"
        The public per-feature map (:data:`BREAST_CANCER_ENCODINGS`); "log-centered" separates
        the classes by direction instead of length, which DP class centroids and the
        large-margin classifier need (docs/privacy/large_margin_softmax.md#privacy-centroid-switch).

    Returns
    -------
    X : ndarray of shape (683, 9), dtype float64
        Encoded features (fewer with ``columns`` / ``drop``), every row of norm <= 1.
    y : LabelArray of shape (683,), dtype int64
        1 = malignant (class 4), 0 = benign (class 2), carrying the public label set
        :data:`BREAST_CANCER_CLASSES`.

    Raises
    ------
    ParameterError
        A flag that is not a bool, an invalid row option or an unknown ``encoding``.
    DatasetError
        As in :func:`~dpconvex.datasets.load_adult`.

    Examples
    --------
    Needs ``breast-cancer-wisconsin.data`` in the data folder
    (:func:`get_data_home`), so the doctest run skips it:

    >>> from dpconvex.datasets import load_breast_cancer_wisconsin  # doctest: +SKIP
    >>> X, y = load_breast_cancer_wisconsin(download=False)  # doctest: +SKIP
    >>> X.shape, y.classes.tolist(), int(y.sum())  # doctest: +SKIP
    ((683, 9), [0, 1], 239)
    """
    owner = "load_breast_cancer_wisconsin"
    row_norm = check_row_norm(row_norm, owner)
    schema = BREAST_CANCER_SCHEMA.select(columns, drop, caller=owner)
    if check_option("encoding", encoding, BREAST_CANCER_ENCODINGS, owner) == "log-centered":
        schema = dataclasses.replace(schema, log_scaled=frozenset(schema.numeric), centered=True)
    path = fetch_file(_BREAST_FILE, data_home, download, verify_checksum, owner)
    raw, labels = labelled_csv(path, _BREAST_COLUMNS, 1, _BREAST_LABELS,
                               "the original UCI breast-cancer file", owner, word="class")
    if not labels:
        raise DatasetError(f"load_breast_cancer_wisconsin: no complete records found in {path}. "
                           "Replace it with the UCI file.")
    table = {c: _to_float(raw[c], c, path, owner) for c in schema.columns}
    X = PublicEncoder(schema, row_norm=row_norm).fit_transform(table)
    return X, LabelArray(np.asarray(labels, dtype=np.int64), BREAST_CANCER_CLASSES)
