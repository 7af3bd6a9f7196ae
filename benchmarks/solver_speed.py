"""dpconvex benchmarks: native solvers vs diffprivlib and vs CVXPY's generic path.

Usage (from the repository root)::

    benchmarks/setup_env.sh                      # once: benchmarks/.venv with diffprivlib
    python benchmarks/solver_speed.py [--quick] [--only adult|large_margin|digits]
                             [--runs R] [--cvxpy-timeout 300]
                             [--n 2000] [--solvers scs] [--native-runs 5]

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
   d = 64), ε = 1, fit time and test accuracy, next to the non-private fit of the
   same estimator (time ratio) and the majority class.

and writes ``benchmarks/results/solver_speed[-quick].json`` / ``.md`` and
``benchmarks/results/scaling.png`` (time vs n, log-log, from part 2).

``--quick`` (a smoke run, not a measurement): Adult on the harness's 1,500-row subsample
with 2 seeds, n = 500 only with Clarabel, digits on 300 training rows.
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

import harness  # benchmarks/ is the script's folder, first on sys.path
import numpy as np

HERE = Path(__file__).resolve().parent
VENV_PY = HERE / ".venv" / "bin" / "python"

# Adult protocol (fixed before any run; not tuned on test data)
ADULT_LAM = 1e-3          # Λ of J(w) = (1/n) Σ ℓ + (Λ/2)||w||² + bᵀw/n
ADULT_EPSILONS = (0.1, 1.0)
#: training rows of the digits part in --quick mode
QUICK_DIGITS_ROWS = 300
#: native large-margin solves per n (each on a template built anew); the median is reported
NATIVE_RUNS = 5


# ====================================================================== Adult
def _adult_data(quick: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """adult.data → adult.test (the harness's split; its subsample with ``quick``)."""
    return tuple(harness.load("adult", quick=quick)[1:])


def _augment(X: np.ndarray) -> np.ndarray:
    """[x, 1]: the intercept as a regularized constant feature; ||[x, 1]|| <= sqrt(2)."""
    return np.hstack([X, np.ones((X.shape[0], 1))])


#: The two ways of giving both libraries the same objective and norm bound.
#: "intercept": rows [x, 1] (dpconvex fit_intercept=True, data_norm=1; diffprivlib
#: fit_intercept=False on [x, 1], data_norm=sqrt(2)). "no-intercept": rows x, norm
#: bound 1 for both (each library calibrates by its own formula; see part_adult).
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
    from dpconvex._validation import NoiseSource
    from dpconvex.errors import collect_diagnostics  # noqa: F401
    from dpconvex.estimators.base import NO_CONTEXT, fit_with

    try:
        import diffprivlib
        import sklearn
        from diffprivlib.models import LogisticRegression
    except Exception as exc:  # noqa: BLE001 - any import failure means "not here"
        dpl_error = f"{type(exc).__name__}: {exc}"
        LogisticRegression = None
    warnings.simplefilter("ignore")
    Xtr, ytr, Xte, yte = _adult_data(spec.get("quick", False))
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
    # ε sweep vs independent fits (dpconvex only): one template reused
    sweep_eps = spec["epsilons"]
    seeds = spec["seeds"][: spec["sweep_runs"]]
    for mech in ("objective", "output"):
        est = dp.PrivateLogisticRegression(lam=spec["lam"], data_norm=1.0, mechanism=mech)
        rng = np.random.default_rng(0)
        t0 = time.perf_counter()
        for e in sweep_eps:
            for _ in seeds:
                m = type(est)(**{**est.get_params(), "epsilon": e})
                # one seeded stream, handed to the fit, not kept on m
                fit_with(m, Xtr, ytr, NO_CONTEXT, [(m, NoiseSource(rng, seeded=True))])
        t_ind = time.perf_counter() - t0
        t0 = time.perf_counter()
        dp.epsilon_sweep(est, Xtr, ytr, sweep_eps, runs=len(seeds), random_state=0)
        t_sweep = time.perf_counter() - t0
        nfit = len(sweep_eps) * len(seeds)
        out.setdefault("sweep", []).append({
            "mechanism": mech, "fits": nfit, "independent_s": t_ind, "sweep_s": t_sweep,
            "ratio": t_sweep / t_ind})
    return out


def _same_noise_check(spec: dict, Xtr, ytr, Xte, yte, C: float) -> list[dict]:
    """Common random numbers: dpconvex's solver on diffprivlib's own noise draw.

    Protocol 'no-intercept' (q = 1). diffprivlib 0.6.6's ``Vector`` mechanism draws, from
    ``RandomState(seed)``, a direction ``standard_normal((d, 4)).sum(1) / 2`` and a
    norm ``gamma(d / 4, 2q/ε', 4).sum()``; that draw is reproduced here and the
    dpconvex template is solved with it (same b, same Λ). If the reproduction or the
    objectives differed, the coefficients would not agree. The accuracy difference
    per seed then measures solver and objective differences alone; the spread of
    the independent-noise rows above is the noise draws'.
    """
    from diffprivlib.models import LogisticRegression

    import dpconvex as dp
    from dpconvex.errors import collect_diagnostics  # noqa: F401
    from dpconvex.solvers import solve

    rows = []
    est = dp.PrivateLogisticRegression(lam=spec["lam"], data_norm=1.0, fit_intercept=False)
    prep = est.prepare(Xtr, ytr, est.plan_for(Xtr, ytr))
    classes = prep.labels.classes
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
                           json.dumps(spec)], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        out = adult_worker(spec)
        out["diffprivlib"] = f"skipped: benchmarks/.venv worker failed: {proc.stderr.strip()[-400:]}"
        return out
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    res["interpreter"] = str(VENV_PY)
    return res


