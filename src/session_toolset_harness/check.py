"""``session-toolset check``: the main job, in four stages (`STAGES`), one summary line, one
exit code: ``prove`` (the model's obligations, default profile), ``conform`` (the packaged corpus
against the reference adapter or ``--adapter CMD``), ``model_vs_recorded`` (the hand-written and
recorded vectors against the model's expected world, `independent`) and
``model_vs_implementation`` (a short in-process exploration of the model against the reference).

Exit status 0 when every stage passed, 1 when one found a problem, 2 for a bad command line or a
half that could not run; every stage runs, so one CI log shows every problem.  Off a terminal
only failures and the summary line are printed.  SIGINT/SIGTERM stop the running half, write
``--json`` with what finished (verdict ``incomplete``) and exit 130/143.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .argtypes import Parser, UsageError
from .envelope import check_writable, envelope
from .interrupt import Interrupted, exit_later, raising_on_signals, stop_child_processes
from .summary import GITHUB_STEP_SUMMARY, code_block, outputs, publish, table

if TYPE_CHECKING:
    from session_toolset_proofs.report import Tally

__all__ = ["main"]

PROG = "session-toolset check"
DEFAULT_PROFILE = "per-tool-pinned"
PROVE_WORKERS = 2
FORMAT_VERSION = 1
VERDICTS = {0: "pass", 1: "fail", 2: "error"}
WORDS = {0: "passed", 1: "FAILED", 2: "could not run"}
STAGES = {
    "prove": "proofs",
    "conform": "conformance",
    "model_vs_recorded": "model vs recorded",
    "model_vs_implementation": "model vs implementation",
}
"""Each stage's key in the ``--json`` report and its name in the summary line."""
REPORTS = {
    "--json": "write one combined machine-readable report",
    "--summary": "write a Markdown summary (one row per stage, the first failure); it is also "
    "appended to $GITHUB_STEP_SUMMARY when that is set",
}
SWITCHES = {
    "--quiet": "no progress even on a terminal: failures, summary",
    "--verbose": "also every proof row and every vector result",
}
DETAILED = ("prove", "conform")
"""The stages whose counts the summary line shows (the others: their verdict and time)."""
STOP_SECONDS = 5.0
"""After SIGINT/SIGTERM, how long the proofs may take to notice before the process exits anyway
(a solver call in Z3's C code runs no Python signal handler)."""
EXPLORE_SEED = 0
EXPLORE_EXAMPLES = 60
EXPLORE_STEPS = 30
"""The differential exploration (`model_vs_implementation`): about 2 CPU s."""


def _parser() -> Parser:
    parser = Parser(
        prog=PROG,
        description=(
            "The main job: prove the model's obligations (default profile, with witnesses and "
            "mutants) and run the conformance corpus against the reference implementation. "
            "Prints progress (on a terminal), failures and one summary line."
        ),
        epilog="Exit status: 0 both passed, 1 a proof or a vector failed, 2 usage error or a "
        "half could not run.",
    )
    for flag, text in REPORTS.items():
        parser.add_argument(flag, metavar="FILE", type=Path, help=text)
    parser.add_argument("--adapter", metavar="CMD", help="check another adapter than the reference")
    out = parser.add_mutually_exclusive_group()
    for flag, text in SWITCHES.items():
        out.add_argument(flag, action="store_true", help=text)
    return parser


@dataclass(frozen=True)
class _Stage:
    status: int  # 0 passed, 1 failed, 2 could not run
    seconds: float
    detail: str  # counts for the summary line
    report: object  # the stage's full JSON report (None when it could not run)
    first_failure: str | None = None  # for --summary
    signal: int | None = None  # the signal that interrupted the stage (its report partial)


@dataclass(frozen=True)
class _Console:
    progress: bool
    verbose: bool

    def note(self, text: str) -> None:
        if self.progress:
            print(text, flush=True)


def _prove(console: _Console, tally: Tally) -> _Stage:
    """The proofs' stage; ``tally`` holds the checks that finished (an interruption's)."""
    from session_toolset_proofs.report import Report, run

    console.note(f"check: proving the model (profile {DEFAULT_PROFILE}) ...")
    started = time.perf_counter()
    report = run([DEFAULT_PROFILE], None, PROVE_WORKERS, tally)
    seconds = time.perf_counter() - started
    rows = report.table(only_unexpected=not console.verbose)
    if rows:
        print(rows)
    if console.verbose:
        print(report.summary() + "\n")
    expected = sum(r.passed for r in report.rows)
    detail = f"{expected} of {len(report.rows)} checks as expected"
    first = next((r for r in report.rows if not r.passed), None)
    failure = None if first is None else Report([first]).table()
    status = 0 if report.ok and report.rows else 1
    return _Stage(status, seconds, detail, json.loads(report.to_json()), failure)


