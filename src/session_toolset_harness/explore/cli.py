"""``session-toolset explore``: model-based random testing of any PROTOCOL.md adapter.

Exit status: 0 no divergence; 1 a divergence or an adapter failure (the shrunk sequence is
printed and written as a vector file); 2 usage errors, an unwritable output, an adapter that
does not answer its first ``hello``, ``--merge`` reports that repeat a shard; 130/143 on
SIGINT/SIGTERM after a partial report.  Never a traceback."""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import signal
import sys
from pathlib import Path
from typing import Any

from session_toolset_model.conditions import format_table

from ..argtypes import Parser, UsageError, integer
from ..conform import shard
from ..conform.cli import positive_seconds
from ..conform.client import AdapterStartError, start_checked
from ..conform.merge import given_twice
from ..declared_difference import DECLARED_DIFFERENCE
from ..envelope import check_writable
from ..interrupt import raising_on_signals
from ..progress import Progress, on_terminal
from ..summary import GITHUB_STEP_SUMMARY, outputs, publish
from . import report
from .parallel import Plan, PlanResult, run_plan
from .run import PROFILES
from .sut import REQUEST_TIMEOUT_SECONDS, SutFailure
from .vectorize import describe, failure_vector, write_vector

PROG = "session-toolset explore"
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class _RemovedEngine(argparse.Action):
    """``--engine``: explore has one engine now; the flag fails with a one-line pointer."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        raise UsageError(
            "--engine was removed: explore has one engine, its seeded generators (drop the flag)"
        )


class _DeprecatedProfile(argparse.Action):
    """``--profile``: the old spelling of ``--budget`` (``prove --profile`` names drift rules)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        print(f"{PROG}: warning: --profile is deprecated; use --budget {values}", file=sys.stderr)
        namespace.budget = values


def _exclude_tag(text: str) -> str:
    if text != DECLARED_DIFFERENCE:
        raise argparse.ArgumentTypeError(
            f"explore can set apart only {DECLARED_DIFFERENCE!r} (SPEC.md 1.4), not {text!r}"
        )
    return text


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog=PROG,
        description="Drive an implementation and the model's oracle side by side with random "
        "operation sequences; report the first divergence, shrunk.",
        epilog="Exit status: 0 no divergence, 1 divergence or error, 2 usage error.",
    )
    parser.add_argument(
        "--adapter",
        metavar="CMD",
        help="PROTOCOL.md adapter command, split like a shell would "
        "(default: the reference implementation, in-process)",
    )
    parser.add_argument(
        "--budget", choices=sorted(PROFILES), default="dev", help="examples x steps (default: dev)"
    )
    parser.add_argument(
        "--profile", choices=sorted(PROFILES), action=_DeprecatedProfile, help=argparse.SUPPRESS
    )
    parser.add_argument(
        "--examples", type=integer(1), metavar="N", help="number of examples (sequences)"
    )
    parser.add_argument("--steps", type=integer(1), metavar="N", help="maximum steps per example")
    parser.add_argument(
        "--seed", type=integer(0), metavar="N", help="random seed (default: a fresh one, printed)"
    )
    parser.add_argument(
        "--timeout",
        metavar="SECONDS",
        type=positive_seconds,
        default=REQUEST_TIMEOUT_SECONDS,
        help=f"per-request reply timeout of --adapter (default: {REQUEST_TIMEOUT_SECONDS:g})",
    )
    parser.add_argument(
        "--exclude-tag",
        metavar="TAG",
        action="append",
        default=[],
        dest="exclude_tags",
        type=_exclude_tag,
        help=f"{DECLARED_DIFFERENCE}: steer every request off the number literals of SPEC.md "
        "1.4's declared difference (long literals a parser that is not correctly rounding reads "
        "one ulp off, in-range literals it overflows on); the report counts the steered ones",
    )
    parser.add_argument(
        "--out",
        type=Path,
        metavar="FILE",
        default=Path("explore-failure.json"),
        help="where to write the failing sequence as a vector file",
    )
    parser.add_argument("--no-shrink", action="store_true", help="report the first failure as is")
    parser.add_argument(
        "--jobs",
        type=integer(1),
        metavar="N",
        default=1,
        help="worker processes, each with its own adapter process and seed stream (default 1)",
    )
    parser.add_argument(
        "--shard",
        type=_shard,
        default=(1, 1),
        metavar="K/N",
        help="run only the K-th of N deterministic parts (CI matrix); judge with --merge",
    )
    parser.add_argument("--json", type=Path, metavar="FILE", help="write a JSON report")
    parser.add_argument(
        "--junit",
        type=Path,
        metavar="FILE",
        help="write a JUnit XML report (a divergence fails its stream's testcase, carrying the "
        "shrunk sequence)",
    )
    parser.add_argument(
        "--summary",
        type=Path,
        metavar="FILE",
        help="write a Markdown summary (per-operation table, the divergence); it is also "
        "appended to $GITHUB_STEP_SUMMARY when that is set",
    )
    parser.add_argument(
        "--merge",
        type=Path,
        nargs="+",
        metavar="REPORT",
        help="merge --json reports into one verdict, and write the merged --json, --junit and "
        "--summary reports; runs nothing",
    )
    parser.add_argument(
        "--no-pipeline",
        action="store_true",
        help="one round trip per request (default: a step's requests are sent together)",
    )
    parser.add_argument("--engine", action=_RemovedEngine, help=argparse.SUPPRESS)
    parser.add_argument(
        "--record",
        type=Path,
        metavar="FILE",
        help="write every request and reply as a trace log, one stream per example "
        "('session-toolset trace FILE'; docs/trace.md); only with --jobs 1",
    )
    out = parser.add_mutually_exclusive_group()
    out.add_argument(
        "--quiet",
        action="store_true",
        help="no progress display (the tables are printed with --verbose only)",
    )
    out.add_argument(
        "--verbose",
        action="store_true",
        help="also print the coverage table and the model's condition (MC/DC) table",
    )
    return parser