def part_adult(run: harness.Run, runs: int, clarabel_runs: int, sweep_runs: int,
               quick: bool = False) -> dict:
    import dpconvex as dp

    Xtr, ytr, Xte, yte = _adult_data(quick)
    n, d = Xtr.shape
    seeds = list(range(100, 100 + runs))
    spec = {"lam": ADULT_LAM, "epsilons": list(ADULT_EPSILONS), "seeds": seeds,
            "protocols": list(ADULT_PROTOCOLS), "sweep_runs": sweep_runs, "quick": quick}
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
    eps_dpl = {e: e - 2.0 * math.log1p(0.25 / (ADULT_LAM * n)) for e in ADULT_EPSILONS}
    eps_ours = {e: e - math.log1p(0.25 / (ADULT_LAM * n)) for e in ADULT_EPSILONS}
    run.note(f"Objective perturbation, Λ = {ADULT_LAM:g}, diffprivlib C = 1/(Λ n) = "
             f"{1.0 / (ADULT_LAM * n):.4g}. Fit time = wall clock of fit(). Protocol "
             "'intercept': rows [x, 1], norm bound sqrt(2) for both libraries; 'no-intercept': "
             "rows x, norm bound 1. Each library calibrates by its own formula: at norm bound 1, "
             "dpconvex ε′ = ε − log(1 + c/(nΛ)) (one-sided Jacobian slack, "
             "docs/privacy/perturbation.md#privacy-jacobian-slack) = "
             + ", ".join(f"{eps_ours[e]:.4f}" for e in ADULT_EPSILONS)
             + "; diffprivlib ε′ = ε − 2 log(1 + c/(nΛ)) = "
             + ", ".join(f"{eps_dpl[e]:.4f}" for e in ADULT_EPSILONS)
             + f" at ε = {', '.join(f'{e:g}' for e in ADULT_EPSILONS)}: diffprivlib adds more noise "
             "(the samplers alone, at one rate: benchmarks/against_diffprivlib.py).")
    if isinstance(dpl, str):
        run.note(f"diffprivlib: {dpl}")
    else:
        run.note(f"diffprivlib {dpl['version']} (scikit-learn {dpl['sklearn']}) and dpconvex "
                 f"fitted alternately in one process ({rec.get('interpreter', sys.executable)}"
                 "); CVXPY+Clarabel rows in this interpreter, fewer runs.")
    table = harness.Table(f"DP logistic regression on Adult (n_train = {n}, n_test = {Xte.shape[0]}, "
                          f"d = {d})", ["protocol", "ε", "method", "runs", "fit time (s), median",
                                        "test accuracy", "time ratio to dpconvex native"], kind="speed")
    for protocol in ADULT_PROTOCOLS:
        for eps in ADULT_EPSILONS:
            rows = [r for r in rec["rows"] if r["protocol"] == protocol and r["epsilon"] == eps]
            base = float(np.median(next(r["times"] for r in rows
                                        if r["label"] == "dpconvex native")))
            for r in rows:
                t = float(np.median(r["times"]))
                table.add(protocol, f"{eps:g}", r["label"], len(r["times"]), f"{t:.3f}", r["accs"],
                          f"{t / base:.2f}")
        table.add(protocol, "—", f"{harness.NON_PRIVATE} (dpconvex, same Λ)", 1, "—",
                  nonpriv[protocol], "—")
    table.add("—", "—", harness.MAJORITY, "—", "—", 1.0 - harness.majority_error(ytr, yte), "—")
    run.table(table)
    if rec["pairs"]:
        pairs = harness.Table("Paired ratios (dpconvex fit time / diffprivlib fit time, per seed, "
                              "fitted back to back)", ["protocol", "ε", "versus", "median ratio", "IQR",
                                                       "pairs <= 0.5"], kind="speed")
        for p in rec["pairs"]:
            pairs.add(p["protocol"], f"{p['epsilon']:g}", p["versus"], f"{p['median_ratio']:.2f}",
                      f"{p['q25']:.2f}-{p['q75']:.2f}", f"{p['pairs_at_most_half']}/{p['n_pairs']}")
        run.table(pairs)
    if rec.get("same_noise"):
        lines = ["Same noise draw (protocol no-intercept): dpconvex's solver on diffprivlib's "
                 "own b for each seed, against diffprivlib at tol=1e-9:", "",
                 "| ε | seeds | max coefficient difference (max coefficient) | accuracy "
                 "difference, mean (max abs) |", "|---|---|---|---|"]
        for r in rec["same_noise"]:
            lines.append(f"| {r['epsilon']:g} | {r['seeds']} | {r['max_coef_diff']:.2e} "
                         f"({r['coef_scale']:.3g}) | {r['mean_acc_diff']:+.5f} "
                         f"({r['max_abs_acc_diff']:.5f}) |")
        run.note("\n".join(lines))
    sweep = harness.Table(f"ε sweep over {list(ADULT_EPSILONS)} x {sweep_runs} runs "
                          "(`dpconvex.epsilon_sweep`, one template, warm starts) vs the same fits done "
                          "independently", ["mechanism", "fits", "independent (s)", "sweep (s)",
                                            "ratio sweep / independent"], kind="speed")
    for sw in rec["sweep"]:
        sweep.add(sw["mechanism"], sw["fits"], f"{sw['independent_s']:.2f}", f"{sw['sweep_s']:.2f}",
                  f"{sw['ratio']:.2f}")
    run.table(sweep)
    return rec


