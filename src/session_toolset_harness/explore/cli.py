"""``session-toolset explore``: model-based random testing of any PROTOCOL.md adapter.

Exit status: 0 no divergence (and, under the ``ci``/``nightly`` profiles, coverage minima met);
1 a divergence (the shrunk sequence is printed and written as a vector file) or a coverage
shortfall; 2 usage errors.  Never a traceback.
"""

from __future__ import annotations

import argparse
import random
import shlex
import sys
from pathlib import Path
from typing import NoReturn

from session_toolset_model.conditions import format_table

from ..conform.client import AdapterStartError
from . import condition_gate, coverage
from .run import PROFILES, ExploreResult, explore_rounds
from .sut import AdapterSut, InProcessSut, Sut, SutFailure
from .vectorize import describe, failure_vector, write_vector

PROG = "session-toolset explore"
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text!r}")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be non-negative: {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="Drive an implementation and the model's oracle side by side with random "
        "operation sequences (Hypothesis); report the first divergence, shrunk.",
        epilog="Exit status: 0 no divergence, 1 divergence or coverage shortfall, 2 usage error.",
    )
    parser.add_argument(
        "--adapter",
        metavar="CMD",
        help="PROTOCOL.md adapter command, split like a shell would "
        "(default: the reference implementation, in-process)",
    )
    parser.add_argument(
        "--profile",
        choices=sorted(PROFILES),
        default="dev",
        help="example/step budget and coverage minimum (default: dev)",
    )
    parser.add_argument("--examples", type=_positive, help="number of examples (sequences)")
    parser.add_argument("--steps", type=_positive, help="maximum steps per example")
    parser.add_argument("--seed", type=_seed, help="random seed (default: a fresh one, printed)")
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("explore-failure.json"),
        help="where to write the failing sequence as a vector file",
    )
    parser.add_argument("--no-shrink", action="store_true", help="report the first failure as is")
    parser.add_argument("--quiet", action="store_true", help="omit the coverage table")
    return parser


def _make_sut(adapter: str | None) -> Sut:
    if adapter is None:
        return InProcessSut()
    try:
        argv = shlex.split(adapter)
    except ValueError as err:
        raise UsageError(f"--adapter: {err}") from None
    if not argv:
        raise UsageError("--adapter: empty command")
    try:
        return AdapterSut(argv)
    except AdapterStartError as err:  # missing executable, permissions: a usage problem
        raise UsageError(str(err)) from None


def _report(result: ExploreResult, args: argparse.Namespace, sut: Sut) -> int:
    status = EXIT_OK
    print(
        f"explore: {sut.name}; last seed {result.seed}; {result.steps} steps in "
        f"{result.seconds:.2f} s ({result.steps_per_second:,.0f} steps/s CPU)"
    )
    if not args.quiet:
        print(coverage.table(result.coverage))
        print(format_table(result.conditions, condition_gate.LISTED))
    print(condition_gate.summary(result.conditions))
    if result.error is not None:
        print(
            f"explore: the run stopped on an error outside the comparison: {result.error}",
            file=sys.stderr,
        )
        status = EXIT_FAILED
    if result.failure is not None:
        print(describe(result.failure))
        vector = failure_vector(
            result.failure, result.digests, result.seed, preflight=result.preflight
        )
        write_vector(args.out, vector)
        print(
            f"explore: wrote the failing sequence to {args.out} "
            f"(replay: session-toolset conform --vectors {args.out})"
        )
        return EXIT_FAILED
    minimum = PROFILES[args.profile].min_hits
    short = coverage.missing(result.coverage, minimum) if minimum else []
    if short:
        print(f"explore: coverage below the {args.profile} minimum of {minimum}:", file=sys.stderr)
        for (op, code), hits in short:
            print(f"  {op} {code}: {hits}", file=sys.stderr)
        status = EXIT_FAILED
    unseen = condition_gate.missing(result.conditions) if minimum else []
    if unseen:
        print(
            f"explore: {len(unseen)} reachable condition outcomes never seen ({args.profile} "
            "requires all):",
            file=sys.stderr,
        )
        for key in unseen:
            print(f"  {key}", file=sys.stderr)
        status = EXIT_FAILED
    if status == EXIT_OK:
        print("explore: no divergence")
    return status


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
        sut = _make_sut(args.adapter)
    except UsageError as err:
        print(f"{PROG}: {err}", file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as exit_:  # --help
        return EXIT_OK if exit_.code in (0, None) else EXIT_USAGE
    profile = PROFILES[args.profile]
    seed = random.randrange(2**32) if args.seed is None else args.seed
    try:
        result = explore_rounds(
            sut,
            examples=args.examples or profile.examples,
            steps=args.steps or profile.steps,
            seed_value=seed,
            rounds=profile.rounds,
            min_hits=profile.min_hits,
            shrink=not args.no_shrink,
        )
    except SutFailure as err:
        print(f"{PROG}: the adapter failed before exploring: {err}", file=sys.stderr)
        return EXIT_FAILED
    finally:
        sut.close()
    return _report(result, args, sut)


if __name__ == "__main__":
    sys.exit(main())