def _shard(text: str) -> tuple[int, int]:
    try:
        return shard.parse(text)
    except shard.ShardError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _adapter_argv(adapter: str | None, timeout: float) -> tuple[str, ...] | None:
    if adapter is None:
        return None
    try:
        argv = shlex.split(adapter)
    except ValueError as err:
        raise UsageError(f"--adapter: {err}") from None
    if not argv:
        raise UsageError("--adapter: empty command")
    try:  # start it once here: an adapter that cannot say hello is a usage problem, reported
        # before any work (not as a divergence of the digest preflight)
        start_checked(argv, timeout).close()
    except AdapterStartError as err:
        raise UsageError(str(err)) from None
    return tuple(argv)


def _tables(args: argparse.Namespace, hits: Any, conditions: Any) -> None:
    if args.verbose:
        print(report.coverage_table(hits))
        print(format_table(conditions))


def coverage_line(hits: Any, conditions: Any) -> str:
    """What the walk covered: (operation, outcome) pairs and the model's condition outcomes."""
    required = report.required_pairs()
    seen = sum(1 for pair in required if hits[pair])
    covered, total, _ = conditions.summary()
    return (
        f"coverage: {seen}/{len(required)} required (operation, outcome) pairs, "
        f"{len(hits)} pairs in all; {covered}/{total} condition outcomes over "
        f"{len(conditions.decisions)} decisions"
    )


def _outputs(args: argparse.Namespace) -> list[tuple[str, Path | None]]:
    files = [("--json", args.json), ("--junit", args.junit), *outputs(args.summary)]
    return files if args.merge else [*files, ("--out", args.out)]


def _check_outputs(args: argparse.Namespace) -> None:
    """Every file the run may write must be writable before any work starts."""
    check_writable(_outputs(args), UsageError)


def _write_reports(args: argparse.Namespace, built: dict[str, Any]) -> int | None:
    """Write the ``--json``, ``--junit`` and ``--summary`` reports; `EXIT_USAGE` on failure."""
    try:
        if args.json is not None:
            report.write(args.json, built)
        if args.junit is not None:
            report.write_junit(args.junit, built)
        if args.summary is not None or os.environ.get(GITHUB_STEP_SUMMARY):
            publish(report.markdown(built), args.summary)
    except OSError as err:
        print(f"{PROG}: error: cannot write a report: {err}", file=sys.stderr)
        return EXIT_USAGE
    return None


def _report(outcome: PlanResult, args: argparse.Namespace, plan: Plan, name: str) -> int:
    result = outcome.result
    status = EXIT_OK
    jobs = f"; {plan.jobs} jobs" if plan.jobs > 1 else ""
    part = f"; shard {plan.shard[0]}/{plan.shard[1]}" if plan.shard[1] > 1 else ""
    # the CPU time is this process's; with --jobs the work runs in workers, whose CPU time is
    # not collected, so no CPU rate is printed rather than a wrong one
    cpu = f", {result.steps / result.cpu_seconds:,.0f} steps/s CPU" if result.cpu_seconds else ""
    print(
        f"explore: {name}{jobs}{part}; last seed {result.seed}; {result.steps} steps in "
        f"{outcome.wall_seconds:.2f} s ({outcome.steps_per_second:,.0f} steps/s wall"
        f"{cpu}); {result.examples} examples"
        + (
            f"; {result.steered} number literals steered off the declared difference"
            if plan.steer_declared
            else ""
        )
    )
    _tables(args, result.coverage, result.conditions)
    print(coverage_line(result.coverage, result.conditions))
    if outcome.signal is not None:
        return _interrupted(outcome, args, plan, name)
    if result.error is not None:
        print(
            f"explore: the run stopped on an error outside the comparison: {result.error}",
            file=sys.stderr,
        )
        status = EXIT_FAILED
    vector_path: Path | None = None
    if result.failure is not None:
        print(describe(result.failure))
        vector = failure_vector(
            result.failure, result.digests, result.seed, preflight=result.preflight
        )
        try:
            write_vector(args.out, vector)
        except OSError as err:  # checked before the run: the file system changed meanwhile
            print(
                f"{PROG}: error: cannot write --out {args.out}: {err.strerror or err}",
                file=sys.stderr,
            )
            print(json.dumps(vector, indent=1, ensure_ascii=False))
            return EXIT_USAGE
        vector_path = args.out
        where = (
            ""
            if outcome.failing_stream is None or plan.total_streams == 1
            else (f" (stream {outcome.failing_stream} of {plan.total_streams}, seed {result.seed})")
        )
        what = "the failing sequence"
        if result.failure.adapter_failure:
            what = f"the sequence that ends in the adapter's {result.failure.kind}"
        if result.failure.flaky is not None:
            what = "the exchange that diverged once (flaky: expect the replay to pass unless it "
            what += "diverges again)"
        elif result.failure.literal:
            what = "the exact failing exchange"
        print(
            f"explore: wrote {what}{where} to {args.out} "
            f"(replay: session-toolset conform --vectors {args.out})"
        )
        status = EXIT_FAILED
    built = report.build(plan, outcome, budget=args.budget, adapter=name, vector=vector_path)
    written = _write_reports(args, built)
    if written is not None:
        return written
    if status != EXIT_OK:
        return status
    print("explore: no divergence")
    return EXIT_OK


