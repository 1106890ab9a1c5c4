"""``python -m session_toolset_harness.corpus {build,check,list} [--out DIR]``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from session_toolset_harness.corpus import coverage
from session_toolset_harness.corpus.build import DEFAULT_OUT, all_vectors, check, write


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m session_toolset_harness.corpus",
        description="Build or check the generated conformance vectors; check also runs the "
        "coverage gates ((operation, outcome) pairs and condition outcomes) on the written corpus.",
    )
    parser.add_argument("command", choices=["build", "check", "list"])
    parser.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        help=f"corpus directory (default: the packaged one, {DEFAULT_OUT})",
    )
    args = parser.parse_args(argv)
    if args.command == "list":
        for vector in all_vectors():
            print(f"{vector.id}\t{len(vector.steps)} steps")
        return 0
    if args.command == "build":
        written = write(args.out)
        print(f"wrote {len(written)} vectors under {args.out}")
        return 0
    problems = check(args.out)
    if not problems:  # the coverage gates, on the corpus as written
        cov = coverage.measure(args.out)
        problems = coverage.problems(cov)
        print(coverage.summary(cov.table))
    for problem in problems:
        print(problem)
    if problems:
        print(
            f"{len(problems)} problem(s); run `python -m session_toolset_harness.corpus build`, "
            "and add a vector for what the corpus no longer reaches",
            file=sys.stderr,
        )
        return 1
    pairs = len(coverage.model_pairs())
    print(f"corpus under {args.out} matches the builder and reaches all {pairs} model pairs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