# ============================================================== large margin
def lm_synthetic(n: int, d: int = 30, seed: int = 0):
    """Two Gaussian classes in R^d (rows clipped to norm 1); ε = 1 perturbed objective.

    Returns (template, noise b, extra regularization Δ).
    """
    from dpconvex.privacy.noise import norm_gamma
    from dpconvex.privacy.verify import verify
    from dpconvex.templates.large_margin import LargeMarginGaussianTemplate, augment_and_scale

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


def _native_solves(n: int, runs: int) -> tuple[float, list[float], Any]:
    """Median wall clock of ``runs`` native solves, each on a template built anew (no cached
    state carries over), their times, and the last result."""
    from dpconvex.solvers import solve

    times, nat = [], None
    for _ in range(max(1, runs)):
        t, b, delta = lm_synthetic(n)
        t0 = time.perf_counter()
        nat = solve(t, b, delta, solver="native")
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), times, nat


def part_large_margin(run: harness.Run, ns: tuple[int, ...], solvers: tuple[str, ...],
                      timeout: float, native_runs: int = NATIVE_RUNS) -> dict:
    rec: dict = {"d": 30, "C": 2, "epsilon": 1.0, "timeout": timeout, "rows": []}
    table = harness.Table("Large-margin Gaussian, synthetic, d = 30, C = 2, K = 1, λ = γ = 1e-2, "
                          "ε = 1 perturbed objective",
                          ["n", "native (s)", "iters", "native residual", "backend", "backend (s)",
                           "rel. obj", "backend residual", "time ratio backend / native"], kind="speed")
    table.notes.append(f"Times are wall clock of dpconvex.solvers.solve (native: the median of "
                       f"{native_runs} solves, each on a template built anew; CVXPY: compile + solve, "
                       "once, in a child process). rel. obj = |J_backend − J_native| / |J_native|; "
                       "residual = natural residual ||Φ − Π(Φ − ∇J)||_F computed in NumPy for every backend.")
    seen: dict[str, list[tuple[int, float]]] = {s: [] for s in solvers}
    for n in ns:
        tn, native_times, nat = _native_solves(n, native_runs)
        row = {"n": n, "native_seconds": tn, "native_times": native_times,
               "native_iterations": nat.iterations,
               "native_residual": nat.residual, "native_objective": nat.objective,
               "native_status": nat.status.name, "backends": {}}
        head = [n, f"{tn:.2f}", nat.iterations, f"{nat.residual:.1e}"]
        for s in solvers:
            pts = seen[s]
            pred = None
            if pts:  # linear-in-n prediction from the largest n that ran
                n0, t_0 = pts[-1]
                pred = t_0 * n / n0
            if pred is not None and pred > timeout:
                r = {"status": "skipped (predicted)", "predicted_seconds": pred, "seconds": None}
                cell = [s, f"skipped: predicted {pred:.0f} s > {timeout:g} s", "-", "-",
                        f"> {timeout / tn:.0f} (pred. {pred / tn:.0f})"]
            else:
                r = _run_cvxpy(n, s, timeout)
                if r["status"] == "ok":
                    pts.append((n, r["seconds"]))
                    rel = abs(r["objective"] - nat.objective) / abs(nat.objective)
                    r["rel_objective_diff"] = rel
                    cell = [f"{s} ({r['raw']})", f"{r['seconds']:.1f}", f"{rel:.1e}",
                            f"{r['residual']:.1e}", f"{r['seconds'] / tn:.0f}"]
                elif r["status"] == "timeout":
                    cell = [s, f"timeout (> {timeout:g} s)", "-", "-", f"> {timeout / tn:.0f}"]
                else:
                    cell = [s, r["status"], "-", "-", "-"]
            row["backends"][s] = r
            table.add(*head, *cell)
            print(table.rows[-1], file=sys.stderr, flush=True)
        if not solvers:
            table.add(*head, "-", "-", "-", "-", "-")
        rec["rows"].append(row)
    run.table(table)
    return rec


