"""Bitwise-equality oracle of the released parameters.

``tests/fixtures/release_oracle.npz`` holds the arrays released by every case of
``tests/release_oracle_cases.py``, recorded by ``tests/fixtures/make_release_oracle.py`` from a
clean export of the commit named in ``tests/fixtures/release_oracle_meta.json`` (with the
library versions, BLAS and date). Code that does not mean to change what is released must
reproduce them bit for bit: same noise draws from the same generator in the same order,
same arithmetic, same solver path.

Every case gave bitwise-identical arrays when run twice in one process, in a second
process, in reverse order and with ``OPENBLAS_NUM_THREADS=OMP_NUM_THREADS=1`` on the
recording machine, so no case carries a tolerance. Other machines or library versions may
differ in the last bits (BLAS kernels, solver builds): re-record there from the named
commit rather than loosen the comparison. A deliberate change of released values is
recorded anew, with its reason in CHANGELOG.md.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from release_oracle_cases import cases

DATA = Path(__file__).resolve().parent / "fixtures"
ORACLE = DATA / "release_oracle.npz"
META = DATA / "release_oracle_meta.json"
CASES = cases()


def _load(path: Path) -> dict[str, dict[str, np.ndarray]]:
    out: dict[str, dict[str, np.ndarray]] = {}
    with np.load(path) as z:
        for key in z.files:
            case, name = key.split("/", 1)
            out.setdefault(case, {})[name] = z[key]
    return out


ORACLE_ARRAYS = _load(ORACLE)


def _max_diff(a: np.ndarray, b: np.ndarray) -> str:
    if a.shape != b.shape:
        return f"shape {b.shape} != recorded {a.shape}"
    diff = np.abs(a.astype(float) - b.astype(float))
    scale = max(float(np.max(np.abs(a))), np.finfo(float).tiny) if a.size else 1.0
    return (f"max abs difference {float(np.max(diff)) if diff.size else 0.0:.3e} "
            f"(relative {float(np.max(diff)) / scale if diff.size else 0.0:.3e}), "
            f"{int(np.count_nonzero(diff))}/{diff.size} entries differ")


def test_every_case_is_recorded_and_every_record_has_a_case():
    assert set(CASES) == set(ORACLE_ARRAYS), (
        f"cases without a record: {sorted(set(CASES) - set(ORACLE_ARRAYS))}; records "
        f"without a case: {sorted(set(ORACLE_ARRAYS) - set(CASES))}")


def test_meta_names_a_clean_recording():
    meta = json.loads(META.read_text())
    assert len(meta["commit"]) == 40 and not meta["dirty_files"]
    assert meta["n_cases"] == len(ORACLE_ARRAYS)


def test_cases_cover_every_estimator_path():
    names = " ".join(CASES)
    for fragment in ("logreg-objective-", "logreg-output-", "-amp", "-sparse", "-p1100",
                     "gaussian_objective-", "gaussian_output-", "lincls_", "smoothhinge-",
                     "lmg-K1-", "lmg-K2-nearest", "lmg-K2-dpkmeans", "softmax-", "centroid-",
                     "ngd-", "ovr-", "lmg-auto-", "gridsearch-", "randomsearch-", "pipeline-",
                     "sweep-", "template-"):
        assert fragment in names, fragment


@pytest.mark.parametrize("case", sorted(CASES))
def test_release_matches_oracle(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = CASES[case]()
    recorded = ORACLE_ARRAYS[case]
    assert set(got) == set(recorded), f"{case}: arrays {sorted(got)} != recorded {sorted(recorded)}"
    for k in recorded:
        a, b = recorded[k], np.asarray(got[k])
        assert a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b), (
            f"{case}/{k} is not bitwise equal to the oracle: {_max_diff(a, b)}; dtype "
            f"{b.dtype} vs recorded {a.dtype}. A deliberate change is recorded anew "
            "(tests/fixtures/make_release_oracle.py) with its reason in CHANGELOG.md.")
