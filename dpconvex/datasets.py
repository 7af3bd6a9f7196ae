"""Loaders for the UCI datasets of the CMS experiments, with privacy-safe preprocessing.

Chaudhuri, Monteleoni & Sarwate (CMS, JMLR 2011, §7) run their experiments on
UCI Adult and on KDD Cup 1999; this module also loads the small Wisconsin
breast-cancer set for quick checks. CMS turn categorical attributes into binary
indicators, scale every column so that its *largest value in the data* is 1, and
then bring every row to norm at most 1. Scaling by data maxima is not private:
the maximum of a column is a function of the data set, so a single record (say
one very large capital gain) changes how every *other* record is encoded, and
the privacy proofs (which bound the influence of one record through its own
row only) no longer cover the pipeline. ``DESIGN.md`` §2 ("Per-record
clipping") therefore asks for public ranges.

Every loader here applies a fixed, per-record map whose constants are written
in this file and never computed from the loaded data:

1. **Numeric columns** are clipped to a public range ``[lo, hi]`` and mapped to
   ``[0, 1]``, linearly, ``(x - lo) / (hi - lo)``, or, for unbounded byte and
   event counts, logarithmically, ``log1p(x - lo) / log1p(hi - lo)``. The
   ranges are in the module-level dicts :data:`ADULT_NUMERIC_RANGES`,
   :data:`KDDCUP99_NUMERIC_RANGES` (with :data:`KDDCUP99_LOG_SCALED`) and
   :data:`BREAST_CANCER_NUMERIC_RANGES`, each with the source of the bound.
2. **Categorical columns** are one-hot encoded over the category list from the
   dataset's documentation (:data:`ADULT_CATEGORIES`,
   :data:`KDDCUP99_CATEGORIES`). A value not in the list maps to an all-zero
   block; the vocabulary is never extended from the data.
3. **Row norm.** After steps 1-2 each numeric feature lies in ``[0, 1]`` and each
   one-hot block has at most one 1, so the squared norm of any row is at most
   ``D = (#numeric columns) + (#categorical columns)``. Every row is divided by
   the public constant ``sqrt(D)`` (see :func:`norm_divisor`), so ``||x|| <= 1``
   holds by construction, for every possible record, with no per-row or
   per-column statistic of the data.

Because the map is applied to each record on its own, replacing one record
changes one row of ``X`` and nothing else, which is what the per-record norm
bound ``q = 1`` of the privacy analysis needs. (Dropping records with missing
values, as CMS did, is also a per-record rule.)

Files are looked up in :func:`get_data_home` under their exact UCI names, and
downloaded from UCI (checked against a pinned SHA-256) only when missing and
``download=True``.

References
----------
.. [CMS] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially Private
   Empirical Risk Minimization. JMLR 12:1069-1109, 2011, §7 (data sets and
   preprocessing).
.. [ADULT] B. Becker, R. Kohavi. Adult. UCI Machine Learning Repository, 1996.
   doi:10.24432/C5XW20.
.. [KDD99] S. Stolfo, W. Fan, W. Lee, A. Prodromidis, P. Chan. KDD Cup 1999
   Data. UCI Machine Learning Repository, 1999. doi:10.24432/C51C7N.
.. [BCW] W. H. Wolberg. Breast Cancer Wisconsin (Original). UCI Machine
   Learning Repository, 1992. doi:10.24432/C5HP4Z.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import math
import os
import tempfile
import urllib.request
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ._random import RandomStateLike, check_random_state
from .errors import DatasetError, ParameterError

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = [
    "ADULT_CATEGORIES",
    "ADULT_FEATURE_NAMES",
    "ADULT_LOG_SCALED",
    "SKLEARN_BREAST_CANCER_RANGES",
    "SKLEARN_WINE_RANGES",
    "load_sklearn",
    "scale_by_public_ranges",
    "ADULT_NUMERIC_RANGES",
    "BREAST_CANCER_FEATURE_NAMES",
    "BREAST_CANCER_NUMERIC_RANGES",
    "DATASET_SHA256",
    "DATASET_URLS",
    "KDDCUP99_CATEGORIES",
    "KDDCUP99_FEATURE_NAMES",
    "KDDCUP99_LOG_SCALED",
    "KDDCUP99_NUMERIC_RANGES",
    "get_data_home",
    "load_adult",
    "load_breast_cancer_wisconsin",
    "load_kddcup99",
    "norm_divisor",
]

# --------------------------------------------------------------------------
# Files: names, sources and pinned hashes (from shared/datasets/README.md)
# --------------------------------------------------------------------------

_UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases"

#: Where each file is fetched from when it is missing and ``download=True``.
DATASET_URLS: dict[str, str] = {
    "adult.data": f"{_UCI}/adult/adult.data",
    "adult.test": f"{_UCI}/adult/adult.test",
    "breast-cancer-wisconsin.data": (
        f"{_UCI}/breast-cancer-wisconsin/breast-cancer-wisconsin.data"
    ),
    # Plain http: this is how the UCI KDD archive serves it. The SHA-256
    # check below is what guards the content.
    "kddcup.data_10_percent.gz": (
        "http://kdd.ics.uci.edu/databases/kddcup99/kddcup.data_10_percent.gz"
    ),
}

#: SHA-256 of the canonical UCI files; a download that does not match is refused.
DATASET_SHA256: dict[str, str] = {
    "adult.data": "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
    "adult.test": "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
    "breast-cancer-wisconsin.data": (
        "402c585309c399237740f635ef9919dc512cca12cbeb20de5e563a4593f22b64"
    ),
    "kddcup.data_10_percent.gz": (
        "8045aca0d84e70e622d1148d7df782496f6333bf6eb979a1b0837c42a9fd9561"
    ),
}

_DOWNLOAD_TIMEOUT = 20.0  # seconds, per network operation
_ENV_VAR = "DPCONVEX_DATA"

# --------------------------------------------------------------------------
# Adult: public schema (adult.names) and public numeric ranges
# --------------------------------------------------------------------------

#: The 14 attributes of adult.data / adult.test, in file order (then the label).
_ADULT_COLUMNS: tuple[str, ...] = (
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education-num",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "native-country",
)

#: Every category of every categorical attribute, as listed in ``adult.names``.
ADULT_CATEGORIES: dict[str, tuple[str, ...]] = {
    "workclass": (
        "Private", "Self-emp-not-inc", "Self-emp-inc", "Federal-gov", "Local-gov",
        "State-gov", "Without-pay", "Never-worked",
    ),
    "education": (
        "Bachelors", "Some-college", "11th", "HS-grad", "Prof-school", "Assoc-acdm",
        "Assoc-voc", "9th", "7th-8th", "12th", "Masters", "1st-4th", "10th",
        "Doctorate", "5th-6th", "Preschool",
    ),
    "marital-status": (
        "Married-civ-spouse", "Divorced", "Never-married", "Separated", "Widowed",
        "Married-spouse-absent", "Married-AF-spouse",
    ),
    "occupation": (
        "Tech-support", "Craft-repair", "Other-service", "Sales", "Exec-managerial",
        "Prof-specialty", "Handlers-cleaners", "Machine-op-inspct", "Adm-clerical",
        "Farming-fishing", "Transport-moving", "Priv-house-serv", "Protective-serv",
        "Armed-Forces",
    ),
    "relationship": (
        "Wife", "Own-child", "Husband", "Not-in-family", "Other-relative", "Unmarried",
    ),
    "race": ("White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black"),
    "sex": ("Female", "Male"),
    "native-country": (
        "United-States", "Cambodia", "England", "Puerto-Rico", "Canada", "Germany",
        "Outlying-US(Guam-USVI-etc)", "India", "Japan", "Greece", "South", "China",
        "Cuba", "Iran", "Honduras", "Philippines", "Italy", "Poland", "Jamaica",
        "Vietnam", "Mexico", "Portugal", "Ireland", "France", "Dominican-Republic",
        "Laos", "Ecuador", "Taiwan", "Haiti", "Columbia", "Hungary", "Guatemala",
        "Nicaragua", "Scotland", "Thailand", "Yugoslavia", "El-Salvador",
        "Trinadad&Tobago", "Peru", "Hong", "Holand-Netherlands",
    ),
}  # fmt: skip

#: Public range ``(lo, hi)`` of each numeric Adult attribute used as a feature.
#: ``fnlwgt`` (the census sampling weight) is *dropped*: it describes the
#: survey design rather than the person and has no documented bound.
ADULT_NUMERIC_RANGES: dict[str, tuple[float, float]] = {
    # Generous human-age bound; the extraction kept ages 17..90 (adult.names:
    # "AAGE>16"; 90 is the census top code).
    "age": (0.0, 100.0),
    # The 16 levels of `education` coded 1 (Preschool) .. 16 (Doctorate).
    "education-num": (1.0, 16.0),
    # 99999 is the Current Population Survey top code for capital gains.
    "capital-gain": (0.0, 99999.0),
    # No documented cap was found for capital losses, so the same public
    # five-digit field bound as capital-gain is used.
    "capital-loss": (0.0, 99999.0),
    # The CPS field is capped at 99 hours.
    "hours-per-week": (0.0, 99.0),
}

#: Adult columns scaled by ``log1p(x - lo) / log1p(hi - lo)``: the capital
#: fields are heavy-tailed (most rows 0, a few near the top code), so a linear
#: map to [0, 1] would leave almost every non-zero value near 0. The transform
#: reads only the record and the public range.
ADULT_LOG_SCALED: frozenset[str] = frozenset({"capital-gain", "capital-loss"})

# --------------------------------------------------------------------------
# KDD Cup 1999: public schema (kddcup.names, NSL-KDD ARFF header)
# --------------------------------------------------------------------------

#: The 41 features of kddcup.data_10_percent, in file order (then the label).
_KDD_COLUMNS: tuple[str, ...] = (
    "duration", "protocol_type", "service", "flag", "src_bytes", "dst_bytes",
    "land", "wrong_fragment", "urgent", "hot", "num_failed_logins", "logged_in",
    "num_compromised", "root_shell", "su_attempted", "num_root",
    "num_file_creations", "num_shells", "num_access_files", "num_outbound_cmds",
    "is_host_login", "is_guest_login", "count", "srv_count", "serror_rate",
    "srv_serror_rate", "rerror_rate", "srv_rerror_rate", "same_srv_rate",
    "diff_srv_rate", "srv_diff_host_rate", "dst_host_count", "dst_host_srv_count",
    "dst_host_same_srv_rate", "dst_host_diff_srv_rate",
    "dst_host_same_src_port_rate", "dst_host_srv_diff_host_rate",
    "dst_host_serror_rate", "dst_host_srv_serror_rate", "dst_host_rerror_rate",
    "dst_host_srv_rerror_rate",
)  # fmt: skip

#: Vocabularies of the three multi-valued symbolic columns, from the public
#: KDD'99 / NSL-KDD schema (the ARFF header distributed with NSL-KDD lists all
#: 70 services and 11 connection flags; the 10% file uses 66 of the services).
KDDCUP99_CATEGORIES: dict[str, tuple[str, ...]] = {
    "protocol_type": ("tcp", "udp", "icmp"),
    "service": (
        "aol", "auth", "bgp", "courier", "csnet_ns", "ctf", "daytime", "discard",
        "domain", "domain_u", "echo", "eco_i", "ecr_i", "efs", "exec", "finger",
        "ftp", "ftp_data", "gopher", "harvest", "hostnames", "http", "http_2784",
        "http_443", "http_8001", "imap4", "IRC", "iso_tsap", "klogin", "kshell",
        "ldap", "link", "login", "mtp", "name", "netbios_dgm", "netbios_ns",
        "netbios_ssn", "netstat", "nnsp", "nntp", "ntp_u", "other", "pm_dump",
        "pop_2", "pop_3", "printer", "private", "red_i", "remote_job", "rje",
        "shell", "smtp", "sql_net", "ssh", "sunrpc", "supdup", "systat", "telnet",
        "tftp_u", "tim_i", "time", "urh_i", "urp_i", "uucp", "uucp_path", "vmnet",
        "whois", "X11", "Z39_50",
    ),
    "flag": ("OTH", "REJ", "RSTO", "RSTOS0", "RSTR", "S0", "S1", "S2", "S3", "SF", "SH"),
}  # fmt: skip

_UINT32_MAX = float(2**32 - 1)
_RATE = (0.0, 1.0)
_BINARY = (0.0, 1.0)
_COUNTER = (0.0, _UINT32_MAX)

#: Public range ``(lo, hi)`` of each of the 38 numeric KDD'99 columns.
#:
#: * Rates (``*_rate``) are fractions: ``[0, 1]``.
#: * The 0/1 flags (``land``, ``logged_in``, ``is_host_login``,
#:   ``is_guest_login``; "symbolic" in kddcup.names, ``{0, 1}`` in the ARFF
#:   schema) and ``root_shell``, ``su_attempted`` (documented in the KDD'99
#:   task description as "1 if ...; 0 otherwise") are kept as one 0/1 feature
#:   each, range ``[0, 1]``. (``su_attempted`` takes the value 2 in a few rows;
#:   it is clipped to 1 = "attempted".)
#: * ``count`` and ``srv_count`` are capped at 511, ``dst_host_count`` and
#:   ``dst_host_srv_count`` at 255 (the caps of the KDD'99 feature extractor as
#:   commonly stated; no formal specification of them was found). Values
#:   above a cap are clipped, so privacy does not rest on the cap being right.
#: * Durations, byte counts and per-connection event counts have no documented
#:   maximum. They use the range of an unsigned 32-bit counter,
#:   ``[0, 2**32 - 1]``, with the log transform (:data:`KDDCUP99_LOG_SCALED`),
#:   so that ``x`` maps to ``log1p(x) / log1p(2**32 - 1)``.
KDDCUP99_NUMERIC_RANGES: dict[str, tuple[float, float]] = {
    "duration": _COUNTER,
    "src_bytes": _COUNTER,
    "dst_bytes": _COUNTER,
    "land": _BINARY,
    "wrong_fragment": _COUNTER,
    "urgent": _COUNTER,
    "hot": _COUNTER,
    "num_failed_logins": _COUNTER,
    "logged_in": _BINARY,
    "num_compromised": _COUNTER,
    "root_shell": _BINARY,
    "su_attempted": _BINARY,
    "num_root": _COUNTER,
    "num_file_creations": _COUNTER,
    "num_shells": _COUNTER,
    "num_access_files": _COUNTER,
    "num_outbound_cmds": _COUNTER,
    "is_host_login": _BINARY,
    "is_guest_login": _BINARY,
    "count": (0.0, 511.0),
    "srv_count": (0.0, 511.0),
    "serror_rate": _RATE,
    "srv_serror_rate": _RATE,
    "rerror_rate": _RATE,
    "srv_rerror_rate": _RATE,
    "same_srv_rate": _RATE,
    "diff_srv_rate": _RATE,
    "srv_diff_host_rate": _RATE,
    "dst_host_count": (0.0, 255.0),
    "dst_host_srv_count": (0.0, 255.0),
    "dst_host_same_srv_rate": _RATE,
    "dst_host_diff_srv_rate": _RATE,
    "dst_host_same_src_port_rate": _RATE,
    "dst_host_srv_diff_host_rate": _RATE,
    "dst_host_serror_rate": _RATE,
    "dst_host_srv_serror_rate": _RATE,
    "dst_host_rerror_rate": _RATE,
    "dst_host_srv_rerror_rate": _RATE,
}

#: Numeric KDD'99 columns scaled by ``log1p(x - lo) / log1p(hi - lo)``
#: instead of linearly (heavy-tailed counts with only a type bound).
KDDCUP99_LOG_SCALED: frozenset[str] = frozenset(
    name for name, rng in KDDCUP99_NUMERIC_RANGES.items() if rng == _COUNTER
)

# --------------------------------------------------------------------------
# Breast Cancer Wisconsin (Original)
# --------------------------------------------------------------------------

_BREAST_COLUMNS: tuple[str, ...] = (
    "clump_thickness",
    "uniformity_of_cell_size",
    "uniformity_of_cell_shape",
    "marginal_adhesion",
    "single_epithelial_cell_size",
    "bare_nuclei",
    "bland_chromatin",
    "normal_nucleoli",
    "mitoses",
)

#: Every feature is documented (breast-cancer-wisconsin.names, §7) as 1 - 10;
#: it maps to ``(x - 1) / 9``.
BREAST_CANCER_NUMERIC_RANGES: dict[str, tuple[float, float]] = {
    name: (1.0, 10.0) for name in _BREAST_COLUMNS
}


# --------------------------------------------------------------------------
# Encoding (one public, per-record map per dataset)
# --------------------------------------------------------------------------


def _feature_names(
    columns: Sequence[str],
    numeric: Mapping[str, tuple[float, float]],
    categories: Mapping[str, Sequence[str]],
) -> tuple[str, ...]:
    names: list[str] = []
    for col in columns:
        if col in numeric:
            names.append(col)
        elif col in categories:
            names.extend(f"{col}={cat}" for cat in categories[col])
    return tuple(names)


#: Names of the 104 Adult features, in column order (one-hot as ``attr=value``).
ADULT_FEATURE_NAMES: tuple[str, ...] = _feature_names(
    _ADULT_COLUMNS, ADULT_NUMERIC_RANGES, ADULT_CATEGORIES
)
#: Names of the 122 KDD Cup 1999 features, in column order.
KDDCUP99_FEATURE_NAMES: tuple[str, ...] = _feature_names(
    _KDD_COLUMNS, KDDCUP99_NUMERIC_RANGES, KDDCUP99_CATEGORIES
)
#: Names of the 9 breast-cancer features.
BREAST_CANCER_FEATURE_NAMES: tuple[str, ...] = _BREAST_COLUMNS


def norm_divisor(
    numeric: Mapping[str, tuple[float, float]],
    categories: Mapping[str, Sequence[str]] | None = None,
) -> float:
    """Return the public constant every encoded row is divided by.

    Each numeric feature is scaled into ``[0, 1]`` and each one-hot block holds
    at most one 1, so an encoded row has squared norm at most
    ``len(numeric) + len(categories)``; its square root is the divisor, and
    the divided rows have Euclidean norm at most 1 for *every* possible record.

    Parameters
    ----------
    numeric : mapping
        Public ranges of the numeric columns, e.g. :data:`ADULT_NUMERIC_RANGES`.
    categories : mapping or None
        Vocabularies of the categorical columns, e.g. :data:`ADULT_CATEGORIES`.

    Returns
    -------
    float
        ``sqrt(len(numeric) + len(categories))``: ``sqrt(13)`` for Adult,
        ``sqrt(41)`` for KDD Cup 1999, ``3`` for breast cancer.

    References
    ----------
    .. [CMS] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially Private
       Empirical Risk Minimization. JMLR 12, 2011, §7 (rows scaled to norm <= 1).
    """
    d = len(numeric) + (len(categories) if categories is not None else 0)
    return math.sqrt(d)


def _scale_numeric(x: np.ndarray, lo: float, hi: float, log: bool) -> np.ndarray:
    """Clip ``x`` to ``[lo, hi]`` and map it onto ``[0, 1]`` (in place when possible)."""
    x = np.clip(x, lo, hi)
    x -= lo
    if log:
        np.log1p(x, out=x)
        x /= math.log1p(hi - lo)
    else:
        x /= hi - lo
    return x


def _encode(
    columns: Sequence[str],
    numeric_values: Mapping[str, np.ndarray],
    category_codes: Mapping[str, np.ndarray],
    numeric: Mapping[str, tuple[float, float]],
    categories: Mapping[str, Sequence[str]],
    log_scaled: frozenset[str] = frozenset(),
) -> np.ndarray:
    """Assemble the scaled, one-hot encoded, norm-bounded design matrix.

    ``category_codes[col]`` holds each row's index into ``categories[col]``,
    or -1 for a value outside the vocabulary (an all-zero block).
    """
    n = len(next(iter(numeric_values.values())))
    width = sum(
        len(categories[c]) if c in categories else 1
        for c in columns
        if c in categories or c in numeric
    )
    X = np.zeros((n, width), dtype=np.float64)
    rows = np.arange(n)
    j = 0
    for col in columns:
        if col in numeric:
            lo, hi = numeric[col]
            X[:, j] = _scale_numeric(
                np.asarray(numeric_values[col], dtype=np.float64), lo, hi, col in log_scaled
            )
            j += 1
        elif col in categories:
            codes = np.asarray(category_codes[col])
            known = codes >= 0
            X[rows[known], j + codes[known]] = 1.0
            j += len(categories[col])
    X /= norm_divisor(numeric, categories)
    return X


# --------------------------------------------------------------------------
# Files
# --------------------------------------------------------------------------


def get_data_home(data_home: str | os.PathLike[str] | None = None) -> Path:
    """Return the folder where dataset files are looked up and saved.

    Parameters
    ----------
    data_home : str, path-like or None
        The folder to use. If None, the environment variable ``DPCONVEX_DATA``
        is used when set and non-empty; otherwise ``~/.cache/dpconvex``, which
        is created if missing.

    Returns
    -------
    pathlib.Path
        The folder (``~`` expanded). A folder given explicitly or through the
        environment is not created here.

    Raises
    ------
    ParameterError
        If ``data_home`` is not None, a string or a path-like object.
    DatasetError
        If the default folder does not exist and cannot be created.
    """
    if data_home is not None:
        if not isinstance(data_home, str | os.PathLike):
            raise ParameterError(
                "The 'data_home' parameter must be None, a str or a path-like object. "
                f"Got {data_home!r} instead."
            )
        return Path(data_home).expanduser()
    env = os.environ.get(_ENV_VAR)
    if env:
        return Path(env).expanduser()
    home = Path("~/.cache/dpconvex").expanduser()
    try:
        home.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DatasetError(
            f"Cannot create the default data folder {home} ({exc}). Set {_ENV_VAR} to a "
            "writable folder, or pass data_home=."
        ) from exc
    return home


def _download(url: str, timeout: float) -> bytes:
    """Fetch ``url`` and return its bytes (the only function that uses the network)."""
    request = urllib.request.Request(url, headers={"User-Agent": "dpconvex"})
    with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
        return response.read()


def _fetch_file(filename: str, data_home: str | os.PathLike[str] | None, download: bool) -> Path:
    """Return the path of ``filename`` in the data home, downloading it if allowed."""
    home = get_data_home(data_home)
    path = home / filename
    if path.is_file():
        return path
    url = DATASET_URLS[filename]
    fix = (
        f"Set {_ENV_VAR} to a folder holding {filename}, or pass data_home= (the file is at {url})"
    )
    if not download:
        raise DatasetError(
            f"Dataset file {filename!r} was not found in {home} and download=False. "
            f"{fix}, or pass download=True."
        )
    try:
        content = _download(url, _DOWNLOAD_TIMEOUT)
    except Exception as exc:  # URLError, HTTPError, TimeoutError, OSError, ...
        raise DatasetError(
            f"Dataset file {filename!r} was not found in {home}, and downloading it "
            f"from {url} failed ({type(exc).__name__}: {exc}). {fix}."
        ) from exc
    digest = hashlib.sha256(content).hexdigest()
    if digest != DATASET_SHA256[filename]:
        raise DatasetError(
            f"Dataset file {filename!r} was not found in {home}, and the copy downloaded "
            f"from {url} has SHA-256 {digest}, not the expected "
            f"{DATASET_SHA256[filename]}; it was not saved. {fix}."
        )
    tmp_name = None
    try:
        home.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=home, prefix=f".{filename}.", delete=False) as tmp:
            tmp_name = tmp.name
            tmp.write(content)
        os.replace(tmp_name, path)
    except OSError as exc:
        if tmp_name is not None and os.path.exists(tmp_name):
            os.unlink(tmp_name)
        raise DatasetError(
            f"Dataset file {filename!r} was downloaded but could not be saved in {home} "
            f"({exc}). {fix}."
        ) from exc
    return path


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="ascii", errors="strict")
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(f"Cannot read dataset file {path}: {exc}") from exc


def _check_bool(name: str, value: Any, owner: str) -> bool:
    if not isinstance(value, bool | np.bool_):
        raise ParameterError(
            f"The '{name}' parameter of {owner} must be a bool. Got {value!r} instead."
        )
    return bool(value)


def _codes(values: Sequence[str], vocabulary: Sequence[str]) -> np.ndarray:
    """Index of each value in the public vocabulary, -1 if it is not listed."""
    index = {cat: i for i, cat in enumerate(vocabulary)}
    return np.fromiter((index.get(v, -1) for v in values), dtype=np.intp, count=len(values))


# --------------------------------------------------------------------------
# Adult
# --------------------------------------------------------------------------

_ADULT_LABELS = {">50K": 1, "<=50K": 0}


def _parse_adult(path: Path) -> tuple[dict[str, list[str]], list[int]]:
    """Read one Adult file: complete rows only (rows with '?' are dropped)."""
    text = _read_text(path)
    raw: dict[str, list[str]] = {c: [] for c in _ADULT_COLUMNS}
    labels: list[int] = []
    n_fields = len(_ADULT_COLUMNS) + 1
    for lineno, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("|"):  # blank line or adult.test banner
            continue
        fields = [f.strip() for f in stripped.split(",")]
        if len(fields) != n_fields:
            raise DatasetError(
                f"{path}, line {lineno}: expected {n_fields} comma-separated fields, "
                f"found {len(fields)}. Is this the UCI Adult file?"
            )
        if "?" in fields:
            continue
        label = fields[-1].rstrip(".")  # adult.test labels end with '.'
        if label not in _ADULT_LABELS:
            raise DatasetError(
                f"{path}, line {lineno}: unknown label {fields[-1]!r} "
                "(expected '>50K' or '<=50K', optionally followed by '.')."
            )
        labels.append(_ADULT_LABELS[label])
        for col, value in zip(_ADULT_COLUMNS, fields, strict=False):
            raw[col].append(value)
    return raw, labels


def _to_float(values: Sequence[str], column: str, path: Path | str) -> np.ndarray:
    try:
        x = np.array([float(v) for v in values], dtype=np.float64)
    except ValueError as exc:
        raise DatasetError(f"{path}: non-numeric value in column {column!r}: {exc}") from exc
    if not np.all(np.isfinite(x)):
        raise DatasetError(f"{path}: non-finite value in column {column!r}.")
    return x


def load_adult(
    subset: str = "train",
    *,
    data_home: str | os.PathLike[str] | None = None,
    download: bool = True,
    return_frame: bool = False,
) -> tuple[np.ndarray, np.ndarray] | tuple[pandas.DataFrame, pandas.Series]:
    """Load UCI Adult (census income) with public, per-record preprocessing.

    Rows containing a missing value (``?``) are dropped, as in CMS §7, leaving
    30,162 training rows (``adult.data``), 15,060 test rows (``adult.test``)
    and 45,222 in all.

    Features (104 columns, in file order, names in :data:`ADULT_FEATURE_NAMES`):

    * 5 numeric attributes, clipped to the public ranges of
      :data:`ADULT_NUMERIC_RANGES` and scaled linearly to ``[0, 1]``: age
      ``[0, 100]``, education-num ``[1, 16]``, capital-gain ``[0, 99999]``
      (census top code), capital-loss ``[0, 99999]`` (no documented cap found,
      so the same public five-digit bound), hours-per-week ``[0, 99]``.
    * ``fnlwgt`` is dropped: it is the census sampling weight, not an attribute
      of the person, and has no public bound.
    * 8 categorical attributes one-hot encoded over the category lists of
      ``adult.names`` (:data:`ADULT_CATEGORIES`); 99 columns. An unlisted value
      gives an all-zero block.
    * Each row is divided by the public constant ``sqrt(5 + 8) = sqrt(13)``,
      so every row has Euclidean norm at most 1 by construction.

    No statistic of the loaded data (max, min, mean, std, vocabulary) enters
    the encoding, so replacing one record changes only its own row.

    Parameters
    ----------
    subset : {"train", "test", "all"}, default="train"
        ``"train"`` reads ``adult.data``, ``"test"`` reads ``adult.test``
        (whose first line ``|1x3 Cross validator`` is skipped and whose labels
        end with ``.``), ``"all"`` both, training rows first.
    data_home : str, path-like or None
        Folder holding the files; see :func:`get_data_home`.
    download : bool, default=True
        Download a missing file from the UCI archive (checked against
        :data:`DATASET_SHA256`) and save it in the data home.
    return_frame : bool, default=False
        Return a ``pandas.DataFrame`` with named columns and a
        ``pandas.Series`` instead of arrays. Needs pandas, which is not a
        dependency of dpconvex.

    Returns
    -------
    X : ndarray of shape (n_samples, 104), dtype float64
        Encoded features; every row has norm <= 1.
    y : ndarray of shape (n_samples,), dtype int64
        1 for income ``>50K``, 0 for ``<=50K``.

    Raises
    ------
    ParameterError
        If ``subset`` is not one of the three options, or a flag is not a bool.
    DatasetError
        If a file is missing and cannot be downloaded, or is malformed.
    ImportError
        If ``return_frame=True`` and pandas is not installed.

    References
    ----------
    .. [ADULT] B. Becker, R. Kohavi. Adult. UCI Machine Learning Repository,
       1996. doi:10.24432/C5XW20.
    .. [CMS] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially Private
       Empirical Risk Minimization. JMLR 12:1069-1109, 2011, §7. CMS scale
       columns by their maxima in the data; here public ranges are used
       instead (see the module docstring).
    """
    owner = "load_adult"
    options = ("train", "test", "all")
    if not isinstance(subset, str) or subset not in options:
        raise ParameterError(
            f"The 'subset' parameter of {owner} must be one of {options}. Got {subset!r} instead."
        )
    download = _check_bool("download", download, owner)
    return_frame = _check_bool("return_frame", return_frame, owner)
    if return_frame:
        try:
            import pandas as pd
        except ImportError as exc:
            raise ImportError(
                "load_adult(return_frame=True) needs pandas, which is not installed "
                "(pip install pandas), or use return_frame=False for numpy arrays."
            ) from exc

    files = {"train": ["adult.data"], "test": ["adult.test"], "all": ["adult.data", "adult.test"]}
    paths = [_fetch_file(name, data_home, download) for name in files[subset]]

    raw: dict[str, list[str]] = {c: [] for c in _ADULT_COLUMNS}
    labels: list[int] = []
    for path in paths:
        part, part_labels = _parse_adult(path)
        for col in _ADULT_COLUMNS:
            raw[col].extend(part[col])
        labels.extend(part_labels)
    if not labels:
        raise DatasetError(f"No complete records found in {', '.join(map(str, paths))}.")

    where = ", ".join(map(str, paths))
    numeric_values = {c: _to_float(raw[c], c, where) for c in ADULT_NUMERIC_RANGES}
    category_codes = {c: _codes(raw[c], voc) for c, voc in ADULT_CATEGORIES.items()}
    X = _encode(
        _ADULT_COLUMNS, numeric_values, category_codes, ADULT_NUMERIC_RANGES, ADULT_CATEGORIES,
        ADULT_LOG_SCALED,
    )
    y = np.asarray(labels, dtype=np.int64)
    if return_frame:
        return (
            pd.DataFrame(X, columns=list(ADULT_FEATURE_NAMES)),
            pd.Series(y, name="income>50K"),
        )
    return X, y


# --------------------------------------------------------------------------
# KDD Cup 1999
# --------------------------------------------------------------------------

_KDD_FILE = "kddcup.data_10_percent.gz"
_KDD_NUMERIC_IDX: tuple[int, ...] = tuple(
    i for i, c in enumerate(_KDD_COLUMNS) if c in KDDCUP99_NUMERIC_RANGES
)


def _kdd_numeric(source: bytes, path: Path) -> np.ndarray:
    """Parse the numeric columns of KDD'99 lines (C parser, ~3 s for the 10% file)."""
    try:
        values = np.loadtxt(
            io.BytesIO(source),
            delimiter=",",
            usecols=_KDD_NUMERIC_IDX,
            dtype=np.float64,
            ndmin=2,
            encoding="ascii",
        )
    except ValueError as exc:
        raise DatasetError(f"{path}: malformed numeric field: {exc}") from exc
    bad = ~np.isfinite(values)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise DatasetError(
            f"{path}: non-finite value in column {_KDD_COLUMNS[_KDD_NUMERIC_IDX[col]]!r} "
            f"of record {row + 1}."
        )
    return values


