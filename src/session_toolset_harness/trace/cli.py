"""``session-toolset trace LOG...``: check recorded requests and replies against the model.

Exit status: 0 every checked reply is the model's (partial mode: every partition explained),
1 a violation, 2 a usage error or an unreadable log (one line on stderr; the violations found
before an unusable line are still reported, and the reports written and marked incomplete), 3
partial mode could not decide a partition (and found no violation), 130 / 143 interrupted by
Ctrl-C / SIGTERM (the reports written so far are marked incomplete).
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn

from ..argtypes import integer
from ..envelope import check_writable
from . import report
from .logline import LogLineError
from .run import WINDOW, Interrupted, PartialSettings, Progress, TraceResult, check_logs

PROG = "session-toolset trace"
EXIT_OK, EXIT_VIOLATION, EXIT_USAGE, EXIT_UNDECIDED = 0, 1, 2, 3


class UsageError(Exception):
    """A command line or an input that makes the run impossible: one line, exit 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="Check a runtime's recorded requests and replies (JSON Lines, one "
        '{"request": ..., "reply": ...} per line) against the model, from each partition\'s '
        "first reset on. Message text is never compared.",
        epilog="Exit status: 0 consistent, 1 a violation, 2 usage error or unreadable log, "
        "3 partial mode could not decide, 130/143 interrupted (reports marked incomplete). "
        "See docs/trace.md.",
    )
    parser.add_argument("logs", metavar="LOG", nargs="+", help="a log file, or - for stdin")
    parser.add_argument(
        "--keep-going", action="store_true", help="list every violation, not only the first"
    )
    parser.add_argument(
        "--jobs",
        metavar="N",
        type=integer(1, 256),
        default=1,
        help="check partitions (stream keys) in N worker processes (default: 1; complete "
        "mode then checks in this process)",
    )
    parser.add_argument(
        "--strict-replies",
        action="store_true",
        help="also check every reply against PROTOCOL.md's reply rules and reply.schema.json, "
        "as conform --strict-replies does; a reply breaking them is a violation",
    )
    parser.add_argument("--json", metavar="FILE", type=Path, help="write a JSON report")
    parser.add_argument("--junit", metavar="FILE", type=Path, help="write a JUnit XML report")
    parser.add_argument(
        "--quiet", action="store_true", help="print only violations and the summary line"
    )
    partial = parser.add_argument_group(
        "partial mode", "the log left some kinds of operation out: solve for them"
    )
    partial.add_argument(
        "--partial",
        metavar="KINDS",
        help="comma-separated op names the log did not record; 'catalog' names the catalog "
        "mutations (catalog_insert, catalog_upsert, catalog_remove, catalog_rebase_past)",
    )
    partial.add_argument(
        "--max-hidden",
        metavar="K",
        type=integer(0),
        help="at most K unrecorded operations between two recorded lines, each solved for "
        "(default: any number when KINDS include every catalog mutation, summarised by the "
        "catalog they can reach; otherwise 2)",
    )
    partial.add_argument(
        "--window",
        metavar="N",
        type=integer(1),
        help="look at most N recorded lines back within a world (and N ahead) to explain a "
        "line; a line needing more is undecided (exit 3). A partition's check holds about 2N "
        f"lines (default: {WINDOW})",
    )
    partial.add_argument(
        "--explain",
        action="store_true",
        help="print a history of unrecorded operations that explains each consistent partition",
    )
    return parser


def _partial_settings(args: argparse.Namespace) -> PartialSettings | None:
    """``--partial``'s kinds and bound, checked before any log is read (None: complete mode)."""
    if args.partial is None:
        for flag, given in (
            ("--max-hidden", args.max_hidden is not None),
            ("--window", args.window is not None),
            ("--explain", args.explain),
        ):
            if given:
                raise UsageError(f"{flag} needs --partial KINDS")
        return None
    from .partial import PartialArgumentError, bound, check_partial, parse_kinds

    kinds = parse_kinds(args.partial)
    k = bound(kinds, args.max_hidden)
    window = WINDOW if args.window is None else args.window
    try:  # no lines: the kinds and the bounds are validated, nothing is solved
        limits = check_partial([], kinds, k, window=window).limits
    except PartialArgumentError as err:
        raise UsageError(f"--partial: {err}") from None
    return PartialSettings(tuple(sorted(kinds)), k, limits, args.explain, window)


