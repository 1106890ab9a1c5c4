"""``session-toolset explore``: model-based random testing of any PROTOCOL.md adapter.

Exit status: 0 no divergence (and, under the ``ci``/``nightly`` profiles, coverage minima met);
1 a divergence or an adapter failure mid-run (the shrunk sequence is printed and written as a
vector file) or a coverage shortfall; 2 usage errors, an unwritable ``--out``/``--json``, or an
adapter that does not answer its first ``hello``; 130/143 on SIGINT/SIGTERM, after the report
of what ran so far (``--json``: marked incomplete).  Never a traceback.

``--jobs N`` and ``--shard K/N`` split the run into seed streams (`parallel`); ``--json`` writes
a report and ``--merge`` turns several reports into one coverage table and one verdict (`report`).
"""

from __future__ import annotations

import argparse
import json
import random
import shlex
import signal
import sys
from pathlib import Path
from typing import NoReturn

from session_toolset_model.conditions import format_table

from ..conform import shard
from ..conform.client import AdapterStartError, start_checked
from ..interrupt import raising_on_signals
from ..outputs import first_unwritable
from ..progress import Progress, on_terminal
from . import condition_gate, coverage, report
from .parallel import Plan, PlanResult, run_plan
from .prng_engine import DEFAULT_ENGINE, ENGINES
from .run import PROFILES
from .storage import use_cache_directory
from .sut import REQUEST_TIMEOUT_SECONDS, SutFailure
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
        "operation sequences; report the first divergence, shrunk.",
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
    parser.add_argument(
        "--jobs",
        type=_positive,
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
        "--merge",
        type=Path,
        nargs="+",
        metavar="REPORT",
        help="merge --json reports into one coverage table and verdict; runs nothing",
    )
    parser.add_argument(
        "--no-pipeline",
        action="store_true",
        help="one round trip per request (default: a step's requests are sent together)",
    )
    parser.add_argument(
        "--engine",
        choices=ENGINES,
        default=DEFAULT_ENGINE,
        help="what draws the examples: the machine's rules and strategies over a seeded PRNG "
        "(prng, the default), or Hypothesis's engine (hypothesis: about half the steps per "
        "second; shrinks a divergence's rules before explore's own request shrinking)",
    )
    parser.add_argument("--quiet", action="store_true", help="omit the coverage table")
    return parser


def _shard(text: str) -> tuple[int, int]:
    try:
        return shard.parse(text)
    except shard.ShardError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _adapter_argv(adapter: str | None) -> tuple[str, ...] | None:
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
        start_checked(argv, REQUEST_TIMEOUT_SECONDS).close()
    except AdapterStartError as err:
        raise UsageError(str(err)) from None
    return tuple(argv)


def _report(outcome: PlanResult, args: argparse.Namespace, plan: Plan, name: str) -> int:
    result = outcome.result
    status = EXIT_OK
    jobs = f"; {plan.jobs} jobs" if plan.jobs > 1 else ""
    jobs += f"; engine {plan.engine}"
    part = f"; shard {plan.shard[0]}/{plan.shard[1]}" if plan.shard[1] > 1 else ""
    cpu_rate = result.steps / result.cpu_seconds if result.cpu_seconds else 0.0
    print(
        f"explore: {name}{jobs}{part}; last seed {result.seed}; {result.steps} steps in "
        f"{outcome.wall_seconds:.2f} s ({outcome.steps_per_second:,.0f} steps/s wall, "
        f"{cpu_rate:,.0f} steps/s CPU)"
        + (f"; {result.swept} edge-sweep examples" if result.swept else "")
        + (f"; {result.aimed} aimed examples at outcomes still missing" if result.aimed else "")
    )
    if not args.quiet:
        print(coverage.table(result.coverage))
        print(format_table(result.conditions, condition_gate.LISTED))
    print(condition_gate.summary(result.conditions))
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
            print(f"{PROG}: cannot write --out {args.out}: {err.strerror or err}", file=sys.stderr)
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
    if args.json is not None:
        built = report.build(plan, outcome, profile=args.profile, adapter=name, vector=vector_path)
        try:
            report.write(args.json, built)
        except OSError as err:
            print(f"{PROG}: cannot write {args.json}: {err}", file=sys.stderr)
            return EXIT_USAGE
    if status != EXIT_OK:
        return status
    minimum = plan.min_hits
    short = coverage.missing(result.coverage, minimum) if minimum and plan.shard[1] == 1 else []
    if short:
        print(f"explore: coverage below the {args.profile} minimum of {minimum}:", file=sys.stderr)
        for (op, code), hits in short:
            print(f"  {op} {code}: {hits}", file=sys.stderr)
        return EXIT_FAILED
    unseen = condition_gate.missing(result.conditions) if minimum and plan.shard[1] == 1 else []
    if unseen:
        print(
            f"explore: {len(unseen)} reachable condition outcomes never seen ({args.profile} "
            "requires all):",
            file=sys.stderr,
        )
        for key in unseen:
            print(f"  {key}", file=sys.stderr)
        return EXIT_FAILED
    if plan.shard[1] > 1 and minimum:
        print("explore: no divergence in this shard (coverage minimum judged by --merge)")
    else:
        print("explore: no divergence")
    return EXIT_OK


