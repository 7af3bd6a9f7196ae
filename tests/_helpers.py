"""Shared test helpers."""

from __future__ import annotations

import ast
import functools
import gc
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import dpconvex as dp

# Three records from adult.data (public UCI data), for building small files.
ADULT_LINES = [
    "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, "
    "White, Male, 2174, 0, 40, United-States, <=50K",
    "50, Self-emp-not-inc, 83311, Bachelors, 13, Married-civ-spouse, Exec-managerial, "
    "Husband, White, Male, 0, 0, 13, United-States, <=50K",
    "52, Self-emp-inc, 287927, HS-grad, 9, Married-civ-spouse, Exec-managerial, Wife, "
    "White, Female, 15024, 0, 40, United-States, >50K",
]
# Two records from kddcup.data_10_percent (one normal, one attack).
KDD_LINES = [
    "0,tcp,http,SF,181,5450,0,0,0,0,0,1,0,0,0,0,0,0,0,0,0,0,8,8,0.00,0.00,0.00,0.00,"
    "1.00,0.00,0.00,9,9,1.00,0.00,0.11,0.00,0.00,0.00,0.00,0.00,normal.",
    "0,icmp,ecr_i,SF,1032,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,511,511,0.00,0.00,0.00,0.00,"
    "1.00,0.00,0.00,255,255,1.00,0.00,1.00,0.00,0.00,0.00,0.00,0.00,smurf.",
]


@functools.cache
def syntax_nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of a source file's syntax tree, the module first, parsed and walked once per
    test process: the tests that read the package's code share them (and must not change them).

    The cyclic collector is paused while the tree is built: a syntax tree holds no reference
    cycles, so its passes over the thousands of nodes being made would free nothing."""
    source = Path(path).read_text(encoding="utf-8")
    collecting = gc.isenabled()
    gc.disable()
    try:
        return tuple(ast.walk(ast.parse(source)))
    finally:
        if collecting:
            gc.enable()


def patch_noise(monkeypatch, fn):
    """Draw every :class:`~dpconvex.privacy.noise.NormGamma` law's noise (the one way a
    mechanism draws norm-Gamma noise) with ``fn(shape, beta, rng, symmetric=...)``, one call
    per row for a law on rows; return the real draw, with the same signature."""
    import numpy as np

    from dpconvex.privacy import noise

    law_sample = noise.NormGamma.sample

    def sample(law, shape, rng):
        if law.rows:
            k = int(np.prod(shape[1:]))
            return np.stack([fn((k,), law.rate, rng) for _ in range(shape[0])]).reshape(shape)
        return fn(tuple(shape), law.rate, rng, symmetric=law.symmetric)

    def real(shape, beta, rng, symmetric=False):
        return law_sample(noise.NormGamma(beta, symmetric=symmetric), shape, rng)

    monkeypatch.setattr(noise.NormGamma, "sample", sample)
    return real


def loopback_client(preload: str):
    """A 2-process Dask LocalCluster on loopback and its Client (a generator for fixtures).

    One retry per task (a task whose worker dies twice fails with KilledWorker quickly);
    ``preload`` is imported once on every worker, up front.
    """
    import dask
    import distributed

    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                           host="127.0.0.1", dashboard_address=None)
    c = distributed.Client(cluster)
    c.run(lambda: __import__(preload))
    yield c
    c.close()
    cluster.close()


def fit_drawing_from(est, rng, *args):
    """``est.fit(*args)`` with its noise drawn from the generator ``rng`` (several fits share
    one stream in order). The generator is handed to the fit, never stored on the model."""
    from dpconvex._validation import NoiseSource
    from dpconvex.estimators.base import NO_CONTEXT, fit_with

    return fit_with(est, *args, NO_CONTEXT, [(est, NoiseSource(rng, seeded=True))])


def release_template(template, *, epsilon, mechanism, solver, random_state=None, delta=0.0):
    """One template-level release (verify, calibrate, draw, solve, check) with keyword options.

    Returns ``(theta, certificate, diagnostics)``: the release of
    :func:`dpconvex.privacy.release.release` and the last solve :func:`dpconvex.collect_diagnostics`
    recorded for it (None where the mechanism solves nothing).
    """
    import math

    import numpy as np

    from dpconvex.errors import collect_diagnostics
    from dpconvex.privacy.budget import Budget
    from dpconvex.privacy.mechanisms import build_mechanism
    from dpconvex.privacy.release import release

    mech = build_mechanism(mechanism, "release_template", None)
    budget = Budget(float(epsilon), float(delta)) if mech.private else Budget(math.inf)
    with collect_diagnostics() as diag:
        rel = release(template, mech, budget, solver, np.random.default_rng(random_state))
    return rel.theta, rel.certificate, (diag[-1] if len(diag) else None)


def traced_peak(fn: Callable[[], Any]) -> tuple[Any, int]:
    """``fn()`` and the most memory it held at once (bytes, ``tracemalloc``, which NumPy
    reports its buffers to); what existed before the call is not counted."""
    tracemalloc.start()
    try:
        out = fn()
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def certificate_facts(certificate: Any, name: str) -> list[Any]:
    """The values of the field ``name`` (``label_source``, ``row_map``, ...) that a certificate
    and its parts state, depth first (a composed certificate states them in its parts)."""
    out = [] if getattr(certificate, name) in (None, False) else [getattr(certificate, name)]
    for part in certificate.parts:
        out += certificate_facts(part, name)
    return out


#: What :func:`placeholder_plot` writes in place of a drawn plot (fewer than 1000 bytes).
PLACEHOLDER_PNG = b"a placeholder for the plot"


def placeholder_plot(monkeypatch: Any) -> None:
    """Every plot that ``dpconvex.runs`` writes (``write_outputs``, ``plot_result``) becomes
    :data:`PLACEHOLDER_PNG`: for tests whose claim is not the drawing (files, folders,
    messages, exit codes); the drawing is checked where a test asks for the drawn plot."""
    from dpconvex.runs import report

    def write(result: Any, target: Any) -> None:
        if hasattr(target, "write"):
            target.write(PLACEHOLDER_PNG)
        else:
            Path(target).write_bytes(PLACEHOLDER_PNG)

    monkeypatch.setattr(report, "_save_png", write)


def unit_rows(n: int = 40, p: int = 3, seed: int = 0):
    """n rows of norm <= 1 and labels -1, 1 in turn (the small problem the plan tests share)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))  # rows of norm <= 1
    return X, np.where(np.arange(n) % 2 == 0, -1, 1)


def binary_lm(**params):
    """The large-margin classifier on labels -1, 1, seeded."""
    return dp.PrivateLargeMarginGaussian(classes=[-1, 1], random_state=0, **params)


def binary_logistic(**params):
    """Logistic regression on labels -1, 1, seeded."""
    return dp.PrivateLogisticRegression(classes=[-1, 1], random_state=0, **params)


def unit_regressor(**params):
    """A linear regressor on labels in [-1, 1] with a given centre, seeded."""
    return dp.PrivateLinearRegressor(label_range=(-1, 1), label_center=0.0, random_state=0,
                                     **params)


def binary_gd(**params):
    """Noisy gradient descent on labels -1, 1, five steps, seeded."""
    return dp.NoisyGradientDescent(classes=[-1, 1], steps=5, random_state=0, **params)


def binary_nb(**params):
    """Naive Bayes on labels -1, 1 with features in [-1, 1], seeded."""
    params.setdefault("feature_range", (-1, 1))
    return dp.PrivateGaussianNB(classes=[-1, 1], random_state=0, **params)
