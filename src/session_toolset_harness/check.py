"""``session-toolset check``: the main job — proofs (default profile) + conformance.

It proves the model's obligations under the default profile (witnesses and mutants included),
then runs the packaged corpus against the reference adapter (or ``--adapter CMD``), and ends
with ONE summary line and one exit code: 0 only when both passed, 1 when either found a problem,
2 for a bad command line or when a half could not run.  Both halves always run, so one CI log
shows every problem at once.  A third stage replays the hand-written corpus and the original
implementation's recorded walkthroughs against the model's expected world (`independent`): a
model bug that contradicts recorded behaviour fails the job too (its verdict is in the summary).

Output, like a good Unix tool: on a terminal a progress line per half (dots for the vectors),
every failure, the summary line; on anything else (a CI log) the failures and the summary line
only.  ``--verbose`` adds the full tables (every proof row, every vector); ``--json FILE`` holds
both full reports whatever is printed (checked writable before anything runs).  SIGINT/SIGTERM
stop the running half (its worker processes and the adapter with it), write ``--json`` with
what finished, marked incomplete, and exit 130/143.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from .interrupt import Interrupted, exit_later, raising_on_signals, stop_child_processes
from .outputs import first_unwritable

__all__ = ["main"]

PROG = "session-toolset check"
DEFAULT_PROFILE = "per-tool-pinned"
PROVE_WORKERS = 2
STOP_SECONDS = 5.0
"""After SIGINT/SIGTERM, how long the proofs may take to notice before the process exits anyway
(a solver call in Z3's C code runs no Python signal handler)."""


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageError(message)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description=(
            "The main job: prove the model's obligations (default profile, with witnesses and "
            "mutants) and run the conformance corpus against the reference implementation. "
            "Prints progress (on a terminal), failures and one summary line."
        ),
        epilog="Exit status: 0 both passed, 1 a proof or a vector failed, 2 usage error or a "
        "half could not run.",
    )
    parser.add_argument(
        "--json", metavar="FILE", type=Path, help="write one combined machine-readable report"
    )
    parser.add_argument(
        "--adapter",
        metavar="CMD",
        help="check another implementation's adapter instead of the reference one",
    )
    out = parser.add_mutually_exclusive_group()
    out.add_argument(
        "--quiet", action="store_true", help="no progress even on a terminal: failures, summary"
    )
    out.add_argument(
        "--verbose", action="store_true", help="also every proof row and every vector result"
    )
    return parser


@dataclass(frozen=True)
class _Stage:
    status: int  # 0 passed, 1 failed, 2 could not run
    seconds: float
    detail: str  # counts for the summary line
    report: object  # the half's full JSON report (None when it could not run)
    signal: int | None = None  # the signal that interrupted the half (its report partial)


@dataclass(frozen=True)
class _Console:
    progress: bool
    verbose: bool

    def note(self, text: str) -> None:
        if self.progress:
            print(text, flush=True)


def _prove(console: _Console) -> _Stage:
    from session_toolset_proofs.report import run

    console.note(f"check: proving the model (profile {DEFAULT_PROFILE}) ...")
    started = time.perf_counter()
    report = run([DEFAULT_PROFILE], None, PROVE_WORKERS)
    seconds = time.perf_counter() - started
    table = report.table(only_unexpected=not console.verbose)
    if table:
        print(table)
    if console.verbose:
        print(report.summary() + "\n")
    expected = sum(r.passed for r in report.rows)
    detail = f"{expected} of {len(report.rows)} checks as expected"
    status = 0 if report.ok and report.rows else 1
    return _Stage(status, seconds, detail, json.loads(report.to_json()))


def _conform(console: _Console, adapter: str | None) -> _Stage:
    from .conform import cli as conform_cli
    from .conform import jsonreport
    from .conform.report import ConsoleReporter
    from .conform.results import Status

    console.note(
        "check: conformance of "
        + (repr(adapter) if adapter else "the reference adapter")
        + " on the packaged corpus ..."
    )
    args = conform_cli.build_parser().parse_args(["--adapter", adapter] if adapter else [])
    # verbose: one line per vector (the full table); on a terminal: progress dots; else nothing
    # until the failures.
    reporter = ConsoleReporter(
        sys.stdout,
        terminal=console.progress and not console.verbose,
        quiet=not (console.progress or console.verbose),
    )
    started = time.perf_counter()
    try:
        status, result = conform_cli.execute(args, reporter)
    except conform_cli.UsageError as exc:
        print(f"{PROG}: conformance could not run: {exc}", file=sys.stderr)
        return _Stage(2, time.perf_counter() - started, "did not run", None)
    seconds = time.perf_counter() - started
    if result.signal is not None:  # the vectors so far are the report; the check stops here
        return _Stage(1, seconds, "interrupted", jsonreport.build(result), result.signal)
    reporter.finish(result, summary=console.verbose)
    if console.verbose:
        print()
    counts = result.counts()
    detail = f"{counts[Status.PASSED]} of {len(result.results)} vectors passed"
    return _Stage(status, seconds, detail, jsonreport.build(result))


