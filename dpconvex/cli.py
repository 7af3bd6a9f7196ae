"""Command line: ``dpconvex demo | run | list | verify``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .errors import DPConvexError


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="dpconvex", description="Differentially private convex learning.")
    sub = p.add_subparsers(dest="command")
    d = sub.add_parser("demo", help="private logistic regression on scikit-learn's breast-cancer data")
    d.add_argument("--runs", type=int, default=10, help="noise draws per epsilon (default 10)")
    d.add_argument("--lam", type=float, default=1e-3, help="regularization Lambda (default 1e-3)")
    d.add_argument("--seed", type=int, default=None,
                   help="seed for reproducible noise (default: from the OS; a seeded model is not private)")
    r = sub.add_parser("run", help="run a problem (see 'dpconvex list'), print a table, write results")
    r.add_argument("problem", help="problem name or path to a .toml file")
    r.add_argument("--out", default=None, help="output folder (default results/PROBLEM[-quick])")
    r.add_argument("--runs", type=int, default=None, help="override the number of randomized runs")
    r.add_argument("--quick", action="store_true", help="the reduced form used by the test suite")
    r.add_argument("--no-progress", action="store_true", help="no progress bar")
    sub.add_parser("list", help="list the problems")
    v = sub.add_parser("verify", help="print the certificate of each private method, without training")
    v.add_argument("problem")
    return p


def _cmd_list() -> int:
    from .problems import list_problems, load_problem

    for path in list_problems():
        try:
            pr = load_problem(path)
            print(f"{pr.name:34s} {pr.dataset:24s} {pr.title}")
        except DPConvexError as exc:
            print(f"{path.stem:34s} INVALID: {exc}")
    return 0


def _cmd_run(args: argparse.Namespace) -> int:
    from .problems import load_problem, run_problem, write_outputs

    pr = load_problem(args.problem)
    if args.runs is not None and args.runs < 1:
        print("dpconvex: error: --runs must be >= 1", file=sys.stderr)
        return 2
    res = run_problem(pr, runs=args.runs, quick=args.quick, progress=not args.no_progress)
    out = Path(args.out or Path("results") / (pr.name + ("-quick" if args.quick else "")))
    js, png = write_outputs(res, out)
    print(res.table())
    print(f"\n{res.seconds:.1f} s; wrote {js} and {png}")
    if not res.passed:
        print("dpconvex: a result fell outside its expected band (see FAIL above)", file=sys.stderr)
        return 1
    return 0


def _cmd_verify(args: argparse.Namespace) -> int:
    import numpy as np

    from .problems import DATASETS, _make_estimator, load_problem

    pr = load_problem(args.problem)
    data = DATASETS[pr.dataset](**pr.options)
    X, y = data["train"] if isinstance(data, dict) else data
    rng = np.random.default_rng(pr.seed)
    for m in pr.methods:
        if not m.private:
            continue
        eps = min(pr.epsilons)
        est = _make_estimator(m, eps, rng)
        est = getattr(est, "estimator", est)
        print(f"== {m.label} at epsilon = {eps:g} (n = {len(y)}) ==")
        if hasattr(est, "certify"):
            print(est.certify(X, y))
        else:
            print(f"({type(est).__name__} has no certify(); its certificate is produced by fit)")
        print()
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``dpconvex`` console script."""
    args = _parser().parse_args(argv)
    try:
        if args.command in (None, "demo"):
            from .demo import run_demo

            run_demo(runs=getattr(args, "runs", 10), lam=getattr(args, "lam", 1e-3),
                     seed=getattr(args, "seed", None))
            return 0
        if args.command == "list":
            return _cmd_list()
        if args.command == "run":
            return _cmd_run(args)
        if args.command == "verify":
            return _cmd_verify(args)
    except DPConvexError as exc:
        print(f"dpconvex: error: {exc}", file=sys.stderr)
        return 2
    return 1



if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
