"""Command line: ``dpconvex demo`` (the embedded default job)."""

from __future__ import annotations

import argparse
import sys

from .errors import DPConvexError


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="dpconvex", description="Differentially private convex learning.")
    sub = p.add_subparsers(dest="command")
    d = sub.add_parser("demo", help="private logistic regression on scikit-learn's breast-cancer data")
    d.add_argument("--runs", type=int, default=10, help="noise draws per epsilon (default 10)")
    d.add_argument("--lam", type=float, default=1e-3, help="regularization Lambda (default 1e-3)")
    d.add_argument("--seed", type=int, default=None,
                   help="seed for reproducible noise (default: from the OS; a seeded model is not private)")
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``dpconvex`` console script."""
    args = _parser().parse_args(argv)
    try:
        if args.command in (None, "demo"):
            from .demo import run_demo

            run_demo(runs=getattr(args, "runs", 10), lam=getattr(args, "lam", 1e-3),
                     seed=getattr(args, "seed", None))
            return 0
    except DPConvexError as exc:
        print(f"dpconvex: error: {exc}", file=sys.stderr)
        return 2
    return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
