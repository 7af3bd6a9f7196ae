"""Command line: ``dpconvex demo | run | list | verify``, ``dpconvex --version``.

Only the standard library is imported here: ``dpconvex --help`` and ``--version`` must not pay for NumPy,
CVXPY and scikit-learn; each command imports what it needs when it runs.

``run`` writes its folder whole or not at all (``dpconvex.runs.report.write_outputs``); a SIGTERM while it
runs exits with status 143 after removing what it had begun to write, and Ctrl-C with status 130 and one
line on stderr, after the same.

``run`` and ``demo`` print each distinct warning of their fits once, after the table, on one line of stderr
(with how many fits raised it); ``run`` keeps the full texts in ``results.json``.

Bad input never ends in a traceback: a bad flag or number is a usage error and
a bad problem file, folder or parameter a dpconvex error; both print one line,
``dpconvex[ COMMAND]: error: ...``, on stderr and exit with status 2.
"""

from __future__ import annotations

import argparse
import contextlib
import re
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

from . import __version__


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line (no usage block), exit status 2.

    A message that names its argument itself ("The '--runs' argument of ...") is shown
    without argparse's "argument --runs: " before it.
    """

    def error(self, message: str) -> NoReturn:
        line = re.sub(r"^argument \S+: (?=The ')", "", " ".join(message.split()))
        self.exit(2, f"{self.prog}: error: {line} (see '{self.prog} --help')\n")


def _runs(text: str) -> int:
    """``--runs``: an integer in [1, MAX_RUNS] (dpconvex.runs.spec, read only when given)."""
    from .runs.spec import MAX_RUNS

    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= MAX_RUNS:
        raise argparse.ArgumentTypeError(
            f"The '--runs' argument of dpconvex must be an int in [1, {MAX_RUNS:,}]. "
            f"Got {text[:40]!r} instead.")
    return value


def _seed(text: str) -> int:
    """``--seed``: an integer >= 0 (NumPy's seeds are non-negative)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(
            f"The '--seed' argument of dpconvex must be an int >= 0. Got {text[:40]!r} instead.")
    return value


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="dpconvex", description="Differentially private convex learning.")
    p.add_argument("--version", action="version", version=f"dpconvex {__version__}")
    sub = p.add_subparsers(dest="command", parser_class=_Parser)
    d = sub.add_parser(
        "demo",
        help="the front door (PrivateClassifier) and private logistic regression "
        "on scikit-learn's breast-cancer data",
    )
    d.add_argument("--runs", type=_runs, default=10, help="noise draws per epsilon (default 10)")
    d.add_argument("--lam", type=float, default=1e-3,
                   help="regularization Lambda of the logistic-regression rows (default 1e-3)")
    d.add_argument(
        "--seed",
        type=_seed,
        default=None,
        help="seed >= 0 for reproducible noise (default: from the OS; a seeded model is "
        "not private)",
    )
    r = sub.add_parser(
        "run", help="run a problem (see 'dpconvex list'), print a table, write results"
    )
    r.add_argument("problem", help="problem name or path to a .toml file")
    r.add_argument("--out", default=None, help="output folder (default results/PROBLEM[-quick])")
    r.add_argument(
        "--runs", type=_runs, default=None, help="override the number of randomized runs"
    )
    r.add_argument("--quick", action="store_true", help="the reduced form used by the test suite")
    r.add_argument("--no-progress", action="store_true", help="no progress bar")
    sub.add_parser("list", help="list the problems (search order: $DPCONVEX_PROBLEMS, the source "
                   "checkout's problems/, the installed copy)")
    v = sub.add_parser(
        "verify", help="print the certificate of each private method, without training"
    )
    v.add_argument("problem")
    return p