def _interrupted(outcome: PlanResult, args: argparse.Namespace, plan: Plan, name: str) -> int:
    """A run stopped by SIGINT/SIGTERM: what it found so far, the report marked incomplete."""
    assert outcome.signal is not None
    result = outcome.result
    found = "" if result.failure is None else f"; a {result.failure.kind} was found, not shrunk"
    print(
        f"explore: interrupted by {signal.Signals(outcome.signal).name} after "
        f"{result.steps} steps (seed {plan.seed}){found}; the results are incomplete",
        file=sys.stderr,
    )
    if args.json is not None:
        built = report.build(plan, outcome, profile=args.profile, adapter=name, vector=None)
        try:
            report.write(args.json, built)
        except OSError as err:
            print(f"{PROG}: cannot write {args.json}: {err}", file=sys.stderr)
    return 128 + outcome.signal


def _merge(args: argparse.Namespace) -> int:
    try:
        reports = [(path, report.read(path)) for path in args.merge]
    except report.ReportError as err:
        raise UsageError(f"--merge: {err}") from None
    merged = report.merge(reports)
    print(
        f"explore --merge: {len(reports)} reports, {merged.steps} steps"
        + (f"; {merged.swept} edge-sweep examples" if merged.swept else "")
        + (f"; {merged.aimed} aimed examples" if merged.aimed else "")
    )
    if not args.quiet:
        print(coverage.table(merged.coverage))
        print(format_table(merged.conditions, condition_gate.LISTED))
    print(condition_gate.summary(merged.conditions))
    for problem in merged.problems:
        print(f"explore --merge: {problem}", file=sys.stderr)
    if merged.short:
        print(f"explore --merge: coverage below the minimum of {merged.min_hits}:", file=sys.stderr)
        for (op, code), hits in merged.short:
            print(f"  {op} {code}: {hits}", file=sys.stderr)
    if merged.unseen:
        print(
            f"explore --merge: {len(merged.unseen)} reachable condition outcomes never seen in "
            "any shard (the profile requires all):",
            file=sys.stderr,
        )
        for key in merged.unseen:
            print(f"  {key}", file=sys.stderr)
    if merged.ok:
        print("explore --merge: no divergence")
        return EXIT_OK
    return EXIT_FAILED


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
        if args.merge:
            return _merge(args)
        unwritable = first_unwritable({"--out": args.out, "--json": args.json})
        if unwritable is not None:
            raise UsageError(unwritable)
        adapter = _adapter_argv(args.adapter)
    except UsageError as err:
        print(f"{PROG}: {err}", file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as exit_:  # --help
        return EXIT_OK if exit_.code in (0, None) else EXIT_USAGE
    profile = PROFILES[args.profile]
    plan = Plan(
        examples=args.examples or profile.examples,
        steps=args.steps or profile.steps,
        seed=random.randrange(2**32) if args.seed is None else args.seed,
        jobs=args.jobs,
        shard=args.shard,
        rounds=profile.rounds,
        min_hits=profile.min_hits,
        shrink=not args.no_shrink,
        pipeline=not args.no_pipeline,
        adapter=adapter,
        engine=args.engine,
    )
    if plan.total_streams > plan.examples:
        print(
            f"{PROG}: {plan.total_streams} seed streams (jobs x shards) for only "
            f"{plan.examples} examples",
            file=sys.stderr,
        )
        return EXIT_USAGE
    use_cache_directory()  # Hypothesis's caches, not the working directory
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
        print(f"{PROG}: the adapter failed before exploring: {err}", file=sys.stderr)
        return EXIT_FAILED
    finally:
        shown.close()
    name = "reference (in-process)" if adapter is None else shlex.join(adapter)
    return _report(outcome, args, plan, name)


if __name__ == "__main__":
    sys.exit(main())