def _summary(prove: _Stage, conform: _Stage) -> str:
    verdict = {0: "passed", 1: "FAILED", 2: "could not run"}
    return (
        f"check: proofs {verdict.get(prove.status, 'FAILED')} "
        f"({prove.detail}, {prove.seconds:.1f} s), "
        f"conformance {verdict.get(conform.status, 'FAILED')} "
        f"({conform.detail}, {conform.seconds:.1f} s)"
    )


def _model_stage(quiet: bool) -> tuple[int, float, object]:
    """The model's expected world against the hand-written corpus and recorded walkthroughs."""
    from . import independent

    started = time.perf_counter()
    report = independent.replay()
    for failure in report.failures():  # failures only: the verdict is in the summary line
        print(failure)
    return (0 if report.ok else 1), time.perf_counter() - started, report.to_json()


def main(argv: list[str]) -> int:
    try:
        args = _parser().parse_args(argv)
    except _UsageError as err:
        print(f"{PROG}: {err}", file=sys.stderr)
        print(f"Try '{PROG} --help'.", file=sys.stderr)
        return 2

    problem = first_unwritable({"--json": args.json})
    if problem is not None:
        print(f"{PROG}: {problem}", file=sys.stderr)
        return 2
    console = _Console(progress=sys.stdout.isatty() and not args.quiet, verbose=args.verbose)
    done: dict[str, _Stage] = {}

    def partial(signum: int) -> None:
        if args.json is not None:
            _write_partial(args.json, done, signal.Signals(signum).name)

    def stop(signum: int) -> None:
        stop_child_processes()
        exit_later(signum, STOP_SECONDS, lambda: partial(signum))

    try:
        with raising_on_signals(before=stop):
            done["prove"] = _prove(console)
            done["conform"] = _conform(console, args.adapter)
            if done["conform"].signal is not None:
                raise Interrupted(done["conform"].signal)
            return _finish(args, done["prove"], done["conform"])
    except Interrupted as stopped:
        print(
            f"\n{PROG}: interrupted by {stopped.name}; the results are incomplete", file=sys.stderr
        )
        partial(stopped.signum)
        return stopped.exit_status


def _write_partial(path: Path, done: dict[str, _Stage], stopped: str) -> None:
    """The halves that finished, marked incomplete (best effort: the run is ending anyway)."""
    report: dict[str, object] = {"ok": False, "complete": False, "stopped": stopped}
    for name, stage in done.items():
        report[name] = {
            "exit_status": stage.status,
            "seconds": stage.seconds,
            "report": stage.report,
        }
    with contextlib.suppress(OSError):
        path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


def _finish(args: argparse.Namespace, prove: _Stage, conform: _Stage) -> int:
    """The model stage, the summary line and the combined report; the exit status."""
    statuses = (prove.status, conform.status)
    # a failure found outranks a half that could not run; only two passes pass
    could_not_run = 2 in statuses and 1 not in statuses
    status = 2 if could_not_run else (0 if statuses == (0, 0) else 1)
    model_status, model_s, model_report = _model_stage(args.quiet)
    status = 1 if model_status != 0 and status == 0 else status
    verdict = "passed" if model_status == 0 else "FAILED"
    print(f"{_summary(prove, conform)}, model vs recorded {verdict} ({model_s:.1f} s)", flush=True)
    if args.json is not None:
        combined = {
            "ok": status == 0,
            "complete": True,
            "stopped": None,
            "prove": {
                "exit_status": prove.status,
                "seconds": prove.seconds,
                "report": prove.report,
            },
            "conform": {
                "exit_status": conform.status,
                "seconds": conform.seconds,
                "report": conform.report,
            },
            "model_vs_recorded": {
                "exit_status": model_status,
                "seconds": model_s,
                "report": model_report,
            },
        }
        try:
            args.json.write_text(json.dumps(combined, indent=2) + "\n", encoding="utf-8")
        except OSError as err:
            print(f"{PROG}: cannot write {args.json}: {err.strerror}", file=sys.stderr)
            return 2
    return status
