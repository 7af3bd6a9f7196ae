"""Dump the exact arrays and splits of dpconvex's experiments for the diffprivlib baselines.

Runs in the **dpconvex** environment (it imports ``dpconvex.datasets``) and writes one
``.npz`` per dataset under ``--out`` (default ``/tmp/baseline_data``), which
``diffprivlib_baselines.py`` then loads in a *separate* environment holding diffprivlib
0.6.6 (no dpconvex import there). Dumping guarantees that both libraries see the same
numbers: same public-range encoding, same rows, same splits.

What is dumped (all encodings are dpconvex's loaders, unchanged):

* ``adult.npz``: ``load_adult("train")`` -> ``load_adult("test")`` (30,162 / 15,060 rows,
  104 features, rows divided by the public constant sqrt(13)).
* ``kddcup99.npz``: ``load_kddcup99(n_samples=70000, random_state=1999)``, first 50,000
  rows train, last 20,000 test (as ``benchmarks/only_epsilon_defaults.py`` and
  ``benchmarks/lam_rule_validation.py``).
* ``wine.npz``, ``digits.npz``: ``load_sklearn(name)``; splits s = 0..4 are
  ``train_test_split(idx, test_size=0.3, stratify=y, random_state=s)`` (as
  ``benchmarks/centroids_accuracy.py``).
* ``breast_cancer_wisconsin.npz``: ``load_breast_cancer_wisconsin()`` (683 rows); splits
  s = 0..4 are ``train_test_split(idx, train_size=583, test_size=100, random_state=s)``.

Every loader is called with ``row_norm="none"`` where it has that option, so the dumped
rows are the public-range encoding divided by the public constant only; the per-record
map ``row_norm="unit"`` (x / ||x||) is applied by ``diffprivlib_baselines.py`` as a
labelled variant.

Each file also holds ``lo`` / ``hi``: the public per-feature range of the encoding
(numeric features in [0, 1] or, for centered schemas, [-1/2, 1/2]; one-hot columns in
[0, 1]; everything divided by the schema's public row divisor). They come from the
schema constants only, never from the data; they are the ``bounds`` given to
diffprivlib's GaussianNB.

Run::

    DPCONVEX_DATA=/work/shared/datasets /work/main/.venv/bin/python \
        benchmarks/baselines/dump_data.py --out /tmp/baseline_data
"""

from __future__ import annotations

import argparse
import inspect
import json
import subprocess
from pathlib import Path

import numpy as np
from sklearn.model_selection import train_test_split

from dpconvex import PublicSchema
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

N_SPLITS = 5


def public_bounds(schema: PublicSchema) -> tuple[np.ndarray, np.ndarray]:
    """Per-feature public range of an encoded row, from the schema constants only."""
    lo, hi = [], []
    num_lo, num_hi = (-0.5, 0.5) if schema.centered else (0.0, 1.0)
    for col in schema.features:
        if col in schema.numeric:
            lo.append(num_lo)
            hi.append(num_hi)
        else:
            k = len(schema.categories[col])
            lo.extend([0.0] * k)
            hi.extend([1.0] * k)
    d = schema.divisor
    return np.asarray(lo) / d, np.asarray(hi) / d


def raw_rows(loader, *args, **kwargs):
    """Call a loader with ``row_norm="none"`` (public divisor only) where it has that option."""
    if "row_norm" in inspect.signature(loader).parameters:
        kwargs["row_norm"] = "none"
    return loader(*args, **kwargs)


def check(X: np.ndarray, lo: np.ndarray, hi: np.ndarray, name: str) -> None:
    assert X.shape[1] == lo.size, (name, X.shape, lo.size)
    tol = 1e-12
    assert np.all(X >= lo - tol) and np.all(X <= hi + tol), f"{name}: value outside public range"
    assert np.linalg.norm(X, axis=1).max() <= 1 + 1e-12, f"{name}: row norm above 1"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="/tmp/baseline_data")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    lo, hi = public_bounds(ADULT_SCHEMA)
    Xa, ya = raw_rows(load_adult, "train")
    Xt, yt = raw_rows(load_adult, "test")
    check(Xa, lo, hi, "adult")
    np.savez_compressed(out / "adult.npz", X_train=Xa, y_train=ya, X_test=Xt, y_test=yt,
                        lo=lo, hi=hi)

    lo, hi = public_bounds(KDDCUP99_SCHEMA)
    Xk, yk = raw_rows(load_kddcup99, n_samples=70000, random_state=1999)
    check(Xk, lo, hi, "kddcup99")
    np.savez_compressed(out / "kddcup99.npz", X_train=Xk[:50000], y_train=yk[:50000],
                        X_test=Xk[50000:], y_test=yk[50000:], lo=lo, hi=hi)

    small = {
        "wine": (raw_rows(load_sklearn, "wine"), SKLEARN_SCHEMAS["wine"]),
        "digits": (raw_rows(load_sklearn, "digits"), SKLEARN_SCHEMAS["digits"]),
        "breast_cancer_wisconsin": (raw_rows(load_breast_cancer_wisconsin), BREAST_CANCER_SCHEMA),
    }
    for name, ((X, y), schema) in small.items():
        lo, hi = public_bounds(schema)
        check(X, lo, hi, name)
        idx = np.arange(y.size)
        arrays: dict[str, np.ndarray] = {"X": X, "y": y, "lo": lo, "hi": hi}
        for s in range(N_SPLITS):
            if name == "breast_cancer_wisconsin":
                tr, te = train_test_split(idx, train_size=583, test_size=100, random_state=s)
            else:
                tr, te = train_test_split(idx, test_size=0.3, stratify=y, random_state=s)
            arrays[f"train_{s}"], arrays[f"test_{s}"] = tr, te
        np.savez_compressed(out / f"{name}.npz", **arrays)

    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                                cwd=Path(__file__).resolve().parent, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    import sklearn

    meta = {"dpconvex_commit": commit, "numpy": np.__version__, "sklearn": sklearn.__version__}
    (out / "meta.json").write_text(json.dumps(meta, indent=1))
    print(f"wrote {sorted(p.name for p in out.iterdir())} to {out}: {meta}")


if __name__ == "__main__":
    main()