def _interrupted(outcome: PlanResult, args: argparse.Namespace, plan: Plan, name: str) -> int:
    """A run stopped by SIGINT/SIGTERM: what it found so far, the report marked incomplete."""
    assert outcome.signal is not None
    result = outcome.result
    found = "" if result.failure is None else f"; a {result.failure.kind} was found, not shrunk"
    print(
        f"explore: interrupted by {signal.Signals(outcome.signal).name} after "
        f"{result.examples} examples, {result.steps} steps (seed {plan.seed}){found}; the "
        "results are incomplete",
        file=sys.stderr,
    )
    built = report.build(plan, outcome, budget=args.budget, adapter=name, vector=None)
    _write_reports(args, built)
    return 128 + outcome.signal


def _merge(args: argparse.Namespace) -> int:
    _check_outputs(args)
    try:
        reports = [(path, report.read(path)) for path in args.merge]
    except report.ReportError as err:
        raise UsageError(f"--merge: {err}") from None
    twice = given_twice(reports, report.shard_of)
    if twice is not None:
        raise UsageError(f"--merge: {twice}")
    merged = report.merge(reports)
    print(f"explore --merge: {len(reports)} reports, {merged.steps} steps")
    _tables(args, merged.coverage, merged.conditions)
    print(coverage_line(merged.coverage, merged.conditions))
    for problem in merged.problems:
        print(f"explore --merge: {problem}", file=sys.stderr)
    written = _write_reports(args, merged.to_json())
    if written is not None:
        return written
    if merged.ok:
        print("explore --merge: no divergence")
        return EXIT_OK
    return EXIT_FAILED


def _start_record(args: argparse.Namespace) -> None:
    """``--record``: one writing process, and a file that can be written (emptied here)."""
    if args.record is None:
        return
    if args.jobs > 1:
        raise UsageError("--record needs --jobs 1 (one process writes the log)")
    try:
        args.record.write_text("", encoding="utf-8")
    except OSError as err:
        raise UsageError(f"cannot write --record {args.record}: {err.strerror or err}") from None


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
        if args.merge:
            return _merge(args)
        _check_outputs(args)
        adapter = _adapter_argv(args.adapter, args.timeout)
        _start_record(args)
    except UsageError as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as exit_:  # --help
        return EXIT_OK if exit_.code in (0, None) else EXIT_USAGE
    budget = PROFILES[args.budget]
    plan = Plan(
        examples=args.examples or budget.examples,
        steps=args.steps or budget.steps,
        seed=random.randrange(2**32) if args.seed is None else args.seed,
        jobs=args.jobs,
        shard=args.shard,
        shrink=not args.no_shrink,
        pipeline=not args.no_pipeline,
        adapter=adapter,
        timeout=args.timeout,
        exclude_tags=tuple(dict.fromkeys(args.exclude_tags)),
        record=None if args.record is None else str(args.record),
    )
    if plan.total_streams > plan.examples:
        print(
            f"{PROG}: error: {plan.total_streams} seed streams (jobs x shards) for only "
            f"{plan.examples} examples",
            file=sys.stderr,
        )
        return EXIT_USAGE
    shown = Progress(
        "explore",
        sum(plan.stream_examples(g) for g in plan.streams()),
        "examples",
        enabled=on_terminal(args.quiet),
    )
    try:
        with raising_on_signals():
            outcome = run_plan(plan, shown.update)
    except SutFailure as err:
        print(f"{PROG}: error: the adapter failed before exploring: {err}", file=sys.stderr)
        return EXIT_FAILED
    finally:
        shown.close()
    name = "reference (in-process)" if adapter is None else shlex.join(adapter)
    return _report(outcome, args, plan, name)


if __name__ == "__main__":
    sys.exit(main())