def _cmd_list() -> int:
    from .errors import DPConvexError
    from .runs.spec import check_problem, list_problems, problem_dirs

    paths = list_problems()
    if not paths:
        where = ", ".join(str(d) for d in problem_dirs()) or "(no folder found)"
        print(f"dpconvex: no problem files found (searched: {where}). Set DPCONVEX_PROBLEMS to a "
              "folder of .toml problem files.", file=sys.stderr)
        return 1
    for path in paths:
        try:  # read and checked, no learner built (what only a built one tells: at run)
            name, dataset, title = check_problem(path, caller="dpconvex list")
        except DPConvexError as exc:
            print(f"{path.stem:34s} INVALID: {exc}")
        except Exception as exc:  # one broken file must not hide the others
            print(f"{path.stem:34s} INVALID ({type(exc).__name__}, please report): {exc}")
        else:
            print(f"{name:34s} {dataset:24s} {title}")
    return 0


@contextlib.contextmanager
def _exit_on_terminate() -> Iterator[None]:
    """SIGTERM (``kill``, ``timeout``, a batch scheduler) as :class:`SystemExit` inside: the
    ``finally`` blocks of the writes run, so no temporary file or half-made folder is left."""
    # only the main thread has handlers
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def terminate(signum: int, frame: object) -> NoReturn:
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _cmd_run(args: argparse.Namespace) -> int:
    with _exit_on_terminate():
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    import warnings

    from .runs.report import check_output_dir, format_table, warning_lines, write_outputs
    from .runs.runner import run_problem
    from .runs.spec import load_problem

    pr = load_problem(args.problem)
    out = (
        args.out
        if args.out is not None
        else Path("results") / (pr.name + ("-quick" if args.quick else ""))
    )
    out = check_output_dir(out)  # fail now, not after the fits (an empty --out included)
    with warnings.catch_warnings(record=True):  # run_problem's summary: printed below instead
        warnings.simplefilter("always")
        res = run_problem(pr, runs=args.runs, quick=args.quick, progress=not args.no_progress)
    js, png = write_outputs(res, out)
    print(format_table(res))
    print(f"\n{res.seconds:.1f} s; wrote {js} and {png}", flush=True)
    # after the table: each distinct warning of the fits once, on one line of stderr
    for line in warning_lines(res.warnings, res.fits, full_text=f"{js} (key 'warnings')"):
        print(f"dpconvex: {line}", file=sys.stderr)
    if not res.passed:
        print(
            "dpconvex: a result fell outside its expected band (see FAIL above)", file=sys.stderr
        )
        return 1
    return 0


def _cmd_verify(args: argparse.Namespace) -> int:
    import numpy as np

    from .runs.runner import _make_estimator, _split, load_data
    from .runs.spec import _err, load_problem

    pr = load_problem(args.problem)
    # the first run's training rows: n is the runs' (the split sizes of the problem file)
    (X, y), _ = _split(pr, load_data(pr), np.random.default_rng(pr.seed))
    sizes = pr.train_sizes or [len(y)]
    if max(sizes) > len(y):
        raise _err(pr.path, "grid.train_sizes", f"size {max(sizes)} exceeds the {len(y)} "
                   "training rows.", "verify")
    eps = min(pr.epsilons)
    for m in pr.methods:
        if not m.private:
            continue
        for size in sizes:
            est = _make_estimator(m, eps)
            print(f"== {m.label} at epsilon = {eps:g} (n = {size}) ==")
            if hasattr(est, "certify"):
                print(est.certify(X[:size], y[:size]))
            else:
                print(
                    f"({type(est).__name__} has no certify(); its certificate is produced by fit)"
                )
            print()
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``dpconvex`` console script."""
    args = _parser().parse_args(argv)
    try:
        if args.command in (None, "demo"):
            from .runs.runner import run_demo

            run_demo(runs=getattr(args, "runs", 10), lam=getattr(args, "lam", 1e-3),
                     seed=getattr(args, "seed", None))
            return 0
        if args.command == "list":
            return _cmd_list()
        return _cmd_run(args) if args.command == "run" else _cmd_verify(args)
    except KeyboardInterrupt:  # Ctrl-C: the writes' finally blocks have removed what they began
        print(
            "dpconvex: interrupted; nothing half-written is left (a results folder is written "
            "whole "
            "or not at all).",
            file=sys.stderr,
        )
        return 130
    except Exception as exc:
        from .errors import DPConvexError

        if not isinstance(exc, DPConvexError):
            raise
        print(f"dpconvex: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