# ==================================================================== digits
def part_digits(run_: harness.Run, runs: int, max_train: int | None = None) -> dict:
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    import dpconvex as dp
    from dpconvex.errors import collect_diagnostics  # noqa: F401

    X, y = load_digits(return_X_y=True)
    X = X / 16.0 / 8.0  # public pixel range [0, 16]: ||x/16|| <= 8, so rows have norm <= 1
    times, accs, iters, solvers, resid = [], [], [], [], []
    np_times, np_accs, majority = [], [], []
    for run in range(runs):
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, stratify=y, random_state=run)
        if max_train is not None:
            Xtr, ytr = harness.subsample(Xtr, ytr, max_train)
        majority.append(1.0 - harness.majority_error(ytr, yte))
        ref = dp.PrivateLargeMarginGaussian(mechanism="none")
        t0 = time.perf_counter()
        ref.fit(Xtr, ytr)
        np_times.append(time.perf_counter() - t0)
        np_accs.append(float(ref.score(Xte, yte)))
        # the softmax objective (named: at digits' n·ε/(C(d + 1)) "auto" releases centroids)
        est = dp.PrivateLargeMarginGaussian(epsilon=1.0, mechanism="objective",
                                            random_state=77 + run)
        t0 = time.perf_counter()
        with collect_diagnostics() as diag:  # not private: benchmark report only
            est.fit(Xtr, ytr)
        times.append(time.perf_counter() - t0)
        accs.append(float(est.score(Xte, yte)))
        iters.append(int(diag[-1].iterations))
        solvers.append(diag[-1].solver)
        resid.append(float(diag[-1].residual))
    rec = {"n_train": len(ytr), "d": 64, "C": 10, "epsilon": 1.0, "times": times, "accs": accs,
           "iterations": iters, "solver": solvers[0], "max_residual": max(resid),
           "non_private_times": np_times, "non_private_accs": np_accs}
    table = harness.Table(f"digits, private large-margin Gaussian (C = 10, d = 64, ε = 1, estimator "
                          f"defaults), n_train = {len(ytr)}, {runs} runs",
                          ["row", "solver", "fit time (s) median [max]", "time ratio to non-private",
                           "iterations", "max residual", "test accuracy"])
    table.add("ε = 1", solvers[0], f"{np.median(times):.2f} [{max(times):.2f}]",
              f"{np.median(times) / np.median(np_times):.2f}", int(np.median(iters)), f"{max(resid):.1e}",
              accs)
    table.add(harness.NON_PRIVATE, "—", f"{np.median(np_times):.2f} [{max(np_times):.2f}]", "1", "—", "—",
              np_accs)
    table.add(harness.MAJORITY, "—", "—", "—", "—", "—", majority)
    run_.table(table)
    return rec


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
    ap = harness.parser(__doc__)
    ap.add_argument("--only", choices=["adult", "large_margin", "digits"], default=None)
    ap.add_argument("--runs", type=int, default=None, help="seeds for Adult (default 20, quick 2)")
    ap.add_argument("--cvxpy-timeout", type=float, default=300.0)
    ap.add_argument("--n", type=int, nargs="+", default=None,
                    help="large_margin: the record counts (default 500 2000 10000 100000)")
    ap.add_argument("--solvers", nargs="*", choices=["scs", "clarabel"], default=None,
                    help="large_margin: the CVXPY solvers to compare (default scs clarabel; none: "
                         "the native solver alone)")
    ap.add_argument("--native-runs", type=int, default=NATIVE_RUNS,
                    help=f"large_margin: native solves per n, median taken (default {NATIVE_RUNS})")
    ap.add_argument("--adult-worker", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.adult_worker is not None:
        print(json.dumps(adult_worker(json.loads(args.adult_worker))))
        return
    warnings.simplefilter("ignore", category=UserWarning)
    adult_runs = args.runs or (2 if args.quick else 20)
    with harness.Run(__file__, args, argv, part=args.only or "") as run:
        run.note(f"Python {platform.python_version()}, {os.cpu_count()} CPUs")
        if args.only in (None, "adult"):
            run.data["adult"] = part_adult(run, adult_runs, 1 if args.quick else 2,
                                           2 if args.quick else 5, args.quick)
        if args.only in (None, "large_margin"):
            ns = tuple(args.n) if args.n else (500,) if args.quick else (500, 2000, 10_000, 100_000)
            solvers = (tuple(args.solvers) if args.solvers is not None
                       else ("clarabel",) if args.quick else ("scs", "clarabel"))
            run.data["large_margin"] = lm = part_large_margin(run, ns, solvers, args.cvxpy_timeout,
                                                              args.native_runs)
            png = args.out / ("scaling-quick.png" if args.quick else "scaling.png")
            png.parent.mkdir(parents=True, exist_ok=True)
            scaling_plot(lm, png)
            run.note(f"wrote {png}")
        if args.only in (None, "digits"):
            run.data["digits"] = part_digits(run, 1 if args.quick else 3,
                                             QUICK_DIGITS_ROWS if args.quick else None)


if __name__ == "__main__":
    main(sys.argv[1:])