def _check_inputs(logs: list[str]) -> None:
    if logs.count("-") > 1:
        raise UsageError("stdin (-) named more than once")
    for name in logs:
        if name == "-":
            continue
        try:
            Path(name).open("rb").close()
        except OSError as err:
            raise UsageError(f"cannot read {name}: {err.strerror or err}") from None
        if Path(name).is_dir():
            raise UsageError(f"{name} is a directory")


def _terminal_progress(quiet: bool) -> Progress | None:
    if quiet or not sys.stdout.isatty():
        return None

    def show(lines: int, violations: int) -> None:
        sys.stdout.write(f"\r  {lines} lines read, {violations} violations")
        sys.stdout.flush()

    return show


@contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    def stop(signum: int, _frame: object) -> None:
        raise Interrupted(signum)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _check(args: argparse.Namespace, settings: PartialSettings | None) -> TraceResult:
    progress = _terminal_progress(args.quiet)
    with _sigterm_interrupts():
        if settings is not None:
            from .partial_run import check_partitions

            result = check_partitions(
                args.logs,
                sys.stdin,
                settings,
                jobs=args.jobs,
                keep_going=args.keep_going,
                progress=progress,
                strict_replies=args.strict_replies,
            )
        elif args.jobs > 1:
            from .jobs import check_logs_parallel

            result = check_logs_parallel(
                args.logs,
                sys.stdin,
                jobs=args.jobs,
                keep_going=args.keep_going,
                progress=progress,
                strict_replies=args.strict_replies,
            )
        else:
            result = check_logs(
                args.logs,
                sys.stdin,
                keep_going=args.keep_going,
                progress=progress,
                strict_replies=args.strict_replies,
            )
    if progress is not None:
        sys.stdout.write("\r\033[K")
    return result


def run(args: argparse.Namespace) -> int:
    settings = _partial_settings(args)
    check_writable([("--json", args.json), ("--junit", args.junit)], UsageError)
    _check_inputs(args.logs)
    try:
        result = _check(args, settings)
    except LogLineError as err:
        raise UsageError(str(err)) from None
    for violation in result.violations:
        hint = settings is not None and args.max_hidden is None and settings.max_hidden is not None
        sys.stdout.write("\n" + report.violation_block(violation, settings, hint=hint))
    for undecided in result.undecided:
        sys.stdout.write("\n" + report.undecided_block(undecided))
    for explanation in result.explanations:
        sys.stdout.write("\n" + report.explanation_block(explanation))
    if settings is not None:  # always: the verdict means nothing without them
        sys.stdout.write("\n" + report.limits_block(result))
    print(report.summary_line(result), flush=True)
    try:
        if args.json is not None:
            report.write_json(result, args.json)
        if args.junit is not None:
            report.write_junit(result, args.junit)
    except OSError as err:
        raise UsageError(f"cannot write report: {err}") from None
    if result.interrupted is not None:
        return 128 + result.interrupted
    if result.unreadable is not None:  # what it found is reported, but the log is unusable
        raise UsageError(result.unreadable)
    if result.violations:
        return EXIT_VIOLATION
    return EXIT_UNDECIDED if result.undecided else EXIT_OK


def main(argv: list[str]) -> int:
    """Entry point of ``session-toolset trace``; ``argv`` excludes the word ``trace``."""
    try:
        args = build_parser().parse_args(argv)
    except UsageError as err:
        print(f"{PROG}: error: {err} (see --help)", file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as exc:  # --help
        return exc.code if isinstance(exc.code, int) else EXIT_OK
    try:
        return run(args)
    except UsageError as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:  # before or after the checking loop
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 128 + signal.SIGINT
    except Interrupted as why:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 128 + why.signum