def _adapter_start_problem(adapter: str) -> str | None:
    """Why ``--adapter`` cannot be checked (it cannot start, or does not answer ``hello`` as
    PROTOCOL.md v1 says), found in seconds before the proofs run; None when it answers."""
    from .conform.cli import adapter_argv, build_parser
    from .conform.client import AdapterStartError, start_checked

    try:
        options = build_parser().parse_args(["--adapter", adapter])
        start_checked(adapter_argv(options), options.timeout).close()
    except (UsageError, AdapterStartError) as exc:
        return str(exc)
    return None


def _conform(console: _Console, adapter: str | None, json_report: bool) -> _Stage:
    """The conformance stage; ``json_report``: ``--json`` was given (it holds every vector)."""
    from .conform import cli as conform_cli
    from .conform import merge
    from .conform.report import ConsoleReporter, failure_block
    from .conform.results import Status

    who = repr(adapter) if adapter else "the reference adapter"
    console.note(f"check: conformance of {who} on the packaged corpus ...")
    args = conform_cli.build_parser().parse_args(["--adapter", adapter] if adapter else [])
    # verbose: one line per vector (the full table); on a terminal: progress dots; else nothing
    # until the failures.
    reporter = ConsoleReporter(
        sys.stdout,
        terminal=console.progress and not console.verbose,
        quiet=not (console.progress or console.verbose),
        requested=["--json"] if json_report else [],
        offered=["--json"],
    )
    started = time.perf_counter()
    try:
        status, result = conform_cli.execute(args, reporter)
    except UsageError as exc:
        print(f"{PROG}: error: conformance could not run: {exc}", file=sys.stderr)
        return _Stage(2, time.perf_counter() - started, "did not run", None, str(exc))
    seconds = time.perf_counter() - started
    if result.signal is not None:  # the vectors so far are the report; the check stops here
        detail = f"{len(result.results)} vectors finished"
        return _Stage(1, seconds, detail, merge.build(result), signal=result.signal)
    reporter.finish(result, summary=console.verbose)
    if console.verbose:
        print()
    detail = f"{result.counts()[Status.PASSED]} of {len(result.results)} vectors passed"
    first = failure_block(result.bad[0]) if result.bad else None
    return _Stage(status, seconds, detail, merge.build(result), first)


def _model_stage() -> _Stage:
    """The model's expected world against the hand-written corpus and recorded walkthroughs."""
    from . import independent

    started = time.perf_counter()
    report = independent.replay()
    failures = report.failures()
    for failure in failures:  # failures only: the verdict is in the summary line
        print(failure)
    seconds = time.perf_counter() - started
    first = failures[0] if failures else None
    return _Stage(0 if report.ok else 1, seconds, report.line(), report.to_json(), first)


def model_vs_implementation() -> _Stage:
    """The model (the expected side of `explore`) against the reference implementation, in
    process, on a fixed seed.  A divergence or an error is a failure, printed as one line."""
    from .explore.run import explore
    from .explore.sut import InProcessSut

    started = time.perf_counter()
    result = explore(
        InProcessSut(),
        examples=EXPLORE_EXAMPLES,
        steps=EXPLORE_STEPS,
        seed_value=EXPLORE_SEED,
        shrink=True,
    )
    seconds = time.perf_counter() - started
    failure = result.failure
    problem = result.error or (str(failure.reason) if failure else None)
    if problem is not None:
        seed = f"explore seed {EXPLORE_SEED}"
        print(f"model disagrees with the reference implementation ({seed}): {problem}")
    report = {
        "seed": EXPLORE_SEED,
        "examples": EXPLORE_EXAMPLES,
        "steps": result.steps,
        "divergence": problem,
        "requests": []
        if failure is None
        else [str(r.request) for r in (*failure.steps, *failure.observation)],
    }
    detail = f"{result.steps} steps, seed {EXPLORE_SEED}"
    return _Stage(0 if problem is None else 1, seconds, detail, report, problem)


def _summary(stages: dict[str, _Stage]) -> str:
    """The summary line: every stage, finished, interrupted or not run."""
    parts = []
    for name, label in STAGES.items():
        stage = stages.get(name)
        if stage is None:
            parts.append(f"{label} not run")
            continue
        done = "interrupted" if stage.signal is not None else WORDS.get(stage.status, "FAILED")
        detail = f"{stage.detail}, " if name in DETAILED else ""
        parts.append(f"{label} {done} ({detail}{stage.seconds:.1f} s)")
    return "check: " + ", ".join(parts)


