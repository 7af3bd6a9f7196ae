"""dpconvex benchmarks: native solvers vs diffprivlib and vs CVXPY's generic path.

Usage (from the repository root)::

    benchmarks/setup_env.sh                      # once: benchmarks/.venv with diffprivlib
    python benchmarks/run.py [--quick] [--only adult|large_margin|digits]
                             [--runs R] [--cvxpy-timeout 300]

Every ratio printed is measured in this run, side by side on this machine.
Prints markdown tables for

1. ``adult``: DP logistic regression (objective perturbation, CMS Alg. 1-2) on
   UCI Adult (train ``adult.data``, test ``adult.test``): dpconvex (native
   solver) vs diffprivlib ``LogisticRegression`` vs dpconvex with CVXPY +
   Clarabel, fit time and test accuracy at the same ε, Λ, data and norm bound.
   dpconvex and diffprivlib are fitted alternately in one process and the time
   ratio is taken per pair; also an ε sweep (``dpconvex.epsilon_sweep``) against
   the same fits done one by one.
2. ``large_margin``: the large-margin Gaussian template, C = 2, d = 30, ε = 1
   perturbed objective, n in {500, 2000, 10000, 100000}: native vs CVXPY + SCS
   vs CVXPY + Clarabel, relative objective difference and time ratios. Each
   CVXPY solve runs in a child process killed after ``--cvxpy-timeout`` s; a
   CVXPY run whose time predicted from the smaller n (linear in n) exceeds the
   timeout is skipped and the prediction printed.
3. ``digits``: private large-margin Gaussian on scikit-learn digits (C = 10,
   d = 64), ε = 1, fit time and test accuracy.

and writes ``benchmarks/results/benchmarks.json`` and
``benchmarks/results/scaling.png`` (time vs n, log-log, from part 2).

``--quick``: n in {500, 2000} only, no SCS, fewer repetitions.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import os
import platform
import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
VENV_PY = HERE / ".venv" / "bin" / "python"
DATA_HOME = os.environ.get("DPCONVEX_DATA", "/work/shared/datasets")

# Adult protocol (fixed before any run; not tuned on test data)
ADULT_LAM = 1e-3          # Λ of J(w) = (1/n) Σ ℓ + (Λ/2)||w||² + bᵀw/n
ADULT_EPSILONS = (0.1, 1.0)


# ====================================================================== Adult
def _adult_data() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    from dpconvex.datasets import load_adult

    Xtr, ytr = load_adult("train", data_home=DATA_HOME, download=False)
    Xte, yte = load_adult("test", data_home=DATA_HOME, download=False)
    return Xtr, ytr, Xte, yte


def _augment(X: np.ndarray) -> np.ndarray:
    """[x, 1]: the intercept as a regularized constant feature; ||[x, 1]|| <= sqrt(2)."""
    return np.hstack([X, np.ones((X.shape[0], 1))])


#: The two ways of giving both libraries the same objective and norm bound.
#: "intercept": rows [x, 1] (dpconvex fit_intercept=True, data_norm=1; diffprivlib
#: fit_intercept=False on [x, 1], data_norm=sqrt(2)). "no-intercept": rows x, norm
#: bound 1 for both; there the two calibrations coincide (module docstring of part 1).
ADULT_PROTOCOLS = ("intercept", "no-intercept")


def adult_worker(spec: dict) -> dict:
    """Adult fits of dpconvex and diffprivlib, interleaved in one process.

    For every protocol, ε and seed, one dpconvex fit and one fit of each
    diffprivlib setting run back to back, in an order that alternates with the
    seed, so that load on the machine hits both alike; the ratio is taken per
    pair. Runs in the interpreter that has diffprivlib (benchmarks/.venv);
    without it only the dpconvex rows are measured.

    Same objective: diffprivlib 0.6.6 minimizes
    (1/n) Σ log(1 + exp(-y wᵀx)) + (1/(2 C n)) ||w||² + bᵀw/n (scikit-learn's
    LinearModelLoss with l2_reg_strength = 1/(C n), then its Vector mechanism),
    so C = 1/(Λ n); its own intercept is unregularized, so the intercept is the
    constant column of [x, 1] for both.
    """
    import dpconvex as dp
    from dpconvex.privacy.release import collect_diagnostics  # noqa: F401

    try:
        import diffprivlib
        import sklearn
        from diffprivlib.models import LogisticRegression
    except Exception as exc:  # noqa: BLE001 - any import failure means "not here"
        dpl_error = f"{type(exc).__name__}: {exc}"
        LogisticRegression = None
    warnings.simplefilter("ignore")
    Xtr, ytr, Xte, yte = _adult_data()
    n = Xtr.shape[0]
    C = 1.0 / (spec["lam"] * n)
    out: dict = {"C": C, "rows": [], "pairs": []}
    if LogisticRegression is None:
        out["diffprivlib"] = f"skipped: diffprivlib not importable ({dpl_error})"
    else:
        out["diffprivlib"] = {"version": diffprivlib.__version__, "sklearn": sklearn.__version__}
    dpl_settings = (("default tol=1e-4", 1e-4, 100), ("tol=1e-9", 1e-9, 10_000))
    for protocol in spec["protocols"]:
        icpt = protocol == "intercept"
        A, Ate = (_augment(Xtr), _augment(Xte)) if icpt else (Xtr, Xte)
        q_dpl = math.sqrt(2.0) if icpt else 1.0
        for eps in spec["epsilons"]:
            recs = {name: {"times": [], "accs": []} for name in
                    ["dpconvex native"] + [f"diffprivlib {lab}" for lab, _, _ in dpl_settings]}
            resid = []
            for k, seed in enumerate(spec["seeds"]):
                jobs: list[tuple[str, Any]] = [(
                    "dpconvex native",
                    dp.PrivateLogisticRegression(epsilon=eps, lam=spec["lam"], data_norm=1.0,
                                                 fit_intercept=icpt, random_state=seed))]
                if LogisticRegression is not None:
                    jobs += [(f"diffprivlib {lab}",
                              LogisticRegression(epsilon=eps, data_norm=q_dpl, C=C,
                                                 fit_intercept=False, tol=tol, max_iter=it,
                                                 random_state=seed))
                             for lab, tol, it in dpl_settings]
                if k % 2:
                    jobs.reverse()
                for name, clf in jobs:
                    Xf, Xs = (Xtr, Xte) if name == "dpconvex native" else (A, Ate)
                    t0 = time.perf_counter()
                    with collect_diagnostics() as diag:  # not private: benchmark report only
                        clf.fit(Xf, ytr)
                    recs[name]["times"].append(time.perf_counter() - t0)
                    recs[name]["accs"].append(float(clf.score(Xs, yte)))
                    if name == "dpconvex native":
                        resid.append(float(diag[-1].residual))
            for name, r in recs.items():
                if r["times"]:
                    row = {"protocol": protocol, "epsilon": eps, "label": name, **r}
                    if name == "dpconvex native":
                        row["max_residual"] = max(resid)
                    out["rows"].append(row)
            if LogisticRegression is not None:
                ours = np.array(recs["dpconvex native"]["times"])
                for lab, _, _ in dpl_settings:
                    theirs = np.array(recs[f"diffprivlib {lab}"]["times"])
                    ratio = ours / theirs
                    out["pairs"].append({
                        "protocol": protocol, "epsilon": eps, "versus": f"diffprivlib {lab}",
                        "median_ratio": float(np.median(ratio)),
                        "q25": float(np.quantile(ratio, 0.25)),
                        "q75": float(np.quantile(ratio, 0.75)),
                        "pairs_at_most_half": int(np.sum(ratio <= 0.5)), "n_pairs": len(ratio)})
    if LogisticRegression is not None:
        out["same_noise"] = _same_noise_check(spec, Xtr, ytr, Xte, yte, C)
    # ε sweep vs independent fits (dpconvex only): the template reuse of issue 6, item 3
    sweep_eps = spec["epsilons"]
    seeds = spec["seeds"][: spec["sweep_runs"]]
    for mech in ("objective", "output"):
        est = dp.PrivateLogisticRegression(lam=spec["lam"], data_norm=1.0, mechanism=mech)
        rng = np.random.default_rng(0)
        t0 = time.perf_counter()
        for e in sweep_eps:
            for _ in seeds:
                type(est)(**{**est.get_params(), "epsilon": e, "random_state": rng}).fit(Xtr, ytr)
        t_ind = time.perf_counter() - t0
        sw = dp.epsilon_sweep(est, Xtr, ytr, sweep_eps, runs=len(seeds), random_state=0)
        nfit = len(sweep_eps) * len(seeds)
        out.setdefault("sweep", []).append({
            "mechanism": mech, "fits": nfit, "independent_s": t_ind, "sweep_s": sw.seconds,
            "ratio": sw.seconds / t_ind})
    return out


def _same_noise_check(spec: dict, Xtr, ytr, Xte, yte, C: float) -> list[dict]:
    """Common random numbers: dpconvex's solver on diffprivlib's own noise draw.

    Protocol 'no-intercept' (q = 1), where both calibrations give the same noise
    distribution. diffprivlib 0.6.6's ``Vector`` mechanism draws, from
    ``RandomState(seed)``, a direction ``standard_normal((d, 4)).sum(1) / 2`` and a
    norm ``gamma(d / 4, 2q/ε', 4).sum()``; that draw is reproduced here and the
    dpconvex template is solved with it (same b, same Λ). If the reproduction or the
    objectives differed, the coefficients would not agree. The accuracy difference
    per seed then measures solver and objective differences alone; the spread of
    the independent-noise rows above is the noise draws'.
    """
    from diffprivlib.models import LogisticRegression

    import dpconvex as dp
    from dpconvex.privacy.release import collect_diagnostics  # noqa: F401
    from dpconvex.solvers import solve

    rows = []
    est = dp.PrivateLogisticRegression(lam=spec["lam"], data_norm=1.0, fit_intercept=False)
    prep = est._build(Xtr, ytr)
    classes = prep.meta["classes"]
    d = Xtr.shape[1]
    n = Xtr.shape[0]
    for eps in spec["epsilons"]:
        eps_p = eps - 2.0 * math.log1p(0.25 * C)  # diffprivlib: c q / alpha, alpha = 1/C, q = 1
        coef_diff, acc_diff = [], []
        for seed in spec["seeds"]:
            rng = np.random.RandomState(seed)
            direction = rng.standard_normal((d, 4)).sum(axis=1) / 2
            norm = rng.gamma(d / 4, 2.0 / eps_p, 4).sum()
            b = direction / np.linalg.norm(direction) * norm
            res = solve(prep.template, b, 0.0)
            ref = LogisticRegression(epsilon=eps, data_norm=1.0, C=C, fit_intercept=False,
                                     tol=1e-9, max_iter=10_000, random_state=seed).fit(Xtr, ytr)
            ours = classes[(Xte @ res.x > 0).astype(int)]
            coef_diff.append(float(np.max(np.abs(res.x - ref.coef_.ravel()))))
            acc_diff.append(float(np.mean(ours == yte)) - float(ref.score(Xte, yte)))
        rows.append({"epsilon": eps, "n": n, "max_coef_diff": max(coef_diff),
                     "coef_scale": float(np.max(np.abs(res.x))),
                     "mean_acc_diff": float(np.mean(acc_diff)),
                     "max_abs_acc_diff": float(np.max(np.abs(acc_diff))), "seeds": len(acc_diff)})
    return rows


def _run_adult_worker(spec: dict) -> dict:
    """In-process if diffprivlib imports here, else in benchmarks/.venv (a subprocess)."""
    try:
        import diffprivlib  # noqa: F401

        return adult_worker(spec)
    except Exception:  # noqa: BLE001 - ImportError, or incompatible with this scikit-learn
        pass
    if not VENV_PY.exists():
        out = adult_worker(spec)
        out["diffprivlib"] = ("skipped: diffprivlib not importable here and benchmarks/.venv "
                              "missing (run benchmarks/setup_env.sh)")
        return out
    proc = subprocess.run([str(VENV_PY), str(Path(__file__).resolve()), "--adult-worker",
                           json.dumps(spec)], capture_output=True, text=True, check=False,
                          env={**os.environ, "DPCONVEX_DATA": DATA_HOME})
    if proc.returncode != 0:
        out = adult_worker(spec)
        out["diffprivlib"] = f"skipped: benchmarks/.venv worker failed: {proc.stderr.strip()[-400:]}"
        return out
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    res["interpreter"] = str(VENV_PY)
    return res


def part_adult(runs: int, clarabel_runs: int, sweep_runs: int) -> tuple[str, dict]:
    import dpconvex as dp
    from dpconvex.privacy.release import collect_diagnostics  # noqa: F401

    Xtr, ytr, Xte, yte = _adult_data()
    n, d = Xtr.shape
    seeds = list(range(100, 100 + runs))
    spec = {"lam": ADULT_LAM, "epsilons": list(ADULT_EPSILONS), "seeds": seeds,
            "protocols": list(ADULT_PROTOCOLS), "sweep_runs": sweep_runs}
    rec: dict = {"n_train": n, "n_test": Xte.shape[0], "d": d, "lam": ADULT_LAM,
                 **_run_adult_worker(spec)}
    # CVXPY + Clarabel: 40-100x slower, so fewer runs, in this interpreter, not interleaved
    for protocol in ADULT_PROTOCOLS:
        for eps in ADULT_EPSILONS:
            times, accs = [], []
            for seed in seeds[:clarabel_runs]:
                clf = dp.PrivateLogisticRegression(epsilon=eps, lam=ADULT_LAM, data_norm=1.0,
                                                   fit_intercept=protocol == "intercept",
                                                   solver="clarabel", random_state=seed)
                t0 = time.perf_counter()
                clf.fit(Xtr, ytr)
                times.append(time.perf_counter() - t0)
                accs.append(float(clf.score(Xte, yte)))
            rec["rows"].append({"protocol": protocol, "epsilon": eps,
                                "label": "dpconvex CVXPY+Clarabel", "times": times, "accs": accs})
    nonpriv = {}
    for protocol in ADULT_PROTOCOLS:
        ref = dp.PrivateLogisticRegression(lam=ADULT_LAM, mechanism="none",
                                           fit_intercept=protocol == "intercept")
        nonpriv[protocol] = float(ref.fit(Xtr, ytr).score(Xte, yte))
    rec["non_private_acc"] = nonpriv

    dpl = rec["diffprivlib"]
    lines = [f"### 1. DP logistic regression on Adult (n_train = {n}, n_test = "
             f"{Xte.shape[0]}, d = {d})", "",
             f"Objective perturbation, Λ = {ADULT_LAM:g}, diffprivlib C = 1/(Λ n) = "
             f"{1.0 / (ADULT_LAM * n):.4g}. Fit time = wall clock of fit(). Protocol "
             "'intercept': rows [x, 1], norm bound sqrt(2) for both libraries; 'no-intercept': "
             "rows x, norm bound 1, where both calibrations are the same formula. "
             f"Non-private accuracy (same Λ): {nonpriv}.", ""]
    if isinstance(dpl, str):
        lines.append(f"diffprivlib: {dpl}")
    else:
        lines.append(f"diffprivlib {dpl['version']} (scikit-learn {dpl['sklearn']}) and dpconvex "
                     f"fitted alternately in one process ({rec.get('interpreter', sys.executable)}"
                     "); CVXPY+Clarabel rows in this interpreter, fewer runs.")
    lines += ["", "| protocol | ε | method | runs | fit time (s), median | test accuracy "
              "mean +- std | median time / dpconvex native |", "|---|---|---|---|---|---|---|"]
    for protocol in ADULT_PROTOCOLS:
        for eps in ADULT_EPSILONS:
            rows = [r for r in rec["rows"] if r["protocol"] == protocol and r["epsilon"] == eps]
            base = float(np.median(next(r["times"] for r in rows
                                        if r["label"] == "dpconvex native")))
            for r in rows:
                t = float(np.median(r["times"]))
                lines.append(f"| {protocol} | {eps:g} | {r['label']} | {len(r['times'])} | "
                             f"{t:.3f} | {np.mean(r['accs']):.4f} +- {np.std(r['accs']):.4f} | "
                             f"{t / base:.2f} |")
    if rec["pairs"]:
        lines += ["", "Paired ratios (dpconvex fit time / diffprivlib fit time, per seed, fitted "
                  "back to back):", "", "| protocol | ε | versus | median ratio | IQR | "
                  "pairs <= 0.5 |", "|---|---|---|---|---|---|"]
        for p in rec["pairs"]:
            lines.append(f"| {p['protocol']} | {p['epsilon']:g} | {p['versus']} | "
                         f"{p['median_ratio']:.2f} | {p['q25']:.2f}-{p['q75']:.2f} | "
                         f"{p['pairs_at_most_half']}/{p['n_pairs']} |")
    if rec.get("same_noise"):
        lines += ["", "Same noise draw (protocol no-intercept): dpconvex's solver on diffprivlib's "
                  "own b for each seed, against diffprivlib at tol=1e-9:", "",
                  "| ε | seeds | max coefficient difference (max coefficient) | accuracy "
                  "difference, mean (max abs) |", "|---|---|---|---|"]
        for r in rec["same_noise"]:
            lines.append(f"| {r['epsilon']:g} | {r['seeds']} | {r['max_coef_diff']:.2e} "
                         f"({r['coef_scale']:.3g}) | {r['mean_acc_diff']:+.5f} "
                         f"({r['max_abs_acc_diff']:.5f}) |")
    lines += ["", f"ε sweep over {list(ADULT_EPSILONS)} x {sweep_runs} runs "
              "(`dpconvex.epsilon_sweep`, one template, warm starts) vs the same fits done "
              "independently:", "", "| mechanism | fits | independent (s) | sweep (s) | "
              "sweep / independent |", "|---|---|---|---|---|"]
    for sw in rec["sweep"]:
        lines.append(f"| {sw['mechanism']} | {sw['fits']} | {sw['independent_s']:.2f} | "
                     f"{sw['sweep_s']:.2f} | {sw['ratio']:.2f} |")
    lines.append("")
    return "\n".join(lines), rec


# ============================================================== large margin
def lm_synthetic(n: int, d: int = 30, seed: int = 0):
    """Two Gaussian classes in R^d (rows clipped to norm 1); ε = 1 perturbed objective.

    Returns (template, noise b, extra regularization Δ).
    """
    from dpconvex.noise import norm_gamma
    from dpconvex.templates.large_margin import LargeMarginGaussianTemplate, augment_and_scale
    from dpconvex.verify import verify

    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    scales = np.where(y[:, None] == 0, 0.15, 0.3) * np.ones((n, d))
    X = rng.normal(size=(n, d)) * scales + np.where(y[:, None] == 0, 0.05, -0.05)
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    t = LargeMarginGaussianTemplate(augment_and_scale(X, 1.0), y, n_classes=2, lam=2e-2,
                                    gamma=1e-2)
    _, cal = verify(t, epsilon=1.0, mechanism="objective")
    b = norm_gamma(t.noise_shape, cal.noise_rate, np.random.default_rng(seed + 1),
                   symmetric=True)
    return t, b, cal.extra_strong_convexity


def _cvxpy_child(n: int, solver: str, conn) -> None:
    from dpconvex.solvers import solve

    warnings.simplefilter("ignore")
    t, b, delta = lm_synthetic(n)
    t0 = time.perf_counter()
    r = solve(t, b, delta, solver=solver)
    conn.send((r.objective, r.residual, time.perf_counter() - t0, r.info.get("raw_status")))
    conn.close()


def _run_cvxpy(n: int, solver: str, timeout: float) -> dict:
    # "spawn": a child forked after Clarabel's Rust thread pool ran deadlocks.
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_cvxpy_child, args=(n, solver, child))
    proc.start()
    child.close()
    proc.join(timeout)
    if proc.is_alive():
        proc.terminate()  # only the child started here, by its handle
        proc.join()
        return {"status": "timeout", "seconds": None}
    if parent.poll():
        obj, res, tc, raw = parent.recv()
        return {"status": "ok", "objective": obj, "residual": res, "seconds": tc, "raw": raw}
    return {"status": f"failed (exit code {proc.exitcode})", "seconds": None}


def part_large_margin(ns: tuple[int, ...], solvers: tuple[str, ...],
                      timeout: float) -> tuple[str, dict]:
    from dpconvex.solvers import solve

    rec: dict = {"d": 30, "C": 2, "epsilon": 1.0, "timeout": timeout, "rows": []}
    lines = ["### 2. Large-margin Gaussian, synthetic, d = 30, C = 2, K = 1, λ = γ = 1e-2, "
             "ε = 1 perturbed objective", "",
             "Times are wall clock of dpconvex.solvers.solve (CVXPY: compile + solve, in a child "
             "process). rel. obj = |J_backend − J_native| / |J_native|; residual = natural "
             "residual ||Φ − Π(Φ − ∇J)||_F computed in NumPy for every backend.", "",
             "| n | native (s) | iters | native residual | backend | backend (s) | rel. obj | "
             "backend residual | backend / native |", "|---|---|---|---|---|---|---|---|---|"]
    seen: dict[str, list[tuple[int, float]]] = {s: [] for s in solvers}
    for n in ns:
        t, b, delta = lm_synthetic(n)
        t0 = time.perf_counter()
        nat = solve(t, b, delta, solver="native")
        tn = time.perf_counter() - t0
        row = {"n": n, "native_seconds": tn, "native_iterations": nat.iterations,
               "native_residual": nat.residual, "native_objective": nat.objective,
               "native_status": nat.status.name, "backends": {}}
        head = f"| {n} | {tn:.2f} | {nat.iterations} | {nat.residual:.1e} |"
        for s in solvers:
            pts = seen[s]
            pred = None
            if pts:  # linear-in-n prediction from the largest n that ran
                n0, t_0 = pts[-1]
                pred = t_0 * n / n0
            if pred is not None and pred > timeout:
                r = {"status": "skipped (predicted)", "predicted_seconds": pred, "seconds": None}
                cell = (f" {s} | skipped: predicted {pred:.0f} s > {timeout:g} s | - | - | "
                        f"> {timeout / tn:.0f} (pred. {pred / tn:.0f}) |")
            else:
                r = _run_cvxpy(n, s, timeout)
                if r["status"] == "ok":
                    pts.append((n, r["seconds"]))
                    rel = abs(r["objective"] - nat.objective) / abs(nat.objective)
                    r["rel_objective_diff"] = rel
                    cell = (f" {s} ({r['raw']}) | {r['seconds']:.1f} | {rel:.1e} | "
                            f"{r['residual']:.1e} | {r['seconds'] / tn:.0f} |")
                elif r["status"] == "timeout":
                    cell = f" {s} | timeout (> {timeout:g} s) | - | - | > {timeout / tn:.0f} |"
                else:
                    cell = f" {s} | {r['status']} | - | - | - |"
            row["backends"][s] = r
            lines.append(head + cell)
            print(lines[-1], file=sys.stderr, flush=True)
        if not solvers:
            lines.append(head + " - | - | - | - | - |")
        rec["rows"].append(row)
    lines.append("")
    return "\n".join(lines), rec


# ==================================================================== digits
def part_digits(runs: int) -> tuple[str, dict]:
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    import dpconvex as dp
    from dpconvex.privacy.release import collect_diagnostics  # noqa: F401

    X, y = load_digits(return_X_y=True)
    X = X / 16.0 / 8.0  # public pixel range [0, 16]: ||x/16|| <= 8, so rows have norm <= 1
    times, accs, iters, solvers, resid = [], [], [], [], []
    for run in range(runs):
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, stratify=y, random_state=run)
        est = dp.PrivateLargeMarginGaussian(epsilon=1.0, random_state=77 + run)
        t0 = time.perf_counter()
        with collect_diagnostics() as diag:  # not private: benchmark report only
            est.fit(Xtr, ytr)
        times.append(time.perf_counter() - t0)
        accs.append(float(est.score(Xte, yte)))
        iters.append(int(diag[-1].iterations))
        solvers.append(diag[-1].solver)
        resid.append(float(diag[-1].residual))
    rec = {"n_train": len(ytr), "d": 64, "C": 10, "epsilon": 1.0, "times": times, "accs": accs,
           "iterations": iters, "solver": solvers[0], "max_residual": max(resid)}
    lines = ["### 3. digits, private large-margin Gaussian (C = 10, d = 64, K = 1, ε = 1, "
             "λ = γ = 1e-2 defaults)", "",
             "| n_train | runs | solver | fit time (s) median [max] | iterations | max residual "
             "| test accuracy mean +- std |", "|---|---|---|---|---|---|---|",
             f"| {len(ytr)} | {runs} | {solvers[0]} | {np.median(times):.2f} [{max(times):.2f}] | "
             f"{int(np.median(iters))} | {max(resid):.1e} | {np.mean(accs):.3f} +- "
             f"{np.std(accs):.3f} |", ""]
    return "\n".join(lines), rec


# ====================================================================== plot
def scaling_plot(lm: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4.2))
    ns = [r["n"] for r in lm["rows"]]
    ax.loglog(ns, [r["native_seconds"] for r in lm["rows"]], "o-", label="dpconvex native")
    for s, mk in (("scs", "s--"), ("clarabel", "^--")):
        pts = [(r["n"], r["backends"][s]["seconds"]) for r in lm["rows"]
               if s in r["backends"] and r["backends"][s].get("seconds")]
        if pts:
            ax.loglog(*zip(*pts, strict=True), mk, label=f"CVXPY + {s}")
    ax.set_xlabel("n (records)")
    ax.set_ylabel("solve time (s)")
    ax.set_title("Large-margin Gaussian, d = 30, C = 2, ε = 1")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


# ====================================================================== main
def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true",
                    help="n in {500, 2000}, no SCS, fewer repetitions")
    ap.add_argument("--only", choices=["adult", "large_margin", "digits"], default=None)
    ap.add_argument("--runs", type=int, default=None, help="seeds for Adult (default 20, quick 4)")
    ap.add_argument("--cvxpy-timeout", type=float, default=300.0)
    ap.add_argument("--adult-worker", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.adult_worker is not None:
        print(json.dumps(adult_worker(json.loads(args.adult_worker))))
        return
    warnings.simplefilter("ignore", category=UserWarning)
    import dpconvex as dp
    from dpconvex.privacy.release import collect_diagnostics  # noqa: F401

    RESULTS.mkdir(parents=True, exist_ok=True)
    adult_runs = args.runs or (4 if args.quick else 20)
    out: dict = {"dpconvex": dp.__version__, "python": platform.python_version(),
                 "cpus": os.cpu_count(), "quick": args.quick, "started": time.ctime()}
    print(f"dpconvex {dp.__version__}, Python {out['python']}, {out['cpus']} CPUs, "
          f"{'quick' if args.quick else 'full'} run, {out['started']}\n", flush=True)
    if args.only in (None, "adult"):
        text, out["adult"] = part_adult(adult_runs, 1 if args.quick else 2,
                                        2 if args.quick else 5)
        print(text, flush=True)
    if args.only in (None, "large_margin"):
        ns = (500, 2000) if args.quick else (500, 2000, 10_000, 100_000)
        solvers = ("clarabel",) if args.quick else ("scs", "clarabel")
        text, out["large_margin"] = part_large_margin(ns, solvers, args.cvxpy_timeout)
        print(text, flush=True)
        scaling_plot(out["large_margin"], RESULTS / "scaling.png")
        print(f"wrote {RESULTS / 'scaling.png'}", flush=True)
    if args.only in (None, "digits"):
        text, out["digits"] = part_digits(1 if args.quick else 3)
        print(text, flush=True)
    name = "benchmarks" + ("-quick" if args.quick else "") + (f"-{args.only}" if args.only else "")
    (RESULTS / f"{name}.json").write_text(json.dumps(out, indent=1, default=str))
    print(f"wrote {RESULTS / (name + '.json')}")


if __name__ == "__main__":
    main()
