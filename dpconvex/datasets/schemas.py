"""Public schemas of the datasets: columns, vocabularies and numeric ranges.

Every constant here is written down from the dataset's documentation (or, for scikit-learn's wine and
breast-cancer sets, from the published summary statistics; see the warning in
:func:`dpconvex.datasets.load_sklearn`) and never computed from the loaded data. Each dataset's encoding is a
:class:`~dpconvex.data.schema.PublicSchema` built from them
(:data:`ADULT_SCHEMA`, :data:`KDDCUP99_SCHEMA`, :data:`BREAST_CANCER_SCHEMA`,
:data:`SKLEARN_SCHEMAS`).
"""

from __future__ import annotations

from ..data.schema import PublicSchema

__all__ = [
    "ADULT_CATEGORIES",
    "ADULT_CLASSES",
    "ADULT_FEATURE_NAMES",
    "ADULT_LOG_SCALED",
    "ADULT_NUMERIC_RANGES",
    "ADULT_SCHEMA",
    "BREAST_CANCER_CLASSES",
    "BREAST_CANCER_FEATURE_NAMES",
    "BREAST_CANCER_NUMERIC_RANGES",
    "BREAST_CANCER_SCHEMA",
    "DIGITS_PIXEL_RANGE",
    "KDDCUP99_CATEGORIES",
    "KDDCUP99_CLASSES",
    "KDDCUP99_FEATURE_NAMES",
    "KDDCUP99_LOG_SCALED",
    "KDDCUP99_NUMERIC_RANGES",
    "KDDCUP99_SCHEMA",
    "SKLEARN_BREAST_CANCER_RANGES",
    "SKLEARN_CLASSES",
    "SKLEARN_DIABETES_RANGE",
    "SKLEARN_LABEL_RANGES",
    "SKLEARN_SCHEMAS",
    "SKLEARN_WINE_RANGES",
]

# ------------- Adult: public schema (adult.names) and public numeric ranges

#: The 14 attributes of adult.data / adult.test, in file order (then the label).
_ADULT_COLUMNS: tuple[str, ...] = (
    "age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
    "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week",
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

# ---------- KDD Cup 1999: public schema (kddcup.names, NSL-KDD ARFF header)

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
_KDD_FLAGS = ("land", "logged_in", "root_shell", "su_attempted", "is_host_login", "is_guest_login")
_KDD_CAPS = {
    "count": 511.0,
    "srv_count": 511.0,
    "dst_host_count": 255.0,
    "dst_host_srv_count": 255.0,
}

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
    name: (_RATE if name.endswith("_rate") else _BINARY if name in _KDD_FLAGS
           else (0.0, _KDD_CAPS[name]) if name in _KDD_CAPS else _COUNTER)
    for name in _KDD_COLUMNS if name not in KDDCUP99_CATEGORIES
}

#: Numeric KDD'99 columns scaled by ``log1p(x - lo) / log1p(hi - lo)``
#: instead of linearly (heavy-tailed counts with only a type bound).
KDDCUP99_LOG_SCALED: frozenset[str] = frozenset(
    name for name, rng in KDDCUP99_NUMERIC_RANGES.items() if rng == _COUNTER
)

# --------------------------------------- Breast Cancer Wisconsin (Original)

_BREAST_COLUMNS: tuple[str, ...] = (
    "clump_thickness", "uniformity_of_cell_size", "uniformity_of_cell_shape", "marginal_adhesion",
    "single_epithelial_cell_size", "bare_nuclei", "bland_chromatin", "normal_nucleoli", "mitoses",
)

#: Every feature is documented (breast-cancer-wisconsin.names, Section 7) as 1 - 10;
#: it maps to ``(x - 1) / 9``.
BREAST_CANCER_NUMERIC_RANGES: dict[str, tuple[float, float]] = {
    name: (1.0, 10.0) for name in _BREAST_COLUMNS
}

# --------------------------------------- Datasets bundled with scikit-learn

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

#: scikit-learn's diabetes features, documented as "real, -.2 < x < .2" (the table of
#: ``load_diabetes``'s docstring): each column is mean-centred and scaled to a sum of
#: squares of 1 over the 442 rows (``load_diabetes().DESCR``), so every entry is small. Like
#: the published ranges of breast cancer and wine, the bound summarises these rows (and the
#: scaling itself is a statistic of them); values outside it are clipped by the encoder.
SKLEARN_DIABETES_RANGE: tuple[float, float] = (-0.2, 0.2)