def _document(stages: dict[str, _Stage], verdict: str, stopped: str | None) -> dict[str, Any]:
    """The ``--json`` report: the envelope, then every stage's exit status (``128 + signal``
    for an interrupted one) and full report; a ``stopped`` report is incomplete."""
    finished = [s for s in stages.values() if s.signal is None]
    counts = {
        "stages": len(STAGES),
        "passed": sum(s.status == 0 for s in finished),
        "failed": sum(s.status == 1 for s in finished),
        "not_run": sum(s.status == 2 for s in finished) + len(STAGES) - len(stages),
        "interrupted": len(stages) - len(finished),
    }
    return {
        **envelope("check", FORMAT_VERSION, verdict, counts, complete=stopped is None),
        "stopped": stopped,
        **{
            name: {
                "exit_status": s.status if s.signal is None else 128 + s.signal,
                "seconds": s.seconds,
                "report": s.report,
            }
            for name, s in stages.items()
        },
    }


def _markdown(status: int, stages: dict[str, _Stage]) -> str:
    verdict = "passed" if status == 0 else f"**{VERDICTS[status].upper()}**"
    rows = [
        [name, VERDICTS.get(s.status, "fail"), s.detail, f"{s.seconds:.1f} s"]
        for name, s in stages.items()
    ]
    parts = [
        f"## session-toolset check: {verdict}\n",
        table(["stage", "verdict", "detail", "time"], rows),
    ]
    failed = next(((n, s) for n, s in stages.items() if s.first_failure), None)
    if failed is not None:
        parts.append(f"### First failure ({failed[0]})\n")
        parts.append(code_block(str(failed[1].first_failure)))
    return "\n".join(parts)


def _write_json(path: Path, document: dict[str, Any]) -> None:
    path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")


def main(argv: list[str]) -> int:
    try:
        args = _parser().parse_args(argv)
        check_writable([("--json", args.json), *outputs(args.summary)], UsageError)
        if args.adapter is not None:
            problem = _adapter_start_problem(args.adapter)
            if problem is not None:
                raise UsageError(problem)
    except UsageError as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return 2

    console = _Console(progress=sys.stdout.isatty() and not args.quiet, verbose=args.verbose)
    from session_toolset_proofs.report import Tally

    done: dict[str, _Stage] = {}
    proving = Tally()
    started = time.perf_counter()

    def partial(signum: int) -> None:
        """The summary line and ``--json`` of an interrupted check (best effort: the run is
        ending anyway)."""
        stages = dict(done)
        if "prove" not in stages and proving.total:  # interrupted during the proofs
            name = signal.Signals(signum).name
            own = f"interrupted by {name} after {proving.done} of {proving.total} checks"
            report = json.loads(proving.report(own).to_json())
            detail = f"{proving.done} of {proving.total} checks finished"
            seconds = time.perf_counter() - started
            stages["prove"] = _Stage(1, seconds, detail, report, signal=signum)
        print(_summary(stages), flush=True)
        if args.json is not None:
            with contextlib.suppress(OSError):
                _write_json(args.json, _document(stages, "incomplete", _stopped(signum, done)))

    def stop(signum: int) -> None:
        stop_child_processes()
        exit_later(signum, STOP_SECONDS, lambda: partial(signum))

    try:
        with raising_on_signals(before=stop):
            done["prove"] = _prove(console, proving)
            done["conform"] = _conform(console, args.adapter, args.json is not None)
            if done["conform"].signal is not None:
                raise Interrupted(done["conform"].signal)
            return _finish(args.json, args.summary, done)
    except Interrupted as stopped:
        print(
            f"\n{PROG}: {_stopped(stopped.signum, done)}; the results are incomplete",
            file=sys.stderr,
        )
        partial(stopped.signum)
        return stopped.exit_status


def _stopped(signum: int, done: dict[str, _Stage]) -> str:
    """The report's ``stopped``, worded as every command's: the signal and how far it got."""
    finished = sum(stage.signal is None for stage in done.values())
    name = signal.Signals(signum).name
    return f"interrupted by {name} after {finished} of {len(STAGES)} stages"


def _finish(json_path: Path | None, summary: Path | None, stages: dict[str, _Stage]) -> int:
    """The model stages, the summary line and the reports; the exit status."""
    statuses = {stages["prove"].status, stages["conform"].status}
    # a failure found outranks a half that could not run; only two passes pass
    status = 2 if 2 in statuses and 1 not in statuses else (0 if statuses == {0} else 1)
    stages["model_vs_recorded"] = _model_stage()
    stages["model_vs_implementation"] = model_vs_implementation()
    if status == 0 and any(s.status for s in stages.values()):
        status = 1
    print(_summary(stages), flush=True)
    try:
        if json_path is not None:
            _write_json(json_path, _document(stages, VERDICTS[status], None))
        if summary is not None or os.environ.get(GITHUB_STEP_SUMMARY):
            publish(_markdown(status, stages), summary)
    except OSError as err:
        print(f"{PROG}: error: cannot write a report: {err.strerror or err}", file=sys.stderr)
        return 2
    return status
