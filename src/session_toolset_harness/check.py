"""``session-toolset check``: the main job — proofs (default profile) + conformance.

It runs ``prove --profile per-tool-pinned``, then ``conform`` against the reference adapter
on the packaged corpus, then replays the hand-written corpus and the original implementation's
recorded walkthroughs against the model's expected world (`independent`), each with its own
report, and finishes with one summary line and one exit code: 0 only when all passed, 1 when any
found a problem, 2 for a bad command line.  Every stage always runs, so one CI log shows every
problem at once.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

__all__ = ["main"]

PROG = "session-toolset check"
DEFAULT_PROFILE = "per-tool-pinned"


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
            "mutants) and run the conformance corpus against the reference implementation."
        ),
        epilog="Exit status: 0 both passed, 1 a proof or a vector failed, 2 usage error.",
    )
    parser.add_argument(
        "--json", metavar="FILE", type=Path, help="write one combined machine-readable report"
    )
    parser.add_argument(
        "--adapter",
        metavar="CMD",
        help="check another implementation's adapter instead of the reference one",
    )
    parser.add_argument("--quiet", action="store_true", help="print failures and summaries only")
    return parser


def _stage(
    title: str, run: Callable[[list[str]], int], argv: list[str], report: Path
) -> tuple[int, float, object]:
    print(f"== {title}", flush=True)
    started = time.perf_counter()
    status = run([*argv, "--json", str(report)])
    seconds = time.perf_counter() - started
    try:
        data: object = json.loads(report.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = None
    print(flush=True)
    return status, seconds, data


def _model_stage(quiet: bool) -> tuple[int, float, object]:
    """The model's expected world against the hand-written corpus and recorded walkthroughs."""
    from . import independent

    print("== model vs recorded behaviour (hand-written corpus, original walkthroughs)")
    started = time.perf_counter()
    status, report = independent.run(quiet)
    print(flush=True)
    return status, time.perf_counter() - started, report.to_json()


def main(argv: list[str]) -> int:
    try:
        args = _parser().parse_args(argv)
    except _UsageError as err:
        print(f"{PROG}: {err}", file=sys.stderr)
        print(f"Try '{PROG} --help'.", file=sys.stderr)
        return 2

    from session_toolset_proofs.cli import main as prove_main

    from .conform.cli import main as conform_main

    quiet = ["--quiet"] if args.quiet else []
    conform_argv = [*quiet, *(["--adapter", args.adapter] if args.adapter else [])]
    with tempfile.TemporaryDirectory(prefix="session-toolset-check-") as tmp:
        prove_status, prove_s, prove_data = _stage(
            f"prove --profile {DEFAULT_PROFILE}",
            prove_main,
            ["--profile", DEFAULT_PROFILE, *quiet],
            Path(tmp) / "prove.json",
        )
        conform_status, conform_s, conform_data = _stage(
            "conform (reference adapter, packaged corpus)"
            if not args.adapter
            else f"conform ({args.adapter})",
            conform_main,
            conform_argv,
            Path(tmp) / "conform.json",
        )
    model_status, model_s, model_report = _model_stage(args.quiet)
    if 2 in (prove_status, conform_status) and 1 not in (prove_status, conform_status):
        status = 2
    else:
        status = 0 if prove_status == conform_status == 0 else 1
    status = 1 if model_status != 0 and status == 0 else status
    verdict = {0: "passed", 1: "FAILED", 2: "could not run"}
    print(
        f"check: proofs {verdict.get(prove_status, 'FAILED')} ({prove_s:.1f} s), "
        f"conformance {verdict.get(conform_status, 'FAILED')} ({conform_s:.1f} s), "
        f"model vs recorded {verdict.get(model_status, 'FAILED')} ({model_s:.1f} s)"
    )
    if args.json is not None:
        combined = {
            "ok": status == 0,
            "prove": {"exit_status": prove_status, "seconds": prove_s, "report": prove_data},
            "conform": {
                "exit_status": conform_status,
                "seconds": conform_s,
                "report": conform_data,
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
