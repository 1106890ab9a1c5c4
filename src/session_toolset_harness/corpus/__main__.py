"""``python -m session_toolset_harness.corpus {build,check,list} [--out DIR]``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from session_toolset_harness.corpus.build import DEFAULT_OUT, all_vectors, check, write


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m session_toolset_harness.corpus",
        description="Build or check the generated conformance vectors.",
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
    for problem in problems:
        print(problem)
    if problems:
        print(
            f"{len(problems)} difference(s); run `python -m session_toolset_harness.corpus build`",
            file=sys.stderr,
        )
        return 1
    print(f"corpus under {args.out} matches the builder")
    return 0


if __name__ == "__main__":
    sys.exit(main())