#: Every pixel of scikit-learn's digits is an integer count in [0, 16] by the
#: format (8x8 blocks of 4x4 binary pixels), so this range is public.
DIGITS_PIXEL_RANGE: tuple[float, float] = (0.0, 16.0)

# ----------------- Schemas: the public, per-record encoding of each dataset

#: Adult: 5 numeric (2 log-scaled) + 8 one-hot columns; ``fnlwgt`` dropped.
ADULT_SCHEMA = PublicSchema(
    _ADULT_COLUMNS, ADULT_NUMERIC_RANGES, ADULT_CATEGORIES, ADULT_LOG_SCALED
)
#: KDD Cup 1999: 38 numeric (log-scaled counters) + 3 one-hot columns.
KDDCUP99_SCHEMA = PublicSchema(
    _KDD_COLUMNS, KDDCUP99_NUMERIC_RANGES, KDDCUP99_CATEGORIES, KDDCUP99_LOG_SCALED
)
#: Breast Cancer Wisconsin (original): 9 numeric columns in [1, 10].
BREAST_CANCER_SCHEMA = PublicSchema(_BREAST_COLUMNS, BREAST_CANCER_NUMERIC_RANGES)

#: scikit-learn sets: breast cancer, wine and diabetes centered to [-1/2, 1/2] per column
#: (rows divided by sqrt(d)/2); digits pixels mapped to [0, 1] (rows divided by 8).
SKLEARN_SCHEMAS: dict[str, PublicSchema] = {
    "breast_cancer": PublicSchema.from_ranges(SKLEARN_BREAST_CANCER_RANGES, centered=True),
    "wine": PublicSchema.from_ranges(SKLEARN_WINE_RANGES, centered=True),
    "digits": PublicSchema.from_ranges([DIGITS_PIXEL_RANGE] * 64, prefix="pixel_"),
    "diabetes": PublicSchema.from_ranges([SKLEARN_DIABETES_RANGE] * 10, centered=True),
}

#: Names of the 104 Adult features, in column order (one-hot as ``attr=value``).
ADULT_FEATURE_NAMES: tuple[str, ...] = ADULT_SCHEMA.feature_names
#: Names of the 122 KDD Cup 1999 features, in column order.
KDDCUP99_FEATURE_NAMES: tuple[str, ...] = KDDCUP99_SCHEMA.feature_names
#: Names of the 9 breast-cancer features.
BREAST_CANCER_FEATURE_NAMES: tuple[str, ...] = _BREAST_COLUMNS

# ---- Label sets: public, from the encodings the loaders apply (never np.unique(y))

#: Adult: 0 for income ``<=50K``, 1 for ``>50K``.
ADULT_CLASSES: tuple[int, ...] = (0, 1)
#: KDD Cup 1999 (binary, as CMS Section 7): 0 for normal traffic, 1 for an attack.
KDDCUP99_CLASSES: tuple[int, ...] = (0, 1)
#: Breast Cancer Wisconsin (original): 0 benign (class 2), 1 malignant (class 4).
BREAST_CANCER_CLASSES: tuple[int, ...] = (0, 1)
#: scikit-learn's sets, as its loaders encode the targets (their documented classes).
SKLEARN_CLASSES: dict[str, tuple[int, ...]] = {
    "breast_cancer": (0, 1),
    "wine": (0, 1, 2),
    "digits": tuple(range(10)),
}

#: scikit-learn's regression sets: the public range (lo, hi) of the target, for a
#: regressor's ``label_range``. Diabetes: ``load_diabetes().DESCR`` documents the target
#: as "a quantitative measure of disease progression one year after baseline" and gives no
#: range; the table of ``load_diabetes``'s docstring lists "integer 25 - 346", the extremes
#: of the 442 records themselves (a statistic of the data, not a bound known before it).
#: The range here is a round domain bound for a non-negative progression score that holds
#: those documented values with a margin, (0, 400); labels outside it are clipped by the
#: regressor, so privacy does not rest on it being right.
SKLEARN_LABEL_RANGES: dict[str, tuple[float, float]] = {
    "diabetes": (0.0, 400.0),
}