def load_kddcup99(
    n_samples: int | None = None,
    *,
    random_state: RandomStateLike = None,
    data_home: str | os.PathLike[str] | None = None,
    download: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """Load the KDD Cup 1999 10% training set with public, per-record preprocessing.

    Reads ``kddcup.data_10_percent.gz`` (494,021 connection records, 41
    features and a label). As in CMS §7 the task is binary: ``y = 1`` for an
    attack (any label other than ``normal.``), ``y = 0`` for normal traffic
    (97,278 rows).

    Features (122 columns, in file order, names in
    :data:`KDDCUP99_FEATURE_NAMES`):

    * 38 numeric columns, clipped to the public ranges of
      :data:`KDDCUP99_NUMERIC_RANGES` and mapped to ``[0, 1]``: rates
      ``[0, 1]``; 0/1 flags ``[0, 1]``; ``count``, ``srv_count`` ``[0, 511]``;
      ``dst_host_count``, ``dst_host_srv_count`` ``[0, 255]`` (the
      extractor's caps); durations, byte counts and event counts
      (:data:`KDDCUP99_LOG_SCALED`) by ``log1p(x) / log1p(2**32 - 1)``, the
      range of an unsigned 32-bit counter, as no maximum is documented.
    * ``protocol_type`` (3), ``service`` (70) and ``flag`` (11) one-hot
      encoded over the public schema in :data:`KDDCUP99_CATEGORIES`; 84
      columns. A value not listed gives an all-zero block.
    * Each row is divided by the public constant ``sqrt(38 + 3) = sqrt(41)``,
      so every row has Euclidean norm at most 1 by construction.

    Parameters
    ----------
    n_samples : int or None, default=None
        If given, return a uniform random sample of this many distinct rows
        (without replacement, in random order), as CMS used 70,000 rows. None
        returns all rows in file order.
    random_state : None, int or numpy.random.Generator
        Randomness of the sample; see :func:`dpconvex._random.check_random_state`.
        Ignored when ``n_samples`` is None.
    data_home : str, path-like or None
        Folder holding the file; see :func:`get_data_home`.
    download : bool, default=True
        Download the file from the UCI KDD archive if missing (checked against
        :data:`DATASET_SHA256`).

    Returns
    -------
    X : ndarray of shape (n_samples, 122), dtype float64
        Encoded features; every row has norm <= 1. (All 494,021 rows take
        about 480 MB.)
    y : ndarray of shape (n_samples,), dtype int64
        1 = attack, 0 = normal.

    Raises
    ------
    ParameterError
        If ``n_samples`` is not None or an int in ``[1, number of rows]``, or
        ``random_state`` is invalid.
    DatasetError
        If the file is missing and cannot be downloaded, or is malformed.

    References
    ----------
    .. [KDD99] S. Stolfo, W. Fan, W. Lee, A. Prodromidis, P. Chan. KDD Cup 1999
       Data. UCI Machine Learning Repository, 1999. doi:10.24432/C51C7N.
    .. [CMS] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially Private
       Empirical Risk Minimization. JMLR 12:1069-1109, 2011, §7. CMS scale
       columns by their maxima in the data; here public ranges are used
       instead (see the module docstring).
    """
    owner = "load_kddcup99"
    if n_samples is not None and (
        isinstance(n_samples, bool | np.bool_)
        or not isinstance(n_samples, int | np.integer)
        or n_samples < 1
    ):
        raise ParameterError(
            f"The 'n_samples' parameter of {owner} must be None or an int >= 1. "
            f"Got {n_samples!r} instead."
        )
    download = _check_bool("download", download, owner)
    rng = check_random_state(random_state) if n_samples is not None else None

    path = _fetch_file(_KDD_FILE, data_home, download)
    try:
        with gzip.open(path, "rb") as fh:
            raw = fh.read()
    except (OSError, EOFError, zlib.error) as exc:
        raise DatasetError(f"Cannot decompress {path}: {exc}") from exc

    lines = [ln for ln in raw.splitlines() if ln.strip()]
    n_total = len(lines)
    if n_total == 0:
        raise DatasetError(f"{path} holds no records.")

    n_fields = len(_KDD_COLUMNS) + 1
    protocol: list[bytes] = []
    service: list[bytes] = []
    flag: list[bytes] = []
    labels: list[bytes] = []
    for lineno, line in enumerate(lines, start=1):
        if line.count(b",") != n_fields - 1:
            raise DatasetError(
                f"{path}, record {lineno}: expected {n_fields} comma-separated fields, "
                f"found {line.count(b',') + 1}. Is this the UCI KDD Cup 1999 file?"
            )
        _, p, s, f, rest = line.split(b",", 4)
        protocol.append(p)
        service.append(s)
        flag.append(f)
        labels.append(rest.rpartition(b",")[2].strip())

    if n_samples is not None:
        if n_samples > n_total:
            raise ParameterError(
                f"The 'n_samples' parameter of {owner} must be at most the number of rows "
                f"({n_total}). Got {n_samples!r} instead."
            )
        assert rng is not None
        idx = rng.choice(n_total, size=int(n_samples), replace=False)
        lines = [lines[i] for i in idx]
        protocol = [protocol[i] for i in idx]
        service = [service[i] for i in idx]
        flag = [flag[i] for i in idx]
        labels = [labels[i] for i in idx]
    del raw

    numeric = _kdd_numeric(b"\n".join(lines), path)
    del lines
    numeric_values = {_KDD_COLUMNS[i]: numeric[:, k] for k, i in enumerate(_KDD_NUMERIC_IDX)}
    encoded = {"protocol_type": protocol, "service": service, "flag": flag}
    category_codes = {
        col: _codes(encoded[col], [v.encode("ascii") for v in voc])
        for col, voc in KDDCUP99_CATEGORIES.items()
    }
    X = _encode(
        _KDD_COLUMNS,
        numeric_values,
        category_codes,
        KDDCUP99_NUMERIC_RANGES,
        KDDCUP99_CATEGORIES,
        KDDCUP99_LOG_SCALED,
    )
    y = np.fromiter((lab != b"normal." for lab in labels), dtype=np.int64, count=len(labels))
    return X, y


# --------------------------------------------------------------------------
# Breast Cancer Wisconsin (Original)
# --------------------------------------------------------------------------

_BREAST_FILE = "breast-cancer-wisconsin.data"
_BREAST_LABELS = {"4": 1, "2": 0}


def load_breast_cancer_wisconsin(
    *,
    data_home: str | os.PathLike[str] | None = None,
    download: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """Load the original Wisconsin breast-cancer data with public preprocessing.

    Reads ``breast-cancer-wisconsin.data`` (699 rows), drops the 16 rows with a
    missing ``Bare Nuclei`` value (``?``) and the sample-id column, leaving 683
    rows: 444 benign and 239 malignant.

    Features (9 columns, :data:`BREAST_CANCER_FEATURE_NAMES`): each is
    documented as an integer 1 - 10 (:data:`BREAST_CANCER_NUMERIC_RANGES`); it is
    clipped to ``[1, 10]``, mapped to ``(x - 1) / 9``, and every row is divided
    by the public constant ``sqrt(9) = 3``, so every row has norm at most 1.

    Parameters
    ----------
    data_home : str, path-like or None
        Folder holding the file; see :func:`get_data_home`.
    download : bool, default=True
        Download the file from the UCI archive if missing (checked against
        :data:`DATASET_SHA256`).

    Returns
    -------
    X : ndarray of shape (683, 9), dtype float64
        Encoded features; every row has norm <= 1.
    y : ndarray of shape (683,), dtype int64
        1 = malignant (class 4), 0 = benign (class 2).

    Raises
    ------
    DatasetError
        If the file is missing and cannot be downloaded, or is malformed.

    References
    ----------
    .. [BCW] W. H. Wolberg. Breast Cancer Wisconsin (Original). UCI Machine
       Learning Repository, 1992. doi:10.24432/C5HP4Z.
    .. [CMS] K. Chaudhuri, C. Monteleoni, A. D. Sarwate. Differentially Private
       Empirical Risk Minimization. JMLR 12:1069-1109, 2011, §7 (preprocessing
       to norm <= 1; here with public ranges instead of data maxima).
    """
    owner = "load_breast_cancer_wisconsin"
    download = _check_bool("download", download, owner)
    path = _fetch_file(_BREAST_FILE, data_home, download)
    text = _read_text(path)
    n_fields = len(_BREAST_COLUMNS) + 2
    raw: dict[str, list[str]] = {c: [] for c in _BREAST_COLUMNS}
    labels: list[int] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fields = [f.strip() for f in line.split(",")]
        if len(fields) != n_fields:
            raise DatasetError(
                f"{path}, line {lineno}: expected {n_fields} comma-separated fields, "
                f"found {len(fields)}. Is this the original UCI breast-cancer file?"
            )
        if "?" in fields:
            continue
        if fields[-1] not in _BREAST_LABELS:
            raise DatasetError(
                f"{path}, line {lineno}: unknown class {fields[-1]!r} (expected 2 or 4)."
            )
        labels.append(_BREAST_LABELS[fields[-1]])
        for col, value in zip(_BREAST_COLUMNS, fields[1:-1], strict=True):
            raw[col].append(value)
    if not labels:
        raise DatasetError(f"No complete records found in {path}.")
    numeric_values = {c: _to_float(raw[c], c, path) for c in _BREAST_COLUMNS}
    X = _encode(_BREAST_COLUMNS, numeric_values, {}, BREAST_CANCER_NUMERIC_RANGES, {})
    return X, np.asarray(labels, dtype=np.int64)


# --------------------------------------------------------------------------
# Datasets bundled with scikit-learn, scaled by published ranges
# --------------------------------------------------------------------------

#: Published per-column (min, max) of scikit-learn's breast-cancer (WDBC) data,
#: from its description (``load_breast_cancer().DESCR``, "Summary Statistics").
SKLEARN_BREAST_CANCER_RANGES: tuple[tuple[float, float], ...] = (
    (6.981, 28.11), (9.71, 39.28), (43.79, 188.5), (143.5, 2501.0), (0.053, 0.163),
    (0.019, 0.345), (0.0, 0.427), (0.0, 0.201), (0.106, 0.304), (0.05, 0.097),
    (0.112, 2.873), (0.36, 4.885), (0.757, 21.98), (6.802, 542.2), (0.002, 0.031),
    (0.002, 0.135), (0.0, 0.396), (0.0, 0.053), (0.008, 0.079), (0.001, 0.03),
    (7.93, 36.04), (12.02, 49.54), (50.41, 251.2), (185.2, 4254.0), (0.071, 0.223),
    (0.027, 1.058), (0.0, 1.252), (0.0, 0.291), (0.156, 0.664), (0.055, 0.208),
)

#: Published per-column (min, max) of scikit-learn's wine data (``load_wine().DESCR``).
SKLEARN_WINE_RANGES: tuple[tuple[float, float], ...] = (
    (11.0, 14.8), (0.74, 5.80), (1.36, 3.23), (10.6, 30.0), (70.0, 162.0), (0.98, 3.88),
    (0.34, 5.08), (0.13, 0.66), (0.41, 3.58), (1.3, 13.0), (0.48, 1.71), (1.27, 4.00),
    (278.0, 1680.0),
)


def scale_by_public_ranges(X: np.ndarray, ranges: Sequence[tuple[float, float]]) -> np.ndarray:
    """Map columns to [-1/2, 1/2] by fixed (min, max) ranges, clip, divide rows by sqrt(d)/2.

    Every row then has norm <= 1 for *every* possible record: each coordinate is
    in [-1/2, 1/2], so ||x||^2 <= d/4.
    """
    lo = np.array([r[0] for r in ranges], dtype=float)
    hi = np.array([r[1] for r in ranges], dtype=float)
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] != lo.size:
        raise ParameterError(f"X must have {lo.size} columns to match the ranges; got {X.shape}.")
    Z = np.clip((X - lo) / (hi - lo), 0.0, 1.0) - 0.5
    return Z / (math.sqrt(lo.size) / 2.0)


def load_sklearn(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Load a dataset bundled with scikit-learn, scaled so that every row has norm <= 1.

    Parameters
    ----------
    name : {"breast_cancer", "wine", "digits"}
        ``breast_cancer`` and ``wine``: columns mapped by the (min, max) published
        in the dataset's description, then rows divided by sqrt(d)/2.
        ``digits``: pixels are in [0, 16] by the format, mapped to [0, 1], rows
        divided by sqrt(64) = 8.

    .. warning:: The published ranges of breast_cancer and wine were computed by
       the data's publishers from the same records, so that preprocessing is not
       covered by a privacy guarantee; it stands in for ranges a data owner knows
       before seeing the data (as the digits format range is). Never take ranges
       from your own private data.
    """
    from sklearn import datasets as skd

    if name == "breast_cancer":
        X, y = skd.load_breast_cancer(return_X_y=True)
        return scale_by_public_ranges(X, SKLEARN_BREAST_CANCER_RANGES), y
    if name == "wine":
        X, y = skd.load_wine(return_X_y=True)
        return scale_by_public_ranges(X, SKLEARN_WINE_RANGES), y
    if name == "digits":
        X, y = skd.load_digits(return_X_y=True)
        return X / 16.0 / 8.0, y
    raise ParameterError(f"Unknown scikit-learn dataset {name!r}; choose 'breast_cancer', 'wine' "
                         "or 'digits'.")
