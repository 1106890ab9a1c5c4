"""``session-toolset conform``: the command-line front end of the conformance runner.

``main(argv)`` never raises: a usage problem (a bad flag, an unreadable file, an adapter that
cannot start or answer ``hello``) is one line on stderr and exit status 2, and so is an unusable
vector file, though only after the other vectors ran; a failed or errored vector exits 1, a
clean run 0; SIGINT/SIGTERM end the run with the reports written, incomplete, exit 130/143.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import shlex
import sys
from importlib import resources
from pathlib import Path

from session_toolset_model import keyword

from session_toolset_harness.argtypes import Parser, UsageError, integer
from session_toolset_harness.conform import (
    coverage,
    junit,
    merge,
    report,
    shard,
    skips,
    vectors,
)
from session_toolset_harness.conform.client import AdapterStartError
from session_toolset_harness.conform.jsonio import truncate
from session_toolset_harness.conform.results import RunResult, Status
from session_toolset_harness.conform.runner import MAX_FAILURES, Runner, RunOptions
from session_toolset_harness.conform.validate import validate_all
from session_toolset_harness.envelope import check_writable, tool_version
from session_toolset_harness.interrupt import exit_status, raising_on_signals
from session_toolset_harness.summary import GITHUB_STEP_SUMMARY, outputs, publish

__all__ = ["UsageError", "adapter_argv", "build_parser", "execute", "main", "positive_seconds"]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
PROG = "session-toolset conform"

REPORTS = {
    "--emit-known-failures": "write failed, errored and still-skipped vector ids as a skip file",
    "--junit": "write a JUnit XML report",
    "--json": "write a JSON report",
    "--summary": "write a Markdown summary (also appended to $GITHUB_STEP_SUMMARY when set)",
    "--record": "write every request and reply as a trace log ('session-toolset trace FILE')",
}
"""The files a run (or a merge) writes, each ``FLAG FILE``, checked writable before any work."""
TAGS = {
    "--tag": "only vectors carrying TAG (repeatable); the others are neither run nor reported",
    "--exclude-tag": "leave out vectors carrying TAG (repeatable), reported as skipped",
}
SWITCHES = {
    "--skip-must-fail": "run skipped vectors anyway; one that passes is an error (stale entry)",
    "--validate": "validate the vector files against the schemas and exit; runs no adapter",
    "--strict-replies": "check every reply against reply.schema.json; a violation fails the step",
    "--coverage": "print vectors per (op, outcome) and codes at zero",
    "--require-full-coverage": "like --coverage; exit 1 if a reachable error code stands at zero",
    "--quiet": "print only failures and the summary",
}


def positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds: {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog=PROG,
        description="Run PROTOCOL.md conformance vectors against an adapter command.",
        epilog="Exit status: 0 nothing unexpected, 1 a vector failed or errored, 2 usage error or "
        "an unusable vector file.",
    )
    add = parser.add_argument
    add(
        "--adapter",
        metavar="CMD",
        help="adapter command, split like a shell would (default: the reference adapter)",
    )
    add(
        "--vectors",
        metavar="PATH",
        nargs="+",
        action="extend",
        type=Path,
        help="vector files or directories (recursive *.json); default: the packaged corpus",
    )
    add("-k", metavar="PATTERN", dest="pattern", help=keyword.HELP.format(what="vectors"))
    tag = functools.partial(add, metavar="TAG", action="append", type=vectors.parse_tag)
    for flag, text in TAGS.items():
        tag(flag, default=[], dest="tags" if flag == "--tag" else "exclude_tags", help=text)
    add(
        "--skip",
        metavar="FILE",
        help="skip file: one id or glob per line, optional reason; or the name of one the "
        "package ships: skeleton (the vectors beyond the adapter skeletons' five ops)",
    )
    for flag, text in REPORTS.items():
        add(flag, metavar="FILE", type=Path, help=text)
    for flag, text in SWITCHES.items():
        add(flag, action="store_true", help=text)
    add(
        "--timeout",
        metavar="SECONDS",
        type=positive_seconds,
        default=10.0,
        help="per-request reply timeout (default: 10)",
    )
    add(
        "--max-failures",
        metavar="N",
        type=integer(0),
        default=MAX_FAILURES,
        help=f"stop after N adapter failures in a row; 0: never (default: {MAX_FAILURES})",
    )
    add(
        "--shard",
        metavar="K/N",
        type=shard.parse,
        default=(1, 1),
        help="run only the K-th of N deterministic parts of the vectors (CI matrix)",
    )
    add(
        "--merge",
        metavar="REPORT",
        nargs="+",
        type=Path,
        help="merge --json reports (every --shard) into one verdict and merged reports",
    )
    return parser


def packaged_vectors(location: object = None) -> Path:
    """The corpus shipped in ``session_toolset_harness/vectors/``; a usage error if absent."""
    if location is None:
        location = resources.files("session_toolset_harness") / "vectors"
    if not isinstance(location, Path) or not location.is_dir():
        raise UsageError(
            "the packaged vector corpus (session_toolset_harness/vectors/) is missing; "
            "pass --vectors PATH"
        )
    if not any(location.rglob("*.json")):
        raise UsageError(f"the packaged vector corpus at {location} is empty; pass --vectors PATH")
    return location


def _candidates(args: argparse.Namespace) -> list[vectors.Candidate]:
    try:
        return vectors.discover(args.vectors or [packaged_vectors()])
    except vectors.VectorPathError as exc:
        raise UsageError(str(exc)) from exc


def adapter_argv(args: argparse.Namespace) -> tuple[str, ...]:
    if args.adapter is None:
        return (sys.executable, "-m", "session_toolset.adapter")
    try:
        argv = shlex.split(args.adapter)
    except ValueError as exc:
        raise UsageError(f"cannot parse --adapter: {exc}") from exc
    if not argv:
        raise UsageError("--adapter is empty")
    return tuple(argv)


def _validate(args: argparse.Namespace) -> int:
    verdicts = validate_all(_candidates(args))
    counts = {"valid": 0, "invalid": 0, "skipped": 0}
    for verdict in verdicts:
        kind = "skipped" if verdict.not_a_vector else "valid" if verdict.valid else "invalid"
        counts[kind] += 1
        if kind == "invalid":
            print(f"INVALID {verdict.path}")
            for problem in verdict.problems[:20]:
                print(f"  {truncate(problem, 300)}")
            if len(verdict.problems) > 20:
                print(f"  ... and {len(verdict.problems) - 20} more problems")
        elif not args.quiet:
            print(
                f"SKIP {verdict.path}  (not a vector file)"
                if kind == "skipped"
                else f"OK {verdict.path}"
            )
    print(", ".join(f"{n} {kind}" for kind, n in counts.items()))
    status = EXIT_OK if counts["invalid"] == 0 else EXIT_FAILED
    return _coverage(args, coverage.compute(v.hits for v in verdicts), status)


def _coverage(args: argparse.Namespace, found: coverage.Coverage, status: int) -> int:
    """``--coverage``: print the table; ``--require-full-coverage``: status 1 for a gap."""
    if not (args.coverage or args.require_full_coverage):
        return status
    print(coverage.render(found), end="")
    if args.require_full_coverage and found.missing():
        print(f"{PROG}: {len(found.missing())} reachable error codes are covered by no vector")
        return max(status, EXIT_FAILED)
    return status


def _known_failures(run: RunResult) -> list[tuple[str, str]]:
    """Failed and errored vectors, plus vectors a skip entry still legitimately covers."""
    entries: list[tuple[str, str]] = []
    for result in run.results:
        if result.stale_skip:
            continue
        if result.status in (Status.FAILED, Status.ERRORED):
            entries.append((result.id, f"{result.status.value}: {result.reason}"[:300]))
        elif result.status is Status.SKIPPED and result.skip_reason is not None:
            entries.append((result.id, result.skip_reason))
    return entries


def _write_outputs(args: argparse.Namespace, run: RunResult) -> None:
    try:
        if args.json is not None:
            merge.write(run, args.json, args.shard)
        if args.junit is not None:
            junit.write(run, args.junit)
        if args.summary is not None or os.environ.get(GITHUB_STEP_SUMMARY):
            publish(report.markdown(run), args.summary)
        if args.emit_known_failures is not None:
            header = (
                f"Known failures written by {PROG} ({tool_version()}).\n"
                "Format: vector id or glob, whitespace, reason. Use with --skip."
            )
            text = skips.render(_known_failures(run), header)
            args.emit_known_failures.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write report: {exc}") from exc


def _check_writable(args: argparse.Namespace) -> None:
    """Fail before anything runs if an output file cannot be written (a usage error)."""
    files = [(flag, getattr(args, flag[2:].replace("-", "_"))) for flag in REPORTS]
    check_writable([*files, *outputs(args.summary)[1:]], UsageError)


def _run(args: argparse.Namespace) -> int:
    _check_writable(args)
    console = report.ConsoleReporter(
        sys.stdout,
        terminal=sys.stdout.isatty(),
        quiet=args.quiet,
        requested=[f for f, path in (("--json", args.json), ("--junit", args.junit)) if path],
    )
    with raising_on_signals():
        status, run = execute(args, console)
    # Coverage comes before the failure details so the summary line stays the last line.
    status = _coverage(args, coverage.compute(r.hits for r in run.results), status)
    console.finish(run)
    _write_outputs(args, run)
    if run.signal is not None:
        return 128 + run.signal
    broken = [r for r in run.results if r.file_problem]
    if broken:
        # a bad input file is a usage error (exit 2), reported after the other vectors ran
        more = f" (and {len(broken) - 1} more)" if len(broken) > 1 else ""
        raise UsageError(f"unusable vector file {broken[0].path}: {broken[0].reason}{more}")
    return status


def _selected(args: argparse.Namespace) -> list[vectors.Vector | vectors.LoadProblem]:
    """The vectors ``-k``, ``--tag`` and ``--shard`` select, and the files that could not be
    loaded.  A ``--tag`` no (``-k``-selected) vector carries is a usage error, since running
    nothing would look like a clean run; an ``--exclude-tag`` the corpus lacks, a warning."""
    items = corpus = vectors.load_all(_candidates(args))
    if args.pattern is not None:
        items = [
            item
            for item in items
            if not isinstance(item, vectors.Vector) or keyword.matches(args.pattern, item.id)
        ]
        if not any(isinstance(item, vectors.Vector) for item in items):
            raise UsageError(f"no vector id contains {args.pattern!r}")
    if not items:
        raise UsageError("no vector files found")
    missing = vectors.unknown_tags(corpus, args.tags)
    if missing:
        raise UsageError(f"no vector carries tag {missing[0]!r} (--tag)")
    unselected = vectors.unknown_tags(items, args.tags)
    if unselected:
        outside = len(vectors.select(vectors.vectors_only(corpus), unselected[:1]))
        raise UsageError(
            f"no vector selected by -k {args.pattern!r} carries tag {unselected[0]!r} (--tag; "
            f"{outside} vector(s) outside the selection do)"
        )
    for tag in vectors.unknown_tags(corpus, args.exclude_tags):
        print(f"{PROG}: warning: no vector carries tag {tag!r} (--exclude-tag)", file=sys.stderr)
    items = vectors.select(items, args.tags)
    if args.shard == (1, 1):
        return items
    # may leave nothing: fewer vectors than shards is a clean run
    return shard.select(items, args.shard, lambda item: (item.display_id, str(item.path)))


def execute(args: argparse.Namespace, console: report.ConsoleReporter) -> tuple[int, RunResult]:
    """Run the vectors ``args`` select, reporting each result to ``console`` as it finishes
    (``session-toolset check`` shares this with its own console); raises `UsageError`."""
    adapter = adapter_argv(args)
    try:
        rules = tuple(skips.read(args.skip)) if args.skip is not None else ()
    except skips.SkipFileError as exc:
        raise UsageError(str(exc)) from exc
    items = _selected(args)
    record: Path | None = args.record
    with contextlib.ExitStack() as stack:
        writer = None
        if record is not None:
            from session_toolset_harness.trace.record import TraceWriter

            try:
                writer = TraceWriter(stack.enter_context(record.open("w", encoding="utf-8")))
            except OSError as exc:
                raise UsageError(f"cannot write --record {record}: {exc}") from exc
        options = RunOptions(
            adapter=adapter,
            timeout=args.timeout,
            strict_replies=args.strict_replies,
            skip_rules=rules,
            skip_must_fail=args.skip_must_fail,
            exclude_tags=tuple(args.exclude_tags),
            max_failures=args.max_failures,
            on_result=console.on_result,
            on_exchange=None if writer is None else writer.exchange,
        )
        console.start(len(items))
        try:
            run = Runner(options).run(items)
        except AdapterStartError as exc:
            raise UsageError(str(exc)) from exc
    if writer is not None:
        print(f"{PROG}: {writer.note(record)}", file=sys.stderr)
    return (EXIT_OK if run.ok else EXIT_FAILED), run


def _merge(args: argparse.Namespace) -> int:
    """``--merge``: one verdict over the reports, and the merged reports asked for."""
    _check_writable(args)
    try:
        reports, run = merge.read_all(args.merge)
    except merge.MergeError as exc:
        raise UsageError(f"--merge: {exc}") from None
    merge.print_failures(reports, run)
    status = _coverage(args, coverage.compute(r.hits for r in run.results), EXIT_OK)
    print(merge.summary_line(len(reports), run, status))
    args.shard = (1, 1)  # the merged report covers every shard
    _write_outputs(args, run)
    return EXIT_FAILED if status or not run.ok else EXIT_OK


def main(argv: list[str]) -> int:
    """Entry point for ``session-toolset conform``; ``argv`` excludes the word ``conform``."""
    try:
        args = build_parser().parse_args(argv)
        if args.merge:
            return _merge(args)
        return _validate(args) if args.validate else _run(args)
    except UsageError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as exc:  # --help prints and exits through argparse
        return exc.code if isinstance(exc.code, int) else EXIT_OK
    except KeyboardInterrupt as exc:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return exit_status(exc)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
