"""``python -m session_toolset_harness.corpus {check,build,expand}``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from session_toolset_harness.conform import compact
from session_toolset_harness.conform.jsonio import JsonTextError
from session_toolset_harness.corpus import coverage
from session_toolset_harness.corpus.build import DEFAULT_OUT, check, expand_all, write

PROG = "python -m session_toolset_harness.corpus"
COMMANDS = {
    "check": "exit 1 unless every hand-written vector expands and is laid out canonically, the "
    "derived vectors are what the builder writes, and the corpus passes the coverage gates "
    "((operation, outcome) pairs and condition outcomes)",
    "build": "rewrite the hand-written vectors and setups.json in the canonical layout and "
    "regenerate the derived model and edge-family vectors",
    "expand": "write every vector of the corpus under OUT, at the same relative path, in "
    "PROTOCOL.md's expanded form (for runners that do not read compact vectors)",
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Check or lay out the hand-written vectors, or write the corpus in "
        "PROTOCOL.md's expanded form.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    for name, text in COMMANDS.items():
        command = commands.add_parser(name, help=text, description=text)
        if name == "expand":
            command.add_argument("target", type=Path, metavar="OUT")
        command.add_argument(
            "--from" if name == "expand" else "--out",
            dest="out",
            type=Path,
            default=DEFAULT_OUT,
            help=f"corpus directory (default: the packaged one, {DEFAULT_OUT})",
        )
    args = parser.parse_args(argv)
    try:
        if not args.out.is_dir():
            raise OSError(f"no such directory: {args.out}")
        return _run(args.command, args.out, getattr(args, "target", None))
    except (OSError, UnicodeDecodeError, JsonTextError, compact.CompactError) as exc:
        print(f"{PROG} {args.command}: error: {exc}", file=sys.stderr)
        return 2


def _run(command: str, out: Path, target: Path | None) -> int:
    if target is not None:
        print(f"wrote {len(expand_all(out, target))} vectors under {target}")
        return 0
    if command == "build":
        print(f"wrote {len(write(out))} file(s) anew under {out}")
        return 0
    problems = check(out)
    if not problems:  # the coverage gates, on the corpus as written
        measured = coverage.measure(out)
        problems = coverage.problems(measured)
        print(coverage.summary(measured.table))
    for problem in problems:
        print(problem)
    if problems:
        print(
            f"{len(problems)} problem(s); `{PROG} build` fixes the layout and the derived "
            "vectors; add a vector for what the corpus no longer reaches",
            file=sys.stderr,
        )
        return 1
    pairs = len(coverage.model_pairs())
    print(
        f"the vectors under {out} expand, are laid out canonically and reach all "
        f"{pairs} model pairs"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
