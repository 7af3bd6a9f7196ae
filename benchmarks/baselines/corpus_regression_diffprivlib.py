"""diffprivlib's LinearRegression on one regression split of the selection corpus.

This script does NOT import dpconvex: it runs in the diffprivlib environment
(``benchmarks/.venv``; diffprivlib 0.6 does not import with scikit-learn >= 1.8) and is
called by ``benchmarks/corpus_run.py --task regression --diffprivlib`` with one ``.npz``
holding a split's encoded rows (``X_train``, ``y_train``, ``X_test``, ``y_test``), the
encoding's public per-feature range (``lo``, ``hi``, from the schema's constants), the
label's public range (``label_range``), the ε values and the seed.

For each ε: ``diffprivlib.models.LinearRegression(epsilon=ε, bounds_X=(lo, hi),
bounds_y=label_range, random_state=seed)`` with its other defaults (``fit_intercept=True``);
pure ε (δ = 0). diffprivlib perturbs the coefficients of the squared loss's quadratic (the
functional mechanism), with noise that grows with the number of features; a perturbed
quadratic that is not positive definite has no minimum, and the fit then diverges (R² far
below 0): the score is reported as it comes. Test R² and mean absolute error are written as
JSON::

    {"diffprivlib": "0.6.6", "sklearn": "1.7.2", "per_epsilon": {"1": {"r2": ..., "mae": ...}}}

Run (diffprivlib environment)::

    benchmarks/.venv/bin/python benchmarks/baselines/corpus_regression_diffprivlib.py \
        --data split.npz --out result.json
"""

from __future__ import annotations

import argparse
import json
import os
import warnings
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import diffprivlib  # noqa: E402
import numpy as np  # noqa: E402
import sklearn  # noqa: E402
from diffprivlib.models import LinearRegression  # noqa: E402
from sklearn.metrics import mean_absolute_error, r2_score  # noqa: E402


def scores(data: dict[str, np.ndarray]) -> dict[str, dict[str, float]]:
    """ε (as "%g" text) -> test R² and MAE of diffprivlib's LinearRegression on the split."""
    bounds_x = (data["lo"], data["hi"])
    bounds_y = tuple(float(v) for v in data["label_range"])
    out = {}
    for eps in data["epsilons"]:
        model = LinearRegression(epsilon=float(eps), bounds_X=bounds_x, bounds_y=bounds_y,
                                 random_state=int(data["seed"]))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pred = model.fit(data["X_train"], data["y_train"]).predict(data["X_test"])
        out[f"{float(eps):g}"] = {"r2": float(r2_score(data["y_test"], pred)),
                                  "mae": float(mean_absolute_error(data["y_test"], pred))}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True, help="the split's .npz")
    ap.add_argument("--out", type=Path, required=True, help="the JSON file to write")
    args = ap.parse_args()
    with np.load(args.data) as npz:
        data = {k: npz[k] for k in npz.files}
    result = {"diffprivlib": diffprivlib.__version__, "sklearn": sklearn.__version__,
              "per_epsilon": scores(data)}
    args.out.write_text(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
